/* CPU backend: element-wise MultiFab kernels.  Rows that are contiguous in
 * every view are fused first (a fab without ghost cells, or an op over its
 * ghost cells too, is one long run per plane or per fab), the op is chosen
 * once per chunk of rows, and the inner loops run over x with unit stride and
 * restrict pointers, so the compiler vectorizes them (src/backend/cpu is
 * built with -O3 outside Debug builds: see CMakeLists.txt).  Large set_val,
 * copy and lin_comb runs use non-temporal stores where the target has them.  OpenMP threads
 * share the row chunks (or the groups). */
#include <stdlib.h>
#include <string.h>

#include "runtime/backend.h"
#include "boxfab_config.h"
#include "work.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#define CPU_HAVE_STREAM 1
#else
#define CPU_HAVE_STREAM 0
#endif

/* Integer arithmetic wraps (two's complement) instead of being undefined;
 * integer division by 0 gives 0. */
#define IADD(x, y) ((int)((unsigned)(x) + (unsigned)(y)))
#define ISUB(x, y) ((int)((unsigned)(x) - (unsigned)(y)))
#define IMUL(x, y) ((int)((unsigned)(x) * (unsigned)(y)))
#define INEG(x) ((int)(0u - (unsigned)(x)))
#define IABS(x) ((x) < 0 ? INEG(x) : (x))
#define IDIV(x, y) ((y) == 0 ? 0 : (y) == -1 ? INEG(x) : (x) / (y))

#define DADD(x, y) ((x) + (y))
#define DSUB(x, y) ((x) - (y))
#define DMUL(x, y) ((x) * (y))
#define DNEG(x) (-(x))
#define DABS(x) ((x) < 0 ? -(x) : (x))
#define DDIV(x, y) ((x) / (y))

/* A run of rows of one task: row pointers start at (lo[0], j, k, comp) of
 * each view and advance j, then k, then the component. */
typedef struct rowcur {
  int64_t nx, nrows;
  int j, k, n, jlo, jhi, klo, khi;
  char *a0;
  const char *b0, *c0;
  int64_t ajs, aks, ans, bjs, bks, bns, cjs, cks, cns; /* bytes */
} rowcur;

static void cur_init(rowcur *c, const bf_kargs *g, const bf_ktask *t, int64_t r0, int64_t r1, size_t es, bool ub,
                     bool uc) {
  memset(c, 0, sizeof *c);
  c->nx = cpu_task_nx(t), c->nrows = r1 - r0;
  cpu_row(t, r0, &c->n, &c->k, &c->j);
  c->jlo = t->lo[1], c->jhi = t->hi[1], c->klo = t->lo[2], c->khi = t->hi[2];
  int64_t e = (int64_t)es;
  c->a0 = cpu_addr(&t->a, t->lo[0], t->lo[1], t->lo[2], g->acomp, es);
  c->ajs = t->a.js * e, c->aks = t->a.ks * e, c->ans = t->a.ns * e;
  if (ub) {
    c->b0 = cpu_addr(&t->b, t->lo[0] - t->shift[0], t->lo[1] - t->shift[1], t->lo[2] - t->shift[2], g->bcomp, es);
    c->bjs = t->b.js * e, c->bks = t->b.ks * e, c->bns = t->b.ns * e;
  }
  if (uc) {
    c->c0 = cpu_addr(&t->c, t->lo[0] - t->shift[0], t->lo[1] - t->shift[1], t->lo[2] - t->shift[2], g->ccomp, es);
    c->cjs = t->c.js * e, c->cks = t->c.ks * e, c->cns = t->c.ns * e;
  }
}

static inline void cur_next(rowcur *c) {
  if (++c->j > c->jhi) {
    c->j = c->jlo;
    if (++c->k > c->khi) c->k = c->klo, ++c->n;
  }
}

#define ROW_A(c) ((c)->a0 + ((c)->j - (c)->jlo) * (c)->ajs + ((c)->k - (c)->klo) * (c)->aks + (c)->n * (c)->ans)
#define ROW_B(c) ((c)->b0 + ((c)->j - (c)->jlo) * (c)->bjs + ((c)->k - (c)->klo) * (c)->bks + (c)->n * (c)->bns)
#define ROW_C(c) ((c)->c0 + ((c)->j - (c)->jlo) * (c)->cjs + ((c)->k - (c)->klo) * (c)->cks + (c)->n * (c)->cns)

/* for every row of cursor c: a = row of view a, b and c likewise, then STMT over i */
#define EACH_ROW(T, c, STMT)                                                                                \
  for (int64_t r_ = 0; r_ < (c)->nrows; ++r_, cur_next(c)) {                                               \
    T *restrict a = (T *)ROW_A(c);                                                                         \
    const T *restrict b = (const T *)((c)->b0 ? ROW_B(c) : NULL);                                          \
    const T *restrict cc = (const T *)((c)->c0 ? ROW_C(c) : NULL);                                         \
    (void)b, (void)cc;                                                                                     \
    for (int64_t i = 0; i < nx; ++i) STMT;                                                                 \
  }

