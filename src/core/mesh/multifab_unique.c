/* Box queries for the mesh code and the owner masks of sum_unique / norms
 * of nodal data.  Box lookups go through the BoxArray's hashed query
 * (bf_boxarray_intersections), so a plan or a mask costs O(neighbours) per
 * box, not O(boxes). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/multifab_impl.h"

int bf_mesh_intersecting(const bf_boxarray *ba, const bf_box *box, bf_isect_list *out) {
  return bf_boxarray_intersections(ba, box, false, out);
}

bf_box bf_mesh_bounding(const bf_boxarray *ba) {
  bf_box all;
  bf_boxarray_minimal_box(ba, &all);
  return all;
}

static long long floor_div_ll(long long a, long long b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
static long long ceil_div_ll(long long a, long long b) { return -floor_div_ll(-a, b); }

int bf_mesh_periodic_shifts(const bf_box *a, const bf_box *b, const bf_periodicity *period, const int *ng, int **out,
                            int *n) {
  long long kmin[3] = {0, 0, 0}, kmax[3] = {0, 0, 0}, p[3] = {0, 0, 0};
  for (int d = 0; d < a->dim; ++d) {
    p[d] = period ? period->period[d] : 0;
    if (p[d] <= 0) continue;
    /* AMReX's shifts: multiples k of the period with |k| <= K, K = max(1,
     * ceil(ng / period)) (Periodicity::shiftIntVect(nghost)) ... */
    long long g = ng && ng[d] > 0 ? ng[d] : 0, K = g > p[d] ? (g + p[d] - 1) / p[d] : 1;
    /* ... of which only those under which `a` can meet `b` */
    kmin[d] = ceil_div_ll((long long)b->lo[d] - a->hi[d], p[d]);
    kmax[d] = floor_div_ll((long long)b->hi[d] - a->lo[d], p[d]);
    if (kmin[d] < -K) kmin[d] = -K;
    if (kmax[d] > K) kmax[d] = K;
    /* and whose shift is an int (a larger one cannot bring int boxes together) */
    while (kmin[d] <= kmax[d] && kmin[d] * p[d] < INT_MIN) ++kmin[d];
    while (kmax[d] >= kmin[d] && kmax[d] * p[d] > INT_MAX) --kmax[d];
  }
  long long count = 1;
  for (int d = 0; d < 3; ++d) count *= kmax[d] >= kmin[d] ? kmax[d] - kmin[d] + 1 : 0;
  BF_CHECK(count < INT_MAX / 3, BF_ERROR_MEMORY, "%lld periodic shifts: too many", count);
  int *s = malloc((size_t)(3 * (count + 1)) * sizeof *s);
  BF_CHECK(s != NULL, BF_ERROR_MEMORY, "out of memory");
  int m = 0;
  s[0] = s[1] = s[2] = 0; /* zero shift first */
  m = 1;
  for (long long k2 = kmin[2]; k2 <= kmax[2]; ++k2)
    for (long long k1 = kmin[1]; k1 <= kmax[1]; ++k1)
      for (long long k0 = kmin[0]; k0 <= kmax[0]; ++k0) {
        if (k0 == 0 && k1 == 0 && k2 == 0) continue;
        s[3 * m] = (int)(k0 * p[0]), s[3 * m + 1] = (int)(k1 * p[1]), s[3 * m + 2] = (int)(k2 * p[2]);
        ++m;
      }
  *out = s;
  *n = m;
  return BF_SUCCESS;
}

