/* boxfab without a GPU: CMake runs this test with BOXFAB_DEVICE=cpu in CUDA
 * builds (and it needs nothing in builds without CUDA), so on every machine it
 * checks that no GPU is used, every arena is host memory and the MultiFab
 * operations run on the CPU. */
#include <stdlib.h>

#include "gputest.h"

static void test_cpu_fallback(void) { check_cpu_fallback(); }

int main(void) {
  const char *dev = getenv("BOXFAB_DEVICE");
  if (BOXFAB_HAVE_CUDA && !(dev && strcmp(dev, "cpu") == 0)) {
    printf("skipped: a CUDA build needs BOXFAB_DEVICE=cpu for this test (CMake sets it)\n");
    return 77;
  }
  uint64_t id;
  BFT_OK(bf_runtime_initialize(0, NULL, &id));
  BFT_RUN(test_cpu_fallback);
  bf_runtime_finalize();
  return bft_report();
}
