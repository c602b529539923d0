/* Particle containers: redistribute against a brute-force owner computation
 * (every box scanned), periodic wrap as a modulo, removals, multi-level,
 * tiling, counts, stable order, ids neither lost nor duplicated, errors
 * leaving the container unchanged. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "boxfab/idcpu.h"
#include "boxfab/mfiter.h"
#include "boxfab/particles.h"
#include "mftest.h"

typedef struct rec {
  int64_t id;
  double pos[3], a; /* a: first SoA real after the positions */
  int32_t i0;
  int lev;
  int64_t grid;
  int tile;
  int64_t order; /* index within its tile */
} rec;

/* Every particle of the container (pure SoA layouts with >= dim+1 reals and >= 1 int). */
static rec *collect(bf_pc *pc, int64_t *n) {
  int64_t total = 0;
  BFT_OK(bf_pc_total_num_particles(pc, false, true, &total));
  rec *r = calloc((size_t)total + 1, sizeof *r);
  int dim = bf_pc_layout(pc)->dim;
  int64_t m = 0;
  for (int lev = 0; lev < bf_pc_num_levels(pc); ++lev) {
    int64_t nt = 0;
    BFT_OK(bf_pc_tiles(pc, lev, false, NULL, 0, &nt));
    bf_pc_tileref *refs = calloc((size_t)nt + 1, sizeof *refs);
    BFT_OK(bf_pc_tiles(pc, lev, false, refs, nt, &nt));
    for (int64_t k = 0; k < nt; ++k) {
      bf_ptile *t = refs[k].ptile;
      int64_t np = bf_ptile_size(t);
      const uint64_t *idc = bf_podvec_data(bf_ptile_idcpu(t));
      const double *x[3] = {NULL, NULL, NULL};
      for (int d = 0; d < dim; ++d)
        x[d] = bf_podvec_data(bf_ptile_real(t, d));
      const double *a = bf_podvec_data(bf_ptile_real(t, dim));
      const int32_t *i0 = bf_podvec_data(bf_ptile_int(t, 0));
      for (int64_t i = 0; i < np && m < total; ++i, ++m) {
        r[m].id = bf_idcpu_id(idc[i]);
        for (int d = 0; d < dim; ++d)
          r[m].pos[d] = x[d][i];
        r[m].a = a[i];
        r[m].i0 = i0[i];
        r[m].lev = lev, r[m].grid = refs[k].grid, r[m].tile = refs[k].tile, r[m].order = i;
      }
    }
    free(refs);
  }
  *n = m;
  return r;
}

/* Brute force: the tile a particle at x belongs to on level lev (scan every
 * box; tile by recomputing MFIter's tiles), -1 when none. */
static int64_t owner(bf_pc *pc, int lev, const double *x, int *tile) {
  const bf_geometry *g = NULL;
  bf_boxarray *ba = NULL;
  bf_distmap *dm = NULL;
  bf_pc_level(pc, lev, &g, &ba, &dm);
  int dim = g->dim;
  int iv[3] = {0, 0, 0};
  for (int d = 0; d < dim; ++d)
    iv[d] = g->domain.lo[d] + (int)floor((x[d] - g->prob_domain.lo[d]) / g->dx[d] + 0.0 * g->inv_dx[d]);
  /* use the same formula as AMReX: floor((x - lo) * inv_dx) */
  for (int d = 0; d < dim; ++d)
    iv[d] = g->domain.lo[d] + (int)floor((x[d] - g->prob_domain.lo[d]) * g->inv_dx[d]);
  for (int64_t b = 0; b < bf_boxarray_size(ba); ++b) {
    bf_box bx;
    bf_boxarray_get(ba, b, &bx);
    bool in = true;
    for (int d = 0; d < dim; ++d)
      in = in && iv[d] >= bx.lo[d] && iv[d] <= bx.hi[d];
    if (!in) continue;
    *tile = 0;
    if (bf_pc_tiling(pc)) {
      /* MFIter's tiles of this box, in order: the one holding iv */
      bf_boxarray *one = NULL;
      bf_boxarray_create_box(&bx, &one);
      bf_distmap *d1 = dm_for(one);
      bf_multifab *mf = NULL;
      bf_multifab_create(one, d1, 1, iv3(dim, 0, 0, 0), BF_DTYPE_DOUBLE, NULL, false, &mf);
      bf_intvect ts = bf_pc_tilesize(pc);
      bf_mfiter *it = NULL;
      bf_mfiter_create(mf, true, &ts, &it);
      for (int t = 0; bf_mfiter_is_valid(it); bf_mfiter_next(it), ++t) {
        bf_box tb;
        bf_mfiter_tilebox(it, &tb);
        bool tin = true;
        for (int d = 0; d < dim; ++d)
          tin = tin && iv[d] >= tb.lo[d] && iv[d] <= tb.hi[d];
        if (tin) *tile = t;
      }
      bf_mfiter_destroy(&it);
      bf_multifab_destroy(&mf);
      bf_distmap_destroy(&d1);
      bf_boxarray_destroy(&one);
    }
    return b;
  }
  return -1;
}

static double frand(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(*s >> 11) * (1.0 / 9007199254740992.0);
}

