/* Copy plans for the ghost exchange and the copies between layouts, and
 * their cache.  A plan lists (dst fab, src fab, region in dst index space,
 * shift) with src index = dst index - shift, sorted by dst fab.  Plans are
 * computed once per key (layouts, ghost widths, periodicity, cross, kind) and
 * cached; a cache entry holds references to the BoxArrays and
 * DistributionMappings of its key (which are immutable), so a key can never be
 * confused with a later object at the same address; the least recently used
 * entry goes when the cache is full. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "boxfab/runtime.h"
#include "fillboundary_impl.h"

/* ---- box helpers --------------------------------------------------------------- */

/* a \ b as at most 2*dim disjoint boxes (a itself when they do not meet). */
static int box_diff(const bf_box *a, const bf_box *b, bf_box *out) {
  bf_box in;
  bf_box_intersection(a, b, &in);
  if (!bf_box_ok(&in)) {
    out[0] = *a;
    return 1;
  }
  bf_box rest = *a;
  int n = 0;
  for (int d = 0; d < a->dim; ++d) {
    if (rest.lo[d] < in.lo[d]) {
      bf_box p = rest;
      p.hi[d] = in.lo[d] - 1;
      out[n++] = p;
      rest.lo[d] = in.lo[d];
    }
    if (rest.hi[d] > in.hi[d]) {
      bf_box p = rest;
      p.lo[d] = in.hi[d] + 1;
      out[n++] = p;
      rest.hi[d] = in.hi[d];
    }
  }
  return n;
}

static bf_box bounding(const bf_boxarray *ba, const int *grow) {
  const bf_box *b = bf_boxarray_data(ba);
  bf_box all = b[0];
  for (int64_t j = 1; j < bf_boxarray_size(ba); ++j) bf_box_minimal(&all, &b[j], &all);
  (void)bf_box_grow(&all, grow);
  return all;
}

static bool shift_positive(const int *s) {
  for (int d = 2; d >= 0; --d) {
    if (s[d] > 0) return true;
    if (s[d] < 0) return false;
  }
  return false;
}

typedef struct itemvec {
  bf_copy_item *v;
  int64_t n, cap;
} itemvec;

static int push(itemvec *iv, int64_t dst, int64_t src, const bf_box *region, const int *s) {
  if (iv->n == iv->cap) {
    int64_t nc = iv->cap ? 2 * iv->cap : 64;
    bf_copy_item *nv = realloc(iv->v, (size_t)nc * sizeof *nv);
    BF_CHECK(nv != NULL, BF_ERROR_MEMORY, "out of memory for a copy plan");
    iv->v = nv, iv->cap = nc;
  }
  bf_copy_item *it = &iv->v[iv->n++];
  it->dst_li = dst, it->src_li = src, it->region = *region;
  memcpy(it->shift, s, sizeof it->shift);
  return BF_SUCCESS;
}

/* For the target box `t` of local dst fab di (global gi): every src box j
 * (grown by sng) under every periodic shift s that meets t, filtered by
 * `accept`, pushed as items.  `self_pass`: 0 all, 1 only j != gi or s = 0
 * excluded..., see accept below. */
typedef bool (*accept_fn)(int64_t gi, int64_t j, const int *s);

static int add_items(itemvec *iv, const bf_plan_key *k, int64_t di, int64_t gi, const bf_box *t, accept_fn accept,
                     const int64_t *src_g2l) {
  int *shifts, ns;
  bf_box all = bounding(k->src_ba, k->src_ng);
  BF_CALL(bf_mesh_periodic_shifts(&all, t, k->has_period ? &k->period : NULL, &shifts, &ns));
  const bf_box *sb = bf_boxarray_data(k->src_ba);
  int err = BF_SUCCESS;
  for (int si = 0; si < ns && !err; ++si) {
    const int *s = &shifts[3 * si];
    bf_box q = *t;
    int ms[3] = {-s[0], -s[1], -s[2]};
    (void)bf_box_shift_iv(&q, ms);
    (void)bf_box_grow(&q, k->src_ng); /* grow(v_j, sng) meets q  <=>  v_j meets grow(q, sng) */
    int64_t *cand, nc;
    err = bf_mesh_intersecting(k->src_ba, &q, &cand, &nc);
    if (err) break;
    for (int64_t c = 0; c < nc && !err; ++c) {
      int64_t j = cand[c];
      if (accept && !accept(gi, j, s)) continue;
      if (src_g2l[j] < 0) continue; /* remote: needs the distributed engine */
      bf_box r = sb[j];
      (void)bf_box_grow(&r, k->src_ng);
      (void)bf_box_shift_iv(&r, s);
      bf_box_intersection(&r, t, &r);
      if (bf_box_ok(&r)) err = push(iv, di, src_g2l[j], &r, s);
    }
    free(cand);
  }
  free(shifts);
  return err;
}

