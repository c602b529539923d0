"""pyAMReX 26's loop API: len(mf), mf.tiles(), TilingIfNotGPU, for_each_tile, Array4.__call__,
amr.xp, mf.ix_type, the instance forms of MultiFab's statics; checked against NumPy on the same data."""
import sys

import numpy as np
import pytest

from mfhelp import dim_of, fill_random, make_mf


def test_len_is_the_global_box_count(amr):
    mf, _ = make_mf(amr)
    assert len(mf) == mf.size == len(mf.box_array()) > 1
    assert len(amr.MultiFab()) == 0
    imf, _ = make_mf(amr, cls=amr.iMultiFab)
    assert len(imf) == imf.size


def test_static_and_bound_forms_agree(amr):
    """MultiFab.add(dst, src, ...) (AMReX's static) and dst.add(src, ...) (pyAMReX 26) are one call."""
    rng = np.random.default_rng(5)
    src, _ = make_mf(amr, ncomp=3)
    fill_random(src, rng)
    for name, args in [("add", (2, 0, 1, 1)), ("subtract", (1, 0, 1, 1)), ("multiply", (0, 1, 1, 1)),
                       ("divide", (2, 1, 1, 0)), ("saxpy", None), ("xpay", None), ("lin_comb", None)]:
        a, _ = make_mf(amr, ncomp=3)
        b, _ = make_mf(amr, ncomp=3)
        for m in (a, b):
            m.set_val(1.5)
        if name in ("saxpy", "xpay"):
            getattr(amr.MultiFab, name)(a, 2.0, src, 0, 1, 2, 1)
            getattr(b, name)(2.0, src, 0, 1, 2, 1)
        elif name == "lin_comb":
            amr.MultiFab.lin_comb(a, 2.0, src, 0, -1.0, src, 1, 2, 1, 1)
            b.lin_comb(2.0, src, 0, -1.0, src, 1, 2, 1, 1)
        else:
            getattr(amr.MultiFab, name)(a, src, *args)
            getattr(b, name)(src, *args)
        assert np.array_equal(np.concatenate([x.ravel() for x in a.to_numpy()]),
                              np.concatenate([x.ravel() for x in b.to_numpy()])), name
    # the reference: dst += src over comp 2 -> 0 with 1 ghost, by NumPy
    d, _ = make_mf(amr, ncomp=3)
    d.set_val(1.5)
    d.add(src, 2, 0, 1, 1)
    for x, s in zip(d.to_numpy(), src.to_numpy()):
        assert np.array_equal(x[..., 0], 1.5 + s[..., 2])
    # pyAMReX 24.10's spelling, the static called through an instance: dst.add(dst, src, ...)
    e, _ = make_mf(amr, ncomp=3)
    e.set_val(1.5)
    e.add(e, src, 2, 0, 1, 1)
    e2, _ = make_mf(amr, ncomp=3)
    e2.set_val(1.5)
    e2.saxpy(e2, 2.0, src, 0, 1, 2, 1)
    d2, _ = make_mf(amr, ncomp=3)
    d2.set_val(1.5)
    d2.saxpy(2.0, src, 0, 1, 2, 1)
    for x, y, z in zip(e.to_numpy(), d.to_numpy(), zip(e2.to_numpy(), d2.to_numpy())):
        assert np.array_equal(x, y) and np.array_equal(*z)
    # the instance is the first argument: a wrong one is refused
    with pytest.raises(TypeError):
        amr.MultiFab.add(3, src, 0, 0, 1, 0)
    with pytest.raises(TypeError):
        d.add(3, 0, 0, 1, 0)
    imf, _ = make_mf(amr, cls=amr.iMultiFab, ncomp=1)
    imf.set_val(4)
    imf.add(imf, 0, 0, 1, 0)
    assert imf.min(0) == 8 and imf.max(0) == 8


def test_ix_type(amr):
    d = dim_of(amr)
    mf, _ = make_mf(amr)
    assert mf.ix_type == amr.IntVect(*([0] * d)) == mf.box_array().ix_type().to_IntVect()
    ba = mf.box_array().convert(amr.IntVect(*([1] + [0] * (d - 1))))
    nmf = amr.MultiFab(ba, mf.dm(), 1, 0)
    assert nmf.ix_type == amr.IntVect(*([1] + [0] * (d - 1)))
    assert [mfi.tilebox(nmf.ix_type) for mfi in nmf] == [mfi.tilebox() for mfi in nmf]


