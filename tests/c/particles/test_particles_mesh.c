/* Particle-mesh coupling (bf_pc_deposit / bf_pc_deposit_ex /
 * bf_pc_interpolate) against an independent brute force: every particle's
 * weight in every cell computed from its distance to the cell centre (the
 * shapes written as functions of distance, the nearest periodic image in
 * periodic directions), summed over all cells of the domain.  1D/2D/3D, NGP,
 * CIC, TSC, periodic and not, pure SoA and legacy layouts, tiling on and
 * off, a domain that does not start at index 0, several threads; charge
 * conservation; every error.
 *
 * `test_particles_mesh --gpu` runs the same checks with the particles and
 * MultiFabs in managed memory, i.e. through the CUDA kernels (exit 77 when
 * boxfab uses no GPU); ctest runs it as test_particles_mesh_gpu.  --managed
 * does the same without requiring a GPU (host memory without one). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "boxfab/particles.h"
#include "mftest.h"

#define NCELL 8 /* cells per direction */
#define BS 4    /* box size */
#define OFF 3   /* the domain's lo index */
#define PLO (-1.25)
#define DX 0.5

typedef struct setup {
  int dim;
  bool soa, periodic;
  bf_geometry geom;
  bf_boxarray *ba;
  bf_distmap *dm;
  bf_pc *pc;
  int wcomp; /* the SoA real component holding the weights */
} setup;

static int g_kind = BF_ARENA_CPU; /* memory of the particles and MultiFabs */

static bf_arena *arena(void) { return bf_arena_get(g_kind); }

static uint64_t rng = 12345;
static double urand(void) {
  rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(rng >> 11) / 9007199254740992.0;
}

static void setup_make(setup *s, int dim, bool soa, bool periodic, int np, const bf_intvect *tilesize) {
  memset(s, 0, sizeof *s);
  s->dim = dim, s->soa = soa, s->periodic = periodic;
  int nb = NCELL / BS, count = 1;
  for (int d = 0; d < dim; ++d) count *= nb;
  bf_box boxes[64];
  int m = 0;
  for (int c = 0; c < (dim > 2 ? nb : 1); ++c)
    for (int b = 0; b < (dim > 1 ? nb : 1); ++b)
      for (int a = 0; a < nb; ++a)
        boxes[m++] = mkbox(dim, OFF + a * BS, OFF + b * BS, OFF + c * BS, OFF + a * BS + BS - 1, OFF + b * BS + BS - 1,
                           OFF + c * BS + BS - 1, 0);
  BFT_OK(bf_boxarray_create_from_boxes(dim, count, boxes, &s->ba));
  s->dm = dm_for(s->ba);
  bf_box dom = mkbox(dim, OFF, OFF, OFF, OFF + NCELL - 1, OFF + NCELL - 1, OFF + NCELL - 1, 0);
  bf_realbox rb = {dim, {PLO, PLO, PLO}, {PLO + NCELL * DX, PLO + NCELL * DX, PLO + NCELL * DX}};
  int per[3] = {periodic, periodic, periodic};
  BFT_OK(bf_geometry_define(&dom, &rb, 0, per, &s->geom));
  bf_playout lay = soa ? (bf_playout){dim, true, 0, 0, dim + 1, 1} : (bf_playout){dim, false, 1, 1, 1, 1};
  BFT_OK(bf_pc_create(&lay, arena(), &s->pc));
  BFT_OK(bf_pc_define(s->pc, 1, &s->geom, &s->ba, &s->dm, NULL));
  if (tilesize) BFT_OK(bf_pc_set_tiling(s->pc, true, tilesize));
  s->wcomp = soa ? dim : 0;
  /* positions: random, plus the domain's lo corner and cell faces */
  double *pos[3], *w = malloc((size_t)np * sizeof *w);
  for (int d = 0; d < 3; ++d) pos[d] = malloc((size_t)np * sizeof(double));
  for (int i = 0; i < np; ++i) {
    for (int d = 0; d < 3; ++d) {
      double u = urand();
      if (i == 0) u = 0.0;
      else if (i < 4) u = (double)(i + 2) / NCELL; /* on a face */
      pos[d][i] = PLO + u * NCELL * DX;
    }
    w[i] = 0.5 + urand();
  }
  bf_pcolumns cols;
  memset(&cols, 0, sizeof cols);
  cols.n = np;
  for (int d = 0; d < dim; ++d) cols.pos[d] = pos[d];
  const double *reals[1] = {w};
  cols.real = reals;
  BFT_OK(bf_pc_add_columns(s->pc, 0, &cols, true));
  for (int d = 0; d < 3; ++d) free(pos[d]);
  free(w);
}

