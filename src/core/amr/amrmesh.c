/* AmrInfo and AmrMesh (see include/boxfab/amrmesh.h), after AMReX's
 * AMReX_AmrMesh.{H,cpp}: the same defaults, ParmParse names and checks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boxfab/amrmesh.h"
#include "boxfab/parmparse.h"
#include "boxfab/runtime.h"

static int amr_alloc_levels(bf_amrinfo *info, int nlev) {
  bf_intvect **arrays[4] = {&info->ref_ratio, &info->blocking_factor, &info->max_grid_size, &info->n_error_buf};
  const int defaults[4] = {2, 8, info->dim == 3 ? 32 : 128, 1};
  for (int k = 0; k < 4; ++k) {
    bf_intvect *a = malloc((size_t)nlev * sizeof *a);
    BF_CHECK(a != NULL, BF_ERROR_MEMORY, "out of memory for %d AMR levels", nlev);
    for (int l = 0; l < nlev; ++l) a[l] = bf_intvect_splat(info->dim, defaults[k]);
    free(*arrays[k]);
    *arrays[k] = a;
  }
  info->nlev = nlev;
  return BF_SUCCESS;
}

void bf_amrinfo_free(bf_amrinfo *info) {
  if (!info) return;
  free(info->ref_ratio), free(info->blocking_factor), free(info->max_grid_size), free(info->n_error_buf);
  info->ref_ratio = info->blocking_factor = info->max_grid_size = info->n_error_buf = NULL;
  info->nlev = 0;
}

int bf_amrinfo_init(int dim, bf_amrinfo *info) {
  BF_CHECK_DIM(dim);
  BF_CHECK(info != NULL, BF_ERROR_VALUE, "info must not be NULL");
  memset(info, 0, sizeof *info);
  info->dim = dim;
  info->grid_eff = 0.7;
  info->n_proper = 1;
  info->refine_grid_layout = true;
  info->refine_grid_layout_dims = bf_intvect_splat(dim, 1);
  info->check_input = true;
  info->iterate_on_new_grids = true;
  int ierr = amr_alloc_levels(info, 1);
  if (ierr) bf_amrinfo_free(info);
  return ierr;
}

/* ---- ParmParse reads ------------------------------------------------------------ */
static int amr_missing(const char *name) {
  BF_ERROR(BF_ERROR_RUNTIME, "ParmParse: required parameter %s not found", name);
}

/* All values of `name` as ints into a malloc'ed array (*n = 0, *v = NULL when not defined). */
static int amr_ints(const char *name, int **v, int *n) {
  *v = NULL;
  *n = bf_parmparse_count(name);
  if (*n <= 0) {
    *n = 0;
    return BF_SUCCESS;
  }
  int *a = malloc((size_t)*n * sizeof *a);
  BF_CHECK(a != NULL, BF_ERROR_MEMORY, "out of memory reading %s", name);
  for (int i = 0; i < *n; ++i) {
    bool found;
    int ierr = bf_parmparse_query_int(name, i, &found, &a[i]);
    if (ierr) {
      free(a);
      return ierr;
    }
  }
  *v = a;
  return BF_SUCCESS;
}

/* pp.queryAdd: read name when defined, else add the current value. */
static int amr_query_add_int(const char *name, int *v) {
  bool found = false;
  BF_CALL(bf_parmparse_query_int(name, 0, &found, v));
  if (!found) {
    int64_t x = *v;
    BF_CALL(bf_parmparse_add_ints(name, 1, &x));
  }
  return BF_SUCCESS;
}
static int amr_query_add_bool(const char *name, bool *v) {
  bool found = false;
  BF_CALL(bf_parmparse_query_bool(name, 0, &found, v));
  if (!found) BF_CALL(bf_parmparse_add_bools(name, 1, v));
  return BF_SUCCESS;
}
static int amr_query_add_real(const char *name, double *v) {
  bool found = false;
  BF_CALL(bf_parmparse_query_real(name, 0, &found, v));
  if (!found) BF_CALL(bf_parmparse_add_reals(name, 1, v));
  return BF_SUCCESS;
}

/* amr.<base> (all directions) and amr.<base>_x/_y/_z (one direction), per level,
 * the last value repeated for the levels past the list. */
static int amr_per_level(bf_amrinfo *info, const char *base, bf_intvect *arr) {
  char name[64];
  int *v = NULL, n = 0;
  snprintf(name, sizeof name, "amr.%s", base);
  BF_CALL(amr_ints(name, &v, &n));
  for (int l = 0; n > 0 && l < info->nlev; ++l) arr[l] = bf_intvect_splat(info->dim, v[l < n ? l : n - 1]);
  free(v);
  static const char xyz[] = "xyz";
  for (int d = 0; d < info->dim; ++d) {
    snprintf(name, sizeof name, "amr.%s_%c", base, xyz[d]);
    BF_CALL(amr_ints(name, &v, &n));
    for (int l = 0; n > 0 && l < info->nlev; ++l) arr[l].v[d] = v[l < n ? l : n - 1];
    free(v);
  }
  return BF_SUCCESS;
}

static int amr_ref_ratios(bf_amrinfo *info) {
  if (info->max_level == 0) return BF_SUCCESS;
  int *vv = NULL, nv = 0, *vi = NULL, ni = 0;
  BF_CALL(amr_ints("amr.ref_ratio_vect", &vv, &nv));
  int ierr = amr_ints("amr.ref_ratio", &vi, &ni);
  int need = info->max_level * info->dim;
  if (!ierr && nv > 0 && ni > 0)
    ierr = bf_error_set(BF_ERROR_VALUE, __func__, "give either amr.ref_ratio or amr.ref_ratio_vect, not both");
  else if (!ierr && nv > 0 && nv < need)
    ierr = bf_error_set(BF_ERROR_VALUE, __func__, "amr.ref_ratio_vect needs max_level * %d = %d values, has %d",
                        info->dim, need, nv);
  else if (!ierr && nv > 0)
    for (int l = 0, k = 0; l < info->max_level; ++l)
      for (int d = 0; d < info->dim; ++d) info->ref_ratio[l].v[d] = vv[k++];
  else if (!ierr && ni > 0)
    for (int l = 0; l < info->max_level; ++l) info->ref_ratio[l] = bf_intvect_splat(info->dim, vi[l < ni ? l : ni - 1]);
  free(vv), free(vi);
  return ierr;
}

/* AMReX's AmrMesh::checkInput (errors only; its warnings are not printed). */
static int amr_check_input(const bf_amrmesh *m) {
  const bf_amrinfo *a = &m->info;
  int dim = a->dim;
  for (int l = 0; l <= a->max_level; ++l)
    for (int d = 0; d < dim; ++d) {
      BF_CHECK(a->ref_ratio[l].v[d] >= 1, BF_ERROR_VALUE, "ref_ratio of level %d is %d: must be at least 1", l,
               a->ref_ratio[l].v[d]);
      int k = a->blocking_factor[l].v[d];
      while (k > 0 && k % 2 == 0) k /= 2;
      BF_CHECK(k == 1, BF_ERROR_VALUE,
               "blocking_factor %d of level %d is not a power of 2 (amr.check_input=0 bypasses the check)",
               a->blocking_factor[l].v[d], l);
      BF_CHECK(a->max_grid_size[l].v[d] >= 1, BF_ERROR_VALUE, "max_grid_size of level %d is %d: must be positive", l,
               a->max_grid_size[l].v[d]);
    }
  const bf_box *dom = &m->geom[0].domain;
  for (int d = 0; d < dim; ++d) {
    int64_t len = (int64_t)dom->hi[d] - dom->lo[d] + 1;
    if (a->blocking_factor[0].v[d] <= a->max_grid_size[0].v[d])
      BF_CHECK(len % a->blocking_factor[0].v[d] == 0, BF_ERROR_VALUE,
               "domain size %lld in direction %d is not divisible by blocking_factor %d", (long long)len, d,
               a->blocking_factor[0].v[d]);
  }
  for (int l = 0; l < a->max_level; ++l)
    for (int d = 0; d < dim; ++d) {
      int64_t bfrr = (int64_t)a->blocking_factor[l].v[d] * a->ref_ratio[l].v[d];
      BF_CHECK(bfrr >= a->blocking_factor[l + 1].v[d], BF_ERROR_VALUE,
               "blocking factors vary too much between levels %d and %d", l, l + 1);
      int bf = a->blocking_factor[l].v[d], mgs = a->max_grid_size[l].v[d];
      if (bf <= mgs)
        BF_CHECK(mgs % bf == 0, BF_ERROR_VALUE, "max_grid_size %d of level %d is not divisible by blocking_factor %d",
                 mgs, l, bf);
      int bf_lev = a->blocking_factor[l + 1].v[d] / a->ref_ratio[l].v[d];
      if (bf_lev < 1) bf_lev = 1;
      int min_grid = bf < mgs ? bf : mgs;
      BF_CHECK(min_grid % bf_lev == 0, BF_ERROR_VALUE,
               "coarse level %d blocking factor not a multiple of fine level blocking factor divided by ref ratio", l);
    }
  return BF_SUCCESS;
}

