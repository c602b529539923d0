/* boxfab._core: Arena and the module functions The_Arena, The_Async_Arena,
 * The_Device_Arena, The_Managed_Arena, The_Pinned_Arena, The_Cpu_Arena
 * (API.md 2.1); MFInfo, MFItInfo and FabFactory_FArrayBox (API.md 2.4).
 *
 * Arena objects: one object per (dimension, arena kind), made on first use
 * and kept for the process, so The_Arena() is The_Arena() (and objects of the
 * same arena compare equal and hash alike).  The C arenas are singletons that
 * are never freed, so an Arena object never dangles.
 *
 * MFInfo / MFItInfo setters change the object and return it, as the C++
 * setters (AMReX_FabArray.H MFInfo::SetAlloc/SetArena/SetTag, AMReX_MFIter.H
 * MFItInfo::EnableTiling/SetDynamic/...: `return *this;`), so calls chain
 * (MFInfo().set_arena(a).set_alloc(False)) and `info.enable_tiling(ts)` alone
 * tiles `info`. */
#define _GNU_SOURCE /* open_memstream */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/fab.h"

int bfpy_fab_to_bool(PyObject *o, bool *out, const char *what) {
  if (PyBool_Check(o)) {
    *out = o == Py_True;
    return 0;
  }
  /* numpy.bool_ / numpy.bool */
  const char *tn = Py_TYPE(o)->tp_name;
  if (strcmp(tn, "numpy.bool_") == 0 || strcmp(tn, "numpy.bool") == 0) {
    int t = PyObject_IsTrue(o);
    if (t < 0) return -1;
    *out = t;
    return 0;
  }
  PyErr_Format(PyExc_TypeError, "%s must be a bool, not %.100s", what, tn);
  return -1;
}

/* ---- Arena ------------------------------------------------------------------ */
#define ARENA(o) ((bfpy_arena_object *)(o))

static PyObject *arena_objects[BF_SPACEDIM_MAX + 1][BF_ARENA_NKINDS];

PyObject *bfpy_arena_new(int dim, bf_arena *arena) {
  if (dim < 1 || dim > BF_SPACEDIM_MAX || !arena) {
    PyErr_SetString(PyExc_RuntimeError, "boxfab: bfpy_arena_new: bad dimension or NULL arena");
    return NULL;
  }
  int kind = bf_arena_kind_of(arena);
  if (kind < 0 || kind >= BF_ARENA_NKINDS) {
    PyErr_SetString(PyExc_RuntimeError, "boxfab: unknown arena kind");
    return NULL;
  }
  if (!arena_objects[dim][kind]) {
    PyTypeObject *t = bfpy_types[dim][BFPY_T_ARENA];
    if (!t) {
      PyErr_SetString(PyExc_RuntimeError, "boxfab: Arena is not available");
      return NULL;
    }
    bfpy_arena_object *o = (bfpy_arena_object *)t->tp_alloc(t, 0);
    if (!o) return NULL;
    o->dim = dim;
    o->arena = arena;
    arena_objects[dim][kind] = (PyObject *)o; /* kept for the process */
  }
  return Py_NewRef(arena_objects[dim][kind]);
}

int bfpy_as_arena(PyObject *o, int dim, bf_arena **out, const char *what) {
  if (o == NULL || o == Py_None) {
    *out = bf_arena_get(BF_ARENA_DEFAULT);
    return 0;
  }
  if (bfpy_is(o, BFPY_T_ARENA, -1)) {
    if (ARENA(o)->dim != dim) {
      bfpy_dim_mismatch(what, dim, ARENA(o)->dim);
      return -1;
    }
    *out = ARENA(o)->arena;
    return 0;
  }
  PyErr_Format(PyExc_TypeError, "%s must be an Arena or None, not %.100s", what, Py_TYPE(o)->tp_name);
  return -1;
}

static PyObject *arena_repr(PyObject *self) {
  bf_arena *a = ARENA(self)->arena;
  return PyUnicode_FromFormat("<Arena %s: %s memory>", bf_arena_name(a),
                              bf_arena_is_device(a)    ? "device"
                              : bf_arena_is_managed(a) ? "managed"
                              : bf_arena_is_pinned(a)  ? "pinned host"
                                                       : "host");
}

