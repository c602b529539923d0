/* BoxArray storage, reference counting, copy on write and the simple
 * readers/mutators (see include/boxfab/boxarray.h).  max_size, refine and
 * friends live in boxarray_ops.c; queries in boxarray_query.c. */
#include <stdlib.h>
#include <string.h>

#include "index/boxarray_impl.h"

static void boxarray_free(bf_object *obj) {
  bf_boxarray *ba = (bf_boxarray *)obj;
  bf_boxarray_hash_free(ba->hash);
  free(ba->boxes);
  free(ba);
}

bf_box bf_boxarray_empty_box(int dim, unsigned type) {
  bf_box b = {.dim = dim, .type = type};
  for (int d = 0; d < dim; ++d) {
    b.lo[d] = 1;
    b.hi[d] = (int)((type >> d) & 1u);
  }
  return b;
}

int bf_boxarray_alloc(int dim, int64_t n, bf_boxarray **out) {
  BF_CHECK_DIM(dim);
  BF_CHECK(n >= 0, BF_ERROR_VALUE, "negative number of boxes %lld", (long long)n);
  BF_CHECK((uint64_t)n <= SIZE_MAX / sizeof(bf_box), BF_ERROR_MEMORY, "a BoxArray of %lld boxes does not fit in memory",
           (long long)n);
  bf_boxarray *ba = calloc(1, sizeof *ba);
  bf_box *boxes = calloc((size_t)(n > 0 ? n : 1), sizeof *boxes);
  if (!ba || !boxes) {
    free(ba), free(boxes);
    BF_ERROR(BF_ERROR_MEMORY, "out of memory for a BoxArray of %lld boxes", (long long)n);
  }
  bf_object_init(&ba->obj, boxarray_free);
  ba->dim = dim;
  ba->type = 0;
  ba->n = n;
  ba->capacity = n; /* std::vector<Box>(n) */
  ba->boxes = boxes;
  for (int64_t i = 0; i < n; ++i)
    ba->boxes[i].dim = dim;
  *out = ba;
  return BF_SUCCESS;
}

int bf_boxarray_create(int dim, bf_boxarray **ba) { return bf_boxarray_alloc(dim, 0, ba); }

int bf_boxarray_create_typed(int dim, unsigned type, bf_boxarray **out) {
  BF_CHECK_DIM(dim);
  BF_CHECK(bf_indextype_ok(dim, type), BF_ERROR_VALUE, "index type 0x%x has bits beyond dimension %d", type, dim);
  bf_boxarray *ba = NULL;
  BF_CALL(bf_boxarray_alloc(dim, 0, &ba));
  ba->type = type;
  *out = ba;
  return BF_SUCCESS;
}

int bf_boxarray_create_from_boxes(int dim, int64_t n, const bf_box *boxes, bf_boxarray **out) {
  BF_CHECK_DIM(dim);
  BF_CHECK(n >= 0, BF_ERROR_VALUE, "negative number of boxes %lld", (long long)n);
  for (int64_t i = 0; i < n; ++i) {
    BF_CHECK(boxes[i].dim == dim, BF_ERROR_TYPE, "box %lld has dimension %d, the BoxArray %d", (long long)i,
             boxes[i].dim, dim);
    BF_CHECK(boxes[i].type == boxes[0].type, BF_ERROR_TYPE,
             "all boxes of a BoxArray must have one index type (box %lld differs from box 0)", (long long)i);
  }
  bf_boxarray *ba = NULL;
  BF_CALL(bf_boxarray_alloc(dim, n, &ba));
  if (n > 0) {
    memcpy(ba->boxes, boxes, (size_t)n * sizeof *boxes);
    ba->type = boxes[0].type;
  }
  *out = ba;
  return BF_SUCCESS;
}

int bf_boxarray_create_box(const bf_box *box, bf_boxarray **ba) {
  return bf_boxarray_create_from_boxes(box->dim, 1, box, ba);
}

int bf_boxarray_copy(const bf_boxarray *src, bf_boxarray **out) {
  bf_boxarray *ba = NULL;
  BF_CALL(bf_boxarray_alloc(src->dim, src->n, &ba));
  if (src->n > 0) memcpy(ba->boxes, src->boxes, (size_t)src->n * sizeof *src->boxes);
  ba->type = src->type;
  ba->pending_coarse = src->pending_coarse;
  *out = ba;
  return BF_SUCCESS;
}

bf_boxarray *bf_boxarray_retain(bf_boxarray *ba) {
  bf_object_retain(&ba->obj);
  return ba;
}

void bf_boxarray_destroy(bf_boxarray **ba) {
  if (!ba || !*ba) return;
  bf_object_release(&(*ba)->obj);
  *ba = NULL;
}

long bf_boxarray_refcount(const bf_boxarray *ba) { return bf_object_refcount(&ba->obj); }

int bf_boxarray_make_unique(bf_boxarray **ba) {
  if (bf_boxarray_refcount(*ba) <= 1) return BF_SUCCESS;
  bf_boxarray *copy = NULL;
  BF_CALL(bf_boxarray_copy(*ba, &copy));
  bf_boxarray_destroy(ba);
  *ba = copy;
  return BF_SUCCESS;
}

void bf_boxarray_invalidate(bf_boxarray *ba) {
  struct bf_boxarray_hash *h = __atomic_exchange_n(&ba->hash, NULL, __ATOMIC_ACQ_REL);
  bf_boxarray_hash_free(h);
}

int bf_boxarray_install(bf_boxarray **ba, bf_box *boxes, int64_t n, unsigned type, int64_t capacity) {
  bf_boxarray *cur = *ba;
  if (bf_boxarray_refcount(cur) <= 1) {
    bf_boxarray_invalidate(cur);
    free(cur->boxes);
    cur->boxes = boxes;
    if (capacity == BF_BOXARRAY_CAP_UNIQUIFY) capacity = cur->capacity;
    cur->n = n;
    cur->capacity = capacity < n ? n : capacity;
    cur->type = type;
    return BF_SUCCESS;
  }
  bf_boxarray *fresh = calloc(1, sizeof *fresh);
  if (!fresh) {
    free(boxes);
    BF_ERROR(BF_ERROR_MEMORY, "out of memory for a copy of a BoxArray");
  }
  bf_object_init(&fresh->obj, boxarray_free);
  fresh->dim = cur->dim;
  fresh->type = type;
  fresh->pending_coarse = cur->pending_coarse;
  if (capacity == BF_BOXARRAY_CAP_UNIQUIFY) capacity = n; /* the copy uniqify makes */
  fresh->n = n;
  fresh->capacity = capacity < n ? n : capacity;
  fresh->boxes = boxes;
  bf_boxarray_destroy(ba);
  *ba = fresh;
  return BF_SUCCESS;
}

int bf_boxarray_uniqify(bf_boxarray **ba) {
  if ((*ba)->pending_coarse == 0u) return BF_SUCCESS;
  BF_CALL(bf_boxarray_make_unique(ba));
  (*ba)->pending_coarse = 0u;
  return BF_SUCCESS;
}

int bf_boxarray_dim(const bf_boxarray *ba) { return ba->dim; }

int64_t bf_boxarray_size(const bf_boxarray *ba) { return ba->n; }

int64_t bf_boxarray_capacity(const bf_boxarray *ba) { return ba->capacity; }

unsigned bf_boxarray_ix_type(const bf_boxarray *ba) { return ba->type; }

int bf_boxarray_get(const bf_boxarray *ba, int64_t i, bf_box *box) {
  BF_CHECK(i >= 0 && i < ba->n, BF_ERROR_INDEX, "box index %lld out of range for a BoxArray of %lld boxes",
           (long long)i, (long long)ba->n);
  *box = ba->boxes[i];
  return BF_SUCCESS;
}

const bf_box *bf_boxarray_data(const bf_boxarray *ba) { return ba->boxes; }

int bf_boxarray_numpts(const bf_boxarray *ba, int64_t *npts) {
  int64_t total = 0;
  for (int64_t i = 0; i < ba->n; ++i) {
    int64_t np;
    BF_CALL(bf_box_numpts(&ba->boxes[i], &np));
    BF_CHECK(!__builtin_add_overflow(total, np, &total), BF_ERROR_OVERFLOW,
             "number of points of the BoxArray overflows a 64-bit integer");
  }
  *npts = total;
  return BF_SUCCESS;
}

double bf_boxarray_d_numpts(const bf_boxarray *ba) {
  double total = 0.0;
  for (int64_t i = 0; i < ba->n; ++i)
    total += bf_box_d_numpts(&ba->boxes[i]);
  return total;
}

void bf_boxarray_minimal_box(const bf_boxarray *ba, bf_box *out) {
  /* AMReX's BoxArray::minimalBox: Box::minBox over every box, empty ones
   * included; with no box, Box() coarsened by the pending ratio (1 -> 0 where
   * it is > 1) and seen in the array's type. */
  bf_box r = bf_boxarray_empty_box(ba->dim, ba->type);
  if (ba->n > 0) r = ba->boxes[0];
  for (int d = 0; d < ba->dim && ba->n == 0; ++d)
    if ((ba->pending_coarse >> d) & 1u) r.lo[d] = 0;
  for (int64_t i = 1; i < ba->n; ++i)
    bf_box_minimal(&r, &ba->boxes[i], &r);
  *out = r;
}

bool bf_boxarray_equal(const bf_boxarray *a, const bf_boxarray *b) {
  if (a == b) return true;
  if (a->dim != b->dim || a->type != b->type || a->n != b->n) return false;
  for (int64_t i = 0; i < a->n; ++i)
    if (!bf_box_equal(&a->boxes[i], &b->boxes[i])) return false;
  return true;
}

bool bf_boxarray_cell_equal(const bf_boxarray *a, const bf_boxarray *b) {
  if (a->dim != b->dim || a->n != b->n) return false;
  for (int64_t i = 0; i < a->n; ++i) {
    bf_box p = a->boxes[i], q = b->boxes[i];
    /* enclosed cells: hi - 1 in nodal directions (64-bit, cannot overflow) */
    for (int d = 0; d < a->dim; ++d) {
      int64_t ph = (int64_t)p.hi[d] - ((p.type >> d) & 1u), qh = (int64_t)q.hi[d] - ((q.type >> d) & 1u);
      if (p.lo[d] != q.lo[d] || ph != qh) return false;
    }
  }
  return true;
}

/* ---- simple mutators -------------------------------------------------------------- */

int bf_boxarray_define(bf_boxarray **ba, const bf_box *box) {
  BF_CHECK(box->dim == (*ba)->dim, BF_ERROR_TYPE, "box has dimension %d, the BoxArray %d", box->dim, (*ba)->dim);
  bf_box *boxes = malloc(sizeof *boxes);
  BF_CHECK(boxes != NULL, BF_ERROR_MEMORY, "out of memory");
  boxes[0] = *box;
  BF_CALL(bf_boxarray_install(ba, boxes, 1, box->type, 1)); /* AMReX: clear(), then one push_back */
  (*ba)->pending_coarse = 0u;
  return BF_SUCCESS;
}

int bf_boxarray_clear(bf_boxarray **ba) {
  bf_box *boxes = malloc(sizeof *boxes);
  BF_CHECK(boxes != NULL, BF_ERROR_MEMORY, "out of memory");
  BF_CALL(bf_boxarray_install(ba, boxes, 0, 0u, 0)); /* AMReX's clear(): a default BoxArray, cell type */
  (*ba)->pending_coarse = 0u;
  return BF_SUCCESS;
}

int bf_boxarray_resize(bf_boxarray **ba, int64_t n) {
  BF_CHECK(n >= 0, BF_ERROR_VALUE, "BoxArray size must be >= 0, got %lld", (long long)n);
  BF_CHECK((uint64_t)n <= SIZE_MAX / sizeof(bf_box), BF_ERROR_MEMORY, "a BoxArray of %lld boxes does not fit in memory",
           (long long)n);
  const bf_boxarray *cur = *ba;
  bf_box *boxes = malloc((size_t)(n > 0 ? n : 1) * sizeof *boxes);
  BF_CHECK(boxes != NULL, BF_ERROR_MEMORY, "out of memory for a BoxArray of %lld boxes", (long long)n);
  int64_t keep = n < cur->n ? n : cur->n;
  if (keep > 0) memcpy(boxes, cur->boxes, (size_t)keep * sizeof *boxes);
  bf_box empty = bf_boxarray_empty_box(cur->dim, cur->type);
  for (int64_t i = keep; i < n; ++i)
    boxes[i] = empty;
  /* capacity: uniqify() (a copy when shared), then std::vector::resize, which
   * grows to max(2 * size, n) when n exceeds the capacity (libstdc++) */
  int64_t cap = bf_boxarray_refcount(cur) <= 1 ? cur->capacity : cur->n;
  if (n > cap) cap = n > 2 * cur->n ? n : 2 * cur->n;
  BF_CALL(bf_boxarray_install(ba, boxes, n, cur->type, cap));
  (*ba)->pending_coarse = 0u; /* uniqify() */
  return BF_SUCCESS;
}
