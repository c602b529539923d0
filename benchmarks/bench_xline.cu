/* An experiment for issue 14: can the x faces of fill_boundary reach the
 * device's 64-byte floor (bench_dram_rows) with a kernel that works on whole
 * x-lines of fabs through shared memory?
 *
 * Layout as boxfab's MultiFab in bench_gpu: a periodic 512^3 domain of bs^3
 * boxes (bs = 128 or 32), 2 ghost cells, 1 double component, fabs of
 * N = bs + 4 cells per side one after another, fab f = bx + nb (by + nb bz).
 * Only the x faces are filled: for every valid row (j, k) of fab f, its low
 * ghosts (cells 0, 1) from the x-neighbour below (cells N-4, N-3) and its
 * high ghosts (N-2, N-1) from the neighbour above (cells 2, 3).
 *
 * (a) "ends": one thread per row end (16 bytes read, 16 written), the
 *     pattern of the library's exchange tasks today;
 * (b) "xline": one block per (x-line of fabs, plane k, tile of J rows): the
 *     64-byte chunks [end of row j-1 | start of row j] of every fab of the
 *     line are read once (coalesced 16-byte pieces) into shared memory, and
 *     the ghost halves written back; every DRAM sector is then read and
 *     written by the same block close in time, the floor's access pattern.
 * Both are checked against the formula on the host; times are the best of 20
 * runs (CUDA events).  Prints the x-face time of each, its rows per second,
 * and the floor's x-face time from the 64-byte rate measured here too. */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>

#include "bench_cuda.cuh"

#define G 2
#define CH (4 * G) /* doubles per chunk: end of a row (2G) + start of the next (2G) */

__global__ void ends(double *a, int nb, int N, int64_t fabsz) {
  const int bs = N - 2 * G;
  int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  int64_t nrows = (int64_t)bs * bs, per_fab = 2 * nrows;
  int64_t nf = (int64_t)nb * nb * nb;
  if (t >= nf * per_fab) return;
  int64_t f = t / per_fab, rr = t % per_fab;
  int side = (int)(rr / nrows);
  int64_t row = rr % nrows;
  int j = G + (int)(row % bs), k = G + (int)(row / bs);
  int bx = (int)(f % nb);
  int64_t fl = f - bx;
  int64_t src = side ? fl + (bx + 1) % nb : fl + (bx + nb - 1) % nb;
  const double *s = a + src * fabsz + ((int64_t)k * N + j) * N + (side ? G : N - 2 * G);
  double *d = a + f * fabsz + ((int64_t)k * N + j) * N + (side ? N - G : 0);
  *(double2 *)d = *(const double2 *)s;
}

/* blockIdx.x: line (by, bz), blockIdx.y: plane k (valid), blockIdx.z: tile of J rows */
template <int J>
__global__ void xline(double *a, int nb, int N, int64_t fabsz) {
  extern __shared__ double2 sh[]; /* [fab][chunk 0..J][piece 0..CH/2) */
  const int bs = N - 2 * G, P = CH / 2;
  const int line = blockIdx.x, k = G + blockIdx.y, j0 = G + blockIdx.z * J;
  const int nj = min(J, bs - (j0 - G));
  const int64_t f0 = (int64_t)line * nb; /* fabs f0 .. f0 + nb - 1 along x */
  const int nchunk = nj + 1, npieces = nb * nchunk * P;
  /* chunk c (0..nj) of fab b: [end of row j0-1+c | start of row j0+c]: starts at cell N-2G of row j0-1+c */
  for (int t = threadIdx.x; t < npieces; t += blockDim.x) {
    int p = t % P, c = (t / P) % nchunk, b = t / (P * nchunk);
    const double *base = a + (f0 + b) * fabsz + ((int64_t)k * N + (j0 - 1 + c)) * N + (N - 2 * G);
    sh[(b * (J + 1) + c) * P + p] = ((const double2 *)base)[p];
  }
  __syncthreads();
  /* ghost halves: pieces G/2 .. 3G/2 - 1 of each chunk (2G doubles = G pieces):
   * piece q in [0, G/2): high ghost of row j0-1+c (written when c >= 1), from fab b+1, chunk c, pieces
   *   3G/2 + q (cells G.. of row j0-1+c... of the next fab: its chunk c-1 holds row j0-1+c's start);
   * piece q in [G/2, G): low ghost of row j0+c (written when c < nj), from fab b-1, chunk c+1, pieces q-G/2 */
  const int H = G / 2, nout = nb * nchunk * G;
  for (int t = threadIdx.x; t < nout; t += blockDim.x) {
    int q = t % G, c = (t / G) % nchunk, b = t / (G * nchunk);
    double2 v;
    if (q < H) { /* high ghost of row j0-1+c: source = fab b+1's cells G.. of that row = its chunk c-1's last H pieces */
      if (c < 1) continue;
      int bn = (b + 1) % nb;
      v = sh[(bn * (J + 1) + (c - 1)) * P + 3 * H + q];
    } else { /* low ghost of row j0+c: source = fab b-1's cells N-2G.. of that row = its chunk c+1's first H pieces */
      if (c >= nj) continue;
      int bp = (b + nb - 1) % nb;
      v = sh[(bp * (J + 1) + (c + 1)) * P + (q - H)];
    }
    double *base = a + (f0 + b) * fabsz + ((int64_t)k * N + (j0 - 1 + c)) * N + (N - 2 * G);
    ((double2 *)base)[H + q] = v;
  }
}



static int check(const std::vector<double> &h, int nb, int N, int64_t fabsz, const char *what) {
  const int bs = N - 2 * G, n = nb * bs;
  int64_t bad = 0;
  for (int64_t f = 0; f < (int64_t)nb * nb * nb; ++f) {
    int bx = (int)(f % nb), by = (int)(f / nb % nb), bz = (int)(f / nb / nb);
    for (int k = G; k < N - G; ++k)
      for (int j = G; j < N - G; ++j)
        for (int i = 0; i < N; ++i) {
          if (i >= G && i < N - G) continue;
          int64_t gi = ((int64_t)bx * bs + i - G + n) % n, gj = (int64_t)by * bs + j - G, gk = (int64_t)bz * bs + k - G;
          double want = bench_val(gi, gj, gk), got = h[f * fabsz + ((int64_t)k * N + j) * N + i];
          if (got != want && bad++ < 5)
            printf("  %s: fab %lld (%d,%d,%d) cell (%d,%d,%d): %g, want %g\n", what, (long long)f, bx, by, bz, i, j, k,
                   got, want);
        }
  }
  if (bad) printf("  %s: %lld wrong ghost cells\n", what, (long long)bad);
  return bad != 0;
}

int main(void) {
  int fails = 0;
  for (int bs : {128, 32}) {
    const int nb = 512 / bs, N = bs + 2 * G;
    const int64_t fabsz = (int64_t)N * N * N, nf = (int64_t)nb * nb * nb, total = fabsz * nf;
    const std::vector<double> h = bench_lattice_data(nb, bs, G);
    double *d = NULL;
    if (cudaMalloc(&d, (size_t)total * 8) != cudaSuccess) {
      printf("no memory\n");
      return 1;
    }
    const int64_t nends = nf * 2 * (int64_t)bs * bs;
    auto run_ends = [&] { ends<<<(unsigned)((nends + 255) / 256), 256>>>(d, nb, N, fabsz); };
    constexpr int J = 32;
    dim3 grid((unsigned)(nb * nb), (unsigned)bs, (unsigned)((bs + J - 1) / J));
    size_t shm = (size_t)nb * (J + 1) * CH * sizeof(double);
    cudaFuncSetAttribute(xline<J>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm);
    auto run_xline = [&] { xline<J><<<grid, 256, shm>>>(d, nb, N, fabsz); };
    /* variants of the tile (rows per block) and block size, timed only */
    auto variant = [&](auto kern, int jj, int threads) {
      dim3 gr((unsigned)(nb * nb), (unsigned)bs, (unsigned)((bs + jj - 1) / jj));
      size_t sm = (size_t)nb * (jj + 1) * CH * sizeof(double);
      cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sm);
      double t = bench_best([&] { kern<<<gr, threads, sm>>>(d, nb, N, fabsz); });
      printf("  xline J=%d threads=%d: %.3f ms\n", jj, threads, t * 1e3);
    };
    for (int th : {128, 256, 512}) {
      variant(xline<8>, 8, th);
      variant(xline<16>, 16, th);
      variant(xline<32>, 32, th);
      if (bs > 32) variant(xline<64>, 64, th);
    }
    std::vector<double> back((size_t)total);
    cudaMemcpy(d, h.data(), (size_t)total * 8, cudaMemcpyHostToDevice);
    run_ends();
    cudaMemcpy(back.data(), d, (size_t)total * 8, cudaMemcpyDeviceToHost);
    fails += check(back, nb, N, fabsz, "ends");
    cudaMemcpy(d, h.data(), (size_t)total * 8, cudaMemcpyHostToDevice);
    run_xline();
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
      printf("xline: %s\n", cudaGetErrorString(e));
      return 1;
    }
    cudaMemcpy(back.data(), d, (size_t)total * 8, cudaMemcpyDeviceToHost);
    fails += check(back, nb, N, fabsz, "xline");
    double te = bench_best(run_ends), tx = bench_best(run_xline);
    /* the floor's 64-byte rate on rows of this stride, over the same buffer */
    int64_t nrows = total / N - 1;
    double t64 = bench_best([&] { copy_rows_launch<64>((char *)d, (char *)d, nrows, (int64_t)N * 8); });
    double r64 = nrows / t64, rows = (double)nf * bs * bs; /* row boundaries of x faces: one 64-byte chunk each */
    printf("bench_xline %d^3 boxes (%lld fabs): x faces ends %.3f ms, xline %.3f ms (%.2fx faster); floor %.3f ms "
           "(%.0f chunks at %.1f G/s); xline / floor %.2f\n",
           bs, (long long)nf, te * 1e3, tx * 1e3, te / tx, rows / r64 * 1e3, rows, r64 / 1e9, tx / (rows / r64));
    cudaFree(d);
  }
  printf("bench_xline: %s\n", fails ? "CHECK FAILED" : "checks passed");
  return fails ? 1 : 0;
}
