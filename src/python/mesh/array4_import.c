/* boxfab._core: Array4_<T>(obj) — a view of a foreign array without copying.
 *
 * Protocols in order of preference (INTEROP.md): __dlpack__ (for CUDA data
 * called with stream = boxfab's stream, so that the producer makes boxfab's
 * stream wait for its pending work, and max_version=(1, 0); again with fewer
 * keywords on TypeError; a BufferError lets the next protocol try),
 * __cuda_array_interface__ (boxfab's stream waits for the `stream` it names;
 * needs a GPU), __array_interface__, the buffer protocol.  The memory kind of
 * the view (BFPY_MEM_*) comes from the DLPack device type, or for CAI from
 * CUDA's pointer attributes.  JAX arrays are immutable: their views are
 * read-only (only Array4_<T>_const takes them), also when the capsule does
 * not carry DLPack's READ_ONLY flag.  1 to 4 dimensions (nc, nz, ny, nx), missing leading ones of
 * extent 1; any strides that are whole elements (zero and negative too);
 * lbound (0, 0, 0).  The Array4 keeps alive what keeps the memory alive:
 * the DLPack managed tensor (its deleter runs when the last view goes), the
 * object of the array interface, or a memoryview holding the buffer. */
#include <stdlib.h>
#include <string.h>

#include "mesh/array4.h"
#include "boxfab/gpu.h"

static const char *a4_tname(const bfpy_array4_object *self) {
  const char *n = strrchr(Py_TYPE(self)->tp_name, '.');
  return n ? n + 1 : Py_TYPE(self)->tp_name;
}

/* The element type of self as NumPy would name it, for messages. */
static void a4_expected(const bfpy_array4_object *self, char *buf, size_t n) {
  const bfpy_a4_kind *k = &bfpy_a4_kinds[self->a.dtype];
  const char *kn = k->kind == 'f' ? "float" : k->kind == 'c' ? "complex" : k->kind == 'i' ? "int" : "uint";
  snprintf(buf, n, "%s%zu (typestr %s)", kn, 8 * k->itemsize, k->typestr);
}

static int a4_check_dtype(const bfpy_array4_object *self, char kind, size_t itemsize, const char *got,
                          const char *via) {
  const bfpy_a4_kind *k = &bfpy_a4_kinds[self->a.dtype];
  if (kind == k->kind && itemsize == k->itemsize) return 0;
  char exp[48];
  a4_expected(self, exp, sizeof exp);
  PyErr_Format(PyExc_TypeError, "%s: element type mismatch: expected %s data, got %s (through %s)", a4_tname(self),
               exp, got, via);
  return -1;
}

/* Set the view of `self` from a strided n-D array (strides in elements). */
static int a4_fill(bfpy_array4_object *self, void *data, int ndim, const int64_t *shape, const int64_t *strides,
                   bool readonly, PyObject *owner, int memory, const char *via) {
  if (ndim < 1 || ndim > 4) {
    PyErr_Format(PyExc_ValueError, "%s: the array must have 1 to 4 dimensions ((nc, nz, ny, nx) with leading ones "
                 "optional), got %d (through %s)", a4_tname(self), ndim, via);
    return -1;
  }
  const bool is_const = self->flags & BFPY_A4_CONST;
  if (readonly && !is_const) {
    PyErr_Format(PyExc_ValueError, "%s: the source array is read-only; use %s_const to view it (through %s)",
                 a4_tname(self), a4_tname(self), via);
    return -1;
  }
  int64_t sh[4] = {1, 1, 1, 1}, st[4] = {0, 0, 0, 0};
  for (int d = 0; d < ndim; ++d) {
    sh[4 - ndim + d] = shape[d];
    st[4 - ndim + d] = strides[d];
    if (shape[d] < 0) {
      PyErr_Format(PyExc_ValueError, "%s: negative extent %lld (through %s)", a4_tname(self), (long long)shape[d], via);
      return -1;
    }
  }
  for (int d = 3 - ndim; d >= 0; --d) /* padded axes */
    if (!bf_i64_mul(st[d + 1], sh[d + 1] > 0 ? sh[d + 1] : 1, &st[d])) st[d] = 0; /* extent 1: never used */
  if (sh[0] > INT32_MAX) {
    PyErr_Format(PyExc_OverflowError, "%s: %lld components do not fit in a C int", a4_tname(self), (long long)sh[0]);
    return -1;
  }
  bf_array4 a = bf_array4_empty(self->a.dtype);
  a.p = data;
  a.ncomp = (int)sh[0];
  a.end[2] = sh[1], a.end[1] = sh[2], a.end[0] = sh[3];
  a.nstride = st[0], a.kstride = st[1], a.jstride = st[2], a.istride = st[3];
  if (bf_array4_size(&a) == 0 && !a.p) a.p = NULL;
  if (bfpy_check(bf_array4_check(&a)) < 0) return -1;
  /* replace the view (same steps as a4_set in mesh/array4.c) */
  if (self->exports > 0) {
    PyErr_SetString(PyExc_BufferError, "cannot re-initialize an Array4 while a buffer export of it is alive");
    return -1;
  }
  PyObject *old = self->owner;
  self->a = a;
  self->owner = Py_XNewRef(owner);
  self->flags = (is_const ? BFPY_A4_CONST : 0) | (readonly ? BFPY_A4_SRC_READONLY : 0);
  self->memory = memory;
  Py_XDECREF(old);
  return 0;
}

