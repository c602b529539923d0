/* CUDA backend: the table's elementwise and reduce, and the kept lists
 * (prepare / run_elementwise / run_reduce / release), host side.
 *
 * A task list becomes a launch list (cuda/impl.h: per task its base
 * pointers and strides, and the pieces of at most BF_CUDA_TILE elements),
 * built in a pinned staging buffer and uploaded once with one
 * cudaMemcpyAsync on boxfab's stream into device memory of its own: a
 * `cu_list`.  Lists the core keeps (a MultiFab's cached task lists, a copy
 * plan's element-wise form) get their cu_list through `prepare` and keep it
 * as a handle: a later call costs only the launches, with no task list to
 * build, hash or compare.  Lists handed to `elementwise`/`reduce` directly
 * are cached by contents (the last CACHE_N, least recently used goes first):
 * a later call with an equal task list reuses the device copy after one
 * comparison.  Equal contents give equal device data, so a reused address
 * cannot make a stale entry wrong.  Reductions with owner masks are not
 * cached (the masks are built per call); they go through a scratch device
 * buffer.
 *
 * Elementwise returns without waiting (stream order keeps later work after
 * it).  A reduction is one kernel (cuda/kernels.cu: a grid that fills the
 * device walks the pieces, one partial per piece, the last block to finish
 * combines them and writes the result to mapped pinned memory), then one
 * stream synchronization.  The staging buffer is reused once the previous upload
 * has finished (an event).
 *
 * Ordered groups (the ghost exchange): tasks of a group must act as if run in
 * order.  They are put in phases: a task goes one phase after every earlier
 * task of its group it conflicts with (writes what the other reads or writes,
 * or reads what it writes); one launch per phase, so a group without
 * conflicts (the usual case) costs one launch for all tasks. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "boxfab/base.h"
#include "impl.h"

#define CACHE_N 16

static pthread_mutex_t ops_lock = PTHREAD_MUTEX_INITIALIZER;
static void *h_stage, *d_stage;
static size_t h_cap, d_cap;
static int d_dev = -1;
static cudaEvent_t stage_ev;
static bool stage_ev_made, stage_ev_pending;
static bf_cuda_rpart *h_result;     /* pinned and mapped: the reduction's result */
static bf_cuda_rpart *d_result;     /* the same memory, as the kernels see it */
static void *d_rscratch;            /* reductions: partials and counters (cuda/impl.h) */
static int64_t rscratch_cap;        /* pieces it has room for */
static int rscratch_dev = -1;

static int64_t task_elems(const bf_ktask *t, int ncomp) {
  int64_t n = ncomp;
  for (int d = 0; d < 3; ++d) {
    if (t->hi[d] < t->lo[d]) return 0;
    n *= (int64_t)t->hi[d] - t->lo[d] + 1;
  }
  return n;
}

static size_t align64(size_t n) { return (n + 63) & ~(size_t)63; }

/* Free device memory `p` of device `dev` once nothing uses it any more. */
static void dev_free(int dev, void *p) {
  if (!p) return;
  int cur = -1;
  (void)cudaGetDevice(&cur);
  if (cur != dev) (void)cudaSetDevice(dev);
  (void)cudaDeviceSynchronize();
  (void)cudaFree(p);
  if (cur != dev) (void)cudaSetDevice(cur);
  (void)cudaGetLastError();
}

/* Room for `n` bytes in the host staging buffer (and, when `dev_too`, in the
 * device scratch buffer); waits until the staging buffer may be overwritten.
 * Called with ops_lock held. */
static int stage_reserve(size_t n, bool dev_too) {
  cudaError_t e;
  if (!stage_ev_made) {
    if ((e = cudaEventCreateWithFlags(&stage_ev, cudaEventDisableTiming)) != cudaSuccess) return bf_cuda_fail(e, "kernel");
    stage_ev_made = true;
  }
  if (stage_ev_pending) {
    if ((e = cudaEventSynchronize(stage_ev)) != cudaSuccess) return bf_cuda_fail(e, "kernel");
    stage_ev_pending = false;
  }
  int dev = -1;
  (void)cudaGetDevice(&dev);
  if (n > h_cap) {
    size_t cap = n > 2 * h_cap ? n : 2 * h_cap;
    if (h_stage) cudaFreeHost(h_stage);
    h_stage = NULL, h_cap = 0;
    if ((e = cudaMallocHost(&h_stage, cap)) != cudaSuccess) return bf_cuda_fail(e, "kernel");
    h_cap = cap;
  }
  if (dev_too && (n > d_cap || dev != d_dev)) {
    size_t cap = n > 2 * d_cap ? n : 2 * d_cap;
    dev_free(d_dev, d_stage);
    d_stage = NULL, d_cap = 0;
    if ((e = cudaMalloc(&d_stage, cap)) != cudaSuccess) return bf_cuda_fail(e, "kernel");
    d_cap = cap, d_dev = dev;
  }
  return BF_SUCCESS;
}

