/* boxfab._core: particle arrays and tiles, private declarations shared by
 * particles/podvector.c (PODVector_*), particles/tile.c (Particle_*,
 * ParticleInitType_*, ArrayOfStructs_*, StructOfArrays_*, ParticleTile_*,
 * ParticleTileData_*) and the container files (ParticleContainer_*,
 * ParIter_*).
 *
 * Names.  A particle *spec* is one compile-time layout pyAMReX instantiates
 * in a space module: its suffix ("2_1_3_1", "pureSoA_8_0") and its
 * bf_playout.  An *alloc* is one of pyAMReX's allocator suffixes; each maps
 * to the boxfab arena of the same memory kind (without a GPU all are host
 * memory):
 *   default -> The_Arena (AMReX's DefaultAllocator: The_Arena on GPU builds,
 *              host memory otherwise), pinned -> The_Pinned_Arena,
 *   arena -> The_Arena, std -> The_Cpu_Arena (std::allocator),
 *   device -> The_Device_Arena, managed -> The_Managed_Arena,
 *   async -> The_Async_Arena.
 * Every Python object of these families holds a reference to the C object
 * it views (bf_podvec / bf_ptile), so views outlive the container or tile
 * they came from; exports (NumPy, CuPy, DLPack) hold the bf_buffer of the
 * storage they show. */
#ifndef BOXFAB_BFPY_PARTICLES_H
#define BOXFAB_BFPY_PARTICLES_H

#include "bfpy.h"
#include "boxfab/particles.h"

/* alloc suffixes */
enum {
  BFPY_ALLOC_DEFAULT,
  BFPY_ALLOC_PINNED,
  BFPY_ALLOC_ARENA,
  BFPY_ALLOC_STD,
  BFPY_ALLOC_DEVICE,
  BFPY_ALLOC_MANAGED,
  BFPY_ALLOC_ASYNC,
  BFPY_ALLOC_POLYMORPHIC, /* pyAMReX 26: the arena is chosen at run time (The_Arena unless given) */
  BFPY_NALLOC
};
const char *bfpy_alloc_name(int alloc);          /* "default", ... */
bf_arena *bfpy_alloc_arena(int alloc);           /* arena of that allocator */

typedef struct bfpy_pspec {
  const char *suffix; /* "2_1_3_1", "pureSoA_8_0" */
  bf_playout layout;
} bfpy_pspec;
int bfpy_pspec_count(int dim);
const bfpy_pspec *bfpy_pspec_at(int dim, int i);
int bfpy_pspec_find(int dim, const char *suffix); /* -1 when absent */
int bfpy_pspec_id_family(int dim, int spec);      /* id counter of the super particle type, shared with
                                                     Particle_<NR>_<NI>.NextID */
PyTypeObject *bfpy_ptile_type(int dim, int spec, int alloc); /* ParticleTile_S_A */
PyTypeObject *bfpy_pinit_type(int dim, int spec);            /* ParticleInitType_S */

/* New reference to a ParticleTile_S_A / StructOfArrays / ArrayOfStructs
 * object viewing tile t (retains t; keeps `owner` alive, may be NULL). */
PyObject *bfpy_ptile_wrap(int dim, int spec, int alloc, bf_ptile *t, PyObject *owner);
PyObject *bfpy_soa_wrap(int dim, int spec, int alloc, bf_ptile *t, PyObject *owner);
PyObject *bfpy_aos_wrap(int dim, int spec, int alloc, bf_ptile *t, PyObject *owner); /* legacy only */

/* Borrowed tile of a ParticleTile_* object, or NULL with TypeError; fills
 * dim/spec/alloc when not NULL. */
bf_ptile *bfpy_ptile_unwrap(PyObject *o, int *dim, int *spec, int *alloc);

/* Values of a ParticleInitType_* object (pointers valid while it lives), or
 * -1 with TypeError when o is not one of spec. */
int bfpy_pinit_values(PyObject *o, int dim, int spec, bf_pinit *out);

/* ---- more (used inside the particle files) ------------------------------------ */

/* PODVector element kinds exposed to Python: real, int, uint64. */
enum { BFPY_PV_REAL, BFPY_PV_INT, BFPY_PV_UINT64, BFPY_NPV };

/* New reference to a PODVector_<T>_<alloc> object viewing v (retains v;
 * keeps `owner` alive, may be NULL); T from v's kind (real, int, uint64).
 * alloc: the tile's allocator (default maps to the name pyAMReX uses). */
PyObject *bfpy_podvec_wrap(int dim, int alloc, bf_podvec *v, PyObject *owner);
/* Borrowed vector of a PODVector_* object, or NULL with TypeError. */
bf_podvec *bfpy_podvec_unwrap(PyObject *o);

/* A _PODView of the current storage of v (holds its bf_buffer); descr: the
 * array interface descr of struct elements (stolen; NULL for numbers). */
PyObject *bfpy_podview_new(bf_podvec *v, PyObject *descr);
/* numpy / cupy array of a _PODView: a zero-copy view (copy false) or a copy. */
PyObject *bfpy_podview_to_numpy(PyObject *view, bool copy);
PyObject *bfpy_podview_to_cupy(PyObject *view, bool copy);
/* Keep a _PODView in the list *pinned (made when NULL) unless one of the same
 * storage is there: for objects that hand out interface dicts (a consumer of
 * those holds the object, not the memory).  0 or -1 with an exception. */
int bfpy_podview_pin(PyObject **pinned, PyObject *view);
/* The copy=False argument of to_numpy / to_cupy / to_xp: 0 / 1, or -1 with an exception. */
int bfpy_copy_arg(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);

/* Particle_<NR>_<NI>: the bytes of AMReX's Particle<NR, NI> (layout
 * {dim, legacy, nsr = NR, nsi = NI}), owned, or element `index` of an AoS
 * vector `ref` (a reference: reads and writes go to the storage). */
typedef struct {
  PyObject_HEAD
  int dim, nr, ni;
  bf_podvec *ref;
  int64_t index;
  unsigned char *data; /* owned bytes when ref == NULL */
} bfpy_particle_object;

/* The layout of Particle_<nr>_<ni> in dimension dim. */
static inline bf_playout bfpy_particle_layout(int dim, int nr, int ni) {
  bf_playout l = {dim, false, nr, ni, 0, 0};
  return l;
}
/* New Particle_<nr>_<ni> (TypeError when pyAMReX has no such type in dim):
 * a copy of `bytes` (NULL: zeros), or a reference to element index of ref. */
PyObject *bfpy_particle_new(int dim, int nr, int ni, const void *bytes, bf_podvec *ref, int64_t index);
/* The struct bytes of a Particle_<nr>_<ni> object (exactly that type family,
 * else TypeError naming `what`); IndexError when a reference went stale. */
int bfpy_particle_bytes(PyObject *o, int dim, int nr, int ni, void *bytes, const char *what);
/* True when o is a Particle_* of dimension dim; fills nr / ni. */
bool bfpy_particle_kind(PyObject *o, int dim, int *nr, int *ni);

/* Family init functions (called from module.c per space module). */
int bfpy_init_podvector(PyObject *m, int dim); /* _PODView, PODVector_* */
int bfpy_init_particle(PyObject *m, int dim);  /* Particle_*, ParticleInitType_* */
int bfpy_init_ptile(PyObject *m, int dim);     /* ArrayOfStructs_*, StructOfArrays_*, ParticleTile_*,
                                                  ParticleTileData_* */

#endif
