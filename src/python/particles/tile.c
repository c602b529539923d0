/* boxfab._core: ParticleTile_<S>_<alloc>, StructOfArrays_<...>_<alloc>,
 * ArrayOfStructs_<NR>_<NI>_<alloc> and ParticleTileData_<S>.
 *
 * All four are views of one C tile (bf_ptile): the object holds a reference
 * to the tile (and to its owner, e.g. a container, when it came from one),
 * so a view outlives the container or tile object it came from.  A
 * standalone ArrayOfStructs_* / StructOfArrays_* makes a tile of its own.
 *
 * pyAMReX semantics kept on purpose: ParticleTile.push_back(Particle_NSR_NSI)
 * appends to the array of structs only, push_back_real / push_back_int to
 * single SoA components, so a tile may hold vectors of different lengths, as
 * in AMReX; operations that need every vector (super particles) check the
 * tile first and raise ValueError instead of reading past a short vector. */
#include <stdlib.h>
#include <string.h>

#include "particles/arrays.h"
#include "boxfab/gpu.h"

enum { K_TILE, K_SOA, K_AOS, K_TDATA, K_N };

typedef struct {
  PyObject_HEAD
  int dim, spec, alloc, kind;
  bf_ptile *t;      /* NULL only for ParticleTileData() */
  PyObject *owner;  /* may be NULL */
  PyObject *pinned; /* AoS: _PODViews handed out through the interface dicts */
} pt_object;

static inline pt_object *PT(PyObject *o) { return (pt_object *)o; }

#define MAX_SPECS 8
static PyTypeObject *types[K_N][BF_SPACEDIM_MAX + 1][MAX_SPECS][BFPY_NALLOC];
static char type_names[K_N][BF_SPACEDIM_MAX + 1][MAX_SPECS][BFPY_NALLOC][80];
static const int base_ids[K_N] = {BFPY_T_PTILE, BFPY_T_SOA, BFPY_T_AOS, BFPY_T_PTILEDATA};

static const bf_playout *lay(const pt_object *o) { return &bfpy_pspec_at(o->dim, o->spec)->layout; }

static const char *tname(PyObject *self) {
  const char *n = strrchr(Py_TYPE(self)->tp_name, '.');
  return n ? n + 1 : Py_TYPE(self)->tp_name;
}

static int type_info(PyTypeObject *t, int kind, int *dim, int *spec, int *alloc) {
  for (int d = 1; d <= BF_SPACEDIM_MAX; ++d)
    for (int s = 0; s < bfpy_pspec_count(d); ++s)
      for (int a = 0; a < BFPY_NALLOC; ++a) {
        PyTypeObject *x = types[kind][d][s][a];
        if (x && (t == x || PyType_IsSubtype(t, x))) {
          *dim = d, *spec = s, *alloc = a;
          return 0;
        }
      }
  return -1;
}

PyTypeObject *bfpy_ptile_type(int dim, int spec, int alloc) {
  if (dim < 1 || dim > BF_SPACEDIM_MAX || spec < 0 || spec >= bfpy_pspec_count(dim) || alloc < 0 ||
      alloc >= BFPY_NALLOC)
    return NULL;
  return types[K_TILE][dim][spec][alloc];
}

static PyObject *wrap(int kind, int dim, int spec, int alloc, bf_ptile *t, PyObject *owner) {
  if (dim < 1 || dim > BF_SPACEDIM_MAX || spec < 0 || spec >= bfpy_pspec_count(dim) || alloc < 0 ||
      alloc >= BFPY_NALLOC) {
    PyErr_SetString(PyExc_TypeError, "boxfab: no particle tile type for these arguments");
    return NULL;
  }
  PyTypeObject *tp = types[kind][dim][spec][kind == K_TDATA ? 0 : alloc];
  if (!tp) {
    PyErr_Format(PyExc_TypeError, "boxfab: layout %s has no %s", bfpy_pspec_at(dim, spec)->suffix,
                 kind == K_AOS ? "array of structs" : "such view");
    return NULL;
  }
  pt_object *o = (pt_object *)tp->tp_alloc(tp, 0);
  if (!o) return NULL;
  o->dim = dim, o->spec = spec, o->alloc = alloc, o->kind = kind;
  o->t = t ? bf_ptile_retain(t) : NULL;
  o->owner = owner ? Py_NewRef(owner) : NULL;
  return (PyObject *)o;
}

PyObject *bfpy_ptile_wrap(int dim, int spec, int alloc, bf_ptile *t, PyObject *owner) {
  return wrap(K_TILE, dim, spec, alloc, t, owner);
}
PyObject *bfpy_soa_wrap(int dim, int spec, int alloc, bf_ptile *t, PyObject *owner) {
  return wrap(K_SOA, dim, spec, alloc, t, owner);
}
PyObject *bfpy_aos_wrap(int dim, int spec, int alloc, bf_ptile *t, PyObject *owner) {
  return wrap(K_AOS, dim, spec, alloc, t, owner);
}

bf_ptile *bfpy_ptile_unwrap(PyObject *o, int *dim, int *spec, int *alloc) {
  if (!bfpy_is(o, BFPY_T_PTILE, -1) || !PT(o)->t) {
    PyErr_Format(PyExc_TypeError, "expected a ParticleTile, got %.100s", Py_TYPE(o)->tp_name);
    return NULL;
  }
  if (dim) *dim = PT(o)->dim;
  if (spec) *spec = PT(o)->spec;
  if (alloc) *alloc = PT(o)->alloc;
  return PT(o)->t;
}

/* ---- construction / lifetime ---------------------------------------------------------- */

static PyObject *pt_new_kind(PyTypeObject *type, int kind) {
  int dim, spec, alloc;
  if (type_info(type, kind, &dim, &spec, &alloc) < 0) {
    PyErr_Format(PyExc_TypeError, "%s cannot be instantiated (use one of its named subtypes)", type->tp_name);
    return NULL;
  }
  pt_object *o = (pt_object *)type->tp_alloc(type, 0);
  if (!o) return NULL;
  o->dim = dim, o->spec = spec, o->alloc = alloc, o->kind = kind;
  if (kind == K_TDATA) return (PyObject *)o; /* no tile: m_size 0 */
  bf_playout l = bfpy_pspec_at(dim, spec)->layout;
  if (kind == K_AOS) l.nar = l.nai = 0; /* a standalone array of structs */
  if (bfpy_check(bf_ptile_create(&l, 0, 0, bfpy_alloc_arena(alloc), &o->t)) < 0) {
    Py_DECREF(o);
    return NULL;
  }
  return (PyObject *)o;
}
static PyObject *tile_new(PyTypeObject *t, PyObject *a, PyObject *k) {
  (void)a, (void)k;
  return pt_new_kind(t, K_TILE);
}
static PyObject *soa_new(PyTypeObject *t, PyObject *a, PyObject *k) {
  (void)a, (void)k;
  return pt_new_kind(t, K_SOA);
}
static PyObject *aos_new(PyTypeObject *t, PyObject *a, PyObject *k) {
  (void)a, (void)k;
  return pt_new_kind(t, K_AOS);
}
static PyObject *tdata_new(PyTypeObject *t, PyObject *a, PyObject *k) {
  (void)a, (void)k;
  return pt_new_kind(t, K_TDATA);
}

static int pt_init(PyObject *self, PyObject *args, PyObject *kwds) {
  if (PyTuple_GET_SIZE(args) > 0 || (kwds && PyDict_GET_SIZE(kwds) > 0)) {
    PyErr_Format(PyExc_TypeError, "%s() takes no arguments", tname(self));
    return -1;
  }
  return 0;
}

static int pt_traverse(PyObject *self, visitproc visit, void *arg) {
  Py_VISIT(Py_TYPE(self));
  Py_VISIT(PT(self)->owner);
  Py_VISIT(PT(self)->pinned);
  return 0;
}
static int pt_clear(PyObject *self) {
  Py_CLEAR(PT(self)->owner);
  Py_CLEAR(PT(self)->pinned);
  return 0;
}
static void pt_dealloc(PyObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  pt_clear(self);
  bf_ptile_destroy(&PT(self)->t);
  tp->tp_free(self);
  Py_DECREF(tp);
}

/* ---- common helpers --------------------------------------------------------------------- */

static int64_t tsize(const pt_object *o) { return o->t ? bf_ptile_size(o->t) : 0; }
static int64_t tnnb(const pt_object *o) { return o->t ? bf_ptile_num_neighbors(o->t) : 0; }
static PyObject *ll(int64_t v) { return PyLong_FromLongLong(v); }

static int count_arg(PyObject *o, int64_t *n, const char *what) {
  if (!bfpy_is_intlike(o)) {
    PyErr_Format(PyExc_TypeError, "%s must be an int, not %.100s", what, Py_TYPE(o)->tp_name);
    return -1;
  }
  if (bfpy_to_int64(o, n, what) < 0) return -1;
  if (*n < 0) {
    PyErr_Format(PyExc_ValueError, "%s must be >= 0, got %lld", what, (long long)*n);
    return -1;
  }
  return 0;
}

static int comp_arg(PyObject *o, int n, const char *what, int *c) {
  if (!bfpy_is_intlike(o)) {
    PyErr_Format(PyExc_TypeError, "%s must be an int, not %.100s", what, Py_TYPE(o)->tp_name);
    return -1;
  }
  int64_t v;
  if (bfpy_to_int64(o, &v, what) < 0) return -1;
  if (v < 0 || v >= n) {
    PyErr_Format(PyExc_IndexError, "%s %lld out of range [0, %d)", what, (long long)v, n);
    return -1;
  }
  *c = (int)v;
  return 0;
}

/* ---- super particles: Python Particle_<NR>_<NI> bytes <-> bf_superparticle ---------------- */

/* (NR, NI) of the super particle of the object's spec. */
static void super_nrni(const pt_object *o, int *nr, int *ni) {
  const bf_playout *l = lay(o);
  *nr = l->nsr + l->nar;
  *ni = l->nsi + l->nai;
}

typedef struct {
  bf_superparticle sp;
  double *real;
  int32_t *ints;
} csuper;

static int csuper_alloc(const bf_ptile *t, csuper *c) {
  memset(c, 0, sizeof *c);
  c->sp.nreal = bf_ptile_super_nreal(t);
  c->sp.nint = bf_ptile_super_nint(t);
  c->real = calloc((size_t)c->sp.nreal + 1, sizeof(double));
  c->ints = calloc((size_t)c->sp.nint + 1, sizeof(int32_t));
  if (!c->real || !c->ints) {
    free(c->real);
    free(c->ints);
    PyErr_NoMemory();
    return -1;
  }
  c->sp.real = c->real;
  c->sp.ints = c->ints;
  return 0;
}
static void csuper_free(csuper *c) {
  free(c->real);
  free(c->ints);
}

/* Python super particle bytes -> the compile-time part of c (runtime entries untouched). */
static void bytes_to_csuper(const pt_object *o, const unsigned char *b, csuper *c) {
  const bf_playout *l = lay(o);
  int dim = l->dim, nr, ni;
  super_nrni(o, &nr, &ni);
  const double *rdata = (const double *)(const void *)(b + 8 * (size_t)dim);
  memcpy(&c->sp.idcpu, b + 8 * (size_t)(dim + nr), 8);
  const unsigned char *idata = b + 8 * (size_t)(dim + nr) + 8;
  if (l->pure_soa) {
    /* AMReX's setSuperParticle of SoA particles: every SoA real from rdata (positions too) */
    for (int i = 0; i < nr; ++i) {
      if (i < dim) c->sp.pos[i] = rdata[i];
      else c->real[i - dim] = rdata[i];
    }
  } else {
    memcpy(c->sp.pos, b, 8 * (size_t)dim);
    memcpy(c->real, rdata, 8 * (size_t)nr);
  }
  memcpy(c->ints, idata, 4 * (size_t)ni);
}

/* c -> Python super particle bytes (buffer of the struct size of Particle_<nr>_<ni>). */
static void csuper_to_bytes(const pt_object *o, const csuper *c, unsigned char *b) {
  const bf_playout *l = lay(o);
  int dim = l->dim, nr, ni;
  super_nrni(o, &nr, &ni);
  bf_playout pl = bfpy_particle_layout(dim, nr, ni);
  memset(b, 0, bf_playout_struct_size(&pl));
  memcpy(b, c->sp.pos, 8 * (size_t)dim);
  double *rdata = (double *)(void *)(b + 8 * (size_t)dim);
  if (l->pure_soa) {
    for (int i = 0; i < nr; ++i) rdata[i] = i < dim ? c->sp.pos[i] : c->real[i - dim];
  } else {
    memcpy(rdata, c->real, 8 * (size_t)nr);
  }
  memcpy(b + 8 * (size_t)(dim + nr), &c->sp.idcpu, 8);
  memcpy(b + 8 * (size_t)(dim + nr) + 8, c->ints, 4 * (size_t)ni);
}

#define SBUF 1024

static int need_tile(PyObject *self) {
  if (!PT(self)->t) {
    PyErr_Format(PyExc_IndexError, "%s views no tile (it was made empty)", tname(self));
    return -1;
  }
  return 0;
}

static int index_arg(PyObject *self, PyObject *key, int64_t n, int64_t *i) {
  if (!bfpy_is_intlike(key)) {
    PyErr_Format(PyExc_TypeError, "%s indices must be integers, not %.100s", tname(self), Py_TYPE(key)->tp_name);
    return -1;
  }
  int64_t v;
  if (bfpy_to_int64(key, &v, "index") < 0) {
    if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return -1;
    PyErr_Clear();
    v = -1;
  }
  if (v < 0 || v >= n) {
    PyErr_Format(PyExc_IndexError, "%s index %lld out of range [0, %lld)", tname(self), (long long)v, (long long)n);
    return -1;
  }
  *i = v;
  return 0;
}

static PyObject *get_super(PyObject *self, int64_t i) {
  pt_object *o = PT(self);
  csuper c;
  if (csuper_alloc(o->t, &c) < 0) return NULL;
  unsigned char b[SBUF];
  PyObject *r = NULL;
  if (bfpy_check(bf_ptile_get_particle(o->t, i, &c.sp)) == 0) {
    csuper_to_bytes(o, &c, b);
    int nr, ni;
    super_nrni(o, &nr, &ni);
    r = bfpy_particle_new(o->dim, nr, ni, b, NULL, 0);
  }
  csuper_free(&c);
  return r;
}

static int set_super(PyObject *self, int64_t i, PyObject *p) {
  pt_object *o = PT(self);
  int nr, ni;
  super_nrni(o, &nr, &ni);
  unsigned char b[SBUF];
  if (bfpy_particle_bytes(p, o->dim, nr, ni, b, "the particle") < 0) return -1;
  csuper c;
  if (csuper_alloc(o->t, &c) < 0) return -1;
  int r = bfpy_check(bf_ptile_get_particle(o->t, i, &c.sp)); /* keeps the run-time components */
  if (r == 0) {
    bytes_to_csuper(o, b, &c);
    r = bfpy_check(bf_ptile_set_particle(o->t, i, &c.sp));
  }
  csuper_free(&c);
  return r;
}

/* ---- ParticleTile ---------------------------------------------------------------------------- */

static PyObject *g_size(PyObject *self, void *c) {
  (void)c;
  return ll(tsize(PT(self)));
}
static PyObject *g_num_particles(PyObject *self, void *c) {
  (void)c;
  int64_t n = tsize(PT(self)) - tnnb(PT(self));
  return ll(n < 0 ? 0 : n);
}
static PyObject *g_num_neighbors(PyObject *self, void *c) {
  (void)c;
  return ll(tnnb(PT(self)));
}
static PyObject *g_empty(PyObject *self, void *c) {
  (void)c;
  return PyBool_FromLong(tsize(PT(self)) == 0);
}
static PyObject *g_nreal(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLong(bf_ptile_num_real_comps(PT(self)->t));
}
static PyObject *g_nint(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLong(bf_ptile_num_int_comps(PT(self)->t));
}
static PyObject *g_nrreal(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLong(bf_ptile_num_runtime_real_comps(PT(self)->t));
}
static PyObject *g_nrint(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLong(bf_ptile_num_runtime_int_comps(PT(self)->t));
}
static PyObject *names_list(const bf_ptile *t, bool real) {
  int n = real ? bf_ptile_num_real_comps(t) : bf_ptile_num_int_comps(t);
  PyObject *l = PyList_New(n);
  for (int c = 0; l && c < n; ++c) {
    PyObject *s = PyUnicode_FromString(real ? bf_ptile_real_comp_name(t, c) : bf_ptile_int_comp_name(t, c));
    if (!s) {
      Py_CLEAR(l);
      break;
    }
    PyList_SET_ITEM(l, c, s);
  }
  return l;
}
static PyObject *g_real_names(PyObject *self, void *c) {
  (void)c;
  return names_list(PT(self)->t, true);
}
static PyObject *g_int_names(PyObject *self, void *c) {
  (void)c;
  return names_list(PT(self)->t, false);
}

static PyObject *m_get_num_neighbors(PyObject *self, PyObject *noargs) {
  (void)noargs;
  return ll(tnnb(PT(self)));
}
static PyObject *m_capacity(PyObject *self, PyObject *noargs) {
  (void)noargs;
  return ll(bf_ptile_capacity(PT(self)->t));
}
static PyObject *m_set_num_neighbors(PyObject *self, PyObject *arg) {
  int64_t n;
  if (count_arg(arg, &n, "set_num_neighbors: n") < 0 || bfpy_check(bf_ptile_set_num_neighbors(PT(self)->t, n)) < 0)
    return NULL;
  Py_RETURN_NONE;
}
static PyObject *m_resize(PyObject *self, PyObject *arg) {
  int64_t n;
  if (count_arg(arg, &n, "resize: n") < 0 || bfpy_check(bf_ptile_resize(PT(self)->t, n)) < 0) return NULL;
  Py_RETURN_NONE;
}
static PyObject *m_shrink_to_fit(PyObject *self, PyObject *noargs) {
  (void)noargs;
  if (bfpy_check(bf_ptile_shrink_to_fit(PT(self)->t)) < 0) return NULL;
  Py_RETURN_NONE;
}
static PyObject *m_swap(PyObject *self, PyObject *other) {
  if (Py_TYPE(other) != Py_TYPE(self)) {
    PyErr_Format(PyExc_TypeError, "swap(other): other must be a %s, not %.100s", tname(self), Py_TYPE(other)->tp_name);
    return NULL;
  }
  if (bfpy_check(bf_ptile_swap(PT(self)->t, PT(other)->t)) < 0) return NULL;
  Py_RETURN_NONE;
}

/* define(n_runtime_real, n_runtime_int, real_names, int_names): add run-time
 * components; the name lists name every component (compile-time ones first). */
static int names_arg(PyObject *o, int max, PyObject **seq, const char ***out, int *n, const char *what) {
  *seq = NULL, *out = NULL, *n = 0;
  if (!o || o == Py_None) return 0;
  *seq = bfpy_fast_sequence(o, max, NULL, NULL, what, "str");
  if (!*seq) return -1;
  *n = (int)PySequence_Fast_GET_SIZE(*seq);
  *out = calloc((size_t)*n + 1, sizeof **out);
  if (!*out) {
    Py_CLEAR(*seq);
    PyErr_NoMemory();
    return -1;
  }
  for (int i = 0; i < *n; ++i) {
    PyObject *s = PySequence_Fast_GET_ITEM(*seq, i);
    if (!PyUnicode_Check(s)) {
      PyErr_Format(PyExc_TypeError, "%s must be a list of str, got an item of type %.100s", what, Py_TYPE(s)->tp_name);
      goto fail;
    }
    if (!((*out)[i] = bfpy_c_name(s, what))) goto fail;
  }
  return 0;
fail:
  free(*out);
  *out = NULL;
  Py_CLEAR(*seq);
  return -1;
}

static char *dupstr(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

static PyObject *m_define(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"", "", "", "", NULL};
  PyObject *a[4];
  if (bfpy_bind(args, nargs, kwnames, names, 2, a, true) < 0) return NULL;
  bf_ptile *t = PT(self)->t;
  int nrr, nri;
  if (bfpy_to_int(a[0], &nrr, "n_runtime_real") < 0 || bfpy_to_int(a[1], &nri, "n_runtime_int") < 0) return NULL;
  if (nrr < 0 || nri < 0 || nrr > 4096 || nri > 4096) {
    PyErr_Format(PyExc_ValueError, "define: run-time component counts must be in [0, 4096], got %d and %d", nrr, nri);
    return NULL;
  }
  int nr0 = bf_ptile_num_real_comps(t), ni0 = bf_ptile_num_int_comps(t);
  PyObject *rseq = NULL, *iseq = NULL;
  const char **rn = NULL, **in = NULL;
  int nrn = 0, nin = 0;
  PyObject *ret = NULL;
  if (names_arg(a[2], nr0 + nrr, &rseq, &rn, &nrn, "real_names") < 0 ||
      names_arg(a[3], ni0 + nri, &iseq, &in, &nin, "int_names") < 0)
    goto out;
  /* rename the existing components, then add the new ones with the names that follow; when
   * adding fails, the old names come back (nothing changed) */
  {
    char **oldr = calloc((size_t)nr0 + 1, sizeof *oldr), **oldi = calloc((size_t)ni0 + 1, sizeof *oldi);
    int ok = oldr && oldi;
    for (int c = 0; ok && c < nr0; ++c) ok = (oldr[c] = dupstr(bf_ptile_real_comp_name(t, c))) != NULL;
    for (int c = 0; ok && c < ni0; ++c) ok = (oldi[c] = dupstr(bf_ptile_int_comp_name(t, c))) != NULL;
    int st = ok ? BF_SUCCESS : BF_ERROR_MEMORY;
    if (!ok) PyErr_NoMemory();
    else st = bfpy_check(bf_ptile_rename_comps(t, nrn < nr0 ? nrn : nr0, rn, nin < ni0 ? nin : ni0, in));
    if (st == 0) {
      const char **radd = calloc((size_t)nrr + 1, sizeof *radd), **iadd = calloc((size_t)nri + 1, sizeof *iadd);
      if (!radd || !iadd) {
        PyErr_NoMemory();
        st = -1;
      } else {
        for (int k = 0; k < nrr; ++k) radd[k] = nr0 + k < nrn ? rn[nr0 + k] : NULL;
        for (int k = 0; k < nri; ++k) iadd[k] = ni0 + k < nin ? in[ni0 + k] : NULL;
        st = bfpy_check(bf_ptile_add_comps(t, nrr, radd, nri, iadd));
      }
      free(radd);
      free(iadd);
      if (st < 0) { /* restore the names (an exception is already set) */
        PyObject *et, *ev, *tb;
        PyErr_Fetch(&et, &ev, &tb);
        (void)bf_ptile_rename_comps(t, nr0, (const char *const *)oldr, ni0, (const char *const *)oldi);
        PyErr_Restore(et, ev, tb);
      }
    }
    for (int c = 0; oldr && c < nr0; ++c) free(oldr[c]);
    for (int c = 0; oldi && c < ni0; ++c) free(oldi[c]);
    free(oldr);
    free(oldi);
    if (st != 0) goto out;
  }
  ret = Py_NewRef(Py_None);
out:
  free(rn);
  free(in);
  Py_XDECREF(rseq);
  Py_XDECREF(iseq);
  return ret;
}

static PyObject *m_get_soa(PyObject *self, PyObject *noargs) {
  (void)noargs;
  pt_object *o = PT(self);
  return wrap(K_SOA, o->dim, o->spec, o->alloc, o->t, o->owner ? o->owner : self);
}
static PyObject *m_get_aos(PyObject *self, PyObject *noargs) {
  (void)noargs;
  pt_object *o = PT(self);
  return wrap(K_AOS, o->dim, o->spec, o->alloc, o->t, o->owner ? o->owner : self);
}
static PyObject *m_get_tdata(PyObject *self, PyObject *noargs) {
  (void)noargs;
  pt_object *o = PT(self);
  return wrap(K_TDATA, o->dim, o->spec, o->alloc, o->t, o->owner ? o->owner : self);
}

/* push_back(p): a struct particle (legacy: appended to the array of structs
 * only, as AMReX does) or a super particle (all data; the tile grows to
 * num_particles + 1, as AMReX's push_back of a SuperParticle). */
static PyObject *m_push_back(PyObject *self, PyObject *p) {
  pt_object *o = PT(self);
  const bf_playout *l = lay(o);
  int nr, ni, snr, sni;
  super_nrni(o, &snr, &sni);
  if (!bfpy_particle_kind(p, o->dim, &nr, &ni)) {
    PyErr_Format(PyExc_TypeError, "push_back(p): p must be a Particle_%d_%d%s of this module, not %.100s", snr, sni,
                 l->pure_soa ? "" : " or the struct particle", Py_TYPE(p)->tp_name);
    return NULL;
  }
  unsigned char b[SBUF];
  if (!l->pure_soa && nr == l->nsr && ni == l->nsi && !(nr == snr && ni == sni)) {
    if (bfpy_particle_bytes(p, o->dim, nr, ni, b, "push_back(p)") < 0 ||
        bfpy_check(bf_podvec_push_back(bf_ptile_aos(o->t), b)) < 0)
      return NULL;
    Py_RETURN_NONE;
  }
  if (nr != snr || ni != sni) {
    PyErr_Format(PyExc_TypeError, "push_back(p): p must be a Particle_%d_%d%s, not a Particle_%d_%d", snr, sni,
                 l->pure_soa ? "" : " or the struct particle", nr, ni);
    return NULL;
  }
  if (bfpy_particle_bytes(p, o->dim, nr, ni, b, "push_back(p)") < 0) return NULL;
  int64_t np = tsize(o) - tnnb(o);
  if (np < 0) np = 0;
  if (bfpy_check(bf_ptile_resize(o->t, np + 1)) < 0) return NULL;
  if (set_super(self, np, p) < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject *push_back_comp(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, bool real) {
  pt_object *o = PT(self);
  const char *fn = real ? "push_back_real" : "push_back_int";
  if (kwnames && PyTuple_GET_SIZE(kwnames) > 0) {
    PyErr_Format(PyExc_TypeError, "%s() takes positional arguments only", fn);
    return NULL;
  }
  int ncomp = real ? bf_ptile_num_real_comps(o->t) : bf_ptile_num_int_comps(o->t);
  int nct = real ? lay(o)->nar : lay(o)->nai;
  unsigned char v[8];
  if (nargs == 1) {
    /* one value for every compile-time component */
    int n = nct;
    double *dv = calloc((size_t)n + 1, sizeof *dv);
    int *iv = calloc((size_t)n + 1, sizeof *iv);
    int r = (!dv || !iv) ? (PyErr_NoMemory(), -1)
            : real       ? bfpy_to_double_array(args[0], n, dv, fn)
                         : bfpy_to_int_array(args[0], n, iv, fn);
    for (int c = 0; r == 0 && c < n; ++c) {
      if (real) r = bfpy_check(bf_podvec_push_back(bf_ptile_real(o->t, c), &dv[c]));
      else {
        int32_t x = iv[c];
        r = bfpy_check(bf_podvec_push_back(bf_ptile_int(o->t, c), &x));
      }
    }
    free(dv);
    free(iv);
    if (r < 0) return NULL;
    Py_RETURN_NONE;
  }
  if (nargs != 2 && nargs != 3) {
    PyErr_Format(PyExc_TypeError, "%s(): takes (values, /), (comp, value, /) or (comp, npar, value, /); got %zd "
                 "arguments", fn, nargs);
    return NULL;
  }
  int comp;
  int64_t npar = 1;
  if (comp_arg(args[0], ncomp, "component", &comp) < 0) return NULL;
  if (nargs == 3 && count_arg(args[1], &npar, "npar") < 0) return NULL;
  PyObject *val = args[nargs - 1];
  if (real) {
    if (bfpy_to_double(val, (double *)(void *)v, fn) < 0) return NULL;
  } else {
    int x;
    if (bfpy_to_int(val, &x, fn) < 0) return NULL;
    int32_t x32 = x;
    memcpy(v, &x32, 4);
  }
  bf_podvec *pv = real ? bf_ptile_real(o->t, comp) : bf_ptile_int(o->t, comp);
  if (npar > INT64_MAX - bf_podvec_size(pv)) {
    PyErr_SetString(PyExc_OverflowError, "too many particles");
    return NULL;
  }
  if (bfpy_check(bf_podvec_resize_fill(pv, bf_podvec_size(pv) + npar, v)) < 0) return NULL;
  Py_RETURN_NONE;
}
static PyObject *m_push_back_real(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return push_back_comp(self, args, nargs, kwnames, true);
}
static PyObject *m_push_back_int(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return push_back_comp(self, args, nargs, kwnames, false);
}

static PyObject *tile_getitem(PyObject *self, PyObject *key) {
  int64_t i;
  if (need_tile(self) < 0 || index_arg(self, key, tsize(PT(self)), &i) < 0) return NULL;
  return get_super(self, i);
}
static int tile_setitem(PyObject *self, PyObject *key, PyObject *value) {
  if (!value) {
    PyErr_Format(PyExc_TypeError, "%s does not support item deletion", tname(self));
    return -1;
  }
  int64_t i;
  if (need_tile(self) < 0 || index_arg(self, key, tsize(PT(self)), &i) < 0) return -1;
  return set_super(self, i, value);
}

/* ---- StructOfArrays ------------------------------------------------------------------------ */

/* SoA size, as AMReX's StructOfArrays::size(): idcpu (pure SoA), else the first real, else the first int. */
static int64_t soa_size(const pt_object *o) {
  const bf_ptile *t = o->t;
  if (lay(o)->pure_soa) return bf_podvec_size(bf_ptile_idcpu(t));
  if (bf_ptile_num_real_comps(t) > 0) return bf_podvec_size(bf_ptile_real(t, 0));
  if (bf_ptile_num_int_comps(t) > 0) return bf_podvec_size(bf_ptile_int(t, 0));
  return 0;
}
static PyObject *soa_g_size(PyObject *self, void *c) {
  (void)c;
  return ll(soa_size(PT(self)));
}
static PyObject *soa_g_num_particles(PyObject *self, void *c) {
  (void)c;
  int64_t n = soa_size(PT(self)) - tnnb(PT(self));
  return ll(n < 0 ? 0 : n);
}
static Py_ssize_t soa_len(PyObject *self) { return (Py_ssize_t)soa_size(PT(self)); }
static PyObject *soa_g_has_idcpu(PyObject *self, void *c) {
  (void)c;
  return PyBool_FromLong(lay(PT(self))->pure_soa);
}

static PyObject *soa_data(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, bool real) {
  static const char *const names[] = {"index", NULL};
  PyObject *a[1];
  if (bfpy_bind(args, nargs, kwnames, names, 0, a, true) < 0) return NULL;
  pt_object *o = PT(self);
  PyObject *owner = o->owner ? o->owner : self;
  int ncomp = real ? bf_ptile_num_real_comps(o->t) : bf_ptile_num_int_comps(o->t);
  if (a[0] && PyUnicode_Check(a[0])) { /* get_real_data("name") (pyAMReX 26): the component of that name */
    Py_ssize_t len = 0;
    const char *k = PyUnicode_AsUTF8AndSize(a[0], &len);
    if (!k) return NULL;
    for (int c = 0; (size_t)len == strlen(k) && c < ncomp; ++c)
      if (strcmp(real ? bf_ptile_real_comp_name(o->t, c) : bf_ptile_int_comp_name(o->t, c), k) == 0)
        return bfpy_podvec_wrap(o->dim, o->alloc, real ? bf_ptile_real(o->t, c) : bf_ptile_int(o->t, c), owner);
    PyErr_Format(PyExc_KeyError, "get_%s_data: no %s component named %R", real ? "real" : "int",
                 real ? "real" : "int", a[0]);
    return NULL;
  }
  if (a[0]) {
    int c;
    if (comp_arg(a[0], ncomp, real ? "real component" : "int component", &c) < 0) return NULL;
    return bfpy_podvec_wrap(o->dim, o->alloc, real ? bf_ptile_real(o->t, c) : bf_ptile_int(o->t, c), owner);
  }
  int nct = real ? lay(o)->nar : lay(o)->nai; /* compile-time components only, as pyAMReX */
  PyObject *l = PyList_New(nct);
  for (int c = 0; l && c < nct; ++c) {
    PyObject *v = bfpy_podvec_wrap(o->dim, o->alloc, real ? bf_ptile_real(o->t, c) : bf_ptile_int(o->t, c), owner);
    if (!v) {
      Py_CLEAR(l);
      break;
    }
    PyList_SET_ITEM(l, c, v);
  }
  return l;
}
static PyObject *soa_get_real_data(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return soa_data(self, args, nargs, kwnames, true);
}
static PyObject *soa_get_int_data(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return soa_data(self, args, nargs, kwnames, false);
}
static PyObject *soa_get_idcpu_data(PyObject *self, PyObject *noargs) {
  (void)noargs;
  pt_object *o = PT(self);
  return bfpy_podvec_wrap(o->dim, o->alloc, bf_ptile_idcpu(o->t), o->owner ? o->owner : self);
}

/* _arrays(copy) / _cupy_arrays(copy) -> (idcpu, [(name, array)], [(name, array)]): every component of the
 * tile as NumPy (or CuPy) arrays taken at one moment: the storage of every vector (pointer, length,
 * memory block held) and the names are captured first, by C code that runs no Python code (no object
 * the garbage collector tracks is made), so another thread cannot change the tile between two
 * components (to_numpy made one call per component; a redistribute in between gave arrays of different
 * lengths).  The arrays are made from those captures afterwards. */
static PyObject *soa_arrays_of(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                               bool cupy) {
  int copy = bfpy_copy_arg(args, nargs, kwnames); /* as to_numpy(copy=...) */
  if (copy < 0) return NULL;
  pt_object *o = PT(self);
  const bf_ptile *t = o->t;
  const int nr = bf_ptile_num_real_comps(t), ni = bf_ptile_num_int_comps(t), nv = 1 + nr + ni;
  PyObject **views = PyMem_Calloc((size_t)nv, sizeof *views), **names = PyMem_Calloc((size_t)nv, sizeof *names);
  PyObject *out = NULL;
  int st = views && names ? 0 : -1;
  if (st) PyErr_NoMemory();
  /* phase 1: the captures */
  if (!st && lay(o)->pure_soa && !(views[0] = bfpy_podview_new(bf_ptile_idcpu(t), NULL))) st = -1;
  for (int c = 0; !st && c < nr; ++c)
    if (!(views[1 + c] = bfpy_podview_new(bf_ptile_real(t, c), NULL)) ||
        !(names[1 + c] = PyUnicode_FromString(bf_ptile_real_comp_name(t, c))))
      st = -1;
  for (int c = 0; !st && c < ni; ++c)
    if (!(views[1 + nr + c] = bfpy_podview_new(bf_ptile_int(t, c), NULL)) ||
        !(names[1 + nr + c] = PyUnicode_FromString(bf_ptile_int_comp_name(t, c))))
      st = -1;
  /* phase 2: the arrays */
  PyObject *idc = NULL, *rl = NULL, *il = NULL;
  if (!st) {
    rl = PyList_New(nr);
    il = PyList_New(ni);
    st = rl && il ? 0 : -1;
  }
  for (int v = 0; !st && v < nv; ++v) {
    if (!views[v]) continue;
    PyObject *a = cupy ? bfpy_podview_to_cupy(views[v], copy) : bfpy_podview_to_numpy(views[v], copy);
    if (!a) {
      st = -1;
      break;
    }
    if (v == 0) {
      idc = a;
      continue;
    }
    PyObject *pair = PyTuple_Pack(2, names[v], a);
    Py_DECREF(a);
    if (!pair) {
      st = -1;
      break;
    }
    PyList_SET_ITEM(v <= nr ? rl : il, v <= nr ? v - 1 : v - 1 - nr, pair);
  }
  if (!st) out = Py_BuildValue("(OOO)", idc ? idc : Py_None, rl, il);
  Py_XDECREF(idc), Py_XDECREF(rl), Py_XDECREF(il);
  for (int v = 0; views && names && v < nv; ++v) Py_XDECREF(views[v]), Py_XDECREF(names[v]);
  PyMem_Free(views), PyMem_Free(names);
  return out;
}
static PyObject *soa_arrays(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return soa_arrays_of(self, args, nargs, kwnames, false);
}
static PyObject *soa_cupy_arrays(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return soa_arrays_of(self, args, nargs, kwnames, true);
}

/* ---- ArrayOfStructs ------------------------------------------------------------------------ */

static bf_podvec *aos_vec(PyObject *self) { return bf_ptile_aos(PT(self)->t); }
static int64_t aos_size(PyObject *self) { return bf_podvec_size(aos_vec(self)); }

static PyObject *aos_size_m(PyObject *self, PyObject *noargs) {
  (void)noargs;
  return ll(aos_size(self));
}
static PyObject *aos_num_particles(PyObject *self, PyObject *noargs) {
  (void)noargs;
  int64_t n = aos_size(self) - tnnb(PT(self));
  return ll(n < 0 ? 0 : n);
}
static PyObject *aos_empty(PyObject *self, PyObject *noargs) {
  (void)noargs;
  return PyBool_FromLong(aos_size(self) == 0);
}
static PyObject *aos_push_back(PyObject *self, PyObject *p) {
  const bf_playout *l = lay(PT(self));
  unsigned char b[SBUF];
  if (bfpy_particle_bytes(p, l->dim, l->nsr, l->nsi, b, "push_back(p)") < 0 ||
      bfpy_check(bf_podvec_push_back(aos_vec(self), b)) < 0)
    return NULL;
  Py_RETURN_NONE;
}
static PyObject *aos_pop_back(PyObject *self, PyObject *noargs) {
  (void)noargs;
  if (bfpy_check(bf_podvec_pop_back(aos_vec(self))) < 0) return NULL;
  Py_RETURN_NONE;
}
static PyObject *aos_ref(PyObject *self, int64_t i) {
  const bf_playout *l = lay(PT(self));
  return bfpy_particle_new(l->dim, l->nsr, l->nsi, NULL, aos_vec(self), i);
}
static PyObject *aos_back(PyObject *self, PyObject *noargs) {
  (void)noargs;
  int64_t n = aos_size(self);
  if (n == 0) {
    PyErr_SetString(PyExc_IndexError, "back(): the ArrayOfStructs is empty");
    return NULL;
  }
  return aos_ref(self, n - 1);
}
static PyObject *aos_getitem(PyObject *self, PyObject *key) {
  int64_t i;
  if (index_arg(self, key, aos_size(self), &i) < 0) return NULL;
  return aos_ref(self, i);
}
static int aos_setitem(PyObject *self, PyObject *key, PyObject *value) {
  if (!value) {
    PyErr_Format(PyExc_TypeError, "%s does not support item deletion", tname(self));
    return -1;
  }
  int64_t i;
  const bf_playout *l = lay(PT(self));
  unsigned char b[SBUF];
  if (index_arg(self, key, aos_size(self), &i) < 0 ||
      bfpy_particle_bytes(value, l->dim, l->nsr, l->nsi, b, "the particle") < 0)
    return -1;
  return bfpy_check(bf_podvec_set(aos_vec(self), i, b));
}
static PyObject *aos_test_sizes(PyObject *self, PyObject *noargs) {
  (void)self, (void)noargs;
  Py_RETURN_NONE;
}

/* The array interface descr of the struct: x, y, z (dim), rdata_i, idcpu, idata_i. */
static PyObject *aos_descr(const bf_playout *l) {
  PyObject *d = PyList_New(0);
  if (!d) return NULL;
  static const char *const axes[] = {"x", "y", "z"};
  char name[32];
  size_t off = 0;
  for (int i = 0; i < l->dim + l->nsr + 1 + l->nsi; ++i) {
    const char *ts;
    if (i < l->dim) {
      snprintf(name, sizeof name, "%s", axes[i]);
      ts = "<f8";
      off += 8;
    } else if (i < l->dim + l->nsr) {
      snprintf(name, sizeof name, "rdata_%d", i - l->dim);
      ts = "<f8";
      off += 8;
    } else if (i == l->dim + l->nsr) {
      snprintf(name, sizeof name, "idcpu");
      ts = "<u8";
      off += 8;
    } else {
      snprintf(name, sizeof name, "idata_%d", i - l->dim - l->nsr - 1);
      ts = "<i4";
      off += 4;
    }
    PyObject *f = Py_BuildValue("(ss)", name, ts);
    if (!f || PyList_Append(d, f) < 0) {
      Py_XDECREF(f);
      Py_DECREF(d);
      return NULL;
    }
    Py_DECREF(f);
  }
  (void)off; /* no padding entry, as pyAMReX: the strides say the struct size */
  return d;
}

static PyObject *aos_view(PyObject *self) {
  PyObject *descr = aos_descr(bf_ptile_layout(PT(self)->t));
  if (!descr) return NULL;
  return bfpy_podview_new(aos_vec(self), descr);
}

static int aos_pin(PyObject *self, PyObject *view) { return bfpy_podview_pin(&PT(self)->pinned, view); }

static PyObject *aos_interface(PyObject *self, bool cuda) {
  PyObject *view = aos_view(self);
  if (!view) return NULL;
  PyObject *d = PyObject_GetAttrString(view, cuda ? "__cuda_array_interface__" : "__array_interface__");
  if (d && aos_pin(self, view) < 0) Py_CLEAR(d);
  Py_DECREF(view);
  return d;
}
static PyObject *aos_array_interface(PyObject *self, void *c) {
  (void)c;
  return aos_interface(self, false);
}
static PyObject *aos_cuda_array_interface(PyObject *self, void *c) {
  (void)c;
  return aos_interface(self, true);
}

static PyObject *aos_export(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, int how) {
  int copy = bfpy_copy_arg(args, nargs, kwnames);
  if (copy < 0) return NULL;
  if (aos_size(self) == 0) {
    PyErr_SetString(PyExc_ValueError, "AoS is empty.");
    return NULL;
  }
  if (how == 2) how = bf_gpu_available() ? 1 : 0;
  PyObject *view = aos_view(self);
  if (!view) return NULL;
  PyObject *r = how == 0 ? bfpy_podview_to_numpy(view, copy) : bfpy_podview_to_cupy(view, copy);
  Py_DECREF(view);
  return r;
}
static PyObject *aos_to_numpy(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return aos_export(self, args, nargs, kwnames, 0);
}
static PyObject *aos_to_cupy(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return aos_export(self, args, nargs, kwnames, 1);
}
static PyObject *aos_to_xp(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return aos_export(self, args, nargs, kwnames, 2);
}

static PyObject *aos_to_host(PyObject *self, PyObject *noargs) {
  (void)noargs;
  pt_object *o = PT(self);
  bf_playout l = *bf_ptile_layout(o->t);
  l.nar = l.nai = 0;
  bf_ptile *h = NULL;
  if (bfpy_check(bf_ptile_create(&l, 0, 0, bf_arena_get(BF_ARENA_PINNED), &h)) < 0) return NULL;
  bf_podvec *src = aos_vec(self), *dst = bf_ptile_aos(h);
  int64_t n = bf_podvec_size(src);
  size_t bytes = (size_t)n * bf_podvec_elem_size(src);
  void *tmp = malloc(bytes ? bytes : 1);
  int st = tmp ? bf_podvec_read(src, 0, n, tmp) : (PyErr_NoMemory(), -1);
  if (st == 0) st = bf_podvec_resize(dst, n);
  if (st == 0) st = bf_podvec_write(dst, 0, n, tmp);
  free(tmp);
  PyObject *r = NULL;
  if (st > 0) bfpy_raise(st);
  else if (st == 0) {
    /* keep the object's spec: its AoS type is the same */
    r = wrap(K_AOS, o->dim, o->spec, BFPY_ALLOC_PINNED, h, NULL);
  }
  bf_ptile_destroy(&h);
  return r;
}

/* ---- ParticleTileData ------------------------------------------------------------------------ */

static PyObject *td_m_size(PyObject *self, void *c) {
  (void)c;
  return ll(tsize(PT(self)));
}
static PyObject *td_m_nrr(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLong(PT(self)->t ? bf_ptile_num_runtime_real_comps(PT(self)->t) : 0);
}
static PyObject *td_m_nri(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLong(PT(self)->t ? bf_ptile_num_runtime_int_comps(PT(self)->t) : 0);
}
static PyObject *td_get(PyObject *self, PyObject *arg) { return tile_getitem(self, arg); }
static PyObject *td_set(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"", "", NULL};
  PyObject *a[2];
  if (bfpy_bind(args, nargs, kwnames, names, 2, a, true) < 0) return NULL;
  if (tile_setitem(self, a[1], a[0]) < 0) return NULL; /* note the order: (particle, index) */
  Py_RETURN_NONE;
}

/* ---- repr ---------------------------------------------------------------------------------- */
static PyObject *pt_repr(PyObject *self) {
  pt_object *o = PT(self);
  if (!o->t) return PyUnicode_FromFormat("<%s (no tile)>", tname(self));
  return PyUnicode_FromFormat("<%s of %lld particles (%lld neighbours), %d real and %d int SoA components>",
                              tname(self), (long long)tsize(o), (long long)tnnb(o), bf_ptile_num_real_comps(o->t),
                              bf_ptile_num_int_comps(o->t));
}

/* ---- method and getset tables ---------------------------------------------------------------- */
#define FAST(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

static PyMethodDef tile_methods[] = {
    {"define", FAST(m_define),
     "define(n_runtime_real, n_runtime_int, real_names=None, int_names=None, /) -> None: add run-time SoA "
     "components; the name lists name the components in order (compile-time ones first)."},
    {"get_struct_of_arrays", m_get_soa, METH_NOARGS, "get_struct_of_arrays() -> StructOfArrays (a view)."},
    {"set_num_neighbors", m_set_num_neighbors, METH_O, "set_num_neighbors(n, /) -> None."},
    {"get_num_neighbors", m_get_num_neighbors, METH_NOARGS, "get_num_neighbors() -> int."},
    {"capacity", m_capacity, METH_NOARGS, "capacity() -> int: particles that fit without a reallocation."},
    {"resize", m_resize, METH_O, "resize(n, /) -> None: every vector to n particles (new ones are 0)."},
    {"shrink_to_fit", m_shrink_to_fit, METH_NOARGS, "shrink_to_fit() -> None."},
    {"swap", m_swap, METH_O, "swap(other, /) -> None: exchange the particles of two tiles of the same type."},
    {"push_back", m_push_back, METH_O,
     "push_back(p, /) -> None: append a super particle (all data), or for legacy layouts a struct particle "
     "(array of structs only, as AMReX)."},
    {"push_back_real", FAST(m_push_back_real),
     "push_back_real(comp, v, /) / (values, /) / (comp, npar, v, /) -> None: append to SoA real components."},
    {"push_back_int", FAST(m_push_back_int),
     "push_back_int(comp, v, /) / (values, /) / (comp, npar, v, /) -> None: append to SoA int components."},
    {"get_particle_tile_data", m_get_tdata, METH_NOARGS, "get_particle_tile_data() -> ParticleTileData."},
    {NULL, NULL, 0, NULL},
};
static PyMethodDef tile_legacy_methods[] = {
    {"get_array_of_structs", m_get_aos, METH_NOARGS, "get_array_of_structs() -> ArrayOfStructs (a view)."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef tile_getset[] = {
    {"empty", g_empty, NULL, "No particles.", NULL},
    {"size", g_size, NULL, "Particles, neighbours included.", NULL},
    {"num_particles", g_num_particles, NULL, "Real particles.", NULL},
    {"num_real_particles", g_num_particles, NULL, "Real particles.", NULL},
    {"num_neighbor_particles", g_num_neighbors, NULL, "Neighbour particles.", NULL},
    {"num_total_particles", g_size, NULL, "Real + neighbour particles.", NULL},
    {"num_real_comps", g_nreal, NULL, "SoA real components (compile-time + run-time).", NULL},
    {"num_int_comps", g_nint, NULL, "SoA int components (compile-time + run-time).", NULL},
    {"num_runtime_real_comps", g_nrreal, NULL, "Run-time SoA real components.", NULL},
    {"num_runtime_int_comps", g_nrint, NULL, "Run-time SoA int components.", NULL},
    {"real_names", g_real_names, NULL, "Names of the SoA real components (boxfab).", NULL},
    {"int_names", g_int_names, NULL, "Names of the SoA int components (boxfab).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef soa_methods[] = {
    {"define", FAST(m_define),
     "define(n_runtime_real, n_runtime_int, real_names=None, int_names=None, /) -> None: add run-time components."},
    {"get_real_data", FAST(soa_get_real_data),
     "get_real_data() -> list[PODVector_real] (compile-time components) / get_real_data(index or name) -> "
     "PODVector_real."},
    {"get_int_data", FAST(soa_get_int_data),
     "get_int_data() -> list[PODVector_int] (compile-time components) / get_int_data(index or name) -> "
     "PODVector_int."},
    {"set_num_neighbors", m_set_num_neighbors, METH_O, "set_num_neighbors(n, /) -> None."},
    {"get_num_neighbors", m_get_num_neighbors, METH_NOARGS, "get_num_neighbors() -> int."},
    {"resize", m_resize, METH_O, "resize(n, /) -> None."},
    {"_arrays", FAST(soa_arrays),
     "_arrays(copy=False) -> (idcpu, [(name, array)], [(name, array)]): NumPy arrays of every component taken at "
     "one moment (the C side of to_numpy)."},
    {"_cupy_arrays", FAST(soa_cupy_arrays),
     "_cupy_arrays(copy=False) -> (idcpu, [(name, array)], [(name, array)]): the same with CuPy arrays (the C side "
     "of to_cupy)."},
    {NULL, NULL, 0, NULL},
};
static PyMethodDef soa_pure_methods[] = {
    {"get_idcpu_data", soa_get_idcpu_data, METH_NOARGS, "get_idcpu_data() -> PODVector_uint64."},
    {NULL, NULL, 0, NULL},
};
static PyGetSetDef soa_getset[] = {
    {"num_real_comps", g_nreal, NULL, "Real components (compile-time + run-time).", NULL},
    {"num_int_comps", g_nint, NULL, "Int components (compile-time + run-time).", NULL},
    {"has_idcpu", soa_g_has_idcpu, NULL, "True for pure SoA layouts (an idcpu array).", NULL},
    {"size", soa_g_size, NULL, "Particles (neighbours included).", NULL},
    {"num_particles", soa_g_num_particles, NULL, "Real particles.", NULL},
    {"num_real_particles", soa_g_num_particles, NULL, "Real particles.", NULL},
    {"num_total_particles", soa_g_size, NULL, "Real + neighbour particles.", NULL},
    {"real_names", g_real_names, NULL, "Names of the real components (boxfab).", NULL},
    {"int_names", g_int_names, NULL, "Names of the int components (boxfab).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef aos_methods[] = {
    {"size", aos_size_m, METH_NOARGS, "size() -> int: particles, neighbours included."},
    {"numParticles", aos_num_particles, METH_NOARGS, "numParticles() -> int: real particles."},
    {"numRealParticles", aos_num_particles, METH_NOARGS, "numRealParticles() -> int."},
    {"numNeighborParticles", m_get_num_neighbors, METH_NOARGS, "numNeighborParticles() -> int."},
    {"numTotalParticles", aos_size_m, METH_NOARGS, "numTotalParticles() -> int."},
    {"setNumNeighbors", m_set_num_neighbors, METH_O, "setNumNeighbors(n, /) -> None."},
    {"getNumNeighbors", m_get_num_neighbors, METH_NOARGS, "getNumNeighbors() -> int."},
    {"empty", aos_empty, METH_NOARGS, "empty() -> bool."},
    {"push_back", aos_push_back, METH_O, "push_back(p: Particle_NR_NI, /) -> None."},
    {"pop_back", aos_pop_back, METH_NOARGS, "pop_back() -> None (IndexError when empty)."},
    {"back", aos_back, METH_NOARGS, "back() -> Particle_NR_NI: a reference to the last particle."},
    {"test_sizes", aos_test_sizes, METH_NOARGS | METH_STATIC, "test_sizes() -> None (no-op)."},
    {"to_host", aos_to_host, METH_NOARGS, "to_host() -> ArrayOfStructs_NR_NI_pinned: a copy in host memory."},
    {"to_numpy", FAST(aos_to_numpy),
     "to_numpy(copy=False) -> numpy structured array (x, y, z, rdata_*, idcpu, idata_*); ValueError when empty."},
    {"to_cupy", FAST(aos_to_cupy), "to_cupy(copy=False) -> cupy structured array."},
    {"to_xp", FAST(aos_to_xp), "to_xp(copy=False): to_cupy when Config.have_gpu, else to_numpy."},
    {NULL, NULL, 0, NULL},
};
static PyGetSetDef aos_getset[] = {
    {"__array_interface__", aos_array_interface, NULL, "NumPy array interface v3 (structured; host memory).", NULL},
    {"__cuda_array_interface__", aos_cuda_array_interface, NULL, "CUDA array interface v3 (device memory).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef td_methods[] = {
    {"get_super_particle", td_get, METH_O, "get_super_particle(i, /) -> SuperParticle: a copy of particle i."},
    {"set_super_particle", FAST(td_set), "set_super_particle(p, i, /) -> None (particle first, as pyAMReX)."},
    {NULL, NULL, 0, NULL},
};
static PyGetSetDef td_getset[] = {
    {"m_size", td_m_size, NULL, "Particles of the tile.", NULL},
    {"m_num_runtime_real", td_m_nrr, NULL, "Run-time real components.", NULL},
    {"m_num_runtime_int", td_m_nri, NULL, "Run-time int components.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

#define BASE_SLOTS(newf)                                                                                          \
  {Py_tp_new, newf}, {Py_tp_init, pt_init}, {Py_tp_dealloc, pt_dealloc}, {Py_tp_traverse, pt_traverse},          \
      {Py_tp_clear, pt_clear}, {Py_tp_repr, pt_repr}

static PyType_Slot tile_base_slots[] = {{Py_tp_doc, "Base of the ParticleTile_<S>_<alloc> types."},
                                        BASE_SLOTS(tile_new),
                                        {Py_tp_methods, tile_methods},
                                        {Py_tp_getset, tile_getset},
                                        {Py_mp_subscript, tile_getitem},
                                        {Py_mp_ass_subscript, tile_setitem},
                                        {0, NULL}};
static PyType_Slot soa_base_slots[] = {{Py_tp_doc, "Base of the StructOfArrays_<...>_<alloc> types."},
                                       BASE_SLOTS(soa_new),
                                       {Py_tp_methods, soa_methods},
                                       {Py_tp_getset, soa_getset},
                                       {Py_mp_length, soa_len},
                                       {Py_sq_length, soa_len},
                                       {0, NULL}};
static PyType_Slot aos_base_slots[] = {{Py_tp_doc, "Base of the ArrayOfStructs_<NR>_<NI>_<alloc> types."},
                                       BASE_SLOTS(aos_new),
                                       {Py_tp_methods, aos_methods},
                                       {Py_tp_getset, aos_getset},
                                       {Py_mp_subscript, aos_getitem},
                                       {Py_mp_ass_subscript, aos_setitem},
                                       {0, NULL}};
static PyType_Slot td_base_slots[] = {{Py_tp_doc, "Base of the ParticleTileData_<S> types."},
                                      BASE_SLOTS(tdata_new),
                                      {Py_tp_methods, td_methods},
                                      {Py_tp_getset, td_getset},
                                      {Py_mp_subscript, tile_getitem},
                                      {Py_mp_ass_subscript, tile_setitem},
                                      {0, NULL}};

static PyType_Slot *const base_slots[K_N] = {tile_base_slots, soa_base_slots, aos_base_slots, td_base_slots};
static const char *const base_names[K_N] = {"_ParticleTile", "_StructOfArrays", "_ArrayOfStructs",
                                            "_ParticleTileData"};

static const char *const docs[K_N] = {
    "ParticleTile_<S>_<alloc>(): the particles of one tile: an array of structs (legacy layouts) and SoA "
    "components, in the memory of its allocator.",
    "StructOfArrays_<NAR>_<NAI>[_idcpu]_<alloc>(): the SoA components of a particle tile (a view when it comes "
    "from a tile).",
    "ArrayOfStructs_<NR>_<NI>_<alloc>(): the array of particle structs of a tile (a view when it comes from a "
    "tile); aos[i] is a reference.",
    "ParticleTileData_<S>(): access to the particles of a tile by index (get_particle_tile_data())."};

/* Type name of kind k for spec s and allocator a. */
static void type_name(int k, int dim, const bfpy_pspec *s, int a, char *buf, size_t size) {
  const bf_playout *l = &s->layout;
  const char *an = bfpy_alloc_name(a);
  switch (k) {
  case K_TILE: snprintf(buf, size, "boxfab.space%dd.ParticleTile_%s_%s", dim, s->suffix, an); break;
  case K_SOA:
    snprintf(buf, size, "boxfab.space%dd.StructOfArrays_%d_%d%s_%s", dim, l->nar, l->nai, l->pure_soa ? "_idcpu" : "",
             an);
    break;
  case K_AOS: snprintf(buf, size, "boxfab.space%dd.ArrayOfStructs_%d_%d_%s", dim, l->nsr, l->nsi, an); break;
  default: snprintf(buf, size, "boxfab.space%dd.ParticleTileData_%s", dim, s->suffix); break;
  }
}

static int set_class_int(PyTypeObject *t, const char *name, long v) {
  PyObject *o = PyLong_FromLong(v);
  if (!o) return -1;
  int r = PyObject_SetAttrString((PyObject *)t, name, o);
  Py_DECREF(o);
  return r;
}

int bfpy_init_ptile(PyObject *m, int dim) {
  for (int k = 0; k < K_N; ++k) {
    PyType_Spec bspec = {.name = base_names[k],
                         .basicsize = sizeof(pt_object),
                         .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
                         .slots = base_slots[k]};
    PyTypeObject *base = bfpy_make_type(NULL, dim, base_ids[k], base_names[k], &bspec, NULL);
    if (!base) return -1;
    PyObject *bases = PyTuple_Pack(1, (PyObject *)base);
    if (!bases) return -1;
    for (int s = 0; s < bfpy_pspec_count(dim); ++s) {
      const bfpy_pspec *sp = bfpy_pspec_at(dim, s);
      if (k == K_AOS && sp->layout.pure_soa) continue;
      for (int a = 0; a < (k == K_TDATA ? 1 : BFPY_NALLOC); ++a) {
        char *name = type_names[k][dim][s][a];
        type_name(k, dim, sp, a, name, sizeof type_names[0][0][0][0]);
        PyMethodDef *extra = NULL;
        if (k == K_TILE && !sp->layout.pure_soa) extra = tile_legacy_methods;
        if (k == K_SOA && sp->layout.pure_soa) extra = soa_pure_methods;
        PyType_Slot slots[] = {{Py_tp_doc, (void *)docs[k]}, {extra ? Py_tp_methods : 0, extra}, {0, NULL}};
        if (!extra) slots[1] = slots[2];
        PyType_Spec spec = {.name = name,
                            .basicsize = sizeof(pt_object),
                            .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                            .slots = slots};
        PyTypeObject *t = (PyTypeObject *)PyType_FromSpecWithBases(&spec, bases);
        if (!t) {
          Py_DECREF(bases);
          return -1;
        }
        types[k][dim][s][a] = t;
        if (k == K_TILE && (set_class_int(t, "NAR", sp->layout.nar) < 0 || set_class_int(t, "NAI", sp->layout.nai) < 0)) {
          Py_DECREF(bases);
          return -1;
        }
        Py_INCREF(t);
        if (PyModule_AddObject(m, strrchr(name, '.') + 1, (PyObject *)t) < 0) {
          Py_DECREF(t);
          Py_DECREF(bases);
          return -1;
        }
      }
    }
    Py_DECREF(bases);
  }
  return 0;
}
