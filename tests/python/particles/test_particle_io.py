"""Particle files in AMReX's binary format (issue 11): write_plotfile against files written by AMReX
24.10 itself (byte for byte), restart of AMReX's files against the expected values, round trips
(write -> restart, checkpoint -> restart) for pure SoA and legacy layouts in 1D/2D/3D with run-time
components, errors naming the file, and a fuzz of the Header / Particle_H readers.

The AMReX fixture is tests/fixtures/amrex-plotfiles (or $BOXFAB_AMREX_FIXTURES); its tests
fail where it is absent.  The expected layout of the files is parsed here with NumPy from the format's
description (PLOTFILE.md), independently of boxfab's reader."""
import os
import shutil

import numpy as np
import pytest

from mfhelp import ensure_init

from amrex_fixture import ROOT as FIX, needs_fixture


def dim_of(amr):
    return int(amr.__name__[-2])


def geom3(amr):
    """The fixture's geometry: 32^3 cells in 16^3 boxes on [-1,1]x[0,2]x[0,0.5], periodic x, y."""
    ensure_init(amr)
    dom = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(31, 31, 31))
    ba = amr.BoxArray(dom)
    ba.max_size(16)
    dm = amr.DistributionMapping(ba)
    gm = amr.Geometry(dom, amr.RealBox([-1.0, 0.0, 0.0], [1.0, 2.0, 0.5]), 0, [1, 1, 0])
    return gm, dm, ba


def parse_header(path):
    """Header tokens -> dict (NumPy-free, straight from the format description)."""
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
    return h


def read_records(pdir):
    """All particles of a particle directory as (ints (n, 2+ni), reals (n, dim+nr), grid) in file order."""
    h = parse_header(os.path.join(pdir, "Header"))
    ni, nr = len(h["inames"]), len(h["rnames"])
    ints, reals, grid = [], [], []
    for lev, rows in enumerate(h["table"]):
        for g, (which, cnt, where) in enumerate(rows):
            if cnt == 0:
                continue
            raw = open(os.path.join(pdir, f"Level_{lev}", f"DATA_{which:05d}"), "rb").read()
            iw = cnt * (2 + ni) * 4
            ints.append(np.frombuffer(raw, "<i4", cnt * (2 + ni), where).reshape(cnt, 2 + ni))
            reals.append(np.frombuffer(raw, "<f8", cnt * (h["dim"] + nr), where + iw).reshape(cnt, h["dim"] + nr))
            grid.append(np.full(cnt, g))
    if not ints:
        return h, np.zeros((0, 2 + ni), np.int32), np.zeros((0, h["dim"] + nr)), np.zeros(0, int)
    return h, np.concatenate(ints), np.concatenate(reals), np.concatenate(grid)


def same_tree(a, b):
    fa = sorted(os.path.relpath(os.path.join(r, f), a) for r, _, fs in os.walk(a) for f in fs)
    fb = sorted(os.path.relpath(os.path.join(r, f), b) for r, _, fs in os.walk(b) for f in fs)
    assert fa == fb
    for f in fa:
        assert open(os.path.join(a, f), "rb").read() == open(os.path.join(b, f), "rb").read(), f


# ---- AMReX's files, byte for byte -------------------------------------------------------------------

@needs_fixture
def test_write_pure_soa_matches_amrex_bytes(amr3, tmp_path):
    amr = amr3
    exp = np.load(os.path.join(FIX, "plt_mesh_particles_expected.npy"))
    _, ints, _, _ = read_records(os.path.join(FIX, "plt_mesh", "particles"))
    order = np.searchsorted(exp["id"], ints[:, 0])          # the file's particle order, by id
    assert (exp["id"][order] == ints[:, 0]).all()
    e = exp[order]
    gm, dm, ba = geom3(amr)
    pc = amr.ParticleContainer_pureSoA_8_0_default(gm, dm, ba)
    cols = {n: e[f"r{c}"] for c, n in zip(range(3, 8), pc.real_comp_names[3:8])}
    pc.add_particles([e["r0"], e["r1"], e["r2"]], cols, ids=e["id"], cpus=e["cpu"])
    amr.Particle_8_0().NextID(1001)
    pc.write_plotfile(str(tmp_path / "plt"), "particles")
    same_tree(str(tmp_path / "plt" / "particles"), os.path.join(FIX, "plt_mesh", "particles"))


@needs_fixture
def test_write_legacy_aos_matches_amrex_bytes(amr3, tmp_path):
    amr = amr3
    exp = np.load(os.path.join(FIX, "plt_mesh_aos_particles_expected.npy"))
    h, ints, reals, _ = read_records(os.path.join(FIX, "plt_mesh", "aos_particles"))
    order = np.searchsorted(exp["s0"], reals[:, 3])
    assert (exp["s0"][order] == reals[:, 3]).all()
    e = exp[order]
    gm, dm, ba = geom3(amr)
    pc = amr.ParticleContainer_2_1_3_1_default(gm, dm, ba)
    rn = pc.real_comp_names
    cols = {"rdata_0": e["s0"], "rdata_1": e["s1"], "idata_0": e["si0"], rn[0]: e["a0"], rn[1]: e["a1"],
            rn[2]: e["a2"], pc.int_comp_names[0]: e["ai0"]}
    pc.add_particles([e["x"], e["y"], e["z"]], cols, ids=ints[:, 0].astype(np.int64), cpus=ints[:, 1])
    amr.Particle_5_2().NextID(h["next"])
    pc.write_plotfile(str(tmp_path), "aos_particles")
    same_tree(str(tmp_path / "aos_particles"), os.path.join(FIX, "plt_mesh", "aos_particles"))


@needs_fixture
def test_restart_amrex_pure_soa(amr3):
    amr = amr3
    exp = np.load(os.path.join(FIX, "plt_mesh_particles_expected.npy"))
    gm, dm, ba = geom3(amr)
    pc = amr.ParticleContainer_pureSoA_8_0_default(gm, dm, ba)
    amr.Particle_8_0().NextID(1)
    pc.restart(os.path.join(FIX, "plt_mesh"), "particles")
    assert pc.total_number_of_particles() == 500 and pc.OK()
    df = pc.to_df() if _has_pandas() else None
    got = _gather(pc)
    o = np.argsort(got["id"])
    assert (got["id"][o] == exp["id"]).all() and (got["cpu"][o] == exp["cpu"]).all()
    for c in range(8):
        assert (got["r"][o, c] == exp[f"r{c}"]).all()
    assert amr.Particle_8_0().NextID() == 1001
    del df
    # the counter is raised to the file's next id, never lowered
    amr.Particle_8_0().NextID(5000)
    pc.restart(os.path.join(FIX, "plt_mesh"), "particles")
    assert pc.total_number_of_particles() == 1000 and amr.Particle_8_0().NextID() == 5000


@needs_fixture
def test_restart_amrex_legacy(amr3):
    amr = amr3
    exp = np.load(os.path.join(FIX, "plt_mesh_aos_particles_expected.npy"))
    gm, dm, ba = geom3(amr)
    pc = amr.ParticleContainer_2_1_3_1_default(gm, dm, ba)
    pc.restart_checkpoint(os.path.join(FIX, "plt_mesh"), "aos_particles", False)
    assert pc.total_number_of_particles() == 300 and pc.OK()
    rows = []
    for pti in pc.iterator(pc, level=0):
        aos = pti.aos().to_numpy(copy=True)
        soa = pti.soa()
        a = [soa.get_real_data(c).to_numpy() for c in range(3)]
        ai = soa.get_int_data(0).to_numpy()
        for t in range(pti.num_particles):
            rows.append((aos["x"][t], aos["y"][t], aos["z"][t], aos["rdata_0"][t], aos["rdata_1"][t],
                         aos["idata_0"][t], a[0][t], a[1][t], a[2][t], ai[t]))
    rows.sort(key=lambda r: r[3])
    got = np.array(rows, dtype=exp.dtype)
    assert (got == exp).all()


@needs_fixture
def test_restart_then_write_reproduces_amrex(amr3, tmp_path):
    amr = amr3
    for name, cls, ptype in (("particles", "pureSoA_8_0", "8_0"), ("aos_particles", "2_1_3_1", "5_2")):
        getattr(amr, f"Particle_{ptype}")().NextID(1)   # a fresh run: restart raises it to the file's
        gm, dm, ba = geom3(amr)
        pc = getattr(amr, f"ParticleContainer_{cls}_default")(gm, dm, ba)
        pc.restart(os.path.join(FIX, "plt_mesh"), name)
        pc.write_plotfile(str(tmp_path), name)
        same_tree(str(tmp_path / name), os.path.join(FIX, "plt_mesh", name))


def _has_pandas():
    try:
        import pandas  # noqa: F401
        return True
    except ImportError:
        return False


def _gather(pc):
    ids, cpus, reals, ints = [], [], [], []
    for lev in range(pc.finest_level + 1):
        for pti in pc.const_iterator(pc, level=lev):
            soa = pti.soa().to_numpy(copy=True)
            u = soa.idcpu
            v = ((u >> np.uint64(24)) & np.uint64(0x7FFFFFFFFF)).astype(np.int64)
            ids.append(np.where(u >> np.uint64(63), v, -v))
            cpus.append((u & np.uint64(0xFFFFFF)).astype(np.int64))
            reals.append(np.stack(list(soa.real.values()), axis=1))
            ints.append(np.stack(list(soa.int.values()), axis=1) if soa.int else np.zeros((len(u), 0), np.int32))
    return {"id": np.concatenate(ids), "cpu": np.concatenate(cpus), "r": np.concatenate(reals),
            "i": np.concatenate(ints)}


# ---- round trips --------------------------------------------------------------------------------------

def make_pc(amr, cls, nlev=1):
    ensure_init(amr)
    dim = dim_of(amr)
    dom = amr.Box(amr.IntVect(*([0] * dim)), amr.IntVect(*([15] * dim)))
    rb = amr.RealBox([0.0] * dim, [1.0] * dim)
    gm = amr.Geometry(dom, rb, 0, [1] * dim)
    ba = amr.BoxArray(dom)
    ba.max_size(8)
    dm = amr.DistributionMapping(ba)
    return getattr(amr, cls)(gm, dm, ba), gm, dm, ba


def fill(pc, dim, n, seed):
    rng = np.random.default_rng(seed)
    pos = rng.uniform(0, 1, (n, dim))
    cols = {}
    skip = dim if pc.is_soa_particle else 0
    for name in pc.real_comp_names[skip:]:
        cols[name] = rng.normal(size=n)
    for name in pc.int_comp_names:
        cols[name] = rng.integers(-1000, 1000, n).astype(np.int32)
    for i in range(pc.num_struct_real):
        cols[f"rdata_{i}"] = rng.normal(size=n)
    for i in range(pc.num_struct_int):
        cols[f"idata_{i}"] = rng.integers(-5, 5, n).astype(np.int32)
    pc.add_particles(pos, cols)


def snapshot(pc):
    """Every datum of every particle, sorted by id (df-free)."""
    out = []
    for lev in range(pc.finest_level + 1):
        for pti in pc.const_iterator(pc, level=lev):
            if pc.num_real_comps + pc.num_int_comps:
                soa = pti.soa().to_numpy(copy=True)
                cols = list(soa.real.values()) + [a.astype(np.float64) for a in soa.int.values()]
            else:
                cols = []   # a legacy layout without SoA components
            if not pc.is_soa_particle:
                aos = pti.aos().to_numpy(copy=True)
                idc = aos["cpuid"] if "cpuid" in aos.dtype.names else aos["idcpu"]
                cols = [aos[n].astype(np.float64) for n in aos.dtype.names if n not in ("cpuid", "idcpu")] + cols
            else:
                idc = soa.idcpu
            out.append(np.column_stack([idc.astype(np.float64)] + cols) if len(idc) else None)
    out = [o for o in out if o is not None]
    a = np.concatenate(out) if out else np.zeros((0, 1))
    return a[np.argsort(a[:, 0], kind="stable")]


@pytest.mark.parametrize("checkpoint", [False, True])
@pytest.mark.parametrize("legacy", [False, True])
def test_round_trip(amr, tmp_path, legacy, checkpoint):
    dim = dim_of(amr)
    cls = "ParticleContainer_2_1_3_1_default" if legacy else f"ParticleContainer_pureSoA_{dim + 2}_1_default"
    if not hasattr(amr, cls):
        cls = next(n for n in dir(amr) if n.startswith("ParticleContainer_" + ("2_" if legacy else "pureSoA"))
                   and n.endswith("_default"))
    pc, gm, dm, ba = make_pc(amr, cls)
    pc.add_real_comp("extra_r", True)
    pc.add_int_comp("extra_i", True)
    fill(pc, dim, 300, 7)
    before = snapshot(pc)
    (pc.checkpoint if checkpoint else pc.write_plotfile)(str(tmp_path / "out"), "p")
    h = parse_header(str(tmp_path / "out" / "p" / "Header"))
    assert h["version"] == ("Version_Two_Dot_One_double" if checkpoint else "Version_Two_Dot_Zero_double")
    assert h["np"] == 300 and h["dim"] == dim
    pc2, *_ = make_pc(amr, cls)
    pc2.add_real_comp("extra_r", True)
    pc2.add_int_comp("extra_i", True)
    pc2.restart(str(tmp_path / "out"), "p")
    assert pc2.OK() and pc2.total_number_of_particles() == 300
    after = snapshot(pc2)
    assert after.shape == before.shape and np.array_equal(after, before)
    # no temporary sibling left behind
    assert os.listdir(tmp_path / "out") == ["p"]


def test_write_replaces_existing_and_skips_invalid(amr3, tmp_path):
    amr = amr3
    pc, *_ = make_pc(amr, "ParticleContainer_pureSoA_8_0_default")
    fill(pc, 3, 50, 1)
    pc.write_plotfile(str(tmp_path), "p")
    (tmp_path / "p" / "stale").write_text("x")
    # invalidate one particle: written files hold the 49 others
    pti = next(iter(pc.iterator(pc, level=0)))
    idc = pti.soa().get_idcpu_data().to_numpy()
    idc[0] = idc[0] & ~np.uint64(1 << 63)
    pc.write_plotfile(str(tmp_path), "p")
    assert not (tmp_path / "p" / "stale").exists()
    assert parse_header(str(tmp_path / "p" / "Header"))["np"] == 49
    assert sorted(os.listdir(tmp_path)) == ["p"]


def test_generic_container_writes_names(amr3, tmp_path):
    amr = amr3
    pc, gm, dm, ba = make_pc(amr, "ParticleContainer_pureSoA_8_0_default")
    g = amr.ParticleContainer(gm, dm, ba, real_names=["w", "ux"], int_names=["species"])
    g.add_particles(np.full((4, 3), 0.3), {"w": np.arange(4.0), "species": np.arange(4, dtype=np.int32)})
    g.write_plotfile(str(tmp_path), "named")
    h = parse_header(str(tmp_path / "named" / "Header"))
    assert h["rnames"] == ["w", "ux"] and h["inames"] == ["species"]
    bad = amr.ParticleContainer(gm, dm, ba, real_names=["a b"])
    with pytest.raises(ValueError, match="a b"):
        bad.write_plotfile(str(tmp_path), "bad")
    assert not (tmp_path / "bad").exists()
    g2 = amr.ParticleContainer(gm, dm, ba, real_names=["w", "ux"], int_names=["species"])
    g2.restart(str(tmp_path), "named")
    assert np.array_equal(snapshot(g2), snapshot(g))


def test_empty_container_and_multilevel_file(amr3, tmp_path):
    amr = amr3
    pc, *_ = make_pc(amr, "ParticleContainer_pureSoA_8_0_default")
    pc.write_plotfile(str(tmp_path), "e")
    h = parse_header(str(tmp_path / "e" / "Header"))
    assert h["np"] == 0 and h["table"] == [[(0, 0, 0)] * 8]
    assert not (tmp_path / "e" / "Level_0").exists()
    pc.restart(str(tmp_path), "e")
    assert pc.total_number_of_particles() == 0


# ---- errors -------------------------------------------------------------------------------------------

def test_errors(amr3, tmp_path):
    amr = amr3
    pc, *_ = make_pc(amr, "ParticleContainer_pureSoA_8_0_default")
    fill(pc, 3, 20, 2)
    with pytest.raises(ValueError, match="one path component"):
        pc.write_plotfile(str(tmp_path), "a/b")
    with pytest.raises(ValueError, match="empty"):
        pc.write_plotfile(str(tmp_path), "")
    with pytest.raises(TypeError):
        pc.write_plotfile(1, "p")
    with pytest.raises(ValueError, match="null|NUL"):
        pc.write_plotfile(str(tmp_path), "p\0")
    (tmp_path / "file").write_text("x")
    with pytest.raises(OSError, match="file"):
        pc.write_plotfile(str(tmp_path / "file"), "p")
    with pytest.raises(OSError, match="Header"):
        pc.restart(str(tmp_path), "missing")
    # component mismatch
    pc.write_plotfile(str(tmp_path), "p")
    other, *_ = make_pc(amr, "ParticleContainer_pureSoA_7_0_default") if hasattr(
        amr, "ParticleContainer_pureSoA_7_0_default") else make_pc(amr, "ParticleContainer_2_1_3_1_default")
    with pytest.raises(ValueError, match="components"):
        other.restart(str(tmp_path), "p")
    assert other.total_number_of_particles() == 0
    # a truncated data file: ValueError naming it, container unchanged
    data = tmp_path / "p" / "Level_0" / "DATA_00000"
    data.write_bytes(data.read_bytes()[:-8])
    n0 = pc.total_number_of_particles()
    with pytest.raises(ValueError, match="DATA_00000"):
        pc.restart(str(tmp_path), "p")
    assert pc.total_number_of_particles() == n0
    # 2D file into a 3D container
    a2 = pytest.importorskip("boxfab.space2d")
    p2, *_ = make_pc(a2, "ParticleContainer_pureSoA_8_0_default" if hasattr(
        a2, "ParticleContainer_pureSoA_8_0_default") else "ParticleContainer_2_1_3_1_default")
    p2.write_plotfile(str(tmp_path), "two")
    with pytest.raises(ValueError, match="dimension"):
        pc.restart(str(tmp_path), "two")


def test_header_line_numbers(amr3, tmp_path):
    amr = amr3
    pc, *_ = make_pc(amr, "ParticleContainer_pureSoA_8_0_default")
    fill(pc, 3, 20, 3)
    pc.write_plotfile(str(tmp_path), "p")
    hp = tmp_path / "p" / "Header"
    lines = hp.read_text().split("\n")
    lines[1] = "x"
    hp.write_text("\n".join(lines))
    with pytest.raises(ValueError, match=r"Header line 2: the dimension must be an integer"):
        pc.restart(str(tmp_path), "p")
    ph = tmp_path / "p" / "Level_0" / "Particle_H"
    pc.write_plotfile(str(tmp_path), "p")
    ph.write_text("(8 0\n((0,0,0) (7,7,7) (0,0,0)\n)\n")
    with pytest.raises(ValueError, match=r"Particle_H line \d+: expected"):
        pc.restart(str(tmp_path), "p")


