/* Private: the particle container (see include/boxfab/particles.h).
 *
 * Storage: the tiles of all levels live in one array of "slots".  Level l
 * owns slots [base, base + nslots); within a level the local grids take
 * consecutive runs of slots in grid order, one slot per MFIter tile of the
 * grid (one without tiling).  A slot holds a tile or NULL (no tile yet).
 * The slot numbers are what the point locator (backend.h, bf_ploc_*)
 * returns, so redistribute needs no map lookups per particle. */
#ifndef BOXFAB_PARTICLES_IMPL_H
#define BOXFAB_PARTICLES_IMPL_H

#include "runtime/backend.h"
#include "boxfab/particles.h"
#include "base/object.h"

typedef struct pc_level {
  bf_geometry geom;
  bf_boxarray *ba;
  bf_distmap *dm;
  int ratio[3]; /* to level + 1 */
  int64_t ngrids;
  bf_ploc_grid *grids;  /* [ngrids] */
  int64_t base, nslots; /* slots of this level */
  int64_t *slot_grid;   /* [nslots]: grid of each slot */
  int *slot_tile;       /* [nslots]: tile number of each slot */
  int64_t *bin_start;   /* locator bins (bf_ploc_level) */
  int32_t *bin_grid;
  int32_t *bin_exact;
  bf_ploc_level loc;
} pc_level;

struct bf_pc {
  bf_object obj;
  uint64_t runtime;
  bf_playout layout;
  bf_arena *arena;
  int family;
  bool tiling;
  bf_intvect tilesize;
  int nlev;
  pc_level lev[BF_PC_MAX_LEVELS];
  int64_t nslots;
  bf_ptile **slots; /* [nslots] */
  bf_ptile *proto;  /* empty tile holding the components and their names */
  /* Grids of other processes (MPI): the locator gives every tile of such a
   * grid a "virtual slot" nslots + v (v < nvirt, after the local slots, in
   * level, grid, tile order); virt_rank[v] is the rank that owns it. */
  int64_t nvirt;
  int32_t *virt_rank; /* [nvirt] */
  /* Particles waiting to go to another process: added on a process that does
   * not own their grid (bf_pc_insert with a virtual slot, add_particles on a
   * process without grids of the level); the next redistribute sends them.
   * NULL or a tile of the container's components. */
  bf_ptile *outbox;
};

/* The communicator of the container's runtime instance. */
struct bf_comm;
const struct bf_comm *bf_pc_comm(const bf_pc *pc);
/* Redistribute of the outbox only (collective: every process calls it): its
 * particles are located on levels [lev_min, lev_max] and sent to their
 * owners.  `failed`: this process had an error before (its message is kept);
 * then every process returns an error and nothing moves. */
int bf_pc_exchange_outbox(bf_pc *pc, int lev_min, int lev_max, bool failed);

/* Build the slot tables and locators of the levels (after define or a tiling
 * change); no tile may exist. */
int bf_pc_build_slots(bf_pc *pc);
void bf_pc_free_levels(bf_pc *pc);
/* New empty tile with the container's components and names. */
int bf_pc_new_tile(bf_pc *pc, bf_ptile **t);
/* Tile of a slot, made when missing. */
int bf_pc_slot_tile(bf_pc *pc, int64_t slot, bf_ptile **t);
/* The level of a slot. */
int bf_pc_slot_level(const bf_pc *pc, int64_t slot);

/* Device-only memory whose backend lacks particle kernels: operations run on
 * a host mirror (bf_pc_mirror: a container in The_Cpu_Arena with copies of
 * the levels, components and tiles), whose tiles then replace the container's
 * (bf_pc_writeback, all reserved first).  BOXFAB_PARTICLE_MIRROR=1 forces
 * this path for every arena but The_Cpu_Arena (tests). */
bool bf_pc_needs_mirror(const bf_pc *pc);
/* Operations written for host memory only (sorting, Increment, OK: they read
 * positions on the host) take the mirror for every device-only arena, with or
 * without device kernels. */
bool bf_pc_needs_host(const bf_pc *pc);
/* Where the dest codes of p_locate / p_random_locate live: pinned memory
 * when the container's kernels run on the device (they write the codes
 * there directly), else The_Cpu_Arena. */
