/* Private: the backend interface.  A backend fills a bf_backend table with
 * memory functions, the MultiFab kernels and (device backends) the device
 * glue; the core calls a backend only through a table.
 *
 * Layering (no circle between the core and a backend):
 *   - a backend is one folder src/backend/<name>/ whose sources include this
 *     header (and the public headers, for the error functions) and define one
 *     registration descriptor, `const bf_backend_provider
 *     bf_backend_provider_<name>` (a name, whether it drives a device, and a
 *     fill function).  Nothing else of a backend is visible to the core;
 *   - CMake lists the backends of the build (BOXFAB_BACKENDS in
 *     CMakeLists.txt: cpu first, then cuda where nvcc exists) and generates
 *     the X-macro BOXFAB_BACKEND_LIST(X) in boxfab_config.h; backend.c is the
 *     only core file that names the descriptors, through that list;
 *   - the core (gpu.c, arena.c, the MultiFab and particle code) reaches a
 *     backend only through the tables below.
 * Adding a backend is one new folder plus one line in CMakeLists.txt.
 *
 * There is one table per kind of memory (backend.c):
 *   - the host table (the first backend of the list, "cpu") always exists;
 *   - the device table is the first device backend of the list whose fill
 *     succeeds (a device found and initialized), unless BOXFAB_DEVICE is
 *     "cpu"; BOXFAB_DEVICE=<name> tries only that device backend;
 *   - the pinned table (pinned memory of the device backend) has the device's
 *     memory functions and glue and the host's kernels, which the core runs
 *     after waiting for the device (see bf_backend_host_sync).
 * bf_backend_for_kind(kind) gives the table for memory of an arena kind: the
 * device table for device/managed/async memory (and The_Arena) when there is
 * a device, the host table for host memory; the pinned table for pinned
 * memory.  Nothing here is public. */
#ifndef BOXFAB_BACKEND_H
#define BOXFAB_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One array of one fab, seen by a kernel.  Element (i, j, k, n) is at
 * data + (i - lo[0]) + (j - lo[1]) * js + (k - lo[2]) * ks + n * ns (in elements).
 * Unused dimensions have lo = 0. */
typedef struct bf_kview {
  void *data;
  int lo[3];
  int64_t js, ks, ns;
} bf_kview;

/* One unit of work: a region (inclusive corners, 3D, unused dims 0..0) of
 * view `a` (the destination), with sources `b` and `c` as the op needs.
 * Source indices are destination indices minus `shift`.  `mask`, when not
 * NULL (reductions only), has one byte per point of the region, x fastest;
 * points with mask 0 are skipped. */
typedef struct bf_ktask {
  int lo[3], hi[3];
  int shift[3];
  bf_kview a, b, c;
  const uint8_t *mask;
} bf_ktask;

/* Element types. */
enum { BF_KTYPE_DOUBLE = 0, BF_KTYPE_INT = 1 };

/* Element-wise operations (a is written). */
enum bf_kop {
  BF_KOP_SET,        /* a = s0 */
  BF_KOP_PLUS_S,     /* a += s0 */
  BF_KOP_MULT_S,     /* a *= s0 */
  BF_KOP_INVERT,     /* a = s0 / a */
  BF_KOP_NEGATE,     /* a = -a */
  BF_KOP_ABS,        /* a = |a| */
  BF_KOP_COPY,       /* a = b */
  BF_KOP_ADD,        /* a += b */
  BF_KOP_SUB,        /* a -= b */
  BF_KOP_MUL,        /* a *= b */
  BF_KOP_DIV,        /* a /= b */
  BF_KOP_SWAP,       /* a <-> b */
  BF_KOP_SAXPY,      /* a += s0 * b */
  BF_KOP_XPAY,       /* a = b + s0 * a */
  BF_KOP_LINCOMB,    /* a = s0 * b + s1 * c */
  BF_KOP_ADDPRODUCT  /* a += b * c */
};

/* Reductions (over view a; DOT uses b too). */
enum bf_rop {
  BF_ROP_SUM,     /* sum a */
  BF_ROP_MIN,     /* min a (with the index of the first minimum) */
  BF_ROP_MAX,     /* max a (with the index of the first maximum) */
  BF_ROP_ABSMAX,  /* max |a| */
  BF_ROP_ABSSUM,  /* sum |a| */
  BF_ROP_SUMSQ,   /* sum a*a */
  BF_ROP_DOT,     /* sum a*b */
  BF_ROP_HASNAN,  /* any NaN */
  BF_ROP_HASINF   /* any +-Inf */
};

