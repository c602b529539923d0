/* boxfab._core: the Vector_* containers (API.md 1.18), one generic
 * implementation over bf_vector (include/boxfab/vector.h) parametrised by an
 * element kind table: Vector_Real, Vector_int, Vector_Long, Vector_string,
 * Vector_IntVect, Vector_BoxArray, Vector_DistributionMapping, Vector_Geometry, Vector_Box.
 *
 * Each behaves like a typed list.  Elements are converted on insertion
 * (TypeError for a wrong type, OverflowError for an int out of range); an
 * operation that fails leaves the vector unchanged.
 *
 * Zero-copy (Vector_Real/int/Long): the buffer protocol and
 * __array_interface__ expose the contiguous C array.  np.asarray(v) takes the
 * buffer protocol: while such a view exists, operations that change the size
 * raise BufferError (as bytearray does), so a view never reads freed memory.
 * A consumer that reads __array_interface__ directly keeps v alive as its
 * base; reading that property pins the current block, which then stays
 * allocated until v is freed even if v grows (the grown vector moves to a new
 * block; the view keeps the old values). */
#include "bfpy.h"

typedef struct vec_kind vec_kind;

typedef struct {
  PyObject_HEAD const vec_kind *k;
  int dim;
  Py_ssize_t exports;           /* buffer-protocol exports alive */
  Py_ssize_t shape, stride;     /* what the exported Py_buffer points to */
  bf_vector v;
} vec_object;

struct vec_kind {
  int id;          /* BFPY_T_VECTOR_* */
  int kind;        /* BF_VECTOR_* */
  const char *name;
  const char *doc;
  /* Python object -> C element in `out` (borrowed: strings point into the
   * str object, handles are not retained); -1 with an exception. */
  int (*from_py)(PyObject *o, int dim, void *out, const char *what);
  PyObject *(*to_py)(int dim, const void *elem);
  const char *format;  /* buffer format, NULL for non-numeric kinds */
  const char *typestr; /* __array_interface__ typestr */
};

/* Room for one C element of any kind. */
typedef union {
  double d;
  int64_t l;
  bf_intvect iv;
  bf_geometry g;
  void *p;
} vec_elem_storage;

