"""PODVector_*, Particle_*, ParticleInitType_*, ArrayOfStructs_*, StructOfArrays_*, ParticleTile_*
and ParticleTileData_* (API.md 3.1-3.7): every binding against NumPy references, zero-copy
proofs, views across reallocations, bad input, lifetimes (subprocesses)."""
import gc
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import boxfab.space1d as amr1
import boxfab.space2d as amr2
import boxfab.space3d as amr3

MODS = {1: amr1, 2: amr2, 3: amr3}
DIMS = (1, 2, 3)
PV_DTYPES = {"real": np.float64, "int": np.int32, "uint64": np.uint64}
PV_ALLOCS = ("std", "arena", "pinned", "device", "managed", "async")
ALLOCS = ("default", "pinned", "arena", "std", "device", "managed", "async")
PURE = {1: (1, 5, 8), 2: (2, 6, 7, 8), 3: (3, 7, 8, 11)}  # 11_0: pyAMReX 26 (ImpactX)


def specs(dim):
    return ["2_1_3_1", "16_4_0_0"] + [f"pureSoA_{n}_0" for n in PURE[dim]]


def layout(spec):
    """(legacy, nsr, nsi, nar, nai)"""
    if spec.startswith("pureSoA_"):
        _, nar, nai = spec.split("_")
        return False, 0, 0, int(nar), int(nai)
    a, b, c, d = (int(x) for x in spec.split("_"))
    return True, a, b, c, d


def ptr(arr):
    return arr.__array_interface__["data"][0]


# ---- names (API.md 3.1) ------------------------------------------------------------------------
@pytest.mark.parametrize("dim", DIMS)
def test_instantiated_names(dim):
    amr = MODS[dim]
    for t in PV_DTYPES:
        for a in PV_ALLOCS:
            assert hasattr(amr, f"PODVector_{t}_{a}")
        # pyAMReX 26: PODVector_T_default is Gpu::DeviceVector's allocator (std without a GPU)
        assert getattr(amr, f"PODVector_{t}_default") is getattr(amr, f"PODVector_{t}_std")
    want_particles = {"2_1", "5_2", "16_4"} | {f"{n}_0" for n in PURE[dim]}
    have = {n[len("Particle_"):] for n in dir(amr) if n.startswith("Particle_")}
    assert have == want_particles
    for s in specs(dim):
        legacy, nsr, nsi, nar, nai = layout(s)
        assert hasattr(amr, f"ParticleInitType_{s}") and hasattr(amr, f"ParticleTileData_{s}")
        for a in ALLOCS:
            assert hasattr(amr, f"ParticleTile_{s}_{a}")
            soa = f"StructOfArrays_{nar}_{nai}{'' if legacy else '_idcpu'}_{a}"
            assert hasattr(amr, soa), soa
            if legacy:
                assert hasattr(amr, f"ArrayOfStructs_{nsr}_{nsi}_{a}")
    assert not hasattr(amr, "ArrayOfStructs_0_0_default")


@pytest.mark.parametrize("dim", DIMS)
def test_alloc_variants_share_members(dim):
    """The hostile sweep runs one representative per layout (hostile_particles.is_representative):
    every allocator variant has exactly its members."""
    amr = MODS[dim]
    groups = {}
    for n in dir(amr):
        for prefix in ("PODVector_", "ParticleTile_", "StructOfArrays_", "ArrayOfStructs_"):
            if n.startswith(prefix) and not n.startswith("ParticleTileData_"):
                base = n.rsplit("_", 1)[0]
                groups.setdefault(base, []).append(n)
    for base, names in groups.items():
        members = {n: set(dir(getattr(amr, n))) for n in names}
        first = members[names[0]]
        assert all(m == first for m in members.values()), base
        bases = {getattr(amr, n).__base__ for n in names}
        assert len(bases) == 1


# Views of host memory use the `std` allocator (host memory in every build; `default` is The_Arena,
# device memory on GPU builds).
# ---- PODVector ----------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", PV_DTYPES)
@pytest.mark.parametrize("alloc", PV_ALLOCS)
def test_podvector_against_list(kind, alloc):
    amr = amr3
    cls = getattr(amr, f"PODVector_{kind}_{alloc}")
    dt = PV_DTYPES[kind]
    v, ref = cls(), []
    assert v.size() == len(v) == 0 and v.empty() and v.capacity() == 0
    rng = np.random.default_rng(5)
    for x in rng.integers(0, 1000, 300):
        v.push_back(int(x))
        ref.append(dt(x))
    assert v.size() == 300 and not v.empty() and v.capacity() >= 300
    np.testing.assert_array_equal(v.to_numpy(copy=True), np.array(ref, dtype=dt))   # any memory
    assert all(v[i] == ref[i] for i in range(0, 300, 7))
    assert isinstance(v[0], float if kind == "real" else int)
    v.pop_back()
    ref.pop()
    v[3] = 77
    ref[3] = dt(77)
    v.resize(310, 5)
    ref += [dt(5)] * 11
    v.resize(312)
    ref += [dt(0)] * 2
    np.testing.assert_array_equal(v.to_numpy(copy=True), np.array(ref, dtype=dt))
    v.resize(4)
    v.shrink_to_fit()
    assert v.capacity() == 4
    v.reserve(100)
    assert v.capacity() == 100 and v.size() == 4
    v.assign(9)
    np.testing.assert_array_equal(v.to_numpy(copy=True), np.full(4, 9, dtype=dt))
    v.clear()
    assert v.size() == 0
    with pytest.raises(ValueError, match="Vector is empty."):
        v.to_numpy()
    with pytest.raises(ValueError, match="Vector is empty."):
        v.to_xp()


@pytest.mark.parametrize("kind", PV_DTYPES)
def test_podvector_constructors(kind):
    cls = getattr(amr3, f"PODVector_{kind}_std")
    v = cls(5)
    assert v.size() == 5 and list(v.to_numpy()) == [0] * 5
    v[2] = 3
    c = cls(v)
    c[2] = 4
    assert v[2] == 3 and c[2] == 4                  # a copy
    assert cls(size=2).size() == 2
    with pytest.raises(ValueError):
        cls(-1)
    with pytest.raises(TypeError):
        cls("x")
    with pytest.raises(TypeError):
        cls(1, 2)
    other = amr3.PODVector_real_std() if kind != "real" else amr3.PODVector_int_std()
    with pytest.raises(TypeError):
        cls(other)
    h = v.to_host()
    assert type(h).__name__ == f"PODVector_{kind}_pinned" and list(h.to_numpy()) == list(v.to_numpy())
    h[0] = 1
    assert v[0] == 0
    assert repr(cls(2)).startswith(f"<amrex.PODVector of type '{kind}' and size '2'>")


def test_podvector_zero_copy_and_reallocation():
    v = amr3.PODVector_real_std()
    for x in range(4):
        v.push_back(x)
    a = v.to_numpy()
    b = np.asarray(v)
    m = memoryview(v)
    assert np.shares_memory(a, b) and ptr(a) == v.__array_interface__["data"][0]
    a[1] = 10.5
    assert v[1] == 10.5 and b[1] == 10.5 and m[1] == 10.5
    v[2] = -1
    assert a[2] == -1
    # a reallocation: the old views keep the old storage (valid, unchanged), new views see the new
    old_ptr = ptr(a)
    d = v.__array_interface__               # a consumer of the dict holds only v
    for x in range(1000):
        v.push_back(x)
    assert v.__array_interface__["data"][0] != old_ptr
    np.testing.assert_array_equal(a, [0, 10.5, -1, 3])
    gc.collect()
    junk = [amr3.PODVector_real_std(4) for _ in range(50)]    # reuse freed blocks, if any were freed
    for j in junk:
        j.assign(123.0)
    np.testing.assert_array_equal(a, [0, 10.5, -1, 3])
    np.testing.assert_array_equal(np.asarray(m), [0, 10.5, -1, 3])
    raw = np.ctypeslib.as_array((np.ctypeslib.ctypes.c_double * 4).from_address(d["data"][0]))
    np.testing.assert_array_equal(raw, [0, 10.5, -1, 3])     # pinned by v
    v[0] = 42
    assert a[0] == 0 and v.to_numpy()[0] == 42
    c = v.to_numpy(copy=True)
    assert not np.shares_memory(c, v.to_numpy())
    c[0] = 1
    assert v[0] == 42


@pytest.mark.parametrize("kind", PV_DTYPES)
def test_podvector_dlpack_and_interfaces(kind):
    v = getattr(amr3, f"PODVector_{kind}_std")(3)
    v[1] = 7
    x = np.from_dlpack(v)
    assert x.dtype == PV_DTYPES[kind] and x.shape == (3,) and x[1] == 7
    assert np.shares_memory(x, v.to_numpy())
    assert v.__dlpack_device__() == (1, 0)
    cap = v.__dlpack__(max_version=(1, 0))
    assert type(cap).__name__ == "PyCapsule"
    ai = v.__array_interface__
    assert ai["shape"] == (3,) and ai["strides"] is None and ai["version"] == 3
    assert np.dtype(ai["typestr"]) == PV_DTYPES[kind]
    with pytest.raises(AttributeError):
        v.__cuda_array_interface__
    with pytest.raises(ValueError, match="stream must be None"):  # host memory: pyAMReX 26 raises ValueError
        v.__dlpack__(stream=5)
    with pytest.raises(TypeError):
        v.__dlpack__(1)
    cap = v.__dlpack__(copy=True)
    assert type(cap).__name__ == "PyCapsule"


def test_podvector_bad_input():
    v = amr3.PODVector_int_std(3)
    for i in (3, -1, 2**70, -(2**70)):
        with pytest.raises(IndexError):
            v[i]
        with pytest.raises(IndexError):
            v[i] = 1
    with pytest.raises(TypeError):
        v[0.5]
    with pytest.raises(TypeError):
        v["0"]
    with pytest.raises(OverflowError):
        v[0] = 2**31
    with pytest.raises(TypeError):
        v[0] = 1.5
    with pytest.raises(TypeError):
        v.push_back(None)
    with pytest.raises(TypeError):
        del v[0]
    u = amr3.PODVector_uint64_std(1)
    with pytest.raises(OverflowError):
        u[0] = -1
    u[0] = 2**64 - 1
    assert u[0] == 2**64 - 1
    r = amr3.PODVector_real_std(1)
    with pytest.raises(TypeError):
        r[0] = "x"
    e = amr3.PODVector_real_std()
    with pytest.raises(IndexError):
        e.pop_back()
    with pytest.raises(ValueError):
        e.resize(-1)
    with pytest.raises(ValueError):
        e.reserve(-2)
    with pytest.raises((OverflowError, MemoryError)):
        e.reserve(2**62)
    assert e.size() == 0 and e.capacity() == 0
    with pytest.raises(TypeError):
        e.to_numpy(1, 2)
    assert list(iter(amr3.PODVector_int_std(2))) == [0, 0]   # iteration stops at IndexError