typedef struct bf_kargs {
  int op;      /* bf_kop or bf_rop */
  int type;    /* BF_KTYPE_* */
  double s0, s1;
  int ncomp;   /* components processed: a uses acomp.., b bcomp.., c ccomp.. */
  int acomp, bcomp, ccomp;
  /* Bases added to the views' data pointers of a list prepared with relative
   * views (prepare/run_* only; see bf_klist): 0 for absolute views. */
  uintptr_t abase, bbase, cbase;
} bf_kargs;

/* A task list the core keeps (a MultiFab's cached task list, a copy plan's
 * element-wise form): `tasks` stays valid and unchanged until the backend's
 * handle for it is released.  group_start as in `elementwise` (NULL: every
 * task independent).  `relative`: the views' data are byte offsets to which
 * the bases of bf_kargs are added (the CPU table never sees such lists). */
typedef struct bf_klist {
  int64_t ntasks;
  const bf_ktask *tasks;
  int64_t ngroups;
  const int64_t *group_start;
  bool relative;
} bf_klist;

/* Result of a reduction.  For SUM/ABSSUM/SUMSQ/DOT of int data `isum` holds
 * the exact 64-bit sum and `value` the same as double. */
typedef struct bf_kresult {
  double value;
  int64_t isum;
  bool found;    /* at least one point visited (MIN/MAX), or a NaN/Inf found */
  int index[3];  /* MIN/MAX: point of the first extremum in task order */
} bf_kresult;

/* One block copy of the ghost exchange, precomputed in a plan (see
 * fillboundary_impl.h): the points (i, j, k) < (nx, ny, nz) of a box, at
 * element offset doff + i + j*djs + k*dks + n*dns of local destination fab
 * dfab (component n, relative to the fab's data) and soff + i + j*sjs +
 * k*sks + n*sns of local source fab sfab.  Rows already fused where they are
 * contiguous in both (then ny or nz is 1). */
typedef struct bf_xtask {
  int64_t dfab, sfab;
  int64_t doff, soff;
  int64_t nx, ny, nz;
  int64_t djs, dks, dns, sjs, sks, sns;
} bf_xtask;

/* What a run of exchange tasks does: component dcomp + n of the destination
 * op= component scomp + n of the source, n < ncomp (op: BF_KOP_COPY, ADD, or
 * PLUS_S which reads no source).  Fab f of the destination starts at byte
 * dbase + doffs[f], of the source at sbase + soffs[f]. */
typedef struct bf_xargs {
  int op, type;
  double s0;
  int ncomp, dcomp, scomp;
  char *dbase;
  const size_t *doffs;
  const char *sbase;
  const size_t *soffs;
} bf_xargs;

/* Exchange tasks cut into work units: unit u is tasks [ustart[u],
 * ustart[u+1]).  Units run concurrently (each thread gets a contiguous run
 * of units holding about its share of the points; uprefix[u] = points of
 * the units before u, nunits + 1 entries).  `pairs` false: the tasks of a
 * unit run in order (one destination fab: disjoint writes between units).
 * `pairs` true: a unit is one task or two that touch each other's fabs (a
 * copy and its mirror, no write of one meets the other's points) and that
 * run row by row interleaved, so each cache line is fetched once for both. */
/* fill_boundary's x faces as whole x-lines of fabs (fillboundary_xline.c):
 * fabs of n[0] x n[1] x n[2] points (ghosts included, unused dims 1), ghost
 * widths g; line l is the fabs lfab[lstart[l] .. lstart[l+1]) in x order
 * (element offsets of their data from the buffer's start; a component is
 * ns elements).  For every fab of a line and every valid row (y in [g[1],
 * n[1] - g[1]), z in [g[2], n[2] - g[2])), its high x ghosts (the last g[0]
 * points of the row) get the next fab's first g[0] valid points of the same
 * row, and its low x ghosts the previous fab's last g[0] valid points; the
 * first fab of a line has no previous and the last no next unless lper[l]
 * (periodic: they are each other's).
 *
 * `rows` (a uniform lattice: every line has the same length, and the plan's
 * other items are exactly the ones described here): the other ghost points
 * too, as whole rows in x.  Row (j, k) of the grown box with j or k a ghost
 * index (dy, dz in {-1, 0, 1}: the side of the valid range y, z lie on, not
 * both 0) is filled from line lnbr[9 l + 3 (dy + 1) + (dz + 1)] (-1: no
 * such line, the row is left alone): its point i (dx likewise) of fab b of
 * line l is point (i - dx bx, j - dy by, k - dz bz) of that line's fab
 * b + dx (bx, by, bz: the valid extents n - 2g), wrapped around the line
 * when lper[l], else left alone when outside it. */
typedef struct bf_xline_desc {
  int n[3], g[3];
  int64_t nlines, nfabs, maxlen, ns;
  const int64_t *lstart, *lfab;
  const uint8_t *lper;
  bool rows;
  const int64_t *lnbr;
} bf_xline_desc;

typedef struct bf_xlist {
  const bf_xtask *tasks;
  int64_t nunits;
  const int64_t *ustart, *uprefix;
  bool pairs;
} bf_xlist;

/* ---- particle-mesh coupling (src/core/particles/mesh.c) ---------------------
 * One tile of particles and the fab of its grid, as the pmesh kernels see
 * them.  Particle i (0 <= i < np) has position d (< dim) at pos[d][i * pstride]
 * (pure SoA: the position arrays, pstride 1; legacy: the AoS array at the
 * struct's pos[d], pstride = struct size / 8) and value val[i] (deposit: the
 * weight, NULL = 1; interpolate: written).  The fab's component is `fab`
 * (data at the fab's lo corner of that component, js/ks strides in
 * elements), covering cells flo..fhi (valid box grown by the ghost cells;
 * unused dims 0..0). */
typedef struct bf_pmesh_tile {
  int64_t np;
  const double *pos[3];
  int64_t pstride;
  double *val;
  double *fab;
  int64_t js, ks;
  int flo[3], fhi[3];
} bf_pmesh_tile;

/* Shapes (BF_SHAPE_* of particles.h): with l = (x - plo) * dxi along a
 * direction (plo the problem domain's lo, dxi 1/dx), the cells and weights
 * are, relative to the domain's lo cell dlo:
 *   NGP: cell floor(l), weight 1;
 *   CIC: with L = l + 0.5, s = floor(L) - 1, t = L - (s + 1): cells s, s+1,
 *        weights 1 - t, t (AMReX's ParticleInterpolator::Linear);
 *   TSC: c = floor(l), d = l - c - 0.5: cells c-1, c, c+1, weights
 *        (0.5 - d)^2 / 2, 0.75 - d^2, (0.5 + d)^2 / 2.
 * A particle's weight in cell (i, j, k) is the product over the dim
 * directions (unused directions: index 0, weight 1). */
typedef struct bf_pmesh_args {
  int dim, shape;
  double plo[3], dxi[3];
  int dlo[3];
  double scale; /* deposit: each contribution is val * weight * scale (1 / cell volume) */
  int64_t ntiles;
  const bf_pmesh_tile *tiles;
  /* Deposit: tiles [group_start[g], group_start[g+1]) write the same fab
   * (tiles of one grid): a host kernel runs a group on one thread; a device
   * kernel adds atomically and may ignore the groups. */
  int64_t ngroups;
  const int64_t *group_start;
} bf_pmesh_args;

/* ---- Particle kernels (src/core/particles/; CPU: src/backend/cpu/particles.c) ----
 * The per-particle loops of the particle container.  The entries are
 * optional: where a table lacks one (NULL), the core runs the CPU kernel on
 * host memory (host-accessible arenas directly; device-only arenas through a
 * host copy of the tile vectors), so a new backend is correct before it is
 * fast.  Argument structs and index arrays live in HOST memory (small:
 * O(grids + bins + tiles), or O(moving particles)); a device backend copies
 * what it needs to the device.  Particle data pointers (pos, idcpu, dst, src
 * of bf_pcopy) are memory of the table's kind; `dest` arrays of p_locate are
 * host-accessible memory (pinned or managed on a GPU) because the core reads
 * them to count.  Every entry returns 0 or an error code with the message
 * set; results never depend on the number of threads or blocks. */

/* One grid of a level as the point locator sees it: its box (cells,
 * inclusive), the number of MFIter tiles in each direction (mfiter.h's
 * cutting: piece t of a length-len direction cut into n pieces starts at
 * lo + t*(len/n) + min(t, len%n)), and the container slot of its first tile
 * (tile t of the grid is slot + t; -1: the grid is not on this process). */
typedef struct bf_ploc_grid {
  int lo[3], hi[3];
  int tn[3];
  int32_t slot;
} bf_ploc_grid;

/* The point -> grid lookup of one level.  Cell of a position x:
 * dlo[d] + floor((x[d] - plo[d]) * dxi[d]) (AMReX's getParticleCell with the
 * domain offset).  Bins: cell iv lies in bin (iv - blo) >> bshift (per
 * direction, nbins of them; outside: no grid); the grids whose boxes meet bin
 * b are bin_grid[bin_start[b] .. bin_start[b+1]), in BoxArray order;
 * bin_exact[b] >= 0 names the first of them when its box holds the whole bin
 * (then no box test is needed).  A
 * regular grid gives one box per bin (O(1) lookups); the bins never number
 * more than a few times the boxes. */
