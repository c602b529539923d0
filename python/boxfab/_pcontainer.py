"""Python-level members of the particle containers (ParticleContainer_* and
ParticleContainer): to_df (pandas) and add_particles (columns from arrays).

Only composition happens here: the per-particle work (locating, wrapping,
inserting, copying) is C; this file converts arguments and groups views.
"""
import re
from collections.abc import Mapping

import numpy as np

_STRUCT_KEY = re.compile(r"[ri]data_(0|[1-9][0-9]*)\Z", re.ASCII)  # the struct data of legacy layouts


def _import_pandas():
    try:
        import pandas
    except ImportError as e:
        raise ImportError("ParticleContainer.to_df needs pandas, which is not installed: pip install pandas "
                          "(or pip install boxfab[pandas])") from e
    return pandas


def _aos_dtype(self, itemsize):
    """The struct of a legacy layout (AMReX's Particle<nsr, nsi>): x, y, z, rdata_*, idcpu, idata_*."""
    dim, nsr, nsi = self.num_position_components, self.num_struct_real, self.num_struct_int
    names = ["x", "y", "z"][:dim] + [f"rdata_{i}" for i in range(nsr)] + ["idcpu"] + [f"idata_{i}" for i in range(nsi)]
    formats = ["<f8"] * (dim + nsr) + ["<u8"] + ["<i4"] * nsi
    offsets = [8 * i for i in range(dim + nsr + 1)] + [8 * (dim + nsr) + 8 + 4 * i for i in range(nsi)]
    return np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": itemsize})


_KIND_DTYPE = {"idcpu": "<u8", "real": "<f8", "int": "<i4"}


def _tile_frames(self, pd):
    """One DataFrame per tile of this process, from one consistent copy (_snapshot, one C call)."""
    columns, tiles = self._snapshot()
    frames = []
    for _lev, _grid, _tile, n, data in tiles:
        cols, off = {}, 0
        for kind, name, itemsize in columns:
            if kind == "aos":
                structs = np.frombuffer(data, dtype=_aos_dtype(self, itemsize), count=n, offset=off)
                for field in structs.dtype.names:
                    cols[field] = structs[field]
            else:
                key = "idcpu" if kind == "idcpu" else name if self.is_soa_particle else f"SoA_{name}"
                cols[key] = np.frombuffer(
                    data, dtype=_KIND_DTYPE[kind], count=n, offset=off)
            off += n * itemsize
        frames.append(pd.DataFrame(cols))
    return frames


def _module(self):
    """The space module (boxfab.space{N}d) of a particle container."""
    import importlib

    return importlib.import_module(type(self).__module__)


def _amrex_comm(amr):
    """The runtime instance's communicator as an mpi4py communicator (ParallelDescriptor.Communicator()
    gives one; a Fortran handle, as pyAMReX 26 gives, is converted with MPI.Comm.f2py)."""
    comm = amr.ParallelDescriptor.Communicator()
    if isinstance(comm, int):
        from mpi4py import MPI

        comm = MPI.Comm.f2py(comm)
    return comm


def to_df(self, local=True, comm=None, root_rank=None):
    """All particles of all levels as one pandas.DataFrame (a copy).

    Pure SoA: columns idcpu, then the real component names, then the int
    component names.  Legacy layouts: the AoS fields (x, y, z, rdata_*,
    idcpu, idata_*), then the SoA components prefixed with "SoA_".  The
    index numbers the rows (pyAMReX 26: the ids are the idcpu column).  The
    particles are copied in one call (another thread changing the container
    meanwhile changes all of the copy or none of it).  local=True (or a
    build without MPI): the concatenation of this process's frames, None
    when there is no particle.  local=False with MPI: gathered to root_rank
    (default: ParallelDescriptor.IOProcessorNumber()) through mpi4py (comm
    defaults to the runtime instance's communicator,
    ParallelDescriptor.Communicator()); other ranks get None, the root an
    empty DataFrame when no rank has a particle.  ImportError without
    pandas."""
    self.finest_level  # RuntimeError after finalize(), before anything else
    pd = _import_pandas()
    amr = _module(self)

    if local is False and not amr.Config.have_mpi:
        local = True
    frames = _tile_frames(self, pd)
    if local:
        return pd.concat(frames, ignore_index=True) if frames else None
    if comm is None:
        comm = _amrex_comm(amr)
    if root_rank is None:
        root_rank = amr.ParallelDescriptor.IOProcessorNumber()
    gathered = comm.gather(frames, root=root_rank)
    if comm.Get_rank() != root_rank:
        return None
    flat = [f for part in gathered for f in part]
    return pd.concat(flat, ignore_index=True) if flat else pd.DataFrame()


