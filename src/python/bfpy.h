/* boxfab._core — shared declarations of the CPython extension (private).
 *
 * Layout: one file per type family (bfpy_<family>.c).  Each family has an
 * init function called once per space module (dim = 1, 2, 3) from module.c;
 * it creates its heap types for that dim with bfpy_make_type(), which puts
 * them in the registry bfpy_types[dim][id] and in the space module.
 *
 * Dimension: every per-dimension type is created three times
 * ("boxfab.space1d.Box", ...).  An instance stores its dim; a constructor
 * learns it from its type with bfpy_type_dim(); a module-level function from
 * its module (self) with bfpy_module_dim().  Objects of different dimensions
 * never mix: the converters raise TypeError.
 *
 * Errors: C status codes become exceptions through bfpy_raise() (one bridge).
 * Converters return 0 on success and -1 with an exception set. */
#ifndef BOXFAB_BFPY_H
#define BOXFAB_BFPY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdbool.h>

#include "boxfab/boxfab.h"

/* ---- type registry --------------------------------------------------------- */
enum bfpy_type_id {
  BFPY_T_INTVECT,      /* IntVect{d}D: registered at [d]; every module gets all three */
  BFPY_T_DIM3,         /* dimension independent: registered at [0] */
  BFPY_T_XDIM3,        /* dimension independent: registered at [0] */
  BFPY_T_INDEXTYPE,
  BFPY_T_DIRECTION,
  BFPY_T_BOX,
  BFPY_T_BOXARRAY,
  BFPY_T_DISTMAP,
  BFPY_T_REALBOX,
  BFPY_T_REALVECT,
  BFPY_T_COORDSYS,
  BFPY_T_GEOMETRY,
  BFPY_T_GEOMETRYDATA,
  BFPY_T_PERIODICITY,
  BFPY_T_VECTOR_REAL,
  BFPY_T_VECTOR_INT,
  BFPY_T_VECTOR_LONG,
  BFPY_T_VECTOR_STRING,
  BFPY_T_VECTOR_INTVECT,
  BFPY_T_VECTOR_BOXARRAY,
  BFPY_T_VECTOR_DISTMAP,
  BFPY_T_VECTOR_GEOMETRY,
  BFPY_T_VECTOR_BOX,
  BFPY_T_AMREX,
  BFPY_T_CONFIG,
  BFPY_T_ARRAY4,       /* hidden base of the 26 Array4_<T>[_const] types, per dim (mesh/array4.h) */
  BFPY_T_BUFFER_OWNER, /* dimension independent ([0]): keeps a bf_buffer alive for views */
  BFPY_T_ARENA,        /* Arena */
  BFPY_T_MFINFO,       /* MFInfo */
  BFPY_T_MFITINFO,     /* MFItInfo */
  BFPY_T_FABFACTORY,   /* FabFactory_FArrayBox */
  BFPY_T_BASEFAB,      /* BaseFab_Real */
  BFPY_T_FARRAYBOX,    /* FArrayBox(BaseFab_Real) */
  BFPY_T_FABARRAYBASE, /* FabArrayBase */
  BFPY_T_FABARRAY,     /* FabArray_FArrayBox(FabArrayBase) */
  BFPY_T_MULTIFAB,     /* MultiFab(FabArray_FArrayBox) */
  BFPY_T_IMULTIFAB,    /* iMultiFab(FabArrayBase) */
  BFPY_T_MFITER,       /* MFIter */
  BFPY_T_PODVIEW,      /* dimension independent ([0]): _PODView, the storage of a PODVector for views */
  BFPY_T_PODVECTOR,    /* hidden base of the PODVector_<T>_<alloc> types (particles/arrays.h) */
  BFPY_T_PARTICLE,     /* hidden base of Particle_<NR>_<NI> */
  BFPY_T_PINIT,        /* hidden base of ParticleInitType_<S> */
  BFPY_T_AOS,          /* hidden base of ArrayOfStructs_<NR>_<NI>_<alloc> */
  BFPY_T_SOA,          /* hidden base of StructOfArrays_<...>_<alloc> */
  BFPY_T_PTILE,        /* hidden base of ParticleTile_<S>_<alloc> */
  BFPY_T_PTILEDATA,    /* hidden base of ParticleTileData_<S> */
  BFPY_T_PC,           /* hidden base of ParticleContainer_<S>_<alloc> and ParticleContainer (particles/pc.h) */
  BFPY_T_PARITER,      /* ParIterBase_<S>_<alloc> / ParConstIterBase_... (MFIter subclasses, particles/pc.h) */
  BFPY_T_PARMPARSE,    /* ParmParse */
  BFPY_T_AMRINFO,      /* AmrInfo */
  BFPY_T_AMRMESH,      /* AmrMesh */
  BFPY_T_PLOTFILEDATA, /* PlotFileData (io/plotfile.c) */
  BFPY_T_VISMF,        /* VisMF (io/plotfile.c) */
  BFPY_T_MFSTACK,      /* dimension independent ([0]): StackedArray, all local FABs as one array (mesh/multifab_stack.c) */
  /* the AMR hierarchy (issue 24; src/python/amr/) */
  BFPY_T_BCREC,        /* BCRec (amr/bcrec.c) */
  BFPY_T_VECTOR_BCREC, /* Vector_BCRec (amr/bcrec.c) */
  BFPY_T_PHYSBC,       /* hidden base of the PhysBCFunct* types (amr/bcrec.c) */
  BFPY_T_BNDRYFUNC,    /* CpuBndryFuncFab (amr/bcrec.c) */
  BFPY_T_INTERPBASE,   /* InterpBase, base of Interpolater and MFInterpolater (amr/interp.c) */
  BFPY_T_FLUXREG,      /* FluxRegister (amr/fluxreg.c) */
  BFPY_T_TAGBOXARRAY,  /* TagBoxArray (amr/tagbox.c) */
  BFPY_T_AMRCORE,      /* AmrCore (amr/amrcore.c) */
  BFPY_T_PARGDB,       /* ParGDBBase / AmrParGDB (amr/amrcore.c) */
  BFPY_NTYPES
};

