/* boxfab — physical space: RealBox, Periodicity, Geometry (plain values).
 * The functions are declared below the types; see each for its errors. */
#ifndef BOXFAB_GEOMETRY_H
#define BOXFAB_GEOMETRY_H

#include <stdbool.h>

#include "boxfab/base.h"
#include "boxfab/box.h"
#include "boxfab/intvect.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A box of physical space, lo and hi corners of `dim` doubles. */
typedef struct bf_realbox {
  int dim;
  double lo[BF_SPACEDIM_MAX];
  double hi[BF_SPACEDIM_MAX];
} bf_realbox;

/** Period length per direction; 0 means not periodic in that direction. */
typedef struct bf_periodicity {
  int dim;
  int period[BF_SPACEDIM_MAX];
} bf_periodicity;

/** Coordinate systems (AMReX's CoordSys::CoordType). */
typedef enum bf_coord_type {
  BF_COORD_UNDEF = -1,
  BF_COORD_CARTESIAN = 0,
  BF_COORD_RZ = 1,
  BF_COORD_SPHERICAL = 2
} bf_coord_type;

/** Index domain, physical domain, coordinates and periodicity of a level
 *  (AMReX's Geometry, with its CoordSys part: coord, ok, dx, inv_dx; AMReX's
 *  offset is prob_domain.lo whenever ok).  Also the storage of GeometryData,
 *  which uses prob_domain, domain, dx, is_periodic and coord only. */
typedef struct bf_geometry {
  int dim;
  bf_box domain;          /**< cell-centred index domain */
  bf_realbox prob_domain; /**< physical domain */
  int coord;              /**< bf_coord_type */
  bool ok;                /**< defined (AMReX's CoordSys::Ok): set by bf_geometry_define and bf_geometry_setup */
  int is_periodic[BF_SPACEDIM_MAX]; /**< 0 or 1 */
  double dx[BF_SPACEDIM_MAX];       /**< cell size; 0 until computed */
  double inv_dx[BF_SPACEDIM_MAX];   /**< 1 / dx; +inf until computed (AMReX's initial value) */
  /** Round-off domain (AMReX's roundoff_lo / roundoff_hi): a position x is
   *  inside when roundoff_lo[d] <= x[d] <= roundoff_hi[d] in every direction
   *  (closed at both ends, as AMReX's insideRoundoffDomain).  Before it is
   *  computed it is empty: lo = +inf, hi = -inf. */
  double roundoff_lo[BF_SPACEDIM_MAX];
  double roundoff_hi[BF_SPACEDIM_MAX];
} bf_geometry;

/* ---- RealVect (plain arrays of `dim` doubles) ----------------------------------
 * A RealVect is just `double v[dim]`; these helpers never fail unless said. */

/** Component-wise operations of bf_realvect_binop. */
typedef enum bf_realvect_op {
  BF_RV_ADD, /**< a + b */
  BF_RV_SUB, /**< a - b */
  BF_RV_MUL, /**< a * b */
  BF_RV_DIV, /**< a / b (IEEE: division by 0 gives inf/nan, as in C) */
  BF_RV_MIN, /**< min(a, b) */
  BF_RV_MAX  /**< max(a, b) */
} bf_realvect_op;

/** out[d] = a[d] op b[d] for d < dim (out may alias a or b).
 *  BF_ERROR_VALUE for a bad dim or op. */
BF_EXPORT int bf_realvect_binop(int dim, int op, const double *a, const double *b, double *out);
/** Sum of a[d] * b[d] (dim >= 1; summed from the first term, as AMReX, so the
 *  sign of a zero result is AMReX's). */
BF_EXPORT double bf_realvect_dot(int dim, const double *a, const double *b);
/** out = a x b; only for dim == 3 (BF_ERROR_VALUE otherwise). out may alias. */
BF_EXPORT int bf_realvect_cross(int dim, const double *a, const double *b, double *out);
/** Sum / product of the components (dim >= 1; from the first component, as AMReX). */
BF_EXPORT double bf_realvect_sum(int dim, const double *a);
BF_EXPORT double bf_realvect_product(int dim, const double *a);
/** Squared 2-norm and 2-norm. */
BF_EXPORT double bf_realvect_rad_squared(int dim, const double *a);
BF_EXPORT double bf_realvect_length(int dim, const double *a);
/** Direction of the smallest / largest component (of |a[d]| when use_abs);
 *  the first such direction on ties (AMReX's minDir / maxDir). */
BF_EXPORT int bf_realvect_min_dir(int dim, const double *a, bool use_abs);
BF_EXPORT int bf_realvect_max_dir(int dim, const double *a, bool use_abs);
/** Componentwise comparisons (AMReX's RealVect rule): true when the relation
 *  holds for EVERY component.  So `lt` is not the negation of `ge`. */
BF_EXPORT bool bf_realvect_all_lt(int dim, const double *a, const double *b);
BF_EXPORT bool bf_realvect_all_le(int dim, const double *a, const double *b);
BF_EXPORT bool bf_realvect_equal(int dim, const double *a, const double *b);

/** Rounding modes of bf_realvect_to_intvect. */
typedef enum bf_rounding {
  BF_ROUND_FLOOR,  /**< toward -inf */
  BF_ROUND_CEIL,   /**< toward +inf */
  BF_ROUND_NEAREST /**< nearest, halves away from zero (C round(), AMReX's RealVect::round) */
} bf_rounding;

/** Round each component to an int.  BF_ERROR_OVERFLOW when a rounded value
 *  does not fit in C int, BF_ERROR_VALUE for NaN or a bad mode. */
BF_EXPORT int bf_realvect_to_intvect(int dim, const double *a, int mode, bf_intvect *out);

/* ---- RealBox ----------------------------------------------------------------- */

/** The default RealBox of AMReX: lo = 0, hi = -1 (not ok). BF_ERROR_VALUE for a bad dim. */
BF_EXPORT int bf_realbox_default(int dim, bf_realbox *rb);
/** A RealBox from `dim` lo and hi values (any values; see bf_realbox_ok). */
BF_EXPORT int bf_realbox_define(int dim, const double *lo, const double *hi, bf_realbox *rb);
/** Physical extent of the box `bx` with cell size `dx` and origin `base`
 *  (dim doubles each): lo = base + dx*small, hi = base + dx*(big + 1) for a
 *  CELL direction, base + dx*big for a NODE direction (AMReX's rule). */
BF_EXPORT int bf_realbox_from_box(const bf_box *bx, const double *dx, const double *base, bf_realbox *rb);
/** hi - lo in direction d (0 <= d < dim, not checked). */
BF_EXPORT double bf_realbox_length(const bf_realbox *rb, int d);
/** hi - lo >= 0 in every direction (AMReX's RealBox::ok: a box of zero
 *  length is ok; NaN is not). */
BF_EXPORT bool bf_realbox_ok(const bf_realbox *rb);
/** Product of the lengths when ok, else 0 (AMReX's rule). */
BF_EXPORT double bf_realbox_volume(const bf_realbox *rb);
/** Point p (dim doubles) inside within eps: lo - eps < p < hi + eps in every
 *  direction (strict, as AMReX: a point on the boundary needs eps > 0). */
BF_EXPORT bool bf_realbox_contains_point(const bf_realbox *rb, const double *p, double eps);
/** Both corners of `inner` contained (bf_realbox_contains_point) within eps.
 *  Dimensions must agree (false otherwise). */
BF_EXPORT bool bf_realbox_contains_box(const bf_realbox *rb, const bf_realbox *inner, double eps);
/** The closed boxes overlap (touching counts): !(a.lo > b.hi || a.hi < b.lo) in every direction. */
BF_EXPORT bool bf_realbox_intersects(const bf_realbox *a, const bf_realbox *b);
/** AMReX's AlmostEqual: in every direction each corner pair x, y has
 *  |x - y| <= eps, or is equal within 2 ulps: |x - y| <= DBL_EPSILON * |x + y| * 2
 *  or |x - y| < DBL_MIN (amrex::almostEqual).  False for different dims. */
BF_EXPORT bool bf_realbox_almost_equal(const bf_realbox *a, const bf_realbox *b, double eps);

