/* The GPU at run time (see include/boxfab/gpu.h): thin wrappers over the CUDA
 * glue, reporting no GPU when the library has no CUDA or none is used. */
#include <string.h>

#include "backend.h"
#include "boxfab/gpu.h"
#include "boxfab_config.h"

bool bf_gpu_available(void) { return bf_backend_have_gpu(); }

const char *bf_gpu_backend_name(void) { return bf_backend_have_gpu() ? "CUDA" : NULL; }

#if BOXFAB_HAVE_CUDA

int bf_gpu_device_count(void) { return bf_backend_have_gpu() ? bf_cuda_device_count() : 0; }
int bf_gpu_device_id(void) { return bf_backend_have_gpu() ? bf_cuda_device_id() : -1; }
void *bf_gpu_stream(void) { return bf_backend_have_gpu() ? bf_cuda_stream() : NULL; }
int bf_gpu_synchronize(void) { return bf_backend_have_gpu() ? bf_cuda_synchronize() : BF_SUCCESS; }
int64_t bf_gpu_debug_alloc_count(void) { return bf_backend_have_gpu() ? bf_cuda_alloc_count() : 0; }

int bf_gpu_memory_info(size_t *free_bytes, size_t *total_bytes) {
  if (bf_backend_have_gpu()) return bf_cuda_memory_info(free_bytes, total_bytes);
  if (free_bytes) *free_bytes = 0;
  if (total_bytes) *total_bytes = 0;
  return BF_SUCCESS;
}

int bf_gpu_memcpy(void *dst, const void *src, size_t nbytes) {
  if (nbytes == 0) return BF_SUCCESS;
  BF_CHECK(dst != NULL && src != NULL, BF_ERROR_VALUE, "bf_gpu_memcpy: NULL pointer for %zu bytes", nbytes);
  if (bf_backend_have_gpu()) return bf_cuda_memcpy(dst, src, nbytes);
  memmove(dst, src, nbytes);
  return BF_SUCCESS;
}

bool bf_gpu_stream_idle(void) { return bf_backend_have_gpu() ? bf_cuda_stream_idle() : true; }
int bf_gpu_stream_wait(void *consumer) { return bf_backend_have_gpu() ? bf_cuda_stream_wait(consumer) : BF_SUCCESS; }
int bf_gpu_wait_stream(void *producer) { return bf_backend_have_gpu() ? bf_cuda_wait_stream(producer) : BF_SUCCESS; }

int bf_gpu_pointer_info(const void *ptr, int *kind, int *device) {
  int k = BF_GPU_MEMORY_HOST, d = -1;
  if (bf_backend_have_gpu() && ptr) bf_cuda_pointer_info(ptr, &k, &d);
  if (kind) *kind = k;
  if (device) *device = d;
  return BF_SUCCESS;
}

#else

int bf_gpu_device_count(void) { return 0; }
int bf_gpu_device_id(void) { return -1; }
void *bf_gpu_stream(void) { return NULL; }
int bf_gpu_synchronize(void) { return BF_SUCCESS; }
int64_t bf_gpu_debug_alloc_count(void) { return 0; }

int bf_gpu_memory_info(size_t *free_bytes, size_t *total_bytes) {
  if (free_bytes) *free_bytes = 0;
  if (total_bytes) *total_bytes = 0;
  return BF_SUCCESS;
}

int bf_gpu_memcpy(void *dst, const void *src, size_t nbytes) {
  if (nbytes == 0) return BF_SUCCESS;
  BF_CHECK(dst != NULL && src != NULL, BF_ERROR_VALUE, "bf_gpu_memcpy: NULL pointer for %zu bytes", nbytes);
  memmove(dst, src, nbytes);
  return BF_SUCCESS;
}

bool bf_gpu_stream_idle(void) { return true; }
int bf_gpu_stream_wait(void *consumer) {
  (void)consumer;
  return BF_SUCCESS;
}
int bf_gpu_wait_stream(void *producer) {
  (void)producer;
  return BF_SUCCESS;
}

int bf_gpu_pointer_info(const void *ptr, int *kind, int *device) {
  (void)ptr;
  if (kind) *kind = BF_GPU_MEMORY_HOST;
  if (device) *device = -1;
  return BF_SUCCESS;
}

#endif
