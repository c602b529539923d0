/* boxfab — particles: PODVectors, particle tiles and particle containers.
 *
 * One container type with run-time numbers of components serves every
 * pyAMReX particle class (ParticleContainer_2_1_3_1, _pureSoA_8_0, ...) and
 * the generic named container.  A layout (bf_playout) says what a particle
 * holds:
 *
 *   - pure SoA (AMReX's SoAParticle, used by WarpX and ImpactX): every tile
 *     stores `nar` real arrays (the first `dim` are the positions x, y, z),
 *     one uint64 `idcpu` array (see idcpu.h) and `nai` int32 arrays;
 *   - legacy AoS + SoA: every tile stores an array of structs, one struct per
 *     particle (AMReX's Particle<nsr, nsi>, byte layout below), plus `nar`
 *     real and `nai` int SoA arrays (positions and idcpu are in the struct).
 *
 * Run-time components (add_real_comp / add_int_comp) are more SoA arrays,
 * after the compile-time ones; they may be added before or after particles
 * exist (existing particles get 0).  Every SoA component has a name.
 *
 * Struct layout of the AoS element (AMReX's Particle<nsr, nsi> for `dim`):
 *   offset 0                : double pos[dim]
 *   offset 8*dim            : double rdata[nsr]
 *   offset 8*(dim+nsr)      : uint64 idcpu
 *   offset 8*(dim+nsr)+8    : int32 idata[nsi]
 *   size                    : the above rounded up to a multiple of 8.
 *
 * Storage: each array is a bf_podvec, a reference-counted growable vector
 * whose elements live in a bf_buffer from the container's arena.  Growing a
 * vector beyond its capacity moves it to a new buffer; a view (NumPy, CuPy,
 * DLPack) that retained the old buffer (bf_podvec_buffer + bf_buffer_retain)
 * keeps reading the old storage, never freed memory.  Operations that
 * rearrange particles (redistribute, sort, remove) change the vectors of a
 * tile in place: a handle to a tile's vector obtained before stays the
 * tile's vector.
 *
 * Levels, grids and tiles: a container is defined on 1..BF_PC_MAX_LEVELS
 * levels, each with a Geometry, BoxArray and DistributionMapping (and a
 * refinement ratio to the next level).  Particles of a level live in tiles
 * keyed by (grid, tile); without tiling (AMReX's default, do_tiling = false)
 * the tile number is always 0.  With tiling, a particle's tile is the tile of
 * its grid that MFIter's tiling (mfiter.h) gives for its cell.
 *
 * Runtime: a container records the runtime instance it was created under;
 * every operation returns BF_ERROR_RUNTIME after that instance's finalize.
 * PODVectors and tiles outside a container do not depend on the runtime.
 *
 * Memory kinds: the arrays live in the container's arena (The_Arena,
 * pinned, device, managed, ...).  Operations run on the backend of that
 * memory (CPU kernels, or CUDA kernels on device memory); results are the
 * same on every backend (random numbers included: init_random uses a
 * counter-based generator).
 *
 * Errors: BF_ERROR_VALUE for bad arguments, BF_ERROR_INDEX for component,
 * level, grid or particle indices out of range, BF_ERROR_OVERFLOW for counts
 * that do not fit, BF_ERROR_MEMORY when an allocation fails (the container
 * is unchanged then: no particle is lost). */
#ifndef BOXFAB_PARTICLES_H
#define BOXFAB_PARTICLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boxfab/arena.h"
#include "boxfab/base.h"
#include "boxfab/boxarray.h"
#include "boxfab/distmap.h"
#include "boxfab/geometry.h"
#include "boxfab/multifab.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- PODVector ---------------------------------------------------------------- */

/** Element kinds of a PODVector. */
typedef enum bf_pod_kind {
  BF_POD_REAL = 0,   /**< double */
  BF_POD_INT = 1,    /**< int32 */
  BF_POD_UINT64 = 2, /**< uint64 (idcpu) */
  BF_POD_STRUCT = 3  /**< opaque elements of elem_size bytes (AoS particles) */
} bf_pod_kind;

typedef struct bf_podvec bf_podvec;

/** New vector of `n` >= 0 zeroed elements of `kind` in `arena` (NULL = The_Arena).
 *  elem_size is used for BF_POD_STRUCT only (> 0, a multiple of 8). */
BF_EXPORT int bf_podvec_create(bf_arena *arena, int kind, size_t elem_size, int64_t n, bf_podvec **v);
/** A new vector holding a copy of src's elements, in `arena` (NULL = src's). */
BF_EXPORT int bf_podvec_clone(const bf_podvec *src, bf_arena *arena, bf_podvec **v);
BF_EXPORT bf_podvec *bf_podvec_retain(bf_podvec *v);
BF_EXPORT void bf_podvec_destroy(bf_podvec **v);

