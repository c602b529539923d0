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

/** Index domain, physical domain, coordinates and periodicity of a level. */
typedef struct bf_geometry {
  int dim;
  bf_box domain;          /**< cell-centred index domain */
  bf_realbox prob_domain; /**< physical domain */
  int coord;              /**< bf_coord_type */
  int is_periodic[BF_SPACEDIM_MAX];
  double dx[BF_SPACEDIM_MAX];     /**< cell size */
  double inv_dx[BF_SPACEDIM_MAX]; /**< 1 / dx */
  /** Round-off-safe physical domain (see bf_geometry_inside_roundoff_domain):
   *  a position x is inside when roundoff_lo[d] <= x[d] < roundoff_hi[d]. */
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
/** Sum of a[d] * b[d]. */
BF_EXPORT double bf_realvect_dot(int dim, const double *a, const double *b);
/** out = a x b; only for dim == 3 (BF_ERROR_VALUE otherwise). out may alias. */
BF_EXPORT int bf_realvect_cross(int dim, const double *a, const double *b, double *out);
/** Sum / product of the components. */
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
/** lo < hi in every direction. */
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
/** |a.lo - b.lo| <= eps and |a.hi - b.hi| <= eps in every direction (same dim). */
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

/* ---- Geometry -------------------------------------------------------------------- */

/** An undefined geometry (no defaults): domain = the empty box (1..1)-(0..0),
 *  prob_domain = bf_realbox_default, coord = BF_COORD_UNDEF, not periodic,
 *  dx = inv_dx = 0. */
BF_EXPORT int bf_geometry_undefined(int dim, bf_geometry *g);
/** The default geometry of Geometry(): bf_geometry_undefined, then
 *  - coord: BF_COORD_CARTESIAN while the runtime is initialized (AMReX reads
 *    geometry.coord_sys with default 0 at initialize), else undefined;
 *  - the ParmParse values geometry.prob_lo, geometry.prob_hi (dim reals each),
 *    geometry.coord_sys (int) and geometry.is_periodic (dim ints) when defined;
 *  - over those, the class-wide defaults set with bf_geometry_set_default_*.
 *  The domain stays the empty box (dx = inv_dx = 0).  BF_ERROR_VALUE when a
 *  ParmParse value does not parse, has the wrong count or is out of range. */
BF_EXPORT int bf_geometry_default(int dim, bf_geometry *g);
/** Class-wide defaults per dimension (AMReX's Geometry::ResetDefault*).  Process-wide,
 *  not thread-safe.  prob domain: any RealBox of that dim; periodicity: dim flags
 *  (nonzero = periodic); coord: -1..2 (BF_ERROR_VALUE otherwise). */
BF_EXPORT int bf_geometry_set_default_prob_domain(const bf_realbox *rb);
BF_EXPORT int bf_geometry_set_default_periodicity(int dim, const int *is_periodic);
BF_EXPORT int bf_geometry_set_default_coord(int dim, int coord);
/** Forget the class-wide defaults of dimension dim (0: all dimensions). */
BF_EXPORT void bf_geometry_clear_defaults(int dim);

/** Define a geometry: `domain` must be a non-empty cell-centred box, `rb` an ok
 *  RealBox of the same dim, coord in -1..2, is_periodic dim flags (nonzero =
 *  periodic, stored as 0/1).  Computes dx, inv_dx and the round-off domain.
 *  Errors: BF_ERROR_TYPE when dims differ, BF_ERROR_VALUE otherwise; g is
 *  untouched on failure. */
BF_EXPORT int bf_geometry_define(const bf_box *domain, const bf_realbox *rb, int coord, const int *is_periodic,
                                 bf_geometry *g);
/** Recompute dx, inv_dx and the round-off domain from domain and prob_domain:
 *  dx[d] = (prob_hi - prob_lo) / ncells[d], inv_dx = 1 / dx.  When the domain is
 *  empty or prob_domain is not ok, dx = inv_dx = 0 and the round-off domain is
 *  empty (every position is outside). */
BF_EXPORT void bf_geometry_compute(bf_geometry *g);
/** Replace the index domain (non-empty, cell-centred, same dim) and recompute. */
BF_EXPORT int bf_geometry_set_domain(bf_geometry *g, const bf_box *domain);
/** Replace the physical domain (same dim) and recompute. */
BF_EXPORT int bf_geometry_set_prob_domain(bf_geometry *g, const bf_realbox *rb);
/** Set the coordinate system (-1..2, BF_ERROR_VALUE otherwise). */
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
 *  (same dim) in the periodic directions. */
BF_EXPORT int bf_geometry_periodicity(const bf_geometry *g, const bf_box *box, bf_periodicity *p);
/** The domain grown by ngrow[d] (dim ints) only in the non-periodic
 *  (periodic = false) or only in the periodic (periodic = true) directions. */
BF_EXPORT int bf_geometry_grow_domain(const bf_geometry *g, const int *ngrow, bool periodic, bf_box *out);
/** Coarsen / refine the domain by ratio (dim ints >= 1; BF_ERROR_VALUE otherwise)
 *  and recompute dx; the physical domain is unchanged. */
BF_EXPORT int bf_geometry_coarsen(bf_geometry *g, const int *ratio);
BF_EXPORT int bf_geometry_refine(bf_geometry *g, const int *ratio);
/** Cell index of position x in direction d with the rule every boxfab routine
 *  uses: domain.lo[d] + floor((x - prob_lo[d]) * inv_dx[d]) (as int64, no clamp;
 *  meaningful when dx > 0). */
BF_EXPORT int64_t bf_geometry_cell_index(const bf_geometry *g, int d, double x);
/** Position x (dim doubles) in the round-off domain: roundoff_lo[d] <= x[d] <
 *  roundoff_hi[d] in every direction.  The round-off domain is AMReX's idea
 *  (a domain slightly inside prob_domain) made exact: a position inside always
 *  maps, through bf_geometry_cell_index, to a cell of the domain despite
 *  floating-point round-off.  roundoff_lo = prob_lo (x >= prob_lo gives
 *  x - prob_lo >= 0 in IEEE arithmetic, so the index is >= domain.lo), and
 *  roundoff_hi = min(prob_hi, the smallest double whose cell index is past the
 *  domain's last cell), found by bisection over the ordered doubles (the index
 *  is monotone in x); it is usually prob_hi or a few ulps below. */
BF_EXPORT bool bf_geometry_inside_roundoff_domain(const bf_geometry *g, const double *x);
/** Not inside. */
BF_EXPORT bool bf_geometry_outside_roundoff_domain(const bf_geometry *g, const double *x);

#ifdef __cplusplus
}
#endif
#endif
