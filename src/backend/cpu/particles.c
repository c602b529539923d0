/* CPU backend: the particle kernels (see backend.h, bf_backend_particles).
 * Work is cut into chunks of a fixed number of particles (independent of the
 * thread count), run with OpenMP. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/backend.h"
#include "particles/locate.h"
#include "boxfab/base.h"

#define PCHUNK 16384

typedef struct pchunk {
  int64_t part, i0, i1;
} pchunk;

static pchunk *make_chunks(int64_t nparts, const int64_t *sizes, size_t stride, int64_t *nc) {
  int64_t n = 0;
  for (int64_t p = 0; p < nparts; ++p) {
    int64_t s = *(const int64_t *)((const char *)sizes + p * stride);
    n += (s + PCHUNK - 1) / PCHUNK;
  }
  pchunk *c = malloc((size_t)(n > 0 ? n : 1) * sizeof *c);
  if (!c) return NULL;
  int64_t m = 0;
  for (int64_t p = 0; p < nparts; ++p) {
    int64_t s = *(const int64_t *)((const char *)sizes + p * stride);
    for (int64_t i = 0; i < s; i += PCHUNK)
      c[m++] = (pchunk){p, i, i + PCHUNK < s ? i + PCHUNK : s};
  }
  *nc = n;
  return c;
}

/* Chunk [i0, i1) of part p.  The shortcut first (own tile), then the general
 * lookup. */
/* The branch-free test of the shortcut over n particles: dest = own or
 * INT32_MIN (look up).  Compiled for AVX2 too where the compiler can pick the
 * variant at load time (the baseline SSE2 cannot vectorize its compares). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
__attribute__((target_clones("avx2", "default")))
#endif
static void
shortcut_pass(const double *__restrict x0, const double *__restrict x1, const double *__restrict x2,
              const int64_t *__restrict id, int32_t *__restrict dest, int64_t n, int32_t own, const double *plo,
              const double *dxi, const double *a, const double *b, const double *rlo, const double *rhi) {
  const double a0 = a[0], a1 = a[1], a2 = a[2], b0 = b[0], b1 = b[1], b2 = b[2];
  const double p0 = plo[0], p1 = plo[1], p2 = plo[2], q0 = dxi[0], q1 = dxi[1], q2 = dxi[2];
  const double l0 = rlo[0], l1 = rlo[1], l2 = rlo[2], h0 = rhi[0], h1 = rhi[1], h2 = rhi[2];
  for (int64_t i = 0; i < n; ++i) {
    double y0 = x0[i], y1 = x1[i], y2 = x2[i];
    double t0 = (y0 - p0) * q0, t1 = (y1 - p1) * q1, t2 = (y2 - p2) * q2;
    /* valid id: sign bit set (negative as int64) and id bits not all zero */
    int64_t v = id[i];
    int64_t in = (t0 >= a0) & (t0 < b0) & (t1 >= a1) & (t1 < b1) & (t2 >= a2) & (t2 < b2) & (y0 >= l0) & (y0 <= h0) &
                 (y1 >= l1) & (y1 <= h1) & (y2 >= l2) & (y2 <= h2) & (v < 0) & ((v & 0x7FFFFFFFFF000000ll) != 0);
    dest[i] = in ? own : INT32_MIN;
  }
}

/* The shortcut for pure SoA runs: branch-free (vectorizes).  A cell test on
 * t = (x - plo) * dxi as doubles: dlo + floor(t) in [lo, hi] <=> t in
 * [lo - dlo, hi - dlo + 1).  Particles that fail get the full lookup. */
