/* boxfab._core: SmallMatrix_<R>x<C>_F_SI1_<float|double|longdouble>, AMReX's
 * small fixed-size matrix (AMReX_SmallMatrix.H) as pyAMReX 26 binds it:
 * column-major ("F") storage, indices starting at 1, a value type held in
 * the Python object.
 *
 * Shapes: 6x6, 6x1, 1x6, 3x6, 3x1 (pyAMReX's) and 6x3, 1x3 (so that .T of
 * every shape has a type).  Element types float, double, long double; long
 * double has no DLPack type, so its types have no __dlpack__.
 *
 * Semantics as AMReX's SmallMatrix: m[i, j] (vectors also m[i]), sum, prod
 * (product), trace (square), dot (sum of element-wise products), set_val,
 * zero(), identity() (square), .T (transpose), transpose_in_place()
 * (square), + - of one shape, * of a matrix and a scalar either way and of
 * two matrices whose inner sizes agree (the result shape must be one of the
 * above), unary -; the arithmetic in the element type, in AMReX's loop order.
 * Construction from nothing (zero), another SmallMatrix of the type (copy),
 * or any array-like (numpy.asarray): 1-D for vectors, 2-D for matrices, with
 * exactly rows * cols elements, copied in the array's C order into the
 * storage order (pyAMReX's: so [[1, 2, ...], ...] lists the columns).
 * Indices out of range raise SmallMatrixIndexError (an IndexError and, as
 * pyAMReX raises, a RuntimeError).
 *
 * Exports: __array_interface__ and DLPack give the storage in C index order,
 * shape (cols, rows); to_numpy(copy=False, order="F") is its transpose, shape
 * (rows, cols) and F-contiguous, so to_numpy()[i-1, j-1] == m[i, j].  The
 * consumer holds the matrix object. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "mesh/export.h"

enum { SM_FLOAT, SM_DOUBLE, SM_LDOUBLE, SM_NT };
enum { SM_MAX = 36 };

typedef struct {
  int r, c;
} sm_shape;
static const sm_shape shapes[] = {{6, 6}, {6, 1}, {1, 6}, {3, 6}, {3, 1}, {6, 3}, {1, 3}};
#define SM_NS ((int)(sizeof shapes / sizeof shapes[0]))

static const char *const t_names[SM_NT] = {"float", "double", "longdouble"};
static const size_t t_size[SM_NT] = {sizeof(float), sizeof(double), sizeof(long double)};
static const int t_dtype[SM_NT] = {BF_DTYPE_FLOAT, BF_DTYPE_DOUBLE, BF_DTYPE_LONGDOUBLE};

typedef struct {
  PyObject_HEAD
  int s, t; /* shape index, element type */
  union {
    float f[SM_MAX];
    double d[SM_MAX];
    long double l[SM_MAX];
  } v;
} sm_object;

#define SM(o) ((sm_object *)(o))

static PyTypeObject *sm_types[SM_NS][SM_NT];
static char sm_names[SM_NS][SM_NT][64];
static PyObject *sm_index_error; /* SmallMatrixIndexError(IndexError, RuntimeError) */

static int sm_rows(const sm_object *m) { return shapes[m->s].r; }
static int sm_cols(const sm_object *m) { return shapes[m->s].c; }
static int sm_n(const sm_object *m) { return sm_rows(m) * sm_cols(m); }

static int sm_type_of(PyTypeObject *tp, int *s, int *t) {
  for (int i = 0; i < SM_NS; ++i)
    for (int k = 0; k < SM_NT; ++k)
      if (sm_types[i][k] && (tp == sm_types[i][k] || PyType_IsSubtype(tp, sm_types[i][k]))) {
        *s = i, *t = k;
        return 0;
      }
  return -1;
}

static bool is_sm(PyObject *o) {
  int s, t;
  return sm_type_of(Py_TYPE(o), &s, &t) == 0;
}

static int shape_index(int r, int c) {
  for (int i = 0; i < SM_NS; ++i)
    if (shapes[i].r == r && shapes[i].c == c) return i;
  return -1;
}

