/* boxfab — AmrCore: the hierarchy of levels (BoxArray, DistributionMapping per level), grid generation as AMReX's AmrMesh::MakeNewGrids, and the virtual functions a user supplies (amr/amrcore.c). */
#ifndef BOXFAB_AMRCORE_H
#define BOXFAB_AMRCORE_H

#include "boxfab/base.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif
