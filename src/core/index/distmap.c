/* DistributionMapping storage (see include/boxfab/distmap.h); the balanced
 * strategies are in distmap_balance.c. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "index/distmap_impl.h"

static void distmap_free(bf_object *obj) {
  bf_distmap *dm = (bf_distmap *)obj;
  free(dm->pmap);
  free(dm);
}

int bf_distmap_alloc(int64_t n, int nprocs, bf_distmap **out) {
  BF_CHECK(n >= 0, BF_ERROR_VALUE, "negative size %lld", (long long)n);
  BF_CHECK((uint64_t)n <= SIZE_MAX / sizeof(int), BF_ERROR_MEMORY,
           "a DistributionMapping of %lld boxes does not fit in memory", (long long)n);
  bf_distmap *dm = calloc(1, sizeof *dm);
  int *p = malloc((size_t)(n > 0 ? n : 1) * sizeof *p);
  if (!dm || !p) {
    free(dm), free(p);
    BF_ERROR(BF_ERROR_MEMORY, "out of memory for a DistributionMapping of %lld boxes", (long long)n);
  }
  bf_object_init(&dm->obj, distmap_free);
  dm->n = n;
  dm->nprocs = nprocs;
  dm->pmap = p;
  *out = dm;
  return BF_SUCCESS;
}

int bf_distmap_create_from_pmap(int64_t n, const int *pmap, bf_distmap **out) {
  BF_CHECK(n >= 0, BF_ERROR_VALUE, "negative size %lld", (long long)n);
  int maxrank = 0;
  for (int64_t i = 0; i < n; ++i) {
    BF_CHECK(pmap[i] >= 0, BF_ERROR_VALUE, "rank of box %lld is negative (%d)", (long long)i, pmap[i]);
    if (pmap[i] > maxrank) maxrank = pmap[i];
  }
  bf_distmap *dm = NULL;
  BF_CALL(bf_distmap_alloc(n, maxrank == INT_MAX ? INT_MAX : maxrank + 1, &dm));
  if (n > 0) memcpy(dm->pmap, pmap, (size_t)n * sizeof *pmap);
  *out = dm;
  return BF_SUCCESS;
}

bf_distmap *bf_distmap_retain(bf_distmap *dm) {
  bf_object_retain(&dm->obj);
  return dm;
}

void bf_distmap_destroy(bf_distmap **dm) {
  if (!dm || !*dm) return;
  bf_object_release(&(*dm)->obj);
  *dm = NULL;
}

long bf_distmap_refcount(const bf_distmap *dm) { return bf_object_refcount(&dm->obj); }

int64_t bf_distmap_size(const bf_distmap *dm) { return dm->n; }

int bf_distmap_get(const bf_distmap *dm, int64_t i, int *rank) {
  BF_CHECK(i >= 0 && i < dm->n, BF_ERROR_INDEX, "box index %lld out of range for a DistributionMapping of %lld",
           (long long)i, (long long)dm->n);
  *rank = dm->pmap[i];
  return BF_SUCCESS;
}

const int *bf_distmap_data(const bf_distmap *dm) { return dm->pmap; }

int bf_distmap_nprocs(const bf_distmap *dm) { return dm->nprocs; }

bool bf_distmap_equal(const bf_distmap *a, const bf_distmap *b) {
  if (a == b) return true;
  if (a->n != b->n) return false;
  return a->n == 0 || memcmp(a->pmap, b->pmap, (size_t)a->n * sizeof *a->pmap) == 0;
}
