/* boxfab._core: RealVect (family geometry) and the module functions min, max. */
#include <math.h>

#include "index/geometry.h"

#define RV(o) ((bfpy_realvect_object *)(o))

static int rv_dim(PyObject *self) { return RV(self)->dim; }

/* ---- shared helpers of the family ---------------------------------------------- */
int bfpy_geom_dir(PyObject *o, int dim, int *d, const char *what) {
  int v;
  if (bfpy_to_int(o, &v, what) < 0) return -1;
  Py_ssize_t j;
  if (bfpy_index(v, dim, &j, what) < 0) return -1;
  *d = (int)j;
  return 0;
}

int bfpy_geom_is_real_scalar(PyObject *o) {
  if (PyFloat_Check(o) || PyLong_Check(o)) return 1;
  int kind = bfpy_arg_kind(o, true); /* a 0-d array is a number, a 1-d one a sequence */
  if (kind < 0) return -1;           /* its __len__ raised (not a TypeError): that exception */
  return kind == BFPY_ARG_SCALAR;
}

PyObject *bfpy_geom_double_str(double v) {
  char *s = PyOS_double_to_string(v, 'r', 0, Py_DTSF_ADD_DOT_0, NULL);
  if (!s) return PyErr_NoMemory();
  PyObject *r = PyUnicode_FromString(s);
  PyMem_Free(s);
  return r;
}

PyObject *bfpy_geom_reals_repr(const double *v, int n) {
  PyObject *l = bfpy_double_list(v, n);
  if (!l) return NULL;
  PyObject *r = PyObject_Repr(l);
  Py_DECREF(l);
  return r;
}

/* ---- construction ------------------------------------------------------------ */
static int rv_init(PyObject *self, PyObject *args, PyObject *kwds) {
  int dim = bfpy_type_dim(Py_TYPE(self), BFPY_T_REALVECT);
  double v[BF_SPACEDIM_MAX] = {0.0, 0.0, 0.0};
  Py_ssize_t n = PyTuple_GET_SIZE(args);
  if (kwds && PyDict_GET_SIZE(kwds)) {
    PyErr_SetString(PyExc_TypeError, "RealVect() takes positional arguments only");
    return -1;
  }
  if (n == 1) {
    PyObject *a = PyTuple_GET_ITEM(args, 0);
    int scalar;
    if (bfpy_is(a, BFPY_T_INTVECT, -1)) {
      bf_intvect iv;
      if (bfpy_as_intvect(a, dim, 0, &iv, "RealVect(iv)") < 0) return -1;
      for (int d = 0; d < dim; ++d) v[d] = iv.v[d];
    } else if (bfpy_is(a, BFPY_T_REALVECT, -1)) {
      if (bfpy_as_realvect(a, dim, v, "RealVect(other)") < 0) return -1;
    } else if ((scalar = bfpy_geom_is_real_scalar(a)) < 0) {
      return -1;
    } else if (scalar) {
      double s;
      if (bfpy_to_double(a, &s, "RealVect(v)") < 0) return -1;
      for (int d = 0; d < dim; ++d) v[d] = s;
    } else if (PySequence_Check(a) && !bfpy_is_text(a)) {
      if (bfpy_to_double_array(a, dim, v, "RealVect(values)") < 0) return -1;
    } else {
      PyErr_Format(PyExc_TypeError,
                   "RealVect(): expected an IntVect%dD, a list of %d floats or a float, not %.100s", dim, dim,
                   Py_TYPE(a)->tp_name);
      return -1;
    }
  } else if (n == dim && dim > 1) {
    for (int d = 0; d < dim; ++d)
      if (bfpy_to_double(PyTuple_GET_ITEM(args, d), &v[d], "RealVect component") < 0) return -1;
  } else if (n != 0) {
    PyErr_Format(PyExc_TypeError,
                 "RealVect() takes 0, 1%s arguments in %dD (%zd given): (), (v), (values), (iv)%s", dim > 1 ? " or N" : "",
                 dim, n, dim == 3 ? ", (x, y, z)" : dim == 2 ? ", (x, y)" : "");
    return -1;
  }
  RV(self)->dim = dim;
  for (int d = 0; d < BF_SPACEDIM_MAX; ++d) RV(self)->v[d] = d < dim ? v[d] : 0.0;
  return 0;
}

