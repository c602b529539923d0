/* boxfab._core: RealBox (family geometry) and the module function AlmostEqual. */
#include "index/geometry.h"

#define RB(o) (&((bfpy_realbox_object *)(o))->rb)

/* A sequence (list, tuple, ndarray...) but not a str or one of our objects. */
static bool is_plain_sequence(PyObject *o) {
  return PySequence_Check(o) && !PyUnicode_Check(o) && !PyBytes_Check(o) && !bfpy_is(o, BFPY_T_REALVECT, -1) &&
         !bfpy_is(o, BFPY_T_INTVECT, -1) && !bfpy_is(o, BFPY_T_REALBOX, -1);
}

/* ---- construction -------------------------------------------------------------- */
static const char *const rb_component_names[4][7] = {
    {NULL},
    {"x_lo", "x_hi", NULL},
    {"x_lo", "y_lo", "x_hi", "y_hi", NULL},
    {"x_lo", "y_lo", "z_lo", "x_hi", "y_hi", "z_hi", NULL},
};
static const char *const rb_sigs[4] = {
    "",
    "(), (x_lo, x_hi), (a_lo: float[1], a_hi: float[1]), (bx: Box, dx: float[1], base: float[1])",
    "(), (x_lo, y_lo, x_hi, y_hi), (a_lo: float[2], a_hi: float[2]), (bx: Box, dx: float[2], base: float[2])",
    ("(), (x_lo, y_lo, z_lo, x_hi, y_hi, z_hi), (a_lo: float[3], a_hi: float[3]), "
     "(bx: Box, dx: float[3], base: float[3])"),
};

static int rb_init_fast(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  int dim = bfpy_type_dim(Py_TYPE(self), BFPY_T_REALBOX);
  bf_realbox rb;
  PyObject *a[6];
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  if (nargs + nkw == 0) return bfpy_check(bf_realbox_default(dim, RB(self)));
  /* (x_lo, ..., x_hi, ...) */
  if (bfpy_bind(args, nargs, kwnames, rb_component_names[dim], 2 * dim, a, false) == 0) {
    int scalars = 1;
    for (int i = 0; i < 2 * dim && scalars > 0; ++i) scalars = bfpy_geom_is_real_scalar(a[i]);
    if (scalars < 0) return -1;
    if (scalars) {
      double lo[BF_SPACEDIM_MAX], hi[BF_SPACEDIM_MAX];
      for (int d = 0; d < dim; ++d)
        if (bfpy_to_double(a[d], &lo[d], rb_component_names[dim][d]) < 0 ||
            bfpy_to_double(a[dim + d], &hi[d], rb_component_names[dim][dim + d]) < 0)
          return -1;
      if (bfpy_check(bf_realbox_define(dim, lo, hi, &rb)) < 0) return -1;
      *RB(self) = rb;
      return 0;
    }
  }
  /* (a_lo, a_hi) */
  static const char *const lohi[] = {"a_lo", "a_hi", NULL};
  if (bfpy_bind(args, nargs, kwnames, lohi, 2, a, false) == 0 && is_plain_sequence(a[0]) &&
      is_plain_sequence(a[1])) {
    double lo[BF_SPACEDIM_MAX], hi[BF_SPACEDIM_MAX];
    if (bfpy_to_double_array(a[0], dim, lo, "RealBox a_lo") < 0 || bfpy_to_double_array(a[1], dim, hi, "RealBox a_hi") < 0)
      return -1;
    if (bfpy_check(bf_realbox_define(dim, lo, hi, &rb)) < 0) return -1;
    *RB(self) = rb;
    return 0;
  }
  /* (bx, dx, base) */
  static const char *const boxdx[] = {"bx", "dx", "base", NULL};
  if (bfpy_bind(args, nargs, kwnames, boxdx, 3, a, false) == 0 && bfpy_is(a[0], BFPY_T_BOX, -1)) {
    bf_box bx;
    double dx[BF_SPACEDIM_MAX], base[BF_SPACEDIM_MAX];
    if (bfpy_as_box(a[0], dim, &bx, "RealBox bx") < 0 || bfpy_to_double_array(a[1], dim, dx, "RealBox dx") < 0 ||
        bfpy_to_double_array(a[2], dim, base, "RealBox base") < 0)
      return -1;
    if (bfpy_check(bf_realbox_from_box(&bx, dx, base, &rb)) < 0) return -1;
    *RB(self) = rb;
    return 0;
  }
  bfpy_no_overload("RealBox", args, nargs, kwnames, rb_sigs[dim]);
  return -1;
}

static int rb_init(PyObject *self, PyObject *args, PyObject *kwds) {
  return bfpy_init_vectorcall(self, args, kwds, rb_init_fast);
}

