/* write_single_level_plotfile, write_multi_level_plotfile: module functions
 * over the C writers of include/boxfab/plotfile.h (issue 11).
 *
 * Arguments follow AMReX's (pyAMReX binds only the single-level one):
 * varnames / extra_dirs are a Vector_string or any iterable of str; the
 * per-level arguments of the multi-level writer are Python sequences or the
 * matching Vector_* types.  The on-disk precision is AMReX's: the run-time
 * parameter fab.format ("NATIVE" / "IEEE" = float64, "NATIVE_32" / "IEEE_32"
 * = float32), read at each write. */
#include <limits.h>
#include <string.h>

#include "bfpy.h"
#include "mesh/multifab.h"
#include "boxfab/parmparse.h"
#include "boxfab/plotfile.h"

#define PF_MAX_LEVELS 1000
#define PF_MAX_NAMES (1 << 20)

static int pf_check_str(PyObject *item, void *ctx, const char *what) {
  (void)ctx;
  if (PyUnicode_Check(item)) return 0;
  PyErr_Format(PyExc_TypeError, "%s must hold str items, not %.100s", what, Py_TYPE(item)->tp_name);
  return -1;
}

/* UTF-8 pointers of the items of a str tuple (borrowed from it). */
static const char **pf_utf8_list(PyObject *tuple, const char *what) {
  Py_ssize_t n = PyTuple_GET_SIZE(tuple);
  const char **out = PyMem_Calloc((size_t)(n ? n : 1), sizeof *out);
  if (!out) return (const char **)PyErr_NoMemory();
  for (Py_ssize_t i = 0; i < n; ++i) {
    Py_ssize_t len;
    out[i] = PyUnicode_AsUTF8AndSize(PyTuple_GET_ITEM(tuple, i), &len);
    if (!out[i]) {
      PyMem_Free(out);
      return NULL;
    }
    if ((Py_ssize_t)strlen(out[i]) != len) {
      PyErr_Format(PyExc_ValueError, "%s: item %zd holds a NUL character", what, i);
      PyMem_Free(out);
      return NULL;
    }
  }
  return out;
}

static int pf_precision(int *precision) {
  bool found = false;
  const char *fmt = NULL;
  *precision = BF_DTYPE_DOUBLE;
  if (bf_parmparse_query_string("fab.format", 0, &found, &fmt) != BF_SUCCESS) {
    bf_error_clear();
    return 0;
  }
  if (!found || !fmt) return 0;
  if (!strcmp(fmt, "NATIVE_32") || !strcmp(fmt, "IEEE_32")) {
    *precision = BF_DTYPE_FLOAT;
  } else if (strcmp(fmt, "NATIVE") && strcmp(fmt, "IEEE")) {
    PyErr_Format(PyExc_ValueError, "fab.format must be NATIVE, NATIVE_32, IEEE or IEEE_32, got '%s'", fmt);
    return -1;
  }
  return 0;
}

typedef struct {
  PyObject *names, *extra;        /* tuples of str */
  const char **cnames, **cextra;
  bf_plotfile_options opt;
} pf_common;

static void pf_common_free(pf_common *c) {
  Py_XDECREF(c->names), Py_XDECREF(c->extra);
  PyMem_Free(c->cnames), PyMem_Free(c->cextra);
}

/* path, varnames and the optional trailing arguments (versionName, levelPrefix, mfPrefix, extra_dirs). */
static int pf_common_args(PyObject *const *a, pf_common *c, const char **path, const char *func) {
  memset(c, 0, sizeof *c);
  if (!PyUnicode_Check(a[0]) && !PyBytes_Check(a[0]) && !PyObject_HasAttrString(a[0], "__fspath__")) {
    PyErr_Format(PyExc_TypeError, "%s: plotfilename must be a str, not %.100s", func, Py_TYPE(a[0])->tp_name);
    return -1;
  }
  (void)path;
  if (!(c->names = bfpy_fast_sequence(a[1], PF_MAX_NAMES, pf_check_str, NULL, "varnames", "str"))) return -1;
  if (!(c->cnames = pf_utf8_list(c->names, "varnames"))) return -1;
  const char *what[3] = {"versionName", "levelPrefix", "mfPrefix"};
  const char **dst[3] = {&c->opt.version_name, &c->opt.level_prefix, &c->opt.mf_prefix};
  for (int i = 0; i < 3; ++i) {
    PyObject *o = a[2 + i];
    if (!o) continue;
    if (!PyUnicode_Check(o)) {
      PyErr_Format(PyExc_TypeError, "%s: %s must be a str, not %.100s", func, what[i], Py_TYPE(o)->tp_name);
      return -1;
    }
    Py_ssize_t len;
    if (!(*dst[i] = PyUnicode_AsUTF8AndSize(o, &len))) return -1;
    if ((Py_ssize_t)strlen(*dst[i]) != len) {
      PyErr_Format(PyExc_ValueError, "%s: %s holds a NUL character", func, what[i]);
      return -1;
    }
  }
  if (a[5]) {
    if (!(c->extra = bfpy_fast_sequence(a[5], PF_MAX_LEVELS, pf_check_str, NULL, "extra_dirs", "str"))) return -1;
    if (!(c->cextra = pf_utf8_list(c->extra, "extra_dirs"))) return -1;
    c->opt.n_extra_dirs = (int)PyTuple_GET_SIZE(c->extra);
    c->opt.extra_dirs = c->cextra;
  }
  return pf_precision(&c->opt.precision);
}