static PyObject *rv_repr(PyObject *self) {
  PyObject *l = bfpy_geom_reals_repr(RV(self)->v, rv_dim(self));
  if (!l) return NULL;
  PyObject *r = PyUnicode_FromFormat("RealVect(%U)", l);
  Py_DECREF(l);
  return r;
}

static PyObject *rv___str(PyObject *self, PyObject *noargs) {
  (void)noargs;
  return rv_repr(self);
}

/* ---- item access -------------------------------------------------------------- */
static Py_ssize_t rv_len(PyObject *self) { return rv_dim(self); }

static PyObject *rv_item(PyObject *self, Py_ssize_t i) {
  if (i < 0 || i >= rv_dim(self)) {
    PyErr_Format(PyExc_IndexError, "RealVect index %zd out of range", i);
    return NULL;
  }
  return PyFloat_FromDouble(RV(self)->v[i]);
}

static PyObject *rv_subscript(PyObject *self, PyObject *key) {
  int d;
  if (bfpy_geom_dir(key, rv_dim(self), &d, "RealVect") < 0) return NULL;
  return PyFloat_FromDouble(RV(self)->v[d]);
}

static int rv_ass_subscript(PyObject *self, PyObject *key, PyObject *value) {
  if (!value) {
    PyErr_SetString(PyExc_TypeError, "RealVect components cannot be deleted");
    return -1;
  }
  int d;
  double x;
  if (bfpy_geom_dir(key, rv_dim(self), &d, "RealVect") < 0 || bfpy_to_double(value, &x, "RealVect component") < 0)
    return -1;
  RV(self)->v[d] = x;
  return 0;
}

/* ---- comparisons (AMReX: a relation holds when it holds for every component) ---- */
static PyObject *rv_richcompare(PyObject *a, PyObject *b, int op) {
  if (!bfpy_is(b, BFPY_T_REALVECT, -1)) Py_RETURN_NOTIMPLEMENTED;
  int dim = rv_dim(a);
  double w[BF_SPACEDIM_MAX];
  if (bfpy_as_realvect(b, dim, w, "RealVect comparison") < 0) return NULL;
  const double *v = RV(a)->v;
  bool r;
  switch (op) {
  case Py_EQ: r = bf_realvect_equal(dim, v, w); break;
  case Py_NE: r = !bf_realvect_equal(dim, v, w); break;
  case Py_LT: r = bf_realvect_all_lt(dim, v, w); break;
  case Py_LE: r = bf_realvect_all_le(dim, v, w); break;
  case Py_GT: r = bf_realvect_all_lt(dim, w, v); break;
  default: r = bf_realvect_all_le(dim, w, v); break;
  }
  return PyBool_FromLong(r);
}

/* ---- arithmetic ------------------------------------------------------------------ */
/* The other operand as a vector of `dim` doubles: a RealVect of the same dim or a
 * real scalar.  Returns 1 when not supported (NotImplemented), -1 on error. */
static int rv_operand(PyObject *o, int dim, double *out) {
  if (bfpy_is(o, BFPY_T_REALVECT, -1)) return bfpy_as_realvect(o, dim, out, "RealVect operand");
  int scalar = bfpy_geom_is_real_scalar(o);
  if (scalar <= 0) return scalar < 0 ? -1 : 1;
  double s;
  if (bfpy_to_double(o, &s, "RealVect operand") < 0) return -1;
  for (int d = 0; d < dim; ++d) out[d] = s;
  return 0;
}

static PyObject *rv_binary(PyObject *a, PyObject *b, int op) {
  bool reflected = !bfpy_is(a, BFPY_T_REALVECT, -1);
  PyObject *self = reflected ? b : a, *other = reflected ? a : b;
  int dim = rv_dim(self);
  double w[BF_SPACEDIM_MAX], r[BF_SPACEDIM_MAX];
  int st = rv_operand(other, dim, w);
  if (st < 0) return NULL;
  if (st > 0) Py_RETURN_NOTIMPLEMENTED;
  if (bfpy_check(reflected ? bf_realvect_binop(dim, op, w, RV(self)->v, r)
                           : bf_realvect_binop(dim, op, RV(self)->v, w, r)) < 0)
    return NULL;
  return bfpy_realvect_new(dim, r);
}

static PyObject *rv_inplace(PyObject *self, PyObject *other, int op) {
  if (!bfpy_is(self, BFPY_T_REALVECT, -1)) Py_RETURN_NOTIMPLEMENTED;
  int dim = rv_dim(self);
  double w[BF_SPACEDIM_MAX];
  int st = rv_operand(other, dim, w);
  if (st < 0) return NULL;
  if (st > 0) Py_RETURN_NOTIMPLEMENTED;
  if (bfpy_check(bf_realvect_binop(dim, op, RV(self)->v, w, RV(self)->v)) < 0) return NULL;
  return Py_NewRef(self);
}

static PyObject *rv_add(PyObject *a, PyObject *b) { return rv_binary(a, b, BF_RV_ADD); }
static PyObject *rv_sub(PyObject *a, PyObject *b) { return rv_binary(a, b, BF_RV_SUB); }
static PyObject *rv_mul(PyObject *a, PyObject *b) { return rv_binary(a, b, BF_RV_MUL); }
static PyObject *rv_div(PyObject *a, PyObject *b) { return rv_binary(a, b, BF_RV_DIV); }
static PyObject *rv_iadd(PyObject *a, PyObject *b) { return rv_inplace(a, b, BF_RV_ADD); }
static PyObject *rv_isub(PyObject *a, PyObject *b) { return rv_inplace(a, b, BF_RV_SUB); }
static PyObject *rv_imul(PyObject *a, PyObject *b) { return rv_inplace(a, b, BF_RV_MUL); }
static PyObject *rv_idiv(PyObject *a, PyObject *b) { return rv_inplace(a, b, BF_RV_DIV); }

static PyObject *rv_neg(PyObject *self) {
  double r[BF_SPACEDIM_MAX];
  for (int d = 0; d < rv_dim(self); ++d) r[d] = -RV(self)->v[d];
  return bfpy_realvect_new(rv_dim(self), r);
}

static PyObject *rv_pos(PyObject *self) { return bfpy_realvect_new(rv_dim(self), RV(self)->v); }

/* ---- methods -------------------------------------------------------------------- */
static int rv_other(PyObject *self, PyObject *o, double *w, const char *what) {
  return bfpy_as_realvect(o, rv_dim(self), w, what);
}

static PyObject *rv_dot(PyObject *self, PyObject *o) {
  double w[BF_SPACEDIM_MAX];
  if (rv_other(self, o, w, "dotProduct(other)") < 0) return NULL;
  return PyFloat_FromDouble(bf_realvect_dot(rv_dim(self), RV(self)->v, w));
}

static PyObject *rv_cross(PyObject *self, PyObject *o) {
  double w[BF_SPACEDIM_MAX], r[BF_SPACEDIM_MAX];
  if (rv_other(self, o, w, "crossProduct(other)") < 0) return NULL;
  if (bfpy_check(bf_realvect_cross(rv_dim(self), RV(self)->v, w, r)) < 0) return NULL;
  return bfpy_realvect_new(rv_dim(self), r);
}

static PyObject *rv_scale(PyObject *self, PyObject *o) {
  double s;
  if (bfpy_to_double(o, &s, "scale(s)") < 0) return NULL;
  for (int d = 0; d < rv_dim(self); ++d) RV(self)->v[d] *= s;
  return Py_NewRef(self);
}

static PyObject *rv_round_to(PyObject *self, int mode) {
  bf_intvect iv;
  if (bfpy_check(bf_realvect_to_intvect(rv_dim(self), RV(self)->v, mode, &iv)) < 0) return NULL;
  return bfpy_intvect_new(&iv);
}
static PyObject *rv_floor(PyObject *self, PyObject *noargs) { (void)noargs; return rv_round_to(self, BF_ROUND_FLOOR); }
static PyObject *rv_ceil(PyObject *self, PyObject *noargs) { (void)noargs; return rv_round_to(self, BF_ROUND_CEIL); }
static PyObject *rv_round(PyObject *self, PyObject *noargs) { (void)noargs; return rv_round_to(self, BF_ROUND_NEAREST); }

static PyObject *rv_minmax_inplace(PyObject *self, PyObject *o, int op, const char *what) {
  double w[BF_SPACEDIM_MAX];
  if (rv_other(self, o, w, what) < 0) return NULL;
  if (bfpy_check(bf_realvect_binop(rv_dim(self), op, RV(self)->v, w, RV(self)->v)) < 0) return NULL;
  return Py_NewRef(self);
}
static PyObject *rv_min(PyObject *self, PyObject *o) { return rv_minmax_inplace(self, o, BF_RV_MIN, "min(other)"); }
static PyObject *rv_max(PyObject *self, PyObject *o) { return rv_minmax_inplace(self, o, BF_RV_MAX, "max(other)"); }

static PyObject *rv_dir(PyObject *self, PyObject *use_abs, bool max) {
  int a = PyObject_IsTrue(use_abs);
  if (a < 0) return NULL;
  int dim = rv_dim(self);
  return PyLong_FromLong(max ? bf_realvect_max_dir(dim, RV(self)->v, a) : bf_realvect_min_dir(dim, RV(self)->v, a));
}
static PyObject *rv_min_dir(PyObject *self, PyObject *a) { return rv_dir(self, a, false); }
static PyObject *rv_max_dir(PyObject *self, PyObject *a) { return rv_dir(self, a, true); }

static PyObject *rv_splat(PyObject *cls, double s) {
  int dim = bfpy_type_dim((PyTypeObject *)cls, BFPY_T_REALVECT);
  double v[BF_SPACEDIM_MAX] = {s, s, s};
  return bfpy_realvect_new(dim, v);
}
static PyObject *rv_zero_vector(PyObject *cls, PyObject *noargs) { (void)noargs; return rv_splat(cls, 0.0); }
static PyObject *rv_unit_vector(PyObject *cls, PyObject *noargs) { (void)noargs; return rv_splat(cls, 1.0); }

static PyObject *rv_basis(PyObject *cls, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"dir", NULL};
  PyObject *a[1];
  if (bfpy_bind(args, nargs, kwnames, names, 1, a, true) < 0) return NULL;
  int dim = bfpy_type_dim((PyTypeObject *)cls, BFPY_T_REALVECT), d;
  if (bfpy_geom_dir(a[0], dim, &d, "BASISREALV dir") < 0) return NULL;
  double v[BF_SPACEDIM_MAX] = {0.0, 0.0, 0.0};
  v[d] = 1.0;
  return bfpy_realvect_new(dim, v);
}

static PyObject *rv_get_sum(PyObject *self, void *c) { (void)c; return PyFloat_FromDouble(bf_realvect_sum(rv_dim(self), RV(self)->v)); }
static PyObject *rv_get_product(PyObject *self, void *c) { (void)c; return PyFloat_FromDouble(bf_realvect_product(rv_dim(self), RV(self)->v)); }
static PyObject *rv_get_length(PyObject *self, void *c) { (void)c; return PyFloat_FromDouble(bf_realvect_length(rv_dim(self), RV(self)->v)); }
static PyObject *rv_get_rad2(PyObject *self, void *c) { (void)c; return PyFloat_FromDouble(bf_realvect_rad_squared(rv_dim(self), RV(self)->v)); }

