"""MultiFab operations and reductions against NumPy references on the gathered fab data (API.md 2.7, 2.8)."""
import numpy as np
import pytest

from mfhelp import dim_of, make_mf, fabs, fill_random, valid_part, ensure_init, make_ba


def snapshot(mf):
    return [v.copy() for *_, v in fabs(mf)]


def region_mask(vlo, vhi, flo, fhi, ng, d, region=None):
    """Boolean mask over the fab (F order, spatial) of valid grown by ng, intersected with region (lo, hi)."""
    shape = [fhi[k] - flo[k] + 1 if k < d else 1 for k in range(3)]
    m = np.zeros(shape, bool)
    sl = []
    for k in range(3):
        if k >= d:
            sl.append(slice(0, 1))
            continue
        lo, hi = vlo[k] - ng, vhi[k] + ng
        if region is not None:
            lo, hi = max(lo, region[0][k]), min(hi, region[1][k])
        sl.append(slice(max(lo - flo[k], 0), max(hi - flo[k] + 1, 0)))
    m[tuple(sl)] = True
    return m


def expect(mf, before, f, comps, ng=0, region=None):
    """Check mf's fabs == f(before) on comps inside valid+ng (∩ region), unchanged elsewhere."""
    d = dim_of_mf(mf)
    for (vlo, vhi, flo, fhi, v), b in zip(fabs(mf), before):
        m = region_mask(vlo, vhi, flo, fhi, ng, d, region)
        ref = b.copy()
        for c in comps:
            ref[..., c] = np.where(m, f(b[..., c]), b[..., c])
        np.testing.assert_allclose(v, ref, rtol=1e-13, atol=1e-13)


def dim_of_mf(mf):
    return len(list(mf.n_grow_vect))


@pytest.fixture
def rng():
    return np.random.default_rng(42)


def test_set_val_forms(amr, rng):
    mf, dom = make_mf(amr, ncomp=3, ngrow=2)
    d = dim_of(amr)
    fill_random(mf, rng)
    mf.set_val(4.5)
    for *_, v in fabs(mf):
        assert (v == 4.5).all()
    fill_random(mf, rng)
    b = snapshot(mf)
    mf.set_val(1.5, 1, 2, 1)
    expect(mf, b, lambda x: 1.5, [1, 2], ng=1)
    b = snapshot(mf)
    mf.set_val(-2.0, comp=0, num_comp=1, nghost=amr.IntVect(*([2] * d)))
    expect(mf, b, lambda x: -2.0, [0], ng=2)
    b = snapshot(mf)
    region = amr.Box(amr.IntVect(*([3] * d)), amr.IntVect(*([10] * d)))
    mf.set_val(9.0, region, 0, 2)
    expect(mf, b, lambda x: 9.0, [0, 1], ng=0, region=([3] * d, [10] * d))


@pytest.mark.parametrize("op", ["plus", "mult", "invert", "negate", "abs"])
def test_scalar_ops(amr, rng, op):
    mf, dom = make_mf(amr, ncomp=3, ngrow=1)
    d = dim_of(amr)
    fill_random(mf, rng)
    fn = {"plus": lambda x: x + 2.5, "mult": lambda x: x * 2.5, "invert": lambda x: 2.5 / x,
          "negate": lambda x: -x, "abs": np.abs}[op]
    call = {"plus": lambda *a, **k: mf.plus(2.5, *a, **k), "mult": lambda *a, **k: mf.mult(2.5, *a, **k),
            "invert": lambda *a, **k: mf.invert(2.5, *a, **k), "negate": mf.negate,
            "abs": mf.abs}[op]
    if op != "abs":
        # whole form (nghost)
        b = snapshot(mf)
        call(nghost=1) if op != "invert" else call(1)
        expect(mf, b, fn, [0, 1, 2], ng=1)
        # region form
        b = snapshot(mf)
        region = amr.Box(amr.IntVect(*([2] * d)), amr.IntVect(*([9] * d)))
        call(region, 0) if op != "negate" else call(region)
        expect(mf, b, fn, [0, 1, 2], ng=0, region=([2] * d, [9] * d))
        b = snapshot(mf)
        call(region, 1, 2, 1)
        expect(mf, b, fn, [1, 2], ng=1, region=([2] * d, [9] * d))
    b = snapshot(mf)
    call(1, 1, 0)
    expect(mf, b, fn, [1], ng=0)
    b = snapshot(mf)
    call(0, 2, amr.IntVect(*([1] * d)))
    expect(mf, b, fn, [0, 1], ng=1)


