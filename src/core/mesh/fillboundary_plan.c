/* Copy plans for the ghost exchange and the copies between layouts, and
 * their cache.  A plan lists (dst fab, src fab, region in dst index space,
 * shift) with src index = dst index - shift, sorted by dst fab.  Plans are
 * computed once per key (layouts, ghost widths, periodicity, cross, kind) and
 * cached; a cache entry holds references to the BoxArrays and
 * DistributionMappings of its key (which are immutable), so a key can never be
 * confused with a later object at the same address; the least recently used
 * entry goes when the cache is full.
 *
 * Building: source boxes come from the BoxArray's hashed query (O(neighbours)
 * per box); items of one destination fab that share source and shift and
 * form one box are fused.  A plan is compiled, once per pair of fab shapes
 * (ghost widths), into block copies with precomputed offsets and strides
 * (bf_plan_exec); a fill_boundary plan whose items write disjoint points
 * ("free order") is compiled into pairs of a copy and its mirror, run
 * row-interleaved by the backend so that each cache line is fetched once. */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "boxfab/runtime.h"
#include "runtime/comm.h"
#include "mesh/fillboundary_impl.h"

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
 * (grown by sng) under every periodic shift s that meets t and that `accept`
 * takes (NULL: all), pushed as items.  `all`: bounding box of the grown src
 * boxes; `q`: a reusable query list. */
typedef bool (*accept_fn)(int64_t gi, int64_t j, const int *s);

/* b grown by g[d] on both sides, clamped to the range of int (a query box
 * only needs to contain what it looks for). */
static bf_box grow_clamped(const bf_box *b, const int *g) {
  bf_box r = *b;
  for (int d = 0; d < b->dim; ++d) {
    int64_t lo = (int64_t)b->lo[d] - g[d], hi = (int64_t)b->hi[d] + g[d];
    r.lo[d] = lo < INT_MIN ? INT_MIN : lo > INT_MAX ? INT_MAX : (int)lo;
    r.hi[d] = hi < INT_MIN ? INT_MIN : hi > INT_MAX ? INT_MAX : (int)hi;
  }
  return r;
}

static int add_items(itemvec *iv, const bf_plan_key *k, int64_t di, int64_t gi, const bf_box *t, accept_fn accept,
                     const int *shift_ng, const int64_t *src_g2l, const bf_box *all, bf_isect_list *ql) {
  int *shifts, ns;
  BF_CALL(bf_mesh_periodic_shifts(all, t, k->has_period ? &k->period : NULL, shift_ng, &shifts, &ns));
  const bf_box *sb = bf_boxarray_data(k->src_ba);
  int err = BF_SUCCESS;
  for (int si = 0; si < ns && !err; ++si) {
    const int *s = &shifts[3 * si];
    bf_box q = *t;
    int ms[3] = {-s[0], -s[1], -s[2]};
    if (bf_box_shift_iv(&q, ms) != BF_SUCCESS) { /* t - s leaves int: no box of int indices is there */
      bf_error_clear();
      continue;
    }
    bf_box qg = grow_clamped(&q, k->src_ng); /* grow(v_j, sng) meets q  <=>  v_j meets grow(q, sng) */
    err = bf_mesh_intersecting(k->src_ba, &qg, ql);
    for (int64_t c = 0; c < ql->count && !err; ++c) {
      int64_t j = ql->index[c];
      if (accept && !accept(gi, j, s)) continue;
      if (src_g2l[j] < 0) continue; /* remote: needs the distributed engine */
      /* (grow(v_j, sng) ∩ (t - s)) + s: every box here has int indices (the
       * source's fab boxes fit in int, MultiFab creation checks it) */
      bf_box r = sb[j];
      (void)bf_box_grow(&r, k->src_ng);
      bf_box_intersection(&r, &q, &r);
      if (!bf_box_ok(&r)) continue;
      (void)bf_box_shift_iv(&r, s);
      err = push(iv, di, src_g2l[j], &r, s);
    }
  }
  free(shifts);
  return err;
}

static const char *plan_name(int kind) {
  switch (kind) {
  case BF_PLAN_FILL_BOUNDARY: return "fill_boundary";
  case BF_PLAN_COPY: return "parallel_copy";
  case BF_PLAN_SUM_BOUNDARY: return "sum_boundary";
  case BF_PLAN_OVERRIDE_SYNC: return "override_sync";
  default: return "average_sync";
  }
}

/* a and b (same dim) side by side along one direction with equal extents in
 * the others: *u = their union. */
static bool box_union_exact(const bf_box *a, const bf_box *b, bf_box *u) {
  int along = -1;
  for (int d = 0; d < a->dim; ++d) {
    if (a->lo[d] == b->lo[d] && a->hi[d] == b->hi[d]) continue;
    if (along >= 0) return false;
    if (a->hi[d] + 1 != b->lo[d] && b->hi[d] + 1 != a->lo[d]) return false;
    along = d;
  }
  if (along < 0) return false; /* equal boxes: not merged (the same cells twice) */
  *u = *a;
  u->lo[along] = a->lo[along] < b->lo[along] ? a->lo[along] : b->lo[along];
  u->hi[along] = a->hi[along] > b->hi[along] ? a->hi[along] : b->hi[along];
  return true;
}

/* Fuse items of one dst fab with the same source fab and shift whose regions
 * form one box, into fewer and larger copies.  Item i moves up to the
 * earlier item j it joins only when no item in between writes points of i's
 * region, so every point still gets its writes in the same order; j is
 * looked for among the 64 items before i.  Repeats until nothing fuses. */
static void merge_items(itemvec *iv) {
  bool changed = true;
  while (changed) {
    changed = false;
    int64_t m = 0;
    for (int64_t i = 0; i < iv->n; ++i) {
      bf_copy_item *it = &iv->v[i];
      bool fused = false;
      for (int64_t j = m - 1; j >= 0 && j >= m - 64 && iv->v[j].dst_li == it->dst_li; --j) {
        bf_copy_item *o = &iv->v[j];
        bf_box u;
        if (o->src_li == it->src_li && !memcmp(o->shift, it->shift, sizeof o->shift) &&
            box_union_exact(&o->region, &it->region, &u)) {
          o->region = u;
          fused = changed = true;
          break;
        }
        if (bf_box_intersects(&o->region, &it->region)) break; /* cannot move past o */
      }
      if (!fused) iv->v[m++] = *it;
    }
    iv->n = m;
  }
}

static bool not_self(int64_t gi, int64_t j, const int *s) { return !(j == gi && !s[0] && !s[1] && !s[2]); }
static bool lower_owner(int64_t gi, int64_t j, const int *s) {
  (void)s;
  return j < gi;
}
static bool self_image(int64_t gi, int64_t j, const int *s) { return j == gi && shift_positive(s); }

/* ---- fill_boundary in AMReX's order -------------------------------------------- *
 * Where several sources hold the same ghost point (nodal data: a ghost node on
 * the face two neighbours share; periodic images), the last copy wins, so the
 * items of a destination fab are listed in the order of AMReX's local copy tags
 * (AMReX_FabArrayBase.cpp define_fb_metadata, applied in tag order by
 * AMReX_FBI.H FB_local_copy_cpu): for every shift `pit` of
 * Periodicity::shiftIntVect(nghost) (x outermost, each from -per to +per, per
 * the smallest multiple of the period >= nghost), for every box of
 * BoxArray::intersections(grown dst box + pit) in the order that query returns
 * them, the pieces of the ghost region it covers. */

/* The order of BoxArray::intersections (AMReX_BoxArray.cpp getHashMap and
 * intersections): boxes are hashed by the small end of their cell-centred box
 * coarsened by the largest cell-box extent (each direction, >= 1), the hash
 * cells are visited z, y, x lexicographically (x fastest) and a cell's boxes
 * in index order.  rank[j] = position of box j in that order. */
static int64_t *hash_rank(const bf_boxarray *ba) {
  int64_t n = bf_boxarray_size(ba);
  const bf_box *b = bf_boxarray_data(ba);
  int64_t *rank = malloc((size_t)(n > 0 ? n : 1) * sizeof *rank);
  int64_t *ord = malloc((size_t)(n > 0 ? n : 1) * sizeof *ord);
  int (*key)[3] = malloc((size_t)(n > 0 ? n : 1) * sizeof *key);
  if (!rank || !ord || !key) {
    free(rank), free(ord), free(key);
    return NULL;
  }
  int ext[3] = {1, 1, 1};
  for (int64_t j = 0; j < n; ++j)
    for (int d = 0; d < b[j].dim; ++d) {
      long long len = (long long)b[j].hi[d] - b[j].lo[d] + 1 - (long long)(b[j].type >> d & 1u);
      if (len > ext[d]) ext[d] = len > 0x7fffffff ? 0x7fffffff : (int)len;
    }
  for (int64_t j = 0; j < n; ++j) {
    for (int d = 0; d < 3; ++d) {
      long long lo = d < b[j].dim ? b[j].lo[d] : 0;
      key[j][d] = (int)(lo >= 0 ? lo / ext[d] : -((-lo + ext[d] - 1) / ext[d])); /* floor */
    }
    ord[j] = j;
  }
  /* bottom-up merge sort by (key z, y, x, index) */
  int64_t *tmp = malloc((size_t)(n > 0 ? n : 1) * sizeof *tmp);
  if (!tmp) {
    free(rank), free(ord), free(key);
    return NULL;
  }
  for (int64_t w = 1; w < n; w *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * w) {
      int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      int64_t a = lo, c = mid, o = lo;
      while (a < mid || c < hi) {
        bool take_a = c >= hi;
        if (a < mid && c < hi) {
          const int *ka = key[ord[a]], *kc = key[ord[c]];
          int cmp = 0;
          for (int d = 2; d >= 0 && !cmp; --d) cmp = (ka[d] > kc[d]) - (ka[d] < kc[d]);
          take_a = cmp < 0 || (cmp == 0 && ord[a] < ord[c]);
        }
        tmp[o++] = take_a ? ord[a++] : ord[c++];
      }
    }
    memcpy(ord, tmp, (size_t)n * sizeof *ord);
  }
  for (int64_t r = 0; r < n; ++r) rank[ord[r]] = r;
  free(tmp), free(ord), free(key);
  return rank;
}

/* Periodicity::shiftIntVect(nghost) as boxfab shifts (src index = dst index -
 * shift, so shift = -pit), in AMReX's order (x outermost, each from -per to
 * +per in steps of the period, per = the smallest multiple of the period >=
 * nghost).  In 64-bit arithmetic: a shift that C int cannot hold is left out
 * (no box of int indices meets its image), so periods near INT_MAX neither
 * wrap nor loop past the list. */
static int amrex_shifts(const bf_plan_key *k, int dim, int **out, int *n) {
  long long per[3] = {0, 0, 0}, jmp[3] = {1, 1, 1};
  for (int d = 0; d < dim; ++d)
    if (k->has_period && k->period.period[d] > 0) {
      jmp[d] = k->period.period[d];
      per[d] = jmp[d] * (k->dst_ng[d] > jmp[d] ? (k->dst_ng[d] + jmp[d] - 1) / jmp[d] : 1);
      while (per[d] > INT_MAX) per[d] -= jmp[d]; /* larger shifts leave int */
    }
  long long count = 1;
  for (int d = 0; d < 3; ++d) count *= 2 * (per[d] / jmp[d]) + 1;
  BF_CHECK(count < INT_MAX / 3, BF_ERROR_MEMORY, "%lld periodic shifts: too many for a copy plan", count);
  int *s = malloc((size_t)(3 * count) * sizeof *s);
  BF_CHECK(s != NULL, BF_ERROR_MEMORY, "out of memory for a copy plan");
  int m = 0;
  for (long long i = -per[0]; i <= per[0]; i += jmp[0])
    for (long long j = -per[1]; j <= per[1]; j += jmp[1])
      for (long long l = -per[2]; l <= per[2]; l += jmp[2]) {
        s[3 * m] = (int)-i, s[3 * m + 1] = (int)-j, s[3 * m + 2] = (int)-l;
        ++m;
      }
  *out = s;
  *n = m;
  return BF_SUCCESS;
}

/* The items of local dst fab di (global gi, valid box v, ghost pieces
 * pieces[0..np)) in AMReX's tag order. */
static int add_items_fb(itemvec *iv, const bf_plan_key *k, int64_t di, int64_t gi, const bf_box *v,
                        const bf_box *pieces, int np, const int *shifts, int ns, const int64_t *rank,
                        const int64_t *src_g2l, bf_isect_list *ql) {
  const bf_box *sb = bf_boxarray_data(k->src_ba);
  bf_box g = *v;
  (void)bf_box_grow(&g, k->dst_ng);
  int err = BF_SUCCESS;
  for (int si = 0; si < ns && !err; ++si) {
    const int *s = &shifts[3 * si];
    bf_box q = g; /* src boxes j with (box_j + s) meeting g: box_j meets g - s */
    int ms[3] = {-s[0], -s[1], -s[2]};
    if (bf_box_shift_iv(&q, ms) != BF_SUCCESS) { /* g - s leaves int: no box of int indices is there */
      bf_error_clear();
      continue;
    }
    err = bf_mesh_intersecting(k->src_ba, &q, ql);
    if (err) break;
    /* ql->index ascending: reorder by rank (insertion sort; a few neighbours) */
    for (int64_t a = 1; a < ql->count; ++a) {
      int64_t x = ql->index[a], b = a - 1;
      while (b >= 0 && rank[ql->index[b]] > rank[x]) {
        ql->index[b + 1] = ql->index[b];
        --b;
      }
      ql->index[b + 1] = x;
    }
    for (int64_t c = 0; c < ql->count && !err; ++c) {
      int64_t j = ql->index[c];
      if (!not_self(gi, j, s)) continue;
      if (src_g2l[j] < 0) continue; /* remote: needs the distributed engine */
      bf_box r0 = sb[j];
      if (bf_box_shift_iv(&r0, s) != BF_SUCCESS) { /* leaves int: cannot meet the ghost pieces */
        bf_error_clear();
        continue;
      }
      for (int p = 0; p < np && !err; ++p) {
        bf_box r;
        bf_box_intersection(&r0, &pieces[p], &r);
        if (bf_box_ok(&r)) err = push(iv, di, src_g2l[j], &r, s);
      }
    }
  }
  return err;
}

/* Local index of every box of dm on rank `me` (-1 elsewhere); `global`: the
 * identity (a distributed plan is built over every box, then split). */
static int64_t *g2l_of(const bf_distmap *dm, int64_t n, int me, bool global) {
  int64_t *g = malloc((size_t)(n > 0 ? n : 1) * sizeof *g);
  if (!g) return NULL;
  const int *p = bf_distmap_data(dm);
  int64_t m = 0;
  for (int64_t i = 0; i < n; ++i) g[i] = global ? i : p[i] == me ? m++ : -1;
  return g;
}

/* Order of the distributed override_sync items of one dst fab: the owner of
 * a point is its image in the lowest box, and there the image at the lowest
 * position (AMReX's OwnerMask: lower box index first, then the periodic
 * image that no positive shift reaches).  Items are listed from the lowest
 * priority to the owner, so that the owner's copy comes last; every item
 * reads the values before the call, so no chain of copies across ranks is
 * needed (the one-rank plan copies from lower boxes that already hold their
 * owners' values: the same result). */
static int owner_cmp(const void *a, const void *b) {
  const bf_copy_item *x = a, *y = b;
  if (x->src_li != y->src_li) return x->src_li > y->src_li ? -1 : 1; /* higher box first */
  for (int d = 2; d >= 0; --d)
    if (x->shift[d] != y->shift[d]) return x->shift[d] < y->shift[d] ? -1 : 1; /* larger shift last */
  return 0;
}

static void owner_sort(bf_copy_item *v, int64_t n) {
  /* insertion sort: stable, and a fab has few such items */
  for (int64_t a = 1; a < n; ++a) {
    bf_copy_item x = v[a];
    int64_t b = a - 1;
    while (b >= 0 && owner_cmp(&v[b], &x) > 0) {
      v[b + 1] = v[b];
      --b;
    }
    v[b + 1] = x;
  }
}

static int64_t item_points(const bf_copy_item *it) {
  int64_t n = 1;
  for (int d = 0; d < it->region.dim; ++d) n *= (int64_t)it->region.hi[d] - it->region.lo[d] + 1;
  return n;
}

/* Split the global item list iv (dst_li, src_li: global indices; groups gs
 * of ng dst boxes) of a distributed plan into its local, send, receive and
 * late lists for rank `me` (see bf_plan in fillboundary_impl.h). */
static int split_distributed(const bf_plan_key *k, int me, const itemvec *iv, const int64_t *gs, int64_t ng,
                             bool free_order, bf_plan *plan) {
  int np = bf_comm_size(k->comm);
  const int *dr = bf_distmap_data(k->dst_dm), *sr = bf_distmap_data(k->src_dm);
  int64_t nd = bf_boxarray_size(k->dst_ba), ns = bf_boxarray_size(k->src_ba);
  int64_t n = iv->n;
  size_t nn = (size_t)(n > 0 ? n : 1);
  int64_t *dl = g2l_of(k->dst_dm, nd, me, false), *sl = g2l_of(k->src_dm, ns, me, false);
  uint8_t *late = calloc(nn, 1);
  int64_t *rindex = malloc(nn * sizeof *rindex);
  int64_t *scount = calloc((size_t)np + 1, sizeof *scount), *rcount = calloc((size_t)np + 1, sizeof *rcount);
  int err = BF_SUCCESS;
  if (!dl || !sl || !late || !rindex || !scount || !rcount) {
    err = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory for a copy plan");
    goto done;
  }
  const bf_copy_item *v = iv->v;
  int64_t nlocal = 0, nlate = 0, nlate_groups = 0, nearly_groups = 0;
  for (int64_t g = 0; g < ng; ++g) {
    int64_t a0 = gs[g], a1 = gs[g + 1];
    if (a0 == a1 || dr[v[a0].dst_li] != me) {
      for (int64_t i = a0; i < a1; ++i)
        if (sr[v[i].src_li] == me && dr[v[i].dst_li] != me) ++scount[dr[v[i].dst_li]];
      continue;
    }
    for (int64_t i = a0; i < a1; ++i)
      if (sr[v[i].src_li] != me) late[i] = 1, ++rcount[sr[v[i].src_li]];
    if (!free_order) { /* closure: local items sharing points with late ones */
      bool changed = true;
      while (changed) {
        changed = false;
        for (int64_t i = a0; i < a1; ++i) {
          if (late[i]) continue;
          for (int64_t j = a0; j < a1; ++j)
            if (late[j] && bf_box_intersects(&v[i].region, &v[j].region)) {
              late[i] = 1, changed = true;
              break;
            }
        }
      }
    }
    bool any_early = false, any_late = false;
    for (int64_t i = a0; i < a1; ++i) {
      if (!late[i]) ++nlocal, any_early = true;
      else if (!free_order) ++nlate, any_late = true;
    }
    nearly_groups += any_early, nlate_groups += any_late;
  }
  int64_t nsend = 0, nrecv = 0;
  for (int r = 0; r < np; ++r) nsend += scount[r], nrecv += rcount[r];
  plan->items = malloc((size_t)(nlocal > 0 ? nlocal : 1) * sizeof *plan->items);
  plan->group_start = malloc((size_t)(nearly_groups + 1) * sizeof *plan->group_start);
  plan->late = malloc((size_t)(nlate > 0 ? nlate : 1) * sizeof *plan->late);
  plan->late_gs = malloc((size_t)(nlate_groups + 1) * sizeof *plan->late_gs);
  plan->sitems = malloc((size_t)(nsend > 0 ? nsend : 1) * sizeof *plan->sitems);
  plan->ritems = malloc((size_t)(nrecv > 0 ? nrecv : 1) * sizeof *plan->ritems);
  plan->spos = malloc((size_t)(nsend + 1) * sizeof *plan->spos);
  plan->rpos = malloc((size_t)(nrecv + 1) * sizeof *plan->rpos);
  int nsm = 0, nrm = 0;
  for (int r = 0; r < np; ++r) nsm += scount[r] > 0, nrm += rcount[r] > 0;
  plan->smsg = calloc((size_t)(nsm > 0 ? nsm : 1), sizeof *plan->smsg);
  plan->rmsg = calloc((size_t)(nrm > 0 ? nrm : 1), sizeof *plan->rmsg);
  if (!plan->items || !plan->group_start || !plan->late || !plan->late_gs || !plan->sitems || !plan->ritems ||
      !plan->spos || !plan->rpos || !plan->smsg || !plan->rmsg) {
    err = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory for a copy plan");
    goto done;
  }
  /* message slots: peers in increasing rank order, items of a peer in plan order */
  for (int r = 0, m = 0, o = 0; r < np; ++r) {
    int64_t c = scount[r];
    scount[r] = o;
    if (c) plan->smsg[m++] = (bf_plan_msg){.peer = r, .start = o, .end = o + c};
    o += (int)c;
  }
  for (int r = 0, m = 0, o = 0; r < np; ++r) {
    int64_t c = rcount[r];
    rcount[r] = o;
    if (c) plan->rmsg[m++] = (bf_plan_msg){.peer = r, .start = o, .end = o + c};
    o += (int)c;
  }
  plan->nsmsg = nsm, plan->nrmsg = nrm;
  int64_t e = 0, eg = 0, l = 0, lg = 0;
  for (int64_t g = 0; g < ng; ++g) {
    int64_t a0 = gs[g], a1 = gs[g + 1];
    bool here = a0 < a1 && dr[v[a0].dst_li] == me;
    bool ge = false, gl = false;
    for (int64_t i = a0; i < a1; ++i) {
      bf_copy_item it = v[i];
      int64_t d = it.dst_li, sj = it.src_li;
      if (!here) {
        if (sr[sj] == me) {
          it.src_li = sl[sj];
          plan->sitems[scount[dr[d]]++] = it;
        }
        continue;
      }
      it.dst_li = dl[d];
      if (sr[sj] != me) {
        int64_t ri = rcount[sr[sj]]++;
        plan->ritems[ri] = it;
        rindex[i] = ri;
      }
      if (!late[i]) {
        if (!ge) plan->group_start[eg++] = e, ge = true;
        it.src_li = sl[sj];
        plan->items[e++] = it;
      } else if (!free_order) {
        if (!gl) plan->late_gs[lg++] = l, gl = true;
        it.src_li = sr[sj] == me ? sl[sj] : -1 - rindex[i];
        plan->late[l++] = it;
      }
    }
  }
  plan->group_start[eg] = e, plan->late_gs[lg] = l;
  plan->nitems = e, plan->ngroups = eg, plan->nlate = l, plan->nlate_groups = lg;
  plan->nsitems = nsend, plan->nritems = nrecv;
  plan->spos[0] = plan->rpos[0] = 0;
  for (int64_t i = 0; i < nsend; ++i) plan->spos[i + 1] = plan->spos[i] + item_points(&plan->sitems[i]);
  for (int64_t i = 0; i < nrecv; ++i) plan->rpos[i + 1] = plan->rpos[i] + item_points(&plan->ritems[i]);
  for (int m = 0; m < nsm; ++m) {
    bf_plan_msg *M = &plan->smsg[m];
    M->pos0 = plan->spos[M->start], M->points = plan->spos[M->end] - M->pos0;
  }
  for (int m = 0; m < nrm; ++m) {
    bf_plan_msg *M = &plan->rmsg[m];
    M->pos0 = plan->rpos[M->start], M->points = plan->rpos[M->end] - M->pos0;
  }
  plan->distributed = true;
done:
  free(dl), free(sl), free(late), free(rindex), free(scount), free(rcount);
  return err;
}