/* Upload the first n bytes of the staging buffer to dst.  Called with ops_lock held. */
static int stage_upload(void *dst, size_t n, cudaStream_t s) {
  if (n == 0) return BF_SUCCESS;
  cudaError_t e = cudaMemcpyAsync(dst, h_stage, n, cudaMemcpyHostToDevice, s);
  if (e != cudaSuccess) return bf_cuda_fail(e, "kernel");
  if ((e = cudaEventRecord(stage_ev, s)) != cudaSuccess) return bf_cuda_fail(e, "kernel");
  stage_ev_pending = true;
  return BF_SUCCESS;
}

/* The reduction scratch for `npieces` pieces (zeroed counter), and the
 * pinned result.  Called with ops_lock held. */
static int rscratch_reserve(int64_t npieces, cudaStream_t s, bf_cuda_rscratch *out) {
  cudaError_t e;
  int dev = -1;
  (void)cudaGetDevice(&dev);
  if (!h_result) { /* pinned and mapped: the kernel's last block writes the result there (no copy to wait for) */
    if ((e = cudaHostAlloc((void **)&h_result, sizeof *h_result, cudaHostAllocPortable | cudaHostAllocMapped)) !=
        cudaSuccess) {
      h_result = NULL;
      return bf_cuda_fail(e, "kernel");
    }
    if ((e = cudaHostGetDevicePointer((void **)&d_result, h_result, 0)) != cudaSuccess) {
      (void)cudaFreeHost(h_result);
      h_result = d_result = NULL;
      return bf_cuda_fail(e, "kernel");
    }
  }
  if (npieces > rscratch_cap || dev != rscratch_dev) {
    int64_t cap = npieces > 2 * rscratch_cap ? npieces : 2 * rscratch_cap;
    size_t bytes = bf_cuda_rscratch_bytes(cap);
    dev_free(rscratch_dev, d_rscratch);
    d_rscratch = NULL, rscratch_cap = 0;
    if ((e = cudaMalloc(&d_rscratch, bytes)) != cudaSuccess) return bf_cuda_fail(e, "kernel");
    rscratch_cap = cap, rscratch_dev = dev;
    /* the counter starts at 0; every launch leaves it at 0 */
    if ((e = cudaMemsetAsync(d_rscratch, 0, bytes, s)) != cudaSuccess) return bf_cuda_fail(e, "kernel");
  }
  *out = bf_cuda_rscratch_at(d_rscratch, d_result);
  return BF_SUCCESS;
}

/* ---- launch lists ------------------------------------------------------------------- */

/* Pieces of a task of nx * ny * (nz*ncomp planes) elements (see cuda/impl.h);
 * writes them to out (when not NULL) and returns their number. */
static int64_t cut_task(int ti, int nx, int ny, int64_t planes, int tile, bf_cuda_piece *out) {
  int64_t m = 0;
  if (nx >= tile) {
    for (int64_t p = 0; p < planes; ++p)
      for (int j = 0; j < ny; ++j)
        for (int x0 = 0; x0 < nx; x0 += tile, ++m) {
          int w = nx - x0 < tile ? nx - x0 : tile;
          if (out) out[m] = (bf_cuda_piece){ti, (int)p, 1, j, 1, x0, w, w};
        }
  } else if ((int64_t)nx * ny >= tile) {
    int r = tile / nx;
    for (int64_t p = 0; p < planes; ++p)
      for (int j0 = 0; j0 < ny; j0 += r, ++m) {
        int nj = ny - j0 < r ? ny - j0 : r;
        if (out) out[m] = (bf_cuda_piece){ti, (int)p, 1, j0, nj, 0, nx, nx * nj};
      }
  } else {
    int q = tile / (nx * ny);
    for (int64_t p0 = 0; p0 < planes; p0 += q, ++m) {
      int np = planes - p0 < q ? (int)(planes - p0) : q;
      if (out) out[m] = (bf_cuda_piece){ti, (int)p0, np, 0, ny, 0, nx, nx * ny * np};
    }
  }
  return m;
}

/* Base of view v at lo - shift; unused views (data NULL in an absolute
 * list) give 0.  In a relative list data is a byte offset (0 for a fab at
 * the start of its buffer) and the kernel adds the call's base. */
static uintptr_t view_base(const bf_kview *v, const int lo[3], const int shift[3], size_t es, bool rel) {
  if (!v->data && !rel) return 0;
  int64_t o = ((int64_t)lo[0] - shift[0] - v->lo[0]) + ((int64_t)lo[1] - shift[1] - v->lo[1]) * v->js +
              ((int64_t)lo[2] - shift[2] - v->lo[2]) * v->ks;
  return (uintptr_t)v->data + (uintptr_t)(o * (int64_t)es);
}

static void make_ctask(const bf_ktask *t, size_t es, int64_t gofs, bool rel, bf_cuda_ctask *c) {
  static const int noshift[3] = {0, 0, 0};
  memset(c, 0, sizeof *c);
  c->a = view_base(&t->a, t->lo, noshift, es, rel);
  c->b = view_base(&t->b, t->lo, t->shift, es, rel);
  c->c = view_base(&t->c, t->lo, t->shift, es, rel);
  c->ajs = t->a.js, c->aks = t->a.ks, c->ans = t->a.ns;
  c->bjs = t->b.js, c->bks = t->b.ks, c->bns = t->b.ns;
  c->cjs = t->c.js, c->cks = t->c.ks, c->cns = t->c.ns;
  c->nx = t->hi[0] - t->lo[0] + 1, c->ny = t->hi[1] - t->lo[1] + 1, c->nz = t->hi[2] - t->lo[2] + 1;
  c->gofs = gofs;
}

/* One launch of a launch list: tasks and pieces at these byte offsets. */
typedef struct launch {
  size_t toff, poff;
  int64_t npieces;
} launch;

/* Where a piece's first element is in memory, in bytes (views a and b): the
 * lower of the two, the order of pieces in exchange launches. */
typedef struct keyed_piece {
  uintptr_t key;
  bf_cuda_piece pc;
} keyed_piece;

static uintptr_t piece_key(const bf_cuda_ctask *ct, const bf_cuda_piece *pc, size_t es) {
  int64_t k = pc->p0 % ct->nz, n = pc->p0 / ct->nz;
  uintptr_t a = ct->a + (uintptr_t)((pc->x0 + pc->j0 * ct->ajs + k * ct->aks + n * ct->ans) * (int64_t)es);
  if (!ct->b) return a;
  uintptr_t b = ct->b + (uintptr_t)((pc->x0 + pc->j0 * ct->bjs + k * ct->bks + n * ct->bns) * (int64_t)es);
  return a < b ? a : b;
}

static int cmp_keyed(const void *x, const void *y) {
  const keyed_piece *p = x, *q = y;
  if (p->key != q->key) return p->key < q->key ? -1 : 1;
  return p->pc.task != q->pc.task ? (p->pc.task < q->pc.task ? -1 : 1) : (p->pc.p0 < q->pc.p0 ? -1 : p->pc.p0 > q->pc.p0);
}

/* Pieces of one launch of an exchange in memory order: a ghost region and
 * the valid cells beside it (which a mirror task reads) share DRAM sectors,
 * so the pieces that touch the same rows run at about the same time and meet
 * in the L2 cache instead of each fetching the sectors (a thin x-face
 * touches 16 bytes of every row).  The tasks of a launch are independent, so
 * any order gives the same result (out of memory: they stay in task
 * order). */
static void order_pieces(const bf_cuda_ctask *ct, bf_cuda_piece *pc, int64_t np, size_t es) {
  keyed_piece *k = np > 1 ? malloc((size_t)np * sizeof *k) : NULL;
  if (!k) return;
  for (int64_t i = 0; i < np; ++i) k[i].key = piece_key(&ct[pc[i].task], &pc[i], es), k[i].pc = pc[i];
  qsort(k, (size_t)np, sizeof *k, cmp_keyed);
  for (int64_t i = 0; i < np; ++i) pc[i] = k[i].pc;
  free(k);
}

/* The launch lists of tasks[sel[0..n)] (n_l of them for launch l, sel
 * concatenated), laid out from byte `base` of the staging buffer (NULL: only
 * count); returns the bytes used.  Tasks must be non-empty.  `by_address`:
 * the pieces of each launch in memory order (order_pieces; exchanges). */
static size_t build_launches(const bf_kargs *g, const bf_ktask *tasks, const int64_t *sel, const int64_t *nsel,
                             int64_t nl, bool rel, bool by_address, char *h, launch *ls) {
  size_t es = g->type == BF_KTYPE_DOUBLE ? sizeof(double) : sizeof(int), off = 0;
  const int tile = by_address ? BF_CUDA_XTILE : BF_CUDA_TILE;
  const int64_t *s = sel;
  for (int64_t l = 0; l < nl; ++l) {
    int64_t np = 0, gofs = 0;
    for (int64_t i = 0; i < nsel[l]; ++i) {
      const bf_ktask *t = &tasks[s[i]];
      np += cut_task((int)i, t->hi[0] - t->lo[0] + 1, t->hi[1] - t->lo[1] + 1,
                     (int64_t)(t->hi[2] - t->lo[2] + 1) * g->ncomp, tile, NULL);
    }
    size_t toff = off, poff = align64(toff + (size_t)nsel[l] * sizeof(bf_cuda_ctask));
    off = align64(poff + (size_t)np * sizeof(bf_cuda_piece));
    if (h) {
      bf_cuda_ctask *ct = (bf_cuda_ctask *)(h + toff);
      bf_cuda_piece *pc = (bf_cuda_piece *)(h + poff);
      int64_t m = 0;
      for (int64_t i = 0; i < nsel[l]; ++i) {
        const bf_ktask *t = &tasks[s[i]];
        make_ctask(t, es, gofs, rel, &ct[i]);
        gofs += task_elems(t, g->ncomp);
        m += cut_task((int)i, ct[i].nx, ct[i].ny, (int64_t)ct[i].nz * g->ncomp, tile, pc + m);
      }
      if (by_address) order_pieces(ct, pc, np, es);
      ls[l] = (launch){toff, poff, np};
    }
    s += nsel[l];
  }
  return off;
}

/* ---- device lists ------------------------------------------------------------------- */

/* A non-empty task of a non-grouped list, for the index of a min/max. */
typedef struct tinfo {
  int64_t gofs; /* global element index of its first element */
  int lo[3], n[3];
} tinfo;

/* The device form of a task list (a handle of `prepare`). */
typedef struct cu_list {
  int dev, type, ncomp, acomp, bcomp, ccomp, opbits;
  bool grouped;
  void *dbuf;
  int64_t nlaunch;
  launch *launches;
  int64_t nsel; /* non-grouped: the non-empty tasks, in launch order */
  tinfo *tinfo;
} cu_list;

static void list_free(cu_list *l) {
  if (!l) return;
  if (l->dbuf) dev_free(l->dev, l->dbuf);
  free(l->launches);
  free(l->tinfo);
  free(l);
}

static bool list_matches(const cu_list *l, const bf_kargs *g, int dev) {
  if (l->dev != dev || l->type != g->type || l->ncomp != g->ncomp) return false;
  return !l->grouped || (l->opbits == bf_khandle_opbits(g->op) && l->acomp == g->acomp && l->bcomp == g->bcomp &&
                         l->ccomp == g->ccomp);
}

static void fill_tinfo(const bf_ktask *tasks, const int64_t *sel, int64_t n, int ncomp, tinfo *ti) {
  int64_t gofs = 0;
  for (int64_t i = 0; i < n; ++i) {
    const bf_ktask *t = &tasks[sel[i]];
    ti[i].gofs = gofs;
    for (int d = 0; d < 3; ++d) ti[i].lo[d] = t->lo[d], ti[i].n[d] = t->hi[d] - t->lo[d] + 1;
    gofs += task_elems(t, ncomp);
  }
}

static int64_t make_phases(const bf_kargs *g, int64_t ntasks, const bf_ktask *tasks, int64_t ngroups,
                           const int64_t *group_start, int64_t *phase);

/* Build and upload the device list of `tasks` for calls like g.  Called with ops_lock held. */
static int list_build(const bf_kargs *g, int dev, int64_t ntasks, const bf_ktask *tasks, int64_t ngroups,
                      const int64_t *groups, bool rel, cudaStream_t s, cu_list **out) {
  int64_t *phase = calloc((size_t)(ntasks > 0 ? ntasks : 1), sizeof *phase);
  int64_t *sel = malloc((size_t)(ntasks > 0 ? ntasks : 1) * sizeof *sel);
  int64_t *nsel = NULL, nphases = 1, nl = 0;
  cu_list *l = calloc(1, sizeof *l);
  int err = 0;
  if (!phase || !sel || !l) goto oom;
  if (groups && ntasks > 0) {
    nphases = make_phases(g, ntasks, tasks, ngroups, groups, phase);
    if (nphases == 0) goto oom;
  }
  nsel = calloc((size_t)nphases, sizeof *nsel);
  l->launches = calloc((size_t)nphases, sizeof *l->launches);
  if (!nsel || !l->launches) goto oom;
  int64_t m = 0;
  for (int64_t p = 0; p < nphases; ++p) {
    int64_t c = 0;
    for (int64_t t = 0; t < ntasks; ++t)
      if (phase[t] == p && task_elems(&tasks[t], g->ncomp) > 0) sel[m + c++] = t;
    if (c) nsel[nl++] = c, m += c;
  }
  if (!groups) {
    l->nsel = m;
    l->tinfo = malloc((size_t)(m > 0 ? m : 1) * sizeof *l->tinfo);
    if (!l->tinfo) goto oom;
    fill_tinfo(tasks, sel, m, g->ncomp, l->tinfo);
  }
  size_t bytes = build_launches(g, tasks, sel, nsel, nl, rel, groups != NULL, NULL, NULL);
  if ((err = stage_reserve(bytes, false))) goto fail;
  build_launches(g, tasks, sel, nsel, nl, rel, groups != NULL, h_stage, l->launches);
  cudaError_t ce = cudaMalloc(&l->dbuf, bytes > 0 ? bytes : 64);
  if (ce != cudaSuccess) {
    l->dbuf = NULL;
    err = bf_cuda_fail(ce, "kernel");
    goto fail;
  }
  l->dev = dev;
  if ((err = stage_upload(l->dbuf, bytes, s))) goto fail;
  l->type = g->type, l->ncomp = g->ncomp, l->acomp = g->acomp, l->bcomp = g->bcomp, l->ccomp = g->ccomp;
  l->opbits = bf_khandle_opbits(g->op);
  l->grouped = groups != NULL;
  l->nlaunch = nl;
  free(phase);
  free(sel);
  free(nsel);
  *out = l;
  return BF_SUCCESS;
oom:
  err = bf_error_set(BF_ERROR_MEMORY, "kernel", "out of memory for a CUDA task list");
fail:
  list_free(l);
  free(phase);
  free(sel);
  free(nsel);
  return err;
}

/* ---- the cache of lists by contents --------------------------------------------------- */

typedef struct entry {
  bool used;
  int64_t ntasks, ngroups;
  bf_ktask *tasks;  /* host copy of the task list (masks NULL) */
  int64_t *groups;  /* group_start (ngroups + 1) or NULL */
  cu_list *list;
  uint64_t stamp;
} entry;

static entry cache[CACHE_N];
static uint64_t clock_now;
static bool exit_hook;

static bool view_eq(const bf_kview *x, const bf_kview *y) {
  return x->data == y->data && x->lo[0] == y->lo[0] && x->lo[1] == y->lo[1] && x->lo[2] == y->lo[2] &&
         x->js == y->js && x->ks == y->ks && x->ns == y->ns;
}

static bool task_eq(const bf_ktask *x, const bf_ktask *y) {
  for (int d = 0; d < 3; ++d)
    if (x->lo[d] != y->lo[d] || x->hi[d] != y->hi[d] || x->shift[d] != y->shift[d]) return false;
  return view_eq(&x->a, &y->a) && view_eq(&x->b, &y->b) && view_eq(&x->c, &y->c);
}

static void entry_clear(entry *e) {
  list_free(e->list);
  free(e->tasks);
  free(e->groups);
  memset(e, 0, sizeof *e);
}

/* At exit: give the device buffers back (so that leak checkers see only real leaks). */
static void release_all(void) {
  pthread_mutex_lock(&ops_lock);
  for (int i = 0; i < CACHE_N; ++i) entry_clear(&cache[i]);
  dev_free(d_dev, d_stage);
  dev_free(rscratch_dev, d_rscratch);
  d_stage = NULL, d_rscratch = NULL, d_cap = 0, rscratch_cap = 0, d_dev = rscratch_dev = -1;
  if (h_stage) (void)cudaFreeHost(h_stage);
  if (h_result) (void)cudaFreeHost(h_result);
  h_stage = NULL, h_result = d_result = NULL, h_cap = 0;
  if (stage_ev_made) (void)cudaEventDestroy(stage_ev);
  stage_ev_made = stage_ev_pending = false;
  (void)cudaGetLastError();
  pthread_mutex_unlock(&ops_lock);
}

static void need_exit_hook(void) {
  if (!exit_hook) exit_hook = atexit(release_all) == 0;
}

static entry *cache_find(const bf_kargs *g, int dev, int64_t ntasks, const bf_ktask *tasks, int64_t ngroups,
                         const int64_t *groups) {
  bool grouped = groups != NULL;
  for (int i = 0; i < CACHE_N; ++i) {
    entry *e = &cache[i];
    if (!e->used || e->ntasks != ntasks || (e->groups != NULL) != grouped || !list_matches(e->list, g, dev)) continue;
    if (grouped && (e->ngroups != ngroups || memcmp(e->groups, groups, (size_t)(ngroups + 1) * sizeof *groups) != 0))
      continue;
    int64_t t = 0;
    while (t < ntasks && task_eq(&e->tasks[t], &tasks[t])) ++t;
    if (t < ntasks) continue;
    e->stamp = ++clock_now;
    return e;
  }
  return NULL;
}

/* A free slot (the least recently used entry is dropped). */
static entry *cache_slot(void) {
  entry *best = &cache[0];
  for (int i = 0; i < CACHE_N; ++i) {
    if (!cache[i].used) return &cache[i];
    if (cache[i].stamp < best->stamp) best = &cache[i];
  }
  entry_clear(best);
  return best;
}

/* Build, upload and cache the list of a call.  Called with ops_lock held. */
static int cache_add(const bf_kargs *g, int dev, int64_t ntasks, const bf_ktask *tasks, int64_t ngroups,
                     const int64_t *groups, cudaStream_t s, entry **out) {
  bf_ktask *copy = malloc((size_t)ntasks * sizeof *copy);
  int64_t *gcopy = groups ? malloc((size_t)(ngroups + 1) * sizeof *gcopy) : NULL;
  if (!copy || (groups && !gcopy)) {
    free(copy), free(gcopy);
    return bf_error_set(BF_ERROR_MEMORY, "kernel", "out of memory for a CUDA task list");
  }
  cu_list *l = NULL;
  int err = list_build(g, dev, ntasks, tasks, ngroups, groups, false, s, &l);
  if (err) {
    free(copy), free(gcopy);
    return err;
  }
  for (int64_t t = 0; t < ntasks; ++t) {
    copy[t] = tasks[t];
    copy[t].mask = NULL;
  }
  if (groups) memcpy(gcopy, groups, (size_t)(ngroups + 1) * sizeof *gcopy);
  entry *e = cache_slot();
  *e = (entry){.used = true, .ntasks = ntasks, .ngroups = ngroups, .tasks = copy, .groups = gcopy, .list = l,
               .stamp = ++clock_now};
  need_exit_hook();
  *out = e;
  return BF_SUCCESS;
}

/* ---- conflicts inside ordered groups ------------------------------------------------ */

typedef struct access {
  const void *fab;
  int lo[3], hi[3];
  int c0, c1; /* components [c0, c1) */
  bool write;
} access;

static bool overlaps(const access *x, const access *y) {
  if (x->fab != y->fab || x->c1 <= y->c0 || y->c1 <= x->c0) return false;
  for (int d = 0; d < 3; ++d)
    if (x->hi[d] < y->lo[d] || y->hi[d] < x->lo[d]) return false;
  return true;
}

/* The accesses of task t (at most 3); returns their number. */
static int accesses(const bf_kargs *g, const bf_ktask *t, access acc[3]) {
  int m = 0;
  bool ub = g->op >= BF_KOP_COPY, uc = g->op == BF_KOP_LINCOMB || g->op == BF_KOP_ADDPRODUCT;
  acc[m] = (access){t->a.data, {t->lo[0], t->lo[1], t->lo[2]}, {t->hi[0], t->hi[1], t->hi[2]}, g->acomp,
                    g->acomp + g->ncomp, true};
  ++m;
  const bf_kview *src[2] = {ub ? &t->b : NULL, uc ? &t->c : NULL};
  int comp[2] = {g->bcomp, g->ccomp};
  for (int s = 0; s < 2; ++s) {
    if (!src[s]) continue;
    access *x = &acc[m++];
    x->fab = src[s]->data;
    for (int d = 0; d < 3; ++d) x->lo[d] = t->lo[d] - t->shift[d], x->hi[d] = t->hi[d] - t->shift[d];
    x->c0 = comp[s], x->c1 = comp[s] + g->ncomp;
    x->write = g->op == BF_KOP_SWAP && s == 0;
  }
  return m;
}

static bool conflict(const bf_kargs *g, const bf_ktask *u, const bf_ktask *v) {
  access au[3], av[3];
  int nu = accesses(g, u, au), nv = accesses(g, v, av);
  for (int i = 0; i < nu; ++i)
    for (int j = 0; j < nv; ++j)
      if ((au[i].write || av[j].write) && overlaps(&au[i], &av[j])) return true;
  return false;
}

static int cmp_ptr(const void *x, const void *y) {
  uintptr_t a = (uintptr_t) * (void *const *)x, b = (uintptr_t) * (void *const *)y;
  return a < b ? -1 : a > b;
}

static int fab_id(void *const *fabs, int64_t nfabs, const void *p) {
  int64_t lo = 0, hi = nfabs - 1;
  while (lo <= hi) {
    int64_t mid = (lo + hi) / 2;
    uintptr_t m = (uintptr_t)fabs[mid];
    if (m == (uintptr_t)p) return (int)mid;
    if (m < (uintptr_t)p) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/* phase[t] for every task; returns the number of phases (0 on out of memory).
 * Only earlier tasks of the group touching one of the same fabs are compared:
 * per fab, a list of the group's tasks so far. */
static int64_t make_phases(const bf_kargs *g, int64_t ntasks, const bf_ktask *tasks, int64_t ngroups,
                           const int64_t *group_start, int64_t *phase) {
  void **fabs = malloc((size_t)(3 * ntasks + 1) * sizeof *fabs);
  int64_t *head = NULL, *next = NULL, *touched = NULL;
  int64_t nfabs = 0, nphases = 0;
  bool ok = fabs != NULL;
  if (ok) {
    for (int64_t t = 0; t < ntasks; ++t) {
      access a[3];
      int m = accesses(g, &tasks[t], a);
      for (int i = 0; i < m; ++i) fabs[nfabs++] = (void *)a[i].fab;
    }
    qsort(fabs, (size_t)nfabs, sizeof *fabs, cmp_ptr);
    int64_t u = 0;
    for (int64_t i = 0; i < nfabs; ++i)
      if (u == 0 || fabs[u - 1] != fabs[i]) fabs[u++] = fabs[i];
    nfabs = u;
    head = malloc((size_t)(nfabs + 1) * sizeof *head);
    next = malloc((size_t)(3 * ntasks + 1) * sizeof *next); /* node 3t+i: access i of task t */
    touched = malloc((size_t)(3 * ntasks + 1) * sizeof *touched);
    ok = head && next && touched;
  }
  if (ok) {
    for (int64_t f = 0; f < nfabs; ++f) head[f] = -1;
    for (int64_t gi = 0; gi < ngroups; ++gi) {
      int64_t ntouched = 0;
      for (int64_t v = group_start[gi]; v < group_start[gi + 1]; ++v) {
        access av[3];
        int mv = accesses(g, &tasks[v], av);
        int64_t ph = 0;
        for (int j = 0; j < mv; ++j)
          for (int64_t node = head[fab_id(fabs, nfabs, av[j].fab)]; node >= 0; node = next[node]) {
            int64_t u = node / 3;
            if (phase[u] + 1 > ph && conflict(g, &tasks[u], &tasks[v])) ph = phase[u] + 1;
          }
        phase[v] = ph;
        if (ph + 1 > nphases) nphases = ph + 1;
        for (int j = 0; j < mv; ++j) {
          int f = fab_id(fabs, nfabs, av[j].fab);
          if (head[f] < 0) touched[ntouched++] = f;
          next[3 * v + j] = head[f];
          head[f] = 3 * v + j;
        }
      }
      for (int64_t i = 0; i < ntouched; ++i) head[touched[i]] = -1;
    }
  }
  free(fabs);
  free(head);
  free(next);
  free(touched);
  return ok ? nphases : 0;
}

/* ---- running lists ------------------------------------------------------------------- */

static int run_ew(const cu_list *l, const bf_kargs *g, cudaStream_t s) {
  for (int64_t i = 0; i < l->nlaunch; ++i) {
    const launch *L = &l->launches[i];
    cudaError_t ce = (cudaError_t)bf_cuda_launch_elementwise(g, (const bf_cuda_ctask *)((char *)l->dbuf + L->toff),
                                                             (const bf_cuda_piece *)((char *)l->dbuf + L->poff),
                                                             L->npieces, s);
    if (ce != cudaSuccess) return bf_cuda_fail(ce, "elementwise kernel");
  }
  return BF_SUCCESS;
}

static bool int_sum(const bf_kargs *g) {
  return g->type == BF_KTYPE_INT &&
         (g->op == BF_ROP_SUM || g->op == BF_ROP_ABSSUM || g->op == BF_ROP_SUMSQ || g->op == BF_ROP_DOT);
}

/* One reduction launch over the pieces at `base` (L), result into *out.
 * Called with ops_lock held. */
static int run_reduce_at(const bf_kargs *g, const char *base, const launch *L, const tinfo *ti, int64_t nti,
                         cudaStream_t s, bf_kresult *out) {
  memset(out, 0, sizeof *out);
  if (L->npieces <= 0) return BF_SUCCESS;
  bf_cuda_rscratch sc;
  BF_CALL(rscratch_reserve(L->npieces, s, &sc));
  cudaError_t e = (cudaError_t)bf_cuda_launch_reduce(g, (const bf_cuda_ctask *)(base + L->toff),
                                                     (const bf_cuda_piece *)(base + L->poff), L->npieces, &sc, s);
  if (e == cudaSuccess) e = cudaStreamSynchronize(s);
  if (e != cudaSuccess) return bf_cuda_fail(e, "reduction kernel");
  bf_cuda_rpart r = *h_result;
  bool minmax = g->op == BF_ROP_MIN || g->op == BF_ROP_MAX;
  if (int_sum(g)) {
    out->isum = r.aux;
    out->value = (double)out->isum;
  } else {
    out->value = r.v;
  }
  out->found = minmax ? r.aux >= 0 : (g->op == BF_ROP_ABSMAX || g->op == BF_ROP_HASNAN || g->op == BF_ROP_HASINF) && r.aux != 0;
  if (minmax && r.aux >= 0 && nti > 0) {
    int64_t lo = 0, hi = nti - 1; /* the last task starting at or before element r.aux */
    while (lo < hi) {
      int64_t mid = (lo + hi + 1) / 2;
      if (ti[mid].gofs <= r.aux) lo = mid;
      else hi = mid - 1;
    }
    const tinfo *t = &ti[lo];
    int64_t l = r.aux - t->gofs, nx = t->n[0], ny = t->n[1], nz = t->n[2];
    out->index[0] = t->lo[0] + (int)(l % nx);
    out->index[1] = t->lo[1] + (int)(l / nx % ny);
    out->index[2] = t->lo[2] + (int)(l / nx / ny % nz);
  }
  return BF_SUCCESS;
}

/* ---- the table's functions ----------------------------------------------------------- */

int bf_cuda_elementwise(const bf_kargs *args, int64_t ntasks, const bf_ktask *tasks, int64_t ngroups,
                        const int64_t *group_start) {
  if (ntasks <= 0) return 0;
  cudaStream_t s = bf_cuda_stream();
  if (!s) return 1;
  int dev = -1;
  (void)cudaGetDevice(&dev);
  const int64_t *groups = group_start && ngroups > 0 ? group_start : NULL;
  pthread_mutex_lock(&ops_lock);
  entry *e = cache_find(args, dev, ntasks, tasks, ngroups, groups);
  int err = e ? 0 : cache_add(args, dev, ntasks, tasks, ngroups, groups, s, &e);
  if (!err) err = run_ew(e->list, args, s);
  pthread_mutex_unlock(&ops_lock);
  return err ? 1 : 0;
}

int bf_cuda_reduce(const bf_kargs *args, int64_t ntasks, const bf_ktask *tasks, bf_kresult *out) {
  memset(out, 0, sizeof *out);
  int64_t n = 0, total = 0;
  size_t mask_bytes = 0;
  for (int64_t t = 0; t < ntasks; ++t) {
    int64_t e = task_elems(&tasks[t], args->ncomp);
    if (e == 0) continue;
    ++n;
    total += e;
    if (tasks[t].mask) mask_bytes += align64((size_t)task_elems(&tasks[t], 1));
  }
  if (total == 0) return 0;
  cudaStream_t s = bf_cuda_stream();
  if (!s) return 1;
  int dev = -1;
  (void)cudaGetDevice(&dev);
  pthread_mutex_lock(&ops_lock);
  int err = BF_SUCCESS;
  if (mask_bytes == 0) { /* the cached launch list */
    entry *e = cache_find(args, dev, ntasks, tasks, 0, NULL);
    if (!e) err = cache_add(args, dev, ntasks, tasks, 0, NULL, s, &e);
    if (!err && e->list->nlaunch == 1)
      err = run_reduce_at(args, e->list->dbuf, &e->list->launches[0], e->list->tinfo, e->list->nsel, s, out);
    pthread_mutex_unlock(&ops_lock);
    return err ? 1 : 0;
  }
  /* owner masks: built per call, through the scratch buffer */
  int64_t *sel = malloc((size_t)n * sizeof *sel);
  tinfo *ti = malloc((size_t)n * sizeof *ti);
  if (!sel || !ti) err = bf_error_set(BF_ERROR_MEMORY, "kernel", "out of memory");
  if (!err) {
    for (int64_t t = 0, m = 0; t < ntasks; ++t)
      if (task_elems(&tasks[t], args->ncomp) > 0) sel[m++] = t;
    fill_tinfo(tasks, sel, n, args->ncomp, ti);
  }
  launch L = {0, 0, 0};
  size_t lb = err ? 0 : build_launches(args, tasks, sel, &n, 1, false, false, NULL, NULL);
  if (!err) err = stage_reserve(lb + mask_bytes, true);
  if (!err) {
    char *h = h_stage;
    build_launches(args, tasks, sel, &n, 1, false, false, h, &L);
    bf_cuda_ctask *ct = (bf_cuda_ctask *)(h + L.toff);
    size_t moff = lb;
    for (int64_t i = 0; i < n; ++i) {
      const bf_ktask *t = &tasks[sel[i]];
      if (!t->mask) continue;
      size_t mb = (size_t)task_elems(t, 1);
      memcpy(h + moff, t->mask, mb);
      ct[i].mask = (const uint8_t *)((char *)d_stage + moff);
      moff += align64(mb);
    }
    err = stage_upload(d_stage, lb + mask_bytes, s);
  }
  if (!err) err = run_reduce_at(args, d_stage, &L, ti, n, s, out);
  pthread_mutex_unlock(&ops_lock);
  free(sel);
  free(ti);
  return err ? 1 : 0;
}

int bf_cuda_prepare(const bf_kargs *args, const bf_klist *list, void **handle) {
  *handle = NULL;
  cudaStream_t s = bf_cuda_stream();
  if (!s) return 1;
  int dev = -1;
  (void)cudaGetDevice(&dev);
  const int64_t *groups = list->group_start && list->ngroups > 0 ? list->group_start : NULL;
  pthread_mutex_lock(&ops_lock);
  cu_list *l = NULL;
  int err = list_build(args, dev, list->ntasks, list->tasks, list->ngroups, groups, list->relative, s, &l);
  if (!err) need_exit_hook();
  pthread_mutex_unlock(&ops_lock);
  *handle = l;
  return err ? 1 : 0;
}

int bf_cuda_run_elementwise(void *handle, const bf_kargs *args) {
  cu_list *l = handle;
  cudaStream_t s = bf_cuda_stream();
  if (!s) return 1;
  int dev = -1;
  (void)cudaGetDevice(&dev);
  if (!list_matches(l, args, dev)) {
    bf_error_set(BF_ERROR_RUNTIME, "kernel", "internal error: a CUDA task list used for other arguments");
    return 1;
  }
  return run_ew(l, args, s) ? 1 : 0; /* launches only: no shared state */
}

int bf_cuda_run_reduce(void *handle, const bf_kargs *args, bf_kresult *out) {
  cu_list *l = handle;
  memset(out, 0, sizeof *out);
  cudaStream_t s = bf_cuda_stream();
  if (!s) return 1;
  int dev = -1;
  (void)cudaGetDevice(&dev);
  if (!list_matches(l, args, dev) || l->grouped || l->nlaunch > 1) {
    bf_error_set(BF_ERROR_RUNTIME, "kernel", "internal error: a CUDA task list used for other arguments");
    return 1;
  }
  if (l->nlaunch == 0) return 0;
  pthread_mutex_lock(&ops_lock);
  int err = run_reduce_at(args, l->dbuf, &l->launches[0], l->tinfo, l->nsel, s, out);
  pthread_mutex_unlock(&ops_lock);
  return err ? 1 : 0;
}

void bf_cuda_release(void *handle) { list_free(handle); }
