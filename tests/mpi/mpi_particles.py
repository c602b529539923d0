"""Particles across MPI ranks (issue 12; run by test_mpi.py under mpirun -n 1, 2, 4).

References: a NumPy brute force over the gathered particles (which box holds
each position, which rank owns that box; periodic wrap as a modulo; removals
outside the walls and of ids <= 0) and the one-rank result of the same input,
computed in this process by a second boxfab instance on COMM_SELF.
"""
import numpy as np
from mpi4py import MPI

import boxfab.space1d as amr1
import boxfab.space2d as amr2
import boxfab.space3d as amr3
from mpi_harness import add_to, assign, gather_concat, host, rank, run, size, world

N = 32   # cells per direction
BS = 8   # box size
G = 3000  # particles of the global input
SPACES = {1: amr1, 2: amr2, 3: amr3}


def amr_ids(idcpu):
    v = ((idcpu >> np.uint64(24)) & np.uint64(0x7FFFFFFFFF)).astype(np.int64)
    return np.where(idcpu >> np.uint64(63), v, -v)


def amr_cpus(idcpu):
    return (idcpu & np.uint64(0xFFFFFF)).astype(np.int64)


def start(amr, comm=None):
    amr.initialize(["amrex.verbose=0"], comm) if comm is not None else amr.initialize(["amrex.verbose=0"])


def make(amr, dim, per=None, tiling=False):
    dom = amr.Box(amr.IntVect(*([0] * dim)), amr.IntVect(*([N - 1] * dim)))
    rb = amr.RealBox([0.0] * dim, [1.0] * dim)
    per = per if per is not None else [1] * (dim - 1) + [0]
    gm = amr.Geometry(dom, rb, 0, per)
    ba = amr.BoxArray(dom)
    ba.max_size(BS)
    dm = amr.DistributionMapping(ba)
    pc = getattr(amr, f"ParticleContainer_pureSoA_{dim}_0_default")(gm, dm, ba)
    pc.add_real_comp("tag")
    pc.add_int_comp("itag")
    return pc, ba, dm, per


def boxes(ba, dim):
    lo = np.array([[ba[i].small_end[d] for d in range(dim)] for i in range(ba.size)])
    hi = np.array([[ba[i].big_end[d] for d in range(dim)] for i in range(ba.size)])
    return lo, hi


def owner_box(pos, ba, dim, ncell=N):
    """Brute force: the first box (BoxArray order) whose cells hold each position (-1: none)."""
    lo, hi = boxes(ba, dim)
    cell = np.floor(pos * ncell).astype(np.int64)
    inside = np.all((cell[:, None, :] >= lo[None]) & (cell[:, None, :] <= hi[None]), axis=2)
    return np.where(inside.any(axis=1), inside.argmax(axis=1), -1)


def local_particles(pc, lev=0):
    """This rank's particles of a level: dict of columns (idcpu, positions, tag, itag, grid, tile)."""
    cols = {k: [] for k in ("idcpu", "pos", "tag", "itag", "grid", "tile")}
    dim = pc.num_position_components
    for pti in pc.const_iterator(pc, level=lev):
        soa = pti.soa().to_numpy(copy=True)
        names = list(soa.real)
        cols["idcpu"].append(soa.idcpu)
        cols["pos"].append(np.stack([soa.real[n] for n in names[:dim]], axis=1))
        cols["tag"].append(soa.real["tag"] if "tag" in soa.real else np.zeros(pti.num_particles))
        cols["itag"].append(soa.int["itag"] if "itag" in soa.int else np.zeros(pti.num_particles, np.int32))
        cols["grid"].append(np.full(pti.num_particles, pti.index))
        cols["tile"].append(np.full(pti.num_particles, pti.pair_index[1]))
    out = {}
    for k, v in cols.items():
        if v:
            out[k] = np.concatenate(v)
        else:
            out[k] = np.zeros((0, dim)) if k == "pos" else np.zeros(0, np.uint64 if k == "idcpu" else np.int64)
    out["rank"] = np.full(len(out["idcpu"]), rank())
    return out


def gathered(pc, lev=0):
    loc = local_particles(pc, lev)
    return {k: gather_concat(v) for k, v in loc.items()}


def by_id(cols):
    """Columns sorted by (id, cpu)."""
    o = np.lexsort((amr_cpus(cols["idcpu"]), amr_ids(cols["idcpu"])))
    return {k: v[o] for k, v in cols.items()}