static PyObject *rb_repr(PyObject *self) {
  const bf_realbox *rb = RB(self);
  PyObject *lo = bfpy_geom_reals_repr(rb->lo, rb->dim), *hi = lo ? bfpy_geom_reals_repr(rb->hi, rb->dim) : NULL;
  PyObject *r = hi ? PyUnicode_FromFormat("RealBox(%U, %U)", lo, hi) : NULL;
  Py_XDECREF(lo), Py_XDECREF(hi);
  return r;
}

static PyObject *rb___str(PyObject *self, PyObject *noargs) {
  (void)noargs;
  return rb_repr(self);
}

/* ---- accessors ---------------------------------------------------------------------- */
static PyObject *rb_get_xlo(PyObject *self, void *c) { (void)c; return bfpy_double_list(RB(self)->lo, RB(self)->dim); }
static PyObject *rb_get_xhi(PyObject *self, void *c) { (void)c; return bfpy_double_list(RB(self)->hi, RB(self)->dim); }

static PyObject *rb_corner(PyObject *self, PyObject *const *args, Py_ssize_t nargs, bool hi) {
  const bf_realbox *rb = RB(self);
  const double *v = hi ? rb->hi : rb->lo;
  if (nargs == 0) return bfpy_double_list(v, rb->dim);
  if (nargs > 1) {
    PyErr_Format(PyExc_TypeError, "%s() takes 0 or 1 positional arguments (dir: int, /) (%zd given)", hi ? "hi" : "lo",
                 nargs);
    return NULL;
  }
  int d;
  if (bfpy_geom_dir(args[0], rb->dim, &d, hi ? "hi(dir)" : "lo(dir)") < 0) return NULL;
  return PyFloat_FromDouble(v[d]);
}
static PyObject *rb_lo(PyObject *self, PyObject *const *args, Py_ssize_t nargs) { return rb_corner(self, args, nargs, false); }
static PyObject *rb_hi(PyObject *self, PyObject *const *args, Py_ssize_t nargs) { return rb_corner(self, args, nargs, true); }

static PyObject *rb_set(PyObject *self, PyObject *const *args, Py_ssize_t nargs, bool hi) {
  bf_realbox *rb = RB(self);
  double *v = hi ? rb->hi : rb->lo;
  const char *name = hi ? "setHi" : "setLo";
  if (nargs == 1) {
    double w[BF_SPACEDIM_MAX];
    if (bfpy_to_double_array(args[0], rb->dim, w, name) < 0) return NULL;
    for (int d = 0; d < rb->dim; ++d) v[d] = w[d];
    Py_RETURN_NONE;
  }
  if (nargs == 2) {
    int d;
    double x;
    if (bfpy_geom_dir(args[0], rb->dim, &d, name) < 0 || bfpy_to_double(args[1], &x, name) < 0) return NULL;
    v[d] = x;
    Py_RETURN_NONE;
  }
  PyErr_Format(PyExc_TypeError, "%s() takes (values: list[float], /) or (dir: int, value: float, /) (%zd given)", name,
               nargs);
  return NULL;
}
static PyObject *rb_set_lo(PyObject *self, PyObject *const *args, Py_ssize_t nargs) { return rb_set(self, args, nargs, false); }
static PyObject *rb_set_hi(PyObject *self, PyObject *const *args, Py_ssize_t nargs) { return rb_set(self, args, nargs, true); }

static PyObject *rb_length(PyObject *self, PyObject *o) {
  int d;
  if (bfpy_geom_dir(o, RB(self)->dim, &d, "length(dir)") < 0) return NULL;
  return PyFloat_FromDouble(bf_realbox_length(RB(self), d));
}

static PyObject *rb_ok(PyObject *self, PyObject *noargs) { (void)noargs; return PyBool_FromLong(bf_realbox_ok(RB(self))); }
static PyObject *rb_volume(PyObject *self, PyObject *noargs) { (void)noargs; return PyFloat_FromDouble(bf_realbox_volume(RB(self))); }

/* contains(rb: XDim3/RealVect/RealBox/list[float], eps: float = 0.0) */
static PyObject *rb_contains(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"rb", "eps", NULL};
  PyObject *a[2];
  if (bfpy_bind(args, nargs, kwnames, names, 1, a, true) < 0) return NULL;
  const bf_realbox *rb = RB(self);
  double eps = 0.0, p[BF_SPACEDIM_MAX];
  if (a[1] && bfpy_to_double(a[1], &eps, "contains eps") < 0) return NULL;
  PyObject *o = a[0];
  if (bfpy_is(o, BFPY_T_REALBOX, -1)) {
    bf_realbox inner;
    if (bfpy_as_realbox(o, rb->dim, &inner, "contains(rb)") < 0) return NULL;
    return PyBool_FromLong(bf_realbox_contains_box(rb, &inner, eps));
  }
  if (bfpy_is(o, BFPY_T_XDIM3, 0)) {
    bfpy_xdim3_object *x = (bfpy_xdim3_object *)o;
    double xyz[3] = {x->x, x->y, x->z};
    return PyBool_FromLong(bf_realbox_contains_point(rb, xyz, eps));
  }
  if (bfpy_is(o, BFPY_T_REALVECT, -1)) {
    if (bfpy_as_realvect(o, rb->dim, p, "contains(rb)") < 0) return NULL;
    return PyBool_FromLong(bf_realbox_contains_point(rb, p, eps));
  }
  if (is_plain_sequence(o)) {
    if (bfpy_to_double_array(o, rb->dim, p, "contains(rb)") < 0) return NULL;
    return PyBool_FromLong(bf_realbox_contains_point(rb, p, eps));
  }
  return bfpy_no_overload("contains", args, nargs, kwnames,
                          "(rb: XDim3, eps=0.0), (rb: RealVect, eps=0.0), (rb: RealBox, eps=0.0), "
                          "(rb: list[float], eps=0.0)");
}

static PyObject *rb_intersects(PyObject *self, PyObject *o) {
  bf_realbox other;
  if (bfpy_as_realbox(o, RB(self)->dim, &other, "intersects(other)") < 0) return NULL;
  return PyBool_FromLong(bf_realbox_intersects(RB(self), &other));
}

static PyGetSetDef rb_getset[] = {
    {"xlo", rb_get_xlo, NULL, "Lower corner (list of N floats).", NULL},
    {"xhi", rb_get_xhi, NULL, "Upper corner (list of N floats).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef rb_methods[] = {
    {"lo", (PyCFunction)(void (*)(void))rb_lo, METH_FASTCALL, "lo() -> float[N] / lo(dir, /) -> float"},
    {"hi", (PyCFunction)(void (*)(void))rb_hi, METH_FASTCALL, "hi() -> float[N] / hi(dir, /) -> float"},
    {"setLo", (PyCFunction)(void (*)(void))rb_set_lo, METH_FASTCALL, "setLo(values, /) / setLo(dir, value, /)"},
    {"setHi", (PyCFunction)(void (*)(void))rb_set_hi, METH_FASTCALL, "setHi(values, /) / setHi(dir, value, /)"},
    {"length", rb_length, METH_O, "length(dir, /) -> float: hi - lo."},
    {"ok", rb_ok, METH_NOARGS, "ok() -> bool: lo < hi in every direction."},
    {"volume", rb_volume, METH_NOARGS, "volume() -> float: product of the lengths (0 when not ok)."},
    {"contains", BFPY_FASTKW(rb_contains),
     "contains(rb, eps=0.0) -> bool: point (XDim3, RealVect, list) or RealBox strictly inside, widened by eps."},
    {"intersects", rb_intersects, METH_O, "intersects(other, /) -> bool: the closed boxes overlap."},
    {"__str", rb___str, METH_NOARGS, "__str() -> str"},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot rb_slots[] = {
    {Py_tp_doc, "RealBox: a box of physical space (lo and hi corners)."},
    {Py_tp_init, rb_init},
    {Py_tp_repr, rb_repr},
    {Py_tp_str, rb_repr},
    {Py_tp_methods, rb_methods},
    {Py_tp_getset, rb_getset},
    {0, NULL},
};

static PyType_Spec rb_spec = {.name = "RealBox",
                              .basicsize = sizeof(bfpy_realbox_object),
                              .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                              .slots = rb_slots};

/* ---- AlmostEqual ------------------------------------------------------------------------ */
static PyObject *mod_almost_equal(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"rb1", "rb2", "eps", NULL};
  PyObject *a[3];
  if (bfpy_bind(args, nargs, kwnames, names, 2, a, true) < 0) return NULL;
  int dim = bfpy_module_dim(module);
  bf_realbox r1, r2;
  double eps = 0.0;
  if (bfpy_as_realbox(a[0], dim, &r1, "AlmostEqual rb1") < 0 || bfpy_as_realbox(a[1], dim, &r2, "AlmostEqual rb2") < 0 ||
      (a[2] && bfpy_to_double(a[2], &eps, "AlmostEqual eps") < 0))
    return NULL;
  return PyBool_FromLong(bf_realbox_almost_equal(&r1, &r2, eps));
}

static PyMethodDef rb_functions[] = {
    {"AlmostEqual", BFPY_FASTKW(mod_almost_equal),
     "AlmostEqual(rb1: RealBox, rb2: RealBox, eps: float = 0.0) -> bool: corners equal within eps."},
    {NULL, NULL, 0, NULL},
};

int bfpy_init_realbox(PyObject *m, int dim) {
  if (!bfpy_make_type(m, dim, BFPY_T_REALBOX, "RealBox", &rb_spec, NULL)) return -1;
  return PyModule_AddFunctions(m, rb_functions);
}
