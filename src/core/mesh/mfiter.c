/* MFIter: tiles of the local fabs (see include/boxfab/mfiter.h). */
#include <limits.h>
#include <stdlib.h>

#include "boxfab/mfiter.h"
#include "mesh/multifab_impl.h"

typedef struct tile {
  int64_t li;
  bf_box box;
} tile;

struct bf_mfiter {
  bf_multifab *mf;
  tile *tiles;
  int64_t ntiles, pos;
};

bf_intvect bf_mfiter_default_tilesize(int dim) {
  bf_intvect t = {dim, {0, 0, 0}};
  for (int d = 0; d < dim && d < BF_SPACEDIM_MAX; ++d) t.v[d] = d == 0 ? 1024000 : 8;
  return t;
}

/* Cut [lo, hi] (the cells; for nodal boxes the last node goes with the last
 * piece) into pieces: number, and the range of piece t. */
static int npieces(int64_t len, int ts) {
  int64_t n = len / ts;
  return n < 1 ? 1 : (int)n;
}

static void piece(int lo, int64_t len, int n, int t, int *plo, int *phi) {
  int64_t base = len / n, rem = len % n;
  int64_t start = lo + (int64_t)t * base + (t < rem ? t : rem);
  int64_t size = base + (t < rem ? 1 : 0);
  *plo = (int)start;
  *phi = (int)(start + size - 1);
}

int bf_mfiter_create(bf_multifab *mf, bool tiling, const bf_intvect *tilesize, bf_mfiter **out) {
  BF_CHECK(out != NULL, BF_ERROR_VALUE, "NULL result pointer");
  BF_CALL(bf_multifab_check(mf));
  int dim = mf->dim;
  bf_intvect ts = tilesize ? *tilesize : bf_mfiter_default_tilesize(dim);
  if (tiling) {
    BF_CHECK(ts.dim == dim, BF_ERROR_TYPE, "tile size of dimension %d for a MultiFab of dimension %d", ts.dim, dim);
    for (int d = 0; d < dim; ++d)
      BF_CHECK(ts.v[d] >= 1, BF_ERROR_VALUE, "tile size must be >= 1, got %d in direction %d", ts.v[d], d);
  }
  /* count */
  int64_t total = 0;
  for (int64_t li = 0; li < mf->nlocal; ++li) {
    const bf_box *vb = mf_validbox(mf, li);
    int64_t n = 1;
    bool ok = true;
    if (tiling)
      for (int d = 0; d < dim; ++d) {
        int64_t len = bf_box_length(vb, d) - (vb->type >> d & 1u);
        ok = ok && bf_i64_mul(n, npieces(len < 1 ? 1 : len, ts.v[d]), &n);
      }
    BF_CHECK(ok && bf_i64_add(total, n, &total), BF_ERROR_MEMORY, "an MFIter of more than 2^63 tiles");
  }
  size_t bytes;
  BF_CHECK(bf_size_mul((size_t)(total > 0 ? total : 1), sizeof(tile), &bytes), BF_ERROR_MEMORY,
           "out of memory for an MFIter of %lld tiles", (long long)total);
  bf_mfiter *it = calloc(1, sizeof *it);
  tile *tiles = malloc(bytes);
  if (!it || !tiles) {
    free(it), free(tiles);
    BF_ERROR(BF_ERROR_MEMORY, "out of memory for an MFIter of %lld tiles", (long long)total);
  }
  int64_t m = 0;
  for (int64_t li = 0; li < mf->nlocal; ++li) {
    const bf_box *vb = mf_validbox(mf, li);
    if (!tiling) {
      tiles[m++] = (tile){li, *vb};
      continue;
    }
    int n[3] = {1, 1, 1};
    int64_t len[3] = {1, 1, 1};
    for (int d = 0; d < dim; ++d) {
      len[d] = bf_box_length(vb, d) - (vb->type >> d & 1u);
      if (len[d] < 1) len[d] = 1;
      n[d] = npieces(len[d], ts.v[d]);
    }
    for (int t2 = 0; t2 < n[2]; ++t2)
      for (int t1 = 0; t1 < n[1]; ++t1)
        for (int t0 = 0; t0 < n[0]; ++t0) {
          bf_box b = *vb;
          int t[3] = {t0, t1, t2};
          for (int d = 0; d < dim; ++d) {
            piece(vb->lo[d], len[d], n[d], t[d], &b.lo[d], &b.hi[d]);
            if (t[d] == n[d] - 1) b.hi[d] = vb->hi[d]; /* the last piece ends at the box's end */
          }
          tiles[m++] = (tile){li, b};
        }
  }
  it->mf = bf_multifab_retain(mf);
  it->tiles = tiles;
  it->ntiles = total;
  it->pos = 0;
  *out = it;
  return BF_SUCCESS;
}

