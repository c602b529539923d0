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


def run_case(body, gb=4, timeout=60, producers=False):
    """Run `body` after PRELUDE (and PRODUCERS when asked); return (name of the exception raised
    or None, its message)."""
    code = PRELUDE.format(gb=gb) + (PRODUCERS if producers else "") + "try:\n" + textwrap.indent(textwrap.dedent(body).strip() or "pass", "    ") + """
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


# Most scenarios are many small variations: they run as one batch, each in a fresh namespace
# after PRELUDE's setup, in one interpreter (under BATCH_GB GiB of address space), so that the
# file does not start 150 interpreters.  A crash of any fails them all (with its output).
_BATCH = {}
BATCH_GB = 2


def batched(key, body):
    """Register `body` (run after PRELUDE) under `key`; return the key."""
    _BATCH[key] = textwrap.dedent(body).strip() or "pass"
    return key


@pytest.fixture(scope="module")
def batch():
    import json
    head, setup = PRELUDE.format(gb=BATCH_GB).split("amr.initialize([])\n")
    code = head + PRODUCERS + """
import json, time
amr.initialize([])
results = {}
def run(key, body):
    ns = {k: v for k, v in globals().items() if k not in ("results", "run", "cases")}
    t0 = time.perf_counter()
    try:
        exec(compile(SETUP + body, key, "exec"), ns)
    except BaseException as e:
        results[key] = (type(e).__name__, str(e), time.perf_counter() - t0)
    else:
        results[key] = (None, "", time.perf_counter() - t0)
