/* boxfab — DistributionMapping: which rank owns each box of a BoxArray.
 *
 * Reference counted and immutable (same ownership scheme as BoxArray:
 * create gives a reference, retain adds one, destroy(&dm) drops it and nulls
 * the handle). */
#ifndef BOXFAB_DISTMAP_H
#define BOXFAB_DISTMAP_H

#include <stdint.h>

#include "boxfab/base.h"
#include "boxfab/boxarray.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bf_distmap bf_distmap;

/** How boxes are assigned to ranks. */
typedef enum bf_distmap_strategy {
  BF_DISTMAP_SFC = 0,         /**< Morton space-filling curve, balanced by cells (AMReX default) */
  BF_DISTMAP_ROUND_ROBIN = 1, /**< box i on rank i % nprocs (largest first, as AMReX) */
  BF_DISTMAP_KNAPSACK = 2     /**< greedy knapsack on the number of cells */
} bf_distmap_strategy;

/** From an explicit map: box i on rank pmap[i] (each >= 0). */
BF_EXPORT int bf_distmap_create_from_pmap(int64_t n, const int *pmap, bf_distmap **dm);

BF_EXPORT bf_distmap *bf_distmap_retain(bf_distmap *dm);
BF_EXPORT void bf_distmap_destroy(bf_distmap **dm);
BF_EXPORT long bf_distmap_refcount(const bf_distmap *dm);

/** Number of entries (boxes). */
BF_EXPORT int64_t bf_distmap_size(const bf_distmap *dm);

/** Rank owning box i (BF_ERROR_INDEX when out of range). */
BF_EXPORT int bf_distmap_get(const bf_distmap *dm, int64_t i, int *rank);

/** Borrowed pointer to the rank array (size() entries). */
BF_EXPORT const int *bf_distmap_data(const bf_distmap *dm);

#ifdef __cplusplus
}
#endif
#endif
