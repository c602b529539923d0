/* boxfab._core: family "multifab": FabArrayBase, FabArray_FArrayBox, MultiFab,
 * iMultiFab (API.md 2.6-2.8), the module functions copy_mfab, dtoh_memcpy,
 * htod_memcpy (2.9); MFIter lives in mesh/mfiter.c, the operations in
 * bfpy_multifab_{ops,reduce,comm}.c.  Everything is computed by the C core
 * (include/boxfab/multifab.h); this file converts arguments and results.
 *
 * Object: bfpy_multifab_object (bfpy.h) holds one reference to a bf_multifab
 * (NULL: undefined, as made by MultiFab() / MultiFab(arena)) and the Arena
 * object it was made with.  Views (array(mfi), and everything exported from
 * them) hold a _BufferOwner of the MultiFab's buffer, so clear() and del
 * never free memory a view reads.  Every use of a MultiFab made before
 * boxfab's finalize() raises RuntimeError (the C core's runtime check).
 *
 * iMultiFab (int data, beside pyAMReX's names): constructors as MultiFab's
 * (no factory), __iter__, box_array, dm, n_comp, n_grow_vect, clear, ok,
 * arena, array/const_array (Array4_int), copy, set_val, abs, plus, minus,
 * mult, divi, negate, min, max, minIndex, maxIndex, sum, sum_unique, norm0,
 * norminf, norm1, fill_boundary, sum_boundary, override_sync, parallel_copy,
 * parallel_add and the statics add, subtract, multiply, divide, swap.
 * Reductions return Python ints.  Not on iMultiFab (no meaning for ints or
 * not in AMReX's iMultiFab): invert, norm2, dot, saxpy, xpay, lin_comb,
 * add_product, contains_nan/inf, average_sync, weighted_sync, factory. */
#include <limits.h>
#include <string.h>

#include "mesh/multifab.h"
#include "boxfab/gpu.h"
#include <structmember.h>

/* ==== shared helpers ========================================================================== */

static bool is_np_bool(PyObject *o) {
  const char *n = Py_TYPE(o)->tp_name;
  return strcmp(n, "numpy.bool_") == 0 || strcmp(n, "numpy.bool") == 0;
}

static bool is_mf_family(PyObject *o) {
  return bfpy_is(o, BFPY_T_MULTIFAB, -1) || bfpy_is(o, BFPY_T_IMULTIFAB, -1) || bfpy_is(o, BFPY_T_FABARRAYBASE, -1);
}

/* 1 when o fits the type code, 0 when not, -1 with an exception. */
static int type_ok(char code, PyObject *o) {
  int kind;
  switch (code) {
  case 'f': return !bfpy_is_text(o) && (PyFloat_Check(o) || bfpy_is_intlike(o) ||
                                           (Py_TYPE(o)->tp_as_number && Py_TYPE(o)->tp_as_number->nb_float));
  case 'i': /* an int, not a 1-d array (which has __index__ too but is a Vector_int or an IntVect) */
    kind = bfpy_arg_kind(o, false);
    return kind < 0 ? -1 : kind == BFPY_ARG_SCALAR;
  case 'g': /* an int, an IntVect or a sequence of ints */
    kind = bfpy_arg_kind(o, false);
    return kind < 0 ? -1 : kind != BFPY_ARG_OTHER;
  case 'b': return bfpy_is(o, BFPY_T_BOX, -1);
  case 'm': return is_mf_family(o);
  case 'B': return PyBool_Check(o) || is_np_bool(o);
  case 'p': return bfpy_is(o, BFPY_T_PERIODICITY, -1);
  case 'v':
    kind = bfpy_arg_kind(o, false);
    return kind < 0 ? -1 : kind != BFPY_ARG_SCALAR && !bfpy_is_text(o) &&
           (PySequence_Check(o) || Py_TYPE(o)->tp_iter != NULL);
  default: return true;
  }
}

int bfpy_mf_match(const char *func, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                  const bfpy_mf_sig *sigs, int n, PyObject **out, const char *sigtext) {
  for (int s = 0; s < n; ++s) {
    int r = bfpy_bind(args, nargs, kwnames, sigs[s].names, sigs[s].nrequired, out, false);
    if (r < 0) return -1;
    if (r > 0) continue;
    int ok = 1;
    for (int i = 0; sigs[s].names[i] && ok > 0; ++i)
      if (out[i]) ok = type_ok(sigs[s].types[i], out[i]);
    if (ok < 0) return -1;
    if (ok) return s;
  }
  bfpy_no_overload(func, args, nargs, kwnames, sigtext);
  return -1;
}

bf_multifab *bfpy_mf_self(PyObject *self, const char *func) {
  bf_multifab *mf = MFO(self)->mf;
  if (!mf) {
    PyErr_Format(PyExc_RuntimeError, "%s: the %s is undefined (made by its default constructor)", func,
                 Py_TYPE(self)->tp_name);
    return NULL;
  }
  if (bfpy_check(bf_multifab_check(mf)) < 0) return NULL;
  return mf;
}

bf_multifab *bfpy_mf_arg(PyObject *o, int dim, int dtype, const char *what) {
  int want = dtype == BF_DTYPE_INT ? BFPY_T_IMULTIFAB : dtype == BF_DTYPE_DOUBLE ? BFPY_T_MULTIFAB : -1;
  bool ok = want >= 0 ? bfpy_is(o, want, -1) : is_mf_family(o);
  if (!ok) {
    PyErr_Format(PyExc_TypeError, "%s must be a%s %s, not %.100s", what, want == BFPY_T_IMULTIFAB ? "n" : "",
                 want >= 0 ? bfpy_type_name(want, dim) : "MultiFab or iMultiFab", Py_TYPE(o)->tp_name);
    return NULL;
  }
  if (MFO(o)->dim != dim) {
    bfpy_dim_mismatch(what, dim, MFO(o)->dim);
    return NULL;
  }
  return bfpy_mf_self(o, what);
}

int bfpy_mf_type_info(PyObject *type, int *dim, int *dtype) {
  PyTypeObject *t = (PyTypeObject *)type;
  *dim = bfpy_type_dim(t, BFPY_T_FABARRAYBASE);
  *dtype = bfpy_type_dim(t, BFPY_T_IMULTIFAB) ? BF_DTYPE_INT : BF_DTYPE_DOUBLE;
  return *dim ? 0 : -1;
}

int bfpy_mf_int(PyObject *o, int def, int *out, const char *what) {
  if (!o) {
    *out = def;
    return 0;
  }
  return bfpy_to_int(o, out, what);
}

int bfpy_mf_bool(PyObject *o, bool def, bool *out, const char *what) {
  (void)what;
  if (!o) {
    *out = def;
    return 0;
  }
  int t = PyObject_IsTrue(o);
  if (t < 0) return -1;
  *out = t;
  return 0;
}

int bfpy_mf_double(PyObject *o, double def, double *out, const char *what) {
  if (!o) {
    *out = def;
    return 0;
  }
  return bfpy_to_double(o, out, what);
}

int bfpy_mf_ng(PyObject *o, int dim, bf_intvect def, bf_intvect *out, const char *what) {
  if (!o) {
    *out = def;
    return 0;
  }
  return bfpy_as_intvect(o, dim, BFPY_IV_SCALAR | BFPY_IV_SEQUENCE, out, what);
}

int bfpy_mf_period(PyObject *o, int dim, bf_periodicity *per, bool *has, const char *what) {
  *has = false;
  if (!o) return 0;
  if (bfpy_as_periodicity(o, dim, per, what) < 0) return -1;
  for (int d = 0; d < dim; ++d)
    if (per->period[d] > 0) *has = true;
  return 0;
}

int bfpy_mf_ncomp(PyObject *o, const bf_multifab *mf, int comp, int *out, const char *what) {
  if (!o) {
    long long n = (long long)bf_multifab_ncomp(mf) - comp; /* comp may be INT_MIN: no int arithmetic */
    *out = n < 1 || n > INT_MAX ? 1 : (int)n;               /* an out-of-range comp is reported by the C core */
    return 0;
  }
  return bfpy_to_int(o, out, what);
}

PyObject *bfpy_mf_value(const bf_multifab *mf, double v) {
  if (bf_multifab_dtype(mf) == BF_DTYPE_INT) return PyLong_FromDouble(v);
  return PyFloat_FromDouble(v);
}


/* ==== object life ============================================================================= */

static PyObject *fa_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
  (void)args, (void)kwds;
  int dim = bfpy_type_dim(type, BFPY_T_FABARRAYBASE);
  if (!dim || !(bfpy_type_dim(type, BFPY_T_MULTIFAB) || bfpy_type_dim(type, BFPY_T_IMULTIFAB))) {
    PyErr_Format(PyExc_TypeError, "%s: No constructor defined! (make a MultiFab or an iMultiFab)", type->tp_name);
    return NULL;
  }
  PyObject *self = type->tp_alloc(type, 0);
  if (self) MFO(self)->dim = dim;
  return self;
}

static void fa_dealloc(PyObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  if (MFO(self)->weakreflist) PyObject_ClearWeakRefs(self);
  bf_multifab_destroy(&MFO(self)->mf);
  Py_CLEAR(MFO(self)->arena);
  tp->tp_free(self);
  Py_DECREF(tp);
}

/* A new Python object of type `type` owning `mf` (stolen) and arena (new ref). */
static PyObject *fa_wrap(PyTypeObject *type, int dim, bf_multifab *mf, PyObject *arena) {
  PyObject *o = type->tp_alloc(type, 0);
  if (!o) {
    bf_multifab_destroy(&mf);
    return NULL;
  }
  MFO(o)->dim = dim;
  MFO(o)->mf = mf;
  MFO(o)->arena = Py_XNewRef(arena);
  return o;
}

static const char mf_init_sigtext[] =
    "(), (a: Arena), (bxs: BoxArray, dm: DistributionMapping, ncomp: int, ngrow: int/IntVect), "
    "(bxs, dm, ncomp, ngrow, info: MFInfo), (bxs, dm, ncomp, ngrow, info: MFInfo, factory: FabFactory_FArrayBox)";

static int mf_init_fast(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  int dim = MFO(self)->dim;
  int dtype = bfpy_type_dim(Py_TYPE(self), BFPY_T_IMULTIFAB) ? BF_DTYPE_INT : BF_DTYPE_DOUBLE;
  const char *func = dtype == BF_DTYPE_INT ? "iMultiFab" : "MultiFab";
  static const char *const n_arena[] = {"a", NULL};
  static const char *const n_full[] = {"bxs", "dm", "ncomp", "ngrow", "info", "factory", NULL};
  PyObject *a[6];
  PyObject *arena_obj = NULL;
  bf_multifab *mf = NULL;
  if (nargs == 0 && (!kwnames || PyTuple_GET_SIZE(kwnames) == 0)) goto set;
  if (bfpy_bind(args, nargs, kwnames, n_arena, 1, a, false) == 0 && bfpy_is(a[0], BFPY_T_ARENA, -1)) {
    if (!bfpy_is(a[0], BFPY_T_ARENA, dim)) {
      bfpy_dim_mismatch(func, dim, ((bfpy_arena_object *)a[0])->dim);
      return -1;
    }
    arena_obj = a[0];
    goto set;
  }
  if (bfpy_bind(args, nargs, kwnames, n_full, 4, a, false) != 0 || !bfpy_is(a[0], BFPY_T_BOXARRAY, -1)) {
    if (PyErr_Occurred()) return -1;
    bfpy_no_overload(func, args, nargs, kwnames, mf_init_sigtext);
    return -1;
  }
  bf_boxarray *ba = bfpy_as_boxarray(a[0], dim, "MultiFab(bxs)");
  bf_distmap *dm = NULL;
  int ncomp;
  bf_intvect ngrow;
  if (!ba || bfpy_as_distmap(a[1], dim, &dm, "MultiFab(dm)") < 0 ||
      bfpy_to_int(a[2], &ncomp, "MultiFab(ncomp)") < 0 ||
      bfpy_mf_ng(a[3], dim, bf_intvect_splat(dim, 0), &ngrow, "MultiFab(ngrow)") < 0)
    return -1;
  if (!dm) {
    PyErr_SetString(PyExc_ValueError, "MultiFab(dm): the DistributionMapping is empty (not defined)");
    return -1;
  }
  bool alloc = true;
  bf_arena *arena = NULL;
  if (a[4] && a[4] != Py_None) {
    if (!bfpy_is(a[4], BFPY_T_MFINFO, dim)) {
      PyErr_Format(PyExc_TypeError, "%s(info) must be an MFInfo of dimension %d, not %.100s", func, dim,
                   Py_TYPE(a[4])->tp_name);
      return -1;
    }
    bfpy_mfinfo_object *info = (bfpy_mfinfo_object *)a[4];
    alloc = info->alloc;
    if (info->arena && info->arena != Py_None) {
      if (bfpy_as_arena(info->arena, dim, &arena, "MFInfo.arena") < 0) return -1;
      arena_obj = info->arena;
    }
  }
  if (a[5] && a[5] != Py_None) {
    if (dtype != BF_DTYPE_DOUBLE || !bfpy_is(a[5], BFPY_T_FABFACTORY, dim)) {
      PyErr_Format(PyExc_TypeError, "%s(factory) must be a FabFactory_FArrayBox of dimension %d, not %.100s", func,
                   dim, Py_TYPE(a[5])->tp_name);
      return -1;
    }
  }
  if (bfpy_check(bf_multifab_create(ba, dm, ncomp, ngrow, dtype, arena, alloc, &mf)) < 0) return -1;
set:
  bf_multifab_destroy(&MFO(self)->mf);
  MFO(self)->mf = mf;
  Py_XSETREF(MFO(self)->arena, Py_XNewRef(arena_obj));
  return 0;
}

static int mf_init(PyObject *self, PyObject *args, PyObject *kwds) {
  return bfpy_init_vectorcall(self, args, kwds, mf_init_fast);
}

static PyObject *fa_repr(PyObject *self) {
  bf_multifab *mf = MFO(self)->mf;
  const char *name = Py_TYPE(self)->tp_name;
  const char *dot = strrchr(name, '.');
  if (dot) name = dot + 1;
  if (!mf) return PyUnicode_FromFormat("<%s%dD (undefined)>", name, MFO(self)->dim);
  if (bf_multifab_check(mf) != BF_SUCCESS) {
    bf_error_clear();
    return PyUnicode_FromFormat("<%s%dD (made before finalize())>", name, MFO(self)->dim);
  }
  bf_intvect ng = bf_multifab_ngrow(mf);
  char g[64];
  int at = 0;
  for (int d = 0; d < ng.dim; ++d) at += snprintf(g + at, sizeof g - (size_t)at, d ? ",%d" : "%d", ng.v[d]);
  /* on several ranks: how many of the (global) boxes this rank holds */
  char loc[64] = "";
  if (bf_parallel_nprocs() > 1)
    snprintf(loc, sizeof loc, " (%lld on rank %d)", (long long)bf_multifab_nlocal(mf), bf_parallel_myproc());
  return PyUnicode_FromFormat("<%s%dD: %lld boxes%s, %d components, %s ghost cells (%s)%s>", name, MFO(self)->dim,
                              (long long)bf_multifab_size(mf), loc, bf_multifab_ncomp(mf), g,
                              bf_multifab_is_all_cell_centered(mf) ? "cell-centered" : "nodal in some direction",
                              bf_multifab_is_allocated(mf) ? "" : ", no data");
}

/* ==== FabArrayBase ============================================================================= */

/* The MultiFab of a property getter: undefined ones read as empty (NULL
 * without an exception); a finalized one raises. */
static int fa_prop(PyObject *self, bf_multifab **mf) {
  *mf = MFO(self)->mf;
  if (*mf && bfpy_check(bf_multifab_check(*mf)) < 0) return -1;
  return 0;
}

static PyObject *fa_iter(PyObject *self) {
  PyTypeObject *t = bfpy_types[MFO(self)->dim][BFPY_T_MFITER];
  return PyObject_CallOneArg((PyObject *)t, self);
}

static PyObject *fa_get_cc(PyObject *self, void *c) {
  (void)c;
  bf_multifab *mf;
  if (fa_prop(self, &mf) < 0) return NULL;
  return PyBool_FromLong(!mf || bf_multifab_is_all_cell_centered(mf));
}
static PyObject *fa_get_nodal(PyObject *self, void *c) {
  (void)c;
  bf_multifab *mf;
  if (fa_prop(self, &mf) < 0) return NULL;
  return PyBool_FromLong(mf && bf_multifab_is_all_nodal(mf));
}
static PyObject *fa_get_ncomp(PyObject *self, void *c) {
  (void)c;
  bf_multifab *mf;
  if (fa_prop(self, &mf) < 0) return NULL;
  return PyLong_FromLong(mf ? bf_multifab_ncomp(mf) : 0);
}
static PyObject *fa_get_size(PyObject *self, void *c) {
  (void)c;
  bf_multifab *mf;
  if (fa_prop(self, &mf) < 0) return NULL;
  return PyLong_FromLongLong(mf ? bf_multifab_size(mf) : 0);
}
/* ix_type: the index type as an IntVect (C++ mf.ixType().toIntVect()), for mfi.tilebox(mf.ix_type) */
static PyObject *fa_get_ix_type(PyObject *self, void *c) {
  (void)c;
  bf_multifab *mf;
  if (fa_prop(self, &mf) < 0) return NULL;
  bf_intvect iv = bf_indextype_to_intvect(MFO(self)->dim, mf ? bf_multifab_ixtype(mf) : 0u);
  return bfpy_intvect_new(&iv);
}
/* len(mf): the number of FABs (global), as FabArrayBase::size */
static Py_ssize_t fa_len(PyObject *self) {
  bf_multifab *mf;
  if (fa_prop(self, &mf) < 0) return -1;
  return mf ? (Py_ssize_t)bf_multifab_size(mf) : 0;
}
static PyObject *fa_get_ngrow(PyObject *self, void *c) {
  (void)c;
  bf_multifab *mf;
  if (fa_prop(self, &mf) < 0) return NULL;
  bf_intvect ng = mf ? bf_multifab_ngrow(mf) : bf_intvect_splat(MFO(self)->dim, 0);
  return bfpy_intvect_new(&ng);
}

static PyObject *fa_is_nodal(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"", NULL};
  PyObject *a[1];
  int dir;
  bf_multifab *mf;
  if (bfpy_bind(args, nargs, kwnames, names, 1, a, true) < 0 || bfpy_to_int(a[0], &dir, "is_nodal(dir)") < 0 ||
      fa_prop(self, &mf) < 0)
    return NULL;
  if (dir < 0 || dir >= MFO(self)->dim) {
    PyErr_Format(PyExc_IndexError, "is_nodal(dir): dir %d out of range [0, %d)", dir, MFO(self)->dim);
    return NULL;
  }
  return PyBool_FromLong(mf && bf_multifab_is_nodal(mf, dir));
}

static PyGetSetDef fab_getset[] = {
    {"is_all_cell_centered", fa_get_cc, NULL, "True when the data are cell-centered in every direction.", NULL},
    {"is_all_nodal", fa_get_nodal, NULL, "True when the data are nodal in every direction.", NULL},
    {"nComp", fa_get_ncomp, NULL, "Number of components.", NULL},
    {"num_comp", fa_get_ncomp, NULL, "Number of components.", NULL},
    {"size", fa_get_size, NULL, "Number of FABs (boxes of the BoxArray, global).", NULL},
    {"n_grow_vect", fa_get_ngrow, NULL, "Ghost cells per direction (IntVect).", NULL},
    {"ix_type", fa_get_ix_type, NULL, "Index type as an IntVect (0 cell, 1 node per direction).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef fab_methods[] = {
    {"tiles", (PyCFunction)(void (*)(void))bfpy_mfiter_tiles, METH_FASTCALL | METH_KEYWORDS,
     "tiles(tile=None) -> MFIter: the local boxes, split into tiles of size tile on the CPU (pyAMReX 26; "
     "TilingIfNotGPU): for mfi in mf.tiles(tile=(16, 16, 16))."},
    {"is_nodal", (PyCFunction)(void (*)(void))fa_is_nodal, METH_FASTCALL | METH_KEYWORDS,
     "is_nodal(dir: int, /) -> bool: nodal in direction dir (IndexError outside [0, dim))."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef fa_members[] = {
    {"__weaklistoffset__", T_PYSSIZET, offsetof(bfpy_multifab_object, weakreflist), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

/* ==== FabArray_FArrayBox (and iMultiFab): data access ========================================== */

static PyObject *fa_clear(PyObject *self, PyObject *noargs) {
  (void)noargs;
  bf_multifab *mf = MFO(self)->mf;
  if (mf && bfpy_check(bf_multifab_clear(mf)) < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject *fa_ok(PyObject *self, PyObject *noargs) {
  (void)noargs;
  bf_multifab *mf;
  if (fa_prop(self, &mf) < 0) return NULL;
  return PyBool_FromLong(mf && bf_multifab_ok(mf));
}

/* _communicator() -> mpi4py communicator of the MultiFab's runtime instance, or
 * None when it has one rank (the global indexing's collective reads). */
static PyObject *fa_communicator(PyObject *self, PyObject *noargs) {
  (void)noargs;
  bf_multifab *mf;
  if (fa_prop(self, &mf) < 0) return NULL;
  if (!mf) Py_RETURN_NONE;
  int nprocs = 1;
  int64_t h = 0;
  if (bfpy_check(bf_multifab_communicator(mf, &nprocs, NULL)) < 0) return NULL;
  if (nprocs <= 1) Py_RETURN_NONE;
  if (bfpy_check(bf_multifab_communicator(mf, &nprocs, &h)) < 0) return NULL;
  return bfpy_mpi4py_comm(h);
}

static PyObject *fa_get_arena(PyObject *self, void *c) {
  (void)c;
  bf_multifab *mf;
  if (fa_prop(self, &mf) < 0) return NULL;
  if (MFO(self)->arena) return Py_NewRef(MFO(self)->arena);
  return bfpy_arena_new(MFO(self)->dim, mf ? bf_multifab_arena(mf) : bf_arena_get(BF_ARENA_DEFAULT));
}

static PyObject *fa_get_factory(PyObject *self, void *c) {
  (void)c;
  bf_multifab *mf;
  if (fa_prop(self, &mf) < 0) return NULL;
  PyTypeObject *t = bfpy_types[MFO(self)->dim][BFPY_T_FABFACTORY];
  PyObject *f = t->tp_alloc(t, 0);
  if (f) ((bfpy_fabfactory_object *)f)->dim = MFO(self)->dim;
  return f;
}

static PyObject *fa_get_has_eb(PyObject *self, void *c) {
  (void)c;
  bf_multifab *mf;
  if (fa_prop(self, &mf) < 0) return NULL;
  Py_RETURN_FALSE;
}

/* array(mfi) / const_array(mfi): the fab (valid + ghost cells) at the iterator's box. */
static PyObject *fa_array_impl(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                               bool is_const) {
  const char *func = is_const ? "const_array" : "array";
  if (nargs != 1 || (kwnames && PyTuple_GET_SIZE(kwnames))) {
    static const char *const names[] = {"", NULL};
    PyObject *a[1];
    if (bfpy_bind(args, nargs, kwnames, names, 1, a, true) < 0) return NULL;
  }
  bf_multifab *mf = bfpy_mf_self(self, func);
  if (!mf) return NULL;
  int dim = MFO(self)->dim;
  bfpy_mfiter_object *it = bfpy_mfiter_arg(args[0], dim, func);
  if (!it || bfpy_mfiter_current(it, func) < 0) return NULL;
  bf_multifab *itmf = bf_mfiter_multifab(it->it);
  int64_t li;
  if (itmf == mf) {
    li = bf_mfiter_local_index(it->it);
  } else {
    int64_t index = bf_mfiter_index(it->it);
    li = bf_multifab_local_index(mf, index);
    bf_box vb;
    if (li < 0 || bf_mfiter_validbox(it->it, &vb) != BF_SUCCESS) {
      bf_error_clear();
      const bf_distmap *dm = bf_multifab_distmap(mf);
      if (index >= 0 && index < bf_distmap_size(dm))
        PyErr_Format(PyExc_ValueError,
                     "%s(mfi): box %lld of the iterator is not a local box of this %s: its data live on rank %d "
                     "(this is rank %d)",
                     func, (long long)index, bfpy_type_name(BFPY_T_MULTIFAB, dim), bf_distmap_data(dm)[index],
                     bf_parallel_myproc());
      else
        PyErr_Format(PyExc_ValueError, "%s(mfi): box %lld of the iterator is not a box of this %s", func,
                     (long long)index, bfpy_type_name(BFPY_T_MULTIFAB, dim));
      return NULL;
    }
    bf_mf_fab f;
    if (bfpy_check(bf_multifab_local_fab(mf, li, &f)) < 0) return NULL;
    if (!bf_box_equal(&f.validbox, &vb)) {
      PyErr_Format(PyExc_ValueError,
                   "%s(mfi): the iterator runs over a different BoxArray (box %lld differs from this one's)", func,
                   (long long)index);
      return NULL;
    }
  }
  bf_mf_fab f;
  bf_buffer *buf = NULL;
  if (bfpy_check(bf_multifab_local_fab(mf, li, &f)) < 0 || bfpy_check(bf_multifab_buffer(mf, &buf)) < 0)
    return NULL;
  if (!buf) {
    PyErr_Format(PyExc_RuntimeError, "%s(mfi): the MultiFab holds no data (made with alloc=False, or cleared)",
                 func);
    return NULL;
  }
  bf_array4 a;
  a.p = f.data;
  a.dtype = bf_multifab_dtype(mf);
  a.ncomp = bf_multifab_ncomp(mf);
  for (int d = 0; d < 3; ++d) {
    a.begin[d] = d < dim ? f.fabbox.lo[d] : 0;
    a.end[d] = d < dim ? (int64_t)f.fabbox.hi[d] + 1 : 1;
  }
  a.istride = 1;
  a.jstride = f.stride[0];
  a.kstride = f.stride[1];
  a.nstride = f.stride[2];
  PyObject *owner = bfpy_buffer_owner_new(buf);
  if (!owner) return NULL;
  PyObject *r = bfpy_array4_new(dim, &a, is_const, owner, bfpy_memory_of_arena(bf_multifab_arena(mf)));
  Py_DECREF(owner);
  return r;
}

static PyObject *fa_array(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return fa_array_impl(self, args, nargs, kwnames, false);
}
static PyObject *fa_const_array(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return fa_array_impl(self, args, nargs, kwnames, true);
}

#define FASTKW(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

static PyMethodDef fabarray_methods[] = {
    {"clear", fa_clear, METH_NOARGS, "clear() -> None: free all data (views keep the memory they view alive)."},
    {"ok", fa_ok, METH_NOARGS, "ok() -> bool: defined, holding data, and made under the live runtime."},
    {"_communicator", fa_communicator, METH_NOARGS,
     "_communicator() -> mpi4py.MPI.Comm | None: the communicator of the MultiFab's runtime instance (None with one "
     "rank); used by global indexing."},
    {"array", FASTKW(fa_array),
     "array(mfi: MFIter, /) -> Array4: view of the FAB (valid + ghost cells, absolute indices) at the iterator's "
     "box; keeps the memory alive."},
    {"const_array", FASTKW(fa_const_array), "const_array(mfi: MFIter, /) -> Array4 _const: read-only view."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef fabarray_getset[] = {
    {"arena", fa_get_arena, NULL, "Arena used for allocation.", NULL},
    {"factory", fa_get_factory, NULL, "The FabFactory_FArrayBox (opaque).", NULL},
    {"has_EB_fab_factory", fa_get_has_eb, NULL, "False: no embedded boundaries.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* ==== MultiFab / iMultiFab own members ========================================================= */

static PyObject *mf_box_array(PyObject *self, PyObject *noargs) {
  (void)noargs;
  bf_multifab *mf;
  if (fa_prop(self, &mf) < 0) return NULL;
  bf_boxarray *ba = NULL;
  if (mf) ba = bf_boxarray_retain(bf_multifab_boxarray(mf));
  else if (bfpy_check(bf_boxarray_create(MFO(self)->dim, &ba)) < 0) return NULL;
  return bfpy_boxarray_new(ba);
}

static PyObject *mf_dm(PyObject *self, PyObject *noargs) {
  (void)noargs;
  bf_multifab *mf;
  if (fa_prop(self, &mf) < 0) return NULL;
  return bfpy_distmap_new(MFO(self)->dim, mf ? bf_distmap_retain(bf_multifab_distmap(mf)) : NULL);
}

static PyObject *mf_copy(PyObject *self, PyObject *noargs) {
  (void)noargs;
  bf_multifab *mf = bfpy_mf_self(self, "copy"), *out = NULL;
  if (!mf || bfpy_check(bf_multifab_clone(mf, &out)) < 0) return NULL;
  return fa_wrap(Py_TYPE(self), MFO(self)->dim, out, MFO(self)->arena);
}

static PyObject *mf_noop(PyObject *cls, PyObject *noargs) {
  (void)cls, (void)noargs;
  Py_RETURN_NONE;
}

static PyMethodDef mf_methods[] = {
    {"box_array", mf_box_array, METH_NOARGS, "box_array() -> BoxArray."},
    {"dm", mf_dm, METH_NOARGS, "dm() -> DistributionMapping."},
    {"copy", mf_copy, METH_NOARGS,
     "copy() -> a new MultiFab with the same BoxArray, DistributionMapping, n_comp, n_grow_vect and arena, "
     "holding a copy of all data (ghost cells included)."},
    {"initialize", mf_noop, METH_NOARGS | METH_STATIC, "initialize() -> None: class-level setup (nothing to do)."},
    {"finalize", mf_noop, METH_NOARGS | METH_STATIC, "finalize() -> None: class-level teardown (nothing to do)."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef mf_getset[] = {
    {"n_comp", fa_get_ncomp, NULL, "Number of components.", NULL},
    {"n_grow_vect", fa_get_ngrow, NULL, "Ghost cells per direction (IntVect).", NULL},
    {"ix_type", fa_get_ix_type, NULL, "Index type as an IntVect (0 cell, 1 node per direction).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* ==== module functions ========================================================================= */

static PyObject *copy_mfab(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"dst", "src", "srccomp", "dstcomp", "numcomp", "nghost", NULL};
  int dim = bfpy_module_dim(m);
  PyObject *a[6];
  int sc, dc, nc;
  bf_intvect ng = bf_intvect_splat(dim, 0);
  if (bfpy_bind(args, nargs, kwnames, names, 6, a, true) < 0) return NULL;
  bf_multifab *dst = bfpy_mf_arg(a[0], dim, -1, "copy_mfab(dst)");
  bf_multifab *src = dst ? bfpy_mf_arg(a[1], dim, bf_multifab_dtype(dst), "copy_mfab(src)") : NULL;
  if (!src || bfpy_to_int(a[2], &sc, "srccomp") < 0 || bfpy_to_int(a[3], &dc, "dstcomp") < 0 ||
      bfpy_to_int(a[4], &nc, "numcomp") < 0 || bfpy_mf_ng(a[5], dim, ng, &ng, "nghost") < 0 ||
      bfpy_check(bf_multifab_copy(dst, src, sc, dc, nc, ng)) < 0)
    return NULL;
  Py_RETURN_NONE;
}

/* dtoh_memcpy / htod_memcpy: a copy of every FAB (ghost cells included), on
 * the GPU when either side is device memory; synchronous, as in AMReX: boxfab's
 * stream is synchronized before returning, so the host may read (or reuse) the
 * host side at once.  On the CPU a plain copy. */
static PyObject *memcpy_impl(const char *func, PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames) {
  static const char *const n_all[] = {"dest", "src", NULL};
  static const char *const n_comp[] = {"dest", "src", "scomp", "dcomp", "ncomp", NULL};
  int dim = bfpy_module_dim(m);
  PyObject *a[5];
  bool comps = nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0) > 2;
  if (bfpy_bind(args, nargs, kwnames, comps ? n_comp : n_all, comps ? 5 : 2, a, true) < 0) return NULL;
  bf_multifab *dst = bfpy_mf_arg(a[0], dim, -1, "dest");
  bf_multifab *src = dst ? bfpy_mf_arg(a[1], dim, bf_multifab_dtype(dst), "src") : NULL;
  if (!src) return NULL;
  int sc = 0, dc = 0, nc = bf_multifab_ncomp(src);
  if (comps && (bfpy_to_int(a[2], &sc, "scomp") < 0 || bfpy_to_int(a[3], &dc, "dcomp") < 0 ||
                bfpy_to_int(a[4], &nc, "ncomp") < 0))
    return NULL;
  if (!comps && bf_multifab_ncomp(src) != bf_multifab_ncomp(dst)) {
    PyErr_Format(PyExc_ValueError, "%s: dest has %d components, src %d", func, bf_multifab_ncomp(dst),
                 bf_multifab_ncomp(src));
    return NULL;
  }
  bf_intvect ng = bf_multifab_ngrow(src), gd = bf_multifab_ngrow(dst);
  if (!bf_intvect_equal(&ng, &gd)) {
    PyErr_Format(PyExc_ValueError, "%s: dest and src must have the same ghost cells (the FABs are copied whole)",
                 func);
    return NULL;
  }
  if (bfpy_check(bf_multifab_memcpy(dst, src, sc, dc, nc)) < 0)
    return NULL;
  Py_RETURN_NONE;
}

static PyObject *dtoh_memcpy(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return memcpy_impl("dtoh_memcpy", m, args, nargs, kwnames);
}
static PyObject *htod_memcpy(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return memcpy_impl("htod_memcpy", m, args, nargs, kwnames);
}

static PyMethodDef mf_module_functions[] = {
    {"copy_mfab", FASTKW(copy_mfab),
     "copy_mfab(dst, src, srccomp: int, dstcomp: int, numcomp: int, nghost: int/IntVect) -> None: copy components "
     "incl. nghost ghost cells (same BoxArray and DistributionMapping)."},
    {"dtoh_memcpy", FASTKW(dtoh_memcpy),
     "dtoh_memcpy(dest, src) / (dest, src, scomp: int, dcomp: int, ncomp: int) -> None: device to host copy of "
     "whole FABs (a plain copy without a GPU; same layout and ghost cells required)."},
    {"htod_memcpy", FASTKW(htod_memcpy),
     "htod_memcpy(dest, src) / (dest, src, scomp: int, dcomp: int, ncomp: int) -> None: host to device copy."},
    {NULL, NULL, 0, NULL},
};

/* ==== types ==================================================================================== */

/* Concatenate NULL-terminated method tables into `out` (capacity cap). */
static PyMethodDef *join_methods(PyMethodDef *out, int cap, PyMethodDef *const *tables) {
  int n = 0;
  for (int t = 0; tables[t]; ++t)
    for (PyMethodDef *d = tables[t]; d->ml_name; ++d)
      if (n < cap - 1) out[n++] = *d;
  out[n] = (PyMethodDef){NULL, NULL, 0, NULL};
  return out;
}

static PyMethodDef mf_all_methods[BF_SPACEDIM_MAX + 1][96];
static PyMethodDef fa_all_methods[BF_SPACEDIM_MAX + 1][32];
static PyMethodDef imf_all_methods[BF_SPACEDIM_MAX + 1][96];

static PyGetSetDef imf_getset[] = {
    {"n_comp", fa_get_ncomp, NULL, "Number of components.", NULL},
    {"n_grow_vect", fa_get_ngrow, NULL, "Ghost cells per direction (IntVect).", NULL},
    {"arena", fa_get_arena, NULL, "Arena used for allocation.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

int bfpy_init_multifab(PyObject *m, int dim) {
  PyType_Slot base_slots[] = {
      {Py_tp_doc, "FabArrayBase: the layout part of a FabArray (BoxArray, DistributionMapping, components, "
                  "ghost cells). Not constructible; see MultiFab and iMultiFab."},
      {Py_tp_new, fa_new},
      {Py_tp_dealloc, fa_dealloc},
      {Py_tp_repr, fa_repr},
      {Py_tp_iter, fa_iter},
      {Py_sq_length, fa_len},
      {Py_tp_getset, fab_getset},
      {Py_tp_methods, fab_methods},
      {Py_tp_members, fa_members},
      {0, NULL},
  };
  PyType_Spec base_spec = {.name = "FabArrayBase", .basicsize = sizeof(bfpy_multifab_object),
                           .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, .slots = base_slots};
  PyTypeObject *base = bfpy_make_type(m, dim, BFPY_T_FABARRAYBASE, "FabArrayBase", &base_spec, NULL);
  if (!base) return -1;

  PyMethodDef *fa_tables[] = {fabarray_methods, bfpy_mf_fabarray_ops, bfpy_mf_fabarray_reduce, bfpy_mf_comm_methods,
                              bfpy_mf_stack_methods, NULL};
  PyType_Slot fa_slots[] = {
      {Py_tp_doc, "FabArray_FArrayBox: a FabArray of FArrayBoxes (Real data). Not constructible; see MultiFab."},
      {Py_tp_methods, join_methods(fa_all_methods[dim], 32, fa_tables)},
      {Py_tp_getset, fabarray_getset},
      {0, NULL},
  };
  PyType_Spec fa_spec = {.name = "FabArray_FArrayBox", .basicsize = sizeof(bfpy_multifab_object),
                         .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, .slots = fa_slots};
  PyTypeObject *fa = bfpy_make_type(m, dim, BFPY_T_FABARRAY, "FabArray_FArrayBox", &fa_spec, base);
  if (!fa || bfpy_add_hybrids(fa, bfpy_mf_fabarray_statics, bfpy_mf_fabarray_statics_arity, (PyObject *)fa) < 0) return -1;

  PyMethodDef *mf_tables[] = {mf_methods, bfpy_mf_ops_methods, bfpy_mf_reduce_methods, bfpy_mf_comm_mf_methods,
                              NULL};
  PyType_Slot mf_slots[] = {
      {Py_tp_doc, "MultiFab(): undefined; MultiFab(a: Arena); MultiFab(bxs: BoxArray, dm: DistributionMapping, "
                  "ncomp: int, ngrow: int/IntVect[, info: MFInfo[, factory]]): Real data with ncomp components on "
                  "every box, ngrow ghost cells. `for mfi in mf:` iterates over the local FABs (tiles).\n\n"
                  "Extension beyond pyAMReX: parallel_copy / parallel_add between different BoxArrays."},
      {Py_tp_init, mf_init},
      {Py_tp_methods, join_methods(mf_all_methods[dim], 96, mf_tables)},
      {Py_tp_getset, mf_getset},
      {0, NULL},
  };
  PyType_Spec mf_spec = {.name = "MultiFab", .basicsize = sizeof(bfpy_multifab_object),
                         .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, .slots = mf_slots};
  PyTypeObject *mft = bfpy_make_type(m, dim, BFPY_T_MULTIFAB, "MultiFab", &mf_spec, fa);
  if (!mft || bfpy_add_hybrids(mft, bfpy_mf_statics, bfpy_mf_statics_arity, (PyObject *)mft) < 0 ||
      bfpy_add_statics(mft, bfpy_mf_static_only, (PyObject *)mft) < 0)
    return -1;

  PyMethodDef *imf_tables[] = {fabarray_methods, mf_methods, bfpy_mf_fabarray_ops, bfpy_mf_imf_ops_methods,
                               bfpy_imf_reduce_methods, bfpy_imf_comm_methods, bfpy_mf_stack_methods, NULL};
  PyType_Slot imf_slots[] = {
      {Py_tp_doc, "iMultiFab: the MultiFab of int data (boxfab extension; AMReX's iMultiFab). Constructors as "
                  "MultiFab's (without factory); array(mfi) gives Array4_int; reductions return ints."},
      {Py_tp_init, mf_init},
      {Py_tp_methods, join_methods(imf_all_methods[dim], 96, imf_tables)},
      {Py_tp_getset, imf_getset},
      {0, NULL},
  };
  PyType_Spec imf_spec = {.name = "iMultiFab", .basicsize = sizeof(bfpy_multifab_object),
                          .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, .slots = imf_slots};
  PyTypeObject *imft = bfpy_make_type(m, dim, BFPY_T_IMULTIFAB, "iMultiFab", &imf_spec, base);
  if (!imft || bfpy_add_hybrids(imft, bfpy_imf_statics, bfpy_imf_statics_arity, (PyObject *)imft) < 0) return -1;

  if (bfpy_init_mfiter(m, dim) < 0) return -1;
  return PyModule_AddFunctions(m, mf_module_functions);
}
