"""MultiFab / iMultiFab across ranks (run by test_mpi.py at 1, 2 and 4 ranks):
global reductions (and local=True), global indexing reads and writes, local
fabs only in MFIter / array / to_numpy, a DistributionMapping that leaves
ranks without fabs, split communicators.

References: NumPy over the global formula of the cell index
(mpi_harness.global_formula), evaluated box by box over the whole BoxArray (the
data are filled from the same formula, ghost cells included); min / max and
their cells exact (the first extremum in global box order, then k, j, i, the
order one rank scans), sums within 1e-13 relative (int sums exact); every
result identical on every rank and from one call to the next."""
import math

import numpy as np
from mpi4py import MPI

import boxfab.space1d as a1
import boxfab.space2d as a2
import boxfab.space3d as a3
from mpi_harness import global_formula, rank, run, size, world

SPACES = {1: a1, 2: a2, 3: a3}
N = 12  # cells per direction
MAXSIZE = 4


class Runtime:
    def __init__(self, comm=None):
        self.comm = comm

    def __enter__(self):
        if self.comm is None:
            a3.initialize(["amrex.verbose=0"])
        else:
            a3.initialize(["amrex.verbose=0"], self.comm)

    def __exit__(self, *exc):
        a3.finalize()


def iv(amr, dim, v):
    return amr.IntVect(*([v] * dim)) if not isinstance(v, (list, tuple)) else amr.IntVect(*v)


def pad3(box, dim):
    lo = [box.small_end[d] for d in range(dim)] + [0] * (3 - dim)
    hi = [box.big_end[d] for d in range(dim)] + [0] * (3 - dim)
    return lo, hi


def grow(lo, hi, ng, dim):
    return [lo[d] - (ng if d < dim else 0) for d in range(3)], [hi[d] + (ng if d < dim else 0) for d in range(3)]


def cells(lo, hi):
    """i, j, k of the cells of [lo, hi], flattened x fastest (the kernels' order)."""
    k, j, i = np.meshgrid(*(np.arange(lo[d], hi[d] + 1) for d in (2, 1, 0)), indexing="ij")
    return i.ravel(), j.ravel(), k.ravel()


def dformula(i, j, k, n):
    return global_formula(i, j, k, n)


def iformula(i, j, k, n):
    # many ties: exercises the tie rule of min/max and their cells
    return ((7 * np.asarray(i) + 13 * np.asarray(j) + 29 * np.asarray(k) + 3 * np.asarray(n)) % 23 - 11).astype(np.int64)


def view(mf, mfi):
    """A writable [x, y, z, comp] view of a local fab: NumPy for host memory,
    CuPy for device memory (the GPU half: BOXFAB_TEST_DEVICE=gpu)."""
    a = mf.array(mfi)
    try:
        a.__array_interface__
    except AttributeError:
        return a.to_cupy()
    return a.to_numpy()


def host(x):
    return x if isinstance(x, np.ndarray) else x.get()


def assign(v, values):
    """v[...] = values (a NumPy array or scalar) for a NumPy or CuPy view; CuPy's writes are waited
    for (boxfab's stream does not wait for CuPy's)."""
    if isinstance(v, np.ndarray) or np.isscalar(values):
        v[...] = values
    else:
        import cupy
        v[...] = cupy.asarray(values)
        cupy.cuda.Device().synchronize()


def fill(mf, f, dim):
    """Every local fab, ghost cells included, from the formula."""
    for mfi in mf:
        arr = view(mf, mfi)
        lo, hi = pad3(mfi.fabbox(), dim)
        k, j, i, n = np.meshgrid(*(np.arange(lo[d], hi[d] + 1) for d in (2, 1, 0)), np.arange(arr.shape[3]),
                                 indexing="ij")
        # arr is [x, y, z, comp]
        assign(arr, np.transpose(f(i, j, k, n), (2, 1, 0, 3)))


