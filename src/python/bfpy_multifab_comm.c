/* boxfab._core: MultiFab ghost exchange (placeholder tables). */
#include "bfpy_multifab.h"

PyMethodDef bfpy_mf_comm_methods[] = {{NULL, NULL, 0, NULL}};
PyMethodDef bfpy_mf_comm_mf_methods[] = {{NULL, NULL, 0, NULL}};
PyMethodDef bfpy_imf_comm_methods[] = {{NULL, NULL, 0, NULL}};
