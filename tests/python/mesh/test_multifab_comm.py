"""Ghost exchange: fill_boundary (every overload), sum_boundary, override/average_sync, parallel_copy (API.md 2.7)."""
import numpy as np
import pytest

from mfhelp import dim_of, make_mf, make_ba, fabs, fill_random, gather, ensure_init

N = 16


def per(amr, n=N):
    return amr.Periodicity(amr.IntVect(*([n] * dim_of(amr))))


def padded_global(mf, dom, ng, mode="wrap"):
    """Global valid data padded by ng in the spatial directions (np.pad)."""
    d = dim_of_mf(mf)
    g = gather(mf, dom)
    pad = [(ng, ng) if k < d else (0, 0) for k in range(3)] + [(0, 0)]
    return np.pad(g, pad, mode=mode)


def dim_of_mf(mf):
    return len(list(mf.n_grow_vect))


def fab_in_global(v, flo, fhi, lo_global, d):
    """Slices of a padded global array matching a fab with corner flo (global padded by ng starting at lo_global)."""
    return tuple(slice(flo[k] - lo_global[k], fhi[k] - lo_global[k] + 1) if k < d else slice(0, 1) for k in range(3))


def ghost_kind(flo, fhi, vlo, vhi, d):
    """Per fab cell: number of directions in which the cell lies outside the valid box (0 = valid)."""
    shape = [fhi[k] - flo[k] + 1 if k < d else 1 for k in range(3)]
    cnt = np.zeros(shape, int)
    for k in range(d):
        idx = np.arange(flo[k], fhi[k] + 1)
        out = ((idx < vlo[k]) | (idx > vhi[k])).astype(int)
        sh = [1, 1, 1]
        sh[k] = -1
        cnt += out.reshape(sh)
    return cnt


@pytest.mark.parametrize("form", range(5))
def test_fill_boundary_periodic_vs_np_pad(amr, form):
    rng = np.random.default_rng(form)
    d = dim_of(amr)
    ng = 2
    mf, dom = make_mf(amr, ncomp=2, ngrow=ng, n=N, max_size=8)
    fill_random(mf, rng)
    ref = padded_global(mf, dom, ng)
    before = [v.copy() for *_, v in fabs(mf)]
    P = per(amr)
    comps = [0, 1]
    layers = ng
    if form == 0:
        mf.fill_boundary(P)
    elif form == 1:
        mf.fill_boundary(period=P, cross=False)
    elif form == 2:
        layers = 1
        mf.fill_boundary(amr.IntVect(*([1] * d)), P)
    elif form == 3:
        comps = [1]
        mf.fill_boundary(1, 1, P)
    else:
        comps = [0]
        layers = 1
        mf.fill_boundary(0, 1, amr.IntVect(*([1] * d)), P, False)
    for (vlo, vhi, flo, fhi, v), b in zip(fabs(mf), before):
        sl = fab_in_global(v, flo, fhi, [-ng] * d, d)
        kind = ghost_kind(flo, fhi, vlo, vhi, d)
        # cells within `layers` of the valid box
        near = np.ones_like(kind, bool)
        for k in range(d):
            idx = np.arange(flo[k], fhi[k] + 1)
            ok = (idx >= vlo[k] - layers) & (idx <= vhi[k] + layers)
            sh = [1, 1, 1]
            sh[k] = -1
            near &= ok.reshape(sh)
        for c in range(2):
            expected = np.where(near, ref[sl][..., c], b[..., c]) if c in comps else b[..., c]
            np.testing.assert_array_equal(v[..., c], expected)


def test_fill_boundary_cross_fills_local_corners_as_amrex(amr):
    """cross=True on one process fills the corners too: AMReX drops the corner pieces of a
    cross exchange only from the messages between processes (AMReX_FabArrayBase.cpp,
    define_fb_metadata: the send/receive tags), never from the local copy tags."""
    d = dim_of(amr)
    rng = np.random.default_rng(3)
    mf, dom = make_mf(amr, ncomp=1, ngrow=1)
    fill_random(mf, rng)
    ref = padded_global(mf, dom, 1)
    mf.fill_boundary(per(amr), True)
    corners = 0
    for (vlo, vhi, flo, fhi, v) in fabs(mf):
        sl = fab_in_global(v, flo, fhi, [-1] * d, d)
        corners += int((ghost_kind(flo, fhi, vlo, vhi, d) > 1).sum())
        np.testing.assert_array_equal(v[..., 0], ref[sl][..., 0])
    assert corners > 0 or d == 1


@pytest.mark.parametrize("form", range(3))
def test_fill_boundary_non_periodic_interior(amr, form):
    """Without periodicity: ghost cells inside the domain get the neighbours' values, outside stay."""
    d = dim_of(amr)
    rng = np.random.default_rng(7)
    mf, dom = make_mf(amr, ncomp=2, ngrow=1)
    fill_random(mf, rng)
    g = gather(mf, dom)
    before = [v.copy() for *_, v in fabs(mf)]
    if form == 0:
        mf.fill_boundary()
    elif form == 1:
        mf.fill_boundary(0, 2)
    else:
        mf.fill_boundary(0, 2, cross=False)
    for (vlo, vhi, flo, fhi, v), b in zip(fabs(mf), before):
        for idx in np.ndindex(*v.shape[:3]):
            cell = [idx[k] + flo[k] for k in range(d)]
            inside = all(0 <= cell[k] < N for k in range(d))
            exp = g[tuple(cell[k] if k < d else 0 for k in range(3))] if inside else b[idx]
            np.testing.assert_array_equal(v[idx], exp)


