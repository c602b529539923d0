"""boxfab in 1 dimension(s): pyAMReX's `amrex.space1d` API.

    import boxfab.space1d as amr
"""
from boxfab._space import populate as _populate

_populate(globals(), 1)
del _populate