def global_input(dim, dist):
    """The global input: G particles (ids 1..G, cpus i % 5, tags) displaced by up to `dist` cells."""
    rng = np.random.default_rng(1234 + dim)
    pos = rng.uniform(0, 1, (G, dim)) + rng.uniform(-dist, dist, (G, dim)) / N
    ids = np.arange(1, G + 1)
    cpus = ids % 5
    tag = 0.5 + ids * 1e-3
    itag = (7 * ids) % 1001
    invalid = ids % 11 == 0  # made invalid (id -> -id) before redistribute
    return pos, ids, cpus, tag, itag, invalid


def add_input(pc, dim, part, nparts, dist):
    """Rank `part` of `nparts` adds input particles i with i % nparts == part to its first tile (no
    redistribute), then invalidates the ids of some of them."""
    pos, ids, cpus, tag, itag, invalid = global_input(dim, dist)
    sel = np.arange(G) % nparts == part
    pc.add_particles(pos[sel], {"tag": tag[sel], "itag": itag[sel]}, ids=ids[sel], cpus=cpus[sel],
                     redistribute=False)
    for pti in pc.iterator(pc, level=0):
        idc = pti.soa().to_xp().idcpu  # NumPy, or CuPy for device memory
        h = host(idc).copy()
        bad = np.isin(amr_ids(h), ids[invalid])
        h[bad] &= np.uint64(0x7FFFFFFFFFFFFFFF)
        assign(idc, h)


def expected(dim, per, dist):
    pos, ids, cpus, tag, itag, invalid = global_input(dim, dist)
    exp = pos.copy()
    keep = ~invalid
    for d in range(dim):
        if per[d]:
            exp[:, d] -= np.floor(exp[:, d])
        else:
            keep &= (exp[:, d] >= 0) & (exp[:, d] < 1)
    return exp[keep], ids[keep], cpus[keep], tag[keep], itag[keep]


def one_rank(dim, fn):
    """fn(amr) run on a one-rank boxfab instance (COMM_SELF) after the world instance ended."""
    amr = SPACES[dim]
    start(amr, MPI.COMM_SELF)
    try:
        return fn(amr)
    finally:
        amr.finalize()


def redistribute_case(dim, dist):
    amr = SPACES[dim]
    me, n = rank(), size()
    start(amr)
    try:
        pc, ba, dm, per = make(amr, dim)
        pmap = np.array(list(dm.ProcessorMap()))
        assert sorted(set(pmap)) == list(range(n)) or len(pmap) < n
        add_input(pc, dim, me, n, dist)
        assert pc.total_number_of_particles(only_valid=False) == G
        assert pc.total_number_of_particles(only_valid=False, only_local=True) == len(range(me, G, n))
        pc.redistribute()
        assert pc.OK()
        got = by_id(gathered(pc))
        df = pc.to_df(local=False)
        counts_global = list(pc.number_of_particles_in_grid(0))
        counts_local = list(pc.number_of_particles_in_grid(0, True, True))
        total = pc.total_number_of_particles()
        local_total = pc.total_number_of_particles(True, True)
        at0 = pc.number_of_particles_at_level(0)
        # every particle on the rank and tile that own its position
        box = owner_box(got["pos"], ba, dim)
        assert (box >= 0).all()
        assert (box == got["grid"]).all()
        assert (pmap[box] == got["rank"]).all()
        # the multiset against the brute force
        epos, eids, ecpus, etag, eitag = expected(dim, per, dist)
        assert len(got["idcpu"]) == len(eids) == total == at0
        assert (amr_ids(got["idcpu"]) == eids).all() and (amr_cpus(got["idcpu"]) == ecpus).all()
        np.testing.assert_allclose(got["pos"], epos, rtol=0, atol=1e-12)
        assert (got["tag"] == etag).all() and (got["itag"] == eitag).all()
        # counts: global by default, this rank's with only_local
        assert counts_global == list(np.bincount(box, minlength=ba.size))
        mine = np.bincount(box[got["rank"] == me], minlength=ba.size)
        assert counts_local == list(mine) and local_total == mine.sum()
        # one more move of one cell in x, everyone: still where it belongs
        for pti in pc.iterator(pc, level=0):
            add_to(pti.soa().to_xp().real["x"], 1.0 / N)
        pc.redistribute()
        assert pc.OK()
        moved = by_id(gathered(pc))
        b2 = owner_box(moved["pos"], ba, dim)
        assert (b2 == moved["grid"]).all() and (pmap[b2] == moved["rank"]).all()
        nafter = pc.total_number_of_particles()
        assert len(moved["idcpu"]) == nafter
        # the order of a tile is reproducible: stays, then arrivals of this rank, then of ranks 0, 1, ...
        pc.redistribute()
        again = gathered(pc)
        assert (again["idcpu"] == gathered(pc)["idcpu"]).all()
    finally:
        amr.finalize()

    def ref(amr):
        pc, ba, dm, per = make(amr, dim)
        add_input(pc, dim, 0, 1, dist)
        pc.redistribute()
        r, df1 = by_id(local_particles(pc)), pc.to_df()
        for pti in pc.iterator(pc, level=0):
            add_to(pti.soa().to_xp().real["x"], 1.0 / N)
        pc.redistribute()
        return r, by_id(local_particles(pc)), df1

    r1, r2, df1 = one_rank(dim, ref)
    for a, b in ((got, r1), (moved, r2)):
        assert (a["idcpu"] == b["idcpu"]).all()
        assert (a["pos"] == b["pos"]).all()  # bitwise: the same arithmetic
        assert (a["tag"] == b["tag"]).all() and (a["itag"] == b["itag"]).all()
        assert (a["grid"] == b["grid"]).all()
    # to_df(local=False): the root gets the whole frame (a fresh index), the others None
    if me == 0:
        assert df is not None and list(df.columns) == list(df1.columns) and len(df) == len(df1)
        assert list(df.index) == list(range(len(df)))
        s0 = df.reset_index(drop=True)
        s1 = df1.reset_index(drop=True)
        s0, s1 = (f.iloc[np.argsort(f["idcpu"].to_numpy(), kind="stable")] for f in (s0, s1))
        for c in df.columns:
            assert (s0[c].to_numpy() == s1[c].to_numpy()).all(), c
    else:
        assert df is None


def check_redistribute_1d():
    redistribute_case(1, 3.0)


def check_redistribute_2d():
    redistribute_case(2, 3.0)


def check_redistribute_3d():
    redistribute_case(3, 1.5)


def check_far_moves_3d():
    # many periods away in the periodic directions: wrapped as a modulo
    redistribute_case(3, 70.0)


def check_multilevel():
    amr, me, n = amr3, rank(), size()

    def build(amr):
        dom0 = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(15, 15, 15))
        dom1 = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(31, 31, 31))
        rb = amr.RealBox(0, 0, 0, 1, 1, 1)
        g0, g1 = amr.Geometry(dom0, rb, 0, [1, 1, 1]), amr.Geometry(dom1, rb, 0, [1, 1, 1])
        ba0 = amr.BoxArray(dom0)
        ba0.max_size(8)
        ba1 = amr.BoxArray(amr.Box(amr.IntVect(8, 8, 8), amr.IntVect(23, 23, 23)))
        ba1.max_size(8)
        dm0, dm1 = amr.DistributionMapping(ba0), amr.DistributionMapping(ba1)
        pc = amr.ParticleContainer_pureSoA_3_0_default([g0, g1], [dm0, dm1], [ba0, ba1], [amr.IntVect(2, 2, 2)])
        return pc, (ba0, ba1), (np.array(list(dm0.ProcessorMap())), np.array(list(dm1.ProcessorMap())))

    def fill_and_move(amr, pc, part, nparts):
        rng = np.random.default_rng(77)
        pos = rng.uniform(0, 1, (4000, 3))
        sel = np.arange(4000) % nparts == part
        pc.add_particles(pos[sel], ids=np.arange(1, 4001)[sel], cpus=np.zeros(sel.sum(), np.int32),
                         redistribute=False)
        pc.redistribute()

    start(amr)
    try:
        pc, bas, pmaps = build(amr)
        fill_and_move(amr, pc, me, n)
        assert pc.OK()
        assert pc.total_number_of_particles() == 4000
        lv = [gathered(pc, 0), gathered(pc, 1)]
        fine = lambda p: np.all((p >= 0.25) & (p < 0.75), axis=1)
        assert not fine(lv[0]["pos"]).any() and fine(lv[1]["pos"]).all()
        for lev, ncell in ((0, 16), (1, 32)):
            b = owner_box(lv[lev]["pos"], bas[lev], 3, ncell)
            assert (b == lv[lev]["grid"]).all() and (pmaps[lev][b] == lv[lev]["rank"]).all()
        assert pc.number_of_particles_at_level(0) + pc.number_of_particles_at_level(1) == 4000
        assert pc.number_of_particles_at_level(1) == len(lv[1]["idcpu"])
        # fine particles moved out go to level 0 on their owners
        for pti in pc.iterator(pc, level=1):
            add_to(pti.soa().to_xp().real["x"], 0.5)
        pc.redistribute()
        assert pc.OK() and pc.total_number_of_particles() == 4000
        after = [by_id(gathered(pc, 0)), by_id(gathered(pc, 1))]
        for lev, ncell in ((0, 16), (1, 32)):
            b = owner_box(after[lev]["pos"], bas[lev], 3, ncell)
            assert (b == after[lev]["grid"]).all() and (pmaps[lev][b] == after[lev]["rank"]).all()
        # redistribute of level 1 only: level 0 untouched
        pc.redistribute(1, 1)
        assert pc.OK()
    finally:
        amr.finalize()

    def ref(amr):
        pc, _, _ = build(amr)
        fill_and_move(amr, pc, 0, 1)
        for pti in pc.iterator(pc, level=1):
            add_to(pti.soa().to_xp().real["x"], 0.5)
        pc.redistribute()
        return [by_id(local_particles(pc, 0)), by_id(local_particles(pc, 1))]

    r = one_rank(3, ref)
    for lev in (0, 1):
        assert (after[lev]["idcpu"] == r[lev]["idcpu"]).all() and (after[lev]["pos"] == r[lev]["pos"]).all()


