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

#ifdef __cplusplus
}
#endif
#endif