/* A path (str, bytes or os.PathLike) as the bytes the file system sees: os.fsencode's rules, so that
 * names that are not UTF-8 (str with surrogate escapes from os.listdir, or bytes) name their file, as
 * in open() and the particle writers (they raised UnicodeEncodeError). */
static PyObject *pf_fspath(PyObject *o) {
  PyObject *b = NULL;
  if (!PyUnicode_FSConverter(o, &b)) return NULL;
  return b;
}

static const char *pf_path_utf8(PyObject *p) {
  const char *s = PyBytes_AS_STRING(p);
  if ((Py_ssize_t)strlen(s) != PyBytes_GET_SIZE(p)) {
    PyErr_SetString(PyExc_ValueError, "the path holds a NUL character");
    return NULL;
  }
  return s;
}

static PyObject *pf_write_single(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"plotfilename", "mf",          "varnames", "geom",     "time", "level_step",
                                      "versionName",  "levelPrefix", "mfPrefix", "extra_dirs", NULL};
  const char *func = "write_single_level_plotfile()";
  int dim = bfpy_module_dim(self);
  PyObject *a[10];
  if (bfpy_bind(args, nargs, kwnames, names, 6, a, true) < 0) return NULL;
  PyObject *common[6] = {a[0], a[2], a[6], a[7], a[8], a[9]};
  pf_common c;
  PyObject *path = NULL, *result = NULL;
  if (pf_common_args(common, &c, NULL, func) < 0) goto done;
  bf_multifab *mf = bfpy_mf_arg(a[1], dim, BF_DTYPE_DOUBLE, "write_single_level_plotfile() mf");
  if (!mf) goto done;
  bf_geometry geom;
  double time;
  int step;
  if (bfpy_as_geometry(a[3], dim, &geom, "write_single_level_plotfile() geom") < 0) goto done;
  if (bfpy_to_double(a[4], &time, "write_single_level_plotfile() time") < 0) goto done;
  if (bfpy_to_int(a[5], &step, "write_single_level_plotfile() level_step") < 0) goto done;
  if (!(path = pf_fspath(a[0]))) goto done;
  const char *p = pf_path_utf8(path);
  if (!p) goto done;
  /* The GIL stays held: the MultiFab belongs to the caller, and another thread's mf.clear() (or define)
   * during the write freed the data under it (a segfault).  Files of new objects release it below. */
  int nv = (int)PyTuple_GET_SIZE(c.names);
  int st = bf_write_single_level_plotfile(p, mf, nv, c.cnames, &geom, time, step, &c.opt);
  if (st) {
    bfpy_raise(st);
    goto done;
  }
  result = Py_NewRef(Py_None);
done:
  Py_XDECREF(path);
  pf_common_free(&c);
  return result;
}

