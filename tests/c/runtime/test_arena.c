/* Arenas, buffers and fabs. */
#include "mftest.h"

static void test_arena_flags_and_names(void) {
  const char *names[] = {"The_Arena", "The_Cpu_Arena", "The_Pinned_Arena", "The_Managed_Arena", "The_Device_Arena",
                         "The_Async_Arena"};
  for (int k = 0; k < BF_ARENA_NKINDS; ++k) {
    bf_arena *a = bf_arena_get(k);
    BFT_CHECK(a != NULL && a == bf_arena_get(k) && bf_arena_kind_of(a) == k);
    BFT_CHECK(strcmp(bf_arena_name(a), names[k]) == 0);
    /* no GPU: host memory, and the flags say so */
    BFT_CHECK(bf_arena_is_host_accessible(a) && !bf_arena_is_device(a) && !bf_arena_is_managed(a));
    BFT_CHECK(!bf_arena_is_pinned(a) && !bf_arena_is_stream_ordered(a) && !bf_arena_is_device_accessible(a));
    BFT_CHECK(bf_arena_has_free_device_memory(a, 1 << 20));
  }
  BFT_CHECK(bf_arena_get(-1) == NULL && bf_arena_get(BF_ARENA_NKINDS) == NULL);
}

static void test_size_classes(void) {
  BFT_CHECK(bf_arena_class_size(1) == 64 && bf_arena_class_size(64) == 64 && bf_arena_class_size(65) == 128);
  for (size_t n = 1; n < 5000000; n = n * 3 + 7) {
    size_t c = bf_arena_class_size(n);
    BFT_CHECK(c >= n && c % 64 == 0 && (n < 256 || c <= n + n / 4 + 64));
  }
}

static void test_pool_reuse_and_stats(void) {
  bf_arena *a = bf_arena_get(BF_ARENA_PINNED);
  bf_arena_trim(a);
  bf_arena_stats s0, s1;
  bf_arena_get_stats(a, &s0);
  void *p = NULL, *q = NULL;
  BFT_OK(bf_arena_alloc(a, 1000, &p));
  BFT_CHECK(((uintptr_t)p % 64) == 0);
  memset(p, 7, 1000);
  bf_arena_get_stats(a, &s1);
  BFT_CHECK(s1.bytes_in_use == s0.bytes_in_use + 1000 && s1.n_live == s0.n_live + 1);
  bf_arena_free(a, p, 1000);
  BFT_OK(bf_arena_alloc(a, 990, &q)); /* same class: the block comes back */
  BFT_CHECK(q == p);
  bf_arena_get_stats(a, &s1);
  BFT_CHECK(s1.n_reused == s0.n_reused + 1);
  bf_arena_free(a, q, 990);
  bf_arena_get_stats(a, &s1);
  BFT_CHECK(s1.bytes_cached >= 1000 && s1.bytes_in_use == s0.bytes_in_use);
  BFT_CHECK(bf_arena_trim(a) >= 1000);
  bf_arena_get_stats(a, &s1);
  BFT_CHECK(s1.bytes_cached == 0);
  BFT_FAILS(bf_arena_alloc(a, 0, &p), BF_ERROR_VALUE);
  BFT_FAILS(bf_arena_alloc(a, SIZE_MAX / 2, &p), BF_ERROR_MEMORY);
  FILE *f = tmpfile();
  bf_arena_print_usage(f, "usage");
  long len = ftell(f);
  BFT_CHECK(len > 0);
  rewind(f);
  char line[256] = "";
  BFT_CHECK(fgets(line, sizeof line, f) && strncmp(line, "usage", 5) == 0);
  BFT_CHECK(fgets(line, sizeof line, f) && strstr(line, "in use"));
  fclose(f);
}

static int released;
static void on_release(void *ctx) { released += *(int *)ctx; }

static void test_buffers(void) {
  bf_buffer *b = NULL;
  BFT_OK(bf_buffer_create(NULL, 256, &b));
  BFT_CHECK(bf_buffer_nbytes(b) == 256 && bf_buffer_is_owned(b) && bf_buffer_arena(b) == bf_arena_get(0));
  bf_buffer *c = bf_buffer_retain(b);
  BFT_CHECK(bf_buffer_refcount(b) == 2);
  bf_buffer_destroy(&c);
  BFT_CHECK(c == NULL && bf_buffer_refcount(b) == 1);
  bf_buffer_destroy(&b);
  double ext[4];
  int one = 1;
  released = 0;
  BFT_OK(bf_buffer_create_external(ext, sizeof ext, NULL, on_release, &one, &b));
  BFT_CHECK(!bf_buffer_is_owned(b) && bf_buffer_data(b) == ext);
  bf_buffer_destroy(&b);
  BFT_CHECK(released == 1);
  BFT_OK(bf_buffer_create(NULL, 0, &b));
  BFT_CHECK(bf_buffer_data(b) == NULL);
  bf_buffer_destroy(&b);
}

