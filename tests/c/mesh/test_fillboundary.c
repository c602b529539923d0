/* Ghost exchange against brute-force references: fill_boundary (periodic,
 * non-periodic, cross, fewer layers, component ranges), parallel_copy between
 * different BoxArrays, sum_boundary, override_sync, average_sync, plan cache. */
#include <limits.h>

#include "mftest.h"

#define SENT (-999.0)
#define N 16

static double f(const int *p, int n, int dim, bool periodic) {
  int q[3];
  for (int d = 0; d < 3; ++d) q[d] = (periodic && d < dim) ? ((p[d] % N) + N) % N : p[d];
  return q[0] + 100.0 * q[1] + 10000.0 * q[2] + 0.5 * n;
}

static bool in_domain(const int *p, int dim) {
  for (int d = 0; d < dim; ++d)
    if (p[d] < 0 || p[d] >= N) return false;
  return true;
}

/* valid cells = f, ghosts = SENT */
static void init_valid(bf_multifab *mf) {
  int dim = bf_multifab_dim(mf);
  for (int64_t li = 0; li < bf_multifab_nlocal(mf); ++li) {
    bf_mf_fab fb;
    bf_multifab_local_fab(mf, li, &fb);
    for (int n = 0; n < bf_multifab_ncomp(mf); ++n)
      FOR_BOX(fb.fabbox, p) mf_put(mf, li, p, n, in_box(&fb.validbox, p) ? f(p, n, dim, false) : SENT);
  }
}

/* cross = true fills the corners too: AMReX drops corner pieces only from the
 * copies between processes (AMReX_FabArrayBase.cpp, define_fb_metadata), so on
 * one process cross and non-cross exchanges give the same values. */
static int check_fb(int dim, bf_boxarray *ba, int ngrow, int ng, bool periodic, bool cross, int scomp, int ncomp) {
  bf_multifab *mf = make_mf(ba, 3, ngrow, BF_DTYPE_DOUBLE);
  init_valid(mf);
  bf_periodicity per = {dim, {N, dim > 1 ? N : 0, dim > 2 ? N : 0}};
  BFT_OK(bf_multifab_fill_boundary(mf, scomp, ncomp, iv3(dim, ng, ng, ng), periodic ? &per : NULL, cross));
  int bad = 0;
  for (int64_t li = 0; li < bf_multifab_nlocal(mf); ++li) {
    bf_mf_fab fb;
    bf_multifab_local_fab(mf, li, &fb);
    bf_box sel = fb.validbox;
    bf_box_grow(&sel, iv3(dim, ng, ng, ng).v);
    for (int n = 0; n < 3; ++n)
      FOR_BOX(fb.fabbox, p) {
        double v = mf_get(mf, li, p, n), e;
        if (in_box(&fb.validbox, p)) e = f(p, n, dim, false);
        else if (n < scomp || n >= scomp + ncomp || !in_box(&sel, p)) /* cross: see check_fb's comment */
          e = SENT;
        else if (periodic || in_domain(p, dim)) e = f(p, n, dim, periodic);
        else e = SENT;
        bad += v != e;
      }
  }
  bf_multifab_destroy(&mf);
  return bad;
}

static bf_boxarray *irregular(int dim) {
  /* boxes of different sizes covering [0, 16)^dim: x cut at 5 and 11, y at 7, z at 3 */
  int cx[4] = {0, 5, 11, 16}, cy[3] = {0, 7, 16}, cz[3] = {0, 3, 16};
  bf_box boxes[18];
  int m = 0;
  for (int c = 0; c < (dim > 2 ? 2 : 1); ++c)
    for (int b = 0; b < (dim > 1 ? 2 : 1); ++b)
      for (int a = 0; a < 3; ++a)
        boxes[m++] = mkbox(dim, cx[a], cy[b], cz[c], cx[a + 1] - 1, cy[b + 1] - 1, cz[c + 1] - 1, 0);
  bf_boxarray *ba = NULL;
  bf_boxarray_create_from_boxes(dim, m, boxes, &ba);
  return ba;
}

