"""MPI start-up, ParallelDescriptor and split communicators (run by test_mpi.py)."""
import numpy as np
from mpi4py import MPI

import boxfab
import boxfab.space3d as amr
from mpi_harness import rank, run, size

pd = amr.ParallelDescriptor


def check_build():
    assert boxfab.build_info()["mpi"] is True
    assert amr.Config.have_mpi is True


def check_descriptor():
    amr.initialize(["amrex.verbose=0"])
    try:
        assert pd.NProcs() == size() and pd.MyProc() == rank()
        assert pd.IOProcessorNumber() == 0 and pd.IOProcessor() == (rank() == 0)
        h = pd.Communicator()
        assert type(h) is int  # pyAMReX 26: the Fortran handle, for MPI.Comm.f2py
        comm = MPI.Comm.f2py(h)
        assert isinstance(comm, MPI.Intracomm)
        # a duplicate of COMM_WORLD: same group, its own message space
        assert MPI.Comm.Compare(comm, MPI.COMM_WORLD) == MPI.CONGRUENT
        assert comm.allreduce(1) == size()
        pd.Barrier()
    finally:
        amr.finalize()


def check_reductions():
    amr.initialize(["amrex.verbose=0"])
    try:
        me, n = rank(), size()
        vals = [0.1 * (r + 1) ** 1.5 for r in range(n)]
        expect = 0.0
        for v in vals:  # rank order: the documented (deterministic) order
            expect += v
        assert pd.ReduceRealSum(vals[me]) == expect
        # lists reduce element by element (pyAMReX 26's Vector<Real> overloads)
        assert pd.ReduceRealSum([vals[me], 1.0]) == [expect, float(n)]
        assert pd.ReduceRealMax((vals[me], -vals[me])) == [max(vals), -min(vals)]
        assert pd.ReduceIntSum([1, me]) == [n, n * (n - 1) // 2] and pd.ReduceRealMin([]) == []
        if n > 1:  # every rank learns that the counts differ (no rank is left waiting)
            try:
                pd.ReduceRealSum([1.0] * (me + 1))
                raise AssertionError("different counts were accepted")
            except ValueError as e:
                assert "different numbers" in str(e)
        assert pd.ReduceRealMin(vals[me]) == min(vals) and pd.ReduceRealMax(vals[me]) == max(vals)
        assert pd.ReduceLongSum(2**40 + me) == n * 2**40 + n * (n - 1) // 2
        assert pd.ReduceIntMin(me - 7) == -7 and pd.ReduceIntMax(me) == n - 1
        assert pd.ReduceBoolAnd(me >= 0) is True and pd.ReduceBoolAnd(me == 0) is (n == 1)
        assert pd.ReduceBoolOr(me == n - 1) is True
        # to a root: the root gets the result, the others keep their value
        r = pd.ReduceIntSum(1, root=n - 1)
        assert r == (n if me == n - 1 else 1)
        for bad, exc in ((lambda: pd.ReduceIntSum(1, root=n), ValueError), (lambda: pd.ReduceIntSum(2**40), OverflowError),
                         (lambda: pd.ReduceRealSum("x"), TypeError), (lambda: pd.ReduceLongSum(1.5), TypeError)):
            try:
                bad()
            except exc:
                pass
            else:
                raise AssertionError(f"expected {exc.__name__}")
    finally:
        amr.finalize()


def check_cycles_keep_mpi():
    # boxfab never finalizes an MPI it did not start (mpi4py started it here)
    for _ in range(3):
        amr.initialize(["amrex.verbose=0"])
        assert pd.NProcs() == size()
        amr.finalize()
        assert MPI.Is_initialized() and not MPI.Is_finalized()
    MPI.COMM_WORLD.Barrier()


def check_split_communicators():
    # pyAMReX issue #163: independent boxfab groups on split communicators
    color = rank() % 2
    sub = MPI.COMM_WORLD.Split(color, rank())
    try:
        amr.initialize(["amrex.verbose=0"], sub)
        try:
            assert pd.NProcs() == sub.Get_size() and pd.MyProc() == sub.Get_rank()
            assert MPI.Comm.Compare(MPI.Comm.f2py(pd.Communicator()), sub) == MPI.CONGRUENT
            # a reduction stays inside the group
            assert pd.ReduceIntSum(1) == sub.Get_size()
            # a MultiFab over the group's ranks
            ba = amr.BoxArray(amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(15, 15, 15)))
            ba.max_size(8)
            dm = amr.DistributionMapping(ba)
            assert max(dm.ProcessorMap()) <= sub.Get_size() - 1
            mf = amr.MultiFab(ba, dm, 1, 0)
            mf.set_val(1.0 + color)
            assert mf.sum(0) == (1.0 + color) * 16**3
            del mf
        finally:
            amr.finalize()
        amr.initialize(["amrex.verbose=0"], comm=sub)  # the keyword spelling
        assert pd.NProcs() == sub.Get_size()
        amr.finalize()
    finally:
        sub.Free()


def check_bad_communicators():
    for bad in (3, "world", object()):
        try:
            amr.initialize([], bad)
        except TypeError:
            pass
        else:
            raise AssertionError(f"initialize([], {bad!r}) did not raise TypeError")
    assert not amr.initialized()
    try:
        amr.initialize([], MPI.COMM_NULL)
    except (TypeError, ValueError):
        pass
    else:
        raise AssertionError("COMM_NULL was accepted")
    assert not amr.initialized()


def check_distribution_refuses_missing_ranks():
    amr.initialize(["amrex.verbose=0"])
    try:
        ba = amr.BoxArray(amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(7, 7, 7)))
        ba.max_size(4)
        dm = amr.DistributionMapping([size()] * len(ba))
        try:
            amr.MultiFab(ba, dm, 1, 0)
        except ValueError as e:
            assert "rank" in str(e)
        else:
            raise AssertionError("a DistributionMapping naming a missing rank was accepted")
        # the balanced maps are the same on every rank, over the ranks that exist
        for strategy in ("sfc", "roundrobin", "knapsack"):
            pm = np.asarray(amr.DistributionMapping(ba, strategy=strategy).ProcessorMap())
            allpm = MPI.COMM_WORLD.allgather(pm)
            assert all(np.array_equal(allpm[0], p) for p in allpm)
            assert pm.max() == min(size(), len(ba)) - 1
    finally:
        amr.finalize()


run([check_build, check_descriptor, check_reductions, check_cycles_keep_mpi, check_split_communicators,
     check_bad_communicators, check_distribution_refuses_missing_ranks])
