/* An experiment for issue 14: fill_boundary of a uniform lattice of equal
 * boxes (every local fab one shape, one allocation, the domain covered by
 * nb^3 boxes) as ONE kernel launch with no list of tasks, every ghost cell
 * (faces, edges, corners) filled.
 *
 * Layout as bench_gpu's MultiFab: a periodic 512^3 domain of bs^3 boxes
 * (bs = 128 or 32), G = 2 ghost cells, 1 double component, fabs of N = bs + 2G
 * cells per side one after another, fab f = bx + nb (by + nb bz).
 *
 * The ghost cells of a fab split into
 *  - full rows: rows (j, k) of the grown box with j or k a ghost index; every
 *    cell of such a row (N of them, a whole number of 32-byte sectors when the
 *    row's bytes are) is a ghost cell.  Source: for cell i of fab bx the
 *    global cell (bx bs + i - G, ...) wrapped, which lies in fab bx-1, bx or
 *    bx+1 of the source line (by', bz'): a comparison per cell, no division.
 *    Blocks of CHK cells over the rows of one (line, plane k); threads gather
 *    (consecutive threads, consecutive destination cells), ITEMS loads in
 *    flight per thread before the stores.
 *  - row ends: the 2G cells at the ends of the valid rows of valid planes,
 *    the x-line blocks of bench_xline.cu (64-byte chunks [end of row j-1 |
 *    start of row j] of every fab of an x-line through shared memory).
 *
 * Variants, each timed (best of 20, CUDA events):
 *   rows      the full rows only
 *   xline     the row ends only
 *   two       rows, then xline (two launches)
 *   fused     one launch: blocks [0, nrows) full rows, the rest x-line tiles
 *   rows2, two launches2, fused2: the same with the full rows as one thread
 *             per (row, 16-byte pair) looping over the line's fabs
 * two and fused are checked cell by cell (every ghost cell of every fab)
 * against the formula on the host.  Ratios: the time over the time of all
 * ghost bytes (read + write) at D2D memcpy bandwidth (bench_gpu's measure),
 * and over the floor of bench_dram_rows (x faces' rows at the 64-byte rate
 * plus the y, z faces' bytes at memcpy bandwidth), measured here too. */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>

#include "bench_cuda.cuh"

#define G 2
#define CH (4 * G) /* doubles per x-line chunk: end of a row (2G) + start of the next (2G) */

struct Lat {
  double *a;
  int nb, bs, N;
  int64_t fabsz;
  int cg, cv;       /* full-row blocks per ghost plane, per valid plane */
  int nrowblocks;   /* full-row blocks in all */
  int J, ntiles;    /* x-line: rows per tile, tiles per plane */
};

template <int ITEMS, int THREADS> __device__ __forceinline__ void rows_block(const Lat &L, int bid) {
  const int N = L.N, bs = L.bs, nb = L.nb;
  const int per_line = 2 * G * L.cg + bs * L.cv;
  const int line = bid / per_line;
  int rem = bid - line * per_line;
  int k, chunk;
  bool gplane;
  if (rem < 2 * G * L.cg) {
    const int p = rem / L.cg;
    chunk = rem - p * L.cg;
    k = p < G ? p : p + bs;
    gplane = true;
  } else {
    rem -= 2 * G * L.cg;
    const int p = rem / L.cv;
    chunk = rem - p * L.cv;
    k = G + p;
    gplane = false;
  }
  const int by = line % nb, bz = line / nb;
  int sbz = bz, sk = k;
  if (k < G) sbz = bz - 1, sk = k + bs;
  else if (k >= G + bs) sbz = bz + 1, sk = k - bs;
  if (sbz < 0) sbz += nb;
  if (sbz >= nb) sbz -= nb;
  const int rowcells = nb * N;
  const int ncell = (gplane ? N : 2 * G) * rowcells;
  const int e0 = chunk * ITEMS * THREADS;
  const float rN = 1.0f / (float)N, rR = 1.0f / (float)rowcells;
  int64_t so[ITEMS], dso[ITEMS];
  double v[ITEMS];
#pragma unroll
  for (int u = 0; u < ITEMS; ++u) {
    const int e = e0 + (int)threadIdx.x + u * THREADS;
    so[u] = -1;
    if (e >= ncell) continue;
    int r = (int)((float)e * rR), rr = e - r * rowcells;
    while (rr < 0) --r, rr += rowcells;
    while (rr >= rowcells) ++r, rr -= rowcells;
    int b = (int)((float)rr * rN), i = rr - b * N;
    while (i < 0) --b, i += N;
    while (i >= N) ++b, i -= N;
    const int j = gplane ? r : (r < G ? r : r + bs);
    int sby = by, sj = j;
    if (j < G) sby = by - 1, sj = j + bs;
    else if (j >= G + bs) sby = by + 1, sj = j - bs;
    if (sby < 0) sby += nb;
    if (sby >= nb) sby -= nb;
    int sbx = b, si = i;
    if (i < G) sbx = b - 1, si = i + bs;
    else if (i >= G + bs) sbx = b + 1, si = i - bs;
    if (sbx < 0) sbx += nb;
    if (sbx >= nb) sbx -= nb;
    const int64_t sf = sbx + (int64_t)nb * (sby + (int64_t)nb * sbz);
    const int64_t df = b + (int64_t)nb * (by + (int64_t)nb * bz);
    so[u] = sf * L.fabsz + ((int64_t)sk * N + sj) * N + si;
    dso[u] = df * L.fabsz + ((int64_t)k * N + j) * N + i;
  }
#pragma unroll
  for (int u = 0; u < ITEMS; ++u)
    if (so[u] >= 0) v[u] = L.a[so[u]];
#pragma unroll
  for (int u = 0; u < ITEMS; ++u)
    if (so[u] >= 0) L.a[dso[u]] = v[u];
}

/* one x-line tile: (line, valid plane, tile of J valid rows), as bench_xline.cu */
__device__ __forceinline__ void xline_block(const Lat &L, int bid, double2 *sh) {
  const int N = L.N, bs = L.bs, nb = L.nb, J = L.J, P = CH / 2;
  const int tile = bid % L.ntiles, rest = bid / L.ntiles;
  const int plane = rest % bs, line = rest / bs;
  const int k = G + plane, j0 = G + tile * J;
  const int nj = min(J, bs - (j0 - G));
  const int64_t f0 = (int64_t)line * nb;
  const int nchunk = nj + 1, npieces = nb * nchunk * P;
  for (int t = threadIdx.x; t < npieces; t += blockDim.x) {
    int p = t % P, c = (t / P) % nchunk, b = t / (P * nchunk);
    if ((c == 0 && p < P / 2) || (c == nj && p >= P / 2)) continue;
    const double *base = L.a + (f0 + b) * L.fabsz + ((int64_t)k * N + (j0 - 1 + c)) * N + (N - 2 * G);
    sh[(b * nchunk + c) * P + p] = ((const double2 *)base)[p];
  }
  __syncthreads();
  const int H = G / 2, nout = nb * nchunk * G;
  for (int t = threadIdx.x; t < nout; t += blockDim.x) {
    int q = t % G, c = (t / G) % nchunk, b = t / (G * nchunk);
    double2 v;
    if (q < H) {
      if (c < 1) continue;
      int bn = (b + 1) % nb;
      v = sh[(bn * nchunk + (c - 1)) * P + 3 * H + q];
    } else {
      if (c >= nj) continue;
      int bp = (b + nb - 1) % nb;
      v = sh[(bp * nchunk + (c + 1)) * P + (q - H)];
    }
    double *base = L.a + (f0 + b) * L.fabsz + ((int64_t)k * N + (j0 - 1 + c)) * N + (N - 2 * G);
    ((double2 *)base)[H + q] = v;
  }
}

/* the full rows again, one thread per (row q of the line, 16-byte pair i2 of the row), looping over the
 * line's nb fabs (U loads in flight before the stores): the index work is done once per thread, and
 * every access is 16 bytes (G and bs even: a pair never straddles two source fabs) */
template <int U, int THREADS> __device__ __forceinline__ void rows2_block(const Lat &L, int bid) {
  const int N = L.N, bs = L.bs, nb = L.nb, H = N / 2;
  const int nq = 2 * G * N + 2 * G * bs;
  const int bpl = (nq * H + THREADS - 1) / THREADS;
  const int line = bid / bpl, t = (bid - line * bpl) * THREADS + (int)threadIdx.x;
  if (t >= nq * H) return;
  const int q = t / H, i = 2 * (t - q * H);
  int k, j;
  if (q < G * N) {
    k = q / N, j = q - k * N;
  } else if (q < G * N + 2 * G * bs) {
    const int r = q - G * N;
    k = G + r / (2 * G), j = r % (2 * G);
    if (j >= G) j += bs;
  } else {
    const int r = q - G * N - 2 * G * bs;
    k = G + bs + r / N, j = r % N;
  }
  const int by = line % nb, bz = line / nb;
  int sby = by, sj = j, sbz = bz, sk = k, dx = 0, si = i;
  if (j < G) sby = by - 1, sj = j + bs;
  else if (j >= G + bs) sby = by + 1, sj = j - bs;
  if (k < G) sbz = bz - 1, sk = k + bs;
  else if (k >= G + bs) sbz = bz + 1, sk = k - bs;
  if (i < G) dx = -1, si = i + bs;
  else if (i >= G + bs) dx = 1, si = i - bs;
  sby += sby < 0 ? nb : sby >= nb ? -nb : 0;
  sbz += sbz < 0 ? nb : sbz >= nb ? -nb : 0;
  const double *src = L.a + (int64_t)nb * (sby + (int64_t)nb * sbz) * L.fabsz + ((int64_t)sk * N + sj) * N + si;
  double *dst = L.a + (int64_t)nb * (by + (int64_t)nb * bz) * L.fabsz + ((int64_t)k * N + j) * N + i;
  for (int b0 = 0; b0 < nb; b0 += U) {
    double2 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      int sb = b0 + u + dx;
      sb += sb < 0 ? nb : sb >= nb ? -nb : 0;
      if (b0 + u < nb) v[u] = *(const double2 *)(src + sb * L.fabsz);
    }
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (b0 + u < nb) *(double2 *)(dst + (b0 + u) * L.fabsz) = v[u];
  }
}
template <int U, int THREADS> __global__ void __launch_bounds__(THREADS) k_rows2(Lat L) {
  rows2_block<U, THREADS>(L, blockIdx.x);
}
template <int U, int THREADS> __global__ void __launch_bounds__(THREADS) k_fused2(Lat L) {
  extern __shared__ double2 sh[];
  if ((int)blockIdx.x < L.nrowblocks) rows2_block<U, THREADS>(L, blockIdx.x);
  else xline_block(L, blockIdx.x - L.nrowblocks, sh);
}

template <int ITEMS, int THREADS> __global__ void __launch_bounds__(THREADS) k_rows(Lat L) {
  rows_block<ITEMS, THREADS>(L, blockIdx.x);
}
__global__ void k_xline(Lat L) {
  extern __shared__ double2 sh[];
  xline_block(L, blockIdx.x, sh);
}
template <int ITEMS, int THREADS> __global__ void __launch_bounds__(THREADS) k_fused(Lat L) {
  extern __shared__ double2 sh[];
  if ((int)blockIdx.x < L.nrowblocks) rows_block<ITEMS, THREADS>(L, blockIdx.x);
  else xline_block(L, blockIdx.x - L.nrowblocks, sh);
}



/* every ghost cell of every fab against the formula (periodic) */
static int check(const std::vector<double> &h, int nb, int N, int64_t fabsz, const char *what) {
  const int bs = N - 2 * G, n = nb * bs;
  int64_t bad = 0;
  for (int64_t f = 0; f < (int64_t)nb * nb * nb; ++f) {
    int bx = (int)(f % nb), by = (int)(f / nb % nb), bz = (int)(f / nb / nb);
    for (int k = 0; k < N; ++k)
      for (int j = 0; j < N; ++j)
        for (int i = 0; i < N; ++i) {
          bool valid = i >= G && i < N - G && j >= G && j < N - G && k >= G && k < N - G;
          int64_t gi = ((int64_t)bx * bs + i - G + n) % n, gj = ((int64_t)by * bs + j - G + n) % n,
                  gk = ((int64_t)bz * bs + k - G + n) % n;
          double want = bench_val(gi, gj, gk), got = h[f * fabsz + ((int64_t)k * N + j) * N + i];
          if (!valid && got != want && bad++ < 5)
            printf("  %s: fab %lld (%d,%d,%d) cell (%d,%d,%d): %g, want %g\n", what, (long long)f, bx, by, bz, i, j, k,
                   got, want);
          if (valid && got != want && bad++ < 5) printf("  %s: valid cell changed\n", what);
        }
  }
  if (bad) printf("  %s: %lld wrong cells\n", what, (long long)bad);
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
    /* memcpy bandwidth and the floor, on this buffer size */
    double *d2 = NULL;
    cudaMalloc(&d2, (size_t)total * 8);
    const double bw = 2.0 * total * 8 / bench_best([&] { cudaMemcpyAsync(d2, d, (size_t)total * 8, cudaMemcpyDeviceToDevice); });
    cudaFree(d2);
    const double ghosts = (double)(fabsz - (int64_t)bs * bs * bs) * nf, at_mc = 16.0 * ghosts / bw;
    const int64_t nrows = total / N - 1;
    const double t64 = bench_best([&] { copy_rows_launch<64>((char *)d, (char *)d, nrows, (int64_t)N * 8); });
    const double xfloor = (double)bs * bs * nf * t64 / nrows, yzfloor = 2.0 * (16.0 * 2 * G * bs * bs * nf) / bw;
    const double floor_ = xfloor + yzfloor;
    printf("bench_lattice %d^3 boxes (%lld fabs): memcpy %.0f GB/s, ghost bytes at memcpy %.3f ms, floor %.3f ms "
           "(%.2fx; x rows %.3f + y, z faces %.3f)\n",
           bs, (long long)nf, bw / 1e9, at_mc * 1e3, floor_ * 1e3, floor_ / at_mc, xfloor * 1e3, yzfloor * 1e3);
    auto report = [&](const char *name, double t) {
      printf("  %-28s %.3f ms = %.2fx its bytes at memcpy, %.2f of the floor\n", name, t * 1e3, t / at_mc,
             t / floor_);
    };
    std::vector<double> back((size_t)total);
    auto verify = [&](const char *name, auto launch) {
      cudaMemcpy(d, h.data(), (size_t)total * 8, cudaMemcpyHostToDevice);
      launch();
      cudaError_t e = cudaDeviceSynchronize();
      if (e != cudaSuccess) {
        printf("%s: %s\n", name, cudaGetErrorString(e));
        exit(1);
      }
      cudaMemcpy(back.data(), d, (size_t)total * 8, cudaMemcpyDeviceToHost);
      fails += check(back, nb, N, fabsz, name);
    };
    for (int J : {8, 16, 32}) {
      Lat L;
      L.a = d, L.nb = nb, L.bs = bs, L.N = N, L.fabsz = fabsz;
      L.J = J, L.ntiles = (bs + J - 1) / J;
      const size_t shm = (size_t)nb * (J + 1) * CH * sizeof(double);
      const int nx_blocks = nb * nb * bs * L.ntiles;
      /* one variant of the full rows (kernel kr alone, kf fused with the x-line tiles); the name
       * says which; checked cell by cell when `check` */
      auto variant = [&](const char *name, auto kr, auto kf, int threads, bool check) {
        cudaFuncSetAttribute(k_xline, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm);
        cudaFuncSetAttribute(kf, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm);
        auto rows = [&] { kr<<<L.nrowblocks, threads>>>(L); };
        auto xl = [&] { k_xline<<<nx_blocks, 256, shm>>>(L); };
        auto two = [&] { rows(), xl(); };
        auto fused = [&] { kf<<<L.nrowblocks + nx_blocks, threads, shm>>>(L); };
        char nm[128];
        if (check) {
          snprintf(nm, sizeof nm, "two launches, %s", name);
          verify(nm, two);
          snprintf(nm, sizeof nm, "fused, %s", name);
          verify(nm, fused);
        }
        const char *what[3] = {"rows", "two launches", "fused"};
        const double t[3] = {bench_best(rows), bench_best(two), bench_best(fused)};
        for (int v = 0; v < 3; ++v) {
          snprintf(nm, sizeof nm, "%s (%s, J=%d)", what[v], name, J);
          report(nm, t[v]);
        }
      };
      report("xline alone", bench_best([&] { k_xline<<<nx_blocks, 256, shm>>>(L); }));
      /* rows2: one thread per (row, 16-byte pair), U fabs in flight */
      auto time_rows2 = [&](auto kr, auto kf, int U, int threads) {
        const int nq = 2 * G * N + 2 * G * bs, bpl = (nq * (N / 2) + threads - 1) / threads;
        L.nrowblocks = nb * nb * bpl;
        char nm[64];
        snprintf(nm, sizeof nm, "rows2 U=%d, %d threads", U, threads);
        variant(nm, kr, kf, threads, J == 8);
      };
      /* rows: one thread per point, ITEMS points per thread */
      auto time_items = [&](auto kr, auto kf, int items, int threads) {
        const int chk = items * threads, rowcells = nb * N;
        L.cg = (N * rowcells + chk - 1) / chk, L.cv = (2 * G * rowcells + chk - 1) / chk;
        L.nrowblocks = nb * nb * (2 * G * L.cg + bs * L.cv);
        char nm[64];
        snprintf(nm, sizeof nm, "rows %dx%d", items, threads);
        variant(nm, kr, kf, threads, J == 16);
      };
      time_rows2(k_rows2<4, 256>, k_fused2<4, 256>, 4, 256);
      time_rows2(k_rows2<8, 256>, k_fused2<8, 256>, 8, 256);
      time_rows2(k_rows2<4, 128>, k_fused2<4, 128>, 4, 128);
      if (J == 32) continue;
      time_items(k_rows<4, 256>, k_fused<4, 256>, 4, 256);
      if (J == 16) time_items(k_rows<8, 256>, k_fused<8, 256>, 8, 256);
    }
    cudaFree(d);
  }
  printf("bench_lattice: %s\n", fails ? "CHECK FAILED" : "checks passed");
  return fails ? 1 : 0;
}