static void setup_free(setup *s) {
  bf_pc_destroy(&s->pc);
  bf_boxarray_destroy(&s->ba);
  bf_distmap_destroy(&s->dm);
}

/* Particle i of tile t: position (3, padded with 0) and SoA real comp. */
static void particle(const setup *s, const bf_ptile *t, int64_t i, int comp, double x[3], double *v) {
  x[0] = x[1] = x[2] = 0;
  if (s->soa) {
    for (int d = 0; d < s->dim; ++d) bf_podvec_read(bf_ptile_real(t, d), i, 1, &x[d]);
  } else {
    const bf_playout *lay = bf_ptile_layout(t);
    double buf[16];
    bf_podvec_read(bf_ptile_aos(t), i, 1, buf);
    (void)lay;
    for (int d = 0; d < s->dim; ++d) x[d] = buf[d];
  }
  bf_podvec_read(bf_ptile_real(t, comp), i, 1, v);
}

/* The shape's weight of cell c (index relative to the domain's lo) for a
 * particle at u cells from the domain's lo, as a function of the distance
 * to the cell centre; nearest periodic image when periodic. */
static double weight(int shape, double u, int c, bool periodic) {
  double r = u - (c + 0.5);
  if (periodic) r -= NCELL * floor(r / NCELL + 0.5);
  double a = fabs(r);
  switch (shape) {
  case BF_SHAPE_NGP: return (r >= -0.5 && r < 0.5) ? 1.0 : 0.0;
  case BF_SHAPE_CIC: return a < 1.0 ? 1.0 - a : 0.0;
  default: return a < 0.5 ? 0.75 - a * a : a < 1.5 ? 0.5 * (1.5 - a) * (1.5 - a) : 0.0;
  }
}

static int ncells(int dim) { return dim == 1 ? NCELL : dim == 2 ? NCELL * NCELL : NCELL * NCELL * NCELL; }

/* Reference density of every domain cell (x fastest). */
static double *reference_density(const setup *s, int shape, bool unit, double *total) {
  double *ref = calloc((size_t)ncells(s->dim), sizeof *ref);
  int64_t nt = 0;
  bf_pc_tiles(s->pc, 0, true, NULL, 0, &nt);
  bf_pc_tileref refs[64];
  bf_pc_tiles(s->pc, 0, true, refs, 64, &nt);
  double vol = pow(DX, s->dim);
  *total = 0;
  for (int64_t t = 0; t < nt; ++t)
    for (int64_t i = 0; i < bf_ptile_size(refs[t].ptile); ++i) {
      double x[3], w;
      particle(s, refs[t].ptile, i, s->wcomp, x, &w);
      if (unit) w = 1.0;
      *total += w;
      int hi1 = s->dim > 1 ? NCELL : 1, hi2 = s->dim > 2 ? NCELL : 1;
      for (int c2 = 0; c2 < hi2; ++c2)
        for (int c1 = 0; c1 < hi1; ++c1)
          for (int c0 = 0; c0 < NCELL; ++c0) {
            int c[3] = {c0, c1, c2};
            double f = w / vol;
            for (int d = 0; d < s->dim; ++d) f *= weight(shape, (x[d] - PLO) / DX, c[d], s->periodic);
            ref[c0 + NCELL * (c1 + NCELL * c2)] += f;
          }
    }
  return ref;
}

static bool approx(double a, double b) { return fabs(a - b) <= 1e-12 * (1.0 + fabs(b)); }

