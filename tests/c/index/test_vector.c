/* bf_vector (the generic growable array behind Python's Vector_*) and the
 * packed particle id/rank helpers. */
#include <stdlib.h>

#include "bftest.h"

static void test_numeric_insert_erase_slice(void) {
  bf_vector v;
  BFT_OK(bf_vector_init(&v, BF_VECTOR_REAL));
  BFT_CHECK(v.size == 0 && v.data != NULL && v.elsize == sizeof(double));
  for (int i = 0; i < 10; ++i) {
    double x = i;
    BFT_OK(bf_vector_push(&v, &x));
  }
  double mid[] = {-1, -2};
  BFT_OK(bf_vector_insert(&v, 3, 2, mid)); /* 0 1 2 -1 -2 3 4 5 6 7 8 9 */
  BFT_CHECK(v.size == 12 && ((double *)v.data)[3] == -1 && ((double *)v.data)[5] == 3);
  BFT_FAILS(bf_vector_insert(&v, 13, 1, mid), BF_ERROR_INDEX);
  BFT_OK(bf_vector_insert(&v, 0, 3, v.data)); /* aliasing source: 0 1 2 0 1 2 -1 ... */
  BFT_CHECK(v.size == 15 && ((double *)v.data)[4] == 1 && ((double *)v.data)[6] == -1);
  BFT_OK(bf_vector_erase(&v, 0, 1, 3));
  BFT_CHECK(v.size == 12 && ((double *)v.data)[3] == -1);
  BFT_OK(bf_vector_erase(&v, 3, 1, 2)); /* back to 0..9 */
  for (int i = 0; i < 10; ++i) BFT_CHECK(((double *)v.data)[i] == i);
  bf_vector s;
  BFT_OK(bf_vector_slice(&v, 9, -3, 4, &s)); /* 9 6 3 0 */
  BFT_CHECK(s.size == 4 && ((double *)s.data)[0] == 9 && ((double *)s.data)[3] == 0);
  BFT_FAILS(bf_vector_slice(&v, 9, -3, 5, &s), BF_ERROR_INDEX);
  BFT_OK(bf_vector_erase(&v, 8, -2, 3)); /* removes 8 6 4 */
  double expect[] = {0, 1, 2, 3, 5, 7, 9};
  BFT_CHECK(v.size == 7);
  for (int i = 0; i < 7; ++i) BFT_CHECK(((double *)v.data)[i] == expect[i]);
  BFT_FAILS(bf_vector_erase(&v, 0, 0, 1), BF_ERROR_VALUE);
  BFT_FAILS(bf_vector_erase(&v, 5, 1, 3), BF_ERROR_INDEX);
  double vals[] = {10, 30};
  BFT_OK(bf_vector_set_strided(&v, 1, 2, 2, vals));
  BFT_CHECK(((double *)v.data)[1] == 10 && ((double *)v.data)[3] == 30);
  BFT_FAILS(bf_vector_set(&v, 7, vals), BF_ERROR_INDEX);
  bool eq;
  BFT_OK(bf_vector_equal(&v, &s, &eq));
  BFT_CHECK(!eq);
  int64_t at, n;
  double x = 30;
  BFT_OK(bf_vector_find(&v, &x, 0, &at));
  BFT_CHECK(at == 3);
  BFT_OK(bf_vector_find(&v, &x, 4, &at));
  BFT_CHECK(at == -1);
  BFT_OK(bf_vector_count(&v, &x, &n));
  BFT_CHECK(n == 1);
  BFT_OK(bf_vector_take(&v, 0, &s));
  BFT_CHECK(v.size == 11 && s.size == 0 && ((double *)v.data)[0] == 9);
  bf_vector ints;
  BFT_OK(bf_vector_init(&ints, BF_VECTOR_INT));
  BFT_FAILS(bf_vector_take(&v, 0, &ints), BF_ERROR_TYPE);
  BFT_FAILS(bf_vector_take(&v, 0, &v), BF_ERROR_VALUE);
  bf_vector_clear(&v);
  BFT_CHECK(v.size == 0);
  bf_vector_free(&v), bf_vector_free(&s), bf_vector_free(&ints);
  bf_vector_free(&v); /* twice is a no-op */
  BFT_FAILS(bf_vector_init(&v, 99), BF_ERROR_VALUE);
  bf_vector_free(&v);
}