static int amr_init(int dim, const bf_realbox *rb, int max_level_in, const int *n_cell_in, int coord, int nratios,
                    const bf_intvect *ratios, const int *is_per, bf_amrmesh *m) {
  bf_amrinfo *a = &m->info;
  bool found = false;
  BF_CALL(bf_parmparse_query_int("amr.verbose", 0, &found, &a->verbose));
  if (!found) BF_CALL(bf_parmparse_query_int("amr.v", 0, &found, &a->verbose));
  if (!found) {
    int64_t v = a->verbose;
    BF_CALL(bf_parmparse_add_ints("amr.verbose", 1, &v));
  }
  if (max_level_in == -1) {
    BF_CALL(bf_parmparse_query_int("amr.max_level", 0, &found, &a->max_level));
    if (!found) return amr_missing("amr.max_level");
  } else {
    a->max_level = max_level_in;
  }
  BF_CHECK(a->max_level >= 0 && a->max_level < BF_AMR_MAX_LEVELS, BF_ERROR_VALUE,
           "max_level must be in [0, %d), got %d", BF_AMR_MAX_LEVELS, a->max_level);
  BF_CALL(amr_alloc_levels(a, a->max_level + 1));
  m->geom = calloc((size_t)a->nlev, sizeof *m->geom);
  BF_CHECK(m->geom != NULL, BF_ERROR_MEMORY, "out of memory for %d levels", a->nlev);
  BF_CALL(amr_query_add_int("amr.n_proper", &a->n_proper));
  BF_CALL(amr_query_add_real("amr.grid_eff", &a->grid_eff));
  BF_CALL(amr_per_level(a, "n_error_buf", a->n_error_buf));
  BF_CALL(amr_ref_ratios(a));
  if (nratios > 0) {
    BF_CHECK(nratios >= a->max_level, BF_ERROR_VALUE, "ref_ratios has %d entries, max_level %d needs %d", nratios,
             a->max_level, a->max_level);
    for (int l = 0; l < a->max_level; ++l) {
      BF_CHECK(ratios[l].dim == dim, BF_ERROR_TYPE, "ref_ratios[%d] has dimension %d, not %d", l, ratios[l].dim, dim);
      a->ref_ratio[l] = ratios[l];
    }
  }
  BF_CALL(amr_per_level(a, "max_grid_size", a->max_grid_size));
  BF_CALL(amr_per_level(a, "blocking_factor", a->blocking_factor));
  /* the domain of level 0, refined level by level */
  int n_cell[BF_SPACEDIM_MAX] = {0, 0, 0};
  if (!n_cell_in) {
    int cnt = bf_parmparse_count("amr.n_cell");
    if (cnt < 0) return amr_missing("amr.n_cell");
    BF_CHECK(cnt >= dim, BF_ERROR_VALUE, "amr.n_cell has %d values, needs %d", cnt, dim);
    for (int d = 0; d < dim; ++d) BF_CALL(bf_parmparse_query_int("amr.n_cell", d, &found, &n_cell[d]));
  } else {
    for (int d = 0; d < dim; ++d) n_cell[d] = n_cell_in[d];
  }
  int lo[BF_SPACEDIM_MAX] = {0, 0, 0}, hi[BF_SPACEDIM_MAX] = {0, 0, 0};
  for (int d = 0; d < dim; ++d) {
    BF_CHECK(n_cell[d] >= 1, BF_ERROR_VALUE, "n_cell must be positive, got %d in direction %d", n_cell[d], d);
    hi[d] = n_cell[d] - 1;
  }
  bf_box dom;
  BF_CALL(bf_box_define(dim, lo, hi, 0u, &dom));
  for (int l = 0; l <= a->max_level; ++l) {
    BF_CALL(bf_geometry_define(&dom, rb, rb ? coord : -1, is_per, &m->geom[l]));
    if (l < a->max_level)
      for (int d = 0; d < dim; ++d) {
        int r = a->ref_ratio[l].v[d];
        BF_CHECK(r >= 1, BF_ERROR_VALUE, "ref_ratio of level %d is %d: must be at least 1", l, r);
        int64_t nlo = (int64_t)dom.lo[d] * r, nhi = ((int64_t)dom.hi[d] + 1) * r - 1;
        BF_CHECK(nhi <= INT32_MAX && nlo >= INT32_MIN, BF_ERROR_OVERFLOW,
                 "the domain of level %d does not fit in int indices", l + 1);
        dom.lo[d] = (int)nlo, dom.hi[d] = (int)nhi;
      }
  }
  BF_CALL(amr_query_add_bool("amr.refine_grid_layout", &a->refine_grid_layout));
  static const char *const rgl[] = {"amr.refine_grid_layout_x", "amr.refine_grid_layout_y", "amr.refine_grid_layout_z"};
  bool any = false;
  for (int d = 0; d < dim; ++d) {
    bool t = a->refine_grid_layout;
    BF_CALL(bf_parmparse_query_bool(rgl[d], 0, &found, &t));
    a->refine_grid_layout_dims.v[d] = t;
    any = any || t;
  }
  a->refine_grid_layout = any;
  BF_CALL(amr_query_add_bool("amr.check_input", &a->check_input));
  m->finest_level = -1;
  if (a->check_input) BF_CALL(amr_check_input(m));
  return BF_SUCCESS;
}

