"""Review of the compiled pack/unpack of the distributed exchange (run by test_mpi.py).

Copies between MultiFabs whose fabs differ in shape (source and destination of
different ghost widths and component counts), at nonzero source and
destination components, through one plan used by sources of two ghost widths
(two compiled forms of one plan), for double and int data, with and without
staging (src is dst).  Each result is checked bitwise against the same call
with every box on rank 0 (no message) and against a NumPy model of the values.
"""
import os

import numpy as np

import boxfab.space2d as a2
import boxfab.space3d as a3
from mpi_harness import global_formula, run, size, world

N = int(os.environ.get("REVIEW_N", "8"))  # cells per direction (larger: the threaded exchange path)
SENT = -7.0e9


def dm_of(amr, nb, kind):
    p = size()
    if kind == "rr":
        ranks = [i % p for i in range(nb)]
    elif kind == "rev":
        ranks = [(p - 1 - i * p // nb) for i in range(nb)]
    else:
        ranks = [0] * nb
    return amr.DistributionMapping(amr.Vector_int(ranks))


def hostmem(amr):
    """Host memory whatever BOXFAB_TEST_DEVICE says: these checks are about the host exchange's
    compiled pack/unpack (device memory takes the element-wise path, which mpi_exchange.py covers on
    the GPU), and they read the data through NumPy views."""
    return amr.MFInfo().set_arena(amr.The_Cpu_Arena())


def make_ba(amr, dim, max_size):
    ba = amr.BoxArray(amr.Box(amr.IntVect(*([0] * dim)), amr.IntVect(*([N - 1] * dim))))
    ba.max_size(max_size)
    return ba


def f_wrapped(i, j, k, c):
    return global_formula(np.mod(i, N), np.mod(j, N), np.mod(k, N), c)


def fabs(mf):
    out = {}
    for mfi in mf:
        fb = mfi.fabbox()
        vb = mfi.validbox()
        dim = len(fb.small_end)

        def p3(iv):
            return [int(iv[d]) if d < dim else 0 for d in range(3)]

        out[mfi.index] = (p3(fb.small_end), p3(vb.small_end), p3(vb.big_end), mf.array(mfi).to_numpy())
    return out


def gather(mf):
    mine = {i: v.copy() for i, (_, _, _, v) in fabs(mf).items()}
    out = {}
    for d in world().allgather(mine):
        out.update(d)
    return out


def init(mf, scale, ints):
    """Valid points f of the wrapped global index (times scale), ghosts SENT (or -1 for ints)."""
    for gi, (flo, vlo, vhi, v) in fabs(mf).items():
        v[...] = -1 if ints else SENT
        nx, ny, nz, nc = v.shape
        i, j, k = np.meshgrid(*[np.arange(vlo[d], vhi[d] + 1) for d in range(3)], indexing="ij")
        s = tuple(slice(vlo[d] - flo[d], vhi[d] - flo[d] + 1) for d in range(3))
        for c in range(nc):
            if ints:
                v[s + (c,)] = (np.mod(i, N) + 10 * np.mod(j, N) + 100 * np.mod(k, N)) * scale + 1000 * c
            else:
                v[s + (c,)] = f_wrapped(i, j, k, c) * scale


def same(a, b, what):
    assert a.keys() == b.keys(), what
    for k in a:
        x, y = a[k], b[k]
        if x.dtype == np.float64:
            x, y = x.view(np.uint64), y.view(np.uint64)
        assert np.array_equal(x, y), (what, k, np.argwhere(x != y)[:5].tolist())


def check_copy_different_shapes():
    """parallel_copy / parallel_add: src ngrow 2, 3 comps, max_size 4; dst ngrow 1, 4 comps, max_size 3;
    scomp 1, dcomp 2, ncomp 2; src_ng 1 (periodic): every copied point, ghost ones included, against
    the model, and bitwise against the one-rank run."""
    for amr, dim in ((a2, 2), (a3, 3)):
        P = amr.Periodicity(amr.IntVect(*([N] * dim)))
        sba, dba = make_ba(amr, dim, 4), make_ba(amr, dim, 3)
        for ints in (False, True):
            cls = amr.iMultiFab if ints else amr.MultiFab
            for op in ("copy", "add"):
                res = []
                for kind in ("rr", "zero"):
                    sdm, ddm = dm_of(amr, len(sba), "rev" if kind == "rr" else kind), dm_of(amr, len(dba), kind)
                    src = cls(sba, sdm, 3, 2, hostmem(amr))
                    init(src, 1, ints)
                    src.fill_boundary(P)  # every source ghost holds the wrapped value
                    src1 = cls(sba, sdm, 3, 1, hostmem(amr))  # the same plan (same ba, dm, src_ng), another fab shape
                    init(src1, 3, ints)
                    src1.fill_boundary(P)
                    dst = cls(dba, ddm, 4, 1, hostmem(amr))
                    init(dst, 7, ints)
                    if op == "copy":
                        dst.parallel_copy(src, 1, 2, 2, 1, 1, P)
                        first = gather(dst)
                        dst.parallel_copy(src1, 1, 0, 2, 1, 1, P)
                    else:
                        dst.parallel_add(src, 1, 2, 2, 1, 0, P)
                        first = gather(dst)
                        dst.parallel_add(src1, 1, 0, 2, 1, 0, P)
                    res.append((first, gather(dst), dst))
                same(res[0][0], res[1][0], ("first", dim, ints, op))
                same(res[0][1], res[1][1], ("second", dim, ints, op))
                if op == "add":
                    continue  # the model of the sums: check_add_counts
                for gi, (flo, vlo, vhi, v) in fabs(res[0][2]).items():
                    lo = [vlo[d] - (1 if d < dim else 0) for d in range(3)]
                    hi = [vhi[d] + (1 if d < dim else 0) for d in range(3)]
                    i, j, k = np.meshgrid(*[np.arange(lo[d], hi[d] + 1) for d in range(3)], indexing="ij")
                    s = tuple(slice(lo[d] - flo[d], hi[d] - flo[d] + 1) for d in range(3))

                    def val(c, scale):
                        if ints:
                            return (np.mod(i, N) + 10 * np.mod(j, N) + 100 * np.mod(k, N)) * scale + 1000 * c
                        return f_wrapped(i, j, k, c) * scale

                    # first call: dst comps 2, 3 <- src comps 1, 2; second: dst comps 0, 1 <- src1 comps 1, 2
                    for c, w in {2: val(1, 1), 3: val(2, 1), 0: val(1, 3), 1: val(2, 3)}.items():
                        got = v[s + (c,)]
                        assert np.array_equal(got, w.astype(got.dtype)), ("copy model", dim, ints, gi, c)


def check_add_counts():
    """parallel_add with src_ng 1 onto valid points: each point gets one addition per source image
    (box grown by 1, periodic shifts), counted by a NumPy model; int data so the sums are exact."""
    for amr, dim in ((a2, 2), (a3, 3)):
        P = amr.Periodicity(amr.IntVect(*([N] * dim)))
        sba, dba = make_ba(amr, dim, 4), make_ba(amr, dim, 3)
        sboxes = [([int(sba.get(b).small_end[d]) for d in range(dim)], [int(sba.get(b).big_end[d]) for d in range(dim)])
                  for b in range(len(sba))]
        res = []
        for kind in ("rr", "zero"):
            sdm, ddm = dm_of(amr, len(sba), "rev" if kind == "rr" else kind), dm_of(amr, len(dba), kind)
            src = amr.iMultiFab(sba, sdm, 3, 2, hostmem(amr))
            init(src, 1, True)
            src.fill_boundary(P)
            dst = amr.iMultiFab(dba, ddm, 4, 1, hostmem(amr))
            dst.set_val(5)
            dst.parallel_add(src, 2, 1, 1, 1, 0, P)
            res.append((gather(dst), dst))
        same(res[0][0], res[1][0], ("add", dim))
        for gi, (flo, vlo, vhi, v) in fabs(res[0][1]).items():
            i, j, k = np.meshgrid(*[np.arange(vlo[d], vhi[d] + 1) for d in range(3)], indexing="ij")
            idx = (i, j, k)
            cnt = np.zeros(i.shape, int)
            shifts = np.array(np.meshgrid(*[[-N, 0, N]] * dim, indexing="ij")).reshape(dim, -1).T
            for blo, bhi in sboxes:
                for sh in shifts:
                    inside = np.ones(i.shape, bool)
                    for d in range(dim):
                        inside &= (idx[d] >= blo[d] - 1 + sh[d]) & (idx[d] <= bhi[d] + 1 + sh[d])
                    cnt += inside
            s = tuple(slice(vlo[d] - flo[d], vhi[d] - flo[d] + 1) for d in range(3))
            w = (np.mod(i, N) + 10 * np.mod(j, N) + 100 * np.mod(k, N)) + 1000 * 2
            assert np.array_equal(v[s + (1,)], 5 + cnt * w), ("add model", dim, gi)
            for c in (0, 2, 3):
                assert (v[..., c] == 5).all(), ("untouched comp", dim, gi, c)


def check_self_copy_staged():
    """src is dst (staged: a snapshot is the source) at scomp 2 -> dcomp 0 on an iMultiFab and a
    MultiFab: bitwise the one-rank result."""
    for cls_name in ("MultiFab", "iMultiFab"):
        amr, dim = a3, 3
        P = amr.Periodicity(amr.IntVect(*([N] * dim)))
        ba = make_ba(amr, dim, 4)
        res = []
        for kind in ("rr", "zero"):
            mf = getattr(amr, cls_name)(ba, dm_of(amr, len(ba), kind), 3, 2, hostmem(amr))
            init(mf, 1, cls_name == "iMultiFab")
            mf.parallel_copy(mf, 2, 0, 1, 1, 2, P)
            mf.sum_boundary(1, 2, P)
            res.append(gather(mf))
        same(res[0], res[1], ("self", cls_name))


def main():
    a3.initialize(["amrex.verbose=0"])
    try:
        run([check_copy_different_shapes, check_add_counts, check_self_copy_staged])
    finally:
        a3.finalize()


if __name__ == "__main__":
    main()