def test_tiles_cover_the_valid_region_once(amr):
    d = dim_of(amr)
    mf, _ = make_mf(amr, n=16, max_size=8)
    boxes = [mfi.validbox() for mfi in mf]
    assert [mfi.tilebox() for mfi in mf.tiles()] == boxes
    tile = (4,) * d
    tiles = [mfi.tilebox() for mfi in mf.tiles(tile=tile)]
    assert len(tiles) == len(boxes) * 2 ** d
    # brute force: every valid cell is in exactly one tile
    count = {}
    for t in tiles:
        for c in np.ndindex(*t.size):
            key = tuple(t.small_end[k] + c[k] for k in range(d))
            count[key] = count.get(key, 0) + 1
    assert len(count) == sum(b.num_pts for b in boxes) and set(count.values()) == {1}
    info = amr.TilingIfNotGPU(tile)
    assert isinstance(info, amr.MFItInfo) and info.do_tiling
    assert not amr.TilingIfNotGPU().do_tiling
    with pytest.raises((TypeError, ValueError)):
        amr.TilingIfNotGPU((4,) * (d + 1))


def test_loops_left_early_leave_nothing_behind(amr):
    mf, _ = make_mf(amr)
    n = sum(1 for _ in mf)
    for _ in mf.tiles(tile=(4,) * dim_of(amr)):
        break
    it = amr.MFIter(mf, amr.TilingIfNotGPU())
    for m in it:
        assert m is it
        break
    with pytest.raises(ValueError):
        for _ in mf.tiles():
            raise ValueError("kernel error")
    assert sum(1 for _ in mf) == n == len(list(amr.MFIter(mf)))


@pytest.mark.parametrize("threads", [1, 3])
def test_for_each_tile_stencil_matches_numpy(amr, threads):
    d = dim_of(amr)
    rng = np.random.default_rng(7)
    phi, _ = make_mf(amr, ncomp=1, ngrow=1)
    fill_random(phi, rng)
    out, _ = make_mf(amr, ncomp=1, ngrow=0)
    out.set_val(0.0)

    @amr.for_each_tile(out, phi, tile=(4,) * d, threads=threads)
    def kernel(bx, f, p):
        f(bx)[...] = p(bx, di=1) - p(bx, di=-1) + 2.0 * p(bx)

    assert kernel.__name__ == "kernel"
    for mfi in out:
        v = mfi.validbox()
        p = phi.array(mfi).to_numpy()[..., 0]
        lo, ng = amr.lbound(phi.array(mfi)), 1
        sl = [slice(v.small_end[k] - getattr(lo, "xyz"[k]), v.big_end[k] - getattr(lo, "xyz"[k]) + 1)
              for k in range(d)] + [0] * (3 - d)

        def shifted(s):
            q = list(sl)
            q[0] = slice(q[0].start + s, q[0].stop + s)
            return p[tuple(q)]
        expect = shifted(1) - shifted(-1) + 2.0 * shifted(0)
        got = out.array(mfi).to_numpy()[..., 0][tuple([slice(None)] * d + [0] * (3 - d))]
        assert ng == 1 and np.array_equal(got, expect)


def test_for_each_tile_checks_and_errors(amr):
    mf, _ = make_mf(amr)
    other, _ = make_mf(amr, n=8)
    with pytest.raises(ValueError, match="threads"):
        amr.for_each_tile(mf, threads=0)
    with pytest.raises(TypeError, match="threads"):
        amr.for_each_tile(mf, threads=2.0)
    with pytest.raises(TypeError, match="MultiFab"):
        amr.for_each_tile(3)
    with pytest.raises(ValueError, match="BoxArray"):
        amr.for_each_tile(mf, other)
    with pytest.raises(TypeError, match="callable"):
        amr.for_each_tile(mf)(5)

    def boom(bx, a):
        raise KeyError("from the kernel")
    for threads in (1, 2):
        with pytest.raises(KeyError):
            amr.for_each_tile(mf, threads=threads)(boom)
    assert sum(1 for _ in mf) == len(mf)


