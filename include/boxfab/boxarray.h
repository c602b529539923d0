/* boxfab — BoxArray: a reference-counted array of Boxes of one dimension
 * and one index type.
 *
 * Ownership: bf_boxarray_create* give the caller one reference;
 * bf_boxarray_retain adds one; bf_boxarray_destroy(&ba) drops one and sets
 * ba to NULL.  A BoxArray is immutable once shared: the functions that
 * change it take `bf_boxarray **` and, when the array has other holders,
 * replace *ba by a changed private copy (copy on write), so that a holder
 * such as a MultiFab never sees its boxes change.  When the caller holds the
 * only reference the array is changed in place (the handle stays the same).
 * Every mutator either succeeds completely or leaves *ba and its boxes
 * unchanged.
 *
 * Index type: all boxes share the array's index type (bf_boxarray_ix_type),
 * which an empty array keeps too (cell-centred unless made otherwise;
 * bf_boxarray_clear makes it cell-centred again, as AMReX's clear()).
 *
 * Semantics are AMReX's (AMReX_BoxArray.cpp, AMReX_BoxList.cpp).  AMReX keeps
 * the cell-centred boxes plus a lazy transformer (index type, coarsening
 * ratio); boxfab keeps the boxes as they are seen through it, which gives the
 * same boxes for every operation here (coarsening and converting commute
 * box by box). 
 *
 * Queries: bf_boxarray_intersections and friends use a spatial hash built on
 * first use and cached in the array (boxes binned by their low corner
 * coarsened by the largest box extent per direction, as AMReX does), so a
 * query costs O(boxes near the query), not O(size).  The hash is built
 * once, atomically published, and may be used by several threads reading
 * the same (unchanged) array at once.  A mutator drops it.  Worst case: an
 * array mixing one huge box with many small ones puts many boxes per bin. */
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

/* ---- creation and reference counting ----------------------------------------- */

/** An empty BoxArray of dimension `dim` (cell-centred). */
BF_EXPORT int bf_boxarray_create(int dim, bf_boxarray **ba);

/** An empty BoxArray of dimension `dim` and index type `type` (AMReX's
 *  BoxArray(&box, 0) takes the box's type).  BF_ERROR_VALUE for type bits
 *  beyond dim. */
BF_EXPORT int bf_boxarray_create_typed(int dim, unsigned type, bf_boxarray **ba);

/** A BoxArray holding copies of `n` boxes, all of dimension `dim` and of one
 *  index type (BF_ERROR_TYPE otherwise; n < 0: BF_ERROR_VALUE). */
BF_EXPORT int bf_boxarray_create_from_boxes(int dim, int64_t n, const bf_box *boxes, bf_boxarray **ba);

/** A BoxArray of the single box `box` (its dimension and index type). */
BF_EXPORT int bf_boxarray_create_box(const bf_box *box, bf_boxarray **ba);

/** A new, unshared BoxArray with the same boxes and type as `src` (refcount 1). */
BF_EXPORT int bf_boxarray_copy(const bf_boxarray *src, bf_boxarray **ba);

/** Add a reference; returns ba. */
BF_EXPORT bf_boxarray *bf_boxarray_retain(bf_boxarray *ba);

/** Drop a reference and set *ba to NULL (NULL is allowed). */
BF_EXPORT void bf_boxarray_destroy(bf_boxarray **ba);

/** Number of references (for diagnostics, Python's link_count). */
BF_EXPORT long bf_boxarray_refcount(const bf_boxarray *ba);

/** Make *ba unshared: when other references exist, replace *ba by a private
 *  copy (dropping the caller's reference to the shared one).  Every mutator
 *  below does this itself; it is public for holders that need it. */
BF_EXPORT int bf_boxarray_make_unique(bf_boxarray **ba);

/* ---- reading ------------------------------------------------------------------- */

/** Dimension of the boxes. */
BF_EXPORT int bf_boxarray_dim(const bf_boxarray *ba);

/** Number of boxes. */
BF_EXPORT int64_t bf_boxarray_size(const bf_boxarray *ba);