static PyObject *pf_write_multi(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"plotfilename", "nlevels",     "mf",       "varnames",   "geom",
                                      "time",         "level_steps", "ref_ratio", "versionName", "levelPrefix",
                                      "mfPrefix",     "extra_dirs",  NULL};
  const char *func = "write_multi_level_plotfile()";
  int dim = bfpy_module_dim(self);
  PyObject *a[12];
  if (bfpy_bind(args, nargs, kwnames, names, 8, a, true) < 0) return NULL;
  PyObject *common[6] = {a[0], a[3], a[8], a[9], a[10], a[11]};
  pf_common c;
  PyObject *path = NULL, *result = NULL, *mfs_t = NULL, *geoms_t = NULL, *steps_t = NULL, *rr_t = NULL;
  const bf_multifab **mfs = NULL;
  bf_geometry *geoms = NULL;
  int *steps = NULL;
  bf_intvect *rr = NULL;
  if (pf_common_args(common, &c, NULL, func) < 0) goto done;
  int nlevels;
  double time;
  if (bfpy_to_int(a[1], &nlevels, "write_multi_level_plotfile() nlevels") < 0) goto done;
  if (nlevels < 1 || nlevels > PF_MAX_LEVELS) {
    PyErr_Format(PyExc_ValueError, "%s: nlevels must be in [1, %d], got %d", func, PF_MAX_LEVELS, nlevels);
    goto done;
  }
  if (bfpy_to_double(a[5], &time, "write_multi_level_plotfile() time") < 0) goto done;
  if (!(mfs_t = bfpy_fast_sequence(a[2], PF_MAX_LEVELS, NULL, NULL, "mf", "MultiFab"))) goto done;
  if (!(geoms_t = bfpy_fast_sequence(a[4], PF_MAX_LEVELS, NULL, NULL, "geom", "Geometry"))) goto done;
  if (!(steps_t = bfpy_fast_sequence(a[6], PF_MAX_LEVELS, bfpy_check_int_item, NULL, "level_steps", "int")))
    goto done;
  if (!(rr_t = bfpy_fast_sequence(a[7], PF_MAX_LEVELS, NULL, NULL, "ref_ratio", "IntVect"))) goto done;
  if (PyTuple_GET_SIZE(mfs_t) < nlevels || PyTuple_GET_SIZE(geoms_t) < nlevels ||
      PyTuple_GET_SIZE(steps_t) < nlevels || PyTuple_GET_SIZE(rr_t) < nlevels - 1) {
    PyErr_Format(PyExc_ValueError,
                 "%s: %d levels need %d MultiFabs, Geometries and level_steps and %d ref_ratios (got %zd, %zd, "
                 "%zd, %zd)",
                 func, nlevels, nlevels, nlevels - 1, PyTuple_GET_SIZE(mfs_t), PyTuple_GET_SIZE(geoms_t),
                 PyTuple_GET_SIZE(steps_t), PyTuple_GET_SIZE(rr_t));
    goto done;
  }
  mfs = PyMem_Calloc((size_t)nlevels, sizeof *mfs);
  geoms = PyMem_Calloc((size_t)nlevels, sizeof *geoms);
  steps = PyMem_Calloc((size_t)nlevels, sizeof *steps);
  rr = PyMem_Calloc((size_t)nlevels, sizeof *rr);
  if (!mfs || !geoms || !steps || !rr) {
    PyErr_NoMemory();
    goto done;
  }
  for (int l = 0; l < nlevels; ++l) {
    if (!(mfs[l] = bfpy_mf_arg(PyTuple_GET_ITEM(mfs_t, l), dim, BF_DTYPE_DOUBLE, "write_multi_level_plotfile() mf")))
      goto done;
    if (bfpy_as_geometry(PyTuple_GET_ITEM(geoms_t, l), dim, &geoms[l], "write_multi_level_plotfile() geom") < 0)
      goto done;
    if (bfpy_to_int(PyTuple_GET_ITEM(steps_t, l), &steps[l], "write_multi_level_plotfile() level_steps") < 0)
      goto done;
    if (l + 1 < nlevels && bfpy_as_intvect(PyTuple_GET_ITEM(rr_t, l), dim, BFPY_IV_SEQUENCE | BFPY_IV_SCALAR, &rr[l],
                                           "write_multi_level_plotfile() ref_ratio") < 0)
      goto done;
  }
  if (!(path = pf_fspath(a[0]))) goto done;
  const char *p = pf_path_utf8(path);
  if (!p) goto done;
  /* The GIL stays held: the MultiFab belongs to the caller, and another thread's mf.clear() (or define)
   * during the write freed the data under it (a segfault).  Files of new objects release it below. */
  int nv = (int)PyTuple_GET_SIZE(c.names);
  int st = bf_write_multi_level_plotfile(p, nlevels, mfs, nv, c.cnames, geoms, time, steps, rr, &c.opt);
  if (st) {
    bfpy_raise(st);
    goto done;
  }
  result = Py_NewRef(Py_None);
done:
  Py_XDECREF(path), Py_XDECREF(mfs_t), Py_XDECREF(geoms_t), Py_XDECREF(steps_t), Py_XDECREF(rr_t);
  PyMem_Free(mfs), PyMem_Free(geoms), PyMem_Free(steps), PyMem_Free(rr);
  pf_common_free(&c);
  return result;
}

