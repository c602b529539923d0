"""The ghost exchange and the copy family across ranks (run by test_mpi.py).

fill_boundary, sum_boundary, override_sync, average_sync, parallel_copy and
parallel_add on 1D/2D/3D, cell and nodal data, periodic or not, several ghost
widths and box layouts (boxes smaller than the ghost width among them), with
DistributionMappings that put neighbours on the same and on other ranks.
Every result is checked on every rank against an independent NumPy model of
AMReX's semantics built from `global_formula` of the global index (copies
bitwise, sums within 1e-13 relative), and bitwise against the same operation
with every box on rank 0 (the one-rank plan order, no message).  Bad input
raises the same exception on every rank and leaves no rank waiting.
"""
import itertools
import os

import numpy as np

import boxfab
import boxfab.space1d as a1
import boxfab.space2d as a2
import boxfab.space3d as a3
from mpi_harness import gather_concat, global_formula, rank, run, size, world

MODS = {1: a1, 2: a2, 3: a3}
N = {1: 24, 2: 12, 3: 6}  # domain cells per direction
SENT = -7.0e9  # ghost cells nobody fills keep this


def amr_of(dim):
    return MODS[dim]


GPU = os.environ.get("BOXFAB_TEST_DEVICE") == "gpu"


def new_mf(amr, ba, dm, ncomp, ng, cls=None):
    """A MultiFab; on the GPU half (BOXFAB_TEST_DEVICE=gpu) in managed memory: the
    exchange runs the device kernels and buffers, NumPy still reads the data."""
    cls = cls or amr.MultiFab
    if GPU:
        return cls(ba, dm, ncomp, ng, amr.MFInfo().set_arena(amr.The_Managed_Arena()))
    return cls(ba, dm, ncomp, ng)


def ints(iv, dim):
    return [int(iv[d]) for d in range(dim)]


def make_ba(amr, dim, n, max_size, nodal):
    dom = amr.Box(amr.IntVect(*([0] * dim)), amr.IntVect(*([n - 1] * dim)))
    ba = amr.BoxArray(dom)
    ba.max_size(max_size)
    if nodal:
        ba.convert(amr.IntVect(*([1] * dim)))
    return ba