/* A new zero matrix of shape s, type t (the base type, not a subclass). */
static sm_object *sm_alloc(int s, int t) {
  PyTypeObject *tp = sm_types[s][t];
  sm_object *o = (sm_object *)tp->tp_alloc(tp, 0);
  if (o) o->s = s, o->t = t;
  return o;
}

static long double get_k(const sm_object *m, int k) {
  switch (m->t) {
  case SM_FLOAT: return m->v.f[k];
  case SM_DOUBLE: return m->v.d[k];
  default: return m->v.l[k];
  }
}
static void set_k(sm_object *m, int k, long double x) {
  switch (m->t) {
  case SM_FLOAT: m->v.f[k] = (float)x; break;
  case SM_DOUBLE: m->v.d[k] = (double)x; break;
  default: m->v.l[k] = x; break;
  }
}
static PyObject *elem_obj(const sm_object *m, int k) { return PyFloat_FromDouble((double)get_k(m, k)); }
static int obj_elem(PyObject *o, long double *x) {
  double d;
  if (bfpy_to_double(o, &d, "value") < 0) return -1;
  *x = d;
  return 0;
}

/* ---- arithmetic in the element type (AMReX's loop order) -------------------------------------- */
#define SM_KERNELS(T, F)                                                                                        \
  static void F##_matmul(const T *a, const T *b, T *out, int r, int k, int c) {                                 \
    for (int j = 0; j < c; ++j)                                                                                 \
      for (int i = 0; i < r; ++i) {                                                                             \
        T s = 0;                                                                                                \
        for (int l = 0; l < k; ++l) s += a[i + l * r] * b[l + j * k];                                           \
        out[i + j * r] = s;                                                                                     \
      }                                                                                                         \
  }                                                                                                             \
  static void F##_axpby(const T *a, T sa, const T *b, T sb, T *out, int n) {                                    \
    for (int i = 0; i < n; ++i) out[i] = b ? sa * a[i] + sb * b[i] : sa * a[i];                                  \
  }                                                                                                             \
  static long double F##_reduce(const T *a, const T *b, int n, int kind, int r) {                               \
    T s = kind == 1 ? (T)1 : (T)0;                                                                              \
    if (kind == 3) {                                                                                            \
      for (int i = 0; i < r; ++i) s += a[i + i * r];                                                            \
      return s;                                                                                                 \
    }                                                                                                           \
    for (int i = 0; i < n; ++i) {                                                                               \
      if (kind == 0) s += a[i];                                                                                 \
      else if (kind == 1) s *= a[i];                                                                            \
      else s += a[i] * b[i];                                                                                    \
    }                                                                                                           \
    return s;                                                                                                   \
  }
SM_KERNELS(float, f)
SM_KERNELS(double, d)
SM_KERNELS(long double, l)

static void matmul(const sm_object *a, const sm_object *b, sm_object *out) {
  int r = sm_rows(a), k = sm_cols(a), c = sm_cols(b);
  switch (a->t) {
  case SM_FLOAT: f_matmul(a->v.f, b->v.f, out->v.f, r, k, c); break;
  case SM_DOUBLE: d_matmul(a->v.d, b->v.d, out->v.d, r, k, c); break;
  default: l_matmul(a->v.l, b->v.l, out->v.l, r, k, c); break;
  }
}

/* out = sa * a + sb * b (b may be NULL: out = sa * a) */
static void axpby(const sm_object *a, double sa, const sm_object *b, double sb, sm_object *out) {
  int n = sm_n(a);
  switch (a->t) {
  case SM_FLOAT: f_axpby(a->v.f, (float)sa, b ? b->v.f : NULL, (float)sb, out->v.f, n); break;
  case SM_DOUBLE: d_axpby(a->v.d, sa, b ? b->v.d : NULL, sb, out->v.d, n); break;
  default: l_axpby(a->v.l, sa, b ? b->v.l : NULL, sb, out->v.l, n); break;
  }
}

/* kind 0 sum, 1 product, 2 dot with b, 3 trace */
static long double reduce(const sm_object *a, const sm_object *b, int kind) {
  int n = sm_n(a), r = sm_rows(a);
  switch (a->t) {
  case SM_FLOAT: return f_reduce(a->v.f, b ? b->v.f : NULL, n, kind, r);
  case SM_DOUBLE: return d_reduce(a->v.d, b ? b->v.d : NULL, n, kind, r);
  default: return l_reduce(a->v.l, b ? b->v.l : NULL, n, kind, r);
  }
}