static void test_pinned_block_survives_growth(void) {
  bf_vector v;
  BFT_OK(bf_vector_init(&v, BF_VECTOR_LONG));
  int64_t x = 42;
  BFT_OK(bf_vector_push(&v, &x));
  bf_vector_pin(&v);
  const int64_t *view = v.data;
  for (int64_t i = 0; i < 1000; ++i) BFT_OK(bf_vector_push(&v, &i)); /* grows several times */
  BFT_CHECK(v.data != view && view[0] == 42 && v.nretired == 1);     /* still readable (ASan) */
  BFT_CHECK(((int64_t *)v.data)[0] == 42 && ((int64_t *)v.data)[1000] == 999);
  BFT_OK(bf_vector_erase(&v, 0, 1, 500)); /* shrinking never reallocates */
  BFT_CHECK(v.nretired == 1);
  bf_vector_free(&v);
  BFT_CHECK(v.data == NULL && v.retired == NULL);
}

static void test_strings_are_owned(void) {
  bf_vector v;
  BFT_OK(bf_vector_init(&v, BF_VECTOR_STRING));
  char buf[8] = "abc";
  const char *p = buf;
  BFT_OK(bf_vector_push(&v, &p));
  buf[0] = 'x'; /* the vector holds its own copy */
  BFT_CHECK(strcmp(*(char **)bf_vector_at(&v, 0), "abc") == 0);
  const char *more[] = {"d", "abc", "e"};
  BFT_OK(bf_vector_insert(&v, 1, 3, more));
  int64_t n;
  const char *q = "abc";
  BFT_OK(bf_vector_count(&v, &q, &n));
  BFT_CHECK(n == 2 && v.size == 4);
  const char *nul = NULL;
  BFT_FAILS(bf_vector_push(&v, &nul), BF_ERROR_VALUE);
  BFT_CHECK(v.size == 4);
  BFT_OK(bf_vector_set(&v, 0, &more[2]));
  BFT_OK(bf_vector_set_strided(&v, 3, -1, 4, v.data)); /* reverse in place, aliasing */
  const char *expect[] = {"e", "abc", "d", "e"};
  for (int i = 0; i < 4; ++i) BFT_CHECK(strcmp(*(char **)bf_vector_at(&v, i), expect[i]) == 0);
  bf_vector w;
  BFT_OK(bf_vector_slice(&v, 0, 1, 4, &w));
  bool eq;
  BFT_OK(bf_vector_equal(&v, &w, &eq));
  BFT_CHECK(eq);
  bf_vector_free(&v), bf_vector_free(&w); /* ASan: no leak, no double free */
}