int bf_amrmesh_create(int dim, const bf_realbox *rb, int max_level, const int *n_cell, int coord, int nratios,
                      const bf_intvect *ref_ratios, const int *is_periodic, bf_amrmesh *mesh) {
  BF_CHECK_DIM(dim);
  BF_CHECK(mesh != NULL, BF_ERROR_VALUE, "mesh must not be NULL");
  BF_CHECK(bf_runtime_initialized(), BF_ERROR_RUNTIME, "AmrMesh needs an initialized runtime (call initialize() first)");
  BF_CHECK(!rb || rb->dim == dim, BF_ERROR_TYPE, "rb has dimension %d, not %d", rb ? rb->dim : 0, dim);
  BF_CHECK(nratios >= 0 && (nratios == 0 || ref_ratios), BF_ERROR_VALUE, "bad ref_ratios");
  BF_CHECK(max_level >= -1, BF_ERROR_VALUE, "max_level must be in [0, %d), got %d", BF_AMR_MAX_LEVELS, max_level);
  bf_amrmesh m;
  memset(&m, 0, sizeof m);
  BF_CALL(bf_amrinfo_init(dim, &m.info));
  int ierr = rb ? bf_geometry_setup(dim, rb, coord, is_periodic) : BF_SUCCESS;
  if (!ierr) ierr = amr_init(dim, rb, max_level, n_cell, coord, nratios, ref_ratios, is_periodic, &m);
  if (ierr) {
    bf_amrmesh_free(&m);
    return ierr;
  }
  *mesh = m;
  return BF_SUCCESS;
}

void bf_amrmesh_free(bf_amrmesh *mesh) {
  if (!mesh) return;
  bf_amrinfo_free(&mesh->info);
  free(mesh->geom);
  mesh->geom = NULL;
}
