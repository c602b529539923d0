/* boxfab._core: Periodicity and GeometryData (family geometry). */
#include "index/geometry.h"

/* ---- Periodicity ------------------------------------------------------------------ */
#define PER(o) (&((bfpy_periodicity_object *)(o))->per)

static int per_init(PyObject *self, PyObject *args, PyObject *kwds) {
  int dim = bfpy_type_dim(Py_TYPE(self), BFPY_T_PERIODICITY);
  if (kwds && PyDict_GET_SIZE(kwds)) {
    PyErr_SetString(PyExc_TypeError, "Periodicity() takes positional arguments only: () or (period: IntVect, /)");
    return -1;
  }
  Py_ssize_t n = PyTuple_GET_SIZE(args);
  if (n == 0) return bfpy_check(bf_periodicity_non_periodic(dim, PER(self)));
  if (n > 1) {
    PyErr_Format(PyExc_TypeError, "Periodicity() takes () or (period: IntVect, /) (%zd arguments given)", n);
    return -1;
  }
  bf_intvect iv;
  if (bfpy_as_intvect(PyTuple_GET_ITEM(args, 0), dim, BFPY_IV_SEQUENCE, &iv, "Periodicity period") < 0) return -1;
  return bfpy_check(bf_periodicity_define(dim, iv.v, PER(self)));
}

static PyObject *per_repr(PyObject *self) {
  PyObject *l = bfpy_int_list(PER(self)->period, PER(self)->dim);
  if (!l) return NULL;
  PyObject *r = PyUnicode_FromFormat("Periodicity(%R)", l);
  Py_DECREF(l);
  return r;
}

static PyObject *per_non_periodic(PyObject *cls, PyObject *noargs) {
  (void)noargs;
  bf_periodicity p;
  if (bfpy_check(bf_periodicity_non_periodic(bfpy_type_dim((PyTypeObject *)cls, BFPY_T_PERIODICITY), &p)) < 0)
    return NULL;
  return bfpy_periodicity_new(&p);
}

static PyObject *per_dir_test(PyObject *self, PyObject *o) {
  int d;
  if (bfpy_geom_dir(o, PER(self)->dim, &d, "Periodicity dir") < 0) return NULL;
  return PyBool_FromLong(bf_periodicity_is_periodic(PER(self), d));
}

static PyObject *per_is_periodic(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"dir", NULL};
  PyObject *a[1];
  if (bfpy_bind(args, nargs, kwnames, names, 1, a, true) < 0) return NULL;
  return per_dir_test(self, a[0]);
}

