"""The particle array types in the hostile sweep (hostile_tables.py uses this): valid objects of
every PODVector_*, Particle_*, ParticleInitType_*, ParticleTile_*, StructOfArrays_*,
ArrayOfStructs_* and ParticleTileData_* class of a space module, and the hand forms of their
methods (per concrete class: the valid particle of a tile depends on its layout)."""
import os
import re
import numpy as np

PREFIXES = ("PODVector_", "Particle_", "ParticleInitType_", "ParticleTile_", "StructOfArrays_",
            "ArrayOfStructs_", "ParticleTileData_")


def is_particle_class(name):
    return name.startswith(PREFIXES)


# The particle classes are a few C type families, each with one method table whatever the
# allocator and layout (ParticleTile_2_1_3_1_default / _pinned / ..., ParticleTile_pureSoA_8_0_*):
# the sweep runs representatives -- one legacy and one pure SoA layout per family, the std
# PODVector of each element type -- and tests/python/particles/test_particle_arrays.py checks that the
# allocator variants have the same members and base (test_alloc_variants_share_members).
REPRESENTATIVES = re.compile(
    r"^(PODVector_(real|int|uint64)_std|Particle_(2_1|5_2|8_0)|ParticleInitType_(2_1_3_1|pureSoA_8_0)"
    r"|ParticleTile_(2_1_3_1|pureSoA_8_0)_default|ParticleTileData_(2_1_3_1|pureSoA_8_0)"
    r"|StructOfArrays_(3_1|8_0_idcpu)_default|ArrayOfStructs_2_1_default)$")


def is_representative(name):
    if not is_particle_class(name):
        return True
    return bool(REPRESENTATIVES.match(name))


def _tile_names(amr):
    return sorted(n for n in dir(amr) if n.startswith("ParticleTile_") and not n.startswith("ParticleTileData_")
                  and is_representative(n))


def _layout(tile_cls):
    """(legacy, nsr, nsi, nar, nai) of a ParticleTile_<S>_<alloc> class."""
    m = re.match(r"ParticleTile_(pureSoA_)?(\d+)_(\d+)(?:_(\d+)_(\d+))?_\w+$", tile_cls.__name__)
    if m.group(1):
        return False, 0, 0, int(m.group(2)), int(m.group(3))
    return True, int(m.group(2)), int(m.group(3)), int(m.group(4)), int(m.group(5))


def _super_particle(amr, dim, legacy, nsr, nsi, nar, nai, k=0):
    nr, ni = nsr + nar, nsi + nai
    cls = getattr(amr, f"Particle_{nr}_{ni}")
    return cls(*[0.25 + k + d for d in range(dim)], *[1.5 + k + r for r in range(nr)], *[3 + k + i for i in range(ni)])


def _struct_particle(amr, dim, nsr, nsi):
    return getattr(amr, f"Particle_{nsr}_{nsi}")(*[0.5] * dim, *[2.5] * nsr, *[7] * nsi)


def _tile(amr, dim, name):
    cls = getattr(amr, name)
    t = cls()
    lay = _layout(cls)
    for k in range(3):
        t.push_back(_super_particle(amr, dim, *lay, k=k))
    return t


def vocab(amr, dim, make):
    """Factories (key -> callable) of valid particle objects; `make` makes other vocabulary keys."""
    f = {}
    for n in dir(amr):
        if n.startswith("PODVector_"):
            def mk(n=n):
                v = getattr(amr, n)()
                for x in (1, 2, 3):
                    v.push_back(x)
                return v
            f[n] = mk
        elif n.startswith("Particle_"):
            nr, ni = (int(x) for x in n.split("_")[1:3])
            f[n] = (lambda n=n, nr=nr, ni=ni: getattr(amr, n)(*[0.5] * dim, *[1.5] * nr, *[2] * ni))
        elif n.startswith("ParticleInitType_"):
            f[n] = (lambda n=n: getattr(amr, n)())
    for tn in _tile_names(amr):
        t0 = getattr(amr, tn)()
        soa_name = type(t0.get_struct_of_arrays()).__name__
        td_name = type(t0.get_particle_tile_data()).__name__
        f[tn] = (lambda tn=tn: _tile(amr, dim, tn))
        f.setdefault(soa_name, lambda tn=tn: _tile(amr, dim, tn).get_struct_of_arrays())
        f.setdefault(td_name, lambda tn=tn: _tile(amr, dim, tn).get_particle_tile_data())
        legacy, nsr, nsi, nar, nai = _layout(type(t0))
        f[tn + ".sp"] = (lambda lay=(legacy, nsr, nsi, nar, nai): _super_particle(amr, dim, *lay, k=5))
        if legacy:
            aos_name = type(t0.get_array_of_structs()).__name__
            f.setdefault(aos_name, lambda tn=tn: _tile(amr, dim, tn).get_array_of_structs())
            f[tn + ".p"] = (lambda nsr=nsr, nsi=nsi: _struct_particle(amr, dim, nsr, nsi))
            f.setdefault(aos_name + ".p", f[tn + ".p"])
        f.setdefault(soa_name + ".tile", f[tn])
        f.setdefault(td_name + ".sp", f[tn + ".sp"])
    return f


