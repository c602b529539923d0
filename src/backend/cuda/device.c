/* CUDA backend: devices, boxfab's streams, memory, and the table.
 *
 * The CUDA runtime is linked statically; on a machine without a driver or a
 * device cudaGetDeviceCount fails or reports 0 and the provider's fill says
 * so, leaving everything to the CPU backend.  The core reaches this file only
 * through bf_backend_provider_cuda and the table it fills (backend.h). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "boxfab/arena.h"
#include "boxfab/base.h"
#include "boxfab/gpu.h"
#include "amr.h"
#include "impl.h"

#define MAX_DEVICES 64

static cudaStream_t streams[MAX_DEVICES];
static pthread_mutex_t stream_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_llong alloc_count;
static int ndevices;

int bf_cuda_fail(cudaError_t e, const char *what) {
  (void)cudaGetLastError(); /* clear a sticky-free error */
  return bf_error_set(e == cudaErrorMemoryAllocation ? BF_ERROR_MEMORY : BF_ERROR_RUNTIME, what, "%s: CUDA error %s: %s",
                      what, cudaGetErrorName(e), cudaGetErrorString(e));
}

int bf_cuda_device_count(void) { return ndevices; }

int bf_cuda_device_id(void) {
  int d;
  return cudaGetDevice(&d) == cudaSuccess ? d : -1;
}

/* boxfab's stream on device d (created on first use), NULL when it cannot be made. */
static cudaStream_t stream_of(int d) {
  if (d < 0 || d >= MAX_DEVICES) return NULL;
  pthread_mutex_lock(&stream_lock);
  if (!streams[d] && cudaStreamCreateWithFlags(&streams[d], cudaStreamNonBlocking) != cudaSuccess) {
    (void)cudaGetLastError();
    streams[d] = NULL;
  }
  cudaStream_t s = streams[d];
  pthread_mutex_unlock(&stream_lock);
  return s;
}

/* Pending work, without asking CUDA each time: handed[d] counts the times
 * the stream was handed out (to queue work on it), idle_at[d] is the count
 * when the stream was last seen idle.  Equal counts: nothing can have been
 * queued since, so the stream is idle (the per-box to_cupy path asks this). */
static atomic_ullong handed[MAX_DEVICES], idle_at[MAX_DEVICES];

void *bf_cuda_stream(void) {
  int d = bf_cuda_device_id();
  cudaStream_t s = stream_of(d);
  if (s) atomic_fetch_add(&handed[d], 1);
  return s;
}

int bf_cuda_synchronize(void) {
  int d = bf_cuda_device_id();
  cudaStream_t s = stream_of(d);
  BF_CHECK(s != NULL, BF_ERROR_RUNTIME, "could not create boxfab's CUDA stream");
  unsigned long long n = atomic_load(&handed[d]);
  cudaError_t e = cudaStreamSynchronize(s);
  if (e != cudaSuccess) return bf_cuda_fail(e, "synchronize");
  atomic_store(&idle_at[d], n);
  return BF_SUCCESS;
}

/* Is p device-only memory (so a copy into or out of it needs no wait for the host)? */
static bool device_only(const void *p) {
  struct cudaPointerAttributes at;
  if (cudaPointerGetAttributes(&at, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return at.type == cudaMemoryTypeDevice;
}

/* Copy on boxfab's stream; waits unless both sides are device-only memory
 * (then later kernels on the stream are ordered after it anyway). */
static int copy_on_stream(void *dst, const void *src, size_t n, bool always_wait) {
  cudaStream_t s = bf_cuda_stream();
  BF_CHECK(s != NULL, BF_ERROR_RUNTIME, "could not create boxfab's CUDA stream");
  cudaError_t e = cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, s);
  if (e != cudaSuccess) return bf_cuda_fail(e, "memcpy");
  if (always_wait || !device_only(dst) || !device_only(src)) {
    e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) return bf_cuda_fail(e, "memcpy");
  }
  return BF_SUCCESS;
}

int bf_cuda_memcpy(void *dst, const void *src, size_t nbytes) {
  if (nbytes == 0) return BF_SUCCESS;
  return copy_on_stream(dst, src, nbytes, true);
}