def layout(dim, strategy="default", ba=None):
    amr = SPACES[dim]
    if ba is None:
        ba = amr.BoxArray(amr.Box(iv(amr, dim, 0), iv(amr, dim, N - 1)))
        ba.max_size(MAXSIZE)
    nb = len(ba)
    if strategy == "default":
        dm = amr.DistributionMapping(ba)
    elif strategy == "reversed":  # box 0 on the last rank: rank order != box order
        dm = amr.DistributionMapping([(nb - 1 - b) % size() for b in range(nb)])
    elif strategy == "one":  # every box on the last rank, the others hold none
        dm = amr.DistributionMapping([size() - 1] * nb)
    else:
        raise ValueError(strategy)
    return amr, ba, dm


def boxes_of(ba, dim):
    return [pad3(ba[b], dim) for b in range(len(ba))]


def owners(dm):
    return list(dm.ProcessorMap())


def same_everywhere(x, what):
    allx = world().allgather(repr(x))
    assert all(a == allx[0] for a in allx), f"{what} differs between ranks: {allx}"


def close(a, b, what, tol=1e-13):
    assert abs(a - b) <= tol * max(abs(b), 1e-300), f"{what}: {a!r} vs {b!r}"


def ref_values(boxes, f, dim, ng, comp, sel=None):
    """Per box (global order): (cells i,j,k, values) of the valid box grown by ng."""
    out = []
    for b, (lo, hi) in enumerate(boxes):
        if sel is not None and not sel(b):
            out.append((None, np.zeros(0)))
            continue
        glo, ghi = grow(lo, hi, ng, dim)
        i, j, k = cells(glo, ghi)
        out.append(((i, j, k), f(i, j, k, comp)))
    return out


def ref_extremum(per_box, mx):
    """(value, cell) of the first extremum in box order, then x fastest."""
    best, cell = None, None
    for c, v in per_box:
        if v.size == 0:
            continue
        a = int(np.argmax(v) if mx else np.argmin(v))
        if best is None or (v[a] > best if mx else v[a] < best):
            best, cell = v[a], (int(c[0][a]), int(c[1][a]), int(c[2][a]))
    return best, cell


def reductions(amr, mf, mf2, dim):
    """Every reduction the Python API has, global, as a dict."""
    r = {}
    r["sum0"] = mf.sum(0)
    r["sum1"] = mf.sum(comp=1)
    r["sum_region"] = mf.sum(amr.Box(iv(amr, dim, 2), iv(amr, dim, 9)), 1)
    r["sum_unique"] = mf.sum_unique(0)
    r["min"] = mf.min(0, 1)
    r["max"] = mf.max(comp=1, nghost=1)
    r["min_region"] = mf.min(amr.Box(iv(amr, dim, 3), iv(amr, dim, 8)), 0)
    r["minIndex"] = tuple(mf.minIndex(0, 1))
    r["maxIndex"] = tuple(mf.maxIndex(1, 0))
    r["norm0"] = mf.norm0(0, 1, False, False)
    r["norminf"] = mf.norminf(1, 0, False, False)
    r["norm1"] = mf.norm1(0, 1, False)
    r["norm1_comps"] = list(mf.norm1([0, 1], 0, False))
    if type(mf).__name__ == "MultiFab":  # iMultiFab has none of these (AMReX's neither)
        r["norm2"] = mf.norm2(1)
        r["norm2_comps"] = list(mf.norm2([0, 1]))
        r["contains_nan"] = mf.contains_nan()
        r["contains_inf"] = mf.contains_inf(0, 2, 1)
        r["dot"] = type(mf).dot(mf, 0, mf2, 1, 1, 1)
        r["dot_self"] = type(mf).dot(mf, 0, 2, 0)
        r["fa_sum"] = amr.FabArray_FArrayBox.sum(mf, 1, iv(amr, dim, 1), False)
    return r


