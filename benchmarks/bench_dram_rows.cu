/* The device's floor for fill_boundary in bench_gpu's setting (512^3 doubles,
 * 2 ghost cells, 1 component, boxes of 128^3 or 32^3), measured rather than
 * assumed.
 *
 * A fab's x faces are 2 ghost cells (16 bytes) at each end of every row of
 * bs + 4 cells, and the valid cells beside them, which the neighbours' ghosts
 * need, share their 32-byte DRAM sectors.  Every row end is thus read and
 * written whatever the kernel does; the end of row r and the start of row
 * r + 1 are adjacent, so the best any kernel can do is one 64-byte chunk read
 * and written per row.  This program copies CH bytes out of every row of a
 * buffer of about a GiB (rows of the fabs' stride) and prints the rate, for
 * CH = 16 (a thin face, partial sectors), 32, 64, 128 and 256 bytes, next to
 * a 1 GiB device-to-device cudaMemcpy.  The floor of fill_boundary is then
 * the x faces' rows at the 64-byte rate plus the y and z faces' bytes at
 * memcpy bandwidth (edges and corners left out: a lower bound); it prints
 * that floor as a multiple of the time of all the ghost bytes at memcpy
 * bandwidth, the measure of bench_gpu's fill_boundary row. */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>

#include "bench_cuda.cuh"

template <int CH> static double rows_per_s(char *dst, const char *src, int64_t nrows, int64_t stride) {
  double t = bench_best([&] { copy_rows_launch<CH>(dst, src, nrows, stride); });
  return nrows / t;
}

int main(void) {
  const size_t span = (size_t)1200 << 20, gib = (size_t)1 << 30;
  char *a = NULL, *b = NULL;
  if (cudaMalloc(&a, span) != cudaSuccess || cudaMalloc(&b, span) != cudaSuccess) {
    printf("bench_dram_rows: no GPU memory (%s)\n", cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  double bw = 2.0 * gib / bench_best([&] { cudaMemcpyAsync(b, a, gib, cudaMemcpyDeviceToDevice); });
  printf("bench_dram_rows: D2D memcpy of 1 GiB: %.0f GB/s (read + write)\n", bw / 1e9);
  for (int bs : {128, 32}) {
    const int64_t stride = (bs + 4) * 8, nrows = (int64_t)(span / stride) - 1;
    double r16 = rows_per_s<16>(b, a, nrows, stride), r32 = rows_per_s<32>(b, a, nrows, stride);
    double r64 = rows_per_s<64>(b, a, nrows, stride), r128 = rows_per_s<128>(b, a, nrows, stride);
    double r256 = rows_per_s<256>(b, a, nrows, stride);
    printf("  rows of %lld bytes, CH bytes copied per row, G rows/s (GB/s of those bytes, read + write):\n",
           (long long)stride);
    printf("    16: %.1f (%.0f)  32: %.1f (%.0f)  64: %.1f (%.0f)  128: %.1f (%.0f)  256: %.1f (%.0f)\n", r16 / 1e9,
           32 * r16 / 1e9, r32 / 1e9, 64 * r32 / 1e9, r64 / 1e9, 128 * r64 / 1e9, r128 / 1e9, 256 * r128 / 1e9,
           r256 / 1e9, 512 * r256 / 1e9);
    const double nboxes = (512.0 / bs) * (512.0 / bs) * (512.0 / bs);
    const double ghosts = ((double)(bs + 4) * (bs + 4) * (bs + 4) - (double)bs * bs * bs) * nboxes;
    const double at_memcpy = 2.0 * 8.0 * ghosts / bw; /* all ghost bytes, read + write */
    const double xfloor = (double)bs * bs * nboxes / r64, yzfloor = 2.0 * (2.0 * 8.0 * 2.0 * 2.0 * bs * bs * nboxes) / bw;
    printf("  fill_boundary floor, %d^3 boxes: x faces %.3f ms (%.0f rows at the 64-byte rate) + y, z faces %.3f ms "
           "(their bytes at memcpy) = %.3f ms = %.2fx its ghost bytes at memcpy bandwidth (%.3f ms)\n",
           bs, xfloor * 1e3, (double)bs * bs * nboxes, yzfloor * 1e3, (xfloor + yzfloor) * 1e3,
           (xfloor + yzfloor) / at_memcpy, at_memcpy * 1e3);
  }
  cudaFree(a);
  cudaFree(b);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
