/* Shared by the GPU C tests: the checks that boxfab runs entirely on the CPU
 * when no GPU is used (no device, no driver, a build without CUDA, or
 * BOXFAB_DEVICE=cpu). */
#ifndef BOXFAB_GPUTEST_H
#define BOXFAB_GPUTEST_H

#include "boxfab/gpu.h"
#include "mftest.h"

static inline void check_cpu_fallback(void) {
  BFT_CHECK(!bf_gpu_available());
  BFT_CHECK(bf_gpu_backend_name() == NULL);
  BFT_CHECK(bf_gpu_device_count() == 0);
  BFT_CHECK(bf_gpu_device_id() == -1);
  BFT_CHECK(bf_gpu_stream() == NULL);
  BFT_OK(bf_gpu_synchronize());
  BFT_CHECK(bf_gpu_debug_alloc_count() == 0);
  size_t fr = 1, tot = 1;
  BFT_OK(bf_gpu_memory_info(&fr, &tot));
  BFT_CHECK(fr == 0 && tot == 0);
  BFT_CHECK(bf_build_has_cuda() == (BOXFAB_HAVE_CUDA != 0));
  /* every arena is plain host memory and says so */
  for (int k = 0; k < BF_ARENA_NKINDS; ++k) {
    bf_arena *a = bf_arena_get(k);
    BFT_CHECK(bf_arena_is_host_accessible(a));
    BFT_CHECK(!bf_arena_is_device_accessible(a));
    BFT_CHECK(!bf_arena_is_device(a));
    BFT_CHECK(!bf_arena_is_managed(a));
    BFT_CHECK(!bf_arena_is_pinned(a));
    BFT_CHECK(!bf_arena_is_stream_ordered(a));
    BFT_CHECK(bf_arena_has_free_device_memory(a, (size_t)1 << 40));
    /* and the host can use it */
    void *p = NULL;
    BFT_OK(bf_arena_alloc(a, 1000, &p));
    if (p) {
      memset(p, 7, 1000);
      BFT_CHECK(((unsigned char *)p)[999] == 7);
    }
    bf_arena_free(a, p, 1000);
  }
  /* bf_gpu_memcpy is a plain memmove (overlap allowed) */
  char buf[16] = "abcdefghijklmno";
  BFT_OK(bf_gpu_memcpy(buf + 1, buf, 8));
  BFT_CHECK(memcmp(buf, "aabcdefghjklmno", 15) == 0);
  BFT_OK(bf_gpu_memcpy(NULL, NULL, 0));
  BFT_FAILS(bf_gpu_memcpy(NULL, buf, 4), BF_ERROR_VALUE);
  /* a MultiFab in The_Arena is host memory: operations run on the CPU and the host reads the results */
  bf_boxarray *ba = chop_domain(3, 16, 8, 0);
  bf_multifab *mf = make_mf(ba, 2, 1, BF_DTYPE_DOUBLE);
  BFT_OK(bf_multifab_set_val_all(mf, 1.5));
  BFT_OK(bf_multifab_mult_scalar(mf, 2.0, NULL, 0, 2, iv3(3, 1, 1, 1)));
  int p0[3] = {-1, -1, -1};
  BFT_CHECK(mf_get(mf, 0, p0, 1) == 3.0);
  double s = 0;
  BFT_OK(bf_multifab_sum(mf, NULL, 0, false, &s));
  BFT_CHECK(s == 3.0 * 16 * 16 * 16);
  bf_multifab_destroy(&mf);
  bf_boxarray_destroy(&ba);
}

#endif
