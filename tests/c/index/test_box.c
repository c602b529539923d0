/* Box algebra (include/boxfab/box.h), checked against brute force where it can be. */
#include <limits.h>

#include "bftest.h"

static bf_box mk(int dim, int x0, int y0, int z0, int x1, int y1, int z1, unsigned type) {
  int lo[3] = {x0, y0, z0}, hi[3] = {x1, y1, z1};
  bf_box b;
  bf_box_define(dim, lo, hi, type, &b);
  return b;
}

/* Brute-force point count by iteration. */
static int64_t count_points(const bf_box *b) {
  int p[3];
  int64_t n = 0;
  for (bool more = bf_box_iter_begin(b, p); more; more = bf_box_iter_next(b, p)) ++n;
  return n;
}

static void test_define_and_unit(void) {
  int lo[3] = {1, 2, 3}, hi[3] = {4, 5, 6};
  bf_box b;
  BFT_OK(bf_box_define(2, lo, hi, 2u, &b));
  BFT_CHECK(b.dim == 2 && b.lo[0] == 1 && b.hi[1] == 5 && b.lo[2] == 0 && b.hi[2] == 0 && b.type == 2u);
  BFT_FAILS(bf_box_define(2, lo, hi, 4u, &b), BF_ERROR_VALUE);
  BFT_FAILS(bf_box_define(0, lo, hi, 0u, &b), BF_ERROR_VALUE);
  BFT_FAILS(bf_box_define(4, lo, hi, 0u, &b), BF_ERROR_VALUE);
  BFT_OK(bf_box_unit(3, &b));
  BFT_CHECK(bf_box_ok(&b) && b.lo[0] == 0 && b.hi[2] == 0 && b.type == 0u);
  int64_t n;
  BFT_OK(bf_box_numpts(&b, &n));
  BFT_CHECK(n == 1);
  BFT_FAILS(bf_box_unit(0, &b), BF_ERROR_VALUE);
}

static void test_type_ints(void) {
  int v[3] = {1, 0, 1};
  unsigned t;
  BFT_OK(bf_box_type_from_ints(3, v, &t));
  BFT_CHECK(t == 5u);
  int bad[3] = {0, 2, 0};
  BFT_FAILS(bf_box_type_from_ints(3, bad, &t), BF_ERROR_VALUE);
  int neg[1] = {-1};
  BFT_FAILS(bf_box_type_from_ints(1, neg, &t), BF_ERROR_VALUE);
  bf_box b = mk(3, 0, 0, 0, 1, 1, 1, 6u);
  int out[3] = {9, 9, 9};
  bf_box_type_to_ints(&b, out);
  BFT_CHECK(out[0] == 0 && out[1] == 1 && out[2] == 1);
  BFT_CHECK(!bf_box_cell_centered(&b) && !bf_box_node_centered(&b));
  BFT_CHECK(bf_box_is_nodal(&b, 1) && !bf_box_is_nodal(&b, 0) && !bf_box_is_nodal(&b, 3) && !bf_box_is_nodal(&b, -1));
  b.type = 7u;
  BFT_CHECK(bf_box_node_centered(&b));
}

static void test_counts_match_iteration(void) {
  for (int dim = 1; dim <= 3; ++dim)
    for (int ext = -1; ext <= 3; ++ext) {
      bf_box b = mk(dim, -2, 1, 5, -2 + ext, 1 + ext + 1, 5 + ext, 0u);
      int64_t n;
      BFT_OK(bf_box_numpts(&b, &n));
      BFT_CHECK(n == count_points(&b));
      BFT_CHECK(bf_box_d_numpts(&b) == (double)n);
      BFT_CHECK(bf_box_ok(&b) == (n > 0) && bf_box_is_empty(&b) == (n == 0));
    }
}