bf_arena *bf_pc_dest_arena(const bf_pc *pc);
/* Redistribute and init_random take the device-resident path (the table's
 * p_redist_sort ... p_plan_free): always with a device backend's entries;
 * with the CPU reference of them only where BOXFAB_PARTICLE_PLAN=1 and the
 * container is not in The_Cpu_Arena (tests of that path without a GPU). */
bool bf_pc_use_plan(const bf_pc *pc, const bf_backend_particles *K);
int bf_pc_mirror(const bf_pc *pc, bf_pc **h);
int bf_pc_writeback(bf_pc *pc, const bf_pc *h);

/* The first valid particle (id > 0) among the first n of tile t whose position is not finite (NaN or
 * infinite): *index (-1: none), its idcpu and position (x[3]); any memory kind (host copies). */
int bf_pc_tile_nonfinite(const bf_pc *pc, const bf_ptile *t, int64_t n, int64_t *index, uint64_t *idcpu, double *x);
/* BF_ERROR_VALUE naming particle i of tile t (slot; -1: the outbox) that redistribute refuses (code, see
 * BF_PDEST_REFUSED): "<what>: particle i of level L, grid G, tile T (id, cpu) has a position that is not
 * finite (x, y, z) / at (x, y, z) lies inside the domain but in no grid of levels lev_min..lev_max;
 * <outcome> (...)". */
int bf_pc_refused_error(const bf_pc *pc, int64_t slot, const bf_ptile *t, int64_t i, int code, int lev_min,
                        int lev_max, const char *what, const char *outcome);

/* Stable counting sort of particles by slot (particles/init.c). */
int bf_pc_count_sort(int64_t n, const int32_t *dest, int64_t ns, int64_t *cnt, int64_t *idx);

/* Run `call` (an expression using the host container `h_`) on a mirror of pc
 * and write back (write = true) or not. */
#define BF_PC_MIRRORED(pc, write, call)                                                                                \
  do {                                                                                                                 \
    bf_pc *h_ = NULL;                                                                                                  \
    BF_CALL(bf_pc_mirror((pc), &h_));                                                                                  \
    int st_ = (call);                                                                                                  \
    if (!st_ && (write)) st_ = bf_pc_writeback((bf_pc *)(uintptr_t)(pc), h_);                                          \
    bf_pc_destroy(&h_);                                                                                                \
    return st_;                                                                                                        \
  } while (0)

/* The particle kernels for the container's memory (CPU kernels for host
 * memory); NULL with BF_ERROR_VALUE set when the memory is device-only and
 * the backend has no particle kernels. */
const bf_backend_particles *bf_pc_kernels(const bf_pc *pc);

/* The vectors of a tile in the canonical order: AoS (legacy), idcpu (pure
 * SoA), SoA reals, SoA ints.  Returns their number (<= cap). */
int bf_pc_tile_vecs(const bf_ptile *t, bf_podvec **vecs, int cap);

/* The tile vectors as the device-resident kernels see them (bf_pvecs; elem:
 * BF_PC_PVECS_MAX entries of storage, the vectors' element sizes). */
#define BF_PC_PVECS_MAX 4096
void bf_pc_pvecs(const bf_pc *pc, size_t *elem, bf_pvecs *pv);

/* Positions / idcpu of a tile as a locator part (pointers into the tile). */
void bf_pc_tile_part(const bf_pc *pc, const bf_ptile *t, bf_ppart *part);

/* Fill the shortcut of `part` (tile `slot`, see bf_ppart) when the slot's
 * level is lev_max. */
void bf_pc_part_shortcut(const bf_pc *pc, int64_t slot, int lev_max, bf_ppart *part);

/* The locator of levels [lev_min, lev_max] with AMReX's periodic values
 * (levs: BF_PC_MAX_LEVELS entries of storage it points to). */
void bf_pc_locator(const bf_pc *pc, int lev_min, int lev_max, int ngrow, bool remove_negative, bf_ploc_level *levs,
                   bf_plocate *loc);

/* Insert n staged particles into the tiles: vecs[v] (host or container
 * memory, see bf_pc_tile_vecs' order) holds particle i's element v at
 * (char *)vecs[v] + i * elem, or, when consts[v] is not NULL, every particle
 * has *consts[v]; dest[i] is the slot (particles with dest < 0 are skipped;
 * a virtual slot >= nslots, a grid of another process, means the outbox).
 * Appended in order.  All or nothing. */
int bf_pc_insert(bf_pc *pc, int64_t n, const void *const *vecs, const void *const *consts, const int32_t *dest);

#endif
