/* MultiFab: creation, layout, element-wise operations against reference
 * loops, errors, lifetime. */
#include <limits.h>

#include "mftest.h"

enum { U_SET, U_ABS, U_PLUS, U_MULT, U_INVERT, U_NEGATE, U_N };

static double uref(int op, double old, double s, bool isint) {
  switch (op) {
  case U_SET: return s;
  case U_ABS: return fabs(old);
  case U_PLUS: return old + s;
  case U_MULT: return old * s;
  case U_INVERT: return isint ? (old == 0 ? 0 : trunc(s / old)) : s / old;
  default: return -old;
  }
}

static int uapply(int op, bf_multifab *mf, double s, const bf_box *region, int comp, int ncomp, bf_intvect ng) {
  switch (op) {
  case U_SET: return bf_multifab_set_val(mf, s, region, comp, ncomp, ng);
  case U_ABS: return bf_multifab_abs(mf, region, comp, ncomp, ng);
  case U_PLUS: return bf_multifab_plus_scalar(mf, s, region, comp, ncomp, ng);
  case U_MULT: return bf_multifab_mult_scalar(mf, s, region, comp, ncomp, ng);
  case U_INVERT: return bf_multifab_invert(mf, s, region, comp, ncomp, ng);
  default: return bf_multifab_negate(mf, region, comp, ncomp, ng);
  }
}

/* Every cell of every local fab: expected(old) inside (valid grown by ng) ∩ region for comps, old elsewhere. */
static int check_unary(int op, int dim, int dtype, const bf_box *region, int comp, int ncomp, int ng) {
  bf_boxarray *ba = chop_domain(dim, 16, 8, 0);
  bf_multifab *mf = make_mf(ba, 3, 2, dtype), *old = NULL;
  fill_pattern(mf, 3);
  BFT_OK(bf_multifab_clone(mf, &old));
  double s = dtype == BF_DTYPE_INT ? 3 : 2.5;
  BFT_OK(uapply(op, mf, s, region, comp, ncomp, iv3(dim, ng, ng, ng)));
  int bad = 0;
  for (int64_t li = 0; li < bf_multifab_nlocal(mf); ++li) {
    bf_mf_fab f;
    bf_multifab_local_fab(mf, li, &f);
    bf_box sel = f.validbox;
    bf_box_grow(&sel, iv3(dim, ng, ng, ng).v);
    if (region) bf_box_intersection(&sel, region, &sel);
    for (int n = 0; n < 3; ++n)
      FOR_BOX(f.fabbox, p) {
        double o = mf_get(old, li, p, n), v = mf_get(mf, li, p, n);
        double e = (n >= comp && n < comp + ncomp && bf_box_ok(&sel) && in_box(&sel, p))
                       ? uref(op, o, s, dtype == BF_DTYPE_INT)
                       : o;
        if (!(v == e || (isnan(v) && isnan(e)))) ++bad;
      }
  }
  bf_multifab_destroy(&old);
  bf_multifab_destroy(&mf);
  bf_boxarray_destroy(&ba);
  return bad;
}

static void test_unary_ops(void) {
  for (int dim = 1; dim <= 3; ++dim)
    for (int dt = BF_DTYPE_DOUBLE; dt <= BF_DTYPE_INT; dt = (dt == BF_DTYPE_DOUBLE ? BF_DTYPE_INT : BF_DTYPE_INT + 1))
      for (int op = 0; op < U_N; ++op) {
        BFT_CHECK(check_unary(op, dim, dt, NULL, 0, 3, 2) == 0);
        BFT_CHECK(check_unary(op, dim, dt, NULL, 1, 2, 0) == 0);
        BFT_CHECK(check_unary(op, dim, dt, NULL, 2, 1, 1) == 0);
        bf_box r = mkbox(dim, 3, 5, 6, 12, 9, 17, 0);
        BFT_CHECK(check_unary(op, dim, dt, &r, 1, 1, 1) == 0);
        bf_box far = mkbox(dim, 100, 100, 100, 110, 110, 110, 0);
        BFT_CHECK(check_unary(op, dim, dt, &far, 0, 3, 2) == 0);
      }
}

