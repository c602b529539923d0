/* boxfab._core: particle specs (the layouts pyAMReX instantiates per space
 * module), Particle_<NR>_<NI> and ParticleInitType_<S>.
 *
 * A Particle object holds AMReX's Particle<NR, NI> bytes (include/boxfab/
 * particles.h: pos[dim], rdata[NR], idcpu, idata[NI]) or refers to one
 * particle of an ArrayOfStructs (aos[i] in pyAMReX is a reference: writes go
 * to the storage; here every access reads or writes the element through
 * bf_podvec_get / set, so a reference never touches freed memory and an
 * index that left the vector raises IndexError). */
#include <stdlib.h>
#include <string.h>

#include "particles/arrays.h"
#include "boxfab/idcpu.h"

/* ---- specs ---------------------------------------------------------------------- */

#define MAX_SPECS 8
#define MAX_PTYPES 12

static bfpy_pspec specs[BF_SPACEDIM_MAX + 1][MAX_SPECS];
static int nspecs[BF_SPACEDIM_MAX + 1];
static char spec_suffixes[BF_SPACEDIM_MAX + 1][MAX_SPECS][32];

/* Particle_<NR>_<NI> types of a module. */
typedef struct {
  int nr, ni;
  PyTypeObject *type;
  char name[64];
} ptype_entry;
static ptype_entry ptypes[BF_SPACEDIM_MAX + 1][MAX_PTYPES];
static int nptypes[BF_SPACEDIM_MAX + 1];

static PyTypeObject *pinit_types[BF_SPACEDIM_MAX + 1][MAX_SPECS];
static char pinit_names[BF_SPACEDIM_MAX + 1][MAX_SPECS][80];

static void specs_init(int dim) {
  /* pureSoA_11_0: pyAMReX 26's ImpactX layout (3D) */
  static const int pure3[] = {3, 7, 8, 11}, pure2[] = {2, 6, 7, 8}, pure1[] = {1, 5, 8};
  const int *pure = dim == 3 ? pure3 : dim == 2 ? pure2 : pure1;
  int npure = dim == 3 ? 4 : dim == 2 ? 4 : 3;
  int n = 0;
  bf_playout l1 = {dim, false, 2, 1, 3, 1}, l2 = {dim, false, 16, 4, 0, 0};
  specs[dim][n].layout = l1;
  specs[dim][n++].suffix = "2_1_3_1";
  specs[dim][n].layout = l2;
  specs[dim][n++].suffix = "16_4_0_0";
  for (int k = 0; k < npure; ++k) {
    bf_playout l = {dim, true, 0, 0, pure[k], 0};
    snprintf(spec_suffixes[dim][n], sizeof spec_suffixes[0][0], "pureSoA_%d_0", pure[k]);
    specs[dim][n].layout = l;
    specs[dim][n].suffix = spec_suffixes[dim][n];
    ++n;
  }
  nspecs[dim] = n;
}

int bfpy_pspec_count(int dim) { return dim >= 1 && dim <= BF_SPACEDIM_MAX ? nspecs[dim] : 0; }
const bfpy_pspec *bfpy_pspec_at(int dim, int i) {
  return i >= 0 && i < bfpy_pspec_count(dim) ? &specs[dim][i] : NULL;
}
int bfpy_pspec_find(int dim, const char *suffix) {
  for (int i = 0; i < bfpy_pspec_count(dim); ++i)
    if (strcmp(specs[dim][i].suffix, suffix) == 0) return i;
  return -1;
}

/* (NR, NI) of the super particle of a spec. */
static void super_of(const bf_playout *l, int *nr, int *ni) {
  *nr = l->nsr + l->nar;
  *ni = l->nsi + l->nai;
}

static int ptype_find(int dim, int nr, int ni) {
  for (int k = 0; k < nptypes[dim]; ++k)
    if (ptypes[dim][k].nr == nr && ptypes[dim][k].ni == ni) return k;
  return -1;
}

/* Id counter of Particle_<NR>_<NI> in dim: one family per type. */
static int ptype_family(int dim, int k) { return (dim - 1) * 16 + k; }

int bfpy_pspec_id_family(int dim, int spec) {
  const bfpy_pspec *s = bfpy_pspec_at(dim, spec);
  if (!s) return 0;
  int nr, ni;
  super_of(&s->layout, &nr, &ni);
  int k = ptype_find(dim, nr, ni);
  return ptype_family(dim, k < 0 ? 0 : k);
}

PyTypeObject *bfpy_pinit_type(int dim, int spec) {
  return spec >= 0 && spec < bfpy_pspec_count(dim) ? pinit_types[dim][spec] : NULL;
}

/* ---- Particle_<NR>_<NI> ---------------------------------------------------------------- */

static inline bfpy_particle_object *P(PyObject *o) { return (bfpy_particle_object *)o; }

static size_t p_size(const bfpy_particle_object *p) {
  bf_playout l = bfpy_particle_layout(p->dim, p->nr, p->ni);
  return bf_playout_struct_size(&l);
}
static size_t p_idcpu_off(const bfpy_particle_object *p) { return 8 * (size_t)(p->dim + p->nr); }
static size_t p_idata_off(const bfpy_particle_object *p) { return 8 * (size_t)(p->dim + p->nr) + 8; }

/* Read / write the particle's bytes (buf of p_size bytes). */
static int p_load(bfpy_particle_object *p, void *buf) {
  if (!p->ref) {
    memcpy(buf, p->data, p_size(p));
    return 0;
  }
  if (p->index >= bf_podvec_size(p->ref)) {
    PyErr_Format(PyExc_IndexError, "this particle referred to element %lld of an ArrayOfStructs that now has %lld",
                 (long long)p->index, (long long)bf_podvec_size(p->ref));
    return -1;
  }
  return bfpy_check(bf_podvec_get(p->ref, p->index, buf));
}
static int p_store(bfpy_particle_object *p, const void *buf) {
  if (!p->ref) {
    memcpy(p->data, buf, p_size(p));
    return 0;
  }
  if (p->index >= bf_podvec_size(p->ref)) {
    PyErr_Format(PyExc_IndexError, "this particle referred to element %lld of an ArrayOfStructs that now has %lld",
                 (long long)p->index, (long long)bf_podvec_size(p->ref));
    return -1;
  }
  return bfpy_check(bf_podvec_set(p->ref, p->index, buf));
}

#define PBUF_MAX 512 /* bytes of the largest Particle_* type (Particle_16_4: at most 192) */

static double *pos_at(unsigned char *b, int d) { return (double *)(void *)(b + 8 * (size_t)d); }

static PyObject *p_alloc(PyTypeObject *t, int dim, int nr, int ni) {
  bfpy_particle_object *o = (bfpy_particle_object *)t->tp_alloc(t, 0);
  if (!o) return NULL;
  o->dim = dim, o->nr = nr, o->ni = ni;
  o->data = calloc(1, p_size(o));
  if (!o->data) {
    Py_DECREF(o);
    return PyErr_NoMemory();
  }
  return (PyObject *)o;
}

static int p_type_info(PyTypeObject *t, int *dim, int *k) {
  for (int d = 1; d <= BF_SPACEDIM_MAX; ++d)
    for (int j = 0; j < nptypes[d]; ++j)
      if (t == ptypes[d][j].type || PyType_IsSubtype(t, ptypes[d][j].type)) {
        *dim = d, *k = j;
        return 0;
      }
  return -1;
}

PyObject *bfpy_particle_new(int dim, int nr, int ni, const void *bytes, bf_podvec *ref, int64_t index) {
  int k = ptype_find(dim, nr, ni);
  if (k < 0) {
    PyErr_Format(PyExc_TypeError, "boxfab: no Particle_%d_%d type in %dD", nr, ni, dim);
    return NULL;
  }
  PyObject *o = p_alloc(ptypes[dim][k].type, dim, nr, ni);
  if (!o) return NULL;
  if (ref) {
    P(o)->ref = bf_podvec_retain(ref);
    P(o)->index = index;
  } else if (bytes) {
    memcpy(P(o)->data, bytes, p_size(P(o)));
  }
  return o;
}

bool bfpy_particle_kind(PyObject *o, int dim, int *nr, int *ni) {
  if (!bfpy_is(o, BFPY_T_PARTICLE, dim)) return false;
  *nr = P(o)->nr, *ni = P(o)->ni;
  return true;
}

int bfpy_particle_bytes(PyObject *o, int dim, int nr, int ni, void *bytes, const char *what) {
  int onr, oni;
  if (!bfpy_particle_kind(o, dim, &onr, &oni) || onr != nr || oni != ni) {
    PyErr_Format(PyExc_TypeError, "%s must be a Particle_%d_%d of this module (%dD), not %.100s", what, nr, ni, dim,
                 Py_TYPE(o)->tp_name);
    return -1;
  }
  return p_load(P(o), bytes);
}

static PyObject *p_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
  (void)args, (void)kwds;
  int dim, k;
  if (p_type_info(type, &dim, &k) < 0) {
    PyErr_Format(PyExc_TypeError, "%s cannot be instantiated (use a Particle_<NR>_<NI> type)", type->tp_name);
    return NULL;
  }
  return p_alloc(type, dim, ptypes[dim][k].nr, ptypes[dim][k].ni);
}

static const char *p_name(PyObject *self) {
  const char *n = strrchr(Py_TYPE(self)->tp_name, '.');
  return n ? n + 1 : Py_TYPE(self)->tp_name;
}

/* kwargs "rdata_<i>" / "idata_<i>" (and with `pos_keys` "x", "y", "z"); other keys are ignored, as in pyAMReX. */
static int p_kwargs(bfpy_particle_object *p, unsigned char *b, PyObject *kwds, bool pos_keys) {
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  static const char *const axes[] = {"x", "y", "z"};
  while (PyDict_Next(kwds, &pos, &key, &value)) {
    const char *k = PyUnicode_AsUTF8(key);
    if (!k) return -1;
    if (pos_keys) {
      bool done = false;
      for (int d = 0; d < p->dim; ++d)
        if (strcmp(k, axes[d]) == 0) {
          if (bfpy_to_double(value, pos_at(b, d), k) < 0) return -1;
          done = true;
        }
      if (done) continue;
    }
    bool real = strncmp(k, "rdata_", 6) == 0, integer = strncmp(k, "idata_", 6) == 0;
    if (!real && !integer) continue;
    const char *num = k + 6;
    char *end = NULL;
    long c = strtol(num, &end, 10);
    if (!*num || *end || c < 0) continue;
    if (real && c < p->nr) {
      if (bfpy_to_double(value, (double *)(void *)(b + 8 * (size_t)(p->dim + c)), k) < 0) return -1;
    } else if (integer && c < p->ni) {
      int v;
      if (bfpy_to_int(value, &v, k) < 0) return -1;
      int32_t v32 = v;
      memcpy(b + p_idata_off(p) + 4 * (size_t)c, &v32, 4);
    }
  }
  return 0;
}

static int p_init(PyObject *self, PyObject *args, PyObject *kwds) {
  bfpy_particle_object *p = P(self);
  if (p->ref) {
    PyErr_Format(PyExc_TypeError, "%s.__init__: this particle refers to an ArrayOfStructs element", p_name(self));
    return -1;
  }
  unsigned char b[PBUF_MAX];
  memset(b, 0, p_size(p));
  Py_ssize_t n = PyTuple_GET_SIZE(args);
  bool has_kw = kwds && PyDict_GET_SIZE(kwds) > 0;
  if (n == 0) {
    if (has_kw && p_kwargs(p, b, kwds, true) < 0) return -1;
  } else if (n < p->dim) {
    PyErr_Format(PyExc_TypeError,
                 "%s(): give no position or all %d coordinates (then exactly %d reals and %d ints, or rdata_<i>=, "
                 "idata_<i>= keywords); got %zd positional arguments",
                 p_name(self), p->dim, p->nr, p->ni, n);
    return -1;
  } else {
    for (int d = 0; d < p->dim; ++d)
      if (bfpy_to_double(PyTuple_GET_ITEM(args, d), pos_at(b, d), "position") < 0) return -1;
    if (n > p->dim) {
      if (has_kw) {
        PyErr_Format(PyExc_TypeError, "%s(): give the data either positionally or as keywords, not both",
                     p_name(self));
        return -1;
      }
      if (n != p->dim + p->nr + p->ni) {
        PyErr_Format(PyExc_RuntimeError, "Must supply all %d rdata, idata elements", p->nr + p->ni);
        return -1;
      }
      for (int c = 0; c < p->nr; ++c)
        if (bfpy_to_double(PyTuple_GET_ITEM(args, p->dim + c), (double *)(void *)(b + 8 * (size_t)(p->dim + c)),
                           "rdata") < 0)
          return -1;
      for (int c = 0; c < p->ni; ++c) {
        int v;
        if (bfpy_to_int(PyTuple_GET_ITEM(args, p->dim + p->nr + c), &v, "idata") < 0) return -1;
        int32_t v32 = v;
        memcpy(b + p_idata_off(p) + 4 * (size_t)c, &v32, 4);
      }
    } else if (has_kw && p_kwargs(p, b, kwds, false) < 0) {
      return -1;
    }
  }
  return p_store(p, b);
}

