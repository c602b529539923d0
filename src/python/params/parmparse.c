/* boxfab._core: ParmParse, a view of the C parameter store (src/core/params/)
 * under a prefix.  Parsing, typed reads and expressions are C; this file only
 * converts arguments and results.  The store is process-wide; every call runs
 * under the GIL, so it stays consistent between Python threads.
 *
 * Errors: a missing parameter in get_* is RuntimeError (AMReX aborts; pyAMReX
 * with amrex.throw_exception raises RuntimeError); a value of another type is
 * ValueError naming the parameter (and file:line); an index past the values
 * IndexError; an int out of range OverflowError. */
#include <limits.h>
#include <string.h>

#include "bfpy.h"
#include "boxfab/parmparse.h"

typedef struct {
  PyObject_HEAD int dim;
  PyObject *prefix; /* str */
} bfpy_parmparse_object;

#define PP(o) ((bfpy_parmparse_object *)(o))

/* ---- names ---------------------------------------------------------------------- */
/* The full name "prefix.name" of a str argument: a new bytes object (NUL
 * terminated UTF-8).  NULL with TypeError / ValueError. */
static PyObject *pp_full_name(PyObject *self, PyObject *name, const char *func) {
  if (!PyUnicode_Check(name)) {
    PyErr_Format(PyExc_TypeError, "ParmParse.%s: name must be a str, not %.100s", func, Py_TYPE(name)->tp_name);
    return NULL;
  }
  if (PyUnicode_GET_LENGTH(name) == 0) {
    PyErr_Format(PyExc_ValueError, "ParmParse.%s: name must not be empty", func);
    return NULL;
  }
  PyObject *full = PyUnicode_GET_LENGTH(PP(self)->prefix) ? PyUnicode_FromFormat("%U.%U", PP(self)->prefix, name)
                                                           : (Py_INCREF(name), name);
  if (!full) return NULL;
  PyObject *b = PyUnicode_AsUTF8String(full);
  Py_DECREF(full);
  if (!b) return NULL;
  if (strlen(PyBytes_AS_STRING(b)) != (size_t)PyBytes_GET_SIZE(b)) {
    PyErr_Format(PyExc_ValueError, "ParmParse.%s: name contains a NUL character", func);
    Py_DECREF(b);
    return NULL;
  }
  return b;
}

static PyObject *pp_str(const char *s) { return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace"); }

/* ---- construction ------------------------------------------------------------- */
static int pp_init_fast(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"prefix", NULL};
  PyObject *a[1];
  if (bfpy_bind(args, nargs, kwnames, names, 0, a, true) < 0) return -1;
  PyObject *prefix = a[0] ? a[0] : PyUnicode_FromString("");
  if (!prefix) return -1;
  if (a[0]) {
    if (!PyUnicode_Check(prefix)) {
      PyErr_Format(PyExc_TypeError, "ParmParse(prefix): prefix must be a str, not %.100s", Py_TYPE(prefix)->tp_name);
      return -1;
    }
    Py_INCREF(prefix);
  }
  Py_XSETREF(PP(self)->prefix, prefix);
  return 0;
}

static int pp_init(PyObject *self, PyObject *args, PyObject *kwds) {
  PP(self)->dim = bfpy_type_dim(Py_TYPE(self), BFPY_T_PARMPARSE);
  return bfpy_init_vectorcall(self, args, kwds, pp_init_fast);
}

static PyObject *pp_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
  (void)args, (void)kwds;
  PyObject *self = type->tp_alloc(type, 0);
  if (!self) return NULL;
  PP(self)->dim = bfpy_type_dim(type, BFPY_T_PARMPARSE);
  PP(self)->prefix = PyUnicode_FromString("");
  if (!PP(self)->prefix) {
    Py_DECREF(self);
    return NULL;
  }
  return self;
}

static void pp_dealloc(PyObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  Py_XDECREF(PP(self)->prefix);
  tp->tp_free(self);
  Py_DECREF(tp);
}

static PyObject *pp_repr(PyObject *self) { return PyUnicode_FromFormat("<ParmParse prefix=%R>", PP(self)->prefix); }

static PyObject *pp_get_prefix(PyObject *self, void *closure) {
  (void)closure;
  return Py_NewRef(PP(self)->prefix);
}

/* ---- adds ---------------------------------------------------------------------- */
enum { K_NONE, K_BOOL, K_INT, K_REAL, K_STR, K_IV, K_BOX };