def test_mf_binary_methods(amr, rng):
    a, _ = make_mf(amr, ncomp=2, ngrow=1)
    c, _ = make_mf(amr, ncomp=2, ngrow=1)
    fill_random(a, rng)
    fill_random(c, rng)
    cs = snapshot(c)
    for name, f in (("plus", np.add), ("minus", np.subtract), ("divi", np.divide)):
        b = snapshot(a)
        getattr(a, name)(c, 1, 1, 1)
        for (vlo, vhi, flo, fhi, v), bb, cc in zip(fabs(a), b, cs):
            m = region_mask(vlo, vhi, flo, fhi, 1, dim_of(amr))
            ref = bb.copy()
            ref[..., 1] = np.where(m, f(bb[..., 1], cc[..., 1]), bb[..., 1])
            np.testing.assert_allclose(v, ref)


STATIC = {
    "add": lambda d, s: d + s, "subtract": lambda d, s: d - s,
    "multiply": lambda d, s: d * s, "divide": lambda d, s: d / s,
}


@pytest.mark.parametrize("name", list(STATIC) + ["copy_mfab", "swap", "saxpy", "xpay"])
def test_static_binary(amr, rng, name):
    dst, _ = make_mf(amr, ncomp=3, ngrow=1)
    src, _ = make_mf(amr, ncomp=3, ngrow=1)
    fill_random(dst, rng)
    fill_random(src, rng)
    db, sb = snapshot(dst), snapshot(src)
    if name in STATIC:
        getattr(amr.MultiFab, name)(dst, src, 2, 0, 1, 1)
        f = STATIC[name]
    elif name == "copy_mfab":
        amr.copy_mfab(dst=dst, src=src, srccomp=2, dstcomp=0, numcomp=1, nghost=1)
        f = lambda d, s: s
    elif name == "swap":
        amr.MultiFab.swap(dst, src, 2, 0, 1, 1)
        f = lambda d, s: s
    elif name == "saxpy":
        amr.MultiFab.saxpy(dst, 0.5, src, 2, 0, 1, 1)
        f = lambda d, s: d + 0.5 * s
    else:
        amr.MultiFab.xpay(dst, 0.5, src, 2, 0, 1, 1)
        f = lambda d, s: s + 0.5 * d
    for (vlo, vhi, flo, fhi, v), bd, bs in zip(fabs(dst), db, sb):
        m = region_mask(vlo, vhi, flo, fhi, 1, dim_of(amr))
        ref = bd.copy()
        ref[..., 0] = np.where(m, f(bd[..., 0], bs[..., 2]), bd[..., 0])
        np.testing.assert_allclose(v, ref)
    if name == "swap":
        for (vlo, vhi, flo, fhi, v), bd, bs in zip(fabs(src), db, sb):
            m = region_mask(vlo, vhi, flo, fhi, 1, dim_of(amr))
            ref = bs.copy()
            ref[..., 2] = np.where(m, bd[..., 0], bs[..., 2])
            np.testing.assert_allclose(v, ref)


def test_lin_comb_add_product_and_fabarray_statics(amr, rng):
    d = dim_of(amr)
    dst, _ = make_mf(amr, ncomp=2, ngrow=1)
    x, _ = make_mf(amr, ncomp=2, ngrow=1)
    y, _ = make_mf(amr, ncomp=2, ngrow=1)
    for m in (dst, x, y):
        fill_random(m, rng)
    db, xb, yb = snapshot(dst), snapshot(x), snapshot(y)
    amr.MultiFab.lin_comb(dst, 2.0, x, 1, -3.0, y, 0, 1, 1, 0)
    for (vlo, vhi, flo, fhi, v), bd, bx, by in zip(fabs(dst), db, xb, yb):
        m = region_mask(vlo, vhi, flo, fhi, 0, d)
        ref = bd.copy()
        ref[..., 1] = np.where(m, 2 * bx[..., 1] - 3 * by[..., 0], bd[..., 1])
        np.testing.assert_allclose(v, ref)
    amr.MultiFab.lin_comb(dst=dst, a=1.0, x=x, x_comp=0, b=1.0, y=y, y_comp=0, dstcomp=0, numcomp=1, nghost=0)
    with pytest.raises(TypeError):
        amr.MultiFab.lin_comb(dst=dst, a=1.0, x=x, xcomp=0, b=1.0, y=y, ycomp=0, dstcomp=0, numcomp=1, nghost=0)
    amr.FabArray_FArrayBox.lin_comb(dst=dst, a=1.0, x=x, xcomp=0, b=1.0, y=y, ycomp=0, dstcomp=0, numcomp=1,
                                    nghost=amr.IntVect(*([0] * d)))
    db = snapshot(dst)
    amr.MultiFab.add_product(dst, x, 0, y, 1, 0, 1, 1)
    amr.MultiFab.add_product(dst, x, 0, y, 1, 1, 1, amr.IntVect(*([1] * d)))
    for (vlo, vhi, flo, fhi, v), bd, bx, by in zip(fabs(dst), db, xb, yb):
        m = region_mask(vlo, vhi, flo, fhi, 1, d)
        for c in (0, 1):
            np.testing.assert_allclose(v[..., c], np.where(m, bd[..., c] + bx[..., 0] * by[..., 1], bd[..., c]))
    db = snapshot(dst)
    amr.FabArray_FArrayBox.saxpy(dst, 3.0, x, 1, 0, 1, amr.IntVect(*([1] * d)))
    for (vlo, vhi, flo, fhi, v), bd, bx in zip(fabs(dst), db, xb):
        m = region_mask(vlo, vhi, flo, fhi, 1, d)
        np.testing.assert_allclose(v[..., 0], np.where(m, bd[..., 0] + 3 * bx[..., 1], bd[..., 0]))
    db = snapshot(dst)
    amr.FabArray_FArrayBox.xpay(y=dst, a=3.0, x=x, xcomp=1, ycomp=0, ncomp=1, nghost=amr.IntVect(*([0] * d)))
    for (vlo, vhi, flo, fhi, v), bd, bx in zip(fabs(dst), db, xb):
        m = region_mask(vlo, vhi, flo, fhi, 0, d)
        np.testing.assert_allclose(v[..., 0], np.where(m, bx[..., 1] + 3 * bd[..., 0], bd[..., 0]))


def valid_values(mf, comp, ng=0, region=None):
    d = dim_of_mf(mf)
    vals = []
    for vlo, vhi, flo, fhi, v in fabs(mf):
        m = region_mask(vlo, vhi, flo, fhi, ng, d, region)
        vals.append(v[..., comp][m])
    return np.concatenate(vals)


def test_reductions(amr, rng):
    d = dim_of(amr)
    mf, _ = make_mf(amr, ncomp=2, ngrow=2)
    fill_random(mf, rng)
    for comp in (0, 1):
        for ng in (0, 1, 2):
            vals = valid_values(mf, comp, ng)
            assert mf.min(comp, ng) == vals.min()
            assert mf.max(comp=comp, nghost=ng, local=True) == vals.max()
            assert mf.norm0(comp, ng, False, False) == np.abs(vals).max()
            assert mf.norminf(comp, ng, False, False) == np.abs(vals).max()
            assert mf.norm1(comp, ng, False) == pytest.approx(np.abs(vals).sum(), rel=1e-12)
        vals = valid_values(mf, comp, 0)
        assert mf.sum(comp) == pytest.approx(vals.sum(), rel=1e-12, abs=1e-10)
        assert mf.sum_unique(comp) == pytest.approx(vals.sum(), rel=1e-12, abs=1e-10)
        assert mf.norm2(comp) == pytest.approx(np.sqrt((vals ** 2).sum()), rel=1e-12)
        assert mf.norm2(comp, amr.Periodicity.non_periodic()) == pytest.approx(np.sqrt((vals ** 2).sum()))
        assert mf.norm1(comp, amr.Periodicity.non_periodic(), False) == pytest.approx(np.abs(vals).sum())
        region = ([3] * d, [12] * d)
        rb = amr.Box(amr.IntVect(*region[0]), amr.IntVect(*region[1]))
        rv = valid_values(mf, comp, 0, region)
        assert mf.sum(rb, comp) == pytest.approx(rv.sum(), rel=1e-12, abs=1e-10)
        assert mf.sum_unique(rb, comp) == pytest.approx(rv.sum(), rel=1e-12, abs=1e-10)
        assert mf.min(rb, comp) == rv.min() and mf.max(rb, comp, 0) == rv.max()
    n1 = mf.norm1([0, 1], 1, False)
    assert list(n1) == pytest.approx([np.abs(valid_values(mf, c, 1)).sum() for c in (0, 1)])
    n2 = mf.norm2([1, 0])
    assert list(n2) == pytest.approx([np.sqrt((valid_values(mf, c) ** 2).sum()) for c in (1, 0)])
    # FabArray.sum with ghosts
    ivz = amr.IntVect(*([0] * d))
    assert amr.FabArray_FArrayBox.sum(mf, 0, amr.IntVect(*([2] * d)), False) == pytest.approx(
        valid_values(mf, 0, 2).sum())
    assert amr.FabArray_FArrayBox.sum(mf, 1, ivz, False) == pytest.approx(valid_values(mf, 1).sum())


