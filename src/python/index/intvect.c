/* boxfab._core: IntVect1D/2D/3D, Dim3, XDim3, module coarsen/refine. */
#include "bfpy.h"

#include <float.h>
#include <limits.h>

/* ---- Dim3 / XDim3 ------------------------------------------------------------ */
static int dim3_init(PyObject *self, PyObject *args, PyObject *kwds) {
  bfpy_dim3_object *o = (bfpy_dim3_object *)self;
  PyObject *x, *y, *z;
  if (kwds && PyDict_GET_SIZE(kwds)) {
    PyErr_SetString(PyExc_TypeError, "Dim3(x, y, z) takes positional arguments only");
    return -1;
  }
  if (!PyArg_UnpackTuple(args, "Dim3", 3, 3, &x, &y, &z)) return -1;
  if (bfpy_to_int(x, &o->x, "Dim3 x") < 0 || bfpy_to_int(y, &o->y, "Dim3 y") < 0 ||
      bfpy_to_int(z, &o->z, "Dim3 z") < 0)
    return -1;
  return 0;
}

static PyObject *dim3_repr(PyObject *self) {
  bfpy_dim3_object *o = (bfpy_dim3_object *)self;
  return PyUnicode_FromFormat("Dim3(%d, %d, %d)", o->x, o->y, o->z);
}