static void test_iteration_order(void) {
  bf_box b = mk(2, 0, 0, 0, 2, 1, 0, 0u);
  int p[3], k = 0, expect[6][2] = {{0, 0}, {1, 0}, {2, 0}, {0, 1}, {1, 1}, {2, 1}};
  for (bool more = bf_box_iter_begin(&b, p); more; more = bf_box_iter_next(&b, p), ++k)
    BFT_CHECK(k < 6 && p[0] == expect[k][0] && p[1] == expect[k][1]);
  BFT_CHECK(k == 6);
  /* touching INT_MAX: no overflow (UBSan would catch one), exact count */
  bf_box e = mk(2, INT_MAX - 1, INT_MAX - 2, 0, INT_MAX, INT_MAX, 0, 0u);
  BFT_CHECK(count_points(&e) == 6);
  bf_box empty = mk(3, 0, 0, 0, 3, -1, 3, 0u);
  BFT_CHECK(!bf_box_iter_begin(&empty, p));
}

static void test_numpts_overflow(void) {
  bf_box b = mk(3, INT_MIN, INT_MIN, INT_MIN, INT_MAX, INT_MAX, INT_MAX, 0u);
  int64_t n = 7;
  BFT_FAILS(bf_box_numpts(&b, &n), BF_ERROR_OVERFLOW);
  BFT_CHECK(n == 7);
  bf_box b2 = mk(2, INT_MIN, INT_MIN, 0, INT_MAX, INT_MAX, 0, 0u); /* 2^64 points */
  BFT_FAILS(bf_box_numpts(&b2, &n), BF_ERROR_OVERFLOW);
  bf_box b1 = mk(1, INT_MIN, 0, 0, INT_MAX, 0, 0, 0u);
  BFT_OK(bf_box_numpts(&b1, &n));
  BFT_CHECK(n == (int64_t)1 << 32);
  BFT_CHECK(bf_box_d_numpts(&b2) == 18446744073709551616.0);
  int sz[3];
  BFT_FAILS(bf_box_size(&b1, sz), BF_ERROR_OVERFLOW);
  BFT_FAILS(bf_box_length3(&b1, sz), BF_ERROR_OVERFLOW);
  BFT_CHECK(bf_box_length(&b1, 0) == (int64_t)1 << 32);
}

static void test_dim3_views(void) {
  bf_box b = mk(2, -1, 2, 0, 3, 7, 0, 0u);
  int v[3];
  bf_box_lbound3(&b, v);
  BFT_CHECK(v[0] == -1 && v[1] == 2 && v[2] == 0);
  bf_box_ubound3(&b, v);
  BFT_CHECK(v[0] == 3 && v[1] == 7 && v[2] == 0);
  BFT_OK(bf_box_length3(&b, v));
  BFT_CHECK(v[0] == 5 && v[1] == 6 && v[2] == 1);
  BFT_OK(bf_box_end3(&b, v));
  BFT_CHECK(v[0] == 4 && v[1] == 8 && v[2] == 1);
  bf_box m = mk(1, 0, 0, 0, INT_MAX, 0, 0, 0u);
  BFT_FAILS(bf_box_end3(&m, v), BF_ERROR_OVERFLOW);
}

