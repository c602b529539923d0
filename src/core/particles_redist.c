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

#include "boxfab/idcpu.h"
#include "boxfab/runtime.h"
#include "particles_impl.h"
#include "podvec_impl.h"
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
  int64_t slot, n;
  int64_t nstay, nmove, nruns, nwrap;
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
  int64_t *counts = xmalloc((size_t)(2 * nsr + 2) * sizeof *counts);
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
  if (counts[2 * nsr + 1] > 0) {
    st = bf_error_set(BF_ERROR_VALUE, __func__,
                      "a particle belongs to a grid of another process (this build has no MPI: every grid of the "
                      "DistributionMapping must be on rank 0)");
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

int bf_pc_redistribute(bf_pc *pc, int lev_min, int lev_max, int ngrow, int local, bool remove_negative) {
  (void)local;
  BF_CALL(bf_pc_check(pc));
  if (pc->nlev == 0) return BF_SUCCESS;
  BF_CALL(level_range(pc, lev_min, &lev_max));
  BF_CHECK(ngrow >= 0, BF_ERROR_VALUE, "nGrow must be >= 0, got %d", ngrow);
  if (bf_pc_needs_mirror(pc))
    BF_PC_MIRRORED(pc, true, bf_pc_redistribute(h_, lev_min, lev_max, ngrow, local, remove_negative));
  const bf_backend_particles *K = bf_pc_kernels(pc);
  if (!K) return bf_error_code();

  int64_t s0 = pc->lev[lev_min].base, s1 = pc->lev[lev_max].base + pc->lev[lev_max].nslots;
  if (bf_pc_use_plan(pc, K) && 2 * (s1 - s0) + 2 <= INT32_MAX) {
    bool taken = false;
    int st = redistribute_device(pc, K, lev_min, lev_max, ngrow, remove_negative, s0, s1, &taken);
    if (taken || st) return st;
  }
  int64_t nsrc = 0, ntot = 0;
  for (int64_t s = s0; s < s1; ++s)
    if (pc->slots[s] && bf_ptile_size(pc->slots[s]) > 0) {
      BF_CALL(bf_ptile_check_consistent(pc->slots[s]));
      ++nsrc, ntot += bf_ptile_size(pc->slots[s]);
    }

  double pt_last = pt_now();
  int st = BF_SUCCESS;
  src_tile *src = xmalloc((size_t)nsrc * sizeof *src);
  bf_ppart *parts = xmalloc((size_t)nsrc * sizeof *parts);
  /* dest codes: pinned memory when the kernels run on the device (they write it directly) */
  bf_arena *dest_arena = bf_pc_dest_arena(pc);
  int32_t *dest = NULL;
  if (bf_arena_alloc(dest_arena, (size_t)(ntot > 0 ? ntot : 1) * sizeof *dest, (void **)&dest) != BF_SUCCESS)
    dest = NULL;
  dst_info *di = calloc((size_t)(pc->nslots > 0 ? pc->nslots : 1), sizeof *di);
  int64_t *mover_idx = NULL, *mover_pos = NULL, *runs = NULL, *wraps = NULL;
  void *stage[MAXVECS] = {0};
  size_t stage_bytes[MAXVECS] = {0};
  bf_pcopy *ops = NULL;
  int nv = 0;
  if (!src || !parts || !dest || !di) {
    st = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory for redistributing %lld particles", (long long)ntot);
    goto done;
  }
  {
    int64_t k = 0, off = 0;
    for (int64_t s = s0; s < s1; ++s) {
      bf_ptile *t = pc->slots[s];
      if (!t || bf_ptile_size(t) == 0) continue;
      memset(&src[k], 0, sizeof src[k]);
      src[k].slot = s;
      src[k].n = bf_ptile_size(t);
      src[k].dest = dest + off;
      bf_pc_tile_part(pc, t, &parts[k]);
      bf_pc_part_shortcut(pc, s, lev_max, &parts[k]);
      parts[k].dest = dest + off;
      off += src[k].n;
      ++k;
    }
  }
  /* 1. locate */
  bf_ploc_level levs[BF_PC_MAX_LEVELS];
  bf_plocate loc;
  bf_pc_locator(pc, lev_min, lev_max, ngrow, remove_negative, levs, &loc);
  PT_MARK("setup");
  if (nsrc > 0 && (st = K->p_locate(&loc, nsrc, parts)) != BF_SUCCESS) goto done;
  PT_MARK("locate");

  /* 2. stays, movers, runs, wraps: one pass per tile, writing into arrays
   * of worst-case size at the tile's particle offset (no counting pass) */
  int64_t nmovers = 0, nruns = 0, nwraps = 0;
  bool remote = false;
  bf_arena *host = bf_arena_get(BF_ARENA_CPU);
  size_t ibytes = (size_t)(ntot > 0 ? ntot : 1) * sizeof(int64_t);
  if ((st = bf_arena_alloc(host, ibytes, (void **)&mover_idx)) != BF_SUCCESS ||
      (st = bf_arena_alloc(host, ibytes, (void **)&mover_pos)) != BF_SUCCESS ||
      (st = bf_arena_alloc(host, 2 * ibytes, (void **)&runs)) != BF_SUCCESS ||
      (st = bf_arena_alloc(host, ibytes, (void **)&wraps)) != BF_SUCCESS)
    goto done;
#pragma omp parallel for schedule(dynamic, 1) reduction(|| : remote) if (ntot > BF_PARTICLE_PARALLEL_MIN)
  for (int64_t k = 0; k < nsrc; ++k) {
    src_tile *T = &src[k];
    int64_t off = T->dest - dest;
    T->moff = T->roff = T->woff = off;
    int64_t *mi = mover_idx + off, *ru = runs + 2 * off, *wr = wraps + off;
    int64_t stay = 0, move = 0, r = 0, w = 0;
    bool prev = false;
    const int32_t own = (int32_t)T->slot;
    for (int64_t i = 0; i < T->n; ++i) {
      int32_t d = T->dest[i];
      bool s = d == own || d == BF_PDEST_STAY || (d >= 0 && (d & BF_PDEST_SLOT_MASK) == own);
      if (d < 0)
        remote = remote || d == BF_PDEST_REMOTE;
      else if (d & BF_PDEST_WRAP)
        wr[w++] = i;
      if (s) {
        ++stay;
        if (!prev) ru[2 * r] = i, ru[2 * r + 1] = 0, ++r;
        ++ru[2 * (r - 1) + 1];
      } else if (d >= 0) {
        mi[move++] = i;
      }
      prev = s;
    }
    T->nstay = stay, T->nmove = move, T->nruns = r, T->nwrap = w;
  }
  if (remote) {
    st = bf_error_set(BF_ERROR_VALUE, __func__,
                      "a particle belongs to a grid of another process (this build has no MPI: every grid of the "
                      "DistributionMapping must be on rank 0)");
    goto done;
  }
  for (int64_t k = 0; k < nsrc; ++k) {
    nmovers += src[k].nmove;
    nwraps += src[k].nwrap;
    nruns += src[k].nruns;
  }
  if (getenv("BOXFAB_PARTICLE_TIMES"))
    fprintf(stderr, "  movers %lld runs %lld nsrc %lld\n", (long long)nmovers, (long long)nruns, (long long)nsrc);
  PT_MARK("movers/runs");
  /* arrivals per destination slot, in source order */
  for (int64_t k = 0; k < nsrc; ++k) {
    di[src[k].slot].touched = true;
    di[src[k].slot].final = src[k].nstay;
    for (int64_t m = src[k].moff; m < src[k].moff + src[k].nmove; ++m)
      ++di[src[k].dest[mover_idx[m]] & BF_PDEST_SLOT_MASK].narr;
  }
  {
    int64_t a = 0;
    for (int64_t s = 0; s < pc->nslots; ++s) {
      di[s].aoff = a;
      a += di[s].narr;
      if (di[s].narr > 0) {
        if (!di[s].touched) di[s].final = pc->slots[s] ? bf_ptile_size(pc->slots[s]) : 0;
        di[s].touched = true;
        di[s].final += di[s].narr;
      }
    }
    int64_t *fill = xmalloc((size_t)(pc->nslots > 0 ? pc->nslots : 1) * sizeof *fill);
    if (!fill) {
      st = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory");
      goto done;
    }
    for (int64_t s = 0; s < pc->nslots; ++s)
      fill[s] = di[s].aoff;
    for (int64_t k = 0; k < nsrc; ++k)
      for (int64_t m = src[k].moff; m < src[k].moff + src[k].nmove; ++m)
        mover_pos[m] = fill[src[k].dest[mover_idx[m]] & BF_PDEST_SLOT_MASK]++;
    free(fill);
  }
  PT_MARK("arrivals");
  /* 3. destination tiles and staging */
  for (int64_t s = 0; s < pc->nslots; ++s) {
    if (di[s].narr == 0) continue;
    if (!pc->slots[s]) {
      if ((st = bf_pc_new_tile(pc, &pc->slots[s])) != BF_SUCCESS) goto done;
      di[s].created = true;
    }
    /* geometric growth, as a vector's push_back: repeated arrivals do not move the tile each time */
    int64_t cap = bf_ptile_capacity(pc->slots[s]), want = di[s].final;
    if (want > cap && want < cap + cap / 2) want = cap + cap / 2;
    if ((st = bf_ptile_reserve(pc->slots[s], want)) != BF_SUCCESS) goto done;
  }
  {
    bf_podvec *vecs[MAXVECS];
    nv = bf_pc_tile_vecs(pc->proto, vecs, MAXVECS);
    for (int v = 0; v < nv && nmovers > 0; ++v) {
      stage_bytes[v] = (size_t)nmovers * bf_podvec_elem_size(vecs[v]);
      if ((st = bf_arena_alloc(pc->arena, stage_bytes[v], &stage[v])) != BF_SUCCESS) goto done;
    }
  }
  int64_t nops = (nsrc + pc->nslots) * nv;
  ops = xmalloc((size_t)(nops > 0 ? nops : 1) * sizeof *ops);
  if (!ops) {
    st = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory");
    goto done;
  }
  PT_MARK("reserve/stage");
  /* ---- no failure past this point (kernels on reserved memory) ---- */
  /* reserving may have moved the vectors of source tiles: fresh pointers */
  for (int64_t k = 0; k < nsrc; ++k) {
    bf_pc_tile_part(pc, pc->slots[src[k].slot], &parts[k]);
    parts[k].dest = src[k].dest;
    parts[k].list = wraps + src[k].woff;
    parts[k].nlist = src[k].nwrap;
  }
  /* 4. wrap, gather movers, compact, resize, append arrivals */
  if (nsrc > 0) {
    bool any_wrap = false;
    for (int d = 0; d < pc->layout.dim; ++d)
      any_wrap = any_wrap || loc.is_per[d];
    if (any_wrap && nwraps > 0 && (st = K->p_wrap(&loc, nsrc, parts)) != BF_SUCCESS) goto done;
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
      int n = bf_pc_tile_vecs(pc->slots[src[k].slot], vecs, MAXVECS);
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
    if (m > 0 && (st = K->p_copy(m, ops)) != BF_SUCCESS) goto done;
    PT_MARK("gather+compact");
    int64_t *oldsize = xmalloc((size_t)(pc->nslots > 0 ? pc->nslots : 1) * sizeof *oldsize);
    for (int64_t s = 0; s < pc->nslots; ++s) {
      if (!di[s].touched) continue;
      int64_t before = di[s].final - di[s].narr;
      if (oldsize) oldsize[s] = before;
      /* raw: the new elements [before, final) are the arrivals, all written below */
      if ((st = bf_ptile_resize_raw(pc->slots[s], di[s].final)) != BF_SUCCESS) {
        free(oldsize);
        goto done; /* cannot happen: reserved */
      }
      (void)bf_ptile_set_num_neighbors(pc->slots[s], 0);
    }
    m = 0;
    for (int64_t s = 0; s < pc->nslots; ++s) {
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
      for (int64_t s = 0; s < pc->nslots; ++s)
        if (di[s].narr > 0 && pc->slots[s]) (void)bf_ptile_resize_raw(pc->slots[s], di[s].final - di[s].narr);
      char msg[512];
      snprintf(msg, sizeof msg, "%s", bf_error_message());
      st = bf_error_set(st, __func__, "redistribute: copying the particles that change tiles failed (%s); they are lost",
                        msg);
      free(oldsize);
      goto done;
    }
    free(oldsize);
    PT_MARK("append");
  }
  /* 5. drop empty tiles of the range */
  for (int64_t s = s0; s < s1; ++s)
    if (pc->slots[s] && bf_ptile_size(pc->slots[s]) == 0) bf_ptile_destroy(&pc->slots[s]);
done:
  if (st != BF_SUCCESS && di)
    for (int64_t s = 0; s < pc->nslots; ++s)
      if (di[s].created) bf_ptile_destroy(&pc->slots[s]);
  for (int v = 0; v < nv; ++v)
    if (stage[v]) bf_arena_free(pc->arena, stage[v], stage_bytes[v]);
  {
    bf_arena *h = bf_arena_get(BF_ARENA_CPU);
    size_t ib = (size_t)(ntot > 0 ? ntot : 1) * sizeof(int64_t);
    if (mover_idx) bf_arena_free(h, mover_idx, ib);
    if (mover_pos) bf_arena_free(h, mover_pos, ib);
    if (runs) bf_arena_free(h, runs, 2 * ib);
    if (wraps) bf_arena_free(h, wraps, ib);
  }
  if (dest) bf_arena_free(dest_arena, dest, (size_t)(ntot > 0 ? ntot : 1) * sizeof *dest);
  free(ops), free(di), free(parts), free(src);
  return st;
}

int bf_pc_ok(const bf_pc *pc, int lev_min, int lev_max, int ngrow, bool *ok) {
  BF_CALL(bf_pc_check(pc));
  BF_CHECK(ok != NULL, BF_ERROR_VALUE, "NULL result pointer");
  *ok = true;
  if (pc->nlev == 0) return BF_SUCCESS;
  BF_CALL(level_range(pc, lev_min, &lev_max));
  BF_CHECK(ngrow >= 0, BF_ERROR_VALUE, "nGrow must be >= 0, got %d", ngrow);
  if (bf_pc_needs_mirror(pc)) BF_PC_MIRRORED(pc, false, bf_pc_ok(h_, lev_min, lev_max, ngrow, ok));
  const bf_backend_particles *K = bf_pc_kernels(pc);
  if (!K) return bf_error_code();
  /* device-only memory: the device's locator writes the codes into pinned memory (no host copy of
   * the particles) where the backend is a device one; otherwise the host mirror */
  if (bf_pc_needs_host(pc) && !bf_pc_use_plan(pc, K))
    BF_PC_MIRRORED(pc, false, bf_pc_ok(h_, lev_min, lev_max, ngrow, ok));
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

/* ---- inserting staged particles -------------------------------------------------------------------- */

int bf_pc_insert(bf_pc *pc, int64_t n, const void *const *vecs, const void *const *consts, const int32_t *dest) {
  const bf_backend_particles *K = bf_pc_kernels(pc);
  if (!K) return bf_error_code();
  int st = BF_SUCCESS;
  int64_t *cnt = calloc((size_t)(pc->nslots > 0 ? pc->nslots : 1) + 1, sizeof *cnt);
  int64_t *idx = xmalloc((size_t)n * sizeof *idx);
  bool *created = calloc((size_t)(pc->nslots > 0 ? pc->nslots : 1), sizeof *created);
  int64_t *oldn = calloc((size_t)(pc->nslots > 0 ? pc->nslots : 1), sizeof *oldn);
  bf_pcopy *ops = NULL;
  if (!cnt || !idx || !created || !oldn) {
    st = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory for %lld particles", (long long)n);
    goto done;
  }
  for (int64_t i = 0; i < n; ++i)
    if (dest[i] >= 0) ++cnt[(dest[i] & BF_PDEST_SLOT_MASK) + 1];
  for (int64_t s = 0; s < pc->nslots; ++s)
    cnt[s + 1] += cnt[s];
  {
    int64_t *fill = xmalloc((size_t)(pc->nslots > 0 ? pc->nslots : 1) * sizeof *fill);
    if (!fill) {
      st = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory");
      goto done;
    }
    memcpy(fill, cnt, (size_t)pc->nslots * sizeof *fill);
    for (int64_t i = 0; i < n; ++i)
      if (dest[i] >= 0) idx[fill[dest[i] & BF_PDEST_SLOT_MASK]++] = i;
    free(fill);
  }
  int nv = 0;
  for (int64_t s = 0; s < pc->nslots; ++s) {
    int64_t a = cnt[s + 1] - cnt[s];
    if (a == 0) continue;
    if (!pc->slots[s]) {
      if ((st = bf_pc_new_tile(pc, &pc->slots[s])) != BF_SUCCESS) goto done;
      created[s] = true;
    }
    BF_CALL(bf_ptile_check_consistent(pc->slots[s]));
    oldn[s] = bf_ptile_size(pc->slots[s]);
    if ((st = bf_ptile_reserve(pc->slots[s], oldn[s] + a)) != BF_SUCCESS) goto done;
  }
  {
    bf_podvec *pv[MAXVECS];
    nv = bf_pc_tile_vecs(pc->proto, pv, MAXVECS);
  }
  ops = xmalloc((size_t)(pc->nslots * nv > 0 ? pc->nslots * nv : 1) * sizeof *ops);
  if (!ops) {
    st = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory");
    goto done;
  }
  /* no failure past this point */
  int64_t m = 0;
  for (int64_t s = 0; s < pc->nslots; ++s) {
    int64_t a = cnt[s + 1] - cnt[s];
    if (a == 0) continue;
    (void)bf_ptile_resize(pc->slots[s], oldn[s] + a);
    bf_podvec *pv[MAXVECS];
    int k = bf_pc_tile_vecs(pc->slots[s], pv, MAXVECS);
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
    for (int64_t s = 0; s < pc->nslots; ++s)
      if (created[s]) bf_ptile_destroy(&pc->slots[s]);
  free(ops), free(oldn), free(created), free(idx), free(cnt);
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
  BF_CHECK(L->nslots > 0, BF_ERROR_VALUE, "level %d has no grid on this process", lev);
  bool created = pc->slots[L->base] == NULL;
  bf_ptile *t = NULL;
  BF_CALL(bf_pc_slot_tile(pc, L->base, &t));
  int st = bf_ptile_append(t, srct);
  if (st && created) bf_ptile_destroy(&pc->slots[L->base]);
  return st;
}
