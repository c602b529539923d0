/* boxfab._core: family "geometry" (placeholder until implemented). */
#include "bfpy.h"

int bfpy_init_geometry(PyObject *m, int dim) {
  (void)m, (void)dim;
  return 0;
}
