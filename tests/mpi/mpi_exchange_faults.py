"""A failure on one rank only inside a ghost exchange (BOXFAB_FAULT_EXCHANGE_RANK injects one where an
allocation could fail) raises on every rank, without a hang, and the next exchange works (run by
test_mpi.py on 1, 2 and 4 ranks)."""
import os

import numpy as np

import boxfab.space3d as amr
from mpi_harness import host, rank, run, size


def make():
    dom = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(15, 15, 15))
    ba = amr.BoxArray(dom)
    ba.max_size(8)
    mf = amr.MultiFab(ba, amr.DistributionMapping(ba), 1, 1)
    mf.set_val(0.0)
    for mfi in mf:  # valid cells: the global index i + 100 j + 10000 k; ghosts stay 0
        a = mf.array(mfi).to_xp()
        vb, fb = mfi.validbox(), mfi.fabbox()
        lo, hi, flo = vb.small_end, vb.big_end, fb.small_end
        i, j, k = np.meshgrid(*(np.arange(lo[d], hi[d] + 1) for d in range(3)), indexing="ij")
        s = tuple(slice(lo[d] - flo[d], hi[d] - flo[d] + 1) for d in range(3))
        v = (i + 100 * j + 10000 * k).astype(float)
        a[s + (0,)] = v if isinstance(a, np.ndarray) else __import__("cupy").asarray(v)
    return mf, amr.Periodicity(amr.IntVect(16, 16, 16))


def ghosts_right(mf):
    for mfi in mf:
        a = host(mf.array(mfi).to_xp())[..., 0]
        flo, fhi = mfi.fabbox().small_end, mfi.fabbox().big_end
        i, j, k = np.meshgrid(*(np.arange(flo[d], fhi[d] + 1) % 16 for d in range(3)), indexing="ij")
        if not np.array_equal(a, (i + 100 * j + 10000 * k).astype(float)):
            return False
    return True


def check_failure_on_one_rank_raises_everywhere():
    amr.initialize(["amrex.verbose=0"])
    try:
        mf, per = make()
        bad = size() - 1
        os.environ["BOXFAB_FAULT_EXCHANGE_RANK"] = str(bad)
        try:
            mf.fill_boundary(per)
        except (MemoryError, RuntimeError) as e:
            if size() > 1:
                assert "injected on rank" in str(e), str(e)
        else:
            # one rank: the exchange is not distributed, nothing to inject
            assert size() == 1, "the injected failure was not raised on this rank"
        finally:
            del os.environ["BOXFAB_FAULT_EXCHANGE_RANK"]
        mf.fill_boundary(per)  # the next exchange works on every rank
        assert ghosts_right(mf)
    finally:
        amr.finalize()


if __name__ == "__main__":
    run([check_failure_on_one_rank_raises_everywhere])
