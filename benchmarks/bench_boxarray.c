/* BoxArray query sweep in C: every box of a chopped 3D domain queries its
 * box grown by one cell, through the cached hash, against a brute-force loop
 * over all boxes (only for the small sizes: it is quadratic).
 *   ./build/dev/bench_boxarray            (sizes 1e4, 1e5, 1e6) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "boxfab/boxfab.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  long sizes[3] = {10000, 100000, 1000000};
  int nsizes = argc > 1 ? argc - 1 : 3;
  if (argc > 1)
    for (int i = 0; i < nsizes && i < 3; ++i)
      sizes[i] = atol(argv[i + 1]);
  printf("%9s %10s %10s %12s %12s %14s %14s\n", "boxes", "max_size", "hash", "sweep", "sweep/box", "brute sweep",
         "brute/box");
  for (int s = 0; s < nsizes && s < 3; ++s) {
    int k = 1;
    while ((long)(k + 1) * (k + 1) * (k + 1) <= sizes[s])
      ++k;
    int lo[3] = {0, 0, 0}, hi[3] = {8 * k - 1, 8 * k - 1, 8 * k - 1};
    bf_box dom;
    bf_boxarray *ba = NULL;
    bf_box_define(3, lo, hi, 0, &dom);
    double t0 = now();
    if (bf_boxarray_create_box(&dom, &ba) || bf_boxarray_max_size(&ba, (int[3]){8, 8, 8})) return 1;
    double t_max = now() - t0;
    int64_t n = bf_boxarray_size(ba);
    const bf_box *b = bf_boxarray_data(ba);
    bf_isect_list l = {0};
    bf_box g = b[0];
    bf_box_grow(&g, (int[3]){1, 1, 1});
    t0 = now();
    bf_boxarray_intersections(ba, &g, false, &l); /* builds the hash */
    double t_hash = now() - t0;
    int64_t hits = 0;
    t0 = now();
    for (int64_t i = 0; i < n; ++i) {
      g = b[i];
      bf_box_grow(&g, (int[3]){1, 1, 1});
      bf_boxarray_intersections(ba, &g, false, &l);
      hits += l.count;
    }
    double t_sweep = now() - t0;
    double t_brute = -1;
    if (n <= 20000) {
      int64_t bh = 0;
      t0 = now();
      for (int64_t i = 0; i < n; ++i) {
        g = b[i];
        bf_box_grow(&g, (int[3]){1, 1, 1});
        for (int64_t j = 0; j < n; ++j)
          bh += bf_box_intersects(&b[j], &g);
      }
      t_brute = now() - t0;
      if (bh != hits) return 2;
    }
    if (hits != (int64_t)(3 * k - 2) * (3 * k - 2) * (3 * k - 2)) return 3;
    printf("%9lld %8.2fms %8.2fms %10.3fms %10.3fus", (long long)n, t_max * 1e3, t_hash * 1e3, t_sweep * 1e3,
           t_sweep / (double)n * 1e6);
    if (t_brute >= 0)
      printf(" %12.3fms %12.3fus\n", t_brute * 1e3, t_brute / (double)n * 1e6);
    else
      printf(" %14s %14s\n", "-", "-");
    bf_isect_list_free(&l);
    bf_boxarray_destroy(&ba);
  }
  return 0;
}
