/* CUDA backend: the device-resident redistribute and init_random (the
 * table's p_redist_sort / p_redist_move / p_random_sort / p_random_fill /
 * p_plan_free; the contract is in backend.h).
 *
 * Phase 1 gives every particle a key (its destination bucket), sorts the
 * particle numbers by key with CUB's stable radix sort, and finds where each
 * key's run starts (a binary search per key): only those offsets come back
 * to the host, which sizes the tiles from them.  The plan keeps everything
 * phase 2 needs on the device (one stream-ordered block, from the device's
 * memory pool, whose release threshold is raised once so that the blocks
 * are reused between calls instead of going back to the driver at every
 * synchronization).  Phase 2 is one kernel per step for all tiles:
 * redistribute gathers every kept particle in sorted order into scratch
 * (wrapping positions on the way) and copies each tile's run back into the
 * tile's storage (which may be where it was read from); init_random writes
 * each tile's new particles in place from the sorted numbers. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cub/device/device_radix_sort.cuh>

#include "boxfab/base.h"
#include "impl.h"
#include "pimage.cuh"
#include "particles/locate.h"

namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = int64_t(1) << 30;

size_t al256(size_t n) { return (n + 255) / 256 * 256; }

/* Keep the stream-ordered pool's memory between calls (its default release
 * threshold 0 hands every block back to the driver at each synchronization,
 * so each call paid for fresh allocations).  Once per device. */
void keep_pool(void) {
  static bool done[64];
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64) {
    (void)cudaGetLastError();
    return;
  }
  if (done[dev]) return;
  cudaMemPool_t pool;
  if (cudaDeviceGetMemPool(&pool, dev) == cudaSuccess) {
    uint64_t thr = UINT64_MAX;
    if (cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &thr) != cudaSuccess) (void)cudaGetLastError();
  } else {
    (void)cudaGetLastError();
  }
  done[dev] = true;
}

using bf_cuda_pimage::image;

using bf_cuda_pimage::packed_loc;

/* What a plan holds: one device block, carved up. */
struct plan {
  bool redist;
  int64_t n;     /* particles sorted */
  int64_t nkeys; /* keys 0 .. nkeys-1 */
  int64_t nslots, nparts;
  int nvec;
  char *block;
  uint32_t *keys, *keys2, *vals, *vals2; /* unsorted, sorted */
  uint32_t *off;                         /* [nkeys + 1] first sorted position of each key */
  int32_t *codes;                        /* redistribute: dest code of each particle */
  int64_t *pstart;                       /* redistribute: first particle number of each part [nparts + 1] */
  void *cub;
  size_t cub_bytes;
  char *scratch;                         /* redistribute: n * sum(elem) */
  char *tables;                          /* phase 2's pointer tables (device) */
  size_t tables_bytes;
  char *htables;                         /* their host image */
  uint32_t *hoff;                        /* host copy of off */
};

int bits_for(int64_t nkeys) {
  int b = 1;
  while (b < 32 && ((int64_t)1 << b) < nkeys) ++b;
  return b;
}

/* Carve the plan's block (sizes known; base 0: only the total is wanted): returns the total bytes. */
size_t layout(plan *P, uintptr_t base, size_t sum_elem) {
  size_t o = 0;
  const size_t n4 = al256((size_t)(P->n > 0 ? P->n : 1) * 4);
  P->keys = (uint32_t *)(base + o), o += n4;
  P->keys2 = (uint32_t *)(base + o), o += n4;
  P->vals = (uint32_t *)(base + o), o += n4;
  P->vals2 = (uint32_t *)(base + o), o += n4;
  P->off = (uint32_t *)(base + o), o += al256((size_t)(P->nkeys + 1) * 4);
  P->codes = nullptr, P->pstart = nullptr, P->scratch = nullptr;
  if (P->redist) {
    P->codes = (int32_t *)(base + o), o += n4;
    P->pstart = (int64_t *)(base + o), o += al256((size_t)(P->nparts + 1) * 8);
    P->scratch = (char *)(base + o), o += al256((size_t)(P->n > 0 ? P->n : 1) * sum_elem);
  }
  P->tables = (char *)(base + o), o += al256(P->tables_bytes);
  P->cub = (void *)(base + o), o += al256(P->cub_bytes);
  return o;
}

/* Phase-2 tables: [nvec] elem (int64), [nvec] scratch bases, [nvec] roles / values, [nparts * nvec] sources,
 * [nslots * nvec] destinations, [nslots] bases. */
