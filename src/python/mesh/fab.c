/* boxfab._core: family "fab" — BaseFab_Real and FArrayBox(BaseFab_Real)
 * (API.md 2.3).  Arena, MFInfo, MFItInfo and FabFactory_FArrayBox are in
 * mesh/arena.c.
 *
 * A fab object holds a bf_fab (reference counted, fab.h).  Views handed out
 * (array(), const_array(), the buffer protocol, __dlpack__) hold a
 * _BufferOwner of the fab's buffer, so clear() / resize() / del never free
 * memory a view still reads.  A fab aliasing an Array4 wraps the Array4's
 * memory in an external buffer whose release callback drops a reference to
 * the Array4: the Array4 (and what it views) lives as long as the fab or any
 * view of it.
 *
 * Deviation (documented): lo_vect() / hi_vect() return the whole corner as an
 * IntVect (what AMReX's loVect()/hiVect() point to), not only the first
 * component as pyAMReX's binding does. */
#include <limits.h>
#include <string.h>

#include "mesh/array4.h"
#include "mesh/fab.h"

#define FAB(o) ((bfpy_fab_object *)(o))

static const char fab_init_sigs[] =
    "(), (arena: Arena, /), (bx: Box, ncomp: int = 1, arena: Arena = None, /), (a: Array4_double or "
    "Array4_double_const, /), (a: Array4_double, t: IndexType, /)";
static const char farraybox_init_sigs[] =
    "(), (arena: Arena, /), (bx: Box, ncomp: int = 1, arena: Arena = None, /), (a: Array4_double or "
    "Array4_double_const, /), (a: Array4_double, t: IndexType, /), (bx: Box, ncomp: int, alloc: bool, "
    "alloc_single_chunk: bool, arena: Arena = None, /)";

static const char *fab_name(PyObject *self) {
  return bfpy_is(self, BFPY_T_FARRAYBOX, -1) ? "FArrayBox" : "BaseFab_Real";
}

static PyObject *fab_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
  (void)args, (void)kwds;
  int dim = bfpy_type_dim(type, BFPY_T_BASEFAB);
  if (dim < 1) {
    PyErr_Format(PyExc_TypeError, "%s is not a BaseFab_Real type", type->tp_name);
    return NULL;
  }
  bfpy_fab_object *o = (bfpy_fab_object *)type->tp_alloc(type, 0);
  if (!o) return NULL;
  o->dim = dim;
  o->fab = NULL;
  o->owner = NULL;
  o->pinned = NULL;
  return (PyObject *)o;
}

static int fab_traverse(PyObject *self, visitproc visit, void *arg) {
  Py_VISIT(Py_TYPE(self));
  Py_VISIT(FAB(self)->owner);
  Py_VISIT(FAB(self)->pinned);
  return 0;
}

static int fab_clear_refs(PyObject *self) {
  Py_CLEAR(FAB(self)->owner);
  Py_CLEAR(FAB(self)->pinned);
  return 0;
}

static void fab_dealloc(PyObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  fab_clear_refs(self);
  bf_fab_destroy(&FAB(self)->fab);
  tp->tp_free(self);
  Py_DECREF(tp);
}

/* Replace self's fab (steals `fab`) and owner (new reference taken). */
static void fab_set(PyObject *self, bf_fab *fab, PyObject *owner) {
  bf_fab_destroy(&FAB(self)->fab);
  FAB(self)->fab = fab;
  Py_XSETREF(FAB(self)->owner, Py_XNewRef(owner));
}

/* ---- aliasing an Array4 ---------------------------------------------------------- */
/* Release callback of the external buffer: drops the Array4 reference. */
static void release_pyobject(void *ctx) {
  if (!ctx || !bfpy_python_alive()) return;
  PyGILState_STATE g = PyGILState_Ensure();
  Py_DECREF((PyObject *)ctx);
  PyGILState_Release(g);
}

static int fab_alias_array4(PyObject *self, PyObject *a4, PyObject *ixtype) {
  const int dim = FAB(self)->dim;
  const bfpy_array4_object *ao = (const bfpy_array4_object *)a4;
  const bf_array4 *a = &ao->a;
  const char *what = "BaseFab_Real(a: Array4_double)";
  if (ao->dim != dim) {
    bfpy_dim_mismatch(what, dim, ao->dim);
    return -1;
  }
  if (a->dtype != BF_DTYPE_DOUBLE) {
    PyErr_Format(PyExc_TypeError, "%s: the Array4 must hold double, not %s", what, bf_dtype_name(a->dtype));
    return -1;
  }
  if ((ao->flags & BFPY_A4_SRC_READONLY)) {
    PyErr_Format(PyExc_ValueError, "%s: the Array4 views read-only memory; a fab is writable", what);
    return -1;
  }
  if (ao->memory == BFPY_MEM_DEVICE) {
    PyErr_Format(PyExc_ValueError, "%s: the Array4 views device memory", what);
    return -1;
  }
  if (a->ncomp < 1 || bf_array4_size(a) == 0 || !a->p) {
    PyErr_Format(PyExc_ValueError, "%s: the Array4 is empty", what);
    return -1;
  }
  if (a->istride != 1) {
    PyErr_Format(PyExc_ValueError, "%s: the Array4 must have unit stride in x (istride %lld)", what,
                 (long long)a->istride);
    return -1;
  }
  bf_box box = {.dim = dim, .type = 0};
  for (int d = 0; d < 3; ++d) {
    if (d < dim) {
      if (a->begin[d] < INT_MIN || a->end[d] - 1 > INT_MAX) {
        PyErr_Format(PyExc_OverflowError, "%s: the Array4's bounds do not fit in C int", what);
        return -1;
      }
      box.lo[d] = (int)a->begin[d];
      box.hi[d] = (int)(a->end[d] - 1);
    } else if (bf_array4_length(a, d) != 1) {
      PyErr_Format(PyExc_ValueError, "%s: in %dD the Array4 must have length 1 in direction %d", what, dim, d);
      return -1;
    }
  }
  if (ixtype && bfpy_as_indextype(ixtype, dim, &box.type, "BaseFab_Real(a, t: IndexType)") < 0) return -1;
  const int64_t strides[3] = {a->jstride, a->kstride, a->nstride};
  bf_fab *fab = NULL;
  Py_INCREF(a4); /* dropped by release_pyobject when the last holder of the memory goes */
  int st = bf_fab_create_alias(&box, a->ncomp, BF_DTYPE_DOUBLE, a->p, strides, release_pyobject, a4, &fab);
  if (st != BF_SUCCESS) {
    /* Whether the callback already ran is not specified on failure: keep the
     * reference (a leak of one Array4 at worst, never a dangling view). */
    return bfpy_check(st);
  }
  fab_set(self, fab, a4);
  return 0;
}

/* ---- constructors ------------------------------------------------------------------ */
static bool is_array4_double(PyObject *o) {
  const bf_array4 *a = bfpy_array4_view(o);
  return a != NULL;
}

static int fab_alloc(PyObject *self, PyObject *box_o, PyObject *ncomp_o, PyObject *arena_o, bool alloc,
                     const char *what) {
  const int dim = FAB(self)->dim;
  bf_box box;
  int ncomp = 1;
  bf_arena *arena;
  if (bfpy_as_box(box_o, dim, &box, what) < 0) return -1;
  if (ncomp_o && bfpy_to_int(ncomp_o, &ncomp, what) < 0) return -1;
  if (ncomp < 1) {
    PyErr_Format(PyExc_ValueError, "%s: ncomp must be >= 1, got %d", what, ncomp);
    return -1;
  }
  if (bfpy_as_arena(arena_o, dim, &arena, what) < 0) return -1;
  if (!bf_box_ok(&box)) {
    PyErr_Format(PyExc_ValueError, "%s: the box is empty or invalid", what);
    return -1;
  }
  bf_fab *fab = NULL;
  if (bfpy_check(bf_fab_create(&box, ncomp, BF_DTYPE_DOUBLE, arena, &fab)) < 0) return -1;
  if (!alloc) bf_fab_clear(fab);
  fab_set(self, fab, NULL);
  return 0;
}

static int fab_init_impl(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  const int dim = FAB(self)->dim;
  const bool is_farraybox = bfpy_is(self, BFPY_T_FARRAYBOX, -1);
  const char *name = fab_name(self);
  const char *sigs = is_farraybox ? farraybox_init_sigs : fab_init_sigs;
  if (kwnames && PyTuple_GET_SIZE(kwnames)) {
    bfpy_no_overload(name, args, nargs, kwnames, sigs);
    return -1;
  }
  if (nargs == 0 || (nargs == 1 && (args[0] == Py_None || bfpy_is(args[0], BFPY_T_ARENA, -1)))) {
    bf_arena *arena;
    if (bfpy_as_arena(nargs ? args[0] : NULL, dim, &arena, name) < 0) return -1;
    bf_fab *fab = NULL;
    if (bfpy_check(bf_fab_create_empty(dim, BF_DTYPE_DOUBLE, arena, &fab)) < 0) return -1;
    fab_set(self, fab, NULL);
    return 0;
  }
  if ((nargs == 1 || nargs == 2) && is_array4_double(args[0]))
    return fab_alias_array4(self, args[0], nargs == 2 ? args[1] : NULL);
  if (nargs >= 1 && nargs <= 3 && bfpy_is(args[0], BFPY_T_BOX, -1))
    return fab_alloc(self, args[0], nargs > 1 ? args[1] : NULL, nargs > 2 ? args[2] : NULL, true, name);
  if (is_farraybox && (nargs == 4 || nargs == 5) && bfpy_is(args[0], BFPY_T_BOX, -1)) {
    bool alloc, single;
    if (bfpy_fab_to_bool(args[2], &alloc, "FArrayBox alloc") < 0 ||
        bfpy_fab_to_bool(args[3], &single, "FArrayBox alloc_single_chunk") < 0)
      return -1;
    /* alloc_single_chunk: a fab is always one chunk here. */
    return fab_alloc(self, args[0], args[1], nargs > 4 ? args[4] : NULL, alloc, name);
  }
  bfpy_no_overload(name, args, nargs, kwnames, sigs);
  return -1;
}

static int fab_init(PyObject *self, PyObject *args, PyObject *kwds) {
  return bfpy_init_vectorcall(self, args, kwds, fab_init_impl);
}

/* ---- helpers ----------------------------------------------------------------------- */
static bf_fab *fab_of(PyObject *self) {
  if (!FAB(self)->fab) {
    PyErr_Format(PyExc_RuntimeError, "%s was not initialized (call __init__)", fab_name(self));
    return NULL;
  }
  return FAB(self)->fab;
}

/* A new Array4_double[_const] viewing the whole fab; holds the fab's buffer. */
/* A view handed to the user keeps the fab object alive too (pyAMReX's
 * keep_alive; its memory is kept by the buffer owner anyway).  The views a fab
 * pins for itself (__array_interface__) do not: that would be a cycle. */
static PyObject *fab_keep(PyObject *a4, PyObject *self) {
  if (a4) bfpy_array4_keep(a4, self);
  return a4;
}

static PyObject *fab_make_array4(PyObject *self, bool is_const) {
  bf_fab *fab = fab_of(self);
  if (!fab) return NULL;
  if (!bf_fab_is_allocated(fab)) {
    PyErr_Format(PyExc_RuntimeError, "%s.%s(): the fab has no data (not allocated or cleared)", fab_name(self),
                 is_const ? "const_array" : "array");
    return NULL;
  }
  const bf_box box = bf_fab_box(fab);
  int64_t st[3];
  bf_fab_strides(fab, st);
  bf_array4 a = bf_array4_empty(bf_fab_dtype(fab));
  a.p = bf_fab_data(fab);
  a.ncomp = bf_fab_ncomp(fab);
  for (int d = 0; d < 3; ++d) {
    a.begin[d] = d < box.dim ? box.lo[d] : 0;
    a.end[d] = d < box.dim ? (int64_t)box.hi[d] + 1 : 1;
  }
  a.istride = 1;
  a.jstride = st[0];
  a.kstride = st[1];
  a.nstride = st[2];
  PyObject *owner = bfpy_buffer_owner_new(bf_fab_buffer(fab));
  if (!owner) return NULL;
  PyObject *r = bfpy_array4_new(FAB(self)->dim, &a, is_const, owner, bfpy_memory_of_arena(bf_fab_arena(fab)));
  Py_DECREF(owner);
  return r;
}

/* ---- methods ------------------------------------------------------------------------- */
static PyObject *fab_resize(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"", "", "", NULL};
  PyObject *a[3];
  if (bfpy_bind(args, nargs, kwnames, names, 1, a, true) < 0) return NULL;
  bf_fab *fab = fab_of(self);
  if (!fab) return NULL;
  const int dim = FAB(self)->dim;
  bf_box box;
  int ncomp = 1;
  bf_arena *arena = NULL;
  if (bfpy_as_box(a[0], dim, &box, "resize bx") < 0) return NULL;
  if (a[1] && bfpy_to_int(a[1], &ncomp, "resize ncomp") < 0) return NULL;
  if (ncomp < 1) {
    PyErr_Format(PyExc_ValueError, "resize: ncomp must be >= 1, got %d", ncomp);
    return NULL;
  }
  if (a[2] && a[2] != Py_None && bfpy_as_arena(a[2], dim, &arena, "resize arena") < 0) return NULL;
  if (!bf_box_ok(&box)) {
    PyErr_SetString(PyExc_ValueError, "resize: the box is empty or invalid");
    return NULL;
  }
  if (bfpy_check(bf_fab_resize(fab, &box, ncomp, arena)) < 0) return NULL;
  Py_CLEAR(FAB(self)->owner); /* no longer aliasing anything */
  Py_RETURN_NONE;
}

static PyObject *fab_clear(PyObject *self, PyObject *noargs) {
  (void)noargs;
  bf_fab *fab = fab_of(self);
  if (!fab) return NULL;
  bf_fab_clear(fab);
  Py_CLEAR(FAB(self)->owner);
  Py_RETURN_NONE;
}

static PyObject *fab_n_bytes(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  bf_fab *fab = fab_of(self);
  if (!fab) return NULL;
  if (nargs == 0 && !kwnames) return PyLong_FromSize_t(bf_fab_n_bytes(fab));
  static const char *const names[] = {"", "", NULL};
  PyObject *a[2];
  if (bfpy_bind(args, nargs, kwnames, names, 2, a, false) == 0) {
    bf_box box;
    int ncomp;
    if (bfpy_as_box(a[0], FAB(self)->dim, &box, "n_bytes bx") < 0 || bfpy_to_int(a[1], &ncomp, "n_bytes ncomp") < 0)
      return NULL;
    if (ncomp < 0) {
      PyErr_Format(PyExc_ValueError, "n_bytes: ncomp must be >= 0, got %d", ncomp);
      return NULL;
    }
    size_t nbytes;
    if (bfpy_check(bf_fab_n_bytes_box(fab, &box, ncomp, &nbytes)) < 0) return NULL;
    return PyLong_FromSize_t(nbytes);
  }
  return bfpy_no_overload("n_bytes", args, nargs, kwnames, "(), (bx: Box, ncomp: int, /)");
}

static PyObject *fab_n_bytes_owned(PyObject *self, PyObject *noargs) {
  (void)noargs;
  bf_fab *fab = fab_of(self);
  return fab ? PyLong_FromSize_t(bf_fab_n_bytes_owned(fab)) : NULL;
}

static PyObject *fab_n_comp(PyObject *self, PyObject *noargs) {
  (void)noargs;
  bf_fab *fab = fab_of(self);
  return fab ? PyLong_FromLong(bf_fab_ncomp(fab)) : NULL;
}

static PyObject *fab_num_pts(PyObject *self, PyObject *noargs) {
  (void)noargs;
  bf_fab *fab = fab_of(self);
  return fab ? PyLong_FromLongLong(bf_fab_num_pts(fab)) : NULL;
}

static PyObject *fab_size(PyObject *self, PyObject *noargs) {
  (void)noargs;
  bf_fab *fab = fab_of(self);
  return fab ? PyLong_FromLongLong(bf_fab_size(fab)) : NULL;
}

static PyObject *fab_box(PyObject *self, PyObject *noargs) {
  (void)noargs;
  bf_fab *fab = fab_of(self);
  if (!fab) return NULL;
  bf_box b = bf_fab_box(fab);
  return bfpy_box_new(&b);
}

/* which: 0 length, 1 small end, 2 big end */
static PyObject *fab_corner(PyObject *self, int which) {
  bf_fab *fab = fab_of(self);
  if (!fab) return NULL;
  bf_box b = bf_fab_box(fab);
  bf_intvect iv = bf_intvect_splat(FAB(self)->dim, 0);
  for (int d = 0; d < iv.dim; ++d) iv.v[d] = which == 0 ? b.hi[d] - b.lo[d] + 1 : which == 1 ? b.lo[d] : b.hi[d];
  if (which == 0 && !bf_fab_num_pts(fab))
    for (int d = 0; d < iv.dim; ++d) iv.v[d] = iv.v[d] < 0 ? 0 : iv.v[d];
  return bfpy_intvect_new(&iv);
}

static PyObject *fab_length(PyObject *self, PyObject *n) { (void)n; return fab_corner(self, 0); }
static PyObject *fab_small_end(PyObject *self, PyObject *n) { (void)n; return fab_corner(self, 1); }
static PyObject *fab_big_end(PyObject *self, PyObject *n) { (void)n; return fab_corner(self, 2); }

static PyObject *fab_is_allocated(PyObject *self, PyObject *noargs) {
  (void)noargs;
  bf_fab *fab = fab_of(self);
  return fab ? PyBool_FromLong(bf_fab_is_allocated(fab)) : NULL;
}

static PyObject *fab_array(PyObject *self, PyObject *noargs) {
  (void)noargs;
  return fab_keep(fab_make_array4(self, false), self);
}

static PyObject *fab_const_array(PyObject *self, PyObject *noargs) {
  (void)noargs;
  return fab_keep(fab_make_array4(self, true), self);
}

static PyObject *fab_to_host(PyObject *self, PyObject *noargs) {
  (void)noargs;
  bf_fab *fab = fab_of(self);
  if (!fab) return NULL;
  PyTypeObject *t = bfpy_types[FAB(self)->dim][bfpy_is(self, BFPY_T_FARRAYBOX, -1) ? BFPY_T_FARRAYBOX
                                                                                   : BFPY_T_BASEFAB];
  PyObject *r = fab_new(t, NULL, NULL);
  if (!r) return NULL;
  const bf_box box = bf_fab_box(fab);
  bf_fab *copy = NULL;
  bf_arena *pinned = bf_arena_get(BF_ARENA_PINNED);
  int st = bf_fab_is_allocated(fab) ? bf_fab_create(&box, bf_fab_ncomp(fab), bf_fab_dtype(fab), pinned, &copy)
                                    : bf_fab_create_empty(FAB(self)->dim, bf_fab_dtype(fab), pinned, &copy);
  if (bfpy_check(st) < 0) {
    Py_DECREF(r);
    return NULL;
  }
  fab_set(r, copy, NULL);
  if (bf_fab_is_allocated(fab)) {
    /* The new fab's data is one block in the Array4 C order (n, k, j, i):
     * copy the source's view into it by way of its memory kind (device
     * memory goes through bf_gpu_memcpy after boxfab's pending work; a host
     * loop over it would read device addresses). */
    PyObject *src = fab_make_array4(self, true);
    int cst = src ? bfpy_array4_copy_out(bfpy_array4_view(src), ((bfpy_array4_object *)src)->memory, bf_fab_data(copy)) : -1;
    Py_XDECREF(src);
    if (cst < 0) {
      Py_DECREF(r);
      return NULL;
    }
  }
  return r;
}

/* Keep the memory of Array4 `a` (made by fab_make_array4) alive as long as
 * self: see `pinned` in bfpy.h.  0 or -1 with an exception. */
static int fab_pin(PyObject *self, PyObject *a) {
  PyObject **l = &FAB(self)->pinned;
  if (!*l && !(*l = PyList_New(0))) return -1;
  Py_ssize_t n = PyList_GET_SIZE(*l);
  if (n > 0 && bfpy_array4_view(PyList_GET_ITEM(*l, n - 1))->p == bfpy_array4_view(a)->p) return 0; /* done */
  return PyList_Append(*l, a);
}

static PyObject *fab_array_interface(PyObject *self, void *closure) {
  (void)closure;
  PyObject *a = fab_make_array4(self, false);
  if (!a) {
    /* Protocol lookups (NumPy) expect AttributeError when there is nothing to export. */
    if (PyErr_ExceptionMatches(PyExc_RuntimeError)) {
      PyErr_Clear();
      PyErr_Format(PyExc_AttributeError, "__array_interface__: the %s has no data", fab_name(self));
    }
    return NULL;
  }
  PyObject *r = PyObject_GetAttrString(a, "__array_interface__");
  if (r && fab_pin(self, a) < 0) Py_CLEAR(r);
  Py_DECREF(a);
  return r;
}

static PyObject *fab_cuda_array_interface(PyObject *self, void *closure) {
  (void)closure;
  PyObject *a = fab_make_array4(self, false);
  if (!a) {
    if (PyErr_ExceptionMatches(PyExc_RuntimeError)) {
      PyErr_Clear();
      PyErr_Format(PyExc_AttributeError, "__cuda_array_interface__: the %s has no data", fab_name(self));
    }
    return NULL;
  }
  PyObject *r = PyObject_GetAttrString(a, "__cuda_array_interface__");
  if (r && fab_pin(self, a) < 0) Py_CLEAR(r);
  Py_DECREF(a);
  return r;
}

static PyObject *fab_dlpack(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  PyObject *a = fab_make_array4(self, false);
  if (!a) {
    if (PyErr_ExceptionMatches(PyExc_RuntimeError)) {
      PyErr_Clear();
      PyErr_Format(PyExc_BufferError, "__dlpack__: the %s has no data", fab_name(self));
    }
    return NULL;
  }
  fab_keep(a, self);
  PyObject *r = bfpy_array4_dlpack(a, args, nargs, kwnames); /* the capsule keeps `a` (and so self) alive */
  Py_DECREF(a);
  return r;
}

/* __array__: as array().__array__ (TypeError naming to_host() for device memory:
 * NumPy otherwise wrapped the fab in a 0-d object array). */
static PyObject *fab_array_dunder(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  PyObject *a = fab_make_array4(self, false);
  if (!a) return NULL;
  PyObject *r = bfpy_array4_array(a, args, nargs, kwnames);
  Py_DECREF(a);
  return r;
}

static PyObject *fab_dlpack_device(PyObject *self, PyObject *noargs) {
  bf_fab *fab = fab_of(self);
  if (!fab) return NULL;
  if (!bf_fab_is_allocated(fab)) return Py_BuildValue("(ii)", 1, 0); /* kDLCPU */
  PyObject *a = fab_make_array4(self, false);
  if (!a) return NULL;
  PyObject *r = bfpy_array4_dlpack_device(a, noargs);
  Py_DECREF(a);
  return r;
}

/* Buffer protocol: the export is served by an Array4 of the fab, which
 * becomes view->obj, so the memory outlives clear()/resize()/del of the fab. */
static int fab_getbuffer(PyObject *self, Py_buffer *view, int flags) {
  view->obj = NULL;
  PyObject *a = fab_make_array4(self, false);
  if (!a) {
    if (PyErr_ExceptionMatches(PyExc_RuntimeError)) {
      PyErr_Clear();
      PyErr_Format(PyExc_BufferError, "the %s has no data", fab_name(self));
    }
    return -1;
  }
  int r = PyObject_GetBuffer(a, view, flags); /* view->obj = a (new reference) */
  Py_DECREF(a);
  return r;
}

static PyObject *fab_repr(PyObject *self) {
  bf_fab *fab = FAB(self)->fab;
  if (!fab) return PyUnicode_FromFormat("<%s (uninitialized)>", fab_name(self));
  bf_box b = bf_fab_box(fab);
  PyObject *bo = bfpy_box_new(&b);
  if (!bo) return NULL;
  PyObject *r = PyUnicode_FromFormat("<%s box=%R ncomp=%d %s%s>", fab_name(self), bo, bf_fab_ncomp(fab),
                                     bf_fab_is_allocated(fab) ? "allocated" : "not allocated",
                                     FAB(self)->owner ? " (aliasing an Array4)" : "");
  Py_DECREF(bo);
  return r;
}

#define FASTCALL(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

static PyMethodDef fab_methods[] = {
    {"resize", FASTCALL(fab_resize),
     "resize(bx: Box, ncomp: int = 1, arena: Arena = None, /) -> None: reallocate (views keep the old data)."},
    {"clear", fab_clear, METH_NOARGS, "clear() -> None: free the data (views keep it alive)."},
    {"n_bytes", FASTCALL(fab_n_bytes),
     "n_bytes() -> int: bytes of the data; n_bytes(bx: Box, ncomp: int, /) -> int: bytes for bx and ncomp."},
    {"n_bytes_owned", fab_n_bytes_owned, METH_NOARGS, "n_bytes_owned() -> int: bytes owned (0 for an alias)."},
    {"n_comp", fab_n_comp, METH_NOARGS, "n_comp() -> int: number of components."},
    {"num_pts", fab_num_pts, METH_NOARGS, "num_pts() -> int: points per component."},
    {"size", fab_size, METH_NOARGS, "size() -> int: elements (num_pts * n_comp)."},
    {"box", fab_box, METH_NOARGS, "box() -> Box."},
    {"length", fab_length, METH_NOARGS, "length() -> IntVect: extent per direction."},
    {"small_end", fab_small_end, METH_NOARGS, "small_end() -> IntVect."},
    {"big_end", fab_big_end, METH_NOARGS, "big_end() -> IntVect."},
    {"lo_vect", fab_small_end, METH_NOARGS,
     "lo_vect() -> IntVect: the lower corner (boxfab returns the whole IntVect; pyAMReX only its first entry)."},
    {"hi_vect", fab_big_end, METH_NOARGS,
     "hi_vect() -> IntVect: the upper corner (boxfab returns the whole IntVect; pyAMReX only its first entry)."},
    {"is_allocated", fab_is_allocated, METH_NOARGS, "is_allocated() -> bool."},
    {"array", fab_array, METH_NOARGS, "array() -> Array4_double: view of the whole fab (keeps the data alive)."},
    {"const_array", fab_const_array, METH_NOARGS, "const_array() -> Array4_double_const: read-only view."},
    {"to_host", fab_to_host, METH_NOARGS, "to_host() -> a copy of this fab in pinned host memory."},
    {"__dlpack__", FASTCALL(fab_dlpack),
     "__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None): DLPack capsule of array()."},
    {"__dlpack_device__", fab_dlpack_device, METH_NOARGS, "__dlpack_device__() -> (device_type, device_id)."},
    {"__array__", FASTCALL(fab_array_dunder),
     "__array__(dtype=None, copy=None): as array().__array__ (TypeError for device memory: use to_host())."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef fab_getset[] = {
    {"__array_interface__", fab_array_interface, NULL, "dict: as array().__array_interface__", NULL},
    {"__cuda_array_interface__", fab_cuda_array_interface, NULL,
     "dict: as array().__cuda_array_interface__ (AttributeError for host memory)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot basefab_slots[] = {
    {Py_tp_doc, "BaseFab_Real: the Real data of one Box, n components.\n\n"
                "BaseFab_Real(), BaseFab_Real(arena, /), BaseFab_Real(bx, ncomp=1, arena=None, /),\n"
                "BaseFab_Real(a: Array4_double, /), BaseFab_Real(a, t: IndexType, /) (aliases a; keeps it alive)."},
    {Py_tp_new, fab_new},
    {Py_tp_init, fab_init},
    {Py_tp_dealloc, fab_dealloc},
    {Py_tp_traverse, fab_traverse},
    {Py_tp_clear, fab_clear_refs},
    {Py_tp_repr, fab_repr},
    {Py_tp_methods, fab_methods},
    {Py_tp_getset, fab_getset},
    {Py_bf_getbuffer, fab_getbuffer},
    {0, NULL},
};

static PyType_Spec basefab_spec = {.name = "BaseFab_Real",
                                   .basicsize = sizeof(bfpy_fab_object),
                                   .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
                                   .slots = basefab_slots};

static PyType_Slot farraybox_slots[] = {
    {Py_tp_doc, "FArrayBox(BaseFab_Real): a FAB of Real data.  Constructors of BaseFab_Real plus\n"
                "FArrayBox(bx, ncomp, alloc: bool, alloc_single_chunk: bool, arena=None, /)\n"
                "(alloc False: box and ncomp set, no data)."},
    {Py_tp_dealloc, fab_dealloc},
    {Py_tp_traverse, fab_traverse},
    {Py_tp_clear, fab_clear_refs},
    {0, NULL},
};

static PyType_Spec farraybox_spec = {.name = "FArrayBox",
                                     .basicsize = sizeof(bfpy_fab_object),
                                     .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
                                     .slots = farraybox_slots};

int bfpy_init_fab(PyObject *m, int dim) {
  if (bfpy_init_arena(m, dim) < 0) return -1;
  PyTypeObject *base = bfpy_make_type(m, dim, BFPY_T_BASEFAB, "BaseFab_Real", &basefab_spec, NULL);
  if (!base) return -1;
  if (!bfpy_make_type(m, dim, BFPY_T_FARRAYBOX, "FArrayBox", &farraybox_spec, base)) return -1;
  return 0;
}
