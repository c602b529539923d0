/* boxfab._core: TagBox, TagBoxArray. */
#include "amr/amr.h"

int bfpy_init_tagbox(PyObject *m, int dim) {
  (void)m;
  (void)dim;
  return 0;
}