int bf_mesh_check_period(const bf_box *bounding, const bf_periodicity *period, const char *what) {
  if (!period || !bf_box_ok(bounding)) return BF_SUCCESS;
  const bf_box all = *bounding;
  for (int d = 0; d < all.dim; ++d) {
    int64_t p = period->period[d];
    if (p <= 0) continue;
    int64_t cells = bf_box_length(&all, d) - (all.type >> d & 1u);
    if (cells <= 2 * p) continue;
    char per[64] = "", lo[64] = "", hi[64] = "";
    for (int e = 0; e < all.dim; ++e) {
      snprintf(per + strlen(per), sizeof per - strlen(per), "%s%d", e ? "," : "", period->period[e]);
      snprintf(lo + strlen(lo), sizeof lo - strlen(lo), "%s%d", e ? "," : "", all.lo[e]);
      snprintf(hi + strlen(hi), sizeof hi - strlen(hi), "%s%d", e ? "," : "", all.hi[e]);
    }
    BF_ERROR(BF_ERROR_VALUE,
             "%s: the period (%s) does not fit the data: its boxes span %lld cells in direction %d (bounding box "
             "((%s) (%s))), more than two periods; a periodic domain holds the data (AMReX's Geometry: period = "
             "the domain's length)",
             what, per, (long long)cells, d, lo, hi);
  }
  return BF_SUCCESS;
}

/* s > 0 lexicographically, highest dimension most significant. */
static bool shift_positive(const int *s) {
  for (int d = 2; d >= 0; --d) {
    if (s[d] > 0) return true;
    if (s[d] < 0) return false;
  }
  return false;
}

static void zero_region(uint8_t *mask, const bf_box *region, const bf_box *sub) {
  int rlo[3], rhi[3], lo[3], hi[3];
  bf_box_pad3(region, rlo, rhi);
  bf_box_pad3(sub, lo, hi);
  int64_t nx = rhi[0] - rlo[0] + 1, ny = rhi[1] - rlo[1] + 1;
  for (int k = lo[2]; k <= hi[2]; ++k)
    for (int j = lo[1]; j <= hi[1]; ++j)
      memset(mask + ((int64_t)(k - rlo[2]) * ny + (j - rlo[1])) * nx + (lo[0] - rlo[0]), 0, (size_t)(hi[0] - lo[0] + 1));
}

int bf_mf_unique_mask(const bf_multifab *mf, int64_t li, const bf_box *region, const bf_box *all,
                      const bf_periodicity *period, bf_isect_list *scratch, uint8_t **out) {
  int64_t npts;
  BF_CALL(bf_box_numpts(region, &npts));
  uint8_t *mask = malloc((size_t)(npts > 0 ? npts : 1));
  BF_CHECK(mask != NULL, BF_ERROR_MEMORY, "out of memory for an owner mask");
  memset(mask, 1, (size_t)npts);
  int64_t gi = mf->lidx[li];
  const bf_box *boxes = bf_boxarray_data(mf->ba);
  /* the shifts under which some box may reach the region: from the bounding box */
  int *shifts, ns;
  int err = bf_mesh_periodic_shifts(all, region, period, NULL, &shifts, &ns); /* AMReX: shiftIntVect() */
  if (err) {
    free(mask);
    return err;
  }
  for (int si = 0; si < ns && !err; ++si) {
    const int *s = &shifts[3 * si];
    bf_box q = *region; /* boxes j with (box_j + s) ∩ region: query region - s */
    int ms[3] = {-s[0], -s[1], -s[2]};
    if (bf_box_shift_iv(&q, ms) != BF_SUCCESS) { /* region - s leaves int: no box is there */
      bf_error_clear();
      continue;
    }
    err = bf_mesh_intersecting(mf->ba, &q, scratch);
    if (err) break;
    for (int64_t c = 0; c < scratch->count; ++c) {
      int64_t j = scratch->index[c];
      bool zero = s[0] == 0 && s[1] == 0 && s[2] == 0;
      if (j > gi || (j == gi && (zero || !shift_positive(s)))) continue;
      bf_box ov; /* (box_j ∩ (region - s)) + s: int indices throughout */
      bf_box_intersection(&boxes[j], &q, &ov);
      if (!bf_box_ok(&ov)) continue;
      (void)bf_box_shift_iv(&ov, s);
      zero_region(mask, region, &ov);
    }
  }
  free(shifts);
  if (err) {
    free(mask);
    return err;
  }
  *out = mask;
  return BF_SUCCESS;
}

