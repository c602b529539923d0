/* MultiFab kernels in C, best of N repetitions (other processes may share the
 * machine: the best time is the one least disturbed by them):
 *   set_val, saxpy, lin_comb, sum, norm2 on a 256^3 double MultiFab of 64^3
 *   boxes (no ghost cells), against a plain memcpy of one MultiFab's bytes
 *   (the bandwidth baseline), and fill_boundary of 2 ghost layers, one
 *   component, on a periodic 128^3 domain of 32^3 boxes, as an absolute time
 *   and as a fraction of one full copy of that MultiFab (bf_multifab_copy of
 *   every cell, ghosts included).  With 1 and 2 OpenMP threads (or the thread
 *   counts given as arguments).
 *   ./build/dev/bench_multifab [nthreads ...]   (BENCH_REPS=N sets N, default 20) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "boxfab/boxfab.h"
#include "boxfab_config.h"
#if BOXFAB_HAVE_OPENMP
#include <omp.h>
#endif

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int reps = 20;

/* var = best time of `reps` runs of expr (an int status, nonzero = error) */
#define BEST(var, expr)                                                                                     \
  do {                                                                                                      \
    var = 1e30;                                                                                             \
    for (int r_ = 0; r_ < reps; ++r_) {                                                                     \
      double t0_ = now();                                                                                   \
      if (expr) {                                                                                           \
        fprintf(stderr, "error: %s\n", bf_error_message());                                                \
        exit(1);                                                                                            \
      }                                                                                                     \
      double dt_ = now() - t0_;                                                                             \
      var = dt_ < var ? dt_ : var;                                                                          \
    }                                                                                                       \
  } while (0)

static bf_multifab *make(int n, int bs, int ng, int ncomp) {
  bf_box dom;
  bf_box_define(3, (int[3]){0, 0, 0}, (int[3]){n - 1, n - 1, n - 1}, 0, &dom);
  bf_boxarray *ba = NULL;
  bf_distmap *dm = NULL;
  bf_multifab *mf = NULL;
  if (bf_boxarray_create_box(&dom, &ba) || bf_boxarray_max_size(&ba, (int[3]){bs, bs, bs})) exit(1);
  int64_t nb = bf_boxarray_size(ba);
  int *p = calloc((size_t)nb, sizeof *p);
  if (bf_distmap_create_from_pmap(nb, p, &dm)) exit(1);
  free(p);
  bf_intvect g = bf_intvect_splat(3, ng);
  if (bf_multifab_create(ba, dm, ncomp, g, BF_DTYPE_DOUBLE, NULL, true, &mf)) {
    fprintf(stderr, "error: %s\n", bf_error_message());
    exit(1);
  }
  bf_boxarray_destroy(&ba);
  bf_distmap_destroy(&dm);
  return mf;
}

static size_t mf_bytes(const bf_multifab *mf) {
  bf_buffer *b;
  bf_multifab_buffer(mf, &b);
  return bf_buffer_nbytes(b);
}

static void *mf_data(const bf_multifab *mf) {
  bf_buffer *b;
  bf_multifab_buffer(mf, &b);
  return bf_buffer_data(b);
}

static int memcpy_ok(void *d, const void *s, size_t n) {
  memcpy(d, s, n);
  return 0;
}