static int build(const bf_plan_key *k, bf_plan *plan) {
  const bf_box src_all = bf_mesh_bounding(k->src_ba);
  if (k->has_period) {
    BF_CALL(bf_mesh_check_period(&src_all, &k->period, plan_name(k->kind)));
    if (k->src_ba != k->dst_ba) {
      const bf_box dst_all = bf_mesh_bounding(k->dst_ba);
      BF_CALL(bf_mesh_check_period(&dst_all, &k->period, plan_name(k->kind)));
    }
  }
  static const int zero[3] = {0, 0, 0};
  itemvec iv = {0};
  int64_t nd = bf_boxarray_size(k->dst_ba), ns = bf_boxarray_size(k->src_ba);
  /* distributed: the items of every box, in the one-rank order, then split */
  bool global = k->comm && bf_comm_size(k->comm) > 1;
  int me = global ? bf_comm_rank(k->comm) : bf_parallel_myproc();
  int64_t *dg = g2l_of(k->dst_dm, nd, me, global), *sg = g2l_of(k->src_dm, ns, me, global);
  int err = BF_SUCCESS;
  if (!dg || !sg) err = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory for a copy plan");
  const bf_box *db = bf_boxarray_data(k->dst_ba);
  int dim = bf_boxarray_dim(k->dst_ba);
  const bf_box all = grow_clamped(&src_all, k->src_ng);
  bf_isect_list ql = {0};
  int *fb_shifts = NULL, fb_ns = 0;
  int64_t *rank = NULL;
  if (!err && k->kind == BF_PLAN_FILL_BOUNDARY) {
    err = amrex_shifts(k, dim, &fb_shifts, &fb_ns);
    if (!err && !(rank = hash_rank(k->src_ba)))
      err = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory for a copy plan");
  }
  for (int64_t gi = 0; gi < nd && !err; ++gi) {
    int64_t di = dg[gi];
    if (di < 0) continue;
    const bf_box *v = &db[gi];
    switch (k->kind) {
    case BF_PLAN_FILL_BOUNDARY: {
      bf_box pieces[2 * BF_SPACEDIM_MAX];
      int np = 0;
      /* Every ghost point, also with cross = true: AMReX's define_fb_metadata
       * (AMReX_FabArrayBase.cpp) drops the corner pieces of a cross exchange
       * from the send/receive tags between processes only, never from the
       * local copy tags, so on one process FillBoundary(cross=true) fills the
       * corners too (bf_multifab_fill_boundary keys both on one plan; the
       * key keeps a cross field for copies between processes). */
      bf_box g = *v;
      (void)bf_box_grow(&g, k->dst_ng);
      np = bf_box_equal(&g, v) ? 0 : box_diff(&g, v, pieces);
      /* AMReX FabArrayBase::FB: shifts of Periodicity::shiftIntVect(ng), in its tag order */
      if (np) err = add_items_fb(&iv, k, di, gi, v, pieces, np, fb_shifts, fb_ns, rank, sg, &ql);
      break;
    }
    case BF_PLAN_COPY:
    case BF_PLAN_SUM_BOUNDARY: {
      bf_box t = *v;
      (void)bf_box_grow(&t, k->dst_ng);
      /* AMReX FabArrayBase::CPC (ParallelCopy, and SumBoundary's ParallelAdd): shiftIntVect(dst ng) */
      err = add_items(&iv, k, di, gi, &t, k->kind == BF_PLAN_SUM_BOUNDARY ? not_self : NULL, k->dst_ng, sg, &all,
                      &ql);
      break;
    }
    case BF_PLAN_OVERRIDE_SYNC: {
      /* valid points only: AMReX's OwnerMask / OverlapMask use shiftIntVect() */
      int64_t first = iv.n;
      err = add_items(&iv, k, di, gi, v, lower_owner, zero, sg, &all, &ql);
      if (!err) err = add_items(&iv, k, di, gi, v, self_image, zero, sg, &all, &ql); /* after the others: see override_sync */
      if (!err && global) owner_sort(iv.v + first, iv.n - first);
      break;
    }
    case BF_PLAN_AVERAGE_SYNC: err = add_items(&iv, k, di, gi, v, not_self, zero, sg, &all, &ql); break;
    default: break;
    }
  }
  bf_isect_list_free(&ql);
  free(fb_shifts);
  free(rank);
  /* the syncs read what earlier items of the same fab wrote: keep them as they are */
  if (!err && (k->kind == BF_PLAN_FILL_BOUNDARY || k->kind == BF_PLAN_COPY || k->kind == BF_PLAN_SUM_BOUNDARY))
    merge_items(&iv);
  /* groups: runs of one dst fab */
  int64_t ng = 0;
  int64_t *gs = err ? NULL : malloc((size_t)(iv.n + 1) * sizeof *gs);
  if (!err && !gs) err = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory for a copy plan");
  if (!err) {
    for (int64_t i = 0; i < iv.n; ++i)
      if (i == 0 || iv.v[i].dst_li != iv.v[i - 1].dst_li) gs[ng++] = i;
    gs[ng] = iv.n;
  }
  /* fill_boundary reads valid points and writes ghost points (of other
   * memory, or of the same fab): free order when no two items of a fab
   * write the same point (overlapping boxes or short periods can do that) */
  bool free_order = !err && k->kind == BF_PLAN_FILL_BOUNDARY;
  for (int64_t g = 0; free_order && g < ng; ++g) {
    if (gs[g + 1] - gs[g] > 512) free_order = false; /* not worth checking */
    for (int64_t a = gs[g]; free_order && a < gs[g + 1]; ++a)
      for (int64_t b = a + 1; free_order && b < gs[g + 1]; ++b)
        if (bf_box_intersects(&iv.v[a].region, &iv.v[b].region)) free_order = false;
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
  if (!err && global) {
    plan->needs_tmp = tmp;
    plan->free_order = free_order;
    err = split_distributed(k, me, &iv, gs, ng, free_order, plan);
    free(iv.v), free(gs);
    return err; /* on failure plan_free_lists (bf_plan_get) frees what was made */
  }
  if (err) {
    free(iv.v), free(gs);
    return err;
  }
  plan->items = iv.v, plan->nitems = iv.n;
  plan->group_start = gs, plan->ngroups = ng;
  plan->needs_tmp = tmp;
  plan->free_order = free_order;
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
         a->cross == b->cross && a->comm == b->comm &&
         a->nprocs == b->nprocs && a->me == b->me;
}

static void exec_free(struct bf_plan_exec *e);

/* The lists a build made (also after a failed one) and the kept buffers. */
static void plan_free_lists(bf_plan *p) {
  free(p->items);
  free(p->group_start);
  free(p->sitems), free(p->ritems), free(p->late);
  free(p->spos), free(p->rpos), free(p->smsg), free(p->rmsg), free(p->late_gs);
  bf_plan_bufs_free(p->bufs);
}

static void plan_release(bf_plan *p) {
  if (p && __atomic_sub_fetch(&p->refcount, 1, __ATOMIC_ACQ_REL) == 0) {
    for (bf_plan_glist *l = p->glists, *next; l; l = next) {
      next = l->next;
      if (l->handle) l->be->release(l->handle);
      free(l->tasks);
      free(l);
    }
    for (bf_plan_exec *e = p->execs, *next; e; e = next) {
      next = e->next;
      exec_free(e);
    }
    bf_plan_xlines_free(p->xlines);
    pthread_mutex_destroy(&p->lock);
    plan_free_lists(p);
    free(p);
  }
}

int bf_plan_of_items(const bf_copy_item *items, int64_t n, bool free_order, bf_plan **out) {
  bf_plan *p = calloc(1, sizeof *p);
  size_t cap = (size_t)(n > 0 ? n : 1);
  if (p) {
    p->items = malloc(cap * sizeof *p->items);
    p->group_start = malloc((cap + 1) * sizeof *p->group_start);
  }
  if (!p || !p->items || !p->group_start) {
    if (p) free(p->items), free(p->group_start);
    free(p);
    BF_ERROR(BF_ERROR_MEMORY, "out of memory for a copy plan");
  }
  memcpy(p->items, items, (size_t)n * sizeof *items);
  p->nitems = n;
  int64_t ng = 0;
  for (int64_t i = 0; i < n; ++i)
    if (i == 0 || items[i].dst_li != items[i - 1].dst_li) p->group_start[ng++] = i;
  p->group_start[ng] = n;
  p->ngroups = ng;
  p->free_order = free_order;
  p->kind = -1;
  p->refcount = 1;
  pthread_mutex_init(&p->lock, NULL);
  *out = p;
  return BF_SUCCESS;
}

/* ---- compiled plans -------------------------------------------------------------- */

/* Fuse rows that are contiguous in both destination and source: x with y
 * when nx equals both j strides, then with z likewise. */
static void fuse_rows(bf_xtask *t) {
  if (t->ny > 1 && t->nx == t->djs && t->nx == t->sjs) t->nx *= t->ny, t->ny = 1;
  if (t->ny == 1 && t->nz > 1 && t->nx == t->dks && t->nx == t->sks) t->nx *= t->nz, t->nz = 1;
  if (t->ny == 1) t->djs = t->sjs = 0;
  if (t->nz == 1) t->dks = t->sks = 0;
}

static int64_t view_offset(const bf_kview *v, const int *p) {
  return ((int64_t)p[0] - v->lo[0]) + ((int64_t)p[1] - v->lo[1]) * v->js + ((int64_t)p[2] - v->lo[2]) * v->ks;
}

/* The block copy of item `it` (rows not fused yet): its destination in fab view dv and its source in
 * fab view sv, either side NULL for dense block `blk` of a staging or message buffer (x fastest, one
 * component after another). */
static bf_xtask item_task(const bf_copy_item *it, const bf_kview *dv, const bf_kview *sv, int64_t blk) {
  int lo[3], hi[3], slo[3];
  bf_box_pad3(&it->region, lo, hi);
  for (int d = 0; d < 3; ++d) slo[d] = lo[d] - it->shift[d];
  bf_xtask t = {.nx = (int64_t)hi[0] - lo[0] + 1, .ny = (int64_t)hi[1] - lo[1] + 1, .nz = (int64_t)hi[2] - lo[2] + 1};
  const int64_t npts = t.nx * t.ny * t.nz;
  if (dv) t.dfab = it->dst_li, t.doff = view_offset(dv, lo), t.djs = dv->js, t.dks = dv->ks, t.dns = dv->ns;
  else t.dfab = blk, t.doff = 0, t.djs = t.nx, t.dks = t.nx * t.ny, t.dns = npts;
  if (sv) t.sfab = it->src_li, t.soff = view_offset(sv, slo), t.sjs = sv->js, t.sks = sv->ks, t.sns = sv->ns;
  else t.sfab = blk, t.soff = 0, t.sjs = t.nx, t.sks = t.nx * t.ny, t.sns = npts;
  return t;
}

typedef struct pair_key {
  int64_t dst, src;
  int shift[3], n[3];
} pair_key;

static int key_cmp(const pair_key *a, const pair_key *b) {
  if (a->dst != b->dst) return a->dst < b->dst ? -1 : 1;
  if (a->src != b->src) return a->src < b->src ? -1 : 1;
  int c = memcmp(a->shift, b->shift, sizeof a->shift);
  if (c) return c;
  return memcmp(a->n, b->n, sizeof a->n);
}

static pair_key item_key(const bf_copy_item *it, bool mirror) {
  pair_key k;
  memset(&k, 0, sizeof k);
  k.dst = mirror ? it->src_li : it->dst_li;
  k.src = mirror ? it->dst_li : it->src_li;
  for (int d = 0; d < 3; ++d) {
    k.shift[d] = mirror ? -it->shift[d] : it->shift[d];
    k.n[d] = d < it->region.dim ? it->region.hi[d] - it->region.lo[d] + 1 : 1;
  }
  return k;
}

typedef struct keyed {
  pair_key k;
  int64_t idx;
} keyed;

static int keyed_cmp(const void *a, const void *b) {
  const keyed *x = a, *y = b;
  int c = key_cmp(&x->k, &y->k);
  return c ? c : (x->idx < y->idx ? -1 : x->idx > y->idx);
}

/* Order of a free-order plan as units of one item or of an item and its
 * mirror (the copy in the other direction between the same two fabs, of
 * the same shape): order[] lists items, ustart[] the units (nunits + 1). */
static int pair_items(const bf_plan *p, int64_t *order, int64_t *ustart, int64_t *nunits) {
  int64_t n = p->nitems;
  keyed *sorted = malloc((size_t)(n > 0 ? n : 1) * sizeof *sorted);
  bool *used = calloc((size_t)(n > 0 ? n : 1), sizeof *used);
  if (!sorted || !used) {
    free(sorted), free(used);
    BF_ERROR(BF_ERROR_MEMORY, "out of memory for a copy plan");
  }
  for (int64_t i = 0; i < n; ++i) sorted[i] = (keyed){item_key(&p->items[i], false), i};
  qsort(sorted, (size_t)n, sizeof *sorted, keyed_cmp);
  int64_t m = 0, u = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (used[i]) continue;
    used[i] = true;
    ustart[u++] = m;
    order[m++] = i;
    pair_key want = item_key(&p->items[i], true);
    int64_t lo = 0, hi = n; /* first sorted entry >= want */
    while (lo < hi) {
      int64_t mid = lo + (hi - lo) / 2;
      if (key_cmp(&sorted[mid].k, &want) < 0) lo = mid + 1;
      else hi = mid;
    }
    for (; lo < n; ++lo) {
      if (key_cmp(&sorted[lo].k, &want) != 0) break;
      if (!used[sorted[lo].idx]) {
        used[sorted[lo].idx] = true;
        order[m++] = sorted[lo].idx;
        break;
      }
    }
  }
  ustart[u] = m;
  *nunits = u;
  free(sorted), free(used);
  return BF_SUCCESS;
}