#define ROWS(T, ADD, SUB, MUL, NEG, ABS_, DIV)                                                             \
  static void rows_##T(int op, rowcur *c, T s0, T s1) {                                                    \
    int64_t nx = c->nx;                                                                                    \
    switch (op) {                                                                                          \
    case BF_KOP_SET: EACH_ROW(T, c, a[i] = s0) break;                                                      \
    case BF_KOP_PLUS_S: EACH_ROW(T, c, a[i] = ADD(a[i], s0)) break;                                        \
    case BF_KOP_MULT_S: EACH_ROW(T, c, a[i] = MUL(a[i], s0)) break;                                        \
    case BF_KOP_INVERT: EACH_ROW(T, c, a[i] = DIV(s0, a[i])) break;                                        \
    case BF_KOP_NEGATE: EACH_ROW(T, c, a[i] = NEG(a[i])) break;                                            \
    case BF_KOP_ABS: EACH_ROW(T, c, a[i] = ABS_(a[i])) break;                                              \
    case BF_KOP_COPY: EACH_ROW(T, c, a[i] = b[i]) break;                                                   \
    case BF_KOP_ADD: EACH_ROW(T, c, a[i] = ADD(a[i], b[i])) break;                                         \
    case BF_KOP_SUB: EACH_ROW(T, c, a[i] = SUB(a[i], b[i])) break;                                         \
    case BF_KOP_MUL: EACH_ROW(T, c, a[i] = MUL(a[i], b[i])) break;                                         \
    case BF_KOP_DIV: EACH_ROW(T, c, a[i] = DIV(a[i], b[i])) break;                                         \
    case BF_KOP_SAXPY: EACH_ROW(T, c, a[i] = ADD(a[i], MUL(s0, b[i]))) break;                              \
    case BF_KOP_XPAY: EACH_ROW(T, c, a[i] = ADD(b[i], MUL(s0, a[i]))) break;                               \
    case BF_KOP_LINCOMB: EACH_ROW(T, c, a[i] = ADD(MUL(s0, b[i]), MUL(s1, cc[i]))) break;                  \
    case BF_KOP_ADDPRODUCT: EACH_ROW(T, c, a[i] = ADD(a[i], MUL(b[i], cc[i]))) break;                      \
    default: break;                                                                                        \
    }                                                                                                      \
  }

ROWS(double, DADD, DSUB, DMUL, DNEG, DABS, DDIV)
ROWS(int, IADD, ISUB, IMUL, INEG, IABS, IDIV)

/* a and b may be the same fab here (swap of two regions), so no restrict. */
#define SWAPROWS(T)                                                                                        \
  static void swap_##T(rowcur *c) {                                                                        \
    for (int64_t r = 0; r < c->nrows; ++r, cur_next(c)) {                                                  \
      T *a = (T *)ROW_A(c), *b = (T *)ROW_B(c);                                                            \
      for (int64_t i = 0; i < c->nx; ++i) {                                                                \
        T t = a[i];                                                                                        \
        a[i] = b[i];                                                                                       \
        b[i] = t;                                                                                          \
      }                                                                                                    \
    }                                                                                                      \
  }
SWAPROWS(double)
SWAPROWS(int)

/* Rows of the ops that write `a` without reading it (set_val, copy,
 * lin_comb) with non-temporal stores: the data go to memory without being
 * read into the cache first, which saves a third of the traffic of a copy
 * and half of a fill.  For runs larger than the caches only.  Same
 * arithmetic as the plain loops (no contraction), so the same results. */
#if CPU_HAVE_STREAM
#define STREAM_ROWS(T, c, HEAD, BODY, W)                                                                   \
  for (int64_t r_ = 0; r_ < (c)->nrows; ++r_, cur_next(c)) {                                               \
    T *a = (T *)ROW_A(c);                                                                                  \
    const T *b = (const T *)((c)->b0 ? ROW_B(c) : NULL);                                                   \
    const T *cc = (const T *)((c)->c0 ? ROW_C(c) : NULL);                                                  \
    (void)b, (void)cc;                                                                                     \
    int64_t i = 0, nx = (c)->nx;                                                                           \
    for (; i < nx && ((uintptr_t)(a + i) & 15) != 0; ++i) HEAD;                                            \
    for (; i + (W) <= nx; i += (W)) BODY;                                                                  \
    for (; i < nx; ++i) HEAD;                                                                              \
  }                                                                                                        \
  _mm_sfence() /* this thread's streamed stores are visible before it goes on */

static void stream_double(int op, rowcur *c, double s0, double s1) {
  __m128d v0 = _mm_set1_pd(s0), v1 = _mm_set1_pd(s1);
  switch (op) {
  case BF_KOP_SET: STREAM_ROWS(double, c, a[i] = s0, _mm_stream_pd(a + i, v0), 2); break;
  case BF_KOP_COPY: STREAM_ROWS(double, c, a[i] = b[i], _mm_stream_pd(a + i, _mm_loadu_pd(b + i)), 2); break;
  case BF_KOP_LINCOMB:
    STREAM_ROWS(double, c, a[i] = s0 * b[i] + s1 * cc[i],
                _mm_stream_pd(a + i, _mm_add_pd(_mm_mul_pd(v0, _mm_loadu_pd(b + i)), _mm_mul_pd(v1, _mm_loadu_pd(cc + i)))),
                2);
    break;
  default: rows_double(op, c, s0, s1); break;
  }
}

