/* boxfab._core: Array4_<T> and Array4_<T>_const — the types, constructors,
 * indexing and properties.  Export and import live in mesh/array4_export.c and
 * mesh/array4_import.c (see mesh/array4.h for the layout of the family). */
#include <complex.h>
#include <limits.h>
#include <string.h>

#include "mesh/array4.h"

bfpy_a4_kind bfpy_a4_kinds[BF_DTYPE_COUNT] = {
    [BF_DTYPE_DOUBLE] = {"double", 'f', "d", kDLFloat, 64, "", 0},
    [BF_DTYPE_FLOAT] = {"float", 'f', "f", kDLFloat, 32, "", 0},
    [BF_DTYPE_LONGDOUBLE] = {"longdouble", 'f', "g", kDLFloat, 0, "", 0},
    [BF_DTYPE_CDOUBLE] = {"cdouble", 'c', "Zd", kDLComplex, 128, "", 0},
    [BF_DTYPE_CFLOAT] = {"cfloat", 'c', "Zf", kDLComplex, 64, "", 0},
    [BF_DTYPE_SHORT] = {"short", 'i', "h", kDLInt, 8 * sizeof(short), "", 0},
    [BF_DTYPE_INT] = {"int", 'i', "i", kDLInt, 8 * sizeof(int), "", 0},
    [BF_DTYPE_LONG] = {"long", 'i', "l", kDLInt, 8 * sizeof(long), "", 0},
    [BF_DTYPE_LONGLONG] = {"longlong", 'i', "q", kDLInt, 8 * sizeof(long long), "", 0},
    [BF_DTYPE_USHORT] = {"ushort", 'u', "H", kDLUInt, 8 * sizeof(unsigned short), "", 0},
    [BF_DTYPE_UINT] = {"uint", 'u', "I", kDLUInt, 8 * sizeof(unsigned), "", 0},
    [BF_DTYPE_ULONG] = {"ulong", 'u', "L", kDLUInt, 8 * sizeof(unsigned long), "", 0},
    [BF_DTYPE_ULONGLONG] = {"ulonglong", 'u', "Q", kDLUInt, 8 * sizeof(unsigned long long), "", 0},
};

PyTypeObject *bfpy_array4_types[BF_SPACEDIM_MAX + 1][BF_DTYPE_COUNT][2];
/* tp_name must outlive the types. */
static char a4_type_names[BF_SPACEDIM_MAX + 1][BF_DTYPE_COUNT][2][64];

int bfpy_array4_type_info(PyTypeObject *t, int *dim, int *dtype, bool *is_const) {
  for (int d = 1; d <= BF_SPACEDIM_MAX; ++d)
    for (int k = 0; k < BF_DTYPE_COUNT; ++k)
      for (int c = 0; c < 2; ++c) {
        PyTypeObject *u = bfpy_array4_types[d][k][c];
        if (u && (t == u || PyType_IsSubtype(t, u))) {
          *dim = d, *dtype = k, *is_const = c;
          return 0;
        }
      }
  return -1;
}

static inline bfpy_array4_object *A4(PyObject *o) { return (bfpy_array4_object *)o; }

static const char *a4_name(const bfpy_array4_object *o) {
  return Py_TYPE(o)->tp_name; /* "boxfab.spaceNd.Array4_double" */
}

/* Replace the view and owner of `self` (steals nothing; owner gets a new reference). */
static int a4_set(bfpy_array4_object *self, const bf_array4 *a, PyObject *owner, int flags, int memory) {
  if (self->exports > 0) {
    PyErr_SetString(PyExc_BufferError, "cannot re-initialize an Array4 while a buffer export of it is alive");
    return -1;
  }
  PyObject *old = self->owner;
  self->a = *a;
  Py_XINCREF(owner);
  self->owner = owner;
  self->flags = flags;
  self->memory = memory;
  Py_XDECREF(old);
  return 0;
}

/* ---- construction ------------------------------------------------------------ */
PyObject *bfpy_array4_new(int dim, const bf_array4 *a, bool is_const, PyObject *owner, int memory) {
  if (dim < 1 || dim > BF_SPACEDIM_MAX || a->dtype < 0 || a->dtype >= BF_DTYPE_COUNT ||
      !bfpy_array4_types[dim][a->dtype][is_const]) {
    PyErr_Format(PyExc_RuntimeError, "boxfab: no Array4 type for dimension %d and element type %d", dim, a->dtype);
    return NULL;
  }
  if (bfpy_check(bf_array4_check(a)) < 0) return NULL;
  PyTypeObject *t = bfpy_array4_types[dim][a->dtype][is_const];
  bfpy_array4_object *o = (bfpy_array4_object *)t->tp_alloc(t, 0);
  if (!o) return NULL;
  o->dim = dim;
  o->a = bf_array4_empty(a->dtype);
  if (a4_set(o, a, owner, is_const ? BFPY_A4_CONST : 0, memory) < 0) {
    Py_DECREF(o);
    return NULL;
  }
  return (PyObject *)o;
}

