"""Norms and sums of nodal (and mixed) data with and without a Periodicity,
against a NumPy brute force over every copy of every point.

AMReX's rules (AMReX_MultiFab.cpp):
* norm0(comp, nghost, ...) -> FabArray::norminf: max |a| over valid + nghost, every copy;
* norm1(comp, ngrow, local): sum |a| over the grown tiles, every copy;
* norm1(comp, period, ...): tmp = Copy(a); Divide(tmp, OverlapMask(period)); tmp.norm1(0, 0),
  i.e. sum over copies of |a / m|, m = number of (box, periodic shift) pairs holding the point;
* norm2(comp) = sqrt(Dot(*this, comp, 1, 0)): every copy (BL_ASSERT(cellCentered) is a
  debug-build check only);
* norm2(comp, period) = sqrt(sum over copies of a * a / m), m = OverlapMask(period);
* sum(comp) = FabArray::sum over the valid tiles, every copy;
* sum_unique(comp, local, period): the copy of OwnerMask(period) (lowest box index;
  within one box, the image of lowest shift) only.
The copies of a shared point hold different values here, so each rule shows."""
import numpy as np
import pytest

N = 8


def make(amr, nodal, ng=1, nc=2, seed=0):
    dim = amr.Config.spacedim
    if not amr.initialized():
        amr.initialize([])
    ba = amr.BoxArray(amr.Box(amr.IntVect([0] * dim), amr.IntVect([N - 1] * dim)))
    ba.max_size(4)
    ba.convert(amr.IntVect(nodal[:dim]))
    mf = amr.MultiFab(ba, amr.DistributionMapping(ba), nc, ng)
    rng = np.random.default_rng(seed)
    for mfi in mf:
        a = mf.array(mfi).to_numpy()
        a[...] = rng.uniform(-3, 3, a.shape)
    return mf


def copies(amr, mf, comp, ng=0):
    """[(global index tuple, value, box index)] of every point of every fab's valid
    box grown by ng, boxes in index order, points in k, j, i order."""
    dim = amr.Config.spacedim
    out = []
    for mfi in mf:
        fb = mfi.fabbox()
        vb = mfi.validbox()
        a = mf.array(mfi).to_numpy()
        lo = [vb.small_end[d] - ng for d in range(dim)]
        hi = [vb.big_end[d] + ng for d in range(dim)]
        for p in np.ndindex(*[hi[d] - lo[d] + 1 for d in range(dim)][::-1]):
            p = tuple(lo[d] + p[::-1][d] for d in range(dim))
            loc = tuple(p[d] - fb.small_end[d] for d in range(dim)) + (0,) * (3 - dim) + (comp,)
            out.append((p, float(a[loc]), mfi.index))
    return sorted(out, key=lambda c: c[2])  # stable: boxes in index order


def wrap(p, period):
    return tuple(x % period[d] if period[d] else x for d, x in enumerate(p))


def counts(cs, period):
    m = {}
    for p, _, _ in cs:
        q = wrap(p, period)
        m[q] = m.get(q, 0) + 1
    return m


NODAL = [(1, 1, 1), (1, 0, 0), (0, 1, 1), (0, 0, 0)]


@pytest.mark.parametrize("nodal", NODAL, ids=lambda t: "".join(map(str, t)))
def test_norms_without_period(amr, nodal):
    dim = amr.Config.spacedim
    mf = make(amr, nodal)
    for comp in range(2):
        for ng in (0, 1):
            cs = copies(amr, mf, comp, ng)
            vals = np.array([v for _, v, _ in cs])
            assert mf.norm0(comp, ng, False, False) == np.max(np.abs(vals))
            assert mf.norm1(comp, ng, False) == pytest.approx(np.abs(vals).sum(), rel=1e-13)
        cs = copies(amr, mf, comp)
        vals = np.array([v for _, v, _ in cs])
        # norm2(comp) and sum(comp): every copy of a shared node
        assert mf.norm2(comp) == pytest.approx(np.sqrt((vals ** 2).sum()), rel=1e-13)
        assert mf.sum(comp) == pytest.approx(vals.sum(), rel=1e-12, abs=1e-12)
    assert mf.norm2([1, 0]) == pytest.approx([mf.norm2(1), mf.norm2(0)], rel=1e-15)
    assert dim >= 1


