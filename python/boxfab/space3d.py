"""boxfab in 3 dimension(s): pyAMReX's `amrex.space3d` API.

    import boxfab.space3d as amr
"""
from boxfab._space import populate as _populate

_populate(globals(), 3)
del _populate