# ---- Particle_<NR>_<NI> -----------------------------------------------------------------------
@pytest.mark.parametrize("dim", DIMS)
def test_particle(dim):
    amr = MODS[dim]
    P = amr.Particle_2_1
    assert P.NReal == 2 and P.NInt == 1 and amr.Particle_16_4.NReal == 16
    xyz = [1.0, 2.0, 3.0][:dim]
    p = P(*xyz)
    assert p.x == 1.0 and p.pos(dim - 1) == xyz[-1] and p.get_rdata() == [0.0, 0.0] and p.get_idata() == [0]
    assert list(p.pos()) == xyz
    p = P(*xyz, 4.5, 5.5, 6)
    assert p.get_rdata() == [4.5, 5.5] and p.get_idata(0) == 6
    with pytest.raises(RuntimeError, match="Must supply all 3"):
        P(*xyz, 4.5)
    p = P(*xyz, rdata_1=2.5, idata_0=-3, other=1)
    assert p.get_rdata(1) == 2.5 and p.get_idata(0) == -3 and p.get_rdata(0) == 0
    p = P(x=-1.0, rdata_0=8.0, rdata_9=1.0)
    assert p.x == -1.0 and p.get_rdata(0) == 8.0
    if dim > 1:
        assert P(y=3.0).y == 3.0
    else:
        with pytest.raises(AttributeError):
            p.y
    for bad in (2, -1, 100):
        with pytest.raises(ValueError):
            p.get_rdata(bad)
        with pytest.raises(ValueError):
            p.set_idata(bad, 1)
    p.set_rdata([1.0, 2.0])
    p.set_rdata(1, 3.0)
    p.set_idata([9])
    assert p.get_rdata() == [1.0, 3.0] and p.get_idata() == [9]
    with pytest.raises((TypeError, ValueError)):
        p.set_rdata([1.0])
    with pytest.raises(OverflowError):
        p.set_idata(0, 2**40)
    p.setPos(0, 7.0)
    p.setPos(amr.RealVect(*xyz) if dim > 1 else amr.RealVect(1.0))
    assert p.x == 1.0
    p.setPos([4.0] * dim)
    assert p.pos(0) == 4.0
    with pytest.raises(ValueError):
        p.setPos(dim, 1.0)
    with pytest.raises(TypeError):
        p.x = "a"
    assert p.id() == 0 and p.cpu() == 0
    assert str(p).split()[:2] == ["0", "0"] and "Particle_2_1" in repr(p)
    q = amr.Particle_8_0()
    assert q.get_idata() is None and q.get_idata(0) is None     # NInt = 0: None, as pyAMReX
    # id counters: one per particle type, starting at 1
    n0 = P().NextID()
    assert P().NextID() == n0 + 1
    P().NextID(1000)
    assert P().NextID() == 1000
    with pytest.raises(OverflowError):
        P().NextID(0)
    with pytest.raises(OverflowError):
        P().NextID(2**39 + 1)


# ---- ParticleInitType ----------------------------------------------------------------------------
def test_particle_init_type():
    it = amr3.ParticleInitType_2_1_3_1()
    assert not it.is_soa_particle and amr3.ParticleInitType_pureSoA_8_0.is_soa_particle
    assert it.real_struct_data == [0.0, 0.0] and it.int_struct_data == [0] and it.real_array_data == [0.0] * 3
    it.real_array_data = [1.0, 2.0, 3.0]
    v = it.real_array_data
    v[0] = 99
    assert it.real_array_data == [1.0, 2.0, 3.0]     # a copy
    with pytest.raises((TypeError, ValueError)):
        it.real_array_data = [1.0]
    with pytest.raises(TypeError):
        it.int_array_data = ["a"]
    assert it.real_array_data == [1.0, 2.0, 3.0]
    pure = amr3.ParticleInitType_pureSoA_8_0()
    assert not hasattr(pure, "real_struct_data")
    with pytest.raises(TypeError):
        amr3.ParticleInitType_pureSoA_8_0(1)


# ---- ArrayOfStructs ---------------------------------------------------------------------------------
def aos_reference_dtype(dim, nr, ni):
    names = ["x", "y", "z"][:dim] + [f"rdata_{i}" for i in range(nr)] + ["idcpu"] + [f"idata_{i}" for i in range(ni)]
    formats = ["<f8"] * (dim + nr) + ["<u8"] + ["<i4"] * ni
    size = (8 * (dim + nr) + 8 + 4 * ni + 7) // 8 * 8       # AMReX's Particle<NR, NI>, 8-byte aligned
    return np.dtype({"names": names, "formats": formats, "itemsize": size})