static PyGetSetDef rv_getset[] = {
    {"sum", rv_get_sum, NULL, "Sum of the components.", NULL},
    {"product", rv_get_product, NULL, "Product of the components.", NULL},
    {"vectorLength", rv_get_length, NULL, "2-norm.", NULL},
    {"radSquared", rv_get_rad2, NULL, "Squared 2-norm.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

#define RV_COMMON_METHODS                                                                                            \
  {"dotProduct", rv_dot, METH_O, "dotProduct(other, /) -> float"},                                                 \
  {"scale", rv_scale, METH_O, "scale(s, /) -> RealVect: multiply in place by s."},                                 \
  {"floor", rv_floor, METH_NOARGS, "floor() -> IntVect"},                                                          \
  {"ceil", rv_ceil, METH_NOARGS, "ceil() -> IntVect"},                                                             \
  {"round", rv_round, METH_NOARGS, "round() -> IntVect (halves away from zero, as C round())"},                    \
  {"min", rv_min, METH_O, "min(other, /) -> RealVect: component-wise min in place."},                              \
  {"max", rv_max, METH_O, "max(other, /) -> RealVect: component-wise max in place."},                              \
  {"minDir", rv_min_dir, METH_O, "minDir(use_abs, /) -> int: direction of the smallest component."},               \
  {"maxDir", rv_max_dir, METH_O, "maxDir(use_abs, /) -> int: direction of the largest component."},                \
  {"zero_vector", rv_zero_vector, METH_NOARGS | METH_CLASS, "zero_vector() -> RealVect: all 0."},                  \
  {"unit_vector", rv_unit_vector, METH_NOARGS | METH_CLASS, "unit_vector() -> RealVect: all 1."},                  \
  {"BASISREALV", (PyCFunction)(void (*)(void))rv_basis, METH_FASTCALL | METH_KEYWORDS | METH_CLASS,                \
   "BASISREALV(dir) -> RealVect: unit vector along dir (call it on the class)."},                                  \
  {"__str", rv___str, METH_NOARGS, "__str() -> str"}

static PyMethodDef rv_methods[] = {RV_COMMON_METHODS, {NULL, NULL, 0, NULL}};
static PyMethodDef rv_methods_3d[] = {
    RV_COMMON_METHODS,
    {"crossProduct", rv_cross, METH_O, "crossProduct(other, /) -> RealVect (3D only)."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot rv_slots[] = {
    {Py_tp_doc, "RealVect: a vector of N floats (physical space). Comparisons hold when they hold for every "
                "component (AMReX's rule), so a < b is not the negation of a >= b."},
    {Py_tp_init, rv_init},
    {Py_tp_repr, rv_repr},
    {Py_tp_str, rv_repr},
    {Py_tp_richcompare, rv_richcompare},
    {Py_tp_hash, PyObject_HashNotImplemented},
    {Py_tp_methods, rv_methods}, /* replaced by rv_methods_3d for dim 3 */
    {Py_tp_getset, rv_getset},
    {Py_sq_length, rv_len},
    {Py_sq_item, rv_item},
    {Py_mp_length, rv_len},
    {Py_mp_subscript, rv_subscript},
    {Py_mp_ass_subscript, rv_ass_subscript},
    {Py_nb_add, rv_add},
    {Py_nb_subtract, rv_sub},
    {Py_nb_multiply, rv_mul},
    {Py_nb_true_divide, rv_div},
    {Py_nb_inplace_add, rv_iadd},
    {Py_nb_inplace_subtract, rv_isub},
    {Py_nb_inplace_multiply, rv_imul},
    {Py_nb_inplace_true_divide, rv_idiv},
    {Py_nb_negative, rv_neg},
    {Py_nb_positive, rv_pos},
    {0, NULL},
};

static PyType_Spec rv_spec = {.name = "RealVect",
                              .basicsize = sizeof(bfpy_realvect_object),
                              .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                              .slots = rv_slots};

/* ---- module functions min / max ---------------------------------------------------- */
static PyObject *mod_minmax(PyObject *module, PyObject *const *args, Py_ssize_t nargs, int op, const char *name) {
  int dim = bfpy_module_dim(module);
  if (nargs != 2) {
    PyErr_Format(PyExc_TypeError, "%s() takes exactly 2 positional arguments (a: RealVect, b: RealVect) (%zd given)",
                 name, nargs);
    return NULL;
  }
  double a[BF_SPACEDIM_MAX], b[BF_SPACEDIM_MAX], r[BF_SPACEDIM_MAX];
  if (bfpy_as_realvect(args[0], dim, a, name) < 0 || bfpy_as_realvect(args[1], dim, b, name) < 0) return NULL;
  if (bfpy_check(bf_realvect_binop(dim, op, a, b, r)) < 0) return NULL;
  return bfpy_realvect_new(dim, r);
}
static PyObject *mod_min(PyObject *m, PyObject *const *args, Py_ssize_t nargs) { return mod_minmax(m, args, nargs, BF_RV_MIN, "min"); }
static PyObject *mod_max(PyObject *m, PyObject *const *args, Py_ssize_t nargs) { return mod_minmax(m, args, nargs, BF_RV_MAX, "max"); }

static PyMethodDef rv_functions[] = {
    {"min", (PyCFunction)(void (*)(void))mod_min, METH_FASTCALL, "min(a: RealVect, b: RealVect, /) -> RealVect: component-wise min."},
    {"max", (PyCFunction)(void (*)(void))mod_max, METH_FASTCALL, "max(a: RealVect, b: RealVect, /) -> RealVect: component-wise max."},
    {NULL, NULL, 0, NULL},
};

int bfpy_init_realvect(PyObject *m, int dim) {
  for (PyType_Slot *s = rv_slots; s->slot; ++s)
    if (s->slot == Py_tp_methods) s->pfunc = dim == 3 ? rv_methods_3d : rv_methods;
  if (!bfpy_make_type(m, dim, BFPY_T_REALVECT, "RealVect", &rv_spec, NULL)) return -1;
  return PyModule_AddFunctions(m, rv_functions);
}