def _host_array(a, dtype, n, what):
    """A contiguous 1-D host array of `dtype` and length n (None: any) from
    anything NumPy, CuPy or DLPack gives (device arrays are copied to the host)."""
    if not isinstance(a, np.ndarray) and hasattr(a, "__dlpack__") and not hasattr(a, "__array_interface__"):
        # host or CUDA memory, read in C (no CuPy needed); BufferError for memory boxfab cannot read
        from boxfab import _core

        a = _core._dlpack_to_host(a, what)
    elif hasattr(a, "__cuda_array_interface__") and not hasattr(a, "__array_interface__"):
        get = getattr(a, "get", None)  # CuPy
        if get is None:
            raise TypeError(f"{what}: a device array without __dlpack__ or .get(); pass a CuPy or NumPy array")
        a = get()
    arr = np.asarray(a)
    if arr.ndim != 1:
        raise ValueError(f"{what}: expected a 1-D array, got shape {arr.shape}")
    if n is not None and arr.shape[0] != n:
        raise ValueError(f"{what}: expected {n} values, got {arr.shape[0]}")
    if dtype == np.float64:
        if arr.dtype.kind not in "fiu":
            raise TypeError(f"{what}: expected real numbers, got dtype {arr.dtype}")
    else:
        if arr.dtype.kind not in "iu":
            raise TypeError(f"{what}: expected integers, got dtype {arr.dtype}")
        info = np.iinfo(dtype)
        if arr.size and (arr.min() < info.min or arr.max() > info.max):
            raise OverflowError(f"{what}: values outside the range of {np.dtype(dtype).name}")
    return np.ascontiguousarray(arr, dtype=dtype)


def _flag(v, what):
    """A bool argument as pybind11 takes one: bool, NumPy bool, None (false) or a number; a str or a list
    (whose truth is their length: "no" would be true) raises TypeError."""
    if v is None:
        return False
    if isinstance(v, (bool, np.bool_, int, float, np.integer, np.floating)):
        return bool(v)
    raise TypeError(f"{what} must be a bool, not {type(v).__name__}")