/* ---- Periodicity ---------------------------------------------------------------- */

/** Largest number of shifts bf_periodicity_shifts returns (3^3). */
#define BF_PERIODICITY_MAX_SHIFTS 27

/** From `dim` period lengths (0 = not periodic).  BF_ERROR_VALUE for a negative length. */
BF_EXPORT int bf_periodicity_define(int dim, const int *period, bf_periodicity *p);
/** Not periodic in any direction. */
BF_EXPORT int bf_periodicity_non_periodic(int dim, bf_periodicity *p);
/** period[d] > 0 (false for d out of [0, dim)). */
BF_EXPORT bool bf_periodicity_is_periodic(const bf_periodicity *p, int d);
BF_EXPORT bool bf_periodicity_is_any_periodic(const bf_periodicity *p);
BF_EXPORT bool bf_periodicity_is_all_periodic(const bf_periodicity *p);
/** Same dim and periods. */
BF_EXPORT bool bf_periodicity_equal(const bf_periodicity *a, const bf_periodicity *b);
/** Cell-centred box [0, period-1] in periodic directions and "infinite" in
 *  the others: [INT_MIN, INT_MAX - 1], as AMReX does (its length, 2^32 - 1,
 *  is exact in int64 but numpts of such a box may overflow: BF_ERROR_OVERFLOW there). */
BF_EXPORT void bf_periodicity_domain(const bf_periodicity *p, bf_box *out);
/** All periodic shift vectors, the zero shift included (as AMReX's
 *  shiftIntVect): every combination of {-period[d], 0, +period[d]} in periodic
 *  directions and 0 in the others, x varying slowest, z fastest.
 *  out must hold BF_PERIODICITY_MAX_SHIFTS entries; *n receives 3^(number of
 *  periodic directions). */
BF_EXPORT void bf_periodicity_shifts(const bf_periodicity *p, bf_intvect *out, int *n);

/* ---- Geometry ---------------------------------------------------------------------
 * AMReX's rules (AMReX_Geometry.H/.cpp, AMReX_CoordSys.H).  Each runtime instance
 * has a default geometry per dimension (AMReX's DefaultGeometry()): an undefined
 * geometry when the instance starts (a copy of the enclosing instance's default
 * when initialize is nested, as AMReX's `new AMReX()` copies it), set by the
 * first bf_geometry_setup / bf_geometry_define under that instance and by the
 * bf_geometry_reset_default_* functions, and dropped when the instance is
 * finalized.  Not thread-safe. */

/** AMReX's Geometry() without a runtime: domain = the empty box (1..1)-(0..0),
 *  prob_domain = bf_realbox_default, coord = BF_COORD_UNDEF, ok = false, not
 *  periodic, dx = 0, inv_dx = +inf, empty round-off domain. */
BF_EXPORT int bf_geometry_undefined(int dim, bf_geometry *g);
/** AMReX's value-initialized GeometryData(): as bf_geometry_undefined but
 *  coord = 0 (C++ zero-fills the plain members of `GeometryData()`). */
BF_EXPORT int bf_geometry_data_default(int dim, bf_geometry *g);
/** AMReX's Geometry(): a copy of the default geometry of the top runtime
 *  instance, or bf_geometry_undefined when no instance is active.  Reads no
 *  ParmParse value (AMReX reads them in Setup only). */
BF_EXPORT int bf_geometry_default(int dim, bf_geometry *g);
/** AMReX's Geometry::Setup(rb, coord, is_periodic) for dimension dim: does
 *  nothing when the default geometry is already ok; otherwise sets its
 *  coord (coord when 0..2, else ParmParse geometry.coord_sys, default 0,
 *  which is then added to ParmParse as AMReX's queryAdd does), its physical
 *  domain (rb, or ParmParse geometry.prob_lo (default 0, added) and exactly one
 *  of geometry.prob_hi / geometry.prob_extent), its periodicity (is_periodic,
 *  or ParmParse geometry.is_periodic, default 0s, added) and ok = true.  The
 *  domain, dx and round-off domain of the default stay as they are.
 *  rb and is_periodic may be NULL.  Errors: BF_ERROR_RUNTIME without a runtime
 *  instance; BF_ERROR_VALUE for a ParmParse value that does not parse, too few
 *  values, a coord_sys outside -1..2, neither or both of prob_hi/prob_extent, or
 *  a physical domain that is not finite with lo < hi; BF_ERROR_TYPE for an rb of
 *  another dim.  Nothing changes on error. */
