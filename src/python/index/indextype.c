/* boxfab._core: IndexType (with the nested enum IndexType.CellIndex) and Direction.
 *
 * IndexType is per dimension; `type` bit d set = nodal in direction d (the
 * same bits as bf_box.type).  CellIndex is an enum.IntEnum made once per space
 * module and set as a class attribute, with its members also exported as
 * IndexType.CELL / IndexType.NODE. */
#include "bfpy.h"

#define IT(o) ((bfpy_indextype_object *)(o))

/* IndexType.CellIndex of each dimension and its members [CELL, NODE] (owned). */
static PyObject *cellindex_enum[BF_SPACEDIM_MAX + 1];
static PyObject *cellindex_member[BF_SPACEDIM_MAX + 1][2];

/* A direction (int, negative counts from the end) into [0, dim); IndexError
 * outside, TypeError for a non-int. */
static int it_dir(PyObject *o, int dim, int *out) {
  if (!bfpy_is_intlike(o) || PySequence_Check(o)) {
    PyErr_Format(PyExc_TypeError, "IndexType direction must be an int, not %.100s", Py_TYPE(o)->tp_name);
    return -1;
  }
  Py_ssize_t i = PyNumber_AsSsize_t(o, NULL); /* clamps huge ints: then out of range */
  if (i == -1 && PyErr_Occurred()) return -1;
  Py_ssize_t j;
  if (bfpy_index(i, dim, &j, "IndexType direction") < 0) return -1;
  *out = (int)j;
  return 0;
}

/* A CellIndex (or the int 0 / 1) into 0 / 1. */
static int it_cellindex(PyObject *o, unsigned *out) {
  if (!bfpy_is_intlike(o) || PySequence_Check(o)) {
    PyErr_Format(PyExc_TypeError, "expected an IndexType.CellIndex (CELL or NODE), not %.100s", Py_TYPE(o)->tp_name);
    return -1;
  }
  int v;
  if (bfpy_to_int(o, &v, "IndexType.CellIndex") < 0) return -1;
  if (v != 0 && v != 1) {
    PyErr_Format(PyExc_ValueError, "IndexType.CellIndex must be CELL (0) or NODE (1), got %d", v);
    return -1;
  }
  *out = (unsigned)v;
  return 0;
}

static PyObject *it_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
  (void)args, (void)kwds;
  int dim = bfpy_type_dim(type, BFPY_T_INDEXTYPE);
  if (dim < 1) {
    PyErr_Format(PyExc_TypeError, "%s is not an IndexType type", type->tp_name);
    return NULL;
  }
  PyObject *self = type->tp_alloc(type, 0);
  if (self) IT(self)->dim = dim, IT(self)->type = 0;
  return self;
}

static int it_init(PyObject *self, PyObject *args, PyObject *kwds) {
  int dim = IT(self)->dim;
  if (kwds && PyDict_GET_SIZE(kwds)) {
    PyErr_SetString(PyExc_TypeError, "IndexType() takes positional arguments only");
    return -1;
  }
  Py_ssize_t n = PyTuple_GET_SIZE(args);
  unsigned type = 0;
  if (n == 1 && bfpy_is(PyTuple_GET_ITEM(args, 0), BFPY_T_INDEXTYPE, -1)) {
    if (bfpy_as_indextype(PyTuple_GET_ITEM(args, 0), dim, &type, "IndexType(other)") < 0) return -1;
  } else if (n == dim) {
    for (int d = 0; d < dim; ++d) {
      unsigned t;
      if (it_cellindex(PyTuple_GET_ITEM(args, d), &t) < 0) return -1;
      type |= t << d;
    }
  } else if (n != 0) {
    PyErr_Format(PyExc_TypeError,
                 "IndexType() takes (), (other: IndexType) or %d CellIndex values (one per direction), got %zd "
                 "arguments",
                 dim, n);
    return -1;
  }
  IT(self)->type = type;
  return 0;
}

