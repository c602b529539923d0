"""Particles are never lost or mangled without a word (issue 21, the particle findings).

1. Define keeps the particles (AMReX's Define does; redistribute then moves them onto the new grids).
2. Component names that would shadow one another in to_df / to_numpy / add_particles are refused, at
   construction and when components are added or renamed, and nothing changes.
3. to_df of a legacy layout without SoA components gives the AoS columns.
4. A valid particle whose position became NaN / infinite through a view is refused by redistribute
   (ValueError naming it, nothing moved) and by the particle writers (nothing written).
5. A NUL inside a component name is refused (C would cut the name there); so are empty names.
6. add_particles(level=0.5) is a TypeError (it was truncated to level 0); levels out of range raise.
7. add_particles(pos, [array]) says that columns must be a mapping.
8. A DLPack object on a CUDA device where boxfab has no GPU: BufferError, no CuPy needed.
9. to_df while another thread adds particles: one consistent copy.
10. to_df without pandas: ImportError saying how to install it.

Each test fails on the code before the fix (the finding's symptom is its assertion)."""
import os
import sys
import threading

import numpy as np
import pytest

from conftest import run_python
from mfhelp import ensure_init

N = 32


def dim_of(amr):
    return int(amr.__name__[-2])


def geometry(amr, per=None, n=N):
    dim = dim_of(amr)
    dom = amr.Box(amr.IntVect(*([0] * dim)), amr.IntVect(*([n - 1] * dim)))
    per = per if per is not None else [1] * dim
    return dom, amr.Geometry(dom, amr.RealBox([0.0] * dim, [1.0] * dim), 0, per)


def layout(amr, max_size=8, dom=None):
    dim = dim_of(amr)
    dom = dom or amr.Box(amr.IntVect(*([0] * dim)), amr.IntVect(*([N - 1] * dim)))
    ba = amr.BoxArray(dom)
    ba.max_size(max_size)
    return ba, amr.DistributionMapping(ba)


def make(amr, spec=None, per=None, max_size=8, **kw):
    ensure_init(amr)
    dim = dim_of(amr)
    dom, gm = geometry(amr, per)
    ba, dm = layout(amr, max_size, dom)
    cls = amr.ParticleContainer if spec is None else getattr(amr, f"ParticleContainer_{spec}_default")
    return cls(gm, dm, ba, **kw), gm, ba, dm


def fill(amr, pc, n=400, seed=3):
    """n random particles, every component set to a value of its particle (ids differ)."""
    dim = dim_of(amr)
    spec = type(pc).__name__[len("ParticleContainer_"):].rsplit("_", 1)[0] if type(pc).__name__ != \
        "ParticleContainer" else f"pureSoA_{dim}_0"
    pc.init_random(n, seed, getattr(amr, f"ParticleInitType_{spec}")(), False,
                   amr.RealBox([0.0] * dim, [1.0] * dim))
    rng = np.random.default_rng(seed)
    for pti in pc.iterator(pc, level=0):
        s = pti.soa()
        soa = s.to_numpy() if s.num_real_comps or s.num_int_comps else None   # pyAMReX: "SoA is empty."
        for k, (name, a) in enumerate(soa.real.items() if soa else ()):
            if pc.is_soa_particle and k < dim:
                continue
            a[:] = rng.uniform(-5, 5, a.shape)
        for a in soa.int.values() if soa else ():
            a[:] = rng.integers(-100, 100, a.shape)
        if not pc.is_soa_particle:
            aos = pti.aos().to_numpy()
            for f in aos.dtype.names:
                if f.startswith("rdata_"):
                    aos[f] = rng.uniform(-5, 5, len(aos))
                elif f.startswith("idata_"):
                    aos[f] = rng.integers(-100, 100, len(aos))


def everything(pc):
    """Every particle of every level, sorted by idcpu: {column: array} (AoS fields, SoA names) and the
    level of each; read through the iterators (not to_df)."""
    cols, levels = {}, []
    for lev in range(pc.finest_level + 1):
        for pti in pc.const_iterator(pc, level=lev):
            soa = pti.soa()
            parts = {}
            if not pc.is_soa_particle:
                aos = pti.aos().to_numpy(copy=True)
                for f in aos.dtype.names:
                    parts[f] = aos[f]
            if soa.num_real_comps or soa.num_int_comps or pc.is_soa_particle:
                s = soa.to_numpy(copy=True)
                if s.idcpu is not None:
                    parts["idcpu"] = s.idcpu
                for k, v in s.real.items():
                    parts["r:" + k] = v
                for k, v in s.int.items():
                    parts["i:" + k] = v
            for k, v in parts.items():
                cols.setdefault(k, []).append(v)
            levels.append(np.full(pti.num_particles, lev))
    out = {k: np.concatenate(v) for k, v in cols.items()}
    if not out:
        return {}, np.zeros(0, int)
    order = np.argsort(out["idcpu"], kind="stable")
    return {k: v[order] for k, v in out.items()}, np.concatenate(levels)[order]