def add_particles(self, positions, columns=None, *, ids=None, cpus=None, level=0, redistribute=True):
    """Add particles from arrays (extension; pyAMReX issue #501).

    positions: an (n, dim) array, or a sequence of dim 1-D arrays (x, y, z).
    columns: a dict {component name: 1-D array of n values} for any SoA real
    or int component (components not named are 0); for legacy layouts also
    the struct data "rdata_<i>" / "idata_<i>".  ids / cpus: 1-D arrays (ids
    in 1 .. 2^39-1; default: new ids of the particle type, this rank).
    Arrays may be NumPy, CuPy or anything with DLPack, on the host or the
    device.  With redistribute=True (default) each particle goes to the tile
    that owns it on `level` (periodic positions wrapped); a particle outside
    the domain or the level's grids raises ValueError and nothing is added.
    With redistribute=False they go to the first tile of the level (call
    redistribute() later)."""
    dim = self.num_position_components
    redistribute = _flag(redistribute, "add_particles(redistribute)")
    ndim = getattr(positions, "ndim", None)
    if isinstance(ndim, int) and ndim != 1 and not isinstance(positions, (list, tuple)):
        if ndim != 2 or positions.shape[1] != dim:
            raise ValueError(f"add_particles: positions must have shape (n, {dim}), got {tuple(positions.shape)}")
        pos_cols = [positions[:, d] for d in range(dim)]
    else:
        if isinstance(positions, (str, bytes)) or not hasattr(positions, "__iter__"):
            raise TypeError(f"add_particles: positions must be an (n, {dim}) array or a sequence of {dim} 1-D "
                            f"arrays, not {type(positions).__name__}")
        pos_cols = list(positions)
        if len(pos_cols) != dim:
            raise ValueError(f"add_particles: expected {dim} position arrays, got {len(pos_cols)}")
    # the first column, converted, gives the number of particles (whatever object it came as)
    pos = [_host_array(pos_cols[0], np.float64, None, "add_particles(positions[0])")]
    n = pos[0].shape[0]
    pos += [_host_array(c, np.float64, n, f"add_particles(positions[{d}])") for d, c in enumerate(pos_cols) if d]
    pos = tuple(pos)
    rnames = self.real_comp_names
    inames = self.int_comp_names
    skip = dim if self.is_soa_particle else 0
    reals = [None] * (len(rnames) - skip)
    ints = [None] * len(inames)
    sreals = [None] * self.num_struct_real
    sints = [None] * self.num_struct_int
    if columns is None:
        columns = {}
    if not isinstance(columns, Mapping):
        raise TypeError("add_particles: columns must be a mapping {component name: 1-D array} (a dict), not "
                        f"{type(columns).__name__}")
    for name, arr in columns.items():
        if not isinstance(name, str):
            raise TypeError(f"add_particles: column names must be str, got {type(name).__name__}")
        if name in rnames:
            i = rnames.index(name)
            if i < skip:
                raise ValueError(f"add_particles: '{name}' is a position; pass it in positions")
            reals[i - skip] = _host_array(arr, np.float64, n, f"add_particles(columns['{name}'])")
        elif name in inames:
            ints[inames.index(name)] = _host_array(arr, np.int32, n, f"add_particles(columns['{name}'])")
        elif _STRUCT_KEY.match(name) and name[0] == "r" and int(name[6:]) < len(sreals):
            sreals[int(name[6:])] = _host_array(arr, np.float64, n, f"add_particles(columns['{name}'])")
        elif _STRUCT_KEY.match(name) and name[0] == "i" and int(name[6:]) < len(sints):
            sints[int(name[6:])] = _host_array(arr, np.int32, n, f"add_particles(columns['{name}'])")
        else:
            raise KeyError(f"add_particles: the container has no component '{name}' "
                           f"(real: {rnames}, int: {inames})")
    idv = None if ids is None else _host_array(ids, np.int64, n, "add_particles(ids)")
    cpv = None if cpus is None else _host_array(cpus, np.int32, n, "add_particles(cpus)")
    self._add_columns(level, redistribute, n, pos, tuple(reals), tuple(ints), tuple(sreals),
                      tuple(sints), idv, cpv)


# ---- add_arrays / add_df (pyAMReX 26) ----------------------------------------------------------------
#
# The columns are checked and converted to host arrays of the component types here (NumPy's vectorized
# operations); the particles are inserted by one C call (_add_columns, all or nothing) and moved by the C
# redistribute.  Across MPI ranks mpi4py agrees on errors (so that no rank is left alone in a collective
# call) and, for local=False, scatters the root's columns.

_DISTRIBUTE = ("redistribute", "equally", "none")


def _is_scalar(v):
    """Python and NumPy numbers, and 0-d arrays (NumPy, CuPy, ...)."""
    import numbers

    return isinstance(v, (numbers.Number, np.generic)) or (getattr(v, "ndim", None) == 0 and hasattr(v, "item"))


def _scalar_value(v):
    return v.item() if hasattr(v, "item") else v


def _collect(data, columns):
    """The columns of a mapping or DataFrame `data` and the keyword columns, as one dict."""
    merged = {}
    if data is not None:
        if hasattr(data, "keys"):
            names = list(data.keys())
        elif hasattr(data, "columns"):
            names = list(data.columns)
        else:
            raise TypeError("add_arrays: data must be a mapping or a DataFrame of particle columns, not "
                            f"{type(data).__name__}")
        if len(set(names)) != len(names):
            raise ValueError(f"add_arrays: the particle column names must be unique: {names}")
        for name in names:
            if not isinstance(name, str):
                raise TypeError(f"add_arrays: column names must be str, not {type(name).__name__}")
        merged = {name: data[name] for name in names}
        index = getattr(data, "index", None)  # a DataFrame after set_index("idcpu")
        if "idcpu" not in merged and getattr(index, "name", None) == "idcpu":
            merged["idcpu"] = np.asarray(index)
    twice = [name for name in columns if name in merged]
    if twice:
        raise ValueError(f"add_arrays: particle columns given both in data and as keyword arguments: {twice}")
    merged.update(columns)
    return merged


