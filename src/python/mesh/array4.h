/* boxfab._core: Array4 family, private declarations shared by
 * mesh/array4.c (type, indexing), mesh/array4_export.c (array interface,
 * buffer protocol, DLPack export, to_host/to_numpy) and mesh/array4_import.c
 * (views of foreign arrays).
 *
 * Types: per space module (dim 1, 2, 3), one hidden base type
 * "boxfab.space{d}d._Array4" registered as bfpy_types[d][BFPY_T_ARRAY4], and
 * 26 subtypes Array4_<T> / Array4_<T>_const (13 element types x const) kept
 * in bfpy_array4_types[d][dtype][const].  Their behaviour does not depend on
 * the dimension, except that `a[iv]` and `contains(iv)` take the IntVect of
 * the module's dimension. */
#ifndef BOXFAB_BFPY_ARRAY4_H
#define BOXFAB_BFPY_ARRAY4_H

#include "bfpy.h"
#include "mesh/dlpack.h"

/* One element type: names and codes of each exchange protocol. */
typedef struct {
  const char *name;   /* "double": the type is Array4_<name> */
  char kind;          /* NumPy kind: 'f' real, 'c' complex, 'i' signed, 'u' unsigned */
  const char *format; /* PEP 3118 format (native byte order and size) */
  uint8_t dl_code;    /* DLDataTypeCode */
  uint8_t dl_bits;    /* 0: no DLPack dtype (long double) */
  char typestr[8];    /* array interface typestr, e.g. "<f8" (filled at init) */
  size_t itemsize;
} bfpy_a4_kind;

extern bfpy_a4_kind bfpy_a4_kinds[BF_DTYPE_COUNT];
extern PyTypeObject *bfpy_array4_types[BF_SPACEDIM_MAX + 1][BF_DTYPE_COUNT][2];

enum {
  BFPY_A4_CONST = 1,       /* a _const type: no writes through it */
  BFPY_A4_SRC_READONLY = 2 /* the memory itself is read-only (only with BFPY_A4_CONST) */
};

typedef struct {
  PyObject_HEAD
  bf_array4 a;
  PyObject *owner;       /* keeps the memory alive (NULL for an empty view) */
  PyObject *source;      /* the Python object the view was taken from (an Array4, a BaseFab), kept
                          * alive as long as the view, as pyAMReX's keep_alive; or NULL */
  int dim;               /* dimension of the module whose type this is */
  int flags;             /* BFPY_A4_* */
  int memory;            /* BFPY_MEM_* */
  Py_ssize_t exports;    /* buffer-protocol exports alive */
  Py_ssize_t bshape[4];  /* shape / strides handed out by the buffer protocol */
  Py_ssize_t bstrides[4];
} bfpy_array4_object;

/* Keep `source` alive as long as the Array4 `a4` (a new reference is taken). */
void bfpy_array4_keep(PyObject *a4, PyObject *source);

/* Which Array4 type `t` (or a subclass) is: 0 and the fields, or -1 when it is
 * none (no exception set). */
int bfpy_array4_type_info(PyTypeObject *t, int *dim, int *dtype, bool *is_const);

/* Fill self's view from a foreign object (DLPack, CAI, array interface,
 * buffer).  0 or -1 with an exception. */
int bfpy_array4_import(bfpy_array4_object *self, PyObject *obj);
/* boxfab._core._dlpack_to_host(obj, what): a 1-D NumPy host copy of a DLPack array (no CuPy needed). */
PyObject *bfpy_dlpack_to_host(PyObject *mod, PyObject *const *args, Py_ssize_t nargs);

/* Exported shape (ncomp, nz, ny, nx) and strides in elements. */
void bfpy_array4_shape(const bf_array4 *a, int64_t shape[4], int64_t strides[4]);

/* Methods and getters of the export side (mesh/array4_export.c). */
PyObject *bfpy_array4_array_interface(PyObject *self, void *closure);
PyObject *bfpy_array4_cuda_array_interface(PyObject *self, void *closure);
PyObject *bfpy_array4_dlpack(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *bfpy_array4_dlpack_device(PyObject *self, PyObject *noargs);
PyObject *bfpy_array4_to_host(PyObject *self, PyObject *noargs);
PyObject *bfpy_array4_array(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *bfpy_array4_to_numpy(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *bfpy_array4_to_cupy(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *bfpy_array4_to_xp(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
int bfpy_array4_getbuffer(PyObject *self, Py_buffer *view, int flags);
void bfpy_array4_releasebuffer(PyObject *self, Py_buffer *view);

/* ---- GPU glue (mesh/cuda.c), all through include/boxfab/gpu.h ----------------
 * BFPY_MEM_* equal BF_GPU_MEMORY_* (checked at compile time there).  Without a
 * GPU every Array4 is BFPY_MEM_HOST and these are cheap no-ops. */

/* The memory can be read and written by the host (host, pinned, managed). */
bool bfpy_mem_host_accessible(int memory);

/* Before the host touches memory of kind `memory` directly: when it is GPU
 * memory (pinned or managed), wait for boxfab's stream.  0 or -1 with an
 * exception. */
int bfpy_mem_sync_host(int memory);

/* The CAI v3 `stream` value: None when boxfab's stream is idle, else the
 * integer of boxfab's stream (new reference). */
PyObject *bfpy_cuda_stream_field(void);

/* A consumer's DLPack `stream` argument for CUDA data: None → the legacy
 * default stream (1); 1, 2 or a stream pointer; -1 → *nosync = true.  0 and
 * other negative values: ValueError; not an int: TypeError. */
int bfpy_cuda_stream_arg(PyObject *stream, void **out, bool *nosync, const char *what);

/* Span of the elements of `a` relative to a.p, in elements: [*lo, *hi). */
void bfpy_array4_span(const bf_array4 *a, int64_t *lo, int64_t *hi);

/* Copy all elements of `a` (memory of kind `memory`) into the host buffer
 * `dst` in C order (n, k, j, i), like bf_array4_copy_to_buffer; GPU memory is
 * copied through bf_gpu_memcpy (never dereferenced on the host).  0 or -1
 * with an exception. */
int bfpy_array4_copy_out(const bf_array4 *a, int memory, void *dst);

/* Read / write one element at `elem` (inside the view of memory `memory`)
 * through the host buffer `tmp` of itemsize bytes: a plain copy for host
 * memory, bf_gpu_memcpy otherwise.  0 or -1 with an exception. */
int bfpy_mem_read(void *tmp, const void *elem, size_t itemsize, int memory);
int bfpy_mem_write(void *elem, const void *tmp, size_t itemsize, int memory);

#endif
