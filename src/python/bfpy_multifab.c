/* boxfab._core: family "multifab" (placeholder until implemented). */
#include "bfpy.h"

int bfpy_init_multifab(PyObject *m, int dim) {
  (void)m, (void)dim;
  return 0;
}
