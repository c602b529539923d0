/* CUDA backend, private: what the host glue (C, cuda_*.c) and the kernels
 * (CUDA C, cuda/kernels.cu) share.
 *
 * Work layout.  The host turns a task list into a launch list, uploaded once
 * and cached (cuda/ops.c): per task a bf_cuda_ctask (base pointers of the
 * views at the task's lo, strides, extents), and a block table that cuts every
 * task into pieces of at most BF_CUDA_TILE elements (BF_CUDA_XTILE for
 * exchanges) along its own structure: a piece is x in [x0, x0+nxb) of rows j
 * in [j0, j0+nj) of planes p in [p0, p0+np) (plane p = k + nz*n: z index k,
 * component n), so that inside a piece element e is (e % nxb, e / nxb % nj,
 * e / nxb / nj) (decoded once per piece and thread, then walked by digit
 * additions: cuda/kernels.cu), and consecutive threads touch consecutive x
 * (coalesced).  Element-wise: block b of a launch does piece b; reductions:
 * a grid that fills the device walks the pieces.  The views' base pointers
 * a, b, c of a task have the bases of bf_kargs added (lists with relative
 * views; 0 otherwise). */
#ifndef BOXFAB_CUDA_IMPL_H
#define BOXFAB_CUDA_IMPL_H

#include <cuda_runtime_api.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BF_CUDA_THREADS 256
#define BF_CUDA_ITEMS 4   /* elements per thread per batch, all loaded before any is used */
#define BF_CUDA_BATCH (BF_CUDA_THREADS * BF_CUDA_ITEMS)
#define BF_CUDA_BATCHES 8 /* batches per piece: the piece's setup (two dependent loads) is paid once */
#define BF_CUDA_TILE (BF_CUDA_BATCH * BF_CUDA_BATCHES)
/* Pieces of exchanges (ghost regions: thin, scattered, little data per
 * task): one batch, so that many more blocks keep requests in flight. */
#ifndef BF_CUDA_XTILE
#define BF_CUDA_XTILE BF_CUDA_BATCH
#endif

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

/* Partial result of a reduction (one per piece, and the final result): 16
 * bytes.
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

/* Reductions: a grid that fills the device once (blocks walk the pieces
 * b, b + grid, ...); a piece's partial is combined by one block in a fixed
 * order and tree, whichever block it is; the last block to finish (an atomic
 * ticket) combines the pieces' partials in a fixed order: the result depends
 * only on the data and the task list, never on the device, the grid, the run
 * or the order in which blocks finish.  Scratch (device memory): the ticket
 * counter (0 between launches: the last block resets it) and one partial per
 * piece; `result` is where the last block writes the result (cuda/ops.c
 * points it at mapped pinned host memory, so no copy follows). */
typedef struct bf_cuda_rscratch {
  bf_cuda_rpart *result, *parts;
  unsigned *counter;
} bf_cuda_rscratch;

static inline size_t bf_cuda_rscratch_bytes(int64_t cap) {
  return sizeof(bf_cuda_rpart) /* the counter, padded */ + (size_t)cap * sizeof(bf_cuda_rpart);
}
static inline bf_cuda_rscratch bf_cuda_rscratch_at(void *base, bf_cuda_rpart *result) {
  bf_cuda_rscratch s;
  s.counter = (unsigned *)base;
  s.parts = (bf_cuda_rpart *)base + 1;
  s.result = result;
  return s;
}

/* ---- host glue (cuda/device.c) and the table's kernels (cuda/ops.c) -------
 * Reached by the core only through the table that bf_backend_provider_cuda
 * fills (backend.h); declared here for the backend's own files.  Each
 * returning int sets the error message on failure and returns its code. */
/* The error of a failed CUDA call e while doing `what`, set (BF_ERROR_MEMORY
 * for an allocation, else BF_ERROR_RUNTIME) after clearing CUDA's last
 * error; returns 1, for `return bf_cuda_fail(e, what);`. */
int bf_cuda_fail(cudaError_t e, const char *what);
int bf_cuda_device_count(void);             /* raw count, 0 on any error */
int bf_cuda_device_id(void);                /* current device or -1 */
void *bf_cuda_stream(void);                 /* boxfab's stream on the current device (lazy), NULL on error */
int bf_cuda_synchronize(void);              /* wait for boxfab's stream */
int bf_cuda_memcpy(void *dst, const void *src, size_t nbytes); /* any direction, waits */
int bf_cuda_memory_info(size_t *free_bytes, size_t *total_bytes);
int64_t bf_cuda_alloc_count(void);          /* arena blocks obtained from CUDA */
bool bf_cuda_stream_idle(void);             /* nothing pending on boxfab's stream */
int bf_cuda_stream_wait(void *consumer);    /* consumer waits for boxfab's stream */
int bf_cuda_wait_stream(void *producer);    /* boxfab's stream waits for producer */
void bf_cuda_pointer_info(const void *ptr, int *kind, int *device); /* BF_GPU_MEMORY_*, device or -1 */

int bf_cuda_elementwise(const bf_kargs *args, int64_t ntasks, const bf_ktask *tasks, int64_t ngroups,
                        const int64_t *group_start);
int bf_cuda_reduce(const bf_kargs *args, int64_t ntasks, const bf_ktask *tasks, bf_kresult *out);
int bf_cuda_prepare(const bf_kargs *args, const bf_klist *list, void **handle);
int bf_cuda_run_elementwise(void *handle, const bf_kargs *args);
int bf_cuda_run_reduce(void *handle, const bf_kargs *args, bf_kresult *out);
void bf_cuda_release(void *handle);
/* fill_boundary's x faces as whole x-lines (cuda/xline.cu) */
int bf_cuda_xline_prepare(const bf_xline_desc *d, void **handle);
int bf_cuda_xline_run(void *handle, double *base, int comp0, int ncomp);
void bf_cuda_xline_release(void *handle);
/* particle-mesh coupling (cuda/pmesh.cu) */
int bf_cuda_pmesh_deposit(const bf_pmesh_args *a, int64_t *nskipped);
int bf_cuda_pmesh_interpolate(const bf_pmesh_args *a, int64_t *nskipped);
/* the particle kernels (cuda/particles.cu; contract: bf_backend_particles) */
int bf_cuda_p_locate(const bf_plocate *loc, int64_t nparts, const bf_ppart *parts);
int bf_cuda_p_wrap(const bf_plocate *loc, int64_t nparts, const bf_ppart *parts);
int bf_cuda_p_copy(int64_t nops, const bf_pcopy *ops);
int bf_cuda_p_random(const bf_prandom *r, int64_t n, double *const *pos);
int bf_cuda_p_random_locate(const bf_prandom *r, const bf_plocate *loc, int64_t n, int32_t *dest);
int bf_cuda_p_random_place(const bf_prandom *r, uint64_t idcpu0, int64_t nparts, const bf_pplace *parts);
/* the device-resident redistribute and init_random (cuda/psort.cu) */
int bf_cuda_p_redist_sort(const bf_plocate *loc, int64_t nparts, const bf_ppart *parts, const int32_t *part_slot,
                          int64_t slot0, int64_t nslots, const bf_pvecs *vecs, int64_t *counts, void **plan);
int bf_cuda_p_redist_move(void *plan, const bf_plocate *loc, const bf_pvecs *vecs, void *const *src, void *const *dst);
int bf_cuda_p_random_sort(const bf_prandom *r, const bf_plocate *loc, int64_t n, int64_t nslots, const bf_pvecs *vecs,
                          int64_t *counts, int64_t *first_bad, void **plan);
int bf_cuda_p_random_fill(void *plan, const bf_prandom *r, uint64_t idcpu0, const bf_pvecs *vecs, void *const *dst,
                          const int64_t *base);
void bf_cuda_p_plan_free(void *plan);

/* Element-wise op g over the pieces (device arrays) on stream s.  Returns a
 * cudaError_t. */
int bf_cuda_launch_elementwise(const bf_kargs *g, const bf_cuda_ctask *tasks, const bf_cuda_piece *pieces,
                               int64_t npieces, cudaStream_t s);

/* Reduction g over the pieces (one launch, see bf_cuda_rscratch; scratch
 * with room for npieces partials) into *scratch->result.  Returns a
 * cudaError_t. */
int bf_cuda_launch_reduce(const bf_kargs *g, const bf_cuda_ctask *tasks, const bf_cuda_piece *pieces,
                          int64_t npieces, const bf_cuda_rscratch *scratch, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
