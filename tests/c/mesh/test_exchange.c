/* The ghost exchange at sizes where it runs on several threads (paired
 * copies, units split between threads, staging buffers), against brute
 * force and across thread counts: fill_boundary (double and int, uniform,
 * irregular and overlapping boxes, short periods), sum_boundary with
 * destination ghosts (staged), parallel_copy of a MultiFab onto itself
 * (staged), and a plan over many boxes (the hashed box query). */
#include <string.h>

#include "mftest.h"

#define L 48
#define H (L / 2)

/* value of point p (wrapped into [0, period) where period > 0), component n */
static double fval(const int *p, int n, const int *period) {
  int q[3];
  for (int d = 0; d < 3; ++d) q[d] = period[d] > 0 ? ((p[d] % period[d]) + period[d]) % period[d] : p[d];
  return (double)(q[0] + 97 * q[1] + 9973 * q[2] + 1000003 * n);
}

static void put_valid(bf_multifab *mf, double ghost, const int *period) {
  for (int64_t li = 0; li < bf_multifab_nlocal(mf); ++li) {
    bf_mf_fab fb;
    bf_multifab_local_fab(mf, li, &fb);
    for (int n = 0; n < bf_multifab_ncomp(mf); ++n)
      FOR_BOX(fb.fabbox, p) mf_put(mf, li, p, n, in_box(&fb.validbox, p) ? fval(p, n, period) : ghost);
  }
}

/* Points of [0, L)^3 covered by some box of ba (all test boxes lie there). */
static unsigned char *coverage(const bf_boxarray *ba) {
  unsigned char *c = calloc((size_t)L * L * L, 1);
  const bf_box *b = bf_boxarray_data(ba);
  for (int64_t j = 0; j < bf_boxarray_size(ba); ++j) FOR_BOX(b[j], p) c[(p[2] * L + p[1]) * L + p[0]] = 1;
  return c;
}

/* Is p (wrapped) covered? */
static bool covered(const unsigned char *cov, const int *p, const int *period) {
  int q[3];
  for (int d = 0; d < 3; ++d) {
    q[d] = period[d] > 0 ? ((p[d] % period[d]) + period[d]) % period[d] : p[d];
    if (q[d] < 0 || q[d] >= L) return false;
  }
  return cov[(q[2] * L + q[1]) * L + q[0]] != 0;
}

/* Every ghost point of every fab holds fval of its wrapped point when some
 * box covers it, else the sentinel; valid points unchanged. */
static int64_t check_fill(const bf_multifab *mf, const int *period, double sent) {
  int64_t bad = 0;
  unsigned char *cov = coverage(bf_multifab_boxarray(mf));
  for (int64_t li = 0; li < bf_multifab_nlocal(mf); ++li) {
    bf_mf_fab fb;
    bf_multifab_local_fab(mf, li, &fb);
    for (int n = 0; n < bf_multifab_ncomp(mf); ++n)
      FOR_BOX(fb.fabbox, p) {
        double e = in_box(&fb.validbox, p) || covered(cov, p, period) ? fval(p, n, period) : sent;
        bad += mf_get(mf, li, p, n) != e;
      }
  }
  free(cov);
  return bad;
}

static bool same_data(const bf_multifab *a, const bf_multifab *b) {
  bf_buffer *x, *y;
  bf_multifab_buffer(a, &x), bf_multifab_buffer(b, &y);
  return bf_buffer_nbytes(x) == bf_buffer_nbytes(y) &&
         memcmp(bf_buffer_data(x), bf_buffer_data(y), bf_buffer_nbytes(x)) == 0;
}

static bf_boxarray *from_boxes(int n, const bf_box *b) {
  bf_boxarray *ba = NULL;
  bf_boxarray_create_from_boxes(3, n, b, &ba);
  return ba;
}

/* fill_boundary with 1, 2 and 3 threads: right values, identical bytes */
static void fill_all_threads(bf_boxarray *ba, int ngrow, int ncomp, int dtype, const int *period, const char *what) {
  bf_multifab *ref = NULL;
  bf_periodicity per = {3, {period[0], period[1], period[2]}};
  int threads[3] = {1, 2, 3};
  for (int t = 0; t < 3; ++t) {
    set_threads(threads[t]);
    bf_multifab *mf = make_mf(ba, ncomp, ngrow, dtype);
    put_valid(mf, -7, period);
    BFT_OK(bf_multifab_fill_boundary(mf, 0, ncomp, iv3(3, ngrow, ngrow, ngrow), &per, false));
    int64_t bad = check_fill(mf, period, -7);
    if (bad) fprintf(stderr, "%s, %d threads: %lld bad\n", what, threads[t], (long long)bad);
    BFT_CHECK(bad == 0);
    if (!ref) ref = mf;
    else {
      BFT_CHECK(same_data(ref, mf));
      bf_multifab_destroy(&mf);
    }
  }
  bf_multifab_destroy(&ref);
  set_threads(2);
}

