/* boxfab._core: the export side shared by the array views (private).
 *
 * A view describes its memory as a bfpy_xview (pointer, element type, memory
 * kind, shape and strides in elements, at most BFPY_X_MAXDIM axes); the
 * functions below hand it out through the protocols of INTEROP.md the same
 * way for every exporter: Array4 (4 axes, mesh/array4_export.c) and the
 * stacked view of a whole MultiFab (5 axes, mesh/multifab_stack.c).  The
 * exporting object keeps the memory alive; DLPack capsules hold a reference to
 * it (manager_ctx), the other protocols rely on the consumer holding the
 * exporter. */
#ifndef BOXFAB_BFPY_EXPORT_H
#define BOXFAB_BFPY_EXPORT_H

#include "mesh/array4.h"

#define BFPY_X_MAXDIM 5

typedef struct {
  void *p;       /* the element at index (0, ..., 0) */
  int dtype;     /* BF_DTYPE_* (bfpy_a4_kinds) */
  int memory;    /* BFPY_MEM_* */
  bool readonly; /* a _const view: DLPack says READ_ONLY (a legacy capsule cannot: refused) */
  int ndim;
  int64_t shape[BFPY_X_MAXDIM], strides[BFPY_X_MAXDIM]; /* strides in elements */
  /* Copy every element in C order into the host buffer dst (memory of any
   * kind, as bfpy_x_copy_out); NULL: bfpy_x_copy_out's own loop.  0 or -1
   * with an exception. */
  int (*copy_out)(const void *arg, void *dst);
  const void *copy_arg;
} bfpy_xview;

/* Number of elements. */
int64_t bfpy_x_size(const bfpy_xview *v);

/* Span of the elements relative to v->p, in elements: [*lo, *hi) (0, 0 when empty). */
void bfpy_x_span(const bfpy_xview *v, int64_t *lo, int64_t *hi);

/* Copy every element of v into the host buffer dst (bfpy_x_size * itemsize
 * bytes) in C order: host memory directly, GPU memory through bf_gpu_memcpy
 * (after boxfab's pending work; never dereferenced on the host).  0 or -1. */
int bfpy_x_copy_out(const bfpy_xview *v, void *dst);

/* The DLPack device of memory of kind `memory` (INTEROP.md). */
void bfpy_x_dlpack_device(int memory, int *type, int *id);

/* The array interface dict v3 of v (shape, typestr, data = (ptr, False),
 * strides in bytes, version): __array_interface__, and with "stream" added
 * __cuda_array_interface__.  No memory-kind checks here. */
PyObject *bfpy_x_interface_dict(const bfpy_xview *v);

/* __dlpack__(*, stream, max_version, dl_device, copy) of `exporter` showing
 * v: argument checks, synchronization, copies and the capsule, as
 * INTEROP.md says.  A capsule without a copy holds a reference to exporter. */
PyObject *bfpy_x_dlpack(PyObject *exporter, const bfpy_xview *v, PyObject *const *args, Py_ssize_t nargs,
                        PyObject *kwnames);

/* The (copy=False, order="F") arguments of to_numpy / to_cupy / to_xp:
 * *copy 0 or 1, *c_order true for "C"; 0, or -1 with an exception
 * (ValueError for another order). */
int bfpy_x_copy_order(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, int *copy, bool *c_order);

/* An empty CuPy array of v's shape and type (C order), for a zero-size
 * view of device memory: the array interface gives such a view the
 * address 0 (INTEROP.md), which CuPy's import refuses ("UnownedMemory
 * requires explicit device ID for a null pointer"); with no element there
 * is nothing to share.  `cp`: the cupy module. */
PyObject *bfpy_x_cupy_empty(PyObject *cp, const bfpy_xview *v);

/* to_cupy of the exporter `self` (its view v; `what` names its type in
 * messages), after the caller's own faster path, if any, gave `view` (a new
 * reference, or NULL: none, or failed with an exception set).  Host memory:
 * a ValueError unless copy, else CuPy's copy of to_host(self).  Device
 * memory: `view`, else CuPy's import of self's __cuda_array_interface__
 * (CuPy waits for the stream it names and holds self; an empty array when v
 * has no element), copied when `copy`.  Steals `view`; NULL with an
 * exception on failure.  `cp`: the cupy module. */
PyObject *bfpy_x_to_cupy(PyObject *cp, PyObject *self, const bfpy_xview *v, const char *what, bool copy,
                         PyObject *view, PyObject *(*to_host)(PyObject *self, PyObject *noargs));

#endif
