/* Private layout of bf_boxarray and helpers shared by src/core/boxarray*.c. */
#ifndef BOXFAB_BOXARRAY_IMPL_H
#define BOXFAB_BOXARRAY_IMPL_H

#include "boxfab/boxarray.h"
#include "base/object.h"

struct bf_boxarray_hash; /* spatial hash for queries (boxarray_query.c) */

struct bf_boxarray {
  bf_object obj;
  int dim;
  unsigned type; /* index type of every box (kept when empty) */
  int64_t n;
  int64_t capacity; /* AMReX's m_abox.capacity(), modelled on std::vector (see boxarray.c) */
  /* Bit d: AMReX's lazy coarsening ratio (BATransformer) is > 1 in direction
   * d.  boxfab applies coarsening at once, so this matters only for what
   * minimal_box() of an empty array returns (AMReX coarsens its Box() by the
   * pending ratio).  Set by coarsen, kept by convert, cleared by what calls
   * AMReX's uniqify() or resets the array. */
  unsigned pending_coarse;
  bf_box *boxes;
  struct bf_boxarray_hash *hash; /* built on first query; access with __atomic builtins */
};

/* A new BoxArray with n boxes of dimension dim (zeroed, dim set, cell type). */
int bf_boxarray_alloc(int dim, int64_t n, bf_boxarray **out);

/* Give *ba the `n` boxes `boxes` (malloc'ed, ownership taken in every case)
 * of index type `type`: in place when *ba is unshared, otherwise *ba is
 * replaced by a new array (copy on write).  Drops the cached hash.
 * `capacity` is the new capacity() (AMReX's vector capacity, a diagnostic);
 * BF_BOXARRAY_CAP_UNIQUIFY stands for what AMReX's in-place operations
 * (refine, grow, shift: BoxArray::uniqify then change m_abox) leave: the old
 * capacity when unshared, n when a copy had to be made. */
#define BF_BOXARRAY_CAP_UNIQUIFY (-1)
int bf_boxarray_install(bf_boxarray **ba, bf_box *boxes, int64_t n, unsigned type, int64_t capacity);

/* Clear pending_coarse of *ba (AMReX's uniqify() resets its coarsening
 * ratio), unsharing *ba first when needed. */
int bf_boxarray_uniqify(bf_boxarray **ba);

/* Drop the cached query hash (call after changing boxes of an unshared array). */
void bf_boxarray_invalidate(bf_boxarray *ba);

/* Free a hash (NULL allowed). */
void bf_boxarray_hash_free(struct bf_boxarray_hash *h);

/* AMReX's default Box() (lo = 1, hi = 0, cell) as a BoxArray of type `type`
 * shows it: converted to `type`, i.e. hi = 1 in nodal directions.  This is
 * what resize() appends and minimal_box() of an empty array returns. */
bf_box bf_boxarray_empty_box(int dim, unsigned type);

#endif
