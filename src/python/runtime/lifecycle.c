/* boxfab._core: the runtime family — AMReX (instance handle), Config,
 * ParallelDescriptor, and the module functions initialize, initialized,
 * finalize, size, Print, d_decl, concatenate, unpack_ids, unpack_cpus and the
 * module attributes __version__, __author__, __license__, __doc__.
 *
 * The runtime is one stack per process (include/boxfab/runtime.h), shared by
 * the three space modules: an AMReX handle of any dimension may be finalized
 * or erased from any space module. */
#include "bfpy.h"

/* ---- AMReX: a handle on one runtime instance ------------------------------------ */
typedef struct {
  PyObject_HEAD uint64_t id;
} bfpy_amrex_object;

static PyObject *amrex_new_handle(int dim, uint64_t id) {
  PyTypeObject *t = bfpy_types[dim][BFPY_T_AMREX];
  bfpy_amrex_object *o = (bfpy_amrex_object *)t->tp_alloc(t, 0);
  if (!o) return NULL;
  o->id = id;
  return (PyObject *)o;
}

/* The instance id of an AMReX handle of any dimension; 0 with TypeError. */
static uint64_t amrex_handle_id(PyObject *o, const char *what) {
  if (!bfpy_is(o, BFPY_T_AMREX, -1)) {
    PyErr_Format(PyExc_TypeError, "%s expects an AMReX instance (as returned by initialize()), not %.100s", what,
                 Py_TYPE(o)->tp_name);
    return 0;
  }
  return ((bfpy_amrex_object *)o)->id;
}

static PyObject *amrex_empty(PyObject *cls, PyObject *noargs) {
  (void)cls, (void)noargs;
  return PyBool_FromLong(!bf_runtime_initialized());
}

static PyObject *amrex_size(PyObject *cls, PyObject *noargs) {
  (void)cls, (void)noargs;
  return PyLong_FromLong(bf_runtime_size());
}

static PyObject *amrex_top(PyObject *cls, PyObject *noargs) {
  (void)noargs;
  int dim = bfpy_type_dim((PyTypeObject *)cls, BFPY_T_AMREX);
  uint64_t id = bf_runtime_top();
  if (!id) {
    PyErr_SetString(PyExc_RuntimeError, "AMReX.top(): no runtime instance is active (call initialize() first)");
    return NULL;
  }
  return amrex_new_handle(dim ? dim : 3, id);
}

static PyObject *amrex_erase(PyObject *cls, PyObject *instance) {
  (void)cls;
  uint64_t id = amrex_handle_id(instance, "AMReX.erase()");
  if (!id) return NULL;
  if (bfpy_check(bf_runtime_finalize_instance(id)) < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject *amrex_enter(PyObject *self, PyObject *noargs) {
  (void)noargs;
  if (bfpy_check(bf_runtime_check(((bfpy_amrex_object *)self)->id, "this AMReX instance")) < 0) return NULL;
  return Py_NewRef(self);
}

static int run_gc_collect(void) {
  PyObject *gc = PyImport_ImportModule("gc");
  PyObject *r = gc ? PyObject_CallMethod(gc, "collect", NULL) : NULL;
  Py_XDECREF(gc);
  if (!r) return -1;
  Py_DECREF(r);
  return 0;
}

static PyObject *amrex_exit(PyObject *self, PyObject *args) {
  (void)args; /* exc_type, exc_value, traceback: the exception (if any) propagates */
  uint64_t id = ((bfpy_amrex_object *)self)->id;
  if (bf_runtime_alive(id)) { /* already finalized inside the block: nothing to do */
    if (run_gc_collect() < 0) return NULL;
    if (bf_runtime_alive(id) && bfpy_check(bf_runtime_finalize_instance(id)) < 0) return NULL;
  }
  Py_RETURN_FALSE;
}

static PyObject *amrex_repr(PyObject *self) {
  uint64_t id = ((bfpy_amrex_object *)self)->id;
  return PyUnicode_FromFormat("<AMReX instance %llu (%s)>", (unsigned long long)id,
                              bf_runtime_alive(id) ? "active" : "finalized");
}

static PyObject *amrex_richcompare(PyObject *a, PyObject *b, int op) {
  if (!bfpy_is(b, BFPY_T_AMREX, -1) || (op != Py_EQ && op != Py_NE)) Py_RETURN_NOTIMPLEMENTED;
  int eq = ((bfpy_amrex_object *)a)->id == ((bfpy_amrex_object *)b)->id;
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static Py_hash_t amrex_hash(PyObject *self) {
  Py_hash_t h = (Py_hash_t)(((bfpy_amrex_object *)self)->id & 0x7FFFFFFFFFFFFFFull);
  return h == -1 ? -2 : h;
}

static PyMethodDef amrex_methods[] = {
    {"empty", amrex_empty, METH_NOARGS | METH_STATIC, "empty() -> bool: no runtime instance is active."},
    {"size", amrex_size, METH_NOARGS | METH_STATIC, "size() -> int: number of active runtime instances."},
    {"erase", amrex_erase, METH_O | METH_STATIC,
     "erase(instance, /) -> None: finalize that instance wherever it is on the stack "
     "(RuntimeError when it is no longer active)."},
    {"__enter__", amrex_enter, METH_NOARGS,
     "__enter__() -> AMReX: returns this handle (RuntimeError when its instance was finalized)."},
    {"__exit__", amrex_exit, METH_VARARGS,
     "__exit__(*exc) -> False: gc.collect(), then finalize this instance unless it already was."},
    {NULL, NULL, 0, NULL},
};

/* top() needs its class (for the dimension of the handle it returns), which a
 * METH_STATIC entry of tp_methods does not get: it is added by hand as a
 * staticmethod around a function bound to the class. */
static PyMethodDef amrex_top_def = {"top", amrex_top, METH_NOARGS,
                                    "top() -> AMReX: the most recent active instance (RuntimeError when none)."};

static int amrex_add_top(PyTypeObject *type) {
  static PyMethodDef defs[2];
  defs[0] = amrex_top_def; /* defs[1] stays zeroed: the end of the list */
  return bfpy_add_statics(type, defs, (PyObject *)type);
}

static PyType_Slot amrex_slots[] = {
    {Py_tp_doc, "AMReX: handle on one runtime instance, returned by initialize().\n\n"
                "A context manager: `with amr.initialize([]) as rt:` binds rt to the handle and finalizes "
                "that instance when the block ends. Handles compare equal when they name one instance."},
    {Py_tp_methods, amrex_methods},
    {Py_tp_repr, amrex_repr},
    {Py_tp_richcompare, amrex_richcompare},
    {Py_tp_hash, amrex_hash},
    {0, NULL},
};

static PyType_Spec amrex_spec = {.name = "AMReX",
                                 .basicsize = sizeof(bfpy_amrex_object),
                                 .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
                                 .slots = amrex_slots};

/* ---- Config: class-level values through a metaclass ------------------------------ */
static PyTypeObject *config_meta; /* made once; the Config classes are its instances */

static int config_dim(PyObject *cls) {
  for (int d = 1; d <= BF_SPACEDIM_MAX; ++d)
    if (cls == (PyObject *)bfpy_types[d][BFPY_T_CONFIG]) return d;
  return 0;
}

static PyObject *config_amrex_version(PyObject *cls, void *c) {
  (void)cls, (void)c;
  return PyUnicode_FromString(bf_version());
}
static PyObject *config_spacedim(PyObject *cls, void *c) {
  (void)c;
  return PyLong_FromLong(config_dim(cls));
}
static PyObject *config_have_mpi(PyObject *cls, void *c) {
  (void)cls, (void)c;
  return PyBool_FromLong(bf_build_has_mpi());
}
static PyObject *config_have_omp(PyObject *cls, void *c) {
  (void)cls, (void)c;
  return PyBool_FromLong(bf_build_has_openmp());
}
static PyObject *config_false(PyObject *cls, void *c) {
  (void)cls, (void)c;
  Py_RETURN_FALSE;
}
static PyObject *config_have_gpu(PyObject *cls, void *c) {
  (void)cls, (void)c;
  return PyBool_FromLong(bf_gpu_available());
}
static PyObject *config_gpu_backend(PyObject *cls, void *c) {
  (void)cls, (void)c;
  const char *name = bf_gpu_backend_name();
  if (!name) Py_RETURN_NONE;
  return PyUnicode_FromString(name);
}
static PyObject *config_verbose(PyObject *cls, void *c) {
  (void)cls, (void)c;
  return PyLong_FromLong(bf_runtime_verbose());
}
static int config_set_verbose(PyObject *cls, PyObject *value, void *c) {
  (void)cls, (void)c;
  if (!value) {
    PyErr_SetString(PyExc_AttributeError, "Config.verbose cannot be deleted");
    return -1;
  }
  int v;
  if (bfpy_to_int(value, &v, "Config.verbose") < 0) return -1;
  bf_runtime_set_verbose(v);
  return 0;
}

/* Config.precision / precision_particles: amrex::Real and ParticleReal are double in boxfab */
static PyObject *config_double(PyObject *cls, void *c) {
  (void)cls, (void)c;
  return PyUnicode_FromString("DOUBLE");
}

static PyGetSetDef config_getset[] = {
    {"amrex_version", config_amrex_version, NULL, "Library version string (boxfab's own).", NULL},
    {"spacedim", config_spacedim, NULL, "Spatial dimension of this module: 1, 2 or 3.", NULL},
    {"verbose", config_verbose, config_set_verbose, "Global verbosity (int, assignable).", NULL},
    {"have_mpi", config_have_mpi, NULL, "MPI support compiled in.", NULL},
    {"have_gpu", config_have_gpu, NULL, "A GPU is in use (CUDA build, device present, BOXFAB_DEVICE != cpu).", NULL},
    {"have_omp", config_have_omp, NULL, "OpenMP build.", NULL},
    {"have_eb", config_false, NULL, "Embedded-boundary support (False).", NULL},
    {"gpu_backend", config_gpu_backend, NULL, "\"CUDA\" when a GPU is in use, else None.", NULL},
    {"precision", config_double, NULL, "Precision of amrex::Real: \"DOUBLE\".", NULL},
    {"precision_particles", config_double, NULL, "Precision of ParticleReal: \"DOUBLE\".", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyObject *config_call(PyObject *cls, PyObject *args, PyObject *kwds) {
  (void)cls, (void)args, (void)kwds;
  PyErr_SetString(PyExc_TypeError,
                  "Config cannot be instantiated: read its values on the class, e.g. Config.spacedim");
  return NULL;
}

static PyType_Slot config_meta_slots[] = {
    {Py_tp_doc, "Metaclass of Config: makes its values class-level properties."},
    {Py_tp_getset, config_getset},
    {Py_tp_call, config_call},
    {0, NULL},
};

static PyType_Spec config_meta_spec = {
    .name = "boxfab._ConfigMeta", .basicsize = 0, .flags = Py_TPFLAGS_DEFAULT, .slots = config_meta_slots};

static int make_config(PyObject *m, int dim) {
  if (!config_meta) {
    PyObject *bases = PyTuple_Pack(1, (PyObject *)&PyType_Type);
    if (!bases) return -1;
    config_meta = (PyTypeObject *)PyType_FromSpecWithBases(&config_meta_spec, bases);
    Py_DECREF(bases);
    if (!config_meta) return -1;
  }
  char modname[32];
  snprintf(modname, sizeof modname, "boxfab.space%dd", dim);
  PyObject *ns = Py_BuildValue(
      "{s:s,s:s,s:s}", "__module__", modname, "__qualname__", "Config", "__doc__",
      "Config: what this build and module offer (never instantiated; every value is class-level: "
      "amrex_version, spacedim, verbose (assignable), have_mpi, have_gpu, have_omp, have_eb, gpu_backend, precision, precision_particles).");
  if (!ns) return -1;
  PyObject *cls = PyObject_CallFunction((PyObject *)config_meta, "s(O)O", "Config", (PyObject *)&PyBaseObject_Type,
                                        ns);
  Py_DECREF(ns);
  if (!cls) return -1;
  bfpy_types[dim][BFPY_T_CONFIG] = (PyTypeObject *)cls; /* the registry owns this reference */
  return PyModule_AddObjectRef(m, "Config", cls);
}

/* ---- ParallelDescriptor ---------------------------------------------------------- */
static PyObject *pd_nprocs(PyObject *self, PyObject *noargs) {
  (void)self, (void)noargs;
  return PyLong_FromLong(bf_parallel_nprocs());
}
static PyObject *pd_myproc(PyObject *self, PyObject *noargs) {
  (void)self, (void)noargs;
  return PyLong_FromLong(bf_parallel_myproc());
}
static PyObject *pd_ioprocessor(PyObject *self, PyObject *noargs) {
  (void)self, (void)noargs;
  return PyBool_FromLong(bf_parallel_myproc() == bf_parallel_ioprocessor_number());
}
static PyObject *pd_ioprocessor_number(PyObject *self, PyObject *noargs) {
  (void)self, (void)noargs;
  return PyLong_FromLong(bf_parallel_ioprocessor_number());
}

static int check_same_mpi(PyObject *mpi);

/* An mpi4py communicator wrapping Fortran handle h (mpi4py on boxfab's MPI
 * checked); ImportError without mpi4py. */
PyObject *bfpy_mpi4py_comm(int64_t h) {
  PyObject *mod = PyImport_ImportModule("mpi4py.MPI");
  if (!mod) return NULL; /* ImportError: needs mpi4py */
  PyObject *r = NULL;
  if (check_same_mpi(mod) == 0) {
    PyObject *comm = PyObject_GetAttrString(mod, "Comm");
    if (comm) r = PyObject_CallMethod(comm, "f2py", "L", (long long)h);
    Py_XDECREF(comm);
  }
  Py_DECREF(mod);
  return r;
}

static PyObject *pd_communicator(PyObject *self, PyObject *noargs) {
  (void)self, (void)noargs;
  int64_t h;
  if (!bf_runtime_initialized()) {
    PyErr_SetString(PyExc_RuntimeError, "ParallelDescriptor.Communicator(): boxfab is not initialized");
    return NULL;
  }
  if (!bf_parallel_uses_mpi()) { /* one process without MPI: mpi4py's world has one rank */
    PyObject *mod = PyImport_ImportModule("mpi4py.MPI");
    if (!mod) return NULL; /* ImportError: Communicator() needs mpi4py */
    PyObject *w = PyObject_GetAttrString(mod, "COMM_WORLD");
    Py_DECREF(mod);
    PyObject *r = w ? PyObject_CallMethod(w, "py2f", NULL) : NULL;
    Py_XDECREF(w);
    return r;
  }
  /* pyAMReX 26: the Fortran handle, for MPI.Comm.f2py (an exported handle is never freed, so it
   * stays valid after finalize()) */
  if (bfpy_check(bf_parallel_communicator(&h)) < 0) return NULL;
  return PyLong_FromLongLong((long long)h);
}

static PyObject *pd_barrier(PyObject *self, PyObject *noargs) {
  (void)self, (void)noargs;
  if (bfpy_check(bf_parallel_barrier()) < 0) return NULL;
  Py_RETURN_NONE;
}

/* ReduceReal..., ReduceInt..., ReduceLong..., ReduceBool...(value, root=-1): value on this rank -> the
 * reduction (on every rank, or on rank root only when given). */
static PyObject *pd_reduce(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, const char *name, int kind,
                           int op) {
  static const char *const kwlist[] = {"value", "root", NULL};
  PyObject *a[2] = {NULL, NULL};
  if (bfpy_bind(args, nargs, kwnames, kwlist, 1, a, true) < 0) return NULL;
  PyObject *value = a[0], *rootobj = a[1];
  int root = -1;
  if (rootobj) {
    int r;
    if (bfpy_to_int(rootobj, &r, "root") < 0) return NULL;
    if (r < -1 || r >= bf_parallel_nprocs()) {
      PyErr_Format(PyExc_ValueError, "%s(): root %d is not a rank (0 to %d, or -1 for every rank)", name, r, bf_parallel_nprocs() - 1);
      return NULL;
    }
    root = (int)r;
  }
  /* The value is converted on each rank, so a conversion can fail on some
   * ranks only (rank-dependent data): such a rank still takes part in the
   * reduction (the others would wait in it, or match its next collective),
   * with a flag beside its value that tells every rank; the flag and the
   * value are reduced with the same op (sum / max / or: 1 = failed; min /
   * and: 0 = failed).  Computed on every rank (root -1: the same single
   * allgather), then non-root ranks keep their own value. */
  /* A list (or tuple) reduces element by element and gives a list (pyAMReX 26: ReduceReal* of a
   * Vector<Real>; ints and bools alike here). */
  const bool many = PyList_Check(value) || PyTuple_Check(value);
  const Py_ssize_t n = many ? PySequence_Fast_GET_SIZE(value) : 1;
  if (n > (1 << 24)) {
    PyErr_Format(PyExc_ValueError, "%s(): at most 2**24 values at once, got %zd", name, n);
    return NULL;
  }
  double *dv = PyMem_Calloc((size_t)n + 1, sizeof *dv);
  int64_t *iv = PyMem_Calloc((size_t)n + 1, sizeof *iv), *mine = PyMem_Calloc((size_t)n + 1, sizeof *mine);
  double *dmine = PyMem_Calloc((size_t)n + 1, sizeof *dmine);
  PyObject *result = NULL;
  if (!dv || !iv || !mine || !dmine) {
    PyErr_NoMemory();
    goto done;
  }
  int bad = 0;
  for (Py_ssize_t k = 0; k < n && !bad; ++k) {
    PyObject *x = many ? PySequence_Fast_GET_ITEM(value, k) : value;
    if (kind == 0) {
      bad = bfpy_to_double(x, &dv[k], "value") < 0;
    } else if (kind == 2) {
      int t = PyObject_IsTrue(x);
      bad = t < 0;
      iv[k] = t > 0;
    } else if (kind == 3) {
      int y = 0;
      bad = bfpy_to_int(x, &y, "value") < 0;
      iv[k] = y;
    } else {
      bad = bfpy_to_int64(x, &iv[k], "value") < 0;
    }
  }
  const bool min_like = op == 1 || op == 3;
  const int64_t flag = min_like ? !bad : bad;
  memcpy(dmine, dv, (size_t)n * sizeof *dv);
  memcpy(mine, iv, (size_t)n * sizeof *iv);
  int err;
  int64_t fl = flag;
  /* every rank must pass the same count: the count goes first through a max and a min */
  int64_t cnt[2] = {(int64_t)n, -(int64_t)n};
  err = bf_parallel_reduce_int64(cnt, 2, 2, -1);
  if (!err && (cnt[0] != (int64_t)n || -cnt[1] != (int64_t)n)) {
    PyErr_Format(PyExc_ValueError, "%s(): the ranks passed different numbers of values (%lld to %lld)", name,
                 (long long)-cnt[1], (long long)cnt[0]);
    goto done;
  }
  if (!err && kind == 0) {
    dv[n] = (double)flag;
    err = bf_parallel_reduce_double(dv, n + 1, op, -1);
    fl = (int64_t)dv[n];
  } else if (!err) {
    iv[n] = flag;
    err = bf_parallel_reduce_int64(iv, n + 1, op, -1);
    fl = iv[n];
  }
  if (!err && (min_like ? fl == 0 : fl != 0)) {
    /* some rank failed (this one too, when bad): every rank learns the lowest
     * failing one (one more collective, on the error path only, on every rank) */
    int64_t first = bad ? bf_parallel_myproc() : bf_parallel_nprocs();
    int e2 = bf_parallel_reduce_int64(&first, 1, 1, -1);
    if (bad) goto done; /* this rank's own exception */
    if (bfpy_check(e2) < 0) goto done;
    PyErr_Format(PyExc_RuntimeError, "%s(): the value on rank %lld could not be converted (it raised there)", name,
                 (long long)first);
    goto done;
  }
  if (bad || bfpy_check(err) < 0) goto done;
  if (root >= 0 && root != bf_parallel_myproc()) { /* the others keep their value */
    memcpy(dv, dmine, (size_t)n * sizeof *dv);
    memcpy(iv, mine, (size_t)n * sizeof *iv);
  }
  if (many && !(result = PyList_New(n))) goto done;
  for (Py_ssize_t k = 0; k < n; ++k) {
    PyObject *x = kind == 0 ? PyFloat_FromDouble(dv[k])
                  : kind == 2 ? PyBool_FromLong(iv[k] != 0)
                              : PyLong_FromLongLong((long long)iv[k]);
    if (!x) {
      Py_CLEAR(result);
      goto done;
    }
    if (!many) {
      result = x;
      break;
    }
    PyList_SET_ITEM(result, k, x);
  }
done:
  PyMem_Free(dv), PyMem_Free(iv), PyMem_Free(mine), PyMem_Free(dmine);
  return result;
}

#define PD_REDUCE(fn, kind, op)                                                                        \
  static PyObject *pd_##fn(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) { \
    (void)self;                                                                                        \
    return pd_reduce(args, nargs, kw, #fn, kind, op);                                                  \
  }
PD_REDUCE(ReduceRealSum, 0, 0)
PD_REDUCE(ReduceRealMin, 0, 1)
PD_REDUCE(ReduceRealMax, 0, 2)
PD_REDUCE(ReduceLongSum, 1, 0)
PD_REDUCE(ReduceLongMin, 1, 1)
PD_REDUCE(ReduceLongMax, 1, 2)
PD_REDUCE(ReduceIntSum, 3, 0)
PD_REDUCE(ReduceIntMin, 3, 1)
PD_REDUCE(ReduceIntMax, 3, 2)
PD_REDUCE(ReduceBoolAnd, 2, 3)
PD_REDUCE(ReduceBoolOr, 2, 4)
#undef PD_REDUCE

#define PD_REDUCE_DEF(fn, doc) \
  {#fn, (PyCFunction)(void (*)(void))pd_##fn, METH_FASTCALL | METH_KEYWORDS, #fn "(value, root=-1) -> " doc}

static PyMethodDef pd_functions[] = {
    {"Communicator", pd_communicator, METH_NOARGS,
     "Communicator() -> int: the Fortran handle of the current runtime instance's communicator (a duplicate of the "
     "one initialize() was given; COMM_WORLD's for a single process without MPI), for mpi4py's MPI.Comm.f2py."},
    {"Barrier", pd_barrier, METH_NOARGS, "Barrier() -> None: wait for every rank."},
    PD_REDUCE_DEF(ReduceRealSum, "float: sum over ranks, added in rank order; the result on every rank (root -1) or on rank root only (the "
                   "others get their own value back)."),
    PD_REDUCE_DEF(ReduceRealMin, "float: minimum over ranks."),
    PD_REDUCE_DEF(ReduceRealMax, "float: maximum over ranks."),
    PD_REDUCE_DEF(ReduceLongSum, "int: 64-bit sum over ranks."),
    PD_REDUCE_DEF(ReduceLongMin, "int: minimum over ranks."),
    PD_REDUCE_DEF(ReduceLongMax, "int: maximum over ranks."),
    PD_REDUCE_DEF(ReduceIntSum, "int: sum over ranks (values must fit a C int)."),
    PD_REDUCE_DEF(ReduceIntMin, "int: minimum over ranks."),
    PD_REDUCE_DEF(ReduceIntMax, "int: maximum over ranks."),
    PD_REDUCE_DEF(ReduceBoolAnd, "bool: true when true on every rank."),
    PD_REDUCE_DEF(ReduceBoolOr, "bool: true when true on some rank."),
    {"NProcs", pd_nprocs, METH_NOARGS, "NProcs() -> int: number of ranks (1 without MPI)."},
    {"MyProc", pd_myproc, METH_NOARGS, "MyProc() -> int: this rank."},
    {"IOProcessor", pd_ioprocessor, METH_NOARGS, "IOProcessor() -> bool: True on the I/O rank."},
    {"IOProcessorNumber", pd_ioprocessor_number, METH_NOARGS, "IOProcessorNumber() -> int: the I/O rank (0)."},
    {NULL, NULL, 0, NULL},
};

static int make_parallel_descriptor(PyObject *m, int dim) {
  char name[64];
  snprintf(name, sizeof name, "boxfab.space%dd.ParallelDescriptor", dim);
  PyObject *pd = PyModule_New(name);
  if (!pd) return -1;
  if (PyModule_AddFunctions(pd, pd_functions) < 0 ||
      PyModule_AddStringConstant(pd, "__doc__", "Parallel descriptor: the ranks of this run.") < 0) {
    Py_DECREF(pd);
    return -1;
  }
  if (PyModule_AddObject(m, "ParallelDescriptor", pd) < 0) {
    Py_DECREF(pd);
    return -1;
  }
  return 0;
}

/* ---- initialize / finalize ------------------------------------------------------- */
static int check_token(PyObject *item, void *ctx, const char *what) {
  (void)ctx;
  if (PyUnicode_Check(item)) return 0;
  PyErr_Format(PyExc_TypeError, "%s must be a str, not %.100s", what, Py_TYPE(item)->tp_name);
  return -1;
}

/* The MPI library mpi4py runs on must be the one boxfab was built with (two
 * MPI libraries in one process cannot share a communicator). */
static int check_same_mpi(PyObject *mpi) {
  PyObject *v = PyObject_CallMethod(mpi, "Get_library_version", NULL);
  if (!v) return -1;
  const char *theirs = PyUnicode_Check(v) ? PyUnicode_AsUTF8(v) : NULL;
  if (!theirs) {
    Py_DECREF(v);
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "mpi4py's Get_library_version() did not return a str");
    return -1;
  }
  char ours[512];
  bf_parallel_mpi_library(ours, sizeof ours);
  size_t n = strcspn(ours, ","), m = strcspn(theirs, ",");
  int same = n == m && strncmp(ours, theirs, n) == 0;
  if (!same)
    PyErr_Format(PyExc_RuntimeError,
                 "mpi4py runs on another MPI library than boxfab: mpi4py has \"%.*s\", boxfab was built with "
                 "\"%.*s\"; install mpi4py for boxfab's MPI (e.g. pip install --no-binary mpi4py mpi4py)",
                 (int)(m > 120 ? 120 : m), theirs, (int)(n > 120 ? 120 : n), ours);
  Py_DECREF(v);
  return same ? 0 : -1;
}

/* The Fortran handle of an mpi4py communicator (comm.py2f()), checked. */
static int comm_handle(PyObject *comm, int64_t *out) {
  /* an mpi4py communicator exists only once mpi4py.MPI is imported: never
   * import it here (importing it starts MPI) */
  PyObject *name = PyUnicode_FromString("mpi4py.MPI");
  if (!name) return -1;
  PyObject *mod = PyImport_GetModule(name);
  Py_DECREF(name);
  if (!mod) {
    if (PyErr_Occurred()) return -1;
    PyErr_Format(PyExc_TypeError, "initialize(): comm must be an mpi4py communicator (MPI.Intracomm), not %.100s",
                 Py_TYPE(comm)->tp_name);
    return -1;
  }
  int rc = -1;
  PyObject *cls = PyObject_GetAttrString(mod, "Intracomm"), *h = NULL;
  if (!cls) goto done;
  int is = PyObject_IsInstance(comm, cls);
  if (is < 0) goto done;
  if (!is) {
    PyErr_Format(PyExc_TypeError, "initialize(): comm must be an mpi4py intracommunicator (MPI.Intracomm), not %.100s",
                 Py_TYPE(comm)->tp_name);
    goto done;
  }
  if (!bf_build_has_mpi()) {
    PyErr_SetString(PyExc_RuntimeError,
                    "initialize(): a communicator was given but boxfab was built without MPI (install an MPI, e.g. "
                    "Debian's libopenmpi-dev, and rebuild boxfab)");
    goto done;
  }
  if (check_same_mpi(mod) < 0) goto done;
  h = PyObject_CallMethod(comm, "py2f", NULL);
  if (!h) goto done;
  long long v = PyLong_AsLongLong(h);
  if (v == -1 && PyErr_Occurred()) goto done;
  *out = v;
  rc = 0;
done:
  Py_XDECREF(h);
  Py_XDECREF(cls);
  Py_DECREF(mod);
  return rc;
}

static PyObject *rt_initialize(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  PyObject *comm = nargs == 2 ? args[1] : NULL;
  if (nkw == 1 && nargs == 1 && PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "comm") == 0)
    comm = args[1];
  else if (nkw || nargs < 1 || nargs > 2) {
    PyErr_SetString(PyExc_TypeError,
                    "initialize(args: list[str], /, comm=None) takes the list of tokens and optionally an mpi4py "
                    "communicator");
    return NULL;
  }
  int64_t comm_f = BF_COMM_WORLD;
  if (comm == Py_None) comm = NULL;
  if (comm && comm_handle(comm, &comm_f) < 0) return NULL;
  PyObject *list = args[0];
  if (PyUnicode_Check(list) || PyBytes_Check(list) || PyByteArray_Check(list) ||
      (!PySequence_Check(list) && !Py_TYPE(list)->tp_iter)) {
    PyErr_Format(PyExc_TypeError, "initialize() expects a list of \"key=value\" str tokens, not %.100s",
                 Py_TYPE(list)->tp_name);
    return NULL;
  }
  /* every token checked to be a str as it is read (INT_MAX of them at most) */
  PyObject *seq = bfpy_fast_sequence(list, INT_MAX, check_token, NULL, "initialize() token", "\"key=value\" strs");
  if (!seq) return NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  const char **tokens = PyMem_Calloc((size_t)n + 1, sizeof *tokens);
  PyObject *result = NULL;
  if (!tokens) {
    PyErr_NoMemory();
    goto done;
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *item = PySequence_Fast_GET_ITEM(seq, i); /* a str: check_token */
    Py_ssize_t len;
    tokens[i] = PyUnicode_AsUTF8AndSize(item, &len);
    if (!tokens[i]) goto done;
    if ((size_t)len != strlen(tokens[i])) {
      PyErr_Format(PyExc_ValueError, "initialize(): token %zd contains a NUL character", i);
      goto done;
    }
  }
  uint64_t id;
  if (bfpy_check(bf_runtime_initialize_comm(bfpy_module_dim(self), (int)n, tokens, comm_f, &id)) < 0) goto done;
  result = amrex_new_handle(bfpy_module_dim(self), id);
done:
  PyMem_Free(tokens);
  Py_DECREF(seq);
  return result;
}

static PyObject *rt_initialized(PyObject *self, PyObject *noargs) {
  (void)self, (void)noargs;
  return PyBool_FromLong(bf_runtime_initialized());
}

static PyObject *rt_size(PyObject *self, PyObject *noargs) {
  (void)self, (void)noargs;
  return PyLong_FromLong(bf_runtime_size());
}

static PyObject *rt_finalize(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  (void)self;
  if ((kwnames && PyTuple_GET_SIZE(kwnames)) || nargs > 1) {
    PyErr_SetString(PyExc_TypeError, "finalize() takes no argument or one positional AMReX instance");
    return NULL;
  }
  uint64_t id = 0;
  if (nargs == 1 && !(id = amrex_handle_id(args[0], "finalize()"))) return NULL;
  if (run_gc_collect() < 0) return NULL;
  if (bfpy_check(nargs == 1 ? bf_runtime_finalize_instance(id) : bf_runtime_finalize()) < 0) return NULL;
  Py_RETURN_NONE;
}

/* ---- Print, d_decl, concatenate ------------------------------------------------- */
static PyObject *rt_print(PyObject *self, PyObject *args, PyObject *kwargs) {
  (void)self;
  PyObject *print = PyDict_GetItemString(PyEval_GetBuiltins(), "print"); /* borrowed */
  if (!print) {
    PyErr_SetString(PyExc_RuntimeError, "Print(): builtins.print is not available");
    return NULL;
  }
  if (!bf_runtime_initialized()) {
    PyObject *r = PyObject_CallFunction(print, "s", "warning: Print all - AMReX not initialized");
    if (!r) return NULL;
    Py_DECREF(r);
  } else if (bf_parallel_myproc() != bf_parallel_ioprocessor_number()) {
    Py_RETURN_NONE;
  }
  PyObject *r = PyObject_Call(print, args, kwargs);
  if (!r) return NULL;
  Py_DECREF(r);
  Py_RETURN_NONE;
}

static PyObject *rt_d_decl(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  int dim = bfpy_module_dim(self);
  if ((kwnames && PyTuple_GET_SIZE(kwnames)) || nargs != dim) {
    static const char *const sig[] = {"", "d_decl(x)", "d_decl(x, y)", "d_decl(x, y, z)"};
    return PyErr_Format(PyExc_TypeError, "%s takes exactly %d positional argument%s in %dD (%zd given)", sig[dim],
                        dim, dim > 1 ? "s" : "", dim, nargs);
  }
  PyObject *t = PyTuple_New(nargs);
  if (!t) return NULL;
  for (Py_ssize_t i = 0; i < nargs; ++i) PyTuple_SET_ITEM(t, i, Py_NewRef(args[i]));
  return t;
}

static PyObject *rt_concatenate(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  (void)self;
  static const char *const names[] = {"root", "num", "mindigits", NULL};
  PyObject *a[3];
  if (bfpy_bind(args, nargs, kwnames, names, 2, a, true) < 0) return NULL;
  if (!PyUnicode_Check(a[0]))
    return PyErr_Format(PyExc_TypeError, "concatenate(): root must be a str, not %.100s", Py_TYPE(a[0])->tp_name);
  int num, mindigits = 5;
  if (bfpy_to_int(a[1], &num, "concatenate() num") < 0) return NULL;
  if (a[2] && bfpy_to_int(a[2], &mindigits, "concatenate() mindigits") < 0) return NULL;
  if (mindigits < 0) return PyErr_Format(PyExc_ValueError, "concatenate(): mindigits must be >= 0, got %d", mindigits);
  /* AMReX_String.cpp Concatenate: root << std::setfill('0') << std::setw(mindigits) << num.
   * The stream's default adjustment is right: the fill goes before the whole
   * number, sign included (-5 with mindigits 5 is "000-5", not "-0005"). */
  char num_s[16];
  int nd = snprintf(num_s, sizeof num_s, "%d", num);
  size_t width = (size_t)(mindigits > nd ? mindigits : nd);
  char *buf = PyMem_Malloc(width + 1);
  if (!buf) return PyErr_NoMemory();
  memset(buf, '0', width - (size_t)nd);
  memcpy(buf + width - (size_t)nd, num_s, (size_t)nd + 1);
  PyObject *digits = PyUnicode_FromString(buf);
  PyMem_Free(buf);
  if (!digits) return NULL;
  PyObject *r = PyUnicode_Concat(a[0], digits);
  Py_DECREF(digits);
  return r;
}

/* ---- unpack_ids / unpack_cpus ----------------------------------------------------- */
static bool is_uint64_format(const Py_buffer *b) {
  const char *f = b->format ? b->format : "B";
  if (*f == '@' || *f == '=' || *f == '<') ++f;
  else if (*f == '>' || *f == '!') return false; /* big-endian data on a little-endian host */
  return b->itemsize == 8 && (strcmp(f, "Q") == 0 || strcmp(f, "L") == 0);
}

static PyObject *rt_unpack(PyObject *arg, bool ids) {
  const char *fname = ids ? "unpack_ids()" : "unpack_cpus()";
  /* a single packed value: a Python int, or an int-like without the buffer
   * protocol (NumPy arrays and scalars have __index__ but go the array way) */
  if (PyLong_Check(arg) || (!PyObject_CheckBuffer(arg) && bfpy_is_intlike(arg))) {
    PyObject *idx = PyNumber_Index(arg);
    if (!idx) return NULL;
    unsigned long long v = PyLong_AsUnsignedLongLong(idx);
    Py_DECREF(idx);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
      if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
        PyErr_Clear();
        PyErr_Format(PyExc_OverflowError, "%s: a packed idcpu must fit in uint64 (0 <= v < 2**64)", fname);
      }
      return NULL;
    }
    return ids ? PyLong_FromLongLong(bf_idcpu_id(v)) : PyLong_FromLong(bf_idcpu_cpu(v));
  }
  PyObject *np = PyImport_ImportModule("numpy");
  if (!np) return NULL;
  PyObject *src = NULL, *out = NULL, *result = NULL;
  Py_buffer in = {0}, ob = {0};
  if (PyObject_CheckBuffer(arg)) {
    /* zero-copy when already C-contiguous; non-contiguous views are copied once */
    src = PyObject_CallMethod(np, "asarray", "OOs", arg, Py_None, "C");
  } else if (PyUnicode_Check(arg) || PyBytes_Check(arg)) {
    PyErr_Format(PyExc_TypeError, "%s expects a uint64 array or an int, not %.100s", fname, Py_TYPE(arg)->tp_name);
    goto done;
  } else { /* a list of ints etc.: NumPy converts (OverflowError for negative values), floats are refused */
    PyObject *probe = PyObject_CallMethod(np, "asarray", "O", arg);
    PyObject *dtype = probe ? PyObject_GetAttrString(probe, "dtype") : NULL;
    PyObject *kind = dtype ? PyObject_GetAttrString(dtype, "kind") : NULL;
    const char *k = kind ? PyUnicode_AsUTF8(kind) : NULL;
    if (k && !strchr("iuO", k[0]))
      PyErr_Format(PyExc_TypeError, "%s expects a uint64 array or ints, not %.100s", fname, Py_TYPE(arg)->tp_name);
    else if (k)
      src = PyObject_CallMethod(np, "asarray", "Os", arg, "uint64");
    Py_XDECREF(kind), Py_XDECREF(dtype), Py_XDECREF(probe);
  }
  if (!src || PyObject_GetBuffer(src, &in, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) goto done;
  if (!is_uint64_format(&in)) {
    PyErr_Format(PyExc_TypeError, "%s expects an array of uint64 (native byte order), got format '%s' of %zd bytes",
                 fname, in.format ? in.format : "B", in.itemsize);
    goto done;
  }
  PyObject *shape = PyTuple_New(in.ndim);
  if (!shape) goto done;
  for (int d = 0; d < in.ndim; ++d) PyTuple_SET_ITEM(shape, d, PyLong_FromSsize_t(in.shape[d]));
  out = PyObject_CallMethod(np, "empty", "Os", shape, ids ? "int64" : "int32");
  Py_DECREF(shape);
  if (!out || PyObject_GetBuffer(out, &ob, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) goto done;
  int64_t n = (int64_t)(in.len / 8);
  int st = ids ? bf_idcpu_unpack_ids(n, in.buf, ob.buf) : bf_idcpu_unpack_cpus(n, in.buf, ob.buf);
  if (bfpy_check(st) < 0) goto done;
  if (in.ndim == 0) { /* a 0-d array (e.g. a NumPy uint64 scalar) gives a NumPy scalar */
    PyObject *empty = PyTuple_New(0);
    result = empty ? PyObject_GetItem(out, empty) : NULL;
    Py_XDECREF(empty);
  } else {
    result = Py_NewRef(out);
  }
done:
  if (ob.obj) PyBuffer_Release(&ob);
  if (in.obj) PyBuffer_Release(&in);
  Py_XDECREF(out);
  Py_XDECREF(src);
  Py_DECREF(np);
  return result;
}

static PyObject *rt_unpack_ids(PyObject *self, PyObject *arg) {
  (void)self;
  return rt_unpack(arg, true);
}

static PyObject *rt_unpack_cpus(PyObject *self, PyObject *arg) {
  (void)self;
  return rt_unpack(arg, false);
}

static PyMethodDef runtime_functions[] = {
    {"initialize", (PyCFunction)(void (*)(void))rt_initialize, METH_FASTCALL | METH_KEYWORDS,
     "initialize(args: list[str], /, comm=None) -> AMReX: start a runtime instance (on the mpi4py communicator "
     "comm when given, else MPI_COMM_WORLD in an MPI run); the \"key=value\" tokens go into the "
     "parameter store when the list is not empty (ValueError for a token without '=')."},
    {"initialized", rt_initialized, METH_NOARGS, "initialized() -> bool: a runtime instance is active."},
    {"finalize", (PyCFunction)(void (*)(void))rt_finalize, METH_FASTCALL | METH_KEYWORDS,
     "finalize() / finalize(instance: AMReX, /) -> None: gc.collect(), then finalize the top (or the given) "
     "instance. RuntimeError when it is not active."},
    {"size", rt_size, METH_NOARGS, "size() -> int: number of active runtime instances."},
    {"Print", (PyCFunction)(void (*)(void))rt_print, METH_VARARGS | METH_KEYWORDS,
     "Print(*args, **kwargs) -> None: print() on the I/O rank only; before initialize(), prints a warning and "
     "then prints on every rank."},
    {"d_decl", (PyCFunction)(void (*)(void))rt_d_decl, METH_FASTCALL | METH_KEYWORDS,
     "d_decl(x[, y[, z]]) -> tuple: the module's N arguments as a tuple."},
    {"concatenate", (PyCFunction)(void (*)(void))rt_concatenate, METH_FASTCALL | METH_KEYWORDS,
     "concatenate(root: str, num: int, mindigits: int = 5) -> str: root followed by num zero-padded to at least "
     "mindigits characters (\"plt\", 5 -> \"plt00005\")."},
    {"unpack_ids", rt_unpack_ids, METH_O,
     "unpack_ids(idcpu: ndarray[uint64], /) -> ndarray[int64]: particle ids (bits 24..62, bit 63 set = positive); "
     "an int gives an int."},
    {"unpack_cpus", rt_unpack_cpus, METH_O,
     "unpack_cpus(idcpu: ndarray[uint64], /) -> ndarray[int32]: owning ranks (low 24 bits); an int gives an int."},
    {NULL, NULL, 0, NULL},
};

/* ---- the runtime's messages ------------------------------------------------------ */
/* AMReX's initialization and finalization lines (amrex.verbose > 0) go through
 * sys.stdout / sys.stderr, so that they keep their place among the script's own
 * print() output however the streams are buffered (and pytest's capture sees them).
 * Without an interpreter (after Py_Finalize) they go to C's streams. */
static void runtime_output(int stream, const char *text, void *ctx) {
  (void)ctx;
  if (!Py_IsInitialized()) {
    FILE *f = stream == 2 ? stderr : stdout;
    fputs(text, f);
    fflush(f);
    return;
  }
  PyGILState_STATE g = PyGILState_Ensure();
  if (stream == 2)
    PySys_FormatStderr("%s", text);
  else
    PySys_FormatStdout("%s", text);
  PyGILState_Release(g);
}

/* ---- family init ------------------------------------------------------------------ */
int bfpy_init_runtime(PyObject *m, int dim) {
  bf_runtime_set_output(runtime_output, NULL);
  PyTypeObject *amrex = bfpy_make_type(m, dim, BFPY_T_AMREX, "AMReX", &amrex_spec, NULL);
  if (!amrex || amrex_add_top(amrex) < 0) return -1;
  if (make_config(m, dim) < 0 || make_parallel_descriptor(m, dim) < 0) return -1;
  if (PyModule_AddFunctions(m, runtime_functions) < 0) return -1;
  char doc[160];
  snprintf(doc, sizeof doc,
           "boxfab in %d dimension(s): AMReX's block-structured data model in C, with pyAMReX's API "
           "(amrex.space%dd).",
           dim, dim);
  PyObject *d = PyUnicode_FromString(doc);
  if (!d || PyObject_SetAttrString(m, "__doc__", d) < 0) {
    Py_XDECREF(d);
    return -1;
  }
  Py_DECREF(d);
  if (PyModule_AddStringConstant(m, "__version__", bf_version()) < 0 ||
      PyModule_AddStringConstant(m, "__author__", "the boxfab developers") < 0 ||
      PyModule_AddStringConstant(m, "__license__", "BSD-3-Clause") < 0)
    return -1;
  return 0;
}