size_t tables_bytes(int64_t nparts, int64_t nslots, int nvec) {
  return (size_t)nvec * 8 * 4 + (size_t)(nparts + nslots) * (size_t)nvec * 8 + (size_t)nslots * 8 + 64;
}

void plan_free(plan *P) {
  if (!P) return;
  cudaStream_t s = (cudaStream_t)bf_cuda_stream();
  if (P->block) {
    if (s) (void)cudaFreeAsync(P->block, s);
    else (void)cudaFree(P->block);
    (void)cudaGetLastError();
  }
  free(P->htables);
  free(P->hoff);
  free(P);
}

/* Allocate the plan's block and host buffers; sizes the CUB scratch first. */
int plan_alloc(plan *P, size_t sum_elem, cudaStream_t s, const char *what) {
  keep_pool();
  P->cub_bytes = 0;
  cudaError_t e = cub::DeviceRadixSort::SortPairs(nullptr, P->cub_bytes, (const uint32_t *)nullptr,
                                                  (uint32_t *)nullptr, (const uint32_t *)nullptr,
                                                  (uint32_t *)nullptr, (int)(P->n > 0 ? P->n : 1), 0,
                                                  bits_for(P->nkeys), s);
  if (e != cudaSuccess) return bf_cuda_fail(e, what);
  size_t total = layout(P, 0, sum_elem);
  e = cudaMallocAsync((void **)&P->block, total, s);
  if (e != cudaSuccess) {
    P->block = nullptr;
    return bf_cuda_fail(e, what);
  }
  layout(P, (uintptr_t)P->block, sum_elem);
  P->htables = (char *)malloc(P->tables_bytes);
  P->hoff = (uint32_t *)malloc((size_t)(P->nkeys + 1) * 4);
  if (!P->htables || !P->hoff) return bf_error_set(BF_ERROR_MEMORY, what, "%s: out of host memory", what);
  return 0;
}

/* ---- kernels ---------------------------------------------------------------------------------------- */

__device__ int64_t last_le(const int64_t *a, int64_t n, int64_t x) { /* last k < n with a[k] <= x (a[0] <= x) */
  int64_t lo = 0, hi = n - 1;
  while (lo < hi) {
    const int64_t mid = (lo + hi + 1) / 2;
    if (a[mid] <= x) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/* Redistribute's keys: 2t (stays in its tile t), 2t + 1 (moves to t), 2 nslots (removed), 2 nslots + 1 (remote),
 * 2 nslots + 2 (BF_PDEST_REFUSED: the core refuses the redistribute), t relative to slot0. */
__global__ void __launch_bounds__(kThreads)
    rd_locate_kernel(bf_plocate loc, const bf_ppart *parts, const int32_t *part_slot, int64_t nparts,
                     const int64_t *bstart, const int64_t *pstart, int64_t boff, int64_t slot0, int64_t nslots,
                     int32_t *codes, uint32_t *keys, uint32_t *vals) {
  const int64_t b = boff + (int64_t)blockIdx.x;
  const int64_t k = last_le(bstart, nparts, b);
  const bf_ppart *p = &parts[k];
  const int64_t j = (b - bstart[k]) * kThreads + (int64_t)threadIdx.x;
  if (j >= p->n) return;
  const int32_t d = bf_plocate_particle(&loc, p, j);
  const int32_t own = part_slot[k];
  uint32_t key;
  if (d == own || d == BF_PDEST_STAY || (d >= 0 && (d & BF_PDEST_SLOT_MASK) == own)) key = (uint32_t)(2 * (own - slot0));
  else if (d >= 0) key = (uint32_t)(2 * ((d & BF_PDEST_SLOT_MASK) - slot0) + 1);
  else key = (uint32_t)(2 * nslots + (d == BF_PDEST_REMOTE ? 1 : BF_PDEST_REFUSED(d) ? 2 : 0));
  const int64_t g = pstart[k] + j;
  codes[g] = d;
  keys[g] = key;
  vals[g] = (uint32_t)g;
}

/* off[q] = first sorted position whose key is >= q (q <= nkeys). */
__global__ void bounds_kernel(const uint32_t *keys, int64_t n, int64_t nkeys, uint32_t *off) {
  const int64_t q = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (q > nkeys) return;
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    const int64_t mid = (lo + hi) / 2;
    if ((int64_t)keys[mid] < q) lo = mid + 1;
    else hi = mid;
  }
  off[q] = (uint32_t)lo;
}

__device__ inline void copy_elem(char *dst, const char *src, int64_t e) {
  if (e == 4) {
    *(uint32_t *)dst = *(const uint32_t *)src;
    return;
  }
  for (int64_t w = 0; w < e / 8; ++w) ((uint64_t *)dst)[w] = ((const uint64_t *)src)[w];
}

struct posinfo {
  int dim;
  int vec[3];
  int64_t off[3];
};

/* Sorted position j (< nkept) gets particle vals[j]: every vector's element into the scratch, positions
 * wrapped when its code asks. */
__global__ void __launch_bounds__(kThreads)
    rd_gather_kernel(bf_plocate loc, posinfo pi, const uint32_t *vals, const int32_t *codes, const int64_t *pstart,
                     int64_t nparts, int nvec, const int64_t *elem, char *const *stage, const char *const *src,
                     int64_t nkept, int64_t j0) {
  const int64_t j = j0 + (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (j >= nkept) return;
  const int64_t g = vals[j];
  const int64_t k = last_le(pstart, nparts, g);
  const int64_t i = g - pstart[k];
  const int32_t code = codes[g];
  const bool wrap = code >= 0 && (code & BF_PDEST_WRAP);
  const char *const *sp = src + k * nvec;
  double x[3] = {0, 0, 0};
  if (wrap) {
    for (int d = 0; d < pi.dim; ++d) x[d] = *(const double *)(sp[pi.vec[d]] + i * elem[pi.vec[d]] + pi.off[d]);
    wrap_pos(&loc, x);
  }
  for (int v = 0; v < nvec; ++v) {
    const int64_t e = elem[v];
    copy_elem(stage[v] + j * e, sp[v] + i * e, e);
  }
  if (wrap)
    for (int d = 0; d < pi.dim; ++d) *(double *)(stage[pi.vec[d]] + j * elem[pi.vec[d]] + pi.off[d]) = x[d];
}

/* Sorted position j (key 2t or 2t+1) goes to tile t at j - off[2t]. */
__global__ void __launch_bounds__(kThreads)
    rd_scatter_kernel(const uint32_t *keys2, const uint32_t *off, int nvec, const int64_t *elem,
                      const char *const *stage, char *const *dst, int64_t nkept, int64_t j0) {
  const int64_t j = j0 + (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (j >= nkept) return;
  const int64_t t = keys2[j] >> 1;
  const int64_t at = j - (int64_t)off[2 * t];
  char *const *dp = dst + t * nvec;
  for (int v = 0; v < nvec; ++v) {
    const int64_t e = elem[v];
    copy_elem(dp[v] + at * e, stage[v] + j * e, e);
  }
}

/* init_random's keys: the slot, nslots (no grid), nslots + 1 (remote). */
__global__ void __launch_bounds__(kThreads) ri_locate_kernel(bf_prandom r, uint64_t rkey, bf_plocate loc, int64_t n,
                                                             int64_t nslots, uint32_t *keys, uint32_t *vals,
                                                             int64_t i0) {
  const int64_t i = i0 + (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (i >= n) return;
  double x[3] = {0, 0, 0};
  for (int d = 0; d < r.dim; ++d) x[d] = random_coord(&r, rkey, (uint64_t)(r.first + i), d);
  bf_ppart p;
  memset(&p, 0, sizeof p);
  p.n = 1;
  p.pos[0] = &x[0], p.pos[1] = &x[1], p.pos[2] = &x[2];
  p.pstride = 1;
  p.own_slot = -1;
  const int32_t d = bf_plocate_particle(&loc, &p, 0);
  keys[i] = d >= 0 ? (uint32_t)(d & BF_PDEST_SLOT_MASK) : (uint32_t)(nslots + (d == BF_PDEST_REMOTE ? 1 : 0));
  vals[i] = (uint32_t)i;
}

/* Sorted position j (slot s = keys2[j], particle i = vals2[j]) is element base[s] + j - off[s] of the
 * slot's vectors: role[v] 0..2 coordinate, 3 idcpu, else the constant value[v]. */
__global__ void __launch_bounds__(kThreads)
    ri_fill_kernel(bf_prandom r, uint64_t rkey, uint64_t idcpu0, const uint32_t *keys2, const uint32_t *vals2,
                   const uint32_t *off, int nvec, const int64_t *elem, const int64_t *role, const uint64_t *value,
                   char *const *dst, const int64_t *base, int64_t nkept, int64_t j0) {
  const int64_t j = j0 + (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (j >= nkept) return;
  const int64_t s = keys2[j];
  const uint64_t i = vals2[j];
  const int64_t at = base[s] + j - (int64_t)off[s];
  char *const *dp = dst + s * nvec;
  for (int v = 0; v < nvec; ++v) {
    const int64_t e = elem[v], ro = role[v];
    char *q = dp[v] + at * e;
    if (ro >= 0 && ro < 3) *(double *)q = random_coord(&r, rkey, (uint64_t)r.first + i, (int)ro);
    else if (ro == 3) *(uint64_t *)q = idcpu0 + (i << 24);
    else if (e == 4) *(uint32_t *)q = (uint32_t)value[v];
    else *(uint64_t *)q = value[v];
  }
}

/* Sort the plan's keys, find the key offsets, bring them to the host (waits). */
int sort_and_count(plan *P, cudaStream_t s, const char *what) {
  cudaError_t e = cudaSuccess;
  if (P->n > 0) {
    size_t cb = P->cub_bytes;
    e = cub::DeviceRadixSort::SortPairs(P->cub, cb, P->keys, P->keys2, P->vals, P->vals2, (int)P->n, 0,
                                        bits_for(P->nkeys), s);
  }
  if (e == cudaSuccess) {
    const int64_t nb = (P->nkeys + 1 + kThreads - 1) / kThreads;
    bounds_kernel<<<(unsigned)nb, kThreads, 0, s>>>(P->keys2, P->n, P->nkeys, P->off);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) e = cudaMemcpyAsync(P->hoff, P->off, (size_t)(P->nkeys + 1) * 4, cudaMemcpyDeviceToHost, s);
  cudaError_t e2 = cudaStreamSynchronize(s);
  if (e == cudaSuccess) e = e2;
  return e == cudaSuccess ? 0 : bf_cuda_fail(e, what);
}

int64_t nblocks_of(int64_t n) { return (n + kThreads - 1) / kThreads; }

} // namespace

/* ---- entries ---------------------------------------------------------------------------------------- */

extern "C" int bf_cuda_p_redist_sort(const bf_plocate *loc, int64_t nparts, const bf_ppart *parts,
                                     const int32_t *part_slot, int64_t slot0, int64_t nslots, const bf_pvecs *vecs,
                                     int64_t *counts, void **out) {
  const char *what = "particle redistribute kernels";
  *out = nullptr;
  cudaStream_t s = (cudaStream_t)bf_cuda_stream();
  if (!s) return bf_error_set(BF_ERROR_RUNTIME, what, "%s: could not create boxfab's CUDA stream", what);
  int64_t ntot = 0;
  for (int64_t k = 0; k < nparts; ++k) ntot += parts[k].n;
  if (ntot > INT32_MAX || 2 * nslots + 3 > (int64_t)UINT32_MAX)
    return bf_error_set(BF_ERROR_VALUE, what, "%s: %lld particles in %lld tiles are too many for one call", what,
                        (long long)ntot, (long long)nslots);
  plan *P = (plan *)calloc(1, sizeof(plan));
  if (!P) return bf_error_set(BF_ERROR_MEMORY, what, "%s: out of host memory", what);
  P->redist = true;
  P->n = ntot, P->nkeys = 2 * nslots + 3, P->nslots = nslots, P->nparts = nparts, P->nvec = vecs->nvec;
  P->tables_bytes = tables_bytes(nparts, nslots, vecs->nvec);
  size_t sum_elem = 0;
  for (int v = 0; v < vecs->nvec; ++v) sum_elem += vecs->elem[v];
  int st = plan_alloc(P, sum_elem, s, what);
  if (st) {
    plan_free(P);
    return st;
  }
  /* the launch image: locator, parts, their slots, first blocks and first particles */
  image im;
  packed_loc pl;
  if (!pl.pack(im, loc)) {
    plan_free(P);
    return bf_error_set(BF_ERROR_MEMORY, what, "%s: cannot pack the locator", what);
  }
  const size_t parts_off = im.add(parts, (size_t)nparts * sizeof(bf_ppart));
  const size_t slot_off = im.add(part_slot, (size_t)nparts * sizeof(int32_t));
  const size_t bs_off = im.add(nullptr, (size_t)(nparts + 1) * sizeof(int64_t));
  const size_t ps_off = im.add(nullptr, (size_t)(nparts + 1) * sizeof(int64_t));
  if (im.bad) {
    plan_free(P);
    return bf_error_set(BF_ERROR_MEMORY, what, "%s: out of host memory for the launch image", what);
  }
  int64_t *bs = (int64_t *)(im.h + bs_off), *ps = (int64_t *)(im.h + ps_off);
  bs[0] = 0, ps[0] = 0;
  for (int64_t k = 0; k < nparts; ++k) {
    ((bf_ppart *)(im.h + parts_off))[k].dest = nullptr;
    ((bf_ppart *)(im.h + parts_off))[k].list = nullptr;
    bs[k + 1] = bs[k] + nblocks_of(parts[k].n);
    ps[k + 1] = ps[k] + parts[k].n;
  }
  char *d = nullptr;
  cudaError_t e = cudaMallocAsync((void **)&d, im.n, s);
  if (e != cudaSuccess) {
    plan_free(P);
    return bf_cuda_fail(e, what);
  }
  bf_plocate dl = pl.fix(im, loc, d);
  e = cudaMemcpyAsync(d, im.h, im.n, cudaMemcpyHostToDevice, s);
  if (e == cudaSuccess)
    e = cudaMemcpyAsync(P->pstart, im.h + ps_off, (size_t)(nparts + 1) * 8, cudaMemcpyHostToDevice, s);
  const int64_t nblocks = bs[nparts];
  for (int64_t b0 = 0; e == cudaSuccess && b0 < nblocks; b0 += kMaxBlocks) {
    const int64_t nb = nblocks - b0 < kMaxBlocks ? nblocks - b0 : kMaxBlocks;
    rd_locate_kernel<<<(unsigned)nb, kThreads, 0, s>>>(dl, (const bf_ppart *)(d + parts_off),
                                                       (const int32_t *)(d + slot_off), nparts,
                                                       (const int64_t *)(d + bs_off), P->pstart, b0, slot0, nslots,
                                                       P->codes, P->keys, P->vals);
    e = cudaGetLastError();
  }
  cudaError_t e2 = cudaFreeAsync(d, s);
  if (e == cudaSuccess) e = e2;
  st = e == cudaSuccess ? sort_and_count(P, s, what) : bf_cuda_fail(e, what); /* waits: the image is free to go */
  if (st) {
    (void)cudaStreamSynchronize(s);
    (void)cudaGetLastError();
    plan_free(P);
    return st;
  }
  for (int64_t q = 0; q < P->nkeys; ++q) counts[q] = (int64_t)P->hoff[q + 1] - (int64_t)P->hoff[q];
  *out = P;
  return 0;
}

extern "C" int bf_cuda_p_redist_move(void *handle, const bf_plocate *loc, const bf_pvecs *vecs, void *const *src,
                                     void *const *dst) {
  const char *what = "particle redistribute kernels";
  plan *P = (plan *)handle;
  cudaStream_t s = (cudaStream_t)bf_cuda_stream();
  if (!s) return bf_error_set(BF_ERROR_RUNTIME, what, "%s: could not create boxfab's CUDA stream", what);
  const int nv = P->nvec;
  if (vecs->nvec != nv) return bf_error_set(BF_ERROR_VALUE, what, "%s: the plan has %d vectors, not %d", what, nv, vecs->nvec);
  /* tables: elem, stage, sources, destinations */
  char *h = P->htables;
  int64_t *elem = (int64_t *)h;
  char **stage = (char **)(h + (size_t)nv * 8);
  char **srcs = (char **)(h + (size_t)nv * 16);
  char **dsts = srcs + P->nparts * nv;
  size_t so = 0;
  for (int v = 0; v < nv; ++v) {
    elem[v] = (int64_t)vecs->elem[v];
    stage[v] = P->scratch + so;
    so += (size_t)P->n * vecs->elem[v];
  }
  memcpy(srcs, src, (size_t)P->nparts * nv * sizeof(void *));
  memcpy(dsts, dst, (size_t)P->nslots * nv * sizeof(void *));
  const size_t used = (size_t)nv * 16 + (size_t)(P->nparts + P->nslots) * nv * 8;
  char *dt = P->tables;
  posinfo pi;
  memset(&pi, 0, sizeof pi);
  pi.dim = loc->dim;
  for (int d = 0; d < 3; ++d) pi.vec[d] = vecs->pos_vec[d], pi.off[d] = (int64_t)vecs->pos_off[d];
  const int64_t nkept = P->hoff[2 * P->nslots];
  cudaError_t e = cudaMemcpyAsync(dt, h, used, cudaMemcpyHostToDevice, s);
  const int64_t step = kMaxBlocks * kThreads;
  for (int64_t j0 = 0; e == cudaSuccess && j0 < nkept; j0 += step) {
    const int64_t m = nkept - j0 < step ? nkept - j0 : step;
    rd_gather_kernel<<<(unsigned)nblocks_of(m), kThreads, 0, s>>>(
        *loc, pi, P->vals2, P->codes, P->pstart, P->nparts, nv, (const int64_t *)dt, (char *const *)(dt + (size_t)nv * 8),
        (const char *const *)(dt + (size_t)nv * 16), nkept, j0);
    e = cudaGetLastError();
  }
  for (int64_t j0 = 0; e == cudaSuccess && j0 < nkept; j0 += step) {
    const int64_t m = nkept - j0 < step ? nkept - j0 : step;
    rd_scatter_kernel<<<(unsigned)nblocks_of(m), kThreads, 0, s>>>(
        P->keys2, P->off, nv, (const int64_t *)dt, (const char *const *)(dt + (size_t)nv * 8),
        (char *const *)(dt + (size_t)nv * 16 + (size_t)P->nparts * nv * 8), nkept, j0);
    e = cudaGetLastError();
  }
  cudaError_t e2 = cudaStreamSynchronize(s); /* the host tables are in use until here */
  if (e == cudaSuccess) e = e2;
  return e == cudaSuccess ? 0 : bf_cuda_fail(e, what);
}

extern "C" int bf_cuda_p_random_sort(const bf_prandom *r, const bf_plocate *loc, int64_t n, int64_t nslots,
                                     const bf_pvecs *vecs, int64_t *counts, int64_t *first_bad, void **out) {
  const char *what = "particle init_random kernels";
  *out = nullptr;
  first_bad[0] = first_bad[1] = -1;
  cudaStream_t s = (cudaStream_t)bf_cuda_stream();
  if (!s) return bf_error_set(BF_ERROR_RUNTIME, what, "%s: could not create boxfab's CUDA stream", what);
  if (n > INT32_MAX || nslots + 2 > (int64_t)UINT32_MAX)
    return bf_error_set(BF_ERROR_VALUE, what, "%s: %lld particles are too many for one call", what, (long long)n);
  plan *P = (plan *)calloc(1, sizeof(plan));
  if (!P) return bf_error_set(BF_ERROR_MEMORY, what, "%s: out of host memory", what);
  P->redist = false;
  P->n = n, P->nkeys = nslots + 2, P->nslots = nslots, P->nparts = 0, P->nvec = vecs->nvec;
  P->tables_bytes = tables_bytes(0, nslots, vecs->nvec);
  int st = plan_alloc(P, 0, s, what);
  if (st) {
    plan_free(P);
    return st;
  }
  image im;
  packed_loc pl;
  if (!pl.pack(im, loc)) {
    plan_free(P);
    return bf_error_set(BF_ERROR_MEMORY, what, "%s: cannot pack the locator", what);
  }
  char *d = nullptr;
  cudaError_t e = cudaMallocAsync((void **)&d, im.n > 0 ? im.n : 16, s);
  if (e != cudaSuccess) {
    plan_free(P);
    return bf_cuda_fail(e, what);
  }
  bf_plocate dl = pl.fix(im, loc, d);
  e = cudaMemcpyAsync(d, im.h, im.n, cudaMemcpyHostToDevice, s);
  const uint64_t rkey = bf_prng_key(r->seed);
  const int64_t step = kMaxBlocks * kThreads;
  for (int64_t i0 = 0; e == cudaSuccess && i0 < n; i0 += step) {
    const int64_t m = n - i0 < step ? n - i0 : step;
    ri_locate_kernel<<<(unsigned)nblocks_of(m), kThreads, 0, s>>>(*r, rkey, dl, n, nslots, P->keys, P->vals, i0);
    e = cudaGetLastError();
  }
  cudaError_t e2 = cudaFreeAsync(d, s);
  if (e == cudaSuccess) e = e2;
  st = e == cudaSuccess ? sort_and_count(P, s, what) : bf_cuda_fail(e, what);
  if (st) {
    (void)cudaStreamSynchronize(s);
    (void)cudaGetLastError();
    plan_free(P);
    return st;
  }
  for (int64_t q = 0; q < P->nkeys; ++q) counts[q] = (int64_t)P->hoff[q + 1] - (int64_t)P->hoff[q];
  /* the smallest particle number without a grid / on another process: the first of its (stable) run */
  for (int w = 0; w < 2; ++w) {
    const int64_t q = nslots + w;
    if (counts[q] == 0) continue;
    uint32_t v = 0;
    e = cudaMemcpy(&v, P->vals2 + P->hoff[q], 4, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
      plan_free(P);
      return bf_cuda_fail(e, what);
    }
    first_bad[w] = v;
  }
  *out = P;
  return 0;
}

extern "C" int bf_cuda_p_random_fill(void *handle, const bf_prandom *r, uint64_t idcpu0, const bf_pvecs *vecs,
                                     void *const *dst, const int64_t *base) {
  const char *what = "particle init_random kernels";
  plan *P = (plan *)handle;
  cudaStream_t s = (cudaStream_t)bf_cuda_stream();
  if (!s) return bf_error_set(BF_ERROR_RUNTIME, what, "%s: could not create boxfab's CUDA stream", what);
  const int nv = P->nvec;
  if (vecs->nvec != nv) return bf_error_set(BF_ERROR_VALUE, what, "%s: the plan has %d vectors, not %d", what, nv, vecs->nvec);
  char *h = P->htables;
  int64_t *elem = (int64_t *)h, *role = (int64_t *)(h + (size_t)nv * 8);
  uint64_t *value = (uint64_t *)(h + (size_t)nv * 16);
  char **dsts = (char **)(h + (size_t)nv * 32);
  int64_t *hbase = (int64_t *)(h + (size_t)nv * 32 + (size_t)P->nslots * nv * 8);
  for (int v = 0; v < nv; ++v) {
    elem[v] = (int64_t)vecs->elem[v];
    role[v] = -1;
    value[v] = 0;
    if (v == vecs->idcpu_vec) role[v] = 3;
    for (int d = 0; d < r->dim; ++d)
      if (v == vecs->pos_vec[d]) role[v] = d;
    if (role[v] < 0 && vecs->value && vecs->value[v]) {
      if (vecs->elem[v] == 4) {
        uint32_t x;
        memcpy(&x, vecs->value[v], 4);
        value[v] = x;
      } else {
        memcpy(&value[v], vecs->value[v], 8);
      }
    }
    if (role[v] < 0 && vecs->elem[v] != 4 && vecs->elem[v] != 8)
      return bf_error_set(BF_ERROR_VALUE, what, "%s: element size %zu not supported", what, vecs->elem[v]);
  }
  memcpy(dsts, dst, (size_t)P->nslots * nv * sizeof(void *));
  memcpy(hbase, base, (size_t)P->nslots * 8);
  const size_t used = (size_t)nv * 32 + (size_t)P->nslots * nv * 8 + (size_t)P->nslots * 8;
  char *dt = P->tables;
  const int64_t nkept = P->hoff[P->nslots];
  const uint64_t rkey = bf_prng_key(r->seed);
  cudaError_t e = cudaMemcpyAsync(dt, h, used, cudaMemcpyHostToDevice, s);
  const int64_t step = kMaxBlocks * kThreads;
  for (int64_t j0 = 0; e == cudaSuccess && j0 < nkept; j0 += step) {
    const int64_t m = nkept - j0 < step ? nkept - j0 : step;
    ri_fill_kernel<<<(unsigned)nblocks_of(m), kThreads, 0, s>>>(
        *r, rkey, idcpu0, P->keys2, P->vals2, P->off, nv, (const int64_t *)dt, (const int64_t *)(dt + (size_t)nv * 8),
        (const uint64_t *)(dt + (size_t)nv * 16), (char *const *)(dt + (size_t)nv * 32),
        (const int64_t *)(dt + (size_t)nv * 32 + (size_t)P->nslots * nv * 8), nkept, j0);
    e = cudaGetLastError();
  }
  cudaError_t e2 = cudaStreamSynchronize(s);
  if (e == cudaSuccess) e = e2;
  return e == cudaSuccess ? 0 : bf_cuda_fail(e, what);
}

extern "C" void bf_cuda_p_plan_free(void *handle) { plan_free((plan *)handle); }