static void exec_free(bf_plan_exec *e) {
  if (!e) return;
  free(e->tasks), free(e->pack), free(e->unpack);
  free(e->ustart), free(e->uprefix), free(e->gstart), free(e->gprefix), free(e->pstart), free(e->pprefix);
  free(e->spack), free(e->runpack), free(e->sstart), free(e->spref), free(e->rstart), free(e->rpref), free(e->runits);
  free(e);
}

static int64_t task_points(const bf_xtask *t) { return t->nx * t->ny * t->nz; }

static void prefix_of(const bf_xtask *tasks, const int64_t *ustart, int64_t nunits, int64_t *prefix) {
  prefix[0] = 0;
  for (int64_t u = 0; u < nunits; ++u) {
    int64_t pts = 0;
    for (int64_t t = ustart[u]; t < ustart[u + 1]; ++t) pts += task_points(&tasks[t]);
    prefix[u + 1] = prefix[u] + pts;
  }
}

/* The pack and unpack tasks of a distributed plan (bf_plan_exec). */
static int exec_build_dist(const bf_plan *p, const bf_multifab *dst, const bf_multifab *src, bf_plan_exec *e) {
  size_t ns = (size_t)p->nsitems, nr = (size_t)p->nritems, nm = (size_t)p->nrmsg;
  e->spack = malloc((ns > 0 ? ns : 1) * sizeof *e->spack);
  e->runpack = malloc((nr > 0 ? nr : 1) * sizeof *e->runpack);
  e->sstart = malloc((ns + 1) * sizeof *e->sstart);
  e->spref = malloc((ns + 1) * sizeof *e->spref);
  e->rstart = malloc((nr + 1) * sizeof *e->rstart);
  e->rpref = malloc((nr + nm + 1) * sizeof *e->rpref);
  e->runits = malloc((nm > 0 ? nm : 1) * sizeof *e->runits);
  BF_CHECK(e->spack && e->runpack && e->sstart && e->spref && e->rstart && e->rpref && e->runits, BF_ERROR_MEMORY,
           "out of memory for a copy plan");
  for (int64_t i = 0; i < p->nsitems; ++i) {
    const bf_copy_item *it = &p->sitems[i];
    bf_kview sv;
    bf_mf_kview(src, it->src_li, &sv);
    bf_xtask t = item_task(it, NULL, &sv, i); /* source fab -> block i of the send buffer */
    fuse_rows(&t);
    e->spack[i] = t;
    e->sstart[i] = i;
  }
  e->sstart[ns] = (int64_t)ns;
  prefix_of(e->spack, e->sstart, p->nsitems, e->spref);
  e->sunits = (bf_xlist){.tasks = e->spack, .nunits = p->nsitems, .ustart = e->sstart, .uprefix = e->spref};
  for (int64_t i = 0; i < p->nritems; ++i) {
    const bf_copy_item *it = &p->ritems[i];
    bf_kview dv;
    bf_mf_kview(dst, it->dst_li, &dv);
    bf_xtask t = item_task(it, &dv, NULL, i); /* block i of the receive buffer -> destination fab */
    fuse_rows(&t);
    e->runpack[i] = t;
    e->rstart[i] = i;
  }
  e->rstart[nr] = (int64_t)nr;
  for (int m = 0; m < p->nrmsg; ++m) {
    const bf_plan_msg *M = &p->rmsg[m];
    int64_t *pref = e->rpref + M->start + m;
    prefix_of(e->runpack + M->start, e->rstart, M->end - M->start, pref); /* rstart[u+1]-rstart[u] == 1 */
    e->runits[m] = (bf_xlist){.tasks = e->runpack, .nunits = M->end - M->start, .ustart = e->rstart + M->start,
                              .uprefix = pref};
  }
  return BF_SUCCESS;
}

static int exec_build(const bf_plan *p, const bf_multifab *dst, const bf_multifab *src, bf_plan_exec **out) {
  bf_plan_exec *e = calloc(1, sizeof *e);
  size_t n = (size_t)(p->nitems > 0 ? p->nitems : 1);
  bf_xtask *tasks = malloc(n * sizeof *tasks);
  int64_t *order = malloc(n * sizeof *order);
  if (e) {
    e->tasks = malloc(n * sizeof *e->tasks);
    e->pack = malloc(n * sizeof *e->pack);
    e->unpack = malloc(n * sizeof *e->unpack);
    e->ustart = malloc((n + 1) * sizeof *e->ustart);
    e->uprefix = malloc((n + 1) * sizeof *e->uprefix);
    e->gstart = malloc((n + 1) * sizeof *e->gstart);
    e->gprefix = malloc((n + 1) * sizeof *e->gprefix);
    e->pstart = malloc((n + 1) * sizeof *e->pstart);
    e->pprefix = malloc((n + 1) * sizeof *e->pprefix);
  }
  if (!e || !tasks || !order || !e->tasks || !e->pack || !e->unpack || !e->ustart || !e->uprefix || !e->gstart ||
      !e->gprefix || !e->pstart || !e->pprefix) {
    exec_free(e);
    free(tasks), free(order);
    BF_ERROR(BF_ERROR_MEMORY, "out of memory for a copy plan");
  }
  for (int d = 0; d < 3; ++d) {
    e->dng[d] = d < dst->dim ? dst->ngrow.v[d] : 0;
    e->sng[d] = d < src->dim ? src->ngrow.v[d] : 0;
  }
  for (int64_t i = 0; i < p->nitems; ++i) {
    const bf_copy_item *it = &p->items[i];
    bf_kview dv, sv;
    bf_mf_kview(dst, it->dst_li, &dv);
    bf_mf_kview(src, it->src_li, &sv);
    bf_xtask t = item_task(it, &dv, &sv, 0);
    e->points += t.nx * t.ny * t.nz;
    bf_xtask pk = item_task(it, NULL, &sv, i); /* pack: source region -> dense block i of the staging buffer */
    bf_xtask up = item_task(it, &dv, NULL, i); /* unpack: dense block i -> destination */
    fuse_rows(&t), fuse_rows(&pk), fuse_rows(&up);
    tasks[i] = t, e->pack[i] = pk, e->unpack[i] = up;
    e->pstart[i] = i;
  }
  e->pstart[p->nitems] = p->nitems;
  memcpy(e->gstart, p->group_start, (size_t)(p->ngroups + 1) * sizeof *e->gstart);
  int64_t nunits = 0;
  int err = BF_SUCCESS;
  if (p->free_order) {
    err = pair_items(p, order, e->ustart, &nunits);
  } else {
    for (int64_t i = 0; i < p->nitems; ++i) order[i] = i;
    memcpy(e->ustart, p->group_start, (size_t)(p->ngroups + 1) * sizeof *e->ustart);
    nunits = p->ngroups;
  }
  if (err) {
    exec_free(e);
    free(tasks), free(order);
    return err;
  }
  for (int64_t i = 0; i < p->nitems; ++i) e->tasks[i] = tasks[order[i]];
  free(tasks), free(order);
  prefix_of(e->tasks, e->ustart, nunits, e->uprefix);
  prefix_of(e->unpack, e->gstart, p->ngroups, e->gprefix);
  prefix_of(e->pack, e->pstart, p->nitems, e->pprefix);
  e->run = (bf_xlist){.tasks = e->tasks, .nunits = nunits, .ustart = e->ustart, .uprefix = e->uprefix,
                      .pairs = p->free_order};
  e->unpacks = (bf_xlist){.tasks = e->unpack, .nunits = p->ngroups, .ustart = e->gstart, .uprefix = e->gprefix};
  e->packs = (bf_xlist){.tasks = e->pack, .nunits = p->nitems, .ustart = e->pstart, .uprefix = e->pprefix};
  if (p->distributed && (err = exec_build_dist(p, dst, src, e))) {
    exec_free(e);
    return err;
  }
  *out = e;
  return BF_SUCCESS;
}