typedef struct bf_ploc_level {
  double plo[3], dxi[3];
  int dlo[3], dhi[3]; /* the level's domain (cells) */
  int blo[3], bshift[3], nbins[3];
  const int64_t *bin_start;
  const int32_t *bin_grid;
  const int32_t *bin_exact; /* per bin: the grid whose box contains the whole bin, or -1 */
  const bf_ploc_grid *grids;
  int64_t ngrids;
} bf_ploc_level;

/* What p_locate computes (AMReX's Redistribute / Where).  For each particle
 * with a valid id (idcpu's sign bit): the position wrapped as AMReX's
 * enforcePeriodic does with the level-0 values plo/phi/rlo/rhi (round-off
 * domain) in the directions where is_per, then the finest level in
 * [lev_min, lev_max] whose grids contain its cell (first grid in BoxArray
 * order), else lev_min with the grids grown by ngrow (a grid whose box grown
 * in one direction only contains the cell preferred), then the tile of the
 * cell in that grid (the cell clamped into the box).  `levels` has
 * lev_max + 1 entries (those below lev_min unused). */
typedef struct bf_plocate {
  int dim;
  int lev_min, lev_max, ngrow;
  const bf_ploc_level *levels;
  double plo[3], phi[3], rlo[3], rhi[3];
  int is_per[3];
  bool remove_negative;
} bf_plocate;

/* Codes of p_locate's dest (int32 per particle): the destination slot
 * (>= 0, < BF_PDEST_WRAP) or'ed with BF_PDEST_WRAP when the position must be
 * wrapped (p_wrap does it later), or BF_PDEST_REMOVE (no grid holds the
 * particle: outside a non-periodic boundary or the grids; or id <= 0 with
 * remove_negative), BF_PDEST_STAY (id <= 0 without remove_negative: keep it
 * where it is), BF_PDEST_REMOTE (its grid is on another process),
 * BF_PDEST_NONFINITE (a valid particle whose position is NaN or infinite:
 * redistribute refuses it, AMReX has no answer for it), BF_PDEST_NOGRID (a
 * valid particle inside the level-0 domain, wrapped, that no grid of the
 * levels holds: AMReX aborts, "invalid particle"; redistribute refuses it),
 * BF_PDEST_LEFT (a valid particle outside the domain, not brought back by a
 * periodic wrap, when lev_min > 0: AMReX removes those only when the range
 * starts at level 0, and aborts otherwise; redistribute refuses it).
 * BF_PDEST_REFUSED(code): one of the last three. */
#define BF_PDEST_WRAP 0x40000000
#define BF_PDEST_SLOT_MASK 0x3FFFFFFF
#define BF_PDEST_REMOVE (-1)
#define BF_PDEST_STAY (-2)
#define BF_PDEST_REMOTE (-3)
#define BF_PDEST_NONFINITE (-4)
#define BF_PDEST_NOGRID (-5)
#define BF_PDEST_LEFT (-6)
#define BF_PDEST_REFUSED(code) ((code) == BF_PDEST_NONFINITE || (code) == BF_PDEST_NOGRID || (code) == BF_PDEST_LEFT)

/* A run of particles for p_locate / p_wrap: n particles whose coordinate d
 * is pos[d][i * pstride] and whose idcpu is idcpu[i * istride] (pure SoA:
 * strides 1; AoS: struct size / 8; idcpu NULL: every particle valid);
 * dest[i] receives the code.  A shortcut (own_slot >= 0): the particles sit
 * in tile own_slot on level own_lev whose cells are own_lo..own_hi, and
 * own_lev is the finest level of the range; a valid particle whose cell lies
 * in that box and whose position lies inside the round-off domain in the
 * periodic directions gets own_slot without a lookup (the lookup would give
 * the same).  own_slot = -1: no shortcut. */
typedef struct bf_ppart {
  int64_t n;
  double *pos[3];
  int64_t pstride;
  const uint64_t *idcpu;
  int64_t istride;
  int32_t *dest;
  int32_t own_slot;
  int own_lev;
  int own_lo[3], own_hi[3];
  /* p_wrap only: when `list` is not NULL, only particles list[0..nlist) */
  const int64_t *list;
  int64_t nlist;
} bf_ppart;

/* One copy of particle data: k < n elements of `elem` bytes.
 *   value != NULL:  dst[k] = *value (fill)
 *   runs != NULL:   first, when n2 > 0, the movers: dst2[didx[k]] =
 *                   src[sidx[k]] for k < n2 (sidx increasing); then n runs
 *                   (start, length) pairs: src[start .. start+length)
 *                   appended to dst in order; dst may equal src (stable
 *                   in-place compaction: runs increasing, each written at or
 *                   below its start).  One pass over a tile's array in
 *                   cache-sized steps (redistribute).
 *   otherwise:      dst[didx ? didx[k] : k] = src[sidx ? sidx[k] : k]
 *                   (dst and src distinct).
 * Ops of one call are independent (no op writes what another reads or
 * writes), so they may run concurrently. */
typedef struct bf_pcopy {
  void *dst;
  const void *src;
  const void *value;
  size_t elem;
  int64_t n;
  const int64_t *didx, *sidx;
  const int64_t *runs;
  void *dst2;
  int64_t n2;
} bf_pcopy;

/* Counter-based uniform random positions (init_random): coordinate d of
 * particle i (counter first + i) is lo[d] + u * (hi[d] - lo[d]) with u in
 * [0, 1) the 53-bit fraction of bf_prng(seed, first + i, d, attempt),
 * attempt = 0, 1, ... until the value is in [lo[d], hi[d]) and its cell
 * dlo[d] + floor((x - plo[d]) * dxi[d]) is in [clo[d], chi[d]] (AMReX's
 * rejection).  Written to pos[d][i] (stride 1). */
typedef struct bf_prandom {
  int dim;
  uint64_t seed; /* the generator's key is bf_prng_key(seed) */
  int64_t first;
  double lo[3], hi[3];
  double plo[3], dxi[3];
  int dlo[3], clo[3], chi[3];
} bf_prandom;

/* The generator: splitmix64's output function applied to a counter stream
 * keyed by the seed: u64 of (seed, counter, d, attempt) =
 * mix(key(seed) + (4 * counter + d) * golden + attempt * c2), one mix per
 * coordinate; the same on every backend (device code includes this header). */
#ifdef __CUDACC__
#define BF_PRNG_FN static inline __host__ __device__
#else
#define BF_PRNG_FN static inline
#endif
BF_PRNG_FN uint64_t bf_prng_mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
BF_PRNG_FN uint64_t bf_prng_key(uint64_t seed) { return bf_prng_mix(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull); }
BF_PRNG_FN uint64_t bf_prng_at(uint64_t key, uint64_t counter, int d, int attempt) {
  return bf_prng_mix(key + (counter * 4 + (uint64_t)d) * 0x9E3779B97F4A7C15ull + (uint64_t)attempt * 0xD1B54A32D192ED03ull);
}
BF_PRNG_FN uint64_t bf_prng(uint64_t seed, uint64_t counter, int d, int attempt) {
  return bf_prng_at(bf_prng_key(seed), counter, d, attempt);
}
BF_PRNG_FN double bf_prng_unit(uint64_t r) { return (double)(r >> 11) * (1.0 / 9007199254740992.0); }

/* One tile's share of p_random_place. */
typedef struct bf_pplace {
  int64_t n;
  const int64_t *idx;
  double *pos[3];
  int64_t pstride;
  uint64_t *idcpu;
  int64_t istride;
} bf_pplace;

/* The vectors of a tile as the device-resident redistribute and init_random
 * see them (bf_pc_tile_vecs' order): nvec vectors of elem[v] bytes per
 * element (4 or a multiple of 8); coordinate d lies in vector pos_vec[d] at
 * byte pos_off[d] of the element; p_random_fill: the idcpu vector is
 * idcpu_vec (8 bytes) and every other vector v gets *value[v] (elem bytes,
 * 4 or 8; value or value[v] NULL: zero). */
typedef struct bf_pvecs {
  int nvec;
  const size_t *elem;
  int pos_vec[3];
  size_t pos_off[3];
  int idcpu_vec;
  const void *const *value;
} bf_pvecs;

/* Work below this many particles (or elements) runs on one thread: waking
 * the OpenMP team costs more (milliseconds on a loaded machine). */
#define BF_PARTICLE_PARALLEL_MIN 32768