def init_case(dim, what):
    amr, me, n = SPACES[dim], rank(), size()

    def do(amr):
        pc, ba, dm, per = make(amr, dim, per=[1] * dim)
        init = getattr(amr, f"ParticleInitType_pureSoA_{dim}_0")()
        if what == "random":
            pc.init_random(5000, 9, init, False, amr.RealBox([0.0] * dim, [1.0] * dim))
        elif what == "random_serialize":
            pc.init_random(5000, 9, init, True, amr.RealBox([0.0] * dim, [1.0] * dim))
        elif what == "per_box":
            pc.init_random_per_box(40, 5, init)
        else:
            pc.init_one_per_cell(0.25, 0.5, 0.75, init)
        return pc, ba, dm

    start(amr)
    try:
        pc, ba, dm = do(amr)
        assert pc.OK()
        pmap = np.array(list(dm.ProcessorMap()))
        loc = local_particles(pc)
        got = {k: gather_concat(v) for k, v in loc.items()}
        total = pc.total_number_of_particles()
        b = owner_box(got["pos"], ba, dim)
        assert (b == got["grid"]).all() and (pmap[b] == got["rank"]).all()
        ids, cpus = amr_ids(got["idcpu"]), amr_cpus(got["idcpu"])
        # (id, cpu) unique across ranks
        assert len(set(zip(ids.tolist(), cpus.tolist()))) == len(ids) == total
        mine = amr_cpus(loc["idcpu"])
        if what == "random":
            # AMReX: rank r generated particles [s_r, s_r + M_r): cpu r, M_r consecutive ids
            M = 5000 // n
            for r in range(n):
                idr = np.sort(ids[cpus == r])
                assert len(idr) == M + (5000 % n if r == 0 else 0)
                assert (np.diff(idr) == 1).all()
        elif what in ("random_serialize", "per_box", "one_per_cell"):
            # each rank numbers what it keeps from its own counter: cpu = the rank holding it
            assert (mine == me).all()
            idm = np.sort(amr_ids(loc["idcpu"]))
            assert (np.diff(idm) == 1).all()
    finally:
        amr.finalize()

    def ref(amr):
        pc, ba, dm = do(amr)
        return local_particles(pc)

    r = one_rank(dim, ref)
    # the positions do not depend on the number of ranks
    key = lambda p: np.lexsort(p.T[::-1])
    assert len(r["pos"]) == len(got["pos"])
    assert (got["pos"][key(got["pos"])] == r["pos"][key(r["pos"])]).all()
    if what in ("random", "random_serialize") and n == 1:
        # the same ids, up to where the counter started (the reference runs later in this process; the
        # check read `... or True` and could not fail)
        gi, ri = amr_ids(got["idcpu"][key(got["pos"])]), amr_ids(r["idcpu"][key(r["pos"])])
        assert (gi - gi.min() == ri - ri.min()).all()