static void test_handles_are_retained(void) {
  bf_box boxes[2];
  int lo[3] = {0, 0, 0}, hi[3] = {7, 7, 7}, hi2[3] = {15, 7, 7};
  BFT_OK(bf_box_define(3, lo, hi, 0, &boxes[0]));
  BFT_OK(bf_box_define(3, lo, hi2, 0, &boxes[1]));
  bf_boxarray *a, *b;
  BFT_OK(bf_boxarray_create_from_boxes(3, 2, boxes, &a));
  BFT_OK(bf_boxarray_create_from_boxes(3, 2, boxes, &b));
  bf_vector v;
  BFT_OK(bf_vector_init(&v, BF_VECTOR_BOXARRAY));
  BFT_OK(bf_vector_push(&v, &a));
  BFT_OK(bf_vector_push(&v, &a));
  BFT_CHECK(bf_boxarray_refcount(a) == 3);
  int64_t n;
  BFT_OK(bf_vector_count(&v, &b, &n)); /* equal content, another handle */
  BFT_CHECK(n == 2);
  bf_boxarray *null = NULL;
  BFT_FAILS(bf_vector_push(&v, &null), BF_ERROR_VALUE);
  BFT_OK(bf_vector_set(&v, 0, &b));
  BFT_CHECK(bf_boxarray_refcount(a) == 2 && bf_boxarray_refcount(b) == 2);
  bf_vector_free(&v);
  BFT_CHECK(bf_boxarray_refcount(a) == 1 && bf_boxarray_refcount(b) == 1);
  bf_boxarray_destroy(&a), bf_boxarray_destroy(&b);

  int pmap[] = {0, 0, 0};
  bf_distmap *dm;
  BFT_OK(bf_distmap_create_from_pmap(3, pmap, &dm));
  BFT_OK(bf_vector_init(&v, BF_VECTOR_DISTMAP));
  bf_distmap *empty = NULL;
  BFT_OK(bf_vector_push(&v, &dm));
  BFT_OK(bf_vector_push(&v, &empty)); /* an empty DistributionMapping */
  BFT_CHECK(bf_distmap_refcount(dm) == 2);
  BFT_OK(bf_vector_find(&v, &empty, 0, &n));
  BFT_CHECK(n == 1);
  bf_vector_free(&v);
  BFT_CHECK(bf_distmap_refcount(dm) == 1);
  bf_distmap_destroy(&dm);
}

static void test_geometry_not_comparable(void) {
  bf_vector v;
  BFT_OK(bf_vector_init(&v, BF_VECTOR_GEOMETRY));
  bf_geometry g;
  memset(&g, 0, sizeof g);
  g.dim = 2;
  BFT_OK(bf_vector_push(&v, &g));
  bool eq;
  int64_t n;
  BFT_FAILS(bf_vector_equal(&v, &v, &eq), BF_ERROR_TYPE);
  BFT_FAILS(bf_vector_count(&v, &g, &n), BF_ERROR_TYPE);
  BFT_CHECK(!bf_vector_comparable(BF_VECTOR_GEOMETRY) && bf_vector_comparable(BF_VECTOR_INTVECT));
  bf_vector_free(&v);
}

static void test_idcpu(void) {
  /* reference: the documented bit layout, written out by hand */
  uint64_t packed[] = {((uint64_t)1 << 63) | ((uint64_t)5 << 24) | 3, ((uint64_t)5 << 24) | 0xFFFFFF,
                       UINT64_MAX, 0};
  int64_t ids[4];
  int32_t cpus[4];
  BFT_OK(bf_idcpu_unpack_ids(4, packed, ids));
  BFT_OK(bf_idcpu_unpack_cpus(4, packed, cpus));
  BFT_CHECK(ids[0] == 5 && ids[1] == -5 && ids[2] == BF_IDCPU_MAX_ID && ids[3] == 0);
  BFT_CHECK(cpus[0] == 3 && cpus[1] == 0xFFFFFF && cpus[2] == 0xFFFFFF && cpus[3] == 0);
  BFT_FAILS(bf_idcpu_unpack_ids(-1, packed, ids), BF_ERROR_VALUE);
  uint64_t p;
  for (int64_t id = -3; id <= 3; ++id) {
    BFT_OK(bf_idcpu_pack(id * 1000003, 77, &p));
    BFT_CHECK(bf_idcpu_id(p) == id * 1000003 && bf_idcpu_cpu(p) == 77);
  }
  BFT_FAILS(bf_idcpu_pack(BF_IDCPU_MAX_ID + 1, 0, &p), BF_ERROR_OVERFLOW);
  BFT_FAILS(bf_idcpu_pack(1, BF_IDCPU_MAX_CPU + 1, &p), BF_ERROR_OVERFLOW);
  BFT_FAILS(bf_idcpu_pack(1, -1, &p), BF_ERROR_OVERFLOW);
}

int main(void) {
  BFT_RUN(test_numeric_insert_erase_slice);
  BFT_RUN(test_pinned_block_survives_growth);
  BFT_RUN(test_strings_are_owned);
  BFT_RUN(test_handles_are_retained);
  BFT_RUN(test_geometry_not_comparable);
  BFT_RUN(test_idcpu);
  return bft_report();
}
