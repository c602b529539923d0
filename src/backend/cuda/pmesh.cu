/* CUDA backend: particle-mesh coupling (the table's pmesh_deposit and
 * pmesh_interpolate; contract in backend.h, shapes in src/core/particles/mesh_shape.h, shared
 * with the CPU backend so both compute the same cells and weights).
 *
 * One thread per particle.  The tiles' particles are laid end to end in
 * blocks: tile t owns blocks [bstart[t], bstart[t+1]) (ceil(np / THREADS)
 * of them) and a block finds its tile by binary search in bstart.  Deposit
 * adds each stencil cell with atomicAdd on doubles (tiles of one grid and
 * neighbouring particles hit the same cells), so its sums are not ordered:
 * results equal the CPU's up to rounding.  Interpolate writes only its
 * particle's value and is deterministic.  Skipped particles are counted in
 * one device counter, read back after the launch (the call waits for it). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "boxfab/base.h"
#include "impl.h"
#include "particles/mesh_shape.h"

namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = int64_t(1) << 30; /* blocks per launch (gridDim.x limit 2^31 - 1) */

__global__ void __launch_bounds__(kThreads) pmesh_kernel(bf_pmesh_args a, const int64_t *bstart, int64_t boff,
                                                         bool deposit, unsigned long long *bad) {
  const int64_t b = boff + (int64_t)blockIdx.x;
  int64_t lo = 0, hi = a.ntiles - 1; /* the last tile whose first block is <= b */
  while (lo < hi) {
    const int64_t mid = (lo + hi + 1) / 2;
    if (bstart[mid] <= b) lo = mid;
    else hi = mid - 1;
  }
  const bf_pmesh_tile *tl = &a.tiles[lo];
  const int64_t i = (b - bstart[lo]) * kThreads + (int64_t)threadIdx.x;
  if (i >= tl->np) return;
  int64_t base = 0;
  int n[3];
  double w[3][BF_PMESH_WMAX];
  if (!bf_pmesh_stencil(&a, tl, i, &base, n, w)) {
    atomicAdd(bad, 1ULL);
    return;
  }
  if (deposit) {
    const double v = (tl->val ? tl->val[i] : 1.0) * a.scale;
    for (int kk = 0; kk < n[2]; ++kk)
      for (int jj = 0; jj < n[1]; ++jj) {
        double *row = tl->fab + base + jj * tl->js + kk * tl->ks;
        const double vjk = v * w[1][jj] * w[2][kk];
        for (int ii = 0; ii < n[0]; ++ii) atomicAdd(&row[ii], w[0][ii] * vjk);
      }
  } else {
    double s = 0.0;
    for (int kk = 0; kk < n[2]; ++kk)
      for (int jj = 0; jj < n[1]; ++jj) {
        const double *row = tl->fab + base + jj * tl->js + kk * tl->ks;
        double r = 0.0;
        for (int ii = 0; ii < n[0]; ++ii) r += w[0][ii] * row[ii];
        s += r * w[1][jj] * w[2][kk];
      }
    tl->val[i] = s;
  }
}

int pmesh_run(const bf_pmesh_args *a, bool deposit, int64_t *nskipped) {
  const char *what = deposit ? "deposit kernel" : "interpolate kernel";
  *nskipped = 0;
  if (a->ntiles <= 0) return 0;
  cudaStream_t s = (cudaStream_t)bf_cuda_stream();
  if (!s) {
    bf_error_set(BF_ERROR_RUNTIME, what, "%s: could not create boxfab's CUDA stream", what);
    return 1;
  }
  /* host image: tiles, block starts (ntiles + 1), the counter */
  const size_t tbytes = (size_t)a->ntiles * sizeof(bf_pmesh_tile);
  const size_t sbytes = (size_t)(a->ntiles + 1) * sizeof(int64_t);
  const size_t soff = (tbytes + 15) / 16 * 16, coff = (soff + sbytes + 15) / 16 * 16;
  const size_t total = coff + sizeof(unsigned long long);
  char *h = (char *)malloc(total);
  if (!h) {
    bf_error_set(BF_ERROR_MEMORY, what, "%s: out of memory for %lld tiles", what, (long long)a->ntiles);
    return 1;
  }
  memcpy(h, a->tiles, tbytes);
  int64_t *bs = (int64_t *)(h + soff);
  bs[0] = 0;
  for (int64_t t = 0; t < a->ntiles; ++t) bs[t + 1] = bs[t] + (a->tiles[t].np + kThreads - 1) / kThreads;
  const int64_t nblocks = bs[a->ntiles];
  memset(h + coff, 0, sizeof(unsigned long long));
  void *d = NULL;
  cudaError_t e = cudaMallocAsync(&d, total, s);
  if (e != cudaSuccess) {
    free(h);
    bf_cuda_fail(e, what);
    return 1;
  }
  e = cudaMemcpyAsync(d, h, total, cudaMemcpyHostToDevice, s);
  bf_pmesh_args da = *a;
  da.tiles = (const bf_pmesh_tile *)d;
  da.group_start = NULL;
  da.ngroups = 0;
  unsigned long long *dbad = (unsigned long long *)((char *)d + coff);
  for (int64_t b0 = 0; e == cudaSuccess && b0 < nblocks; b0 += kMaxBlocks) {
    const int64_t nb = nblocks - b0 < kMaxBlocks ? nblocks - b0 : kMaxBlocks;
    pmesh_kernel<<<(unsigned)nb, kThreads, 0, s>>>(da, (const int64_t *)((char *)d + soff), b0, deposit, dbad);
    e = cudaGetLastError();
  }
  unsigned long long nbad = 0;
  if (e == cudaSuccess) e = cudaMemcpyAsync(&nbad, dbad, sizeof nbad, cudaMemcpyDeviceToHost, s);
  cudaError_t e2 = cudaFreeAsync(d, s);
  if (e == cudaSuccess) e = e2;
  if (e == cudaSuccess) e = cudaStreamSynchronize(s); /* the host image and nbad are in use until here */
  else (void)cudaStreamSynchronize(s);
  free(h);
  if (e != cudaSuccess) {
    bf_cuda_fail(e, what);
    return 1;
  }
  *nskipped = (int64_t)nbad;
  return 0;
}

} // namespace

extern "C" int bf_cuda_pmesh_deposit(const bf_pmesh_args *a, int64_t *nskipped) { return pmesh_run(a, true, nskipped); }

extern "C" int bf_cuda_pmesh_interpolate(const bf_pmesh_args *a, int64_t *nskipped) {
  return pmesh_run(a, false, nskipped);
}