static void test_predicates(void) {
  bf_box b = mk(2, 0, 0, 0, 3, 3, 0, 0u);
  int in[2] = {3, 0}, mid[2] = {1, 2}, out[2] = {4, 0};
  BFT_CHECK(bf_box_contains(&b, in) && !bf_box_strictly_contains(&b, in));
  BFT_CHECK(bf_box_contains(&b, mid) && bf_box_strictly_contains(&b, mid));
  BFT_CHECK(!bf_box_contains(&b, out));
  BFT_CHECK(bf_box_is_square(&b));
  bf_box r = mk(2, 0, 0, 0, 3, 4, 0, 0u);
  BFT_CHECK(!bf_box_is_square(&r) && !bf_box_same_size(&b, &r));
  bf_box s = mk(2, 10, 10, 0, 13, 13, 0, 0u);
  BFT_CHECK(bf_box_same_size(&b, &s) && !bf_box_equal(&b, &s) && bf_box_same_type(&b, &s));
  BFT_CHECK(!bf_box_intersects(&b, &s));
  bf_box t = mk(2, 3, 3, 0, 5, 5, 0, 0u);
  BFT_CHECK(bf_box_intersects(&b, &t) && bf_box_intersects(&t, &b));
  bf_box x;
  bf_box_intersection(&b, &t, &x);
  BFT_CHECK(x.lo[0] == 3 && x.hi[0] == 3 && x.lo[1] == 3 && x.hi[1] == 3);
  bf_box_minimal(&b, &t, &x);
  BFT_CHECK(x.lo[0] == 0 && x.hi[1] == 5);
  BFT_CHECK(bf_box_contains_box(&r, &b) && !bf_box_contains_box(&b, &r));
  bf_box n = t;
  n.type = 1u;
  BFT_CHECK(!bf_box_intersects(&b, &n) && !bf_box_same_type(&b, &n));
  BFT_CHECK(bf_box_check_same_type(&b, &n, "intersects") == BF_ERROR_VALUE &&
            strstr(bf_error_message(), "intersects: boxes of different index types"));
  bf_error_clear();
  bf_box three = mk(3, 0, 0, 0, 1, 1, 1, 0u);
  BFT_FAILS(bf_box_check_same_type(&b, &three, "intersects"), BF_ERROR_TYPE);
  BFT_OK(bf_box_check_same_type(&b, &t, "intersects"));
  bf_box e = mk(2, 2, 2, 0, 1, 1, 0, 0u); /* empty, inside b's range */
  BFT_CHECK(!bf_box_intersects(&b, &e) && !bf_box_intersects(&e, &b));
}

static void test_shift_grow_overflow(void) {
  bf_box b = mk(3, 0, 0, 0, INT_MAX - 1, 5, 5, 0u), keep = b;
  BFT_FAILS(bf_box_shift(&b, 0, 2), BF_ERROR_OVERFLOW);
  BFT_CHECK(bf_box_equal(&b, &keep));
  BFT_FAILS(bf_box_shift(&b, 3, 1), BF_ERROR_INDEX);
  BFT_FAILS(bf_box_shift(&b, -1, 1), BF_ERROR_INDEX);
  int s[3] = {0, 1, 1};
  BFT_OK(bf_box_shift_iv(&b, s));
  BFT_CHECK(b.lo[1] == 1 && b.hi[2] == 6);
  keep = b;
  BFT_FAILS(bf_box_shift_iv(&b, (int[3]){2, 0, 0}), BF_ERROR_OVERFLOW); /* fails in the 1st direction */
  BFT_FAILS(bf_box_shift_iv(&b, (int[3]){-1, 1, INT_MAX}), BF_ERROR_OVERFLOW); /* fails in the last one */
  BFT_CHECK(bf_box_equal(&b, &keep)); /* unchanged, also the directions before the failing one */
  bf_box u = mk(1, -5, 0, 0, -1, 0, 0, 0u);
  BFT_OK(bf_box_shift_iv_neg(&u, (int[1]){INT_MIN})); /* -INT_MIN does not fit, the result does */
  BFT_CHECK(u.lo[0] == INT_MAX - 4 && u.hi[0] == INT_MAX);
  BFT_FAILS(bf_box_shift_iv_neg(&u, (int[1]){-1}), BF_ERROR_OVERFLOW);
  BFT_CHECK(u.lo[0] == INT_MAX - 4 && u.hi[0] == INT_MAX);
  bf_box g = mk(3, 0, 0, 0, 4, 4, INT_MAX - 1, 0u), gk = g;
  BFT_FAILS(bf_box_grow(&g, (int[3]){1, 1, 2}), BF_ERROR_OVERFLOW);
  BFT_CHECK(bf_box_equal(&g, &gk));
  BFT_OK(bf_box_grow(&g, (int[3]){1, -1, 1}));
  BFT_CHECK(g.lo[0] == -1 && g.hi[0] == 5 && g.lo[1] == 1 && g.hi[1] == 3 && g.hi[2] == INT_MAX);
  bf_box l = mk(1, INT_MIN + 1, 0, 0, 0, 0, 0, 0u);
  BFT_FAILS(bf_box_grow_dir(&l, 0, 2, 0), BF_ERROR_OVERFLOW);
  BFT_OK(bf_box_grow_dir(&l, 0, 1, 0));
  BFT_CHECK(l.lo[0] == INT_MIN);
  BFT_OK(bf_box_grow_dir(&l, 0, 0, 3));
  BFT_CHECK(l.lo[0] == INT_MIN && l.hi[0] == 3);
  BFT_FAILS(bf_box_grow_dir(&l, 1, 1, 1), BF_ERROR_INDEX);
}

