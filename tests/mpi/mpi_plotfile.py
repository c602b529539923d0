"""Plotfiles and VisMF checkpoints across MPI ranks (run by test_mpi.py under mpirun -n 1, 2, 4).

Within one job the files are written and read by groups of 1, 2 and all ranks (boxfab instances on split
communicators), so "written on N, read on M" is tested for every pair up to the job's size.  References: the
global formula of the cell index (mpi_harness.global_formula), NumPy parsing of the files on disk, and the files
written by one rank (the same bytes per FAB, the same Header, the same Cell_H up to data file names/offsets)."""
import os
import re
import resource
import shutil
import signal
import tempfile

import numpy as np
from mpi4py import MPI

import boxfab.space3d as amr
from mpi_harness import host, rank, run, size

NCOMP = 3
VARS = ["rho", "ux", "e"]
DOMAIN = (31, 23, 15)  # 32 x 24 x 16 cells, boxes of at most 8: 4*3*2 = 24 boxes


def shared_dir():
    d = tempfile.mkdtemp(prefix="bf_mpiio_") if rank() == 0 else None
    return MPI.COMM_WORLD.bcast(d, root=0)


TMP = None


def groups():
    """The group sizes of this job: 1, 2 and all ranks (those that exist)."""
    return sorted({1, min(2, size()), size()})


def in_group(g, fn):
    """Run fn() on a boxfab instance over the first g ranks (the others wait); then a barrier."""
    world = MPI.COMM_WORLD
    sub = world.Split(0 if rank() < g else 1, rank())
    try:
        if rank() < g:
            amr.initialize(["amrex.verbose=0"], sub)
            try:
                fn()
            finally:
                amr.finalize()
    finally:
        sub.Free()
        world.Barrier()


def make_mf(ngrow=0):
    dom = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(*DOMAIN))
    ba = amr.BoxArray(dom)
    ba.max_size(8)
    dm = amr.DistributionMapping(ba)
    mf = amr.MultiFab(ba, dm, NCOMP, ngrow)
    fill(mf)
    geom = amr.Geometry(dom, amr.RealBox([0.0, 0.0, 0.0], [1.0, 0.75, 0.5]), 0, [0, 0, 0])
    return mf, geom


def fill(mf):
    """Every local FAB (ghost cells included) from the global formula."""
    from mpi_harness import assign, global_formula
    for mfi in mf:
        bx = mfi.fabbox()
        a = mf.array(mfi).to_xp()  # (i, j, k, n), Fortran order view (CuPy for device memory)
        lo = bx.small_end
        i, j, k = np.meshgrid(*[np.arange(lo[d], lo[d] + a.shape[d]) for d in range(3)], indexing="ij")
        for n in range(NCOMP):
            assign(a[..., n], global_formula(i, j, k, n))


def check_local(mf, ghosts=False):
    from mpi_harness import global_formula
    ng = mf.n_grow_vect[0] if ghosts else 0
    for mfi in mf:
        bx = mfi.fabbox() if ghosts else mfi.validbox()
        from mpi_harness import host
        a = host(mf.array(mfi).to_xp())
        if not ghosts:
            s = [slice(ng, ng + bx.length()[d]) for d in range(3)]  # the valid part
            a = a[s[0], s[1], s[2]]
        lo = bx.small_end
        i, j, k = np.meshgrid(*[np.arange(lo[d], lo[d] + a.shape[d]) for d in range(3)], indexing="ij")
        for n in range(a.shape[3]):
            ref = global_formula(i, j, k, n)
            assert np.array_equal(a[..., n], ref), (mfi.index, n)


def parse_cell_h(path):
    text = open(path).read()
    fods = re.findall(r"FabOnDisk: (\S+) (\d+)", text)
    head = text[:text.index("FabOnDisk")]
    minmax = text[text.index("\n\n"):] if "\n\n" in text else ""
    # the part after the FabOnDisk lines: min and max blocks
    tail = text[text.rindex("FabOnDisk"):]
    tail = tail[tail.index("\n"):]
    del minmax
    return head, [(f, int(o)) for f, o in fods], tail


def fab_bytes(level_dir, fod, nbytes_hdr_and_data):
    f, o = fod
    with open(os.path.join(level_dir, f), "rb") as h:
        h.seek(o)
        return h.read(nbytes_hdr_and_data)


def fab_extent(level_dir, fod, ncomp, esize=8):
    """The FAB header line and its data bytes at fod."""
    f, o = fod
    with open(os.path.join(level_dir, f), "rb") as h:
        h.seek(o)
        line = h.readline()
        m = re.search(rb"\(\((-?\d+),(-?\d+),(-?\d+)\) \((-?\d+),(-?\d+),(-?\d+)\)", line)
        lo = np.array(m.groups()[:3], dtype=int)
        hi = np.array(m.groups()[3:], dtype=int)
        npts = int(np.prod(hi - lo + 1))
        data = h.read(npts * ncomp * esize)
    return line, data, lo, hi