/* ---- construction ------------------------------------------------------------------------------ */
static PyObject *sm_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
  int s, t;
  if (sm_type_of(type, &s, &t) < 0) return PyErr_Format(PyExc_TypeError, "cannot create %s", type->tp_name);
  Py_ssize_t n = PyTuple_GET_SIZE(args);
  if ((kwds && PyDict_GET_SIZE(kwds)) || n > 1)
    return PyErr_Format(PyExc_TypeError, "%s() takes no keywords and at most one argument: (), (other), (array)",
                        type->tp_name);
  sm_object *o = (sm_object *)type->tp_alloc(type, 0);
  if (!o) return NULL;
  o->s = s, o->t = t;
  if (n == 0) return (PyObject *)o;
  PyObject *src = PyTuple_GET_ITEM(args, 0);
  if (is_sm(src)) {
    if (SM(src)->s != s || SM(src)->t != t) {
      Py_DECREF(o);
      return PyErr_Format(PyExc_TypeError, "%s(other): other must be a %s, not %s", type->tp_name, type->tp_name,
                          Py_TYPE(src)->tp_name);
    }
    memcpy(&o->v, &SM(src)->v, sizeof o->v);
    return (PyObject *)o;
  }
  /* any array-like, through numpy.asarray(src, dtype) in C order */
  static const char *const np_types[SM_NT] = {"float32", "float64", "longdouble"};
  PyObject *np = PyImport_ImportModule("numpy"), *arr = NULL;
  if (np) arr = PyObject_CallMethod(np, "ascontiguousarray", "Os", src, np_types[t]);
  Py_XDECREF(np);
  Py_buffer b;
  if (!arr || PyObject_GetBuffer(arr, &b, PyBUF_C_CONTIGUOUS | PyBUF_ND) < 0) {
    Py_XDECREF(arr);
    Py_DECREF(o);
    return NULL;
  }
  const int want_nd = (shapes[s].r == 1 || shapes[s].c == 1) ? 1 : 2;
  const Py_ssize_t want_n = sm_n(o);
  if (b.ndim != want_nd || b.len / (Py_ssize_t)t_size[t] != want_n) {
    PyErr_Format(PyExc_ValueError, "%s(array): expected a %dD array of %zd elements, got %dD with %zd", type->tp_name,
                 want_nd, want_n, b.ndim, b.len / (Py_ssize_t)t_size[t]);
    Py_CLEAR(o);
  } else {
    memcpy(&o->v, b.buf, (size_t)b.len);
  }
  PyBuffer_Release(&b);
  Py_DECREF(arr);
  return (PyObject *)o;
}

static PyObject *sm_zero(PyObject *cls, PyObject *noargs) {
  (void)noargs;
  return PyObject_CallNoArgs(cls);
}

static PyObject *sm_identity(PyObject *cls, PyObject *noargs) {
  (void)noargs;
  PyObject *o = PyObject_CallNoArgs(cls);
  if (!o) return NULL;
  for (int i = 0; i < sm_rows(SM(o)); ++i) set_k(SM(o), i + i * sm_rows(SM(o)), 1.0L);
  return o;
}

/* ---- element access ---------------------------------------------------------------------------- */
/* The storage index of key (m[i, j], or m[i] of a vector), 1-based; -1 with an exception. */
static int sm_key(PyObject *self, PyObject *key) {
  sm_object *m = SM(self);
  int r = sm_rows(m), c = sm_cols(m), i, j;
  if (PyTuple_Check(key) && PyTuple_GET_SIZE(key) == 2) {
    if (bfpy_to_int(PyTuple_GET_ITEM(key, 0), &i, "row") < 0 || bfpy_to_int(PyTuple_GET_ITEM(key, 1), &j, "column") < 0)
      return -1;
    if (i < 1 || i > r || j < 1 || j > c) {
      PyErr_Format(sm_index_error, "Index out of bounds: [%d, %d] (rows and columns start at 1: [1, %d] x [1, %d])",
                   i, j, r, c);
      return -1;
    }
    return (i - 1) + (j - 1) * r;
  }
  if (r != 1 && c != 1) {
    PyErr_Format(PyExc_TypeError, "a %dx%d matrix takes m[i, j] (two indices)", r, c);
    return -1;
  }
  if (bfpy_to_int(key, &i, "index") < 0) return -1;
  if (i < 1 || i > r * c) {
    PyErr_Format(sm_index_error, "Index out of bounds: %d (indices start at 1: [1, %d])", i, r * c);
    return -1;
  }
  return i - 1;
}

