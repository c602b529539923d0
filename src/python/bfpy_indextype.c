/* boxfab._core: family "indextype" (placeholder until implemented). */
#include "bfpy.h"

int bfpy_init_indextype(PyObject *m, int dim) {
  (void)m, (void)dim;
  return 0;
}