/* ---- element conversion ---------------------------------------------------------- */
static int real_from(PyObject *o, int dim, void *out, const char *what) {
  (void)dim;
  return bfpy_to_double(o, out, what);
}
static PyObject *real_to(int dim, const void *e) {
  (void)dim;
  return PyFloat_FromDouble(*(const double *)e);
}
static int int_from(PyObject *o, int dim, void *out, const char *what) {
  (void)dim;
  int v;
  if (bfpy_to_int(o, &v, what) < 0) return -1;
  *(int32_t *)out = (int32_t)v;
  return 0;
}
static PyObject *int_to(int dim, const void *e) {
  (void)dim;
  return PyLong_FromLong(*(const int32_t *)e);
}
static int long_from(PyObject *o, int dim, void *out, const char *what) {
  (void)dim;
  return bfpy_to_int64(o, out, what);
}
static PyObject *long_to(int dim, const void *e) {
  (void)dim;
  return PyLong_FromLongLong(*(const int64_t *)e);
}
static int string_from(PyObject *o, int dim, void *out, const char *what) {
  (void)dim;
  if (!PyUnicode_Check(o)) {
    PyErr_Format(PyExc_TypeError, "%s must be a str, not %.100s", what, Py_TYPE(o)->tp_name);
    return -1;
  }
  Py_ssize_t len;
  const char *s = PyUnicode_AsUTF8AndSize(o, &len);
  if (!s) return -1;
  if ((size_t)len != strlen(s)) {
    PyErr_Format(PyExc_ValueError, "%s must not contain a NUL character", what);
    return -1;
  }
  *(const char **)out = s;
  return 0;
}
static PyObject *string_to(int dim, const void *e) {
  (void)dim;
  return PyUnicode_FromString(*(char *const *)e);
}
static int intvect_from(PyObject *o, int dim, void *out, const char *what) {
  return bfpy_as_intvect(o, dim, BFPY_IV_SEQUENCE, out, what);
}
static PyObject *intvect_to(int dim, const void *e) {
  (void)dim;
  return bfpy_intvect_new(e);
}
static int box_from(PyObject *o, int dim, void *out, const char *what) { return bfpy_as_box(o, dim, out, what); }
static PyObject *box_to(int dim, const void *e) {
  (void)dim;
  return bfpy_box_new(e);
}
static int boxarray_from(PyObject *o, int dim, void *out, const char *what) {
  bf_boxarray *ba = bfpy_as_boxarray(o, dim, what);
  if (!ba) return -1;
  *(bf_boxarray **)out = ba;
  return 0;
}
static PyObject *boxarray_to(int dim, const void *e) {
  (void)dim;
  return bfpy_boxarray_new(bf_boxarray_retain(*(bf_boxarray *const *)e));
}
static int distmap_from(PyObject *o, int dim, void *out, const char *what) {
  return bfpy_as_distmap(o, dim, out, what);
}
static PyObject *distmap_to(int dim, const void *e) {
  bf_distmap *dm = *(bf_distmap *const *)e;
  return bfpy_distmap_new(dim, dm ? bf_distmap_retain(dm) : NULL);
}
static int geometry_from(PyObject *o, int dim, void *out, const char *what) {
  return bfpy_as_geometry(o, dim, out, what);
}
static PyObject *geometry_to(int dim, const void *e) {
  (void)dim;
  return bfpy_geometry_new(e);
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define BFPY_LE ">"
#else
#define BFPY_LE "<"
#endif

#define VEC_DOC(name, elem)                                                                                        \
  name "() / " name "(other: " name ", /) / " name "(iterable, /): a typed list of " elem                          \
       ". Elements are checked on insertion (TypeError; OverflowError for ints out of range)."
#define VEC_NUM_DOC " np.asarray(v) is a zero-copy view; while one exists, resizing raises BufferError."

static const vec_kind vec_kinds[] = {
    {BFPY_T_VECTOR_REAL, BF_VECTOR_REAL, "Vector_Real", VEC_DOC("Vector_Real", "float (float64)") VEC_NUM_DOC,
     real_from, real_to, "d", BFPY_LE "f8"},
    {BFPY_T_VECTOR_INT, BF_VECTOR_INT, "Vector_int", VEC_DOC("Vector_int", "int (int32)") VEC_NUM_DOC, int_from,
     int_to, "i", BFPY_LE "i4"},
    {BFPY_T_VECTOR_LONG, BF_VECTOR_LONG, "Vector_Long", VEC_DOC("Vector_Long", "int (int64)") VEC_NUM_DOC,
     long_from, long_to, "q", BFPY_LE "i8"},
    {BFPY_T_VECTOR_STRING, BF_VECTOR_STRING, "Vector_string", VEC_DOC("Vector_string", "str"), string_from,
     string_to, NULL, NULL},
    {BFPY_T_VECTOR_INTVECT, BF_VECTOR_INTVECT, "Vector_IntVect",
     VEC_DOC("Vector_IntVect", "IntVect of the module's dimension (or sequences of ints)"), intvect_from, intvect_to,
     NULL, NULL},
    {BFPY_T_VECTOR_BOXARRAY, BF_VECTOR_BOXARRAY, "Vector_BoxArray",
     VEC_DOC("Vector_BoxArray", "BoxArray (shared, as BoxArray copies are)"), boxarray_from, boxarray_to, NULL, NULL},
    {BFPY_T_VECTOR_DISTMAP, BF_VECTOR_DISTMAP, "Vector_DistributionMapping",
     VEC_DOC("Vector_DistributionMapping", "DistributionMapping"), distmap_from, distmap_to, NULL, NULL},
    {BFPY_T_VECTOR_GEOMETRY, BF_VECTOR_GEOMETRY, "Vector_Geometry",
     VEC_DOC("Vector_Geometry", "Geometry (copies; no ==, in, count, remove)"), geometry_from, geometry_to, NULL,
     NULL},
    {BFPY_T_VECTOR_BOX, BF_VECTOR_BOX, "Vector_Box", VEC_DOC("Vector_Box", "Box of the module's dimension"), box_from,
     box_to, NULL, NULL},
};
#define VEC_NKINDS ((int)(sizeof vec_kinds / sizeof vec_kinds[0]))

/* ---- helpers ------------------------------------------------------------------------ */
static const vec_kind *vec_kind_of(PyTypeObject *type, int *dim) {
  for (int i = 0; i < VEC_NKINDS; ++i) {
    int d = bfpy_type_dim(type, vec_kinds[i].id);
    if (d > 0) {
      *dim = d;
      return &vec_kinds[i];
    }
  }
  return NULL;
}

static bool vec_check(PyObject *o) {
  for (int i = 0; i < VEC_NKINDS; ++i)
    if (bfpy_is(o, vec_kinds[i].id, -1)) return true;
  return false;
}

/* Same family and dimension. */
static bool vec_same(const vec_object *a, PyObject *b) {
  return vec_check(b) && ((vec_object *)b)->k == a->k && ((vec_object *)b)->dim == a->dim;
}

static int vec_resizable(vec_object *self) {
  if (self->exports > 0) {
    PyErr_Format(PyExc_BufferError,
                 "%s: cannot change the size while a buffer (e.g. a NumPy view) of it exists; delete the view first",
                 self->k->name);
    return -1;
  }
  return 0;
}

static PyObject *vec_alloc(const vec_kind *k, int dim) {
  PyTypeObject *t = bfpy_types[dim][k->id];
  return t->tp_alloc(t, 0);
}

/* A new vector of self's type holding (taking) the elements of *tmp. */
static PyObject *vec_wrap(vec_object *self, bf_vector *tmp) {
  vec_object *r = (vec_object *)vec_alloc(self->k, self->dim);
  if (!r) {
    bf_vector_free(tmp);
    return NULL;
  }
  r->k = self->k;
  r->dim = self->dim;
  r->v = *tmp; /* moved */
  memset(tmp, 0, sizeof *tmp);
  return (PyObject *)r;
}

/* Convert one element (kept as a C value in `out`, see from_py). */
static int vec_elem(vec_object *self, PyObject *o, void *out) {
  char what[64];
  snprintf(what, sizeof what, "%s element", self->k->name);
  return self->k->from_py(o, self->dim, out, what);
}

/* For lookups (in, count, remove): 1 converted, 0 not an element (no exception), -1 error. */
static int vec_elem_lookup(vec_object *self, PyObject *o, void *out) {
  if (vec_elem(self, o, out) == 0) return 1;
  if (PyErr_ExceptionMatches(PyExc_TypeError) || PyErr_ExceptionMatches(PyExc_ValueError) ||
      PyErr_ExceptionMatches(PyExc_OverflowError)) {
    PyErr_Clear();
    return 0;
  }
  return -1;
}

/* *tmp = a new bf_vector with the elements of `src` (a vector of the same
 * family and dimension, or any iterable of convertible elements). */
static int vec_collect(vec_object *self, PyObject *src, bf_vector *tmp) {
  if (vec_same(self, src)) {
    const bf_vector *o = &((vec_object *)src)->v;
    return bfpy_check(bf_vector_slice(o, 0, 1, o->size, tmp));
  }
  if (bfpy_check(bf_vector_init(tmp, self->k->kind)) < 0) return -1;
  PyObject *it = PyObject_GetIter(src);
  if (!it) {
    if (!PyErr_ExceptionMatches(PyExc_TypeError)) { /* the iterable's own error (KeyboardInterrupt...) */
      bf_vector_free(tmp);
      return -1;
    }
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "%s expects a %s or an iterable of elements, not %.100s", self->k->name,
                 self->k->name, Py_TYPE(src)->tp_name);
    bf_vector_free(tmp);
    return -1;
  }
  /* A source that knows its length gets its room up front: a length no
   * memory can hold (range(2**40)) is refused before anything is read, not
   * after gigabytes of elements. */
  Py_ssize_t len = PyList_Check(src) || PyTuple_Check(src) ? -1 : PyObject_Size(src);
  if (len < 0 && PyErr_Occurred()) {
    if (!PyErr_ExceptionMatches(PyExc_TypeError) && !PyErr_ExceptionMatches(PyExc_OverflowError)) {
      Py_DECREF(it);
      bf_vector_free(tmp);
      return -1;
    }
    PyErr_Clear(); /* no usable length */
  }
  if (len > 0 && bfpy_check(bf_vector_reserve(tmp, (int64_t)len)) < 0) {
    Py_DECREF(it);
    bf_vector_free(tmp);
    return -1;
  }
  vec_elem_storage elem;
  PyObject *item;
  while ((item = PyIter_Next(it))) {
    int r = vec_elem(self, item, &elem);
    if (r == 0) r = bfpy_check(bf_vector_push(tmp, &elem)); /* copies while item is alive */
    Py_DECREF(item);
    if (r < 0) break;
  }
  Py_DECREF(it);
  if (PyErr_Occurred()) {
    bf_vector_free(tmp);
    return -1;
  }
  return 0;
}

/* ---- construction ------------------------------------------------------------------ */
static PyObject *vec_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
  (void)args, (void)kwds;
  int dim = 0;
  const vec_kind *k = vec_kind_of(type, &dim);
  if (!k) return PyErr_Format(PyExc_TypeError, "%.100s is not a boxfab vector type", type->tp_name);
  vec_object *self = (vec_object *)type->tp_alloc(type, 0);
  if (!self) return NULL;
  self->k = k;
  self->dim = dim;
  if (bfpy_check(bf_vector_init(&self->v, k->kind)) < 0) {
    Py_DECREF(self);
    return NULL;
  }
  return (PyObject *)self;
}

static int vec_init(PyObject *op, PyObject *args, PyObject *kwds) {
  vec_object *self = (vec_object *)op;
  if (kwds && PyDict_GET_SIZE(kwds)) {
    PyErr_Format(PyExc_TypeError, "%s() takes no keyword arguments", self->k->name);
    return -1;
  }
  PyObject *src = NULL;
  if (!PyArg_UnpackTuple(args, self->k->name, 0, 1, &src)) return -1;
  bf_vector tmp;
  if (src) {
    if (vec_collect(self, src, &tmp) < 0) return -1;
  } else if (bfpy_check(bf_vector_init(&tmp, self->k->kind)) < 0) {
    return -1;
  }
  if (vec_resizable(self) < 0) {
    bf_vector_free(&tmp);
    return -1;
  }
  bf_vector_clear(&self->v); /* keep the block: an __array_interface__ view may read it */
  int st = bf_vector_take(&self->v, 0, &tmp);
  bf_vector_free(&tmp);
  return bfpy_check(st);
}

