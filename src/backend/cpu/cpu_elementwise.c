/* CPU backend: element-wise MultiFab kernels.  The inner loops run over x
 * with unit stride and restrict pointers so that the compiler vectorizes
 * them; OpenMP threads share the row chunks (or the groups). */
#include <stdlib.h>

#include "backend.h"
#include "boxfab_config.h"
#include "cpu_work.h"

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

#define ROW(T, ADD, SUB, MUL, NEG, ABS_, DIV)                                                              \
  static void row_##T(int op, int64_t nx, T *restrict a, const T *restrict b, const T *restrict c, T s0,   \
                      T s1) {                                                                              \
    switch (op) {                                                                                          \
    case BF_KOP_SET: for (int64_t i = 0; i < nx; ++i) a[i] = s0; break;                                    \
    case BF_KOP_PLUS_S: for (int64_t i = 0; i < nx; ++i) a[i] = ADD(a[i], s0); break;                      \
    case BF_KOP_MULT_S: for (int64_t i = 0; i < nx; ++i) a[i] = MUL(a[i], s0); break;                      \
    case BF_KOP_INVERT: for (int64_t i = 0; i < nx; ++i) a[i] = DIV(s0, a[i]); break;                      \
    case BF_KOP_NEGATE: for (int64_t i = 0; i < nx; ++i) a[i] = NEG(a[i]); break;                          \
    case BF_KOP_ABS: for (int64_t i = 0; i < nx; ++i) a[i] = ABS_(a[i]); break;                            \
    case BF_KOP_COPY: for (int64_t i = 0; i < nx; ++i) a[i] = b[i]; break;                                 \
    case BF_KOP_ADD: for (int64_t i = 0; i < nx; ++i) a[i] = ADD(a[i], b[i]); break;                       \
    case BF_KOP_SUB: for (int64_t i = 0; i < nx; ++i) a[i] = SUB(a[i], b[i]); break;                       \
    case BF_KOP_MUL: for (int64_t i = 0; i < nx; ++i) a[i] = MUL(a[i], b[i]); break;                       \
    case BF_KOP_DIV: for (int64_t i = 0; i < nx; ++i) a[i] = DIV(a[i], b[i]); break;                       \
    case BF_KOP_SAXPY: for (int64_t i = 0; i < nx; ++i) a[i] = ADD(a[i], MUL(s0, b[i])); break;            \
    case BF_KOP_XPAY: for (int64_t i = 0; i < nx; ++i) a[i] = ADD(b[i], MUL(s0, a[i])); break;             \
    case BF_KOP_LINCOMB: for (int64_t i = 0; i < nx; ++i) a[i] = ADD(MUL(s0, b[i]), MUL(s1, c[i])); break; \
    case BF_KOP_ADDPRODUCT: for (int64_t i = 0; i < nx; ++i) a[i] = ADD(a[i], MUL(b[i], c[i])); break;     \
    default: break;                                                                                        \
    }                                                                                                      \
  }

ROW(double, DADD, DSUB, DMUL, DNEG, DABS, DDIV)
ROW(int, IADD, ISUB, IMUL, INEG, IABS, IDIV)

/* a and b may be the same fab here (swap of two regions), so no restrict. */
#define SWAPROW(T)                                                                                         \
  static void swap_##T(int64_t nx, T *a, T *b) {                                                           \
    for (int64_t i = 0; i < nx; ++i) {                                                                     \
      T t = a[i];                                                                                          \
      a[i] = b[i];                                                                                         \
      b[i] = t;                                                                                            \
    }                                                                                                      \
  }
SWAPROW(double)
SWAPROW(int)

static bool uses_b(int op) { return op >= BF_KOP_COPY; }
static bool uses_c(int op) { return op == BF_KOP_LINCOMB || op == BF_KOP_ADDPRODUCT; }

/* Whole task of a copy / add of doubles (the ghost exchange): nested loops,
 * no per-row dispatch, since its rows are often only a few cells long. */
static void copy_task_double(const bf_kargs *g, const bf_ktask *t) {
  int64_t nx = cpu_task_nx(t);
  const bf_kview *a = &t->a, *b = &t->b;
  for (int n = 0; n < g->ncomp; ++n)
    for (int k = t->lo[2]; k <= t->hi[2]; ++k)
      for (int j = t->lo[1]; j <= t->hi[1]; ++j) {
        double *restrict pa = (double *)cpu_addr(a, t->lo[0], j, k, g->acomp + n, sizeof(double));
        const double *restrict pb = (const double *)cpu_addr(b, t->lo[0] - t->shift[0], j - t->shift[1],
                                                             k - t->shift[2], g->bcomp + n, sizeof(double));
        if (g->op == BF_KOP_COPY)
          for (int64_t i = 0; i < nx; ++i) pa[i] = pb[i];
        else
          for (int64_t i = 0; i < nx; ++i) pa[i] += pb[i];
      }
}

/* Rows [r0, r1) of task t. */
static void run_rows(const bf_kargs *g, const bf_ktask *t, int64_t r0, int64_t r1) {
  if (g->type == BF_KTYPE_DOUBLE && (g->op == BF_KOP_COPY || g->op == BF_KOP_ADD) && r0 == 0 &&
      r1 == cpu_task_rows(t, g->ncomp)) {
    copy_task_double(g, t);
    return;
  }
  size_t es = g->type == BF_KTYPE_DOUBLE ? sizeof(double) : sizeof(int);
  int64_t nx = cpu_task_nx(t);
  int i0 = t->lo[0];
  for (int64_t r = r0; r < r1; ++r) {
    int n, k, j;
    cpu_row(t, r, &n, &k, &j);
    char *a = cpu_addr(&t->a, i0, j, k, g->acomp + n, es);
    char *b = uses_b(g->op) ? cpu_addr(&t->b, i0 - t->shift[0], j - t->shift[1], k - t->shift[2], g->bcomp + n, es)
                            : NULL;
    char *c = uses_c(g->op) ? cpu_addr(&t->c, i0 - t->shift[0], j - t->shift[1], k - t->shift[2], g->ccomp + n, es)
                            : NULL;
    if (g->type == BF_KTYPE_DOUBLE) {
      if (g->op == BF_KOP_SWAP) swap_double(nx, (double *)a, (double *)b);
      else row_double(g->op, nx, (double *)a, (const double *)b, (const double *)c, g->s0, g->s1);
    } else {
      if (g->op == BF_KOP_SWAP) swap_int(nx, (int *)a, (int *)b);
      else row_int(g->op, nx, (int *)a, (const int *)b, (const int *)c, (int)g->s0, (int)g->s1);
    }
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
        run_rows(args, &tasks[t], 0, cpu_task_rows(&tasks[t], args->ncomp));
    return 0;
  }
  int64_t nchunks, elems;
  cpu_chunk *ch = cpu_make_chunks(ntasks, tasks, args->ncomp, &nchunks, &elems);
  if (!ch) return 1;
  (void)elems;
#if BOXFAB_HAVE_OPENMP
#pragma omp parallel for schedule(static) if (nchunks > 1 && elems > CPU_CHUNK_ELEMS)
#endif
  for (int64_t c = 0; c < nchunks; ++c) run_rows(args, &tasks[ch[c].t], ch[c].r0, ch[c].r1);
  free(ch);
  return 0;
}