static void test_refine_coarsen(void) {
  for (unsigned type = 0; type < 4; ++type)
    for (int lo = -9; lo <= 3; ++lo)
      for (int r = 1; r <= 4; ++r) {
        bf_box b = mk(2, lo, -lo, 0, lo + 5, 7, 0, type), c = b;
        int ratio[2] = {r, r + 1};
        BFT_OK(bf_box_refine(&c, ratio));
        BFT_OK(bf_box_coarsen(&c, ratio));
        BFT_CHECK(bf_box_equal(&b, &c)); /* coarsen(refine(b)) == b */
      }
  /* floor division of negative indices */
  bf_box b = mk(1, -5, 0, 0, -1, 0, 0, 0u);
  BFT_OK(bf_box_coarsen(&b, (int[1]){2}));
  BFT_CHECK(b.lo[0] == -3 && b.hi[0] == -1);
  /* a nodal big end that is not a multiple rounds up */
  bf_box n = mk(1, -3, 0, 0, 3, 0, 0, 1u);
  BFT_OK(bf_box_coarsen(&n, (int[1]){2}));
  BFT_CHECK(n.lo[0] == -2 && n.hi[0] == 2);
  bf_box cell = mk(1, 0, 0, 0, 3, 0, 0, 0u);
  BFT_OK(bf_box_refine(&cell, (int[1]){2}));
  BFT_CHECK(cell.lo[0] == 0 && cell.hi[0] == 7);
  bf_box node = mk(1, 0, 0, 0, 3, 0, 0, 1u);
  BFT_OK(bf_box_refine(&node, (int[1]){2}));
  BFT_CHECK(node.lo[0] == 0 && node.hi[0] == 6);
  bf_box edge = mk(1, 0, 0, 0, INT_MAX / 2, 0, 0, 0u); /* (hi+1)*2-1 == INT_MAX: fits */
  BFT_OK(bf_box_refine(&edge, (int[1]){2}));
  BFT_CHECK(edge.hi[0] == INT_MAX);
  bf_box o = mk(1, 0, 0, 0, INT_MAX / 2 + 1, 0, 0, 0u), ok = o;
  BFT_FAILS(bf_box_refine(&o, (int[1]){2}), BF_ERROR_OVERFLOW);
  BFT_CHECK(bf_box_equal(&o, &ok));
  BFT_FAILS(bf_box_refine(&o, (int[1]){0}), BF_ERROR_VALUE);
  BFT_FAILS(bf_box_coarsen(&o, (int[1]){-2}), BF_ERROR_VALUE);
  BFT_CHECK(bf_box_equal(&o, &ok));
}

