/* boxfab._core: MFIter (API.md 2.5), over the C core's bf_mfiter.
 *
 * Life of an iterator: MFIter(mf) keeps the Python FabArray alive and holds a
 * bf_mfiter (which holds the bf_multifab).  `for mfi in mf:` gets MFIter(mf)
 * from FabArrayBase.__iter__; __next__ returns self on its first call and
 * advances on the later ones; at the end it calls finalize() and raises
 * StopIteration.  finalize() drops the C iterator and the FabArray: every
 * later use (tilebox, index, _incr, array(mfi), ...) raises RuntimeError
 * instead of reading stale state; is_valid reads False, __next__ keeps
 * raising StopIteration (the iterator protocol) and finalize() is a no-op.
 * Leaving a loop early (break, exception) drops the iterator: its dealloc
 * releases everything.  An MFIter made before boxfab's finalize() raises
 * RuntimeError on use.
 *
 * Extension: MFIter(mf, tiling: bool, /) tiles with AMReX's default tile
 * size, as AMReX's C++ MFIter(fa, do_tiling) does. */
#include <string.h>

#include "mesh/multifab.h"
#include "boxfab/gpu.h"
#include <structmember.h>

#define IT(o) ((bfpy_mfiter_object *)(o))
#define NG_SENTINEL (-1000000)

/* The end of an MFIter loop synchronizes boxfab's stream (as AMReX's MFIter
 * destructor does): after the loop the host may read what the loop's kernels
 * wrote.  Without a GPU a no-op.  BF_SUCCESS or the error of a failed kernel. */
static int mfiter_sync_stream(void) { return bf_gpu_synchronize(); }

bfpy_mfiter_object *bfpy_mfiter_arg(PyObject *o, int dim, const char *what) {
  if (!bfpy_is(o, BFPY_T_MFITER, -1)) {
    PyErr_Format(PyExc_TypeError, "%s: expected an MFIter, not %.100s", what, Py_TYPE(o)->tp_name);
    return NULL;
  }
  if (IT(o)->dim != dim) {
    bfpy_dim_mismatch(what, dim, IT(o)->dim);
    return NULL;
  }
  return IT(o);
}

/* The iterator is usable (not finalized, runtime alive). */
static int it_alive(bfpy_mfiter_object *it, const char *func) {
  if (!it->it) {
    PyErr_Format(PyExc_RuntimeError,
                 "MFIter.%s: the iterator was finalized (its loop has ended); make a new MFIter", func);
    return -1;
  }
  return bfpy_check(bf_multifab_check(bf_mfiter_multifab(it->it)));
}

int bfpy_mfiter_current(bfpy_mfiter_object *it, const char *func) {
  if (it_alive(it, func) < 0) return -1;
  if (!bf_mfiter_is_valid(it->it)) {
    PyErr_Format(PyExc_RuntimeError, "%s: the MFIter is past its last tile (its loop has ended)", func);
    return -1;
  }
  return 0;
}

/* Ends the loop: synchronizes boxfab's stream, then frees the iterator.
 * Returns the status of the synchronization (a failed kernel), which callers
 * that can raise turn into an exception. */
static int it_finalize(bfpy_mfiter_object *it) {
  int st = it->it ? mfiter_sync_stream() : BF_SUCCESS;
  bf_mfiter_destroy(&it->it);
  Py_CLEAR(it->mf);
  return st;
}

/* ---- construction ------------------------------------------------------------------------------ */
static PyObject *it_make(PyTypeObject *type, PyObject *fa, bf_multifab *mf, int dim, bool tiling,
                         const bf_intvect *tsp);

static const char it_sigs[] = "MFIter(fa: FabArrayBase, /), MFIter(fa, info: MFItInfo, /), extension: "
                              "MFIter(fa, tiling: bool, /)";

