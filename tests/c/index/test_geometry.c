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
  /* AMReX sums from the first term (AMREX_D_TERM), so -0.0 stays -0.0 */
  double mz[1] = {-0.0}, one[1] = {1.0};
  BFT_CHECK(signbit(bf_realvect_sum(1, mz)) && signbit(bf_realvect_dot(1, mz, one)));
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
  /* AMReX_RealBox.H: ok() is length >= 0 (a flat box is ok, NaN is not); volume is 0 when not ok */
  double z[2] = {1.0, 1.0}, nanv[2] = {NAN, 0.0};
  bf_realbox flat, nanbox;
  BFT_OK(bf_realbox_define(2, z, z, &flat));
  BFT_CHECK(bf_realbox_ok(&flat) && bf_realbox_volume(&flat) == 0.0);
  BFT_OK(bf_realbox_define(2, nanv, z, &nanbox));
  BFT_CHECK(!bf_realbox_ok(&nanbox) && bf_realbox_volume(&nanbox) == 0.0);
  /* AMReX_RealBox.cpp AlmostEqual: |x - y| <= eps or amrex::almostEqual(x, y, 2 ulps) */
  bf_realbox ulp2 = rb, ulp3 = rb;
  ulp2.hi[0] = nextafter(nextafter(rb.hi[0], 3.0), 3.0); /* 2 ulps of 2.0 above */
  for (int k = 0; k < 5; ++k) ulp3.hi[0] = nextafter(ulp3.hi[0], 3.0);
  BFT_CHECK(bf_realbox_almost_equal(&rb, &ulp2, 0.0) && !bf_realbox_almost_equal(&rb, &ulp3, 0.0));
  bf_realbox infbox = rb;
  infbox.hi[1] = INFINITY;
  BFT_CHECK(!bf_realbox_almost_equal(&infbox, &infbox, 1.0)); /* inf - inf is NaN */
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

/* bf_geometry_define without a runtime instance (it records no default). */
static void define_1d(double plo, double phi, int ncell, bf_geometry *g) {
  bf_box dom;
  bf_realbox rb;
  int lo[1] = {0}, hi[1] = {ncell - 1}, per[1] = {0};
  BFT_OK(bf_box_define(1, lo, hi, 0, &dom));
  BFT_OK(bf_realbox_define(1, &plo, &phi, &rb));
  BFT_OK(bf_geometry_define(&dom, &rb, 0, per, g));
}

/* AMReX's Geometry() / GeometryData() values (AMReX_Geometry.cpp Geometry::Geometry,
 * AMReX_CoordSys.H member initializers: c_sys = undef, dx = 0, inv_dx = inf, ok = false). */
static void test_undefined_values(void) {
  bf_geometry u, gd;
  BFT_OK(bf_geometry_undefined(2, &u));
  BFT_CHECK(u.coord == BF_COORD_UNDEF && !u.ok && u.dx[0] == 0.0 && isinf(u.inv_dx[1]) && u.inv_dx[1] > 0);
  BFT_CHECK(u.domain.lo[0] == 1 && u.domain.hi[0] == 0 && u.prob_domain.lo[1] == 0.0 && u.prob_domain.hi[1] == -1.0);
  double origin[2] = {0, 0};
  BFT_CHECK(bf_geometry_outside_roundoff_domain(&u, origin)); /* empty round-off domain */
  BFT_OK(bf_geometry_data_default(3, &gd)); /* value-initialized GeometryData: coord 0 */
  BFT_CHECK(gd.coord == 0 && gd.dx[2] == 0.0 && gd.is_periodic[0] == 0 && gd.domain.lo[2] == 1);
  BFT_FAILS(bf_geometry_undefined(4, &u), BF_ERROR_VALUE);
}

/* AMReX_Geometry.cpp: Geometry() copies DefaultGeometry() of AMReX::top() when a
 * runtime exists; Geometry::define runs Setup, which fills the default once (its
 * gg->ok), so the first geometry defined becomes the default; ResetDefault*
 * change it; each AMReX instance owns one (AMReX.cpp: m_geom(new Geometry())). */
