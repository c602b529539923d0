"""Particle-mesh coupling (pc.deposit / pc.interpolate, a boxfab extension) against a NumPy brute force:
each particle's weights over its stencil written as functions of the distance to the cell centres,
np.add.at with periodic modulo (deposit) or the same weights gathered (interpolate)."""
import numpy as np
import pytest

from mfhelp import ensure_init

N = 8  # cells per direction
OFF = 3  # the domain's lo index
PLO = -1.25
DX = 0.5
SHAPES = ["ngp", "cic", "tsc"]


def dim_of(amr):
    return int(amr.__name__[-2])


def make_pc(amr, periodic, soa=True, npart=150, seed=7, max_size=4, cls=None):
    ensure_init(amr)
    d = dim_of(amr)
    dom = amr.Box(amr.IntVect(*([OFF] * d)), amr.IntVect(*([OFF + N - 1] * d)))
    rb = amr.RealBox([PLO] * d, [PLO + N * DX] * d)
    geom = amr.Geometry(dom, rb, 0, [int(periodic)] * d)
    ba = amr.BoxArray(dom)
    ba.max_size(max_size)
    dm = amr.DistributionMapping(ba)
    if cls is None:
        cls = {1: "pureSoA_5_0", 2: "pureSoA_6_0", 3: "pureSoA_7_0"}[d] if soa else "2_1_3_1"
        cls = getattr(amr, f"ParticleContainer_{cls}_default")
    pc = cls(geom, dm, ba)
    suffix = cls.__name__[len("ParticleContainer_"):].rsplit("_", 1)[0]  # drop the allocator
    init = getattr(amr, "ParticleInitType_" + suffix)()
    if soa:
        init.real_array_data = [0.0] * pc.num_array_real
    pc.init_random(npart, seed, init, False, rb)
    # weights, and a few particles on the domain's lo corner and on cell faces
    rng = np.random.default_rng(seed)
    for pti in pc.iterator(pc, level=0):
        pos = positions_view(pti, d, soa)
        w = weights_view(pti, d, soa)
        w[:] = 0.5 + rng.random(w.shape[0])
        for k in range(min(4, w.shape[0])):
            for a in range(d):
                pos[a][k] = PLO + (0 if k == 0 else (k + 1) * DX)
    pc.redistribute()
    return pc, geom, ba, dm


def positions_view(pti, d, soa):
    if soa:
        real = pti.soa().to_numpy().real
        return [real["xyz"[a]] for a in range(d)]
    aos = pti.aos().to_numpy()
    return [aos["xyz"[a]] for a in range(d)]


def weight_comp(d, soa):
    return d if soa else 0  # "a" either way


def weights_view(pti, d, soa):
    return pti.soa().get_real_data(weight_comp(d, soa)).to_numpy()


def gather(pc, d, soa, comp):
    xs, ws = [], []
    for pti in pc.iterator(pc, level=0):
        pos = positions_view(pti, d, soa)
        xs.append(np.stack([np.array(p) for p in pos], axis=1))
        ws.append(np.array(pti.soa().get_real_data(comp).to_numpy()))
    return np.concatenate(xs), np.concatenate(ws)


def shape_weight(shape, r):
    a = np.abs(r)
    if shape == "ngp":
        return ((r >= -0.5) & (r < 0.5)).astype(float)
    if shape == "cic":
        return np.where(a < 1.0, 1.0 - a, 0.0)
    return np.where(a < 0.5, 0.75 - a * a, np.where(a < 1.5, 0.5 * (1.5 - a) ** 2, 0.0))


def stencils(x, shape, d):
    """For each particle: candidate cells (relative to the domain's lo) per direction, 5 of them, and
    the weights (0 outside the stencil)."""
    u = (x - PLO) / DX
    base = np.floor(u).astype(int)[:, :, None] + np.arange(-2, 3)[None, None, :]  # (np, d, 5)
    w = shape_weight(shape, u[:, :, None] - (base + 0.5))
    return base, w


def brute_deposit(x, wts, shape, d, periodic):
    base, w = stencils(x, shape, d)
    rho = np.zeros([N] * d)
    vol = DX**d
    for combo in np.ndindex(*([5] * d)):
        idx = [base[:, a, combo[a]] for a in range(d)]
        f = wts / vol
        for a in range(d):
            f = f * w[:, a, combo[a]]
        if periodic:
            idx = [i % N for i in idx]
            keep = np.ones(len(f), bool)
        else:
            keep = np.all([(i >= 0) & (i < N) for i in idx], axis=0)
        np.add.at(rho, tuple(i[keep] for i in idx), f[keep])
    return rho


def brute_interpolate(x, field_of, shape, d):
    base, w = stencils(x, shape, d)
    out = np.zeros(len(x))
    for combo in np.ndindex(*([5] * d)):
        idx = [base[:, a, combo[a]] for a in range(d)]
        f = np.ones(len(x))
        for a in range(d):
            f = f * w[:, a, combo[a]]
        out += f * field_of(idx)
    return out


def mf_global(mf, comp, d):
    """The valid cells of component comp as one array [N]*d (index relative to the domain's lo)."""
    g = np.full([N] * d, np.nan)
    for mfi in mf:
        vb = mfi.validbox()
        fb = mfi.fabbox()
        lo, hi, flo = list(vb.small_end), list(vb.big_end), list(fb.small_end)
        a = mf.array(mfi).to_numpy()
        sl = tuple(slice(lo[k] - flo[k], hi[k] - flo[k] + 1) for k in range(d))
        dst = tuple(slice(lo[k] - OFF, hi[k] - OFF + 1) for k in range(d))
        g[dst] = a[sl + (0,) * (3 - d) + (comp,)]
    return g


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("periodic", [True, False], ids=["periodic", "walls"])
@pytest.mark.parametrize("soa", [True, False], ids=["soa", "legacy"])
def test_deposit_matches_numpy(amr, shape, periodic, soa):
    d = dim_of(amr)
    pc, geom, ba, dm = make_pc(amr, periodic, soa)
    comp = weight_comp(d, soa)
    x, w = gather(pc, d, soa, comp)
    assert len(x) == pc.total_number_of_particles()
    mf = amr.MultiFab(ba, dm, 2, 1 if shape != "ngp" else 0)
    mf.set_val(3.0)
    pc.deposit(mf, comp=comp, mf_comp=1, shape=shape)
    rho = mf_global(mf, 1, d)
    np.testing.assert_allclose(rho, brute_deposit(x, w, shape, d, periodic), rtol=1e-12, atol=1e-12)
    assert np.all(mf_global(mf, 0, d) == 3.0)  # other component untouched
    if periodic:  # charge conservation
        assert rho.sum() * DX**d == pytest.approx(w.sum(), rel=1e-12)
    # weight 1, accumulate (zero_out=False)
    mf2 = amr.MultiFab(ba, dm, 1, 2)
    mf2.set_val(1.0)
    pc.deposit(mf2, comp=-1, shape=shape, zero_out=False)
    np.testing.assert_allclose(mf_global(mf2, 0, d), 1.0 + brute_deposit(x, np.ones(len(x)), shape, d, periodic),
                               rtol=1e-12)


def test_component_by_name(amr3):
    amr = amr3
    pc, geom, ba, dm = make_pc(amr, True)
    mf_a = amr.MultiFab(ba, dm, 1, 1)
    mf_i = amr.MultiFab(ba, dm, 1, 1)
    pc.deposit(mf_a, "a")  # pure SoA 7_0 in 3D: x, y, z, a, b, c, d
    pc.deposit(mf_i, 3)
    np.testing.assert_array_equal(mf_global(mf_a, 0, 3), mf_global(mf_i, 0, 3))
    pc.add_real_comp("phi", True)
    mf_a.set_val(2.0)
    pc.interpolate(mf_a, "phi")
    for pti in pc.iterator(pc, level=0):
        np.testing.assert_allclose(pti.soa().to_numpy().real["phi"], 2.0, rtol=1e-14)
    with pytest.raises(ValueError, match="no real component named 'nope'"):
        pc.deposit(mf_a, "nope")


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("periodic", [True, False], ids=["periodic", "walls"])
@pytest.mark.parametrize("soa", [True, False], ids=["soa", "legacy"])
def test_interpolate_matches_numpy(amr, shape, periodic, soa):
    d = dim_of(amr)
    pc, geom, ba, dm = make_pc(amr, periodic, soa)
    comp = weight_comp(d, soa)

    def field(idx):  # a smooth-ish function of the (wrapped when periodic) cell index
        idx = [np.asarray(i) % N if periodic else np.asarray(i) for i in idx]
        v = np.zeros(np.broadcast(*idx).shape)
        for a, i in enumerate(idx):
            v = v + (a + 1) * np.sin(0.7 * i + a) + 0.125 * i
        return v

    mf = amr.MultiFab(ba, dm, 2, 2)
    mf.set_val(-99.0)
    for mfi in mf:  # every cell, ghost cells included, from the same function
        fb = mfi.fabbox()
        flo, fhi = list(fb.small_end), list(fb.big_end)
        grids = np.meshgrid(*[np.arange(flo[k], fhi[k] + 1) - OFF for k in range(d)], indexing="ij")
        a = mf.array(mfi).to_numpy()
        a[(slice(None),) * d + (0,) * (3 - d) + (1,)] = field(grids)
    pc.interpolate(mf, comp, mf_comp=1, shape=shape)
    x, got = gather(pc, d, soa, comp)
    np.testing.assert_allclose(got, brute_interpolate(x, field, shape, d), rtol=1e-12, atol=1e-12)


def test_interpolate_after_fill_boundary_roundtrip(amr):
    """A constant field interpolates to the constant; deposit then interpolate of weight 1 with NGP gives
    each particle its cell's count / volume."""
    d = dim_of(amr)
    pc, geom, ba, dm = make_pc(amr, True)
    mf = amr.MultiFab(ba, dm, 1, 1)
    pc.deposit(mf, shape="ngp")
    mf.fill_boundary(geom.periodicity())
    comp = weight_comp(d, True) + 1
    pc.interpolate(mf, comp, shape="ngp")
    x, got = gather(pc, d, True, comp)
    cells = np.floor((x - PLO) / DX).astype(int)
    counts = np.zeros([N] * d)
    np.add.at(counts, tuple(cells.T), 1.0)
    np.testing.assert_allclose(got, counts[tuple(cells.T)] / DX**d, rtol=1e-14)
    for shape in SHAPES:
        mf.set_val(4.5)
        pc.interpolate(mf, comp, shape=shape)
        _, got = gather(pc, d, True, comp)
        np.testing.assert_allclose(got, 4.5, rtol=1e-14)


def test_tiling(amr3):
    amr = amr3
    ensure_init(amr)
    pc, geom, ba, dm = make_pc(amr, True, npart=3000)
    x, w = gather(pc, 3, True, 3)
    ref = brute_deposit(x, w, "tsc", 3, True)
    mf = amr.MultiFab(ba, dm, 1, 1)
    pc.deposit(mf, 3, shape="tsc")
    np.testing.assert_allclose(mf_global(mf, 0, 3), ref, rtol=1e-12)


def test_errors(amr):
    d = dim_of(amr)
    pc, geom, ba, dm = make_pc(amr, True, npart=30)
    mf0 = amr.MultiFab(ba, dm, 1, 0)
    mf1 = amr.MultiFab(ba, dm, 1, 1)
    pc.deposit(mf0, shape="ngp")
    with pytest.raises(ValueError, match="CIC needs 1 ghost cell"):
        pc.deposit(mf0)
    with pytest.raises(ValueError, match="TSC needs 1 ghost cell"):
        pc.interpolate(mf0, d, shape="tsc")
    other_ba = amr.BoxArray(ba.minimal_box())
    other = amr.MultiFab(other_ba, amr.DistributionMapping(other_ba), 1, 1)
    with pytest.raises(ValueError, match="not on the BoxArray"):
        pc.deposit(other)
    with pytest.raises(IndexError, match="MultiFab component 1 out of range"):
        pc.deposit(mf1, mf_comp=1)
    with pytest.raises(IndexError, match="particle component"):
        pc.deposit(mf1, comp=pc.num_real_comps)
    with pytest.raises(IndexError, match="particle component"):
        pc.deposit(mf1, comp=-2)
    with pytest.raises(IndexError, match="particle component -1"):
        pc.interpolate(mf1, -1)
    with pytest.raises(ValueError, match="is a position"):
        pc.interpolate(mf1, 0)
    with pytest.raises(IndexError, match="level 1 out of range"):
        pc.deposit(mf1, level=1)
    with pytest.raises(ValueError, match="shape must be"):
        pc.deposit(mf1, shape="quadratic")
    with pytest.raises(ValueError, match="order must be 0"):
        pc.deposit(mf1, shape=3)
    with pytest.raises(TypeError):
        pc.deposit(mf1, shape=1.0)
    with pytest.raises(TypeError):
        pc.deposit(mf1, comp=1.5)
    with pytest.raises(TypeError):
        pc.deposit(mf1, comp=True)
    with pytest.raises(TypeError):
        pc.deposit(None)
    with pytest.raises(TypeError):
        pc.deposit(amr.iMultiFab(ba, dm, 1, 1))
    with pytest.raises(TypeError):
        pc.interpolate(mf1)  # comp is required
    with pytest.raises(TypeError):
        pc.deposit(mf1, bogus=1)
    # a particle moved out of its grid without redistribute: error, MultiFab unchanged
    mf1.set_val(2.5)
    for bad in (PLO + 100.0, np.nan, np.inf):
        for pti in pc.iterator(pc, level=0):
            x = pti.soa().to_numpy().real["x"]
            if len(x):
                old = x[0]
                x[0] = bad
                break
        with pytest.raises(ValueError, match="redistribute"):
            pc.deposit(mf1, zero_out=False)
        assert mf1.min(0) == 2.5 and mf1.max(0) == 2.5
        with pytest.raises(ValueError, match="redistribute"):
            pc.interpolate(mf1, d)
        x[0] = old
    pc.deposit(mf1)


def test_other_dim_multifab(amr3):
    import boxfab.space2d as amr2

    pc, geom, ba, dm = make_pc(amr3, True, npart=10)
    ensure_init(amr2)
    dom2 = amr2.Box(amr2.IntVect(0, 0), amr2.IntVect(7, 7))
    ba2 = amr2.BoxArray(dom2)
    mf2 = amr2.MultiFab(ba2, amr2.DistributionMapping(ba2), 1, 1)
    with pytest.raises(TypeError):
        pc.deposit(mf2)


def test_docstrings(amr3):
    pc, *_ = make_pc(amr3, True, npart=1)
    assert "boxfab extension" in type(pc).deposit.__doc__
    assert "boxfab extension" in type(pc).interpolate.__doc__


def test_bench_deposit_smoke(tmp_path):
    """benchmarks/bench_deposit.py runs small, checks its results against NumPy, and has --help."""
    import os
    import subprocess
    import sys

    script = os.path.join(os.path.dirname(__file__), "..", "..", "..", "benchmarks", "bench_deposit.py")
    r = subprocess.run([sys.executable, script, "--help"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "np.add.at" in r.stdout
    r = subprocess.run([sys.executable, script, "--ncell", "16", "--max-size", "8", "--particles", "2000",
                        "--repeat", "1", "--interpolate"], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    rows = [line for line in r.stdout.splitlines() if line.strip().startswith("2000")]
    assert len(rows) == 3, r.stdout  # one row per shape
    assert r.stdout.count("interpolate: boxfab") == 3, r.stdout


def test_after_finalize_and_lifetimes():
    """deposit / interpolate after finalize() raise RuntimeError; the MultiFab passed in may be the only
    reference left (the call holds it); the process exits cleanly."""
    from conftest import run_python

    r = run_python("""
        import gc
        import boxfab.space2d as amr
        amr.initialize([])
        dom = amr.Box(amr.IntVect(0, 0), amr.IntVect(7, 7))
        rb = amr.RealBox([0.0, 0.0], [1.0, 1.0])
        geom = amr.Geometry(dom, rb, 0, [1, 1])
        ba = amr.BoxArray(dom)
        ba.max_size(4)
        dm = amr.DistributionMapping(ba)
        pc = amr.ParticleContainer_pureSoA_6_0_default(geom, dm, ba)
        init = amr.ParticleInitType_pureSoA_6_0()
        init.real_array_data = [0.0] * 6
        pc.init_random(100, 3, init, False, rb)
        pc.deposit(amr.MultiFab(ba, dm, 1, 1), 2)   # a temporary MultiFab
        gc.collect()
        mf = amr.MultiFab(ba, dm, 1, 1)
        pc.deposit(mf)
        assert abs(mf.sum(0) * (1 / 64) - 100) < 1e-9
        amr.finalize()
        for call in (lambda: pc.deposit(mf), lambda: pc.interpolate(mf, 2)):
            try:
                call()
            except RuntimeError as e:
                print("RuntimeError:", e)
            else:
                raise SystemExit("no error after finalize")
        del pc, mf
        gc.collect()
        print("clean exit")
    """)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count("RuntimeError:") == 2 and "clean exit" in r.stdout, r.stdout


def test_generic_container_and_pinned(amr3):
    """The generic named ParticleContainer and a container in pinned memory deposit the same."""
    amr = amr3
    pc, geom, ba, dm = make_pc(amr, True, npart=500)
    x, w = gather(pc, 3, True, 3)
    ref = brute_deposit(x, w, "cic", 3, True)
    for alloc in ("pinned", "arena"):
        cls = getattr(amr, f"ParticleContainer_pureSoA_7_0_{alloc}")
        pc2, *_ = make_pc(amr, True, npart=500, cls=cls)
        x2, w2 = gather(pc2, 3, True, 3)
        mf = amr.MultiFab(ba, dm, 1, 1)
        pc2.deposit(mf, "a")
        np.testing.assert_allclose(mf_global(mf, 0, 3), brute_deposit(x2, w2, "cic", 3, True), rtol=1e-12)
    mf = amr.MultiFab(ba, dm, 1, 1)
    pc.deposit(mf, "a")
    np.testing.assert_allclose(mf_global(mf, 0, 3), ref, rtol=1e-12)
    # the generic container with named components, filled by add_particles
    g = amr.ParticleContainer(geom, dm, ba, real_names=["q", "phi"])
    rng = np.random.default_rng(5)
    xg = PLO + rng.random((400, 3)) * N * DX
    q = rng.random(400) - 0.25
    g.add_particles(xg, {"q": q})
    for shape in SHAPES:
        g.deposit(mf, "q", shape=shape)
        np.testing.assert_allclose(mf_global(mf, 0, 3), brute_deposit(xg, q, shape, 3, True), rtol=1e-12,
                                   atol=1e-12)
    mf.fill_boundary(geom.periodicity())
    g.interpolate(mf, "phi", shape="tsc")
    field = mf_global(mf, 0, 3)
    got = np.concatenate([pti.soa().to_numpy().real["phi"] for pti in g.iterator(g, level=0)])
    xs = np.concatenate([np.stack([pti.soa().to_numpy().real[c] for c in "xyz"], axis=1)
                         for pti in g.iterator(g, level=0)])
    want = brute_interpolate(xs, lambda idx: field[tuple(np.asarray(i) % N for i in idx)], "tsc", 3)
    np.testing.assert_allclose(got, want, rtol=1e-12)
