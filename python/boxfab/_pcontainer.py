"""Python-level members of the particle containers (ParticleContainer_* and
ParticleContainer): to_df (pandas) and add_particles (columns from arrays).

Only composition happens here: the per-particle work (locating, wrapping,
inserting, copying) is C; this file converts arguments and groups views.
"""
import numpy as np


def to_df(self, local=True, comm=None, root_rank=0):
    """All particles of all levels as one pandas.DataFrame (a copy).

    Pure SoA: columns idcpu, then the real component names, then the int
    component names.  Legacy layouts: the AoS fields (x, y, z, rdata_*,
    idcpu, idata_*), then the SoA components prefixed with "SoA_".  Each
    tile's frame has index.name "idcpu".  local=True (or a build without
    MPI): the concatenation of this process's frames, None when there is no
    particle.  local=False with MPI: gathered to root_rank through mpi4py
    (comm defaults to the runtime instance's communicator,
    ParallelDescriptor.Communicator(); pyAMReX: COMM_WORLD, which on an
    instance of a split communicator gathers the other groups' particles
    too); other ranks get None."""
    nlev = self.finest_level + 1  # RuntimeError after finalize(), before anything else
    import pandas as pd

    from boxfab import _core

    if local is False and not _core.space1d.Config.have_mpi:
        local = True
    frames = []
    for lvl in range(nlev):
        for pti in self.const_iterator(self, level=lvl):
            if pti.size == 0:
                continue
            soa = pti.soa().to_numpy(copy=True)
            if self.is_soa_particle:
                cols = {"idcpu": soa.idcpu}
                cols.update(soa.real)
                cols.update(soa.int)
                df = pd.DataFrame(cols)
            else:
                df = pd.DataFrame(pti.aos().to_numpy(copy=True))
                for name, arr in soa.real.items():
                    df[f"SoA_{name}"] = arr
                for name, arr in soa.int.items():
                    df[f"SoA_{name}"] = arr
            df.index.name = "idcpu"
            frames.append(df)
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
    """A contiguous 1-D host array of `dtype` and length n from anything NumPy,
    CuPy or DLPack gives (device arrays are copied to the host)."""
    if hasattr(a, "__cuda_array_interface__") and not hasattr(a, "__array_interface__"):
        get = getattr(a, "get", None)  # CuPy
        if get is None:
            raise TypeError(f"{what}: a device array without .get(); pass a CuPy or NumPy array")
        a = get()
    elif not isinstance(a, np.ndarray) and hasattr(a, "__dlpack__") and not hasattr(a, "__array_interface__"):
        dev = a.__dlpack_device__()[0] if hasattr(a, "__dlpack_device__") else 1
        if dev in (1, 3):  # kDLCPU, kDLCUDAHost
            a = np.from_dlpack(a)
        else:
            import cupy  # a CUDA DLPack tensor

            a = cupy.from_dlpack(a).get()
    arr = np.asarray(a)
    if arr.ndim != 1:
        raise ValueError(f"{what}: expected a 1-D array, got shape {arr.shape}")
    if arr.shape[0] != n:
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
    if hasattr(positions, "ndim") and getattr(positions, "ndim", 0) == 2:
        p = positions
        if p.shape[1] != dim:
            raise ValueError(f"add_particles: positions must have shape (n, {dim}), got {tuple(p.shape)}")
        pos_cols = [p[:, d] for d in range(dim)]
    else:
        pos_cols = list(positions)
        if len(pos_cols) != dim:
            raise ValueError(f"add_particles: expected {dim} position arrays, got {len(pos_cols)}")
    first = pos_cols[0]
    n = int(first.shape[0]) if hasattr(first, "shape") else len(first)
    pos = tuple(_host_array(c, np.float64, n, f"add_particles(positions[{d}])") for d, c in enumerate(pos_cols))
    rnames = self.real_comp_names
    inames = self.int_comp_names
    skip = dim if self.is_soa_particle else 0
    reals = [None] * (len(rnames) - skip)
    ints = [None] * len(inames)
    sreals = [None] * self.num_struct_real
    sints = [None] * self.num_struct_int
    for name, arr in (columns or {}).items():
        if not isinstance(name, str):
            raise TypeError(f"add_particles: column names must be str, got {type(name).__name__}")
        if name in rnames:
            i = rnames.index(name)
            if i < skip:
                raise ValueError(f"add_particles: '{name}' is a position; pass it in positions")
            reals[i - skip] = _host_array(arr, np.float64, n, f"add_particles(columns['{name}'])")
        elif name in inames:
            ints[inames.index(name)] = _host_array(arr, np.int32, n, f"add_particles(columns['{name}'])")
        elif name.startswith("rdata_") and name[6:].isdigit() and int(name[6:]) < len(sreals):
            sreals[int(name[6:])] = _host_array(arr, np.float64, n, f"add_particles(columns['{name}'])")
        elif name.startswith("idata_") and name[6:].isdigit() and int(name[6:]) < len(sints):
            sints[int(name[6:])] = _host_array(arr, np.int32, n, f"add_particles(columns['{name}'])")
        else:
            raise KeyError(f"add_particles: the container has no component '{name}' "
                           f"(real: {rnames}, int: {inames})")
    idv = None if ids is None else _host_array(ids, np.int64, n, "add_particles(ids)")
    cpv = None if cpus is None else _host_array(cpus, np.int32, n, "add_particles(cpus)")
    self._add_columns(int(level), bool(redistribute), n, pos, tuple(reals), tuple(ints), tuple(sreals),
                      tuple(sints), idv, cpv)


def attach(namespace):
    """Add the members to the particle container classes of a space-module namespace."""
    for name, cls in list(namespace.items()):
        if isinstance(cls, type) and (name == "ParticleContainer" or name.startswith("ParticleContainer_")):
            base = cls.__base__  # the hidden _ParticleContainer of this module
            base.to_df = to_df
            base.add_particles = add_particles
            break