def test_min_max_index(amr, rng):
    d = dim_of(amr)
    mf, _ = make_mf(amr, ncomp=1, ngrow=1)
    fill_random(mf, rng)
    for ng in (0, 1):
        best = {}
        for vlo, vhi, flo, fhi, v in fabs(mf):
            m = region_mask(vlo, vhi, flo, fhi, ng, d)
            idx = np.argwhere(m)
            for i in idx:
                val = v[tuple(i) + (0,)]
                cell = tuple(int(i[k] + flo[k]) for k in range(d))
                best.setdefault("min", (val, cell))
                best.setdefault("max", (val, cell))
                if val < best["min"][0]:
                    best["min"] = (val, cell)
                if val > best["max"][0]:
                    best["max"] = (val, cell)
        assert tuple(mf.minIndex(0, ng)) == best["min"][1]
        assert tuple(mf.maxIndex(0, ng)) == best["max"][1]


def test_dot(amr, rng):
    x, _ = make_mf(amr, ncomp=2, ngrow=1)
    y, _ = make_mf(amr, ncomp=2, ngrow=1)
    fill_random(x, rng)
    fill_random(y, rng)
    ref = sum((valid_values(x, c, 1) * valid_values(y, c, 1)).sum() for c in (0, 1))
    assert amr.MultiFab.dot(x, 0, y, 0, 2, 1) == pytest.approx(ref, rel=1e-12)
    ref = (valid_values(x, 1) ** 2).sum()
    assert amr.MultiFab.dot(x, 1, 1, 0) == pytest.approx(ref, rel=1e-12)
    assert amr.MultiFab.dot(x=x, xcomp=1, numcomp=1, nghost=0, local=True) == pytest.approx(ref, rel=1e-12)


def test_contains_nan_inf(amr, rng):
    mf, _ = make_mf(amr, ncomp=2, ngrow=1)
    fill_random(mf, rng)
    assert not mf.contains_nan() and not mf.contains_inf()
    # a NaN in a ghost cell of comp 1 only
    for mfi in mf:
        v = mf.array(mfi).to_numpy()
        v[(0,) * 3 + (1,)] = np.nan
        v[(0,) * 3 + (0,)] = np.inf
        break
    assert mf.contains_nan() and mf.contains_inf()
    assert not mf.contains_nan(1, 1) and not mf.contains_nan(1, 1, 0)
    assert mf.contains_nan(1, 1, 1) and mf.contains_nan(0, 2, amr.IntVect(*([1] * dim_of(amr))), True)
    assert not mf.contains_nan(0, 1, 1) and mf.contains_inf(0, 1, 1) and not mf.contains_inf(0, 1)


def test_imultifab_ops(amr, rng):
    imf, _ = make_mf(amr, ncomp=2, ngrow=1, cls=amr.iMultiFab)
    other, _ = make_mf(amr, ncomp=2, ngrow=1, cls=amr.iMultiFab)
    fill_random(imf, rng, ints=True)
    fill_random(other, rng, ints=True)
    vals = valid_values(imf, 1, 1)
    assert imf.min(1, 1) == vals.min() and type(imf.min(1, 1)) is int
    assert imf.max(1, 1) == vals.max()
    assert imf.sum(1) == valid_values(imf, 1).sum() and type(imf.sum(1)) is int
    assert imf.norm1([0, 1], 0, False) == [int(np.abs(valid_values(imf, c)).sum()) for c in (0, 1)]
    b = snapshot(imf)
    imf.plus(3, 0, 1, 1)
    imf.mult(2, 0, 1, 1)
    expect(imf, b, lambda x: (x + 3) * 2, [0], ng=1)
    ob = snapshot(other)
    b = snapshot(imf)
    amr.iMultiFab.add(imf, other, 1, 1, 1, 0)
    for (vlo, vhi, flo, fhi, v), bb, oo in zip(fabs(imf), b, ob):
        m = region_mask(vlo, vhi, flo, fhi, 0, dim_of(amr))
        np.testing.assert_array_equal(v[..., 1], np.where(m, bb[..., 1] + oo[..., 1], bb[..., 1]))
    with pytest.raises(TypeError):
        amr.MultiFab.add(imf, other, 0, 0, 1, 0)
    with pytest.raises(TypeError):
        imf.plus(make_mf(amr, ncomp=2, ngrow=1)[0], 0, 1)
    for name in ("invert", "norm2", "contains_nan", "dot", "saxpy", "lin_comb"):
        assert not hasattr(amr.iMultiFab, name)


