/* Private: the per-point arithmetic of the AMR kernels of the family flux registers (amr/fluxreg.c),
 * shared by the CPU kernels (C) and the CUDA kernels (.cu) so that both compute the same numbers. */
#ifndef BOXFAB_AMR_FLUXREG_KERNELS_H
#define BOXFAB_AMR_FLUXREG_KERNELS_H

#include <stdint.h>

#include "runtime/backend.h"

#ifdef __CUDACC__
#define BF_AMR_FN static inline __host__ __device__
#else
#define BF_AMR_FN static inline
#endif

#endif