@pytest.mark.parametrize("dim", DIMS)
@pytest.mark.parametrize("nr,ni", [(2, 1), (16, 4)])
def test_aos_structured_view(dim, nr, ni):
    amr = MODS[dim]
    aos = getattr(amr, f"ArrayOfStructs_{nr}_{ni}_std")()
    P = getattr(amr, f"Particle_{nr}_{ni}")
    ref = np.zeros(5, aos_reference_dtype(dim, nr, ni))
    for k in range(5):
        vals = [k + 0.5 + d for d in range(dim)] + [10.0 * k + r for r in range(nr)] + [-k - i for i in range(ni)]
        aos.push_back(P(*vals))
        for d, n in enumerate(["x", "y", "z"][:dim]):
            ref[n][k] = vals[d]
        for r in range(nr):
            ref[f"rdata_{r}"][k] = vals[dim + r]
        for i in range(ni):
            ref[f"idata_{i}"][k] = vals[dim + nr + i]
    arr = aos.to_numpy()
    ai = aos.__array_interface__
    assert ai["typestr"] == f"|V{ref.dtype.itemsize}" and ai["strides"] == (ref.dtype.itemsize,)
    assert [f[0] for f in ai["descr"]] == list(ref.dtype.names)
    assert arr.dtype.names == ref.dtype.names and arr.strides == (ref.dtype.itemsize,)
    for n in ref.dtype.names:
        np.testing.assert_array_equal(arr[n], ref[n])
    # the same bytes as the reference layout
    raw = np.ctypeslib.as_array((np.ctypeslib.ctypes.c_uint8 * (5 * ref.dtype.itemsize)).from_address(ai["data"][0]))
    ref_bytes = np.frombuffer(ref.tobytes(), np.uint8)
    ones = np.zeros(5, ref.dtype)   # a mask of the field bytes (padding bytes are not compared)
    for n in ref.dtype.names:
        ones[n] = 1
    mask = np.frombuffer(ones.tobytes(), np.uint8) != 0
    np.testing.assert_array_equal(raw[mask], ref_bytes[mask])
    # zero-copy both ways; aos[i] is a reference
    arr["x"][2] = -7.0
    assert aos[2].x == -7.0
    aos[3].set_rdata(0, 99.0)
    assert arr["rdata_0"][3] == 99.0
    aos[1] = P(*[1.0] * (dim + nr), *[1] * ni)
    assert arr["x"][1] == 1.0
    b = aos.back()
    assert b.x == arr["x"][4]
    c = aos.to_numpy(copy=True)
    assert not np.shares_memory(c, arr) and c.dtype.names == arr.dtype.names
    np.testing.assert_array_equal(c["rdata_0"], arr["rdata_0"])
    h = aos.to_host()
    assert type(h).__name__ == f"ArrayOfStructs_{nr}_{ni}_pinned" and h.size() == 5 and h[4].x == b.x


def test_aos_counts_and_errors():
    aos = amr3.ArrayOfStructs_2_1_std()
    assert aos.empty() and aos.size() == aos.numParticles() == 0
    with pytest.raises(ValueError, match="AoS is empty."):
        aos.to_numpy()
    with pytest.raises(IndexError):
        aos.back()
    with pytest.raises(IndexError):
        aos.pop_back()
    with pytest.raises(IndexError):
        aos[0]
    p = amr3.Particle_2_1(1, 2, 3)
    aos.push_back(p)
    aos.push_back(p)
    with pytest.raises(TypeError):
        aos.push_back(amr3.Particle_5_2())
    with pytest.raises(TypeError):
        aos.push_back(amr2.Particle_2_1())
    with pytest.raises(TypeError):
        aos[0] = None
    ref = aos[1]
    aos.pop_back()
    with pytest.raises(IndexError):
        ref.x                                   # the element is gone
    with pytest.raises(IndexError):
        ref.x = 1.0
    aos.setNumNeighbors(3)
    assert aos.getNumNeighbors() == 3 and aos.size() == aos.numTotalParticles() == 4 and aos.numParticles() == 1
    assert aos.numNeighborParticles() == 3
    aos.test_sizes()