static PyMethodDef plotfile_functions[] = {
    {"write_single_level_plotfile", (PyCFunction)(void (*)(void))pf_write_single, METH_FASTCALL | METH_KEYWORDS,
     "write_single_level_plotfile(plotfilename: str, mf: MultiFab, varnames: Vector_string, geom: Geometry, "
     "time: float, level_step: int, versionName: str = 'HyperCLaw-V1.1', levelPrefix: str = 'Level_', "
     "mfPrefix: str = 'Cell', extra_dirs: Vector_string = []) -> None\n\n"
     "Write an AMReX plotfile directory (valid cells only), atomically: a temporary directory beside it is "
     "renamed into place; an existing one is moved to <name>.old.<unique>; missing parent folders are made "
     "(mkdir -p).  ValueError for a variable name that would not read back (empty, a line break, a blank at "
     "either end); OSError when it cannot be written."},
    {"write_multi_level_plotfile", (PyCFunction)(void (*)(void))pf_write_multi, METH_FASTCALL | METH_KEYWORDS,
     "write_multi_level_plotfile(plotfilename: str, nlevels: int, mf: list[MultiFab], varnames: Vector_string, "
     "geom: list[Geometry], time: float, level_steps: list[int], ref_ratio: list[IntVect], "
     "versionName: str = 'HyperCLaw-V1.1', levelPrefix: str = 'Level_', mfPrefix: str = 'Cell', "
     "extra_dirs: Vector_string = []) -> None\n\n"
     "Write an AMReX plotfile of nlevels levels (AMReX's WriteMultiLevelPlotfile; not bound by pyAMReX)."},
    {NULL, NULL, 0, NULL},
};

/* ==== PlotFileData ============================================================================ */
typedef struct {
  PyObject_HEAD int dim;
  bf_plotfile_data *p; /* never NULL after construction */
} pfd_object;
#define PFD(o) ((pfd_object *)(o))

static PyObject *pfd_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
  int dim = bfpy_type_dim(type, BFPY_T_PLOTFILEDATA);
  PyObject *path = NULL;
  static char *kw[] = {"", NULL};
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "O:PlotFileData", kw, &path)) return NULL;
  PyObject *ps = pf_fspath(path);
  if (!ps) return NULL;
  const char *p = pf_path_utf8(ps);
  if (!p) {
    Py_DECREF(ps);
    return NULL;
  }
  bf_plotfile_data *h = NULL;
  int st;
  if (bf_parallel_uses_mpi()) { /* collective: MPI is called from one thread at a time (SERIALIZED) */
    st = bf_plotfile_data_open(p, &h);
  } else {
    Py_BEGIN_ALLOW_THREADS st = bf_plotfile_data_open(p, &h);
    Py_END_ALLOW_THREADS
  }
  Py_DECREF(ps);
  if (st) return bfpy_raise(st);
  if (bf_plotfile_data_dim(h) != dim) {
    int fd = bf_plotfile_data_dim(h);
    bf_plotfile_data_destroy(&h);
    return PyErr_Format(PyExc_ValueError, "PlotFileData: the plotfile is %dD, this module is %dD (use space%dd)", fd,
                        dim, fd);
  }
  PyObject *o = type->tp_alloc(type, 0);
  if (!o) {
    bf_plotfile_data_destroy(&h);
    return NULL;
  }
  PFD(o)->dim = dim, PFD(o)->p = h;
  return o;
}

static void pfd_dealloc(PyObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  bf_plotfile_data_destroy(&PFD(self)->p);
  tp->tp_free(self);
  Py_DECREF(tp);
}

static int pfd_level(PyObject *self, PyObject *arg, int *level) {
  if (bfpy_to_int(arg, level, "level") < 0) return -1;
  int fin = bf_plotfile_data_finest_level(PFD(self)->p);
  if (*level < 0 || *level > fin) {
    PyErr_Format(PyExc_IndexError, "PlotFileData: level %d is outside [0, %d]", *level, fin);
    return -1;
  }
  return 0;
}

static PyObject *pfd_spacedim(PyObject *self, PyObject *noargs) {
  (void)noargs;
  return PyLong_FromLong(bf_plotfile_data_dim(PFD(self)->p));
}
static PyObject *pfd_time(PyObject *self, PyObject *noargs) {
  (void)noargs;
  return PyFloat_FromDouble(bf_plotfile_data_time(PFD(self)->p));
}
static PyObject *pfd_finest(PyObject *self, PyObject *noargs) {
  (void)noargs;
  return PyLong_FromLong(bf_plotfile_data_finest_level(PFD(self)->p));
}
static PyObject *pfd_coord(PyObject *self, PyObject *noargs) {
  (void)noargs;
  return PyLong_FromLong(bf_plotfile_data_coord(PFD(self)->p));
}
static PyObject *pfd_ncomp(PyObject *self, PyObject *noargs) {
  (void)noargs;
  return PyLong_FromLong(bf_plotfile_data_ncomp(PFD(self)->p));
}
static PyObject *pfd_refratio(PyObject *self, PyObject *arg) {
  int l, v = 0;
  if (pfd_level(self, arg, &l) < 0 || bfpy_check(bf_plotfile_data_ref_ratio(PFD(self)->p, l, &v)) < 0) return NULL;
  return PyLong_FromLong(v);
}
static PyObject *pfd_levelstep(PyObject *self, PyObject *arg) {
  int l, v = 0;
  if (pfd_level(self, arg, &l) < 0 || bfpy_check(bf_plotfile_data_level_step(PFD(self)->p, l, &v)) < 0) return NULL;
  return PyLong_FromLong(v);
}
static PyObject *pfd_probdomain(PyObject *self, PyObject *arg) {
  int l;
  bf_box b;
  if (pfd_level(self, arg, &l) < 0 || bfpy_check(bf_plotfile_data_prob_domain(PFD(self)->p, l, &b)) < 0) return NULL;
  return bfpy_box_new(&b);
}
static PyObject *pfd_cellsize(PyObject *self, PyObject *arg) {
  int l;
  double dx[3];
  if (pfd_level(self, arg, &l) < 0 || bfpy_check(bf_plotfile_data_cell_size(PFD(self)->p, l, dx)) < 0) return NULL;
  return bfpy_double_list(dx, PFD(self)->dim);
}
static PyObject *pfd_ngrow(PyObject *self, PyObject *arg) {
  int l;
  bf_intvect ng;
  if (pfd_level(self, arg, &l) < 0 || bfpy_check(bf_plotfile_data_ngrow(PFD(self)->p, l, &ng)) < 0) return NULL;
  return bfpy_intvect_new(&ng);
}
static PyObject *pfd_prob(PyObject *self, int which) {
  double lo[3], hi[3], v[3];
  bf_plotfile_data_prob(PFD(self)->p, lo, hi);
  for (int d = 0; d < PFD(self)->dim; ++d) v[d] = which == 0 ? lo[d] : which == 1 ? hi[d] : hi[d] - lo[d];
  return bfpy_double_list(v, PFD(self)->dim);
}
static PyObject *pfd_problo(PyObject *self, PyObject *noargs) {
  (void)noargs;
  return pfd_prob(self, 0);
}
static PyObject *pfd_probhi(PyObject *self, PyObject *noargs) {
  (void)noargs;
  return pfd_prob(self, 1);
}
static PyObject *pfd_probsize(PyObject *self, PyObject *noargs) {
  (void)noargs;
  return pfd_prob(self, 2);
}
static PyObject *pfd_varnames(PyObject *self, PyObject *noargs) {
  (void)noargs;
  int n = bf_plotfile_data_ncomp(PFD(self)->p);
  PyObject *list = PyList_New(n);
  if (!list) return NULL;
  for (int i = 0; i < n; ++i) {
    const char *s = bf_plotfile_data_varname(PFD(self)->p, i);
    PyObject *u = PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
    if (!u) {
      Py_DECREF(list);
      return NULL;
    }
    PyList_SET_ITEM(list, i, u);
  }
  PyObject *r = PyObject_CallOneArg((PyObject *)bfpy_types[PFD(self)->dim][BFPY_T_VECTOR_STRING], list);
  Py_DECREF(list);
  return r;
}
static PyObject *pfd_boxarray(PyObject *self, PyObject *arg) {
  int l;
  bf_boxarray *ba = NULL, *copy = NULL;
  if (pfd_level(self, arg, &l) < 0 || bfpy_check(bf_plotfile_data_boxarray(PFD(self)->p, l, &ba)) < 0) return NULL;
  if (bfpy_check(bf_boxarray_copy(ba, &copy)) < 0) return NULL;
  return bfpy_boxarray_new(copy);
}
static PyObject *pfd_distmap(PyObject *self, PyObject *arg) {
  int l;
  bf_distmap *dm = NULL;
  if (pfd_level(self, arg, &l) < 0 || bfpy_check(bf_plotfile_data_distmap(PFD(self)->p, l, &dm)) < 0) return NULL;
  return bfpy_distmap_new(PFD(self)->dim, bf_distmap_retain(dm));
}
static PyObject *pfd_sync(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const n1[] = {"", NULL}, *const n2[] = {"", "", NULL};
  PyObject *a[2] = {NULL, NULL};
  PyTypeObject *t = bfpy_types[PFD(self)->dim][BFPY_T_PLOTFILEDATA];
  if (bfpy_bind(args, nargs, kwnames, n1, 1, a, false) == 0 && PyObject_TypeCheck(a[0], t)) {
    bf_plotfile_data *src = PFD(a[0])->p;
    int nl = bf_plotfile_data_finest_level(src), mine = bf_plotfile_data_finest_level(PFD(self)->p);
    for (int l = 0; l <= (nl < mine ? nl : mine); ++l) {
      bf_distmap *dm = NULL;
      if (bf_plotfile_data_distmap(src, l, &dm) != BF_SUCCESS) {
        bf_error_clear();
        continue;
      }
      if (bfpy_check(bf_plotfile_data_set_distmap(PFD(self)->p, l, dm)) < 0) return NULL;
    }
    Py_RETURN_NONE;
  }
  if (bfpy_bind(args, nargs, kwnames, n2, 2, a, false) == 0 && PyObject_TypeCheck(a[1], t)) {
    int l;
    if (pfd_level(self, a[0], &l) < 0) return NULL;
    bf_plotfile_data *src = PFD(a[1])->p;
    bf_distmap *dm = NULL;
    if (l <= bf_plotfile_data_finest_level(src) && bf_plotfile_data_distmap(src, l, &dm) == BF_SUCCESS) {
      if (bfpy_check(bf_plotfile_data_set_distmap(PFD(self)->p, l, dm)) < 0) return NULL;
    }
    bf_error_clear();
    Py_RETURN_NONE;
  }
  return bfpy_no_overload("syncDistributionMap", args, nargs, kwnames,
                          "(other: PlotFileData, /), (level: int, other: PlotFileData, /)");
}
static PyObject *pfd_get(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"", "", NULL};
  PyObject *a[2];
  if (bfpy_bind(args, nargs, kwnames, names, 1, a, true) < 0) return NULL;
  int l, comp = -1;
  if (pfd_level(self, a[0], &l) < 0) return NULL;
  if (a[1]) {
    if (!PyUnicode_Check(a[1]))
      return PyErr_Format(PyExc_TypeError, "PlotFileData.get(): varname must be a str, not %.100s",
                          Py_TYPE(a[1])->tp_name);
    const char *name = PyUnicode_AsUTF8(a[1]);
    if (!name) return NULL;
    if ((comp = bf_plotfile_data_find_var(PFD(self)->p, name)) < 0)
      return PyErr_Format(PyExc_ValueError, "PlotFileData.get(): no variable named '%s'", name);
  }
  bf_multifab *mf = NULL;
  int st;
  if (bf_parallel_uses_mpi()) { /* collective: the GIL stays held (MPI_THREAD_SERIALIZED) */
    st = bf_plotfile_data_get(PFD(self)->p, l, comp, &mf);
  } else {
    Py_BEGIN_ALLOW_THREADS st = bf_plotfile_data_get(PFD(self)->p, l, comp, &mf);
    Py_END_ALLOW_THREADS
  }
  if (st) return bfpy_raise(st);
  PyTypeObject *t = bfpy_types[PFD(self)->dim][BFPY_T_MULTIFAB];
  PyObject *o = t->tp_alloc(t, 0);
  if (!o) {
    bf_multifab_destroy(&mf);
    return NULL;
  }
  bfpy_multifab_object *m = (bfpy_multifab_object *)o;
  m->dim = PFD(self)->dim, m->mf = mf;
  return o;
}

static PyMethodDef pfd_methods[] = {
    {"spaceDim", pfd_spacedim, METH_NOARGS, "spaceDim() -> int"},
    {"time", pfd_time, METH_NOARGS, "time() -> float"},
    {"finestLevel", pfd_finest, METH_NOARGS, "finestLevel() -> int"},
    {"refRatio", pfd_refratio, METH_O, "refRatio(level: int, /) -> int: ratio between level and level+1 (0 on the finest)"},
    {"levelStep", pfd_levelstep, METH_O, "levelStep(level: int, /) -> int"},
    {"boxArray", pfd_boxarray, METH_O, "boxArray(level: int, /) -> BoxArray"},
    {"DistributionMap", pfd_distmap, METH_O, "DistributionMap(level: int, /) -> DistributionMapping"},
    {"syncDistributionMap", (PyCFunction)(void (*)(void))pfd_sync, METH_FASTCALL | METH_KEYWORDS,
     "syncDistributionMap(*args) -> None: (other: PlotFileData, /) or (level: int, other: PlotFileData, /): adopt "
     "the other file's DistributionMapping where the box counts agree"},
    {"coordSys", pfd_coord, METH_NOARGS, "coordSys() -> int"},
    {"probDomain", pfd_probdomain, METH_O, "probDomain(level: int, /) -> Box"},
    {"probSize", pfd_probsize, METH_NOARGS, "probSize() -> list[float]"},
    {"probLo", pfd_problo, METH_NOARGS, "probLo() -> list[float]"},
    {"probHi", pfd_probhi, METH_NOARGS, "probHi() -> list[float]"},
    {"cellSize", pfd_cellsize, METH_O, "cellSize(level: int, /) -> list[float]"},
    {"varNames", pfd_varnames, METH_NOARGS, "varNames() -> Vector_string"},
    {"nComp", pfd_ncomp, METH_NOARGS, "nComp() -> int"},
    {"nGrowVect", pfd_ngrow, METH_O, "nGrowVect(level: int, /) -> IntVect"},
    {"get", (PyCFunction)(void (*)(void))pfd_get, METH_FASTCALL | METH_KEYWORDS,
     "get(*args) -> MultiFab: (level: int, /) all components, or (level: int, varname: str, /) one variable"},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot pfd_slots[] = {
    {Py_tp_doc, "PlotFileData(path: str, /): an AMReX plotfile opened for reading (its headers are parsed now, "
                "the data by get())."},
    {Py_tp_new, pfd_new},
    {Py_tp_dealloc, pfd_dealloc},
    {Py_tp_methods, pfd_methods},
    {0, NULL},
};

static PyType_Spec pfd_spec = {.name = "PlotFileData",
                               .basicsize = sizeof(pfd_object),
                               .flags = Py_TPFLAGS_DEFAULT,
                               .slots = pfd_slots};


/* ==== VisMF (AMReX's VisMF::Write / VisMF::Read: MultiFab checkpoints) ========================== */
static PyObject *vm_path(PyObject *o, const char *func) {
  if (!PyUnicode_Check(o) && !PyBytes_Check(o) && !PyObject_HasAttrString(o, "__fspath__"))
    return PyErr_Format(PyExc_TypeError, "%s: name must be a str, not %.100s", func, Py_TYPE(o)->tp_name);
  return pf_fspath(o);
}

static PyObject *vm_write(PyObject *cls, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"mf", "name", NULL};
  const char *func = "VisMF.Write()";
  int dim = bfpy_type_dim((PyTypeObject *)cls, BFPY_T_VISMF);
  PyObject *a[2];
  if (bfpy_bind(args, nargs, kwnames, names, 2, a, true) < 0) return NULL;
  bf_multifab *mf = bfpy_mf_arg(a[0], dim, BF_DTYPE_DOUBLE, "VisMF.Write() mf");
  if (!mf) return NULL;
  PyObject *path = vm_path(a[1], func);
  if (!path) return NULL;
  const char *p = pf_path_utf8(path);
  if (!p) {
    Py_DECREF(path);
    return NULL;
  }
  /* The GIL stays held: the MultiFab belongs to the caller, and another thread's mf.clear() (or define)
   * during the write freed the data under it (a segfault).  Files of new objects release it below. */
  int st = bf_vismf_write(mf, p);
  Py_DECREF(path);
  if (st) return bfpy_raise(st);
  Py_RETURN_NONE;
}

static PyObject *vm_read(PyObject *cls, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  const char *func = "VisMF.Read()";
  int dim = bfpy_type_dim((PyTypeObject *)cls, BFPY_T_VISMF);
  PyObject *a[2];
  if (nargs == 1 && (!kwnames || PyTuple_GET_SIZE(kwnames) == 0)) {
    a[0] = NULL, a[1] = args[0];
  } else {
    static const char *const names[] = {"mf", "name", NULL};
    if (bfpy_bind(args, nargs, kwnames, names, 2, a, true) < 0) return NULL;
  }
  bf_multifab *mf = NULL;
  if (a[0] && !(mf = bfpy_mf_arg(a[0], dim, BF_DTYPE_DOUBLE, "VisMF.Read() mf"))) return NULL;
  PyObject *path = vm_path(a[1], func);
  if (!path) return NULL;
  const char *p = pf_path_utf8(path);
  if (!p) {
    Py_DECREF(path);
    return NULL;
  }
  int st;
  bf_multifab *fresh = NULL;
  if (mf) { /* into the caller's MultiFab: the GIL stays held (see VisMF.Write) */
    st = bf_vismf_read(mf, p);
  } else if (bf_parallel_uses_mpi()) { /* collective: the GIL stays held (MPI_THREAD_SERIALIZED) */
    st = bf_vismf_read_new(p, &fresh);
  } else {
    Py_BEGIN_ALLOW_THREADS st = bf_vismf_read_new(p, &fresh);
    Py_END_ALLOW_THREADS
  }
  Py_DECREF(path);
  if (st) return bfpy_raise(st);
  if (mf) Py_RETURN_NONE;
  if (bf_multifab_dim(fresh) != dim) {
    int fd = bf_multifab_dim(fresh);
    bf_multifab_destroy(&fresh);
    return PyErr_Format(PyExc_ValueError, "%s: the checkpoint is %dD, this module is %dD (use space%dd)", func, fd,
                        dim, fd);
  }
  PyTypeObject *t = bfpy_types[dim][BFPY_T_MULTIFAB];
  PyObject *o = t->tp_alloc(t, 0);
  if (!o) {
    bf_multifab_destroy(&fresh);
    return NULL;
  }
  bfpy_multifab_object *m = (bfpy_multifab_object *)o;
  m->dim = dim, m->mf = fresh;
  return o;
}

