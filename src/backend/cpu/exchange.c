/* CPU backend: the ghost exchange's block copies (bf_xtask).  Blocks are
 * mostly short rows (2 ghost cells wide faces) or long contiguous runs, so
 * the row loop is specialised for the small widths (the compiler unrolls a
 * constant-length row) and long rows go to memcpy.  Threads share the groups
 * (one destination fab each: disjoint writes, fabs 64-byte aligned, so no
 * false sharing) or the independent tasks. */
#include <string.h>

#include "runtime/backend.h"
#include "boxfab_config.h"
#if BOXFAB_HAVE_OPENMP
#include <omp.h>
#endif

#if defined(__GNUC__)
#define BF_INLINE static inline __attribute__((always_inline))
#else
#define BF_INLINE static inline
#endif
/* Short rows stay inline loops: gcc would turn them into memmove calls,
 * which cost more than the copy of a few dozen elements. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-loop-distribute-patterns")
#endif

/* rows at least this long are copied with memcpy (shorter ones: an inline loop, cheaper than the call) */
#define XMEMCPY_MIN 64

#define BLOCK(NAME, T, STMT)                                                                                 \
  BF_INLINE void NAME##_body(T *restrict d, const T *restrict s, int64_t nx, int64_t ny, int64_t nz,        \
                             int64_t djs, int64_t dks, int64_t sjs, int64_t sks, T s0) {                    \
    (void)s0;                                                                                                \
    for (int64_t k = 0; k < nz; ++k)                                                                         \
      for (int64_t j = 0; j < ny; ++j) {                                                                     \
        T *restrict a = d + j * djs + k * dks;                                                               \
        const T *restrict b = s + j * sjs + k * sks;                                                         \
        (void)b;                                                                                             \
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

/* A copy and its mirror (same shape), row by row interleaved: the rows of
 * one read the lines the other writes. */
#define PAIR(NAME, T)                                                                                        \
  BF_INLINE void NAME##_body(T *restrict d1, const T *restrict s1, T *restrict d2, const T *restrict s2,      \
                             const bf_xtask *t1, const bf_xtask *t2, int64_t nx) {                           \
    for (int64_t k = 0; k < t1->nz; ++k)                                                                     \
      for (int64_t j = 0; j < t1->ny; ++j) {                                                                 \
        T *restrict a1 = d1 + j * t1->djs + k * t1->dks, *restrict a2 = d2 + j * t2->djs + k * t2->dks;      \
        const T *restrict b1 = s1 + j * t1->sjs + k * t1->sks, *restrict b2 = s2 + j * t2->sjs + k * t2->sks; \
        if (nx >= XMEMCPY_MIN) {                                                                             \
          memcpy(a1, b1, (size_t)nx * sizeof(T));                                                            \
          memcpy(a2, b2, (size_t)nx * sizeof(T));                                                            \
        } else {                                                                                             \
          for (int64_t i = 0; i < nx; ++i) a1[i] = b1[i];                                                    \
          for (int64_t i = 0; i < nx; ++i) a2[i] = b2[i];                                                    \
        }                                                                                                    \
      }                                                                                                      \
  }                                                                                                          \
  static void NAME(T *d1, const T *s1, T *d2, const T *s2, const bf_xtask *t1, const bf_xtask *t2) {         \
    switch (t1->nx) {                                                                                        \
    case 1: NAME##_body(d1, s1, d2, s2, t1, t2, 1); break;                                                   \
    case 2: NAME##_body(d1, s1, d2, s2, t1, t2, 2); break;                                                   \
    case 4: NAME##_body(d1, s1, d2, s2, t1, t2, 4); break;                                                   \
    default: NAME##_body(d1, s1, d2, s2, t1, t2, t1->nx); break;                                             \
    }                                                                                                        \
  }
PAIR(pair_d, double)
PAIR(pair_i, int)

static void run_pair(const bf_xargs *g, const bf_xtask *t1, const bf_xtask *t2) {
  if (g->op != BF_KOP_COPY || t1->nx != t2->nx || t1->ny != t2->ny || t1->nz != t2->nz) {
    run_task(g, t1), run_task(g, t2);
    return;
  }
  size_t es = g->type == BF_KTYPE_DOUBLE ? sizeof(double) : sizeof(int);
  for (int n = 0; n < g->ncomp; ++n) {
    char *d1 = g->dbase + g->doffs[t1->dfab] + (size_t)(t1->doff + (int64_t)(g->dcomp + n) * t1->dns) * es;
    char *d2 = g->dbase + g->doffs[t2->dfab] + (size_t)(t2->doff + (int64_t)(g->dcomp + n) * t2->dns) * es;
    const char *s1 = g->sbase + g->soffs[t1->sfab] + (size_t)(t1->soff + (int64_t)(g->scomp + n) * t1->sns) * es;
    const char *s2 = g->sbase + g->soffs[t2->sfab] + (size_t)(t2->soff + (int64_t)(g->scomp + n) * t2->sns) * es;
    if (g->type == BF_KTYPE_DOUBLE)
      pair_d((double *)d1, (const double *)s1, (double *)d2, (const double *)s2, t1, t2);
    else
      pair_i((int *)d1, (const int *)s1, (int *)d2, (const int *)s2, t1, t2);
  }
}

static void run_units(const bf_xargs *g, const bf_xlist *l, int64_t u0, int64_t u1) {
  for (int64_t u = u0; u < u1; ++u) {
    int64_t a = l->ustart[u], b = l->ustart[u + 1];
    if (l->pairs && b - a == 2) run_pair(g, &l->tasks[a], &l->tasks[a + 1]);
    else
      for (int64_t t = a; t < b; ++t) run_task(g, &l->tasks[t]);
  }
}

/* First unit u with uprefix[u] >= v. */
static int64_t unit_at(const bf_xlist *l, int64_t v) {
  int64_t lo = 0, hi = l->nunits;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (l->uprefix[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Below this many points (times components) one thread does it all: a
 * parallel region costs a few microseconds. */
#define XPAR_MIN_POINTS 32768

int bf_cpu_exchange(const bf_xargs *args, const bf_xlist *l) {
  int64_t total = l->uprefix[l->nunits];
#if BOXFAB_HAVE_OPENMP
  bool par = total * args->ncomp >= XPAR_MIN_POINTS && l->nunits > 1;
  /* each thread a contiguous run of units with about its share of the points:
   * neighbouring fabs (which share cache lines) stay on one thread */
#pragma omp parallel if (par)
  {
    int64_t nt = omp_get_num_threads(), me = omp_get_thread_num();
    int64_t u0 = me == 0 ? 0 : unit_at(l, (int64_t)((double)total * (double)me / (double)nt));
    int64_t u1 = me == nt - 1 ? l->nunits : unit_at(l, (int64_t)((double)total * (double)(me + 1) / (double)nt));
    run_units(args, l, u0, u1);
  }
#else
  (void)total;
  run_units(args, l, 0, l->nunits);
#endif
  return 0;
}
