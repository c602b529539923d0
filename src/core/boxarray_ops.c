/* BoxArray transformations: max_size, refine, coarsen, convert, coarsenable
 * (see include/boxfab/boxarray.h).  Each builds the new boxes in a fresh
 * buffer and installs it only on success, so a failure changes nothing. */
#include <stdlib.h>
#include <string.h>

#include "boxarray_impl.h"

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

/* Cells of box b in direction d that max_size chops (nodal: one fewer than nodes). */
static int64_t chop_cells(const bf_box *b, int d) { return bf_box_length(b, d) - ((b->type >> d) & 1u); }

/* Number of pieces along d of a side of `cells` cells with at most n per piece. */
static int64_t chop_pieces(int64_t cells, int n) { return cells <= n ? 1 : (cells + n - 1) / n; }

/* Bounds of piece j (of k) of a side [lo, lo + cells - 1] in cells; nodal adds a node. */
static void chop_piece(int lo, int64_t cells, int64_t k, int64_t j, int nodal, int *plo, int *phi) {
  int64_t size = cells / k, extra = cells % k;
  int64_t start = (int64_t)lo + j * size + (j < extra ? j : extra);
  int64_t len = size + (j < extra ? 1 : 0);
  *plo = (int)start;
  *phi = (int)(start + len - 1 + nodal);
}

int bf_boxarray_max_size(bf_boxarray **ba, const int *n) {
  const bf_boxarray *cur = *ba;
  BF_CALL(check_positive(cur, n, "max_size"));
  /* count the pieces */
  int64_t total = 0;
  for (int64_t i = 0; i < cur->n; ++i) {
    const bf_box *b = &cur->boxes[i];
    int64_t np = 1;
    if (bf_box_ok(b))
      for (int d = 0; d < cur->dim; ++d)
        BF_CHECK(!__builtin_mul_overflow(np, chop_pieces(chop_cells(b, d), n[d]), &np), BF_ERROR_OVERFLOW,
                 "max_size would make more than 2^63 boxes");
    BF_CHECK(!__builtin_add_overflow(total, np, &total), BF_ERROR_OVERFLOW, "max_size would make more than 2^63 boxes");
  }
  /* each box gives >= 1 piece: total == n means nothing to chop; keep the
   * array (and its cached hash) */
  if (total == cur->n) return BF_SUCCESS;
  BF_CHECK((uint64_t)total <= SIZE_MAX / sizeof(bf_box), BF_ERROR_MEMORY,
           "max_size would make %lld boxes, more than fit in memory", (long long)total);
  bf_box *out = malloc((size_t)(total > 0 ? total : 1) * sizeof *out);
  BF_CHECK(out != NULL, BF_ERROR_MEMORY, "out of memory for %lld boxes from max_size", (long long)total);
  int64_t m = 0;
  for (int64_t i = 0; i < cur->n; ++i) {
    const bf_box *b = &cur->boxes[i];
    if (!bf_box_ok(b)) {
      out[m++] = *b;
      continue;
    }
    int64_t k[BF_SPACEDIM_MAX] = {1, 1, 1}, j[BF_SPACEDIM_MAX] = {0, 0, 0}, cells[BF_SPACEDIM_MAX] = {0, 0, 0};
    for (int d = 0; d < cur->dim; ++d) {
      cells[d] = chop_cells(b, d);
      k[d] = chop_pieces(cells[d], n[d]);
    }
    for (;;) {
      bf_box p = *b;
      for (int d = 0; d < cur->dim; ++d)
        if (k[d] > 1) chop_piece(b->lo[d], cells[d], k[d], j[d], (b->type >> d) & 1u, &p.lo[d], &p.hi[d]);
      out[m++] = p;
      int d = 0; /* next multi-index, direction 0 fastest */
      while (d < cur->dim && ++j[d] == k[d])
        j[d++] = 0;
      if (d == cur->dim) break;
    }
  }
  return bf_boxarray_install(ba, out, total, cur->type);
}

/* ---- refine, coarsen, convert ------------------------------------------------------- */

typedef int (*box_op)(bf_box *b, const void *arg);

/* Apply op to a copy of every box; install on success. */
static int apply(bf_boxarray **ba, box_op op, const void *arg, unsigned new_type) {
  bf_box *boxes = NULL;
  BF_CALL(copy_boxes(*ba, &boxes));
  for (int64_t i = 0; i < (*ba)->n; ++i) {
    int s = op(&boxes[i], arg);
    if (s) {
      free(boxes);
      return s;
    }
  }
  return bf_boxarray_install(ba, boxes, (*ba)->n, new_type);
}

static int op_refine(bf_box *b, const void *ratio) { return bf_box_refine(b, ratio); }
static int op_coarsen(bf_box *b, const void *ratio) { return bf_box_coarsen(b, ratio); }
static int op_convert(bf_box *b, const void *type) { return bf_box_convert(b, *(const unsigned *)type); }

int bf_boxarray_refine(bf_boxarray **ba, const int *ratio) {
  BF_CALL(check_positive(*ba, ratio, "refinement ratio"));
  return apply(ba, op_refine, ratio, (*ba)->type);
}

int bf_boxarray_coarsen(bf_boxarray **ba, const int *ratio) {
  BF_CALL(check_positive(*ba, ratio, "coarsening ratio"));
  return apply(ba, op_coarsen, ratio, (*ba)->type);
}

int bf_boxarray_convert(bf_boxarray **ba, unsigned type) {
  BF_CHECK((type >> (*ba)->dim) == 0, BF_ERROR_VALUE, "index type 0x%x has bits beyond dimension %d", type, (*ba)->dim);
  if (type == (*ba)->type) return BF_SUCCESS;
  return apply(ba, op_convert, &type, type);
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
  for (int d = 0; d < ba->dim; ++d)
    BF_CHECK(min_width[d] >= 0, BF_ERROR_VALUE, "min_width must be >= 0, got %d in direction %d", min_width[d], d);
  bool ok = ba->n > 0;
  for (int64_t i = 0; i < ba->n && ok; ++i)
    ok = box_coarsenable(&ba->boxes[i], ratio, min_width);
  *result = ok;
  return BF_SUCCESS;
}
