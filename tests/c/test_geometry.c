/* RealVect helpers, RealBox, Periodicity and Geometry of the C API. */
#include <limits.h>
#include <math.h>

#include "bftest.h"

static void test_realvect_ops(void) {
  double a[3] = {1.0, -2.0, 3.0}, b[3] = {4.0, 5.0, -6.0}, r[3];
  BFT_OK(bf_realvect_binop(3, BF_RV_SUB, a, b, r));
  BFT_CHECK(r[0] == -3.0 && r[1] == -7.0 && r[2] == 9.0);
  BFT_OK(bf_realvect_binop(3, BF_RV_MIN, a, b, r));
  BFT_CHECK(r[0] == 1.0 && r[1] == -2.0 && r[2] == -6.0);
  BFT_FAILS(bf_realvect_binop(3, 99, a, b, r), BF_ERROR_VALUE);
  BFT_FAILS(bf_realvect_binop(4, BF_RV_ADD, a, b, r), BF_ERROR_VALUE);
  BFT_CHECK(bf_realvect_dot(3, a, b) == 4.0 - 10.0 - 18.0);
  BFT_OK(bf_realvect_cross(3, a, b, r));
  BFT_CHECK(r[0] == -2.0 * -6.0 - 3.0 * 5.0 && r[1] == 3.0 * 4.0 - 1.0 * -6.0 && r[2] == 1.0 * 5.0 + 2.0 * 4.0);
  BFT_FAILS(bf_realvect_cross(2, a, b, r), BF_ERROR_VALUE);
  BFT_CHECK(bf_realvect_min_dir(3, a, false) == 1 && bf_realvect_min_dir(3, a, true) == 0);
  BFT_CHECK(bf_realvect_max_dir(3, b, false) == 1 && bf_realvect_max_dir(3, b, true) == 2);
  BFT_CHECK(bf_realvect_product(3, a) == -6.0 && bf_realvect_sum(3, a) == 2.0);
  BFT_CHECK(fabs(bf_realvect_length(3, a) - sqrt(14.0)) < 1e-15);
  BFT_CHECK(!bf_realvect_all_lt(3, a, b) && bf_realvect_all_le(2, a, b) && bf_realvect_all_lt(1, a, b));
}

static void test_realvect_rounding(void) {
  double a[3] = {-1.5, 2.5, 0.49};
  bf_intvect iv;
  BFT_OK(bf_realvect_to_intvect(3, a, BF_ROUND_FLOOR, &iv));
  BFT_CHECK(iv.v[0] == -2 && iv.v[1] == 2 && iv.v[2] == 0);
  BFT_OK(bf_realvect_to_intvect(3, a, BF_ROUND_CEIL, &iv));
  BFT_CHECK(iv.v[0] == -1 && iv.v[1] == 3 && iv.v[2] == 1);
  BFT_OK(bf_realvect_to_intvect(3, a, BF_ROUND_NEAREST, &iv)); /* halves away from zero */
  BFT_CHECK(iv.v[0] == -2 && iv.v[1] == 3 && iv.v[2] == 0);
  double big[1] = {3e9}, nan_[1] = {NAN};
  BFT_FAILS(bf_realvect_to_intvect(1, big, BF_ROUND_FLOOR, &iv), BF_ERROR_OVERFLOW);
  BFT_FAILS(bf_realvect_to_intvect(1, nan_, BF_ROUND_FLOOR, &iv), BF_ERROR_VALUE);
}

