"""Global indexing mf[...] (API.md 2.8 "Global indexing rules") against a NumPy reference.

The MultiFab is filled, ghost cells included, with value(i, j, k, n) of the global
index, so the reference is that function over the ghost-extended domain:
ref[i - (lo - ng), ..., n]."""
import numpy as np
import pytest

N = 8   # domain 0..N-1 in each direction
NG = 1
NC = 2


def value(idx, n):
    """Unique value of a global cell (idx: list of coordinate arrays) and component n."""
    v = 1_000_000.0 * n
    for d, x in enumerate(idx):
        v = v + x * 100.0 ** d
    return v


def make(amr, n=N, ng=NG, nc=NC, max_size=4, boxes=None, fill=True, cls=None):
    dim = amr.Config.spacedim
    if not amr.initialized():
        amr.initialize([])
    if boxes is None:
        ba = amr.BoxArray(amr.Box(amr.IntVect([0] * dim), amr.IntVect([n - 1] * dim)))
        ba.max_size(max_size)
    else:
        ba = amr.BoxArray([amr.Box(amr.IntVect(lo), amr.IntVect(hi)) for lo, hi in boxes])  # boxfab extension
    mf = (cls or amr.MultiFab)(ba, amr.DistributionMapping(ba), nc, ng)
    if fill:
        fill_formula(amr, mf)
    return mf


def fill_formula(amr, mf):
    dim = amr.Config.spacedim
    for mfi in mf:
        fb = mfi.fabbox()
        a = mf.array(mfi).to_numpy()  # [x, y, z, comp]
        axes = [np.arange(fb.small_end[d], fb.big_end[d] + 1) for d in range(dim)]
        grids = np.meshgrid(*axes, indexing="ij")
        for c in range(mf.nComp):
            a[..., c] = value(grids, c).reshape(a.shape[:3]).astype(a.dtype)


def reference(amr, n=N, ng=NG, nc=NC):
    dim = amr.Config.spacedim
    axes = [np.arange(-ng, n + ng) for _ in range(dim)]
    grids = np.meshgrid(*axes, indexing="ij")
    return np.stack([value(grids, c) for c in range(nc)], axis=-1)


V = slice(NG, NG + N)  # the valid range in reference coordinates


def same(got, expect):
    expect = np.asarray(expect).squeeze()
    got = np.asarray(got)
    assert got.shape == expect.shape, (got.shape, expect.shape)
    assert np.array_equal(got, expect)


def test_ellipsis_and_full_reads(amr):
    dim = amr.Config.spacedim
    mf, ref = make(amr), reference(amr)
    same(mf[...], ref[(V,) * dim])
    same(mf[()], ref[(V,) * dim])                  # empty key: everything valid
    same(mf[(...,)], ref[(V,) * dim])
    same(mf[..., 1], ref[(V,) * dim + (1,)])
    same(mf[(slice(None),) * (dim + 1)], ref[(V,) * dim])


def test_ints_first_axis_and_negative(amr):
    dim = amr.Config.spacedim
    mf, ref = make(amr), reference(amr)
    same(mf[2], ref[(NG + 2,) + (V,) * (dim - 1)])
    same(mf[-1], ref[(NG + N - 1,) + (V,) * (dim - 1)])   # -1 -> hi
    same(mf[-N], ref[(NG,) + (V,) * (dim - 1)])
    same(mf[np.int64(3)], ref[(NG + 3,) + (V,) * (dim - 1)])
    same(mf[..., -1], ref[(V,) * dim + (NC - 1,)])


def test_scalars_come_back_as_scalars(amr):
    dim = amr.Config.spacedim
    mf = make(amr)
    key = (1, 2, 3)[:dim] + (1,)
    v = mf[key]
    assert np.ndim(v) == 0 and float(v) == value([np.array(k) for k in key[:dim]], 1)
    w = mf[(slice(1, 2),) + key[1:]]  # a length-1 slice is squeezed too
    assert np.ndim(w) == 0 and w == v


def test_slices_and_none_bounds(amr):
    dim = amr.Config.spacedim
    mf, ref = make(amr), reference(amr)
    same(mf[1:5], ref[(slice(NG + 1, NG + 5),) + (V,) * (dim - 1)])
    same(mf[:3], ref[(slice(NG, NG + 3),) + (V,) * (dim - 1)])
    same(mf[5:], ref[(slice(NG + 5, NG + N),) + (V,) * (dim - 1)])
    same(mf[1:7:1], ref[(slice(NG + 1, NG + 7),) + (V,) * (dim - 1)])  # step 1 is the plain slice
    same(mf[-3:], ref[(slice(NG + N - 3, NG + N),) + (V,) * (dim - 1)])
    same(mf[..., 0:1], ref[(V,) * dim + (0,)])


