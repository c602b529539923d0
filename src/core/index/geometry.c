/* Geometry: domain, physical domain, coordinates, periodicity and the
 * round-off domain, by AMReX's rules (AMReX_Geometry.H/.cpp, AMReX_CoordSys.H;
 * see include/boxfab/geometry.h).  The default geometry of each runtime
 * instance, Geometry::Setup and bf_geometry_define, which consults and sets
 * that default, are the runtime's (runtime/default_geometry.c). */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "index/geometry_impl.h"

int bf_geometry_check_coord(int coord) {
  BF_CHECK(coord >= BF_COORD_UNDEF && coord <= BF_COORD_SPHERICAL, BF_ERROR_VALUE,
           "coordinate system must be -1 (undef), 0 (cartesian), 1 (RZ) or 2 (spherical), got %d", coord);
  return BF_SUCCESS;
}

int bf_geometry_check_prob_domain(const bf_realbox *rb, int dim) {
  BF_CHECK(rb->dim == dim, BF_ERROR_TYPE, "RealBox has dimension %d, expected %d", rb->dim, dim);
  for (int d = 0; d < dim; ++d)
    BF_CHECK(isfinite(rb->lo[d]) && isfinite(rb->hi[d]) && rb->lo[d] < rb->hi[d], BF_ERROR_VALUE,
             "the physical domain must be finite with lo < hi in every direction, got lo = %g, hi = %g in "
             "direction %d",
             rb->lo[d], rb->hi[d], d);
  return BF_SUCCESS;
}

/* Cell-centred, non-empty, lengths within C int (AMReX keeps them in int). */
int bf_geometry_check_domain(const bf_box *domain, int dim) {
  BF_CHECK(domain->dim == dim, BF_ERROR_TYPE, "domain has dimension %d, expected %d", domain->dim, dim);
  BF_CHECK(domain->type == 0, BF_ERROR_VALUE, "the index domain must be cell-centered (type 0x%x)", domain->type);
  BF_CHECK(bf_box_ok(domain), BF_ERROR_VALUE, "the index domain must be a non-empty box");
  for (int d = 0; d < dim; ++d)
    BF_CHECK(bf_box_length(domain, d) <= INT_MAX, BF_ERROR_OVERFLOW,
             "the index domain has %lld cells in direction %d, more than a C int holds",
             (long long)bf_box_length(domain, d), d);
  return BF_SUCCESS;
}

/* ---- undefined geometry, GeometryData() ---------------------------------------- */
int bf_geometry_undefined(int dim, bf_geometry *g) {
  BF_CHECK_DIM(dim);
  bf_geometry r;
  memset(&r, 0, sizeof r);
  r.dim = dim;
  r.domain.dim = dim;
  for (int d = 0; d < dim; ++d) r.domain.lo[d] = 1, r.domain.hi[d] = 0;
  BF_CALL(bf_realbox_default(dim, &r.prob_domain));
  r.coord = BF_COORD_UNDEF;
  r.ok = false;
  for (int d = 0; d < dim; ++d) {
    r.inv_dx[d] = INFINITY;
    r.roundoff_lo[d] = INFINITY;
    r.roundoff_hi[d] = -INFINITY;
  }
  *g = r;
  return BF_SUCCESS;
}

int bf_geometry_data_default(int dim, bf_geometry *g) {
  BF_CALL(bf_geometry_undefined(dim, g));
  g->coord = 0;
  return BF_SUCCESS;
}

/* ---- round-off domain (Geometry::computeRoundoffDomain) ---------------------------
 * The same search as AMReX's, in the same order with the same arithmetic, so
 * that roundoff_lo/hi equal AMReX's bit for bit. */
#define ROUNDOFF_MAXITERS 200

/* AMReX's is_outside: idx = int(floor((x - plo) * dxinv)); idx < 0 || idx >= ncells.
 * A floor outside int's range (or NaN) converts to INT_MIN on x86-64 and
 * saturates elsewhere: outside either way. */
static bool ro_outside(double x, double plo, double dxinv, int ncells) {
  double f = floor((x - plo) * dxinv);
  if (!(f >= (double)INT_MIN && f <= (double)INT_MAX)) return true;
  int idx = (int)f;
  return idx < 0 || idx >= ncells;
}

static double ro_max(double a, double b) { return a < b ? b : a; } /* std::max(a, b) */

