/* CPU backend: the particle kernels (see backend.h, bf_backend_particles).
 * Work is cut into chunks of a fixed number of particles (independent of the
 * thread count), run with OpenMP. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "boxfab/base.h"

#define PCHUNK 16384

/* ---- the point locator -------------------------------------------------------------------------- */

static inline int64_t cell_of(double x, double plo, double dxi, int dlo) {
  double t = (x - plo) * dxi;
  if (!(t > -1e18)) t = -1e18; /* NaN and -inf: far outside */
  if (t > 1e18) t = 1e18;
  int64_t c = (int64_t)t;
  c -= (double)c > t; /* floor */
  return (int64_t)dlo + c;
}

static inline bool box_has(const bf_ploc_grid *g, const int64_t *iv, int dim, int grow) {
  for (int d = 0; d < dim; ++d)
    if (iv[d] < (int64_t)g->lo[d] - grow || iv[d] > (int64_t)g->hi[d] + grow) return false;
  return true;
}

/* Tile of cell iv (clamped into the grid's box) within grid g (mfiter.h's cutting). */
static inline int32_t tile_of(const bf_ploc_grid *g, const int64_t *iv, int dim) {
  if (g->tn[0] == 1 && g->tn[1] == 1 && g->tn[2] == 1) return 0;
  int64_t t = 0, mul = 1;
  for (int d = 0; d < dim; ++d) {
    int n = g->tn[d];
    if (n > 1) {
      int64_t len = (int64_t)g->hi[d] - g->lo[d] + 1;
      int64_t o = iv[d] - g->lo[d];
      if (o < 0) o = 0;
      if (o >= len) o = len - 1;
      int64_t base = len / n, rem = len % n, nl = rem * (base + 1);
      int64_t ti = o < nl ? o / (base + 1) : rem + (o - nl) / base;
      t += ti * mul;
    }
    mul *= n;
  }
  return (int32_t)t;
}

/* Grid of cell iv on level L grown by `grow` (-1: none).  AMReX's
 * ParticleLocator: an exact hit wins; among grown hits, the last grid whose box
 * grown in a single direction holds the cell, else the first grown hit. */
static int64_t find_grid(const bf_ploc_level *L, const int64_t *iv, int dim, int grow) {
  if (L->ngrids == 0) return -1;
  if (grow == 0) {
    int64_t b = 0, mul = 1;
    for (int d = 0; d < dim; ++d) {
      int64_t r = iv[d] - L->blo[d];
      if (r < 0) return -1;
      r >>= L->bshift[d];
      if (r >= L->nbins[d]) return -1;
      b += r * mul;
      mul *= L->nbins[d];
    }
    if (L->bin_exact[b] >= 0) return L->bin_exact[b];
    for (int64_t q = L->bin_start[b]; q < L->bin_start[b + 1]; ++q)
      if (box_has(&L->grids[L->bin_grid[q]], iv, dim, 0)) return L->bin_grid[q];
    return -1;
  }
  int64_t blo[3] = {0, 0, 0}, bhi[3] = {0, 0, 0};
  for (int d = 0; d < dim; ++d) {
    int64_t r = iv[d] - L->blo[d];
    int64_t lo = r - grow, hi = r + grow;
    lo = lo < 0 ? -1 : lo >> L->bshift[d];
    hi = hi < 0 ? -1 : hi >> L->bshift[d];
    if (lo < 0) lo = 0;
    if (hi >= L->nbins[d]) hi = L->nbins[d] - 1;
    if (hi < 0 || lo >= L->nbins[d] || lo > hi) return -1;
    blo[d] = lo, bhi[d] = hi;
  }
  int64_t loc = -1;
  for (int64_t k = blo[2]; k <= bhi[2]; ++k)
    for (int64_t j = blo[1]; j <= bhi[1]; ++j)
      for (int64_t i = blo[0]; i <= bhi[0]; ++i) {
        int64_t b = i + (int64_t)L->nbins[0] * (j + (int64_t)L->nbins[1] * k);
        for (int64_t q = L->bin_start[b]; q < L->bin_start[b + 1]; ++q) {
          const bf_ploc_grid *g = &L->grids[L->bin_grid[q]];
          if (box_has(g, iv, dim, 0)) return L->bin_grid[q];
          if (grow > 0 && box_has(g, iv, dim, grow)) {
            if (loc < 0) loc = L->bin_grid[q];
            for (int dir = 0; dir < dim; ++dir) {
              bool in = true;
              for (int d = 0; d < dim; ++d) {
                int gr = d == dir ? grow : 0;
                if (iv[d] < (int64_t)g->lo[d] - gr || iv[d] > (int64_t)g->hi[d] + gr) in = false;
              }
              if (in) loc = L->bin_grid[q];
            }
          }
        }
      }
  return loc;
}

