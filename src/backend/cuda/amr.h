/* CUDA backend, private: the fill functions of the AMR kernel families (runtime/backend.h's
 * bf_backend_amr), one per src/backend/cuda/amr_<family>.cu. */
#ifndef BOXFAB_CUDA_AMR_H
#define BOXFAB_CUDA_AMR_H

#include "runtime/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

void bf_cuda_amr_mfutil_fill(bf_backend_amr *a); /* MultiFabUtil and domain boundaries (amr/mfutil.c, amr/bcrec.c) */
void bf_cuda_amr_interp_fill(bf_backend_amr *a); /* interpolaters (amr/interp.c) */
void bf_cuda_amr_fluxreg_fill(bf_backend_amr *a); /* flux registers (amr/fluxreg.c) */
void bf_cuda_amr_tagbox_fill(bf_backend_amr *a); /* tagging (amr/tagbox.c) */

#ifdef __cplusplus
}
#endif
#endif