/* Byte strides into element strides: ValueError when not whole elements. */
static int a4_byte_strides(const bfpy_array4_object *self, int ndim, const int64_t *bytes, int64_t *elems,
                           size_t itemsize, const char *via) {
  for (int d = 0; d < ndim; ++d) {
    if (bytes[d] % (int64_t)itemsize != 0) {
      PyErr_Format(PyExc_ValueError,
                   "%s: stride %lld bytes of axis %d is not a whole number of %zu-byte elements (through %s)",
                   a4_tname(self), (long long)bytes[d], d, itemsize, via);
      return -1;
    }
    elems[d] = bytes[d] / (int64_t)itemsize;
  }
  return 0;
}

/* C-order strides in elements of `shape`; -1 with OverflowError when they do
 * not fit in 64 bits (a shape of (2**62,)*3 wrapped). */
static int a4_c_strides(const bfpy_array4_object *self, int ndim, const int64_t *shape, int64_t *strides,
                        const char *via) {
  int64_t s = 1;
  for (int d = ndim - 1; d >= 0; --d) {
    strides[d] = s;
    if (d > 0 && !bf_i64_mul(s, shape[d] > 0 ? shape[d] : 1, &s)) {
      PyErr_Format(PyExc_OverflowError, "%s: the array's shape is too large: its element count does not fit in 64 "
                   "bits (through %s)", a4_tname(self), via);
      return -1;
    }
  }
  return 0;
}

/* ---- DLPack ---------------------------------------------------------------------- */
/* Runs the producer's deleter, which may run Python code (a ctypes or Cython
 * callback, a Py_DECREF of the producer's array): never with an exception
 * pending (that code would fail with SystemError or clear it), and the
 * pending one, if any, survives. */
static void a4_dl_owner_destructor(PyObject *cap) {
  PyObject *et, *ev, *tb;
  PyErr_Fetch(&et, &ev, &tb);
  void *p = PyCapsule_GetPointer(cap, "boxfab.dlpack_owner");
  if (!p) {
    PyErr_Clear();
  } else if (PyCapsule_GetContext(cap)) {
    DLManagedTensorVersioned *m = p;
    if (m->deleter) m->deleter(m);
  } else {
    DLManagedTensor *m = p;
    if (m->deleter) m->deleter(m);
  }
  if (PyErr_Occurred()) PyErr_WriteUnraisable(cap); /* an error of the deleter itself */
  PyErr_Restore(et, ev, tb);
}

/* Drop `o` (whose destructor may call back into Python) keeping the pending
 * exception as it is. */
static void a4_decref_keeping_error(PyObject *o) {
  PyObject *et, *ev, *tb;
  PyErr_Fetch(&et, &ev, &tb);
  Py_DECREF(o);
  if (PyErr_Occurred()) PyErr_WriteUnraisable(NULL);
  PyErr_Restore(et, ev, tb);
}

/* The producer's __dlpack_device__() type, or kDLCPU when it has none (then no
 * stream is passed).  -1 with an exception on error. */
static int a4_producer_device(PyObject *obj) {
  PyObject *meth = PyObject_GetAttrString(obj, "__dlpack_device__");
  if (!meth) {
    if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return -1; /* not "absent": the producer's error */
    PyErr_Clear();
    return kDLCPU;
  }
  PyObject *r = PyObject_CallNoArgs(meth);
  Py_DECREF(meth);
  if (!r) return -1;
  int t = kDLCPU;
  if (PyTuple_Check(r) && PyTuple_GET_SIZE(r) == 2) {
    PyObject *t_o = PyNumber_Index(PyTuple_GET_ITEM(r, 0)); /* an IntEnum in some libraries */
    if (t_o) {
      t = (int)PyLong_AsLong(t_o);
      Py_DECREF(t_o);
    }
    if (PyErr_Occurred()) t = -1;
  }
  Py_DECREF(r);
  return t;
}

static bool a4_is_cuda_device(int t) { return t == kDLCUDA || t == kDLCUDAManaged || t == kDLCUDAHost; }

/* Call obj.__dlpack__: (stream=boxfab's stream for CUDA data, max_version=(1, 0)),
 * then (stream=...) alone, then no arguments, while the producer raises
 * TypeError (older signatures). */
static PyObject *a4_call_dlpack(PyObject *obj, int dev_type) {
  PyObject *meth = PyObject_GetAttrString(obj, "__dlpack__");
  if (!meth) return NULL;
  PyObject *stream = NULL;
  if (a4_is_cuda_device(dev_type) && bf_gpu_available()) {
    void *s = bf_gpu_stream();
    if (s) stream = PyLong_FromVoidPtr(s);
    if (!stream && PyErr_Occurred()) {
      Py_DECREF(meth);
      return NULL;
    }
  }
  PyObject *kw1 = stream ? Py_BuildValue("{s:O,s:(ii)}", "stream", stream, "max_version", 1, 0)
                         : Py_BuildValue("{s:(ii)}", "max_version", 1, 0);
  PyObject *kw2 = stream ? Py_BuildValue("{s:O}", "stream", stream) : NULL;
  PyObject *empty = PyTuple_New(0), *cap = NULL;
  if (kw1 && empty && (kw2 || !stream)) {
    cap = PyObject_Call(meth, empty, kw1);
    if (!cap && kw2 && PyErr_ExceptionMatches(PyExc_TypeError)) { /* no max_version keyword */
      PyErr_Clear();
      cap = PyObject_Call(meth, empty, kw2);
    }
    if (!cap && PyErr_ExceptionMatches(PyExc_TypeError)) { /* an old producer: no keywords */
      PyErr_Clear();
      cap = PyObject_CallNoArgs(meth);
    }
  }
  Py_XDECREF(kw1), Py_XDECREF(kw2), Py_XDECREF(empty), Py_XDECREF(stream);
  Py_DECREF(meth);
  return cap;
}

/* JAX arrays are immutable, whatever their capsule says. */
static bool a4_immutable_producer(PyObject *obj) {
  PyObject *mod = PyObject_GetAttrString((PyObject *)Py_TYPE(obj), "__module__");
  if (!mod) {
    PyErr_Clear();
    return false;
  }
  bool r = false;
  if (PyUnicode_Check(mod)) {
    const char *m = PyUnicode_AsUTF8(mod);
    if (!m) PyErr_Clear();
    else r = strncmp(m, "jax", 3) == 0 && (m[3] == '\0' || m[3] == '.' || strncmp(m + 3, "lib", 3) == 0);
  }
  Py_DECREF(mod);
  return r;
}

/* The BFPY_MEM_* kind of CUDA data on DLPack device (type, id), or -1 with an
 * exception when boxfab cannot use it. */
static int a4_dl_memory(const bfpy_array4_object *self, int type, int id, const char *via) {
  if (type == kDLCPU) return BFPY_MEM_HOST;
  if (type == kDLCUDAHost) return bf_gpu_available() ? BFPY_MEM_PINNED : BFPY_MEM_HOST;
  if (type != kDLCUDA && type != kDLCUDAManaged) {
    PyErr_Format(PyExc_BufferError, "%s: the data lives on DLPack device (%d, %d), which boxfab cannot use (through %s)",
                 a4_tname(self), type, id, via);
    return -1;
  }
  if (!bf_gpu_available()) {
    PyErr_Format(PyExc_BufferError,
                 "%s: the data lives on CUDA device (%d, %d) but boxfab uses no GPU (none found, a build without "
                 "CUDA, or BOXFAB_DEVICE=cpu) (through %s)",
                 a4_tname(self), type, id, via);
    return -1;
  }
  if (id != bf_gpu_device_id()) {
    PyErr_Format(PyExc_ValueError, "%s: the data lives on CUDA device %d but boxfab works on device %d (through %s)",
                 a4_tname(self), id, bf_gpu_device_id(), via);
    return -1;
  }
  return type == kDLCUDA ? BFPY_MEM_DEVICE : BFPY_MEM_MANAGED;
}

static int a4_dl_dtype(const bfpy_array4_object *self, DLDataType t) {
  char kind = t.code == kDLFloat ? 'f' : t.code == kDLComplex ? 'c' : t.code == kDLInt ? 'i' : t.code == kDLUInt ? 'u' : '?';
  char got[64];
  snprintf(got, sizeof got, "DLPack dtype (code %u, bits %u, lanes %u)", t.code, t.bits, t.lanes);
  if (t.lanes != 1) kind = '?';
  return a4_check_dtype(self, kind, t.bits / 8u, got, "__dlpack__");
}

/* 0: done; -1: error; 1: BufferError from the producer (try the next protocol). */
static int a4_import_dlpack(bfpy_array4_object *self, PyObject *obj) {
  int dev_type = a4_producer_device(obj);
  if (dev_type < 0) return PyErr_ExceptionMatches(PyExc_BufferError) ? 1 : -1;
  if (a4_is_cuda_device(dev_type) && dev_type != kDLCUDAHost && !bf_gpu_available()) {
    PyErr_Format(PyExc_BufferError, "%s: the data lives on CUDA device type %d but boxfab uses no GPU", a4_tname(self),
                 dev_type);
    return 1; /* let __cuda_array_interface__ or the host protocols try */
  }
  PyObject *cap = a4_call_dlpack(obj, dev_type);
  if (!cap) return PyErr_ExceptionMatches(PyExc_BufferError) ? 1 : -1;
  bool versioned;
  void *m;
  DLTensor *dl;
  bool readonly = false;
  if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
    versioned = true;
    DLManagedTensorVersioned *mv = PyCapsule_GetPointer(cap, "dltensor_versioned");
    if (mv->version.major != 1) {
      PyErr_Format(PyExc_BufferError, "%s: DLPack version %u.%u is not supported (1.x is)", a4_tname(self),
                   mv->version.major, mv->version.minor);
      goto fail;
    }
    readonly = mv->flags & DLPACK_FLAG_BITMASK_READ_ONLY;
    dl = &mv->dl_tensor;
    m = mv;
  } else if (PyCapsule_IsValid(cap, "dltensor")) {
    versioned = false;
    DLManagedTensor *ml = PyCapsule_GetPointer(cap, "dltensor");
    dl = &ml->dl_tensor;
    m = ml;
  } else {
    PyErr_Format(PyExc_TypeError, "%s: __dlpack__ of %.100s did not return a DLPack capsule", a4_tname(self),
                 Py_TYPE(obj)->tp_name);
    goto fail;
  }
  int memory = a4_dl_memory(self, (int)dl->device.device_type, (int)dl->device.device_id, "__dlpack__");
  if (memory < 0) goto fail;
  if (a4_immutable_producer(obj)) readonly = true;
  if (a4_dl_dtype(self, dl->dtype) < 0) goto fail;
  if (dl->ndim < 1 || dl->ndim > 4) {
    PyErr_Format(PyExc_ValueError, "%s: the array must have 1 to 4 dimensions, got %d (through __dlpack__)",
                 a4_tname(self), (int)dl->ndim);
    goto fail;
  }
  if (!dl->shape) { /* a broken producer: never dereferenced */
    PyErr_Format(PyExc_BufferError, "%s: the DLPack tensor of %.100s has %d dimensions but no shape",
                 a4_tname(self), Py_TYPE(obj)->tp_name, (int)dl->ndim);
    goto fail;
  }
  if (readonly && !(self->flags & BFPY_A4_CONST)) {
    PyErr_Format(PyExc_ValueError, "%s: the source array is read-only; use %s_const to view it (through __dlpack__)",
                 a4_tname(self), a4_tname(self));
    goto fail;
  }
  int64_t strides[4];
  if (dl->strides) memcpy(strides, dl->strides, (size_t)dl->ndim * sizeof(int64_t));
  else if (a4_c_strides(self, dl->ndim, dl->shape, strides, "__dlpack__") < 0) goto fail;
  /* take ownership: our capsule calls the deleter when the last view goes */
  PyObject *owner = PyCapsule_New(m, "boxfab.dlpack_owner", a4_dl_owner_destructor);
  if (!owner) goto fail;
  if (versioned && PyCapsule_SetContext(owner, (void *)1) < 0) {
    PyCapsule_SetDestructor(owner, NULL);
    Py_DECREF(owner);
    goto fail;
  }
  if (PyCapsule_SetName(cap, versioned ? "used_dltensor_versioned" : "used_dltensor") < 0) {
    PyCapsule_SetDestructor(owner, NULL);
    Py_DECREF(owner);
    goto fail;
  }
  Py_DECREF(cap);
  int r = a4_fill(self, (char *)dl->data + dl->byte_offset, (int)dl->ndim, dl->shape, strides, readonly, owner,
                  memory, "__dlpack__");
  a4_decref_keeping_error(owner); /* on failure this runs the deleter: the error stays */
  return r;
fail:
  a4_decref_keeping_error(cap); /* the producer's capsule destructor runs its deleter */
  return -1;
}

/* ---- array interfaces (CUDA's and NumPy's) ---------------------------------------------- */
/* A tuple of 1 to 4 integers (an interface's shape or strides) into out;
 * returns its length, or -1 with an exception. */
static int a4_int64_tuple(PyObject *t, int64_t out[4], const char *what, const char *via,
                          const bfpy_array4_object *self) {
  if (!PyTuple_Check(t)) {
    PyErr_Format(PyExc_TypeError, "%s: %s %s must be a tuple", a4_tname(self), via, what);
    return -1;
  }
  Py_ssize_t n = PyTuple_GET_SIZE(t);
  if (n < 1 || n > 4) {
    PyErr_Format(PyExc_ValueError, "%s: the array must have 1 to 4 dimensions, got %zd (through %s)",
                 a4_tname(self), n, via);
    return -1;
  }
  for (Py_ssize_t i = 0; i < n; ++i)
    if (bfpy_to_int64(PyTuple_GET_ITEM(t, i), &out[i], what) < 0) return -1;
  return (int)n;
}

static int a4_import_buffer(bfpy_array4_object *self, PyObject *obj);

/* typestr of an array interface: its itemsize (0 with an exception when it
 * does not match self's element type). */
static size_t a4_typestr(const bfpy_array4_object *self, PyObject *typestr_o, const char *via) {
  const char *ts = PyUnicode_AsUTF8(typestr_o);
  if (!ts) return 0;
#if PY_LITTLE_ENDIAN
  const char swapped = '>';
#else
  const char swapped = '<';
#endif
  if (strlen(ts) < 3 || ts[0] == swapped) {
    char got[64];
    snprintf(got, sizeof got, "typestr %.20s%s", ts, ts[0] == swapped ? " (byte-swapped)" : "");
    (void)a4_check_dtype(self, '?', 0, got, via);
    return 0;
  }
  char got[48];
  snprintf(got, sizeof got, "typestr %.20s", ts);
  char *end;
  long size = strtol(ts + 2, &end, 10);
  if (*end != '\0' || size <= 0) size = 0;
  if (a4_check_dtype(self, ts[1], (size_t)size, got, via) < 0) return 0;
  return (size_t)size;
}

/* The layout an array interface gives (`via`: its name): the element size
 * from typestr (checked against self's type), shape, strides in elements
 * (C order when strides is None or absent) and data = (pointer, read_only),
 * a tuple of two the caller has checked.  Returns ndim, or -1 with an
 * exception. */
static int a4_interface_layout(const bfpy_array4_object *self, const char *via, PyObject *typestr_o,
                               PyObject *shape_o, PyObject *strides_o, PyObject *data_o, int64_t shape[4],
                               int64_t strides[4], void **ptr, int *ro) {
  const size_t itemsize = a4_typestr(self, typestr_o, via);
  if (!itemsize) return -1;
  const int ndim = a4_int64_tuple(shape_o, shape, "shape", via, self);
  if (ndim < 0) return -1;
  if (strides_o && strides_o != Py_None) {
    int64_t bstrides[4];
    if (a4_int64_tuple(strides_o, bstrides, "strides", via, self) != ndim) {
      if (!PyErr_Occurred())
        PyErr_Format(PyExc_ValueError, "%s: %s strides and shape differ in length", a4_tname(self), via);
      return -1;
    }
    if (a4_byte_strides(self, ndim, bstrides, strides, itemsize, via) < 0) return -1;
  } else {
    if (a4_c_strides(self, ndim, shape, strides, via) < 0) return -1;
  }
  *ptr = PyLong_AsVoidPtr(PyTuple_GET_ITEM(data_o, 0));
  if (!*ptr && PyErr_Occurred()) return -1;
  *ro = PyObject_IsTrue(PyTuple_GET_ITEM(data_o, 1));
  return *ro < 0 ? -1 : ndim;
}

/* ---- __cuda_array_interface__ (v2, v3) ----------------------------------------------- */
static int a4_import_cai(bfpy_array4_object *self, PyObject *obj, PyObject *cai) {
  static const char via[] = "__cuda_array_interface__";
  if (!PyDict_Check(cai)) {
    PyErr_Format(PyExc_TypeError, "%s: %s of %.100s is not a dict", a4_tname(self), via, Py_TYPE(obj)->tp_name);
    return -1;
  }
  if (!bf_gpu_available()) {
    PyErr_Format(PyExc_TypeError,
                 "%s: %.100s offers only %s (CUDA memory), but boxfab uses no GPU here (importing CUDA memory needs "
                 "the CUDA build and a GPU; BOXFAB_DEVICE=cpu forces the CPU)",
                 a4_tname(self), Py_TYPE(obj)->tp_name, via);
    return -1;
  }
  PyObject *shape_o = PyDict_GetItemString(cai, "shape"), *typestr_o = PyDict_GetItemString(cai, "typestr");
  PyObject *data_o = PyDict_GetItemString(cai, "data"), *strides_o = PyDict_GetItemString(cai, "strides");
  PyObject *mask_o = PyDict_GetItemString(cai, "mask"), *stream_o = PyDict_GetItemString(cai, "stream");
  if (!shape_o || !typestr_o || !PyUnicode_Check(typestr_o) || !data_o || !PyTuple_Check(data_o) ||
      PyTuple_GET_SIZE(data_o) != 2) {
    PyErr_Format(PyExc_TypeError, "%s: %s needs 'shape', a 'typestr' string and 'data' = (pointer, read_only)",
                 a4_tname(self), via);
    return -1;
  }
  if (mask_o && mask_o != Py_None) {
    PyErr_Format(PyExc_ValueError, "%s: masked arrays are not supported", a4_tname(self));
    return -1;
  }
  int64_t shape[4], strides[4];
  void *ptr;
  int ro;
  const int ndim = a4_interface_layout(self, via, typestr_o, shape_o, strides_o, data_o, shape, strides, &ptr, &ro);
  if (ndim < 0) return -1;
  /* what the pointer is: CUDA memory of boxfab's device (0 for a zero-size array) */
  int memory = BFPY_MEM_DEVICE, device = bf_gpu_device_id();
  if (ptr) {
    (void)bf_gpu_pointer_info(ptr, &memory, &device);
    if (memory == BFPY_MEM_HOST) {
      PyErr_Format(PyExc_ValueError, "%s: the %s pointer %p is not CUDA memory", a4_tname(self), via, ptr);
      return -1;
    }
    if (memory != BFPY_MEM_PINNED && device != bf_gpu_device_id()) {
      PyErr_Format(PyExc_ValueError, "%s: the data lives on CUDA device %d but boxfab works on device %d (through %s)",
                   a4_tname(self), device, bf_gpu_device_id(), via);
      return -1;
    }
  }
  /* stream (v3): boxfab's stream waits for the producer's pending work */
  if (stream_o && stream_o != Py_None) {
    if (PyBool_Check(stream_o) || !PyLong_Check(stream_o)) {
      PyErr_Format(PyExc_TypeError, "%s: %s stream must be None or an int, not %.100s", a4_tname(self), via,
                   Py_TYPE(stream_o)->tp_name);
      return -1;
    }
    void *s = PyLong_AsVoidPtr(stream_o);
    if (!s && PyErr_Occurred()) return -1;
    if (!s) {
      PyErr_Format(PyExc_ValueError, "%s: %s stream 0 is not allowed (CAI v3: None, 1, 2 or a stream pointer)",
                   a4_tname(self), via);
      return -1;
    }
    if (bfpy_check(bf_gpu_wait_stream(s)) < 0) return -1;
  }
  return a4_fill(self, ptr, ndim, shape, strides, ro, obj, memory, via);
}

