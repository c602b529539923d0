/* boxfab._core: MultiFab / iMultiFab reductions (API.md 2.7, 2.8): min, max,
 * minIndex, maxIndex, sum, sum_unique, norm0, norminf, norm1, norm2, dot,
 * contains_nan, contains_inf, and FabArray_FArrayBox.sum(comp, nghost, local).
 * Global over the runtime instance's ranks (collective: every rank calls
 * them), the same result on every rank; `local=True` gives this rank's part
 * (pyAMReX's default local=False).  `ignore_covered` is accepted and ignored
 * (no embedded boundaries).  Deterministic: the C core reduces in a fixed
 * order (see include/boxfab/multifab.h).  iMultiFab results are Python ints. */
#include <limits.h>

#include "mesh/multifab.h"

#define FASTKW(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS
#define NSIGS(s) ((int)(sizeof(s) / sizeof(s)[0]))

static const char *const N_RCGL[] = {"region", "comp", "nghost", "local", NULL};
static const char *const N_CGL[] = {"comp", "nghost", "local", NULL};
static const char *const N_RCL[] = {"region", "comp", "local", NULL};
static const char *const N_CL[] = {"comp", "local", NULL};
static const char *const N_CLP[] = {"comp", "local", "period", NULL};
static const char *const P2[] = {"", "", NULL};
static const char *const P1[] = {"", NULL};
static const char *const P3[] = {"", "", "", NULL};
static const char *const P4[] = {"", "", "", "", NULL};

static bf_intvect ng_of(int dim, PyObject *o, int *err) {
  bf_intvect ng = bf_intvect_splat(dim, 0);
  if (bfpy_mf_ng(o, dim, ng, &ng, "nghost") < 0) *err = 1;
  return ng;
}

/* ---- min / max ---------------------------------------------------------------------------------- */
typedef int (*minmax_fn)(const bf_multifab *, const bf_box *, int, bf_intvect, bool, double *);
static PyObject *run_minmax(PyObject *self, const char *func, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames, minmax_fn fn) {
  static const bfpy_mf_sig sigs[] = {{N_RCGL, 1, "bigo"}, {N_CGL, 0, "igo"}};
  PyObject *out[4];
  int s = bfpy_mf_match(func, args, nargs, kwnames, sigs, 2, out,
                        "(comp: int = 0, nghost: int = 0, local: bool = False), (region: Box, comp: int = 0, nghost: "
                        "int = 0, local: bool = False)");
  if (s < 0) return NULL;
  PyObject *o[4] = {s == 0 ? out[0] : NULL, out[1 - s], out[2 - s], out[3 - s]}; /* region, comp, nghost, local */
  int dim = MFO(self)->dim, comp, err = 0;
  bool local;
  bf_box region;
  double r;
  bf_multifab *mf = bfpy_mf_self(self, func);
  if (!mf || (s == 0 && bfpy_as_box(o[0], dim, &region, "region") < 0) || bfpy_mf_int(o[1], 0, &comp, "comp") < 0)
    return NULL;
  bf_intvect ng = ng_of(dim, o[2], &err);
  if (err || bfpy_mf_bool(o[3], false, &local, "local") < 0 ||
      bfpy_check(fn(mf, s == 0 ? &region : NULL, comp, ng, local, &r)) < 0)
    return NULL;
  return bfpy_mf_value(mf, r);
}

static PyObject *m_min(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return run_minmax(self, "min", args, nargs, kwnames, bf_multifab_min);
}
static PyObject *m_max(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return run_minmax(self, "max", args, nargs, kwnames, bf_multifab_max);
}

typedef int (*index_fn)(const bf_multifab *, int, bf_intvect, bf_intvect *);
static PyObject *run_index(PyObject *self, const char *func, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames, index_fn fn) {
  static const bfpy_mf_sig sigs[] = {{P2, 2, "ig"}};
  PyObject *out[2];
  if (bfpy_mf_match(func, args, nargs, kwnames, sigs, 1, out, "(comp: int, nghost: int, /)") < 0) return NULL;
  int dim = MFO(self)->dim, comp, err = 0;
  bf_multifab *mf = bfpy_mf_self(self, func);
  if (!mf || bfpy_to_int(out[0], &comp, "comp") < 0) return NULL;
  bf_intvect ng = ng_of(dim, out[1], &err), cell;
  if (err || bfpy_check(fn(mf, comp, ng, &cell)) < 0) return NULL;
  return bfpy_intvect_new(&cell);
}

static PyObject *m_min_index(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return run_index(self, "minIndex", args, nargs, kwnames, bf_multifab_min_index);
}
static PyObject *m_max_index(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return run_index(self, "maxIndex", args, nargs, kwnames, bf_multifab_max_index);
}

/* ---- sums --------------------------------------------------------------------------------------- */
/* iMultiFab: sums and L1 norms come back exact (bf_multifab_*_i64). */
static bool is_int(const bf_multifab *mf) { return bf_multifab_dtype(mf) == BF_DTYPE_INT; }

static PyObject *m_sum(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const bfpy_mf_sig sigs[] = {{N_RCL, 1, "bio"}, {N_CL, 0, "io"}};
  PyObject *out[3];
  int s = bfpy_mf_match("sum", args, nargs, kwnames, sigs, 2, out,
                        "sum(comp: int = 0, local: bool = False), sum(region: Box, comp: int = 0, local: bool = False)");
  if (s < 0) return NULL;
  PyObject *o[3] = {s == 0 ? out[0] : NULL, out[1 - s], out[2 - s]}; /* region, comp, local */
  int comp;
  bool local;
  bf_box region;
  double r;
  bf_multifab *mf = bfpy_mf_self(self, "sum");
  if (!mf || (s == 0 && bfpy_as_box(o[0], MFO(self)->dim, &region, "region") < 0) ||
      bfpy_mf_int(o[1], 0, &comp, "comp") < 0 || bfpy_mf_bool(o[2], false, &local, "local") < 0)
    return NULL;
  if (is_int(mf)) { /* exact (AMReX: Long); through a double it rounded beyond 2**53 */
    int64_t v;
    if (bfpy_check(bf_multifab_sum_i64(mf, s == 0 ? &region : NULL, comp, local, &v)) < 0) return NULL;
    return PyLong_FromLongLong(v);
  }
  if (bfpy_check(bf_multifab_sum(mf, s == 0 ? &region : NULL, comp, local, &r)) < 0) return NULL;
  return bfpy_mf_value(mf, r);
}

static PyObject *m_sum_unique(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const bfpy_mf_sig sigs[] = {{N_RCL, 1, "bio"}, {N_CLP, 0, "iop"}};
  PyObject *out[3];
  int s = bfpy_mf_match("sum_unique", args, nargs, kwnames, sigs, 2, out,
                        "sum_unique(comp: int = 0, local: bool = False, period: Periodicity = "
                        "Periodicity.non_periodic()), sum_unique(region: Box, comp: int = 0, local: bool = False)");
  if (s < 0) return NULL;
  int dim = MFO(self)->dim, comp;
  bool local, has = false;
  bf_box region;
  bf_periodicity per;
  double r;
  bf_multifab *mf = bfpy_mf_self(self, "sum_unique");
  if (!mf) return NULL;
  if (s == 0) {
    if (bfpy_as_box(out[0], dim, &region, "region") < 0 || bfpy_mf_int(out[1], 0, &comp, "comp") < 0 ||
        bfpy_mf_bool(out[2], false, &local, "local") < 0)
      return NULL;
  } else if (bfpy_mf_int(out[0], 0, &comp, "comp") < 0 || bfpy_mf_bool(out[1], false, &local, "local") < 0 ||
             bfpy_mf_period(out[2], dim, &per, &has, "period") < 0) {
    return NULL;
  }
  if (is_int(mf)) {
    int64_t v;
    if (bfpy_check(bf_multifab_sum_unique_i64(mf, s == 0 ? &region : NULL, comp, local, has ? &per : NULL, &v)) < 0)
      return NULL;
    return PyLong_FromLongLong(v);
  }
  if (bfpy_check(bf_multifab_sum_unique(mf, s == 0 ? &region : NULL, comp, local, has ? &per : NULL, &r)) < 0)
    return NULL;
  return bfpy_mf_value(mf, r);
}

/* FabArray_FArrayBox.sum(comp, nghost, local): valid + nghost cells.  The C
 * core's sum covers valid cells; with ghost cells it is dot(mf, ones). */
static PyObject *m_fa_sum(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"comp", "nghost", "local", NULL};
  PyObject *a[3];
  int dim = MFO(self)->dim, comp, err = 0;
  bool local;
  double r;
  if (bfpy_bind(args, nargs, kwnames, names, 3, a, true) < 0) return NULL;
  bf_multifab *mf = bfpy_mf_self(self, "sum");
  if (!mf || bfpy_to_int(a[0], &comp, "comp") < 0) return NULL;
  bf_intvect ng = ng_of(dim, a[1], &err);
  if (err || bfpy_mf_bool(a[2], false, &local, "local") < 0) return NULL;
  bool ghosts = false;
  for (int d = 0; d < dim; ++d) ghosts |= ng.v[d] != 0;
  if (!ghosts) {
    if (bfpy_check(bf_multifab_sum(mf, NULL, comp, local, &r)) < 0) return NULL;
    return bfpy_mf_value(mf, r);
  }
  bf_multifab *ones = NULL;
  int st = bf_multifab_create(bf_multifab_boxarray(mf), bf_multifab_distmap(mf), 1, bf_multifab_ngrow(mf),
                              bf_multifab_dtype(mf), bf_multifab_arena(mf), true, &ones);
  if (st == BF_SUCCESS) st = bf_multifab_set_val_all(ones, 1.0);
  if (st == BF_SUCCESS) st = bf_multifab_dot(mf, comp, ones, 0, 1, ng, local, &r);
  bf_multifab_destroy(&ones);
  if (bfpy_check(st) < 0) return NULL;
  return bfpy_mf_value(mf, r);
}

/* ---- norms -------------------------------------------------------------------------------------- */
typedef int (*norm0_fn)(const bf_multifab *, int, bf_intvect, bool, double *);
static PyObject *run_norm0(PyObject *self, const char *func, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames, norm0_fn fn) {
  static const bfpy_mf_sig sigs[] = {{P4, 4, "igoo"}};
  PyObject *out[4];
  if (bfpy_mf_match(func, args, nargs, kwnames, sigs, 1, out,
                    "(comp: int, nghost: int, local: bool, ignore_covered: bool, /)") < 0)
    return NULL;
  int dim = MFO(self)->dim, comp, err = 0;
  bool local, ign;
  double r;
  bf_multifab *mf = bfpy_mf_self(self, func);
  if (!mf || bfpy_to_int(out[0], &comp, "comp") < 0) return NULL;
  bf_intvect ng = ng_of(dim, out[1], &err);
  if (err || bfpy_mf_bool(out[2], false, &local, "local") < 0 ||
      bfpy_mf_bool(out[3], false, &ign, "ignore_covered") < 0 || bfpy_check(fn(mf, comp, ng, local, &r)) < 0)
    return NULL;
  return bfpy_mf_value(mf, r);
}

static PyObject *m_norm0(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return run_norm0(self, "norm0", args, nargs, kwnames, bf_multifab_norm0);
}
static PyObject *m_norminf(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return run_norm0(self, "norminf", args, nargs, kwnames, bf_multifab_norminf);
}

/* An iterable of ints into a PyMem array (*n of them). */
static int read_comps(PyObject *o, int **comps, Py_ssize_t *n) {
  PyObject *seq = bfpy_fast_sequence(o, INT_MAX, bfpy_check_int_item, NULL, "comps", "ints");
  if (!seq) return -1;
  *n = PySequence_Fast_GET_SIZE(seq);
  *comps = PyMem_Malloc((size_t)(*n > 0 ? *n : 1) * sizeof **comps);
  if (!*comps) {
    Py_DECREF(seq);
    PyErr_NoMemory();
    return -1;
  }
  for (Py_ssize_t i = 0; i < *n; ++i)
    if (bfpy_to_int(PySequence_Fast_GET_ITEM(seq, i), &(*comps)[i], "comps item") < 0) {
      Py_DECREF(seq);
      PyMem_Free(*comps);
      return -1;
    }
  Py_DECREF(seq);
  return 0;
}

/* Vector_Real of the results (a list of ints for an iMultiFab). */
static PyObject *results_vector(const bf_multifab *mf, int dim, const double *v, Py_ssize_t n) {
  PyObject *l = PyList_New(n);
  if (!l) return NULL;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *x = bfpy_mf_value(mf, v[i]);
    if (!x) {
      Py_DECREF(l);
      return NULL;
    }
    PyList_SET_ITEM(l, i, x);
  }
  PyTypeObject *vt = bfpy_types[dim][BFPY_T_VECTOR_REAL];
  if (bf_multifab_dtype(mf) == BF_DTYPE_INT || !vt) return l;
  PyObject *r = PyObject_CallOneArg((PyObject *)vt, l);
  Py_DECREF(l);
  return r;
}

typedef int (*ncomps_fn)(const bf_multifab *mf, int n, const int *comps, bf_intvect ng, bool local, double *r);
static int do_norm2_comps(const bf_multifab *mf, int n, const int *comps, bf_intvect ng, bool local, double *r) {
  (void)ng, (void)local;
  return bf_multifab_norm2_comps(mf, n, comps, r);
}

static PyObject *run_comps(PyObject *self, bf_multifab *mf, PyObject *o, bf_intvect ng, bool local, ncomps_fn fn) {
  int *comps;
  Py_ssize_t n;
  if (read_comps(o, &comps, &n) < 0) return NULL;
  if (is_int(mf) && fn == bf_multifab_norm1_comps) { /* exact ints, one component at a time */
    PyObject *l = PyList_New(n);
    for (Py_ssize_t i = 0; l && i < n; ++i) {
      int64_t v;
      PyObject *x = bfpy_check(bf_multifab_norm1_i64(mf, comps[i], ng, local, &v)) < 0 ? NULL : PyLong_FromLongLong(v);
      if (!x) Py_CLEAR(l);
      else PyList_SET_ITEM(l, i, x);
    }
    PyMem_Free(comps);
    return l;
  }
  double *r = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof *r);
  PyObject *res = NULL;
  if (!r) PyErr_NoMemory();
  else if (bfpy_check(fn(mf, (int)n, comps, ng, local, r)) == 0) res = results_vector(mf, MFO(self)->dim, r, n);
  PyMem_Free(r);
  PyMem_Free(comps);
  return res;
}

static PyObject *m_norm1(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const bfpy_mf_sig sigs[] = {{P3, 3, "ipo"}, {P3, 3, "igo"}, {P3, 3, "vgo"}};
  PyObject *out[3];
  int s = bfpy_mf_match("norm1", args, nargs, kwnames, sigs, 3, out,
                        "norm1(comp: int, period: Periodicity, ignore_covered: bool, /), norm1(comp: int, ngrow: "
                        "int, local: bool, /), norm1(comps: Vector_int, ngrow: int, local: bool, /)");
  if (s < 0) return NULL;
  int dim = MFO(self)->dim, comp, err = 0;
  bool local, has;
  double r;
  bf_periodicity per;
  bf_multifab *mf = bfpy_mf_self(self, "norm1");
  if (!mf) return NULL;
  int64_t v;
  if (s == 0) {
    if (bfpy_to_int(out[0], &comp, "comp") < 0 || bfpy_mf_period(out[1], dim, &per, &has, "period") < 0) return NULL;
    if (is_int(mf)) {
      if (bfpy_check(bf_multifab_norm1_unique_i64(mf, comp, has ? &per : NULL, &v)) < 0) return NULL;
      return PyLong_FromLongLong(v);
    }
    if (bfpy_check(bf_multifab_norm1_unique(mf, comp, has ? &per : NULL, &r)) < 0) return NULL;
    return bfpy_mf_value(mf, r);
  }
  bf_intvect ng = ng_of(dim, out[1], &err);
  if (err || bfpy_mf_bool(out[2], false, &local, "local") < 0) return NULL;
  if (s == 2) return run_comps(self, mf, out[0], ng, local, bf_multifab_norm1_comps);
  if (bfpy_to_int(out[0], &comp, "comp") < 0) return NULL;
  if (is_int(mf)) {
    if (bfpy_check(bf_multifab_norm1_i64(mf, comp, ng, local, &v)) < 0) return NULL;
    return PyLong_FromLongLong(v);
  }
  if (bfpy_check(bf_multifab_norm1(mf, comp, ng, local, &r)) < 0) return NULL;
  return bfpy_mf_value(mf, r);
}

static PyObject *m_norm2(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const bfpy_mf_sig sigs[] = {{P1, 1, "i"}, {P2, 2, "ip"}, {P1, 1, "v"}};
  PyObject *out[2];
  int s = bfpy_mf_match("norm2", args, nargs, kwnames, sigs, 3, out,
                        "norm2(comp: int, /), norm2(comp: int, period: Periodicity, /), norm2(comps: Vector_int, /)");
  if (s < 0) return NULL;
  int dim = MFO(self)->dim, comp;
  bool has = false;
  double r;
  bf_periodicity per;
  bf_multifab *mf = bfpy_mf_self(self, "norm2");
  if (!mf) return NULL;
  if (s == 2) return run_comps(self, mf, out[0], bf_intvect_splat(dim, 0), false, do_norm2_comps);
  /* norm2(comp, period) weights shared nodal points by their overlap count
   * also for a non-periodic Periodicity: pass it on whenever given */
  if (bfpy_to_int(out[0], &comp, "comp") < 0 || (s == 1 && bfpy_mf_period(out[1], dim, &per, &has, "period") < 0) ||
      bfpy_check(bf_multifab_norm2(mf, comp, s == 1 ? &per : NULL, &r)) < 0)
    return NULL;
  return bfpy_mf_value(mf, r);
}

/* ---- dot (static: self is the class) ------------------------------------------------------------ */
PyObject *bfpy_mf_dot_static(PyObject *cls, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const n_xy[] = {"x", "xcomp", "y", "ycomp", "numcomp", "nghost", "local", NULL};
  static const char *const n_x[] = {"x", "xcomp", "numcomp", "nghost", "local", NULL};
  static const bfpy_mf_sig sigs[] = {{n_xy, 6, "mimiigo"}, {n_x, 4, "miigo"}};
  PyObject *out[7];
  int dim, dtype;
  if (bfpy_mf_type_info(cls, &dim, &dtype) < 0) return NULL;
  int s = bfpy_mf_match("dot", args, nargs, kwnames, sigs, 2, out,
                        "dot(x, xcomp: int, y, ycomp: int, numcomp: int, nghost: int, local: bool = False), dot(x, "
                        "xcomp: int, numcomp: int, nghost: int, local: bool = False)");
  if (s < 0) return NULL;
  PyObject *ox = out[0], *oxc = out[1], *oy = s == 0 ? out[2] : out[0], *oyc = s == 0 ? out[3] : out[1];
  PyObject **rest = s == 0 ? out + 4 : out + 2;
  int xc, yc, nc, err = 0;
  bool local;
  double r;
  bf_multifab *x = bfpy_mf_arg(ox, dim, dtype, "x");
  bf_multifab *y = x ? bfpy_mf_arg(oy, dim, dtype, "y") : NULL;
  if (!y || bfpy_to_int(oxc, &xc, "xcomp") < 0 || bfpy_to_int(oyc, &yc, "ycomp") < 0 ||
      bfpy_to_int(rest[0], &nc, "numcomp") < 0)
    return NULL;
  bf_intvect ng = ng_of(dim, rest[1], &err);
  if (err || bfpy_mf_bool(rest[2], false, &local, "local") < 0 ||
      bfpy_check(bf_multifab_dot(x, xc, y, yc, nc, ng, local, &r)) < 0)
    return NULL;
  return PyFloat_FromDouble(r);
}

/* ---- contains_nan / contains_inf ---------------------------------------------------------------- */
typedef int (*contains_fn)(const bf_multifab *, int, int, bf_intvect, bool, bool *);
static PyObject *run_contains(PyObject *self, const char *func, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames, contains_fn fn) {
  static const char *const n_l[] = {"local", NULL};
  static const char *const n_c[] = {"scomp", "ncomp", "ngrow", "local", NULL};
  static const bfpy_mf_sig sigs[] = {{n_l, 0, "B"}, {n_c, 2, "iigo"}};
  PyObject *out[4];
  int s = bfpy_mf_match(func, args, nargs, kwnames, sigs, 2, out,
                        "(local: bool = False), (scomp: int, ncomp: int, ngrow: int = 0, local: bool = False), "
                        "(scomp: int, ncomp: int, ngrow: IntVect, local: bool = False)");
  if (s < 0) return NULL;
  int dim = MFO(self)->dim, sc = 0, nc, err = 0;
  bool local, r;
  bf_multifab *mf = bfpy_mf_self(self, func);
  if (!mf) return NULL;
  bf_intvect ng;
  if (s == 0) {
    nc = bf_multifab_ncomp(mf);
    ng = bf_multifab_ngrow(mf); /* AMReX: all components, all ghost cells */
    if (bfpy_mf_bool(out[0], false, &local, "local") < 0) return NULL;
  } else {
    if (bfpy_to_int(out[0], &sc, "scomp") < 0 || bfpy_to_int(out[1], &nc, "ncomp") < 0) return NULL;
    ng = ng_of(dim, out[2], &err);
    if (err || bfpy_mf_bool(out[3], false, &local, "local") < 0) return NULL;
  }
  if (bfpy_check(fn(mf, sc, nc, ng, local, &r)) < 0) return NULL;
  return PyBool_FromLong(r);
}

static PyObject *m_contains_nan(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return run_contains(self, "contains_nan", args, nargs, kwnames, bf_multifab_contains_nan);
}
static PyObject *m_contains_inf(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return run_contains(self, "contains_inf", args, nargs, kwnames, bf_multifab_contains_inf);
}

/* ---- tables ------------------------------------------------------------------------------------- */
#define COMMON_REDUCE                                                                                            \
  {"min", FASTKW(m_min),                                                                                         \
   "min(comp=0, nghost=0, local=False) / min(region: Box, comp=0, nghost=0, local=False): minimum of one "       \
   "component over valid + nghost cells (IndexError for comp or nghost out of range)."},                          \
      {"max", FASTKW(m_max), "max(comp=0, nghost=0, local=False) / max(region: Box, ...): maximum."},            \
      {"minIndex", FASTKW(m_min_index), "minIndex(comp: int, nghost: int, /) -> IntVect: cell of the minimum."}, \
      {"maxIndex", FASTKW(m_max_index), "maxIndex(comp: int, nghost: int, /) -> IntVect: cell of the maximum."}, \
      {"sum", FASTKW(m_sum), "sum(comp=0, local=False) / sum(region: Box, comp=0, local=False): sum over valid "  \
                             "cells."},                                                                          \
      {"sum_unique", FASTKW(m_sum_unique),                                                                       \
       "sum_unique(comp=0, local=False, period=Periodicity.non_periodic()) / sum_unique(region, comp=0, "         \
       "local=False): sum counting points shared by several boxes once."},                                       \
      {"norm0", FASTKW(m_norm0), "norm0(comp, nghost, local, ignore_covered, /): max norm."},                    \
      {"norminf", FASTKW(m_norminf), "norminf(comp, nghost, local, ignore_covered, /): max norm."},              \
      {"norm1", FASTKW(m_norm1),                                                                                 \
       "norm1(comp, period, ignore_covered, /) / norm1(comp, ngrow, local, /) / norm1(comps, ngrow, local, /): "  \
       "L1 norm."}

PyMethodDef bfpy_mf_reduce_methods[] = {
    COMMON_REDUCE,
    {"norm2", FASTKW(m_norm2), "norm2(comp, /) / norm2(comp, period, /) / norm2(comps: Vector_int, /): L2 norm."},
    {"contains_nan", FASTKW(m_contains_nan),
     "contains_nan(local=False) / (scomp, ncomp, ngrow=0, local=False): any NaN (the first form looks at all "
     "components and ghost cells)."},
    {"contains_inf", FASTKW(m_contains_inf), "contains_inf(...): any +-Inf; arguments as contains_nan."},
    {NULL, NULL, 0, NULL},
};

PyMethodDef bfpy_mf_fabarray_reduce[] = {
    {"sum", FASTKW(m_fa_sum),
     "sum(comp: int, nghost: IntVect, local: bool) -> float: sum over valid + nghost cells (hidden on MultiFab)."},
    {NULL, NULL, 0, NULL},
};

PyMethodDef bfpy_imf_reduce_methods[] = {COMMON_REDUCE, {NULL, NULL, 0, NULL}};
