"""fill_boundary's x faces as whole x-lines (src/core/mesh/fillboundary_xline.c, issue 14).

On the GPU the x-line kernel runs by default; on the CPU the same plan analysis (which items are
mirrored full x faces, how they chain into lines, periodic cycles, whether the items left are
whole rows of a uniform lattice or go to a plan of their own) runs through the host reference
loop when BOXFAB_FB_XLINE=1.  Every layout below is
filled both ways in fresh interpreters, and the bytes of every fab (ghost cells included) must be
identical: 1D/2D/3D, periodic or not, one box or several per direction (a periodic line of one
fab is its own neighbour), 1 to 3 ghost layers, 1 or 3 components and a component range, and
layouts the x-line form must leave alone (boxes of two shapes, ghosts filled partly)."""
import os
import subprocess
import sys
import textwrap

import pytest

CHECK = textwrap.dedent("""
    import hashlib, importlib, itertools, os, sys
    import numpy as np
    out = []
    for dim in (1, 2, 3):
        amr = importlib.import_module(f"boxfab.space{dim}d")
        amr.initialize(["amrex.verbose=0"])
        xp = np
        if amr.Config.have_gpu:
            import cupy as xp
        for n, ms, ng, per, nc in itertools.product((8, 12), (4, 8), (1, 2, 3), (0, 1), (1, 3)):
            if ng > ms:
                continue
            dom = amr.Box(amr.IntVect(*([0] * dim)), amr.IntVect(*([n - 1] * dim)))
            ba = amr.BoxArray(dom)
            ba.max_size(ms)
            mf = amr.MultiFab(ba, amr.DistributionMapping(ba), nc, ng)
            rng = np.random.default_rng(n * 1000 + ms * 10 + ng)
            for a in mf.to_xp():  # CuPy views of device memory on a GPU (BOXFAB_TEST_DEVICE=gpu)
                a[...] = xp.asarray(rng.random(a.shape))
            if xp is not np:
                xp.cuda.Device().synchronize()
            P = amr.Periodicity(amr.IntVect(*([n if per else 0] * dim)))
            for how in ("all", "comp", "partial"):
                if how == "all":
                    mf.fill_boundary(0, nc, P)
                elif how == "comp":
                    mf.fill_boundary(nc - 1, 1, P)
                else:  # fewer layers than the fabs have: not the x-line form's case
                    mf.fill_boundary(amr.IntVect(*([max(ng - 1, 0)] * dim)), P)
                h = hashlib.sha1(b"".join(np.ascontiguousarray(mf.array(m).to_host()).tobytes()
                                          for m in mf)).hexdigest()
                out.append(f"{dim} {n} {ms} {ng} {per} {nc} {how} {h}")
        amr.finalize()
    print("\\n".join(out))
""")


def run(mode, extra=None):
    env = dict(os.environ, BOXFAB_FB_XLINE=mode)
    env.update(extra or {})
    r = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    return r.stdout.splitlines()


def test_xline_form_gives_the_same_bytes():
    plain, xline = run("0"), run("1")
    assert len(plain) == len(xline) > 400
    diff = [(a, b) for a, b in zip(plain, xline) if a != b]
    assert not diff, diff[:5]


@pytest.mark.skipif(os.environ.get("BOXFAB_TEST_DEVICE", "cpu") == "gpu", reason="the host loop's own check")
def test_the_check_can_fail():
    """The comparison above is not vacuous: the x-line form runs for most of these layouts (a
    host loop that drops its low faces, BOXFAB_FB_XLINE_TEST_DROP=1, changes their bytes)."""
    plain, broken = run("0"), run("1", {"BOXFAB_FB_XLINE_TEST_DROP": "1"})
    changed = sum(a != b for a, b in zip(plain, broken))
    assert changed > 200, changed


@pytest.mark.skipif(os.environ.get("BOXFAB_TEST_DEVICE", "cpu") == "gpu", reason="the host loop's own check")
def test_the_rows_form_runs():
    """Uniform lattices take the rows form (every other ghost point as whole rows, no items left
    to a plan of their own): a host loop that drops the rows below the valid range in y
    (BOXFAB_FB_XLINE_TEST_DROP=2) changes the bytes of the 2D and 3D layouts of one box shape
    (after the first fill of all components: the later lines carry its state), and of no other."""
    plain, broken = run("0"), run("1", {"BOXFAB_FB_XLINE_TEST_DROP": "2"})
    changed = [a.split()[:7] for a, b in zip(plain, broken) if a != b]
    first = [c for c in changed if c[6] == "all"]
    assert len(first) > 40, len(first)
    for dim, n, ms, ng, per, nc, how in changed:
        assert dim in ("2", "3") and int(n) % int(ms) == 0, (dim, n, ms, how)


SHARED = textwrap.dedent("""
    import hashlib
    import numpy as np
    import boxfab.space3d as amr
    amr.initialize(["amrex.verbose=0"])
    ba = amr.BoxArray(amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(7, 7, 7)))
    ba.max_size(4)
    dm = amr.DistributionMapping(ba)
    P = amr.Periodicity(amr.IntVect(8, 8, 8))
    xp = np
    if amr.Config.have_gpu:
        import cupy as xp
    mf = amr.MultiFab(ba, dm, 1, 1)
    for a in mf.to_xp():
        a[...] = xp.asarray(np.random.default_rng(1).random(a.shape))
    mf.fill_boundary(P)  # builds the x-line form (doubles) with the plan of ba, dm, 1 ghost, periodic
    im = amr.iMultiFab(ba, dm, 1, 1)
    for i, a in enumerate(im.to_xp()):
        a[...] = xp.asarray(np.arange(a.size, dtype=np.int32).reshape(a.shape) + 1000 * i)
    if xp is not np:
        xp.cuda.Device().synchronize()
    im.fill_boundary(P)  # the same plan: must not run the doubles' form on int data
    print(hashlib.sha1(b"".join(np.ascontiguousarray(im.array(m).to_host()).tobytes() for m in im)).hexdigest())
    amr.finalize()
""")


def test_imultifab_after_multifab_of_the_same_layout():
    """A plan serves every MultiFab of its BoxArray and DistributionMapping, iMultiFabs too: the x-line
    form built for a MultiFab (double data, its fab offsets) must not run on an iMultiFab of the same
    layout (it did: the int fabs were written as doubles at the MultiFab's offsets, past their end)."""
    out = []
    for mode in ("0", "1"):
        r = subprocess.run([sys.executable, "-c", SHARED], capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, BOXFAB_FB_XLINE=mode))
        assert r.returncode == 0, r.stderr
        out.append(r.stdout.split()[-1])
    assert out[0] == out[1], out
