/* boxfab._core: MultiFabUtil: average_down, average_down_faces/edges/nodal, average_*_to_cellcenter, average_cellcenter_to_face, sum_fine_to_coarse. */
#include "amr/amr.h"

int bfpy_init_mfutil(PyObject *m, int dim) {
  (void)m;
  (void)dim;
  return 0;
}
