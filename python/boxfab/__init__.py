"""boxfab: AMReX's block-structured mesh and particle data model, written in C.

Use one of the space modules, which offer pyAMReX's API::

    import boxfab.space3d as amr

Device selection (read once, when the library first needs it): by default
("auto") boxfab uses a CUDA GPU when the build has CUDA and a device is
present — ``The_Arena`` (MultiFab's default) is then device memory, and its
views go to CuPy, Numba, PyTorch and JAX through ``__cuda_array_interface__``
and DLPack without copying.  ``BOXFAB_DEVICE=cpu`` forces the CPU (every
arena is host memory); ``Config.have_gpu`` says which one is in use.
"""
from boxfab._core import __version__, build_info

__all__ = ["__version__", "build_info"]