/* Slot code of position x on levels [lev_max .. lev_min], or REMOVE / REMOTE. */
static int32_t locate_pos(const bf_plocate *loc, const double *x) {
  int dim = loc->dim;
  int64_t iv[3] = {0, 0, 0};
  if (loc->lev_min == loc->lev_max && loc->ngrow == 0) { /* one level: no level or ghost passes */
    const bf_ploc_level *L = &loc->levels[loc->lev_min];
    for (int d = 0; d < dim; ++d)
      iv[d] = cell_of(x[d], L->plo[d], L->dxi[d], L->dlo[d]);
    int64_t g = find_grid(L, iv, dim, 0);
    if (g < 0) return BF_PDEST_REMOVE;
    const bf_ploc_grid *G = &L->grids[g];
    return G->slot < 0 ? BF_PDEST_REMOTE : G->slot + tile_of(G, iv, dim);
  }
  for (int pass = 0; pass < 2; ++pass) {
    int top = pass == 0 ? loc->lev_max : loc->lev_min;
    int grow = pass == 0 ? 0 : loc->ngrow;
    if (pass == 1 && grow <= 0) break;
    for (int lev = top; lev >= loc->lev_min; --lev) {
      const bf_ploc_level *L = &loc->levels[lev];
      for (int d = 0; d < dim; ++d)
        iv[d] = cell_of(x[d], L->plo[d], L->dxi[d], L->dlo[d]);
      int64_t g = find_grid(L, iv, dim, grow);
      if (g >= 0) {
        const bf_ploc_grid *G = &L->grids[g];
        if (G->slot < 0) return BF_PDEST_REMOTE;
        return G->slot + tile_of(G, iv, dim);
      }
    }
  }
  return BF_PDEST_REMOVE;
}

/* The common case in a few operations: one level, no ghost cells, the cell
 * inside the domain (so no periodic shift: the position lies inside the
 * round-off domain) and in a bin that one grid covers whole.  INT32_MIN:
 * take the general path. */
static inline int32_t locate_fast(const bf_ploc_level *L, const double *x, int dim) {
  int64_t iv[3] = {0, 0, 0}, b = 0, mul = 1;
  for (int d = 0; d < dim; ++d) {
    double t = (x[d] - L->plo[d]) * L->dxi[d];
    if (!(t > -2e9 && t < 2e9)) return INT32_MIN;
    int64_t c = (int64_t)t;
    c -= (double)c > t;
    c += L->dlo[d];
    if (c < L->dlo[d] || c > L->dhi[d]) return INT32_MIN;
    iv[d] = c;
    int64_t r = c - L->blo[d];
    if (r < 0) return INT32_MIN;
    r >>= L->bshift[d];
    if (r >= L->nbins[d]) return INT32_MIN;
    b += r * mul;
    mul *= L->nbins[d];
  }
  int32_t g = L->bin_exact[b];
  if (g < 0) return INT32_MIN;
  const bf_ploc_grid *G = &L->grids[g];
  if (G->slot < 0) return INT32_MIN;
  return G->slot + tile_of(G, iv, dim);
}

/* AMReX's enforcePeriodic; true when a coordinate changed direction. */
static inline bool wrap_pos(const bf_plocate *loc, double *x) {
  bool shifted = false;
  for (int d = 0; d < loc->dim; ++d) {
    if (!loc->is_per[d]) continue;
    double len = loc->phi[d] - loc->plo[d];
    if (x[d] > loc->rhi[d]) {
      /* many periods away: jump close first (the loop alone would take forever) */
      if (x[d] - loc->rhi[d] > 4 * len) x[d] -= floor((x[d] - loc->rhi[d]) / len - 1) * len;
      while (x[d] > loc->rhi[d])
        x[d] -= len;
      if (x[d] < loc->rlo[d]) x[d] = loc->rlo[d];
      shifted = true;
    } else if (x[d] < loc->rlo[d]) {
      if (loc->rlo[d] - x[d] > 4 * len) x[d] += floor((loc->rlo[d] - x[d]) / len - 1) * len;
      while (x[d] < loc->rlo[d])
        x[d] += len;
      if (x[d] > loc->rhi[d]) x[d] = loc->rhi[d];
      shifted = true;
    }
  }
  return shifted;
}

static inline bool wrap_ok(const double *x, int dim) {
  for (int d = 0; d < dim; ++d)
    if (!isfinite(x[d])) return false;
  return true;
}

static int32_t locate_one(const bf_plocate *loc, const bf_ppart *p, int64_t i) {
  uint64_t idcpu = p->idcpu ? p->idcpu[i * p->istride] : ~(uint64_t)0;
  bool valid = (idcpu >> 63) != 0 && ((idcpu >> 24) & 0x7FFFFFFFFFull) != 0;
  if (!valid) return loc->remove_negative ? BF_PDEST_REMOVE : BF_PDEST_STAY;
  double x[3] = {0, 0, 0};
  for (int d = 0; d < loc->dim; ++d)
    x[d] = p->pos[d][i * p->pstride];
  if (loc->lev_min == loc->lev_max && loc->ngrow == 0) {
    int32_t f = locate_fast(&loc->levels[loc->lev_min], x, loc->dim);
    if (f != INT32_MIN) return f;
  }
  bool shifted = wrap_ok(x, loc->dim) && wrap_pos(loc, x);
  int32_t s = locate_pos(loc, x);
  if (s >= 0 && shifted) return s | BF_PDEST_WRAP;
  if (s < 0 && shifted && loc->lev_min > 0) {
    /* AMReX: retry unwrapped on the coarsest level of the range with ghost cells */
    for (int d = 0; d < loc->dim; ++d)
      x[d] = p->pos[d][i * p->pstride];
    return locate_pos(loc, x);
  }
  return s;
}

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

/* Cell of x on level L in direction d, or false when far outside / NaN. */
static inline bool cell_fast(const bf_ploc_level *L, int d, double x, int64_t *c) {
  double t = (x - L->plo[d]) * L->dxi[d];
  if (!(t > -1e9 && t < 1e9)) return false;
  int64_t k = (int64_t)t;
  k -= (double)k > t;
  *c = k + L->dlo[d];
  return true;
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
  int dim = loc->dim;
  bool fast = p->own_slot >= 0;
  if (fast && p->pstride == 1 && p->istride == 1 && p->idcpu) {
    locate_chunk_soa(loc, p, i0, i1);
    return;
  }
  const bf_ploc_level *L = fast ? &loc->levels[p->own_lev] : NULL;
  double rlo[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL}, rhi[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL};
  for (int d = 0; d < dim; ++d)
    if (loc->is_per[d]) rlo[d] = loc->rlo[d], rhi[d] = loc->rhi[d];
  for (int64_t i = i0; i < i1; ++i) {
    if (fast) {
      uint64_t idcpu = p->idcpu ? p->idcpu[i * p->istride] : ~(uint64_t)0;
      if ((idcpu >> 63) && ((idcpu >> 24) & 0x7FFFFFFFFFull)) {
        bool in = true;
        for (int d = 0; d < dim && in; ++d) {
          double x = p->pos[d][i * p->pstride];
          int64_t c = 0;
          in = x >= rlo[d] && x <= rhi[d] && cell_fast(L, d, x, &c) && c >= p->own_lo[d] && c <= p->own_hi[d];
        }
        if (in) {
          p->dest[i] = p->own_slot;
          continue;
        }
      }
    }
    p->dest[i] = locate_one(loc, p, i);
  }
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
      if (p->dest[i] < 0 || !(p->dest[i] & BF_PDEST_WRAP)) continue;
      double x[3] = {0, 0, 0};
      for (int d = 0; d < loc->dim; ++d)
        x[d] = p->pos[d][i * p->pstride];
      wrap_pos(loc, x);
      for (int d = 0; d < loc->dim; ++d)
        p->pos[d][i * p->pstride] = x[d];
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

static inline double random_coord(const bf_prandom *r, uint64_t key, uint64_t counter, int d) {
  for (int attempt = 0;; ++attempt) {
    double u = bf_prng_unit(bf_prng_at(key, counter, d, attempt));
    double x = r->lo[d] + u * (r->hi[d] - r->lo[d]);
    if (x >= r->lo[d] && x < r->hi[d]) {
      double t = (x - r->plo[d]) * r->dxi[d];
      int64_t c = (int64_t)t;
      c -= (double)c > t;
      c += r->dlo[d];
      if (c >= r->clo[d] && c <= r->chi[d]) return x;
    }
    if (attempt > 1000) return r->lo[d]; /* a degenerate box (checked by the core) */
  }
}

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
}
