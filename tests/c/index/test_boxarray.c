/* BoxArray: creation, copy on write, max_size tiling, refine/coarsen,
 * coarsenable, conversions, sizes, and hashed queries against brute force. */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>

#include "bftest.h"

static uint64_t rng_state = 12345;
static int rnd(int lo, int hi) { /* uniform in [lo, hi] */
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return lo + (int)((rng_state >> 33) % (uint64_t)(hi - lo + 1));
}

static bf_box mkbox(int dim, int x0, int y0, int z0, int x1, int y1, int z1) {
  int lo[3] = {x0, y0, z0}, hi[3] = {x1, y1, z1};
  bf_box b;
  bf_box_define(dim, lo, hi, 0, &b);
  return b;
}

static bf_box empty_box(int dim) { return mkbox(dim, 1, dim > 1, dim > 2, 0, 0, 0); }

static bf_box random_box(int dim, int span, int maxlen) {
  bf_box b = {.dim = dim};
  for (int d = 0; d < dim; ++d) {
    b.lo[d] = rnd(-span, span);
    b.hi[d] = b.lo[d] + rnd(0, maxlen - 1);
  }
  return b;
}

static void test_create_and_errors(void) {
  bf_boxarray *ba = NULL;
  BFT_OK(bf_boxarray_create(2, &ba));
  BFT_CHECK(bf_boxarray_size(ba) == 0 && bf_boxarray_dim(ba) == 2 && bf_boxarray_ix_type(ba) == 0);
  BFT_CHECK(bf_boxarray_refcount(ba) == 1 && bf_boxarray_capacity(ba) >= 0);
  bf_box b;
  BFT_FAILS(bf_boxarray_get(ba, 0, &b), BF_ERROR_INDEX);
  bf_boxarray_destroy(&ba);
  BFT_CHECK(ba == NULL);
  bf_boxarray_destroy(&ba); /* NULL handle is fine */
  BFT_FAILS(bf_boxarray_create(4, &ba), BF_ERROR_VALUE);
  bf_box two[2] = {mkbox(2, 0, 0, 0, 3, 3, 0), mkbox(3, 0, 0, 0, 3, 3, 3)};
  BFT_FAILS(bf_boxarray_create_from_boxes(2, 2, two, &ba), BF_ERROR_TYPE);
  two[1] = mkbox(2, 4, 0, 0, 7, 3, 0);
  two[1].type = 1u;
  BFT_FAILS(bf_boxarray_create_from_boxes(2, 2, two, &ba), BF_ERROR_TYPE);
  BFT_FAILS(bf_boxarray_create_from_boxes(2, -1, two, &ba), BF_ERROR_VALUE);
  two[1].type = 0;
  BFT_OK(bf_boxarray_create_from_boxes(2, 2, two, &ba));
  BFT_OK(bf_boxarray_get(ba, 1, &b));
  BFT_CHECK(bf_box_equal(&b, &two[1]));
  BFT_FAILS(bf_boxarray_get(ba, -1, &b), BF_ERROR_INDEX);
  BFT_FAILS(bf_boxarray_get(ba, 2, &b), BF_ERROR_INDEX);
  bf_box b3 = mkbox(3, 0, 0, 0, 1, 1, 1);
  BFT_FAILS(bf_boxarray_define(&ba, &b3), BF_ERROR_TYPE);
  BFT_CHECK(bf_boxarray_size(ba) == 2);
  bf_boxarray_destroy(&ba);
}