def _has_particles(data, columns):
    """Whether data / columns hold particles (a non-empty array); None, scalars and empty things do not."""
    for v in _collect(data, columns).values():
        if v is None or _is_scalar(v):
            continue
        n = getattr(v, "shape", None)
        if n:
            if n[0] > 0:
                return True
            continue
        size = getattr(v, "size", None)
        if callable(size):  # a PODVector
            if size() > 0:
                return True
            continue
        try:
            if len(v) > 0:
                return True
        except TypeError:
            return True
    return False


def _to_host(v, what):
    """A 1-D host NumPy array of an array column (NumPy, PODVector, CuPy, DLPack, array-likes)."""
    if type(v).__name__.startswith("PODVector_") and hasattr(v, "to_numpy"):
        # a zero-copy view that holds the vector's storage (host memory), or a host copy (device memory)
        host = getattr(v, "__array_interface__", None) is not None
        a = v.to_numpy(copy=not host) if v.size() > 0 else np.empty(0, dtype=np.asarray(v.to_numpy(copy=True)).dtype)
    elif hasattr(v, "__dlpack__") and not hasattr(v, "__array_interface__") and not isinstance(v, np.ndarray):
        from boxfab import _core

        a = _core._dlpack_to_host(v, what)
    elif hasattr(v, "__cuda_array_interface__") and not hasattr(v, "__array_interface__"):
        get = getattr(v, "get", None)  # CuPy
        if get is None:
            raise TypeError(f"{what}: a device array without __dlpack__ or .get(); pass a CuPy or NumPy array")
        a = get()
    else:
        a = np.asarray(v)
    if a.ndim != 1:
        raise ValueError(f"{what}: expected a 1-D array, got shape {a.shape}")
    return a


def _check_scalar(name, value, kind):
    """A scalar column for a component of `kind` ("real", "int"); ValueError / TypeError when it cannot
    be stored without loss."""
    import math
    import numbers

    if name == "idcpu":
        raise ValueError("add_arrays: the 'idcpu' column cannot be a scalar (particle ids must be unique)")
    if not isinstance(value, numbers.Real):
        raise TypeError(f"add_arrays: column '{name}': cannot store {value!r} as a {kind} component")
    finite = isinstance(value, numbers.Integral) or math.isfinite(value)
    if kind == "real":
        if finite and abs(value) > float(np.finfo(np.float64).max):
            raise ValueError(f"add_arrays: column '{name}': {value!r} overflows the range of float64")
        return float(value)
    info = np.iinfo(np.int32)
    if not finite or value != int(value) or not info.min <= value <= info.max:
        raise ValueError(f"add_arrays: column '{name}': {value!r} is not an integer that fits into int32")
    return int(value)


def _check_array(name, a, kind):
    """An array column converted to the component's type (float64, int32; idcpu: uint64)."""
    if a.dtype.kind not in "biuf":
        raise TypeError(f"add_arrays: column '{name}': cannot store values of dtype {a.dtype} as "
                        f"{'uint64' if kind == 'idcpu' else 'float64' if kind == 'real' else 'int32'}")
    if kind == "idcpu":
        if a.dtype.kind not in "iu":
            raise TypeError(f"add_arrays: column 'idcpu': expected integers, not {a.dtype} (floating point "
                            "numbers cannot hold particle ids exactly)")
        if a.size and a.dtype.kind == "i" and a.dtype.itemsize < 8 and a.min() < 0:
            raise ValueError("add_arrays: column 'idcpu' contains negative values")
        u = np.ascontiguousarray(a.view(np.uint64) if a.dtype == np.int64 else a.astype(np.uint64))
        if u.size and not bool(((u >> np.uint64(63)) == 1).all()):
            raise ValueError("add_arrays: column 'idcpu' contains invalid particle ids (bit 63 clear; see "
                             "make_valid and pack_ids)")
        return u
    if kind == "real":
        return np.ascontiguousarray(a, dtype=np.float64)
    if a.size:
        if a.dtype.kind == "f":
            if not bool(np.isfinite(a).all()) or not bool((np.floor(a) == a).all()):
                raise ValueError(f"add_arrays: column '{name}': values must be finite integers to be stored as "
                                 "int32")
        info = np.iinfo(np.int32)
        lo, hi = a.min().item(), a.max().item()
        if lo < info.min or hi > info.max:
            raise ValueError(f"add_arrays: column '{name}': values in [{lo}, {hi}] do not fit into int32")
    return np.ascontiguousarray(a, dtype=np.int32)


