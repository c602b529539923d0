/* boxfab._core: BCType, PhysBCType, BCRec, Vector_BCRec, setBC, PhysBCFunctNoOp, CpuBndryFuncFab, PhysBCFunct_CpuBndryFuncFab, PhysBCFunctUser, fill_domain_boundary. */
#include "amr/amr.h"

int bfpy_init_bcrec(PyObject *m, int dim) {
  (void)m;
  (void)dim;
  return 0;
}
