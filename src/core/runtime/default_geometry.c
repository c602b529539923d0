/* The default Geometry of each runtime instance (AMReX::getDefaultGeometry,
 * which AMReX keeps in its AMReX object), Geometry::Setup from ParmParse
 * geometry.*, and bf_geometry_define, which consults that default and sets it
 * on first use, as AMReX's Geometry::define does (see
 * include/boxfab/geometry.h; the geometry's own rules are index/geometry.c). */
#include <stdio.h>
#include <string.h>

#include "boxfab/parmparse.h"
#include "boxfab/runtime.h"
#include "index/geometry_impl.h"

/* ---- default geometry of each runtime instance (AMReX::getDefaultGeometry) -----
 * Runtime instance ids grow and instances are pushed on top, so the stack is
 * ordered by id.  An instance without an entry has the default of the nearest
 * instance below it that has one (AMReX's `new AMReX()` copies the top's
 * default; that one cannot change while it is not on top).  An entry is made
 * when an instance's default first changes; when an instance is finalized, the
 * nearest live instance above it gets a copy of its entry if it has none. */
#define GEOM_MAX_ENTRIES 64 /* the runtime's stack depth */

typedef struct {
  uint64_t id;
  bf_geometry g[BF_SPACEDIM_MAX + 1];
} default_entry;

static default_entry entries[GEOM_MAX_ENTRIES];
static int nentries;
static bool hook_added;

static default_entry *entry_of(uint64_t id) {
  for (int i = 0; i < nentries; ++i)
    if (entries[i].id == id) return &entries[i];
  return NULL;
}

/* The entry whose default instance `id` has (its own or inherited), or NULL. */
static default_entry *entry_for(uint64_t id) {
  default_entry *best = NULL;
  for (int i = 0; i < nentries; ++i)
    if (entries[i].id <= id && bf_runtime_alive(entries[i].id) && (!best || entries[i].id > best->id))
      best = &entries[i];
  return best;
}

static void drop_entry(default_entry *e) {
  *e = entries[--nentries];
}

static void on_finalize(uint64_t id, void *ctx) {
  (void)ctx;
  default_entry *e = entry_of(id);
  if (!e) return;
  uint64_t top = bf_runtime_top();
  for (uint64_t k = id + 1; k <= top; ++k) { /* the nearest live instance above inherits */
    if (!bf_runtime_alive(k)) continue;
    if (!entry_of(k) && nentries < GEOM_MAX_ENTRIES) {
      entries[nentries] = *e; /* appending moves no entry: e stays valid */
      entries[nentries++].id = k;
    }
    break;
  }
  drop_entry(e);
}

/* The default geometry of the top instance for writing (its entry is made if
 * needed).  BF_ERROR_RUNTIME without an instance. */
static int top_default(int dim, bf_geometry **out) {
  BF_CHECK_DIM(dim);
  uint64_t top = bf_runtime_top();
  BF_CHECK(top != 0, BF_ERROR_RUNTIME,
           "the default Geometry belongs to a runtime instance: call initialize() first");
  default_entry *e = entry_of(top);
  if (!e) {
    if (!hook_added) {
      BF_CALL(bf_runtime_add_finalize_hook(on_finalize, NULL));
      hook_added = true;
    }
    BF_CHECK(nentries < GEOM_MAX_ENTRIES, BF_ERROR_RUNTIME, "too many runtime instances with a default Geometry");
    default_entry *from = entry_for(top);
    default_entry n;
    if (from) {
      n = *from;
    } else {
      for (int d = 1; d <= BF_SPACEDIM_MAX; ++d) BF_CALL(bf_geometry_undefined(d, &n.g[d]));
    }
    n.id = top;
    entries[nentries] = n;
    e = &entries[nentries++];
  }
  *out = &e->g[dim];
  return BF_SUCCESS;
}

