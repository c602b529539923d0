/* boxfab._core: PODVector_<real|int|uint64>_<alloc> and _PODView, the
 * exporter of particle storage.
 *
 * A PODVector object holds a reference to a bf_podvec (its own, or a tile's
 * component: then writes go to the tile).  What it hands out (the buffer
 * protocol, NumPy / CuPy views, DLPack capsules) is made by a _PODView: a
 * tiny object holding a reference to the bf_buffer the vector uses at that
 * moment.  A reallocation of the vector (push_back, resize, redistribute)
 * moves it to a new buffer, and views taken before keep reading the old one,
 * never freed memory.  A consumer of the dict from __array_interface__ /
 * __cuda_array_interface__ holds the PODVector object, not the memory: such
 * buffers are kept by the object (`pinned`) until it goes.
 *
 * Memory kinds as for Array4 (mesh/array4_export.c): host memory has the
 * buffer protocol, __array_interface__ and DLPack kDLCPU; device memory only
 * __cuda_array_interface__ and DLPack kDLCUDA; pinned and managed both host
 * and (managed) CUDA exports.  Element access (__getitem__ / __setitem__)
 * goes through bf_podvec_get / set, which copy through the backend for
 * memory the host cannot touch.  Unlike pyAMReX, indices are checked:
 * IndexError instead of a read out of bounds (docs/differences.md). */
#include <stdlib.h>
#include <string.h>

#include "mesh/array4.h"
#include "mesh/export.h"
#include "particles/arrays.h"
#include "boxfab/gpu.h"

/* ---- allocators ----------------------------------------------------------------- */

static const char *const alloc_names[BFPY_NALLOC] = {"default", "pinned", "arena", "std",
                                                     "device",  "managed", "async", "polymorphic"};

const char *bfpy_alloc_name(int alloc) { return alloc >= 0 && alloc < BFPY_NALLOC ? alloc_names[alloc] : "?"; }

bf_arena *bfpy_alloc_arena(int alloc) {
  switch (alloc) {
  case BFPY_ALLOC_PINNED: return bf_arena_get(BF_ARENA_PINNED);
  case BFPY_ALLOC_STD: return bf_arena_get(BF_ARENA_CPU);
  case BFPY_ALLOC_DEVICE: return bf_arena_get(BF_ARENA_DEVICE);
  case BFPY_ALLOC_MANAGED: return bf_arena_get(BF_ARENA_MANAGED);
  case BFPY_ALLOC_ASYNC: return bf_arena_get(BF_ARENA_ASYNC);
  default: return bf_arena_get(BF_ARENA_DEFAULT); /* default, arena, polymorphic */
  }
}

/* ---- element kinds ------------------------------------------------------------------ */

typedef struct {
  const char *name;   /* PODVector_<name>_... */
  int pod;            /* BF_POD_* */
  const char *format; /* PEP 3118 */
  char typestr[8];
  int dtype;          /* the boxfab element type: its DLPack code and bits (bfpy_a4_kinds) */
} pv_kind;

static pv_kind pv_kinds[BFPY_NPV] = {
    {"real", BF_POD_REAL, "d", "<f8", BF_DTYPE_DOUBLE},
    {"int", BF_POD_INT, "i", "<i4", BF_DTYPE_INT},
    {"uint64", BF_POD_UINT64, "Q", "<u8", BF_DTYPE_ULONGLONG},
};

static int pv_of_pod(int pod) {
  for (int k = 0; k < BFPY_NPV; ++k)
    if (pv_kinds[k].pod == pod) return k;
  return -1;
}

/* ---- _PODView ------------------------------------------------------------------------ */

typedef struct {
  PyObject_HEAD
  bf_buffer *buf;    /* NULL for an empty view */
  char *ptr;
  int64_t n;
  int pv;            /* BFPY_PV_*, or -1 for structs */
  size_t itemsize;
  char typestr[32];
  PyObject *descr;   /* structs: the array interface descr list */
  PyObject *source;  /* the PODVector the view was taken from, kept alive (pyAMReX's keep_alive), or NULL */
  int memory;        /* BFPY_MEM_* */
  Py_ssize_t exports;
  Py_ssize_t bshape[1], bstrides[1];
} pview_object;

static void pview_dealloc(PyObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  pview_object *v = (pview_object *)self;
  bf_buffer_destroy(&v->buf);
  Py_CLEAR(v->descr);
  Py_CLEAR(v->source);
  tp->tp_free(self);
  Py_DECREF(tp);
}

/* A new view of the current storage of v (descr: a new reference or NULL). */
static PyObject *pview_new(bf_podvec *v, PyObject *descr) {
  PyTypeObject *t = bfpy_types[0][BFPY_T_PODVIEW];
  pview_object *o = (pview_object *)t->tp_alloc(t, 0);
  if (!o) {
    Py_XDECREF(descr);
    return NULL;
  }
  bf_buffer *b = bf_podvec_buffer(v);
  o->buf = b ? bf_buffer_retain(b) : NULL;
  o->n = bf_podvec_size(v);
  o->ptr = o->n > 0 ? bf_podvec_data(v) : NULL;
  o->pv = pv_of_pod(bf_podvec_kind(v));
  o->itemsize = bf_podvec_elem_size(v);
  if (o->pv >= 0) snprintf(o->typestr, sizeof o->typestr, "%s", pv_kinds[o->pv].typestr);
  else snprintf(o->typestr, sizeof o->typestr, "|V%zu", o->itemsize);
  o->descr = descr;
  o->memory = bfpy_memory_of_arena(bf_podvec_arena(v));
  return (PyObject *)o;
}

static PyObject *pview_dict(pview_object *v) {
  PyObject *d = Py_BuildValue("{s:(L),s:s,s:(NO),s:O,s:i}", "shape", (long long)v->n, "typestr", v->typestr, "data",
                              PyLong_FromVoidPtr(v->ptr), Py_False, "strides", Py_None, "version", 3);
  if (d && v->descr) {
    /* structs: the fields (no padding entry) and the struct size as the stride, as pyAMReX */
    PyObject *st = Py_BuildValue("(L)", (long long)v->itemsize);
    if (!st || PyDict_SetItemString(d, "descr", v->descr) < 0 || PyDict_SetItemString(d, "strides", st) < 0)
      Py_CLEAR(d);
    Py_XDECREF(st);
  }
  return d;
}