static PyObject *sm_getitem(PyObject *self, PyObject *key) {
  int k = sm_key(self, key);
  return k < 0 ? NULL : elem_obj(SM(self), k);
}

static int sm_setitem(PyObject *self, PyObject *key, PyObject *value) {
  if (!value) {
    PyErr_SetString(PyExc_TypeError, "SmallMatrix elements cannot be deleted");
    return -1;
  }
  long double x;
  int k = sm_key(self, key);
  if (k < 0 || obj_elem(value, &x) < 0) return -1;
  set_k(SM(self), k, x);
  return 0;
}

/* ---- methods ------------------------------------------------------------------------------------ */
static PyObject *ld_obj(long double x) { return PyFloat_FromDouble((double)x); }
static PyObject *sm_sum(PyObject *self, PyObject *noargs) {
  (void)noargs;
  return ld_obj(reduce(SM(self), NULL, 0));
}
static PyObject *sm_prod(PyObject *self, PyObject *noargs) {
  (void)noargs;
  return ld_obj(reduce(SM(self), NULL, 1));
}
static PyObject *sm_trace(PyObject *self, PyObject *noargs) {
  (void)noargs;
  return ld_obj(reduce(SM(self), NULL, 3));
}
static PyObject *sm_dot(PyObject *self, PyObject *other) {
  if (Py_TYPE(other) != Py_TYPE(self) &&
      !(is_sm(other) && SM(other)->s == SM(self)->s && SM(other)->t == SM(self)->t))
    return PyErr_Format(PyExc_TypeError, "dot: expected a %s, not %s", Py_TYPE(self)->tp_name, Py_TYPE(other)->tp_name);
  return ld_obj(reduce(SM(self), SM(other), 2));
}
static PyObject *sm_set_val(PyObject *self, PyObject *value) {
  long double x;
  if (obj_elem(value, &x) < 0) return NULL;
  for (int k = 0; k < sm_n(SM(self)); ++k) set_k(SM(self), k, x);
  Py_RETURN_NONE;
}

static PyObject *sm_transpose(PyObject *self, void *c) {
  (void)c;
  sm_object *m = SM(self);
  int r = sm_rows(m), n = sm_cols(m);
  sm_object *o = sm_alloc(shape_index(n, r), m->t);
  if (!o) return NULL;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < r; ++i) set_k(o, j + i * n, get_k(m, i + j * r));
  return (PyObject *)o;
}

static PyObject *sm_transpose_in_place(PyObject *self, PyObject *noargs) {
  (void)noargs;
  sm_object *m = SM(self);
  int r = sm_rows(m);
  for (int j = 0; j < r; ++j)
    for (int i = j + 1; i < r; ++i) {
      long double a = get_k(m, i + j * r), b = get_k(m, j + i * r);
      set_k(m, i + j * r, b);
      set_k(m, j + i * r, a);
    }
  return Py_NewRef(self);
}

/* ---- exports ------------------------------------------------------------------------------------ */
static void sm_xview(sm_object *m, bfpy_xview *x) {
  memset(x, 0, sizeof *x);
  x->p = &m->v;
  x->dtype = t_dtype[m->t];
  x->memory = BFPY_MEM_HOST;
  x->ndim = 2;
  x->shape[0] = sm_cols(m), x->shape[1] = sm_rows(m);
  x->strides[0] = sm_rows(m), x->strides[1] = 1;
}

static PyObject *sm_array_interface(PyObject *self, void *c) {
  (void)c;
  bfpy_xview x;
  sm_xview(SM(self), &x);
  return bfpy_x_interface_dict(&x);
}