static void test_fill_boundary(void) {
  for (int dim = 1; dim <= 3; ++dim) {
    bf_boxarray *bas[2] = {chop_domain(dim, N, 8, 0), irregular(dim)};
    for (int b = 0; b < 2; ++b)
      for (int periodic = 0; periodic < 2; ++periodic)
        for (int cross = 0; cross < 2; ++cross) {
          int bad = check_fb(dim, bas[b], 2, 2, periodic, cross, 0, 3);
          bad += check_fb(dim, bas[b], 3, 1, periodic, cross, 1, 2);
          bad += check_fb(dim, bas[b], 2, 2, periodic, cross, 2, 1);
          if (bad) fprintf(stderr, "fill_boundary dim %d ba %d periodic %d cross %d: %d bad\n", dim, b, periodic, cross, bad);
          BFT_CHECK(bad == 0);
        }
    /* one box covering the whole periodic domain: its own images fill its ghosts */
    bf_box whole = mkbox(dim, 0, 0, 0, N - 1, N - 1, N - 1, 0);
    bf_boxarray *one = NULL;
    bf_boxarray_create_from_boxes(dim, 1, &whole, &one);
    BFT_CHECK(check_fb(dim, one, 2, 2, true, false, 0, 3) == 0);
    bf_boxarray_destroy(&one);
    bf_boxarray_destroy(&bas[0]), bf_boxarray_destroy(&bas[1]);
  }
}

static void test_fill_boundary_errors_and_cache(void) {
  bf_boxarray *ba = chop_domain(3, N, 8, 0);
  bf_multifab *mf = make_mf(ba, 2, 1, BF_DTYPE_DOUBLE), *mf2 = NULL;
  bf_intvect g1 = iv3(3, 1, 1, 1);
  BFT_OK(bf_multifab_create(ba, bf_multifab_distmap(mf), 1, g1, BF_DTYPE_DOUBLE, NULL, true, &mf2));
  bf_multifab_set_val_all(mf2, 0);
  BFT_FAILS(bf_multifab_fill_boundary(mf, 1, 2, g1, NULL, false), BF_ERROR_INDEX);
  BFT_FAILS(bf_multifab_fill_boundary(mf, 0, 1, iv3(3, 2, 1, 1), NULL, false), BF_ERROR_INDEX);
  bf_periodicity p2 = {2, {N, N, 0}};
  BFT_FAILS(bf_multifab_fill_boundary(mf, 0, 1, g1, &p2, false), BF_ERROR_TYPE);
  bf_plan_cache_clear();
  BFT_CHECK(bf_plan_cache_size() == 0);
  bf_multifab_set_val_all(mf, 0);
  BFT_OK(bf_multifab_fill_boundary(mf, 0, 2, g1, NULL, false));
  BFT_CHECK(bf_plan_cache_size() == 1);
  BFT_OK(bf_multifab_fill_boundary(mf, 0, 1, g1, NULL, false));  /* same plan, other comps */
  BFT_OK(bf_multifab_fill_boundary(mf2, 0, 1, g1, NULL, false)); /* same BoxArray and DM */
  BFT_CHECK(bf_plan_cache_size() == 1);
  BFT_OK(bf_multifab_fill_boundary(mf, 0, 1, g1, NULL, true)); /* cross: the same copies on one process */
  BFT_CHECK(bf_plan_cache_size() == 1);
  bf_periodicity p3 = {3, {N, N, N}};
  BFT_OK(bf_multifab_fill_boundary(mf, 0, 1, g1, &p3, false));
  BFT_CHECK(bf_plan_cache_size() == 2);
  /* the cache holds its own references (dst and src BoxArray per entry) */
  long rc = bf_boxarray_refcount(ba);
  bf_plan_cache_clear();
  BFT_CHECK(bf_boxarray_refcount(ba) == rc - 4 &&  bf_plan_cache_size() == 0);
  /* bounded */
  bf_multifab *big = make_mf(ba, 1, 3, BF_DTYPE_DOUBLE);
  bf_multifab_set_val_all(big, 0);
  for (int i = 0; i < BF_PLAN_CACHE_SIZE + 5; ++i) {
    bf_periodicity p = {3, {N + i, 0, 0}};
    BFT_OK(bf_multifab_fill_boundary(big, 0, 1, iv3(3, 1, 1, 1), &p, false));
  }
  BFT_CHECK(bf_plan_cache_size() == BF_PLAN_CACHE_SIZE);
  bf_plan_cache_clear();
  /* a period the data spans more than twice is refused, by every exchange and unique reduction
   * (period 1 built ~(2N)^3 shifts per ghost region before); two periods are still served */
  bf_periodicity tiny = {3, {1, 1, 1}}, half = {3, {N / 2, 0, 0}}, third = {3, {N / 3, 0, 0}};
  double r;
  BFT_FAILS(bf_multifab_fill_boundary(big, 0, 1, g1, &tiny, false), BF_ERROR_VALUE);
  BFT_FAILS(bf_multifab_fill_boundary(big, 0, 1, g1, &third, true), BF_ERROR_VALUE);
  BFT_FAILS(bf_multifab_sum_boundary(big, 0, 1, g1, iv3(3, 0, 0, 0), &tiny), BF_ERROR_VALUE);
  BFT_FAILS(bf_multifab_parallel_copy(big, mf, 0, 0, 1, g1, g1, &tiny), BF_ERROR_VALUE);
  BFT_FAILS(bf_multifab_override_sync(big, 0, 1, &tiny), BF_ERROR_VALUE);
  BFT_FAILS(bf_multifab_average_sync(big, 0, 1, &tiny), BF_ERROR_VALUE);
  BFT_FAILS(bf_multifab_sum_unique(big, NULL, 0, false, &tiny, &r), BF_ERROR_VALUE);
  BFT_FAILS(bf_multifab_norm2(big, 0, &tiny, &r), BF_ERROR_VALUE);
  BFT_CHECK(bf_plan_cache_size() == 0);
  BFT_OK(bf_multifab_fill_boundary(big, 0, 1, g1, &half, false));
  bf_multifab_destroy(&big);
  bf_multifab_destroy(&mf), bf_multifab_destroy(&mf2), bf_boxarray_destroy(&ba);
}