BF_EXPORT int bf_podvec_kind(const bf_podvec *v);
BF_EXPORT size_t bf_podvec_elem_size(const bf_podvec *v);
BF_EXPORT int64_t bf_podvec_size(const bf_podvec *v);
BF_EXPORT int64_t bf_podvec_capacity(const bf_podvec *v);
BF_EXPORT bf_arena *bf_podvec_arena(const bf_podvec *v);
/** First element (NULL while capacity is 0). */
BF_EXPORT void *bf_podvec_data(const bf_podvec *v);
/** Borrowed current storage (NULL while capacity is 0); retain it to keep the
 *  elements a view shows alive across a reallocation. */
BF_EXPORT bf_buffer *bf_podvec_buffer(const bf_podvec *v);

/** Resize to n (new elements are zero; capacity grows geometrically). */
BF_EXPORT int bf_podvec_resize(bf_podvec *v, int64_t n);
/** Resize to n, new elements set to *value (elem_size bytes). */
BF_EXPORT int bf_podvec_resize_fill(bf_podvec *v, int64_t n, const void *value);
BF_EXPORT int bf_podvec_reserve(bf_podvec *v, int64_t n);
BF_EXPORT int bf_podvec_shrink_to_fit(bf_podvec *v);
/** Append one element / remove the last (BF_ERROR_INDEX when empty). */
BF_EXPORT int bf_podvec_push_back(bf_podvec *v, const void *value);
BF_EXPORT int bf_podvec_pop_back(bf_podvec *v);
/** Set every element to *value. */
BF_EXPORT int bf_podvec_assign(bf_podvec *v, const void *value);
/** Read / write element i (0 <= i < size, else BF_ERROR_INDEX) through host
 *  memory, whatever the memory kind. */
BF_EXPORT int bf_podvec_get(const bf_podvec *v, int64_t i, void *value);
BF_EXPORT int bf_podvec_set(bf_podvec *v, int64_t i, const void *value);
/** Copy n elements from host memory `src` to elements [i, i+n) (the vector
 *  must hold them), and back. */
BF_EXPORT int bf_podvec_write(bf_podvec *v, int64_t i, int64_t n, const void *src);
BF_EXPORT int bf_podvec_read(const bf_podvec *v, int64_t i, int64_t n, void *dst);
/** As bf_podvec_write, from `src` in device memory (any memory the device
 *  runtime addresses, after boxfab's pending work); without a GPU the same as
 *  bf_podvec_write. */
BF_EXPORT int bf_podvec_write_device(bf_podvec *v, int64_t i, int64_t n, const void *src);
/** Copy n elements of src from element j to elements [i, i+n) of dst, between
 *  any memories (same kind and element size, else BF_ERROR_TYPE; both ranges
 *  inside their vectors, else BF_ERROR_INDEX; dst may be src, overlapping as
 *  memmove). */
BF_EXPORT int bf_podvec_copy(bf_podvec *dst, int64_t i, const bf_podvec *src, int64_t j, int64_t n);
/** Resize to n without initializing new elements (the caller writes all of
 *  them before they are read: a copy that fills the vector). */
BF_EXPORT int bf_podvec_resize_uninit(bf_podvec *v, int64_t n);

/* ---- Layouts ------------------------------------------------------------------ */

/** What a particle holds (compile-time part of a pyAMReX class). */
typedef struct bf_playout {
  int dim;       /**< 1, 2, 3 */
  bool pure_soa; /**< pure SoA (no AoS; positions are SoA reals 0..dim-1) */
  int nsr, nsi;  /**< struct reals / ints (legacy only; 0 for pure SoA) */
  int nar, nai;  /**< compile-time SoA reals / ints (pure SoA: nar >= dim) */
} bf_playout;

/** BF_ERROR_VALUE unless dim in 1..3, counts >= 0 and <= 1024, and for pure
 *  SoA nsr == nsi == 0 and nar >= dim. */
BF_EXPORT int bf_playout_check(const bf_playout *layout);
/** Bytes of one AoS struct (0 for pure SoA) and byte offsets of its parts. */
BF_EXPORT size_t bf_playout_struct_size(const bf_playout *layout);
BF_EXPORT size_t bf_playout_idcpu_offset(const bf_playout *layout);
BF_EXPORT size_t bf_playout_idata_offset(const bf_playout *layout);

/* ---- Particle tiles ----------------------------------------------------------- */

typedef struct bf_ptile bf_ptile;

/** New empty tile of `layout` with `nrr` / `nri` run-time real / int SoA
 *  components, arrays in `arena` (NULL = The_Arena). */
BF_EXPORT int bf_ptile_create(const bf_playout *layout, int nrr, int nri, bf_arena *arena, bf_ptile **t);
BF_EXPORT bf_ptile *bf_ptile_retain(bf_ptile *t);
BF_EXPORT void bf_ptile_destroy(bf_ptile **t);