static PyObject *sm_dlpack(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  bfpy_xview x;
  sm_xview(SM(self), &x);
  return bfpy_x_dlpack(self, &x, args, nargs, kwnames);
}

static PyObject *sm_dlpack_device(PyObject *self, PyObject *noargs) {
  (void)self, (void)noargs;
  return Py_BuildValue("(ii)", 1, 0); /* kDLCPU: the matrix lives in the Python object */
}

static PyObject *sm_to_numpy(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  int copy;
  bool c_order;
  if (bfpy_x_copy_order(args, nargs, kwnames, &copy, &c_order) < 0) return NULL;
  PyObject *np = PyImport_ImportModule("numpy"), *arr = NULL;
  if (np) arr = PyObject_CallMethod(np, "asarray", "O", self);
  Py_XDECREF(np);
  if (arr && !c_order) Py_SETREF(arr, PyObject_GetAttrString(arr, "T"));
  if (arr && copy) Py_SETREF(arr, PyObject_CallMethod(arr, "copy", "s", "K"));
  return arr;
}

static PyObject *sm_repr(PyObject *self) {
  /* NumPy's layout of to_numpy() (rows as printed rows), after the type's name */
  const char *n = strrchr(Py_TYPE(self)->tp_name, '.');
  n = n ? n + 1 : Py_TYPE(self)->tp_name;
  PyObject *a = sm_to_numpy(self, NULL, 0, NULL), *r = NULL;
  PyObject *np = a ? PyImport_ImportModule("numpy") : NULL;
  PyObject *f = np ? PyObject_GetAttrString(np, "array2string") : NULL;
  PyObject *prefix = f ? PyUnicode_FromFormat("%s(", n) : NULL;
  PyObject *kw = prefix ? Py_BuildValue("{s:s,s:O}", "separator", ", ", "prefix", prefix) : NULL;
  PyObject *pa = kw ? PyTuple_Pack(1, a) : NULL;
  PyObject *s = pa ? PyObject_Call(f, pa, kw) : NULL;
  if (s) r = PyUnicode_FromFormat("%U%U)", prefix, s);
  Py_XDECREF(a), Py_XDECREF(np), Py_XDECREF(f), Py_XDECREF(prefix), Py_XDECREF(kw), Py_XDECREF(pa), Py_XDECREF(s);
  return r;
}

static PyObject *sm_str(PyObject *self) {
  PyObject *a = sm_to_numpy(self, NULL, 0, NULL);
  if (!a) return NULL;
  PyObject *r = PyObject_Str(a);
  Py_DECREF(a);
  return r;
}

/* ---- operators ---------------------------------------------------------------------------------- */
static int as_scalar(PyObject *o, double *x) {
  if (!PyFloat_Check(o) && !PyLong_Check(o) && !PyNumber_Check(o)) return 0;
  if (PyUnicode_Check(o) || is_sm(o)) return 0;
  *x = PyFloat_AsDouble(o);
  if (*x == -1.0 && PyErr_Occurred()) {
    PyErr_Clear();
    return 0;
  }
  return 1;
}

static bool same_kind(PyObject *a, PyObject *b) {
  return is_sm(a) && is_sm(b) && SM(a)->s == SM(b)->s && SM(a)->t == SM(b)->t;
}

static PyObject *sm_binop(PyObject *a, PyObject *b, double sb) {
  if (!same_kind(a, b)) Py_RETURN_NOTIMPLEMENTED;
  sm_object *o = sm_alloc(SM(a)->s, SM(a)->t);
  if (o) axpby(SM(a), 1.0, SM(b), sb, o);
  return (PyObject *)o;
}
static PyObject *sm_add(PyObject *a, PyObject *b) { return sm_binop(a, b, 1.0); }
static PyObject *sm_sub(PyObject *a, PyObject *b) { return sm_binop(a, b, -1.0); }

static PyObject *sm_neg(PyObject *a) {
  sm_object *o = sm_alloc(SM(a)->s, SM(a)->t);
  if (o) axpby(SM(a), -1.0, NULL, 0.0, o);
  return (PyObject *)o;
}