/* One direction; 0 on success, -1 where AMReX's AMREX_ALWAYS_ASSERT fails. */
static int ro_direction(double plo, double phi, double dx, double dxinv, int ncells, double *out_lo, double *out_hi) {
  const double epsilon = DBL_EPSILON;
  double rlo = plo, rhi = phi;
#define OUTSIDE(x) ro_outside((x), plo, dxinv, ncells)
#define INSIDE(x) (!OUTSIDE(x))
  double rlo_out;
  if (INSIDE(rlo)) {
    double eps = epsilon * (rhi - rlo);
    int iters = 0;
    rlo_out = rlo - eps;
    while (INSIDE(rlo_out) && iters < ROUNDOFF_MAXITERS) {
      eps *= 2.0;
      rlo_out = rlo - eps;
      ++iters;
    }
    if (!(rlo_out > -DBL_MAX && iters < ROUNDOFF_MAXITERS)) return -1;
  } else {
    double eps = epsilon * (rhi - rlo);
    int iters = 0;
    double rtmp = rlo + eps;
    while (OUTSIDE(rtmp) && iters < ROUNDOFF_MAXITERS) {
      eps *= 2.0;
      rtmp = rlo + eps;
      ++iters;
    }
    rlo_out = rlo;
    rlo = rtmp;
    if (!(rtmp > -DBL_MAX && iters < ROUNDOFF_MAXITERS)) return -1;
  }
  { /* rlo_out is outside, rlo inside: bisect until rlo - 2 eps max(dx, |rlo|) is outside */
    int iters = 0;
    double e = epsilon * ro_max(dx, fabs(rlo)) * 2.0;
    double rlo_minus = rlo - e;
    bool minus_inside = INSIDE(rlo_minus);
    while (minus_inside && iters < ROUNDOFF_MAXITERS) {
      double rmid = 0.5 * (rlo_out + rlo);
      if (rmid == rlo_out || rmid == rlo) break;
      if (INSIDE(rmid)) {
        rlo = rmid;
        e = epsilon * ro_max(dx, fabs(rlo)) * 2.0;
        rlo_minus = rlo - e;
        minus_inside = INSIDE(rlo_minus);
      } else {
        rlo_out = rmid;
      }
      ++iters;
    }
    if (!(rlo_minus > -DBL_MAX && iters < ROUNDOFF_MAXITERS)) return -1;
  }
  double rhi_out;
  if (INSIDE(rhi)) {
    double eps = epsilon * (rhi - rlo);
    int iters = 0;
    rhi_out = rhi + eps;
    while (INSIDE(rhi_out) && iters < ROUNDOFF_MAXITERS) {
      eps *= 2.0;
      rhi_out = rhi + eps;
      ++iters;
    }
    if (!(rhi_out > -DBL_MAX && iters < ROUNDOFF_MAXITERS)) return -1;
  } else {
    double eps = epsilon * (rhi - rlo);
    int iters = 0;
    double rtmp = rhi - eps;
    while (OUTSIDE(rtmp) && iters < ROUNDOFF_MAXITERS) {
      eps *= 2.0;
      rtmp = rhi - eps;
      ++iters;
    }
    rhi_out = rhi;
    rhi = rtmp;
    if (!(rtmp > -DBL_MAX && iters < ROUNDOFF_MAXITERS)) return -1;
  }
  { /* rhi inside, rhi_out outside: bisect until rhi + 2 eps max(dx, |rhi|) is outside */
    int iters = 0;
    double e = epsilon * ro_max(dx, fabs(rhi)) * 2.0;
    double rhi_plus = rhi + e;
    bool plus_inside = INSIDE(rhi_plus);
    while (plus_inside && iters < ROUNDOFF_MAXITERS) {
      double rmid = 0.5 * (rhi + rhi_out);
      if (rmid == rhi || rmid == rhi_out) break;
      if (INSIDE(rmid)) {
        rhi = rmid;
        e = epsilon * ro_max(dx, fabs(rhi)) * 2.0;
        rhi_plus = rhi + e;
        plus_inside = INSIDE(rhi_plus);
      } else {
        rhi_out = rmid;
      }
      ++iters;
    }
    if (!(rhi_plus > -DBL_MAX && iters < ROUNDOFF_MAXITERS)) return -1;
  }
#undef INSIDE
#undef OUTSIDE
  *out_lo = rlo;
  *out_hi = rhi;
  return 0;
}

