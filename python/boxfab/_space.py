"""Builds the namespace of a space module from boxfab._core.space{N}d.

Only composition happens here: every class and function is implemented in C.
"""
from boxfab import _core


def populate(namespace, dim):
    impl = getattr(_core, f"space{dim}d")
    for name in dir(impl):
        if name.startswith("__") and name not in ("__version__", "__author__", "__license__"):
            continue
        namespace[name] = getattr(impl, name)
    namespace.setdefault("__version__", _core.__version__)
    namespace["__author__"] = "the boxfab developers"
    namespace["__license__"] = "BSD-3-Clause"
    # Python-level members of MultiFab / iMultiFab (to_numpy, global indexing, ...)
    from boxfab import _multifab
    _multifab.attach(namespace)
    # Python-level members of StructOfArrays_* (to_numpy / to_cupy named tuples, soa_real_comps)
    from boxfab import _particles
    _particles.attach(namespace)
    # Python-level members of the particle containers (to_df, add_particles)
    from boxfab import _pcontainer
    _pcontainer.attach(namespace)
    # PODVector copies in (from_array, copy_from, to_device, ...) and GpuContainers.H's aliases
    from boxfab import _podvector
    _podvector.attach(namespace)
    # tiling: TilingIfNotGPU, mf.tiles(), for_each_tile, amr.xp
    from boxfab import _tiling
    _tiling.attach(namespace)
    return impl
