/* MultiFab element-wise operations and reductions: argument checks here, the
 * loops in the backend (see include/boxfab/multifab.h). */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "boxfab/runtime.h"
#include "runtime/comm.h"
#include "mesh/fillboundary_impl.h"
#include "mesh/multifab_impl.h"

/* The task list of a call is kept with the destination (multifab_tcache.c):
 * a repeated operation builds nothing, and the backend's device form of it
 * is kept too. */
static int run_elementwise(bf_kargs *g, const bf_multifab *a, const bf_multifab *b, const bf_multifab *c,
                           const bf_box *region, bf_intvect ng) {
  const bf_backend *be = bf_mf_backend(a, b, c, "MultiFab operation");
  if (!be) return BF_ERROR_VALUE;
  bf_tc_entry *e = NULL;
  BF_CALL(bf_mf_tasks_get(a, b, c, region, ng, &e));
  g->type = bf_ktype_of(a->dtype);
  int err = bf_tc_elementwise(be, e, g);
  bf_mf_tasks_put(e);
  BF_CHECK(err == 0, BF_ERROR_MEMORY, "out of memory in a MultiFab kernel");
  return BF_SUCCESS;
}

static int unary(bf_multifab *mf, int op, double s, const bf_box *region, int comp, int ncomp, bf_intvect ng,
                 const char *what) {
  BF_CALL(bf_mf_check_data(mf));
  if (mf->dtype == BF_DTYPE_INT && (op == BF_KOP_SET || op == BF_KOP_PLUS_S || op == BF_KOP_MULT_S ||
                                    op == BF_KOP_INVERT)) {
    /* the kernels convert the scalar to int as C does (toward zero); out of
     * range, or nan, that conversion is undefined: refused */
    BF_CHECK(s == s, BF_ERROR_VALUE, "%s: nan is not a value of int data", what);
    BF_CHECK(s > (double)INT_MIN - 1.0 && s < (double)INT_MAX + 1.0, BF_ERROR_OVERFLOW,
             "%s: %.17g does not fit in the int data", what, s);
  }
  BF_CALL(bf_mf_check_comps(mf, comp, ncomp, what));
  BF_CALL(bf_mf_check_ng(mf, ng, what));
  BF_CALL(bf_mf_check_region(mf, region));
  bf_kargs g = {.op = op, .s0 = s, .ncomp = ncomp, .acomp = comp};
  return run_elementwise(&g, mf, NULL, NULL, region, ng);
}

int bf_multifab_set_val(bf_multifab *mf, double v, const bf_box *region, int comp, int ncomp, bf_intvect ng) {
  return unary(mf, BF_KOP_SET, v, region, comp, ncomp, ng, "set_val");
}
int bf_multifab_set_val_all(bf_multifab *mf, double v) {
  BF_CALL(bf_multifab_check(mf));
  return unary(mf, BF_KOP_SET, v, NULL, 0, mf->ncomp, mf->ngrow, "set_val");
}
int bf_multifab_abs(bf_multifab *mf, const bf_box *region, int comp, int ncomp, bf_intvect ng) {
  return unary(mf, BF_KOP_ABS, 0, region, comp, ncomp, ng, "abs");
}
int bf_multifab_plus_scalar(bf_multifab *mf, double v, const bf_box *region, int comp, int ncomp, bf_intvect ng) {
  return unary(mf, BF_KOP_PLUS_S, v, region, comp, ncomp, ng, "plus");
}
int bf_multifab_mult_scalar(bf_multifab *mf, double v, const bf_box *region, int comp, int ncomp, bf_intvect ng) {
  return unary(mf, BF_KOP_MULT_S, v, region, comp, ncomp, ng, "mult");
}
int bf_multifab_invert(bf_multifab *mf, double v, const bf_box *region, int comp, int ncomp, bf_intvect ng) {
  return unary(mf, BF_KOP_INVERT, v, region, comp, ncomp, ng, "invert");
}
int bf_multifab_negate(bf_multifab *mf, const bf_box *region, int comp, int ncomp, bf_intvect ng) {
  return unary(mf, BF_KOP_NEGATE, 0, region, comp, ncomp, ng, "negate");
}

/* dst[dcomp..] op= f(x[xcomp..], y[ycomp..]) */
static int nary(int op, bf_multifab *dst, const bf_multifab *x, int xcomp, const bf_multifab *y, int ycomp,
                int dcomp, int ncomp, double s0, double s1, bf_intvect ng, const char *what) {
  BF_CALL(bf_mf_check_data(dst));
  BF_CALL(bf_multifab_check_compatible(dst, x, what));
  BF_CALL(bf_mf_check_data(x));
  BF_CALL(bf_mf_check_comps(dst, dcomp, ncomp, what));
  BF_CALL(bf_mf_check_comps(x, xcomp, ncomp, what));
  BF_CALL(bf_mf_check_ng(dst, ng, what));
  BF_CALL(bf_mf_check_ng(x, ng, what));
  if (y) {
    BF_CALL(bf_multifab_check_compatible(dst, y, what));
    BF_CALL(bf_mf_check_data(y));
    BF_CALL(bf_mf_check_comps(y, ycomp, ncomp, what));
    BF_CALL(bf_mf_check_ng(y, ng, what));
  }
  bf_kargs g = {.op = op, .s0 = s0, .s1 = s1, .ncomp = ncomp, .acomp = dcomp, .bcomp = xcomp, .ccomp = ycomp};
  return run_elementwise(&g, dst, x, y, NULL, ng);
}

int bf_multifab_plus(bf_multifab *s, const bf_multifab *src, int comp, int ncomp, bf_intvect ng) {
  return nary(BF_KOP_ADD, s, src, comp, NULL, 0, comp, ncomp, 0, 0, ng, "plus");
}
int bf_multifab_minus(bf_multifab *s, const bf_multifab *src, int comp, int ncomp, bf_intvect ng) {
  return nary(BF_KOP_SUB, s, src, comp, NULL, 0, comp, ncomp, 0, 0, ng, "minus");
}
int bf_multifab_divi(bf_multifab *s, const bf_multifab *src, int comp, int ncomp, bf_intvect ng) {
  return nary(BF_KOP_DIV, s, src, comp, NULL, 0, comp, ncomp, 0, 0, ng, "divi");
}
int bf_multifab_add(bf_multifab *d, const bf_multifab *s, int sc, int dc, int nc, bf_intvect ng) {
  return nary(BF_KOP_ADD, d, s, sc, NULL, 0, dc, nc, 0, 0, ng, "add");
}
int bf_multifab_subtract(bf_multifab *d, const bf_multifab *s, int sc, int dc, int nc, bf_intvect ng) {
  return nary(BF_KOP_SUB, d, s, sc, NULL, 0, dc, nc, 0, 0, ng, "subtract");
}
int bf_multifab_multiply(bf_multifab *d, const bf_multifab *s, int sc, int dc, int nc, bf_intvect ng) {
  return nary(BF_KOP_MUL, d, s, sc, NULL, 0, dc, nc, 0, 0, ng, "multiply");
}
int bf_multifab_divide(bf_multifab *d, const bf_multifab *s, int sc, int dc, int nc, bf_intvect ng) {
  return nary(BF_KOP_DIV, d, s, sc, NULL, 0, dc, nc, 0, 0, ng, "divide");
}
int bf_multifab_copy(bf_multifab *d, const bf_multifab *s, int sc, int dc, int nc, bf_intvect ng) {
  if (d == s && sc == dc) { /* copy onto itself: nothing to move, but the arguments are checked as any copy's */
    BF_CALL(bf_mf_check_data(d));
    BF_CALL(bf_mf_check_comps(d, sc, nc, "copy"));
    return bf_mf_check_ng(d, ng, "copy");
  }
  return nary(BF_KOP_COPY, d, s, sc, NULL, 0, dc, nc, 0, 0, ng, "copy");
}
int bf_multifab_swap(bf_multifab *d, bf_multifab *s, int sc, int dc, int nc, bf_intvect ng) {
  if (d == s) {
    BF_CALL(bf_mf_check_data(d));
    BF_CALL(bf_mf_check_comps(d, sc, nc, "swap"));
    BF_CALL(bf_mf_check_comps(d, dc, nc, "swap"));
    BF_CHECK(nc <= dc - sc || nc <= sc - dc, BF_ERROR_VALUE, /* both ranges are checked: no wrap */
             "swap: overlapping components [%d, %d) and [%d, %d) of one MultiFab", sc, sc + nc, dc, dc + nc);
  }
  return nary(BF_KOP_SWAP, d, s, sc, NULL, 0, dc, nc, 0, 0, ng, "swap");
}
int bf_multifab_saxpy(bf_multifab *d, double a, const bf_multifab *s, int sc, int dc, int nc, bf_intvect ng) {
  return nary(BF_KOP_SAXPY, d, s, sc, NULL, 0, dc, nc, a, 0, ng, "saxpy");
}
int bf_multifab_xpay(bf_multifab *d, double a, const bf_multifab *s, int sc, int dc, int nc, bf_intvect ng) {
  return nary(BF_KOP_XPAY, d, s, sc, NULL, 0, dc, nc, a, 0, ng, "xpay");
}
int bf_multifab_lin_comb(bf_multifab *d, double a, const bf_multifab *x, int xc, double b, const bf_multifab *y,
                         int yc, int dc, int nc, bf_intvect ng) {
  BF_CHECK(y != NULL, BF_ERROR_VALUE, "lin_comb: NULL MultiFab");
  return nary(BF_KOP_LINCOMB, d, x, xc, y, yc, dc, nc, a, b, ng, "lin_comb");
}
int bf_multifab_add_product(bf_multifab *d, const bf_multifab *x, int c1, const bf_multifab *y, int c2, int dc,
                            int nc, bf_intvect ng) {
  BF_CHECK(y != NULL, BF_ERROR_VALUE, "add_product: NULL MultiFab");
  return nary(BF_KOP_ADDPRODUCT, d, x, c1, y, c2, dc, nc, 0, 0, ng, "add_product");
}

