/* boxfab._core: MultiFab reductions (placeholder tables). */
#include "bfpy_multifab.h"

PyMethodDef bfpy_mf_reduce_methods[] = {{NULL, NULL, 0, NULL}};
PyMethodDef bfpy_mf_fabarray_reduce[] = {{NULL, NULL, 0, NULL}};
PyMethodDef bfpy_imf_reduce_methods[] = {{NULL, NULL, 0, NULL}};
