/* boxfab._core: particle containers (API.md 3.8) over the C core's bf_pc.
 *
 * Types per space module: a hidden base _ParticleContainer with every method,
 * one subclass ParticleContainer_<S>_<alloc> per particle spec and allocator
 * (class attributes is_soa_particle, num_struct_real, ..., iterator,
 * const_iterator), and the generic ParticleContainer(geom, dm, ba,
 * real_names=[...], int_names=[...]): pure SoA with the positions and any
 * number of named real / int components (the pureSoA_<dim>_0 layout plus
 * run-time components).  Python glue (to_df, add_particles) lives in
 * python/boxfab/_pcontainer.py. */
#include <limits.h>
#include <string.h>

#include "mesh/multifab.h"
#include "particles/pc.h"
#include "boxfab/gpu.h"
#include "boxfab/runtime.h"
#include "boxfab/idcpu.h"
#include <structmember.h>

#define PCO(o) ((bfpy_pc_object *)(o))
#define MAX_SPECS 8
#define FASTKW(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

static PyTypeObject *pc_types[BF_SPACEDIM_MAX + 1][MAX_SPECS][BFPY_NALLOC];
static PyTypeObject *generic_types[BF_SPACEDIM_MAX + 1];
static char pc_names[BF_SPACEDIM_MAX + 1][MAX_SPECS][BFPY_NALLOC][80];

PyTypeObject *bfpy_pc_type(int dim, int spec, int alloc) {
  if (dim < 1 || dim > BF_SPACEDIM_MAX) return NULL;
  if (spec < 0) return generic_types[dim];
  if (spec >= bfpy_pspec_count(dim) || spec >= MAX_SPECS || alloc < 0 || alloc >= BFPY_NALLOC) return NULL;
  return pc_types[dim][spec][alloc];
}

bf_pc *bfpy_pc_unwrap(PyObject *o) {
  if (!bfpy_is(o, BFPY_T_PC, -1)) {
    PyErr_Format(PyExc_TypeError, "expected a ParticleContainer, not %.100s", Py_TYPE(o)->tp_name);
    return NULL;
  }
  return PCO(o)->pc;
}

static const char *pname(PyObject *self) {
  const char *n = strrchr(Py_TYPE(self)->tp_name, '.');
  return n ? n + 1 : Py_TYPE(self)->tp_name;
}

/* The container is usable (its runtime alive). */
static int alive(PyObject *self) { return bfpy_check(bf_pc_check(PCO(self)->pc)); }

static int defined(PyObject *self, const char *what) {
  if (alive(self) < 0) return -1;
  if (!bf_pc_is_defined(PCO(self)->pc)) {
    PyErr_Format(PyExc_RuntimeError,
                 "%s.%s: the container is not defined (construct it with a Geometry, "
                 "DistributionMapping and BoxArray, or call Define)",
                 pname(self), what);
    return -1;
  }
  return 0;
}

static int level_arg(PyObject *self, PyObject *o, int *lev, const char *what) {
  if (bfpy_to_int(o, lev, what) < 0) return -1;
  int n = bf_pc_num_levels(PCO(self)->pc);
  if (*lev < 0 || *lev >= n) {
    PyErr_Format(PyExc_IndexError, "%s: level %d out of range (the container has %d level%s)", what, *lev, n,
                 n == 1 ? "" : "s");
    return -1;
  }
  return 0;
}

static int bool_arg(PyObject *o, bool dflt, bool *out) {
  if (!o) {
    *out = dflt;
    return 0;
  }
  int t = PyObject_IsTrue(o);
  if (t < 0) return -1;
  *out = t;
  return 0;
}

static int int_arg(PyObject *o, int dflt, int *out, const char *what) {
  if (!o) {
    *out = dflt;
    return 0;
  }
  return bfpy_to_int(o, out, what);
}

static void free_iter_mfs(bfpy_pc_object *o) {
  for (int l = 0; l < BF_PC_MAX_LEVELS; ++l)
    bf_multifab_destroy(&o->iter_mf[l]);
}

bf_multifab *bfpy_pc_iter_mf(bfpy_pc_object *o, int lev) {
  if (!o->iter_mf[lev]) {
    bf_boxarray *ba = NULL;
    bf_distmap *dm = NULL;
    if (bfpy_check(bf_pc_level(o->pc, lev, NULL, &ba, &dm)) < 0) return NULL;
    bf_intvect ng = {o->dim, {0, 0, 0}};
    if (bfpy_check(bf_multifab_create(ba, dm, 1, ng, BF_DTYPE_DOUBLE, NULL, false, &o->iter_mf[lev])) < 0) return NULL;
  }
  return bf_multifab_retain(o->iter_mf[lev]);
}

/* ---- construction ------------------------------------------------------------------------------ */

/* (dim, spec, alloc) of a container type (or subclass); generic: spec of pureSoA_<dim>_0, *generic. */
static int type_info(PyTypeObject *t, int *dim, int *spec, int *alloc, bool *generic) {
  for (int d = 1; d <= BF_SPACEDIM_MAX; ++d) {
    if (generic_types[d] && (t == generic_types[d] || PyType_IsSubtype(t, generic_types[d]))) {
      char suffix[32];
      snprintf(suffix, sizeof suffix, "pureSoA_%d_0", d);
      *dim = d, *spec = bfpy_pspec_find(d, suffix), *alloc = BFPY_ALLOC_DEFAULT, *generic = true;
      return *spec >= 0 ? 0 : -1;
    }
    for (int s = 0; s < bfpy_pspec_count(d) && s < MAX_SPECS; ++s)
      for (int a = 0; a < BFPY_NALLOC; ++a) {
        PyTypeObject *x = pc_types[d][s][a];
        if (x && (t == x || PyType_IsSubtype(t, x))) {
          *dim = d, *spec = s, *alloc = a, *generic = false;
          return 0;
        }
      }
  }
  return -1;
}

/* A list of names (None: none) into a new array of C strings borrowed from
 * the tuple *keep (a new reference the caller releases). */
static int name_list(PyObject *o, PyObject **keep, const char ***names, Py_ssize_t *n, const char *what) {
  *keep = NULL, *names = NULL, *n = 0;
  if (!o || o == Py_None) return 0;
  PyObject *seq = bfpy_fast_sequence(o, 100000, NULL, NULL, what, "str");
  if (!seq) return -1;
  Py_ssize_t m = PySequence_Fast_GET_SIZE(seq);
  const char **arr = PyMem_Calloc((size_t)m + 1, sizeof *arr);
  if (!arr) {
    Py_DECREF(seq);
    PyErr_NoMemory();
    return -1;
  }
  for (Py_ssize_t i = 0; i < m; ++i) {
    PyObject *it = PySequence_Fast_GET_ITEM(seq, i);
    if (!PyUnicode_Check(it)) {
      PyErr_Format(PyExc_TypeError, "%s: item %zd must be a str, not %.100s", what, i, Py_TYPE(it)->tp_name);
      PyMem_Free(arr);
      Py_DECREF(seq);
      return -1;
    }
    arr[i] = bfpy_c_name(it, what);
    if (!arr[i]) {
      PyMem_Free(arr);
      Py_DECREF(seq);
      return -1;
    }
    if (!arr[i][0]) {
      PyErr_Format(PyExc_ValueError, "%s: item %zd is an empty name", what, i);
      PyMem_Free(arr);
      Py_DECREF(seq);
      return -1;
    }
  }
  *keep = seq, *names = arr, *n = m;
  return 0;
}

static PyObject *pc_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
  (void)args;
  int dim = 0, spec = -1, alloc = 0;
  bool generic = false;
  if (type_info(type, &dim, &spec, &alloc, &generic) < 0) {
    PyErr_Format(PyExc_TypeError, "%.100s cannot be instantiated (use a ParticleContainer_<S>_<alloc> class)",
                 type->tp_name);
    return NULL;
  }
  const bfpy_pspec *sp = bfpy_pspec_at(dim, spec);
  bf_pc *pc = NULL;
  if (bfpy_check(bf_pc_create(&sp->layout, bfpy_alloc_arena(alloc), &pc)) < 0) return NULL;
  bf_pc_set_id_family(pc, bfpy_pspec_id_family(dim, spec));
  if (generic) {
    /* the named components come at construction (tp_init only defines) */
    PyObject *rn = kwds ? PyDict_GetItemString(kwds, "real_names") : NULL;
    PyObject *in = kwds ? PyDict_GetItemString(kwds, "int_names") : NULL;
    PyObject *kr = NULL, *ki = NULL;
    const char **rv = NULL, **iv = NULL;
    Py_ssize_t nr = 0, ni = 0;
    int st = name_list(rn, &kr, &rv, &nr, "ParticleContainer(real_names)");
    if (st == 0) st = name_list(in, &ki, &iv, &ni, "ParticleContainer(int_names)");
    for (Py_ssize_t i = 0; st == 0 && i < nr; ++i)
      st = bfpy_check(bf_pc_add_real_comp(pc, rv[i], true));
    for (Py_ssize_t i = 0; st == 0 && i < ni; ++i)
      st = bfpy_check(bf_pc_add_int_comp(pc, iv[i], true));
    PyMem_Free(rv), PyMem_Free(iv);
    Py_XDECREF(kr), Py_XDECREF(ki);
    if (st < 0) {
      bf_pc_destroy(&pc);
      return NULL;
    }
  }
  bfpy_pc_object *o = (bfpy_pc_object *)type->tp_alloc(type, 0);
  if (!o) {
    bf_pc_destroy(&pc);
    return NULL;
  }
  o->dim = dim, o->spec = spec, o->alloc = alloc, o->generic = generic, o->pc = pc;
  return (PyObject *)o;
}

static const char define_sigs[] =
    "(), (geom: Geometry, dm: DistributionMapping, ba: BoxArray, /), (geoms: Vector_Geometry, dms: "
    "Vector_DistributionMapping, bas: Vector_BoxArray, ref_ratios: Vector_int | Vector_IntVect, /)";

/* Define from (geom, dm, ba) or lists (geoms, dms, bas, ref_ratios). */
static int do_define(PyObject *self, PyObject *const *a, Py_ssize_t n, const char *what) {
  bfpy_pc_object *o = PCO(self);
  int dim = o->dim;
  if (alive(self) < 0) return -1;
  if (n == 3 && bfpy_is(a[0], BFPY_T_GEOMETRY, -1)) {
    bf_geometry g;
    bf_distmap *dm = NULL;
    if (bfpy_as_geometry(a[0], dim, &g, what) < 0 || bfpy_as_distmap(a[1], dim, &dm, what) < 0) return -1;
    bf_boxarray *ba = bfpy_as_boxarray(a[2], dim, what);
    if (!ba) return -1;
    if (!dm) {
      PyErr_Format(PyExc_ValueError, "%s: the DistributionMapping is empty", what);
      return -1;
    }
    free_iter_mfs(o);
    return bfpy_check(bf_pc_define(o->pc, 1, &g, &ba, &dm, NULL));
  }
  if (n != 4) {
    PyErr_Format(PyExc_TypeError, "%s: incompatible arguments; supported signatures: %s", what, define_sigs);
    return -1;
  }
  PyObject *sg = bfpy_fast_sequence(a[0], BF_PC_MAX_LEVELS, NULL, NULL, what, "Geometry");
  PyObject *sd = sg ? bfpy_fast_sequence(a[1], BF_PC_MAX_LEVELS, NULL, NULL, what, "DistributionMapping") : NULL;
  PyObject *sb = sd ? bfpy_fast_sequence(a[2], BF_PC_MAX_LEVELS, NULL, NULL, what, "BoxArray") : NULL;
  PyObject *sr = sb ? bfpy_fast_sequence(a[3], BF_PC_MAX_LEVELS, NULL, NULL, what, "int or IntVect") : NULL;
  int st = sr ? 0 : -1;
  Py_ssize_t nl = st == 0 ? PySequence_Fast_GET_SIZE(sg) : 0;
  bf_geometry geoms[BF_PC_MAX_LEVELS];
  bf_distmap *dms[BF_PC_MAX_LEVELS];
  bf_boxarray *bas[BF_PC_MAX_LEVELS];
  int ratio[BF_PC_MAX_LEVELS * 3];
  if (st == 0 && (nl < 1 || PySequence_Fast_GET_SIZE(sd) != nl || PySequence_Fast_GET_SIZE(sb) != nl ||
                  PySequence_Fast_GET_SIZE(sr) < nl - 1)) {
    PyErr_Format(PyExc_ValueError,
                 "%s: %zd geometries, %zd distribution mappings, %zd box arrays and %zd refinement ratios (need "
                 "n >= 1 of the first three and n - 1 ratios)",
                 what, nl, PySequence_Fast_GET_SIZE(sd), PySequence_Fast_GET_SIZE(sb), PySequence_Fast_GET_SIZE(sr));
    st = -1;
  }
  /* the ratios first: their __index__ may run Python code, which could redefine a BoxArray or a
   * DistributionMapping and free what the borrowed pointers below point to */
  for (Py_ssize_t l = 0; st == 0 && l + 1 < nl; ++l) {
    bf_intvect r;
    if (bfpy_as_intvect(PySequence_Fast_GET_ITEM(sr, l), dim, BFPY_IV_SEQUENCE | BFPY_IV_SCALAR, &r, what) < 0) {
      st = -1;
      break;
    }
    for (int d = 0; d < dim; ++d)
      ratio[l * dim + d] = r.v[d];
  }
  for (Py_ssize_t l = 0; st == 0 && l < nl; ++l) {
    if (bfpy_as_geometry(PySequence_Fast_GET_ITEM(sg, l), dim, &geoms[l], what) < 0 ||
        bfpy_as_distmap(PySequence_Fast_GET_ITEM(sd, l), dim, &dms[l], what) < 0 ||
        !(bas[l] = bfpy_as_boxarray(PySequence_Fast_GET_ITEM(sb, l), dim, what))) {
      st = -1;
      break;
    }
    if (!dms[l]) {
      PyErr_Format(PyExc_ValueError, "%s: the DistributionMapping of level %zd is empty", what, l);
      st = -1;
      break;
    }
  }
  if (st == 0) {
    free_iter_mfs(o);
    st = bfpy_check(bf_pc_define(o->pc, (int)nl, geoms, bas, dms, ratio));
  }
  Py_XDECREF(sg), Py_XDECREF(sd), Py_XDECREF(sb), Py_XDECREF(sr);
  return st;
}

static int pc_init(PyObject *self, PyObject *args, PyObject *kwds) {
  Py_ssize_t n = PyTuple_GET_SIZE(args);
  if (kwds && PyDict_GET_SIZE(kwds)) {
    /* only the generic container takes keywords, consumed by tp_new */
    PyObject *key;
    Py_ssize_t pos = 0;
    while (PyDict_Next(kwds, &pos, &key, NULL)) {
      const char *k = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : "";
      if (!PCO(self)->generic || !k || (strcmp(k, "real_names") != 0 && strcmp(k, "int_names") != 0)) {
        PyErr_Format(PyExc_TypeError, "%s(): unexpected keyword argument '%U'; supported signatures: %s%s", pname(self),
                     key, define_sigs, PCO(self)->generic ? " with real_names=, int_names=" : "");
        return -1;
      }
    }
  }
  if (n == 0) return 0;
  return do_define(self, &PyTuple_GET_ITEM(args, 0), n, "ParticleContainer(...)");
}

static PyObject *pc_define_m(PyObject *self, PyObject *args) {
  Py_ssize_t n = PyTuple_GET_SIZE(args);
  if (n == 0) {
    PyErr_Format(PyExc_TypeError, "Define(): incompatible arguments; supported signatures: %s", define_sigs);
    return NULL;
  }
  if (do_define(self, &PyTuple_GET_ITEM(args, 0), n, "Define") < 0) return NULL;
  Py_RETURN_NONE;
}

static int pc_traverse(PyObject *self, visitproc visit, void *arg) {
  Py_VISIT(Py_TYPE(self));
  return 0;
}

static void pc_dealloc(PyObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  if (PCO(self)->weakreflist) PyObject_ClearWeakRefs(self);
  free_iter_mfs(PCO(self));
  bf_pc_destroy(&PCO(self)->pc);
  tp->tp_free(self);
  Py_DECREF(tp);
}

/* ---- properties -------------------------------------------------------------------------------- */

static PyObject *get_num_real_comps(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLong(bf_pc_num_real_comps(PCO(self)->pc));
}
static PyObject *get_num_int_comps(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLong(bf_pc_num_int_comps(PCO(self)->pc));
}
static PyObject *get_num_rt_real(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLong(bf_pc_num_runtime_real_comps(PCO(self)->pc));
}
static PyObject *get_num_rt_int(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLong(bf_pc_num_runtime_int_comps(PCO(self)->pc));
}
static PyObject *get_num_pos(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLong(PCO(self)->dim);
}
static PyObject *get_finest_level(PyObject *self, void *c) {
  (void)c;
  if (alive(self) < 0) return NULL;
  return PyLong_FromLong(bf_pc_num_levels(PCO(self)->pc) - 1);
}

static PyObject *three(int64_t a) { return Py_BuildValue("[LLL]", (long long)a, (long long)a, (long long)a); }

static PyObject *get_byte_spread(PyObject *self, void *c) {
  (void)c;
  int64_t used = 0;
  if (alive(self) < 0 || bfpy_check(bf_pc_bytes(PCO(self)->pc, &used, NULL)) < 0) return NULL;
  return three(used); /* (min, max, sum) over the ranks: one rank */
}

static PyObject *names_list(PyObject *self, bool real) {
  bf_pc *pc = PCO(self)->pc;
  int n = real ? bf_pc_num_real_comps(pc) : bf_pc_num_int_comps(pc);
  PyObject *l = PyList_New(n);
  for (int i = 0; l && i < n; ++i) {
    PyObject *s = PyUnicode_FromString(real ? bf_pc_real_comp_name(pc, i) : bf_pc_int_comp_name(pc, i));
    if (!s) {
      Py_CLEAR(l);
      break;
    }
    PyList_SET_ITEM(l, i, s);
  }
  return l;
}
static PyObject *get_real_names(PyObject *self, void *c) {
  (void)c;
  return names_list(self, true);
}
static PyObject *get_int_names(PyObject *self, void *c) {
  (void)c;
  return names_list(self, false);
}

/* ---- methods ------------------------------------------------------------------------------------ */

static PyObject *add_comp(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, bool real) {
  static const char *const n1[] = {"communicate", NULL};
  static const char *const n2[] = {"name", "communicate", NULL};
  PyObject *a[2] = {NULL, NULL};
  const char *name = NULL;
  bool named = nargs >= 1 ? PyUnicode_Check(args[0]) : false;
  if (nargs >= 1 && (PyBytes_Check(args[0]) || PyByteArray_Check(args[0]))) {
    /* a name meant as bytes would be read as `communicate` (true) and give a default name */
    PyErr_Format(PyExc_TypeError, "add_%s_comp(name): the name must be a str, not %.100s", real ? "real" : "int",
                 Py_TYPE(args[0])->tp_name);
    return NULL;
  }
  if (!named && kwnames)
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(kwnames); ++i)
      if (PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, i), "name") == 0) named = true;
  if (bfpy_bind(args, nargs, kwnames, named ? n2 : n1, named ? 1 : 0, a, true) < 0) return NULL;
  if (named) {
    if (!PyUnicode_Check(a[0])) {
      PyErr_Format(PyExc_TypeError, "add_%s_comp(name): name must be a str", real ? "real" : "int");
      return NULL;
    }
    name = bfpy_c_name(a[0], real ? "add_real_comp(name)" : "add_int_comp(name)");
    if (!name) return NULL;
  }
  bool comm;
  if (bool_arg(named ? a[1] : a[0], true, &comm) < 0 || alive(self) < 0) return NULL;
  int st = real ? bf_pc_add_real_comp(PCO(self)->pc, name, comm) : bf_pc_add_int_comp(PCO(self)->pc, name, comm);
  if (bfpy_check(st) < 0) return NULL;
  Py_RETURN_NONE;
}
static PyObject *pc_add_real_comp(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) {
  return add_comp(self, args, nargs, kw, true);
}
static PyObject *pc_add_int_comp(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) {
  return add_comp(self, args, nargs, kw, false);
}

static PyObject *comp_index(PyObject *self, PyObject *arg, bool real) {
  if (!PyUnicode_Check(arg)) {
    PyErr_SetString(PyExc_TypeError, "the component name must be a str");
    return NULL;
  }
  Py_ssize_t len = 0;
  const char *s = PyUnicode_AsUTF8AndSize(arg, &len);
  if (!s) return NULL;
  /* a name with a NUL inside names no component (C would read it up to the NUL) */
  int i = (size_t)len != strlen(s) ? -1
          : real               ? bf_pc_real_comp_index(PCO(self)->pc, s)
                               : bf_pc_int_comp_index(PCO(self)->pc, s);
  if (i < 0) {
    PyErr_Format(PyExc_KeyError, "no %s component named %R", real ? "real" : "int", arg);
    return NULL;
  }
  return PyLong_FromLong(i);
}
static PyObject *pc_real_comp_index(PyObject *self, PyObject *arg) { return comp_index(self, arg, true); }
static PyObject *pc_int_comp_index(PyObject *self, PyObject *arg) { return comp_index(self, arg, false); }

static PyObject *pc_num_local_tiles(PyObject *self, PyObject *arg) {
  int lev;
  int64_t n = 0;
  if (alive(self) < 0) return NULL;
  if (bf_pc_num_levels(PCO(self)->pc) == 0) {
    if (bfpy_to_int(arg, &lev, "num_local_tiles_at_level(lev)") < 0) return NULL;
    return PyLong_FromLong(0);
  }
  if (level_arg(self, arg, &lev, "num_local_tiles_at_level(lev)") < 0 ||
      bfpy_check(bf_pc_tiles(PCO(self)->pc, lev, false, NULL, 0, &n)) < 0)
    return NULL;
  return PyLong_FromLongLong(n);
}

static PyObject *pc_noop(PyObject *self, PyObject *noargs) {
  (void)noargs;
  if (alive(self) < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject *pc_increment(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) {
  static const char *const names[] = {"", "", NULL};
  PyObject *a[2];
  int lev;
  if (bfpy_bind(args, nargs, kw, names, 2, a, true) < 0 || defined(self, "increment") < 0 ||
      level_arg(self, a[1], &lev, "increment(lev)") < 0)
    return NULL;
  if (!bfpy_is(a[0], BFPY_T_MULTIFAB, PCO(self)->dim) || !MFO(a[0])->mf) {
    PyErr_Format(PyExc_TypeError, "increment(mf): mf must be a defined MultiFab of dimension %d, not %.100s",
                 PCO(self)->dim, Py_TYPE(a[0])->tp_name);
    return NULL;
  }
  if (bfpy_check(bf_pc_increment(PCO(self)->pc, MFO(a[0])->mf, lev)) < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject *pc_redistribute(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) {
  static const char *const names[] = {"lev_min", "lev_max", "nGrow", "local", "remove_negative", NULL};
  PyObject *a[5];
  int lmin, lmax, ng, local;
  bool rn;
  if (bfpy_bind(args, nargs, kw, names, 0, a, true) < 0 || int_arg(a[0], 0, &lmin, "redistribute(lev_min)") < 0 ||
      int_arg(a[1], -1, &lmax, "redistribute(lev_max)") < 0 || int_arg(a[2], 0, &ng, "redistribute(nGrow)") < 0 ||
      int_arg(a[3], 0, &local, "redistribute(local)") < 0 || bool_arg(a[4], true, &rn) < 0 || alive(self) < 0)
    return NULL;
  if (bfpy_check(bf_pc_redistribute(PCO(self)->pc, lmin, lmax, ng, local, rn)) < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject *pc_ok(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) {
  static const char *const names[] = {"lev_min", "lev_max", "nGrow", NULL};
  PyObject *a[3];
  int lmin, lmax, ng;
  bool ok = false;
  if (bfpy_bind(args, nargs, kw, names, 0, a, true) < 0 || int_arg(a[0], 0, &lmin, "OK(lev_min)") < 0 ||
      int_arg(a[1], -1, &lmax, "OK(lev_max)") < 0 || int_arg(a[2], 0, &ng, "OK(nGrow)") < 0 || alive(self) < 0 ||
      bfpy_check(bf_pc_ok(PCO(self)->pc, lmin, lmax, ng, &ok)) < 0)
    return NULL;
  return PyBool_FromLong(ok);
}

static PyObject *pc_sort_by_cell(PyObject *self, PyObject *noargs) {
  (void)noargs;
  if (alive(self) < 0 || bfpy_check(bf_pc_sort_by_cell(PCO(self)->pc)) < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject *pc_sort_by_bin(PyObject *self, PyObject *arg) {
  bf_intvect b;
  if (bfpy_as_intvect(arg, PCO(self)->dim, BFPY_IV_SEQUENCE, &b, "sort_particles_by_bin(bin_size)") < 0 ||
      alive(self) < 0 || bfpy_check(bf_pc_sort_by_bin(PCO(self)->pc, &b)) < 0)
    return NULL;
  Py_RETURN_NONE;
}

static PyObject *pc_print_capacity(PyObject *self, PyObject *noargs) {
  (void)noargs;
  int64_t cap = 0;
  if (alive(self) < 0 || bfpy_check(bf_pc_bytes(PCO(self)->pc, NULL, &cap)) < 0) return NULL;
  PySys_FormatStdout("particle capacity: %lld bytes (min, max, sum over 1 rank)\n", (long long)cap);
  return three(cap);
}

static PyObject *pc_shrink(PyObject *self, PyObject *noargs) {
  (void)noargs;
  if (alive(self) < 0 || bfpy_check(bf_pc_shrink_to_fit(PCO(self)->pc)) < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject *pc_num_at_level(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) {
  static const char *const names[] = {"level", "only_valid", "only_local", NULL};
  PyObject *a[3];
  int lev;
  bool ov, ol;
  int64_t n = 0;
  if (bfpy_bind(args, nargs, kw, names, 1, a, true) < 0 ||
      bfpy_to_int(a[0], &lev, "number_of_particles_at_level(level)") < 0 || bool_arg(a[1], true, &ov) < 0 ||
      bool_arg(a[2], false, &ol) < 0 || alive(self) < 0)
    return NULL;
  if (lev < 0) {
    PyErr_Format(PyExc_IndexError, "number_of_particles_at_level: level %d out of range", lev);
    return NULL;
  }
  if (bfpy_check(bf_pc_num_particles_at_level(PCO(self)->pc, lev, ov, ol, &n)) < 0) return NULL;
  return PyLong_FromLongLong(n);
}

static PyObject *pc_num_in_grid(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) {
  static const char *const names[] = {"level", "only_valid", "only_local", NULL};
  PyObject *a[3];
  int lev;
  bool ov, ol;
  if (bfpy_bind(args, nargs, kw, names, 1, a, true) < 0 || bool_arg(a[1], true, &ov) < 0 ||
      bool_arg(a[2], false, &ol) < 0 || defined(self, "number_of_particles_in_grid") < 0 ||
      level_arg(self, a[0], &lev, "number_of_particles_in_grid(level)") < 0)
    return NULL;
  bf_boxarray *ba = NULL;
  if (bfpy_check(bf_pc_level(PCO(self)->pc, lev, NULL, &ba, NULL)) < 0) return NULL;
  int64_t n = bf_boxarray_size(ba);
  int64_t *counts = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof *counts);
  if (!counts) return PyErr_NoMemory();
  if (bfpy_check(bf_pc_num_particles_in_grid(PCO(self)->pc, lev, ov, ol, counts)) < 0) {
    PyMem_Free(counts);
    return NULL;
  }
  PyObject *l = PyList_New(n);
  for (int64_t g = 0; l && g < n; ++g) {
    PyObject *v = PyLong_FromLongLong(counts[g]);
    if (!v) {
      Py_CLEAR(l);
      break;
    }
    PyList_SET_ITEM(l, g, v);
  }
  PyMem_Free(counts);
  if (!l) return NULL;
  PyObject *vec = PyObject_CallOneArg((PyObject *)bfpy_types[PCO(self)->dim][BFPY_T_VECTOR_LONG], l);
  Py_DECREF(l);
  return vec;
}

static PyObject *pc_total(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) {
  static const char *const names[] = {"only_valid", "only_local", NULL};
  PyObject *a[2];
  bool ov, ol;
  int64_t n = 0;
  if (bfpy_bind(args, nargs, kw, names, 0, a, true) < 0 || bool_arg(a[0], true, &ov) < 0 ||
      bool_arg(a[1], false, &ol) < 0 || alive(self) < 0 ||
      bfpy_check(bf_pc_total_num_particles(PCO(self)->pc, ov, ol, &n)) < 0)
    return NULL;
  return PyLong_FromLongLong(n);
}

static PyObject *pc_remove_at_level(PyObject *self, PyObject *arg) {
  int lev;
  if (defined(self, "remove_particles_at_level") < 0 ||
      level_arg(self, arg, &lev, "remove_particles_at_level(level)") < 0 ||
      bfpy_check(bf_pc_remove_at_level(PCO(self)->pc, lev)) < 0)
    return NULL;
  Py_RETURN_NONE;
}

static PyObject *pc_remove_not_finest(PyObject *self, PyObject *noargs) {
  (void)noargs;
  if (alive(self) < 0 || bfpy_check(bf_pc_remove_not_at_finest(PCO(self)->pc)) < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject *pc_clear(PyObject *self, PyObject *noargs) {
  (void)noargs;
  if (alive(self) < 0 || bfpy_check(bf_pc_clear(PCO(self)->pc)) < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject *pc_add_at_level(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) {
  static const char *const names[] = {"particles", "level", "ngrow", NULL};
  PyObject *a[3];
  int lev, ng;
  if (bfpy_bind(args, nargs, kw, names, 2, a, true) < 0 || defined(self, "add_particles_at_level") < 0 ||
      level_arg(self, a[1], &lev, "add_particles_at_level(level)") < 0 ||
      int_arg(a[2], 0, &ng, "add_particles_at_level(ngrow)") < 0)
    return NULL;
  int dim = 0, spec = 0, alloc = 0;
  bf_ptile *t = bfpy_ptile_unwrap(a[0], &dim, &spec, &alloc);
  if (!t) return NULL;
  if (dim != PCO(self)->dim || spec != PCO(self)->spec) {
    PyErr_Format(PyExc_TypeError, "add_particles_at_level(particles): a %.100s does not fit a %s",
                 Py_TYPE(a[0])->tp_name, pname(self));
    return NULL;
  }
  if (bfpy_check(bf_pc_add_particles_at_level(PCO(self)->pc, t, lev, ng)) < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject *pc_get_particles(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) {
  static const char *const names[] = {"level", NULL};
  PyObject *a[1];
  int lev;
  if (bfpy_bind(args, nargs, kw, names, 1, a, true) < 0 || defined(self, "get_particles") < 0 ||
      level_arg(self, a[0], &lev, "get_particles(level)") < 0)
    return NULL;
  bfpy_pc_object *o = PCO(self);
  int64_t n = 0;
  if (bfpy_check(bf_pc_tiles(o->pc, lev, false, NULL, 0, &n)) < 0) return NULL;
  bf_pc_tileref *refs = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof *refs);
  if (!refs) return PyErr_NoMemory();
  if (bfpy_check(bf_pc_tiles(o->pc, lev, false, refs, n, &n)) < 0) {
    PyMem_Free(refs);
    return NULL;
  }
  PyObject *d = PyDict_New();
  for (int64_t k = 0; d && k < n; ++k) {
    PyObject *key = Py_BuildValue("(Li)", (long long)refs[k].grid, refs[k].tile);
    PyObject *val = key ? bfpy_ptile_wrap(o->dim, o->spec, o->alloc, refs[k].ptile, self) : NULL;
    if (!val || PyDict_SetItem(d, key, val) < 0) Py_CLEAR(d);
    Py_XDECREF(key), Py_XDECREF(val);
  }
  PyMem_Free(refs);
  return d;
}

static int pinit_arg(PyObject *self, PyObject *o, bf_pinit *out, const char *what) {
  if (bfpy_pinit_values(o, PCO(self)->dim, PCO(self)->spec, out) < 0) {
    if (PyErr_ExceptionMatches(PyExc_TypeError)) {
      PyErr_Clear();
      PyErr_Format(PyExc_TypeError, "%s: expected a ParticleInitType_%s, not %.100s", what,
                   bfpy_pspec_at(PCO(self)->dim, PCO(self)->spec)->suffix, Py_TYPE(o)->tp_name);
    }
    return -1;
  }
  return 0;
}

static int seed_arg(PyObject *o, uint64_t *seed, const char *what) {
  int64_t s;
  if (bfpy_to_int64(o, &s, what) < 0) return -1;
  if (s <= 0) {
    PyErr_Format(PyExc_ValueError, "%s: the seed must be > 0, got %lld", what, (long long)s);
    return -1;
  }
  *seed = (uint64_t)s;
  return 0;
}

static int count_arg(PyObject *o, int64_t *n, const char *what) {
  if (bfpy_to_int64(o, n, what) < 0) return -1;
  if (*n < 0) {
    PyErr_Format(PyExc_ValueError, "%s: the number of particles must be >= 0, got %lld", what, (long long)*n);
    return -1;
  }
  return 0;
}

static PyObject *pc_init_random(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) {
  static const char *const names[] = {"icount", "iseed", "pdata", "serialize", "containing_bx", NULL};
  PyObject *a[5];
  int64_t n;
  uint64_t seed;
  bf_pinit init;
  bool ser;
  bf_realbox rb;
  if (bfpy_bind(args, nargs, kw, names, 3, a, true) < 0 || count_arg(a[0], &n, "init_random(icount)") < 0 ||
      seed_arg(a[1], &seed, "init_random(iseed)") < 0 || pinit_arg(self, a[2], &init, "init_random(pdata)") < 0 ||
      bool_arg(a[3], false, &ser) < 0)
    return NULL;
  if (a[4] && a[4] != Py_None && bfpy_as_realbox(a[4], PCO(self)->dim, &rb, "init_random(containing_bx)") < 0)
    return NULL;
  if (defined(self, "init_random") < 0) return NULL;
  if (bfpy_check(bf_pc_init_random(PCO(self)->pc, n, seed, &init, ser, a[4] && a[4] != Py_None ? &rb : NULL)) < 0)
    return NULL;
  Py_RETURN_NONE;
}

static PyObject *pc_init_random_per_box(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) {
  static const char *const names[] = {"icount_per_box", "iseed", "pdata", NULL};
  PyObject *a[3];
  int64_t n;
  uint64_t seed;
  bf_pinit init;
  if (bfpy_bind(args, nargs, kw, names, 3, a, true) < 0 ||
      count_arg(a[0], &n, "init_random_per_box(icount_per_box)") < 0 ||
      seed_arg(a[1], &seed, "init_random_per_box(iseed)") < 0 ||
      pinit_arg(self, a[2], &init, "init_random_per_box(pdata)") < 0 || defined(self, "init_random_per_box") < 0 ||
      bfpy_check(bf_pc_init_random_per_box(PCO(self)->pc, n, seed, &init)) < 0)
    return NULL;
  Py_RETURN_NONE;
}

static PyObject *pc_init_one_per_cell(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) {
  static const char *const names[] = {"x_off", "y_off", "z_off", "pdata", NULL};
  PyObject *a[4];
  double off[3];
  bf_pinit init;
  if (bfpy_bind(args, nargs, kw, names, 4, a, true) < 0 || bfpy_to_double(a[0], &off[0], "x_off") < 0 ||
      bfpy_to_double(a[1], &off[1], "y_off") < 0 || bfpy_to_double(a[2], &off[2], "z_off") < 0 ||
      pinit_arg(self, a[3], &init, "init_one_per_cell(pdata)") < 0 || defined(self, "init_one_per_cell") < 0 ||
      bfpy_check(bf_pc_init_one_per_cell(PCO(self)->pc, off, &init)) < 0)
    return NULL;
  Py_RETURN_NONE;
}

/* _add_columns(level, redistribute, positions: tuple of dim float64 buffers, reals: tuple (None or float64
 * buffer per SoA real after the positions / every SoA real for legacy), ints: tuple per SoA int,
 * sreals, sints (legacy struct data), ids: int64 buffer or None, cpus: int32 buffer or None[, idcpu:
 * uint64 buffer or None, instead of ids and cpus]).  The Python
 * glue (add_particles) converts and checks dtypes and lengths; this checks them again. */
typedef struct {
  Py_buffer views[4200];
  int nviews;
} bufset;

static const void *get_buf(bufset *b, PyObject *o, const char *fmt, size_t isz, int64_t n, const char *what) {
  if (!o || o == Py_None) return NULL;
  if (b->nviews >= (int)(sizeof b->views / sizeof b->views[0])) {
    PyErr_SetString(PyExc_ValueError, "too many columns");
    return (void *)-1;
  }
  Py_buffer *v = &b->views[b->nviews];
  if (PyObject_GetBuffer(o, v, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return (void *)-1;
  ++b->nviews;
  if ((size_t)v->itemsize != isz || v->ndim != 1 || v->shape[0] != n ||
      !(strcmp(v->format, fmt) == 0 || (fmt[0] == 'q' && strcmp(v->format, "l") == 0 && isz == sizeof(long)) ||
        (fmt[0] == 'Q' && strcmp(v->format, "L") == 0 && isz == sizeof(unsigned long)) ||
        (fmt[0] == 'i' && strcmp(v->format, "i") == 0))) {
    PyErr_Format(PyExc_ValueError, "%s: expected a contiguous 1-D array of %lld %s", what, (long long)n,
                 fmt[0] == 'd'   ? "float64"
                 : fmt[0] == 'i' ? "int32"
                 : fmt[0] == 'Q' ? "uint64"
                                 : "int64");
    return (void *)-1;
  }
  return v->buf;
}

static PyObject *pc_add_columns(PyObject *self, PyObject *args) {
  int lev, redist;
  long long n;
  PyObject *levo, *pos, *reals, *ints, *sreals, *sints, *ids, *cpus, *idcpu = NULL;
  if (!PyArg_ParseTuple(args, "OpLOOOOOOO|O", &levo, &redist, &n, &pos, &reals, &ints, &sreals, &sints, &ids, &cpus,
                        &idcpu))
    return NULL;
  /* the level as every level argument: an int (TypeError for 0.5, which int() would make 0), in range */
  if (defined(self, "add_particles") < 0 || level_arg(self, levo, &lev, "add_particles(level)") < 0) return NULL;
  bfpy_pc_object *o = PCO(self);
  const bf_playout *lay = bf_pc_layout(o->pc);
  /* the columns of the components the caller saw: components are only ever appended, so they keep their
   * indices, and those added since (another thread's add_real_comp) get zeros */
  int nr = bf_pc_num_real_comps(o->pc) - (lay->pure_soa ? lay->dim : 0), ni = bf_pc_num_int_comps(o->pc);
  if (!PyTuple_Check(pos) || PyTuple_GET_SIZE(pos) != o->dim || !PyTuple_Check(reals) ||
      PyTuple_GET_SIZE(reals) > nr || !PyTuple_Check(ints) || PyTuple_GET_SIZE(ints) > ni || !PyTuple_Check(sreals) ||
      PyTuple_GET_SIZE(sreals) != lay->nsr || !PyTuple_Check(sints) || PyTuple_GET_SIZE(sints) != lay->nsi) {
    PyErr_SetString(PyExc_ValueError, "_add_columns: column tuples of the wrong lengths");
    return NULL;
  }
  const int gr = (int)PyTuple_GET_SIZE(reals), gi = (int)PyTuple_GET_SIZE(ints);
  bufset *b = PyMem_Calloc(1, sizeof *b);
  const void **rp = PyMem_Calloc((size_t)nr + 1, sizeof *rp), **ip = PyMem_Calloc((size_t)ni + 1, sizeof *ip);
  const void *srp[64] = {0}, *sip[64] = {0};
  if (!b || !rp || !ip) {
    PyMem_Free(b), PyMem_Free(rp), PyMem_Free(ip);
    return PyErr_NoMemory();
  }
  bf_pcolumns cols;
  memset(&cols, 0, sizeof cols);
  cols.n = n;
  int st = 0;
#define GB(dst, obj, fmt, T, what)                                                                                     \
  do {                                                                                                                 \
    const void *p_ = get_buf(b, obj, fmt, sizeof(T), n, what);                                                         \
    if (p_ == (void *)-1)                                                                                              \
      st = -1;                                                                                                         \
    else                                                                                                               \
      dst = p_;                                                                                                        \
  } while (0)
  for (int d = 0; st == 0 && d < o->dim; ++d)
    GB(cols.pos[d], PyTuple_GET_ITEM(pos, d), "d", double, "position");
  for (int c = 0; st == 0 && c < gr; ++c)
    GB(rp[c], PyTuple_GET_ITEM(reals, c), "d", double, "real column");
  for (int c = 0; st == 0 && c < gi; ++c)
    GB(ip[c], PyTuple_GET_ITEM(ints, c), "i", int32_t, "int column");
  for (int c = 0; st == 0 && c < lay->nsr && c < 64; ++c)
    GB(srp[c], PyTuple_GET_ITEM(sreals, c), "d", double, "struct real column");
  for (int c = 0; st == 0 && c < lay->nsi && c < 64; ++c)
    GB(sip[c], PyTuple_GET_ITEM(sints, c), "i", int32_t, "struct int column");
  if (st == 0) GB(cols.ids, ids, "q", int64_t, "ids");
  if (st == 0) GB(cols.cpus, cpus, "i", int32_t, "cpus");
  if (st == 0) GB(cols.idcpu, idcpu, "Q", uint64_t, "idcpu");
#undef GB
  if (st == 0) {
    for (int d = 0; d < o->dim; ++d)
      if (!cols.pos[d]) {
        PyErr_SetString(PyExc_ValueError, "add_particles: every position column is required");
        st = -1;
        break;
      }
  }
  if (st == 0 && (bf_pc_num_real_comps(o->pc) - (lay->pure_soa ? lay->dim : 0) != nr ||
                  bf_pc_num_int_comps(o->pc) != ni)) {
    /* a column's buffer export ran Python code that added components: the tables no longer fit */
    PyErr_SetString(PyExc_RuntimeError, "add_particles: the container's components changed while the columns were read");
    st = -1;
  }
  if (st == 0) {
    cols.real = (const double *const *)rp;
    cols.ints = (const int32_t *const *)ip;
    cols.real_struct = (const double *const *)srp;
    cols.int_struct = (const int32_t *const *)sip;
    /* the GIL stays held: another thread must not change the container meanwhile */
    st = bfpy_check(bf_pc_add_columns(o->pc, lev, &cols, redist != 0));
  }
  for (int i = 0; i < b->nviews; ++i)
    PyBuffer_Release(&b->views[i]);
  PyMem_Free(b), PyMem_Free(rp), PyMem_Free(ip);
  if (st < 0) return NULL;
  Py_RETURN_NONE;
}

/* _snapshot() -> (columns, tiles): every particle of every level (this process's tiles, not the outbox)
 * copied in one C call, so that no other thread changes the container between two columns or two tiles
 * (their calls hold the GIL too; to_df made one call per column and pandas met columns of different
 * lengths).  Phase 1 copies the data into bytes objects and the names into str objects: neither kind
 * is tracked by the garbage collector, so no collection, no finalizer and no other thread runs before
 * the copy is whole; phase 2 builds the tuples.  columns: a tuple of (kind, name, itemsize), kind "aos"
 * (the struct, name None), "idcpu", "real" or "int", in the order of the vectors; tiles: a list of
 * (level, grid, tile, n, data), where `data` (bytes) holds vector v at n * (the item sizes before v). */
typedef struct {
  int lev;
  int64_t grid;
  int tile;
  int64_t n;
  PyObject *bytes;
} snap_tile;

static PyObject *pc_snapshot(PyObject *self, PyObject *noargs) {
  (void)noargs;
  if (alive(self) < 0) return NULL;
  bf_pc *pc = PCO(self)->pc;
  const bf_playout *lay = bf_pc_layout(pc);
  const int nlev = bf_pc_num_levels(pc), nr = bf_pc_num_real_comps(pc), ni = bf_pc_num_int_comps(pc);
  const int nv = 1 + nr + ni;
  PyObject **names = PyMem_Calloc((size_t)nv, sizeof *names); /* str (NULL for the struct / idcpu) */
  bf_podvec **vecs = PyMem_Malloc((size_t)nv * sizeof *vecs);
  snap_tile *tiles = NULL;
  bf_pc_tileref *refs = NULL;
  int64_t nt = 0;
  PyObject *out = NULL;
  size_t pbytes = lay->pure_soa ? 8 : bf_playout_struct_size(lay);
  pbytes += (size_t)nr * 8 + (size_t)ni * 4;
  if (!names || !vecs) {
    PyMem_Free(names), PyMem_Free(vecs);
    return PyErr_NoMemory();
  }
  /* ---- phase 1: no Python code runs ---- */
  int st = 0;
  for (int c = 0; c < nr && !st; ++c)
    if (!(names[1 + c] = PyUnicode_FromString(bf_pc_real_comp_name(pc, c)))) st = -1;
  for (int c = 0; c < ni && !st; ++c)
    if (!(names[1 + nr + c] = PyUnicode_FromString(bf_pc_int_comp_name(pc, c)))) st = -1;
  for (int l = 0; l < nlev && !st; ++l) {
    int64_t n = 0;
    if (bfpy_check(bf_pc_tiles(pc, l, true, NULL, 0, &n)) < 0) {
      st = -1;
      break;
    }
    if (n == 0) continue;
    bf_pc_tileref *r = PyMem_Realloc(refs, (size_t)n * sizeof *refs);
    snap_tile *t = PyMem_Realloc(tiles, (size_t)(nt + n) * sizeof *tiles);
    if (r) refs = r;
    if (t) tiles = t;
    if (!r || !t) {
      PyErr_NoMemory();
      st = -1;
      break;
    }
    if (bfpy_check(bf_pc_tiles(pc, l, true, refs, n, &n)) < 0) {
      st = -1;
      break;
    }
    for (int64_t k = 0; k < n && !st; ++k) {
      bf_ptile *pt = refs[k].ptile;
      snap_tile *T = &tiles[nt];
      T->lev = l, T->grid = refs[k].grid, T->tile = refs[k].tile, T->n = bf_ptile_size(pt), T->bytes = NULL;
      if (bfpy_check(bf_ptile_check_consistent(pt)) < 0) {
        st = -1;
        break;
      }
      if ((uint64_t)T->n > (((size_t)-1) >> 1) / pbytes) {
        PyErr_NoMemory();
        st = -1;
        break;
      }
      if (!(T->bytes = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(T->n * (int64_t)pbytes)))) {
        st = -1;
        break;
      }
      ++nt;
      char *dst = PyBytes_AS_STRING(T->bytes);
      int m = 0;
      vecs[m++] = lay->pure_soa ? bf_ptile_idcpu(pt) : bf_ptile_aos(pt);
      for (int c = 0; c < nr; ++c) vecs[m++] = bf_ptile_real(pt, c);
      for (int c = 0; c < ni; ++c) vecs[m++] = bf_ptile_int(pt, c);
      for (int v = 0; v < m && !st; ++v) {
        if (bfpy_check(bf_podvec_read(vecs[v], 0, T->n, dst)) < 0) st = -1;
        dst += (size_t)T->n * bf_podvec_elem_size(vecs[v]);
      }
    }
  }
  /* ---- phase 2: the result ---- */
  PyObject *cols = st ? NULL : PyTuple_New(nv);
  PyObject *list = st || !cols ? NULL : PyList_New(nt);
  if (!st && cols && list) {
    for (int v = 0; v < nv && list; ++v) {
      const char *kind = v == 0 ? (lay->pure_soa ? "idcpu" : "aos") : v <= nr ? "real" : "int";
      size_t isz = v == 0 ? (lay->pure_soa ? 8 : bf_playout_struct_size(lay)) : v <= nr ? 8 : 4;
      PyObject *e = Py_BuildValue("(sOn)", kind, names[v] ? names[v] : Py_None, (Py_ssize_t)isz);
      if (!e) Py_CLEAR(list);
      else PyTuple_SET_ITEM(cols, v, e);
    }
    for (int64_t k = 0; k < nt && list; ++k) {
      PyObject *e = Py_BuildValue("(iLiLO)", tiles[k].lev, (long long)tiles[k].grid, tiles[k].tile,
                                  (long long)tiles[k].n, tiles[k].bytes);
      if (!e) Py_CLEAR(list);
      else PyList_SET_ITEM(list, k, e);
    }
    if (list) out = PyTuple_Pack(2, cols, list);
  }
  Py_XDECREF(cols);
  Py_XDECREF(list);
  for (int64_t k = 0; k < nt; ++k) Py_XDECREF(tiles[k].bytes);
  for (int v = 0; v < nv; ++v) Py_XDECREF(names[v]);
  PyMem_Free(names), PyMem_Free(vecs), PyMem_Free(tiles), PyMem_Free(refs);
  return out;
}

static PyObject *pc_level_geom(PyObject *self, PyObject *arg) {
  int lev;
  const bf_geometry *g = NULL;
  if (defined(self, "Geom") < 0 || level_arg(self, arg, &lev, "Geom(level)") < 0 ||
      bfpy_check(bf_pc_level(PCO(self)->pc, lev, &g, NULL, NULL)) < 0)
    return NULL;
  return bfpy_geometry_new(g);
}

static PyObject *pc_level_ba(PyObject *self, PyObject *arg) {
  int lev;
  bf_boxarray *ba = NULL;
  if (defined(self, "ParticleBoxArray") < 0 || level_arg(self, arg, &lev, "ParticleBoxArray(level)") < 0 ||
      bfpy_check(bf_pc_level(PCO(self)->pc, lev, NULL, &ba, NULL)) < 0)
    return NULL;
  return bfpy_boxarray_new(bf_boxarray_retain(ba));
}

static PyObject *pc_level_dm(PyObject *self, PyObject *arg) {
  int lev;
  bf_distmap *dm = NULL;
  if (defined(self, "ParticleDistributionMap") < 0 ||
      level_arg(self, arg, &lev, "ParticleDistributionMap(level)") < 0 ||
      bfpy_check(bf_pc_level(PCO(self)->pc, lev, NULL, NULL, &dm)) < 0)
    return NULL;
  return bfpy_distmap_new(PCO(self)->dim, bf_distmap_retain(dm));
}

/* ---- pyAMReX 26 members --------------------------------------------------------------------------- */

static PyObject *pc_has_comp(PyObject *self, PyObject *arg, bool real) {
  if (!PyUnicode_Check(arg)) {
    PyErr_Format(PyExc_TypeError, "has_%s_comp(name): the name must be a str, not %.100s", real ? "real" : "int",
                 Py_TYPE(arg)->tp_name);
    return NULL;
  }
  Py_ssize_t len = 0;
  const char *s = PyUnicode_AsUTF8AndSize(arg, &len);
  if (!s) return NULL;
  if (alive(self) < 0) return NULL;
  int i = (size_t)len != strlen(s) ? -1
          : real               ? bf_pc_real_comp_index(PCO(self)->pc, s)
                               : bf_pc_int_comp_index(PCO(self)->pc, s);
  return PyBool_FromLong(i >= 0);
}
static PyObject *pc_has_real_comp(PyObject *self, PyObject *arg) { return pc_has_comp(self, arg, true); }
static PyObject *pc_has_int_comp(PyObject *self, PyObject *arg) { return pc_has_comp(self, arg, false); }

/* set_soa_compile_time_names(real_names, int_names): AMReX's SetSoACompileTimeNames: one name for every
 * compile-time SoA component (pure SoA: the positions first); all at once, nothing changes on an error. */
static PyObject *pc_set_ct_names(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) {
  static const char *const names[] = {"real_names", "int_names", NULL};
  PyObject *a[2];
  if (bfpy_bind(args, nargs, kw, names, 2, a, true) < 0 || alive(self) < 0) return NULL;
  const bf_playout *lay = bf_pc_layout(PCO(self)->pc);
  PyObject *kr = NULL, *ki = NULL;
  const char **rv = NULL, **iv = NULL;
  Py_ssize_t nr = 0, ni = 0;
  int st = name_list(a[0], &kr, &rv, &nr, "set_soa_compile_time_names(real_names)");
  if (st == 0) st = name_list(a[1], &ki, &iv, &ni, "set_soa_compile_time_names(int_names)");
  if (st == 0 && (nr != lay->nar || ni != lay->nai)) {
    PyErr_Format(PyExc_ValueError,
                 "set_soa_compile_time_names: %zd real and %zd int names for %d real and %d int compile-time "
                 "SoA components%s",
                 nr, ni, lay->nar, lay->nai, lay->pure_soa ? " (the positions included)" : "");
    st = -1;
  }
  if (st == 0) st = bfpy_check(bf_pc_rename_comps(PCO(self)->pc, (int)nr, rv, (int)ni, iv));
  PyMem_Free(rv), PyMem_Free(iv);
  Py_XDECREF(kr), Py_XDECREF(ki);
  if (st < 0) return NULL;
  Py_RETURN_NONE;
}

/* reserve_particle_ids(count) (a class method): the first of `count` new ids of the container type's id
 * counter (AMReX's ParticleType::NextID, shared with Particle_<NR>_<NI>), which moves on by count. */
static PyObject *pc_reserve_ids(PyObject *cls, PyObject *arg) {
  int dim = 0, spec = 0, alloc = 0;
  bool generic = false;
  if (!PyType_Check(cls) || type_info((PyTypeObject *)cls, &dim, &spec, &alloc, &generic) < 0) {
    PyErr_SetString(PyExc_TypeError, "reserve_particle_ids: call it on a ParticleContainer_<S>_<alloc> class");
    return NULL;
  }
  int64_t n;
  if (bfpy_to_int64(arg, &n, "reserve_particle_ids(count)") < 0) return NULL;
  if (n < 0) {
    PyErr_Format(PyExc_ValueError, "reserve_particle_ids: count must be >= 0, got %lld", (long long)n);
    return NULL;
  }
  const int family = bfpy_pspec_id_family(dim, spec);
  int64_t first = 0;
  if (bfpy_check(bf_particle_next_id(family, 0, &first)) < 0) return NULL;
  if (n > BF_IDCPU_MAX_ID + 1 - first) {
    PyErr_Format(PyExc_ValueError,
                 "reserve_particle_ids: %lld ids from %lld would pass the largest particle id %lld (39 bits)",
                 (long long)n, (long long)first, (long long)BF_IDCPU_MAX_ID);
    return NULL;
  }
  if (n > 0 && bfpy_check(bf_particle_next_id(family, n, &first)) < 0) return NULL;
  return PyLong_FromLongLong(first);
}

static PyObject *pc_define_tile(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) {
  static const char *const names[] = {"lev", "grid", "tile", NULL};
  PyObject *a[3];
  int lev, tile;
  int64_t grid;
  if (bfpy_bind(args, nargs, kw, names, 3, a, true) < 0 || defined(self, "define_and_return_particle_tile") < 0 ||
      level_arg(self, a[0], &lev, "define_and_return_particle_tile(lev)") < 0 ||
      bfpy_to_int64(a[1], &grid, "define_and_return_particle_tile(grid)") < 0 ||
      bfpy_to_int(a[2], &tile, "define_and_return_particle_tile(tile)") < 0)
    return NULL;
  bf_ptile *t = NULL;
  if (bfpy_check(bf_pc_tile(PCO(self)->pc, lev, grid, tile, true, &t)) < 0) return NULL;
  return bfpy_ptile_wrap(PCO(self)->dim, PCO(self)->spec, PCO(self)->alloc, t, self);
}

/* iterator(level=None) / const_iterator(level=None): a ParIter / ParConstIter over the tiles of a level
 * (pyAMReX 26).  The old form iterator(pc, level=...) (the container again, pyAMReX 24) works too, and
 * one positional int is the level.  Without level: 0 when the container has one level, else ValueError. */
static PyObject *make_iter(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kw, bool is_const) {
  const char *what = is_const ? "const_iterator" : "iterator";
  PyObject *level = NULL;
  if (kw)
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(kw); ++i) {
      PyObject *k = PyTuple_GET_ITEM(kw, i);
      if (PyUnicode_CompareWithASCIIString(k, "level") != 0) {
        PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", what, k);
        return NULL;
      }
      level = args[nargs + i];
    }
  Py_ssize_t first = 0;
  if (nargs > 0 && args[0] == self) first = 1; /* iterator(pc, level=...) */
  if (nargs - first > 1 || (nargs - first == 1 && level)) {
    PyErr_Format(PyExc_TypeError, "%s(level=None): too many arguments", what);
    return NULL;
  }
  if (nargs - first == 1) {
    if (!bfpy_is_intlike(args[first]) || PyBool_Check(args[first])) {
      PyErr_Format(PyExc_TypeError, "%s(level): level must be an int, not %.100s", what, Py_TYPE(args[first])->tp_name);
      return NULL;
    }
    level = args[first];
  }
  if (defined(self, what) < 0) return NULL;
  PyObject *lv = NULL;
  if (!level || level == Py_None) {
    if (bf_pc_num_levels(PCO(self)->pc) > 1) {
      PyErr_Format(PyExc_ValueError, "%s: level must be given for a container of %d levels", what,
                   bf_pc_num_levels(PCO(self)->pc));
      return NULL;
    }
    lv = PyLong_FromLong(0);
  } else if (PyUnicode_Check(level) && PyUnicode_CompareWithASCIIString(level, "all") == 0) {
    PyErr_Format(PyExc_ValueError, "%s: level='all' is not supported (iterate over range(pc.finest_level + 1))",
                 what);
    return NULL;
  } else {
    if (PyBool_Check(level) || !bfpy_is_intlike(level)) {
      PyErr_Format(PyExc_TypeError, "%s(level): level must be an int, not %.100s", what, Py_TYPE(level)->tp_name);
      return NULL;
    }
    int l;
    if (level_arg(self, level, &l, is_const ? "const_iterator(level)" : "iterator(level)") < 0) return NULL;
    lv = PyLong_FromLong(l);
  }
  if (!lv) return NULL;
  PyObject *it_type = PyObject_GetAttrString((PyObject *)Py_TYPE(self), is_const ? "ConstIterator" : "Iterator");
  PyObject *r = NULL;
  if (it_type) {
    PyObject *cargs[2] = {self, lv};
    r = PyObject_Vectorcall(it_type, cargs, 2, NULL);
    Py_DECREF(it_type);
  }
  Py_DECREF(lv);
  return r;
}
static PyObject *pc_iterator(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) {
  return make_iter(self, args, nargs, kw, false);
}
static PyObject *pc_const_iterator(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) {
  return make_iter(self, args, nargs, kw, true);
}

static PyObject *get_arena(PyObject *self, void *c) {
  (void)c;
  if (alive(self) < 0) return NULL;
  return bfpy_arena_new(PCO(self)->dim, bf_pc_arena(PCO(self)->pc));
}
static int set_arena(PyObject *self, PyObject *v, void *c) {
  (void)c;
  if (!v) {
    PyErr_SetString(PyExc_AttributeError, "the arena cannot be deleted");
    return -1;
  }
  if (PCO(self)->alloc != BFPY_ALLOC_POLYMORPHIC || PCO(self)->generic) {
    PyErr_Format(PyExc_AttributeError,
                 "%s.arena is fixed by its allocator (only the _polymorphic containers choose their arena)",
                 pname(self));
    return -1;
  }
  bf_arena *a = NULL;
  if (alive(self) < 0 || bfpy_as_arena(v, PCO(self)->dim, &a, "ParticleContainer.arena") < 0) return -1;
  return bfpy_check(bf_pc_set_arena(PCO(self)->pc, a));
}

static PyObject *pc_repr(PyObject *self) {
  bfpy_pc_object *o = PCO(self);
  if (bf_pc_check(o->pc) != BF_SUCCESS) {
    bf_error_clear();
    return PyUnicode_FromFormat("<%s (boxfab finalized)>", pname(self));
  }
  int64_t n = 0;
  if (bf_pc_total_num_particles(o->pc, false, true, &n) != BF_SUCCESS) bf_error_clear();
  return PyUnicode_FromFormat("<%s: %d level%s, %lld particles, %d real / %d int components>", pname(self),
                              bf_pc_num_levels(o->pc), bf_pc_num_levels(o->pc) == 1 ? "" : "s", (long long)n,
                              bf_pc_num_real_comps(o->pc), bf_pc_num_int_comps(o->pc));
}

static PyMethodDef pc_methods[] = {
    {"Define", pc_define_m, METH_VARARGS,
     "Define(geom, dm, ba, /) / Define(geoms, dms, bas, ref_ratios, /) -> None: (re)define the levels; the "
     "particles stay (in the first tile of their level, or of the finest new level) until redistribute() moves "
     "them onto the new grids, as AMReX's Define."},
    {"add_real_comp", FASTKW(pc_add_real_comp),
     "add_real_comp(communicate: int = 1) / add_real_comp(name: str, communicate: int = 1) -> None: a run-time "
     "real component for every particle (existing particles get 0)."},
    {"add_int_comp", FASTKW(pc_add_int_comp),
     "add_int_comp(communicate: int = 1) / add_int_comp(name: str, communicate: int = 1) -> None: a run-time "
     "int component."},
    {"real_comp_index", pc_real_comp_index, METH_O,
     "real_comp_index(name: str, /) -> int: index of the SoA real component `name` (KeyError when absent). "
     "Extension."},
    {"int_comp_index", pc_int_comp_index, METH_O,
     "int_comp_index(name: str, /) -> int: index of the SoA int component `name`. Extension."},
    {"num_local_tiles_at_level", pc_num_local_tiles, METH_O,
     "num_local_tiles_at_level(lev: int, /) -> int: tiles of the level on this process."},
    {"reserve_data", pc_noop, METH_NOARGS, "reserve_data() -> None: nothing to do (storage grows as needed)."},
    {"resize_data", pc_noop, METH_NOARGS, "resize_data() -> None: nothing to do (storage grows as needed)."},
    {"increment", FASTKW(pc_increment),
     "increment(mf: MultiFab, lev: int, /) -> None: add the number of particles of each cell to component 0."},
    {"redistribute", FASTKW(pc_redistribute),
     "redistribute(lev_min: int = 0, lev_max: int = -1, nGrow: int = 0, local: int = 0, remove_negative: bool = "
     "True) -> None: move every particle to the tile that owns it (periodic wrap; removal outside the domain "
     "and, with remove_negative, of ids <= 0)."},
    {"OK", FASTKW(pc_ok),
     "OK(lev_min: int = 0, lev_max: int = -1, nGrow: int = 0) -> bool: every valid particle is where "
     "redistribute would put it."},
    {"sort_particles_by_cell", pc_sort_by_cell, METH_NOARGS,
     "sort_particles_by_cell() -> None: sort each tile's particles by cell (x fastest), stably."},
    {"sort_particles_by_bin", pc_sort_by_bin, METH_O,
     "sort_particles_by_bin(bin_size: IntVect, /) -> None: sort each tile by bins of bin_size cells."},
    {"print_capacity", pc_print_capacity, METH_NOARGS,
     "print_capacity() -> list[int]: print and return the reserved bytes (min, max, sum over ranks)."},
    {"shrink_t_fit", pc_shrink, METH_NOARGS, "shrink_t_fit() -> None: release unused storage."},
    {"number_of_particles_at_level", FASTKW(pc_num_at_level),
     "number_of_particles_at_level(level: int, only_valid: bool = True, only_local: bool = False) -> int"},
    {"number_of_particles_in_grid", FASTKW(pc_num_in_grid),
     "number_of_particles_in_grid(level: int, only_valid: bool = True, only_local: bool = False) -> Vector_Long: "
     "count per grid of the level."},
    {"total_number_of_particles", FASTKW(pc_total),
     "total_number_of_particles(only_valid: bool = True, only_local: bool = False) -> int"},
    {"remove_particles_at_level", pc_remove_at_level, METH_O, "remove_particles_at_level(level: int, /) -> None"},
    {"remove_particles_not_at_finestLevel", pc_remove_not_finest, METH_NOARGS,
     "remove_particles_not_at_finestLevel() -> None"},
    {"add_particles_at_level", FASTKW(pc_add_at_level),
     "add_particles_at_level(particles: ParticleTile, level: int, ngrow: int = 0) -> None: append a tile's "
     "particles to the level (call redistribute after)."},
    {"clear_particles", pc_clear, METH_NOARGS, "clear_particles() -> None: remove every particle."},
    {"get_particles", FASTKW(pc_get_particles),
     "get_particles(level: int) -> dict: the tiles of a level keyed by (grid, tile); references."},
    {"init_random", FASTKW(pc_init_random),
     "init_random(icount: int, iseed: int, pdata: ParticleInitType, serialize: bool, containing_bx: RealBox, /) "
     "-> None: icount particles at uniform random positions in containing_bx (the result depends only on "
     "(iseed, particle number))."},
    {"init_random_per_box", FASTKW(pc_init_random_per_box),
     "init_random_per_box(icount_per_box: int, iseed: int, pdata: ParticleInitType, /) -> None"},
    {"init_one_per_cell", FASTKW(pc_init_one_per_cell),
     "init_one_per_cell(x_off: float, y_off: float, z_off: float, pdata: ParticleInitType, /) -> None"},
    {"_add_columns", pc_add_columns, METH_VARARGS, "_add_columns(...): the C side of add_particles."},
    {"_snapshot", pc_snapshot, METH_NOARGS,
     "_snapshot() -> (columns, tiles): a copy of every particle of every level taken in one call (the C side "
     "of to_df)."},
    {"Geom", pc_level_geom, METH_O, "Geom(level: int, /) -> Geometry: the Geometry of a level."},
    {"particle_box_array", pc_level_ba, METH_O,
     "particle_box_array(level: int, /) -> BoxArray: the BoxArray of a level (pyAMReX 26)."},
    {"particle_distribution_map", pc_level_dm, METH_O,
     "particle_distribution_map(level: int, /) -> DistributionMapping: of a level (pyAMReX 26)."},
    {"get_real_comp_index", pc_real_comp_index, METH_O,
     "get_real_comp_index(name: str, /) -> int: index of the SoA real component `name` (KeyError when absent)."},
    {"get_int_comp_index", pc_int_comp_index, METH_O,
     "get_int_comp_index(name: str, /) -> int: index of the SoA int component `name` (KeyError when absent)."},
    {"has_real_comp", pc_has_real_comp, METH_O, "has_real_comp(name: str, /) -> bool"},
    {"has_int_comp", pc_has_int_comp, METH_O, "has_int_comp(name: str, /) -> bool"},
    {"set_soa_compile_time_names", FASTKW(pc_set_ct_names),
     "set_soa_compile_time_names(real_names: list[str], int_names: list[str]) -> None: name the compile-time SoA "
     "components (pure SoA: the positions first); ValueError for a duplicate or reserved name (nothing changes)."},
    {"reserve_particle_ids", pc_reserve_ids, METH_O | METH_CLASS,
     "reserve_particle_ids(count: int, /) -> int: the first of `count` new particle ids of this container type "
     "(the counter moves on by count); ValueError for count < 0 or past the largest id (2**39 - 1)."},
    {"define_and_return_particle_tile", FASTKW(pc_define_tile),
     "define_and_return_particle_tile(lev: int, grid: int, tile: int) -> ParticleTile: the tile (made when "
     "missing) of a local grid (a reference)."},
    {"iterator", FASTKW(pc_iterator),
     "iterator(level: int = None) -> ParIter: the tiles of a level that hold particles (level may be omitted "
     "for one level; the pyAMReX 24 form iterator(pc, level=...) works too)."},
    {"const_iterator", FASTKW(pc_const_iterator),
     "const_iterator(level: int = None) -> ParConstIter: read-only iterator(level)."},
    {"ParticleBoxArray", pc_level_ba, METH_O, "ParticleBoxArray(level: int, /) -> BoxArray"},
    {"ParticleDistributionMap", pc_level_dm, METH_O, "ParticleDistributionMap(level: int, /) -> DistributionMapping"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef pc_getset[] = {
    {"num_real_comps", get_num_real_comps, NULL, "SoA real components (compile-time + run-time).", NULL},
    {"num_int_comps", get_num_int_comps, NULL, "SoA int components (compile-time + run-time).", NULL},
    {"num_runtime_real_comps", get_num_rt_real, NULL, "Run-time SoA real components.", NULL},
    {"num_runtime_int_comps", get_num_rt_int, NULL, "Run-time SoA int components.", NULL},
    {"num_position_components", get_num_pos, NULL, "Number of position components (the dimension).", NULL},
    {"byte_spread", get_byte_spread, NULL, "Bytes of particle data (min, max, sum over ranks).", NULL},
    {"finest_level", get_finest_level, NULL, "Finest level (-1 when undefined).", NULL},
    {"real_comp_names", get_real_names, NULL, "Names of the SoA real components. Extension.", NULL},
    {"int_comp_names", get_int_names, NULL, "Names of the SoA int components. Extension.", NULL},
    {"real_soa_names", get_real_names, NULL,
     "Names of the SoA real components (compile-time, run-time; pure SoA: positions first).", NULL},
    {"int_soa_names", get_int_names, NULL, "Names of the SoA int components (compile-time, run-time).", NULL},
    {"arena", get_arena, set_arena,
     "The Arena of the particle data; assignable for the _polymorphic containers while they hold no particle.",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMemberDef pc_members[] = {
    {"__weaklistoffset__", T_PYSSIZET, offsetof(bfpy_pc_object, weakreflist), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot pc_base_slots[] = {
    {Py_tp_doc, "Hidden base of the particle containers."},
    {Py_tp_new, pc_new},
    {Py_tp_init, pc_init},
    {Py_tp_dealloc, pc_dealloc},
    {Py_tp_traverse, pc_traverse},
    {Py_tp_repr, pc_repr},
    {Py_tp_methods, pc_methods},
    {Py_tp_getset, pc_getset},
    {Py_tp_members, pc_members},
    {0, NULL},
};

static int set_class_attr(PyTypeObject *t, const char *name, PyObject *v) {
  if (!v) return -1;
  int r = PyObject_SetAttrString((PyObject *)t, name, v);
  Py_DECREF(v);
  return r;
}

static int class_consts(PyTypeObject *t, const bf_playout *l) {
  if (set_class_attr(t, "is_soa_particle", PyBool_FromLong(l->pure_soa)) < 0 ||
      set_class_attr(t, "num_struct_real", PyLong_FromLong(l->nsr)) < 0 ||
      set_class_attr(t, "num_struct_int", PyLong_FromLong(l->nsi)) < 0 ||
      set_class_attr(t, "num_array_real", PyLong_FromLong(l->nar)) < 0 ||
      set_class_attr(t, "num_array_int", PyLong_FromLong(l->nai)) < 0)
    return -1;
  return 0;
}

static int add_method_table(PyTypeObject *t, PyMethodDef *table) {
  for (PyMethodDef *d = table; d && d->ml_name; ++d) {
    PyObject *m = PyDescr_NewMethod(t, d);
    if (!m || PyObject_SetAttrString((PyObject *)t, d->ml_name, m) < 0) {
      Py_XDECREF(m);
      return -1;
    }
    Py_DECREF(m);
  }
  return 0;
}

static int add_mesh_methods(PyTypeObject *t) {
  if (add_method_table(t, bfpy_pc_mesh_methods) < 0) return -1;
  return add_method_table(t, bfpy_pc_io_methods);
}

int bfpy_init_pc(PyObject *m, int dim) {
  PyType_Spec bspec = {.name = "_ParticleContainer",
                       .basicsize = sizeof(bfpy_pc_object),
                       .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
                       .slots = pc_base_slots};
  PyTypeObject *base = bfpy_make_type(NULL, dim, BFPY_T_PC, "_ParticleContainer", &bspec, NULL);
  if (!base || add_mesh_methods(base) < 0) return -1;
  PyObject *bases = PyTuple_Pack(1, (PyObject *)base);
  if (!bases) return -1;
  for (int s = 0; s < bfpy_pspec_count(dim) && s < MAX_SPECS; ++s) {
    const bfpy_pspec *sp = bfpy_pspec_at(dim, s);
    for (int a = 0; a < BFPY_NALLOC; ++a) {
      char *name = pc_names[dim][s][a];
      snprintf(name, sizeof pc_names[0][0][0], "boxfab.space%dd.ParticleContainer_%s_%s", dim, sp->suffix,
               bfpy_alloc_name(a));
      PyType_Slot slots[] = {{Py_tp_doc, "ParticleContainer_<S>_<alloc>(): undefined; (geom, dm, ba, /): one level; "
                                         "(geoms, dms, bas, ref_ratios, /): several levels."},
                             {0, NULL}};
      PyType_Spec spec = {.name = name,
                          .basicsize = sizeof(bfpy_pc_object),
                          .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                          .slots = slots};
      PyTypeObject *t = (PyTypeObject *)PyType_FromSpecWithBases(&spec, bases);
      if (!t || class_consts(t, &sp->layout) < 0) {
        Py_XDECREF(t);
        Py_DECREF(bases);
        return -1;
      }
      pc_types[dim][s][a] = t;
      Py_INCREF(t);
      if (PyModule_AddObject(m, strrchr(name, '.') + 1, (PyObject *)t) < 0) {
        Py_DECREF(t);
        Py_DECREF(bases);
        return -1;
      }
    }
  }
  /* the generic container */
  static char gnames[BF_SPACEDIM_MAX + 1][64];
  snprintf(gnames[dim], sizeof gnames[dim], "boxfab.space%dd.ParticleContainer", dim);
  PyType_Slot gslots[] = {{Py_tp_doc,
                           "ParticleContainer(geom, dm, ba, /, real_names=[...], int_names=[...]) (also () or the "
                           "multi-level lists): pure SoA particles with the positions and any number of named real and "
                           "int components (extension; names honored by soa().to_numpy() and to_df())."},
                          {0, NULL}};
  PyType_Spec gspec = {.name = gnames[dim],
                       .basicsize = sizeof(bfpy_pc_object),
                       .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                       .slots = gslots};
  PyTypeObject *g = (PyTypeObject *)PyType_FromSpecWithBases(&gspec, bases);
  Py_DECREF(bases);
  char suffix[32];
  snprintf(suffix, sizeof suffix, "pureSoA_%d_0", dim);
  int gs = bfpy_pspec_find(dim, suffix);
  if (!g || gs < 0 || class_consts(g, &bfpy_pspec_at(dim, gs)->layout) < 0) {
    Py_XDECREF(g);
    if (!PyErr_Occurred()) PyErr_Format(PyExc_ImportError, "boxfab: no %s particle layout", suffix);
    return -1;
  }
  generic_types[dim] = g;
  Py_INCREF(g);
  if (PyModule_AddObject(m, "ParticleContainer", (PyObject *)g) < 0) {
    Py_DECREF(g);
    return -1;
  }
  return bfpy_init_pheader(m, dim);
}
