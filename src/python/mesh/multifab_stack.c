/* boxfab._core: one array over a whole MultiFab — mf.stacked() and its view
 * type StackedArray (dimension independent, in every space module).
 *
 * When the local fabs share one shape (boxes of one size; bf_multifab_stack
 * says why not otherwise), their data lie at equal distances in the
 * MultiFab's buffer, so all of them are one strided array
 * (nbox, ncomp, nz, ny, nx) in C order (Array4's order with a leading box
 * axis, in MFIter order): one user kernel covers every box.  The view holds a
 * _BufferOwner of the buffer, as Array4 views do: it outlives `del mf`,
 * mf.clear() and finalize().  Exports go through mesh/export.c, the same
 * path as Array4's: __array_interface__ (host, pinned, managed memory),
 * __cuda_array_interface__ (device, managed; with the stream field),
 * __dlpack__ / __dlpack_device__, and to_host / to_numpy / to_cupy / to_xp
 * (order "F": [box, x, y, z, comp], "C": [box, comp, z, y, x]). */
#include <string.h>

#include "mesh/export.h"
#include "mesh/multifab.h"
#include "boxfab/gpu.h"

typedef struct {
  PyObject_HEAD
  bfpy_xview v;    /* 5 axes: box, comp, z, y, x */
  PyObject *owner; /* _BufferOwner of the MultiFab's buffer */
} stack_object;

static inline stack_object *SO(PyObject *o) { return (stack_object *)o; }

static const char *memory_name(int memory) {
  switch (memory) {
  case BFPY_MEM_PINNED: return "pinned";
  case BFPY_MEM_MANAGED: return "managed";
  case BFPY_MEM_DEVICE: return "device";
  default: return "host";
  }
}

/* ---- mf.stacked() ------------------------------------------------------------------------------ */
static PyObject *mf_stacked(PyObject *self, PyObject *noargs) {
  (void)noargs;
  bf_multifab *mf = bfpy_mf_self(self, "stacked");
  if (!mf) return NULL;
  bf_mf_stack s;
  bf_buffer *buf = NULL;
  if (bfpy_check(bf_multifab_stack(mf, &s)) < 0 || bfpy_check(bf_multifab_buffer(mf, &buf)) < 0) return NULL;
  PyTypeObject *t = bfpy_types[0][BFPY_T_MFSTACK];
  PyObject *owner = bfpy_buffer_owner_new(buf);
  if (!owner) return NULL;
  stack_object *o = (stack_object *)t->tp_alloc(t, 0);
  if (!o) {
    Py_DECREF(owner);
    return NULL;
  }
  o->owner = owner;
  bfpy_xview *v = &o->v;
  v->p = s.data;
  v->dtype = bf_multifab_dtype(mf);
  v->memory = bfpy_memory_of_arena(bf_multifab_arena(mf));
  v->readonly = false;
  v->ndim = 5;
  v->shape[0] = s.nbox, v->strides[0] = s.box_stride;
  for (int d = 0; d < 4; ++d) { /* (comp, z, y, x) from (x, y, z, comp) */
    v->shape[1 + d] = s.shape[3 - d];
    v->strides[1 + d] = s.stride[3 - d];
  }
  v->copy_out = NULL;
  return (PyObject *)o;
}

PyMethodDef bfpy_mf_stack_methods[] = {
    {"stacked", mf_stacked, METH_NOARGS,
     "stacked() -> StackedArray: all local FABs (ghost cells included) as one zero-copy array of shape (nbox, "
     "ncomp, nz, ny, nx), box axis in MFIter order, for one kernel over every box (to_numpy / to_cupy / to_xp, "
     "__dlpack__, __cuda_array_interface__, __array_interface__). Needs local boxes of one shape (ValueError naming "
     "two boxes that differ otherwise; boxes of one size come from a domain whose sides are multiples of "
     "max_grid_size); RuntimeError without data. Keeps the memory alive."},
    {NULL, NULL, 0, NULL},
};

/* ---- the view type -------------------------------------------------------------------------- */
static void stack_dealloc(PyObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  Py_CLEAR(SO(self)->owner);
  tp->tp_free(self);
  Py_DECREF(tp);
}