def test_aos_view_survives_reallocation_and_owner():
    pt = amr3.ParticleTile_2_1_3_1_std()
    for k in range(3):
        pt.push_back(amr3.Particle_5_2(k, 0, 0, 1, 2, 3, 4, 5, 6, 7))
    aos = pt.get_array_of_structs()
    arr = aos.to_numpy()
    ref = aos[0]
    del pt, aos
    gc.collect()
    assert list(arr["x"]) == [0, 1, 2] and ref.x == 0.0


# ---- StructOfArrays -----------------------------------------------------------------------------
@pytest.mark.parametrize("dim", DIMS)
def test_soa_names_and_views(dim):
    amr = MODS[dim]
    pt = getattr(amr, "ParticleTile_pureSoA_8_0_std")()
    for k in range(4):
        pt.push_back(amr.Particle_8_0(*[0.0] * dim, *[k + 0.1 * c for c in range(8)]))
    soa = pt.get_struct_of_arrays()
    assert soa.has_idcpu and soa.num_real_comps == 8 and soa.num_int_comps == 0 and len(soa) == soa.size == 4
    t = soa.to_numpy()
    assert type(t).__name__ == "StructOfArrays_8_0_idcpu_std_np"
    assert list(t.real) == ["x", "y", "z", "a", "b", "c", "d", "e"] == soa.soa_real_comps(8)
    for c, name in enumerate(t.real):
        np.testing.assert_array_equal(t.real[name], [k + 0.1 * c for k in range(4)])
        assert np.shares_memory(t.real[name], soa.get_real_data(c).to_numpy())
    assert t.idcpu.dtype == np.uint64 and t.int == {}
    t.real["b"][0] = -5.0
    assert pt[0].get_rdata(4) == -5.0
    pt.define(1, 1, soa.real_names[:3] + ["u", "v", "w0", "w1", "w2", "w3"], ["species"])
    assert soa.num_real_comps == 9 and soa.real_names[3:5] == ["u", "v"] and soa.int_names == ["species"]
    t2 = soa.to_numpy(copy=True)
    assert list(t2.real)[-1] == "w3" and list(t2.int) == ["species"]
    np.testing.assert_array_equal(t2.real["w3"], 0.0)           # added after particles: zeros
    assert len(soa.get_real_data()) == 8                         # compile-time only
    with pytest.raises(IndexError):
        soa.get_real_data(9)
    with pytest.raises(IndexError):
        soa.get_int_data(-1)
    with pytest.raises(ValueError):
        pt.define(0, 0, ["a", "a"], [])
    assert soa.real_names[0] == "x"                               # nothing renamed
    with pytest.raises(TypeError):
        pt.define(0, 0, [1], [])
    with pytest.raises(ValueError):
        pt.define(-1, 0)
    legacy = amr.StructOfArrays_3_1_std()
    assert not legacy.has_idcpu and legacy.real_names == ["a", "b", "c"] and legacy.int_names == ["i0"]
    assert not hasattr(legacy, "get_idcpu_data")
    with pytest.raises(ValueError, match="SoA is empty."):
        legacy.to_numpy()
    assert soa.soa_real_comps(3, rotate=False) == ["a", "b", "c"] and len(soa.soa_real_comps(30)) == 30
    assert soa.soa_real_comps(27)[-1] == "r0" and soa.soa_int_comps(2) == ["i0", "i1"]