static PyObject *per_richcompare(PyObject *a, PyObject *b, int op) {
  if ((op != Py_EQ && op != Py_NE) || !bfpy_is(b, BFPY_T_PERIODICITY, -1)) Py_RETURN_NOTIMPLEMENTED;
  bf_periodicity q;
  if (bfpy_as_periodicity(b, PER(a)->dim, &q, "Periodicity ==") < 0) return NULL;
  bool eq = bf_periodicity_equal(PER(a), &q);
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static PyObject *per_get_any(PyObject *self, void *c) { (void)c; return PyBool_FromLong(bf_periodicity_is_any_periodic(PER(self))); }
static PyObject *per_get_all(PyObject *self, void *c) { (void)c; return PyBool_FromLong(bf_periodicity_is_all_periodic(PER(self))); }

static PyObject *per_get_domain(PyObject *self, void *c) {
  (void)c;
  bf_box b;
  bf_periodicity_domain(PER(self), &b);
  return bfpy_box_new(&b);
}

static PyObject *per_get_shifts(PyObject *self, void *c) {
  (void)c;
  bf_intvect s[BF_PERIODICITY_MAX_SHIFTS];
  int n;
  bf_periodicity_shifts(PER(self), s, &n);
  PyObject *l = PyList_New(n);
  if (!l) return NULL;
  for (int i = 0; i < n; ++i) {
    PyObject *iv = bfpy_intvect_new(&s[i]);
    if (!iv) {
      Py_DECREF(l);
      return NULL;
    }
    PyList_SET_ITEM(l, i, iv);
  }
  return l;
}

static PyGetSetDef per_getset[] = {
    {"is_any_periodic", per_get_any, NULL, "Periodic in some direction.", NULL},
    {"is_all_periodic", per_get_all, NULL, "Periodic in every direction.", NULL},
    {"domain", per_get_domain, NULL,
     "Cell-centered Box [0, period-1] in periodic directions, [INT_MIN, INT_MAX-1] in the others.", NULL},
    {"shift_IntVect", per_get_shifts, NULL,
     "All periodic shifts as a list of IntVect, the zero shift included (as AMReX's shiftIntVect): "
     "3**(number of periodic directions) vectors, x varying slowest.",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef per_methods[] = {
    {"non_periodic", per_non_periodic, METH_NOARGS | METH_CLASS, "non_periodic() -> Periodicity"},
    {"is_periodic", BFPY_FASTKW(per_is_periodic), "is_periodic(dir) -> bool"},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot per_slots[] = {
    {Py_tp_doc, "Periodicity() / Periodicity(period: IntVect, /): period length per direction (0 = not periodic)."},
    {Py_tp_init, per_init},
    {Py_tp_repr, per_repr},
    {Py_tp_richcompare, per_richcompare},
    {Py_tp_hash, PyObject_HashNotImplemented},
    {Py_tp_methods, per_methods},
    {Py_tp_getset, per_getset},
    {Py_mp_subscript, per_dir_test},
    {0, NULL},
};

static PyType_Spec per_spec = {.name = "Periodicity",
                               .basicsize = sizeof(bfpy_periodicity_object),
                               .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                               .slots = per_slots};

int bfpy_init_periodicity(PyObject *m, int dim) {
  return bfpy_make_type(m, dim, BFPY_T_PERIODICITY, "Periodicity", &per_spec, NULL) ? 0 : -1;
}

/* ---- GeometryData --------------------------------------------------------------------- */
#define GD(o) (&((bfpy_geometrydata_object *)(o))->geom)

static int gd_init(PyObject *self, PyObject *args, PyObject *kwds) {
  if (PyTuple_GET_SIZE(args) || (kwds && PyDict_GET_SIZE(kwds))) {
    PyErr_SetString(PyExc_TypeError, "GeometryData() takes no arguments (use Geometry.data())");
    return -1;
  }
  /* AMReX's value-initialized GeometryData(): coord 0, dx 0, not periodic, empty domain */
  return bfpy_check(bf_geometry_data_default(bfpy_type_dim(Py_TYPE(self), BFPY_T_GEOMETRYDATA), GD(self)));
}

static PyObject *gd_repr(PyObject *self) {
  const bf_geometry *g = GD(self);
  PyObject *dx = bfpy_geom_reals_repr(g->dx, g->dim);
  PyObject *r = dx ? PyUnicode_FromFormat("GeometryData(coord=%d, dx=%U)", g->coord, dx) : NULL;
  Py_XDECREF(dx);
  return r;
}

static PyObject *gd_get_prob_domain(PyObject *self, void *c) { (void)c; return bfpy_realbox_new(&GD(self)->prob_domain); }
static PyObject *gd_get_domain(PyObject *self, void *c) { (void)c; return bfpy_box_new(&GD(self)->domain); }
static PyObject *gd_get_coord(PyObject *self, void *c) { (void)c; return PyLong_FromLong(GD(self)->coord); }
static PyObject *gd_get_dx(PyObject *self, void *c) { (void)c; return bfpy_double_list(GD(self)->dx, GD(self)->dim); }
static PyObject *gd_get_is_periodic(PyObject *self, void *c) { (void)c; return bfpy_int_list(GD(self)->is_periodic, GD(self)->dim); }

/* `()` -> list of the dim values, `(dir, /)` -> one value. */
static PyObject *gd_reals(PyObject *self, PyObject *const *args, Py_ssize_t nargs, const double *v, const char *name) {
  int dim = GD(self)->dim, d;
  if (nargs == 0) return bfpy_double_list(v, dim);
  if (nargs != 1) {
    PyErr_Format(PyExc_TypeError, "%s() takes () or (dir: int, /) (%zd arguments given)", name, nargs);
    return NULL;
  }
  if (bfpy_geom_dir(args[0], dim, &d, name) < 0) return NULL;
  return PyFloat_FromDouble(v[d]);
}
static PyObject *gd_cell_size(PyObject *self, PyObject *const *args, Py_ssize_t nargs) { return gd_reals(self, args, nargs, GD(self)->dx, "CellSize"); }
static PyObject *gd_prob_lo(PyObject *self, PyObject *const *args, Py_ssize_t nargs) { return gd_reals(self, args, nargs, GD(self)->prob_domain.lo, "ProbLo"); }
static PyObject *gd_prob_hi(PyObject *self, PyObject *const *args, Py_ssize_t nargs) { return gd_reals(self, args, nargs, GD(self)->prob_domain.hi, "ProbHi"); }

static PyObject *gd_is_periodic(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  int dim = GD(self)->dim, d;
  if (nargs == 0) return bfpy_int_list(GD(self)->is_periodic, dim);
  if (nargs != 1) {
    PyErr_Format(PyExc_TypeError, "isPeriodic() takes () or (dir: int, /) (%zd arguments given)", nargs);
    return NULL;
  }
  if (bfpy_geom_dir(args[0], dim, &d, "isPeriodic") < 0) return NULL;
  return PyLong_FromLong(GD(self)->is_periodic[d]);
}

static PyObject *gd_domain(PyObject *self, PyObject *noargs) { (void)noargs; return bfpy_box_new(&GD(self)->domain); }
static PyObject *gd_coord(PyObject *self, PyObject *noargs) { (void)noargs; return PyLong_FromLong(GD(self)->coord); }

static PyGetSetDef gd_getset[] = {
    {"prob_domain", gd_get_prob_domain, NULL, "Physical domain (RealBox).", NULL},
    {"domain", gd_get_domain, NULL, "Index domain (Box).", NULL},
    {"coord", gd_get_coord, NULL, "Coordinate system (int).", NULL},
    {"dx", gd_get_dx, NULL, "Cell size (list of N floats).", NULL},
    {"is_periodic", gd_get_is_periodic, NULL, "Periodic flags (list of N ints).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef gd_methods[] = {
    {"CellSize", (PyCFunction)(void (*)(void))gd_cell_size, METH_FASTCALL, "CellSize() -> float[N] / CellSize(dir, /) -> float"},
    {"ProbLo", (PyCFunction)(void (*)(void))gd_prob_lo, METH_FASTCALL, "ProbLo() -> float[N] / ProbLo(dir, /) -> float"},
    {"ProbHi", (PyCFunction)(void (*)(void))gd_prob_hi, METH_FASTCALL, "ProbHi() -> float[N] / ProbHi(dir, /) -> float"},
    {"Domain", gd_domain, METH_NOARGS, "Domain() -> Box"},
    {"isPeriodic", (PyCFunction)(void (*)(void))gd_is_periodic, METH_FASTCALL, "isPeriodic() -> int[N] / isPeriodic(dir, /) -> int"},
    {"Coord", gd_coord, METH_NOARGS, "Coord() -> int"},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot gd_slots[] = {
    {Py_tp_doc, "GeometryData: the plain data of a Geometry (Geometry.data() returns a copy)."},
    {Py_tp_init, gd_init},
    {Py_tp_repr, gd_repr},
    {Py_tp_methods, gd_methods},
    {Py_tp_getset, gd_getset},
    {0, NULL},
};

static PyType_Spec gd_spec = {.name = "GeometryData",
                              .basicsize = sizeof(bfpy_geometrydata_object),
                              .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                              .slots = gd_slots};

int bfpy_init_geometrydata(PyObject *m, int dim) {
  return bfpy_make_type(m, dim, BFPY_T_GEOMETRYDATA, "GeometryData", &gd_spec, NULL) ? 0 : -1;
}