static int a4_import_array_interface(bfpy_array4_object *self, PyObject *obj, PyObject *ai) {
  if (!PyDict_Check(ai)) {
    PyErr_Format(PyExc_TypeError, "%s: __array_interface__ of %.100s is not a dict", a4_tname(self),
                 Py_TYPE(obj)->tp_name);
    return -1;
  }
  PyObject *shape_o = PyDict_GetItemString(ai, "shape"), *typestr_o = PyDict_GetItemString(ai, "typestr");
  PyObject *data_o = PyDict_GetItemString(ai, "data"), *strides_o = PyDict_GetItemString(ai, "strides");
  PyObject *mask_o = PyDict_GetItemString(ai, "mask");
  if (!shape_o || !typestr_o || !PyUnicode_Check(typestr_o)) {
    PyErr_Format(PyExc_TypeError, "%s: __array_interface__ needs 'shape' and a 'typestr' string", a4_tname(self));
    return -1;
  }
  if (mask_o && mask_o != Py_None) {
    PyErr_Format(PyExc_ValueError, "%s: masked arrays are not supported", a4_tname(self));
    return -1;
  }
  if (!data_o || data_o == Py_None) { /* NumPy: the data come through the buffer protocol of obj */
    if (!PyObject_CheckBuffer(obj)) {
      PyErr_Format(PyExc_TypeError,
                   "%s: the __array_interface__ of %.100s has no 'data' (or data=None, which means: read the "
                   "object's buffer protocol), and the object has no buffer protocol either",
                   a4_tname(self), Py_TYPE(obj)->tp_name);
      return -1;
    }
    return a4_import_buffer(self, obj);
  }
  if (!PyTuple_Check(data_o) || PyTuple_GET_SIZE(data_o) != 2) {
    PyErr_Format(PyExc_ValueError, "%s: __array_interface__ 'data' must be (address, read_only)", a4_tname(self));
    return -1;
  }
  int64_t shape[4], strides[4];
  void *ptr;
  int ro;
  const int ndim = a4_interface_layout(self, "__array_interface__", typestr_o, shape_o, strides_o, data_o, shape,
                                       strides, &ptr, &ro);
  if (ndim < 0) return -1;
  return a4_fill(self, ptr, ndim, shape, strides, ro, obj, BFPY_MEM_HOST, "__array_interface__");
}

/* ---- buffer protocol ------------------------------------------------------------------ */
/* PEP 3118 format of one element into a NumPy kind ('?' when not supported). */
static char a4_format_kind(const char *f) {
#if PY_LITTLE_ENDIAN
  const char swapped = '>';
#else
  const char swapped = '<';
#endif
  if (!f) return 'u'; /* "B" */
  if (*f == swapped || *f == '!') return '?';
  if (*f == '@' || *f == '=' || *f == '<' || *f == '>') ++f;
  if (f[0] == 'Z' && f[1] && !f[2] && strchr("fdg", f[1])) return 'c';
  if (!f[0] || f[1]) return '?';
  if (strchr("efdg", f[0])) return 'f';
  if (strchr("bhilqn", f[0])) return 'i';
  if (strchr("BHILQN", f[0])) return 'u';
  return '?';
}

static int a4_import_buffer(bfpy_array4_object *self, PyObject *obj) {
  PyObject *mv = PyMemoryView_FromObject(obj); /* holds the buffer until released */
  if (!mv) return -1;
  Py_buffer *b = PyMemoryView_GET_BUFFER(mv);
  char got[64];
  snprintf(got, sizeof got, "buffer format '%.20s' of %zd bytes", b->format ? b->format : "B", b->itemsize);
  int r = -1;
  if (a4_check_dtype(self, a4_format_kind(b->format), (size_t)b->itemsize, got, "the buffer protocol") < 0) goto done;
  if (b->suboffsets) {
    PyErr_Format(PyExc_ValueError, "%s: buffers with suboffsets are not supported", a4_tname(self));
    goto done;
  }
  if (b->ndim < 1 || b->ndim > 4) {
    PyErr_Format(PyExc_ValueError, "%s: the array must have 1 to 4 dimensions, got %d (through the buffer protocol)",
                 a4_tname(self), b->ndim);
    goto done;
  }
  int64_t shape[4], bstrides[4], strides[4];
  for (int d = 0; d < b->ndim; ++d) shape[d] = b->shape ? b->shape[d] : b->len / b->itemsize;
  if (b->strides) {
    for (int d = 0; d < b->ndim; ++d) bstrides[d] = b->strides[d];
    if (a4_byte_strides(self, b->ndim, bstrides, strides, (size_t)b->itemsize, "the buffer protocol") < 0) goto done;
  } else {
    if (a4_c_strides(self, b->ndim, shape, strides, "the buffer protocol") < 0) goto done;
  }
  r = a4_fill(self, b->buf, b->ndim, shape, strides, b->readonly, mv, BFPY_MEM_HOST, "the buffer protocol");
done:
  Py_DECREF(mv);
  return r;
}

/* ---- entry ------------------------------------------------------------------------------ */
/* obj.<name>: 1 with *out a new reference; 0 when obj has no such attribute
 * (AttributeError, as a property says "not for this memory"); -1 for any
 * other exception raised while reading it, which is the caller's to report
 * (a KeyboardInterrupt or a producer's own error used to be swallowed and
 * replaced by "offers none of ..."). */
static int a4_optional_attr(PyObject *obj, const char *name, PyObject **out) {
  *out = PyObject_GetAttrString(obj, name);
  if (*out) return 1;
  if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return -1;
  PyErr_Clear();
  return 0;
}

int bfpy_array4_import(bfpy_array4_object *self, PyObject *obj) {
  PyObject *saved_type = NULL, *saved_value = NULL, *saved_tb = NULL, *dl = NULL;
  int has = a4_optional_attr(obj, "__dlpack__", &dl);
  if (has < 0) return -1;
  Py_XDECREF(dl);
  if (has) {
    int r = a4_import_dlpack(self, obj);
    if (r <= 0) return r;
    PyErr_Fetch(&saved_type, &saved_value, &saved_tb); /* BufferError: try the others */
  }
  PyObject *cai = NULL;
  if (a4_optional_attr(obj, "__cuda_array_interface__", &cai) < 0) goto error; /* absent: host data */
  if (cai) {
    Py_XDECREF(saved_type), Py_XDECREF(saved_value), Py_XDECREF(saved_tb);
    int r = a4_import_cai(self, obj, cai);
    Py_DECREF(cai);
    return r;
  }
  PyObject *ai = NULL;
  if (a4_optional_attr(obj, "__array_interface__", &ai) < 0) goto error;
  bool has_buffer = PyObject_CheckBuffer(obj);
  if (ai || has_buffer) {
    Py_XDECREF(saved_type), Py_XDECREF(saved_value), Py_XDECREF(saved_tb);
    int r = ai ? a4_import_array_interface(self, obj, ai) : a4_import_buffer(self, obj);
    Py_XDECREF(ai);
    return r;
  }
  if (saved_type) {
    PyErr_Restore(saved_type, saved_value, saved_tb);
    return -1;
  }
  PyErr_Format(PyExc_TypeError,
               "%s(): cannot view a %.100s: it offers none of __dlpack__, __cuda_array_interface__, "
               "__array_interface__ or the buffer protocol",
               a4_tname(self), Py_TYPE(obj)->tp_name);
  return -1;
error: /* the new exception wins over a saved BufferError of __dlpack__ */
  Py_XDECREF(saved_type), Py_XDECREF(saved_value), Py_XDECREF(saved_tb);
  return -1;
}

/* ---- a host copy of a 1-D DLPack array (add_particles' columns) ---------------------------------- */

/* NumPy's typestr of a DLPack dtype (host order), NULL when NumPy has none. */
static const char *dl_typestr(DLDataType t) {
  if (t.lanes != 1) return NULL;
  switch (t.code) {
  case kDLFloat: return t.bits == 64 ? "=f8" : t.bits == 32 ? "=f4" : t.bits == 16 ? "=f2" : NULL;
  case kDLInt: return t.bits == 64 ? "=i8" : t.bits == 32 ? "=i4" : t.bits == 16 ? "=i2" : t.bits == 8 ? "|i1" : NULL;
  case kDLUInt: return t.bits == 64 ? "=u8" : t.bits == 32 ? "=u4" : t.bits == 16 ? "=u2" : t.bits == 8 ? "|u1" : NULL;
  case kDLComplex: return t.bits == 128 ? "=c16" : t.bits == 64 ? "=c8" : NULL;
  case kDLBool: return t.bits == 8 ? "|b1" : NULL;
  default: return NULL;
  }
}

/* _dlpack_to_host(obj, what, /) -> numpy.ndarray: a 1-D host copy of what obj.__dlpack__() exports:
 * host memory (kDLCPU, kDLCUDAHost), or CUDA device / managed memory of the device boxfab works on
 * (copied on boxfab's stream, which the producer was asked to order its work before).  No CuPy.
 * BufferError for memory boxfab cannot read (CUDA memory while boxfab uses no GPU, other devices),
 * ValueError for another number of dimensions, TypeError for a dtype NumPy has no equal of. */
