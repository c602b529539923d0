/* The stream and pointer functions of include/boxfab/gpu.h that the Python
 * layer uses to exchange data with other CUDA libraries: bf_gpu_stream_idle,
 * bf_gpu_stream_wait, bf_gpu_wait_stream, bf_gpu_pointer_info.
 *
 * Without a GPU (this includes BOXFAB_DEVICE=cpu) they are no-ops that report
 * host memory; with one, the pointer kinds of every arena are checked and the
 * stream functions are exercised with boxfab's own stream, the legacy default
 * stream ((void *)1) and the per-thread default stream ((void *)2). */
#include "bftest.h"

static void test_without_gpu(void) {
  if (bf_gpu_available()) return;
  BFT_CHECK(bf_gpu_stream_idle());
  BFT_OK(bf_gpu_stream_wait((void *)1));
  BFT_OK(bf_gpu_wait_stream((void *)2));
  double x = 1;
  int kind = -7, dev = -7;
  BFT_OK(bf_gpu_pointer_info(&x, &kind, &dev));
  BFT_CHECK(kind == BF_GPU_MEMORY_HOST && dev == -1);
  BFT_OK(bf_gpu_pointer_info(NULL, NULL, NULL));
  /* every arena is host memory */
  for (int k = 0; k < BF_ARENA_NKINDS; ++k) {
    void *p = NULL;
    BFT_OK(bf_arena_alloc(bf_arena_get(k), 64, &p));
    BFT_OK(bf_gpu_pointer_info(p, &kind, &dev));
    BFT_CHECK(kind == BF_GPU_MEMORY_HOST);
    bf_arena_free(bf_arena_get(k), p, 64);
  }
}

static void check_kind(int arena_kind, int expect) {
  void *p = NULL;
  BFT_OK(bf_arena_alloc(bf_arena_get(arena_kind), 4096, &p));
  int kind = -7, dev = -7;
  BFT_OK(bf_gpu_pointer_info(p, &kind, &dev));
  BFT_CHECK(kind == expect);
  BFT_CHECK(expect == BF_GPU_MEMORY_HOST ? dev == -1 : dev == bf_gpu_device_id());
  /* an interior pointer is the same memory */
  BFT_OK(bf_gpu_pointer_info((char *)p + 100, &kind, NULL));
  BFT_CHECK(kind == expect);
  BFT_OK(bf_gpu_synchronize());
  bf_arena_free(bf_arena_get(arena_kind), p, 4096);
}

static void test_with_gpu(void) {
  if (!bf_gpu_available()) return;
  check_kind(BF_ARENA_DEFAULT, BF_GPU_MEMORY_DEVICE);
  check_kind(BF_ARENA_DEVICE, BF_GPU_MEMORY_DEVICE);
  check_kind(BF_ARENA_MANAGED, BF_GPU_MEMORY_MANAGED);
  check_kind(BF_ARENA_PINNED, BF_GPU_MEMORY_PINNED);
  check_kind(BF_ARENA_CPU, BF_GPU_MEMORY_HOST);
  double x = 0;
  int kind;
  BFT_OK(bf_gpu_pointer_info(&x, &kind, NULL));
  BFT_CHECK(kind == BF_GPU_MEMORY_HOST);
  /* a copy through boxfab's stream, then waits in both directions */
  void *d = NULL;
  BFT_OK(bf_arena_alloc(bf_arena_get(BF_ARENA_DEVICE), 1 << 20, &d));
  static char h[1 << 20];
  for (int i = 0; i < (1 << 20); ++i) h[i] = (char)(i * 7);
  BFT_OK(bf_gpu_memcpy(d, h, sizeof h));
  BFT_OK(bf_gpu_stream_wait((void *)1));
  BFT_OK(bf_gpu_stream_wait((void *)2));
  BFT_OK(bf_gpu_stream_wait(bf_gpu_stream())); /* itself: nothing to do */
  BFT_OK(bf_gpu_wait_stream((void *)1));
  BFT_OK(bf_gpu_wait_stream((void *)2));
  BFT_OK(bf_gpu_synchronize());
  BFT_CHECK(bf_gpu_stream_idle());
  static char back[1 << 20];
  BFT_OK(bf_gpu_memcpy(back, d, sizeof back));
  BFT_CHECK(memcmp(back, h, sizeof h) == 0);
  bf_arena_free(bf_arena_get(BF_ARENA_DEVICE), d, 1 << 20);
  BFT_OK(bf_gpu_synchronize());
}

int main(void) {
  BFT_RUN(test_without_gpu);
  BFT_RUN(test_with_gpu);
  return bft_report();
}
