/* boxfab._core: AmrInfo and AmrMesh (include/boxfab/amrmesh.h): AMReX's AMR
 * meta data.  The C core reads the parameters and checks them; this file
 * converts arguments and results.  Per-level methods raise IndexError for a
 * level that does not exist (pyAMReX: std::vector::at). */
#include <limits.h>
#include <stddef.h>

#include "bfpy.h"
#include "boxfab/amrmesh.h"

typedef struct {
  PyObject_HEAD bf_amrinfo info; /* info.dim 0: not initialized (tp_new failed half way) */
} bfpy_amrinfo_object;

typedef struct {
  PyObject_HEAD int dim;
  bool defined;
  bf_amrmesh mesh;
} bfpy_amrmesh_object;

#define AI(o) (&((bfpy_amrinfo_object *)(o))->info)
#define AM(o) ((bfpy_amrmesh_object *)(o))

/* ---- AmrInfo ------------------------------------------------------------------------ */
static PyObject *ai_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
  (void)args, (void)kwds;
  PyObject *self = type->tp_alloc(type, 0);
  if (!self) return NULL;
  if (bfpy_check(bf_amrinfo_init(bfpy_type_dim(type, BFPY_T_AMRINFO), AI(self))) < 0) {
    Py_DECREF(self);
    return NULL;
  }
  return self;
}

static int ai_init(PyObject *self, PyObject *args, PyObject *kwds) {
  (void)self;
  if (PyTuple_GET_SIZE(args) || (kwds && PyDict_GET_SIZE(kwds))) {
    PyErr_SetString(PyExc_TypeError, "AmrInfo() takes no arguments");
    return -1;
  }
  return 0;
}

static void ai_dealloc(PyObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  bf_amrinfo_free(AI(self));
  tp->tp_free(self);
  Py_DECREF(tp);
}

static PyObject *ai_repr(PyObject *self) {
  return PyUnicode_FromFormat("<AmrInfo of max_level %d>", AI(self)->max_level);
}

/* Level `lev` of one of the per-level arrays. */
static PyObject *level_of(const bf_amrinfo *a, const bf_intvect *arr, PyObject *lev, const char *what) {
  int l;
  if (bfpy_to_int(lev, &l, what) < 0) return NULL;
  if (l < 0 || l >= a->nlev)
    return PyErr_Format(PyExc_IndexError, "%s(%d): there are %d level%s (0..%d)", what, l, a->nlev,
                        a->nlev == 1 ? "" : "s", a->nlev - 1);
  return bfpy_intvect_new(&arr[l]);
}

static PyObject *ai_ref_ratio(PyObject *self, PyObject *lev) { return level_of(AI(self), AI(self)->ref_ratio, lev, "ref_ratio"); }
static PyObject *ai_blocking_factor(PyObject *self, PyObject *lev) {
  return level_of(AI(self), AI(self)->blocking_factor, lev, "blocking_factor");
}
static PyObject *ai_max_grid_size(PyObject *self, PyObject *lev) {
  return level_of(AI(self), AI(self)->max_grid_size, lev, "max_grid_size");
}
static PyObject *ai_n_error_buf(PyObject *self, PyObject *lev) {
  return level_of(AI(self), AI(self)->n_error_buf, lev, "n_error_buf");
}

/* int / bool / float attributes, by offset into bf_amrinfo */
enum { A_INT, A_BOOL, A_REAL };
typedef struct {
  int kind;
  size_t off;
} ai_field;
static const ai_field ai_fields[] = {
    {A_INT, offsetof(bf_amrinfo, verbose)},
    {A_INT, offsetof(bf_amrinfo, max_level)},
    {A_INT, offsetof(bf_amrinfo, n_proper)},
    {A_INT, offsetof(bf_amrinfo, use_fixed_upto_level)},
    {A_REAL, offsetof(bf_amrinfo, grid_eff)},
    {A_BOOL, offsetof(bf_amrinfo, use_fixed_coarse_grids)},
    {A_BOOL, offsetof(bf_amrinfo, refine_grid_layout)},
    {A_BOOL, offsetof(bf_amrinfo, check_input)},
    {A_BOOL, offsetof(bf_amrinfo, use_new_chop)},
    {A_BOOL, offsetof(bf_amrinfo, iterate_on_new_grids)},
};

static PyObject *ai_get(PyObject *self, void *closure) {
  const ai_field *f = &ai_fields[(intptr_t)closure];
  char *p = (char *)AI(self) + f->off;
  if (f->kind == A_INT) return PyLong_FromLong(*(int *)p);
  if (f->kind == A_BOOL) return PyBool_FromLong(*(bool *)p);
  return PyFloat_FromDouble(*(double *)p);
}

