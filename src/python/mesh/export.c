/* boxfab._core: the export side shared by the array views — DLPack export,
 * the array interface dict, copies out of any kind of memory (mesh/export.h,
 * INTEROP.md).  Memory kinds and what DLPack offers for each:
 *   host     kDLCPU
 *   pinned   kDLCUDAHost (or kDLCPU when the consumer asks for dl_device=(1, 0))
 *   managed  kDLCUDAManaged (or kDLCPU on request)
 *   device   kDLCUDA (kDLCPU on request: a copy, unless copy=False) */
#include <stdlib.h>
#include <string.h>

#include "mesh/export.h"
#include "boxfab/gpu.h"

int64_t bfpy_x_size(const bfpy_xview *v) {
  int64_t n = 1;
  for (int d = 0; d < v->ndim; ++d) n *= v->shape[d] > 0 ? v->shape[d] : 0;
  return n;
}

void bfpy_x_span(const bfpy_xview *v, int64_t *lo, int64_t *hi) {
  *lo = *hi = 0;
  for (int d = 0; d < v->ndim; ++d) {
    if (v->shape[d] <= 0) { /* empty view: no elements */
      *lo = *hi = 0;
      return;
    }
    int64_t reach = (v->shape[d] - 1) * v->strides[d];
    if (reach < 0) *lo += reach;
    else *hi += reach;
  }
  *hi += 1;
}

static bool x_c_contiguous(const bfpy_xview *v) {
  int64_t expect = 1;
  for (int d = v->ndim - 1; d >= 0; --d) {
    if (v->shape[d] != 1 && v->strides[d] != expect) return false;
    expect *= v->shape[d];
  }
  return true;
}

/* Pack the elements of v, read from host memory at src (the element at index
 * 0), into dst in C order: runs of the last axis at a time. */
static void x_pack(const bfpy_xview *v, const char *src, char *dst) {
  const size_t is = bfpy_a4_kinds[v->dtype].itemsize;
  const int last = v->ndim - 1;
  const int64_t n = v->shape[last], st = v->strides[last];
  int64_t idx[BFPY_X_MAXDIM] = {0};
  for (;;) {
    int64_t off = 0;
    for (int d = 0; d < last; ++d) off += idx[d] * v->strides[d];
    const char *s = src + off * (int64_t)is;
    if (st == 1) {
      memcpy(dst, s, (size_t)n * is);
      dst += (size_t)n * is;
    } else {
      for (int64_t i = 0; i < n; ++i, dst += is) memcpy(dst, s + i * st * (int64_t)is, is);
    }
    int d = last - 1;
    while (d >= 0 && ++idx[d] == v->shape[d]) idx[d--] = 0;
    if (d < 0) return;
  }
}

int bfpy_x_copy_out(const bfpy_xview *v, void *dst) {
  if (v->copy_out) return v->copy_out(v->copy_arg, dst);
  const int64_t n = bfpy_x_size(v);
  if (n == 0) return 0;
  const size_t is = bfpy_a4_kinds[v->dtype].itemsize;
  if (v->memory == BFPY_MEM_HOST) {
    x_pack(v, v->p, dst);
    return 0;
  }
  if (x_c_contiguous(v)) return bfpy_check(bf_gpu_memcpy(dst, v->p, (size_t)n * is));
  /* bring the span that holds the elements to the host, then pack it there */
  int64_t lo, hi;
  bfpy_x_span(v, &lo, &hi);
  const size_t bytes = (size_t)(hi - lo) * is;
  char *tmp = malloc(bytes);
  if (!tmp) {
    PyErr_NoMemory();
    return -1;
  }
  int r = bfpy_check(bf_gpu_memcpy(tmp, (const char *)v->p + lo * (int64_t)is, bytes));
  if (r == 0) x_pack(v, tmp - lo * (int64_t)is, dst);
  free(tmp);
  return r;
}

void bfpy_x_dlpack_device(int memory, int *type, int *id) {
  *id = 0;
  switch (memory) {
  case BFPY_MEM_PINNED: *type = kDLCUDAHost; break; /* device id 0 by convention */
  case BFPY_MEM_MANAGED: *type = kDLCUDAManaged; break;
  case BFPY_MEM_DEVICE: *type = kDLCUDA; break;
  default: *type = kDLCPU; break;
  }
  if (*type == kDLCUDA || *type == kDLCUDAManaged) {
    int d = bf_gpu_device_id();
    *id = d < 0 ? 0 : d;
  }
}

