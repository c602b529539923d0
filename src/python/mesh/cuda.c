/* boxfab._core: the GPU glue of the Array4 family — stream arguments and
 * fields of the exchange protocols (INTEROP.md), host synchronization, and
 * copies out of device memory.  Everything goes through boxfab's C API
 * (include/boxfab/gpu.h); the extension never includes the CUDA headers and
 * never dereferences a device pointer. */
#include <stdlib.h>
#include <string.h>

#include "mesh/array4.h"
#include "boxfab/gpu.h"

_Static_assert((int)BFPY_MEM_HOST == (int)BF_GPU_MEMORY_HOST && (int)BFPY_MEM_PINNED == (int)BF_GPU_MEMORY_PINNED &&
                   (int)BFPY_MEM_MANAGED == (int)BF_GPU_MEMORY_MANAGED &&
                   (int)BFPY_MEM_DEVICE == (int)BF_GPU_MEMORY_DEVICE,
               "BFPY_MEM_* and BF_GPU_MEMORY_* must agree");

bool bfpy_mem_host_accessible(int memory) { return memory != BFPY_MEM_DEVICE; }

int bfpy_mem_sync_host(int memory) {
  if (memory == BFPY_MEM_HOST) return 0;
  return bfpy_check(bf_gpu_synchronize());
}

PyObject *bfpy_cuda_stream_field(void) {
  if (bf_gpu_stream_idle()) Py_RETURN_NONE;
  void *s = bf_gpu_stream();
  if (!s) Py_RETURN_NONE; /* no GPU: nothing can be pending */
  return PyLong_FromVoidPtr(s);
}

int bfpy_cuda_stream_arg(PyObject *stream, void **out, bool *nosync, const char *what) {
  *nosync = false;
  *out = (void *)(uintptr_t)1; /* None: the legacy default stream */
  if (!stream || stream == Py_None) return 0;
  if (PyBool_Check(stream) || !PyLong_Check(stream)) {
    PyErr_Format(PyExc_TypeError, "%s: stream must be None or an int, not %.100s", what, Py_TYPE(stream)->tp_name);
    return -1;
  }
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(stream, &overflow);
  if (v == -1 && PyErr_Occurred()) return -1;
  if (overflow > 0) { /* a pointer above LLONG_MAX */
    void *p = PyLong_AsVoidPtr(stream);
    if (!p && PyErr_Occurred()) return -1;
    *out = p;
    return 0;
  }
  if (v == -1) {
    *nosync = true;
    return 0;
  }
  if (v == 0 || v < -1 || overflow < 0) {
    PyErr_Format(PyExc_ValueError,
                 "%s: invalid CUDA stream %R (None, -1, 1 (legacy default), 2 (per-thread default) or a stream "
                 "pointer; 0 is ambiguous and not allowed)",
                 what, stream);
    return -1;
  }
  *out = (void *)(uintptr_t)v;
  return 0;
}

void bfpy_array4_span(const bf_array4 *a, int64_t *lo, int64_t *hi) {
  int64_t len[4] = {a->ncomp, bf_array4_length(a, 2), bf_array4_length(a, 1), bf_array4_length(a, 0)};
  int64_t st[4] = {a->nstride, a->kstride, a->jstride, a->istride};
  *lo = *hi = 0;
  for (int d = 0; d < 4; ++d) {
    if (len[d] <= 0) { /* empty view: no elements */
      *lo = *hi = 0;
      return;
    }
    int64_t reach = (len[d] - 1) * st[d];
    if (reach < 0) *lo += reach;
    else *hi += reach;
  }
  *hi += 1;
}

int bfpy_array4_copy_out(const bf_array4 *a, int memory, void *dst) {
  if (memory == BFPY_MEM_HOST) return bfpy_check(bf_array4_copy_to_buffer(a, dst));
  const int64_t n = bf_array4_size(a);
  if (n == 0) return 0;
  const size_t is = bf_dtype_size(a->dtype);
  if (bf_array4_is_contiguous(a)) /* one block in C order already */
    return bfpy_check(bf_gpu_memcpy(dst, a->p, (size_t)n * is));
  /* bring the span that holds the elements to the host, then pack it there */
  int64_t lo, hi;
  bfpy_array4_span(a, &lo, &hi);
  size_t bytes = (size_t)(hi - lo) * is;
  char *tmp = malloc(bytes);
  if (!tmp) {
    PyErr_NoMemory();
    return -1;
  }
  int r = -1;
  if (bfpy_check(bf_gpu_memcpy(tmp, (const char *)a->p + lo * (int64_t)is, bytes)) == 0) {
    bf_array4 h = *a;
    h.p = tmp - lo * (int64_t)is;
    r = bfpy_check(bf_array4_copy_to_buffer(&h, dst));
  }
  free(tmp);
  return r;
}

int bfpy_mem_read(void *tmp, const void *elem, size_t itemsize, int memory) {
  if (memory == BFPY_MEM_HOST) {
    memcpy(tmp, elem, itemsize);
    return 0;
  }
  return bfpy_check(bf_gpu_memcpy(tmp, elem, itemsize)); /* ordered after boxfab's pending work */
}

int bfpy_mem_write(void *elem, const void *tmp, size_t itemsize, int memory) {
  if (memory == BFPY_MEM_HOST) {
    memcpy(elem, tmp, itemsize);
    return 0;
  }
  return bfpy_check(bf_gpu_memcpy(elem, tmp, itemsize));
}