static void check_deposit(const setup *s, int shape, int ng, bool unit, bool zero_out) {
  bf_multifab *mf = NULL;
  BFT_OK(bf_multifab_create(s->ba, s->dm, 2, iv3(s->dim, ng, ng, ng), BF_DTYPE_DOUBLE, arena(), true, &mf));
  BFT_OK(bf_gpu_synchronize());
  fill_pattern(mf, 3);
  bf_multifab *before = NULL;
  BFT_OK(bf_multifab_clone(mf, &before));
  double total = 0;
  double *ref = reference_density(s, shape, unit, &total);
  BFT_OK(bf_pc_deposit_ex(s->pc, 0, unit ? -1 : s->wcomp, mf, 1, shape, true, zero_out));
  BFT_OK(bf_gpu_synchronize());
  bool ok = true, ghosts_kept = true, comp0_kept = true;
  double sum = 0;
  for (int64_t li = 0; li < bf_multifab_nlocal(mf); ++li) {
    bf_mf_fab f;
    bf_multifab_local_fab(mf, li, &f);
    FOR_BOX(f.fabbox, p) {
      comp0_kept = comp0_kept && mf_get(mf, li, p, 0) == mf_get(before, li, p, 0);
      if (in_box(&f.validbox, p)) {
        double got = mf_get(mf, li, p, 1) - (zero_out ? 0.0 : mf_get(before, li, p, 1));
        double want = ref[(p[0] - OFF) + NCELL * ((s->dim > 1 ? p[1] - OFF : 0) + NCELL * (s->dim > 2 ? p[2] - OFF : 0))];
        if (!approx(got, want)) {
          if (ok)
            fprintf(stderr, "dim %d shape %d periodic %d soa %d: cell (%d,%d,%d) got %.17g want %.17g\n", s->dim,
                    shape, s->periodic, s->soa, p[0], p[1], p[2], got, want);
          ok = false;
        }
        sum += got;
      } else if (!zero_out) {
        ghosts_kept = ghosts_kept && mf_get(mf, li, p, 1) == mf_get(before, li, p, 1);
      }
    }
  }
  BFT_CHECK(ok);
  BFT_CHECK(ghosts_kept);
  BFT_CHECK(comp0_kept);
  if (s->periodic) BFT_CHECK(fabs(sum * pow(DX, s->dim) - total) <= 1e-11 * total); /* charge conservation */
  free(ref);
  bf_multifab_destroy(&before);
  bf_multifab_destroy(&mf);
}

/* Cell value of the interpolation test: a pattern of the (wrapped when
 * periodic) absolute index. */
static double cell_value(const setup *s, const int *p) {
  int q[3] = {p[0], p[1], p[2]};
  for (int d = 0; d < s->dim; ++d)
    if (s->periodic) q[d] = OFF + (((q[d] - OFF) % NCELL) + NCELL) % NCELL;
  return pattern(q, 0, 5) + 0.125 * q[0];
}

static void check_interpolate(const setup *s, int shape, int ng) {
  bf_multifab *mf = NULL;
  BFT_OK(bf_multifab_create(s->ba, s->dm, 2, iv3(s->dim, ng, ng, ng), BF_DTYPE_DOUBLE, arena(), true, &mf));
  BFT_OK(bf_gpu_synchronize());
  for (int64_t li = 0; li < bf_multifab_nlocal(mf); ++li) {
    bf_mf_fab f;
    bf_multifab_local_fab(mf, li, &f);
    FOR_BOX(f.fabbox, p) {
      mf_put(mf, li, p, 0, -999.0);
      mf_put(mf, li, p, 1, cell_value(s, p));
    }
  }
  BFT_OK(bf_pc_interpolate(s->pc, 0, s->wcomp, mf, 1, shape));
  BFT_OK(bf_gpu_synchronize());
  int64_t nt = 0;
  bf_pc_tileref refs[64];
  BFT_OK(bf_pc_tiles(s->pc, 0, true, refs, 64, &nt));
  bool ok = true;
  for (int64_t t = 0; t < nt; ++t)
    for (int64_t i = 0; i < bf_ptile_size(refs[t].ptile); ++i) {
      double x[3], got;
      particle(s, refs[t].ptile, i, s->wcomp, x, &got);
      double want = 0;
      int lo1 = s->dim > 1 ? -2 : 0, hi1 = s->dim > 1 ? NCELL + 1 : 0;
      int lo2 = s->dim > 2 ? -2 : 0, hi2 = s->dim > 2 ? NCELL + 1 : 0;
      for (int c2 = lo2; c2 <= hi2; ++c2)
        for (int c1 = lo1; c1 <= hi1; ++c1)
          for (int c0 = -2; c0 <= NCELL + 1; ++c0) {
            int c[3] = {c0, c1, c2};
            double f = 1.0;
            for (int d = 0; d < s->dim; ++d) f *= weight(shape, (x[d] - PLO) / DX, c[d], false);
            if (f == 0.0) continue;
            int p[3] = {OFF + c0, s->dim > 1 ? OFF + c1 : 0, s->dim > 2 ? OFF + c2 : 0};
            want += f * cell_value(s, p);
          }
      if (!approx(got, want)) {
        if (ok) fprintf(stderr, "interpolate dim %d shape %d: got %.17g want %.17g\n", s->dim, shape, got, want);
        ok = false;
      }
    }
  BFT_CHECK(ok);
  bf_multifab_destroy(&mf);
}