def _normalize(pc, merged, fill_missing):
    """(n, {name: host array of the component type}) of checked columns; (0, {}) for no columns.
    Scalars and fill_missing are broadcast.  Raises before anything changes."""
    if fill_missing is not None and not _is_scalar(fill_missing):
        raise TypeError(f"add_arrays: fill_missing must be a scalar, not {fill_missing!r}")
    if not merged:
        return 0, {}
    rnames, inames = list(pc.real_soa_names), list(pc.int_soa_names)
    kinds = {"idcpu": "idcpu", **{n: "real" for n in rnames}, **{n: "int" for n in inames}}
    unknown = [name for name in merged if name not in kinds]
    if unknown:
        hint = ""
        if set(unknown) & {"data", "df"}:
            hint += " Pass a mapping or DataFrame as the first positional argument."
        if "redistribute" in unknown:
            hint += (" To add particles without redistributing them, use distribute='none' (or 'equally' with "
                     "local=False).")
        raise ValueError(f"add_arrays: unknown particle columns {unknown}; expected {rnames + inames} and "
                         f"optionally 'idcpu'.{hint}")
    missing = [name for name in rnames + inames if name not in merged]
    if missing and fill_missing is None:
        raise KeyError(f"add_arrays: missing particle columns {missing}; pass them, or set fill_missing to a "
                       "value for all missing columns")
    scalars = {name: _scalar_value(v) for name, v in merged.items() if _is_scalar(v)}
    scalars.update({name: _scalar_value(fill_missing) for name in missing})
    scalars = {name: _check_scalar(name, v, kinds[name]) for name, v in scalars.items()}
    arrays = {}
    for name, v in merged.items():
        if name in scalars:
            continue
        what = f"add_arrays: column '{name}'"
        arrays[name] = _check_array(name, _to_host(v, what), kinds[name])
    if not arrays:
        raise ValueError("add_arrays: at least one particle column must be an array, to give the number of "
                         "particles; the others can be scalars")
    lengths = {name: a.shape[0] for name, a in arrays.items()}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"add_arrays: the particle columns have unequal lengths: {lengths}")
    n = next(iter(lengths.values()))
    for name in rnames[:pc.num_position_components]:
        if name in arrays and not bool(np.isfinite(arrays[name]).all()):
            raise ValueError(f"add_arrays: column '{name}' (a position) holds values that are not finite")
    for name, v in scalars.items():
        arrays[name] = np.full(n, v, dtype=np.float64 if kinds[name] == "real" else np.int32)
    return n, arrays


def _insert(pc, n, arrays):
    """Append n checked particles to the first tile of level 0 of this rank (one C call)."""
    if n == 0:
        return
    dim = pc.num_position_components
    rnames, inames = list(pc.real_soa_names), list(pc.int_soa_names)
    pos = tuple(arrays[name] for name in rnames[:dim])
    reals = tuple(arrays[name] for name in rnames[dim:])
    ints = tuple(arrays[name] for name in inames)
    pc._add_columns(0, False, n, pos, reals, ints, (), (), None, None, arrays.get("idcpu"))


def _agree(comm, error):
    """Collective: raise on every rank when any rank had an error (that rank its own, the others a
    RuntimeError naming it)."""
    errors = comm.allgather(None if error is None else repr(error))
    if error is not None:
        raise error
    failed = [r for r, e in enumerate(errors) if e is not None]
    if failed:
        raise RuntimeError(f"add_arrays failed on MPI rank(s) {failed}: {errors[failed[0]]}")


def _check_comm(amr, comm):
    """Collective: ValueError on every rank unless comm's ranks are AMReX's."""
    from mpi4py import MPI

    bad = comm.Get_size() != amr.ParallelDescriptor.NProcs() or comm.Get_rank() != amr.ParallelDescriptor.MyProc()
    if comm.allreduce(bad, op=MPI.LOR):
        raise ValueError("add_arrays: the ranks of comm must match the AMReX MPI ranks")


