/* MFIter: tiles partition boxes exactly; nodal and grown tiles. */
#include "mftest.h"

/* Count how often each point of each fab box is covered by the given tile kind. */
static int check_partition(bf_multifab *mf, bool tiling, const bf_intvect *ts, int kind) {
  bf_mfiter *it = NULL;
  BFT_OK(bf_mfiter_create(mf, tiling, ts, &it));
  int64_t nl = bf_multifab_nlocal(mf);
  int **cnt = calloc((size_t)nl, sizeof *cnt);
  bf_box *ref = calloc((size_t)nl, sizeof *ref);
  int dim = bf_multifab_dim(mf);
  for (int64_t li = 0; li < nl; ++li) {
    bf_mf_fab f;
    bf_multifab_local_fab(mf, li, &f);
    ref[li] = kind == 1 ? f.fabbox : f.validbox;
    if (kind == 2) bf_box_surrounding_nodes(&ref[li], -1);
    int64_t n;
    bf_box_numpts(&ref[li], &n);
    cnt[li] = calloc((size_t)n, sizeof(int));
  }
  int bad = 0;
  int64_t count = 0;
  for (; bf_mfiter_is_valid(it); bf_mfiter_next(it), ++count) {
    int64_t li = bf_mfiter_local_index(it);
    bf_box tb;
    if (kind == 0) BFT_OK(bf_mfiter_tilebox(it, &tb));
    else if (kind == 1) BFT_OK(bf_mfiter_growntilebox(it, NULL, &tb));
    else BFT_OK(bf_mfiter_nodaltilebox(it, -1, &tb));
    bad += bf_mfiter_index(it) != li; /* one rank: local = global order */
    bad += !bf_box_contains_box(&ref[li], &tb);
    bf_box r = ref[li];
    int64_t nx = r.hi[0] - r.lo[0] + 1, ny = r.hi[1] - r.lo[1] + 1;
    FOR_BOX(tb, p) if (in_box(&r, p)) cnt[li][((int64_t)(p[2] - r.lo[2]) * ny + (p[1] - r.lo[1])) * nx + p[0] - r.lo[0]]++;
    (void)dim;
  }
  bad += count != bf_mfiter_length(it);
  for (int64_t li = 0; li < nl; ++li) {
    int64_t n;
    bf_box_numpts(&ref[li], &n);
    for (int64_t i = 0; i < n; ++i) bad += cnt[li][i] != 1;
    free(cnt[li]);
  }
  free(cnt), free(ref);
  bf_box b;
  BFT_FAILS(bf_mfiter_tilebox(it, &b), BF_ERROR_INDEX); /* loop ended */
  BFT_CHECK(bf_mfiter_index(it) == -1);
  bf_mfiter_destroy(&it);
  return bad;
}

static void test_tiles_partition(void) {
  for (int dim = 1; dim <= 3; ++dim)
    for (unsigned type = 0; type < (1u << dim); type = type * 2 + 1) {
      bf_box boxes[3] = {mkbox(dim, 0, 0, 0, 20, 17, 9, 0), mkbox(dim, 21, 0, 0, 23, 5, 3, 0),
                         mkbox(dim, -7, -9, -3, -1, -1, -1, 0)};
      for (int i = 0; i < 3; ++i) bf_box_convert(&boxes[i], type);
      bf_boxarray *ba = NULL;
      bf_boxarray_create_from_boxes(dim, 3, boxes, &ba);
      bf_multifab *mf = make_mf(ba, 1, 2, BF_DTYPE_DOUBLE);
      bf_intvect ts = iv3(dim, 4, 3, 2);
      for (int kind = 0; kind < 3; ++kind) {
        BFT_CHECK(check_partition(mf, false, NULL, kind) == 0);
        BFT_CHECK(check_partition(mf, true, NULL, kind) == 0);
        BFT_CHECK(check_partition(mf, true, &ts, kind) == 0);
      }
      bf_mfiter *it;
      BFT_OK(bf_mfiter_create(mf, false, NULL, &it));
      BFT_CHECK(bf_mfiter_length(it) == 3);
      bf_mfiter_destroy(&it);
      BFT_OK(bf_mfiter_create(mf, true, NULL, &it));
      /* default (1024000, 8, 8): box 0 (21 x 18 x 10 cells) -> 1 x 2 x 1 tiles in 3D */
      int64_t expect = dim == 1 ? 3 : dim == 2 ? 2 + 1 + 1 : 2 + 1 + 1;
      BFT_CHECK(bf_mfiter_length(it) == expect);
      bf_mfiter_destroy(&it);
      BFT_OK(bf_mfiter_create(mf, true, &ts, &it));
      /* 21/4 = 5 pieces in x */
      BFT_CHECK(bf_mfiter_length(it) >= 5);
      bf_mfiter_destroy(&it);
      bf_multifab_destroy(&mf);
      bf_boxarray_destroy(&ba);
    }
}

static void test_tile_boxes(void) {
  bf_box bx = mkbox(3, 0, 0, 0, 15, 15, 15, 0);
  bf_boxarray *ba = NULL;
  bf_boxarray_create_from_boxes(3, 1, &bx, &ba);
  bf_multifab *mf = make_mf(ba, 1, 2, BF_DTYPE_DOUBLE);
  bf_intvect ts = iv3(3, 8, 8, 8);
  bf_mfiter *it;
  BFT_OK(bf_mfiter_create(mf, true, &ts, &it));
  BFT_CHECK(bf_mfiter_length(it) == 8);
  bf_box t, g, n, gn, v, f;
  BFT_OK(bf_mfiter_tilebox(it, &t));
  BFT_CHECK(t.lo[0] == 0 && t.hi[0] == 7 && t.hi[1] == 7 && t.hi[2] == 7);
  BFT_OK(bf_mfiter_growntilebox(it, NULL, &g)); /* grown only on the outer sides */
  BFT_CHECK(g.lo[0] == -2 && g.hi[0] == 7 && g.lo[2] == -2);
  bf_intvect one = iv3(3, 1, 1, 1);
  BFT_OK(bf_mfiter_growntilebox(it, &one, &g));
  BFT_CHECK(g.lo[0] == -1 && g.hi[0] == 7);
  BFT_OK(bf_mfiter_nodaltilebox(it, 0, &n)); /* first tile: no extra node */
  BFT_CHECK(n.type == 1 && n.lo[0] == 0 && n.hi[0] == 7);
  bf_mfiter_next(it); /* second tile in x: the last one, takes the extra node */
  BFT_OK(bf_mfiter_nodaltilebox(it, 0, &n));
  BFT_CHECK(n.type == 1 && n.lo[0] == 8 && n.hi[0] == 16 && n.hi[1] == 7);
  BFT_OK(bf_mfiter_nodaltilebox(it, -1, &n));
  BFT_CHECK(n.type == 7 && n.hi[0] == 16 && n.hi[1] == 7);
  BFT_OK(bf_mfiter_grownnodaltilebox(it, 0, &one, &gn));
  BFT_CHECK(gn.type == 1 && gn.lo[0] == 8 && gn.hi[0] == 17 && gn.lo[1] == -1 && gn.hi[1] == 7);
  BFT_OK(bf_mfiter_validbox(it, &v));
  BFT_OK(bf_mfiter_fabbox(it, &f));
  BFT_CHECK(bf_box_equal(&v, &bx) && f.lo[0] == -2 && f.hi[2] == 17);
  BFT_CHECK(bf_mfiter_index(it) == 0 && bf_mfiter_position(it) == 1);
  BFT_FAILS(bf_mfiter_nodaltilebox(it, 3, &n), BF_ERROR_INDEX);
  BFT_FAILS(bf_mfiter_nodaltilebox(it, -7, &n), BF_ERROR_INDEX); /* only -1 means "all" */
  BFT_FAILS(bf_mfiter_grownnodaltilebox(it, -2, &one, &gn), BF_ERROR_INDEX);
  bf_intvect huge = iv3(3, 2147483647, 0, 0), neg = iv3(3, 0, 0, -2147483647 - 1);
  BFT_FAILS(bf_mfiter_growntilebox(it, &huge, &g), BF_ERROR_OVERFLOW); /* wrapped to a box near -2^31 */
  BFT_FAILS(bf_mfiter_grownnodaltilebox(it, 0, &huge, &g), BF_ERROR_OVERFLOW);
  BFT_FAILS(bf_mfiter_growntilebox(it, &neg, &g), BF_ERROR_OVERFLOW);
  bf_intvect bad2 = iv3(2, 1, 1, 0);
  BFT_FAILS(bf_mfiter_growntilebox(it, &bad2, &g), BF_ERROR_TYPE);
  bf_mfiter_rewind(it);
  BFT_CHECK(bf_mfiter_position(it) == 0 && bf_mfiter_is_valid(it));
  bf_mfiter_destroy(&it);
  bf_intvect zero = iv3(3, 0, 8, 8);
  BFT_FAILS(bf_mfiter_create(mf, true, &zero, &it), BF_ERROR_VALUE);
  bf_intvect ts2 = iv3(2, 8, 8, 0);
  BFT_FAILS(bf_mfiter_create(mf, true, &ts2, &it), BF_ERROR_TYPE);
  /* the iterator keeps the MultiFab alive */
  BFT_OK(bf_mfiter_create(mf, false, NULL, &it));
  bf_multifab_destroy(&mf);
  BFT_OK(bf_mfiter_fabbox(it, &f));
  BFT_CHECK(bf_multifab_ncomp(bf_mfiter_multifab(it)) == 1);
  bf_mfiter_destroy(&it);
  bf_intvect d3 = bf_mfiter_default_tilesize(3), d2 = bf_mfiter_default_tilesize(2);
  BFT_CHECK(d3.v[0] == 1024000 && d3.v[1] == 8 && d3.v[2] == 8 && d2.dim == 2 && d2.v[1] == 8 && d2.v[2] == 0);
  bf_boxarray_destroy(&ba);
}

int main(void) {
  uint64_t id;
  bf_runtime_initialize(0, NULL, &id);
  BFT_RUN(test_tiles_partition);
  BFT_RUN(test_tile_boxes);
  bf_runtime_finalize();
  return bft_report();
}
