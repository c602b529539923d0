"""pyAMReX 26's particle API (docs/particles.md "pyAMReX 26"): AMReX's default component names of legacy
containers, set_soa_compile_time_names, the polymorphic arena, iterator(level=), pti[name], get_real_data(name),
the idcpu helpers (checked against NumPy bit operations), reserve_particle_ids, add_arrays / add_df (checked
against the input columns, with NumPy as the reference), write_plotfile with names, ParticleHeader (checked
against the Header text parsed here) and read_particles."""
import importlib.util
import os

import numpy as np
import pytest

from mfhelp import ensure_init

N, BS = 16, 8


def dim_of(amr):
    return int(amr.__name__[-2])


def geometry(amr):
    ensure_init(amr)
    dim = dim_of(amr)
    dom = amr.Box(amr.IntVect(*([0] * dim)), amr.IntVect(*([N - 1] * dim)))
    gm = amr.Geometry(dom, amr.RealBox([0.0] * dim, [1.0] * dim), 0, [0] * dim)
    ba = amr.BoxArray(dom)
    ba.max_size(BS)
    return gm, amr.DistributionMapping(ba), ba


def soa_pc(amr, nreal=None, extra_real=("w",), extra_int=("i1", "i2")):
    """A pure SoA polymorphic container with the positions, a, b, ... and named run-time components."""
    dim = dim_of(amr)
    nreal = nreal or dim
    pc = getattr(amr, f"ParticleContainer_pureSoA_{nreal}_0_polymorphic")(*geometry(amr))
    pc.arena = amr.The_Arena()
    for name in extra_real:
        pc.add_real_comp(name, True)
    for name in extra_int:
        pc.add_int_comp(name, True)
    return pc


def columns_of(pc):
    """Every particle's components by name (concatenated over tiles), copies."""
    cols = {}
    for lev in range(pc.finest_level + 1):
        for pti in pc.iterator(level=lev):
            soa = pti.soa().to_numpy(copy=True)
            for name, a in [("idcpu", soa.idcpu), *soa.real.items(), *soa.int.items()]:
                cols.setdefault(name, []).append(a)
    return {k: np.concatenate(v) for k, v in cols.items()}


def random_columns(pc, n, seed=3):
    rng = np.random.default_rng(seed)
    data = {name: rng.uniform(0.0, 1.0, n) for name in pc.real_soa_names}
    for k, name in enumerate(pc.int_soa_names):
        data[name] = rng.integers(-1000, 1000, n).astype(np.int32) + 10000 * k
    return data


def same_rows(got, want, key):
    """got / want: dicts of columns; the rows agree in any order (sorted by column `key`)."""
    og, ow = np.argsort(got[key], kind="stable"), np.argsort(want[key], kind="stable")
    for name in want:
        np.testing.assert_array_equal(got[name][og], np.asarray(want[name])[ow], err_msg=name)


# ---- component names -----------------------------------------------------------------------------------

def test_legacy_containers_take_amrex_default_names(amr):
    pc = amr.ParticleContainer_2_1_3_1_default(*geometry(amr))
    assert pc.real_soa_names == ["real_comp0", "real_comp1", "real_comp2"] and pc.int_soa_names == ["int_comp0"]
    pc.add_real_comp(True)
    pc.add_int_comp(True)
    assert pc.real_soa_names[-1] == "real_comp3" and pc.int_soa_names[-1] == "int_comp1"
    pc.add_real_comp("b", True)          # was: "already has a real component named 'b'"
    assert pc.get_real_comp_index("b") == 4 and pc.has_real_comp("b") and not pc.has_int_comp("b")
    with pytest.raises(ValueError):
        pc.add_int_comp("real_comp0")    # one name, one column
    # pure SoA containers keep pyAMReX's letters (pyAMReX 24's soa.real["a"] keeps working)
    dim = dim_of(amr)
    p = getattr(amr, f"ParticleContainer_pureSoA_{dim}_0_default")(*geometry(amr))
    p.add_real_comp(True)
    p.add_int_comp(True)
    assert p.real_soa_names == ["x", "y", "z"][:dim] + ["xyzab"[dim]] and p.int_soa_names == ["i0"]


