"""boxfab in 2 dimension(s): pyAMReX's `amrex.space2d` API.

    import boxfab.space2d as amr
"""
from boxfab._space import populate as _populate

_populate(globals(), 2)
del _populate
