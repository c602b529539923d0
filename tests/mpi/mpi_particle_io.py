"""Particle files across MPI ranks: write_plotfile / checkpoint / restart (run by test_mpi.py under
mpirun -n 1, 2, 4).

Within one job the files are written and read by groups of 1, 2 and all ranks (boxfab instances on split
communicators), so "written on W, read on R" is tested for every pair up to the job's size.  References: the
global input (NumPy arrays of positions, components, ids and cpus built here, the same on every rank), the
files parsed with NumPy from the format's description (Header table, DATA_nnnnn records), the bytes written
by one rank (each grid's records and the Header, up to AMReX's file numbers and offsets), AMReX's own files
(tests/fixtures/amrex-plotfiles) and yt."""
import os
import re
import resource
import shutil
import signal
import tempfile

import numpy as np
from mpi4py import MPI

import boxfab.space3d as amr
from mpi_harness import rank, run, size

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.environ.get("BOXFAB_AMREX_FIXTURES") or os.path.join(os.path.dirname(HERE), "fixtures", "amrex-plotfiles")
NCELL = 32
G = 3000  # particles of the global input
LAYOUTS = {  # name in the plotfile: (class, id family for NextID)
    "particles": ("ParticleContainer_pureSoA_8_0_default", "Particle_8_0"),
    "aos_particles": ("ParticleContainer_2_1_3_1_default", "Particle_5_2"),
}
NEXT_ID = 987654
TMP = None
PMAPS = {}  # group size -> the DistributionMapping's processor map used by the writer


def shared_dir():
    d = tempfile.mkdtemp(prefix="bf_mpipio_") if rank() == 0 else None
    return MPI.COMM_WORLD.bcast(d, root=0)


def groups():
    return sorted({1, min(2, size()), size()})


def in_group(g, fn, args=()):
    """Run fn() on a boxfab instance over the first g ranks (the others wait); then a barrier."""
    world = MPI.COMM_WORLD
    sub = world.Split(0 if rank() < g else 1, rank())
    try:
        if rank() < g:
            amr.initialize(["amrex.verbose=0", *args], sub)
            try:
                fn()
            finally:
                amr.finalize()
    finally:
        sub.Free()
        world.Barrier()


def comm():
    from mpi4py import MPI

    return MPI.Comm.f2py(amr.ParallelDescriptor.Communicator())


def geometry(max_size=8):
    """32^3 cells on [-1,1]x[0,2]x[0,0.5] (the fixture's), periodic in x and y, boxes of max_size."""
    dom = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(NCELL - 1, NCELL - 1, NCELL - 1))
    ba = amr.BoxArray(dom)
    ba.max_size(max_size)
    dm = amr.DistributionMapping(ba)
    gm = amr.Geometry(dom, amr.RealBox([-1.0, 0.0, 0.0], [1.0, 2.0, 0.5]), 0, [1, 1, 0])
    return gm, dm, ba


def reference(layout, big_ids=False):
    """The global input: every rank builds the same arrays.  Columns: id, cpu, then every real (positions
    first, then the layout's reals in file order), then every int (file order)."""
    rng = np.random.default_rng(7 if layout == "particles" else 11)
    lo, hi = np.array([-1.0, 0.0, 0.0]), np.array([1.0, 2.0, 0.5])
    pos = lo + (hi - lo) * rng.uniform(0.0, 1.0, (G, 3))
    ids = (2 ** 36 if big_ids else 1) + 3 * np.arange(G, dtype=np.int64)
    rng.shuffle(ids)
    cpus = ((np.arange(G) * 7919) % 5000).astype(np.int32)
    if layout == "particles":
        reals = rng.normal(size=(G, 5))
        ints = rng.integers(-2 ** 31, 2 ** 31 - 1, (G, 1)).astype(np.int32)  # the run-time int "itag"
    else:
        reals = rng.normal(size=(G, 5))  # rdata_0, rdata_1, then the SoA reals 0..2
        ints = rng.integers(-2 ** 31, 2 ** 31 - 1, (G, 2)).astype(np.int32)  # idata_0, SoA int 0
    return {"id": ids, "cpu": cpus, "r": np.column_stack([pos, reals]), "i": ints}


def make_pc(layout, max_size=8):
    gm, dm, ba = geometry(max_size)
    pc = getattr(amr, LAYOUTS[layout][0])(gm, dm, ba)
    if layout == "particles":
        pc.add_int_comp("itag")
    return pc, dm


def fill(pc, layout, ref):
    """Rank 0 adds the whole input (the others nothing), redistribute sends each particle to its owner."""
    n = G if comm().Get_rank() == 0 else 0
    pos = [ref["r"][:n, d] for d in range(3)]
    if layout == "particles":
        names = pc.real_comp_names[3:8]
        cols = {nm: ref["r"][:n, 3 + c] for c, nm in enumerate(names)}
        cols["itag"] = ref["i"][:n, 0]
    else:
        rn = pc.real_comp_names
        cols = {"rdata_0": ref["r"][:n, 3], "rdata_1": ref["r"][:n, 4], rn[0]: ref["r"][:n, 5],
                rn[1]: ref["r"][:n, 6], rn[2]: ref["r"][:n, 7], "idata_0": ref["i"][:n, 0],
                pc.int_comp_names[0]: ref["i"][:n, 1]}
    pc.add_particles(pos, cols, ids=ref["id"][:n], cpus=ref["cpu"][:n])


def ids_cpus(u):
    v = ((u >> np.uint64(24)) & np.uint64(0x7FFFFFFFFF)).astype(np.int64)
    return np.where(u >> np.uint64(63), v, -v), (u & np.uint64(0xFFFFFF)).astype(np.int64)


def gather(pc, layout):
    """Every particle of every rank of the group (on every rank), in the reference's columns, sorted by id."""
    rows_r, rows_i, rows_id, rows_cpu = [], [], [], []
    for pti in pc.const_iterator(pc, level=0):
        soa = pti.soa().to_numpy(copy=True)
        if layout == "particles":
            u = soa.idcpu
            r = np.stack(list(soa.real.values()), axis=1)
            i = np.stack(list(soa.int.values()), axis=1)
        else:
            aos = pti.aos().to_numpy(copy=True)
            u = aos["cpuid"] if "cpuid" in aos.dtype.names else aos["idcpu"]
            r = np.column_stack([aos["x"], aos["y"], aos["z"], aos["rdata_0"], aos["rdata_1"]] +
                                list(soa.real.values()))
            i = np.column_stack([aos["idata_0"]] + list(soa.int.values()))
        ident, cpu = ids_cpus(u.astype(np.uint64))
        rows_id.append(ident), rows_cpu.append(cpu), rows_r.append(r), rows_i.append(i)
    loc = {"id": np.concatenate(rows_id) if rows_id else np.zeros(0, np.int64),
           "cpu": np.concatenate(rows_cpu) if rows_cpu else np.zeros(0, np.int64),
           "r": np.concatenate(rows_r) if rows_r else np.zeros((0, 8)),
           "i": np.concatenate(rows_i) if rows_i else np.zeros((0, 1 if layout == "particles" else 2), np.int32)}
    parts = comm().allgather(loc)
    out = {k: np.concatenate([p[k] for p in parts]) for k in loc}
    o = np.argsort(out["id"], kind="stable")
    return {k: v[o] for k, v in out.items()}


def assert_same(got, ref, what):
    o = np.argsort(ref["id"], kind="stable")
    assert len(got["id"]) == len(ref["id"]), (what, len(got["id"]), len(ref["id"]))
    assert np.array_equal(got["id"], ref["id"][o]), what
    assert np.array_equal(got["cpu"], ref["cpu"][o].astype(np.int64)), what
    assert np.array_equal(got["r"], ref["r"][o]), what  # bit for bit
    assert np.array_equal(got["i"], ref["i"][o]), what


# ---- the files, parsed with NumPy ---------------------------------------------------------------------

def parse_header(path):
    tok = open(path).read().split()
    h = {"version": tok[0], "dim": int(tok[1])}
    i = 2
    nr = int(tok[i]); h["rnames"] = tok[i + 1:i + 1 + nr]; i += 1 + nr
    ni = int(tok[i]); h["inames"] = tok[i + 1:i + 1 + ni]; i += 1 + ni
    h["flag"], h["np"], h["next"], h["finest"] = int(tok[i]), int(tok[i + 1]), int(tok[i + 2]), int(tok[i + 3])
    i += 4
    h["ngrids"] = [int(t) for t in tok[i:i + h["finest"] + 1]]
    i += h["finest"] + 1
    h["table"] = []
    for ng in h["ngrids"]:
        h["table"].append([tuple(int(t) for t in tok[i + 3 * g:i + 3 * g + 3]) for g in range(ng)])
        i += 3 * ng
    assert i == len(tok)
    return h


def header_without_places(path):
    """The Header's text with each grid's file number and offset blanked (AMReX's depend on the ranks)."""
    lines = open(path).read().split("\n")
    return "\n".join(re.sub(r"^\d+ (\d+) \d+$", r"_ \1 _", ln) for ln in lines)


def grid_records(pdir):
    """{grid: bytes of its records} and the table of level 0."""
    h = parse_header(os.path.join(pdir, "Header"))
    psize = (2 + len(h["inames"])) * 4 + (h["dim"] + len(h["rnames"])) * 8
    out = {}
    for g, (which, cnt, where) in enumerate(h["table"][0]):
        if cnt:
            with open(os.path.join(pdir, "Level_0", f"DATA_{which:05d}"), "rb") as f:
                f.seek(where)
                out[g] = f.read(cnt * psize)
                assert len(out[g]) == cnt * psize
    return h, out, psize


def decode(h, recs, big):
    """The particles of the records, as the reference's columns (sorted by id)."""
    ni, nr = len(h["inames"]), len(h["rnames"])
    ids, cpus, rs, is_ = [], [], [], []
    for raw in recs.values():
        n = len(raw) // ((2 + ni) * 4 + (3 + nr) * 8)
        ii = np.frombuffer(raw, "<i4", n * (2 + ni)).reshape(n, 2 + ni)
        rr = np.frombuffer(raw, "<f8", n * (3 + nr), n * (2 + ni) * 4).reshape(n, 3 + nr)
        if big:  # checkpoint: ints 0 and 1 are the two halves of idcpu
            u = (ii[:, 0].view(np.uint32).astype(np.uint64) << np.uint64(32)) | ii[:, 1].view(np.uint32)
            a, b = ids_cpus(u)
        else:
            a, b = ii[:, 0].astype(np.int64), ii[:, 1].astype(np.int64)
        ids.append(a), cpus.append(b), rs.append(rr), is_.append(ii[:, 2:])
    out = {"id": np.concatenate(ids), "cpu": np.concatenate(cpus), "r": np.concatenate(rs), "i": np.concatenate(is_)}
    o = np.argsort(out["id"], kind="stable")
    return {k: v[o] for k, v in out.items()}


# ---- checks ---------------------------------------------------------------------------------------------

def check_setup():
    global TMP
    TMP = shared_dir()


def write_group(g, nfiles_args=(), tag=""):
    """Group g writes a mesh plotfile plt<tag>_g carrying both particle sets, and checkpoints chk<tag>_g."""
    def go():
        gm, dm, ba = geometry()
        mf = amr.MultiFab(ba, dm, 1, 0)
        mf.set_val(1.0)
        plt = os.path.join(TMP, f"plt{tag}_{g}")
        amr.write_single_level_plotfile(plt, mf, ["one"], gm, 0.0, 0)
        for layout, (cls, fam) in LAYOUTS.items():
            pc, pdm = make_pc(layout)
            fill(pc, layout, reference(layout))
            assert pc.total_number_of_particles() == G and pc.OK()
            getattr(amr, fam)().NextID(NEXT_ID)
            pc.write_plotfile(plt, layout)
            pc2, _ = make_pc(layout)
            fill(pc2, layout, reference(layout, big_ids=True))
            pc2.checkpoint(os.path.join(TMP, f"chk{tag}_{g}"), layout)
            if comm().Get_rank() == 0:
                PMAPS[(tag, g)] = list(pdm.ProcessorMap())
    in_group(g, go, nfiles_args)


def check_layout(tag, g, nfiles):
    """Rank 0: the files of group g against one rank's and AMReX's NFiles rule."""
    set_len = -(-g // nfiles)
    for base, big in ((f"plt{tag}_{g}", False), (f"chk{tag}_{g}", True)):
        ref_base = base.replace(f"{tag}_{g}", "_1")
        for layout in LAYOUTS:
            pdir = os.path.join(TMP, base, layout)
            rdir = os.path.join(TMP, ref_base, layout)
            assert header_without_places(os.path.join(pdir, "Header")) == \
                header_without_places(os.path.join(rdir, "Header")), (base, layout)
            assert open(os.path.join(pdir, "Level_0", "Particle_H"), "rb").read() == \
                open(os.path.join(rdir, "Level_0", "Particle_H"), "rb").read()
            h, recs, psize = grid_records(pdir)
            _, ref_recs, _ = grid_records(rdir)
            assert recs == ref_recs, (base, layout)  # each grid's bytes as one rank wrote them
            assert h["np"] == G and h["next"] == NEXT_ID and sum(c for _, c, _ in h["table"][0]) == G
            ref = reference(layout, big_ids=big)
            assert_same(decode(h, recs, big), ref, (base, layout))
            # AMReX's rule: the grid's owner writes it into DATA_<owner // ceil(nprocs / nfiles)>; the ranks of
            # one file one after another in rank order, each its grids in index order (empty ones included)
            pmap = PMAPS[(tag, g)]
            table = h["table"][0]
            assert all(w == pmap[i] // set_len for i, (w, _, _) in enumerate(table)), (base, layout)
            for f in sorted({w for w, _, _ in table}):
                grids = sorted((pmap[i], i) for i, (w, _, _) in enumerate(table) if w == f)
                at = 0
                for _, i in grids:
                    assert table[i][2] == at, (base, layout, f, i)
                    at += table[i][1] * psize
                path = os.path.join(pdir, "Level_0", f"DATA_{f:05d}")
                assert (os.path.getsize(path) == at) if at else not os.path.exists(path)
            files = sorted(x for x in os.listdir(os.path.join(pdir, "Level_0")) if x.startswith("DATA_"))
            want = sorted({f"DATA_{w:05d}" for w, c, _ in table if c})  # AMReX removes the empty files
            assert files == want, (files, want)
            assert len(files) == min(g, nfiles) or g > G
        assert not [x for x in os.listdir(os.path.join(TMP, base)) if x.startswith(".")]
    assert not [x for x in os.listdir(TMP) if x.startswith(".")], os.listdir(TMP)


def check_write():
    for g in groups():
        write_group(g)
    if rank() == 0:
        for g in groups():
            check_layout("", g, 256)
        # the Header's bytes: identical across rank counts but for the file numbers and offsets; on one
        # rank every grid is in DATA_00000
        h1 = parse_header(os.path.join(TMP, "plt_1", "particles", "Header"))
        assert {w for w, _, _ in h1["table"][0]} == {0}


def check_nfiles():
    """particles.particles_nfiles=2: ranks grouped into 2 files (rank // ceil(nprocs / 2)), read back exact."""
    write_group(size(), ("particles.particles_nfiles=2",), "_nf")
    if rank() == 0:
        check_layout("_nf", size(), 2)


def check_restart():
    """Written on W ranks, restarted on R ranks (plotfile and checkpoint): the same particles, bit for bit,
    each on the rank that owns its grid; the id counter raised to the file's next id."""
    for w in groups():
        for r in groups():
            def go():
                for layout, (cls, fam) in LAYOUTS.items():
                    for base, big in ((f"plt_{w}", False), (f"chk_{w}", True)):
                        for max_size in (8, 16):  # the writer's grids (each rank reads its own), other grids
                            getattr(amr, fam)().NextID(1)
                            pc, _ = make_pc(layout, max_size)
                            pc.restart(os.path.join(TMP, base), layout)
                            assert pc.OK() and pc.total_number_of_particles() == G
                            assert getattr(amr, fam)().NextID() == NEXT_ID
                            assert_same(gather(pc, layout), reference(layout, big), (w, r, base, layout))
            in_group(r, go)


def check_restart_then_write():
    """Restart on R ranks, write again: the same records per grid as the original one-rank file."""
    r = size()

    def go():
        for layout in LAYOUTS:
            pc, _ = make_pc(layout)
            pc.restart(os.path.join(TMP, "plt_1"), layout)
            pc.write_plotfile(os.path.join(TMP, "again"), layout)
    in_group(r, go)
    if rank() == 0:
        for layout in LAYOUTS:
            a = grid_records(os.path.join(TMP, "again", layout))
            b = grid_records(os.path.join(TMP, "plt_1", layout))
            assert a[1] == b[1]


def check_amrex_fixture():
    """AMReX 24.10's own files restart on every group size (its grids: each rank reads its own; finer grids:
    read round robin and redistributed) with the expected values."""
    exp_soa = np.load(os.path.join(FIX, "plt_mesh_particles_expected.npy"))
    exp_aos = np.load(os.path.join(FIX, "plt_mesh_aos_particles_expected.npy"))
    for g in groups():
        def go():
            for max_size in (16, 8):
                amr.Particle_8_0().NextID(1)
                pc = getattr(amr, LAYOUTS["particles"][0])(*geometry(max_size))
                pc.restart(os.path.join(FIX, "plt_mesh"), "particles")
                assert pc.total_number_of_particles() == 500 and pc.OK()
                assert amr.Particle_8_0().NextID() == 1001
                got = gather_plain_soa(pc)
                assert np.array_equal(got["id"], exp_soa["id"]) and np.array_equal(got["cpu"], exp_soa["cpu"])
                for c in range(8):
                    assert np.array_equal(got["r"][:, c], exp_soa[f"r{c}"]), c
                pc = getattr(amr, LAYOUTS["aos_particles"][0])(*geometry(max_size))
                pc.restart(os.path.join(FIX, "plt_mesh"), "aos_particles")
                assert pc.total_number_of_particles() == 300 and pc.OK()
                got = gather(pc, "aos_particles")
                rows = np.zeros(len(got["id"]), dtype=exp_aos.dtype)
                for k, nm in enumerate(("x", "y", "z", "s0", "s1", "a0", "a1", "a2")):
                    rows[nm] = got["r"][:, k]
                rows["si0"], rows["ai0"] = got["i"][:, 0], got["i"][:, 1]
                rows = rows[np.argsort(rows["s0"])]
                assert (rows == exp_aos).all()
        in_group(g, go)


def gather_plain_soa(pc):
    """The fixture's pure SoA set (8 reals, no ints), gathered and sorted by id."""
    ids, cpus, rs = [], [], []
    for pti in pc.const_iterator(pc, level=0):
        soa = pti.soa().to_numpy(copy=True)
        a, b = ids_cpus(soa.idcpu.astype(np.uint64))
        ids.append(a), cpus.append(b), rs.append(np.stack(list(soa.real.values()), axis=1))
    loc = (np.concatenate(ids) if ids else np.zeros(0, np.int64), np.concatenate(cpus) if cpus else np.zeros(0),
           np.concatenate(rs) if rs else np.zeros((0, 8)))
    parts = comm().allgather(loc)
    i, c, r = (np.concatenate([p[k] for p in parts]) for k in range(3))
    o = np.argsort(i)
    return {"id": i[o], "cpu": c[o], "r": r[o]}


def check_outbox_refused():
    """A particle that waits for redistribute on a rank without grids: writing raises ValueError on every
    rank and writes nothing."""
    if size() == 1:
        return

    def go():
        gm, _, ba = geometry()
        dm = amr.DistributionMapping([0] * ba.size)  # every grid on rank 0
        pc = amr.ParticleContainer_pureSoA_8_0_default(gm, dm, ba)
        n = 3 if comm().Get_rank() == 1 else 0
        pc.add_particles([np.full(n, 0.1), np.full(n, 0.1), np.full(n, 0.1)], redistribute=False)
        for op in (pc.write_plotfile, pc.checkpoint):
            try:
                op(TMP, "outbox")
            except ValueError as e:
                assert "redistribute" in str(e), str(e)
            else:
                raise AssertionError("no ValueError")
        pc.redistribute()
        pc.write_plotfile(TMP, "outbox")
        pc2 = amr.ParticleContainer_pureSoA_8_0_default(gm, dm, ba)
        pc2.restart(TMP, "outbox")
        assert pc2.total_number_of_particles() == 3
    in_group(size(), go)


def check_nonfinite_refused():
    """A position made NaN through a view on the last rank (issue 21: written, then restart refused the file):
    write_plotfile and checkpoint raise ValueError on every rank and nothing is written."""
    def go():
        pc, _ = make_pc("particles")
        fill(pc, "particles", reference("particles"))
        victim = comm().Get_size() - 1
        mine = comm().Get_rank() == victim
        if mine:
            pti = next(iter(pc.iterator(pc, level=0)))
            pti.soa().to_numpy().real["z"][0] = np.nan
        for op in (pc.write_plotfile, pc.checkpoint):
            where = os.path.join(TMP, "nonfinite_" + op.__name__)
            try:
                op(where, "particles")
            except ValueError as e:
                assert "not finite" in str(e) and "nothing was written" in str(e), str(e)
            else:
                raise AssertionError("no ValueError")
            comm().Barrier()
            assert not os.path.exists(where), where
        if mine:
            pti.soa().to_numpy().real["z"][0] = 0.25
        pc.write_plotfile(os.path.join(TMP, "nonfinite_fixed"), "particles")
    in_group(size(), go)


def check_failure_on_one_rank():
    """The last rank cannot write past 4 KB (RLIMIT_FSIZE: EFBIG, as a full disk): every rank raises OSError,
    the particle directory already there is untouched, no temporary is left."""
    plt = os.path.join(TMP, "plt_fail")

    def first():
        pc, _ = make_pc("particles")
        fill(pc, "particles", reference("particles"))
        pc.write_plotfile(plt, "particles")
    in_group(size(), first)
    before = open(os.path.join(plt, "particles", "Header"), "rb").read() if rank() == 0 else None

    def write():
        pc, _ = make_pc("particles")
        fill(pc, "particles", reference("particles", big_ids=True))
        victim = rank() == size() - 1
        old = resource.getrlimit(resource.RLIMIT_FSIZE)
        prev = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        if victim:
            resource.setrlimit(resource.RLIMIT_FSIZE, (4096, old[1]))
        try:
            for op, where in ((pc.write_plotfile, plt), (pc.checkpoint, os.path.join(TMP, "chk_fail"))):
                try:
                    op(where, "particles")
                except OSError as e:
                    assert "DATA_" in str(e), str(e)
                else:
                    raise AssertionError(f"no OSError on rank {rank()}")
        finally:
            resource.setrlimit(resource.RLIMIT_FSIZE, old)
            signal.signal(signal.SIGXFSZ, prev)
    in_group(size(), write)
    if rank() == 0:
        assert open(os.path.join(plt, "particles", "Header"), "rb").read() == before
        assert sorted(os.listdir(plt)) == ["particles"], os.listdir(plt)  # no temporary beside it
        # the folder made for the failed checkpoint is removed with it (nothing left behind)
        assert not os.path.exists(os.path.join(TMP, "chk_fail"))


def check_yt():
    """yt loads the mesh plotfile written on 2 ranks (or fewer) with its particles: the same count and
    positions as the input."""
    if rank() != 0:
        return
    from mpi_harness import need_yt
    yt = need_yt()
    if yt is None:
        return
    yt.set_log_level(50)
    w = min(2, size())
    ds = yt.load(os.path.join(TMP, f"plt_{w}"))
    ad = ds.all_data()
    ref = reference("particles")
    o = np.argsort(ref["id"])
    got_id = np.asarray(ad["particles", "particle_id"]).astype(np.int64)
    assert len(got_id) == G
    p = np.argsort(got_id)
    assert np.array_equal(got_id[p], ref["id"][o])
    for d, ax in enumerate("xyz"):
        got = np.asarray(ad["particles", f"particle_position_{ax}"])[p]
        assert np.array_equal(got, ref["r"][o, d]), ax


def check_cleanup():
    MPI.COMM_WORLD.Barrier()
    if rank() == 0:
        shutil.rmtree(TMP, ignore_errors=True)


run([check_setup, check_write, check_nfiles, check_restart, check_restart_then_write, check_amrex_fixture,
     check_outbox_refused, check_nonfinite_refused, check_failure_on_one_rank, check_yt, check_cleanup])