# ---- fuzz ---------------------------------------------------------------------------------------------

def test_fuzz_readers(amr3, tmp_path):
    hyp = pytest.importorskip("hypothesis")
    st = hyp.strategies
    amr = amr3
    pc, *_ = make_pc(amr, "ParticleContainer_pureSoA_8_0_default")
    fill(pc, 3, 30, 4)
    pc.write_plotfile(str(tmp_path), "good")
    good = {f: (tmp_path / "good" / f).read_bytes() for f in ("Header", "Level_0/Particle_H", "Level_0/DATA_00000")}
    target, *_ = make_pc(amr, "ParticleContainer_pureSoA_8_0_default")

    @hyp.settings(max_examples=150, deadline=None, suppress_health_check=list(hyp.HealthCheck))
    @hyp.given(which=st.sampled_from(sorted(good)), pos=st.integers(0, 10**6), cut=st.booleans(),
               junk=st.binary(max_size=40))
    def run(which, pos, cut, junk):
        d = tmp_path / "fz"
        if d.exists():
            shutil.rmtree(d)
        shutil.copytree(tmp_path / "good", d)
        b = good[which]
        p = pos % (len(b) + 1)
        nb = b[:p] + junk + (b"" if cut else b[p + len(junk):])
        (d / which).write_bytes(nb)
        n0 = target.total_number_of_particles()
        try:
            target.restart(str(tmp_path), "fz")
        except (ValueError, OSError) as e:
            assert "fz" in str(e)
            assert target.total_number_of_particles() == n0
        else:
            target.clear_particles()

    run()


def test_restart_into_other_grids_and_single_precision(amr3, tmp_path):
    """The file's grids need not be the container's (AMReX's dual-grid restart): the particles are
    redistributed into the container's grids.  A _single file (floats) is read as doubles."""
    amr = amr3
    pc, gm, dm, ba = make_pc(amr, "ParticleContainer_pureSoA_8_0_default")
    fill(pc, 3, 200, 9)
    before = snapshot(pc)
    pc.write_plotfile(str(tmp_path), "p")
    ba2 = amr.BoxArray(amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(15, 15, 15)))
    ba2.max_size(4)
    pc2 = amr.ParticleContainer_pureSoA_8_0_default(gm, amr.DistributionMapping(ba2), ba2)
    pc2.restart(str(tmp_path), "p")
    assert pc2.OK() and np.array_equal(snapshot(pc2), before)
    assert sum(pc2.number_of_particles_in_grid(0)) == 200 and len(pc2.number_of_particles_in_grid(0)) == 64
    # the same particles as floats
    h, ints, reals, grid = read_records(str(tmp_path / "p"))
    hp = tmp_path / "p" / "Header"
    hp.write_text(hp.read_text().replace("_double", "_single", 1))
    lines = hp.read_text().split("\n")
    out, where = bytearray(), 0
    nrow = len(h["table"][0])
    first = lines.index(next(ln for ln in lines if ln.count(" ") == 2))   # the grid table
    k = 0
    for g in range(nrow):
        cnt = h["table"][0][g][1]
        blk = ints[k:k + cnt].astype("<i4").tobytes() + reals[k:k + cnt].astype("<f4").tobytes()
        lines[first + g] = f"0 {cnt} {where}"
        out += blk
        where += len(blk)
        k += cnt
    hp.write_text("\n".join(lines))
    (tmp_path / "p" / "Level_0" / "DATA_00000").write_bytes(bytes(out))
    pc3, *_ = make_pc(amr, "ParticleContainer_pureSoA_8_0_default")
    pc3.restart(str(tmp_path), "p")
    s3 = snapshot(pc3)
    exp = before.copy()
    exp[:, 1:9] = exp[:, 1:9].astype(np.float32).astype(np.float64)
    assert s3.shape == exp.shape and np.array_equal(s3[:, 0], exp[:, 0]) and np.array_equal(s3[:, 1:9], exp[:, 1:9])


def test_restart_more_levels_than_container(amr3, tmp_path):
    """A file with a finer level than the container: those particles go to the container's finest."""
    amr = amr3
    pc, gm, dm, ba = make_pc(amr, "ParticleContainer_pureSoA_8_0_default")
    fill(pc, 3, 50, 11)
    pc.write_plotfile(str(tmp_path), "p")
    hp = tmp_path / "p" / "Header"
    t = hp.read_text().split("\n")
    # move the particles to a level 1 of the same grids: finest 1, level 0 has 8 empty grids
    i_fin = next(i for i in range(len(t)) if t[i] == "0" and t[i + 1] == "8")
    table = t[i_fin + 2:i_fin + 10]
    t[i_fin:i_fin + 10] = ["1", "8", "8"] + ["0 0 0"] * 8 + table
    hp.write_text("\n".join(t))
    os.rename(tmp_path / "p" / "Level_0", tmp_path / "p" / "Level_1")
    pc2, *_ = make_pc(amr, "ParticleContainer_pureSoA_8_0_default")
    pc2.restart(str(tmp_path), "p")
    assert pc2.OK() and np.array_equal(snapshot(pc2), snapshot(pc))


@pytest.mark.parametrize("alloc", ["pinned", "device", "managed", "arena", "async"])
def test_allocators_write_the_same_bytes(amr3, tmp_path, alloc):
    """Every memory kind writes through host copies (bf_podvec_read): the same files."""
    amr = amr3
    files = []
    for a in ("default", alloc):
        pc, *_ = make_pc(amr, f"ParticleContainer_2_1_3_1_{a}")
        fill(pc, 3, 120, 5)
        amr.Particle_5_2().NextID(777)
        pc.write_plotfile(str(tmp_path / a), "p")
        files.append(str(tmp_path / a / "p"))
        pc2, *_ = make_pc(amr, f"ParticleContainer_2_1_3_1_{a}")
        pc2.restart(str(tmp_path / a), "p")
        assert np.array_equal(snapshot(pc2), snapshot(pc))
    h0 = parse_header(os.path.join(files[0], "Header"))
    h1 = parse_header(os.path.join(files[1], "Header"))
    assert h0 == h1
    r0, r1 = read_records(files[0]), read_records(files[1])
    # ids differ (new ids per fill); everything else is equal
    assert np.array_equal(r0[2], r1[2]) and np.array_equal(r0[1][:, 1:], r1[1][:, 1:])


def test_legacy_16_4_init_random_round_trip(amr3, tmp_path):
    """The 16-real, 4-int legacy layout filled by init_random on a non-periodic domain, written
    next to other files of a plotfile folder and read back into a new container."""
    amr = amr3
    ensure_init(amr)
    dom = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(31, 31, 31))
    rb = amr.RealBox([-0.5] * 3, [0.5] * 3)
    gm = amr.Geometry(dom, rb, 0, [0, 0, 0])
    ba = amr.BoxArray(dom)
    dm = amr.DistributionMapping(ba)
    pc = amr.ParticleContainer_16_4_0_0_default(gm, dm, ba)
    pc.init_random(15, 1, amr.ParticleInitType_16_4_0_0(), False, rb)
    plt = tmp_path / "plt_test"
    plt.mkdir()
    (plt / "Header").write_text("mesh header stays\n")
    pc.write_plotfile(str(plt), "particles")
    assert (plt / "Header").read_text() == "mesh header stays\n"
    pc2 = amr.ParticleContainer_16_4_0_0_default(gm, dm, ba)
    pc2.restart(str(plt), "particles")
    assert pc2.total_number_of_particles() == 15 and np.array_equal(snapshot(pc2), snapshot(pc))


