/* fill_boundary's x faces as whole x-lines of fabs (issue 14).
 *
 * A thin x face is g ghost points at each end of every row, in DRAM sectors
 * shared with the valid points the neighbours' ghosts need; a kernel that
 * reads the [end of row j-1 | start of row j] chunks of every fab of a line
 * of fabs in x once and writes their ghost halves back touches each sector
 * once (benchmarks/bench_xline.cu: 0.096 ms against the exchange tasks' 0.139
 * at 128^3 boxes on an H200).  This file finds, in a fill_boundary plan, the
 * items that are such full x faces between fabs of one shape whose faces
 * mirror each other (fab f's high face from s and s's low face from f), chains
 * them into lines (a cycle is a periodic line), and leaves every other item
 * to a plan of its own (`rest`), run as before; the two write disjoint
 * points and read only valid points, so their order does not matter.  The
 * backend runs the lines (xline_prepare / xline_run); the host loop below
 * is the reference the CUDA kernel follows, run on the CPU only for the
 * tests (BOXFAB_FB_XLINE=1). */
#include <stdlib.h>
#include <string.h>

#include "fillboundary_impl.h"

void bf_xline_run_host(const bf_xline_desc *d, double *base, int comp0, int ncomp) {
  const int g = d->g[0], nx = d->n[0], ny = d->n[1];
  /* tests only (test_fill_boundary_xline.py): a broken loop, proving the comparison can fail */
  const char *drop_env = getenv("BOXFAB_FB_XLINE_TEST_DROP");
  const bool drop = drop_env && *drop_env == '1';
  for (int64_t l = 0; l < d->nlines; ++l) {
    const int64_t s = d->lstart[l], m = d->lstart[l + 1] - s;
    for (int64_t b = 0; b < m; ++b) {
      int64_t bn = b + 1 < m ? b + 1 : (d->lper[l] ? 0 : -1), bp = b > 0 ? b - 1 : (d->lper[l] ? m - 1 : -1);
      for (int n = comp0; n < comp0 + ncomp; ++n)
        for (int k = d->g[2]; k < d->n[2] - d->g[2]; ++k)
          for (int j = d->g[1]; j < ny - d->g[1]; ++j) {
            int64_t row = (int64_t)n * d->ns + ((int64_t)k * ny + j) * nx;
            double *r = base + d->lfab[s + b] + row;
            if (bn >= 0) memcpy(r + nx - g, base + d->lfab[s + bn] + row + g, (size_t)g * sizeof *r);
            if (bp >= 0 && !drop) memcpy(r, base + d->lfab[s + bp] + row + nx - 2 * g, (size_t)g * sizeof *r);
          }
    }
  }
}

void bf_plan_xlines_free(bf_plan_xline *l) {
  while (l) {
    bf_plan_xline *next = l->next;
    if (l->be && l->handle) l->be->xline_release(l->handle);
    free(l->lstart), free(l->lfab), free(l->lper);
    if (l->rest) bf_plan_done(l->rest);
    free(l);
    l = next;
  }
}

/* 0: not an x face of fab f's layout; 1: its low face; 2: its high face (from fab s). */
static int face_of(const bf_copy_item *it, const bf_multifab *mf, int g) {
  int vlo[3], vhi[3], slo[3], shi[3], rlo[3], rhi[3];
  bf_box_pad3(mf_validbox(mf, it->dst_li), vlo, vhi);
  bf_box_pad3(mf_validbox(mf, it->src_li), slo, shi);
  bf_box_pad3(&it->region, rlo, rhi);
  for (int d = 1; d < 3; ++d)
    if (it->shift[d] != 0 || rlo[d] != vlo[d] || rhi[d] != vhi[d] || slo[d] != vlo[d] || shi[d] != vhi[d]) return 0;
  if (rlo[0] == vlo[0] - g && rhi[0] == vlo[0] - 1 && rlo[0] - it->shift[0] == shi[0] - g + 1 &&
      rhi[0] - it->shift[0] == shi[0])
    return 1;
  if (rlo[0] == vhi[0] + 1 && rhi[0] == vhi[0] + g && rlo[0] - it->shift[0] == slo[0] &&
      rhi[0] - it->shift[0] == slo[0] + g - 1)
    return 2;
  return 0;
}

