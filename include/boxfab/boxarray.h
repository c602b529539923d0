/* boxfab — BoxArray: a reference-counted array of Boxes of one dimension
 * and one index type.
 *
 * Ownership: bf_boxarray_create* give the caller one reference;
 * bf_boxarray_retain adds one; bf_boxarray_destroy(&ba) drops one and sets
 * ba to NULL.  A BoxArray is immutable once shared: the functions that
 * change it take `bf_boxarray **` and, when the array has other holders,
 * replace *ba by a changed private copy (copy on write), so that a holder
 * such as a MultiFab never sees its boxes change. */
#ifndef BOXFAB_BOXARRAY_H
#define BOXFAB_BOXARRAY_H

#include <stdbool.h>
#include <stdint.h>

#include "boxfab/base.h"
#include "boxfab/box.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bf_boxarray bf_boxarray;

/** An empty BoxArray of dimension `dim` (cell-centred). */
BF_EXPORT int bf_boxarray_create(int dim, bf_boxarray **ba);

/** A BoxArray holding copies of `n` boxes, all of dimension `dim` and of one
 *  index type (BF_ERROR_TYPE otherwise). */
BF_EXPORT int bf_boxarray_create_from_boxes(int dim, int64_t n, const bf_box *boxes, bf_boxarray **ba);

/** Add a reference; returns ba. */
BF_EXPORT bf_boxarray *bf_boxarray_retain(bf_boxarray *ba);

/** Drop a reference and set *ba to NULL (NULL is allowed). */
BF_EXPORT void bf_boxarray_destroy(bf_boxarray **ba);

/** Number of references (for diagnostics, Python's link_count). */
BF_EXPORT long bf_boxarray_refcount(const bf_boxarray *ba);

/** Dimension of the boxes. */
BF_EXPORT int bf_boxarray_dim(const bf_boxarray *ba);

/** Number of boxes. */
BF_EXPORT int64_t bf_boxarray_size(const bf_boxarray *ba);

/** Box i, 0 <= i < size (BF_ERROR_INDEX otherwise). */
BF_EXPORT int bf_boxarray_get(const bf_boxarray *ba, int64_t i, bf_box *box);

/** Borrowed pointer to the contiguous array of boxes (size() of them);
 *  valid while the caller holds its reference and does not change *ba. */
BF_EXPORT const bf_box *bf_boxarray_data(const bf_boxarray *ba);

#ifdef __cplusplus
}
#endif
#endif