def check_reductions_ref(amr, ba, dm, mf, mf2, dim, f, is_int):
    """The global results against NumPy over the whole BoxArray; local=True
    against the rank's boxes; identical on every rank and call to call."""
    boxes = boxes_of(ba, dim)
    own = owners(dm)
    me = rank()
    r = reductions(amr, mf, mf2, dim)
    same_everywhere(r, "reductions")
    assert reductions(amr, mf, mf2, dim) == r, "not identical from one call to the next"

    def tot(ng, comp, sel=None, op=lambda v: v):
        vals = [op(v) for _, v in ref_values(boxes, f, dim, ng, comp, sel)]
        return np.concatenate(vals) if vals else np.zeros(0)

    def chk_sum(name, expect):
        if is_int:
            assert r[name] == int(expect), f"{name}: {r[name]} vs {expect}"
        else:
            close(r[name], float(expect), name)

    chk_sum("sum0", tot(0, 0).sum())
    chk_sum("sum1", tot(0, 1).sum())
    chk_sum("sum_unique", tot(0, 0).sum())  # cell-centered: every cell once
    reg_lo, reg_hi = [2] * dim + [0] * (3 - dim), [9] * dim + [0] * (3 - dim)
    s = 0
    for lo, hi in boxes:
        a = [max(lo[d], reg_lo[d]) for d in range(3)]
        b = [min(hi[d], reg_hi[d]) for d in range(3)]
        if all(x <= y for x, y in zip(a, b)):
            i, j, k = cells(a, b)
            s += f(i, j, k, 1).sum()
    chk_sum("sum_region", s)
    mn, cmn = ref_extremum(ref_values(boxes, f, dim, 1, 0), False)
    assert r["min"] == mn, (r["min"], mn)
    assert r["minIndex"] == cmn[:dim], (r["minIndex"], cmn)
    mx, cmx = ref_extremum(ref_values(boxes, f, dim, 0, 1), True)
    assert r["maxIndex"] == cmx[:dim], (r["maxIndex"], cmx)
    assert r["max"] == tot(1, 1).max()
    reg_lo, reg_hi = [3] * dim + [0] * (3 - dim), [8] * dim + [0] * (3 - dim)
    m = None
    for lo, hi in boxes:
        a = [max(lo[d], reg_lo[d]) for d in range(3)]
        b = [min(hi[d], reg_hi[d]) for d in range(3)]
        if all(x <= y for x, y in zip(a, b)):
            i, j, k = cells(a, b)
            v = f(i, j, k, 0).min()
            m = v if m is None else min(m, v)
    assert r["min_region"] == m
    assert r["norm0"] == np.abs(tot(1, 0)).max()
    assert r["norminf"] == np.abs(tot(0, 1)).max()
    chk_sum("norm1", np.abs(tot(1, 0)).sum())
    for c in (0, 1):
        if is_int:
            assert r["norm1_comps"][c] == np.abs(tot(0, c)).sum()
        else:
            close(r["norm1_comps"][c], np.abs(tot(0, c)).sum(), "norm1_comps")
            close(r["norm2_comps"][c], math.sqrt((tot(0, c) ** 2).sum()), "norm2_comps")
    if not is_int:
        close(r["norm2"], math.sqrt((tot(0, 1) ** 2).sum()), "norm2")
        assert r["contains_nan"] is False and r["contains_inf"] is False
        close(r["dot"], float((tot(1, 0) * tot(1, 1)).sum()), "dot")
        close(r["dot_self"], float((tot(0, 0) ** 2 + tot(0, 1) ** 2).sum()), "dot_self")
        close(r["fa_sum"], float(tot(1, 1).sum()), "fa_sum")

    # local=True: this rank's boxes only (no communication)
    mine = lambda b: own[b] == me  # noqa: E731
    nlocal = sum(1 for b in range(len(boxes)) if mine(b))
    loc = tot(0, 0, mine)
    if is_int:
        assert mf.sum(0, local=True) == int(loc.sum())
    else:
        close(mf.sum(0, local=True), float(loc.sum()), "sum local", 1e-12)
    loc1 = tot(1, 0, mine)
    if nlocal:
        assert mf.min(0, 1, local=True) == loc1.min()
        assert mf.max(0, 1, True) == loc1.max()
        assert mf.norm0(0, 1, True, False) == np.abs(loc1).max()
    else:  # AMReX's start values
        big = np.iinfo(np.int32).max if is_int else np.finfo(np.float64).max
        assert mf.min(0, 1, local=True) == big and mf.max(0, 1, local=True) == -big - (1 if is_int else 0)
        assert mf.norm0(0, 1, True, False) == 0
    if is_int:
        assert mf.norm1(0, 1, True) == int(np.abs(loc1).sum())
    else:
        close(mf.norm1(0, 1, True), float(np.abs(loc1).sum()), "norm1 local", 1e-12)
    if not is_int:
        close(type(mf).dot(mf, 0, 1, 0, True), float((loc ** 2).sum()), "dot local", 1e-12)
    # the local parts add up to the global result
    parts = world().allgather(mf.sum(1, local=True))
    if is_int:
        assert sum(parts) == r["sum1"]
    else:
        close(math.fsum(parts), r["sum1"], "sum of local parts", 1e-12)
    return r


