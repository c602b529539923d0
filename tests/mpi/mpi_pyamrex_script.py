"""A pyAMReX user's script (pyAMReX's API only, with mpi4py): build a MultiFab,
fill it from a formula of the cell index, read and write it with global
indexing, reduce it, and print a digest of everything it saw.  The digest must
be the same at 1, 2 and 4 ranks (tests/python/runtime/test_mpi_script.py): the data
are multiples of 1/8 small enough that every sum is exact in any order.

Runs under pyAMReX itself (``import amrex.space3d``) or boxfab."""
import hashlib
import sys

import numpy as np
from mpi4py import MPI

try:
    import amrex.space3d as amr
except ImportError:
    import boxfab.space3d as amr


def gpu_sync():
    """As every CuPy user of boxfab (or pyAMReX) on a GPU: wait for CuPy's writes before the library's
    operations, which run on their own stream, read the data."""
    cupy = sys.modules.get("cupy")
    if cupy is not None:
        cupy.cuda.Device().synchronize()


def formula(i, j, k, n):
    return ((3 * i + 5 * j + 7 * k + 11 * n) % 64) / 8.0 - 2.0


def main():
    comm = MPI.COMM_WORLD
    amr.initialize(["amrex.verbose=0"])
    seen = []
    try:
        domain = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(31, 23, 15))
        ba = amr.BoxArray(domain)
        ba.max_size(8)
        dm = amr.DistributionMapping(ba)
        mf = amr.MultiFab(ba, dm, 2, 1)
        mf.set_val(0.0)
        # fill the valid cells of the local boxes
        for mfi in mf:
            bx = mfi.validbox()
            glo = mfi.fabbox().small_end
            arr = mf.array(mfi).to_xp()  # [x, y, z, comp], from the fab's lower corner (CuPy on a GPU)
            lo, hi = bx.small_end, bx.big_end
            i, j, k, n = np.meshgrid(np.arange(lo[0], hi[0] + 1), np.arange(lo[1], hi[1] + 1),
                                     np.arange(lo[2], hi[2] + 1), np.arange(2), indexing="ij")
            values = formula(i, j, k, n)
            if not isinstance(arr, np.ndarray):
                import cupy
                values = cupy.asarray(values)
            arr[lo[0] - glo[0]:hi[0] - glo[0] + 1, lo[1] - glo[1]:hi[1] - glo[1] + 1,
                lo[2] - glo[2]:hi[2] - glo[2] + 1, :] = values
        gpu_sync()  # CuPy wrote on its stream: done before the MultiFab's own operations read the data

        # global indexing: every rank gets the whole array
        whole = mf[...]
        seen.append(("shape", whole.shape, mf.shape))
        seen.append(("whole", hashlib.sha256(np.ascontiguousarray(whole).tobytes()).hexdigest()))
        seen.append(("slice", mf[3:9, 2, :, 1].tolist()))
        seen.append(("point", float(mf[17, 11, 5, 0])))
        # writes: every rank writes its own boxes
        mf[4:12, 4:6, 4:5, 0] = 7.5
        mf[20, :, 3, 1] = np.arange(24) / 4.0
        # one extreme cell each (pyAMReX picks any cell among ties)
        mf[13, 7, 9, 1] = 100.0
        mf[2, 19, 11, 0] = -50.0
        seen.append(("after write", hashlib.sha256(np.ascontiguousarray(mf[...]).tobytes()).hexdigest()))

        # reductions (global)
        seen.append(("sum", mf.sum(0), mf.sum(1)))
        seen.append(("min max", mf.min(0), mf.max(1), mf.min(comp=1, nghost=1)))
        seen.append(("index", tuple(mf.minIndex(0, 0)), tuple(mf.maxIndex(1, 0))))
        seen.append(("norms", mf.norm0(0, 0, False, False), mf.norminf(1, 0, False, False), mf.norm1(0, 0, False),
                     mf.norm2(1), list(mf.norm1([0, 1], 0, False))))
        seen.append(("dot", amr.MultiFab.dot(mf, 0, mf, 1, 1, 0), amr.MultiFab.dot(mf, 0, 2, 0)))
        seen.append(("nan inf", mf.contains_nan(), mf.contains_inf()))
        # the ranks' parts add up to the whole
        seen.append(("local parts", comm.allreduce(mf.sum(0, local=True))))
        # operations, then reductions again
        mf.mult(0.5, 0, 1)
        mf.plus(1.0, 1, 1)
        other = amr.MultiFab(ba, dm, 2, 1)
        other.set_val(0.25)
        amr.MultiFab.saxpy(mf, 2.0, other, 0, 0, 2, 0)
        seen.append(("after ops", mf.sum(0), mf.sum(1), mf.max(0), mf.norm2(0)))
        seen.append(("boxes", ba.size, mf.size, len(dm.ProcessorMap())))

        # inexact data: sums that depend on the order of the additions (the same
        # from run to run at a given number of ranks, close across rank counts)
        wavy = amr.MultiFab(ba, dm, 1, 0)
        for mfi in wavy:
            bx = mfi.validbox()
            lo, hi = bx.small_end, bx.big_end
            i, j, k = np.meshgrid(*(np.arange(lo[d], hi[d] + 1) for d in range(3)), indexing="ij")
            values = np.sin(0.1 * i + 0.2 * j + 0.3 * k)[..., None]
            arr = wavy.array(mfi).to_xp()
            if not isinstance(arr, np.ndarray):
                import cupy
                values = cupy.asarray(values)
            arr[...] = values
        gpu_sync()
        inexact = [wavy.sum(0), wavy.norm1(0, 0, False), wavy.norm2(0), amr.MultiFab.dot(wavy, 0, mf, 0, 1, 0)]
    finally:
        amr.finalize()

    digest = hashlib.sha256(repr(seen).encode()).hexdigest()
    digests = comm.allgather(digest)
    assert all(d == digest for d in digests), f"the ranks disagree: {digests}"
    if comm.Get_rank() == 0:
        for item in seen:
            print(*item)
        print("DIGEST", digest)
        print("INEXACT", " ".join(repr(float(x)) for x in inexact))
        print(f"OK 1 checks on {comm.Get_size()} ranks", flush=True)


main()
