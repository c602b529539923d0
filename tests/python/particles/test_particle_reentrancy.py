"""Python code run in the middle of a particle call (an argument's __index__ / __float__ / __bool__)
must not leave the C call with freed or stale state (issue 10, review findings): each scenario runs in
a subprocess that must exit cleanly with the expected result."""
import textwrap

from conftest import run_python

PRELUDE = """
import boxfab.space3d as amr
amr.initialize(["amrex.verbose=0"])
dom = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(7, 7, 7))
rb = amr.RealBox([0.0] * 3, [1.0] * 3)
geom = amr.Geometry(dom, rb, 0, [1] * 3)
ba = amr.BoxArray(dom)
ba.max_size(4)
dm = amr.DistributionMapping(ba)

def make(cls="pureSoA_7_0"):
    pc = getattr(amr, f"ParticleContainer_{cls}_default")(geom, dm, ba)
    init = getattr(amr, "ParticleInitType_" + cls)()
    if cls.startswith("pure"):
        init.real_array_data = [0.0] * pc.num_array_real
    pc.init_random(200, 7, init, False, rb)
    return pc
"""


def run(body):
    r = run_python(PRELUDE + textwrap.dedent(body), timeout=60)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout


def test_deposit_mf_reinitialized_by_an_argument():
    out = run("""
        pc = make()
        mf = amr.MultiFab(ba, dm, 1, 1)
        class Evil:
            def __index__(self):
                mf.__init__(ba, dm, 1, 1)   # frees the MultiFab's C object
                return 0
        pc.deposit(mf, -1, Evil())
        total = round(mf.sum(0) / 8 ** 3, 6)
        pc.interpolate(mf, 3, Evil())
        print("ok", total)
    """)
    assert out.startswith("ok 200.0")


def test_define_ratio_redefines_a_distribution_mapping():
    out = run("""
        dom1 = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(15, 15, 15))
        g1 = amr.Geometry(dom1, rb, 0, [1] * 3)
        ba1 = amr.BoxArray(amr.Box(amr.IntVect(4, 4, 4), amr.IntVect(11, 11, 11)))
        dm1 = amr.DistributionMapping(ba1)
        dm0 = amr.DistributionMapping(ba)
        class Evil:
            def __index__(self):
                dm0.define(ba)          # replaces the C object of dm0
                return 2
        pc = amr.ParticleContainer_pureSoA_7_0_default()
        pc.Define([geom, g1], [dm0, dm1], [ba, ba1], [Evil()])
        print("ok", pc.finest_level, pc.ParticleBoxArray(0).size)
    """)
    assert out.startswith("ok 1 8")


def test_define_on_a_container_tile_is_refused():
    out = run("""
        pc = make()
        t = pc.get_particles(0)[(0, 0)]
        for f in (lambda: t.define(3, 2, [], []), lambda: t.get_struct_of_arrays().define(1, 0, [], [])):
            try:
                f()
                print("accepted")
            except ValueError as e:
                assert "particle container" in str(e)
        other = amr.ParticleTile_pureSoA_7_0_std()   # another memory kind
        try:
            t.swap(other)
            print("accepted")
        except (ValueError, TypeError) as e:
            pass
        for pti in pc.iterator(pc, level=0):
            x = pti.soa().get_real_data(0).to_numpy()
            x[:] = (x + 0.37) % 1.0
        pc.redistribute()
        print("ok", pc.total_number_of_particles(), pc.num_real_comps)
    """)
    assert "accepted" not in out and out.strip().endswith("ok 200 7")


def test_pariter_subclass_calls_super_init():
    out = run("""
        pc = make()
        class MyIter(pc.Iterator):
            def __init__(self, pc, level):
                super().__init__(pc, level)
                self.tag = "mine"
        n = sum(pti.num_particles for pti in MyIter(pc, 0))
        print("ok", n, MyIter(pc, 0).tag)
    """)
    assert out.startswith("ok 200 mine")


def test_particle_setters_keep_writes_made_by_conversions():
    out = run("""
        pc = make("2_1_3_1")
        t = pc.get_particles(0)
        t = t[next(iter(t))]
        p = t.get_array_of_structs()[0]
        p.y = 7.0
        class G:
            def __float__(self):
                p.y = 123.0
                return 1.0
        p.setPos(0, G())
        a = (p.x, p.y)
        p.y = 7.0
        p.set_rdata(0, G())
        print("ok", a, p.y, p.get_rdata(0))
    """)
    assert out.startswith("ok (1.0, 123.0) 123.0 1.0")
