/* boxfab._core: FluxRegister. */
#include "amr/amr.h"

int bfpy_init_fluxreg(PyObject *m, int dim) {
  (void)m;
  (void)dim;
  return 0;
}
