/* boxfab — IntVect: a point or vector of the integer index space.
 *
 * A plain value: `dim` (1, 2 or 3) components are meaningful, the others are
 * 0.  The inline helpers below never fail; arithmetic that can overflow C int
 * is checked where it is exposed (Box, Python operators). */
#ifndef BOXFAB_INTVECT_H
#define BOXFAB_INTVECT_H

#include <stdbool.h>

#include "boxfab/base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bf_intvect {
  int dim;                  /**< number of meaningful components, 1..3 */
  int v[BF_SPACEDIM_MAX];   /**< components; v[d] == 0 for d >= dim */
} bf_intvect;

/** An IntVect with all `dim` components equal to `value` (others 0). */
static inline bf_intvect bf_intvect_splat(int dim, int value) {
  bf_intvect r = {dim, {0, 0, 0}};
  for (int d = 0; d < dim; ++d) r.v[d] = value;
  return r;
}

/** Floor division (rounds toward minus infinity); `b` > 0. AMReX coarsening. */
static inline int bf_floor_div(int a, int b) {
  int q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

/** Components equal (dimension included). */
static inline bool bf_intvect_equal(const bf_intvect *a, const bf_intvect *b) {
  if (a->dim != b->dim) return false;
  for (int d = 0; d < a->dim; ++d)
    if (a->v[d] != b->v[d]) return false;
  return true;
}

/** Lexicographic compare, highest dimension most significant: -1, 0, 1. */
static inline int bf_intvect_compare(const bf_intvect *a, const bf_intvect *b) {
  for (int d = a->dim - 1; d >= 0; --d) {
    if (a->v[d] < b->v[d]) return -1;
    if (a->v[d] > b->v[d]) return 1;
  }
  return 0;
}

/** Coarsen a point by `ratio` (each > 0) with floor division. */
BF_EXPORT int bf_intvect_coarsen(bf_intvect *iv, const bf_intvect *ratio);

/** Component-wise arithmetic operators of bf_intvect_arith(). */
enum bf_intvect_op {
  BF_INTVECT_ADD = 0, /**< a + b */
  BF_INTVECT_SUB = 1, /**< a - b */
  BF_INTVECT_MUL = 2, /**< a * b */
  BF_INTVECT_DIV = 3  /**< a / b, C division: truncates toward zero */
};

/** out = a <op> b component-wise (`out` may alias `a` or `b`; it is written
 *  only on success).
 *  Errors: BF_ERROR_TYPE when a->dim != b->dim, BF_ERROR_VALUE for an unknown
 *  op or a zero divisor (the Python layer raises ZeroDivisionError before
 *  calling), BF_ERROR_OVERFLOW when a result does not fit in a C int. */
BF_EXPORT int bf_intvect_arith(bf_intvect *out, const bf_intvect *a, int op, const bf_intvect *b);

/** Refine (multiply) `iv` by `ratio` component-wise (same dim, each > 0);
 *  `iv` is unchanged on failure.
 *  Errors: BF_ERROR_TYPE dims differ, BF_ERROR_VALUE a ratio <= 0,
 *  BF_ERROR_OVERFLOW a product outside C int. */
BF_EXPORT int bf_intvect_refine(bf_intvect *iv, const bf_intvect *ratio);

/** Sum of the `dim` components (64-bit, never overflows). */
static inline int64_t bf_intvect_sum(const bf_intvect *a) {
  int64_t s = 0;
  for (int d = 0; d < a->dim; ++d) s += a->v[d];
  return s;
}

/** Largest of the `dim` components. */
static inline int bf_intvect_max(const bf_intvect *a) {
  int m = a->v[0];
  for (int d = 1; d < a->dim; ++d) m = a->v[d] > m ? a->v[d] : m;
  return m;
}

/** Smallest of the `dim` components. */
static inline int bf_intvect_min(const bf_intvect *a) {
  int m = a->v[0];
  for (int d = 1; d < a->dim; ++d) m = a->v[d] < m ? a->v[d] : m;
  return m;
}

/* ---- index type bits: bit d set = nodal in direction d ---------------------- */

/** The index type with every one of the `dim` directions nodal. */
static inline unsigned bf_indextype_all_nodal(int dim) { return (1u << dim) - 1u; }

/** The index type as an IntVect of 0 (cell) / 1 (node). */
static inline bf_intvect bf_indextype_to_intvect(int dim, unsigned type) {
  bf_intvect r = bf_intvect_splat(dim, 0);
  for (int d = 0; d < dim; ++d) r.v[d] = (int)((type >> d) & 1u);
  return r;
}

/** Valid index type of dimension `dim`: no bit at or above `dim`. */
static inline bool bf_indextype_ok(int dim, unsigned type) { return (type >> dim) == 0; }

#ifdef __cplusplus
}
#endif
#endif
