/* Box algebra (see include/boxfab/box.h). */
#include <limits.h>

#include "boxfab/box.h"

static int fits_int(int64_t v) { return v >= INT_MIN && v <= INT_MAX; }

int bf_intvect_coarsen(bf_intvect *iv, const bf_intvect *ratio) {
  BF_CHECK(iv->dim == ratio->dim, BF_ERROR_TYPE, "IntVect dimensions differ (%d and %d)", iv->dim,
           ratio->dim);
  for (int d = 0; d < iv->dim; ++d)
    BF_CHECK(ratio->v[d] > 0, BF_ERROR_VALUE, "coarsening ratio must be positive, got %d in direction %d",
             ratio->v[d], d);
  for (int d = 0; d < iv->dim; ++d) iv->v[d] = bf_floor_div(iv->v[d], ratio->v[d]);
  return BF_SUCCESS;
}

int bf_box_define(int dim, const int *lo, const int *hi, unsigned type, bf_box *box) {
  BF_CHECK_DIM(dim);
  BF_CHECK((type >> dim) == 0, BF_ERROR_VALUE, "index type 0x%x has bits beyond dimension %d", type, dim);
  bf_box b = {.dim = dim, .type = type};
  for (int d = 0; d < dim; ++d) {
    b.lo[d] = lo[d];
    b.hi[d] = hi[d];
  }
  *box = b;
  return BF_SUCCESS;
}

int bf_box_unit(int dim, bf_box *box) {
  static const int zero[BF_SPACEDIM_MAX] = {0, 0, 0};
  return bf_box_define(dim, zero, zero, 0u, box);
}

int bf_box_type_from_ints(int dim, const int *v, unsigned *type) {
  BF_CHECK_DIM(dim);
  unsigned t = 0u;
  for (int d = 0; d < dim; ++d) {
    BF_CHECK(v[d] == 0 || v[d] == 1, BF_ERROR_VALUE,
             "index type components must be 0 (CELL) or 1 (NODE), got %d in direction %d", v[d], d);
    t |= (unsigned)v[d] << d;
  }
  *type = t;
  return BF_SUCCESS;
}

void bf_box_type_to_ints(const bf_box *b, int *out) {
  for (int d = 0; d < b->dim; ++d) out[d] = (int)((b->type >> d) & 1u);
}

bool bf_box_ok(const bf_box *b) {
  for (int d = 0; d < b->dim; ++d)
    if (b->hi[d] < b->lo[d]) return false;
  return true;
}

bool bf_box_is_empty(const bf_box *b) { return !bf_box_ok(b); }

int64_t bf_box_length(const bf_box *b, int d) { return (int64_t)b->hi[d] - (int64_t)b->lo[d] + 1; }

int bf_box_size(const bf_box *b, int *out) {
  int r[BF_SPACEDIM_MAX];
  for (int d = 0; d < b->dim; ++d) {
    int64_t n = bf_box_length(b, d);
    BF_CHECK(fits_int(n), BF_ERROR_OVERFLOW, "length %lld of the box in direction %d does not fit in C int",
             (long long)n, d);
    r[d] = (int)n;
  }
  for (int d = 0; d < b->dim; ++d) out[d] = r[d];
  return BF_SUCCESS;
}

int bf_box_numpts(const bf_box *b, int64_t *npts) {
  if (!bf_box_ok(b)) {
    *npts = 0;
    return BF_SUCCESS;
  }
  int64_t n = 1;
  for (int d = 0; d < b->dim; ++d) {
    int64_t r;
    BF_CHECK(!__builtin_mul_overflow(n, bf_box_length(b, d), &r), BF_ERROR_OVERFLOW,
             "number of points of the box overflows a 64-bit integer");
    n = r;
  }
  *npts = n;
  return BF_SUCCESS;
}

int bf_box_volume(const bf_box *b, int64_t *vol) {
  if (!bf_box_ok(b)) {
    *vol = 0;
    return BF_SUCCESS;
  }
  int64_t n = 1;
  for (int d = 0; d < b->dim; ++d) {
    int64_t r;
    BF_CHECK(!__builtin_mul_overflow(n, bf_box_length(b, d) - ((b->type >> d) & 1u), &r), BF_ERROR_OVERFLOW,
             "volume of the box overflows a 64-bit integer");
    n = r;
  }
  *vol = n;
  return BF_SUCCESS;
}

double bf_box_d_numpts(const bf_box *b) {
  if (!bf_box_ok(b)) return 0.0;
  double n = 1.0;
  for (int d = 0; d < b->dim; ++d) n *= (double)bf_box_length(b, d);
  return n;
}

