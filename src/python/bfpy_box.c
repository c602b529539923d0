/* boxfab._core: family "box" (placeholder until implemented). */
#include "bfpy.h"

int bfpy_init_box(PyObject *m, int dim) {
  (void)m, (void)dim;
  return 0;
}
