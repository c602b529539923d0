/* Particle containers on the GPU against the CPU backend: the same
 * operations on a container in host memory (The_Cpu_Arena, CPU kernels) and
 * one in The_Arena (device memory on a GPU: the CUDA particle kernels) must
 * give the same tiles with the same bytes in the same order.  Exits 77
 * (skipped) when boxfab uses no GPU, unless --cpu is given (then both
 * containers use host memory: a check of the harness itself). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "boxfab/gpu.h"
#include "boxfab/idcpu.h"
#include "boxfab/particles.h"
#include "boxfab/runtime.h"
#include "mftest.h"

static bf_arena *dev_arena;

static double frand(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(*s >> 11) * (1.0 / 9007199254740992.0);
}

/* The vectors of a tile: AoS (legacy), SoA reals, SoA ints, idcpu (pure SoA). */
static int tile_vecs(bf_ptile *t, bf_podvec **v) {
  int n = 0;
  if (bf_ptile_aos(t)) v[n++] = bf_ptile_aos(t);
  for (int c = 0; c < bf_ptile_num_real_comps(t); ++c) v[n++] = bf_ptile_real(t, c);
  for (int c = 0; c < bf_ptile_num_int_comps(t); ++c) v[n++] = bf_ptile_int(t, c);
  if (bf_ptile_idcpu(t)) v[n++] = bf_ptile_idcpu(t);
  return n;
}

/* Same tiles, sizes and bytes on every level.  Returns the number of particles. */
static int64_t compare(bf_pc *a, bf_pc *b, const char *what) {
  int64_t total = 0;
  BFT_CHECK(bf_pc_num_levels(a) == bf_pc_num_levels(b));
  for (int lev = 0; lev < bf_pc_num_levels(a); ++lev) {
    int64_t na = 0, nb = 0;
    BFT_OK(bf_pc_tiles(a, lev, false, NULL, 0, &na));
    BFT_OK(bf_pc_tiles(b, lev, false, NULL, 0, &nb));
    BFT_CHECK(na == nb);
    if (na != nb) {
      fprintf(stderr, "%s: level %d has %lld tiles on the CPU, %lld on the GPU\n", what, lev, (long long)na,
              (long long)nb);
      continue;
    }
    bf_pc_tileref *ra = calloc((size_t)na + 1, sizeof *ra), *rb = calloc((size_t)nb + 1, sizeof *rb);
    BFT_OK(bf_pc_tiles(a, lev, false, ra, na, &na));
    BFT_OK(bf_pc_tiles(b, lev, false, rb, nb, &nb));
    for (int64_t k = 0; k < na; ++k) {
      BFT_CHECK(ra[k].grid == rb[k].grid && ra[k].tile == rb[k].tile);
      int64_t n = bf_ptile_size(ra[k].ptile);
      BFT_CHECK(n == bf_ptile_size(rb[k].ptile));
      if (n != bf_ptile_size(rb[k].ptile)) {
        fprintf(stderr, "%s: tile (%lld, %d) holds %lld on the CPU, %lld on the GPU\n", what, (long long)ra[k].grid,
                ra[k].tile, (long long)n, (long long)bf_ptile_size(rb[k].ptile));
        continue;
      }
      total += n;
      bf_podvec *va[64], *vb[64];
      int nva = tile_vecs(ra[k].ptile, va), nvb = tile_vecs(rb[k].ptile, vb);
      BFT_CHECK(nva == nvb);
      for (int v = 0; v < nva && v < nvb && n > 0; ++v) {
        size_t bytes = (size_t)n * bf_podvec_elem_size(va[v]);
        char *ha = malloc(bytes), *hb = malloc(bytes);
        BFT_OK(bf_podvec_read(va[v], 0, n, ha));
        BFT_OK(bf_podvec_read(vb[v], 0, n, hb));
        if (memcmp(ha, hb, bytes) != 0) {
          BFT_CHECK(!"tile bytes differ");
          fprintf(stderr, "%s: vector %d of tile (%lld, %d) differs\n", what, v, (long long)ra[k].grid, ra[k].tile);
        }
        free(ha), free(hb);
      }
    }
    free(ra), free(rb);
  }
  return total;
}

/* Move every particle of both containers by the same random amount (up to
 * `dist` cells; ids of some made negative when `kill`), through host copies. */
