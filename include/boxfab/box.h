/* boxfab — Box: a rectangular region of the index space.
 *
 * A plain value (copy it freely).  Both corners are inclusive.  `type` has bit
 * d set when the box is nodal (NODE) in direction d, clear for CELL.  For
 * d >= dim, lo[d] == hi[d] == 0 and bit d is clear.
 *
 * Functions that can overflow C int return a status (BF_ERROR_OVERFLOW) and
 * leave the box unchanged on failure; predicates return bool. */
#ifndef BOXFAB_BOX_H
#define BOXFAB_BOX_H

#include <stdbool.h>
#include <stdint.h>

#include "boxfab/base.h"
#include "boxfab/intvect.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bf_box {
  int dim;                 /**< 1..3 */
  int lo[BF_SPACEDIM_MAX]; /**< small end (inclusive) */
  int hi[BF_SPACEDIM_MAX]; /**< big end (inclusive) */
  unsigned type;           /**< bit d: nodal in direction d */
} bf_box;

/** Make a box of dimension `dim` from corner arrays of `dim` ints.
 *  `type` bits at or above `dim` are an error (BF_ERROR_VALUE). */
BF_EXPORT int bf_box_define(int dim, const int *lo, const int *hi, unsigned type, bf_box *box);

/** big >= small in every direction. */
BF_EXPORT bool bf_box_ok(const bf_box *b);
/** Not ok. */
BF_EXPORT bool bf_box_is_empty(const bf_box *b);
/** Number of points in direction d (hi - lo + 1, may be <= 0 for empty boxes). */
BF_EXPORT int64_t bf_box_length(const bf_box *b, int d);
/** Number of points (0 when empty); BF_ERROR_OVERFLOW above INT64_MAX. */
BF_EXPORT int bf_box_numpts(const bf_box *b, int64_t *npts);
/** Number of points as double (0 when empty). */
BF_EXPORT double bf_box_d_numpts(const bf_box *b);
/** All lengths equal. */
BF_EXPORT bool bf_box_is_square(const bf_box *b);
/** Same dim, corners and type. */
BF_EXPORT bool bf_box_equal(const bf_box *a, const bf_box *b);
/** Same dim and type. */
BF_EXPORT bool bf_box_same_type(const bf_box *a, const bf_box *b);
/** Same lengths in every direction. */
BF_EXPORT bool bf_box_same_size(const bf_box *a, const bf_box *b);

/** Point `p` (dim ints) inside. */
BF_EXPORT bool bf_box_contains(const bf_box *b, const int *p);
/** Point inside and not on the boundary. */
BF_EXPORT bool bf_box_strictly_contains(const bf_box *b, const int *p);
/** Box `inner` (same type) entirely inside `b`; an empty `inner` is not contained. */
BF_EXPORT bool bf_box_contains_box(const bf_box *b, const bf_box *inner);
/** Non-empty intersection (types must match; different types never intersect). */
BF_EXPORT bool bf_box_intersects(const bf_box *a, const bf_box *b);
/** out = a & b (may be empty, i.e. not ok). Type of `a`. */
BF_EXPORT void bf_box_intersection(const bf_box *a, const bf_box *b, bf_box *out);
/** out = smallest box containing a and b (type of `a`). */
BF_EXPORT void bf_box_minimal(const bf_box *a, const bf_box *b, bf_box *out);

/** Swap the corners in directions where small > big. */
BF_EXPORT void bf_box_normalize(bf_box *b);
/** Translate by n cells in direction d. */
BF_EXPORT int bf_box_shift(bf_box *b, int d, int n);
/** Translate by the vector s (dim ints). */
BF_EXPORT int bf_box_shift_iv(bf_box *b, const int *s);
/** Move the low end by -n_lo and the high end by +n_hi in direction d. */
BF_EXPORT int bf_box_grow_dir(bf_box *b, int d, int n_lo, int n_hi);
/** Grow both ends by n[d] in each direction (n: dim ints; negative shrinks). */
BF_EXPORT int bf_box_grow(bf_box *b, const int *n);
/** Refine by ratio (dim ints, each >= 1): lo*r, (hi+s)*r-s, s = 1 for CELL. */
BF_EXPORT int bf_box_refine(bf_box *b, const int *ratio);
/** Coarsen by ratio (dim ints, each >= 1), floor division (AMReX rule). */
BF_EXPORT int bf_box_coarsen(bf_box *b, const int *ratio);
/** Change the index type; CELL->NODE adds 1 to hi, NODE->CELL subtracts 1. */
BF_EXPORT int bf_box_convert(bf_box *b, unsigned type);
/** Make nodal in direction d (d < 0: all directions). */
BF_EXPORT int bf_box_surrounding_nodes(bf_box *b, int d);
/** Make cell-centred in direction d (d < 0: all directions). */
BF_EXPORT int bf_box_enclosed_cells(bf_box *b, int d);
/** Flatten to the single index `idx` in direction d. */
BF_EXPORT void bf_box_make_slab(bf_box *b, int d, int idx);

#ifdef __cplusplus
}
#endif
#endif