static PyObject *arena_richcompare(PyObject *a, PyObject *b, int op) {
  if (!bfpy_is(b, BFPY_T_ARENA, -1) || (op != Py_EQ && op != Py_NE)) Py_RETURN_NOTIMPLEMENTED;
  int eq = ARENA(a)->arena == ARENA(b)->arena && ARENA(a)->dim == ARENA(b)->dim;
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static Py_hash_t arena_hash(PyObject *self) {
  Py_hash_t h = (Py_hash_t)((uintptr_t)ARENA(self)->arena >> 4);
  return h == -1 ? -2 : h;
}

static PyObject *arena_flag(PyObject *self, void *closure) {
  bf_arena *a = ARENA(self)->arena;
  switch ((int)(intptr_t)closure) {
  case 0: return PyBool_FromLong(bf_arena_is_device_accessible(a));
  case 1: return PyBool_FromLong(bf_arena_is_host_accessible(a));
  case 2: return PyBool_FromLong(bf_arena_is_managed(a));
  case 3: return PyBool_FromLong(bf_arena_is_device(a));
  case 4: return PyBool_FromLong(bf_arena_is_pinned(a));
  default: return PyBool_FromLong(bf_arena_is_stream_ordered(a));
  }
}

static PyObject *arena_name(PyObject *self, void *closure) {
  (void)closure;
  return PyUnicode_FromString(bf_arena_name(ARENA(self)->arena));
}

static PyGetSetDef arena_getset[] = {
    {"is_device_accessible", arena_flag, NULL, "bool: device code can read this memory", (void *)0},
    {"is_host_accessible", arena_flag, NULL, "bool: host code can read this memory", (void *)1},
    {"is_managed", arena_flag, NULL, "bool: unified (managed) memory", (void *)2},
    {"is_device", arena_flag, NULL, "bool: device memory", (void *)3},
    {"is_pinned", arena_flag, NULL, "bool: page-locked host memory", (void *)4},
    {"is_stream_ordered_arena", arena_flag, NULL, "bool: stream-ordered allocation", (void *)5},
    {"name", arena_name, NULL, "str: the accessor's name, e.g. 'The_Arena' (boxfab extension)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyObject *arena_has_free_device_memory(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                              PyObject *kwnames) {
  static const char *const names[] = {"sz", NULL};
  PyObject *a[1];
  if (bfpy_bind(args, nargs, kwnames, names, 1, a, true) < 0) return NULL;
  int64_t sz;
  if (bfpy_to_int64(a[0], &sz, "Arena.has_free_device_memory sz") < 0) return NULL;
  if (sz < 0) {
    PyErr_Format(PyExc_ValueError, "Arena.has_free_device_memory: sz must be >= 0, got %lld", (long long)sz);
    return NULL;
  }
  return PyBool_FromLong(bf_arena_has_free_device_memory(ARENA(self)->arena, (size_t)sz));
}

static PyObject *arena_initialize(PyObject *cls, PyObject *noargs) {
  (void)cls, (void)noargs;
  Py_RETURN_NONE; /* the arenas are made on first use */
}

static PyObject *arena_finalize(PyObject *cls, PyObject *noargs) {
  (void)cls, (void)noargs;
  /* Give the cached free blocks back to the system; live blocks (held by
   * MultiFabs or views) stay valid, and the arenas stay usable. */
  for (int k = 0; k < BF_ARENA_NKINDS; ++k) bf_arena_trim(bf_arena_get(k));
  Py_RETURN_NONE;
}

/* The usage table as a Python str (bf_arena_print_usage into memory). */
static PyObject *arena_usage_text(const char *message) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) return PyErr_SetFromErrno(PyExc_OSError);
  bf_arena_print_usage(f, message);
  fclose(f);
  PyObject *s = PyUnicode_DecodeUTF8(text ? text : "", (Py_ssize_t)len, "replace");
  free(text);
  return s;
}

static PyObject *arena_print_usage(PyObject *cls, PyObject *noargs) {
  (void)cls, (void)noargs;
  PyObject *s = arena_usage_text(NULL);
  if (!s) return NULL;
  /* Through sys.stdout so that redirections (pytest, contextlib) see it. */
  PyObject *out = PySys_GetObject("stdout"); /* borrowed */
  PyObject *r = out && out != Py_None ? PyObject_CallMethod(out, "write", "O", s) : (Py_INCREF(Py_None), Py_None);
  Py_DECREF(s);
  if (!r) return NULL;
  Py_DECREF(r);
  Py_RETURN_NONE;
}

static PyObject *arena_print_usage_to_files(PyObject *cls, PyObject *const *args, Py_ssize_t nargs,
                                            PyObject *kwnames) {
  (void)cls;
  static const char *const names[] = {"filename", "message", NULL};
  PyObject *a[2];
  if (bfpy_bind(args, nargs, kwnames, names, 2, a, true) < 0) return NULL;
  if (!PyUnicode_Check(a[0]) || !PyUnicode_Check(a[1])) {
    PyErr_SetString(PyExc_TypeError, "Arena.print_usage_to_files(filename: str, message: str)");
    return NULL;
  }
  const char *msg = PyUnicode_AsUTF8(a[1]);
  if (!msg) return NULL;
  /* As AMReX: appends to "<filename>.<rank>". */
  PyObject *path = PyUnicode_FromFormat("%U.%d", a[0], bf_parallel_myproc());
  if (!path) return NULL;
  PyObject *bytes = NULL;
  if (!PyUnicode_FSConverter(path, &bytes)) {
    Py_DECREF(path);
    return NULL;
  }
  FILE *f = fopen(PyBytes_AS_STRING(bytes), "a");
  if (!f) {
    PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, path);
    Py_DECREF(path);
    Py_DECREF(bytes);
    return NULL;
  }
  bf_arena_print_usage(f, msg);
  int bad = fclose(f) != 0;
  if (bad) PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, path);
  Py_DECREF(path);
  Py_DECREF(bytes);
  if (bad) return NULL;
  Py_RETURN_NONE;
}

static PyObject *arena_usage(PyObject *cls, PyObject *noargs) {
  (void)cls, (void)noargs;
  return arena_usage_text(NULL);
}

static PyMethodDef arena_methods[] = {
    {"has_free_device_memory", (PyCFunction)(void (*)(void))arena_has_free_device_memory,
     METH_FASTCALL | METH_KEYWORDS, "has_free_device_memory(sz: int) -> bool: always True without a GPU."},
    {"initialize", arena_initialize, METH_NOARGS | METH_STATIC, "initialize() -> None: arena setup (no-op)."},
    {"finalize", arena_finalize, METH_NOARGS | METH_STATIC,
     "finalize() -> None: releases the cached free blocks of every arena; live data stay valid."},
    {"print_usage", arena_print_usage, METH_NOARGS | METH_STATIC,
     "print_usage() -> None: prints the usage of every arena to sys.stdout."},
    {"print_usage_to_files", (PyCFunction)(void (*)(void))arena_print_usage_to_files,
     METH_FASTCALL | METH_KEYWORDS | METH_STATIC,
     "print_usage_to_files(filename: str, message: str) -> None: appends the message and the usage table to "
     "the file '<filename>.<rank>' (as AMReX)."},
    {"usage", arena_usage, METH_NOARGS | METH_STATIC, "usage() -> str: the usage table (boxfab extension)."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot arena_slots[] = {
    {Py_tp_doc, "Arena: a memory allocator (get one with The_Arena(), The_Pinned_Arena(), ...)."},
    {Py_tp_repr, arena_repr},
    {Py_tp_richcompare, arena_richcompare},
    {Py_tp_hash, arena_hash},
    {Py_tp_getset, arena_getset},
    {Py_tp_methods, arena_methods},
    {0, NULL},
};

static PyType_Spec arena_spec = {.name = "Arena",
                                 .basicsize = sizeof(bfpy_arena_object),
                                 .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
                                 .slots = arena_slots};

static PyObject *the_arena(PyObject *module, int kind) {
  return bfpy_arena_new(bfpy_module_dim(module), bf_arena_get(kind));
}
static PyObject *the_default(PyObject *m, PyObject *n) { (void)n; return the_arena(m, BF_ARENA_DEFAULT); }
static PyObject *the_async(PyObject *m, PyObject *n) { (void)n; return the_arena(m, BF_ARENA_ASYNC); }
static PyObject *the_device(PyObject *m, PyObject *n) { (void)n; return the_arena(m, BF_ARENA_DEVICE); }
static PyObject *the_managed(PyObject *m, PyObject *n) { (void)n; return the_arena(m, BF_ARENA_MANAGED); }
static PyObject *the_pinned(PyObject *m, PyObject *n) { (void)n; return the_arena(m, BF_ARENA_PINNED); }
static PyObject *the_cpu(PyObject *m, PyObject *n) { (void)n; return the_arena(m, BF_ARENA_CPU); }

static PyMethodDef arena_functions[] = {
    {"The_Arena", the_default, METH_NOARGS, "The_Arena() -> Arena: the default arena."},
    {"The_Async_Arena", the_async, METH_NOARGS, "The_Async_Arena() -> Arena (host memory without a GPU)."},
    {"The_Device_Arena", the_device, METH_NOARGS, "The_Device_Arena() -> Arena (host memory without a GPU)."},
    {"The_Managed_Arena", the_managed, METH_NOARGS, "The_Managed_Arena() -> Arena (host memory without a GPU)."},
    {"The_Pinned_Arena", the_pinned, METH_NOARGS, "The_Pinned_Arena() -> Arena (host memory without a GPU)."},
    {"The_Cpu_Arena", the_cpu, METH_NOARGS, "The_Cpu_Arena() -> Arena: always host memory."},
    {NULL, NULL, 0, NULL},
};

/* ---- MFInfo ------------------------------------------------------------------- */
#define MFINFO(o) ((bfpy_mfinfo_object *)(o))

static PyObject *new_tags(int dim, PyObject *from) {
  PyTypeObject *t = bfpy_types[dim][BFPY_T_VECTOR_STRING];
  if (!t) {
    PyErr_SetString(PyExc_RuntimeError, "boxfab: Vector_string is not available");
    return NULL;
  }
  return from ? PyObject_CallOneArg((PyObject *)t, from) : PyObject_CallNoArgs((PyObject *)t);
}

static PyObject *mfinfo_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
  if (PyTuple_GET_SIZE(args) || (kwds && PyDict_GET_SIZE(kwds))) {
    PyErr_SetString(PyExc_TypeError, "MFInfo() takes no arguments");
    return NULL;
  }
  int dim = bfpy_type_dim(type, BFPY_T_MFINFO);
  bfpy_mfinfo_object *o = (bfpy_mfinfo_object *)type->tp_alloc(type, 0);
  if (!o) return NULL;
  o->dim = dim;
  o->alloc = true;
  o->arena = NULL;
  o->tags = NULL;
  return (PyObject *)o;
}

static int mfinfo_traverse(PyObject *self, visitproc visit, void *arg) {
  Py_VISIT(Py_TYPE(self));
  Py_VISIT(MFINFO(self)->arena);
  Py_VISIT(MFINFO(self)->tags);
  return 0;
}

static int mfinfo_clear(PyObject *self) {
  Py_CLEAR(MFINFO(self)->arena);
  Py_CLEAR(MFINFO(self)->tags);
  return 0;
}

static void mfinfo_dealloc(PyObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  mfinfo_clear(self);
  tp->tp_free(self);
  Py_DECREF(tp);
}

static PyObject *mfinfo_copy_obj(PyObject *self) {
  bfpy_mfinfo_object *s = MFINFO(self);
  PyTypeObject *t = Py_TYPE(self);
  bfpy_mfinfo_object *o = (bfpy_mfinfo_object *)t->tp_alloc(t, 0);
  if (!o) return NULL;
  o->dim = s->dim;
  o->alloc = s->alloc;
  o->arena = Py_XNewRef(s->arena);
  o->tags = NULL;
  if (s->tags && !(o->tags = new_tags(s->dim, s->tags))) {
    Py_DECREF(o);
    return NULL;
  }
  return (PyObject *)o;
}

static PyObject *mfinfo_get_alloc(PyObject *self, void *c) {
  (void)c;
  return PyBool_FromLong(MFINFO(self)->alloc);
}

static int mfinfo_set_alloc_attr(PyObject *self, PyObject *v, void *c) {
  (void)c;
  if (!v) {
    PyErr_SetString(PyExc_AttributeError, "cannot delete MFInfo.alloc");
    return -1;
  }
  return bfpy_fab_to_bool(v, &MFINFO(self)->alloc, "MFInfo.alloc");
}

static PyObject *mfinfo_get_arena(PyObject *self, void *c) {
  (void)c;
  /* None: the MultiFab's default arena (The_Arena()). */
  return Py_NewRef(MFINFO(self)->arena ? MFINFO(self)->arena : Py_None);
}

static int mfinfo_store_arena(bfpy_mfinfo_object *o, PyObject *v, const char *what) {
  if (v != Py_None) {
    bf_arena *a;
    if (bfpy_as_arena(v, o->dim, &a, what) < 0) return -1;
  }
  Py_XSETREF(o->arena, v == Py_None ? NULL : Py_NewRef(v));
  return 0;
}

static int mfinfo_set_arena_attr(PyObject *self, PyObject *v, void *c) {
  (void)c;
  if (!v) {
    PyErr_SetString(PyExc_AttributeError, "cannot delete MFInfo.arena");
    return -1;
  }
  return mfinfo_store_arena(MFINFO(self), v, "MFInfo.arena");
}

static PyObject *mfinfo_get_tags(PyObject *self, void *c) {
  (void)c;
  bfpy_mfinfo_object *o = MFINFO(self);
  if (!o->tags && !(o->tags = new_tags(o->dim, NULL))) return NULL;
  return Py_NewRef(o->tags);
}

static int mfinfo_set_tags(PyObject *self, PyObject *v, void *c) {
  (void)c;
  if (!v) {
    PyErr_SetString(PyExc_AttributeError, "cannot delete MFInfo.tags");
    return -1;
  }
  bfpy_mfinfo_object *o = MFINFO(self);
  PyObject *t;
  if (bfpy_is(v, BFPY_T_VECTOR_STRING, o->dim)) {
    t = Py_NewRef(v);
  } else {
    if (PyUnicode_Check(v)) {
      PyErr_SetString(PyExc_TypeError, "MFInfo.tags must be a Vector_string or a list of str, not a str");
      return -1;
    }
    if (!(t = new_tags(o->dim, v))) return -1;
  }
  Py_XSETREF(o->tags, t);
  return 0;
}

static PyGetSetDef mfinfo_getset[] = {
    {"alloc", mfinfo_get_alloc, mfinfo_set_alloc_attr, "bool: allocate the data (default True)", NULL},
    {"arena", mfinfo_get_arena, mfinfo_set_arena_attr,
     "Arena or None: where the data are allocated (None: the default arena)", NULL},
    {"tags", mfinfo_get_tags, mfinfo_set_tags, "Vector_string: tags of the MultiFab (for memory profiling)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyObject *mfinfo_set_alloc(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"", NULL};
  PyObject *a[1];
  if (bfpy_bind(args, nargs, kwnames, names, 1, a, true) < 0) return NULL;
  if (bfpy_fab_to_bool(a[0], &MFINFO(self)->alloc, "MFInfo.set_alloc alloc") < 0) return NULL;
  return Py_NewRef(self);
}

static PyObject *mfinfo_set_arena(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"", NULL};
  PyObject *a[1];
  if (bfpy_bind(args, nargs, kwnames, names, 1, a, true) < 0) return NULL;
  if (a[0] == Py_None || !bfpy_is(a[0], BFPY_T_ARENA, -1)) {
    PyErr_Format(PyExc_TypeError, "MFInfo.set_arena(arena: Arena, /): got %.100s", Py_TYPE(a[0])->tp_name);
    return NULL;
  }
  if (mfinfo_store_arena(MFINFO(self), a[0], "MFInfo.set_arena arena") < 0) return NULL;
  return Py_NewRef(self);
}

static PyObject *mfinfo_set_tag(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"", NULL};
  PyObject *a[1];
  if (bfpy_bind(args, nargs, kwnames, names, 1, a, true) < 0) return NULL;
  if (!PyUnicode_Check(a[0])) {
    PyErr_Format(PyExc_TypeError, "MFInfo.set_tag(tag: str, /): got %.100s", Py_TYPE(a[0])->tp_name);
    return NULL;
  }
  PyObject *tags = mfinfo_get_tags(self, NULL);
  if (!tags) return NULL;
  PyObject *r = PyObject_CallMethod(tags, "append", "O", a[0]);
  Py_DECREF(tags);
  if (!r) return NULL;
  Py_DECREF(r);
  return Py_NewRef(self);
}

static PyObject *mfinfo_copy(PyObject *self, PyObject *noargs) {
  (void)noargs;
  return mfinfo_copy_obj(self);
}

static PyObject *mfinfo_repr(PyObject *self) {
  bfpy_mfinfo_object *o = MFINFO(self);
  PyObject *tags = o->tags ? PySequence_List(o->tags) : PyList_New(0);
  if (!tags) return NULL;
  PyObject *r = PyUnicode_FromFormat("MFInfo(alloc=%s, arena=%s, tags=%R)", o->alloc ? "True" : "False",
                                     o->arena ? bf_arena_name(ARENA(o->arena)->arena) : "None", tags);
  Py_DECREF(tags);
  return r;
}

static PyMethodDef mfinfo_methods[] = {
    {"set_alloc", (PyCFunction)(void (*)(void))mfinfo_set_alloc, METH_FASTCALL | METH_KEYWORDS,
     "set_alloc(alloc: bool, /) -> MFInfo: sets alloc and returns self."},
    {"set_arena", (PyCFunction)(void (*)(void))mfinfo_set_arena, METH_FASTCALL | METH_KEYWORDS,
     "set_arena(arena: Arena, /) -> MFInfo: sets the arena and returns self."},
    {"set_tag", (PyCFunction)(void (*)(void))mfinfo_set_tag, METH_FASTCALL | METH_KEYWORDS,
     "set_tag(tag: str, /) -> MFInfo: appends a tag and returns self."},
    {"__copy__", mfinfo_copy, METH_NOARGS, "A copy."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot mfinfo_slots[] = {
    {Py_tp_doc, "MFInfo(): how a MultiFab is made (alloc=True, default arena, no tags)."},
    {Py_tp_new, mfinfo_new},
    {Py_tp_dealloc, mfinfo_dealloc},
    {Py_tp_traverse, mfinfo_traverse},
    {Py_tp_clear, mfinfo_clear},
    {Py_tp_repr, mfinfo_repr},
    {Py_tp_getset, mfinfo_getset},
    {Py_tp_methods, mfinfo_methods},
    {0, NULL},
};

static PyType_Spec mfinfo_spec = {.name = "MFInfo",
                                  .basicsize = sizeof(bfpy_mfinfo_object),
                                  .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
                                  .slots = mfinfo_slots};

/* ---- MFItInfo ------------------------------------------------------------------ */
#define MFIT(o) ((bfpy_mfitinfo_object *)(o))
#define MFIT_TS(o) (&((bfpy_intvect_object *)MFIT(o)->tilesize)->iv)

static PyObject *mfitinfo_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
  if (PyTuple_GET_SIZE(args) || (kwds && PyDict_GET_SIZE(kwds))) {
    PyErr_SetString(PyExc_TypeError, "MFItInfo() takes no arguments");
    return NULL;
  }
  int dim = bfpy_type_dim(type, BFPY_T_MFITINFO);
  bf_intvect zero = bf_intvect_splat(dim, 0);
  PyObject *ts = bfpy_intvect_new(&zero);
  if (!ts) return NULL;
  bfpy_mfitinfo_object *o = (bfpy_mfitinfo_object *)type->tp_alloc(type, 0);
  if (!o) {
    Py_DECREF(ts);
    return NULL;
  }
  /* AMReX_MFIter.H MFItInfo(): no tiling, not dynamic, tilesize 0,
   * device_sync = !Gpu::inNoSyncRegion() and num_streams = Gpu::numGpuStreams():
   * without a GPU inNoSyncRegion() is true and numGpuStreams() 1; with one
   * (outside a no-sync region) true and amrex.max_gpu_streams (default 4). */
  bool gpu = bf_gpu_available();
  o->dim = dim;
  o->do_tiling = false;
  o->dynamic = false;
  o->device_sync = gpu;
  o->num_streams = gpu ? 4 : 1;
  o->tilesize = ts;
  return (PyObject *)o;
}

static void mfitinfo_dealloc(PyObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  Py_CLEAR(MFIT(self)->tilesize);
  tp->tp_free(self);
  Py_DECREF(tp);
}

static PyObject *mfitinfo_copy_obj(PyObject *self) {
  PyObject *ts = bfpy_intvect_new(MFIT_TS(self));
  if (!ts) return NULL;
  PyTypeObject *t = Py_TYPE(self);
  bfpy_mfitinfo_object *o = (bfpy_mfitinfo_object *)t->tp_alloc(t, 0);
  if (!o) {
    Py_DECREF(ts);
    return NULL;
  }
  bfpy_mfitinfo_object *s = MFIT(self);
  o->dim = s->dim;
  o->do_tiling = s->do_tiling;
  o->dynamic = s->dynamic;
  o->device_sync = s->device_sync;
  o->num_streams = s->num_streams;
  o->tilesize = ts;
  return (PyObject *)o;
}

static PyObject *mfit_get_bool(PyObject *self, void *c) {
  return PyBool_FromLong(*(bool *)((char *)self + (size_t)c));
}

static int mfit_set_bool(PyObject *self, PyObject *v, void *c) {
  if (!v) {
    PyErr_SetString(PyExc_AttributeError, "cannot delete an MFItInfo attribute");
    return -1;
  }
  return bfpy_fab_to_bool(v, (bool *)((char *)self + (size_t)c), "MFItInfo attribute");
}

/* *out is written only when v is valid */
static int check_num_streams(PyObject *v, int *out) {
  int n;
  if (bfpy_to_int(v, &n, "MFItInfo num_streams") < 0) return -1;
  if (n < 1) {
    PyErr_Format(PyExc_ValueError, "MFItInfo num_streams must be >= 1, got %d", n);
    return -1;
  }
  *out = n;
  return 0;
}

static PyObject *mfit_get_num_streams(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLong(MFIT(self)->num_streams);
}

static int mfit_set_num_streams(PyObject *self, PyObject *v, void *c) {
  (void)c;
  if (!v) {
    PyErr_SetString(PyExc_AttributeError, "cannot delete MFItInfo.num_streams");
    return -1;
  }
  return check_num_streams(v, &MFIT(self)->num_streams);
}

static int check_tilesize(PyObject *v, int dim, bf_intvect *out, const char *what) {
  if (bfpy_as_intvect(v, dim, BFPY_IV_SEQUENCE, out, what) < 0) return -1;
  for (int d = 0; d < dim; ++d)
    if (out->v[d] < 0) {
      PyErr_Format(PyExc_ValueError, "%s: tile sizes must be >= 1 (0 in the tilesize attribute means unset)",
                   what);
      return -1;
    }
  return 0;
}

static PyObject *mfit_get_tilesize(PyObject *self, void *c) {
  (void)c;
  /* the object itself: info.tilesize[0] = 4 changes info (pyAMReX's def_readwrite) */
  return Py_NewRef(MFIT(self)->tilesize);
}

static int mfit_set_tilesize(PyObject *self, PyObject *v, void *c) {
  (void)c;
  if (!v) {
    PyErr_SetString(PyExc_AttributeError, "cannot delete MFItInfo.tilesize");
    return -1;
  }
  bf_intvect ts;
  if (check_tilesize(v, MFIT(self)->dim, &ts, "MFItInfo.tilesize") < 0) return -1;
  *MFIT_TS(self) = ts; /* copy the value in: the assigned object stays separate */
  return 0;
}

static PyGetSetDef mfitinfo_getset[] = {
    {"do_tiling", mfit_get_bool, mfit_set_bool, "bool: iterate over tiles",
     (void *)offsetof(bfpy_mfitinfo_object, do_tiling)},
    {"dynamic", mfit_get_bool, mfit_set_bool, "bool: dynamic scheduling of tiles over threads",
     (void *)offsetof(bfpy_mfitinfo_object, dynamic)},
    {"device_sync", mfit_get_bool, mfit_set_bool,
     "bool: synchronize the device at the end of the loop (default: whether a GPU is in use, as AMReX)",
     (void *)offsetof(bfpy_mfitinfo_object, device_sync)},
    {"num_streams", mfit_get_num_streams, mfit_set_num_streams,
     "int: GPU streams to use (default 1 without a GPU, 4 with one, as AMReX)", NULL},
    {"tilesize", mfit_get_tilesize, mfit_set_tilesize,
     "IntVect: tile size (zero vector: not set; tiling then uses AMReX's default); the object of this "
     "MFItInfo, so changing it changes the MFItInfo",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyObject *mfit_enable_tiling(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"ts", NULL};
  PyObject *a[1];
  if (bfpy_bind(args, nargs, kwnames, names, 0, a, true) < 0) return NULL;
  int dim = MFIT(self)->dim;
  bf_intvect ts = bf_mfiter_default_tilesize(dim);
  if (a[0] && a[0] != Py_None) {
    if (check_tilesize(a[0], dim, &ts, "MFItInfo.enable_tiling ts") < 0) return NULL;
    for (int d = 0; d < dim; ++d)
      if (ts.v[d] < 1) {
        PyErr_SetString(PyExc_ValueError, "MFItInfo.enable_tiling: tile sizes must be >= 1");
        return NULL;
      }
  }
  MFIT(self)->do_tiling = true;
  *MFIT_TS(self) = ts;
  return Py_NewRef(self);
}

static PyObject *mfit_set_flag(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                               size_t offset, const char *what) {
  static const char *const names[] = {"f", NULL};
  PyObject *a[1];
  if (bfpy_bind(args, nargs, kwnames, names, 1, a, true) < 0) return NULL;
  if (bfpy_fab_to_bool(a[0], (bool *)((char *)self + offset), what) < 0) return NULL;
  return Py_NewRef(self);
}

static PyObject *mfit_set_dynamic(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return mfit_set_flag(self, args, nargs, kwnames, offsetof(bfpy_mfitinfo_object, dynamic),
                       "MFItInfo.set_dynamic f");
}

static PyObject *mfit_set_device_sync(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return mfit_set_flag(self, args, nargs, kwnames, offsetof(bfpy_mfitinfo_object, device_sync),
                       "MFItInfo.set_device_sync f");
}

static PyObject *mfit_set_num_streams_m(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                        PyObject *kwnames) {
  static const char *const names[] = {"n", NULL};
  PyObject *a[1];
  if (bfpy_bind(args, nargs, kwnames, names, 1, a, true) < 0) return NULL;
  if (check_num_streams(a[0], &MFIT(self)->num_streams) < 0) return NULL;
  return Py_NewRef(self);
}

static PyObject *mfit_disable_device_sync(PyObject *self, PyObject *noargs) {
  (void)noargs;
  MFIT(self)->device_sync = false;
  return Py_NewRef(self);
}

static PyObject *mfit_use_default_stream(PyObject *self, PyObject *noargs) {
  (void)noargs;
  MFIT(self)->num_streams = 1;
  return Py_NewRef(self);
}

static PyObject *mfit_copy(PyObject *self, PyObject *noargs) {
  (void)noargs;
  return mfitinfo_copy_obj(self);
}

static PyObject *mfitinfo_repr(PyObject *self) {
  bfpy_mfitinfo_object *o = MFIT(self);
  PyObject *ts = bfpy_int_list(MFIT_TS(self)->v, o->dim);
  if (!ts) return NULL;
  PyObject *r = PyUnicode_FromFormat("MFItInfo(do_tiling=%s, dynamic=%s, device_sync=%s, num_streams=%d, "
                                     "tilesize=%R)",
                                     o->do_tiling ? "True" : "False", o->dynamic ? "True" : "False",
                                     o->device_sync ? "True" : "False", o->num_streams, ts);
  Py_DECREF(ts);
  return r;
}

static PyMethodDef mfitinfo_methods[] = {
    {"enable_tiling", (PyCFunction)(void (*)(void))mfit_enable_tiling, METH_FASTCALL | METH_KEYWORDS,
     "enable_tiling(ts: IntVect = <AMReX's default tile size (1024000, 8, 8)>) -> MFItInfo: turns tiling on "
     "with tile size ts and returns self."},
    {"set_dynamic", (PyCFunction)(void (*)(void))mfit_set_dynamic, METH_FASTCALL | METH_KEYWORDS,
     "set_dynamic(f: bool) -> MFItInfo: sets dynamic and returns self."},
    {"set_device_sync", (PyCFunction)(void (*)(void))mfit_set_device_sync, METH_FASTCALL | METH_KEYWORDS,
     "set_device_sync(f: bool) -> MFItInfo: sets device_sync and returns self."},
    {"set_num_streams", (PyCFunction)(void (*)(void))mfit_set_num_streams_m, METH_FASTCALL | METH_KEYWORDS,
     "set_num_streams(n: int) -> MFItInfo: sets num_streams (n >= 1) and returns self."},
    {"disable_device_sync", mfit_disable_device_sync, METH_NOARGS,
     "disable_device_sync() -> MFItInfo: sets device_sync False and returns self."},
    {"use_default_stream", mfit_use_default_stream, METH_NOARGS,
     "use_default_stream() -> MFItInfo: sets num_streams 1 and returns self."},
    {"__copy__", mfit_copy, METH_NOARGS, "A copy (with its own tilesize)."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot mfitinfo_slots[] = {
    {Py_tp_doc, "MFItInfo(): how an MFIter iterates (default: no tiling)."},
    {Py_tp_new, mfitinfo_new},
    {Py_tp_dealloc, mfitinfo_dealloc},
    {Py_tp_repr, mfitinfo_repr},
    {Py_tp_getset, mfitinfo_getset},
    {Py_tp_methods, mfitinfo_methods},
    {0, NULL},
};

static PyType_Spec mfitinfo_spec = {.name = "MFItInfo",
                                    .basicsize = sizeof(bfpy_mfitinfo_object),
                                    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                                    .slots = mfitinfo_slots};

/* ---- FabFactory_FArrayBox -------------------------------------------------------- */
static PyObject *factory_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
  if (PyTuple_GET_SIZE(args) || (kwds && PyDict_GET_SIZE(kwds))) {
    PyErr_SetString(PyExc_TypeError, "FabFactory_FArrayBox() takes no arguments");
    return NULL;
  }
  bfpy_fabfactory_object *o = (bfpy_fabfactory_object *)type->tp_alloc(type, 0);
  if (o) o->dim = bfpy_type_dim(type, BFPY_T_FABFACTORY);
  return (PyObject *)o;
}

static PyObject *factory_repr(PyObject *self) {
  (void)self;
  return PyUnicode_FromString("<FabFactory_FArrayBox: plain FArrayBoxes>");
}

static PyType_Slot factory_slots[] = {
    {Py_tp_doc, "FabFactory_FArrayBox: makes the FABs of a MultiFab (opaque; plain FArrayBoxes)."},
    {Py_tp_new, factory_new},
    {Py_tp_repr, factory_repr},
    {0, NULL},
};

static PyType_Spec factory_spec = {.name = "FabFactory_FArrayBox",
                                   .basicsize = sizeof(bfpy_fabfactory_object),
                                   .flags = Py_TPFLAGS_DEFAULT,
                                   .slots = factory_slots};

int bfpy_init_arena(PyObject *m, int dim) {
  if (!bfpy_make_type(m, dim, BFPY_T_ARENA, "Arena", &arena_spec, NULL)) return -1;
  if (!bfpy_make_type(m, dim, BFPY_T_MFINFO, "MFInfo", &mfinfo_spec, NULL)) return -1;
  if (!bfpy_make_type(m, dim, BFPY_T_MFITINFO, "MFItInfo", &mfitinfo_spec, NULL)) return -1;
  if (!bfpy_make_type(m, dim, BFPY_T_FABFACTORY, "FabFactory_FArrayBox", &factory_spec, NULL)) return -1;
  return PyModule_AddFunctions(m, arena_functions);
}