static PyObject *sm_mul(PyObject *a, PyObject *b) {
  double x;
  if (is_sm(a) && is_sm(b)) {
    sm_object *l = SM(a), *r = SM(b);
    if (l->t != r->t) Py_RETURN_NOTIMPLEMENTED;
    int s = shape_index(sm_rows(l), sm_cols(r));
    if (sm_cols(l) != sm_rows(r) || s < 0)
      return PyErr_Format(PyExc_TypeError, "cannot multiply a %dx%d by a %dx%d SmallMatrix", sm_rows(l), sm_cols(l),
                          sm_rows(r), sm_cols(r));
    sm_object *o = sm_alloc(s, l->t);
    if (o) matmul(l, r, o);
    return (PyObject *)o;
  }
  PyObject *m = is_sm(a) ? a : b, *s = is_sm(a) ? b : a;
  if (!as_scalar(s, &x)) Py_RETURN_NOTIMPLEMENTED;
  sm_object *o = sm_alloc(SM(m)->s, SM(m)->t);
  if (o) axpby(SM(m), x, NULL, 0.0, o);
  return (PyObject *)o;
}

static PyObject *sm_imul(PyObject *a, PyObject *b) {
  double x;
  if (!is_sm(a) || !as_scalar(b, &x)) Py_RETURN_NOTIMPLEMENTED;
  axpby(SM(a), x, NULL, 0.0, SM(a));
  return Py_NewRef(a);
}

/* ---- getters ------------------------------------------------------------------------------------ */
static PyObject *g_size(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLong(sm_n(SM(self)));
}
static PyObject *g_rows(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLong(sm_rows(SM(self)));
}
static PyObject *g_cols(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLong(sm_cols(SM(self)));
}
static PyObject *g_order(PyObject *self, void *c) {
  (void)self, (void)c;
  return PyUnicode_FromString("F");
}
static PyObject *g_start(PyObject *self, void *c) {
  (void)self, (void)c;
  return PyLong_FromLong(1);
}

#define FAST(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS
#define SM_COMMON                                                                                                \
  {"zero", sm_zero, METH_NOARGS | METH_CLASS, "zero() -> a new zero matrix."},                                \
      {"sum", sm_sum, METH_NOARGS, "sum() -> float: the sum of the elements."},                               \
      {"prod", sm_prod, METH_NOARGS, "prod() -> float: the product of the elements."},                        \
      {"dot", sm_dot, METH_O, "dot(other, /) -> float: the sum of the element-wise products."},               \
      {"set_val", sm_set_val, METH_O, "set_val(value, /) -> None: every element = value."},                   \
      {"to_numpy", FAST(sm_to_numpy),                                                                         \
       "to_numpy(copy=False, order='F'): a NumPy view (copy): F [i-1, j-1] = m[i, j], C its transpose."}
#define SM_SQUARE                                                                                                \
  {"identity", sm_identity, METH_NOARGS | METH_CLASS, "identity() -> a new identity matrix."},                \
      {"trace", sm_trace, METH_NOARGS, "trace() -> float: the sum of the diagonal."},                         \
      {"transpose_in_place", sm_transpose_in_place, METH_NOARGS, "transpose_in_place() -> self, transposed."}
#define SM_DLPACK                                                                                                \
  {"__dlpack__", FAST(sm_dlpack), "__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None)."}, \
      {"__dlpack_device__", sm_dlpack_device, METH_NOARGS, "__dlpack_device__() -> (1, 0): host memory."}
#define SM_END {NULL, NULL, 0, NULL}

static PyMethodDef m_sq_dl[] = {SM_COMMON, SM_SQUARE, SM_DLPACK, SM_END};
static PyMethodDef m_sq[] = {SM_COMMON, SM_SQUARE, SM_END};
static PyMethodDef m_dl[] = {SM_COMMON, SM_DLPACK, SM_END};
static PyMethodDef m_plain[] = {SM_COMMON, SM_END};

