/* Kept task lists of MultiFab operations (multifab_tcache.c): a repeated
 * operation reuses the list kept with its destination, a different source
 * MultiFab, region or ghost width gets its own list, components share one
 * (and give the right results), at most 4 lists per MultiFab, and
 * destroying or clearing a MultiFab frees its lists (live count back to the
 * start; ASan checks the memory).  Results are checked against values
 * computed here point by point. */
#include "boxfab/runtime.h"
#include "mftest.h"

static int64_t built_now(void) {
  int64_t b = 0;
  bf_multifab_task_cache_stats(&b, NULL);
  return b;
}
static int64_t live_now(void) {
  int64_t l = 0;
  bf_multifab_task_cache_stats(NULL, &l);
  return l;
}

/* every point of comp n in box `b`, in each fab's valid box grown by `g`, equals v */
static bool all_equal_g(const bf_multifab *mf, const bf_box *b, int n, double v, int g) {
  for (int64_t li = 0; li < bf_multifab_nlocal(mf); ++li) {
    bf_mf_fab f;
    if (bf_multifab_local_fab(mf, li, &f)) return false;
    bf_box r = f.validbox;
    int gv[3] = {g, g, g};
    (void)bf_box_grow(&r, gv);
    bf_box_intersection(&r, b, &r);
    if (!bf_box_ok(&r)) continue;
    for (int k = r.lo[2]; k <= r.hi[2]; ++k)
      for (int j = r.lo[1]; j <= r.hi[1]; ++j)
        for (int i = r.lo[0]; i <= r.hi[0]; ++i) {
          int p[3] = {i, j, k};
          if (mf_get(mf, li, p, n) != v) return false;
        }
  }
  return true;
}

static bool all_equal(const bf_multifab *mf, const bf_box *b, int n, double v) { return all_equal_g(mf, b, n, v, 0); }

static void test_reuse_and_keys(void) {
  int64_t live0 = live_now();
  bf_boxarray *ba = chop_domain(3, 16, 8, 0);
  bf_multifab *a = make_mf(ba, 3, 2, BF_DTYPE_DOUBLE), *b = make_mf(ba, 3, 2, BF_DTYPE_DOUBLE);
  bf_intvect ng0 = iv3(3, 0, 0, 0), ng1 = iv3(3, 1, 1, 1), ng2 = iv3(3, 2, 2, 2);
  bf_box dom = mkbox(3, 0, 0, 0, 15, 15, 15, 0), big = mkbox(3, -2, -2, -2, 17, 17, 17, 0);
  BFT_CHECK(bf_multifab_task_cache_size(a) == 0);

  int64_t b0 = built_now();
  BFT_OK(bf_multifab_set_val(a, 1.0, NULL, 0, 3, ng2));
  BFT_CHECK(built_now() == b0 + 1);
  BFT_CHECK(bf_multifab_task_cache_size(a) == 1);
  BFT_OK(bf_multifab_set_val(a, 2.0, NULL, 0, 3, ng2)); /* same key: reused */
  BFT_OK(bf_multifab_plus_scalar(a, 1.0, NULL, 0, 3, ng2)); /* other op, same tasks */
  BFT_CHECK(built_now() == b0 + 1);
  for (int n = 0; n < 3; ++n) BFT_CHECK(all_equal_g(a, &big, n, 3.0, 2));
  /* components differ: the same list, the right components touched */
  BFT_OK(bf_multifab_set_val(a, 5.0, NULL, 1, 1, ng2));
  BFT_CHECK(built_now() == b0 + 1);
  BFT_CHECK(all_equal_g(a, &big, 0, 3.0, 2) && all_equal_g(a, &big, 1, 5.0, 2) && all_equal_g(a, &big, 2, 3.0, 2));

  /* ghost width differs: its own list, ghosts beyond it untouched */
  BFT_OK(bf_multifab_set_val(a, 7.0, NULL, 0, 1, ng0));
  BFT_CHECK(built_now() == b0 + 2);
  BFT_CHECK(all_equal(a, &dom, 0, 7.0));
  bf_box ghost = mkbox(3, -2, -2, -2, -1, 17, 17, 0);
  BFT_CHECK(all_equal_g(a, &ghost, 0, 3.0, 2));
  BFT_OK(bf_multifab_set_val(a, 8.0, NULL, 0, 1, ng1));
  BFT_CHECK(built_now() == b0 + 3);
  bf_box g1 = mkbox(3, -1, -1, -1, 16, 16, 16, 0);
  BFT_CHECK(all_equal_g(a, &g1, 0, 8.0, 1));
  BFT_CHECK(all_equal_g(a, &ghost, 0, 3.0, 2) == false); /* x = -1 now 8 */
  bf_box ghost2 = mkbox(3, -2, -2, -2, -2, 17, 17, 0);
  BFT_CHECK(all_equal_g(a, &ghost2, 0, 3.0, 2)); /* x = -2 still 3 */

  /* region differs: its own list; the same region again: reused */
  bf_box reg = mkbox(3, 4, 4, 4, 11, 11, 11, 0), reg2 = mkbox(3, 0, 0, 0, 3, 3, 3, 0);
  BFT_OK(bf_multifab_set_val(a, 9.0, &reg, 2, 1, ng0));
  BFT_CHECK(built_now() == b0 + 4);
  BFT_OK(bf_multifab_set_val(a, 9.0, &reg, 2, 1, ng0));
  BFT_CHECK(built_now() == b0 + 4);
  BFT_CHECK(all_equal(a, &reg, 2, 9.0));
  BFT_CHECK(bf_multifab_task_cache_size(a) == 4);
  /* a fifth key: the least recently used goes, at most 4 kept */
  BFT_OK(bf_multifab_set_val(a, 9.5, &reg2, 2, 1, ng0));
  BFT_CHECK(built_now() == b0 + 5);
  BFT_CHECK(bf_multifab_task_cache_size(a) == 4);
  BFT_CHECK(all_equal(a, &reg2, 2, 9.5) && all_equal(a, &reg, 2, 9.0));

  /* sources differ: b, then a new MultiFab in b's place (same address possible) */
  BFT_OK(bf_multifab_set_val_all(b, 0.5));
  int64_t b1 = built_now();
  BFT_OK(bf_multifab_copy(a, b, 0, 0, 3, ng0));
  BFT_CHECK(built_now() == b1 + 1);
  BFT_CHECK(all_equal(a, &dom, 0, 0.5) && all_equal(a, &dom, 2, 0.5));
  BFT_OK(bf_multifab_copy(a, b, 0, 0, 3, ng0));
  BFT_CHECK(built_now() == b1 + 1);
  bf_multifab_destroy(&b);
  b = make_mf(ba, 3, 2, BF_DTYPE_DOUBLE);
  BFT_OK(bf_multifab_set_val_all(b, -4.0));
  int64_t b2 = built_now();
  BFT_OK(bf_multifab_copy(a, b, 1, 1, 1, ng0));
  BFT_CHECK(built_now() == b2 + 1); /* a new list for the new source */
  BFT_CHECK(all_equal(a, &dom, 1, -4.0) && all_equal(a, &dom, 0, 0.5));

  /* reductions reuse their lists too, and agree with the values */
  double s = 0;
  BFT_OK(bf_multifab_sum(a, NULL, 1, false, &s));
  int64_t b3 = built_now();
  BFT_OK(bf_multifab_sum(a, NULL, 1, false, &s));
  BFT_CHECK(built_now() == b3);
  BFT_CHECK(s == -4.0 * 16 * 16 * 16);
  double d = 0;
  BFT_OK(bf_multifab_dot(a, 0, b, 1, 1, ng0, false, &d)); /* 0.5 * -4 per point */
  BFT_CHECK(d == -2.0 * 16 * 16 * 16);
  double su = 0;
  BFT_OK(bf_multifab_sum_unique(a, NULL, 0, false, NULL, &su)); /* masks on a copy of the kept list */
  BFT_CHECK(su == 0.5 * 16 * 16 * 16);
  BFT_OK(bf_multifab_sum(a, NULL, 0, false, &s));
  BFT_CHECK(s == su);

  /* clear drops the lists; destroy frees them all */
  BFT_CHECK(live_now() > live0);
  BFT_OK(bf_multifab_clear(b));
  BFT_CHECK(bf_multifab_task_cache_size(b) == 0);
  bf_multifab_destroy(&a);
  bf_multifab_destroy(&b);
  BFT_CHECK(live_now() == live0);
  bf_boxarray_destroy(&ba);
}

