/* Particle-mesh coupling: bf_pc_deposit / bf_pc_interpolate (particles.h).
 *
 * The core checks the arguments, gathers one bf_pmesh_tile per non-empty
 * tile of the level (positions, values, the fab of its grid) and calls the
 * table's pmesh_deposit / pmesh_interpolate (backend.h) of the backend whose
 * kernels reach both the particles' and the MultiFab's memory: CPU kernels
 * parallel over grids, CUDA kernels with atomic adds.  The shapes (NGP, CIC,
 * TSC; particles/mesh_shape.h) are AMReX's cell-centred ones: the cell containing the
 * particle, ParticleInterpolator::Linear, and the quadratic spline over the
 * nearest cell and its two neighbours, with the cell of position x in
 * direction d at dlo[d] + floor((x - plo[d]) / dx[d]) (AMReX's particle cell,
 * Index()).
 *
 * Deposit with sum_boundary goes through a zeroed scratch MultiFab of one
 * component on the same grids: the particles deposit into it (ghost cells
 * included), SumBoundary with the level's periodicity adds every ghost
 * contribution into the valid cell it is an image of, and its valid cells are
 * added to mf.  mf's ghost cells are left unchanged, and mf is unchanged when
 * an error is reported.  bf_pc_deposit_ex with zero_out sets mf's component
 * to zero (ghost cells included) and deposits in place (no scratch). */
#include <stdlib.h>
#include <string.h>

#include "runtime/backend.h"
#include "boxfab/particles.h"

static const char *const shape_names[] = {"NGP", "CIC", "TSC"};

/* Ghost cells a shape's stencil reaches outside the grid of a particle. */
static int shape_ghosts(int shape) { return shape == BF_SHAPE_NGP ? 0 : 1; }

typedef struct pmesh_call {
  bf_pmesh_args args;
  bf_pmesh_tile *tiles;
  int64_t *groups;
  const bf_backend *be;
  const bf_geometry *geom;
  int64_t nparticles;
} pmesh_call;

/* Host kernels may read memory the device is still writing (pinned or
 * managed memory, of the particles or the MultiFab): wait for it first. */
static int host_ready(const bf_backend *be) {
  const bf_backend *dev = bf_backend_device();
  return dev && be != dev ? dev->synchronize() : BF_SUCCESS;
}

static void call_free(pmesh_call *c) {
  free(c->tiles);
  free(c->groups);
  c->tiles = NULL;
  c->groups = NULL;
}

/* Check the arguments shared by deposit and interpolate; set up the
 * arguments except the tiles. */
static int check_common(const char *what, const bf_pc *pc, int lev, const bf_multifab *mf, int mfcomp, int shape,
                        pmesh_call *c) {
  BF_CHECK(pc != NULL, BF_ERROR_VALUE, "%s: no particle container", what);
  BF_CHECK(mf != NULL, BF_ERROR_VALUE, "%s: no MultiFab", what);
  BF_CALL(bf_pc_check(pc));
  BF_CALL(bf_multifab_check(mf));
  BF_CHECK(bf_pc_is_defined(pc), BF_ERROR_VALUE, "%s: the particle container is not defined (no levels)", what);
  const int nlev = bf_pc_num_levels(pc);
  BF_CHECK(lev >= 0 && lev < nlev, BF_ERROR_INDEX, "%s: level %d out of range [0, %d)", what, lev, nlev);
  BF_CHECK(shape >= BF_SHAPE_NGP && shape <= BF_SHAPE_TSC, BF_ERROR_VALUE,
           "%s: unknown shape %d (0 = NGP, 1 = CIC, 2 = TSC)", what, shape);
  const bf_geometry *geom = NULL;
  bf_boxarray *ba = NULL;
  bf_distmap *dm = NULL;
  BF_CALL(bf_pc_level(pc, lev, &geom, &ba, &dm));
  const bf_playout *lay = bf_pc_layout(pc);
  const int dim = lay->dim;
  BF_CHECK(bf_multifab_dim(mf) == dim, BF_ERROR_TYPE, "%s: a %dD MultiFab for %dD particles", what,
           bf_multifab_dim(mf), dim);
  BF_CHECK(bf_multifab_dtype(mf) == BF_DTYPE_DOUBLE, BF_ERROR_TYPE, "%s: the MultiFab must hold doubles (Real)",
           what);
  BF_CHECK(bf_multifab_is_all_cell_centered(mf), BF_ERROR_VALUE, "%s: the MultiFab must be cell-centred", what);
  BF_CHECK(bf_boxarray_equal(bf_multifab_boxarray(mf), ba), BF_ERROR_VALUE,
           "%s: the MultiFab is not on the BoxArray of particle level %d (make it with pc.ParticleBoxArray(%d))",
           what, lev, lev);
  BF_CHECK(bf_distmap_equal(bf_multifab_distmap(mf), dm), BF_ERROR_VALUE,
           "%s: the MultiFab is not on the DistributionMapping of particle level %d (make it with "
           "pc.ParticleDistributionMap(%d))",
           what, lev, lev);
  const int ncomp = bf_multifab_ncomp(mf);
  BF_CHECK(mfcomp >= 0 && mfcomp < ncomp, BF_ERROR_INDEX, "%s: MultiFab component %d out of range [0, %d)", what,
           mfcomp, ncomp);
  BF_CHECK(bf_multifab_is_allocated(mf), BF_ERROR_VALUE, "%s: the MultiFab has no data (not allocated)", what);
  bf_intvect ng = bf_multifab_ngrow(mf);
  const int need = shape_ghosts(shape);
  for (int d = 0; d < dim; ++d)
    BF_CHECK(ng.v[d] >= need, BF_ERROR_VALUE,
             "%s: %s needs %d ghost cell%s in every direction, the MultiFab has %d in direction %d", what,
             shape_names[shape], need, need == 1 ? "" : "s", ng.v[d], d);
  BF_CHECK(geom->ok, BF_ERROR_VALUE, "%s: the geometry of level %d is not defined", what, lev);
  const bf_arena *arenas[2] = {bf_multifab_arena(mf), bf_pc_arena(pc)};
  c->be = bf_backend_for_arenas(2, arenas, what);
  if (!c->be) return bf_error_code();
  BF_CHECK(c->be->pmesh_deposit && c->be->pmesh_interpolate, BF_ERROR_UNSUPPORTED,
           "%s: the %s backend has no particle-mesh kernels", what, c->be->name);
  memset(&c->args, 0, sizeof c->args);
  c->args.dim = dim;
  c->args.shape = shape;
  double vol = 1.0;
  for (int d = 0; d < 3; ++d) {
    c->args.plo[d] = d < dim ? geom->prob_domain.lo[d] : 0.0;
    c->args.dxi[d] = d < dim ? geom->inv_dx[d] : 1.0;
    c->args.dlo[d] = d < dim ? geom->domain.lo[d] : 0;
    if (d < dim) vol *= geom->dx[d];
  }
  c->args.scale = 1.0 / vol;
  c->geom = geom;
  return BF_SUCCESS;
}

/* One bf_pmesh_tile per non-empty tile of level lev, with the fab of its
 * grid in `mf` (component mfcomp) and values from SoA real component `comp`
 * (-1: none); tiles of one grid form a group. */