static void move(bf_pc *a, bf_pc *b, double dist, uint64_t seed, bool kill) {
  const bf_playout *lay = bf_pc_layout(a);
  int dim = lay->dim;
  const bf_geometry *g = NULL;
  BFT_OK(bf_pc_level(a, 0, &g, NULL, NULL));
  for (int lev = 0; lev < bf_pc_num_levels(a); ++lev) {
    int64_t nt = 0;
    BFT_OK(bf_pc_tiles(a, lev, false, NULL, 0, &nt));
    bf_pc_tileref *ra = calloc((size_t)nt + 1, sizeof *ra), *rb = calloc((size_t)nt + 1, sizeof *rb);
    BFT_OK(bf_pc_tiles(a, lev, false, ra, nt, &nt));
    BFT_OK(bf_pc_tiles(b, lev, false, rb, nt, &nt));
    uint64_t s = seed + (uint64_t)lev;
    for (int64_t k = 0; k < nt; ++k) {
      int64_t n = bf_ptile_size(ra[k].ptile);
      if (n == 0) continue;
      bf_ptile *ts[2] = {ra[k].ptile, rb[k].ptile};
      uint64_t s0 = s;
      for (int w = 0; w < 2; ++w) {
        s = s0;
        if (lay->pure_soa) {
          double *x = malloc((size_t)n * 8);
          uint64_t *ids = malloc((size_t)n * 8);
          for (int d = 0; d < dim; ++d) {
            BFT_OK(bf_podvec_read(bf_ptile_real(ts[w], d), 0, n, x));
            for (int64_t i = 0; i < n; ++i) x[i] += (2 * frand(&s) - 1) * dist * g->dx[d];
            BFT_OK(bf_podvec_write(bf_ptile_real(ts[w], d), 0, n, x));
          }
          if (kill) {
            BFT_OK(bf_podvec_read(bf_ptile_idcpu(ts[w]), 0, n, ids));
            for (int64_t i = 0; i < n; i += 7) ids[i] &= ~((uint64_t)1 << 63); /* negative id */
            BFT_OK(bf_podvec_write(bf_ptile_idcpu(ts[w]), 0, n, ids));
          }
          free(x), free(ids);
        } else {
          size_t ss = bf_playout_struct_size(lay);
          char *buf = malloc((size_t)n * ss);
          BFT_OK(bf_podvec_read(bf_ptile_aos(ts[w]), 0, n, buf));
          for (int64_t i = 0; i < n; ++i) {
            double *p = (double *)(void *)(buf + (size_t)i * ss);
            for (int d = 0; d < dim; ++d) p[d] += (2 * frand(&s) - 1) * dist * g->dx[d];
            if (kill && i % 7 == 0) {
              uint64_t id;
              memcpy(&id, buf + (size_t)i * ss + bf_playout_idcpu_offset(lay), 8);
              id &= ~((uint64_t)1 << 63);
              memcpy(buf + (size_t)i * ss + bf_playout_idcpu_offset(lay), &id, 8);
            }
          }
          BFT_OK(bf_podvec_write(bf_ptile_aos(ts[w]), 0, n, buf));
          free(buf);
        }
      }
    }
    free(ra), free(rb);
  }
}

/* A container of `lay` in `arena` on [0,1)^dim, 64 cells per side in boxes
 * of `box` cells, periodic in x (and y), walls in the last direction. */
static bf_pc *make(const bf_playout *lay, bf_arena *arena, int box, bool tiling) {
  int dim = lay->dim;
  bf_pc *pc = NULL;
  BFT_OK(bf_pc_create(lay, arena, &pc));
  bf_geometry geom;
  int per[3] = {1, dim > 2 ? 1 : 0, 0};
  if (dim == 1) per[0] = 1;
  double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  bf_realbox rb;
  BFT_OK(bf_realbox_define(dim, lo, hi, &rb));
  bf_box dom = mkbox(dim, 0, 0, 0, 63, 63, 63, 0);
  BFT_OK(bf_geometry_define(&dom, &rb, 0, per, &geom));
  bf_boxarray *ba = chop_domain(dim, 64, box, 0);
  bf_distmap *dm = dm_for(ba);
  if (tiling) {
    bf_intvect ts = iv3(dim, 8, 4, 4);
    BFT_OK(bf_pc_set_tiling(pc, true, &ts));
  }
  BFT_OK(bf_pc_define(pc, 1, &geom, &ba, &dm, NULL));
  bf_boxarray_destroy(&ba);
  bf_distmap_destroy(&dm);
  return pc;
}

static void run_case(const bf_playout *lay, int box, bool tiling, int64_t count) {
  char what[128];
  snprintf(what, sizeof what, "%dD %s, boxes of %d%s", lay->dim, lay->pure_soa ? "pure SoA" : "legacy", box,
           tiling ? ", tiling" : "");
  bf_pc *a = make(lay, bf_arena_get(BF_ARENA_CPU), box, tiling);
  bf_pc *b = make(lay, dev_arena, box, tiling);
  double rs[16] = {0.5, 0.25, 0.125, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};
  int32_t is[4] = {3, 4, 5, 6};
  bf_pinit init = {rs, is, rs, is};
  /* the ids come from one counter per family: give both containers the same ids */
  int64_t first = 0;
  BFT_OK(bf_particle_next_id(bf_pc_id_family(a), 0, &first));
  BFT_OK(bf_pc_init_random(a, count, 42, &init, false, NULL));
  BFT_OK(bf_particle_set_next_id(bf_pc_id_family(b), first));
  BFT_OK(bf_pc_init_random(b, count, 42, &init, false, NULL));
  int64_t n = compare(a, b, what);
  (void)n;
  BFT_OK(bf_pc_add_real_comp(a, "w", true));
  BFT_OK(bf_pc_add_real_comp(b, "w", true));
  BFT_OK(bf_pc_add_int_comp(a, NULL, true));
  BFT_OK(bf_pc_add_int_comp(b, NULL, true));
  for (int step = 0; step < 3; ++step) {
    move(a, b, 1.0, 1000 + (uint64_t)step, step == 2);
    BFT_OK(bf_pc_redistribute(a, 0, -1, 0, 0, true));
    BFT_OK(bf_pc_redistribute(b, 0, -1, 0, 0, true));
    n = compare(a, b, what);
    bool oka = false, okb = false;
    BFT_OK(bf_pc_ok(a, 0, -1, 0, &oka));
    BFT_OK(bf_pc_ok(b, 0, -1, 0, &okb));
    BFT_CHECK(oka && okb);
  }
  BFT_CHECK(n > count / 2); /* walls and killed ids removed some, not most */
  /* far moves (several periods) and sorting */
  move(a, b, 200.0, 77, false);
  BFT_OK(bf_pc_redistribute(a, 0, -1, 0, 0, true));
  BFT_OK(bf_pc_redistribute(b, 0, -1, 0, 0, true));
  compare(a, b, what);
  BFT_OK(bf_pc_sort_by_cell(a));
  BFT_OK(bf_pc_sort_by_cell(b));
  compare(a, b, what);
  int64_t ca = 0, cb = 0;
  BFT_OK(bf_pc_total_num_particles(a, true, false, &ca));
  BFT_OK(bf_pc_total_num_particles(b, true, false, &cb));
  BFT_CHECK(ca == cb);
  BFT_OK(bf_pc_clear(a));
  BFT_OK(bf_pc_clear(b));
  BFT_OK(bf_pc_total_num_particles(b, false, false, &cb));
  BFT_CHECK(cb == 0);
  bf_pc_destroy(&a);
  bf_pc_destroy(&b);
}

static void test_pure_soa(void) {
  for (int dim = 1; dim <= 3; ++dim) {
    bf_playout lay = {dim, true, 0, 0, dim + 2, 1};
    run_case(&lay, dim == 3 ? 16 : 8, false, dim == 3 ? 200000 : 20000);
    run_case(&lay, 32, true, 20000);
  }
}

static void test_legacy(void) {
  bf_playout lay = {3, false, 2, 1, 3, 1};
  run_case(&lay, 16, false, 100000);
  bf_playout lay2 = {2, false, 16, 4, 0, 0};
  run_case(&lay2, 8, true, 20000);
}

int main(int argc, char **argv) {
  bool cpu = argc > 1 && strcmp(argv[1], "--cpu") == 0;
  uint64_t rid;
  bf_runtime_initialize(0, NULL, &rid);
  if (!cpu && !bf_gpu_available()) {
    printf("no GPU used (BOXFAB_DEVICE=cpu, no device or no CUDA build): skipped (--cpu checks the harness)\n");
    bf_runtime_finalize();
    return 77;
  }
  dev_arena = bf_arena_get(cpu ? BF_ARENA_PINNED : BF_ARENA_DEFAULT);
  BFT_RUN(test_pure_soa);
  BFT_RUN(test_legacy);
  bf_runtime_finalize();
  return bft_report();
}
