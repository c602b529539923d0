/* Ghost exchange and copies between layouts: fill_boundary, sum_boundary,
 * override_sync, average_sync, parallel_copy (see include/boxfab/multifab.h),
 * and the overlap counts of the norms with a Periodicity (bf_mf_overlap_mask).
 * Each gets its cached plan (fillboundary_plan.c), compiled once per pair of
 * fab shapes into block copies (bf_xtask), and runs it through the backend's
 * exchange kernel: no allocation per call (except the staging buffer of runs
 * that read what they write), the items of one destination fab in order,
 * destination fabs on concurrent threads. */
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

/* Backends without an exchange kernel (CUDA): the plan's items as
 * element-wise tasks, the items of one destination fab in order (`serial`:
 * all in plan order); `stage` reads the sources from a copy.  The tasks and
 * the backend's device form of them are kept with the plan (relative to the
 * MultiFabs' buffers, bf_plan_glist_get): a repeated exchange only launches. */
static int run_plan_elementwise(const bf_backend *be, bf_plan *p, int op, double s0, bf_multifab *dst,
                                const bf_multifab *src, int scomp, int dcomp, int ncomp, bool stage, bool serial) {
  bf_multifab *tmp = NULL;
  if (stage && src) {
    BF_CALL(bf_multifab_clone(src, &tmp));
    src = tmp;
  }
  bf_kargs g = {.op = op, .type = bf_ktype_of(dst->dtype), .s0 = s0, .ncomp = ncomp, .acomp = dcomp, .bcomp = scomp};
  const bf_plan_glist *kept = NULL;
  if (be->prepare) {
    int e = bf_plan_glist_get(p, be, &g, dst, src, serial, &kept);
    if (e) {
      bf_multifab_destroy(&tmp);
      return e;
    }
  }
  if (kept) {
    g.abase = (uintptr_t)bf_buffer_data(dst->buffer);
    g.bbase = src ? (uintptr_t)bf_buffer_data(src->buffer) : 0;
    int err = be->run_elementwise(kept->handle, &g);
    bf_multifab_destroy(&tmp);
    BF_CHECK(err == 0, BF_ERROR_MEMORY, "out of memory in the ghost exchange");
    return BF_SUCCESS;
  }
  bf_ktask *t = calloc((size_t)p->nitems, sizeof *t);
  if (!t) {
    bf_multifab_destroy(&tmp);
    BF_ERROR(BF_ERROR_MEMORY, "out of memory in the ghost exchange");
  }
  for (int64_t i = 0; i < p->nitems; ++i) {
    const bf_copy_item *it = &p->items[i];
    bf_box_pad3(&it->region, t[i].lo, t[i].hi);
    memcpy(t[i].shift, it->shift, sizeof t[i].shift);
    bf_mf_kview(dst, it->dst_li, &t[i].a);
    if (src) bf_mf_kview(src, it->src_li, &t[i].b);
  }
  int64_t all[2] = {0, p->nitems};
  int err = be->elementwise(&g, p->nitems, t, serial ? 1 : p->ngroups, serial ? all : p->group_start);
  free(t);
  bf_multifab_destroy(&tmp);
  BF_CHECK(err == 0, BF_ERROR_MEMORY, "out of memory in the ghost exchange");
  return BF_SUCCESS;
}

/* Run the plan: dst[dcomp..] op= src[scomp..] over every item (src NULL for
 * PLUS_S).  `stage`: the sources are read through a staging buffer first
 * (all reads before any write), for runs whose items read points that
 * others write.  `serial`: all items in plan order on one thread. */
