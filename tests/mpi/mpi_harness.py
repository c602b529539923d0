"""The harness of boxfab's MPI programs (tests/mpi/mpi_*.py).

Each program is run by tests/python/runtime/test_mpi.py under ``mpirun -n N`` (N = 1,
2, 4) and calls ``run(checks)``: every rank runs every check in order; a
check that fails on any rank prints its traceback (with the rank) and aborts
the whole job (``MPI.COMM_WORLD.Abort``), so that a failure never leaves the
other ranks waiting in a collective.  Rank 0 prints ``OK <n> checks on <N>
ranks`` at the end; the launcher looks for that line.

Helpers: ``world()`` (mpi4py's COMM_WORLD), ``gather_concat`` (a NumPy array
gathered from every rank in rank order), and ``global_formula`` (the value of a
cell from its global index: the independent reference of the distributed
operations).
"""
import os
import sys
import time
import traceback

import numpy as np
from mpi4py import MPI


def world():
    return MPI.COMM_WORLD


def rank():
    return MPI.COMM_WORLD.Get_rank()


def size():
    return MPI.COMM_WORLD.Get_size()


def gather_concat(arr, comm=None):
    """np.concatenate of `arr` from every rank, in rank order, on every rank."""
    comm = comm or MPI.COMM_WORLD
    parts = comm.allgather(np.asarray(arr))
    return np.concatenate(parts) if parts else np.asarray(arr)


def global_formula(i, j=0, k=0, n=0):
    """A value that identifies a cell (and component) without being a small
    integer: the reference of every distributed test."""
    i, j, k, n = (np.asarray(v, dtype=np.float64) for v in (i, j, k, n))
    return 1.0 + i + 1e3 * j + 1e6 * k + 0.25 * n + 1e-3 * np.sin(i + 2 * j + 3 * k + n)


def run(checks):
    comm = MPI.COMM_WORLD
    me = comm.Get_rank()
    only = os.environ.get("BOXFAB_MPI_ONLY")
    n = 0
    for check in checks:
        if only and check.__name__ != only:
            continue
        t0 = time.perf_counter()
        try:
            check()
        except BaseException:  # any failure: report and stop every rank
            sys.stdout.flush()
            sys.stderr.write(f"\n=== rank {me} of {comm.Get_size()}: {check.__name__} FAILED\n{traceback.format_exc()}")
            sys.stderr.flush()
            time.sleep(0.5)  # let the message out before the abort kills the job
            comm.Abort(1)
        n += 1
        comm.Barrier()
        if me == 0 and os.environ.get("BOXFAB_MPI_VERBOSE"):
            print(f"  {check.__name__}: {time.perf_counter() - t0:.3f} s", flush=True)
    if me == 0:
        print(f"OK {n} checks on {comm.Get_size()} ranks", flush=True)


# ---- device data (the GPU half: BOXFAB_TEST_DEVICE=gpu, data in device memory) ----------------------
def sync():
    """Wait for CuPy's work (writes through CuPy views) before boxfab reads the data: boxfab runs on
    its own non-blocking stream, which does not wait for CuPy's."""
    cupy = sys.modules.get("cupy")
    if cupy is not None:
        cupy.cuda.Device().synchronize()


def host(x):
    """A NumPy array with the values of x (a NumPy or CuPy array)."""
    return x if isinstance(x, np.ndarray) else x.get()


def assign(view, values):
    """view[...] = values (NumPy array or scalar) for a NumPy or CuPy view, then sync()."""
    if isinstance(view, np.ndarray) or np.isscalar(values):
        view[...] = values
    else:
        import cupy
        view[...] = cupy.asarray(values)
    sync()


def add_to(view, value):
    """view += value for a NumPy or CuPy view, then sync()."""
    view += value
    sync()


def need_yt():
    """yt, or None where BOXFAB_ALLOW_NO_YT=1 says a missing yt is fine (the device machine has none;
    scripts/test.sh installs it, so there a missing yt fails)."""
    try:
        import yt
        return yt
    except ImportError:
        if os.environ.get("BOXFAB_ALLOW_NO_YT") == "1":
            if MPI.COMM_WORLD.Get_rank() == 0:
                print("  yt is not installed: the yt check is not run (BOXFAB_ALLOW_NO_YT=1)", flush=True)
            return None
        raise