BF_EXPORT const bf_playout *bf_ptile_layout(const bf_ptile *t);
BF_EXPORT bf_arena *bf_ptile_arena(const bf_ptile *t);
/** Add run-time components (existing particles get 0 in them), named by
 *  real_names[nreal] / int_names[nint] (the arrays or entries may be NULL:
 *  default names).  BF_ERROR_VALUE for a name the tile already has.
 *  Default names follow pyAMReX's soa_real_comps / soa_int_comps: SoA reals
 *  of pure SoA layouts are "x", "y", "z", "a", ..., "w", "r0", "r1", ...
 *  (the list does not depend on dim, as in pyAMReX), of legacy layouts
 *  "a", ..., "w", "r0", ...; ints "i0", "i1", ...  (A container of a legacy
 *  layout names its SoA components as AMReX does instead: "real_comp0", ...,
 *  "int_comp0", ...) */
BF_EXPORT int bf_ptile_add_comps(bf_ptile *t, int nreal, const char *const *real_names, int nint,
                                 const char *const *int_names);
/** Borrowed name of SoA component comp (NULL when out of range); rename. */
BF_EXPORT const char *bf_ptile_real_comp_name(const bf_ptile *t, int comp);
BF_EXPORT const char *bf_ptile_int_comp_name(const bf_ptile *t, int comp);
BF_EXPORT int bf_ptile_set_real_comp_name(bf_ptile *t, int comp, const char *name);
BF_EXPORT int bf_ptile_set_int_comp_name(bf_ptile *t, int comp, const char *name);
/** Rename SoA components 0..nreal-1 / 0..nint-1 at once (a NULL array or
 *  entry keeps that name); BF_ERROR_VALUE, changing nothing, when a name is
 *  empty or the resulting names of a kind are not all different. */
BF_EXPORT int bf_ptile_rename_comps(bf_ptile *t, int nreal, const char *const *real_names, int nint,
                                    const char *const *int_names);

/** Particles (real + neighbours), i.e. the length of the idcpu / AoS vector. */
BF_EXPORT int64_t bf_ptile_size(const bf_ptile *t);
BF_EXPORT int64_t bf_ptile_num_neighbors(const bf_ptile *t);
BF_EXPORT int bf_ptile_set_num_neighbors(bf_ptile *t, int64_t n);
BF_EXPORT int64_t bf_ptile_capacity(const bf_ptile *t);
/** SoA components: compile-time + run-time. */
BF_EXPORT int bf_ptile_num_real_comps(const bf_ptile *t);
BF_EXPORT int bf_ptile_num_int_comps(const bf_ptile *t);
BF_EXPORT int bf_ptile_num_runtime_real_comps(const bf_ptile *t);
BF_EXPORT int bf_ptile_num_runtime_int_comps(const bf_ptile *t);

/** Borrowed vectors: the AoS (NULL for pure SoA), SoA real / int component
 *  `comp` (NULL when out of range), idcpu (NULL for legacy layouts). */
BF_EXPORT bf_podvec *bf_ptile_aos(const bf_ptile *t);
BF_EXPORT bf_podvec *bf_ptile_real(const bf_ptile *t, int comp);
BF_EXPORT bf_podvec *bf_ptile_int(const bf_ptile *t, int comp);
BF_EXPORT bf_podvec *bf_ptile_idcpu(const bf_ptile *t);

/** BF_ERROR_VALUE naming the component when the vectors of the tile do not
 *  all have the same length (a user resized one of them). */
BF_EXPORT int bf_ptile_check_consistent(const bf_ptile *t);

/** Resize / reserve / shrink every vector of the tile. */
BF_EXPORT int bf_ptile_resize(bf_ptile *t, int64_t n);
BF_EXPORT int bf_ptile_reserve(bf_ptile *t, int64_t n);
BF_EXPORT int bf_ptile_shrink_to_fit(bf_ptile *t);
/** Exchange the contents of two tiles of the same layout and components. */
BF_EXPORT int bf_ptile_swap(bf_ptile *a, bf_ptile *b);
/** Append the particles of src (same layout and component counts) to dst. */
BF_EXPORT int bf_ptile_append(bf_ptile *dst, const bf_ptile *src);

/** A "super particle": every datum of one particle, in host memory.
 *  pos[dim]; reals: struct reals (nsr) then all SoA reals (pure SoA: the SoA
 *  reals after the positions, i.e. nar - dim + nrr of them; legacy: nar + nrr);
 *  ints: struct ints (nsi) then all SoA ints; idcpu. */
typedef struct bf_superparticle {
  double pos[BF_SPACEDIM_MAX];
  uint64_t idcpu;
  int nreal, nint; /**< lengths of real / ints */
  double *real;    /**< caller-owned arrays of at least nreal / nint */
  int32_t *ints;
} bf_superparticle;

/** Number of reals / ints of a super particle of tile t. */
BF_EXPORT int bf_ptile_super_nreal(const bf_ptile *t);
BF_EXPORT int bf_ptile_super_nint(const bf_ptile *t);
/** Append / read / write particle i of the tile from a super particle
 *  (p->nreal / p->nint must equal the counts above). */
BF_EXPORT int bf_ptile_push_back(bf_ptile *t, const bf_superparticle *p);
BF_EXPORT int bf_ptile_get_particle(const bf_ptile *t, int64_t i, bf_superparticle *p);
BF_EXPORT int bf_ptile_set_particle(bf_ptile *t, int64_t i, const bf_superparticle *p);

/* ---- Particle containers ------------------------------------------------------- */

#define BF_PC_MAX_LEVELS 32

typedef struct bf_pc bf_pc;

/** New undefined container (no levels) of `layout` with arrays in `arena`
 *  (NULL = The_Arena).  Records bf_runtime_top(). */
BF_EXPORT int bf_pc_create(const bf_playout *layout, bf_arena *arena, bf_pc **pc);
BF_EXPORT bf_pc *bf_pc_retain(bf_pc *pc);
BF_EXPORT void bf_pc_destroy(bf_pc **pc);
/** BF_SUCCESS while pc's runtime instance is alive, else BF_ERROR_RUNTIME. */
BF_EXPORT int bf_pc_check(const bf_pc *pc);

/** Define on `nlev` levels (replaces any definition; particles are dropped).
 *  geoms/bas/dms have nlev entries (same dim as the layout); ref_ratio has
 *  (nlev - 1) * dim ints (ratio of level l+1 to l in direction d at
 *  [l*dim + d]; NULL when nlev == 1).  BF_ERROR_VALUE when sizes differ or a
 *  geometry is not ok. */
BF_EXPORT int bf_pc_define(bf_pc *pc, int nlev, const bf_geometry *geoms, bf_boxarray *const *bas,
                           bf_distmap *const *dms, const int *ref_ratio);
BF_EXPORT bool bf_pc_is_defined(const bf_pc *pc);
BF_EXPORT const bf_playout *bf_pc_layout(const bf_pc *pc);
BF_EXPORT bf_arena *bf_pc_arena(const bf_pc *pc);
/** Number of levels (0 when undefined); finest level = nlevels - 1. */
BF_EXPORT int bf_pc_num_levels(const bf_pc *pc);
/** Borrowed level data (BF_ERROR_INDEX for a level out of range). */
BF_EXPORT int bf_pc_level(const bf_pc *pc, int lev, const bf_geometry **geom, bf_boxarray **ba, bf_distmap **dm);
BF_EXPORT int bf_pc_ref_ratio(const bf_pc *pc, int lev, int *ratio);

/** Tiling (AMReX's do_tiling, tile_size; default off, (1024000, 8, 8)). */
BF_EXPORT int bf_pc_set_tiling(bf_pc *pc, bool tiling, const bf_intvect *tilesize);
BF_EXPORT bool bf_pc_tiling(const bf_pc *pc);
BF_EXPORT bf_intvect bf_pc_tilesize(const bf_pc *pc);

/* -- components -- */
/** SoA components of the container's tiles (compile-time + run-time). */
BF_EXPORT int bf_pc_num_real_comps(const bf_pc *pc);
BF_EXPORT int bf_pc_num_int_comps(const bf_pc *pc);
BF_EXPORT int bf_pc_num_runtime_real_comps(const bf_pc *pc);
BF_EXPORT int bf_pc_num_runtime_int_comps(const bf_pc *pc);
/** Add a run-time SoA component to every tile (existing particles get 0).
 *  name NULL = the default name (pure SoA: pyAMReX's soa_real_comps /
 *  soa_int_comps rule; legacy: AMReX's real_comp<i> / int_comp<i>, as the
 *  compile-time SoA components of a legacy container are named);
 *  BF_ERROR_VALUE for a name already used.  `communicate` is recorded. */
BF_EXPORT int bf_pc_add_real_comp(bf_pc *pc, const char *name, bool communicate);
BF_EXPORT int bf_pc_add_int_comp(bf_pc *pc, const char *name, bool communicate);
/** Rename an SoA component (BF_ERROR_VALUE for a duplicate name). */
BF_EXPORT int bf_pc_set_real_comp_name(bf_pc *pc, int comp, const char *name);
BF_EXPORT int bf_pc_set_int_comp_name(bf_pc *pc, int comp, const char *name);
/** Rename SoA components 0..nreal-1 and 0..nint-1 at once (AMReX's
 *  SetSoACompileTimeNames and more): BF_ERROR_VALUE, changing nothing, for
 *  a missing, empty or reserved name or names that would not all differ. */
