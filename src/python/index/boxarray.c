/* boxfab._core: family "boxarray": BoxArray and DistributionMapping (API.md
 * 1.10, 1.11), one type per dimension.  All algorithms are in the C core
 * (src/core/boxarray*.c, distmap*.c); this file converts arguments and
 * results.
 *
 * A Python BoxArray holds one reference to a bf_boxarray (never NULL).  Its
 * in-place methods change it through the copy-on-write C API, so a MultiFab
 * or another holder of the same C array never sees a change.  A Python
 * DistributionMapping holds one reference to an immutable bf_distmap (NULL
 * for an empty map); define() swaps it for a new one, and the copy
 * constructor shares it (link_count counts the sharers, as in AMReX).
 *
 * Extensions beyond API.md (documented in the docstrings): BoxArray(list of
 * Boxes), BoxArray(other BoxArray), __len__, __iter__, __eq__, __repr__,
 * intersections(), intersects(), contains(), surrounding_nodes(), convert(),
 * grow(), grow_low(), grow_high(), shift() (AMReX's BoxArray members of those
 * names, not bound by pyAMReX); coarsenable's min_width defaults to 1
 * (AMReX's default);
 * DistributionMapping(..., strategy="sfc"|"roundrobin"|"knapsack"),
 * __len__, __iter__, __eq__, __repr__. */
#include "bfpy.h"

#define BA(o) (((bfpy_boxarray_object *)(o))->ba)
#define BADIM(o) (((bfpy_boxarray_object *)(o))->dim)
#define DM(o) (((bfpy_distmap_object *)(o))->dm)
#define DMDIM(o) (((bfpy_distmap_object *)(o))->dim)

static PyObject *ret_self(PyObject *self) { return Py_NewRef(self); }

/* A sequence or iterable that is not text (Vector_int, lists, generators...). */
static bool is_iterable(PyObject *o) {
  return !PyUnicode_Check(o) && !PyBytes_Check(o) && (PySequence_Check(o) || Py_TYPE(o)->tp_iter != NULL);
}

/* AMReX's text form of a box: ((lo) (hi) (type)). */
/* ==== BoxArray ============================================================================ */

static PyObject *ba_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
  (void)args, (void)kwds;
  int dim = bfpy_type_dim(type, BFPY_T_BOXARRAY);
  if (dim < 1) {
    PyErr_Format(PyExc_TypeError, "%s is not a BoxArray type", type->tp_name);
    return NULL;
  }
  bf_boxarray *ba = NULL;
  if (bfpy_check(bf_boxarray_create(dim, &ba)) < 0) return NULL;
  PyObject *self = type->tp_alloc(type, 0);
  if (!self) {
    bf_boxarray_destroy(&ba);
    return NULL;
  }
  BADIM(self) = dim;
  BA(self) = ba;
  return self;
}

static void ba_dealloc(PyObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  bf_boxarray_destroy(&BA(self));
  tp->tp_free(self);
  Py_DECREF(tp);
}

/* Replace self's array by `ba` (owned). */
static void ba_set(PyObject *self, bf_boxarray *ba) {
  bf_boxarray *old = BA(self);
  BA(self) = ba;
  bf_boxarray_destroy(&old);
}

/* A new array from a sequence of Boxes of dimension dim. */
static int check_box_item(PyObject *item, void *ctx, const char *what) {
  bf_box b;
  return bfpy_as_box(item, *(const int *)ctx, &b, what);
}

static int ba_from_sequence(PyObject *seq_in, int dim, bf_boxarray **out) {
  PyObject *seq = bfpy_fast_sequence(seq_in, PY_SSIZE_T_MAX / (Py_ssize_t)sizeof(bf_box), check_box_item, &dim,
                                     "BoxArray(boxes) item", "Boxes");
  if (!seq) return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  bf_box *boxes = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof *boxes);
  int r = -1;
  if (!boxes) {
    PyErr_NoMemory();
    goto done;
  }
  for (Py_ssize_t i = 0; i < n; ++i)
    if (bfpy_as_box(PySequence_Fast_GET_ITEM(seq, i), dim, &boxes[i], "BoxArray(boxes) item") < 0) goto done;
  r = bfpy_check(bf_boxarray_create_from_boxes(dim, n, boxes, out));
done:
  PyMem_Free(boxes);
  Py_DECREF(seq);
  return r;
}

static int ba_init(PyObject *self, PyObject *args, PyObject *kwds) {
  int dim = BADIM(self);
  static const char *sigs = "BoxArray(), BoxArray(b: Box, /), BoxArray(b: Box, n: int, /), extensions: "
                            "BoxArray(boxes: list[Box], /), BoxArray(other: BoxArray, /)";
  if (kwds && PyDict_GET_SIZE(kwds)) {
    PyErr_Format(PyExc_TypeError, "BoxArray() takes positional arguments only; supported signatures: %s", sigs);
    return -1;
  }
  Py_ssize_t n = PyTuple_GET_SIZE(args);
  PyObject *a0 = n > 0 ? PyTuple_GET_ITEM(args, 0) : NULL;
  bf_boxarray *ba = NULL;
  if (n == 0) {
    if (bfpy_check(bf_boxarray_create(dim, &ba)) < 0) return -1;
  } else if (n <= 2 && bfpy_is(a0, BFPY_T_BOX, -1)) {
    bf_box box;
    int count = 1;
    if (bfpy_as_box(a0, dim, &box, "BoxArray(b)") < 0) return -1;
    if (n == 2 && bfpy_to_int(PyTuple_GET_ITEM(args, 1), &count, "BoxArray(b, n): n") < 0) return -1;
    if (count != 0 && count != 1) {
      PyErr_Format(PyExc_ValueError,
                   "BoxArray(b, n): n is the length of a C array of boxes; only 0 or 1 is meaningful with one Box, "
                   "got %d",
                   count);
      return -1;
    }
    /* n = 0: no box, but the box's index type (AMReX's BoxArray(const Box*, int)) */
    int s = count == 1 ? bf_boxarray_create_box(&box, &ba) : bf_boxarray_create_typed(dim, box.type, &ba);
    if (bfpy_check(s) < 0) return -1;
  } else if (n == 1 && bfpy_is(a0, BFPY_T_BOXARRAY, -1)) {
    bf_boxarray *other = bfpy_as_boxarray(a0, dim, "BoxArray(other)");
    if (!other) return -1;
    ba = bf_boxarray_retain(other); /* shared: copy on write keeps them apart */
  } else if (n == 1 && is_iterable(a0)) {
    if (ba_from_sequence(a0, dim, &ba) < 0) return -1;
  } else {
    PyErr_Format(PyExc_TypeError, "BoxArray(): incompatible arguments; supported signatures: %s", sigs);
    return -1;
  }
  ba_set(self, ba);
  return 0;
}

/* ---- properties ---- */
static PyObject *ba_get_size(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLongLong(bf_boxarray_size(BA(self)));
}
static PyObject *ba_get_capacity(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLongLong(bf_boxarray_capacity(BA(self)));
}
static PyObject *ba_get_empty(PyObject *self, void *c) {
  (void)c;
  return PyBool_FromLong(bf_boxarray_size(BA(self)) == 0);
}
static PyObject *ba_get_numpts(PyObject *self, void *c) {
  (void)c;
  int64_t n = 0;
  if (bfpy_check(bf_boxarray_numpts(BA(self), &n)) < 0) return NULL;
  return PyLong_FromLongLong(n);
}
static PyObject *ba_get_d_numpts(PyObject *self, void *c) {
  (void)c;
  return PyFloat_FromDouble(bf_boxarray_d_numpts(BA(self)));
}

static PyGetSetDef ba_getset[] = {
    {"size", ba_get_size, NULL, "Number of boxes.", NULL},
    {"capacity", ba_get_capacity, NULL,
     "AMReX's capacity() (its std::vector of boxes, modelled): 0 for BoxArray() and after clear(), 1 after "
     "define(b), the next power of 2 >= size after a max_size that chopped.", NULL},
    {"empty", ba_get_empty, NULL, "True when there is no box.", NULL},
    {"numPts", ba_get_numpts, NULL, "Total number of points (int; a property here, unlike Box.numPts()).", NULL},
    {"d_numPts", ba_get_d_numpts, NULL, "Total number of points as a float.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* ---- methods ---- */

/* Exactly `n` positional arguments, no keywords. */
static int ba_args(const char *func, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, int nmin, int nmax,
                   const char *sigs) {
  (void)args;
  if ((kwnames && PyTuple_GET_SIZE(kwnames)) || nargs < nmin || nargs > nmax) {
    PyErr_Format(PyExc_TypeError, "%s(): takes positional arguments only; supported signatures: %s", func, sigs);
    return -1;
  }
  return 0;
}

/* An int or an IntVect (or a list/tuple of dim ints) for a per-direction value. */
static int ba_intvect_arg(PyObject *o, int dim, bf_intvect *out, const char *what) {
  return bfpy_as_intvect(o, dim, BFPY_IV_SCALAR | BFPY_IV_SEQUENCE, out, what);
}

static PyObject *ba_define(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  if (ba_args("define", args, nargs, kwnames, 1, 1, "define(b: Box, /)") < 0) return NULL;
  bf_box box;
  if (bfpy_as_box(args[0], BADIM(self), &box, "define(b)") < 0) return NULL;
  if (bfpy_check(bf_boxarray_define(&BA(self), &box)) < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject *ba_clear(PyObject *self, PyObject *noargs) {
  (void)noargs;
  if (bfpy_check(bf_boxarray_clear(&BA(self))) < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject *ba_resize(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  if (ba_args("resize", args, nargs, kwnames, 1, 1, "resize(n: int, /)") < 0) return NULL;
  int64_t n;
  if (bfpy_to_int64(args[0], &n, "resize(n)") < 0) return NULL;
  if (bfpy_check(bf_boxarray_resize(&BA(self), n)) < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject *ba_cell_equal(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  if (ba_args("cell_equal", args, nargs, kwnames, 1, 1, "cell_equal(other: BoxArray, /)") < 0) return NULL;
  bf_boxarray *other = bfpy_as_boxarray(args[0], BADIM(self), "cell_equal(other)");
  if (!other) return NULL;
  return PyBool_FromLong(bf_boxarray_cell_equal(BA(self), other));
}

static PyObject *ba_max_size(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  if (ba_args("max_size", args, nargs, kwnames, 1, 1, "max_size(n: int/IntVect, /)") < 0) return NULL;
  bf_intvect n;
  if (ba_intvect_arg(args[0], BADIM(self), &n, "max_size(n)") < 0) return NULL;
  if (bfpy_check(bf_boxarray_max_size(&BA(self), n.v)) < 0) return NULL;
  return ret_self(self);
}

static PyObject *ba_refine(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  if (ba_args("refine", args, nargs, kwnames, 1, 1, "refine(ratio: int/IntVect, /)") < 0) return NULL;
  bf_intvect r;
  if (ba_intvect_arg(args[0], BADIM(self), &r, "refine(ratio)") < 0) return NULL;
  if (bfpy_check(bf_boxarray_refine(&BA(self), r.v)) < 0) return NULL;
  return ret_self(self);
}

static PyObject *ba_coarsen(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  if (ba_args("coarsen", args, nargs, kwnames, 1, 1, "coarsen(ratio: int/IntVect, /)") < 0) return NULL;
  bf_intvect r;
  if (ba_intvect_arg(args[0], BADIM(self), &r, "coarsen(ratio)") < 0) return NULL;
  if (bfpy_check(bf_boxarray_coarsen(&BA(self), r.v)) < 0) return NULL;
  return ret_self(self);
}

static PyObject *ba_coarsenable(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *sigs = "coarsenable(ratio: int, min_width: int = 1, /), coarsenable(ratio: IntVect, "
                            "min_width: int = 1, /), coarsenable(ratio: IntVect, min_width: IntVect, /)";
  if (ba_args("coarsenable", args, nargs, kwnames, 1, 2, sigs) < 0) return NULL;
  int dim = BADIM(self);
  bf_intvect r, w = bf_intvect_splat(dim, 1);
  if (ba_intvect_arg(args[0], dim, &r, "coarsenable(ratio)") < 0) return NULL;
  if (nargs == 2 && ba_intvect_arg(args[1], dim, &w, "coarsenable(min_width)") < 0) return NULL;
  bool ok = false;
  if (bfpy_check(bf_boxarray_coarsenable(BA(self), r.v, w.v, &ok)) < 0) return NULL;
  return PyBool_FromLong(ok);
}

/* Optional direction argument: -1 (all) when absent; IndexError outside [0, dim). */
static int ba_dir_arg(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, const char *func,
                      const char *sigs, int *dir) {
  if (ba_args(func, args, nargs, kwnames, 0, 1, sigs) < 0) return -1;
  *dir = -1;
  if (nargs == 0) return 0;
  if (bfpy_to_int(args[0], dir, "direction") < 0) return -1;
  if (*dir < 0 || *dir >= BADIM(self)) {
    PyErr_Format(PyExc_IndexError, "%s(): direction %d out of range [0, %d)", func, *dir, BADIM(self));
    return -1;
  }
  return 0;
}

static PyObject *ba_enclosed_cells(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  int dir;
  if (ba_dir_arg(self, args, nargs, kwnames, "enclosed_cells", "enclosed_cells(), enclosed_cells(dir: int, /)", &dir) <
      0)
    return NULL;
  if (bfpy_check(bf_boxarray_enclosed_cells(&BA(self), dir)) < 0) return NULL;
  return ret_self(self);
}

static PyObject *ba_surrounding_nodes(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  int dir;
  if (ba_dir_arg(self, args, nargs, kwnames, "surrounding_nodes", "surrounding_nodes(), surrounding_nodes(dir: int, /)",
                 &dir) < 0)
    return NULL;
  if (bfpy_check(bf_boxarray_surrounding_nodes(&BA(self), dir)) < 0) return NULL;
  return ret_self(self);
}

static PyObject *ba_convert(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *sigs = "convert(typ: IndexType, /), convert(typ: IntVect, /)";
  if (ba_args("convert", args, nargs, kwnames, 1, 1, sigs) < 0) return NULL;
  int dim = BADIM(self);
  unsigned type = 0;
  if (bfpy_is(args[0], BFPY_T_INDEXTYPE, -1)) {
    if (bfpy_as_indextype(args[0], dim, &type, "convert(typ)") < 0) return NULL;
  } else {
    bf_intvect iv;
    if (bfpy_as_intvect(args[0], dim, BFPY_IV_SEQUENCE, &iv, "convert(typ)") < 0) return NULL;
    for (int d = 0; d < dim; ++d) {
      if (iv.v[d] != 0 && iv.v[d] != 1) {
        PyErr_Format(PyExc_ValueError, "convert(typ): IntVect components must be 0 (CELL) or 1 (NODE), got %d",
                     iv.v[d]);
        return NULL;
      }
      type |= (unsigned)iv.v[d] << d;
    }
  }
  if (bfpy_check(bf_boxarray_convert(&BA(self), type)) < 0) return NULL;
  return ret_self(self);
}

/* grow(n: int/IntVect, /) / grow(idir: int, n_cell: int, /) and grow_low / grow_high(idir: int, n_cell: int = 1, /):
 * which = 0 both ends, 1 low end, 2 high end. */
static PyObject *ba_grow_impl(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, int which) {
  static const char *const funcs[] = {"grow", "grow_low", "grow_high"};
  static const char *const sigs[] = {"grow(n: int/IntVect, /), grow(idir: int, n_cell: int, /)",
                                     "grow_low(idir: int, n_cell: int = 1, /)", "grow_high(idir: int, n_cell: int = 1, /)"};
  const char *func = funcs[which];
  if (ba_args(func, args, nargs, kwnames, 1, 2, sigs[which]) < 0) return NULL;
  int dim = BADIM(self);
  bf_intvect lo = bf_intvect_splat(dim, 0), hi = bf_intvect_splat(dim, 0);
  if (which == 0 && nargs == 1) {
    if (ba_intvect_arg(args[0], dim, &lo, "grow(n)") < 0) return NULL;
    hi = lo;
  } else {
    int d, n = 1;
    if (bfpy_to_int(args[0], &d, "direction") < 0) return NULL;
    if (d < 0 || d >= dim) {
      PyErr_Format(PyExc_IndexError, "%s(): direction %d out of range [0, %d)", func, d, dim);
      return NULL;
    }
    if (nargs == 2 && bfpy_to_int(args[1], &n, "n_cell") < 0) return NULL;
    if (which != 2) lo.v[d] = n;
    if (which != 1) hi.v[d] = n;
  }
  if (bfpy_check(bf_boxarray_grow(&BA(self), lo.v, hi.v)) < 0) return NULL;
  return ret_self(self);
}

static PyObject *ba_grow(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return ba_grow_impl(self, args, nargs, kwnames, 0);
}
static PyObject *ba_grow_low(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return ba_grow_impl(self, args, nargs, kwnames, 1);
}
static PyObject *ba_grow_high(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return ba_grow_impl(self, args, nargs, kwnames, 2);
}

/* shift(dir: int, nzones: int, /) / shift(iv: IntVect, /). */
static PyObject *ba_shift(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *sigs = "shift(dir: int, nzones: int, /), shift(iv: IntVect, /)";
  if (ba_args("shift", args, nargs, kwnames, 1, 2, sigs) < 0) return NULL;
  int dim = BADIM(self);
  bf_intvect s = bf_intvect_splat(dim, 0);
  if (nargs == 1) {
    if (bfpy_is_intlike(args[0]) && !PySequence_Check(args[0])) {
      PyErr_Format(PyExc_TypeError, "shift(): incompatible arguments; supported signatures: %s", sigs);
      return NULL;
    }
    if (bfpy_as_intvect(args[0], dim, BFPY_IV_SEQUENCE, &s, "shift(iv)") < 0) return NULL;
  } else {
    int d, n;
    if (bfpy_to_int(args[0], &d, "direction") < 0 || bfpy_to_int(args[1], &n, "nzones") < 0) return NULL;
    if (d < 0 || d >= dim) {
      PyErr_Format(PyExc_IndexError, "shift(): direction %d out of range [0, %d)", d, dim);
      return NULL;
    }
    s.v[d] = n;
  }
  if (bfpy_check(bf_boxarray_shift(&BA(self), s.v)) < 0) return NULL;
  return ret_self(self);
}

static PyObject *ba_item(PyObject *self, Py_ssize_t i) {
  bf_box box;
  int64_t n = bf_boxarray_size(BA(self));
  if (i < 0 || i >= n) {
    PyErr_Format(PyExc_IndexError, "BoxArray index %zd out of range for %lld boxes", i, (long long)n);
    return NULL;
  }
  if (bfpy_check(bf_boxarray_get(BA(self), i, &box)) < 0) return NULL;
  return bfpy_box_new(&box);
}

static PyObject *ba_subscript(PyObject *self, PyObject *key) {
  if (!bfpy_is_intlike(key)) {
    PyErr_Format(PyExc_TypeError, "BoxArray indices must be integers, not %.100s", Py_TYPE(key)->tp_name);
    return NULL;
  }
  Py_ssize_t i = PyNumber_AsSsize_t(key, PyExc_IndexError), j;
  if (i == -1 && PyErr_Occurred()) return NULL;
  if (bfpy_index(i, (Py_ssize_t)bf_boxarray_size(BA(self)), &j, "BoxArray") < 0) return NULL;
  return ba_item(self, j);
}

static Py_ssize_t ba_len(PyObject *self) { return (Py_ssize_t)bf_boxarray_size(BA(self)); }

static PyObject *ba_get(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  if (ba_args("get", args, nargs, kwnames, 1, 1, "get(i: int, /)") < 0) return NULL;
  int64_t i;
  if (bfpy_to_int64(args[0], &i, "get(i)") < 0) return NULL;
  bf_box box;
  if (bfpy_check(bf_boxarray_get(BA(self), i, &box)) < 0) return NULL;
  return bfpy_box_new(&box);
}

static PyObject *ba_minimal_box(PyObject *self, PyObject *noargs) {
  (void)noargs;
  bf_box box;
  bf_boxarray_minimal_box(BA(self), &box);
  return bfpy_box_new(&box);
}

static PyObject *ba_ix_type(PyObject *self, PyObject *noargs) {
  (void)noargs;
  return bfpy_indextype_new(BADIM(self), bf_boxarray_ix_type(BA(self)));
}

static PyObject *ba_intersections(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  if (ba_args("intersections", args, nargs, kwnames, 1, 1, "intersections(bx: Box, /)") < 0) return NULL;
  bf_box q;
  if (bfpy_as_box(args[0], BADIM(self), &q, "intersections(bx)") < 0) return NULL;
  bf_isect_list l = {0};
  if (bfpy_check(bf_boxarray_intersections(BA(self), &q, false, &l)) < 0) return NULL;
  PyObject *res = PyList_New((Py_ssize_t)l.count);
  for (int64_t k = 0; res && k < l.count; ++k) {
    PyObject *b = bfpy_box_new(&l.box[k]);
    PyObject *t = b ? Py_BuildValue("(LN)", (long long)l.index[k], b) : NULL;
    if (!t)
      Py_CLEAR(res);
    else
      PyList_SET_ITEM(res, (Py_ssize_t)k, t);
  }
  bf_isect_list_free(&l);
  return res;
}

static PyObject *ba_intersects(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  if (ba_args("intersects", args, nargs, kwnames, 1, 1, "intersects(bx: Box, /)") < 0) return NULL;
  bf_box q;
  bool r = false;
  if (bfpy_as_box(args[0], BADIM(self), &q, "intersects(bx)") < 0) return NULL;
  if (bfpy_check(bf_boxarray_intersects(BA(self), &q, &r)) < 0) return NULL;
  return PyBool_FromLong(r);
}

static PyObject *ba_contains(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *sigs = "contains(bx: Box, /), contains(p: IntVect, /)";
  if (ba_args("contains", args, nargs, kwnames, 1, 1, sigs) < 0) return NULL;
  int dim = BADIM(self);
  bool r = false;
  if (bfpy_is(args[0], BFPY_T_BOX, -1)) {
    bf_box q;
    if (bfpy_as_box(args[0], dim, &q, "contains(bx)") < 0) return NULL;
    if (bfpy_check(bf_boxarray_contains(BA(self), &q, &r)) < 0) return NULL;
  } else {
    bf_intvect p;
    if (bfpy_as_intvect(args[0], dim, BFPY_IV_SEQUENCE, &p, "contains(p)") < 0) return NULL;
    if (bfpy_check(bf_boxarray_contains_point(BA(self), p.v, &r)) < 0) return NULL;
  }
  return PyBool_FromLong(r);
}

static PyObject *ba_richcompare(PyObject *a, PyObject *b, int op) {
  if ((op != Py_EQ && op != Py_NE) || !bfpy_is(b, BFPY_T_BOXARRAY, -1)) Py_RETURN_NOTIMPLEMENTED;
  bool eq = BADIM(a) == BADIM(b) && bf_boxarray_equal(BA(a), BA(b));
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static PyObject *ba_repr(PyObject *self) {
  const bf_boxarray *ba = BA(self);
  int64_t n = bf_boxarray_size(ba);
  PyObject *parts = PyList_New(0);
  if (!parts) return NULL;
  for (int64_t i = 0; i < n && i < 4; ++i) {
    char buf[BFPY_BOX_TEXT_SIZE];
    bfpy_box_text(&bf_boxarray_data(ba)[i], buf, sizeof buf);
    PyObject *s = PyUnicode_FromString(buf);
    if (!s || PyList_Append(parts, s) < 0) {
      Py_XDECREF(s);
      Py_DECREF(parts);
      return NULL;
    }
    Py_DECREF(s);
  }
  PyObject *sep = PyUnicode_FromString(" ");
  PyObject *joined = sep ? PyUnicode_Join(sep, parts) : NULL;
  Py_XDECREF(sep);
  Py_DECREF(parts);
  if (!joined) return NULL;
  PyObject *r =
      PyUnicode_FromFormat("<BoxArray%dD of %lld boxes: %U%s>", BADIM(self), (long long)n, joined, n > 4 ? " ..." : "");
  Py_DECREF(joined);
  return r;
}

#define BA_FAST(name, fn, doc)                                                                                         \
  { name, (PyCFunction)(void (*)(void))fn, METH_FASTCALL | METH_KEYWORDS, doc }

static PyMethodDef ba_methods[] = {
    BA_FAST("define", ba_define, "define(b: Box, /) -> None: reset to the single box b."),
    {"clear", ba_clear, METH_NOARGS,
     "clear() -> None: remove all boxes; the index type becomes CELL (AMReX's clear() resets the BoxArray)."},
    BA_FAST("resize", ba_resize,
            "resize(n: int, /) -> None: change the number of boxes; new boxes are AMReX's Box() in the array's "
            "index type: small end 1, big end 0 (1 in nodal directions)."),
    BA_FAST("cell_equal", ba_cell_equal,
            "cell_equal(other: BoxArray, /) -> bool: same boxes once both are converted to cell type."),
    BA_FAST("max_size", ba_max_size,
            "max_size(n: int/IntVect, /) -> BoxArray: in place, chop every box so that no side has more than n "
            "cells (n >= 1), exactly as AMReX's BoxList::maxSize (same boxes, same order): e.g. 14 cells with "
            "n = 6 give 6, 4, 4; in a nodal direction the cells are chopped and neighbours share their boundary "
            "node."),
    BA_FAST("refine", ba_refine, "refine(ratio: int/IntVect, /) -> BoxArray: in place, refine every box."),
    BA_FAST("coarsen", ba_coarsen,
            "coarsen(ratio: int/IntVect, /) -> BoxArray: in place, coarsen every box (floor division)."),
    BA_FAST("coarsenable", ba_coarsenable,
            "coarsenable(ratio: int/IntVect, min_width: int/IntVect = 1, /) -> bool: every box coarsens exactly "
            "by ratio and each side has >= ratio * min_width points (AMReX's Box::coarsenable).  An empty "
            "BoxArray is not coarsenable (AMReX).  ratio >= 1, min_width >= 0 (ValueError otherwise)."),
    BA_FAST("enclosed_cells", ba_enclosed_cells,
            "enclosed_cells() / enclosed_cells(dir: int, /) -> BoxArray: in place, convert to CELL (all or one "
            "direction)."),
    BA_FAST("surrounding_nodes", ba_surrounding_nodes,
            "surrounding_nodes() / surrounding_nodes(dir: int, /) -> BoxArray: extension, in place, convert to "
            "NODE."),
    BA_FAST("surroundingNodes", ba_surrounding_nodes,
            "surroundingNodes() / surroundingNodes(dir: int, /) -> BoxArray: pyAMReX 26's spelling of "
            "surrounding_nodes."),
    BA_FAST("enclosedCells", ba_enclosed_cells,
            "enclosedCells() / enclosedCells(dir: int, /) -> BoxArray: pyAMReX 26's spelling of enclosed_cells."),
    BA_FAST("convert", ba_convert,
            "convert(typ: IndexType/IntVect, /) -> BoxArray: extension, in place, convert to an index type."),
    BA_FAST("grow", ba_grow,
            "grow(n: int/IntVect, /) / grow(idir: int, n_cell: int, /) -> BoxArray: extension, in place, grow every "
            "box at both ends (all directions or one; negative shrinks), as AMReX's BoxArray::grow."),
    BA_FAST("grow_low", ba_grow_low,
            "grow_low(idir: int, n_cell: int = 1, /) -> BoxArray: extension, in place, move every small end down "
            "(AMReX's BoxArray::growLo)."),
    BA_FAST("grow_high", ba_grow_high,
            "grow_high(idir: int, n_cell: int = 1, /) -> BoxArray: extension, in place, move every big end up "
            "(AMReX's BoxArray::growHi)."),
    BA_FAST("shift", ba_shift,
            "shift(dir: int, nzones: int, /) / shift(iv: IntVect, /) -> BoxArray: extension, in place, translate "
            "every box (AMReX's BoxArray::shift)."),
    BA_FAST("get", ba_get, "get(i: int, /) -> Box: box i, 0 <= i < size (no negative indexing)."),
    {"minimal_box", ba_minimal_box, METH_NOARGS,
     "minimal_box() -> Box: smallest box containing all boxes, empty ones included (AMReX's minimalBox); "
     "AMReX's Box() in the array's type when there is none."},
    {"ix_type", ba_ix_type, METH_NOARGS, "ix_type() -> IndexType: index type of the boxes."},
    BA_FAST("intersections", ba_intersections,
            "intersections(bx: Box, /) -> list[tuple[int, Box]]: extension, every (i, self[i] & bx) with a "
            "non-empty intersection, by increasing i.  Uses a cached spatial hash (not a loop over all boxes)."),
    BA_FAST("intersects", ba_intersects, "intersects(bx: Box, /) -> bool: extension, some box meets bx."),
    BA_FAST("contains", ba_contains,
            "contains(bx: Box/p: IntVect, /) -> bool: extension, every point of bx (or the point p) lies in the "
            "union of the boxes."),
    {NULL, NULL, 0, NULL},
};

static PyType_Slot ba_slots[] = {
    {Py_tp_doc, "BoxArray(): a reference-counted array of Boxes of one index type.\n"
                "BoxArray() / BoxArray(b: Box, /) / BoxArray(b: Box, n: int, /) (n = 1: one box, 0: none).\n"
                "Extensions: BoxArray(boxes: list[Box], /), BoxArray(other: BoxArray, /) (shares the boxes; "
                "copy on write keeps the two apart).  Mutating methods act in place and return the BoxArray."},
    {Py_tp_new, ba_new},
    {Py_tp_init, ba_init},
    {Py_tp_dealloc, ba_dealloc},
    {Py_tp_repr, ba_repr},
    {Py_tp_richcompare, ba_richcompare},
    {Py_tp_hash, PyObject_HashNotImplemented},
    {Py_tp_iter, PySeqIter_New},
    {Py_tp_getset, ba_getset},
    {Py_tp_methods, ba_methods},
    {Py_sq_length, ba_len},
    {Py_sq_item, ba_item},
    {Py_mp_length, ba_len},
    {Py_mp_subscript, ba_subscript},
    {0, NULL},
};

static PyType_Spec ba_spec = {.name = "BoxArray",
                              .basicsize = sizeof(bfpy_boxarray_object),
                              .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                              .slots = ba_slots};

/* ==== DistributionMapping ===================================================================== */

static PyObject *dm_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
  (void)args, (void)kwds;
  int dim = bfpy_type_dim(type, BFPY_T_DISTMAP);
  if (dim < 1) {
    PyErr_Format(PyExc_TypeError, "%s is not a DistributionMapping type", type->tp_name);
    return NULL;
  }
  PyObject *self = type->tp_alloc(type, 0);
  if (self) DMDIM(self) = dim, DM(self) = NULL;
  return self;
}

static void dm_dealloc(PyObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  bf_distmap_destroy(&DM(self));
  tp->tp_free(self);
  Py_DECREF(tp);
}

static void dm_set(PyObject *self, bf_distmap *dm) {
  bf_distmap *old = DM(self);
  DM(self) = dm;
  bf_distmap_destroy(&old);
}

static int dm_strategy(PyObject *o, bf_distmap_strategy *out) {
  *out = BF_DISTMAP_SFC;
  if (!o) return 0;
  if (!PyUnicode_Check(o)) {
    PyErr_Format(PyExc_TypeError, "strategy must be a str (\"sfc\", \"roundrobin\" or \"knapsack\"), not %.100s",
                 Py_TYPE(o)->tp_name);
    return -1;
  }
  const char *s = PyUnicode_AsUTF8(o);
  if (!s) return -1;
  if (!strcmp(s, "sfc"))
    *out = BF_DISTMAP_SFC;
  else if (!strcmp(s, "roundrobin") || !strcmp(s, "round_robin"))
    *out = BF_DISTMAP_ROUND_ROBIN;
  else if (!strcmp(s, "knapsack"))
    *out = BF_DISTMAP_KNAPSACK;
  else {
    PyErr_Format(PyExc_ValueError, "unknown strategy '%s' (use \"sfc\", \"roundrobin\" or \"knapsack\")", s);
    return -1;
  }
  return 0;
}

/* A map from any sequence/iterable of ints (Vector_int included). */
static int dm_from_pmap(PyObject *o, bf_distmap **out) {
  PyObject *seq = bfpy_fast_sequence(o, PY_SSIZE_T_MAX / (Py_ssize_t)sizeof(int), bfpy_check_int_item, NULL,
                                     "DistributionMapping(pmap) rank", "ints");
  if (!seq) return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  int *pmap = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof *pmap);
  int r = -1;
  if (!pmap) {
    PyErr_NoMemory();
    goto done;
  }
  for (Py_ssize_t i = 0; i < n; ++i)
    if (bfpy_to_int(PySequence_Fast_GET_ITEM(seq, i), &pmap[i], "DistributionMapping(pmap) rank") < 0) goto done;
  r = bfpy_check(bf_distmap_create_from_pmap(n, pmap, out));
done:
  PyMem_Free(pmap);
  Py_DECREF(seq);
  return r;
}

/* The overloads shared by __init__ (ctor = true) and define(). */
static int dm_define_impl(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, bool ctor) {
  static const char *const ba_names[] = {"boxes", "nprocs", "strategy", NULL};
  static const char *const one_names[] = {"", NULL};
  const char *func = ctor ? "DistributionMapping" : "define";
  const char *sigs = ctor ? "DistributionMapping(), DistributionMapping(other: DistributionMapping, /), "
                            "DistributionMapping(pmap: Vector_int, /), DistributionMapping(boxes: BoxArray), "
                            "DistributionMapping(boxes: BoxArray, nprocs: int) (extension: strategy=\"sfc\"|"
                            "\"roundrobin\"|\"knapsack\")"
                          : "define(boxes: BoxArray), define(boxes: BoxArray, nprocs: int), define(pmap: "
                            "Vector_int, /) (extension: strategy=\"sfc\"|\"roundrobin\"|\"knapsack\")";
  int dim = DMDIM(self);
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  if (ctor && nargs + nkw == 0) {
    dm_set(self, NULL);
    return 0;
  }
  PyObject *a[3];
  if (bfpy_bind(args, nargs, kwnames, ba_names, 1, a, false) == 0 && bfpy_is(a[0], BFPY_T_BOXARRAY, -1)) {
    bf_boxarray *ba = bfpy_as_boxarray(a[0], dim, "boxes");
    if (!ba) return -1;
    int nprocs = bf_parallel_nprocs();
    bf_distmap_strategy strategy;
    if (a[1] && bfpy_to_int(a[1], &nprocs, "nprocs") < 0) return -1;
    if (dm_strategy(a[2], &strategy) < 0) return -1;
    bf_distmap *dm = NULL;
    if (bfpy_check(bf_distmap_create_balanced(ba, nprocs, strategy, &dm)) < 0) return -1;
    dm_set(self, dm);
    return 0;
  }
  if (PyErr_Occurred()) return -1;
  if (bfpy_bind(args, nargs, kwnames, one_names, 1, a, false) == 0) {
    if (ctor && bfpy_is(a[0], BFPY_T_DISTMAP, -1)) {
      bf_distmap *other = NULL;
      if (bfpy_as_distmap(a[0], dim, &other, "DistributionMapping(other)") < 0) return -1;
      dm_set(self, other ? bf_distmap_retain(other) : NULL);
      return 0;
    }
    if (!bfpy_is(a[0], BFPY_T_DISTMAP, -1) && is_iterable(a[0])) {
      bf_distmap *dm = NULL;
      if (dm_from_pmap(a[0], &dm) < 0) return -1;
      dm_set(self, dm);
      return 0;
    }
  }
  if (PyErr_Occurred()) return -1;
  bfpy_no_overload(func, args, nargs, kwnames, sigs);
  return -1;
}

static int dm_init_fast(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return dm_define_impl(self, args, nargs, kwnames, true);
}

static int dm_init(PyObject *self, PyObject *args, PyObject *kwds) {
  return bfpy_init_vectorcall(self, args, kwds, dm_init_fast);
}

static PyObject *dm_define(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  if (dm_define_impl(self, args, nargs, kwnames, false) < 0) return NULL;
  Py_RETURN_NONE;
}

static int64_t dm_size(PyObject *self) { return DM(self) ? bf_distmap_size(DM(self)) : 0; }

static PyObject *dm_get_size(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLongLong(dm_size(self));
}
static PyObject *dm_get_link_count(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLong(DM(self) ? bf_distmap_refcount(DM(self)) : 1);
}
static PyObject *dm_get_empty(PyObject *self, void *c) {
  (void)c;
  return PyBool_FromLong(dm_size(self) == 0);
}

static PyGetSetDef dm_getset[] = {
    {"size", dm_get_size, NULL, "Number of entries (boxes).", NULL},
    {"capacity", dm_get_size, NULL, "Number of entries reserved (equal to size: the map is immutable).", NULL},
    {"link_count", dm_get_link_count, NULL,
     "Number of holders sharing this map (copies and MultiFabs); an empty map counts 1.", NULL},
    {"empty", dm_get_empty, NULL, "True when the map has no entry.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyObject *dm_processor_map(PyObject *self, PyObject *noargs) {
  (void)noargs;
  int64_t n = dm_size(self);
  PyObject *list = PyList_New((Py_ssize_t)n);
  for (int64_t i = 0; list && i < n; ++i) {
    PyObject *r = PyLong_FromLong(bf_distmap_data(DM(self))[i]);
    if (!r)
      Py_CLEAR(list);
    else
      PyList_SET_ITEM(list, (Py_ssize_t)i, r);
  }
  if (!list) return NULL;
  PyTypeObject *vt = bfpy_types[DMDIM(self)][BFPY_T_VECTOR_INT];
  if (!vt) vt = bfpy_types[0][BFPY_T_VECTOR_INT];
  if (!vt) return list; /* Vector_int not built: a list */
  PyObject *v = PyObject_CallOneArg((PyObject *)vt, list);
  Py_DECREF(list);
  return v;
}

static PyObject *dm_item(PyObject *self, Py_ssize_t i) {
  int rank = 0;
  if (i < 0 || i >= dm_size(self)) {
    PyErr_Format(PyExc_IndexError, "DistributionMapping index %zd out of range for %lld entries", i,
                 (long long)dm_size(self));
    return NULL;
  }
  if (bfpy_check(bf_distmap_get(DM(self), i, &rank)) < 0) return NULL;
  return PyLong_FromLong(rank);
}

static PyObject *dm_subscript(PyObject *self, PyObject *key) {
  if (!bfpy_is_intlike(key)) {
    PyErr_Format(PyExc_TypeError, "DistributionMapping indices must be integers, not %.100s", Py_TYPE(key)->tp_name);
    return NULL;
  }
  Py_ssize_t i = PyNumber_AsSsize_t(key, PyExc_IndexError), j;
  if (i == -1 && PyErr_Occurred()) return NULL;
  if (bfpy_index(i, (Py_ssize_t)dm_size(self), &j, "DistributionMapping") < 0) return NULL;
  return dm_item(self, j);
}

static Py_ssize_t dm_len(PyObject *self) { return (Py_ssize_t)dm_size(self); }

static PyObject *dm_richcompare(PyObject *a, PyObject *b, int op) {
  if ((op != Py_EQ && op != Py_NE) || !bfpy_is(b, BFPY_T_DISTMAP, -1)) Py_RETURN_NOTIMPLEMENTED;
  bool eq;
  if (!DM(a) || !DM(b))
    eq = dm_size(a) == 0 && dm_size(b) == 0;
  else
    eq = bf_distmap_equal(DM(a), DM(b));
  eq = eq && DMDIM(a) == DMDIM(b);
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static PyObject *dm_repr(PyObject *self) {
  int64_t n = dm_size(self);
  PyObject *head = PyList_New(0);
  if (!head) return NULL;
  for (int64_t i = 0; i < n && i < 16; ++i) {
    PyObject *r = PyLong_FromLong(bf_distmap_data(DM(self))[i]);
    if (!r || PyList_Append(head, r) < 0) {
      Py_XDECREF(r);
      Py_DECREF(head);
      return NULL;
    }
    Py_DECREF(r);
  }
  PyObject *s =
      PyUnicode_FromFormat("<DistributionMapping of %lld boxes: ranks %R%s>", (long long)n, head, n > 16 ? " ..." : "");
  Py_DECREF(head);
  return s;
}

static PyMethodDef dm_methods[] = {
    {"define", (PyCFunction)(void (*)(void))dm_define, METH_FASTCALL | METH_KEYWORDS,
     "define(boxes: BoxArray) / define(boxes: BoxArray, nprocs: int) / define(pmap: Vector_int, /) -> None: "
     "re-define as the constructor does (extension: strategy=\"sfc\"|\"roundrobin\"|\"knapsack\")."},
    {"ProcessorMap", dm_processor_map, METH_NOARGS, "ProcessorMap() -> Vector_int: the rank owning each box."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot dm_slots[] = {
    {Py_tp_doc, "DistributionMapping: which rank owns each box of a BoxArray.\n"
                "DistributionMapping() / (other: DistributionMapping, /) / (pmap: Vector_int, /) (any sequence of "
                "ints >= 0) / (boxes: BoxArray) (over ParallelDescriptor.NProcs() ranks) / (boxes: BoxArray, "
                "nprocs: int) (over nprocs >= 1 ranks, also in a single process).\n"
                "Balanced maps weigh boxes by their cells.  Extension keyword strategy: \"sfc\" (default: Morton "
                "curve of box centres cut into contiguous chunks), \"roundrobin\" (largest first) or \"knapsack\" "
                "(greedy, largest first)."},
    {Py_tp_new, dm_new},
    {Py_tp_init, dm_init},
    {Py_tp_dealloc, dm_dealloc},
    {Py_tp_repr, dm_repr},
    {Py_tp_richcompare, dm_richcompare},
    {Py_tp_hash, PyObject_HashNotImplemented},
    {Py_tp_iter, PySeqIter_New},
    {Py_tp_getset, dm_getset},
    {Py_tp_methods, dm_methods},
    {Py_sq_length, dm_len},
    {Py_sq_item, dm_item},
    {Py_mp_length, dm_len},
    {Py_mp_subscript, dm_subscript},
    {0, NULL},
};

static PyType_Spec dm_spec = {.name = "DistributionMapping",
                              .basicsize = sizeof(bfpy_distmap_object),
                              .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                              .slots = dm_slots};

/* ==== family init ============================================================================ */
int bfpy_init_boxarray(PyObject *m, int dim) {
  if (!bfpy_make_type(m, dim, BFPY_T_BOXARRAY, "BoxArray", &ba_spec, NULL)) return -1;
  if (!bfpy_make_type(m, dim, BFPY_T_DISTMAP, "DistributionMapping", &dm_spec, NULL)) return -1;
  return 0;
}
