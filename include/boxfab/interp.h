/* boxfab — interpolaters: AMReX's Interpolater and MFInterpolater kinds (pc, cell conservative linear, bilinear, face, protected, quartic...), their coarse boxes and per-fab kernels (amr/interp.c). */
#ifndef BOXFAB_INTERP_H
#define BOXFAB_INTERP_H

#include "boxfab/base.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif
