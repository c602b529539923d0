/* BoxArray storage and reference counting (see include/boxfab/boxarray.h). */
#include <stdlib.h>
#include <string.h>

#include "boxarray_impl.h"

static void boxarray_free(bf_object *obj) {
  bf_boxarray *ba = (bf_boxarray *)obj;
  free(ba->boxes);
  free(ba);
}

int bf_boxarray_alloc(int dim, int64_t n, bf_boxarray **out) {
  BF_CHECK_DIM(dim);
  BF_CHECK(n >= 0, BF_ERROR_VALUE, "negative number of boxes %lld", (long long)n);
  bf_boxarray *ba = calloc(1, sizeof *ba);
  bf_box *boxes = calloc((size_t)(n > 0 ? n : 1), sizeof *boxes);
  if (!ba || !boxes) {
    free(ba), free(boxes);
    BF_ERROR(BF_ERROR_MEMORY, "out of memory for a BoxArray of %lld boxes", (long long)n);
  }
  bf_object_init(&ba->obj, boxarray_free);
  ba->dim = dim;
  ba->n = n;
  ba->capacity = n > 0 ? n : 1;
  ba->boxes = boxes;
  for (int64_t i = 0; i < n; ++i) ba->boxes[i].dim = dim;
  *out = ba;
  return BF_SUCCESS;
}

int bf_boxarray_create(int dim, bf_boxarray **ba) { return bf_boxarray_alloc(dim, 0, ba); }

int bf_boxarray_create_from_boxes(int dim, int64_t n, const bf_box *boxes, bf_boxarray **out) {
  BF_CHECK_DIM(dim);
  for (int64_t i = 0; i < n; ++i) {
    BF_CHECK(boxes[i].dim == dim, BF_ERROR_TYPE, "box %lld has dimension %d, the BoxArray %d", (long long)i,
             boxes[i].dim, dim);
    BF_CHECK(boxes[i].type == boxes[0].type, BF_ERROR_TYPE,
             "all boxes of a BoxArray must have one index type (box %lld differs from box 0)", (long long)i);
  }
  bf_boxarray *ba;
  BF_CALL(bf_boxarray_alloc(dim, n, &ba));
  if (n > 0) memcpy(ba->boxes, boxes, (size_t)n * sizeof *boxes);
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

int bf_boxarray_dim(const bf_boxarray *ba) { return ba->dim; }

int64_t bf_boxarray_size(const bf_boxarray *ba) { return ba->n; }

int bf_boxarray_get(const bf_boxarray *ba, int64_t i, bf_box *box) {
  BF_CHECK(i >= 0 && i < ba->n, BF_ERROR_INDEX, "box index %lld out of range for a BoxArray of %lld boxes",
           (long long)i, (long long)ba->n);
  *box = ba->boxes[i];
  return BF_SUCCESS;
}

const bf_box *bf_boxarray_data(const bf_boxarray *ba) { return ba->boxes; }
