/* CUDA backend: fill_boundary's x faces as whole x-lines of fabs
 * (bf_xline_desc, src/core/mesh/fillboundary_xline.c; issue 14).
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
 * 0.542 (32^3).  Only the valid quarters of the chunks are read.
 *
 * With d->rows (a uniform lattice) the same launch fills every other ghost
 * point too, as whole rows of the grown boxes (rows_block), so nothing is
 * left to the exchange tasks: benchmarks/bench_lattice.cu measured the pair
 * 0.132 ms (2.68x the ghost bytes at memcpy bandwidth; 128^3 boxes) and
 * 0.536 ms (2.48x; 32^3) against the tasks' 0.170 and 0.867.  Rows and
 * chunks read valid points only and write disjoint ghost points, so the
 * blocks need no order.  Where every row, chunk and ghost range starts at an
 * even point of a 16-byte aligned buffer, points move in pairs (double2).
 * The host loop bf_xline_run_host is the reference. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "boxfab/base.h"
#include "impl.h"

namespace {

constexpr int kThreads = 256;
constexpr int kRowsUnroll = 4; /* rows: loads in flight per thread before the stores */
constexpr size_t kShmDefault = 48 * 1024, kShmMax = 160 * 1024, kTileBytes = 6 * 1024;

struct xline_handle {
  int device;
  int n[3], g[3];
  int64_t nlines, ns;
  int J, ntiles, nplanes;
  size_t shm;
  bool rows, pairs; /* pairs: 16-byte accesses possible (with a 16-byte aligned base) */
  int nq;           /* rows per line (and component) */
  int64_t *lstart;  /* device copies */
  int64_t *lfab;
  uint8_t *lper;
  int64_t *lnbr;
};

struct Params {
  double *base;
  const int64_t *lstart, *lfab, *lnbr;
  const uint8_t *lper;
  int nx, ny, nz, gx, gy, gz;
  int64_t ns;
  int comp0, nc, nplanes, J, ntiles, nq, bpl;
  int64_t nrowblocks;
};

template <int W> struct Vec;
template <> struct Vec<1> { typedef double T; };
template <> struct Vec<2> { typedef double2 T; };

/* One x-line tile: (line, valid plane z of one component, tile of J valid
 * rows y), the chunks through shared memory (the file's comment). */
template <int W> __device__ __forceinline__ void xline_block(const Params &P, int64_t bid, void *shraw) {
  typedef typename Vec<W>::T V;
  V *sh = (V *)shraw;
  const int tile = (int)(bid % P.ntiles);
  const int64_t rest = bid / P.ntiles;
  const int pc = (int)(rest % ((int64_t)P.nplanes * P.nc));
  const int64_t line = rest / ((int64_t)P.nplanes * P.nc);
  const int plane = pc % P.nplanes, comp = P.comp0 + pc / P.nplanes;
  const int nx = P.nx, gx = P.gx, k = P.gz + plane;
  const int nvalid = P.ny - 2 * P.gy;
  const int j0 = P.gy + tile * P.J;
  const int nj = min(P.J, P.gy + nvalid - j0);
  const int64_t s = P.lstart[line];
  const int m = (int)(P.lstart[line + 1] - s);
  const bool per = P.lper[line] != 0;
  const int G2 = gx / W, C2 = 4 * G2, nchunk = nj + 1; /* pieces of W doubles: per g points, per chunk */
  /* piece p of chunk c of fab b: point nx - 2g + pW of row j0 - 1 + c; only the valid quarters are
   * read: [0, G2) (the end of row j0-1+c: c >= 1) and [3 G2, 4 G2) (the start of row j0+c: c < nj) */
  const int64_t plane_off = (int64_t)comp * P.ns + (int64_t)k * P.ny * nx + (nx - 2 * gx);
  for (int t = threadIdx.x; t < m * nchunk * 2 * G2; t += blockDim.x) {
    const int h = t % (2 * G2), c = (t / (2 * G2)) % nchunk, b = t / (2 * G2 * nchunk);
    const int p = h < G2 ? h : h + 2 * G2;
    if ((h < G2 && c < 1) || (h >= G2 && c >= nj)) continue;
    const double *row = P.base + P.lfab[s + b] + plane_off + (int64_t)(j0 - 1 + c) * nx;
    sh[(b * nchunk + c) * C2 + p] = *(const V *)(row + p * W);
  }
  __syncthreads();
  for (int t = threadIdx.x; t < m * nchunk * 2 * G2; t += blockDim.x) {
    const int h = t % (2 * G2), c = (t / (2 * G2)) % nchunk, b = t / (2 * G2 * nchunk);
    V v;
    if (h < G2) { /* high ghost piece h of row j0-1+c: the next fab's valid start of that row */
      if (c < 1) continue;
      int bn = b + 1;
      if (bn == m) {
        if (!per) continue;
        bn = 0;
      }
      v = sh[(bn * nchunk + (c - 1)) * C2 + 3 * G2 + h];
    } else { /* low ghost piece h - G2 of row j0+c: the previous fab's valid end of that row */
      if (c >= nj) continue;
      int bp = b - 1;
      if (bp < 0) {
        if (!per) continue;
        bp = m - 1;
      }
      v = sh[(bp * nchunk + (c + 1)) * C2 + (h - G2)];
    }
    double *row = P.base + P.lfab[s + b] + plane_off + (int64_t)(j0 - 1 + c) * nx;
    *(V *)(row + (G2 + h) * W) = v;
  }
}

/* The whole ghost rows (bf_xline_desc.rows): one thread per (row q of the
 * line's grown box, piece of W points of the row), looping over the line's
 * fabs, kRowsUnroll loads in flight before the stores.  The rows of a line:
 * the gz low ghost planes (every row), the ghost rows of the valid planes
 * (gy low, gy high each), the gz high ghost planes. */
template <int W> __device__ __forceinline__ void rows_block(const Params &P, int64_t bid) {
  typedef typename Vec<W>::T V;
  const int chunk = (int)(bid % P.bpl);
  const int64_t rest = bid / P.bpl;
  const int comp = P.comp0 + (int)(rest % P.nc);
  const int64_t line = rest / P.nc;
  const int H = P.nx / W, t = chunk * kThreads + (int)threadIdx.x;
  if (t >= P.nq * H) return;
  const int q = t / H, i = (t - q * H) * W;
  const int nx = P.nx, ny = P.ny, nz = P.nz, gx = P.gx, gy = P.gy, gz = P.gz;
  const int A = gz * ny, B = (nz - 2 * gz) * 2 * gy;
  int j, k;
  if (q < A) {
    k = q / ny, j = q - k * ny;
  } else if (q < A + B) {
    const int r = q - A, jj = r % (2 * gy);
    k = gz + r / (2 * gy), j = jj < gy ? jj : jj + ny - 2 * gy;
  } else {
    const int r = q - A - B;
    k = nz - gz + r / ny, j = r % ny;
  }
  const int dy = j < gy ? -1 : j >= ny - gy ? 1 : 0, dz = k < gz ? -1 : k >= nz - gz ? 1 : 0;
  const int dx = i < gx ? -1 : i >= nx - gx ? 1 : 0; /* W = 2: gx even, so a piece has one dx */
  const int64_t sl = P.lnbr[9 * line + 3 * (dy + 1) + (dz + 1)];
  if (sl < 0) return;
  const int64_t s = P.lstart[line], ss = P.lstart[sl];
  const int m = (int)(P.lstart[line + 1] - s);
  const bool per = P.lper[line] != 0;
  const int64_t doff = (int64_t)comp * P.ns + ((int64_t)k * ny + j) * nx + i;
  const int64_t soff = (int64_t)comp * P.ns + ((int64_t)(k - dz * (nz - 2 * gz)) * ny + (j - dy * (ny - 2 * gy))) * nx +
                       (i - dx * (nx - 2 * gx));
  for (int b0 = 0; b0 < m; b0 += kRowsUnroll) {
    V v[kRowsUnroll];
    bool ok[kRowsUnroll];
#pragma unroll
    for (int u = 0; u < kRowsUnroll; ++u) {
      int sb = b0 + u + dx;
      ok[u] = b0 + u < m;
      if (sb < 0 || sb >= m) {
        ok[u] = ok[u] && per;
        sb = sb < 0 ? m - 1 : 0;
      }
      if (ok[u]) v[u] = *(const V *)(P.base + P.lfab[ss + sb] + soff);
    }
#pragma unroll
    for (int u = 0; u < kRowsUnroll; ++u)
      if (ok[u]) *(V *)(P.base + P.lfab[s + b0 + u] + doff) = v[u];
  }
}

/* blocks [0, nrowblocks): the rows; the others: x-line tiles */
template <int W> __global__ void __launch_bounds__(kThreads) xline_kernel(Params P) {
  extern __shared__ double2 sh[];
  const int64_t bid = blockIdx.x;
  if (bid < P.nrowblocks)
    rows_block<W>(P, bid);
  else
    xline_block<W>(P, bid - P.nrowblocks, sh);
}

void handle_free(xline_handle *h) {
  if (!h) return;
  if (h->lstart) cudaFree(h->lstart);
  if (h->lfab) cudaFree(h->lfab);
  if (h->lper) cudaFree(h->lper);
  if (h->lnbr) cudaFree(h->lnbr);
  free(h);
}

}  // namespace

extern "C" int bf_cuda_xline_prepare(const bf_xline_desc *d, void **handle) {
  const char *what = "fill_boundary (x-lines)";
  *handle = NULL;
  const int gx = d->g[0], nvalid = d->n[1] - 2 * d->g[1];
  const int nplanes = d->n[2] - 2 * d->g[2];
  if (d->nlines <= 0 || d->nlines > INT32_MAX || nvalid <= 0 || nplanes <= 0 || gx < 1) return 0; /* not for us */
  /* rows per block: the most (a power of 2, up to 64) whose chunks take at most kTileBytes of
   * shared memory: the best tiles measured (H200, 512^3, 2 ghosts, benchmarks/fb_xline_ab.py with
   * tiles of 4 to 64 rows): 16 rows at 128^3 boxes (0.130 ms; 8 rows 0.155, 32 rows 0.137), 4 at
   * 32^3 (0.515 ms; 8 rows 0.530, 16 rows 0.555); a lighter block keeps more of them resident */
  int J = 1;
  size_t per_row = (size_t)d->maxlen * 4 * (size_t)gx * sizeof(double);
  while (J < 64 && per_row * (size_t)(2 * J + 1) <= kTileBytes) J *= 2;
  size_t shm = per_row * (size_t)(J + 1);
  if (shm > kShmMax) return 0; /* very long lines of wide ghosts: the exchange tasks do it */
  if (J > nvalid) J = nvalid, shm = per_row * (size_t)(J + 1);
  const int ntiles = (nvalid + J - 1) / J;
  /* the rows of a line's grown box with a ghost y or z, per component */
  const int64_t nq = (int64_t)d->n[1] * d->n[2] - (int64_t)nvalid * nplanes;
  if (d->rows && nq * d->n[0] > INT32_MAX - kThreads) return 0; /* the rows blocks' count stays an int */
  xline_handle *h = (xline_handle *)calloc(1, sizeof *h);
  if (!h) return bf_error_set(BF_ERROR_MEMORY, what, "%s: out of host memory", what);
  (void)cudaGetDevice(&h->device);
  memcpy(h->n, d->n, sizeof h->n), memcpy(h->g, d->g, sizeof h->g);
  h->nlines = d->nlines, h->ns = d->ns, h->J = J, h->ntiles = ntiles, h->nplanes = nplanes, h->shm = shm;
  h->rows = d->rows, h->nq = d->rows ? (int)nq : 0;
  /* 16-byte pieces: every row, chunk and ghost range starts at an even point */
  h->pairs = gx % 2 == 0 && d->n[0] % 2 == 0 && d->ns % 2 == 0;
  for (int64_t f = 0; f < d->nfabs && h->pairs; ++f) h->pairs = d->lfab[f] % 2 == 0;
  cudaError_t e = cudaMalloc((void **)&h->lstart, (size_t)(d->nlines + 1) * sizeof(int64_t));
  if (e == cudaSuccess) e = cudaMalloc((void **)&h->lfab, (size_t)(d->nfabs > 0 ? d->nfabs : 1) * sizeof(int64_t));
  if (e == cudaSuccess) e = cudaMalloc((void **)&h->lper, (size_t)d->nlines);
  if (e == cudaSuccess && d->rows) e = cudaMalloc((void **)&h->lnbr, (size_t)d->nlines * 9 * sizeof(int64_t));
  if (e == cudaSuccess)
    e = cudaMemcpy(h->lstart, d->lstart, (size_t)(d->nlines + 1) * sizeof(int64_t), cudaMemcpyHostToDevice);
  if (e == cudaSuccess && d->nfabs > 0)
    e = cudaMemcpy(h->lfab, d->lfab, (size_t)d->nfabs * sizeof(int64_t), cudaMemcpyHostToDevice);
  if (e == cudaSuccess) e = cudaMemcpy(h->lper, d->lper, (size_t)d->nlines, cudaMemcpyHostToDevice);
  if (e == cudaSuccess && d->rows)
    e = cudaMemcpy(h->lnbr, d->lnbr, (size_t)d->nlines * 9 * sizeof(int64_t), cudaMemcpyHostToDevice);
  if (e == cudaSuccess && shm > kShmDefault) {
    e = cudaFuncSetAttribute(xline_kernel<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm);
    if (e == cudaSuccess)
      e = cudaFuncSetAttribute(xline_kernel<2>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm);
  }
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
  const bool pairs = h->pairs && ((uintptr_t)base & 15) == 0;
  const int W = pairs ? 2 : 1, bpl = h->rows ? (h->nq * (h->n[0] / W) + kThreads - 1) / kThreads : 0;
  /* blocks per component: the rows' and the tiles'; one launch unless the grid would pass 2^31 - 1 */
  const int64_t per_comp = h->nlines * ((int64_t)bpl + (int64_t)h->nplanes * h->ntiles);
  for (int c0 = comp0; c0 < comp0 + ncomp;) {
    int64_t most = INT32_MAX / per_comp;
    int nc = comp0 + ncomp - c0;
    if (most < 1) {
      bf_error_set(BF_ERROR_RUNTIME, what, "%s: more than 2^31 - 1 blocks", what);
      return 1;
    }
    if (nc > most) nc = (int)most;
    Params P;
    P.base = base, P.lstart = h->lstart, P.lfab = h->lfab, P.lnbr = h->lnbr, P.lper = h->lper;
    P.nx = h->n[0], P.ny = h->n[1], P.nz = h->n[2], P.gx = h->g[0], P.gy = h->g[1], P.gz = h->g[2];
    P.ns = h->ns, P.comp0 = c0, P.nc = nc, P.nplanes = h->nplanes, P.J = h->J, P.ntiles = h->ntiles;
    P.nq = h->nq, P.bpl = bpl > 0 ? bpl : 1, P.nrowblocks = h->nlines * nc * (int64_t)bpl;
    const unsigned nblocks = (unsigned)(per_comp * nc);
    if (pairs)
      xline_kernel<2><<<nblocks, kThreads, h->shm, s>>>(P);
    else
      xline_kernel<1><<<nblocks, kThreads, h->shm, s>>>(P);
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
