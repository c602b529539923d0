/* BoxArray intersection queries through a spatial hash (see
 * include/boxfab/boxarray.h).
 *
 * Bins: every non-empty box goes into the bin of its low corner coarsened
 * by ext[d], the largest box length in direction d.  Box B meets query Q in
 * direction d only if B.lo <= Q.hi and B.lo >= Q.lo - ext + 1 (B is at most
 * ext long), so a query looks at the bins of that range only.  The bins are
 * kept in CSR form (start/order; boxes of a bin in increasing index, and a
 * copy of them in that order for contiguous scans).  Two ways to find a bin:
 * - dense: when the bounding range of occupied bins has at most
 *   8 * boxes + 4096 bins (the usual case: boxes tile a domain), a bin's id
 *   is its linear index in that range (direction 0 fastest), so neighbouring
 *   bins are neighbours in memory;
 * - hashed: otherwise (scattered boxes), an open-addressing table keyed by
 *   the bin coordinates; when a query's range has more bins than exist, the
 *   query walks the existing bins instead.
 * Either way one query costs O(min(range, bins) + hits), never O(size)
 * for a query of a box's neighbourhood. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "index/boxarray_impl.h"

struct bf_boxarray_hash {
  int dim;
  bool dense;
  int64_t ext[BF_SPACEDIM_MAX]; /* bin size per direction (>= 1) */
  int binlo[BF_SPACEDIM_MAX];   /* range of occupied bin coordinates */
  int binhi[BF_SPACEDIM_MAX];
  int64_t stride[BF_SPACEDIM_MAX]; /* dense: linear index strides */
  int64_t nbins;                   /* dense: bins of the range; hashed: occupied bins */
  int64_t *start;                  /* nbins + 1 offsets into order / sorted */
  int64_t *order;                  /* box indices grouped by bin */
  bf_box *sorted;                  /* the boxes in `order` order */
  int (*key)[BF_SPACEDIM_MAX];     /* hashed: bin coordinates per bin id */
  int64_t tabmask;                 /* hashed: table size - 1 (power of 2) */
  int64_t *table;                  /* hashed: slot -> bin id, -1 when free */
};

void bf_boxarray_hash_free(struct bf_boxarray_hash *h) {
  if (!h) return;
  free(h->start), free(h->order), free(h->sorted), free(h->key), free(h->table);
  free(h);
}

static uint64_t hash_key(const int *k) {
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (int d = 0; d < BF_SPACEDIM_MAX; ++d) {
    x ^= (uint64_t)(uint32_t)k[d];
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
  }
  return x;
}

/* Hashed: slot of bin k, the one holding it or the free one where it would go. */
static int64_t find_slot(const struct bf_boxarray_hash *h, const int *k) {
  int64_t s = (int64_t)(hash_key(k) & (uint64_t)h->tabmask);
  for (;;) {
    int64_t id = h->table[s];
    if (id < 0 || memcmp(h->key[id], k, sizeof h->key[0]) == 0) return s;
    s = (s + 1) & h->tabmask;
  }
}

static int64_t floor_div64(int64_t a, int64_t b) { return a / b - ((a % b != 0 && a < 0) ? 1 : 0); }

/* Id of bin k (inside the occupied range), -1 when it holds no box. */
static int64_t bin_id(const struct bf_boxarray_hash *h, const int *k) {
  if (h->dense) {
    int64_t id = 0;
    for (int d = 0; d < BF_SPACEDIM_MAX; ++d)
      id += (int64_t)(k[d] - h->binlo[d]) * h->stride[d];
    return id;
  }
  return h->table[find_slot(h, k)];
}

static int hash_fail(struct bf_boxarray_hash *h, int (*kb)[BF_SPACEDIM_MAX], int64_t *binof, int64_t n) {
  free(kb), free(binof);
  bf_boxarray_hash_free(h);
  BF_ERROR(BF_ERROR_MEMORY, "out of memory for the query hash of %lld boxes", (long long)n);
}