def same(a, b):
    assert a.keys() == b.keys()
    for k in a:
        assert np.array_equal(a[k], b[k], equal_nan=a[k].dtype.kind == "f"), k


def in_own_tiles(amr, pc):
    """Every particle lies in the box of the grid its tile belongs to (what redistribute promises)."""
    dim = dim_of(amr)
    for lev in range(pc.finest_level + 1):
        gm = pc.Geom(lev)
        for pti in pc.const_iterator(pc, level=lev):
            if pc.is_soa_particle:
                soa = pti.soa().to_numpy(copy=True)
                pos = np.stack([soa.real[n] for n in list(soa.real)[:dim]], 1)
            else:
                pos = np.stack([pti.aos().to_numpy(copy=True)[a] for a in "xyz"[:dim]], 1)
            lo = np.array([gm.ProbLo(d) for d in range(dim)])
            dx = np.array([gm.CellSize(d) for d in range(dim)])
            cell = np.floor((pos - lo) / dx).astype(int)
            box = pti.validbox()
            assert (cell >= np.array(box.small_end)[:dim]).all() and (cell <= np.array(box.big_end)[:dim]).all()


SPECS = ["pureSoA_{dim}_0", "2_1_3_1", "16_4_0_0", None]


def spec_of(amr, s):
    return s.format(dim=dim_of(amr)) if s else None


# ---- 1. Define keeps the particles ----------------------------------------------------------------------

@pytest.mark.parametrize("spec", SPECS, ids=["pureSoA", "2_1_3_1", "16_4_0_0", "named"])
def test_define_keeps_particles_and_redistribute_moves_them(amr, spec):
    kw = {"real_names": ["w"], "int_names": ["species"]} if spec is None else {}
    pc, gm, ba, dm = make(amr, spec_of(amr, spec), **kw)
    fill(amr, pc)
    before, _ = everything(pc)
    assert pc.total_number_of_particles() == 400
    # other boxes (and so another DistributionMapping): 5-cell boxes instead of 8
    ba2, dm2 = layout(amr, max_size=5)
    assert ba2.size != ba.size
    pc.Define(gm, dm2, ba2)
    assert pc.total_number_of_particles() == 400          # was 0: Define deleted every particle
    assert pc.number_of_particles_at_level(0) == 400
    same(everything(pc)[0], before)                         # nothing changed but where they sit
    assert pc.ParticleBoxArray(0).size == ba2.size
    pc.redistribute()
    assert pc.OK() and pc.total_number_of_particles() == 400
    same(everything(pc)[0], before)
    in_own_tiles(amr, pc)


def test_define_twice_and_to_fewer_or_more_levels(amr):
    """Levels beyond the new finest level go to the finest one (AMReX's Define drops them); a second
    level added keeps every particle on level 0 until redistribute moves those under its grids."""
    dim = dim_of(amr)
    pc, gm, ba, dm = make(amr, f"pureSoA_{dim}_0")
    fill(amr, pc, 300)
    before, _ = everything(pc)
    # two levels: level 1 (ratio 2) has grids over the lower half of the domain in every direction
    dom1 = amr.Box(amr.IntVect(*([0] * dim)), amr.IntVect(*([2 * N - 1] * dim)))
    gm1 = amr.Geometry(dom1, amr.RealBox([0.0] * dim, [1.0] * dim), 0, [1] * dim)
    ba1 = amr.BoxArray(amr.Box(amr.IntVect(*([0] * dim)), amr.IntVect(*([N - 1] * dim))))
    ba1.max_size(16)
    dm1 = amr.DistributionMapping(ba1)
    pc.Define([gm, gm1], [dm, dm1], [ba, ba1], [2])
    assert pc.finest_level == 1 and pc.total_number_of_particles() == 300
    assert pc.number_of_particles_at_level(0) == 300
    pc.redistribute()
    assert pc.OK() and pc.total_number_of_particles() == 300
    data, lev = everything(pc)
    same(data, before)
    lower = np.all(np.stack([data[f"r:{a}"] for a in "xyz"[:dim]], 1) < 0.5, axis=1)
    assert (lev == lower.astype(int)).all()
    # back to one level: the level-1 particles go to level 0, none lost
    ba2, dm2 = layout(amr, max_size=16)
    pc.Define(gm, dm2, ba2)
    pc.Define(gm, dm, ba)              # twice before any redistribute
    assert pc.finest_level == 0 and pc.total_number_of_particles() == 300
    pc.redistribute()
    assert pc.OK()
    same(everything(pc)[0], before)


