/* Ghost exchange and copies between layouts: fill_boundary, sum_boundary,
 * override_sync, average_sync, parallel_copy (see include/boxfab/multifab.h).
 * Each gets its cached plan (fillboundary_plan.c) and runs it through the
 * backend's element-wise kernel, the items of one destination fab in order. */
#include <stdlib.h>
#include <string.h>

#include "fillboundary_impl.h"

static void key_init(bf_plan_key *k, int kind, const bf_multifab *dst, const bf_multifab *src,
                     const bf_intvect *dst_ng, const bf_intvect *src_ng, const bf_periodicity *period, bool cross) {
  memset(k, 0, sizeof *k);
  k->kind = kind;
  k->dst_ba = dst->ba, k->dst_dm = dst->dm;
  k->src_ba = src->ba, k->src_dm = src->dm;
  for (int d = 0; d < dst->dim; ++d) {
    k->dst_ng[d] = dst_ng ? dst_ng->v[d] : 0;
    k->src_ng[d] = src_ng ? src_ng->v[d] : 0;
  }
  if (period) {
    bool any = false;
    for (int d = 0; d < dst->dim; ++d) any |= period->period[d] > 0;
    if (any) {
      k->has_period = true;
      k->period = *period;
      for (int d = dst->dim; d < BF_SPACEDIM_MAX; ++d) k->period.period[d] = 0;
    }
  }
  k->cross = cross;
}

/* Run the plan: dst[dcomp..] op= src[scomp..] over every item. */
static int run_plan(const bf_plan *p, int op, double s0, bf_multifab *dst, const bf_multifab *src, int scomp,
                    int dcomp, int ncomp) {
  if (p->nitems == 0) return BF_SUCCESS;
  bf_ktask *t = calloc((size_t)p->nitems, sizeof *t);
  BF_CHECK(t != NULL, BF_ERROR_MEMORY, "out of memory");
  for (int64_t i = 0; i < p->nitems; ++i) {
    const bf_copy_item *it = &p->items[i];
    bf_box_pad3(&it->region, t[i].lo, t[i].hi);
    memcpy(t[i].shift, it->shift, sizeof t[i].shift);
    bf_mf_kview(dst, it->dst_li, &t[i].a);
    if (src) bf_mf_kview(src, it->src_li, &t[i].b);
  }
  bf_kargs g = {.op = op, .type = bf_ktype_of(dst->dtype), .s0 = s0, .ncomp = ncomp, .acomp = dcomp, .bcomp = scomp};
  const bf_backend *be = bf_mf_backend(dst, src, NULL, "ghost exchange");
  int err = be ? be->elementwise(&g, p->nitems, t, p->ngroups, p->group_start) : -1;
  free(t);
  if (err < 0) return BF_ERROR_VALUE; /* mixed host/device memory: message set */
  BF_CHECK(err == 0, BF_ERROR_MEMORY, "out of memory in the ghost exchange");
  return BF_SUCCESS;
}

static int common_checks(const bf_multifab *mf, int scomp, int ncomp, const bf_intvect *ng,
                         const bf_periodicity *period, const char *what) {
  BF_CALL(bf_mf_check_data(mf));
  BF_CALL(bf_mf_check_comps(mf, scomp, ncomp, what));
  if (ng) BF_CALL(bf_mf_check_ng(mf, *ng, what));
  BF_CALL(bf_mf_check_period(mf, period));
  return BF_SUCCESS;
}

int bf_multifab_fill_boundary(bf_multifab *mf, int scomp, int ncomp, bf_intvect nghost, const bf_periodicity *period,
                              bool cross) {
  BF_CALL(common_checks(mf, scomp, ncomp, &nghost, period, "fill_boundary"));
  bf_plan_key k;
  key_init(&k, BF_PLAN_FILL_BOUNDARY, mf, mf, &nghost, NULL, period, cross);
  bf_plan *p;
  BF_CALL(bf_plan_get(&k, &p));
  int err = run_plan(p, BF_KOP_COPY, 0, mf, mf, scomp, scomp, ncomp);
  bf_plan_done(p);
  return err;
}

int bf_multifab_sum_boundary(bf_multifab *mf, int scomp, int ncomp, bf_intvect src_nghost, bf_intvect dst_nghost,
                             const bf_periodicity *period) {
  BF_CALL(common_checks(mf, scomp, ncomp, &src_nghost, period, "sum_boundary"));
  BF_CALL(bf_mf_check_ng(mf, dst_nghost, "sum_boundary"));
  bf_plan_key k;
  key_init(&k, BF_PLAN_SUM_BOUNDARY, mf, mf, &dst_nghost, &src_nghost, period, false);
  bf_plan *p;
  BF_CALL(bf_plan_get(&k, &p));
  bf_multifab *tmp = NULL;
  int err = p->needs_tmp ? bf_multifab_clone(mf, &tmp) : BF_SUCCESS;
  if (!err) err = run_plan(p, BF_KOP_ADD, 0, mf, tmp ? tmp : mf, scomp, scomp, ncomp);
  bf_multifab_destroy(&tmp);
  bf_plan_done(p);
  return err;
}