int bf_multifab_clone(const bf_multifab *mf, bf_multifab **out) {
  BF_CALL(bf_mf_check_data(mf));
  bf_multifab *c;
  BF_CALL(bf_multifab_create(mf->ba, mf->dm, mf->ncomp, mf->ngrow, mf->dtype, mf->arena, true, &c));
  if (mf->nbytes > 0 && bf_backend_for_arena(mf->arena)->mem_copy(bf_buffer_data(c->buffer), bf_buffer_data(mf->buffer), mf->nbytes)) {
    bf_multifab_destroy(&c);
    BF_ERROR(BF_ERROR_RUNTIME, "copying the MultiFab's data failed");
  }
  *out = c;
  return BF_SUCCESS;
}

int bf_multifab_communicator(const bf_multifab *mf, int *nprocs, int64_t *comm_f) {
  BF_CHECK(mf != NULL && nprocs != NULL, BF_ERROR_VALUE, "NULL argument");
  BF_CALL(bf_runtime_check(mf->runtime_id, "the MultiFab"));
  const bf_comm *c = bf_comm_of(mf->runtime_id);
  *nprocs = bf_comm_size(c);
  if (comm_f) {
    *comm_f = BF_COMM_WORLD;
    if (bf_comm_is_mpi(c)) BF_CALL(bf_comm_fortran_handle(c, comm_f));
  }
  return BF_SUCCESS;
}

/* ---- reductions ---------------------------------------------------------------- */

/* ---- over the ranks --------------------------------------------------------------
 * A reduction runs on the local fabs (local_reduce), then, unless `local`,
 * its partial results are combined over the ranks of the MultiFab's runtime
 * instance (bf_comm_of(runtime_id)): one allgather of a small record per
 * rank, combined in the same order on every rank, so that every rank gets
 * the same bits and
 *  - sums (double) are added in rank order (deterministic for a given number
 *    of ranks, within rounding of the one-rank sum); int sums wrap modulo 2^64
 *    as the kernels' accumulators do, so they equal the one-rank sum exactly;
 *  - min / max (and their cell) are those of one rank: the kernels keep the
 *    first extremum in fab order, so the ranks' winners are scanned in the
 *    order of their global box index with the kernels' strict comparison;
 *  - max |a| is the largest of the ranks' values, NaN / Inf tests any rank's.
 * A rank whose local part failed (out of memory) still takes part in the
 * exchange, and every rank then reports the failure: none is left waiting. */
typedef struct rank_part {
  double value;
  int64_t isum;
  int64_t gbox; /* MIN / MAX: global index of the box of the extremum */
  int32_t found, err;
  int32_t index[3];
  int32_t pad;
} rank_part;

/* The global box index of the local fab holding the extremum res->index (the
 * first local fab in order whose task region contains that point and whose
 * value there equals res->value: the kernels report the first extremum in
 * task order, so no earlier fab holds an equal value anywhere). */
