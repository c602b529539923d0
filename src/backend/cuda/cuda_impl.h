/* CUDA backend, private: what the host glue (C, cuda_*.c) and the kernels
 * (CUDA C, cuda_kernels.cu) share.
 *
 * Work layout.  The host turns a task list into a launch list, uploaded once
 * and cached (cuda_ops.c): per task a bf_cuda_ctask (base pointers of the
 * views at the task's lo, strides, extents), and a block table that cuts every
 * task into pieces of at most BF_CUDA_TILE elements along its own structure:
 * a piece is x in [x0, x0+nxb) of rows j in [j0, j0+nj) of planes p in
 * [p0, p0+np) (plane p = k + nz*n: z index k, component n), so that inside a
 * piece element e is (e % nxb, e / nxb % nj, e / nxb / nj): divisions by
 * per-piece constants, done with a float reciprocal and an exact correction
 * (no 32/64-bit integer division per element), and consecutive threads touch
 * consecutive x (coalesced).  Block b of an element-wise launch does piece b;
 * reduction block g does pieces [g*npieces/G, (g+1)*npieces/G) in order. */
#ifndef BOXFAB_CUDA_IMPL_H
#define BOXFAB_CUDA_IMPL_H

#include <cuda_runtime_api.h>
#include <stdint.h>

#include "backend.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BF_CUDA_THREADS 256
#define BF_CUDA_ITEMS 4   /* elements per thread per batch, all loaded before any is used */
#define BF_CUDA_BATCH (BF_CUDA_THREADS * BF_CUDA_ITEMS)
#define BF_CUDA_BATCHES 8 /* batches per piece: the piece's setup (two dependent loads) is paid once */
#define BF_CUDA_TILE (BF_CUDA_BATCH * BF_CUDA_BATCHES)

/* One task on the device.  Element (x, j, k, n) relative to the task's lo is
 * at a + (x + j*ajs + k*aks + n*ans) elements (same for b, c; the component
 * offset of the call is added by the kernel).  Unused views: 0. */
typedef struct bf_cuda_ctask {
  uintptr_t a, b, c;
  int64_t ajs, aks, ans, bjs, bks, bns, cjs, cks, cns;
  int nx, ny, nz, pad;
  int64_t gofs;         /* reductions: global element index of the task's first element */
  const uint8_t *mask;  /* reductions: device copy of the owner mask, or NULL */
} bf_cuda_ctask;

/* One piece of a task (see above); count = nxb * nj * np <= BF_CUDA_TILE. */
typedef struct bf_cuda_piece {
  int task, p0, np, j0, nj, x0, nxb, count;
} bf_cuda_piece;

/* Partial result of one reduction block (and the final result). */
typedef struct bf_cuda_rpart {
  double v;      /* sum, extremum or |max| */
  uint64_t isum; /* exact sum of int data (wraps) */
  int64_t idx;   /* MIN/MAX: global element index of the first extremum */
  int found;     /* MIN/MAX: an element was seen; HASNAN/HASINF: one found */
  int pad;
} bf_cuda_rpart;

/* Reductions: at most BF_CUDA_RBLOCKS blocks; the number depends only on the
 * number of pieces (fixed by the task list), so the result is the same on
 * every run and every device. */
#define BF_CUDA_RBLOCKS 4096
static inline int64_t bf_cuda_reduce_nblocks(int64_t npieces) {
  return npieces < BF_CUDA_RBLOCKS ? npieces : BF_CUDA_RBLOCKS;
}

/* Element-wise op g over the pieces (device arrays) on stream s.  Returns a
 * cudaError_t. */
int bf_cuda_launch_elementwise(const bf_kargs *g, const bf_cuda_ctask *tasks, const bf_cuda_piece *pieces,
                               int64_t npieces, cudaStream_t s);

/* Reduction g over the pieces: stage 1 writes bf_cuda_reduce_nblocks(npieces)
 * partials, stage 2 combines them in a fixed order into *result (all device
 * memory).  Returns a cudaError_t. */
int bf_cuda_launch_reduce(const bf_kargs *g, const bf_cuda_ctask *tasks, const bf_cuda_piece *pieces,
                          int64_t npieces, bf_cuda_rpart *partials, bf_cuda_rpart *result, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
