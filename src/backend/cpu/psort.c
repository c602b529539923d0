/* CPU backend: a reference implementation of the device-resident
 * redistribute / init_random entries (p_redist_sort, p_redist_move,
 * p_random_sort, p_random_fill, p_plan_free; contract in backend.h), plain
 * and serial.  The core does not use them on host memory (its host path is
 * faster there); BOXFAB_PARTICLE_PLAN=1 makes it use them for containers
 * outside The_Cpu_Arena, so that tests without a GPU run the core's
 * device-resident path (tiles, order, errors) against its host path. */
#include <stdlib.h>
#include <string.h>

#include "runtime/backend.h"
#include "boxfab/base.h"
#include "particles/locate.h"

typedef struct cplan {
  int64_t n, nkeys, nslots, nparts;
  int nvec;
  int32_t *codes;  /* [n] */
  uint32_t *keys;  /* [n] */
  int64_t *order;  /* [n] the particle numbers sorted by key (stable) */
  int64_t *off;    /* [nkeys + 1] first sorted position of each key */
  int64_t *pstart; /* [nparts + 1] */
  char *scratch;   /* redistribute: n * sum(elem) */
} cplan;

static void cplan_free(void *h) {
  cplan *P = h;
  if (!P) return;
  free(P->codes), free(P->keys), free(P->order), free(P->off), free(P->pstart), free(P->scratch);
  free(P);
}

static cplan *cplan_new(int64_t n, int64_t nkeys, int64_t nparts, size_t scratch) {
  cplan *P = calloc(1, sizeof *P);
  if (!P) return NULL;
  P->n = n, P->nkeys = nkeys, P->nparts = nparts;
  size_t m = (size_t)(n > 0 ? n : 1);
  P->codes = malloc(m * sizeof *P->codes);
  P->keys = malloc(m * sizeof *P->keys);
  P->order = malloc(m * sizeof *P->order);
  P->off = calloc((size_t)nkeys + 1, sizeof *P->off);
  P->pstart = calloc((size_t)nparts + 1, sizeof *P->pstart);
  P->scratch = scratch ? malloc(scratch) : NULL;
  if (!P->codes || !P->keys || !P->order || !P->off || !P->pstart || (scratch && !P->scratch)) {
    cplan_free(P);
    return NULL;
  }
  return P;
}

/* Stable counting sort of the keys; counts per key. */
static void cplan_sort(cplan *P, int64_t *counts) {
  memset(P->off, 0, (size_t)(P->nkeys + 1) * sizeof *P->off);
  for (int64_t i = 0; i < P->n; ++i)
    ++P->off[P->keys[i] + 1];
  for (int64_t q = 0; q < P->nkeys; ++q) {
    counts[q] = P->off[q + 1];
    P->off[q + 1] += P->off[q];
  }
  int64_t *fill = malloc((size_t)(P->nkeys > 0 ? P->nkeys : 1) * sizeof *fill);
  if (fill) { /* (cannot fail in practice; without it the order is built key by key) */
    memcpy(fill, P->off, (size_t)P->nkeys * sizeof *fill);
    for (int64_t i = 0; i < P->n; ++i)
      P->order[fill[P->keys[i]]++] = i;
    free(fill);
  } else {
    int64_t m = 0;
    for (int64_t q = 0; q < P->nkeys; ++q)
      for (int64_t i = 0; i < P->n; ++i)
        if (P->keys[i] == (uint32_t)q) P->order[m++] = i;
  }
}