bool bf_cuda_stream_idle(void) {
  int d = bf_cuda_device_id();
  if (d < 0 || d >= MAX_DEVICES) return true;
  unsigned long long n = atomic_load(&handed[d]);
  if (n == 0 || atomic_load(&idle_at[d]) == n) return true; /* never handed out, or nothing since idle */
  cudaStream_t s = stream_of(d);
  if (!s) return true;
  cudaError_t e = cudaStreamQuery(s);
  if (e == cudaSuccess) {
    atomic_store(&idle_at[d], n);
    return true;
  }
  if (e != cudaErrorNotReady) (void)cudaGetLastError();
  return false;
}

/* `waiter` waits for the work queued on `signaller` so far, through an event. */
static int stream_wait_for(cudaStream_t waiter, cudaStream_t signaller, const char *what) {
  cudaEvent_t ev;
  cudaError_t e = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
  if (e != cudaSuccess) return bf_cuda_fail(e, what);
  e = cudaEventRecord(ev, signaller);
  if (e == cudaSuccess) e = cudaStreamWaitEvent(waiter, ev, 0);
  /* destroying a recorded event is fine: its resources go once it completes */
  cudaError_t e2 = cudaEventDestroy(ev);
  if (e == cudaSuccess) e = e2;
  if (e != cudaSuccess) return bf_cuda_fail(e, what);
  return BF_SUCCESS;
}

int bf_cuda_stream_wait(void *consumer) {
  cudaStream_t s = bf_cuda_stream();
  BF_CHECK(s != NULL, BF_ERROR_RUNTIME, "could not create boxfab's CUDA stream");
  if ((cudaStream_t)consumer == s) return BF_SUCCESS;
  return stream_wait_for((cudaStream_t)consumer, s, "stream_wait");
}

int bf_cuda_wait_stream(void *producer) {
  cudaStream_t s = bf_cuda_stream();
  BF_CHECK(s != NULL, BF_ERROR_RUNTIME, "could not create boxfab's CUDA stream");
  if ((cudaStream_t)producer == s) return BF_SUCCESS;
  return stream_wait_for(s, (cudaStream_t)producer, "wait_stream");
}

void bf_cuda_pointer_info(const void *ptr, int *kind, int *device) {
  struct cudaPointerAttributes at;
  *kind = BF_GPU_MEMORY_HOST;
  *device = -1;
  if (cudaPointerGetAttributes(&at, ptr) != cudaSuccess) {
    (void)cudaGetLastError();
    return;
  }
  switch (at.type) {
  case cudaMemoryTypeDevice: *kind = BF_GPU_MEMORY_DEVICE; break;
  case cudaMemoryTypeManaged: *kind = BF_GPU_MEMORY_MANAGED; break;
  case cudaMemoryTypeHost: *kind = BF_GPU_MEMORY_PINNED; break;
  default: return; /* unregistered host memory */
  }
  *device = at.device;
}

int bf_cuda_memory_info(size_t *free_bytes, size_t *total_bytes) {
  size_t f = 0, t = 0;
  cudaError_t e = cudaMemGetInfo(&f, &t);
  if (e != cudaSuccess) return bf_cuda_fail(e, "memory_info");
  if (free_bytes) *free_bytes = f;
  if (total_bytes) *total_bytes = t;
  return BF_SUCCESS;
}

int64_t bf_cuda_alloc_count(void) { return (int64_t)atomic_load(&alloc_count); }