static void test_copy_on_write(void) {
  bf_box b = mkbox(3, 0, 0, 0, 15, 15, 15);
  bf_boxarray *owner = NULL;
  BFT_OK(bf_boxarray_create_box(&b, &owner));
  /* unshared: changed in place, same handle */
  bf_boxarray *before = owner;
  int two[3] = {2, 2, 2};
  BFT_OK(bf_boxarray_refine(&owner, two));
  BFT_CHECK(owner == before && bf_boxarray_data(owner)[0].hi[0] == 31);
  /* shared: the holder keeps its boxes, the mutator gets a private copy */
  bf_boxarray *holder = bf_boxarray_retain(owner);
  BFT_CHECK(bf_boxarray_refcount(owner) == 2);
  BFT_OK(bf_boxarray_coarsen(&owner, two));
  BFT_CHECK(owner != holder);
  BFT_CHECK(bf_boxarray_refcount(owner) == 1 && bf_boxarray_refcount(holder) == 1);
  BFT_CHECK(bf_boxarray_data(holder)[0].hi[0] == 31 && bf_boxarray_data(owner)[0].hi[0] == 15);
  /* every mutator copies when shared */
  bf_boxarray *h2 = bf_boxarray_retain(owner);
  int eight[3] = {8, 8, 8};
  BFT_OK(bf_boxarray_max_size(&owner, eight));
  BFT_CHECK(bf_boxarray_size(owner) == 8 && bf_boxarray_size(h2) == 1 && owner != h2);
  bf_boxarray *h3 = bf_boxarray_retain(owner);
  BFT_OK(bf_boxarray_clear(&owner));
  BFT_CHECK(bf_boxarray_size(owner) == 0 && bf_boxarray_size(h3) == 8);
  bf_boxarray *h4 = bf_boxarray_retain(owner);
  BFT_OK(bf_boxarray_define(&owner, &b));
  BFT_CHECK(bf_boxarray_size(owner) == 1 && bf_boxarray_size(h4) == 0);
  bf_boxarray *h5 = bf_boxarray_retain(owner);
  BFT_OK(bf_boxarray_resize(&owner, 3));
  BFT_CHECK(bf_boxarray_size(owner) == 3 && bf_boxarray_size(h5) == 1);
  bf_boxarray *h6 = bf_boxarray_retain(owner);
  BFT_OK(bf_boxarray_surrounding_nodes(&owner, -1));
  BFT_CHECK(bf_boxarray_ix_type(owner) == 7u && bf_boxarray_ix_type(h6) == 0u);
  bf_boxarray *h7 = bf_boxarray_retain(owner);
  BFT_OK(bf_boxarray_make_unique(&owner));
  BFT_CHECK(owner != h7 && bf_boxarray_equal(owner, h7));
  /* a failing mutator leaves a shared array and the handle untouched */
  bf_boxarray *h8 = bf_boxarray_retain(owner);
  int zero[3] = {0, 1, 1};
  BFT_FAILS(bf_boxarray_refine(&owner, zero), BF_ERROR_VALUE);
  BFT_CHECK(owner == h8 && bf_boxarray_refcount(owner) == 2);
  bf_boxarray *all[] = {owner, holder, h2, h3, h4, h5, h6, h7, h8};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
    bf_boxarray_destroy(&all[i]);
}

/* Every piece inside its source, at most n cells per side, pairwise disjoint
 * and the cell counts add up: the pieces tile the sources exactly. */
static void check_tiling(const bf_box *src, int64_t nsrc, const bf_boxarray *ba, const int *n) {
  const bf_box *p = bf_boxarray_data(ba);
  int64_t m = bf_boxarray_size(ba), cells_src = 0, cells = 0;
  for (int64_t i = 0; i < nsrc; ++i) {
    bf_box c = src[i];
    bf_box_enclosed_cells(&c, -1);
    int64_t np;
    bf_box_numpts(&c, &np);
    cells_src += np;
  }
  bool inside = true, small = true, disjoint = true;
  for (int64_t i = 0; i < m; ++i) {
    bf_box c = p[i];
    bf_box_enclosed_cells(&c, -1);
    int64_t np;
    bf_box_numpts(&c, &np);
    cells += np;
    bool in_some = false;
    for (int64_t s = 0; s < nsrc; ++s)
      in_some = in_some || bf_box_contains_box(&src[s], &p[i]);
    inside = inside && in_some;
    for (int d = 0; d < c.dim; ++d)
      small = small && bf_box_length(&c, d) <= n[d];
    for (int64_t j = 0; j < i; ++j) {
      bf_box e = p[j];
      bf_box_enclosed_cells(&e, -1);
      disjoint = disjoint && !bf_box_intersects(&c, &e);
    }
  }
  BFT_CHECK(inside);
  BFT_CHECK(small);
  BFT_CHECK(disjoint);
  BFT_CHECK(cells == cells_src);
}

static void test_max_size_tiles(void) {
  for (int dim = 1; dim <= 3; ++dim)
    for (int trial = 0; trial < 40; ++trial) {
      bf_box src[3];
      int nsrc = rnd(1, 3);
      unsigned type = (unsigned)rnd(0, (1 << dim) - 1);
      for (int s = 0; s < nsrc; ++s) {
        src[s] = random_box(dim, 30, 13);
        src[s].lo[0] += 100 * s; /* disjoint sources */
        src[s].hi[0] += 100 * s;
        BFT_OK(bf_box_convert(&src[s], type));
      }
      int n[3] = {rnd(1, 6), rnd(1, 6), rnd(1, 6)};
      bf_boxarray *ba = NULL;
      BFT_OK(bf_boxarray_create_from_boxes(dim, nsrc, src, &ba));
      BFT_OK(bf_boxarray_max_size(&ba, n));
      BFT_CHECK(bf_boxarray_ix_type(ba) == type);
      check_tiling(src, nsrc, ba, n);
      bf_boxarray_destroy(&ba);
    }
}

