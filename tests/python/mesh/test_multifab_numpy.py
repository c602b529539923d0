"""MultiFab.to_numpy / to_cupy / to_xp, imesh, shape, shape_with_ghosts (API.md 2.8)."""
import gc

import numpy as np
import pytest

from conftest import run_python


def make(amr, n=8, ng=1, nc=2, max_size=4, cls=None, nodal=None):
    dim = amr.Config.spacedim
    if not amr.initialized():
        amr.initialize([])
    bx = amr.Box(amr.IntVect([2] * dim), amr.IntVect([2 + n - 1] * dim))
    ba = amr.BoxArray(bx)
    ba.max_size(max_size)
    if nodal is not None:
        ba.surrounding_nodes(nodal) if nodal >= 0 else ba.surrounding_nodes()
    return (cls or amr.MultiFab)(ba, amr.DistributionMapping(ba), nc, ng)


def test_to_numpy_views_per_local_fab_in_mfiter_order(amr):
    dim = amr.Config.spacedim
    mf = make(amr)
    views = mf.to_numpy()
    mfis = [(mfi.index, mfi.fabbox()) for mfi in mf]
    assert isinstance(views, list) and len(views) == len(mfis)
    for v, (idx, fb) in zip(views, mfis):
        lens = [fb.big_end[d] - fb.small_end[d] + 1 for d in range(dim)] + [1] * (3 - dim)
        assert v.shape == tuple(lens) + (2,)  # ghosts included, [x, y, z, comp]
        v[...] = idx
    for mfi in mf:
        assert np.all(mf.array(mfi).to_numpy() == mfi.index)


def test_to_numpy_orders(amr):
    mf = make(amr)
    f = mf.to_numpy(order="F")
    c = mf.to_numpy(order="C")
    for a, b in zip(f, c):
        assert b.shape == a.shape[::-1]
        assert np.shares_memory(a, b)
        a[...] = np.random.default_rng(0).random(a.shape)
        assert np.array_equal(a.T, b)
    with pytest.raises(ValueError, match="The order argument must be F or C."):
        mf.to_numpy(order="K")
    with pytest.raises(ValueError, match="F or C"):
        mf.to_numpy(copy=True, order="x")


def test_views_share_memory_and_copies_do_not(amr):
    mf = make(amr)
    views = mf.to_numpy()
    for v in views:
        v[...] = 3.0
    copies = mf.to_numpy(copy=True)
    again = mf.to_numpy()
    for v, c, w in zip(views, copies, again):
        assert np.shares_memory(v, w)
        assert not np.shares_memory(v, c)
        assert np.array_equal(v, c)
    for v in views:
        v[...] = -1.0
    for c in copies:
        assert np.all(c == 3.0)  # the copy is independent
    for c in copies:
        c[...] = 9.0
    assert all(np.all(v == -1.0) for v in views)
    cc = mf.to_numpy(copy=True, order="C")
    assert cc[0].shape == views[0].shape[::-1]


def test_views_outlive_the_multifab(amr):
    mf = make(amr)
    views = mf.to_numpy()
    for v in views:
        v[...] = 2.5
    copies = mf.to_numpy(copy=True)
    mf.clear()
    del mf
    gc.collect()
    assert all(np.all(v == 2.5) for v in views)
    assert all(np.all(c == 2.5) for c in copies)


def test_to_xp_and_to_cupy(amr):
    mf = make(amr)
    if not amr.Config.have_gpu:
        xs = mf.to_xp()
        assert all(isinstance(x, np.ndarray) for x in xs)
        assert all(np.shares_memory(x, v) for x, v in zip(xs, mf.to_numpy()))
        assert mf.to_xp(order="C")[0].shape == mf.to_numpy(order="C")[0].shape
    try:
        import cupy  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError):
            mf.to_cupy()


@pytest.mark.parametrize("ng", [0, 2])
def test_imesh_matches_numpy(amr, ng):
    dim = amr.Config.spacedim
    mf = make(amr, ng=ng)
    for d in range(dim):
        assert np.array_equal(mf.imesh(d), np.arange(2, 10) + 0.5)
        assert np.array_equal(mf.imesh(d, include_ghosts=True), np.arange(2 - ng, 10 + ng) + 0.5)
        assert mf.imesh(d).dtype == np.float64
    with pytest.raises(IndexError):
        mf.imesh(dim)
    with pytest.raises(TypeError):
        mf.imesh(0.5)


def test_imesh_nodal(amr):
    dim = amr.Config.spacedim
    mf = make(amr, nodal=0)
    assert np.array_equal(mf.imesh(0), np.arange(2, 11).astype(float))  # nodal: +0, one more point
    assert np.array_equal(mf.imesh(0, True), np.arange(1, 12).astype(float))
    if dim > 1:
        assert np.array_equal(mf.imesh(1), np.arange(2, 10) + 0.5)


def test_shape_and_shape_with_ghosts(amr):
    dim = amr.Config.spacedim
    mf = make(amr, ng=2, nc=3)
    assert mf.shape == (8,) * dim + (3,)
    assert mf.shape_with_ghosts == (12,) * dim + (3,)
    assert mf[...].shape == mf.shape if dim > 0 else True
    assert mf[((),) * dim].shape == mf.shape_with_ghosts
    nodal = make(amr, nodal=-1, ng=1, nc=1)
    assert nodal.shape == (9,) * dim + (1,)
    assert nodal.shape_with_ghosts == (11,) * dim + (1,)
    with pytest.raises(AttributeError):
        mf.shape = (1,)


def test_imultifab(amr):
    if not hasattr(amr, "iMultiFab"):
        pytest.skip("no iMultiFab")
    dim = amr.Config.spacedim
    mf = make(amr, cls=amr.iMultiFab, nc=1)
    vs = mf.to_numpy()
    assert all(v.dtype == np.int32 for v in vs)
    for v in vs:
        v[...] = 4
    cs = mf.to_numpy(copy=True)
    assert all(np.all(c == 4) and not np.shares_memory(c, v) for c, v in zip(cs, vs))
    assert mf.shape == (8,) * dim + (1,)
    assert np.array_equal(mf.imesh(0), np.arange(2, 10) + 0.5)


def test_undefined_multifab_raises(amr):
    if not amr.initialized():
        amr.initialize([])
    mf = amr.MultiFab()
    with pytest.raises(RuntimeError, match="undefined"):
        mf.to_numpy()
    with pytest.raises(RuntimeError, match="undefined"):
        mf[...]


def test_lifetimes_in_subprocess():
    r = run_python("""
        import gc, numpy as np
        import boxfab.space3d as amr
        amr.initialize(["amrex.verbose=0"])   # quiet: stdout is checked below
        ba = amr.BoxArray(amr.Box(amr.IntVect(0), amr.IntVect(15))); ba.max_size(8)
        mf = amr.MultiFab(ba, amr.DistributionMapping(ba), 1, 1)
        views = mf.to_numpy(); copies = mf.to_numpy(copy=True)
        for v in views: v[...] = 1.0
        mf.clear(); del mf; gc.collect()
        amr.finalize()
        print(sum(float(v.sum()) for v in views), len(copies))
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [str(8 * 10 ** 3 * 1.0), "8"]
