/* The parallel descriptor and the reductions of the public API, on one
 * process (ctest's plain run) and under mpirun -n 2 / 4 (test_parallel_mpi2,
 * _mpi4 where MPI was found): every rank checks the same results. */
#include <math.h>
#include <stdlib.h>

#include "bftest.h"

static int nprocs, me;

static void test_descriptor(void) {
  BFT_CHECK(nprocs >= 1 && me >= 0 && me < nprocs);
  BFT_CHECK(bf_parallel_ioprocessor_number() == 0);
  BFT_CHECK(bf_parallel_uses_mpi() == (getenv("OMPI_COMM_WORLD_SIZE") != NULL || getenv("PMI_SIZE") != NULL));
  if (!bf_parallel_uses_mpi()) {
    int64_t h = 0;
    BFT_FAILS(bf_parallel_communicator(&h), BF_ERROR_RUNTIME);
    BFT_CHECK(nprocs == 1);
  } else {
    int64_t h = -5;
    BFT_OK(bf_parallel_communicator(&h));
    BFT_CHECK(h >= 0);
  }
  BFT_OK(bf_parallel_barrier());
}

static void test_reductions(void) {
  double v[3] = {0.1 * (me + 1), (double)me, -(double)me};
  BFT_OK(bf_parallel_reduce_double(v, 3, 0, -1));
  double expect = 0.0; /* added in rank order: bitwise the same */
  for (int r = 0; r < nprocs; ++r) expect += 0.1 * (r + 1);
  BFT_CHECK(v[0] == expect);
  BFT_CHECK(v[1] == nprocs * (nprocs - 1) / 2.0 && v[2] == -nprocs * (nprocs - 1) / 2.0);
  double m[2] = {(double)me, (double)me};
  BFT_OK(bf_parallel_reduce_double(&m[0], 1, 1, -1));
  BFT_OK(bf_parallel_reduce_double(&m[1], 1, 2, -1));
  BFT_CHECK(m[0] == 0.0 && m[1] == nprocs - 1);
  int64_t big[2] = {INT64_C(1) << 40, me == 0};
  BFT_OK(bf_parallel_reduce_int64(big, 2, 0, -1));
  BFT_CHECK(big[0] == nprocs * (INT64_C(1) << 40) && big[1] == 1);
  int64_t land = me == 0, lor = me == nprocs - 1;
  BFT_OK(bf_parallel_reduce_int64(&land, 1, 3, -1));
  BFT_OK(bf_parallel_reduce_int64(&lor, 1, 4, -1));
  BFT_CHECK(land == (nprocs == 1) && lor == 1);
  /* to a root: the root has the result, the others keep their value */
  int64_t one = 1;
  BFT_OK(bf_parallel_reduce_int64(&one, 1, 0, nprocs - 1));
  BFT_CHECK(one == (me == nprocs - 1 ? nprocs : 1));
  /* bad arguments, the same on every rank: no rank communicates */
  BFT_FAILS(bf_parallel_reduce_double(v, 1, 5, -1), BF_ERROR_VALUE);
  BFT_FAILS(bf_parallel_reduce_int64(&one, 1, -1, -1), BF_ERROR_VALUE);
  BFT_FAILS(bf_parallel_reduce_int64(&one, 1, 0, nprocs), BF_ERROR_VALUE);
  char buf[16] = {0};
  if (me == 0) snprintf(buf, sizeof buf, "from rank 0");
  BFT_OK(bf_parallel_bcast(buf, sizeof buf, 0));
  BFT_CHECK(strcmp(buf, "from rank 0") == 0);
}

static void test_missing_ranks_refused(void) {
  bf_box b;
  BFT_OK(bf_box_define(3, (int[]){0, 0, 0}, (int[]){7, 7, 7}, 0, &b));
  bf_boxarray *ba = NULL;
  BFT_OK(bf_boxarray_create_box(&b, &ba));
  int pmap[1] = {nprocs};
  bf_distmap *dm = NULL;
  BFT_OK(bf_distmap_create_from_pmap(1, pmap, &dm));
  bf_multifab *mf = NULL;
  bf_intvect ng = bf_intvect_splat(3, 0);
  BFT_FAILS(bf_multifab_create(ba, dm, 1, ng, BF_DTYPE_DOUBLE, NULL, true, &mf), BF_ERROR_VALUE);
  BFT_CHECK(mf == NULL);
  bf_distmap_destroy(&dm);
  /* a balanced map names the ranks that exist */
  BFT_OK(bf_distmap_create_balanced(ba, nprocs, BF_DISTMAP_SFC, &dm));
  BFT_OK(bf_multifab_create(ba, dm, 1, ng, BF_DTYPE_DOUBLE, NULL, true, &mf));
  BFT_CHECK(bf_multifab_nlocal(mf) == (me == 0 ? 1 : 0));
  bf_multifab_destroy(&mf);
  bf_distmap_destroy(&dm);
  bf_boxarray_destroy(&ba);
}

static void test_comm_refused_when_serial(void) {
  if (bf_parallel_uses_mpi()) return;
  /* one process without a launcher: no MPI was started, so no communicator can be named */
  uint64_t id = 0;
  int expect = bf_build_has_mpi() ? BF_ERROR_RUNTIME : BF_ERROR_UNSUPPORTED;
  BFT_FAILS(bf_runtime_initialize_comm(3, 0, NULL, 0, &id), expect);
  BFT_CHECK(bf_runtime_size() == 1);
}

int main(void) {
  bft_ranks_start(&nprocs, &me);
  BFT_RUN(test_descriptor);
  BFT_RUN(test_reductions);
  BFT_RUN(test_missing_ranks_refused);
  BFT_RUN(test_comm_refused_when_serial);
  bft_ranks_agree();
  bf_runtime_finalize();
  return bft_ranks_report(me);
}
