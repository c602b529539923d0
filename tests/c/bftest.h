/* A tiny C test harness: each test_*.c file is one ctest executable.
 *
 *   static void test_something(void) { BFT_CHECK(x == 1); BFT_OK(bf_call(...)); }
 *   int main(void) { BFT_RUN(test_something); return bft_report(); }
 */
#ifndef BOXFAB_BFTEST_H
#define BOXFAB_BFTEST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boxfab/boxfab.h"

static int bft_failures, bft_checks;

#define BFT_CHECK(cond)                                                                                          \
  do {                                                                                                           \
    ++bft_checks;                                                                                                \
    if (!(cond)) {                                                                                               \
      ++bft_failures;                                                                                            \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                                   \
    }                                                                                                            \
  } while (0)

/* The call must succeed. */
#define BFT_OK(call)                                                                                             \
  do {                                                                                                           \
    int bft_s_ = (call);                                                                                         \
    ++bft_checks;                                                                                                \
    if (bft_s_ != BF_SUCCESS) {                                                                                  \
      ++bft_failures;                                                                                            \
      fprintf(stderr, "%s:%d: %s returned %d: %s\n", __FILE__, __LINE__, #call, bft_s_, bf_error_message());     \
    }                                                                                                            \
  } while (0)

/* The call must fail with `code` and leave a non-empty message. */
#define BFT_FAILS(call, code)                                                                                    \
  do {                                                                                                           \
    bf_error_clear();                                                                                            \
    int bft_s_ = (call);                                                                                         \
    ++bft_checks;                                                                                                \
    if (bft_s_ != (code) || bf_error_message()[0] == '\0') {                                                     \
      ++bft_failures;                                                                                            \
      fprintf(stderr, "%s:%d: %s returned %d (expected %d), message \"%s\"\n", __FILE__, __LINE__, #call, bft_s_, \
              (int)(code), bf_error_message());                                                                  \
    }                                                                                                            \
    bf_error_clear();                                                                                            \
  } while (0)

#define BFT_RUN(fn)                                                                                              \
  do {                                                                                                           \
    int bft_before_ = bft_failures;                                                                              \
    fn();                                                                                                        \
    printf("%s %s\n", bft_failures == bft_before_ ? "ok  " : "FAIL", #fn);                                       \
  } while (0)

static inline int bft_report(void) {
  printf("%d checks, %d failed\n", bft_checks, bft_failures);
  return bft_failures ? 1 : 0;
}

/* Programs that also run under mpirun: the runtime started quietly (exit
 * status 1 when it cannot start), this rank and the number of ranks. */
static inline void bft_ranks_start(int *nprocs, int *me) {
  uint64_t id = 0;
  const char *quiet[] = {"amrex.verbose=0"};
  if (bf_runtime_initialize(1, quiet, &id) != BF_SUCCESS) {
    fprintf(stderr, "initialize failed: %s\n", bf_error_message());
    exit(1);
  }
  *nprocs = bf_parallel_nprocs();
  *me = bf_parallel_myproc();
}

/* Every rank's verdict, while the runtime runs: one rank's failure fails all. */
static inline void bft_ranks_agree(void) {
  int64_t failed = bft_failures;
  bf_parallel_reduce_int64(&failed, 1, 0, -1);
  if (failed && !bft_failures) ++bft_failures;
}

/* main's exit status: rank 0 reports. */
static inline int bft_ranks_report(int me) { return me == 0 ? bft_report() : (bft_failures ? 1 : 0); }

#endif
