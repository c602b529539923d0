/* The particle container: locating, redistributing, inserting, checking,
 * sorting, counting per cell (see include/boxfab/particles.h).
 *
 * Redistribute, in phases (all allocations before the first change, so an
 * error leaves the container as it was):
 *   1. locate (backend p_locate): a dest code per particle of every tile of
 *      the levels in range;
 *   2. per tile: stays (dest = own slot), movers, runs of stays (host, O(n));
 *      movers ordered by destination, stably (counting sort);
 *   3. destination tiles made and reserved; staging buffers for the movers;
 *   4. positions wrapped (p_wrap), movers gathered to the staging buffers,
 *      stays compacted in place (runs), tiles resized, arrivals appended
 *      (p_copy, three batches);
 *   5. empty tiles of the range dropped.
 * With a device backend (bf_pc_use_plan) redistribute_device runs instead:
 * locate and sort by destination on the device, tiles sized from the counts,
 * one move on the device (same result). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "boxfab/gpu.h"
#include "boxfab/idcpu.h"
#include "boxfab/runtime.h"
#include "runtime/comm.h"
#include "particles/impl.h"
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

void bf_pc_locator(const bf_pc *pc, int lev_min, int lev_max, int ngrow, bool remove_negative, bf_ploc_level *levs,
                   bf_plocate *loc) {
  memset(loc, 0, sizeof *loc);
  int dim = pc->layout.dim;
  loc->dim = dim;
  loc->lev_min = lev_min, loc->lev_max = lev_max, loc->ngrow = ngrow;
  for (int l = 0; l <= lev_max; ++l)
    levs[l] = pc->lev[l].loc;
  loc->levels = levs;
  const bf_geometry *g0 = &pc->lev[0].geom;
  for (int d = 0; d < dim; ++d) {
    loc->plo[d] = g0->prob_domain.lo[d];
    loc->phi[d] = g0->prob_domain.hi[d];
    loc->rlo[d] = g0->roundoff_lo[d];
    loc->rhi[d] = g0->roundoff_hi[d];
    loc->is_per[d] = g0->is_periodic[d];
  }
  loc->remove_negative = remove_negative;
}

static int level_range(const bf_pc *pc, int lev_min, int *lev_max) {
  if (*lev_max == -1) *lev_max = pc->nlev - 1;
  BF_CHECK(lev_min >= 0 && lev_min < pc->nlev, BF_ERROR_INDEX, "lev_min %d out of range (finest level %d)", lev_min,
           pc->nlev - 1);
  BF_CHECK(*lev_max >= lev_min && *lev_max < pc->nlev, BF_ERROR_INDEX,
           "lev_max %d out of range [lev_min = %d, finest level %d] (-1: the finest)", *lev_max, lev_min, pc->nlev - 1);
  return BF_SUCCESS;
}

/* Per source tile bookkeeping. */
typedef struct src_tile {
  bf_ptile *tile;
  int64_t slot; /* -1: the outbox */
  int64_t n;
  int64_t nstay, nmove, nruns, nwrap;
  int64_t nbad, bad_i; /* refused particles (BF_PDEST_REFUSED), the first of them */
  int32_t bad_code;
  int64_t moff; /* first mover in the mover arrays */
  int64_t woff; /* first entry in the wrap list */
  int64_t roff; /* first run in the run array */
  int32_t *dest;
} src_tile;

typedef struct dst_info {
  int64_t narr, aoff; /* arrivals and their first staged position */
  int64_t final;      /* final size */
  bool touched, created;
} dst_info;

static void *xmalloc(size_t n) { return malloc(n ? n : 1); }

/* Per-tile passes of the device path: in parallel above this many tiles (a pass chases the pointers of
 * tiles x vectors: about a millisecond for 4096 tiles x 9 vectors on one thread); dynamic chunks, so
 * that a thread the system descheduled holds back one chunk only. */
#define PAR_TILES 256
#define PAR_CHUNK 64

/* The error of the first refused particle (BF_PDEST_REFUSED) of parts[0..nparts) (tiles of slots pslot):
 * the locator run again with its codes in host-readable memory. */
static int first_refused(const bf_pc *pc, const bf_backend_particles *K, const bf_plocate *loc, int64_t nparts,
                         bf_ppart *parts, const int32_t *pslot, int lev_min, int lev_max) {
  int64_t ntot = 0;
  for (int64_t k = 0; k < nparts; ++k)
    ntot += parts[k].n;
  bf_arena *da = bf_pc_dest_arena(pc);
  int32_t *dest = NULL;
  BF_CALL(bf_arena_alloc(da, (size_t)(ntot > 0 ? ntot : 1) * sizeof *dest, (void **)&dest));
  int64_t off = 0;
  for (int64_t k = 0; k < nparts; ++k) {
    parts[k].dest = dest + off;
    off += parts[k].n;
  }
  int st = K->p_locate(loc, nparts, parts);
  if (!st && bf_backend_have_gpu()) st = bf_gpu_synchronize();
  for (int64_t k = 0; !st && k < nparts; ++k) {
    for (int64_t i = 0; i < parts[k].n; ++i)
      if (BF_PDEST_REFUSED(parts[k].dest[i])) {
        st = bf_pc_refused_error(pc, pslot[k], pc->slots[pslot[k]], i, parts[k].dest[i], lev_min, lev_max,
                                 "redistribute", "nothing was moved");
        break;
      }
    parts[k].dest = NULL;
  }
  bf_arena_free(da, dest, (size_t)(ntot > 0 ? ntot : 1) * sizeof *dest);
  if (!st) st = bf_error_set(BF_ERROR_VALUE, __func__, "redistribute: a particle was refused; nothing was moved");
  return st;
}

/* Redistribute resident on the device (the backend's p_redist_sort / p_redist_move): the dest codes
 * and the order never leave the device; the host sees the particles per (tile, stay / arrive) to size
 * the tiles.  Same tiles, order and bytes as the host path.  Two passes over the tiles' vectors: one
 * reads (sizes, capacities, data pointers) before the sort, one writes the new sizes.  *taken false:
 * not applicable (no particle, or too many for 32-bit indices), nothing done, take the host path. */
static int redistribute_device(bf_pc *pc, const bf_backend_particles *K, int lev_min, int lev_max, int ngrow,
                               bool remove_negative, int64_t s0, int64_t s1, bool *taken) {
  double pt_last = pt_now();
  int64_t nsr = s1 - s0;
  int st = BF_SUCCESS;
  void *plan = NULL;
  *taken = false;
  size_t *elem = malloc(MAXVECS * sizeof *elem);
  int64_t *tn = calloc((size_t)nsr + 1, sizeof *tn);     /* particles of each tile of the range */
  int64_t *mincap = calloc((size_t)nsr + 1, sizeof *mincap); /* the least capacity of its vectors */
  int64_t *kof = calloc((size_t)nsr + 1, sizeof *kof);   /* its part number (sources) */
  char *flag = calloc((size_t)nsr + 1, 1);
  int64_t *counts = xmalloc((size_t)(2 * nsr + 3) * sizeof *counts);
  bf_ppart *tparts = xmalloc((size_t)nsr * sizeof *tparts); /* per tile of the range */
  bf_ppart *parts = xmalloc((size_t)nsr * sizeof *parts);   /* per source */
  int32_t *pslot = xmalloc((size_t)nsr * sizeof *pslot);
  void **srcp = NULL, **rows = NULL;
  bf_pvecs pv;
  if (!elem || !tn || !mincap || !kof || !flag || !counts || !tparts || !parts || !pslot) {
    st = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory");
    goto done;
  }
  bf_pc_pvecs(pc, elem, &pv);
  const int nv = pv.nvec;
  srcp = xmalloc((size_t)nsr * (size_t)nv * sizeof *srcp);
  rows = calloc((size_t)nsr * (size_t)nv + 1, sizeof *rows); /* data pointers of every tile's vectors */
  if (!srcp || !rows) {
    st = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory");
    goto done;
  }
  /* the read pass (an error message is thread-local: found again on this thread below) */
#pragma omp parallel for schedule(dynamic, PAR_CHUNK) if (nsr > PAR_TILES)
  for (int64_t t = 0; t < nsr; ++t) {
    bf_ptile *tile = pc->slots[s0 + t];
    mincap[t] = -1;
    if (!tile) continue;
    tn[t] = bf_ptile_size(tile);
    flag[t] = tn[t] > 0 && bf_ptile_check_consistent(tile) != BF_SUCCESS;
    bf_podvec *vecs[MAXVECS];
    int n = bf_pc_tile_vecs(tile, vecs, MAXVECS);
    int64_t mc = INT64_MAX;
    for (int v = 0; v < n; ++v) {
      int64_t c = bf_podvec_capacity(vecs[v]);
      mc = c < mc ? c : mc;
      rows[t * nv + v] = bf_podvec_data(vecs[v]);
    }
    mincap[t] = mc;
    if (tn[t] > 0) {
      bf_pc_tile_part(pc, tile, &tparts[t]);
      bf_pc_part_shortcut(pc, s0 + t, lev_max, &tparts[t]);
    }
  }
  int64_t nsrc = 0, ntot = 0;
  for (int64_t t = 0; t < nsr; ++t) {
    if (flag[t]) {
      st = bf_ptile_check_consistent(pc->slots[s0 + t]);
      goto done;
    }
    if (tn[t] == 0) continue;
    kof[t] = nsrc;
    parts[nsrc] = tparts[t];
    pslot[nsrc] = (int32_t)(s0 + t);
    ++nsrc;
    ntot += tn[t];
  }
  if (nsrc == 0 || ntot > INT32_MAX) goto done; /* not taken */
  *taken = true;
  bf_ploc_level levs[BF_PC_MAX_LEVELS];
  bf_plocate loc;
  bf_pc_locator(pc, lev_min, lev_max, ngrow, remove_negative, levs, &loc);
  PT_MARK("setup");
  if ((st = K->p_redist_sort(&loc, nsrc, parts, pslot, s0, nsr, &pv, counts, &plan)) != BF_SUCCESS) goto done;
  PT_MARK("locate+sort");
  if (counts[2 * nsr + 2] > 0) {
    /* refused particles (a position that is not finite, or in no grid): nothing has moved yet (the sort
     * only read); the codes again, where the host reads them, to name the first */
    st = first_refused(pc, K, &loc, nsrc, parts, pslot, lev_min, lev_max);
    goto done;
  }
  if (counts[2 * nsr + 1] > 0) {
    st = bf_error_set(BF_ERROR_VALUE, __func__,
                      "a particle belongs to a grid of another process (the device path runs on one process only)");
    goto done;
  }
  /* destination tiles made and reserved where they lack room (all before the first change) */
  for (int64_t t = 0; t < nsr; ++t) {
    int64_t fin = counts[2 * t] + counts[2 * t + 1];
    if (fin <= mincap[t] || (fin == 0 && mincap[t] < 0)) continue;
    int64_t s = s0 + t;
    if (!pc->slots[s]) {
      if ((st = bf_pc_new_tile(pc, &pc->slots[s])) != BF_SUCCESS) goto done;
      flag[t] = 2; /* made here */
    }
    /* geometric growth, as a vector's push_back: repeated arrivals do not move the tile each time */
    int64_t cap = bf_ptile_capacity(pc->slots[s]), want = fin;
    if (want > cap && want < cap + cap / 2) want = cap + cap / 2;
    if ((st = bf_ptile_reserve(pc->slots[s], want)) != BF_SUCCESS) goto done;
    bf_podvec *vecs[MAXVECS];
    int n = bf_pc_tile_vecs(pc->slots[s], vecs, MAXVECS);
    for (int v = 0; v < n; ++v) /* moved: fresh pointers */
      rows[t * nv + v] = bf_podvec_data(vecs[v]);
  }
  for (int64_t t = 0; t < nsr; ++t)
    if (tn[t] > 0) memcpy(&srcp[kof[t] * nv], &rows[t * nv], (size_t)nv * sizeof *rows);
  PT_MARK("reserve");
  /* ---- no failure past this point but the device's ----
   * the write pass: new sizes (raw: the move writes every element below them; buffers do not move) */
#pragma omp parallel for schedule(dynamic, PAR_CHUNK) if (nsr > PAR_TILES)
  for (int64_t t = 0; t < nsr; ++t) {
    bf_ptile *tile = pc->slots[s0 + t];
    if (!tile) continue;
    (void)bf_ptile_resize_raw(tile, counts[2 * t] + counts[2 * t + 1]);
    if (bf_ptile_num_neighbors(tile) != 0) (void)bf_ptile_set_num_neighbors(tile, 0);
  }
  PT_MARK("resize");
  st = K->p_redist_move(plan, &loc, &pv, srcp, rows);
  PT_MARK("move");
  if (st) {
    /* the device failed while the tiles were being rewritten: what they hold is not known, so the
     * range's tiles are emptied and the message says so */
    char msg[512];
    snprintf(msg, sizeof msg, "%s", bf_error_message());
    for (int64_t s = s0; s < s1; ++s)
      if (pc->slots[s]) bf_ptile_destroy(&pc->slots[s]);
    st = bf_error_set(st, __func__,
                      "redistribute: moving the particles on the device failed (%s); the particles of the levels "
                      "redistributed are lost",
                      msg);
    goto done;
  }
  for (int64_t t = 0; t < nsr; ++t) /* empty tiles of the range go */
    if (counts[2 * t] + counts[2 * t + 1] == 0 && pc->slots[s0 + t]) bf_ptile_destroy(&pc->slots[s0 + t]);
  PT_MARK("drop");
done:
  if (st != BF_SUCCESS && flag && *taken)
    for (int64_t t = 0; t < nsr; ++t)
      if (flag[t] == 2) bf_ptile_destroy(&pc->slots[s0 + t]);
  if (plan) K->p_plan_free(plan);
  free(rows), free(srcp), free(pslot), free(parts), free(tparts), free(counts), free(flag), free(kof), free(mincap),
      free(tn), free(elem);
  return st;
}

/* The redistribute of the container (see bf_pc_redistribute and, for MPI,
 * the comment at the top of the file).  Sources: the non-empty tiles of
 * levels [lev_min, lev_max] (none when outbox_only), then the outbox.
 * Destinations: the local slots [0, NS), then one per process (NS + rank):
 * the particles leaving for that process, staged contiguously in source
 * order.  `failed`: this process failed before (the message is set); every
 * process then returns an error and nothing moves. */
static int redistribute(bf_pc *pc, int lev_min, int lev_max, int ngrow, bool remove_negative, bool outbox_only,
                        bool failed) {
  const bf_comm *comm = bf_pc_comm(pc);
  const int np = bf_comm_size(comm), me = bf_comm_rank(comm);
  const bool mpi = np > 1;
  const int64_t NS = pc->nslots, ND = NS + np;
  int st = failed ? (bf_error_code() ? bf_error_code() : BF_ERROR_RUNTIME) : BF_SUCCESS;
  double pt_last = pt_now();

  int64_t s0 = pc->lev[lev_min].base, s1 = pc->lev[lev_max].base + pc->lev[lev_max].nslots;
  if (outbox_only) s0 = s1 = 0;
  bf_ptile *outbox = pc->outbox && bf_ptile_size(pc->outbox) > 0 ? pc->outbox : NULL;
  int64_t nsrc = 0, ntot = 0;
  for (int64_t s = s0; s < s1 && !st; ++s)
    if (pc->slots[s] && bf_ptile_size(pc->slots[s]) > 0) {
      st = bf_ptile_check_consistent(pc->slots[s]);
      ++nsrc, ntot += bf_ptile_size(pc->slots[s]);
    }
  if (!st && outbox) {
    st = bf_ptile_check_consistent(outbox);
    ++nsrc, ntot += bf_ptile_size(outbox);
  }
  const bf_backend_particles *K = NULL;
  if (!st && !(K = bf_pc_kernels(pc))) st = bf_error_code();

  src_tile *src = xmalloc((size_t)nsrc * sizeof *src);
  bf_ppart *parts = xmalloc((size_t)nsrc * sizeof *parts);
  /* dest codes: pinned memory when the kernels run on the device (they write it directly) */
  bf_arena *dest_arena = bf_pc_dest_arena(pc);
  int32_t *dest = NULL;
  if (bf_arena_alloc(dest_arena, (size_t)(ntot > 0 ? ntot : 1) * sizeof *dest, (void **)&dest) != BF_SUCCESS)
    dest = NULL;
  dst_info *di = calloc((size_t)ND, sizeof *di);
  int64_t *mover_idx = NULL, *mover_pos = NULL, *runs = NULL, *wraps = NULL;
  void *stage[MAXVECS] = {0};
  size_t stage_bytes[MAXVECS] = {0};
  bf_pcopy *ops = NULL;
  int nv = 0;
  size_t elem[MAXVECS] = {0}, pbytes = 0; /* element sizes of the vectors, bytes of one particle */
  /* messages (MPI): counts to / from each process, host buffers */
  int64_t *sendc = calloc((size_t)np, sizeof *sendc), *recvc = calloc((size_t)np, sizeof *recvc);
  char **sbuf = calloc((size_t)np, sizeof *sbuf), **rbuf = calloc((size_t)np, sizeof *rbuf);
  int32_t *adest = NULL;
  int64_t maxrecv = 0;
  bf_comm_reqs reqs;
  bool have_reqs = false;
  src_tile *obx = NULL; /* the outbox's entry */
  bf_ploc_level levs[BF_PC_MAX_LEVELS];
  bf_plocate loc;
  bf_pc_locator(pc, lev_min, lev_max, ngrow, remove_negative, levs, &loc);
  if (!st && (!src || !parts || !dest || !di || !sendc || !recvc || !sbuf || !rbuf))
    st = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory for redistributing %lld particles", (long long)ntot);
  if (!st) {
    int64_t k = 0, off = 0;
    for (int64_t s = s0; s < s1 + (outbox ? 1 : 0); ++s) {
      bool is_out = s == s1;
      bf_ptile *t = is_out ? outbox : pc->slots[s];
      if (!t || bf_ptile_size(t) == 0) continue;
      memset(&src[k], 0, sizeof src[k]);
      src[k].tile = t;
      src[k].slot = is_out ? -1 : s;
      src[k].n = bf_ptile_size(t);
      src[k].dest = dest + off;
      bf_pc_tile_part(pc, t, &parts[k]);
      if (!is_out) bf_pc_part_shortcut(pc, s, lev_max, &parts[k]);
      parts[k].dest = dest + off;
      if (is_out) obx = &src[k];
      off += src[k].n;
      ++k;
    }
  }
  /* 1. locate */
  PT_MARK("setup");
  if (!st && nsrc > 0) st = K->p_locate(&loc, nsrc, parts);
  PT_MARK("locate");

  /* 2. stays, movers, runs, wraps: one pass per tile, writing into arrays
   * of worst-case size at the tile's particle offset (no counting pass);
   * a particle for another process gets the code NS + its rank */
  int64_t nmovers = 0, nruns = 0, nwraps = 0;
  bool refused = false; /* this process refuses a particle it cannot place (the others are told) */
  bf_arena *host = bf_arena_get(BF_ARENA_CPU);
  size_t ibytes = (size_t)(ntot > 0 ? ntot : 1) * sizeof(int64_t);
  if (!st && ((st = bf_arena_alloc(host, ibytes, (void **)&mover_idx)) != BF_SUCCESS ||
              (st = bf_arena_alloc(host, ibytes, (void **)&mover_pos)) != BF_SUCCESS ||
              (st = bf_arena_alloc(host, 2 * ibytes, (void **)&runs)) != BF_SUCCESS ||
              (st = bf_arena_alloc(host, ibytes, (void **)&wraps)) != BF_SUCCESS)) {
  }
  const int32_t *vrank = pc->virt_rank;
  if (!st) {
#pragma omp parallel for schedule(dynamic, 1) if (ntot > BF_PARTICLE_PARALLEL_MIN)
    for (int64_t k = 0; k < nsrc; ++k) {
      src_tile *T = &src[k];
      int64_t off = T->dest - dest;
      T->moff = T->roff = T->woff = off;
      int64_t *mi = mover_idx + off, *ru = runs + 2 * off, *wr = wraps + off;
      int64_t stay = 0, move = 0, r = 0, w = 0, bad = 0;
      bool prev = false;
      const int32_t own = T->slot >= 0 ? (int32_t)T->slot : INT32_MIN;
      for (int64_t i = 0; i < T->n; ++i) {
        int32_t d = T->dest[i];
        if (d >= 0 && (d & BF_PDEST_SLOT_MASK) >= NS) {
          d = (int32_t)(NS + vrank[(d & BF_PDEST_SLOT_MASK) - NS]) | (d & BF_PDEST_WRAP);
          T->dest[i] = d;
        }
        bool s = d == own || d == BF_PDEST_STAY || (d >= 0 && (d & BF_PDEST_SLOT_MASK) == own);
        if (d >= 0 && (d & BF_PDEST_WRAP)) wr[w++] = i;
        if (s) {
          ++stay;
          if (!prev) ru[2 * r] = i, ru[2 * r + 1] = 0, ++r;
          ++ru[2 * (r - 1) + 1];
        } else if (d >= 0) {
          mi[move++] = i;
        } else if (BF_PDEST_REFUSED(d)) {
          if (bad++ == 0) T->bad_i = i, T->bad_code = d;
        }
        prev = s;
      }
      T->nstay = stay, T->nmove = move, T->nruns = r, T->nwrap = w, T->nbad = bad;
    }
    /* a valid particle whose position is not finite or lies in no grid: refused before anything
     * moves (removing it as "outside the domain" lost it without a word; AMReX aborts on the second) */
    for (int64_t k = 0; k < nsrc && !st; ++k)
      if (src[k].nbad > 0) {
        st = bf_pc_refused_error(pc, src[k].slot, src[k].tile, src[k].bad_i, src[k].bad_code, lev_min, lev_max,
                                 "redistribute", "nothing was moved");
        refused = st == BF_ERROR_VALUE;
      }
  }
  if (!st) {
    for (int64_t k = 0; k < nsrc; ++k) {
      nmovers += src[k].nmove;
      nwraps += src[k].nwrap;
      nruns += src[k].nruns;
    }
    if (getenv("BOXFAB_PARTICLE_TIMES"))
      fprintf(stderr, "  movers %lld runs %lld nsrc %lld\n", (long long)nmovers, (long long)nruns, (long long)nsrc);
    PT_MARK("movers/runs");
    /* arrivals per destination, in source order */
    for (int64_t k = 0; k < nsrc; ++k) {
      if (src[k].slot >= 0) {
        di[src[k].slot].touched = true;
        di[src[k].slot].final = src[k].nstay;
      }
      for (int64_t m = src[k].moff; m < src[k].moff + src[k].nmove; ++m)
        ++di[src[k].dest[mover_idx[m]] & BF_PDEST_SLOT_MASK].narr;
    }
    int64_t a = 0;
    for (int64_t s = 0; s < ND; ++s) {
      di[s].aoff = a;
      a += di[s].narr;
      if (s < NS && di[s].narr > 0) {
        if (!di[s].touched) di[s].final = pc->slots[s] ? bf_ptile_size(pc->slots[s]) : 0;
        di[s].touched = true;
        di[s].final += di[s].narr;
      }
    }
    int64_t *fill = xmalloc((size_t)ND * sizeof *fill);
    if (!fill) {
      st = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory");
    } else {
      for (int64_t s = 0; s < ND; ++s)
        fill[s] = di[s].aoff;
      for (int64_t k = 0; k < nsrc; ++k)
        for (int64_t m = src[k].moff; m < src[k].moff + src[k].nmove; ++m)
          mover_pos[m] = fill[src[k].dest[mover_idx[m]] & BF_PDEST_SLOT_MASK]++;
      free(fill);
    }
  }
  PT_MARK("arrivals");
  /* the counts of the messages; a process that failed sends -1 so that every process stops */
  if (mpi && sendc && recvc) {
    for (int p = 0; p < np; ++p)
      sendc[p] = st ? (refused ? -2 : -1) : (p == me ? 0 : di[NS + p].narr);
    int rc = bf_comm_alltoall_i64(comm, sendc, recvc);
    if (rc && !st) st = rc;
    int other = -1, other_refused = -1;
    for (int p = 0; p < np; ++p) {
      if (recvc[p] < 0 && other < 0) other = p;
      if (recvc[p] == -2 && other_refused < 0) other_refused = p;
    }
    if (!st && other_refused >= 0)
      st = bf_error_set(BF_ERROR_VALUE, __func__,
                        "redistribute: process %d holds a particle it refuses to place (a position that is not "
                        "finite, or in no grid; its message names it); nothing was moved",
                        other_refused);
    else if (!st && other >= 0)
      st = bf_error_set(BF_ERROR_RUNTIME, __func__, "redistribute failed on another process (see its message)");
    for (int p = 0; p < np; ++p)
      if (recvc[p] > maxrecv) maxrecv = recvc[p];
  }
  if (st) goto done;
  /* 3. destination tiles and staging */
  for (int64_t s = 0; s < NS; ++s) {
    if (di[s].narr == 0) continue;
    if (!pc->slots[s]) {
      if ((st = bf_pc_new_tile(pc, &pc->slots[s])) != BF_SUCCESS) goto agree;
      di[s].created = true;
    }
    /* geometric growth, as a vector's push_back: repeated arrivals do not move the tile each time */
    int64_t cap = bf_ptile_capacity(pc->slots[s]), want = di[s].final;
    if (want > cap && want < cap + cap / 2) want = cap + cap / 2;
    if ((st = bf_ptile_reserve(pc->slots[s], want)) != BF_SUCCESS) goto agree;
  }
  {
    bf_podvec *vecs[MAXVECS];
    nv = bf_pc_tile_vecs(pc->proto, vecs, MAXVECS);
    for (int v = 0; v < nv; ++v) {
      elem[v] = bf_podvec_elem_size(vecs[v]);
      pbytes += elem[v];
    }
    for (int v = 0; v < nv && nmovers > 0; ++v) {
      stage_bytes[v] = (size_t)nmovers * elem[v];
      if ((st = bf_arena_alloc(pc->arena, stage_bytes[v], &stage[v])) != BF_SUCCESS) goto agree;
    }
  }
  {
    int64_t nops = (nsrc + NS) * nv;
    ops = xmalloc((size_t)(nops > 0 ? nops : 1) * sizeof *ops);
    if (!ops) {
      st = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory");
      goto agree;
    }
  }
  /* message buffers: host memory (pinned for device containers); a message holds the particles'
   * vectors one after the other (bf_pc_tile_vecs order), each n elements */
  for (int p = 0; mpi && p < np; ++p) {
    if (sendc[p] > 0 && (st = bf_arena_alloc(dest_arena, (size_t)sendc[p] * pbytes, (void **)&sbuf[p])) != BF_SUCCESS)
      goto agree;
    if (recvc[p] > 0 && (st = bf_arena_alloc(dest_arena, (size_t)recvc[p] * pbytes, (void **)&rbuf[p])) != BF_SUCCESS)
      goto agree;
  }
  if (maxrecv > 0) {
    adest = xmalloc((size_t)maxrecv * sizeof *adest);
    if (!adest) st = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory");
  }
agree:
  if (mpi) {
    /* every process has its memory (or none goes on) */
    int64_t f = st != BF_SUCCESS;
    int rc = bf_comm_reduce(comm, &f, 1, BF_CT_INT64, BF_OP_MAX, -1);
    if (rc && !st) st = rc;
    if (!st && f) st = bf_error_set(BF_ERROR_RUNTIME, __func__, "redistribute failed on another process (see its message)");
  }
  if (st) goto done;
  PT_MARK("reserve/stage");
  /* ---- no failure past this point (kernels on reserved memory), but for the messages ---- */
  if (mpi) {
    if ((st = bf_comm_reqs_init(&reqs, comm, 2 * np)) != BF_SUCCESS) goto done;
    have_reqs = true;
    for (int p = 0; p < np; ++p)
      if (recvc[p] > 0 &&
          (st = bf_comm_irecv(&reqs, rbuf[p], (size_t)recvc[p] * pbytes, p, BF_TAG_PARTICLES, p)) != BF_SUCCESS)
        goto lost;
  }
  /* reserving may have moved the vectors of source tiles: fresh pointers */
  for (int64_t k = 0; k < nsrc; ++k) {
    bf_pc_tile_part(pc, src[k].tile, &parts[k]);
    parts[k].dest = src[k].dest;
    parts[k].list = wraps + src[k].woff;
    parts[k].nlist = src[k].nwrap;
  }
  /* 4. wrap, gather movers, compact, send, resize, append arrivals */
  if (nsrc > 0) {
    bool any_wrap = false;
    for (int d = 0; d < pc->layout.dim; ++d)
      any_wrap = any_wrap || loc.is_per[d];
    if (any_wrap && nwraps > 0 && (st = K->p_wrap(&loc, nsrc, parts)) != BF_SUCCESS) goto lost;
  }
  PT_MARK("wrap");
  {
    bf_podvec *vecs[MAXVECS];
    /* one op per (tile, vector): movers to the staging buffer, then the stays compacted in place */
    static const int64_t no_runs[2] = {0, 0};
    int64_t m = 0;
    for (int64_t k = 0; k < nsrc; ++k) {
      bool compact = src[k].nstay != src[k].n && src[k].nstay != 0 &&
                     !(src[k].nruns == 1 && runs[2 * src[k].roff] == 0); /* not a prefix */
      if (src[k].nmove == 0 && !compact) continue;
      int n = bf_pc_tile_vecs(src[k].tile, vecs, MAXVECS);
      for (int v = 0; v < n; ++v) {
        void *p = bf_podvec_data(vecs[v]);
        ops[m++] = (bf_pcopy){.dst = p,
                              .src = p,
                              .elem = bf_podvec_elem_size(vecs[v]),
                              .n = compact ? src[k].nruns : 0,
                              .runs = compact ? runs + 2 * src[k].roff : no_runs,
                              .dst2 = stage[v],
                              .n2 = src[k].nmove,
                              .didx = mover_pos + src[k].moff,
                              .sidx = mover_idx + src[k].moff};
      }
    }
    if (m > 0 && (st = K->p_copy(m, ops)) != BF_SUCCESS) goto lost;
    PT_MARK("gather+compact");
    /* the leavers: staged per process, packed into one message each and sent */
    for (int p = 0; mpi && p < np; ++p) {
      if (sendc[p] == 0) continue;
      const int64_t n = sendc[p], a0 = di[NS + p].aoff;
      size_t off = 0;
      for (int v = 0; v < nv; ++v) {
        if ((st = bf_pod_copy(dest_arena, sbuf[p] + off, pc->arena, (char *)stage[v] + (size_t)a0 * elem[v],
                              (size_t)n * elem[v])) != BF_SUCCESS)
          goto lost;
        off += (size_t)n * elem[v];
      }
      if ((st = bf_comm_isend(&reqs, sbuf[p], off, p, BF_TAG_PARTICLES, np + p)) != BF_SUCCESS) goto lost;
    }
    PT_MARK("pack+send");
    for (int64_t s = 0; s < NS; ++s) {
      if (!di[s].touched) continue;
      /* raw: the new elements [before, final) are the arrivals, all written below */
      (void)bf_ptile_resize_raw(pc->slots[s], di[s].final); /* reserved: cannot fail */
      (void)bf_ptile_set_num_neighbors(pc->slots[s], 0);
    }
    if (obx) (void)bf_ptile_resize_raw(obx->tile, obx->nstay);
    m = 0;
    for (int64_t s = 0; s < NS; ++s) {
      if (di[s].narr == 0) continue;
      int n = bf_pc_tile_vecs(pc->slots[s], vecs, MAXVECS);
      int64_t before = di[s].final - di[s].narr;
      for (int v = 0; v < n; ++v) {
        size_t e = bf_podvec_elem_size(vecs[v]);
        ops[m++] = (bf_pcopy){.dst = (char *)bf_podvec_data(vecs[v]) + (size_t)before * e,
                              .src = (char *)stage[v] + (size_t)di[s].aoff * e,
                              .elem = e,
                              .n = di[s].narr};
      }
    }
    if (m > 0 && (st = K->p_copy(m, ops)) != BF_SUCCESS) {
      /* the arrivals could not be copied (a device error): the destination tiles keep their stays
       * only, never the unwritten tails; the movers are lost, and the message says so */
      for (int64_t s = 0; s < NS; ++s)
        if (di[s].narr > 0 && pc->slots[s]) (void)bf_ptile_resize_raw(pc->slots[s], di[s].final - di[s].narr);
      goto lost;
    }
    PT_MARK("append");
  }
  /* 5. the arrivals from other processes, in rank order, each message in its sender's order:
   * located here (their positions were wrapped by the sender) and appended to their tiles */
  if (mpi) {
    if ((st = bf_comm_waitall(&reqs)) != BF_SUCCESS) goto lost;
    PT_MARK("wait");
    const bf_backend_particles *H = &bf_backend_get()->particles;
    const bf_playout *lay = &pc->layout;
    int64_t stray = 0;
    for (int p = 0; p < np; ++p) {
      const int64_t n = recvc[p];
      if (n == 0) continue;
      const void *vp[MAXVECS];
      size_t off = 0;
      for (int v = 0; v < nv; ++v) {
        vp[v] = rbuf[p] + off;
        off += (size_t)n * elem[v];
      }
      bf_ppart part;
      memset(&part, 0, sizeof part);
      part.n = n;
      part.own_slot = -1;
      if (lay->pure_soa) {
        for (int d = 0; d < lay->dim; ++d)
          part.pos[d] = (double *)(uintptr_t)vp[1 + d];
        part.pstride = 1;
        part.idcpu = vp[0];
        part.istride = 1;
      } else {
        char *base = (char *)(uintptr_t)vp[0];
        size_t ss = bf_playout_struct_size(lay);
        for (int d = 0; d < lay->dim; ++d)
          part.pos[d] = (double *)(void *)(base + 8 * d);
        part.pstride = (int64_t)(ss / 8);
        part.idcpu = (const uint64_t *)(const void *)(base + bf_playout_idcpu_offset(lay));
        part.istride = (int64_t)(ss / 8);
      }
      part.dest = adest;
      if ((st = H->p_locate(&loc, 1, &part)) != BF_SUCCESS) goto lost;
      for (int64_t i = 0; i < n; ++i) {
        int32_t d = adest[i];
        if (d < 0 || (d & BF_PDEST_SLOT_MASK) >= NS) {
          ++stray;
          adest[i] = -1;
        } else {
          adest[i] = d & BF_PDEST_SLOT_MASK;
        }
      }
      if ((st = bf_pc_insert(pc, n, vp, NULL, adest)) != BF_SUCCESS) goto lost;
    }
    PT_MARK("unpack");
    if (stray > 0) {
      st = bf_error_set(BF_ERROR_RUNTIME, __func__,
                        "redistribute: %lld particles arrived that no grid of this process holds (do all processes "
                        "have the same BoxArray and DistributionMapping?); they are lost",
                        (long long)stray);
      goto done;
    }
  }
  /* 6. drop empty tiles of the range and an empty outbox */
  for (int64_t s = s0; s < s1; ++s)
    if (pc->slots[s] && bf_ptile_size(pc->slots[s]) == 0) bf_ptile_destroy(&pc->slots[s]);
  if (pc->outbox && bf_ptile_size(pc->outbox) == 0) bf_ptile_destroy(&pc->outbox);
  goto done;
lost: {
  char msg[512];
  snprintf(msg, sizeof msg, "%s", bf_error_message());
  st = bf_error_set(st, __func__,
                    "redistribute: moving the particles that change tiles or processes failed (%s); particles may be "
                    "lost",
                    msg);
}
done:
  if (have_reqs) bf_comm_reqs_free(&reqs);
  if (st != BF_SUCCESS && di)
    for (int64_t s = 0; s < NS; ++s)
      if (di[s].created && pc->slots[s] && bf_ptile_size(pc->slots[s]) == 0) bf_ptile_destroy(&pc->slots[s]);
  for (int v = 0; v < nv; ++v)
    if (stage[v]) bf_arena_free(pc->arena, stage[v], stage_bytes[v]);
  for (int p = 0; p < np && sbuf && rbuf && sendc && recvc; ++p) {
    if (sbuf[p]) bf_arena_free(dest_arena, sbuf[p], (size_t)sendc[p] * pbytes);
    if (rbuf[p]) bf_arena_free(dest_arena, rbuf[p], (size_t)recvc[p] * pbytes);
  }
  {
    bf_arena *h = bf_arena_get(BF_ARENA_CPU);
    size_t ib = (size_t)(ntot > 0 ? ntot : 1) * sizeof(int64_t);
    if (mover_idx) bf_arena_free(h, mover_idx, ib);
    if (mover_pos) bf_arena_free(h, mover_pos, ib);
    if (runs) bf_arena_free(h, runs, 2 * ib);
    if (wraps) bf_arena_free(h, wraps, ib);
  }
  if (dest) bf_arena_free(dest_arena, dest, (size_t)(ntot > 0 ? ntot : 1) * sizeof *dest);
  free(adest), free(sbuf), free(rbuf), free(sendc), free(recvc);
  free(ops), free(di), free(parts), free(src);
  return st;
}

int bf_pc_redistribute(bf_pc *pc, int lev_min, int lev_max, int ngrow, int local, bool remove_negative) {
  (void)local; /* AMReX's neighbour-only exchange: the general path serves it */
  BF_CALL(bf_pc_check(pc));
  if (pc->nlev == 0) return BF_SUCCESS;
  BF_CALL(level_range(pc, lev_min, &lev_max));
  BF_CHECK(ngrow >= 0, BF_ERROR_VALUE, "nGrow must be >= 0, got %d", ngrow);
  if (bf_pc_needs_mirror(pc))
    BF_PC_MIRRORED(pc, true, bf_pc_redistribute(h_, lev_min, lev_max, ngrow, local, remove_negative));
  /* one process and nothing waiting in the outbox: the device-resident path where the backend has it */
  if (bf_comm_size(bf_pc_comm(pc)) == 1 && !(pc->outbox && bf_ptile_size(pc->outbox) > 0)) {
    const bf_backend_particles *K = bf_pc_kernels(pc);
    if (!K) return bf_error_code();
    int64_t s0 = pc->lev[lev_min].base, s1 = pc->lev[lev_max].base + pc->lev[lev_max].nslots;
    if (bf_pc_use_plan(pc, K) && 2 * (s1 - s0) + 2 <= INT32_MAX) {
      bool taken = false;
      int st = redistribute_device(pc, K, lev_min, lev_max, ngrow, remove_negative, s0, s1, &taken);
      if (taken || st) return st;
    }
  }
  return redistribute(pc, lev_min, lev_max, ngrow, remove_negative, false, false);
}

int bf_pc_exchange_outbox(bf_pc *pc, int lev_min, int lev_max, bool failed) {
  if (bf_comm_size(bf_pc_comm(pc)) == 1) return failed ? bf_error_code() : BF_SUCCESS;
  return redistribute(pc, lev_min, lev_max, 0, false, true, failed);
}

/* OK() on this process's tiles. */
static int ok_local(const bf_pc *pc, int lev_min, int lev_max, int ngrow, bool *ok) {
  *ok = true;
  if (pc->nlev == 0) return BF_SUCCESS;
  BF_CALL(level_range(pc, lev_min, &lev_max));
  BF_CHECK(ngrow >= 0, BF_ERROR_VALUE, "nGrow must be >= 0, got %d", ngrow);
  if (bf_pc_needs_mirror(pc)) BF_PC_MIRRORED(pc, false, ok_local(h_, lev_min, lev_max, ngrow, ok));
  const bf_backend_particles *K = bf_pc_kernels(pc);
  if (!K) return bf_error_code();
  /* device-only memory: the device's locator writes the codes into pinned memory (no host copy of
   * the particles) where the backend is a device one; otherwise the host mirror */
  if (bf_pc_needs_host(pc) && !bf_pc_use_plan(pc, K))
    BF_PC_MIRRORED(pc, false, ok_local(h_, lev_min, lev_max, ngrow, ok));
  bf_ploc_level levs[BF_PC_MAX_LEVELS];
  bf_plocate loc;
  bf_pc_locator(pc, lev_min, lev_max, ngrow, false, levs, &loc);
  int64_t s0 = pc->lev[lev_min].base, s1 = pc->lev[lev_max].base + pc->lev[lev_max].nslots;
  int64_t nparts = 0, ntot = 0;
  for (int64_t s = s0; s < s1; ++s) {
    bf_ptile *t = pc->slots[s];
    if (!t || bf_ptile_size(t) == 0) continue;
    BF_CALL(bf_ptile_check_consistent(t));
    ++nparts, ntot += bf_ptile_size(t);
  }
  if (nparts == 0) return BF_SUCCESS;
  /* every tile in one call, the codes end to end */
  bf_arena *da = bf_pc_dest_arena(pc);
  int32_t *dest = NULL;
  bf_ppart *parts = xmalloc((size_t)nparts * sizeof *parts);
  int32_t *own = xmalloc((size_t)nparts * sizeof *own);
  int st = parts && own ? bf_arena_alloc(da, (size_t)ntot * sizeof *dest, (void **)&dest)
                        : bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory");
  if (!st) {
    int64_t k = 0, off = 0;
    for (int64_t s = s0; s < s1; ++s) {
      bf_ptile *t = pc->slots[s];
      if (!t || bf_ptile_size(t) == 0) continue;
      bf_pc_tile_part(pc, t, &parts[k]);
      bf_pc_part_shortcut(pc, s, lev_max, &parts[k]);
      parts[k].dest = dest + off;
      own[k] = (int32_t)s;
      off += parts[k].n;
      ++k;
    }
    st = K->p_locate(&loc, nparts, parts);
  }
  for (int64_t k = 0; !st && k < nparts && *ok; ++k)
    for (int64_t i = 0; i < parts[k].n && *ok; ++i)
      if (parts[k].dest[i] != BF_PDEST_STAY && parts[k].dest[i] != own[k]) *ok = false;
  if (dest) bf_arena_free(da, dest, (size_t)ntot * sizeof *dest);
  free(own), free(parts);
  return st;
}

