"""Copies into PODVectors from any array, as pyAMReX 26 spells them:
``PODVector_T_A.from_array(obj, copy=True)``, ``from_numpy``, ``from_xp``,
``from_cupy``, ``v.copy_from(src, offset=0)``, ``copy_from_numpy``,
``copy_from_podvector``, ``to_device()``, and the allocator aliases of
AMReX's GpuContainers.H (``DeviceVector_T``, ``HostVector_T``, ...).

Only composition happens here: the copy itself is C (``_copy_in`` /
``_new_copy``, one pass between any two memories: host, pinned, managed,
device).  This file only brings a source to what C takes: a PODVector of the
same element type, or a contiguous 1-D array of exactly the element type
(NumPy on the host; on the GPU the producer's own array when it already is
one, else CuPy's contiguous cast when CuPy is there, else a host copy).
"""
import numpy as np

_DTYPES = {"real": np.dtype(np.float64), "int": np.dtype(np.int32), "uint64": np.dtype(np.uint64)}
# DLPack device types whose memory the host reads (CPU, CUDA host, ROCm host)
_HOST_DL = (1, 3, 11)
# CUDA device and managed memory
_CUDA_DL = (2, 13)


def _copy_flag(copy):
    if copy is None:
        return None
    if isinstance(copy, (bool, np.bool_)):
        return bool(copy)
    raise ValueError(f"from_array: copy must be True, False or None, not {copy!r}")


def _one_d(shape, what):
    if len(shape) != 1:
        raise ValueError(f"{what}: the source must be 1-D, not of shape {tuple(shape)}")


def _cast(arr, dtype, what, xp=np):
    """arr as dtype, refusing what a cast would change: non-numbers (TypeError), fractions or
    non-finite values into integers (ValueError), integers out of range (OverflowError)."""
    if arr.dtype == dtype:
        return arr
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{what}: {arr.dtype} values cannot be {dtype} elements")
    out = arr.astype(dtype)
    if dtype.kind in "iu" and arr.size:
        if arr.dtype.kind == "f":
            if not bool(xp.isfinite(arr).all()) or not bool((xp.floor(arr) == arr).all()):
                raise ValueError(f"{what}: values that are not integers cannot be {dtype} elements")
            lo, hi = np.iinfo(dtype).min, np.iinfo(dtype).max
            if not bool(((arr >= lo) & (arr <= hi)).all()):
                raise OverflowError(f"{what}: values out of the range of {dtype}")
        elif not bool((out == arr).all()):
            raise OverflowError(f"{what}: values out of the range of {dtype}")
    return out


def _where(src):
    """'host', 'device' (CUDA device or managed memory), or 'other' (another DLPack device)."""
    if isinstance(src, (list, tuple, range, np.ndarray, np.generic, int, float)):
        return "host"
    try:
        if src.__array_interface__ is not None:
            return "host"
    except AttributeError:
        pass
    try:
        memoryview(src).release()
        return "host"
    except TypeError:
        pass
    dev = getattr(src, "__dlpack_device__", None)
    if dev is not None:
        t = int(dev()[0])
        return "host" if t in _HOST_DL else "device" if t in _CUDA_DL else "other"
    if hasattr(src, "__cuda_array_interface__"):
        return "device"
    return "host"


def _host(src, dtype, what, where="host"):
    """A contiguous 1-D NumPy array of dtype with src's values (a copy where needed)."""
    if where == "other":
        # the producer copies to the host (NumPy >= 2.1 asks with dl_device)
        src = np.from_dlpack(src, device="cpu")
    elif (not isinstance(src, (list, tuple, range, np.ndarray, np.generic)) and hasattr(src, "__dlpack__")
          and not hasattr(src, "__array_interface__")):
        try:
            memoryview(src).release()
        except TypeError:
            src = np.from_dlpack(src)
    arr = np.asarray(src)
    _one_d(arr.shape, what)
    return np.ascontiguousarray(_cast(arr, dtype, what))


def _cupy():
    try:
        import cupy
    except ImportError:
        return None
    return cupy


def _device(src, dtype, what):
    """src itself when it already is a contiguous 1-D CUDA array of dtype, else a converted copy."""
    cai = getattr(src, "__cuda_array_interface__", None)
    if cai is not None:
        _one_d(cai["shape"], what)
        strides = cai.get("strides")
        if np.dtype(cai["typestr"]) == dtype and (strides is None or tuple(strides) in ((dtype.itemsize,), (0,))
                                                  or cai["shape"][0] <= 1):
            return src
    elif getattr(src, "ndim", 1) != 1:
        _one_d(src.shape, what)
    cp = _cupy()
    if cp is not None:
        arr = cp.asarray(src)
        _one_d(arr.shape, what)
        return cp.ascontiguousarray(_cast(arr, dtype, what, cp))
    # no CuPy: the producer copies to the host
    return _host(np.from_dlpack(src, device="cpu"), dtype, what)