static void test_realbox(void) {
  bf_realbox rb, small, def;
  BFT_OK(bf_realbox_default(2, &def));
  BFT_CHECK(!bf_realbox_ok(&def) && bf_realbox_volume(&def) == 0.0);
  double lo[2] = {0.0, -1.0}, hi[2] = {2.0, 1.0};
  BFT_OK(bf_realbox_define(2, lo, hi, &rb));
  BFT_CHECK(bf_realbox_ok(&rb) && bf_realbox_volume(&rb) == 4.0 && bf_realbox_length(&rb, 1) == 2.0);
  double on_edge[2] = {0.0, 0.0}, in[2] = {1.0, 0.5};
  BFT_CHECK(bf_realbox_contains_point(&rb, in, 0.0));
  BFT_CHECK(!bf_realbox_contains_point(&rb, on_edge, 0.0) && bf_realbox_contains_point(&rb, on_edge, 1e-12));
  BFT_CHECK(!bf_realbox_contains_box(&rb, &rb, 0.0) && bf_realbox_contains_box(&rb, &rb, 1e-12));
  double slo[2] = {2.0, 1.0}, shi[2] = {3.0, 2.0};
  BFT_OK(bf_realbox_define(2, slo, shi, &small));
  BFT_CHECK(bf_realbox_intersects(&rb, &small)); /* touching corner */
  small.lo[0] = 2.5;
  BFT_CHECK(!bf_realbox_intersects(&rb, &small));
  bf_realbox near = rb;
  near.hi[0] += 1e-9;
  BFT_CHECK(!bf_realbox_almost_equal(&rb, &near, 0.0) && bf_realbox_almost_equal(&rb, &near, 1e-8));
  bf_box bx;
  int blo[2] = {2, -1}, bhi[2] = {5, 3};
  BFT_OK(bf_box_define(2, blo, bhi, 0x2u, &bx)); /* nodal in y */
  double dx[2] = {0.5, 0.25}, base[2] = {1.0, 0.0};
  BFT_OK(bf_realbox_from_box(&bx, dx, base, &rb));
  BFT_CHECK(rb.lo[0] == 2.0 && rb.hi[0] == 4.0 && rb.lo[1] == -0.25 && rb.hi[1] == 0.75);
}

static void test_periodicity(void) {
  bf_periodicity p;
  int per[3] = {4, 0, 2};
  BFT_OK(bf_periodicity_define(3, per, &p));
  BFT_CHECK(bf_periodicity_is_periodic(&p, 0) && !bf_periodicity_is_periodic(&p, 1) &&
            !bf_periodicity_is_periodic(&p, 3));
  BFT_CHECK(bf_periodicity_is_any_periodic(&p) && !bf_periodicity_is_all_periodic(&p));
  bf_intvect s[BF_PERIODICITY_MAX_SHIFTS];
  int n;
  bf_periodicity_shifts(&p, s, &n);
  BFT_CHECK(n == 9 && s[0].v[0] == -4 && s[0].v[1] == 0 && s[0].v[2] == -2 && s[4].v[0] == 0 && s[4].v[2] == 0);
  BFT_CHECK(s[8].v[0] == 4 && s[8].v[2] == 2 && s[1].v[2] == 0 && s[3].v[0] == 0);
  bf_box dom;
  bf_periodicity_domain(&p, &dom);
  BFT_CHECK(dom.lo[0] == 0 && dom.hi[0] == 3 && dom.lo[1] == INT_MIN && dom.hi[1] == INT_MAX - 1);
  int bad[3] = {1, -1, 0};
  BFT_FAILS(bf_periodicity_define(3, bad, &p), BF_ERROR_VALUE);
  BFT_OK(bf_periodicity_non_periodic(2, &p));
  bf_periodicity_shifts(&p, s, &n);
  BFT_CHECK(n == 1 && s[0].v[0] == 0 && s[0].v[1] == 0);
}

static void define_geometry(bf_geometry *g) {
  bf_box dom;
  int lo[3] = {0, 0, 0}, hi[3] = {9, 19, 29}, per[3] = {0, 1, 0};
  double plo[3] = {0.0, -1.0, 0.1}, phi[3] = {1.0, 1.0, 0.7};
  bf_realbox rb;
  BFT_OK(bf_box_define(3, lo, hi, 0, &dom));
  BFT_OK(bf_realbox_define(3, plo, phi, &rb));
  BFT_OK(bf_geometry_define(&dom, &rb, BF_COORD_RZ, per, g));
}