static int cmp_id(const void *a, const void *b) {
  const rec *x = a, *y = b;
  return (x->id > y->id) - (x->id < y->id);
}

/* A 3D container on [0,1)^3 with 32^3 cells in boxes of 8 (64 boxes),
 * periodic in x and y, not in z; pure SoA with 4 reals and 1 int. */
static bf_pc *make_pc(int dim, bool tiling, int nlev) {
  bf_playout lay = {dim, true, 0, 0, dim + 1, 1};
  bf_pc *pc = NULL;
  BFT_OK(bf_pc_create(&lay, NULL, &pc));
  bf_geometry geoms[2];
  bf_boxarray *bas[2] = {NULL, NULL};
  bf_distmap *dms[2] = {NULL, NULL};
  int per[3] = {1, 1, 0};
  bf_realbox rb;
  double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  bf_realbox_define(dim, lo, hi, &rb);
  bf_box dom = mkbox(dim, 0, 0, 0, 31, 31, 31, 0);
  BFT_OK(bf_geometry_define(&dom, &rb, 0, per, &geoms[0]));
  bas[0] = chop_domain(dim, 32, 8, 0);
  dms[0] = dm_for(bas[0]);
  int ratio[3] = {2, 2, 2};
  if (nlev == 2) {
    bf_box fdom = mkbox(dim, 0, 0, 0, 63, 63, 63, 0);
    BFT_OK(bf_geometry_define(&fdom, &rb, 0, per, &geoms[1]));
    /* fine boxes covering the coarse region [8, 23]^dim refined: [16, 47] */
    bf_box fb[2] = {mkbox(dim, 16, 16, 16, 31, 47, 47, 0), mkbox(dim, 32, 16, 16, 47, 47, 47, 0)};
    BFT_OK(bf_boxarray_create_from_boxes(dim, 2, fb, &bas[1]));
    dms[1] = dm_for(bas[1]);
  }
  if (tiling) {
    bf_intvect ts = iv3(dim, 4, 8, 2);
    BFT_OK(bf_pc_set_tiling(pc, true, &ts));
  }
  BFT_OK(bf_pc_define(pc, nlev, geoms, bas, dms, ratio));
  for (int l = 0; l < nlev; ++l)
    bf_boxarray_destroy(&bas[l]), bf_distmap_destroy(&dms[l]);
  return pc;
}

/* Check every particle sits where the brute force puts it. */
static int check_placement(bf_pc *pc, const rec *r, int64_t n) {
  int bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    int lev = -1, tile = 0;
    int64_t g = -1;
    for (int l = bf_pc_num_levels(pc) - 1; l >= 0 && g < 0; --l) {
      g = owner(pc, l, r[i].pos, &tile);
      lev = l;
    }
    if (g != r[i].grid || lev != r[i].lev || tile != r[i].tile) {
      if (bad < 3)
        fprintf(stderr, "misplaced id %lld at (%g %g %g): in lev %d grid %lld tile %d, expected %d %lld %d\n",
                (long long)r[i].id, r[i].pos[0], r[i].pos[1], r[i].pos[2], r[i].lev, (long long)r[i].grid, r[i].tile,
                lev, (long long)g, tile);
      ++bad;
    }
  }
  return bad;
}

/* Move every particle by up to `dist` cells, then compare redistribute with
 * the brute force. */
static void move_and_check(bf_pc *pc, double dist, uint64_t seed) {
  int dim = bf_pc_layout(pc)->dim;
  int64_t n0 = 0;
  rec *before = collect(pc, &n0);
  uint64_t s = seed;
  /* move in the tiles, recording the expected outcome */
  rec *expect = calloc((size_t)n0 + 1, sizeof *expect);
  int64_t ne = 0, m = 0;
  for (int lev = 0; lev < bf_pc_num_levels(pc); ++lev) {
    int64_t nt = 0;
    bf_pc_tiles(pc, lev, false, NULL, 0, &nt);
    bf_pc_tileref *refs = calloc((size_t)nt + 1, sizeof *refs);
    bf_pc_tiles(pc, lev, false, refs, nt, &nt);
    const bf_geometry *g = NULL;
    bf_pc_level(pc, lev, &g, NULL, NULL);
    for (int64_t k = 0; k < nt; ++k) {
      bf_ptile *t = refs[k].ptile;
      for (int64_t i = 0; i < bf_ptile_size(t); ++i, ++m) {
        rec e = before[m];
        for (int d = 0; d < dim; ++d) {
          double *x = bf_podvec_data(bf_ptile_real(t, d));
          x[i] += (2 * frand(&s) - 1) * dist * g->dx[d];
          e.pos[d] = x[i];
        }
        /* periodic wrap as a modulo (level 0 domain [0, 1)) */
        bool keep = true;
        for (int d = 0; d < dim; ++d) {
          if (d < 2)
            e.pos[d] -= floor(e.pos[d]);
          else
            keep = keep && e.pos[d] >= 0 && e.pos[d] < 1;
        }
        if (keep) expect[ne++] = e;
      }
    }
    free(refs);
  }
  BFT_OK(bf_pc_redistribute(pc, 0, -1, 0, 0, true));
  int64_t n1 = 0;
  rec *after = collect(pc, &n1);
  BFT_CHECK(n1 == ne);
  BFT_CHECK(check_placement(pc, after, n1) == 0);
  qsort(after, (size_t)n1, sizeof *after, cmp_id);
  qsort(expect, (size_t)ne, sizeof *expect, cmp_id);
  int bad = 0;
  for (int64_t i = 0; i < n1 && i < ne; ++i) {
    bad += after[i].id != expect[i].id || after[i].a != expect[i].a || after[i].i0 != expect[i].i0;
    for (int d = 0; d < dim; ++d)
      bad += fabs(after[i].pos[d] - expect[i].pos[d]) > 1e-12;
  }
  BFT_CHECK(bad == 0);
  bool ok = false;
  BFT_OK(bf_pc_ok(pc, 0, -1, 0, &ok));
  BFT_CHECK(ok);
  free(before), free(expect), free(after);
}

static void test_init_random_and_counts(void) {
  bf_pc *pc = make_pc(3, false, 1);
  double ra[4] = {0, 0, 0, 7.5};
  int32_t ia[1] = {3};
  bf_pinit init = {NULL, NULL, ra, ia};
  BFT_OK(bf_pc_init_random(pc, 5000, 42, &init, false, NULL));
  int64_t n = 0;
  BFT_OK(bf_pc_total_num_particles(pc, true, false, &n));
  BFT_CHECK(n == 5000);
  int64_t counts[64], sum = 0;
  BFT_OK(bf_pc_num_particles_in_grid(pc, 0, true, false, counts));
  for (int g = 0; g < 64; ++g)
    sum += counts[g];
  BFT_CHECK(sum == 5000);
  rec *r = collect(pc, &n);
  BFT_CHECK(check_placement(pc, r, n) == 0);
  int bad = 0;
  for (int64_t i = 0; i < n; ++i)
    bad += r[i].a != 7.5 || r[i].i0 != 3;
  BFT_CHECK(bad == 0);
  /* ids: distinct and consecutive */
  qsort(r, (size_t)n, sizeof *r, cmp_id);
  for (int64_t i = 1; i < n; ++i)
    bad += r[i].id != r[i - 1].id + 1;
  BFT_CHECK(bad == 0);
  bool ok = false;
  BFT_OK(bf_pc_ok(pc, 0, -1, 0, &ok));
  BFT_CHECK(ok);
  /* same seed: same positions (the generator depends only on (seed, i)) */
  bf_pc *pc2 = make_pc(3, true, 1);
  BFT_OK(bf_pc_init_random(pc2, 5000, 42, &init, false, NULL));
  int64_t n2 = 0;
  rec *r2 = collect(pc2, &n2);
  qsort(r2, (size_t)n2, sizeof *r2, cmp_id);
  BFT_CHECK(n2 == n);
  double sx = 0, sx2 = 0;
  for (int64_t i = 0; i < n && i < n2; ++i)
    sx += r[i].pos[0] + r[i].pos[1] + r[i].pos[2], sx2 += r2[i].pos[0] + r2[i].pos[1] + r2[i].pos[2];
  BFT_CHECK(sx == sx2);
  BFT_CHECK(fabs(sx / (3.0 * n) - 0.5) < 0.02); /* uniform */
  free(r), free(r2);
  bf_pc_destroy(&pc2);
  bf_pc_destroy(&pc);
}

static void test_redistribute_brute_force(void) {
  for (int tiling = 0; tiling < 2; ++tiling) {
    bf_pc *pc = make_pc(3, tiling, 1);
    BFT_OK(bf_pc_init_random(pc, 20000, 7, NULL, false, NULL));
    move_and_check(pc, 1.0, 11);
    move_and_check(pc, 5.0, 12);
    move_and_check(pc, 100.0, 13); /* many periods */
    bf_pc_destroy(&pc);
  }
  for (int dim = 1; dim <= 2; ++dim) {
    bf_pc *pc = make_pc(dim, false, 1);
    BFT_OK(bf_pc_init_random(pc, 3000, 9, NULL, false, NULL));
    move_and_check(pc, 3.0, 21);
    bf_pc_destroy(&pc);
  }
}

static void test_stable_order(void) {
  bf_pc *pc = make_pc(3, false, 1);
  BFT_OK(bf_pc_init_random(pc, 8000, 5, NULL, false, NULL));
  int64_t n0 = 0;
  rec *before = collect(pc, &n0);
  /* move: shift x by one cell for every third particle */
  int64_t nt = 0;
  bf_pc_tiles(pc, 0, false, NULL, 0, &nt);
  bf_pc_tileref refs[64];
  bf_pc_tiles(pc, 0, false, refs, 64, &nt);
  for (int64_t k = 0; k < nt; ++k) {
    double *x = bf_podvec_data(bf_ptile_real(refs[k].ptile, 0));
    for (int64_t i = 0; i < bf_ptile_size(refs[k].ptile); i += 3)
      x[i] += 1.0 / 32;
  }
  BFT_OK(bf_pc_redistribute(pc, 0, -1, 0, 0, true));
  int64_t n1 = 0;
  rec *after = collect(pc, &n1);
  BFT_CHECK(n1 == n0);
  /* per tile: the stays first in their old order, then arrivals in (source tile, index) order */
  int bad = 0;
  for (int64_t i = 1; i < n1; ++i) {
    if (after[i].grid != after[i - 1].grid) continue;
    /* find both in before */
    int64_t a = -1, b = -1;
    for (int64_t j = 0; j < n0; ++j) {
      if (before[j].id == after[i - 1].id) a = j;
      if (before[j].id == after[i].id) b = j;
    }
    bool a_stay = before[a].grid == after[i - 1].grid, b_stay = before[b].grid == after[i].grid;
    if (a_stay && !b_stay) continue; /* boundary stays -> arrivals */
    if (!a_stay && b_stay)
      ++bad; /* a stay after an arrival */
    else if (a > b)
      ++bad; /* order within stays / within arrivals */
  }
  BFT_CHECK(bad == 0);
  free(before), free(after);
  bf_pc_destroy(&pc);
}

static void test_remove_negative(void) {
  bf_pc *pc = make_pc(3, false, 1);
  BFT_OK(bf_pc_init_random(pc, 1000, 3, NULL, false, NULL));
  int64_t nt = 0;
  bf_pc_tileref refs[64];
  bf_pc_tiles(pc, 0, false, refs, 64, &nt);
  int64_t flipped = 0;
  for (int64_t k = 0; k < nt; ++k) {
    uint64_t *idc = bf_podvec_data(bf_ptile_idcpu(refs[k].ptile));
    for (int64_t i = 0; i < bf_ptile_size(refs[k].ptile); i += 4, ++flipped) {
      int64_t id = bf_idcpu_id(idc[i]);
      bf_idcpu_pack(-id, 0, &idc[i]);
    }
  }
  int64_t n = 0;
  BFT_OK(bf_pc_total_num_particles(pc, true, false, &n));
  BFT_CHECK(n == 1000 - flipped);
  BFT_OK(bf_pc_total_num_particles(pc, false, false, &n));
  BFT_CHECK(n == 1000);
  bool ok = false;
  BFT_OK(bf_pc_ok(pc, 0, -1, 0, &ok));
  BFT_CHECK(ok); /* invalid particles are not checked */
  BFT_OK(bf_pc_redistribute(pc, 0, -1, 0, 0, false));
  BFT_OK(bf_pc_total_num_particles(pc, false, false, &n));
  BFT_CHECK(n == 1000);
  BFT_OK(bf_pc_redistribute(pc, 0, -1, 0, 0, true));
  BFT_OK(bf_pc_total_num_particles(pc, false, false, &n));
  BFT_CHECK(n == 1000 - flipped);
  bf_pc_destroy(&pc);
}

static void test_multilevel(void) {
  bf_pc *pc = make_pc(3, false, 2);
  BFT_OK(bf_pc_init_random(pc, 10000, 17, NULL, false, NULL));
  int64_t n0 = 0, n1 = 0;
  BFT_OK(bf_pc_num_particles_at_level(pc, 0, true, false, &n0));
  BFT_OK(bf_pc_num_particles_at_level(pc, 1, true, false, &n1));
  BFT_CHECK(n0 + n1 == 10000);
  /* the fine region is [0.25, 0.75)^3: about 1/8 of the particles */
  BFT_CHECK(n1 > 1000 && n1 < 1500);
  int64_t n = 0;
  rec *r = collect(pc, &n);
  BFT_CHECK(check_placement(pc, r, n) == 0);
  free(r);
  move_and_check(pc, 2.0, 31);
  /* redistribute only level 0 into [0, 0]: nothing goes to level 1 */
  BFT_OK(bf_pc_redistribute(pc, 0, 0, 0, 0, true));
  BFT_OK(bf_pc_num_particles_at_level(pc, 1, true, false, &n1));
  BFT_CHECK(n1 > 0);
  BFT_OK(bf_pc_remove_not_at_finest(pc));
  BFT_OK(bf_pc_num_particles_at_level(pc, 0, true, false, &n0));
  BFT_CHECK(n0 == 0);
  bf_pc_destroy(&pc);
}

static void test_errors_leave_unchanged(void) {
  bf_pc *pc = make_pc(3, false, 1);
  BFT_OK(bf_pc_init_random(pc, 500, 1, NULL, false, NULL));
  int64_t n = 0;
  BFT_FAILS(bf_pc_redistribute(pc, 1, -1, 0, 0, true), BF_ERROR_INDEX);
  BFT_FAILS(bf_pc_redistribute(pc, 0, 3, 0, 0, true), BF_ERROR_INDEX);
  BFT_FAILS(bf_pc_redistribute(pc, 0, -1, -1, 0, true), BF_ERROR_VALUE);
  BFT_FAILS(bf_pc_init_random(pc, -1, 1, NULL, false, NULL), BF_ERROR_VALUE);
  BFT_FAILS(bf_pc_init_random(pc, 10, 0, NULL, false, NULL), BF_ERROR_VALUE);
  double lo[3] = {-1, 0, 0}, hi[3] = {0.5, 1, 1};
  bf_realbox rb;
  bf_realbox_define(3, lo, hi, &rb);
  BFT_FAILS(bf_pc_init_random(pc, 10, 1, NULL, false, &rb), BF_ERROR_VALUE);
  /* columns: a NaN position and a position outside the non-periodic z range */
  double x[2] = {0.5, 0.5}, y[2] = {0.5, 0.5}, z[2] = {0.5, NAN};
  bf_pcolumns cols = {.n = 2, .pos = {x, y, z}};
  BFT_FAILS(bf_pc_add_columns(pc, 0, &cols, true), BF_ERROR_VALUE);
  z[1] = 1.5;
  BFT_FAILS(bf_pc_add_columns(pc, 0, &cols, true), BF_ERROR_VALUE);
  BFT_OK(bf_pc_total_num_particles(pc, false, false, &n));
  BFT_CHECK(n == 500);
  z[1] = 0.25;
  x[1] = 1.25; /* periodic: wrapped to 0.25 */
  BFT_OK(bf_pc_add_columns(pc, 0, &cols, true));
  BFT_OK(bf_pc_total_num_particles(pc, false, false, &n));
  BFT_CHECK(n == 502);
  bool ok = false;
  BFT_OK(bf_pc_ok(pc, 0, -1, 0, &ok));
  BFT_CHECK(ok);
  /* a misplaced particle: not OK */
  bf_pc_tileref refs[64];
  int64_t nt = 0;
  bf_pc_tiles(pc, 0, true, refs, 64, &nt);
  double *px = bf_podvec_data(bf_ptile_real(refs[0].ptile, 0));
  double old = px[0];
  px[0] = old + 0.5;
  BFT_OK(bf_pc_ok(pc, 0, -1, 0, &ok));
  BFT_CHECK(!ok);
  px[0] = old;
  BFT_FAILS(bf_pc_tile(pc, 0, 64, 0, true, &refs[0].ptile), BF_ERROR_INDEX);
  BFT_FAILS(bf_pc_tile(pc, 0, 0, 1, true, &refs[0].ptile), BF_ERROR_INDEX);
  BFT_FAILS(bf_pc_add_real_comp(pc, "x", true), BF_ERROR_VALUE);
  BFT_OK(bf_pc_add_real_comp(pc, "w8", true));
  BFT_CHECK(bf_pc_real_comp_index(pc, "w8") == 4);
  BFT_CHECK(bf_pc_num_runtime_real_comps(pc) == 1);
  BFT_OK(bf_pc_total_num_particles(pc, false, false, &n));
  BFT_CHECK(n == 502);
  /* undefined container */
  bf_playout lay = {3, true, 0, 0, 3, 0};
  bf_pc *u = NULL;
  BFT_OK(bf_pc_create(&lay, NULL, &u));
  BFT_FAILS(bf_pc_init_random(u, 10, 1, NULL, false, NULL), BF_ERROR_VALUE);
  BFT_OK(bf_pc_num_particles_at_level(u, 0, true, false, &n));
  BFT_CHECK(n == 0);
  BFT_OK(bf_pc_redistribute(u, 0, -1, 0, 0, true));
  bf_pc_destroy(&u);
  bf_pc_destroy(&pc);
}

static void test_increment_sort_perbox(void) {
  bf_pc *pc = make_pc(3, false, 1);
  BFT_OK(bf_pc_init_random_per_box(pc, 3, 2, NULL));
  int64_t counts[64];
  BFT_OK(bf_pc_num_particles_in_grid(pc, 0, true, false, counts));
  int bad = 0;
  for (int g = 0; g < 64; ++g)
    bad += counts[g] != 3;
  BFT_CHECK(bad == 0);
  BFT_OK(bf_pc_clear(pc));
  double off[3] = {0.5, 0.5, 0.5};
  BFT_OK(bf_pc_init_one_per_cell(pc, off, NULL));
  int64_t n = 0;
  BFT_OK(bf_pc_total_num_particles(pc, true, false, &n));
  BFT_CHECK(n == 32 * 32 * 32);
  bf_boxarray *ba = NULL;
  bf_pc_level(pc, 0, NULL, &ba, NULL);
  bf_multifab *mf = make_mf(ba, 1, 1, BF_DTYPE_DOUBLE);
  BFT_OK(bf_multifab_set_val_all(mf, 0.0));
  BFT_OK(bf_pc_increment(pc, mf, 0));
  double mn = 0, mx = 0;
  BFT_OK(bf_multifab_min(mf, NULL, 0, iv3(3, 0, 0, 0), false, &mn));
  BFT_OK(bf_multifab_max(mf, NULL, 0, iv3(3, 0, 0, 0), false, &mx));
  BFT_CHECK(mn == 1.0 && mx == 1.0);
  bf_multifab_destroy(&mf);
  /* sort by cell: reverse a tile first, then sorting restores x-fastest order */
  BFT_OK(bf_pc_sort_by_cell(pc));
  bf_pc_tileref refs[64];
  int64_t nt = 0;
  bf_pc_tiles(pc, 0, true, refs, 64, &nt);
  double *x = bf_podvec_data(bf_ptile_real(refs[0].ptile, 0));
  double *y = bf_podvec_data(bf_ptile_real(refs[0].ptile, 1));
  double *z = bf_podvec_data(bf_ptile_real(refs[0].ptile, 2));
  int64_t np = bf_ptile_size(refs[0].ptile);
  /* reverse the tile, sort, check (z, y, x) increasing */
  for (int64_t i = 0; i < np / 2; ++i) {
    double t;
    t = x[i], x[i] = x[np - 1 - i], x[np - 1 - i] = t;
    t = y[i], y[i] = y[np - 1 - i], y[np - 1 - i] = t;
    t = z[i], z[i] = z[np - 1 - i], z[np - 1 - i] = t;
  }
  BFT_OK(bf_pc_sort_by_cell(pc));
  x = bf_podvec_data(bf_ptile_real(refs[0].ptile, 0));
  y = bf_podvec_data(bf_ptile_real(refs[0].ptile, 1));
  z = bf_podvec_data(bf_ptile_real(refs[0].ptile, 2));
  for (int64_t i = 1; i < np; ++i)
    bad += z[i] < z[i - 1] || (z[i] == z[i - 1] && (y[i] < y[i - 1] || (y[i] == y[i - 1] && x[i] <= x[i - 1])));
  BFT_CHECK(bad == 0);
  int64_t used = 0, cap = 0;
  BFT_OK(bf_pc_bytes(pc, &used, &cap));
  BFT_CHECK(used == 32 * 32 * 32 * (8 * 5 + 4) && cap >= used);
  bf_pc_destroy(&pc);
}