static void test_max_size_near_equal(void) {
  bf_box b = mkbox(1, 0, 0, 0, 9, 0, 0);
  bf_boxarray *ba = NULL;
  BFT_OK(bf_boxarray_create_box(&b, &ba));
  int n[3] = {4, 0, 0};
  BFT_OK(bf_boxarray_max_size(&ba, n));
  const bf_box *p = bf_boxarray_data(ba);
  BFT_CHECK(bf_boxarray_size(ba) == 3);
  /* AMReX_BoxList.cpp BoxList::maxSize: 10 and 4 are even, so 5 units of 2 in blocks of <= 2 units:
   * 2, 2, 1 units = 4, 4, 2 cells */
  BFT_CHECK(p[0].lo[0] == 0 && p[0].hi[0] == 3 && p[1].lo[0] == 4 && p[1].hi[0] == 7 && p[2].lo[0] == 8 &&
            p[2].hi[0] == 9);
  BFT_CHECK(bf_boxarray_capacity(ba) == 4); /* the BoxList's vector after 3 push_backs */
  /* 14 with 6: 6, 4, 4 (from -7) */
  b = mkbox(1, -7, 0, 0, 6, 0, 0);
  bf_boxarray *b14 = NULL;
  BFT_OK(bf_boxarray_create_box(&b, &b14));
  BFT_OK(bf_boxarray_max_size(&b14, (int[3]){6, 0, 0}));
  p = bf_boxarray_data(b14);
  BFT_CHECK(bf_boxarray_size(b14) == 3 && p[0].lo[0] == -7 && p[0].hi[0] == -2 && p[1].lo[0] == -1 &&
            p[1].hi[0] == 2 && p[2].lo[0] == 3 && p[2].hi[0] == 6);
  /* an empty box is chopped along its long side (AMReX does not skip it) */
  b = mkbox(2, 0, 5, 0, 20, 4, 0);
  bf_boxarray_destroy(&b14);
  BFT_OK(bf_boxarray_create_box(&b, &b14));
  BFT_OK(bf_boxarray_max_size(&b14, (int[3]){4, 4, 0}));
  p = bf_boxarray_data(b14);
  BFT_CHECK(bf_boxarray_size(b14) == 6 && p[0].hi[0] == 3 && p[3].lo[0] == 12 && p[3].hi[0] == 14 &&
            p[5].hi[0] == 20 && p[5].lo[1] == 5 && p[5].hi[1] == 4);
  bf_boxarray_destroy(&b14);
  p = bf_boxarray_data(ba);
  /* nothing to chop: same array, nothing changes */
  bf_boxarray *before = ba;
  BFT_OK(bf_boxarray_max_size(&ba, n));
  BFT_CHECK(ba == before && bf_boxarray_size(ba) == 3);
  /* nodal: 8 cells (9 nodes) with n = 4: two pieces sharing node 4 */
  b = mkbox(1, 0, 0, 0, 8, 0, 0);
  b.type = 1u;
  BFT_OK(bf_boxarray_define(&ba, &b));
  BFT_OK(bf_boxarray_max_size(&ba, n));
  p = bf_boxarray_data(ba);
  BFT_CHECK(bf_boxarray_size(ba) == 2 && p[0].lo[0] == 0 && p[0].hi[0] == 4 && p[1].lo[0] == 4 && p[1].hi[0] == 8);
  /* 2D order: direction 0 fastest */
  b = mkbox(2, 0, 0, 0, 7, 7, 0);
  bf_boxarray *b2 = NULL;
  BFT_OK(bf_boxarray_create_box(&b, &b2));
  int n2[3] = {4, 4, 0};
  BFT_OK(bf_boxarray_max_size(&b2, n2));
  p = bf_boxarray_data(b2);
  BFT_CHECK(bf_boxarray_size(b2) == 4 && p[1].lo[0] == 4 && p[1].lo[1] == 0 && p[2].lo[0] == 0 && p[2].lo[1] == 4);
  int bad[3] = {4, 0, 0};
  BFT_FAILS(bf_boxarray_max_size(&b2, bad), BF_ERROR_VALUE);
  BFT_CHECK(bf_boxarray_size(b2) == 4);
  /* a short empty box (resize's Box()) is kept */
  BFT_OK(bf_boxarray_resize(&b2, 5));
  BFT_OK(bf_boxarray_max_size(&b2, n2));
  BFT_CHECK(bf_boxarray_size(b2) == 5 && !bf_box_ok(&bf_boxarray_data(b2)[4]));
  /* far too many boxes */
  b = mkbox(3, INT_MIN, INT_MIN, INT_MIN, INT_MAX, INT_MAX, INT_MAX);
  bf_boxarray_destroy(&ba);
  BFT_OK(bf_boxarray_create_box(&b, &ba));
  int one[3] = {1, 1, 1};
  BFT_FAILS(bf_boxarray_max_size(&ba, one), BF_ERROR_OVERFLOW);
  BFT_CHECK(bf_boxarray_size(ba) == 1);
  bf_boxarray_destroy(&ba);
  bf_boxarray_destroy(&b2);
}

static void test_refine_coarsen_convert(void) {
  bf_box src[20];
  for (int i = 0; i < 20; ++i)
    src[i] = random_box(3, 50, 10);
  bf_boxarray *ba = NULL;
  BFT_OK(bf_boxarray_create_from_boxes(3, 20, src, &ba));
  int r[3] = {2, 3, 4};
  BFT_OK(bf_boxarray_refine(&ba, r));
  bool same = true;
  for (int i = 0; i < 20; ++i) {
    bf_box e = src[i];
    bf_box_refine(&e, r);
    same = same && bf_box_equal(&e, &bf_boxarray_data(ba)[i]);
  }
  BFT_CHECK(same);
  BFT_OK(bf_boxarray_coarsen(&ba, r));
  for (int i = 0; i < 20; ++i)
    same = same && bf_box_equal(&src[i], &bf_boxarray_data(ba)[i]);
  BFT_CHECK(same);
  /* floor coarsening of negative indices */
  bf_box neg = mkbox(1, -5, 0, 0, -1, 0, 0);
  bf_boxarray_destroy(&ba);
  BFT_OK(bf_boxarray_create_box(&neg, &ba));
  int two[3] = {2, 2, 2};
  BFT_OK(bf_boxarray_coarsen(&ba, two));
  BFT_CHECK(bf_boxarray_data(ba)[0].lo[0] == -3 && bf_boxarray_data(ba)[0].hi[0] == -1);
  BFT_FAILS(bf_boxarray_coarsen(&ba, (int[3]){-1, 1, 1}), BF_ERROR_VALUE);
  /* overflow: all or nothing */
  bf_box two_boxes[2] = {mkbox(1, 0, 0, 0, 3, 0, 0), mkbox(1, 0, 0, 0, INT_MAX / 2 + 5, 0, 0)};
  bf_boxarray_destroy(&ba);
  BFT_OK(bf_boxarray_create_from_boxes(1, 2, two_boxes, &ba));
  BFT_FAILS(bf_boxarray_refine(&ba, two), BF_ERROR_OVERFLOW);
  BFT_CHECK(bf_boxarray_data(ba)[0].hi[0] == 3);
  /* conversions */
  BFT_OK(bf_boxarray_surrounding_nodes(&ba, 0));
  BFT_CHECK(bf_boxarray_ix_type(ba) == 1u && bf_boxarray_data(ba)[0].hi[0] == 4 && bf_boxarray_data(ba)[0].type == 1u);
  BFT_OK(bf_boxarray_enclosed_cells(&ba, -1));
  BFT_CHECK(bf_boxarray_ix_type(ba) == 0u && bf_boxarray_data(ba)[0].hi[0] == 3);
  BFT_FAILS(bf_boxarray_enclosed_cells(&ba, 1), BF_ERROR_INDEX);
  BFT_FAILS(bf_boxarray_convert(&ba, 2u), BF_ERROR_VALUE);
  bf_box huge = mkbox(1, 0, 0, 0, INT_MAX, 0, 0);
  BFT_OK(bf_boxarray_define(&ba, &huge));
  BFT_FAILS(bf_boxarray_surrounding_nodes(&ba, -1), BF_ERROR_OVERFLOW);
  BFT_CHECK(bf_boxarray_ix_type(ba) == 0u);
  bf_boxarray_destroy(&ba);
}

