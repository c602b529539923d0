/* CPU backend: reductions.  Deterministic: tasks are cut into row chunks by a
 * rule that does not depend on the number of threads, each chunk reduces its
 * rows in order into a partial, and the partials are combined in chunk
 * order.  Sums use eight interleaved accumulators (vectorizable, fixed order).
 * Rows contiguous in memory are fused first (by a rule that depends on the
 * layout only, so the partition stays independent of the thread count). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/backend.h"
#include "boxfab_config.h"
#include "work.h"

/* ---- double rows ---------------------------------------------------------- */

/* Software prefetch this many bytes ahead of the loads (one per cache line
 * of 8 doubles): one core alone keeps too few line reads in flight to reach
 * the memory bandwidth.  The address is formed as an integer: it may lie
 * past the row, and prefetching it is harmless. */
#define CPU_PF_BYTES 8192
#if defined(__GNUC__)
#define PF(p, i) __builtin_prefetch((const void *)((uintptr_t)(p) + (uintptr_t)(i) * sizeof *(p) + CPU_PF_BYTES))
#else
#define PF(p, i) ((void)0)
#endif

#define ACC8(PFX, EXPR)                                                                                     \
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};                                                                 \
  int64_t i = 0;                                                                                            \
  for (; i + 8 <= nx; i += 8) {                                                                             \
    PFX;                                                                                                    \
    for (int l = 0; l < 8; ++l) {                                                                           \
      int64_t ii = i + l;                                                                                   \
      acc[l] += (EXPR);                                                                                     \
    }                                                                                                       \
  }                                                                                                         \
  for (int l = 0; i < nx; ++i, ++l) {                                                                       \
    int64_t ii = i;                                                                                         \
    acc[l] += (EXPR);                                                                                       \
  }                                                                                                         \
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));

/* The unmasked sums: the same eight lanes (lane l adds the elements l mod 8
 * of the row) and the same final combination as ACC8, so the same bits;
 * written with SSE2 vectors where available, since gcc does not vectorize a
 * loop that holds a prefetch. */
#if defined(__SSE2__)
#include <emmintrin.h>
#define VACC8(PFX, LOADEXPR, EXPR)                                                                          \
  __m128d v0 = _mm_setzero_pd(), v1 = v0, v2 = v0, v3 = v0;                                                 \
  int64_t i = 0;                                                                                            \
  for (; i + 8 <= nx; i += 8) {                                                                             \
    PFX;                                                                                                    \
    v0 = _mm_add_pd(v0, LOADEXPR(0)), v1 = _mm_add_pd(v1, LOADEXPR(2));                                     \
    v2 = _mm_add_pd(v2, LOADEXPR(4)), v3 = _mm_add_pd(v3, LOADEXPR(6));                                     \
  }                                                                                                         \
  double acc[8];                                                                                            \
  _mm_storeu_pd(acc, v0), _mm_storeu_pd(acc + 2, v1), _mm_storeu_pd(acc + 4, v2), _mm_storeu_pd(acc + 6, v3); \
  for (int l = 0; i < nx; ++i, ++l) {                                                                       \
    int64_t ii = i;                                                                                         \
    acc[l] += (EXPR);                                                                                       \
  }                                                                                                         \
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
#define LD(o) _mm_loadu_pd(p + i + (o))
#define LDABS(o) _mm_andnot_pd(_mm_set1_pd(-0.0), _mm_loadu_pd(p + i + (o)))
#define LDSQ(o) _mm_mul_pd(_mm_loadu_pd(p + i + (o)), _mm_loadu_pd(p + i + (o)))
#define LDDOT(o) _mm_mul_pd(_mm_loadu_pd(p + i + (o)), _mm_loadu_pd(q + i + (o)))
static double dsum(int64_t nx, const double *restrict p) { VACC8(PF(p, i), LD, p[ii]) }
static double dabssum(int64_t nx, const double *restrict p) { VACC8(PF(p, i), LDABS, fabs(p[ii])) }
static double dsumsq(int64_t nx, const double *restrict p) { VACC8(PF(p, i), LDSQ, p[ii] * p[ii]) }
static double ddot(int64_t nx, const double *restrict p, const double *restrict q) {
  VACC8((PF(p, i), PF(q, i)), LDDOT, p[ii] * q[ii])
}
#else
static double dsum(int64_t nx, const double *restrict p) { ACC8(PF(p, i), p[ii]) }
static double dabssum(int64_t nx, const double *restrict p) { ACC8(PF(p, i), fabs(p[ii])) }
static double dsumsq(int64_t nx, const double *restrict p) { ACC8(PF(p, i), p[ii] * p[ii]) }
static double ddot(int64_t nx, const double *restrict p, const double *restrict q) {
  ACC8((PF(p, i), PF(q, i)), p[ii] * q[ii])
}
#endif
static double dsum_m(int64_t nx, const double *restrict p, const uint8_t *restrict m) {
  ACC8(PF(p, i), m[ii] ? p[ii] : 0.0)
}
static double dabssum_m(int64_t nx, const double *restrict p, const uint8_t *restrict m) {
  ACC8(PF(p, i), m[ii] ? fabs(p[ii]) : 0.0)
}
static double dsumsq_m(int64_t nx, const double *restrict p, const uint8_t *restrict m) {
  ACC8(PF(p, i), m[ii] ? p[ii] * p[ii] : 0.0)
}
static double ddot_m(int64_t nx, const double *restrict p, const double *restrict q, const uint8_t *restrict m) {
  ACC8((PF(p, i), PF(q, i)), m[ii] ? p[ii] * q[ii] : 0.0)
}

/* ---- one chunk ------------------------------------------------------------ */

static double elem_d(const void *p, int64_t i) { return ((const double *)p)[i]; }
static double elem_i(const void *p, int64_t i) { return (double)((const int *)p)[i]; }

static void reduce_rows(const bf_kargs *g, const bf_ktask *t, int64_t r0, int64_t r1, bf_kresult *res) {
  bool dbl = g->type == BF_KTYPE_DOUBLE;
  size_t es = dbl ? sizeof(double) : sizeof(int);
  int64_t nx = cpu_task_nx(t), ny = (int64_t)t->hi[1] - t->lo[1] + 1;
  int i0 = t->lo[0];
  double (*elem)(const void *, int64_t) = dbl ? elem_d : elem_i;
  int n = 0, k = 0, j = 0;
  if (r1 > r0) cpu_row(t, r0, &n, &k, &j);
  for (int64_t r = r0; r < r1; ++r, (++j > t->hi[1] ? (j = t->lo[1], (++k > t->hi[2] ? (k = t->lo[2], ++n) : 0)) : 0)) {
    const void *a = cpu_addr(&t->a, i0, j, k, g->acomp + n, es);
    const void *b = g->op == BF_ROP_DOT
                        ? cpu_addr(&t->b, i0 - t->shift[0], j - t->shift[1], k - t->shift[2], g->bcomp + n, es)
                        : NULL;
    const uint8_t *m = t->mask ? t->mask + (((int64_t)k - t->lo[2]) * ny + ((int64_t)j - t->lo[1])) * nx : NULL;
    switch (g->op) {
    case BF_ROP_SUM:
    case BF_ROP_ABSSUM:
    case BF_ROP_SUMSQ:
    case BF_ROP_DOT:
      if (dbl) {
        const double *p = a, *q = b;
        double s;
        if (g->op == BF_ROP_SUM) s = m ? dsum_m(nx, p, m) : dsum(nx, p);
        else if (g->op == BF_ROP_ABSSUM) s = m ? dabssum_m(nx, p, m) : dabssum(nx, p);
        else if (g->op == BF_ROP_SUMSQ) s = m ? dsumsq_m(nx, p, m) : dsumsq(nx, p);
        else s = m ? ddot_m(nx, p, q, m) : ddot(nx, p, q);
        res->value += s;
      } else {
        const int *p = a, *q = b;
        uint64_t s = 0; /* wraps instead of overflowing */
        for (int64_t i = 0; i < nx; ++i) {
          if (m && !m[i]) continue;
          int64_t v = p[i];
          if (g->op == BF_ROP_ABSSUM) v = v < 0 ? -v : v;
          else if (g->op == BF_ROP_SUMSQ) v = v * v;
          else if (g->op == BF_ROP_DOT) v = v * (int64_t)q[i];
          s += (uint64_t)v;
        }
        res->isum = (int64_t)((uint64_t)res->isum + s);
      }
      break;
    case BF_ROP_MIN:
    case BF_ROP_MAX: {
      bool mx = g->op == BF_ROP_MAX;
      for (int64_t i = 0; i < nx; ++i) {
        if (m && !m[i]) continue;
        double v = elem(a, i);
        if (!res->found || (mx ? v > res->value : v < res->value)) {
          res->found = true;
          res->value = v;
          res->index[0] = i0 + (int)i, res->index[1] = j, res->index[2] = k;
        }
      }
      break;
    }
    case BF_ROP_ABSMAX: {
      double best = res->value;
      for (int64_t i = 0; i < nx; ++i) {
        if (m && !m[i]) continue;
        double v = fabs(elem(a, i));
        best = v > best ? v : best;
      }
      res->value = best;
      res->found = true;
      break;
    }
    case BF_ROP_HASNAN:
    case BF_ROP_HASINF:
      if (dbl) {
        const double *p = a;
        int hit = 0;
        for (int64_t i = 0; i < nx; ++i)
          hit |= (g->op == BF_ROP_HASNAN ? isnan(p[i]) : isinf(p[i])) && (!m || m[i]);
        if (hit) res->found = true;
      }
      break;
    default: break;
    }
  }
}

