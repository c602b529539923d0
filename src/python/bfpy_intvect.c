/* boxfab._core: IntVect1D/2D/3D, Dim3, XDim3, module coarsen/refine. */
#include "bfpy.h"

#include <float.h>
#include <structmember.h>

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

static PyMemberDef xdim3_members[] = {
    {"x", T_DOUBLE, offsetof(bfpy_xdim3_object, x), 0, "x component"},
    {"y", T_DOUBLE, offsetof(bfpy_xdim3_object, y), 0, "y component"},
    {"z", T_DOUBLE, offsetof(bfpy_xdim3_object, z), 0, "z component"},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot xdim3_slots[] = {
    {Py_tp_doc, "XDim3(x, y, z): three floats."},
    {Py_tp_init, xdim3_init},
    {Py_tp_repr, xdim3_repr},
    {Py_tp_str, xdim3_repr},
    {Py_tp_richcompare, xdim3_richcompare},
    {Py_tp_hash, PyObject_HashNotImplemented},
    {Py_tp_members, xdim3_members},
    {0, NULL},
};

static PyType_Spec xdim3_spec = {
    .name = "XDim3", .basicsize = sizeof(bfpy_xdim3_object), .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .slots = xdim3_slots};

/* ---- family init -------------------------------------------------------------- */
int bfpy_init_intvect(PyObject *m, int dim) {
  if (dim == 1) { /* dimension-independent types: made once */
    if (!bfpy_make_type(NULL, 0, BFPY_T_DIM3, "Dim3", &dim3_spec, NULL)) return -1;
    if (!bfpy_make_type(NULL, 0, BFPY_T_XDIM3, "XDim3", &xdim3_spec, NULL)) return -1;
  }
  if (PyModule_AddObjectRef(m, "Dim3", (PyObject *)bfpy_types[0][BFPY_T_DIM3]) < 0) return -1;
  if (PyModule_AddObjectRef(m, "XDim3", (PyObject *)bfpy_types[0][BFPY_T_XDIM3]) < 0) return -1;
  return 0;
}
