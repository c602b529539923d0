/* Private: the point locator, periodic wrap and random coordinates of the
 * particle kernels (bf_plocate, bf_ppart, bf_prandom in backend.h), shared by
 * the CPU backend (C) and the CUDA backend (.cu) so that both compute the
 * same dest codes, wrapped positions and random numbers, bit for bit (the
 * CUDA backend is compiled without FMA contraction). */
#ifndef BOXFAB_PLOCATE_H
#define BOXFAB_PLOCATE_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "runtime/backend.h"

#ifdef __CUDACC__
#define BF_PLOC_FN static inline __host__ __device__
#else
#define BF_PLOC_FN static inline
#endif


BF_PLOC_FN int64_t cell_of(double x, double plo, double dxi, int dlo) {
  double t = (x - plo) * dxi;
  if (!(t > -1e18)) t = -1e18; /* NaN and -inf: far outside */
  if (t > 1e18) t = 1e18;
  int64_t c = (int64_t)t;
  c -= (double)c > t; /* floor */
  return (int64_t)dlo + c;
}

BF_PLOC_FN bool box_has(const bf_ploc_grid *g, const int64_t *iv, int dim, int grow) {
  for (int d = 0; d < dim; ++d)
    if (iv[d] < (int64_t)g->lo[d] - grow || iv[d] > (int64_t)g->hi[d] + grow) return false;
  return true;
}

/* Tile of cell iv (clamped into the grid's box) within grid g (mfiter.h's cutting). */
BF_PLOC_FN int32_t tile_of(const bf_ploc_grid *g, const int64_t *iv, int dim) {
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
BF_PLOC_FN int64_t find_grid(const bf_ploc_level *L, const int64_t *iv, int dim, int grow) {
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
BF_PLOC_FN int32_t locate_pos(const bf_plocate *loc, const double *x) {
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
BF_PLOC_FN int32_t locate_fast(const bf_ploc_level *L, const double *x, int dim) {
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
BF_PLOC_FN bool wrap_pos(const bf_plocate *loc, double *x) {
  bool shifted = false;
  for (int d = 0; d < loc->dim; ++d) {
    if (!loc->is_per[d]) continue;
    double len = loc->phi[d] - loc->plo[d];
    if (x[d] > loc->rhi[d]) {
      /* many periods away: into the first period above plo by fmod, which is exact (the loop alone
       * would take forever; subtracting a rounded multiple of len left a remainder of the size of
       * x's last bit, which the loop then could not reduce: 6e113 in a period of 0.3 hung) */
      if (x[d] - loc->rhi[d] > 4 * len) x[d] = loc->plo[d] + fmod(x[d] - loc->plo[d], len);
      while (x[d] > loc->rhi[d])
        x[d] -= len;
      if (x[d] < loc->rlo[d]) x[d] = loc->rlo[d];
      shifted = true;
    } else if (x[d] < loc->rlo[d]) {
      if (loc->rlo[d] - x[d] > 4 * len) x[d] = loc->plo[d] + len + fmod(x[d] - loc->plo[d], len);
      while (x[d] < loc->rlo[d])
        x[d] += len;
      if (x[d] > loc->rhi[d]) x[d] = loc->rhi[d];
      shifted = true;
    }
  }
  return shifted;
}

BF_PLOC_FN bool wrap_ok(const double *x, int dim) {
  for (int d = 0; d < dim; ++d)
    if (!isfinite(x[d])) return false;
  return true;
}

/* x (wrapped) inside the level-0 round-off domain: AMReX's !outsideRoundoffDomain. */
BF_PLOC_FN bool in_domain(const bf_plocate *loc, const double *x) {
  for (int d = 0; d < loc->dim; ++d)
    if (!(x[d] >= loc->rlo[d] && x[d] <= loc->rhi[d])) return false;
  return true;
}

BF_PLOC_FN int32_t locate_one(const bf_plocate *loc, const bf_ppart *p, int64_t i) {
  uint64_t idcpu = p->idcpu ? p->idcpu[i * p->istride] : ~(uint64_t)0;
  bool valid = (idcpu >> 63) != 0 && ((idcpu >> 24) & 0x7FFFFFFFFFull) != 0;
  if (!valid) return loc->remove_negative ? BF_PDEST_REMOVE : BF_PDEST_STAY;
  double x[3] = {0, 0, 0};
  for (int d = 0; d < loc->dim; ++d)
    x[d] = p->pos[d][i * p->pstride];
  if (!wrap_ok(x, loc->dim)) return BF_PDEST_NONFINITE; /* never "outside the domain": refused */
  if (loc->lev_min == loc->lev_max && loc->ngrow == 0) {
    int32_t f = locate_fast(&loc->levels[loc->lev_min], x, loc->dim);
    if (f != INT32_MIN) return f;
  }
  bool shifted = wrap_pos(loc, x);
  int32_t s = locate_pos(loc, x);
  if (s >= 0 && shifted) return s | BF_PDEST_WRAP;
  if (s < 0 && shifted && loc->lev_min > 0) {
    /* AMReX: retry unwrapped on the coarsest level of the range with ghost cells */
    double u[3] = {0, 0, 0};
    for (int d = 0; d < loc->dim; ++d)
      u[d] = p->pos[d][i * p->pstride];
    s = locate_pos(loc, u);
    if (s >= 0) return s;
  }
  /* inside the domain (wrapped) but in no grid: AMReX aborts ("invalid particle"); refused, never
   * removed as if it had left the domain */
  if (s == BF_PDEST_REMOVE && in_domain(loc, x)) return BF_PDEST_NOGRID;
  /* outside the domain: removed only when the range starts at level 0 (AMReX's locateParticle; it
   * aborts otherwise) */
  if (s == BF_PDEST_REMOVE && loc->lev_min > 0) return BF_PDEST_LEFT;
  return s;
}

/* Cell of x on level L in direction d, or false when far outside / NaN. */
BF_PLOC_FN bool cell_fast(const bf_ploc_level *L, int d, double x, int64_t *c) {
  double t = (x - L->plo[d]) * L->dxi[d];
  if (!(t > -1e9 && t < 1e9)) return false;
  int64_t k = (int64_t)t;
  k -= (double)k > t;
  *c = k + L->dlo[d];
  return true;
}

/* Dest code of particle i of part p (see bf_plocate): the own-tile shortcut
 * (p->own_slot >= 0) first, then the general lookup. */
BF_PLOC_FN int32_t bf_plocate_particle(const bf_plocate *loc, const bf_ppart *p, int64_t i) {
  int dim = loc->dim;
  if (p->own_slot >= 0) {
    const bf_ploc_level *L = &loc->levels[p->own_lev];
    uint64_t idcpu = p->idcpu ? p->idcpu[i * p->istride] : ~(uint64_t)0;
    if ((idcpu >> 63) && ((idcpu >> 24) & 0x7FFFFFFFFFull)) {
      bool in = true;
      for (int d = 0; d < dim && in; ++d) {
        double x = p->pos[d][i * p->pstride];
        int64_t c = 0;
        bool per = loc->is_per[d] != 0;
        in = (!per || (x >= loc->rlo[d] && x <= loc->rhi[d])) && cell_fast(L, d, x, &c) && c >= p->own_lo[d] &&
             c <= p->own_hi[d];
      }
      if (in) return p->own_slot;
    }
  }
  return locate_one(loc, p, i);
}

/* Wrap particle i of part p in place when its dest code asks for it. */
BF_PLOC_FN void bf_pwrap_particle(const bf_plocate *loc, const bf_ppart *p, int64_t i) {
  int32_t code = p->dest[i];
  if (code < 0 || !(code & BF_PDEST_WRAP)) return;
  double x[3] = {0, 0, 0};
  for (int d = 0; d < loc->dim; ++d)
    x[d] = p->pos[d][i * p->pstride];
  wrap_pos(loc, x);
  for (int d = 0; d < loc->dim; ++d)
    p->pos[d][i * p->pstride] = x[d];
}

/* Coordinate d of random particle `counter` (see bf_prandom; key = bf_prng_key(seed)). */
BF_PLOC_FN double random_coord(const bf_prandom *r, uint64_t key, uint64_t counter, int d) {
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

#endif