static bool not_self(int64_t gi, int64_t j, const int *s) { return !(j == gi && !s[0] && !s[1] && !s[2]); }
static bool lower_owner(int64_t gi, int64_t j, const int *s) {
  (void)s;
  return j < gi;
}
static bool self_image(int64_t gi, int64_t j, const int *s) { return j == gi && shift_positive(s); }

static int64_t *g2l_of(const bf_distmap *dm, int64_t n, int64_t *nlocal) {
  int64_t *g = malloc((size_t)(n > 0 ? n : 1) * sizeof *g);
  if (!g) return NULL;
  const int *p = bf_distmap_data(dm);
  int me = bf_parallel_myproc();
  int64_t m = 0;
  for (int64_t i = 0; i < n; ++i) g[i] = p[i] == me ? m++ : -1;
  if (nlocal) *nlocal = m;
  return g;
}

static int build(const bf_plan_key *k, bf_plan *plan) {
  itemvec iv = {0};
  int64_t nd = bf_boxarray_size(k->dst_ba), ns = bf_boxarray_size(k->src_ba);
  int64_t *dg = g2l_of(k->dst_dm, nd, NULL), *sg = g2l_of(k->src_dm, ns, NULL);
  int err = BF_SUCCESS;
  if (!dg || !sg) err = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory for a copy plan");
  const bf_box *db = bf_boxarray_data(k->dst_ba);
  int dim = bf_boxarray_dim(k->dst_ba);
  for (int64_t gi = 0; gi < nd && !err; ++gi) {
    int64_t di = dg[gi];
    if (di < 0) continue;
    const bf_box *v = &db[gi];
    switch (k->kind) {
    case BF_PLAN_FILL_BOUNDARY: {
      bf_box pieces[2 * BF_SPACEDIM_MAX];
      int np = 0;
      if (k->cross) {
        for (int d = 0; d < dim; ++d) {
          if (k->dst_ng[d] == 0) continue;
          bf_box lo = *v, hi = *v;
          lo.hi[d] = v->lo[d] - 1, lo.lo[d] = v->lo[d] - k->dst_ng[d];
          hi.lo[d] = v->hi[d] + 1, hi.hi[d] = v->hi[d] + k->dst_ng[d];
          pieces[np++] = lo, pieces[np++] = hi;
        }
      } else {
        bf_box g = *v;
        (void)bf_box_grow(&g, k->dst_ng);
        np = bf_box_equal(&g, v) ? 0 : box_diff(&g, v, pieces);
      }
      for (int p = 0; p < np && !err; ++p) err = add_items(&iv, k, di, gi, &pieces[p], not_self, sg);
      break;
    }
    case BF_PLAN_COPY:
    case BF_PLAN_SUM_BOUNDARY: {
      bf_box t = *v;
      (void)bf_box_grow(&t, k->dst_ng);
      err = add_items(&iv, k, di, gi, &t, k->kind == BF_PLAN_SUM_BOUNDARY ? not_self : NULL, sg);
      break;
    }
    case BF_PLAN_OVERRIDE_SYNC:
      err = add_items(&iv, k, di, gi, v, lower_owner, sg);
      if (!err) err = add_items(&iv, k, di, gi, v, self_image, sg); /* after the others: see override_sync */
      break;
    case BF_PLAN_AVERAGE_SYNC: err = add_items(&iv, k, di, gi, v, not_self, sg); break;
    default: break;
    }
  }
  /* groups: runs of one dst fab */
  int64_t ng = 0;
  int64_t *gs = err ? NULL : malloc((size_t)(iv.n + 1) * sizeof *gs);
  if (!err && !gs) err = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory for a copy plan");
  if (!err) {
    for (int64_t i = 0; i < iv.n; ++i)
      if (i == 0 || iv.v[i].dst_li != iv.v[i - 1].dst_li) gs[ng++] = i;
    gs[ng] = iv.n;
  }
  /* a sum needs a copy of the sources when an item reads cells that some dst target writes */
  bool tmp = false;
  if (!err && k->kind == BF_PLAN_SUM_BOUNDARY) {
    const bf_box *sb = bf_boxarray_data(k->src_ba);
    int64_t *l2g = malloc((size_t)(ns > 0 ? ns : 1) * sizeof *l2g);
    if (!l2g) err = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory");
    for (int64_t j = 0; !err && j < ns; ++j)
      if (sg[j] >= 0) l2g[sg[j]] = j;
    for (int64_t i = 0; !err && i < iv.n && !tmp; ++i) {
      bf_box r = iv.v[i].region, t = sb[l2g[iv.v[i].src_li]];
      int ms[3] = {-iv.v[i].shift[0], -iv.v[i].shift[1], -iv.v[i].shift[2]};
      (void)bf_box_shift_iv(&r, ms);
      (void)bf_box_grow(&t, k->dst_ng);
      tmp = bf_box_intersects(&r, &t);
    }
    free(l2g);
  }
  free(dg), free(sg);
  if (err) {
    free(iv.v), free(gs);
    return err;
  }
  plan->items = iv.v, plan->nitems = iv.n;
  plan->group_start = gs, plan->ngroups = ng;
  plan->needs_tmp = tmp;
  return BF_SUCCESS;
}

/* ---- the cache ----------------------------------------------------------------- */

typedef struct entry {
  bf_plan_key key;
  bf_plan *plan;
  uint64_t used;
} entry;

static entry bf_cache[BF_PLAN_CACHE_SIZE];
static int bf_ncache;
static uint64_t bf_clock;
static pthread_mutex_t bf_cache_lock = PTHREAD_MUTEX_INITIALIZER;

static bool key_equal(const bf_plan_key *a, const bf_plan_key *b) {
  return a->kind == b->kind && a->dst_ba == b->dst_ba && a->dst_dm == b->dst_dm && a->src_ba == b->src_ba &&
         a->src_dm == b->src_dm && !memcmp(a->dst_ng, b->dst_ng, sizeof a->dst_ng) &&
         !memcmp(a->src_ng, b->src_ng, sizeof a->src_ng) && a->has_period == b->has_period &&
         (!a->has_period || !memcmp(a->period.period, b->period.period, sizeof a->period.period)) &&
         a->cross == b->cross;
}

static void plan_release(bf_plan *p) {
  if (p && __atomic_sub_fetch(&p->refcount, 1, __ATOMIC_ACQ_REL) == 0) {
    free(p->items);
    free(p->group_start);
    free(p);
  }
}

void bf_plan_done(bf_plan *p) { plan_release(p); }

static void drop_entry(entry *e) {
  bf_boxarray_destroy(&e->key.dst_ba);
  bf_boxarray_destroy(&e->key.src_ba);
  bf_distmap_destroy(&e->key.dst_dm);
  bf_distmap_destroy(&e->key.src_dm);
  plan_release(e->plan);
  e->plan = NULL;
}

int bf_plan_get(const bf_plan_key *key, bf_plan **out) {
  pthread_mutex_lock(&bf_cache_lock);
  for (int i = 0; i < bf_ncache; ++i)
    if (key_equal(&bf_cache[i].key, key)) {
      bf_cache[i].used = ++bf_clock;
      bf_plan *p = bf_cache[i].plan;
      __atomic_add_fetch(&p->refcount, 1, __ATOMIC_RELAXED);
      pthread_mutex_unlock(&bf_cache_lock);
      *out = p;
      return BF_SUCCESS;
    }
  pthread_mutex_unlock(&bf_cache_lock);
  bf_plan *p = calloc(1, sizeof *p);
  BF_CHECK(p != NULL, BF_ERROR_MEMORY, "out of memory for a copy plan");
  int err = build(key, p);
  if (err) {
    free(p);
    return err;
  }
  p->refcount = 2; /* the cache's and the caller's */
  pthread_mutex_lock(&bf_cache_lock);
  int slot = bf_ncache;
  if (bf_ncache == BF_PLAN_CACHE_SIZE) {
    slot = 0;
    for (int i = 1; i < bf_ncache; ++i)
      if (bf_cache[i].used < bf_cache[slot].used) slot = i;
    drop_entry(&bf_cache[slot]);
  } else {
    ++bf_ncache;
  }
  entry *e = &bf_cache[slot];
  e->key = *key;
  bf_boxarray_retain(e->key.dst_ba), bf_boxarray_retain(e->key.src_ba);
  bf_distmap_retain(e->key.dst_dm), bf_distmap_retain(e->key.src_dm);
  e->plan = p;
  e->used = ++bf_clock;
  pthread_mutex_unlock(&bf_cache_lock);
  *out = p;
  return BF_SUCCESS;
}

int bf_plan_cache_size(void) {
  pthread_mutex_lock(&bf_cache_lock);
  int n = bf_ncache;
  pthread_mutex_unlock(&bf_cache_lock);
  return n;
}

void bf_plan_cache_clear(void) {
  pthread_mutex_lock(&bf_cache_lock);
  for (int i = 0; i < bf_ncache; ++i) drop_entry(&bf_cache[i]);
  bf_ncache = 0;
  pthread_mutex_unlock(&bf_cache_lock);
}
