/* Ghost exchange and copies between layouts: fill_boundary, sum_boundary,
 * override_sync, average_sync, parallel_copy (see include/boxfab/multifab.h).
 * Each gets its cached plan (fillboundary_plan.c), compiled once per pair of
 * fab shapes into block copies (bf_xtask), and runs it through the backend's
 * exchange kernel: no allocation per call on one rank (except the staging
 * buffer of runs that read what they write; across ranks, the small arrays
 * of tasks and block offsets of run_distributed), the items of one
 * destination fab in order, destination fabs on concurrent threads. */
#include <stdlib.h>
#include <string.h>

#include "boxfab/arena.h"
#include "runtime/comm.h"
#include "mesh/fillboundary_impl.h"

static void key_init(bf_plan_key *k, int kind, const bf_multifab *dst, const bf_multifab *src,
                     const bf_intvect *dst_ng, const bf_intvect *src_ng, const bf_periodicity *period, bool cross) {
  memset(k, 0, sizeof *k);
  k->kind = kind;
  k->dst_ba = dst->ba, k->dst_dm = dst->dm;
  k->src_ba = src->ba, k->src_dm = src->dm;
  for (int d = 0; d < dst->dim; ++d) {
    k->dst_ng[d] = dst_ng ? dst_ng->v[d] : 0;
    k->src_ng[d] = src_ng ? src_ng->v[d] : 0;
  }
  if (period) {
    bool any = false;
    for (int d = 0; d < dst->dim; ++d) any |= period->period[d] > 0;
    if (any) {
      k->has_period = true;
      k->period = *period;
      for (int d = dst->dim; d < BF_SPACEDIM_MAX; ++d) k->period.period[d] = 0;
    }
  }
  k->cross = cross;
  /* a plan's local/remote split depends on the communicator (one rank: none) */
  const bf_comm *c = bf_comm_of(dst->runtime_id);
  k->comm = bf_comm_size(c) > 1 ? c : NULL;
  k->nprocs = k->comm ? bf_comm_size(c) : 1;
  k->me = k->comm ? bf_comm_rank(c) : 0;
}

/* Backends without an exchange kernel (CUDA): the plan's items as
 * element-wise tasks, the items of one destination fab in order (`serial`:
 * all in plan order); `stage` reads the sources from a copy.  The tasks and
 * the backend's device form of them are kept with the plan (relative to the
 * MultiFabs' buffers, bf_plan_glist_get): a repeated exchange only launches. */
static int run_plan_elementwise(const bf_backend *be, bf_plan *p, int op, double s0, bf_multifab *dst,
                                const bf_multifab *src, int scomp, int dcomp, int ncomp, bool stage, bool serial) {
  bf_multifab *tmp = NULL;
  if (stage && src) {
    BF_CALL(bf_multifab_clone(src, &tmp));
    src = tmp;
  }
  bf_kargs g = {.op = op, .type = bf_ktype_of(dst->dtype), .s0 = s0, .ncomp = ncomp, .acomp = dcomp, .bcomp = scomp};
  const bf_plan_glist *kept = NULL;
  if (be->prepare) {
    int e = bf_plan_glist_get(p, be, &g, dst, src, serial, &kept);
    if (e) {
      bf_multifab_destroy(&tmp);
      return e;
    }
  }
  if (kept) {
    g.abase = (uintptr_t)bf_buffer_data(dst->buffer);
    g.bbase = src ? (uintptr_t)bf_buffer_data(src->buffer) : 0;
    int err = be->run_elementwise(kept->handle, &g);
    bf_multifab_destroy(&tmp);
    BF_CHECK(err == 0, BF_ERROR_MEMORY, "out of memory in the ghost exchange");
    return BF_SUCCESS;
  }
  bf_ktask *t = calloc((size_t)p->nitems, sizeof *t);
  if (!t) {
    bf_multifab_destroy(&tmp);
    BF_ERROR(BF_ERROR_MEMORY, "out of memory in the ghost exchange");
  }
  for (int64_t i = 0; i < p->nitems; ++i) {
    const bf_copy_item *it = &p->items[i];
    bf_box_pad3(&it->region, t[i].lo, t[i].hi);
    memcpy(t[i].shift, it->shift, sizeof t[i].shift);
    bf_mf_kview(dst, it->dst_li, &t[i].a);
    if (src) bf_mf_kview(src, it->src_li, &t[i].b);
  }
  int64_t all[2] = {0, p->nitems};
  int err = be->elementwise(&g, p->nitems, t, serial ? 1 : p->ngroups, serial ? all : p->group_start);
  free(t);
  bf_multifab_destroy(&tmp);
  BF_CHECK(err == 0, BF_ERROR_MEMORY, "out of memory in the ghost exchange");
  return BF_SUCCESS;
}

/* Run the plan: dst[dcomp..] op= src[scomp..] over every item (src NULL for
 * PLUS_S).  `stage`: the sources are read through a staging buffer first
 * (all reads before any write), for runs whose items read points that
 * others write.  `serial`: all items in plan order on one thread. */
static int run_plan(bf_plan *p, int op, double s0, bf_multifab *dst, const bf_multifab *src, int scomp, int dcomp,
                    int ncomp, bool stage, bool serial) {
  if (p->nitems == 0) return BF_SUCCESS;
  const bf_backend *be = bf_mf_backend(dst, src, NULL, "ghost exchange");
  if (!be) return BF_ERROR_VALUE; /* host-only and device-only memory mixed: message set */
  /* fill_boundary's full x faces as whole x-lines (fillboundary_xline.c) where the backend has the
   * kernel (CUDA) and the boxes are at least XLINE_MIN_NX wide in x (H200, 512^3, 2 ghosts,
   * benchmarks/fb_xline_ab.py: 128^3 boxes 0.199 -> 0.177 ms, 32^3 boxes 0.889 -> 0.928: worse,
   * the rest of the items then cost a second launch), or whatever their width when the other items
   * are whole rows of a uniform lattice (bf_xline_desc.rows: everything in one launch, no rest;
   * benchmarks/bench_lattice.cu: 0.536 ms at 32^3 against the tasks' 0.867); BOXFAB_FB_XLINE=0
   * never, =1 always (also on the host: the reference loop, for the tests) */
  /* a plan serves every MultiFab of its BoxArray and DistributionMapping, the iMultiFabs too: the
   * x-line form (double data, its offsets those of the MultiFab it was built for) only for doubles */
  if (p->kind == BF_PLAN_FILL_BOUNDARY && op == BF_KOP_COPY && src == dst && !stage && !serial && dst->nlocal > 0 &&
      dst->dtype == BF_DTYPE_DOUBLE) {
    enum { XLINE_MIN_NX = 64 };
    static int mode = -2;
    if (mode == -2) {
      const char *e = getenv("BOXFAB_FB_XLINE");
      mode = e && *e ? atoi(e) : -1;
    }
    bool device = be->exchange == NULL;
    const bf_box *vb0 = mf_validbox(dst, 0);
    bool wide = vb0->hi[0] - vb0->lo[0] + 1 >= XLINE_MIN_NX;
    if (mode == 1 ? (!device || be->xline_run != NULL) : (mode == -1 && device && be->xline_run != NULL)) {
      const bf_plan_xline *xl;
      BF_CALL(bf_plan_xline_get(p, dst, device ? be : NULL, &xl));
      if (xl->usable && (!device || xl->handle) && (mode == 1 || wide || xl->d.rows)) {
        double *base = bf_buffer_data(dst->buffer);
        if (device) {
          if (be->xline_run(xl->handle, base, dcomp, ncomp)) return bf_error_code() ? bf_error_code() : BF_ERROR_RUNTIME;
        } else {
          bf_xline_run_host(&xl->d, base, dcomp, ncomp);
        }
        return xl->rest ? run_plan(xl->rest, op, s0, dst, src, scomp, dcomp, ncomp, stage, serial) : BF_SUCCESS;
      }
    }
  }
  if (!be->exchange) return run_plan_elementwise(be, p, op, s0, dst, src, scomp, dcomp, ncomp, stage, serial);
  const bf_plan_exec *e;
  BF_CALL(bf_plan_exec_get(p, dst, src, &e));
  bf_xargs g = {.op = op, .type = bf_ktype_of(dst->dtype), .s0 = s0, .ncomp = ncomp, .dcomp = dcomp, .scomp = scomp,
                .dbase = bf_buffer_data(dst->buffer), .doffs = dst->offsets,
                .sbase = src ? bf_buffer_data(src->buffer) : NULL, .soffs = src ? src->offsets : NULL};
  /* serial: all tasks as one unit, in order (the run's tasks are in plan
   * order unless the plan is free-order, when any order gives the same) */
  int64_t one[2] = {0, p->nitems}, onep[2] = {0, e->points};
  bf_xlist serial_list = {.tasks = e->run.tasks, .nunits = 1, .ustart = one, .uprefix = onep};
  if (!stage || !src) {
    BF_CHECK(be->exchange(&g, serial ? &serial_list : &e->run) == 0, BF_ERROR_MEMORY,
             "out of memory in the ghost exchange");
    return BF_SUCCESS;
  }
  serial_list.tasks = e->unpacks.tasks;
  /* staging: block i holds item i's source points, ncomp components, 64-byte aligned */
  size_t es = dst->dtype == BF_DTYPE_DOUBLE ? sizeof(double) : sizeof(int);
  size_t *offs = malloc((size_t)p->nitems * sizeof *offs);
  BF_CHECK(offs != NULL, BF_ERROR_MEMORY, "out of memory in the ghost exchange");
  size_t total = 0;
  for (int64_t i = 0; i < p->nitems; ++i) {
    const bf_copy_item *it = &p->items[i];
    int64_t npts = 1;
    for (int d = 0; d < it->region.dim; ++d) npts *= (int64_t)it->region.hi[d] - it->region.lo[d] + 1;
    offs[i] = total;
    total += ((size_t)npts * (size_t)ncomp * es + 63) / 64 * 64;
  }
  char *buf = aligned_alloc(64, total > 0 ? total : 64);
  if (!buf) {
    free(offs);
    BF_ERROR(BF_ERROR_MEMORY, "out of memory for the staging buffer of the ghost exchange");
  }
  bf_xargs pack = g, unpack = g;
  pack.op = BF_KOP_COPY, pack.dbase = buf, pack.doffs = offs, pack.dcomp = 0;
  unpack.sbase = buf, unpack.soffs = offs, unpack.scomp = 0;
  int err = be->exchange(&pack, &e->packs);
  if (!err) err = be->exchange(&unpack, serial ? &serial_list : &e->unpacks);
  free(buf);
  free(offs);
  BF_CHECK(err == 0, BF_ERROR_MEMORY, "out of memory in the ghost exchange");
  return BF_SUCCESS;
}

/* ---- across ranks ------------------------------------------------------------- *
 * A distributed plan (fillboundary_impl.h) runs as: post a receive per
 * source rank, pack every send item into one buffer (one block per item,
 * ncomp components of its points each, in the order both sides know), post
 * one send per destination rank, run the local items while the messages
 * travel, then apply the received items: as each message arrives when the
 * plan is free-order (no two items write one point), else all late items in
 * plan order once everything arrived.  Every item reads the values from
 * before the call (sends are packed first; runs that read what they write
 * read a copy), so each point gets exactly the one-rank plan's operations in
 * the one-rank order: copies are bitwise equal, and so are sums (the same
 * additions in the same order).  Device memory (a table without the host
 * exchange kernel): packing and unpacking are element-wise kernels into a
 * device buffer, moved through pinned host buffers, or handed to MPI
 * directly when it is CUDA-aware; all buffers are kept with the plan. */

static int64_t xstats[6]; /* last: bytes sent, messages sent, bytes received, messages received; totals sent */
static pthread_mutex_t xstats_lock = PTHREAD_MUTEX_INITIALIZER;

void bf_exchange_stats_get(int64_t out[6]) {
  pthread_mutex_lock(&xstats_lock);
  memcpy(out, xstats, sizeof xstats);
  pthread_mutex_unlock(&xstats_lock);
}

int bf_exchange_stats(int64_t *out, int n) {
  BF_CHECK(out != NULL && n >= 0, BF_ERROR_VALUE, "NULL result array");
  int64_t v[6];
  bf_exchange_stats_get(v);
  for (int i = 0; i < n && i < 6; ++i) out[i] = v[i];
  return BF_SUCCESS;
}

void bf_plan_bufs_free(bf_plan_bufs *b) {
  if (!b) return;
  if (b->be) {
    const bf_backend *pin = bf_backend_for_kind(BF_ARENA_PINNED);
    if (b->sdev) b->be->mem_free(b->dkind, b->sdev, b->scap);
    if (b->rdev) b->be->mem_free(b->dkind, b->rdev, b->rcap);
    if (b->shost) pin->mem_free(BF_ARENA_PINNED, b->shost, b->scap);
    if (b->rhost) pin->mem_free(BF_ARENA_PINNED, b->rhost, b->rcap);
  } else {
    free(b->shost), free(b->rhost);
  }
  free(b);
}

/* Buffers of at least sbytes / rbytes for backend be (dev: device memory
 * with pinned staging unless `aware`), reused from the plan when they fit. */
static int bufs_get(bf_plan *p, const bf_backend *dev, bool aware, size_t sbytes, size_t rbytes, bf_plan_bufs **out) {
  bf_plan_bufs *b = __atomic_exchange_n(&p->bufs, NULL, __ATOMIC_ACQ_REL);
  size_t sneed = sbytes > 64 ? sbytes : 64, rneed = rbytes > 64 ? rbytes : 64;
  bool host_needed = !dev || !aware;
  if (b && (b->be != dev || b->scap < sneed || b->rcap < rneed || (host_needed && (!b->shost || !b->rhost)))) {
    bf_plan_bufs_free(b);
    b = NULL;
  }
  if (b) {
    *out = b;
    return BF_SUCCESS;
  }
  b = calloc(1, sizeof *b);
  BF_CHECK(b != NULL, BF_ERROR_MEMORY, "out of memory for the buffers of the ghost exchange");
  b->be = dev, b->dkind = BF_ARENA_DEVICE, b->scap = sneed, b->rcap = rneed;
  int err = 0;
  if (!dev) {
    b->shost = aligned_alloc(64, (sneed + 63) / 64 * 64);
    b->rhost = aligned_alloc(64, (rneed + 63) / 64 * 64);
    err = !b->shost || !b->rhost;
  } else {
    err = dev->mem_alloc(b->dkind, sneed, &b->sdev);
    if (!err) err = dev->mem_alloc(b->dkind, rneed, &b->rdev);
    if (!err && host_needed) {
      const bf_backend *pin = bf_backend_for_kind(BF_ARENA_PINNED);
      err = pin->mem_alloc(BF_ARENA_PINNED, sneed, &b->shost);
      if (!err) err = pin->mem_alloc(BF_ARENA_PINNED, rneed, &b->rhost);
    }
  }
  if (err) {
    bf_plan_bufs_free(b);
    BF_ERROR(BF_ERROR_MEMORY, "out of memory for the buffers of the ghost exchange (%zu + %zu bytes)", sneed, rneed);
  }
  *out = b;
  return BF_SUCCESS;
}

static void bufs_put(bf_plan *p, bf_plan_bufs *b) {
  bf_plan_bufs *none = NULL;
  if (!__atomic_compare_exchange_n(&p->bufs, &none, b, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    bf_plan_bufs_free(b);
}

/* A dense block of an item (region r, npts points, ncomp components) at `data`. */
static void dense_view(void *data, const bf_box *r, int64_t npts, bf_kview *v) {
  int lo[3], hi[3];
  bf_box_pad3(r, lo, hi);
  v->data = data;
  memcpy(v->lo, lo, sizeof lo);
  v->js = (int64_t)hi[0] - lo[0] + 1;
  v->ks = v->js * ((int64_t)hi[1] - lo[1] + 1);
  v->ns = npts;
}

/* View of local fab li of mf with component `comp` as its component 0. */
static void comp_view(const bf_multifab *mf, int64_t li, int comp, size_t es, bf_kview *v) {
  bf_mf_kview(mf, li, v);
  v->data = (char *)v->data + (size_t)comp * (size_t)v->ns * es;
}

static int run_plan(bf_plan *p, int op, double s0, bf_multifab *dst, const bf_multifab *src, int scomp, int dcomp,
                    int ncomp, bool stage, bool serial);

static int run_distributed(bf_plan *p, int op, double s0, bf_multifab *dst, const bf_multifab *src, int scomp,
                           int dcomp, int ncomp, bool stage) {
  const bf_backend *be = bf_mf_backend(dst, src, NULL, "ghost exchange");
  if (!be) return BF_ERROR_VALUE;
  const bf_comm *comm = bf_comm_of(dst->runtime_id);
  BF_CHECK(!src || bf_comm_of(src->runtime_id) == comm, BF_ERROR_VALUE,
           "ghost exchange: MultiFabs of different runtime instances");
  /* a failure on this rank alone (device, memory) is carried to the agreement below, never returned early:
   * the other ranks would wait for this rank's messages */
  int err = BF_SUCCESS;
  if (bf_backend_host_sync(be) != 0)
    err = bf_error_set(BF_ERROR_RUNTIME, __func__, "ghost exchange: waiting for the device failed");
  bool reads = op != BF_KOP_PLUS_S && src;
  size_t es = dst->dtype == BF_DTYPE_DOUBLE ? sizeof(double) : sizeof(int);
  bf_multifab *snap = NULL;
  if (!err && stage && reads && (p->nitems > 0 || p->nlate > 0 || p->nsitems > 0)) {
    err = bf_multifab_clone(src, &snap); /* every item reads the values from before the call */
    if (!err) src = snap;
  }
  bool device = be->exchange == NULL;
  bool aware = device && bf_comm_cuda_aware();
  size_t sbytes = reads ? (size_t)p->spos[p->nsitems] * (size_t)ncomp * es : 0;
  size_t rbytes = reads ? (size_t)p->rpos[p->nritems] * (size_t)ncomp * es : 0;
  int nsm = reads ? p->nsmsg : 0, nrm = reads ? p->nrmsg : 0;
  bf_plan_bufs *b = NULL;
  bf_ktask *t = NULL;
  bf_comm_reqs rq;
  bool rq_made = false;
  int64_t ntmax = p->nsitems > p->nritems ? p->nsitems : p->nritems;
  if (p->nlate > ntmax) ntmax = p->nlate;
  if (!err && !(t = malloc((size_t)(ntmax > 0 ? ntmax : 1) * sizeof *t)))
    err = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory in the ghost exchange");
  /* host memory: packing and unpacking run the plan's compiled block copies (bf_plan_exec), the blocks of
   * the message buffers at these byte offsets */
  const bf_plan_exec *ex = NULL;
  size_t *soffs = NULL, *roffs = NULL;
  if (!err && !device && reads && (p->nsitems > 0 || p->nritems > 0)) {
    err = bf_plan_exec_get(p, dst, src, &ex);
    if (!err && (!(soffs = malloc((size_t)(p->nsitems + 1) * sizeof *soffs)) ||
                 !(roffs = malloc((size_t)(p->nritems + 1) * sizeof *roffs))))
      err = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory in the ghost exchange");
    for (int64_t i = 0; !err && i < p->nsitems; ++i) soffs[i] = (size_t)p->spos[i] * (size_t)ncomp * es;
    for (int64_t i = 0; !err && i < p->nritems; ++i) roffs[i] = (size_t)p->rpos[i] * (size_t)ncomp * es;
  }
  if (!err && nsm + nrm > 0) {
    err = bufs_get(p, device ? be : NULL, aware, sbytes, rbytes, &b);
    if (!err) err = bf_comm_reqs_init(&rq, comm, nrm + nsm);
    if (!err) rq_made = true;
  }
  char *sdev = b ? (device ? b->sdev : b->shost) : NULL, *rdev = b ? (device ? b->rdev : b->rhost) : NULL;
  char *swire = b ? (aware ? b->sdev : b->shost) : NULL, *rwire = b ? (aware ? b->rdev : b->rhost) : NULL;
  size_t pb = (size_t)ncomp * es; /* bytes per point of a block */
  /* 1. pack (every step that can fail on this rank alone comes before the first message) */
  if (!err && nsm > 0 && ex) {
    bf_xargs g = {.op = BF_KOP_COPY, .type = bf_ktype_of(dst->dtype), .ncomp = ncomp, .dcomp = 0, .scomp = scomp,
                  .dbase = sdev, .doffs = soffs, .sbase = bf_buffer_data(src->buffer), .soffs = src->offsets};
    if (be->exchange(&g, &ex->sunits)) err = BF_ERROR_MEMORY;
  } else if (!err && nsm > 0) {
    for (int64_t i = 0; i < p->nsitems; ++i) {
      const bf_copy_item *it = &p->sitems[i];
      bf_box_pad3(&it->region, t[i].lo, t[i].hi);
      memcpy(t[i].shift, it->shift, sizeof t[i].shift);
      dense_view(sdev + (size_t)p->spos[i] * pb, &it->region, p->spos[i + 1] - p->spos[i], &t[i].a);
      comp_view(src, it->src_li, scomp, es, &t[i].b);
      t[i].c = (bf_kview){0};
      t[i].mask = NULL;
    }
    bf_kargs g = {.op = BF_KOP_COPY, .type = bf_ktype_of(dst->dtype), .ncomp = ncomp};
    if (be->elementwise(&g, p->nsitems, t, 0, NULL)) err = BF_ERROR_MEMORY;
    if (!err && device && be->synchronize() != 0) err = BF_ERROR_RUNTIME;
    if (!err && device && !aware && be->copy_sync(b->shost, b->sdev, sbytes) != 0) err = BF_ERROR_RUNTIME;
  }
  /* fault injection for the tests (tests/mpi/mpi_exchange_faults.py): BOXFAB_FAULT_EXCHANGE_RANK=r makes
   * rank r fail here, as an allocation failing on that rank alone would */
  const char *fault = getenv("BOXFAB_FAULT_EXCHANGE_RANK");
  if (!err && fault && *fault && atoi(fault) == bf_comm_rank(comm))
    err = bf_error_set(BF_ERROR_MEMORY, __func__, "ghost exchange: failure injected on rank %d (BOXFAB_FAULT_EXCHANGE_RANK)",
                       bf_comm_rank(comm));
  /* 2. every rank ready, or every rank raises the first failure: a rank that failed above never leaves
   * the others waiting for its messages (one small collective per call) */
  if (err == BF_ERROR_MEMORY && !bf_error_code()) bf_error_set(err, __func__, "out of memory in the ghost exchange");
  err = bf_comm_agree(comm, err);
  /* 3. receives, then sends */
  for (int m = 0; m < nrm && !err; ++m) {
    const bf_plan_msg *M = &p->rmsg[m];
    err = bf_comm_irecv(&rq, rwire + (size_t)M->pos0 * pb, (size_t)M->points * pb, M->peer, BF_TAG_EXCHANGE, m);
  }
  for (int m = 0; m < nsm && !err; ++m) {
    const bf_plan_msg *M = &p->smsg[m];
    err = bf_comm_isend(&rq, swire + (size_t)M->pos0 * pb, (size_t)M->points * pb, M->peer, BF_TAG_EXCHANGE,
                        nrm + m);
  }
  /* 4. local items while the messages travel */
  if (!err) err = run_plan(p, op, s0, dst, src, scomp, dcomp, ncomp, false, false);
  /* 5. received items */
  bf_kargs g = {.op = op, .type = bf_ktype_of(dst->dtype), .s0 = s0, .ncomp = ncomp, .acomp = 0, .bcomp = 0};
  if (!err && p->free_order) {
    /* each message as it arrives (no receive item meets another's points) */
    if (!reads) { /* PLUS_S: no data */
      for (int64_t i = 0; i < p->nritems; ++i) {
        bf_box_pad3(&p->ritems[i].region, t[i].lo, t[i].hi);
        memset(t[i].shift, 0, sizeof t[i].shift);
        comp_view(dst, p->ritems[i].dst_li, dcomp, es, &t[i].a);
        t[i].b = t[i].c = (bf_kview){0};
        t[i].mask = NULL;
      }
      if (p->nritems > 0 && be->elementwise(&g, p->nritems, t, 0, NULL)) err = BF_ERROR_MEMORY;
    }
    for (int left = nrm + nsm; rq_made && left > 0 && !err; --left) {
      int id = -1;
      err = bf_comm_waitany(&rq, &id);
      if (err || id < 0) break;
      if (id >= nrm) continue; /* a send completed */
      const bf_plan_msg *M = &p->rmsg[id];
      size_t off = (size_t)M->pos0 * pb;
      if (device && !aware && be->copy_sync(b->rdev + off, b->rhost + off, (size_t)M->points * pb) != 0) {
        err = BF_ERROR_RUNTIME;
        break;
      }
      if (ex) {
        bf_xargs x = {.op = op, .type = bf_ktype_of(dst->dtype), .s0 = s0, .ncomp = ncomp, .dcomp = dcomp, .scomp = 0,
                      .dbase = bf_buffer_data(dst->buffer), .doffs = dst->offsets, .sbase = rdev, .soffs = roffs};
        if (be->exchange(&x, &ex->runits[id])) err = BF_ERROR_MEMORY;
        continue;
      }
      bf_ktask *tm = t + M->start;
      for (int64_t i = M->start; i < M->end; ++i) {
        const bf_copy_item *it = &p->ritems[i];
        bf_ktask *k = &t[i];
        bf_box_pad3(&it->region, k->lo, k->hi);
        memset(k->shift, 0, sizeof k->shift);
        comp_view(dst, it->dst_li, dcomp, es, &k->a);
        dense_view(rdev + (size_t)p->rpos[i] * pb, &it->region, p->rpos[i + 1] - p->rpos[i], &k->b);
        k->c = (bf_kview){0};
        k->mask = NULL;
      }
      if (be->elementwise(&g, M->end - M->start, tm, 0, NULL)) err = BF_ERROR_MEMORY;
    }
  } else if (!err) {
    /* all messages, then the late items in plan order */
    if (rq_made) err = bf_comm_waitall(&rq);
    if (!err && device && !aware && rbytes > 0 && be->copy_sync(b->rdev, b->rhost, rbytes) != 0)
      err = BF_ERROR_RUNTIME;
    for (int64_t i = 0; i < p->nlate && !err; ++i) {
      const bf_copy_item *it = &p->late[i];
      bf_ktask *k = &t[i];
      bf_box_pad3(&it->region, k->lo, k->hi);
      comp_view(dst, it->dst_li, dcomp, es, &k->a);
      k->b = k->c = (bf_kview){0};
      k->mask = NULL;
      memset(k->shift, 0, sizeof k->shift);
      if (!reads) continue;
      if (it->src_li >= 0) {
        memcpy(k->shift, it->shift, sizeof k->shift);
        comp_view(src, it->src_li, scomp, es, &k->b);
      } else {
        int64_t r = -1 - it->src_li;
        dense_view(rdev + (size_t)p->rpos[r] * pb, &it->region, p->rpos[r + 1] - p->rpos[r], &k->b);
      }
    }
    if (!err && p->nlate > 0 && be->elementwise(&g, p->nlate, t, p->nlate_groups, p->late_gs)) err = BF_ERROR_MEMORY;
  }
  if (!err && device && be->synchronize() != 0) err = BF_ERROR_RUNTIME;
  if (!err) {
    int64_t rb = 0;
    for (int m = 0; m < nrm; ++m) rb += p->rmsg[m].points * (int64_t)pb;
    pthread_mutex_lock(&xstats_lock);
    xstats[0] = (int64_t)sbytes, xstats[1] = nsm, xstats[2] = rb, xstats[3] = nrm;
    xstats[4] += (int64_t)sbytes, xstats[5] += nsm;
    pthread_mutex_unlock(&xstats_lock);
  }
  if (rq_made) bf_comm_reqs_free(&rq); /* waits for what is still pending */
  if (b) bufs_put(p, b);
  free(t), free(soffs), free(roffs);
  bf_multifab_destroy(&snap);
  if (err == BF_ERROR_MEMORY && !bf_error_code()) bf_error_set(err, __func__, "out of memory in the ghost exchange");
  return err;
}

/* The plan's run on one rank or across ranks. */
static int exec_plan(bf_plan *p, int op, double s0, bf_multifab *dst, const bf_multifab *src, int scomp, int dcomp,
                     int ncomp, bool stage, bool serial) {
  if (p->distributed) return run_distributed(p, op, s0, dst, src, scomp, dcomp, ncomp, stage || serial);
  return run_plan(p, op, s0, dst, src, scomp, dcomp, ncomp, stage, serial);
}

static int common_checks(const bf_multifab *mf, int scomp, int ncomp, const bf_intvect *ng,
                         const bf_periodicity *period, const char *what) {
  BF_CALL(bf_mf_check_data(mf));
  BF_CALL(bf_mf_check_comps(mf, scomp, ncomp, what));
  if (ng) BF_CALL(bf_mf_check_ng(mf, *ng, what));
  BF_CALL(bf_mf_check_period(mf, period));
  return BF_SUCCESS;
}

int bf_multifab_fill_boundary(bf_multifab *mf, int scomp, int ncomp, bf_intvect nghost, const bf_periodicity *period,
                              bool cross) {
  BF_CALL(common_checks(mf, scomp, ncomp, &nghost, period, "fill_boundary"));
  bf_plan_key k;
  /* AMReX leaves edges and corners out of a cross exchange only in the copies
   * between processes (define_fb_metadata); within one process, the only
   * kind of copy here, a cross exchange is the full one: one plan for both */
  (void)cross;
  key_init(&k, BF_PLAN_FILL_BOUNDARY, mf, mf, &nghost, NULL, period, false);
  bf_plan *p;
  BF_CALL(bf_plan_get(&k, &p));
  int err = exec_plan(p, BF_KOP_COPY, 0, mf, mf, scomp, scomp, ncomp, false, false);
  bf_plan_done(p);
  return err;
}

int bf_multifab_sum_boundary(bf_multifab *mf, int scomp, int ncomp, bf_intvect src_nghost, bf_intvect dst_nghost,
                             const bf_periodicity *period) {
  BF_CALL(common_checks(mf, scomp, ncomp, &src_nghost, period, "sum_boundary"));
  BF_CALL(bf_mf_check_ng(mf, dst_nghost, "sum_boundary"));
  bf_plan_key k;
  key_init(&k, BF_PLAN_SUM_BOUNDARY, mf, mf, &dst_nghost, &src_nghost, period, false);
  bf_plan *p;
  BF_CALL(bf_plan_get(&k, &p));
  int err = exec_plan(p, BF_KOP_ADD, 0, mf, mf, scomp, scomp, ncomp, p->needs_tmp, false);
  bf_plan_done(p);
  return err;
}

int bf_multifab_override_sync(bf_multifab *mf, int scomp, int ncomp, const bf_periodicity *period) {
  BF_CALL(common_checks(mf, scomp, ncomp, NULL, period, "override_sync"));
  bf_plan_key k;
  key_init(&k, BF_PLAN_OVERRIDE_SYNC, mf, mf, NULL, NULL, period, false);
  bf_plan *p;
  BF_CALL(bf_plan_get(&k, &p));
  /* In increasing dst order, one after the other: the sources (lower boxes)
   * already hold their owners' values, and the self images come last. */
  int err = exec_plan(p, BF_KOP_COPY, 0, mf, mf, scomp, scomp, ncomp, false, true);
  bf_plan_done(p);
  return err;
}

int bf_multifab_average_sync(bf_multifab *mf, int scomp, int ncomp, const bf_periodicity *period) {
  BF_CALL(common_checks(mf, scomp, ncomp, NULL, period, "average_sync"));
  BF_CHECK(mf->dtype == BF_DTYPE_DOUBLE, BF_ERROR_TYPE, "average_sync needs double data");
  bf_plan_key k;
  key_init(&k, BF_PLAN_AVERAGE_SYNC, mf, mf, NULL, NULL, period, false);
  bf_plan *p;
  BF_CALL(bf_plan_get(&k, &p));
  bf_multifab *cnt = NULL;
  int err = bf_multifab_create(mf->ba, mf->dm, 1, mf->ngrow, BF_DTYPE_DOUBLE, mf->arena, true, &cnt);
  if (!err) err = bf_multifab_set_val_all(cnt, 1.0);
  if (!err) err = exec_plan(p, BF_KOP_ADD, 0, mf, mf, scomp, scomp, ncomp, true, false);
  if (!err) err = exec_plan(p, BF_KOP_PLUS_S, 1.0, cnt, NULL, 0, 0, 1, false, false);
  for (int n = 0; n < ncomp && !err; ++n) err = bf_multifab_divide(mf, cnt, 0, scomp + n, 1, bf_intvect_splat(mf->dim, 0));
  bf_multifab_destroy(&cnt);
  bf_plan_done(p);
  return err;
}

static int pcopy(int op, bf_multifab *dst, const bf_multifab *src, int scomp, int dcomp, int ncomp,
                 bf_intvect src_ng, bf_intvect dst_ng, const bf_periodicity *period, const char *what) {
  BF_CALL(common_checks(dst, dcomp, ncomp, &dst_ng, period, what));
  BF_CHECK(src != NULL, BF_ERROR_VALUE, "%s: NULL source", what);
  BF_CALL(bf_mf_check_data(src));
  BF_CALL(bf_mf_check_comps(src, scomp, ncomp, what));
  BF_CALL(bf_mf_check_ng(src, src_ng, what));
  BF_CHECK(src->dim == dst->dim, BF_ERROR_TYPE, "%s: MultiFabs of dimensions %d and %d", what, src->dim, dst->dim);
  BF_CHECK(src->dtype == dst->dtype, BF_ERROR_TYPE, "%s: MultiFabs of different element types", what);
  BF_CHECK(bf_multifab_ixtype(src) == bf_multifab_ixtype(dst), BF_ERROR_TYPE,
           "%s: MultiFabs of different index types", what);
  bf_plan_key k;
  key_init(&k, BF_PLAN_COPY, dst, src, &dst_ng, &src_ng, period, false);
  bf_plan *p;
  BF_CALL(bf_plan_get(&k, &p));
  int err = exec_plan(p, op, 0, dst, src, scomp, dcomp, ncomp, src == dst, false);
  bf_plan_done(p);
  return err;
}

int bf_multifab_parallel_copy(bf_multifab *dst, const bf_multifab *src, int scomp, int dcomp, int ncomp,
                              bf_intvect src_ng, bf_intvect dst_ng, const bf_periodicity *period) {
  return pcopy(BF_KOP_COPY, dst, src, scomp, dcomp, ncomp, src_ng, dst_ng, period, "parallel_copy");
}

int bf_multifab_parallel_add(bf_multifab *dst, const bf_multifab *src, int scomp, int dcomp, int ncomp,
                             bf_intvect src_ng, bf_intvect dst_ng, const bf_periodicity *period) {
  return pcopy(BF_KOP_ADD, dst, src, scomp, dcomp, ncomp, src_ng, dst_ng, period, "parallel_add");
}
