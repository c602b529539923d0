/* The GPU at run time (see include/boxfab/gpu.h): thin wrappers over the
 * device glue of the device backend's table (backend.h), reporting no GPU
 * when the build has no device backend or none is used.  No backend is
 * named here. */
#include <string.h>

#include "runtime/backend.h"
#include "boxfab/gpu.h"

bool bf_gpu_available(void) { return bf_backend_have_gpu(); }

const char *bf_gpu_backend_name(void) {
  const bf_backend *d = bf_backend_device();
  return d ? d->device_api : NULL;
}

int bf_gpu_device_count(void) {
  const bf_backend *d = bf_backend_device();
  return d ? d->device_count() : 0;
}

int bf_gpu_device_id(void) {
  const bf_backend *d = bf_backend_device();
  return d ? d->device_id() : -1;
}

void *bf_gpu_stream(void) {
  const bf_backend *d = bf_backend_device();
  return d ? d->stream() : NULL;
}

int bf_gpu_synchronize(void) {
  const bf_backend *d = bf_backend_device();
  return d ? d->synchronize() : BF_SUCCESS;
}

int64_t bf_gpu_debug_alloc_count(void) {
  const bf_backend *d = bf_backend_device();
  return d ? d->alloc_count() : 0;
}

int bf_gpu_memory_info(size_t *free_bytes, size_t *total_bytes) {
  const bf_backend *d = bf_backend_device();
  if (d) return d->memory_info(free_bytes, total_bytes);
  if (free_bytes) *free_bytes = 0;
  if (total_bytes) *total_bytes = 0;
  return BF_SUCCESS;
}

int bf_gpu_memcpy(void *dst, const void *src, size_t nbytes) {
  if (nbytes == 0) return BF_SUCCESS;
  BF_CHECK(dst != NULL && src != NULL, BF_ERROR_VALUE, "bf_gpu_memcpy: NULL pointer for %zu bytes", nbytes);
  const bf_backend *d = bf_backend_device();
  if (d) return d->copy_sync(dst, src, nbytes);
  memmove(dst, src, nbytes);
  return BF_SUCCESS;
}

bool bf_gpu_stream_idle(void) {
  const bf_backend *d = bf_backend_device();
  return d ? d->stream_idle() : true;
}

int bf_gpu_stream_wait(void *consumer) {
  const bf_backend *d = bf_backend_device();
  return d ? d->stream_wait(consumer) : BF_SUCCESS;
}

int bf_gpu_wait_stream(void *producer) {
  const bf_backend *d = bf_backend_device();
  return d ? d->wait_stream(producer) : BF_SUCCESS;
}

int bf_gpu_pointer_info(const void *ptr, int *kind, int *device) {
  int k = BF_GPU_MEMORY_HOST, dv = -1;
  const bf_backend *d = bf_backend_device();
  if (d && ptr) d->pointer_info(ptr, &k, &dv);
  if (kind) *kind = k;
  if (device) *device = dv;
  return BF_SUCCESS;
}