def make(dim, strategy, is_int=False, ng=1, ncomp=2):
    amr, ba, dm = layout(dim, strategy)
    cls = amr.iMultiFab if is_int else amr.MultiFab
    f = iformula if is_int else dformula
    mf = cls(ba, dm, ncomp, ng)
    fill(mf, f, dim)
    mf2 = cls(ba, dm, ncomp, ng)
    fill(mf2, f, dim)
    return amr, ba, dm, mf, mf2, f


def check_reductions():
    with Runtime():
        for dim in (1, 2, 3):
            for strategy in ("default", "reversed", "one"):
                for is_int in (False, True):
                    amr, ba, dm, mf, mf2, f = make(dim, strategy, is_int)
                    check_reductions_ref(amr, ba, dm, mf, mf2, dim, f, is_int)
                    # MFIter, array and to_numpy see the local fabs only
                    own = owners(dm)
                    mine = [b for b in range(len(ba)) if own[b] == rank()]
                    assert [mfi.index for mfi in mf] == mine
                    views = [host(v) for v in mf.to_xp()]
                    assert len(views) == len(mine)
                    for b, v in zip(mine, views):
                        lo, hi = grow(*pad3(ba[b], dim), 1, dim)
                        i, j, k = cells(lo, hi)
                        expect = np.stack([f(i, j, k, n) for n in range(2)], axis=-1)
                        assert np.array_equal(v.reshape(-1, 2, order="F"), expect)
                    # a copy keeps the layout and the results
                    c = mf.copy()
                    assert c.sum(0) == mf.sum(0) and tuple(c.maxIndex(0, 1)) == tuple(mf.maxIndex(0, 1))
                    assert ("on rank" in repr(mf)) == (size() > 1) and repr(mf).startswith("<")


def check_tie_rules():
    # ties across ranks: the cell one rank finds (the first in global box order),
    # and the bits one rank gets (+0.0 before -0.0)
    with Runtime():
        for dim in (1, 2, 3):
            amr, ba, dm = layout(dim, "reversed")
            mf = amr.MultiFab(ba, dm, 1, 1)
            mf.set_val(3.0)
            lo, hi = pad3(ba[0], dim)
            glo, _ = grow(lo, hi, 1, dim)
            assert tuple(mf.minIndex(0, 1)) == tuple(glo[:dim])
            assert tuple(mf.maxIndex(0, 0)) == tuple(lo[:dim])
            # +0.0 in box 0 (on the last rank), -0.0 everywhere else
            mf.set_val(-0.0)
            for mfi in mf:
                if mfi.index == 0:
                    assign(view(mf, mfi), 0.0)
            for v in (mf.min(0), mf.max(0), mf.min(0, 1)):
                assert v == 0.0 and math.copysign(1.0, v) == 1.0, v
            same_everywhere([mf.min(0), mf.max(0)], "signed zeros")
            imf = amr.iMultiFab(ba, dm, 1, 0)
            imf.set_val(5)
            assert tuple(imf.maxIndex(0, 0)) == tuple(lo[:dim]) and imf.max(0) == 5