def test_sum_boundary(amr):
    """Each valid cell gets itself plus every ghost copy of it (periodic): count copies with ones."""
    d = dim_of(amr)
    mf, dom = make_mf(amr, ncomp=1, ngrow=1)
    mf.set_val(1.0)
    mf.sum_boundary(per(amr))
    # every valid cell is covered by ghost cells of neighbouring boxes: count by brute force
    _, ba = make_ba(amr)
    count = np.zeros([N if k < d else 1 for k in range(3)])
    for vlo, vhi, flo, fhi, v in fabs(mf):
        for idx in np.ndindex(*v.shape[:3]):
            cell = [idx[k] + flo[k] for k in range(d)]
            w = tuple(cell[k] % N if k < d else 0 for k in range(3))
            count[w] += 1
    g = gather(mf, dom)[..., 0]
    np.testing.assert_array_equal(g, count)
    # other forms run and keep the same total on valid cells for one layer
    mf2, _ = make_mf(amr, ncomp=2, ngrow=1)
    mf2.set_val(1.0)
    mf2.sum_boundary(0, 1, per(amr))
    np.testing.assert_array_equal(gather(mf2, dom)[..., 0], count)
    np.testing.assert_array_equal(gather(mf2, dom)[..., 1], 1.0)
    mf2.set_val(1.0)
    mf2.sum_boundary(1, 1, amr.IntVect(*([1] * d)), per(amr))
    np.testing.assert_array_equal(gather(mf2, dom)[..., 1], count)
    mf2.set_val(1.0)
    mf2.sum_boundary(0, 1, amr.IntVect(*([0] * d)), amr.IntVect(*([0] * d)), per(amr))
    np.testing.assert_array_equal(gather(mf2, dom)[..., 0], 1.0)


def test_nodal_syncs(amr):
    """Nodal data: override_sync makes shared points equal to the lowest box's copy; average_sync to the mean."""
    ensure_init(amr)
    d = dim_of(amr)
    _, ba = make_ba(amr)
    nba = ba.convert(amr.IndexType(*([amr.IndexType.CellIndex.NODE] * d))) if hasattr(ba, "convert") else None
    if nba is None:
        pytest.skip("BoxArray.convert not available")
    mf = amr.MultiFab(nba, amr.DistributionMapping(nba), 1, 0)
    assert mf.is_all_nodal
    # value = box index everywhere
    for mfi in mf:
        mf.array(mfi).to_numpy()[...] = mfi.index
    mf2 = mf.copy()
    mf.override_sync(amr.Periodicity.non_periodic())
    mf2.average_sync(amr.Periodicity.non_periodic())
    # brute force: for each node the set of boxes containing it
    boxes = [(list(b.small_end), list(b.big_end)) for b in [nba.get(i) if hasattr(nba, "get") else nba[i]
                                                             for i in range(nba.size)]]
    for (vlo, vhi, flo, fhi, v), (_, _, _, _, w) in zip(fabs(mf), fabs(mf2)):
        for idx in np.ndindex(*v.shape[:3]):
            node = [idx[k] + flo[k] for k in range(d)]
            owners = [i for i, (lo, hi) in enumerate(boxes) if all(lo[k] <= node[k] <= hi[k] for k in range(d))]
            assert v[idx + (0,)] == min(owners)
            assert w[idx + (0,)] == pytest.approx(np.mean(owners))


@pytest.mark.parametrize("periodic", [False, True])
def test_parallel_copy(amr, periodic):
    d = dim_of(amr)
    rng = np.random.default_rng(11)
    src, dom = make_mf(amr, ncomp=3, ngrow=1, max_size=8)
    fill_random(src, rng)
    _, ba2 = make_ba(amr, n=N, max_size=4)
    dst = amr.MultiFab(ba2, amr.DistributionMapping(ba2), 2, 1)
    dst.set_val(-100.0)
    kw = dict(period=per(amr)) if periodic else {}
    dst.parallel_copy(src, 1, 0, 2, 0, 1, **kw)
    g = gather(src, dom)
    for vlo, vhi, flo, fhi, v in fabs(dst):
        for idx in np.ndindex(*v.shape[:3]):
            cell = [idx[k] + flo[k] for k in range(d)]
            inside = all(0 <= cell[k] < N for k in range(d))
            if periodic:
                w = tuple(cell[k] % N if k < d else 0 for k in range(3))
                np.testing.assert_array_equal(v[idx], g[w][1:3])
            elif inside:
                np.testing.assert_array_equal(v[idx], g[tuple(cell + [0] * (3 - d))][1:3])
            else:
                assert (v[idx] == -100.0).all()
    # defaults: all components, valid cells
    dst3 = amr.MultiFab(ba2, amr.DistributionMapping(ba2), 3, 0)
    dst3.parallel_copy(src)
    np.testing.assert_array_equal(gather(dst3, dom), g)
    dst3.parallel_add(src=src, scomp=0, dcomp=0, ncomp=3)
    np.testing.assert_allclose(gather(dst3, dom), 2 * g)
    with pytest.raises(IndexError):
        dst3.parallel_copy(src, 0, 1, 3)
    with pytest.raises(TypeError):
        dst3.parallel_copy(src.box_array())


def test_fill_boundary_bad_inputs(amr):
    d = dim_of(amr)
    mf, _ = make_mf(amr, ncomp=2, ngrow=1)
    with pytest.raises(IndexError):
        mf.fill_boundary(amr.IntVect(*([2] * d)), per(amr))
    with pytest.raises(IndexError):
        mf.fill_boundary(1, 2)
    with pytest.raises(TypeError, match="incompatible"):
        mf.fill_boundary("x")
    with pytest.raises(TypeError, match="incompatible"):
        mf.sum_boundary()
    with pytest.raises(TypeError, match="incompatible"):
        mf.average_sync()
