/* IntVect: floor division, coarsen/refine, checked arithmetic, reductions, index type bits. */
#include <limits.h>
#include <math.h>

#include "bftest.h"

static bf_intvect iv3(int x, int y, int z) {
  bf_intvect r = {3, {x, y, z}};
  return r;
}

/* Reference: floor of the exact quotient, computed in long double. */
static int floor_ref(int a, int b) { return (int)floorl((long double)a / (long double)b); }

static void test_floor_div_matches_floor_of_quotient(void) {
  for (int a = -50; a <= 50; ++a)
    for (int b = 1; b <= 9; ++b) BFT_CHECK(bf_floor_div(a, b) == floor_ref(a, b));
  BFT_CHECK(bf_floor_div(-1, 2) == -1);
  BFT_CHECK(bf_floor_div(-2, 2) == -1);
  BFT_CHECK(bf_floor_div(-3, 2) == -2);
  BFT_CHECK(bf_floor_div(INT_MIN, 1) == INT_MIN);
  BFT_CHECK(bf_floor_div(INT_MIN, 2) == INT_MIN / 2);
  BFT_CHECK(bf_floor_div(INT_MIN + 1, 2) == floor_ref(INT_MIN + 1, 2));
  BFT_CHECK(bf_floor_div(INT_MAX, 2) == INT_MAX / 2);
  BFT_CHECK(bf_floor_div(INT_MIN, INT_MAX) == -2);
}

static void test_coarsen_floors_each_component(void) {
  bf_intvect p = iv3(-5, 7, -8), r = iv3(2, 3, 4);
  BFT_OK(bf_intvect_coarsen(&p, &r));
  BFT_CHECK(p.v[0] == -3 && p.v[1] == 2 && p.v[2] == -2);
  bf_intvect q = {2, {-1, 1, 0}}, r2 = {2, {4, 4, 0}};
  BFT_OK(bf_intvect_coarsen(&q, &r2));
  BFT_CHECK(q.dim == 2 && q.v[0] == -1 && q.v[1] == 0);
}

static void test_coarsen_rejects_bad_ratio(void) {
  bf_intvect p = iv3(1, 2, 3), zero = iv3(1, 0, 1), neg = iv3(1, 1, -2), r2 = {2, {1, 1, 0}};
  BFT_FAILS(bf_intvect_coarsen(&p, &zero), BF_ERROR_VALUE);
  BFT_FAILS(bf_intvect_coarsen(&p, &neg), BF_ERROR_VALUE);
  BFT_FAILS(bf_intvect_coarsen(&p, &r2), BF_ERROR_TYPE);
  BFT_CHECK(p.v[0] == 1 && p.v[1] == 2 && p.v[2] == 3);
}

static void test_arith_componentwise(void) {
  bf_intvect a = iv3(7, -7, 9), b = iv3(2, 2, -4), r;
  BFT_OK(bf_intvect_arith(&r, &a, BF_INTVECT_ADD, &b));
  BFT_CHECK(r.dim == 3 && r.v[0] == 9 && r.v[1] == -5 && r.v[2] == 5);
  BFT_OK(bf_intvect_arith(&r, &a, BF_INTVECT_SUB, &b));
  BFT_CHECK(r.v[0] == 5 && r.v[1] == -9 && r.v[2] == 13);
  BFT_OK(bf_intvect_arith(&r, &a, BF_INTVECT_MUL, &b));
  BFT_CHECK(r.v[0] == 14 && r.v[1] == -14 && r.v[2] == -36);
  BFT_OK(bf_intvect_arith(&r, &a, BF_INTVECT_DIV, &b)); /* truncation toward zero */
  BFT_CHECK(r.v[0] == 3 && r.v[1] == -3 && r.v[2] == -2);
  BFT_OK(bf_intvect_arith(&a, &a, BF_INTVECT_ADD, &a)); /* aliasing */
  BFT_CHECK(a.v[0] == 14 && a.v[1] == -14 && a.v[2] == 18);
  bf_intvect c = {1, {5, 0, 0}}, d = {1, {3, 0, 0}};
  BFT_OK(bf_intvect_arith(&r, &c, BF_INTVECT_SUB, &d));
  BFT_CHECK(r.dim == 1 && r.v[0] == 2 && r.v[1] == 0 && r.v[2] == 0);
}

