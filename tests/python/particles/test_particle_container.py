"""Particle containers (API.md 3.8, 3.9; issue 10): redistribute against a NumPy brute force (owner
box of each particle, periodic wrap as a modulo, removals), counts, multi-level, iteration, adding
particles from arrays, named components, errors that leave the container unchanged, lifetimes."""
import importlib
import importlib.util

import numpy as np
import pytest

from conftest import run_python
from mfhelp import ensure_init

N = 32      # cells per direction
BS = 8      # box size


def setup(amr, periodic_last=False, nlev=1):
    ensure_init(amr)
    dim = amr.Config.spacedim if hasattr(amr.Config, "spacedim") else len(amr.IntVect().__repr__().split(","))
    return dim


def dim_of(amr):
    return int(amr.__name__[-2])


def make(amr, cls=None, periodic=None, **kw):
    """A container on [0, 1)^dim with N^dim cells in boxes of BS; periodic in every direction but the
    last unless told."""
    ensure_init(amr)
    dim = dim_of(amr)
    dom = amr.Box(amr.IntVect(*([0] * dim)), amr.IntVect(*([N - 1] * dim)))
    rb = amr.RealBox([0.0] * dim, [1.0] * dim)
    per = periodic if periodic is not None else [1] * (dim - 1) + [0]
    gm = amr.Geometry(dom, rb, 0, per)
    ba = amr.BoxArray(dom)
    ba.max_size(BS)
    dm = amr.DistributionMapping(ba)
    if cls is None:
        cls = getattr(amr, f"ParticleContainer_pureSoA_{dim}_0_default")
    pc = cls(gm, dm, ba, **kw)
    return pc, gm, ba, per


def boxes_of(ba, dim):
    lo = np.array([[ba[i].small_end[d] for d in range(dim)] for i in range(ba.size)])
    hi = np.array([[ba[i].big_end[d] for d in range(dim)] for i in range(ba.size)])
    return lo, hi


def owner(pos, ba, dim, ncell=N, plo=0.0, phi=1.0):
    """Brute force: the box index of each position (-1: none), scanning every box."""
    lo, hi = boxes_of(ba, dim)
    cell = np.floor((pos - plo) * (ncell / (phi - plo))).astype(np.int64)  # (n, dim)
    inside = np.all((cell[:, None, :] >= lo[None]) & (cell[:, None, :] <= hi[None]), axis=2)  # (n, nbox)
    return np.where(inside.any(axis=1), inside.argmax(axis=1), -1)


def gather(pc, lev=0):
    """Every particle of a level: ids, positions (n, dim), real comp dict, int comp dict, grid."""
    ids, pos, grid, reals, ints = [], [], [], {}, {}
    for pti in pc.const_iterator(pc, level=lev):
        soa = pti.soa().to_numpy(copy=True)
        ids.append(amr_ids(soa.idcpu))
        dim = pc.num_position_components
        names = list(soa.real)
        pos.append(np.stack([soa.real[n] for n in names[:dim]], axis=1))
        for n in names[dim:]:
            reals.setdefault(n, []).append(soa.real[n])
        for n, a in soa.int.items():
            ints.setdefault(n, []).append(a)
        grid.append(np.full(pti.num_particles, pti.index))
    if not ids:
        return np.zeros(0, np.int64), np.zeros((0, pc.num_position_components)), {}, {}, np.zeros(0, np.int64)
    cat = np.concatenate
    return (cat(ids), cat(pos), {k: cat(v) for k, v in reals.items()}, {k: cat(v) for k, v in ints.items()},
            cat(grid))


def amr_ids(idcpu):
    v = ((idcpu >> np.uint64(24)) & np.uint64(0x7FFFFFFFFF)).astype(np.int64)
    return np.where(idcpu >> np.uint64(63), v, -v)


# ---- redistribute against the brute force -----------------------------------------------------------

