/* Volume-weighted sync of nodal data (see include/boxfab/multifab.h). */
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