def check_init_random():
    for dim in (1, 2, 3):
        init_case(dim, "random")


def check_init_random_serialize():
    for dim in (1, 3):
        init_case(dim, "random_serialize")


def check_init_random_per_box():
    for dim in (2, 3):
        init_case(dim, "per_box")


def check_init_one_per_cell():
    for dim in (1, 3):
        init_case(dim, "one_per_cell")


def check_add_particles_redistribute():
    """add_particles(redistribute=True) on each rank (collective): particles of other ranks' boxes go
    there; a rank may add none."""
    amr, me, n = amr2, rank(), size()
    start(amr)
    try:
        pc, ba, dm, per = make(amr, 2, per=[1, 1])
        rng = np.random.default_rng(3)
        pos = rng.uniform(-0.5, 1.5, (1000, 2))
        sel = (np.arange(1000) % n == me) & (me != n - 1 or n == 1)  # the last rank adds nothing
        pc.add_particles(pos[sel], {"tag": np.arange(1000.0)[sel]}, ids=np.arange(1, 1001)[sel],
                         cpus=np.full(sel.sum(), 3, np.int32))
        exp = np.sort(np.arange(1, 1001)[(np.arange(1000) % n != n - 1) | (n == 1)])
        assert pc.OK()
        got = by_id(gathered(pc))
        assert (amr_ids(got["idcpu"]) == exp).all() and (amr_cpus(got["idcpu"]) == 3).all()
        assert (got["tag"] == exp - 1).all()
        np.testing.assert_allclose(got["pos"], pos[exp - 1] - np.floor(pos[exp - 1]), rtol=0, atol=1e-12)
        pmap = np.array(list(dm.ProcessorMap()))
        b = owner_box(got["pos"], ba, 2)
        assert (b == got["grid"]).all() and (pmap[b] == got["rank"]).all()
        # an error on one rank (a non-finite position) is an error on every rank, nobody hangs
        bad = np.full((1, 2), 0.5)
        if me == 0:
            bad[0, 0] = np.nan
        try:
            pc.add_particles(bad)
        except ValueError as e:  # the rank with the bad position
            assert me == 0 and "finite" in str(e)
        except RuntimeError as e:  # the others
            assert me != 0 and "another process" in str(e)
        else:
            raise AssertionError("expected an error on every rank")
        pc.redistribute()
        assert pc.OK()
    finally:
        amr.finalize()


def check_tiling():
    """Tiled containers (particles.do_tiling): each particle sits in the MFIter tile of its cell on the
    rank that owns its box."""
    amr, me, n = amr3, rank(), size()
    start(amr)
    try:
        pp = amr.ParmParse("particles")
        pp.add("do_tiling", True)
        pp.addarr("tile_size", [8, 8, 8])
        try:
            dom = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(N - 1, N - 1, N - 1))
            gm = amr.Geometry(dom, amr.RealBox([0.0] * 3, [1.0] * 3), 0, [1, 1, 1])
            ba = amr.BoxArray(dom)
            ba.max_size(16)
            dm = amr.DistributionMapping(ba)
            pc = amr.ParticleContainer_pureSoA_3_0_default(gm, dm, ba)
        finally:
            pp.remove("do_tiling")
            pp.remove("tile_size")
        rng = np.random.default_rng(8)
        pos = rng.uniform(0, 1, (3000, 3))
        sel = np.arange(3000) % n == me
        pc.add_particles(pos[sel], redistribute=False)
        pc.redistribute()
        assert pc.OK() and pc.total_number_of_particles() == 3000
        pmap = np.array(list(dm.ProcessorMap()))
        ntiles = 0
        for pti in pc.const_iterator(pc, level=0):
            assert pmap[pti.index] == me
            soa = pti.soa().to_numpy(copy=True)
            x = np.stack([soa.real[c] for c in ("x", "y", "z")], axis=1)
            cell = np.floor(x * N).astype(int)
            tb = pti.tilebox()
            lo = np.array([tb.small_end[d] for d in range(3)])
            hi = np.array([tb.big_end[d] for d in range(3)])
            assert np.all((cell >= lo) & (cell <= hi))
            ntiles += pti.pair_index[1] > 0
        assert world().allreduce(ntiles) > 0  # tiles beyond the first exist
    finally:
        amr.finalize()