static void test_default_per_runtime(void) {
  bf_parmparse_clear();
  bf_geometry g, d;
  int per[2] = {1, 0}, per0[2] = {0, 0};
  double lo[2] = {0, -1}, hi[2] = {2, 1};
  bf_realbox rb;
  bf_box dom;
  int blo[2] = {0, 0}, bhi[2] = {7, 3};
  BFT_OK(bf_realbox_define(2, lo, hi, &rb));
  BFT_OK(bf_box_define(2, blo, bhi, 0, &dom));
  /* no runtime: Geometry() is undefined, the Reset functions need one, define records nothing */
  BFT_CHECK(!bf_runtime_initialized());
  BFT_FAILS(bf_geometry_reset_default_coord(2, 1), BF_ERROR_RUNTIME);
  BFT_FAILS(bf_geometry_reset_default_prob_domain(&rb), BF_ERROR_RUNTIME);
  BFT_FAILS(bf_geometry_reset_default_periodicity(2, per), BF_ERROR_RUNTIME);
  BFT_FAILS(bf_geometry_setup(2, &rb, 1, per), BF_ERROR_RUNTIME);
  BFT_OK(bf_geometry_define(&dom, &rb, BF_COORD_UNDEF, per, &g));
  BFT_CHECK(g.coord == 0 && g.ok); /* coord -1: Setup's default, ParmParse coord_sys or 0 */
  BFT_CHECK(bf_parmparse_count("geometry.coord_sys") == -1); /* nothing added without a runtime */
  BFT_OK(bf_geometry_default(2, &d));
  BFT_CHECK(d.coord == BF_COORD_UNDEF && !d.ok);

  uint64_t outer;
  BFT_OK(bf_runtime_initialize(0, NULL, &outer));
  BFT_OK(bf_geometry_default(2, &d));
  BFT_CHECK(d.coord == BF_COORD_UNDEF && !d.ok && !bf_realbox_ok(&d.prob_domain)); /* not cartesian */
  BFT_OK(bf_geometry_define(&dom, &rb, BF_COORD_RZ, per, &g)); /* the first define sets the default */
  BFT_OK(bf_geometry_default(2, &d));
  BFT_CHECK(d.ok && d.coord == BF_COORD_RZ && d.is_periodic[0] == 1 && d.prob_domain.hi[0] == 2.0);
  BFT_CHECK(!bf_box_ok(&d.domain) && d.dx[0] == 0.0 && isinf(d.inv_dx[0])); /* Setup leaves domain and dx */
  BFT_OK(bf_geometry_default(3, &d));
  BFT_CHECK(!d.ok && d.coord == BF_COORD_UNDEF); /* one default per dimension */
  double lo2[2] = {5, 5}, hi2[2] = {6, 7};
  bf_realbox rb2;
  BFT_OK(bf_realbox_define(2, lo2, hi2, &rb2));
  BFT_OK(bf_geometry_define(&dom, &rb2, BF_COORD_SPHERICAL, per0, &g)); /* later defines leave it */
  BFT_OK(bf_geometry_define(&dom, &rb2, BF_COORD_UNDEF, NULL, &g));    /* coord -1 / no flags: the default's */
  BFT_CHECK(g.coord == BF_COORD_RZ && g.is_periodic[0] == 1 && g.prob_domain.lo[0] == 5.0);
  BFT_OK(bf_geometry_define(&dom, NULL, 0, per0, &g)); /* no rb: the default's physical domain */
  BFT_CHECK(g.prob_domain.lo[1] == -1.0 && g.prob_domain.hi[1] == 1.0 && g.dx[0] == 0.25);
  BFT_OK(bf_geometry_reset_default_coord(2, BF_COORD_UNDEF));
  BFT_OK(bf_geometry_reset_default_periodicity(2, per0));
  BFT_OK(bf_geometry_reset_default_prob_domain(&rb2));
  BFT_OK(bf_geometry_default(2, &d));
  BFT_CHECK(d.ok && d.coord == BF_COORD_UNDEF && d.is_periodic[0] == 0 && d.prob_domain.lo[0] == 5.0);
  BFT_FAILS(bf_geometry_reset_default_coord(2, 3), BF_ERROR_VALUE);
  double nan_hi[2] = {NAN, 1.0}, inf_lo[2] = {-INFINITY, 0.0};
  bf_realbox bad;
  BFT_OK(bf_realbox_define(2, lo, nan_hi, &bad));
  BFT_FAILS(bf_geometry_reset_default_prob_domain(&bad), BF_ERROR_VALUE);
  BFT_OK(bf_realbox_define(2, inf_lo, hi, &bad));
  BFT_FAILS(bf_geometry_reset_default_prob_domain(&bad), BF_ERROR_VALUE);
  BFT_OK(bf_realbox_define(2, hi, lo, &bad));
  BFT_FAILS(bf_geometry_reset_default_prob_domain(&bad), BF_ERROR_VALUE);

  /* nested: the inner instance starts from a copy of the outer's default */
  uint64_t inner;
  BFT_OK(bf_runtime_initialize(0, NULL, &inner));
  BFT_OK(bf_geometry_default(2, &d));
  BFT_CHECK(d.ok && d.prob_domain.lo[0] == 5.0);
  BFT_OK(bf_geometry_reset_default_coord(2, BF_COORD_CARTESIAN));
  BFT_OK(bf_runtime_finalize_instance(outer)); /* the outer goes first: the inner keeps its copy */
  BFT_OK(bf_geometry_default(2, &d));
  BFT_CHECK(d.ok && d.coord == 0 && d.prob_domain.lo[0] == 5.0);
  BFT_OK(bf_runtime_finalize());
  BFT_OK(bf_geometry_default(2, &d));
  BFT_CHECK(!d.ok && d.coord == BF_COORD_UNDEF);

  /* a fresh runtime starts undefined again; an instance above an outer one that
   * is finalized before the inner touched its default still sees the outer's */
  BFT_OK(bf_runtime_initialize(0, NULL, &outer));
  BFT_OK(bf_geometry_default(2, &d));
  BFT_CHECK(!d.ok);
  BFT_OK(bf_geometry_reset_default_coord(2, BF_COORD_RZ));
  BFT_OK(bf_runtime_initialize(0, NULL, &inner));
  BFT_OK(bf_runtime_finalize_instance(outer));
  BFT_OK(bf_geometry_default(2, &d));
  BFT_CHECK(d.coord == BF_COORD_RZ && !d.ok);
  BFT_OK(bf_runtime_finalize());
}