# ---- ParticleTile / ParticleTileData ---------------------------------------------------------------
@pytest.mark.parametrize("dim", DIMS)
def test_tile_super_particle_round_trip(dim):
    amr = MODS[dim]
    for s in specs(dim):
        legacy, nsr, nsi, nar, nai = layout(s)
        nr, ni = nsr + nar, nsi + nai
        P = getattr(amr, f"Particle_{nr}_{ni}")
        pt = getattr(amr, f"ParticleTile_{s}_std")()
        assert pt.NAR == nar and pt.NAI == nai
        rng = np.random.default_rng(len(s))
        data = rng.random((6, dim + nr))
        ints = rng.integers(-100, 100, (6, ni))
        for k in range(6):
            pt.push_back(P(*data[k], *[int(i) for i in ints[k]]))
        assert pt.size == pt.num_particles == 6 and not pt.empty
        soa = pt.get_struct_of_arrays()
        for k in range(6):
            q = pt[k]
            # pure SoA: the positions are the first SoA reals and come from rdata (AMReX's setSuperParticle)
            want_pos = data[k, :dim] if legacy else data[k, dim:dim + dim]
            np.testing.assert_array_equal([q.pos(d) for d in range(dim)], want_pos)
            np.testing.assert_array_equal(q.get_rdata() or [], data[k, dim:])
            assert (q.get_idata() or []) == list(ints[k])
        # where the values are: NumPy views of the storage
        if legacy:
            arr = pt.get_array_of_structs().to_numpy()
            np.testing.assert_array_equal(arr["x"], data[:, 0])
            for r in range(nsr):
                np.testing.assert_array_equal(arr[f"rdata_{r}"], data[:, dim + r])
            for c in range(nar):
                np.testing.assert_array_equal(soa.get_real_data(c).to_numpy(), data[:, dim + nsr + c])
        else:
            for c in range(nar):
                np.testing.assert_array_equal(soa.get_real_data(c).to_numpy(), data[:, dim + c])
        td = pt.get_particle_tile_data()
        assert td.m_size == 6 and td.m_num_runtime_real == 0
        td[2] = pt[5]
        td.set_super_particle(pt[4], 1)
        assert td.get_super_particle(1).get_rdata() == pt[4].get_rdata()
        np.testing.assert_array_equal(pt[2].get_rdata() or [], data[5, dim:])
        with pytest.raises(IndexError):
            pt[6]
        with pytest.raises(IndexError):
            td[-1]
        with pytest.raises(TypeError):
            pt[0] = amr.Particle_2_1() if nr != 2 else amr.Particle_8_0()
        # run-time components are kept by __setitem__ and start at 0
        pt.define(2, 1)
        assert pt.num_runtime_real_comps == 2 and pt.num_runtime_int_comps == 1
        soa.get_real_data(soa.num_real_comps - 1)[0] = 3.5
        pt[0] = pt[1]
        assert soa.get_real_data(soa.num_real_comps - 1)[0] == 3.5
        assert pt.get_particle_tile_data().m_num_runtime_real == 2


def test_tile_pyamrex_partial_pushes_and_consistency():
    pt = amr3.ParticleTile_2_1_3_1_std()
    pt.push_back(amr3.Particle_2_1(1, 2, 3, 4, 5, 6))      # array of structs only (AMReX)
    soa = pt.get_struct_of_arrays()
    assert pt.size == 1 and soa.size == 0
    with pytest.raises(ValueError, match="inconsistent"):
        pt[0]
    pt.push_back_real(1, 2, 2.5)
    pt.push_back_real([1.0, 2.0, 3.0])
    pt.push_back_int(0, 3, 7)
    assert [len(soa.get_real_data(c)) for c in range(3)] == [1, 3, 1] and len(soa.get_int_data(0)) == 3
    with pytest.raises(IndexError):
        pt.push_back_real(3, 1.0)
    with pytest.raises(TypeError):
        pt.push_back_real(0, "x")
    with pytest.raises((TypeError, ValueError)):
        pt.push_back_real([1.0])
    with pytest.raises(ValueError):
        pt.push_back_int(0, -1, 1)
    with pytest.raises(TypeError):
        pt.push_back_int(0, 1, 2, 3)
    pt.resize(4)                                            # every vector to 4
    assert pt.size == 4 and soa.size == 4 and pt[3].get_rdata() == [0.0] * 5
    assert pt.capacity() >= 4
    pt.shrink_to_fit()
    assert pt.capacity() == 4
    pt.set_num_neighbors(2)
    assert pt.num_neighbor_particles == 2 and pt.num_total_particles == 6 and pt.num_particles == 4
    other = amr3.ParticleTile_2_1_3_1_std()
    other.push_back(amr3.Particle_5_2(9, 9, 9, 1, 1, 1, 1, 1, 1, 1))
    pt.swap(other)
    assert pt.size == 1 and other.size == 6 and pt[0].x == 9
    with pytest.raises(TypeError):
        pt.swap(amr3.ParticleTile_2_1_3_1_pinned())
    pt.define(1, 0)
    with pytest.raises(ValueError):
        pt.swap(other.__class__())                           # different components
    with pytest.raises(ValueError):
        pt.resize(-1)
    with pytest.raises(TypeError):
        pt.push_back(amr3.Particle_16_4())