static PyObject *stack_repr(PyObject *self) {
  const bfpy_xview *v = &SO(self)->v;
  return PyUnicode_FromFormat("<boxfab StackedArray of %lld box(es): shape (%lld, %lld, %lld, %lld, %lld) %s, %s "
                              "memory>",
                              (long long)v->shape[0], (long long)v->shape[0], (long long)v->shape[1],
                              (long long)v->shape[2], (long long)v->shape[3], (long long)v->shape[4],
                              bfpy_a4_kinds[v->dtype].typestr, memory_name(v->memory));
}

static PyObject *stack_array_interface(PyObject *self, void *closure) {
  (void)closure;
  const bfpy_xview *v = &SO(self)->v;
  if (v->memory == BFPY_MEM_DEVICE) {
    PyErr_SetString(PyExc_AttributeError, "__array_interface__: this StackedArray views device memory (use "
                                          "__cuda_array_interface__, __dlpack__ or to_host())");
    return NULL;
  }
  if (bfpy_mem_sync_host(v->memory) < 0) return NULL;
  return bfpy_x_interface_dict(v);
}

static PyObject *stack_cuda_array_interface(PyObject *self, void *closure) {
  (void)closure;
  const bfpy_xview *v = &SO(self)->v;
  if (v->memory == BFPY_MEM_HOST || v->memory == BFPY_MEM_PINNED) {
    PyErr_SetString(PyExc_AttributeError,
                    "__cuda_array_interface__: this StackedArray views host memory (use __array_interface__)");
    return NULL;
  }
  PyObject *d = bfpy_x_interface_dict(v);
  PyObject *stream = d ? bfpy_cuda_stream_field() : NULL; /* None when no boxfab work is pending */
  if (!stream || PyDict_SetItemString(d, "stream", stream) < 0) Py_CLEAR(d);
  Py_XDECREF(stream);
  return d;
}

static PyObject *stack_dlpack(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return bfpy_x_dlpack(self, &SO(self)->v, args, nargs, kwnames);
}

static PyObject *stack_dlpack_device(PyObject *self, PyObject *noargs) {
  (void)noargs;
  int type, id;
  bfpy_x_dlpack_device(SO(self)->v.memory, &type, &id);
  return Py_BuildValue("(ii)", type, id);
}

static PyObject *shape_tuple(const bfpy_xview *v, bool bytes) {
  const int64_t is = bytes ? (int64_t)bfpy_a4_kinds[v->dtype].itemsize : 1;
  PyObject *t = PyTuple_New(v->ndim);
  for (int d = 0; t && d < v->ndim; ++d) {
    PyObject *x = PyLong_FromLongLong((long long)(bytes ? v->strides[d] * is : v->shape[d]));
    if (!x) Py_CLEAR(t);
    else PyTuple_SET_ITEM(t, d, x);
  }
  return t;
}

static PyObject *stack_get_shape(PyObject *self, void *c) {
  (void)c;
  return shape_tuple(&SO(self)->v, false);
}
static PyObject *stack_get_strides(PyObject *self, void *c) {
  (void)c;
  return shape_tuple(&SO(self)->v, true);
}
static PyObject *stack_get_nbox(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLongLong((long long)SO(self)->v.shape[0]);
}
static PyObject *stack_get_typestr(PyObject *self, void *c) {
  (void)c;
  return PyUnicode_FromString(bfpy_a4_kinds[SO(self)->v.dtype].typestr);
}
static PyObject *stack_get_memory(PyObject *self, void *c) {
  (void)c;
  return PyUnicode_FromString(memory_name(SO(self)->v.memory));
}