void bf_mfiter_destroy(bf_mfiter **it) {
  if (!it || !*it) return;
  bf_multifab_destroy(&(*it)->mf);
  free((*it)->tiles);
  free(*it);
  *it = NULL;
}

bool bf_mfiter_is_valid(const bf_mfiter *it) { return it->pos < it->ntiles; }
void bf_mfiter_next(bf_mfiter *it) {
  if (it->pos < it->ntiles) ++it->pos;
}
void bf_mfiter_rewind(bf_mfiter *it) { it->pos = 0; }
int64_t bf_mfiter_index(const bf_mfiter *it) {
  return it->pos < it->ntiles ? it->mf->lidx[it->tiles[it->pos].li] : -1;
}
int64_t bf_mfiter_local_index(const bf_mfiter *it) { return it->pos < it->ntiles ? it->tiles[it->pos].li : -1; }
int64_t bf_mfiter_length(const bf_mfiter *it) { return it->ntiles; }
int64_t bf_mfiter_position(const bf_mfiter *it) { return it->pos; }
bf_multifab *bf_mfiter_multifab(const bf_mfiter *it) { return it->mf; }

static int current(const bf_mfiter *it, const tile **t) {
  BF_CHECK(it != NULL, BF_ERROR_VALUE, "NULL MFIter");
  BF_CALL(bf_multifab_check(it->mf));
  BF_CHECK(it->pos < it->ntiles, BF_ERROR_INDEX, "the MFIter is not on a tile (its loop has ended)");
  *t = &it->tiles[it->pos];
  return BF_SUCCESS;
}

int bf_mfiter_tilebox(const bf_mfiter *it, bf_box *box) {
  const tile *t = NULL;
  BF_CALL(current(it, &t));
  *box = t->box;
  return BF_SUCCESS;
}

int bf_mfiter_validbox(const bf_mfiter *it, bf_box *box) {
  const tile *t = NULL;
  BF_CALL(current(it, &t));
  *box = *mf_validbox(it->mf, t->li);
  return BF_SUCCESS;
}

int bf_mfiter_fabbox(const bf_mfiter *it, bf_box *box) {
  const tile *t = NULL;
  BF_CALL(current(it, &t));
  *box = mf_fabbox(it->mf, t->li);
  return BF_SUCCESS;
}

int bf_mfiter_tilebox_ext(const bf_mfiter *it, unsigned nodal_mask, const bf_intvect *ng, bf_box *box) {
  const tile *t = NULL;
  BF_CALL(current(it, &t));
  int dim = it->mf->dim;
  if (ng) {
    BF_CHECK(ng->dim == dim, BF_ERROR_TYPE, "ghost width of dimension %d for an MFIter of dimension %d", ng->dim,
             dim);
  }
  /* in int64: the result must fit in int (a huge ng wrapped silently before) */
  bf_box b = t->box, vb = *mf_validbox(it->mf, t->li);
  int64_t lo[BF_SPACEDIM_MAX], hi[BF_SPACEDIM_MAX], vhi[BF_SPACEDIM_MAX];
  for (int d = 0; d < dim; ++d) lo[d] = b.lo[d], hi[d] = b.hi[d], vhi[d] = vb.hi[d];
  for (int d = 0; d < dim; ++d) {
    if (!(nodal_mask >> d & 1u) || (b.type >> d & 1u)) continue;
    if (hi[d] == vhi[d]) hi[d] += 1; /* the last tile takes the extra node */
    b.type |= 1u << d;
    vhi[d] += 1;
  }
  if (ng)
    for (int d = 0; d < dim; ++d) {
      if (lo[d] == vb.lo[d]) lo[d] -= ng->v[d];
      if (hi[d] == vhi[d]) hi[d] += ng->v[d];
    }
  for (int d = 0; d < dim; ++d) {
    BF_CHECK(lo[d] >= INT_MIN && lo[d] <= INT_MAX && hi[d] >= INT_MIN && hi[d] <= INT_MAX, BF_ERROR_OVERFLOW,
             "the tile box grown by %d cells in direction %d ([%lld, %lld]) leaves the range of C int",
             ng ? ng->v[d] : 0, d, (long long)lo[d], (long long)hi[d]);
    b.lo[d] = (int)lo[d];
    b.hi[d] = (int)hi[d];
  }
  *box = b;
  return BF_SUCCESS;
}

