/* Array4 views: index math, sub-views, strided copies. */
#include "bftest.h"

static void test_dtype_sizes_and_names(void) {
  BFT_CHECK(bf_dtype_size(BF_DTYPE_DOUBLE) == 8 && bf_dtype_size(BF_DTYPE_SHORT) == 2);
  BFT_CHECK(bf_dtype_size(BF_DTYPE_CDOUBLE) == 16 && bf_dtype_size(BF_DTYPE_CFLOAT) == 8);
  BFT_CHECK(bf_dtype_size(BF_DTYPE_LONGDOUBLE) == sizeof(long double));
  BFT_CHECK(bf_dtype_size(-1) == 0 && bf_dtype_size(BF_DTYPE_COUNT) == 0);
  BFT_CHECK(strcmp(bf_dtype_name(BF_DTYPE_ULONGLONG), "ulonglong") == 0);
  BFT_CHECK(strcmp(bf_dtype_name(99), "invalid") == 0);
}

static void test_init_layout_matches_amrex(void) {
  double buf[2 * 3 * 4 * 5];
  int64_t lo[3] = {-1, 2, 10}, hi[3] = {3, 6, 13}; /* extents 4, 4, 3 */
  bf_array4 a;
  double big[4 * 4 * 3 * 2];
  BFT_OK(bf_array4_init(&a, big, BF_DTYPE_DOUBLE, lo, hi, 2));
  BFT_CHECK(a.istride == 1 && a.jstride == 4 && a.kstride == 16 && a.nstride == 48);
  BFT_CHECK(bf_array4_size(&a) == 96 && bf_array4_is_contiguous(&a));
  /* brute force: every (i, j, k, n) maps to the AMReX formula and all offsets are distinct */
  int seen[96] = {0};
  for (int n = 0; n < 2; ++n)
    for (int64_t k = lo[2]; k < hi[2]; ++k)
      for (int64_t j = lo[1]; j < hi[1]; ++j)
        for (int64_t i = lo[0]; i < hi[0]; ++i) {
          int64_t off;
          BFT_OK(bf_array4_index(&a, i, j, k, n, &off));
          int64_t expect = (i - lo[0]) + (j - lo[1]) * 4 + (k - lo[2]) * 16 + n * 48;
          BFT_CHECK(off == expect);
          if (off >= 0 && off < 96) seen[off]++;
        }
  int all_once = 1;
  for (int q = 0; q < 96; ++q) all_once &= seen[q] == 1;
  BFT_CHECK(all_once);
  (void)buf;
}

static void test_index_out_of_range(void) {
  int v[8];
  int64_t lo[3] = {0, 0, 0}, hi[3] = {2, 2, 2};
  bf_array4 a;
  int64_t off;
  BFT_OK(bf_array4_init(&a, v, BF_DTYPE_INT, lo, hi, 1));
  BFT_FAILS(bf_array4_index(&a, 2, 0, 0, 0, &off), BF_ERROR_INDEX);
  BFT_FAILS(bf_array4_index(&a, -1, 0, 0, 0, &off), BF_ERROR_INDEX);
  BFT_FAILS(bf_array4_index(&a, 0, 0, 0, 1, &off), BF_ERROR_INDEX);
  BFT_FAILS(bf_array4_index(&a, 0, 0, 0, -1, &off), BF_ERROR_INDEX);
  BFT_CHECK(bf_array4_contains(&a, 1, 1, 1) && !bf_array4_contains(&a, 1, 2, 1));
}

static void test_bad_views_rejected(void) {
  bf_array4 a;
  int64_t lo[3] = {0, 0, 0}, hi[3] = {2, -1, 2};
  double x;
  BFT_FAILS(bf_array4_init(&a, &x, BF_DTYPE_DOUBLE, lo, hi, 1), BF_ERROR_VALUE);
  int64_t hi2[3] = {1, 1, 1};
  BFT_FAILS(bf_array4_init(&a, &x, BF_DTYPE_DOUBLE, lo, hi2, -1), BF_ERROR_VALUE);
  BFT_FAILS(bf_array4_init(&a, &x, 42, lo, hi2, 1), BF_ERROR_VALUE);
  BFT_FAILS(bf_array4_init(&a, NULL, BF_DTYPE_DOUBLE, lo, hi2, 1), BF_ERROR_VALUE);
  BFT_OK(bf_array4_init(&a, NULL, BF_DTYPE_DOUBLE, lo, hi2, 0)); /* empty: no data needed */
  /* counts and spans that do not fit in 64 bits (an imported (2**40, 2**40) had size 0) */
  bf_array4 h = bf_array4_empty(BF_DTYPE_DOUBLE);
  h.p = &x, h.ncomp = 1, h.end[0] = h.end[1] = (int64_t)1 << 40, h.end[2] = 1;
  h.istride = 1, h.jstride = (int64_t)1 << 40;
  BFT_FAILS(bf_array4_check(&h), BF_ERROR_OVERFLOW);
  h.end[1] = (int64_t)1 << 20, h.jstride = (int64_t)1 << 40; /* 2^60 elements but 2^63 bytes */
  BFT_FAILS(bf_array4_check(&h), BF_ERROR_OVERFLOW);
  h.end[0] = h.end[1] = 2, h.jstride = INT64_MAX / 4; /* few elements, a stride reaching past 2^63 bytes */
  BFT_FAILS(bf_array4_check(&h), BF_ERROR_OVERFLOW);
  h.jstride = INT64_MIN;
  BFT_FAILS(bf_array4_check(&h), BF_ERROR_OVERFLOW);
  h.jstride = -2;
  BFT_OK(bf_array4_check(&h));
  h.begin[0] = INT64_MIN, h.end[0] = INT64_MAX;
  BFT_FAILS(bf_array4_check(&h), BF_ERROR_OVERFLOW);
  bf_array4 e = bf_array4_empty(BF_DTYPE_FLOAT);
  BFT_OK(bf_array4_check(&e));
  BFT_CHECK(bf_array4_size(&e) == 0);
}