def periods(amr):
    dim = amr.Config.spacedim
    out = [(amr.Periodicity.non_periodic(), (0,) * dim)]
    out.append((amr.Periodicity(amr.IntVect([N] * dim)), (N,) * dim))
    if dim > 1:
        out.append((amr.Periodicity(amr.IntVect([N] + [0] * (dim - 1))), (N,) + (0,) * (dim - 1)))
    return out


@pytest.mark.parametrize("nodal", NODAL, ids=lambda t: "".join(map(str, t)))
def test_norms_with_period_weight_by_overlap_count(amr, nodal):
    """norm1/norm2 with a Periodicity: each copy weighted by 1 / OverlapMask."""
    mf = make(amr, nodal, seed=3)
    for per, plen in periods(amr):
        for comp in range(2):
            cs = copies(amr, mf, comp)
            m = counts(cs, plen)
            w = np.array([1.0 / m[wrap(p, plen)] for p, _, _ in cs])
            vals = np.array([v for _, v, _ in cs])
            assert mf.norm1(comp, per, False) == pytest.approx(np.abs(vals * w).sum(), rel=1e-13)
            assert mf.norm2(comp, per) == pytest.approx(np.sqrt((vals * vals * w).sum()), rel=1e-13)
            # sum_unique: the owner's copy (first in box order) of each point
            seen, s = set(), 0.0
            for p, v, _ in cs:
                q = wrap(p, plen)
                if q not in seen:
                    seen.add(q)
                    s += v
            assert mf.sum_unique(comp, False, per) == pytest.approx(s, rel=1e-12, abs=1e-12)
            if any(nodal[:amr.Config.spacedim]) or any(plen):
                # the weights matter: the owner-only sum of |a| differs
                owner = 0.0
                seen = set()
                for p, v, _ in cs:
                    q = wrap(p, plen)
                    if q not in seen:
                        seen.add(q)
                        owner += abs(v)
                if any(c > 1 for c in m.values()):
                    assert abs(mf.norm1(comp, per, False) - owner) > 1e-9


def test_synced_nodal_data_counts_each_point_once(amr):
    """When the copies agree (after override_sync), the weighted norms equal the
    norms of the distinct points; norm2(comp) without a period does not."""
    dim = amr.Config.spacedim
    mf = make(amr, (1, 1, 1), seed=5)
    per = amr.Periodicity(amr.IntVect([N] * dim))
    mf.override_sync(per)
    cs = copies(amr, mf, 0)
    distinct = {}
    for p, v, _ in cs:
        distinct.setdefault(wrap(p, (N,) * dim), v)
    vals = np.array(list(distinct.values()))
    assert len(vals) == N ** dim
    assert mf.norm1(0, per, False) == pytest.approx(np.abs(vals).sum(), rel=1e-13)
    assert mf.norm2(0, per) == pytest.approx(np.sqrt((vals ** 2).sum()), rel=1e-13)
    assert mf.norm2(0) > mf.norm2(0, per)  # shared copies counted again


def test_nodal_norm_argument_checks(amr):
    dim = amr.Config.spacedim
    mf = make(amr, (1, 1, 1))
    with pytest.raises(IndexError):
        mf.norm1(2, amr.Periodicity.non_periodic(), False)
    with pytest.raises(IndexError):
        mf.norm2(-1, amr.Periodicity(amr.IntVect([N] * dim)))
    other = {1: 2, 2: 3, 3: 1}[dim]
    mod = __import__(f"boxfab.space{other}d", fromlist=["x"])
    with pytest.raises(TypeError):
        mf.norm2(0, mod.Periodicity.non_periodic())
