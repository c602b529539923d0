/* boxfab — FArrayBox (bf_fab): the data of one Box, ncomp components.
 *
 * Layout as AMReX (Fortran order): x fastest, then y, z, component.  Element
 * (i, j, k, n) of a fab on box [lo, hi] is at
 *   data[(i - lo[0]) + (j - lo[1]) * jstride + (k - lo[2]) * kstride + n * nstride]
 * with, for owned fabs, jstride = nx, kstride = nx * ny, nstride = nx * ny * nz
 * (unused dimensions: index 0, lo 0, length 1).  Strides are in elements.
 *
 * A fab either owns its memory (a bf_buffer from an arena), views part of a
 * buffer it holds a reference to (the fabs of a MultiFab), or aliases
 * external memory with a release callback.  Reference counted:
 * create* gives a reference, retain adds one, destroy(&fab) drops it and
 * nulls the handle.  A view of the data (Array4, NumPy) should hold the
 * fab's buffer (bf_fab_buffer + bf_buffer_retain), so resize/clear/destroy of
 * the fab never frees memory a view still reads. */
#ifndef BOXFAB_FAB_H
#define BOXFAB_FAB_H

#include <stdbool.h>
#include <stdint.h>

#include "boxfab/arena.h"
#include "boxfab/base.h"
#include "boxfab/box.h"
#include "boxfab/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bf_fab bf_fab;

/** An empty fab of dimension dim (no data, 0 components, box AMReX's Box(): small end 1 and
 *  big end 0 in every direction); arena NULL = default. */
BF_EXPORT int bf_fab_create_empty(int dim, int dtype, bf_arena *arena, bf_fab **fab);

/** Allocate a fab on `box` (must be ok) with ncomp >= 1 components from
 *  `arena` (NULL = default).  Contents uninitialized.
 *  BF_ERROR_VALUE for a bad box/ncomp/dtype, BF_ERROR_MEMORY. */
BF_EXPORT int bf_fab_create(const bf_box *box, int ncomp, int dtype, bf_arena *arena, bf_fab **fab);

/** A fab aliasing external memory `ptr`.  `strides` (NULL = contiguous
 *  Fortran order) gives jstride, kstride, nstride in elements.  `release`
 *  (may be NULL) is called with `ctx` when the last holder of the memory goes. */
BF_EXPORT int bf_fab_create_alias(const bf_box *box, int ncomp, int dtype, void *ptr, const int64_t *strides,
                                  bf_release_fn release, void *ctx, bf_fab **fab);

/** A fab viewing `buffer` (a reference is taken) from byte `offset`, contiguous.
 *  BF_ERROR_VALUE when it does not fit in the buffer. */
BF_EXPORT int bf_fab_create_on_buffer(const bf_box *box, int ncomp, int dtype, bf_buffer *buffer, size_t offset,
                                      bf_fab **fab);

/** Reference counting: retain adds a reference and returns fab; destroy drops
 *  one and sets *fab to NULL (NULL allowed); refcount reads it. */
BF_EXPORT bf_fab *bf_fab_retain(bf_fab *fab);
BF_EXPORT void bf_fab_destroy(bf_fab **fab);
BF_EXPORT long bf_fab_refcount(const bf_fab *fab);

/** Reallocate on `box` with `ncomp` components from `arena` (NULL: keep the
 *  fab's arena).  The old memory is dropped (views keep it alive). */
BF_EXPORT int bf_fab_resize(bf_fab *fab, const bf_box *box, int ncomp, bf_arena *arena);

/** Drop the data (the fab becomes unallocated; the box is kept). */
BF_EXPORT void bf_fab_clear(bf_fab *fab);

/** Properties: the box, components, element type, points per component,
 *  whether data are allocated, and so on (never fail). */
BF_EXPORT bf_box bf_fab_box(const bf_fab *fab);
BF_EXPORT int bf_fab_ncomp(const bf_fab *fab);
BF_EXPORT int bf_fab_dtype(const bf_fab *fab);
BF_EXPORT bf_arena *bf_fab_arena(const bf_fab *fab);
/** Data pointer (element at the box's lo corner, component 0); NULL when unallocated. */
BF_EXPORT void *bf_fab_data(const bf_fab *fab);
/** Strides in elements: out[0] = jstride, out[1] = kstride, out[2] = nstride. */
BF_EXPORT void bf_fab_strides(const bf_fab *fab, int64_t out[3]);
/** Borrowed buffer holding the data (NULL when unallocated). */
BF_EXPORT bf_buffer *bf_fab_buffer(const bf_fab *fab);
BF_EXPORT bool bf_fab_is_allocated(const bf_fab *fab);
/** Points per component (0 when empty). */
BF_EXPORT int64_t bf_fab_num_pts(const bf_fab *fab);
/** Elements (num_pts * ncomp). */
BF_EXPORT int64_t bf_fab_size(const bf_fab *fab);
/** Bytes of the data (num_pts * ncomp * element size; 0 when unallocated). */
BF_EXPORT size_t bf_fab_n_bytes(const bf_fab *fab);
/** Bytes a fab of this dtype would use for `box` and `ncomp` >= 0 (0 for an
 *  empty box or ncomp 0, as AMReX's nBytes).  BF_ERROR_VALUE for ncomp < 0,
 *  BF_ERROR_OVERFLOW when the count does not fit in size_t. */
BF_EXPORT int bf_fab_n_bytes_box(const bf_fab *fab, const bf_box *box, int ncomp, size_t *nbytes);

/** Bytes of the data of `ncomp` components of `dtype` on `box` (numPts *
 *  ncomp * element size; 0 for an empty box): every byte count of mesh data
 *  (fabs, MultiFabs) goes through here.  BF_ERROR_OVERFLOW with a message
 *  naming the box when it does not fit in size_t, BF_ERROR_VALUE for ncomp < 0
 *  or a bad dtype. */
BF_EXPORT int bf_fab_bytes_of(const bf_box *box, int ncomp, int dtype, size_t *nbytes);
/** Bytes owned (allocated by the fab itself; 0 for aliases and views). */
BF_EXPORT size_t bf_fab_n_bytes_owned(const bf_fab *fab);

/** Offset in elements of point p (dim ints) component n from data();
 *  BF_ERROR_INDEX when outside the box or component range. */
BF_EXPORT int bf_fab_offset(const bf_fab *fab, const int *p, int n, int64_t *offset);

#ifdef __cplusplus
}
#endif
#endif