def test_define_refused_keeps_everything(amr):
    dim = dim_of(amr)
    pc, gm, ba, dm = make(amr, f"pureSoA_{dim}_0")
    fill(amr, pc, 200)
    before, _ = everything(pc)
    ba2, _ = layout(amr, max_size=4)
    with pytest.raises(ValueError):
        pc.Define(gm, dm, ba2)         # a DistributionMapping of another BoxArray size
    assert pc.total_number_of_particles() == 200 and pc.OK()
    same(everything(pc)[0], before)


def test_define_with_tiling_keeps_particles(amr):
    dim = dim_of(amr)
    pp = amr.ParmParse("particles")
    pp.add("do_tiling", True)
    pp.addarr("tile_size", [4] * dim)
    try:
        pc, gm, ba, dm = make(amr, f"pureSoA_{dim}_0")
    finally:
        amr.ParmParse("particles").add("do_tiling", False)
    fill(amr, pc, 500)
    before, _ = everything(pc)
    ba2, dm2 = layout(amr, max_size=16)
    pc.Define(gm, dm2, ba2)
    assert pc.total_number_of_particles() == 500
    pc.redistribute()
    assert pc.OK()
    same(everything(pc)[0], before)


# ---- 2. names that clash ----------------------------------------------------------------------------

def clash_cases(dim):
    """(real_names, int_names) refused at construction of the generic container."""
    axes = ["x", "y", "z"][:dim]
    cases = [([], [a]) for a in axes]                            # an int named after a position
    cases += [([a], []) for a in axes]                           # a second real named after a position
    cases += [([n], []) for n in ("idcpu", "id", "cpu")]         # the ids / cpus column
    cases += [([], [n]) for n in ("idcpu", "id", "cpu")]
    cases += [(["w"], ["w"]), (["w", "v"], ["u", "v"])]           # a real and an int of one name
    cases += [(["w", "w"], []), ([], ["s", "s"])]                # duplicates of one kind
    return cases


def test_clashing_names_refused_at_construction(amr):
    ensure_init(amr)
    dim = dim_of(amr)
    dom, gm = geometry(amr)
    ba, dm = layout(amr)
    for rn, inn in clash_cases(dim):
        with pytest.raises(ValueError):
            amr.ParticleContainer(gm, dm, ba, real_names=rn, int_names=inn)
    # the names of the other dimensions' positions are free (a 2D "z" is an ordinary name)
    free = ["x", "y", "z"][dim:]
    pc = amr.ParticleContainer(gm, dm, ba, real_names=free[:1], int_names=free[1:])
    assert pc.real_comp_names == ["x", "y", "z"][:dim] + free[:1] and pc.int_comp_names == free[1:]


