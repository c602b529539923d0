"""boxfab: AMReX's block-structured mesh and particle data model, written in C.

Use one of the space modules, which offer pyAMReX's API::

    import boxfab.space3d as amr
"""
import os as _os

# The C library runs MultiFab work on a CUDA GPU when one is present.  The
# Python layer does not yet hand device memory to CuPy/Numba/PyTorch (that is
# the CUDA issue's Python half), so from Python boxfab keeps its data in host
# memory unless asked otherwise: BOXFAB_DEVICE=gpu opts in (experimental).
if _os.environ.get("BOXFAB_DEVICE", "").lower() in ("", "auto"):
    _os.environ["BOXFAB_DEVICE"] = "cpu"

from boxfab._core import __version__, build_info  # noqa: E402

__all__ = ["__version__", "build_info"]