static void test_subview(void) {
  float v[3 * 8];
  int64_t lo[3] = {0, 0, 0}, hi[3] = {2, 2, 2};
  bf_array4 a, s;
  BFT_OK(bf_array4_init(&a, v, BF_DTYPE_FLOAT, lo, hi, 3));
  BFT_OK(bf_array4_subview(&a, 1, 2, &s));
  BFT_CHECK(s.ncomp == 2 && (float *)s.p == v + 8 && s.nstride == 8);
  BFT_OK(bf_array4_subview(&a, 2, 1, &s));
  BFT_CHECK((float *)s.p == v + 16);
  BFT_FAILS(bf_array4_subview(&a, 3, 1, &s), BF_ERROR_INDEX);
  BFT_FAILS(bf_array4_subview(&a, -1, 1, &s), BF_ERROR_INDEX);
  BFT_FAILS(bf_array4_subview(&a, 1, 3, &s), BF_ERROR_INDEX);
  BFT_FAILS(bf_array4_subview(&a, 1, 0, &s), BF_ERROR_VALUE);
}

static void test_strided_copy_against_brute_force(void) {
  /* source: a transposed, reversed-in-x view of a (k, j, i) block of shorts */
  enum { NX = 5, NY = 3, NZ = 2, NC = 2 };
  short src[NC * NZ * NY * NX * 2];
  for (int q = 0; q < (int)(sizeof src / sizeof src[0]); ++q) src[q] = (short)(q * 7 - 100);
  bf_array4 s = bf_array4_empty(BF_DTYPE_SHORT);
  s.ncomp = NC;
  s.begin[0] = 3, s.begin[1] = -2, s.begin[2] = 0;
  s.end[0] = 3 + NX, s.end[1] = -2 + NY, s.end[2] = NZ;
  s.istride = -2;                      /* every other element, backwards */
  s.jstride = 2 * NX;
  s.kstride = 2 * NX * NY;
  s.nstride = 2 * NX * NY * NZ;
  s.p = src + 2 * (NX - 1);            /* element (begin, 0) */
  short out[NC * NZ * NY * NX];
  BFT_OK(bf_array4_copy_to_buffer(&s, out));
  int ok = 1;
  int q = 0;
  for (int n = 0; n < NC; ++n)
    for (int k = 0; k < NZ; ++k)
      for (int j = 0; j < NY; ++j)
        for (int i = 0; i < NX; ++i, ++q) {
          int64_t off = bf_array4_offset(&s, s.begin[0] + i, s.begin[1] + j, k, n);
          ok &= out[q] == ((short *)s.p)[off];
          ok &= out[q] == src[2 * (NX - 1) - 2 * i + j * 2 * NX + k * 2 * NX * NY + n * 2 * NX * NY * NZ];
        }
  BFT_CHECK(ok);
  /* copy back into a strided destination and compare element by element */
  short back[NC * NZ * NY * NX * 2] = {0};
  bf_array4 d = s;
  d.p = back + 2 * (NX - 1);
  BFT_OK(bf_array4_copy(&d, &s));
  ok = 1;
  for (int n = 0; n < NC; ++n)
    for (int k = 0; k < NZ; ++k)
      for (int j = 0; j < NY; ++j)
        for (int i = 0; i < NX; ++i) {
          int64_t off = bf_array4_offset(&s, s.begin[0] + i, s.begin[1] + j, k, n);
          ok &= ((short *)d.p)[off] == ((short *)s.p)[off];
        }
  BFT_CHECK(ok);
  BFT_CHECK(!bf_array4_is_contiguous(&s));
}

static void test_copy_mismatch(void) {
  double a[8], b[8];
  int c[8];
  int64_t lo[3] = {0, 0, 0}, hi[3] = {2, 2, 2}, hi2[3] = {2, 2, 1};
  bf_array4 x, y, z, w;
  BFT_OK(bf_array4_init(&x, a, BF_DTYPE_DOUBLE, lo, hi, 1));
  BFT_OK(bf_array4_init(&y, b, BF_DTYPE_DOUBLE, lo, hi2, 1));
  BFT_OK(bf_array4_init(&z, c, BF_DTYPE_INT, lo, hi, 1));
  BFT_OK(bf_array4_init(&w, b, BF_DTYPE_DOUBLE, lo, hi2, 2));
  BFT_FAILS(bf_array4_copy(&x, &y), BF_ERROR_VALUE);
  BFT_FAILS(bf_array4_copy(&x, &z), BF_ERROR_TYPE);
  BFT_FAILS(bf_array4_copy(&x, &w), BF_ERROR_VALUE);
  for (int q = 0; q < 8; ++q) a[q] = q + 0.5;
  bf_array4 x2 = x;
  x2.begin[0] = 10, x2.end[0] = 12; /* begin may differ */
  x2.p = b;
  BFT_OK(bf_array4_copy(&x2, &x));
  BFT_CHECK(memcmp(a, b, sizeof a) == 0);
}

int main(void) {
  BFT_RUN(test_dtype_sizes_and_names);
  BFT_RUN(test_init_layout_matches_amrex);
  BFT_RUN(test_index_out_of_range);
  BFT_RUN(test_bad_views_rejected);
  BFT_RUN(test_subview);
  BFT_RUN(test_strided_copy_against_brute_force);
  BFT_RUN(test_copy_mismatch);
  return bft_report();
}