static void test_deposit_and_interpolate(void) {
  for (int dim = 1; dim <= 3; ++dim)
    for (int soa = 0; soa < 2; ++soa)
      for (int periodic = 0; periodic < 2; ++periodic) {
        setup s;
        setup_make(&s, dim, soa, periodic, dim == 3 ? 300 : 100, NULL);
        for (int shape = 0; shape < 3; ++shape) {
          int ng = shape == BF_SHAPE_NGP ? 0 : 1;
          check_deposit(&s, shape, ng, false, false);
          check_deposit(&s, shape, ng + 1, true, false);
          check_deposit(&s, shape, ng + 1, false, true);
          check_interpolate(&s, shape, ng + 1);
        }
        setup_free(&s);
      }
}

static void test_tiling_and_threads(void) {
  setup s;
  bf_intvect ts = iv3(3, 2, 2, 4);
  setup_make(&s, 3, true, true, 2000, &ts);
  int64_t nt = 0;
  BFT_OK(bf_pc_tiles(s.pc, 0, true, NULL, 0, &nt));
  BFT_CHECK(nt > bf_boxarray_size(s.ba)); /* several tiles per grid */
  for (int threads = 1; threads <= 4; threads *= 2) {
    set_threads(threads);
    for (int shape = 0; shape < 3; ++shape) check_deposit(&s, shape, 1, false, false);
  }
  set_threads(2);
  setup_free(&s);
}

