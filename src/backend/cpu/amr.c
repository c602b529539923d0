/* CPU backend: the AMR kernel families' entries (runtime/backend.h's bf_backend_amr). */
#include "amr.h"

void bf_backend_cpu_amr_fill(bf_backend_amr *a) {
  bf_cpu_amr_mfutil_fill(a);
  bf_cpu_amr_interp_fill(a);
  bf_cpu_amr_fluxreg_fill(a);
  bf_cpu_amr_tagbox_fill(a);
}
