"""Hostile use of the particle containers (issue 21's own adversarial run): shapes, dtypes, names and
levels that are wrong, positions far away or in no grid, layouts that name ranks that do not exist,
views and tiles that outlive a Define or the container, use after finalize() (in a subprocess), and
threads that change a container while others read it.  Each case raises a clear exception and leaves
the container as it was, or does what AMReX does; none hangs, crashes or loses a particle without a
word.  (The findings of the issue itself: test_particle_data_safety.py.)"""
import os
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Mapping

import numpy as np
import pytest

from conftest import run_python
from mfhelp import ensure_init

N = 16


def dim_of(amr):
    return int(amr.__name__[-2])


def make(amr, per=None, max_size=8, L=1.0, lo=0.0, **kw):
    ensure_init(amr)
    dim = dim_of(amr)
    dom = amr.Box(amr.IntVect(*([0] * dim)), amr.IntVect(*([N - 1] * dim)))
    gm = amr.Geometry(dom, amr.RealBox([lo] * dim, [lo + L] * dim), 0, per if per is not None else [1] * dim)
    ba = amr.BoxArray(dom)
    ba.max_size(max_size)
    dm = amr.DistributionMapping(ba)
    return amr.ParticleContainer(gm, dm, ba, **kw), gm, ba, dm


def rows(pc):
    """Every particle, sorted by idcpu: a tuple of column arrays (to_df-free)."""
    out = []
    for lev in range(pc.finest_level + 1):
        for pti in pc.const_iterator(pc, level=lev):
            s = pti.soa().to_numpy(copy=True)
            out.append(np.column_stack([s.idcpu.astype(np.float64)] + list(s.real.values())
                                       + [a.astype(np.float64) for a in s.int.values()]))
    if not out:
        return np.zeros((0, 0))
    a = np.concatenate(out)
    return a[np.argsort(a[:, 0], kind="stable")]


def same_rows(a, b):
    assert a.shape == b.shape and np.array_equal(a, b, equal_nan=True)


# ---- positions many periods away: the wrap ends ---------------------------------------------------

WRAP_CODE = """
import numpy as np, boxfab.space{dim}d as amr
amr.initialize([])
dim = {dim}
for L in (0.3, 7.77, 1e-10, 1e10):
    dom = amr.Box(amr.IntVect(*([0] * dim)), amr.IntVect(*([15] * dim)))
    gm = amr.Geometry(dom, amr.RealBox([-L / 3] * dim, [2 * L / 3] * dim), 0, [1] * dim)
    ba = amr.BoxArray(dom); ba.max_size(8)
    pc = amr.ParticleContainer(gm, amr.DistributionMapping(ba), ba)
    far = np.array([5.9991990006725065e+113, -1.4917664024486264e+116, 1e300, -1.7976931348623157e308,
                    2.0**60 + 0.3, -(2.0**70), 123456.789, np.nextafter(2 * L / 3, 0), -L / 3, 5e-324, -0.0])
    p = np.zeros((len(far), dim)); p[:, 0] = far
    pc.add_particles(p)                                  # wrapped on the way in
    for pti in pc.iterator(pc, level=0):                 # far away again, through a view
        a = pti.soa().to_numpy().real["x"]
        a[:] = far[: len(a)][::-1]
    pc.redistribute()
    assert pc.OK() and pc.total_number_of_particles() == len(far)
    for pti in pc.iterator(pc, level=0):
        x = pti.soa().to_numpy().real["x"]
        assert ((x >= -L / 3) & (x <= 2 * L / 3)).all(), x
print("OK")
"""


@pytest.mark.parametrize("dim", [1, 3])
def test_far_positions_wrap_in_bounded_time(dim):
    """6e113 in a period of 0.3 hung add_particles and redistribute: subtracting a rounded multiple of the
    period left a remainder of the size of the value's last bit, which the loop of periods never ate."""
    r = run_python(WRAP_CODE.format(dim=dim), timeout=60)
    assert r.returncode == 0 and "OK" in r.stdout, r.stdout + r.stderr


# ---- particles in no grid -------------------------------------------------------------------------