static PyObject *a4_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
  (void)args, (void)kwds;
  int dim, dtype;
  bool is_const;
  if (bfpy_array4_type_info(type, &dim, &dtype, &is_const) < 0) {
    PyErr_Format(PyExc_TypeError, "cannot create '%.100s' instances: use one of the Array4_<T> types",
                 type->tp_name);
    return NULL;
  }
  bfpy_array4_object *o = (bfpy_array4_object *)type->tp_alloc(type, 0);
  if (!o) return NULL;
  o->dim = dim;
  o->a = bf_array4_empty(dtype);
  o->flags = is_const ? BFPY_A4_CONST : 0;
  o->memory = BFPY_MEM_HOST;
  return (PyObject *)o;
}

static const char a4_init_sigs[] =
    "(), (other: Array4, /), (other: Array4, start_comp: int, /), (other: Array4, start_comp: int, num_comps: "
    "int, /), (arr: an object with __dlpack__, __array_interface__ or the buffer protocol, /)";

/* Alias or sub-view of another Array4 of the same element type. */
static int a4_init_from_array4(bfpy_array4_object *self, bfpy_array4_object *other, PyObject *start_o,
                               PyObject *num_o) {
  bool self_const = self->flags & BFPY_A4_CONST;
  if (!self_const && (other->flags & BFPY_A4_CONST)) {
    PyErr_Format(PyExc_ValueError, "%s: cannot make a mutable view of the read-only %s", a4_name(self),
                 a4_name(other));
    return -1;
  }
  bf_array4 a = other->a;
  if (start_o) {
    int start, num;
    if (bfpy_to_int(start_o, &start, "start_comp") < 0) return -1;
    if (num_o && bfpy_to_int(num_o, &num, "num_comps") < 0) return -1;
    if (!num_o && (start < 0 || start >= other->a.ncomp)) {
      PyErr_Format(PyExc_IndexError, "start component %d out of range [0, %d)", start, other->a.ncomp);
      return -1;
    }
    if (!num_o) num = other->a.ncomp - start; /* start is in range: no wrap */
    if (bfpy_check(bf_array4_subview(&other->a, start, num, &a)) < 0) return -1;
  }
  int flags = (self->flags & BFPY_A4_CONST) | (other->flags & BFPY_A4_SRC_READONLY);
  return a4_set(self, &a, other->owner, flags, other->memory);
}

static int a4_init(PyObject *self_o, PyObject *args, PyObject *kwds) {
  bfpy_array4_object *self = A4(self_o);
  if (kwds && PyDict_GET_SIZE(kwds)) {
    PyErr_Format(PyExc_TypeError, "%s() takes positional arguments only; supported signatures: %s", a4_name(self),
                 a4_init_sigs);
    return -1;
  }
  Py_ssize_t n = PyTuple_GET_SIZE(args);
  int dim, dtype;
  bool is_const;
  if (bfpy_array4_type_info(Py_TYPE(self), &dim, &dtype, &is_const) < 0) {
    PyErr_SetString(PyExc_TypeError, "not an Array4 type");
    return -1;
  }
  if (self->owner) {
    /* An Array4 that views memory is a fixed view: exports of it (DLPack
     * capsules, NumPy arrays of __array_interface__, FArrayBox aliases) hold
     * this object, not its owner, so re-pointing it would free memory they
     * still read. */
    PyErr_Format(PyExc_RuntimeError,
                 "%s.__init__: this Array4 already views memory and cannot be re-initialized (views made from it "
                 "would dangle); make a new Array4 instead",
                 a4_name(self));
    return -1;
  }
  self->flags = is_const ? BFPY_A4_CONST : 0;
  if (n == 0) {
    bf_array4 e = bf_array4_empty(dtype);
    return a4_set(self, &e, NULL, self->flags, BFPY_MEM_HOST);
  }
  PyObject *first = PyTuple_GET_ITEM(args, 0);
  bool first_is_a4 = bfpy_is(first, BFPY_T_ARRAY4, -1) && A4(first)->a.dtype == dtype;
  if (first_is_a4 && A4(first)->dim != dim) {
    bfpy_dim_mismatch(a4_name(self), dim, A4(first)->dim);
    return -1;
  }
  if (first_is_a4 && n <= 3) {
    if (a4_init_from_array4(self, A4(first), n > 1 ? PyTuple_GET_ITEM(args, 1) : NULL,
                            n > 2 ? PyTuple_GET_ITEM(args, 2) : NULL) < 0)
      return -1;
    bfpy_array4_keep((PyObject *)self, first);
    return 0;
  }
  if (n == 1) return bfpy_array4_import(self, first);
  PyObject *r = bfpy_no_overload(a4_name(self), &PyTuple_GET_ITEM(args, 0), n, NULL, a4_init_sigs);
  (void)r;
  return -1;
}

void bfpy_array4_keep(PyObject *a4, PyObject *source) { Py_XSETREF(A4(a4)->source, Py_XNewRef(source)); }

static void a4_dealloc(PyObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  Py_CLEAR(A4(self)->owner);
  Py_CLEAR(A4(self)->source);
  tp->tp_free(self);
  Py_DECREF(tp);
}

/* ---- indexing ------------------------------------------------------------------ */
/* Parse a key into absolute (i, j, k, n). */
static int a4_key_count_error(bfpy_array4_object *self, Py_ssize_t n) {
  PyErr_Format(PyExc_IndexError,
               "%s index takes 3 (i, j, k) or 4 (i, j, k, n) integers or an IntVect%dD, got %zd %s",
               a4_name(self), self->dim, n, n == 1 ? "index" : "indices");
  return -1;
}

static int a4_key(bfpy_array4_object *self, PyObject *key, int64_t idx[4]) {
  idx[0] = idx[1] = idx[2] = idx[3] = 0;
  if (bfpy_is(key, BFPY_T_INTVECT, -1)) {
    bf_intvect iv;
    if (bfpy_as_intvect(key, self->dim, 0, &iv, "Array4 index") < 0) return -1;
    for (int d = 0; d < iv.dim; ++d) idx[d] = iv.v[d];
    return 0;
  }
  int kind = PyTuple_Check(key) || PyList_Check(key) ? BFPY_ARG_SEQUENCE : bfpy_arg_kind(key, false);
  if (kind < 0) return -1;
  if (kind == BFPY_ARG_SEQUENCE) {
    /* a tuple (a[i, j, k]), a list, or any other sequence of ints (a NumPy
     * array, a range), read into a tuple first (at most 4 items + 1) */
    PyObject *t;
    if (PyTuple_Check(key) || PyList_Check(key)) {
      Py_ssize_t n = PySequence_Fast_GET_SIZE(key);
      if (n != 3 && n != 4) return a4_key_count_error(self, n);
      t = PySequence_Tuple(key);
    } else {
      Py_ssize_t n = PySequence_Size(key);
      if (n < 0) {
        if (!PyErr_ExceptionMatches(PyExc_TypeError)) return -1;
        PyErr_Clear(); /* no length: counted while reading */
      } else if (n != 3 && n != 4) {
        return a4_key_count_error(self, n);
      }
      t = bfpy_fast_sequence(key, 5, NULL, NULL, "Array4 index", "integers");
    }
    if (!t) return -1;
    Py_ssize_t n = PyTuple_GET_SIZE(t);
    if (n != 3 && n != 4) { /* a list or a sequence whose length changed while read */
      Py_DECREF(t);
      return a4_key_count_error(self, n);
    }
    static const char *const what[4] = {"Array4 index i", "Array4 index j", "Array4 index k",
                                        "Array4 component index n"};
    for (Py_ssize_t d = 0; d < n; ++d)
      if (bfpy_to_int64(PyTuple_GET_ITEM(t, d), &idx[d], what[d]) < 0) {
        Py_DECREF(t);
        return -1;
      }
    Py_DECREF(t);
    return 0;
  }
  if (kind == BFPY_ARG_SCALAR) return a4_key_count_error(self, 1);
  PyErr_Format(PyExc_TypeError, "%s indices must be (i, j, k), (i, j, k, n) or an IntVect%dD, not %.100s",
               a4_name(self), self->dim, Py_TYPE(key)->tp_name);
  return -1;
}

static void *a4_element(bfpy_array4_object *self, PyObject *key) {
  int64_t idx[4], off;
  if (a4_key(self, key, idx) < 0) return NULL;
  if (bfpy_check(bf_array4_index(&self->a, idx[0], idx[1], idx[2], idx[3], &off)) < 0) return NULL;
  return (char *)self->a.p + off * (int64_t)bfpy_a4_kinds[self->a.dtype].itemsize;
}

/* One element's bytes, read on the host (GPU memory through a small copy). */
typedef union {
  long double ld;
  double _Complex z;
  long long ll;
  char bytes[32];
} a4_elem_buf;

static PyObject *a4_getitem(PyObject *self, PyObject *key) {
  void *src = a4_element(A4(self), key);
  if (!src) return NULL;
  a4_elem_buf buf;
  void *e = &buf;
  if (bfpy_mem_read(e, src, bfpy_a4_kinds[A4(self)->a.dtype].itemsize, A4(self)->memory) < 0) return NULL;
  switch (A4(self)->a.dtype) {
  case BF_DTYPE_DOUBLE: return PyFloat_FromDouble(*(double *)e);
  case BF_DTYPE_FLOAT: return PyFloat_FromDouble(*(float *)e);
  case BF_DTYPE_LONGDOUBLE: return PyFloat_FromDouble((double)*(long double *)e);
  case BF_DTYPE_CDOUBLE: {
    double _Complex z = *(double _Complex *)e;
    return PyComplex_FromDoubles(creal(z), cimag(z));
  }
  case BF_DTYPE_CFLOAT: {
    float _Complex z = *(float _Complex *)e;
    return PyComplex_FromDoubles(crealf(z), cimagf(z));
  }
  case BF_DTYPE_SHORT: return PyLong_FromLong(*(short *)e);
  case BF_DTYPE_INT: return PyLong_FromLong(*(int *)e);
  case BF_DTYPE_LONG: return PyLong_FromLong(*(long *)e);
  case BF_DTYPE_LONGLONG: return PyLong_FromLongLong(*(long long *)e);
  case BF_DTYPE_USHORT: return PyLong_FromUnsignedLong(*(unsigned short *)e);
  case BF_DTYPE_UINT: return PyLong_FromUnsignedLong(*(unsigned *)e);
  case BF_DTYPE_ULONG: return PyLong_FromUnsignedLong(*(unsigned long *)e);
  case BF_DTYPE_ULONGLONG: return PyLong_FromUnsignedLongLong(*(unsigned long long *)e);
  }
  PyErr_SetString(PyExc_RuntimeError, "boxfab: bad Array4 element type");
  return NULL;
}

static int a4_overflow(bfpy_array4_object *self, PyObject *v) {
  PyErr_Format(PyExc_OverflowError, "value %R does not fit in the elements of %s", v, a4_name(self));
  return -1;
}

/* Integer value into a signed range [lo, hi]. */
static int a4_signed(bfpy_array4_object *self, PyObject *v, long long lo, long long hi, long long *out) {
  int64_t x;
  if (bfpy_to_int64(v, &x, "Array4 element") < 0) {
    if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
      PyErr_Clear();
      return a4_overflow(self, v);
    }
    return -1;
  }
  if (x < lo || x > hi) return a4_overflow(self, v);
  *out = x;
  return 0;
}

static int a4_unsigned(bfpy_array4_object *self, PyObject *v, unsigned long long hi, unsigned long long *out) {
  if (!bfpy_is_intlike(v)) {
    PyErr_Format(PyExc_TypeError, "Array4 element must be an int, not %.100s", Py_TYPE(v)->tp_name);
    return -1;
  }
  PyObject *idx = PyNumber_Index(v);
  if (!idx) return -1;
  unsigned long long x = PyLong_AsUnsignedLongLong(idx);
  Py_DECREF(idx);
  if (x == (unsigned long long)-1 && PyErr_Occurred()) {
    if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return -1;
    PyErr_Clear();
    return a4_overflow(self, v);
  }
  if (x > hi) return a4_overflow(self, v);
  *out = x;
  return 0;
}

static int a4_setitem(PyObject *self_o, PyObject *key, PyObject *v) {
  bfpy_array4_object *self = A4(self_o);
  if (!v) {
    PyErr_Format(PyExc_TypeError, "%s elements cannot be deleted", a4_name(self));
    return -1;
  }
  if (self->flags & BFPY_A4_CONST) {
    PyErr_Format(PyExc_TypeError, "%s is read-only", a4_name(self));
    return -1;
  }
  /* Convert first so that a bad value leaves the element unchanged. */
  double d = 0;
  Py_complex z = {0, 0};
  long long s = 0;
  unsigned long long u = 0;
  const int t = self->a.dtype;
  switch (bfpy_a4_kinds[t].kind) {
  case 'f':
    if (bfpy_to_double(v, &d, "Array4 element") < 0) return -1;
    break;
  case 'c':
    if (PyUnicode_Check(v) || PyBytes_Check(v) ||
        !(PyComplex_Check(v) || PyFloat_Check(v) || PyLong_Check(v) || PyObject_HasAttrString(v, "__complex__") ||
          (Py_TYPE(v)->tp_as_number && Py_TYPE(v)->tp_as_number->nb_float))) {
      PyErr_Format(PyExc_TypeError, "Array4 element must be a complex number, not %.100s", Py_TYPE(v)->tp_name);
      return -1;
    }
    z = PyComplex_AsCComplex(v);
    if (z.real == -1.0 && PyErr_Occurred()) return -1;
    break;
  case 'i': {
    long long lo = t == BF_DTYPE_SHORT ? SHRT_MIN : t == BF_DTYPE_INT ? INT_MIN : t == BF_DTYPE_LONG ? LONG_MIN : LLONG_MIN;
    long long hi = t == BF_DTYPE_SHORT ? SHRT_MAX : t == BF_DTYPE_INT ? INT_MAX : t == BF_DTYPE_LONG ? LONG_MAX : LLONG_MAX;
    if (a4_signed(self, v, lo, hi, &s) < 0) return -1;
    break;
  }
  default: {
    unsigned long long hi = t == BF_DTYPE_USHORT ? USHRT_MAX
                            : t == BF_DTYPE_UINT ? UINT_MAX
                            : t == BF_DTYPE_ULONG ? ULONG_MAX
                                                  : ULLONG_MAX;
    if (a4_unsigned(self, v, hi, &u) < 0) return -1;
    break;
  }
  }
  void *dst = a4_element(self, key);
  if (!dst) return -1;
  a4_elem_buf buf;
  void *e = &buf;
  switch (t) {
  case BF_DTYPE_DOUBLE: *(double *)e = d; break;
  case BF_DTYPE_FLOAT: *(float *)e = (float)d; break;
  case BF_DTYPE_LONGDOUBLE: *(long double *)e = d; break;
  /* a complex number is laid out as its real part, then its imaginary part (C11 6.2.5); not CMPLX,
   * which clang 14 with glibc 2.36 lacks (the module then fails to load: an undefined symbol) */
  case BF_DTYPE_CDOUBLE: ((double *)e)[0] = z.real, ((double *)e)[1] = z.imag; break;
  case BF_DTYPE_CFLOAT: ((float *)e)[0] = (float)z.real, ((float *)e)[1] = (float)z.imag; break;
  case BF_DTYPE_SHORT: *(short *)e = (short)s; break;
  case BF_DTYPE_INT: *(int *)e = (int)s; break;
  case BF_DTYPE_LONG: *(long *)e = (long)s; break;
  case BF_DTYPE_LONGLONG: *(long long *)e = s; break;
  case BF_DTYPE_USHORT: *(unsigned short *)e = (unsigned short)u; break;
  case BF_DTYPE_UINT: *(unsigned *)e = (unsigned)u; break;
  case BF_DTYPE_ULONG: *(unsigned long *)e = (unsigned long)u; break;
  case BF_DTYPE_ULONGLONG: *(unsigned long long *)e = u; break;
  }
  return bfpy_mem_write(dst, e, bfpy_a4_kinds[t].itemsize, self->memory);
}

/* ---- methods and properties ------------------------------------------------------ */
static const char a4_contains_sigs[] = "(i: int, j: int, k: int, /), (iv: IntVect, /), (d: Dim3, /)";

static PyObject *a4_contains(PyObject *self_o, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  bfpy_array4_object *self = A4(self_o);
  int64_t p[3] = {0, 0, 0};
  int kind;
  if (kwnames && PyTuple_GET_SIZE(kwnames))
    return bfpy_no_overload("contains", args, nargs, kwnames, a4_contains_sigs);
  if (nargs == 3) {
    if (bfpy_to_int64(args[0], &p[0], "i") < 0 || bfpy_to_int64(args[1], &p[1], "j") < 0 ||
        bfpy_to_int64(args[2], &p[2], "k") < 0)
      return NULL;
  } else if (nargs == 1 && bfpy_is(args[0], BFPY_T_DIM3, 0)) {
    bfpy_dim3_object *d = (bfpy_dim3_object *)args[0];
    p[0] = d->x, p[1] = d->y, p[2] = d->z;
  } else if (nargs == 1 && (kind = bfpy_arg_kind(args[0], false)) != BFPY_ARG_OTHER && kind != BFPY_ARG_SCALAR) {
    bf_intvect iv;
    if (kind < 0 || bfpy_as_intvect(args[0], self->dim, BFPY_IV_SEQUENCE, &iv, "contains(iv)") < 0) return NULL;
    for (int d = 0; d < iv.dim; ++d) p[d] = iv.v[d];
  } else {
    return bfpy_no_overload("contains", args, nargs, kwnames, a4_contains_sigs);
  }
  return PyBool_FromLong(bf_array4_contains(&self->a, p[0], p[1], p[2]));
}