/* bfpy_types[dim][id]; dim 0 holds the dimension-independent types. */
extern PyTypeObject *bfpy_types[BF_SPACEDIM_MAX + 1][BFPY_NTYPES];
/* The space modules boxfab._core.space{1,2,3}d, index = dim. */
extern PyObject *bfpy_space_modules[BF_SPACEDIM_MAX + 1];

/* Create a heap type from `spec` (its name is replaced by
 * "boxfab.space{dim}d.<qualname>", or "boxfab.<qualname>" for dim 0),
 * with optional `base` type, register it at [dim][id] and add it to `module`
 * under `qualname` (module may be NULL).  Returns a borrowed reference. */
PyTypeObject *bfpy_make_type(PyObject *module, int dim, int id, const char *qualname, PyType_Spec *spec,
                             PyTypeObject *base);

/* Dimension of a registered type (or a subclass of one) of family `id`;
 * 0 when `type` is not one. */
int bfpy_type_dim(PyTypeObject *type, int id);

/* Dimension bound to a space module passed as `self` to a module function. */
int bfpy_module_dim(PyObject *module);

/* True when `o` is an instance of family `id` of dimension `dim`
 * (dim == -1: of any dimension). */
bool bfpy_is(PyObject *o, int id, int dim);

/* The Python name of a family for messages, e.g. "Box" or "IntVect3D". */
const char *bfpy_type_name(int id, int dim);

/* ---- interpreter state and DLPack capsules (mesh/array4_export.c) ----------- */
/* True while the interpreter runs (not finalizing): a release callback that
 * may come after Py_Finalize must leak rather than touch Python objects. */
int bfpy_python_alive(void);
/* Destructors of "dltensor" / "dltensor_versioned" capsules: call the
 * tensor's deleter unless a consumer renamed (took) the capsule. */
void bfpy_dl_capsule_destructor_legacy(PyObject *cap);
void bfpy_dl_capsule_destructor_versioned(PyObject *cap);
/* What a DLPack export context keeps alive: the exporting object (a
 * reference; NULL for a copy), a malloc'd host copy, a GPU copy.  Released
 * (and cleared) unless the interpreter is gone; returns false then, and the
 * caller must leak its context rather than free it. */
bool bfpy_dl_release(PyObject **exporter, void **copy, bf_buffer **dcopy);

/* ---- error bridge ---------------------------------------------------------- */
/* Raise the exception for C status `status` with bf_error_message(); returns NULL. */
PyObject *bfpy_raise(int status);
/* An mpi4py communicator (MPI.Comm.f2py) of Fortran handle h, after checking
 * that mpi4py runs on boxfab's MPI (runtime/lifecycle.c). */
PyObject *bfpy_mpi4py_comm(int64_t h);
/* -1 with the exception set when status != 0, else 0. */
int bfpy_check(int status);
/* Raise TypeError: "<func>: objects of different dimensions do not mix (...)". */
PyObject *bfpy_dim_mismatch(const char *what, int expected, int got);

/* ---- argument binding ------------------------------------------------------ */
/* Bind vectorcall arguments to the parameter list `names` (NULL terminated;
 * a name "" is positional-only).  out[i] receives a borrowed reference or
 * NULL when not given.  The first `nrequired` must be given.
 * Returns 0 when bound; 1 when they do not fit this signature (and, with
 * raise == false, no exception is set, so that the caller can try another
 * overload); -1 with TypeError set when raise is true. */
int bfpy_bind(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, const char *const *names,
              int nrequired, PyObject **out, bool raise);

/* A constructor written as a vectorcall: tp_init lays out (args, kwds) as a
 * stack + kwnames for `fn` (at most 16 arguments). */
typedef int (*bfpy_fastinit)(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
int bfpy_init_vectorcall(PyObject *self, PyObject *args, PyObject *kwds, bfpy_fastinit fn);

/* tp_call receives a tuple and a dict: lay them out as a vectorcall of `fn`. */
typedef PyObject *(*bfpy_fastcall)(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *bfpy_call_vectorcall(PyObject *self, PyObject *args, PyObject *kwds, bfpy_fastcall fn);

/* As bfpy_add_statics, but read from an instance the method is bound to it
 * (first argument): `T.f(obj, x)` and `obj.f(x)` are the same call, and so is
 * `obj.f(obj, x)` (a call with the static form's full count arity[k] whose
 * first argument is a `type`: pyAMReX 24.10's spelling). */
int bfpy_add_hybrids(PyTypeObject *type, PyMethodDef *defs, const int *arity, PyObject *bound);

/* Add each of `defs` (ending with a zeroed entry) to `type` as a
 * staticmethod whose C self is `bound` (e.g. the type itself, so that a static
 * method knows its class and dimension). */
int bfpy_add_statics(PyTypeObject *type, PyMethodDef *defs, PyObject *bound);

/* TypeError "<func>(): no overload matches the arguments (<types>); <sigs>". */
PyObject *bfpy_no_overload(const char *func, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                           const char *signatures);

/* ---- scalars and sequences ------------------------------------------------- */
/* A Python int (or an object with __index__, not a float or str) into C int;
 * TypeError for other types, OverflowError outside C int. */
int bfpy_to_int(PyObject *o, int *out, const char *what);
int bfpy_to_int64(PyObject *o, int64_t *out, const char *what);
/* A real number (int or float or __float__) into double; TypeError otherwise. */
int bfpy_to_double(PyObject *o, double *out, const char *what);
/* True when o is an int-like (int / __index__, not bool-agnostic). */
bool bfpy_is_intlike(PyObject *o);
/* The UTF-8 of a str naming something C keeps as a C string (a particle
 * component): NULL with TypeError for a non-str, ValueError for a NUL
 * inside (C would cut the name there: "a\0b" would be "a").  Borrowed from o. */
const char *bfpy_c_name(PyObject *o, const char *what);
/* Text (str, bytes, bytearray and their subclasses): never a number nor a
 * sequence of numbers, whatever __float__ / __index__ / __len__ it has. */
static inline bool bfpy_is_text(PyObject *o) {
  return PyUnicode_Check(o) || PyBytes_Check(o) || PyByteArray_Check(o);
}
/* Every argument that takes "a list of ..." reads it through here: a new
 * reference to a tuple (for PySequence_Fast_GET_ITEM; a list is snapshotted,
 * so Python code run by `check` cannot shrink it under a loop) with the items
 * of `o` (a list, tuple, or any other iterable but text), each passed to
 * `check` (may be NULL; `ctx` is its own) as soon as it is read, before the
 * next one: a wrong element type stops at the first bad item, so that an
 * iterable of millions of items of the wrong kind (a Box iterates over its
 * points) is never expanded first.  At most `max` items (ValueError beyond,
 * before reading when the length is known).  TypeError "<what> must be an
 * iterable of <items>" for text and non-iterables.  NULL with an exception on
 * failure. */
typedef int (*bfpy_item_check)(PyObject *item, void *ctx, const char *what);
PyObject *bfpy_fast_sequence(PyObject *o, Py_ssize_t max, bfpy_item_check check, void *ctx, const char *what,
                             const char *items);
/* A bfpy_item_check: the item converts to C int (bfpy_to_int). */
int bfpy_check_int_item(PyObject *item, void *ctx, const char *what);
/* A sequence of exactly n ints / doubles (TypeError / ValueError otherwise). */
int bfpy_to_int_array(PyObject *o, int n, int *out, const char *what);
int bfpy_to_double_array(PyObject *o, int n, double *out, const char *what);
/* New lists from C arrays. */
PyObject *bfpy_int_list(const int *v, int n);
PyObject *bfpy_double_list(const double *v, int n);
/* A new enum.IntEnum class `qualname` (e.g. "IndexType.CellIndex", the enum's
 * own name is the part after the last dot) in `module` (e.g. "boxfab.space3d"),
 * so that it pickles; members names[i] = values[i]. */
PyObject *bfpy_make_intenum(const char *module, const char *qualname, const char *const *names, const int *values,
                            int n);
/* Normalise a possibly negative index into [0, n); IndexError otherwise. */
int bfpy_index(Py_ssize_t i, Py_ssize_t n, Py_ssize_t *out, const char *what);

/* ---- Python objects of the families ---------------------------------------- */
typedef struct { PyObject_HEAD bf_intvect iv; } bfpy_intvect_object;
typedef struct { PyObject_HEAD int x, y, z; } bfpy_dim3_object;
typedef struct { PyObject_HEAD double x, y, z; } bfpy_xdim3_object;
typedef struct { PyObject_HEAD int dim; unsigned type; } bfpy_indextype_object;
typedef struct { PyObject_HEAD int dim; } bfpy_direction_object;
typedef struct { PyObject_HEAD bf_box box; } bfpy_box_object;
typedef struct { PyObject_HEAD int dim; bf_boxarray *ba; } bfpy_boxarray_object;   /* ba never NULL */
typedef struct { PyObject_HEAD int dim; bf_distmap *dm; } bfpy_distmap_object;     /* dm NULL = empty */
typedef struct { PyObject_HEAD bf_realbox rb; } bfpy_realbox_object;
typedef struct { PyObject_HEAD int dim; double v[BF_SPACEDIM_MAX]; } bfpy_realvect_object;
/* CoordSys: coord and AMReX's ok flag (a bare CoordSys is never ok; a copy of a
 * Geometry is ok when that Geometry is). */
typedef struct { PyObject_HEAD int dim; int coord; bool ok; } bfpy_coordsys_object;
/* Geometry derives from CoordSys: its coord lives in base.coord and geom.coord
 * is kept equal to it; its ok flag is geom.ok (base.ok is not used). */
typedef struct { bfpy_coordsys_object base; bf_geometry geom; } bfpy_geometry_object;
typedef struct { PyObject_HEAD bf_geometry geom; } bfpy_geometrydata_object;
typedef struct { PyObject_HEAD bf_periodicity per; } bfpy_periodicity_object;

/* New objects from C values (NULL with an exception on failure). */
PyObject *bfpy_intvect_new(const bf_intvect *iv);
PyObject *bfpy_dim3_new(int x, int y, int z);
PyObject *bfpy_xdim3_new(double x, double y, double z);
PyObject *bfpy_indextype_new(int dim, unsigned type);
PyObject *bfpy_box_new(const bf_box *box);
PyObject *bfpy_boxarray_new(bf_boxarray *ba); /* steals the reference, even on failure */
PyObject *bfpy_distmap_new(int dim, bf_distmap *dm); /* steals the reference (dm may be NULL) */
PyObject *bfpy_realbox_new(const bf_realbox *rb);
PyObject *bfpy_realvect_new(int dim, const double *v);
PyObject *bfpy_geometry_new(const bf_geometry *g);
PyObject *bfpy_geometrydata_new(const bf_geometry *g);
PyObject *bfpy_periodicity_new(const bf_periodicity *p);

/* AMReX's text form of a box, "((lo) (hi) (type))", into buf (index/box.c);
 * BFPY_BOX_TEXT_SIZE bytes always suffice. */
#define BFPY_BOX_TEXT_SIZE 200
void bfpy_box_text(const bf_box *b, char *buf, size_t size);

/* C values from Python objects of dimension `dim`.  `what` names the argument
 * in messages.  IntVect: flags say what else is accepted. */
enum {
  BFPY_IV_SEQUENCE = 1, /* any sequence of dim ints but text: list, tuple, range, 1-d NumPy array...
                           (items: int, bool or __index__ such as np.int64; never a float) */
  BFPY_IV_SCALAR = 2    /* a single int meaning all components (np.int64 and 0-d integer arrays too) */
};
/* What an int- (or, with `real`, float-) or IntVect-like argument is, to pick
 * an overload before reading it: BFPY_ARG_INTVECT (an IntVect of any
 * dimension), BFPY_ARG_SCALAR (a number: int, bool, __index__ (np.int64) or,
 * with `real`, float / __float__ (np.float32), and a NumPy array without
 * length, i.e. 0-d), BFPY_ARG_SEQUENCE (any other sequence but str / bytes /
 * bytearray: list, tuple, range, 1-d or deeper arrays, ...), BFPY_ARG_OTHER;
 * -1 with an exception when asking a number-and-sequence for its length raised
 * anything but TypeError. */
enum { BFPY_ARG_OTHER = 0, BFPY_ARG_INTVECT, BFPY_ARG_SCALAR, BFPY_ARG_SEQUENCE };
int bfpy_arg_kind(PyObject *o, bool real);
int bfpy_as_intvect(PyObject *o, int dim, int flags, bf_intvect *out, const char *what);
int bfpy_as_box(PyObject *o, int dim, bf_box *out, const char *what);
int bfpy_as_indextype(PyObject *o, int dim, unsigned *out, const char *what);
int bfpy_as_realbox(PyObject *o, int dim, bf_realbox *out, const char *what);
int bfpy_as_realvect(PyObject *o, int dim, double *out, const char *what);
int bfpy_as_geometry(PyObject *o, int dim, bf_geometry *out, const char *what);
int bfpy_as_periodicity(PyObject *o, int dim, bf_periodicity *out, const char *what);
/* Borrowed handles (the Python object keeps them alive). */
bf_boxarray *bfpy_as_boxarray(PyObject *o, int dim, const char *what);
int bfpy_as_distmap(PyObject *o, int dim, bf_distmap **out, const char *what); /* *out may be NULL (empty) */

/* ---- family init functions (one per bfpy_<family>.c) ------------------------ */
int bfpy_init_intvect(PyObject *m, int dim);     /* IntVect*, Dim3, XDim3, coarsen, refine */
int bfpy_init_indextype(PyObject *m, int dim);   /* IndexType, Direction */
int bfpy_init_box(PyObject *m, int dim);         /* Box, lbound/ubound/length/begin/end */
int bfpy_init_boxarray(PyObject *m, int dim);    /* BoxArray, DistributionMapping */
int bfpy_init_geometry(PyObject *m, int dim);    /* RealBox, RealVect, CoordSys, Geometry, GeometryData,
                                                    Periodicity, AlmostEqual, min, max */
int bfpy_init_vector(PyObject *m, int dim);      /* Vector_* */
int bfpy_init_runtime(PyObject *m, int dim);     /* AMReX, Config, ParallelDescriptor, initialize, finalize,
                                                    initialized, size, Print, d_decl, concatenate,
                                                    unpack_ids, unpack_cpus, __version__ ... */
int bfpy_init_array4(PyObject *m, int dim);      /* Array4_<T>, Array4_<T>_const (26 types) */

/* ---- Array4 (bfpy_array4*.c) ------------------------------------------------ */
/* Where an Array4's memory lives (the CUDA issue adds the others). */
enum { BFPY_MEM_HOST = 0, BFPY_MEM_PINNED = 1, BFPY_MEM_MANAGED = 2, BFPY_MEM_DEVICE = 3 };
/* A new Array4_<T>[_const] of module dimension `dim` viewing `a` (T = a->dtype);
 * `owner` (may be NULL for an empty view) is kept alive by a new reference as
 * long as the Array4 or anything exported from it lives.  `memory`: BFPY_MEM_*. */
PyObject *bfpy_array4_new(int dim, const bf_array4 *a, bool is_const, PyObject *owner, int memory);
/* The view of an Array4 object (borrowed; NULL without exception when `o` is
 * not an Array4). */
const bf_array4 *bfpy_array4_view(PyObject *o);
/* For module functions lbound / ubound / length of the space module of
 * dimension `dim`: which = 0 lbound, 1 ubound, 2 length.  A new Dim3; NULL
 * without an exception when `a` is not an Array4 (NULL with an exception on
 * failure, TypeError for an Array4 of another dimension). */
PyObject *bfpy_array4_bounds(PyObject *a, int dim, int which);


/* ---- mesh data (issue 3) ------------------------------------------------------ */
#include "boxfab/arena.h"
#include "boxfab/fab.h"
#include "boxfab/mfiter.h"
#include "boxfab/multifab.h"

/* A tiny object holding one reference to a bf_buffer: the owner of views
 * (Array4, NumPy arrays, DLPack capsules) of MultiFab and FArrayBox data, so
 * that the memory outlives clear()/del of the container (runtime/buffer.c). */
typedef struct { PyObject_HEAD bf_buffer *buf; } bfpy_buffer_owner_object;
/* A new owner holding a new reference to `buf` (retained here). */
PyObject *bfpy_buffer_owner_new(bf_buffer *buf);
/* The BFPY_MEM_* kind of the memory an arena gives (NULL: host), for views. */
int bfpy_memory_of_arena(const bf_arena *a);

typedef struct { PyObject_HEAD int dim; bf_arena *arena; } bfpy_arena_object;   /* arena: a singleton, never freed */
typedef struct { PyObject_HEAD int dim; bool alloc; PyObject *arena; PyObject *tags; } bfpy_mfinfo_object;
/* arena: an Arena object or NULL (default); tags: a Vector_string or NULL */
/* tilesize: an IntVect object of dimension dim owned by the MFItInfo (never NULL
 * after construction); the attribute returns it, so changes to it read through
 * (pyAMReX: def_readwrite returns a reference to the member). */
typedef struct {
  PyObject_HEAD int dim;
  bool do_tiling, dynamic, device_sync;
  int num_streams;
  PyObject *tilesize;
} bfpy_mfitinfo_object;
typedef struct { PyObject_HEAD int dim; } bfpy_fabfactory_object;
/* BaseFab_Real / FArrayBox: fab may be NULL (empty); owner: the object whose
 * memory an aliasing fab views (NULL when the fab owns its data); pinned:
 * NULL or a list of the Array4s whose memory was handed out through
 * __array_interface__ / __cuda_array_interface__ (a consumer of those holds
 * the fab object, not the memory: they stay until the object goes, so that
 * clear(), resize() or __init__ never free memory such a view reads). */
typedef struct { PyObject_HEAD int dim; bf_fab *fab; PyObject *owner; PyObject *pinned; } bfpy_fab_object;
/* FabArrayBase / FabArray_FArrayBox / MultiFab / iMultiFab: mf NULL = undefined
 * (MultiFab()); arena: the Arena object it was made with (or NULL). */
typedef struct {
  PyObject_HEAD int dim;
  bf_multifab *mf;
  PyObject *arena;
  PyObject *weakreflist;
} bfpy_multifab_object;

PyObject *bfpy_arena_new(int dim, bf_arena *arena);
/* The bf_arena of an Arena object of dimension dim, or of None (the default arena). */
int bfpy_as_arena(PyObject *o, int dim, bf_arena **out, const char *what);

int bfpy_init_buffer(PyObject *m, int dim);    /* _BufferOwner */
int bfpy_init_multifab(PyObject *m, int dim);  /* FabArrayBase, FabArray_FArrayBox, MultiFab, iMultiFab, MFIter,
                                                  copy_mfab, dtoh_memcpy, htod_memcpy */
int bfpy_init_mfstack(PyObject *m, int dim);  /* StackedArray (mf.stacked()) */
int bfpy_init_smallmatrix(PyObject *m, int dim); /* SmallMatrix_*, almost_equal (mesh/smallmatrix.c) */
int bfpy_init_fab(PyObject *m, int dim);       /* Arena, The_*_Arena, MFInfo, MFItInfo, FabFactory_FArrayBox,
                                                  BaseFab_Real, FArrayBox */

/* ---- run-time parameters and AMR meta data (issue 11) ------------------------- */
int bfpy_init_parmparse(PyObject *m, int dim); /* ParmParse */
int bfpy_init_amrmesh(PyObject *m, int dim);   /* AmrInfo, AmrMesh */
/* The AMR hierarchy (issue 24; src/python/amr/, shared declarations in amr/amr.h) */
int bfpy_init_bcrec(PyObject *m, int dim);     /* BCType, PhysBCType, BCRec, Vector_BCRec, setBC, PhysBCFunct*,
                                                  CpuBndryFuncFab, fill_domain_boundary */
int bfpy_init_mfutil(PyObject *m, int dim);    /* average_down*, average_*_to_*, sum_fine_to_coarse */
int bfpy_init_interp(PyObject *m, int dim);    /* InterpBase, Interpolater, MFInterpolater and their kinds,
                                                  the interpolater singletons */
int bfpy_init_fillpatch(PyObject *m, int dim); /* fill_patch_single_level, fill_patch_two_levels,
                                                  interp_from_coarse_level */
int bfpy_init_fluxreg(PyObject *m, int dim);   /* FluxRegister */
int bfpy_init_tagbox(PyObject *m, int dim);    /* TagBox, TagBoxArray */
int bfpy_init_amrcore(PyObject *m, int dim);   /* AmrCore, ParGDBBase, AmrParGDB */

/* ---- plotfiles (issue 11) ------------------------------------------------------ */
int bfpy_init_plotfile(PyObject *m, int dim);  /* write_single_level_plotfile, write_multi_level_plotfile,
                                                  PlotFileData */

#endif