static void test_convert(void) {
  bf_box b = mk(3, 0, 0, 0, 3, 3, 3, 0u);
  BFT_OK(bf_box_convert(&b, 5u));
  BFT_CHECK(b.hi[0] == 4 && b.hi[1] == 3 && b.hi[2] == 4 && b.type == 5u);
  BFT_OK(bf_box_enclosed_cells(&b, 0));
  BFT_CHECK(b.hi[0] == 3 && b.type == 4u);
  BFT_OK(bf_box_surrounding_nodes(&b, -1));
  BFT_CHECK(b.hi[0] == 4 && b.hi[1] == 4 && b.hi[2] == 4 && b.type == 7u);
  BFT_OK(bf_box_enclosed_cells(&b, -1));
  BFT_CHECK(bf_box_equal(&b, &(bf_box){3, {0, 0, 0}, {3, 3, 3}, 0u}));
  BFT_FAILS(bf_box_surrounding_nodes(&b, 3), BF_ERROR_INDEX);
  BFT_FAILS(bf_box_enclosed_cells(&b, 3), BF_ERROR_INDEX);
  BFT_FAILS(bf_box_convert(&b, 8u), BF_ERROR_VALUE);
  bf_box m = mk(1, 0, 0, 0, INT_MAX, 0, 0, 0u), mk_ = m;
  BFT_FAILS(bf_box_surrounding_nodes(&m, 0), BF_ERROR_OVERFLOW);
  BFT_CHECK(bf_box_equal(&m, &mk_));
  bf_box lo = mk(1, INT_MIN, 0, 0, INT_MIN, 0, 0, 1u);
  BFT_FAILS(bf_box_enclosed_cells(&lo, 0), BF_ERROR_OVERFLOW);
}

static void test_normalize_and_slab(void) {
  /* AMReX_Box.H Box::normalize(): growHi(d, 1) where length(d) == 0, nothing else (no swap) */
  bf_box b = mk(3, 5, 0, 9, 1, 2, 3, 0u); /* lengths -3, 3, -5: unchanged */
  bf_box_normalize(&b);
  BFT_CHECK(b.lo[0] == 5 && b.hi[0] == 1 && b.lo[1] == 0 && b.hi[1] == 2 && b.lo[2] == 9 && b.hi[2] == 3);
  b = mk(3, 1, 0, 3, 0, 2, 2, 5u); /* lengths 0, 3, 0 */
  bf_box_normalize(&b);
  BFT_CHECK(b.lo[0] == 1 && b.hi[0] == 1 && b.lo[1] == 0 && b.hi[1] == 2 && b.lo[2] == 3 && b.hi[2] == 3 && b.type == 5u);
  BFT_OK(bf_box_make_slab(&b, 1, 7));
  BFT_CHECK(b.lo[1] == 7 && b.hi[1] == 7 && b.lo[0] == 1 && b.hi[2] == 3);
  BFT_FAILS(bf_box_make_slab(&b, 3, 0), BF_ERROR_INDEX);
  BFT_FAILS(bf_box_make_slab(&b, -1, 0), BF_ERROR_INDEX);
}

/* AMReX_Box.H Box::volume(): prod (length - btype) when ok(), else 0; Box::isSquare: false in 1D */
static void test_volume_and_square(void) {
  int64_t v = -1, np = -1;
  bf_box b = mk(3, 0, 0, 0, 3, 3, 3, 7u);
  BFT_OK(bf_box_volume(&b, &v));
  BFT_OK(bf_box_numpts(&b, &np));
  BFT_CHECK(v == 27 && np == 64);
  b = mk(2, -2, 0, 0, 5, 3, 0, 1u); /* nodal in x: 7 cells x 4 */
  BFT_OK(bf_box_volume(&b, &v));
  BFT_CHECK(v == 28);
  b = mk(1, 4, 0, 0, 4, 0, 0, 1u); /* one node: no cell */
  BFT_OK(bf_box_volume(&b, &v));
  BFT_CHECK(v == 0 && bf_box_ok(&b));
  b = mk(2, 1, 1, 0, 0, 5, 0, 0u);
  BFT_OK(bf_box_volume(&b, &v));
  BFT_CHECK(v == 0);
  b = mk(3, INT_MIN, INT_MIN, INT_MIN, INT_MAX, INT_MAX, INT_MAX, 0u);
  BFT_FAILS(bf_box_volume(&b, &v), BF_ERROR_OVERFLOW);
  b = mk(1, 0, 0, 0, 3, 0, 0, 0u);
  BFT_CHECK(!bf_box_is_square(&b));
  b = mk(2, 0, 0, 0, 3, 3, 0, 0u);
  BFT_CHECK(bf_box_is_square(&b));
}

