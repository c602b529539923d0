/* boxfab._core: particle iterators (API.md 3.9): ParIterBase_<S>_<A>(MFIter),
 * ParIter_<S>_<A>(ParIterBase_<S>_<A>), ParConstIterBase_<S>_<A>(MFIter),
 * ParConstIter_<S>_<A>(ParConstIterBase_<S>_<A>).
 *
 * An iterator is an MFIter (bfpy_mfiter_object) over the chosen tiles: the
 * tiles of one level that hold particles, in (grid, tile) order, taken when
 * the iterator is made (bf_mfiter_create_subset on an unallocated MultiFab of
 * the level).  It holds a reference to the container object and to each of
 * those tiles, so deleting the container, redistributing or clearing it during
 * the loop never frees what the iterator shows.  Every MFIter member works
 * (tilebox() is the particle tile's box); __next__ is MFIter's: the first
 * call does not advance, the end finalizes (synchronizing boxfab's stream)
 * and raises StopIteration; leaving a loop early is safe and a new iterator
 * starts over. */
#include <string.h>

#include "mesh/multifab.h"
#include "particles/pc.h"
#include <structmember.h>

#define MAX_SPECS 8

typedef struct {
  bfpy_mfiter_object base;
  PyObject *pcobj; /* the container object (kept alive) */
  int spec, alloc, level;
  bool is_const;
  int64_t ntiles;
  bf_pc_tileref *tiles; /* each ptile retained */
} bfpy_pariter_object;

#define PI(o) ((bfpy_pariter_object *)(o))

/* [dim][spec][alloc][kind]: kind 0 ParIterBase, 1 ParIter, 2 ParConstIterBase, 3 ParConstIter */
static PyTypeObject *it_types[BF_SPACEDIM_MAX + 1][MAX_SPECS][BFPY_NALLOC][4];
static char it_names[BF_SPACEDIM_MAX + 1][MAX_SPECS][BFPY_NALLOC][4][96];

PyTypeObject *bfpy_pariter_type(int dim, int spec, int alloc, bool is_const) {
  if (dim < 1 || dim > BF_SPACEDIM_MAX || spec < 0 || spec >= MAX_SPECS || alloc < 0 || alloc >= BFPY_NALLOC)
    return NULL;
  return it_types[dim][spec][alloc][is_const ? 3 : 1];
}

static int type_info(PyTypeObject *t, int *dim, int *spec, int *alloc, bool *is_const) {
  for (int d = 1; d <= BF_SPACEDIM_MAX; ++d)
    for (int s = 0; s < bfpy_pspec_count(d) && s < MAX_SPECS; ++s)
      for (int a = 0; a < BFPY_NALLOC; ++a)
        for (int k = 0; k < 4; ++k) {
          PyTypeObject *x = it_types[d][s][a][k];
          if (x && t == x) {
            *dim = d, *spec = s, *alloc = a, *is_const = k >= 2;
            return 0;
          }
        }
  for (int d = 1; d <= BF_SPACEDIM_MAX; ++d)
    for (int s = 0; s < bfpy_pspec_count(d) && s < MAX_SPECS; ++s)
      for (int a = 0; a < BFPY_NALLOC; ++a)
        for (int k = 0; k < 4; ++k) {
          PyTypeObject *x = it_types[d][s][a][k];
          if (x && PyType_IsSubtype(t, x)) {
            *dim = d, *spec = s, *alloc = a, *is_const = k >= 2;
            return 0;
          }
        }
  return -1;
}

static void release_tiles(bfpy_pariter_object *it) {
  for (int64_t k = 0; k < it->ntiles; ++k)
    bf_ptile_destroy(&it->tiles[k].ptile);
  PyMem_Free(it->tiles);
  it->tiles = NULL;
  it->ntiles = 0;
}

/* __init__: the iterator was made by __new__ from the same arguments; accepting them here lets a
 * Python subclass call super().__init__(particle_container, level), as pyAMReX users do. */
static int pi_init(PyObject *self, PyObject *args, PyObject *kwds) {
  (void)self;
  static char *kwlist[] = {"particle_container", "level", NULL};
  PyObject *pco = NULL;
  int level = 0;
  return PyArg_ParseTupleAndKeywords(args, kwds, "O|i", kwlist, &pco, &level) ? 0 : -1;
}

