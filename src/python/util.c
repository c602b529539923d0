/* boxfab._core: error bridge, argument binding, scalar and sequence conversion. */
#include <limits.h>
#include <string.h>

#include "bfpy.h"

PyObject *bfpy_raise(int status) {
  PyObject *exc;
  switch (status) {
  case BF_ERROR_VALUE: exc = PyExc_ValueError; break;
  case BF_ERROR_INDEX: exc = PyExc_IndexError; break;
  case BF_ERROR_TYPE: exc = PyExc_TypeError; break;
  case BF_ERROR_MEMORY: exc = PyExc_MemoryError; break;
  case BF_ERROR_OVERFLOW: exc = PyExc_OverflowError; break;
  case BF_ERROR_IO: exc = PyExc_OSError; break;
  default: exc = PyExc_RuntimeError; break;
  }
  const char *msg = bf_error_message();
  if (!msg || !msg[0]) msg = "boxfab: unknown error";
  /* The message may quote bytes that are not UTF-8 (a hostile file's text, a path given as bytes) or end
   * inside a character (cut at the buffer's size): PyErr_SetString then raised UnicodeDecodeError instead
   * of the error (an OSError became a ValueError).  Such bytes show as \xNN. */
  PyObject *text = PyUnicode_DecodeUTF8(msg, (Py_ssize_t)strlen(msg), "backslashreplace");
  if (text) {
    PyErr_SetObject(exc, text);
    Py_DECREF(text);
  }
  bf_error_clear();
  return NULL;
}

int bfpy_check(int status) {
  if (status == BF_SUCCESS) return 0;
  bfpy_raise(status);
  return -1;
}

PyObject *bfpy_dim_mismatch(const char *what, int expected, int got) {
  PyErr_Format(PyExc_TypeError, "%s: expected an object of dimension %d, got one of dimension %d "
               "(objects of different dimensions do not mix)", what, expected, got);
  return NULL;
}

int bfpy_bind(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, const char *const *names,
              int nrequired, PyObject **out, bool raise) {
  int nparams = 0;
  while (names[nparams]) ++nparams;
  for (int i = 0; i < nparams; ++i) out[i] = NULL;
  if (nargs > nparams) {
    if (raise)
      PyErr_Format(PyExc_TypeError, "takes at most %d arguments (%zd given)", nparams, nargs);
    return raise ? -1 : 1;
  }
  for (Py_ssize_t i = 0; i < nargs; ++i) out[i] = args[i];
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    const char *key = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
    if (!key) return -1;
    int at = -1;
    for (int i = 0; i < nparams; ++i)
      if (names[i][0] && strcmp(names[i], key) == 0) at = i;
    if (at < 0 || out[at]) {
      if (raise) {
        if (at < 0) PyErr_Format(PyExc_TypeError, "got an unexpected keyword argument '%s'", key);
        else PyErr_Format(PyExc_TypeError, "got multiple values for argument '%s'", key);
      }
      return raise ? -1 : 1;
    }
    out[at] = args[nargs + k];
  }
  for (int i = 0; i < nrequired; ++i)
    if (!out[i]) {
      if (raise) {
        if (names[i][0]) PyErr_Format(PyExc_TypeError, "missing required argument '%s'", names[i]);
        else PyErr_Format(PyExc_TypeError, "missing required positional argument %d", i);
      }
      return raise ? -1 : 1;
    }
  return 0;
}

PyObject *bfpy_no_overload(const char *func, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                           const char *signatures) {
  PyObject *types = PyList_New(0);
  if (!types) return NULL;
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t i = 0; i < nargs + nkw; ++i) {
    PyObject *s = i < nargs ? PyUnicode_FromString(Py_TYPE(args[i])->tp_name)
                            : PyUnicode_FromFormat("%U=%s", PyTuple_GET_ITEM(kwnames, i - nargs),
                                                   Py_TYPE(args[i])->tp_name);
    if (!s || PyList_Append(types, s) < 0) {
      Py_XDECREF(s);
      Py_DECREF(types);
      return NULL;
    }
    Py_DECREF(s);
  }
  PyObject *sep = PyUnicode_FromString(", ");
  PyObject *joined = sep ? PyUnicode_Join(sep, types) : NULL;
  Py_XDECREF(sep);
  Py_DECREF(types);
  if (!joined) return NULL;
  PyErr_Format(PyExc_TypeError, "%s(): incompatible arguments (%U); supported signatures: %s", func, joined,
               signatures);
  Py_DECREF(joined);
  return NULL;
}