/* "(C,N,C)": one letter per direction. */
static PyObject *it_str(PyObject *self) {
  char buf[2 * BF_SPACEDIM_MAX + 2];
  int k = 0;
  buf[k++] = '(';
  for (int d = 0; d < IT(self)->dim; ++d) {
    if (d) buf[k++] = ',';
    buf[k++] = ((IT(self)->type >> d) & 1u) ? 'N' : 'C';
  }
  buf[k++] = ')';
  buf[k] = '\0';
  return PyUnicode_FromString(buf);
}

static PyObject *it_repr(PyObject *self) {
  PyObject *s = it_str(self);
  if (!s) return NULL;
  PyObject *r = PyUnicode_FromFormat("IndexType%U", s);
  Py_DECREF(s);
  return r;
}

static PyObject *it_str_method(PyObject *self, PyObject *noargs) {
  (void)noargs;
  return it_str(self);
}

static Py_ssize_t it_len(PyObject *self) { return IT(self)->dim; }

static PyObject *it_subscript(PyObject *self, PyObject *key) {
  int d;
  if (it_dir(key, IT(self)->dim, &d) < 0) return NULL;
  return PyLong_FromLong((IT(self)->type >> d) & 1u);
}

static PyObject *it_item(PyObject *self, Py_ssize_t i) {
  Py_ssize_t j;
  if (bfpy_index(i, IT(self)->dim, &j, "IndexType direction") < 0) return NULL;
  return PyLong_FromLong((IT(self)->type >> j) & 1u);
}

static PyObject *it_richcompare(PyObject *a, PyObject *b, int op) {
  if (!bfpy_is(b, BFPY_T_INDEXTYPE, -1)) Py_RETURN_NOTIMPLEMENTED;
  if (IT(b)->dim != IT(a)->dim) return bfpy_dim_mismatch("IndexType comparison", IT(a)->dim, IT(b)->dim);
  Py_RETURN_RICHCOMPARE(IT(a)->type, IT(b)->type, op);
}

/* ---- methods taking one direction ---- */
static int one_dir(PyObject *self, PyObject *const *args, Py_ssize_t nargs, const char *name, int *d) {
  if (nargs != 1) {
    PyErr_Format(PyExc_TypeError, "IndexType.%s(dir, /) takes 1 argument (%zd given)", name, nargs);
    return -1;
  }
  return it_dir(args[0], IT(self)->dim, d);
}

#define IT_DIR_METHOD(fname, body)                                                                                \
  static PyObject *it_##fname(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {                          \
    int d;                                                                                                        \
    if (one_dir(self, args, nargs, #fname, &d) < 0) return NULL;                                                  \
    body                                                                                                          \
  }

IT_DIR_METHOD(set, IT(self)->type |= 1u << d; Py_RETURN_NONE;)
IT_DIR_METHOD(unset, IT(self)->type &= ~(1u << d); Py_RETURN_NONE;)
IT_DIR_METHOD(flip, IT(self)->type ^= 1u << d; Py_RETURN_NONE;)
IT_DIR_METHOD(test, return PyBool_FromLong((IT(self)->type >> d) & 1u);)

static PyObject *it_setall(PyObject *self, PyObject *noargs) {
  (void)noargs;
  IT(self)->type = bf_indextype_all_nodal(IT(self)->dim);
  Py_RETURN_NONE;
}

static PyObject *it_clear(PyObject *self, PyObject *noargs) {
  (void)noargs;
  IT(self)->type = 0;
  Py_RETURN_NONE;
}

static PyObject *it_any(PyObject *self, PyObject *noargs) {
  (void)noargs;
  return PyBool_FromLong(IT(self)->type != 0);
}

static PyObject *it_ok(PyObject *self, PyObject *noargs) {
  (void)noargs;
  return PyBool_FromLong(bf_indextype_ok(IT(self)->dim, IT(self)->type));
}

/* cell_centered() / cell_centered(dir) and the node_ variant. */
static PyObject *it_centered(PyObject *self, PyObject *const *args, Py_ssize_t nargs, bool node, const char *name) {
  unsigned all = bf_indextype_all_nodal(IT(self)->dim), t = IT(self)->type;
  if (nargs == 0) return PyBool_FromLong(node ? t == all : t == 0);
  int d;
  if (one_dir(self, args, nargs, name, &d) < 0) return NULL;
  bool nodal = (t >> d) & 1u;
  return PyBool_FromLong(node ? nodal : !nodal);
}

static PyObject *it_cell_centered(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  return it_centered(self, args, nargs, false, "cell_centered");
}

static PyObject *it_node_centered(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  return it_centered(self, args, nargs, true, "node_centered");
}

static PyObject *it_set_type(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs != 2) {
    PyErr_Format(PyExc_TypeError, "IndexType.set_type(dir, t, /) takes 2 arguments (%zd given)", nargs);
    return NULL;
  }
  int d;
  unsigned t;
  if (it_dir(args[0], IT(self)->dim, &d) < 0 || it_cellindex(args[1], &t) < 0) return NULL;
  IT(self)->type = (IT(self)->type & ~(1u << d)) | (t << d);
  Py_RETURN_NONE;
}

static PyObject *it_to_intvect(PyObject *self, PyObject *noargs) {
  (void)noargs;
  bf_intvect iv = bf_indextype_to_intvect(IT(self)->dim, IT(self)->type);
  return bfpy_intvect_new(&iv);
}

static PyObject *it_ix_type(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs == 0) return it_to_intvect(self, NULL);
  int d;
  if (one_dir(self, args, nargs, "ix_type", &d) < 0) return NULL;
  return Py_NewRef(cellindex_member[IT(self)->dim][(IT(self)->type >> d) & 1u]);
}

#define FASTCALL(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL
static PyMethodDef it_methods[] = {
    {"set", FASTCALL(it_set), "set(dir, /): make direction dir nodal."},
    {"unset", FASTCALL(it_unset), "unset(dir, /): make direction dir cell-centered."},
    {"flip", FASTCALL(it_flip), "flip(dir, /): toggle direction dir."},
    {"test", FASTCALL(it_test), "test(dir, /) -> bool: direction dir is nodal."},
    {"setall", it_setall, METH_NOARGS, "setall(): every direction nodal."},
    {"clear", it_clear, METH_NOARGS, "clear(): every direction cell-centered."},
    {"any", it_any, METH_NOARGS, "any() -> bool: some direction is nodal."},
    {"ok", it_ok, METH_NOARGS, "ok() -> bool: a valid index type."},
    {"cell_centered", FASTCALL(it_cell_centered),
     "cell_centered() -> bool: all directions cell; cell_centered(dir, /): direction dir is cell."},
    {"node_centered", FASTCALL(it_node_centered),
     "node_centered() -> bool: all directions nodal; node_centered(dir, /): direction dir is nodal."},
    {"set_type", FASTCALL(it_set_type), "set_type(dir, t: CellIndex, /): set direction dir to t."},
    {"ix_type", FASTCALL(it_ix_type),
     "ix_type() -> IntVect of 0 (cell) / 1 (node); ix_type(dir, /) -> CellIndex of direction dir."},
    {"to_IntVect", it_to_intvect, METH_NOARGS, "to_IntVect() -> IntVect: same as ix_type()."},
    {"__str", it_str_method, METH_NOARGS, "__str() -> str: e.g. (C,N,C)."},
    {NULL, NULL, 0, NULL},
};

/* Static constructors: self is the dimension (a Python int bound at type creation). */
static PyObject *it_cell_type(PyObject *dimobj, PyObject *noargs) {
  (void)noargs;
  return bfpy_indextype_new((int)PyLong_AsLong(dimobj), 0);
}