static void test_geometry_define(void) {
  bf_geometry g;
  define_geometry(&g);
  BFT_CHECK(g.dx[0] == 0.1 && g.dx[1] == 0.1 && fabs(g.dx[2] - 0.02) < 1e-15 && g.inv_dx[0] == 1.0 / 0.1);
  BFT_CHECK(g.coord == BF_COORD_RZ && g.is_periodic[1] == 1 && !bf_geometry_is_all_periodic(&g));
  int period;
  BFT_OK(bf_geometry_period(&g, 1, &period));
  BFT_CHECK(period == 20);
  BFT_FAILS(bf_geometry_period(&g, 0, &period), BF_ERROR_RUNTIME);
  BFT_FAILS(bf_geometry_period(&g, 3, &period), BF_ERROR_INDEX);
  bf_periodicity p;
  BFT_OK(bf_geometry_periodicity(&g, NULL, &p));
  BFT_CHECK(p.period[0] == 0 && p.period[1] == 20 && p.period[2] == 0);
  bf_box grown;
  int ng[3] = {1, 2, 3};
  BFT_OK(bf_geometry_grow_domain(&g, ng, false, &grown));
  BFT_CHECK(grown.lo[0] == -1 && grown.lo[1] == 0 && grown.hi[2] == 32);
  BFT_OK(bf_geometry_grow_domain(&g, ng, true, &grown));
  BFT_CHECK(grown.lo[0] == 0 && grown.lo[1] == -2 && grown.hi[1] == 21);
  int r[3] = {2, 2, 2};
  BFT_OK(bf_geometry_coarsen(&g, r));
  BFT_CHECK(g.domain.hi[0] == 4 && g.dx[0] == 0.2);
  BFT_OK(bf_geometry_refine(&g, r));
  BFT_CHECK(g.domain.hi[0] == 9 && g.dx[0] == 0.1);
  int zero[3] = {0, 1, 1};
  BFT_FAILS(bf_geometry_coarsen(&g, zero), BF_ERROR_VALUE);
  int old[3], flags[3] = {1, 1, 1};
  bf_geometry_set_periodicity(&g, flags, old);
  BFT_CHECK(old[0] == 0 && old[1] == 1 && bf_geometry_is_all_periodic(&g));
}

static void test_geometry_errors(void) {
  bf_geometry g;
  bf_box dom, empty;
  bf_realbox rb, bad_rb, rb2;
  int lo[2] = {0, 0}, hi[2] = {3, 3}, per[2] = {0, 0};
  double plo[2] = {0, 0}, phi[2] = {1, 1};
  BFT_OK(bf_box_define(2, lo, hi, 0, &dom));
  BFT_OK(bf_box_define(2, hi, lo, 0, &empty));
  BFT_OK(bf_realbox_define(2, plo, phi, &rb));
  BFT_OK(bf_realbox_define(2, phi, plo, &bad_rb));
  BFT_OK(bf_realbox_define(1, plo, phi, &rb2));
  BFT_FAILS(bf_geometry_define(&empty, &rb, 0, per, &g), BF_ERROR_VALUE);
  BFT_FAILS(bf_geometry_define(&dom, &bad_rb, 0, per, &g), BF_ERROR_VALUE);
  BFT_FAILS(bf_geometry_define(&dom, &rb2, 0, per, &g), BF_ERROR_TYPE);
  BFT_FAILS(bf_geometry_define(&dom, &rb, 3, per, &g), BF_ERROR_VALUE);
  bf_box nodal = dom;
  nodal.type = 1;
  BFT_FAILS(bf_geometry_define(&nodal, &rb, 0, per, &g), BF_ERROR_VALUE);
}