enum { B_ADD, B_SUB, B_MUL, B_DIV, B_COPY, B_SWAP, B_SAXPY, B_XPAY, B_LINCOMB, B_ADDPROD, B_PLUS, B_MINUS, B_DIVI, B_N };

static int check_binary(int op, int dim, int dtype) {
  bf_boxarray *ba = chop_domain(dim, 16, 8, 0);
  bf_multifab *d = make_mf(ba, 4, 2, dtype), *x = make_mf(ba, 4, 2, dtype), *y = make_mf(ba, 4, 2, dtype);
  fill_pattern(d, 1), fill_pattern(x, 2), fill_pattern(y, 5);
  bf_multifab *d0, *x0;
  bf_multifab_clone(d, &d0), bf_multifab_clone(x, &x0);
  bool isint = dtype == BF_DTYPE_INT;
  double a = isint ? 3 : 1.5, b = isint ? -2 : -0.75;
  int xc = 1, yc = 2, dc = 0, nc = 2, ng = 1;
  if (op >= B_PLUS) xc = dc = 1;
  bf_intvect g = iv3(dim, ng, ng, ng);
  switch (op) {
  case B_ADD: BFT_OK(bf_multifab_add(d, x, xc, dc, nc, g)); break;
  case B_SUB: BFT_OK(bf_multifab_subtract(d, x, xc, dc, nc, g)); break;
  case B_MUL: BFT_OK(bf_multifab_multiply(d, x, xc, dc, nc, g)); break;
  case B_DIV: BFT_OK(bf_multifab_divide(d, x, xc, dc, nc, g)); break;
  case B_COPY: BFT_OK(bf_multifab_copy(d, x, xc, dc, nc, g)); break;
  case B_SWAP: BFT_OK(bf_multifab_swap(d, x, xc, dc, nc, g)); break;
  case B_SAXPY: BFT_OK(bf_multifab_saxpy(d, a, x, xc, dc, nc, g)); break;
  case B_XPAY: BFT_OK(bf_multifab_xpay(d, a, x, xc, dc, nc, g)); break;
  case B_LINCOMB: BFT_OK(bf_multifab_lin_comb(d, a, x, xc, b, y, yc, dc, nc, g)); break;
  case B_ADDPROD: BFT_OK(bf_multifab_add_product(d, x, xc, y, yc, dc, nc, g)); break;
  case B_PLUS: BFT_OK(bf_multifab_plus(d, x, xc, nc, g)); break;
  case B_MINUS: BFT_OK(bf_multifab_minus(d, x, xc, nc, g)); break;
  default: BFT_OK(bf_multifab_divi(d, x, xc, nc, g)); break;
  }
  int bad = 0;
  for (int64_t li = 0; li < bf_multifab_nlocal(d); ++li) {
    bf_mf_fab f;
    bf_multifab_local_fab(d, li, &f);
    bf_box sel = f.validbox;
    bf_box_grow(&sel, g.v);
    for (int n = 0; n < 4; ++n)
      FOR_BOX(f.fabbox, p) {
        double o = mf_get(d0, li, p, n), v = mf_get(d, li, p, n), e = o;
        bool in = n >= dc && n < dc + nc && in_box(&sel, p);
        if (in) {
          double xv = mf_get(x0, li, p, xc + n - dc), yv = mf_get(y, li, p, yc + n - dc);
          switch (op) {
          case B_ADD: case B_PLUS: e = o + xv; break;
          case B_SUB: case B_MINUS: e = o - xv; break;
          case B_MUL: e = o * xv; break;
          case B_DIV: case B_DIVI: e = isint ? (xv == 0 ? 0 : trunc(o / xv)) : o / xv; break;
          case B_COPY: case B_SWAP: e = xv; break;
          case B_SAXPY: e = o + a * xv; break;
          case B_XPAY: e = xv + a * o; break;
          case B_LINCOMB: e = a * xv + b * yv; break;
          default: e = o + xv * yv; break;
          }
        }
        if (!(v == e || (isnan(v) && isnan(e)))) ++bad;
        /* swap also changes x */
        if (op == B_SWAP && n >= xc && n < xc + nc) {
          double xe = in_box(&sel, p) ? mf_get(d0, li, p, dc + n - xc) : mf_get(x0, li, p, n);
          if (mf_get(x, li, p, n) != xe) ++bad;
        }
      }
  }
  bf_multifab_destroy(&d), bf_multifab_destroy(&x), bf_multifab_destroy(&y);
  bf_multifab_destroy(&d0), bf_multifab_destroy(&x0);
  bf_boxarray_destroy(&ba);
  return bad;
}