def test_array4_call_is_a_view_of_the_box(amr):
    d = dim_of(amr)
    mf, _ = make_mf(amr, ncomp=3, ngrow=2)
    fill_random(mf, np.random.default_rng(3))
    for mfi in mf:
        a = mf.array(mfi)
        ref = a.to_numpy()
        lo = amr.lbound(a)
        lo = (lo.x, lo.y, lo.z)
        bx = mfi.tilebox()
        for comp in range(3):
            for sh in (-2, 0, 2):
                got = a(bx, comp, di=sh)
                key = tuple(slice(bx.small_end[k] - lo[k] + (sh if k == 0 else 0),
                                  bx.big_end[k] - lo[k] + 1 + (sh if k == 0 else 0)) for k in range(d))
                expect = ref[key + (0,) * (3 - d) + (comp,)]
                assert got.shape == tuple(bx.size) and got.ndim == d
                assert np.array_equal(got, expect) and np.shares_memory(got, ref)
        v = a(bx, comp=1)
        v[...] = 7.5
        assert np.all(ref[(Ellipsis, 1)][tuple(slice(bx.small_end[k] - lo[k], bx.big_end[k] - lo[k] + 1)
                                               for k in range(d)) + (0,) * (3 - d)] == 7.5)
        if d > 1:
            assert np.array_equal(a(bx, dj=1), ref[tuple(
                slice(bx.small_end[k] - lo[k] + (k == 1), bx.big_end[k] - lo[k] + 1 + (k == 1))
                for k in range(d)) + (0,) * (3 - d) + (0,)])
        # out of the fab, or a component out of range: IndexError, never a clipped view
        with pytest.raises(IndexError):
            a(bx, di=3)
        with pytest.raises(IndexError):
            a(bx.grow(3))
        with pytest.raises(IndexError):
            a(bx, 3)
        with pytest.raises(IndexError):
            a(bx, -1)
        if d < 3:
            with pytest.raises(ValueError, match="direction"):
                a(bx, dk=1)
        with pytest.raises(TypeError):
            a()
        with pytest.raises(TypeError):
            a(bx, dx=1)
        break


def test_xp_and_dldevicetype(amr):
    assert amr.xp is np  # no GPU here
    with pytest.raises(AttributeError):
        amr.no_such_member
    assert int(amr.DLDeviceType.kDLCPU) == 1 and int(amr.DLDeviceType.kDLCUDA) == 2
    assert int(amr.DLDeviceType.kDLCUDAHost) == 3 and int(amr.DLDeviceType.kDLCUDAManaged) == 13
    a = amr.Array4_double(np.ones((1, 1, 2, 3)))
    assert a.__dlpack_device__() == (amr.DLDeviceType.kDLCPU, 0)
    with pytest.raises(ValueError, match="stream"):
        a.__dlpack__(stream=1)


def test_views_keep_their_python_sources_alive(amr):
    """As pyAMReX's keep_alive: a view holds the object it was taken from (not only its memory)."""
    x = np.arange(24.0).reshape(1, 2, 3, 4)
    a = amr.Array4_double(x)
    before = sys.getrefcount(a)
    b = amr.Array4_double(a, 0, 1)
    assert sys.getrefcount(a) == before + 1
    del a
    assert b[0, 0, 0] == 0.0 and b[3, 2, 1] == 23.0
    bx = amr.Box(amr.IntVect(*([0] * dim_of(amr))), amr.IntVect(*([3] * dim_of(amr))))
    fab = amr.BaseFab_Real(bx, 2, amr.The_Pinned_Arena())
    before = sys.getrefcount(fab)
    view = np.from_dlpack(fab)
    arr = fab.array()
    assert sys.getrefcount(fab) == before + 2
    # a fab's own __array_interface__ export does not hold it in a cycle
    np.asarray(fab)
    del view, arr
    assert sys.getrefcount(fab) == before


# ---- on the GPU ------------------------------------------------------------------------------
@pytest.mark.gpu
def test_gpu_tiles_views_and_kernels():
    """Device data: tiles() never tiles (TilingIfNotGPU), a(bx) is a CuPy view, for_each_tile runs on
    CuPy's stream and synchronizes it; the result against the CPU arithmetic."""
    import importlib

    import cupy as cp

    amr = importlib.import_module("boxfab.space3d")
    mf, _ = make_mf(amr, ncomp=1, ngrow=1)
    out, _ = make_mf(amr, ncomp=1, ngrow=0)
    assert len(list(mf.tiles(tile=(4, 4, 4)))) == len(list(mf))
    assert not amr.TilingIfNotGPU((4, 4, 4)).do_tiling
    assert amr.xp is cp
    for mfi in mf:
        a = mf.array(mfi)
        g = mfi.fabbox()
        ii = cp.arange(g.small_end[0], g.big_end[0] + 1)[:, None, None]
        a(g)[...] = ii * 1.0 + cp.zeros(tuple(g.size))
        assert isinstance(a(mfi.tilebox()), cp.ndarray)

    @amr.for_each_tile(out, mf, tile=(4, 4, 4), threads=4)
    def _(bx, f, p):
        f(bx)[...] = p(bx, di=1) - p(bx, di=-1)

    assert out.min(0) == 2.0 and out.max(0) == 2.0