static void test_geometry_defaults(void) {
  bf_geometry g;
  bf_geometry_clear_defaults(0);
  bf_parmparse_clear();
  BFT_OK(bf_geometry_default(2, &g));
  BFT_CHECK(g.coord == BF_COORD_UNDEF && !bf_realbox_ok(&g.prob_domain) && !bf_box_ok(&g.domain) && g.dx[0] == 0.0);
  const char *tokens[] = {"geometry.prob_lo=-1 -2", "geometry.prob_hi=1 2", "geometry.coord_sys=1",
                          "geometry.is_periodic=1 0"};
  for (int i = 0; i < 4; ++i) BFT_OK(bf_parmparse_add_token(tokens[i]));
  BFT_OK(bf_geometry_default(2, &g));
  BFT_CHECK(g.prob_domain.lo[1] == -2.0 && g.prob_domain.hi[0] == 1.0 && g.coord == 1 && g.is_periodic[0] == 1);
  BFT_FAILS(bf_geometry_default(3, &g), BF_ERROR_VALUE); /* 2 values for 3 dims */
  double lo[2] = {5, 5}, hi[2] = {6, 7};
  bf_realbox rb;
  BFT_OK(bf_realbox_define(2, lo, hi, &rb));
  BFT_OK(bf_geometry_set_default_prob_domain(&rb));
  BFT_OK(bf_geometry_set_default_coord(2, 2));
  int per[2] = {0, 1};
  BFT_OK(bf_geometry_set_default_periodicity(2, per));
  BFT_FAILS(bf_geometry_set_default_coord(2, 7), BF_ERROR_VALUE);
  BFT_OK(bf_geometry_default(2, &g));
  BFT_CHECK(g.prob_domain.lo[0] == 5.0 && g.prob_domain.hi[1] == 7.0 && g.coord == 2 && g.is_periodic[0] == 0 &&
            g.is_periodic[1] == 1);
  bf_geometry_clear_defaults(2);
  bf_parmparse_clear();
  BFT_OK(bf_parmparse_add_token("geometry.coord_sys=5"));
  BFT_FAILS(bf_geometry_default(1, &g), BF_ERROR_VALUE);
  bf_parmparse_clear();
}

/* Every position inside the round-off domain maps to a valid cell, and the
 * boundary is tight: the next double up from roundoff_hi is... still outside. */
static void test_roundoff_domain(void) {
  const double his[] = {1.0, 0.7, 1.0 / 3.0, 1e-3, 123.456};
  const int ncells[] = {10, 7, 3, 64, 1000};
  for (int t = 0; t < 5; ++t) {
    bf_geometry g;
    bf_box dom;
    int lo[1] = {-3}, hi[1] = {ncells[t] - 4}, per[1] = {0};
    double plo[1] = {-0.1}, phi[1] = {his[t]};
    bf_realbox rb;
    BFT_OK(bf_box_define(1, lo, hi, 0, &dom));
    BFT_OK(bf_realbox_define(1, plo, phi, &rb));
    BFT_OK(bf_geometry_define(&dom, &rb, 0, per, &g));
    double rhi = g.roundoff_hi[0];
    BFT_CHECK(rhi <= phi[0] && rhi > phi[0] - 1e-9);
    double below = nextafter(rhi, -INFINITY);
    BFT_CHECK(bf_geometry_inside_roundoff_domain(&g, &below));
    BFT_CHECK(bf_geometry_cell_index(&g, 0, below) == hi[0]);
    BFT_CHECK(bf_geometry_outside_roundoff_domain(&g, &rhi));
    BFT_CHECK(rhi == phi[0] || bf_geometry_cell_index(&g, 0, rhi) > hi[0]);
    BFT_CHECK(bf_geometry_inside_roundoff_domain(&g, plo) && bf_geometry_cell_index(&g, 0, plo[0]) == lo[0]);
    double before = nextafter(plo[0], -INFINITY);
    BFT_CHECK(bf_geometry_outside_roundoff_domain(&g, &before));
    for (int k = 0; k <= 1000; ++k) { /* a sweep of positions */
      double x = plo[0] + (phi[0] - plo[0]) * k / 1000.0;
      if (bf_geometry_inside_roundoff_domain(&g, &x)) {
        int64_t i = bf_geometry_cell_index(&g, 0, x);
        BFT_CHECK(i >= lo[0] && i <= hi[0]);
      }
    }
  }
  bf_geometry u;
  BFT_OK(bf_geometry_undefined(3, &u));
  double origin[3] = {0, 0, 0};
  BFT_CHECK(bf_geometry_outside_roundoff_domain(&u, origin));
}

int main(void) {
  BFT_RUN(test_realvect_ops);
  BFT_RUN(test_realvect_rounding);
  BFT_RUN(test_realbox);
  BFT_RUN(test_periodicity);
  BFT_RUN(test_geometry_define);
  BFT_RUN(test_geometry_errors);
  BFT_RUN(test_geometry_defaults);
  BFT_RUN(test_roundoff_domain);
  return bft_report();
}
