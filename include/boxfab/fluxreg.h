/* boxfab — flux registers: AMReX's FluxRegister (crse_init, crse_add, fine_add, reflux; amr/fluxreg.c). */
#ifndef BOXFAB_FLUXREG_H
#define BOXFAB_FLUXREG_H

#include "boxfab/base.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif
