/* CUDA backend: AMR kernels of the family flux registers (amr/fluxreg.c); the
 * per-point arithmetic is src/core/amr/fluxreg_kernels.h's, shared with the CPU kernels. */
#include "amr.h"

extern "C" void bf_cuda_amr_fluxreg_fill(bf_backend_amr *a) { (void)a; }
