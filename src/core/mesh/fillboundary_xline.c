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

#include "mesh/fillboundary_impl.h"

/* d->rows: the other ghost points of the lines' fabs as whole rows (bf_xline_desc) */
static void rows_run_host(const bf_xline_desc *d, double *base, int comp0, int ncomp, bool drop) {
  const int nx = d->n[0], ny = d->n[1], nz = d->n[2];
  const int bx = nx - 2 * d->g[0], by = ny - 2 * d->g[1], bz = nz - 2 * d->g[2];
  for (int64_t l = 0; l < d->nlines; ++l) {
    const int64_t s = d->lstart[l], m = d->lstart[l + 1] - s;
    for (int k = 0; k < nz; ++k)
      for (int j = 0; j < ny; ++j) {
        const int dy = j < d->g[1] ? -1 : j >= ny - d->g[1] ? 1 : 0, dz = k < d->g[2] ? -1 : k >= nz - d->g[2] ? 1 : 0;
        if ((dy == 0 && dz == 0) || (drop && dy == -1)) continue;
        const int64_t sl = d->lnbr[9 * l + 3 * (dy + 1) + (dz + 1)];
        if (sl < 0) continue;
        for (int64_t b = 0; b < m; ++b)
          for (int i = 0; i < nx; ++i) {
            const int dx = i < d->g[0] ? -1 : i >= nx - d->g[0] ? 1 : 0;
            int64_t q = b + dx;
            if (q < 0 || q >= m) {
              if (!d->lper[l]) continue;
              q = q < 0 ? m - 1 : 0;
            }
            const int64_t doff = d->lfab[s + b] + ((int64_t)k * ny + j) * nx + i;
            const int64_t soff =
                d->lfab[d->lstart[sl] + q] + ((int64_t)(k - dz * bz) * ny + (j - dy * by)) * nx + (i - dx * bx);
            for (int n = comp0; n < comp0 + ncomp; ++n) base[doff + n * d->ns] = base[soff + n * d->ns];
          }
      }
  }
}

