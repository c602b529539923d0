/* boxfab — MultiFabUtil: AMReX's average_down family, the averages between cell centres, faces, edges and nodes, sum_fine_to_coarse (amr/mfutil.c). */
#ifndef BOXFAB_MFUTIL_H
#define BOXFAB_MFUTIL_H

#include "boxfab/base.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif
