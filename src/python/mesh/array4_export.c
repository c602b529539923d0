/* boxfab._core: what an Array4 hands out — __array_interface__, the buffer
 * protocol, __cuda_array_interface__, __dlpack__ / __dlpack_device__
 * (INTEROP.md), to_host, to_numpy, to_cupy, to_xp.  Every export keeps the
 * Array4 (and so its owner) alive: the buffer protocol through view->obj,
 * DLPack through manager_ctx, NumPy views through the buffer protocol, CuPy /
 * Numba / PyTorch views of __cuda_array_interface__ by holding the Array4.
 *
 * Memory kinds (the Array4's `memory`) and what each protocol offers:
 *   host     __array_interface__, buffer, DLPack kDLCPU; no CAI (AttributeError)
 *   pinned   __array_interface__, buffer, DLPack kDLCUDAHost (or kDLCPU when the
 *            consumer asks for dl_device=(1, 0)); no CAI: INTEROP.md keeps CAI for
 *            device and managed memory
 *   managed  __array_interface__, buffer (host accessible), CAI, DLPack
 *            kDLCUDAManaged (or kDLCPU on request)
 *   device   CAI, DLPack kDLCUDA; __array_interface__ raises AttributeError and
 *            the buffer protocol BufferError (the host cannot touch it)
 * Host exports of pinned / managed memory first wait for boxfab's stream, so
 * the host never reads data a boxfab kernel is still writing. */
#include <stdlib.h>
#include <string.h>

#include "mesh/export.h"
#include "boxfab/gpu.h"

static inline bfpy_array4_object *A4(PyObject *o) { return (bfpy_array4_object *)o; }

void bfpy_array4_shape(const bf_array4 *a, int64_t shape[4], int64_t strides[4]) {
  /* True extents: a zero extent stays 0 (exporting it as 1 would let a
   * consumer read memory that is not there). */
  shape[0] = a->ncomp;
  shape[1] = bf_array4_length(a, 2);
  shape[2] = bf_array4_length(a, 1);
  shape[3] = bf_array4_length(a, 0);
  strides[0] = a->nstride;
  strides[1] = a->kstride;
  strides[2] = a->jstride;
  strides[3] = a->istride;
}

static bool a4_host_accessible(const bfpy_array4_object *o) { return bfpy_mem_host_accessible(o->memory); }

/* ---- __array_interface__ / __cuda_array_interface__ ------------------------------- */
/* The dict of bfpy_x_interface_dict (mesh/export.c: its hot path, one dict
 * per box in a Python loop, is there).  Never read-only, also for _const
 * (API.md 2.2; PyTorch refuses readonly=True). */
static PyObject *a4_interface_dict(bfpy_array4_object *self) {
  bfpy_xview v = {.p = self->a.p, .dtype = self->a.dtype, .memory = self->memory, .ndim = 4};
  bfpy_array4_shape(&self->a, v.shape, v.strides);
  return bfpy_x_interface_dict(&v);
}

PyObject *bfpy_array4_array_interface(PyObject *self, void *closure) {
  (void)closure;
  if (A4(self)->memory == BFPY_MEM_DEVICE) {
    PyErr_SetString(PyExc_AttributeError,
                    "__array_interface__: this Array4 views device memory (use __cuda_array_interface__, "
                    "__dlpack__ or to_host())");
    return NULL;
  }
  if (bfpy_mem_sync_host(A4(self)->memory) < 0) return NULL;
  return a4_interface_dict(A4(self));
}

PyObject *bfpy_array4_cuda_array_interface(PyObject *self, void *closure) {
  (void)closure;
  if (A4(self)->memory == BFPY_MEM_HOST || A4(self)->memory == BFPY_MEM_PINNED) {
    PyErr_SetString(PyExc_AttributeError,
                    "__cuda_array_interface__: this Array4 views host memory (use __array_interface__)");
    return NULL;
  }
  PyObject *d = a4_interface_dict(A4(self));
  PyObject *stream = d ? bfpy_cuda_stream_field() : NULL; /* None when no boxfab work is pending */
  if (!stream || PyDict_SetItemString(d, "stream", stream) < 0) Py_CLEAR(d);
  Py_XDECREF(stream);
  return d;
}

/* ---- buffer protocol --------------------------------------------------------------- */
static char a4_empty_buffer[16];

int bfpy_array4_getbuffer(PyObject *self_o, Py_buffer *view, int flags) {
  bfpy_array4_object *self = A4(self_o);
  view->obj = NULL;
  if (!a4_host_accessible(self)) {
    PyErr_SetString(PyExc_BufferError,
                    "this Array4 views device memory: no buffer protocol (use __cuda_array_interface__, __dlpack__ "
                    "or to_host())");
    return -1;
  }
  if (bfpy_mem_sync_host(self->memory) < 0) return -1;
  const bool ro = self->flags & BFPY_A4_CONST;
  if (ro && (flags & PyBUF_WRITABLE)) {
    PyErr_Format(PyExc_BufferError, "%s is read-only: a writable buffer was requested", Py_TYPE(self)->tp_name);
    return -1;
  }
  const bfpy_a4_kind *k = &bfpy_a4_kinds[self->a.dtype];
  int64_t shape[4], strides[4];
  bfpy_array4_shape(&self->a, shape, strides);
  if (self->exports == 0)
    for (int d = 0; d < 4; ++d) {
      self->bshape[d] = (Py_ssize_t)shape[d];
      self->bstrides[d] = (Py_ssize_t)(strides[d] * (int64_t)k->itemsize);
    }
  view->buf = self->a.p ? self->a.p : a4_empty_buffer;
  view->len = (Py_ssize_t)(bf_array4_size(&self->a) * (int64_t)k->itemsize);
  view->readonly = ro;
  view->itemsize = (Py_ssize_t)k->itemsize;
  view->format = (flags & PyBUF_FORMAT) ? (char *)k->format : NULL;
  view->ndim = 4;
  view->shape = self->bshape;
  view->strides = self->bstrides;
  view->suboffsets = NULL;
  view->internal = NULL;
  const char *need = NULL;
  if ((flags & PyBUF_C_CONTIGUOUS) == PyBUF_C_CONTIGUOUS) need = "C";
  else if ((flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS) need = "F";
  else if ((flags & PyBUF_ANY_CONTIGUOUS) == PyBUF_ANY_CONTIGUOUS) need = "A";
  else if (!(flags & PyBUF_STRIDES)) need = "C"; /* without strides only C order can be described */
  if (need && !PyBuffer_IsContiguous(view, need[0])) {
    PyErr_Format(PyExc_BufferError, "%s is not %s-contiguous: request a strided buffer", Py_TYPE(self)->tp_name,
                 need[0] == 'A' ? "C- or F" : need);
    return -1;
  }
  if (!(flags & PyBUF_STRIDES)) view->strides = NULL;
  if (!(flags & PyBUF_ND)) {
    view->shape = NULL;
    view->ndim = 1;
  }
  view->obj = Py_NewRef(self_o);
  self->exports++;
  return 0;
}

void bfpy_array4_releasebuffer(PyObject *self, Py_buffer *view) {
  (void)view;
  A4(self)->exports--;
}

/* ---- DLPack (the export itself: mesh/export.c) ---------------------------------------- */
int bfpy_python_alive(void) {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsInitialized() && !Py_IsFinalizing();
#else
  return Py_IsInitialized() && !_Py_IsFinalizing();
#endif
}

bool bfpy_dl_release(PyObject **exporter, void **copy, bf_buffer **dcopy) {
  if (*exporter) {
    if (!bfpy_python_alive()) return false; /* the interpreter is gone: leak rather than touch it */
    PyGILState_STATE g = PyGILState_Ensure();
    Py_CLEAR(*exporter);
    PyGILState_Release(g);
  }
  free(*copy);
  *copy = NULL;
  bf_buffer_destroy(dcopy);
  return true;
}

static void a4_capsule_destructor(PyObject *cap, const char *name, bool versioned) {
  if (!PyCapsule_IsValid(cap, name)) return; /* renamed: the consumer owns the tensor */
  PyObject *et, *ev, *tb;
  PyErr_Fetch(&et, &ev, &tb);
  void *p = PyCapsule_GetPointer(cap, name);
  if (p) {
    if (versioned) {
      DLManagedTensorVersioned *m = p;
      if (m->deleter) m->deleter(m);
    } else {
      DLManagedTensor *m = p;
      if (m->deleter) m->deleter(m);
    }
  }
  PyErr_Restore(et, ev, tb);
}

void bfpy_dl_capsule_destructor_legacy(PyObject *cap) { a4_capsule_destructor(cap, "dltensor", false); }
void bfpy_dl_capsule_destructor_versioned(PyObject *cap) {
  a4_capsule_destructor(cap, "dltensor_versioned", true);
}

PyObject *bfpy_array4_dlpack_device(PyObject *self, PyObject *noargs) {
  (void)noargs;
  int type, id;
  bfpy_x_dlpack_device(A4(self)->memory, &type, &id);
  return Py_BuildValue("(ii)", type, id);
}

/* A copy of an Array4 in C order through bfpy_array4_copy_out (GPU memory brought over in one span). */
static int a4_copy_out(const void *self, void *dst) {
  const bfpy_array4_object *o = self;
  return bfpy_array4_copy_out(&o->a, o->memory, dst);
}

PyObject *bfpy_array4_dlpack(PyObject *self_o, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  bfpy_array4_object *self = A4(self_o);
  bfpy_xview v = {.p = self->a.p, .dtype = self->a.dtype, .memory = self->memory,
                  .readonly = (self->flags & BFPY_A4_CONST) != 0, .ndim = 4, .copy_out = a4_copy_out,
                  .copy_arg = self};
  bfpy_array4_shape(&self->a, v.shape, v.strides);
  return bfpy_x_dlpack(self_o, &v, args, nargs, kwnames);
}

/* ---- to_host / to_numpy / to_cupy / to_xp ---------------------------------------------- */
PyObject *bfpy_array4_to_host(PyObject *self_o, PyObject *noargs) {
  (void)noargs;
  bfpy_array4_object *self = A4(self_o);
  int64_t shape[4], strides[4];
  bfpy_array4_shape(&self->a, shape, strides);
  PyObject *np = PyImport_ImportModule("numpy");
  if (!np) return NULL;
  PyObject *arr = PyObject_CallMethod(np, "empty", "((LLLL)s)", (long long)shape[0], (long long)shape[1],
                                      (long long)shape[2], (long long)shape[3], bfpy_a4_kinds[self->a.dtype].typestr);
  Py_DECREF(np);
  if (!arr) return NULL;
  Py_buffer b;
  if (PyObject_GetBuffer(arr, &b, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
    Py_DECREF(arr);
    return NULL;
  }
  /* GPU memory: through bf_gpu_memcpy on boxfab's stream (after its pending work) */
  int st = bfpy_array4_copy_out(&self->a, self->memory, b.buf);
  PyBuffer_Release(&b);
  if (st < 0) Py_CLEAR(arr);
  return arr;
}

/* __array__(dtype=None, copy=None): NumPy's last resort after the buffer
 * protocol and __array_interface__.  For host-accessible memory those two
 * already succeed, so this only answers a direct call: a zero-copy view
 * (through the buffer protocol), cast to dtype and copied as asked.  For
 * device memory both fail (BufferError, AttributeError), and NumPy then made
 * a 0-d object array holding the Array4; as CuPy's ndarray.__array__ does,
 * this raises TypeError naming the explicit ways to the host instead. */
PyObject *bfpy_array4_array(PyObject *self_o, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"dtype", "copy", NULL};
  PyObject *a[2];
  if (bfpy_bind(args, nargs, kwnames, names, 0, a, true) < 0) return NULL;
  bfpy_array4_object *self = A4(self_o);
  const char *tn = strrchr(Py_TYPE(self)->tp_name, '.');
  tn = tn ? tn + 1 : Py_TYPE(self)->tp_name;
  if (!a4_host_accessible(self))
    return PyErr_Format(PyExc_TypeError,
                        "%s views GPU device memory: NumPy cannot read it in place (implicit conversion to a NumPy "
                        "array is not allowed); copy it explicitly with to_host() (or to_numpy(copy=True)), or view "
                        "it on the GPU with to_cupy()",
                        tn);
  int copy = -1; /* None */
  if (a[1] && a[1] != Py_None && (copy = PyObject_IsTrue(a[1])) < 0) return NULL;
  PyObject *np = PyImport_ImportModule("numpy");
  if (!np) return NULL;
  PyObject *mv = PyMemoryView_FromObject(self_o), *arr = NULL, *cast = NULL;
  if (mv) arr = PyObject_CallMethod(np, "asarray", "O", mv);
  Py_XDECREF(mv);
  if (arr && a[0] && a[0] != Py_None) {
    cast = PyObject_CallMethod(arr, "astype", "Os", a[0], "K");
    PyObject *v = cast ? PyObject_CallMethod(np, "shares_memory", "OO", cast, arr) : NULL;
    int shared = v ? PyObject_IsTrue(v) : -1;
    Py_XDECREF(v);
    if (shared == 0 && copy == 0) {
      PyErr_Format(PyExc_ValueError, "%s.__array__: dtype %R needs a copy, and copy=False forbids one", tn, a[0]);
      Py_CLEAR(cast);
    } else if (shared < 0) {
      Py_CLEAR(cast);
    }
    if (shared == 0) copy = 0; /* astype made the copy */
    Py_SETREF(arr, cast);
  }
  if (arr && copy == 1) Py_SETREF(arr, PyObject_CallMethod(arr, "copy", NULL));
  Py_DECREF(np);
  return arr;
}

static PyObject *a4_order(PyObject *arr, bool c_order) {
  if (!arr || c_order) return arr;
  static PyObject *name_T; /* interned once: this is on the per-box path */
  if (!name_T && !(name_T = PyUnicode_InternFromString("T"))) {
    Py_DECREF(arr);
    return NULL;
  }
  PyObject *t = PyObject_GetAttr(arr, name_T);
  Py_DECREF(arr);
  return t;
}

PyObject *bfpy_array4_to_numpy(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  int copy;
  bool c_order;
  if (bfpy_x_copy_order(args, nargs, kwnames, &copy, &c_order) < 0) return NULL;
  if (copy) return a4_order(bfpy_array4_to_host(self, NULL), c_order);
  if (!a4_host_accessible(A4(self))) {
    PyErr_SetString(PyExc_ValueError, "to_numpy: this Array4 views device memory, so no NumPy view exists; use "
                                      "to_cupy(), to_xp(), to_host() or to_numpy(copy=True)");
    return NULL;
  }
  /* numpy.asarray, looked up once (the per-box path of `for mfi in mf:` loops) */
  static PyObject *np_asarray;
  if (!np_asarray) {
    PyObject *np = PyImport_ImportModule("numpy");
    if (!np) return NULL;
    np_asarray = PyObject_GetAttrString(np, "asarray");
    Py_DECREF(np);
    if (!np_asarray) return NULL;
  }
  /* a view through the buffer protocol: the array's base keeps this Array4 alive */
  PyObject *arr = PyObject_CallOneArg(np_asarray, self);
  return a4_order(arr, c_order);
}

/* A CuPy view of device or managed memory made directly (UnownedMemory with
 * the device id, a MemoryPointer, an ndarray): no __cuda_array_interface__
 * dict to build and parse and no pointer-attribute query, which is what
 * makes `for mfi in mf: mf.array(mfi).to_cupy()` cheap per box.  The view
 * holds this Array4 (UnownedMemory's owner), which holds the memory.  CuPy's
 * work must see boxfab's: pending boxfab work is waited for first.  Returns
 * NULL without an exception when this CuPy lacks the pieces, or for a
 * zero-size view (use asarray).  `c_order`: the C-ordered view (comp, z, y,
 * x); otherwise its transpose, made directly (shape and strides reversed)
 * rather than through .T, which would make a second array per box. */
static PyObject *a4_cupy_view(PyObject *self, PyObject *cp, bool c_order) {
  static PyObject *unowned, *memptr, *ndarray;
  if (!ndarray) {
    PyObject *cuda = PyObject_GetAttrString(cp, "cuda");
    PyObject *u = cuda ? PyObject_GetAttrString(cuda, "UnownedMemory") : NULL;
    PyObject *m = cuda ? PyObject_GetAttrString(cuda, "MemoryPointer") : NULL;
    PyObject *n = PyObject_GetAttrString(cp, "ndarray");
    Py_XDECREF(cuda);
    if (!u || !m || !n) {
      Py_XDECREF(u), Py_XDECREF(m), Py_XDECREF(n);
      PyErr_Clear();
      return NULL;
    }
    unowned = u, memptr = m, ndarray = n;
  }
  bfpy_array4_object *o = A4(self);
  int64_t lo, hi, shape[4], strides[4];
  bfpy_array4_span(&o->a, &lo, &hi);
  if (hi <= lo) return NULL; /* zero-size: CuPy's own path (pointer 0) */
  if (!bf_gpu_stream_idle() && bfpy_check(bf_gpu_synchronize()) < 0) return NULL;
  const bfpy_a4_kind *k = &bfpy_a4_kinds[o->a.dtype];
  const long long is = (long long)k->itemsize;
  bfpy_array4_shape(&o->a, shape, strides);
  char *base = (char *)o->a.p + lo * is; /* the lowest element the view reaches (strides may be negative) */
  PyObject *mem = PyObject_CallFunction(unowned, "KLOi", (unsigned long long)(uintptr_t)base,
                                        (long long)((hi - lo) * is), self, bf_gpu_device_id());
  PyObject *mp = mem ? PyObject_CallFunction(memptr, "OL", mem, (long long)(-lo * is)) : NULL;
  Py_XDECREF(mem);
  const int o0 = c_order ? 0 : 3, o1 = c_order ? 1 : 2, o2 = c_order ? 2 : 1, o3 = c_order ? 3 : 0;
  PyObject *arr = mp ? PyObject_CallFunction(ndarray, "(LLLL)sO(LLLL)", (long long)shape[o0], (long long)shape[o1],
                                             (long long)shape[o2], (long long)shape[o3], k->typestr, mp,
                                             (long long)strides[o0] * is, (long long)strides[o1] * is,
                                             (long long)strides[o2] * is, (long long)strides[o3] * is)
                    : NULL;
  Py_XDECREF(mp);
  if (!arr && !PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "to_cupy: CuPy made no array");
  return arr;
}

PyObject *bfpy_array4_to_cupy(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  int copy;
  bool c_order;
  if (bfpy_x_copy_order(args, nargs, kwnames, &copy, &c_order) < 0) return NULL;
  /* sys.modules first (a dict lookup; the import machinery costs more on the per-box path) */
  static PyObject *name_cupy;
  if (!name_cupy && !(name_cupy = PyUnicode_InternFromString("cupy"))) return NULL;
  PyObject *cp = PyImport_GetModule(name_cupy);
  if (!cp && !PyErr_Occurred()) cp = PyImport_Import(name_cupy);
  if (!cp) return NULL; /* ImportError without CuPy */
  bool ordered = false; /* arr is already in the order asked for */
  bfpy_xview v = {.p = NULL, .dtype = A4(self)->a.dtype, .memory = A4(self)->memory, .ndim = 4};
  PyObject *view = NULL;
  if (v.memory != BFPY_MEM_HOST && v.memory != BFPY_MEM_PINNED) {
    /* a view: made in the order asked for; a copy: of the C-ordered view, then ordered (F-contiguous for "F") */
    view = a4_cupy_view(self, cp, c_order || copy);
    ordered = view && !copy;
    if (!view) bfpy_array4_shape(&A4(self)->a, v.shape, v.strides); /* for the import of the interface */
  }
  PyObject *arr = bfpy_x_to_cupy(cp, self, &v, "Array4", copy, view, bfpy_array4_to_host);
  Py_DECREF(cp);
  return ordered ? arr : a4_order(arr, c_order);
}

PyObject *bfpy_array4_to_xp(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  /* Config.have_gpu, read from the C library (the per-box path of to_xp loops) */
  if (bf_gpu_available()) return bfpy_array4_to_cupy(self, args, nargs, kwnames);
  return bfpy_array4_to_numpy(self, args, nargs, kwnames);
}