def _normalize(cls, src, what):
    dtype = cls._dtype
    if isinstance(src, tuple(_BASES)):
        if src._dtype == dtype:
            return src
        if src.size() == 0:
            return np.empty(0, dtype)
        return np.ascontiguousarray(_cast(src.to_host().to_numpy(copy=True), dtype, what))
    where = _where(src)
    if where == "device":
        return _device(src, dtype, what)
    return _host(src, dtype, what, where)


_BASES = []  # the hidden base class of the PODVector_* types of each space module (set by attach)


def from_array(cls, obj, copy=True):
    """A new vector with a copy of ``obj``: a PODVector of any allocator and element type, a NumPy
    array or array-like, or any DLPack / CUDA array interface producer (CuPy, PyTorch, ...).

    ``copy=None``: return ``obj`` itself when it already is a ``cls``; ``copy=False``: never copy
    (ValueError when a copy is needed).  Values are cast to the element type where the cast keeps
    them: a fraction or non-finite value into integers raises ValueError, an integer out of range
    OverflowError, a non-number TypeError (pyAMReX casts as ``numpy.asarray``).
    """
    if obj is None:
        raise TypeError(f"{cls.__name__}.from_array: None is not an array")
    c = _copy_flag(copy)
    if c is not True and isinstance(obj, cls):
        return obj
    if c is False:
        raise ValueError(f"{cls.__name__}.from_array(copy=False): a {type(obj).__name__} needs a copy")
    return cls._new_copy(_normalize(cls, obj, f"{cls.__name__}.from_array"))


def from_numpy(cls, arr):
    """A new vector with a copy of a host array (anything ``numpy.asarray`` takes), cast to the element type."""
    return cls._new_copy(_host(arr, cls._dtype, f"{cls.__name__}.from_numpy"))


def from_cupy(cls, arr):
    """A new vector with a copy of a CuPy array (or anything ``cupy.asarray`` takes)."""
    import cupy

    return from_array(cls, cupy.asarray(arr))


def from_xp(cls, arr):
    """``from_cupy`` when ``Config.have_gpu``, else ``from_numpy``."""
    return from_cupy(cls, arr) if cls._have_gpu() else from_numpy(cls, arr)


def copy_from(self, src, offset=0):
    """Write ``src`` (as ``from_array`` takes it) to elements ``[offset, offset + len(src))``.

    IndexError, with nothing written, when they do not fit (or ``offset`` < 0)."""
    self._copy_in(offset, _normalize(type(self), src, "copy_from"))


def copy_from_numpy(self, arr, offset=0):
    """``copy_from`` of a NumPy array."""
    if not isinstance(arr, np.ndarray):
        raise TypeError(f"copy_from_numpy: expected a numpy.ndarray, not {type(arr).__name__}")
    self._copy_in(offset, _host(arr, type(self)._dtype, "copy_from_numpy"))


def copy_from_podvector(self, src, offset=0):
    """``copy_from`` of another PODVector (any allocator and element type)."""
    if not isinstance(src, tuple(_BASES)):
        raise TypeError(f"copy_from_podvector: expected a PODVector, not {type(src).__name__}")
    self._copy_in(offset, _normalize(type(self), src, "copy_from_podvector"))


def attach(namespace):
    """Add the members and the aliases to one space-module namespace (boxfab._space.populate)."""
    Config = namespace["Config"]
    gpu = bool(Config.have_gpu)
    for kind, dtype in _DTYPES.items():
        std = namespace[f"PODVector_{kind}_std"]
        base = std.__mro__[1]
        for alloc in ("pinned", "arena", "std", "device", "managed", "async", "polymorphic"):
            cls = namespace[f"PODVector_{kind}_{alloc}"]
            cls._dtype = dtype
        pick = (lambda a: namespace[f"PODVector_{kind}_{a}"]) if gpu else (lambda a: std)
        aliases = {"DeviceVector": "arena", "NonManagedDeviceVector": "device", "ManagedVector": "managed",
                   "ManagedDeviceVector": "managed", "PinnedVector": "pinned", "AsyncVector": "async",
                   "HostVector": "pinned"}
        for alias, alloc in aliases.items():
            namespace[f"{alias}_{kind}"] = pick(alloc)
        namespace[f"PODVector_{kind}_default"] = pick("arena")
    if base not in _BASES:
        _BASES.append(base)
    device_vector = {k: namespace[f"DeviceVector_{k}"] for k in _DTYPES}
    kind_of = {d: k for k, d in _DTYPES.items()}

    def to_device(self):
        """A copy in a new ``DeviceVector_T`` (``PODVector_T_arena`` on the GPU, ``_std`` without one)."""
        return device_vector[kind_of[self._dtype]]._new_copy(self)

    base._have_gpu = staticmethod(lambda: gpu)
    for name, f in (("from_array", from_array), ("from_numpy", from_numpy), ("from_cupy", from_cupy),
                    ("from_xp", from_xp)):
        setattr(base, name, classmethod(f))
    for name, f in (("copy_from", copy_from), ("copy_from_numpy", copy_from_numpy),
                    ("copy_from_podvector", copy_from_podvector), ("to_device", to_device)):
        setattr(base, name, f)
