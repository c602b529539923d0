"""MPI finalized by the script (mpi4py's MPI.Finalize()) under a live boxfab
instance: boxfab's communicating calls used to abort the process ("MPI_Allgather
called after MPI_FINALIZE"); they raise RuntimeError now and the script ends
cleanly.  Run by test_mpi.py (test_review_mpi_finalized) on 2 ranks: not a
harness program (the harness itself needs MPI until the end)."""
from mpi4py import MPI

import boxfab.space3d as amr

amr.initialize(["amrex.verbose=0"])
ba = amr.BoxArray(amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(7, 7, 7)))
ba.max_size(4)
mf = amr.MultiFab(ba, amr.DistributionMapping(ba), 1, 1)
mf.set_val(1.0)
assert mf.sum(0) == 512.0
comm = MPI.Comm.f2py(amr.ParallelDescriptor.Communicator())
MPI.Finalize()
pd = amr.ParallelDescriptor
calls = {"sum": lambda: mf.sum(0), "fill_boundary": lambda: mf.fill_boundary(), "Barrier": pd.Barrier,
         "ReduceRealSum": lambda: pd.ReduceRealSum(1.0), "Communicator": pd.Communicator,
         "getitem": lambda: mf[0, 0, 0]}
for name, f in calls.items():
    try:
        f()
    except RuntimeError as e:
        assert "finalized" in str(e), (name, str(e))
        print(f"{name}: RuntimeError", flush=True)
    else:
        raise AssertionError(f"{name} did not raise")
del mf
amr.finalize()
print("clean end", flush=True)