/* Geometry::Setup reads ParmParse only for what define did not give, and queryAdd
 * adds the defaults it used (AMReX_Geometry.cpp Setup, AMReX_ParmParse.H queryAdd). */
static void test_setup_parmparse(void) {
  bf_parmparse_clear();
  bf_geometry g, d;
  bf_box dom;
  int blo[2] = {0, 0}, bhi[2] = {3, 3}, per[2] = {0, 0};
  double lo[2] = {0, 0}, hi[2] = {1, 1};
  bf_realbox rb;
  BFT_OK(bf_realbox_define(2, lo, hi, &rb));
  BFT_OK(bf_box_define(2, blo, bhi, 0, &dom));
  uint64_t id;
  /* coord -1 and no geometry.coord_sys: 0, added to ParmParse */
  BFT_OK(bf_runtime_initialize(0, NULL, &id));
  BFT_OK(bf_geometry_define(&dom, &rb, BF_COORD_UNDEF, per, &g));
  BFT_CHECK(g.coord == 0 && bf_parmparse_count("geometry.coord_sys") == 1);
  BFT_CHECK(bf_parmparse_count("geometry.prob_lo") == -1); /* rb given: prob_lo not read */
  BFT_OK(bf_runtime_finalize());
  /* ParmParse coord_sys = 1 is used when coord is -1 */
  const char *tok[] = {"geometry.coord_sys=1"};
  BFT_OK(bf_runtime_initialize(1, tok, &id));
  BFT_OK(bf_geometry_define(&dom, &rb, BF_COORD_UNDEF, per, &g));
  BFT_CHECK(g.coord == BF_COORD_RZ);
  BFT_OK(bf_runtime_finalize());
  /* a coord_sys outside -1..2 is refused and nothing changes */
  const char *bad_tok[] = {"geometry.coord_sys=7"};
  BFT_OK(bf_runtime_initialize(1, bad_tok, &id));
  BFT_FAILS(bf_geometry_define(&dom, &rb, BF_COORD_UNDEF, per, &g), BF_ERROR_VALUE);
  BFT_OK(bf_geometry_default(2, &d));
  BFT_CHECK(!d.ok);
  BFT_OK(bf_geometry_define(&dom, &rb, 2, per, &g)); /* coord given: coord_sys not read */
  BFT_CHECK(g.coord == 2);
  BFT_OK(bf_runtime_finalize());
  /* Setup without rb: prob_lo (default 0, added) and exactly one of prob_hi / prob_extent */
  const char *ext_tok[] = {"geometry.prob_extent=2 4", "geometry.is_periodic=0 1"};
  BFT_OK(bf_runtime_initialize(2, ext_tok, &id));
  BFT_OK(bf_geometry_setup(2, NULL, -1, NULL));
  BFT_OK(bf_geometry_default(2, &d));
  BFT_CHECK(d.ok && d.prob_domain.lo[0] == 0.0 && d.prob_domain.hi[1] == 4.0 && d.is_periodic[1] == 1);
  BFT_CHECK(bf_parmparse_count("geometry.prob_lo") == 2 && bf_parmparse_count("geometry.coord_sys") == 1);
  BFT_OK(bf_geometry_setup(2, &rb, 2, per)); /* already ok: no change */
  BFT_OK(bf_geometry_default(2, &d));
  BFT_CHECK(d.coord == 0 && d.prob_domain.hi[0] == 2.0);
  BFT_OK(bf_runtime_finalize());
  const char *both_tok[] = {"geometry.prob_hi=1 1", "geometry.prob_extent=1 1"};
  BFT_OK(bf_runtime_initialize(2, both_tok, &id));
  BFT_FAILS(bf_geometry_setup(2, NULL, 0, per), BF_ERROR_VALUE);
  BFT_CHECK(bf_parmparse_remove("geometry.prob_extent") == 1);
  BFT_CHECK(bf_parmparse_remove("geometry.prob_hi") == 1);
  BFT_FAILS(bf_geometry_setup(2, NULL, 0, per), BF_ERROR_VALUE); /* neither */
  BFT_OK(bf_parmparse_add_token("geometry.prob_hi=1"));
  BFT_FAILS(bf_geometry_setup(2, NULL, 0, per), BF_ERROR_VALUE); /* too few values */
  BFT_OK(bf_parmparse_add_token("geometry.prob_hi=1 nan"));
  BFT_FAILS(bf_geometry_setup(2, NULL, 0, per), BF_ERROR_VALUE); /* not a finite domain */
  BFT_OK(bf_geometry_default(2, &d));
  BFT_CHECK(!d.ok && bf_parmparse_count("geometry.prob_lo") == -1); /* nothing changed */
  BFT_OK(bf_runtime_finalize());
}

