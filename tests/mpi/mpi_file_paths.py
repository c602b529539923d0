"""Paths of the file writers across MPI ranks (issue 21; run by test_mpi.py under mpirun -n 1, 2, 4).

Missing parent folders are made by the I/O rank before any rank writes (AMReX's PreBuildDirectorHierarchy /
UtilCreateDirectory); a parent that is a file, a name one byte too long and a variable name that could not
read back fail on every rank with the same exception and leave nothing; names of NAME_MAX bytes work.  The
writes run on groups of 1, 2 and all ranks (boxfab instances on split communicators).  References: the
global formula of each cell (mpi_harness.global_formula) and os.listdir of the shared folder."""
import os
import shutil
import tempfile

import numpy as np
from mpi4py import MPI

import boxfab.space3d as amr
from mpi_harness import global_formula, host, rank, run, size

VARS = ["rho", "e"]
TMP = None


def groups():
    return sorted({1, min(2, size()), size()})


def in_group(g, fn):
    """fn() on a boxfab instance over the first g ranks (the others wait); its outcome on every rank of the
    group: None, or the exception's type name and message."""
    world = MPI.COMM_WORLD
    sub = world.Split(0 if rank() < g else 1, rank())
    result = None
    try:
        if rank() < g:
            amr.initialize(["amrex.verbose=0"], sub)
            try:
                fn()
            except (OSError, ValueError, RuntimeError) as e:
                result = (type(e).__name__, str(e))
            finally:
                amr.finalize()
    finally:
        sub.Free()
        world.Barrier()
    return result


def make_mf():
    dom = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(15, 11, 7))
    ba = amr.BoxArray(dom)
    ba.max_size(4)
    mf = amr.MultiFab(ba, amr.DistributionMapping(ba), len(VARS), 0)
    for mfi in mf:
        bx = mfi.validbox()
        a = mf.array(mfi).to_numpy()
        lo = bx.small_end
        i, j, k = np.meshgrid(*[np.arange(lo[d], lo[d] + a.shape[d]) for d in range(3)], indexing="ij")
        for n in range(len(VARS)):
            a[..., n] = global_formula(i, j, k, n)
    geom = amr.Geometry(dom, amr.RealBox([0.0] * 3, [1.0] * 3), 0, [0] * 3)
    return mf, geom


def check_local(mf):
    for mfi in mf:
        a = host(mf.array(mfi).to_numpy())
        lo = mfi.validbox().small_end
        i, j, k = np.meshgrid(*[np.arange(lo[d], lo[d] + a.shape[d]) for d in range(3)], indexing="ij")
        for n in range(a.shape[3]):
            assert np.array_equal(a[..., n], global_formula(i, j, k, n)), (mfi.index, n)


def agreed(result):
    """The same outcome on every rank of the job."""
    every = MPI.COMM_WORLD.allgather(result)
    assert all(r == every[0] for r in every), every
    return every[0]


def listing():
    out = []
    for d, dirs, files in os.walk(TMP):
        out += [os.path.relpath(os.path.join(d, x), TMP) for x in dirs + files]
    return sorted(out)


def check_setup():
    global TMP
    d = tempfile.mkdtemp(prefix="bf_mpipaths_") if rank() == 0 else None
    TMP = MPI.COMM_WORLD.bcast(d, root=0)


def check_parents_made_by_the_io_rank():
    """diags/g<g>/deep/plt: the folders are made once (rank 0), every rank writes its FABs into the plotfile,
    it reads back right on every group size; particle files make their folder too."""
    for g in groups():
        out = os.path.join(TMP, f"diags/g{g}/deep/plt")

        def go():
            mf, geom = make_mf()
            amr.write_single_level_plotfile(out, mf, VARS, geom, 0.0, 0)
            amr.write_multi_level_plotfile(out + "_ml", 1, [mf], VARS, [geom], 0.0, [0], [])
            check_local(amr.PlotFileData(out).get(0))
            check_local(amr.PlotFileData(out + "_ml").get(0))
            pc = amr.ParticleContainer_pureSoA_8_0_default(geom, mf.dm(), mf.box_array())
            pc.init_random_per_box(3, 5, amr.ParticleInitType_pureSoA_8_0())
            pc.write_plotfile(os.path.join(TMP, f"pnew/g{g}/x"), "parts")
            back = amr.ParticleContainer_pureSoA_8_0_default(geom, mf.dm(), mf.box_array())
            back.restart(os.path.join(TMP, f"pnew/g{g}/x"), "parts")
            assert back.total_number_of_particles() == 3 * mf.box_array().size
        assert agreed(in_group(g, go)) is None
    if rank() == 0:
        for g in groups():
            assert sorted(os.listdir(os.path.join(TMP, f"diags/g{g}/deep"))) == ["plt", "plt_ml"]
            assert os.listdir(os.path.join(TMP, f"pnew/g{g}/x")) == ["parts"]
        assert not [x for x in listing() if "bftmp" in x]
        shutil.rmtree(os.path.join(TMP, "diags")), shutil.rmtree(os.path.join(TMP, "pnew"))


