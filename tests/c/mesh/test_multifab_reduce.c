/* MultiFab reductions against reference loops; determinism; sum_unique on
 * nodal data with periodic images. */
#include <limits.h>
#include <float.h>

#include "mftest.h"

typedef struct ref {
  double sum, abssum, sumsq, min, max, absmax;
  int minp[3], maxp[3];
  bool nan, inf;
} ref;

/* Reference over comp n of every local fab, valid grown by ng, ∩ region (NULL: none). */
static ref reference(const bf_multifab *mf, int n, int ng, const bf_box *region) {
  ref r = {0, 0, 0, DBL_MAX, -DBL_MAX, 0, {0, 0, 0}, {0, 0, 0}, false, false};
  int dim = bf_multifab_dim(mf);
  for (int64_t li = 0; li < bf_multifab_nlocal(mf); ++li) {
    bf_mf_fab f;
    bf_multifab_local_fab(mf, li, &f);
    bf_box sel = f.validbox;
    bf_box_grow(&sel, iv3(dim, ng, ng, ng).v);
    if (region) bf_box_intersection(&sel, region, &sel);
    if (!bf_box_ok(&sel)) continue;
    FOR_BOX(sel, p) {
      double v = mf_get(mf, li, p, n);
      r.sum += v, r.abssum += fabs(v), r.sumsq += v * v;
      if (v < r.min) r.min = v, memcpy(r.minp, p, sizeof r.minp);
      if (v > r.max) r.max = v, memcpy(r.maxp, p, sizeof r.maxp);
      if (fabs(v) > r.absmax) r.absmax = fabs(v);
      r.nan |= isnan(v) != 0, r.inf |= isinf(v) != 0;
    }
  }
  return r;
}

static void check_reductions(int dim, int dtype) {
  bf_boxarray *ba = chop_domain(dim, 16, 8, 0);
  bf_multifab *mf = make_mf(ba, 3, 2, dtype), *y = make_mf(ba, 3, 2, dtype);
  fill_pattern(mf, 4), fill_pattern(y, 7);
  for (int n = 0; n < 3; ++n)
    for (int ng = 0; ng <= 2; ++ng) {
      bf_intvect g = iv3(dim, ng, ng, ng);
      ref r = reference(mf, n, ng, NULL);
      double v;
      BFT_OK(bf_multifab_min(mf, NULL, n, g, false, &v));
      BFT_CHECK(v == r.min);
      BFT_OK(bf_multifab_max(mf, NULL, n, g, false, &v));
      BFT_CHECK(v == r.max);
      BFT_OK(bf_multifab_norm0(mf, n, g, false, &v));
      BFT_CHECK(v == r.absmax);
      BFT_OK(bf_multifab_norminf(mf, n, g, false, &v));
      BFT_CHECK(v == r.absmax);
      BFT_OK(bf_multifab_norm1(mf, n, g, false, &v));
      BFT_CHECK(v == r.abssum);
      bf_intvect c;
      BFT_OK(bf_multifab_min_index(mf, n, g, &c));
      BFT_CHECK(c.dim == dim && c.v[0] == r.minp[0] && c.v[1] == r.minp[1] && c.v[2] == r.minp[2]);
      BFT_OK(bf_multifab_max_index(mf, n, g, &c));
      BFT_CHECK(c.dim == dim && c.v[0] == r.maxp[0] && c.v[1] == r.maxp[1] && c.v[2] == r.maxp[2]);
      /* dot with itself and with y over comps [n, 3) */
      double dref = 0, dself = 0;
      for (int m = n; m < 3; ++m) {
        dself += reference(mf, m, ng, NULL).sumsq;
        for (int64_t li = 0; li < bf_multifab_nlocal(mf); ++li) {
          bf_mf_fab f;
          bf_multifab_local_fab(mf, li, &f);
          bf_box sel = f.validbox;
          bf_box_grow(&sel, g.v);
          FOR_BOX(sel, p) dref += mf_get(mf, li, p, m) * mf_get(y, li, p, m);
        }
      }
      BFT_OK(bf_multifab_dot(mf, n, mf, n, 3 - n, g, false, &v));
      BFT_CHECK(v == dself);
      BFT_OK(bf_multifab_dot(mf, n, y, n, 3 - n, g, false, &v));
      BFT_CHECK(v == dref);
    }
  for (int n = 0; n < 3; ++n) {
    ref r = reference(mf, n, 0, NULL);
    double v;
    BFT_OK(bf_multifab_sum(mf, NULL, n, false, &v));
    BFT_CHECK(v == r.sum);
    BFT_OK(bf_multifab_norm2(mf, n, NULL, &v));
    BFT_CHECK(v == sqrt(r.sumsq));
    BFT_OK(bf_multifab_sum_unique(mf, NULL, n, false, NULL, &v)); /* cell-centred: same as sum */
    BFT_CHECK(v == r.sum);
    bf_box region = mkbox(dim, 3, 2, 5, 12, 9, 15, 0);
    ref rr = reference(mf, n, 0, &region), rg = reference(mf, n, 1, &region);
    BFT_OK(bf_multifab_sum(mf, &region, n, false, &v));
    BFT_CHECK(v == rr.sum);
    BFT_OK(bf_multifab_min(mf, &region, n, iv3(dim, 1, 1, 1), false, &v));
    BFT_CHECK(v == rg.min);
    BFT_OK(bf_multifab_max(mf, &region, n, iv3(dim, 1, 1, 1), false, &v));
    BFT_CHECK(v == rg.max);
  }
  /* per-component norms */
  int comps[3] = {2, 0, 1};
  double out[3], v;
  BFT_OK(bf_multifab_norm1_comps(mf, 3, comps, iv3(dim, 1, 1, 1), false, out));
  for (int i = 0; i < 3; ++i) BFT_CHECK(out[i] == reference(mf, comps[i], 1, NULL).abssum);
  BFT_OK(bf_multifab_norm2_comps(mf, 3, comps, out));
  for (int i = 0; i < 3; ++i) BFT_CHECK(out[i] == sqrt(reference(mf, comps[i], 0, NULL).sumsq));
  /* empty selection */
  bf_box far = mkbox(dim, 100, 100, 100, 101, 101, 101, 0);
  BFT_OK(bf_multifab_min(mf, &far, 0, iv3(dim, 0, 0, 0), false, &v));
  /* AMReX's start values: numeric_limits<double/int>::max() (MultiFab::min, iMultiFab::min) */
  BFT_CHECK(v == (bf_multifab_dtype(mf) == BF_DTYPE_INT ? INT_MAX : DBL_MAX));
  BFT_OK(bf_multifab_max(mf, &far, 0, iv3(dim, 0, 0, 0), false, &v));
  BFT_CHECK(v == (bf_multifab_dtype(mf) == BF_DTYPE_INT ? INT_MIN : -DBL_MAX));
  BFT_OK(bf_multifab_sum(mf, &far, 0, false, &v));
  BFT_CHECK(v == 0);
  bf_multifab_destroy(&mf), bf_multifab_destroy(&y), bf_boxarray_destroy(&ba);
}