def check_nan_inf():
    with Runtime():
        for dim in (1, 3):
            amr, ba, dm = layout(dim, "reversed")
            mf = amr.MultiFab(ba, dm, 2, 1)
            mf.set_val(1.0)
            last = len(ba) - 1  # owned by rank 0 in the reversed map
            for mfi in mf:
                if mfi.index == last:
                    a = view(mf, mfi)
                    pad = (0,) * (3 - dim)
                    a[(1,) * dim + pad + (1,)] = np.nan  # a valid cell (fab index 1 = valid lo), component 1
                    a[(0,) * dim + pad + (0,)] = np.inf  # a ghost cell of component 0
            assert mf.contains_nan() is True and mf.contains_nan(1, 1) is True
            assert mf.contains_nan(0, 1) is False
            assert mf.contains_inf() is True and mf.contains_inf(0, 1, 0) is False
            owner = rank() == owners(dm)[last]
            assert mf.contains_nan(local=True) is owner
            assert mf.contains_inf(0, 1, 1, True) is owner


def check_nodal_unique():
    # points shared by nodal boxes: sum_unique counts each once, norm1/norm2 with
    # a Periodicity weight the copies by their number, on boxes spread over ranks
    with Runtime():
        for dim in (1, 2, 3):
            for strategy in ("default", "reversed"):
                amr, ba, dm = layout(dim, strategy)
                nba = amr.BoxArray(ba)
                nba.surrounding_nodes()
                mf = amr.MultiFab(nba, dm, 1, 0)
                fill(mf, dformula, dim)
                i, j, k = cells([0] * 3, [N if d < dim else 0 for d in range(3)])  # every node once
                v = dformula(i, j, k, 0)
                close(mf.sum_unique(0), v.sum(), "sum_unique nodal")
                close(mf.norm1(0, amr.Periodicity.non_periodic(), False), np.abs(v).sum(), "norm1 period")
                close(mf.norm2(0, amr.Periodicity.non_periodic()), math.sqrt((v * v).sum()), "norm2 period")
                allcopies = np.concatenate([dformula(*cells(lo, hi), 0) for lo, hi in boxes_of(nba, dim)])
                close(mf.sum(0), allcopies.sum(), "sum nodal (every copy)")
                close(mf.norm2(0), math.sqrt((allcopies ** 2).sum()), "norm2 nodal (every copy)")
                same_everywhere([mf.sum_unique(0), mf.norm2(0, amr.Periodicity.non_periodic())], "nodal")
                # periodic: the upper face is the image of the lower one; the owner
                # copy (lowest box, lowest image) counts
                per = amr.Periodicity(iv(amr, dim, N))
                up = [N - 1 if d < dim else 0 for d in range(3)]
                i, j, k = cells([0] * 3, up)
                close(mf.sum_unique(0, False, per), dformula(i, j, k, 0).sum(), "sum_unique periodic")


