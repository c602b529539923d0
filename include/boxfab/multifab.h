/* boxfab — MultiFab (bf_multifab): data on every box of a BoxArray.
 *
 * A MultiFab holds `ncomp` components of double (MultiFab) or int (iMultiFab)
 * data on each box of a BoxArray grown by `ngrow` ghost cells.  The boxes this
 * rank owns (distmap rank == bf_parallel_myproc(); all of them without MPI)
 * are the local fabs, numbered 0 .. nlocal-1 in BoxArray order.  Their data
 * live in one buffer (one chunk, each fab starting on a 64-byte boundary) in
 * the layout of fab.h (x fastest, then y, z, component).
 *
 * Lifetime.  Reference counted (create gives a reference, retain adds one,
 * destroy(&mf) drops it and nulls the handle).  A MultiFab records the
 * runtime instance it was created under; every operation below returns
 * BF_ERROR_RUNTIME once that instance is finalized.  Views of the data should
 * retain the buffer (bf_multifab_buffer + bf_buffer_retain): clear() or the
 * last destroy only drop the MultiFab's own reference, so the memory lives
 * as long as any view.
 *
 * Arguments.  Components are [comp, comp+ncomp) with 0 <= comp, ncomp >= 1 and
 * comp+ncomp <= n_comp (BF_ERROR_INDEX otherwise); ghost widths `nghost`
 * are IntVects of the MultiFab's dimension with 0 <= nghost[d] <= ngrow[d]
 * (BF_ERROR_INDEX otherwise); a `region` (NULL = no restriction) is a box of
 * the same dimension and index type (BF_ERROR_TYPE otherwise) and restricts the
 * operation to region ∩ (valid box grown by nghost).  MultiFabs combined in
 * one operation must have the same dtype, the same boxes and the same
 * DistributionMapping (BF_ERROR_VALUE otherwise).  Operations on a MultiFab
 * without data (created with alloc = false, or cleared) give BF_ERROR_RUNTIME.
 * Scalars are passed as double and converted to int for iMultiFabs.  Integer
 * arithmetic wraps around; integer division by zero gives 0.
 *
 * Threads.  Loops run on OpenMP threads over fabs / row chunks.  Reductions are
 * deterministic: the same layout gives bit-identical results every time,
 * whatever the number of threads.
 *
 * Ranks.  Reductions are global: collective over the ranks of the MultiFab's
 * runtime instance (every rank must call them, in the same order), every rank
 * gets the same result.  Sums of doubles are added in rank order
 * (deterministic for a given number of ranks, within rounding of the one-rank
 * sum), int sums are exact, min / max and the cells of min_index / max_index
 * are those one rank would find.  `local` = true reduces this rank's fabs
 * only (no communication; the start values of min / max on a rank without
 * fabs).  Without MPI, or on one rank, `local` changes nothing. */
#ifndef BOXFAB_MULTIFAB_H
#define BOXFAB_MULTIFAB_H

#include <stdbool.h>
#include <stdint.h>

#include "boxfab/arena.h"
#include "boxfab/base.h"
#include "boxfab/box.h"
#include "boxfab/boxarray.h"
#include "boxfab/distmap.h"
#include "boxfab/fab.h"
#include "boxfab/geometry.h"
#include "boxfab/intvect.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bf_multifab bf_multifab;

/** One local fab as seen through a MultiFab (borrowed data pointer, valid while
 *  the caller holds the MultiFab or its buffer). */
typedef struct bf_mf_fab {
  int64_t index;     /**< global box index in the BoxArray */
  bf_box validbox;   /**< the box of the BoxArray */
  bf_box fabbox;     /**< validbox grown by ngrow: the box the data cover */
  void *data;        /**< element at fabbox's lo corner, component 0 */
  size_t offset;     /**< byte offset of data in the MultiFab's buffer */
  int64_t stride[3]; /**< jstride, kstride, nstride in elements */
} bf_mf_fab;

/* ---- creation and properties ---------------------------------------------- */

/** New MultiFab on `ba` with `dm` (references to both are taken), `ncomp` >= 1
 *  components of `dtype`, `ngrow` >= 0 ghost cells (IntVect of ba's dim),
 *  memory from `arena` (NULL = default) when `alloc` is true.  Data are not
 *  initialized.  Records bf_runtime_top(): BF_ERROR_RUNTIME when boxfab is
 *  not initialized.  BF_ERROR_VALUE when ba and dm sizes differ, ncomp < 1,
 *  ngrow < 0, or an unknown dtype; BF_ERROR_TYPE when ngrow's dim differs. */
BF_EXPORT int bf_multifab_create(bf_boxarray *ba, bf_distmap *dm, int ncomp, bf_intvect ngrow, int dtype,
                                 bf_arena *arena, bool alloc, bf_multifab **mf);

/** A new MultiFab with the same BoxArray, DistributionMapping, ncomp, ngrow,
 *  dtype and arena, holding a copy of all data (ghost cells included). */
BF_EXPORT int bf_multifab_clone(const bf_multifab *mf, bf_multifab **out);

/** Reference counting: retain adds a reference and returns mf; destroy drops
 *  one and sets *mf to NULL (NULL allowed); refcount reads it. */
BF_EXPORT bf_multifab *bf_multifab_retain(bf_multifab *mf);
BF_EXPORT void bf_multifab_destroy(bf_multifab **mf);
BF_EXPORT long bf_multifab_refcount(const bf_multifab *mf);

/** BF_SUCCESS while the runtime instance of mf is alive, else BF_ERROR_RUNTIME. */
BF_EXPORT int bf_multifab_check(const bf_multifab *mf);

/** Drop the data (the MultiFab's reference to its buffer).  Views keep theirs. */
BF_EXPORT int bf_multifab_clear(bf_multifab *mf);

/** Borrowed BoxArray / DistributionMapping (immutable). */
BF_EXPORT bf_boxarray *bf_multifab_boxarray(const bf_multifab *mf);
BF_EXPORT bf_distmap *bf_multifab_distmap(const bf_multifab *mf);
BF_EXPORT int bf_multifab_dim(const bf_multifab *mf);
BF_EXPORT int bf_multifab_ncomp(const bf_multifab *mf);
BF_EXPORT bf_intvect bf_multifab_ngrow(const bf_multifab *mf);
BF_EXPORT int bf_multifab_dtype(const bf_multifab *mf);
BF_EXPORT bf_arena *bf_multifab_arena(const bf_multifab *mf);
/** Number of boxes (global). */
BF_EXPORT int64_t bf_multifab_size(const bf_multifab *mf);
/** Number of local fabs. */
BF_EXPORT int64_t bf_multifab_nlocal(const bf_multifab *mf);
/** Index type bits of the boxes (bit d: nodal in direction d). */
BF_EXPORT unsigned bf_multifab_ixtype(const bf_multifab *mf);
BF_EXPORT bool bf_multifab_is_nodal(const bf_multifab *mf, int dir);
BF_EXPORT bool bf_multifab_is_all_cell_centered(const bf_multifab *mf);
BF_EXPORT bool bf_multifab_is_all_nodal(const bf_multifab *mf);
/** Has data and its runtime is alive. */
BF_EXPORT bool bf_multifab_ok(const bf_multifab *mf);
/** The communicator of mf's runtime instance (which need not be the top one:
 *  instances nest, each on its own communicator): *nprocs its number of ranks,
 *  and, when it communicates through MPI and comm_f is not NULL, *comm_f its
 *  Fortran handle (else BF_COMM_WORLD).  BF_ERROR_RUNTIME after its finalize(). */
BF_EXPORT int bf_multifab_communicator(const bf_multifab *mf, int *nprocs, int64_t *comm_f);
BF_EXPORT bool bf_multifab_is_allocated(const bf_multifab *mf);
/** Borrowed buffer of all local data (NULL when not allocated). Runtime-checked. */
BF_EXPORT int bf_multifab_buffer(const bf_multifab *mf, bf_buffer **buf);

/** Local fab number `li` (0 <= li < nlocal, else BF_ERROR_INDEX). */
BF_EXPORT int bf_multifab_local_fab(const bf_multifab *mf, int64_t li, bf_mf_fab *fab);
/** Local number of global box `index`, or -1 when that box is not local. */
BF_EXPORT int64_t bf_multifab_local_index(const bf_multifab *mf, int64_t index);
/** A new bf_fab viewing local fab `li` (holds a reference to the buffer). */
BF_EXPORT int bf_multifab_get_fab(const bf_multifab *mf, int64_t li, bf_fab **fab);

/** All local fabs as one array with a leading box axis (see bf_multifab_stack). */
typedef struct bf_mf_stack {
  void *data;          /**< local fab 0 at its fabbox's lo corner, component 0 (NULL without local fabs);
                            fab b starts box_bytes * b bytes further */
  int64_t nbox;        /**< number of local fabs, in local (MFIter) order */
  int64_t shape[4];    /**< one fab: nx, ny, nz, ncomp (ghost cells included; 1 beyond the dimension) */
  int64_t stride[4];   /**< in elements: 1, jstride = nx, kstride = nx*ny, nstride = nx*ny*nz */
  int64_t box_stride;  /**< elements from one fab's data to the next (>= nstride * ncomp: fabs start on
                            64-byte boundaries) */
  size_t box_bytes;    /**< box_stride in bytes */
} bf_mf_stack;

/** Describe the local fabs of `mf` as one strided array [box][comp][z][y][x]
 *  (strides box_stride, stride[3], stride[2], stride[1], 1 elements), the
 *  view a kernel over every box at once needs.  Possible when every local fab
 *  (valid box grown by the ghost cells) has the same shape and their data lie
 *  at equal distances in the buffer (always the case for equal shapes: the
 *  fabs are packed in local order, each on a 64-byte boundary); the index
 *  type is one per BoxArray, so equal shapes mean equal fabs.  A layout that
 *  allows it: boxes of one size, e.g. a domain whose sides are multiples of
 *  max_grid_size (BoxArray::max_size cuts it into equal boxes).
 *  A rank without local fabs gets nbox = 0, data NULL and the shape every
 *  box of the BoxArray shares.  Nothing is synchronized or copied: `data`
 *  may be device memory (see bf_multifab_arena).
 *  Errors: BF_ERROR_RUNTIME after the runtime's finalize(), or when the
 *  MultiFab holds no data (alloc = false, or cleared); BF_ERROR_VALUE, with a
 *  message naming the boxes, when two local fabs differ in shape, when their
 *  data are not equally spaced, or, on a rank without local fabs, when the
 *  BoxArray is empty or its boxes differ in shape (no shape to give). */
BF_EXPORT int bf_multifab_stack(const bf_multifab *mf, bf_mf_stack *stack);

/** BF_SUCCESS when a and b have the same dtype, boxes and distribution,
 *  else BF_ERROR_VALUE with a message naming `what`. */
BF_EXPORT int bf_multifab_check_compatible(const bf_multifab *a, const bf_multifab *b, const char *what);

/* ---- element-wise operations ---------------------------------------------- */
/* The scalar of set_val / plus_scalar / mult_scalar / invert on int data is
 * converted to int as C does (toward zero); nan gives BF_ERROR_VALUE and a
 * value outside int BF_ERROR_OVERFLOW (the conversion would be undefined). */

/** a = val on comps [comp, comp+ncomp), valid cells grown by nghost, ∩ region. */
BF_EXPORT int bf_multifab_set_val(bf_multifab *mf, double val, const bf_box *region, int comp, int ncomp,
                                  bf_intvect nghost);
/** a = val everywhere (all components, all ghost cells). */
BF_EXPORT int bf_multifab_set_val_all(bf_multifab *mf, double val);
/** a = |a|. */
BF_EXPORT int bf_multifab_abs(bf_multifab *mf, const bf_box *region, int comp, int ncomp, bf_intvect nghost);
/** a += val. */
BF_EXPORT int bf_multifab_plus_scalar(bf_multifab *mf, double val, const bf_box *region, int comp, int ncomp,
                                      bf_intvect nghost);
/** a *= val. */
BF_EXPORT int bf_multifab_mult_scalar(bf_multifab *mf, double val, const bf_box *region, int comp, int ncomp,
                                      bf_intvect nghost);
/** a = numerator / a. */
BF_EXPORT int bf_multifab_invert(bf_multifab *mf, double numerator, const bf_box *region, int comp, int ncomp,
                                 bf_intvect nghost);
/** a = -a. */
BF_EXPORT int bf_multifab_negate(bf_multifab *mf, const bf_box *region, int comp, int ncomp, bf_intvect nghost);

/** self += src on comps [comp, comp+ncomp) (both), valid + nghost. */
BF_EXPORT int bf_multifab_plus(bf_multifab *self, const bf_multifab *src, int comp, int ncomp, bf_intvect nghost);
/** self -= src. */
BF_EXPORT int bf_multifab_minus(bf_multifab *self, const bf_multifab *src, int comp, int ncomp, bf_intvect nghost);
/** self /= src (no zero check for double). */
BF_EXPORT int bf_multifab_divi(bf_multifab *self, const bf_multifab *src, int comp, int ncomp, bf_intvect nghost);

/** dst[dstcomp+n] op= src[srccomp+n], n < numcomp, valid + nghost: add (+=),
 *  subtract (-=), multiply (*=), divide (/=), copy (=), swap (exchange). */
BF_EXPORT int bf_multifab_add(bf_multifab *dst, const bf_multifab *src, int srccomp, int dstcomp, int numcomp,
                              bf_intvect nghost);
BF_EXPORT int bf_multifab_subtract(bf_multifab *dst, const bf_multifab *src, int srccomp, int dstcomp, int numcomp,
                                   bf_intvect nghost);
BF_EXPORT int bf_multifab_multiply(bf_multifab *dst, const bf_multifab *src, int srccomp, int dstcomp, int numcomp,
                                   bf_intvect nghost);
BF_EXPORT int bf_multifab_divide(bf_multifab *dst, const bf_multifab *src, int srccomp, int dstcomp, int numcomp,
                                 bf_intvect nghost);
BF_EXPORT int bf_multifab_copy(bf_multifab *dst, const bf_multifab *src, int srccomp, int dstcomp, int numcomp,
                               bf_intvect nghost);
/** Exchange; src and dst may be the same MultiFab only with disjoint components. */
BF_EXPORT int bf_multifab_swap(bf_multifab *dst, bf_multifab *src, int srccomp, int dstcomp, int numcomp,
                               bf_intvect nghost);
/** dst += a * src. */
BF_EXPORT int bf_multifab_saxpy(bf_multifab *dst, double a, const bf_multifab *src, int srccomp, int dstcomp,
                                int numcomp, bf_intvect nghost);
/** dst = src + a * dst. */
BF_EXPORT int bf_multifab_xpay(bf_multifab *dst, double a, const bf_multifab *src, int srccomp, int dstcomp,
                               int numcomp, bf_intvect nghost);
/** dst = a * x + b * y. */
BF_EXPORT int bf_multifab_lin_comb(bf_multifab *dst, double a, const bf_multifab *x, int xcomp, double b,
                                   const bf_multifab *y, int ycomp, int dstcomp, int numcomp, bf_intvect nghost);
/** dst += src1 * src2. */
BF_EXPORT int bf_multifab_add_product(bf_multifab *dst, const bf_multifab *src1, int comp1, const bf_multifab *src2,
                                      int comp2, int dstcomp, int numcomp, bf_intvect nghost);

/* ---- reductions ----------------------------------------------------------- */

/** Σ x[xcomp+n] * y[ycomp+n] over n < numcomp, valid + nghost (y may be x). */
BF_EXPORT int bf_multifab_dot(const bf_multifab *x, int xcomp, const bf_multifab *y, int ycomp, int numcomp,
                              bf_intvect nghost, bool local, double *result);
/** min / max of component comp over valid + nghost (∩ region). An empty
 *  selection gives +DBL_MAX / -DBL_MAX for double data, INT_MAX / INT_MIN for
 *  int data (AMReX's start values: numeric_limits<T>::max() / lowest()). */
BF_EXPORT int bf_multifab_min(const bf_multifab *mf, const bf_box *region, int comp, bf_intvect nghost, bool local,
                              double *result);
BF_EXPORT int bf_multifab_max(const bf_multifab *mf, const bf_box *region, int comp, bf_intvect nghost, bool local,
                              double *result);
/** Cell of the first min / max (global box order, then k, j, i: the same cell
 *  on any number of ranks; AMReX takes the lowest rank holding the extremum and,
 *  within a rank, any cell); BF_ERROR_VALUE when nothing is selected. */
BF_EXPORT int bf_multifab_min_index(const bf_multifab *mf, int comp, bf_intvect nghost, bf_intvect *cell);
BF_EXPORT int bf_multifab_max_index(const bf_multifab *mf, int comp, bf_intvect nghost, bf_intvect *cell);
/** Σ over valid cells of component comp (∩ region). */
BF_EXPORT int bf_multifab_sum(const bf_multifab *mf, const bf_box *region, int comp, bool local, double *result);
/** Like sum, but a point shared by several boxes (nodal data), or by a box and
 *  a periodic image (period NULL = not periodic), is counted once: the copy in
 *  the box of lowest index counts (within one box: the lowest image). */
BF_EXPORT int bf_multifab_sum_unique(const bf_multifab *mf, const bf_box *region, int comp, bool local,
                                     const bf_periodicity *period, double *result);
/** max |a| of component comp over valid + nghost (norm0 and norminf are the same). */
BF_EXPORT int bf_multifab_norm0(const bf_multifab *mf, int comp, bf_intvect nghost, bool local, double *result);
BF_EXPORT int bf_multifab_norminf(const bf_multifab *mf, int comp, bf_intvect nghost, bool local, double *result);
/** Σ |a| over valid + nghost. */
BF_EXPORT int bf_multifab_norm1(const bf_multifab *mf, int comp, bf_intvect nghost, bool local, double *result);
/** AMReX's MultiFab::norm1(comp, period): Σ over every copy of every valid
 *  point of |a / m|, m = the number of copies of the point (boxes sharing
 *  nodal points, and periodic images under `period`; NULL = not periodic),
 *  so a shared point counts once when its copies agree.  int data (no AMReX
 *  counterpart): Σ |a| over the owner copies (lowest box index). */
BF_EXPORT int bf_multifab_norm1_unique(const bf_multifab *mf, int comp, const bf_periodicity *period,
                                       double *result);
/** period NULL: AMReX's MultiFab::norm2(comp) = sqrt(Σ a²) over every copy of
 *  every valid point (shared nodal points count once per box).  period not
 *  NULL: MultiFab::norm2(comp, period) = sqrt(Σ a² / m) with m as in norm1
 *  (int data: over the owner copies). */
BF_EXPORT int bf_multifab_norm2(const bf_multifab *mf, int comp, const bf_periodicity *period, double *result);
/** Per component: results[i] for comps[i], i < n. */
BF_EXPORT int bf_multifab_norm1_comps(const bf_multifab *mf, int n, const int *comps, bf_intvect nghost, bool local,
                                      double *results);
BF_EXPORT int bf_multifab_norm2_comps(const bf_multifab *mf, int n, const int *comps, double *results);
/** For int data, the exact 64-bit results of sum, sum_unique, norm1 and
 *  norm1_unique (AMReX's iMultiFab returns Long; the double forms above round
 *  beyond 2^53).  They wrap modulo 2^64 as the kernels' accumulators do.
 *  BF_ERROR_TYPE for double data. */
BF_EXPORT int bf_multifab_sum_i64(const bf_multifab *mf, const bf_box *region, int comp, bool local,
                                  int64_t *result);
BF_EXPORT int bf_multifab_sum_unique_i64(const bf_multifab *mf, const bf_box *region, int comp, bool local,
                                         const bf_periodicity *period, int64_t *result);
BF_EXPORT int bf_multifab_norm1_i64(const bf_multifab *mf, int comp, bf_intvect nghost, bool local, int64_t *result);
BF_EXPORT int bf_multifab_norm1_unique_i64(const bf_multifab *mf, int comp, const bf_periodicity *period,
                                           int64_t *result);
/** Any NaN / ±Inf in comps [scomp, scomp+ncomp), valid + nghost (always false for int). */
BF_EXPORT int bf_multifab_contains_nan(const bf_multifab *mf, int scomp, int ncomp, bf_intvect nghost, bool local,
                                       bool *result);
BF_EXPORT int bf_multifab_contains_inf(const bf_multifab *mf, int scomp, int ncomp, bf_intvect nghost, bool local,
                                       bool *result);

/* ---- ghost exchange and copies between layouts (fillboundary.c) ----------- */

/** Fill the ghost cells (nghost layers, each <= ngrow) of comps [scomp,
 *  scomp+ncomp) from the valid cells of the other boxes, and across periodic
 *  boundaries (period NULL = none).  cross = true, as in AMReX, leaves out
 *  edges and corners only from copies between processes (AMReX's
 *  define_fb_metadata filters its send/receive tags, not its local copies):
 *  on one process it fills what cross = false fills.  Ghost cells no box
 *  covers stay as they were.  Copy plans are cached per (BoxArray, DistributionMapping, nghost,
 *  period, cross). */
BF_EXPORT int bf_multifab_fill_boundary(bf_multifab *mf, int scomp, int ncomp, bf_intvect nghost,
                                        const bf_periodicity *period, bool cross);
/** Add ghost contributions into the cells they cover: afterwards each cell
 *  of the valid region grown by dst_nghost holds the sum of every copy of that
 *  point (valid or within src_nghost ghost layers) in all boxes and periodic
 *  images.  Ghost cells outside dst_nghost are left unchanged. */
BF_EXPORT int bf_multifab_sum_boundary(bf_multifab *mf, int scomp, int ncomp, bf_intvect src_nghost,
                                       bf_intvect dst_nghost, const bf_periodicity *period);
/** Nodal data: every point shared by several boxes (or periodic images) gets
 *  the value of its owner (the copy in the lowest box index). */
BF_EXPORT int bf_multifab_override_sync(bf_multifab *mf, int scomp, int ncomp, const bf_periodicity *period);
/** Nodal data: every shared point gets the average of all its copies. */
BF_EXPORT int bf_multifab_average_sync(bf_multifab *mf, int scomp, int ncomp, const bf_periodicity *period);
/** Copy components src [scomp, scomp+ncomp) -> dst [dcomp, dcomp+ncomp) of
 *  every fab, ghost cells included, between any kinds of memory (host,
 *  pinned, managed, device): dtoh_memcpy / htod_memcpy.  Same BoxArray, DM,
 *  dtype and ghost widths required.  Synchronous: the data are in place when
 *  it returns (after boxfab's pending GPU work). */
BF_EXPORT int bf_multifab_memcpy(bf_multifab *dst, const bf_multifab *src, int scomp, int dcomp, int ncomp);
/** Nodal data (AMReX's WeightedSync): each copy of a point is multiplied by
 *  component 0 of `wgt` (same layout), then every copy of a shared point
 *  (periodic images included) gets the sum of all its weighted copies.
 *  Cell-centred data is left unchanged.  Valid cells only. */
BF_EXPORT int bf_multifab_weighted_sync(bf_multifab *mf, const bf_multifab *wgt, const bf_periodicity *period);
/** Copy from src (any BoxArray of the same dim and index type, same dtype) into
 *  dst: each dst cell in its valid box grown by dst_nghost that lies in a src
 *  valid box grown by src_nghost (or a periodic image) gets that value.
 *  Components src [scomp, scomp+ncomp) -> dst [dcomp, dcomp+ncomp). */
BF_EXPORT int bf_multifab_parallel_copy(bf_multifab *dst, const bf_multifab *src, int scomp, int dcomp, int ncomp,
                                        bf_intvect src_nghost, bf_intvect dst_nghost, const bf_periodicity *period);
/** Like parallel_copy but adds (dst += src). */
BF_EXPORT int bf_multifab_parallel_add(bf_multifab *dst, const bf_multifab *src, int scomp, int dcomp, int ncomp,
                                       bf_intvect src_nghost, bf_intvect dst_nghost, const bf_periodicity *period);

/** Number of cached copy plans, and dropping them all (they also go when
 *  the cache is full: at most BF_PLAN_CACHE_SIZE, least recently used first). */
#define BF_PLAN_CACHE_SIZE 64
BF_EXPORT int bf_plan_cache_size(void);
/* Counters of the ghost exchange across processes (fill_boundary and the
 * copy family): out[0..n) receives, of this process, the bytes and the
 * messages it sent in its last exchange on a communicator of more than one
 * process (fill_boundary, sum_boundary, the syncs, parallel_copy/add), the
 * bytes and messages it received then, and the total bytes and messages sent since
 * start-up (at most 6 values). */
BF_EXPORT int bf_exchange_stats(int64_t *out, int n);
BF_EXPORT void bf_plan_cache_clear(void);

/* Kept task lists (introspection, for tests).  Element-wise operations and
 * reductions keep the task list of a call with the destination MultiFab (a
 * few, least recently used dropped), keyed by the source MultiFabs, the
 * region and the ghost width, so that a repeated call builds nothing; a GPU
 * backend keeps its device form with it.  Returns the number of lists `mf`
 * keeps (0 for NULL). */
BF_EXPORT int bf_multifab_task_cache_size(const bf_multifab *mf);
/* Process-wide: task lists built so far (`built`) and alive now (`live`);
 * either may be NULL. */
BF_EXPORT void bf_multifab_task_cache_stats(int64_t *built, int64_t *live);

#ifdef __cplusplus
}
#endif
#endif