def test_particle_inside_the_domain_but_in_no_grid_is_refused(amr):
    """Define onto grids that cover half the domain: the next redistribute refuses the particles of the
    other half (AMReX aborts: "invalid particle"; they were removed without a word), and nothing moves."""
    dim = dim_of(amr)
    pc, gm, ba, dm = make(amr)
    pc.add_particles(np.random.default_rng(1).uniform(0, 1, (300, dim)))
    half = amr.BoxArray(amr.Box(amr.IntVect(*([0] * dim)), amr.IntVect(*([N // 2 - 1] + [N - 1] * (dim - 1)))))
    pc.Define(gm, amr.DistributionMapping(half), half)
    before = rows(pc)
    with pytest.raises(ValueError, match="inside the domain but in no grid of level 0.*nothing was moved"):
        pc.redistribute()
    assert pc.total_number_of_particles() == 300
    same_rows(rows(pc), before)
    # the way out the message gives: an id <= 0 for those, then redistribute removes them
    for pti in pc.iterator(pc, level=0):
        s = pti.soa().to_numpy()
        out = s.real["x"] >= 0.5
        s.idcpu[out] &= np.uint64(0x7FFFFFFFFFFFFFFF)
    pc.redistribute()
    assert pc.OK() and pc.total_number_of_particles() == int((before[:, 1] < 0.5).sum())


def test_no_grid_refused_on_a_level_range_and_on_the_device_plan_path():
    code = """
import numpy as np, boxfab.space2d as amr
amr.initialize([])
dom0 = amr.Box(amr.IntVect(0, 0), amr.IntVect(15, 15)); dom1 = amr.Box(amr.IntVect(0, 0), amr.IntVect(31, 31))
gm0 = amr.Geometry(dom0, amr.RealBox([0.0, 0.0], [1.0, 1.0]), 0, [1, 1])
gm1 = amr.Geometry(dom1, amr.RealBox([0.0, 0.0], [1.0, 1.0]), 0, [1, 1])
ba0 = amr.BoxArray(dom0); ba0.max_size(8)
ba1 = amr.BoxArray(amr.Box(amr.IntVect(0, 0), amr.IntVect(15, 15)))
for cls in (amr.ParticleContainer_pureSoA_2_0_pinned, amr.ParticleContainer_pureSoA_2_0_default):
    pc = cls([gm0, gm1], [amr.DistributionMapping(ba0), amr.DistributionMapping(ba1)], [ba0, ba1], [2])
    pc.init_random(400, 4, amr.ParticleInitType_pureSoA_2_0(), False, amr.RealBox([0.0, 0.0], [1.0, 1.0]))
    n1 = pc.number_of_particles_at_level(1)
    assert 0 < n1 < 400
    # a level-1 particle leaves the level-1 grids: redistribute(1, 1) cannot place it
    pti = next(iter(pc.iterator(pc, level=1)))
    pti.soa().to_numpy().real["x"][0] = 0.9
    try:
        pc.redistribute(1, 1)
    except ValueError as e:
        assert "no grid of level 1" in str(e), e
    else:
        raise AssertionError("accepted")
    assert pc.number_of_particles_at_level(1) == n1
    pc.redistribute()             # levels 0..1: it goes to level 0
    assert pc.OK() and pc.total_number_of_particles() == 400 and pc.number_of_particles_at_level(1) == n1 - 1
print("OK")
"""
    env = dict(os.environ, BOXFAB_PARTICLE_PLAN="1")   # the _pinned container takes the device-resident path
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120,
                       env=env)
    assert r.returncode == 0 and "OK" in r.stdout, r.stdout + r.stderr


def test_restart_into_grids_that_do_not_hold_the_particles_changes_nothing(amr, tmp_path):
    """restart adds the file's particles, then redistributes: a particle in no grid of the container is
    refused there, and the particles read are taken out again (the container as it was)."""
    dim = dim_of(amr)
    pc, gm, ba, dm = make(amr)
    pc.add_particles(np.random.default_rng(5).uniform(0, 1, (120, dim)))
    pc.checkpoint(str(tmp_path), "p")
    half = amr.BoxArray(amr.Box(amr.IntVect(*([0] * dim)), amr.IntVect(*([N // 2 - 1] + [N - 1] * (dim - 1)))))
    other = amr.ParticleContainer(gm, amr.DistributionMapping(half), half)
    other.add_particles(np.full((3, dim), 0.25))
    before = rows(other)
    with pytest.raises(ValueError, match="no grid"):
        other.restart(str(tmp_path), "p")
    same_rows(rows(other), before)
    assert other.OK() and other.total_number_of_particles() == 3
    again = amr.ParticleContainer(gm, dm, ba)
    again.restart(str(tmp_path), "p")
    assert again.total_number_of_particles() == 120


def test_define_refuses_a_distribution_mapping_of_missing_ranks(amr):
    """A grid on rank 1 of a one-rank run: redistribute wrote past its table of ranks and the particles
    vanished; now Define (and the constructor) refuse it, the container unchanged."""
    dim = dim_of(amr)
    pc, gm, ba, dm = make(amr)
    pc.add_particles(np.full((5, dim), 0.5))
    for bad in ([1] * ba.size, [-1] + [0] * (ba.size - 1), [0] * (ba.size - 1) + [2**30]):
        with pytest.raises(ValueError, match="rank"):
            pc.Define(gm, amr.DistributionMapping(bad), ba)
        with pytest.raises(ValueError, match="rank"):
            amr.ParticleContainer(gm, amr.DistributionMapping(bad), ba)
    assert pc.total_number_of_particles() == 5 and pc.OK()


# ---- Define: the tiles themselves stay ------------------------------------------------------------

def test_views_and_iterators_taken_before_define_stay_the_containers(amr):
    dim = dim_of(amr)
    pc, gm, ba, dm = make(amr, real_names=["w"])
    pc.add_particles(np.random.default_rng(2).uniform(0, 1, (200, dim)), {"w": np.arange(200.0)})
    it = pc.iterator(pc, level=0)
    views = [p.soa().to_numpy().real["w"] for p in pc.iterator(pc, level=0)]
    ba2 = amr.BoxArray(amr.Box(amr.IntVect(*([0] * dim)), amr.IntVect(*([N - 1] * dim))))
    ba2.max_size(4)
    pc.Define(gm, amr.DistributionMapping(ba2), ba2)
    for v in views:
        v[:] = -1.0                         # through views taken before Define: the container sees it
    assert sum(p.num_particles for p in it) == 200
    pc.redistribute()
    w = np.concatenate([p.soa().to_numpy().real["w"] for p in pc.iterator(pc, level=0)])
    assert len(w) == 200 and (w == -1.0).all()


def test_define_during_a_loop_and_tiles_kept_from_before(amr):
    dim = dim_of(amr)
    pc, gm, ba, dm = make(amr)
    pc.add_particles(np.random.default_rng(3).uniform(0, 1, (100, dim)))
    tiles = pc.get_particles(0)
    for i, p in enumerate(pc.iterator(pc, level=0)):
        if i == 1:
            pc.Define(gm, dm, ba)
        assert p.num_particles == p.soa().size
    pc.redistribute()
    assert pc.OK() and pc.total_number_of_particles() == 100
    assert sum(t.num_particles for t in tiles.values()) <= 100   # alive, whatever they hold now


# ---- names -----------------------------------------------------------------------------------------

class SubStr(str):
    def __eq__(self, other):          # a str subclass that lies about equality: C reads its characters
        return True

    __hash__ = str.__hash__


def test_hostile_names(amr, tmp_path):
    ensure_init(amr)
    dim = dim_of(amr)
    pc, gm, ba, dm = make(amr)
    for names, exc in [([b"a"], TypeError), ([None], TypeError), ([1], TypeError), ("abc", TypeError),
                       (["\ud800"], ValueError), ([""], ValueError), (["a", "a"], ValueError)]:
        with pytest.raises(exc):
            amr.ParticleContainer(gm, dm, ba, real_names=names)
        with pytest.raises(exc):
            amr.ParticleContainer(gm, dm, ba, int_names=names)
    for bad, exc in [(b"mass", TypeError), (bytearray(b"m"), TypeError), ("\ud800", ValueError)]:
        with pytest.raises(exc):
            pc.add_real_comp(bad)           # bytes were read as communicate=True: a default-named component
        with pytest.raises(exc):
            pc.add_int_comp(bad)
    assert pc.real_comp_names == ["x", "y", "z"][:dim] and pc.int_comp_names == []
    q = amr.ParticleContainer(gm, dm, ba, real_names=[SubStr("q"), "é", "日本"], int_names=(n for n in ["k"]))
    assert q.real_comp_names[dim:] == ["q", "é", "日本"] and q.int_comp_names == ["k"]
    q.add_particles(np.full((2, dim), 0.5), {"日本": np.ones(2), "k": np.array([3, 4])})
    pd = pytest.importorskip("pandas")
    assert list(q.to_df().columns) == ["idcpu"] + ["x", "y", "z"][:dim] + ["q", "é", "日本", "k"]
    q.write_plotfile(str(tmp_path / "uni"), "p")
    # a name the Header cannot hold: refused by the writer before anything is written
    long = amr.ParticleContainer(gm, dm, ba, real_names=["a" * 100000])
    long.add_particles(np.full((1, dim), 0.5))
    with pytest.raises(ValueError):
        long.write_plotfile(str(tmp_path / "long"), "p")
    assert not (tmp_path / "long").exists()
    del pd


def test_tile_define_hostile(amr):
    dim = dim_of(amr)
    t = getattr(amr, f"ParticleTile_pureSoA_{dim}_0_default")()
    names = list(t.get_struct_of_arrays().real_names)
    for args, exc in [((-1, 0), ValueError), ((0, 5000), ValueError), ((1, 0, names + ["a", "b"]), ValueError),
                      ((0.5, 0), TypeError), ((1, 0, names + [b"a"]), TypeError), ((1, 0, "abc"), TypeError),
                      ((0, 1, None, ["idcpu"]), ValueError), ((0, 1, None, ["x"]), ValueError)]:
        with pytest.raises(exc):
            t.define(*args)
    s = t.get_struct_of_arrays()
    assert s.real_names == names and s.int_names == [] and s.num_real_comps == dim


# ---- add_particles: shapes, dtypes, flags ---------------------------------------------------------

def hostile_adds(dim):
    P = np.full((4, dim), 0.5)
    return [
        (lambda pc: pc.add_particles(np.full((4, dim + 1), 0.5)), ValueError),
        (lambda pc: pc.add_particles(np.full((2, 2, dim), 0.5)), ValueError),
        (lambda pc: pc.add_particles(np.float64(0.5)), ValueError),
        (lambda pc: pc.add_particles(None), TypeError),
        (lambda pc: pc.add_particles("0.5"), TypeError),
        (lambda pc: pc.add_particles(3), TypeError),
        (lambda pc: pc.add_particles([[0.5, 0.5]] + [[0.5]] * (dim - 1)), ValueError) if dim > 1 else
        (lambda pc: pc.add_particles([[0.5, 0.5], [0.5]]), ValueError),
        (lambda pc: pc.add_particles(np.array([[0.5] * dim], dtype=object)), TypeError),
        (lambda pc: pc.add_particles(np.ones((2, dim), bool)), TypeError),
        (lambda pc: pc.add_particles(np.full((2, dim), 0.5 + 0j)), TypeError),
        (lambda pc: pc.add_particles(np.full((2, dim), "a")), TypeError),
        (lambda pc: pc.add_particles(P, {"w": np.ones((4, 1))}), ValueError),
        (lambda pc: pc.add_particles(P, {"w": np.ones(3)}), ValueError),
        (lambda pc: pc.add_particles(P, {"w": np.array([1, 2, 3, 4], object)}), TypeError),
        (lambda pc: pc.add_particles(P, {"k": np.ones(4)}), TypeError),
        (lambda pc: pc.add_particles(P, {"k": np.full(4, 2**40)}), OverflowError),
        (lambda pc: pc.add_particles(P, {1: np.ones(4)}), TypeError),
        (lambda pc: pc.add_particles(P, {"idcpu": np.ones(4)}), KeyError),
        (lambda pc: pc.add_particles(P, {"w\0": np.ones(4)}), KeyError),
        (lambda pc: pc.add_particles(P, {"x": np.ones(4)}), ValueError),
        (lambda pc: pc.add_particles(P, {"w": None}), ValueError),
        (lambda pc: pc.add_particles(P, ids=[0, 1, 2, 3]), ValueError),
        (lambda pc: pc.add_particles(P, ids=[1.0, 2, 3, 4]), TypeError),
        (lambda pc: pc.add_particles(P, ids=np.full(4, 2**63, np.uint64)), OverflowError),
        (lambda pc: pc.add_particles(P, cpus=[-1, 0, 0, 0]), ValueError),
        (lambda pc: pc.add_particles(P, redistribute="no"), TypeError),
        (lambda pc: pc.add_particles(P, redistribute=[False]), TypeError),
        (lambda pc: pc.add_particles(P, level=True + 0.5), TypeError),
        (lambda pc: pc.add_particles(np.full((1, dim), np.nan)), ValueError),
    ]


def test_add_particles_hostile_arguments_change_nothing(amr):
    dim = dim_of(amr)
    pc, *_ = make(amr, real_names=["w"], int_names=["k"])
    pc.add_particles(np.full((3, dim), 0.25), {"w": np.ones(3)})
    before = rows(pc)
    for k, (call, exc) in enumerate(hostile_adds(dim)):
        with pytest.raises(exc):
            call(pc)
        assert pc.total_number_of_particles() == 3, k
    same_rows(rows(pc), before)
    # the accepted spellings
    for flag in (True, False, np.bool_(True), 1, 0, None):
        pc.add_particles(np.full((1, dim), 0.5), redistribute=flag)
    pc.add_particles(np.full((2, dim), 0.5, np.float32), {"w": np.ones(2, np.float16), "k": np.ones(2, np.uint8)})
    pc.add_particles(np.full((2, 2 * dim), 0.5)[:, ::2])              # strided
    pc.add_particles(np.full((2, dim), 0.5, ">f8"))                     # big-endian
    pc.add_particles(np.zeros((0, dim)))                                # none
    pc.redistribute()
    assert pc.OK() and pc.total_number_of_particles() == 3 + 6 + 2 + 2 + 2


def test_columns_read_while_the_container_changes():
    """A mapping whose iteration adds a component: the particles get it (0); a column whose conversion
    Defines the container with fewer levels: the level is out of range, nothing is added."""
    import boxfab.space3d as amr
    pc, gm, ba, dm = make(amr, real_names=["w"])

    class Growing(Mapping):
        def __init__(self, d):
            self.d = d

        def __getitem__(self, k):
            return self.d[k]

        def __len__(self):
            return len(self.d)

        def __iter__(self):
            pc.add_real_comp("late")
            return iter(self.d)

    pc.add_particles(np.full((3, 3), 0.5), Growing({"w": np.ones(3)}))
    s = next(iter(pc.iterator(pc, level=0))).soa().to_numpy()
    assert (s.real["w"] == 1).all() and (s.real["late"] == 0).all() and len(s.real["late"]) == 3

    dom1 = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(2 * N - 1, 2 * N - 1, 2 * N - 1))
    gm1 = amr.Geometry(dom1, amr.RealBox([0.0] * 3, [1.0] * 3), 0, [1, 1, 1])
    two = amr.ParticleContainer([gm, gm1], [dm, dm], [ba, ba], [2])

    class Redefines:
        def __array__(self, dtype=None, copy=None):
            two.Define(gm, dm, ba)
            return np.full(3, 0.25)

    with pytest.raises(IndexError):
        two.add_particles([Redefines(), np.full(3, 0.25), np.full(3, 0.25)], level=1)
    assert two.total_number_of_particles() == 0 and two.finest_level == 0


# ---- NaN through other operations ---------------------------------------------------------------

def test_nonfinite_positions_in_the_other_particle_operations(amr):
    """sort, increment, deposit and interpolate meet a NaN / infinite position: no undefined conversion
    (the cell of NaN), a clear error where the particle must lie in its grid."""
    dim = dim_of(amr)
    pc, gm, ba, dm = make(amr, real_names=["w"])
    pc.add_particles(np.random.default_rng(4).uniform(0, 1, (100, dim)))
    s = next(iter(pc.iterator(pc, level=0))).soa().to_numpy()
    s.real["x"][:2] = [np.nan, -np.inf]
    pc.sort_particles_by_cell()
    pc.sort_particles_by_bin(amr.IntVect(*([2] * dim)))
    mf = amr.MultiFab(ba, dm, 1, 1)
    mf.set_val(0.0)
    pc.increment(mf, 0)
    assert mf.sum(0) == 98
    with pytest.raises(ValueError):
        pc.deposit(mf, shape="cic")
    with pytest.raises(ValueError):
        pc.interpolate(mf, comp="w", shape="ngp")
    assert not pc.OK() and pc.total_number_of_particles() == 100


# ---- finalize, views, threads --------------------------------------------------------------------

def test_everything_after_finalize_raises_runtimeerror():
    r = run_python("""
import numpy as np, gc, boxfab.space3d as amr
amr.initialize([])
dom = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(15, 15, 15))
gm = amr.Geometry(dom, amr.RealBox([0.0] * 3, [1.0] * 3), 0, [1, 1, 1])
ba = amr.BoxArray(dom); ba.max_size(8); dm = amr.DistributionMapping(ba)
pc = amr.ParticleContainer(gm, dm, ba, real_names=["w"])
pc.add_particles(np.full((5, 3), 0.5), {"w": np.arange(5.0)})
df = pc.to_df()
view = next(iter(pc.iterator(pc, level=0))).soa().to_numpy().real["w"]
tiles = pc.get_particles(0)
amr.finalize()
calls = [lambda: pc.Define(gm, dm, ba), lambda: pc._snapshot(), lambda: pc.to_df(), lambda: pc.redistribute(),
         lambda: pc.add_particles(np.full((1, 3), 0.5), level=0.5), lambda: pc.add_real_comp("idcpu"),
         lambda: pc.write_plotfile("unused_dir", "p"), lambda: pc.checkpoint("unused_dir", "c"),
         lambda: pc.OK(), lambda: pc.iterator(pc, level=0), lambda: pc.total_number_of_particles()]
for f in calls:
    try:
        f()
    except RuntimeError:
        pass
    else:
        raise AssertionError("no RuntimeError")
import os
assert not os.path.exists("unused_dir")
assert (view == np.arange(5.0)).all() and list(df["w"]) == [0, 1, 2, 3, 4]
assert sum(t.size for t in tiles.values()) == 5
amr.initialize([])
try:
    pc.Define(gm, dm, ba)      # a container of the ended instance stays ended
except RuntimeError:
    pass
else:
    raise AssertionError("no RuntimeError")
del pc, view, tiles; gc.collect()
amr.finalize()
print("OK")
""")
    assert r.returncode == 0 and "OK" in r.stdout, r.stdout + r.stderr


def test_threads_change_a_container_while_others_read_it():
    """Eight threads on one container (adding, Define, redistribute, to_df, iterating with to_numpy, adding
    components, sorting, counting): every read is consistent (columns of one length, a row per particle),
    no call fails but "SoA is empty." of a tile emptied meanwhile, and no particle is lost."""
    pytest.importorskip("pandas")
    import boxfab.space3d as amr
    pc, gm, ba, dm = make(amr, real_names=["w"], int_names=["k"])
    layouts = []
    for ms in (4, 8, 16):
        b = amr.BoxArray(amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(N - 1, N - 1, N - 1)))
        b.max_size(ms)
        layouts.append((b, amr.DistributionMapping(b)))
    stop, errors, added = threading.Event(), [], [0]
    lock = threading.Lock()

    def add(rng):
        p = rng.uniform(0, 1, (20, 3))
        pc.add_particles(p, {"w": p[:, 0]}, redistribute=bool(rng.integers(2)))
        with lock:
            added[0] += 20

    def define(rng):
        b, d = layouts[rng.integers(3)]
        pc.Define(gm, d, b)

    def df(rng):
        d = pc.to_df()
        if d is not None:
            assert (d["w"].to_numpy() == d["x"].to_numpy()).all()

    def iterate(rng):
        for p in pc.iterator(pc, level=0):
            try:
                s = p.soa().to_numpy()
            except ValueError as e:           # a tile another thread emptied
                assert "SoA is empty" in str(e)
                continue
            n = len(s.idcpu)
            assert all(len(a) == n for a in list(s.real.values()) + list(s.int.values()))

    def comp(rng):
        pc.add_real_comp(f"c{rng.integers(1 << 60)}")

    jobs = {"add": add, "define": define, "redistribute": lambda rng: pc.redistribute(), "df": df,
            "iterate": iterate, "comp": comp, "sort": lambda rng: pc.sort_particles_by_cell(),
            "count": lambda rng: (pc.total_number_of_particles(), pc.OK())}

    def worker(name, fn):
        rng = np.random.default_rng(abs(hash(name)) % 2**32)
        try:
            while not stop.is_set():
                fn(rng)
        except Exception as e:  # pragma: no cover - reported below
            errors.append((name, repr(e)))

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    threads = [threading.Thread(target=worker, args=kv) for kv in jobs.items()]
    try:
        for t in threads:
            t.start()
        time.sleep(3)
    finally:
        stop.set()
        for t in threads:
            t.join()
        sys.setswitchinterval(old)
    assert not errors, errors
    pc.redistribute()
    assert pc.OK() and pc.total_number_of_particles() == added[0] > 0