static int run_plan(bf_plan *p, int op, double s0, bf_multifab *dst, const bf_multifab *src, int scomp, int dcomp,
                    int ncomp, bool stage, bool serial) {
  if (p->nitems == 0) return BF_SUCCESS;
  const bf_backend *be = bf_mf_backend(dst, src, NULL, "ghost exchange");
  if (!be) return BF_ERROR_VALUE; /* host-only and device-only memory mixed: message set */
  if (!be->exchange) return run_plan_elementwise(be, p, op, s0, dst, src, scomp, dcomp, ncomp, stage, serial);
  const bf_plan_exec *e;
  BF_CALL(bf_plan_exec_get(p, dst, src, &e));
  bf_xargs g = {.op = op, .type = bf_ktype_of(dst->dtype), .s0 = s0, .ncomp = ncomp, .dcomp = dcomp, .scomp = scomp,
                .dbase = bf_buffer_data(dst->buffer), .doffs = dst->offsets,
                .sbase = src ? bf_buffer_data(src->buffer) : NULL, .soffs = src ? src->offsets : NULL};
  /* serial: all tasks as one unit, in order (the run's tasks are in plan
   * order unless the plan is free-order, when any order gives the same) */
  int64_t one[2] = {0, p->nitems}, onep[2] = {0, e->points};
  bf_xlist serial_list = {.tasks = e->run.tasks, .nunits = 1, .ustart = one, .uprefix = onep};
  if (!stage || !src) {
    BF_CHECK(be->exchange(&g, serial ? &serial_list : &e->run) == 0, BF_ERROR_MEMORY,
             "out of memory in the ghost exchange");
    return BF_SUCCESS;
  }
  serial_list.tasks = e->unpacks.tasks;
  /* staging: block i holds item i's source points, ncomp components, 64-byte aligned */
  size_t es = dst->dtype == BF_DTYPE_DOUBLE ? sizeof(double) : sizeof(int);
  size_t *offs = malloc((size_t)p->nitems * sizeof *offs);
  BF_CHECK(offs != NULL, BF_ERROR_MEMORY, "out of memory in the ghost exchange");
  size_t total = 0;
  for (int64_t i = 0; i < p->nitems; ++i) {
    const bf_copy_item *it = &p->items[i];
    int64_t npts = 1;
    for (int d = 0; d < it->region.dim; ++d) npts *= (int64_t)it->region.hi[d] - it->region.lo[d] + 1;
    offs[i] = total;
    total += ((size_t)npts * (size_t)ncomp * es + 63) / 64 * 64;
  }
  char *buf = aligned_alloc(64, total > 0 ? total : 64);
  if (!buf) {
    free(offs);
    BF_ERROR(BF_ERROR_MEMORY, "out of memory for the staging buffer of the ghost exchange");
  }
  bf_xargs pack = g, unpack = g;
  pack.op = BF_KOP_COPY, pack.dbase = buf, pack.doffs = offs, pack.dcomp = 0;
  unpack.sbase = buf, unpack.soffs = offs, unpack.scomp = 0;
  int err = be->exchange(&pack, &e->packs);
  if (!err) err = be->exchange(&unpack, serial ? &serial_list : &e->unpacks);
  free(buf);
  free(offs);
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
  /* AMReX leaves edges and corners out of a cross exchange only in the copies
   * between processes (define_fb_metadata); within one process, the only
   * kind of copy here, a cross exchange is the full one: one plan for both */
  (void)cross;
  key_init(&k, BF_PLAN_FILL_BOUNDARY, mf, mf, &nghost, NULL, period, false);
  bf_plan *p;
  BF_CALL(bf_plan_get(&k, &p));
  int err = run_plan(p, BF_KOP_COPY, 0, mf, mf, scomp, scomp, ncomp, false, false);
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
  int err = run_plan(p, BF_KOP_ADD, 0, mf, mf, scomp, scomp, ncomp, p->needs_tmp, false);
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
  int err = run_plan(p, BF_KOP_COPY, 0, mf, mf, scomp, scomp, ncomp, false, true);
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
  bf_multifab *cnt = NULL;
  int err = bf_multifab_create(mf->ba, mf->dm, 1, mf->ngrow, BF_DTYPE_DOUBLE, mf->arena, true, &cnt);
  if (!err) err = bf_multifab_set_val_all(cnt, 1.0);
  if (!err) err = run_plan(p, BF_KOP_ADD, 0, mf, mf, scomp, scomp, ncomp, true, false);
  if (!err) err = run_plan(p, BF_KOP_PLUS_S, 1.0, cnt, NULL, 0, 0, 1, false, false);
  for (int n = 0; n < ncomp && !err; ++n) err = bf_multifab_divide(mf, cnt, 0, scomp + n, 1, bf_intvect_splat(mf->dim, 0));
  bf_multifab_destroy(&cnt);
  bf_plan_done(p);
  return err;
}

int bf_mf_overlap_mask(const bf_multifab *mf, const bf_periodicity *period, bf_multifab **out) {
  BF_CHECK(out != NULL, BF_ERROR_VALUE, "NULL result pointer");
  *out = NULL;
  BF_CALL(bf_mf_check_data(mf));
  BF_CALL(bf_mf_check_period(mf, period));
  /* the average_sync plan lists, for every valid box, the other (box, shift)
   * pairs that share its points: the count is 1 + the items over a point */
  bf_plan_key k;
  key_init(&k, BF_PLAN_AVERAGE_SYNC, mf, mf, NULL, NULL, period, false);
  bf_plan *p;
  BF_CALL(bf_plan_get(&k, &p));
  if (p->nitems == 0) { /* nothing shared: every count is 1 */
    bf_plan_done(p);
    return BF_SUCCESS;
  }
  bf_multifab *cnt = NULL;
  int err = bf_multifab_create(mf->ba, mf->dm, 1, bf_intvect_splat(mf->dim, 0), BF_DTYPE_DOUBLE, mf->arena, true,
                               &cnt);
  if (!err) err = bf_multifab_set_val_all(cnt, 1.0);
  if (!err) err = run_plan(p, BF_KOP_PLUS_S, 1.0, cnt, NULL, 0, 0, 1, false, false);
  bf_plan_done(p);
  if (err) {
    bf_multifab_destroy(&cnt);
    return err;
  }
  *out = cnt;
  return BF_SUCCESS;
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
  int err = run_plan(p, op, 0, dst, src, scomp, dcomp, ncomp, src == dst, false);
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