/* The table's has_free (the core asks only when this backend is in use). */
static bool cu_has_free(size_t nbytes) {
  size_t f = 0;
  if (cudaMemGetInfo(&f, NULL) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return nbytes <= f;
}

/* ---- the table's memory functions ------------------------------------------------ */

static int cu_alloc(int kind, size_t nbytes, void **ptr) {
  cudaError_t e;
  *ptr = NULL;
  switch (kind) {
  case BF_ARENA_CPU: {
    size_t n = (nbytes + BF_ARENA_ALIGNMENT - 1) / BF_ARENA_ALIGNMENT * BF_ARENA_ALIGNMENT;
    *ptr = aligned_alloc(BF_ARENA_ALIGNMENT, n ? n : BF_ARENA_ALIGNMENT);
    return *ptr ? 0 : 1;
  }
  case BF_ARENA_PINNED: e = cudaMallocHost(ptr, nbytes); break;
  case BF_ARENA_MANAGED: {
    /* never ask for more managed memory than the card has free: that can hang the GPU */
    size_t f = 0, t = 0;
    if (cudaMemGetInfo(&f, &t) != cudaSuccess) {
      (void)cudaGetLastError();
      return 1;
    }
    if (nbytes > f) return 1;
    e = cudaMallocManaged(ptr, nbytes, cudaMemAttachGlobal);
    break;
  }
  case BF_ARENA_ASYNC: {
    cudaStream_t s = bf_cuda_stream();
    if (!s) return 1;
    e = cudaMallocAsync(ptr, nbytes, s);
    break;
  }
  default: /* The_Arena, The_Device_Arena */
    e = cudaMalloc(ptr, nbytes);
    if (e == cudaErrorMemoryAllocation) {
      /* the stream-ordered pool keeps freed blocks (the particle kernels raise its release
       * threshold): hand them back to the driver and try once more */
      (void)cudaGetLastError();
      int dev = 0;
      cudaMemPool_t pool;
      if (cudaGetDevice(&dev) == cudaSuccess && cudaDeviceGetMemPool(&pool, dev) == cudaSuccess &&
          cudaDeviceSynchronize() == cudaSuccess && cudaMemPoolTrimTo(pool, 0) == cudaSuccess)
        e = cudaMalloc(ptr, nbytes);
    }
    break;
  }
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    *ptr = NULL;
    return 1;
  }
  atomic_fetch_add(&alloc_count, 1);
  return 0;
}

static void cu_free(int kind, void *ptr, size_t nbytes) {
  (void)nbytes;
  if (!ptr) return;
  cudaError_t e = cudaSuccess;
  switch (kind) {
  case BF_ARENA_CPU: free(ptr); return;
  case BF_ARENA_PINNED: e = cudaFreeHost(ptr); break;
  case BF_ARENA_ASYNC: {
    cudaStream_t s = bf_cuda_stream();
    e = s ? cudaFreeAsync(ptr, s) : cudaFree(ptr);
    break;
  }
  default: e = cudaFree(ptr); break;
  }
  if (e != cudaSuccess) (void)cudaGetLastError(); /* at exit the driver may be gone: nothing to do */
}

static int cu_copy(void *dst, const void *src, size_t nbytes) {
  if (nbytes == 0) return 0;
  return copy_on_stream(dst, src, nbytes, false) == BF_SUCCESS ? 0 : 1;
}

/* What the memory of each kind really is. */
static unsigned cu_flags(int kind) {
  switch (kind) {
  case BF_ARENA_CPU: return BF_MEMFLAG_HOST;
  case BF_ARENA_PINNED: return BF_MEMFLAG_HOST | BF_MEMFLAG_DEVICE_ACCESSIBLE | BF_MEMFLAG_PINNED;
  case BF_ARENA_MANAGED: return BF_MEMFLAG_HOST | BF_MEMFLAG_DEVICE_ACCESSIBLE | BF_MEMFLAG_MANAGED;
  case BF_ARENA_ASYNC: return BF_MEMFLAG_DEVICE | BF_MEMFLAG_DEVICE_ACCESSIBLE | BF_MEMFLAG_STREAM_ORDERED;
  default: return BF_MEMFLAG_DEVICE | BF_MEMFLAG_DEVICE_ACCESSIBLE;
  }
}

/* The device this process uses: BOXFAB_GPU_DEVICE when set (an ordinal among
 * the visible devices), else the node-local rank of an MPI launch modulo the
 * number of devices (one rank per GPU: Open MPI's OMPI_COMM_WORLD_LOCAL_RANK,
 * MPICH's MPI_LOCALRANKID, Slurm's SLURM_LOCALID, PMIx's PMIX_LOCAL_RANK), else
 * device 0.  Read from the environment because the device is chosen when the
 * backend first starts, which may be before MPI is initialized. */