BF_EXPORT int bf_pc_rename_comps(bf_pc *pc, int nreal, const char *const *real_names, int nint,
                                 const char *const *int_names);
/** Put the particles' arrays into another arena (pyAMReX's polymorphic
 *  allocator: pc.arena = ...; NULL = The_Arena).  Only while the container
 *  holds no particle (BF_ERROR_VALUE otherwise); its empty tiles are
 *  dropped and made again in the new arena when needed. */
BF_EXPORT int bf_pc_set_arena(bf_pc *pc, bf_arena *arena);
/** Borrowed name of SoA component comp (NULL when out of range). */
BF_EXPORT const char *bf_pc_real_comp_name(const bf_pc *pc, int comp);
BF_EXPORT const char *bf_pc_int_comp_name(const bf_pc *pc, int comp);
/** Index of a named component, -1 when no component has that name. */
BF_EXPORT int bf_pc_real_comp_index(const bf_pc *pc, const char *name);
BF_EXPORT int bf_pc_int_comp_index(const bf_pc *pc, const char *name);

/* -- tiles -- */
/** Borrowed tile (grid, tile) of level lev; with `create` a missing tile is
 *  made (empty, with the container's components), else *t = NULL.  The grid
 *  must be local (BF_ERROR_INDEX otherwise). */
BF_EXPORT int bf_pc_tile(bf_pc *pc, int lev, int64_t grid, int tile, bool create, bf_ptile **t);

/** The existing local tiles of a level, in (grid, tile) order. */
typedef struct bf_pc_tileref {
  int64_t grid;
  int tile;
  bf_ptile *ptile; /**< borrowed */
} bf_pc_tileref;
/** *n = number of tiles; when refs is not NULL it receives min(*n, cap)
 *  entries.  `nonempty_only`: skip tiles without particles (ParIter's list). */
BF_EXPORT int bf_pc_tiles(const bf_pc *pc, int lev, bool nonempty_only, bf_pc_tileref *refs, int64_t cap,
                          int64_t *n);
/** Make an (empty) tile for every local grid (and tile) of every level
 *  (AMReX's reserveData / resizeData). */
BF_EXPORT int bf_pc_resize_data(bf_pc *pc);

/* -- counts -- */
/** Particles of a level / all levels; only_valid counts ids > 0 only.
 *  Global (summed over the processes, collective) unless only_local; the
 *  total includes particles waiting in the outbox (bf_pc_add_particles_at_level). */
BF_EXPORT int bf_pc_num_particles_at_level(const bf_pc *pc, int lev, bool only_valid, bool only_local, int64_t *n);
BF_EXPORT int bf_pc_total_num_particles(const bf_pc *pc, bool only_valid, bool only_local, int64_t *n);
/** counts[g] for every grid g of level lev (length = BoxArray size): global
 *  (collective), or with only_local this process's (0 for other grids). */
BF_EXPORT int bf_pc_num_particles_in_grid(const bf_pc *pc, int lev, bool only_valid, bool only_local, int64_t *counts);
/** Bytes of particle data held (used: size; capacity: reserved). */
BF_EXPORT int bf_pc_bytes(const bf_pc *pc, int64_t *used, int64_t *capacity);

/* -- ids -- */
/** Next particle id of the id family `family` (one counter per pyAMReX
 *  particle type, AMReX's Particle<NR,NI>::NextID(); any small int): returns
 *  the current value and adds `count`.  Ids start at 1.  BF_ERROR_OVERFLOW
 *  past BF_IDCPU_MAX_ID. */
BF_EXPORT int bf_particle_next_id(int family, int64_t count, int64_t *first);
BF_EXPORT int bf_particle_set_next_id(int family, int64_t next);
/** The id family a container draws from. */
BF_EXPORT int bf_pc_id_family(const bf_pc *pc);
BF_EXPORT void bf_pc_set_id_family(bf_pc *pc, int family);

/* -- adding particles -- */
/** Initial values of the components (pyAMReX's ParticleInitType): struct
 *  reals/ints (legacy), SoA reals (pure SoA: all nar, positions included,
 *  which are overwritten) and SoA ints of the compile-time components;
 *  run-time components start at 0. */
typedef struct bf_pinit {
  const double *real_struct; /**< nsr values (NULL: zeros) */
  const int32_t *int_struct; /**< nsi values */
  const double *real_array;  /**< nar values */
  const int32_t *int_array;  /**< nai values */
} bf_pinit;

/** AMReX's InitRandom: `count` particles at uniform random positions in
 *  `box` (NULL = the level-0 problem domain; must lie inside it), ids from the
 *  container's id family, other data from `init`; then redistributed.
 *  `seed` > 0.  The positions depend only on (seed, i), not on the number of
 *  processes: every process draws all of them (counter-based generator, no
 *  message) and keeps those of its grids.  Ids and cpus as AMReX gives them:
 *  without serialize, process r "generates" particles [s_r, s_r + M_r)
 *  (M = count / nprocs, process 0 also the remainder) with M_r consecutive
 *  ids of its own counter and cpu r; with serialize, each process numbers the
 *  particles it keeps (in generation order) from its own counter, cpu = itself.
 *  Collective with several processes. */
BF_EXPORT int bf_pc_init_random(bf_pc *pc, int64_t count, uint64_t seed, const bf_pinit *init, bool serialize,
                                const bf_realbox *box);
/** AMReX's InitRandomPerBox: count_per_box particles in each box of level 0;
 *  each process fills its own boxes (positions of box g: counters
 *  g * count_per_box + k, the same on any number of processes), ids from its
 *  own counter, cpu = itself.  Collective with several processes (particles of
 *  finer levels' grids go to their owners). */
BF_EXPORT int bf_pc_init_random_per_box(bf_pc *pc, int64_t count_per_box, uint64_t seed, const bf_pinit *init);
/** AMReX's InitOnePerCell: one particle per cell of level 0 at lo + off*dx
 *  (off[d] in [0, 1)); each process fills its own boxes (as init_random_per_box). */
BF_EXPORT int bf_pc_init_one_per_cell(bf_pc *pc, const double *off, const bf_pinit *init);

/** Append the particles of `src` (same layout; its run-time component counts
 *  must equal the container's) to level lev; they go to the first local tile
 *  until redistribute (AMReX's addParticles), or, on a process without grids
 *  on that level, to the container's outbox (not seen by iterators; counted
 *  by bf_pc_total_num_particles; sent by the next redistribute). */
BF_EXPORT int bf_pc_add_particles_at_level(bf_pc *pc, const bf_ptile *src, int lev, int ngrow);

/** Columns of particles to add: positions (dim arrays), reals of every SoA
 *  real component after the positions (pure SoA) or every SoA real (legacy),
 *  struct reals/ints (legacy), ints, ids (NULL: new ids from the family)
 *  and cpus (NULL: this rank).  Any array may be NULL (zeros); `device`
 *  says the arrays are device memory (CUDA). */
typedef struct bf_pcolumns {
  int64_t n;
  bool device;
  const double *pos[BF_SPACEDIM_MAX];
  const double *const *real;       /**< [num SoA reals after positions] or NULL */
  const int32_t *const *ints;      /**< [num SoA ints] */
  const double *const *real_struct; /**< [nsr] */
  const int32_t *const *int_struct; /**< [nsi] */
  const int64_t *ids;
  const int32_t *cpus;
  const uint64_t *idcpu; /**< packed ids and cpus (NULL: from ids / cpus); every one valid (bit 63 set);
                              not with ids or cpus */
} bf_pcolumns;
/** Add particles from columns to level lev, then redistribute that level
 *  when `redistribute` (else they sit in the first local tile, or the outbox
 *  on a process without grids there).  With several processes and
 *  `redistribute`, collective: particles of other processes' grids are sent
 *  to them; an error on one process (say a non-finite position) is an error
 *  on every process (the others get BF_ERROR_RUNTIME; their own particles
 *  are added). */
BF_EXPORT int bf_pc_add_columns(bf_pc *pc, int lev, const bf_pcolumns *cols, bool redistribute);

/* -- moving and removing -- */
/** AMReX's Redistribute(lev_min, lev_max, nGrow, local, remove_negative):
 *  periodic positions are wrapped into the domain, particles outside a
 *  non-periodic boundary are removed, with remove_negative particles with
 *  id <= 0 too; every particle goes to the finest level in
 *  [lev_min, lev_max] (lev_max -1 = finest) whose BoxArray contains its
 *  cell, into the tile of that cell, on the process that the level's
 *  DistributionMapping names for that grid.  Empty tiles are removed.
 *
 *  Order (reproducible for a given number of processes): a tile holds the
 *  particles that stayed, in their order; then the arrivals from this
 *  process's tiles, in source order (level, grid, tile, index; the outbox
 *  last); then the arrivals from process 0, 1, ... (not this one), each in
 *  its sender's source order.
 *
 *  Several processes (collective: every process calls it with the same
 *  arguments): the leavers are staged per destination process, counts are
 *  exchanged (alltoall), then one message per pair of processes that
 *  exchange particles, holding every vector of the particles (AoS, idcpu,
 *  all SoA components, run-time ones included); the receiver locates the
 *  arrivals again (their positions were wrapped by the sender).  Device
 *  memory goes through host (pinned) buffers.  An error on one process
 *  before the exchange is an error on every process (BF_ERROR_RUNTIME,
 *  "failed on another process") and nothing moves; an MPI failure during the
 *  exchange may lose particles (the message says so).  `local` (AMReX's
 *  neighbour-only hint) takes the same path. */
BF_EXPORT int bf_pc_redistribute(bf_pc *pc, int lev_min, int lev_max, int ngrow, int local, bool remove_negative);
/** AMReX's OK(): every particle with id > 0 is where redistribute would put it
 *  (on every process: collective with several; none waits in the outbox). */
BF_EXPORT int bf_pc_ok(const bf_pc *pc, int lev_min, int lev_max, int ngrow, bool *ok);
BF_EXPORT int bf_pc_clear(bf_pc *pc);
BF_EXPORT int bf_pc_remove_at_level(bf_pc *pc, int lev);
BF_EXPORT int bf_pc_remove_not_at_finest(bf_pc *pc);
/** Sort each tile's particles by cell (x fastest), or by bins of bin_size
 *  cells; stable. */
BF_EXPORT int bf_pc_sort_by_cell(bf_pc *pc);
BF_EXPORT int bf_pc_sort_by_bin(bf_pc *pc, const bf_intvect *bin_size);
BF_EXPORT int bf_pc_shrink_to_fit(bf_pc *pc);

/* -- particles and mesh -- */
/** AMReX's Increment: add the number of particles of each cell of level lev
 *  to component 0 of mf (cell-centred, on lev's BoxArray). */
BF_EXPORT int bf_pc_increment(const bf_pc *pc, bf_multifab *mf, int lev);

/** Shape functions of deposition and interpolation. */
enum { BF_SHAPE_NGP = 0, BF_SHAPE_CIC = 1, BF_SHAPE_TSC = 2 };
/** Deposit SoA real component `comp` (-1: weight 1 per particle) of the
 *  particles of level lev onto component mfcomp of mf (cell-centred on lev's
 *  BoxArray and DistributionMapping, enough ghost cells for the shape), as
 *  density: each particle adds w * shape / cell volume.  Contributions to
 *  ghost cells are summed back into the valid cells they are images of
 *  (periodic included) when `sum_boundary`. */
BF_EXPORT int bf_pc_deposit(const bf_pc *pc, int lev, int comp, bf_multifab *mf, int mfcomp, int shape,
                            bool sum_boundary);
/** bf_pc_deposit, first setting component mfcomp of mf to 0 (valid and
 *  ghost cells) when `zero_out` (AMReX's ParticleToMesh zero_out_input):
 *  then the deposit needs no scratch MultiFab for sum_boundary.
 *
 *  Details of both: the shapes are the cell-centred NGP (the particle's
 *  cell), CIC (AMReX's ParticleInterpolator::Linear) and TSC (quadratic
 *  spline over the nearest cell and its neighbours); NGP needs no ghost
 *  cell, CIC and TSC one.  The particles of a tile must lie in its grid (as
 *  after redistribute): a particle whose stencil leaves the grid grown by the
 *  ghost cells, or whose position is not finite, gives BF_ERROR_VALUE.
 *  Without zero_out and with sum_boundary, mf's ghost cells are unchanged
 *  and so is mf on any error; without sum_boundary the ghost cells receive
 *  the raw contributions.  BF_ERROR_VALUE when mf is not cell-centred, not on
 *  lev's BoxArray and DistributionMapping, has too few ghost cells or no
 *  data; BF_ERROR_TYPE for a MultiFab of another dim or not of doubles;
 *  BF_ERROR_INDEX for comp / mfcomp / lev out of range. */
BF_EXPORT int bf_pc_deposit_ex(const bf_pc *pc, int lev, int comp, bf_multifab *mf, int mfcomp, int shape,
                               bool sum_boundary, bool zero_out);
/** Interpolate component mfcomp of mf (ghost cells filled) to SoA real
 *  component `comp` of every particle of level lev with the shape's weights
 *  (the same cells and weights as the deposit; comp must not be a position).
 *  On BF_ERROR_VALUE for particles outside their grid, the others received
 *  their values and these kept theirs. */
BF_EXPORT int bf_pc_interpolate(bf_pc *pc, int lev, int comp, const bf_multifab *mf, int mfcomp, int shape);

/* -- files (AMReX's binary particle format; src/core/particles/io.c) -- */
/** AMReX's WritePlotFile(dir, name): dir/name/Header, dir/name/Level_L/Particle_H
 *  and dir/name/Level_L/DATA_00000 with the particles of id > 0, the same bytes
 *  as AMReX writes on one rank (Version_Two_Dot_Zero_double; ids and cpus as
 *  int32).  Component names are AMReX's defaults real_compN / int_compN.  `dir`
 *  is created when missing; the particle directory is written under a
 *  temporary sibling name and renamed into place (an existing one is
 *  replaced).  BF_ERROR_VALUE for an undefined container, an empty dir or a
 *  name that is not one path component; BF_ERROR_IO naming the path when a
 *  file cannot be written. */
BF_EXPORT int bf_pc_write_plotfile(const bf_pc *pc, const char *dir, const char *name);
/** AMReX's Checkpoint(dir, name): as bf_pc_write_plotfile with
 *  Version_Two_Dot_One_double (ints 0 and 1 are the two 32-bit halves of idcpu). */
BF_EXPORT int bf_pc_checkpoint(const bf_pc *pc, const char *dir, const char *name);
/** Both, choosing: `checkpoint`; `named`: write the container's SoA component
 *  names instead of real_compN / int_compN (struct components keep those). */
BF_EXPORT int bf_pc_write_binary(const bf_pc *pc, const char *dir, const char *name, bool checkpoint, bool named);
/* Several processes (the three writers and bf_pc_restart are collective over the
 * container's instance): each process writes its grids into
 * Level_L/DATA_<rank / ceil(nprocs / nfiles)> (nfiles = max(1, min(nprocs,
 * ParmParse particles.particles_nfiles)), 256 unless set, -1: nprocs), the
 * processes of one file in rank order; process 0 writes Header and Particle_H
 * with the gathered (file, count, offset) of every grid and renames the
 * directory after all agree.  Particles waiting in the outbox: BF_ERROR_VALUE
 * on every process.  An error on one process is returned on every process and
 * nothing appears under the final name.  Restart: each process reads the grids
 * it owns when the file's level BoxArray is the container's, else grid g is read
 * by process g % nprocs; all check before any adds; then redistribute. */
/** AMReX's Restart(dir, name): read particles written by boxfab or AMReX
 *  (Version_Two_Dot_Zero / _One, _double or _single, Version_One_Dot_*), add
 *  them to the container (existing particles stay; a level beyond the
 *  container's finest goes to its finest), raise the id counter to the file's
 *  next id (never lower it), and redistribute.  The component counts must match the
 *  container's.  Every file is checked before the container changes:
 *  BF_ERROR_VALUE naming the file (and the line of a text file) for malformed
 *  content, BF_ERROR_IO for a file that cannot be read. */
BF_EXPORT int bf_pc_restart(bf_pc *pc, const char *dir, const char *name);

/** AMReX's WritePlotFile(dir, name, real_comp_names, int_comp_names) (and
 *  Checkpoint with names): the Header names the components as given.
 *  nreal = struct reals + SoA reals (pure SoA: without the positions),
 *  nint = struct ints + SoA ints, else BF_ERROR_VALUE; names with blanks
 *  are refused as in bf_pc_write_binary. */
BF_EXPORT int bf_pc_write_binary_names(const bf_pc *pc, const char *dir, const char *name, bool checkpoint,
                                       int nreal, const char *const *real_names, int nint,
                                       const char *const *int_names);

/** The Header of a particle directory dir/name, read and checked as
 *  bf_pc_restart does (without the data files): pyAMReX's ParticleHeader.
 *  BF_ERROR_IO when it cannot be read, BF_ERROR_VALUE when malformed.
 *  Collective over the top runtime instance (AMReX's ReadAndBcastFile):
 *  rank 0 reads, every rank gets the text or rank 0's error. */
typedef struct bf_particle_header bf_particle_header;
BF_EXPORT int bf_particle_header_read(const char *dir, const char *name, bf_particle_header **h);
BF_EXPORT void bf_particle_header_destroy(bf_particle_header **h);
/** The version token ("Version_Two_Dot_Zero_double", ...). */
BF_EXPORT const char *bf_particle_header_version(const bf_particle_header *h);
BF_EXPORT int bf_particle_header_dim(const bf_particle_header *h);
/** Real / int components in the file (pure SoA: the positions not counted)
 *  and their names (NULL out of range). */
BF_EXPORT int bf_particle_header_num_real(const bf_particle_header *h);
BF_EXPORT int bf_particle_header_num_int(const bf_particle_header *h);
BF_EXPORT const char *bf_particle_header_real_name(const bf_particle_header *h, int i);
BF_EXPORT const char *bf_particle_header_int_name(const bf_particle_header *h, int i);
/** The Header's is_checkpoint flag; single-precision reals. */
BF_EXPORT bool bf_particle_header_is_checkpoint(const bf_particle_header *h);
BF_EXPORT bool bf_particle_header_is_single(const bf_particle_header *h);
BF_EXPORT int64_t bf_particle_header_num_particles(const bf_particle_header *h);
BF_EXPORT int64_t bf_particle_header_next_id(const bf_particle_header *h);
BF_EXPORT int bf_particle_header_finest_level(const bf_particle_header *h);
/** Grids of level lev (-1 beyond the finest level). */
BF_EXPORT int64_t bf_particle_header_num_grids(const bf_particle_header *h, int lev);

#ifdef __cplusplus
}
#endif
#endif
