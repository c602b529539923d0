/* CUDA backend: fill_boundary's x faces as whole x-lines of fabs
 * (bf_xline_desc, src/core/fillboundary_xline.c; issue 14).
 *
 * One block per (line, valid plane z of one component, tile of J valid rows
 * y).  Chunk c (0..nj) of a fab is the 4g doubles [the last 2g points of row
 * j0-1+c | the first 2g points of row j0+c], contiguous in memory: g valid
 * then g ghost points of one row, g ghost then g valid points of the next.
 * The block reads the chunks of every fab of its line once into shared
 * memory (consecutive threads, consecutive doubles), then writes the ghost
 * halves: the high ghosts of row j0-1+c from the next fab's chunk c-1 (its
 * valid start of that row), the low ghosts of row j0+c from the previous
 * fab's chunk c+1 (its valid end of that row).  Chunk 0 is needed only for
 * its second half and chunk nj only for its first, so no row outside the
 * fab is touched.  Each DRAM sector of a row end is then read and written
 * by one block close in time: benchmarks/bench_xline.cu measured 0.096 ms
 * against the exchange tasks' 0.139 ms (128^3 boxes, H200), 0.405 against
 * 0.542 (32^3).  The host loop bf_xline_run_host is the reference. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "boxfab/base.h"
#include "cuda_impl.h"

namespace {

constexpr int kThreads = 256;
constexpr size_t kShmDefault = 48 * 1024, kShmMax = 160 * 1024;

struct xline_handle {
  int device;
  int n[3], g[3];
  int64_t nlines, ns;
  int J, ntiles, nplanes;
  size_t shm;
  int64_t *lstart; /* device copies */
  int64_t *lfab;
  uint8_t *lper;
};

__global__ void xline_kernel(double *__restrict__ base, const int64_t *__restrict__ lstart,
                             const int64_t *__restrict__ lfab, const uint8_t *__restrict__ lper, int nx, int ny,
                             int gx, int gy, int gz, int64_t ns, int comp0, int nplanes, int J) {
  extern __shared__ double sh[];
  const int line = blockIdx.x;
  const int plane = blockIdx.y % nplanes, comp = comp0 + blockIdx.y / nplanes;
  const int k = gz + plane;
  const int nvalid = ny - 2 * gy;
  const int j0 = gy + blockIdx.z * J;
  const int nj = min(J, gy + nvalid - j0);
  const int64_t s = lstart[line];
  const int m = (int)(lstart[line + 1] - s);
  const bool per = lper[line] != 0;
  const int C = 4 * gx, nchunk = nj + 1;
  /* element offset of chunk c of fab b: point nx - 2g of row j0 - 1 + c (>= 0 for the halves used) */
  const int64_t plane_off = (int64_t)comp * ns + (int64_t)k * ny * nx;
  for (int t = threadIdx.x; t < m * nchunk * C; t += blockDim.x) {
    const int p = t % C, c = (t / C) % nchunk, b = t / (C * nchunk);
    if ((c == 0 && p < 2 * gx) || (c == nj && p >= 2 * gx)) continue; /* halves never used */
    const int64_t off = plane_off + (int64_t)(j0 - 1 + c) * nx + (nx - 2 * gx) + p;
    sh[(b * nchunk + c) * C + p] = base[lfab[s + b] + off];
  }
  __syncthreads();
  for (int t = threadIdx.x; t < m * nchunk * 2 * gx; t += blockDim.x) {
    const int q = t % (2 * gx), c = (t / (2 * gx)) % nchunk, b = t / (2 * gx * nchunk);
    double v;
    if (q < gx) { /* high ghost q of row j0-1+c: the next fab's valid point gx + q of that row */
      if (c < 1) continue;
      int bn = b + 1;
      if (bn == m) {
        if (!per) continue;
        bn = 0;
      }
      v = sh[(bn * nchunk + (c - 1)) * C + 3 * gx + q];
    } else { /* low ghost q - gx of row j0+c: the previous fab's valid point nx - 2gx + q - gx of that row */
      if (c >= nj) continue;
      int bp = b - 1;
      if (bp < 0) {
        if (!per) continue;
        bp = m - 1;
      }
      v = sh[(bp * nchunk + (c + 1)) * C + (q - gx)];
    }
    const int64_t off = plane_off + (int64_t)(j0 - 1 + c) * nx + (nx - 2 * gx) + gx + q;
    base[lfab[s + b] + off] = v;
  }
}

void handle_free(xline_handle *h) {
  if (!h) return;
  if (h->lstart) cudaFree(h->lstart);
  if (h->lfab) cudaFree(h->lfab);
  if (h->lper) cudaFree(h->lper);
  free(h);
}

}  // namespace

extern "C" int bf_cuda_xline_prepare(const bf_xline_desc *d, void **handle) {
  const char *what = "fill_boundary (x-lines)";
  *handle = NULL;
  const int gx = d->g[0], nvalid = d->n[1] - 2 * d->g[1];
  const int nplanes = d->n[2] - 2 * d->g[2];
  if (d->nlines <= 0 || d->nlines > INT32_MAX || nvalid <= 0 || nplanes <= 0 || gx < 1) return 0; /* not for us */
  /* rows per block: 8 (the best tile measured) unless the line's chunks do not fit in shared memory */
  int J = 8;
  size_t per_row = (size_t)d->maxlen * 4 * (size_t)gx * sizeof(double);
  while (J > 1 && per_row * (size_t)(J + 1) > kShmDefault) J /= 2;
  size_t shm = per_row * (size_t)(J + 1);
  if (shm > kShmMax) return 0; /* very long lines of wide ghosts: the exchange tasks do it */
  if (J > nvalid) J = nvalid, shm = per_row * (size_t)(J + 1);
  const int ntiles = (nvalid + J - 1) / J;
  if (ntiles > 65535) return 0;
  xline_handle *h = (xline_handle *)calloc(1, sizeof *h);
  if (!h) return bf_error_set(BF_ERROR_MEMORY, what, "%s: out of host memory", what);
  (void)cudaGetDevice(&h->device);
  memcpy(h->n, d->n, sizeof h->n), memcpy(h->g, d->g, sizeof h->g);
  h->nlines = d->nlines, h->ns = d->ns, h->J = J, h->ntiles = ntiles, h->nplanes = nplanes, h->shm = shm;
  cudaError_t e = cudaMalloc((void **)&h->lstart, (size_t)(d->nlines + 1) * sizeof(int64_t));
  if (e == cudaSuccess) e = cudaMalloc((void **)&h->lfab, (size_t)(d->nfabs > 0 ? d->nfabs : 1) * sizeof(int64_t));
  if (e == cudaSuccess) e = cudaMalloc((void **)&h->lper, (size_t)d->nlines);
  if (e == cudaSuccess)
    e = cudaMemcpy(h->lstart, d->lstart, (size_t)(d->nlines + 1) * sizeof(int64_t), cudaMemcpyHostToDevice);
  if (e == cudaSuccess && d->nfabs > 0)
    e = cudaMemcpy(h->lfab, d->lfab, (size_t)d->nfabs * sizeof(int64_t), cudaMemcpyHostToDevice);
  if (e == cudaSuccess) e = cudaMemcpy(h->lper, d->lper, (size_t)d->nlines, cudaMemcpyHostToDevice);
  if (e == cudaSuccess && shm > kShmDefault)
    e = cudaFuncSetAttribute(xline_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm);
  if (e != cudaSuccess) {
    handle_free(h);
    (void)bf_cuda_fail(e, what);
    return 1;
  }
  *handle = h;
  return 0;
}

extern "C" int bf_cuda_xline_run(void *handle, double *base, int comp0, int ncomp) {
  const char *what = "fill_boundary (x-lines)";
  xline_handle *h = (xline_handle *)handle;
  int dev = -1;
  (void)cudaGetDevice(&dev);
  if (dev != h->device) {
    bf_error_set(BF_ERROR_RUNTIME, what, "internal error: x-line tables of device %d used on device %d", h->device,
                 dev);
    return 1;
  }
  cudaStream_t s = (cudaStream_t)bf_cuda_stream();
  if (!s) return 1;
  for (int c0 = comp0; c0 < comp0 + ncomp;) { /* grid y: planes x components, at most 65535 */
    int nc = comp0 + ncomp - c0, most = 65535 / h->nplanes;
    if (most < 1) {
      bf_error_set(BF_ERROR_RUNTIME, what, "%s: more than 65535 planes", what);
      return 1;
    }
    if (nc > most) nc = most;
    dim3 grid((unsigned)h->nlines, (unsigned)(h->nplanes * nc), (unsigned)h->ntiles);
    xline_kernel<<<grid, kThreads, h->shm, s>>>(base, h->lstart, h->lfab, h->lper, h->n[0], h->n[1], h->g[0], h->g[1],
                                                 h->g[2], h->ns, c0, h->nplanes, h->J);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
      (void)bf_cuda_fail(e, what);
      return 1;
    }
    c0 += nc;
  }
  return 0;
}

extern "C" void bf_cuda_xline_release(void *handle) { handle_free((xline_handle *)handle); }
