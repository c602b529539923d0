/* boxfab._core: family "geometry": CoordSys (+ enum CoordSys.CoordType) and
 * Geometry(CoordSys) here; RealVect, RealBox, Periodicity and GeometryData in
 * index/realvect.c, index/realbox.c and index/geometry_data.c. */
#include <math.h>

#include "index/geometry.h"

/* CoordSys.CoordType of each dimension's module (owned references). */
static PyObject *coordtype_enum[BF_SPACEDIM_MAX + 1];

#define CS(o) ((bfpy_coordsys_object *)(o))
#define GO(o) ((bfpy_geometry_object *)(o))

/* The geometry of a Geometry object, its coord taken from the CoordSys part. */
static bf_geometry *geom_of(PyObject *self) {
  GO(self)->geom.coord = GO(self)->base.coord;
  return &GO(self)->geom;
}

static void set_coord(PyObject *self, int coord) {
  CS(self)->coord = coord;
  if (bfpy_is(self, BFPY_T_GEOMETRY, -1)) GO(self)->geom.coord = coord;
}

/* AMReX's CoordSys::Ok(): set by Geometry::define (and Setup, for the default
 * geometry that Geometry() copies); SetCoord does not change it. */
static bool cs_is_ok(PyObject *self) {
  return bfpy_is(self, BFPY_T_GEOMETRY, -1) ? GO(self)->geom.ok : CS(self)->ok;
}

/* ---- CoordSys ----------------------------------------------------------------------- */
static int cs_init(PyObject *self, PyObject *args, PyObject *kwds) {
  int dim = bfpy_type_dim(Py_TYPE(self), BFPY_T_COORDSYS);
  if (kwds && PyDict_GET_SIZE(kwds)) {
    PyErr_SetString(PyExc_TypeError, "CoordSys() takes () or (other: CoordSys, /)");
    return -1;
  }
  Py_ssize_t n = PyTuple_GET_SIZE(args);
  CS(self)->dim = dim;
  if (n == 0) { /* AMReX: c_sys = undef, ok = false */
    CS(self)->coord = BF_COORD_UNDEF;
    CS(self)->ok = false;
    return 0;
  }
  PyObject *o = PyTuple_GET_ITEM(args, 0);
  if (n == 1 && bfpy_is(o, BFPY_T_COORDSYS, -1)) {
    if (CS(o)->dim != dim) {
      bfpy_dim_mismatch("CoordSys(other)", dim, CS(o)->dim);
      return -1;
    }
    CS(self)->coord = CS(o)->coord;
    CS(self)->ok = cs_is_ok(o);
    return 0;
  }
  PyErr_Format(PyExc_TypeError, "CoordSys() takes () or (other: CoordSys, /), got %zd argument(s) (first: %.100s)", n,
               Py_TYPE(o)->tp_name);
  return -1;
}

static const char *coord_name(int c) {
  switch (c) {
  case BF_COORD_CARTESIAN: return "cartesian";
  case BF_COORD_RZ: return "RZ";
  case BF_COORD_SPHERICAL: return "SPHERICAL";
  default: return "undef";
  }
}

static PyObject *cs_repr(PyObject *self) { return PyUnicode_FromFormat("CoordSys(%s)", coord_name(CS(self)->coord)); }

static PyObject *cs_coord(PyObject *self, PyObject *noargs) {
  (void)noargs;
  int dim = CS(self)->dim >= 1 && CS(self)->dim <= 3 ? CS(self)->dim : 3;
  return PyObject_CallFunction(coordtype_enum[dim], "i", CS(self)->coord);
}

static PyObject *cs_coord_int(PyObject *self, PyObject *noargs) { (void)noargs; return PyLong_FromLong(CS(self)->coord); }

static int to_coord(PyObject *o, int *c, const char *what) {
  if (bfpy_to_int(o, c, what) < 0) return -1;
  if (*c < BF_COORD_UNDEF || *c > BF_COORD_SPHERICAL) {
    PyErr_Format(PyExc_ValueError, "%s must be a CoordType (-1 undef, 0 cartesian, 1 RZ, 2 SPHERICAL), got %d", what, *c);
    return -1;
  }
  return 0;
}

static PyObject *cs_set_coord(PyObject *self, PyObject *o) {
  int c;
  if (to_coord(o, &c, "SetCoord(c)") < 0) return NULL;
  set_coord(self, c);
  Py_RETURN_NONE;
}