def hand_forms(dim, amr, F, K):
    """Forms (valid argument lists) of every particle method, per concrete class."""
    T = {}
    N = dim
    xyz = [0.5] * N
    for n in dir(amr):
        if n.startswith("PODVector_"):
            T[f"{n}()"] = [F(), F(3), F(K(n))]
            T[f"{n}.__init__"] = [F(), F(2)]
            for m in ("pop_back", "clear", "size", "capacity", "empty", "shrink_to_fit", "to_host", "to_xp",
                      "__dlpack__"):
                T[f"{n}.{m}"] = [F()]
            val = 1.5 if "_real_" in n else 1
            T[f"{n}.assign"] = [F(val)]
            T[f"{n}.push_back"] = [F(val)]
            T[f"{n}.resize"] = [F(5), F(5, val)]
            T[f"{n}.reserve"] = [F(16)]
            T[f"{n}.to_numpy"] = [F(), F(copy=True)]
            T[f"{n}.__getitem__"] = [F(0)]
            T[f"{n}.__setitem__"] = [F(0, val)]
            # pyAMReX 26's copies in (python/boxfab/_podvector.py, C: _copy_in / _new_copy)
            T[f"{n}.from_array"] = [F([val, val]), F(K(n)), F(K(n), copy=None)]
            T[f"{n}.from_numpy"] = [F([val, val])]
            T[f"{n}.from_xp"] = [F([val, val])]
            T[f"{n}._new_copy"] = [F(K(n))]
            T[f"{n}.copy_from"] = [F([val]), F([val], 0)]
            T[f"{n}.copy_from_numpy"] = [F(np.array([val]))]
            T[f"{n}.copy_from_podvector"] = [F(K(n))]
            T[f"{n}._copy_in"] = [F(0, K(n))]
            T[f"{n}.to_device"] = [F()]
        elif n.startswith("Particle_"):
            nr, ni = (int(x) for x in n.split("_")[1:3])
            T[f"{n}()"] = [F(), F(*xyz), F(*xyz, *[1.5] * nr, *[2] * ni)]
            T[f"{n}.__init__"] = [F(), F(*xyz)]
            T[f"{n}.pos"] = [F(), F(0)]
            T[f"{n}.setPos"] = [F(0, 1.5), F(xyz), F(K("rv"))]
            T[f"{n}.get_rdata"] = [F()] + ([F(0)] if nr else [])
            T[f"{n}.get_idata"] = [F()] + ([F(0)] if ni else [])
            T[f"{n}.set_rdata"] = [F([1.5] * nr)] + ([F(0, 2.5)] if nr else [])
            T[f"{n}.set_idata"] = [F([2] * ni)] + ([F(0, 3)] if ni else [])
            T[f"{n}.NextID"] = [F(), F(1000)]
            T[f"{n}.id"] = [F()]
            T[f"{n}.cpu"] = [F()]
        elif n.startswith("ParticleInitType_"):
            T[f"{n}()"] = [F()]
    for tn in _tile_names(amr):
        t0 = getattr(amr, tn)()
        legacy, nsr, nsi, nar, nai = _layout(type(t0))
        soa = type(t0.get_struct_of_arrays()).__name__
        td = type(t0.get_particle_tile_data()).__name__
        sp = K(tn + ".sp")
        T[f"{tn}()"] = [F()]
        for m in ("get_struct_of_arrays", "get_num_neighbors", "capacity", "shrink_to_fit", "get_particle_tile_data"):
            T[f"{tn}.{m}"] = [F()]
        T[f"{tn}.define"] = [F(1, 1), F(1, 0, [], [])]
        T[f"{tn}.set_num_neighbors"] = [F(1)]
        T[f"{tn}.resize"] = [F(5)]
        T[f"{tn}.swap"] = [F(K(tn))]
        T[f"{tn}.push_back"] = [F(sp)] + ([F(K(tn + ".p"))] if legacy else [])
        T[f"{tn}.push_back_real"] = [F([1.5] * nar)] + ([F(0, 1.5), F(0, 2, 1.5)] if nar else [])
        T[f"{tn}.push_back_int"] = [F([1] * nai)] + ([F(0, 1), F(0, 2, 1)] if nai else [])
        T[f"{tn}.__getitem__"] = [F(0)]
        T[f"{tn}.__setitem__"] = [F(0, sp)]
        if legacy:
            T[f"{tn}.get_array_of_structs"] = [F()]
            aos = type(t0.get_array_of_structs()).__name__
            T[f"{aos}()"] = [F()]
            for m in ("size", "numParticles", "numRealParticles", "numNeighborParticles", "numTotalParticles",
                      "getNumNeighbors", "empty", "pop_back", "back", "test_sizes", "to_host", "to_xp"):
                T[f"{aos}.{m}"] = [F()]
            T[f"{aos}.setNumNeighbors"] = [F(1)]
            T[f"{aos}.push_back"] = [F(K(aos + ".p"))]
            T[f"{aos}.__getitem__"] = [F(0)]
            T[f"{aos}.__setitem__"] = [F(0, K(aos + ".p"))]
            T[f"{aos}.to_numpy"] = [F(), F(copy=True)]
        T[f"{soa}()"] = [F()]
        T[f"{soa}.define"] = [F(1, 1), F(0, 1, None, ["q0"])]
        T[f"{soa}.get_real_data"] = [F(), F(0)] if nar else [F()]
        T[f"{soa}.get_int_data"] = [F(), F(0)] if nai else [F()]
        T[f"{soa}.get_idcpu_data"] = [F()]
        T[f"{soa}.set_num_neighbors"] = [F(1)]
        T[f"{soa}.get_num_neighbors"] = [F()]
        T[f"{soa}.resize"] = [F(5)]
        T[f"{soa}.to_numpy"] = [F(), F(copy=True)]
        T[f"{soa}._arrays"] = [F(), F(copy=True)]
        T[f"{soa}.to_xp"] = [F()]
        T[f"{soa}.soa_real_comps"] = [F(3), F(30, 3, False)]
        T[f"{soa}.soa_int_comps"] = [F(2)]
        T[f"{td}()"] = [F()]
        T[f"{td}.get_super_particle"] = [F(0)]
        T[f"{td}.set_super_particle"] = [F(K(td + ".sp"), 0)]
        T[f"{td}.__getitem__"] = [F(0)]
        T[f"{td}.__setitem__"] = [F(0, K(td + ".sp"))]
    # particle files: writes go to the child's working folder (a temporary folder); restarts read
    # the empty particle directories of hostile_particle_files (one per dim and component counts)
    pfiles = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hostile_particle_files")
    for n in dir(amr):
        c = getattr(amr, n)
        if n.startswith("ParticleContainer") and isinstance(c, type):
            nr = c.num_struct_real + c.num_array_real - (N if c.is_soa_particle else 0)
            ni = c.num_struct_int + c.num_array_int
            sub = f"d{N}_r{nr}_i{ni}"
            T[f"{n}.write_plotfile"] = [F("hostile_pio", "p"), F(dir="hostile_pio", name="q")]
            T[f"{n}.checkpoint"] = [F("hostile_pio", "c")]
            T[f"{n}.restart"] = [F(pfiles, sub), F(dir=pfiles, file=sub)]
            T[f"{n}.restart_checkpoint"] = [F(pfiles, sub, True), F(pfiles, sub, is_checkpoint=False)]
    # ParticleHeader reads one of those Headers
    sub = f"d{N}_r0_i0"
    T["ParticleHeader.read"] = [F(pfiles, sub), F(plotfile=pfiles, particle_dir=sub)]
    T["ParticleHeader()"] = [F(pfiles, sub)]
    T["module.list_particle_species"] = [F(pfiles)]
    # idcpu helpers: in place into a uint64 array of 3
    T["module.pack_ids"] = [F(K("u64"), np.arange(1, 4, dtype=np.int64)), F(K("u64"), 5)]
    T["module.pack_cpus"] = [F(K("u64"), np.arange(3, dtype=np.int32)), F(K("u64"), 7)]
    T["module.is_valid"] = [F(K("u64")), F(1 << 63)]
    T["module.make_valid"] = [F(K("u64")), F(5)]
    T["module.make_invalid"] = [F(K("u64")), F(1 << 63)]
    T["module.read_particles"] = [F(pfiles, sub, container=K(f"pc:ParticleContainer_pureSoA_{N}_0_default"))]
    return T