static void combine(int op, bf_kresult *out, const bf_kresult *p) {
  switch (op) {
  case BF_ROP_MIN:
  case BF_ROP_MAX:
    if (p->found && (!out->found || (op == BF_ROP_MAX ? p->value > out->value : p->value < out->value))) *out = *p;
    break;
  case BF_ROP_ABSMAX:
    if (p->found) {
      if (!out->found || p->value > out->value) out->value = p->value;
      out->found = true;
    }
    break;
  case BF_ROP_HASNAN:
  case BF_ROP_HASINF: out->found = out->found || p->found; break;
  default:
    out->value += p->value;
    out->isum = (int64_t)((uint64_t)out->isum + (uint64_t)p->isum);
    break;
  }
}

int bf_cpu_reduce(const bf_kargs *args, int64_t ntasks, const bf_ktask *tasks, bf_kresult *out) {
  memset(out, 0, sizeof *out);
  /* fuse contiguous rows (on a copy), except where a position is reported */
  bf_ktask *ft = malloc((size_t)(ntasks > 0 ? ntasks : 1) * sizeof *ft);
  if (!ft) return 1;
  memcpy(ft, tasks, (size_t)ntasks * sizeof *ft);
  if (args->op != BF_ROP_MIN && args->op != BF_ROP_MAX)
    for (int64_t t = 0; t < ntasks; ++t) cpu_fuse_rows(&ft[t], args->op == BF_ROP_DOT, false);
  tasks = ft;
  int64_t nchunks, elems;
  cpu_chunk *ch = cpu_make_chunks(ntasks, tasks, args->ncomp, &nchunks, &elems);
  bf_kresult *part = ch ? calloc((size_t)(nchunks > 0 ? nchunks : 1), sizeof *part) : NULL;
  if (!part) {
    free(ch), free(ft);
    return 1;
  }
  (void)elems;
#if BOXFAB_HAVE_OPENMP
#pragma omp parallel for schedule(static) if (nchunks > 1 && elems > CPU_CHUNK_ELEMS)
#endif
  for (int64_t c = 0; c < nchunks; ++c) reduce_rows(args, &tasks[ch[c].t], ch[c].r0, ch[c].r1, &part[c]);
  for (int64_t c = 0; c < nchunks; ++c) combine(args->op, out, &part[c]);
  if (args->type == BF_KTYPE_INT &&
      (args->op == BF_ROP_SUM || args->op == BF_ROP_ABSSUM || args->op == BF_ROP_SUMSQ || args->op == BF_ROP_DOT))
    out->value = (double)out->isum;
  free(part);
  free(ch);
  free(ft);
  return 0;
}