static void test_parallel_copy(void) {
  for (int dim = 1; dim <= 3; ++dim) {
    bf_boxarray *sba = chop_domain(dim, N, 8, 0);
    /* dst boxes straddle the domain boundary and have other sizes */
    bf_box db[3] = {mkbox(dim, -2, -3, -1, 5, 6, 4, 0), mkbox(dim, 6, 0, 0, 17, 9, 15, 0),
                    mkbox(dim, 3, 10, 5, 9, 19, 9, 0)};
    bf_boxarray *dba = NULL;
    bf_boxarray_create_from_boxes(dim, 3, db, &dba);
    bf_multifab *src = make_mf(sba, 2, 1, BF_DTYPE_DOUBLE), *dst = make_mf(dba, 3, 1, BF_DTYPE_DOUBLE);
    bf_periodicity per = {dim, {N, dim > 1 ? N : 0, dim > 2 ? N : 0}};
    for (int periodic = 0; periodic < 2; ++periodic)
      for (int dng = 0; dng <= 1; ++dng) {
        init_valid(src);
        bf_multifab_set_val_all(dst, SENT);
        BFT_OK(bf_multifab_parallel_copy(dst, src, 1, 2, 1, iv3(dim, 0, 0, 0), iv3(dim, dng, dng, dng),
                                         periodic ? &per : NULL));
        int bad = 0;
        for (int64_t li = 0; li < 3; ++li) {
          bf_mf_fab fb;
          bf_multifab_local_fab(dst, li, &fb);
          bf_box sel = fb.validbox;
          bf_box_grow(&sel, iv3(dim, dng, dng, dng).v);
          for (int n = 0; n < 3; ++n)
            FOR_BOX(fb.fabbox, p) {
              double e = SENT;
              if (n == 2 && in_box(&sel, p) && (periodic || in_domain(p, dim))) e = f(p, 1, dim, periodic);
              bad += mf_get(dst, li, p, n) != e;
            }
        }
        if (bad) fprintf(stderr, "parallel_copy dim %d periodic %d dng %d: %d bad\n", dim, periodic, dng, bad);
        BFT_CHECK(bad == 0);
      }
    /* back the other way with ghost cells of the source, and parallel_add */
    bf_multifab_set_val_all(src, 0);
    bf_multifab_set_val_all(dst, 1);
    BFT_OK(bf_multifab_parallel_add(src, dst, 0, 0, 1, iv3(dim, 0, 0, 0), iv3(dim, 0, 0, 0), &per));
    double s;
    BFT_OK(bf_multifab_sum(src, NULL, 0, false, &s));
    double expect = 0; /* each src cell gets +1 per dst box image covering it */
    for (int64_t li = 0; li < 3; ++li) expect += bf_box_d_numpts(&db[li]);
    BFT_CHECK(s == expect);
    /* errors */
    bf_multifab *isrc = make_mf(sba, 1, 0, BF_DTYPE_INT);
    BFT_FAILS(bf_multifab_parallel_copy(dst, isrc, 0, 0, 1, iv3(dim, 0, 0, 0), iv3(dim, 0, 0, 0), NULL), BF_ERROR_TYPE);
    BFT_FAILS(bf_multifab_parallel_copy(dst, src, 2, 0, 1, iv3(dim, 0, 0, 0), iv3(dim, 0, 0, 0), NULL), BF_ERROR_INDEX);
    BFT_FAILS(bf_multifab_parallel_copy(dst, src, 0, 0, 1, iv3(dim, 2, 2, 2), iv3(dim, 0, 0, 0), NULL), BF_ERROR_INDEX);
    bf_multifab_destroy(&isrc);
    bf_multifab_destroy(&src), bf_multifab_destroy(&dst);
    bf_boxarray_destroy(&sba), bf_boxarray_destroy(&dba);
  }
}