def check_global_indexing():
    with Runtime():
        for dim in (1, 2, 3):
            for strategy in ("default", "reversed", "one"):
                for is_int in (False, True):
                    amr, ba, dm = layout(dim, strategy)
                    f = iformula if is_int else dformula
                    mf = (amr.iMultiFab if is_int else amr.MultiFab)(ba, dm, 2, 1)
                    fill(mf, f, dim)
                    ext = [N if d < dim else 1 for d in range(3)]
                    i, j, k, n = np.meshgrid(*(np.arange(e) for e in ext), np.arange(2), indexing="ij")
                    G = f(i, j, k, n)  # [x, y, z, comp], valid cells
                    got = mf[...]
                    assert np.array_equal(got, G.squeeze()), "mf[...]"
                    same_everywhere(got.tobytes(), "mf[...]")
                    # a slice through several boxes, one component
                    key = (slice(2, 9),) + (slice(None),) * (dim - 1) + (1,)
                    assert np.array_equal(mf[key], G[2:9, ..., 1].squeeze())
                    # ghost cells on the outer boundary
                    gi, gj, gk, gn = np.meshgrid(*(np.arange(-1, e + 1) if d < dim else np.arange(1)
                                                   for d, e in enumerate(ext)), np.arange(2), indexing="ij")
                    GG = f(gi, gj, gk, gn)
                    assert np.array_equal(mf[(slice(-1j, 2j),) * dim + (slice(None),)], GG.squeeze())
                    assert np.array_equal(mf[((),) * dim], GG.squeeze())
                    # a scalar read
                    pt = (5,) * dim + (1,)
                    assert mf[pt] == G[(5,) * dim + (0,) * (3 - dim) + (1,)]
                    # writes: every rank makes the same write; each writes its fabs
                    vshape = (4, 3, 2)[:dim] + (2,)
                    val = np.arange(int(np.prod(vshape))).reshape(vshape) - 7
                    if is_int:
                        val = val.astype(np.int32)
                    else:
                        val = val * 0.5
                    wkey = (slice(3, 7), slice(4, 7), slice(1, 3))[:dim] + (slice(None),)
                    mf[wkey] = val
                    H = G.copy()
                    H[(slice(3, 7), slice(4, 7), slice(1, 3))[:dim]] = val.reshape(
                        val.shape[:dim] + (1,) * (3 - dim) + (2,))
                    got = mf[...]
                    assert np.array_equal(got, H.squeeze()), "after a write"
                    # the write reached the owners: the global sum sees it
                    if is_int:
                        assert mf.sum(0) == int(H[..., 0].sum())
                    else:
                        close(mf.sum(0), float(H[..., 0].sum()), "sum after write")
                    mf[(7,) * dim] = 4  # scalar write, both components
                    assert mf[(7,) * dim + (0,)] == 4 and mf[(7,) * dim + (1,)] == 4


def check_incomplete_boxarray():
    # boxes that leave holes in their minimal box: internal ghost cells fill the
    # holes they cover (pyAMReX's two passes), in global box order
    with Runtime():
        for dim in (2, 3):
            amr = SPACES[dim]
            ba = amr.BoxArray([amr.Box(amr.IntVect(*lo[:dim]), amr.IntVect(*hi[:dim]))
                               for lo, hi in (((0, 0, 0), (3, 3, 3)), ((4, 0, 0), (7, 3, 3)),
                                              ((0, 4, 0), (3, 7, 3)), ((6, 6, 0), (7, 7, 3)))])
            for strategy in ("default", "reversed", "one"):
                _, _, dm = layout(dim, strategy, ba)
                mf = amr.MultiFab(ba, dm, 1, 1)
                fill(mf, dformula, dim)
                ext = [8, 8, 4][:dim] + [1] * (3 - dim)
                covered = np.zeros(ext, dtype=bool)
                for lo, hi in boxes_of(ba, dim):
                    glo, ghi = grow(lo, hi, 1, dim)
                    sl = tuple(slice(max(glo[d], 0), min(ghi[d], ext[d] - 1) + 1) for d in range(3))
                    covered[sl] = True
                i, j, k = np.meshgrid(*(np.arange(e) for e in ext), indexing="ij")
                expect = np.where(covered, dformula(i, j, k, 0), 0.0)
                got = mf[...]
                assert np.array_equal(got, expect.squeeze())
                same_everywhere(got.tobytes(), "incomplete read")
                # ghost cells that disagree: the pieces land in global box order
                # (a later box overwrites an earlier one), as on one rank
                for mfi in mf:
                    assign(view(mf, mfi), mfi.index + 1)
                paint = np.zeros(ext)
                for b, (lo, hi) in enumerate(boxes_of(ba, dim)):
                    glo, ghi = grow(lo, hi, 1, dim)
                    paint[tuple(slice(max(glo[d], 0), min(ghi[d], ext[d] - 1) + 1) for d in range(3))] = b + 1
                got = mf.__getitem__((slice(None),) * dim + (0,), with_internal_ghosts=True)
                assert np.array_equal(got.reshape(ext), paint), (got.reshape(ext), paint)


