/* RealBox (see include/boxfab/geometry.h). */
#include <float.h>
#include <math.h>

#include "boxfab/geometry.h"

int bf_realbox_default(int dim, bf_realbox *rb) {
  BF_CHECK_DIM(dim);
  bf_realbox r = {.dim = dim};
  for (int d = 0; d < dim; ++d) r.lo[d] = 0.0, r.hi[d] = -1.0;
  *rb = r;
  return BF_SUCCESS;
}

int bf_realbox_define(int dim, const double *lo, const double *hi, bf_realbox *rb) {
  BF_CHECK_DIM(dim);
  bf_realbox r = {.dim = dim};
  for (int d = 0; d < dim; ++d) r.lo[d] = lo[d], r.hi[d] = hi[d];
  *rb = r;
  return BF_SUCCESS;
}

int bf_realbox_from_box(const bf_box *bx, const double *dx, const double *base, bf_realbox *rb) {
  BF_CHECK_DIM(bx->dim);
  bf_realbox r = {.dim = bx->dim};
  for (int d = 0; d < bx->dim; ++d) {
    int shift = (bx->type >> d) & 1u ? 0 : 1;
    r.lo[d] = base[d] + dx[d] * bx->lo[d];
    r.hi[d] = base[d] + dx[d] * ((double)bx->hi[d] + shift);
  }
  *rb = r;
  return BF_SUCCESS;
}

double bf_realbox_length(const bf_realbox *rb, int d) { return rb->hi[d] - rb->lo[d]; }

bool bf_realbox_ok(const bf_realbox *rb) {
  for (int d = 0; d < rb->dim; ++d)
    if (!(bf_realbox_length(rb, d) >= 0.0)) return false;
  return true;
}

double bf_realbox_volume(const bf_realbox *rb) {
  if (!bf_realbox_ok(rb)) return 0.0;
  double v = bf_realbox_length(rb, 0);
  for (int d = 1; d < rb->dim; ++d) v *= bf_realbox_length(rb, d);
  return v;
}

bool bf_realbox_contains_point(const bf_realbox *rb, const double *p, double eps) {
  for (int d = 0; d < rb->dim; ++d)
    if (!(rb->lo[d] - eps < p[d] && p[d] < rb->hi[d] + eps)) return false;
  return true;
}

bool bf_realbox_contains_box(const bf_realbox *rb, const bf_realbox *inner, double eps) {
  return rb->dim == inner->dim && bf_realbox_contains_point(rb, inner->lo, eps) &&
         bf_realbox_contains_point(rb, inner->hi, eps);
}

bool bf_realbox_intersects(const bf_realbox *a, const bf_realbox *b) {
  if (a->dim != b->dim) return false;
  for (int d = 0; d < a->dim; ++d)
    if (a->lo[d] > b->hi[d] || a->hi[d] < b->lo[d]) return false;
  return true;
}

/* amrex::almostEqual(x, y, ulp = 2) */
static bool almost_equal_ulp(double x, double y) {
  return fabs(x - y) <= DBL_EPSILON * fabs(x + y) * 2 || fabs(x - y) < DBL_MIN;
}

static bool corner_equal(double x, double y, double eps) { return fabs(x - y) <= eps || almost_equal_ulp(x, y); }

bool bf_realbox_almost_equal(const bf_realbox *a, const bf_realbox *b, double eps) {
  if (a->dim != b->dim) return false;
  for (int d = 0; d < a->dim; ++d)
    if (!(corner_equal(a->lo[d], b->lo[d], eps) && corner_equal(a->hi[d], b->hi[d], eps))) return false;
  return true;
}