static void test_errors(void) {
  setup s;
  setup_make(&s, 2, true, true, 50, NULL);
  bf_multifab *mf0 = NULL, *mf1 = NULL, *imf = NULL, *nodal = NULL, *other = NULL;
  BFT_OK(bf_multifab_create(s.ba, s.dm, 1, iv3(2, 0, 0, 0), BF_DTYPE_DOUBLE, arena(), true, &mf0));
  BFT_OK(bf_multifab_create(s.ba, s.dm, 1, iv3(2, 1, 1, 0), BF_DTYPE_DOUBLE, arena(), true, &mf1));
  BFT_OK(bf_multifab_create(s.ba, s.dm, 1, iv3(2, 1, 1, 0), BF_DTYPE_INT, arena(), true, &imf));
  bf_boxarray *nba = NULL, *oba = chop_domain(2, 8, 4, 0);
  BFT_OK(bf_boxarray_copy(s.ba, &nba));
  BFT_OK(bf_boxarray_convert(&nba, 1u));
  BFT_OK(bf_multifab_create(nba, s.dm, 1, iv3(2, 1, 1, 0), BF_DTYPE_DOUBLE, arena(), true, &nodal));
  BFT_OK(bf_multifab_create(oba, s.dm, 1, iv3(2, 1, 1, 0), BF_DTYPE_DOUBLE, arena(), true, &other));
  /* too few ghost cells for the shape */
  BFT_OK(bf_pc_deposit(s.pc, 0, -1, mf0, 0, BF_SHAPE_NGP, true));
  BFT_FAILS(bf_pc_deposit(s.pc, 0, -1, mf0, 0, BF_SHAPE_CIC, true), BF_ERROR_VALUE);
  BFT_FAILS(bf_pc_deposit(s.pc, 0, -1, mf0, 0, BF_SHAPE_TSC, true), BF_ERROR_VALUE);
  BFT_FAILS(bf_pc_interpolate(s.pc, 0, 2, mf0, 0, BF_SHAPE_CIC), BF_ERROR_VALUE);
  /* wrong BoxArray, index type, dtype */
  BFT_FAILS(bf_pc_deposit(s.pc, 0, -1, other, 0, BF_SHAPE_CIC, true), BF_ERROR_VALUE);
  BFT_FAILS(bf_pc_deposit(s.pc, 0, -1, nodal, 0, BF_SHAPE_CIC, true), BF_ERROR_VALUE);
  BFT_FAILS(bf_pc_deposit(s.pc, 0, -1, imf, 0, BF_SHAPE_CIC, true), BF_ERROR_TYPE);
  /* indices out of range */
  BFT_FAILS(bf_pc_deposit(s.pc, 0, -1, mf1, 1, BF_SHAPE_CIC, true), BF_ERROR_INDEX);
  BFT_FAILS(bf_pc_deposit(s.pc, 0, -1, mf1, -1, BF_SHAPE_CIC, true), BF_ERROR_INDEX);
  BFT_FAILS(bf_pc_deposit(s.pc, 0, 3, mf1, 0, BF_SHAPE_CIC, true), BF_ERROR_INDEX);
  BFT_FAILS(bf_pc_deposit(s.pc, 0, -2, mf1, 0, BF_SHAPE_CIC, true), BF_ERROR_INDEX);
  BFT_FAILS(bf_pc_deposit(s.pc, 1, -1, mf1, 0, BF_SHAPE_CIC, true), BF_ERROR_INDEX);
  BFT_FAILS(bf_pc_deposit(s.pc, 0, -1, mf1, 0, 3, true), BF_ERROR_VALUE);
  BFT_FAILS(bf_pc_interpolate(s.pc, 0, -1, mf1, 0, BF_SHAPE_CIC), BF_ERROR_INDEX);
  BFT_FAILS(bf_pc_interpolate(s.pc, 0, 0, mf1, 0, BF_SHAPE_CIC), BF_ERROR_VALUE); /* a position */
  BFT_FAILS(bf_pc_deposit(NULL, 0, -1, mf1, 0, BF_SHAPE_CIC, true), BF_ERROR_VALUE);
  BFT_FAILS(bf_pc_deposit(s.pc, 0, -1, NULL, 0, BF_SHAPE_CIC, true), BF_ERROR_VALUE);
  /* a particle outside its grid (moved without redistribute), then a NaN
   * position: an error, mf unchanged (sum_boundary without zero_out) */
  int64_t nt = 0;
  bf_pc_tileref refs[16];
  BFT_OK(bf_pc_tiles(s.pc, 0, true, refs, 16, &nt));
  bf_ptile *t = refs[0].ptile;
  double x0 = 0, moved = PLO + 100.0, nan = NAN;
  BFT_OK(bf_podvec_get(bf_ptile_real(t, 0), 0, &x0));
  BFT_OK(bf_multifab_set_val_all(mf1, 2.5));
  for (int k = 0; k < 2; ++k) {
    BFT_OK(bf_podvec_set(bf_ptile_real(t, 0), 0, k ? &nan : &moved));
    BFT_FAILS(bf_pc_deposit(s.pc, 0, -1, mf1, 0, BF_SHAPE_CIC, true), BF_ERROR_VALUE);
    double mn = 0, mx = 0;
    BFT_OK(bf_multifab_min(mf1, NULL, 0, iv3(2, 1, 1, 0), true, &mn));
    BFT_OK(bf_multifab_max(mf1, NULL, 0, iv3(2, 1, 1, 0), true, &mx));
    BFT_CHECK(mn == 2.5 && mx == 2.5);
    BFT_FAILS(bf_pc_interpolate(s.pc, 0, 2, mf1, 0, BF_SHAPE_TSC), BF_ERROR_VALUE);
  }
  BFT_OK(bf_podvec_set(bf_ptile_real(t, 0), 0, &x0));
  BFT_OK(bf_pc_deposit(s.pc, 0, -1, mf1, 0, BF_SHAPE_CIC, true));
  bf_multifab_destroy(&mf0);
  bf_multifab_destroy(&mf1);
  bf_multifab_destroy(&imf);
  bf_multifab_destroy(&nodal);
  bf_multifab_destroy(&other);
  bf_boxarray_destroy(&nba);
  bf_boxarray_destroy(&oba);
  setup_free(&s);
}

