/* boxfab._core: family "fab", private declarations shared by mesh/arena.c
 * (Arena, The_*_Arena, MFInfo, MFItInfo, FabFactory_FArrayBox) and
 * mesh/fab.c (BaseFab_Real, FArrayBox). */
#ifndef BOXFAB_BFPY_FAB_H
#define BOXFAB_BFPY_FAB_H

#include "bfpy.h"

/* Arena, the The_*_Arena functions, MFInfo, MFItInfo, FabFactory_FArrayBox. */
int bfpy_init_arena(PyObject *m, int dim);

/* A Python bool (or NumPy bool) into C bool; TypeError for anything else
 * (ints included: pyAMReX's bool parameters take bools). */
int bfpy_fab_to_bool(PyObject *o, bool *out, const char *what);

#endif
