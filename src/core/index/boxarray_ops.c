/* BoxArray transformations: max_size, refine, coarsen, convert, coarsenable
 * (see include/boxfab/boxarray.h).  Each builds the new boxes in a fresh
 * buffer and installs it only on success, so a failure changes nothing. */
#include <stdlib.h>
#include <string.h>

#include "index/boxarray_impl.h"

/* A malloc'ed copy of the boxes of ba (at least one slot). */
static int copy_boxes(const bf_boxarray *ba, bf_box **out) {
  bf_box *boxes = malloc((size_t)(ba->n > 0 ? ba->n : 1) * sizeof *boxes);
  BF_CHECK(boxes != NULL, BF_ERROR_MEMORY, "out of memory for a BoxArray of %lld boxes", (long long)ba->n);
  if (ba->n > 0) memcpy(boxes, ba->boxes, (size_t)ba->n * sizeof *boxes);
  *out = boxes;
  return BF_SUCCESS;
}

static int check_positive(const bf_boxarray *ba, const int *v, const char *what) {
  for (int d = 0; d < ba->dim; ++d)
    BF_CHECK(v[d] >= 1, BF_ERROR_VALUE, "%s must be positive, got %d in direction %d", what, v[d], d);
  return BF_SUCCESS;
}

/* ---- max_size ----------------------------------------------------------------------- */

/* AMReX's BoxList::maxSize (AMReX_BoxList.cpp) cuts one direction of L cells
 * (the enclosed cells: one fewer than the nodes in a nodal direction) into
 * pieces of at most n cells like this: while n and L are both even, halve
 * both and double a unit `ratio`; then nblk = ceil(L / n) blocks of
 * sz = L / nblk units, the first `extra` = L - sz * nblk of them one unit
 * longer, a unit being `ratio` cells.  So 14 cells with n = 6 give 6, 4, 4
 * and 10 with n = 4 give 4, 4, 2 (not the "near-equal" 5, 5, 4 / 4, 3, 3).
 * A direction with L <= n (or an empty one) is one block. */
typedef struct {
  int64_t nblk, sz, extra, ratio;
} chop_rule;

static chop_rule chop_rule_of(int64_t cells, int n) {
  chop_rule c = {1, cells, 0, 1};
  if (cells <= n) return c;
  int64_t bs = n, len = cells;
  while (bs % 2 == 0 && len % 2 == 0) {
    c.ratio *= 2;
    bs /= 2;
    len /= 2;
  }
  c.nblk = (len + bs - 1) / bs;
  c.sz = len / c.nblk;
  c.extra = len - c.sz * c.nblk;
  return c;
}

/* Cells of box b in direction d (AMReX: enclosedCells(b).size()). */
static int64_t chop_cells(const bf_box *b, int d) { return bf_box_length(b, d) - ((b->type >> d) & 1u); }

/* Cell range of block j (of rule c) of a side starting at lo; a nodal side gets its end node. */
static void chop_piece(int lo, const chop_rule *c, int64_t j, int nodal, int *plo, int *phi) {
  int64_t start = j < c->extra ? j * (c->sz + 1) * c->ratio : (j * c->sz + c->extra) * c->ratio;
  int64_t len = (j < c->extra ? c->sz + 1 : c->sz) * c->ratio;
  *plo = (int)(lo + start);
  *phi = (int)(lo + start + len - 1 + nodal);
}

/* std::vector's capacity after `n` push_backs into an empty one (1, 2, 4, ...). */
static int64_t pushed_capacity(int64_t n) {
  int64_t c = 0;
  while (c < n) c = c ? (c > INT64_MAX / 2 ? n : 2 * c) : 1;
  return c;
}