static void run(int nthreads) {
#if BOXFAB_HAVE_OPENMP
  omp_set_num_threads(nthreads);
#endif
  printf("\n== %d thread(s), best of %d ==\n", nthreads, reps);
  bf_intvect z = bf_intvect_splat(3, 0);
  bf_multifab *x = make(256, 64, 0, 1), *y = make(256, 64, 0, 1), *w = make(256, 64, 0, 1);
  size_t nb = mf_bytes(x);
  void *src = mf_data(x), *dst = mf_data(y);
  (void)bf_multifab_set_val_all(x, 1.0), (void)bf_multifab_set_val_all(y, 2.0), (void)bf_multifab_set_val_all(w, 3.0);
  double r = 0;
  double t_memcpy;
  BEST(t_memcpy, memcpy_ok(dst, src, nb));
  double t_copy;
  BEST(t_copy, bf_multifab_copy(y, x, 0, 0, 1, z));
  double t_set;
  BEST(t_set, bf_multifab_set_val_all(x, 1.5));
  double t_saxpy;
  BEST(t_saxpy, bf_multifab_saxpy(y, 1e-3, x, 0, 0, 1, z));
  double t_lin;
  BEST(t_lin, bf_multifab_lin_comb(w, 0.5, x, 0, 0.25, y, 0, 0, 1, z));
  double t_sum;
  BEST(t_sum, bf_multifab_sum(x, NULL, 0, false, &r));
  double t_norm2;
  BEST(t_norm2, bf_multifab_norm2(x, 0, NULL, &r));
  double gb = (double)nb / 1e9;
  printf("256^3 doubles, 64^3 boxes (%.0f MB per MultiFab)\n", (double)nb / 1e6);
  printf("  %-14s %9s %9s %10s\n", "op", "ms", "GB/s", "x memcpy");
  /* bytes moved: memcpy/copy 2 arrays, set_val 1, saxpy 3 (2 read, 1 write), lin_comb 3, sum/norm2 1 */
  struct {
    const char *name;
    double t, arrays;
  } rows[] = {{"memcpy", t_memcpy, 2}, {"copy", t_copy, 2},  {"set_val", t_set, 1}, {"saxpy", t_saxpy, 3},
              {"lin_comb", t_lin, 3},  {"sum", t_sum, 1},    {"norm2", t_norm2, 1}};
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; ++i)
    printf("  %-14s %9.3f %9.2f %10.2f\n", rows[i].name, rows[i].t * 1e3, rows[i].arrays * gb / rows[i].t,
           rows[i].t / t_memcpy);
  bf_multifab_destroy(&x), bf_multifab_destroy(&y), bf_multifab_destroy(&w);

  bf_multifab *a = make(128, 32, 2, 1), *b = make(128, 32, 2, 1);
  bf_periodicity per;
  bf_periodicity_define(3, (int[3]){128, 128, 128}, &per);
  (void)bf_multifab_set_val_all(a, 1.0), (void)bf_multifab_set_val_all(b, 2.0);
  bf_intvect g2 = bf_intvect_splat(3, 2);
  double t_fb_first = now();
  (void)bf_multifab_fill_boundary(a, 0, 1, g2, &per, false); /* builds the plan */
  t_fb_first = now() - t_fb_first;
  double t_fb;
  BEST(t_fb, bf_multifab_fill_boundary(a, 0, 1, g2, &per, false));
  double t_fcopy;
  BEST(t_fcopy, bf_multifab_copy(b, a, 0, 0, 1, g2));
  double t_fmem;
  BEST(t_fmem, memcpy_ok(mf_data(b), mf_data(a), mf_bytes(a)));
  bf_multifab *c = make(128, 64, 2, 1); /* parallel_copy onto another layout */
  (void)bf_multifab_parallel_copy(c, a, 0, 0, 1, z, z, NULL);
  double t_pc;
  BEST(t_pc, bf_multifab_parallel_copy(c, a, 0, 0, 1, z, z, NULL));
  double t_sb;
  BEST(t_sb, bf_multifab_sum_boundary(a, 0, 1, g2, z, &per));
  printf("128^3, 32^3 boxes, 2 ghosts, periodic, 1 comp (%.1f MB)\n", (double)mf_bytes(a) / 1e6);
  printf("  fill_boundary   %8.3f ms  = %.3f of a full copy (copy %.3f ms, memcpy %.3f ms); first call %.3f ms\n",
         t_fb * 1e3, t_fb / t_fcopy, t_fcopy * 1e3, t_fmem * 1e3, t_fb_first * 1e3);
  printf("  sum_boundary    %8.3f ms  = %.3f of a full copy\n", t_sb * 1e3, t_sb / t_fcopy);
  printf("  parallel_copy   %8.3f ms  (valid cells to 64^3 boxes) = %.3f of a full copy\n", t_pc * 1e3,
         t_pc / t_fcopy);
  bf_multifab_destroy(&a), bf_multifab_destroy(&b), bf_multifab_destroy(&c);
}

int main(int argc, char **argv) {
  if (getenv("BENCH_REPS")) reps = atoi(getenv("BENCH_REPS")) > 0 ? atoi(getenv("BENCH_REPS")) : 20;
  uint64_t id;
  if (bf_runtime_initialize(0, NULL, &id)) return 1;
  if (argc > 1)
    for (int i = 1; i < argc; ++i) run(atoi(argv[i]));
  else
    run(1), run(2);
  bf_runtime_finalize();
  return 0;
}
