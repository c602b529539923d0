/* boxfab._core: family "runtime" (placeholder until implemented). */
#include "bfpy.h"

int bfpy_init_runtime(PyObject *m, int dim) {
  (void)m, (void)dim;
  return 0;
}