static int pp_kind(PyObject *o, int dim) {
  if (PyBool_Check(o)) return K_BOOL;
  if (PyUnicode_Check(o)) return K_STR;
  if (bfpy_is(o, BFPY_T_INTVECT, dim)) return K_IV;
  if (bfpy_is(o, BFPY_T_BOX, dim)) return K_BOX;
  if (bfpy_is_intlike(o)) return K_INT;
  if (PyFloat_Check(o) || (Py_TYPE(o)->tp_as_number && Py_TYPE(o)->tp_as_number->nb_float)) return K_REAL;
  return K_NONE;
}

static PyObject *pp_type_error(const char *func, PyObject *o, int dim) {
  if (bfpy_is(o, BFPY_T_INTVECT, -1) || bfpy_is(o, BFPY_T_BOX, -1))
    return PyErr_Format(PyExc_TypeError, "ParmParse.%s: a %.100s of another dimension (this module is %dD)", func,
                        Py_TYPE(o)->tp_name, dim);
  return PyErr_Format(PyExc_TypeError, "ParmParse.%s: value must be a bool, int, float, str, IntVect or Box, not %.100s",
                      func, Py_TYPE(o)->tp_name);
}

/* Add the items (kind `kind`) of `items[0..n)` under `name`. */
static int pp_add_items(const char *name, int kind, PyObject *const *items, Py_ssize_t n, int dim, const char *func) {
  void *buf = NULL;
  int status = BF_SUCCESS;
  size_t sz = kind == K_BOOL ? sizeof(bool) : kind == K_INT ? sizeof(int64_t) : kind == K_REAL ? sizeof(double)
            : kind == K_STR ? sizeof(char *) : kind == K_IV ? sizeof(bf_intvect) : sizeof(bf_box);
  buf = PyMem_Calloc((size_t)n + 1, sz);
  if (!buf) {
    PyErr_NoMemory();
    return -1;
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *o = items[i];
    int rc = 0;
    switch (kind) {
    case K_BOOL: ((bool *)buf)[i] = o == Py_True; break;
    case K_INT: rc = bfpy_to_int64(o, &((int64_t *)buf)[i], "ParmParse value"); break;
    case K_REAL: rc = bfpy_to_double(o, &((double *)buf)[i], "ParmParse value"); break;
    case K_STR: {
      Py_ssize_t len;
      const char *s = PyUnicode_AsUTF8AndSize(o, &len);
      if (!s) rc = -1;
      else if ((size_t)len != strlen(s)) {
        PyErr_Format(PyExc_ValueError, "ParmParse.%s: a str value contains a NUL character", func);
        rc = -1;
      }
      ((const char **)buf)[i] = s;
      break;
    }
    case K_IV: rc = bfpy_as_intvect(o, dim, 0, &((bf_intvect *)buf)[i], "ParmParse value"); break;
    default: rc = bfpy_as_box(o, dim, &((bf_box *)buf)[i], "ParmParse value"); break;
    }
    if (rc < 0) {
      PyMem_Free(buf);
      return -1;
    }
  }
  int ni = (int)n;
  switch (kind) {
  case K_BOOL: status = bf_parmparse_add_bools(name, ni, buf); break;
  case K_INT: status = bf_parmparse_add_ints(name, ni, buf); break;
  case K_REAL: status = bf_parmparse_add_reals(name, ni, buf); break;
  case K_STR: status = bf_parmparse_add_typed(name, ni, (const char *const *)buf, BF_PP_STRING); break;
  case K_IV: status = bf_parmparse_add_intvects(name, ni, buf); break;
  default: status = bf_parmparse_add_boxes(name, ni, buf); break;
  }
  PyMem_Free(buf);
  return bfpy_check(status);
}

static PyObject *pp_add(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"", "", NULL};
  PyObject *a[2];
  if (bfpy_bind(args, nargs, kwnames, names, 2, a, true) < 0) return NULL;
  int dim = PP(self)->dim, kind = pp_kind(a[1], dim);
  if (kind == K_NONE) return pp_type_error("add", a[1], dim);
  PyObject *full = pp_full_name(self, a[0], "add");
  if (!full) return NULL;
  int rc = pp_add_items(PyBytes_AS_STRING(full), kind, &a[1], 1, dim, "add");
  Py_DECREF(full);
  if (rc < 0) return NULL;
  Py_RETURN_NONE;
}