def check_errors_agree():
    """A container whose vectors were resized on one rank: redistribute raises on every rank."""
    amr, me, n = amr2, rank(), size()
    start(amr)
    try:
        pc, ba, dm, per = make(amr, 2, per=[1, 1])
        pc.init_random_per_box(5, 2, amr.ParticleInitType_pureSoA_2_0())
        broken = False
        if me == 0:
            for pti in pc.iterator(pc, level=0):
                pti.soa().get_real_data(0).push_back(0.5)
                broken = True
                break
        try:
            pc.redistribute()
        except (ValueError, RuntimeError):
            pass
        else:
            raise AssertionError("expected an error on every rank")
        if broken:
            for pti in pc.iterator(pc, level=0):
                pti.soa().get_real_data(0).pop_back()
                break
        pc.redistribute()
        assert pc.OK()
        assert pc.total_number_of_particles() == 5 * ba.size
    finally:
        amr.finalize()


def check_nonfinite_agree():
    """A position made NaN through a view on the last rank (issue 21: redistribute dropped it): redistribute
    raises ValueError on every rank, the rank holding it names the particle, nothing moves on any rank (no
    rank waits in a collective); fixed, redistribute works again."""
    amr, me, n = amr3, rank(), size()
    start(amr)
    try:
        pc, ba, dm, per = make(amr, 3, per=[1, 1, 1])
        pc.init_random_per_box(5, 2, amr.ParticleInitType_pureSoA_3_0())
        # every particle moves half the domain in x: redistribute would send most of them elsewhere
        for pti in pc.iterator(pc, level=0):
            pti.soa().to_numpy().real["x"][:] += 0.5
        victim = n - 1
        if me == victim:
            pti = next(iter(pc.iterator(pc, level=0)))
            pti.soa().to_numpy().real["y"][1] = np.nan
        before = by_id(gathered(pc))
        for _ in range(2):  # twice: the first refusal left every rank able to go on
            try:
                pc.redistribute()
            except ValueError as e:
                if me == victim:
                    assert "particle 1 of level 0" in str(e) and "not finite" in str(e), str(e)
                else:
                    assert f"process {victim}" in str(e) and "not finite" in str(e), str(e)
            else:
                raise AssertionError(f"no ValueError on rank {me}")
        after = by_id(gathered(pc))
        assert set(after) == set(before)
        for k in before:
            if k == "pos":
                assert np.array_equal(np.isnan(after[k]), np.isnan(before[k]))
                assert (np.nan_to_num(after[k]) == np.nan_to_num(before[k])).all()
            else:
                assert (after[k] == before[k]).all(), k
        if me == victim:
            pti = next(iter(pc.iterator(pc, level=0)))
            pti.soa().to_numpy().real["y"][1] = 0.25
        pc.redistribute()
        assert pc.OK() and pc.total_number_of_particles() == 5 * ba.size
    finally:
        amr.finalize()


def check_define_keeps_particles():
    """Define onto other boxes and another DistributionMapping keeps every particle where it was (issue 21:
    Define deleted them); the next redistribute sends each to the rank of its new box."""
    amr, me, n = amr3, rank(), size()
    start(amr)
    try:
        pc, ba, dm, per = make(amr, 3, per=[1, 1, 1])
        pc.init_random_per_box(7, 5, amr.ParticleInitType_pureSoA_3_0())
        total = pc.total_number_of_particles()
        local = pc.total_number_of_particles(True, True)
        before = by_id(gathered(pc))
        dom = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(N - 1, N - 1, N - 1))
        ba2 = amr.BoxArray(dom)
        ba2.max_size(16)
        # the reverse of the usual map: most grids change ranks
        dm2 = amr.DistributionMapping([(n - 1 - i) % n for i in range(ba2.size)])
        gm = pc.Geom(0)
        pc.Define(gm, dm2, ba2)
        assert pc.total_number_of_particles() == total
        assert pc.total_number_of_particles(True, True) == local  # nothing left this rank yet
        pc.redistribute()
        assert pc.OK() and pc.total_number_of_particles() == total
        after = by_id(gathered(pc))
        for k in ("idcpu", "pos", "tag", "itag"):
            assert (after[k] == before[k]).all(), k
        pmap = np.array(list(dm2.ProcessorMap()))
        b = owner_box(after["pos"], ba2, 3)
        assert (b == after["grid"]).all() and (pmap[b] == after["rank"]).all()
    finally:
        amr.finalize()


