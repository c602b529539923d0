/* boxfab._core: MultiFab element-wise operations (placeholder tables). */
#include "bfpy_multifab.h"

PyMethodDef bfpy_mf_ops_methods[] = {{NULL, NULL, 0, NULL}};
PyMethodDef bfpy_mf_fabarray_ops[] = {{NULL, NULL, 0, NULL}};
PyMethodDef bfpy_mf_imf_ops_methods[] = {{NULL, NULL, 0, NULL}};
PyMethodDef bfpy_mf_statics[] = {{NULL, NULL, 0, NULL}};
PyMethodDef bfpy_mf_fabarray_statics[] = {{NULL, NULL, 0, NULL}};
PyMethodDef bfpy_imf_statics[] = {{NULL, NULL, 0, NULL}};