@pytest.mark.parametrize("dist", [0.9, 3.0, 40.0])
def test_redistribute_matches_brute_force(amr, dist):
    pc, gm, ba, per = make(amr)
    dim = dim_of(amr)
    pc.add_real_comp("tag")
    pc.init_random(6000, 7, pc_init(amr, pc), False, amr.RealBox([0.0] * dim, [1.0] * dim))
    # tag each particle with its id, then move by up to `dist` cells
    rng = np.random.default_rng(5)
    for pti in pc.iterator(pc, level=0):
        soa = pti.soa().to_numpy()
        soa.real["tag"][:] = amr_ids(soa.idcpu)
        for d, n in enumerate(list(soa.real)[:dim]):
            soa.real[n][:] += rng.uniform(-dist, dist, pti.num_particles) / N
    ids0, pos0, reals0, _, _ = gather(pc)
    # expected: periodic wrap as a modulo, removal outside the non-periodic direction
    exp = pos0.copy()
    keep = np.ones(len(exp), bool)
    for d in range(dim):
        if per[d]:
            exp[:, d] -= np.floor(exp[:, d])
        else:
            keep &= (exp[:, d] >= 0) & (exp[:, d] < 1)
    exp_ids, exp = ids0[keep], exp[keep]
    exp_grid = owner(exp, ba, dim)
    assert (exp_grid >= 0).all()
    pc.redistribute()
    ids1, pos1, reals1, _, grid1 = gather(pc)
    assert pc.OK()
    assert pc.total_number_of_particles() == len(exp_ids) == len(ids1)
    o0, o1 = np.argsort(exp_ids), np.argsort(ids1)
    assert (exp_ids[o0] == ids1[o1]).all()                      # none lost, none duplicated
    assert np.allclose(exp[o0], pos1[o1], rtol=0, atol=1e-12)   # wrapped as a modulo
    assert (exp_grid[o0] == grid1[o1]).all()                    # the owner box of each
    assert (reals1["tag"] == ids1).all()                        # data travel with their particle
    assert (pos1 >= 0).all() and (pos1 < 1).all()
    counts = np.bincount(exp_grid, minlength=ba.size)
    assert list(pc.number_of_particles_in_grid(0)) == list(counts)


def pc_init(amr, pc):
    name = type(pc).__name__[len("ParticleContainer_"):].rsplit("_", 1)[0]
    return getattr(amr, f"ParticleInitType_{name}")()


def test_stable_order_and_arrivals(amr3):
    pc, gm, ba, per = make(amr3)
    pc.init_random(3000, 3, amr3.ParticleInitType_pureSoA_3_0(), False, amr3.RealBox(0, 0, 0, 1, 1, 1))
    before = {}
    for pti in pc.iterator(pc, level=0):
        soa = pti.soa().to_numpy()
        before[pti.index] = amr_ids(soa.idcpu).copy()
        soa.real["x"][::5] += 1.0 / N     # every fifth particle moves one cell in x
    pc.redistribute()
    for pti in pc.iterator(pc, level=0):
        ids = amr_ids(pti.soa().to_numpy().idcpu)
        old = before.get(pti.index, np.zeros(0, np.int64))
        stays = [i for i in ids if i in set(old)]
        # the stays come first, in their old order; then the arrivals
        assert list(ids[:len(stays)]) == stays
        assert list(np.array(stays)) == [i for i in old if i in set(stays)]


def test_remove_negative(amr3):
    pc, gm, ba, per = make(amr3)
    pc.init_random(2000, 11, amr3.ParticleInitType_pureSoA_3_0(), False, amr3.RealBox(0, 0, 0, 1, 1, 1))
    flipped = 0
    for pti in pc.iterator(pc, level=0):
        idc = pti.soa().to_numpy().idcpu
        idc[::3] &= np.uint64(0x7FFFFFFFFFFFFFFF)   # clear the sign bit: id -> -id
        flipped += len(idc[::3])
    assert pc.total_number_of_particles(only_valid=True) == 2000 - flipped
    assert pc.total_number_of_particles(only_valid=False) == 2000
    assert pc.OK()
    pc.redistribute(remove_negative=False)
    assert pc.total_number_of_particles(only_valid=False) == 2000
    pc.redistribute()
    assert pc.total_number_of_particles(only_valid=False) == 2000 - flipped