void bf_xline_run_host(const bf_xline_desc *d, double *base, int comp0, int ncomp) {
  const int g = d->g[0], nx = d->n[0], ny = d->n[1];
  /* tests only (test_fill_boundary_xline.py): a broken loop, proving the comparison can fail
   * (1: no low x faces; 2: no rows below the valid range in y) */
  const char *drop_env = getenv("BOXFAB_FB_XLINE_TEST_DROP");
  const bool drop = drop_env && *drop_env == '1', drop_rows = drop_env && *drop_env == '2';
  if (d->rows) rows_run_host(d, base, comp0, ncomp, drop_rows);
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
    free(l->lstart), free(l->lfab), free(l->lper), free(l->lnbr);
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

/* Direction of range [rlo, rhi] against the valid range [vlo, vhi] grown by
 * g: -1 (the g points below), 0 (the valid range), 1 (the g above), 2 (none
 * of these). */
static int side_of(int rlo, int rhi, int vlo, int vhi, int g) {
  if (rlo == vlo && rhi == vhi) return 0;
  if (g > 0 && rlo == vlo - g && rhi == vlo - 1) return -1;
  if (g > 0 && rlo == vhi + 1 && rhi == vhi + g) return 1;
  return 2;
}

/* The items of p not taken by the lines of l, as whole rows (bf_xline_desc,
 * `rows`), when they are exactly what the rows describe: every line of one
 * length m, every such item a whole (dx, dy, dz) ghost block of its fab with
 * (dy, dz) != 0, read from the fab at the line position the rows give at the
 * point the rows give, one line per (line, dy, dz), and as many items as the
 * rows fill.  Sets l->lnbr and d.rows; leaves them unset (and succeeds)
 * otherwise.  fline[f], fpos[f]: fab f's line and position (-1: in none). */
static int rows_build(const bf_plan *p, const bf_multifab *mf, bf_plan_xline *l, const bool *taken,
                      const int64_t *fline, const int64_t *fpos, const int n[3], const int g[3]) {
  const int64_t nl = l->d.nlines, nf = mf->nlocal, m = nl > 0 ? l->lstart[1] - l->lstart[0] : 0;
  if (nl == 0 || nl * m != nf) return BF_SUCCESS;
  for (int64_t i = 1; i < nl; ++i)
    if (l->lstart[i + 1] - l->lstart[i] != m) return BF_SUCCESS;
  int bsz[3];
  for (int d = 0; d < 3; ++d) bsz[d] = n[d] - 2 * g[d];
  int64_t *nbr = malloc((size_t)nl * 9 * sizeof *nbr);
  uint8_t *used = calloc((size_t)nf, 27);
  if (!nbr || !used) {
    free(nbr), free(used);
    return bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory for a copy plan");
  }
  for (int64_t i = 0; i < nl * 9; ++i) nbr[i] = -2; /* not seen yet */
  int64_t nrest = 0;
  bool ok = true;
  for (int64_t i = 0; i < p->nitems && ok; ++i) {
    if (taken[i]) continue;
    ++nrest;
    const bf_copy_item *it = &p->items[i];
    const int64_t f = it->dst_li, s = it->src_li;
    int vlo[3], vhi[3], slo[3], shi[3], rlo[3], rhi[3], dir[3];
    bf_box_pad3(mf_validbox(mf, f), vlo, vhi);
    bf_box_pad3(mf_validbox(mf, s), slo, shi);
    bf_box_pad3(&it->region, rlo, rhi);
    for (int d = 0; d < 3 && ok; ++d) {
      dir[d] = side_of(rlo[d], rhi[d], vlo[d], vhi[d], g[d]);
      /* the point the rows read: (region - shift) relative to s = region relative to f - dir bsz */
      ok = dir[d] != 2 && rlo[d] - it->shift[d] - slo[d] == rlo[d] - vlo[d] - dir[d] * bsz[d];
    }
    if (!ok || (dir[1] == 0 && dir[2] == 0) || fline[f] < 0 || fline[s] < 0) {
      ok = false;
      break;
    }
    int64_t q = fpos[f] + dir[0];
    if (q < 0 || q >= m) {
      if (!l->lper[fline[f]]) {
        ok = false;
        break;
      }
      q = q < 0 ? m - 1 : 0;
    }
    const int slot = 3 * (dir[1] + 1) + (dir[2] + 1);
    int64_t *nb = &nbr[9 * fline[f] + slot];
    uint8_t *u = &used[27 * f + 9 * (dir[0] + 1) + slot];
    ok = fpos[s] == q && (*nb == -2 || *nb == fline[s]) && !*u;
    *nb = fline[s], *u = 1;
  }
  /* as many items as the rows fill (each item above is one of theirs, none twice) */
  int64_t want = 0;
  for (int64_t li = 0; li < nl && ok; ++li)
    for (int slot = 0; slot < 9; ++slot) {
      int64_t *nb = &nbr[9 * li + slot];
      if (*nb == -2) *nb = -1;
      if (slot != 4 && *nb >= 0) want += l->lper[li] ? 3 * m : 3 * m - 2;
    }
  free(used);
  if (!ok || want != nrest) {
    free(nbr);
    return BF_SUCCESS;
  }
  l->lnbr = nbr;
  l->d.rows = true, l->d.lnbr = nbr;
  return BF_SUCCESS;
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
  int64_t *fline = NULL, *fpos = NULL;
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
  fline = malloc((size_t)nf * sizeof *fline), fpos = malloc((size_t)nf * sizeof *fpos);
  if (!l->lstart || !l->lfab || !l->lper || !seen || !fline || !fpos) {
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
        fline[f] = nl, fpos[f] = nfab - l->lstart[nl];
        l->lfab[nfab++] = (int64_t)(mf->offsets[f] / sizeof(double));
        if (hi[f] >= 0) taken[hii[f]] = true;
        if (lo[f] >= 0) taken[loi[f]] = true;
      }
      if (nfab - l->lstart[nl] > maxlen) maxlen = nfab - l->lstart[nl];
      ++nl;
    }
  free(seen);
  l->lstart[nl] = nfab;
  for (int64_t f = 0; f < nf; ++f)
    if (hi[f] < 0 && lo[f] < 0) fline[f] = fpos[f] = -1; /* in no line */
  int64_t nrest = 0;
  for (int64_t i = 0; i < p->nitems; ++i) nrest += !taken[i];
  if (nrest == p->nitems) goto done; /* nothing to gain */
  int gw[3];
  for (int d = 0; d < 3; ++d) gw[d] = d < mf->dim ? mf->ngrow.v[d] : 0;
  l->d.nlines = nl;
  /* the items left: whole rows of a uniform lattice, else a plan of their own */
  if (nrest > 0 && (err = rows_build(p, mf, l, taken, fline, fpos, n, gw)) != BF_SUCCESS) goto done;
  if (nrest > 0 && !l->d.rows) {
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
  free(lo), free(hi), free(loi), free(hii), free(taken), free(fline), free(fpos);
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
