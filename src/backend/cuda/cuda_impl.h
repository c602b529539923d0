/* CUDA backend, private: what the host glue (C, cuda_*.c) and the kernels
 * (CUDA C, cuda_kernels.cu) share.
 *
 * Work layout.  The tasks of one launch are laid end to end: task t covers the
 * global elements [prefix[t], prefix[t+1]) (prefix[0] = 0, no empty tasks),
 * element l of a task is (i, j, k, n) with i fastest, then j, k, n, so that
 * consecutive threads touch consecutive x (coalesced). */
#ifndef BOXFAB_CUDA_IMPL_H
#define BOXFAB_CUDA_IMPL_H

#include <cuda_runtime_api.h>
#include <stdint.h>

#include "backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Partial result of one reduction block (and the final result). */
typedef struct bf_cuda_rpart {
  double v;      /* sum, extremum or |max| */
  uint64_t isum; /* exact sum of int data (wraps) */
  int64_t idx;   /* MIN/MAX: global element index of the first extremum */
  int found;     /* MIN/MAX: an element was seen; HASNAN/HASINF: one found */
  int pad;
} bf_cuda_rpart;

/* Reductions: a fixed partition of the elements into blocks that depends only
 * on the number of elements (so the result is the same on every run and every
 * device): at most BF_CUDA_RBLOCKS blocks of at least BF_CUDA_RCHUNK elements. */
#define BF_CUDA_RBLOCKS 1024
#define BF_CUDA_RCHUNK 8192
#define BF_CUDA_THREADS 256

static inline int64_t bf_cuda_reduce_chunk(int64_t total) {
  int64_t c = (total + BF_CUDA_RBLOCKS - 1) / BF_CUDA_RBLOCKS;
  return c < BF_CUDA_RCHUNK ? BF_CUDA_RCHUNK : c;
}
static inline int64_t bf_cuda_reduce_nblocks(int64_t total) {
  int64_t c = bf_cuda_reduce_chunk(total);
  return total > 0 ? (total + c - 1) / c : 0;
}

/* Element-wise op g over ntasks (device arrays prefix[ntasks+1], tasks[ntasks],
 * total = prefix[ntasks] > 0 elements) on stream s.  Returns a cudaError_t. */
int bf_cuda_launch_elementwise(const bf_kargs *g, const int64_t *prefix, const bf_ktask *tasks, int64_t ntasks,
                               int64_t total, cudaStream_t s);

/* Reduction g over the same layout: stage 1 writes bf_cuda_reduce_nblocks(total)
 * partials, stage 2 combines them in a fixed order into *result (all device
 * memory).  Returns a cudaError_t. */
int bf_cuda_launch_reduce(const bf_kargs *g, const int64_t *prefix, const bf_ktask *tasks, int64_t ntasks,
                          int64_t total, bf_cuda_rpart *partials, bf_cuda_rpart *result, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