static PyObject *it_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
  int dim = bfpy_type_dim(type, BFPY_T_MFITER);
  Py_ssize_t n = PyTuple_GET_SIZE(args);
  if ((kwds && PyDict_GET_SIZE(kwds)) || n < 1 || n > 2) {
    PyErr_Format(PyExc_TypeError, "MFIter(): incompatible arguments; supported signatures: %s", it_sigs);
    return NULL;
  }
  PyObject *fa = PyTuple_GET_ITEM(args, 0), *info = n > 1 ? PyTuple_GET_ITEM(args, 1) : NULL;
  bf_multifab *mf = bfpy_mf_arg(fa, dim, -1, "MFIter(fa)");
  if (!mf) return NULL;
  bool tiling = false;
  bf_intvect ts = bf_mfiter_default_tilesize(dim);
  const bf_intvect *tsp = NULL;
  if (info && PyBool_Check(info)) {
    tiling = info == Py_True;
  } else if (info) {
    if (!bfpy_is(info, BFPY_T_MFITINFO, dim)) {
      PyErr_Format(PyExc_TypeError, "MFIter(fa, info): info must be an MFItInfo of dimension %d, not %.100s", dim,
                   Py_TYPE(info)->tp_name);
      return NULL;
    }
    bfpy_mfitinfo_object *fi = (bfpy_mfitinfo_object *)info;
    tiling = fi->do_tiling;
    const bf_intvect *fts = &((bfpy_intvect_object *)fi->tilesize)->iv;
    bool zero = true;
    for (int d = 0; d < dim; ++d)
      if (fts->v[d] != 0) zero = false;
    if (tiling && !zero) {
      ts = *fts;
      ts.dim = dim;
      tsp = &ts;
    }
  }
  return it_make(type, fa, mf, dim, tiling, tsp);
}

/* fa.tiles(tile=None): MFIter(fa, TilingIfNotGPU(tile)) in one C call (pyAMReX 26, extensions/Tiling.py):
 * whole boxes without a tile size or on the GPU, else tiles of that size. */
PyObject *bfpy_mfiter_tiles(PyObject *fa, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"tile", NULL};
  PyObject *a[1];
  int dim = ((bfpy_multifab_object *)fa)->dim;
  if (bfpy_bind(args, nargs, kwnames, names, 0, a, true) < 0) return NULL;
  bf_multifab *mf = bfpy_mf_arg(fa, dim, -1, "tiles");
  if (!mf) return NULL;
  bf_intvect ts;
  const bool tiling = a[0] && a[0] != Py_None;
  if (tiling) {
    if (bfpy_as_intvect(a[0], dim, BFPY_IV_SEQUENCE, &ts, "tiles(tile)") < 0) return NULL;
    for (int d = 0; d < dim; ++d)
      if (ts.v[d] < 1) return PyErr_Format(PyExc_ValueError, "tiles(tile): tile sizes must be >= 1, got %d", ts.v[d]);
  }
  const bool tile_here = tiling && !bf_gpu_available(); /* TilingIfNotGPU */
  return it_make(bfpy_types[dim][BFPY_T_MFITER], fa, mf, dim, tile_here, tile_here ? &ts : NULL);
}

static PyObject *it_make(PyTypeObject *type, PyObject *fa, bf_multifab *mf, int dim, bool tiling,
                         const bf_intvect *tsp) {
  bf_mfiter *cit = NULL;
  if (bfpy_check(bf_mfiter_create(mf, tiling, tsp, &cit)) < 0) return NULL;
  bfpy_mfiter_object *self = (bfpy_mfiter_object *)type->tp_alloc(type, 0);
  if (!self) {
    bf_mfiter_destroy(&cit);
    return NULL;
  }
  self->dim = dim;
  self->it = cit;
  self->mf = Py_NewRef(fa);
  self->first_or_done = true;
  return (PyObject *)self;
}

static int it_traverse(PyObject *self, visitproc visit, void *arg) {
  Py_VISIT(Py_TYPE(self));
  Py_VISIT(IT(self)->mf);
  Py_VISIT(IT(self)->dict);
  return 0;
}

