/* IntVect arithmetic with overflow checks (see include/boxfab/intvect.h).
 * bf_intvect_coarsen lives with the box algebra in box.c. */
#include <limits.h>

#include "boxfab/intvect.h"

static const char *const op_names[] = {"+", "-", "*", "/"};

int bf_intvect_arith(bf_intvect *out, const bf_intvect *a, int op, const bf_intvect *b) {
  BF_CHECK(a->dim == b->dim, BF_ERROR_TYPE, "IntVect dimensions differ (%d and %d)", a->dim, b->dim);
  BF_CHECK_DIM(a->dim);
  BF_CHECK(op >= BF_INTVECT_ADD && op <= BF_INTVECT_DIV, BF_ERROR_VALUE, "unknown IntVect operator %d", op);
  bf_intvect r = bf_intvect_splat(a->dim, 0);
  for (int d = 0; d < a->dim; ++d) {
    int x = a->v[d], y = b->v[d];
    bool overflow = false;
    switch (op) {
    case BF_INTVECT_ADD: overflow = __builtin_add_overflow(x, y, &r.v[d]); break;
    case BF_INTVECT_SUB: overflow = __builtin_sub_overflow(x, y, &r.v[d]); break;
    case BF_INTVECT_MUL: overflow = __builtin_mul_overflow(x, y, &r.v[d]); break;
    default:
      BF_CHECK(y != 0, BF_ERROR_VALUE, "IntVect division by zero in direction %d", d);
      overflow = (x == INT_MIN && y == -1);
      if (!overflow) r.v[d] = x / y;
      break;
    }
    BF_CHECK(!overflow, BF_ERROR_OVERFLOW, "IntVect %d %s %d in direction %d does not fit in a C int", x, op_names[op],
             y, d);
  }
  *out = r;
  return BF_SUCCESS;
}

int bf_intvect_refine(bf_intvect *iv, const bf_intvect *ratio) {
  BF_CHECK(iv->dim == ratio->dim, BF_ERROR_TYPE, "IntVect dimensions differ (%d and %d)", iv->dim, ratio->dim);
  BF_CHECK_DIM(iv->dim);
  for (int d = 0; d < iv->dim; ++d)
    BF_CHECK(ratio->v[d] > 0, BF_ERROR_VALUE, "refinement ratio must be positive, got %d in direction %d",
             ratio->v[d], d);
  bf_intvect r = *iv;
  for (int d = 0; d < iv->dim; ++d)
    BF_CHECK(!__builtin_mul_overflow(iv->v[d], ratio->v[d], &r.v[d]), BF_ERROR_OVERFLOW,
             "refining %d by %d in direction %d does not fit in a C int", iv->v[d], ratio->v[d], d);
  *iv = r;
  return BF_SUCCESS;
}