static void test_fill_threads(void) {
  int per[3] = {L, L, L}, per_xy[3] = {L, L, 0};
  bf_boxarray *ba = chop_domain(3, L, 16, 0);
  fill_all_threads(ba, 2, 1, BF_DTYPE_DOUBLE, per, "uniform periodic");
  fill_all_threads(ba, 2, 2, BF_DTYPE_INT, per, "uniform periodic int");
  fill_all_threads(ba, 3, 1, BF_DTYPE_DOUBLE, per_xy, "uniform periodic in x, y");
  bf_boxarray_destroy(&ba);
  /* irregular sizes: x cut at 0, 13, 40, L; y at 0, 21, L; z at 0, 30, L */
  int cx[4] = {0, 13, 40, L}, cy[3] = {0, 21, L}, cz[3] = {0, 30, L};
  bf_box boxes[18];
  int m = 0;
  for (int c = 0; c < 2; ++c)
    for (int b = 0; b < 2; ++b)
      for (int a = 0; a < 3; ++a)
        boxes[m++] = mkbox(3, cx[a], cy[b], cz[c], cx[a + 1] - 1, cy[b + 1] - 1, cz[c + 1] - 1, 0);
  ba = from_boxes(m, boxes);
  fill_all_threads(ba, 2, 1, BF_DTYPE_DOUBLE, per, "irregular periodic");
  int none[3] = {0, 0, 0};
  fill_all_threads(ba, 2, 1, BF_DTYPE_DOUBLE, none, "irregular non-periodic");
  bf_boxarray_destroy(&ba);
  /* a big box under two small ones: one source meets two ghost pieces of a
   * small box (the copies fuse into one box) */
  bf_box fuse[3] = {mkbox(3, 0, 0, 0, L - 1, H - 1, L - 1, 0), mkbox(3, 0, H, 0, H - 1, L - 1, L - 1, 0),
                    mkbox(3, H, H, 0, L - 1, L - 1, L - 1, 0)};
  ba = from_boxes(3, fuse);
  fill_all_threads(ba, 2, 1, BF_DTYPE_DOUBLE, per, "fusing pieces");
  fill_all_threads(ba, 2, 1, BF_DTYPE_DOUBLE, none, "fusing pieces, non-periodic");
  bf_boxarray_destroy(&ba);
  /* overlapping boxes (same values where they overlap): copies may write the same ghost point */
  bf_box over[4] = {mkbox(3, 0, 0, 0, H + 7, L - 1, L - 1, 0), mkbox(3, H - 2, 0, 0, L - 1, L - 1, H - 1, 0),
                    mkbox(3, H - 2, 0, H, L - 1, H + 8, L - 1, 0), mkbox(3, H - 2, H + 9, H, L - 1, L - 1, L - 1, 0)};
  ba = from_boxes(4, over);
  fill_all_threads(ba, 2, 1, BF_DTYPE_DOUBLE, per, "overlapping boxes");
  bf_boxarray_destroy(&ba);
  /* one box, a short period in x (ghosts wider than the box: several images) */
  bf_box thin = mkbox(3, 0, 0, 0, 3, L - 1, L - 1, 0);
  ba = from_boxes(1, &thin);
  int per_thin[3] = {4, L, L};
  fill_all_threads(ba, 6, 1, BF_DTYPE_DOUBLE, per_thin, "short period");
  bf_boxarray_destroy(&ba);
}

/* sum_boundary into valid + 1 ghost layer (a run that reads what it writes:
 * staged): each point gets the sum over all copies within 2 ghost layers */