int bf_multifab_override_sync(bf_multifab *mf, int scomp, int ncomp, const bf_periodicity *period) {
  BF_CALL(common_checks(mf, scomp, ncomp, NULL, period, "override_sync"));
  bf_plan_key k;
  key_init(&k, BF_PLAN_OVERRIDE_SYNC, mf, mf, NULL, NULL, period, false);
  bf_plan *p;
  BF_CALL(bf_plan_get(&k, &p));
  /* In increasing dst order, one after the other: the sources (lower boxes)
   * already hold their owners' values, and the self images come last. */
  bf_plan serial = *p;
  int64_t gs[2] = {0, p->nitems};
  serial.group_start = gs, serial.ngroups = 1;
  int err = run_plan(&serial, BF_KOP_COPY, 0, mf, mf, scomp, scomp, ncomp);
  bf_plan_done(p);
  return err;
}

int bf_multifab_average_sync(bf_multifab *mf, int scomp, int ncomp, const bf_periodicity *period) {
  BF_CALL(common_checks(mf, scomp, ncomp, NULL, period, "average_sync"));
  BF_CHECK(mf->dtype == BF_DTYPE_DOUBLE, BF_ERROR_TYPE, "average_sync needs double data");
  bf_plan_key k;
  key_init(&k, BF_PLAN_AVERAGE_SYNC, mf, mf, NULL, NULL, period, false);
  bf_plan *p;
  BF_CALL(bf_plan_get(&k, &p));
  bf_multifab *tmp = NULL, *cnt = NULL;
  int err = bf_multifab_clone(mf, &tmp);
  if (!err) err = bf_multifab_create(mf->ba, mf->dm, 1, mf->ngrow, BF_DTYPE_DOUBLE, mf->arena, true, &cnt);
  if (!err) err = bf_multifab_set_val_all(cnt, 1.0);
  if (!err) err = run_plan(p, BF_KOP_ADD, 0, mf, tmp, scomp, scomp, ncomp);
  if (!err) err = run_plan(p, BF_KOP_PLUS_S, 1.0, cnt, NULL, 0, 0, 1);
  for (int n = 0; n < ncomp && !err; ++n) err = bf_multifab_divide(mf, cnt, 0, scomp + n, 1, bf_intvect_splat(mf->dim, 0));
  bf_multifab_destroy(&tmp);
  bf_multifab_destroy(&cnt);
  bf_plan_done(p);
  return err;
}

static int pcopy(int op, bf_multifab *dst, const bf_multifab *src, int scomp, int dcomp, int ncomp,
                 bf_intvect src_ng, bf_intvect dst_ng, const bf_periodicity *period, const char *what) {
  BF_CALL(common_checks(dst, dcomp, ncomp, &dst_ng, period, what));
  BF_CHECK(src != NULL, BF_ERROR_VALUE, "%s: NULL source", what);
  BF_CALL(bf_mf_check_data(src));
  BF_CALL(bf_mf_check_comps(src, scomp, ncomp, what));
  BF_CALL(bf_mf_check_ng(src, src_ng, what));
  BF_CHECK(src->dim == dst->dim, BF_ERROR_TYPE, "%s: MultiFabs of dimensions %d and %d", what, src->dim, dst->dim);
  BF_CHECK(src->dtype == dst->dtype, BF_ERROR_TYPE, "%s: MultiFabs of different element types", what);
  BF_CHECK(bf_multifab_ixtype(src) == bf_multifab_ixtype(dst), BF_ERROR_TYPE,
           "%s: MultiFabs of different index types", what);
  bf_plan_key k;
  key_init(&k, BF_PLAN_COPY, dst, src, &dst_ng, &src_ng, period, false);
  bf_plan *p;
  BF_CALL(bf_plan_get(&k, &p));
  bf_multifab *tmp = NULL;
  int err = src == dst ? bf_multifab_clone(src, &tmp) : BF_SUCCESS;
  if (!err) err = run_plan(p, op, 0, dst, tmp ? tmp : src, scomp, dcomp, ncomp);
  bf_multifab_destroy(&tmp);
  bf_plan_done(p);
  return err;
}

int bf_multifab_parallel_copy(bf_multifab *dst, const bf_multifab *src, int scomp, int dcomp, int ncomp,
                              bf_intvect src_ng, bf_intvect dst_ng, const bf_periodicity *period) {
  return pcopy(BF_KOP_COPY, dst, src, scomp, dcomp, ncomp, src_ng, dst_ng, period, "parallel_copy");
}

int bf_multifab_parallel_add(bf_multifab *dst, const bf_multifab *src, int scomp, int dcomp, int ncomp,
                             bf_intvect src_ng, bf_intvect dst_ng, const bf_periodicity *period) {
  return pcopy(BF_KOP_ADD, dst, src, scomp, dcomp, ncomp, src_ng, dst_ng, period, "parallel_add");
}
