"""Regression tests of crashes, memory corruption and silent wrong values found by
adversarial testing (issue 9, "unbreakable").

Every scenario runs in a fresh interpreter (conftest.run_python) under an
address-space limit, so that a regression shows up as a crash (a signal) or a
MemoryError/timeout instead of taking the test run down; each must end with the
expected Python exception and a clean exit.  AMReX itself asserts or has
undefined behaviour (integer wrap) in most of these cases; the comments cite
where, and the tests pin boxfab's exception instead (a deliberate improvement:
"exceptions where AMReX would abort")."""
import textwrap

import pytest

from conftest import run_python

# A fresh interpreter with at most `gb` GiB of address space; `amr` is the 3D module.
PRELUDE = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({gb} << 30, {gb} << 30))
import numpy as np
import boxfab.space1d as amr1
import boxfab.space3d as amr
amr.initialize([])
def B(lo, hi):
    return amr.Box(amr.IntVect(*lo), amr.IntVect(*hi))
ba = amr.BoxArray(B((0, 0, 0), (7, 7, 7)))
dm = amr.DistributionMapping(ba)
mf = amr.MultiFab(ba, dm, 2, 1)
mf.set_val(1.0)
"""


def run_case(body, gb=4, timeout=60):
    """Run `body` after PRELUDE; return (name of the exception raised or None, its message)."""
    code = PRELUDE.format(gb=gb) + "try:\n" + textwrap.indent(textwrap.dedent(body).strip() or "pass", "    ") + """
except BaseException as e:
    print("RAISED", type(e).__name__, "::", e)
else:
    print("RAISED None :: ")