static void vec_dealloc(PyObject *op) {
  vec_object *self = (vec_object *)op;
  PyTypeObject *tp = Py_TYPE(op);
  bf_vector_free(&self->v);
  tp->tp_free(op);
  Py_DECREF(tp);
}

/* ---- sequence protocol ---------------------------------------------------------------- */
static Py_ssize_t vec_len(PyObject *op) { return (Py_ssize_t)((vec_object *)op)->v.size; }

static int vec_bool(PyObject *op) { return ((vec_object *)op)->v.size > 0; }

static PyObject *vec_item(PyObject *op, Py_ssize_t i) {
  vec_object *self = (vec_object *)op;
  if (i < 0 || i >= (Py_ssize_t)self->v.size)
    return PyErr_Format(PyExc_IndexError, "%s index out of range", self->k->name);
  return self->k->to_py(self->dim, bf_vector_at(&self->v, i));
}

static PyObject *vec_iter(PyObject *op) { return PySeqIter_New(op); }

/* Index from a Python int (negative counts from the end); -1 with IndexError. */
static int vec_index(vec_object *self, PyObject *key, Py_ssize_t *out) {
  Py_ssize_t i = PyNumber_AsSsize_t(key, PyExc_IndexError);
  if (i == -1 && PyErr_Occurred()) return -1;
  return bfpy_index(i, (Py_ssize_t)self->v.size, out, self->k->name);
}

static PyObject *vec_subscript(PyObject *op, PyObject *key) {
  vec_object *self = (vec_object *)op;
  if (PySlice_Check(key)) {
    Py_ssize_t start, stop, step;
    if (PySlice_Unpack(key, &start, &stop, &step) < 0) return NULL;
    Py_ssize_t n = PySlice_AdjustIndices((Py_ssize_t)self->v.size, &start, &stop, step);
    bf_vector tmp;
    if (bfpy_check(bf_vector_slice(&self->v, start, step, n, &tmp)) < 0) return NULL;
    return vec_wrap(self, &tmp);
  }
  if (!bfpy_is_intlike(key))
    return PyErr_Format(PyExc_TypeError, "%s indices must be integers or slices, not %.100s", self->k->name,
                        Py_TYPE(key)->tp_name);
  Py_ssize_t i;
  if (vec_index(self, key, &i) < 0) return NULL;
  return vec_item(op, i);
}

static int vec_ass_slice(vec_object *self, PyObject *key, PyObject *value) {
  Py_ssize_t start, stop, step;
  if (PySlice_Unpack(key, &start, &stop, &step) < 0) return -1;
  Py_ssize_t n = PySlice_AdjustIndices((Py_ssize_t)self->v.size, &start, &stop, step);
  if (!value) {
    if (n == 0) return 0;
    if (vec_resizable(self) < 0) return -1;
    return bfpy_check(bf_vector_erase(&self->v, start, step, n));
  }
  bf_vector tmp;
  if (vec_collect(self, value, &tmp) < 0) return -1; /* a copy first: value may be self */
  int st;
  if (step == 1) {
    if (tmp.size != n && vec_resizable(self) < 0) {
      bf_vector_free(&tmp);
      return -1;
    }
    st = bf_vector_reserve(&self->v, self->v.size - n + tmp.size); /* then nothing below can fail */
    if (!st) st = bf_vector_erase(&self->v, start, 1, n);
    if (!st) st = bf_vector_take(&self->v, start, &tmp);
  } else if (tmp.size != n) {
    PyErr_Format(PyExc_ValueError, "attempt to assign a sequence of size %lld to an extended slice of size %zd",
                 (long long)tmp.size, n);
    bf_vector_free(&tmp);
    return -1;
  } else {
    st = bf_vector_set_strided(&self->v, start, step, n, tmp.data);
  }
  bf_vector_free(&tmp);
  return bfpy_check(st);
}

static int vec_ass_subscript(PyObject *op, PyObject *key, PyObject *value) {
  vec_object *self = (vec_object *)op;
  if (PySlice_Check(key)) return vec_ass_slice(self, key, value);
  if (!bfpy_is_intlike(key)) {
    PyErr_Format(PyExc_TypeError, "%s indices must be integers or slices, not %.100s", self->k->name,
                 Py_TYPE(key)->tp_name);
    return -1;
  }
  Py_ssize_t i;
  if (vec_index(self, key, &i) < 0) return -1;
  if (!value) {
    if (vec_resizable(self) < 0) return -1;
    return bfpy_check(bf_vector_erase(&self->v, i, 1, 1));
  }
  vec_elem_storage elem;
  if (vec_elem(self, value, &elem) < 0) return -1;
  return bfpy_check(bf_vector_set(&self->v, i, &elem));
}

static int vec_contains(PyObject *op, PyObject *x) {
  vec_object *self = (vec_object *)op;
  vec_elem_storage elem;
  int r = vec_elem_lookup(self, x, &elem);
  if (r <= 0) return r;
  int64_t at;
  if (bfpy_check(bf_vector_find(&self->v, &elem, 0, &at)) < 0) return -1;
  return at >= 0;
}

static PyObject *vec_richcompare(PyObject *a, PyObject *b, int op) {
  vec_object *self = (vec_object *)a;
  if ((op != Py_EQ && op != Py_NE) || !vec_same(self, b)) Py_RETURN_NOTIMPLEMENTED;
  bool eq;
  if (bfpy_check(bf_vector_equal(&self->v, &((vec_object *)b)->v, &eq)) < 0) return NULL;
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static PyObject *vec_repr(PyObject *op) {
  vec_object *self = (vec_object *)op;
  PyObject *list = PySequence_List(op);
  if (!list) return NULL;
  PyObject *r = PyUnicode_FromFormat("%s%R", self->k->name, list);
  Py_DECREF(list);
  return r;
}

/* ---- methods --------------------------------------------------------------------------- */
static PyObject *vec_append(PyObject *op, PyObject *x) {
  vec_object *self = (vec_object *)op;
  vec_elem_storage elem;
  if (vec_elem(self, x, &elem) < 0 || vec_resizable(self) < 0) return NULL;
  if (bfpy_check(bf_vector_push(&self->v, &elem)) < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject *vec_insert(PyObject *op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  vec_object *self = (vec_object *)op;
  static const char *const names[] = {"i", "x", NULL};
  PyObject *a[2];
  if (bfpy_bind(args, nargs, kwnames, names, 2, a, true) < 0) return NULL;
  int64_t i;
  if (bfpy_to_int64(a[0], &i, "insert() index") < 0) return NULL;
  int64_t n = self->v.size; /* as list.insert: clamp into [0, n] */
  if (i < 0) i = i + n < 0 ? 0 : i + n;
  if (i > n) i = n;
  vec_elem_storage elem;
  if (vec_elem(self, a[1], &elem) < 0 || vec_resizable(self) < 0) return NULL;
  if (bfpy_check(bf_vector_insert(&self->v, i, 1, &elem)) < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject *vec_extend(PyObject *op, PyObject *src) {
  vec_object *self = (vec_object *)op;
  bf_vector tmp;
  if (vec_collect(self, src, &tmp) < 0) return NULL;
  int st = 0;
  if (tmp.size > 0) {
    if (vec_resizable(self) < 0) {
      bf_vector_free(&tmp);
      return NULL;
    }
    st = bf_vector_take(&self->v, self->v.size, &tmp);
  }
  bf_vector_free(&tmp);
  if (bfpy_check(st) < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject *vec_pop(PyObject *op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  vec_object *self = (vec_object *)op;
  static const char *const names[] = {"i", NULL};
  PyObject *a[1];
  if (bfpy_bind(args, nargs, kwnames, names, 0, a, true) < 0) return NULL;
  if (self->v.size == 0) return PyErr_Format(PyExc_IndexError, "pop from an empty %s", self->k->name);
  Py_ssize_t i = (Py_ssize_t)self->v.size - 1;
  if (a[0]) {
    if (!bfpy_is_intlike(a[0]))
      return PyErr_Format(PyExc_TypeError, "pop() index must be an int, not %.100s", Py_TYPE(a[0])->tp_name);
    if (vec_index(self, a[0], &i) < 0) return NULL;
  }
  if (vec_resizable(self) < 0) return NULL;
  PyObject *r = vec_item(op, i);
  if (r && bfpy_check(bf_vector_erase(&self->v, i, 1, 1)) < 0) Py_CLEAR(r);
  return r;
}

static PyObject *vec_clear(PyObject *op, PyObject *noargs) {
  (void)noargs;
  vec_object *self = (vec_object *)op;
  if (self->v.size > 0 && vec_resizable(self) < 0) return NULL;
  bf_vector_clear(&self->v);
  Py_RETURN_NONE;
}

static PyObject *vec_size(PyObject *op, PyObject *noargs) {
  (void)noargs;
  return PyLong_FromLongLong(((vec_object *)op)->v.size);
}

static PyObject *vec_count(PyObject *op, PyObject *x) {
  vec_object *self = (vec_object *)op;
  vec_elem_storage elem;
  int r = vec_elem_lookup(self, x, &elem);
  if (r < 0) return NULL;
  int64_t c = 0;
  if (r > 0 && bfpy_check(bf_vector_count(&self->v, &elem, &c)) < 0) return NULL;
  return PyLong_FromLongLong(c);
}

static PyObject *vec_remove(PyObject *op, PyObject *x) {
  vec_object *self = (vec_object *)op;
  vec_elem_storage elem;
  int r = vec_elem_lookup(self, x, &elem);
  if (r < 0) return NULL;
  int64_t at = -1;
  if (r > 0 && bfpy_check(bf_vector_find(&self->v, &elem, 0, &at)) < 0) return NULL;
  if (at < 0) return PyErr_Format(PyExc_ValueError, "%s.remove(x): x not in the vector", self->k->name);
  if (vec_resizable(self) < 0) return NULL;
  if (bfpy_check(bf_vector_erase(&self->v, at, 1, 1)) < 0) return NULL;
  Py_RETURN_NONE;
}

#define VEC_METHODS_COMMON                                                                                         \
  {"append", vec_append, METH_O, "append(x) -> None: add x at the end."},                                         \
      {"insert", (PyCFunction)(void (*)(void))vec_insert, METH_FASTCALL | METH_KEYWORDS,                           \
       "insert(i: int, x) -> None: insert x before position i (clamped as list.insert)."},                        \
      {"extend", vec_extend, METH_O, "extend(L) -> None: append the elements of a vector or iterable."},          \
      {"pop", (PyCFunction)(void (*)(void))vec_pop, METH_FASTCALL | METH_KEYWORDS,                                 \
       "pop() / pop(i: int) -> element: remove and return the last (or i-th) element."},                          \
      {"clear", vec_clear, METH_NOARGS, "clear() -> None: remove every element."},                                \
      {"size", vec_size, METH_NOARGS, "size() -> int: number of elements (same as len)."}

static PyMethodDef vec_methods_cmp[] = {
    VEC_METHODS_COMMON,
    {"count", vec_count, METH_O, "count(x) -> int: number of elements equal to x."},
    {"remove", vec_remove, METH_O, "remove(x) -> None: remove the first element equal to x (ValueError if none)."},
    {NULL, NULL, 0, NULL},
};

static PyMethodDef vec_methods_plain[] = {
    VEC_METHODS_COMMON,
    {NULL, NULL, 0, NULL},
};

/* ---- zero-copy export (numeric kinds) ------------------------------------------------- */
static int vec_getbuffer(PyObject *op, Py_buffer *view, int flags) {
  vec_object *self = (vec_object *)op;
  self->shape = (Py_ssize_t)self->v.size; /* the size cannot change while exported */
  self->stride = (Py_ssize_t)self->v.elsize;
  view->obj = Py_NewRef(op);
  view->buf = self->v.data;
  view->len = self->shape * self->stride;
  view->readonly = 0;
  view->itemsize = self->stride;
  view->format = (flags & PyBUF_FORMAT) ? (char *)self->k->format : NULL;
  view->ndim = 1;
  view->shape = (flags & PyBUF_ND) ? &self->shape : NULL;
  view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? &self->stride : NULL;
  view->suboffsets = NULL;
  view->internal = NULL;
  ++self->exports;
  return 0;
}

static void vec_releasebuffer(PyObject *op, Py_buffer *view) {
  (void)view;
  --((vec_object *)op)->exports;
}

static PyObject *vec_array_interface(PyObject *op, void *closure) {
  (void)closure;
  vec_object *self = (vec_object *)op;
  bf_vector_pin(&self->v); /* the reader keeps `self` alive, not a buffer export: keep this block */
  return Py_BuildValue("{s:(n),s:s,s:(NO),s:O,s:i}", "shape", (Py_ssize_t)self->v.size, "typestr", self->k->typestr,
                       "data", PyLong_FromVoidPtr(self->v.data), Py_False, "strides", Py_None, "version", 3);
}

static PyObject *vec_cuda_array_interface(PyObject *op, void *closure) {
  (void)closure;
  return PyErr_Format(PyExc_AttributeError,
                      "%s holds host memory: no __cuda_array_interface__ (use __array_interface__ or np.asarray)",
                      ((vec_object *)op)->k->name);
}

static PyGetSetDef vec_numeric_getset[] = {
    {"__array_interface__", vec_array_interface, NULL,
     "NumPy array interface v3: a 1-D zero-copy view of the host array.", NULL},
    {"__cuda_array_interface__", vec_cuda_array_interface, NULL,
     "Not available: the data is in host memory (AttributeError).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* ---- types ----------------------------------------------------------------------------- */
int bfpy_init_vector(PyObject *m, int dim) {
  for (int i = 0; i < VEC_NKINDS; ++i) {
    const vec_kind *k = &vec_kinds[i];
    bool cmp = bf_vector_comparable(k->kind), num = k->format != NULL;
    PyType_Slot slots[24];
    int n = 0;
    slots[n++] = (PyType_Slot){Py_tp_doc, (void *)k->doc};
    slots[n++] = (PyType_Slot){Py_tp_new, vec_new};
    slots[n++] = (PyType_Slot){Py_tp_init, vec_init};
    slots[n++] = (PyType_Slot){Py_tp_dealloc, vec_dealloc};
    slots[n++] = (PyType_Slot){Py_tp_repr, vec_repr};
    slots[n++] = (PyType_Slot){Py_tp_hash, PyObject_HashNotImplemented};
    slots[n++] = (PyType_Slot){Py_tp_iter, vec_iter};
    slots[n++] = (PyType_Slot){Py_sq_length, vec_len};
    slots[n++] = (PyType_Slot){Py_sq_item, vec_item};
    slots[n++] = (PyType_Slot){Py_mp_length, vec_len};
    slots[n++] = (PyType_Slot){Py_mp_subscript, vec_subscript};
    slots[n++] = (PyType_Slot){Py_mp_ass_subscript, vec_ass_subscript};
    slots[n++] = (PyType_Slot){Py_nb_bool, vec_bool};
    slots[n++] = (PyType_Slot){Py_tp_methods, cmp ? vec_methods_cmp : vec_methods_plain};
    if (cmp) {
      slots[n++] = (PyType_Slot){Py_sq_contains, vec_contains};
      slots[n++] = (PyType_Slot){Py_tp_richcompare, vec_richcompare};
    }
    if (num) {
      slots[n++] = (PyType_Slot){Py_tp_getset, vec_numeric_getset};
      slots[n++] = (PyType_Slot){Py_bf_getbuffer, vec_getbuffer};
      slots[n++] = (PyType_Slot){Py_bf_releasebuffer, vec_releasebuffer};
    }
    slots[n++] = (PyType_Slot){0, NULL};
    PyType_Spec spec = {.name = k->name,
                        .basicsize = sizeof(vec_object),
                        .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_SEQUENCE,
                        .slots = slots};
    if (!bfpy_make_type(m, dim, k->id, k->name, &spec, NULL)) return -1;
  }
  return 0;
}