/* number of (box j, periodic image) copies of point p within valid_j grown by ng, over all j */
static int copies(const bf_boxarray *ba, const int *p, int ng, bool periodic, int dim) {
  int c = 0;
  const bf_box *b = bf_boxarray_data(ba);
  for (int64_t j = 0; j < bf_boxarray_size(ba); ++j)
    for (int s2 = (dim > 2 && periodic) ? -1 : 0; s2 <= ((dim > 2 && periodic) ? 1 : 0); ++s2)
      for (int s1 = (dim > 1 && periodic) ? -1 : 0; s1 <= ((dim > 1 && periodic) ? 1 : 0); ++s1)
        for (int s0 = periodic ? -1 : 0; s0 <= (periodic ? 1 : 0); ++s0) {
          bf_box g = b[j];
          bf_box_grow(&g, iv3(dim, ng, ng, ng).v);
          int q[3] = {p[0] - s0 * N, p[1] - s1 * N, p[2] - s2 * N};
          c += in_box(&g, q);
        }
  return c;
}

static void test_sum_boundary(void) {
  for (int dim = 1; dim <= 3; ++dim)
    for (unsigned type = 0; type <= 1; ++type)
      for (int periodic = 0; periodic < 2; ++periodic) {
        bf_boxarray *ba = chop_domain(dim, N, 8, type ? (1u << dim) - 1 : 0);
        bf_multifab *mf = make_mf(ba, 1, 2, BF_DTYPE_DOUBLE);
        bf_multifab_set_val_all(mf, 1.0);
        bf_periodicity per = {dim, {N, dim > 1 ? N : 0, dim > 2 ? N : 0}};
        BFT_OK(bf_multifab_sum_boundary(mf, 0, 1, iv3(dim, 2, 2, 2), iv3(dim, 0, 0, 0), periodic ? &per : NULL));
        int bad = 0;
        for (int64_t li = 0; li < bf_multifab_nlocal(mf); ++li) {
          bf_mf_fab fb;
          bf_multifab_local_fab(mf, li, &fb);
          FOR_BOX(fb.fabbox, p) {
            double e = in_box(&fb.validbox, p) ? copies(ba, p, 2, periodic, dim) : 1.0;
            bad += mf_get(mf, li, p, 0) != e;
          }
        }
        if (bad) fprintf(stderr, "sum_boundary dim %d type %u periodic %d: %d bad\n", dim, type, periodic, bad);
        BFT_CHECK(bad == 0);
        bf_multifab_destroy(&mf), bf_boxarray_destroy(&ba);
      }
}

