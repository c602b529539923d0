/* boxfab — Array4: a non-owning 4-D view (i, j, k, n) of mesh data.
 *
 * AMReX's Array4 addresses element (i, j, k, n) of a box [begin, end) as
 *   p[(i-begin.x)*istride + (j-begin.y)*jstride + (k-begin.z)*kstride + n*nstride]
 * with strides in elements.  Arrays made by boxfab have istride = 1,
 * jstride = nx, kstride = nx*ny, nstride = nx*ny*nz; views of foreign arrays
 * may have any strides (also zero or negative ones).  `p` points at element
 * (begin.x, begin.y, begin.z, 0).  Always three spatial directions, also in
 * 1D and 2D (unused directions have begin 0 and end 1).
 *
 * A bf_array4 is a plain value: it owns nothing.  Whoever makes one keeps the
 * memory alive while it is used (the Python layer holds the owner object). */
#ifndef BOXFAB_ARRAY4_H
#define BOXFAB_ARRAY4_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boxfab/base.h"
#include "boxfab/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bf_array4 {
  void *p;            /**< element (begin, 0); may be NULL only when the view is empty */
  int dtype;          /**< a bf_dtype */
  int ncomp;          /**< number of components, >= 0 */
  int64_t begin[3];   /**< first index in each direction */
  int64_t end[3];     /**< one past the last index (end >= begin) */
  int64_t istride, jstride, kstride, nstride; /**< strides in elements (any sign) */
} bf_array4;

/** An empty view: no data, no components, begin = end = 0. */
static inline bf_array4 bf_array4_empty(int dtype) {
  bf_array4 a = {NULL, dtype, 0, {0, 0, 0}, {0, 0, 0}, 0, 0, 0, 0};
  return a;
}

/** Extent in direction d (0, 1, 2). */
static inline int64_t bf_array4_length(const bf_array4 *a, int d) { return a->end[d] - a->begin[d]; }

/** Number of elements, all components included. */
static inline int64_t bf_array4_size(const bf_array4 *a) {
  return bf_array4_length(a, 0) * bf_array4_length(a, 1) * bf_array4_length(a, 2) * (int64_t)a->ncomp;
}

/** True when (i, j, k) lies in [begin, end). */
static inline bool bf_array4_contains(const bf_array4 *a, int64_t i, int64_t j, int64_t k) {
  return i >= a->begin[0] && i < a->end[0] && j >= a->begin[1] && j < a->end[1] && k >= a->begin[2] &&
         k < a->end[2];
}

/** Offset in elements from `p` of (i, j, k, n); no bounds check. */
static inline int64_t bf_array4_offset(const bf_array4 *a, int64_t i, int64_t j, int64_t k, int64_t n) {
  return (i - a->begin[0]) * a->istride + (j - a->begin[1]) * a->jstride + (k - a->begin[2]) * a->kstride +
         n * a->nstride;
}

/** A view of contiguous AMReX-layout memory `p` (may be NULL only when the
 *  box is empty or ncomp is 0) over [begin, end) with `ncomp` components.
 *  Errors: BF_ERROR_VALUE for a bad dtype, ncomp < 0 or end < begin. */
BF_EXPORT int bf_array4_init(bf_array4 *a, void *p, int dtype, const int64_t begin[3], const int64_t end[3],
                             int ncomp);

/** Validate a view filled by hand (dtype, ncomp >= 0, end >= begin, p set
 *  when not empty).  BF_ERROR_VALUE with the reason otherwise. */
BF_EXPORT int bf_array4_check(const bf_array4 *a);

/** Checked offset of (i, j, k, n): BF_ERROR_INDEX when outside the view. */
BF_EXPORT int bf_array4_index(const bf_array4 *a, int64_t i, int64_t j, int64_t k, int64_t n, int64_t *offset);

/** `out` = components [start, start+num) of `a` (out may alias a).
 *  Errors: BF_ERROR_INDEX when start is not in [0, ncomp) or start+num > ncomp;
 *  BF_ERROR_VALUE when num < 1. */
BF_EXPORT int bf_array4_subview(const bf_array4 *a, int start, int num, bf_array4 *out);

/** True when the view has the AMReX layout (istride 1, jstride nx, kstride
 *  nx*ny, nstride nx*ny*nz), i.e. it covers one contiguous block in (n,k,j,i)
 *  C order. */
BF_EXPORT bool bf_array4_is_contiguous(const bf_array4 *a);

/** Copy the elements of `src` into `dst`, element by element at the same
 *  relative position (any strides on either side).  The two must have the same
 *  dtype, extents and ncomp (begin may differ) and must not overlap.
 *  Errors: BF_ERROR_TYPE for different dtypes, BF_ERROR_VALUE for different
 *  shapes. */
BF_EXPORT int bf_array4_copy(const bf_array4 *dst, const bf_array4 *src);

/** Copy all elements of `src` into `buf` in C order (n, k, j, i), i fastest:
 *  `buf` must hold bf_array4_size(src) * bf_dtype_size(src->dtype) bytes. */
BF_EXPORT int bf_array4_copy_to_buffer(const bf_array4 *src, void *buf);

#ifdef __cplusplus
}
#endif
#endif