/** AMReX's capacity(), the capacity of its std::vector of boxes, modelled
 *  (libstdc++ growth): 0 for a new empty or cleared array, 1 after define,
 *  n for an array made from n boxes or copied, the next power of 2 >= size
 *  after a max_size that chopped, max(2 * size, n) after resize(n) beyond it;
 *  other operations keep it (refine/grow/shift of a shared array: size).
 *  Diagnostic only; >= size. */
BF_EXPORT int64_t bf_boxarray_capacity(const bf_boxarray *ba);

/** Index type of the boxes (bit d set: nodal in direction d). */
BF_EXPORT unsigned bf_boxarray_ix_type(const bf_boxarray *ba);

/** Box i, 0 <= i < size (BF_ERROR_INDEX otherwise). */
BF_EXPORT int bf_boxarray_get(const bf_boxarray *ba, int64_t i, bf_box *box);

/** Borrowed pointer to the contiguous array of boxes (size() of them);
 *  valid while the caller holds its reference and does not change *ba. */
BF_EXPORT const bf_box *bf_boxarray_data(const bf_boxarray *ba);

/** Total number of points of all boxes (empty boxes count 0);
 *  BF_ERROR_OVERFLOW above INT64_MAX. */
BF_EXPORT int bf_boxarray_numpts(const bf_boxarray *ba, int64_t *npts);

/** Total number of points as a double. */
BF_EXPORT double bf_boxarray_d_numpts(const bf_boxarray *ba);

/** AMReX's BoxArray::minimalBox: the smallest box containing every box,
 *  empty boxes included (their corners count like any other's), of the
 *  array's type.  With no box: AMReX's Box() in the array's type (lo = 1,
 *  hi = 0, or 1 in nodal directions). */
BF_EXPORT void bf_boxarray_minimal_box(const bf_boxarray *ba, bf_box *out);

/** Same dimension, type and boxes in the same order. */
BF_EXPORT bool bf_boxarray_equal(const bf_boxarray *a, const bf_boxarray *b);

/** Same dimension and size, and box i of `a` and of `b` have the same
 *  enclosed cells for every i (index types may differ). */
BF_EXPORT bool bf_boxarray_cell_equal(const bf_boxarray *a, const bf_boxarray *b);

/** *result = every box can be coarsened by `ratio` exactly (coarsen then
 *  refine gives it back) and each length is >= ratio[d] * min_width[d]
 *  (AMReX's Box::coarsenable).  An empty array is not coarsenable.
 *  ratio[d] >= 1 and min_width[d] >= 0 (dim ints each; 0 = no minimum),
 *  BF_ERROR_VALUE otherwise (AMReX takes a negative min_width, which every
 *  box satisfies). */
BF_EXPORT int bf_boxarray_coarsenable(const bf_boxarray *ba, const int *ratio, const int *min_width, bool *result);

/* ---- changing (copy on write, see above) ---------------------------------------- */

/** Reset to the single box `box` (its dimension must match: BF_ERROR_TYPE). */
BF_EXPORT int bf_boxarray_define(bf_boxarray **ba, const bf_box *box);

/** Remove all boxes; the index type becomes cell-centred (AMReX's clear()
 *  resets the whole BoxArray). */
BF_EXPORT int bf_boxarray_clear(bf_boxarray **ba);

/** Change the number of boxes to n >= 0 (BF_ERROR_VALUE otherwise); new
 *  boxes are AMReX's default Box() seen through the array's type: lo = 1,
 *  hi = 0 in cell and 1 in nodal directions (so a new box of a nodal array
 *  is one node, not empty, as in AMReX). */
BF_EXPORT int bf_boxarray_resize(bf_boxarray **ba, int64_t n);

/** Chop every box so that no side has more than n[d] cells in direction d
 *  (n: dim ints, each >= 1, BF_ERROR_VALUE otherwise), exactly as AMReX's
 *  BoxList::maxSize: a side of L > n[d] cells is cut into ceil(L / n[d])
 *  blocks after halving L and n[d] while both are even (each halving doubles
 *  the block unit); the first L' % k blocks are one unit longer.  E.g.
 *  14 cells with n = 6 give 6 + 4 + 4, 10 with n = 4 give 4 + 4 + 2,
 *  6 with n = 4 give 4 + 2, 7 with n = 3 give 3 + 2 + 2.  Pieces of one box
 *  follow each other in the array, direction 0 fastest.  In a nodal
 *  direction the enclosed cells are chopped and neighbouring pieces share
 *  their boundary node.  A box with nothing to chop is kept as it is; an
 *  empty box is chopped along its long sides like any other (AMReX does).
 *  BF_ERROR_OVERFLOW when the result would hold more than INT64_MAX boxes;
 *  BF_ERROR_MEMORY when it does not fit in memory. */
BF_EXPORT int bf_boxarray_max_size(bf_boxarray **ba, const int *n);

/** Refine every box by ratio (dim ints >= 1), see bf_box_refine.
 *  BF_ERROR_VALUE for a bad ratio, BF_ERROR_OVERFLOW past C int. */
BF_EXPORT int bf_boxarray_refine(bf_boxarray **ba, const int *ratio);

/** Coarsen every box by ratio (dim ints >= 1) with floor division. */
BF_EXPORT int bf_boxarray_coarsen(bf_boxarray **ba, const int *ratio);

/** Convert every box (and the array) to index type `type`. */
BF_EXPORT int bf_boxarray_convert(bf_boxarray **ba, unsigned type);

/** Make every box cell-centred in direction d (d < 0: in every direction);
 *  BF_ERROR_INDEX when d >= dim. */
BF_EXPORT int bf_boxarray_enclosed_cells(bf_boxarray **ba, int d);

/** Make every box nodal in direction d (d < 0: in every direction). */
BF_EXPORT int bf_boxarray_surrounding_nodes(bf_boxarray **ba, int d);

/** Grow every box: its low end by n_lo[d] and its high end by n_hi[d] in each
 *  direction d (dim ints each; negative shrinks).  Covers AMReX's
 *  BoxArray::grow(n), grow(iv), grow(dir, n), growLo and growHi.
 *  BF_ERROR_OVERFLOW past C int (nothing changes then). */
BF_EXPORT int bf_boxarray_grow(bf_boxarray **ba, const int *n_lo, const int *n_hi);

/** Translate every box by s (dim ints).  BF_ERROR_OVERFLOW past C int. */
BF_EXPORT int bf_boxarray_shift(bf_boxarray **ba, const int *s);

/* ---- intersection queries (hashed, see above) ------------------------------------- */

/** Result list of bf_boxarray_intersections: `count` pairs (index[k], box[k]),
 *  box[k] = box index[k] of the array & the query box, in increasing index
 *  order.  Zero-initialise one (`bf_isect_list l = {0};`), reuse it for many
 *  queries (its buffers grow as needed) and free it with bf_isect_list_free. */
typedef struct bf_isect_list {
  int64_t count;    /**< number of results */
  int64_t capacity; /**< allocated entries (private) */
  int64_t *index;   /**< box indices (ascending) */
  bf_box *box;      /**< the intersections */
} bf_isect_list;

/** Free the buffers of a list and zero it (NULL allowed). */
BF_EXPORT void bf_isect_list_free(bf_isect_list *list);

/** Fill `out` (previous content dropped) with every box of `ba` that meets
 *  `box` (non-empty intersection).  first_only: stop after one result (the
 *  lowest-index one is not guaranteed then).  `box` must have the array's
 *  dimension and index type (BF_ERROR_TYPE).  An empty `box` meets nothing. */
BF_EXPORT int bf_boxarray_intersections(const bf_boxarray *ba, const bf_box *box, bool first_only, bf_isect_list *out);

/** *result = some box of `ba` meets `box` (same rules as intersections). */
BF_EXPORT int bf_boxarray_intersects(const bf_boxarray *ba, const bf_box *box, bool *result);

/** *result = every point of `box` lies in some box of `ba` (the boxes may
 *  overlap; exact).  An empty `box` is not contained (as Box.contains). */
BF_EXPORT int bf_boxarray_contains(const bf_boxarray *ba, const bf_box *box, bool *result);

/** *result = the point p (dim ints) lies in some box of `ba`.  The point is
 *  taken in the array's own index space (its type). */
BF_EXPORT int bf_boxarray_contains_point(const bf_boxarray *ba, const int *p, bool *result);

#ifdef __cplusplus
}
#endif
#endif