@pytest.mark.parametrize("spec", ["pureSoA", "legacy", "named"])
def test_clashing_names_refused_when_added(amr, spec):
    dim = dim_of(amr)
    s = {"pureSoA": f"pureSoA_{dim}_0", "legacy": "2_1_3_1", "named": None}[spec]
    pc, gm, ba, dm = make(amr, s, **({"real_names": ["w"], "int_names": ["k"]} if s is None else {}))
    if s is not None:
        pc.add_real_comp("w")
        pc.add_int_comp("k")
    fill(amr, pc, 50)
    before = everything(pc)[0]
    names = (pc.real_comp_names, pc.int_comp_names)
    # the position names: of pure SoA layouts only (a legacy layout's positions are its struct's x, y, z;
    # its SoA components may be called so, as pyAMReX's own tests call them)
    refused = [(pc.add_int_comp, a) for a in ["x", "y", "z"][:dim] if pc.is_soa_particle]
    refused += [(pc.add_real_comp, a) for a in ["x", "y", "z"][:dim] if pc.is_soa_particle]
    refused += [(f, n) for f in (pc.add_real_comp, pc.add_int_comp) for n in ("idcpu", "id", "cpu")]
    refused += [(pc.add_int_comp, "w"), (pc.add_real_comp, "k"), (pc.add_real_comp, "w"), (pc.add_int_comp, "k")]
    if s == "2_1_3_1":
        refused += [(pc.add_real_comp, "rdata_0"), (pc.add_int_comp, "idata_0"), (pc.add_real_comp, "idata_0")]
    for f, n in refused:
        with pytest.raises(ValueError):
            f(n)
        assert (pc.real_comp_names, pc.int_comp_names) == names, (f, n)
    same(everything(pc)[0], before)
    # an unnamed int whose default name (pure SoA: i<number of ints>; legacy: AMReX's int_comp<number of
    # ints>) a real already has
    default = f"{'i' if pc.is_soa_particle else 'int_comp'}{len(pc.int_comp_names)}"
    pc.add_real_comp(default)
    with pytest.raises(ValueError):
        pc.add_int_comp()
    assert pc.int_comp_names == names[1]
    if not pc.is_soa_particle:
        pc.add_real_comp("rdata_7")        # no struct real 7 in 2_1_3_1: a free name
        pc.add_real_comp("x")              # a legacy layout's SoA: x is a free name (to_df: SoA_x)
        pc.add_int_comp("z")
        with pytest.raises(ValueError):
            pc.add_int_comp("x")           # but not a second time, nor for both kinds


def test_to_df_columns_are_unique_for_accepted_names(amr):
    """Whatever names are accepted, to_df has one column per component (before: an int "x" replaced a
    position, a real "idcpu" replaced the ids, a real and an int "w" kept one)."""
    pd = pytest.importorskip("pandas")
    dim = dim_of(amr)
    pc, *_ = make(amr, None, real_names=["w", "u"], int_names=["s"])
    fill(amr, pc, 30)
    df = pc.to_df()
    assert len(set(df.columns)) == len(df.columns) == 1 + dim + 3
    assert list(df.columns) == ["idcpu"] + ["x", "y", "z"][:dim] + ["w", "u", "s"]
    data, _ = everything(pc)
    d = df.reset_index(drop=True).sort_values("idcpu")
    assert (d["idcpu"].to_numpy() == data["idcpu"]).all() and (d["s"].to_numpy() == data["i:s"]).all()
    del pd


def test_tile_define_refuses_clashes(amr):
    """ParticleTile.define (names of a free tile) follows the same rules; nothing changes."""
    dim = dim_of(amr)
    t = getattr(amr, f"ParticleTile_pureSoA_{dim}_0_default")()
    soa = t.get_struct_of_arrays()
    names = list(soa.real_names)
    for rn, inn in [(names + ["w"], ["w"]), (names + ["idcpu"], None), (names + ["q"], ["x"]),
                    (names + ["a\0b"], None), (names + [""], None), (names + ["q", "q"], None)]:
        with pytest.raises(ValueError):
            t.define(len(rn) - len(names), len(inn or []), rn, inn)
        assert t.get_struct_of_arrays().real_names == names and t.get_struct_of_arrays().int_names == []
    # positions may be renamed among themselves (a permutation), not given to another component
    t.define(0, 0, list(reversed(names)), None)
    assert t.get_struct_of_arrays().real_names == list(reversed(names))


# ---- 3. to_df of a legacy layout without SoA components --------------------------------------------------

def test_to_df_legacy_without_soa(amr):
    pytest.importorskip("pandas")
    dim = dim_of(amr)
    pc, *_ = make(amr, "16_4_0_0")
    fill(amr, pc, 120)
    df = pc.to_df()                       # was: ValueError: SoA is empty.
    assert list(df.columns) == (["x", "y", "z"][:dim] + [f"rdata_{i}" for i in range(16)] + ["idcpu"]
                                + [f"idata_{i}" for i in range(4)])
    assert len(df) == 120 and list(df.index) == list(range(120))  # pyAMReX 26: the index numbers the rows
    data, _ = everything(pc)
    d = df.reset_index(drop=True).sort_values("idcpu")
    for c in df.columns:
        assert np.array_equal(d[c].to_numpy(), data[c]), c
    # with run-time SoA components added: the AoS columns, then SoA_<name>
    pc.add_real_comp("w")
    pc.add_int_comp("k")
    assert list(pc.to_df().columns)[-2:] == ["SoA_w", "SoA_k"]


