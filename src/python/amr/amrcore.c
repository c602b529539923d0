/* boxfab._core: AmrCore (subclassable from Python), ParGDBBase, AmrParGDB. */
#include "amr/amr.h"

int bfpy_init_amrcore(PyObject *m, int dim) {
  (void)m;
  (void)dim;
  return 0;
}