static PyObject *pview_array_interface(PyObject *self, void *closure) {
  (void)closure;
  pview_object *v = (pview_object *)self;
  if (!bfpy_mem_host_accessible(v->memory)) {
    PyErr_SetString(PyExc_AttributeError, "__array_interface__: the particle data are in device memory (use "
                                          "__cuda_array_interface__, __dlpack__ or to_host())");
    return NULL;
  }
  if (bfpy_mem_sync_host(v->memory) < 0) return NULL;
  return pview_dict(v);
}

static PyObject *pview_cuda_array_interface(PyObject *self, void *closure) {
  (void)closure;
  pview_object *v = (pview_object *)self;
  if (v->memory == BFPY_MEM_HOST || v->memory == BFPY_MEM_PINNED) {
    PyErr_SetString(PyExc_AttributeError,
                    "__cuda_array_interface__: the particle data are in host memory (use __array_interface__)");
    return NULL;
  }
  PyObject *d = pview_dict(v);
  PyObject *stream = d ? bfpy_cuda_stream_field() : NULL;
  if (!stream || PyDict_SetItemString(d, "stream", stream) < 0) Py_CLEAR(d);
  Py_XDECREF(stream);
  return d;
}

static char pview_empty[16];

static int pview_getbuffer(PyObject *self, Py_buffer *view, int flags) {
  pview_object *v = (pview_object *)self;
  view->obj = NULL;
  if (v->pv < 0) {
    PyErr_SetString(PyExc_BufferError, "particle structs have no buffer format: use __array_interface__");
    return -1;
  }
  if (!bfpy_mem_host_accessible(v->memory)) {
    PyErr_SetString(PyExc_BufferError, "the particle data are in device memory: no buffer protocol (use "
                                       "__cuda_array_interface__, __dlpack__ or to_host())");
    return -1;
  }
  if (bfpy_mem_sync_host(v->memory) < 0) return -1;
  v->bshape[0] = (Py_ssize_t)v->n;
  v->bstrides[0] = (Py_ssize_t)v->itemsize;
  view->buf = v->ptr ? v->ptr : pview_empty;
  view->len = (Py_ssize_t)(v->n * (int64_t)v->itemsize);
  view->readonly = 0;
  view->itemsize = (Py_ssize_t)v->itemsize;
  view->format = (flags & PyBUF_FORMAT) ? (char *)pv_kinds[v->pv].format : NULL;
  view->ndim = 1;
  view->shape = (flags & PyBUF_ND) ? v->bshape : NULL;
  view->strides = (flags & PyBUF_STRIDES) ? v->bstrides : NULL;
  view->suboffsets = NULL;
  view->internal = NULL;
  view->obj = Py_NewRef(self);
  v->exports++;
  return 0;
}

static void pview_releasebuffer(PyObject *self, Py_buffer *view) {
  (void)view;
  ((pview_object *)self)->exports--;
}

/* -- DLPack: the exporter shared with Array4 and the stacked view (mesh/export.c) -- */
static PyObject *pview_dlpack_device(PyObject *self, PyObject *noargs) {
  (void)noargs;
  int type, id;
  bfpy_x_dlpack_device(((pview_object *)self)->memory, &type, &id);
  return Py_BuildValue("(ii)", type, id);
}

/* Copy the view's elements into host memory dst. */
static int pview_copy_out(const pview_object *v, void *dst) {
  size_t bytes = (size_t)v->n * v->itemsize;
  if (bytes == 0) return 0;
  if (v->memory == BFPY_MEM_HOST) {
    memcpy(dst, v->ptr, bytes);
    return 0;
  }
  return bfpy_check(bf_gpu_memcpy(dst, v->ptr, bytes));
}

static PyObject *pview_dlpack(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  pview_object *v = (pview_object *)self;
  if (v->pv < 0) {
    PyErr_SetString(PyExc_BufferError, "__dlpack__: particle structs have no DLPack data type (use to_numpy())");
    return NULL;
  }
  bfpy_xview x = {.p = v->ptr, .dtype = pv_kinds[v->pv].dtype, .memory = v->memory, .ndim = 1};
  x.shape[0] = v->n, x.strides[0] = 1;
  return bfpy_x_dlpack(self, &x, args, nargs, kwnames);
}

static PyObject *pview_repr(PyObject *self) {
  pview_object *v = (pview_object *)self;
  return PyUnicode_FromFormat("<boxfab particle data view of %lld elements of %s at %p>", (long long)v->n, v->typestr,
                              (void *)v->ptr);
}

