/* CUDA backend: the table's elementwise and reduce, host side.
 *
 * Each call packs its tasks (and the prefix sums of their sizes, and for
 * reductions the owner masks) into one pinned staging buffer, uploads it with
 * one cudaMemcpyAsync on boxfab's stream and launches the kernel(s) on that
 * stream: elementwise returns without waiting (stream order keeps later work
 * after it); reduce waits for its result.  The staging buffer is reused once
 * the previous upload has finished (an event), the device buffer is reused in
 * stream order.
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
#include "cuda_impl.h"

static pthread_mutex_t ops_lock = PTHREAD_MUTEX_INITIALIZER;
static void *h_stage, *d_stage;
static size_t h_cap, d_cap;
static int d_dev = -1;
static cudaEvent_t stage_ev;
static bool stage_ev_made, stage_ev_pending;
static bf_cuda_rpart *h_result;

static int cuda_fail(cudaError_t e, const char *what) {
  (void)cudaGetLastError();
  return bf_error_set(e == cudaErrorMemoryAllocation ? BF_ERROR_MEMORY : BF_ERROR_RUNTIME, what,
                      "%s: CUDA error %s: %s", what, cudaGetErrorName(e), cudaGetErrorString(e));
}

static int64_t task_elems(const bf_ktask *t, int ncomp) {
  int64_t n = ncomp;
  for (int d = 0; d < 3; ++d) {
    if (t->hi[d] < t->lo[d]) return 0;
    n *= (int64_t)t->hi[d] - t->lo[d] + 1;
  }
  return n;
}

static size_t align8(size_t n) { return (n + 7) & ~(size_t)7; }

/* Room for `n` bytes in both staging buffers; waits until the staging buffer
 * may be overwritten.  Called with ops_lock held. */
static int stage_reserve(size_t n) {
  cudaError_t e;
  if (!stage_ev_made) {
    if ((e = cudaEventCreateWithFlags(&stage_ev, cudaEventDisableTiming)) != cudaSuccess) return cuda_fail(e, "kernel");
    stage_ev_made = true;
  }
  if (stage_ev_pending) {
    if ((e = cudaEventSynchronize(stage_ev)) != cudaSuccess) return cuda_fail(e, "kernel");
    stage_ev_pending = false;
  }
  if (!h_result && (e = cudaMallocHost((void **)&h_result, sizeof *h_result)) != cudaSuccess)
    return cuda_fail(e, "kernel");
  if (n > h_cap) {
    size_t cap = n > 2 * h_cap ? n : 2 * h_cap;
    if (h_stage) cudaFreeHost(h_stage);
    h_stage = NULL, h_cap = 0;
    if ((e = cudaMallocHost(&h_stage, cap)) != cudaSuccess) return cuda_fail(e, "kernel");
    h_cap = cap;
  }
  int dev = -1;
  (void)cudaGetDevice(&dev);
  if (n > d_cap || dev != d_dev) {
    size_t cap = n > 2 * d_cap ? n : 2 * d_cap;
    if (d_stage) {
      int cur = dev;
      if (d_dev != dev) (void)cudaSetDevice(d_dev);
      cudaFree(d_stage); /* waits for the kernels that used it */
      if (d_dev != dev) (void)cudaSetDevice(cur);
    }
    d_stage = NULL, d_cap = 0;
    if ((e = cudaMalloc(&d_stage, cap)) != cudaSuccess) return cuda_fail(e, "kernel");
    d_cap = cap, d_dev = dev;
  }
  return BF_SUCCESS;
}

/* Upload the first n bytes of the staging buffer.  Called with ops_lock held. */
static int stage_upload(size_t n, cudaStream_t s) {
  cudaError_t e = cudaMemcpyAsync(d_stage, h_stage, n, cudaMemcpyHostToDevice, s);
  if (e != cudaSuccess) return cuda_fail(e, "kernel");
  if ((e = cudaEventRecord(stage_ev, s)) != cudaSuccess) return cuda_fail(e, "kernel");
  stage_ev_pending = true;
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

/* ---- elementwise --------------------------------------------------------------------- */

int bf_cuda_elementwise(const bf_kargs *args, int64_t ntasks, const bf_ktask *tasks, int64_t ngroups,
                        const int64_t *group_start) {
  if (ntasks <= 0) return 0;
  int64_t *phase = calloc((size_t)ntasks, sizeof *phase);
  if (!phase) return 1;
  int64_t nphases = 1;
  if (group_start && ngroups > 0) {
    nphases = make_phases(args, ntasks, tasks, ngroups, group_start, phase);
    if (nphases == 0) {
      free(phase);
      return 1;
    }
  }
  /* per phase: its non-empty tasks, in order */
  int64_t *count = calloc((size_t)nphases, sizeof *count);
  if (!count) {
    free(phase);
    return 1;
  }
  for (int64_t t = 0; t < ntasks; ++t)
    if (task_elems(&tasks[t], args->ncomp) > 0) count[phase[t]]++;
  size_t bytes = 0;
  for (int64_t p = 0; p < nphases; ++p)
    if (count[p]) bytes += align8((size_t)(count[p] + 1) * sizeof(int64_t)) + (size_t)count[p] * sizeof(bf_ktask);
  int err = 0;
  cudaStream_t s = bf_cuda_stream();
  if (bytes == 0 || !s) {
    err = !s;
    goto done;
  }
  pthread_mutex_lock(&ops_lock);
  err = stage_reserve(bytes);
  if (!err) {
    /* layout of phase p: prefix[count+1], tasks[count] */
    size_t off = 0;
    char *h = h_stage;
    for (int64_t p = 0; p < nphases; ++p) {
      if (!count[p]) continue;
      int64_t *prefix = (int64_t *)(h + off);
      bf_ktask *tk = (bf_ktask *)(h + off + align8((size_t)(count[p] + 1) * sizeof(int64_t)));
      int64_t m = 0;
      prefix[0] = 0;
      for (int64_t t = 0; t < ntasks; ++t) {
        int64_t n = phase[t] == p ? task_elems(&tasks[t], args->ncomp) : 0;
        if (n == 0) continue;
        tk[m] = tasks[t];
        tk[m].mask = NULL;
        prefix[m + 1] = prefix[m] + n;
        ++m;
      }
      off += align8((size_t)(count[p] + 1) * sizeof(int64_t)) + (size_t)count[p] * sizeof(bf_ktask);
    }
    err = stage_upload(bytes, s);
    off = 0;
    for (int64_t p = 0; p < nphases && !err; ++p) {
      if (!count[p]) continue;
      size_t poff = align8((size_t)(count[p] + 1) * sizeof(int64_t));
      const int64_t *hprefix = (const int64_t *)(h + off);
      cudaError_t e = (cudaError_t)bf_cuda_launch_elementwise(args, (const int64_t *)((char *)d_stage + off),
                                                              (const bf_ktask *)((char *)d_stage + off + poff),
                                                              count[p], hprefix[count[p]], s);
      if (e != cudaSuccess) err = cuda_fail(e, "elementwise kernel");
      off += poff + (size_t)count[p] * sizeof(bf_ktask);
    }
  }
  pthread_mutex_unlock(&ops_lock);
done:
  free(count);
  free(phase);
  return err ? 1 : 0;
}

/* ---- reduce -------------------------------------------------------------------------- */

int bf_cuda_reduce(const bf_kargs *args, int64_t ntasks, const bf_ktask *tasks, bf_kresult *out) {
  memset(out, 0, sizeof *out);
  int64_t n = 0, total = 0;
  size_t mask_bytes = 0;
  for (int64_t t = 0; t < ntasks; ++t) {
    int64_t e = task_elems(&tasks[t], args->ncomp);
    if (e == 0) continue;
    ++n;
    total += e;
    if (tasks[t].mask) mask_bytes += align8((size_t)task_elems(&tasks[t], 1));
  }
  if (total == 0) return 0;
  cudaStream_t s = bf_cuda_stream();
  if (!s) return 1;
  int64_t nb = bf_cuda_reduce_nblocks(total);
  size_t o_tasks = align8((size_t)(n + 1) * sizeof(int64_t));
  size_t o_masks = o_tasks + align8((size_t)n * sizeof(bf_ktask));
  size_t o_parts = o_masks + mask_bytes;
  size_t upload = o_parts;
  size_t bytes = o_parts + (size_t)(nb + 1) * sizeof(bf_cuda_rpart);
  int64_t *hprefix = malloc((size_t)(n + 1) * sizeof *hprefix); /* kept for decoding the index */
  const bf_ktask **orig = malloc((size_t)(n > 0 ? n : 1) * sizeof *orig);
  if (!hprefix || !orig) {
    free(hprefix);
    free(orig);
    return 1;
  }
  pthread_mutex_lock(&ops_lock);
  int err = stage_reserve(bytes);
  if (!err) {
    char *h = h_stage, *d = d_stage;
    int64_t *prefix = (int64_t *)h;
    bf_ktask *tk = (bf_ktask *)(h + o_tasks);
    size_t moff = o_masks;
    int64_t m = 0;
    prefix[0] = hprefix[0] = 0;
    for (int64_t t = 0; t < ntasks; ++t) {
      int64_t e = task_elems(&tasks[t], args->ncomp);
      if (e == 0) continue;
      tk[m] = tasks[t];
      orig[m] = &tasks[t];
      if (tasks[t].mask) {
        size_t mb = (size_t)task_elems(&tasks[t], 1);
        memcpy(h + moff, tasks[t].mask, mb);
        tk[m].mask = (const uint8_t *)(d + moff);
        moff += align8(mb);
      }
      prefix[m + 1] = hprefix[m + 1] = prefix[m] + e;
      ++m;
    }
    err = stage_upload(upload, s);
    bf_cuda_rpart *parts = (bf_cuda_rpart *)(d + o_parts);
    if (!err) {
      cudaError_t e = (cudaError_t)bf_cuda_launch_reduce(args, (const int64_t *)d, (const bf_ktask *)(d + o_tasks), n,
                                                         total, parts, parts + nb, s);
      if (e == cudaSuccess) e = cudaMemcpyAsync(h_result, parts + nb, sizeof *h_result, cudaMemcpyDeviceToHost, s);
      if (e == cudaSuccess) e = cudaStreamSynchronize(s);
      if (e != cudaSuccess) err = cuda_fail(e, "reduction kernel");
    }
    if (!err) {
      bf_cuda_rpart r = *h_result;
      bool isum = args->type == BF_KTYPE_INT && (args->op == BF_ROP_SUM || args->op == BF_ROP_ABSSUM ||
                                                 args->op == BF_ROP_SUMSQ || args->op == BF_ROP_DOT);
      out->isum = (int64_t)r.isum;
      out->value = isum ? (double)out->isum : r.v;
      out->found = r.found != 0;
      if ((args->op == BF_ROP_MIN || args->op == BF_ROP_MAX) && r.found && r.idx >= 0) {
        int64_t lo = 0, hi = n - 1; /* task of element r.idx */
        while (lo < hi) {
          int64_t mid = lo + (hi - lo + 1) / 2;
          if (hprefix[mid] <= r.idx) lo = mid;
          else hi = mid - 1;
        }
        const bf_ktask *t = orig[lo];
        int64_t l = r.idx - hprefix[lo], nx = (int64_t)t->hi[0] - t->lo[0] + 1, ny = (int64_t)t->hi[1] - t->lo[1] + 1,
                nz = (int64_t)t->hi[2] - t->lo[2] + 1;
        out->index[0] = t->lo[0] + (int)(l % nx);
        out->index[1] = t->lo[1] + (int)(l / nx % ny);
        out->index[2] = t->lo[2] + (int)(l / nx / ny % nz);
      }
    }
  }
  pthread_mutex_unlock(&ops_lock);
  free(hprefix);
  free(orig);
  return err ? 1 : 0;
}