def test_multilevel(amr3):
    ensure_init(amr3)
    dom0 = amr3.Box(amr3.IntVect(0, 0, 0), amr3.IntVect(15, 15, 15))
    dom1 = amr3.Box(amr3.IntVect(0, 0, 0), amr3.IntVect(31, 31, 31))
    rb = amr3.RealBox(0, 0, 0, 1, 1, 1)
    g0, g1 = amr3.Geometry(dom0, rb, 0, [1, 1, 1]), amr3.Geometry(dom1, rb, 0, [1, 1, 1])
    ba0 = amr3.BoxArray(dom0)
    ba0.max_size(8)
    ba1 = amr3.BoxArray(amr3.Box(amr3.IntVect(8, 8, 8), amr3.IntVect(23, 23, 23)))
    ba1.max_size(8)
    dm0, dm1 = amr3.DistributionMapping(ba0), amr3.DistributionMapping(ba1)
    pc = amr3.ParticleContainer_pureSoA_7_0_default([g0, g1], [dm0, dm1], [ba0, ba1], [amr3.IntVect(2, 2, 2)])
    assert pc.finest_level == 1
    pc.init_random(8000, 2, amr3.ParticleInitType_pureSoA_7_0(), False, rb)
    n0, n1 = pc.number_of_particles_at_level(0), pc.number_of_particles_at_level(1)
    assert n0 + n1 == 8000
    ids0, pos0, _, _, _ = gather(pc, 0)
    ids1, pos1, _, _, grid1 = gather(pc, 1)
    fine = lambda p: np.all((p >= 0.25) & (p < 0.75), axis=1)
    assert not fine(pos0).any() and fine(pos1).all()
    assert (owner(pos1, ba1, 3, ncell=32) == grid1).all()
    assert pc.OK()
    # move the fine particles out: they go to level 0
    for pti in pc.iterator(pc, level=1):
        pti.soa().to_numpy().real["x"][:] += 0.5
    pc.redistribute()
    assert pc.total_number_of_particles() == 8000
    _, p1, _, _, _ = gather(pc, 1)
    assert fine(p1).all()
    assert pc.OK()
    pc.remove_particles_not_at_finestLevel()
    assert pc.number_of_particles_at_level(0) == 0
    pc.remove_particles_at_level(1)
    assert pc.total_number_of_particles() == 0
    with pytest.raises(IndexError):
        pc.remove_particles_at_level(2)
    with pytest.raises(IndexError):
        pc.redistribute(0, 5)


# ---- iteration ---------------------------------------------------------------------------------------