/* a(box, comp=0, di=0, dj=0, dk=0): the cells of `box` (shifted by di, dj,
 * dk) of component `comp`, as a view in the array library of to_xp (NumPy on
 * the host, CuPy on the GPU), indexed [x, y, z] over the module's dimensions
 * only.  The index space of the Array4 is global (its lbound is the fab's
 * small end), so a(bx) is the tile bx of the fab, and a(bx, di=-1) the same
 * tile one cell lower in x: AMReX's a(i-1, j, k) over a whole box.  A region
 * that leaves the view, or a component out of range, raises IndexError
 * (slicing would silently clip it). */
static PyObject *a4_call_fast(PyObject *self_o, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"box", "comp", "di", "dj", "dk", NULL};
  bfpy_array4_object *self = A4(self_o);
  PyObject *a[5];
  bf_box box;
  int comp = 0;
  int64_t sh[3] = {0, 0, 0};
  if (bfpy_bind(args, nargs, kwnames, names, 1, a, true) < 0 ||
      bfpy_as_box(a[0], self->dim, &box, "Array4(box)") < 0 || (a[1] && bfpy_to_int(a[1], &comp, "comp") < 0))
    return NULL;
  for (int d = 0; d < 3; ++d) {
    if (a[2 + d] && bfpy_to_int64(a[2 + d], &sh[d], names[2 + d]) < 0) return NULL;
    if (sh[d] != 0 && d >= self->dim)
      return PyErr_Format(PyExc_ValueError, "Array4(box, %s=...): a %dD array has no direction %d", names[2 + d],
                          self->dim, d);
  }
  const bf_array4 *v = &self->a;
  if (comp < 0 || comp >= v->ncomp)
    return PyErr_Format(PyExc_IndexError, "Array4(box, comp=%d): component out of range [0, %d)", comp, v->ncomp);
  int64_t lo[3], hi[3];
  for (int d = 0; d < 3; ++d) {
    lo[d] = d < self->dim ? (int64_t)box.lo[d] + sh[d] : v->begin[d];
    hi[d] = d < self->dim ? (int64_t)box.hi[d] + sh[d] : v->begin[d];
    if (hi[d] < lo[d]) lo[d] = hi[d] + 1; /* an empty box: an empty view */
    if (lo[d] < v->begin[d] || hi[d] >= v->end[d])
      return PyErr_Format(PyExc_IndexError,
                          "Array4(box): cells %lld..%lld in direction %d leave the array's %lld..%lld", (long long)lo[d],
                          (long long)hi[d], d, (long long)v->begin[d], (long long)v->end[d] - 1);
  }
  PyObject *arr = bfpy_array4_to_xp(self_o, NULL, 0, NULL);
  if (!arr) return NULL;
  /* the F-order view is [x, y, z, comp]: slice the module's directions, take index 0 of
   * the others (their extent is 1) and the component */
  PyObject *key = PyTuple_New(4), *out = NULL;
  for (int d = 0; d < 4 && key; ++d) {
    PyObject *item;
    if (d == 3) {
      item = PyLong_FromLong(comp);
    } else if (d >= self->dim) {
      item = PyLong_FromLong(0);
    } else {
      PyObject *start = PyLong_FromLongLong(lo[d] - v->begin[d]), *stop = PyLong_FromLongLong(hi[d] + 1 - v->begin[d]);
      item = start && stop ? PySlice_New(start, stop, NULL) : NULL;
      Py_XDECREF(start), Py_XDECREF(stop);
    }
    if (!item) Py_CLEAR(key);
    else PyTuple_SET_ITEM(key, d, item);
  }
  if (key) out = PyObject_GetItem(arr, key);
  Py_XDECREF(key);
  Py_DECREF(arr);
  return out;
}

static PyObject *a4_call(PyObject *self, PyObject *args, PyObject *kwds) {
  return bfpy_call_vectorcall(self, args, kwds, a4_call_fast);
}

static PyObject *a4_size(PyObject *self, void *closure) {
  (void)closure;
  return PyLong_FromLongLong(bf_array4_size(&A4(self)->a));
}

static PyObject *a4_ncomp(PyObject *self, void *closure) {
  (void)closure;
  return PyLong_FromLong(A4(self)->a.ncomp);
}

static PyObject *a4_repr(PyObject *self_o) {
  bfpy_array4_object *self = A4(self_o);
  const bf_array4 *a = &self->a;
  const char *name = strrchr(a4_name(self), '.');
  return PyUnicode_FromFormat("%s(lbound=(%lld, %lld, %lld), ubound=(%lld, %lld, %lld), ncomp=%d)",
                              name ? name + 1 : a4_name(self), (long long)a->begin[0], (long long)a->begin[1],
                              (long long)a->begin[2], (long long)a->end[0] - 1, (long long)a->end[1] - 1,
                              (long long)a->end[2] - 1, a->ncomp);
}

const bf_array4 *bfpy_array4_view(PyObject *o) {
  return bfpy_is(o, BFPY_T_ARRAY4, -1) ? &A4(o)->a : NULL;
}

PyObject *bfpy_array4_bounds(PyObject *o, int dim, int which) {
  const bf_array4 *a = bfpy_array4_view(o);
  if (!a) return NULL;
  if (A4(o)->dim != dim) { /* space3d.lbound(a 1D Array4): objects of different dimensions do not mix */
    static const char *const names[3] = {"lbound", "ubound", "length"};
    return bfpy_dim_mismatch(names[which < 0 || which > 2 ? 0 : which], dim, A4(o)->dim);
  }
  int64_t v[3];
  for (int d = 0; d < 3; ++d) {
    v[d] = which == 0 ? a->begin[d] : which == 1 ? a->end[d] - 1 : a->end[d] - a->begin[d];
    if (v[d] < INT_MIN || v[d] > INT_MAX) {
      PyErr_Format(PyExc_OverflowError, "Array4 bound %lld does not fit in a Dim3", (long long)v[d]);
      return NULL;
    }
  }
  return bfpy_dim3_new((int)v[0], (int)v[1], (int)v[2]);
}