static void stream_int(int op, rowcur *c, int s0) {
  __m128i v0 = _mm_set1_epi32(s0);
  switch (op) {
  case BF_KOP_SET: STREAM_ROWS(int, c, a[i] = s0, _mm_stream_si128((__m128i *)(void *)(a + i), v0), 4); break;
  case BF_KOP_COPY:
    STREAM_ROWS(int, c, a[i] = b[i],
                _mm_stream_si128((__m128i *)(void *)(a + i), _mm_loadu_si128((const __m128i *)(const void *)(b + i))),
                4);
    break;
  default: rows_int(op, c, s0, 0); break;
  }
}
#endif

static bool streamable(int op, int type) {
  return CPU_HAVE_STREAM &&
         (op == BF_KOP_SET || op == BF_KOP_COPY || (op == BF_KOP_LINCOMB && type == BF_KTYPE_DOUBLE));
}

static bool uses_b(int op) { return op >= BF_KOP_COPY; }
static bool uses_c(int op) { return op == BF_KOP_LINCOMB || op == BF_KOP_ADDPRODUCT; }

/* Rows [r0, r1) of task t. */
static void run_rows(const bf_kargs *g, const bf_ktask *t, int64_t r0, int64_t r1, bool stream) {
  if (r1 <= r0) return;
  bool dbl = g->type == BF_KTYPE_DOUBLE;
  rowcur c;
  cur_init(&c, g, t, r0, r1, dbl ? sizeof(double) : sizeof(int), uses_b(g->op), uses_c(g->op));
  if (g->op == BF_KOP_SWAP) {
    if (dbl) swap_double(&c);
    else swap_int(&c);
#if CPU_HAVE_STREAM
  } else if (stream) {
    if (dbl) stream_double(g->op, &c, g->s0, g->s1);
    else stream_int(g->op, &c, (int)g->s0);
#endif
  } else if (dbl) {
    rows_double(g->op, &c, g->s0, g->s1);
  } else {
    rows_int(g->op, &c, (int)g->s0, (int)g->s1);
  }
}

/* Write-only runs of at least this many bytes written use non-temporal
 * stores: 64 MiB, or the environment variable BOXFAB_CPU_STREAM_MIN_BYTES
 * read when the backend starts (the tests set 0 to run the streamed loops). */
static int64_t cpu_stream_bytes = (int64_t)64 << 20;

void bf_cpu_elementwise_init(void) {
  const char *e = getenv("BOXFAB_CPU_STREAM_MIN_BYTES");
  if (e && *e) {
    char *end;
    long long v = strtoll(e, &end, 10);
    if (*end == '\0' && v >= 0) cpu_stream_bytes = v;
  }
}

int bf_cpu_elementwise(const bf_kargs *args, int64_t ntasks, const bf_ktask *tasks, int64_t ngroups,
                       const int64_t *group_start) {
  if (group_start) {
    int64_t elems = 0;
    for (int64_t t = 0; t < ntasks; ++t) elems += cpu_task_rows(&tasks[t], args->ncomp) * cpu_task_nx(&tasks[t]);
    (void)elems;
#if BOXFAB_HAVE_OPENMP
#pragma omp parallel for schedule(dynamic, 1) if (ngroups > 1 && elems > CPU_CHUNK_ELEMS)
#endif
    for (int64_t gi = 0; gi < ngroups; ++gi)
      for (int64_t t = group_start[gi]; t < group_start[gi + 1]; ++t)
        run_rows(args, &tasks[t], 0, cpu_task_rows(&tasks[t], args->ncomp), false);
    return 0;
  }
  /* independent tasks: fuse contiguous rows first (on a copy) */
  bf_ktask *ft = malloc((size_t)(ntasks > 0 ? ntasks : 1) * sizeof *ft);
  if (!ft) return 1;
  memcpy(ft, tasks, (size_t)ntasks * sizeof *ft);
  for (int64_t t = 0; t < ntasks; ++t) cpu_fuse_rows(&ft[t], uses_b(args->op), uses_c(args->op));
  int64_t nchunks, elems;
  cpu_chunk *ch = cpu_make_chunks(ntasks, ft, args->ncomp, &nchunks, &elems);
  if (!ch) {
    free(ft);
    return 1;
  }
  size_t es = args->type == BF_KTYPE_DOUBLE ? sizeof(double) : sizeof(int);
  bool stream = streamable(args->op, args->type) && elems * (int64_t)es >= cpu_stream_bytes;
#if BOXFAB_HAVE_OPENMP
#pragma omp parallel for schedule(static) if (nchunks > 1 && elems > CPU_CHUNK_ELEMS)
#endif
  for (int64_t c = 0; c < nchunks; ++c) run_rows(args, &ft[ch[c].t], ch[c].r0, ch[c].r1, stream);
  free(ch);
  free(ft);
  return 0;
}