def test_imaginary_ghost_indices(amr):
    dim = amr.Config.spacedim
    mf, ref = make(amr), reference(amr)
    same(mf[-1j], ref[(0,) + (V,) * (dim - 1)])                 # first lower ghost
    same(mf[1j], ref[(NG + N,) + (V,) * (dim - 1)])              # first upper ghost
    same(mf[-1j:], ref[(slice(0, NG + N),) + (V,) * (dim - 1)])
    same(mf[:2j], ref[(slice(NG, NG + N + 1),) + (V,) * (dim - 1)])  # stop exclusive: hi + 2 -> through hi + 1
    same(mf[-1j:1j], ref[(slice(0, NG + N),) + (V,) * (dim - 1)])


def test_empty_tuple_is_valid_plus_ghost(amr):
    dim = amr.Config.spacedim
    mf, ref = make(amr), reference(amr)
    same(mf[((),)], ref[(slice(None),) + (V,) * (dim - 1)])
    same(mf[((),) * dim + (0,)], ref[(slice(None),) * dim + (0,)])
    same(mf[((),) * dim + ((),)], ref)  # component axis has no ghosts


def test_planes_with_trailing_defaults(amr):
    dim = amr.Config.spacedim
    mf, ref = make(amr), reference(amr)
    if dim == 3:
        same(mf[:, :, N // 2, 0], ref[V, V, NG + N // 2, 0])
        same(mf[2, ..., 1], ref[NG + 2, V, V, 1])
        same(mf[2, 3], ref[NG + 2, NG + 3, V])
    if dim == 2:
        same(mf[:, 3, 0], ref[V, NG + 3, 0])
        same(mf[2, ..., 1], ref[NG + 2, V, 1])
    if dim == 1:
        same(mf[3, 1], ref[NG + 3, 1])
        same(mf[:, 1], ref[V, 1])


def test_out_of_range_scalars_raise(amr):
    """pyAMReX asserts (AssertionError, gone under python -O); boxfab raises IndexError."""
    dim = amr.Config.spacedim
    mf = make(amr)
    for key in [N + NG, -(N + NG + 1), 2j, -2j, (0,) * dim + (NC,), (0,) * dim + (-NC - 1,)]:
        with pytest.raises(IndexError, match="Index out of range"):
            mf[key]
        with pytest.raises(IndexError, match="Index out of range"):
            mf[key] = 1.0
    with pytest.raises(IndexError, match="purely imaginary"):
        mf[1 + 1j]
    with pytest.raises(IndexError, match="whole multiples"):
        mf[0.5j]
    with pytest.raises(IndexError, match="empty tuple"):
        mf[((1,),)]
    with pytest.raises(IndexError, match="Index out of range"):
        mf[(0,) * dim + (1j,)]  # component axis: no ghosts
    with pytest.raises(IndexError, match="Component slice"):
        mf[(slice(None),) * dim + (slice(0, NC + 1),)]
    with pytest.raises(IndexError, match="Component slice"):
        mf[(slice(None),) * dim + (slice(-1j, None),)]


def test_slice_steps_raise(amr):
    """pyAMReX drops the step of spatial slices (mf[0:8:2] would return 8 cells); boxfab refuses."""
    dim = amr.Config.spacedim
    mf = make(amr)
    for key in [slice(0, 8, 2), slice(None, None, -1), (slice(None),) * dim + (slice(0, 2, 2),)]:
        with pytest.raises(ValueError, match="steps"):
            mf[key]
        with pytest.raises(ValueError, match="steps"):
            mf[key] = 0.0


def test_bad_keys_raise_the_exceptions_of_the_spec(amr):
    """pyAMReX raises a bare Exception with these messages; boxfab raises subclasses
    (IndexError / TypeError) with the same message text, so `except Exception` still works."""
    dim = amr.Config.spacedim
    mf = make(amr)
    with pytest.raises(IndexError) as e:
        mf[(0,) * (dim + 2)]
    assert str(e.value) == "Too many indices given"
    with pytest.raises(IndexError) as e:
        mf[(0,) * (dim + 2) + (...,)]
    assert str(e.value) == "Too many indices given"
    for key in ["a", 1.5, [1, 2], None, {1: 2}, (0, "x"), (0, 1.0), slice(0.5, 2), np.array([1, 2]), np.bool_(True)]:
        with pytest.raises(TypeError) as e:
            mf[key]
        assert str(e.value).startswith("MultiFab.__getitem__: unexpected index type")
        with pytest.raises(TypeError) as e:
            mf[key] = 1.0
        assert str(e.value).startswith("MultiFab.__getitem__: unexpected index type")
    with pytest.raises(IndexError, match="single ellipsis"):
        mf[..., ...]


def test_nothing_matched_gives_zeros_0(amr):
    mf = make(amr)
    r = mf[5:2]
    assert isinstance(r, np.ndarray) and r.shape == (0,)


def test_reads_ignore_unfilled_internal_ghosts(amr):
    """Valid data win over internal ghost cells; outer ghosts come from the boundary fabs."""
    dim = amr.Config.spacedim
    mf, ref = make(amr), reference(amr)
    spoil_internal_ghosts(amr, mf, -7.0)
    same(mf[((),) * dim], ref)
    same(mf[...], ref[(V,) * dim])
    # with_internal_ghosts=True: every fab box in MFIter order, so the spoiled ghost
    # cells of later fabs overwrite the valid cells of earlier ones (pyAMReX's rule)
    got = mf.__getitem__(((),) * dim, with_internal_ghosts=True)
    assert got.shape == ref.shape[:dim] + (1,) * (3 - dim) + (NC,)
    assert np.any(got == -7.0)


def spoil_internal_ghosts(amr, mf, v):
    dim = amr.Config.spacedim
    for mfi in mf:
        a = mf.array(mfi).to_numpy()
        vb = mfi.validbox()
        inner = [slice(NG, NG + vb.big_end[d] - vb.small_end[d] + 1) for d in range(dim)]
        keep = a[tuple(inner)].copy()
        fb = mfi.fabbox()
        for d in range(dim):
            idx = np.arange(fb.small_end[d], fb.big_end[d] + 1)
            inside = (idx >= 0) & (idx < N)
            sl = [slice(None)] * a.ndim
            ghost = np.ones_like(inside)
            ghost[NG:len(idx) - NG] = False
            sl[d] = np.nonzero(ghost & inside)[0]
            a[tuple(sl)] = v
        a[tuple(inner)] = keep


def test_uncovered_domain_reads_internal_ghosts_then_valid(amr3):
    amr = amr3
    mf = make(amr, boxes=[([0, 0, 0], [3, 3, 3]), ([6, 0, 0], [9, 3, 3])], ng=1)
    ax = np.arange(0, 10)
    got = mf[:, 1, 1, 0]
    # x = 4 is a ghost of the first box, x = 5 of the second: read through internal ghosts
    assert np.array_equal(got, value([ax, np.full(10, 1), np.full(10, 1)], 0))
    mf0 = make(amr, boxes=[([0, 0, 0], [3, 3, 3]), ([6, 0, 0], [9, 3, 3])], ng=0)
    r = mf0[4:6, 1, 1, 0]
    assert isinstance(r, np.ndarray) and r.shape == (0,)


def test_write_scalar_broadcast_includes_internal_ghosts(amr):
    dim = amr.Config.spacedim
    mf = make(amr)
    mf[...] = 5.0
    for mfi in mf:
        a = mf.array(mfi).to_numpy()
        fb = mfi.fabbox()
        axes = [np.arange(fb.small_end[d], fb.big_end[d] + 1) for d in range(dim)]
        grids = np.meshgrid(*axes, indexing="ij")
        inside = np.ones(a.shape[:dim], dtype=bool)
        for g in grids:
            inside &= (g >= 0) & (g < N)
        inside = inside.reshape(a.shape[:3])
        assert np.all(a[inside] == 5.0)  # valid and internal ghosts
        assert not np.any(a[~inside] == 5.0)  # outer ghosts untouched
    mf[((),) * dim] = 1.5
    for v in mf.to_numpy():
        assert np.all(v == 1.5)


def test_write_arrays(amr):
    dim = amr.Config.spacedim
    mf, ref = make(amr), reference(amr)
    rng = np.random.default_rng(1)
    plane = rng.random((N,) * (dim - 1)) if dim > 1 else rng.random(())
    key = (2,) + (slice(None),) * (dim - 1) + (1,)
    mf[key] = plane
    ref[(NG + 2,) + (V,) * (dim - 1) + (1,)] = plane
    same(mf[...], ref[(V,) * dim])
    block = rng.random((3,) + (N,) * (dim - 1) + (NC,))
    mf[1:4] = block
    ref[(slice(NG + 1, NG + 4),) + (V,) * (dim - 1)] = block
    same(mf[...], ref[(V,) * dim])
    with pytest.raises(ValueError, match="does not fit"):
        mf[1:4] = np.zeros((2, 2, 2, 2, 2))
    with pytest.raises(ValueError, match="does not fit"):
        mf[1:4] = np.zeros((4,) + (N,) * (dim - 1) + (NC,))  # larger than the selection (pyAMReX: cut silently)
    with pytest.raises(IndexError, match="Index out of range"):
        mf[N + 5] = 1.0


def test_write_then_read_outer_ghosts(amr):
    dim = amr.Config.spacedim
    mf = make(amr)
    mf[-1j] = 42.0
    got = mf[-1j]
    assert np.all(got == 42.0)
    assert got.shape == ((N,) * (dim - 1) + (NC,) if dim > 1 else (NC,))


def test_imultifab_indexing(amr):
    if not hasattr(amr, "iMultiFab"):
        pytest.skip("no iMultiFab")
    dim = amr.Config.spacedim
    mf = make(amr, cls=amr.iMultiFab, fill=False)
    for v in mf.to_numpy():
        v[...] = 0
    mf[..., 1] = 7
    r = mf[...]
    assert r.dtype == np.int32
    assert np.all(r[..., 1] == 7) and np.all(r[..., 0] == 0)
    assert mf[(3,) * dim + (1,)] == 7


def test_tiled_layout_and_finer_boxes(amr):
    """Many small boxes: the gather must still tile the domain exactly."""
    dim = amr.Config.spacedim
    mf, ref = make(amr, max_size=2), reference(amr)
    same(mf[((),) * dim], ref)
    same(mf[1:7, ...], ref[(slice(NG + 1, NG + 7),) + (V,) * (dim - 1)])