def check_failures_agree_and_leave_nothing():
    """A parent that is a file, a name of NAME_MAX + 1 bytes (with folders to make above it), a variable name
    with a blank at its end: the same exception on every rank, and the shared folder as before."""
    if rank() == 0:
        open(os.path.join(TMP, "afile"), "w").write("keep")
    MPI.COMM_WORLD.Barrier()
    before = listing()
    nm = os.pathconf(TMP, "PC_NAME_MAX")
    cases = [("plotfile", os.path.join(TMP, "afile/sub/plt"), VARS, "OSError"),
             ("plotfile", os.path.join(TMP, "new/sub", "x" * (nm + 1)), VARS, "OSError"),
             ("plotfile", os.path.join(TMP, "new/plt"), ["rho", "e "], "ValueError"),
             ("vismf", os.path.join(TMP, "afile/chk"), VARS, "OSError"),
             ("vismf", os.path.join(TMP, "v" * (nm - 7)), VARS, "OSError"),
             ("particles", os.path.join(TMP, "afile/sub"), VARS, "OSError"),
             ("particles", os.path.join(TMP, "new/sub"), VARS, "OSError")]
    for g in groups():
        for what, path, names, exc in cases:
            def go():
                mf, geom = make_mf()
                if what == "plotfile":
                    amr.write_single_level_plotfile(path, mf, names, geom, 0.0, 0)
                elif what == "vismf":
                    amr.VisMF.Write(mf, path)
                else:
                    pc = amr.ParticleContainer_pureSoA_8_0_default(geom, mf.dm(), mf.box_array())
                    pc.init_random_per_box(2, 5, amr.ParticleInitType_pureSoA_8_0())
                    pc.write_plotfile(path, "afile" if path.endswith("afile/sub") else "y" * (nm + 1))
            r = in_group(g, go)
            got = MPI.COMM_WORLD.allgather(r)[:g]
            assert all(x == got[0] for x in got) and got[0] is not None and got[0][0] == exc, (what, path[-40:], got)
            assert listing() == before, (what, path[-40:], listing())


def check_name_max_works():
    """Names of NAME_MAX bytes: a plotfile written twice (the previous one moved aside), a VisMF checkpoint
    whose data file name is NAME_MAX bytes, a particle directory; read back right."""
    nm = os.pathconf(TMP, "PC_NAME_MAX")
    for g in groups():
        d = os.path.join(TMP, f"long{g}")

        def go():
            mf, geom = make_mf()
            out = os.path.join(d, "p" * nm)
            amr.write_single_level_plotfile(out, mf, VARS, geom, 0.0, 0)
            amr.write_single_level_plotfile(out, mf, VARS, geom, 1.0, 0)
            check_local(amr.PlotFileData(out).get(0))
            amr.VisMF.Write(mf, os.path.join(d, "v" * (nm - 8)))
            check_local(amr.VisMF.Read(os.path.join(d, "v" * (nm - 8))))
            pc = amr.ParticleContainer_pureSoA_8_0_default(geom, mf.dm(), mf.box_array())
            pc.init_random_per_box(2, 5, amr.ParticleInitType_pureSoA_8_0())
            pc.checkpoint(d, "q" * nm)
            back = amr.ParticleContainer_pureSoA_8_0_default(geom, mf.dm(), mf.box_array())
            back.restart(d, "q" * nm)
            assert back.total_number_of_particles() == 2 * mf.box_array().size
        assert agreed(in_group(g, go)) is None
        if rank() == 0:
            names = os.listdir(d)
            assert all(len(x) <= nm for x in names) and not [x for x in names if "bftmp" in x], names
            assert len([x for x in names if x.startswith("p")]) == 2, names


def check_cleanup():
    MPI.COMM_WORLD.Barrier()
    if rank() == 0:
        shutil.rmtree(TMP, ignore_errors=True)


run([check_setup, check_parents_made_by_the_io_rank, check_failures_agree_and_leave_nothing,
     check_name_max_works, check_cleanup])
