/* Particle container in C: init_random of N pureSoA_8_0 particles in 64
 * boxes (128^3 cells in boxes of 32, periodic), then redistribute after
 * moving every particle by up to one cell.  Best of `reps` runs.
 *   ./build/dev/bench_particles [N] [reps] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "boxfab/boxfab.h"
#include "boxfab/particles.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
/* CPU time of the process (all threads): on a loaded machine, wall time / threads is not the work */
static double cpu(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000000;
  int reps = argc > 2 ? atoi(argv[2]) : 5;
  uint64_t id;
  bf_runtime_initialize(0, NULL, &id);
  bf_box dom = {3, {0, 0, 0}, {127, 127, 127}, 0};
  double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  bf_realbox rb;
  bf_realbox_define(3, lo, hi, &rb);
  int per[3] = {1, 1, 1};
  bf_geometry g;
  bf_geometry_define(&dom, &rb, 0, per, &g);
  bf_boxarray *ba = NULL;
  bf_boxarray_create_box(&dom, &ba);
  int ms[3] = {32, 32, 32};
  bf_boxarray_max_size(&ba, ms);
  int *pmap = calloc((size_t)bf_boxarray_size(ba), sizeof *pmap);
  bf_distmap *dm = NULL;
  bf_distmap_create_from_pmap(bf_boxarray_size(ba), pmap, &dm);
  bf_playout lay = {3, true, 0, 0, 8, 0};
  double best_init = 1e9, best_redist = 1e9, cpu_init = 1e9, cpu_redist = 1e9;
  for (int r = 0; r < reps; ++r) {
    bf_pc *pc = NULL;
    bf_pc_create(&lay, NULL, &pc);
    bf_pc_define(pc, 1, &g, &ba, &dm, NULL);
    double c0 = cpu(), t0 = now();
    if (bf_pc_init_random(pc, n, 1, NULL, false, NULL)) printf("error: %s\n", bf_error_message());
    double t1 = now(), c1 = cpu();
    /* move by up to one cell */
    bf_pc_tileref refs[64];
    int64_t nt = 0;
    bf_pc_tiles(pc, 0, true, refs, 64, &nt);
    uint64_t s = 12345;
    for (int64_t k = 0; k < nt; ++k)
      for (int d = 0; d < 3; ++d) {
        double *x = bf_podvec_data(bf_ptile_real(refs[k].ptile, d));
        for (int64_t i = 0; i < bf_ptile_size(refs[k].ptile); ++i) {
          s = s * 6364136223846793005ull + 1442695040888963407ull;
          x[i] += ((double)(s >> 11) * (1.0 / 9007199254740992.0) * 2 - 1) / 128.0;
        }
      }
    double c2 = cpu(), t2 = now();
    if (bf_pc_redistribute(pc, 0, -1, 0, 0, true)) printf("error: %s\n", bf_error_message());
    double t3 = now(), c3 = cpu();
    if (c1 - c0 < cpu_init) cpu_init = c1 - c0;
    if (c3 - c2 < cpu_redist) cpu_redist = c3 - c2;
    int64_t tot = 0;
    bf_pc_total_num_particles(pc, true, false, &tot);
    if (tot != n) printf("lost particles: %lld\n", (long long)tot);
    if (t1 - t0 < best_init) best_init = t1 - t0;
    if (t3 - t2 < best_redist) best_redist = t3 - t2;
    bf_pc_destroy(&pc);
  }
  printf("N=%ld: init_random %.2f ms, redistribute after a move of <= 1 cell %.2f ms (best of %d; CPU time of "
         "all threads %.2f / %.2f ms)\n",
         n, best_init * 1e3, best_redist * 1e3, reps, cpu_init * 1e3, cpu_redist * 1e3);
  bf_distmap_destroy(&dm);
  bf_boxarray_destroy(&ba);
  free(pmap);
  bf_runtime_finalize();
  return 0;
}
