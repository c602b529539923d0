/* CUDA backend: AMR kernels of the family tagging (amr/tagbox.c); the
 * per-point arithmetic is src/core/amr/tagbox_kernels.h's, shared with the CPU kernels. */
#include "amr.h"

extern "C" void bf_cuda_amr_tagbox_fill(bf_backend_amr *a) { (void)a; }