static int extremum_box(const bf_multifab *a, int comp, const bf_box *region, bf_intvect ng, const bf_kresult *res,
                        int64_t *gbox) {
  const bf_backend *be = bf_backend_for_arena(a->arena);
  *gbox = -1;
  int64_t first = -1;
  for (int64_t li = 0; li < a->nlocal; ++li) {
    bf_box bx = *mf_validbox(a, li);
    (void)bf_box_grow(&bx, ng.v);
    if (region) bf_box_intersection(&bx, region, &bx);
    if (!bf_box_ok(&bx)) continue;
    int lo[3], hi[3];
    bf_box_pad3(&bx, lo, hi);
    bool in = true;
    for (int d = 0; d < 3; ++d) in = in && res->index[d] >= lo[d] && res->index[d] <= hi[d];
    if (!in) continue;
    if (first < 0) first = li;
    bf_kview v;
    bf_mf_kview(a, li, &v);
    int64_t off = (int64_t)(res->index[0] - v.lo[0]) + (int64_t)(res->index[1] - v.lo[1]) * v.js +
                  (int64_t)(res->index[2] - v.lo[2]) * v.ks + (int64_t)comp * v.ns;
    double x;
    if (a->dtype == BF_DTYPE_DOUBLE) {
      BF_CHECK(be->mem_copy(&x, (const double *)v.data + off, sizeof x) == 0, BF_ERROR_RUNTIME,
               "reading one value of the MultiFab failed");
    } else {
      int xi = 0;
      BF_CHECK(be->mem_copy(&xi, (const int *)v.data + off, sizeof xi) == 0, BF_ERROR_RUNTIME,
               "reading one value of the MultiFab failed");
      x = xi;
    }
    if (x == res->value || (x != x && res->value != res->value)) {
      *gbox = a->lidx[li];
      return BF_SUCCESS;
    }
  }
  *gbox = a->lidx[first >= 0 ? first : 0]; /* not reached with consistent data */
  return BF_SUCCESS;
}

static int by_gbox(const void *x, const void *y) {
  const rank_part *p = x, *q = y;
  return (p->gbox > q->gbox) - (p->gbox < q->gbox);
}

/* Combine `res` (this rank's part, or err != 0 when it failed) over the ranks. */
static int over_ranks(int op, const bf_multifab *a, int err, bf_kresult *res, int64_t gbox, const char *what) {
  const bf_comm *c = bf_comm_of(a->runtime_id);
  int size = bf_comm_size(c);
  if (size <= 1) return err;
  rank_part mine = {.value = res->value, .isum = res->isum, .gbox = gbox, .found = res->found, .err = err != 0};
  for (int d = 0; d < 3; ++d) mine.index[d] = res->index[d];
  /* up to 256 ranks on the stack: no allocation that could fail on one rank
   * only (it would leave the others in the allgather) */
  rank_part stack[256];
  rank_part *all = size <= 256 ? stack : malloc((size_t)size * sizeof *all);
  BF_CHECK(all != NULL, BF_ERROR_MEMORY, "%s: out of memory", what);
  int cerr = bf_comm_allgather(c, &mine, sizeof mine, all);
  if (cerr) {
    if (all != stack) free(all);
    return cerr;
  }
  int failed = -1;
  for (int r = 0; r < size && failed < 0; ++r)
    if (all[r].err) failed = r;
  if (failed >= 0) {
    if (all != stack) free(all);
    return err ? err : bf_error_set(BF_ERROR_MEMORY, what, "failed on rank %d (out of memory)", failed);
  }
  bf_kresult out = {0};
  switch (op) {
  case BF_ROP_MIN:
  case BF_ROP_MAX: {
    int n = 0;
    for (int r = 0; r < size; ++r)
      if (all[r].found) all[n++] = all[r];
    qsort(all, (size_t)n, sizeof *all, by_gbox);
    for (int i = 0; i < n; ++i) {
      const rank_part *p = &all[i];
      if (!out.found || (op == BF_ROP_MAX ? p->value > out.value : p->value < out.value)) {
        out.found = true;
        out.value = p->value;
        for (int d = 0; d < 3; ++d) out.index[d] = p->index[d];
      }
    }
    break;
  }
  case BF_ROP_ABSMAX:
    for (int r = 0; r < size; ++r)
      if (all[r].found && (!out.found || all[r].value > out.value)) out.value = all[r].value, out.found = true;
    break;
  case BF_ROP_HASNAN:
  case BF_ROP_HASINF:
    for (int r = 0; r < size; ++r) out.found = out.found || all[r].found;
    break;
  default: { /* sums, in rank order */
    uint64_t isum = 0;
    out.value = all[0].value;
    for (int r = 0; r < size; ++r) {
      if (r > 0) out.value += all[r].value;
      isum += (uint64_t)all[r].isum;
      out.found = out.found || all[r].found;
    }
    out.isum = (int64_t)isum;
    if (a->dtype == BF_DTYPE_INT) out.value = (double)out.isum;
    break;
  }
  }
  if (all != stack) free(all);
  *res = out;
  return BF_SUCCESS;
}