static int gather_tiles(const char *what, const bf_pc *pc, int lev, int comp, const bf_multifab *mf, int mfcomp,
                        pmesh_call *c) {
  int64_t n = 0;
  BF_CALL(bf_pc_tiles(pc, lev, true, NULL, 0, &n));
  c->tiles = calloc((size_t)(n > 0 ? n : 1), sizeof *c->tiles);
  c->groups = calloc((size_t)n + 2, sizeof *c->groups);
  bf_pc_tileref *refs = calloc((size_t)(n > 0 ? n : 1), sizeof *refs);
  if (!c->tiles || !c->groups || !refs) {
    free(refs);
    BF_ERROR(BF_ERROR_MEMORY, "%s: out of memory for %lld tiles", what, (long long)n);
  }
  int64_t got = 0;
  int err = bf_pc_tiles(pc, lev, true, refs, n, &got);
  if (!err && got != n) err = bf_error_set(BF_ERROR_RUNTIME, what, "%s: the tiles changed while read", what);
  const bf_playout *lay = bf_pc_layout(pc);
  const size_t ssize = bf_playout_struct_size(lay);
  int64_t nt = 0, ng = 0, prev_grid = -1;
  for (int64_t r = 0; !err && r < n; ++r) {
    const bf_ptile *pt = refs[r].ptile;
    if ((err = bf_ptile_check_consistent(pt)) != BF_SUCCESS) break;
    int64_t np = bf_ptile_size(pt) - bf_ptile_num_neighbors(pt);
    if (np <= 0) continue;
    int64_t li = bf_multifab_local_index(mf, refs[r].grid);
    if (li < 0) {
      err = bf_error_set(BF_ERROR_VALUE, what, "%s: grid %lld holds particles but is not local to the MultiFab", what,
                         (long long)refs[r].grid);
      break;
    }
    bf_mf_fab fab;
    if ((err = bf_multifab_local_fab(mf, li, &fab)) != BF_SUCCESS) break;
    bf_pmesh_tile *t = &c->tiles[nt];
    t->np = np;
    if (lay->pure_soa) {
      for (int d = 0; d < lay->dim; ++d) t->pos[d] = bf_podvec_data(bf_ptile_real(pt, d));
      t->pstride = 1;
    } else {
      const double *aos = bf_podvec_data(bf_ptile_aos(pt));
      for (int d = 0; d < lay->dim; ++d) t->pos[d] = aos ? aos + d : NULL;
      t->pstride = (int64_t)(ssize / sizeof(double));
    }
    for (int d = 0; d < lay->dim; ++d)
      if (!t->pos[d]) {
        err = bf_error_set(BF_ERROR_RUNTIME, what, "%s: a tile of grid %lld has particles but no positions", what,
                           (long long)refs[r].grid);
        break;
      }
    if (err) break;
    t->val = comp >= 0 ? bf_podvec_data(bf_ptile_real(pt, comp)) : NULL;
    if (comp >= 0 && !t->val) {
      err = bf_error_set(BF_ERROR_RUNTIME, what, "%s: a tile of grid %lld has no data for component %d", what,
                         (long long)refs[r].grid, comp);
      break;
    }
    t->fab = (double *)fab.data + (int64_t)mfcomp * fab.stride[2];
    t->js = fab.stride[0];
    t->ks = fab.stride[1];
    for (int d = 0; d < 3; ++d) {
      t->flo[d] = d < lay->dim ? fab.fabbox.lo[d] : 0;
      t->fhi[d] = d < lay->dim ? fab.fabbox.hi[d] : 0;
    }
    if (refs[r].grid != prev_grid) c->groups[ng++] = nt;
    prev_grid = refs[r].grid;
    c->nparticles += np;
    ++nt;
  }
  free(refs);
  if (err) return err;
  c->groups[ng] = nt;
  c->args.ntiles = nt;
  c->args.tiles = c->tiles;
  c->args.ngroups = ng;
  c->args.group_start = c->groups;
  return BF_SUCCESS;
}

static int report_skipped(const char *what, int64_t nbad, int lev, int shape, const char *after) {
  return bf_error_set(BF_ERROR_VALUE, what,
                      "%s: %lld particle%s of level %d lie outside the box of their grid grown by the MultiFab's "
                      "ghost cells for %s (or have non-finite positions): call redistribute() first; %s",
                      what, (long long)nbad, nbad == 1 ? "" : "s", lev, shape_names[shape], after);
}