static PyObject *pi_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
  static char *kwlist[] = {"particle_container", "level", NULL};
  PyObject *pco = NULL;
  int level = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|i", kwlist, &pco, &level)) return NULL;
  int dim = 0, spec = 0, alloc = 0;
  bool is_const = false;
  if (type_info(type, &dim, &spec, &alloc, &is_const) < 0) {
    PyErr_Format(PyExc_TypeError, "%.100s cannot be instantiated", type->tp_name);
    return NULL;
  }
  if (!bfpy_is(pco, BFPY_T_PC, dim)) {
    PyErr_Format(PyExc_TypeError,
                 "%.100s(particle_container, level): expected a particle container of dimension "
                 "%d, not %.100s",
                 type->tp_name, dim, Py_TYPE(pco)->tp_name);
    return NULL;
  }
  bfpy_pc_object *pc = (bfpy_pc_object *)pco;
  if (pc->spec != spec || pc->alloc != alloc) {
    PyErr_Format(PyExc_TypeError, "%.100s(particle_container, level): a %.100s has another particle type",
                 type->tp_name, Py_TYPE(pco)->tp_name);
    return NULL;
  }
  if (bfpy_check(bf_pc_check(pc->pc)) < 0) return NULL;
  int nlev = bf_pc_num_levels(pc->pc);
  if (level < 0 || level >= nlev) {
    if (nlev == 0)
      PyErr_Format(PyExc_RuntimeError, "%.100s: the particle container is not defined", type->tp_name);
    else
      PyErr_Format(PyExc_IndexError, "%.100s: level %d out of range (finest level %d)", type->tp_name, level, nlev - 1);
    return NULL;
  }
  int64_t n = 0;
  if (bfpy_check(bf_pc_tiles(pc->pc, level, true, NULL, 0, &n)) < 0) return NULL;
  bf_pc_tileref *refs = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof *refs);
  int64_t *grids = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof *grids);
  int *tnums = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof *tnums);
  bf_multifab *mf = NULL;
  bf_mfiter *cit = NULL;
  int st = (refs && grids && tnums) ? 0 : (PyErr_NoMemory(), -1);
  if (st == 0) st = bfpy_check(bf_pc_tiles(pc->pc, level, true, refs, n, &n));
  if (st == 0) {
    for (int64_t k = 0; k < n; ++k)
      grids[k] = refs[k].grid, tnums[k] = refs[k].tile;
    mf = bfpy_pc_iter_mf(pc, level);
    if (!mf) st = -1;
  }
  if (st == 0) {
    bf_intvect ts = bf_pc_tilesize(pc->pc);
    st = bfpy_check(bf_mfiter_create_subset(mf, bf_pc_tiling(pc->pc), &ts, n, grids, tnums, &cit));
  }
  bf_multifab_destroy(&mf);
  PyMem_Free(grids), PyMem_Free(tnums);
  bfpy_pariter_object *self = NULL;
  if (st == 0) {
    self = (bfpy_pariter_object *)type->tp_alloc(type, 0);
    if (!self) st = -1;
  }
  if (st < 0) {
    PyMem_Free(refs);
    bf_mfiter_destroy(&cit);
    return NULL;
  }
  for (int64_t k = 0; k < n; ++k)
    bf_ptile_retain(refs[k].ptile);
  self->base.dim = dim;
  self->base.it = cit;
  self->base.mf = Py_NewRef(pco);
  self->base.first_or_done = true;
  self->pcobj = Py_NewRef(pco);
  self->spec = spec, self->alloc = alloc, self->level = level, self->is_const = is_const;
  self->ntiles = n;
  self->tiles = refs;
  return (PyObject *)self;
}

static int pi_traverse(PyObject *self, visitproc visit, void *arg) {
  Py_VISIT(PI(self)->pcobj);
  PyTypeObject *mt = bfpy_types[PI(self)->base.dim][BFPY_T_MFITER];
  return mt->tp_traverse(self, visit, arg);
}

static void pi_dealloc(PyObject *self) {
  PyObject_GC_UnTrack(self);
  release_tiles(PI(self));
  Py_CLEAR(PI(self)->pcobj);
  bfpy_types[PI(self)->base.dim][BFPY_T_MFITER]->tp_dealloc(self);
}