/* One reduction over comps [comp, comp+ncomp) of a (and b for DOT), valid + ng,
 * ∩ region; `unique` asks for owner masks (valid cells only, ng must be 0).
 * `local`: this rank's part only, else over the ranks. */
static int local_reduce(int op, const bf_multifab *a, int comp, const bf_multifab *b, int bcomp, int ncomp,
                        const bf_box *region, bf_intvect ng, bool unique, const bf_periodicity *period,
                        bf_kresult *res, const char *what);

static int reduce(int op, const bf_multifab *a, int comp, const bf_multifab *b, int bcomp, int ncomp,
                  const bf_box *region, bf_intvect ng, bool unique, const bf_periodicity *period, bool local,
                  bf_kresult *res, const char *what) {
  /* the argument checks fail alike on every rank (the same arguments and
   * layout): no rank reaches the exchange alone */
  BF_CALL(bf_mf_check_data(a));
  BF_CALL(bf_mf_check_comps(a, comp, ncomp, what));
  BF_CALL(bf_mf_check_ng(a, ng, what));
  BF_CALL(bf_mf_check_region(a, region));
  BF_CALL(bf_mf_check_period(a, period));
  if (b) {
    BF_CALL(bf_multifab_check_compatible(a, b, what));
    BF_CALL(bf_mf_check_data(b));
    BF_CALL(bf_mf_check_comps(b, bcomp, ncomp, what));
    BF_CALL(bf_mf_check_ng(b, ng, what));
  }
  if (unique && period) {
    const bf_box all = bf_mesh_bounding(a->ba);
    BF_CALL(bf_mesh_check_period(&all, period, what));
  }
  memset(res, 0, sizeof *res);
  int err = local_reduce(op, a, comp, b, bcomp, ncomp, region, ng, unique, period, res, what);
  int64_t gbox = -1;
  if (!err && res->found && (op == BF_ROP_MIN || op == BF_ROP_MAX) && !local &&
      bf_comm_size(bf_comm_of(a->runtime_id)) > 1)
    err = extremum_box(a, comp, region, ng, res, &gbox);
  if (local) return err;
  return over_ranks(op, a, err, res, gbox, what);
}

static int local_reduce(int op, const bf_multifab *a, int comp, const bf_multifab *b, int bcomp, int ncomp,
                        const bf_box *region, bf_intvect ng, bool unique, const bf_periodicity *period,
                        bf_kresult *res, const char *what) {
  /* the owner masks' bounding box (the checks are reduce's) */
  const bf_box all = unique ? bf_mesh_bounding(a->ba) : (bf_box){0};
  const bf_backend *be = bf_mf_backend(a, b, NULL, what);
  if (!be) return BF_ERROR_VALUE;
  bf_tc_entry *e = NULL;
  BF_CALL(bf_mf_tasks_get(a, b, NULL, region, ng, &e));
  bf_kargs g = {.op = op, .type = bf_ktype_of(a->dtype), .ncomp = ncomp, .acomp = comp, .bcomp = bcomp};
  int err = BF_SUCCESS;
  if (!unique) {
    if (bf_tc_reduce(be, e, &g, res)) err = bf_error_set(BF_ERROR_MEMORY, what, "out of memory");
    bf_mf_tasks_put(e);
    return err;
  }
  /* owner masks, built per call on a copy of the kept tasks (in local fab
   * order, skipping empty ones) */
  int64_t n = bf_tc_ntasks(e);
  bf_ktask *t = malloc((size_t)(n > 0 ? n : 1) * sizeof *t);
  if (!t) {
    bf_mf_tasks_put(e);
    BF_ERROR(BF_ERROR_MEMORY, "%s: out of memory", what);
  }
  memcpy(t, bf_tc_tasks(e), (size_t)n * sizeof *t);
  bf_mf_tasks_put(e);
  int64_t m = 0;
  bf_isect_list scratch = {0};
  for (int64_t li = 0; li < a->nlocal && m < n; ++li) {
    bf_box bx = *mf_validbox(a, li);
    if (region) bf_box_intersection(&bx, region, &bx);
    if (!bf_box_ok(&bx)) continue;
    uint8_t *mask;
    err = bf_mf_unique_mask(a, li, &bx, &all, period, &scratch, &mask);
    if (err) break;
    t[m++].mask = mask;
  }
  bf_isect_list_free(&scratch);
  if (!err && be->reduce(&g, n, t, res)) err = bf_error_set(BF_ERROR_MEMORY, what, "out of memory");
  for (int64_t i = 0; i < m; ++i) free((void *)t[i].mask);
  free(t);
  return err;
}

int bf_multifab_dot(const bf_multifab *x, int xcomp, const bf_multifab *y, int ycomp, int numcomp, bf_intvect ng,
                    bool local, double *r) {
  BF_CHECK(y != NULL, BF_ERROR_VALUE, "dot: NULL MultiFab");
  bf_kresult res;
  BF_CALL(reduce(BF_ROP_DOT, x, xcomp, y, ycomp, numcomp, NULL, ng, false, NULL, local, &res, "dot"));
  *r = res.value;
  return BF_SUCCESS;
}

static int minmax(int op, const bf_multifab *mf, const bf_box *region, int comp, bf_intvect ng, bool local,
                  double *r, bf_intvect *cell, const char *what) {
  bf_kresult res;
  BF_CALL(reduce(op, mf, comp, NULL, 0, 1, region, ng, false, NULL, local, &res, what));
  /* nothing selected: AMReX's start values, numeric_limits<T>::max() / lowest()
   * of the data's type (AMReX_MultiFab.cpp, AMReX_iMultiFab.cpp: min / max) */
  const bool ints = mf->dtype == BF_DTYPE_INT;
  if (r) *r = res.found ? res.value : (op == BF_ROP_MIN ? (ints ? INT_MAX : DBL_MAX) : (ints ? INT_MIN : -DBL_MAX));
  if (cell) {
    BF_CHECK(res.found, BF_ERROR_VALUE, "%s: no cell selected", what);
    cell->dim = mf->dim;
    for (int d = 0; d < BF_SPACEDIM_MAX; ++d) cell->v[d] = d < mf->dim ? res.index[d] : 0;
  }
  return BF_SUCCESS;
}

int bf_multifab_min(const bf_multifab *mf, const bf_box *region, int comp, bf_intvect ng, bool local, double *r) {
  return minmax(BF_ROP_MIN, mf, region, comp, ng, local, r, NULL, "min");
}
int bf_multifab_max(const bf_multifab *mf, const bf_box *region, int comp, bf_intvect ng, bool local, double *r) {
  return minmax(BF_ROP_MAX, mf, region, comp, ng, local, r, NULL, "max");
}
int bf_multifab_min_index(const bf_multifab *mf, int comp, bf_intvect ng, bf_intvect *cell) {
  return minmax(BF_ROP_MIN, mf, NULL, comp, ng, false, NULL, cell, "min_index");
}
int bf_multifab_max_index(const bf_multifab *mf, int comp, bf_intvect ng, bf_intvect *cell) {
  return minmax(BF_ROP_MAX, mf, NULL, comp, ng, false, NULL, cell, "max_index");
}

static bf_intvect zero_ng(const bf_multifab *mf) { return bf_intvect_splat(mf->dim, 0); }

int bf_multifab_sum(const bf_multifab *mf, const bf_box *region, int comp, bool local, double *r) {
  BF_CALL(bf_multifab_check(mf));
  bf_kresult res;
  BF_CALL(reduce(BF_ROP_SUM, mf, comp, NULL, 0, 1, region, zero_ng(mf), false, NULL, local, &res, "sum"));
  *r = res.value;
  return BF_SUCCESS;
}

int bf_multifab_sum_unique(const bf_multifab *mf, const bf_box *region, int comp, bool local,
                           const bf_periodicity *period, double *r) {
  BF_CALL(bf_multifab_check(mf));
  bf_kresult res;
  BF_CALL(
      reduce(BF_ROP_SUM, mf, comp, NULL, 0, 1, region, zero_ng(mf), true, period, local, &res, "sum_unique"));
  *r = res.value;
  return BF_SUCCESS;
}

int bf_multifab_norm0(const bf_multifab *mf, int comp, bf_intvect ng, bool local, double *r) {
  bf_kresult res;
  BF_CALL(reduce(BF_ROP_ABSMAX, mf, comp, NULL, 0, 1, NULL, ng, false, NULL, local, &res, "norm0"));
  *r = res.value;
  return BF_SUCCESS;
}
int bf_multifab_norminf(const bf_multifab *mf, int comp, bf_intvect ng, bool local, double *r) {
  return bf_multifab_norm0(mf, comp, ng, local, r);
}

int bf_multifab_norm1(const bf_multifab *mf, int comp, bf_intvect ng, bool local, double *r) {
  bf_kresult res;
  BF_CALL(reduce(BF_ROP_ABSSUM, mf, comp, NULL, 0, 1, NULL, ng, false, NULL, local, &res, "norm1"));
  *r = res.value;
  return BF_SUCCESS;
}

/* AMReX_MultiFab.cpp MultiFab::norm1(comp, period) and norm2(comp, period):
 * every copy of a point counts with weight 1 / (number of copies), the count
 * being OverlapMask(period) (boxes sharing nodal points, periodic images):
 * norm1 sums |a / m| (Copy, then Divide by the mask, then norm1), norm2 sums
 * a * a / m.  Made of the element-wise kernels, as AMReX makes norm1. */
static int weighted_norm(const bf_multifab *mf, int comp, const bf_periodicity *period, bool square, double *r,
                         const char *what) {
  BF_CALL(bf_multifab_check(mf));
  BF_CALL(bf_mf_check_data(mf));
  BF_CALL(bf_mf_check_comps(mf, comp, 1, what));
  bf_intvect z = zero_ng(mf);
  bf_multifab *cnt = NULL, *tmp = NULL;
  /* the counts from the BoxArray (a local plan would miss copies on other ranks) */
  BF_CALL(bf_mf_overlap_count(mf, period, &cnt, what));
  bf_kresult res;
  int err;
  if (!cnt) { /* no shared point: every weight is 1 */
    err = reduce(square ? BF_ROP_SUMSQ : BF_ROP_ABSSUM, mf, comp, NULL, 0, 1, NULL, z, false, NULL, false, &res,
                 what);
  } else {
    err = bf_multifab_create(mf->ba, mf->dm, 1, z, BF_DTYPE_DOUBLE, mf->arena, true, &tmp);
    if (!err) err = bf_multifab_copy(tmp, mf, comp, 0, 1, z);
    if (!err && square) err = bf_multifab_multiply(tmp, mf, comp, 0, 1, z);
    if (!err) err = bf_multifab_divide(tmp, cnt, 0, 0, 1, z);
    if (!err)
      err = reduce(square ? BF_ROP_SUM : BF_ROP_ABSSUM, tmp, 0, NULL, 0, 1, NULL, z, false, NULL, false, &res, what);
  }
  bf_multifab_destroy(&tmp);
  bf_multifab_destroy(&cnt);
  if (err) return err;
  *r = square ? sqrt(res.value) : res.value;
  return BF_SUCCESS;
}

int bf_multifab_norm1_unique(const bf_multifab *mf, int comp, const bf_periodicity *period, double *r) {
  BF_CALL(bf_multifab_check(mf));
  if (mf->dtype == BF_DTYPE_DOUBLE) return weighted_norm(mf, comp, period, false, r, "norm1");
  /* int data (no AMReX counterpart): the owner's copy of each point */
  bf_kresult res;
  BF_CALL(reduce(BF_ROP_ABSSUM, mf, comp, NULL, 0, 1, NULL, zero_ng(mf), true, period, false, &res, "norm1"));
  *r = res.value;
  return BF_SUCCESS;
}

int bf_multifab_norm2(const bf_multifab *mf, int comp, const bf_periodicity *period, double *r) {
  BF_CALL(bf_multifab_check(mf));
  bf_kresult res;
  if (period && mf->dtype == BF_DTYPE_DOUBLE) return weighted_norm(mf, comp, period, true, r, "norm2");
  if (period) { /* int data (no AMReX counterpart): the owner's copy of each point */
    BF_CALL(reduce(BF_ROP_SUMSQ, mf, comp, NULL, 0, 1, NULL, zero_ng(mf), true, period, false, &res, "norm2"));
    *r = sqrt(res.value);
    return BF_SUCCESS;
  }
  /* MultiFab::norm2(comp) = sqrt(Dot(*this, comp, 1, 0)): every copy of a
   * shared nodal point counts (AMReX asserts cell-centred data only in debug
   * builds; a release build, such as pyAMReX's, sums all copies) */
  BF_CALL(reduce(BF_ROP_SUMSQ, mf, comp, NULL, 0, 1, NULL, zero_ng(mf), false, NULL, false, &res, "norm2"));
  *r = sqrt(res.value);
  return BF_SUCCESS;
}

