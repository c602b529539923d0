/* CUDA backend: AMR kernels of the family MultiFabUtil and domain boundaries (amr/mfutil.c, amr/bcrec.c); the
 * per-point arithmetic is src/core/amr/mfutil_kernels.h's, shared with the CPU kernels. */
#include "amr.h"

extern "C" void bf_cuda_amr_mfutil_fill(bf_backend_amr *a) { (void)a; }
