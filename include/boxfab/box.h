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

/* ---- construction and index types ------------------------------------------ */

/** Make a box of dimension `dim` from corner arrays of `dim` ints.
 *  `type` bits at or above `dim` are an error (BF_ERROR_VALUE). lo > hi is
 *  allowed (an empty box). */
BF_EXPORT int bf_box_define(int dim, const int *lo, const int *hi, unsigned type, bf_box *box);

/** The unit box of dimension `dim`: (0,...,0)-(0,...,0), cell-centred.
 *  BF_ERROR_VALUE for a bad dim. */
BF_EXPORT int bf_box_unit(int dim, bf_box *box);

/** Index type bits from `dim` ints that are each 0 (CELL) or 1 (NODE);
 *  BF_ERROR_VALUE for any other value (or a bad dim). */
BF_EXPORT int bf_box_type_from_ints(int dim, const int *v, unsigned *type);

/** The index type as `dim` ints 0/1 (out[d] for d >= dim untouched). */
BF_EXPORT void bf_box_type_to_ints(const bf_box *b, int *out);

/** Nodal in direction d (0 <= d < dim; false otherwise). */
static inline bool bf_box_is_nodal(const bf_box *b, int d) {
  return d >= 0 && d < b->dim && ((b->type >> d) & 1u);
}

/** All directions CELL. */
static inline bool bf_box_cell_centered(const bf_box *b) { return b->type == 0u; }

/** All directions NODE. */
static inline bool bf_box_node_centered(const bf_box *b) { return b->type == (1u << b->dim) - 1u; }

/* ---- queries ------------------------------------------------------------------ */

/** big >= small in every direction. */
BF_EXPORT bool bf_box_ok(const bf_box *b);
/** Not ok. */
BF_EXPORT bool bf_box_is_empty(const bf_box *b);
/** Number of points in direction d, 0 <= d < dim (hi - lo + 1, may be <= 0 for
 *  empty boxes; int64 so that it never overflows). */
BF_EXPORT int64_t bf_box_length(const bf_box *b, int d);
/** Lengths of the `dim` directions as C ints into out[0..dim-1];
 *  BF_ERROR_OVERFLOW when one does not fit (e.g. INT_MIN..INT_MAX). */
BF_EXPORT int bf_box_size(const bf_box *b, int *out);
/** Number of points (0 when empty); BF_ERROR_OVERFLOW above INT64_MAX. */
BF_EXPORT int bf_box_numpts(const bf_box *b, int64_t *npts);
/** AMReX's Box::volume(): the product over directions of (length - 1 if
 *  nodal else length), i.e. the number of cells the box encloses (0 when
 *  empty); equals numpts for a cell-centred box.  BF_ERROR_OVERFLOW above
 *  INT64_MAX. */
BF_EXPORT int bf_box_volume(const bf_box *b, int64_t *vol);
/** Number of points as double (0 when empty). */
BF_EXPORT double bf_box_d_numpts(const bf_box *b);
/** All lengths equal; false in 1D (AMReX's Box::isSquare: "can't build a
 *  square in 1-D"). */
BF_EXPORT bool bf_box_is_square(const bf_box *b);
/** Same dim, corners and type. */
BF_EXPORT bool bf_box_equal(const bf_box *a, const bf_box *b);
/** Same dim and type. */
BF_EXPORT bool bf_box_same_type(const bf_box *a, const bf_box *b);
/** BF_SUCCESS when a and b have the same dim and index type, else
 *  BF_ERROR_TYPE (dims differ) or BF_ERROR_VALUE (index types differ) with a
 *  message naming `what` (e.g. "intersects"). For operations that need it. */
BF_EXPORT int bf_box_check_same_type(const bf_box *a, const bf_box *b, const char *what);
/** Same lengths in every direction. */
BF_EXPORT bool bf_box_same_size(const bf_box *a, const bf_box *b);

/** Point `p` (dim ints) inside. */
BF_EXPORT bool bf_box_contains(const bf_box *b, const int *p);
/** Point inside and not on the boundary. */
BF_EXPORT bool bf_box_strictly_contains(const bf_box *b, const int *p);
/** Box `inner` (same type) entirely inside `b`; an empty `inner` is not contained. */
BF_EXPORT bool bf_box_contains_box(const bf_box *b, const bf_box *inner);
/** Non-empty intersection. Different dims or index types never intersect
 *  (callers that want an error use bf_box_check_same_type first). */
BF_EXPORT bool bf_box_intersects(const bf_box *a, const bf_box *b);
/** out = a & b (may be empty, i.e. not ok). Type of `a`; a and b should have
 *  the same dim and type (see bf_box_check_same_type). `out` may alias. */
BF_EXPORT void bf_box_intersection(const bf_box *a, const bf_box *b, bf_box *out);
/** out = smallest box containing a and b (type of `a`). `out` may alias. */
BF_EXPORT void bf_box_minimal(const bf_box *a, const bf_box *b, bf_box *out);

/* ---- Dim3 views (AMReX lbound/ubound/length/begin/end) --------------------------
 * Always three ints; directions d >= dim count as a box 0..0. */

/** Small end; 0 for d >= dim. */
BF_EXPORT void bf_box_lbound3(const bf_box *b, int out[3]);
/** Big end (inclusive); 0 for d >= dim. */
BF_EXPORT void bf_box_ubound3(const bf_box *b, int out[3]);
/** Lengths; 1 for d >= dim. BF_ERROR_OVERFLOW when one exceeds C int. */
BF_EXPORT int bf_box_length3(const bf_box *b, int out[3]);
/** Big end + 1; 1 for d >= dim. BF_ERROR_OVERFLOW when big end is INT_MAX. */
BF_EXPORT int bf_box_end3(const bf_box *b, int out[3]);