static PyObject *it_node_type(PyObject *dimobj, PyObject *noargs) {
  (void)noargs;
  int dim = (int)PyLong_AsLong(dimobj);
  return bfpy_indextype_new(dim, bf_indextype_all_nodal(dim));
}

static PyMethodDef it_statics[] = {
    {"cell_type", it_cell_type, METH_NOARGS, "cell_type() -> IndexType: every direction CELL."},
    {"node_type", it_node_type, METH_NOARGS, "node_type() -> IndexType: every direction NODE."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot it_slots[] = {
    {Py_tp_doc, "IndexType(), IndexType(other), IndexType(t0, ..., tN-1): cell/node centering per direction."},
    {Py_tp_new, it_new},
    {Py_tp_init, it_init},
    {Py_tp_repr, it_repr},
    {Py_tp_str, it_str},
    {Py_tp_richcompare, it_richcompare},
    {Py_tp_hash, PyObject_HashNotImplemented},
    {Py_tp_methods, it_methods},
    {Py_sq_length, it_len},
    {Py_sq_item, it_item},
    {Py_mp_length, it_len},
    {Py_mp_subscript, it_subscript},
    {0, NULL},
};

static PyType_Spec it_spec = {
    .name = "IndexType", .basicsize = sizeof(bfpy_indextype_object),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, .slots = it_slots};

/* ---- Direction: an opaque overload tag ----------------------------------------- */
static PyObject *dir_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
  if (PyTuple_GET_SIZE(args) || (kwds && PyDict_GET_SIZE(kwds))) {
    PyErr_SetString(PyExc_TypeError, "Direction() takes no arguments");
    return NULL;
  }
  int dim = bfpy_type_dim(type, BFPY_T_DIRECTION);
  if (dim < 1) {
    PyErr_Format(PyExc_TypeError, "%s is not a Direction type", type->tp_name);
    return NULL;
  }
  PyObject *self = type->tp_alloc(type, 0);
  if (self) ((bfpy_direction_object *)self)->dim = dim;
  return self;
}

static PyType_Slot dir_slots[] = {
    {Py_tp_doc, "Direction: opaque tag type (no public members)."},
    {Py_tp_new, dir_new},
    {0, NULL},
};

static PyType_Spec dir_spec = {
    .name = "Direction", .basicsize = sizeof(bfpy_direction_object), .flags = Py_TPFLAGS_DEFAULT, .slots = dir_slots};

/* ---- family init -------------------------------------------------------------- */

static int make_cellindex(PyTypeObject *it, int dim) {
  static const char *const names[] = {"CELL", "NODE"};
  static const int values[] = {0, 1};
  char module[32];
  snprintf(module, sizeof module, "boxfab.space%dd", dim);
  PyObject *e = bfpy_make_intenum(module, "IndexType.CellIndex", names, values, 2);
  if (!e) return -1;
  cellindex_enum[dim] = e;
  for (int k = 0; k < 2; ++k) {
    cellindex_member[dim][k] = PyObject_GetAttrString(e, names[k]);
    if (!cellindex_member[dim][k]) return -1;
    if (PyObject_SetAttrString((PyObject *)it, names[k], cellindex_member[dim][k]) < 0) return -1;
  }
  return PyObject_SetAttrString((PyObject *)it, "CellIndex", e);
}

int bfpy_init_indextype(PyObject *m, int dim) {
  PyTypeObject *it = bfpy_make_type(m, dim, BFPY_T_INDEXTYPE, "IndexType", &it_spec, NULL);
  if (!it || make_cellindex(it, dim) < 0) return -1;
  PyObject *dimobj = PyLong_FromLong(dim);
  int s = dimobj ? bfpy_add_statics(it, it_statics, dimobj) : -1;
  Py_XDECREF(dimobj);
  if (s < 0) return -1;
  if (!bfpy_make_type(m, dim, BFPY_T_DIRECTION, "Direction", &dir_spec, NULL)) return -1;
  return 0;
}