/* Fill l from plan p and mf; l->usable false (and success) when it does not apply. */
static int xline_build(const bf_plan *p, const bf_multifab *mf, bf_plan_xline *l) {
  const int64_t nf = mf->nlocal;
  const int g = mf->ngrow.v[0];
  if (p->kind != BF_PLAN_FILL_BOUNDARY || p->distributed || !p->free_order || mf->dtype != BF_DTYPE_DOUBLE ||
      nf == 0 || g < 1 || p->nitems == 0)
    return BF_SUCCESS;
  /* fabs of one shape, valid x extent at least g */
  int flo[3], fhi[3], n[3];
  bf_box fb0 = mf_fabbox(mf, 0);
  bf_box_pad3(&fb0, flo, fhi);
  for (int d = 0; d < 3; ++d) n[d] = fhi[d] - flo[d] + 1;
  if (n[0] - 2 * g < g) return BF_SUCCESS;
  for (int64_t f = 1; f < nf; ++f) {
    bf_box fb = mf_fabbox(mf, f);
    bf_box_pad3(&fb, flo, fhi);
    for (int d = 0; d < 3; ++d)
      if (fhi[d] - flo[d] + 1 != n[d]) return BF_SUCCESS;
  }
  int64_t *lo = malloc((size_t)nf * sizeof *lo), *hi = malloc((size_t)nf * sizeof *hi);
  int64_t *loi = malloc((size_t)nf * sizeof *loi), *hii = malloc((size_t)nf * sizeof *hii);
  bool *taken = calloc((size_t)p->nitems, sizeof *taken);
  int err = BF_SUCCESS;
  if (!lo || !hi || !loi || !hii || !taken) {
    err = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory for a copy plan");
    goto done;
  }
  for (int64_t f = 0; f < nf; ++f) lo[f] = hi[f] = -1;
  bool twice = false; /* a fab with two faces on one side: not a lattice, leave it all as it was */
  for (int64_t i = 0; i < p->nitems; ++i) {
    const bf_copy_item *it = &p->items[i];
    int side = face_of(it, mf, g);
    int64_t *to = side == 1 ? lo : side == 2 ? hi : NULL, *idx = side == 1 ? loi : hii;
    if (!to) continue;
    twice |= to[it->dst_li] >= 0;
    to[it->dst_li] = it->src_li, idx[it->dst_li] = i;
  }
  if (twice) goto done;
  /* keep the mirrored pairs only: f's high face from s and s's low face from f */
  for (int64_t f = 0; f < nf; ++f)
    if (hi[f] >= 0 && lo[hi[f]] != f) hi[f] = -1;
  for (int64_t f = 0; f < nf; ++f)
    if (lo[f] >= 0 && hi[lo[f]] != f) lo[f] = -1;
  /* lines: from every fab without a low link along the high links, then the cycles left */
  l->lstart = malloc(((size_t)nf + 1) * sizeof *l->lstart);
  l->lfab = malloc((size_t)nf * sizeof *l->lfab);
  l->lper = malloc((size_t)nf * sizeof *l->lper);
  bool *seen = calloc((size_t)nf, sizeof *seen);
  if (!l->lstart || !l->lfab || !l->lper || !seen) {
    free(seen);
    err = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory for a copy plan");
    goto done;
  }
  int64_t nl = 0, nfab = 0, maxlen = 0;
  for (int pass = 0; pass < 2; ++pass)
    for (int64_t f0 = 0; f0 < nf; ++f0) {
      if (seen[f0] || (hi[f0] < 0 && lo[f0] < 0) || (pass == 0 && lo[f0] >= 0)) continue;
      l->lstart[nl] = nfab;
      l->lper[nl] = pass == 1; /* the second pass finds only cycles */
      for (int64_t f = f0; f >= 0 && !seen[f]; f = hi[f]) {
        seen[f] = true;
        l->lfab[nfab++] = (int64_t)(mf->offsets[f] / sizeof(double));
        if (hi[f] >= 0) taken[hii[f]] = true;
        if (lo[f] >= 0) taken[loi[f]] = true;
      }
      if (nfab - l->lstart[nl] > maxlen) maxlen = nfab - l->lstart[nl];
      ++nl;
    }
  free(seen);
  l->lstart[nl] = nfab;
  /* the items left: a plan of their own */
  int64_t nrest = 0;
  for (int64_t i = 0; i < p->nitems; ++i) nrest += !taken[i];
  if (nrest == p->nitems) goto done; /* nothing to gain */
  if (nrest > 0) {
    bf_copy_item *rest = malloc((size_t)nrest * sizeof *rest);
    if (!rest) {
      err = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory for a copy plan");
      goto done;
    }
    for (int64_t i = 0, r = 0; i < p->nitems; ++i)
      if (!taken[i]) rest[r++] = p->items[i];
    err = bf_plan_of_items(rest, nrest, p->free_order, &l->rest);
    free(rest);
    if (err) goto done;
  }
  for (int d = 0; d < 3; ++d) l->d.n[d] = n[d], l->d.g[d] = d < mf->dim ? mf->ngrow.v[d] : 0;
  l->d.nlines = nl, l->d.nfabs = nfab, l->d.maxlen = maxlen;
  l->d.ns = (int64_t)n[0] * n[1] * n[2];
  l->d.lstart = l->lstart, l->d.lfab = l->lfab, l->d.lper = l->lper;
  l->usable = true;
done:
  free(lo), free(hi), free(loi), free(hii), free(taken);
  return err;
}

int bf_plan_xline_get(bf_plan *p, const bf_multifab *mf, const bf_backend *be, const bf_plan_xline **out) {
  *out = NULL;
  int ng[3];
  for (int d = 0; d < 3; ++d) ng[d] = d < mf->dim ? mf->ngrow.v[d] : 0;
  pthread_mutex_lock(&p->lock);
  bf_plan_xline *l = p->xlines;
  /* one form per layout and per backend it runs on: a plan serves host and device MultiFabs alike */
  while (l && (memcmp(l->ng, ng, sizeof ng) || l->ncomp != mf->ncomp || l->for_be != be)) l = l->next;
  int err = BF_SUCCESS;
  if (!l) {
    l = calloc(1, sizeof *l);
    if (!l) {
      pthread_mutex_unlock(&p->lock);
      BF_ERROR(BF_ERROR_MEMORY, "out of memory for a copy plan");
    }
    memcpy(l->ng, ng, sizeof ng);
    l->ncomp = mf->ncomp;
    l->for_be = be;
    err = xline_build(p, mf, l);
    if (!err && l->usable && be && be->xline_prepare) {
      void *h = NULL;
      if (be->xline_prepare(&l->d, &h) == 0 && h) {
        l->be = be, l->handle = h;
      } else { /* cannot run it here (or its tables could not be made): the exchange tasks do it all */
        bf_error_clear();
        l->usable = false;
      }
    } else if (!err && be) {
      l->usable = false; /* a backend without the kernel */
    }
    if (err) {
      bf_plan_xlines_free(l);
      pthread_mutex_unlock(&p->lock);
      return err;
    }
    l->next = p->xlines, p->xlines = l;
  }
  pthread_mutex_unlock(&p->lock);
  *out = l;
  return BF_SUCCESS;
}