"""
    code += f"SETUP = {setup!r}\ncases = {json.dumps(_BATCH)}\n"
    code += "for k, b in cases.items():\n    run(k, b)\nprint('RESULTS', json.dumps(results))\n"
    r = run_python(code, timeout=300)
    assert r.returncode == 0, f"the batch crashed (rc {r.returncode}):\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    line = [x for x in r.stdout.splitlines() if x.startswith("RESULTS ")][-1]
    return json.loads(line[len("RESULTS "):])


def expect_batched(batch, key, exc, match=None, seconds=None):
    name, msg, took = batch[key]
    want = exc.__name__ if exc else None
    assert name == want, f"{key}: expected {want}, got {name}: {msg}"
    if match:
        assert match in msg, msg
    if seconds is not None:
        assert took < seconds, f"{key}: took {took:.1f} s"
    return msg


# ---- 1. component ranges near INT_MAX ------------------------------------------------------
# AMReX: dtoh_memcpy / htod_memcpy (AMReX_FabArrayUtility.H) only AMREX_ASSERT the layout and
# on the CPU call Copy(dst, src, scomp, dcomp, ncomp, ...), whose comps are AMREX_ASSERTed
# (AMReX_MultiFab.cpp, MultiFab::Copy); boxfab checks scomp + ncomp without an int wrap.
MEMCPY = [(fn, args) for fn in ("dtoh_memcpy", "htod_memcpy")
          for args in ((2**31 - 1, 0, 1), (0, 2**31 - 1, 1), (1, 0, 2**31 - 1), (0, 1, 2**31 - 1), (-1, 0, 1),
                       (0, 0, -1))]
for _fn, _args in MEMCPY:
    batched(f"memcpy {_fn}{_args}", f"m2 = amr.MultiFab(ba, dm, 2, 1); amr.{_fn}(m2, mf, *{_args})")


@pytest.mark.parametrize("fn, args", MEMCPY)
def test_memcpy_component_range_does_not_wrap(batch, fn, args):
    expect_batched(batch, f"memcpy {fn}{args}", IndexError,
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
COMPS = [
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
]
for _c in COMPS:
    batched("comps " + _c, _c)


@pytest.mark.parametrize("call", COMPS)
def test_component_arguments_out_of_range(batch, call):
    expect_batched(batch, "comps " + call, IndexError)


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


# ---- 6. MFIter boxes that wrapped ---------------------------------------------------------------
# AMReX MFIter::growntilebox / grownnodaltilebox (AMReX_MFIter.cpp) grow with Box::growLo/growHi
# in int (undefined behaviour past INT_MAX); MFIter::nodaltilebox(dir) treats every dir < 0 as
# "all directions" (only -1 is documented: pyAMReX's default).  boxfab raises for both.
MFITER = [
    ("mfi.growntilebox(2**31 - 1)", OverflowError),
    ("mfi.growntilebox(amr.IntVect(0, 2**31 - 1, 0))", OverflowError),
    ("mfi.growntilebox(-(2**31))", OverflowError),
    ("mfi.grownnodaltilebox(-1, 2**31 - 1)", OverflowError),
    ("mfi.grownnodaltilebox(0, 2**31 - 8)", OverflowError),
    ("mfi.nodaltilebox(-7)", IndexError),
    ("mfi.nodaltilebox(3)", IndexError),
    ("mfi.grownnodaltilebox(-2, 1)", IndexError),
]
for _c, _e in MFITER:
    batched("mfiter " + _c, f"mfi = amr.MFIter(mf)\n{_c}")


@pytest.mark.parametrize("call, exc", MFITER)
def test_mfiter_boxes_out_of_range(batch, call, exc):
    expect_batched(batch, "mfiter " + call, exc)


def test_mfiter_boxes_in_range_unchanged():
    # AMReX: growntilebox(ng) of a whole-box tile is the box grown by ng; nodaltilebox(-1) is
    # the box made nodal in every direction (AMReX_MFIter.cpp)
    name, msg = run_case("""
        mfi = amr.MFIter(mf)
        assert mfi.growntilebox(3) == B((-3, -3, -3), (10, 10, 10)), mfi.growntilebox(3)
        assert mfi.growntilebox() == B((-1, -1, -1), (8, 8, 8))
        n = mfi.nodaltilebox(-1)
        assert (list(n.small_end), list(n.big_end)) == ([0, 0, 0], [8, 8, 8]) and n.ix_type.node_centered()
        g = mfi.grownnodaltilebox(1, 2)
        assert (list(g.small_end), list(g.big_end)) == ([-2, -2, -2], [9, 10, 9]), g
    """)
    assert name is None, msg


# ---- 6. iMultiFab values -----------------------------------------------------------------------
# AMReX iMultiFab::setVal(int val, ...), plus(int val, ...), mult(int val, ...) take an int
# (AMReX_iMultiFab.H); pyAMReX's int argument refuses floats.  boxfab converts the value as
# every int argument (TypeError for any float, OverflowError beyond C int); the value was cast
# to int before (1.5 -> 1; 2**31, 1e20, nan, inf -> -2**31).
IMF_VALUES = [("2**31", OverflowError), ("-(2**31) - 1", OverflowError), ("1e20", TypeError),
              ("float('nan')", TypeError), ("float('inf')", TypeError), ("1.5", TypeError), ("2.0", TypeError),
              ("'3'", TypeError), ("np.float64(1.0)", TypeError)]
IMF_FORMS = ["im.set_val({v})", "im.set_val({v}, 0, 1)", "im.set_val({v}, B((0,0,0),(1,1,1)), 0, 1)", "im.plus({v})",
             "im.plus({v}, 0, 1)", "im.mult({v})", "im.mult({v}, B((0,0,0),(1,1,1)))"]
for _v, _e in IMF_VALUES:
    for _f in IMF_FORMS:
        batched("imf " + _f.format(v=_v), "im = amr.iMultiFab(ba, dm, 1, 0); im.set_val(7)\ntry:\n    "
                + _f.format(v=_v) + "\nfinally:\n    assert im.min(0) == 7 and im.max(0) == 7")


@pytest.mark.parametrize("val, exc", IMF_VALUES)
@pytest.mark.parametrize("form", IMF_FORMS)
def test_imultifab_scalar_is_an_int(batch, val, exc, form):
    msg = expect_batched(batch, "imf " + form.format(v=val), exc)
    assert "val" in msg


def test_imultifab_int_values_in_range():
    name, msg = run_case("""
        im = amr.iMultiFab(ba, dm, 1, 0)
        for v in (2**31 - 1, -(2**31), 0, np.int64(-5), True):
            im.set_val(v)
            assert im.min(0) == int(v) and im.max(0) == int(v), (v, im.min(0))
        im.set_val(3); im.plus(4); im.mult(-2)
        assert im.sum(0) == -14 * 512
    """)
    assert name is None, msg


# ---- 6. Array4 imports whose element count overflows ---------------------------------------------
# A fake producer: __array_interface__ (NumPy's protocol) or a DLPack capsule built with ctypes,
# so that shapes NumPy itself would refuse can be offered.  The address is never dereferenced.
PRODUCERS = """
import ctypes
class AI:
    def __init__(self, shape, strides=None, typestr='<f8', data=(4096, False)):
        self.__array_interface__ = dict(shape=shape, typestr=typestr, data=data, strides=strides, version=3)
class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]
class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]
class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]
DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER)]
ctypes.pythonapi.PyCapsule_New.restype = ctypes.py_object
ctypes.pythonapi.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
deleted = []
alive = []  # producers whose managed tensor is out (a DLPack producer keeps it until its deleter runs)
class DL:
    '''A CPU DLPack producer of float64 data with any shape; its deleter (Python, through ctypes)
    records that it ran and whether an exception was pending then (the C-level error indicator,
    read with PyErr_Occurred: None when clear).'''
    def __init__(self, shape, strides=None, data=4096, code=2, bits=64):
        self.buf = (ctypes.c_double * 8)()
        self.shape = (ctypes.c_int64 * len(shape))(*shape)
        self.strides = (ctypes.c_int64 * len(shape))(*strides) if strides else None
        def deleter(p):
            ctypes.pythonapi.PyErr_Occurred.restype = ctypes.c_void_p
            deleted.append(ctypes.pythonapi.PyErr_Occurred())
            alive.remove(self)
        self.deleter = DELETER(deleter)
        t = DLTensor(data or ctypes.addressof(self.buf), DLDevice(1, 0), len(shape), DLDataType(code, bits, 1),
                     self.shape, self.strides, 0)
        self.m = DLManagedTensor(t, None, self.deleter)
    def __dlpack_device__(self):
        return (1, 0)
    def __dlpack__(self, **kw):
        alive.append(self)
        return ctypes.pythonapi.PyCapsule_New(ctypes.addressof(self.m), b"dltensor", None)