static PyObject *cs_is(PyObject *self, int c) { return PyBool_FromLong(CS(self)->coord == c); }
static PyObject *cs_is_cartesian(PyObject *self, PyObject *noargs) { (void)noargs; return cs_is(self, BF_COORD_CARTESIAN); }
static PyObject *cs_is_rz(PyObject *self, PyObject *noargs) { (void)noargs; return cs_is(self, BF_COORD_RZ); }
static PyObject *cs_is_spherical(PyObject *self, PyObject *noargs) { (void)noargs; return cs_is(self, BF_COORD_SPHERICAL); }
static PyObject *cs_ok(PyObject *self, PyObject *noargs) { (void)noargs; return PyBool_FromLong(cs_is_ok(self)); }

static PyMethodDef cs_methods[] = {
    {"Coord", cs_coord, METH_NOARGS, "Coord() -> CoordType"},
    {"CoordInt", cs_coord_int, METH_NOARGS, "CoordInt() -> int"},
    {"SetCoord", cs_set_coord, METH_O, "SetCoord(c: CoordType, /)"},
    {"IsCartesian", cs_is_cartesian, METH_NOARGS, "IsCartesian() -> bool"},
    {"IsRZ", cs_is_rz, METH_NOARGS, "IsRZ() -> bool"},
    {"IsSPHERICAL", cs_is_spherical, METH_NOARGS, "IsSPHERICAL() -> bool"},
    {"ok", cs_ok, METH_NOARGS,
     "ok() -> bool: defined (AMReX's Ok()): True for a Geometry after define or a Geometry() copied from a "
     "default set by a define; never for a bare CoordSys (SetCoord does not change it)."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot cs_slots[] = {
    {Py_tp_doc, "CoordSys() / CoordSys(other, /): a coordinate system (undef, cartesian, RZ, SPHERICAL)."},
    {Py_tp_init, cs_init},
    {Py_tp_repr, cs_repr},
    {Py_tp_methods, cs_methods},
    {0, NULL},
};

static PyType_Spec cs_spec = {.name = "CoordSys",
                              .basicsize = sizeof(bfpy_coordsys_object),
                              .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                              .slots = cs_slots};

/* ---- Geometry ---------------------------------------------------------------------------- */
static const char *const geom_define_names[] = {"dom", "rb", "coord", "is_per", NULL};

static int geom_define_args(PyObject *self, PyObject *const *a) {
  int dim = CS(self)->dim, coord, per[BF_SPACEDIM_MAX];
  bf_box dom;
  bf_realbox rb;
  bf_geometry g;
  if (bfpy_as_box(a[0], dim, &dom, "Geometry dom") < 0 || bfpy_as_realbox(a[1], dim, &rb, "Geometry rb") < 0 ||
      to_coord(a[2], &coord, "Geometry coord") < 0 || bfpy_to_int_array(a[3], dim, per, "Geometry is_per") < 0)
    return -1;
  if (bfpy_check(bf_geometry_define(&dom, &rb, coord, per, &g)) < 0) return -1;
  GO(self)->geom = g;
  CS(self)->coord = g.coord;
  return 0;
}

static int geom_init_fast(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  int dim = bfpy_type_dim(Py_TYPE(self), BFPY_T_GEOMETRY);
  CS(self)->dim = dim;
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  if (nargs + nkw == 0) { /* AMReX: a copy of the runtime's default geometry */
    bf_geometry g;
    if (bfpy_check(bf_geometry_default(dim, &g)) < 0) return -1;
    GO(self)->geom = g;
    CS(self)->coord = g.coord;
    return 0;
  }
  PyObject *a[4];
  if (bfpy_bind(args, nargs, kwnames, geom_define_names, 4, a, false) != 0) {
    bfpy_no_overload("Geometry", args, nargs, kwnames, "(), (dom: Box, rb: RealBox, coord: int, is_per: int[N])");
    return -1;
  }
  return geom_define_args(self, a);
}

static int geom_init(PyObject *self, PyObject *args, PyObject *kwds) {
  return bfpy_init_vectorcall(self, args, kwds, geom_init_fast);
}

static PyObject *geom_define(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  PyObject *a[4];
  if (bfpy_bind(args, nargs, kwnames, geom_define_names, 4, a, true) < 0) return NULL;
  if (geom_define_args(self, a) < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject *box_text(const bf_box *b) {
  char buf[BFPY_BOX_TEXT_SIZE];
  bfpy_box_text(b, buf, sizeof buf);
  return PyUnicode_FromString(buf);
}

static PyObject *geom_repr(PyObject *self) {
  const bf_geometry *g = geom_of(self);
  PyObject *dom = box_text(&g->domain), *lo = bfpy_geom_reals_repr(g->prob_domain.lo, g->dim),
           *hi = bfpy_geom_reals_repr(g->prob_domain.hi, g->dim), *per = bfpy_int_list(g->is_periodic, g->dim);
  PyObject *r = NULL;
  if (dom && lo && hi && per)
    r = PyUnicode_FromFormat("Geometry(domain=%U, prob_domain=RealBox(%U, %U), coord=%s, is_periodic=%R)", dom, lo, hi,
                             coord_name(g->coord), per);
  Py_XDECREF(dom), Py_XDECREF(lo), Py_XDECREF(hi), Py_XDECREF(per);
  return r;
}

static PyObject *geom_data(PyObject *self, PyObject *noargs) { (void)noargs; return bfpy_geometrydata_new(geom_of(self)); }

static PyObject *geom_get_domain(PyObject *self, void *c) { (void)c; return bfpy_box_new(&geom_of(self)->domain); }
static int geom_set_domain(PyObject *self, PyObject *v, void *c) {
  (void)c;
  bf_box b;
  if (!v) {
    PyErr_SetString(PyExc_AttributeError, "cannot delete Geometry.domain");
    return -1;
  }
  if (bfpy_as_box(v, CS(self)->dim, &b, "Geometry.domain") < 0) return -1;
  return bfpy_check(bf_geometry_set_domain(geom_of(self), &b));
}

static PyObject *geom_get_prob_domain(PyObject *self, void *c) { (void)c; return bfpy_realbox_new(&geom_of(self)->prob_domain); }
static int geom_set_prob_domain(PyObject *self, PyObject *v, void *c) {
  (void)c;
  bf_realbox rb;
  if (!v) {
    PyErr_SetString(PyExc_AttributeError, "cannot delete Geometry.prob_domain");
    return -1;
  }
  if (bfpy_as_realbox(v, CS(self)->dim, &rb, "Geometry.prob_domain") < 0) return -1;
  return bfpy_check(bf_geometry_set_prob_domain(geom_of(self), &rb));
}

/* Optional `dir` argument (keyword "dir"): returns 1 when absent, 0 with *d set, -1 on error. */
static int opt_dir(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, int *d, const char *what) {
  static const char *const names[] = {"dir", NULL};
  PyObject *a[1];
  if (bfpy_bind(args, nargs, kwnames, names, 0, a, true) < 0) return -1;
  if (!a[0]) return 1;
  return bfpy_geom_dir(a[0], CS(self)->dim, d, what) < 0 ? -1 : 0;
}

static PyObject *geom_prob_corner(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, bool hi) {
  const bf_geometry *g = geom_of(self);
  const double *v = hi ? g->prob_domain.hi : g->prob_domain.lo;
  int d, st = opt_dir(self, args, nargs, kwnames, &d, hi ? "ProbHi(dir)" : "ProbLo(dir)");
  if (st < 0) return NULL;
  return st ? bfpy_double_list(v, g->dim) : PyFloat_FromDouble(v[d]);
}
static PyObject *geom_prob_lo(PyObject *s, PyObject *const *a, Py_ssize_t n, PyObject *k) { return geom_prob_corner(s, a, n, k, false); }
static PyObject *geom_prob_hi(PyObject *s, PyObject *const *a, Py_ssize_t n, PyObject *k) { return geom_prob_corner(s, a, n, k, true); }

static PyObject *geom_prob_length(PyObject *self, PyObject *o) {
  int d;
  if (bfpy_geom_dir(o, CS(self)->dim, &d, "ProbLength(dir)") < 0) return NULL;
  return PyFloat_FromDouble(bf_realbox_length(&geom_of(self)->prob_domain, d));
}

static PyObject *geom_prob_size(PyObject *self, PyObject *noargs) { (void)noargs; return PyFloat_FromDouble(bf_geometry_prob_size(geom_of(self))); }

static PyObject *geom_is_periodic(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  const bf_geometry *g = geom_of(self);
  int d;
  if (nargs == 0) return bfpy_int_list(g->is_periodic, g->dim);
  if (nargs != 1) {
    PyErr_Format(PyExc_TypeError, "isPeriodic() takes () or (dir: int, /) (%zd arguments given)", nargs);
    return NULL;
  }
  if (bfpy_geom_dir(args[0], g->dim, &d, "isPeriodic(dir)") < 0) return NULL;
  return PyBool_FromLong(g->is_periodic[d]);
}

static PyObject *geom_any_per(PyObject *self, PyObject *noargs) { (void)noargs; return PyBool_FromLong(bf_geometry_is_any_periodic(geom_of(self))); }
static PyObject *geom_all_per(PyObject *self, PyObject *noargs) { (void)noargs; return PyBool_FromLong(bf_geometry_is_all_periodic(geom_of(self))); }

static PyObject *geom_period(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"dir", NULL};
  PyObject *a[1];
  int d, p;
  if (bfpy_bind(args, nargs, kwnames, names, 1, a, true) < 0 || bfpy_geom_dir(a[0], CS(self)->dim, &d, "period(dir)") < 0)
    return NULL;
  if (bfpy_check(bf_geometry_period(geom_of(self), d, &p)) < 0) return NULL;
  return PyLong_FromLong(p);
}

static PyObject *geom_periodicity(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"b", NULL};
  PyObject *a[1];
  if (bfpy_bind(args, nargs, kwnames, names, 0, a, true) < 0) return NULL;
  bf_box b;
  if (a[0] && bfpy_as_box(a[0], CS(self)->dim, &b, "periodicity(b)") < 0) return NULL;
  bf_periodicity p;
  if (bfpy_check(bf_geometry_periodicity(geom_of(self), a[0] ? &b : NULL, &p)) < 0) return NULL;
  return bfpy_periodicity_new(&p);
}

static PyObject *geom_set_periodicity(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"period", NULL};
  PyObject *a[1];
  int per[BF_SPACEDIM_MAX], old[BF_SPACEDIM_MAX];
  if (bfpy_bind(args, nargs, kwnames, names, 1, a, true) < 0 ||
      bfpy_to_int_array(a[0], CS(self)->dim, per, "setPeriodicity(period)") < 0)
    return NULL;
  bf_geometry_set_periodicity(geom_of(self), per, old);
  return bfpy_int_list(old, CS(self)->dim);
}

static PyObject *geom_grow(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, bool periodic) {
  static const char *const names[] = {"ngrow", NULL};
  PyObject *a[1];
  bf_intvect n;
  if (bfpy_bind(args, nargs, kwnames, names, 1, a, true) < 0 ||
      bfpy_as_intvect(a[0], CS(self)->dim, BFPY_IV_SCALAR | BFPY_IV_SEQUENCE, &n, "ngrow") < 0)
    return NULL;
  bf_box b;
  if (bfpy_check(bf_geometry_grow_domain(geom_of(self), n.v, periodic, &b)) < 0) return NULL;
  return bfpy_box_new(&b);
}
static PyObject *geom_grow_nonper(PyObject *s, PyObject *const *a, Py_ssize_t n, PyObject *k) { return geom_grow(s, a, n, k, false); }
static PyObject *geom_grow_per(PyObject *s, PyObject *const *a, Py_ssize_t n, PyObject *k) { return geom_grow(s, a, n, k, true); }

static PyObject *geom_ratio_op(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, bool refine) {
  static const char *const names[] = {"rr", NULL};
  PyObject *a[1];
  bf_intvect r;
  if (bfpy_bind(args, nargs, kwnames, names, 1, a, true) < 0 ||
      bfpy_as_intvect(a[0], CS(self)->dim, BFPY_IV_SCALAR | BFPY_IV_SEQUENCE, &r, "rr") < 0)
    return NULL;
  bf_geometry g = *geom_of(self);
  if (bfpy_check(refine ? bf_geometry_refine(&g, r.v) : bf_geometry_coarsen(&g, r.v)) < 0) return NULL;
  GO(self)->geom = g;
  Py_RETURN_NONE;
}
static PyObject *geom_coarsen(PyObject *s, PyObject *const *a, Py_ssize_t n, PyObject *k) { return geom_ratio_op(s, a, n, k, false); }
static PyObject *geom_refine(PyObject *s, PyObject *const *a, Py_ssize_t n, PyObject *k) { return geom_ratio_op(s, a, n, k, true); }

static const char *const xyz_names[4][4] = {{NULL}, {"x", NULL}, {"x", "y", NULL}, {"x", "y", "z", NULL}};

static PyObject *geom_roundoff(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, bool inside) {
  int dim = CS(self)->dim;
  PyObject *a[3];
  double x[BF_SPACEDIM_MAX];
  if (bfpy_bind(args, nargs, kwnames, xyz_names[dim], dim, a, true) < 0) return NULL;
  for (int d = 0; d < dim; ++d) {
    if (bfpy_to_double(a[d], &x[d], xyz_names[dim][d]) < 0) return NULL;
    if (isnan(x[d])) { /* AMReX answers "inside" for NaN (no comparison fails) */
      PyErr_Format(PyExc_ValueError, "%s: position %s is NaN", inside ? "insideRoundOffDomain" : "outsideRoundOffDomain",
                   xyz_names[dim][d]);
      return NULL;
    }
  }
  const bf_geometry *g = geom_of(self);
  return PyBool_FromLong(inside ? bf_geometry_inside_roundoff_domain(g, x) : bf_geometry_outside_roundoff_domain(g, x));
}
static PyObject *geom_inside(PyObject *s, PyObject *const *a, Py_ssize_t n, PyObject *k) { return geom_roundoff(s, a, n, k, true); }
static PyObject *geom_outside(PyObject *s, PyObject *const *a, Py_ssize_t n, PyObject *k) { return geom_roundoff(s, a, n, k, false); }

/* ---- AMReX members beyond pyAMReX's bindings (CoordSys / Geometry C++ API) ----------- */
static int need_ok(PyObject *self, const char *what) {
  if (geom_of(self)->ok) return 0;
  PyErr_Format(PyExc_RuntimeError, "%s: the Geometry is not defined (define it first; AMReX asserts ok() here)", what);
  return -1;
}

/* CellSize() / CellSize(dir) and InvCellSize() / InvCellSize(dir). */
static PyObject *geom_cell_size_of(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                                   bool inv) {
  const char *what = inv ? "InvCellSize" : "CellSize";
  const bf_geometry *g = geom_of(self);
  int d, st = opt_dir(self, args, nargs, kwnames, &d, what);
  if (st < 0 || need_ok(self, what) < 0) return NULL;
  const double *v = inv ? g->inv_dx : g->dx;
  return st ? bfpy_double_list(v, g->dim) : PyFloat_FromDouble(v[d]);
}
static PyObject *geom_cell_size(PyObject *s, PyObject *const *a, Py_ssize_t n, PyObject *k) { return geom_cell_size_of(s, a, n, k, false); }
static PyObject *geom_inv_cell_size(PyObject *s, PyObject *const *a, Py_ssize_t n, PyObject *k) { return geom_cell_size_of(s, a, n, k, true); }

typedef int (*position_fn)(const bf_geometry *, int, int, double *);

/* (point: int, dir: int) -> float, or (point: IntVect[, dir]) as AMReX's overloads. */
static PyObject *geom_position(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                               position_fn fn, const char *what, bool vector_form) {
  static const char *const names[] = {"point", "dir", NULL};
  PyObject *a[2];
  if (bfpy_bind(args, nargs, kwnames, names, 1, a, true) < 0) return NULL;
  const bf_geometry *g = geom_of(self);
  int d, p, kind = bfpy_arg_kind(a[0], false);
  if (kind < 0) return NULL;
  if (kind == BFPY_ARG_INTVECT || kind == BFPY_ARG_SEQUENCE) {
    bf_intvect iv;
    if (bfpy_as_intvect(a[0], g->dim, BFPY_IV_SEQUENCE, &iv, what) < 0) return NULL;
    if (!a[1]) {
      if (!vector_form) {
        PyErr_Format(PyExc_TypeError, "%s(point: IntVect, dir: int) needs dir", what);
        return NULL;
      }
      double x[BF_SPACEDIM_MAX];
      for (int k = 0; k < g->dim; ++k)
        if (bfpy_check(fn(g, k, iv.v[k], &x[k])) < 0) return NULL;
      return bfpy_double_list(x, g->dim);
    }
    if (bfpy_geom_dir(a[1], g->dim, &d, what) < 0) return NULL;
    p = iv.v[d];
  } else {
    if (!a[1]) {
      PyErr_Format(PyExc_TypeError, "%s() takes (point: int, dir: int)%s", what,
                   vector_form ? " or (point: IntVect)" : " or (point: IntVect, dir: int)");
      return NULL;
    }
    if (bfpy_to_int(a[0], &p, what) < 0 || bfpy_geom_dir(a[1], g->dim, &d, what) < 0) return NULL;
  }
  double x;
  if (bfpy_check(fn(g, d, p, &x)) < 0) return NULL;
  return PyFloat_FromDouble(x);
}
static PyObject *geom_cell_center(PyObject *s, PyObject *const *a, Py_ssize_t n, PyObject *k) {
  return geom_position(s, a, n, k, bf_geometry_cell_center, "CellCenter", true);
}
static PyObject *geom_lo_edge(PyObject *s, PyObject *const *a, Py_ssize_t n, PyObject *k) {
  return geom_position(s, a, n, k, bf_geometry_lo_edge, "LoEdge", false);
}
static PyObject *geom_hi_edge(PyObject *s, PyObject *const *a, Py_ssize_t n, PyObject *k) {
  return geom_position(s, a, n, k, bf_geometry_hi_edge, "HiEdge", false);
}

/* ProbDomain() -> RealBox / ProbDomain(rb) sets it; Domain() -> Box / Domain(bx) sets it (C++ overloads). */
static PyObject *geom_prob_domain_m(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs == 0) return geom_get_prob_domain(self, NULL);
  if (nargs != 1) {
    PyErr_Format(PyExc_TypeError, "ProbDomain() takes () or (rb: RealBox, /) (%zd arguments given)", nargs);
    return NULL;
  }
  if (geom_set_prob_domain(self, args[0], NULL) < 0) return NULL;
  Py_RETURN_NONE;
}
static PyObject *geom_domain_m(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs == 0) return geom_get_domain(self, NULL);
  if (nargs != 1) {
    PyErr_Format(PyExc_TypeError, "Domain() takes () or (bx: Box, /) (%zd arguments given)", nargs);
    return NULL;
  }
  if (geom_set_domain(self, args[0], NULL) < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject *geom_roundoff_lo(PyObject *self, PyObject *noargs) {
  (void)noargs;
  return bfpy_double_list(geom_of(self)->roundoff_lo, CS(self)->dim);
}
static PyObject *geom_roundoff_hi(PyObject *self, PyObject *noargs) {
  (void)noargs;
  return bfpy_double_list(geom_of(self)->roundoff_hi, CS(self)->dim);
}
static PyObject *geom_compute_roundoff(PyObject *self, PyObject *noargs) {
  (void)noargs;
  if (bfpy_check(bf_geometry_compute_roundoff_domain(geom_of(self))) < 0) return NULL;
  Py_RETURN_NONE;
}

/* Class-wide defaults: callable on the class or an instance. */
static PyObject *geom_reset_prob_domain(PyObject *cls, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"rb", NULL};
  PyObject *a[1];
  bf_realbox rb;
  int dim = bfpy_type_dim((PyTypeObject *)cls, BFPY_T_GEOMETRY);
  if (bfpy_bind(args, nargs, kwnames, names, 1, a, true) < 0 ||
      bfpy_as_realbox(a[0], dim, &rb, "ResetDefaultProbDomain(rb)") < 0)
    return NULL;
  if (bfpy_check(bf_geometry_reset_default_prob_domain(&rb)) < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject *geom_reset_periodicity(PyObject *cls, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"is_per", NULL};
  PyObject *a[1];
  int per[BF_SPACEDIM_MAX], dim = bfpy_type_dim((PyTypeObject *)cls, BFPY_T_GEOMETRY);
  if (bfpy_bind(args, nargs, kwnames, names, 1, a, true) < 0 ||
      bfpy_to_int_array(a[0], dim, per, "ResetDefaultPeriodicity(is_per)") < 0)
    return NULL;
  if (bfpy_check(bf_geometry_reset_default_periodicity(dim, per)) < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject *geom_reset_coord(PyObject *cls, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"coord", NULL};
  PyObject *a[1];
  int c, dim = bfpy_type_dim((PyTypeObject *)cls, BFPY_T_GEOMETRY);
  if (bfpy_bind(args, nargs, kwnames, names, 1, a, true) < 0 || to_coord(a[0], &c, "ResetDefaultCoord(coord)") < 0)
    return NULL;
  if (bfpy_check(bf_geometry_reset_default_coord(dim, c)) < 0) return NULL;
  Py_RETURN_NONE;
}

static PyGetSetDef geom_getset[] = {
    {"domain", geom_get_domain, geom_set_domain, "Index domain (Box); setting it recomputes dx.", NULL},
    {"prob_domain", geom_get_prob_domain, geom_set_prob_domain, "Physical domain (RealBox); setting it recomputes dx.",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef geom_methods[] = {
    {"define", BFPY_FASTKW(geom_define), "define(dom: Box, rb: RealBox, coord: int, is_per: int[N])"},
    {"data", geom_data, METH_NOARGS, "data() -> GeometryData (a copy)"},
    {"ProbLo", BFPY_FASTKW(geom_prob_lo), "ProbLo() -> float[N] / ProbLo(dir) -> float"},
    {"ProbHi", BFPY_FASTKW(geom_prob_hi), "ProbHi() -> float[N] / ProbHi(dir) -> float"},
    {"ProbLength", geom_prob_length, METH_O, "ProbLength(dir, /) -> float"},
    {"ProbSize", geom_prob_size, METH_NOARGS, "ProbSize() -> float: product of the lengths."},
    {"isPeriodic", (PyCFunction)(void (*)(void))geom_is_periodic, METH_FASTCALL,
     "isPeriodic() -> int[N] / isPeriodic(dir, /) -> bool"},
    {"isAnyPeriodic", geom_any_per, METH_NOARGS, "isAnyPeriodic() -> bool"},
    {"isAllPeriodic", geom_all_per, METH_NOARGS, "isAllPeriodic() -> bool"},
    {"period", BFPY_FASTKW(geom_period), "period(dir) -> int: domain length in dir; RuntimeError if not periodic."},
    {"periodicity", BFPY_FASTKW(geom_periodicity), "periodicity() / periodicity(b: Box) -> Periodicity"},
    {"setPeriodicity", BFPY_FASTKW(geom_set_periodicity), "setPeriodicity(period: int[N]) -> int[N] (the old flags)"},
    {"growNonPeriodicDomain", BFPY_FASTKW(geom_grow_nonper),
     "growNonPeriodicDomain(ngrow: IntVect/int) -> Box: domain grown in the non-periodic directions."},
    {"growPeriodicDomain", BFPY_FASTKW(geom_grow_per),
     "growPeriodicDomain(ngrow: IntVect/int) -> Box: domain grown in the periodic directions."},
    {"coarsen", BFPY_FASTKW(geom_coarsen), "coarsen(rr: IntVect): coarsen the domain in place (recomputes dx)."},
    {"refine", BFPY_FASTKW(geom_refine), "refine(rr: IntVect): refine the domain in place (recomputes dx)."},
    {"insideRoundOffDomain", BFPY_FASTKW(geom_inside),
     "insideRoundOffDomain(x[, y[, z]]) -> bool: the position maps to a cell of the domain despite round-off."},
    {"outsideRoundOffDomain", BFPY_FASTKW(geom_outside), "outsideRoundOffDomain(x[, y[, z]]) -> bool: not inside."},
    {"CellSize", BFPY_FASTKW(geom_cell_size), "CellSize() -> float[N] / CellSize(dir) -> float: cell size (AMReX's CoordSys)."},
    {"InvCellSize", BFPY_FASTKW(geom_inv_cell_size), "InvCellSize() -> float[N] / InvCellSize(dir) -> float: 1 / cell size."},
    {"CellCenter", BFPY_FASTKW(geom_cell_center),
     "CellCenter(point: int, dir: int) -> float / CellCenter(point: IntVect) -> float[N]: prob_lo + dx * (point + 0.5)."},
    {"LoEdge", BFPY_FASTKW(geom_lo_edge), "LoEdge(point: int/IntVect, dir: int) -> float: prob_lo + dx * point."},
    {"HiEdge", BFPY_FASTKW(geom_hi_edge), "HiEdge(point: int/IntVect, dir: int) -> float: prob_lo + dx * (point + 1)."},
    {"ProbDomain", (PyCFunction)(void (*)(void))geom_prob_domain_m, METH_FASTCALL,
     "ProbDomain() -> RealBox / ProbDomain(rb, /): get / set the physical domain (as the prob_domain property)."},
    {"Domain", (PyCFunction)(void (*)(void))geom_domain_m, METH_FASTCALL,
     "Domain() -> Box / Domain(bx, /): get / set the index domain (as the domain property)."},
    {"RoundOffLo", geom_roundoff_lo, METH_NOARGS, "RoundOffLo() -> float[N]: lower end of the round-off domain."},
    {"RoundOffHi", geom_roundoff_hi, METH_NOARGS, "RoundOffHi() -> float[N]: upper end of the round-off domain (inclusive)."},
    {"computeRoundoffDomain", geom_compute_roundoff, METH_NOARGS,
     "computeRoundoffDomain(): recompute dx and the round-off domain (coarsen/refine leave the round-off domain "
     "as it was, as AMReX does)."},
    {"ResetDefaultProbDomain", (PyCFunction)(void (*)(void))geom_reset_prob_domain,
     METH_FASTCALL | METH_KEYWORDS | METH_CLASS, "ResetDefaultProbDomain(rb: RealBox): default of Geometry()."},
    {"ResetDefaultPeriodicity", (PyCFunction)(void (*)(void))geom_reset_periodicity,
     METH_FASTCALL | METH_KEYWORDS | METH_CLASS, "ResetDefaultPeriodicity(is_per: int[N]): default of Geometry()."},
    {"ResetDefaultCoord", (PyCFunction)(void (*)(void))geom_reset_coord, METH_FASTCALL | METH_KEYWORDS | METH_CLASS,
     "ResetDefaultCoord(coord: int): default of Geometry()."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot geom_slots[] = {
    {Py_tp_doc, "Geometry() / Geometry(dom: Box, rb: RealBox, coord: int, is_per: int[N]): index domain, physical "
                "domain, coordinates and periodicity of a level."},
    {Py_tp_init, geom_init},
    {Py_tp_repr, geom_repr},
    {Py_tp_str, geom_repr},
    {Py_tp_methods, geom_methods},
    {Py_tp_getset, geom_getset},
    {0, NULL},
};

static PyType_Spec geom_spec = {.name = "Geometry",
                                .basicsize = sizeof(bfpy_geometry_object),
                                .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                                .slots = geom_slots};

/* ---- family init ---------------------------------------------------------------------------- */
static int init_coordsys(PyObject *m, int dim) {
  PyTypeObject *cs = bfpy_make_type(m, dim, BFPY_T_COORDSYS, "CoordSys", &cs_spec, NULL);
  if (!cs) return -1;
  static const char *const names[] = {"undef", "cartesian", "RZ", "SPHERICAL"};
  static const int values[] = {BF_COORD_UNDEF, BF_COORD_CARTESIAN, BF_COORD_RZ, BF_COORD_SPHERICAL};
  char modname[32];
  snprintf(modname, sizeof modname, "boxfab.space%dd", dim);
  PyObject *e = bfpy_make_intenum(modname, "CoordSys.CoordType", names, values, 4);
  if (!e) return -1;
  coordtype_enum[dim] = e; /* owned for the process lifetime */
  if (PyObject_SetAttrString((PyObject *)cs, "CoordType", e) < 0) return -1;
  for (int i = 0; i < 4; ++i) {
    PyObject *member = PyObject_GetAttrString(e, names[i]);
    if (!member) return -1;
    int r = PyObject_SetAttrString((PyObject *)cs, names[i], member);
    Py_DECREF(member);
    if (r < 0) return -1;
  }
  return 0;
}

int bfpy_init_geometry(PyObject *m, int dim) {
  if (bfpy_init_realvect(m, dim) < 0 || bfpy_init_realbox(m, dim) < 0 || bfpy_init_periodicity(m, dim) < 0 ||
      bfpy_init_geometrydata(m, dim) < 0 || init_coordsys(m, dim) < 0)
    return -1;
  return bfpy_make_type(m, dim, BFPY_T_GEOMETRY, "Geometry", &geom_spec, bfpy_types[dim][BFPY_T_COORDSYS]) ? 0 : -1;
}