def check_foreign_iterator():
    with Runtime():
        amr, ba, dm = layout(3, "default")
        _, _, dmr = layout(3, "reversed")
        a = amr.MultiFab(ba, dm, 1, 0)
        b = amr.MultiFab(ba, dmr, 1, 0)
        own_b = owners(dmr)
        for mfi in a:
            if own_b[mfi.index] == rank():
                b.array(mfi)  # local there too: fine
            else:
                try:
                    b.array(mfi)
                except ValueError as e:
                    assert f"rank {own_b[mfi.index]}" in str(e) and f"rank {rank()}" in str(e), str(e)
                else:
                    raise AssertionError("array(mfi) of a box this rank does not hold")
        # operations between layouts that differ are refused on every rank alike
        if size() > 1:
            for bad in (lambda: amr.copy_mfab(a, b, 0, 0, 1, 0), lambda: amr.MultiFab.dot(a, 0, b, 0, 1, 0)):
                try:
                    bad()
                except ValueError:
                    pass
                else:
                    raise AssertionError("different DistributionMappings accepted")
        # the same layout: copy_mfab moves local data only, the result is global
        c = amr.MultiFab(ba, dm, 1, 0)
        fill(a, dformula, 3)
        amr.copy_mfab(c, a, 0, 0, 1, 0)
        assert np.array_equal(c[...], a[...])


def check_no_data():
    # no data anywhere (alloc=False, cleared), while some ranks hold no fabs:
    # every rank raises, none waits in a collective
    with Runtime():
        for dim in (1, 3):
            for strategy in ("one", "reversed"):
                amr, ba, dm = layout(dim, strategy)
                a = amr.MultiFab(ba, dm, 1, 0, amr.MFInfo().set_alloc(False))
                b = amr.MultiFab(ba, dm, 1, 0)
                b.clear()
                for mf in (a, b):
                    assert not mf.ok()
                    for bad in (lambda: mf.sum(0), lambda: mf.max(0), lambda: mf.norm2(0), lambda: mf[...],
                                lambda: mf.minIndex(0, 0), lambda: amr.MultiFab.dot(mf, 0, 1, 0)):
                        try:
                            bad()
                        except RuntimeError:
                            pass
                        else:
                            raise AssertionError("a MultiFab without data was reduced / read")
                    world().Barrier()


def check_distribution_maps():
    with Runtime():
        amr, ba, dm = layout(3, "default")
        pm = owners(dm)
        same_everywhere(pm, "DistributionMapping(ba)")
        assert max(pm) == min(size(), len(ba)) - 1 and min(pm) == 0
        for strategy in ("sfc", "roundrobin", "knapsack"):
            same_everywhere(list(amr.DistributionMapping(ba, strategy=strategy).ProcessorMap()), strategy)


def check_split_groups():
    # an instance on half the ranks: reductions and reads stay in the group
    color = rank() % 2
    sub = MPI.COMM_WORLD.Split(color, rank())
    try:
        with Runtime(sub):
            amr, ba, dm = layout(2, "default")
            assert max(owners(dm)) == min(sub.Get_size(), len(ba)) - 1
            mf = amr.MultiFab(ba, dm, 1, 1)
            fill(mf, dformula, 2)
            mf.plus(float(color), 0, 1, 1)
            i, j = np.meshgrid(np.arange(N), np.arange(N), indexing="ij")
            G = dformula(i, j, 0, 0) + color
            close(mf.sum(0), float(G.sum()), "group sum")
            assert mf.max(0) == G.max()
            assert np.array_equal(mf[...], G)
            allg = sub.allgather(mf.sum(0))
            assert all(x == allg[0] for x in allg)
    finally:
        sub.Free()


run([check_reductions, check_tie_rules, check_nan_inf, check_nodal_unique, check_global_indexing,
     check_incomplete_boxarray, check_foreign_iterator, check_no_data, check_distribution_maps, check_split_groups])