def state(obj):
    """What a particle object holds (None when obj is not one)."""
    t = type(obj).__name__
    if isinstance(obj, tuple):   # the named tuples of StructOfArrays.to_numpy
        return None
    if t.startswith("PODVector_"):
        return (t, [obj[i] for i in range(len(obj))])
    if t.startswith("Particle_"):
        return (t, str(obj))
    if t.startswith(("ParticleTile_", "StructOfArrays_")):
        soa = obj.get_struct_of_arrays() if t.startswith("ParticleTile_") else obj
        data = [list(soa.get_real_data(i).to_numpy(copy=True)) if len(soa.get_real_data(i)) else []
                for i in range(soa.num_real_comps)]
        data += [list(soa.get_int_data(i).to_numpy(copy=True)) if len(soa.get_int_data(i)) else []
                 for i in range(soa.num_int_comps)]
        if soa.has_idcpu and len(soa.get_idcpu_data()):
            data.append(list(soa.get_idcpu_data().to_numpy(copy=True)))
        if t.startswith("ParticleTile_") and hasattr(obj, "get_array_of_structs"):
            aos = obj.get_array_of_structs()
            data.append(aos.to_numpy(copy=True).tobytes() if aos.size() else b"")
        return (t, repr(obj), data, list(soa.real_names), list(soa.int_names))
    if t.startswith("ArrayOfStructs_"):
        return (t, obj.size(), obj.to_numpy(copy=True).tobytes() if obj.size() else b"")
    return None
