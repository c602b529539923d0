"""One array over a whole MultiFab across ranks (run by test_mpi.py at 1, 2 and 4 ranks): each
rank's stacked view holds its own boxes in MFIter order; a rank without boxes gets an empty array
of the shape every box shares (or ValueError when the boxes differ in shape); a stencil step over
the stacked arrays of every rank plus fill_boundary equals the same stencil on the global array
with periodic np.roll.  Works on host memory and, in the GPU half, on device memory (CuPy)."""
import numpy as np

import boxfab.space3d as amr
from mpi_harness import host, rank, run, size, sync, world

N, BS = 16, 8


def layout(pmap=None):
    dom = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(N - 1, N - 1, N - 1))
    ba = amr.BoxArray(dom)
    ba.max_size(BS)
    dm = amr.DistributionMapping(ba) if pmap is None else amr.DistributionMapping(pmap(ba.size))
    return ba, dm


def check_round_robin():
    ba, dm = layout(lambda nb: [b % size() for b in range(nb)])
    mf = amr.MultiFab(ba, dm, 2, 1)
    mine = [b for b in range(ba.size) if b % size() == rank()]
    for mfi in mf:
        mf.array(mfi).to_xp()[...] = mfi.index + 0.5
    sync()
    s = mf.stacked()
    assert s.shape == (len(mine), 2, 10, 10, 10), s.shape
    f = host(mf.to_xp_stacked())
    for j, b in enumerate(mine):
        assert (f[j] == b + 0.5).all()


def check_rank_without_boxes():
    ba, dm = layout(lambda nb: [0] * nb)
    mf = amr.MultiFab(ba, dm, 3, 2)
    mf.set_val(1.0)
    s = mf.stacked()
    want = ba.size if rank() == 0 else 0
    assert s.nbox == want and s.shape == (want, 3, 12, 12, 12), s.shape
    f = host(mf.to_xp_stacked())
    assert f.shape == (want, 12, 12, 12, 3) and (f == 1.0).all()
    assert mf.to_numpy_stacked(copy=True).shape == f.shape
    h = s.to_host()
    assert h.shape == s.shape
    # boxes of two shapes, all on rank 0: the other ranks have no shape to give
    dom = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(23, 7, 7))
    ba2 = amr.BoxArray(dom)
    ba2.max_size(16)
    m2 = amr.MultiFab(ba2, amr.DistributionMapping([0] * ba2.size), 1, 0)
    try:
        m2.stacked()
    except ValueError as e:
        msg = str(e)
        if rank() == 0:
            assert "box 1 (local 1) is 8x8x8, box 0 (local 0) is 16x8x8" in msg, msg
        else:
            assert "this rank holds no boxes" in msg and "box 1 is 8x8x8, box 0 is 16x8x8" in msg, msg
    else:
        raise AssertionError("no ValueError")


def check_stencil_across_ranks():
    ba, dm = layout()
    rng = np.random.default_rng(7)
    g = rng.standard_normal((N, N, N))  # the same on every rank (same seed)
    old = amr.MultiFab(ba, dm, 1, 1)
    new = amr.MultiFab(ba, dm, 1, 1)
    for mfi in old:
        lo, hi = list(mfi.validbox().small_end), list(mfi.validbox().big_end)
        v = old.array(mfi).to_xp()
        block = g[lo[0]:hi[0] + 1, lo[1]:hi[1] + 1, lo[2]:hi[2] + 1]
        if isinstance(v, np.ndarray):
            v[1:-1, 1:-1, 1:-1, 0] = block
        else:
            import cupy
            v[1:-1, 1:-1, 1:-1, 0] = cupy.asarray(block)
    sync()
    old.fill_boundary(amr.Periodicity(amr.IntVect(N, N, N)))
    u = old.to_xp_stacked()[..., 0]
    w = new.to_xp_stacked()[..., 0]
    sync()
    w[:, 1:-1, 1:-1, 1:-1] = (u[:, 2:, 1:-1, 1:-1] + u[:, :-2, 1:-1, 1:-1] + u[:, 1:-1, 2:, 1:-1]
                              + u[:, 1:-1, :-2, 1:-1] + u[:, 1:-1, 1:-1, 2:] + u[:, 1:-1, 1:-1, :-2]
                              - 6.0 * u[:, 1:-1, 1:-1, 1:-1])
    sync()
    ref = sum(np.roll(g, s, axis=a) for a in range(3) for s in (1, -1)) - 6.0 * g
    wh = host(w)
    for j, mfi in enumerate(new):
        lo, hi = list(mfi.validbox().small_end), list(mfi.validbox().big_end)
        assert np.allclose(wh[j, 1:-1, 1:-1, 1:-1], ref[lo[0]:hi[0] + 1, lo[1]:hi[1] + 1, lo[2]:hi[2] + 1],
                           rtol=0, atol=1e-12)
    # the global sum of the Laplacian of a periodic field is 0 (every rank, collective)
    assert abs(new.sum(0)) < 1e-9
    world().Barrier()


if __name__ == "__main__":
    amr.initialize(["amrex.verbose=0"])
    run([check_round_robin, check_rank_without_boxes, check_stencil_across_ranks])
    amr.finalize()