def dm_of(amr, nb, kind):
    p = size()
    if kind == "rr":  # round robin: neighbours mostly on other ranks
        ranks = [i % p for i in range(nb)]
    elif kind == "block":  # blocks: neighbours on the same and on other ranks
        ranks = [i * p // nb for i in range(nb)]
    elif kind == "rev":
        ranks = [(p - 1 - i * p // nb) for i in range(nb)]
    else:  # every box on rank 0: the one-rank order
        ranks = [0] * nb
    return amr.DistributionMapping(amr.Vector_int(ranks)), ranks


def boxes_of(ba, dim):
    out = []
    for i in range(len(ba)):
        b = ba.get(i)
        out.append((ints(b.small_end, dim), ints(b.big_end, dim)))
    return out


def pad3(v, fill):
    return list(v) + [fill] * (3 - len(v))


def idx_grid(lo, hi):
    """Index arrays (3, nx, ny, nz) of the points lo..hi (3D padded)."""
    return np.meshgrid(*[np.arange(lo[d], hi[d] + 1) for d in range(3)], indexing="ij")


def fab_values(lo, hi, ncomp, fn):
    i, j, k = idx_grid(pad3(lo, 0), pad3(hi, 0))
    return np.stack([fn(i, j, k, n) for n in range(ncomp)], axis=-1)


def local_fabs(mf, dim):
    """{global index: (fab lo, fab hi, view)} of this rank."""
    out = {}
    for mfi in mf:
        fb = mfi.fabbox()
        out[mfi.index] = (ints(fb.small_end, dim), ints(fb.big_end, dim), mf.array(mfi).to_numpy())
    return out


def gather_fabs(mf, dim):
    """{global index: copy of the fab} of every rank, on every rank."""
    mine = {i: v.copy() for i, (_, _, v) in local_fabs(mf, dim).items()}
    allp = world().allgather(mine)
    out = {}
    for d in allp:
        out.update(d)
    return out


def shifts_of(dim, period):
    rng = [range(-2, 3) if period[d] else [0] for d in range(dim)]
    return [tuple(period[d] * c[d] for d in range(dim)) for c in itertools.product(*rng)]


def isect(alo, ahi, blo, bhi):
    lo = [max(x, y) for x, y in zip(alo, blo)]
    hi = [min(x, y) for x, y in zip(ahi, bhi)]
    return (lo, hi) if all(l <= h for l, h in zip(lo, hi)) else None


def sl(lo, hi, flo):
    """Slices of the points lo..hi in a fab starting at flo (3D padded)."""
    lo3, hi3, f3 = pad3(lo, 0), pad3(hi, 0), pad3(flo, 0)
    return tuple(slice(lo3[d] - f3[d], hi3[d] - f3[d] + 1) for d in range(3))


def grow(lo, hi, g):
    return [x - g for x in lo], [x + g for x in hi]


def images(boxes, dim, period, i_lo, i_hi, src_grow=0):
    """(j, s, region) for every box j (grown by src_grow) and periodic shift s whose
    image (box_j + s) meets the region i_lo..i_hi."""
    out = []
    for j, (blo, bhi) in enumerate(boxes):
        glo, ghi = grow(blo, bhi, src_grow)
        for s in shifts_of(dim, period):
            r = isect(i_lo, i_hi, [x + y for x, y in zip(glo, s)], [x + y for x, y in zip(ghi, s)])
            if r:
                out.append((j, s, r))
    return out


def init_mf(mf, dim, ncomp, fn_valid, fn_ghost):
    """Valid points fn_valid(gi)(i, j, k, n), ghost points fn_ghost(gi)(...)."""
    boxes = boxes_of(mf.box_array(), dim)
    for gi, (flo, fhi, v) in local_fabs(mf, dim).items():
        v[...] = fab_values(flo, fhi, ncomp, fn_ghost(gi))
        vlo, vhi = boxes[gi]
        v[sl(vlo, vhi, flo)] = fab_values(vlo, vhi, ncomp, fn_valid(gi))


def wrapped_formula(dim, n, period):
    """global_formula of the index wrapped into the period (periodic directions)."""
    def fn(i, j, k, c):
        idx = [i, j, k]
        for d in range(dim):
            if period[d]:
                idx[d] = np.mod(idx[d], period[d])
        return global_formula(*idx, n=c)
    return fn


def box_formula(gi):
    """A value per box and point: copies of one point in different boxes differ."""
    return lambda i, j, k, c: global_formula(i, j, k, c) + 0.37 * (gi + 1)


CASES = []
for dim in (1, 2, 3):
    n = N[dim]
    for nodal in (False, True):
        for c, (max_size, ng) in enumerate(((n // 2, 1), (n // 3 if dim < 3 else 2, 2), (2, 3))):
            for periodic in (True, False):
                # round robin (neighbours on other ranks) and blocks (on the same and others)
                CASES.append((dim, nodal, max_size, ng, periodic, "rr" if (c + periodic + nodal) % 2 else "block"))


def case_setup(dim, nodal, max_size, periodic):
    amr = amr_of(dim)
    n = N[dim]
    ba = make_ba(amr, dim, n, max_size, nodal)
    period = [n] * dim if periodic else [0] * dim
    P = amr.Periodicity(amr.IntVect(*period)) if periodic else amr.Periodicity.non_periodic()
    return amr, n, ba, period, P


def assert_bitwise_same(a, b, what):
    assert a.keys() == b.keys(), what
    for k in a:
        va, vb = a[k].view(np.uint64), b[k].view(np.uint64)
        if not np.array_equal(va, vb):
            bad = np.argwhere(va != vb)[:5]
            raise AssertionError(f"{what}: box {k} differs from the one-rank order at {bad.tolist()}")


def run_both(dim, ba, ncomp, ng, dmk, setup, op):
    """Run `op(mf)` on a MultiFab with DM kind dmk and on one with every box on
    rank 0; check them bitwise equal; return (mf, the gathered fabs)."""
    amr = amr_of(dim)
    res = []
    for kind in (dmk, "zero"):
        dm, _ = dm_of(amr, len(ba), kind)
        mf = new_mf(amr, ba, dm, ncomp, ng)
        setup(mf)
        op(mf)
        res.append((mf, gather_fabs(mf, dim)))
    assert_bitwise_same(res[0][1], res[1][1], "distributed vs one-rank order")
    return res[0]


# ---- fill_boundary -----------------------------------------------------------------


def check_fill_boundary():
    for dim, nodal, max_size, ng, periodic, dmk in CASES:
        amr, n, ba, period, P = case_setup(dim, nodal, max_size, periodic)
        ncomp = 2
        f = wrapped_formula(dim, n, period)
        hi_dom = n if nodal else n - 1
        for variant in ("all", "cross", "comp1", "layers"):
            def setup(mf):
                init_mf(mf, dim, ncomp, lambda gi: f, lambda gi: (lambda i, j, k, c: SENT + 0 * i))

            def op(mf):
                if variant == "all":
                    mf.fill_boundary(P)
                elif variant == "cross":
                    mf.fill_boundary(P, True)
                elif variant == "comp1":
                    mf.fill_boundary(1, 1, P)
                else:
                    mf.fill_boundary(amr.IntVect(*([1] * dim)), P)

            mf, allf = run_both(dim, ba, ncomp, ng, dmk, setup, op)
            boxes = boxes_of(ba, dim)
            layers = 1 if variant == "layers" else ng
            for gi, (flo, fhi, v) in local_fabs(mf, dim).items():
                vlo, vhi = boxes[gi]
                i, j, k = idx_grid(pad3(flo, 0), pad3(fhi, 0))
                idx = [i, j, k]
                inside = np.ones(i.shape, bool)  # a source exists (domain, or periodic)
                near = np.ones(i.shape, bool)
                valid = np.ones(i.shape, bool)
                for d in range(dim):
                    if not period[d]:
                        inside &= (idx[d] >= 0) & (idx[d] <= hi_dom)
                    near &= (idx[d] >= vlo[d] - layers) & (idx[d] <= vhi[d] + layers)
                    valid &= (idx[d] >= vlo[d]) & (idx[d] <= vhi[d])
                for c in range(ncomp):
                    want = np.where(valid | (inside & near), f(i, j, k, c), SENT)
                    if variant == "comp1" and c == 0:
                        want = np.where(valid, f(i, j, k, c), SENT)
                    got = v[..., c]
                    assert np.array_equal(got.view(np.uint64), want.view(np.uint64)), \
                        (dim, nodal, max_size, ng, periodic, dmk, variant, gi, c)


def check_fill_boundary_bytes():
    """The engine's counters: bytes sent = the ghost bytes that cross ranks
    (counted here from the layout), at most one message per neighbour rank."""
    for dim in (1, 2, 3):
        amr, n, ba, period, P = case_setup(dim, False, N[dim] // 2 if dim == 3 else N[dim] // 3, True)
        for dmk in ("rr", "block"):
            dm, ranks = dm_of(amr, len(ba), dmk)
            ng = 1
            mf = new_mf(amr, ba, dm, 1, ng)
            mf.set_val(1.0)
            boxes = boxes_of(ba, dim)
            me = rank()
            want_bytes, peers = 0, set()
            for i, (vlo, vhi) in enumerate(boxes):
                if ranks[i] == me:
                    continue
                glo, ghi = grow(vlo, vhi, ng)
                for j, s, (lo, hi) in images(boxes, dim, period, glo, ghi):
                    if ranks[j] != me or (j == i and not any(s)):
                        continue
                    want_bytes += 8 * int(np.prod([h - l + 1 for l, h in zip(lo, hi)]))
                    peers.add(ranks[i])
            mf.fill_boundary(P)
            st = boxfab._core._exchange_stats()
            if size() > 1:
                assert st["bytes_sent"] == want_bytes, (dim, dmk, st, want_bytes)
                assert st["messages_sent"] == len(peers), (dim, dmk, st, peers)
            tot = world().allreduce(st["bytes_sent"] if size() > 1 else 0)
            assert tot == world().allreduce(st["bytes_received"] if size() > 1 else 0)


# ---- sum_boundary, override_sync, average_sync -----------------------------------------


def check_sum_boundary():
    for dim, nodal, max_size, ng, periodic, dmk in CASES:
        amr, n, ba, period, P = case_setup(dim, nodal, max_size, periodic)
        boxes = boxes_of(ba, dim)
        variants = ((ng, 0), (ng, 1 if ng > 1 else 0)) if dmk == "rr" else ((ng, 0),)
        for sng, dng in variants:
            def setup(mf):
                init_mf(mf, dim, 1, box_formula, box_formula)

            def op(mf):
                if (sng, dng) == (ng, 0):
                    mf.sum_boundary(P)
                else:
                    mf.sum_boundary(0, 1, amr.IntVect(*([sng] * dim)), amr.IntVect(*([dng] * dim)), P)

            mf, allf = run_both(dim, ba, 1, ng, dmk, setup, op)
            for gi, (flo, fhi, v) in local_fabs(mf, dim).items():
                vlo, vhi = boxes[gi]
                want = fab_values(flo, fhi, 1, box_formula(gi))
                tlo, thi = grow(vlo, vhi, dng)
                acc = np.zeros_like(want)
                for j, s, (lo, hi) in images(boxes, dim, period, tlo, thi, src_grow=sng):
                    jlo, jhi = grow(*boxes[j], ng)
                    slo = [x - y for x, y in zip(lo, s)]
                    shi = [x - y for x, y in zip(hi, s)]
                    acc[sl(lo, hi, flo)] += fab_values(slo, shi, 1, box_formula(j))
                t = sl(tlo, thi, flo)
                want[t] = acc[t]
                assert np.allclose(v, want, rtol=1e-13, atol=0), (dim, nodal, max_size, ng, periodic, dmk, sng, dng, gi)


def owner_model(boxes, dim, period, gi, vlo, vhi, flo, fhi):
    """AMReX's owner of every valid point of box gi: the image in the lowest box,
    there the one at the lowest position (z, then y, then x)."""
    want = fab_values(flo, fhi, 1, box_formula(gi))
    best = {}
    for j, s, (lo, hi) in images(boxes, dim, period, vlo, vhi):
        key = (j, tuple(-x for x in reversed(s)))
        for p in itertools.product(*[range(lo[d], hi[d] + 1) for d in range(dim)]):
            if p not in best or key < best[p][0]:
                best[p] = (key, j, s)
    for p, (_, j, s) in best.items():
        q = [x - y for x, y in zip(p, s)]
        q3 = pad3(q, 0)
        want[tuple(x - y for x, y in zip(pad3(list(p), 0), pad3(flo, 0)))] = box_formula(j)(*q3, 0)
    return want


def check_syncs():
    for dim, nodal, max_size, ng, periodic, dmk in CASES:
        if not nodal or ng == 3 and dim == 3:
            continue
        amr, n, ba, period, P = case_setup(dim, nodal, max_size, periodic)
        boxes = boxes_of(ba, dim)

        def setup(mf):
            init_mf(mf, dim, 1, box_formula, box_formula)

        mf, _ = run_both(dim, ba, 1, ng, dmk, setup, lambda m: m.override_sync(P))
        for gi, (flo, fhi, v) in local_fabs(mf, dim).items():
            vlo, vhi = boxes[gi]
            want = owner_model(boxes, dim, period, gi, vlo, vhi, flo, fhi)
            assert np.array_equal(v.view(np.uint64), want.view(np.uint64)), ("override_sync", dim, max_size, periodic, dmk, gi)
        mf, _ = run_both(dim, ba, 1, ng, dmk, setup, lambda m: m.average_sync(P))
        for gi, (flo, fhi, v) in local_fabs(mf, dim).items():
            vlo, vhi = boxes[gi]
            want = fab_values(flo, fhi, 1, box_formula(gi))
            acc = np.zeros_like(want)
            cnt = np.zeros_like(want)
            for j, s, (lo, hi) in images(boxes, dim, period, vlo, vhi):
                slo = [x - y for x, y in zip(lo, s)]
                shi = [x - y for x, y in zip(hi, s)]
                acc[sl(lo, hi, flo)] += fab_values(slo, shi, 1, box_formula(j))
                cnt[sl(lo, hi, flo)] += 1
            t = sl(vlo, vhi, flo)
            want[t] = acc[t] / cnt[t]
            assert np.allclose(v, want, rtol=1e-13, atol=0), ("average_sync", dim, max_size, periodic, dmk, gi)


# ---- parallel_copy / parallel_add --------------------------------------------------------


def check_parallel_copy():
    for dim, nodal, max_size, ng, periodic, dmk in CASES:
        if ng == 3:
            continue
        amr, n, sba, period, P = case_setup(dim, nodal, max_size, periodic)
        dba = make_ba(amr, dim, n, max(2, max_size // 2 + 1), nodal)  # another layout
        sboxes, dboxes = boxes_of(sba, dim), boxes_of(dba, dim)
        f = wrapped_formula(dim, n, period)
        sdm, _ = dm_of(amr, len(sba), "rev")
        src = new_mf(amr, sba, sdm, 2, ng)
        init_mf(src, dim, 2, lambda gi: f, lambda gi: (lambda i, j, k, c: SENT + 0 * i))
        src.fill_boundary(P)  # ghosts inside the domain (or periodic) now hold f too
        for what, sng, dng in (("copy", 0, 1), ("copy", 1, 1), ("add", 1, 0)):
            def setup(mf):
                init_mf(mf, dim, 2, lambda gi: (lambda i, j, k, c: -3.0 + 0 * i),
                        lambda gi: (lambda i, j, k, c: -5.0 + 0 * i))

            def op(mf):
                if what == "copy":
                    mf.parallel_copy(src, 1, 0, 1, sng, dng, P)
                else:
                    mf.parallel_add(src, 0, 1, 1, sng, dng, P)

            mf, _ = run_both(dim, dba, 2, ng, dmk, setup, op)
            for gi, (flo, fhi, v) in local_fabs(mf, dim).items():
                vlo, vhi = dboxes[gi]
                want = fab_values(flo, fhi, 2, lambda i, j, k, c: -5.0 + 0 * i)
                want[sl(vlo, vhi, flo)] = -3.0
                cnt = np.zeros(want.shape[:3])
                tlo, thi = grow(vlo, vhi, dng)
                for j, s, (lo, hi) in images(sboxes, dim, period, tlo, thi, src_grow=sng):
                    cnt[sl(lo, hi, flo)] += 1
                # a source ghost point outside a non-periodic domain holds SENT (no
                # fill_boundary source), every other point f: the same for all its images
                i, j, k = idx_grid(pad3(flo, 0), pad3(fhi, 0))
                inside = np.ones(i.shape, bool)
                for d, a in enumerate((i, j, k)[:dim]):
                    if not period[d]:
                        inside &= (a >= 0) & (a <= (n if nodal else n - 1))
                if what == "copy":
                    val = np.where(inside, f(i, j, k, 1), SENT)
                    want[..., 0] = np.where(cnt > 0, val, want[..., 0])
                    assert np.array_equal(v.view(np.uint64), want.view(np.uint64)), (dim, nodal, max_size, ng, periodic, dmk, sng, dng, gi)
                else:
                    val = np.where(inside, f(i, j, k, 0), SENT)
                    want[..., 1] = want[..., 1] + cnt * val
                    assert np.allclose(v, want, rtol=1e-13, atol=0), (dim, nodal, max_size, ng, periodic, dmk, sng, dng, gi)


def check_parallel_copy_same_mf():
    """src is dst (shifted periodic copies onto itself): reads the values before the call."""
    dim = 2
    amr, n, ba, period, P = case_setup(dim, False, 4, True)

    def setup(mf):
        init_mf(mf, dim, 1, box_formula, box_formula)

    run_both(dim, ba, 1, 1, "rr", setup, lambda m: m.parallel_copy(m, 0, 0, 1, 1, 1, P))
    run_both(dim, ba, 1, 1, "block", setup, lambda m: m.parallel_add(m, 0, 0, 1, 1, 1, P))


def check_int_multifab():
    dim = 3
    amr, n, ba, period, P = case_setup(dim, False, 2, True)
    dm, _ = dm_of(amr, len(ba), "rr")
    mf = new_mf(amr, ba, dm, 1, 2, amr.iMultiFab)
    boxes = boxes_of(ba, dim)
    for gi, (flo, fhi, v) in local_fabs(mf, dim).items():
        v[...] = -1
        vlo, vhi = boxes[gi]
        i, j, k = idx_grid(pad3(vlo, 0), pad3(vhi, 0))
        v[sl(vlo, vhi, flo)] = (i + 100 * j + 10000 * k)[..., None]
    mf.fill_boundary(P)
    for gi, (flo, fhi, v) in local_fabs(mf, dim).items():
        i, j, k = idx_grid(pad3(flo, 0), pad3(fhi, 0))
        want = np.mod(i, n) + 100 * np.mod(j, n) + 10000 * np.mod(k, n)
        assert np.array_equal(v[..., 0], want)


def check_errors():
    """Bad input: the same exception on every rank, and the next exchange works."""
    amr = a2
    dim = 2
    n = 8
    ba = make_ba(amr, dim, n, 4, False)
    dm, _ = dm_of(amr, len(ba), "rr")
    mf = new_mf(amr, ba, dm, 1, 1)
    nba = make_ba(amr, dim, n, 4, True)
    nmf = new_mf(amr, nba, dm, 1, 1)
    imf = new_mf(amr, ba, dm, 1, 1, amr.iMultiFab)
    P = amr.Periodicity(amr.IntVect(n, n))
    bad = [
        (lambda: mf.fill_boundary(1, 1, P), IndexError),
        (lambda: mf.fill_boundary(amr.IntVect(2, 2), P), IndexError),
        (lambda: mf.sum_boundary(0, 2, P), IndexError),
        (lambda: mf.parallel_copy(nmf), TypeError),
        (lambda: mf.parallel_copy(imf), TypeError),
        (lambda: mf.parallel_add(mf, 0, 0, 1, 3, 0, P), IndexError),
        (lambda: mf.fill_boundary(amr.Periodicity(amr.IntVect(1, 1))), ValueError),
    ]
    for fn, exc in bad:
        got = None
        try:
            fn()
        except Exception as e:  # noqa: BLE001
            got = type(e).__name__
        names = world().allgather(got)
        assert names == [exc.__name__] * size(), (names, exc.__name__)
    mf.set_val(2.0)
    mf.fill_boundary(P)
    for gi, (flo, fhi, v) in local_fabs(mf, dim).items():
        assert (v == 2.0).all()


def check_empty_rank():
    """A rank without boxes takes part without hanging (DM naming rank 0 only)."""
    amr = a3
    ba = make_ba(amr, 3, 8, 4, False)
    dm, _ = dm_of(amr, len(ba), "zero")
    mf = new_mf(amr, ba, dm, 1, 1)
    mf.set_val(1.0)
    mf.fill_boundary(amr.Periodicity(amr.IntVect(8, 8, 8)))
    mf.sum_boundary(amr.Periodicity(amr.IntVect(8, 8, 8)))
    n = gather_concat(np.array([len(local_fabs(mf, 3))]))
    assert n.sum() == len(ba)


def main():
    a3.initialize(["amrex.verbose=0"])
    try:
        run([check_fill_boundary, check_fill_boundary_bytes, check_sum_boundary, check_syncs, check_parallel_copy,
             check_parallel_copy_same_mf, check_int_multifab, check_errors, check_empty_rank])
    finally:
        a3.finalize()


if __name__ == "__main__":
    main()
