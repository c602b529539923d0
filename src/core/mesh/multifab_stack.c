/* MultiFab: all local fabs as one array with a leading box axis
 * (bf_multifab_stack, see include/boxfab/multifab.h). */
#include <stdio.h>

#include "mesh/multifab_impl.h"

/* "32x32x16": the lengths of b's dim directions. */
static void shape_text(const bf_box *b, char *buf, size_t size) {
  int n = 0;
  buf[0] = '\0';
  for (int d = 0; d < b->dim && n >= 0 && (size_t)n < size; ++d)
    n += snprintf(buf + n, size - (size_t)n, d ? "x%lld" : "%lld", (long long)bf_box_length(b, d));
}

static bool same_shape(const bf_box *a, const bf_box *b) {
  for (int d = 0; d < a->dim; ++d)
    if (bf_box_length(a, d) != bf_box_length(b, d)) return false;
  return true;
}

/* The first box of `boxes` (n of them) whose shape differs from box `ref`'s, or -1. */
static int64_t first_other_shape(const bf_box *boxes, int64_t n, const bf_box *ref) {
  for (int64_t i = 0; i < n; ++i)
    if (!same_shape(&boxes[i], ref)) return i;
  return -1;
}

#define HOW_TO " (a layout that allows it: boxes of one size, e.g. a domain whose sides are multiples of max_grid_size)"

int bf_multifab_stack(const bf_multifab *mf, bf_mf_stack *out) {
  BF_CALL(bf_multifab_check(mf));
  BF_CHECK(out != NULL, BF_ERROR_VALUE, "NULL result pointer");
  BF_CHECK(mf->buffer != NULL, BF_ERROR_RUNTIME,
           "one array over all boxes: the MultiFab holds no data (created with alloc=False, or cleared)");
  const bf_box *boxes = bf_boxarray_data(mf->ba);
  const int64_t nba = bf_boxarray_size(mf->ba);
  char a[96], b[96];
  bf_box ref;
  if (mf->nlocal > 0) {
    ref = *mf_validbox(mf, 0);
    for (int64_t li = 1; li < mf->nlocal; ++li) {
      const bf_box *vb = mf_validbox(mf, li);
      if (same_shape(vb, &ref)) continue;
      shape_text(vb, a, sizeof a);
      shape_text(&ref, b, sizeof b);
      BF_ERROR(BF_ERROR_VALUE,
               "one array over all boxes needs boxes of one shape: box %lld (local %lld) is %s, box %lld (local 0) "
               "is %s" HOW_TO,
               (long long)mf->lidx[li], (long long)li, a, (long long)mf->lidx[0], b);
    }
  } else {
    /* no local fab: the shape of the (empty) array is the one every box shares */
    BF_CHECK(nba > 0, BF_ERROR_VALUE,
             "one array over all boxes: the MultiFab has no boxes, so the shape of a box is unknown");
    ref = boxes[0];
    int64_t i = first_other_shape(boxes, nba, &ref);
    if (i >= 0) {
      shape_text(&boxes[i], a, sizeof a);
      shape_text(&ref, b, sizeof b);
      BF_ERROR(BF_ERROR_VALUE,
               "one array over all boxes: this rank holds no boxes, and the boxes of the BoxArray differ in shape "
               "(box %lld is %s, box 0 is %s), so the shape of the empty array is unknown" HOW_TO,
               (long long)i, a, b);
    }
  }
  bf_box fb = ref;
  BF_CALL(bf_box_grow(&fb, mf->ngrow.v));
  /* a rank without fabs has allocated none of this shape: the size of one fab may not fit (checked
   * here, as bf_multifab_create checks it for the fabs it allocates) */
  size_t fab_bytes = 0;
  BF_CALL(bf_fab_bytes_of(&fb, mf->ncomp, mf->dtype, &fab_bytes));
  const int64_t nx = bf_box_length(&fb, 0), ny = mf->dim > 1 ? bf_box_length(&fb, 1) : 1,
                nz = mf->dim > 2 ? bf_box_length(&fb, 2) : 1;
  const size_t itemsize = bf_dtype_size(mf->dtype);
  const int64_t fab_elems = (int64_t)(fab_bytes / itemsize);
  /* the distance between consecutive fabs: one value for all (the packing makes it so; checked) */
  size_t step = (size_t)fab_elems * itemsize;
  if (mf->nlocal > 1) {
    step = mf->offsets[1] - mf->offsets[0];
    for (int64_t li = 2; li < mf->nlocal; ++li)
      BF_CHECK(mf->offsets[li] - mf->offsets[li - 1] == step, BF_ERROR_VALUE,
               "one array over all boxes: the data of local fabs %lld and %lld are %zu bytes apart, those of local "
               "fabs 0 and 1 %zu: not equally spaced",
               (long long)li - 1, (long long)li, mf->offsets[li] - mf->offsets[li - 1], step);
  }
  BF_CHECK(step % itemsize == 0 && step >= (size_t)fab_elems * itemsize, BF_ERROR_VALUE,
           "one array over all boxes: the fabs are %zu bytes apart, which is no whole number of %zu-byte elements "
           "of one fab of %lld elements",
           step, itemsize, (long long)fab_elems);
  out->data = mf->nlocal > 0 ? (char *)bf_buffer_data(mf->buffer) + mf->offsets[0] : NULL;
  out->nbox = mf->nlocal;
  out->shape[0] = nx, out->shape[1] = ny, out->shape[2] = nz, out->shape[3] = mf->ncomp;
  out->stride[0] = 1, out->stride[1] = nx, out->stride[2] = nx * ny, out->stride[3] = nx * ny * nz;
  out->box_stride = (int64_t)(step / itemsize);
  out->box_bytes = step;
  return BF_SUCCESS;
}