def _split_counts(n, owners, nranks):
    navg, nleft = divmod(n, len(owners))
    counts = [0] * nranks
    for k, owner in enumerate(owners):
        counts[owner] = navg + (1 if k < nleft else 0)
    return counts


def _scatter(pc, data, columns, fill_missing, comm, root_rank, owners):
    """Collective: the root's checked columns split 1/N over the ranks that own a box of level 0.
    Returns this rank's (n, arrays)."""
    rank, nranks = comm.Get_rank(), comm.Get_size()
    error, host, meta = None, None, None
    if rank == root_rank:
        try:
            n, host = _normalize(pc, _collect(data, columns), fill_missing)
            names = list(host)
            meta = {"error": None, "names": names, "dtypes": [host[k].dtype.str for k in names],
                    "counts": _split_counts(n, owners, nranks)}
        except Exception as e:  # noqa: BLE001 -- raised again below, on every rank
            error = e
            meta = {"error": repr(e)}
    meta = comm.bcast(meta, root=root_rank)
    if meta["error"] is not None:
        if error is not None:
            raise error
        raise RuntimeError(f"add_arrays(local=False) failed on the root rank {root_rank}: {meta['error']}")
    counts = meta["counts"]
    displs = [sum(counts[:r]) for r in range(nranks)]
    mine = {}
    for name, dt in zip(meta["names"], meta["dtypes"]):
        recv = np.empty(counts[rank], dtype=np.dtype(dt))
        comm.Scatterv([host[name], (counts, displs)] if rank == root_rank else None, recv, root=root_rank)
        mine[name] = recv
    return counts[rank], mine


def _rollback(pc, old):
    """Remove the particles _insert appended (old: (tile, size) or None)."""
    if old is not None:
        old[0].resize(old[1])


def _first_tile(pc, amr):
    """(tile, size) of the tile _insert appends to on this rank, or None (no box: the outbox)."""
    pmap = list(pc.particle_distribution_map(0).ProcessorMap())
    me = amr.ParallelDescriptor.MyProc()
    if me not in pmap:
        return None
    t = pc.define_and_return_particle_tile(0, pmap.index(me), 0)
    return t, t.size