typedef struct bf_backend_particles {
  /* dest codes of every particle of the parts (see bf_plocate). */
  int (*p_locate)(const bf_plocate *loc, int64_t nparts, const bf_ppart *parts);
  /* Wrap the positions of particles whose dest has BF_PDEST_WRAP, as
   * p_locate computed them (enforcePeriodic). */
  int (*p_wrap)(const bf_plocate *loc, int64_t nparts, const bf_ppart *parts);
  /* The copies (see bf_pcopy). */
  int (*p_copy)(int64_t nops, const bf_pcopy *ops);
  /* n random positions (see bf_prandom). */
  int (*p_random)(const bf_prandom *r, int64_t n, double *const *pos);
  /* The dest code (p_locate with idcpu NULL) of each of the n random
   * particles of r, without storing their positions (init_random). */
  int (*p_random_locate)(const bf_prandom *r, const bf_plocate *loc, int64_t n, int32_t *dest);
  /* Place random particles of r in tiles: for each part, particles
   * idx[0..n) (counters r->first + idx[k]) get coordinate d at
   * pos[d][k * pstride] and idcpu[k * istride] = idcpu0 + (idx[k] << 24)
   * (consecutive ids); data in the table's memory, idx in host memory. */
  int (*p_random_place)(const bf_prandom *r, uint64_t idcpu0, int64_t nparts, const struct bf_pplace *parts);

  /* ---- optional, all or none: redistribute and init_random resident on the
   * device (NULL: the core's host-driven path above).  Phase 1 sorts the
   * particles by a key, stably, and keeps the order in an opaque plan; only
   * the number of particles per key comes back (counts, host memory); the
   * core sizes the tiles from them; phase 2 writes the tiles; p_plan_free
   * frees the plan (after phase 2, or instead of it when the core gives up
   * in between).  Phase 1 reserves all the device memory phase 2 needs.
   *
   * Redistribute: locate every particle of the parts (source tiles of slots
   * part_slot[k], in slot order; as p_locate does, dest unused) and key it
   * 2t when it stays in its tile (code t = its slot or BF_PDEST_STAY), 2t+1
   * when it moves to tile t (t relative to slot0, t < nslots), 2 nslots when
   * removed, 2 nslots + 1 when remote, 2 nslots + 2 when refused
   * (BF_PDEST_REFUSED: a position that is not finite, or in no grid); counts
   * has 2 nslots + 3 entries.
   * Phase 2 (p_redist_move): tile t's vectors at dst[t * nvec + v] (NULL
   * rows: no particle) receive the particles of keys 2t, 2t+1 in the sorted
   * order, from element 0; particle i of part k is read at src[k * nvec + v]
   * (storage that may be the destinations'); positions whose code has
   * BF_PDEST_WRAP are wrapped.  So a tile holds its stays in their order,
   * then its arrivals in source tile order, as the host path makes it. */
  int (*p_redist_sort)(const bf_plocate *loc, int64_t nparts, const bf_ppart *parts, const int32_t *part_slot,
                       int64_t slot0, int64_t nslots, const bf_pvecs *vecs, int64_t *counts, void **plan);
  int (*p_redist_move)(void *plan, const bf_plocate *loc, const bf_pvecs *vecs, void *const *src, void *const *dst);
  /* init_random: the n particles of r (p_random_locate's dest codes) keyed
   * by slot (< nslots), nslots when no grid holds one, nslots + 1 when
   * remote; counts has nslots + 2 entries; first_bad[0] / [1]: the smallest
   * particle number keyed nslots / nslots + 1 (-1: none).  Phase 2
   * (p_random_fill): slot s's particles, in the order of their numbers i,
   * are elements base[s], base[s] + 1, ... of dst[s * nvec + v]: the
   * coordinates (random_coord of counter r->first + i), idcpu idcpu0 +
   * (i << 24), the other vectors their value. */
  int (*p_random_sort)(const bf_prandom *r, const bf_plocate *loc, int64_t n, int64_t nslots, const bf_pvecs *vecs,
                       int64_t *counts, int64_t *first_bad, void **plan);
  int (*p_random_fill)(void *plan, const bf_prandom *r, uint64_t idcpu0, const bf_pvecs *vecs, void *const *dst,
                       const int64_t *base);
  void (*p_plan_free)(void *plan);
} bf_backend_particles;

/* ---- AMR kernels (src/core/amr; issue 24) -----------------------------------
 * One sub-table of the AMR families, one block each.  A family declares its
 * argument structs and entries in its block; its per-point arithmetic lives in
 * src/core/amr/<family>_kernels.h, shared by the CPU kernels (src/backend/cpu/
 * amr_<family>.c) and the CUDA ones (src/backend/cuda/amr_<family>.cu), so that
 * both compute the same numbers.  An entry may be NULL in a device table: the
 * core then runs the host entry on host-reachable memory or reports
 * BF_ERROR_UNSUPPORTED. */
typedef struct bf_backend_amr {
  /* -- MultiFabUtil and domain boundaries (amr/mfutil.c, amr/bcrec.c) -- */
  /* -- interpolaters (amr/interp.c) -- */
  /* -- flux registers (amr/fluxreg.c) -- */
  /* -- tagging (amr/tagbox.c) -- */
  int reserved_; /* keeps the struct non-empty */
} bf_backend_amr;

typedef struct bf_backend {
  const char *name;
  /* Memory of a kind (bf_arena_kind); blocks 64-byte aligned; true flags of what is returned. */
  int (*mem_alloc)(int kind, size_t nbytes, void **ptr);
  void (*mem_free)(int kind, void *ptr, size_t nbytes);
  int (*mem_copy)(void *dst, const void *src, size_t nbytes);
  unsigned (*mem_flags)(int kind); /* BF_MEMFLAG_* of what mem_alloc returns for kind */
  /* Element-wise op over tasks.  When group_start is NULL every task is
   * independent; otherwise tasks [group_start[g], group_start[g+1]) form group g
   * and run in order (groups may run concurrently). */
  int (*elementwise)(const bf_kargs *args, int64_t ntasks, const bf_ktask *tasks, int64_t ngroups,
                     const int64_t *group_start);
  /* Reduction over tasks, deterministic: the result does not depend on the
   * number of threads (fixed partition, partials combined in task order). */
  int (*reduce)(const bf_kargs *args, int64_t ntasks, const bf_ktask *tasks, bf_kresult *out);
  /* Exchange tasks (ghost exchange, copies between layouts), see bf_xlist. */
  int (*exchange)(const bf_xargs *args, const struct bf_xlist *list);
  /* Optional (NULL in the CPU table): the backend's own form of a kept task
   * list (a device launch list), built once.  prepare makes a handle for
   * calls with arguments like `args`: the same type and ncomp, and for
   * grouped lists also the same op class (bf_khandle_opbits) and components;
   * run_elementwise / run_reduce (no masks, no groups) then cost only the
   * launches.  release frees a handle (NULL: nothing).  Each returns 0 or 1
   * with the error message set. */
  int (*prepare)(const bf_kargs *args, const bf_klist *list, void **handle);
  int (*run_elementwise)(void *handle, const bf_kargs *args);
  int (*run_reduce)(void *handle, const bf_kargs *args, bf_kresult *out);
  void (*release)(void *handle);
  /* Optional (NULL in the CPU table): fill_boundary's x faces on fabs of
   * one shape as whole x-lines (bf_xline_desc, fillboundary_xline.c).
   * xline_prepare keeps the backend's form of d (device tables; *handle NULL
   * and 0 when d does not suit this backend: the caller runs the items as
   * before); xline_run fills components comp0 .. comp0 + ncomp - 1 of the
   * fabs at `base` (double data); xline_release frees.  0 or 1 with the
   * error message set. */
  int (*xline_prepare)(const struct bf_xline_desc *d, void **handle);
  int (*xline_run)(void *handle, double *base, int comp0, int ncomp);
  void (*xline_release)(void *handle);
  /* ---- device glue (bf_gpu_*, gpu.c), NULL in the host table ------------------
   * Each returning int sets the error message on failure and returns its code. */
  const char *device_api;                      /* "CUDA": bf_gpu_backend_name */
  int (*device_count)(void);                   /* raw count, 0 on any error */
  int (*device_id)(void);                      /* current device or -1 */
  void *(*stream)(void);                       /* the backend's stream on the current device (lazy), NULL on error */
  int (*synchronize)(void);                    /* wait for the backend's stream */
  int (*copy_sync)(void *dst, const void *src, size_t nbytes); /* any direction, waits */
  int (*memory_info)(size_t *free_bytes, size_t *total_bytes);
  int64_t (*alloc_count)(void);                /* arena blocks obtained from the device runtime */
  bool (*stream_idle)(void);                   /* nothing pending on the backend's stream */
  int (*stream_wait)(void *consumer);          /* consumer waits for the backend's stream */
  int (*wait_stream)(void *producer);          /* the backend's stream waits for producer */
  void (*pointer_info)(const void *ptr, int *kind, int *device); /* BF_GPU_MEMORY_*, device or -1 */
  bool (*has_free)(size_t nbytes);             /* nbytes more fit in the current device's free memory */
  /* Particle kernels (see bf_backend_particles; entries may be NULL). */
  bf_backend_particles particles;
  /* ---- particle-mesh coupling (particles/mesh.c; every table) -----------------
   * Deposit every tile's particles into its fab (+= val * weight * scale per
   * cell of the stencil) / interpolate (val = sum of weight * fab value over
   * the stencil).  A particle whose stencil does not lie inside its fab's
   * cells flo..fhi (or whose position is not finite) is skipped and counted
   * in *nskipped; the others are done.  Returns 0, or 1 with the error set
   * (device failure).  Data lie in memory the table's kernels reach. */
  int (*pmesh_deposit)(const bf_pmesh_args *args, int64_t *nskipped);
  int (*pmesh_interpolate)(const bf_pmesh_args *args, int64_t *nskipped);
  /* AMR kernels (see bf_backend_amr). */
  bf_backend_amr amr;
} bf_backend;

/* Registration of a backend: each backend folder defines one
 * `const bf_backend_provider bf_backend_provider_<name>` (see the top of this
 * file).  `fill` fills a zeroed table and returns 0, or returns 1 when the
 * backend cannot be used here (no device, no driver): then the table is
 * ignored.  The host backend (device false) must always succeed; a device
 * backend's fill sets the device glue. */
typedef struct bf_backend_provider {
  const char *name; /* the folder's name: "cpu", "cuda" */
  bool device;      /* drives a device (else: the host backend) */
  int (*fill)(bf_backend *b);
} bf_backend_provider;

/* What of an element-wise op a grouped list's handle depends on (the
 * conflicts between tasks): reads b, reads c, writes b. */
static inline int bf_khandle_opbits(int op) {
  return (op >= BF_KOP_COPY) | (op == BF_KOP_LINCOMB || op == BF_KOP_ADDPRODUCT) << 1 | (op == BF_KOP_SWAP) << 2;
}

enum {
  BF_MEMFLAG_HOST = 1,
  BF_MEMFLAG_DEVICE_ACCESSIBLE = 2,
  BF_MEMFLAG_DEVICE = 4,
  BF_MEMFLAG_MANAGED = 8,
  BF_MEMFLAG_PINNED = 16,
  BF_MEMFLAG_STREAM_ORDERED = 32
};

/* The host (CPU) backend (filled on first use, thread-safe).  For memory of
 * an arena use bf_backend_for_kind / bf_backend_for_arena instead. */
const bf_backend *bf_backend_get(void);

/* The backend for memory of arena kind `kind` (bf_arena_kind): memory
 * functions and kernels that can work on it.  Unknown kinds get the CPU
 * table.  Never NULL. */
const bf_backend *bf_backend_for_kind(int kind);

/* The backend for the memory of the arena `arena` (a bf_arena *; NULL =
 * The_Arena), and the backend whose kernels can reach the memory of every
 * given arena (n of them; NULL entries are skipped, the first is the
 * destination and is preferred).  When none can (host-only memory mixed with
 * device-only memory) bf_backend_for_arenas sets a BF_ERROR_VALUE message
 * naming `what` and returns NULL.  Both are arena.c's: they ask the arena its
 * kind and this table's functions the rest. */
struct bf_arena;
const bf_backend *bf_backend_for_arena(const struct bf_arena *arena);
const bf_backend *bf_backend_for_arenas(int n, const struct bf_arena *const *arenas, const char *what);

/* True when a device backend is used (the device table exists). */
bool bf_backend_have_gpu(void);

/* The device table, NULL when no device backend is used. */
const bf_backend *bf_backend_device(void);

/* Before host code reads or writes memory of table `be` directly (not
 * through be's functions): for the pinned table, wait for the device's
 * pending work; otherwise nothing.  Returns 0 or an error code. */
int bf_backend_host_sync(const bf_backend *be);

/* The CPU backend's fill (src/backend/cpu), also reached through its
 * provider; backends and tests may use it to get the host kernels. */
void bf_backend_cpu_fill(bf_backend *b);

/* The CPU AMR kernels (src/backend/cpu/amr_*.c); a device table without
 * its own entries may use them on host memory. */
void bf_backend_cpu_amr_fill(bf_backend_amr *a);

/* The CPU particle kernels (src/backend/cpu/particles.c); a table
 * without its own particle entries may use them on host memory. */
void bf_backend_cpu_particles_fill(bf_backend_particles *p);
/* The CPU reference of the device-resident entries (p_redist_sort ...
 * p_plan_free; src/backend/cpu/psort.c), part of the fill above; the
 * core uses them only when BOXFAB_PARTICLE_PLAN=1 (bf_pc_use_plan). */
void bf_backend_cpu_psort_fill(bf_backend_particles *p);

/* True when `nbytes` more bytes fit in the free memory of the current device
 * (always true without a device). */
bool bf_backend_device_has_free(size_t nbytes);

#endif