def test_set_soa_compile_time_names(amr3):
    pc = soa_pc(amr3, nreal=11, extra_real=(), extra_int=())
    names = ["x", "y", "z", "a", "b", "c", "d", "e", "f", "g", "h"]
    before = pc.real_soa_names
    for bad, exc in [(["x", "y", "z", "z", "b", "c", "d", "e", "f", "g", "h"], ValueError),  # z twice
                     (names[:5], ValueError),                                              # too few
                     (["x", "y", "z", "a", "b", "c", "d", "e", "f", "g", "idcpu"], ValueError),
                     (["x", "y", "z", "a", "b", "c", "d", "e", "f", "g", 7], TypeError)]:
        with pytest.raises(exc):
            pc.set_soa_compile_time_names(bad, [])
        assert pc.real_soa_names == before
    pc.set_soa_compile_time_names(names, [])
    assert pc.real_soa_names == names
    with pytest.raises(ValueError):
        pc.add_real_comp("a", True)      # a compile-time name now
    pc.add_real_comp("w", True)
    pc.init_random(50, 1, amr3.ParticleInitType_pureSoA_11_0(), False, amr3.RealBox(0, 0, 0, 1, 1, 1))
    for pti in pc.iterator(level=0):
        assert list(pti.soa().to_numpy().real) == names + ["w"]
        # get_real_data(name) is get_real_data(index)
        np.testing.assert_array_equal(pti.soa().get_real_data("h").to_numpy(), pti.soa().get_real_data(10).to_numpy())
        with pytest.raises(KeyError):
            pti.soa().get_real_data("nope")


def test_polymorphic_arena(amr3):
    pc = amr3.ParticleContainer_pureSoA_11_0_polymorphic(*geometry(amr3))
    pc.arena = amr3.The_Pinned_Arena()
    pc.arena = amr3.The_Arena()
    assert "The_Arena" in repr(pc.arena) or pc.arena is not None
    pc.init_random(10, 1, amr3.ParticleInitType_pureSoA_11_0(), False, amr3.RealBox(0, 0, 0, 1, 1, 1))
    with pytest.raises(ValueError):      # holds particles
        pc.arena = amr3.The_Pinned_Arena()
    with pytest.raises(TypeError):
        pc.arena = 3
    pc.clear_particles()
    pc.arena = amr3.The_Pinned_Arena()
    pc.init_random(10, 1, amr3.ParticleInitType_pureSoA_11_0(), False, amr3.RealBox(0, 0, 0, 1, 1, 1))
    assert pc.total_number_of_particles() == 10
    fixed = amr3.ParticleContainer_pureSoA_3_0_default(*geometry(amr3))
    with pytest.raises(AttributeError):
        fixed.arena = amr3.The_Arena()


# ---- iterators ------------------------------------------------------------------------------------------

def test_iterator_forms_and_getitem(amr):
    dim = dim_of(amr)
    pc = soa_pc(amr)
    pc.add_arrays(random_columns(pc, 40))
    assert sum(pti.num_particles for pti in pc.iterator()) == 40
    assert sum(pti.num_particles for pti in pc.iterator(level=0)) == 40
    assert sum(pti.num_particles for pti in pc.iterator(pc, level=0)) == 40   # pyAMReX 24's form
    assert type(pc.const_iterator(level=0)) is pc.ConstIterator
    for pti in pc.iterator(level=0):
        soa = pti.soa().to_numpy()
        for name in ["x", "y", "z"][:dim] + ["w", "i1", "i2", "idcpu"]:
            ref = soa.idcpu if name == "idcpu" else (soa.real[name] if name in soa.real else soa.int[name])
            np.testing.assert_array_equal(pti[name], ref)
        pti["w"][:] = 7.5                 # a view: writes through
        assert (pti.soa().get_real_data("w").to_numpy() == 7.5).all()
        with pytest.raises(KeyError):
            pti["nope"]
        with pytest.raises(TypeError):
            pti[0]
    legacy = amr.ParticleContainer_2_1_3_1_default(*geometry(amr))
    legacy.init_random(20, 2, amr.ParticleInitType_2_1_3_1(), False, amr.RealBox([0.0] * dim, [1.0] * dim))
    for pti in legacy.iterator(level=0):
        np.testing.assert_array_equal(pti["x"], pti.aos().to_numpy()["x"])       # an AoS field
        np.testing.assert_array_equal(pti["real_comp1"], pti.soa().get_real_data(1).to_numpy())


# ---- idcpu helpers against NumPy's bit operations --------------------------------------------------------

def test_idcpu_helpers_against_numpy(amr3):
    rng = np.random.default_rng(7)
    ids = rng.integers(-(2**39 - 1), 2**39, 200, dtype=np.int64)
    cpus = rng.integers(0, 2**24, 200, dtype=np.int64).astype(np.int32)
    ref = ((np.abs(ids).astype(np.uint64) << np.uint64(24)) | cpus.astype(np.uint64)
           | np.where(ids > 0, np.uint64(1 << 63), np.uint64(0)))
    idcpu = np.zeros(400, dtype=np.uint64)
    view = idcpu[1::2]                    # strided: written element by element
    amr3.pack_ids(view, ids)
    amr3.pack_cpus(view, cpus)
    np.testing.assert_array_equal(view, ref)
    assert (idcpu[::2] == 0).all()
    np.testing.assert_array_equal(amr3.unpack_ids(ref), np.where(ids == 0, 0, ids))
    np.testing.assert_array_equal(amr3.unpack_cpus(ref), cpus)
    np.testing.assert_array_equal(amr3.is_valid(ref), (ref >> np.uint64(63)) == 1)
    np.testing.assert_array_equal(amr3.make_valid(ref), ref | np.uint64(1 << 63))
    np.testing.assert_array_equal(amr3.make_invalid(ref), ref & ~np.uint64(1 << 63))
    v = int(ref[0])
    assert amr3.is_valid(v) == bool(v >> 63) and amr3.make_invalid(v) == v & ~(1 << 63)
    assert isinstance(amr3.is_valid(np.uint64(v)), (bool, np.bool_))
    # repacking keeps the other half
    amr3.pack_cpus(view, 5)
    np.testing.assert_array_equal(amr3.unpack_ids(view), np.where(ids == 0, 0, ids))
    assert (amr3.unpack_cpus(view) == 5).all()
    before = view.copy()
    for f, args, exc in [(amr3.pack_ids, (view, np.full(200, 2**39)), ValueError),   # 39 bits
                         (amr3.pack_cpus, (view, np.full(200, -1)), ValueError),
                         (amr3.pack_cpus, (view, np.full(200, 2**24)), ValueError),   # 24 bits
                         (amr3.pack_ids, (view, np.zeros(3, np.int64)), ValueError),  # another shape
                         (amr3.pack_ids, (np.zeros(200, np.int64), ids), TypeError),  # not uint64
                         (amr3.pack_ids, (view, np.full(200, 1.5)), TypeError),
                         (amr3.pack_cpus, (view, "x"), TypeError)]:
        with pytest.raises(exc):
            f(*args)
        np.testing.assert_array_equal(view, before)   # checked before anything is written
    with pytest.raises(ValueError):
        amr3.pack_cpus(view, np.full(200, 2**24))
    ro = ref.copy()
    ro.flags.writeable = False
    with pytest.raises((ValueError, BufferError, TypeError)):
        amr3.pack_ids(ro, ids)


def test_reserve_particle_ids(amr3):
    PC = amr3.ParticleContainer_pureSoA_11_0_polymorphic
    first = PC.reserve_particle_ids(0)
    assert PC.reserve_particle_ids(3) == first and PC.reserve_particle_ids(0) == first + 3
    # the counter is the particle type's: new particles continue after the reserved ids
    pc = soa_pc(amr3, nreal=11, extra_real=(), extra_int=())
    pc.add_arrays({name: np.full(4, 0.5) for name in pc.real_soa_names})
    ids = np.sort(amr3.unpack_ids(columns_of(pc)["idcpu"]))
    np.testing.assert_array_equal(ids, np.arange(first + 3, first + 7))
    for bad, exc in [(-1, ValueError), (2**63 - 1, ValueError), (2**40, ValueError), (1.5, TypeError)]:
        with pytest.raises(exc):
            PC.reserve_particle_ids(bad)
    assert PC.reserve_particle_ids(0) == first + 7


# ---- add_arrays / add_df -----------------------------------------------------------------------------------

def test_add_arrays_values_ids_and_distribution(amr):
    dim = dim_of(amr)
    pc = soa_pc(amr)
    data = random_columns(pc, 300)
    pc.add_arrays(data)                   # redistribute
    assert pc.OK() and pc.total_number_of_particles() == 300
    got = columns_of(pc)
    same_rows(got, data, "x")
    ids, cpus = amr.unpack_ids(got["idcpu"]), amr.unpack_cpus(got["idcpu"])
    assert (ids > 0).all() and len(set(ids.tolist())) == 300 and (cpus == 0).all()
    # every particle in the tile of its cell (NumPy reference: the box of each cell)
    for pti in pc.iterator(level=0):
        bx = pti.tilebox()
        lo, hi = np.array(bx.small_end)[:dim], np.array(bx.big_end)[:dim]
        cell = np.floor(np.stack([pti[n] for n in ["x", "y", "z"][:dim]], axis=1) * N).astype(int)
        assert ((cell >= lo) & (cell <= hi)).all()
    # distribute="none": all in the first tile of level 0 (grid 0, tile 0), in input order
    pc2 = soa_pc(amr)
    pc2.add_arrays(data, distribute="none")
    t = pc2.define_and_return_particle_tile(0, 0, 0).get_struct_of_arrays().to_numpy()
    np.testing.assert_array_equal(t.real["x"], data["x"])
    np.testing.assert_array_equal(t.int["i2"], data["i2"])
    # an idcpu column is kept exactly; local=False on one rank is local=True
    pc3 = soa_pc(amr)
    pc3.add_arrays(dict(data, idcpu=got["idcpu"][::-1].copy()), local=False)
    same_rows(columns_of(pc3), dict(data, idcpu=got["idcpu"][::-1]), "idcpu")


def test_add_arrays_scalars_fill_casts_and_errors(amr3):
    pc = soa_pc(amr3)
    n = 5
    data = random_columns(pc, n)
    pv = amr3.PODVector_real_std.from_numpy(data["y"])
    pc.add_arrays({"x": data["x"], "y": pv}, z=data["z"], w=2.5, i1=np.arange(n, dtype=np.float64),
                  fill_missing=-4, distribute="none")
    got = columns_of(pc)
    np.testing.assert_array_equal(got["y"], data["y"])
    assert (got["w"] == 2.5).all() and (got["i2"] == -4).all() and got["i2"].dtype == np.int32
    np.testing.assert_array_equal(got["i1"], np.arange(n))
    before = columns_of(pc)
    bad = [
        (dict(data, i1=np.full(n, 0.5)), ValueError), (dict(data, i1=np.full(n, 2**40)), ValueError),
        (dict(data, x=np.ones(n, complex)), TypeError), (dict(data, i1=np.array(["a"] * n)), TypeError),
        (dict(data, idcpu=np.ones(n)), TypeError), (dict(data, idcpu=np.zeros(n, np.uint64)), ValueError),
        (dict(data, idcpu=np.full(n, -1, np.int32)), ValueError), (dict(data, x=np.full(n, np.nan)), ValueError),
        (dict(data, y=np.zeros(n + 1)), ValueError), (dict(data, y=np.zeros((n, 2))), ValueError),
        (dict(data, foo=np.zeros(n)), ValueError), ({k: 1.0 for k in data}, ValueError),
        (dict(data, w=10**400), ValueError), (dict(data, i1=float("inf")), ValueError),
        ({k: v for k, v in data.items() if k != "w"}, KeyError),
    ]
    for cols, exc in bad:
        with pytest.raises(exc):
            pc.add_arrays(cols, distribute="none")
    for kwargs, exc in [(dict(distribute="scatter"), ValueError), (dict(distribute="equally"), ValueError),
                        (dict(redistribute=False), ValueError), (dict(fill_missing=[0]), TypeError)]:
        with pytest.raises(exc):
            pc.add_arrays(data, **kwargs)
    with pytest.raises(ValueError, match="both"):
        pc.add_arrays(data, x=data["x"])
    with pytest.raises(TypeError):
        pc.add_arrays([1.0, 2.0])
    after = columns_of(pc)
    for k in before:
        np.testing.assert_array_equal(after[k], before[k])
    pc.add_arrays(None)
    pc.add_arrays({})
    assert pc.total_number_of_particles() == n
    with pytest.raises(NotImplementedError):
        amr3.ParticleContainer_2_1_3_1_default(*geometry(amr3)).add_arrays({})
    with pytest.raises(RuntimeError, match="not defined"):
        amr3.ParticleContainer_pureSoA_3_0_default().add_arrays(x=[0.5], y=[0.5], z=[0.5])


def test_add_arrays_from_views_of_the_receiving_tile(amr3):
    pc = soa_pc(amr3)
    pc.add_arrays(random_columns(pc, 1000), distribute="none")
    before = columns_of(pc)
    soa = pc.define_and_return_particle_tile(0, 0, 0).get_struct_of_arrays()
    views = soa.to_numpy()
    pc.add_arrays({"idcpu": views.idcpu, **views.real, **views.int}, distribute="none")   # grows that tile
    after = columns_of(pc)
    for name, v in before.items():
        np.testing.assert_array_equal(after[name], np.concatenate([v, v]))


@pytest.mark.skipif(importlib.util.find_spec("pandas") is None, reason="pandas is not available")
def test_to_df_add_df_roundtrip(amr3):
    pc = soa_pc(amr3)
    pc.add_arrays(random_columns(pc, 64))
    df = pc.to_df()
    assert list(df.index) == list(range(64)) and df.index.name is None
    assert list(df.columns) == ["idcpu"] + pc.real_soa_names + pc.int_soa_names
    pc2 = soa_pc(amr3)
    pc2.add_df(df)
    df2 = pc2.to_df()
    a = df.sort_values("idcpu").reset_index(drop=True)
    b = df2.sort_values("idcpu").reset_index(drop=True)
    assert (a.dtypes == b.dtypes).all() and a.equals(b)
    pc3 = soa_pc(amr3)
    pc3.add_df(df.set_index("idcpu"))   # ids from an index named idcpu
    assert sorted(pc3.to_df()["idcpu"]) == sorted(df["idcpu"])
    assert pc.to_df(local=False).shape == df.shape


# ---- files ------------------------------------------------------------------------------------------------

def parse_header(path):
    """The particle Header's fields, read here from the text (AMReX's format)."""
    tok = open(path).read().split()
    nr = int(tok[2])
    rn = tok[3:3 + nr]
    ni = int(tok[3 + nr])
    inames = tok[4 + nr:4 + nr + ni]
    rest = tok[4 + nr + ni:]
    return dict(version=tok[0], dim=int(tok[1]), real=rn, int=inames, checkpoint=bool(int(rest[0])),
                n=int(rest[1]), next_id=int(rest[2]), finest=int(rest[3]))


