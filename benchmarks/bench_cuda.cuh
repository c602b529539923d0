/* What the standalone CUDA benchmarks share (bench_dram_rows.cu,
 * bench_xline.cu, bench_lattice.cu): the timer, the row-chunk copy, and
 * bench_gpu's layout of a periodic domain in nb^3 boxes. */
#ifndef BOXFAB_BENCH_CUDA_CUH
#define BOXFAB_BENCH_CUDA_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include <vector>

/* best of 20 timed runs of f() (CUDA events on the default stream) after a warm-up, in seconds */
template <class F> static inline double bench_best(F f) {
  static cudaEvent_t ev0, ev1;
  if (!ev0) cudaEventCreate(&ev0), cudaEventCreate(&ev1);
  f();
  cudaDeviceSynchronize();
  float b = 1e30f;
  for (int r = 0; r < 20; ++r) {
    cudaEventRecord(ev0);
    f();
    cudaEventRecord(ev1);
    cudaEventSynchronize(ev1);
    float ms;
    cudaEventElapsedTime(&ms, ev0, ev1);
    b = ms < b ? ms : b;
  }
  return b * 1e-3;
}

/* CH bytes (a multiple of 16) at byte `off` of every one of nrows rows of `stride` bytes, src to dst,
 * in 16-byte pieces: one thread a piece */
template <int CH> __global__ void copy_rows(char *dst, const char *src, int64_t nrows, int64_t stride, int off) {
  const int per = CH / 16;
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i >= nrows * per) return;
  int64_t r = i / per, p = i % per;
  *((double2 *)(dst + r * stride + off) + p) = *((const double2 *)(src + r * stride + off) + p);
}

/* launch copy_rows<CH> over nrows rows */
template <int CH> static inline void copy_rows_launch(char *dst, const char *src, int64_t nrows, int64_t stride) {
  const int64_t n = nrows * (CH / 16);
  copy_rows<CH><<<(unsigned)((n + 255) / 256), 256>>>(dst, src, nrows, stride, 0);
}

/* the value of global cell (i, j, k) */
static inline double bench_val(int64_t i, int64_t j, int64_t k) { return (double)(i + 1000 * j + 1000000 * k); }

/* nb^3 fabs of (bs + 2g)^3 doubles one after another, fab bx + nb (by + nb bz): valid cells
 * bench_val of their global index, ghost cells -1 */
static inline std::vector<double> bench_lattice_data(int nb, int bs, int g) {
  const int N = bs + 2 * g;
  const int64_t fabsz = (int64_t)N * N * N, nf = (int64_t)nb * nb * nb;
  std::vector<double> h((size_t)(fabsz * nf));
  for (int64_t f = 0; f < nf; ++f) {
    int bx = (int)(f % nb), by = (int)(f / nb % nb), bz = (int)(f / nb / nb);
    for (int k = 0; k < N; ++k)
      for (int j = 0; j < N; ++j)
        for (int i = 0; i < N; ++i) {
          bool valid = i >= g && i < N - g && j >= g && j < N - g && k >= g && k < N - g;
          h[f * fabsz + ((int64_t)k * N + j) * N + i] =
              valid ? bench_val((int64_t)bx * bs + i - g, (int64_t)by * bs + j - g, (int64_t)bz * bs + k - g) : -1.0;
        }
  }
  return h;
}

#endif