"""


SHAPES = ["(2**40, 2**40)", "(2**62,) * 3", "(2**31, 2**31, 2**31)", "(3, 2**62, 2, 1)", "(0, 2**62, 2**62)"]
STRIDES = ["(2**62, 8)", "(-(2**62), 8)", "(-(2**63), 8)", "(8, 2**62)"]


def _register_array4_imports():
    for shape in SHAPES:
        for via in ("AI", "DL"):
            batched(f"a4 {via}{shape}", f"a = amr.Array4_double({via}({shape}))\nprint(a.size)")
    for st in STRIDES:  # shape (3, 3): the last element lies 2 * stride bytes from the first
        batched(f"a4 strides {st}", f"amr.Array4_double(AI((3, 3), strides={st}))")


_register_array4_imports()


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("via", ["AI", "DL"])
def test_array4_import_of_overflowing_shapes(batch, shape, via):
    # AMReX's Array4 (AMReX_Array4.H) computes size() = nstride * ncomp in Long: it wraps for such
    # shapes (the view reported size 0 here); boxfab refuses them.
    msg = expect_batched(batch, f"a4 {via}{shape}", OverflowError)
    assert "64 bits" in msg or "2^63" in msg


@pytest.mark.parametrize("strides", STRIDES)
def test_array4_import_of_strides_past_2_63_bytes(batch, strides):
    expect_batched(batch, f"a4 strides {strides}", OverflowError)


def test_array4_import_of_large_but_valid_shapes():
    name, msg = run_case(producers=True, body="""
        a = amr.Array4_double(AI((2**20, 2**20, 2**10)))        # 2**50 elements: 2**53 bytes
        assert a.size == 2**50 and a.nComp == 1, a.size
        b = amr.Array4_double(AI((2**20, 2**20), strides=(-8, 0)))
        assert b.size == 2**40
        c = amr.Array4_double(DL((2**30, 2**29)))              # 2**62 bytes: the largest that fits
        assert c.size == 2**59
    """)
    assert name is None, msg


# ---- 6. module functions of one dimension on an Array4 of another -------------------------------
ONE_D = """
b1 = amr1.BoxArray(amr1.Box(amr1.IntVect(0), amr1.IntVect(3)))
m1 = amr1.MultiFab(b1, amr1.DistributionMapping(b1), 1, 0)
a1 = m1.array(amr1.MFIter(m1))
"""
BOUNDS = {"lbound": (0, 0, 0), "ubound": (3, 0, 0), "length": (4, 1, 1)}
for _fn, _r in BOUNDS.items():
    batched("bounds 3d " + _fn, ONE_D + f"amr.{_fn}(a1)")
    batched("bounds 1d " + _fn, ONE_D + f"r = amr1.{_fn}(a1)\nassert (r.x, r.y, r.z) == {_r}, r")


@pytest.mark.parametrize("fn", list(BOUNDS))
def test_bounds_of_an_array4_of_another_dimension(batch, fn):
    # pyAMReX binds lbound/ubound/length per space module (its Array4 types are distinct per
    # dimension): a 1D Array4 passed to space3d's function is a TypeError there too.
    expect_batched(batch, "bounds 3d " + fn, TypeError, "dimension")
    expect_batched(batch, "bounds 1d " + fn, None)


# ---- 6. boxes on ranks that do not exist -----------------------------------------------------------
def test_multifab_on_ranks_that_do_not_exist():
    # Without MPI there is one process (rank 0).  AMReX's FabArray::define keeps only boxes with
    # distributionMap[i] == MyProc (AMReX_FabArrayBase.cpp, FabArrayBase::define / indexArray):
    # a box on rank 5 belongs to nobody; sum() skipped it.  boxfab refuses such a MultiFab.
    msg = expect("amr.MultiFab(ba, amr.DistributionMapping([5]), 1, 0)", ValueError, "rank 5")
    assert "1 process" in msg
    expect("amr.iMultiFab(ba, amr.DistributionMapping(amr.Vector_int([1])), 1, 0)", ValueError, "rank 1")
    expect("""
        ba4 = amr.BoxArray(B((0, 0, 0), (15, 15, 15))); ba4.max_size(8)
        amr.MultiFab(ba4, amr.DistributionMapping(ba4, 4), 1, 0)
    """, ValueError, "rank")
    # a DistributionMapping for more ranks stays a valid object (AMReX: DistributionMapping(ba, nprocs))
    name, msg = run_case("""
        ba4 = amr.BoxArray(B((0, 0, 0), (15, 15, 15))); ba4.max_size(8)
        d = amr.DistributionMapping(ba4, 4)
        assert sorted(set(d.ProcessorMap())) == [0, 1, 2, 3], list(d.ProcessorMap())
    """)
    assert name is None, msg


# ---- 4. a Box (or any long iterable) where a list of ints is expected ------------------------------
# pyAMReX takes Vector_int / std::vector<int> there (pybind11 refuses a Box: TypeError).  boxfab
# reads every "list of ..." argument one item at a time (util.c, bfpy_fast_sequence): the first
# point of a Box is an IntVect, not an int.  Before, the whole Box was expanded point by point
# (a list of 2**63 IntVects, ~1 GB/s) before any item was checked.
HUGE_BOX = "B((0, 0, 0), (2**20, 2**20, 2**20))"


ITERABLES = [
    (f"mf.norm1({HUGE_BOX}, 0, False)", TypeError),
    (f"mf.norm2({HUGE_BOX})", TypeError),
    (f"amr.DistributionMapping({HUGE_BOX})", TypeError),
    (f"amr.BoxArray(iter({HUGE_BOX}))", TypeError),
    (f"amr.initialize({HUGE_BOX})", TypeError),
    (f"amr.IntVect({HUGE_BOX})", TypeError),
    ("mf.norm1(range(2**40), 0, False)", ValueError),                  # known length: refused unread
    ("amr.DistributionMapping(range(2**62))", ValueError),
    ("import itertools\nmf.norm1(itertools.repeat(1.5), 0, False)", TypeError),
    ("import itertools\nmf.norm2(itertools.chain([0], itertools.repeat('x')))", TypeError),
    ("amr.RealBox(range(2**40), [1, 1, 1])", ValueError),
    ("amr.IntVect(range(2**40))", ValueError),
    ("amr.Vector_Real(range(2**40))", MemoryError),                     # room reserved up front: refused
    ("v = amr.Vector_int([0]); v.extend(range(2**40))", MemoryError),
    (f"amr.Vector_int({HUGE_BOX})", TypeError),
]
for _c, _e in ITERABLES:
    batched("iterable " + _c, _c)


@pytest.mark.parametrize("call, exc", ITERABLES)
def test_long_iterables_are_not_expanded(batch, call, exc):
    # under BATCH_GB GiB of address space, and fast: expanding the iterable would take all of it
    expect_batched(batch, "iterable " + call, exc, seconds=5)


ITER_ERRORS = [
    "class It:\n    def __iter__(self): raise KeyboardInterrupt('from the iterable')\namr.Vector_Real(It())",
    "class It:\n    def __iter__(self): return iter([1.0])\n    def __len__(self): raise KeyboardInterrupt('from the iterable')\n"
    "amr.Vector_Real(It())",
    "class It:\n    def __iter__(self): raise KeyboardInterrupt('from the iterable')\nmf.norm1(It(), 0, False)",
    "def g():\n    yield 0\n    raise KeyboardInterrupt('from the iterable')\namr.DistributionMapping(g())",
]
for _c in ITER_ERRORS:
    batched("iter error " + _c, _c)


@pytest.mark.parametrize("call", ITER_ERRORS)
def test_errors_of_iterables_pass_through(batch, call):
    # an iterable's own error is not replaced by "expects an iterable of ..." (TypeError)
    expect_batched(batch, "iter error " + call, KeyboardInterrupt, "from the iterable")


def test_iterables_of_ints_still_accepted():
    name, msg = run_case("""
        m3 = amr.MultiFab(ba, dm, 3, 0); m3.set_val(2.0)
        r = m3.norm1(iter([0, 2]), 0, False)
        assert list(r) == [2.0 * 512] * 2, list(r)
        r = m3.norm2((c for c in (1,)))
        assert list(r) == [2.0 * 512 ** 0.5], list(r)
        assert m3.norm1(amr.Vector_int([0, 1, 2]), 0, False)[2] == 1024.0
        d = amr.DistributionMapping(x for x in [0])
        assert list(d.ProcessorMap()) == [0]
        b2 = amr.BoxArray(iter([B((0, 0, 0), (1, 1, 1)), B((2, 0, 0), (3, 1, 1))]))
        assert b2.size == 2
        assert amr.IntVect(range(3)) == amr.IntVect(0, 1, 2)
    """, gb=2)
    assert name is None, msg


# ---- 5. use after free through a re-initialised Array4 / FArrayBox -------------------------------
# A DLPack capsule, and a consumer of __array_interface__ (NumPy keeps the object it read the
# interface from as the array's base), hold the Array4 itself, not the memory's owner:
# a.__init__(other) dropped the old owner, freed the memory, and writes through the old view
# landed in the next MultiFab allocated there.  Now re-initialising an Array4 that views
# memory raises RuntimeError (pybind11 would run the constructor again; AMReX's Array4 is a
# plain view with no owner at all).
EXPORTS = [
    "v = np.from_dlpack(a)",
    "cap = a.__dlpack__()",
    "class H: pass\nh = H(); h.__array_interface__ = a.__array_interface__; h.a = a\nv = np.asarray(h)",
    "f = amr.FArrayBox(a)",
    "",
]
for _x in EXPORTS:
    batched("reinit " + _x, "m = amr.MultiFab(ba, dm, 1, 0); m.set_val(1.0)\nmfi = amr.MFIter(m)\na = m.array(mfi)\n"
            + _x + "\ntry:\n    a.__init__(amr.MultiFab(ba, dm, 1, 0).array(mfi))\n"
            "finally:\n    assert a.size == 512 and a[0, 0, 0] == 1.0")


@pytest.mark.parametrize("export", EXPORTS)
def test_array4_reinit_is_refused(batch, export):
    expect_batched(batch, "reinit " + export, RuntimeError, "re-initialized")


def test_views_survive_everything_that_drops_their_owner():
    # the scenario: write through the old view, then look for the value in a new MultiFab
    name, msg = run_case("""
        m = amr.MultiFab(ba, dm, 1, 0); m.set_val(1.0)
        mfi = amr.MFIter(m)
        a = m.array(mfi)
        class H: pass
        h = H(); h.__array_interface__ = a.__array_interface__; h.a = a
        v = np.asarray(h)
        cap = np.from_dlpack(a)
        del m, a, h
        import gc; gc.collect()
        m3 = amr.MultiFab(ba, dm, 1, 0); m3.set_val(5.0)
        v[...] = 7.0
        cap[...] = 8.0
        assert m3.max(0) == 5.0 and m3.min(0) == 5.0, (m3.min(0), m3.max(0))
        assert v.max() == 8.0
    """)
    assert name is None, msg


@pytest.mark.parametrize("how", ["f.__init__(B((0, 0, 0), (3, 3, 3)), 1)", "f.clear()",
                                 "f.resize(B((0, 0, 0), (3, 3, 3)), 1)"])
def test_farraybox_array_interface_views_survive_reinit(how):
    # A consumer of FArrayBox.__array_interface__ holds the FArrayBox object: clear(), resize()
    # and __init__ freed the memory it reads; the next FArrayBox got it.  The memory handed out
    # that way now lives as long as the FArrayBox object.
    name, msg = run_case(f"""
        f = amr.FArrayBox(B((0, 0, 0), (3, 3, 3)), 1)
        class H: pass
        h = H(); h.__array_interface__ = f.__array_interface__; h.f = f
        v = np.asarray(h)
        {how}
        g = amr.FArrayBox(B((0, 0, 0), (3, 3, 3)), 1)
        g.array().to_numpy()[...] = 5.0
        v[...] = 7.0
        assert g.array().to_numpy().max() == 5.0
    """)
    assert name is None, msg


def test_other_reinits_keep_views_valid():
    # MultiFab, BoxArray, DistributionMapping and Vector re-initialisation: views hold the
    # memory (MultiFab data through its buffer), or resizing is refused while exported.
    name, msg = run_case("""
        m = amr.MultiFab(ba, dm, 1, 0); m.set_val(2.0)
        it = amr.MFIter(m)
        v = m.array(it).to_numpy()
        m.__init__(ba, dm, 2, 1); m.set_val(3.0)
        assert v.max() == 2.0 and m.array(it).to_numpy().shape == (10, 10, 10, 2)
        vr = amr.Vector_Real([1.0, 2.0]); view = np.asarray(vr)
        try:
            vr.__init__([3.0] * 100)
        except BufferError:
            pass
        else:
            raise AssertionError("Vector re-init while exported")
        assert list(view) == [1.0, 2.0]
    """)
    assert name is None, msg


# ---- 7. errors of foreign objects pass through; clear messages -----------------------------------
PROTOCOL_ATTRS = ["__array_interface__", "__dlpack__", "__dlpack_device__", "__cuda_array_interface__"]
PRODUCER_ERRORS = {"KeyboardInterrupt": KeyboardInterrupt, "RuntimeError": RuntimeError,
                   "ZeroDivisionError": ZeroDivisionError}
for _a in PROTOCOL_ATTRS:
    for _x in PRODUCER_ERRORS:
        batched(f"protocol {_a} {_x}", f"""
            def boom(self, *args, **kw):
                raise {_x}("from the producer")
            attrs = {{"{_a}": property(boom)}}
            if "{_a}" != "__array_interface__":   # something to fall back to, were the error swallowed
                attrs["__array_interface__"] = dict(shape=(2,), typestr='<f8', data=(4096, False), version=3)
            if "{_a}" == "__dlpack_device__":
                attrs["__dlpack__"] = boom
            amr.Array4_double(type("X", (), attrs)())
        """)


@pytest.mark.parametrize("attr", PROTOCOL_ATTRS)
@pytest.mark.parametrize("exc", list(PRODUCER_ERRORS))
def test_errors_while_reading_protocols_pass_through(batch, attr, exc):
    # Was: swallowed, and "offers none of __dlpack__, ..." (TypeError) raised instead.
    expect_batched(batch, f"protocol {attr} {exc}", PRODUCER_ERRORS[exc], "from the producer")


def test_attribute_error_still_means_absent():
    name, msg = run_case("""
        buf = np.arange(4.0)
        class X:
            @property
            def __dlpack__(self):
                raise AttributeError("not for this memory")
            @property
            def __cuda_array_interface__(self):
                raise AttributeError("host memory")
            __array_interface__ = buf.__array_interface__
        a = amr.Array4_double(X())
        assert a.size == 4 and a[3, 0, 0] == 3.0
    """)
    assert name is None, msg


def test_failed_dlpack_import_keeps_its_error_and_runs_the_deleter_cleanly():
    # The capsule is taken (renamed) before the view is checked; a failure afterwards calls the
    # producer's deleter, which ran with the exception pending: Python code in it (here a ctypes
    # callback) turned that into SystemError ("returned NULL without setting an exception").
    name, msg = run_case(producers=True, body="""
        for shape, exc in (((2, -3), ValueError), ((2**40, 2**40), OverflowError)):
            try:
                amr.Array4_double(DL(shape))
            except exc:
                pass
        assert deleted == [None, None], deleted   # ran once each, with no exception pending
        a = amr.Array4_double(DL((2, 3), data=None))
        assert a.size == 6 and deleted == [None, None]
        del a
        assert deleted == [None, None, None]
    """)
    assert name is None, msg


def test_dlpack_tensor_without_shape():
    # a broken producer (shape NULL with ndim 2) was read through the NULL pointer
    expect(producers=True, body="""
        p = DL((2, 3))
        p.m.dl_tensor.shape = None
        amr.Array4_double(p)
    """, exc=BufferError, match="no shape")


def test_array_interface_without_data_is_explained():
    # NumPy: a missing 'data' (or None) means "use the object's buffer protocol"; without one the
    # error was "memoryview: a bytes-like object is required, not 'X'".
    msg = expect("""
        class X:
            __array_interface__ = dict(shape=(2, 2, 2), typestr='<f8', version=3)
        amr.Array4_double(X())
    """, TypeError, "'data'")
    assert "buffer protocol" in msg
    name, msg = run_case("""
        import array
        class Y(array.array):
            __array_interface__ = dict(shape=(2,), typestr='<f8', data=None, version=3)
        a = amr.Array4_double(Y('d', [1.0, 2.0]))
        assert a.size == 2 and a[1, 0, 0] == 2.0
    """)
    assert name is None, msg


def test_array_dunder_on_host_memory():
    # np.asarray() reads the buffer protocol first; __array__ answers direct calls and is what
    # NumPy falls back to for device memory (test_array_of_device_memory_raises below).
    name, msg = run_case("""
        x = np.arange(24.0).reshape(2, 3, 4)
        a = amr.Array4_double(x)
        v = a.__array__()
        assert v.shape == (1, 2, 3, 4) and np.shares_memory(v, x)
        w = a.__array__(np.float32)
        assert w.dtype == np.float32 and not np.shares_memory(w, x)
        assert not np.shares_memory(a.__array__(copy=True), x)
        try:
            a.__array__(np.float32, copy=False)
        except ValueError:
            pass
        else:
            raise AssertionError("copy=False with a cast")
        assert np.shares_memory(np.asarray(a), x)
        f = amr.FArrayBox(B((0, 0, 0), (1, 2, 3)), 2)
        assert f.__array__().shape == (2, 4, 3, 2) and np.shares_memory(f.__array__(), f.array().to_numpy())
    """)
    assert name is None, msg


@pytest.mark.gpu
def test_array_of_device_memory_raises():
    # CuPy's ndarray.__array__ raises TypeError ("Implicit conversion to a NumPy array is not
    # allowed"); boxfab's Array4 of The_Device_Arena data did not say anything: NumPy, finding
    # no buffer and no __array_interface__, wrapped the Array4 in a 0-d object array.
    r = run_python("""
        import numpy as np
        import boxfab.space3d as amr
        amr.initialize([])
        ba = amr.BoxArray(amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(7, 7, 7)))
        mf = amr.MultiFab(ba, amr.DistributionMapping(ba), 1, 0, amr.MFInfo().set_arena(amr.The_Device_Arena()))
        mf.set_val(2.0)
        for mfi in mf:
            a = mf.array(mfi)
            for f in (np.asarray, np.array, lambda x: np.array(x, dtype=np.float32), lambda x: x.__array__()):
                try:
                    f(a)
                except TypeError as e:
                    assert "to_host()" in str(e) and "to_cupy()" in str(e), str(e)
                else:
                    raise AssertionError("no TypeError")
            assert a.to_host().max() == 2.0
        f = amr.FArrayBox(amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(3, 3, 3)), 1, amr.The_Device_Arena())
        try:
            np.asarray(f)
        except TypeError as e:
            assert "to_host()" in str(e), str(e)
        else:
            raise AssertionError("no TypeError for an FArrayBox in device memory")
        print("OK")
    """)
    assert r.returncode == 0 and "OK" in r.stdout, r.stdout + r.stderr


@pytest.mark.gpu
def test_fab_to_host_of_device_memory():
    # FArrayBox/BaseFab_Real.to_host() copied with a host loop that read the device addresses of
    # a fab in The_Arena / The_Device_Arena: SIGSEGV (found by pyAMReX's test_basefab.py on the
    # H200).  The copy now goes through the memory kind of the source.
    r = run_python("""
        import numpy as np
        import cupy as cp
        import boxfab.space3d as amr
        amr.initialize(["amrex.verbose=0"])
        box = amr.Box((0, 0, 0), (15, 7, 3))
        arenas = [(amr.The_Arena(), True), (amr.The_Device_Arena(), True), (amr.The_Managed_Arena(), True),
                  (amr.The_Pinned_Arena(), False)]   # pinned memory is host memory: NumPy views it
        for arena, on_device in arenas:
            for cls in (amr.FArrayBox, amr.BaseFab_Real):
                f = cls(box, 2, arena)
                ref = np.arange(2 * 4 * 8 * 16, dtype=np.float64).reshape(2, 4, 8, 16)
                if on_device:
                    f.array().to_cupy()[...] = cp.asarray(ref.transpose(3, 2, 1, 0))   # (x, y, z, comp)
                    cp.cuda.Device().synchronize()
                else:
                    f.array().to_numpy()[...] = ref.transpose(3, 2, 1, 0)
                h = f.to_host()
                assert type(h) is cls
                got = h.array().to_numpy()                 # host view (x, y, z, comp)
                assert np.array_equal(got, ref.transpose(3, 2, 1, 0)), (arena, cls)
                assert np.array_equal(np.asarray(h), ref)  # (comp, z, y, x)
        print("OK")
    """)
    assert r.returncode == 0 and "OK" in r.stdout, r.stdout + r.stderr


# ---- 3. periods that do not fit the data ------------------------------------------------------------
# AMReX's ghost exchanges take the shifts of Periodicity::shiftIntVect(ng) (AMReX_Periodicity.cpp):
# the multiples k * period with |k| <= max(1, ceil(ng / period)), used by FabArrayBase::FB
# (fill_boundary, ng = the filled ghost width) and FabArrayBase::CPC (parallel_copy/add,
# sum_boundary: the destination's ghost width); OwnerMask / OverlapMask (override_sync,
# sum_unique, norms) use shiftIntVect() (ng 0).  boxfab took every multiple that could meet the
# data: with period 1 on a 64^3 box that is ~130^3 shifts per ghost region (a plan of 20 GB in
# 60 s).  Now the shifts are AMReX's, and a period the data spans more than twice is refused:
# a periodic Geometry's boxes lie in one period (its domain).
PER1 = """
big = amr.BoxArray(B((0, 0, 0), (63, 63, 63)))
bdm = amr.DistributionMapping(big)
m = amr.MultiFab(big, bdm, 1, 1); m.set_val(1.0)
P1 = amr.Periodicity(amr.IntVect(1, 1, 1))
"""


PERIOD_CALLS = [
    "m.fill_boundary(P1)", "m.fill_boundary(0, 1, P1)", "m.fill_boundary(0, 1, amr.IntVect(1, 1, 1), P1, True)",
    "m.fill_boundary(P1, cross=True)",
    "m.sum_boundary(P1)", "m.sum_boundary(0, 1, amr.IntVect(1, 1, 1), P1)",
    "m.override_sync(P1)", "m.average_sync(P1)",
    "m2 = amr.MultiFab(big, bdm, 1, 1); m2.parallel_copy(m, period=P1)",
    "m2 = amr.MultiFab(big, bdm, 1, 1); m2.parallel_copy(m, 0, 0, 1, 1, 1, P1)",
    "m2 = amr.MultiFab(ba, dm, 1, 1); m2.parallel_add(m, 0, 0, 1, 0, 0, P1)",
    "m.sum_unique(0, False, P1)", "m.norm1(0, P1, False)", "m.norm2(0, P1)",
    "im = amr.iMultiFab(big, bdm, 1, 1); im.fill_boundary(P1)",
    "m.fill_boundary(amr.Periodicity(amr.IntVect(31, 0, 0)))",
]
for _c in PERIOD_CALLS:
    batched("period " + _c, PER1 + _c)


@pytest.mark.parametrize("call", PERIOD_CALLS)
def test_periods_that_do_not_fit_are_refused(batch, call):
    msg = expect_batched(batch, "period " + call, ValueError, "does not fit the data", seconds=5)
    assert "(1,1,1)" in msg or "(31,0,0)" in msg


def test_fill_boundary_with_data_spanning_two_periods_follows_amrex_shifts():
    # one box [0, 15], period 8, one ghost cell: AMReX's shifts are +-8 only, so ghost -1 takes
    # cell 7 (-1 + 8) and ghost 16 takes cell 8 (16 - 8); the shift -16 (cell 15) is not among them.
    name, msg = run_case("""
        b = amr1.BoxArray(amr1.Box(amr1.IntVect(0), amr1.IntVect(15)))
        m = amr1.MultiFab(b, amr1.DistributionMapping(b), 1, 1)
        for mfi in m:
            v = m.array(mfi).to_numpy()
            v[1:17, 0, 0, 0] = np.arange(16.0)
        m.fill_boundary(amr1.Periodicity(amr1.IntVect(8)))
        for mfi in m:
            v = m.array(mfi).to_numpy()[:, 0, 0, 0]
            assert v[0] == 7.0 and v[17] == 8.0, v
    """)
    assert name is None, msg


@pytest.mark.parametrize("d", [1, 2, 3])
def test_fill_boundary_with_more_ghost_cells_than_the_period(d):
    # a 4-cell periodic domain with 6 ghost cells: shifts of +-4 and +-8 (K = ceil(6 / 4) = 2);
    # the ghosts are the periodic continuation, which np.pad(mode="wrap") computes
    name, msg = run_case(f"""
        import boxfab.space{d}d as s
        n, g = 4, 6
        b = s.BoxArray(s.Box(s.IntVect(*[0] * {d}), s.IntVect(*[n - 1] * {d})))
        m = s.MultiFab(b, s.DistributionMapping(b), 1, g)
        rng = np.random.default_rng(1)
        vals = rng.random([n] * {d})
        for mfi in m:
            v = m.array(mfi).to_numpy()
            v[...] = -1.0
            v[tuple([slice(g, g + n)] * {d} + [slice(None)] * (3 - {d}) + [0])] = vals.reshape(vals.shape + (1,) * (3 - {d}))
        m.fill_boundary(s.Periodicity(s.IntVect(*[n] * {d})))
        ref = np.pad(vals, g, mode="wrap")
        for mfi in m:
            v = m.array(mfi).to_numpy()[..., 0].reshape(ref.shape)
            np.testing.assert_array_equal(v, ref)
    """)
    assert name is None, msg


def test_tiny_period_with_wide_ghosts_is_bounded():
    # one cell, period 1, 5000 ghost cells (1D): 2 * 5000 + 1 shifts, a plan of ~10^4 items
    name, msg = run_case("""
        b = amr1.BoxArray(amr1.Box(amr1.IntVect(0), amr1.IntVect(0)))
        m = amr1.MultiFab(b, amr1.DistributionMapping(b), 1, 5000)
        m.set_val(0.0)
        m.set_val(3.0, 0, 1, 0)
        m.fill_boundary(amr1.Periodicity(amr1.IntVect(1)))
        assert m.min(0, 5000) == 3.0
        m.sum_boundary(amr1.Periodicity(amr1.IntVect(1)))
    """, gb=2, timeout=30)
    assert name is None, msg


# ---- silent wrong values: iMultiFab sums through a double ------------------------------------------
def test_imultifab_sums_are_exact_beyond_2_53():
    # AMReX iMultiFab::sum / norm1 return Long (AMReX_iMultiFab.cpp); boxfab's kernels sum ints
    # exactly in 64 bits but handed the result out through a double: (2**31 - 1) * (2**22 + 1)
    # = 2**53 + 2**31 - 2**22 - 1 came back one too large.
    name, msg = run_case("""
        b = amr.BoxArray(B((0, 0, 0), (4, 838860, 0)))          # 5 * 838861 = 2**22 + 1 cells
        im = amr.iMultiFab(b, amr.DistributionMapping(b), 2, 0)
        im.set_val(2**31 - 1)
        exact = (2**31 - 1) * (2**22 + 1)
        assert exact % 2 == 1 and exact > 2**53
        got = [im.sum(0), im.sum(B((0, 0, 0), (4, 838860, 0)), 1), im.sum_unique(0), im.norm1(0, 0, False),
               im.norm1(1, amr.Periodicity.non_periodic(), False), *im.norm1([0, 1], 0, False)]
        assert got == [exact] * 7 and all(type(x) is int for x in got), [g - exact for g in got]
        im.set_val(-(2**31))
        assert im.sum(0) == -(2**31) * (2**22 + 1) and im.norm1(0, 0, False) == 2**31 * (2**22 + 1)
    """, gb=3)
    assert name is None, msg


def test_imultifab_min_max_of_nothing_are_amrex_ints():
    # AMReX iMultiFab::min / max start from std::numeric_limits<int>::max() / lowest()
    # (AMReX_iMultiFab.cpp) and return them when nothing is selected; boxfab returned
    # int(DBL_MAX), a 309-digit integer.  MultiFab keeps +-DBL_MAX (AMReX_MultiFab.cpp, MultiFab::min).
    name, msg = run_case("""
        im = amr.iMultiFab(ba, dm, 1, 0); im.set_val(3)
        far = B((100, 100, 100), (101, 101, 101))
        assert (im.min(far, 0), im.max(far, 0)) == (2**31 - 1, -(2**31)), (im.min(far, 0), im.max(far, 0))
        assert (im.min(0), im.max(0)) == (3, 3)
        import sys
        assert (mf.min(far, 0), mf.max(far, 0)) == (sys.float_info.max, -sys.float_info.max)
    """)
    assert name is None, msg