static void test_fabs(void) {
  bf_box bx = mkbox(3, -1, 0, 2, 2, 4, 3, 0);
  bf_fab *f = NULL;
  BFT_OK(bf_fab_create(&bx, 2, BF_DTYPE_DOUBLE, NULL, &f));
  int64_t s[3];
  bf_fab_strides(f, s);
  BFT_CHECK(s[0] == 4 && s[1] == 20 && s[2] == 40);
  BFT_CHECK(bf_fab_num_pts(f) == 40 && bf_fab_size(f) == 80 && bf_fab_n_bytes(f) == 640);
  BFT_CHECK(bf_fab_n_bytes_owned(f) == 640 && bf_fab_is_allocated(f));
  int p[3] = {1, 2, 3};
  int64_t off;
  BFT_OK(bf_fab_offset(f, p, 1, &off));
  BFT_CHECK(off == 2 + 2 * 4 + 1 * 20 + 40);
  int q[3] = {3, 0, 2};
  BFT_FAILS(bf_fab_offset(f, q, 0, &off), BF_ERROR_INDEX);
  BFT_FAILS(bf_fab_offset(f, p, 2, &off), BF_ERROR_INDEX);
  bf_box small = mkbox(3, 0, 0, 0, 1, 1, 1, 0);
  size_t nb = 0;
  BFT_OK(bf_fab_n_bytes_box(f, &small, 3, &nb));
  BFT_CHECK(nb == 8 * 3 * sizeof(double));
  /* 2^61 points * 8 bytes = 2^64: an overflow, never a wrapped 0 */
  bf_box huge = mkbox(3, 0, 0, 0, (1 << 21) - 1, (1 << 20) - 1, (1 << 20) - 1, 0);
  BFT_FAILS(bf_fab_n_bytes_box(f, &huge, 1, &nb), BF_ERROR_OVERFLOW);
  BFT_FAILS(bf_fab_n_bytes_box(f, &small, -1, &nb), BF_ERROR_VALUE);
  BFT_OK(bf_fab_n_bytes_box(f, &small, 0, &nb));
  BFT_CHECK(nb == 0);
  bf_fab *none = NULL;
  BFT_FAILS(bf_fab_create(&huge, 1, BF_DTYPE_DOUBLE, NULL, &none), BF_ERROR_OVERFLOW);
  /* a view of the buffer survives resize and clear */
  bf_buffer *view = bf_buffer_retain(bf_fab_buffer(f));
  ((double *)bf_fab_data(f))[0] = 3.5;
  BFT_OK(bf_fab_resize(f, &small, 1, bf_arena_get(BF_ARENA_CPU)));
  BFT_CHECK(bf_fab_num_pts(f) == 8 && bf_fab_arena(f) == bf_arena_get(BF_ARENA_CPU));
  BFT_CHECK(((double *)bf_buffer_data(view))[0] == 3.5);
  bf_fab_clear(f);
  BFT_CHECK(!bf_fab_is_allocated(f) && bf_fab_n_bytes(f) == 0);
  bf_buffer_destroy(&view);
  bf_fab_destroy(&f);
  BFT_CHECK(f == NULL);
  /* aliases */
  int data[2 * 3 * 2];
  int one = 1;
  released = 0;
  bf_box b2 = mkbox(2, 0, 0, 0, 1, 2, 0, 0);
  BFT_OK(bf_fab_create_alias(&b2, 2, BF_DTYPE_INT, data, NULL, on_release, &one, &f));
  BFT_CHECK(bf_fab_data(f) == data && bf_fab_n_bytes_owned(f) == 0 && bf_fab_n_bytes(f) == sizeof data);
  bf_fab *g = bf_fab_retain(f);
  bf_fab_destroy(&f);
  BFT_CHECK(released == 0);
  bf_fab_destroy(&g);
  BFT_CHECK(released == 1);
  int64_t st[3] = {4, 12, 1};
  BFT_OK(bf_fab_create_alias(&b2, 2, BF_DTYPE_INT, data, st, NULL, NULL, &f));
  bf_fab_strides(f, s);
  BFT_CHECK(s[0] == 4 && s[1] == 12 && s[2] == 1);
  bf_fab_destroy(&f);
  /* errors */
  BFT_FAILS(bf_fab_create(&bx, 0, BF_DTYPE_DOUBLE, NULL, &f), BF_ERROR_VALUE);
  BFT_FAILS(bf_fab_create(&bx, 1, 9, NULL, &f), BF_ERROR_VALUE);
  bf_box empty = mkbox(3, 1, 0, 0, 0, 0, 0, 0);
  BFT_FAILS(bf_fab_create(&empty, 1, BF_DTYPE_DOUBLE, NULL, &f), BF_ERROR_VALUE);
  BFT_FAILS(bf_fab_create_alias(&bx, 1, BF_DTYPE_DOUBLE, NULL, NULL, NULL, NULL, &f), BF_ERROR_VALUE);
  BFT_OK(bf_fab_create_empty(2, BF_DTYPE_DOUBLE, NULL, &f));
  BFT_CHECK(!bf_fab_is_allocated(f) && bf_fab_num_pts(f) == 0);
  BFT_FAILS(bf_fab_resize(f, &bx, 1, NULL), BF_ERROR_TYPE);
  BFT_OK(bf_fab_resize(f, &b2, 1, NULL));
  BFT_CHECK(bf_fab_num_pts(f) == 6);
  bf_fab_destroy(&f);
}

int main(void) {
  BFT_RUN(test_arena_flags_and_names);
  BFT_RUN(test_size_classes);
  BFT_RUN(test_pool_reuse_and_stats);
  BFT_RUN(test_buffers);
  BFT_RUN(test_fabs);
  return bft_report();
}