static void test_coarsenable(void) {
  bf_box b[2] = {mkbox(2, 0, 0, 0, 7, 7, 0), mkbox(2, 8, 0, 0, 15, 3, 0)};
  bf_boxarray *ba = NULL;
  BFT_OK(bf_boxarray_create_from_boxes(2, 2, b, &ba));
  bool ok = false;
  BFT_OK(bf_boxarray_coarsenable(ba, (int[3]){2, 2, 1}, (int[3]){1, 1, 1}, &ok));
  BFT_CHECK(ok);
  BFT_OK(bf_boxarray_coarsenable(ba, (int[3]){4, 4, 1}, (int[3]){1, 1, 1}, &ok));
  BFT_CHECK(ok);
  BFT_OK(bf_boxarray_coarsenable(ba, (int[3]){4, 4, 1}, (int[3]){2, 2, 1}, &ok)); /* 4 / 4 = 1 < 2 */
  BFT_CHECK(!ok);
  BFT_OK(bf_boxarray_coarsenable(ba, (int[3]){2, 2, 1}, (int[3]){2, 2, 1}, &ok));
  BFT_CHECK(ok);
  BFT_OK(bf_boxarray_coarsenable(ba, (int[3]){3, 1, 1}, (int[3]){1, 1, 1}, &ok)); /* 0..7 not a multiple */
  BFT_CHECK(!ok);
  BFT_FAILS(bf_boxarray_coarsenable(ba, (int[3]){0, 1, 1}, (int[3]){1, 1, 1}, &ok), BF_ERROR_VALUE);
  /* a negative min_width passes AMReX's size >= ratio * min_width for every box: refused
   * (issue 21); 0 means no minimum */
  BFT_FAILS(bf_boxarray_coarsenable(ba, (int[3]){2, 2, 1}, (int[3]){-1, -3, 1}, &ok), BF_ERROR_VALUE);
  BFT_FAILS(bf_boxarray_coarsenable(ba, (int[3]){2, 2, 1}, (int[3]){1, -1, 1}, &ok), BF_ERROR_VALUE);
  BFT_OK(bf_boxarray_coarsenable(ba, (int[3]){2, 2, 1}, (int[3]){0, 0, 0}, &ok));
  BFT_CHECK(ok);
  /* nodal: both ends must be multiples */
  BFT_OK(bf_boxarray_surrounding_nodes(&ba, -1)); /* 0..8 x 0..8, 8..16 x 0..4 */
  BFT_OK(bf_boxarray_coarsenable(ba, (int[3]){4, 4, 1}, (int[3]){1, 1, 1}, &ok));
  BFT_CHECK(ok);
  BFT_OK(bf_boxarray_clear(&ba));
  ok = true;
  BFT_OK(bf_boxarray_coarsenable(ba, (int[3]){2, 2, 1}, (int[3]){1, 1, 1}, &ok)); /* empty: false (AMReX) */
  BFT_CHECK(!ok);
  bf_boxarray_destroy(&ba);
}

static void test_sizes_minimal_equal(void) {
  bf_box b[3] = {mkbox(2, 0, 0, 0, 3, 3, 0), mkbox(2, 10, -5, 0, 11, 0, 0), mkbox(2, 20, 2, 0, 19, 1, 0)};
  bf_boxarray *ba = NULL;
  BFT_OK(bf_boxarray_create_from_boxes(2, 3, b, &ba));
  int64_t np = -1;
  BFT_OK(bf_boxarray_numpts(ba, &np));
  BFT_CHECK(np == 16 + 12);
  BFT_CHECK(bf_boxarray_d_numpts(ba) == 28.0);
  bf_box m;
  bf_boxarray_minimal_box(ba, &m);
  /* AMReX_BoxArray.cpp BoxArray::minimalBox: minBox over all boxes, the empty box 2 included */
  BFT_CHECK(m.lo[0] == 0 && m.lo[1] == -5 && m.hi[0] == 19 && m.hi[1] == 3);
  bf_boxarray *other = NULL;
  BFT_OK(bf_boxarray_copy(ba, &other));
  BFT_CHECK(bf_boxarray_equal(ba, other) && bf_boxarray_cell_equal(ba, other) && other != ba);
  BFT_OK(bf_boxarray_surrounding_nodes(&other, 1));
  BFT_CHECK(!bf_boxarray_equal(ba, other) && bf_boxarray_cell_equal(ba, other));
  BFT_OK(bf_boxarray_refine(&other, (int[3]){2, 2, 1}));
  BFT_CHECK(!bf_boxarray_cell_equal(ba, other));
  /* resize: new boxes are AMReX's Box() seen through the type: lo 1, hi 0 (1 in the nodal y) */
  BFT_OK(bf_boxarray_resize(&other, 5));
  const bf_box *nb = &bf_boxarray_data(other)[4];
  BFT_CHECK(bf_boxarray_size(other) == 5 && nb->type == 2u && nb->lo[0] == 1 && nb->hi[0] == 0 && nb->lo[1] == 1 &&
            nb->hi[1] == 1);
  BFT_CHECK(bf_boxarray_capacity(other) == 6); /* std::vector::resize from 3: max(2 * 3, 5) */
  BFT_OK(bf_boxarray_resize(&other, 1));
  BFT_CHECK(bf_boxarray_size(other) == 1);
  BFT_FAILS(bf_boxarray_resize(&other, -1), BF_ERROR_VALUE);
  BFT_OK(bf_boxarray_clear(&other)); /* AMReX's clear(): cell type, capacity 0 */
  BFT_CHECK(bf_boxarray_size(other) == 0 && bf_boxarray_ix_type(other) == 0u && bf_boxarray_capacity(other) == 0);
  bf_boxarray_minimal_box(other, &m);
  BFT_CHECK(!bf_box_ok(&m));
  BFT_OK(bf_boxarray_numpts(other, &np));
  BFT_CHECK(np == 0);
  /* numpts overflow: two boxes of 2^62 points */
  bf_box big[2] = {mkbox(3, 0, 0, 0, INT_MAX, INT_MAX, 0), mkbox(3, 0, 0, 1, INT_MAX, INT_MAX, 1)};
  bf_boxarray *bb = NULL;
  BFT_OK(bf_boxarray_create_from_boxes(3, 2, big, &bb));
  BFT_FAILS(bf_boxarray_numpts(bb, &np), BF_ERROR_OVERFLOW);
  BFT_CHECK(bf_boxarray_d_numpts(bb) == 2.0 * 4611686018427387904.0);
  bf_boxarray_destroy(&bb);
  bf_boxarray_destroy(&ba);
  bf_boxarray_destroy(&other);
}