/* dx and 1/dx from the domain and the physical domain; a domain length past
 * C int is refused. */
static int recompute_dx(bf_geometry *g) {
  for (int d = 0; d < g->dim; ++d) {
    int64_t n = bf_box_length(&g->domain, d);
    BF_CHECK(n <= INT_MAX, BF_ERROR_OVERFLOW, "the index domain has %lld cells in direction %d, more than a C int holds",
             (long long)n, d);
    g->dx[d] = (g->prob_domain.hi[d] - g->prob_domain.lo[d]) / (double)n;
    g->inv_dx[d] = 1.0 / g->dx[d];
  }
  return BF_SUCCESS;
}

int bf_geometry_compute_roundoff_domain(bf_geometry *g) {
  BF_CHECK_DIM(g->dim);
  bf_geometry r = *g;
  BF_CALL(recompute_dx(&r));
  for (int d = 0; d < r.dim; ++d) {
    int64_t n = bf_box_length(&r.domain, d);
    BF_CHECK(n > 0, BF_ERROR_VALUE,
             "the round-off domain needs a non-empty index domain (direction %d has %lld cells): set the domain "
             "first (AMReX aborts here)",
             d, (long long)n);
    double plo = r.prob_domain.lo[d], phi = r.prob_domain.hi[d];
    BF_CHECK(ro_direction(plo, phi, r.dx[d], r.inv_dx[d], (int)n, &r.roundoff_lo[d], &r.roundoff_hi[d]) == 0,
             BF_ERROR_VALUE,
             "the round-off domain cannot be computed in direction %d for the physical domain [%.17g, %.17g] with "
             "%lld cells (AMReX aborts here)",
             d, plo, phi, (long long)n);
  }
  *g = r;
  return BF_SUCCESS;
}

int bf_geometry_set_domain(bf_geometry *g, const bf_box *domain) {
  BF_CALL(bf_geometry_check_domain(domain, g->dim));
  bf_geometry r = *g;
  r.domain = *domain;
  BF_CALL(bf_geometry_compute_roundoff_domain(&r));
  *g = r;
  return BF_SUCCESS;
}

int bf_geometry_set_prob_domain(bf_geometry *g, const bf_realbox *rb) {
  BF_CALL(bf_geometry_check_prob_domain(rb, g->dim));
  bf_geometry r = *g;
  r.prob_domain = *rb;
  BF_CALL(bf_geometry_compute_roundoff_domain(&r));
  *g = r;
  return BF_SUCCESS;
}

int bf_geometry_set_coord(bf_geometry *g, int coord) {
  BF_CALL(bf_geometry_check_coord(coord));
  g->coord = coord;
  return BF_SUCCESS;
}

void bf_geometry_set_periodicity(bf_geometry *g, const int *is_periodic, int *old) {
  for (int d = 0; d < g->dim; ++d) {
    if (old) old[d] = g->is_periodic[d];
    g->is_periodic[d] = is_periodic[d] != 0;
  }
}

bool bf_geometry_is_any_periodic(const bf_geometry *g) {
  for (int d = 0; d < g->dim; ++d)
    if (g->is_periodic[d]) return true;
  return false;
}

bool bf_geometry_is_all_periodic(const bf_geometry *g) {
  for (int d = 0; d < g->dim; ++d)
    if (!g->is_periodic[d]) return false;
  return true;
}

double bf_geometry_prob_size(const bf_geometry *g) {
  double v = bf_realbox_length(&g->prob_domain, 0);
  for (int d = 1; d < g->dim; ++d) v *= bf_realbox_length(&g->prob_domain, d);
  return v;
}

static int length_int(const bf_box *b, int d, int *out) {
  int64_t n = bf_box_length(b, d);
  BF_CHECK(n <= INT_MAX && n >= INT_MIN, BF_ERROR_OVERFLOW,
           "box length %lld in direction %d does not fit in a C int", (long long)n, d);
  *out = (int)n;
  return BF_SUCCESS;
}

int bf_geometry_period(const bf_geometry *g, int d, int *period) {
  BF_CHECK(d >= 0 && d < g->dim, BF_ERROR_INDEX, "direction %d out of range [0, %d)", d, g->dim);
  BF_CHECK(g->is_periodic[d], BF_ERROR_RUNTIME, "the geometry is not periodic in direction %d", d);
  return length_int(&g->domain, d, period);
}

int bf_geometry_periodicity(const bf_geometry *g, const bf_box *box, bf_periodicity *p) {
  const bf_box *b = box ? box : &g->domain;
  BF_CHECK(b->dim == g->dim, BF_ERROR_TYPE, "box has dimension %d, geometry %d", b->dim, g->dim);
  BF_CHECK(!box || box->type == 0, BF_ERROR_VALUE, "periodicity(b) needs a cell-centered box (type 0x%x)",
           box ? box->type : 0u);
  int len[BF_SPACEDIM_MAX] = {0, 0, 0};
  for (int d = 0; d < g->dim; ++d)
    if (g->is_periodic[d]) BF_CALL(length_int(b, d, &len[d]));
  return bf_periodicity_define(g->dim, len, p);
}

int bf_geometry_grow_domain(const bf_geometry *g, const int *ngrow, bool periodic, bf_box *out) {
  bf_box b = g->domain;
  for (int d = 0; d < g->dim; ++d)
    if ((g->is_periodic[d] != 0) == periodic) BF_CALL(bf_box_grow_dir(&b, d, ngrow[d], ngrow[d]));
  *out = b;
  return BF_SUCCESS;
}

static int check_ratio(const bf_geometry *g, const int *ratio) {
  for (int d = 0; d < g->dim; ++d)
    BF_CHECK(ratio[d] >= 1, BF_ERROR_VALUE, "ratio must be >= 1, got %d in direction %d", ratio[d], d);
  return BF_SUCCESS;
}

/* dx and inv_dx of the new domain; the round-off domain stays (AMReX's coarsen/refine). */
int bf_geometry_coarsen(bf_geometry *g, const int *ratio) {
  BF_CALL(check_ratio(g, ratio));
  bf_geometry r = *g;
  BF_CALL(bf_box_coarsen(&r.domain, ratio));
  BF_CALL(recompute_dx(&r));
  *g = r;
  return BF_SUCCESS;
}

int bf_geometry_refine(bf_geometry *g, const int *ratio) {
  BF_CALL(check_ratio(g, ratio));
  bf_geometry r = *g;
  BF_CALL(bf_box_refine(&r.domain, ratio));
  BF_CALL(recompute_dx(&r));
  *g = r;
  return BF_SUCCESS;
}

static int check_position_query(const bf_geometry *g, int d) {
  BF_CHECK(d >= 0 && d < g->dim, BF_ERROR_INDEX, "direction %d out of range [0, %d)", d, g->dim);
  BF_CHECK(g->ok, BF_ERROR_RUNTIME, "the Geometry is not defined (define it first; AMReX asserts ok() here)");
  return BF_SUCCESS;
}

int bf_geometry_cell_center(const bf_geometry *g, int d, int point, double *x) {
  BF_CALL(check_position_query(g, d));
  *x = g->prob_domain.lo[d] + g->dx[d] * (0.5 + (double)point);
  return BF_SUCCESS;
}

int bf_geometry_lo_edge(const bf_geometry *g, int d, int point, double *x) {
  BF_CALL(check_position_query(g, d));
  *x = g->prob_domain.lo[d] + g->dx[d] * (double)point;
  return BF_SUCCESS;
}

int bf_geometry_hi_edge(const bf_geometry *g, int d, int point, double *x) {
  BF_CALL(check_position_query(g, d));
  *x = g->prob_domain.lo[d] + g->dx[d] * ((double)point + 1.0);
  return BF_SUCCESS;
}

int64_t bf_geometry_cell_index(const bf_geometry *g, int d, double x) {
  double f = floor((x - g->prob_domain.lo[d]) * g->inv_dx[d]);
  if (!(f > -4.0e18)) f = -4.0e18; /* NaN and huge values stay representable */
  if (f > 4.0e18) f = 4.0e18;
  return (int64_t)g->domain.lo[d] + (int64_t)f;
}

bool bf_geometry_outside_roundoff_domain(const bf_geometry *g, const double *x) {
  for (int d = 0; d < g->dim; ++d)
    if (x[d] < g->roundoff_lo[d] || x[d] > g->roundoff_hi[d]) return true;
  return false;
}

bool bf_geometry_inside_roundoff_domain(const bf_geometry *g, const double *x) {
  return !bf_geometry_outside_roundoff_domain(g, x);
}