/* Level 1 of a two-level container: a refined box inside a non-periodic
 * domain (fine domain lo 2 * OFF); deposit and interpolate on level 1 use
 * the fine geometry and only the particles redistribute put there. */
static void test_level1(void) {
  const int r = 2, flo = 2 * OFF + 4, fhi = 2 * OFF + 11; /* fine cells of the refined box */
  const double fdx = DX / r;
  bf_box cdom = mkbox(3, OFF, OFF, OFF, OFF + NCELL - 1, OFF + NCELL - 1, OFF + NCELL - 1, 0);
  bf_box fdom = mkbox(3, r * OFF, r * OFF, r * OFF, r * (OFF + NCELL) - 1, r * (OFF + NCELL) - 1, r * (OFF + NCELL) - 1, 0);
  bf_box fbox = mkbox(3, flo, flo, flo, fhi, fhi, fhi, 0);
  bf_realbox rb = {3, {PLO, PLO, PLO}, {PLO + NCELL * DX, PLO + NCELL * DX, PLO + NCELL * DX}};
  int per[3] = {0, 0, 0}, ratio[3] = {r, r, r};
  bf_geometry geoms[2];
  BFT_OK(bf_geometry_define(&cdom, &rb, 0, per, &geoms[0]));
  BFT_OK(bf_geometry_define(&fdom, &rb, 0, per, &geoms[1]));
  bf_boxarray *bas[2] = {NULL, NULL};
  BFT_OK(bf_boxarray_create_from_boxes(3, 1, &cdom, &bas[0]));
  BFT_OK(bf_boxarray_create_from_boxes(3, 1, &fbox, &bas[1]));
  bf_distmap *dms[2] = {dm_for(bas[0]), dm_for(bas[1])};
  bf_playout lay = {3, true, 0, 0, 4, 0};
  bf_pc *pc = NULL;
  BFT_OK(bf_pc_create(&lay, arena(), &pc));
  BFT_OK(bf_pc_define(pc, 2, geoms, bas, dms, ratio));
  enum { NP = 400 };
  double *pos[3], w[NP];
  for (int d = 0; d < 3; ++d) pos[d] = malloc(NP * sizeof(double));
  for (int i = 0; i < NP; ++i) {
    for (int d = 0; d < 3; ++d) pos[d][i] = PLO + urand() * NCELL * DX;
    w[i] = urand();
  }
  bf_pcolumns cols;
  memset(&cols, 0, sizeof cols);
  cols.n = NP;
  for (int d = 0; d < 3; ++d) cols.pos[d] = pos[d];
  const double *reals[1] = {w};
  cols.real = reals;
  BFT_OK(bf_pc_add_columns(pc, 0, &cols, true));
  BFT_OK(bf_pc_redistribute(pc, 0, -1, 0, 0, false)); /* to the finest level holding each */
  int64_t n1 = 0;
  BFT_OK(bf_pc_num_particles_at_level(pc, 1, false, true, &n1));
  BFT_CHECK(n1 > 0);
  for (int shape = 0; shape < 3; ++shape) {
    bf_multifab *mf = NULL;
    BFT_OK(bf_multifab_create(bas[1], dms[1], 1, iv3(3, 1, 1, 1), BF_DTYPE_DOUBLE, arena(), true, &mf));
    BFT_OK(bf_pc_deposit_ex(pc, 1, 3, mf, 0, shape, true, true));
    BFT_OK(bf_gpu_synchronize());
    /* reference: the level-1 particles over the fine box's cells */
    const int nf = fhi - flo + 1;
    double *ref = calloc((size_t)nf * nf * nf, sizeof *ref);
    int64_t nt = 0, seen = 0;
    bf_pc_tileref refs[8];
    BFT_OK(bf_pc_tiles(pc, 1, true, refs, 8, &nt));
    for (int64_t t = 0; t < nt; ++t)
      for (int64_t i = 0; i < bf_ptile_size(refs[t].ptile); ++i, ++seen) {
        double x[3], v;
        for (int d = 0; d < 3; ++d) bf_podvec_read(bf_ptile_real(refs[t].ptile, d), i, 1, &x[d]);
        bf_podvec_read(bf_ptile_real(refs[t].ptile, 3), i, 1, &v);
        for (int c2 = 0; c2 < nf; ++c2)
          for (int c1 = 0; c1 < nf; ++c1)
            for (int c0 = 0; c0 < nf; ++c0) {
              int c[3] = {c0, c1, c2};
              double f = v / (fdx * fdx * fdx);
              for (int d = 0; d < 3; ++d) f *= weight(shape, (x[d] - PLO) / fdx, flo - r * OFF + c[d], false);
              ref[c0 + nf * (c1 + nf * c2)] += f;
            }
      }
    BFT_CHECK(seen == n1);
    bool ok = true;
    FOR_BOX(fbox, p) ok = ok && approx(mf_get(mf, 0, p, 0), ref[(p[0] - flo) + nf * ((p[1] - flo) + nf * (p[2] - flo))]);
    BFT_CHECK(ok);
    /* interpolate a linear field: CIC and TSC reproduce it inside the box, NGP gives the cell's value */
    bf_mf_fab f;
    bf_multifab_local_fab(mf, 0, &f);
    FOR_BOX(f.fabbox, p) mf_put(mf, 0, p, 0, 1.0 + 0.25 * p[0] - 0.5 * p[1] + 0.125 * p[2]);
    BFT_OK(bf_pc_interpolate(pc, 1, 3, mf, 0, shape));
    BFT_OK(bf_gpu_synchronize());
    ok = true;
    for (int64_t t = 0; t < nt; ++t)
      for (int64_t i = 0; i < bf_ptile_size(refs[t].ptile); ++i) {
        double x[3], v, u[3];
        for (int d = 0; d < 3; ++d) {
          bf_podvec_read(bf_ptile_real(refs[t].ptile, d), i, 1, &x[d]);
          u[d] = (x[d] - PLO) / fdx + r * OFF; /* absolute fine index coordinate */
          if (shape == BF_SHAPE_NGP) u[d] = floor(u[d]);
          else u[d] -= 0.5; /* cell centres at index + 0.5 */
        }
        bf_podvec_read(bf_ptile_real(refs[t].ptile, 3), i, 1, &v);
        double want = 1.0 + 0.25 * u[0] - 0.5 * u[1] + 0.125 * u[2];
        ok = ok && fabs(v - want) <= 1e-12 * (1 + fabs(want));
      }
    BFT_CHECK(ok);
    free(ref);
    bf_multifab_destroy(&mf);
  }
  /* level 0's MultiFab on level 1 (wrong BoxArray), level 2 */
  bf_multifab *mf0 = NULL;
  BFT_OK(bf_multifab_create(bas[0], dms[0], 1, iv3(3, 1, 1, 1), BF_DTYPE_DOUBLE, arena(), true, &mf0));
  BFT_FAILS(bf_pc_deposit(pc, 1, 3, mf0, 0, BF_SHAPE_CIC, true), BF_ERROR_VALUE);
  BFT_FAILS(bf_pc_deposit(pc, 2, 3, mf0, 0, BF_SHAPE_CIC, true), BF_ERROR_INDEX);
  BFT_OK(bf_pc_deposit(pc, 0, 3, mf0, 0, BF_SHAPE_CIC, true));
  bf_multifab_destroy(&mf0);
  for (int d = 0; d < 3; ++d) free(pos[d]);
  bf_pc_destroy(&pc);
  for (int l = 0; l < 2; ++l) {
    bf_boxarray_destroy(&bas[l]);
    bf_distmap_destroy(&dms[l]);
  }
}

int main(int argc, char **argv) {
  uint64_t id;
  bf_runtime_initialize(0, NULL, &id);
  if (argc > 1 && strcmp(argv[1], "--gpu") == 0) {
    if (!bf_gpu_available()) {
      printf("no GPU used (BOXFAB_DEVICE=cpu, no device or no CUDA build): skipped\n");
      bf_runtime_finalize();
      return 77;
    }
    g_kind = BF_ARENA_MANAGED;
  } else if (argc > 1 && strcmp(argv[1], "--managed") == 0) { /* the --gpu harness on any machine */
    g_kind = BF_ARENA_MANAGED;
  }
  set_threads(2);
  BFT_RUN(test_deposit_and_interpolate);
  BFT_RUN(test_tiling_and_threads);
  BFT_RUN(test_errors);
  BFT_RUN(test_level1);
  bf_plan_cache_clear();
  bf_runtime_finalize();
  return bft_report();
}