/* Hot path (one dict per box in a Python loop, `mf.array(mfi).__array_interface__`):
 * interned keys and typestrs made once, and the shape / strides tuples of the
 * last call reused when equal (tuples are immutable; a MultiFab's boxes
 * mostly share one shape).  The GIL guards these statics. */
static PyObject *ai_keys[5]; /* shape, typestr, data, strides, version */
static PyObject *ai_typestr[BF_DTYPE_COUNT];
static PyObject *ai_version;

static int ai_init(void) {
  if (ai_version) return 0;
  static const char *names[5] = {"shape", "typestr", "data", "strides", "version"};
  for (int i = 0; i < 5; ++i)
    if (!ai_keys[i] && !(ai_keys[i] = PyUnicode_InternFromString(names[i]))) return -1;
  for (int t = 0; t < BF_DTYPE_COUNT; ++t)
    if (!ai_typestr[t] && !(ai_typestr[t] = PyUnicode_InternFromString(bfpy_a4_kinds[t].typestr))) return -1;
  ai_version = PyLong_FromLong(3);
  return ai_version ? 0 : -1;
}

/* The last tuple made of n values, reused while the values stay the same. */
typedef struct {
  PyObject *tuple;
  int n;
  long long v[BFPY_X_MAXDIM];
} ai_cache;

/* A new reference to the tuple of v[0 .. n), the cached one when equal. */
static PyObject *ai_tuple(const long long *v, int n, ai_cache *c) {
  if (c->tuple && c->n == n && !memcmp(v, c->v, (size_t)n * sizeof *v)) {
    Py_INCREF(c->tuple);
    return c->tuple;
  }
  PyObject *t = PyTuple_New(n);
  if (!t) return NULL;
  for (int i = 0; i < n; ++i) {
    PyObject *x = PyLong_FromLongLong(v[i]);
    if (!x) {
      Py_DECREF(t);
      return NULL;
    }
    PyTuple_SET_ITEM(t, i, x);
  }
  c->n = n; /* before the old tuple goes: its release must see a consistent cache */
  memcpy(c->v, v, (size_t)n * sizeof *v);
  Py_XSETREF(c->tuple, t);
  Py_INCREF(t);
  return t;
}

PyObject *bfpy_x_interface_dict(const bfpy_xview *v) {
  static ai_cache shape_cache, strides_cache;
  if (ai_init() < 0) return NULL;
  const long long is = (long long)bfpy_a4_kinds[v->dtype].itemsize;
  long long sh[BFPY_X_MAXDIM], st[BFPY_X_MAXDIM];
  for (int d = 0; d < v->ndim; ++d) sh[d] = (long long)v->shape[d], st[d] = (long long)v->strides[d] * is;
  /* data = (address, False): PyTorch refuses readonly=True; a zero-size array has address 0 (CAI v3) */
  void *p = bfpy_x_size(v) > 0 ? v->p : NULL;
  PyObject *d = PyDict_New();
  PyObject *tsh = ai_tuple(sh, v->ndim, &shape_cache);
  PyObject *tst = ai_tuple(st, v->ndim, &strides_cache);
  PyObject *addr = PyLong_FromVoidPtr(p);
  PyObject *data = addr ? PyTuple_New(2) : NULL;
  if (data) {
    PyTuple_SET_ITEM(data, 0, addr);
    addr = NULL;
    Py_INCREF(Py_False);
    PyTuple_SET_ITEM(data, 1, Py_False);
  }
  int err = !d || !tsh || !tst || !data;
  if (!err)
    err = PyDict_SetItem(d, ai_keys[0], tsh) < 0 || PyDict_SetItem(d, ai_keys[1], ai_typestr[v->dtype]) < 0 ||
          PyDict_SetItem(d, ai_keys[2], data) < 0 || PyDict_SetItem(d, ai_keys[3], tst) < 0 ||
          PyDict_SetItem(d, ai_keys[4], ai_version) < 0;
  Py_XDECREF(tsh), Py_XDECREF(tst), Py_XDECREF(addr), Py_XDECREF(data);
  if (err) Py_CLEAR(d);
  return d;
}

/* ---- DLPack ---------------------------------------------------------------------------- */
typedef struct {
  union {
    DLManagedTensor legacy;
    DLManagedTensorVersioned versioned;
  } t;
  int64_t shape[BFPY_X_MAXDIM], strides[BFPY_X_MAXDIM];
  PyObject *exporter; /* the exporting object (NULL for a copy) */
  void *copy;         /* malloc'd data of a host copy */
  bf_buffer *dcopy;   /* GPU memory of a copy on the device */
} x_dl_ctx;

static void x_dl_ctx_free(x_dl_ctx *ctx) {
  if (ctx && bfpy_dl_release(&ctx->exporter, &ctx->copy, &ctx->dcopy)) free(ctx);
}

static void x_dl_deleter_legacy(DLManagedTensor *m) { x_dl_ctx_free((x_dl_ctx *)m->manager_ctx); }
static void x_dl_deleter_versioned(DLManagedTensorVersioned *m) { x_dl_ctx_free((x_dl_ctx *)m->manager_ctx); }

/* Arena kind for a copy on the GPU of memory of kind `memory`. */
static int x_copy_arena(int memory) {
  return memory == BFPY_MEM_MANAGED ? BF_ARENA_MANAGED : memory == BFPY_MEM_PINNED ? BF_ARENA_PINNED : BF_ARENA_DEVICE;
}

PyObject *bfpy_x_dlpack(PyObject *exporter, const bfpy_xview *v, PyObject *const *args, Py_ssize_t nargs,
                        PyObject *kwnames) {
  static const char *const names[] = {"stream", "max_version", "dl_device", "copy", NULL};
  PyObject *a[4];
  if (nargs > 0) {
    PyErr_SetString(PyExc_TypeError, "__dlpack__() takes keyword arguments only (stream, max_version, dl_device, copy)");
    return NULL;
  }
  if (bfpy_bind(args, nargs, kwnames, names, 0, a, true) < 0) return NULL;
  PyObject *stream = a[0], *max_version = a[1], *dl_device = a[2], *copy_o = a[3];
  /* max_version */
  bool versioned = false;
  if (max_version && max_version != Py_None) {
    int major, minor;
    if (!PyTuple_Check(max_version) || PyTuple_GET_SIZE(max_version) != 2) {
      PyErr_SetString(PyExc_TypeError, "__dlpack__: max_version must be a tuple (major, minor)");
      return NULL;
    }
    if (bfpy_to_int(PyTuple_GET_ITEM(max_version, 0), &major, "max_version major") < 0 ||
        bfpy_to_int(PyTuple_GET_ITEM(max_version, 1), &minor, "max_version minor") < 0)
      return NULL;
    versioned = major >= 1;
  }
  /* copy */
  int copy = -1; /* -1: None (copy only if needed), 0: never, 1: always */
  if (copy_o && copy_o != Py_None) {
    if (!PyBool_Check(copy_o)) {
      PyErr_Format(PyExc_TypeError, "__dlpack__: copy must be None, True or False, not %.100s",
                   Py_TYPE(copy_o)->tp_name);
      return NULL;
    }
    copy = copy_o == Py_True;
  }
  /* device: the view's own, or kDLCPU for memory the host can read (a copy
   * for device memory unless copy=False) */
  int dev_type, dev_id;
  bfpy_x_dlpack_device(v->memory, &dev_type, &dev_id);
  bool host_copy = false; /* device memory copied to the host for dl_device=(kDLCPU, 0) */
  if (dl_device && dl_device != Py_None) {
    int t, id;
    if (!PyTuple_Check(dl_device) || PyTuple_GET_SIZE(dl_device) != 2) {
      PyErr_SetString(PyExc_TypeError, "__dlpack__: dl_device must be a tuple (device_type, device_id)");
      return NULL;
    }
    if (bfpy_to_int(PyTuple_GET_ITEM(dl_device, 0), &t, "dl_device type") < 0 ||
        bfpy_to_int(PyTuple_GET_ITEM(dl_device, 1), &id, "dl_device id") < 0)
      return NULL;
    if (t == dev_type && id == dev_id) {
      /* as is */
    } else if (t == kDLCPU && id == 0 && v->memory != BFPY_MEM_HOST) {
      if (v->memory == BFPY_MEM_DEVICE) {
        if (copy == 0) {
          PyErr_Format(PyExc_BufferError,
                       "__dlpack__: the data is in device memory (%d, %d); exporting it to the CPU needs a copy, and "
                       "copy=False forbids one",
                       dev_type, dev_id);
          return NULL;
        }
        host_copy = true;
      }
      dev_type = kDLCPU, dev_id = 0; /* pinned and managed memory: the host reads it in place */
    } else {
      PyErr_Format(PyExc_BufferError, "__dlpack__: cannot export to device (%d, %d): the data is on (%d, %d)", t,
                   id, dev_type, dev_id);
      return NULL;
    }
  }
  /* stream: on the CPU only None; for CUDA devices the consumer's stream waits
   * for boxfab's pending work (an event), unless it passed -1 */
  if (dev_type == kDLCPU) {
    if (stream && stream != Py_None) {
      PyErr_Format(PyExc_ValueError, "__dlpack__: stream must be None for CPU data, got %R", stream);
      return NULL;
    }
    if (bfpy_mem_sync_host(v->memory) < 0) return NULL; /* a host consumer reads GPU-written memory */
  } else {
    void *consumer;
    bool nosync;
    if (bfpy_cuda_stream_arg(stream, &consumer, &nosync, "__dlpack__") < 0) return NULL;
    if (!nosync && !bf_gpu_stream_idle() && bfpy_check(bf_gpu_stream_wait(consumer)) < 0) return NULL;
    /* pinned / managed memory with no stream named: the consumer may be the host */
    if ((!stream || stream == Py_None) && v->memory != BFPY_MEM_DEVICE && bfpy_mem_sync_host(v->memory) < 0)
      return NULL;
  }
  const bfpy_a4_kind *k = &bfpy_a4_kinds[v->dtype];
  if (k->dl_bits == 0) {
    PyErr_Format(PyExc_BufferError, "__dlpack__: %s has no DLPack data type", Py_TYPE(exporter)->tp_name);
    return NULL;
  }
  if (!versioned && copy != 1 && v->readonly) {
    PyErr_Format(PyExc_BufferError,
                 "__dlpack__: %s is read-only and a legacy DLPack capsule cannot say so; pass max_version=(1, 0)",
                 Py_TYPE(exporter)->tp_name);
    return NULL;
  }
  /* build the managed tensor */
  x_dl_ctx *ctx = calloc(1, sizeof *ctx);
  if (!ctx) return PyErr_NoMemory();
  for (int d = 0; d < v->ndim; ++d) ctx->shape[d] = v->shape[d], ctx->strides[d] = v->strides[d];
  void *data = v->p;
  const bool dev_copy = copy == 1 && !host_copy && dev_type != kDLCPU; /* a copy that stays on the GPU */
  if ((copy == 1 && !dev_copy) || host_copy) {
    size_t bytes = (size_t)bfpy_x_size(v) * k->itemsize;
    ctx->copy = malloc(bytes ? bytes : 1);
    if (!ctx->copy) {
      free(ctx);
      return PyErr_NoMemory();
    }
    if (bfpy_x_copy_out(v, ctx->copy) < 0) {
      free(ctx->copy);
      free(ctx);
      return NULL;
    }
    data = ctx->copy;
    int64_t s = 1; /* compact C order */
    for (int d = v->ndim - 1; d >= 0; --d) {
      ctx->strides[d] = s;
      s *= v->shape[d];
    }
  } else if (dev_copy) {
    /* copy the span of the elements into new GPU memory of the same kind: same strides */
    int64_t lo, hi;
    bfpy_x_span(v, &lo, &hi);
    const size_t bytes = (size_t)(hi - lo) * k->itemsize;
    if (bfpy_check(bf_buffer_create(bf_arena_get(x_copy_arena(v->memory)), bytes ? bytes : 1, &ctx->dcopy)) < 0) {
      free(ctx);
      return NULL;
    }
    char *dst = bf_buffer_data(ctx->dcopy);
    if (bytes && bfpy_check(bf_gpu_memcpy(dst, (const char *)v->p + lo * (int64_t)k->itemsize, bytes)) < 0) {
      x_dl_ctx_free(ctx);
      return NULL;
    }
    data = bytes ? dst - lo * (int64_t)k->itemsize : dst;
  } else {
    ctx->exporter = Py_NewRef(exporter);
  }
  DLTensor *dl = versioned ? &ctx->t.versioned.dl_tensor : &ctx->t.legacy.dl_tensor;
  dl->data = data;
  dl->device.device_type = (DLDeviceType)dev_type;
  dl->device.device_id = dev_id;
  dl->ndim = v->ndim;
  dl->dtype.code = k->dl_code;
  dl->dtype.bits = k->dl_bits;
  dl->dtype.lanes = 1;
  dl->shape = ctx->shape;
  dl->strides = ctx->strides; /* always exported, in elements */
  dl->byte_offset = 0;
  PyObject *cap;
  if (versioned) {
    DLManagedTensorVersioned *m = &ctx->t.versioned;
    m->version.major = BFPY_DLPACK_MAJOR_VERSION;
    m->version.minor = BFPY_DLPACK_MINOR_VERSION;
    m->manager_ctx = ctx;
    m->deleter = x_dl_deleter_versioned;
    m->flags = 0;
    if (copy == 1 || host_copy) m->flags |= DLPACK_FLAG_BITMASK_IS_COPIED;
    else if (v->readonly) m->flags |= DLPACK_FLAG_BITMASK_READ_ONLY;
    cap = PyCapsule_New(m, "dltensor_versioned", bfpy_dl_capsule_destructor_versioned);
  } else {
    DLManagedTensor *m = &ctx->t.legacy;
    m->manager_ctx = ctx;
    m->deleter = x_dl_deleter_legacy;
    cap = PyCapsule_New(m, "dltensor", bfpy_dl_capsule_destructor_legacy);
  }
  if (!cap) x_dl_ctx_free(ctx);
  return cap;
}

PyObject *bfpy_x_cupy_empty(PyObject *cp, const bfpy_xview *v) {
  PyObject *shape = PyTuple_New(v->ndim);
  if (!shape) return NULL;
  for (int d = 0; d < v->ndim; ++d) {
    PyObject *x = PyLong_FromLongLong((long long)v->shape[d]);
    if (!x) {
      Py_DECREF(shape);
      return NULL;
    }
    PyTuple_SET_ITEM(shape, d, x);
  }
  PyObject *arr = PyObject_CallMethod(cp, "empty", "Os", shape, bfpy_a4_kinds[v->dtype].typestr);
  Py_DECREF(shape);
  return arr;
}

PyObject *bfpy_x_to_cupy(PyObject *cp, PyObject *self, const bfpy_xview *v, const char *what, bool copy,
                         PyObject *view, PyObject *(*to_host)(PyObject *self, PyObject *noargs)) {
  if (v->memory == BFPY_MEM_HOST || v->memory == BFPY_MEM_PINNED) {
    Py_XDECREF(view);
    if (!copy) {
      PyErr_Format(PyExc_ValueError,
                   "to_cupy: this %s views host memory, so no CuPy view exists; use to_numpy() or copy=True", what);
      return NULL;
    }
    PyObject *host = to_host(self, NULL);
    PyObject *arr = host ? PyObject_CallMethod(cp, "asarray", "(O)", host) : NULL;
    Py_XDECREF(host);
    return arr;
  }
  if (!view && !PyErr_Occurred())
    view = bfpy_x_size(v) == 0 ? bfpy_x_cupy_empty(cp, v) : PyObject_CallMethod(cp, "asarray", "(O)", self);
  if (!view || !copy) return view;
  PyObject *arr = PyObject_CallMethod(view, "copy", NULL);
  Py_DECREF(view);
  return arr;
}

int bfpy_x_copy_order(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, int *copy, bool *c_order) {
  static const char *const names[] = {"copy", "order", NULL};
  PyObject *a[2];
  if (bfpy_bind(args, nargs, kwnames, names, 0, a, true) < 0) return -1;
  *copy = 0;
  if (a[0] && (*copy = PyObject_IsTrue(a[0])) < 0) return -1;
  *c_order = false;
  if (a[1]) {
    const char *o = PyUnicode_Check(a[1]) ? PyUnicode_AsUTF8(a[1]) : NULL;
    if (!o || (strcmp(o, "F") != 0 && strcmp(o, "C") != 0)) {
      PyErr_Clear();
      PyErr_SetString(PyExc_ValueError, "The order argument must be F or C.");
      return -1;
    }
    *c_order = o[0] == 'C';
  }
  return 0;
}