static PyObject *dim3_richcompare(PyObject *a, PyObject *b, int op) {
  if (!bfpy_is(b, BFPY_T_DIM3, 0) || (op != Py_EQ && op != Py_NE)) Py_RETURN_NOTIMPLEMENTED;
  bfpy_dim3_object *p = (bfpy_dim3_object *)a, *q = (bfpy_dim3_object *)b;
  int eq = p->x == q->x && p->y == q->y && p->z == q->z;
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static int dim3_set(PyObject *self, PyObject *value, void *closure) {
  if (!value) {
    PyErr_SetString(PyExc_AttributeError, "cannot delete a Dim3 component");
    return -1;
  }
  int *field = (int *)((char *)self + (size_t)closure);
  return bfpy_to_int(value, field, "Dim3 component");
}

static PyObject *dim3_get(PyObject *self, void *closure) {
  return PyLong_FromLong(*(int *)((char *)self + (size_t)closure));
}

static PyGetSetDef dim3_getset[] = {
    {"x", dim3_get, dim3_set, "x component", (void *)offsetof(bfpy_dim3_object, x)},
    {"y", dim3_get, dim3_set, "y component", (void *)offsetof(bfpy_dim3_object, y)},
    {"z", dim3_get, dim3_set, "z component", (void *)offsetof(bfpy_dim3_object, z)},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot dim3_slots[] = {
    {Py_tp_doc, "Dim3(x, y, z): three ints (always three, whatever the dimension)."},
    {Py_tp_init, dim3_init},
    {Py_tp_repr, dim3_repr},
    {Py_tp_str, dim3_repr},
    {Py_tp_richcompare, dim3_richcompare},
    {Py_tp_hash, PyObject_HashNotImplemented},
    {Py_tp_getset, dim3_getset},
    {0, NULL},
};

static PyType_Spec dim3_spec = {
    .name = "Dim3", .basicsize = sizeof(bfpy_dim3_object), .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .slots = dim3_slots};

static int xdim3_init(PyObject *self, PyObject *args, PyObject *kwds) {
  bfpy_xdim3_object *o = (bfpy_xdim3_object *)self;
  PyObject *x, *y, *z;
  if (kwds && PyDict_GET_SIZE(kwds)) {
    PyErr_SetString(PyExc_TypeError, "XDim3(x, y, z) takes positional arguments only");
    return -1;
  }
  if (!PyArg_UnpackTuple(args, "XDim3", 3, 3, &x, &y, &z)) return -1;
  if (bfpy_to_double(x, &o->x, "XDim3 x") < 0 || bfpy_to_double(y, &o->y, "XDim3 y") < 0 ||
      bfpy_to_double(z, &o->z, "XDim3 z") < 0)
    return -1;
  return 0;
}

static PyObject *xdim3_repr(PyObject *self) {
  bfpy_xdim3_object *o = (bfpy_xdim3_object *)self;
  char buf[3 * (DBL_DECIMAL_DIG + 12) + 16];
  char *xs = PyOS_double_to_string(o->x, 'r', 0, Py_DTSF_ADD_DOT_0, NULL), *ys = PyOS_double_to_string(o->y, 'r', 0, Py_DTSF_ADD_DOT_0, NULL),
       *zs = PyOS_double_to_string(o->z, 'r', 0, Py_DTSF_ADD_DOT_0, NULL);
  PyObject *r = NULL;
  if (xs && ys && zs) {
    snprintf(buf, sizeof buf, "XDim3(%s, %s, %s)", xs, ys, zs);
    r = PyUnicode_FromString(buf);
  } else {
    PyErr_NoMemory();
  }
  PyMem_Free(xs), PyMem_Free(ys), PyMem_Free(zs);
  return r;
}

static PyObject *xdim3_richcompare(PyObject *a, PyObject *b, int op) {
  if (!bfpy_is(b, BFPY_T_XDIM3, 0) || (op != Py_EQ && op != Py_NE)) Py_RETURN_NOTIMPLEMENTED;
  bfpy_xdim3_object *p = (bfpy_xdim3_object *)a, *q = (bfpy_xdim3_object *)b;
  int eq = p->x == q->x && p->y == q->y && p->z == q->z;
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

/* Getters and setters rather than T_DOUBLE members: CPython's T_DOUBLE setter stores
 * PyFloat_AsDouble's -1.0 before it reports the TypeError of a non-number ("x.x = 'a'"
 * raised but left x == -1.0); here a refused value leaves the component as it was. */
static int xdim3_set(PyObject *self, PyObject *value, void *closure) {
  if (!value) {
    PyErr_SetString(PyExc_AttributeError, "cannot delete an XDim3 component");
    return -1;
  }
  double v;
  if (bfpy_to_double(value, &v, "XDim3 component") < 0) return -1;
  *(double *)((char *)self + (size_t)closure) = v;
  return 0;
}

static PyObject *xdim3_get(PyObject *self, void *closure) {
  return PyFloat_FromDouble(*(double *)((char *)self + (size_t)closure));
}

static PyGetSetDef xdim3_getset[] = {
    {"x", xdim3_get, xdim3_set, "x component", (void *)offsetof(bfpy_xdim3_object, x)},
    {"y", xdim3_get, xdim3_set, "y component", (void *)offsetof(bfpy_xdim3_object, y)},
    {"z", xdim3_get, xdim3_set, "z component", (void *)offsetof(bfpy_xdim3_object, z)},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot xdim3_slots[] = {
    {Py_tp_doc, "XDim3(x, y, z): three floats."},
    {Py_tp_init, xdim3_init},
    {Py_tp_repr, xdim3_repr},
    {Py_tp_str, xdim3_repr},
    {Py_tp_richcompare, xdim3_richcompare},
    {Py_tp_hash, PyObject_HashNotImplemented},
    {Py_tp_getset, xdim3_getset},
    {0, NULL},
};

static PyType_Spec xdim3_spec = {
    .name = "XDim3", .basicsize = sizeof(bfpy_xdim3_object), .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .slots = xdim3_slots};

/* ---- IntVect1D / IntVect2D / IntVect3D ------------------------------------------
 * One heap type per dimension, shared by the three space modules.  An
 * instance's iv.dim is its type's dimension (set in tp_new). */
#define IV(o) (&((bfpy_intvect_object *)(o))->iv)

/* 1 for an int that is not also a sized sequence (a NumPy array has __index__
 * too; a 0-d one is an int, as for operator.index), 0 otherwise, -1 error. */
static int iv_is_scalar(PyObject *o) {
  int k = bfpy_arg_kind(o, false);
  return k < 0 ? -1 : k == BFPY_ARG_SCALAR;
}

static PyObject *iv_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
  (void)args, (void)kwds;
  int dim = bfpy_type_dim(type, BFPY_T_INTVECT);
  if (dim < 1) {
    PyErr_Format(PyExc_TypeError, "%s is not an IntVect type", type->tp_name);
    return NULL;
  }
  PyObject *self = type->tp_alloc(type, 0);
  if (self) *IV(self) = bf_intvect_splat(dim, 0);
  return self;
}

static int iv_init(PyObject *self, PyObject *args, PyObject *kwds) {
  int dim = IV(self)->dim;
  char name[16];
  snprintf(name, sizeof name, "IntVect%dD", dim);
  if (kwds && PyDict_GET_SIZE(kwds)) {
    PyErr_Format(PyExc_TypeError, "%s() takes positional arguments only", name);
    return -1;
  }
  Py_ssize_t n = PyTuple_GET_SIZE(args);
  bf_intvect r = bf_intvect_splat(dim, 0);
  int kind;
  if (n == 1) {
    PyObject *a = PyTuple_GET_ITEM(args, 0);
    if (bfpy_is(a, BFPY_T_INTVECT, -1)) {
      if (IV(a)->dim != dim) {
        bfpy_dim_mismatch(name, dim, IV(a)->dim);
        return -1;
      }
      r = *IV(a);
    } else if ((kind = bfpy_arg_kind(a, false)) == BFPY_ARG_SCALAR) {
      if (bfpy_to_int(a, &r.v[0], name) < 0) return -1;
      r = bf_intvect_splat(dim, r.v[0]);
    } else if (kind == BFPY_ARG_SEQUENCE) {
      if (bfpy_to_int_array(a, dim, r.v, name) < 0) return -1;
    } else if (kind < 0) {
      return -1;
    } else {
      PyErr_Format(PyExc_TypeError, "%s() argument must be an int or a sequence of %d ints, not %.100s", name, dim,
                   Py_TYPE(a)->tp_name);
      return -1;
    }
  } else if (n == dim && n > 1) {
    for (int d = 0; d < dim; ++d)
      if (bfpy_to_int(PyTuple_GET_ITEM(args, d), &r.v[d], name) < 0) return -1;
  } else if (n != 0) {
    if (dim == 1)
      PyErr_Format(PyExc_TypeError, "%s() takes (), (v: int) or (values: int[1]), got %zd arguments", name, n);
    else
      PyErr_Format(PyExc_TypeError, "%s() takes (), (v: int), (values: int[%d]) or %d ints, got %zd arguments",
                   name, dim, dim, n);
    return -1;
  }
  *IV(self) = r;
  return 0;
}

static PyObject *iv_repr(PyObject *self) {
  const bf_intvect *iv = IV(self);
  switch (iv->dim) {
  /* pyAMReX's repr: <amrex.IntVect3D(1,2,3)> */
  case 1: return PyUnicode_FromFormat("<amrex.IntVect1D(%d)>", iv->v[0]);
  case 2: return PyUnicode_FromFormat("<amrex.IntVect2D(%d,%d)>", iv->v[0], iv->v[1]);
  default: return PyUnicode_FromFormat("<amrex.IntVect3D(%d,%d,%d)>", iv->v[0], iv->v[1], iv->v[2]);
  }
}

/* AMReX's text form: (1,2,3). */
static PyObject *iv_str(PyObject *self) {
  const bf_intvect *iv = IV(self);
  switch (iv->dim) {
  case 1: return PyUnicode_FromFormat("(%d)", iv->v[0]);
  case 2: return PyUnicode_FromFormat("(%d,%d)", iv->v[0], iv->v[1]);
  default: return PyUnicode_FromFormat("(%d,%d,%d)", iv->v[0], iv->v[1], iv->v[2]);
  }
}

static PyObject *iv_str_method(PyObject *self, PyObject *noargs) {
  (void)noargs;
  return iv_str(self);
}

/* ---- sequence and mapping protocol ---- */
static Py_ssize_t iv_len(PyObject *self) { return IV(self)->dim; }

static PyObject *iv_item(PyObject *self, Py_ssize_t i) {
  Py_ssize_t j;
  if (bfpy_index(i, IV(self)->dim, &j, bfpy_type_name(BFPY_T_INTVECT, IV(self)->dim)) < 0) return NULL;
  return PyLong_FromLong(IV(self)->v[j]);
}

static int iv_key(PyObject *self, PyObject *key, Py_ssize_t *out) {
  if (!PyIndex_Check(key) || PyFloat_Check(key)) {
    PyErr_Format(PyExc_TypeError, "%s indices must be integers, not %.100s",
                 bfpy_type_name(BFPY_T_INTVECT, IV(self)->dim), Py_TYPE(key)->tp_name);
    return -1;
  }
  Py_ssize_t i = PyNumber_AsSsize_t(key, NULL); /* clamps huge ints: then out of range */
  if (i == -1 && PyErr_Occurred()) return -1;
  return bfpy_index(i, IV(self)->dim, out, bfpy_type_name(BFPY_T_INTVECT, IV(self)->dim));
}

static PyObject *iv_subscript(PyObject *self, PyObject *key) {
  Py_ssize_t j;
  if (iv_key(self, key, &j) < 0) return NULL;
  return PyLong_FromLong(IV(self)->v[j]);
}

static int iv_ass_subscript(PyObject *self, PyObject *key, PyObject *value) {
  if (!value) {
    PyErr_SetString(PyExc_TypeError, "IntVect components cannot be deleted");
    return -1;
  }
  Py_ssize_t j;
  int v;
  if (iv_key(self, key, &j) < 0 || bfpy_to_int(value, &v, "IntVect component") < 0) return -1;
  IV(self)->v[j] = v;
  return 0;
}

/* __setitem__ as a method returns the stored value (pyAMReX does). */
static PyObject *iv_setitem_method(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs != 2) {
    PyErr_Format(PyExc_TypeError, "__setitem__(i, v, /) takes 2 arguments (%zd given)", nargs);
    return NULL;
  }
  if (iv_ass_subscript(self, args[0], args[1]) < 0) return NULL;
  Py_ssize_t j;
  if (iv_key(self, args[0], &j) < 0) return NULL;
  return PyLong_FromLong(IV(self)->v[j]);
}

/* ---- comparison ---- */
static PyObject *iv_richcompare(PyObject *a, PyObject *b, int op) {
  const bf_intvect *p = IV(a);
  if (bfpy_is(b, BFPY_T_INTVECT, -1)) {
    const bf_intvect *q = IV(b);
    if (q->dim != p->dim) {
      char what[32];
      snprintf(what, sizeof what, "%s comparison", bfpy_type_name(BFPY_T_INTVECT, p->dim));
      return bfpy_dim_mismatch(what, p->dim, q->dim);
    }
    int c = bf_intvect_compare(p, q);
    Py_RETURN_RICHCOMPARE(c, 0, op);
  }
  int scalar = op == Py_EQ || op == Py_NE ? iv_is_scalar(b) : 0;
  if (scalar < 0) return NULL;
  if (scalar) {
    int v;
    if (bfpy_to_int(b, &v, "IntVect comparison value") < 0) {
      /* an int outside C int equals no component */
      if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return NULL;
      PyErr_Clear();
      return PyBool_FromLong(op == Py_NE);
    }
    bf_intvect s = bf_intvect_splat(p->dim, v);
    bool eq = bf_intvect_equal(p, &s);
    return PyBool_FromLong(op == Py_EQ ? eq : !eq);
  }
  Py_RETURN_NOTIMPLEMENTED;
}

/* ---- arithmetic ---- */
/* The right operand of an operator: an IntVect of a's dim or an int.
 * Returns 1 when b is neither (NotImplemented), -1 on error, 0 ok. */
static int iv_operand(const bf_intvect *a, PyObject *b, bf_intvect *out) {
  int scalar = bfpy_is(b, BFPY_T_INTVECT, -1) ? 1 : iv_is_scalar(b);
  if (scalar <= 0) return scalar < 0 ? -1 : 1;
  return bfpy_as_intvect(b, a->dim, BFPY_IV_SCALAR, out, "IntVect operand");
}

/* a <op> b into *out; 1 = NotImplemented, -1 error, 0 ok. */
static int iv_binary(PyObject *a, PyObject *b, int op, bf_intvect *out) {
  if (!bfpy_is(a, BFPY_T_INTVECT, -1)) return 1;
  bf_intvect rhs;
  int s = iv_operand(IV(a), b, &rhs);
  if (s) return s;
  if (op == BF_INTVECT_DIV)
    for (int d = 0; d < rhs.dim; ++d)
      if (rhs.v[d] == 0) {
        PyErr_Format(PyExc_ZeroDivisionError, "IntVect division by zero (component %d of the divisor)", d);
        return -1;
      }
  return bfpy_check(bf_intvect_arith(out, IV(a), op, &rhs));
}

static PyObject *iv_binary_new(PyObject *a, PyObject *b, int op) {
  bf_intvect r;
  int s = iv_binary(a, b, op, &r);
  if (s > 0) Py_RETURN_NOTIMPLEMENTED;
  return s < 0 ? NULL : bfpy_intvect_new(&r);
}

static PyObject *iv_binary_inplace(PyObject *a, PyObject *b, int op) {
  bf_intvect r;
  int s = iv_binary(a, b, op, &r);
  if (s > 0) Py_RETURN_NOTIMPLEMENTED;
  if (s < 0) return NULL;
  *IV(a) = r;
  return Py_NewRef(a);
}

static PyObject *iv_add(PyObject *a, PyObject *b) { return iv_binary_new(a, b, BF_INTVECT_ADD); }
static PyObject *iv_sub(PyObject *a, PyObject *b) { return iv_binary_new(a, b, BF_INTVECT_SUB); }
static PyObject *iv_mul(PyObject *a, PyObject *b) { return iv_binary_new(a, b, BF_INTVECT_MUL); }
static PyObject *iv_div(PyObject *a, PyObject *b) { return iv_binary_new(a, b, BF_INTVECT_DIV); }
static PyObject *iv_iadd(PyObject *a, PyObject *b) { return iv_binary_inplace(a, b, BF_INTVECT_ADD); }
static PyObject *iv_isub(PyObject *a, PyObject *b) { return iv_binary_inplace(a, b, BF_INTVECT_SUB); }
static PyObject *iv_imul(PyObject *a, PyObject *b) { return iv_binary_inplace(a, b, BF_INTVECT_MUL); }
static PyObject *iv_idiv(PyObject *a, PyObject *b) { return iv_binary_inplace(a, b, BF_INTVECT_DIV); }

/* ---- properties and methods ---- */
static PyObject *iv_get_sum(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLongLong(bf_intvect_sum(IV(self)));
}
static PyObject *iv_get_max(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLong(bf_intvect_max(IV(self)));
}
static PyObject *iv_get_min(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLong(bf_intvect_min(IV(self)));
}

static PyGetSetDef iv_getset[] = {
    {"sum", iv_get_sum, NULL, "Sum of the components.", NULL},
    {"max", iv_get_max, NULL, "Largest component.", NULL},
    {"min", iv_get_min, NULL, "Smallest component.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyObject *iv_dim3(PyObject *self, PyObject *noargs) {
  (void)noargs;
  const bf_intvect *iv = IV(self);
  return bfpy_dim3_new(iv->v[0], iv->dim > 1 ? iv->v[1] : 0, iv->dim > 2 ? iv->v[2] : 0);
}

static PyObject *iv_numpy(PyObject *self, PyObject *noargs) {
  (void)noargs;
  PyObject *np = PyImport_ImportModule("numpy");
  if (!np) return NULL;
  PyObject *list = bfpy_int_list(IV(self)->v, IV(self)->dim), *r = NULL;
  PyObject *array = PyObject_GetAttrString(np, "array"), *dtype = PyObject_GetAttrString(np, "int32");
  PyObject *args = list ? PyTuple_Pack(1, list) : NULL, *kw = dtype ? Py_BuildValue("{s:O}", "dtype", dtype) : NULL;
  if (array && args && kw) r = PyObject_Call(array, args, kw);
  Py_XDECREF(list), Py_XDECREF(array), Py_XDECREF(dtype), Py_XDECREF(args), Py_XDECREF(kw);
  Py_DECREF(np);
  return r;
}

static PyMethodDef iv_methods[] = {
    {"dim3", iv_dim3, METH_NOARGS, "dim3() -> Dim3: the components as a Dim3 (missing dims = 0)."},
    {"numpy", iv_numpy, METH_NOARGS, "numpy() -> ndarray int32 of shape (D,): the components."},
    {"__str", iv_str_method, METH_NOARGS, "__str() -> str: the text form, e.g. (1,2,3)."},
    {"__setitem__", (PyCFunction)(void (*)(void))iv_setitem_method, METH_FASTCALL | METH_COEXIST,
     "__setitem__(i, v, /) -> int: set component i (negative counts from the end); returns v."},
    {NULL, NULL, 0, NULL},
};

/* Static constructors: self is the dimension (a Python int bound at type creation). */
static PyObject *iv_static_splat(PyObject *dimobj, int value) {
  bf_intvect r = bf_intvect_splat((int)PyLong_AsLong(dimobj), value);
  return bfpy_intvect_new(&r);
}
static PyObject *iv_zero_vector(PyObject *d, PyObject *n) { (void)n; return iv_static_splat(d, 0); }
static PyObject *iv_unit_vector(PyObject *d, PyObject *n) { (void)n; return iv_static_splat(d, 1); }
static PyObject *iv_max_vector(PyObject *d, PyObject *n) { (void)n; return iv_static_splat(d, INT_MAX); }
static PyObject *iv_min_vector(PyObject *d, PyObject *n) { (void)n; return iv_static_splat(d, INT_MIN); }

static PyMethodDef iv_statics[] = {
    {"zero_vector", iv_zero_vector, METH_NOARGS, "zero_vector() -> IntVect: all components 0."},
    {"unit_vector", iv_unit_vector, METH_NOARGS, "unit_vector() -> IntVect: all components 1."},
    {"cell_vector", iv_zero_vector, METH_NOARGS, "cell_vector() -> IntVect: all 0 (CELL)."},
    {"node_vector", iv_unit_vector, METH_NOARGS, "node_vector() -> IntVect: all 1 (NODE)."},
    {"max_vector", iv_max_vector, METH_NOARGS, "max_vector() -> IntVect: all components INT_MAX."},
    {"min_vector", iv_min_vector, METH_NOARGS, "min_vector() -> IntVect: all components INT_MIN."},
    {NULL, NULL, 0, NULL},
};


static PyType_Slot iv_slots[] = {
    {Py_tp_doc, "IntVect of this dimension: IV(), IV(v), IV([values]), IV(i, j[, k])."},
    {Py_tp_new, iv_new},
    {Py_tp_init, iv_init},
    {Py_tp_repr, iv_repr},
    {Py_tp_str, iv_str},
    {Py_tp_richcompare, iv_richcompare},
    {Py_tp_hash, PyObject_HashNotImplemented},
    {Py_tp_iter, PySeqIter_New},
    {Py_tp_getset, iv_getset},
    {Py_tp_methods, iv_methods},
    {Py_sq_length, iv_len},
    {Py_sq_item, iv_item},
    {Py_mp_length, iv_len},
    {Py_mp_subscript, iv_subscript},
    {Py_mp_ass_subscript, iv_ass_subscript},
    {Py_nb_add, iv_add},
    {Py_nb_subtract, iv_sub},
    {Py_nb_multiply, iv_mul},
    {Py_nb_true_divide, iv_div},
    {Py_nb_inplace_add, iv_iadd},
    {Py_nb_inplace_subtract, iv_isub},
    {Py_nb_inplace_multiply, iv_imul},
    {Py_nb_inplace_true_divide, iv_idiv},
    {0, NULL},
};

static PyType_Spec iv_spec = {
    .name = "IntVect", .basicsize = sizeof(bfpy_intvect_object), .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .slots = iv_slots};

static int make_intvect_types(void) {
  for (int d = 1; d <= BF_SPACEDIM_MAX; ++d) {
    char name[16];
    snprintf(name, sizeof name, "IntVect%dD", d);
    PyTypeObject *t = bfpy_make_type(NULL, d, BFPY_T_INTVECT, name, &iv_spec, NULL);
    if (!t) return -1;
    PyObject *dimobj = PyLong_FromLong(d);
    int s = dimobj ? bfpy_add_statics(t, iv_statics, dimobj) : -1;
    Py_XDECREF(dimobj);
    if (s < 0) return -1;
  }
  return 0;
}

/* ---- module functions coarsen / refine ----------------------------------------- */
/* A ratio for a Dim3: an IntVect of any dimension (missing components 1) or an
 * int.  Not a list: its length would say nothing about which components it
 * means (an IntVect says it by its dimension). */
static int dim3_ratio(PyObject *r, bf_intvect *out, const char *func) {
  if (bfpy_is(r, BFPY_T_INTVECT, -1)) {
    *out = bf_intvect_splat(3, 1);
    for (int d = 0; d < IV(r)->dim; ++d) out->v[d] = IV(r)->v[d];
    return 0;
  }
  int scalar = iv_is_scalar(r);
  if (scalar < 0) return -1;
  if (scalar) return bfpy_as_intvect(r, 3, BFPY_IV_SCALAR, out, func);
  PyErr_Format(PyExc_TypeError, "%s: ratio must be an IntVect1D/2D/3D or an int, not %.100s", func,
               Py_TYPE(r)->tp_name);
  return -1;
}

static bf_intvect dim3_point(PyObject *o) {
  bfpy_dim3_object *p = (bfpy_dim3_object *)o;
  bf_intvect r = {3, {p->x, p->y, p->z}};
  return r;
}

static PyObject *mod_coarsen(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  (void)self;
  static const char *const names[] = {"", "", NULL};
  static const char *const sigs = "coarsen(iv: IntVectKD, ratio: IntVectKD/int, /), coarsen(d: Dim3, ratio: "
                                  "IntVectKD/int, /)";
  PyObject *a[2];
  if (bfpy_bind(args, nargs, kwnames, names, 2, a, false) != 0)
    return PyErr_Occurred() ? NULL : bfpy_no_overload("coarsen", args, nargs, kwnames, sigs);
  if (bfpy_is(a[0], BFPY_T_INTVECT, -1)) {
    bf_intvect iv = *IV(a[0]), ratio;
    int kind = bfpy_arg_kind(a[1], false);
    if (kind < 0) return NULL;
    if (kind == BFPY_ARG_OTHER) return bfpy_no_overload("coarsen", args, nargs, kwnames, sigs);
    if (bfpy_as_intvect(a[1], iv.dim, BFPY_IV_SCALAR | BFPY_IV_SEQUENCE, &ratio, "coarsen ratio") < 0) return NULL;
    if (bfpy_check(bf_intvect_coarsen(&iv, &ratio)) < 0) return NULL;
    return bfpy_intvect_new(&iv);
  }
  if (bfpy_is(a[0], BFPY_T_DIM3, 0)) {
    bf_intvect p = dim3_point(a[0]), ratio;
    if (dim3_ratio(a[1], &ratio, "coarsen") < 0 || bfpy_check(bf_intvect_coarsen(&p, &ratio)) < 0) return NULL;
    return bfpy_dim3_new(p.v[0], p.v[1], p.v[2]);
  }
  return bfpy_no_overload("coarsen", args, nargs, kwnames, sigs);
}

static PyObject *mod_refine(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  (void)self;
  static const char *const names[] = {"", "", NULL};
  static const char *const sigs = "refine(d: Dim3, ratio: IntVectKD/int, /)";
  PyObject *a[2];
  if (bfpy_bind(args, nargs, kwnames, names, 2, a, false) != 0 || !bfpy_is(a[0], BFPY_T_DIM3, 0))
    return PyErr_Occurred() ? NULL : bfpy_no_overload("refine", args, nargs, kwnames, sigs);
  bf_intvect p = dim3_point(a[0]), ratio;
  if (dim3_ratio(a[1], &ratio, "refine") < 0 || bfpy_check(bf_intvect_refine(&p, &ratio)) < 0) return NULL;
  return bfpy_dim3_new(p.v[0], p.v[1], p.v[2]);
}

static PyMethodDef intvect_functions[] = {
    {"coarsen", (PyCFunction)(void (*)(void))mod_coarsen, METH_FASTCALL | METH_KEYWORDS,
     "coarsen(iv: IntVectKD, ratio: IntVectKD/int, /) -> IntVectKD; coarsen(d: Dim3, ratio: IntVectKD, /) -> Dim3.\n"
     "Floor division by the ratio (each component > 0), correct for negative indices."},
    {"refine", (PyCFunction)(void (*)(void))mod_refine, METH_FASTCALL | METH_KEYWORDS,
     "refine(d: Dim3, ratio: IntVectKD, /) -> Dim3: multiply by the ratio (each component > 0; missing = 1)."},
    {NULL, NULL, 0, NULL},
};

/* ---- family init -------------------------------------------------------------- */
int bfpy_init_intvect(PyObject *m, int dim) {
  if (dim == 1) { /* dimension-independent types and the three IntVect types: made once */
    if (!bfpy_make_type(NULL, 0, BFPY_T_DIM3, "Dim3", &dim3_spec, NULL)) return -1;
    if (!bfpy_make_type(NULL, 0, BFPY_T_XDIM3, "XDim3", &xdim3_spec, NULL)) return -1;
    if (make_intvect_types() < 0) return -1;
  }
  if (PyModule_AddObjectRef(m, "Dim3", (PyObject *)bfpy_types[0][BFPY_T_DIM3]) < 0) return -1;
  if (PyModule_AddObjectRef(m, "XDim3", (PyObject *)bfpy_types[0][BFPY_T_XDIM3]) < 0) return -1;
  for (int d = 1; d <= BF_SPACEDIM_MAX; ++d)
    if (PyModule_AddObjectRef(m, bfpy_type_name(BFPY_T_INTVECT, d), (PyObject *)bfpy_types[d][BFPY_T_INTVECT]) < 0)
      return -1;
  if (PyModule_AddObjectRef(m, "IntVect", (PyObject *)bfpy_types[dim][BFPY_T_INTVECT]) < 0) return -1;
  return PyModule_AddFunctions(m, intvect_functions);
}
