/* The particle container: adding particles (init_random, per box, one per
 * cell, columns), sorting by cell, counting per cell (see
 * include/boxfab/particles.h).  New particles are staged in host memory as
 * columns, located with the backend's p_locate and inserted with
 * bf_pc_insert (all or nothing). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "boxfab/idcpu.h"
#include "boxfab/runtime.h"
#include "runtime/comm.h"
#include "particles/impl.h"
#include "particles/locate.h"
#include "particles/podvec_impl.h"
#include <stdio.h>
#include <time.h>
/* BOXFAB_PARTICLE_TIMES=1: the time of each phase on stderr (tuning). */
static double pt_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
#define PT_MARK(name)                                                                                                  \
  do {                                                                                                                 \
    if (getenv("BOXFAB_PARTICLE_TIMES")) {                                                                             \
      double t_ = pt_now();                                                                                            \
      fprintf(stderr, "  %-14s %7.2f ms\n", name, (t_ - pt_last) * 1e3);                                               \
      pt_last = t_;                                                                                                    \
    }                                                                                                                  \
  } while (0)

#define MAXVECS 4096

static const uint64_t zero64 = 0;

/* Stable counting sort of particles by slot: cnt[s] (ns + 1 entries, zeroed
 * by the caller) becomes the first position of slot s and idx the particles
 * in slot order (dest >= 0 for every particle).  In parallel over a fixed
 * number of chunks (the result does not depend on the threads). */
int bf_pc_count_sort(int64_t n, const int32_t *dest, int64_t ns, int64_t *cnt, int64_t *idx) {
  int64_t nch = n < 65536 ? 1 : 32;
  if (ns > 65536) nch = 1;
  int64_t *c = calloc((size_t)(nch * (ns + 1)), sizeof *c);
  BF_CHECK(c != NULL, BF_ERROR_MEMORY, "out of memory");
  int64_t per = (n + nch - 1) / (nch > 0 ? nch : 1);
#pragma omp parallel for schedule(static) if (nch > 1)
  for (int64_t k = 0; k < nch; ++k) {
    int64_t *ck = c + k * (ns + 1);
    int64_t i1 = (k + 1) * per < n ? (k + 1) * per : n;
    for (int64_t i = k * per; i < i1; ++i)
      ++ck[dest[i] & BF_PDEST_SLOT_MASK];
  }
  /* offsets: slot-major, chunk-minor */
  int64_t off = 0;
  for (int64_t s = 0; s < ns; ++s) {
    cnt[s] = off;
    for (int64_t k = 0; k < nch; ++k) {
      int64_t v = c[k * (ns + 1) + s];
      c[k * (ns + 1) + s] = off;
      off += v;
    }
  }
  cnt[ns] = off;
#pragma omp parallel for schedule(static) if (nch > 1)
  for (int64_t k = 0; k < nch; ++k) {
    int64_t *ck = c + k * (ns + 1);
    int64_t i1 = (k + 1) * per < n ? (k + 1) * per : n;
    for (int64_t i = k * per; i < i1; ++i)
      idx[ck[dest[i] & BF_PDEST_SLOT_MASK]++] = i;
  }
  free(c);
  return BF_SUCCESS;
}

/* Columns of new particles (host memory).  Any pointer may be NULL: the
 * matching constant (NULL: zero) is used. */
typedef struct staged {
  int64_t n;
  double *pos[3];             /* n each, required */
  const uint64_t *idcpu;      /* n, required */
  const double *const *real;  /* per SoA real component (pure SoA: entries < dim ignored) */
  const double *real_const;   /* per compile-time SoA real */
  const int32_t *const *ints; /* per SoA int component */
  const int32_t *int_const;   /* per compile-time SoA int */
  const double *const *sreal; /* per struct real */
  const double *sreal_const;
  const int32_t *const *sint;
  const int32_t *sint_const;
} staged;

/* vecs/consts in bf_pc_tile_vecs order; *aos is a host array to free (legacy). */
static int stage_vecs(const bf_pc *pc, const staged *S, const void **vecs, const void **consts, void **aos) {
  const bf_playout *L = &pc->layout;
  int nr = bf_pc_num_real_comps(pc), ni = bf_pc_num_int_comps(pc);
  int v = 0;
  *aos = NULL;
  BF_CHECK(nr + ni + 2 <= MAXVECS, BF_ERROR_VALUE, "too many components");
  if (!L->pure_soa) {
    size_t ss = bf_playout_struct_size(L), io = bf_playout_idcpu_offset(L), ido = bf_playout_idata_offset(L);
    size_t bytes;
    BF_CHECK(bf_size_mul((size_t)S->n, ss, &bytes), BF_ERROR_OVERFLOW, "too many particles");
    char *a = calloc(bytes ? bytes : 1, 1);
    BF_CHECK(a != NULL, BF_ERROR_MEMORY, "out of memory for %lld particles", (long long)S->n);
#pragma omp parallel for schedule(static) if (S->n > BF_PARTICLE_PARALLEL_MIN)
    for (int64_t i = 0; i < S->n; ++i) {
      char *p = a + (size_t)i * ss;
      for (int d = 0; d < L->dim; ++d)
        memcpy(p + 8 * d, &S->pos[d][i], 8);
      for (int c = 0; c < L->nsr; ++c) {
        double x = S->sreal && S->sreal[c] ? S->sreal[c][i] : S->sreal_const ? S->sreal_const[c] : 0.0;
        memcpy(p + 8 * (size_t)(L->dim + c), &x, 8);
      }
      memcpy(p + io, &S->idcpu[i], 8);
      for (int c = 0; c < L->nsi; ++c) {
        int32_t x = S->sint && S->sint[c] ? S->sint[c][i] : S->sint_const ? S->sint_const[c] : 0;
        memcpy(p + ido + 4 * (size_t)c, &x, 4);
      }
    }
    *aos = a;
    vecs[v] = a, consts[v] = NULL, ++v;
  } else {
    vecs[v] = S->idcpu, consts[v] = NULL, ++v;
  }
  for (int c = 0; c < nr; ++c, ++v) {
    vecs[v] = NULL, consts[v] = NULL;
    if (L->pure_soa && c < L->dim)
      vecs[v] = S->pos[c];
    else if (S->real && S->real[c])
      vecs[v] = S->real[c];
    else if (S->real_const && c < L->nar)
      consts[v] = &S->real_const[c];
    else
      consts[v] = &zero64;
  }
  for (int c = 0; c < ni; ++c, ++v) {
    vecs[v] = NULL, consts[v] = NULL;
    if (S->ints && S->ints[c])
      vecs[v] = S->ints[c];
    else if (S->int_const && c < L->nai)
      consts[v] = &S->int_const[c];
    else
      consts[v] = &zero64;
  }
  return BF_SUCCESS;
}

static int insert_staged(bf_pc *pc, const staged *S, const int32_t *dest) {
  const void *vecs[MAXVECS], *consts[MAXVECS];
  void *aos = NULL;
  BF_CALL(stage_vecs(pc, S, vecs, consts, &aos));
  int st = bf_pc_insert(pc, S->n, vecs, consts, dest);
  free(aos);
  return st;
}

/* dest codes of staged positions on levels [lev_min, lev_max]; positions
 * wrapped where needed.  BF_ERROR_VALUE naming the first particle no grid
 * holds. */
static int locate_staged(bf_pc *pc, int lev_min, int lev_max, staged *S, int32_t *dest, const char *what) {
  const bf_backend_particles *K = bf_pc_kernels(pc);
  if (!K) return bf_error_code();
  bf_ploc_level levs[BF_PC_MAX_LEVELS];
  bf_plocate loc;
  bf_pc_locator(pc, lev_min, lev_max, 0, true, levs, &loc);
  /* the CPU kernels work on host memory: the staged columns are host memory */
  const bf_backend_particles *H = &bf_backend_get()->particles;
  bf_ppart part;
  memset(&part, 0, sizeof part);
  part.own_slot = -1; /* no own-tile shortcut (0 would send cell 0's particles to slot 0 unchecked) */
  part.n = S->n;
  for (int d = 0; d < pc->layout.dim; ++d)
    part.pos[d] = S->pos[d];
  part.pstride = 1;
  part.idcpu = NULL;
  part.dest = dest;
  if (S->n == 0) return BF_SUCCESS;
  BF_CALL(H->p_locate(&loc, 1, &part));
  /* a code >= nslots: a grid of another process (bf_pc_insert puts the particle in the outbox) */
  for (int64_t i = 0; i < S->n; ++i)
    if (dest[i] < 0) {
      const double *x0 = S->pos[0], *x1 = S->pos[pc->layout.dim > 1 ? 1 : 0], *x2 = S->pos[pc->layout.dim > 2 ? 2 : 0];
      BF_ERROR(BF_ERROR_VALUE, "%s: particle %lld at (%g, %g, %g) lies in no grid of levels %d..%d%s", what,
               (long long)i, x0[i], pc->layout.dim > 1 ? x1[i] : 0.0, pc->layout.dim > 2 ? x2[i] : 0.0, lev_min,
               lev_max, " (outside the domain or the BoxArray)");
    }
  BF_CALL(H->p_wrap(&loc, 1, &part));
  for (int64_t i = 0; i < S->n; ++i)
    dest[i] &= BF_PDEST_SLOT_MASK;
  return BF_SUCCESS;
}

static int new_idcpus(bf_pc *pc, int64_t n, uint64_t *idcpu) {
  if (n == 0) return BF_SUCCESS;
  int64_t first = 0;
  BF_CALL(bf_particle_next_id(pc->family, n, &first));
  uint64_t v0 = 0;
  BF_CALL(bf_idcpu_pack(first, bf_parallel_myproc(), &v0));
#pragma omp parallel for schedule(static) if (n > BF_PARTICLE_PARALLEL_MIN)
  for (int64_t i = 0; i < n; ++i)
    idcpu[i] = v0 + ((uint64_t)i << 24);
  return BF_SUCCESS;
}

static void pinit_stage(const bf_pc *pc, const bf_pinit *init, staged *S) {
  if (!init) return;
  S->real_const = init->real_array;
  S->int_const = init->int_array;
  S->sreal_const = init->real_struct;
  S->sint_const = init->int_struct;
  (void)pc;
}

/* init_random's ids on several processes (AMReX's InitRandom).  Every
 * process draws the positions of all n particles (the generator is
 * counter-based: no message needed) and keeps those of its grids
 * (dest[i] a local slot).  Without serialize, AMReX's process r generates
 * particles [s_r, s_r + M_r) (M = n / nprocs, process 0 also the remainder)
 * with ids from its own counter and cpu r, then redistributes: particle i
 * gets those ids here (each process reserves its M_r ids; the first ids are
 * exchanged).  With serialize, AMReX's owner numbers the particles it keeps,
 * in generation order, from its own counter, with its own cpu.  idcpu[i] is
 * written for the local particles only. */
static int random_idcpus(bf_pc *pc, int64_t n, const int32_t *dest, bool serialize, uint64_t *idcpu) {
  const bf_comm *c = bf_pc_comm(pc);
  int np = bf_comm_size(c), me = bf_comm_rank(c);
  const int64_t NS = pc->nslots;
#define LOCAL_(i) (dest[i] >= 0 && (dest[i] & BF_PDEST_SLOT_MASK) < NS)
  if (serialize) {
    int64_t nown = 0;
    for (int64_t i = 0; i < n; ++i)
      nown += LOCAL_(i);
    if (nown == 0) return BF_SUCCESS;
    int64_t first = 0;
    uint64_t v0 = 0;
    BF_CALL(bf_particle_next_id(pc->family, nown, &first));
    BF_CALL(bf_idcpu_pack(first, me, &v0));
    int64_t k = 0;
    for (int64_t i = 0; i < n; ++i)
      if (LOCAL_(i)) idcpu[i] = v0 + ((uint64_t)k++ << 24);
    return BF_SUCCESS;
  }
  int64_t M = n / np, M0 = M + n % np, mine = me == 0 ? M0 : M;
  int64_t first = 0;
  int st = mine > 0 ? bf_particle_next_id(pc->family, mine, &first) : BF_SUCCESS;
  int64_t *firsts = malloc((size_t)np * sizeof *firsts);
  if (!firsts) return bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory");
  int64_t mf = st ? -1 : first;
  int rc = bf_comm_allgather(c, &mf, sizeof mf, firsts);
  if (rc || st) {
    free(firsts);
    return rc ? rc : st;
  }
  for (int r = 0; r < np; ++r)
    if (firsts[r] < 0) {
      free(firsts);
      return bf_error_set(BF_ERROR_RUNTIME, __func__, "init_random: taking particle ids failed on another process");
    }
#pragma omp parallel for schedule(static) if (n > BF_PARTICLE_PARALLEL_MIN)
  for (int64_t i = 0; i < n; ++i) {
    if (!LOCAL_(i)) continue;
    int64_t g = i < M0 || M == 0 ? 0 : 1 + (i - M0) / M;
    int64_t sg = g == 0 ? 0 : M0 + (g - 1) * M;
    uint64_t v0 = 0;
    (void)bf_idcpu_pack(firsts[g], (int)g, &v0); /* the id was reserved by process g */
    idcpu[i] = v0 + ((uint64_t)(i - sg) << 24);
  }
#undef LOCAL_
  free(firsts);
  return BF_SUCCESS;
}

/* How add_generated numbers the particles: new ids of this process for all
 * (the particles of other processes' grids wait in the outbox), or
 * init_random's rule (random_idcpus; the particles of other processes' grids
 * are dropped: their owners make them). */
enum { GEN_OWN = 0, GEN_RANDOM = 1, GEN_RANDOM_SERIAL = 2 };

/* Shared tail: locate on all levels, ids, insert. */
static int add_generated(bf_pc *pc, staged *S, const bf_pinit *init, const char *what, int mode) {
  int st = BF_SUCCESS;
  int32_t *dest = malloc((size_t)(S->n > 0 ? S->n : 1) * sizeof *dest);
  uint64_t *idcpu = malloc((size_t)(S->n > 0 ? S->n : 1) * sizeof *idcpu);
  if (!dest || !idcpu)
    st = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory for %lld particles", (long long)S->n);
  if (!st) st = locate_staged(pc, 0, pc->nlev - 1, S, dest, what);
  if (!st && (mode == GEN_OWN || bf_comm_size(bf_pc_comm(pc)) == 1)) {
    st = new_idcpus(pc, S->n, idcpu);
  } else if (!st) {
    st = random_idcpus(pc, S->n, dest, mode == GEN_RANDOM_SERIAL, idcpu);
    for (int64_t i = 0; i < S->n; ++i)
      if (dest[i] >= pc->nslots) dest[i] = -1;
  }
  if (!st) {
    S->idcpu = idcpu;
    pinit_stage(pc, init, S);
    st = insert_staged(pc, S, dest);
  }
  free(dest), free(idcpu);
  return st;
}

static int alloc_pos(int dim, int64_t n, staged *S) {
  memset(S, 0, sizeof *S);
  S->n = n;
  size_t bytes;
  BF_CHECK(bf_size_mul((size_t)(n > 0 ? n : 1), sizeof(double), &bytes), BF_ERROR_OVERFLOW, "too many particles");
  for (int d = 0; d < dim; ++d) {
    S->pos[d] = malloc(bytes);
    if (!S->pos[d]) {
      for (int e = 0; e < d; ++e)
        free(S->pos[e]);
      BF_ERROR(BF_ERROR_MEMORY, "out of memory for %lld particles", (long long)n);
    }
  }
  return BF_SUCCESS;
}

static void free_pos(int dim, staged *S) {
  for (int d = 0; d < dim; ++d)
    free(S->pos[d]);
}

static void prandom_level0(const bf_pc *pc, bf_prandom *r) {
  const bf_geometry *g = &pc->lev[0].geom;
  memset(r, 0, sizeof *r);
  r->dim = pc->layout.dim;
  for (int d = 0; d < r->dim; ++d) {
    r->plo[d] = g->prob_domain.lo[d];
    r->dxi[d] = g->inv_dx[d];
    r->dlo[d] = g->domain.lo[d];
    r->clo[d] = g->domain.lo[d];
    r->chi[d] = g->domain.hi[d];
  }
}

static int check_defined(const bf_pc *pc, const char *what) {
  BF_CALL(bf_pc_check(pc));
  BF_CHECK(pc->nlev > 0, BF_ERROR_VALUE, "%s: the particle container is not defined (call Define first)", what);
  return BF_SUCCESS;
}

/* A slice of a block shared by many vectors drops its reference to the block. */
static void slab_release(void *ctx) {
  bf_buffer *b = ctx;
  bf_buffer_destroy(&b);
}

/* init_random resident on the device (the backend's p_random_sort / p_random_fill): the particles'
 * tiles and order never leave the device; the host sees the number per slot to size the tiles.  Same
 * tiles, order and bytes as init_random_soa's host-driven path. */
static int init_random_device(bf_pc *pc, const bf_backend_particles *K, int64_t n, const bf_prandom *r,
                              const bf_pinit *init) {
  double pt_last = pt_now();
  int64_t ns = pc->nslots;
  int st = BF_SUCCESS;
  void *plan = NULL;
  int64_t *counts = calloc((size_t)ns + 2, sizeof *counts);
  int64_t *oldn = calloc((size_t)ns + 1, sizeof *oldn);
  bool *created = calloc((size_t)ns + 1, sizeof *created);
  size_t *elem = malloc(BF_PC_PVECS_MAX * sizeof *elem);
  const void **value = calloc(BF_PC_PVECS_MAX, sizeof *value);
  void **dstp = NULL;
  bf_buffer *slab = NULL;
  bf_pvecs pv;
  if (!counts || !oldn || !created || !elem || !value) {
    st = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory");
    goto done;
  }
  bf_pc_pvecs(pc, elem, &pv);
  {
    /* the constants of the components past the positions (run-time ones 0), in bf_pc_tile_vecs' order */
    static const double zero_d = 0.0;
    static const int32_t zero_i = 0;
    int nr = bf_pc_num_real_comps(pc), ni = bf_pc_num_int_comps(pc);
    for (int c = pc->layout.dim; c < nr && 1 + c < pv.nvec; ++c)
      value[1 + c] = c < pc->layout.nar && init && init->real_array ? (const void *)&init->real_array[c] : &zero_d;
    for (int c = 0; c < ni && 1 + nr + c < pv.nvec; ++c)
      value[1 + nr + c] = c < pc->layout.nai && init && init->int_array ? (const void *)&init->int_array[c] : &zero_i;
    pv.value = value;
  }
  dstp = calloc((size_t)ns * (size_t)pv.nvec + 1, sizeof *dstp);
  if (!dstp) {
    st = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory");
    goto done;
  }
  bf_ploc_level levs[BF_PC_MAX_LEVELS];
  bf_plocate loc;
  bf_pc_locator(pc, 0, pc->nlev - 1, 0, true, levs, &loc);
  PT_MARK("setup");
  int64_t first_bad[2] = {-1, -1};
  if ((st = K->p_random_sort(r, &loc, n, ns, &pv, counts, first_bad, &plan)) != BF_SUCCESS) goto done;
  PT_MARK("locate+sort");
  if (first_bad[0] >= 0 || first_bad[1] >= 0) {
    bool remote = first_bad[1] >= 0 && (first_bad[0] < 0 || first_bad[1] < first_bad[0]);
    int64_t bad = remote ? first_bad[1] : first_bad[0];
    st = bf_error_set(BF_ERROR_VALUE, "init_random_soa", "init_random: particle %lld lies in no grid of the container%s",
                      (long long)bad,
                      remote ? " on this process" : " (the BoxArray does not cover the domain)");
    goto done;
  }
  /* New tiles get their vectors in one block of the arena (slices of it, each holding a reference):
   * one allocation instead of one per vector and tile (4096 tiles x 9 vectors cost 40 ms on a GPU,
   * where each block the arena has not cached is a cudaMalloc). */
  size_t slab_bytes = 0;
  for (int64_t s = 0; s < ns; ++s)
    if (counts[s] > 0 && !pc->slots[s]) {
      int64_t cap = counts[s] + counts[s] / 16;
      for (int v = 0; v < pv.nvec; ++v)
        slab_bytes += ((size_t)cap * elem[v] + 63) / 64 * 64;
    }
  if (slab_bytes > 0 && (st = bf_buffer_create(pc->arena, slab_bytes, &slab)) != BF_SUCCESS) goto done;
  size_t so = 0;
  for (int64_t s = 0; s < ns; ++s) {
    int64_t a = counts[s];
    if (a == 0) continue;
    if (!pc->slots[s]) {
      if ((st = bf_pc_new_tile(pc, &pc->slots[s])) != BF_SUCCESS) goto done;
      created[s] = true;
      /* room for arrivals: the first redistribute after an init then moves no tile */
      int64_t cap = a + a / 16;
      bf_podvec *vecs[BF_PC_PVECS_MAX];
      int nv = bf_pc_tile_vecs(pc->slots[s], vecs, BF_PC_PVECS_MAX);
      for (int v = 0; v < nv; ++v) {
        size_t bytes = (size_t)cap * elem[v];
        bf_buffer *b = NULL;
        if ((st = bf_buffer_create_external((char *)bf_buffer_data(slab) + so, bytes, pc->arena, slab_release, slab,
                                            &b)) != BF_SUCCESS)
          goto done;
        bf_buffer_retain(slab);
        bf_podvec_adopt(vecs[v], b, cap);
        so += (bytes + 63) / 64 * 64;
      }
      oldn[s] = 0;
      continue;
    }
    if ((st = bf_ptile_check_consistent(pc->slots[s])) != BF_SUCCESS) goto done;
    oldn[s] = bf_ptile_size(pc->slots[s]);
    if ((st = bf_ptile_reserve(pc->slots[s], oldn[s] + a + (oldn[s] + a) / 16)) != BF_SUCCESS) goto done;
  }
  PT_MARK("reserve");
  int64_t first = 0;
  uint64_t v0 = 0;
  if ((st = bf_particle_next_id(pc->family, n, &first)) != BF_SUCCESS) goto done;
  if ((st = bf_idcpu_pack(first, bf_parallel_myproc(), &v0)) != BF_SUCCESS) goto done;
  /* no failure past this point but the device's */
#pragma omp parallel for schedule(dynamic, 64) if (ns > 256)
  for (int64_t s = 0; s < ns; ++s) {
    if (counts[s] == 0) continue;
    bf_ptile *t = pc->slots[s];
    (void)bf_ptile_resize_raw(t, oldn[s] + counts[s]); /* reserved above; every new element is written below */
    bf_podvec *vecs[BF_PC_PVECS_MAX];
    int nv = bf_pc_tile_vecs(t, vecs, BF_PC_PVECS_MAX);
    for (int v = 0; v < nv; ++v)
      dstp[s * pv.nvec + v] = bf_podvec_data(vecs[v]);
  }
  PT_MARK("tables");
  st = K->p_random_fill(plan, r, v0, &pv, dstp, oldn);
  PT_MARK("fill");
  if (st) /* the kernel failed: new tiles go, the others shrink back (their raw tails hold no particles) */
    for (int64_t s = 0; s < ns; ++s) {
      if (created[s]) bf_ptile_destroy(&pc->slots[s]), created[s] = false;
      else if (counts[s] > 0 && pc->slots[s] && bf_ptile_size(pc->slots[s]) > oldn[s])
        (void)bf_ptile_resize_raw(pc->slots[s], oldn[s]);
    }
done:
  if (st != BF_SUCCESS && created)
    for (int64_t s = 0; s < ns; ++s)
      if (created[s]) bf_ptile_destroy(&pc->slots[s]);
  if (plan) K->p_plan_free(plan);
  bf_buffer_destroy(&slab); /* the tiles' slices keep it */
  free(dstp), free(value), free(elem), free(created), free(oldn), free(counts);
  return st;
}

/* init_random of pure SoA layouts without staging the particles: the
 * destinations come from the generator directly (p_random_locate), then each
 * tile's positions and ids are generated in place (p_random_place) in the
 * order of the particle numbers; the other components get their constants.
 * All allocations (tiles reserved) before the first change. */
static int init_random_soa(bf_pc *pc, int64_t n, const bf_prandom *r, const bf_pinit *init, bool serialize) {
  const bf_backend_particles *K = bf_pc_kernels(pc);
  if (!K) return bf_error_code();
  if (n == 0) return BF_SUCCESS;
  /* the device-resident path on one process (several: the host path keeps each rank's share) */
  if (bf_comm_size(bf_pc_comm(pc)) == 1 && bf_pc_use_plan(pc, K) && n <= INT32_MAX && pc->nslots + 2 <= INT32_MAX)
    return init_random_device(pc, K, n, r, init);
  double pt_last = pt_now();
  int32_t *dest = NULL;
  int64_t *idx = NULL, *cnt = NULL;
  bool *created = NULL;
  int64_t *oldn = NULL;
  bf_pcopy *ops = NULL;
  bf_arena *dest_arena = bf_pc_dest_arena(pc);
  int st = bf_arena_alloc(dest_arena, (size_t)n * sizeof *dest, (void **)&dest);
  if (!st) st = bf_arena_alloc(dest_arena, (size_t)n * sizeof *idx, (void **)&idx);
  int64_t ns = pc->nslots;
  const bool multi = bf_comm_size(bf_pc_comm(pc)) > 1;
  uint64_t *ids = NULL, *vals = NULL; /* several processes: the idcpu of every particle / of the kept ones */
  int64_t cnt_kept = 0;
  cnt = calloc((size_t)ns + 2, sizeof *cnt);
  created = calloc((size_t)ns + 1, sizeof *created);
  oldn = calloc((size_t)ns + 1, sizeof *oldn);
  if (!st && (!cnt || !created || !oldn)) st = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory");
  bf_ploc_level levs[BF_PC_MAX_LEVELS];
  bf_plocate loc;
  bf_pc_locator(pc, 0, pc->nlev - 1, 0, true, levs, &loc);
  PT_MARK("setup");
  if (!st) st = K->p_random_locate(r, &loc, n, dest);
  PT_MARK("random_locate");
  if (!st) {
    int64_t bad = -1;
    for (int64_t i = 0; i < n && bad < 0; ++i)
      if (dest[i] < 0) bad = i;
    if (bad >= 0)
      st = bf_error_set(BF_ERROR_VALUE, __func__,
                        "init_random: particle %lld lies in no grid of the container (the BoxArray does not cover the "
                        "domain)",
                        (long long)bad);
  }
  if (!st && multi) {
    /* the ids (random_idcpus), then the particles of other processes' grids go to a dropped bucket ns */
    ids = malloc((size_t)n * sizeof *ids);
    if (!ids) st = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory");
    if (!st) st = random_idcpus(pc, n, dest, serialize, ids);
    for (int64_t i = 0; !st && i < n; ++i)
      if ((dest[i] & BF_PDEST_SLOT_MASK) >= ns) dest[i] = (int32_t)ns;
  }
  if (!st) st = bf_pc_count_sort(n, dest, multi ? ns + 1 : ns, cnt, idx);
  if (!st && multi) {
    /* the kept particles' idcpu in slot order (idx), where the device can read them */
    int64_t nk = cnt[ns];
    cnt_kept = nk;
    st = bf_arena_alloc(dest_arena, (size_t)(nk > 0 ? nk : 1) * sizeof *vals, (void **)&vals);
    for (int64_t k = 0; !st && k < nk; ++k)
      vals[k] = ids[idx[k]];
  }
  PT_MARK("sort");
  for (int64_t s = 0; !st && s < ns; ++s) {
    int64_t a = cnt[s + 1] - cnt[s];
    if (a == 0) continue;
    if (!pc->slots[s]) {
      if ((st = bf_pc_new_tile(pc, &pc->slots[s])) != BF_SUCCESS) break;
      created[s] = true;
    }
    if ((st = bf_ptile_check_consistent(pc->slots[s])) != BF_SUCCESS) break;
    oldn[s] = bf_ptile_size(pc->slots[s]);
    /* room for arrivals: the first redistribute after an init then moves no tile */
    st = bf_ptile_reserve(pc->slots[s], oldn[s] + a + (oldn[s] + a) / 16);
  }
  int64_t first = 0;
  uint64_t v0 = 0;
  if (!st && !multi) st = bf_particle_next_id(pc->family, n, &first);
  if (!st && !multi) st = bf_idcpu_pack(first, bf_parallel_myproc(), &v0);
  int nr = bf_pc_num_real_comps(pc), ni = bf_pc_num_int_comps(pc), dim = pc->layout.dim;
  if (!st) {
    ops = malloc((size_t)(ns * (nr + ni + 1) + 1) * sizeof *ops);
    if (!ops) st = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory");
  }
  PT_MARK("reserve");
  bf_pplace *places = NULL;
  if (!st) {
    places = malloc((size_t)(ns + 1) * sizeof *places);
    if (!places) st = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory");
  }
  /* no failure past this point */
  int64_t m = 0, np = 0;
  for (int64_t s = 0; !st && s < ns; ++s) {
    int64_t a = cnt[s + 1] - cnt[s];
    if (a == 0) continue;
    bf_ptile *t = pc->slots[s];
    (void)bf_ptile_resize_raw(t, oldn[s] + a); /* reserved above; every new element is written below */
    bf_pplace *pl = &places[np++];
    memset(pl, 0, sizeof *pl);
    pl->n = a, pl->idx = idx + cnt[s], pl->pstride = 1, pl->istride = 1;
    for (int d = 0; d < dim; ++d)
      pl->pos[d] = (double *)bf_podvec_data(bf_ptile_real(t, d)) + oldn[s];
    pl->idcpu = (uint64_t *)bf_podvec_data(bf_ptile_idcpu(t)) + oldn[s];
    /* every other component gets its constant (run-time ones 0): the tile grew without a fill */
    static const double zero_d = 0.0;
    static const int32_t zero_i = 0;
    for (int c = dim; c < nr; ++c)
      ops[m++] = (bf_pcopy){.dst = (double *)bf_podvec_data(bf_ptile_real(t, c)) + oldn[s],
                            .value = c < pc->layout.nar && init && init->real_array ? &init->real_array[c] : &zero_d,
                            .elem = 8,
                            .n = a};
    for (int c = 0; c < ni; ++c)
      ops[m++] = (bf_pcopy){.dst = (int32_t *)bf_podvec_data(bf_ptile_int(t, c)) + oldn[s],
                            .value = c < pc->layout.nai && init && init->int_array ? &init->int_array[c] : &zero_i,
                            .elem = 4,
                            .n = a};
    if (multi) /* the ids of random_idcpus replace those p_random_place writes (same kernel order: after it) */
      ops[m++] = (bf_pcopy){.dst = pl->idcpu, .src = vals + cnt[s], .elem = 8, .n = a};
  }
  if (!st && np > 0) st = K->p_random_place(r, v0, np, places);
  free(places);
  PT_MARK("place");
  if (!st && m > 0) st = K->p_copy(m, ops);
  PT_MARK("fill");
  if (st) /* a kernel failed: new tiles go, the others shrink back (their raw tails hold no particles) */
    for (int64_t s = 0; s < ns; ++s) {
      if (created && created[s]) bf_ptile_destroy(&pc->slots[s]);
      else if (cnt && oldn && pc->slots[s] && cnt[s + 1] > cnt[s] && bf_ptile_size(pc->slots[s]) > oldn[s])
        (void)bf_ptile_resize_raw(pc->slots[s], oldn[s]);
    }
  free(ops), free(oldn), free(created), free(cnt), free(ids);
  if (vals) bf_arena_free(dest_arena, vals, (size_t)(cnt_kept > 0 ? cnt_kept : 1) * sizeof *vals);
  if (idx) bf_arena_free(dest_arena, idx, (size_t)n * sizeof *idx);
  if (dest) bf_arena_free(dest_arena, dest, (size_t)n * sizeof *dest);
  return st;
}

int bf_pc_init_random(bf_pc *pc, int64_t count, uint64_t seed, const bf_pinit *init, bool serialize,
                      const bf_realbox *box) {
  BF_CALL(check_defined(pc, "init_random"));
  BF_CHECK(count >= 0, BF_ERROR_VALUE, "init_random: the number of particles must be >= 0, got %lld", (long long)count);
  BF_CHECK(count <= (int64_t)1 << 40, BF_ERROR_OVERFLOW, "init_random: %lld particles are too many", (long long)count);
  BF_CHECK(seed > 0, BF_ERROR_VALUE, "init_random: the seed must be > 0");
  if (bf_pc_needs_mirror(pc)) BF_PC_MIRRORED(pc, true, bf_pc_init_random(h_, count, seed, init, serialize, box));
  int dim = pc->layout.dim;
  const bf_geometry *g = &pc->lev[0].geom;
  bf_prandom r;
  prandom_level0(pc, &r);
  r.seed = seed;
  r.first = 0;
  if (!box || !bf_realbox_ok(box)) {
    for (int d = 0; d < dim; ++d)
      r.lo[d] = g->prob_domain.lo[d], r.hi[d] = g->prob_domain.hi[d];
  } else {
    BF_CHECK(box->dim == dim, BF_ERROR_TYPE, "init_random: a RealBox of dimension %d for particles of dimension %d",
             box->dim, dim);
    for (int d = 0; d < dim; ++d) {
      BF_CHECK(box->lo[d] >= g->prob_domain.lo[d] && box->hi[d] <= g->prob_domain.hi[d], BF_ERROR_VALUE,
               "init_random: the RealBox [%g, %g] in direction %d does not lie inside the problem domain [%g, %g]",
               box->lo[d], box->hi[d], d, g->prob_domain.lo[d], g->prob_domain.hi[d]);
      r.lo[d] = box->lo[d], r.hi[d] = box->hi[d];
    }
  }
  if (pc->layout.pure_soa) return init_random_soa(pc, count, &r, init, serialize);
  staged S;
  BF_CALL(alloc_pos(dim, count, &S));
  int st = count > 0 ? bf_backend_get()->particles.p_random(&r, count, S.pos) : BF_SUCCESS;
  if (!st) st = add_generated(pc, &S, init, "init_random", serialize ? GEN_RANDOM_SERIAL : GEN_RANDOM);
  free_pos(dim, &S);
  return st;
}

int bf_pc_init_random_per_box(bf_pc *pc, int64_t count_per_box, uint64_t seed, const bf_pinit *init) {
  BF_CALL(check_defined(pc, "init_random_per_box"));
  BF_CHECK(count_per_box >= 0, BF_ERROR_VALUE, "init_random_per_box: the number of particles must be >= 0, got %lld",
           (long long)count_per_box);
  BF_CHECK(seed > 0, BF_ERROR_VALUE, "init_random_per_box: the seed must be > 0");
  if (bf_pc_needs_mirror(pc)) BF_PC_MIRRORED(pc, true, bf_pc_init_random_per_box(h_, count_per_box, seed, init));
  const pc_level *L = &pc->lev[0];
  int64_t total;
  BF_CHECK(bf_i64_mul(count_per_box, L->ngrids, &total) && total <= (int64_t)1 << 40, BF_ERROR_OVERFLOW,
           "init_random_per_box: too many particles");
  /* each process fills its own boxes (AMReX); the positions of box gi are the same on any number of
   * processes (counters gi * count_per_box + k); the ids come from this process's counter */
  int64_t nown = 0;
  for (int64_t gi = 0; gi < L->ngrids; ++gi)
    nown += L->grids[gi].slot >= 0 && L->grids[gi].slot < pc->nslots;
  total = nown * count_per_box;
  int dim = pc->layout.dim;
  staged S;
  int st = alloc_pos(dim, total, &S);
  if (st) return bf_pc_exchange_outbox(pc, 0, pc->nlev - 1, true);
  const bf_geometry *g = &L->geom;
  int64_t at = 0;
  for (int64_t gi = 0; gi < L->ngrids && !st && count_per_box > 0; ++gi) {
    if (!(L->grids[gi].slot >= 0 && L->grids[gi].slot < pc->nslots)) continue;
    bf_prandom r;
    prandom_level0(pc, &r);
    r.seed = seed;
    r.first = gi * count_per_box;
    for (int d = 0; d < dim; ++d) {
      r.clo[d] = L->grids[gi].lo[d], r.chi[d] = L->grids[gi].hi[d];
      r.lo[d] = g->prob_domain.lo[d] + (double)(L->grids[gi].lo[d] - g->domain.lo[d]) * g->dx[d];
      r.hi[d] = g->prob_domain.lo[d] + (double)(L->grids[gi].hi[d] + 1 - g->domain.lo[d]) * g->dx[d];
    }
    double *p[3] = {S.pos[0] + at, dim > 1 ? S.pos[1] + at : NULL, dim > 2 ? S.pos[2] + at : NULL};
    st = bf_backend_get()->particles.p_random(&r, count_per_box, p);
    at += count_per_box;
  }
  if (!st) st = add_generated(pc, &S, init, "init_random_per_box", GEN_OWN);
  free_pos(dim, &S);
  /* particles of finer levels' grids on other processes */
  return bf_pc_exchange_outbox(pc, 0, pc->nlev - 1, st != BF_SUCCESS);
}

int bf_pc_init_one_per_cell(bf_pc *pc, const double *off, const bf_pinit *init) {
  BF_CALL(check_defined(pc, "init_one_per_cell"));
  int dim = pc->layout.dim;
  BF_CHECK(off != NULL, BF_ERROR_VALUE, "NULL offsets");
  for (int d = 0; d < dim; ++d)
    BF_CHECK(off[d] >= 0 && off[d] < 1, BF_ERROR_VALUE, "init_one_per_cell: offset %g in direction %d not in [0, 1)",
             off[d], d);
  if (bf_pc_needs_mirror(pc)) BF_PC_MIRRORED(pc, true, bf_pc_init_one_per_cell(h_, off, init));
  const pc_level *L = &pc->lev[0];
  const bf_geometry *g = &L->geom;
  int64_t total = 0;
  int64_t *start = malloc((size_t)(L->ngrids + 1) * sizeof *start);
  BF_CHECK(start != NULL, BF_ERROR_MEMORY, "out of memory");
  /* each process fills its own boxes (AMReX) */
  for (int64_t gi = 0; gi < L->ngrids; ++gi) {
    int64_t c = 1;
    for (int d = 0; d < dim; ++d)
      c *= (int64_t)L->grids[gi].hi[d] - L->grids[gi].lo[d] + 1;
    if (!(L->grids[gi].slot >= 0 && L->grids[gi].slot < pc->nslots)) c = 0;
    start[gi] = total;
    total += c;
  }
  start[L->ngrids] = total;
  staged S;
  int st = alloc_pos(dim, total, &S);
  if (st) {
    free(start);
    return bf_pc_exchange_outbox(pc, 0, pc->nlev - 1, true);
  }
#pragma omp parallel for schedule(dynamic, 1) if (total > BF_PARTICLE_PARALLEL_MIN)
  for (int64_t gi = 0; gi < L->ngrids; ++gi) {
    const bf_ploc_grid *G = &L->grids[gi];
    if (start[gi + 1] == start[gi]) continue;
    int64_t m = start[gi];
    for (int k = G->lo[2]; k <= G->hi[2]; ++k)
      for (int j = G->lo[1]; j <= G->hi[1]; ++j)
        for (int i = G->lo[0]; i <= G->hi[0]; ++i, ++m) {
          int iv[3] = {i, j, k};
          for (int d = 0; d < dim; ++d)
            S.pos[d][m] = g->prob_domain.lo[d] + ((double)(iv[d] - g->domain.lo[d]) + off[d]) * g->dx[d];
        }
  }
  free(start);
  st = add_generated(pc, &S, init, "init_one_per_cell", GEN_OWN);
  free_pos(dim, &S);
  return bf_pc_exchange_outbox(pc, 0, pc->nlev - 1, st != BF_SUCCESS);
}

static int add_columns_local(bf_pc *pc, int lev, const bf_pcolumns *cols, bool redistribute);

int bf_pc_add_columns(bf_pc *pc, int lev, const bf_pcolumns *cols, bool redistribute) {
  BF_CALL(check_defined(pc, "add_particles"));
  BF_CHECK(cols != NULL, BF_ERROR_VALUE, "NULL columns");
  BF_CHECK(lev >= 0 && lev < pc->nlev, BF_ERROR_INDEX, "level %d out of range (finest level %d)", lev, pc->nlev - 1);
  BF_CHECK(cols->n >= 0, BF_ERROR_VALUE, "the number of particles must be >= 0, got %lld", (long long)cols->n);
  BF_CHECK(!cols->device, BF_ERROR_VALUE,
           "add_particles: the C API takes columns in host memory (bf_pcolumns.device must be false); the "
           "Python method copies device arrays to the host first");
  if (bf_pc_needs_mirror(pc)) BF_PC_MIRRORED(pc, true, bf_pc_add_columns(h_, lev, cols, redistribute));
  int st = add_columns_local(pc, lev, cols, redistribute);
  /* several processes: with redistribute, the particles of other processes' grids wait in the outbox:
   * send them now (collective; an error on any process is an error on all) */
  if (redistribute && bf_comm_size(bf_pc_comm(pc)) > 1) st = bf_pc_exchange_outbox(pc, lev, lev, st != BF_SUCCESS);
  return st;
}

static int add_columns_local(bf_pc *pc, int lev, const bf_pcolumns *cols, bool redistribute) {
  int dim = pc->layout.dim;
  int64_t n = cols->n;
  if (n == 0) return BF_SUCCESS;
  for (int d = 0; d < dim; ++d)
    BF_CHECK(cols->pos[d] != NULL, BF_ERROR_VALUE, "position column %d is missing", d);
  for (int64_t i = 0; i < n; ++i)
    for (int d = 0; d < dim; ++d)
      BF_CHECK(isfinite(cols->pos[d][i]), BF_ERROR_VALUE, "particle %lld: position %d is %g (must be finite)",
               (long long)i, d, cols->pos[d][i]);
  if (cols->ids)
    for (int64_t i = 0; i < n; ++i)
      BF_CHECK(cols->ids[i] >= 1 && cols->ids[i] <= BF_IDCPU_MAX_ID, BF_ERROR_VALUE,
               "particle %lld: id %lld outside [1, %lld]", (long long)i, (long long)cols->ids[i],
               (long long)BF_IDCPU_MAX_ID);
  BF_CHECK(!cols->idcpu || (!cols->ids && !cols->cpus), BF_ERROR_VALUE,
           "add_particles: give the particle ids either packed (idcpu) or as ids and cpus, not both");
  if (cols->idcpu)
    for (int64_t i = 0; i < n; ++i)
      BF_CHECK(cols->idcpu[i] >> 63, BF_ERROR_VALUE,
               "particle %lld: idcpu %llu is not a valid particle id (bit 63 clear: an invalid particle; see "
               "make_valid and pack_ids)",
               (long long)i, (unsigned long long)cols->idcpu[i]);
  if (cols->cpus)
    for (int64_t i = 0; i < n; ++i)
      BF_CHECK(cols->cpus[i] >= 0 && cols->cpus[i] <= BF_IDCPU_MAX_CPU, BF_ERROR_VALUE,
               "particle %lld: cpu %d outside [0, %d]", (long long)i, (int)cols->cpus[i], (int)BF_IDCPU_MAX_CPU);
  const pc_level *L = &pc->lev[lev];
  staged S;
  BF_CALL(alloc_pos(dim, n, &S));
  for (int d = 0; d < dim; ++d)
    memcpy(S.pos[d], cols->pos[d], (size_t)n * sizeof(double));
  int st = BF_SUCCESS;
  int32_t *dest = malloc((size_t)n * sizeof *dest);
  uint64_t *idcpu = malloc((size_t)n * sizeof *idcpu);
  const double **real = NULL;
  if (!dest || !idcpu) st = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory for %lld particles", (long long)n);
  if (!st) {
    if (redistribute) {
      st = locate_staged(pc, lev, lev, &S, dest, "add_particles");
    } else {
      /* the first tile of the level, or the outbox on a process without grids there */
      for (int64_t i = 0; i < n; ++i)
        dest[i] = (int32_t)(L->nslots > 0 ? L->base : pc->nslots);
    }
  }
  if (!st) {
    if (cols->idcpu) {
      memcpy(idcpu, cols->idcpu, (size_t)n * sizeof *idcpu);
    } else if (cols->ids) {
      int me = bf_parallel_myproc();
      for (int64_t i = 0; i < n && !st; ++i)
        st = bf_idcpu_pack(cols->ids[i], cols->cpus ? cols->cpus[i] : me, &idcpu[i]);
    } else {
      st = new_idcpus(pc, n, idcpu);
      if (!st && cols->cpus)
        for (int64_t i = 0; i < n; ++i)
          idcpu[i] = (idcpu[i] & ~(uint64_t)0xFFFFFF) | (uint64_t)cols->cpus[i];
    }
  }
  if (!st) {
    /* real columns: cols->real lists the SoA reals after the positions (pure SoA) or all of them (legacy) */
    int nr = bf_pc_num_real_comps(pc);
    real = calloc((size_t)nr + 1, sizeof *real);
    if (!real) st = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory");
    int skip = pc->layout.pure_soa ? dim : 0;
    for (int c = skip; !st && c < nr; ++c)
      real[c] = cols->real ? cols->real[c - skip] : NULL;
  }
  if (!st) {
    S.idcpu = idcpu;
    S.real = real;
    S.ints = cols->ints;
    S.sreal = cols->real_struct;
    S.sint = cols->int_struct;
    st = insert_staged(pc, &S, dest);
  }
  free(real), free(dest), free(idcpu);
  free_pos(dim, &S);
  return st;
}

/* ---- sorting ------------------------------------------------------------------------------------- */

typedef struct keyed {
  int64_t key, idx;
} keyed;

static int cmp_keyed(const void *a, const void *b) {
  const keyed *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int sort_tiles(bf_pc *pc, const bf_intvect *bin) {
  BF_CALL(bf_pc_check(pc));
  int dim = pc->layout.dim;
  if (bin) {
    BF_CHECK(bin->dim == dim, BF_ERROR_TYPE, "bin size of dimension %d for particles of dimension %d", bin->dim, dim);
    for (int d = 0; d < dim; ++d)
      BF_CHECK(bin->v[d] >= 1, BF_ERROR_VALUE, "bin size must be >= 1, got %d in direction %d", bin->v[d], d);
  }
  if (bf_pc_needs_host(pc)) BF_PC_MIRRORED(pc, true, sort_tiles(h_, bin));
  const bf_backend_particles *K = bf_pc_kernels(pc);
  if (!K) return bf_error_code();
  for (int l = 0; l < pc->nlev; ++l) {
    const pc_level *L = &pc->lev[l];
    for (int64_t s = 0; s < L->nslots; ++s) {
      bf_ptile *t = pc->slots[L->base + s];
      if (!t || bf_ptile_size(t) < 2) continue;
      BF_CALL(bf_ptile_check_consistent(t));
      const bf_ploc_grid *G = &L->grids[L->slot_grid[s]];
      bf_ppart part;
      bf_pc_tile_part(pc, t, &part);
      int64_t n = part.n;
      keyed *k = malloc((size_t)n * sizeof *k);
      int64_t *perm = malloc((size_t)n * sizeof *perm);
      bf_podvec *vecs[MAXVECS];
      int nv = bf_pc_tile_vecs(t, vecs, MAXVECS);
      size_t maxe = 0;
      for (int v = 0; v < nv; ++v)
        if (bf_podvec_elem_size(vecs[v]) > maxe) maxe = bf_podvec_elem_size(vecs[v]);
      void *tmp = NULL;
      int st = (k && perm) ? bf_arena_alloc(pc->arena, (size_t)n * maxe, &tmp) : BF_ERROR_MEMORY;
      if (st) {
        free(k), free(perm);
        return st == BF_ERROR_MEMORY && !tmp ? bf_error_set(st, __func__, "out of memory sorting particles") : st;
      }
      int64_t ext[3] = {1, 1, 1};
      for (int d = 0; d < dim; ++d) {
        int b = bin ? bin->v[d] : 1;
        ext[d] = ((int64_t)G->hi[d] - G->lo[d]) / b + 1;
      }
      for (int64_t i = 0; i < n; ++i) {
        int64_t key = 0, mul = 1;
        for (int d = 0; d < dim; ++d) {
          /* NaN and infinities clamp (cell_of), never an undefined conversion */
          int64_t c = cell_of(part.pos[d][i * part.pstride], L->loc.plo[d], L->loc.dxi[d], L->loc.dlo[d]);
          c -= G->lo[d];
          if (c < 0) c = 0;
          if (c > (int64_t)G->hi[d] - G->lo[d]) c = (int64_t)G->hi[d] - G->lo[d];
          c /= bin ? bin->v[d] : 1;
          key += c * mul;
          mul *= ext[d];
        }
        k[i] = (keyed){key, i};
      }
      qsort(k, (size_t)n, sizeof *k, cmp_keyed);
      bool sorted = true;
      for (int64_t i = 0; i < n; ++i) {
        perm[i] = k[i].idx;
        sorted = sorted && perm[i] == i;
      }
      free(k);
      for (int v = 0; v < nv && !sorted && !st; ++v) {
        size_t e = bf_podvec_elem_size(vecs[v]);
        bf_pcopy op = {.dst = tmp, .src = bf_podvec_data(vecs[v]), .elem = e, .n = n, .sidx = perm};
        st = K->p_copy(1, &op);
        bf_pcopy back = {.dst = bf_podvec_data(vecs[v]), .src = tmp, .elem = e, .n = n};
        if (!st) st = K->p_copy(1, &back);
      }
      bf_arena_free(pc->arena, tmp, (size_t)n * maxe);
      free(perm);
      BF_CALL(st);
    }
  }
  return BF_SUCCESS;
}

int bf_pc_sort_by_cell(bf_pc *pc) { return sort_tiles(pc, NULL); }
int bf_pc_sort_by_bin(bf_pc *pc, const bf_intvect *bin_size) {
  BF_CHECK(bin_size != NULL, BF_ERROR_VALUE, "NULL bin size");
  return sort_tiles(pc, bin_size);
}

/* ---- particles per cell -------------------------------------------------------------------------- */

int bf_pc_increment(const bf_pc *pc, bf_multifab *mf, int lev) {
  BF_CALL(bf_pc_check(pc));
  BF_CALL(bf_multifab_check(mf));
  BF_CHECK(lev >= 0 && lev < pc->nlev, BF_ERROR_INDEX, "level %d out of range (finest level %d)", lev, pc->nlev - 1);
  const pc_level *L = &pc->lev[lev];
  BF_CHECK(bf_boxarray_cell_equal(bf_multifab_boxarray(mf), L->ba) && bf_multifab_is_all_cell_centered(mf),
           BF_ERROR_VALUE, "increment: the MultiFab must be cell-centred on the BoxArray of level %d", lev);
  BF_CHECK(bf_multifab_dtype(mf) == 0, BF_ERROR_TYPE, "increment: the MultiFab must hold doubles");
  BF_CHECK(!bf_multifab_arena(mf) || bf_arena_is_host_accessible(bf_multifab_arena(mf)), BF_ERROR_VALUE,
           "increment: the MultiFab's memory must be host-accessible (no CUDA kernel yet)");
  if (bf_pc_needs_host(pc)) BF_PC_MIRRORED(pc, false, bf_pc_increment(h_, mf, lev));
  const bf_backend_particles *K = bf_pc_kernels(pc);
  if (!K) return bf_error_code();
  int dim = pc->layout.dim;
  for (int64_t s = 0; s < L->nslots; ++s) {
    bf_ptile *t = pc->slots[L->base + s];
    if (!t || bf_ptile_size(t) == 0) continue;
    int64_t li = bf_multifab_local_index(mf, L->slot_grid[s]);
    if (li < 0) continue;
    bf_mf_fab fab;
    BF_CALL(bf_multifab_local_fab(mf, li, &fab));
    bf_ppart part;
    bf_pc_tile_part(pc, t, &part);
    double *data = fab.data;
    for (int64_t i = 0; i < part.n; ++i) {
      int64_t off = 0;
      bool in = true;
      for (int d = 0; d < dim && in; ++d) {
        int64_t c = cell_of(part.pos[d][i * part.pstride], L->loc.plo[d], L->loc.dxi[d], L->loc.dlo[d]);
        if (c < fab.validbox.lo[d] || c > fab.validbox.hi[d]) in = false;
        int64_t stride = d == 0 ? 1 : fab.stride[d - 1];
        if (in) off += (c - fab.fabbox.lo[d]) * stride;
      }
      if (in) data[off] += 1.0;
    }
  }
  return BF_SUCCESS;
}