int bf_geometry_default(int dim, bf_geometry *g) {
  BF_CHECK_DIM(dim);
  uint64_t top = bf_runtime_top();
  default_entry *e = top ? entry_for(top) : NULL;
  if (e) {
    *g = e->g[dim];
    return BF_SUCCESS;
  }
  return bf_geometry_undefined(dim, g);
}

/* ---- Setup ------------------------------------------------------------------------ */
/* ParmParse geometry.<name>: *found, and the first `dim` values (at least dim needed). */
static int query_reals(const char *name, int dim, double *out, bool *found) {
  int n = bf_parmparse_count(name);
  *found = n >= 0;
  if (!*found) return BF_SUCCESS;
  BF_CHECK(n >= dim, BF_ERROR_VALUE, "ParmParse %s needs %d values, has %d", name, dim, n);
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
  BF_CHECK(n >= dim, BF_ERROR_VALUE, "ParmParse %s needs %d values, has %d", name, dim, n);
  for (int d = 0; d < dim; ++d) {
    bool f;
    BF_CALL(bf_parmparse_query_int(name, d, &f, &out[d]));
  }
  return BF_SUCCESS;
}

/* What AMReX's queryAdd adds when a name is absent. */
typedef struct {
  bool coord, prob_lo, is_periodic;
} setup_adds;

/* Setup's changes to the default `gg` (which must not be ok), computed into
 * *gg without touching ParmParse; `adds` says what queryAdd would add. */
static int setup_compute(bf_geometry *gg, const bf_realbox *rb, int coord, const int *is_periodic, setup_adds *adds) {
  int dim = gg->dim;
  *adds = (setup_adds){false, false, false};
  if (coord >= 0 && coord <= 2) {
    gg->coord = coord;
  } else {
    int c = 0;
    bool found;
    BF_CALL(bf_parmparse_query_int("geometry.coord_sys", 0, &found, &c));
    if (found) {
      BF_CHECK(c >= BF_COORD_UNDEF && c <= BF_COORD_SPHERICAL, BF_ERROR_VALUE,
               "ParmParse geometry.coord_sys must be -1, 0, 1 or 2, got %d", c);
    }
    adds->coord = !found;
    gg->coord = c;
  }
  if (rb) {
    BF_CALL(bf_geometry_check_prob_domain(rb, dim));
    gg->prob_domain = *rb;
  } else {
    double lo[BF_SPACEDIM_MAX] = {0.0, 0.0, 0.0}, hi[BF_SPACEDIM_MAX], ext[BF_SPACEDIM_MAX];
    bool found_lo, found_hi, found_ext;
    BF_CALL(query_reals("geometry.prob_lo", dim, lo, &found_lo));
    BF_CALL(query_reals("geometry.prob_hi", dim, hi, &found_hi));
    BF_CALL(query_reals("geometry.prob_extent", dim, ext, &found_ext));
    BF_CHECK(found_hi != found_ext, BF_ERROR_VALUE,
             "the physical domain needs exactly one of ParmParse geometry.prob_hi and geometry.prob_extent (%s)",
             found_hi ? "both are set" : "neither is set");
    if (found_ext)
      for (int d = 0; d < dim; ++d) hi[d] = lo[d] + ext[d];
    bf_realbox r;
    BF_CALL(bf_realbox_define(dim, lo, hi, &r));
    BF_CALL(bf_geometry_check_prob_domain(&r, dim));
    adds->prob_lo = !found_lo;
    gg->prob_domain = r;
  }
  if (is_periodic) {
    for (int d = 0; d < dim; ++d) gg->is_periodic[d] = is_periodic[d] != 0;
  } else {
    int per[BF_SPACEDIM_MAX] = {0, 0, 0};
    bool found;
    BF_CALL(query_ints("geometry.is_periodic", dim, per, &found));
    adds->is_periodic = !found;
    for (int d = 0; d < dim; ++d) gg->is_periodic[d] = per[d] != 0;
  }
  gg->ok = true;
  return BF_SUCCESS;
}

