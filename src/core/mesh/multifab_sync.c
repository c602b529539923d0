/* Volume-weighted sync of nodal data, and whole-fab copies between any kinds
 * of memory (see include/boxfab/multifab.h). */
#include "boxfab/gpu.h"
#include "boxfab/multifab.h"

int bf_multifab_weighted_sync(bf_multifab *mf, const bf_multifab *wgt, const bf_periodicity *period) {
  BF_CALL(bf_multifab_check(mf));
  BF_CALL(bf_multifab_check(wgt));
  BF_CHECK(bf_multifab_dtype(mf) == BF_DTYPE_DOUBLE && bf_multifab_dtype(wgt) == BF_DTYPE_DOUBLE, BF_ERROR_TYPE,
           "weighted_sync needs double data");
  BF_CALL(bf_multifab_check_compatible(mf, wgt, "weighted_sync"));
  if (bf_multifab_is_all_cell_centered(mf)) return BF_SUCCESS; /* no shared points */
  const int ncomp = bf_multifab_ncomp(mf);
  const bf_intvect zero = bf_intvect_splat(bf_multifab_dim(mf), 0);
  /* every copy of a point is weighted ... */
  for (int comp = 0; comp < ncomp; ++comp) BF_CALL(bf_multifab_multiply(mf, wgt, 0, comp, 1, zero));
  /* ... then each copy gets the sum of all copies (including periodic images) */
  bf_multifab *sum = NULL;
  BF_CALL(bf_multifab_create(bf_multifab_boxarray(mf), bf_multifab_distmap(mf), ncomp, zero, BF_DTYPE_DOUBLE,
                             bf_multifab_arena(mf), true, &sum));
  int ierr = bf_multifab_set_val_all(sum, 0.0);
  if (!ierr) ierr = bf_multifab_parallel_add(sum, mf, 0, 0, ncomp, zero, zero, period);
  if (!ierr) ierr = bf_multifab_copy(mf, sum, 0, 0, ncomp, zero);
  bf_multifab_destroy(&sum);
  return ierr;
}

int bf_multifab_memcpy(bf_multifab *dst, const bf_multifab *src, int scomp, int dcomp, int ncomp) {
  BF_CALL(bf_multifab_check(dst));
  BF_CALL(bf_multifab_check(src));
  BF_CALL(bf_multifab_check_compatible(dst, src, "memcpy"));
  BF_CHECK(bf_multifab_dtype(dst) == bf_multifab_dtype(src), BF_ERROR_TYPE,
           "memcpy: MultiFabs of different element types");
  bf_intvect gs = bf_multifab_ngrow(src), gd = bf_multifab_ngrow(dst);
  BF_CHECK(bf_intvect_equal(&gs, &gd), BF_ERROR_VALUE, "memcpy: the MultiFabs must have the same ghost widths");
  /* written as differences: scomp + ncomp would wrap for values near INT_MAX */
  const int sn = bf_multifab_ncomp(src), dn = bf_multifab_ncomp(dst);
  BF_CHECK(ncomp >= 0, BF_ERROR_INDEX, "memcpy: number of components must be >= 0, got %d", ncomp);
  BF_CHECK(scomp >= 0 && scomp <= sn && ncomp <= sn - scomp, BF_ERROR_INDEX,
           "memcpy: components [%d, %lld) of src out of range (it has %d)", scomp, (long long)scomp + ncomp, sn);
  BF_CHECK(dcomp >= 0 && dcomp <= dn && ncomp <= dn - dcomp, BF_ERROR_INDEX,
           "memcpy: components [%d, %lld) of dest out of range (it has %d)", dcomp, (long long)dcomp + ncomp, dn);
  BF_CHECK(bf_multifab_is_allocated(dst) && bf_multifab_is_allocated(src), BF_ERROR_RUNTIME,
           "memcpy: a MultiFab holds no data");
  const size_t es = bf_dtype_size(bf_multifab_dtype(dst));
  /* components are contiguous blocks of nstride elements: one copy per fab */
  for (int64_t li = 0; li < bf_multifab_nlocal(dst); ++li) {
    bf_mf_fab d, s;
    BF_CALL(bf_multifab_local_fab(dst, li, &d));
    BF_CALL(bf_multifab_local_fab(src, li, &s));
    const int64_t n = d.stride[2];
    BF_CALL(bf_gpu_memcpy((char *)d.data + (size_t)((int64_t)dcomp * n) * es,
                          (const char *)s.data + (size_t)((int64_t)scomp * n) * es, (size_t)((int64_t)ncomp * n) * es));
  }
  return BF_SUCCESS;
}
