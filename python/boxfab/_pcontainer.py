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
        df = pd.DataFrame(cols)
        df.index.name = "idcpu"
        frames.append(df)
    return frames


def to_df(self, local=True, comm=None, root_rank=0):
    """All particles of all levels as one pandas.DataFrame (a copy).

    Pure SoA: columns idcpu, then the real component names, then the int
    component names.  Legacy layouts: the AoS fields (x, y, z, rdata_*,
    idcpu, idata_*), then the SoA components prefixed with "SoA_".  Each
    tile's frame has index.name "idcpu".  The particles are copied in one
    call (another thread changing the container meanwhile changes all of
    the copy or none of it).  local=True (or a build without MPI): the
    concatenation of this process's frames, None when there is no
    particle.  local=False with MPI: gathered to root_rank through mpi4py
    (comm defaults to the runtime instance's communicator,
    ParallelDescriptor.Communicator(); pyAMReX: COMM_WORLD, which on an
    instance of a split communicator gathers the other groups' particles
    too); other ranks get None.  ImportError without pandas."""
    self.finest_level  # RuntimeError after finalize(), before anything else
    pd = _import_pandas()

    from boxfab import _core

    if local is False and not _core.space1d.Config.have_mpi:
        local = True
    frames = _tile_frames(self, pd)
    if local:
        return pd.concat(frames) if frames else None
    if comm is None:
        import importlib

        comm = importlib.import_module(type(self).__module__).ParallelDescriptor.Communicator()
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


def attach(namespace):
    """Add the members to the particle container classes of a space-module namespace."""
    for name, cls in list(namespace.items()):
        if isinstance(cls, type) and (name == "ParticleContainer" or name.startswith("ParticleContainer_")):
            base = cls.__base__  # the hidden _ParticleContainer of this module
            base.to_df = to_df
            base.add_particles = add_particles
            break
