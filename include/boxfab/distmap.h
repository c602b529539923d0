/* boxfab — DistributionMapping: which rank owns each box of a BoxArray.
 *
 * Reference counted and immutable (same ownership scheme as BoxArray:
 * create gives a reference, retain adds one, destroy(&dm) drops it and nulls
 * the handle). */
#ifndef BOXFAB_DISTMAP_H
#define BOXFAB_DISTMAP_H

#include <stdbool.h>
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

/** From an explicit map: box i on rank pmap[i] (each >= 0, BF_ERROR_VALUE
 *  otherwise; n < 0: BF_ERROR_VALUE).  nprocs() is max(pmap) + 1 (1 when n == 0). */
BF_EXPORT int bf_distmap_create_from_pmap(int64_t n, const int *pmap, bf_distmap **dm);

/** A balanced map of the boxes of `ba` over `nprocs` ranks (nprocs >= 1,
 *  BF_ERROR_VALUE otherwise), weighted by the number of cells of each box.
 *  Every strategy is deterministic (same input, same map on every rank).
 *  - BF_DISTMAP_SFC: boxes ordered along the Morton (Z-order) curve of their
 *    centres, then cut into nprocs contiguous chunks: box i goes to rank
 *    floor(nprocs * (W_i + w_i / 2) / W), W_i the weight of the boxes before
 *    it on the curve and W the total; each rank's load is at most
 *    W / nprocs + the largest box weight.  With no more boxes than ranks,
 *    box i (array order) goes to rank i (AMReX does the same).
 *  - BF_DISTMAP_ROUND_ROBIN: boxes by decreasing weight (ties: lower index
 *    first), the k-th of them on rank k % nprocs.
 *  - BF_DISTMAP_KNAPSACK: boxes by decreasing weight, each to the currently
 *    least loaded rank (ties: lowest rank); load <= W / nprocs + max weight.
 *  Unknown strategy: BF_ERROR_VALUE. */
BF_EXPORT int bf_distmap_create_balanced(const bf_boxarray *ba, int nprocs, bf_distmap_strategy strategy,
                                         bf_distmap **dm);

/** Reference counting (header comment): retain adds a reference and returns
 *  dm; destroy drops one and sets *dm to NULL (NULL allowed); refcount reads it. */
BF_EXPORT bf_distmap *bf_distmap_retain(bf_distmap *dm);
BF_EXPORT void bf_distmap_destroy(bf_distmap **dm);
BF_EXPORT long bf_distmap_refcount(const bf_distmap *dm);

/** Number of entries (boxes). */
BF_EXPORT int64_t bf_distmap_size(const bf_distmap *dm);

/** Rank owning box i (BF_ERROR_INDEX when out of range). */
BF_EXPORT int bf_distmap_get(const bf_distmap *dm, int64_t i, int *rank);

/** Borrowed pointer to the rank array (size() entries). */
BF_EXPORT const int *bf_distmap_data(const bf_distmap *dm);

/** Number of ranks the map was made for (create_balanced's nprocs, or
 *  max(pmap) + 1 for an explicit map). */
BF_EXPORT int bf_distmap_nprocs(const bf_distmap *dm);

/** Same size and same rank for every box. */
BF_EXPORT bool bf_distmap_equal(const bf_distmap *a, const bf_distmap *b);

#ifdef __cplusplus
}
#endif
#endif