static int pp_check_item(PyObject *item, void *ctx, const char *what) {
  int dim = *(int *)ctx;
  if (pp_kind(item, dim) != K_NONE) return 0;
  pp_type_error(what, item, dim);
  return -1;
}

static PyObject *pp_addarr(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"", "", NULL};
  PyObject *a[2];
  if (bfpy_bind(args, nargs, kwnames, names, 2, a, true) < 0) return NULL;
  int dim = PP(self)->dim;
  PyObject *full = pp_full_name(self, a[0], "addarr");
  if (!full) return NULL;
  PyObject *seq = bfpy_fast_sequence(a[1], INT_MAX, pp_check_item, &dim, "addarr",
                                     "bools, ints, floats, strs, IntVects or Boxes");
  if (!seq) {
    Py_DECREF(full);
    return NULL;
  }
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  PyObject **items = PySequence_Fast_ITEMS(seq);
  /* one kind for all: ints (bools count as ints), numbers (reals), strs, IntVects, Boxes */
  int kind = n ? pp_kind(items[0], dim) : K_STR;
  bool all_bool = true;
  for (Py_ssize_t i = 0; i < n; ++i) {
    int k = pp_kind(items[i], dim);
    all_bool = all_bool && k == K_BOOL;
    if (k == K_BOOL) k = K_INT;
    if (kind == K_BOOL) kind = K_INT;
    if (k == kind) continue;
    if ((k == K_INT || k == K_REAL) && (kind == K_INT || kind == K_REAL)) {
      kind = K_REAL;
      continue;
    }
    PyErr_Format(PyExc_TypeError, "ParmParse.addarr: values must all be of one kind (numbers, strs, IntVects or "
                                  "Boxes); item %zd is a %.100s", i, Py_TYPE(items[i])->tp_name);
    Py_DECREF(seq);
    Py_DECREF(full);
    return NULL;
  }
  if (n && all_bool) kind = K_BOOL;
  int rc = pp_add_items(PyBytes_AS_STRING(full), kind, items, n, dim, "addarr");
  Py_DECREF(seq);
  Py_DECREF(full);
  if (rc < 0) return NULL;
  Py_RETURN_NONE;
}

/* ---- typed reads ----------------------------------------------------------------- */
typedef enum { R_BOOL, R_INT, R_REAL, R_STR, R_IV, R_BOX, R_ANY, R_INT64 } pp_read_kind;
static const char *const pp_kind_names[] = {"bool", "int", "real", "str", "intvect", "box", "", "int"};

/* Value i of `name` as `kind`: a new object, or NULL with *found false (no
 * exception) when the name is not defined, or NULL with an exception. */
static PyObject *pp_read(const char *name, int i, pp_read_kind kind, int dim, bool *found);

/* The value's own kind for get()/to_dict: its type, or for text never read as
 * a type: an int, a decimal number, true/false, or a str. */
static pp_read_kind pp_natural_kind(const char *name, int i) {
  switch (bf_parmparse_type_of(name)) {
  case BF_PP_BOOL: return R_BOOL;
  case BF_PP_INT: return R_INT64;
  case BF_PP_REAL: return R_REAL;
  case BF_PP_INTVECT: return R_IV;
  case BF_PP_BOX: return R_BOX;
  case BF_PP_STRING: return R_STR;
  default: break;
  }
  const char *s = NULL;
  if (bf_parmparse_get(name, i, &s)) {
    bf_error_clear();
    return R_STR;
  }
  const char *p = s + (*s == '+' || *s == '-');
  bool digits = *p != '\0', decimal = false;
  for (const char *q = p; *q; ++q) digits = digits && *q >= '0' && *q <= '9';
  if (digits && strlen(p) < 19) return R_INT64; /* fits in int64 */
  char *end = NULL;
  if (*s && strpbrk(s, "0123456789")) {
    (void)strtod(s, &end);
    decimal = end && *end == '\0' && !strpbrk(s, "xXnNiI");
  }
  if (decimal) return R_REAL;
  if (!strcmp(s, "true") || !strcmp(s, "false")) return R_BOOL;
  return R_STR;
}

static PyObject *pp_read(const char *name, int i, pp_read_kind kind, int dim, bool *found) {
  int st;
  *found = false;
  if (kind == R_ANY) { /* its own type; its text when it does not read as that type */
    if (bf_parmparse_count(name) < 0) return NULL;
    PyObject *v = pp_read(name, i, pp_natural_kind(name, i), dim, found);
    if (v || !(PyErr_ExceptionMatches(PyExc_ValueError) || PyErr_ExceptionMatches(PyExc_OverflowError))) return v;
    PyErr_Clear();
    return pp_read(name, i, R_STR, dim, found);
  }
  switch (kind) {
  case R_INT64: {
    int64_t v = 0;
    st = bf_parmparse_query_int64(name, i, found, &v);
    return st ? bfpy_raise(st) : *found ? PyLong_FromLongLong((long long)v) : NULL;
  }
  case R_BOOL: {
    bool v = false;
    st = bf_parmparse_query_bool(name, i, found, &v);
    return st ? bfpy_raise(st) : *found ? PyBool_FromLong(v) : NULL;
  }
  case R_INT: {
    int v = 0;
    st = bf_parmparse_query_int(name, i, found, &v);
    return st ? bfpy_raise(st) : *found ? PyLong_FromLong(v) : NULL;
  }
  case R_REAL: {
    double v = 0;
    st = bf_parmparse_query_real(name, i, found, &v);
    return st ? bfpy_raise(st) : *found ? PyFloat_FromDouble(v) : NULL;
  }
  case R_STR: {
    const char *v = NULL;
    st = bf_parmparse_query_string(name, i, found, &v);
    return st ? bfpy_raise(st) : *found ? pp_str(v) : NULL;
  }
  case R_IV: {
    bf_intvect v;
    st = bf_parmparse_query_intvect(name, i, dim, found, &v);
    return st ? bfpy_raise(st) : *found ? bfpy_intvect_new(&v) : NULL;
  }
  default: {
    bf_box v;
    st = bf_parmparse_query_box(name, i, dim, found, &v);
    return st ? bfpy_raise(st) : *found ? bfpy_box_new(&v) : NULL;
  }
  }
}

static PyObject *pp_missing(const char *func, const char *name) {
  return PyErr_Format(PyExc_RuntimeError, "ParmParse.%s: parameter '%s' not found (a required parameter)", func,
                      name);
}

static PyObject *pp_default(pp_read_kind kind) {
  switch (kind) {
  case R_BOOL: Py_RETURN_FALSE;
  case R_INT: return PyLong_FromLong(0);
  case R_REAL: return PyFloat_FromDouble(0.0);
  case R_STR: return PyUnicode_FromString("");
  default: Py_RETURN_NONE;
  }
}

/* get_<kind>(name, ival=0) and query_<kind>(name, ival=0) */
static PyObject *pp_get_common(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                               pp_read_kind kind, bool query) {
  static const char *const names[] = {"name", "ival", NULL};
  PyObject *a[2];
  if (bfpy_bind(args, nargs, kwnames, names, 1, a, true) < 0) return NULL;
  int ival = 0;
  char func[32];
  snprintf(func, sizeof func, "%s%s%s", query ? "query" : "get", kind == R_ANY ? "" : "_", pp_kind_names[kind]);
  if (a[1] && bfpy_to_int(a[1], &ival, "ival") < 0) return NULL;
  PyObject *full = pp_full_name(self, a[0], func);
  if (!full) return NULL;
  bool found = false;
  PyObject *v = pp_read(PyBytes_AS_STRING(full), ival, kind, PP(self)->dim, &found);
  if (!v && !PyErr_Occurred()) {
    if (query) v = pp_default(kind);
    else pp_missing(func, PyBytes_AS_STRING(full));
  }
  Py_DECREF(full);
  if (!v || !query) return v;
  PyObject *r = Py_BuildValue("(ON)", found ? Py_True : Py_False, v);
  return r;
}

#define PP_GETTER(fn, kind, query)                                                                             \
  static PyObject *fn(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {            \
    return pp_get_common(self, args, nargs, kwnames, kind, query);                                             \
  }
PP_GETTER(pp_get_bool, R_BOOL, false)
PP_GETTER(pp_get_int, R_INT, false)
PP_GETTER(pp_get_real, R_REAL, false)
PP_GETTER(pp_get_str, R_STR, false)
PP_GETTER(pp_get_iv, R_IV, false)
PP_GETTER(pp_get_box, R_BOX, false)
PP_GETTER(pp_get_any, R_ANY, false)
PP_GETTER(pp_query_bool, R_BOOL, true)
PP_GETTER(pp_query_int, R_INT, true)
PP_GETTER(pp_query_real, R_REAL, true)
PP_GETTER(pp_query_str, R_STR, true)
PP_GETTER(pp_query_iv, R_IV, true)
PP_GETTER(pp_query_box, R_BOX, true)
PP_GETTER(pp_query_any, R_ANY, true)

/* All values [start, start + num) of `name` as a list of `kind`; NULL with
 * *found false and no exception when not defined. */
static PyObject *pp_read_list(const char *name, int start, int num, pp_read_kind kind, int dim, bool *found) {
  int count = bf_parmparse_count(name);
  *found = count >= 0;
  if (count < 0) return NULL;
  if (num == -1) num = count - start;
  if (start < 0 || num < 0 || (long long)start + num > count) {
    const char *file = NULL;
    int line = 0;
    bf_parmparse_origin(name, &file, &line);
    if (file)
      return PyErr_Format(PyExc_IndexError, "parameter %s (%s:%d) has %d values, asked for %d from %d", name, file,
                          line, count, num, start);
    return PyErr_Format(PyExc_IndexError, "parameter %s has %d values, asked for %d from %d", name, count, num, start);
  }
  PyObject *list = PyList_New(num);
  if (!list) return NULL;
  for (int k = 0; k < num; ++k) {
    bool f;
    PyObject *v = pp_read(name, start + k, kind, dim, &f);
    if (!v) {
      Py_DECREF(list);
      return NULL;
    }
    PyList_SET_ITEM(list, k, v);
  }
  return list;
}

/* get_<kind>_arr(name, start_ix=0, num_val=-1) and query_<kind>_arr(name) */
static PyObject *pp_arr_common(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                               pp_read_kind kind, bool query) {
  static const char *const gnames[] = {"name", "start_ix", "num_val", NULL};
  static const char *const qnames[] = {"name", NULL};
  PyObject *a[3] = {NULL, NULL, NULL};
  if (bfpy_bind(args, nargs, kwnames, query ? qnames : gnames, 1, a, true) < 0) return NULL;
  int start = 0, num = -1;
  char func[40];
  snprintf(func, sizeof func, "%s_%s_arr", query ? "query" : "get", pp_kind_names[kind]);
  if ((a[1] && bfpy_to_int(a[1], &start, "start_ix") < 0) || (a[2] && bfpy_to_int(a[2], &num, "num_val") < 0))
    return NULL;
  PyObject *full = pp_full_name(self, a[0], func);
  if (!full) return NULL;
  bool found = false;
  PyObject *v = pp_read_list(PyBytes_AS_STRING(full), start, num, kind, PP(self)->dim, &found);
  if (!v && !PyErr_Occurred()) {
    if (query) v = PyList_New(0);
    else pp_missing(func, PyBytes_AS_STRING(full));
  }
  Py_DECREF(full);
  if (!v || !query) return v;
  return Py_BuildValue("(ON)", found ? Py_True : Py_False, v);
}

#define PP_ARR(fn, kind, query)                                                                                \
  static PyObject *fn(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {            \
    return pp_arr_common(self, args, nargs, kwnames, kind, query);                                             \
  }
PP_ARR(pp_get_bool_arr, R_BOOL, false)
PP_ARR(pp_get_int_arr, R_INT, false)
PP_ARR(pp_get_real_arr, R_REAL, false)
PP_ARR(pp_get_str_arr, R_STR, false)
PP_ARR(pp_get_iv_arr, R_IV, false)
PP_ARR(pp_get_box_arr, R_BOX, false)
PP_ARR(pp_query_bool_arr, R_BOOL, true)
PP_ARR(pp_query_int_arr, R_INT, true)
PP_ARR(pp_query_real_arr, R_REAL, true)
PP_ARR(pp_query_str_arr, R_STR, true)
PP_ARR(pp_query_iv_arr, R_IV, true)
PP_ARR(pp_query_box_arr, R_BOX, true)

/* ---- the table ------------------------------------------------------------------- */
static PyObject *pp_name_method(PyObject *self, PyObject *name, const char *func, int which) {
  PyObject *full = pp_full_name(self, name, func);
  if (!full) return NULL;
  const char *s = PyBytes_AS_STRING(full);
  PyObject *r;
  if (which == 0) r = PyBool_FromLong(bf_parmparse_count(s) >= 0);
  else if (which == 1) {
    int n = bf_parmparse_count(s);
    r = PyLong_FromLong(n < 0 ? 0 : n);
  } else r = PyLong_FromLong(bf_parmparse_remove(s));
  Py_DECREF(full);
  return r;
}

static PyObject *pp_contains(PyObject *self, PyObject *name) { return pp_name_method(self, name, "contains", 0); }
static PyObject *pp_countval(PyObject *self, PyObject *name) { return pp_name_method(self, name, "countval", 1); }
static PyObject *pp_remove(PyObject *self, PyObject *name) { return pp_name_method(self, name, "remove", 2); }

/* Put v at the dotted path `name` of the nested dict d (a value on the way is
 * replaced by a dict, as pyAMReX's to_dict does). */
static int pp_put_nested(PyObject *d, const char *name, PyObject *v) {
  Py_INCREF(d);
  for (;;) {
    const char *dot = strchr(name, '.');
    PyObject *key = PyUnicode_DecodeUTF8(name, dot ? (Py_ssize_t)(dot - name) : (Py_ssize_t)strlen(name), "replace");
    if (!key) goto fail;
    if (!dot) {
      int rc = PyDict_SetItem(d, key, v);
      Py_DECREF(key);
      Py_DECREF(d);
      return rc;
    }
    PyObject *inner = PyDict_GetItemWithError(d, key);
    if (!inner && PyErr_Occurred()) {
      Py_DECREF(key);
      goto fail;
    }
    if (!inner || !PyDict_Check(inner)) {
      inner = PyDict_New();
      if (!inner || PyDict_SetItem(d, key, inner) < 0) {
        Py_XDECREF(inner);
        Py_DECREF(key);
        goto fail;
      }
    } else {
      Py_INCREF(inner);
    }
    Py_DECREF(key);
    Py_SETREF(d, inner);
    name = dot + 1;
  }
fail:
  Py_DECREF(d);
  return -1;
}

static PyObject *pp_to_dict(PyObject *self, PyObject *noargs) {
  (void)noargs;
  PyObject *d = PyDict_New();
  if (!d) return NULL;
  int n = bf_parmparse_size();
  for (int i = 0; i < n; ++i) {
    const char *name0 = bf_parmparse_name_at(i);
    if (!name0) break;
    size_t len = strlen(name0);
    char *name = PyMem_Malloc(len + 1); /* our own copy while the table is read */
    if (name) memcpy(name, name0, len + 1);
    if (!name) {
      Py_DECREF(d);
      return PyErr_NoMemory();
    }
    int count = bf_parmparse_count(name);
    bool found;
    PyObject *v = count == 1 ? pp_read(name, 0, R_ANY, PP(self)->dim, &found)
                             : pp_read_list(name, 0, -1, R_ANY, PP(self)->dim, &found);
    if (!v && !PyErr_Occurred()) v = PyList_New(0);
    int rc = v ? pp_put_nested(d, name, v) : -1;
    Py_XDECREF(v);
    PyMem_Free(name);
    if (rc < 0) {
      Py_DECREF(d);
      return NULL;
    }
  }
  return d;
}

static PyObject *pp_pretty_print(PyObject *self, PyObject *noargs) {
  (void)self, (void)noargs;
  char *text = NULL;
  if (bfpy_check(bf_parmparse_pretty(&text)) < 0) return NULL;
  PyObject *s = pp_str(text);
  free(text);
  if (!s) return NULL;
  PyObject *out = PySys_GetObject("stdout"); /* borrowed */
  PyObject *r = out && out != Py_None ? PyObject_CallMethod(out, "write", "O", s) : (Py_INCREF(Py_None), Py_None);
  Py_DECREF(s);
  if (!r) return NULL;
  Py_DECREF(r);
  Py_RETURN_NONE;
}

static PyObject *pp_pretty_text(PyObject *self, PyObject *noargs) {
  (void)self, (void)noargs;
  char *text = NULL;
  if (bfpy_check(bf_parmparse_pretty(&text)) < 0) return NULL;
  PyObject *s = pp_str(text);
  free(text);
  return s;
}

/* addfile(filename, /): static; `bound` is the module's dimension (an int: decides #if AMREX_SPACEDIM) */
static PyObject *pp_addfile(PyObject *bound, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs != 1) return PyErr_Format(PyExc_TypeError, "addfile(filename, /) takes 1 argument (%zd given)", nargs);
  int dim = (int)PyLong_AsLong(bound);
  PyObject *path = NULL;
  if (!PyUnicode_Check(args[0]) && !PyObject_HasAttrString(args[0], "__fspath__"))
    return PyErr_Format(PyExc_TypeError, "addfile: filename must be a str or os.PathLike, not %.100s",
                        Py_TYPE(args[0])->tp_name);
  if (!PyUnicode_FSConverter(args[0], &path)) return NULL; /* bytes, NUL checked */
  int st = bf_parmparse_add_file(PyBytes_AS_STRING(path), dim);
  Py_DECREF(path);
  if (st) return bfpy_raise(st);
  Py_RETURN_NONE;
}

#define KW(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS
static PyMethodDef pp_methods[] = {
    {"add", KW(pp_add), "add(name, value, /) -> None: set name to a bool, int, float (kept exactly), str, IntVect or Box."},
    {"addarr", KW(pp_addarr), "addarr(name, values, /) -> None: set name to a list of ints, floats, strs, IntVects or Boxes."},
    {"get_bool", KW(pp_get_bool), "get_bool(name, ival=0) -> bool: true/false/t/f (any case) or a number; RuntimeError when missing."},
    {"get_int", KW(pp_get_int), "get_int(name, ival=0) -> int: a number or an int expression; RuntimeError when missing."},
    {"get_real", KW(pp_get_real), "get_real(name, ival=0) -> float: a number or an expression; RuntimeError when missing."},
    {"get_str", KW(pp_get_str), "get_str(name, ival=0) -> str; RuntimeError when missing."},
    {"get_string", KW(pp_get_str), "get_string(name, ival=0) -> str: get_str."},
    {"get_intvect", KW(pp_get_iv), "get_intvect(name, ival=0) -> IntVect: from \"(i,j,k)\"."},
    {"get_box", KW(pp_get_box), "get_box(name, ival=0) -> Box: from \"((lo) (hi) (type))\"."},
    {"get", KW(pp_get_any), "get(name, ival=0): the value with its type (as added, or read from text)."},
    {"query_bool", KW(pp_query_bool), "query_bool(name, ival=0) -> tuple[bool, bool]"},
    {"query_int", KW(pp_query_int), "query_int(name, ival=0) -> tuple[bool, int]"},
    {"query_real", KW(pp_query_real), "query_real(name, ival=0) -> tuple[bool, float]"},
    {"query_str", KW(pp_query_str), "query_str(name, ival=0) -> tuple[bool, str]"},
    {"query_string", KW(pp_query_str), "query_string(name, ival=0) -> tuple[bool, str]: query_str."},
    {"query_intvect", KW(pp_query_iv), "query_intvect(name, ival=0) -> (found, IntVect or None)"},
    {"query_box", KW(pp_query_box), "query_box(name, ival=0) -> (found, Box or None)"},
    {"query", KW(pp_query_any), "query(name, ival=0) -> (found, value)"},
    {"get_bool_arr", KW(pp_get_bool_arr), "get_bool_arr(name, start_ix=0, num_val=-1) -> list[bool]"},
    {"get_int_arr", KW(pp_get_int_arr), "get_int_arr(name, start_ix=0, num_val=-1) -> list[int]"},
    {"get_real_arr", KW(pp_get_real_arr), "get_real_arr(name, start_ix=0, num_val=-1) -> list[float]"},
    {"get_str_arr", KW(pp_get_str_arr), "get_str_arr(name, start_ix=0, num_val=-1) -> list[str]"},
    {"get_string_arr", KW(pp_get_str_arr), "get_string_arr(name, start_ix=0, num_val=-1) -> list[str]"},
    {"get_intvect_arr", KW(pp_get_iv_arr), "get_intvect_arr(name, start_ix=0, num_val=-1) -> list[IntVect]"},
    {"get_box_arr", KW(pp_get_box_arr), "get_box_arr(name, start_ix=0, num_val=-1) -> list[Box]"},
    {"query_bool_arr", KW(pp_query_bool_arr), "query_bool_arr(name) -> (found, list[bool])"},
    {"query_int_arr", KW(pp_query_int_arr), "query_int_arr(name) -> (found, list[int])"},
    {"query_real_arr", KW(pp_query_real_arr), "query_real_arr(name) -> (found, list[float])"},
    {"query_str_arr", KW(pp_query_str_arr), "query_str_arr(name) -> (found, list[str])"},
    {"query_string_arr", KW(pp_query_str_arr), "query_string_arr(name) -> (found, list[str])"},
    {"query_intvect_arr", KW(pp_query_iv_arr), "query_intvect_arr(name) -> (found, list[IntVect])"},
    {"query_box_arr", KW(pp_query_box_arr), "query_box_arr(name) -> (found, list[Box])"},
    {"contains", pp_contains, METH_O, "contains(name, /) -> bool"},
    {"countval", pp_countval, METH_O, "countval(name, /) -> int: number of values (0 when missing)."},
    {"remove", pp_remove, METH_O, "remove(name, /) -> int: entries removed (0 or 1)."},
    {"to_dict", pp_to_dict, METH_NOARGS, "to_dict() -> dict: the whole table as nested dicts (a.b.c -> d[a][b][c])."},
    {"pretty_print", pp_pretty_print, METH_NOARGS, "pretty_print() -> None: print the table (name = values), sorted."},
    {"pretty_print_table", pp_pretty_print, METH_NOARGS, "pretty_print_table() -> None: pretty_print."},
    {"pretty_text", pp_pretty_text, METH_NOARGS, "pretty_text() -> str: what pretty_print prints."},
    {NULL, NULL, 0, NULL},
};

/* hasUnusedInputs(prefix="") / getUnusedInputs(prefix=""): AMReX's statics over the parameters nobody
 * read (defined by an inputs file or the command line and never queried, counted or looked for). */
static int unused_prefix(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, const char **prefix) {
  static const char *const names[] = {"prefix", NULL};
  PyObject *a[1];
  *prefix = "";
  if (bfpy_bind(args, nargs, kwnames, names, 0, a, true) < 0) return -1;
  if (a[0] && !(*prefix = PyUnicode_AsUTF8(a[0]))) return -1;
  return 0;
}

static PyObject *pp_has_unused(PyObject *bound, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  (void)bound;
  const char *prefix;
  if (unused_prefix(args, nargs, kwnames, &prefix) < 0) return NULL;
  return PyBool_FromLong(bf_parmparse_has_unused(prefix));
}

static PyObject *pp_get_unused(PyObject *bound, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  (void)bound;
  const char *prefix;
  char *text = NULL;
  if (unused_prefix(args, nargs, kwnames, &prefix) < 0 || bfpy_check(bf_parmparse_unused(prefix, 1, &text)) < 0)
    return NULL;
  PyObject *s = PyUnicode_FromString(text), *lines = s ? PyUnicode_Splitlines(s, 0) : NULL;
  Py_XDECREF(s);
  free(text);
  return lines;
}

static PyMethodDef pp_statics[] = {
    {"hasUnusedInputs", (PyCFunction)(void (*)(void))pp_has_unused, METH_FASTCALL | METH_KEYWORDS,
     "hasUnusedInputs(prefix=\"\") -> bool: some parameter under prefix was never read."},
    {"getUnusedInputs", (PyCFunction)(void (*)(void))pp_get_unused, METH_FASTCALL | METH_KEYWORDS,
     "getUnusedInputs(prefix=\"\") -> list[str]: \"name = v1 v2\" of each parameter never read, sorted."},
    {"addfile", (PyCFunction)(void (*)(void))pp_addfile, METH_FASTCALL,
     "addfile(filename, /) -> None: read an inputs file (AMReX's syntax, docs/inputs.md) into the table."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef pp_getset[] = {
    {"prefix", pp_get_prefix, NULL, "The prefix names are looked up under (\"\" for none).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot pp_slots[] = {
    {Py_tp_doc, "ParmParse(prefix=\"\"): the run-time parameters, names looked up as prefix.name."},
    {Py_tp_new, pp_new},
    {Py_tp_init, pp_init},
    {Py_tp_dealloc, pp_dealloc},
    {Py_tp_repr, pp_repr},
    {Py_tp_methods, pp_methods},
    {Py_tp_getset, pp_getset},
    {0, NULL},
};

static PyType_Spec pp_spec = {.name = "ParmParse",
                              .basicsize = sizeof(bfpy_parmparse_object),
                              .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                              .slots = pp_slots};

int bfpy_init_parmparse(PyObject *m, int dim) {
  PyTypeObject *t = bfpy_make_type(m, dim, BFPY_T_PARMPARSE, "ParmParse", &pp_spec, NULL);
  PyObject *dimobj = t ? PyLong_FromLong(dim) : NULL;
  int rc = dimobj ? bfpy_add_statics(t, pp_statics, dimobj) : -1;
  Py_XDECREF(dimobj);
  return rc;
}
