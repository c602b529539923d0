/* boxfab._core: family "vector" (placeholder until implemented). */
#include "bfpy.h"

int bfpy_init_vector(PyObject *m, int dim) {
  (void)m, (void)dim;
  return 0;
}