static void locate_chunk_soa(const bf_plocate *loc, const bf_ppart *p, int64_t i0, int64_t i1) {
  int dim = loc->dim;
  const bf_ploc_level *L = &loc->levels[p->own_lev];
  double a[3], b[3], plo[3], dxi[3], rlo[3], rhi[3];
  for (int d = 0; d < 3; ++d) {
    bool use = d < dim;
    a[d] = use ? (double)p->own_lo[d] - L->dlo[d] : -1e300;
    b[d] = use ? (double)p->own_hi[d] - L->dlo[d] + 1 : 1e300;
    plo[d] = use ? L->plo[d] : 0;
    dxi[d] = use ? L->dxi[d] : 0;
    rlo[d] = use && loc->is_per[d] ? loc->rlo[d] : -HUGE_VAL;
    rhi[d] = use && loc->is_per[d] ? loc->rhi[d] : HUGE_VAL;
  }
  const double *x0 = p->pos[0], *x1 = dim > 1 ? p->pos[1] : p->pos[0], *x2 = dim > 2 ? p->pos[2] : p->pos[0];
  int32_t *dest = p->dest;
  shortcut_pass(x0 + i0, x1 + i0, x2 + i0, (const int64_t *)p->idcpu + i0, dest + i0, i1 - i0, p->own_slot, plo, dxi, a,
                b, rlo, rhi);
  for (int64_t i = i0; i < i1; ++i)
    if (dest[i] == INT32_MIN) dest[i] = locate_one(loc, p, i);
}

static void locate_chunk(const bf_plocate *loc, const bf_ppart *p, int64_t i0, int64_t i1) {
  bool fast = p->own_slot >= 0;
  if (fast && p->pstride == 1 && p->istride == 1 && p->idcpu) {
    locate_chunk_soa(loc, p, i0, i1);
    return;
  }
  for (int64_t i = i0; i < i1; ++i)
    p->dest[i] = bf_plocate_particle(loc, p, i);
}

static int cpu_p_locate(const bf_plocate *loc, int64_t nparts, const bf_ppart *parts) {
  int64_t nc = 0;
  pchunk *c = make_chunks(nparts, &parts[0].n, sizeof(bf_ppart), &nc);
  if (!c) return bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory for particle work chunks");
#pragma omp parallel for schedule(dynamic, 1) if (nc > 2)
  for (int64_t k = 0; k < nc; ++k)
    locate_chunk(loc, &parts[c[k].part], c[k].i0, c[k].i1);
  free(c);
  return 0;
}

static int cpu_p_wrap(const bf_plocate *loc, int64_t nparts, const bf_ppart *parts) {
  int64_t nc = 0;
  /* chunk over the list lengths where lists are given */
  int64_t *sizes = malloc((size_t)(nparts > 0 ? nparts : 1) * sizeof *sizes);
  if (!sizes) return bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory for particle work chunks");
  for (int64_t q = 0; q < nparts; ++q)
    sizes[q] = parts[q].list ? parts[q].nlist : parts[q].n;
  pchunk *c = make_chunks(nparts, sizes, sizeof(int64_t), &nc);
  free(sizes);
  if (!c) return bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory for particle work chunks");
#pragma omp parallel for schedule(dynamic, 1) if (nc > 2)
  for (int64_t k = 0; k < nc; ++k) {
    const bf_ppart *p = &parts[c[k].part];
    for (int64_t j = c[k].i0; j < c[k].i1; ++j) {
      int64_t i = p->list ? p->list[j] : j;
      bf_pwrap_particle(loc, p, i);
    }
  }
  free(c);
  return 0;
}

/* ---- copies ------------------------------------------------------------------------------------- */

static void copy_indexed(const bf_pcopy *op, int64_t k0, int64_t k1) {
  size_t e = op->elem;
  char *dst = op->dst;
  const char *src = op->src;
  if (op->value) {
    if (e == 8) {
      uint64_t v;
      memcpy(&v, op->value, 8);
      uint64_t *d = (uint64_t *)dst;
      for (int64_t k = k0; k < k1; ++k)
        d[k] = v;
    } else if (e == 4) {
      uint32_t v;
      memcpy(&v, op->value, 4);
      uint32_t *d = (uint32_t *)dst;
      for (int64_t k = k0; k < k1; ++k)
        d[k] = v;
    } else {
      for (int64_t k = k0; k < k1; ++k)
        memcpy(dst + (size_t)k * e, op->value, e);
    }
    return;
  }
  if (!op->didx && !op->sidx) {
    memcpy(dst + (size_t)k0 * e, src + (size_t)k0 * e, (size_t)(k1 - k0) * e);
    return;
  }
#define GATHER(T)                                                                                                      \
  do {                                                                                                                 \
    T *d = (T *)dst;                                                                                                   \
    const T *s = (const T *)src;                                                                                       \
    if (!op->didx)                                                                                                     \
      for (int64_t k = k0; k < k1; ++k)                                                                                \
        d[k] = s[op->sidx[k]];                                                                                         \
    else if (!op->sidx)                                                                                                \
      for (int64_t k = k0; k < k1; ++k)                                                                                \
        d[op->didx[k]] = s[k];                                                                                         \
    else                                                                                                               \
      for (int64_t k = k0; k < k1; ++k)                                                                                \
        d[op->didx[k]] = s[op->sidx[k]];                                                                               \
  } while (0)
  if (e == 8)
    GATHER(uint64_t);
  else if (e == 4)
    GATHER(uint32_t);
  else
    for (int64_t k = k0; k < k1; ++k)
      memcpy(dst + (size_t)(op->didx ? op->didx[k] : k) * e, src + (size_t)(op->sidx ? op->sidx[k] : k) * e, e);
#undef GATHER
}

/* Forward copy of n bytes (a multiple of 4) to d <= s (the ranges may
 * overlap): 32-byte blocks, each loaded whole before it is stored, so a
 * store never reaches bytes a later load reads. */
static inline void fwd_copy(char *d, const char *s, size_t n) {
  size_t j = 0;
  for (; j + 32 <= n; j += 32) {
    char t[32];
    memcpy(t, s + j, 32);
    memcpy(d + j, t, 32);
  }
  for (; j + 4 <= n; j += 4) {
    char t[4];
    memcpy(t, s + j, 4);
    memcpy(d + j, t, 4);
  }
}

/* Element k of a movers gather (dst2[didx[k]] = src[sidx[k]]). */
static inline void mover_copy(char *d2, const char *src, size_t e, int64_t di, int64_t si) {
  if (e == 8)
    memcpy(d2 + (size_t)di * 8, src + (size_t)si * 8, 8);
  else if (e == 4)
    memcpy(d2 + (size_t)di * 4, src + (size_t)si * 4, 4);
  else
    memcpy(d2 + (size_t)di * e, src + (size_t)si * e, e);
}

/* One forward pass: the movers between the runs go to dst2 as the pass
 * reaches them (a mover at index i is read before any store reaches i: the
 * stays written so far all come before it), the runs are compacted. */
static void copy_runs(const bf_pcopy *op) {
  const size_t e = op->elem;
  char *const dst = op->dst;
  const char *const src = op->src;
  char *const d2 = op->dst2;
  const int64_t *const runs = op->runs, *const didx = op->didx, *const sidx = op->sidx;
  const int64_t nruns = op->n, n2 = op->n2;
  int64_t mk = 0;
  size_t w = 0;
  for (int64_t r = 0; r < nruns; ++r) {
    int64_t start = runs[2 * r];
    size_t len = (size_t)runs[2 * r + 1];
    for (; mk < n2 && sidx[mk] < start; ++mk)
      mover_copy(d2, src, e, didx[mk], sidx[mk]);
    if (dst != src || w != (size_t)start) {
      if (len > 64)
        memmove(dst + w * e, src + (size_t)start * e, len * e);
      else
        fwd_copy(dst + w * e, src + (size_t)start * e, len * e);
    }
    w += len;
  }
  for (; mk < n2; ++mk)
    mover_copy(d2, src, e, didx[mk], sidx[mk]);
}

static int cpu_p_copy(int64_t nops, const bf_pcopy *ops) {
  /* work items: run ops whole; indexed ops cut into chunks */
  int64_t nc = 0;
  for (int64_t o = 0; o < nops; ++o)
    nc += ops[o].runs ? 1 : (ops[o].n + PCHUNK - 1) / PCHUNK;
  pchunk *c = malloc((size_t)(nc > 0 ? nc : 1) * sizeof *c);
  if (!c) return bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory for particle work chunks");
  int64_t m = 0, work = 0;
  for (int64_t o = 0; o < nops; ++o) {
    if (ops[o].runs) {
      work += ops[o].n2;
      for (int64_t r = 0; r < ops[o].n; ++r)
        work += ops[o].runs[2 * r + 1];
    } else {
      work += ops[o].n;
    }
  }
  for (int64_t o = 0; o < nops; ++o) {
    if (ops[o].runs)
      c[m++] = (pchunk){o, 0, ops[o].n};
    else
      for (int64_t i = 0; i < ops[o].n; i += PCHUNK)
        c[m++] = (pchunk){o, i, i + PCHUNK < ops[o].n ? i + PCHUNK : ops[o].n};
  }
#pragma omp parallel for schedule(dynamic, 1) if (work > BF_PARTICLE_PARALLEL_MIN)
  for (int64_t k = 0; k < m; ++k) {
    const bf_pcopy *op = &ops[c[k].part];
    if (op->runs)
      copy_runs(op);
    else
      copy_indexed(op, c[k].i0, c[k].i1);
  }
  free(c);
  return 0;
}