static void test_reductions(void) {
  for (int dim = 1; dim <= 3; ++dim)
    for (int dt = BF_DTYPE_DOUBLE; dt <= BF_DTYPE_INT; dt = (dt == BF_DTYPE_DOUBLE ? BF_DTYPE_INT : BF_DTYPE_INT + 1)) check_reductions(dim, dt);
}

static void test_nan_inf(void) {
  bf_boxarray *ba = chop_domain(3, 8, 4, 0);
  bf_multifab *mf = make_mf(ba, 2, 1, BF_DTYPE_DOUBLE);
  bf_multifab_set_val_all(mf, 1.0);
  bool r;
  bf_intvect g0 = iv3(3, 0, 0, 0), g1 = iv3(3, 1, 1, 1);
  BFT_OK(bf_multifab_contains_nan(mf, 0, 2, g1, false, &r));
  BFT_CHECK(!r);
  int ghost[3] = {-1, 0, 0}, valid[3] = {5, 6, 7};
  mf_put(mf, 0, ghost, 1, NAN);
  BFT_OK(bf_multifab_contains_nan(mf, 0, 2, g0, false, &r));
  BFT_CHECK(!r);
  BFT_OK(bf_multifab_contains_nan(mf, 0, 2, g1, false, &r));
  BFT_CHECK(r);
  BFT_OK(bf_multifab_contains_nan(mf, 0, 1, g1, false, &r));
  BFT_CHECK(!r);
  BFT_OK(bf_multifab_contains_inf(mf, 0, 2, g1, false, &r));
  BFT_CHECK(!r);
  mf_put(mf, 7, valid, 0, -INFINITY);
  BFT_OK(bf_multifab_contains_inf(mf, 0, 1, g0, false, &r));
  BFT_CHECK(r);
  bf_multifab_destroy(&mf), bf_boxarray_destroy(&ba);
}