PyObject *bfpy_dlpack_to_host(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  if (nargs != 2 || !PyUnicode_Check(args[1])) {
    PyErr_SetString(PyExc_TypeError, "_dlpack_to_host(obj, what: str, /)");
    return NULL;
  }
  PyObject *obj = args[0];
  const char *what = PyUnicode_AsUTF8(args[1]);
  if (!what) return NULL;
  int dev = a4_producer_device(obj);
  if (dev < 0) return NULL;
  const bool cuda = dev == kDLCUDA || dev == kDLCUDAManaged;
  if (cuda && !bf_gpu_available()) {
    PyErr_Format(PyExc_BufferError,
                 "%s: the array is in CUDA memory (DLPack device type %d) but boxfab uses no GPU here (none found, "
                 "a build without CUDA, or BOXFAB_DEVICE=cpu); copy it to the host first",
                 what, dev);
    return NULL;
  }
  if (!cuda && dev != kDLCPU && dev != kDLCUDAHost) {
    PyErr_Format(PyExc_BufferError, "%s: the array lives on DLPack device type %d, which boxfab cannot read", what,
                 dev);
    return NULL;
  }
  PyObject *cap = a4_call_dlpack(obj, dev);
  if (!cap) return NULL;
  DLTensor *dl = NULL;
  if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
    DLManagedTensorVersioned *mv = PyCapsule_GetPointer(cap, "dltensor_versioned");
    if (mv->version.major != 1) {
      PyErr_Format(PyExc_BufferError, "%s: DLPack version %u.%u is not supported (1.x is)", what, mv->version.major,
                   mv->version.minor);
      goto fail;
    }
    dl = &mv->dl_tensor;
  } else if (PyCapsule_IsValid(cap, "dltensor")) {
    dl = &((DLManagedTensor *)PyCapsule_GetPointer(cap, "dltensor"))->dl_tensor;
  } else {
    PyErr_Format(PyExc_TypeError, "%s: __dlpack__ of %.100s did not return a DLPack capsule", what,
                 Py_TYPE(obj)->tp_name);
    goto fail;
  }
  const int tdev = (int)dl->device.device_type; /* the tensor's word is the last */
  const bool on_device = tdev == kDLCUDA || tdev == kDLCUDAManaged;
  if (on_device && (!bf_gpu_available() || (int)dl->device.device_id != bf_gpu_device_id())) {
    PyErr_Format(PyExc_BufferError, "%s: the array is on CUDA device %d, boxfab works on %s %d", what,
                 (int)dl->device.device_id, bf_gpu_available() ? "device" : "no GPU, not", bf_gpu_device_id());
    goto fail;
  }
  if (!on_device && tdev != kDLCPU && tdev != kDLCUDAHost) {
    PyErr_Format(PyExc_BufferError, "%s: the array lives on DLPack device type %d, which boxfab cannot read", what,
                 tdev);
    goto fail;
  }
  if (dl->ndim != 1 || !dl->shape) {
    PyErr_Format(PyExc_ValueError, "%s: expected a 1-D array, got %d dimensions (through __dlpack__)", what,
                 (int)dl->ndim);
    goto fail;
  }
  const char *ts = dl_typestr(dl->dtype);
  if (!ts) {
    PyErr_Format(PyExc_TypeError, "%s: DLPack dtype (code %u, bits %u, lanes %u) has no NumPy equal", what,
                 dl->dtype.code, dl->dtype.bits, dl->dtype.lanes);
    goto fail;
  }
  const int64_t n = dl->shape[0], stride = dl->strides ? dl->strides[0] : 1;
  const size_t isz = dl->dtype.bits / 8u;
  if (n < 0 || (n > 0 && !dl->data)) {
    PyErr_Format(PyExc_BufferError, "%s: a DLPack tensor of %lld elements without data", what, (long long)n);
    goto fail;
  }
  PyObject *np = PyImport_ImportModule("numpy");
  PyObject *arr = np ? PyObject_CallMethod(np, "empty", "(L)s", (long long)n, ts) : NULL;
  Py_XDECREF(np);
  if (!arr) goto fail;
  Py_buffer b;
  if (PyObject_GetBuffer(arr, &b, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
    Py_DECREF(arr);
    goto fail;
  }
  const char *base = (const char *)dl->data + dl->byte_offset;
  int st = BF_SUCCESS;
  if (n > 0) {
    /* the elements span [lo, hi] (strides may be 0 or negative) */
    const int64_t lo = stride < 0 ? (n - 1) * stride : 0, hi = stride > 0 ? (n - 1) * stride : 0;
    const size_t span = (size_t)(hi - lo + 1) * isz;
    const char *from = base + lo * (int64_t)isz;
    char *tmp = NULL;
    if (on_device) {
      if (stride == 1) {
        st = bf_gpu_memcpy(b.buf, from, span);
      } else if (!(tmp = malloc(span))) {
        st = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory for a copy of %zu bytes", span);
      } else if ((st = bf_gpu_memcpy(tmp, from, span)) == BF_SUCCESS) {
        from = tmp;
      }
    } else if (tdev == kDLCUDAHost && bf_gpu_available()) {
      st = bf_gpu_synchronize(); /* pinned memory a kernel of the stream may still write */
    }
    if (st == BF_SUCCESS && !(on_device && stride == 1))
      for (int64_t i = 0; i < n; ++i)
        memcpy((char *)b.buf + (size_t)i * isz, from + (i * stride - lo) * (int64_t)isz, isz);
    free(tmp);
  }
  PyBuffer_Release(&b);
  if (st != BF_SUCCESS) {
    Py_DECREF(arr);
    (void)bfpy_check(st);
    goto fail;
  }
  Py_DECREF(cap); /* not consumed: the producer's capsule destructor runs its deleter */
  return arr;
fail:
  a4_decref_keeping_error(cap);
  return NULL;
}
