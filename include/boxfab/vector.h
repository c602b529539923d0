/* boxfab — bf_vector: a growable array of one element kind (AMReX's Vector<T>
 * for the kinds Python sees: Real, int, Long, string, IntVect, BoxArray,
 * DistributionMapping, Geometry).
 *
 * One generic implementation: an element kind fixes the element size and how
 * an element is copied in (strings are duplicated, BoxArray and
 * DistributionMapping handles are retained), released and compared.
 *
 * Element layout in `data` (contiguous, `size` elements):
 *   BF_VECTOR_REAL     double            BF_VECTOR_INTVECT   bf_intvect
 *   BF_VECTOR_INT      int32_t           BF_VECTOR_BOXARRAY  bf_boxarray * (owned reference)
 *   BF_VECTOR_LONG     int64_t           BF_VECTOR_DISTMAP   bf_distmap *  (owned reference, may be NULL)
 *   BF_VECTOR_STRING   char * (owned, NUL terminated)
 *   BF_VECTOR_GEOMETRY bf_geometry      BF_VECTOR_BOX       bf_box
 * Functions that take elements (`elems`, `elem`) read them in this layout and
 * copy them in; the caller keeps ownership of what it passed.
 *
 * Zero-copy views: `data` may be handed to a reader (NumPy).  bf_vector_pin()
 * promises that the current block stays allocated until bf_vector_free(),
 * even when the vector later grows (the grown vector moves to a new block; the
 * old block is kept, no longer updated).  Shrinking never reallocates.
 *
 * The struct is a value owned by its holder; read the fields, change them only
 * through these functions.  Not thread-safe. */
#ifndef BOXFAB_VECTOR_H
#define BOXFAB_VECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boxfab/base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bf_vector_kind {
  BF_VECTOR_REAL = 0,
  BF_VECTOR_INT = 1,
  BF_VECTOR_LONG = 2,
  BF_VECTOR_STRING = 3,
  BF_VECTOR_INTVECT = 4,
  BF_VECTOR_BOXARRAY = 5,
  BF_VECTOR_DISTMAP = 6,
  BF_VECTOR_GEOMETRY = 7,
  BF_VECTOR_BOX = 8,
  BF_VECTOR_NKINDS = 9
} bf_vector_kind;

typedef struct bf_vector {
  int kind;              /**< bf_vector_kind */
  size_t elsize;         /**< bytes per element */
  int64_t size;          /**< number of elements */
  int64_t capacity;      /**< elements allocated in data (>= 1 once initialized) */
  void *data;            /**< never NULL once initialized */
  bool pinned;           /**< the current block must survive growth */
  int nretired;          /**< blocks kept alive for views (see bf_vector_pin) */
  void **retired;
} bf_vector;

/** Bytes per element of `kind`, 0 for an unknown kind. */
BF_EXPORT size_t bf_vector_elsize(int kind);

/** True when elements of `kind` can be compared (every kind but GEOMETRY). */
BF_EXPORT bool bf_vector_comparable(int kind);

/** Make *v an empty vector of `kind` (allocates a block of one element).
 *  BF_ERROR_VALUE for an unknown kind, BF_ERROR_MEMORY. *v need not be
 *  initialized before; on failure *v is left empty but valid to free. */
BF_EXPORT int bf_vector_init(bf_vector *v, int kind);

/** Release every element and every block; *v becomes zeroed (free again is a no-op). */
BF_EXPORT void bf_vector_free(bf_vector *v);

/** Pointer to element i (no check: 0 <= i < size). */
static inline void *bf_vector_at(const bf_vector *v, int64_t i) {
  return (char *)v->data + (size_t)i * v->elsize;
}

/** Make room for at least n elements (never shrinks). BF_ERROR_MEMORY. */
BF_EXPORT int bf_vector_reserve(bf_vector *v, int64_t n);

/** Keep the current block allocated until bf_vector_free (see the header comment). */
BF_EXPORT void bf_vector_pin(bf_vector *v);

/** Insert copies of `n` elements at position `at` (0 <= at <= size).
 *  `elems` may point into v itself.  BF_ERROR_INDEX, BF_ERROR_MEMORY; on
 *  failure v is unchanged. */
BF_EXPORT int bf_vector_insert(bf_vector *v, int64_t at, int64_t n, const void *elems);

/** Append one copy of *elem. */
BF_EXPORT int bf_vector_push(bf_vector *v, const void *elem);

/** Move all elements of `src` (same kind) to position `at` of v; src becomes
 *  empty (still initialized).  BF_ERROR_TYPE (kinds differ), BF_ERROR_INDEX,
 *  BF_ERROR_MEMORY; on failure both are unchanged. */
BF_EXPORT int bf_vector_take(bf_vector *v, int64_t at, bf_vector *src);

/** Replace element i by a copy of *elem (the old one is released).
 *  BF_ERROR_INDEX, BF_ERROR_MEMORY (v unchanged on failure). */
BF_EXPORT int bf_vector_set(bf_vector *v, int64_t i, const void *elem);

/** Replace the `n` elements start, start+step, ... by copies of elems[0..n).
 *  The positions must lie in [0, size) (BF_ERROR_INDEX); step != 0
 *  (BF_ERROR_VALUE).  All or nothing on BF_ERROR_MEMORY. */
BF_EXPORT int bf_vector_set_strided(bf_vector *v, int64_t start, int64_t step, int64_t n, const void *elems);

/** Remove the `n` elements start, start+step, ... (step != 0, positions in
 *  [0, size)), keeping the order of the others.  Never reallocates. */
BF_EXPORT int bf_vector_erase(bf_vector *v, int64_t start, int64_t step, int64_t n);

/** Remove every element (keeps the block). */
BF_EXPORT void bf_vector_clear(bf_vector *v);

/** *out = a new vector (initialized here) with copies of the `n` elements
 *  start, start+step, ...  Same errors as bf_vector_erase plus BF_ERROR_MEMORY. */
BF_EXPORT int bf_vector_slice(const bf_vector *v, int64_t start, int64_t step, int64_t n, bf_vector *out);

/** Element equality for comparable kinds: double ==, strcmp, IntVects equal,
 *  BoxArrays with the same boxes, DistributionMappings with the same ranks
 *  (NULL = empty).  False for GEOMETRY. */
BF_EXPORT bool bf_vector_element_equal(int kind, const void *a, const void *b);

/** *equal = same kind, same size, elements equal.  BF_ERROR_TYPE for GEOMETRY. */
BF_EXPORT int bf_vector_equal(const bf_vector *a, const bf_vector *b, bool *equal);

/** *index = first i >= start with element i equal to *elem, -1 when none.
 *  BF_ERROR_TYPE for GEOMETRY. */
BF_EXPORT int bf_vector_find(const bf_vector *v, const void *elem, int64_t start, int64_t *index);

/** *count = number of elements equal to *elem.  BF_ERROR_TYPE for GEOMETRY. */
BF_EXPORT int bf_vector_count(const bf_vector *v, const void *elem, int64_t *count);

#ifdef __cplusplus
}
#endif
#endif