def check_deposit():
    """CIC deposit on N ranks equals the one-rank deposit (ghost contributions summed across ranks by
    MultiFab.sum_boundary)."""
    amr, me, n = amr3, rank(), size()
    dim = 3
    start(amr)
    try:
        assert _sum_boundary_ok(amr), "sum_boundary does not add the ghost cells of other ranks"
        pc, ba, dm, per = make(amr, dim, per=[1, 1, 1])
        rng = np.random.default_rng(21)
        pos = rng.uniform(0, 1, (2000, 3))
        sel = np.arange(2000) % n == me
        pc.add_particles(pos[sel], {"tag": 1.0 + np.arange(2000.0)[sel] / 2000})
        mf = amr.MultiFab(ba, dm, 1, 1)
        pc.deposit(mf, comp="tag", shape="cic")
        got = _gather_mf(mf, dim)
        # interpolate back: every particle gets the field at its position
        pc.interpolate(mf, "tag", shape="cic")
        got_tags = by_id(gathered(pc))
    finally:
        amr.finalize()

    def ref(amr):
        pc, ba, dm, per = make(amr, dim, per=[1, 1, 1])
        pc.add_particles(pos, {"tag": 1.0 + np.arange(2000.0) / 2000}, ids=None)
        mf = amr.MultiFab(ba, dm, 1, 1)
        pc.deposit(mf, comp="tag", shape="cic")
        g = _gather_mf(mf, dim, local=True)
        pc.interpolate(mf, "tag", shape="cic")
        return g, local_particles(pc)

    r, rp = one_rank(dim, ref)
    np.testing.assert_allclose(got, r, rtol=1e-13, atol=1e-13)
    rp_sorted = np.sort(rp["tag"])
    np.testing.assert_allclose(np.sort(got_tags["tag"]), rp_sorted, rtol=1e-13)


def _gather_mf(mf, dim, local=False):
    parts = []
    for mfi in mf:
        bx = mfi.validbox()
        lo = [bx.small_end[d] for d in range(dim)]
        hi = [bx.big_end[d] for d in range(dim)]
        a = np.array(host(mf.array(mfi).to_xp()))  # (x, y, z, comp) with ghosts
        g = mf.n_grow_vect[0] if hasattr(mf, "n_grow_vect") else 1
        parts.append((lo, hi, a[tuple(slice(g, -g) for _ in range(dim))][..., 0]))
    allp = [parts] if local else world().allgather(parts)
    out = np.full([N] * dim, np.nan)
    for p in allp:
        for lo, hi, a in p:
            out[tuple(slice(lo[d], hi[d] + 1) for d in range(dim))] = a
    assert not np.isnan(out).any()
    return out


def _sum_boundary_ok(amr):
    """True when MultiFab.sum_boundary adds ghost cells across ranks (probe: every cell 1, one ghost,
    periodic: after sum_boundary the sum of the valid cells is known)."""
    dom = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(15, 15, 15))
    ba = amr.BoxArray(dom)
    ba.max_size(8)
    dm = amr.DistributionMapping(ba)
    gm = amr.Geometry(dom, amr.RealBox([0.0] * 3, [1.0] * 3), 0, [1, 1, 1])
    mf = amr.MultiFab(ba, dm, 1, 1)
    mf.set_val(1.0)
    mf.sum_boundary(gm.periodicity())
    # periodic: every ghost cell of every box is the image of a valid cell and adds its 1 there, so the
    # valid cells then hold, together, one per cell of each box grown by one (8 boxes of 10^3)
    return abs(mf.sum(0) - 8 * 10.0 ** 3) < 1e-9


if __name__ == "__main__":
    run([check_redistribute_1d, check_redistribute_2d, check_redistribute_3d, check_far_moves_3d, check_multilevel,
         check_init_random, check_init_random_serialize, check_init_random_per_box, check_init_one_per_cell,
         check_add_particles_redistribute, check_tiling, check_errors_agree, check_nonfinite_agree,
         check_define_keeps_particles, check_deposit])
