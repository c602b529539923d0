/* Periodicity (see include/boxfab/geometry.h). */
#include <limits.h>

#include "boxfab/geometry.h"

int bf_periodicity_define(int dim, const int *period, bf_periodicity *p) {
  BF_CHECK_DIM(dim);
  bf_periodicity r = {.dim = dim};
  for (int d = 0; d < dim; ++d) {
    BF_CHECK(period[d] >= 0, BF_ERROR_VALUE, "period length must be >= 0 (0 = not periodic), got %d in direction %d",
             period[d], d);
    r.period[d] = period[d];
  }
  *p = r;
  return BF_SUCCESS;
}

int bf_periodicity_non_periodic(int dim, bf_periodicity *p) {
  BF_CHECK_DIM(dim);
  *p = (bf_periodicity){.dim = dim};
  return BF_SUCCESS;
}

bool bf_periodicity_is_periodic(const bf_periodicity *p, int d) { return d >= 0 && d < p->dim && p->period[d] > 0; }

bool bf_periodicity_is_any_periodic(const bf_periodicity *p) {
  for (int d = 0; d < p->dim; ++d)
    if (p->period[d] > 0) return true;
  return false;
}

bool bf_periodicity_is_all_periodic(const bf_periodicity *p) {
  for (int d = 0; d < p->dim; ++d)
    if (p->period[d] <= 0) return false;
  return true;
}

bool bf_periodicity_equal(const bf_periodicity *a, const bf_periodicity *b) {
  if (a->dim != b->dim) return false;
  for (int d = 0; d < a->dim; ++d)
    if (a->period[d] != b->period[d]) return false;
  return true;
}

void bf_periodicity_domain(const bf_periodicity *p, bf_box *out) {
  bf_box b = {.dim = p->dim, .type = 0};
  for (int d = 0; d < p->dim; ++d) {
    if (p->period[d] > 0) {
      b.lo[d] = 0;
      b.hi[d] = p->period[d] - 1;
    } else {
      b.lo[d] = INT_MIN;
      b.hi[d] = INT_MAX - 1;
    }
  }
  *out = b;
}

void bf_periodicity_shifts(const bf_periodicity *p, bf_intvect *out, int *n) {
  int per[3] = {0, 0, 0}, jmp[3] = {1, 1, 1};
  for (int d = 0; d < p->dim; ++d)
    if (p->period[d] > 0) per[d] = jmp[d] = p->period[d];
  int k = 0;
  /* i, j, k step over -per, 0, +per (one value when per == 0); widen to long
   * long so that per near INT_MAX cannot overflow the loop variable. */
  for (long long i = -per[0]; i <= per[0]; i += jmp[0])
    for (long long j = -per[1]; j <= per[1]; j += jmp[1])
      for (long long l = -per[2]; l <= per[2]; l += jmp[2]) {
        bf_intvect s = bf_intvect_splat(p->dim, 0);
        long long c[3] = {i, j, l};
        for (int d = 0; d < p->dim; ++d) s.v[d] = (int)c[d];
        out[k++] = s;
      }
  *n = k;
}