bool bf_box_is_square(const bf_box *b) {
  if (b->dim == 1) return false; /* AMReX: "can't build a square in 1-D" */
  for (int d = 1; d < b->dim; ++d)
    if (bf_box_length(b, d) != bf_box_length(b, 0)) return false;
  return true;
}

bool bf_box_equal(const bf_box *a, const bf_box *b) {
  if (a->dim != b->dim || a->type != b->type) return false;
  for (int d = 0; d < a->dim; ++d)
    if (a->lo[d] != b->lo[d] || a->hi[d] != b->hi[d]) return false;
  return true;
}

bool bf_box_same_type(const bf_box *a, const bf_box *b) { return a->dim == b->dim && a->type == b->type; }

int bf_box_check_same_type(const bf_box *a, const bf_box *b, const char *what) {
  BF_CHECK(a->dim == b->dim, BF_ERROR_TYPE, "%s: boxes of different dimensions (%d and %d)", what, a->dim, b->dim);
  BF_CHECK(a->type == b->type, BF_ERROR_VALUE, "%s: boxes of different index types (0x%x and 0x%x)", what,
           a->type, b->type);
  return BF_SUCCESS;
}

bool bf_box_same_size(const bf_box *a, const bf_box *b) {
  if (a->dim != b->dim) return false;
  for (int d = 0; d < a->dim; ++d)
    if (bf_box_length(a, d) != bf_box_length(b, d)) return false;
  return true;
}

bool bf_box_contains(const bf_box *b, const int *p) {
  for (int d = 0; d < b->dim; ++d)
    if (p[d] < b->lo[d] || p[d] > b->hi[d]) return false;
  return true;
}

bool bf_box_strictly_contains(const bf_box *b, const int *p) {
  for (int d = 0; d < b->dim; ++d)
    if (p[d] <= b->lo[d] || p[d] >= b->hi[d]) return false;
  return true;
}

bool bf_box_contains_box(const bf_box *b, const bf_box *inner) {
  if (!bf_box_same_type(b, inner) || !bf_box_ok(inner)) return false;
  for (int d = 0; d < b->dim; ++d)
    if (inner->lo[d] < b->lo[d] || inner->hi[d] > b->hi[d]) return false;
  return true;
}

bool bf_box_intersects(const bf_box *a, const bf_box *b) {
  if (!bf_box_same_type(a, b)) return false;
  for (int d = 0; d < a->dim; ++d) {
    int lo = a->lo[d] > b->lo[d] ? a->lo[d] : b->lo[d];
    int hi = a->hi[d] < b->hi[d] ? a->hi[d] : b->hi[d];
    if (hi < lo) return false;
  }
  return true;
}

void bf_box_intersection(const bf_box *a, const bf_box *b, bf_box *out) {
  bf_box r = *a;
  for (int d = 0; d < a->dim; ++d) {
    r.lo[d] = a->lo[d] > b->lo[d] ? a->lo[d] : b->lo[d];
    r.hi[d] = a->hi[d] < b->hi[d] ? a->hi[d] : b->hi[d];
  }
  *out = r;
}

void bf_box_minimal(const bf_box *a, const bf_box *b, bf_box *out) {
  bf_box r = *a;
  for (int d = 0; d < a->dim; ++d) {
    r.lo[d] = a->lo[d] < b->lo[d] ? a->lo[d] : b->lo[d];
    r.hi[d] = a->hi[d] > b->hi[d] ? a->hi[d] : b->hi[d];
  }
  *out = r;
}

void bf_box_lbound3(const bf_box *b, int out[3]) {
  for (int d = 0; d < 3; ++d) out[d] = d < b->dim ? b->lo[d] : 0;
}

void bf_box_ubound3(const bf_box *b, int out[3]) {
  for (int d = 0; d < 3; ++d) out[d] = d < b->dim ? b->hi[d] : 0;
}

int bf_box_length3(const bf_box *b, int out[3]) {
  int r[3] = {1, 1, 1};
  BF_CALL(bf_box_size(b, r));
  for (int d = 0; d < 3; ++d) out[d] = r[d];
  return BF_SUCCESS;
}

int bf_box_end3(const bf_box *b, int out[3]) {
  int r[3] = {1, 1, 1};
  for (int d = 0; d < b->dim; ++d) {
    BF_CHECK(b->hi[d] < INT_MAX, BF_ERROR_OVERFLOW, "end of the box overflows C int in direction %d", d);
    r[d] = b->hi[d] + 1;
  }
  for (int d = 0; d < 3; ++d) out[d] = r[d];
  return BF_SUCCESS;
}

