/* boxfab._core: family "box" — Box{N} (API.md 1.9), its point iterator, and the
 * module functions lbound/ubound/length/begin/end of Boxes (API.md 1.1).
 *
 * All algebra is in src/core/index/box.c; this file converts arguments and results.
 *
 * Choices where API.md leaves room (see also tests/python/index/test_box.py):
 * - Directions given as ints must be in [0, N); anything else is IndexError
 *   (no negative "from the end" indexing: AMReX's Box has none).
 * - `Direction` overloads: pyAMReX's Direction is an opaque tag without a value,
 *   so a Direction argument cannot say which direction it means; boxfab accepts
 *   the overload and raises TypeError telling to pass the direction as an int.
 * - intersects(), same_size() (and the `&` extension) of boxes of different
 *   index types raise ValueError instead of silently answering: AMReX calls
 *   it an error (BL_ASSERT(sameType(b)) in AMReX_Box.H).
 * - Box == Box of another dimension raises TypeError (dims never mix silently);
 *   == with any other type is False.
 * - Extensions beyond API.md: refine(ratio, /), coarsen(ratio, /) (in place, as
 *   on BoxArray), `b1 & b2` (intersection, a new Box), chop(dir, chop_pnt)
 *   (AMReX's Box::chop) and adj_cell_lo/hi, bdry_lo/hi(dir, len=1) (AMReX's
 *   free functions adjCellLo/Hi, bdryLo/Hi: new Boxes).
 * - `type` also accepts a 0/1 IntVect (or list) when set, like the constructor. */
#include "bfpy.h"

#define BOX(o) (&((bfpy_box_object *)(o))->box)

static const char *const box_signatures =
    "Box(small: IntVect, big: IntVect), Box(small: IntVect, big: IntVect, typ: IntVect), "
    "Box(small: IntVect, big: IntVect, t: IndexType); small and big may be sequences of N ints";

/* ---- argument helpers ------------------------------------------------------------- */

/* An IntVect of `dim` or a sequence of dim ints (list, tuple, range, NumPy array). */
static int iv_arg(PyObject *o, int dim, bf_intvect *out, const char *what) {
  return bfpy_as_intvect(o, dim, BFPY_IV_SEQUENCE, out, what);
}

/* 1 for what iv_arg reads (or an IntVect of another dim, which it rejects
 * with the dims message), 0 otherwise, -1 with an exception: picks an overload. */
static int looks_like_iv(PyObject *o) {
  int k = bfpy_arg_kind(o, false);
  return k < 0 ? -1 : k == BFPY_ARG_INTVECT || k == BFPY_ARG_SEQUENCE;
}

/* 1 for an int (np.int64 and 0-d integer arrays too, not a 1-d array), 0
 * otherwise, -1 with an exception: picks an overload. */
static int looks_like_int(PyObject *o) {
  int k = bfpy_arg_kind(o, false);
  return k < 0 ? -1 : k == BFPY_ARG_SCALAR;
}

/* An index type from an IndexType or a 0/1 IntVect (or a sequence of ints). */
static int type_arg(PyObject *o, int dim, unsigned *type, const char *what) {
  if (bfpy_is(o, BFPY_T_INDEXTYPE, -1)) return bfpy_as_indextype(o, dim, type, what);
  int like = looks_like_iv(o);
  if (like < 0) return -1;
  if (!like) {
    PyErr_Format(PyExc_TypeError, "%s must be an IndexType or an IntVect of 0 (CELL) / 1 (NODE), not %.100s", what,
                 Py_TYPE(o)->tp_name);
    return -1;
  }
  bf_intvect iv;
  if (iv_arg(o, dim, &iv, what) < 0) return -1;
  return bfpy_check(bf_box_type_from_ints(dim, iv.v, type));
}

/* A direction given as an int in [0, dim). A Direction raises TypeError (see the
 * file comment). */
static int dir_arg(PyObject *o, int dim, int *d, const char *what) {
  if (bfpy_is(o, BFPY_T_DIRECTION, -1)) {
    if (!bfpy_is(o, BFPY_T_DIRECTION, dim)) {
      bfpy_dim_mismatch(what, dim, ((bfpy_direction_object *)o)->dim);
      return -1;
    }
    PyErr_Format(PyExc_TypeError,
                 "%s: a Direction object carries no direction value (it is an opaque tag, as in pyAMReX); "
                 "pass the direction as an int in [0, %d)", what, dim);
    return -1;
  }
  int v;
  if (bfpy_to_int(o, &v, what) < 0) return -1;
  if (v < 0 || v >= dim) {
    PyErr_Format(PyExc_IndexError, "%s %d out of range for a %dD box (directions are 0..%d)", what, v, dim,
                 dim - 1);
    return -1;
  }
  *d = v;
  return 0;
}

/* Bind one signature; 0 bound, 1 not this one, -1 error. */
#define TRY_BIND(names, nreq, out) bfpy_bind(args, nargs, kwnames, (names), (nreq), (out), false)
/* Bind the only signature of `func`; on mismatch TypeError "<func>(): <why>". */
static int bind_or_fail(const char *func, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                        const char *const *names, int nreq, PyObject **out) {
  if (bfpy_bind(args, nargs, kwnames, names, nreq, out, true) == 0) return 0;
  if (PyErr_ExceptionMatches(PyExc_TypeError)) {
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_Format(PyExc_TypeError, "%s(): %S", func, value ? value : Py_None);
    Py_XDECREF(type), Py_XDECREF(value), Py_XDECREF(tb);
  }
  return -1;
}
#define BIND_OR_FAIL(func, names, nreq, out)                                                                       \
  do {                                                                                                             \
    if (bind_or_fail((func), args, nargs, kwnames, (names), (nreq), (out)) < 0) return NULL;                      \
  } while (0)

