/* CPU backend: the ghost exchange's block copies (bf_xtask).  Blocks are
 * mostly short rows (2 ghost cells wide faces) or long contiguous runs, so
 * the row loop is specialised for the small widths (the compiler unrolls a
 * constant-length row) and long rows go to memcpy.  Threads share the groups
 * (one destination fab each: disjoint writes, fabs 64-byte aligned, so no
 * false sharing) or the independent tasks. */
#include <string.h>

#include "backend.h"
#include "boxfab_config.h"

#if defined(__GNUC__)
#define BF_INLINE static inline __attribute__((always_inline))
#else
#define BF_INLINE static inline
#endif

/* Short rows (the x faces) each touch their own cache lines: prefetch the
 * rows XPF_ROWS ahead so that more lines are on their way at once. */
#if defined(__GNUC__)
#define XPREFETCH 1
#else
#define XPREFETCH 0
#define __builtin_prefetch(...) ((void)0)
#endif
#define XPF_ROWS 8

/* rows at least this long are copied with memcpy */
#define XMEMCPY_MIN 16

#define BLOCK(NAME, T, STMT)                                                                                 \
  BF_INLINE void NAME##_body(T *restrict d, const T *restrict s, int64_t nx, int64_t ny, int64_t nz,        \
                             int64_t djs, int64_t dks, int64_t sjs, int64_t sks, T s0) {                    \
    (void)s0;                                                                                                \
    for (int64_t k = 0; k < nz; ++k)                                                                         \
      for (int64_t j = 0; j < ny; ++j) {                                                                     \
        T *restrict a = d + j * djs + k * dks;                                                               \
        const T *restrict b = s + j * sjs + k * sks;                                                         \
        (void)b;                                                                                             \
        if (XPREFETCH && nx <= 4 && j + XPF_ROWS < ny) {                                                     \
          __builtin_prefetch(b + XPF_ROWS * sjs);                                                            \
          __builtin_prefetch(a + XPF_ROWS * djs, 1);                                                         \
        }                                                                                                    \
        for (int64_t i = 0; i < nx; ++i) STMT;                                                               \
      }                                                                                                      \
  }                                                                                                          \
  static void NAME(T *restrict d, const T *restrict s, int64_t nx, int64_t ny, int64_t nz, int64_t djs,      \
                   int64_t dks, int64_t sjs, int64_t sks, T s0) {                                            \
    switch (nx) {                                                                                            \
    case 1: NAME##_body(d, s, 1, ny, nz, djs, dks, sjs, sks, s0); break;                                     \
    case 2: NAME##_body(d, s, 2, ny, nz, djs, dks, sjs, sks, s0); break;                                     \
    case 3: NAME##_body(d, s, 3, ny, nz, djs, dks, sjs, sks, s0); break;                                     \
    case 4: NAME##_body(d, s, 4, ny, nz, djs, dks, sjs, sks, s0); break;                                     \
    default: NAME##_body(d, s, nx, ny, nz, djs, dks, sjs, sks, s0); break;                                   \
    }                                                                                                        \
  }

BLOCK(copy_d, double, a[i] = b[i])
BLOCK(add_d, double, a[i] += b[i])
BLOCK(copy_i, int, a[i] = b[i])
BLOCK(add_i, int, a[i] = (int)((unsigned)a[i] + (unsigned)b[i]))

/* d += s0 over a block (no source). */
#define PLUS(NAME, T, STMT)                                                                                  \
  static void NAME(T *d, int64_t nx, int64_t ny, int64_t nz, int64_t djs, int64_t dks, T s0) {               \
    for (int64_t k = 0; k < nz; ++k)                                                                         \
      for (int64_t j = 0; j < ny; ++j) {                                                                     \
        T *restrict a = d + j * djs + k * dks;                                                               \
        for (int64_t i = 0; i < nx; ++i) STMT;                                                               \
      }                                                                                                      \
  }
PLUS(plus_d, double, a[i] += s0)
PLUS(plus_i, int, a[i] = (int)((unsigned)a[i] + (unsigned)s0))

/* Copy of long rows: memcpy per row. */
static void copy_rows(char *d, const char *s, int64_t nbytes, int64_t ny, int64_t nz, int64_t djs, int64_t dks,
                      int64_t sjs, int64_t sks) {
  for (int64_t k = 0; k < nz; ++k)
    for (int64_t j = 0; j < ny; ++j) memcpy(d + j * djs + k * dks, s + j * sjs + k * sks, (size_t)nbytes);
}

static void run_task(const bf_xargs *g, const bf_xtask *t) {
  char *dfab = g->dbase + g->doffs[t->dfab];
  const char *sfab = g->op == BF_KOP_PLUS_S ? NULL : g->sbase + g->soffs[t->sfab];
  for (int n = 0; n < g->ncomp; ++n) {
    int64_t de = t->doff + (int64_t)(g->dcomp + n) * t->dns;
    int64_t se = t->soff + (int64_t)(g->scomp + n) * t->sns;
    if (g->type == BF_KTYPE_DOUBLE) {
      double *d = (double *)dfab + de;
      const double *s = sfab ? (const double *)sfab + se : NULL;
      switch (g->op) {
      case BF_KOP_COPY:
        if (t->nx >= XMEMCPY_MIN)
          copy_rows((char *)d, (const char *)s, t->nx * (int64_t)sizeof(double), t->ny, t->nz,
                    t->djs * (int64_t)sizeof(double), t->dks * (int64_t)sizeof(double),
                    t->sjs * (int64_t)sizeof(double), t->sks * (int64_t)sizeof(double));
        else
          copy_d(d, s, t->nx, t->ny, t->nz, t->djs, t->dks, t->sjs, t->sks, 0);
        break;
      case BF_KOP_ADD: add_d(d, s, t->nx, t->ny, t->nz, t->djs, t->dks, t->sjs, t->sks, 0); break;
      case BF_KOP_PLUS_S: plus_d(d, t->nx, t->ny, t->nz, t->djs, t->dks, g->s0); break;
      default: break;
      }
    } else {
      int *d = (int *)dfab + de;
      const int *s = sfab ? (const int *)sfab + se : NULL;
      switch (g->op) {
      case BF_KOP_COPY:
        if (t->nx >= XMEMCPY_MIN)
          copy_rows((char *)d, (const char *)s, t->nx * (int64_t)sizeof(int), t->ny, t->nz,
                    t->djs * (int64_t)sizeof(int), t->dks * (int64_t)sizeof(int), t->sjs * (int64_t)sizeof(int),
                    t->sks * (int64_t)sizeof(int));
        else
          copy_i(d, s, t->nx, t->ny, t->nz, t->djs, t->dks, t->sjs, t->sks, 0);
        break;
      case BF_KOP_ADD: add_i(d, s, t->nx, t->ny, t->nz, t->djs, t->dks, t->sjs, t->sks, 0); break;
      case BF_KOP_PLUS_S: plus_i(d, t->nx, t->ny, t->nz, t->djs, t->dks, (int)g->s0); break;
      default: break;
      }
    }
  }
}

/* Below this many points (times components) one thread does it all: a
 * parallel region costs a few microseconds. */
#define XPAR_MIN_POINTS 32768

int bf_cpu_exchange(const bf_xargs *args, int64_t ntasks, const bf_xtask *tasks, int64_t ngroups,
                    const int64_t *group_start, int64_t points) {
  bool par = points * args->ncomp >= XPAR_MIN_POINTS;
  (void)par;
  if (group_start) {
#if BOXFAB_HAVE_OPENMP
#pragma omp parallel for schedule(dynamic, 1) if (par && ngroups > 1)
#endif
    for (int64_t gi = 0; gi < ngroups; ++gi)
      for (int64_t t = group_start[gi]; t < group_start[gi + 1]; ++t) run_task(args, &tasks[t]);
  } else {
#if BOXFAB_HAVE_OPENMP
#pragma omp parallel for schedule(dynamic, 16) if (par && ntasks > 1)
#endif
    for (int64_t t = 0; t < ntasks; ++t) run_task(args, &tasks[t]);
  }
  return 0;
}