static int hash_build(const bf_boxarray *ba, struct bf_boxarray_hash **out) {
  struct bf_boxarray_hash *h = calloc(1, sizeof *h);
  BF_CHECK(h != NULL, BF_ERROR_MEMORY, "out of memory for the BoxArray query hash");
  h->dim = ba->dim;
  int64_t nonempty = 0;
  for (int d = 0; d < BF_SPACEDIM_MAX; ++d)
    h->ext[d] = 1, h->binlo[d] = INT_MAX, h->binhi[d] = INT_MIN;
  for (int64_t i = 0; i < ba->n; ++i) {
    const bf_box *b = &ba->boxes[i];
    if (!bf_box_ok(b)) continue;
    ++nonempty;
    for (int d = 0; d < ba->dim; ++d)
      if (bf_box_length(b, d) > h->ext[d]) h->ext[d] = bf_box_length(b, d);
  }
  size_t nb = (size_t)(nonempty > 0 ? nonempty : 1);
  int(*kb)[BF_SPACEDIM_MAX] = malloc(nb * sizeof *kb); /* bin of each non-empty box, in box order */
  int64_t *binof = malloc(nb * sizeof *binof);
  if (!kb || !binof) return hash_fail(h, kb, binof, ba->n);
  int64_t m = 0;
  for (int64_t i = 0; i < ba->n; ++i) {
    const bf_box *b = &ba->boxes[i];
    if (!bf_box_ok(b)) continue;
    for (int d = 0; d < BF_SPACEDIM_MAX; ++d) {
      int k = d < ba->dim ? (int)floor_div64(b->lo[d], h->ext[d]) : 0;
      kb[m][d] = k;
      if (k < h->binlo[d]) h->binlo[d] = k;
      if (k > h->binhi[d]) h->binhi[d] = k;
    }
    ++m;
  }
  double cells = 1.0;
  for (int d = 0; d < BF_SPACEDIM_MAX; ++d)
    cells *= nonempty ? (double)h->binhi[d] - h->binlo[d] + 1 : 1.0;
  h->dense = nonempty > 0 && cells <= 8.0 * (double)nonempty + 4096.0;
  if (h->dense) {
    h->nbins = (int64_t)cells;
    int64_t st = 1;
    for (int d = 0; d < BF_SPACEDIM_MAX; ++d)
      h->stride[d] = st, st *= (int64_t)h->binhi[d] - h->binlo[d] + 1;
    for (int64_t t = 0; t < nonempty; ++t)
      binof[t] = bin_id(h, kb[t]);
  } else {
    int64_t tabsize = 2;
    while (tabsize < 2 * nonempty)
      tabsize *= 2;
    h->tabmask = tabsize - 1;
    h->table = malloc((size_t)tabsize * sizeof *h->table);
    h->key = malloc(nb * sizeof *h->key);
    if (!h->table || !h->key) return hash_fail(h, kb, binof, ba->n);
    for (int64_t s = 0; s < tabsize; ++s)
      h->table[s] = -1;
    for (int64_t t = 0; t < nonempty; ++t) {
      int64_t s = find_slot(h, kb[t]);
      if (h->table[s] < 0) {
        memcpy(h->key[h->nbins], kb[t], sizeof kb[t]);
        h->table[s] = h->nbins++;
      }
      binof[t] = h->table[s];
    }
  }
  free(kb);
  kb = NULL;
  h->start = calloc((size_t)h->nbins + 1, sizeof *h->start);
  h->order = malloc(nb * sizeof *h->order);
  h->sorted = malloc(nb * sizeof *h->sorted);
  if (!h->start || !h->order || !h->sorted) return hash_fail(h, kb, binof, ba->n);
  for (int64_t t = 0; t < nonempty; ++t)
    ++h->start[binof[t] + 1];
  for (int64_t b = 0; b < h->nbins; ++b)
    h->start[b + 1] += h->start[b];
  /* fill bin by bin with a cursor per bin: reuse binof as the cursor of each box's bin */
  int64_t *cursor = malloc((size_t)(h->nbins > 0 ? h->nbins : 1) * sizeof *cursor);
  if (!cursor) return hash_fail(h, kb, binof, ba->n);
  memcpy(cursor, h->start, (size_t)h->nbins * sizeof *cursor);
  m = 0;
  for (int64_t i = 0; i < ba->n; ++i) {
    if (!bf_box_ok(&ba->boxes[i])) continue;
    int64_t at = cursor[binof[m++]]++;
    h->order[at] = i;
    h->sorted[at] = ba->boxes[i];
  }
  free(cursor);
  free(binof);
  *out = h;
  return BF_SUCCESS;
}