# ---- checks ------------------------------------------------------------------------------------


def check_setup():
    global TMP
    TMP = shared_dir()


def check_write_plotfiles():
    """Each group size writes the same data; the files hold the right values at the right places."""
    for g in groups():
        def write():
            mf, geom = make_mf()
            amr.write_single_level_plotfile(os.path.join(TMP, f"plt_{g}"), mf, VARS, geom, 1.5, 7)
        in_group(g, write)
    if rank() == 0:
        from mpi_harness import global_formula
        ref_header = open(os.path.join(TMP, f"plt_{groups()[0]}", "Header"), "rb").read()
        ref_head, ref_fods, ref_tail = parse_cell_h(os.path.join(TMP, "plt_1", "Level_0", "Cell_H"))
        ref_fabs = [fab_extent(os.path.join(TMP, "plt_1", "Level_0"), fod, NCOMP) for fod in ref_fods]
        for g in groups():
            d = os.path.join(TMP, f"plt_{g}")
            assert open(os.path.join(d, "Header"), "rb").read() == ref_header, g
            assert not [x for x in os.listdir(TMP) if x.startswith(".")], os.listdir(TMP)  # no temporaries
            head, fods, tail = parse_cell_h(os.path.join(d, "Level_0", "Cell_H"))
            assert head == ref_head and tail == ref_tail, g  # boxes, min and max: the same text
            # AMReX's file rule (<= 256 ranks): each box's data in Cell_D_<owner rank>
            pmap = amr.DistributionMapping  # noqa: F841 (the DM is rebuilt below from the files)
            files = sorted({f for f, _ in fods})
            assert files == sorted(x for x in os.listdir(os.path.join(d, "Level_0")) if x.startswith("Cell_D")), g
            assert len(files) == g, (g, files)
            for i, fod in enumerate(fods):
                line, data, lo, hi = fab_extent(os.path.join(d, "Level_0"), fod, NCOMP)
                assert (line, data) == ref_fabs[i][:2], (g, i)  # the same bytes as one rank's
                a = np.frombuffer(data, dtype="<f8").reshape((NCOMP, *(hi - lo + 1)[::-1]))
                k, j, ii = np.meshgrid(*[np.arange(lo[dd], hi[dd] + 1) for dd in (2, 1, 0)], indexing="ij")
                for n in range(NCOMP):
                    assert np.array_equal(a[n], global_formula(ii, j, k, n)), (g, i, n)
            # the FABs of one file are contiguous, in rank order then box order
            for f in files:
                offs = sorted(o for ff, o in fods if ff == f)
                assert offs[0] == 0
                size_f = os.path.getsize(os.path.join(d, "Level_0", f))
                total = sum(len(ref_fabs[i][0]) + len(ref_fabs[i][1]) for i, (ff, _) in enumerate(fods) if ff == f)
                assert size_f == total, (g, f)


def check_read_plotfiles():
    """Written on W ranks, read on R ranks: each rank gets its boxes with the right values."""
    for w in groups():
        for r in groups():
            def read():
                pf = amr.PlotFileData(os.path.join(TMP, f"plt_{w}"))
                assert pf.spaceDim() == 3 and pf.nComp() == NCOMP
                full = pf.get(0)
                check_local(full)
                dmr = full.dm().ProcessorMap()
                assert max(dmr) == amr.ParallelDescriptor.NProcs() - 1 or len(dmr) < amr.ParallelDescriptor.NProcs()
                for n, v in enumerate(VARS):
                    one = pf.get(0, v)
                    assert one.n_comp == 1
                    ref_min = full.min(n)
                    assert one.min(0) == ref_min and one.max(0) == full.max(n)
                # the sum against NumPy over the whole domain
                from mpi_harness import global_formula
                i, j, k = np.meshgrid(*[np.arange(0, DOMAIN[d] + 1) for d in range(3)], indexing="ij")
                comm = MPI.Comm.f2py(amr.ParallelDescriptor.Communicator())
                for n in range(NCOMP):
                    ref = float(np.sum(global_formula(i, j, k, n)))
                    mine = sum(float(host(full.array(m).to_xp())[..., n].sum()) for m in full)
                    got = comm.allreduce(mine)
                    assert abs(got - ref) <= 1e-13 * abs(ref), (got, ref)
            in_group(r, read)