/* ---- random positions --------------------------------------------------------------------------- */

static int cpu_p_random(const bf_prandom *r, int64_t n, double *const *pos) {
  uint64_t key = bf_prng_key(r->seed);
#pragma omp parallel for schedule(static) if (n > BF_PARTICLE_PARALLEL_MIN)
  for (int64_t c = 0; c < (n + PCHUNK - 1) / PCHUNK; ++c) {
    int64_t i1 = (c + 1) * PCHUNK < n ? (c + 1) * PCHUNK : n;
    for (int64_t i = c * PCHUNK; i < i1; ++i)
      for (int d = 0; d < r->dim; ++d)
        pos[d][i] = random_coord(r, key, (uint64_t)(r->first + i), d);
  }
  return 0;
}

#define RBLOCK 512

static int cpu_p_random_locate(const bf_prandom *r, const bf_plocate *loc, int64_t n, int32_t *dest) {
  uint64_t key = bf_prng_key(r->seed);
  int64_t nc = (n + PCHUNK - 1) / PCHUNK;
#pragma omp parallel for schedule(dynamic, 1) if (nc > 2)
  for (int64_t c = 0; c < nc; ++c) {
    double buf[3][RBLOCK];
    bf_ppart part;
    memset(&part, 0, sizeof part);
    part.pos[0] = buf[0], part.pos[1] = buf[1], part.pos[2] = buf[2];
    part.pstride = 1;
    part.own_slot = -1;
    int64_t i1 = (c + 1) * PCHUNK < n ? (c + 1) * PCHUNK : n;
    for (int64_t b = c * PCHUNK; b < i1; b += RBLOCK) {
      int64_t m = i1 - b < RBLOCK ? i1 - b : RBLOCK;
      for (int d = 0; d < r->dim; ++d)
        for (int64_t k = 0; k < m; ++k)
          buf[d][k] = random_coord(r, key, (uint64_t)(r->first + b + k), d);
      part.n = m;
      part.dest = dest + b;
      locate_chunk(loc, &part, 0, m);
    }
  }
  return 0;
}

static int cpu_p_random_place(const bf_prandom *r, uint64_t idcpu0, int64_t nparts, const bf_pplace *parts) {
  uint64_t key = bf_prng_key(r->seed);
  int64_t nc = 0, total = 0;
  pchunk *c = make_chunks(nparts, &parts[0].n, sizeof(bf_pplace), &nc);
  if (!c) return bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory for particle work chunks");
  for (int64_t q = 0; q < nparts; ++q)
    total += parts[q].n;
#pragma omp parallel for schedule(dynamic, 1) if (total > BF_PARTICLE_PARALLEL_MIN)
  for (int64_t k = 0; k < nc; ++k) {
    const bf_pplace *p = &parts[c[k].part];
    for (int64_t j = c[k].i0; j < c[k].i1; ++j) {
      uint64_t i = (uint64_t)p->idx[j];
      for (int d = 0; d < r->dim; ++d)
        p->pos[d][j * p->pstride] = random_coord(r, key, (uint64_t)r->first + i, d);
      p->idcpu[j * p->istride] = idcpu0 + (i << 24);
    }
  }
  free(c);
  return 0;
}

void bf_backend_cpu_particles_fill(bf_backend_particles *p) {
  p->p_random_locate = cpu_p_random_locate;
  p->p_random_place = cpu_p_random_place;
  p->p_locate = cpu_p_locate;
  p->p_wrap = cpu_p_wrap;
  p->p_copy = cpu_p_copy;
  p->p_random = cpu_p_random;
  bf_backend_cpu_psort_fill(p); /* the reference of the device-resident entries (cpu/psort.c) */
}
