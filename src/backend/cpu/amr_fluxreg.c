/* CPU backend: AMR kernels of the family flux registers (amr/fluxreg.c); the
 * per-point arithmetic is src/core/amr/fluxreg_kernels.h's. */
#include "amr.h"

void bf_cpu_amr_fluxreg_fill(bf_backend_amr *a) { (void)a; }