/* Lists kept by a destination with another as source stay correct while
 * both are alive, and a list whose source died is never used again. */
static void test_int_and_dead_source(void) {
  int64_t live0 = live_now();
  bf_boxarray *ba = chop_domain(2, 8, 4, 0);
  bf_multifab *a = make_mf(ba, 1, 1, BF_DTYPE_INT), *x = make_mf(ba, 1, 1, BF_DTYPE_INT);
  bf_intvect ng1 = iv3(2, 1, 1, 0);
  bf_box all = mkbox(2, -1, -1, 0, 8, 8, 0, 0);
  BFT_OK(bf_multifab_set_val_all(a, 3));
  BFT_OK(bf_multifab_set_val_all(x, 2));
  BFT_OK(bf_multifab_plus(a, x, 0, 1, ng1));
  BFT_CHECK(all_equal(a, &all, 0, 5));
  bf_multifab_destroy(&x);
  x = make_mf(ba, 1, 1, BF_DTYPE_INT);
  BFT_OK(bf_multifab_set_val_all(x, 10));
  BFT_OK(bf_multifab_plus(a, x, 0, 1, ng1));
  BFT_CHECK(all_equal(a, &all, 0, 15));
  double mx = 0;
  bf_intvect cell;
  BFT_OK(bf_multifab_max(a, NULL, 0, ng1, false, &mx));
  BFT_CHECK(mx == 15);
  BFT_OK(bf_multifab_max_index(a, 0, ng1, &cell));
  BFT_CHECK(cell.v[0] == -1 && cell.v[1] == -1); /* the first maximum in task order */
  bf_multifab_destroy(&a);
  bf_multifab_destroy(&x);
  BFT_CHECK(live_now() == live0);
  bf_boxarray_destroy(&ba);
}

int main(void) {
  uint64_t id;
  bf_runtime_initialize(0, NULL, &id);
  BFT_RUN(test_reuse_and_keys);
  BFT_RUN(test_int_and_dead_source);
  bf_runtime_finalize();
  return bft_report();
}
