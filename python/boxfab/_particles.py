"""Python-level members of the particle array types (StructOfArrays_*).

Only composition happens here: every array is made in C (PODVector to_numpy /
to_cupy are zero-copy views); this file groups them into pyAMReX's named
tuples, keyed by the component names the C tile carries.
"""
import operator
import string
from collections import namedtuple

_tuple_types = {}


def _tuple_type(cls, suffix):
    key = (cls, suffix)
    t = _tuple_types.get(key)
    if t is None:
        t = namedtuple(cls.__name__ + suffix, ["real", "int", "idcpu"])
        _tuple_types[key] = t
    return t


_MAX_COMPS = 1 << 20


def _count(n, what):
    if isinstance(n, bool):
        raise TypeError(f"{what} must be an int, not bool")
    n = operator.index(n)
    if not 0 <= n <= _MAX_COMPS:
        raise ValueError(f"{what} must be in [0, {_MAX_COMPS}], got {n}")
    return n


def soa_real_comps(self, num_comps, spacedim=3, rotate=True):
    """Names of `num_comps` real components, as pyAMReX: rotate=True gives
    x, y, z, a, b, ..., w, then r0, r1, ...; rotate=False a, ..., w, r0, ...
    `spacedim` is accepted and ignored (as pyAMReX)."""
    num_comps = _count(num_comps, "num_comps")
    if isinstance(spacedim, bool) or not isinstance(spacedim, int) or not 1 <= spacedim <= 3:
        raise TypeError(f"soa_real_comps: spacedim must be an int in [1, 3], not {spacedim!r}")
    names = list(string.ascii_lowercase)
    names = names[-3:] + names[:-3] if rotate else names[:-3]
    if num_comps < len(names):
        return names[:num_comps]
    return names + ["r" + str(i) for i in range(num_comps - len(names))]


def soa_int_comps(self, num_comps):
    """Names of `num_comps` int components: i0, i1, ..."""
    num_comps = _count(num_comps, "num_comps")
    return ["i" + str(i) for i in range(num_comps)]


def _soa_arrays(self, copy, method, suffix):
    if self.size == 0:
        raise ValueError("SoA is empty.")
    # every component captured in one C call (another thread cannot change the tile in between)
    idcpu, reals, ints = (self._cupy_arrays if method == "to_cupy" else self._arrays)(copy=copy)
    return _tuple_type(type(self), suffix)(dict(reals), dict(ints), idcpu)


def soa_to_numpy(self, copy=False):
    """NumPy views (or copies) of every component: a named tuple (real, int,
    idcpu) whose real / int are dicts keyed by the component names, in
    component order; idcpu is None for legacy layouts.  ValueError when empty."""
    return _soa_arrays(self, copy, "to_numpy", "_np")


def soa_to_cupy(self, copy=False):
    """As to_numpy, with CuPy arrays (ImportError without CuPy)."""
    return _soa_arrays(self, copy, "to_cupy", "_cp")


def soa_to_xp(self, copy=False):
    """to_cupy when Config.have_gpu, else to_numpy."""
    from boxfab import _core

    if _core.space1d.Config.have_gpu:
        return self.to_cupy(copy)
    return self.to_numpy(copy)


def attach(namespace):
    """Add the members to the StructOfArrays_* classes of a space-module namespace."""
    for name, cls in list(namespace.items()):
        if isinstance(cls, type) and name.startswith("StructOfArrays_"):
            base = cls.__base__  # the hidden _StructOfArrays of this module
            base.to_numpy = soa_to_numpy
            base.to_cupy = soa_to_cupy
            base.to_xp = soa_to_xp
            base.soa_real_comps = soa_real_comps
            base.soa_int_comps = soa_int_comps
            break