/* ---- queries ---------------------------------------------------------------------------- */

static bool check_query(const bf_boxarray *ba, const bf_box *q, bf_isect_list *l) {
  if (bf_boxarray_intersections(ba, q, false, l) != BF_SUCCESS) return false;
  int64_t k = 0;
  const bf_box *p = bf_boxarray_data(ba);
  for (int64_t i = 0; i < bf_boxarray_size(ba); ++i) {
    if (!bf_box_intersects(&p[i], q)) continue;
    bf_box e;
    bf_box_intersection(&p[i], q, &e);
    if (k >= l->count || l->index[k] != i || !bf_box_equal(&l->box[k], &e)) return false;
    ++k;
  }
  if (k != l->count) return false;
  bool any;
  if (bf_boxarray_intersects(ba, q, &any) != BF_SUCCESS || any != (k > 0)) return false;
  bf_isect_list first = {0};
  bool ok = bf_boxarray_intersections(ba, q, true, &first) == BF_SUCCESS && first.count == (k > 0 ? 1 : 0);
  bf_isect_list_free(&first);
  return ok;
}

static void test_intersections_match_brute_force(void) {
  bf_isect_list l = {0};
  for (int dim = 1; dim <= 3; ++dim)
    for (int trial = 0; trial < 30; ++trial) {
      /* span 10^6: scattered boxes (hashed bins); else mostly a dense bin grid */
      int n = rnd(0, 60), maxlen = rnd(1, 20), span = trial % 3 == 0 ? 1000000 : rnd(1, 80);
      bf_box *boxes = malloc((size_t)(n > 0 ? n : 1) * sizeof *boxes);
      for (int i = 0; i < n; ++i)
        boxes[i] = random_box(dim, span, maxlen); /* overlapping in general */
      if (n > 2) boxes[1] = empty_box(dim);
      bf_boxarray *ba = NULL;
      BFT_OK(bf_boxarray_create_from_boxes(dim, n, boxes, &ba));
      bool all = true;
      for (int q = 0; q < 50; ++q) {
        bf_box qb = random_box(dim, span + 20, rnd(1, 3 * maxlen));
        if (n > 0 && q % 2) { /* around a box of the array */
          qb = boxes[rnd(0, n - 1)];
          int g = rnd(-1, maxlen);
          bf_box_grow(&qb, (int[3]){g, g, g});
        }
        all = all && check_query(ba, &qb, &l);
      }
      bf_box huge = mkbox(dim, INT_MIN, INT_MIN, INT_MIN, INT_MAX, INT_MAX, INT_MAX);
      for (int d = dim; d < 3; ++d)
        huge.lo[d] = huge.hi[d] = 0;
      all = all && check_query(ba, &huge, &l) && l.count == n - (n > 2);
      BFT_CHECK(all);
      free(boxes);
      bf_boxarray_destroy(&ba);
    }
  bf_isect_list_free(&l);
  BFT_CHECK(l.count == 0 && l.index == NULL);
}

