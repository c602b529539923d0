"""boxfab: AMReX's block-structured mesh and particle data model, written in C.

Use one of the space modules, which offer pyAMReX's API::

    import boxfab.space3d as amr
"""
from boxfab._core import __version__, build_info

__all__ = ["__version__", "build_info"]