/* ---- exact integer results (int data) ------------------------------------------- */

static int int_data(const bf_multifab *mf, const char *what) {
  BF_CALL(bf_multifab_check(mf));
  BF_CHECK(mf->dtype == BF_DTYPE_INT, BF_ERROR_TYPE, "%s: the exact integer form is for int data", what);
  return BF_SUCCESS;
}

int bf_multifab_sum_i64(const bf_multifab *mf, const bf_box *region, int comp, bool local, int64_t *r) {
  BF_CALL(int_data(mf, "sum"));
  bf_kresult res;
  BF_CALL(reduce(BF_ROP_SUM, mf, comp, NULL, 0, 1, region, zero_ng(mf), false, NULL, local, &res, "sum"));
  *r = res.isum;
  return BF_SUCCESS;
}

int bf_multifab_sum_unique_i64(const bf_multifab *mf, const bf_box *region, int comp, bool local,
                               const bf_periodicity *period, int64_t *r) {
  BF_CALL(int_data(mf, "sum_unique"));
  bf_kresult res;
  BF_CALL(
      reduce(BF_ROP_SUM, mf, comp, NULL, 0, 1, region, zero_ng(mf), true, period, local, &res, "sum_unique"));
  *r = res.isum;
  return BF_SUCCESS;
}

int bf_multifab_norm1_i64(const bf_multifab *mf, int comp, bf_intvect ng, bool local, int64_t *r) {
  BF_CALL(int_data(mf, "norm1"));
  bf_kresult res;
  BF_CALL(reduce(BF_ROP_ABSSUM, mf, comp, NULL, 0, 1, NULL, ng, false, NULL, local, &res, "norm1"));
  *r = res.isum;
  return BF_SUCCESS;
}

int bf_multifab_norm1_unique_i64(const bf_multifab *mf, int comp, const bf_periodicity *period, int64_t *r) {
  BF_CALL(int_data(mf, "norm1"));
  bf_kresult res;
  BF_CALL(reduce(BF_ROP_ABSSUM, mf, comp, NULL, 0, 1, NULL, zero_ng(mf), true, period, false, &res, "norm1"));
  *r = res.isum;
  return BF_SUCCESS;
}

int bf_multifab_norm1_comps(const bf_multifab *mf, int n, const int *comps, bf_intvect ng, bool local,
                            double *results) {
  BF_CHECK(n >= 0 && (n == 0 || (comps && results)), BF_ERROR_VALUE, "norm1: bad component list");
  for (int i = 0; i < n; ++i) BF_CALL(bf_multifab_norm1(mf, comps[i], ng, local, &results[i]));
  return BF_SUCCESS;
}

int bf_multifab_norm2_comps(const bf_multifab *mf, int n, const int *comps, double *results) {
  BF_CHECK(n >= 0 && (n == 0 || (comps && results)), BF_ERROR_VALUE, "norm2: bad component list");
  for (int i = 0; i < n; ++i) BF_CALL(bf_multifab_norm2(mf, comps[i], NULL, &results[i]));
  return BF_SUCCESS;
}

int bf_multifab_contains_nan(const bf_multifab *mf, int scomp, int ncomp, bf_intvect ng, bool local, bool *r) {
  bf_kresult res;
  BF_CALL(reduce(BF_ROP_HASNAN, mf, scomp, NULL, 0, ncomp, NULL, ng, false, NULL, local, &res, "contains_nan"));
  *r = res.found;
  return BF_SUCCESS;
}

int bf_multifab_contains_inf(const bf_multifab *mf, int scomp, int ncomp, bf_intvect ng, bool local, bool *r) {
  bf_kresult res;
  BF_CALL(reduce(BF_ROP_HASINF, mf, scomp, NULL, 0, ncomp, NULL, ng, false, NULL, local, &res, "contains_inf"));
  *r = res.found;
  return BF_SUCCESS;
}