def test_undefined_and_alloc_errors(amr):
    mf = amr.MultiFab()
    for call in (lambda: mf.set_val(1.0), lambda: mf.sum(), lambda: mf.min(), lambda: mf.fill_boundary(),
                 lambda: mf.copy()):
        with pytest.raises(RuntimeError, match="undefined"):
            call()


def test_bad_inputs(amr, rng):
    d = dim_of(amr)
    mf, _ = make_mf(amr, ncomp=2, ngrow=1)
    fill_random(mf, rng)
    with pytest.raises(IndexError, match="out of range"):
        mf.min(2)
    with pytest.raises(IndexError):
        mf.min(-1)
    with pytest.raises(IndexError, match="ghost"):
        mf.max(0, 2)
    with pytest.raises(IndexError):
        mf.max(0, -1)
    with pytest.raises(IndexError):
        mf.set_val(1.0, 1, 2)
    with pytest.raises(IndexError):
        mf.plus(1.0, 0, 1, 2)
    with pytest.raises(IndexError):
        mf.minIndex(0, 3)
    with pytest.raises(IndexError):
        mf.norm0(5, 0, False, False)
    with pytest.raises(TypeError, match="incompatible arguments"):
        mf.set_val("x")
    with pytest.raises(TypeError, match="incompatible arguments"):
        mf.min(0, 0, False, 1, 2)
    with pytest.raises(TypeError, match="incompatible arguments"):
        mf.invert(1.0)
    with pytest.raises(TypeError, match="incompatible arguments"):
        mf.norm0(0, 0)
    with pytest.raises(TypeError, match="missing"):
        amr.MultiFab.add(mf, mf, 0, 0, 1)
    with pytest.raises(TypeError):
        amr.MultiFab.add(mf, "x", 0, 0, 1, 0)
    with pytest.raises(OverflowError):
        mf.min(2 ** 40)
    # different BoxArrays
    _, ba2 = make_ba(amr, n=16, max_size=4)
    other = amr.MultiFab(ba2, amr.DistributionMapping(ba2), 2, 1)
    for call in (lambda: amr.MultiFab.add(mf, other, 0, 0, 1, 0), lambda: mf.plus(other, 0, 1),
                 lambda: amr.MultiFab.dot(mf, 0, other, 0, 1, 0), lambda: amr.copy_mfab(mf, other, 0, 0, 1, 0)):
        with pytest.raises(ValueError, match="BoxArray"):
            call()
    # dimensions do not mix
    other_dim = {1: 2, 2: 3, 3: 1}[d]
    import importlib
    amr_o = importlib.import_module(f"boxfab.space{other_dim}d")
    mfo, _ = make_mf(amr_o, ncomp=2, ngrow=1)
    with pytest.raises(TypeError, match="dimension"):
        amr.MultiFab.add(mf, mfo, 0, 0, 1, 0)
    with pytest.raises(TypeError):
        mf.min(amr_o.Box(amr_o.IntVect(*([0] * other_dim)), amr_o.IntVect(*([1] * other_dim))))