def test_particle_tile_data_without_tile():
    td = amr3.ParticleTileData_2_1_3_1()
    assert td.m_size == 0 and td.m_num_runtime_real == 0 and td.m_num_runtime_int == 0
    with pytest.raises(IndexError):
        td[0]
    with pytest.raises(IndexError):
        td.set_super_particle(amr3.Particle_5_2(), 0)


# ---- lifetimes (subprocesses: a crash must fail the test, not pytest) ------------------------------
def run_py(code):
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def test_lifetime_tile_deleted_while_views_live():
    out = run_py("""
        import gc, numpy as np
        import boxfab.space3d as amr
        pt = amr.ParticleTile_pureSoA_8_0_std()
        for k in range(100):
            pt.push_back(amr.Particle_8_0(0, 0, 0, *[k] * 8))
        soa = pt.get_struct_of_arrays()
        x = soa.get_real_data(0)
        views = soa.to_numpy()
        cap = pt.get_struct_of_arrays().get_real_data(1).__dlpack__()
        td = pt.get_particle_tile_data()
        del pt, soa
        gc.collect()
        junk = [np.ones(1000) for _ in range(100)]
        assert views.real["x"][99] == 99 and x[50] == 50 and td[7].get_rdata(0) == 7
        y = np.from_dlpack(type("C", (), {"__dlpack__": lambda s, **k: cap, "__dlpack_device__": lambda s: (1, 0)})())
        del views
        gc.collect()
        assert y[3] == 3
        # the vector still belongs to the (gone) tile's storage: growing it keeps y valid
        for k in range(1000):
            x.push_back(1.0)
        assert y[3] == 3
        print("ok")
    """)
    assert out.strip().splitlines()[-1] == "ok"


def test_lifetime_views_across_reallocation_and_finalize():
    out = run_py("""
        import gc, numpy as np
        import boxfab.space2d as amr
        amr.initialize(["amrex.verbose=0"])
        v = amr.PODVector_int_std()
        for k in range(10):
            v.push_back(k)
        a, m = v.to_numpy(), memoryview(v)
        aos = amr.ArrayOfStructs_2_1_std()
        aos.push_back(amr.Particle_2_1(1, 2, 3, 4, 5))
        s = aos.to_numpy()
        for k in range(10000):
            v.push_back(k)
            aos.push_back(amr.Particle_2_1(1, 2, 3, 4, 5))
        v.shrink_to_fit()
        amr.finalize()
        # tiles and vectors do not depend on the runtime: still usable, old views still valid
        assert list(a) == list(range(10)) and m[9] == 9 and s["x"][0] == 1.0
        v.push_back(1)
        assert aos.size() == 10001 and aos[10000].y == 2.0
        del v, aos
        gc.collect()
        assert a.sum() == 45 and s["rdata_1"][0] == 4.0 and s["idata_0"][0] == 5
        print("ok")
    """)
    assert out.strip().splitlines()[-1] == "ok"