/* AMReX_Box.H Box::chop, adjCellLo/Hi, bdryLo/Hi */
static void test_chop_adj_bdry(void) {
  bf_box b = mk(2, 0, 0, 0, 7, 5, 0, 1u), hi; /* nodal in x */
  BFT_OK(bf_box_chop(&b, 0, 3, &hi));
  BFT_CHECK(b.hi[0] == 3 && hi.lo[0] == 3 && hi.hi[0] == 7 && hi.type == 1u && hi.hi[1] == 5);
  BFT_FAILS(bf_box_chop(&b, 0, 3, &hi), BF_ERROR_VALUE); /* node: chop_pnt must be < big */
  BFT_FAILS(bf_box_chop(&b, 0, 0, &hi), BF_ERROR_VALUE); /* ... and > small */
  BFT_OK(bf_box_chop(&b, 1, 5, &hi)); /* cell in y: the chop point goes to the high part only */
  BFT_CHECK(b.hi[1] == 4 && hi.lo[1] == 5 && hi.hi[1] == 5);
  BFT_FAILS(bf_box_chop(&b, 2, 1, &hi), BF_ERROR_INDEX);
  bf_box a = mk(2, 0, 0, 0, 3, 5, 0, 1u), r;
  BFT_OK(bf_box_adj_cell(&a, 0, 1, true, &r)); /* high: starts at big + 1 - 1 (nodal), cell in x */
  BFT_CHECK(r.lo[0] == 3 && r.hi[0] == 3 && r.type == 0u);
  BFT_OK(bf_box_adj_cell(&a, 1, 2, false, &r));
  BFT_CHECK(r.lo[1] == -2 && r.hi[1] == -1 && r.type == 1u && r.hi[0] == 3);
  BFT_FAILS(bf_box_adj_cell(&a, 1, 0, false, &r), BF_ERROR_VALUE);
  BFT_OK(bf_box_bdry(&a, 1, 1, false, &r)); /* low: small - len + 1 .. small, node in y */
  BFT_CHECK(r.lo[1] == 0 && r.hi[1] == 0 && r.type == 3u);
  BFT_OK(bf_box_bdry(&a, 1, 2, true, &r)); /* high (cell in y): big + 1 .. big + 2 */
  BFT_CHECK(r.lo[1] == 6 && r.hi[1] == 7 && r.type == 3u);
  BFT_FAILS(bf_box_bdry(&a, 1, 0, false, &r), BF_ERROR_VALUE); /* issue 21: len < 1 made an empty box */
  BFT_FAILS(bf_box_bdry(&a, 1, -1, true, &r), BF_ERROR_VALUE);
  a.hi[1] = INT_MAX;
  BFT_FAILS(bf_box_adj_cell(&a, 1, 1, true, &r), BF_ERROR_OVERFLOW);
}

int main(void) {
  BFT_RUN(test_chop_adj_bdry);
  BFT_RUN(test_volume_and_square);
  BFT_RUN(test_define_and_unit);
  BFT_RUN(test_type_ints);
  BFT_RUN(test_counts_match_iteration);
  BFT_RUN(test_iteration_order);
  BFT_RUN(test_numpts_overflow);
  BFT_RUN(test_dim3_views);
  BFT_RUN(test_predicates);
  BFT_RUN(test_shift_grow_overflow);
  BFT_RUN(test_refine_coarsen);
  BFT_RUN(test_convert);
  BFT_RUN(test_normalize_and_slab);
  return bft_report();
}
