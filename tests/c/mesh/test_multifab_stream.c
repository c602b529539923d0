/* The CPU kernels' other paths: non-temporal stores (forced for every size
 * with BOXFAB_CPU_STREAM_MIN_BYTES=0, set before the backend starts) for
 * set_val, copy and lin_comb, on rows of any alignment (ghost cells,
 * regions, odd sizes), double and int; fused rows (no ghosts, or the whole
 * fab) with several threads; every result against values computed point by
 * point. */
#include <stdlib.h>

#include "mftest.h"

/* boxes of odd sizes: rows start at every alignment */
static bf_boxarray *odd_layout(void) {
  bf_box b[4] = {mkbox(3, 0, 0, 0, 20, 12, 8, 0), mkbox(3, 21, 0, 0, 36, 12, 8, 0), mkbox(3, 0, 13, 0, 36, 24, 8, 0),
                 mkbox(3, 0, 0, 9, 36, 24, 14, 0)};
  bf_boxarray *ba = NULL;
  bf_boxarray_create_from_boxes(3, 4, b, &ba);
  return ba;
}

/* every point of every fab: v(mf, p, n) == expect(p, n, inside) with inside = p in sel(li) */
typedef double (*expect_fn)(const int *p, int n, bool inside);

static int64_t check(const bf_multifab *mf, const bf_intvect *ng, const bf_box *region, int comp, int ncomp,
                     expect_fn expect) {
  int64_t bad = 0;
  for (int64_t li = 0; li < bf_multifab_nlocal(mf); ++li) {
    bf_mf_fab fb;
    bf_multifab_local_fab(mf, li, &fb);
    bf_box sel = fb.validbox;
    bf_box_grow(&sel, ng->v);
    for (int n = 0; n < bf_multifab_ncomp(mf); ++n)
      FOR_BOX(fb.fabbox, p) {
        bool inside = in_box(&sel, p) && (!region || in_box(region, p)) && n >= comp && n < comp + ncomp;
        bad += mf_get(mf, li, p, n) != expect(p, n, inside);
      }
  }
  return bad;
}

static double ex_set(const int *p, int n, bool in) { return in ? 7.0 : pattern(p, n, 1); }
static double ex_copy(const int *p, int n, bool in) { return in ? pattern(p, n, 2) : pattern(p, n, 1); }
static double ex_lin(const int *p, int n, bool in) {
  return in ? 0.5 * pattern(p, n, 2) + 0.25 * pattern(p, n, 3) : pattern(p, n, 1);
}
static double ex_iset(const int *p, int n, bool in) { return in ? -3.0 : floor(pattern(p, n, 1)); }
static double ex_icopy(const int *p, int n, bool in) { return in ? floor(pattern(p, n, 2)) : floor(pattern(p, n, 1)); }

static void test_streamed(void) {
  bf_boxarray *ba = odd_layout();
  bf_box region = mkbox(3, 3, -1, 2, 30, 19, 11, 0);
  for (int t = 1; t <= 2; ++t) {
    set_threads(t);
    for (int ngi = 0; ngi <= 1; ++ngi) { /* selected ghost width 0 or 1 (of 1) */
      bf_intvect ng = iv3(3, ngi, ngi, ngi);
      for (int r = 0; r < 2; ++r) {
        const bf_box *reg = r ? &region : NULL;
        bf_multifab *a = make_mf(ba, 3, 1, BF_DTYPE_DOUBLE), *x = make_mf(ba, 3, 1, BF_DTYPE_DOUBLE),
                    *y = make_mf(ba, 3, 1, BF_DTYPE_DOUBLE);
        fill_pattern(a, 1), fill_pattern(x, 2), fill_pattern(y, 3);
        BFT_OK(bf_multifab_set_val(a, 7.0, reg, 1, 2, ng));
        BFT_CHECK(check(a, &ng, reg, 1, 2, ex_set) == 0);
        if (!reg) {
          fill_pattern(a, 1);
          BFT_OK(bf_multifab_copy(a, x, 0, 0, 3, ng));
          BFT_CHECK(check(a, &ng, NULL, 0, 3, ex_copy) == 0);
          fill_pattern(a, 1);
          BFT_OK(bf_multifab_lin_comb(a, 0.5, x, 1, 0.25, y, 1, 1, 1, ng));
          BFT_CHECK(check(a, &ng, NULL, 1, 1, ex_lin) == 0);
        }
        bf_multifab_destroy(&a), bf_multifab_destroy(&x), bf_multifab_destroy(&y);
        bf_multifab *ia = make_mf(ba, 2, 1, BF_DTYPE_INT), *ix = make_mf(ba, 2, 1, BF_DTYPE_INT);
        fill_pattern(ia, 1), fill_pattern(ix, 2);
        BFT_OK(bf_multifab_set_val(ia, -3.0, reg, 0, 2, ng));
        BFT_CHECK(check(ia, &ng, reg, 0, 2, ex_iset) == 0);
        fill_pattern(ia, 1);
        BFT_OK(bf_multifab_copy(ia, ix, 1, 1, 1, ng));
        BFT_CHECK(check(ia, &ng, NULL, 1, 1, ex_icopy) == 0);
        bf_multifab_destroy(&ia), bf_multifab_destroy(&ix);
      }
    }
  }
  set_threads(2);
  bf_boxarray_destroy(&ba);
}