/* roundoff_lo / roundoff_hi as AMReX computes them: the values below are the
 * output of AMReX's own Geometry::computeRoundoffDomain (AMReX_Geometry.cpp,
 * Oct 2024, built -O3 on x86-64, built only to read off these values; that harness is not part of boxfab). */
static void test_roundoff_amrex_values(void) {
  static const struct {
    double plo, phi;
    int ncell;
    double rlo, rhi;
  } cases[] = {
      {0.0, 1.0, 128, 0x0p+0, 0x1.ffffffffffffep-1},       /* prob_hi and the double below it are outside */
      {0.0, 0.6, 7, 0x0p+0, 0x1.3333333333333p-1},         /* prob_hi maps into the last cell: inside */
      {0.1, 1.0, 7, 0x1.999999999999ap-4, 0x1p+0},         /* likewise */
      {0.0, 2.0, 6, 0x0p+0, 0x1.ffffffffffffep+0},         /* pyAMReX test_roundoff_domain, x */
      {1.0002, 4.2, 8, 0x1.000d1b71758e2p+0, 0x1.0ccccccccccccp+2},
      {0.00105, 5.0, 10, 0x1.13404ea4a8c15p-10, 0x1.3ffffffffffffp+2},
      {-3.5, -0.5, 3, -0x1.cp+1, -0x1.0000000000006p-1},   /* 3 ulps inside prob_hi */
      {1e16, 1.0000000000000002e16, 1000, 0x1.1c37937e08p+53, 0x1.1c37937e08p+53}, /* dx below the ulp */
      {-1e-300, 1e-300, 10, -0x1.56e1fc2f8f359p-997, 0x1.56e1fc2f8f356p-997},
      {0.0, 1.0, 1073741824, 0x0p+0, 0x1.ffffffffffffep-1},
  };
  for (size_t t = 0; t < sizeof cases / sizeof cases[0]; ++t) {
    bf_geometry g;
    define_1d(cases[t].plo, cases[t].phi, cases[t].ncell, &g);
    BFT_CHECK(g.roundoff_lo[0] == cases[t].rlo && g.roundoff_hi[0] == cases[t].rhi);
    if (!(g.roundoff_lo[0] == cases[t].rlo && g.roundoff_hi[0] == cases[t].rhi))
      fprintf(stderr, "case %zu: got %a %a\n", t, g.roundoff_lo[0], g.roundoff_hi[0]);
    /* closed interval: both ends inside, the next doubles outside */
    double ends[2] = {g.roundoff_lo[0], g.roundoff_hi[0]};
    double beyond[2] = {nextafter(ends[0], -INFINITY), nextafter(ends[1], INFINITY)};
    BFT_CHECK(bf_geometry_inside_roundoff_domain(&g, &ends[0]) && bf_geometry_inside_roundoff_domain(&g, &ends[1]));
    BFT_CHECK(bf_geometry_outside_roundoff_domain(&g, &beyond[0]) && bf_geometry_outside_roundoff_domain(&g, &beyond[1]));
  }
  /* AMReX aborts (AMREX_ALWAYS_ASSERT in computeRoundoffDomain) for these: boxfab refuses */
  bf_geometry g;
  BFT_OK(bf_geometry_undefined(1, &g));
  g.domain.lo[0] = 0, g.domain.hi[0] = 9;
  g.prob_domain.lo[0] = 0.0, g.prob_domain.hi[0] = 1e-320; /* denormal length: dx underflows */
  BFT_FAILS(bf_geometry_compute_roundoff_domain(&g), BF_ERROR_VALUE);
  BFT_CHECK(g.dx[0] == 0.0); /* untouched */
  g.prob_domain.hi[0] = 0.0;
  BFT_FAILS(bf_geometry_compute_roundoff_domain(&g), BF_ERROR_VALUE);
  g.prob_domain.hi[0] = INFINITY;
  BFT_FAILS(bf_geometry_compute_roundoff_domain(&g), BF_ERROR_VALUE);
  g.prob_domain.lo[0] = -1e308, g.prob_domain.hi[0] = 1e308; /* the length overflows */
  BFT_FAILS(bf_geometry_compute_roundoff_domain(&g), BF_ERROR_VALUE);
  g.prob_domain.lo[0] = 0.0, g.prob_domain.hi[0] = 1.0;
  g.domain.hi[0] = -1; /* empty */
  BFT_FAILS(bf_geometry_compute_roundoff_domain(&g), BF_ERROR_VALUE);
  g.domain.lo[0] = INT_MIN, g.domain.hi[0] = 0; /* length past INT_MAX */
  BFT_FAILS(bf_geometry_compute_roundoff_domain(&g), BF_ERROR_OVERFLOW);
  /* an inverted physical domain is computed (AMReX does): nothing is inside */
  g.domain.lo[0] = 0, g.domain.hi[0] = 2;
  g.prob_domain.lo[0] = 1.9, g.prob_domain.hi[0] = 1.0;
  BFT_OK(bf_geometry_compute_roundoff_domain(&g));
  BFT_CHECK(g.roundoff_lo[0] == 0x1.e666666666666p+0 && g.roundoff_hi[0] == 0x1.0000000000001p+0);
  double mid = 1.5;
  BFT_CHECK(bf_geometry_outside_roundoff_domain(&g, &mid));
}

