/* boxfab._core: Array4 family, private declarations shared by
 * bfpy_array4.c (type, indexing), bfpy_array4_export.c (array interface,
 * buffer protocol, DLPack export, to_host/to_numpy) and bfpy_array4_import.c
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
#include "bfpy_dlpack.h"

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
  int dim;               /* dimension of the module whose type this is */
  int flags;             /* BFPY_A4_* */
  int memory;            /* BFPY_MEM_* */
  Py_ssize_t exports;    /* buffer-protocol exports alive */
  Py_ssize_t bshape[4];  /* shape / strides handed out by the buffer protocol */
  Py_ssize_t bstrides[4];
} bfpy_array4_object;

/* Which Array4 type `t` (or a subclass) is: 0 and the fields, or -1 when it is
 * none (no exception set). */
int bfpy_array4_type_info(PyTypeObject *t, int *dim, int *dtype, bool *is_const);

/* Fill self's view from a foreign object (DLPack, CAI, array interface,
 * buffer).  0 or -1 with an exception. */
int bfpy_array4_import(bfpy_array4_object *self, PyObject *obj);

/* Exported shape (ncomp, nz, ny, nx) and strides in elements. */
void bfpy_array4_shape(const bf_array4 *a, int64_t shape[4], int64_t strides[4]);

/* Methods and getters of the export side (bfpy_array4_export.c). */
PyObject *bfpy_array4_array_interface(PyObject *self, void *closure);
PyObject *bfpy_array4_cuda_array_interface(PyObject *self, void *closure);
PyObject *bfpy_array4_dlpack(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *bfpy_array4_dlpack_device(PyObject *self, PyObject *noargs);
PyObject *bfpy_array4_to_host(PyObject *self, PyObject *noargs);
PyObject *bfpy_array4_to_numpy(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *bfpy_array4_to_cupy(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *bfpy_array4_to_xp(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
int bfpy_array4_getbuffer(PyObject *self, Py_buffer *view, int flags);
void bfpy_array4_releasebuffer(PyObject *self, Py_buffer *view);

#endif