static int it_clear(PyObject *self) {
  Py_CLEAR(IT(self)->dict);
  return 0;
}

static void it_dealloc(PyObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  it_clear(self);
  if (it_finalize(IT(self)) != BF_SUCCESS) bf_error_clear(); /* nowhere to report it from a destructor */
  tp->tp_free(self);
  Py_DECREF(tp);
}

/* ---- iteration --------------------------------------------------------------------------------- */
static PyObject *it_next(PyObject *self) {
  bfpy_mfiter_object *it = IT(self);
  if (!it->it) return NULL; /* finalized: StopIteration (no exception set) */
  if (bfpy_check(bf_multifab_check(bf_mfiter_multifab(it->it))) < 0) return NULL;
  if (it->first_or_done) it->first_or_done = false;
  else bf_mfiter_next(it->it);
  if (!bf_mfiter_is_valid(it->it)) {
    it->first_or_done = true;
    if (bfpy_check(it_finalize(it)) < 0) return NULL; /* a kernel of the loop failed */
    return NULL;
  }
  return Py_NewRef(self);
}

static PyObject *it_incr(PyObject *self, PyObject *noargs) {
  (void)noargs;
  if (it_alive(IT(self), "_incr") < 0) return NULL;
  bf_mfiter_next(IT(self)->it);
  Py_RETURN_NONE;
}

static PyObject *it_finalize_m(PyObject *self, PyObject *noargs) {
  (void)noargs;
  if (bfpy_check(it_finalize(IT(self))) < 0) return NULL;
  Py_RETURN_NONE;
}

/* ---- properties -------------------------------------------------------------------------------- */
static PyObject *it_get_valid(PyObject *self, void *c) {
  (void)c;
  bfpy_mfiter_object *it = IT(self);
  if (!it->it) Py_RETURN_FALSE;
  if (bfpy_check(bf_multifab_check(bf_mfiter_multifab(it->it))) < 0) return NULL;
  return PyBool_FromLong(bf_mfiter_is_valid(it->it));
}

static PyObject *it_get_index(PyObject *self, void *c) {
  (void)c;
  if (bfpy_mfiter_current(IT(self), "index") < 0) return NULL;
  return PyLong_FromLongLong(bf_mfiter_index(IT(self)->it));
}

static PyObject *it_get_length(PyObject *self, void *c) {
  (void)c;
  if (it_alive(IT(self), "length") < 0) return NULL;
  return PyLong_FromLongLong(bf_mfiter_length(IT(self)->it));
}

static PyObject *it_get_first(PyObject *self, void *c) {
  (void)c;
  return PyBool_FromLong(IT(self)->first_or_done);
}

static int it_set_first(PyObject *self, PyObject *v, void *c) {
  (void)c;
  if (!v) {
    PyErr_SetString(PyExc_AttributeError, "first_or_done cannot be deleted");
    return -1;
  }
  int t = PyObject_IsTrue(v);
  if (t < 0) return -1;
  IT(self)->first_or_done = t;
  return 0;
}

/* ---- boxes ------------------------------------------------------------------------------------- */
static PyObject *box_or_raise(int status, const bf_box *b) {
  if (bfpy_check(status) < 0) return NULL;
  return bfpy_box_new(b);
}

static PyObject *it_tilebox(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"", "", NULL};
  PyObject *a[2];
  int dim = IT(self)->dim;
  if (bfpy_bind(args, nargs, kwnames, names, 0, a, false) != 0) {
    if (!PyErr_Occurred())
      bfpy_no_overload("tilebox", args, nargs, kwnames,
                       "tilebox(), tilebox(nodal: IntVect, /), tilebox(nodal: IntVect, ngrow: IntVect, /)");
    return NULL;
  }
  if (bfpy_mfiter_current(IT(self), "tilebox") < 0) return NULL;
  bf_box b;
  if (!a[0]) return box_or_raise(bf_mfiter_tilebox(IT(self)->it, &b), &b);
  bf_intvect nodal, ng;
  if (bfpy_as_intvect(a[0], dim, BFPY_IV_SEQUENCE, &nodal, "tilebox(nodal)") < 0) return NULL;
  if (a[1] && bfpy_as_intvect(a[1], dim, BFPY_IV_SEQUENCE | BFPY_IV_SCALAR, &ng, "tilebox(ngrow)") < 0) return NULL;
  unsigned mask = 0;
  for (int d = 0; d < dim; ++d)
    if (nodal.v[d]) mask |= 1u << d;
  return box_or_raise(bf_mfiter_tilebox_ext(IT(self)->it, mask, a[1] ? &ng : NULL, &b), &b);
}

static PyObject *it_validbox(PyObject *self, PyObject *noargs) {
  (void)noargs;
  bf_box b;
  if (bfpy_mfiter_current(IT(self), "validbox") < 0) return NULL;
  return box_or_raise(bf_mfiter_validbox(IT(self)->it, &b), &b);
}

static PyObject *it_fabbox(PyObject *self, PyObject *noargs) {
  (void)noargs;
  bf_box b;
  if (bfpy_mfiter_current(IT(self), "fabbox") < 0) return NULL;
  return box_or_raise(bf_mfiter_fabbox(IT(self)->it, &b), &b);
}

static int it_dir(PyObject *o, int dim, int *dir, const char *what) {
  if (bfpy_mf_int(o, -1, dir, what) < 0) return -1;
  if (*dir < -1 || *dir >= dim) {
    PyErr_Format(PyExc_IndexError, "%s: direction %d out of range (-1 for all, or [0, %d))", what, *dir, dim);
    return -1;
  }
  return 0;
}

/* ng: NULL or the sentinel -> NULL (the FabArray's ghost cells). */
static int it_ng(PyObject *o, int dim, bf_intvect *ng, const bf_intvect **out, const char *what) {
  *out = NULL;
  if (!o) return 0;
  if (bfpy_as_intvect(o, dim, BFPY_IV_SEQUENCE | BFPY_IV_SCALAR, ng, what) < 0) return -1;
  bool sentinel = true;
  for (int d = 0; d < dim; ++d)
    if (ng->v[d] != NG_SENTINEL) sentinel = false;
  if (!sentinel) *out = ng;
  return 0;
}

static PyObject *it_nodaltilebox(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"dir", NULL};
  PyObject *a[1];
  int dir;
  bf_box b;
  if (bfpy_bind(args, nargs, kwnames, names, 0, a, true) < 0 ||
      it_dir(a[0], IT(self)->dim, &dir, "nodaltilebox(dir)") < 0 || bfpy_mfiter_current(IT(self), "nodaltilebox") < 0)
    return NULL;
  return box_or_raise(bf_mfiter_nodaltilebox(IT(self)->it, dir, &b), &b);
}

static PyObject *it_growntilebox(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"ng", NULL};
  PyObject *a[1];
  bf_intvect ng;
  const bf_intvect *ngp;
  bf_box b;
  if (bfpy_bind(args, nargs, kwnames, names, 0, a, true) < 0 ||
      it_ng(a[0], IT(self)->dim, &ng, &ngp, "growntilebox(ng)") < 0 ||
      bfpy_mfiter_current(IT(self), "growntilebox") < 0)
    return NULL;
  return box_or_raise(bf_mfiter_growntilebox(IT(self)->it, ngp, &b), &b);
}

static PyObject *it_grownnodaltilebox(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"int", "ng", NULL};
  PyObject *a[2];
  int dir;
  bf_intvect ng;
  const bf_intvect *ngp;
  bf_box b;
  if (bfpy_bind(args, nargs, kwnames, names, 0, a, true) < 0 ||
      it_dir(a[0], IT(self)->dim, &dir, "grownnodaltilebox(int)") < 0 ||
      it_ng(a[1], IT(self)->dim, &ng, &ngp, "grownnodaltilebox(ng)") < 0 ||
      bfpy_mfiter_current(IT(self), "grownnodaltilebox") < 0)
    return NULL;
  return box_or_raise(bf_mfiter_grownnodaltilebox(IT(self)->it, dir, ngp, &b), &b);
}

static PyObject *it_repr(PyObject *self) {
  bfpy_mfiter_object *it = IT(self);
  if (!it->it) return PyUnicode_FromFormat("<MFIter%dD (finalized)>", it->dim);
  return PyUnicode_FromFormat("<MFIter%dD: tile %lld of %lld>", it->dim, (long long)bf_mfiter_position(it->it),
                              (long long)bf_mfiter_length(it->it));
}

#define FASTKW(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

static PyMethodDef it_methods[] = {
    {"_incr", it_incr, METH_NOARGS, "_incr() -> None: advance one tile."},
    {"finalize", it_finalize_m, METH_NOARGS,
     "finalize() -> None: end the iteration (synchronizes boxfab's stream; releases the FabArray). Later uses "
     "raise RuntimeError."},
    {"tilebox", FASTKW(it_tilebox),
     "tilebox() / tilebox(nodal: IntVect, /) / tilebox(nodal: IntVect, ngrow: IntVect, /) -> Box: the current "
     "tile, optionally made nodal (directions where nodal != 0) and grown."},
    {"validbox", it_validbox, METH_NOARGS, "validbox() -> Box: the whole valid box of the current FAB."},
    {"fabbox", it_fabbox, METH_NOARGS, "fabbox() -> Box: the valid box grown by the ghost cells."},
    {"nodaltilebox", FASTKW(it_nodaltilebox),
     "nodaltilebox(dir: int = -1) -> Box: the tile made nodal in dir (-1: all directions)."},
    {"growntilebox", FASTKW(it_growntilebox),
     "growntilebox(ng: IntVect = -1000000) -> Box: the tile grown by ng where it touches its valid box's "
     "boundary; the default means the FabArray's ghost cells."},
    {"grownnodaltilebox", FASTKW(it_grownnodaltilebox),
     "grownnodaltilebox(int: int = -1, ng: int/IntVect = -1000000) -> Box: nodal in direction `int` (-1: all) "
     "and grown."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef it_getset[] = {
    {"is_valid", it_get_valid, NULL, "Still on a tile (False after the loop).", NULL},
    {"index", it_get_index, NULL, "Global box index of the current tile.", NULL},
    {"length", it_get_length, NULL, "Number of tiles this iterator visits.", NULL},
    {"first_or_done", it_get_first, it_set_first,
     "True before the first __next__ and after the end (read by __next__).", NULL},
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, "Dynamic attributes.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMemberDef it_members[] = {
    {"__dictoffset__", T_PYSSIZET, offsetof(bfpy_mfiter_object, dict), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot it_slots[] = {
    {Py_tp_doc, "MFIter(fa, /) / MFIter(fa, info: MFItInfo, /): iterator over the local tiles of a FabArray; "
                "`for mfi in mf:` makes one. Keeps fa alive; supports dynamic attributes."},
    {Py_tp_new, it_new},
    {Py_tp_dealloc, it_dealloc},
    {Py_tp_traverse, it_traverse},
    {Py_tp_clear, it_clear},
    {Py_tp_iter, PyObject_SelfIter},
    {Py_tp_iternext, it_next},
    {Py_tp_repr, it_repr},
    {Py_tp_methods, it_methods},
    {Py_tp_getset, it_getset},
    {Py_tp_members, it_members},
    {0, NULL},
};

static PyType_Spec it_spec = {.name = "MFIter", .basicsize = sizeof(bfpy_mfiter_object),
                              .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
                              .slots = it_slots};

int bfpy_init_mfiter(PyObject *m, int dim) {
  return bfpy_make_type(m, dim, BFPY_T_MFITER, "MFIter", &it_spec, NULL) ? 0 : -1;
}