def check_vismf_round_trip():
    """VisMF.Write on W ranks with ghost cells, VisMF.Read on R ranks: bit for bit, ghosts included."""
    for w in groups():
        def write():
            mf, _ = make_mf(ngrow=2)
            amr.VisMF.Write(mf, os.path.join(TMP, f"chk_{w}"))
        in_group(w, write)
        if rank() == 0:
            names = sorted(x for x in os.listdir(TMP) if x.startswith(f"chk_{w}_D_"))
            assert names == [f"chk_{w}_D_{q:05d}" for q in range(w)], names
            assert not [x for x in os.listdir(TMP) if x.startswith(".")], os.listdir(TMP)
        for r in groups():
            def read():
                mf, _ = make_mf(ngrow=2)
                mf.set_val(-1.0)
                amr.VisMF.Read(mf, os.path.join(TMP, f"chk_{w}"))
                check_local(mf, ghosts=True)
                fresh = amr.VisMF.Read(os.path.join(TMP, f"chk_{w}"))
                assert fresh.n_grow_vect[0] == 2
                check_local(fresh, ghosts=True)
            in_group(r, read)
    if rank() == 0:
        h = [open(os.path.join(TMP, f"chk_{w}_H")).read() for w in groups()]
        strip = [re.sub(r"FabOnDisk: \S+ \d+", "", x) for x in h]
        assert all(s == strip[0] for s in strip)


def check_vismf_rewrite_fewer_ranks():
    """Rewriting a checkpoint in place on fewer ranks: the new header names only the new files."""
    name = os.path.join(TMP, "chk_re")
    in_group(size(), lambda: amr.VisMF.Write(make_mf(1)[0], name))
    in_group(1, lambda: amr.VisMF.Write(make_mf(1)[0], name))

    def read():
        mf, _ = make_mf(ngrow=1)
        amr.VisMF.Read(mf, name)
        check_local(mf, ghosts=True)
    in_group(size(), read)
    if rank() == 0:
        assert set(re.findall(r"FabOnDisk: (\S+)", open(name + "_H").read())) == {"chk_re_D_00000"}


def check_nfiles():
    """SetNOutFiles(2): ranks grouped into 2 files (AMReX's rank / ceil(nprocs / nfiles)), read back exact."""
    def write():
        amr.VisMF.SetNOutFiles(2)
        try:
            assert amr.VisMF.GetNOutFiles() == 2
            mf, geom = make_mf()
            amr.write_single_level_plotfile(os.path.join(TMP, "plt_nf"), mf, VARS, geom, 1.5, 7)
            amr.VisMF.Write(make_mf(1)[0], os.path.join(TMP, "chk_nf"))
            pf = amr.PlotFileData(os.path.join(TMP, "plt_nf"))
            check_local(pf.get(0))
            mf1, _ = make_mf(ngrow=1)
            mf1.set_val(0.0)
            amr.VisMF.Read(mf1, os.path.join(TMP, "chk_nf"))
            check_local(mf1, ghosts=True)
        finally:
            amr.VisMF.SetNOutFiles(256)
    in_group(size(), write)
    if rank() == 0:
        files = sorted(x for x in os.listdir(os.path.join(TMP, "plt_nf", "Level_0")) if x.startswith("Cell_D"))
        assert files == [f"Cell_D_{q:05d}" for q in range(min(2, size()))], files
        fods = parse_cell_h(os.path.join(TMP, "plt_nf", "Level_0", "Cell_H"))[1]
        ref = parse_cell_h(os.path.join(TMP, "plt_1", "Level_0", "Cell_H"))[1]
        for (f, o), r0 in zip(fods, ref):
            a = fab_extent(os.path.join(TMP, "plt_nf", "Level_0"), (f, o), NCOMP)[:2]
            b = fab_extent(os.path.join(TMP, "plt_1", "Level_0"), r0, NCOMP)[:2]
            assert a == b
    try:
        amr.VisMF.SetNOutFiles(0)
    except ValueError:
        pass
    else:
        raise AssertionError("SetNOutFiles(0) accepted")


def check_sparse():
    """Fewer boxes than ranks: only the ranks with boxes write, each its own Cell_D_<rank> (AMReX's sparse mode)."""
    def write():
        ba = amr.BoxArray(amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(7, 7, 15)))
        ba.max_size(8)  # 2 boxes
        n = amr.ParallelDescriptor.NProcs()
        dm = amr.DistributionMapping([n - 1, 0] if n > 1 else [0, 0])
        mf = amr.MultiFab(ba, dm, NCOMP, 0)
        fill(mf)
        geom = amr.Geometry(ba.minimal_box(), amr.RealBox([0.0] * 3, [1.0] * 3), 0, [0, 0, 0])
        amr.write_single_level_plotfile(os.path.join(TMP, "plt_sparse"), mf, VARS, geom, 0.0, 0)
        check_local(amr.PlotFileData(os.path.join(TMP, "plt_sparse")).get(0))
    in_group(size(), write)
    if rank() == 0:
        files = sorted(os.listdir(os.path.join(TMP, "plt_sparse", "Level_0")))
        expect = ["Cell_D_00000", f"Cell_D_{size() - 1:05d}"] if size() > 1 else ["Cell_D_00000"]
        assert files == sorted(["Cell_H", *expect]), files