def test_write_plotfile_names_header_and_read_particles(amr3, tmp_path):
    gm, dm, ba = geometry(amr3)
    mf = amr3.MultiFab(ba, dm, 1, 0)
    mf.set_val(1.0)
    plt = str(tmp_path / "plt")
    amr3.write_single_level_plotfile(plt, mf, amr3.Vector_string(["rho"]), gm, 0.0, 0)
    pc = soa_pc(amr3)
    data = random_columns(pc, 77)
    pc.add_arrays(data)
    with pytest.raises(ValueError):      # one name per non-position real
        pc.write_plotfile(plt, "particles", ["w", "extra"], ["i1", "i2"])
    pc.write_plotfile(plt, "particles", amr3.Vector_string(["weight"]), amr3.Vector_string(["k1", "k2"]))
    pc.checkpoint(plt, "chk", ["weight"], ["k1", "k2"])
    h = amr3.ParticleHeader.read(plt, "particles")
    ref = parse_header(os.path.join(plt, "particles", "Header"))
    assert (h.version, h.dim, h.real_comp_names, h.int_comp_names, h.is_checkpoint, h.num_particles, h.next_id,
            h.finest_level) == (ref["version"], ref["dim"], ref["real"], ref["int"], ref["checkpoint"], ref["n"],
                                ref["next_id"], ref["finest"])
    assert (h.num_real, h.num_int, h.num_particles) == (1, 2, 77) and h.real_comp_names == ["weight"]
    assert amr3.ParticleHeader(plt, "chk").version.startswith("Version_Two_Dot_One")
    assert amr3.list_particle_species(plt) == ["chk", "particles"]
    back = amr3.read_particles(plt, "particles")
    assert type(back).__name__ == "ParticleContainer_pureSoA_3_0_polymorphic"
    assert back.real_soa_names == ["x", "y", "z", "weight"] and back.int_soa_names == ["k1", "k2"]
    got = columns_of(back)
    same_rows(got, {"x": data["x"], "weight": data["w"], "k2": data["i2"]}, "x")
    # into a given container; errors
    mine = soa_pc(amr3, extra_real=(), extra_int=())
    assert amr3.read_particles(plt, "chk", container=mine) is mine and mine.total_number_of_particles() == 77
    with pytest.raises(FileNotFoundError, match="particle Header"):
        amr3.read_particles(plt, "nope")
    with pytest.raises(FileNotFoundError):
        amr3.ParticleHeader.read(plt, "nope")
    with pytest.raises(TypeError):
        amr3.read_particles(plt, "particles", container=3)
    os.remove(os.path.join(plt, "Header"))
    with pytest.raises(FileNotFoundError, match="plotfile Header"):
        amr3.read_particles(plt, "particles")
    open(os.path.join(plt, "Header"), "w").write("CheckPointVersion_1.0\n")
    with pytest.raises(ValueError, match="container"):
        amr3.read_particles(plt, "particles")
    with open(os.path.join(plt, "particles", "Header"), "a") as f:
        f.write("junk\n")
    with pytest.raises(ValueError):
        amr3.ParticleHeader.read(plt, "particles")


def test_particle_box_array_and_distribution_map(amr):
    gm, dm, ba = geometry(amr)
    pc = getattr(amr, f"ParticleContainer_pureSoA_{dim_of(amr)}_0_default")(gm, dm, ba)
    assert pc.particle_box_array(0).size == ba.size
    assert list(pc.particle_distribution_map(0).ProcessorMap()) == list(dm.ProcessorMap())
    for lev in (-1, 1):
        with pytest.raises(IndexError):
            pc.particle_box_array(lev)
    with pytest.raises(RuntimeError, match="not defined"):
        type(pc)().particle_distribution_map(0)
