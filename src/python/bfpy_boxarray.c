/* boxfab._core: family "boxarray" (placeholder until implemented). */
#include "bfpy.h"

int bfpy_init_boxarray(PyObject *m, int dim) {
  (void)m, (void)dim;
  return 0;
}