static void test_binary_ops(void) {
  for (int dim = 1; dim <= 3; ++dim)
    for (int dt = BF_DTYPE_DOUBLE; dt <= BF_DTYPE_INT; dt = (dt == BF_DTYPE_DOUBLE ? BF_DTYPE_INT : BF_DTYPE_INT + 1))
      for (int op = 0; op < B_N; ++op) {
        int bad = check_binary(op, dim, dt);
        if (bad) fprintf(stderr, "binary op %d dim %d dtype %d: %d bad\n", op, dim, dt, bad);
        BFT_CHECK(bad == 0);
      }
}

static void test_create_and_layout(void) {
  bf_boxarray *ba = chop_domain(3, 16, 8, 0);
  bf_distmap *dm = dm_for(ba);
  bf_multifab *mf = NULL;
  BFT_OK(bf_multifab_create(ba, dm, 2, iv3(3, 1, 2, 0), BF_DTYPE_DOUBLE, bf_arena_get(BF_ARENA_CPU), true, &mf));
  BFT_CHECK(bf_multifab_nlocal(mf) == 8 && bf_multifab_size(mf) == 8 && bf_multifab_ncomp(mf) == 2);
  BFT_CHECK(bf_multifab_arena(mf) == bf_arena_get(BF_ARENA_CPU));
  BFT_CHECK(bf_multifab_is_all_cell_centered(mf) && !bf_multifab_is_all_nodal(mf) && !bf_multifab_is_nodal(mf, 0));
  for (int64_t li = 0; li < 8; ++li) {
    bf_mf_fab f;
    BFT_OK(bf_multifab_local_fab(mf, li, &f));
    BFT_CHECK(((uintptr_t)f.data % 64) == 0);
    BFT_CHECK(f.index == li && bf_multifab_local_index(mf, li) == li);
    BFT_CHECK(f.fabbox.lo[0] == f.validbox.lo[0] - 1 && f.fabbox.hi[1] == f.validbox.hi[1] + 2 &&
              f.fabbox.lo[2] == f.validbox.lo[2]);
    BFT_CHECK(f.stride[0] == 10 && f.stride[1] == 120 && f.stride[2] == 960);
  }
  bf_mf_fab f;
  BFT_FAILS(bf_multifab_local_fab(mf, 8, &f), BF_ERROR_INDEX);
  /* a fab view keeps the data after the MultiFab is gone */
  bf_fab *fab = NULL;
  BFT_OK(bf_multifab_set_val_all(mf, 4.5));
  BFT_OK(bf_multifab_get_fab(mf, 3, &fab));
  bf_buffer *buf = NULL;
  BFT_OK(bf_multifab_buffer(mf, &buf));
  bf_buffer_retain(buf);
  BFT_OK(bf_multifab_clear(mf));
  BFT_CHECK(!bf_multifab_is_allocated(mf));
  double s;
  BFT_FAILS(bf_multifab_sum(mf, NULL, 0, false, &s), BF_ERROR_RUNTIME);
  bf_multifab_destroy(&mf);
  BFT_CHECK(((double *)bf_fab_data(fab))[5] == 4.5 && bf_fab_n_bytes_owned(fab) == 0);
  BFT_CHECK(bf_fab_n_bytes(fab) == 10 * 12 * 8 * 2 * sizeof(double));
  BFT_CHECK(((double *)bf_buffer_data(buf))[0] == 4.5);
  bf_fab_destroy(&fab);
  bf_buffer_destroy(&buf);
  BFT_CHECK(buf == NULL && fab == NULL);

  /* argument errors */
  BFT_FAILS(bf_multifab_create(ba, dm, 0, iv3(3, 0, 0, 0), BF_DTYPE_DOUBLE, NULL, true, &mf), BF_ERROR_VALUE);
  BFT_FAILS(bf_multifab_create(ba, dm, 1, iv3(3, -1, 0, 0), BF_DTYPE_DOUBLE, NULL, true, &mf), BF_ERROR_VALUE);
  BFT_FAILS(bf_multifab_create(ba, dm, 1, iv3(2, 0, 0, 0), BF_DTYPE_DOUBLE, NULL, true, &mf), BF_ERROR_TYPE);
  BFT_FAILS(bf_multifab_create(ba, dm, 1, iv3(3, 0, 0, 0), 7, NULL, true, &mf), BF_ERROR_VALUE);
  bf_boxarray *ba2 = chop_domain(3, 16, 4, 0);
  BFT_FAILS(bf_multifab_create(ba2, dm, 1, iv3(3, 0, 0, 0), BF_DTYPE_DOUBLE, NULL, true, &mf), BF_ERROR_VALUE);
  /* alloc = false */
  BFT_OK(bf_multifab_create(ba, dm, 1, iv3(3, 0, 0, 0), BF_DTYPE_DOUBLE, NULL, false, &mf));
  BFT_CHECK(!bf_multifab_is_allocated(mf));
  BFT_FAILS(bf_multifab_set_val_all(mf, 1), BF_ERROR_RUNTIME);
  bf_multifab_destroy(&mf);
  bf_boxarray_destroy(&ba2);
  bf_distmap_destroy(&dm);
  bf_boxarray_destroy(&ba);
}

