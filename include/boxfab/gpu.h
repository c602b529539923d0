/* boxfab — the GPU at run time.
 *
 * One build of boxfab serves CPU-only and GPU machines.  When the library was
 * built with CUDA (bf_build_has_cuda()), a CUDA device is present and usable
 * (cudaGetDeviceCount reports at least one) and the environment variable
 * BOXFAB_DEVICE is not "cpu", boxfab uses the GPU:
 *   - The_Arena (BF_ARENA_DEFAULT), The_Device_Arena and The_Async_Arena hand
 *     out device memory, The_Managed_Arena managed memory, The_Pinned_Arena
 *     page-locked host memory; The_Cpu_Arena stays plain host memory;
 *   - MultiFab operations on data in device or managed memory run as CUDA
 *     kernels on boxfab's own non-blocking stream (one stream per device),
 *     asynchronously: call bf_gpu_synchronize() (or a function documented as
 *     synchronizing, such as a reduction) before the host reads results.
 * Otherwise every arena is host memory and everything runs on the CPU.  The
 * choice is made once, on first use, and holds for the life of the process.
 *
 * These functions exist in every build (without CUDA they report no GPU). */
#ifndef BOXFAB_GPU_H
#define BOXFAB_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boxfab/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/** True when boxfab uses a GPU (see above).  Never fails. */
BF_EXPORT bool bf_gpu_available(void);

/** "CUDA" when boxfab uses a CUDA GPU, else NULL.  Static string. */
BF_EXPORT const char *bf_gpu_backend_name(void);

/** Number of CUDA devices seen (0 without a GPU, without a driver, in a build
 *  without CUDA, or when BOXFAB_DEVICE=cpu). */
BF_EXPORT int bf_gpu_device_count(void);

/** Index of the device boxfab works on (the current CUDA device), or -1
 *  without a GPU. */
BF_EXPORT int bf_gpu_device_id(void);

/** boxfab's stream on the current device (a cudaStream_t, created with
 *  cudaStreamNonBlocking on first use), or NULL without a GPU.  Every boxfab
 *  kernel and copy runs on it.  Owned by boxfab: do not destroy it. */
BF_EXPORT void *bf_gpu_stream(void);

/** Wait until all work queued on boxfab's stream has finished.  Without a GPU
 *  a no-op.  BF_ERROR_RUNTIME when a kernel failed (the CUDA error's text). */
BF_EXPORT int bf_gpu_synchronize(void);

/** Copy `nbytes` from `src` to `dst`, any of them host, pinned, managed or
 *  device memory (cudaMemcpyDefault on boxfab's stream), and wait for it:
 *  the data are in place when it returns.  Without a GPU a plain memmove.
 *  nbytes == 0 is a no-op.  BF_ERROR_VALUE for NULL pointers with nbytes > 0,
 *  BF_ERROR_RUNTIME when CUDA reports an error. */
BF_EXPORT int bf_gpu_memcpy(void *dst, const void *src, size_t nbytes);

/** Free and total memory of the current device in bytes (both 0 without a
 *  GPU).  Either pointer may be NULL.  BF_ERROR_RUNTIME when CUDA fails. */
BF_EXPORT int bf_gpu_memory_info(size_t *free_bytes, size_t *total_bytes);

/** Diagnostics: how many blocks boxfab's arenas obtained from CUDA
 *  (cudaMalloc, cudaMallocManaged, cudaMallocHost, cudaMallocAsync) since the
 *  start; 0 without a GPU.  Lets tests check that the arena pool reuses
 *  device blocks instead of calling cudaMalloc again. */
BF_EXPORT int64_t bf_gpu_debug_alloc_count(void);

/* ---- streams and pointers, for exchanging data with other CUDA libraries ----
 * Stream handles are cudaStream_t values passed as void *.  As in CUDA (and
 * in the CUDA Array Interface and DLPack), (void *)1 is the legacy default
 * stream (cudaStreamLegacy), (void *)2 the per-thread default stream
 * (cudaStreamPerThread) and NULL the default stream of the calling thread. */

/** True when no work is pending on boxfab's stream (cudaStreamQuery reports
 *  it complete).  Without a GPU always true.  When CUDA reports an error the
 *  answer is false (work may be pending), so callers stay on the safe side.
 *  Cheap when nothing was queued since the stream was last seen idle: boxfab
 *  counts the times its stream is handed out (to its own kernels and copies,
 *  and by bf_gpu_stream) and asks CUDA only when the count moved.  Work you
 *  queue yourself on a stream handle obtained earlier is covered once
 *  bf_gpu_stream() is called again (or bf_gpu_synchronize). */
BF_EXPORT bool bf_gpu_stream_idle(void);

/** Make `consumer` wait (on the device, the host does not block) for all work
 *  queued on boxfab's stream so far: an event is recorded on boxfab's stream
 *  and cudaStreamWaitEvent'ed on `consumer`.  Work queued on `consumer` after
 *  this call starts only once boxfab's pending work is done.  Without a GPU a
 *  no-op.  BF_ERROR_RUNTIME when CUDA reports an error (an invalid stream). */
BF_EXPORT int bf_gpu_stream_wait(void *consumer);

/** The converse: make boxfab's stream wait for all work queued on `producer`
 *  so far (event on `producer`, cudaStreamWaitEvent on boxfab's stream), so
 *  that boxfab's later kernels and copies see the producer's results.  Without
 *  a GPU a no-op.  BF_ERROR_RUNTIME when CUDA reports an error. */
BF_EXPORT int bf_gpu_wait_stream(void *producer);

/** Kinds of memory a pointer may point into (bf_gpu_pointer_info). */
enum {
  BF_GPU_MEMORY_HOST = 0,    /* plain host memory (or memory CUDA does not know) */
  BF_GPU_MEMORY_PINNED = 1,  /* page-locked host memory registered with CUDA */
  BF_GPU_MEMORY_MANAGED = 2, /* CUDA managed (unified) memory */
  BF_GPU_MEMORY_DEVICE = 3   /* device memory */
};

/** What `ptr` points into: *kind = BF_GPU_MEMORY_* (cudaPointerGetAttributes)
 *  and *device = the device it belongs to (-1 for plain host memory).  Either
 *  output may be NULL.  Without a GPU (or for memory CUDA does not know)
 *  BF_GPU_MEMORY_HOST and -1.  Never fails: returns BF_SUCCESS. */
BF_EXPORT int bf_gpu_pointer_info(const void *ptr, int *kind, int *device);

#ifdef __cplusplus
}
#endif
#endif