@pytest.mark.parametrize("periodic", [False, True])
def test_weighted_sync_sums_weighted_copies(amr, periodic):
    """Nodal data: every copy of a shared point becomes the sum over all copies of value * weight."""
    ensure_init(amr)
    d = dim_of(amr)
    n = 8
    dom, ba = make_ba(amr, n=n, max_size=4)
    nba = amr.BoxArray(ba).convert(amr.IndexType(*([amr.IndexType.CellIndex.NODE] * d)))
    dm = amr.DistributionMapping(nba)
    mf = amr.MultiFab(nba, dm, 2, 0)
    vol = amr.MultiFab(nba, dm, 1, 0)
    rng = np.random.default_rng(5)
    fill_random(mf, rng)
    fill_random(vol, rng)
    before = [(vlo, vhi, flo, v.copy()) for vlo, vhi, flo, fhi, v in fabs(mf)]
    weights = [w.copy() for _, _, _, _, w in fabs(vol)]
    period = amr.Periodicity(amr.IntVect(*([n] * d))) if periodic else amr.Periodicity.non_periodic()
    mf.weighted_sync(vol, period)

    def key(node):  # periodic images of a node are one point
        return tuple(x % n for x in node) if periodic else tuple(node)

    expected = {}
    for (vlo, vhi, flo, v), w in zip(before, weights):
        for idx in np.ndindex(*v.shape[:3]):
            node = key([idx[k] + flo[k] for k in range(d)])
            expected[node] = expected.get(node, 0.0) + v[idx] * w[idx + (0,)]
    for vlo, vhi, flo, fhi, v in fabs(mf):
        for idx in np.ndindex(*v.shape[:3]):
            node = key([idx[k] + flo[k] for k in range(d)])
            np.testing.assert_allclose(v[idx], expected[node], rtol=1e-12, atol=1e-12)


def test_weighted_sync_leaves_cell_data_and_checks_layout(amr):
    mf, _ = make_mf(amr, ncomp=1, ngrow=1)
    mf.set_val(2.0)
    mf.weighted_sync(mf, amr.Periodicity.non_periodic())  # cell-centred: nothing shared
    assert mf.min(0) == 2.0 and mf.max(0) == 2.0
    _, ba2 = make_ba(amr, n=16, max_size=4)
    other = amr.MultiFab(ba2, amr.DistributionMapping(ba2), 1, 0)
    with pytest.raises(ValueError, match="BoxArray"):
        mf.weighted_sync(other, amr.Periodicity.non_periodic())


def test_memcpy(amr, rng):
    a, _ = make_mf(amr, ncomp=2, ngrow=1)
    b, _ = make_mf(amr, ncomp=2, ngrow=1)
    fill_random(a, rng)
    amr.dtoh_memcpy(b, a)
    for x, y in zip(snapshot(a), snapshot(b)):
        np.testing.assert_array_equal(x, y)
    b.set_val(0.0)
    amr.htod_memcpy(b, a, 1, 0, 1)
    for x, y in zip(snapshot(a), snapshot(b)):
        np.testing.assert_array_equal(y[..., 0], x[..., 1])
        assert (y[..., 1] == 0).all()
    c, _ = make_mf(amr, ncomp=2, ngrow=0)
    with pytest.raises(ValueError, match="ghost"):
        amr.dtoh_memcpy(c, a)


def test_equal_layouts_stay_checked(amr):
    """MultiFabs over equal but distinct BoxArrays and DistributionMappings work together (the check is
    remembered per pair), and one over a different BoxArray is refused however many pairs were remembered."""
    ensure_init(amr)
    d = dim_of(amr)
    mfs = []
    for k in range(6):  # more than the 4 remembered partners of each MultiFab
        _, ba = make_ba(amr, n=16, max_size=4)
        mf = amr.MultiFab(ba, amr.DistributionMapping(ba), 1, 0)
        mf.set_val(float(k + 1))
        mfs.append(mf)
    x = mfs[0]
    for _ in range(2):  # the second round goes through the remembered pairs
        for k, y in enumerate(mfs[1:], start=2):
            x.set_val(1.0)
            amr.MultiFab.saxpy(x, 2.0, y, 0, 0, 1, 0)
            assert x.min(0) == x.max(0) == 1.0 + 2.0 * k
    # same number of boxes, one of them elsewhere: still refused, in both argument orders
    _, ba = make_ba(amr, n=16, max_size=4)
    boxes = [ba[i] for i in range(ba.size)]
    last = boxes[-1]
    shift = [16] + [0] * (d - 1)
    boxes[-1] = amr.Box(amr.IntVect(*[lo + s for lo, s in zip(last.small_end, shift)]),
                        amr.IntVect(*[hi + s for hi, s in zip(last.big_end, shift)]))
    bad_ba = amr.BoxArray(boxes)
    bad = amr.MultiFab(bad_ba, amr.DistributionMapping(bad_ba), 1, 0)
    with pytest.raises(ValueError, match="BoxArray"):
        amr.MultiFab.saxpy(x, 2.0, bad, 0, 0, 1, 0)
    with pytest.raises(ValueError, match="BoxArray"):
        amr.MultiFab.saxpy(bad, 2.0, x, 0, 0, 1, 0)