def test_after_finalize_raises(tmp_path):
    from conftest import run_python
    r = run_python(f"""
        import boxfab.space3d as amr
        amr.initialize([])
        dom = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(7, 7, 7))
        ba = amr.BoxArray(dom)
        pc = amr.ParticleContainer_pureSoA_8_0_default(
            amr.Geometry(dom, amr.RealBox([0.0] * 3, [1.0] * 3), 0, [0, 0, 0]), amr.DistributionMapping(ba), ba)
        pc.write_plotfile({str(tmp_path)!r}, "p")
        amr.finalize()
        for call in (lambda: pc.write_plotfile({str(tmp_path)!r}, "q"), lambda: pc.restart({str(tmp_path)!r}, "p"),
                     lambda: pc.checkpoint({str(tmp_path)!r}, "c")):
            try:
                call()
            except RuntimeError:
                pass
            else:
                raise SystemExit("no RuntimeError")
        print("ok")
    """)
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr
    assert not (tmp_path / "q").exists()


def test_overlapping_grid_table_refused(amr3, tmp_path):
    """Grids that claim the same bytes (a hostile table could make the reader allocate the file's
    size once per grid): ValueError, container unchanged."""
    amr = amr3
    ensure_init(amr)
    dom = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(15, 15, 15))
    ba = amr.BoxArray(dom)          # one grid: its data is the whole file
    gm = amr.Geometry(dom, amr.RealBox([0.0] * 3, [1.0] * 3), 0, [1, 1, 1])
    pc = amr.ParticleContainer_pureSoA_8_0_default(gm, amr.DistributionMapping(ba), ba)
    fill(pc, 3, 40, 12)
    pc.write_plotfile(str(tmp_path), "p")
    hp = tmp_path / "p" / "Header"
    t = hp.read_text().rstrip("\n").split("\n")
    assert t[-1] == "0 40 0" and t[-2] == "1" and t[-5] == "40"
    t[-5], t[-2], t[-1:] = "80", "2", ["0 40 0", "0 40 0"]   # two grids, the same 40 particles
    hp.write_text("\n".join(t) + "\n")
    (tmp_path / "p" / "Level_0" / "Particle_H").unlink()    # optional (AMReX reads files without it)
    pc2 = amr.ParticleContainer_pureSoA_8_0_default(gm, amr.DistributionMapping(ba), ba)
    with pytest.raises(ValueError, match="claims more bytes"):
        pc2.restart(str(tmp_path), "p")
    assert pc2.total_number_of_particles() == 0


def test_disk_full_names_the_file_and_the_reason(tmp_path):
    """A file size limit (EFBIG, like a full disk) fails a small file at its flush in fclose: the
    OSError names the file and the real reason (the errno from before fclose was reported: an unrelated
    reason or "Success"), and nothing is left under the final name."""
    import subprocess
    import sys
    import textwrap
    here = os.path.dirname(os.path.abspath(__file__))
    code = textwrap.dedent(f"""
        import resource, signal, sys
        sys.path[:0] = [{here!r}, __import__("os").path.dirname({here!r})]  # the test module, and the helpers it imports
        import boxfab.space3d as amr
        from test_particle_io import make_pc, fill
        amr.initialize(["amrex.verbose=0"])
        pc, *_ = make_pc(amr, "ParticleContainer_pureSoA_8_0_default")
        fill(pc, 3, 20, 2)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (60, 60))
        try:
            pc.write_plotfile({str(tmp_path)!r}, "p")
        except OSError as e:
            print("OSError:", e)
        """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    # the first file past the limit is named (the data files are written before Particle_H)
    assert r.stdout.startswith("OSError:") and ("Particle_H" in r.stdout or "DATA_" in r.stdout), r.stdout
    assert os.strerror(27) in r.stdout, r.stdout            # EFBIG: "File too large"
    assert os.listdir(tmp_path) == []