static int ai_set(PyObject *self, PyObject *value, void *closure) {
  if (!value) {
    PyErr_SetString(PyExc_AttributeError, "AmrInfo attributes cannot be deleted");
    return -1;
  }
  const ai_field *f = &ai_fields[(intptr_t)closure];
  char *p = (char *)AI(self) + f->off;
  if (f->kind == A_INT) return bfpy_to_int(value, (int *)p, "AmrInfo attribute");
  if (f->kind == A_REAL) return bfpy_to_double(value, (double *)p, "AmrInfo attribute");
  if (!PyBool_Check(value) && !bfpy_is_intlike(value)) {
    PyErr_Format(PyExc_TypeError, "AmrInfo attribute must be a bool, not %.100s", Py_TYPE(value)->tp_name);
    return -1;
  }
  int t = PyObject_IsTrue(value);
  if (t < 0) return -1;
  *(bool *)p = t;
  return 0;
}

static PyObject *ai_get_rgld(PyObject *self, void *closure) {
  (void)closure;
  return bfpy_intvect_new(&AI(self)->refine_grid_layout_dims);
}

static int ai_set_rgld(PyObject *self, PyObject *value, void *closure) {
  (void)closure;
  if (!value) {
    PyErr_SetString(PyExc_AttributeError, "AmrInfo attributes cannot be deleted");
    return -1;
  }
  bf_intvect iv;
  if (bfpy_as_intvect(value, AI(self)->dim, BFPY_IV_SEQUENCE, &iv, "refine_grid_layout_dims") < 0) return -1;
  AI(self)->refine_grid_layout_dims = iv;
  return 0;
}

#define AI_ATTR(name, k, doc) {name, ai_get, ai_set, doc, (void *)(intptr_t)(k)}
static PyGetSetDef ai_getset[] = {
    AI_ATTR("verbose", 0, "int"),
    AI_ATTR("max_level", 1, "int: maximum allowed level"),
    AI_ATTR("n_proper", 2, "int: cells required for proper nesting"),
    AI_ATTR("use_fixed_upto_level", 3, "int"),
    AI_ATTR("grid_eff", 4, "float: grid efficiency"),
    AI_ATTR("use_fixed_coarse_grids", 5, "bool"),
    AI_ATTR("refine_grid_layout", 6, "bool"),
    AI_ATTR("check_input", 7, "bool"),
    AI_ATTR("use_new_chop", 8, "bool"),
    AI_ATTR("iterate_on_new_grids", 9, "bool"),
    {"refine_grid_layout_dims", ai_get_rgld, ai_set_rgld, "IntVect", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef ai_methods[] = {
    {"ref_ratio", ai_ref_ratio, METH_O, "ref_ratio(lev, /) -> IntVect; IndexError for a missing level."},
    {"blocking_factor", ai_blocking_factor, METH_O, "blocking_factor(lev, /) -> IntVect"},
    {"max_grid_size", ai_max_grid_size, METH_O, "max_grid_size(lev, /) -> IntVect"},
    {"n_error_buf", ai_n_error_buf, METH_O, "n_error_buf(lev, /) -> IntVect"},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot ai_slots[] = {
    {Py_tp_doc, "AmrInfo(): AMReX's AMR settings with their defaults."},
    {Py_tp_new, ai_new},
    {Py_tp_init, ai_init},
    {Py_tp_dealloc, ai_dealloc},
    {Py_tp_repr, ai_repr},
    {Py_tp_methods, ai_methods},
    {Py_tp_getset, ai_getset},
    {0, NULL},
};

static PyType_Spec ai_spec = {.name = "AmrInfo",
                              .basicsize = sizeof(bfpy_amrinfo_object),
                              .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                              .slots = ai_slots};

/* ---- AmrMesh ------------------------------------------------------------------------- */
static PyObject *am_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
  (void)args, (void)kwds;
  PyObject *self = type->tp_alloc(type, 0);
  if (self) AM(self)->dim = bfpy_type_dim(type, BFPY_T_AMRMESH);
  return self;
}

static void am_dealloc(PyObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  if (AM(self)->defined) bf_amrmesh_free(&AM(self)->mesh);
  tp->tp_free(self);
  Py_DECREF(tp);
}

static int am_item_int(PyObject *item, void *ctx, const char *what) { return bfpy_check_int_item(item, ctx, what); }

static int am_init_fast(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"rb", "max_level_in", "n_cell_in", "coord", "ref_ratios", "is_per", NULL};
  int dim = AM(self)->dim;
  PyObject *a[6] = {NULL, NULL, NULL, NULL, NULL, NULL};
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  bf_amrmesh m;
  int st;
  if (nargs + nkw == 0) {
    st = bf_amrmesh_create(dim, NULL, -1, NULL, -1, 0, NULL, NULL, &m);
  } else {
    if (bfpy_bind(args, nargs, kwnames, names, 6, a, true) < 0) return -1;
    bf_realbox rb;
    int max_level, coord, is_per[BF_SPACEDIM_MAX], n_cell[BF_SPACEDIM_MAX];
    if (bfpy_as_realbox(a[0], dim, &rb, "AmrMesh rb") < 0 || bfpy_to_int(a[1], &max_level, "max_level_in") < 0 ||
        bfpy_to_int(a[3], &coord, "coord") < 0 || bfpy_to_int_array(a[5], dim, is_per, "is_per") < 0)
      return -1;
    if (max_level < 0) {
      PyErr_Format(PyExc_ValueError, "AmrMesh: max_level_in must be >= 0, got %d", max_level);
      return -1;
    }
    PyObject *cells = bfpy_fast_sequence(a[2], 64, am_item_int, NULL, "n_cell_in", "ints");
    if (!cells) return -1;
    Py_ssize_t nc = PySequence_Fast_GET_SIZE(cells);
    if (nc < dim) {
      PyErr_Format(PyExc_ValueError, "AmrMesh: n_cell_in needs %d values, got %zd", dim, nc);
      Py_DECREF(cells);
      return -1;
    }
    for (int d = 0; d < dim; ++d)
      if (bfpy_to_int(PySequence_Fast_GET_ITEM(cells, d), &n_cell[d], "n_cell_in") < 0) {
        Py_DECREF(cells);
        return -1;
      }
    Py_DECREF(cells);
    PyObject *rr = bfpy_fast_sequence(a[4], BF_AMR_MAX_LEVELS, NULL, NULL, "ref_ratios", "IntVects");
    if (!rr) return -1;
    Py_ssize_t nr = PySequence_Fast_GET_SIZE(rr);
    bf_intvect *ratios = PyMem_Calloc((size_t)nr + 1, sizeof *ratios);
    if (!ratios) {
      Py_DECREF(rr);
      PyErr_NoMemory();
      return -1;
    }
    for (Py_ssize_t i = 0; i < nr; ++i)
      if (bfpy_as_intvect(PySequence_Fast_GET_ITEM(rr, i), dim, BFPY_IV_SEQUENCE | BFPY_IV_SCALAR, &ratios[i],
                          "ref_ratios item") < 0) {
        PyMem_Free(ratios);
        Py_DECREF(rr);
        return -1;
      }
    Py_DECREF(rr);
    st = bf_amrmesh_create(dim, &rb, max_level, n_cell, coord, (int)nr, ratios, is_per, &m);
    PyMem_Free(ratios);
  }
  if (st) {
    bfpy_raise(st);
    return -1;
  }
  if (AM(self)->defined) bf_amrmesh_free(&AM(self)->mesh);
  AM(self)->mesh = m;
  AM(self)->defined = true;
  return 0;
}

static int am_init(PyObject *self, PyObject *args, PyObject *kwds) {
  return bfpy_init_vectorcall(self, args, kwds, am_init_fast);
}

static int am_check(PyObject *self) {
  if (AM(self)->defined) return 0;
  PyErr_SetString(PyExc_RuntimeError, "AmrMesh is not defined (its __init__ did not run or failed)");
  return -1;
}

static PyObject *am_repr(PyObject *self) {
  if (!AM(self)->defined) return PyUnicode_FromString("<AmrMesh (undefined)>");
  return PyUnicode_FromFormat("<AmrMesh max_level=%d finest_level=%d>", AM(self)->mesh.info.max_level,
                              AM(self)->mesh.finest_level);
}

static PyObject *am_get_int(PyObject *self, void *closure) {
  if (am_check(self) < 0) return NULL;
  const bf_amrmesh *m = &AM(self)->mesh;
  intptr_t k = (intptr_t)closure;
  return PyLong_FromLong(k == 0 ? m->info.verbose : k == 1 ? m->info.max_level : m->finest_level);
}

static PyObject *am_ref_ratio(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  if (am_check(self) < 0) return NULL;
  const bf_amrinfo *a = &AM(self)->mesh.info;
  if (nargs == 1) return level_of(a, a->ref_ratio, args[0], "ref_ratio");
  if (nargs != 0) return PyErr_Format(PyExc_TypeError, "ref_ratio() takes 0 or 1 arguments (%zd given)", nargs);
  PyObject *list = PyList_New(a->nlev);
  if (!list) return NULL;
  for (int l = 0; l < a->nlev; ++l) {
    PyObject *iv = bfpy_intvect_new(&a->ref_ratio[l]);
    if (!iv) {
      Py_DECREF(list);
      return NULL;
    }
    PyList_SET_ITEM(list, l, iv);
  }
  PyObject *v = PyObject_CallOneArg((PyObject *)bfpy_types[AM(self)->dim][BFPY_T_VECTOR_INTVECT], list);
  Py_DECREF(list);
  return v;
}

#define AM_LEVEL(fn, field, what)                                                                              \
  static PyObject *fn(PyObject *self, PyObject *lev) {                                                         \
    if (am_check(self) < 0) return NULL;                                                                       \
    return level_of(&AM(self)->mesh.info, AM(self)->mesh.info.field, lev, what);                               \
  }
AM_LEVEL(am_blocking_factor, blocking_factor, "blockingFactor")
AM_LEVEL(am_max_grid_size, max_grid_size, "maxGridSize")
AM_LEVEL(am_n_error_buf, n_error_buf, "nErrorBuf")

static PyObject *am_geom(PyObject *self, PyObject *lev) {
  if (am_check(self) < 0) return NULL;
  const bf_amrmesh *m = &AM(self)->mesh;
  int l;
  if (bfpy_to_int(lev, &l, "Geom(lev)") < 0) return NULL;
  if (l < 0 || l >= m->info.nlev)
    return PyErr_Format(PyExc_IndexError, "Geom(%d): there are %d levels (0..%d)", l, m->info.nlev, m->info.nlev - 1);
  return bfpy_geometry_new(&m->geom[l]);
}

static PyObject *am_max_level_m(PyObject *self, PyObject *noargs) {
  (void)noargs;
  return am_get_int(self, (void *)(intptr_t)1);
}
static PyObject *am_finest_level_m(PyObject *self, PyObject *noargs) {
  (void)noargs;
  return am_get_int(self, (void *)(intptr_t)2);
}

static PyGetSetDef am_getset[] = {
    {"verbose", am_get_int, NULL, "int (amr.verbose)", (void *)(intptr_t)0},
    {"max_level", am_get_int, NULL, "int", (void *)(intptr_t)1},
    {"finest_level", am_get_int, NULL, "int: -1 until grids are made", (void *)(intptr_t)2},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef am_methods[] = {
    {"ref_ratio", (PyCFunction)(void (*)(void))am_ref_ratio, METH_FASTCALL,
     "ref_ratio() -> Vector_IntVect / ref_ratio(lev, /) -> IntVect; IndexError for a missing level."},
    {"blockingFactor", am_blocking_factor, METH_O, "blockingFactor(lev, /) -> IntVect"},
    {"maxGridSize", am_max_grid_size, METH_O, "maxGridSize(lev, /) -> IntVect"},
    {"nErrorBuf", am_n_error_buf, METH_O, "nErrorBuf(lev, /) -> IntVect"},
    {"Geom", am_geom, METH_O, "Geom(lev, /) -> Geometry of the level."},
    {"maxLevel", am_max_level_m, METH_NOARGS, "maxLevel() -> int"},
    {"finestLevel", am_finest_level_m, METH_NOARGS, "finestLevel() -> int"},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot am_slots[] = {
    {Py_tp_doc, "AmrMesh() (from ParmParse amr.* / geometry.*) or AmrMesh(rb, max_level_in, n_cell_in, coord, "
                "ref_ratios, is_per): AMR levels' parameters and geometries."},
    {Py_tp_new, am_new},
    {Py_tp_init, am_init},
    {Py_tp_dealloc, am_dealloc},
    {Py_tp_repr, am_repr},
    {Py_tp_methods, am_methods},
    {Py_tp_getset, am_getset},
    {0, NULL},
};

static PyType_Spec am_spec = {.name = "AmrMesh",
                              .basicsize = sizeof(bfpy_amrmesh_object),
                              .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                              .slots = am_slots};

int bfpy_init_amrmesh(PyObject *m, int dim) {
  if (!bfpy_make_type(m, dim, BFPY_T_AMRINFO, "AmrInfo", &ai_spec, NULL)) return -1;
  return bfpy_make_type(m, dim, BFPY_T_AMRMESH, "AmrMesh", &am_spec, NULL) ? 0 : -1;
}