static void test_query_errors_and_invalidation(void) {
  bf_box dom = mkbox(2, 0, 0, 0, 31, 31, 0);
  bf_boxarray *ba = NULL;
  BFT_OK(bf_boxarray_create_box(&dom, &ba));
  BFT_OK(bf_boxarray_max_size(&ba, (int[3]){8, 8, 1}));
  bf_isect_list l = {0};
  bf_box q = mkbox(2, 7, 7, 0, 8, 8, 0);
  BFT_OK(bf_boxarray_intersections(ba, &q, false, &l));
  BFT_CHECK(l.count == 4 && l.index[0] == 0 && l.index[1] == 1 && l.index[2] == 4 && l.index[3] == 5);
  bf_box q3 = mkbox(3, 0, 0, 0, 1, 1, 1), qn = q;
  qn.type = 1u;
  BFT_FAILS(bf_boxarray_intersections(ba, &q3, false, &l), BF_ERROR_TYPE);
  BFT_FAILS(bf_boxarray_intersections(ba, &qn, false, &l), BF_ERROR_TYPE);
  bool r;
  BFT_FAILS(bf_boxarray_contains(ba, &qn, &r), BF_ERROR_TYPE);
  /* the cached hash follows in-place changes */
  BFT_OK(bf_boxarray_refine(&ba, (int[3]){2, 2, 1}));
  BFT_OK(bf_boxarray_intersections(ba, &q, false, &l));
  BFT_CHECK(l.count == 1 && l.index[0] == 0);
  BFT_OK(bf_boxarray_clear(&ba));
  BFT_OK(bf_boxarray_intersections(ba, &q, false, &l));
  BFT_CHECK(l.count == 0);
  bf_isect_list_free(&l);
  bf_boxarray_destroy(&ba);
}

static void test_contains(void) {
  for (int trial = 0; trial < 40; ++trial) {
    int n = rnd(1, 8);
    bf_box boxes[8];
    for (int i = 0; i < n; ++i)
      boxes[i] = random_box(2, 6, 6);
    bf_boxarray *ba = NULL;
    BFT_OK(bf_boxarray_create_from_boxes(2, n, boxes, &ba));
    bool all = true;
    for (int q = 0; q < 20; ++q) {
      bf_box qb = random_box(2, 8, 5);
      bool covered = true; /* brute force over the points */
      for (int x = qb.lo[0]; x <= qb.hi[0]; ++x)
        for (int y = qb.lo[1]; y <= qb.hi[1]; ++y) {
          int p[2] = {x, y};
          bool in = false;
          for (int i = 0; i < n; ++i)
            in = in || bf_box_contains(&boxes[i], p);
          bool got;
          all = all && bf_boxarray_contains_point(ba, p, &got) == BF_SUCCESS && got == in;
          covered = covered && in;
        }
      bool got;
      all = all && bf_boxarray_contains(ba, &qb, &got) == BF_SUCCESS && got == covered;
    }
    BFT_CHECK(all);
    bf_boxarray_destroy(&ba);
  }
  bf_box b = mkbox(1, 0, 0, 0, 3, 0, 0), e = empty_box(1);
  bf_boxarray *ba = NULL;
  BFT_OK(bf_boxarray_create_box(&b, &ba));
  bool got = true;
  BFT_OK(bf_boxarray_contains(ba, &e, &got));
  BFT_CHECK(!got);
  bf_boxarray_destroy(&ba);
}

/* Several threads query one fresh array at once: the hash is built once. */
typedef struct {
  const bf_boxarray *ba;
  int64_t hits;
} thread_arg;

static void *query_thread(void *p) {
  thread_arg *a = p;
  bf_isect_list l = {0};
  const bf_box *boxes = bf_boxarray_data(a->ba);
  for (int64_t i = 0; i < bf_boxarray_size(a->ba); ++i) {
    bf_box q = boxes[i];
    bf_box_grow(&q, (int[3]){1, 1, 1});
    if (bf_boxarray_intersections(a->ba, &q, false, &l) == BF_SUCCESS) a->hits += l.count;
  }
  bf_isect_list_free(&l);
  return NULL;
}

static void test_concurrent_queries(void) {
  bf_box dom = mkbox(3, 0, 0, 0, 63, 63, 63);
  bf_boxarray *ba = NULL;
  BFT_OK(bf_boxarray_create_box(&dom, &ba));
  BFT_OK(bf_boxarray_max_size(&ba, (int[3]){8, 8, 8}));
  pthread_t t[4];
  thread_arg a[4];
  for (int i = 0; i < 4; ++i) {
    a[i] = (thread_arg){ba, 0};
    pthread_create(&t[i], NULL, query_thread, &a[i]);
  }
  for (int i = 0; i < 4; ++i)
    pthread_join(t[i], NULL);
  /* 8^3 boxes; a grown box meets 3^3 boxes inside, fewer at the faces:
   * sum over boxes = (sum over x of neighbours in x)^3 = (8 * 3 - 2)^3 */
  for (int i = 0; i < 4; ++i)
    BFT_CHECK(a[i].hits == 22 * 22 * 22);
  bf_boxarray_destroy(&ba);
}

/* AMReX_BoxArray.cpp grow/growLo/growHi/shift (every box), BoxArray(const Box*, 0) (the box's type),
 * and the lazy coarsening ratio an empty array keeps for minimalBox. */
static void test_grow_shift_typed_pending(void) {
  bf_box b[2] = {mkbox(2, 0, 0, 0, 3, 3, 0), mkbox(2, 4, 0, 0, 9, 3, 0)};
  bf_boxarray *ba = NULL, *held = NULL;
  BFT_OK(bf_boxarray_create_from_boxes(2, 2, b, &ba));
  held = bf_boxarray_retain(ba);
  BFT_OK(bf_boxarray_grow(&ba, (int[3]){1, 0, 0}, (int[3]){2, -1, 0}));
  const bf_box *p = bf_boxarray_data(ba);
  BFT_CHECK(ba != held && p[0].lo[0] == -1 && p[0].hi[0] == 5 && p[0].hi[1] == 2 && p[1].lo[0] == 3 && p[1].hi[0] == 11);
  BFT_CHECK(bf_boxarray_data(held)[0].lo[0] == 0); /* copy on write */
  BFT_OK(bf_boxarray_shift(&ba, (int[3]){-1, 5, 0}));
  p = bf_boxarray_data(ba);
  BFT_CHECK(p[0].lo[0] == -2 && p[0].lo[1] == 5 && p[1].hi[1] == 7);
  BFT_FAILS(bf_boxarray_shift(&ba, (int[3]){INT_MAX, 0, 0}), BF_ERROR_OVERFLOW);
  BFT_CHECK(bf_boxarray_data(ba)[0].lo[0] == -2); /* all or nothing */
  bf_boxarray_destroy(&ba);
  bf_boxarray_destroy(&held);
  bf_boxarray *t = NULL;
  BFT_OK(bf_boxarray_create_typed(3, 5u, &t));
  BFT_CHECK(bf_boxarray_size(t) == 0 && bf_boxarray_ix_type(t) == 5u && bf_boxarray_capacity(t) == 0);
  BFT_FAILS(bf_boxarray_create_typed(2, 4u, &ba), BF_ERROR_VALUE);
  bf_box m;
  bf_boxarray_minimal_box(t, &m); /* Box() converted to (N,C,N): 1..1, 1..0, 1..1 */
  BFT_CHECK(m.lo[0] == 1 && m.hi[0] == 1 && m.lo[1] == 1 && m.hi[1] == 0 && m.hi[2] == 1 && m.type == 5u);
  BFT_OK(bf_boxarray_coarsen(&t, (int[3]){2, 1, 2}));
  bf_boxarray_minimal_box(t, &m); /* coarsen(Box(), (2,1,2)) = (0,1,0)..(0,0,0), then converted */
  BFT_CHECK(m.lo[0] == 0 && m.hi[0] == 1 && m.lo[1] == 1 && m.hi[1] == 0 && m.lo[2] == 0 && m.hi[2] == 1);
  BFT_OK(bf_boxarray_max_size(&t, (int[3]){4, 4, 4})); /* uniqify(): the ratio is applied and dropped */
  bf_boxarray_minimal_box(t, &m);
  BFT_CHECK(m.lo[0] == 1 && m.lo[2] == 1);
  bf_boxarray_destroy(&t);
}

int main(void) {
  BFT_RUN(test_grow_shift_typed_pending);
  BFT_RUN(test_create_and_errors);
  BFT_RUN(test_copy_on_write);
  BFT_RUN(test_max_size_tiles);
  BFT_RUN(test_max_size_near_equal);
  BFT_RUN(test_refine_coarsen_convert);
  BFT_RUN(test_coarsenable);
  BFT_RUN(test_sizes_minimal_equal);
  BFT_RUN(test_intersections_match_brute_force);
  BFT_RUN(test_query_errors_and_invalidation);
  BFT_RUN(test_contains);
  BFT_RUN(test_concurrent_queries);
  return bft_report();
}
