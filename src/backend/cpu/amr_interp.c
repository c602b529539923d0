/* CPU backend: AMR kernels of the family interpolaters (amr/interp.c); the
 * per-point arithmetic is src/core/amr/interp_kernels.h's. */
#include "amr.h"

void bf_cpu_amr_interp_fill(bf_backend_amr *a) { (void)a; }