static PyObject *return_self(PyObject *self) {
  Py_INCREF(self);
  return self;
}

/* Apply a C status to self: self (new reference) on success, NULL with the exception otherwise. */
static PyObject *self_or_raise(PyObject *self, int status) {
  if (status != BF_SUCCESS) return bfpy_raise(status);
  return return_self(self);
}

static PyObject *intvect_from(int dim, const int *v) {
  bf_intvect iv = bf_intvect_splat(dim, 0);
  for (int d = 0; d < dim; ++d) iv.v[d] = v[d];
  return bfpy_intvect_new(&iv);
}

/* ---- construction ------------------------------------------------------------------ */

static PyObject *box_tp_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
  (void)args, (void)kwds;
  int dim = bfpy_type_dim(type, BFPY_T_BOX);
  PyObject *self = type->tp_alloc(type, 0);
  if (!self) return NULL;
  /* Never leave a box without a valid dim, even if __init__ is skipped. */
  if (bfpy_check(bf_box_unit(dim, BOX(self))) < 0) {
    Py_DECREF(self);
    return NULL;
  }
  return self;
}

static int box_init_fast(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names_typ[] = {"small", "big", "typ", NULL};
  static const char *const names_t[] = {"small", "big", "t", NULL};
  int dim = BOX(self)->dim;
  PyObject *o[3];
  int r = TRY_BIND(names_typ, 2, o);
  if (r == 1) r = TRY_BIND(names_t, 3, o);
  if (r < 0) return -1;
  if (r == 1) {
    bfpy_no_overload("Box", args, nargs, kwnames, box_signatures);
    return -1;
  }
  bf_intvect lo, hi;
  unsigned type = 0u;
  if (iv_arg(o[0], dim, &lo, "Box small") < 0 || iv_arg(o[1], dim, &hi, "Box big") < 0) return -1;
  if (o[2] && type_arg(o[2], dim, &type, "Box index type") < 0) return -1;
  return bfpy_check(bf_box_define(dim, lo.v, hi.v, type, BOX(self)));
}

static int box_tp_init(PyObject *self, PyObject *args, PyObject *kwds) {
  return bfpy_init_vectorcall(self, args, kwds, box_init_fast);
}

/* ---- text ------------------------------------------------------------------------------ */

/* "(a,b,c)" with `sep` between components into buf. */
static void format_ints(char *buf, size_t size, const int *v, int n, const char *sep, const char *open,
                        const char *close) {
  size_t at = (size_t)snprintf(buf, size, "%s", open);
  for (int d = 0; d < n && at < size; ++d) at += (size_t)snprintf(buf + at, size - at, "%s%d", d ? sep : "", v[d]);
  if (at < size) snprintf(buf + at, size - at, "%s", close);
}

void bfpy_box_text(const bf_box *b, char *buf, size_t size) {
  int t[BF_SPACEDIM_MAX];
  bf_box_type_to_ints(b, t);
  char lo[64], hi[64], ty[64];
  format_ints(lo, sizeof lo, b->lo, b->dim, ",", "(", ")");
  format_ints(hi, sizeof hi, b->hi, b->dim, ",", "(", ")");
  format_ints(ty, sizeof ty, t, b->dim, ",", "(", ")");
  snprintf(buf, size, "(%s %s %s)", lo, hi, ty);
}

static PyObject *box_str(PyObject *self) {
  char buf[BFPY_BOX_TEXT_SIZE];
  bfpy_box_text(BOX(self), buf, sizeof buf);
  return PyUnicode_FromString(buf);
}

/* pyAMReX's repr: <amrex.Box of size '(4,4,4)'> (the size as AMReX prints an IntVect; str() gives
 * the corners and the type). */
static PyObject *box_repr(PyObject *self) {
  const bf_box *b = BOX(self);
  char sz[96];
  size_t k = 0;
  sz[k++] = '(';
  for (int d = 0; d < b->dim; ++d)
    k += (size_t)snprintf(sz + k, sizeof sz - k, "%s%lld", d ? "," : "", (long long)b->hi[d] - b->lo[d] + 1);
  snprintf(sz + k, sizeof sz - k, ")");
  return PyUnicode_FromFormat("<amrex.Box of size '%s'>", sz);
}

static PyObject *box_str_method(PyObject *self, PyObject *noargs) {
  (void)noargs;
  return box_str(self);
}

/* ---- comparison ---------------------------------------------------------------------- */

static PyObject *box_richcompare(PyObject *a, PyObject *b, int op) {
  if ((op != Py_EQ && op != Py_NE) || !bfpy_is(a, BFPY_T_BOX, -1) || !bfpy_is(b, BFPY_T_BOX, -1))
    Py_RETURN_NOTIMPLEMENTED;
  if (BOX(a)->dim != BOX(b)->dim) return bfpy_dim_mismatch("Box comparison", BOX(a)->dim, BOX(b)->dim);
  bool eq = bf_box_equal(BOX(a), BOX(b));
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

/* ---- properties --------------------------------------------------------------------- */

static int no_delete(PyObject *value, const char *name) {
  if (value) return 0;
  PyErr_Format(PyExc_AttributeError, "cannot delete Box.%s", name);
  return -1;
}

static PyObject *get_small_end(PyObject *self, void *c) {
  (void)c;
  return intvect_from(BOX(self)->dim, BOX(self)->lo);
}

static int set_small_end(PyObject *self, PyObject *value, void *c) {
  (void)c;
  bf_intvect iv;
  if (no_delete(value, "small_end") < 0 || iv_arg(value, BOX(self)->dim, &iv, "Box.small_end") < 0) return -1;
  for (int d = 0; d < iv.dim; ++d) BOX(self)->lo[d] = iv.v[d];
  return 0;
}

static PyObject *get_big_end(PyObject *self, void *c) {
  (void)c;
  return intvect_from(BOX(self)->dim, BOX(self)->hi);
}

static int set_big_end(PyObject *self, PyObject *value, void *c) {
  (void)c;
  bf_intvect iv;
  if (no_delete(value, "big_end") < 0 || iv_arg(value, BOX(self)->dim, &iv, "Box.big_end") < 0) return -1;
  for (int d = 0; d < iv.dim; ++d) BOX(self)->hi[d] = iv.v[d];
  return 0;
}

static PyObject *get_type(PyObject *self, void *c) {
  (void)c;
  int t[BF_SPACEDIM_MAX];
  bf_box_type_to_ints(BOX(self), t);
  return intvect_from(BOX(self)->dim, t);
}

static int set_type(PyObject *self, PyObject *value, void *c) {
  (void)c;
  unsigned t;
  if (no_delete(value, "type") < 0 || type_arg(value, BOX(self)->dim, &t, "Box.type") < 0) return -1;
  BOX(self)->type = t;
  return 0;
}

static PyObject *get_ix_type(PyObject *self, void *c) {
  (void)c;
  return bfpy_indextype_new(BOX(self)->dim, BOX(self)->type);
}

static PyObject *box_size_iv(const bf_box *b) {
  int n[BF_SPACEDIM_MAX];
  if (bfpy_check(bf_box_size(b, n)) < 0) return NULL;
  return intvect_from(b->dim, n);
}

static PyObject *get_size(PyObject *self, void *c) {
  (void)c;
  return box_size_iv(BOX(self));
}

static PyObject *box_numpts_obj(const bf_box *b) {
  int64_t n;
  if (bfpy_check(bf_box_numpts(b, &n)) < 0) return NULL;
  return PyLong_FromLongLong((long long)n);
}

static PyObject *get_num_pts(PyObject *self, void *c) {
  (void)c;
  return box_numpts_obj(BOX(self));
}

static PyObject *get_volume(PyObject *self, void *c) {
  (void)c;
  int64_t n;
  if (bfpy_check(bf_box_volume(BOX(self), &n)) < 0) return NULL;
  return PyLong_FromLongLong((long long)n);
}

static PyObject *get_d_num_pts(PyObject *self, void *c) {
  (void)c;
  return PyFloat_FromDouble(bf_box_d_numpts(BOX(self)));
}

static PyObject *get_is_empty(PyObject *self, void *c) {
  (void)c;
  return PyBool_FromLong(bf_box_is_empty(BOX(self)));
}

static PyObject *get_ok(PyObject *self, void *c) {
  (void)c;
  return PyBool_FromLong(bf_box_ok(BOX(self)));
}

static PyObject *get_cell_centered(PyObject *self, void *c) {
  (void)c;
  return PyBool_FromLong(bf_box_cell_centered(BOX(self)));
}

static PyObject *get_is_square(PyObject *self, void *c) {
  (void)c;
  return PyBool_FromLong(bf_box_is_square(BOX(self)));
}

static PyObject *get_the_unit_box(PyObject *self, void *c) {
  (void)c;
  bf_box u;
  if (bfpy_check(bf_box_unit(BOX(self)->dim, &u)) < 0) return NULL;
  return bfpy_box_new(&u);
}

static PyGetSetDef box_getset[] = {
    {"small_end", get_small_end, set_small_end, "Lower corner (IntVect); assigning moves it.", NULL},
    {"lo_vect", get_small_end, set_small_end, "Same as small_end.", NULL},
    {"big_end", get_big_end, set_big_end, "Upper corner, inclusive (IntVect); assigning moves it.", NULL},
    {"hi_vect", get_big_end, set_big_end, "Same as big_end.", NULL},
    {"type", get_type, set_type,
     "Index type as an IntVect of 0 (CELL) / 1 (NODE); assign an IndexType (or 0/1 IntVect) to change the type "
     "without moving the corners.", NULL},
    {"ix_type", get_ix_type, NULL, "Index type (IndexType).", NULL},
    {"size", get_size, NULL, "Number of points per direction (IntVect).", NULL},
    {"num_pts", get_num_pts, NULL, "Number of points (0 when empty); OverflowError beyond int64.", NULL},
    {"d_num_pts", get_d_num_pts, NULL, "Number of points as float.", NULL},
    {"volume", get_volume, NULL,
     "AMReX Box::volume(): product over directions of (length - 1 if nodal else length), the number of cells "
     "enclosed (0 when empty); equals num_pts only for a cell-centred box.", NULL},
    {"is_empty", get_is_empty, NULL, "big < small in some direction.", NULL},
    {"ok", get_ok, NULL, "big >= small in every direction.", NULL},
    {"cell_centered", get_cell_centered, NULL, "All directions CELL.", NULL},
    {"is_square", get_is_square, NULL, "All lengths equal (always False in 1D, as AMReX's Box::isSquare).", NULL},
    {"the_unit_box", get_the_unit_box, NULL, "The box (0,...,0)-(0,...,0), cell-centred (a new Box).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* ---- queries ----------------------------------------------------------------------- */

static PyObject *box_length(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"dir", NULL};
  PyObject *o[1];
  BIND_OR_FAIL("Box.length", names, 0, o);
  if (!o[0]) return box_size_iv(BOX(self));
  int d;
  if (dir_arg(o[0], BOX(self)->dim, &d, "Box.length dir") < 0) return NULL;
  return PyLong_FromLongLong((long long)bf_box_length(BOX(self), d));
}

static PyObject *box_numPts(PyObject *self, PyObject *noargs) {
  (void)noargs;
  return box_numpts_obj(BOX(self));
}

static PyObject *box_contains_impl(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                                   bool strict) {
  static const char *const names[] = {"p", NULL};
  PyObject *o[1];
  BIND_OR_FAIL(strict ? "Box.strictly_contains" : "Box.contains", names, 1, o);
  bf_intvect p;
  if (iv_arg(o[0], BOX(self)->dim, &p, strict ? "Box.strictly_contains p" : "Box.contains p") < 0) return NULL;
  return PyBool_FromLong(strict ? bf_box_strictly_contains(BOX(self), p.v) : bf_box_contains(BOX(self), p.v));
}

static PyObject *box_contains(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return box_contains_impl(self, args, nargs, kwnames, false);
}

static PyObject *box_strictly_contains(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                       PyObject *kwnames) {
  return box_contains_impl(self, args, nargs, kwnames, true);
}

/* Methods taking one Box `b`: 0 intersects, 1 same_size, 2 same_type. */
static PyObject *box_pair_query(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                                int which, const char *what) {
  static const char *const names[] = {"b", NULL};
  PyObject *o[1];
  BIND_OR_FAIL(what, names, 1, o);
  bf_box other;
  char arg[64];
  snprintf(arg, sizeof arg, "%s b", what);
  if (bfpy_as_box(o[0], BOX(self)->dim, &other, arg) < 0) return NULL;
  switch (which) {
  case 0:
    if (bfpy_check(bf_box_check_same_type(BOX(self), &other, "Box.intersects")) < 0) return NULL;
    return PyBool_FromLong(bf_box_intersects(BOX(self), &other));
  case 1:
    if (bfpy_check(bf_box_check_same_type(BOX(self), &other, "Box.same_size")) < 0) return NULL;
    return PyBool_FromLong(bf_box_same_size(BOX(self), &other));
  default: return PyBool_FromLong(bf_box_same_type(BOX(self), &other));
  }
}

static PyObject *box_intersects(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return box_pair_query(self, args, nargs, kwnames, 0, "Box.intersects");
}

static PyObject *box_same_size(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return box_pair_query(self, args, nargs, kwnames, 1, "Box.same_size");
}

static PyObject *box_same_type(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return box_pair_query(self, args, nargs, kwnames, 2, "Box.same_type");
}

/* ---- in-place transformations ------------------------------------------------------- */

static PyObject *box_normalize(PyObject *self, PyObject *noargs) {
  (void)noargs;
  bf_box_normalize(BOX(self));
  Py_RETURN_NONE;
}

static PyObject *box_shift(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names_dir[] = {"dir", "nzones", NULL};
  static const char *const names_iv[] = {"iv", NULL};
  int dim = BOX(self)->dim, like;
  PyObject *o[2];
  int r = TRY_BIND(names_dir, 2, o);
  if (r < 0) return NULL;
  if (r == 0) {
    int d, n;
    if (dir_arg(o[0], dim, &d, "Box.shift dir") < 0 || bfpy_to_int(o[1], &n, "Box.shift nzones") < 0) return NULL;
    return self_or_raise(self, bf_box_shift(BOX(self), d, n));
  }
  r = TRY_BIND(names_iv, 1, o);
  if (r < 0) return NULL;
  if (r == 0 && (like = looks_like_iv(o[0])) != 0) {
    if (like < 0) return NULL;
    bf_intvect iv;
    if (iv_arg(o[0], dim, &iv, "Box.shift iv") < 0) return NULL;
    return self_or_raise(self, bf_box_shift_iv(BOX(self), iv.v));
  }
  return bfpy_no_overload("Box.shift", args, nargs, kwnames, "shift(dir: int, nzones: int), shift(iv: IntVect)");
}

static PyObject *box_convert(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"typ", NULL};
  PyObject *o[1];
  BIND_OR_FAIL("Box.convert", names, 1, o);
  unsigned t;
  if (type_arg(o[0], BOX(self)->dim, &t, "Box.convert typ") < 0) return NULL;
  return self_or_raise(self, bf_box_convert(BOX(self), t));
}

static PyObject *box_grow(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names_n[] = {"n_cell", NULL};
  static const char *const names_iv[] = {"n_cells", NULL};
  static const char *const names_dir[] = {"idir", "n_cell", NULL};
  static const char *const names_d[] = {"d", "n_cell", NULL};
  int dim = BOX(self)->dim, r, like;
  PyObject *o[2];
  if ((r = TRY_BIND(names_n, 1, o)) < 0) return NULL;
  if (r == 0 && (like = looks_like_int(o[0])) != 0) {
    if (like < 0) return NULL;
    int n;
    if (bfpy_to_int(o[0], &n, "Box.grow n_cell") < 0) return NULL;
    bf_intvect iv = bf_intvect_splat(dim, n);
    return self_or_raise(self, bf_box_grow(BOX(self), iv.v));
  }
  if ((r = TRY_BIND(names_iv, 1, o)) < 0) return NULL;
  if (r == 0 && (like = looks_like_iv(o[0])) != 0) {
    if (like < 0) return NULL;
    bf_intvect iv;
    if (iv_arg(o[0], dim, &iv, "Box.grow n_cells") < 0) return NULL;
    return self_or_raise(self, bf_box_grow(BOX(self), iv.v));
  }
  if ((r = TRY_BIND(names_dir, 2, o)) < 0) return NULL;
  if (r == 0 && (like = looks_like_int(o[0])) != 0) {
    if (like < 0) return NULL;
    int d, n;
    if (dir_arg(o[0], dim, &d, "Box.grow idir") < 0 || bfpy_to_int(o[1], &n, "Box.grow n_cell") < 0) return NULL;
    return self_or_raise(self, bf_box_grow_dir(BOX(self), d, n, n));
  }
  if ((r = TRY_BIND(names_d, 2, o)) < 0) return NULL;
  if (r == 0 && bfpy_is(o[0], BFPY_T_DIRECTION, -1)) {
    int d;
    if (dir_arg(o[0], dim, &d, "Box.grow d") < 0) return NULL;
  }
  return bfpy_no_overload("Box.grow", args, nargs, kwnames,
                          "grow(n_cell: int), grow(n_cells: IntVect), grow(idir: int, n_cell: int), "
                          "grow(d: Direction, n_cell: int)");
}

/* grow_low / grow_high: (idir: int, n_cell: int = 1) / (d: Direction, n_cell: int = 1). */
static PyObject *box_grow_end(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                              bool high) {
  static const char *const names_dir[] = {"idir", "n_cell", NULL};
  static const char *const names_d[] = {"d", "n_cell", NULL};
  const char *func = high ? "Box.grow_high" : "Box.grow_low";
  int dim = BOX(self)->dim, r, like;
  PyObject *o[2];
  if ((r = TRY_BIND(names_dir, 1, o)) < 0) return NULL;
  if (r == 0 && (like = looks_like_int(o[0])) != 0) {
    if (like < 0) return NULL;
    int d, n = 1;
    if (dir_arg(o[0], dim, &d, high ? "Box.grow_high idir" : "Box.grow_low idir") < 0) return NULL;
    if (o[1] && bfpy_to_int(o[1], &n, high ? "Box.grow_high n_cell" : "Box.grow_low n_cell") < 0) return NULL;
    return self_or_raise(self, bf_box_grow_dir(BOX(self), d, high ? 0 : n, high ? n : 0));
  }
  if ((r = TRY_BIND(names_d, 1, o)) < 0) return NULL;
  if (r == 0 && bfpy_is(o[0], BFPY_T_DIRECTION, -1)) {
    int d;
    if (dir_arg(o[0], dim, &d, high ? "Box.grow_high d" : "Box.grow_low d") < 0) return NULL;
  }
  return bfpy_no_overload(func, args, nargs, kwnames, "(idir: int, n_cell: int = 1), (d: Direction, n_cell: int = 1)");
}

static PyObject *box_grow_low(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return box_grow_end(self, args, nargs, kwnames, false);
}

static PyObject *box_grow_high(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return box_grow_end(self, args, nargs, kwnames, true);
}

/* surrounding_nodes / enclosed_cells: () / (dir: int) / (d: Direction). */
static PyObject *box_change_type(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                                 bool to_nodes) {
  static const char *const names_dir[] = {"dir", NULL};
  static const char *const names_d[] = {"d", NULL};
  const char *func = to_nodes ? "Box.surrounding_nodes" : "Box.enclosed_cells";
  int dim = BOX(self)->dim, r, d = -1, like = 0;
  PyObject *o[1];
  if ((r = TRY_BIND(names_dir, 0, o)) < 0) return NULL;
  if (r == 0 && (!o[0] || (like = looks_like_int(o[0])) != 0)) {
    if (like < 0) return NULL;
    if (o[0] && dir_arg(o[0], dim, &d, to_nodes ? "Box.surrounding_nodes dir" : "Box.enclosed_cells dir") < 0)
      return NULL;
    return self_or_raise(self, to_nodes ? bf_box_surrounding_nodes(BOX(self), d) : bf_box_enclosed_cells(BOX(self), d));
  }
  if ((r = TRY_BIND(names_d, 1, o)) < 0) return NULL;
  if (r == 0 && bfpy_is(o[0], BFPY_T_DIRECTION, -1)) {
    if (dir_arg(o[0], dim, &d, to_nodes ? "Box.surrounding_nodes d" : "Box.enclosed_cells d") < 0) return NULL;
  }
  return bfpy_no_overload(func, args, nargs, kwnames, "(), (dir: int), (d: Direction)");
}

static PyObject *box_surrounding_nodes(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return box_change_type(self, args, nargs, kwnames, true);
}

static PyObject *box_enclosed_cells(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return box_change_type(self, args, nargs, kwnames, false);
}

static PyObject *box_make_slab(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"direction", "slab_index", NULL};
  PyObject *o[2];
  BIND_OR_FAIL("Box.make_slab", names, 2, o);
  int d, idx;
  if (dir_arg(o[0], BOX(self)->dim, &d, "Box.make_slab direction") < 0 ||
      bfpy_to_int(o[1], &idx, "Box.make_slab slab_index") < 0)
    return NULL;
  return self_or_raise(self, bf_box_make_slab(BOX(self), d, idx));
}

/* Extension: chop(dir: int, chop_pnt: int) -> Box, AMReX's Box::chop: self keeps the low part, the high part
 * is returned. */
static PyObject *box_chop(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"dir", "chop_pnt", NULL};
  PyObject *o[2];
  BIND_OR_FAIL("Box.chop", names, 2, o);
  int d, pnt;
  if (dir_arg(o[0], BOX(self)->dim, &d, "Box.chop dir") < 0 || bfpy_to_int(o[1], &pnt, "Box.chop chop_pnt") < 0)
    return NULL;
  bf_box hi;
  if (bfpy_check(bf_box_chop(BOX(self), d, pnt, &hi)) < 0) return NULL;
  return bfpy_box_new(&hi);
}

/* Extensions adj_cell_lo/hi, bdry_lo/hi(dir: int, len: int = 1) -> Box (AMReX's adjCellLo/Hi, bdryLo/Hi). */
static PyObject *box_side(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, bool bdry,
                          bool high) {
  static const char *const names[] = {"dir", "len", NULL};
  static const char *const funcs[2][2] = {{"Box.adj_cell_lo", "Box.adj_cell_hi"}, {"Box.bdry_lo", "Box.bdry_hi"}};
  const char *func = funcs[bdry][high];
  PyObject *o[2];
  BIND_OR_FAIL(func, names, 1, o);
  int d, len = 1;
  if (dir_arg(o[0], BOX(self)->dim, &d, "direction") < 0 || (o[1] && bfpy_to_int(o[1], &len, "len") < 0)) return NULL;
  bf_box r;
  int s = bdry ? bf_box_bdry(BOX(self), d, len, high, &r) : bf_box_adj_cell(BOX(self), d, len, high, &r);
  if (bfpy_check(s) < 0) return NULL;
  return bfpy_box_new(&r);
}

static PyObject *box_adj_cell_lo(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return box_side(self, args, nargs, kwnames, false, false);
}
static PyObject *box_adj_cell_hi(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return box_side(self, args, nargs, kwnames, false, true);
}
static PyObject *box_bdry_lo(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return box_side(self, args, nargs, kwnames, true, false);
}
static PyObject *box_bdry_hi(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return box_side(self, args, nargs, kwnames, true, true);
}

/* Extensions: refine / coarsen (ratio: int/IntVect, /), in place. */
static PyObject *box_refine_impl(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                                 bool refine) {
  static const char *const names[] = {"", NULL};
  PyObject *o[1];
  BIND_OR_FAIL(refine ? "Box.refine" : "Box.coarsen", names, 1, o);
  bf_intvect r;
  if (bfpy_as_intvect(o[0], BOX(self)->dim, BFPY_IV_SEQUENCE | BFPY_IV_SCALAR, &r,
                      refine ? "Box.refine ratio" : "Box.coarsen ratio") < 0)
    return NULL;
  return self_or_raise(self, refine ? bf_box_refine(BOX(self), r.v) : bf_box_coarsen(BOX(self), r.v));
}

static PyObject *box_refine(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return box_refine_impl(self, args, nargs, kwnames, true);
}

static PyObject *box_coarsen(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return box_refine_impl(self, args, nargs, kwnames, false);
}

/* ---- operators ---------------------------------------------------------------------- */

/* box ± iv into a new box (inplace == NULL) or self. NotImplemented for non-IntVects. */
static PyObject *box_shift_op(PyObject *a, PyObject *b, bool subtract, bool inplace) {
  if (!bfpy_is(a, BFPY_T_BOX, -1) || !bfpy_is(b, BFPY_T_INTVECT, -1)) Py_RETURN_NOTIMPLEMENTED;
  bf_intvect iv;
  if (bfpy_as_intvect(b, BOX(a)->dim, 0, &iv, subtract ? "Box - IntVect" : "Box + IntVect") < 0) return NULL;
  bf_box r = *BOX(a);
  int status = subtract ? bf_box_shift_iv_neg(&r, iv.v) : bf_box_shift_iv(&r, iv.v);
  if (status != BF_SUCCESS) return bfpy_raise(status);
  if (!inplace) return bfpy_box_new(&r);
  *BOX(a) = r;
  return return_self(a);
}

static PyObject *box_add(PyObject *a, PyObject *b) { return box_shift_op(a, b, false, false); }
static PyObject *box_sub(PyObject *a, PyObject *b) { return box_shift_op(a, b, true, false); }
static PyObject *box_iadd(PyObject *a, PyObject *b) { return box_shift_op(a, b, false, true); }
static PyObject *box_isub(PyObject *a, PyObject *b) { return box_shift_op(a, b, true, true); }

/* Extension: box & box = intersection (a new Box, possibly empty). */
static PyObject *box_and(PyObject *a, PyObject *b) {
  if (!bfpy_is(a, BFPY_T_BOX, -1) || !bfpy_is(b, BFPY_T_BOX, -1)) Py_RETURN_NOTIMPLEMENTED;
  bf_box r;
  if (bfpy_check(bf_box_check_same_type(BOX(a), BOX(b), "Box & Box")) < 0) return NULL;
  bf_box_intersection(BOX(a), BOX(b), &r);
  return bfpy_box_new(&r);
}

/* ---- Dim3 views: methods and module functions -------------------------------------- */

enum box_view { VIEW_LBOUND, VIEW_UBOUND, VIEW_LENGTH, VIEW_BEGIN, VIEW_END };
static const char *const box_view_names[] = {"lbound", "ubound", "length", "begin", "end"};

static PyObject *box_view_dim3(const bf_box *b, enum box_view which) {
  int v[3];
  int status = BF_SUCCESS;
  switch (which) {
  case VIEW_LBOUND:
  case VIEW_BEGIN: bf_box_lbound3(b, v); break;
  case VIEW_UBOUND: bf_box_ubound3(b, v); break;
  case VIEW_LENGTH: status = bf_box_length3(b, v); break;
  case VIEW_END: status = bf_box_end3(b, v); break;
  }
  if (status != BF_SUCCESS) return bfpy_raise(status);
  return bfpy_dim3_new(v[0], v[1], v[2]);
}

/* The Dim3 view `which` of `o`, an object of dimension `dim`. Today a Box; the
 * Array4 overloads of API.md 1.1 add a branch here that describes the Array4's
 * index range as a 3-dim bf_box (lo = begin, hi = end - 1) and falls through. */
static PyObject *dim3_view_of(PyObject *o, int dim, enum box_view which) {
  char what[64];
  snprintf(what, sizeof what, "%s() argument", box_view_names[which]);
  bf_box b;
  if (bfpy_is(o, BFPY_T_BOX, -1)) {
    if (bfpy_as_box(o, dim, &b, what) < 0) return NULL;
    return box_view_dim3(&b, which);
  }
  if (which == VIEW_LBOUND || which == VIEW_UBOUND || which == VIEW_LENGTH) {
    /* Array4 overloads (0 lbound, 1 ubound, 2 length): always three components. */
    PyObject *r = bfpy_array4_bounds(o, dim, (int)which);
    if (r || PyErr_Occurred()) return r;
    PyErr_Format(PyExc_TypeError, "%s must be a Box or an Array4, not %.100s", what, Py_TYPE(o)->tp_name);
    return NULL;
  }
  PyErr_Format(PyExc_TypeError, "%s must be a Box, not %.100s", what, Py_TYPE(o)->tp_name);
  return NULL;
}

static PyObject *view_call(int dim, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                           const char *const *names, enum box_view which) {
  PyObject *o[1];
  BIND_OR_FAIL(box_view_names[which], names, 1, o);
  return dim3_view_of(o[0], dim, which);
}

static const char *const names_posonly[] = {"", NULL};
static const char *const names_box[] = {"box", NULL};

/* Methods: the argument box's view; self only fixes the dimension. */
#define BOX_VIEW_METHOD(fn, which, names)                                                                          \
  static PyObject *fn(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {                \
    return view_call(BOX(self)->dim, args, nargs, kwnames, names, which);                                         \
  }
BOX_VIEW_METHOD(box_m_lbound, VIEW_LBOUND, names_posonly)
BOX_VIEW_METHOD(box_m_ubound, VIEW_UBOUND, names_posonly)
BOX_VIEW_METHOD(box_m_begin, VIEW_BEGIN, names_box)
BOX_VIEW_METHOD(box_m_end, VIEW_END, names_box)

/* Module functions (box, /): the module (self) fixes the dimension. */
#define MODULE_VIEW_FUNC(fn, which)                                                                                \
  static PyObject *fn(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {              \
    return view_call(bfpy_module_dim(module), args, nargs, kwnames, names_posonly, which);                        \
  }
MODULE_VIEW_FUNC(mod_lbound, VIEW_LBOUND)
MODULE_VIEW_FUNC(mod_ubound, VIEW_UBOUND)
MODULE_VIEW_FUNC(mod_length, VIEW_LENGTH)
MODULE_VIEW_FUNC(mod_begin, VIEW_BEGIN)
MODULE_VIEW_FUNC(mod_end, VIEW_END)

/* ---- iterator ------------------------------------------------------------------------- */

/* Walks a snapshot of the box (mutating the box during the loop does not affect it). */
typedef struct {
  PyObject_HEAD bf_box box;
  int p[BF_SPACEDIM_MAX];
  bool more;
} box_iter_object;

static PyTypeObject *box_iter_types[BF_SPACEDIM_MAX + 1];

static PyObject *box_iter(PyObject *self) {
  PyTypeObject *t = box_iter_types[BOX(self)->dim];
  box_iter_object *it = (box_iter_object *)t->tp_alloc(t, 0);
  if (!it) return NULL;
  it->box = *BOX(self);
  it->more = bf_box_iter_begin(&it->box, it->p);
  return (PyObject *)it;
}

static PyObject *box_iter_next(PyObject *self) {
  box_iter_object *it = (box_iter_object *)self;
  if (!it->more) return NULL; /* StopIteration */
  PyObject *r = intvect_from(it->box.dim, it->p);
  if (r) it->more = bf_box_iter_next(&it->box, it->p);
  return r;
}

static PyType_Slot box_iter_slots[] = {
    {Py_tp_doc, "Iterator over the points of a Box (first direction fastest), yielding IntVects."},
    {Py_tp_iter, PyObject_SelfIter},
    {Py_tp_iternext, box_iter_next},
    {0, NULL},
};

static PyType_Spec box_iter_spec = {.name = "BoxIterator",
                                    .basicsize = sizeof(box_iter_object),
                                    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
                                    .slots = box_iter_slots};

/* ---- type ------------------------------------------------------------------------------- */

#define FASTKW METH_FASTCALL | METH_KEYWORDS
#define FAST(fn) (PyCFunction)(void (*)(void))(fn)

static PyMethodDef box_methods[] = {
    {"length", FAST(box_length), FASTKW, "length() -> IntVect of lengths; length(dir: int) -> int."},
    {"numPts", box_numPts, METH_NOARGS, "numPts() -> int: number of points (0 when empty)."},
    {"contains", FAST(box_contains), FASTKW, "contains(p: IntVect) -> bool: p inside the box."},
    {"strictly_contains", FAST(box_strictly_contains), FASTKW,
     "strictly_contains(p: IntVect) -> bool: p inside and not on the boundary."},
    {"intersects", FAST(box_intersects), FASTKW,
     "intersects(b: Box) -> bool: non-empty intersection. ValueError when the index types differ."},
    {"same_size", FAST(box_same_size), FASTKW,
     "same_size(b: Box) -> bool: equal lengths. ValueError when the index types differ."},
    {"same_type", FAST(box_same_type), FASTKW, "same_type(b: Box) -> bool: equal index types."},
    {"normalize", box_normalize, METH_NOARGS,
     "normalize() -> None: AMReX Box::normalize(), grow the big end by 1 in each direction whose length is 0 "
     "(corners are never swapped)."},
    {"shift", FAST(box_shift), FASTKW,
     "shift(dir: int, nzones: int) / shift(iv: IntVect) -> Box: translate in place, return self."},
    {"convert", FAST(box_convert), FASTKW,
     "convert(typ: IndexType/IntVect) -> Box: change the index type in place (CELL->NODE adds 1 to the big "
     "end, NODE->CELL subtracts 1), return self."},
    {"grow", FAST(box_grow), FASTKW,
     "grow(n_cell: int) / grow(n_cells: IntVect) / grow(idir: int, n_cell: int) / grow(d: Direction, n_cell: "
     "int) -> Box: grow both ends in place (negative shrinks), return self. A Direction carries no value: "
     "TypeError."},
    {"grow_low", FAST(box_grow_low), FASTKW,
     "grow_low(idir: int, n_cell: int = 1) -> Box: move the small end down in place, return self."},
    {"grow_high", FAST(box_grow_high), FASTKW,
     "grow_high(idir: int, n_cell: int = 1) -> Box: move the big end up in place, return self."},
    {"surrounding_nodes", FAST(box_surrounding_nodes), FASTKW,
     "surrounding_nodes() / surrounding_nodes(dir: int) -> Box: make NODE (all or one direction) in place."},
    {"enclosed_cells", FAST(box_enclosed_cells), FASTKW,
     "enclosed_cells() / enclosed_cells(dir: int) -> Box: make CELL (all or one direction) in place."},
    {"make_slab", FAST(box_make_slab), FASTKW,
     "make_slab(direction: int, slab_index: int) -> Box: flatten to one index in place, return self."},
    {"refine", FAST(box_refine), FASTKW,
     "refine(ratio: int/IntVect, /) -> Box: refine in place, return self (boxfab extension)."},
    {"coarsen", FAST(box_coarsen), FASTKW,
     "coarsen(ratio: int/IntVect, /) -> Box: coarsen in place with floor division, return self (boxfab "
     "extension)."},
    {"chop", FAST(box_chop), FASTKW,
     "chop(dir: int, chop_pnt: int) -> Box: boxfab extension, AMReX's Box::chop: self keeps the part below "
     "chop_pnt (CELL in dir: ends at chop_pnt - 1; NODE: ends at chop_pnt), the returned new Box starts at "
     "chop_pnt. ValueError unless small < chop_pnt <= big (NODE: < big)."},
    {"adj_cell_lo", FAST(box_adj_cell_lo), FASTKW,
     "adj_cell_lo(dir: int, len: int = 1) -> Box: boxfab extension, AMReX's adjCellLo: the len cells below the "
     "low face in dir (CELL in dir); a new Box."},
    {"adj_cell_hi", FAST(box_adj_cell_hi), FASTKW,
     "adj_cell_hi(dir: int, len: int = 1) -> Box: boxfab extension, AMReX's adjCellHi: the len cells above the "
     "high face in dir (CELL in dir); a new Box."},
    {"bdry_lo", FAST(box_bdry_lo), FASTKW,
     "bdry_lo(dir: int, len: int = 1) -> Box: boxfab extension, AMReX's bdryLo: len nodes ending at the low "
     "face in dir (NODE in dir); a new Box; len >= 1 (ValueError otherwise)."},
    {"bdry_hi", FAST(box_bdry_hi), FASTKW,
     "bdry_hi(dir: int, len: int = 1) -> Box: boxfab extension, AMReX's bdryHi: len nodes starting at the high "
     "face in dir (NODE in dir); a new Box; len >= 1 (ValueError otherwise)."},
    {"lbound", FAST(box_m_lbound), FASTKW, "lbound(other: Box, /) -> Dim3: small end of other (self ignored)."},
    {"ubound", FAST(box_m_ubound), FASTKW, "ubound(other: Box, /) -> Dim3: big end of other (self ignored)."},
    {"begin", FAST(box_m_begin), FASTKW, "begin(box: Box) -> Dim3: small end of box (self ignored)."},
    {"end", FAST(box_m_end), FASTKW, "end(box: Box) -> Dim3: big end + 1 of box (self ignored)."},
    {"__str", box_str_method, METH_NOARGS, "Text form ((small) (big) (type))."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot box_slots[] = {
    {Py_tp_doc, "Box(small, big[, typ | t]): a rectangular region of the index space, both corners inclusive.\n"
                "No default constructor. small/big: IntVect or a sequence of N ints (list, tuple, range, NumPy array);\n"
                "typ: 0/1 IntVect; t: IndexType."},
    {Py_tp_new, box_tp_new},
    {Py_tp_init, box_tp_init},
    {Py_tp_repr, box_repr},
    {Py_tp_str, box_str},
    {Py_tp_richcompare, box_richcompare},
    {Py_tp_hash, PyObject_HashNotImplemented},
    {Py_tp_iter, box_iter},
    {Py_tp_getset, box_getset},
    {Py_tp_methods, box_methods},
    {Py_nb_add, box_add},
    {Py_nb_subtract, box_sub},
    {Py_nb_inplace_add, box_iadd},
    {Py_nb_inplace_subtract, box_isub},
    {Py_nb_and, box_and},
    {0, NULL},
};

static PyType_Spec box_spec = {.name = "Box",
                               .basicsize = sizeof(bfpy_box_object),
                               .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                               .slots = box_slots};

static PyMethodDef box_module_functions[] = {
    {"lbound", FAST(mod_lbound), FASTKW, "lbound(box: Box, /) -> Dim3: small end (0 for missing dims)."},
    {"ubound", FAST(mod_ubound), FASTKW, "ubound(box: Box, /) -> Dim3: big end, inclusive (0 for missing dims)."},
    {"length", FAST(mod_length), FASTKW, "length(box: Box, /) -> Dim3: lengths (1 for missing dims)."},
    {"begin", FAST(mod_begin), FASTKW, "begin(box: Box, /) -> Dim3: same as lbound."},
    {"end", FAST(mod_end), FASTKW, "end(box: Box, /) -> Dim3: ubound + 1 (1 for missing dims)."},
    {NULL, NULL, 0, NULL},
};

int bfpy_init_box(PyObject *m, int dim) {
  if (!bfpy_make_type(m, dim, BFPY_T_BOX, "Box", &box_spec, NULL)) return -1;
  box_iter_types[dim] = bfpy_make_type(NULL, dim, BFPY_T_BOX, "BoxIterator", &box_iter_spec, NULL);
  if (!box_iter_types[dim]) return -1;
  return PyModule_AddFunctions(m, box_module_functions);
}