/* init_random into grids that miss part of the domain: the same error (naming the same particle) and
 * an unchanged container on the host path and on the device-resident path (BOXFAB_PARTICLE_PLAN=1 runs
 * the core's device path through the CPU reference of its entries). */
static void test_plan_errors(void) {
  char msg[2][512];
  for (int w = 0; w < 2; ++w) {
    if (w) setenv("BOXFAB_PARTICLE_PLAN", "1", 1);
    else unsetenv("BOXFAB_PARTICLE_PLAN");
    bf_playout lay = {3, true, 0, 0, 4, 1};
    bf_pc *pc = NULL;
    BFT_OK(bf_pc_create(&lay, NULL, &pc));
    bf_geometry geom;
    int per[3] = {1, 1, 0};
    double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    bf_realbox rb;
    bf_realbox_define(3, lo, hi, &rb);
    bf_box dom = mkbox(3, 0, 0, 0, 31, 31, 31, 0);
    BFT_OK(bf_geometry_define(&dom, &rb, 0, per, &geom));
    bf_box half[2] = {mkbox(3, 0, 0, 0, 15, 31, 15, 0), mkbox(3, 0, 0, 16, 15, 31, 31, 0)};
    bf_boxarray *ba = NULL;
    BFT_OK(bf_boxarray_create_from_boxes(3, 2, half, &ba));
    bf_distmap *dm = dm_for(ba);
    BFT_OK(bf_pc_define(pc, 1, &geom, &ba, &dm, NULL));
    bf_boxarray_destroy(&ba), bf_distmap_destroy(&dm);
    bf_error_clear();
    BFT_CHECK(bf_pc_init_random(pc, 1000, 3, NULL, false, NULL) == BF_ERROR_VALUE);
    snprintf(msg[w], sizeof msg[w], "%s", bf_error_message());
    bf_error_clear();
    int64_t n = -1;
    BFT_OK(bf_pc_total_num_particles(pc, false, false, &n));
    BFT_CHECK(n == 0);
    /* the covered half works, and redistribute removes what leaves it */
    double rlo[3] = {0, 0, 0}, rhi[3] = {0.5, 1, 1};
    bf_realbox half_rb;
    bf_realbox_define(3, rlo, rhi, &half_rb);
    BFT_OK(bf_pc_init_random(pc, 1000, 3, NULL, false, &half_rb));
    BFT_OK(bf_pc_total_num_particles(pc, false, false, &n));
    BFT_CHECK(n == 1000);
    bf_pc_destroy(&pc);
  }
  unsetenv("BOXFAB_PARTICLE_PLAN");
  BFT_CHECK(strstr(msg[0], "lies in no grid") != NULL);
  BFT_CHECK(strcmp(msg[0], msg[1]) == 0);
  if (strcmp(msg[0], msg[1]) != 0) fprintf(stderr, "host: %s\nplan: %s\n", msg[0], msg[1]);
}

static void test_after_finalize(void) {
  uint64_t id;
  bf_runtime_initialize(0, NULL, &id);
  bf_pc *pc = make_pc(3, false, 1);
  BFT_OK(bf_pc_init_random(pc, 10, 1, NULL, false, NULL));
  bf_runtime_finalize();
  int64_t n = 0;
  BFT_FAILS(bf_pc_total_num_particles(pc, true, false, &n), BF_ERROR_RUNTIME);
  BFT_FAILS(bf_pc_redistribute(pc, 0, -1, 0, 0, true), BF_ERROR_RUNTIME);
  bf_pc_destroy(&pc);
}

