/* bf_multifab_stack: the local fabs of a MultiFab as one array with a leading
 * box axis.  Runs on one process (ctest's plain run) and under mpirun -n 2 / 4
 * (test_multifab_stack_mpi2, _mpi4 where MPI was found): there the boxes of
 * some layouts all live on rank 0, so that the other ranks hold none. */
#include <stdint.h>
#include <string.h>

#include "mftest.h"

static int nprocs, me;

static bf_multifab *make_on(bf_boxarray *ba, const int *pmap, int ncomp, int ng, int dtype, bool alloc) {
  bf_distmap *dm = NULL;
  BFT_OK(bf_distmap_create_from_pmap(bf_boxarray_size(ba), pmap, &dm));
  bf_multifab *mf = NULL;
  int dim = bf_boxarray_dim(ba);
  BFT_OK(bf_multifab_create(ba, dm, ncomp, iv3(dim, ng, ng, ng), dtype, NULL, alloc, &mf));
  bf_distmap_destroy(&dm);
  return mf;
}

/* Boxes dealt round-robin over the ranks. */
static bf_multifab *make_rr(bf_boxarray *ba, int ncomp, int ng, int dtype) {
  int64_t n = bf_boxarray_size(ba);
  int *p = malloc((size_t)(n > 0 ? n : 1) * sizeof *p);
  for (int64_t i = 0; i < n; ++i) p[i] = (int)(i % nprocs);
  bf_multifab *mf = make_on(ba, p, ncomp, ng, dtype, true);
  free(p);
  return mf;
}

/* Every local fab is where the stack says, with the stack's shape and strides. */
static void check_stack_matches_fabs(const bf_multifab *mf, const bf_mf_stack *s) {
  const int dim = bf_multifab_dim(mf);
  const size_t is = bf_dtype_size(bf_multifab_dtype(mf));
  BFT_CHECK(s->nbox == bf_multifab_nlocal(mf));
  BFT_CHECK(s->box_bytes == (size_t)s->box_stride * is);
  BFT_CHECK(s->box_bytes % 64 == 0 || s->nbox <= 1);
  BFT_CHECK(s->shape[3] == bf_multifab_ncomp(mf));
  BFT_CHECK(s->stride[0] == 1 && s->stride[1] == s->shape[0] && s->stride[2] == s->shape[0] * s->shape[1] &&
            s->stride[3] == s->shape[0] * s->shape[1] * s->shape[2]);
  BFT_CHECK(s->box_stride >= s->stride[3] * s->shape[3]);
  for (int d = dim; d < 3; ++d) BFT_CHECK(s->shape[d] == 1);
  if (s->nbox == 0) BFT_CHECK(s->data == NULL);
  for (int64_t li = 0; li < s->nbox; ++li) {
    bf_mf_fab f;
    BFT_OK(bf_multifab_local_fab(mf, li, &f));
    BFT_CHECK(f.data == (char *)s->data + (size_t)li * s->box_bytes);
    for (int d = 0; d < dim; ++d) BFT_CHECK(bf_box_length(&f.fabbox, d) == s->shape[d]);
    BFT_CHECK(f.stride[0] == s->stride[1] && f.stride[1] == s->stride[2] && f.stride[2] == s->stride[3]);
  }
}

static void test_uniform_layouts(void) {
  for (int dim = 1; dim <= 3; ++dim)
    for (int t = 0; t < 2; ++t)
      for (int ng = 0; ng <= 2; ++ng) {
        const int dtype = t ? BF_DTYPE_INT : BF_DTYPE_DOUBLE;
        bf_boxarray *ba = chop_domain(dim, 24, 8, 0);
        bf_multifab *mf = make_rr(ba, 3, ng, dtype);
        bf_mf_stack s;
        memset(&s, 0xab, sizeof s);
        BFT_OK(bf_multifab_stack(mf, &s));
        check_stack_matches_fabs(mf, &s);
        BFT_CHECK(s.shape[0] == 8 + 2 * ng);
        /* one write through the stack, read through the fab view of the same cell */
        if (s.nbox > 0) {
          const int64_t b = s.nbox - 1, e = b * s.box_stride + 2 * s.stride[3] + s.stride[dim - 1];
          int p[3] = {0, 0, 0};
          bf_mf_fab f;
          BFT_OK(bf_multifab_local_fab(mf, b, &f));
          for (int d = 0; d < dim; ++d) p[d] = f.fabbox.lo[d] + (d == dim - 1);
          if (dtype == BF_DTYPE_DOUBLE) ((double *)s.data)[e] = 42.5;
          else ((int *)s.data)[e] = 42;
          BFT_CHECK(mf_get(mf, b, p, 2) == (dtype == BF_DTYPE_DOUBLE ? 42.5 : 42.0));
        }
        bf_multifab_destroy(&mf);
        bf_boxarray_destroy(&ba);
      }
}

static void test_padding_between_fabs(void) {
  /* 1D boxes of 5 cells, one double component: 40 bytes, each fab on a
   * 64-byte boundary: the fabs are 8 elements apart */
  bf_box boxes[3] = {mkbox(1, 0, 0, 0, 4, 0, 0, 0), mkbox(1, 5, 0, 0, 9, 0, 0, 0), mkbox(1, 10, 0, 0, 14, 0, 0, 0)};
  bf_boxarray *ba = NULL;
  BFT_OK(bf_boxarray_create_from_boxes(1, 3, boxes, &ba));
  int p[3] = {0, 0, 0};
  bf_multifab *mf = make_on(ba, p, 1, 0, BF_DTYPE_DOUBLE, true);
  bf_mf_stack s;
  BFT_OK(bf_multifab_stack(mf, &s));
  if (me == 0) {
    BFT_CHECK(s.nbox == 3 && s.shape[0] == 5 && s.box_stride == 8 && s.box_bytes == 64);
  } else { /* all boxes on rank 0: none here */
    BFT_CHECK(s.nbox == 0 && s.data == NULL && s.shape[0] == 5 && s.box_stride == 5);
  }
  check_stack_matches_fabs(mf, &s);
  bf_multifab_destroy(&mf);
  /* one local fab: the box stride is the fab's own size */
  bf_boxarray *one = NULL;
  BFT_OK(bf_boxarray_create_from_boxes(1, 1, boxes, &one));
  mf = make_on(one, p, 2, 1, BF_DTYPE_INT, true);
  BFT_OK(bf_multifab_stack(mf, &s));
  BFT_CHECK(s.nbox == (me == 0) && s.shape[0] == 7 && s.shape[3] == 2 && s.box_stride == 14);
  check_stack_matches_fabs(mf, &s);
  bf_multifab_destroy(&mf);
  bf_boxarray_destroy(&one);
  bf_boxarray_destroy(&ba);
}

static void test_nodal_boxes(void) {
  for (unsigned type = 1; type < 8; ++type) {
    bf_boxarray *ba = chop_domain(3, 16, 8, type);
    bf_multifab *mf = make_rr(ba, 1, 1, BF_DTYPE_DOUBLE);
    bf_mf_stack s;
    BFT_OK(bf_multifab_stack(mf, &s));
    check_stack_matches_fabs(mf, &s);
    for (int d = 0; d < 3; ++d) BFT_CHECK(s.shape[d] == 8 + 2 + (int)(type >> d & 1u));
    bf_multifab_destroy(&mf);
    bf_boxarray_destroy(&ba);
  }
}

static void test_boxes_of_other_shapes_refused(void) {
  /* 24 cells cut at 16: boxes of 16 and 8 */
  bf_box boxes[2] = {mkbox(3, 0, 0, 0, 15, 7, 7, 0), mkbox(3, 16, 0, 0, 23, 7, 7, 0)};
  bf_boxarray *ba = NULL;
  BFT_OK(bf_boxarray_create_from_boxes(3, 2, boxes, &ba));
  int p[2] = {0, 0};
  bf_multifab *mf = make_on(ba, p, 1, 1, BF_DTYPE_DOUBLE, true);
  bf_mf_stack s;
  bf_error_clear();
  BFT_CHECK(bf_multifab_stack(mf, &s) == BF_ERROR_VALUE);
  const char *msg = bf_error_message();
  if (me == 0) {
    BFT_CHECK(strstr(msg, "box 1 (local 1) is 8x8x8, box 0 (local 0) is 16x8x8") != NULL);
  } else {
    BFT_CHECK(strstr(msg, "this rank holds no boxes") != NULL);
    BFT_CHECK(strstr(msg, "box 1 is 8x8x8, box 0 is 16x8x8") != NULL);
  }
  BFT_CHECK(strstr(msg, "max_grid_size") != NULL); /* says how to get a layout that allows it */
  bf_error_clear();
  bf_multifab_destroy(&mf);
  /* the boxes are the same on every rank that holds one, but not in the BoxArray: each rank with
   * local fabs of one shape gets its stack (boxes of shape 16 on rank 0, 8 on rank 1) */
  if (nprocs > 1) {
    int q[2] = {0, 1};
    mf = make_on(ba, q, 1, 0, BF_DTYPE_DOUBLE, true);
    if (me < 2) {
      BFT_OK(bf_multifab_stack(mf, &s));
      BFT_CHECK(s.nbox == 1 && s.shape[0] == (me == 1 ? 8 : 16));
    } else { /* no local fab and no one shape in the BoxArray */
      BFT_FAILS(bf_multifab_stack(mf, &s), BF_ERROR_VALUE);
    }
    bf_multifab_destroy(&mf);
  }
  bf_boxarray_destroy(&ba);
}

static void test_no_data_refused(void) {
  bf_boxarray *ba = chop_domain(2, 16, 8, 0);
  int64_t n = bf_boxarray_size(ba);
  int *p = calloc((size_t)n, sizeof *p);
  bf_multifab *mf = make_on(ba, p, 1, 1, BF_DTYPE_DOUBLE, false);
  bf_mf_stack s;
  BFT_FAILS(bf_multifab_stack(mf, &s), BF_ERROR_RUNTIME); /* alloc = false */
  bf_multifab_destroy(&mf);
  mf = make_on(ba, p, 1, 1, BF_DTYPE_DOUBLE, true);
  BFT_OK(bf_multifab_stack(mf, &s));
  BFT_OK(bf_multifab_clear(mf));
  bf_error_clear();
  BFT_CHECK(bf_multifab_stack(mf, &s) == BF_ERROR_RUNTIME);
  BFT_CHECK(strstr(bf_error_message(), "holds no data") != NULL);
  bf_error_clear();
  BFT_FAILS(bf_multifab_stack(mf, NULL), BF_ERROR_VALUE);
  BFT_FAILS(bf_multifab_stack(NULL, &s), BF_ERROR_VALUE);
  bf_multifab_destroy(&mf);
  free(p);
  bf_boxarray_destroy(&ba);
}

static void test_empty_boxarray_refused(void) {
  bf_boxarray *ba = NULL;
  BFT_OK(bf_boxarray_create(3, &ba));
  int none[1] = {0};
  bf_multifab *mf = make_on(ba, none, 1, 0, BF_DTYPE_DOUBLE, true);
  bf_mf_stack s;
  bf_error_clear();
  BFT_CHECK(bf_multifab_stack(mf, &s) == BF_ERROR_VALUE);
  BFT_CHECK(strstr(bf_error_message(), "has no boxes") != NULL);
  bf_error_clear();
  bf_multifab_destroy(&mf);
  bf_boxarray_destroy(&ba);
}

/* Every rank but 0 without fabs: an empty stack of the shape all boxes share. */
static void test_rank_without_fabs(void) {
  bf_boxarray *ba = chop_domain(3, 16, 8, 0);
  int64_t n = bf_boxarray_size(ba);
  int *p = calloc((size_t)n, sizeof *p);
  bf_multifab *mf = make_on(ba, p, 2, 1, BF_DTYPE_DOUBLE, true);
  bf_mf_stack s;
  BFT_OK(bf_multifab_stack(mf, &s));
  BFT_CHECK(s.nbox == (me == 0 ? n : 0));
  BFT_CHECK(s.shape[0] == 10 && s.shape[1] == 10 && s.shape[2] == 10 && s.shape[3] == 2);
  check_stack_matches_fabs(mf, &s);
  bf_multifab_destroy(&mf);
  free(p);
  bf_boxarray_destroy(&ba);
}

/* Ranks without fabs take the shape of the BoxArray's boxes without allocating them: a box whose fab
 * would need more than 2^63 bytes (which no rank can hold: rank 0, its owner, fails to make the
 * MultiFab) is an overflow error there too, not a wrapped-around element count (signed overflow). */
static void test_huge_boxes_elsewhere(void) {
  if (nprocs < 2) return;
  const int n = 1 << 21; /* (2^21)^3 = 2^63 points */
  bf_box box = mkbox(3, 0, 0, 0, n - 1, n - 1, n - 1, 0);
  bf_boxarray *ba = NULL;
  BFT_OK(bf_boxarray_create_from_boxes(3, 1, &box, &ba));
  int p[1] = {0};
  bf_distmap *dm = NULL;
  BFT_OK(bf_distmap_create_from_pmap(1, p, &dm));
  bf_multifab *mf = NULL;
  int err = bf_multifab_create(ba, dm, 1, iv3(3, 0, 0, 0), BF_DTYPE_DOUBLE, NULL, true, &mf);
  if (me == 0) {
    BFT_CHECK(err == BF_ERROR_OVERFLOW);
  } else {
    BFT_OK(err);
    bf_mf_stack s;
    bf_error_clear();
    BFT_CHECK(bf_multifab_stack(mf, &s) == BF_ERROR_OVERFLOW);
    BFT_CHECK(strstr(bf_error_message(), "2^63") != NULL);
    bf_error_clear();
  }
  bf_error_clear();
  bf_multifab_destroy(&mf);
  bf_distmap_destroy(&dm);
  bf_boxarray_destroy(&ba);
}

int main(void) {
  bft_ranks_start(&nprocs, &me);
  BFT_RUN(test_uniform_layouts);
  BFT_RUN(test_padding_between_fabs);
  BFT_RUN(test_nodal_boxes);
  BFT_RUN(test_boxes_of_other_shapes_refused);
  BFT_RUN(test_no_data_refused);
  BFT_RUN(test_empty_boxarray_refused);
  BFT_RUN(test_rank_without_fabs);
  BFT_RUN(test_huge_boxes_elsewhere);
  /* after finalize: the runtime check, as every MultiFab operation */
  bf_boxarray *ba = chop_domain(1, 8, 4, 0);
  bf_multifab *mf = make_rr(ba, 1, 0, BF_DTYPE_DOUBLE);
  bft_ranks_agree();
  bf_runtime_finalize();
  bf_mf_stack s;
  BFT_FAILS(bf_multifab_stack(mf, &s), BF_ERROR_RUNTIME);
  bf_multifab_destroy(&mf);
  bf_boxarray_destroy(&ba);
  return bft_ranks_report(me);
}
