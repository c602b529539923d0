/* boxfab._core: conversions between C values and the families' Python objects.
 * Constructors of the Python types live in their family files; these are the
 * shared ways to wrap a C value or read one back. */
#include "bfpy.h"

static PyObject *bfpy_alloc(int dim, int id) {
  PyTypeObject *t = (dim >= 0 && dim <= BF_SPACEDIM_MAX) ? bfpy_types[dim][id] : NULL;
  if (!t) {
    PyErr_Format(PyExc_RuntimeError, "boxfab: type %s of dimension %d is not available", bfpy_type_name(id, dim),
                 dim);
    return NULL;
  }
  return t->tp_alloc(t, 0);
}

#define BFPY_NEW(var, ctype, dim, id)                                                                              \
  ctype *var = (ctype *)bfpy_alloc((dim), (id));                                                                   \
  if (!var) return NULL

PyObject *bfpy_intvect_new(const bf_intvect *iv) {
  BFPY_NEW(o, bfpy_intvect_object, iv->dim, BFPY_T_INTVECT);
  o->iv = *iv;
  return (PyObject *)o;
}

PyObject *bfpy_dim3_new(int x, int y, int z) {
  BFPY_NEW(o, bfpy_dim3_object, 0, BFPY_T_DIM3);
  o->x = x, o->y = y, o->z = z;
  return (PyObject *)o;
}

PyObject *bfpy_xdim3_new(double x, double y, double z) {
  BFPY_NEW(o, bfpy_xdim3_object, 0, BFPY_T_XDIM3);
  o->x = x, o->y = y, o->z = z;
  return (PyObject *)o;
}

PyObject *bfpy_indextype_new(int dim, unsigned type) {
  BFPY_NEW(o, bfpy_indextype_object, dim, BFPY_T_INDEXTYPE);
  o->dim = dim;
  o->type = type;
  return (PyObject *)o;
}

PyObject *bfpy_box_new(const bf_box *box) {
  BFPY_NEW(o, bfpy_box_object, box->dim, BFPY_T_BOX);
  o->box = *box;
  return (PyObject *)o;
}

PyObject *bfpy_boxarray_new(bf_boxarray *ba) {
  int dim = bf_boxarray_dim(ba);
  bfpy_boxarray_object *o = (bfpy_boxarray_object *)bfpy_alloc(dim, BFPY_T_BOXARRAY);
  if (!o) {
    bf_boxarray_destroy(&ba);
    return NULL;
  }
  o->dim = dim;
  o->ba = ba;
  return (PyObject *)o;
}

PyObject *bfpy_distmap_new(int dim, bf_distmap *dm) {
  bfpy_distmap_object *o = (bfpy_distmap_object *)bfpy_alloc(dim, BFPY_T_DISTMAP);
  if (!o) {
    bf_distmap_destroy(&dm);
    return NULL;
  }
  o->dim = dim;
  o->dm = dm;
  return (PyObject *)o;
}

PyObject *bfpy_realbox_new(const bf_realbox *rb) {
  BFPY_NEW(o, bfpy_realbox_object, rb->dim, BFPY_T_REALBOX);
  o->rb = *rb;
  return (PyObject *)o;
}

PyObject *bfpy_realvect_new(int dim, const double *v) {
  BFPY_NEW(o, bfpy_realvect_object, dim, BFPY_T_REALVECT);
  o->dim = dim;
  for (int d = 0; d < BF_SPACEDIM_MAX; ++d) o->v[d] = d < dim ? v[d] : 0.0;
  return (PyObject *)o;
}

PyObject *bfpy_geometry_new(const bf_geometry *g) {
  BFPY_NEW(o, bfpy_geometry_object, g->dim, BFPY_T_GEOMETRY);
  o->base.dim = g->dim;
  o->base.coord = g->coord;
  o->geom = *g;
  return (PyObject *)o;
}

PyObject *bfpy_geometrydata_new(const bf_geometry *g) {
  BFPY_NEW(o, bfpy_geometrydata_object, g->dim, BFPY_T_GEOMETRYDATA);
  o->geom = *g;
  return (PyObject *)o;
}

PyObject *bfpy_periodicity_new(const bf_periodicity *p) {
  BFPY_NEW(o, bfpy_periodicity_object, p->dim, BFPY_T_PERIODICITY);
  o->per = *p;
  return (PyObject *)o;
}

/* ---- reading values back -------------------------------------------------- */

/* TypeError for an object of the right family but another dimension, or of
 * another type altogether. */
static int bfpy_wrong(PyObject *o, int id, int dim, const char *what) {
  for (int d = 0; d <= BF_SPACEDIM_MAX; ++d)
    if (d != dim && bfpy_types[d][id] && PyObject_TypeCheck(o, bfpy_types[d][id])) {
      bfpy_dim_mismatch(what, dim, d);
      return -1;
    }
  PyErr_Format(PyExc_TypeError, "%s must be a %s of dimension %d, not %.100s", what, bfpy_type_name(id, dim), dim,
               Py_TYPE(o)->tp_name);
  return -1;
}

int bfpy_arg_kind(PyObject *o, bool real) {
  if (bfpy_is(o, BFPY_T_INTVECT, -1)) return BFPY_ARG_INTVECT;
  if (PyLong_Check(o) || (real && PyFloat_Check(o))) return BFPY_ARG_SCALAR;
  /* text, and boxfab's own sequences that are not a list of ints for an
   * index (an IndexType reads as bools, a DistributionMapping as ranks) */
  if (bfpy_is_text(o) || bfpy_is(o, BFPY_T_INDEXTYPE, -1) || bfpy_is(o, BFPY_T_DISTMAP, -1) ||
      bfpy_is(o, BFPY_T_BOXARRAY, -1))
    return BFPY_ARG_OTHER;
  PyNumberMethods *nb = Py_TYPE(o)->tp_as_number;
  bool number = real ? !PyComplex_Check(o) && nb && (nb->nb_index || nb->nb_float) : bfpy_is_intlike(o);
  if (!PySequence_Check(o)) return number ? BFPY_ARG_SCALAR : BFPY_ARG_OTHER;
  if (!number) return BFPY_ARG_SEQUENCE;
  /* both a number and a sequence (a NumPy array): a sequence when it has a
   * length, a number when it has none (a 0-d array, as operator.index reads it) */
  if (PySequence_Size(o) >= 0) return BFPY_ARG_SEQUENCE;
  if (!PyErr_ExceptionMatches(PyExc_TypeError)) return -1;
  PyErr_Clear();
  return BFPY_ARG_SCALAR;
}

int bfpy_as_intvect(PyObject *o, int dim, int flags, bf_intvect *out, const char *what) {
  if (bfpy_is(o, BFPY_T_INTVECT, dim)) {
    *out = ((bfpy_intvect_object *)o)->iv;
    return 0;
  }
  if (bfpy_is(o, BFPY_T_INTVECT, -1)) {
    bfpy_dim_mismatch(what, dim, ((bfpy_intvect_object *)o)->iv.dim);
    return -1;
  }
  int kind = flags ? bfpy_arg_kind(o, false) : BFPY_ARG_OTHER;
  if (kind < 0) return -1;
  if ((flags & BFPY_IV_SCALAR) && kind == BFPY_ARG_SCALAR) {
    int v;
    if (bfpy_to_int(o, &v, what) < 0) return -1;
    *out = bf_intvect_splat(dim, v);
    return 0;
  }
  if ((flags & BFPY_IV_SEQUENCE) && kind == BFPY_ARG_SEQUENCE) {
    bf_intvect r = bf_intvect_splat(dim, 0);
    if (bfpy_to_int_array(o, dim, r.v, what) < 0) return -1;
    *out = r;
    return 0;
  }
  if ((flags & BFPY_IV_SEQUENCE) && kind == BFPY_ARG_SCALAR && PySequence_Check(o)) {
    PyErr_Format(PyExc_TypeError, "%s must be an IntVect%dD or a sequence of %d ints, not a 0-dimensional %.100s",
                 what, dim, dim, Py_TYPE(o)->tp_name);
    return -1;
  }
  PyErr_Format(PyExc_TypeError, "%s must be an IntVect%dD%s%s, not %.100s", what, dim,
               (flags & BFPY_IV_SEQUENCE) ? " or a sequence of ints" : "", (flags & BFPY_IV_SCALAR) ? " or an int" : "",
               Py_TYPE(o)->tp_name);
  return -1;
}

int bfpy_as_box(PyObject *o, int dim, bf_box *out, const char *what) {
  if (!bfpy_is(o, BFPY_T_BOX, dim)) return bfpy_wrong(o, BFPY_T_BOX, dim, what);
  *out = ((bfpy_box_object *)o)->box;
  return 0;
}

int bfpy_as_indextype(PyObject *o, int dim, unsigned *out, const char *what) {
  if (!bfpy_is(o, BFPY_T_INDEXTYPE, dim)) return bfpy_wrong(o, BFPY_T_INDEXTYPE, dim, what);
  *out = ((bfpy_indextype_object *)o)->type;
  return 0;
}

int bfpy_as_realbox(PyObject *o, int dim, bf_realbox *out, const char *what) {
  if (!bfpy_is(o, BFPY_T_REALBOX, dim)) return bfpy_wrong(o, BFPY_T_REALBOX, dim, what);
  *out = ((bfpy_realbox_object *)o)->rb;
  return 0;
}

int bfpy_as_realvect(PyObject *o, int dim, double *out, const char *what) {
  if (!bfpy_is(o, BFPY_T_REALVECT, dim)) return bfpy_wrong(o, BFPY_T_REALVECT, dim, what);
  for (int d = 0; d < dim; ++d) out[d] = ((bfpy_realvect_object *)o)->v[d];
  return 0;
}

int bfpy_as_geometry(PyObject *o, int dim, bf_geometry *out, const char *what) {
  if (!bfpy_is(o, BFPY_T_GEOMETRY, dim)) return bfpy_wrong(o, BFPY_T_GEOMETRY, dim, what);
  bfpy_geometry_object *g = (bfpy_geometry_object *)o;
  *out = g->geom;
  out->coord = g->base.coord;
  return 0;
}

int bfpy_as_periodicity(PyObject *o, int dim, bf_periodicity *out, const char *what) {
  if (!bfpy_is(o, BFPY_T_PERIODICITY, dim)) return bfpy_wrong(o, BFPY_T_PERIODICITY, dim, what);
  *out = ((bfpy_periodicity_object *)o)->per;
  return 0;
}

bf_boxarray *bfpy_as_boxarray(PyObject *o, int dim, const char *what) {
  if (!bfpy_is(o, BFPY_T_BOXARRAY, dim)) {
    bfpy_wrong(o, BFPY_T_BOXARRAY, dim, what);
    return NULL;
  }
  return ((bfpy_boxarray_object *)o)->ba;
}

int bfpy_as_distmap(PyObject *o, int dim, bf_distmap **out, const char *what) {
  if (!bfpy_is(o, BFPY_T_DISTMAP, dim)) return bfpy_wrong(o, BFPY_T_DISTMAP, dim, what);
  *out = ((bfpy_distmap_object *)o)->dm;
  return 0;
}