def add_arrays(self, data=None, /, *, local=True, comm=None, root_rank=None, distribute="redistribute",
               fill_missing=None, **columns):
    """Add pure SoA particles from columns, one per component (pyAMReX 26): the counterpart of to_df().

    data: a mapping or DataFrame {component name: array}; **columns: more columns as keywords.  Every
    real and int component (real_soa_names, int_soa_names) is required unless fill_missing (a scalar)
    gives the value of the missing ones; "idcpu" is optional (without it, new ids of the container's
    particle type and this rank; a DataFrame index named "idcpu" counts).  Columns may be NumPy, CuPy or
    DLPack arrays, PODVectors, array-likes, or scalars (broadcast); at least one must be an array.
    Values are converted to the component types (float64, int32, uint64): integers that do not fit,
    non-integer values for int components, complex or string data and invalid ids raise.

    local=True: every rank adds its own particles; local=False: the particles of root_rank (default:
    the I/O rank) are added, the other ranks pass none.  distribute: "redistribute" (default; then
    redistribute(), collective), "equally" (local=False only: split 1/N over the ranks that own a box of
    level 0, no redistribute) or "none" (they stay in the first tile of level 0 of the adding rank).
    comm: an mpi4py communicator whose ranks are AMReX's (default: ParallelDescriptor.Communicator()).
    Collective unless local=True and distribute="none"; an error on any rank raises on every rank, and
    nothing is added.  Legacy (AoS) layouts: NotImplementedError."""
    amr = _module(self)
    if not self.is_soa_particle:
        raise NotImplementedError("add_arrays / add_df support pure SoA particle containers only")
    if not isinstance(distribute, str) or distribute not in _DISTRIBUTE:
        raise ValueError(f"add_arrays: distribute must be one of {_DISTRIBUTE}, not {distribute!r}")
    local = _flag(local, "add_arrays(local)")
    self.particle_distribution_map(0)  # RuntimeError when the container is not defined
    mpi = amr.Config.have_mpi
    if not local and not mpi:
        local = True
        if distribute == "equally":
            distribute = "none"
    if local and distribute == "equally":
        raise ValueError("add_arrays: distribute='equally' splits the particles of root_rank and needs "
                         "local=False; with local=True every rank keeps its own particles with distribute='none'")
    redistribute = distribute == "redistribute"
    nprocs = amr.ParallelDescriptor.NProcs() if mpi else 1
    collective = nprocs > 1 and (redistribute or not local)
    uses_comm = collective or not local
    if uses_comm:
        if comm is None:
            comm = _amrex_comm(amr)
        else:
            _check_comm(amr, comm)
    if root_rank is None:
        root_rank = amr.ParallelDescriptor.IOProcessorNumber()

    error, n, arrays = None, 0, {}
    if local:
        try:
            n, arrays = _normalize(self, _collect(data, columns), fill_missing)
        except Exception as e:  # noqa: BLE001 -- raised below (on every rank when collective)
            error = e
    else:
        nranks = comm.Get_size()
        if isinstance(root_rank, bool) or not isinstance(root_rank, (int, np.integer)) or \
                not 0 <= root_rank < nranks:
            raise ValueError(f"add_arrays: root_rank={root_rank!r} is not a rank of comm (0..{nranks - 1})")
        root_rank = int(root_rank)
        owners = sorted(set(self.particle_distribution_map(0).ProcessorMap()))
        root_owns = root_rank in owners
        if distribute == "none" and not root_owns:
            raise ValueError(f"add_arrays: root_rank={root_rank} owns no box on level 0 and cannot keep the "
                             "particles with distribute='none'; use another root_rank, or distribute='equally' "
                             "or 'redistribute'")
        if comm.Get_rank() != root_rank:
            try:
                if _has_particles(data, columns):
                    raise ValueError(f"add_arrays(local=False) adds the particles of root_rank={root_rank} only, "
                                     f"but MPI rank {comm.Get_rank()} passed particles too; use local=True to add "
                                     "the particles of every rank")
            except Exception as e:  # noqa: BLE001
                error = e
        if distribute != "equally" and root_owns:
            if comm.Get_rank() == root_rank:
                try:
                    n, arrays = _normalize(self, _collect(data, columns), fill_missing)
                except Exception as e:  # noqa: BLE001
                    error = e
        else:
            _agree(comm, error)
            n, arrays = _scatter(self, data, columns, fill_missing, comm, root_rank, owners)
    if collective:
        _agree(comm, error)
    elif error is not None:
        raise error

    old = _first_tile(self, amr) if n else None
    error = None
    try:
        _insert(self, n, arrays)
    except Exception as e:  # noqa: BLE001
        error = e
    if collective:
        try:
            _agree(comm, error)
        except Exception:
            if error is None:
                _rollback(self, old)
            raise
    elif error is not None:
        raise error
    if redistribute:
        self.redistribute()


def add_df(self, df=None, /, *, local=True, comm=None, root_rank=None, distribute="redistribute",
           fill_missing=None, **columns):
    """Add particles from a DataFrame (pyAMReX 26): add_arrays(df, ...), the counterpart of to_df().  The
    index is ignored unless it is named "idcpu" and there is no idcpu column."""
    return add_arrays(self, df, local=local, comm=comm, root_rank=root_rank, distribute=distribute,
                      fill_missing=fill_missing, **columns)


class _Amr:
    """Attribute access to a space module's namespace (a dict while the module is being made)."""

    def __init__(self, namespace):
        self._ns = namespace

    def __getattr__(self, name):
        try:
            return self._ns[name]
        except KeyError:
            raise AttributeError(name) from None


# ---- reading particle files without knowing their layout (pyAMReX 26) --------------------------------


def list_particle_species(plotfile):
    """The particle directories of a plotfile or checkpoint (sub-directories whose Header starts with a
    particle file version, Version_...), sorted by name: the particle_dir arguments of read_particles and
    ParticleHeader."""
    import os

    species = []
    for entry in sorted(os.scandir(plotfile), key=lambda e: e.name):
        header = os.path.join(entry.path, "Header")
        if not entry.is_dir() or not os.path.isfile(header):
            continue
        try:
            with open(header, "rb") as f:
                first = f.readline(256).strip()
        except OSError:
            continue
        if first.startswith(b"Version_"):
            species.append(entry.name)
    return species