static void test_sum_boundary_staged(void) {
  bf_boxarray *ba = chop_domain(3, L, 16, 0);
  bf_periodicity per = {3, {L, L, L}};
  bf_multifab *ref = NULL;
  for (int t = 1; t <= 2; ++t) {
    set_threads(t);
    bf_multifab *mf = make_mf(ba, 1, 2, BF_DTYPE_DOUBLE);
    for (int64_t li = 0; li < bf_multifab_nlocal(mf); ++li) {
      bf_mf_fab fb;
      bf_multifab_local_fab(mf, li, &fb);
      FOR_BOX(fb.fabbox, p) mf_put(mf, li, p, 0, (double)(li + 1)); /* box number + 1 */
    }
    BFT_OK(bf_multifab_sum_boundary(mf, 0, 1, iv3(3, 2, 2, 2), iv3(3, 1, 1, 1), &per));
    int64_t bad = 0;
    const bf_box *b = bf_boxarray_data(ba);
    int64_t nb = bf_boxarray_size(ba);
    for (int64_t li = 0; li < bf_multifab_nlocal(mf); ++li) {
      bf_mf_fab fb;
      bf_multifab_local_fab(mf, li, &fb);
      bf_box tgt = fb.validbox;
      bf_box_grow(&tgt, iv3(3, 1, 1, 1).v);
      /* the (box j, shift) images whose 2-grown box meets tgt */
      struct {
        bf_box g;
        double v;
      } img[27 * 27];
      int nimg = 0;
      for (int64_t j = 0; j < nb; ++j)
        for (int s2 = -1; s2 <= 1; ++s2)
          for (int s1 = -1; s1 <= 1; ++s1)
            for (int s0 = -1; s0 <= 1; ++s0) {
              if (j == li && !s0 && !s1 && !s2) continue;
              bf_box g = b[j];
              bf_box_grow(&g, iv3(3, 2, 2, 2).v);
              bf_box_shift_iv(&g, (int[3]){s0 * L, s1 * L, s2 * L});
              if (bf_box_intersects(&g, &tgt)) img[nimg].g = g, img[nimg++].v = (double)(j + 1);
            }
      FOR_BOX(fb.fabbox, p) {
        double e = (double)(li + 1);
        if (in_box(&tgt, p))
          for (int i = 0; i < nimg; ++i)
            if (in_box(&img[i].g, p)) e += img[i].v;
        bad += mf_get(mf, li, p, 0) != e;
      }
    }
    if (bad) fprintf(stderr, "sum_boundary staged, %d threads: %lld bad\n", t, (long long)bad);
    BFT_CHECK(bad == 0);
    if (!ref) ref = mf;
    else {
      BFT_CHECK(same_data(ref, mf));
      bf_multifab_destroy(&mf);
    }
  }
  bf_multifab_destroy(&ref);
  bf_boxarray_destroy(&ba);
}

/* parallel_copy of a MultiFab onto itself (staged): comp 0 into comp 1 and
 * comp 0 into itself, over valid + 1 ghost layer, periodic */
static void test_self_copy(void) {
  bf_boxarray *ba = chop_domain(3, L, 16, 0);
  int period[3] = {L, L, L};
  bf_periodicity per = {3, {L, L, L}};
  for (int t = 1; t <= 2; ++t) {
    set_threads(t);
    bf_multifab *mf = make_mf(ba, 2, 1, BF_DTYPE_DOUBLE);
    put_valid(mf, -7, period);
    BFT_OK(bf_multifab_parallel_copy(mf, mf, 0, 1, 1, iv3(3, 0, 0, 0), iv3(3, 1, 1, 1), &per));
    BFT_OK(bf_multifab_parallel_copy(mf, mf, 0, 0, 1, iv3(3, 0, 0, 0), iv3(3, 1, 1, 1), &per));
    int64_t bad = 0;
    for (int64_t li = 0; li < bf_multifab_nlocal(mf); ++li) {
      bf_mf_fab fb;
      bf_multifab_local_fab(mf, li, &fb);
      FOR_BOX(fb.fabbox, p) {
        bad += mf_get(mf, li, p, 0) != fval(p, 0, period);
        bad += mf_get(mf, li, p, 1) != fval(p, 0, period);
      }
    }
    if (bad) fprintf(stderr, "self parallel_copy, %d threads: %lld bad\n", t, (long long)bad);
    BFT_CHECK(bad == 0);
    bf_multifab_destroy(&mf);
  }
  bf_boxarray_destroy(&ba);
}

/* many boxes: the plan is built through the hashed query (a quadratic loop
 * would take seconds here); spot checks of the result */
static void test_many_boxes(void) {
  bf_boxarray *ba = chop_domain(3, 128, 4, 0); /* 32768 boxes */
  bf_multifab *mf = make_mf(ba, 1, 1, BF_DTYPE_DOUBLE);
  int period[3] = {128, 128, 128};
  bf_periodicity per = {3, {128, 128, 128}};
  put_valid(mf, -7, period);
  BFT_OK(bf_multifab_fill_boundary(mf, 0, 1, iv3(3, 1, 1, 1), &per, false));
  int64_t bad = 0;
  for (int64_t li = 0; li < bf_multifab_nlocal(mf); li += 997) {
    bf_mf_fab fb;
    bf_multifab_local_fab(mf, li, &fb);
    FOR_BOX(fb.fabbox, p) bad += mf_get(mf, li, p, 0) != fval(p, 0, period);
  }
  BFT_CHECK(bad == 0);
  bf_multifab_destroy(&mf);
  bf_boxarray_destroy(&ba);
}

int main(void) {
  uint64_t id;
  bf_runtime_initialize(0, NULL, &id);
  BFT_RUN(test_fill_threads);
  BFT_RUN(test_sum_boundary_staged);
  BFT_RUN(test_self_copy);
  BFT_RUN(test_many_boxes);
  bf_plan_cache_clear();
  bf_runtime_finalize();
  return bft_report();
}