static int deposit(const bf_pc *pc, int lev, int comp, bf_multifab *mf, int mfcomp, int shape, bool sum_boundary,
                   bool zero_out) {
  static const char what[] = "deposit";
  pmesh_call c;
  memset(&c, 0, sizeof c);
  BF_CALL(check_common(what, pc, lev, mf, mfcomp, shape, &c));
  const int nreal = bf_pc_num_real_comps(pc);
  BF_CHECK(comp >= -1 && comp < nreal, BF_ERROR_INDEX,
           "%s: particle component %d out of range [-1, %d) (-1: weight 1 per particle)", what, comp, nreal);
  const bf_intvect ngrow = bf_multifab_ngrow(mf);
  if (zero_out) BF_CALL(bf_multifab_set_val(mf, 0.0, NULL, mfcomp, 1, ngrow));
  /* the scratch: sum_boundary into mf's valid cells only, mf's ghost cells untouched */
  bf_multifab *dst = mf, *tmp = NULL;
  int dcomp = mfcomp;
  bool any_ghost = false;
  for (int d = 0; d < ngrow.dim; ++d) any_ghost |= ngrow.v[d] > 0;
  if (sum_boundary && any_ghost && !zero_out) {
    BF_CALL(bf_multifab_create(bf_multifab_boxarray(mf), bf_multifab_distmap(mf), 1, ngrow, BF_DTYPE_DOUBLE,
                               bf_multifab_arena(mf), true, &tmp));
    int e = bf_multifab_set_val(tmp, 0.0, NULL, 0, 1, ngrow);
    if (e) {
      bf_multifab_destroy(&tmp);
      return e;
    }
    dst = tmp;
    dcomp = 0;
  }
  int err = gather_tiles(what, pc, lev, comp, dst, dcomp, &c);
  int64_t nbad = 0;
  if (!err && c.args.ntiles > 0) {
    err = host_ready(c.be);
    if (!err && c.be->pmesh_deposit(&c.args, &nbad) != 0) err = bf_error_code() ? bf_error_code() : BF_ERROR_RUNTIME;
  }
  call_free(&c);
  if (!err && nbad > 0)
    err = report_skipped(what, nbad, lev, shape,
                         tmp ? "the MultiFab is unchanged"
                             : "the MultiFab holds the other particles' contributions");
  if (!err && sum_boundary && any_ghost) {
    bf_periodicity per;
    err = bf_geometry_periodicity(c.geom, NULL, &per);
    bf_intvect zero = ngrow;
    for (int d = 0; d < zero.dim; ++d) zero.v[d] = 0;
    if (!err) err = bf_multifab_sum_boundary(dst, dcomp, 1, ngrow, zero, &per);
    if (!err && tmp) err = bf_multifab_add(mf, tmp, 0, mfcomp, 1, zero);
  }
  bf_multifab_destroy(&tmp);
  return err;
}

int bf_pc_deposit(const bf_pc *pc, int lev, int comp, bf_multifab *mf, int mfcomp, int shape, bool sum_boundary) {
  return deposit(pc, lev, comp, mf, mfcomp, shape, sum_boundary, false);
}

int bf_pc_deposit_ex(const bf_pc *pc, int lev, int comp, bf_multifab *mf, int mfcomp, int shape, bool sum_boundary,
                     bool zero_out) {
  return deposit(pc, lev, comp, mf, mfcomp, shape, sum_boundary, zero_out);
}

int bf_pc_interpolate(bf_pc *pc, int lev, int comp, const bf_multifab *mf, int mfcomp, int shape) {
  static const char what[] = "interpolate";
  pmesh_call c;
  memset(&c, 0, sizeof c);
  BF_CALL(check_common(what, pc, lev, mf, mfcomp, shape, &c));
  const bf_playout *lay = bf_pc_layout(pc);
  const int nreal = bf_pc_num_real_comps(pc);
  BF_CHECK(comp >= 0 && comp < nreal, BF_ERROR_INDEX, "%s: particle component %d out of range [0, %d)", what, comp,
           nreal);
  BF_CHECK(!lay->pure_soa || comp >= lay->dim, BF_ERROR_VALUE,
           "%s: particle component %d is a position (interpolating into it would move the particles)", what, comp);
  int err = gather_tiles(what, pc, lev, comp, mf, mfcomp, &c);
  int64_t nbad = 0;
  if (!err && c.args.ntiles > 0) {
    err = host_ready(c.be);
    if (!err && c.be->pmesh_interpolate(&c.args, &nbad) != 0)
      err = bf_error_code() ? bf_error_code() : BF_ERROR_RUNTIME;
  }
  call_free(&c);
  if (!err && nbad > 0)
    err = report_skipped(what, nbad, lev, shape, "the other particles received their values, these kept theirs");
  return err;
}