static void test_argument_errors(void) {
  bf_boxarray *ba = chop_domain(2, 16, 8, 0), *ba2 = chop_domain(2, 16, 4, 0), *ba3 = chop_domain(2, 32, 16, 0);
  bf_multifab *a = make_mf(ba, 2, 1, BF_DTYPE_DOUBLE), *b = make_mf(ba2, 2, 1, BF_DTYPE_DOUBLE);
  bf_multifab *c = make_mf(ba3, 2, 1, BF_DTYPE_DOUBLE), *i = make_mf(ba, 2, 1, BF_DTYPE_INT);
  bf_intvect g0 = iv3(2, 0, 0, 0), g2 = iv3(2, 2, 0, 0);
  BFT_FAILS(bf_multifab_add(a, b, 0, 0, 1, g0), BF_ERROR_VALUE);   /* different number of boxes */
  BFT_FAILS(bf_multifab_add(a, c, 0, 0, 1, g0), BF_ERROR_VALUE);   /* same number, other boxes */
  BFT_FAILS(bf_multifab_add(a, i, 0, 0, 1, g0), BF_ERROR_TYPE);    /* double and int */
  BFT_FAILS(bf_multifab_add(a, a, 1, 0, 2, g0), BF_ERROR_INDEX);   /* comps out of range */
  BFT_FAILS(bf_multifab_set_val(a, 1, NULL, 2, 1, g0), BF_ERROR_INDEX);
  BFT_FAILS(bf_multifab_set_val(a, 1, NULL, -1, 1, g0), BF_ERROR_INDEX);
  BFT_FAILS(bf_multifab_set_val(a, 1, NULL, 0, 0, g0), BF_ERROR_INDEX);
  BFT_FAILS(bf_multifab_set_val(a, 1, NULL, 0, 1, g2), BF_ERROR_INDEX); /* nghost > ngrow */
  BFT_FAILS(bf_multifab_set_val(a, 1, NULL, 0, 1, iv3(2, -1, 0, 0)), BF_ERROR_INDEX);
  BFT_FAILS(bf_multifab_set_val(a, 1, NULL, 0, 1, iv3(3, 0, 0, 0)), BF_ERROR_TYPE);
  bf_box r3 = mkbox(3, 0, 0, 0, 1, 1, 1, 0), rn = mkbox(2, 0, 0, 0, 1, 1, 0, 1);
  BFT_FAILS(bf_multifab_set_val(a, 1, &r3, 0, 1, g0), BF_ERROR_TYPE);
  BFT_FAILS(bf_multifab_set_val(a, 1, &rn, 0, 1, g0), BF_ERROR_TYPE);
  double r;
  BFT_FAILS(bf_multifab_min(a, NULL, 2, g0, false, &r), BF_ERROR_INDEX);
  BFT_FAILS(bf_multifab_max(a, NULL, 0, g2, false, &r), BF_ERROR_INDEX);
  BFT_FAILS(bf_multifab_dot(a, 0, b, 0, 1, g0, false, &r), BF_ERROR_VALUE);
  BFT_FAILS(bf_multifab_swap(a, a, 0, 1, 2, g0), BF_ERROR_INDEX);
  BFT_FAILS(bf_multifab_swap(a, a, 0, 0, 1, g0), BF_ERROR_VALUE);
  int comps[2] = {0, 5};
  double out[2];
  BFT_FAILS(bf_multifab_norm2_comps(a, 2, comps, out), BF_ERROR_INDEX);
  /* component ranges near INT_MAX must not wrap (scomp + ncomp overflowed: SIGSEGV in memcpy) */
  BFT_FAILS(bf_multifab_memcpy(a, a, INT_MAX, 0, 1), BF_ERROR_INDEX);
  BFT_FAILS(bf_multifab_memcpy(a, a, 0, INT_MAX, 1), BF_ERROR_INDEX);
  BFT_FAILS(bf_multifab_memcpy(a, a, 1, 0, INT_MAX), BF_ERROR_INDEX);
  BFT_FAILS(bf_multifab_memcpy(a, a, 0, 0, -1), BF_ERROR_INDEX);
  BFT_FAILS(bf_multifab_add(a, a, 1, 0, INT_MAX, g0), BF_ERROR_INDEX);
  BFT_FAILS(bf_multifab_swap(a, a, 0, INT_MAX, 1, g0), BF_ERROR_INDEX);
  /* a copy onto itself checks its arguments as any copy */
  BFT_FAILS(bf_multifab_copy(a, a, 99, 99, 5, g0), BF_ERROR_INDEX);
  BFT_FAILS(bf_multifab_copy(a, a, -1, -1, 1, g0), BF_ERROR_INDEX);
  BFT_FAILS(bf_multifab_copy(a, a, 0, 0, 1, g2), BF_ERROR_INDEX);
  BFT_OK(bf_multifab_copy(a, a, 1, 1, 1, iv3(2, 1, 1, 0)));
  /* int data: the scalar must convert to int (C truncation; nan or out of range is undefined) */
  BFT_FAILS(bf_multifab_set_val_all(i, NAN), BF_ERROR_VALUE);
  BFT_FAILS(bf_multifab_set_val_all(i, 2147483648.0), BF_ERROR_OVERFLOW);
  BFT_FAILS(bf_multifab_set_val_all(i, -INFINITY), BF_ERROR_OVERFLOW);
  BFT_FAILS(bf_multifab_plus_scalar(i, 1e20, NULL, 0, 1, g0), BF_ERROR_OVERFLOW);
  BFT_FAILS(bf_multifab_mult_scalar(i, NAN, NULL, 0, 1, g0), BF_ERROR_VALUE);
  BFT_OK(bf_multifab_set_val_all(i, -2147483648.0));
  /* exact int sums (the double form rounds beyond 2^53; here they are small and equal) */
  int64_t isum = 0;
  double dsum = 0;
  BFT_OK(bf_multifab_set_val_all(i, 3.0));
  BFT_OK(bf_multifab_sum_i64(i, NULL, 1, false, &isum));
  BFT_OK(bf_multifab_sum(i, NULL, 1, false, &dsum));
  BFT_CHECK(isum == 3 * 16 * 16 && dsum == (double)isum);
  BFT_OK(bf_multifab_norm1_i64(i, 0, g0, false, &isum));
  BFT_CHECK(isum == 3 * 16 * 16);
  BFT_FAILS(bf_multifab_sum_i64(a, NULL, 0, false, &isum), BF_ERROR_TYPE);
  BFT_OK(bf_multifab_set_val_all(a, NAN)); /* double data: any value */
  bf_multifab_destroy(&a), bf_multifab_destroy(&b), bf_multifab_destroy(&c), bf_multifab_destroy(&i);
  bf_boxarray_destroy(&ba), bf_boxarray_destroy(&ba2), bf_boxarray_destroy(&ba3);
}