def _read_particles(amr, plotfile, particle_dir="particles", communicate=True, container=None):
    import os

    header_path = os.path.join(os.fspath(plotfile), os.fspath(particle_dir), "Header")
    if not os.path.isfile(header_path):
        raise FileNotFoundError(f"read_particles: no particle Header found at '{header_path}'; is "
                                f"'{plotfile}' an AMReX plotfile or checkpoint with particles under "
                                f"'{particle_dir}/'?")
    if container is not None and type(container).__name__.split(".")[-1] != "ParticleContainer" and \
            not type(container).__name__.startswith("ParticleContainer_"):
        raise TypeError(f"read_particles: container must be a ParticleContainer or None, not "
                        f"{type(container).__name__}")
    header = amr.ParticleHeader.read(plotfile, particle_dir)
    pc = container
    if pc is None:
        top = os.path.join(os.fspath(plotfile), "Header")
        if not os.path.isfile(top):
            raise FileNotFoundError(f"read_particles: no plotfile Header found at '{top}', so the geometry cannot "
                                    "be recovered; pass a defined container (container=...) to read into")
        with open(top, "rb") as f:
            first = f.readline(256).strip()
        if first.startswith(b"CheckPointVersion"):
            raise ValueError(f"read_particles: '{plotfile}' is an application checkpoint whose Header does not "
                             "describe the geometry; pass a defined container (container=...) to read into")
        dim = amr.Config.spacedim
        plt = amr.PlotFileData(plotfile)
        dom = plt.probDomain(0)
        geom = amr.Geometry(amr.Box(dom.small_end, dom.big_end), amr.RealBox(plt.probLo(), plt.probHi()),
                            plt.coordSys(), [0] * dim)
        # one level: restart puts the particles of finer levels of the file on it
        pc = getattr(amr, f"ParticleContainer_pureSoA_{dim}_0_polymorphic")(geom, plt.DistributionMap(0),
                                                                            plt.boxArray(0))
        pc.arena = amr.The_Arena()
    # run-time components for the file's components the container lacks, named as in the file
    nsr, nsi = pc.num_struct_real, pc.num_struct_int
    skip = pc.num_position_components if pc.is_soa_particle else 0
    have_r = nsr + pc.num_real_comps - skip
    have_i = nsi + pc.num_int_comps
    for name in list(header.real_comp_names)[have_r:]:
        if pc.has_real_comp(name):  # taken by another component: a default name
            pc.add_real_comp(communicate)
        else:
            pc.add_real_comp(name, communicate)
    for name in list(header.int_comp_names)[have_i:]:
        if pc.has_int_comp(name):
            pc.add_int_comp(communicate)
        else:
            pc.add_int_comp(name, communicate)
    pc.restart_checkpoint(plotfile, particle_dir, header.is_checkpoint)
    return pc


def attach(namespace):
    """Add the members to the particle container classes of a space-module namespace, and its
    read_particles / list_particle_species functions."""
    def read_particles(plotfile, particle_dir="particles", communicate=True, container=None):
        """Read AMReX particle data from a plotfile or checkpoint into a container (pyAMReX 26).

        The layout (component counts and names) comes from the particle Header (ParticleHeader).
        container=None: a new ParticleContainer_pureSoA_<dim>_0_polymorphic on level 0 of the plotfile's
        geometry (from its top-level Header, non-periodic; the particles of every level of the file go to
        its one level); else the given defined container.  Components the container lacks are added as
        run-time components with the file's names.  FileNotFoundError without a particle Header (or, with
        container=None, without a plotfile Header); ValueError for an application checkpoint without a
        container."""
        return _read_particles(_Amr(namespace), plotfile, particle_dir, communicate, container)

    namespace["read_particles"] = read_particles
    namespace["list_particle_species"] = list_particle_species
    for name, cls in list(namespace.items()):
        if isinstance(cls, type) and (name == "ParticleContainer" or name.startswith("ParticleContainer_")):
            base = cls.__base__  # the hidden _ParticleContainer of this module
            base.to_df = to_df
            base.add_particles = add_particles
            base.add_arrays = add_arrays
            base.add_df = add_df
            break
