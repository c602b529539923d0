/* boxfab — tagging: AMReX's TagBox values and TagBoxArray (set, buffer, coarsen, collate) and Berger-Rigoutsos clustering (amr/tagbox.c, amr/cluster.c). */
#ifndef BOXFAB_TAGBOX_H
#define BOXFAB_TAGBOX_H

#include "boxfab/base.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif
