/* Geometry: domain, physical domain, coordinates, periodicity, defaults
 * (see include/boxfab/geometry.h). */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "boxfab/geometry.h"
#include "boxfab/parmparse.h"
#include "boxfab/runtime.h"

/* ---- class-wide defaults (Geometry::ResetDefault*) --------------------------- */
static struct {
  bool has_rb, has_per, has_coord;
  bf_realbox rb;
  int is_periodic[BF_SPACEDIM_MAX];
  int coord;
} geometry_defaults[BF_SPACEDIM_MAX + 1];

static int check_coord(int coord) {
  BF_CHECK(coord >= BF_COORD_UNDEF && coord <= BF_COORD_SPHERICAL, BF_ERROR_VALUE,
           "coordinate system must be -1 (undef), 0 (cartesian), 1 (RZ) or 2 (spherical), got %d", coord);
  return BF_SUCCESS;
}

int bf_geometry_set_default_prob_domain(const bf_realbox *rb) {
  BF_CHECK_DIM(rb->dim);
  geometry_defaults[rb->dim].rb = *rb;
  geometry_defaults[rb->dim].has_rb = true;
  return BF_SUCCESS;
}

int bf_geometry_set_default_periodicity(int dim, const int *is_periodic) {
  BF_CHECK_DIM(dim);
  for (int d = 0; d < dim; ++d) geometry_defaults[dim].is_periodic[d] = is_periodic[d] != 0;
  geometry_defaults[dim].has_per = true;
  return BF_SUCCESS;
}

int bf_geometry_set_default_coord(int dim, int coord) {
  BF_CHECK_DIM(dim);
  BF_CALL(check_coord(coord));
  geometry_defaults[dim].coord = coord;
  geometry_defaults[dim].has_coord = true;
  return BF_SUCCESS;
}

void bf_geometry_clear_defaults(int dim) {
  for (int d = 0; d <= BF_SPACEDIM_MAX; ++d)
    if (dim == 0 || d == dim) memset(&geometry_defaults[d], 0, sizeof geometry_defaults[d]);
}

/* ---- definition -------------------------------------------------------------- */
int bf_geometry_undefined(int dim, bf_geometry *g) {
  BF_CHECK_DIM(dim);
  bf_geometry r;
  memset(&r, 0, sizeof r);
  r.dim = dim;
  r.domain.dim = dim;
  for (int d = 0; d < dim; ++d) r.domain.lo[d] = 1, r.domain.hi[d] = 0;
  BF_CALL(bf_realbox_default(dim, &r.prob_domain));
  r.coord = BF_COORD_UNDEF;
  bf_geometry_compute(&r);
  *g = r;
  return BF_SUCCESS;
}

/* Read `name` (dim values) from ParmParse if defined. */
static int query_reals(const char *name, int dim, double *out, bool *found) {
  int n = bf_parmparse_count(name);
  *found = n >= 0;
  if (!*found) return BF_SUCCESS;
  BF_CHECK(n == dim, BF_ERROR_VALUE, "ParmParse %s needs %d values, has %d", name, dim, n);
  for (int d = 0; d < dim; ++d) {
    bool f;
    BF_CALL(bf_parmparse_query_real(name, d, &f, &out[d]));
  }
  return BF_SUCCESS;
}

static int query_ints(const char *name, int dim, int *out, bool *found) {
  int n = bf_parmparse_count(name);
  *found = n >= 0;
  if (!*found) return BF_SUCCESS;
  BF_CHECK(n == dim, BF_ERROR_VALUE, "ParmParse %s needs %d values, has %d", name, dim, n);
  for (int d = 0; d < dim; ++d) {
    bool f;
    BF_CALL(bf_parmparse_query_int(name, d, &f, &out[d]));
  }
  return BF_SUCCESS;
}

int bf_geometry_default(int dim, bf_geometry *g) {
  bf_geometry r;
  BF_CALL(bf_geometry_undefined(dim, &r));
  if (bf_runtime_initialized()) r.coord = BF_COORD_CARTESIAN;
  double lo[BF_SPACEDIM_MAX], hi[BF_SPACEDIM_MAX];
  bool found_lo, found_hi, found;
  BF_CALL(query_reals("geometry.prob_lo", dim, lo, &found_lo));
  BF_CALL(query_reals("geometry.prob_hi", dim, hi, &found_hi));
  for (int d = 0; d < dim; ++d) {
    if (found_lo) r.prob_domain.lo[d] = lo[d];
    if (found_hi) r.prob_domain.hi[d] = hi[d];
  }
  int coord;
  BF_CALL(bf_parmparse_query_int("geometry.coord_sys", 0, &found, &coord));
  if (found) {
    BF_CALL(check_coord(coord));
    r.coord = coord;
  }
  int per[BF_SPACEDIM_MAX];
  BF_CALL(query_ints("geometry.is_periodic", dim, per, &found));
  if (found)
    for (int d = 0; d < dim; ++d) r.is_periodic[d] = per[d] != 0;
  if (geometry_defaults[dim].has_rb) r.prob_domain = geometry_defaults[dim].rb;
  if (geometry_defaults[dim].has_coord) r.coord = geometry_defaults[dim].coord;
  if (geometry_defaults[dim].has_per) memcpy(r.is_periodic, geometry_defaults[dim].is_periodic, sizeof r.is_periodic);
  bf_geometry_compute(&r);
  *g = r;
  return BF_SUCCESS;
}

static int check_domain(const bf_box *domain, int dim) {
  BF_CHECK(domain->dim == dim, BF_ERROR_TYPE, "domain has dimension %d, expected %d", domain->dim, dim);
  BF_CHECK(bf_box_ok(domain), BF_ERROR_VALUE, "the index domain must be a non-empty box");
  BF_CHECK(domain->type == 0, BF_ERROR_VALUE, "the index domain must be cell-centered (type 0x%x)", domain->type);
  return BF_SUCCESS;
}

int bf_geometry_define(const bf_box *domain, const bf_realbox *rb, int coord, const int *is_periodic,
                       bf_geometry *g) {
  BF_CHECK_DIM(domain->dim);
  int dim = domain->dim;
  BF_CALL(check_domain(domain, dim));
  BF_CHECK(rb->dim == dim, BF_ERROR_TYPE, "RealBox has dimension %d, domain %d", rb->dim, dim);
  BF_CHECK(bf_realbox_ok(rb), BF_ERROR_VALUE, "the physical domain must have lo < hi in every direction");
  BF_CALL(check_coord(coord));
  bf_geometry r;
  memset(&r, 0, sizeof r);
  r.dim = dim;
  r.domain = *domain;
  r.prob_domain = *rb;
  r.coord = coord;
  for (int d = 0; d < dim; ++d) r.is_periodic[d] = is_periodic[d] != 0;
  bf_geometry_compute(&r);
  *g = r;
  return BF_SUCCESS;
}

/* Doubles in their numeric order as int64 keys (-0.0 and +0.0 share key 0). */
static int64_t double_key(double x) {
  int64_t b;
  memcpy(&b, &x, sizeof b);
  return b >= 0 ? b : -(b & INT64_MAX);
}

static double key_double(int64_t k) {
  int64_t b = k >= 0 ? k : ((-k) | INT64_MIN);
  double x;
  memcpy(&x, &b, sizeof x);
  return x;
}

/* Smallest double in (plo, phi] whose cell index is past the last cell, or phi. */
static double roundoff_hi(const bf_geometry *g, int d) {
  double plo = g->prob_domain.lo[d], phi = g->prob_domain.hi[d];
  int64_t last = g->domain.hi[d];
  if (bf_geometry_cell_index(g, d, phi) <= last) return phi;
  int64_t lo = double_key(plo), hi = double_key(phi); /* index(lo) <= last < index(hi) */
  while ((uint64_t)hi - (uint64_t)lo > 1) {
    int64_t mid = lo + (int64_t)(((uint64_t)hi - (uint64_t)lo) / 2);
    if (bf_geometry_cell_index(g, d, key_double(mid)) <= last) lo = mid;
    else hi = mid;
  }
  return key_double(hi);
}

void bf_geometry_compute(bf_geometry *g) {
  bool ok = bf_box_ok(&g->domain) && bf_realbox_ok(&g->prob_domain);
  for (int d = 0; d < BF_SPACEDIM_MAX; ++d) g->dx[d] = g->inv_dx[d] = g->roundoff_lo[d] = g->roundoff_hi[d] = 0.0;
  for (int d = 0; d < g->dim; ++d) {
    if (ok) {
      g->dx[d] = bf_realbox_length(&g->prob_domain, d) / (double)bf_box_length(&g->domain, d);
      g->inv_dx[d] = 1.0 / g->dx[d];
    }
  }
  for (int d = 0; d < g->dim; ++d) {
    if (ok) {
      g->roundoff_lo[d] = g->prob_domain.lo[d];
      g->roundoff_hi[d] = roundoff_hi(g, d);
    } /* else lo == hi == 0: empty, everything is outside */
  }
}

int bf_geometry_set_domain(bf_geometry *g, const bf_box *domain) {
  BF_CALL(check_domain(domain, g->dim));
  g->domain = *domain;
  bf_geometry_compute(g);
  return BF_SUCCESS;
}

int bf_geometry_set_prob_domain(bf_geometry *g, const bf_realbox *rb) {
  BF_CHECK(rb->dim == g->dim, BF_ERROR_TYPE, "RealBox has dimension %d, geometry %d", rb->dim, g->dim);
  g->prob_domain = *rb;
  bf_geometry_compute(g);
  return BF_SUCCESS;
}

int bf_geometry_set_coord(bf_geometry *g, int coord) {
  BF_CALL(check_coord(coord));
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
  double v = 1.0;
  for (int d = 0; d < g->dim; ++d) v *= bf_realbox_length(&g->prob_domain, d);
  return v;
}

static int length_int(const bf_box *b, int d, int *out) {
  int64_t n = bf_box_length(b, d);
  BF_CHECK(n <= INT_MAX, BF_ERROR_OVERFLOW, "box length %lld in direction %d does not fit in a C int", (long long)n,
           d);
  *out = n < 0 ? 0 : (int)n;
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
  bf_periodicity r = {.dim = g->dim};
  for (int d = 0; d < g->dim; ++d)
    if (g->is_periodic[d]) BF_CALL(length_int(b, d, &r.period[d]));
  *p = r;
  return BF_SUCCESS;
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

int bf_geometry_coarsen(bf_geometry *g, const int *ratio) {
  BF_CALL(check_ratio(g, ratio));
  BF_CALL(bf_box_coarsen(&g->domain, ratio));
  bf_geometry_compute(g);
  return BF_SUCCESS;
}

int bf_geometry_refine(bf_geometry *g, const int *ratio) {
  BF_CALL(check_ratio(g, ratio));
  BF_CALL(bf_box_refine(&g->domain, ratio));
  bf_geometry_compute(g);
  return BF_SUCCESS;
}

int64_t bf_geometry_cell_index(const bf_geometry *g, int d, double x) {
  double f = floor((x - g->prob_domain.lo[d]) * g->inv_dx[d]);
  if (!(f > -4.0e18)) f = -4.0e18; /* NaN and huge values stay representable */
  if (f > 4.0e18) f = 4.0e18;
  return (int64_t)g->domain.lo[d] + (int64_t)f;
}

bool bf_geometry_inside_roundoff_domain(const bf_geometry *g, const double *x) {
  for (int d = 0; d < g->dim; ++d)
    if (!(g->roundoff_lo[d] <= x[d] && x[d] < g->roundoff_hi[d])) return false;
  return true;
}

bool bf_geometry_outside_roundoff_domain(const bf_geometry *g, const double *x) {
  return !bf_geometry_inside_roundoff_domain(g, x);
}
