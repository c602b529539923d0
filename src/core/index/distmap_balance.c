/* Balanced DistributionMappings: space-filling curve, round robin, knapsack
 * (see bf_distmap_create_balanced in include/boxfab/distmap.h). */
#include <stdlib.h>

#include "index/boxarray_impl.h"
#include "index/distmap_impl.h"

typedef struct {
  uint64_t c[BF_SPACEDIM_MAX]; /* box centre * 2, shifted to be >= 0 */
  double w;                    /* weight: number of cells */
  int64_t i;                   /* box index */
} item;

/* x's highest set bit is below y's. */
static int less_msb(uint64_t x, uint64_t y) { return x < y && x < (x ^ y); }

/* Morton (Z-order) comparison without building keys: the direction with the
 * highest differing bit decides (direction 0 wins ties); then the index. */
static int cmp_morton(const void *pa, const void *pb) {
  const item *a = pa, *b = pb;
  int msd = 0;
  uint64_t x = 0;
  for (int d = 0; d < BF_SPACEDIM_MAX; ++d) {
    uint64_t y = a->c[d] ^ b->c[d];
    if (less_msb(x, y)) msd = d, x = y;
  }
  if (a->c[msd] != b->c[msd]) return a->c[msd] < b->c[msd] ? -1 : 1;
  return (a->i > b->i) - (a->i < b->i);
}

/* Heavier first, then lower index. */
static int cmp_weight(const void *pa, const void *pb) {
  const item *a = pa, *b = pb;
  if (a->w != b->w) return a->w > b->w ? -1 : 1;
  return (a->i > b->i) - (a->i < b->i);
}

static void assign_sfc(item *it, int64_t n, int nprocs, int *pmap) {
  qsort(it, (size_t)n, sizeof *it, cmp_morton);
  double total = 0.0;
  for (int64_t k = 0; k < n; ++k)
    total += it[k].w;
  bool unit = !(total > 0.0); /* only empty boxes: count boxes instead */
  if (unit) total = (double)n;
  double before = 0.0;
  for (int64_t k = 0; k < n; ++k) {
    double w = unit ? 1.0 : it[k].w;
    double r = (double)nprocs * (before + 0.5 * w) / total;
    int rank = r >= (double)nprocs ? nprocs - 1 : (int)r;
    pmap[it[k].i] = rank < 0 ? 0 : rank;
    before += w;
  }
}

static void assign_round_robin(item *it, int64_t n, int nprocs, int *pmap) {
  qsort(it, (size_t)n, sizeof *it, cmp_weight);
  for (int64_t k = 0; k < n; ++k)
    pmap[it[k].i] = (int)(k % nprocs);
}

/* Min-heap of ranks by (load, rank). */
typedef struct {
  double load;
  int rank;
} slot;

static int slot_less(const slot *a, const slot *b) {
  return a->load < b->load || (a->load == b->load && a->rank < b->rank);
}

static void sift_down(slot *h, int64_t m, int64_t k) {
  for (;;) {
    int64_t l = 2 * k + 1, r = l + 1, s = k;
    if (l < m && slot_less(&h[l], &h[s])) s = l;
    if (r < m && slot_less(&h[r], &h[s])) s = r;
    if (s == k) return;
    slot t = h[k];
    h[k] = h[s], h[s] = t;
    k = s;
  }
}

static int assign_knapsack(item *it, int64_t n, int nprocs, int *pmap) {
  qsort(it, (size_t)n, sizeof *it, cmp_weight);
  /* ranks beyond the n-th never get a box (ties go to the lowest rank) */
  int64_t m = n < nprocs ? n : nprocs;
  slot *h = malloc((size_t)(m > 0 ? m : 1) * sizeof *h);
  BF_CHECK(h != NULL, BF_ERROR_MEMORY, "out of memory for the knapsack of %lld ranks", (long long)m);
  for (int64_t k = 0; k < m; ++k)
    h[k] = (slot){0.0, (int)k}; /* already a heap */
  for (int64_t k = 0; k < n; ++k) {
    pmap[it[k].i] = h[0].rank;
    h[0].load += it[k].w;
    sift_down(h, m, 0);
  }
  free(h);
  return BF_SUCCESS;
}

int bf_distmap_create_balanced(const bf_boxarray *ba, int nprocs, bf_distmap_strategy strategy, bf_distmap **out) {
  BF_CHECK(nprocs >= 1, BF_ERROR_VALUE, "nprocs must be >= 1, got %d", nprocs);
  BF_CHECK(strategy == BF_DISTMAP_SFC || strategy == BF_DISTMAP_ROUND_ROBIN || strategy == BF_DISTMAP_KNAPSACK,
           BF_ERROR_VALUE, "unknown distribution strategy %d", (int)strategy);
  int64_t n = ba->n;
  bf_distmap *dm = NULL;
  BF_CALL(bf_distmap_alloc(n, nprocs, &dm));
  if (n == 0) {
    *out = dm;
    return BF_SUCCESS;
  }
  if (strategy == BF_DISTMAP_SFC && n <= nprocs) {
    for (int64_t k = 0; k < n; ++k)
      dm->pmap[k] = (int)k;
    *out = dm;
    return BF_SUCCESS;
  }
  item *it = (uint64_t)n <= SIZE_MAX / sizeof(item) ? malloc((size_t)n * sizeof *it) : NULL;
  if (!it) {
    bf_distmap_destroy(&dm);
    BF_ERROR(BF_ERROR_MEMORY, "out of memory to distribute %lld boxes", (long long)n);
  }
  int64_t cmin[BF_SPACEDIM_MAX] = {0, 0, 0};
  for (int64_t k = 0; k < n; ++k)
    for (int d = 0; d < ba->dim; ++d) {
      int64_t c = (int64_t)ba->boxes[k].lo[d] + ba->boxes[k].hi[d];
      if (k == 0 || c < cmin[d]) cmin[d] = c;
    }
  for (int64_t k = 0; k < n; ++k) {
    const bf_box *b = &ba->boxes[k];
    it[k].i = k;
    it[k].w = bf_box_d_numpts(b);
    for (int d = 0; d < BF_SPACEDIM_MAX; ++d)
      it[k].c[d] = d < ba->dim ? (uint64_t)((int64_t)b->lo[d] + b->hi[d] - cmin[d]) : 0;
  }
  int s = BF_SUCCESS;
  switch (strategy) {
  case BF_DISTMAP_SFC:
    assign_sfc(it, n, nprocs, dm->pmap);
    break;
  case BF_DISTMAP_ROUND_ROBIN:
    assign_round_robin(it, n, nprocs, dm->pmap);
    break;
  case BF_DISTMAP_KNAPSACK:
    s = assign_knapsack(it, n, nprocs, dm->pmap);
    break;
  }
  free(it);
  if (s != BF_SUCCESS) {
    bf_distmap_destroy(&dm);
    return s;
  }
  *out = dm;
  return BF_SUCCESS;
}