static PyObject *vm_set_noutfiles(PyObject *cls, PyObject *arg) {
  (void)cls;
  long n = PyLong_AsLong(arg);
  if (n == -1 && PyErr_Occurred()) return NULL;
  if (n < 1 || n > INT_MAX) {
    PyErr_Format(PyExc_ValueError, "VisMF.SetNOutFiles(): the number of files must be in [1, %d], got %ld", INT_MAX,
                 n);
    return NULL;
  }
  if (bfpy_check(bf_vismf_set_noutfiles((int)n))) return NULL;
  Py_RETURN_NONE;
}

static PyObject *vm_get_noutfiles(PyObject *cls, PyObject *unused) {
  (void)cls, (void)unused;
  return PyLong_FromLong(bf_vismf_get_noutfiles());
}

static PyMethodDef vm_methods[] = {
    {"SetNOutFiles", (PyCFunction)vm_set_noutfiles, METH_CLASS | METH_O,
     "SetNOutFiles(n: int) -> None: the most data files a MultiFab is written to across MPI ranks (AMReX's "
     "VisMF::SetNOutFiles; 256 by default); used by VisMF.Write and the plotfile writers"},
    {"GetNOutFiles", (PyCFunction)vm_get_noutfiles, METH_CLASS | METH_NOARGS,
     "GetNOutFiles() -> int: see SetNOutFiles"},
    {"Write", (PyCFunction)(void (*)(void))vm_write, METH_CLASS | METH_FASTCALL | METH_KEYWORDS,
     "Write(mf: MultiFab, name: str) -> None: write <name>_H and <name>_D_00000 in AMReX's VisMF format "
     "(version 1, ghost cells included, native float64).  Crash-safe: written beside the targets and renamed "
     "in, header last; a crash leaves the previous checkpoint, the new one, or no <name>_H.  OSError naming the "
     "path when it cannot be written (the previous checkpoint is then left as it was)."},
    {"Read", (PyCFunction)(void (*)(void))vm_read, METH_CLASS | METH_FASTCALL | METH_KEYWORDS,
     "Read(*args) -> MultiFab | None: (mf: MultiFab, name: str) reads into mf (same BoxArray, ncomp and ghost "
     "width), or (name: str, /) returns a new MultiFab"},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot vm_slots[] = {
    {Py_tp_doc, "VisMF: AMReX's MultiFab checkpoint files (VisMF.Write, VisMF.Read); bit-for-bit round trips."},
    {Py_tp_methods, vm_methods},
    {0, NULL},
};

static PyType_Spec vm_spec = {.name = "VisMF", .basicsize = sizeof(PyObject), .flags = Py_TPFLAGS_DEFAULT,
                              .slots = vm_slots};

int bfpy_init_plotfile(PyObject *m, int dim) {
  if (PyModule_AddFunctions(m, plotfile_functions) < 0) return -1;
  if (!bfpy_make_type(m, dim, BFPY_T_PLOTFILEDATA, "PlotFileData", &pfd_spec, NULL)) return -1;
  return bfpy_make_type(m, dim, BFPY_T_VISMF, "VisMF", &vm_spec, NULL) ? 0 : -1;
}