static int chosen_device(int n) {
  const char *v = getenv("BOXFAB_GPU_DEVICE");
  if (v && *v) {
    char *end;
    long d = strtol(v, &end, 10);
    return (*end == 0 && d >= 0 && d < n) ? (int)d : -1;
  }
  static const char *vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID", "PMIX_LOCAL_RANK"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; ++i) {
    v = getenv(vars[i]);
    if (!v || !*v) continue;
    char *end;
    long r = strtol(v, &end, 10);
    if (*end == 0 && r >= 0) return (int)(r % n);
  }
  return 0;
}

/* Registration (src/core/runtime/backend.h): fills the table when a device is found
 * and initialized, returns 1 otherwise (no driver, no device: the CPU
 * backend does everything). */
static int cuda_fill(bf_backend *b) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1) {
    (void)cudaGetLastError(); /* no driver, no device: the CPU backend does everything */
    return 1;
  }
  int dev = chosen_device(n);
  if (dev < 0 || cudaSetDevice(dev) != cudaSuccess) { /* BOXFAB_GPU_DEVICE names no visible device */
    (void)cudaGetLastError();
    return 1;
  }
  if (cudaFree(NULL) != cudaSuccess) { /* make the context now: a device that cannot be used is no device */
    (void)cudaGetLastError();
    return 1;
  }
  ndevices = n;
  b->name = "cuda";
  b->mem_alloc = cu_alloc;
  b->mem_free = cu_free;
  b->mem_copy = cu_copy;
  b->mem_flags = cu_flags;
  b->elementwise = bf_cuda_elementwise;
  b->reduce = bf_cuda_reduce;
  b->prepare = bf_cuda_prepare;
  b->run_elementwise = bf_cuda_run_elementwise;
  b->run_reduce = bf_cuda_run_reduce;
  b->release = bf_cuda_release;
  b->exchange = NULL; /* the core runs ghost-exchange plans as element-wise tasks */
  b->xline_prepare = bf_cuda_xline_prepare; /* and fill_boundary's x faces as x-lines */
  b->xline_run = bf_cuda_xline_run;
  b->xline_release = bf_cuda_xline_release;
  b->device_api = "CUDA";
  b->device_count = bf_cuda_device_count;
  b->device_id = bf_cuda_device_id;
  b->stream = bf_cuda_stream;
  b->synchronize = bf_cuda_synchronize;
  b->copy_sync = bf_cuda_memcpy;
  b->memory_info = bf_cuda_memory_info;
  b->alloc_count = bf_cuda_alloc_count;
  b->stream_idle = bf_cuda_stream_idle;
  b->stream_wait = bf_cuda_stream_wait;
  b->wait_stream = bf_cuda_wait_stream;
  b->pointer_info = bf_cuda_pointer_info;
  b->has_free = cu_has_free;
  b->pmesh_deposit = bf_cuda_pmesh_deposit;
  b->pmesh_interpolate = bf_cuda_pmesh_interpolate;
  b->particles.p_locate = bf_cuda_p_locate;
  b->particles.p_wrap = bf_cuda_p_wrap;
  b->particles.p_copy = bf_cuda_p_copy;
  b->particles.p_random = bf_cuda_p_random;
  b->particles.p_random_locate = bf_cuda_p_random_locate;
  b->particles.p_random_place = bf_cuda_p_random_place;
  b->particles.p_redist_sort = bf_cuda_p_redist_sort;
  b->particles.p_redist_move = bf_cuda_p_redist_move;
  b->particles.p_random_sort = bf_cuda_p_random_sort;
  b->particles.p_random_fill = bf_cuda_p_random_fill;
  b->particles.p_plan_free = bf_cuda_p_plan_free;
  bf_cuda_amr_mfutil_fill(&b->amr);
  bf_cuda_amr_interp_fill(&b->amr);
  bf_cuda_amr_fluxreg_fill(&b->amr);
  bf_cuda_amr_tagbox_fill(&b->amr);
  return 0;
}

const bf_backend_provider bf_backend_provider_cuda = {"cuda", true, cuda_fill};