/* ---- copies and NumPy / CuPy arrays ------------------------------------------------------------ */
static PyObject *stack_to_host(PyObject *self, PyObject *noargs) {
  (void)noargs;
  const bfpy_xview *v = &SO(self)->v;
  PyObject *shape = shape_tuple(v, false);
  if (!shape) return NULL;
  PyObject *np = PyImport_ImportModule("numpy");
  PyObject *arr = np ? PyObject_CallMethod(np, "empty", "Os", shape, bfpy_a4_kinds[v->dtype].typestr) : NULL;
  Py_XDECREF(np);
  Py_DECREF(shape);
  if (!arr) return NULL;
  Py_buffer b;
  if (PyObject_GetBuffer(arr, &b, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
    Py_DECREF(arr);
    return NULL;
  }
  int st = bfpy_x_copy_out(v, b.buf); /* GPU memory: bf_gpu_memcpy, after boxfab's pending work */
  PyBuffer_Release(&b);
  if (st < 0) Py_CLEAR(arr);
  return arr;
}

/* arr (C order: box, comp, z, y, x) as asked: itself, or its axes (box, x, y, z, comp) for "F". */
static PyObject *ordered(PyObject *arr, bool c_order) {
  if (!arr || c_order) return arr;
  PyObject *t = PyObject_CallMethod(arr, "transpose", "(iiiii)", 0, 4, 3, 2, 1);
  Py_DECREF(arr);
  return t;
}

static PyObject *stack_to_numpy(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  int copy;
  bool c_order;
  if (bfpy_x_copy_order(args, nargs, kwnames, &copy, &c_order) < 0) return NULL;
  if (copy) return ordered(stack_to_host(self, NULL), c_order);
  if (!bfpy_mem_host_accessible(SO(self)->v.memory)) {
    PyErr_SetString(PyExc_ValueError, "to_numpy: this StackedArray views device memory, so no NumPy view exists; "
                                      "use to_cupy(), to_xp(), to_host() or to_numpy(copy=True)");
    return NULL;
  }
  PyObject *np = PyImport_ImportModule("numpy");
  if (!np) return NULL;
  /* through __array_interface__: the array's base is this view, which holds the memory */
  PyObject *arr = PyObject_CallMethod(np, "asarray", "(O)", self);
  Py_DECREF(np);
  return ordered(arr, c_order);
}

static PyObject *stack_to_cupy(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  int copy;
  bool c_order;
  if (bfpy_x_copy_order(args, nargs, kwnames, &copy, &c_order) < 0) return NULL;
  PyObject *cp = PyImport_ImportModule("cupy");
  if (!cp) return NULL; /* ImportError without CuPy */
  /* (a rank without boxes: an empty array) */
  PyObject *arr = bfpy_x_to_cupy(cp, self, &SO(self)->v, "StackedArray", copy, NULL, stack_to_host);
  Py_DECREF(cp);
  return ordered(arr, c_order);
}

static PyObject *stack_to_xp(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  if (bf_gpu_available()) return stack_to_cupy(self, args, nargs, kwnames);
  return stack_to_numpy(self, args, nargs, kwnames);
}

/* __array__(dtype=None, copy=None): NumPy's last resort (the array interface
 * answers first for host-accessible memory); for device memory a TypeError
 * naming the explicit ways, not a 0-d object array. */
static PyObject *stack_array(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"dtype", "copy", NULL};
  PyObject *a[2];
  if (bfpy_bind(args, nargs, kwnames, names, 0, a, true) < 0) return NULL;
  if (!bfpy_mem_host_accessible(SO(self)->v.memory))
    return PyErr_Format(PyExc_TypeError,
                        "StackedArray views GPU device memory: NumPy cannot read it in place (implicit conversion "
                        "to a NumPy array is not allowed); copy it explicitly with to_host() (or "
                        "to_numpy(copy=True)), or view it on the GPU with to_cupy()");
  PyObject *np = PyImport_ImportModule("numpy");
  if (!np) return NULL;
  PyObject *arr = PyObject_CallMethod(np, "asarray", "(O)", self); /* a view (array interface) */
  if (arr && ((a[0] && a[0] != Py_None) || (a[1] && a[1] != Py_None))) {
    /* numpy.array(view, dtype=..., copy=...) gives NumPy's own rules (ValueError when copy=False cannot hold) */
    PyObject *kw = Py_BuildValue("{s:O,s:O}", "dtype", a[0] ? a[0] : Py_None, "copy", a[1] ? a[1] : Py_None);
    PyObject *fn = kw ? PyObject_GetAttrString(np, "array") : NULL;
    PyObject *targs = fn ? PyTuple_Pack(1, arr) : NULL;
    PyObject *r = targs ? PyObject_Call(fn, targs, kw) : NULL;
    Py_XDECREF(kw), Py_XDECREF(fn), Py_XDECREF(targs);
    Py_SETREF(arr, r);
  }
  Py_DECREF(np);
  return arr;
}

#define FASTKW(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

static PyMethodDef stack_methods[] = {
    {"__dlpack__", FASTKW(stack_dlpack),
     "__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None) -> PyCapsule: DLPack export (a "
     "versioned capsule when max_version >= (1, 0)); as Array4's."},
    {"__dlpack_device__", stack_dlpack_device, METH_NOARGS, "__dlpack_device__() -> tuple[int, int]."},
    {"__array__", FASTKW(stack_array),
     "__array__(dtype=None, copy=None) -> numpy.ndarray: a view of host memory (C order, (nbox, ncomp, nz, ny, "
     "nx)); TypeError for device memory (use to_host() or to_cupy())."},
    {"to_host", stack_to_host, METH_NOARGS,
     "to_host() -> numpy.ndarray: a C-ordered host copy (nbox, ncomp, nz, ny, nx) (device memory: copied after "
     "boxfab's pending work)."},
    {"to_numpy", FASTKW(stack_to_numpy),
     "to_numpy(copy: bool = False, order: str = 'F') -> numpy.ndarray: order 'F' indexed [box, x, y, z, comp], 'C' "
     "[box, comp, z, y, x]; copy=False a view (ValueError for device memory)."},
    {"to_cupy", FASTKW(stack_to_cupy),
     "to_cupy(copy: bool = False, order: str = 'F') -> cupy.ndarray: a CuPy view of device or managed memory "
     "(ValueError for host memory unless copy=True); axes as to_numpy."},
    {"to_xp", FASTKW(stack_to_xp),
     "to_xp(copy: bool = False, order: str = 'F') -> Any: to_cupy when Config.have_gpu, else to_numpy."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef stack_getset[] = {
    {"__array_interface__", stack_array_interface, NULL, "NumPy array interface v3 (host, pinned, managed memory).",
     NULL},
    {"__cuda_array_interface__", stack_cuda_array_interface, NULL,
     "CUDA array interface v3 (device or managed memory only).", NULL},
    {"shape", stack_get_shape, NULL, "tuple: (nbox, ncomp, nz, ny, nx), C order.", NULL},
    {"strides", stack_get_strides, NULL, "tuple: strides in bytes of the C-ordered axes.", NULL},
    {"nbox", stack_get_nbox, NULL, "int: number of local boxes (the leading axis).", NULL},
    {"typestr", stack_get_typestr, NULL, "str: the element type as the array interface writes it ('<f8', '<i4').",
     NULL},
    {"memory", stack_get_memory, NULL, "str: where the data live: 'host', 'pinned', 'managed' or 'device'.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot stack_slots[] = {
    {Py_tp_doc, "StackedArray: every local FAB of a MultiFab or iMultiFab as one array (nbox, ncomp, nz, ny, nx), "
                "made by mf.stacked(); zero-copy, keeps the memory alive."},
    {Py_tp_dealloc, stack_dealloc},
    {Py_tp_repr, stack_repr},
    {Py_tp_methods, stack_methods},
    {Py_tp_getset, stack_getset},
    {0, NULL},
};

static PyType_Spec stack_spec = {
    .name = "StackedArray", .basicsize = sizeof(stack_object),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION, .slots = stack_slots};

int bfpy_init_mfstack(PyObject *m, int dim) {
  if (dim == 1 && !bfpy_make_type(NULL, 0, BFPY_T_MFSTACK, "StackedArray", &stack_spec, NULL)) return -1;
  return PyModule_AddObjectRef(m, "StackedArray", (PyObject *)bfpy_types[0][BFPY_T_MFSTACK]);
}