/* Adds 1 over `sub` (a sub-box of `region`) in counts over `region` (x fastest). */
static void add_one(double *cnt, const bf_box *region, const bf_box *sub) {
  int rlo[3], rhi[3], lo[3], hi[3];
  bf_box_pad3(region, rlo, rhi);
  bf_box_pad3(sub, lo, hi);
  int64_t nx = rhi[0] - rlo[0] + 1, ny = rhi[1] - rlo[1] + 1;
  for (int k = lo[2]; k <= hi[2]; ++k)
    for (int j = lo[1]; j <= hi[1]; ++j) {
      double *row = cnt + ((int64_t)(k - rlo[2]) * ny + (j - rlo[1])) * nx + (lo[0] - rlo[0]);
      for (int i = 0; i <= hi[0] - lo[0]; ++i) row[i] += 1.0;
    }
}

int bf_mf_overlap_count(const bf_multifab *mf, const bf_periodicity *period, bf_multifab **out, const char *what) {
  *out = NULL;
  BF_CALL(bf_mf_check_data(mf));
  BF_CALL(bf_mf_check_period(mf, period));
  const bf_box all = bf_mesh_bounding(mf->ba);
  BF_CALL(bf_mesh_check_period(&all, period, what));
  const bf_box *boxes = bf_boxarray_data(mf->ba);
  bf_multifab *cnt = NULL;
  BF_CALL(bf_multifab_create(mf->ba, mf->dm, 1, bf_intvect_splat(mf->dim, 0), BF_DTYPE_DOUBLE, mf->arena, true,
                             &cnt));
  const bf_backend *be = bf_backend_for_arena(cnt->arena);
  bf_isect_list scratch = {0};
  double *h = NULL;
  bool shared = false;
  int err = BF_SUCCESS;
  for (int64_t li = 0; li < mf->nlocal && !err; ++li) {
    const bf_box region = *mf_validbox(mf, li);
    int64_t npts;
    if ((err = bf_box_numpts(&region, &npts))) break;
    double *nh = realloc(h, (size_t)(npts > 0 ? npts : 1) * sizeof *h);
    if (!nh) {
      err = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory for the overlap counts");
      break;
    }
    h = nh;
    memset(h, 0, (size_t)npts * sizeof *h);
    int *shifts, ns;
    if ((err = bf_mesh_periodic_shifts(&all, &region, period, NULL, &shifts, &ns))) break;
    for (int si = 0; si < ns && !err; ++si) {
      const int *s = &shifts[3 * si];
      bf_box q = region; /* boxes j with (box_j + s) ∩ region: query region - s */
      int ms[3] = {-s[0], -s[1], -s[2]};
      if (bf_box_shift_iv(&q, ms) != BF_SUCCESS) {
        bf_error_clear();
        continue;
      }
      if ((err = bf_mesh_intersecting(mf->ba, &q, &scratch))) break;
      for (int64_t c = 0; c < scratch.count; ++c) {
        bf_box ov;
        bf_box_intersection(&boxes[scratch.index[c]], &q, &ov);
        if (!bf_box_ok(&ov)) continue;
        (void)bf_box_shift_iv(&ov, s);
        add_one(h, &region, &ov);
      }
    }
    free(shifts);
    for (int64_t p = 0; !err && p < npts && !shared; ++p) shared = h[p] > 1.0;
    bf_kview v;
    bf_mf_kview(cnt, li, &v);
    if (!err && npts > 0 && be->mem_copy(v.data, h, (size_t)npts * sizeof *h))
      err = bf_error_set(BF_ERROR_RUNTIME, __func__, "copying the overlap counts failed");
  }
  free(h);
  bf_isect_list_free(&scratch);
  if (err || !shared) {
    bf_multifab_destroy(&cnt);
    return err;
  }
  *out = cnt;
  return BF_SUCCESS;
}