static uint64_t lcg = 12345;
static double rnd(void) {
  lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(lcg >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

static void test_determinism(void) {
  bf_boxarray *ba = chop_domain(3, 64, 32, 0);
  bf_multifab *mf = make_mf(ba, 2, 1, BF_DTYPE_DOUBLE), *y = make_mf(ba, 2, 1, BF_DTYPE_DOUBLE);
  for (int64_t li = 0; li < bf_multifab_nlocal(mf); ++li) {
    bf_mf_fab f;
    bf_multifab_local_fab(mf, li, &f);
    for (int n = 0; n < 2; ++n) FOR_BOX(f.fabbox, p) mf_put(mf, li, p, n, rnd() * 1e3), mf_put(y, li, p, n, rnd());
  }
  double naive = reference(mf, 0, 0, NULL).sum;
  double s[3], n2[3], d[3], n1[3];
  int threads[3] = {1, 2, 4};
  for (int t = 0; t < 3; ++t) {
    set_threads(threads[t]);
    for (int rep = 0; rep < 2; ++rep) {
      double a, b, c, e;
      BFT_OK(bf_multifab_sum(mf, NULL, 0, false, &a));
      BFT_OK(bf_multifab_norm2(mf, 1, NULL, &b));
      BFT_OK(bf_multifab_dot(mf, 0, y, 0, 2, iv3(3, 1, 1, 1), false, &c));
      BFT_OK(bf_multifab_norm1(mf, 0, iv3(3, 1, 1, 1), false, &e));
      if (rep == 0) s[t] = a, n2[t] = b, d[t] = c, n1[t] = e;
      else BFT_CHECK(a == s[t] && b == n2[t] && c == d[t] && e == n1[t]);
    }
  }
  set_threads(2);
  BFT_CHECK(s[0] == s[1] && s[1] == s[2]);
  BFT_CHECK(n2[0] == n2[1] && n2[1] == n2[2]);
  BFT_CHECK(d[0] == d[1] && d[1] == d[2]);
  BFT_CHECK(n1[0] == n1[1] && n1[1] == n1[2]);
  BFT_CHECK(fabs(s[0] - naive) <= 1e-9 * reference(mf, 0, 0, NULL).abssum);
  bf_multifab_destroy(&mf), bf_multifab_destroy(&y), bf_boxarray_destroy(&ba);
}

/* Brute force: visit boxes in order, points in k, j, i order; the first copy
 * of each (periodically wrapped) point counts.  Values differ per box so that
 * the owner matters. */
static double unique_ref(const bf_multifab *mf, int n, int period, const bf_box *region) {
  static unsigned char seen[20][20][20];
  memset(seen, 0, sizeof seen);
  double s = 0;
  for (int64_t li = 0; li < bf_multifab_nlocal(mf); ++li) {
    bf_mf_fab f;
    bf_multifab_local_fab(mf, li, &f);
    FOR_BOX(f.validbox, p) {
      int q[3];
      for (int d = 0; d < 3; ++d) q[d] = period && d < bf_multifab_dim(mf) ? ((p[d] % period) + period) % period : p[d];
      if (seen[q[0]][q[1]][q[2]]) continue;
      seen[q[0]][q[1]][q[2]] = 1;
      if (!region || in_box(region, p)) s += mf_get(mf, li, p, n);
    }
  }
  return s;
}

/* Brute force of AMReX's OverlapMask weighting: m(q) = number of copies of the
 * (periodically wrapped) point q over all boxes; Σ over copies of |x| / m
 * (square: x * x / m). */
static double weighted_ref(const bf_multifab *mf, int n, int period, bool square) {
  static unsigned char count[20][20][20];
  memset(count, 0, sizeof count);
  int dim = bf_multifab_dim(mf);
  for (int pass = 0; pass < 2; ++pass) {
    double s = 0;
    for (int64_t li = 0; li < bf_multifab_nlocal(mf); ++li) {
      bf_mf_fab f;
      bf_multifab_local_fab(mf, li, &f);
      FOR_BOX(f.validbox, p) {
        int q[3];
        for (int d = 0; d < 3; ++d) q[d] = period && d < dim ? ((p[d] % period) + period) % period : p[d];
        if (pass == 0) {
          count[q[0]][q[1]][q[2]]++;
        } else {
          double x = mf_get(mf, li, p, n);
          s += square ? x * x / count[q[0]][q[1]][q[2]] : fabs(x / count[q[0]][q[1]][q[2]]);
        }
      }
    }
    if (pass == 1) return s;
  }
  return 0;
}

/* Σ |x| over the first copy of each point (the owner rule of sum_unique). */
static double unique_abs_ref(const bf_multifab *mf, int n, int period) {
  static unsigned char seen[20][20][20];
  memset(seen, 0, sizeof seen);
  int dim = bf_multifab_dim(mf);
  double s = 0;
  for (int64_t li = 0; li < bf_multifab_nlocal(mf); ++li) {
    bf_mf_fab f;
    bf_multifab_local_fab(mf, li, &f);
    FOR_BOX(f.validbox, p) {
      int q[3];
      for (int d = 0; d < 3; ++d) q[d] = period && d < dim ? ((p[d] % period) + period) % period : p[d];
      if (seen[q[0]][q[1]][q[2]]) continue;
      seen[q[0]][q[1]][q[2]] = 1;
      s += fabs(mf_get(mf, li, p, n));
    }
  }
  return s;
}

static void test_sum_unique_nodal(void) {
  for (int dim = 1; dim <= 3; ++dim)
    for (unsigned type = 1; type < (1u << dim); type = type * 2 + 1) {
      bf_boxarray *ba = chop_domain(dim, 16, 8, type);
      bf_multifab *mf = make_mf(ba, 2, 1, BF_DTYPE_DOUBLE);
      for (int64_t li = 0; li < bf_multifab_nlocal(mf); ++li) {
        bf_mf_fab f;
        bf_multifab_local_fab(mf, li, &f);
        for (int n = 0; n < 2; ++n) FOR_BOX(f.fabbox, p) mf_put(mf, li, p, n, pattern(p, n, 1) + 100.0 * (double)li);
      }
      bf_periodicity per = {dim, {16, dim > 1 ? 16 : 0, dim > 2 ? 16 : 0}};
      double v, e;
      for (int n = 0; n < 2; ++n) {
        BFT_OK(bf_multifab_sum_unique(mf, NULL, n, false, NULL, &v));
        e = unique_ref(mf, n, 0, NULL);
        BFT_CHECK(v == e);
        BFT_OK(bf_multifab_sum_unique(mf, NULL, n, false, &per, &v));
        e = unique_ref(mf, n, 16, NULL);
        if (v != e) fprintf(stderr, "dim %d type %u: %g vs %g\n", dim, type, v, e);
        BFT_CHECK(v == e);
        bf_box region = mkbox(dim, 2, 3, 8, 9, 16, 12, type);
        BFT_OK(bf_multifab_sum_unique(mf, &region, n, false, NULL, &v));
        BFT_CHECK(v == unique_ref(mf, n, 0, &region));
        /* AMReX_MultiFab.cpp MultiFab::norm2(comp) = sqrt(Dot): every copy of a
         * shared node counts; norm2(comp, period) / norm1(comp, period) weight
         * each copy by 1 / OverlapMask (the number of copies of the point) */
        BFT_OK(bf_multifab_norm2(mf, n, NULL, &v));
        BFT_CHECK(v == sqrt(reference(mf, n, 0, NULL).sumsq));
        for (int pp = 0; pp <= 16; pp += 16) {
          bf_periodicity nper = {dim, {0, 0, 0}};
          double w2 = weighted_ref(mf, n, pp, true), w1 = weighted_ref(mf, n, pp, false);
          BFT_OK(bf_multifab_norm2(mf, n, pp ? &per : &nper, &v));
          BFT_CHECK(fabs(v - sqrt(w2)) <= 1e-12 * sqrt(w2));
          BFT_OK(bf_multifab_norm1_unique(mf, n, pp ? &per : NULL, &v));
          BFT_CHECK(fabs(v - w1) <= 1e-12 * w1);
          /* the weights differ from the owner's copy when copies differ */
          BFT_CHECK(fabs(w1 - unique_abs_ref(mf, n, pp)) > 1e-6 * w1);
        }
      }
      bf_multifab_destroy(&mf), bf_boxarray_destroy(&ba);
    }
}

int main(void) {
  uint64_t id;
  bf_runtime_initialize(0, NULL, &id);
  BFT_RUN(test_reductions);
  BFT_RUN(test_nan_inf);
  BFT_RUN(test_determinism);
  BFT_RUN(test_sum_unique_nodal);
  bf_runtime_finalize();
  return bft_report();
}
