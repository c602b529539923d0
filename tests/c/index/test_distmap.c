/* DistributionMapping: explicit maps, the balanced strategies (every box on a
 * valid rank, load bounds, SFC locality), errors and reference counting. */
#include <stdlib.h>

#include "bftest.h"

static uint64_t rng_state = 987654321;
static int rnd(int lo, int hi) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return lo + (int)((rng_state >> 33) % (uint64_t)(hi - lo + 1));
}

static bf_box mkbox(int dim, const int *lo, const int *hi) {
  bf_box b;
  bf_box_define(dim, lo, hi, 0, &b);
  return b;
}

static void test_from_pmap(void) {
  int pmap[4] = {0, 3, 1, 3};
  bf_distmap *dm = NULL;
  BFT_OK(bf_distmap_create_from_pmap(4, pmap, &dm));
  BFT_CHECK(bf_distmap_size(dm) == 4 && bf_distmap_nprocs(dm) == 4 && bf_distmap_refcount(dm) == 1);
  int r = -1;
  BFT_OK(bf_distmap_get(dm, 1, &r));
  BFT_CHECK(r == 3 && bf_distmap_data(dm)[2] == 1);
  BFT_FAILS(bf_distmap_get(dm, 4, &r), BF_ERROR_INDEX);
  BFT_FAILS(bf_distmap_get(dm, -1, &r), BF_ERROR_INDEX);
  bf_distmap *other = bf_distmap_retain(dm);
  BFT_CHECK(bf_distmap_refcount(dm) == 2 && bf_distmap_equal(dm, other));
  bf_distmap_destroy(&other);
  BFT_CHECK(other == NULL && bf_distmap_refcount(dm) == 1);
  int pmap2[4] = {0, 3, 1, 2};
  BFT_OK(bf_distmap_create_from_pmap(4, pmap2, &other));
  BFT_CHECK(!bf_distmap_equal(dm, other));
  bf_distmap_destroy(&other);
  BFT_OK(bf_distmap_create_from_pmap(3, pmap2, &other));
  BFT_CHECK(!bf_distmap_equal(dm, other));
  bf_distmap_destroy(&other);
  int bad[2] = {0, -2};
  BFT_FAILS(bf_distmap_create_from_pmap(2, bad, &other), BF_ERROR_VALUE);
  BFT_FAILS(bf_distmap_create_from_pmap(-1, bad, &other), BF_ERROR_VALUE);
  BFT_OK(bf_distmap_create_from_pmap(0, NULL, &other));
  BFT_CHECK(bf_distmap_size(other) == 0 && bf_distmap_nprocs(other) == 1);
  bf_distmap_destroy(&other);
  bf_distmap_destroy(&dm);
  bf_distmap_destroy(&dm); /* NULL is fine */
}

/* A random array of non-overlapping boxes: a domain chopped by max_size with
 * random sizes, some boxes then refined to vary the weights. */
static bf_boxarray *random_boxarray(int dim) {
  int lo[3] = {rnd(-20, 20), rnd(-20, 20), rnd(-20, 20)}, hi[3];
  for (int d = 0; d < 3; ++d)
    hi[d] = lo[d] + rnd(1, dim == 3 ? 20 : 60);
  bf_box dom = mkbox(dim, lo, hi);
  bf_boxarray *ba = NULL;
  bf_boxarray_create_box(&dom, &ba);
  int n[3] = {rnd(1, 12), rnd(1, 12), rnd(1, 12)};
  bf_boxarray_max_size(&ba, n);
  return ba;
}

static void check_balanced(const bf_boxarray *ba, int nprocs, bf_distmap_strategy s, bool *valid, bool *bounded) {
  bf_distmap *dm = NULL;
  *valid = *bounded = false;
  if (bf_distmap_create_balanced(ba, nprocs, s, &dm) != BF_SUCCESS) return;
  int64_t n = bf_boxarray_size(ba);
  double *load = calloc((size_t)nprocs, sizeof *load), total = 0, wmax = 0;
  bool ok = bf_distmap_size(dm) == n && bf_distmap_nprocs(dm) == nprocs;
  for (int64_t i = 0; i < n; ++i) {
    int r = bf_distmap_data(dm)[i];
    ok = ok && r >= 0 && r < nprocs;
    if (!ok) break;
    double w = bf_box_d_numpts(&bf_boxarray_data(ba)[i]);
    load[r] += w, total += w;
    if (w > wmax) wmax = w;
  }
  *valid = ok;
  double lmax = 0;
  for (int r = 0; r < nprocs && ok; ++r)
    if (load[r] > lmax) lmax = load[r];
  *bounded = ok && lmax <= total / nprocs + wmax + 1e-9;
  /* deterministic */
  bf_distmap *again = NULL;
  if (bf_distmap_create_balanced(ba, nprocs, s, &again) != BF_SUCCESS || !bf_distmap_equal(dm, again)) *valid = false;
  bf_distmap_destroy(&again);
  free(load);
  bf_distmap_destroy(&dm);
}

