/* CPU backend: AMR kernels of the family tagging (amr/tagbox.c); the
 * per-point arithmetic is src/core/amr/tagbox_kernels.h's. */
#include "amr.h"

void bf_cpu_amr_tagbox_fill(bf_backend_amr *a) { (void)a; }