/* Issue 21: Define keeps the particles; positions that are not finite and particles in no grid are
 * refused by redistribute with nothing moved; a DistributionMapping of missing ranks is refused. */
static int cmp_rec(const void *a, const void *b) {
  const rec *x = a, *y = b;
  if (x->id != y->id) return (x->id > y->id) - (x->id < y->id);
  return 0;
}

static bool same_particles(rec *a, int64_t na, rec *b, int64_t nb) {
  if (na != nb) return false;
  qsort(a, (size_t)na, sizeof *a, cmp_rec);
  qsort(b, (size_t)nb, sizeof *b, cmp_rec);
  for (int64_t i = 0; i < na; ++i) {
    if (a[i].id != b[i].id || a[i].a != b[i].a || a[i].i0 != b[i].i0) return false;
    for (int d = 0; d < 3; ++d)
      if (!(a[i].pos[d] == b[i].pos[d] || (isnan(a[i].pos[d]) && isnan(b[i].pos[d])))) return false;
  }
  return true;
}

static void test_data_safety(void) {
  bf_pc *pc = make_pc(3, false, 1);
  double ra[4] = {0, 0, 0, 7.5};
  int32_t ia[1] = {3};
  bf_pinit init = {NULL, NULL, ra, ia};
  BFT_OK(bf_pc_init_random(pc, 800, 9, &init, false, NULL));
  int64_t n0 = 0, n = 0;
  rec *r0 = collect(pc, &n0);
  const bf_geometry *g = NULL;
  BFT_OK(bf_pc_level(pc, 0, &g, NULL, NULL));
  bf_geometry geom = *g;
  /* Define onto boxes of 4: every particle stays; redistribute puts each in its new grid */
  bf_boxarray *ba4 = chop_domain(3, 32, 4, 0);
  bf_distmap *dm4 = dm_for(ba4);
  BFT_OK(bf_pc_define(pc, 1, &geom, &ba4, &dm4, NULL));
  BFT_OK(bf_pc_total_num_particles(pc, true, false, &n));
  BFT_CHECK(n == 800);
  bool ok = true;
  BFT_OK(bf_pc_ok(pc, 0, -1, 0, &ok));
  BFT_CHECK(!ok);
  BFT_OK(bf_pc_redistribute(pc, 0, -1, 0, 0, true));
  BFT_OK(bf_pc_ok(pc, 0, -1, 0, &ok));
  BFT_CHECK(ok);
  rec *r1 = collect(pc, &n);
  BFT_CHECK(check_placement(pc, r1, n) == 0);
  BFT_CHECK(same_particles(r0, n0, r1, n));
  free(r1);
  /* a NaN position: redistribute refuses, nothing moves */
  int64_t nt = 0;
  bf_pc_tileref ref;
  BFT_OK(bf_pc_tiles(pc, 0, true, &ref, 1, &nt));
  double nan = NAN, half = 0.5, inf = INFINITY;
  BFT_OK(bf_podvec_set(bf_ptile_real(ref.ptile, 1), 0, &nan));
  r0 = (free(r0), collect(pc, &n0));
  BFT_CHECK(bf_pc_redistribute(pc, 0, -1, 0, 0, true) == BF_ERROR_VALUE);
  BFT_CHECK(strstr(bf_error_message(), "not finite") != NULL && strstr(bf_error_message(), "nothing was moved"));
  bf_error_clear();
  r1 = collect(pc, &n);
  BFT_CHECK(same_particles(r0, n0, r1, n));
  free(r1);
  BFT_OK(bf_podvec_set(bf_ptile_real(ref.ptile, 1), 0, &inf));
  BFT_FAILS(bf_pc_redistribute(pc, 0, -1, 0, 0, false), BF_ERROR_VALUE);
  BFT_OK(bf_podvec_set(bf_ptile_real(ref.ptile, 1), 0, &half));
  BFT_OK(bf_pc_redistribute(pc, 0, -1, 0, 0, true));
  /* Define onto grids over half the domain: those of the other half are refused, nothing moves */
  bf_box hb = mkbox(3, 0, 0, 0, 15, 31, 31, 0);
  bf_boxarray *bah = NULL;
  BFT_OK(bf_boxarray_create_box(&hb, &bah));
  bf_distmap *dmh = dm_for(bah);
  BFT_OK(bf_pc_define(pc, 1, &geom, &bah, &dmh, NULL));
  r0 = (free(r0), collect(pc, &n0));
  BFT_CHECK(bf_pc_redistribute(pc, 0, -1, 0, 0, true) == BF_ERROR_VALUE);
  BFT_CHECK(strstr(bf_error_message(), "in no grid") != NULL);
  bf_error_clear();
  r1 = collect(pc, &n);
  BFT_CHECK(n == 800 && same_particles(r0, n0, r1, n));
  free(r1);
  /* a DistributionMapping naming a rank that does not exist: refused, the container unchanged */
  bf_distmap *bad = NULL;
  int ranks[1] = {1};
  BFT_OK(bf_distmap_create_from_pmap(1, ranks, &bad));
  BFT_FAILS(bf_pc_define(pc, 1, &geom, &bah, &bad, NULL), BF_ERROR_VALUE);
  BFT_OK(bf_pc_total_num_particles(pc, true, false, &n));
  BFT_CHECK(n == 800);
  bf_distmap_destroy(&bad);
  bf_boxarray_destroy(&bah), bf_distmap_destroy(&dmh), bf_boxarray_destroy(&ba4), bf_distmap_destroy(&dm4);
  free(r0);
  bf_pc_destroy(&pc);
}