BF_EXPORT int bf_geometry_setup(int dim, const bf_realbox *rb, int coord, const int *is_periodic);
/** AMReX's Geometry::ResetDefaultProbDomain / ResetDefaultPeriodicity /
 *  ResetDefaultCoord: change the default geometry of the top instance (its ok
 *  flag stays as it is).  BF_ERROR_RUNTIME without a runtime instance;
 *  BF_ERROR_VALUE for a physical domain that is not finite with lo < hi (what
 *  bf_geometry_define refuses) or a coord outside -1..2.  Periodic flags:
 *  nonzero = periodic. */
BF_EXPORT int bf_geometry_reset_default_prob_domain(const bf_realbox *rb);
BF_EXPORT int bf_geometry_reset_default_periodicity(int dim, const int *is_periodic);
BF_EXPORT int bf_geometry_reset_default_coord(int dim, int coord);

/** AMReX's Geometry::define(domain, rb, coord, is_periodic): runs
 *  bf_geometry_setup(dim, rb, coord, is_periodic) when a runtime instance is
 *  active (so the first geometry defined sets the default), then takes coord
 *  (-1: the default's coord), is_periodic (NULL: the default's; nonzero =
 *  periodic, stored as 0/1) and rb (NULL: the default's physical domain),
 *  sets ok and computes the round-off domain.  Without a runtime instance the
 *  default is a fresh one (coord -1 -> ParmParse geometry.coord_sys or 0) and
 *  nothing is recorded.  `domain` must be a non-empty cell-centred box whose
 *  lengths fit in a C int; the physical domain must be finite with lo < hi.
 *  Errors: BF_ERROR_TYPE when dims differ, BF_ERROR_OVERFLOW for a domain
 *  length past INT_MAX, BF_ERROR_VALUE otherwise (also when the round-off
 *  domain cannot be computed, where AMReX aborts); g and the defaults are
 *  untouched on failure. */
BF_EXPORT int bf_geometry_define(const bf_box *domain, const bf_realbox *rb, int coord, const int *is_periodic,
                                 bf_geometry *g);
/** AMReX's Geometry::computeRoundoffDomain: dx[d] = (prob_hi - prob_lo) /
 *  ncells[d], inv_dx = 1 / dx, then AMReX's search for roundoff_lo/roundoff_hi
 *  (the lowest and highest positions whose cell index floor((x - prob_lo) *
 *  inv_dx) lies in [0, ncells)), step for step, so the values are AMReX's bit
 *  for bit.  BF_ERROR_VALUE where AMReX's search gives up (its
 *  AMREX_ALWAYS_ASSERT aborts): an empty domain, a zero, infinite or NaN
 *  length...; BF_ERROR_OVERFLOW for a domain length past INT_MAX.  g is
 *  untouched on failure. */
BF_EXPORT int bf_geometry_compute_roundoff_domain(bf_geometry *g);
/** AMReX's Domain(box) and ProbDomain(rb) setters: replace and recompute the
 *  round-off domain (g untouched on failure).  The domain must be cell-centred
 *  (BF_ERROR_VALUE; AMReX asserts it), the physical domain finite with lo < hi
 *  (BF_ERROR_VALUE: what bf_geometry_define refuses).  Either may fail as
 *  bf_geometry_compute_roundoff_domain does, e.g. setting the physical domain
 *  while the index domain is still empty. */
BF_EXPORT int bf_geometry_set_domain(bf_geometry *g, const bf_box *domain);
BF_EXPORT int bf_geometry_set_prob_domain(bf_geometry *g, const bf_realbox *rb);
/** Set the coordinate system (-1..2, BF_ERROR_VALUE otherwise); ok unchanged. */
BF_EXPORT int bf_geometry_set_coord(bf_geometry *g, int coord);
/** Replace the periodic flags (dim ints, nonzero = periodic); the old flags go to
 *  `old` (dim ints) when not NULL. */
BF_EXPORT void bf_geometry_set_periodicity(bf_geometry *g, const int *is_periodic, int *old);
BF_EXPORT bool bf_geometry_is_any_periodic(const bf_geometry *g);
BF_EXPORT bool bf_geometry_is_all_periodic(const bf_geometry *g);
/** Product of the prob_domain lengths (AMReX's ProbSize: no ok check). */
BF_EXPORT double bf_geometry_prob_size(const bf_geometry *g);
/** Number of cells of the domain in direction d; BF_ERROR_INDEX for a bad d,
 *  BF_ERROR_RUNTIME when not periodic in d (AMReX asserts there). */
BF_EXPORT int bf_geometry_period(const bf_geometry *g, int d, int *period);
/** Periodicity of the domain, or (box != NULL) with the lengths of `box`
 *  (same dim, cell-centred: BF_ERROR_VALUE otherwise, AMReX asserts it) in the
 *  periodic directions. */
BF_EXPORT int bf_geometry_periodicity(const bf_geometry *g, const bf_box *box, bf_periodicity *p);
/** The domain grown by ngrow[d] (dim ints) only in the non-periodic
 *  (periodic = false) or only in the periodic (periodic = true) directions. */
BF_EXPORT int bf_geometry_grow_domain(const bf_geometry *g, const int *ngrow, bool periodic, bf_box *out);
/** AMReX's Geometry::coarsen / refine: coarsen / refine the domain by ratio
 *  (dim ints >= 1; BF_ERROR_VALUE otherwise) and recompute dx and inv_dx.  As in
 *  AMReX the round-off domain is NOT recomputed (call
 *  bf_geometry_compute_roundoff_domain for that).  BF_ERROR_OVERFLOW when the
 *  refined domain leaves C int or its length passes INT_MAX; g untouched on failure. */
BF_EXPORT int bf_geometry_coarsen(bf_geometry *g, const int *ratio);
BF_EXPORT int bf_geometry_refine(bf_geometry *g, const int *ratio);
/** AMReX's CoordSys::CellCenter / LoEdge / HiEdge in direction d of cell
 *  `point`: prob_lo[d] + dx[d] * (0.5 + point), prob_lo[d] + dx[d] * point,
 *  prob_lo[d] + dx[d] * (point + 1).  BF_ERROR_INDEX for a bad d,
 *  BF_ERROR_RUNTIME when g is not ok (AMReX asserts ok; its offset is not set). */
BF_EXPORT int bf_geometry_cell_center(const bf_geometry *g, int d, int point, double *x);
BF_EXPORT int bf_geometry_lo_edge(const bf_geometry *g, int d, int point, double *x);
BF_EXPORT int bf_geometry_hi_edge(const bf_geometry *g, int d, int point, double *x);
/** Cell index of position x in direction d as AMReX's particle code computes it:
 *  domain.lo[d] + floor((x - prob_lo[d]) * inv_dx[d]) (as int64, clamped to
 *  +-4e18 so that NaN and huge values stay representable; meaningful when dx > 0). */
BF_EXPORT int64_t bf_geometry_cell_index(const bf_geometry *g, int d, double x);
/** AMReX's insideRoundoffDomain: roundoff_lo[d] <= x[d] <= roundoff_hi[d] is not
 *  violated in any direction, i.e. !(x[d] < roundoff_lo[d] || x[d] > roundoff_hi[d]).
 *  Every position inside maps, through bf_geometry_cell_index, to a cell of the
 *  domain.  As in AMReX a NaN component is not outside. */
BF_EXPORT bool bf_geometry_inside_roundoff_domain(const bf_geometry *g, const double *x);
/** AMReX's outsideRoundoffDomain: x[d] < roundoff_lo[d] or x[d] > roundoff_hi[d]
 *  in some direction. */
BF_EXPORT bool bf_geometry_outside_roundoff_domain(const bf_geometry *g, const double *x);

#ifdef __cplusplus
}
#endif
#endif