bool bfpy_is_intlike(PyObject *o) {
  return PyLong_Check(o) ||
         (!PyFloat_Check(o) && !bfpy_is_text(o) && Py_TYPE(o)->tp_as_number && Py_TYPE(o)->tp_as_number->nb_index);
}

const char *bfpy_c_name(PyObject *o, const char *what) {
  if (!PyUnicode_Check(o)) {
    PyErr_Format(PyExc_TypeError, "%s must be a str, not %.100s", what, Py_TYPE(o)->tp_name);
    return NULL;
  }
  Py_ssize_t len = 0;
  const char *s = PyUnicode_AsUTF8AndSize(o, &len);
  if (!s) return NULL;
  if ((size_t)len != strlen(s)) {
    PyErr_Format(PyExc_ValueError, "%s %R contains a NUL character (C names end there)", what, o);
    return NULL;
  }
  return s;
}

int bfpy_to_int64(PyObject *o, int64_t *out, const char *what) {
  if (!bfpy_is_intlike(o)) {
    PyErr_Format(PyExc_TypeError, "%s must be an int, not %.100s", what, Py_TYPE(o)->tp_name);
    return -1;
  }
  if (!PyLong_Check(o) && PySequence_Check(o)) { /* a NumPy array has __index__ too */
    Py_ssize_t len = PySequence_Size(o);
    if (len >= 0) {
      PyErr_Format(PyExc_TypeError, "%s must be an int, not a %.100s of %zd item%s", what, Py_TYPE(o)->tp_name, len,
                   len == 1 ? "" : "s");
      return -1;
    }
    if (!PyErr_ExceptionMatches(PyExc_TypeError)) return -1;
    PyErr_Clear(); /* no length (a 0-d array): read as a number below */
  }
  PyObject *idx = PyNumber_Index(o);
  if (!idx) return -1;
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(idx, &overflow);
  Py_DECREF(idx);
  if (v == -1 && PyErr_Occurred()) return -1;
  if (overflow) {
    PyErr_Format(PyExc_OverflowError, "%s does not fit in a 64-bit integer", what);
    return -1;
  }
  *out = (int64_t)v;
  return 0;
}

int bfpy_to_int(PyObject *o, int *out, const char *what) {
  int64_t v;
  if (bfpy_to_int64(o, &v, what) < 0) {
    if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
      PyErr_Clear();
      PyErr_Format(PyExc_OverflowError, "%s does not fit in a C int", what);
    }
    return -1;
  }
  if (v < INT_MIN || v > INT_MAX) {
    PyErr_Format(PyExc_OverflowError, "%s = %lld does not fit in a C int", what, (long long)v);
    return -1;
  }
  *out = (int)v;
  return 0;
}

/* 1 for a complex number (Python's, NumPy's complex scalars and 0-d arrays,
 * whose __float__ drops the imaginary part), 0 otherwise, -1 error. */
static int is_complex(PyObject *o) {
  if (PyComplex_Check(o)) return 1;
  if (PyFloat_Check(o) || PyLong_Check(o)) return 0;
  PyObject *dtype = PyObject_GetAttrString(o, "dtype");
  if (!dtype) {
    if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return -1;
    PyErr_Clear();
    return 0;
  }
  PyObject *kind = PyObject_GetAttrString(dtype, "kind");
  Py_DECREF(dtype);
  if (!kind) {
    if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return -1;
    PyErr_Clear();
    return 0;
  }
  int r = PyUnicode_Check(kind) ? PyUnicode_CompareWithASCIIString(kind, "c") == 0 : 0;
  Py_DECREF(kind);
  return r;
}

int bfpy_to_double(PyObject *o, double *out, const char *what) {
  int complex = is_complex(o);
  if (complex < 0) return -1;
  if (complex) {
    PyErr_Format(PyExc_TypeError, "%s must be a real number, not %.100s (a complex number is never truncated)",
                 what, Py_TYPE(o)->tp_name);
    return -1;
  }
  if (bfpy_is_text(o) || !(PyFloat_Check(o) || PyLong_Check(o) ||
                                                   (Py_TYPE(o)->tp_as_number && (Py_TYPE(o)->tp_as_number->nb_float ||
                                                                                 Py_TYPE(o)->tp_as_number->nb_index)))) {
    PyErr_Format(PyExc_TypeError, "%s must be a real number, not %.100s", what, Py_TYPE(o)->tp_name);
    return -1;
  }
  double v = PyFloat_AsDouble(o);
  if (v == -1.0 && PyErr_Occurred()) return -1;
  *out = v;
  return 0;
}

/* Collects the items of iterator `it` (at most `max`, `cap` of them announced)
 * into a new tuple, each passed to `check` as it is read.  The items wait in
 * a private array until the end, so Python code run by `check` or by the
 * iterator never meets a half-filled list. */
static PyObject *collect_iter(PyObject *it, Py_ssize_t cap, Py_ssize_t max, bfpy_item_check check, void *ctx,
                              const char *what) {
  /* reserve what the iterable announces (as list() does with its length
   * hint): an announced length too big for memory is a MemoryError at once */
  PyObject **items = PyMem_Malloc((size_t)(cap > 0 ? cap : 1) * sizeof *items);
  if (!items) {
    PyErr_Format(PyExc_MemoryError, "%s has %zd items, more than fit in memory", what, cap);
    return NULL;
  }
  Py_ssize_t n = 0;
  if (cap < 1) cap = 1;
  PyObject *item;
  while ((item = PyIter_Next(it))) {
    int bad = n >= max;
    if (bad)
      PyErr_Format(PyExc_ValueError, "%s has more than the %zd items it can take", what, max);
    else if (check && check(item, ctx, what) < 0)
      bad = 1;
    else if (n == cap) {
      Py_ssize_t ncap = (size_t)cap <= SIZE_MAX / 2 / sizeof *items / 2 ? 2 * cap : -1;
      PyObject **grown = ncap > 0 ? PyMem_Realloc(items, (size_t)ncap * sizeof *items) : NULL;
      if (!grown) {
        PyErr_NoMemory();
        bad = 1;
      } else {
        items = grown;
        cap = ncap;
      }
    }
    if (bad) {
      Py_DECREF(item);
      break;
    }
    items[n++] = item; /* the reference PyIter_Next gave */
  }
  PyObject *t = PyErr_Occurred() ? NULL : PyTuple_New(n);
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (t)
      PyTuple_SET_ITEM(t, i, items[i]); /* steals */
    else
      Py_DECREF(items[i]);
  }
  PyMem_Free(items);
  return t;
}

PyObject *bfpy_fast_sequence(PyObject *o, Py_ssize_t max, bfpy_item_check check, void *ctx, const char *what,
                             const char *items) {
  if (bfpy_is_text(o) || !(PySequence_Check(o) || Py_TYPE(o)->tp_iter)) {
    PyErr_Format(PyExc_TypeError, "%s must be an iterable of %s, not %.100s", what, items, Py_TYPE(o)->tp_name);
    return NULL;
  }
  /* a known length says "too many" before anything is read */
  Py_ssize_t len = PyList_Check(o) || PyTuple_Check(o) ? PySequence_Fast_GET_SIZE(o) : -1;
  if (len < 0 && (Py_TYPE(o)->tp_as_sequence && Py_TYPE(o)->tp_as_sequence->sq_length)) {
    len = PySequence_Size(o);
    if (len < 0) {
      if (!PyErr_ExceptionMatches(PyExc_TypeError) && !PyErr_ExceptionMatches(PyExc_OverflowError)) return NULL;
      PyErr_Clear(); /* no usable length: counted while reading */
    }
  }
  if (len > max) {
    PyErr_Format(PyExc_ValueError, "%s has %zd items, more than the %zd it can take", what, len, max);
    return NULL;
  }
  if (PyList_Check(o) || PyTuple_Check(o)) {
    /* a tuple snapshot: `check` runs Python code (__index__, __float__) that
     * could shrink a list under a loop over it, here or in the caller */
    PyObject *t = PyTuple_Check(o) ? Py_NewRef(o) : PyList_AsTuple(o);
    if (!t) return NULL;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(t); ++i)
      if (check && check(PyTuple_GET_ITEM(t, i), ctx, what) < 0) {
        Py_DECREF(t);
        return NULL;
      }
    return t;
  }
  /* any other iterable: one item at a time, each checked before the next is
   * read (a Box iterates over its points: its first point stops it) */
  PyObject *it = PyObject_GetIter(o);
  if (!it) return NULL;
  PyObject *t = collect_iter(it, len, max, check, ctx, what);
  Py_DECREF(it);
  return t;
}

int bfpy_check_int_item(PyObject *item, void *ctx, const char *what) {
  (void)ctx;
  int v;
  return bfpy_to_int(item, &v, what);
}

/* The item checks of bfpy_to_int_array / bfpy_to_double_array: each item is
 * converted once, into out[i] (items past n, which make the caller's error,
 * are converted and dropped). */
typedef struct {
  void *out;
  int n, i;
} fill_ctx;

static int fill_int_item(PyObject *item, void *ctx, const char *what) {
  fill_ctx *c = ctx;
  int v;
  if (bfpy_to_int(item, &v, what) < 0) return -1;
  if (c->i < c->n) ((int *)c->out)[c->i] = v;
  ++c->i;
  return 0;
}

static int fill_real_item(PyObject *item, void *ctx, const char *what) {
  fill_ctx *c = ctx;
  double v;
  if (bfpy_to_double(item, &v, what) < 0) return -1;
  if (c->i < c->n) ((double *)c->out)[c->i] = v;
  ++c->i;
  return 0;
}

/* Exactly n numbers (ints when `ints`) from a sequence into out, each item
 * converted once, without expanding a long sequence first. */
static int to_number_array(PyObject *o, int n, void *out, bool ints, const char *what) {
  fill_ctx c = {out, n, 0};
  /* the common cases, converted in place: a tuple (nothing can change it), or
   * a list of plain ints / floats (converting them runs no Python code that
   * could change the list) */
  bool direct = PyTuple_CheckExact(o) && PyTuple_GET_SIZE(o) == n;
  if (!direct && PyList_CheckExact(o) && PyList_GET_SIZE(o) == n) {
    direct = true;
    for (int i = 0; i < n && direct; ++i) {
      PyObject *x = PyList_GET_ITEM(o, i);
      direct = PyLong_CheckExact(x) || (!ints && PyFloat_CheckExact(x));
    }
  }
  if (direct) {
    for (int i = 0; i < n; ++i)
      if ((ints ? fill_int_item : fill_real_item)(PySequence_Fast_GET_ITEM(o, i), &c, what) < 0) return -1;
    return 0;
  }
  if (bfpy_is_text(o) || !PySequence_Check(o)) {
    PyErr_Format(PyExc_TypeError, "%s must be a sequence of %d numbers, not %.100s", what, n, Py_TYPE(o)->tp_name);
    return -1;
  }
  Py_ssize_t len = PyList_Check(o) || PyTuple_Check(o) ? PySequence_Fast_GET_SIZE(o) : PySequence_Size(o);
  if (len < 0) { /* no length: read at most n + 1 items */
    if (!PyErr_ExceptionMatches(PyExc_TypeError) && !PyErr_ExceptionMatches(PyExc_OverflowError)) return -1;
    PyErr_Clear();
  }
  if (len >= 0 && len != n) {
    PyErr_Format(PyExc_ValueError, "%s must have exactly %d components, got %zd", what, n, len);
    return -1;
  }
  PyObject *seq = bfpy_fast_sequence(o, (Py_ssize_t)n + 1, ints ? fill_int_item : fill_real_item, &c, what,
                                     "numbers");
  if (!seq) return -1;
  Py_ssize_t got = PySequence_Fast_GET_SIZE(seq);
  Py_DECREF(seq);
  if (got != n) { /* a sequence whose length changed while it was read */
    PyErr_Format(PyExc_ValueError, "%s must have exactly %d components, got %s%zd", what, n,
                 got > n ? "more than " : "", got > n ? (Py_ssize_t)n : got);
    return -1;
  }
  return 0;
}

int bfpy_to_int_array(PyObject *o, int n, int *out, const char *what) {
  int tmp[BF_SPACEDIM_MAX > 4 ? BF_SPACEDIM_MAX : 4];
  int *dst = n <= (int)(sizeof tmp / sizeof *tmp) ? tmp : out;
  if (to_number_array(o, n, dst, true, what) < 0) return -1;
  if (dst != out) memcpy(out, dst, (size_t)n * sizeof *out);
  return 0;
}

int bfpy_to_double_array(PyObject *o, int n, double *out, const char *what) {
  double tmp[BF_SPACEDIM_MAX > 4 ? BF_SPACEDIM_MAX : 4];
  double *dst = n <= (int)(sizeof tmp / sizeof *tmp) ? tmp : out;
  if (to_number_array(o, n, dst, false, what) < 0) return -1;
  if (dst != out) memcpy(out, dst, (size_t)n * sizeof *out);
  return 0;
}

PyObject *bfpy_int_list(const int *v, int n) {
  PyObject *l = PyList_New(n);
  if (!l) return NULL;
  for (int i = 0; i < n; ++i) {
    PyObject *x = PyLong_FromLong(v[i]);
    if (!x) {
      Py_DECREF(l);
      return NULL;
    }
    PyList_SET_ITEM(l, i, x);
  }
  return l;
}

PyObject *bfpy_double_list(const double *v, int n) {
  PyObject *l = PyList_New(n);
  if (!l) return NULL;
  for (int i = 0; i < n; ++i) {
    PyObject *x = PyFloat_FromDouble(v[i]);
    if (!x) {
      Py_DECREF(l);
      return NULL;
    }
    PyList_SET_ITEM(l, i, x);
  }
  return l;
}

int bfpy_index(Py_ssize_t i, Py_ssize_t n, Py_ssize_t *out, const char *what) {
  Py_ssize_t j = i < 0 ? i + n : i;
  if (j < 0 || j >= n) {
    PyErr_Format(PyExc_IndexError, "%s index %zd out of range [-%zd, %zd)", what, i, n, n);
    return -1;
  }
  *out = j;
  return 0;
}

PyObject *bfpy_make_intenum(const char *module, const char *qualname, const char *const *names, const int *values,
                            int n) {
  PyObject *enum_mod = PyImport_ImportModule("enum");
  if (!enum_mod) return NULL;
  PyObject *intenum = PyObject_GetAttrString(enum_mod, "IntEnum");
  Py_DECREF(enum_mod);
  if (!intenum) return NULL;
  PyObject *members = PyList_New(n), *result = NULL, *args = NULL, *kwargs = NULL;
  if (!members) goto done;
  for (int i = 0; i < n; ++i) {
    PyObject *item = Py_BuildValue("(si)", names[i], values[i]);
    if (!item) goto done;
    PyList_SET_ITEM(members, i, item);
  }
  const char *dot = strrchr(qualname, '.');
  args = Py_BuildValue("(sO)", dot ? dot + 1 : qualname, members);
  kwargs = Py_BuildValue("{s:s,s:s}", "module", module, "qualname", qualname);
  if (args && kwargs) result = PyObject_Call(intenum, args, kwargs);
done:
  Py_XDECREF(members), Py_XDECREF(args), Py_XDECREF(kwargs);
  Py_DECREF(intenum);
  return result;
}

/* Lay (args, kwds) out as a vectorcall stack of at most 16: 0, or -1 with
 * TypeError.  *kwnames is a new reference (or NULL). */
static int as_stack(PyObject *args, PyObject *kwds, PyObject **stack, Py_ssize_t *nargs, PyObject **kwnames) {
  Py_ssize_t n = PyTuple_GET_SIZE(args), nkw = kwds ? PyDict_GET_SIZE(kwds) : 0;
  *kwnames = NULL;
  *nargs = n;
  if (n + nkw > 16) {
    PyErr_SetString(PyExc_TypeError, "too many arguments");
    return -1;
  }
  for (Py_ssize_t i = 0; i < n; ++i) stack[i] = PyTuple_GET_ITEM(args, i);
  if (nkw) {
    if (!(*kwnames = PyTuple_New(nkw))) return -1;
    Py_ssize_t pos = 0, k = 0;
    PyObject *key, *value;
    while (PyDict_Next(kwds, &pos, &key, &value)) {
      PyTuple_SET_ITEM(*kwnames, k, Py_NewRef(key));
      stack[n + k++] = value;
    }
  }
  return 0;
}

PyObject *bfpy_call_vectorcall(PyObject *self, PyObject *args, PyObject *kwds, bfpy_fastcall fn) {
  PyObject *stack[16], *kwnames;
  Py_ssize_t nargs;
  if (as_stack(args, kwds, stack, &nargs, &kwnames) < 0) return NULL;
  PyObject *r = fn(self, stack, nargs, kwnames);
  Py_XDECREF(kwnames);
  return r;
}

/* tp_init receives a tuple and a dict: lay them out as a vectorcall. */
int bfpy_init_vectorcall(PyObject *self, PyObject *args, PyObject *kwds, bfpy_fastinit fn) {
  PyObject *stack[16], *kwnames;
  Py_ssize_t nargs;
  if (as_stack(args, kwds, stack, &nargs, &kwnames) < 0) return -1;
  int r = fn(self, stack, nargs, kwnames);
  Py_XDECREF(kwnames);
  return r;
}


/* ---- hybrid methods: static on the class, bound on an instance -------------------------------
 * AMReX's MultiFab::Add(dst, src, ...) is static.  pyAMReX 24.10 bound it as a
 * static method (`MultiFab.add(dst, src, ...)`, also spelled `dst.add(dst,
 * src, ...)`); pyAMReX 26 binds it on the instance (`dst.add(src, ...)`).
 * One descriptor serves all three: read from the class it is the plain
 * function; read from an instance it is a bound callable that calls the
 * function as it is when the call has the static form's full argument count
 * and its first argument is an instance of the class, and with the instance
 * prepended otherwise. */
typedef struct {
  PyObject_HEAD
  PyObject *func;
  PyTypeObject *owner; /* the class the method is defined on (borrowed: it owns us) */
  int arity;           /* the static form's number of parameters */
} hybrid_object;

typedef struct {
  PyObject_HEAD
  PyObject *func, *self;
  PyTypeObject *owner;
  int arity;
} hbound_object;

static PyObject *hybrid_types[2]; /* made once, kept for the life of the process */

static void hybrid_dealloc(PyObject *o) {
  PyTypeObject *tp = Py_TYPE(o);
  Py_CLEAR(((hybrid_object *)o)->func);
  tp->tp_free(o);
  Py_DECREF(tp);
}

static void hbound_dealloc(PyObject *o) {
  PyTypeObject *tp = Py_TYPE(o);
  Py_CLEAR(((hbound_object *)o)->func);
  Py_CLEAR(((hbound_object *)o)->self);
  Py_XDECREF((PyObject *)((hbound_object *)o)->owner);
  tp->tp_free(o);
  Py_DECREF(tp);
}

static PyObject *hybrid_get(PyObject *o, PyObject *obj, PyObject *type) {
  (void)type;
  hybrid_object *h = (hybrid_object *)o;
  if (!obj || obj == Py_None) return Py_NewRef(h->func);
  hbound_object *b = PyObject_New(hbound_object, (PyTypeObject *)hybrid_types[1]);
  if (!b) return NULL;
  b->func = Py_NewRef(h->func);
  b->self = Py_NewRef(obj);
  b->owner = (PyTypeObject *)Py_NewRef((PyObject *)h->owner);
  b->arity = h->arity;
  return (PyObject *)b;
}

static PyObject *hbound_call(PyObject *o, PyObject *args, PyObject *kwds) {
  hbound_object *b = (hbound_object *)o;
  Py_ssize_t n = PyTuple_GET_SIZE(args), nkw = kwds ? PyDict_GET_SIZE(kwds) : 0;
  if (n + nkw == b->arity && n >= 1 && PyObject_TypeCheck(PyTuple_GET_ITEM(args, 0), b->owner))
    return PyObject_Call(b->func, args, kwds); /* dst.add(dst, src, ...): the static form */
  PyObject *full = PyTuple_New(n + 1);
  if (!full) return NULL;
  PyTuple_SET_ITEM(full, 0, Py_NewRef(b->self));
  for (Py_ssize_t i = 0; i < n; ++i) PyTuple_SET_ITEM(full, i + 1, Py_NewRef(PyTuple_GET_ITEM(args, i)));
  PyObject *r = PyObject_Call(b->func, full, kwds);
  Py_DECREF(full);
  return r;
}

static PyObject *hybrid_doc(PyObject *o, void *c) {
  (void)c;
  return PyObject_GetAttrString(((hybrid_object *)o)->func, "__doc__");
}
static PyObject *hbound_doc(PyObject *o, void *c) {
  (void)c;
  return PyObject_GetAttrString(((hbound_object *)o)->func, "__doc__");
}

static PyGetSetDef hybrid_getset[] = {{"__doc__", hybrid_doc, NULL, NULL, NULL}, {NULL, NULL, NULL, NULL, NULL}};
static PyGetSetDef hbound_getset[] = {{"__doc__", hbound_doc, NULL, NULL, NULL}, {NULL, NULL, NULL, NULL, NULL}};

static PyType_Slot hybrid_slots[] = {
    {Py_tp_dealloc, hybrid_dealloc},
    {Py_tp_descr_get, hybrid_get},
    {Py_tp_getset, hybrid_getset},
    {0, NULL},
};
static PyType_Slot hbound_slots[] = {
    {Py_tp_dealloc, hbound_dealloc},
    {Py_tp_call, hbound_call},
    {Py_tp_getset, hbound_getset},
    {0, NULL},
};
static PyType_Spec hybrid_spec = {.name = "boxfab._hybridmethod", .basicsize = sizeof(hybrid_object),
                                  .flags = Py_TPFLAGS_DEFAULT, .slots = hybrid_slots};
static PyType_Spec hbound_spec = {.name = "boxfab._boundhybrid", .basicsize = sizeof(hbound_object),
                                  .flags = Py_TPFLAGS_DEFAULT, .slots = hbound_slots};

int bfpy_add_hybrids(PyTypeObject *type, PyMethodDef *defs, const int *arity, PyObject *bound) {
  if (!hybrid_types[0] && !(hybrid_types[0] = PyType_FromSpec(&hybrid_spec))) return -1;
  if (!hybrid_types[1] && !(hybrid_types[1] = PyType_FromSpec(&hbound_spec))) return -1;
  for (int k = 0; defs[k].ml_name; ++k) {
    PyObject *f = PyCFunction_NewEx(&defs[k], bound, NULL);
    hybrid_object *h = f ? PyObject_New(hybrid_object, (PyTypeObject *)hybrid_types[0]) : NULL;
    if (!h) {
      Py_XDECREF(f);
      return -1;
    }
    h->func = f;
    h->owner = type;
    h->arity = arity[k];
    int r = PyObject_SetAttrString((PyObject *)type, defs[k].ml_name, (PyObject *)h);
    Py_DECREF(h);
    if (r < 0) return -1;
  }
  return 0;
}

int bfpy_add_statics(PyTypeObject *type, PyMethodDef *defs, PyObject *bound) {
  for (PyMethodDef *def = defs; def->ml_name; ++def) {
    PyObject *f = PyCFunction_NewEx(def, bound, NULL);
    PyObject *sm = f ? PyStaticMethod_New(f) : NULL;
    Py_XDECREF(f);
    if (!sm || PyObject_SetAttrString((PyObject *)type, def->ml_name, sm) < 0) {
      Py_XDECREF(sm);
      return -1;
    }
    Py_DECREF(sm);
  }
  return 0;
}