/* Every position inside the round-off domain maps to a valid cell. */
static void test_roundoff_maps_inside(void) {
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
    BFT_CHECK(g.roundoff_lo[0] == plo[0] && rhi <= phi[0] && rhi > phi[0] - 1e-9);
    BFT_CHECK(bf_geometry_cell_index(&g, 0, rhi) == hi[0] && bf_geometry_cell_index(&g, 0, plo[0]) == lo[0]);
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
}

/* AMReX_CoordSys.H: CellCenter = offset + dx*(0.5 + i), LoEdge = offset + dx*i,
 * HiEdge = offset + dx*(i + 1), offset = prob_lo; they assert ok. */
static void test_positions(void) {
  bf_geometry g, u;
  define_1d(0.1, 0.7, 3, &g);
  double x;
  BFT_OK(bf_geometry_cell_center(&g, 0, 1, &x));
  BFT_CHECK(x == 0.1 + g.dx[0] * 1.5);
  BFT_OK(bf_geometry_lo_edge(&g, 0, -2, &x));
  BFT_CHECK(x == 0.1 + g.dx[0] * -2.0);
  BFT_OK(bf_geometry_hi_edge(&g, 0, INT_MAX, &x)); /* no int overflow in point + 1 */
  BFT_CHECK(x == 0.1 + g.dx[0] * 2147483648.0);
  BFT_FAILS(bf_geometry_cell_center(&g, 1, 0, &x), BF_ERROR_INDEX);
  BFT_OK(bf_geometry_undefined(1, &u));
  BFT_FAILS(bf_geometry_lo_edge(&u, 0, 0, &x), BF_ERROR_RUNTIME);
}

int main(void) {
  BFT_RUN(test_realvect_ops);
  BFT_RUN(test_realvect_rounding);
  BFT_RUN(test_realbox);
  BFT_RUN(test_periodicity);
  BFT_RUN(test_geometry_define);
  BFT_RUN(test_geometry_errors);
  BFT_RUN(test_undefined_values);
  BFT_RUN(test_default_per_runtime);
  BFT_RUN(test_setup_parmparse);
  BFT_RUN(test_roundoff_amrex_values);
  BFT_RUN(test_roundoff_maps_inside);
  BFT_RUN(test_positions);
  return bft_report();
}