/* Component names that would shadow a column are refused; nothing changes. */
static void test_clashing_names(void) {
  bf_pc *pc = make_pc(2, false, 1); /* pure SoA x, y, z (in 2D an ordinary name); int i0 */
  BFT_CHECK(strcmp(bf_pc_real_comp_name(pc, 2), "z") == 0);
  BFT_FAILS(bf_pc_add_int_comp(pc, "x", true), BF_ERROR_VALUE);
  BFT_FAILS(bf_pc_add_real_comp(pc, "idcpu", true), BF_ERROR_VALUE);
  BFT_FAILS(bf_pc_add_int_comp(pc, "cpu", true), BF_ERROR_VALUE);
  BFT_FAILS(bf_pc_add_real_comp(pc, "i0", true), BF_ERROR_VALUE); /* the int's name */
  BFT_FAILS(bf_pc_add_int_comp(pc, "z", true), BF_ERROR_VALUE);   /* the real's name */
  BFT_CHECK(bf_pc_num_real_comps(pc) == 3 && bf_pc_num_int_comps(pc) == 1);
  BFT_OK(bf_pc_add_int_comp(pc, "w", true));
  BFT_OK(bf_pc_set_real_comp_name(pc, 0, "y0"));
  BFT_FAILS(bf_pc_set_real_comp_name(pc, 2, "x"), BF_ERROR_VALUE); /* x is position 0's, whatever its name */
  BFT_FAILS(bf_pc_set_int_comp_name(pc, 0, "y0"), BF_ERROR_VALUE);
  bf_pc_destroy(&pc);
  /* legacy: the positions are the struct's; an SoA component may be called x, not rdata_0 */
  bf_playout lay = {3, false, 2, 1, 1, 1};
  bf_ptile *t = NULL;
  BFT_OK(bf_ptile_create(&lay, 0, 0, NULL, &t));
  const char *x[] = {"x"}, *rd[] = {"rdata_1"}, *rd2[] = {"rdata_2"}, *id[] = {"idata_0"}, *z[] = {"z"};
  BFT_OK(bf_ptile_add_comps(t, 1, x, 1, z));
  BFT_FAILS(bf_ptile_add_comps(t, 1, rd, 0, NULL), BF_ERROR_VALUE);
  BFT_OK(bf_ptile_add_comps(t, 1, rd2, 0, NULL)); /* no struct real 2 */
  BFT_FAILS(bf_ptile_add_comps(t, 0, NULL, 1, id), BF_ERROR_VALUE);
  BFT_FAILS(bf_ptile_add_comps(t, 0, NULL, 1, x), BF_ERROR_VALUE); /* a real is called x */
  BFT_CHECK(bf_ptile_num_real_comps(t) == 3 && bf_ptile_num_int_comps(t) == 2);
  bf_ptile_destroy(&t);
}

int main(void) {
  uint64_t id;
  bf_runtime_initialize(0, NULL, &id);
  BFT_RUN(test_init_random_and_counts);
  BFT_RUN(test_redistribute_brute_force);
  BFT_RUN(test_stable_order);
  BFT_RUN(test_remove_negative);
  BFT_RUN(test_multilevel);
  BFT_RUN(test_errors_leave_unchanged);
  BFT_RUN(test_increment_sort_perbox);
  BFT_RUN(test_plan_errors);
  BFT_RUN(test_after_finalize);
  BFT_RUN(test_data_safety);
  BFT_RUN(test_clashing_names);
  /* again through the host mirror (the path of device-only memory without particle kernels) */
  setenv("BOXFAB_PARTICLE_MIRROR", "1", 1);
  BFT_RUN(test_init_random_and_counts);
  BFT_RUN(test_redistribute_brute_force);
  BFT_RUN(test_stable_order);
  BFT_RUN(test_remove_negative);
  BFT_RUN(test_multilevel);
  BFT_RUN(test_errors_leave_unchanged);
  BFT_RUN(test_increment_sort_perbox);
  BFT_RUN(test_data_safety);
  unsetenv("BOXFAB_PARTICLE_MIRROR");
  /* again through the core's device-resident redistribute / init_random path (the CPU reference of
   * its backend entries; the containers are in The_Arena, not The_Cpu_Arena) */
  setenv("BOXFAB_PARTICLE_PLAN", "1", 1);
  BFT_RUN(test_init_random_and_counts);
  BFT_RUN(test_redistribute_brute_force);
  BFT_RUN(test_stable_order);
  BFT_RUN(test_remove_negative);
  BFT_RUN(test_multilevel);
  BFT_RUN(test_errors_leave_unchanged);
  BFT_RUN(test_increment_sort_perbox);
  BFT_RUN(test_data_safety);
  unsetenv("BOXFAB_PARTICLE_PLAN");
  bf_runtime_finalize();
  return bft_report();
}
