/* RealVect helpers (see include/boxfab/geometry.h). */
#include <limits.h>
#include <math.h>

#include "boxfab/geometry.h"

int bf_realvect_binop(int dim, int op, const double *a, const double *b, double *out) {
  BF_CHECK_DIM(dim);
  for (int d = 0; d < dim; ++d) {
    double x = a[d], y = b[d];
    switch (op) {
    case BF_RV_ADD: out[d] = x + y; break;
    case BF_RV_SUB: out[d] = x - y; break;
    case BF_RV_MUL: out[d] = x * y; break;
    case BF_RV_DIV: out[d] = x / y; break;
    case BF_RV_MIN: out[d] = y < x ? y : x; break;
    case BF_RV_MAX: out[d] = y > x ? y : x; break;
    default: BF_ERROR(BF_ERROR_VALUE, "unknown RealVect operation %d", op);
    }
  }
  return BF_SUCCESS;
}

/* Sums start from the first term, not 0.0, as AMReX's AMREX_D_TERM sums do
 * (0.0 + -0.0 would be +0.0). */
double bf_realvect_dot(int dim, const double *a, const double *b) {
  double s = a[0] * b[0];
  for (int d = 1; d < dim; ++d) s += a[d] * b[d];
  return s;
}

int bf_realvect_cross(int dim, const double *a, const double *b, double *out) {
  BF_CHECK(dim == 3, BF_ERROR_VALUE, "the cross product needs 3 dimensions, got %d", dim);
  double r[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
  for (int d = 0; d < 3; ++d) out[d] = r[d];
  return BF_SUCCESS;
}

double bf_realvect_sum(int dim, const double *a) {
  double s = a[0];
  for (int d = 1; d < dim; ++d) s += a[d];
  return s;
}

double bf_realvect_product(int dim, const double *a) {
  double p = 1.0;
  for (int d = 0; d < dim; ++d) p *= a[d];
  return p;
}

double bf_realvect_rad_squared(int dim, const double *a) { return bf_realvect_dot(dim, a, a); }

double bf_realvect_length(int dim, const double *a) { return sqrt(bf_realvect_rad_squared(dim, a)); }

int bf_realvect_min_dir(int dim, const double *a, bool use_abs) {
  int m = 0;
  for (int d = 1; d < dim; ++d)
    if (use_abs ? fabs(a[d]) < fabs(a[m]) : a[d] < a[m]) m = d;
  return m;
}

int bf_realvect_max_dir(int dim, const double *a, bool use_abs) {
  int m = 0;
  for (int d = 1; d < dim; ++d)
    if (use_abs ? fabs(a[d]) > fabs(a[m]) : a[d] > a[m]) m = d;
  return m;
}

bool bf_realvect_all_lt(int dim, const double *a, const double *b) {
  for (int d = 0; d < dim; ++d)
    if (!(a[d] < b[d])) return false;
  return true;
}

bool bf_realvect_all_le(int dim, const double *a, const double *b) {
  for (int d = 0; d < dim; ++d)
    if (!(a[d] <= b[d])) return false;
  return true;
}

bool bf_realvect_equal(int dim, const double *a, const double *b) {
  for (int d = 0; d < dim; ++d)
    if (!(a[d] == b[d])) return false;
  return true;
}

int bf_realvect_to_intvect(int dim, const double *a, int mode, bf_intvect *out) {
  BF_CHECK_DIM(dim);
  bf_intvect r = bf_intvect_splat(dim, 0);
  for (int d = 0; d < dim; ++d) {
    double x;
    switch (mode) {
    case BF_ROUND_FLOOR: x = floor(a[d]); break;
    case BF_ROUND_CEIL: x = ceil(a[d]); break;
    case BF_ROUND_NEAREST: x = round(a[d]); break;
    default: BF_ERROR(BF_ERROR_VALUE, "unknown rounding mode %d", mode);
    }
    BF_CHECK(!isnan(x), BF_ERROR_VALUE, "cannot round NaN (component %d) to an int", d);
    BF_CHECK(x >= (double)INT_MIN && x <= (double)INT_MAX, BF_ERROR_OVERFLOW,
             "component %d = %g does not fit in a C int after rounding", d, a[d]);
    r.v[d] = (int)x;
  }
  *out = r;
  return BF_SUCCESS;
}