static void test_balanced_strategies(void) {
  bf_distmap_strategy all[3] = {BF_DISTMAP_SFC, BF_DISTMAP_ROUND_ROBIN, BF_DISTMAP_KNAPSACK};
  for (int dim = 1; dim <= 3; ++dim)
    for (int trial = 0; trial < 30; ++trial) {
      bf_boxarray *ba = random_boxarray(dim);
      int nprocs = rnd(1, 40);
      for (int k = 0; k < 3; ++k) {
        bool valid, bounded;
        check_balanced(ba, nprocs, all[k], &valid, &bounded);
        BFT_CHECK(valid);
        BFT_CHECK(bounded);
      }
      bf_boxarray_destroy(&ba);
    }
}

static void test_knapsack_exact_cases(void) {
  /* weights 8, 4, 4, 2, 2 on 2 ranks: 8 | 4 4 -> 8 | 8 then 2 -> rank 0, 2 -> rank 1 */
  int lens[5] = {8, 4, 4, 2, 2}, x = 0;
  bf_box b[5];
  for (int i = 0; i < 5; ++i) {
    int lo[1] = {x}, hi[1] = {x + lens[i] - 1};
    b[i] = mkbox(1, lo, hi);
    x += lens[i];
  }
  bf_boxarray *ba = NULL;
  BFT_OK(bf_boxarray_create_from_boxes(1, 5, b, &ba));
  bf_distmap *dm = NULL;
  BFT_OK(bf_distmap_create_balanced(ba, 2, BF_DISTMAP_KNAPSACK, &dm));
  const int *p = bf_distmap_data(dm);
  BFT_CHECK(p[0] == 0 && p[1] == 1 && p[2] == 1 && p[3] == 0 && p[4] == 1);
  bf_distmap_destroy(&dm);
  BFT_OK(bf_distmap_create_balanced(ba, 2, BF_DISTMAP_ROUND_ROBIN, &dm));
  p = bf_distmap_data(dm);
  BFT_CHECK(p[0] == 0 && p[1] == 1 && p[2] == 0 && p[3] == 1 && p[4] == 0);
  bf_distmap_destroy(&dm);
  /* SFC on a line keeps the order: 8 | 4 4 2 2 -> rank 0 gets 8 (midpoint 4 < 10) */
  BFT_OK(bf_distmap_create_balanced(ba, 2, BF_DISTMAP_SFC, &dm));
  p = bf_distmap_data(dm);
  BFT_CHECK(p[0] == 0 && p[1] == 1 && p[2] == 1 && p[3] == 1 && p[4] == 1);
  bf_distmap_destroy(&dm);
  bf_boxarray_destroy(&ba);
}

/* 8x8 equal boxes on 4 ranks: the Z-order curve gives each rank a 4x4 quadrant. */
static void test_sfc_quadrants(void) {
  int lo[2] = {0, 0}, hi[2] = {63, 63};
  bf_box dom = mkbox(2, lo, hi);
  bf_boxarray *ba = NULL;
  BFT_OK(bf_boxarray_create_box(&dom, &ba));
  BFT_OK(bf_boxarray_max_size(&ba, (int[3]){8, 8, 8}));
  bf_distmap *dm = NULL;
  BFT_OK(bf_distmap_create_balanced(ba, 4, BF_DISTMAP_SFC, &dm));
  int count[4] = {0, 0, 0, 0};
  bool quadrants = true;
  int quad_of_rank[4] = {-1, -1, -1, -1};
  for (int64_t i = 0; i < 64; ++i) {
    const bf_box *b = &bf_boxarray_data(ba)[i];
    int r = bf_distmap_data(dm)[i];
    int q = (b->lo[0] >= 32) + 2 * (b->lo[1] >= 32);
    if (quad_of_rank[r] < 0) quad_of_rank[r] = q;
    quadrants = quadrants && quad_of_rank[r] == q;
    ++count[r];
  }
  BFT_CHECK(quadrants);
  BFT_CHECK(count[0] == 16 && count[1] == 16 && count[2] == 16 && count[3] == 16);
  bf_distmap_destroy(&dm);
  /* 16 ranks: 2x2 blocks of boxes */
  BFT_OK(bf_distmap_create_balanced(ba, 16, BF_DISTMAP_SFC, &dm));
  bool blocks = true;
  for (int64_t i = 0; i < 64; ++i) {
    const bf_box *b = &bf_boxarray_data(ba)[i];
    int r = bf_distmap_data(dm)[i];
    for (int64_t j = 0; j < 64; ++j) {
      const bf_box *c = &bf_boxarray_data(ba)[j];
      bool same_block = b->lo[0] / 16 == c->lo[0] / 16 && b->lo[1] / 16 == c->lo[1] / 16;
      blocks = blocks && (same_block == (r == bf_distmap_data(dm)[j]));
    }
  }
  BFT_CHECK(blocks);
  bf_distmap_destroy(&dm);
  bf_boxarray_destroy(&ba);
}

static void test_few_boxes_and_errors(void) {
  int lo[3] = {0, 0, 0}, hi[3] = {15, 15, 15};
  bf_box dom = mkbox(3, lo, hi);
  bf_boxarray *ba = NULL;
  BFT_OK(bf_boxarray_create_box(&dom, &ba));
  BFT_OK(bf_boxarray_max_size(&ba, (int[3]){8, 8, 8}));
  bf_distmap *dm = NULL;
  for (int s = 0; s < 3; ++s) { /* 8 boxes on 100 ranks: all distinct */
    BFT_OK(bf_distmap_create_balanced(ba, 100, (bf_distmap_strategy)s, &dm));
    bool distinct = true;
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < i; ++j)
        distinct = distinct && bf_distmap_data(dm)[i] != bf_distmap_data(dm)[j];
    BFT_CHECK(distinct);
    bf_distmap_destroy(&dm);
  }
  BFT_OK(bf_distmap_create_balanced(ba, 1, BF_DISTMAP_SFC, &dm));
  bool zero = true;
  for (int i = 0; i < 8; ++i)
    zero = zero && bf_distmap_data(dm)[i] == 0;
  BFT_CHECK(zero);
  bf_distmap_destroy(&dm);
  BFT_FAILS(bf_distmap_create_balanced(ba, 0, BF_DISTMAP_SFC, &dm), BF_ERROR_VALUE);
  BFT_FAILS(bf_distmap_create_balanced(ba, -3, BF_DISTMAP_KNAPSACK, &dm), BF_ERROR_VALUE);
  BFT_FAILS(bf_distmap_create_balanced(ba, 2, (bf_distmap_strategy)7, &dm), BF_ERROR_VALUE);
  BFT_CHECK(dm == NULL);
  /* empty array and arrays of empty boxes */
  BFT_OK(bf_boxarray_clear(&ba));
  BFT_OK(bf_distmap_create_balanced(ba, 4, BF_DISTMAP_SFC, &dm));
  BFT_CHECK(bf_distmap_size(dm) == 0);
  bf_distmap_destroy(&dm);
  BFT_OK(bf_boxarray_resize(&ba, 10));
  for (int s = 0; s < 3; ++s) {
    BFT_OK(bf_distmap_create_balanced(ba, 3, (bf_distmap_strategy)s, &dm));
    bool valid = bf_distmap_size(dm) == 10;
    for (int i = 0; i < 10 && valid; ++i)
      valid = bf_distmap_data(dm)[i] >= 0 && bf_distmap_data(dm)[i] < 3;
    BFT_CHECK(valid);
    bf_distmap_destroy(&dm);
  }
  bf_boxarray_destroy(&ba);
}

int main(void) {
  BFT_RUN(test_from_pmap);
  BFT_RUN(test_balanced_strategies);
  BFT_RUN(test_knapsack_exact_cases);
  BFT_RUN(test_sfc_quadrants);
  BFT_RUN(test_few_boxes_and_errors);
  return bft_report();
}