int bf_boxarray_max_size(bf_boxarray **ba, const int *n) {
  const bf_boxarray *cur = *ba;
  BF_CALL(check_positive(cur, n, "max_size"));
  /* count the pieces (AMReX chops empty boxes too: a long side of an empty
   * box is cut like any other, the empty direction is kept) */
  int64_t total = 0;
  for (int64_t i = 0; i < cur->n; ++i) {
    const bf_box *b = &cur->boxes[i];
    int64_t np = 1;
    for (int d = 0; d < cur->dim; ++d)
      BF_CHECK(!__builtin_mul_overflow(np, chop_rule_of(chop_cells(b, d), n[d]).nblk, &np), BF_ERROR_OVERFLOW,
               "max_size would make more than 2^63 boxes");
    BF_CHECK(!__builtin_add_overflow(total, np, &total), BF_ERROR_OVERFLOW, "max_size would make more than 2^63 boxes");
  }
  /* each box gives >= 1 piece: total == n means nothing to chop; keep the
   * array (and its cached hash), as AMReX's BoxArray::maxSize does (after
   * its uniqify()) */
  if (total == cur->n) return bf_boxarray_uniqify(ba);
  BF_CHECK((uint64_t)total <= SIZE_MAX / sizeof(bf_box), BF_ERROR_MEMORY,
           "max_size would make %lld boxes, more than fit in memory", (long long)total);
  bf_box *out = malloc((size_t)(total > 0 ? total : 1) * sizeof *out);
  BF_CHECK(out != NULL, BF_ERROR_MEMORY, "out of memory for %lld boxes from max_size", (long long)total);
  int64_t m = 0;
  for (int64_t i = 0; i < cur->n; ++i) {
    const bf_box *b = &cur->boxes[i];
    chop_rule c[BF_SPACEDIM_MAX] = {{1, 0, 0, 1}, {1, 0, 0, 1}, {1, 0, 0, 1}};
    int64_t j[BF_SPACEDIM_MAX] = {0, 0, 0}, np = 1;
    for (int d = 0; d < cur->dim; ++d) {
      c[d] = chop_rule_of(chop_cells(b, d), n[d]);
      np *= c[d].nblk;
    }
    if (np == 1) { /* AMReX keeps such a box as it is */
      out[m++] = *b;
      continue;
    }
    for (;;) {
      bf_box p = *b;
      for (int d = 0; d < cur->dim; ++d)
        chop_piece(b->lo[d], &c[d], j[d], (b->type >> d) & 1u, &p.lo[d], &p.hi[d]);
      out[m++] = p;
      int d = 0; /* next block, direction 0 fastest (AMReX's loop order) */
      while (d < cur->dim && ++j[d] == c[d].nblk)
        j[d++] = 0;
      if (d == cur->dim) break;
    }
  }
  /* AMReX defines the array from the BoxList it built with push_back */
  BF_CALL(bf_boxarray_install(ba, out, total, cur->type, pushed_capacity(total)));
  (*ba)->pending_coarse = 0u;
  return BF_SUCCESS;
}

/* ---- refine, coarsen, convert ------------------------------------------------------- */

typedef int (*box_op)(bf_box *b, const void *arg);

/* Apply op to a copy of every box; install on success with capacity `cap`. */
static int apply(bf_boxarray **ba, box_op op, const void *arg, unsigned new_type, int64_t cap) {
  bf_box *boxes = NULL;
  BF_CALL(copy_boxes(*ba, &boxes));
  for (int64_t i = 0; i < (*ba)->n; ++i) {
    int s = op(&boxes[i], arg);
    if (s) {
      free(boxes);
      return s;
    }
  }
  return bf_boxarray_install(ba, boxes, (*ba)->n, new_type, cap);
}

static int op_refine(bf_box *b, const void *ratio) { return bf_box_refine(b, ratio); }
static int op_coarsen(bf_box *b, const void *ratio) { return bf_box_coarsen(b, ratio); }
static int op_convert(bf_box *b, const void *type) { return bf_box_convert(b, *(const unsigned *)type); }

typedef struct {
  const int *lo, *hi;
} grow_arg;

static int op_grow(bf_box *b, const void *arg) {
  const grow_arg *g = arg;
  for (int d = 0; d < b->dim; ++d) BF_CALL(bf_box_grow_dir(b, d, g->lo[d], g->hi[d]));
  return BF_SUCCESS;
}

static int op_shift(bf_box *b, const void *s) { return bf_box_shift_iv(b, s); }

/* Capacities: AMReX's refine, grow and shift change the boxes in place after
 * uniqify(); its coarsen and convert only change the BATransformer (the
 * boxes, and their capacity, stay). */
int bf_boxarray_refine(bf_boxarray **ba, const int *ratio) {
  BF_CALL(check_positive(*ba, ratio, "refinement ratio"));
  BF_CALL(apply(ba, op_refine, ratio, (*ba)->type, BF_BOXARRAY_CAP_UNIQUIFY));
  (*ba)->pending_coarse = 0u;
  return BF_SUCCESS;
}

int bf_boxarray_coarsen(bf_boxarray **ba, const int *ratio) {
  BF_CALL(check_positive(*ba, ratio, "coarsening ratio"));
  BF_CALL(apply(ba, op_coarsen, ratio, (*ba)->type, (*ba)->capacity));
  for (int d = 0; d < (*ba)->dim; ++d)
    if (ratio[d] > 1) (*ba)->pending_coarse |= 1u << d;
  return BF_SUCCESS;
}

int bf_boxarray_convert(bf_boxarray **ba, unsigned type) {
  BF_CHECK((type >> (*ba)->dim) == 0, BF_ERROR_VALUE, "index type 0x%x has bits beyond dimension %d", type, (*ba)->dim);
  if (type == (*ba)->type) return BF_SUCCESS;
  return apply(ba, op_convert, &type, type, (*ba)->capacity);
}

int bf_boxarray_grow(bf_boxarray **ba, const int *n_lo, const int *n_hi) {
  grow_arg g = {n_lo, n_hi};
  BF_CALL(apply(ba, op_grow, &g, (*ba)->type, BF_BOXARRAY_CAP_UNIQUIFY));
  (*ba)->pending_coarse = 0u;
  return BF_SUCCESS;
}

int bf_boxarray_shift(bf_boxarray **ba, const int *s) {
  BF_CALL(apply(ba, op_shift, s, (*ba)->type, BF_BOXARRAY_CAP_UNIQUIFY));
  (*ba)->pending_coarse = 0u;
  return BF_SUCCESS;
}

static int check_dir(const bf_boxarray *ba, int d) {
  BF_CHECK(d < ba->dim, BF_ERROR_INDEX, "direction %d out of range for dimension %d", d, ba->dim);
  return BF_SUCCESS;
}

int bf_boxarray_enclosed_cells(bf_boxarray **ba, int d) {
  BF_CALL(check_dir(*ba, d));
  return bf_boxarray_convert(ba, d < 0 ? 0u : ((*ba)->type & ~(1u << d)));
}

int bf_boxarray_surrounding_nodes(bf_boxarray **ba, int d) {
  BF_CALL(check_dir(*ba, d));
  return bf_boxarray_convert(ba, d < 0 ? (1u << (*ba)->dim) - 1u : ((*ba)->type | (1u << d)));
}

/* ---- coarsenable -------------------------------------------------------------------- */

static bool box_coarsenable(const bf_box *b, const int *ratio, const int *min_width) {
  for (int d = 0; d < b->dim; ++d)
    if (bf_box_length(b, d) < (int64_t)ratio[d] * min_width[d]) return false;
  bf_box t = *b;
  if (bf_box_coarsen(&t, ratio) || bf_box_refine(&t, ratio)) return false; /* past C int: not exact */
  return bf_box_equal(&t, b);
}

int bf_boxarray_coarsenable(const bf_boxarray *ba, const int *ratio, const int *min_width, bool *result) {
  BF_CALL(check_positive(ba, ratio, "coarsening ratio"));
  /* a width is never negative: AMReX's size >= ratio * min_width would hold
   * for any box and answer a question nobody asked */
  for (int d = 0; d < ba->dim; ++d)
    BF_CHECK(min_width[d] >= 0, BF_ERROR_VALUE, "coarsenable: min_width must be >= 0, got %d in direction %d",
             min_width[d], d);
  bool ok = ba->n > 0;
  for (int64_t i = 0; i < ba->n && ok; ++i)
    ok = box_coarsenable(&ba->boxes[i], ratio, min_width);
  *result = ok;
  return BF_SUCCESS;
}