def test_iteration(amr):
    pc, gm, ba, per = make(amr)
    dim = dim_of(amr)
    pc.init_random(500, 1, pc_init(amr, pc), False, amr.RealBox([0.0] * dim, [1.0] * dim))
    seen, total = [], 0
    for pti in pc.iterator(pc, level=0):
        assert isinstance(pti, amr.MFIter)
        assert pti.level == 0 and pti.pair_index == (pti.index, 0)
        tb = pti.tilebox()
        pos = pti.soa().to_numpy().real
        cells = np.stack([np.floor(pos[n] * N) for n in list(pos)[:dim]], axis=1)
        lo, hi = np.array([tb.small_end[d] for d in range(dim)]), np.array([tb.big_end[d] for d in range(dim)])
        assert ((cells >= lo) & (cells <= hi)).all()
        assert pti.num_particles == pti.size == pti.num_real_particles > 0 and pti.num_neighbor_particles == 0
        assert pti.particle_tile().size == pti.num_particles
        assert pti.geom(0).Domain() == gm.Domain()
        seen.append(pti.index)
        total += pti.num_particles
    assert total == 500 and seen == sorted(seen)
    # leave early, loop again
    for pti in pc.iterator(pc, level=0):
        break
    assert sum(p.num_particles for p in pc.const_iterator(pc, level=0)) == 500
    it = pc.iterator(pc, level=0)
    assert iter(it) is it
    list(it)
    assert not it.is_valid
    with pytest.raises(RuntimeError):
        it.soa()
    with pytest.raises(IndexError):
        pc.iterator(pc, level=3)
    with pytest.raises(TypeError):
        pc.iterator(42, level=0)
    other = getattr(amr, f"ParticleContainer_pureSoA_{dim}_0_pinned")()
    with pytest.raises(TypeError):
        pc.iterator(other, level=0)
    # pyAMReX 26: the types are Iterator / ConstIterator; iterator() / const_iterator() are methods
    assert pc.Iterator is getattr(amr, f"ParIter_pureSoA_{dim}_0_default")
    assert issubclass(pc.Iterator, getattr(amr, f"ParIterBase_pureSoA_{dim}_0_default"))
    assert issubclass(pc.ConstIterator, getattr(amr, f"ParConstIterBase_pureSoA_{dim}_0_default"))
    assert type(pc.iterator(level=0)) is pc.Iterator and type(pc.const_iterator()) is pc.ConstIterator
    assert type(pc.iterator(0)) is pc.Iterator and type(pc.iterator(pc, 0)) is pc.Iterator
    for bad, exc in [("all", ValueError), (0.5, TypeError), (True, TypeError), (-1, IndexError)]:
        with pytest.raises(exc):
            pc.iterator(level=bad)
    with pytest.raises(TypeError):
        pc.iterator(level=0, lev=0)


def test_iterator_skips_empty_tiles_and_undefined(amr3):
    pc = amr3.ParticleContainer_pureSoA_8_0_default()
    with pytest.raises(RuntimeError):
        pc.iterator(pc, level=0)
    assert pc.total_number_of_particles() == 0 and pc.finest_level == -1
    pc, gm, ba, per = make(amr3, amr3.ParticleContainer_pureSoA_8_0_default)
    assert list(pc.iterator(pc, level=0)) == []
    if importlib.util.find_spec("pandas"):
        assert pc.to_df() is None


# ---- components, adding particles ---------------------------------------------------------------------

def test_add_real_comp_before_init_random_is_filled(amr3):
    pc, gm, ba, per = make(amr3, amr3.ParticleContainer_pureSoA_8_0_default)
    pc.add_real_comp("w")
    pc.add_int_comp()
    myt = amr3.ParticleInitType_pureSoA_8_0()
    myt.real_array_data = [0.0] * 3 + [1.0, 2.0, 3.0, 4.0, 5.0]
    pc.init_random(1000, 4, myt, False, amr3.RealBox(0, 0, 0, 1, 1, 1))
    for pti in pc.iterator(pc, level=0):
        soa = pti.soa().to_numpy()
        assert len(soa.real["w"]) == pti.num_particles and (soa.real["w"] == 0).all()
        assert len(soa.int["i0"]) == pti.num_particles
        assert (soa.real["a"] == 1.0).all() and (soa.real["e"] == 5.0).all()
    assert pc.num_runtime_real_comps == 1 and pc.num_runtime_int_comps == 1
    assert pc.real_comp_index("w") == 8 and pc.int_comp_index("i0") == 0
    with pytest.raises(KeyError):
        pc.real_comp_index("nope")
    with pytest.raises(ValueError):
        pc.add_real_comp("w")


def test_generic_named_container_and_add_particles(amr3):
    pc, gm, ba, per = make(amr3, amr3.ParticleContainer, real_names=["w", "ux"], int_names=["species"])
    assert pc.real_comp_names == ["x", "y", "z", "w", "ux"] and pc.int_comp_names == ["species"]
    rng = np.random.default_rng(1)
    n = 4000
    pos = rng.uniform(0, 1, (n, 3))
    pos[:10, 0] += 1.0        # periodic in x: wrapped
    w = rng.uniform(0, 1, n)
    sp = rng.integers(0, 5, n).astype(np.int32)
    pc.add_particles(pos, {"w": w, "species": sp})
    assert pc.total_number_of_particles() == n and pc.OK()
    ids, p, reals, ints, grid = gather(pc)
    o = np.argsort(ids)
    ids, p, w1, sp1, grid = ids[o], p[o], reals["w"][o], ints["species"][o], grid[o]
    assert (np.diff(ids) == 1).all()
    exp = pos.copy()
    exp[:, 0] -= np.floor(exp[:, 0])
    assert np.allclose(p, exp, atol=1e-12, rtol=0)
    assert (w1 == w).all() and (sp1 == sp).all() and (reals["ux"] == 0).all()
    assert (grid == owner(exp, ba, 3)).all()
    # named keys in to_numpy and to_df
    pti = next(iter(pc.iterator(pc, level=0)))
    assert list(pti.soa().to_numpy().real) == ["x", "y", "z", "w", "ux"]
    pd = pytest.importorskip("pandas")
    df = pc.to_df()
    assert list(df.columns) == ["idcpu", "x", "y", "z", "w", "ux", "species"] and len(df) == n
    assert np.isclose(df["w"].sum(), w.sum())
    # explicit ids and a list of columns; no redistribute: they wait in the first tile
    pc.add_particles([np.full(3, 0.9), np.full(3, 0.9), np.full(3, 0.9)], ids=[10**6, 10**6 + 1, 10**6 + 2],
                     redistribute=False)
    assert not pc.OK()
    pc.redistribute()
    assert pc.OK() and pc.total_number_of_particles() == n + 3


def test_add_particles_errors_leave_container_unchanged(amr3):
    pc, gm, ba, per = make(amr3, amr3.ParticleContainer, real_names=["w"])
    pc.add_particles(np.full((5, 3), 0.5))
    good = np.full((2, 3), 0.5)
    bad_cases = [
        (lambda: pc.add_particles(np.array([[0.5, 0.5, np.nan]])), ValueError),
        (lambda: pc.add_particles(np.array([[0.5, 0.5, 1.5]])), ValueError),   # outside non-periodic z
        (lambda: pc.add_particles(np.zeros((2, 2))), ValueError),
        (lambda: pc.add_particles(good, {"nope": [1, 2]}), KeyError),
        (lambda: pc.add_particles(good, {"w": [1.0]}), ValueError),
        (lambda: pc.add_particles(good, {"w": ["a", "b"]}), TypeError),
        (lambda: pc.add_particles(good, {"x": [1.0, 2.0]}), ValueError),
        (lambda: pc.add_particles(good, ids=[0, 1]), ValueError),
        (lambda: pc.add_particles(good, ids=[2**40, 1]), ValueError),
        (lambda: pc.add_particles(good, cpus=[2**40, 1]), OverflowError),
        (lambda: pc.add_particles(good, level=1), IndexError),
        (lambda: pc.init_random(-1, 1, amr3.ParticleInitType_pureSoA_3_0(), False, amr3.RealBox(0, 0, 0, 1, 1, 1)),
         ValueError),
        (lambda: pc.init_random(10, 0, amr3.ParticleInitType_pureSoA_3_0(), False, amr3.RealBox(0, 0, 0, 1, 1, 1)),
         ValueError),
        (lambda: pc.init_random(10, 1, amr3.ParticleInitType_pureSoA_8_0(), False, amr3.RealBox(0, 0, 0, 1, 1, 1)),
         TypeError),
        (lambda: pc.init_random(10, 1, amr3.ParticleInitType_pureSoA_3_0(), False, amr3.RealBox(0, 0, 0, 2, 1, 1)),
         ValueError),
        (lambda: pc.redistribute(-1), IndexError),
        (lambda: pc.redistribute(0, -1, -2), ValueError),
        (lambda: pc.number_of_particles_in_grid(3), IndexError),
        (lambda: pc.get_particles(1), IndexError),
        (lambda: pc.increment(amr3.MultiFab(), 0), TypeError),
        (lambda: pc.add_particles_at_level(amr3.ParticleTile_pureSoA_8_0_default(), 0), TypeError),
    ]
    for fn, exc in bad_cases:
        with pytest.raises(exc):
            fn()
        assert pc.total_number_of_particles() == 5 and pc.OK()


def test_counts_increment_sort_and_inits(amr3):
    pc, gm, ba, per = make(amr3, amr3.ParticleContainer_2_1_3_1_default)
    myt = amr3.ParticleInitType_2_1_3_1()
    myt.real_struct_data = [0.5, 0.6]
    myt.int_struct_data = [5]
    myt.real_array_data = [0.1, 0.2, 0.3]
    myt.int_array_data = [7]
    pc.init_random_per_box(3, 1, myt)
    assert list(pc.number_of_particles_in_grid(0)) == [3] * ba.size
    pc.clear_particles()
    assert pc.total_number_of_particles() == 0 and pc.num_local_tiles_at_level(0) == 0
    pc.init_one_per_cell(0.25, 0.5, 0.75, myt)
    assert pc.total_number_of_particles() == N ** 3 and pc.OK()
    mf = amr3.MultiFab(ba, amr3.DistributionMapping(ba), 1, 0)
    mf.set_val(0.0)
    pc.increment(mf, 0)
    assert mf.min(0) == 1.0 and mf.max(0) == 1.0
    for pti in pc.iterator(pc, level=0):
        aos = pti.aos().to_numpy()
        assert (aos["rdata_1"] == 0.6).all() and (aos["idata_0"] == 5).all()
        assert np.allclose((aos["x"] * N) % 1, 0.25) and np.allclose((aos["z"] * N) % 1, 0.75)
        aos[:] = aos[::-1].copy()
    pc.sort_particles_by_cell()
    for pti in pc.iterator(pc, level=0):
        aos = pti.aos().to_numpy()
        key = np.floor(aos["z"] * N) * N * N + np.floor(aos["y"] * N) * N + np.floor(aos["x"] * N)
        assert (np.diff(key) > 0).all()
    used = pc.byte_spread
    assert used[0] == used[1] == used[2] > 0
    pc.shrink_t_fit()
    assert pc.print_capacity()[2] >= used[2]


def test_get_particles_and_add_particles_at_level(amr3):
    pc, gm, ba, per = make(amr3, amr3.ParticleContainer_pureSoA_8_0_default)
    pc.init_random(300, 9, amr3.ParticleInitType_pureSoA_8_0(), False, amr3.RealBox(0, 0, 0, 1, 1, 1))
    tiles = pc.get_particles(0)
    assert len(tiles) == pc.num_local_tiles_at_level(0)
    assert sum(t.size for t in tiles.values()) == 300
    assert all(k[1] == 0 for k in tiles)
    t = amr3.ParticleTile_pureSoA_8_0_default()
    p = amr3.Particle_8_0(0.5, 0.5, 0.5)
    for _ in range(4):
        t.push_back(p)
    pc.add_particles_at_level(t, 0)
    assert pc.total_number_of_particles(only_valid=False) == 304
    pc.redistribute()   # ids 0 are not valid: removed
    assert pc.total_number_of_particles(only_valid=False) == 300


def test_init_random_depends_only_on_seed():
    code = """
import numpy as np, boxfab.space3d as amr
amr.initialize([])
dom = amr.Box(amr.IntVect(0,0,0), amr.IntVect(31,31,31)); rb = amr.RealBox(0,0,0,1,1,1)
ba = amr.BoxArray(dom); ba.max_size(8)
pc = amr.ParticleContainer_pureSoA_3_0_default(amr.Geometry(dom, rb, 0, [1,1,1]), amr.DistributionMapping(ba), ba)
pc.init_random(20000, 123, amr.ParticleInitType_pureSoA_3_0(), False, amr.RealBox(0.25, 0, 0, 0.5, 1, 1))
ids, xs, ys = [], [], []
for pti in pc.iterator(pc, level=0):
    s = pti.soa().to_numpy()
    ids.append(s.idcpu.copy()); xs.append(s.real["x"].copy()); ys.append(s.real["y"].copy())
o = np.argsort(np.concatenate(ids))
x, y = np.concatenate(xs)[o], np.concatenate(ys)[o]
print("RESULT", repr(float(x.sum())), repr(float(y[17])), float(x.min()), float(x.max()))
amr.finalize()
"""
    outs = set()
    for threads in ("1", "2"):
        import os
        env = dict(os.environ, OMP_NUM_THREADS=threads)
        import subprocess, sys, textwrap
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
        assert r.returncode == 0, r.stderr
        outs.add([ln for ln in r.stdout.splitlines() if ln.startswith("RESULT")][0][7:])
    assert len(outs) == 1
    s, y17, xmin, xmax = (float(v) for v in outs.pop().split())
    assert 0.25 <= xmin and xmax < 0.5 and abs(s / 20000 - 0.375) < 0.01


# ---- lifetimes (each in a fresh interpreter that must exit cleanly) --------------------------------------

PRELUDE = """
import gc, numpy as np, boxfab.space3d as amr
amr.initialize([])
dom = amr.Box(amr.IntVect(0,0,0), amr.IntVect(15,15,15)); rb = amr.RealBox(0,0,0,1,1,1)
ba = amr.BoxArray(dom); ba.max_size(8)
def make():
    pc = amr.ParticleContainer_pureSoA_8_0_default(amr.Geometry(dom, rb, 0, [1,1,1]), amr.DistributionMapping(ba), ba)
    pc.init_random(2000, 5, amr.ParticleInitType_pureSoA_8_0(), False, rb)
    return pc
"""


def check(code):
    r = run_python(PRELUDE + code)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "OK" in r.stdout, r.stdout + r.stderr


def test_container_deleted_while_views_and_pariter_live():
    check("""
pc = make()
it = pc.iterator(pc, level=0)
first = next(it)
soa = first.soa()
x = soa.to_numpy().real["x"]
n0 = first.num_particles
tiles = pc.get_particles(0)
xs = x.copy()
del pc; gc.collect()
junk = [np.ones(10**5) for _ in range(50)]
assert (x == xs).all() and (soa.to_numpy().real["x"] == xs).all()
n = n0 + sum(p.num_particles for p in it)
assert n == 2000 and sum(t.size for t in tiles.values()) == 2000
print("OK")
""")


def test_views_survive_redistribute_and_clear():
    check("""
pc = make()
views = [p.soa().to_numpy().real["a"] for p in pc.iterator(pc, level=0)]
for v in views: v[:] = 3.0
for p in pc.iterator(pc, level=0):
    p.soa().to_numpy().real["x"][:] = 0.99   # everyone moves to the last boxes
pc.redistribute()
pc.add_real_comp("extra")   # reallocation
pc.clear_particles(); gc.collect()
junk = [np.ones(10**5) for _ in range(50)]
assert all((v == 3.0).all() for v in views)
print("OK")
""")


def test_redistribute_during_a_loop():
    check("""
pc = make()
for p in pc.iterator(pc, level=0):
    n = p.num_particles
    pc.redistribute()
    pc.clear_particles()
    assert p.soa().size == n  # the iterator's tile stays alive
print("OK")
""")


def test_use_after_finalize():
    check("""
pc = make()
it = pc.iterator(pc, level=0)
p = next(it)
amr.finalize()
for fn in (lambda: pc.total_number_of_particles(), lambda: pc.redistribute(), lambda: pc.OK(),
           lambda: pc.iterator(pc, level=0), lambda: next(it), lambda: pc.init_random(1, 1,
           amr.ParticleInitType_pureSoA_8_0(), False, rb), lambda: pc.add_particles(np.full((1, 3), 0.5)),
           lambda: pc.to_df(), lambda: pc.finest_level, lambda: pc.get_particles(0), lambda: pc.add_real_comp()):
    try:
        fn()
    except RuntimeError:
        pass
    else:
        raise AssertionError("no RuntimeError")
repr(pc); repr(it)
del pc, it, p; gc.collect()
print("OK")
""")


def test_tiling_from_parmparse(amr):
    """AMReX's ParticleContainer reads particles.do_tiling / particles.tile_size from ParmParse: the
    particles of a grid then sit in the MFIter tiles of their cells (brute force: the tile box of each
    particle's cell, from an MFIter with the same tile size)."""
    dim = dim_of(amr)
    ensure_init(amr)
    pp = amr.ParmParse("particles")
    ts = [4] * dim
    pp.add("do_tiling", True)
    pp.addarr("tile_size", ts)
    try:
        pc, gm, ba, per = make(amr)
    finally:
        pp.remove("do_tiling")
        pp.remove("tile_size")
    rng = np.random.default_rng(3)
    pos = rng.random((2000, dim))
    pc.add_particles(pos)
    tiles = pc.get_particles(0)
    assert max(t for (_, t) in tiles) > 0  # tiles beyond the first exist
    # every particle lies in the tile box its key names
    mf = amr.MultiFab(ba, pc.ParticleDistributionMap(0), 1, 0)
    boxes = {}
    it = amr.MFIter(mf, amr.MFItInfo().enable_tiling(amr.IntVect(*ts)))
    for mfi in iter(lambda: next(it, None), None):  # MFIter's own protocol (first __next__ does not advance)
        boxes.setdefault(mfi.index, []).append(mfi.tilebox())
    n = 0
    for (g, t), tile in tiles.items():
        soa = tile.get_struct_of_arrays()
        if soa.size == 0:
            continue
        x = np.stack([soa.get_real_data(d).to_numpy() for d in range(dim)], axis=1)
        cell = np.floor(x * N).astype(int)
        tb = boxes[g][t]
        lo = np.array([tb.small_end[d] for d in range(dim)])
        hi = np.array([tb.big_end[d] for d in range(dim)])
        assert np.all((cell >= lo) & (cell <= hi))
        n += len(x)
    assert n == 2000
    # a container made after the parameters are gone has no tiling again
    pc2, *_ = make(amr)
    pc2.add_particles(pos)
    assert all(t == 0 for (_, t) in pc2.get_particles(0))


def test_tiling_parameters_checked(amr):
    """A tile size below 1 or a do_tiling that is no bool in ParmParse: ValueError at construction."""
    dim = dim_of(amr)
    ensure_init(amr)
    pp = amr.ParmParse("particles")
    for key, value in (("tile_size", [0] * dim), ("do_tiling", "maybe")):
        (pp.addarr if isinstance(value, list) else pp.add)(key, value)
        try:
            with pytest.raises(ValueError):
                make(amr)
        finally:
            pp.remove(key)
    make(amr)  # fine again


def test_add_particles_at_level_cell_zero(amr3):
    """Regression: add_particles(level=1) of a particle in cell 0 went to a level-0 tile (the locator of
    staged particles took an own-tile shortcut to slot 0)."""
    ensure_init(amr3)
    rb = amr3.RealBox(0, 0, 0, 1, 1, 1)
    dom0 = amr3.Box(amr3.IntVect(0, 0, 0), amr3.IntVect(15, 15, 15))
    dom1 = amr3.Box(amr3.IntVect(0, 0, 0), amr3.IntVect(31, 31, 31))
    g0, g1 = amr3.Geometry(dom0, rb, 0, [1, 1, 1]), amr3.Geometry(dom1, rb, 0, [1, 1, 1])
    ba0, ba1 = amr3.BoxArray(dom0), amr3.BoxArray(dom1)
    ba0.max_size(8)
    ba1.max_size(8)
    dm0, dm1 = amr3.DistributionMapping(ba0), amr3.DistributionMapping(ba1)
    pc = amr3.ParticleContainer_pureSoA_3_0_default([g0, g1], [dm0, dm1], [ba0, ba1], [amr3.IntVect(2, 2, 2)])
    pc.add_particles(np.array([[0.01, 0.01, 0.01], [0.9, 0.9, 0.9]]), level=1)
    assert pc.number_of_particles_at_level(0) == 0 and pc.number_of_particles_at_level(1) == 2
    assert pc.OK()
