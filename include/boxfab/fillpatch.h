/* boxfab — FillPatch: AMReX's FillPatchSingleLevel, FillPatchTwoLevels and InterpFromCoarseLevel (amr/fillpatch.c). */
#ifndef BOXFAB_FILLPATCH_H
#define BOXFAB_FILLPATCH_H

#include "boxfab/base.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif
