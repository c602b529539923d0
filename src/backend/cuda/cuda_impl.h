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
 * consecutive x (coalesced).  Block b of a launch does piece b.  The views'
 * base pointers a, b, c of a task have the bases of bf_kargs added (lists
 * with relative views; 0 otherwise). */
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

/* Partial result of a reduction (one per piece, one per group of
 * BF_CUDA_RGROUP pieces, and the final result): 16 bytes.
 *   SUM / ABSSUM / SUMSQ / DOT: v (double data) or aux (exact int64 sum of
 *     int data, wrapping);
 *   MIN / MAX: v and aux = global element index of the first extremum, -1
 *     when no element was seen;
 *   ABSMAX: v = max |a|, aux = 1 when an element was seen;
 *   HASNAN / HASINF: aux = 1 when one was found. */
typedef struct bf_cuda_rpart {
  double v;
  int64_t aux;
} bf_cuda_rpart;

/* Reductions: one block per piece; the last block to finish in each group
 * of BF_CUDA_RGROUP consecutive pieces combines the group's partials in a
 * fixed tree, and the last group the group partials (in a fixed order): the
 * result depends only on the data and the task list, never on the device,
 * the run or the order in which blocks finish.  Scratch (device memory): the
 * result, one partial per piece and per group, and one counter per group
 * plus one (all 0 between launches: the kernel resets what it counts). */
#define BF_CUDA_RGROUP 256
typedef struct bf_cuda_rscratch {
  bf_cuda_rpart *result, *parts, *gparts;
  unsigned *counters;
} bf_cuda_rscratch;

static inline int64_t bf_cuda_rgroups(int64_t npieces) { return (npieces + BF_CUDA_RGROUP - 1) / BF_CUDA_RGROUP; }
/* Layout of a scratch buffer for up to `cap` pieces: the counters first (at
 * a place that does not depend on the launch, so that they stay 0), then the
 * result, the partials of the pieces and of the groups. */
static inline size_t bf_cuda_rcounter_bytes(int64_t cap) {
  return ((size_t)(bf_cuda_rgroups(cap) + 1) * sizeof(unsigned) + 15) / 16 * 16;
}
static inline size_t bf_cuda_rscratch_bytes(int64_t cap) {
  return bf_cuda_rcounter_bytes(cap) + (size_t)(1 + cap + bf_cuda_rgroups(cap)) * sizeof(bf_cuda_rpart);
}
static inline bf_cuda_rscratch bf_cuda_rscratch_at(void *base, int64_t cap, int64_t npieces) {
  bf_cuda_rscratch s;
  s.counters = (unsigned *)base;
  s.result = (bf_cuda_rpart *)((char *)base + bf_cuda_rcounter_bytes(cap));
  s.parts = s.result + 1;
  s.gparts = s.parts + npieces;
  return s;
}

/* Element-wise op g over the pieces (device arrays) on stream s.  Returns a
 * cudaError_t. */
int bf_cuda_launch_elementwise(const bf_kargs *g, const bf_cuda_ctask *tasks, const bf_cuda_piece *pieces,
                               int64_t npieces, cudaStream_t s);

/* Reduction g over the pieces (one launch, see bf_cuda_rscratch) into
 * *scratch->result.  Returns a cudaError_t. */
int bf_cuda_launch_reduce(const bf_kargs *g, const bf_cuda_ctask *tasks, const bf_cuda_piece *pieces,
                          int64_t npieces, const bf_cuda_rscratch *scratch, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