int bf_plan_exec_get(bf_plan *p, const bf_multifab *dst, const bf_multifab *src, const bf_plan_exec **out) {
  if (!src) src = dst;
  int dng[3], sng[3];
  for (int d = 0; d < 3; ++d) {
    dng[d] = d < dst->dim ? dst->ngrow.v[d] : 0;
    sng[d] = d < src->dim ? src->ngrow.v[d] : 0;
  }
  pthread_mutex_lock(&p->lock);
  bf_plan_exec *e = p->execs;
  while (e && (memcmp(e->dng, dng, sizeof dng) || memcmp(e->sng, sng, sizeof sng))) e = e->next;
  int err = BF_SUCCESS;
  if (!e) {
    err = exec_build(p, dst, src, &e);
    if (!err) e->next = p->execs, p->execs = e;
  }
  pthread_mutex_unlock(&p->lock);
  *out = e;
  return err;
}

void bf_plan_done(bf_plan *p) { plan_release(p); }

/* ---- element-wise form (backends without an exchange kernel) --------------------- */

#define MAX_GLISTS 16

static void ng3(const bf_multifab *mf, int ng[3]) {
  for (int d = 0; d < 3; ++d) ng[d] = d < mf->dim ? mf->ngrow.v[d] : 0;
}

static bool glist_match(const bf_plan_glist *l, const bf_backend *be, const bf_kargs *g, const bf_multifab *dst,
                        const bf_multifab *src, bool serial) {
  int dng[3], sng[3] = {0, 0, 0};
  ng3(dst, dng);
  if (src) ng3(src, sng);
  return l->be == be && l->serial == serial && l->has_src == (src != NULL) && !memcmp(l->dng, dng, sizeof dng) &&
         !memcmp(l->sng, sng, sizeof sng) && l->dncomp == dst->ncomp && l->dtype == dst->dtype &&
         (!src || l->sncomp == src->ncomp) && l->ncomp == g->ncomp && l->acomp == g->acomp &&
         l->bcomp == g->bcomp && l->opbits == bf_khandle_opbits(g->op);
}

/* A view of local fab li of mf relative to its buffer. */
static void rel_view(const bf_multifab *mf, int64_t li, bf_kview *v) {
  bf_mf_kview(mf, li, v);
  v->data = (void *)(uintptr_t)mf->offsets[li];
}

static int glist_build(const bf_plan *p, const bf_backend *be, const bf_kargs *g, const bf_multifab *dst,
                       const bf_multifab *src, bool serial, bf_plan_glist **out) {
  bf_plan_glist *l = calloc(1, sizeof *l);
  bf_ktask *t = calloc((size_t)(p->nitems > 0 ? p->nitems : 1), sizeof *t);
  if (!l || !t) {
    free(l), free(t);
    BF_ERROR(BF_ERROR_MEMORY, "out of memory in the ghost exchange");
  }
  for (int64_t i = 0; i < p->nitems; ++i) {
    const bf_copy_item *it = &p->items[i];
    bf_box_pad3(&it->region, t[i].lo, t[i].hi);
    memcpy(t[i].shift, it->shift, sizeof t[i].shift);
    rel_view(dst, it->dst_li, &t[i].a);
    if (src) rel_view(src, it->src_li, &t[i].b);
  }
  ng3(dst, l->dng);
  if (src) ng3(src, l->sng);
  l->dncomp = dst->ncomp, l->sncomp = src ? src->ncomp : 0, l->dtype = dst->dtype;
  l->has_src = src != NULL, l->serial = serial;
  l->ncomp = g->ncomp, l->acomp = g->acomp, l->bcomp = g->bcomp, l->opbits = bf_khandle_opbits(g->op);
  l->tasks = t;
  l->all[0] = 0, l->all[1] = p->nitems;
  l->be = be;
  bf_klist kl = {.ntasks = p->nitems, .tasks = t, .ngroups = serial ? 1 : p->ngroups,
                 .group_start = serial ? l->all : p->group_start, .relative = true};
  if (be->prepare(g, &kl, &l->handle)) {
    free(t), free(l);
    return BF_ERROR_MEMORY; /* message set by the backend */
  }
  *out = l;
  return BF_SUCCESS;
}

int bf_plan_glist_get(bf_plan *p, const bf_backend *be, const bf_kargs *g, const bf_multifab *dst,
                      const bf_multifab *src, bool serial, const bf_plan_glist **out) {
  *out = NULL;
  pthread_mutex_lock(&p->lock);
  bf_plan_glist *l = p->glists;
  while (l && !glist_match(l, be, g, dst, src, serial)) l = l->next;
  int err = BF_SUCCESS;
  if (!l && p->nglists < MAX_GLISTS) {
    err = glist_build(p, be, g, dst, src, serial, &l);
    if (!err) l->next = p->glists, p->glists = l, ++p->nglists;
  }
  pthread_mutex_unlock(&p->lock);
  *out = err ? NULL : l;
  return err;
}

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
    plan_free_lists(p);
    free(p);
    return err;
  }
  p->refcount = 2; /* the cache's and the caller's */
  p->kind = key->kind;
  pthread_mutex_init(&p->lock, NULL);
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