# ---- 4. positions that are not finite --------------------------------------------------------------------

def poison(pc, value, which=0, coord=0):
    """Set coordinate `coord` of particle `which` of the first tile through a NumPy view; returns its id."""
    pti = next(iter(pc.iterator(pc, level=0)))
    if pc.is_soa_particle:
        soa = pti.soa().to_numpy()
        list(soa.real.values())[coord][which] = value
        idcpu = soa.idcpu[which]
    else:
        aos = pti.aos().to_numpy()
        aos["xyz"[coord]][which] = value
        idcpu = aos["idcpu"][which]
    return int((int(idcpu) >> 24) & 0x7FFFFFFFFF)


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("spec", ["pureSoA_{dim}_0", "2_1_3_1"], ids=["pureSoA", "legacy"])
def test_redistribute_refuses_nonfinite_positions(amr, value, spec):
    dim = dim_of(amr)
    pc, *_ = make(amr, spec_of(amr, spec))            # periodic in every direction
    fill(amr, pc, 300)
    pid = poison(pc, value, which=2, coord=dim - 1)
    before = everything(pc)[0]
    with pytest.raises(ValueError, match=rf"particle 2 of level 0, grid \d+, tile 0 \(id {pid}, .*not finite"):
        pc.redistribute()                              # was: the particle vanished, no word
    assert pc.total_number_of_particles() == 300
    same(everything(pc)[0], before)                    # nothing moved, nothing wrapped
    assert not pc.OK()
    # fixed: everything works again
    poison(pc, 0.5, which=2, coord=dim - 1)
    pc.redistribute()
    assert pc.OK() and pc.total_number_of_particles() == 300


def test_nonfinite_refused_in_a_walled_domain_and_on_other_levels_alike(amr):
    dim = dim_of(amr)
    pc, *_ = make(amr, f"pureSoA_{dim}_0", per=[0] * dim)
    fill(amr, pc, 100)
    poison(pc, np.inf)
    with pytest.raises(ValueError, match="not finite"):
        pc.redistribute(0, 0)
    with pytest.raises(ValueError, match="not finite"):
        pc.redistribute(remove_negative=False)
    assert pc.total_number_of_particles() == 100


def test_invalid_particles_with_nonfinite_positions_are_removed_as_before(amr):
    """A particle with id <= 0 is never located: redistribute removes it (remove_negative) whatever its
    position, as AMReX does."""
    dim = dim_of(amr)
    pc, *_ = make(amr, f"pureSoA_{dim}_0")
    fill(amr, pc, 50)
    pti = next(iter(pc.iterator(pc, level=0)))
    soa = pti.soa().to_numpy()
    soa.real["x"][0] = np.nan
    soa.idcpu[0] &= np.uint64(0x7FFFFFFFFFFFFFFF)        # sign bit off: id <= 0
    pc.redistribute()
    assert pc.total_number_of_particles(only_valid=False) == 49


def test_writers_refuse_nonfinite_positions(amr, tmp_path):
    dim = dim_of(amr)
    for spec in (f"pureSoA_{dim}_0", "2_1_3_1", None):
        pc, *_ = make(amr, spec)
        fill(amr, pc, 60)
        poison(pc, np.nan)
        for write in (pc.write_plotfile, pc.checkpoint):
            out = tmp_path / f"{spec}_{write.__name__}"
            with pytest.raises(ValueError, match="not finite.*nothing was written"):
                write(str(out), "particles")           # was: written, then restart refused the file
            assert not out.exists()                     # not even the folder
        poison(pc, 0.5)
        pc.write_plotfile(str(tmp_path / f"{spec}_ok"), "particles")
        assert (tmp_path / f"{spec}_ok" / "particles" / "Header").exists()


def test_device_plan_path_refuses_nonfinite():
    """The device-resident redistribute (p_redist_sort / p_redist_move; on a GPU the CUDA kernels, here the
    CPU reference of them with BOXFAB_PARTICLE_PLAN=1) refuses before moving anything."""
    code = """
import numpy as np, boxfab.space3d as amr
amr.initialize([])
dom = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(31, 31, 31))
ba = amr.BoxArray(dom); ba.max_size(8)
gm = amr.Geometry(dom, amr.RealBox([0.0] * 3, [1.0] * 3), 0, [1, 1, 1])
for cls in (amr.ParticleContainer_pureSoA_8_0_pinned, amr.ParticleContainer_2_1_3_1_managed):
    pc = cls(gm, amr.DistributionMapping(ba), ba)
    init = getattr(amr, "ParticleInitType_" + cls.__name__.split("_", 1)[1].rsplit("_", 1)[0])()
    pc.init_random(500, 3, init, False, amr.RealBox([0.0] * 3, [1.0] * 3))
    pti = next(iter(pc.iterator(pc, level=0)))
    if pc.is_soa_particle:
        pti.soa().to_numpy().real["y"][1] = np.nan
    else:
        pti.aos().to_numpy()["y"][1] = np.inf
    n = [p.num_particles for p in pc.iterator(pc, level=0)]
    try:
        pc.redistribute()
    except ValueError as e:
        assert "particle 1 of level 0" in str(e) and "nothing was moved" in str(e), e
    else:
        raise AssertionError("accepted")
    assert [p.num_particles for p in pc.iterator(pc, level=0)] == n and pc.total_number_of_particles() == 500
print("OK")
"""
    env = dict(os.environ, BOXFAB_PARTICLE_PLAN="1")
    import subprocess
    import textwrap
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120,
                       env=env)
    assert r.returncode == 0 and "OK" in r.stdout, r.stdout + r.stderr


# ---- 5. NUL and empty names ---------------------------------------------------------------------------

def test_nul_and_empty_names_refused(amr):
    ensure_init(amr)
    dim = dim_of(amr)
    dom, gm = geometry(amr)
    ba, dm = layout(amr)
    for kw in ({"real_names": ["a\0b"]}, {"int_names": ["a\0b"]}, {"real_names": ["\0"]}, {"real_names": [""]},
               {"int_names": [""]}):
        with pytest.raises(ValueError):
            amr.ParticleContainer(gm, dm, ba, **kw)    # was: a component named "a"
    pc = amr.ParticleContainer(gm, dm, ba, real_names=["a"], int_names=["k"])
    for f in (pc.add_real_comp, pc.add_int_comp):
        for bad in ("q\0", "\0q", "a\0b", ""):
            with pytest.raises(ValueError):
                f(bad)
            with pytest.raises(ValueError):
                f(name=bad)
    assert pc.real_comp_names == ["x", "y", "z"][:dim] + ["a"] and pc.int_comp_names == ["k"]
    # look-ups: a name with a NUL names no component (was: found "a")
    with pytest.raises(KeyError):
        pc.real_comp_index("a\0b")
    with pytest.raises(KeyError):
        pc.int_comp_index("k\0")
    assert pc.real_comp_index("a") == dim


# ---- 6. levels ------------------------------------------------------------------------------------------

def test_add_particles_level_must_be_an_int_in_range(amr):
    dim = dim_of(amr)
    pc, *_ = make(amr, None, real_names=["w"])
    pos = np.full((3, dim), 0.5)
    for level, exc in [(0.5, TypeError), (0.0, TypeError), (1.0, TypeError), (np.float64(0), TypeError),
                       ("0", TypeError), (None, TypeError), ([0], TypeError), (np.array([0]), TypeError),
                       (-1, IndexError), (1, IndexError), (2**40, OverflowError), (-(2**70), OverflowError)]:
        with pytest.raises(exc):
            pc.add_particles(pos, level=level)           # 0.5 was truncated to level 0
        assert pc.total_number_of_particles() == 0
    for level in (0, np.int64(0), np.int32(0), np.uint8(0), np.array(0), False):
        pc.add_particles(pos, level=level)
    assert pc.total_number_of_particles() == 18


# ---- 7. columns as a list ------------------------------------------------------------------------------

def test_add_particles_columns_must_be_a_mapping(amr):
    import collections
    import types
    dim = dim_of(amr)
    pc, *_ = make(amr, None, real_names=["w"])
    pos = np.full((3, dim), 0.5)
    for cols in ([np.ones(3)], (np.ones(3),), np.ones(3), "w", 3, {("w",)}, iter([("w", np.ones(3))])):
        with pytest.raises(TypeError, match="mapping"):
            pc.add_particles(pos, cols)                  # was: AttributeError: no attribute 'items'
    assert pc.total_number_of_particles() == 0
    for cols in (collections.OrderedDict(w=np.ones(3)), types.MappingProxyType({"w": np.ones(3)}), {}, None):
        pc.add_particles(pos, cols)
    assert pc.total_number_of_particles() == 12


# ---- 8. DLPack objects on a device boxfab cannot reach -------------------------------------------------

def test_dlpack_cuda_object_without_gpu_raises_buffererror():
    code = """
import sys
sys.modules["cupy"] = None            # no CuPy: importing it raises ImportError
import numpy as np, boxfab.space3d as amr
amr.initialize([])
assert not amr.Config.have_gpu
dom = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(15, 15, 15))
ba = amr.BoxArray(dom)
pc = amr.ParticleContainer(amr.Geometry(dom, amr.RealBox([0.0] * 3, [1.0] * 3), 0, [1, 1, 1]),
                           amr.DistributionMapping(ba), ba, real_names=["w"])
class OnCuda:
    shape = (3,)
    def __len__(self): return 3
    def __dlpack_device__(self): return (2, 0)                 # kDLCUDA
    def __dlpack__(self, **kw): raise AssertionError("must not be called")
for call in (lambda: pc.add_particles([OnCuda(), OnCuda(), OnCuda()]),
             lambda: pc.add_particles(np.full((3, 3), 0.5), {"w": OnCuda()}),
             lambda: pc.add_particles(np.full((3, 3), 0.5), ids=OnCuda())):
    try:
        call()
    except BufferError as e:
        assert "CUDA" in str(e) and "no GPU" in str(e), e
    else:
        raise AssertionError("accepted")
assert pc.total_number_of_particles() == 0
print("OK")
"""
    r = run_python(code)
    assert r.returncode == 0 and "OK" in r.stdout, r.stdout + r.stderr


class HostDLPack:
    """A host array seen only through DLPack (no __array_interface__)."""

    def __init__(self, a, device=(1, 0)):
        self._a, self._dev = a, device

    def __dlpack_device__(self):
        return self._dev

    def __dlpack__(self, **kw):
        kw.pop("stream", None)
        try:
            return self._a.__dlpack__(**kw)
        except TypeError:
            return self._a.__dlpack__()


def test_dlpack_host_objects_read_in_c(amr):
    dim = dim_of(amr)
    pc, *_ = make(amr, None, real_names=["w"], int_names=["k"])
    base = np.linspace(0.05, 0.95, 20)
    pos = [HostDLPack(base[::2].copy()) for _ in range(dim)]     # 10 particles
    w = HostDLPack(base[::-2])                                     # strided, negative
    k = HostDLPack(np.arange(10, dtype=np.int64), device=(3, 0))   # kDLCUDAHost is host memory
    pc.add_particles(pos, {"w": w, "k": k})
    data, _ = everything(pc)
    assert pc.total_number_of_particles() == 10
    order = np.argsort(data["r:x"], kind="stable")
    assert np.allclose(np.sort(data["r:w"]), np.sort(base[::-2])) and sorted(data["i:k"]) == list(range(10))
    del order
    with pytest.raises(ValueError, match="1-D"):
        pc.add_particles([HostDLPack(np.zeros((2, 2)))] * dim)
    with pytest.raises(TypeError):
        pc.add_particles([HostDLPack(np.zeros(2, complex))] * dim)
    with pytest.raises(BufferError):
        pc.add_particles([HostDLPack(np.zeros(2), device=(4, 0))] * dim)   # OpenCL
    assert pc.total_number_of_particles() == 10


# ---- 9. to_df while another thread adds particles ------------------------------------------------------

def test_to_df_while_another_thread_adds_particles():
    pd = pytest.importorskip("pandas")
    import boxfab.space3d as amr
    pc, *_ = make(amr, None, real_names=["w", "u", "v"], int_names=["k", "j"])
    stop = threading.Event()
    errors = []

    def adder():
        rng = np.random.default_rng(0)
        try:
            while not stop.is_set():
                p = rng.uniform(0, 1, (50, 3))
                pc.add_particles(p, {"w": p[:, 0]}, redistribute=bool(rng.integers(2)))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    import time
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    t = threading.Thread(target=adder)
    t.start()
    try:
        t0 = time.monotonic()
        while pc.total_number_of_particles() == 0 and time.monotonic() - t0 < 10:
            time.sleep(0.001)
        last, frames, t0 = 0, 0, time.monotonic()
        while frames < 300 and time.monotonic() - t0 < 4:
            df = pc.to_df()                           # was: pandas' "All arrays must be of the same length"
            assert len(df) % 50 == 0 and len(df) >= last
            assert (df["w"].to_numpy() == df["x"].to_numpy()).all()   # each row is one particle
            last, frames = len(df), frames + 1
    finally:
        stop.set()
        t.join()
        sys.setswitchinterval(old)
    assert not errors, errors
    assert last > 0 and len(pc.to_df()) == pc.total_number_of_particles()
    del pd


# ---- 10. pandas is optional ------------------------------------------------------------------------------

def test_to_df_without_pandas_says_how_to_install_it():
    r = run_python("""
import sys
sys.modules["pandas"] = None          # as if pandas were not installed
import numpy as np, boxfab.space3d as amr
amr.initialize([])
dom = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(15, 15, 15))
ba = amr.BoxArray(dom)
pc = amr.ParticleContainer(amr.Geometry(dom, amr.RealBox([0.0] * 3, [1.0] * 3), 0, [1, 1, 1]),
                           amr.DistributionMapping(ba), ba)
pc.add_particles(np.full((2, 3), 0.5))
try:
    pc.to_df()
except ImportError as e:
    assert "pip install pandas" in str(e) and "boxfab[pandas]" in str(e), e
    print("OK")
""")
    assert r.returncode == 0 and "OK" in r.stdout, r.stdout + r.stderr


# ---- on the GPU (marked gpu: run where boxfab uses a CUDA GPU; skipped elsewhere) -----------------------

@pytest.mark.gpu
@pytest.mark.parametrize("spec", ["pureSoA_3_0", "2_1_3_1"])
@pytest.mark.parametrize("alloc", ["device", "managed", "arena"])
def test_gpu_redistribute_refuses_nonfinite_and_no_grid(spec, alloc, tmp_path):
    """Device memory takes the CUDA path (p_redist_sort's refused key, then the device's locate to name the
    particle): ValueError, nothing moved; Define keeps the particles; the writers refuse too."""
    cp = pytest.importorskip("cupy")
    import boxfab.space3d as amr
    ensure_init(amr)
    dom, gm = geometry(amr)
    ba, dm = layout(amr)
    pc = getattr(amr, f"ParticleContainer_{spec}_{alloc}")(gm, dm, ba)
    pc.init_random(2000, 7, getattr(amr, f"ParticleInitType_{spec}")(), False, amr.RealBox([0.0] * 3, [1.0] * 3))
    counts = [p.num_particles for p in pc.iterator(pc, level=0)]
    pti = next(iter(pc.iterator(pc, level=0)))
    if pc.is_soa_particle:
        pti.soa().to_cupy().real["y"][3] = cp.nan
    else:
        pti.aos()[3].setPos(1, float("nan"))     # a reference particle: the write goes to device memory
    with pytest.raises(ValueError, match="particle 3 of level 0.*not finite"):
        pc.redistribute()
    assert [p.num_particles for p in pc.iterator(pc, level=0)] == counts
    with pytest.raises(ValueError, match="not finite"):
        pc.write_plotfile(str(tmp_path / "out"), "p")
    assert not (tmp_path / "out").exists()
    # Define onto half the domain: the other half is refused
    half = amr.BoxArray(amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(N // 2 - 1, N - 1, N - 1)))
    fixed = pc.total_number_of_particles()
    pc.Define(gm, amr.DistributionMapping(half), half)
    assert pc.total_number_of_particles() == fixed
    with pytest.raises(ValueError):
        pc.redistribute()
    assert pc.total_number_of_particles() == fixed


@pytest.mark.gpu
def test_gpu_dlpack_columns_read_in_c():
    cp = pytest.importorskip("cupy")
    import boxfab.space3d as amr
    pc, *_ = make(amr, None, real_names=["w"], int_names=["k"])
    x = cp.linspace(0.05, 0.95, 40)
    pc.add_particles([x[::2], x[1::2], x[::2]], {"w": x[::2] * 2, "k": cp.arange(20, dtype=cp.int64)})
    data, _ = everything(pc)
    assert len(data["r:w"]) == 20 and np.allclose(np.sort(data["r:w"]), np.sort(cp.asnumpy(x[::2] * 2)))
    assert sorted(data["i:k"]) == list(range(20))