/* Fused rows: ops and reductions on MultiFabs without ghost cells and over
 * whole fabs with ghosts, 1 to 3 threads, against point-by-point sums. */
static void test_fused(void) {
  bf_boxarray *ba = chop_domain(3, 48, 16, 0);
  for (int g = 0; g <= 2; g += 2) {
    bf_intvect ng = iv3(3, g, g, g);
    double ref_sum = 0, ref_sq = 0, ref_dot = 0;
    bf_multifab *x = make_mf(ba, 2, g, BF_DTYPE_DOUBLE), *y = make_mf(ba, 2, g, BF_DTYPE_DOUBLE);
    fill_pattern(x, 4), fill_pattern(y, 5);
    for (int64_t li = 0; li < bf_multifab_nlocal(x); ++li) {
      bf_mf_fab fb;
      bf_multifab_local_fab(x, li, &fb);
      FOR_BOX(fb.validbox, p) {
        ref_sum += pattern(p, 1, 4), ref_sq += pattern(p, 1, 4) * pattern(p, 1, 4);
      }
      FOR_BOX(fb.fabbox, p) ref_dot += pattern(p, 0, 4) * pattern(p, 0, 5) + pattern(p, 1, 4) * pattern(p, 1, 5);
    }
    double first[3] = {0, 0, 0};
    for (int t = 1; t <= 3; ++t) {
      set_threads(t);
      double s, n2, d;
      BFT_OK(bf_multifab_sum(x, NULL, 1, false, &s));
      BFT_OK(bf_multifab_norm2(x, 1, NULL, &n2));
      BFT_OK(bf_multifab_dot(x, 0, y, 0, 2, ng, false, &d));
      BFT_CHECK(fabs(s - ref_sum) <= 1e-9 * fabs(ref_sum) + 1e-9);
      BFT_CHECK(fabs(n2 - sqrt(ref_sq)) <= 1e-12 * sqrt(ref_sq));
      BFT_CHECK(fabs(d - ref_dot) <= 1e-9 * fabs(ref_dot) + 1e-9);
      if (t == 1) first[0] = s, first[1] = n2, first[2] = d;
      else BFT_CHECK(s == first[0] && n2 == first[1] && d == first[2]); /* same bits whatever the threads */
      /* saxpy over the whole fab: y += 2 x */
      bf_multifab *z = make_mf(ba, 2, g, BF_DTYPE_DOUBLE);
      fill_pattern(z, 5);
      BFT_OK(bf_multifab_saxpy(z, 2.0, x, 0, 0, 2, ng));
      int64_t bad = 0;
      for (int64_t li = 0; li < bf_multifab_nlocal(z); ++li) {
        bf_mf_fab fb;
        bf_multifab_local_fab(z, li, &fb);
        for (int n = 0; n < 2; ++n) FOR_BOX(fb.fabbox, p) bad += mf_get(z, li, p, n) != pattern(p, n, 5) + 2.0 * pattern(p, n, 4);
      }
      BFT_CHECK(bad == 0);
      bf_multifab_destroy(&z);
    }
    set_threads(2);
    bf_multifab_destroy(&x), bf_multifab_destroy(&y);
  }
  bf_boxarray_destroy(&ba);
}

int main(void) {
  setenv("BOXFAB_CPU_STREAM_MIN_BYTES", "0", 1); /* before the backend starts */
  uint64_t id;
  bf_runtime_initialize(0, NULL, &id);
  BFT_RUN(test_streamed);
  BFT_RUN(test_fused);
  bf_runtime_finalize();
  return bft_report();
}