static PyMethodDef pview_methods[] = {
    {"__dlpack__", (PyCFunction)(void (*)(void))pview_dlpack, METH_FASTCALL | METH_KEYWORDS,
     "__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None) -> PyCapsule."},
    {"__dlpack_device__", pview_dlpack_device, METH_NOARGS, "__dlpack_device__() -> (device_type, device_id)."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef pview_getset[] = {
    {"__array_interface__", pview_array_interface, NULL, "NumPy array interface v3 (host memory).", NULL},
    {"__cuda_array_interface__", pview_cuda_array_interface, NULL, "CUDA array interface v3 (device memory).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot pview_slots[] = {
    {Py_tp_doc, "The storage of a PODVector at one moment, kept alive for the views made of it (internal)."},
    {Py_tp_dealloc, pview_dealloc},
    {Py_tp_repr, pview_repr},
    {Py_tp_methods, pview_methods},
    {Py_tp_getset, pview_getset},
    {Py_bf_getbuffer, pview_getbuffer},
    {Py_bf_releasebuffer, pview_releasebuffer},
    {0, NULL},
};

static PyType_Spec pview_spec = {
    .name = "_PODView", .basicsize = sizeof(pview_object), .flags = Py_TPFLAGS_DEFAULT, .slots = pview_slots};

/* ---- shared helpers for particle exports -------------------------------------------- */

PyObject *bfpy_podview_new(bf_podvec *v, PyObject *descr) { return pview_new(v, descr); }

int bfpy_podview_memory(PyObject *view) { return ((pview_object *)view)->memory; }

/* numpy.asarray(view) (zero-copy; the array's base holds the view). */
static PyObject *np_attr(const char *name) {
  PyObject *np = PyImport_ImportModule("numpy");
  if (!np) return NULL;
  PyObject *f = PyObject_GetAttrString(np, name);
  Py_DECREF(np);
  return f;
}

PyObject *bfpy_podview_to_numpy(PyObject *view, bool copy) {
  pview_object *v = (pview_object *)view;
  if (copy) {
    /* a host copy, of any memory: the raw bytes, then (structs) a compact structured copy */
    PyObject *empty = np_attr("empty");
    if (!empty) return NULL;
    PyObject *arr = v->descr ? PyObject_CallFunction(empty, "(L)s", (long long)(v->n * (int64_t)v->itemsize), "u1")
                             : PyObject_CallFunction(empty, "(L)s", (long long)v->n, v->typestr);
    Py_DECREF(empty);
    if (!arr) return NULL;
    Py_buffer b;
    if (PyObject_GetBuffer(arr, &b, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
      Py_DECREF(arr);
      return NULL;
    }
    int st = pview_copy_out(v, b.buf);
    PyBuffer_Release(&b);
    if (st < 0) {
      Py_DECREF(arr);
      return NULL;
    }
    if (!v->descr) return arr;
    PyObject *nd = np_attr("ndarray"), *dt = np_attr("dtype");
    PyObject *dtype = dt ? PyObject_CallOneArg(dt, v->descr) : NULL;
    PyObject *view = nd && dtype ? PyObject_CallFunction(nd, "(L)OOi(L)", (long long)v->n, dtype, arr, 0,
                                                          (long long)v->itemsize)
                                 : NULL;
    PyObject *out = view ? PyObject_CallMethod(view, "copy", NULL) : NULL;
    Py_XDECREF(nd);
    Py_XDECREF(dt);
    Py_XDECREF(dtype);
    Py_XDECREF(view);
    Py_DECREF(arr);
    return out;
  }
  if (!bfpy_mem_host_accessible(v->memory)) {
    PyErr_SetString(PyExc_ValueError, "to_numpy: the particle data are in device memory, so no NumPy view exists; "
                                      "use to_cupy(), to_xp(), to_host() or to_numpy(copy=True)");
    return NULL;
  }
  static PyObject *np_asarray;
  if (!np_asarray && !(np_asarray = np_attr("asarray"))) return NULL;
  return PyObject_CallOneArg(np_asarray, view);
}

PyObject *bfpy_podview_to_cupy(PyObject *view, bool copy) {
  pview_object *v = (pview_object *)view;
  PyObject *cp = PyImport_ImportModule("cupy");
  if (!cp) return NULL;
  PyObject *arr = NULL;
  if (v->memory == BFPY_MEM_HOST || v->memory == BFPY_MEM_PINNED) {
    /* pinned memory: CuPy cannot import it (kDLCUDAHost), so to_cupy stages a copy on the device, as
     * pyAMReX 26 does; plain host memory needs copy=True */
    if (!copy && v->memory == BFPY_MEM_PINNED) copy = true;
    if (!copy) {
      PyErr_SetString(PyExc_ValueError, "to_cupy: the particle data are in host memory, so no CuPy view exists; use "
                                        "to_numpy() or copy=True");
    } else {
      PyObject *host = bfpy_podview_to_numpy(view, true);
      if (host) arr = PyObject_CallMethod(cp, "asarray", "(O)", host);
      Py_XDECREF(host);
    }
  } else {
    arr = PyObject_CallMethod(cp, "asarray", "(O)", view);
    if (arr && copy) Py_SETREF(arr, PyObject_CallMethod(arr, "copy", NULL));
  }
  Py_DECREF(cp);
  return arr;
}

/* copy=False argument of to_numpy / to_cupy / to_xp: 0/1, or -1 with an exception. */
int bfpy_copy_arg(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"copy", NULL};
  PyObject *a[1];
  if (bfpy_bind(args, nargs, kwnames, names, 0, a, true) < 0) return -1;
  return a[0] ? PyObject_IsTrue(a[0]) : 0;
}

/* ---- PODVector_* --------------------------------------------------------------------- */

typedef struct {
  PyObject_HEAD
  int dim, pv, alloc;
  bf_podvec *v;      /* never NULL after construction */
  PyObject *owner;   /* keeps a tile alive (may be NULL) */
  PyObject *pinned;  /* NULL or a list of _PODViews handed out through the interface dicts */
} pvec_object;

static PyTypeObject *pv_types[BF_SPACEDIM_MAX + 1][BFPY_NPV][BFPY_NALLOC];
static char pv_type_names[BF_SPACEDIM_MAX + 1][BFPY_NPV][BFPY_NALLOC][64];

static inline pvec_object *PV(PyObject *o) { return (pvec_object *)o; }

/* The PODVector allocator name of a tile allocator: `default` is std::allocator
 * on CPU builds of AMReX and The_Arena on GPU builds. */
static int pv_alloc_of(int alloc) {
  if (alloc == BFPY_ALLOC_DEFAULT) return bf_gpu_available() ? BFPY_ALLOC_ARENA : BFPY_ALLOC_STD;
  return alloc;
}

PyObject *bfpy_podvec_wrap(int dim, int alloc, bf_podvec *v, PyObject *owner) {
  int pv = pv_of_pod(bf_podvec_kind(v));
  if (pv < 0) {
    PyErr_SetString(PyExc_TypeError, "boxfab: a struct vector has no PODVector type");
    return NULL;
  }
  PyTypeObject *t = pv_types[dim][pv][pv_alloc_of(alloc)];
  pvec_object *o = (pvec_object *)t->tp_alloc(t, 0);
  if (!o) return NULL;
  o->dim = dim;
  o->pv = pv;
  o->alloc = pv_alloc_of(alloc);
  o->v = bf_podvec_retain(v);
  o->owner = owner ? Py_NewRef(owner) : NULL;
  return (PyObject *)o;
}

bf_podvec *bfpy_podvec_unwrap(PyObject *o) {
  if (!bfpy_is(o, BFPY_T_PODVECTOR, -1) || !PV(o)->v) {
    PyErr_Format(PyExc_TypeError, "expected a PODVector, got %.100s", Py_TYPE(o)->tp_name);
    return NULL;
  }
  return PV(o)->v;
}

static const char *pv_name(PyObject *self) {
  const char *n = strrchr(Py_TYPE(self)->tp_name, '.');
  return n ? n + 1 : Py_TYPE(self)->tp_name;
}

static int pv_type_info(PyTypeObject *t, int *dim, int *pv, int *alloc) {
  for (int d = 1; d <= BF_SPACEDIM_MAX; ++d)
    for (int k = 0; k < BFPY_NPV; ++k)
      for (int a = 0; a < BFPY_NALLOC; ++a)
        if (pv_types[d][k][a] && (t == pv_types[d][k][a] || PyType_IsSubtype(t, pv_types[d][k][a]))) {
          *dim = d, *pv = k, *alloc = a;
          return 0;
        }
  return -1;
}

static PyObject *pv_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
  (void)args, (void)kwds;
  int dim, pv, alloc;
  if (pv_type_info(type, &dim, &pv, &alloc) < 0) {
    PyErr_Format(PyExc_TypeError, "%s cannot be instantiated (use a PODVector_<T>_<alloc> type)", type->tp_name);
    return NULL;
  }
  pvec_object *o = (pvec_object *)type->tp_alloc(type, 0);
  if (!o) return NULL;
  o->dim = dim, o->pv = pv, o->alloc = alloc;
  if (bfpy_check(bf_podvec_create(bfpy_alloc_arena(alloc), pv_kinds[pv].pod, 0, 0, &o->v)) < 0) {
    Py_DECREF(o);
    return NULL;
  }
  return (PyObject *)o;
}

static const char *pv_init_sigs = "__init__() / __init__(size: int) / __init__(other: PODVector of the same type)";

static int pv_init(PyObject *self, PyObject *args, PyObject *kwds) {
  pvec_object *o = PV(self);
  Py_ssize_t n = PyTuple_GET_SIZE(args);
  PyObject *a0 = n > 0 ? PyTuple_GET_ITEM(args, 0) : NULL;
  if (kwds && PyDict_GET_SIZE(kwds) > 0) {
    if (n == 0 && PyDict_GET_SIZE(kwds) == 1) a0 = PyDict_GetItemString(kwds, "size");
    if (!a0 && n == 0 && PyDict_GET_SIZE(kwds) == 1) a0 = PyDict_GetItemString(kwds, "other");
    if (!a0 || n > 0) {
      PyErr_Format(PyExc_TypeError, "%s(): unexpected keyword arguments; %s", pv_name(self), pv_init_sigs);
      return -1;
    }
    n = 1;
  }
  if (n > 1) {
    PyErr_Format(PyExc_TypeError, "%s(): takes at most one argument; %s", pv_name(self), pv_init_sigs);
    return -1;
  }
  bf_podvec *nv = NULL;
  if (n == 0) {
    if (bfpy_check(bf_podvec_create(bfpy_alloc_arena(o->alloc), pv_kinds[o->pv].pod, 0, 0, &nv)) < 0) return -1;
  } else if (bfpy_is(a0, BFPY_T_PODVECTOR, -1)) {
    if (Py_TYPE(a0) != Py_TYPE(self) && !(PV(a0)->pv == o->pv && PV(a0)->dim == o->dim)) {
      PyErr_Format(PyExc_TypeError, "%s(other): other must be a %s, got %.100s", pv_name(self), pv_name(self),
                   Py_TYPE(a0)->tp_name);
      return -1;
    }
    if (bfpy_check(bf_podvec_clone(PV(a0)->v, bfpy_alloc_arena(o->alloc), &nv)) < 0) return -1;
  } else if (bfpy_is_intlike(a0)) {
    int64_t size;
    if (bfpy_to_int64(a0, &size, "size") < 0) return -1;
    if (size < 0) {
      PyErr_Format(PyExc_ValueError, "%s(size): size must be >= 0, got %lld", pv_name(self), (long long)size);
      return -1;
    }
    if (bfpy_check(bf_podvec_create(bfpy_alloc_arena(o->alloc), pv_kinds[o->pv].pod, 0, size, &nv)) < 0) return -1;
  } else {
    bfpy_no_overload(pv_name(self), &PyTuple_GET_ITEM(args, 0), 1, NULL, pv_init_sigs);
    return -1;
  }
  bf_podvec_destroy(&o->v);
  o->v = nv;
  Py_CLEAR(o->owner);
  return 0;
}

static int pv_traverse(PyObject *self, visitproc visit, void *arg) {
  Py_VISIT(Py_TYPE(self));
  Py_VISIT(PV(self)->owner);
  Py_VISIT(PV(self)->pinned);
  return 0;
}

static int pv_clear_refs(PyObject *self) {
  Py_CLEAR(PV(self)->owner);
  Py_CLEAR(PV(self)->pinned);
  return 0;
}

static void pv_dealloc(PyObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  pv_clear_refs(self);
  bf_podvec_destroy(&PV(self)->v);
  tp->tp_free(self);
  Py_DECREF(tp);
}

/* Python value -> element bytes. */
static int pv_value(PyObject *self, PyObject *o, void *out) {
  switch (PV(self)->pv) {
  case BFPY_PV_REAL: return bfpy_to_double(o, (double *)out, "value");
  case BFPY_PV_INT: {
    int v;
    if (bfpy_to_int(o, &v, "value") < 0) return -1;
    *(int32_t *)out = (int32_t)v;
    return 0;
  }
  default: {
    if (!bfpy_is_intlike(o)) {
      PyErr_Format(PyExc_TypeError, "value must be an int, not %.100s", Py_TYPE(o)->tp_name);
      return -1;
    }
    PyObject *i = PyNumber_Index(o);
    if (!i) return -1;
    unsigned long long u = PyLong_AsUnsignedLongLong(i);
    Py_DECREF(i);
    if (u == (unsigned long long)-1 && PyErr_Occurred()) {
      PyErr_SetString(PyExc_OverflowError, "value must fit in an unsigned 64-bit integer");
      return -1;
    }
    *(uint64_t *)out = u;
    return 0;
  }
  }
}

static PyObject *pv_elem(int pv, const void *p) {
  switch (pv) {
  case BFPY_PV_REAL: return PyFloat_FromDouble(*(const double *)p);
  case BFPY_PV_INT: return PyLong_FromLong(*(const int32_t *)p);
  default: return PyLong_FromUnsignedLongLong(*(const uint64_t *)p);
  }
}

static int pv_index(PyObject *self, PyObject *key, int64_t *i) {
  if (!bfpy_is_intlike(key)) {
    PyErr_Format(PyExc_TypeError, "%s indices must be integers, not %.100s", pv_name(self), Py_TYPE(key)->tp_name);
    return -1;
  }
  PyObject *k = PyNumber_Index(key);
  if (!k) return -1;
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(k, &overflow);
  Py_DECREF(k);
  if (v == -1 && PyErr_Occurred()) return -1;
  int64_t n = bf_podvec_size(PV(self)->v);
  if (overflow || v < 0 || v >= n) {
    PyErr_Format(PyExc_IndexError, "%s index out of range [0, %lld) (no negative indices, as in pyAMReX)",
                 pv_name(self), (long long)n);
    return -1;
  }
  *i = v;
  return 0;
}

static PyObject *pv_getitem(PyObject *self, PyObject *key) {
  int64_t i;
  if (pv_index(self, key, &i) < 0) return NULL;
  unsigned char buf[8];
  if (bfpy_check(bf_podvec_get(PV(self)->v, i, buf)) < 0) return NULL;
  return pv_elem(PV(self)->pv, buf);
}

static int pv_setitem(PyObject *self, PyObject *key, PyObject *value) {
  if (!value) {
    PyErr_Format(PyExc_TypeError, "%s does not support item deletion", pv_name(self));
    return -1;
  }
  int64_t i;
  unsigned char buf[8];
  if (pv_index(self, key, &i) < 0 || pv_value(self, value, buf) < 0) return -1;
  return bfpy_check(bf_podvec_set(PV(self)->v, i, buf));
}

static Py_ssize_t pv_len(PyObject *self) { return (Py_ssize_t)bf_podvec_size(PV(self)->v); }

/* The sequence protocol (iteration stops at IndexError). */
static PyObject *pv_sq_item(PyObject *self, Py_ssize_t i) {
  if (i < 0 || (int64_t)i >= bf_podvec_size(PV(self)->v)) {
    PyErr_Format(PyExc_IndexError, "%s index out of range", pv_name(self));
    return NULL;
  }
  unsigned char buf[8];
  if (bfpy_check(bf_podvec_get(PV(self)->v, (int64_t)i, buf)) < 0) return NULL;
  return pv_elem(PV(self)->pv, buf);
}

static PyObject *pv_size(PyObject *self, PyObject *noargs) {
  (void)noargs;
  return PyLong_FromLongLong(bf_podvec_size(PV(self)->v));
}
static PyObject *pv_capacity(PyObject *self, PyObject *noargs) {
  (void)noargs;
  return PyLong_FromLongLong(bf_podvec_capacity(PV(self)->v));
}
static PyObject *pv_empty(PyObject *self, PyObject *noargs) {
  (void)noargs;
  return PyBool_FromLong(bf_podvec_size(PV(self)->v) == 0);
}
static PyObject *pv_push_back(PyObject *self, PyObject *value) {
  unsigned char buf[8];
  if (pv_value(self, value, buf) < 0 || bfpy_check(bf_podvec_push_back(PV(self)->v, buf)) < 0) return NULL;
  Py_RETURN_NONE;
}
static PyObject *pv_pop_back(PyObject *self, PyObject *noargs) {
  (void)noargs;
  if (bfpy_check(bf_podvec_pop_back(PV(self)->v)) < 0) return NULL;
  Py_RETURN_NONE;
}
static PyObject *pv_clear(PyObject *self, PyObject *noargs) {
  (void)noargs;
  if (bfpy_check(bf_podvec_resize(PV(self)->v, 0)) < 0) return NULL;
  Py_RETURN_NONE;
}
static PyObject *pv_assign(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"value", NULL};
  PyObject *a[1];
  unsigned char buf[8];
  if (bfpy_bind(args, nargs, kwnames, names, 1, a, true) < 0 || pv_value(self, a[0], buf) < 0) return NULL;
  if (bfpy_check(bf_podvec_assign(PV(self)->v, buf)) < 0) return NULL;
  Py_RETURN_NONE;
}

static int pv_count(PyObject *o, int64_t *n, const char *what) {
  if (!bfpy_is_intlike(o)) {
    PyErr_Format(PyExc_TypeError, "%s must be an int, not %.100s", what, Py_TYPE(o)->tp_name);
    return -1;
  }
  if (bfpy_to_int64(o, n, what) < 0) return -1;
  if (*n < 0) {
    PyErr_Format(PyExc_ValueError, "%s must be >= 0, got %lld", what, (long long)*n);
    return -1;
  }
  return 0;
}

static PyObject *pv_resize(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"", "", NULL};
  PyObject *a[2];
  if (bfpy_bind(args, nargs, kwnames, names, 1, a, true) < 0) return NULL;
  int64_t n;
  if (pv_count(a[0], &n, "resize: size") < 0) return NULL;
  unsigned char buf[8];
  if (a[1] && pv_value(self, a[1], buf) < 0) return NULL;
  if (bfpy_check(bf_podvec_resize_fill(PV(self)->v, n, a[1] ? buf : NULL)) < 0) return NULL;
  Py_RETURN_NONE;
}
static PyObject *pv_reserve(PyObject *self, PyObject *arg) {
  int64_t n;
  if (pv_count(arg, &n, "reserve: capacity") < 0 || bfpy_check(bf_podvec_reserve(PV(self)->v, n)) < 0) return NULL;
  Py_RETURN_NONE;
}
static PyObject *pv_shrink_to_fit(PyObject *self, PyObject *noargs) {
  (void)noargs;
  if (bfpy_check(bf_podvec_shrink_to_fit(PV(self)->v)) < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject *pv_to_host(PyObject *self, PyObject *noargs) {
  (void)noargs;
  bf_podvec *c = NULL;
  if (bfpy_check(bf_podvec_clone(PV(self)->v, bf_arena_get(BF_ARENA_PINNED), &c)) < 0) return NULL;
  PyObject *r = bfpy_podvec_wrap(PV(self)->dim, BFPY_ALLOC_PINNED, c, NULL);
  bf_podvec_destroy(&c);
  return r;
}

int bfpy_podview_pin(PyObject **pinned, PyObject *view) {
  bf_buffer *b = ((pview_object *)view)->buf;
  if (!b) return 0;
  if (!*pinned && !(*pinned = PyList_New(0))) return -1;
  Py_ssize_t n = PyList_GET_SIZE(*pinned);
  for (Py_ssize_t i = 0; i < n; ++i) /* already kept (the same storage as before) */
    if (((pview_object *)PyList_GET_ITEM(*pinned, i))->buf == b) return 0;
  return PyList_Append(*pinned, view);
}

/* Keep `view` (its buffer) as long as this object: a consumer of an interface dict holds us, not the memory. */
static int pv_pin(PyObject *self, PyObject *view) { return bfpy_podview_pin(&PV(self)->pinned, view); }

static PyObject *pv_interface(PyObject *self, bool cuda) {
  PyObject *view = pview_new(PV(self)->v, NULL);
  if (!view) return NULL;
  PyObject *d = cuda ? pview_cuda_array_interface(view, NULL) : pview_array_interface(view, NULL);
  if (d && pv_pin(self, view) < 0) Py_CLEAR(d);
  Py_DECREF(view);
  return d;
}
static PyObject *pv_array_interface(PyObject *self, void *c) {
  (void)c;
  return pv_interface(self, false);
}
static PyObject *pv_cuda_array_interface(PyObject *self, void *c) {
  (void)c;
  return pv_interface(self, true);
}

static int pv_getbuffer(PyObject *self, Py_buffer *view, int flags) {
  view->obj = NULL;
  PyObject *pv = pview_new(PV(self)->v, NULL);
  if (!pv) return -1;
  int r = pview_getbuffer(pv, view, flags); /* view->obj: the _PODView, which holds the storage */
  Py_DECREF(pv);
  return r;
}

/* A view of self's current storage that keeps self alive: for what is handed to the user (DLPack
 * capsules, NumPy / CuPy views).  The views self pins for its interface dicts must not (a cycle). */
static PyObject *pv_view(PyObject *self) {
  PyObject *view = pview_new(PV(self)->v, NULL);
  if (view) ((pview_object *)view)->source = Py_NewRef(self);
  return view;
}

static PyObject *pv_dlpack(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  PyObject *view = pv_view(self);
  if (!view) return NULL;
  PyObject *r = pview_dlpack(view, args, nargs, kwnames);
  Py_DECREF(view);
  return r;
}
static PyObject *pv_dlpack_device(PyObject *self, PyObject *noargs) {
  (void)noargs;
  PyObject *view = pv_view(self);
  if (!view) return NULL;
  PyObject *r = pview_dlpack_device(view, NULL);
  Py_DECREF(view);
  return r;
}

static PyObject *pv_to_numpy(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  int copy = bfpy_copy_arg(args, nargs, kwnames);
  if (copy < 0) return NULL;
  if (bf_podvec_size(PV(self)->v) == 0) {
    PyErr_SetString(PyExc_ValueError, "Vector is empty.");
    return NULL;
  }
  PyObject *view = pv_view(self);
  if (!view) return NULL;
  PyObject *r = bfpy_podview_to_numpy(view, copy);
  Py_DECREF(view);
  return r;
}
static PyObject *pv_to_cupy(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  int copy = bfpy_copy_arg(args, nargs, kwnames);
  if (copy < 0) return NULL;
  if (bf_podvec_size(PV(self)->v) == 0) {
    PyErr_SetString(PyExc_ValueError, "Vector is empty.");
    return NULL;
  }
  PyObject *view = pv_view(self);
  if (!view) return NULL;
  PyObject *r = bfpy_podview_to_cupy(view, copy);
  Py_DECREF(view);
  return r;
}
static PyObject *pv_to_xp(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  if (bf_gpu_available()) return pv_to_cupy(self, args, nargs, kwnames);
  return pv_to_numpy(self, args, nargs, kwnames);
}

/* ---- copies in: the C side of from_array / copy_from (python/boxfab/_podvector.py) -------- */
/* The source of a copy: a PODVector of the same element kind, or a 1-D contiguous array of
 * exactly this element type, through anything Array4 imports (DLPack, the CUDA or NumPy array
 * interface, the buffer protocol; the import waits for the producer's stream). */
typedef struct {
  const bf_podvec *pv; /* a PODVector, or NULL */
  const void *p;       /* else its first element */
  int64_t n;
  bool device;         /* p is memory the host cannot read */
  PyObject *hold;      /* keeps p alive while copying (the imported Array4) */
} pv_src;

static int pv_source(PyObject *self, PyObject *src, pv_src *s, const char *what) {
  memset(s, 0, sizeof *s);
  const pvec_object *o = PV(self);
  if (bfpy_is(src, BFPY_T_PODVECTOR, -1)) {
    if (PV(src)->pv != o->pv) {
      PyErr_Format(PyExc_TypeError, "%s: a PODVector of '%s' elements into one of '%s' elements needs a cast", what,
                   pv_kinds[PV(src)->pv].name, pv_kinds[o->pv].name);
      return -1;
    }
    s->pv = PV(src)->v;
    s->n = bf_podvec_size(s->pv);
    return 0;
  }
  PyTypeObject *t = bfpy_array4_types[o->dim][pv_kinds[o->pv].dtype][1];
  PyObject *a = PyObject_CallOneArg((PyObject *)t, src);
  if (!a) return -1;
  const bf_array4 *v = bfpy_array4_view(a);
  const int64_t n = bf_array4_length(v, 0);
  if (bf_array4_length(v, 1) != 1 || bf_array4_length(v, 2) != 1 || v->ncomp != 1 || (n > 1 && v->istride != 1)) {
    PyErr_Format(PyExc_ValueError, "%s: the source must be a contiguous 1-D array", what);
    Py_DECREF(a);
    return -1;
  }
  s->p = v->p;
  s->n = n;
  s->device = !bfpy_mem_host_accessible(((bfpy_array4_object *)a)->memory);
  s->hold = a;
  return 0;
}

static int pv_copy_src(bf_podvec *dst, int64_t off, const pv_src *s) {
  if (s->pv) return bfpy_check(bf_podvec_copy(dst, off, s->pv, 0, s->n));
  if (s->device) return bfpy_check(bf_podvec_write_device(dst, off, s->n, s->p));
  return bfpy_check(bf_podvec_write(dst, off, s->n, s->p));
}

/* v._copy_in(offset, src): elements [offset, offset + len(src)) = src; IndexError (nothing
 * written) when they do not fit. */
static PyObject *pv_copy_in(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs != 2) return PyErr_Format(PyExc_TypeError, "_copy_in(offset, src) takes 2 arguments, got %zd", nargs);
  int64_t off;
  pv_src s;
  if (bfpy_to_int64(args[0], &off, "offset") < 0 || pv_source(self, args[1], &s, "copy_from") < 0) return NULL;
  int64_t size = bf_podvec_size(PV(self)->v);
  int r = 0;
  if (off < 0 || off > size || s.n > size - off) {
    PyErr_Format(PyExc_IndexError, "copy_from: %lld elements at offset %lld do not fit in a %s of size %lld",
                 (long long)s.n, (long long)off, pv_name(self), (long long)size);
    r = -1;
  } else {
    r = pv_copy_src(PV(self)->v, off, &s);
  }
  Py_XDECREF(s.hold);
  if (r < 0) return NULL;
  Py_RETURN_NONE;
}

/* cls._new_copy(src): a new cls holding a copy of src's elements (not zeroed first: one pass). */
static PyObject *pv_new_copy(PyObject *cls, PyObject *src) {
  PyObject *o = PyObject_CallNoArgs(cls);
  if (!o) return NULL;
  if (!bfpy_is(o, BFPY_T_PODVECTOR, -1)) {
    Py_DECREF(o);
    return PyErr_Format(PyExc_TypeError, "%.100s() did not make a PODVector", ((PyTypeObject *)cls)->tp_name);
  }
  pv_src s;
  if (pv_source(o, src, &s, "from_array") < 0) {
    Py_DECREF(o);
    return NULL;
  }
  int r = bfpy_check(bf_podvec_resize_uninit(PV(o)->v, s.n));
  if (r == 0) r = pv_copy_src(PV(o)->v, 0, &s);
  Py_XDECREF(s.hold);
  if (r < 0) Py_CLEAR(o);
  return o;
}

static PyObject *pv_repr(PyObject *self) {
  pvec_object *o = PV(self);
  int64_t n = bf_podvec_size(o->v);
  char head[160];
  snprintf(head, sizeof head, "<amrex.PODVector of type '%s' and size '%lld'>\n[ ", pv_kinds[o->pv].name,
           (long long)n);
  PyObject *parts = PyList_New(0);
  if (!parts) return NULL;
  PyObject *s = PyUnicode_FromString(head);
  if (!s || PyList_Append(parts, s) < 0) goto fail;
  Py_CLEAR(s);
  const int64_t show = n > 1000 ? 1000 : n;
  for (int64_t i = 0; i < show; ++i) {
    unsigned char buf[8];
    if (bfpy_check(bf_podvec_get(o->v, i, buf)) < 0) goto fail;
    PyObject *e = pv_elem(o->pv, buf);
    PyObject *r = e ? PyObject_Str(e) : NULL;
    Py_XDECREF(e);
    if (!r || PyList_Append(parts, r) < 0) {
      Py_XDECREF(r);
      goto fail;
    }
    Py_DECREF(r);
  }
  if (show < n) {
    s = PyUnicode_FromString("...");
    if (!s || PyList_Append(parts, s) < 0) goto fail;
    Py_CLEAR(s);
  }
  PyObject *sep = PyUnicode_FromString(" ");
  if (!sep) goto fail;
  /* "[ " + "a b c" + " ]\n" */
  PyObject *first = PyList_GET_ITEM(parts, 0);
  PyObject *rest = PyList_GetSlice(parts, 1, PyList_GET_SIZE(parts));
  PyObject *body = rest ? PyUnicode_Join(sep, rest) : NULL;
  Py_XDECREF(rest);
  Py_DECREF(sep);
  PyObject *out = body ? PyUnicode_FromFormat("%U%U%s]\n", first, body, show > 0 ? " " : "") : NULL;
  Py_XDECREF(body);
  Py_DECREF(parts);
  return out;
fail:
  Py_XDECREF(s);
  Py_DECREF(parts);
  return NULL;
}

static PyMethodDef pv_methods[] = {
    {"assign", (PyCFunction)(void (*)(void))pv_assign, METH_FASTCALL | METH_KEYWORDS,
     "assign(value) -> None: assign the same value to every element."},
    {"push_back", pv_push_back, METH_O, "push_back(value, /) -> None: append one element."},
    {"pop_back", pv_pop_back, METH_NOARGS, "pop_back() -> None: remove the last element (IndexError when empty)."},
    {"clear", pv_clear, METH_NOARGS, "clear() -> None: remove every element."},
    {"size", pv_size, METH_NOARGS, "size() -> int: number of elements."},
    {"capacity", pv_capacity, METH_NOARGS, "capacity() -> int: elements that fit without a reallocation."},
    {"empty", pv_empty, METH_NOARGS, "empty() -> bool: no elements."},
    {"resize", (PyCFunction)(void (*)(void))pv_resize, METH_FASTCALL | METH_KEYWORDS,
     "resize(size, /) / resize(size, value, /) -> None: new elements are 0 (or value)."},
    {"reserve", pv_reserve, METH_O, "reserve(capacity, /) -> None."},
    {"shrink_to_fit", pv_shrink_to_fit, METH_NOARGS, "shrink_to_fit() -> None: capacity = size."},
    {"to_host", pv_to_host, METH_NOARGS, "to_host() -> PODVector_<T>_pinned: a copy in host (pinned) memory."},
    {"to_numpy", (PyCFunction)(void (*)(void))pv_to_numpy, METH_FASTCALL | METH_KEYWORDS,
     "to_numpy(copy=False) -> numpy.ndarray: a 1-D view (or copy) of the elements; ValueError when empty."},
    {"to_cupy", (PyCFunction)(void (*)(void))pv_to_cupy, METH_FASTCALL | METH_KEYWORDS,
     "to_cupy(copy=False) -> cupy.ndarray: a 1-D view (or copy) on the GPU; ValueError when empty."},
    {"to_xp", (PyCFunction)(void (*)(void))pv_to_xp, METH_FASTCALL | METH_KEYWORDS,
     "to_xp(copy=False): to_cupy when Config.have_gpu, else to_numpy."},
    {"__dlpack__", (PyCFunction)(void (*)(void))pv_dlpack, METH_FASTCALL | METH_KEYWORDS,
     "__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None) -> PyCapsule."},
    {"__dlpack_device__", pv_dlpack_device, METH_NOARGS, "__dlpack_device__() -> (device_type, device_id)."},
    {"_copy_in", (PyCFunction)(void (*)(void))pv_copy_in, METH_FASTCALL,
     "_copy_in(offset, src, /): copy a PODVector of the same element type, or a contiguous 1-D array of exactly "
     "this element type in any memory, to [offset, offset + len(src)) (internal: see copy_from)."},
    {"_new_copy", pv_new_copy, METH_O | METH_CLASS,
     "_new_copy(src, /): a new vector holding a copy of src, as _copy_in takes it (internal: see from_array)."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef pv_getset[] = {
    {"__array_interface__", pv_array_interface, NULL, "NumPy array interface v3 (host memory).", NULL},
    {"__cuda_array_interface__", pv_cuda_array_interface, NULL, "CUDA array interface v3 (device memory).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot pv_base_slots[] = {
    {Py_tp_doc, "Base of the PODVector_<T>_<alloc> types (not instantiable)."},
    {Py_tp_new, pv_new},
    {Py_tp_init, pv_init},
    {Py_tp_dealloc, pv_dealloc},
    {Py_tp_traverse, pv_traverse},
    {Py_tp_clear, pv_clear_refs},
    {Py_tp_repr, pv_repr},
    {Py_tp_methods, pv_methods},
    {Py_tp_getset, pv_getset},
    {Py_mp_subscript, pv_getitem},
    {Py_mp_ass_subscript, pv_setitem},
    {Py_mp_length, pv_len},
    {Py_sq_length, pv_len},
    {Py_sq_item, pv_sq_item},
    {Py_bf_getbuffer, pv_getbuffer},
    {0, NULL},
};

static PyType_Spec pv_base_spec = {.name = "_PODVector",
                                   .basicsize = sizeof(pvec_object),
                                   .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
                                   .slots = pv_base_slots};

static PyType_Slot pv_sub_slots[] = {
    {Py_tp_doc, "PODVector_<T>_<alloc>() / (size: int) / (other): a 1-D growable vector of real (float64), int "
                "(int32) or uint64 elements in the memory of its allocator.\nIndices are checked (IndexError); "
                "views (to_numpy, __array_interface__, __dlpack__, ...) keep the storage they show alive."},
    {0, NULL},
};

int bfpy_init_podvector(PyObject *m, int dim) {
  if (dim == 1 && !bfpy_make_type(NULL, 0, BFPY_T_PODVIEW, "_PODView", &pview_spec, NULL)) return -1;
  PyTypeObject *base = bfpy_make_type(NULL, dim, BFPY_T_PODVECTOR, "_PODVector", &pv_base_spec, NULL);
  if (!base) return -1;
  PyObject *bases = PyTuple_Pack(1, (PyObject *)base);
  if (!bases) return -1;
  for (int k = 0; k < BFPY_NPV; ++k)
    for (int a = 0; a < BFPY_NALLOC; ++a) {
      if (a == BFPY_ALLOC_DEFAULT) continue; /* pyAMReX has no PODVector_*_default */
      char *name = pv_type_names[dim][k][a];
      snprintf(name, sizeof pv_type_names[0][0][0], "boxfab.space%dd.PODVector_%s_%s", dim, pv_kinds[k].name,
               alloc_names[a]);
      PyType_Spec spec = {.name = name,
                          .basicsize = sizeof(pvec_object),
                          .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                          .slots = pv_sub_slots};
      PyTypeObject *type = (PyTypeObject *)PyType_FromSpecWithBases(&spec, bases);
      if (!type) {
        Py_DECREF(bases);
        return -1;
      }
      pv_types[dim][k][a] = type;
      Py_INCREF(type);
      if (PyModule_AddObject(m, strrchr(name, '.') + 1, (PyObject *)type) < 0) {
        Py_DECREF(type);
        Py_DECREF(bases);
        return -1;
      }
    }
  Py_DECREF(bases);
  return 0;
}
