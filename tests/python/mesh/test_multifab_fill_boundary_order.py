"""Which copy fill_boundary writes into a ghost point that several sources hold
(nodal data: a ghost node on the face two neighbours share; periodic images),
against a pure-Python model of AMReX's local copy tags.

AMReX (AMReX_FabArrayBase.cpp FabArrayBase::define_fb_metadata, applied in tag
order per destination by AMReX_FBI.H FB_local_copy_cpu, so the last tag wins):
for every destination box, for every shift pit of Periodicity::shiftIntVect(nghost)
(AMReX_Periodicity.cpp: x outermost, each component from -per to +per, per the
smallest multiple of the period >= nghost), for every box that
BoxArray::intersections(grown destination + pit) returns, in its order
(AMReX_BoxArray.cpp getHashMap / intersections: boxes hashed by the small end of
their cell-centred box coarsened by the largest cell-box extent, hash cells
visited z, y, x lexicographically, one cell's boxes by index), the ghost points
(grown box minus valid box) that box covers get its value at point + pit."""
import itertools

import numpy as np
import pytest


def hash_order(boxes, nodal):
    dim = len(nodal)
    ext = [1] * dim
    for lo, hi in boxes:
        for d in range(dim):
            ext[d] = max(ext[d], hi[d] - lo[d] + 1 - nodal[d])
    key = lambda j: tuple(boxes[j][0][d] // ext[d] for d in reversed(range(dim))) + (j,)  # noqa: E731
    return sorted(range(len(boxes)), key=key)


def amrex_shifts(dim, period, ng):
    ranges = []
    for d in range(dim):
        if period[d]:
            per = period[d]
            while per < ng[d]:
                per += period[d]
            ranges.append(range(-per, per + 1, period[d]))
        else:
            ranges.append(range(0, 1))
    return list(itertools.product(*ranges))  # first component outermost


def model(boxes, nodal, data, ng, period, by_index=False):
    """data: {j: dict point -> value} of every fab point (valid + ghost).  Returns the
    expected dicts after fill_boundary.  by_index: sources in index order and the
    zero shift first, then the others with the last component outermost (boxfab's
    former order; to show that the order matters)."""
    dim = len(nodal)
    order = list(range(len(boxes))) if by_index else hash_order(boxes, nodal)
    shifts = amrex_shifts(dim, period, ng)
    if by_index:
        shifts = sorted(shifts, key=lambda t: (any(t), tuple(-x for x in reversed(t))))
    out = {j: dict(v) for j, v in data.items()}
    for i, (vlo, vhi) in enumerate(boxes):
        glo = [vlo[d] - ng[d] for d in range(dim)]
        ghi = [vhi[d] + ng[d] for d in range(dim)]
        for pit in shifts:
            for j in order:
                slo, shi = boxes[j]
                # ghost points p with p + pit in box j: the grown box & (box j - pit), minus box i
                lo = [max(glo[d], slo[d] - pit[d]) for d in range(dim)]
                hi = [min(ghi[d], shi[d] - pit[d]) for d in range(dim)]
                for p in itertools.product(*[range(lo[d], hi[d] + 1) for d in range(dim)]):
                    if all(vlo[d] <= p[d] <= vhi[d] for d in range(dim)):
                        continue
                    out[i][p] = data[j][tuple(p[d] + pit[d] for d in range(dim))]
    return out


def make(amr, boxes, nodal, ng, seed):
    """MultiFab on `boxes` (nodal points lo..hi) with random values in every fab point."""
    dim = amr.Config.spacedim
    if not amr.initialized():
        amr.initialize([])
    cells = [amr.Box(amr.IntVect(list(lo)), amr.IntVect([hi[d] - nodal[d] for d in range(dim)])) for lo, hi in boxes]
    ba = amr.BoxArray(cells)
    ba.convert(amr.IntVect(list(nodal)))
    mf = amr.MultiFab(ba, amr.DistributionMapping(ba), 1, ng)
    rng = np.random.default_rng(seed)
    data = {}
    for mfi in mf:
        a = mf.array(mfi).to_numpy()
        a[...] = rng.integers(1, 10 ** 6, a.shape).astype(float)
        fb = mfi.fabbox()
        lo = [fb.small_end[d] for d in range(dim)]
        data[mfi.index] = {p: float(a[tuple(p[d] - lo[d] for d in range(dim)) + (0,) * (4 - dim)])
                           for p in itertools.product(*[range(fb.small_end[d], fb.big_end[d] + 1)
                                                        for d in range(dim)])}
    return mf, data


def read(amr, mf):
    dim = amr.Config.spacedim
    out = {}
    for mfi in mf:
        a = mf.array(mfi).to_numpy()
        fb = mfi.fabbox()
        lo = [fb.small_end[d] for d in range(dim)]
        out[mfi.index] = {p: float(a[tuple(p[d] - lo[d] for d in range(dim)) + (0,) * (4 - dim)])
                          for p in itertools.product(*[range(fb.small_end[d], fb.big_end[d] + 1)
                                                       for d in range(dim)])}
    return out


def grid_boxes(dim, n, size, nodal):
    """A chopped domain of n cells per direction in boxes of `size` cells, as (lo, hi)
    of nodal points, x fastest."""
    out = []
    for c in itertools.product(*[range(0, n, size)] * dim):
        lo = tuple(reversed(c))
        out.append((lo, tuple(lo[d] + size - 1 + nodal[d] for d in range(dim))))
    return out


def irregular_boxes(dim, nodal):
    """Unequal boxes listed against AMReX's hash order (reversed), as nodal (lo, hi)."""
    cells = [((0,) * dim, (4,) * dim), ((5,) + (0,) * (dim - 1), (7,) + (2,) * (dim - 1))]
    if dim > 1:
        cells.append(((5, 3) + (0,) * (dim - 2), (7, 5) + (2,) * (dim - 2)))
    else:
        cells.append(((8,), (9,)))
    return [(lo, tuple(hi[d] + nodal[d] for d in range(dim))) for lo, hi in reversed(cells)]


LAYOUTS = {
    "grid": lambda dim, nodal: grid_boxes(dim, 8, 4, nodal),
    "small": lambda dim, nodal: grid_boxes(dim, 8, 2, nodal),
    "irregular": irregular_boxes,
}


def cases(dim):
    nodals = [(1,) * dim, (1,) + (0,) * (dim - 1), (0,) * dim]
    return [(lay, nodal) for lay in LAYOUTS for nodal in nodals]


@pytest.mark.parametrize("periodic", [False, True], ids=["nonper", "per"])
@pytest.mark.parametrize("ng", [1, 2])
def test_fill_boundary_matches_amrex_tag_order(amr, periodic, ng):
    dim = amr.Config.spacedim
    for lay, nodal in cases(dim):
        boxes = LAYOUTS[lay](dim, nodal)
        mf, data = make(amr, boxes, nodal, ng, seed=hash((lay, nodal, ng)) % 1000)
        # the period: the domain's cells (boxes cover 0 .. 7 cells in the grids)
        ncell = [max(hi[d] - nodal[d] for _, hi in boxes) + 1 for d in range(dim)]
        period = ncell if periodic else [0] * dim
        per = amr.Periodicity(amr.IntVect(period)) if periodic else amr.Periodicity.non_periodic()
        mf.fill_boundary(per)
        expect = model(boxes, nodal, data, [ng] * dim, period)
        got = read(amr, mf)
        for j in expect:
            bad = [p for p in expect[j] if expect[j][p] != got[j][p]]
            assert not bad, (lay, nodal, j, bad[:5], [(expect[j][p], got[j][p]) for p in bad[:5]])


def test_order_matters_in_these_layouts(amr):
    """The model's order decides some points: with sources by index and shifts in
    another order, some ghost nodes would get other values (so the test above can fail)."""
    dim = amr.Config.spacedim
    nodal = (1,) * dim
    for lay in ("grid", "irregular"):
        boxes = LAYOUTS[lay](dim, nodal)
        _, data = make(amr, boxes, nodal, 1, seed=4)
        ncell = [max(hi[d] - 1 for _, hi in boxes) + 1 for d in range(dim)]
        a = model(boxes, nodal, data, [1] * dim, ncell)
        b = model(boxes, nodal, data, [1] * dim, ncell, by_index=True)
        differs = sum(a[j][p] != b[j][p] for j in a for p in a[j])
        if dim > 1:
            assert differs > 0, lay