/* Creation refuses what would wrap or belong to nobody. */
static void test_create_limits(void) {
  bf_box dom = mkbox(3, 0, 0, 0, 7, 7, 7, 0);
  bf_boxarray *ba = NULL;
  BFT_OK(bf_boxarray_create_box(&dom, &ba));
  bf_distmap *dm = dm_for(ba), *far = NULL;
  bf_multifab *m = NULL;
  /* ghost-grown boxes leave int */
  BFT_FAILS(bf_multifab_create(ba, dm, 1, iv3(3, INT_MAX, 0, 0), BF_DTYPE_DOUBLE, NULL, false, &m),
            BF_ERROR_OVERFLOW);
  BFT_FAILS(bf_multifab_create(ba, dm, 1, iv3(3, 0, 0, INT_MAX - 6), BF_DTYPE_INT, NULL, false, &m),
            BF_ERROR_OVERFLOW);
  /* bytes beyond 2^63 (2^31 cells per side), with or without allocation */
  BFT_FAILS(bf_multifab_create(ba, dm, 1, iv3(3, 1 << 30, 1 << 30, 1 << 30), BF_DTYPE_DOUBLE, NULL, false, &m),
            BF_ERROR_OVERFLOW);
  /* a box on a rank that does not exist */
  int rank = bf_parallel_nprocs();
  BFT_OK(bf_distmap_create_from_pmap(1, &rank, &far));
  BFT_FAILS(bf_multifab_create(ba, far, 1, iv3(3, 0, 0, 0), BF_DTYPE_DOUBLE, NULL, true, &m), BF_ERROR_VALUE);
  BFT_CHECK(m == NULL);
  bf_distmap_destroy(&far);
  /* two boxes of 2^60 cells: 2^64 bytes in all (the sum wrapped to a 64-byte buffer) */
  bf_box two[2] = {mkbox(3, 0, 0, 0, (1 << 20) - 1, (1 << 20) - 1, (1 << 20) - 1, 0),
                   mkbox(3, 1 << 20, 0, 0, (1 << 21) - 1, (1 << 20) - 1, (1 << 20) - 1, 0)};
  bf_boxarray *big = NULL;
  BFT_OK(bf_boxarray_create_from_boxes(3, 2, two, &big));
  bf_distmap *dm2 = dm_for(big);
  BFT_FAILS(bf_multifab_create(big, dm2, 1, iv3(3, 0, 0, 0), BF_DTYPE_DOUBLE, NULL, true, &m), BF_ERROR_OVERFLOW);
  bf_distmap_destroy(&dm2);
  bf_boxarray_destroy(&big);
  bf_distmap_destroy(&dm);
  bf_boxarray_destroy(&ba);
}