static PyGetSetDef sm_getset[] = {
    {"size", g_size, NULL, "Number of elements.", NULL},
    {"row_size", g_rows, NULL, "Number of rows.", NULL},
    {"column_size", g_cols, NULL, "Number of columns.", NULL},
    {"order", g_order, NULL, "Storage order: \"F\" (column-major).", NULL},
    {"starting_index", g_start, NULL, "First index: 1.", NULL},
    {"T", sm_transpose, NULL, "The transpose (a new matrix).", NULL},
    {"__array_interface__", sm_array_interface, NULL, "NumPy array interface v3: shape (cols, rows).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* almost_equal(x, y, ulp=2): AMReX's amrex::almostEqual (AMReX_Algorithm.H) for doubles:
 * |x - y| <= eps * |x + y| * ulp, or |x - y| below the smallest normal double. */
static PyObject *almost_equal(PyObject *mod, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  (void)mod;
  static const char *const names[] = {"x", "y", "ulp", NULL};
  PyObject *a[3];
  double x, y;
  int ulp = 2;
  if (bfpy_bind(args, nargs, kwnames, names, 2, a, true) < 0 || bfpy_to_double(a[0], &x, "x") < 0 ||
      bfpy_to_double(a[1], &y, "y") < 0 || (a[2] && bfpy_to_int(a[2], &ulp, "ulp") < 0))
    return NULL;
  double d = fabs(x - y);
  return PyBool_FromLong(d <= DBL_EPSILON * fabs(x + y) * ulp || d < DBL_MIN);
}

static PyMethodDef sm_functions[] = {
    {"almost_equal", (PyCFunction)(void (*)(void))almost_equal, METH_FASTCALL | METH_KEYWORDS,
     "almost_equal(x, y, ulp=2) -> bool: equal within ulp units in the last place (amrex::almostEqual)."},
    {NULL, NULL, 0, NULL},
};

int bfpy_init_smallmatrix(PyObject *m, int dim) {
  if (dim == 1) {
    PyObject *bases = PyTuple_Pack(2, PyExc_IndexError, PyExc_RuntimeError);
    if (!bases) return -1;
    sm_index_error = PyErr_NewExceptionWithDoc(
        "boxfab.SmallMatrixIndexError", "A SmallMatrix index out of range (an IndexError; pyAMReX raises RuntimeError).",
        bases, NULL);
    Py_DECREF(bases);
    if (!sm_index_error) return -1;
    for (int s = 0; s < SM_NS; ++s)
      for (int t = 0; t < SM_NT; ++t) {
        bool square = shapes[s].r == shapes[s].c, dl = t != SM_LDOUBLE;
        PyType_Slot slots[] = {
            {Py_tp_doc, "SmallMatrix_<R>x<C>_F_SI1_<T>() / (other) / (array): AMReX's small column-major matrix, "
                        "indices from 1."},
            {Py_tp_new, sm_new},
            {Py_tp_repr, sm_repr},
            {Py_tp_str, sm_str},
            {Py_tp_methods, square ? (dl ? m_sq_dl : m_sq) : (dl ? m_dl : m_plain)},
            {Py_tp_getset, sm_getset},
            {Py_mp_subscript, sm_getitem},
            {Py_mp_ass_subscript, sm_setitem},
            {Py_nb_add, sm_add},
            {Py_nb_subtract, sm_sub},
            {Py_nb_multiply, sm_mul},
            {Py_nb_inplace_multiply, sm_imul},
            {Py_nb_negative, sm_neg},
            {0, NULL},
        };
        snprintf(sm_names[s][t], sizeof sm_names[s][t], "boxfab.SmallMatrix_%dx%d_F_SI1_%s", shapes[s].r,
                 shapes[s].c, t_names[t]);
        PyType_Spec spec = {.name = sm_names[s][t], .basicsize = sizeof(sm_object),
                            .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, .slots = slots};
        if (!(sm_types[s][t] = (PyTypeObject *)PyType_FromSpec(&spec))) return -1;
      }
  }
  for (int s = 0; s < SM_NS; ++s)
    for (int t = 0; t < SM_NT; ++t)
      if (PyModule_AddObjectRef(m, strchr(sm_names[s][t], '.') + 1, (PyObject *)sm_types[s][t]) < 0) return -1;
  if (PyModule_AddFunctions(m, sm_functions) < 0) return -1;
  return PyModule_AddObjectRef(m, "SmallMatrixIndexError", sm_index_error);
}