/* ---- iteration ---------------------------------------------------------------- */

/** Start a walk over every point of `b`, first direction fastest:
 *  p (dim ints) = small end; false (p untouched) when the box is empty.
 *
 *    int p[3];
 *    for (bool more = bf_box_iter_begin(&b, p); more; more = bf_box_iter_next(&b, p)) ...
 */
BF_EXPORT bool bf_box_iter_begin(const bf_box *b, int *p);
/** Advance p to the next point; false after the last one. Never overflows,
 *  even when the box touches INT_MAX. */
BF_EXPORT bool bf_box_iter_next(const bf_box *b, int *p);

/* ---- in-place transformations --------------------------------------------------
 * Each returns a status and leaves the box unchanged on failure. Directions
 * d must satisfy 0 <= d < dim (BF_ERROR_INDEX otherwise) unless stated. */

/** AMReX's Box::normalize(): in each direction whose length is 0 (big ==
 *  small - 1) grow the big end by one.  Other corners are left alone (no
 *  swapping; a box with big < small - 1 stays empty). */
BF_EXPORT void bf_box_normalize(bf_box *b);
/** Translate by n cells in direction d. BF_ERROR_OVERFLOW past C int. */
BF_EXPORT int bf_box_shift(bf_box *b, int d, int n);
/** Translate by the vector s (dim ints). BF_ERROR_OVERFLOW past C int. */
BF_EXPORT int bf_box_shift_iv(bf_box *b, const int *s);
/** Translate by -s (dim ints), exactly (s may hold INT_MIN). BF_ERROR_OVERFLOW past C int. */
BF_EXPORT int bf_box_shift_iv_neg(bf_box *b, const int *s);
/** Move the low end by -n_lo and the high end by +n_hi in direction d
 *  (negative values shrink). BF_ERROR_OVERFLOW past C int. */
BF_EXPORT int bf_box_grow_dir(bf_box *b, int d, int n_lo, int n_hi);
/** Grow both ends by n[d] in each direction (n: dim ints; negative shrinks). */
BF_EXPORT int bf_box_grow(bf_box *b, const int *n);
/** Refine by ratio (dim ints, each >= 1, else BF_ERROR_VALUE):
 *  lo*r, (hi+s)*r-s with s = 1 for CELL, 0 for NODE. BF_ERROR_OVERFLOW past C int. */
BF_EXPORT int bf_box_refine(bf_box *b, const int *ratio);
/** Coarsen by ratio (dim ints, each >= 1, else BF_ERROR_VALUE) with floor
 *  division (AMReX rule: correct for negative indices); a nodal big end
 *  that is not a multiple of the ratio rounds up. */
BF_EXPORT int bf_box_coarsen(bf_box *b, const int *ratio);
/** Change the index type; CELL->NODE adds 1 to hi, NODE->CELL subtracts 1.
 *  BF_ERROR_VALUE for type bits beyond dim; BF_ERROR_OVERFLOW past C int. */
BF_EXPORT int bf_box_convert(bf_box *b, unsigned type);
/** Make nodal in direction d (d < 0: all directions; d >= dim: BF_ERROR_INDEX). */
BF_EXPORT int bf_box_surrounding_nodes(bf_box *b, int d);
/** Make cell-centred in direction d (d < 0: all directions; d >= dim: BF_ERROR_INDEX). */
BF_EXPORT int bf_box_enclosed_cells(bf_box *b, int d);
/** Flatten to the single index `idx` in direction d. */
BF_EXPORT int bf_box_make_slab(bf_box *b, int d, int idx);

/* ---- pieces next to a box (AMReX's free functions in AMReX_Box.H) -------------
 * Each writes a new box to *out (b unchanged); d must be in [0, dim)
 * (BF_ERROR_INDEX), BF_ERROR_OVERFLOW past C int. */

/** AMReX's Box::chop(dir, chop_pnt): *b becomes the low part, *hi the high
 *  part starting at chop_pnt.  CELL in d: b ends at chop_pnt - 1, and
 *  small < chop_pnt <= big is required; NODE in d: both parts hold
 *  chop_pnt, and small < chop_pnt < big is required (BF_ERROR_VALUE
 *  otherwise; AMReX asserts it). */
BF_EXPORT int bf_box_chop(bf_box *b, int d, int chop_pnt, bf_box *hi);

/** AMReX's adjCellLo / adjCellHi(b, dir, len): the `len` (>= 1, else
 *  BF_ERROR_VALUE: AMReX asserts len > 0) cells next to the low / high face
 *  of b in direction d, cell-centred in d (the type of b elsewhere).  High:
 *  they start at big + 1 - (1 if nodal in d). */
BF_EXPORT int bf_box_adj_cell(const bf_box *b, int d, int len, bool high, bf_box *out);

/** AMReX's bdryLo / bdryHi(b, dir, len): `len` nodes at the low / high face
 *  of b in direction d, nodal in d.  Low: small - len + 1 .. small; high:
 *  starting at big + 1 - (1 if nodal in d).  len >= 1, BF_ERROR_VALUE
 *  otherwise (AMReX makes an empty box of len <= 0; adjCellLo/Hi assert). */
BF_EXPORT int bf_box_bdry(const bf_box *b, int d, int len, bool high, bf_box *out);

#ifdef __cplusplus
}
#endif
#endif