static int cpu_redist_sort(const bf_plocate *loc, int64_t nparts, const bf_ppart *parts, const int32_t *part_slot,
                           int64_t slot0, int64_t nslots, const bf_pvecs *vecs, int64_t *counts, void **out) {
  *out = NULL;
  int64_t n = 0;
  size_t sum = 0;
  for (int64_t k = 0; k < nparts; ++k)
    n += parts[k].n;
  for (int v = 0; v < vecs->nvec; ++v)
    sum += vecs->elem[v];
  cplan *P = cplan_new(n, 2 * nslots + 3, nparts, (size_t)(n > 0 ? n : 1) * (sum > 0 ? sum : 1));
  bf_ppart *pp = malloc((size_t)(nparts > 0 ? nparts : 1) * sizeof *pp);
  if (!P || !pp) {
    cplan_free(P), free(pp);
    return bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory for redistributing %lld particles", (long long)n);
  }
  P->nslots = nslots, P->nvec = vecs->nvec;
  for (int64_t k = 0; k < nparts; ++k) {
    P->pstart[k + 1] = P->pstart[k] + parts[k].n;
    pp[k] = parts[k];
    pp[k].dest = P->codes + P->pstart[k];
  }
  bf_backend_particles cpu;
  memset(&cpu, 0, sizeof cpu);
  bf_backend_cpu_particles_fill(&cpu);
  int st = nparts > 0 ? cpu.p_locate(loc, nparts, pp) : 0;
  free(pp);
  if (st) {
    cplan_free(P);
    return st;
  }
  for (int64_t k = 0; k < nparts; ++k)
    for (int64_t g = P->pstart[k]; g < P->pstart[k + 1]; ++g) {
      int32_t d = P->codes[g], own = part_slot[k];
      if (d == own || d == BF_PDEST_STAY || (d >= 0 && (d & BF_PDEST_SLOT_MASK) == own))
        P->keys[g] = (uint32_t)(2 * (own - slot0));
      else if (d >= 0)
        P->keys[g] = (uint32_t)(2 * ((d & BF_PDEST_SLOT_MASK) - slot0) + 1);
      else
        P->keys[g] = (uint32_t)(2 * nslots + (d == BF_PDEST_REMOTE ? 1 : BF_PDEST_REFUSED(d) ? 2 : 0));
    }
  cplan_sort(P, counts);
  *out = P;
  return 0;
}

static int cpu_redist_move(void *h, const bf_plocate *loc, const bf_pvecs *vecs, void *const *src, void *const *dst) {
  cplan *P = h;
  int nv = P->nvec;
  BF_CHECK(vecs->nvec == nv, BF_ERROR_VALUE, "the plan has %d vectors, not %d", nv, vecs->nvec);
  int64_t nkept = P->off[2 * P->nslots];
  size_t so = 0;
  for (int v = 0; v < nv; ++v) {
    char *stage = P->scratch + so;
    size_t e = vecs->elem[v];
    for (int64_t j = 0, k = 0; j < nkept; ++j) {
      int64_t g = P->order[j];
      if (g < P->pstart[k] || g >= P->pstart[k + 1]) { /* the part holding g */
        int64_t lo = 0, hi = P->nparts - 1;
        while (lo < hi) {
          int64_t mid = (lo + hi + 1) / 2;
          if (P->pstart[mid] <= g) lo = mid;
          else hi = mid - 1;
        }
        k = lo;
      }
      memcpy(stage + (size_t)j * e, (const char *)src[k * nv + v] + (size_t)(g - P->pstart[k]) * e, e);
    }
    so += (size_t)P->n * e;
  }
  /* wrapped positions */
  for (int64_t j = 0; j < nkept; ++j) {
    int32_t code = P->codes[P->order[j]];
    if (code < 0 || !(code & BF_PDEST_WRAP)) continue;
    double x[3] = {0, 0, 0};
    char *at[3] = {NULL, NULL, NULL};
    for (int d = 0; d < loc->dim; ++d) {
      size_t base = 0;
      for (int v = 0; v < vecs->pos_vec[d]; ++v)
        base += (size_t)P->n * vecs->elem[v];
      at[d] = P->scratch + base + (size_t)j * vecs->elem[vecs->pos_vec[d]] + vecs->pos_off[d];
      memcpy(&x[d], at[d], 8);
    }
    wrap_pos(loc, x);
    for (int d = 0; d < loc->dim; ++d)
      memcpy(at[d], &x[d], 8);
  }
  so = 0;
  for (int v = 0; v < nv; ++v) {
    size_t e = vecs->elem[v];
    for (int64_t t = 0; t < P->nslots; ++t) {
      int64_t j0 = P->off[2 * t], j1 = P->off[2 * t + 2];
      if (j1 > j0) memcpy(dst[t * nv + v], P->scratch + so + (size_t)j0 * e, (size_t)(j1 - j0) * e);
    }
    so += (size_t)P->n * e;
  }
  return 0;
}

static int cpu_random_sort(const bf_prandom *r, const bf_plocate *loc, int64_t n, int64_t nslots,
                           const bf_pvecs *vecs, int64_t *counts, int64_t *first_bad, void **out) {
  *out = NULL;
  first_bad[0] = first_bad[1] = -1;
  cplan *P = cplan_new(n, nslots + 2, 0, 0);
  BF_CHECK(P != NULL, BF_ERROR_MEMORY, "out of memory for %lld particles", (long long)n);
  P->nslots = nslots, P->nvec = vecs->nvec;
  bf_backend_particles cpu;
  memset(&cpu, 0, sizeof cpu);
  bf_backend_cpu_particles_fill(&cpu);
  int st = cpu.p_random_locate(r, loc, n, P->codes);
  if (st) {
    cplan_free(P);
    return st;
  }
  for (int64_t i = 0; i < n; ++i) {
    int32_t d = P->codes[i];
    P->keys[i] = d >= 0 ? (uint32_t)(d & BF_PDEST_SLOT_MASK) : (uint32_t)(nslots + (d == BF_PDEST_REMOTE ? 1 : 0));
    if (d < 0 && first_bad[d == BF_PDEST_REMOTE] < 0) first_bad[d == BF_PDEST_REMOTE] = i;
  }
  cplan_sort(P, counts);
  *out = P;
  return 0;
}

static int cpu_random_fill(void *h, const bf_prandom *r, uint64_t idcpu0, const bf_pvecs *vecs, void *const *dst,
                           const int64_t *base) {
  cplan *P = h;
  int nv = P->nvec;
  BF_CHECK(vecs->nvec == nv, BF_ERROR_VALUE, "the plan has %d vectors, not %d", nv, vecs->nvec);
  uint64_t key = bf_prng_key(r->seed);
  for (int64_t s = 0; s < P->nslots; ++s)
    for (int64_t j = P->off[s]; j < P->off[s + 1]; ++j) {
      uint64_t i = (uint64_t)P->order[j];
      int64_t at = base[s] + j - P->off[s];
      for (int v = 0; v < nv; ++v) {
        size_t e = vecs->elem[v];
        char *q = (char *)dst[s * nv + v] + (size_t)at * e;
        int role = v == vecs->idcpu_vec ? 3 : -1;
        for (int d = 0; d < r->dim; ++d)
          if (v == vecs->pos_vec[d]) role = d;
        if (role >= 0 && role < 3) {
          double x = random_coord(r, key, (uint64_t)r->first + i, role);
          memcpy(q, &x, 8);
        } else if (role == 3) {
          uint64_t id = idcpu0 + (i << 24);
          memcpy(q, &id, 8);
        } else if (vecs->value && vecs->value[v]) {
          memcpy(q, vecs->value[v], e);
        } else {
          memset(q, 0, e);
        }
      }
    }
  return 0;
}

void bf_backend_cpu_psort_fill(bf_backend_particles *p) {
  p->p_redist_sort = cpu_redist_sort;
  p->p_redist_move = cpu_redist_move;
  p->p_random_sort = cpu_random_sort;
  p->p_random_fill = cpu_random_fill;
  p->p_plan_free = cplan_free;
}