static void test_sync(void) {
  for (int dim = 1; dim <= 3; ++dim)
    for (int periodic = 0; periodic < 2; ++periodic) {
      bf_boxarray *ba = chop_domain(dim, N, 8, (1u << dim) - 1);
      bf_multifab *mf = make_mf(ba, 2, 1, BF_DTYPE_DOUBLE), *av = NULL;
      for (int64_t li = 0; li < bf_multifab_nlocal(mf); ++li) {
        bf_mf_fab fb;
        bf_multifab_local_fab(mf, li, &fb);
        for (int n = 0; n < 2; ++n) FOR_BOX(fb.fabbox, p) mf_put(mf, li, p, n, pattern(p, n, 3) + 64.0 * (double)li);
      }
      bf_multifab_clone(mf, &av);
      bf_periodicity per = {dim, {N, dim > 1 ? N : 0, dim > 2 ? N : 0}};
      const bf_periodicity *pp = periodic ? &per : NULL;
      /* references: for each canonical point, the owner's value and the average of all copies */
      static double owner[18][18][18], total[18][18][18];
      static int count[18][18][18];
      memset(count, 0, sizeof count), memset(total, 0, sizeof total);
      int n = 1;
      for (int64_t li = 0; li < bf_multifab_nlocal(mf); ++li) {
        bf_mf_fab fb;
        bf_multifab_local_fab(mf, li, &fb);
        FOR_BOX(fb.validbox, p) {
          int q[3];
          for (int d = 0; d < 3; ++d) q[d] = periodic && d < dim ? p[d] % N : p[d];
          double v = mf_get(mf, li, p, n);
          if (count[q[0]][q[1]][q[2]]++ == 0) owner[q[0]][q[1]][q[2]] = v;
          total[q[0]][q[1]][q[2]] += v;
        }
      }
      BFT_OK(bf_multifab_override_sync(mf, 1, 1, pp));
      BFT_OK(bf_multifab_average_sync(av, 1, 1, pp));
      int bad = 0;
      for (int64_t li = 0; li < bf_multifab_nlocal(mf); ++li) {
        bf_mf_fab fb;
        bf_multifab_local_fab(mf, li, &fb);
        FOR_BOX(fb.validbox, p) {
          int q[3];
          for (int d = 0; d < 3; ++d) q[d] = periodic && d < dim ? p[d] % N : p[d];
          bad += mf_get(mf, li, p, 1) != owner[q[0]][q[1]][q[2]];
          bad += fabs(mf_get(av, li, p, 1) - total[q[0]][q[1]][q[2]] / count[q[0]][q[1]][q[2]]) > 1e-12;
          bad += mf_get(mf, li, p, 0) != pattern(p, 0, 3) + 64.0 * (double)li; /* comp 0 untouched */
        }
      }
      if (bad) fprintf(stderr, "sync dim %d periodic %d: %d bad\n", dim, periodic, bad);
      BFT_CHECK(bad == 0);
      bf_multifab_destroy(&mf), bf_multifab_destroy(&av), bf_boxarray_destroy(&ba);
    }
}

/* Periods near INT_MAX: AMReX's shift list (-per..per in steps of the
 * period) must neither wrap nor run past its end (it was built in C int: a
 * period above INT_MAX/2 overflowed the loop and wrote past the list; this
 * test runs under AddressSanitizer in CI). */
static void test_huge_periods(void) {
  bf_box b = mkbox(3, 0, 0, 0, 7, 7, 7, 0);
  bf_boxarray *ba = NULL;
  BFT_OK(bf_boxarray_create_from_boxes(3, 1, &b, &ba));
  const int periods[][3] = {{(1 << 30) + 1, 0, 0}, {INT_MAX, INT_MAX, INT_MAX}, {(1 << 30) + 8, 0, 8}};
  for (int ng = 0; ng < 2; ++ng)
    for (int i = 0; i < 3; ++i) {
      bf_multifab *mf = make_mf(ba, 1, ng, BF_DTYPE_DOUBLE);
      init_valid(mf);
      bf_periodicity per = {3, {periods[i][0], periods[i][1], periods[i][2]}};
      BFT_OK(bf_multifab_fill_boundary(mf, 0, 1, iv3(3, ng, ng, ng), &per, false));
      int bad = 0;
      bf_mf_fab fb;
      bf_multifab_local_fab(mf, 0, &fb);
      FOR_BOX(fb.validbox, p) bad += mf_get(mf, 0, p, 0) != f(p, 0, 3, false);
      BFT_CHECK(bad == 0);
      bf_multifab_destroy(&mf);
    }
  bf_boxarray_destroy(&ba);
}

int main(void) {
  uint64_t id;
  bf_runtime_initialize(0, NULL, &id);
  BFT_RUN(test_fill_boundary);
  BFT_RUN(test_fill_boundary_errors_and_cache);
  BFT_RUN(test_parallel_copy);
  BFT_RUN(test_sum_boundary);
  BFT_RUN(test_sync);
  BFT_RUN(test_huge_periods);
  bf_plan_cache_clear();
  bf_runtime_finalize();
  return bft_report();
}