static void test_arith_detects_overflow_and_leaves_out_unchanged(void) {
  bf_intvect big = iv3(INT_MAX, 0, 0), one = iv3(1, 1, 1), min = iv3(INT_MIN, 1, 1), m1 = iv3(-1, 1, 1);
  bf_intvect out = iv3(11, 12, 13);
  BFT_FAILS(bf_intvect_arith(&out, &big, BF_INTVECT_ADD, &one), BF_ERROR_OVERFLOW);
  BFT_FAILS(bf_intvect_arith(&out, &min, BF_INTVECT_SUB, &one), BF_ERROR_OVERFLOW);
  bf_intvect two = iv3(2, 2, 2);
  BFT_FAILS(bf_intvect_arith(&out, &big, BF_INTVECT_MUL, &two), BF_ERROR_OVERFLOW);
  BFT_FAILS(bf_intvect_arith(&out, &min, BF_INTVECT_DIV, &m1), BF_ERROR_OVERFLOW);
  BFT_CHECK(out.v[0] == 11 && out.v[1] == 12 && out.v[2] == 13);
  /* the edges that still fit */
  bf_intvect r;
  BFT_OK(bf_intvect_arith(&r, &min, BF_INTVECT_ADD, &big));
  BFT_CHECK(r.v[0] == -1);
  BFT_OK(bf_intvect_arith(&r, &min, BF_INTVECT_DIV, &one));
  BFT_CHECK(r.v[0] == INT_MIN);
}

static void test_arith_rejects_bad_input(void) {
  bf_intvect a = iv3(1, 2, 3), z = iv3(1, 0, 1), b2 = {2, {1, 1, 0}}, r;
  BFT_FAILS(bf_intvect_arith(&r, &a, BF_INTVECT_DIV, &z), BF_ERROR_VALUE);
  BFT_FAILS(bf_intvect_arith(&r, &a, BF_INTVECT_ADD, &b2), BF_ERROR_TYPE);
  BFT_FAILS(bf_intvect_arith(&r, &a, 17, &a), BF_ERROR_VALUE);
  bf_intvect bad = {0, {0, 0, 0}};
  BFT_FAILS(bf_intvect_arith(&r, &bad, BF_INTVECT_ADD, &bad), BF_ERROR_VALUE);
}

static void test_refine_multiplies_and_checks(void) {
  bf_intvect p = iv3(-3, 4, 5), r = iv3(2, 3, 1);
  BFT_OK(bf_intvect_refine(&p, &r));
  BFT_CHECK(p.v[0] == -6 && p.v[1] == 12 && p.v[2] == 5);
  bf_intvect big = iv3(1, INT_MAX / 2 + 1, 1), two = iv3(2, 2, 2);
  BFT_FAILS(bf_intvect_refine(&big, &two), BF_ERROR_OVERFLOW);
  BFT_CHECK(big.v[0] == 1 && big.v[1] == INT_MAX / 2 + 1); /* unchanged */
  bf_intvect zero = iv3(2, 0, 2), r2 = {2, {2, 2, 0}};
  BFT_FAILS(bf_intvect_refine(&p, &zero), BF_ERROR_VALUE);
  BFT_FAILS(bf_intvect_refine(&p, &r2), BF_ERROR_TYPE);
}

static void test_reductions_and_compare(void) {
  bf_intvect a = iv3(INT_MAX, INT_MAX, -5);
  BFT_CHECK(bf_intvect_sum(&a) == 2 * (int64_t)INT_MAX - 5);
  BFT_CHECK(bf_intvect_max(&a) == INT_MAX && bf_intvect_min(&a) == -5);
  bf_intvect one = {1, {-4, 99, 99}}; /* components past dim are ignored */
  BFT_CHECK(bf_intvect_sum(&one) == -4 && bf_intvect_max(&one) == -4 && bf_intvect_min(&one) == -4);
  bf_intvect p = iv3(9, 0, 1), q = iv3(0, 5, 1);
  BFT_CHECK(bf_intvect_compare(&p, &q) == -1 && bf_intvect_compare(&q, &p) == 1); /* z tie, y decides */
  BFT_CHECK(bf_intvect_compare(&p, &p) == 0 && bf_intvect_equal(&p, &p) && !bf_intvect_equal(&p, &q));
  bf_intvect s = bf_intvect_splat(2, 7);
  BFT_CHECK(s.dim == 2 && s.v[0] == 7 && s.v[1] == 7 && s.v[2] == 0);
}

static void test_indextype_bits(void) {
  BFT_CHECK(bf_indextype_all_nodal(1) == 1u && bf_indextype_all_nodal(3) == 7u);
  bf_intvect t = bf_indextype_to_intvect(3, 5u);
  BFT_CHECK(t.v[0] == 1 && t.v[1] == 0 && t.v[2] == 1);
  BFT_CHECK(bf_indextype_ok(2, 3u) && !bf_indextype_ok(2, 4u));
}

int main(void) {
  BFT_RUN(test_floor_div_matches_floor_of_quotient);
  BFT_RUN(test_coarsen_floors_each_component);
  BFT_RUN(test_coarsen_rejects_bad_ratio);
  BFT_RUN(test_arith_componentwise);
  BFT_RUN(test_arith_detects_overflow_and_leaves_out_unchanged);
  BFT_RUN(test_arith_rejects_bad_input);
  BFT_RUN(test_refine_multiplies_and_checks);
  BFT_RUN(test_reductions_and_compare);
  BFT_RUN(test_indextype_bits);
  return bft_report();
}
