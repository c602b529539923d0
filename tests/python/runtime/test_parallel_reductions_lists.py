"""ParallelDescriptor reductions of lists (pyAMReX 26) and Communicator() as a Fortran handle, on one
rank (tests/mpi/mpi_runtime.py runs them on 2 and 4)."""
import pytest

import boxfab.space3d as amr


@pytest.fixture(autouse=True)
def runtime():
    amr.initialize([])
    yield
    amr.finalize()


def test_lists_reduce_element_by_element():
    pd = amr.ParallelDescriptor
    assert pd.ReduceRealSum([1.5, -2.0]) == [1.5, -2.0]
    assert pd.ReduceRealMin((3.0,)) == [3.0] and pd.ReduceRealMax([]) == []
    assert pd.ReduceLongSum([2**40, 1]) == [2**40, 1] and pd.ReduceIntMax([5]) == [5]
    assert pd.ReduceBoolAnd([True, False]) == [True, False]
    assert pd.ReduceRealSum(2.5) == 2.5 and pd.ReduceRealSum([2.5], root=0) == [2.5]
    with pytest.raises(TypeError):
        pd.ReduceRealSum([1.0, "x"])
    with pytest.raises(OverflowError):
        pd.ReduceIntSum([1, 2**40])
    with pytest.raises(ValueError):
        pd.ReduceRealSum([0.0] * (2**24 + 1))


def test_communicator_is_a_fortran_handle():
    mpi = pytest.importorskip("mpi4py.MPI")
    h = amr.ParallelDescriptor.Communicator()
    assert type(h) is int
    comm = mpi.Comm.f2py(h)
    assert comm.Get_size() == amr.ParallelDescriptor.NProcs() and comm.Get_rank() == amr.ParallelDescriptor.MyProc()