bool bf_box_iter_begin(const bf_box *b, int *p) {
  if (!bf_box_ok(b)) return false;
  for (int d = 0; d < b->dim; ++d) p[d] = b->lo[d];
  return true;
}

bool bf_box_iter_next(const bf_box *b, int *p) {
  for (int d = 0; d < b->dim; ++d) {
    if (p[d] < b->hi[d]) {
      ++p[d];
      return true;
    }
    p[d] = b->lo[d]; /* carry into the next direction */
  }
  return false;
}

void bf_box_normalize(bf_box *b) {
  for (int d = 0; d < b->dim; ++d)
    if (bf_box_length(b, d) == 0) b->hi[d] = b->lo[d]; /* hi == lo - 1: grow the high end by one */
}

int bf_box_shift(bf_box *b, int d, int n) {
  BF_CHECK(d >= 0 && d < b->dim, BF_ERROR_INDEX, "direction %d out of range for dimension %d", d, b->dim);
  int lo, hi;
  BF_CHECK(!__builtin_add_overflow(b->lo[d], n, &lo) && !__builtin_add_overflow(b->hi[d], n, &hi),
           BF_ERROR_OVERFLOW, "shifting the box by %d overflows C int", n);
  b->lo[d] = lo;
  b->hi[d] = hi;
  return BF_SUCCESS;
}

int bf_box_shift_iv(bf_box *b, const int *s) {
  bf_box r = *b;
  for (int d = 0; d < b->dim; ++d) BF_CALL(bf_box_shift(&r, d, s[d]));
  *b = r;
  return BF_SUCCESS;
}

int bf_box_shift_iv_neg(bf_box *b, const int *s) {
  bf_box r = *b;
  for (int d = 0; d < b->dim; ++d) {
    int64_t lo = (int64_t)b->lo[d] - s[d], hi = (int64_t)b->hi[d] - s[d];
    BF_CHECK(fits_int(lo) && fits_int(hi), BF_ERROR_OVERFLOW, "shifting the box by %lld overflows C int",
             -(long long)s[d]);
    r.lo[d] = (int)lo;
    r.hi[d] = (int)hi;
  }
  *b = r;
  return BF_SUCCESS;
}

int bf_box_grow_dir(bf_box *b, int d, int n_lo, int n_hi) {
  BF_CHECK(d >= 0 && d < b->dim, BF_ERROR_INDEX, "direction %d out of range for dimension %d", d, b->dim);
  int64_t lo = (int64_t)b->lo[d] - n_lo, hi = (int64_t)b->hi[d] + n_hi;
  BF_CHECK(fits_int(lo) && fits_int(hi), BF_ERROR_OVERFLOW, "growing the box overflows C int");
  b->lo[d] = (int)lo;
  b->hi[d] = (int)hi;
  return BF_SUCCESS;
}

int bf_box_grow(bf_box *b, const int *n) {
  bf_box r = *b;
  for (int d = 0; d < b->dim; ++d) BF_CALL(bf_box_grow_dir(&r, d, n[d], n[d]));
  *b = r;
  return BF_SUCCESS;
}

static int check_ratio(const bf_box *b, const int *ratio) {
  for (int d = 0; d < b->dim; ++d)
    BF_CHECK(ratio[d] >= 1, BF_ERROR_VALUE, "ratio must be positive, got %d in direction %d", ratio[d], d);
  return BF_SUCCESS;
}

int bf_box_refine(bf_box *b, const int *ratio) {
  BF_CALL(check_ratio(b, ratio));
  bf_box r = *b;
  for (int d = 0; d < b->dim; ++d) {
    int64_t s = (b->type >> d) & 1u ? 0 : 1;
    int64_t lo = (int64_t)b->lo[d] * ratio[d];
    int64_t hi = ((int64_t)b->hi[d] + s) * ratio[d] - s;
    BF_CHECK(fits_int(lo) && fits_int(hi), BF_ERROR_OVERFLOW, "refining the box overflows C int");
    r.lo[d] = (int)lo;
    r.hi[d] = (int)hi;
  }
  *b = r;
  return BF_SUCCESS;
}

int bf_box_coarsen(bf_box *b, const int *ratio) {
  BF_CALL(check_ratio(b, ratio));
  for (int d = 0; d < b->dim; ++d) {
    int nodal = (b->type >> d) & 1u;
    int off = (nodal && b->hi[d] % ratio[d] != 0) ? 1 : 0;
    b->lo[d] = bf_floor_div(b->lo[d], ratio[d]);
    b->hi[d] = bf_floor_div(b->hi[d], ratio[d]) + off;
  }
  return BF_SUCCESS;
}

int bf_box_convert(bf_box *b, unsigned type) {
  BF_CHECK((type >> b->dim) == 0, BF_ERROR_VALUE, "index type 0x%x has bits beyond dimension %d", type,
           b->dim);
  bf_box r = *b;
  for (int d = 0; d < b->dim; ++d) {
    unsigned from = (b->type >> d) & 1u, to = (type >> d) & 1u;
    if (from == to) continue;
    int64_t hi = (int64_t)b->hi[d] + (to ? 1 : -1);
    BF_CHECK(fits_int(hi), BF_ERROR_OVERFLOW, "converting the box overflows C int");
    r.hi[d] = (int)hi;
  }
  r.type = type;
  *b = r;
  return BF_SUCCESS;
}

int bf_box_surrounding_nodes(bf_box *b, int d) {
  if (d < 0) return bf_box_convert(b, (1u << b->dim) - 1u);
  BF_CHECK(d < b->dim, BF_ERROR_INDEX, "direction %d out of range for dimension %d", d, b->dim);
  return bf_box_convert(b, b->type | (1u << d));
}

int bf_box_enclosed_cells(bf_box *b, int d) {
  if (d < 0) return bf_box_convert(b, 0u);
  BF_CHECK(d < b->dim, BF_ERROR_INDEX, "direction %d out of range for dimension %d", d, b->dim);
  return bf_box_convert(b, b->type & ~(1u << d));
}

int bf_box_chop(bf_box *b, int d, int chop_pnt, bf_box *hi) {
  BF_CHECK(d >= 0 && d < b->dim, BF_ERROR_INDEX, "direction %d out of range for dimension %d", d, b->dim);
  bool nodal = (b->type >> d) & 1u;
  BF_CHECK(chop_pnt > b->lo[d] && (nodal ? chop_pnt < b->hi[d] : chop_pnt <= b->hi[d]), BF_ERROR_VALUE,
           "chop point %d must lie in (%d, %d%s in direction %d", chop_pnt, b->lo[d], b->hi[d], nodal ? ")" : "]", d);
  bf_box high = *b;
  high.lo[d] = chop_pnt;
  b->hi[d] = nodal ? chop_pnt : chop_pnt - 1;
  *hi = high;
  return BF_SUCCESS;
}

/* The range [lo, hi] of a piece next to b in direction d (64-bit, checked), with bit d of the type set to `bit`. */
static int side_piece(const bf_box *b, int d, int64_t lo, int64_t hi, unsigned bit, bf_box *out) {
  BF_CHECK(fits_int(lo) && fits_int(hi), BF_ERROR_OVERFLOW, "the box next to the face overflows C int");
  bf_box r = *b;
  r.lo[d] = (int)lo;
  r.hi[d] = (int)hi;
  r.type = (b->type & ~(1u << d)) | (bit << d);
  *out = r;
  return BF_SUCCESS;
}

int bf_box_adj_cell(const bf_box *b, int d, int len, bool high, bf_box *out) {
  BF_CHECK(d >= 0 && d < b->dim, BF_ERROR_INDEX, "direction %d out of range for dimension %d", d, b->dim);
  BF_CHECK(len > 0, BF_ERROR_VALUE, "adjacent cells: len must be positive, got %d", len);
  if (!high) return side_piece(b, d, (int64_t)b->lo[d] - len, (int64_t)b->lo[d] - 1, 0u, out);
  int64_t bg = (int64_t)b->hi[d] + 1 - ((b->type >> d) & 1u);
  return side_piece(b, d, bg, bg + len - 1, 0u, out);
}

int bf_box_bdry(const bf_box *b, int d, int len, bool high, bf_box *out) {
  BF_CHECK(d >= 0 && d < b->dim, BF_ERROR_INDEX, "direction %d out of range for dimension %d", d, b->dim);
  /* AMReX's bdryLo/Hi do not check (adjCellLo/Hi assert len > 0): a len < 1
   * gave an empty box (lo > hi) without a word */
  BF_CHECK(len > 0, BF_ERROR_VALUE, "boundary nodes: len must be positive, got %d", len);
  if (!high) return side_piece(b, d, (int64_t)b->lo[d] - len + 1, b->lo[d], 1u, out);
  int64_t bg = (int64_t)b->hi[d] + 1 - ((b->type >> d) & 1u);
  return side_piece(b, d, bg, bg + len - 1, 1u, out);
}

int bf_box_make_slab(bf_box *b, int d, int idx) {
  BF_CHECK(d >= 0 && d < b->dim, BF_ERROR_INDEX, "direction %d out of range for dimension %d", d, b->dim);
  b->lo[d] = idx;
  b->hi[d] = idx;
  return BF_SUCCESS;
}