/* ParmParse gets what queryAdd adds: "0" per value, as AMReX writes 0 and 0.0. */
static int setup_commit_adds(int dim, const setup_adds *adds) {
  static const char *const zeros[BF_SPACEDIM_MAX] = {"0", "0", "0"};
  if (adds->coord) BF_CALL(bf_parmparse_add_typed("geometry.coord_sys", 1, zeros, BF_PP_INT));
  if (adds->prob_lo) BF_CALL(bf_parmparse_add_typed("geometry.prob_lo", dim, zeros, BF_PP_REAL));
  if (adds->is_periodic) BF_CALL(bf_parmparse_add_typed("geometry.is_periodic", dim, zeros, BF_PP_INT));
  return BF_SUCCESS;
}

int bf_geometry_setup(int dim, const bf_realbox *rb, int coord, const int *is_periodic) {
  bf_geometry *gg = NULL;
  BF_CALL(top_default(dim, &gg));
  if (gg->ok) return BF_SUCCESS;
  bf_geometry n = *gg;
  setup_adds adds;
  BF_CALL(setup_compute(&n, rb, coord, is_periodic, &adds));
  BF_CALL(setup_commit_adds(dim, &adds));
  *gg = n;
  return BF_SUCCESS;
}

int bf_geometry_reset_default_prob_domain(const bf_realbox *rb) {
  BF_CHECK_DIM(rb->dim);
  BF_CALL(bf_geometry_check_prob_domain(rb, rb->dim));
  bf_geometry *gg = NULL;
  BF_CALL(top_default(rb->dim, &gg));
  gg->prob_domain = *rb;
  return BF_SUCCESS;
}

int bf_geometry_reset_default_periodicity(int dim, const int *is_periodic) {
  bf_geometry *gg = NULL;
  BF_CALL(top_default(dim, &gg));
  for (int d = 0; d < dim; ++d) gg->is_periodic[d] = is_periodic[d] != 0;
  return BF_SUCCESS;
}

int bf_geometry_reset_default_coord(int dim, int coord) {
  BF_CHECK_DIM(dim);
  BF_CALL(bf_geometry_check_coord(coord));
  bf_geometry *gg = NULL;
  BF_CALL(top_default(dim, &gg));
  gg->coord = coord;
  return BF_SUCCESS;
}

/* ---- definition ------------------------------------------------------------------- */
int bf_geometry_define(const bf_box *domain, const bf_realbox *rb, int coord, const int *is_periodic,
                       bf_geometry *g) {
  BF_CHECK_DIM(domain->dim);
  int dim = domain->dim;
  BF_CALL(bf_geometry_check_domain(domain, dim));
  if (rb) BF_CALL(bf_geometry_check_prob_domain(rb, dim));
  BF_CALL(bf_geometry_check_coord(coord));
  /* Setup's effect on the default, computed first and committed last. */
  bf_geometry *gg = NULL, nd;
  bool runtime = bf_runtime_initialized();
  if (runtime) {
    BF_CALL(top_default(dim, &gg));
    nd = *gg;
  } else {
    BF_CALL(bf_geometry_undefined(dim, &nd));
  }
  setup_adds adds = {false, false, false};
  bool run_setup = !nd.ok;
  if (run_setup) BF_CALL(setup_compute(&nd, rb, coord, is_periodic, &adds));
  bf_geometry r;
  BF_CALL(bf_geometry_undefined(dim, &r));
  r.coord = coord == BF_COORD_UNDEF ? nd.coord : coord;
  for (int d = 0; d < dim; ++d) r.is_periodic[d] = is_periodic ? is_periodic[d] != 0 : nd.is_periodic[d];
  r.prob_domain = rb ? *rb : nd.prob_domain;
  if (!rb) BF_CALL(bf_geometry_check_prob_domain(&r.prob_domain, dim));
  r.domain = *domain;
  r.ok = true;
  BF_CALL(bf_geometry_compute_roundoff_domain(&r));
  if (runtime && run_setup) {
    BF_CALL(setup_commit_adds(dim, &adds));
    *gg = nd;
  }
  *g = r;
  return BF_SUCCESS;
}

