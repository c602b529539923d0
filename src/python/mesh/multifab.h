/* boxfab._core: MultiFab family, private declarations shared by
 * mesh/multifab.c (types, constructors, properties, array(mfi), module
 * functions), mesh/multifab_ops.c (element-wise operations, static ops),
 * mesh/multifab_reduce.c (reductions), mesh/multifab_comm.c (ghost exchange,
 * syncs, parallel_copy) and mesh/mfiter.c (MFIter).
 *
 * Types per space module: FabArrayBase, FabArray_FArrayBox(FabArrayBase),
 * MultiFab(FabArray_FArrayBox), iMultiFab(FabArrayBase) share the object
 * layout bfpy_multifab_object (bfpy.h); MFIter has bfpy_mfiter_object below.
 *
 * Overloads are matched by bfpy_mf_match(): each signature is a list of
 * parameter names plus a type code per parameter; the first signature whose
 * names bind and whose given arguments pass their type test is chosen. */
#ifndef BOXFAB_BFPY_MULTIFAB_H
#define BOXFAB_BFPY_MULTIFAB_H

#include "bfpy.h"

#define MFO(o) ((bfpy_multifab_object *)(o))

typedef struct {
  PyObject_HEAD int dim;
  bf_mfiter *it;      /* NULL after finalize() */
  PyObject *mf;       /* the Python FabArray iterated over (kept alive; NULL after finalize) */
  PyObject *dict;     /* dynamic attributes */
  bool first_or_done; /* __next__: the next call is the first one (returns self without advancing) */
} bfpy_mfiter_object;

/* ---- signatures ----------------------------------------------------------------------------- */
/* Type codes, one per parameter:
 *   'f' real number   'i' int          'g' ghost width: int or IntVect (or list/tuple of ints)
 *   'b' Box           'm' MultiFab / iMultiFab (any dim)   'B' bool (bool or numpy.bool_)
 *   'p' Periodicity   'v' iterable of ints (not an int)   'o' anything */
typedef struct {
  const char *const *names; /* NULL terminated; "" = positional-only */
  int nrequired;
  const char *types;        /* one code per name */
} bfpy_mf_sig;

/* Index of the first signature of sigs[0..n) that fits the arguments (out
 * holds the bound arguments, NULL when not given), or -1 with TypeError set
 * (no overload: lists `sigtext`). */
int bfpy_mf_match(const char *func, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                  const bfpy_mf_sig *sigs, int n, PyObject **out, const char *sigtext);

/* ---- checked access --------------------------------------------------------------------------- */
/* self's MultiFab, or NULL with RuntimeError when self is undefined
 * (MultiFab()) or was made before boxfab's finalize(). */
bf_multifab *bfpy_mf_self(PyObject *self, const char *func);
/* A MultiFab argument of dimension dim and element type dtype (BF_DTYPE_DOUBLE
 * for MultiFab, BF_DTYPE_INT for iMultiFab, -1 for either), checked as above. */
bf_multifab *bfpy_mf_arg(PyObject *o, int dim, int dtype, const char *what);
/* Dimension and element type of the family of a type object (statics get
 * their class as self). */
int bfpy_mf_type_info(PyObject *type, int *dim, int *dtype);

/* ---- argument conversion (o NULL: the default) ------------------------------------------------- */
int bfpy_mf_int(PyObject *o, int def, int *out, const char *what);
int bfpy_mf_bool(PyObject *o, bool def, bool *out, const char *what);
int bfpy_mf_double(PyObject *o, double def, double *out, const char *what);
/* Ghost width: int (all directions) or IntVect; NULL gives `def`. */
int bfpy_mf_ng(PyObject *o, int dim, bf_intvect def, bf_intvect *out, const char *what);
/* Periodicity: *per set and *has true when given and periodic somewhere. */
int bfpy_mf_period(PyObject *o, int dim, bf_periodicity *per, bool *has, const char *what);
/* Number of components as given, or "all from comp" when o is NULL. */
int bfpy_mf_ncomp(PyObject *o, const bf_multifab *mf, int comp, int *out, const char *what);

/* A reduction result: float for double data, int for int data. */
PyObject *bfpy_mf_value(const bf_multifab *mf, double v);

/* MFIter of `o` (any dim), or NULL with TypeError. */
bfpy_mfiter_object *bfpy_mfiter_arg(PyObject *o, int dim, const char *what);
/* Current local fab of an MFIter: -1 with RuntimeError when its loop has ended. */
int bfpy_mfiter_current(bfpy_mfiter_object *it, const char *func);

/* ---- method tables (defined in the files named) ------------------------------------------------ */
extern PyMethodDef bfpy_mf_ops_methods[];        /* mesh/multifab_ops.c: MultiFab-only ops */
extern PyMethodDef bfpy_mf_fabarray_ops[];       /* set_val, abs */
extern PyMethodDef bfpy_mf_imf_ops_methods[];    /* iMultiFab ops */
/* fa.tiles(tile=None) (mesh/mfiter.c) */
PyObject *bfpy_mfiter_tiles(PyObject *fa, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);

/* AMReX's statics, added as hybrids (static on the class, bound on an instance; bfpy_add_hybrids)
 * with their static forms' parameter counts */
extern PyMethodDef bfpy_mf_statics[];            /* MultiFab add, ..., add_product */
extern const int bfpy_mf_statics_arity[];
extern PyMethodDef bfpy_mf_static_only[];        /* MultiFab dot (static only: its forms' counts overlap) */
extern PyMethodDef bfpy_mf_fabarray_statics[];   /* FabArray saxpy/xpay/lin_comb */
extern const int bfpy_mf_fabarray_statics_arity[];
extern PyMethodDef bfpy_imf_statics[];           /* iMultiFab statics */
extern const int bfpy_imf_statics_arity[];
extern PyMethodDef bfpy_mf_reduce_methods[];     /* mesh/multifab_reduce.c: MultiFab reductions */
extern PyMethodDef bfpy_mf_fabarray_reduce[];    /* FabArray.sum */
extern PyMethodDef bfpy_imf_reduce_methods[];    /* iMultiFab reductions */
extern PyMethodDef bfpy_mf_comm_methods[];       /* mesh/multifab_comm.c: FabArray fill/sum_boundary, override */
extern PyMethodDef bfpy_mf_comm_mf_methods[];    /* MultiFab: average/weighted_sync, parallel_copy/add */
extern PyMethodDef bfpy_mf_stack_methods[];     /* mesh/multifab_stack.c: stacked */
extern PyMethodDef bfpy_imf_comm_methods[];      /* iMultiFab: fill/sum_boundary, syncs, parallel_copy/add */

PyObject *bfpy_mf_dot_static(PyObject *cls, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);

int bfpy_init_mfiter(PyObject *m, int dim);

#endif