int bf_pc_ok(const bf_pc *pc, int lev_min, int lev_max, int ngrow, bool *ok) {
  BF_CALL(bf_pc_check(pc));
  BF_CHECK(ok != NULL, BF_ERROR_VALUE, "NULL result pointer");
  int st = ok_local(pc, lev_min, lev_max, ngrow, ok);
  /* a particle waiting in the outbox is not where it belongs */
  if (!st && pc->outbox && bf_ptile_size(pc->outbox) > 0) *ok = false;
  const bf_comm *c = bf_pc_comm(pc);
  if (bf_comm_size(c) == 1) return st;
  /* every process: all fine (1) or not; a failure anywhere fails everywhere */
  char msg[512] = "";
  if (st) snprintf(msg, sizeof msg, "%s", bf_error_message());
  int64_t v[2] = {st ? 0 : (*ok ? 1 : 0), st ? 0 : 1};
  int rc = bf_comm_reduce(c, v, 2, BF_CT_INT64, BF_OP_MIN, -1);
  if (rc) return rc;
  if (st) return bf_error_set(st, __func__, "%s", msg);
  if (!v[1]) return bf_error_set(BF_ERROR_RUNTIME, __func__, "OK() failed on another process");
  *ok = v[0] != 0;
  return BF_SUCCESS;
}

/* ---- inserting staged particles -------------------------------------------------------------------- */

/* The tile of insertion bucket s: slot s, or the outbox for s == nslots. */
static bf_ptile **bucket(bf_pc *pc, int64_t s) { return s < pc->nslots ? &pc->slots[s] : &pc->outbox; }

int bf_pc_insert(bf_pc *pc, int64_t n, const void *const *vecs, const void *const *consts, const int32_t *dest) {
  const bf_backend_particles *K = bf_pc_kernels(pc);
  if (!K) return bf_error_code();
  int st = BF_SUCCESS;
  const int64_t NB = pc->nslots + 1; /* the slots, then the outbox */
  int64_t *cnt = calloc((size_t)NB + 1, sizeof *cnt);
  int64_t *idx = xmalloc((size_t)n * sizeof *idx);
  bool *created = calloc((size_t)NB, sizeof *created);
  int64_t *oldn = calloc((size_t)NB, sizeof *oldn);
  int32_t *bk = xmalloc((size_t)n * sizeof *bk);
  bf_pcopy *ops = NULL;
  if (!cnt || !idx || !created || !oldn || !bk) {
    st = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory for %lld particles", (long long)n);
    goto done;
  }
  for (int64_t i = 0; i < n; ++i) {
    int32_t d = dest[i] < 0 ? -1 : dest[i] & BF_PDEST_SLOT_MASK;
    bk[i] = d < 0 ? -1 : d < pc->nslots ? d : (int32_t)pc->nslots;
    if (bk[i] >= 0) ++cnt[bk[i] + 1];
  }
  for (int64_t s = 0; s < NB; ++s)
    cnt[s + 1] += cnt[s];
  {
    int64_t *fill = xmalloc((size_t)NB * sizeof *fill);
    if (!fill) {
      st = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory");
      goto done;
    }
    memcpy(fill, cnt, (size_t)NB * sizeof *fill);
    for (int64_t i = 0; i < n; ++i)
      if (bk[i] >= 0) idx[fill[bk[i]]++] = i;
    free(fill);
  }
  int nv = 0;
  for (int64_t s = 0; s < NB; ++s) {
    int64_t a = cnt[s + 1] - cnt[s];
    if (a == 0) continue;
    bf_ptile **t = bucket(pc, s);
    if (!*t) {
      if ((st = bf_pc_new_tile(pc, t)) != BF_SUCCESS) goto done;
      created[s] = true;
    }
    if ((st = bf_ptile_check_consistent(*t)) != BF_SUCCESS) goto done;
    oldn[s] = bf_ptile_size(*t);
    if ((st = bf_ptile_reserve(*t, oldn[s] + a)) != BF_SUCCESS) goto done;
  }
  {
    bf_podvec *pv[MAXVECS];
    nv = bf_pc_tile_vecs(pc->proto, pv, MAXVECS);
  }
  ops = xmalloc((size_t)(NB * nv > 0 ? NB * nv : 1) * sizeof *ops);
  if (!ops) {
    st = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory");
    goto done;
  }
  /* no failure past this point */
  int64_t m = 0;
  for (int64_t s = 0; s < NB; ++s) {
    int64_t a = cnt[s + 1] - cnt[s];
    if (a == 0) continue;
    bf_ptile *t = *bucket(pc, s);
    (void)bf_ptile_resize(t, oldn[s] + a);
    bf_podvec *pv[MAXVECS];
    int k = bf_pc_tile_vecs(t, pv, MAXVECS);
    for (int v = 0; v < k; ++v) {
      size_t e = bf_podvec_elem_size(pv[v]);
      bf_pcopy op = {.dst = (char *)bf_podvec_data(pv[v]) + (size_t)oldn[s] * e, .elem = e, .n = a};
      if (consts && consts[v])
        op.value = consts[v];
      else
        op.src = vecs[v], op.sidx = idx + cnt[s];
      ops[m++] = op;
    }
  }
  if (m > 0) st = K->p_copy(m, ops);
done:
  if (st != BF_SUCCESS && created)
    for (int64_t s = 0; s < NB; ++s)
      if (created[s]) bf_ptile_destroy(bucket(pc, s));
  free(ops), free(oldn), free(created), free(idx), free(cnt), free(bk);
  return st;
}

int bf_pc_add_particles_at_level(bf_pc *pc, const bf_ptile *srct, int lev, int ngrow) {
  (void)ngrow;
  BF_CALL(bf_pc_check(pc));
  BF_CHECK(srct != NULL, BF_ERROR_VALUE, "NULL particle tile");
  BF_CHECK(lev >= 0 && lev < pc->nlev, BF_ERROR_INDEX, "level %d out of range (finest level %d)", lev, pc->nlev - 1);
  const bf_playout *a = bf_ptile_layout(srct), *b = &pc->layout;
  BF_CHECK(a->dim == b->dim && a->pure_soa == b->pure_soa && a->nsr == b->nsr && a->nsi == b->nsi && a->nar == b->nar &&
               a->nai == b->nai,
           BF_ERROR_TYPE, "the particle tile has another layout than the container");
  BF_CHECK(bf_ptile_num_runtime_real_comps(srct) == bf_pc_num_runtime_real_comps(pc) &&
               bf_ptile_num_runtime_int_comps(srct) == bf_pc_num_runtime_int_comps(pc),
           BF_ERROR_VALUE,
           "the particle tile has %d/%d run-time real/int components, the container %d/%d (add them first)",
           bf_ptile_num_runtime_real_comps(srct), bf_ptile_num_runtime_int_comps(srct),
           bf_pc_num_runtime_real_comps(pc), bf_pc_num_runtime_int_comps(pc));
  BF_CALL(bf_ptile_check_consistent(srct));
  if (bf_ptile_size(srct) == 0) return BF_SUCCESS;
  const pc_level *L = &pc->lev[lev];
  /* a process without grids on the level keeps them in its outbox (sent by the next redistribute) */
  bf_ptile **slot = L->nslots > 0 ? &pc->slots[L->base] : &pc->outbox;
  bool created = *slot == NULL;
  if (created) BF_CALL(bf_pc_new_tile(pc, slot));
  int st = bf_ptile_append(*slot, srct);
  if (st && created) bf_ptile_destroy(slot);
  return st;
}