/* The current tile, or NULL with RuntimeError when the loop has ended. */
static bf_pc_tileref *current(PyObject *self, const char *what) {
  bfpy_pariter_object *it = PI(self);
  if (bfpy_mfiter_current(&it->base, what) < 0) return NULL;
  int64_t p = bf_mfiter_position(it->base.it);
  if (p < 0 || p >= it->ntiles) {
    PyErr_Format(PyExc_RuntimeError, "%s: the iterator is not on a tile", what);
    return NULL;
  }
  return &it->tiles[p];
}

static PyObject *pi_particle_tile(PyObject *self, PyObject *noargs) {
  (void)noargs;
  bf_pc_tileref *r = current(self, "particle_tile");
  if (!r) return NULL;
  return bfpy_ptile_wrap(PI(self)->base.dim, PI(self)->spec, PI(self)->alloc, r->ptile, PI(self)->pcobj);
}

static PyObject *pi_soa(PyObject *self, PyObject *noargs) {
  (void)noargs;
  bf_pc_tileref *r = current(self, "soa");
  if (!r) return NULL;
  return bfpy_soa_wrap(PI(self)->base.dim, PI(self)->spec, PI(self)->alloc, r->ptile, PI(self)->pcobj);
}

static PyObject *pi_aos(PyObject *self, PyObject *noargs) {
  (void)noargs;
  bf_pc_tileref *r = current(self, "aos");
  if (!r) return NULL;
  return bfpy_aos_wrap(PI(self)->base.dim, PI(self)->spec, PI(self)->alloc, r->ptile, PI(self)->pcobj);
}

/* pti[name]: the component `name` of the current tile as a zero-copy array (to_xp: NumPy, or CuPy on a
 * GPU), pyAMReX 26's ParIter.__getitem__: "idcpu" (pure SoA) and every SoA component by name; in legacy
 * layouts also the fields of the AoS (x, y, z, rdata_<i>, idcpu, idata_<i>), views of the structs. */
static PyObject *pi_getitem(PyObject *self, PyObject *key) {
  if (!PyUnicode_Check(key)) {
    PyErr_Format(PyExc_TypeError, "ParIter[name]: the name must be a str, not %.100s", Py_TYPE(key)->tp_name);
    return NULL;
  }
  bf_pc_tileref *r = current(self, "ParIter[name]");
  if (!r) return NULL;
  Py_ssize_t len = 0;
  const char *k = PyUnicode_AsUTF8AndSize(key, &len);
  if (!k) return NULL;
  const bf_ptile *t = r->ptile;
  const bool pure = bf_ptile_layout(t)->pure_soa;
  bf_podvec *v = NULL;
  if ((size_t)len == strlen(k)) {
    if (pure && strcmp(k, "idcpu") == 0) v = bf_ptile_idcpu(t);
    for (int c = 0; !v && c < bf_ptile_num_real_comps(t); ++c)
      if (strcmp(bf_ptile_real_comp_name(t, c), k) == 0) v = bf_ptile_real(t, c);
    for (int c = 0; !v && c < bf_ptile_num_int_comps(t); ++c)
      if (strcmp(bf_ptile_int_comp_name(t, c), k) == 0) v = bf_ptile_int(t, c);
  }
  if (v) {
    static PyObject *to_xp; /* interned once: the per-tile path of pyAMReX 26's loops */
    if (!to_xp && !(to_xp = PyUnicode_InternFromString("to_xp"))) return NULL;
    PyObject *pv = bfpy_podvec_wrap(PI(self)->base.dim, PI(self)->alloc, v, PI(self)->pcobj);
    if (!pv) return NULL;
    PyObject *a = PyObject_CallMethodNoArgs(pv, to_xp);
    Py_DECREF(pv);
    return a;
  }
  if (!pure && (size_t)len == strlen(k)) {
    PyObject *aos = bfpy_aos_wrap(PI(self)->base.dim, PI(self)->spec, PI(self)->alloc, r->ptile, PI(self)->pcobj);
    PyObject *arr = aos ? PyObject_CallMethod(aos, "to_xp", NULL) : NULL;
    Py_XDECREF(aos);
    if (!arr) return NULL;
    PyObject *dt = PyObject_GetAttrString(arr, "dtype");
    PyObject *fields = dt ? PyObject_GetAttrString(dt, "fields") : NULL;
    int has = fields && fields != Py_None ? PyMapping_HasKey(fields, key) : 0;
    Py_XDECREF(fields), Py_XDECREF(dt);
    PyObject *out = has ? PyObject_GetItem(arr, key) : NULL;
    Py_DECREF(arr);
    if (has) return out;
    if (PyErr_Occurred()) return NULL;
  }
  PyErr_Format(PyExc_KeyError, "ParIter[name]: the particles have no component %R", key);
  return NULL;
}

static PyObject *pi_geom(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) {
  static const char *const names[] = {"level", NULL};
  PyObject *a[1];
  int lev;
  if (bfpy_bind(args, nargs, kw, names, 1, a, true) < 0 || bfpy_to_int(a[0], &lev, "geom(level)") < 0) return NULL;
  bf_pc *pc = ((bfpy_pc_object *)PI(self)->pcobj)->pc;
  const bf_geometry *g = NULL;
  if (bfpy_check(bf_pc_level(pc, lev, &g, NULL, NULL)) < 0) return NULL;
  return bfpy_geometry_new(g);
}

static PyObject *size_of(PyObject *self, int which, const char *what) {
  bf_pc_tileref *r = current(self, what);
  if (!r) return NULL;
  int64_t n = bf_ptile_size(r->ptile), nb = bf_ptile_num_neighbors(r->ptile);
  return PyLong_FromLongLong(which == 0 ? n : which == 1 ? n - nb : nb);
}
static PyObject *get_size(PyObject *self, void *c) {
  (void)c;
  return size_of(self, 0, "num_particles");
}
static PyObject *get_real(PyObject *self, void *c) {
  (void)c;
  return size_of(self, 1, "num_real_particles");
}
static PyObject *get_nb(PyObject *self, void *c) {
  (void)c;
  return size_of(self, 2, "num_neighbor_particles");
}
static PyObject *get_level(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLong(PI(self)->level);
}
static PyObject *get_pair(PyObject *self, void *c) {
  (void)c;
  bf_pc_tileref *r = current(self, "pair_index");
  if (!r) return NULL;
  return Py_BuildValue("(Li)", (long long)r->grid, r->tile);
}

static PyObject *pi_repr(PyObject *self) {
  bfpy_pariter_object *it = PI(self);
  const char *n = strrchr(Py_TYPE(self)->tp_name, '.');
  n = n ? n + 1 : Py_TYPE(self)->tp_name;
  if (!it->base.it) return PyUnicode_FromFormat("<%s (finalized)>", n);
  return PyUnicode_FromFormat("<%s: level %d, tile %lld of %lld>", n, it->level,
                              (long long)bf_mfiter_position(it->base.it), (long long)it->ntiles);
}

#define FASTKW(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

static PyMethodDef pi_methods[] = {
    {"particle_tile", pi_particle_tile, METH_NOARGS, "particle_tile() -> ParticleTile: the current tile (reference)."},
    {"soa", pi_soa, METH_NOARGS, "soa() -> StructOfArrays: the current tile's SoA (reference)."},
    {"geom", FASTKW(pi_geom), "geom(level: int) -> Geometry: the Geometry of a level of the container."},
    {NULL, NULL, 0, NULL},
};

static PyMethodDef pi_legacy_methods[] = {
    {"particle_tile", pi_particle_tile, METH_NOARGS, "particle_tile() -> ParticleTile: the current tile (reference)."},
    {"soa", pi_soa, METH_NOARGS, "soa() -> StructOfArrays: the current tile's SoA (reference)."},
    {"aos", pi_aos, METH_NOARGS, "aos() -> ArrayOfStructs: the current tile's AoS (reference)."},
    {"geom", FASTKW(pi_geom), "geom(level: int) -> Geometry: the Geometry of a level of the container."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef pi_getset[] = {
    {"size", get_size, NULL, "Particles in the current tile.", NULL},
    {"num_particles", get_size, NULL, "Particles in the current tile.", NULL},
    {"num_real_particles", get_real, NULL, "Particles in the current tile without neighbours.", NULL},
    {"num_neighbor_particles", get_nb, NULL, "Neighbour particles in the current tile.", NULL},
    {"level", get_level, NULL, "The level iterated over.", NULL},
    {"pair_index", get_pair, NULL, "(grid, tile) of the current tile.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static const char *const kind_names[4] = {"ParIterBase", "ParIter", "ParConstIterBase", "ParConstIter"};

int bfpy_init_pariter(PyObject *m, int dim) {
  PyTypeObject *mfiter = bfpy_types[dim][BFPY_T_MFITER];
  if (!mfiter) {
    PyErr_SetString(PyExc_ImportError, "boxfab: MFIter must exist before ParIter");
    return -1;
  }
  for (int s = 0; s < bfpy_pspec_count(dim) && s < MAX_SPECS; ++s) {
    const bfpy_pspec *sp = bfpy_pspec_at(dim, s);
    for (int a = 0; a < BFPY_NALLOC; ++a) {
      for (int k = 0; k < 4; ++k) {
        char *name = it_names[dim][s][a][k];
        snprintf(name, sizeof it_names[0][0][0][0], "boxfab.space%dd.%s_%s_%s", dim, kind_names[k], sp->suffix,
                 bfpy_alloc_name(a));
        bool base_kind = k == 0 || k == 2;
        PyType_Slot slots[14];
        int ns = 0;
        slots[ns++] = (PyType_Slot){Py_tp_doc, (void *)(k >= 2 ? "Read-only iterator over the particle tiles of a "
                                                                 "level: (particle_container, level)."
                                                               : "Iterator over the particle tiles of a level that "
                                                                 "hold particles: (particle_container, level).")};
        if (base_kind) {
          slots[ns++] = (PyType_Slot){Py_tp_new, pi_new};
          slots[ns++] = (PyType_Slot){Py_tp_init, pi_init};
          slots[ns++] = (PyType_Slot){Py_tp_dealloc, pi_dealloc};
          slots[ns++] = (PyType_Slot){Py_tp_traverse, pi_traverse};
          slots[ns++] = (PyType_Slot){Py_tp_methods, sp->layout.pure_soa ? pi_methods : pi_legacy_methods};
          slots[ns++] = (PyType_Slot){Py_tp_getset, pi_getset};
          slots[ns++] = (PyType_Slot){Py_tp_iter, PyObject_SelfIter};
          slots[ns++] = (PyType_Slot){Py_mp_subscript, pi_getitem};
        } else {
          slots[ns++] = (PyType_Slot){Py_tp_repr, pi_repr};
        }
        slots[ns++] = (PyType_Slot){0, NULL};
        PyType_Spec spec = {.name = name,
                            .basicsize = sizeof(bfpy_pariter_object),
                            .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | (base_kind ? Py_TPFLAGS_HAVE_GC : 0),
                            .slots = slots};
        PyObject *bases = PyTuple_Pack(1, base_kind ? (PyObject *)mfiter : (PyObject *)it_types[dim][s][a][k - 1]);
        if (!bases) return -1;
        PyTypeObject *t = (PyTypeObject *)PyType_FromSpecWithBases(&spec, bases);
        Py_DECREF(bases);
        if (!t) return -1;
        it_types[dim][s][a][k] = t;
        PyObject *isp = PyBool_FromLong(sp->layout.pure_soa);
        int r = PyObject_SetAttrString((PyObject *)t, "is_soa_particle", isp);
        Py_DECREF(isp);
        if (r < 0) return -1;
        Py_INCREF(t);
        if (PyModule_AddObject(m, strrchr(name, '.') + 1, (PyObject *)t) < 0) {
          Py_DECREF(t);
          return -1;
        }
      }
      /* the container's Iterator / ConstIterator class attributes (pyAMReX 26; iterator() and
       * const_iterator() are methods of the container that make them) */
      PyTypeObject *pct = bfpy_pc_type(dim, s, a);
      if (pct && (PyObject_SetAttrString((PyObject *)pct, "Iterator", (PyObject *)it_types[dim][s][a][1]) < 0 ||
                  PyObject_SetAttrString((PyObject *)pct, "ConstIterator", (PyObject *)it_types[dim][s][a][3]) < 0))
        return -1;
    }
  }
  /* the generic container iterates with the pureSoA_<dim>_0 default iterators */
  char suffix[32];
  snprintf(suffix, sizeof suffix, "pureSoA_%d_0", dim);
  int gs = bfpy_pspec_find(dim, suffix);
  PyTypeObject *g = bfpy_pc_type(dim, -1, 0);
  if (g && gs >= 0 && gs < MAX_SPECS &&
      (PyObject_SetAttrString((PyObject *)g, "Iterator", (PyObject *)it_types[dim][gs][BFPY_ALLOC_DEFAULT][1]) < 0 ||
       PyObject_SetAttrString((PyObject *)g, "ConstIterator", (PyObject *)it_types[dim][gs][BFPY_ALLOC_DEFAULT][3]) <
           0))
    return -1;
  return 0;
}