"""
    r = run_python(code, timeout=timeout)
    assert r.returncode == 0, f"crashed (rc {r.returncode}):\n{r.stdout}\n{r.stderr}"
    line = [x for x in r.stdout.splitlines() if x.startswith("RAISED ")][-1]
    name, msg = line[len("RAISED "):].split(" :: ", 1)
    return (None if name == "None" else name), msg


def expect(body, exc, match=None, **kw):
    name, msg = run_case(body, **kw)
    assert name == exc.__name__, f"expected {exc.__name__}, got {name}: {msg}"
    if match:
        assert match in msg, msg
    return msg


# ---- 1. component ranges near INT_MAX ------------------------------------------------------
# AMReX: dtoh_memcpy / htod_memcpy (AMReX_FabArrayUtility.H) only AMREX_ASSERT the layout and
# on the CPU call Copy(dst, src, scomp, dcomp, ncomp, ...), whose comps are AMREX_ASSERTed
# (AMReX_MultiFab.cpp, MultiFab::Copy); boxfab checks scomp + ncomp without an int wrap.
@pytest.mark.parametrize("fn", ["dtoh_memcpy", "htod_memcpy"])
@pytest.mark.parametrize("args", [(2**31 - 1, 0, 1), (0, 2**31 - 1, 1), (1, 0, 2**31 - 1), (0, 1, 2**31 - 1),
                                  (-1, 0, 1), (0, 0, -1)])
def test_memcpy_component_range_does_not_wrap(fn, args):
    expect(f"m2 = amr.MultiFab(ba, dm, 2, 1); amr.{fn}(m2, mf, *{args})", IndexError,
           "components must be >= 0" if args[2] < 0 else "out of range")


def test_memcpy_whole_range_still_copies():
    name, msg = run_case("""
        m2 = amr.MultiFab(ba, dm, 2, 1); m2.set_val(0.0)
        mf.set_val(3.0, 1, 1, 1)
        amr.dtoh_memcpy(m2, mf, 1, 0, 1)
        assert m2.max(0, 1) == 3.0 and m2.min(1, 1) == 0.0, (m2.max(0, 1), m2.min(1, 1))
        amr.htod_memcpy(m2, mf, 0, 0, 0)   # zero components: nothing to do
    """)
    assert name is None, msg


# The same checks on every (comp, ncomp) argument set: AMReX MultiFab::Copy / Add / Saxpy /
# LinComb AMREX_ASSERT srccomp + numcomp <= src.nComp() (AMReX_MultiFab.cpp).
@pytest.mark.parametrize("call", [
    "amr.copy_mfab(mf, mf, 99, 99, 5, 0)",
    "amr.copy_mfab(mf, mf, -1, -1, 1, 0)",
    "amr.copy_mfab(mf, mf, 0, 0, -1, 0)",
    "amr.copy_mfab(mf, mf, 1, 1, 2**31 - 1, 0)",
    "amr.MultiFab.add(mf, mf, 2**31 - 1, 0, 1, 0)",
    "amr.MultiFab.add(mf, mf, 0, 1, 2**31 - 1, 0)",
    "amr.MultiFab.saxpy(mf, 2.0, mf, 1, 2**31 - 1, 1, 0)",
    "amr.MultiFab.lin_comb(mf, 1.0, mf, 0, 1.0, mf, 2**31 - 1, 0, 1, 0)",
    "amr.MultiFab.swap(mf, mf, 0, 2**31 - 1, 1, 0)",
    "amr.MultiFab.swap(mf, mf, -(2**31), 0, 1, 0)",
    "mf.plus(mf, 2**31 - 1, 1)",
    "mf.set_val(1.0, -(2**31), 2**31 - 1)",
    "mf.sum(2**31 - 1)",
    "mf.norm1([0, 2**31 - 1], 0, False)",
    "im = amr.iMultiFab(ba, dm, 2, 1); amr.iMultiFab.add(im, im, 0, 2**31 - 1, 1, 0)",
])
def test_component_arguments_out_of_range(call):
    expect(call, IndexError)


def test_copy_onto_itself_checks_ghosts():
    # AMReX MultiFab::Copy: AMREX_ASSERT(dst.nGrowVect().allGE(nghost)) (AMReX_MultiFab.cpp)
    expect("amr.copy_mfab(mf, mf, 0, 0, 1, 2)", IndexError, "ghost")
    name, msg = run_case("amr.copy_mfab(mf, mf, 1, 1, 1, 1)")
    assert name is None, msg


# ---- 2. byte counts that wrap past 2**64 ----------------------------------------------------
# AMReX: BaseFab::nBytes(bx, ncomps) = bx.numPts() * sizeof(T) * ncomps in std::size_t
# (AMReX_BaseFab.H) wraps; FabArray::define allocates the wrapped size.  boxfab raises.
def test_multifab_total_bytes_past_2_64():
    # two boxes of 2**60 cells (2**63 bytes each) and a small one: the sum wrapped to 64 bytes
    expect("""
        n = 2**20
        ba2 = amr.BoxArray([B((0, 0, 0), (n - 1,) * 3), B((n, 0, 0), (2 * n - 1, n - 1, n - 1)),
                            B((2 * n, 0, 0), (2 * n, 0, 0))])
        m = amr.MultiFab(ba2, amr.DistributionMapping(ba2), 1, 0)
        m.set_val(1.0)
    """, OverflowError, "2^63 bytes")


def test_multifab_of_one_box_of_2_61_cells():
    # 2**61 points * 8 bytes = 2**64 wrapped to 0 (then misleading errors)
    expect("""
        ba2 = amr.BoxArray(B((0, 0, 0), (2**21 - 1, 2**20 - 1, 2**20 - 1)))
        amr.MultiFab(ba2, amr.DistributionMapping(ba2), 1, 0)
    """, OverflowError, "2^63 bytes")


def test_multifab_too_large_for_the_arena_is_a_memory_error():
    # 2**50 bytes fit in 64 bits but no arena hands them out
    expect("""
        ba2 = amr.BoxArray(B((0, 0, 0), (2**16 - 1, 2**16 - 1, 2**15 - 1)))
        amr.MultiFab(ba2, amr.DistributionMapping(ba2), 1, 0)
    """, MemoryError)


def test_multifab_without_allocation_of_huge_boxes_still_overflows():
    expect("""
        ba2 = amr.BoxArray(B((0, 0, 0), (2**21 - 1, 2**20 - 1, 2**20 - 1)))
        info = amr.MFInfo().set_alloc(False)
        amr.MultiFab(ba2, amr.DistributionMapping(ba2), 1, 0, info)
    """, OverflowError)


def test_ghost_grown_boxes_that_overflow():
    # AMReX FabArray::define grows each box by ngrow (Box::grow, int arithmetic, AMReX_Box.H)
    expect("amr.MultiFab(ba, dm, 1, 2**31 - 1)", OverflowError, "ghost cells")
    expect("amr.MultiFab(ba, dm, 1, amr.IntVect(0, 0, 2**31 - 7))", OverflowError, "direction 2")
    expect("amr.iMultiFab(ba, dm, 1, 2**31 - 1)", OverflowError)
    # fits in int, but its data does not fit in memory
    expect("amr.MultiFab(ba, dm, 1, 2**30)", OverflowError)
    expect("amr.MultiFab(ba, dm, 1, 2**15)", MemoryError)


def test_farraybox_n_bytes_does_not_wrap():
    # AMReX BaseFab::nBytes(bx, ncomps) (AMReX_BaseFab.H): 2**61 points * 8 wraps to 0
    expect("amr.FArrayBox().n_bytes(B((0, 0, 0), (2**21 - 1, 2**20 - 1, 2**20 - 1)), 1)", OverflowError)
    expect("amr.FArrayBox(B((0, 0, 0), (2**21 - 1, 2**20 - 1, 2**20 - 1)), 1)", OverflowError)
    name, msg = run_case("""
        f = amr.FArrayBox(B((0, 0, 0), (3, 3, 3)), 2)
        assert f.n_bytes() == 4**3 * 2 * 8
        assert f.n_bytes(B((0, 0, 0), (2**20 - 1, 2**20 - 1, 2**19 - 1)), 1) == 2**62
        assert f.n_bytes(B((0, 0, 0), (9, 9, 9)), 3) == 1000 * 3 * 8
        assert f.n_bytes(B((0, 0, 0), (9, 9, 9)), 0) == 0
    """)
    assert name is None, msg