/* The cached hash of ba, built on first use (thread-safe publication). */
static int get_hash(const bf_boxarray *ba, const struct bf_boxarray_hash **out) {
  bf_boxarray *mut = (bf_boxarray *)ba; /* the cache is logically const */
  struct bf_boxarray_hash *h = __atomic_load_n(&mut->hash, __ATOMIC_ACQUIRE);
  if (!h) {
    struct bf_boxarray_hash *built = NULL;
    BF_CALL(hash_build(ba, &built));
    struct bf_boxarray_hash *expected = NULL;
    if (__atomic_compare_exchange_n(&mut->hash, &expected, built, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      h = built;
    } else { /* another thread won the race: use its hash */
      bf_boxarray_hash_free(built);
      h = expected;
    }
  }
  *out = h;
  return BF_SUCCESS;
}

/* ---- result list ---------------------------------------------------------------------- */

void bf_isect_list_free(bf_isect_list *list) {
  if (!list) return;
  free(list->index), free(list->box);
  memset(list, 0, sizeof *list);
}

static int list_push(bf_isect_list *l, int64_t i) {
  if (l->count == l->capacity) {
    int64_t cap = l->capacity ? 2 * l->capacity : 16;
    int64_t *idx = realloc(l->index, (size_t)cap * sizeof *idx);
    if (idx) l->index = idx;
    bf_box *bx = realloc(l->box, (size_t)cap * sizeof *bx);
    if (bx) l->box = bx;
    BF_CHECK(idx && bx, BF_ERROR_MEMORY, "out of memory for intersection results");
    l->capacity = cap;
  }
  l->index[l->count++] = i;
  return BF_SUCCESS;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* ---- queries -------------------------------------------------------------------------- */

static int check_query(const bf_boxarray *ba, const bf_box *box) {
  BF_CHECK(box->dim == ba->dim, BF_ERROR_TYPE, "query box has dimension %d, the BoxArray %d", box->dim, ba->dim);
  BF_CHECK(box->type == ba->type, BF_ERROR_TYPE,
           "query box has index type 0x%x, the BoxArray 0x%x (convert one of them first)", box->type, ba->type);
  return BF_SUCCESS;
}

/* Scan bin b: push the boxes meeting q.  Returns 1 when done (first_only hit). */
static int scan_bin(const struct bf_boxarray_hash *h, int64_t b, const bf_box *q, bool first_only, bf_isect_list *out,
                    int *status) {
  for (int64_t t = h->start[b]; t < h->start[b + 1]; ++t) {
    if (!bf_box_intersects(&h->sorted[t], q)) continue;
    if ((*status = list_push(out, h->order[t])) != BF_SUCCESS) return 1;
    if (first_only) return 1;
  }
  return 0;
}

static void sort_indices(int64_t *v, int64_t n) {
  if (n > 32) {
    qsort(v, (size_t)n, sizeof *v, cmp_i64);
    return;
  }
  for (int64_t i = 1; i < n; ++i) { /* insertion sort: the usual handful of results */
    int64_t x = v[i], j = i;
    for (; j > 0 && v[j - 1] > x; --j)
      v[j] = v[j - 1];
    v[j] = x;
  }
}

int bf_boxarray_intersections(const bf_boxarray *ba, const bf_box *box, bool first_only, bf_isect_list *out) {
  BF_CALL(check_query(ba, box));
  out->count = 0;
  if (!bf_box_ok(box) || ba->n == 0) return BF_SUCCESS;
  const struct bf_boxarray_hash *h = NULL;
  BF_CALL(get_hash(ba, &h));
  if (h->nbins == 0) return BF_SUCCESS;
  /* range of bins whose boxes can meet box, clipped to the occupied range */
  int lo[BF_SPACEDIM_MAX], hi[BF_SPACEDIM_MAX];
  double nrange = 1.0;
  for (int d = 0; d < BF_SPACEDIM_MAX; ++d) {
    int64_t e = h->ext[d];
    int64_t qlo = d < ba->dim ? (int64_t)box->lo[d] - e + 1 : 0, qhi = d < ba->dim ? box->hi[d] : 0;
    int64_t blo = floor_div64(qlo, e), bhi = floor_div64(qhi, e);
    if (blo < h->binlo[d]) blo = h->binlo[d];
    if (bhi > h->binhi[d]) bhi = h->binhi[d];
    if (bhi < blo) return BF_SUCCESS;
    lo[d] = (int)blo, hi[d] = (int)bhi;
    nrange *= (double)(bhi - blo + 1);
  }
  int status = BF_SUCCESS;
  bool done = false;
  if (!h->dense && nrange > (double)h->nbins) { /* fewer bins exist than the range has: walk them */
    for (int64_t b = 0; b < h->nbins && !done; ++b) {
      bool in = true;
      for (int d = 0; d < BF_SPACEDIM_MAX; ++d)
        in = in && h->key[b][d] >= lo[d] && h->key[b][d] <= hi[d];
      if (in) done = scan_bin(h, b, box, first_only, out, &status);
    }
  } else {
    int k[BF_SPACEDIM_MAX];
    memcpy(k, lo, sizeof k);
    while (!done) {
      int64_t id = bin_id(h, k);
      if (id >= 0) done = scan_bin(h, id, box, first_only, out, &status);
      int d = 0;
      while (d < BF_SPACEDIM_MAX && k[d] == hi[d])
        k[d] = lo[d], ++d;
      if (d == BF_SPACEDIM_MAX) break;
      ++k[d];
    }
  }
  if (status != BF_SUCCESS) {
    out->count = 0;
    return status;
  }
  sort_indices(out->index, out->count);
  for (int64_t t = 0; t < out->count; ++t)
    bf_box_intersection(&ba->boxes[out->index[t]], box, &out->box[t]);
  return BF_SUCCESS;
}

int bf_boxarray_intersects(const bf_boxarray *ba, const bf_box *box, bool *result) {
  bf_isect_list l = {0};
  int s = bf_boxarray_intersections(ba, box, true, &l);
  if (s == BF_SUCCESS) *result = l.count > 0;
  bf_isect_list_free(&l);
  return s;
}

int bf_boxarray_contains_point(const bf_boxarray *ba, const int *p, bool *result) {
  bf_box q = {.dim = ba->dim, .type = ba->type};
  for (int d = 0; d < ba->dim; ++d)
    q.lo[d] = q.hi[d] = p[d];
  return bf_boxarray_intersects(ba, &q, result);
}

/* ---- contains(box): subtract the intersections from the box ------------------------------ */

typedef struct {
  int64_t n, cap;
  bf_box *b;
} box_vec;

static int vec_push(box_vec *v, const bf_box *b) {
  if (v->n == v->cap) {
    int64_t cap = v->cap ? 2 * v->cap : 16;
    bf_box *nb = realloc(v->b, (size_t)cap * sizeof *nb);
    BF_CHECK(nb != NULL, BF_ERROR_MEMORY, "out of memory in BoxArray contains");
    v->b = nb, v->cap = cap;
  }
  v->b[v->n++] = *b;
  return BF_SUCCESS;
}

/* Push the pieces of p outside c (p & c non-empty) into v: at most 2 * dim boxes. */
static int push_difference(box_vec *v, bf_box p, const bf_box *c) {
  for (int d = 0; d < p.dim; ++d) {
    if (p.lo[d] < c->lo[d]) {
      bf_box s = p;
      s.hi[d] = c->lo[d] - 1;
      BF_CALL(vec_push(v, &s));
      p.lo[d] = c->lo[d];
    }
    if (p.hi[d] > c->hi[d]) {
      bf_box s = p;
      s.lo[d] = c->hi[d] + 1;
      BF_CALL(vec_push(v, &s));
      p.hi[d] = c->hi[d];
    }
  }
  return BF_SUCCESS;
}

int bf_boxarray_contains(const bf_boxarray *ba, const bf_box *box, bool *result) {
  BF_CALL(check_query(ba, box));
  *result = false;
  if (!bf_box_ok(box)) return BF_SUCCESS;
  bf_isect_list l = {0};
  box_vec cur = {0}, next = {0};
  int s = bf_boxarray_intersections(ba, box, false, &l);
  double covered = 0.0; /* quick reject: the pieces cannot cover the box */
  for (int64_t t = 0; s == BF_SUCCESS && t < l.count; ++t)
    covered += bf_box_d_numpts(&l.box[t]);
  if (s == BF_SUCCESS && covered >= bf_box_d_numpts(box)) {
    s = vec_push(&cur, box);
    for (int64_t t = 0; s == BF_SUCCESS && t < l.count && cur.n > 0; ++t) {
      next.n = 0;
      for (int64_t r = 0; s == BF_SUCCESS && r < cur.n; ++r) {
        if (bf_box_intersects(&cur.b[r], &l.box[t]))
          s = push_difference(&next, cur.b[r], &l.box[t]);
        else
          s = vec_push(&next, &cur.b[r]);
      }
      box_vec tmp = cur;
      cur = next, next = tmp;
    }
    if (s == BF_SUCCESS) *result = cur.n == 0;
  }
  free(cur.b), free(next.b);
  bf_isect_list_free(&l);
  return s;
}