static PyMethodDef a4_methods[] = {
    {"contains", (PyCFunction)(void (*)(void))a4_contains, METH_FASTCALL | METH_KEYWORDS,
     "contains(i, j, k, /) / contains(iv, /) / contains(d: Dim3, /) -> bool: the cell lies in the view."},
    {"to_host", bfpy_array4_to_host, METH_NOARGS,
     "to_host() -> numpy.ndarray: a new C-order copy shaped (ncomp, nz, ny, nx)."},
    {"to_numpy", (PyCFunction)(void (*)(void))bfpy_array4_to_numpy, METH_FASTCALL | METH_KEYWORDS,
     "to_numpy(copy=False, order='F'): NumPy view (or copy); F: [x, y, z, comp], C: [comp, z, y, x]."},
    {"to_cupy", (PyCFunction)(void (*)(void))bfpy_array4_to_cupy, METH_FASTCALL | METH_KEYWORDS,
     "to_cupy(copy=False, order='F'): CuPy array (ImportError without CuPy)."},
    {"to_xp", (PyCFunction)(void (*)(void))bfpy_array4_to_xp, METH_FASTCALL | METH_KEYWORDS,
     "to_xp(copy=False, order='F'): to_cupy when Config.have_gpu, else to_numpy."},
    {"__dlpack__", (PyCFunction)(void (*)(void))bfpy_array4_dlpack, METH_FASTCALL | METH_KEYWORDS,
     "__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None) -> PyCapsule."},
    {"__dlpack_device__", bfpy_array4_dlpack_device, METH_NOARGS, "__dlpack_device__() -> (device_type, device_id)."},
    {"__array__", (PyCFunction)(void (*)(void))bfpy_array4_array, METH_FASTCALL | METH_KEYWORDS,
     "__array__(dtype=None, copy=None) -> numpy.ndarray: a view of host memory (C order, (ncomp, nz, ny, nx)); "
     "TypeError for device memory (use to_host() or to_cupy())."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef a4_getset[] = {
    {"size", a4_size, NULL, "Total number of elements (all components).", NULL},
    {"nComp", a4_ncomp, NULL, "Number of components.", NULL},
    {"num_comp", a4_ncomp, NULL, "Number of components.", NULL},
    {"__array_interface__", bfpy_array4_array_interface, NULL, "NumPy array interface v3 (host memory).", NULL},
    {"__cuda_array_interface__", bfpy_array4_cuda_array_interface, NULL,
     "CUDA array interface v3 (device or managed memory only).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot a4_base_slots[] = {
    {Py_tp_doc, "Base of the Array4_<T> types (not instantiable)."},
    {Py_tp_new, a4_new},
    {Py_tp_init, a4_init},
    {Py_tp_dealloc, a4_dealloc},
    {Py_tp_repr, a4_repr},
    {Py_tp_call, a4_call},
    {Py_tp_methods, a4_methods},
    {Py_tp_getset, a4_getset},
    {Py_bf_getbuffer, bfpy_array4_getbuffer},
    {Py_bf_releasebuffer, bfpy_array4_releasebuffer},
    {0, NULL},
};

static PyType_Spec a4_base_spec = {
    .name = "_Array4", .basicsize = sizeof(bfpy_array4_object), .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .slots = a4_base_slots};

static PyType_Slot a4_mutable_slots[] = {
    {Py_tp_doc, "Array4_<T>(...): a non-owning 4-D view (i, j, k, n) with absolute AMReX indices.\n"
                "Array4_<T>() / (other) / (other, start_comp) / (other, start_comp, num_comps) /\n"
                "(obj): a view of any object with __dlpack__, __cuda_array_interface__, __array_interface__ or the\n"
                "buffer protocol (host or CUDA memory) "
                "(1 to 4 dimensions, (nc, nz, ny, nx), without copying)."},
    {Py_mp_subscript, a4_getitem},
    {Py_mp_ass_subscript, a4_setitem},
    {0, NULL},
};

static PyType_Slot a4_const_slots[] = {
    {Py_tp_doc, "Array4_<T>_const(...): a read-only non-owning 4-D view (i, j, k, n) with absolute AMReX\n"
                "indices; constructors as for Array4_<T>; read-only sources are accepted."},
    {Py_mp_subscript, a4_getitem},
    {0, NULL},
};

/* ---- family init ---------------------------------------------------------------- */
static void a4_kinds_init(void) {
  for (int t = 0; t < BF_DTYPE_COUNT; ++t) {
    bfpy_a4_kind *k = &bfpy_a4_kinds[t];
    k->itemsize = bf_dtype_size(t);
#if PY_LITTLE_ENDIAN
    const char order = '<';
#else
    const char order = '>';
#endif
    snprintf(k->typestr, sizeof k->typestr, "%c%c%zu", order, k->kind, k->itemsize);
  }
}

int bfpy_init_array4(PyObject *m, int dim) {
  if (dim == 1) a4_kinds_init();
  PyTypeObject *base = bfpy_make_type(NULL, dim, BFPY_T_ARRAY4, "_Array4", &a4_base_spec, NULL);
  if (!base) return -1;
  PyObject *bases = PyTuple_Pack(1, (PyObject *)base);
  if (!bases) return -1;
  for (int t = 0; t < BF_DTYPE_COUNT; ++t)
    for (int c = 0; c < 2; ++c) {
      char *name = a4_type_names[dim][t][c];
      snprintf(name, sizeof a4_type_names[0][0][0], "boxfab.space%dd.Array4_%s%s", dim, bfpy_a4_kinds[t].name,
               c ? "_const" : "");
      PyType_Spec spec = {.name = name, .basicsize = sizeof(bfpy_array4_object),
                          .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                          .slots = c ? a4_const_slots : a4_mutable_slots};
      PyTypeObject *type = (PyTypeObject *)PyType_FromSpecWithBases(&spec, bases);
      if (!type) {
        Py_DECREF(bases);
        return -1;
      }
      bfpy_array4_types[dim][t][c] = type; /* the registry owns this reference */
      Py_INCREF(type);
      if (PyModule_AddObject(m, strrchr(name, '.') + 1, (PyObject *)type) < 0) {
        Py_DECREF(type);
        Py_DECREF(bases);
        return -1;
      }
    }
  Py_DECREF(bases);
  /* DLDeviceType: the device codes of dlpack.h, as pyAMReX names them (__dlpack_device__()[0]) */
  static const char *const dl_names[] = {"kDLCPU",    "kDLCUDA",    "kDLCUDAHost", "kDLOpenCL",      "kDLVulkan",
                                         "kDLMetal",  "kDLVPI",     "kDLROCM",     "kDLROCMHost",    "kDLExtDev",
                                         "kDLCUDAManaged", "kDLOneAPI", "kDLWebGPU", "kDLHexagon", "kDLMAIA"};
  static const int dl_values[] = {1, 2, 3, 4, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17};
  char modname[32];
  snprintf(modname, sizeof modname, "boxfab.space%dd", dim);
  PyObject *e = bfpy_make_intenum(modname, "DLDeviceType", dl_names, dl_values, 15);
  return e ? PyModule_AddObject(m, "DLDeviceType", e) : -1; /* AddObject steals e on success */
}