static void p_dealloc(PyObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  bf_podvec_destroy(&P(self)->ref);
  free(P(self)->data);
  tp->tp_free(self);
  Py_DECREF(tp);
}

/* -- accessors -- */
static PyObject *p_get_axis(PyObject *self, void *closure) {
  int d = (int)(intptr_t)closure;
  unsigned char b[PBUF_MAX];
  if (d >= P(self)->dim) {
    PyErr_Format(PyExc_AttributeError, "%s has no position component %d in %dD", p_name(self), d, P(self)->dim);
    return NULL;
  }
  if (p_load(P(self), b) < 0) return NULL;
  return PyFloat_FromDouble(*pos_at(b, d));
}
static int p_set_axis(PyObject *self, PyObject *value, void *closure) {
  int d = (int)(intptr_t)closure;
  unsigned char b[PBUF_MAX];
  if (!value) {
    PyErr_SetString(PyExc_AttributeError, "particle positions cannot be deleted");
    return -1;
  }
  if (d >= P(self)->dim) {
    PyErr_Format(PyExc_AttributeError, "%s has no position component %d in %dD", p_name(self), d, P(self)->dim);
    return -1;
  }
  double v;
  if (bfpy_to_double(value, &v, "position") < 0 || p_load(P(self), b) < 0) return -1;
  *pos_at(b, d) = v;
  return p_store(P(self), b);
}

static int p_comp(PyObject *o, int n, const char *what, int *c) {
  if (!bfpy_is_intlike(o)) {
    PyErr_Format(PyExc_TypeError, "%s index must be an int, not %.100s", what, Py_TYPE(o)->tp_name);
    return -1;
  }
  if (bfpy_to_int(o, c, what) < 0) {
    if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return -1; /* e.g. an __index__ that raises */
    PyErr_Clear();
    *c = -1;
  }
  if (*c < 0 || *c >= n) {
    PyErr_Format(PyExc_ValueError, "index not in range. Valid range : [0, %d)", n);
    return -1;
  }
  return 0;
}

static PyObject *p_pos(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"", NULL};
  PyObject *a[1];
  if (bfpy_bind(args, nargs, kwnames, names, 0, a, true) < 0) return NULL;
  unsigned char b[PBUF_MAX];
  int d = 0;
  if (a[0] && p_comp(a[0], P(self)->dim, "pos", &d) < 0) return NULL;
  if (p_load(P(self), b) < 0) return NULL;
  if (a[0]) return PyFloat_FromDouble(*pos_at(b, d));
  return bfpy_realvect_new(P(self)->dim, (const double *)(void *)b);
}

static PyObject *p_setpos(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"", "", NULL};
  PyObject *a[2];
  if (bfpy_bind(args, nargs, kwnames, names, 1, a, true) < 0) return NULL;
  bfpy_particle_object *p = P(self);
  /* convert first (__index__ / __float__ / __iter__ may change this particle), then load, modify, store */
  int d = -1;
  double v[BF_SPACEDIM_MAX];
  if (a[1]) {
    if (p_comp(a[0], p->dim, "setPos", &d) < 0 || bfpy_to_double(a[1], &v[0], "setPos value") < 0) return NULL;
  } else if (bfpy_is(a[0], BFPY_T_REALVECT, -1)) {
    if (bfpy_as_realvect(a[0], p->dim, v, "setPos") < 0) return NULL;
  } else {
    if (bfpy_to_double_array(a[0], p->dim, v, "setPos") < 0) return NULL;
  }
  unsigned char b[PBUF_MAX];
  if (p_load(p, b) < 0) return NULL;
  if (d >= 0) *pos_at(b, d) = v[0];
  else memcpy(b, v, 8 * (size_t)p->dim);
  if (p_store(p, b) < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject *p_get_data(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, bool real) {
  static const char *const names[] = {"", NULL};
  PyObject *a[1];
  if (bfpy_bind(args, nargs, kwnames, names, 0, a, true) < 0) return NULL;
  bfpy_particle_object *p = P(self);
  int n = real ? p->nr : p->ni;
  if (n == 0) Py_RETURN_NONE;
  int c = 0;
  if (a[0] && p_comp(a[0], n, real ? "get_rdata" : "get_idata", &c) < 0) return NULL;
  unsigned char b[PBUF_MAX];
  if (p_load(p, b) < 0) return NULL;
  if (real) {
    const double *r = (const double *)(void *)(b + 8 * (size_t)p->dim);
    return a[0] ? PyFloat_FromDouble(r[c]) : bfpy_double_list(r, n);
  }
  int32_t iv[64];
  memcpy(iv, b + p_idata_off(p), 4 * (size_t)n);
  if (a[0]) return PyLong_FromLong(iv[c]);
  int tmp[64];
  for (int i = 0; i < n; ++i) tmp[i] = iv[i];
  return bfpy_int_list(tmp, n);
}
static PyObject *p_get_rdata(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return p_get_data(self, args, nargs, kwnames, true);
}
static PyObject *p_get_idata(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return p_get_data(self, args, nargs, kwnames, false);
}

static PyObject *p_set_data(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, bool real) {
  static const char *const names[] = {"", "", NULL};
  PyObject *a[2];
  if (bfpy_bind(args, nargs, kwnames, names, 1, a, true) < 0) return NULL;
  bfpy_particle_object *p = P(self);
  int n = real ? p->nr : p->ni;
  const char *fn = real ? "set_rdata" : "set_idata";
  /* convert first (user code in __index__ / __float__ / __iter__ may change this particle), then
   * load, modify, store */
  int c = -1;
  double rv[64];
  int iv[64];
  if (a[1]) {
    if (p_comp(a[0], n, fn, &c) < 0) return NULL;
    if (real ? bfpy_to_double(a[1], &rv[0], fn) < 0 : bfpy_to_int(a[1], &iv[0], fn) < 0) return NULL;
  } else if (real) {
    if (bfpy_to_double_array(a[0], n, rv, fn) < 0) return NULL;
  } else {
    if (bfpy_to_int_array(a[0], n, iv, fn) < 0) return NULL;
  }
  unsigned char b[PBUF_MAX];
  if (p_load(p, b) < 0) return NULL;
  double *r = (double *)(void *)(b + 8 * (size_t)p->dim);
  unsigned char *ip = b + p_idata_off(p);
  for (int k = c >= 0 ? c : 0; k < (c >= 0 ? c + 1 : n); ++k) {
    if (real) r[k] = rv[c >= 0 ? 0 : k];
    else {
      int32_t v32 = iv[c >= 0 ? 0 : k];
      memcpy(ip + 4 * (size_t)k, &v32, 4);
    }
  }
  if (p_store(p, b) < 0) return NULL;
  Py_RETURN_NONE;
}
static PyObject *p_set_rdata(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return p_set_data(self, args, nargs, kwnames, true);
}
static PyObject *p_set_idata(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return p_set_data(self, args, nargs, kwnames, false);
}

static int p_idcpu(PyObject *self, uint64_t *v) {
  unsigned char b[PBUF_MAX];
  if (p_load(P(self), b) < 0) return -1;
  memcpy(v, b + p_idcpu_off(P(self)), 8);
  return 0;
}
static PyObject *p_id(PyObject *self, PyObject *noargs) {
  (void)noargs;
  uint64_t v;
  if (p_idcpu(self, &v) < 0) return NULL;
  return PyLong_FromLongLong(bf_idcpu_id(v));
}
static PyObject *p_cpu(PyObject *self, PyObject *noargs) {
  (void)noargs;
  uint64_t v;
  if (p_idcpu(self, &v) < 0) return NULL;
  return PyLong_FromLong(bf_idcpu_cpu(v));
}

static PyObject *p_nextid(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"", NULL};
  PyObject *a[1];
  if (bfpy_bind(args, nargs, kwnames, names, 0, a, true) < 0) return NULL;
  int k = ptype_find(P(self)->dim, P(self)->nr, P(self)->ni);
  int family = ptype_family(P(self)->dim, k < 0 ? 0 : k);
  if (a[0]) {
    int64_t next;
    if (!bfpy_is_intlike(a[0])) {
      PyErr_Format(PyExc_TypeError, "NextID(nextid): nextid must be an int, not %.100s", Py_TYPE(a[0])->tp_name);
      return NULL;
    }
    if (bfpy_to_int64(a[0], &next, "nextid") < 0 || bfpy_check(bf_particle_set_next_id(family, next)) < 0) return NULL;
    Py_RETURN_NONE;
  }
  int64_t first;
  if (bfpy_check(bf_particle_next_id(family, 1, &first)) < 0) return NULL;
  return PyLong_FromLongLong(first);
}

/* AMReX's operator<<: "id cpu pos... rdata... idata... " */
static PyObject *p_str(PyObject *self) {
  bfpy_particle_object *p = P(self);
  unsigned char b[PBUF_MAX];
  if (p_load(p, b) < 0) return NULL;
  uint64_t idcpu;
  memcpy(&idcpu, b + p_idcpu_off(p), 8);
  PyObject *parts = PyList_New(0);
  if (!parts) return NULL;
  PyObject *vals[2 + 3 + 64 + 64];
  int nv = 0;
  vals[nv++] = PyLong_FromLongLong(bf_idcpu_id(idcpu));
  vals[nv++] = PyLong_FromLong(bf_idcpu_cpu(idcpu));
  for (int d = 0; d < p->dim; ++d) vals[nv++] = PyFloat_FromDouble(*pos_at(b, d));
  for (int c = 0; c < p->nr; ++c) vals[nv++] = PyFloat_FromDouble(*pos_at(b, p->dim + c));
  for (int c = 0; c < p->ni; ++c) {
    int32_t v;
    memcpy(&v, b + p_idata_off(p) + 4 * (size_t)c, 4);
    vals[nv++] = PyLong_FromLong(v);
  }
  PyObject *out = NULL;
  for (int i = 0; i < nv; ++i) {
    PyObject *s = vals[i] ? PyObject_Str(vals[i]) : NULL;
    if (!s || PyList_Append(parts, s) < 0) {
      Py_XDECREF(s);
      goto done;
    }
    Py_DECREF(s);
  }
  {
    PyObject *sep = PyUnicode_FromString(" ");
    PyObject *j = sep ? PyUnicode_Join(sep, parts) : NULL;
    Py_XDECREF(sep);
    out = j ? PyUnicode_FromFormat("%U ", j) : NULL;
    Py_XDECREF(j);
  }
done:
  for (int i = 0; i < nv; ++i) Py_XDECREF(vals[i]);
  Py_DECREF(parts);
  return out;
}

static PyObject *p_repr(PyObject *self) {
  PyObject *s = p_str(self);
  if (!s) return NULL;
  PyObject *r = PyUnicode_FromFormat("<amrex.%s with attributes\nid cpu pos rdata idata \n%U>", p_name(self), s);
  Py_DECREF(s);
  return r;
}

static PyMethodDef p_methods[] = {
    {"pos", (PyCFunction)(void (*)(void))p_pos, METH_FASTCALL | METH_KEYWORDS,
     "pos(dir, /) -> float / pos() -> RealVect: the position."},
    {"setPos", (PyCFunction)(void (*)(void))p_setpos, METH_FASTCALL | METH_KEYWORDS,
     "setPos(dir, value, /) / setPos(v: RealVect, /) / setPos(values: list[float], /) -> None."},
    {"get_rdata", (PyCFunction)(void (*)(void))p_get_rdata, METH_FASTCALL | METH_KEYWORDS,
     "get_rdata(i, /) -> float / get_rdata() -> list[float] (None when NReal = 0); ValueError out of range."},
    {"set_rdata", (PyCFunction)(void (*)(void))p_set_rdata, METH_FASTCALL | METH_KEYWORDS,
     "set_rdata(i, value, /) / set_rdata(values, /) -> None."},
    {"get_idata", (PyCFunction)(void (*)(void))p_get_idata, METH_FASTCALL | METH_KEYWORDS,
     "get_idata(i, /) -> int / get_idata() -> list[int] (None when NInt = 0); ValueError out of range."},
    {"set_idata", (PyCFunction)(void (*)(void))p_set_idata, METH_FASTCALL | METH_KEYWORDS,
     "set_idata(i, value, /) / set_idata(values, /) -> None."},
    {"id", p_id, METH_NOARGS, "id() -> int: the particle id."},
    {"cpu", p_cpu, METH_NOARGS, "cpu() -> int: the owning rank."},
    {"NextID", (PyCFunction)(void (*)(void))p_nextid, METH_FASTCALL | METH_KEYWORDS,
     "NextID() -> int: get and increment the id counter of this particle type / NextID(nextid, /) -> None: set it."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef p_getset[] = {
    {"x", p_get_axis, p_set_axis, "Position x.", (void *)(intptr_t)0},
    {"y", p_get_axis, p_set_axis, "Position y (2D, 3D).", (void *)(intptr_t)1},
    {"z", p_get_axis, p_set_axis, "Position z (3D).", (void *)(intptr_t)2},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot p_base_slots[] = {
    {Py_tp_doc, "Base of the Particle_<NR>_<NI> types (not instantiable)."},
    {Py_tp_new, p_new},
    {Py_tp_init, p_init},
    {Py_tp_dealloc, p_dealloc},
    {Py_tp_repr, p_repr},
    {Py_tp_str, p_str},
    {Py_tp_methods, p_methods},
    {0, NULL},
};
static PyType_Spec p_base_spec = {.name = "_Particle",
                                  .basicsize = sizeof(bfpy_particle_object),
                                  .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                                  .slots = p_base_slots};

/* Per dimension: the getset with only the axes of that dim. */
static PyGetSetDef p_getsets[BF_SPACEDIM_MAX + 1][4];

static const char *p_doc =
    "Particle_<NR>_<NI>() / (x, y, z) / (x, y, z, *rdata_then_idata) / (x, y, z, **kwargs) / (**kwargs):\n"
    "AMReX's particle struct: position (the module's dimension), NReal reals, the packed id and rank (idcpu)\n"
    "and NInt ints. Keywords: x, y, z, rdata_<i>, idata_<i>.";

/* ---- ParticleInitType_<S> ------------------------------------------------------------------ */

typedef struct {
  PyObject_HEAD
  int dim, spec;
  double *rs, *ra; /* struct / array reals */
  int32_t *is, *ia;
} pinit_object;

static inline pinit_object *PI(PyObject *o) { return (pinit_object *)o; }

static int pinit_type_info(PyTypeObject *t, int *dim, int *spec) {
  for (int d = 1; d <= BF_SPACEDIM_MAX; ++d)
    for (int s = 0; s < nspecs[d]; ++s)
      if (pinit_types[d][s] && (t == pinit_types[d][s] || PyType_IsSubtype(t, pinit_types[d][s]))) {
        *dim = d, *spec = s;
        return 0;
      }
  return -1;
}

static PyObject *pinit_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
  (void)args, (void)kwds;
  int dim, spec;
  if (pinit_type_info(type, &dim, &spec) < 0) {
    PyErr_Format(PyExc_TypeError, "%s cannot be instantiated (use a ParticleInitType_<S> type)", type->tp_name);
    return NULL;
  }
  pinit_object *o = (pinit_object *)type->tp_alloc(type, 0);
  if (!o) return NULL;
  o->dim = dim, o->spec = spec;
  const bf_playout *l = &specs[dim][spec].layout;
  o->rs = calloc((size_t)l->nsr + 1, sizeof(double));
  o->ra = calloc((size_t)l->nar + 1, sizeof(double));
  o->is = calloc((size_t)l->nsi + 1, sizeof(int32_t));
  o->ia = calloc((size_t)l->nai + 1, sizeof(int32_t));
  if (!o->rs || !o->ra || !o->is || !o->ia) {
    Py_DECREF(o);
    return PyErr_NoMemory();
  }
  return (PyObject *)o;
}

static int pinit_init(PyObject *self, PyObject *args, PyObject *kwds) {
  if (PyTuple_GET_SIZE(args) > 0 || (kwds && PyDict_GET_SIZE(kwds) > 0)) {
    PyErr_Format(PyExc_TypeError, "%s() takes no arguments", Py_TYPE(self)->tp_name);
    return -1;
  }
  return 0;
}

static void pinit_dealloc(PyObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  free(PI(self)->rs);
  free(PI(self)->ra);
  free(PI(self)->is);
  free(PI(self)->ia);
  tp->tp_free(self);
  Py_DECREF(tp);
}

/* closure: 0 real_struct, 1 int_struct, 2 real_array, 3 int_array */
static void pinit_field(pinit_object *o, int which, void **p, int *n, bool *real) {
  const bf_playout *l = &specs[o->dim][o->spec].layout;
  switch (which) {
  case 0: *p = o->rs, *n = l->nsr, *real = true; break;
  case 1: *p = o->is, *n = l->nsi, *real = false; break;
  case 2: *p = o->ra, *n = l->nar, *real = true; break;
  default: *p = o->ia, *n = l->nai, *real = false; break;
  }
}

static PyObject *pinit_get(PyObject *self, void *closure) {
  void *p;
  int n;
  bool real;
  pinit_field(PI(self), (int)(intptr_t)closure, &p, &n, &real);
  if (real) return bfpy_double_list(p, n);
  PyObject *l = PyList_New(n);
  for (int i = 0; l && i < n; ++i) {
    PyObject *v = PyLong_FromLong(((int32_t *)p)[i]);
    if (!v) {
      Py_CLEAR(l);
      break;
    }
    PyList_SET_ITEM(l, i, v);
  }
  return l;
}

static int pinit_set(PyObject *self, PyObject *value, void *closure) {
  if (!value) {
    PyErr_SetString(PyExc_AttributeError, "ParticleInitType attributes cannot be deleted");
    return -1;
  }
  void *p;
  int n;
  bool real;
  int which = (int)(intptr_t)closure;
  pinit_field(PI(self), which, &p, &n, &real);
  static const char *const what[] = {"real_struct_data", "int_struct_data", "real_array_data", "int_array_data"};
  if (real) {
    double *tmp = calloc((size_t)n + 1, sizeof *tmp);
    if (!tmp) return (PyErr_NoMemory(), -1);
    int r = bfpy_to_double_array(value, n, tmp, what[which]);
    if (r == 0) memcpy(p, tmp, sizeof *tmp * (size_t)n);
    free(tmp);
    return r;
  }
  int *tmp = calloc((size_t)n + 1, sizeof *tmp);
  if (!tmp) return (PyErr_NoMemory(), -1);
  int r = bfpy_to_int_array(value, n, tmp, what[which]);
  if (r == 0)
    for (int i = 0; i < n; ++i) ((int32_t *)p)[i] = tmp[i];
  free(tmp);
  return r;
}

int bfpy_pinit_values(PyObject *o, int dim, int spec, bf_pinit *out) {
  PyTypeObject *t = bfpy_pinit_type(dim, spec);
  if (!t || !PyObject_TypeCheck(o, t)) {
    PyErr_Format(PyExc_TypeError, "expected a ParticleInitType_%s of this module (%dD), got %.100s",
                 t ? specs[dim][spec].suffix : "?", dim, Py_TYPE(o)->tp_name);
    return -1;
  }
  out->real_struct = PI(o)->rs;
  out->int_struct = PI(o)->is;
  out->real_array = PI(o)->ra;
  out->int_array = PI(o)->ia;
  return 0;
}

static PyGetSetDef pinit_getset_legacy[] = {
    {"real_struct_data", pinit_get, pinit_set, "Initial struct reals (a copy; assign the whole list).",
     (void *)(intptr_t)0},
    {"int_struct_data", pinit_get, pinit_set, "Initial struct ints.", (void *)(intptr_t)1},
    {"real_array_data", pinit_get, pinit_set, "Initial SoA reals.", (void *)(intptr_t)2},
    {"int_array_data", pinit_get, pinit_set, "Initial SoA ints.", (void *)(intptr_t)3},
    {NULL, NULL, NULL, NULL, NULL},
};
static PyGetSetDef pinit_getset_pure[] = {
    {"real_array_data", pinit_get, pinit_set, "Initial SoA reals (positions included; they are overwritten).",
     (void *)(intptr_t)2},
    {"int_array_data", pinit_get, pinit_set, "Initial SoA ints.", (void *)(intptr_t)3},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot pinit_base_slots[] = {
    {Py_tp_doc, "Base of the ParticleInitType_<S> types (not instantiable)."},
    {Py_tp_new, pinit_new},
    {Py_tp_init, pinit_init},
    {Py_tp_dealloc, pinit_dealloc},
    {0, NULL},
};
static PyType_Spec pinit_base_spec = {.name = "_ParticleInitType",
                                      .basicsize = sizeof(pinit_object),
                                      .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                                      .slots = pinit_base_slots};

/* Set a class attribute. */
static int set_class_attr(PyTypeObject *t, const char *name, PyObject *v) {
  if (!v) return -1;
  int r = PyObject_SetAttrString((PyObject *)t, name, v);
  Py_DECREF(v);
  return r;
}

/* ---- idcpu functions: is_valid, make_valid, make_invalid, pack_ids, pack_cpus ----------------------------
 * AMReX's idcpu (boxfab/idcpu.h): bit 63 set = a valid particle (positive id), bits 24..62 = |id|, bits
 * 0..23 = cpu.  is_valid / make_valid / make_invalid take an int (a Python int or NumPy integer scalar:
 * an int back; a NumPy uint64 scalar gives a NumPy scalar) or an array of uint64 (an array back), as
 * pyAMReX's vectorized functions; pack_ids / pack_cpus write into a uint64 array in place, element by
 * element (any strides: views such as idcpu[::2] work). */

#define IDCPU_VALID ((uint64_t)1 << 63)

static bool u64_format(const Py_buffer *b) {
  const char *f = b->format ? b->format : "B";
  if (*f == '@' || *f == '=' || *f == '<') ++f;
  else if (*f == '>' || *f == '!') return false;
  return b->itemsize == 8 && (strcmp(f, "Q") == 0 || strcmp(f, "L") == 0);
}

/* One packed value of a scalar argument (not a buffer), or -1 with OverflowError / TypeError. */
static int idcpu_scalar(PyObject *o, uint64_t *v, const char *what) {
  PyObject *idx = PyNumber_Index(o);
  if (!idx) return -1;
  unsigned long long x = PyLong_AsUnsignedLongLong(idx);
  Py_DECREF(idx);
  if (x == (unsigned long long)-1 && PyErr_Occurred()) {
    if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
      PyErr_Clear();
      PyErr_Format(PyExc_OverflowError, "%s: a packed idcpu must fit in uint64 (0 <= v < 2**64)", what);
    }
    return -1;
  }
  *v = x;
  return 0;
}

/* An array argument as a C-contiguous NumPy array of dtype `dtype` (a new reference): buffers without a
 * copy when they already are; lists of numbers through NumPy (floats and strings refused). */
static PyObject *int_array(PyObject *np, PyObject *o, const char *dtype, const char *what) {
  if (PyUnicode_Check(o) || PyBytes_Check(o)) {
    PyErr_Format(PyExc_TypeError, "%s expects an integer array or an int, not %.100s", what, Py_TYPE(o)->tp_name);
    return NULL;
  }
  PyObject *probe = PyObject_CallMethod(np, "asarray", "O", o);
  if (!probe) return NULL;
  PyObject *dt = PyObject_GetAttrString(probe, "dtype");
  PyObject *kind = dt ? PyObject_GetAttrString(dt, "kind") : NULL;
  const char *k = kind ? PyUnicode_AsUTF8(kind) : NULL;
  PyObject *r = NULL;
  if (k && !strchr("iuO", k[0]))
    PyErr_Format(PyExc_TypeError, "%s expects integers, not an array of dtype kind '%s'", what, k);
  else if (k)
    r = PyObject_CallMethod(np, "asarray", "Oss", probe, dtype, "C");
  Py_XDECREF(kind), Py_XDECREF(dt);
  Py_DECREF(probe);
  return r;
}

enum { IDC_IS_VALID, IDC_MAKE_VALID, IDC_MAKE_INVALID };

static uint64_t idc_apply(int op, uint64_t v) {
  return op == IDC_MAKE_VALID ? v | IDCPU_VALID : v & ~IDCPU_VALID;
}

static PyObject *idcpu_map(PyObject *arg, int op, const char *what) {
  if (PyLong_Check(arg) || (!PyObject_CheckBuffer(arg) && bfpy_is_intlike(arg))) {
    uint64_t v;
    if (idcpu_scalar(arg, &v, what) < 0) return NULL;
    if (op == IDC_IS_VALID) return PyBool_FromLong((long)(v >> 63));
    return PyLong_FromUnsignedLongLong(idc_apply(op, v));
  }
  PyObject *np = PyImport_ImportModule("numpy");
  if (!np) return NULL;
  PyObject *src = NULL, *out = NULL, *result = NULL;
  Py_buffer in = {0}, ob = {0};
  if (PyObject_CheckBuffer(arg)) src = PyObject_CallMethod(np, "asarray", "OOs", arg, Py_None, "C"); /* 0-d stays 0-d */
  else src = int_array(np, arg, "uint64", what);
  if (!src || PyObject_GetBuffer(src, &in, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) goto done;
  if (!u64_format(&in)) {
    PyErr_Format(PyExc_TypeError, "%s expects an array of uint64 (native byte order), got format '%s' of %zd bytes",
                 what, in.format ? in.format : "B", in.itemsize);
    goto done;
  }
  PyObject *shape = PyTuple_New(in.ndim);
  if (!shape) goto done;
  for (int d = 0; d < in.ndim; ++d) PyTuple_SET_ITEM(shape, d, PyLong_FromSsize_t(in.shape[d]));
  out = PyObject_CallMethod(np, "empty", "Os", shape, op == IDC_IS_VALID ? "bool" : "uint64");
  Py_DECREF(shape);
  if (!out || PyObject_GetBuffer(out, &ob, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) goto done;
  {
    const uint64_t *x = in.buf;
    Py_ssize_t n = in.len / 8;
    if (op == IDC_IS_VALID) {
      unsigned char *y = ob.buf;
      for (Py_ssize_t i = 0; i < n; ++i) y[i] = (unsigned char)(x[i] >> 63);
    } else {
      uint64_t *y = ob.buf;
      for (Py_ssize_t i = 0; i < n; ++i) y[i] = idc_apply(op, x[i]);
    }
  }
  if (in.ndim == 0) { /* a NumPy scalar in, a NumPy scalar out */
    PyObject *empty = PyTuple_New(0);
    result = empty ? PyObject_GetItem(out, empty) : NULL;
    Py_XDECREF(empty);
  } else {
    result = Py_NewRef(out);
  }
done:
  if (ob.obj) PyBuffer_Release(&ob);
  if (in.obj) PyBuffer_Release(&in);
  Py_XDECREF(out);
  Py_XDECREF(src);
  Py_DECREF(np);
  return result;
}

static PyObject *f_is_valid(PyObject *self, PyObject *arg) {
  (void)self;
  return idcpu_map(arg, IDC_IS_VALID, "is_valid()");
}
static PyObject *f_make_valid(PyObject *self, PyObject *arg) {
  (void)self;
  return idcpu_map(arg, IDC_MAKE_VALID, "make_valid()");
}
static PyObject *f_make_invalid(PyObject *self, PyObject *arg) {
  (void)self;
  return idcpu_map(arg, IDC_MAKE_INVALID, "make_invalid()");
}

/* pack_ids(idcpu, ids) / pack_cpus(idcpu, cpus): write into the writable uint64 array idcpu (any strides,
 * any shape) the ids (|id| <= 2^39 - 1; the sign sets bit 63) or cpus (0 .. 2^24 - 1) of the array of the
 * same shape (or a scalar, for every element).  Every value is checked before anything is written
 * (ValueError naming the first out of range). */
static PyObject *idcpu_pack(PyObject *const *args, Py_ssize_t nargs, bool ids) {
  const char *what = ids ? "pack_ids(idcpu, ids)" : "pack_cpus(idcpu, cpus)";
  if (nargs != 2) {
    PyErr_Format(PyExc_TypeError, "%s takes 2 positional arguments (%zd given)", what, nargs);
    return NULL;
  }
  PyObject *dst = args[0], *vals = args[1];
  if (!PyObject_CheckBuffer(dst)) {
    PyErr_Format(PyExc_TypeError, "%s: idcpu must be a writable uint64 array, not %.100s", what, Py_TYPE(dst)->tp_name);
    return NULL;
  }
  Py_buffer d = {0}, v = {0};
  PyObject *np = NULL, *va = NULL, *result = NULL;
  if (PyObject_GetBuffer(dst, &d, PyBUF_STRIDES | PyBUF_WRITABLE | PyBUF_FORMAT) < 0) goto done;
  if (!u64_format(&d)) {
    PyErr_Format(PyExc_TypeError, "%s: idcpu must be an array of uint64 (native byte order), got format '%s'", what,
                 d.format ? d.format : "B");
    goto done;
  }
  if (!(np = PyImport_ImportModule("numpy"))) goto done;
  if (!(va = int_array(np, vals, "int64", what))) goto done; /* cpus too: int32 would wrap silently */
  if (PyObject_GetBuffer(va, &v, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) goto done;
  Py_ssize_t n = d.itemsize ? d.len / d.itemsize : 0;
  bool scalar = v.ndim == 0;
  if (!scalar) {
    bool same = v.ndim == d.ndim;
    for (int k = 0; same && k < d.ndim; ++k) same = v.shape[k] == d.shape[k];
    if (!same) {
      PyErr_Format(PyExc_ValueError, "%s: %s has %zd values of another shape than idcpu's %zd", what,
                   ids ? "ids" : "cpus", (Py_ssize_t)(v.len / v.itemsize), n);
      goto done;
    }
  }
  for (Py_ssize_t i = 0; i < (scalar ? 1 : n); ++i) {
    if (ids) {
      int64_t x = ((const int64_t *)v.buf)[i];
      if (x < -BF_IDCPU_MAX_ID || x > BF_IDCPU_MAX_ID) {
        PyErr_Format(PyExc_ValueError, "%s: id %lld at %zd does not fit in 39 bits (|id| <= %lld)", what, (long long)x,
                     i, (long long)BF_IDCPU_MAX_ID);
        goto done;
      }
    } else {
      int64_t x = ((const int64_t *)v.buf)[i];
      if (x < 0 || x > BF_IDCPU_MAX_CPU) {
        PyErr_Format(PyExc_ValueError, "%s: cpu %lld at %zd outside [0, %d]", what, (long long)x, i,
                     (int)BF_IDCPU_MAX_CPU);
        goto done;
      }
    }
  }
  /* element i of idcpu in C order, through its strides */
  for (Py_ssize_t i = 0; i < n; ++i) {
    Py_ssize_t rem = i, off = 0;
    for (int k = d.ndim - 1; k >= 0; --k) {
      off += (rem % d.shape[k]) * (d.strides ? d.strides[k] : 8);
      rem /= d.shape[k];
    }
    uint64_t *p = (uint64_t *)((char *)d.buf + off), w;
    memcpy(&w, p, 8);
    Py_ssize_t j = scalar ? 0 : i;
    if (ids) {
      int64_t x = ((const int64_t *)v.buf)[j];
      uint64_t a = (uint64_t)(x < 0 ? -x : x);
      w = (w & (uint64_t)BF_IDCPU_MAX_CPU) | (a << 24) | (x > 0 ? IDCPU_VALID : 0);
    } else {
      w = (w & ~(uint64_t)BF_IDCPU_MAX_CPU) | (uint64_t)((const int64_t *)v.buf)[j];
    }
    memcpy(p, &w, 8);
  }
  result = Py_NewRef(Py_None);
done:
  if (v.obj) PyBuffer_Release(&v);
  if (d.obj) PyBuffer_Release(&d);
  Py_XDECREF(va);
  Py_XDECREF(np);
  return result;
}

static PyObject *f_pack_ids(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  (void)self;
  return idcpu_pack(args, nargs, true);
}
static PyObject *f_pack_cpus(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  (void)self;
  return idcpu_pack(args, nargs, false);
}

static PyMethodDef idcpu_functions[] = {
    {"is_valid", f_is_valid, METH_O,
     "is_valid(idcpu: int | ndarray[uint64], /) -> bool | ndarray[bool]: bit 63 set (a valid particle)."},
    {"make_valid", f_make_valid, METH_O,
     "make_valid(idcpu: int | ndarray[uint64], /) -> int | ndarray[uint64]: bit 63 set."},
    {"make_invalid", f_make_invalid, METH_O,
     "make_invalid(idcpu: int | ndarray[uint64], /) -> int | ndarray[uint64]: bit 63 cleared."},
    {"pack_ids", (PyCFunction)(void (*)(void))f_pack_ids, METH_FASTCALL,
     "pack_ids(idcpu: ndarray[uint64], ids: ndarray[int64], /) -> None: write the ids into idcpu (bits 24..62 = "
     "|id|, bit 63 = id > 0), in place, keeping the cpus; any strides."},
    {"pack_cpus", (PyCFunction)(void (*)(void))f_pack_cpus, METH_FASTCALL,
     "pack_cpus(idcpu: ndarray[uint64], cpus: ndarray[int32], /) -> None: write the cpus into idcpu (bits "
     "0..23), in place, keeping the ids; any strides."},
    {NULL, NULL, 0, NULL},
};

int bfpy_init_particle(PyObject *m, int dim) {
  specs_init(dim);
  /* Particle types: struct and super particles of every spec, deduplicated */
  nptypes[dim] = 0;
  for (int s = 0; s < nspecs[dim]; ++s) {
    const bf_playout *l = &specs[dim][s].layout;
    int pairs[2][2] = {{l->nsr, l->nsi}, {0, 0}};
    super_of(l, &pairs[1][0], &pairs[1][1]);
    for (int k = l->pure_soa ? 1 : 0; k < 2; ++k) {
      if (ptype_find(dim, pairs[k][0], pairs[k][1]) >= 0) continue;
      ptype_entry *e = &ptypes[dim][nptypes[dim]++];
      e->nr = pairs[k][0], e->ni = pairs[k][1];
    }
  }
  PyTypeObject *base = bfpy_make_type(NULL, dim, BFPY_T_PARTICLE, "_Particle", &p_base_spec, NULL);
  if (!base) return -1;
  static const char *const axes[] = {"x", "y", "z"};
  for (int d = 0; d < dim; ++d) {
    p_getsets[dim][d] = p_getset[d];
    p_getsets[dim][d].name = axes[d];
  }
  PyObject *bases = PyTuple_Pack(1, (PyObject *)base);
  if (!bases) return -1;
  int rc = -1;
  for (int k = 0; k < nptypes[dim]; ++k) {
    ptype_entry *e = &ptypes[dim][k];
    snprintf(e->name, sizeof e->name, "boxfab.space%dd.Particle_%d_%d", dim, e->nr, e->ni);
    PyType_Slot slots[] = {{Py_tp_doc, (void *)p_doc}, {Py_tp_getset, p_getsets[dim]}, {0, NULL}};
    PyType_Spec spec = {.name = e->name,
                        .basicsize = sizeof(bfpy_particle_object),
                        .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                        .slots = slots};
    PyTypeObject *t = (PyTypeObject *)PyType_FromSpecWithBases(&spec, bases);
    if (!t) goto out;
    e->type = t;
    if (set_class_attr(t, "NReal", PyLong_FromLong(e->nr)) < 0 || set_class_attr(t, "NInt", PyLong_FromLong(e->ni)) < 0)
      goto out;
    Py_INCREF(t);
    if (PyModule_AddObject(m, strrchr(e->name, '.') + 1, (PyObject *)t) < 0) {
      Py_DECREF(t);
      goto out;
    }
  }
  Py_DECREF(bases);
  bases = NULL;
  /* ParticleInitType_<S> */
  PyTypeObject *pbase = bfpy_make_type(NULL, dim, BFPY_T_PINIT, "_ParticleInitType", &pinit_base_spec, NULL);
  if (!pbase || !(bases = PyTuple_Pack(1, (PyObject *)pbase))) goto out;
  for (int s = 0; s < nspecs[dim]; ++s) {
    const bf_playout *l = &specs[dim][s].layout;
    snprintf(pinit_names[dim][s], sizeof pinit_names[0][0], "boxfab.space%dd.ParticleInitType_%s", dim,
             specs[dim][s].suffix);
    PyType_Slot slots[] = {
        {Py_tp_doc, "ParticleInitType_<S>(): initial component values for init_random and friends "
                    "(all zeros at first)."},
        {Py_tp_getset, l->pure_soa ? pinit_getset_pure : pinit_getset_legacy},
        {0, NULL}};
    PyType_Spec spec = {.name = pinit_names[dim][s],
                        .basicsize = sizeof(pinit_object),
                        .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                        .slots = slots};
    PyTypeObject *t = (PyTypeObject *)PyType_FromSpecWithBases(&spec, bases);
    if (!t) goto out;
    pinit_types[dim][s] = t;
    if (set_class_attr(t, "is_soa_particle", PyBool_FromLong(l->pure_soa)) < 0) goto out;
    Py_INCREF(t);
    if (PyModule_AddObject(m, strrchr(pinit_names[dim][s], '.') + 1, (PyObject *)t) < 0) {
      Py_DECREF(t);
      goto out;
    }
  }
  if (PyModule_AddFunctions(m, idcpu_functions) < 0) goto out;
  rc = 0;
out:
  Py_XDECREF(bases);
  return rc;
}