int bf_mfiter_growntilebox(const bf_mfiter *it, const bf_intvect *ng, bf_box *box) {
  BF_CHECK(it != NULL, BF_ERROR_VALUE, "NULL MFIter");
  return bf_mfiter_tilebox_ext(it, 0, ng ? ng : &it->mf->ngrow, box);
}

int bf_mfiter_nodaltilebox(const bf_mfiter *it, int dir, bf_box *box) {
  BF_CHECK(it != NULL, BF_ERROR_VALUE, "NULL MFIter");
  BF_CHECK(dir >= -1 && dir < it->mf->dim, BF_ERROR_INDEX, "direction %d out of range (-1 for all, or [0, %d))",
           dir, it->mf->dim);
  return bf_mfiter_tilebox_ext(it, dir < 0 ? 7u : 1u << dir, NULL, box);
}

int bf_mfiter_grownnodaltilebox(const bf_mfiter *it, int dir, const bf_intvect *ng, bf_box *box) {
  BF_CHECK(it != NULL, BF_ERROR_VALUE, "NULL MFIter");
  BF_CHECK(dir >= -1 && dir < it->mf->dim, BF_ERROR_INDEX, "direction %d out of range (-1 for all, or [0, %d))",
           dir, it->mf->dim);
  return bf_mfiter_tilebox_ext(it, dir < 0 ? 7u : 1u << dir, ng ? ng : &it->mf->ngrow, box);
}

int bf_mfiter_create_subset(bf_multifab *mf, bool tiling, const bf_intvect *tilesize, int64_t n, const int64_t *grids,
                            const int *tiles, bf_mfiter **out) {
  BF_CHECK(out != NULL && (n == 0 || (grids && tiles)) && n >= 0, BF_ERROR_VALUE, "NULL or negative arguments");
  bf_mfiter *all = NULL;
  BF_CALL(bf_mfiter_create(mf, tiling, tilesize, &all));
  /* first tile of each local fab */
  int64_t *first = malloc((size_t)(mf->nlocal + 1) * sizeof *first);
  tile *sel = malloc((size_t)(n > 0 ? n : 1) * sizeof *sel);
  if (!first || !sel) {
    free(first), free(sel);
    bf_mfiter_destroy(&all);
    BF_ERROR(BF_ERROR_MEMORY, "out of memory for an MFIter");
  }
  for (int64_t li = 0; li <= mf->nlocal; ++li) first[li] = all->ntiles;
  for (int64_t k = all->ntiles - 1; k >= 0; --k) first[all->tiles[k].li] = k;
  for (int64_t li = mf->nlocal - 1; li >= 0; --li)
    if (first[li] > first[li + 1]) first[li] = first[li + 1];
  int st = BF_SUCCESS;
  for (int64_t k = 0; k < n && !st; ++k) {
    int64_t li = bf_multifab_local_index(mf, grids[k]);
    if (li < 0) {
      st = bf_error_set(BF_ERROR_INDEX, __func__, "box %lld is not a local box of the MultiFab", (long long)grids[k]);
      break;
    }
    int64_t nt = first[li + 1] - first[li];
    if (tiles[k] < 0 || tiles[k] >= nt) {
      st = bf_error_set(BF_ERROR_INDEX, __func__, "tile %d out of range [0, %lld) of box %lld", tiles[k],
                        (long long)nt, (long long)grids[k]);
      break;
    }
    sel[k] = all->tiles[first[li] + tiles[k]];
  }
  free(first);
  if (st) {
    free(sel);
    bf_mfiter_destroy(&all);
    return st;
  }
  free(all->tiles);
  all->tiles = sel;
  all->ntiles = n;
  all->pos = 0;
  *out = all;
  return BF_SUCCESS;
}
