"""Findings of the MPI review (issue 12): each check is a scenario that hung,
crashed or gave a wrong result before its fix (run by test_mpi.py)."""
import faulthandler
import sys

import numpy as np
from mpi4py import MPI

import boxfab.space3d as amr
from mpi_harness import assign, rank, run, size

pd = amr.ParallelDescriptor


class watchdog:
    """A scenario that used to hang: after `seconds` the rank prints where it
    waits and exits (non-zero), so that the job ends instead of waiting for
    the launcher's timeout."""

    def __init__(self, seconds=60):
        self.seconds = seconds

    def __enter__(self):
        faulthandler.dump_traceback_later(self.seconds, exit=True, file=sys.stderr)

    def __exit__(self, *exc):
        faulthandler.cancel_dump_traceback_later()
        return False


def check_reduce_bad_value_on_one_rank():
    """A value that converts on some ranks only (rank-dependent data): the
    reduction used to raise on that rank before the collective and leave
    every other rank waiting in it; now every rank raises and the next
    reduction works."""
    amr.initialize(["amrex.verbose=0"])
    try:
        me, n = rank(), size()
        bad = n - 1  # the last rank has the bad value
        cases = ((pd.ReduceIntSum, 2**40, 1, OverflowError), (pd.ReduceRealMax, "x", 1.0, TypeError),
                 (pd.ReduceLongMin, 1.5, 3, TypeError), (pd.ReduceBoolAnd, np.array([1, 2]), True, ValueError),
                 (pd.ReduceIntMin, 2**40, 1, OverflowError))
        for fn, badv, goodv, exc in cases:
            for root in (-1, 0):
                with watchdog():
                    try:
                        fn(badv if me == bad else goodv, root=root)
                    except exc if me == bad else RuntimeError as e:
                        if me != bad:
                            assert f"rank {bad}" in str(e), str(e)
                    else:
                        raise AssertionError(f"{fn.__name__}: no exception on rank {me}")
                    # nothing left over: the next reduction is right
                    assert pd.ReduceIntSum(me) == n * (n - 1) // 2
    finally:
        amr.finalize()


def check_communicator_after_finalize():
    """ParallelDescriptor.Communicator() wrapped the instance's communicator,
    which finalize() freed: using it afterwards crashed (segmentation fault
    in MPI).  It stays valid now."""
    amr.initialize(["amrex.verbose=0"])
    c = MPI.Comm.f2py(pd.Communicator())
    amr.finalize()
    assert c.allreduce(1) == size()
    c2 = c.Dup()
    assert c2.Get_size() == size()
    c2.Free()
    # a new cycle has its own communicator, also fine after its finalize
    amr.initialize(["amrex.verbose=0"])
    d = MPI.Comm.f2py(pd.Communicator())
    assert MPI.Comm.Compare(d, MPI.COMM_WORLD) == MPI.CONGRUENT
    amr.finalize()
    assert d.allreduce(2) == 2 * size() and c.allreduce(3) == 3 * size()


def check_to_df_split_communicator():
    """to_df(local=False) without comm gathered over COMM_WORLD: on an
    instance of a split communicator the roots got the particles of the other
    groups (or None).  It gathers over the container's instance now."""
    color = rank() % 2
    sub = MPI.COMM_WORLD.Split(color, rank())
    try:
        amr.initialize(["amrex.verbose=0"], sub)
        try:
            dom = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(7, 7, 7))
            gm = amr.Geometry(dom, amr.RealBox([0.0] * 3, [1.0] * 3), 0, [1, 1, 1])
            ba = amr.BoxArray(dom)
            ba.max_size(4)
            dm = amr.DistributionMapping(ba)
            pc = amr.ParticleContainer_pureSoA_3_0_default(gm, dm, ba)
            npart = 10 + 5 * color  # per rank: the groups differ
            rng = np.random.default_rng(rank())
            pos = rng.random((npart, 3)) * 0.99
            pc.add_particles(pos, ids=np.arange(1, npart + 1) + 1000 * rank(),
                             cpus=np.full(npart, sub.Get_rank(), np.int32))
            with watchdog():
                df = pc.to_df(local=False)
            if sub.Get_rank() == 0:
                assert df is not None and len(df) == npart * sub.Get_size(), (None if df is None else len(df))
            else:
                assert df is None
            with watchdog():  # an explicit comm still wins
                df = pc.to_df(local=False, comm=MPI.COMM_WORLD)
            if rank() == 0:
                assert len(df) == sum(10 + 5 * (r % 2) for r in range(size()))
            del pc
        finally:
            amr.finalize()
    finally:
        sub.Free()


def check_getitem_outer_instance():
    """mf[...] gathered over ParallelDescriptor's communicator (the top
    instance's): for a MultiFab of an outer instance on COMM_WORLD read while
    a nested instance on a split communicator is on top, each group gathered
    only its own pieces (wrong values, e.g. half the sum).  It gathers over the
    MultiFab's own instance now."""
    me = rank()
    a = amr.initialize(["amrex.verbose=0"])
    sub = MPI.COMM_WORLD.Split(me % 2, me)
    try:
        ba = amr.BoxArray(amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(7, 7, 7)))
        ba.max_size(4)
        mf = amr.MultiFab(ba, amr.DistributionMapping(ba), 1, 0)
        for mfi in mf:
            arr = mf.array(mfi).to_xp()  # NumPy, or CuPy for device memory
            bx = mfi.validbox()
            i, j, k = np.meshgrid(*[np.arange(bx.small_end[d], bx.big_end[d] + 1) for d in range(3)], indexing="ij")
            assign(arr[..., 0], 1.0 + i + 10 * j + 100 * k)
        i, j, k = np.meshgrid(np.arange(8), np.arange(8), np.arange(8), indexing="ij")
        expect = 1.0 + i + 10 * j + 100 * k
        assert np.array_equal(mf[...], expect)
        b = amr.initialize(["amrex.verbose=0"], sub)
        try:
            with watchdog():
                got = mf[...]
            assert np.array_equal(got, expect), float(np.sum(got))
            assert mf.sum(0) == float(np.sum(expect))
            # the nested instance's own MultiFab gathers over its group
            mf2 = amr.MultiFab(ba, amr.DistributionMapping(ba), 1, 0)
            mf2.set_val(2.0)
            with watchdog():
                assert np.array_equal(mf2[...], np.full((8, 8, 8), 2.0))
            del mf2
        finally:
            amr.finalize(b)
        del mf
    finally:
        amr.finalize(a)
        sub.Free()


if __name__ == "__main__":
    run([check_reduce_bad_value_on_one_rank, check_communicator_after_finalize, check_to_df_split_communicator,
         check_getitem_outer_instance])