def check_failure_on_one_rank():
    """The last rank cannot write past 4 KB (RLIMIT_FSIZE: EFBIG, as a full disk): every rank raises OSError,
    nothing appears under the final names, no temporary is left, an existing plotfile is untouched."""
    final = os.path.join(TMP, "plt_fail")
    chk = os.path.join(TMP, "chk_fail")
    in_group(size(), lambda: amr.write_single_level_plotfile(final, make_mf()[0], VARS, make_mf()[1], 0.0, 0))
    before = open(os.path.join(final, "Header"), "rb").read()

    def write():
        mf, geom = make_mf()
        victim = rank() == size() - 1
        old = resource.getrlimit(resource.RLIMIT_FSIZE)
        prev = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        if victim:
            resource.setrlimit(resource.RLIMIT_FSIZE, (4096, old[1]))
        try:
            for what in ("plotfile", "vismf"):
                try:
                    if what == "plotfile":
                        amr.write_single_level_plotfile(final, mf, VARS, geom, 2.0, 1)
                    else:
                        amr.VisMF.Write(mf, chk)
                except OSError as e:
                    assert "Cell_D" in str(e) or "chk_fail_D" in str(e), str(e)
                else:
                    raise AssertionError(f"{what}: no OSError on rank {rank()}")
        finally:
            resource.setrlimit(resource.RLIMIT_FSIZE, old)
            signal.signal(signal.SIGXFSZ, prev)
    in_group(size(), write)
    if rank() == 0:
        assert open(os.path.join(final, "Header"), "rb").read() == before
        left = [x for x in os.listdir(TMP) if x.startswith(".") or x.startswith("chk_fail") or ".old." in x]
        assert left == [], left


def check_particles_across_ranks():
    """Particle files across ranks (the full tests: mpi_particle_io.py): write_plotfile / checkpoint into the
    mesh plotfile and restart work on every rank count (they raised RuntimeError on more than one rank
    before the distributed particle I/O)."""
    def go():
        mf, geom = make_mf()
        ba, dm = mf.box_array(), mf.dm()
        plt = os.path.join(TMP, "plt_parts")
        amr.write_single_level_plotfile(plt, mf, VARS, geom, 0.0, 0)
        pc = amr.ParticleContainer_pureSoA_8_0_default(geom, dm, ba)
        pc.init_random_per_box(5, 17, amr.ParticleInitType_pureSoA_8_0())
        n = pc.total_number_of_particles()
        assert n == 5 * ba.size
        pc.write_plotfile(plt, "parts")
        pc.checkpoint(plt, "parts_chk")
        for name in ("parts", "parts_chk"):
            back = amr.ParticleContainer_pureSoA_8_0_default(geom, dm, ba)
            back.restart(plt, name)
            assert back.total_number_of_particles() == n and back.OK()
    in_group(size(), go)
    if rank() == 0:
        assert {"parts", "parts_chk", "Header"} <= set(os.listdir(os.path.join(TMP, "plt_parts")))
        shutil.rmtree(os.path.join(TMP, "plt_parts"), ignore_errors=True)


def check_yt():
    """yt loads a plotfile written on 2 ranks (or fewer): the same field sums as NumPy's."""
    if rank() != 0:
        return
    from mpi_harness import need_yt
    yt = need_yt()
    if yt is None:
        return
    yt.set_log_level(50)
    from mpi_harness import global_formula
    w = min(2, size())
    ds = yt.load(os.path.join(TMP, f"plt_{w}"))
    ad = ds.all_data()
    i, j, k = np.meshgrid(*[np.arange(0, DOMAIN[d] + 1) for d in range(3)], indexing="ij")
    for n, v in enumerate(VARS):
        got = float(ad["boxlib", v].sum())
        ref = float(np.sum(global_formula(i, j, k, n)))
        assert abs(got - ref) <= 1e-12 * abs(ref), (v, got, ref)


def check_cleanup():
    MPI.COMM_WORLD.Barrier()
    if rank() == 0:
        shutil.rmtree(TMP, ignore_errors=True)


run([check_setup, check_write_plotfiles, check_read_plotfiles, check_vismf_round_trip,
     check_vismf_rewrite_fewer_ranks, check_nfiles, check_sparse, check_failure_on_one_rank,
     check_particles_across_ranks, check_yt,
     check_cleanup])