static void test_clone_copies_ghosts(void) {
  bf_boxarray *ba = chop_domain(2, 8, 4, 0);
  bf_multifab *a = make_mf(ba, 2, 2, BF_DTYPE_DOUBLE), *c = NULL;
  fill_pattern(a, 9);
  BFT_OK(bf_multifab_clone(a, &c));
  int bad = 0;
  for (int64_t li = 0; li < bf_multifab_nlocal(a); ++li) {
    bf_mf_fab f;
    bf_multifab_local_fab(a, li, &f);
    for (int n = 0; n < 2; ++n) FOR_BOX(f.fabbox, p) bad += mf_get(a, li, p, n) != mf_get(c, li, p, n);
  }
  BFT_CHECK(bad == 0);
  bf_buffer *b1, *b2;
  bf_multifab_buffer(a, &b1), bf_multifab_buffer(c, &b2);
  BFT_CHECK(b1 != b2 && bf_buffer_data(b1) != bf_buffer_data(b2));
  bf_multifab_destroy(&a), bf_multifab_destroy(&c), bf_boxarray_destroy(&ba);
}

static void test_use_after_finalize(void) {
  bf_boxarray *ba = chop_domain(3, 8, 4, 0);
  bf_multifab *a = make_mf(ba, 1, 1, BF_DTYPE_DOUBLE), *b = NULL;
  bf_multifab_set_val_all(a, 2);
  bf_buffer *buf;
  bf_multifab_buffer(a, &buf);
  bf_buffer_retain(buf);
  bf_mfiter *it = NULL;
  BFT_OK(bf_mfiter_create(a, false, NULL, &it));
  BFT_OK(bf_runtime_finalize());
  double r;
  BFT_FAILS(bf_multifab_sum(a, NULL, 0, false, &r), BF_ERROR_RUNTIME);
  BFT_FAILS(bf_multifab_set_val_all(a, 1), BF_ERROR_RUNTIME);
  BFT_FAILS(bf_multifab_clone(a, &b), BF_ERROR_RUNTIME);
  BFT_FAILS(bf_multifab_fill_boundary(a, 0, 1, iv3(3, 1, 1, 1), NULL, false), BF_ERROR_RUNTIME);
  BFT_FAILS(bf_multifab_clear(a), BF_ERROR_RUNTIME);
  bf_box bx;
  BFT_FAILS(bf_mfiter_tilebox(it, &bx), BF_ERROR_RUNTIME);
  BFT_CHECK(!bf_multifab_ok(a));
  /* the memory is still readable through the buffer */
  BFT_CHECK(((double *)bf_buffer_data(buf))[0] == 2.0);
  bf_mfiter_destroy(&it);
  bf_multifab_destroy(&a);
  bf_buffer_destroy(&buf);
  /* creating without a runtime fails */
  bf_distmap *dm = dm_for(ba);
  BFT_FAILS(bf_multifab_create(ba, dm, 1, iv3(3, 0, 0, 0), BF_DTYPE_DOUBLE, NULL, true, &b), BF_ERROR_RUNTIME);
  uint64_t id;
  BFT_OK(bf_runtime_initialize(0, NULL, &id));
  bf_distmap_destroy(&dm);
  bf_boxarray_destroy(&ba);
}

int main(void) {
  uint64_t id;
  bf_runtime_initialize(0, NULL, &id);
  BFT_RUN(test_create_and_layout);
  BFT_RUN(test_unary_ops);
  BFT_RUN(test_binary_ops);
  BFT_RUN(test_argument_errors);
  BFT_RUN(test_create_limits);
  BFT_RUN(test_clone_copies_ghosts);
  BFT_RUN(test_use_after_finalize);
  bf_runtime_finalize();
  return bft_report();
}
