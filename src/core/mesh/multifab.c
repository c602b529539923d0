/* MultiFab: creation, storage, properties and argument checks
 * (see include/boxfab/multifab.h). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "boxfab/fab.h"
#include "boxfab/runtime.h"
#include "mesh/multifab_impl.h"

static void multifab_free(bf_object *obj) {
  bf_multifab *mf = (bf_multifab *)obj;
  bf_mf_tcache_free(mf);
  bf_buffer_destroy(&mf->buffer);
  bf_boxarray_destroy(&mf->ba);
  bf_distmap_destroy(&mf->dm);
  free(mf->lidx);
  free(mf->g2l);
  free(mf->offsets);
  free(mf);
}

int bf_multifab_create(bf_boxarray *ba, bf_distmap *dm, int ncomp, bf_intvect ngrow, int dtype, bf_arena *arena,
                       bool alloc, bf_multifab **out) {
  BF_CHECK(out != NULL, BF_ERROR_VALUE, "NULL result pointer");
  BF_CHECK(ba != NULL && dm != NULL, BF_ERROR_VALUE, "MultiFab needs a BoxArray and a DistributionMapping");
  uint64_t rid = bf_runtime_top();
  BF_CALL(bf_runtime_check(rid, "MultiFab"));
  int dim = bf_boxarray_dim(ba);
  int64_t n = bf_boxarray_size(ba);
  BF_CHECK(bf_distmap_size(dm) == n, BF_ERROR_VALUE,
           "the BoxArray has %lld boxes but the DistributionMapping %lld entries", (long long)n,
           (long long)bf_distmap_size(dm));
  BF_CHECK(ncomp >= 1, BF_ERROR_VALUE, "number of components must be >= 1, got %d", ncomp);
  BF_CHECK(ngrow.dim == dim, BF_ERROR_TYPE, "ngrow has dimension %d, the BoxArray %d", ngrow.dim, dim);
  for (int d = 0; d < dim; ++d)
    BF_CHECK(ngrow.v[d] >= 0, BF_ERROR_VALUE, "ghost cells must be >= 0, got %d in direction %d", ngrow.v[d], d);
  BF_CHECK(bf_dtype_is_mesh(dtype), BF_ERROR_VALUE, "MultiFabs hold double or int data, not dtype %d", dtype);
  /* every box must live on a rank that exists: a box on rank >= NProcs would
   * belong to nobody (reductions skipped it, ghost exchanges lost it) */
  const int nprocs = bf_parallel_nprocs();
  const int *ranks = bf_distmap_data(dm);
  for (int64_t i = 0; i < n; ++i)
    BF_CHECK(ranks[i] >= 0 && ranks[i] < nprocs, BF_ERROR_VALUE,
             "MultiFab: the DistributionMapping puts box %lld on rank %d, but there %s %d process%s (ranks 0 to %d)",
             (long long)i, ranks[i], nprocs == 1 ? "is" : "are", nprocs, nprocs == 1 ? "" : "es", nprocs - 1);
  const bf_box *boxes = bf_boxarray_data(ba);
  for (int64_t i = 0; i < n; ++i) {
    BF_CHECK(bf_box_ok(&boxes[i]), BF_ERROR_VALUE, "box %lld of the BoxArray is empty", (long long)i);
    /* every fab box (grown by the ghost cells) must be representable: the
     * rest of the library grows boxes by ngrow without checking again */
    for (int d = 0; d < dim; ++d)
      BF_CHECK((int64_t)boxes[i].lo[d] - ngrow.v[d] >= INT_MIN && (int64_t)boxes[i].hi[d] + ngrow.v[d] <= INT_MAX,
               BF_ERROR_OVERFLOW,
               "MultiFab: %d ghost cells in direction %d grow box %lld of the BoxArray ([%d, %d] in that direction) "
               "beyond the range of C int",
               ngrow.v[d], d, (long long)i, boxes[i].lo[d], boxes[i].hi[d]);
  }

  bf_multifab *mf = calloc(1, sizeof *mf);
  BF_CHECK(mf != NULL, BF_ERROR_MEMORY, "out of memory for a MultiFab");
  bf_object_init(&mf->obj, multifab_free);
  mf->runtime_id = rid;
  mf->uid = bf_mf_new_uid();
  mf->ba = bf_boxarray_retain(ba);
  mf->dm = bf_distmap_retain(dm);
  mf->dim = dim, mf->ncomp = ncomp, mf->dtype = dtype, mf->ngrow = ngrow;
  mf->arena = arena ? arena : bf_arena_get(BF_ARENA_DEFAULT);
  const int *pmap = bf_distmap_data(dm);
  int me = bf_parallel_myproc();
  mf->g2l = malloc((size_t)(n > 0 ? n : 1) * sizeof *mf->g2l);
  mf->lidx = malloc((size_t)(n > 0 ? n : 1) * sizeof *mf->lidx);
  mf->offsets = malloc((size_t)(n > 0 ? n : 1) * sizeof *mf->offsets);
  if (!mf->g2l || !mf->lidx || !mf->offsets) {
    bf_multifab_destroy(&mf);
    BF_ERROR(BF_ERROR_MEMORY, "out of memory for a MultiFab of %lld boxes", (long long)n);
  }
  size_t off = 0;
  for (int64_t i = 0; i < n; ++i) {
    mf->g2l[i] = -1;
    if (pmap[i] != me) continue;
    int64_t li = mf->nlocal++;
    mf->g2l[i] = li;
    mf->lidx[li] = i;
    mf->offsets[li] = off;
    bf_box fb = mf_fabbox(mf, li);
    size_t bytes = 0;
    int err = bf_fab_bytes_of(&fb, ncomp, dtype, &bytes);
    if (err) {
      bf_multifab_destroy(&mf);
      return err;
    }
    if (!bf_size_align(bytes, BF_ARENA_ALIGNMENT, &bytes) || !bf_size_add(off, bytes, &off) ||
        off > (size_t)INT64_MAX) {
      bf_multifab_destroy(&mf);
      BF_ERROR(BF_ERROR_OVERFLOW,
               "MultiFab: the data of its local boxes (%lld of %lld so far, %d component(s), ghost cells included) "
               "need more than 2^63 bytes",
               (long long)li + 1, (long long)n, ncomp);
    }
  }
  mf->nbytes = off;
  if (alloc) {
    int err = bf_buffer_create(mf->arena, off, &mf->buffer);
    if (err) {
      bf_multifab_destroy(&mf);
      return err;
    }
  }
  *out = mf;
  return BF_SUCCESS;
}

bf_multifab *bf_multifab_retain(bf_multifab *mf) {
  bf_object_retain(&mf->obj);
  return mf;
}

void bf_multifab_destroy(bf_multifab **mf) {
  if (!mf || !*mf) return;
  bf_object_release(&(*mf)->obj);
  *mf = NULL;
}

long bf_multifab_refcount(const bf_multifab *mf) { return bf_object_refcount(&mf->obj); }

int bf_multifab_check(const bf_multifab *mf) {
  BF_CHECK(mf != NULL, BF_ERROR_VALUE, "NULL MultiFab");
  return bf_runtime_check(mf->runtime_id, "MultiFab");
}

int bf_multifab_clear(bf_multifab *mf) {
  BF_CALL(bf_multifab_check(mf));
  bf_mf_tcache_free(mf);
  bf_buffer_destroy(&mf->buffer);
  return BF_SUCCESS;
}

bf_boxarray *bf_multifab_boxarray(const bf_multifab *mf) { return mf->ba; }
bf_distmap *bf_multifab_distmap(const bf_multifab *mf) { return mf->dm; }
int bf_multifab_dim(const bf_multifab *mf) { return mf->dim; }
int bf_multifab_ncomp(const bf_multifab *mf) { return mf->ncomp; }
bf_intvect bf_multifab_ngrow(const bf_multifab *mf) { return mf->ngrow; }
int bf_multifab_dtype(const bf_multifab *mf) { return mf->dtype; }
bf_arena *bf_multifab_arena(const bf_multifab *mf) { return mf->arena; }
int64_t bf_multifab_size(const bf_multifab *mf) { return bf_boxarray_size(mf->ba); }
int64_t bf_multifab_nlocal(const bf_multifab *mf) { return mf->nlocal; }
unsigned bf_multifab_ixtype(const bf_multifab *mf) {
  return bf_boxarray_size(mf->ba) > 0 ? bf_boxarray_data(mf->ba)[0].type : 0u;
}
bool bf_multifab_is_nodal(const bf_multifab *mf, int dir) {
  return dir >= 0 && dir < mf->dim && (bf_multifab_ixtype(mf) >> dir & 1u);
}
bool bf_multifab_is_all_cell_centered(const bf_multifab *mf) { return bf_multifab_ixtype(mf) == 0; }
bool bf_multifab_is_all_nodal(const bf_multifab *mf) {
  return bf_multifab_ixtype(mf) == (1u << mf->dim) - 1u;
}
bool bf_multifab_ok(const bf_multifab *mf) {
  return mf && bf_runtime_alive(mf->runtime_id) && mf->buffer != NULL;
}
bool bf_multifab_is_allocated(const bf_multifab *mf) { return mf->buffer != NULL; }

int bf_multifab_buffer(const bf_multifab *mf, bf_buffer **buf) {
  BF_CALL(bf_multifab_check(mf));
  *buf = mf->buffer;
  return BF_SUCCESS;
}

static void strides_of(const bf_box *fb, int64_t s[3]) {
  int64_t nx = bf_box_length(fb, 0), ny = fb->dim > 1 ? bf_box_length(fb, 1) : 1;
  int64_t nz = fb->dim > 2 ? bf_box_length(fb, 2) : 1;
  s[0] = nx, s[1] = nx * ny, s[2] = nx * ny * nz;
}

int bf_multifab_local_fab(const bf_multifab *mf, int64_t li, bf_mf_fab *fab) {
  BF_CALL(bf_multifab_check(mf));
  BF_CHECK(li >= 0 && li < mf->nlocal, BF_ERROR_INDEX, "local fab %lld out of range [0, %lld)", (long long)li,
           (long long)mf->nlocal);
  fab->index = mf->lidx[li];
  fab->validbox = *mf_validbox(mf, li);
  fab->fabbox = mf_fabbox(mf, li);
  fab->offset = mf->offsets[li];
  fab->data = mf->buffer ? (char *)bf_buffer_data(mf->buffer) + mf->offsets[li] : NULL;
  strides_of(&fab->fabbox, fab->stride);
  return BF_SUCCESS;
}

int64_t bf_multifab_local_index(const bf_multifab *mf, int64_t index) {
  if (index < 0 || index >= bf_boxarray_size(mf->ba)) return -1;
  return mf->g2l[index];
}

int bf_multifab_get_fab(const bf_multifab *mf, int64_t li, bf_fab **fab) {
  bf_mf_fab f;
  BF_CALL(bf_multifab_local_fab(mf, li, &f));
  BF_CALL(bf_mf_check_data(mf));
  return bf_fab_create_on_buffer(&f.fabbox, mf->ncomp, mf->dtype, mf->buffer, f.offset, fab);
}

void bf_mf_kview(const bf_multifab *mf, int64_t li, bf_kview *v) {
  bf_box fb = mf_fabbox(mf, li);
  int hi[3];
  bf_box_pad3(&fb, v->lo, hi);
  int64_t s[3];
  strides_of(&fb, s);
  v->js = s[0], v->ks = s[1], v->ns = s[2];
  v->data = (char *)bf_buffer_data(mf->buffer) + mf->offsets[li];
}

/* ---- checks ----------------------------------------------------------------- */

int bf_mf_check_data(const bf_multifab *mf) {
  BF_CALL(bf_multifab_check(mf));
  /* "no boxes at all", not "no local bytes": a rank without fabs must fail
   * this check as the others do, or it would enter a collective alone */
  BF_CHECK(mf->buffer != NULL || bf_boxarray_size(mf->ba) == 0, BF_ERROR_RUNTIME,
           "the MultiFab holds no data (created with alloc=False, or cleared)");
  return BF_SUCCESS;
}

int bf_mf_check_comps(const bf_multifab *mf, int comp, int ncomp, const char *what) {
  BF_CHECK(ncomp >= 1, BF_ERROR_INDEX, "%s: number of components must be >= 1, got %d", what, ncomp);
  BF_CHECK(comp >= 0 && comp < mf->ncomp && ncomp <= mf->ncomp - comp, BF_ERROR_INDEX,
           "%s: components [%d, %lld) out of range for a MultiFab with %d components", what, comp,
           (long long)comp + ncomp, mf->ncomp);
  return BF_SUCCESS;
}

int bf_mf_check_ng(const bf_multifab *mf, bf_intvect ng, const char *what) {
  BF_CHECK(ng.dim == mf->dim, BF_ERROR_TYPE, "%s: ghost width of dimension %d for a MultiFab of dimension %d", what,
           ng.dim, mf->dim);
  for (int d = 0; d < mf->dim; ++d)
    BF_CHECK(ng.v[d] >= 0 && ng.v[d] <= mf->ngrow.v[d], BF_ERROR_INDEX,
             "%s: %d ghost cells requested in direction %d, the MultiFab has %d", what, ng.v[d], d, mf->ngrow.v[d]);
  return BF_SUCCESS;
}

int bf_mf_check_region(const bf_multifab *mf, const bf_box *region) {
  if (!region) return BF_SUCCESS;
  BF_CHECK(region->dim == mf->dim, BF_ERROR_TYPE, "region of dimension %d for a MultiFab of dimension %d",
           region->dim, mf->dim);
  BF_CHECK(region->type == bf_multifab_ixtype(mf), BF_ERROR_TYPE,
           "region's index type differs from the MultiFab's");
  return BF_SUCCESS;
}

int bf_mf_check_period(const bf_multifab *mf, const bf_periodicity *period) {
  if (!period) return BF_SUCCESS;
  BF_CHECK(period->dim == mf->dim, BF_ERROR_TYPE, "periodicity of dimension %d for a MultiFab of dimension %d",
           period->dim, mf->dim);
  for (int d = 0; d < mf->dim; ++d)
    BF_CHECK(period->period[d] >= 0, BF_ERROR_VALUE, "negative period %d in direction %d", period->period[d], d);
  return BF_SUCCESS;
}

static bool compat_known(const bf_multifab *a, uint64_t uid) {
  for (int i = 0; i < 4; ++i)
    if (__atomic_load_n(&a->compat[i], __ATOMIC_RELAXED) == uid) return true;
  return false;
}

/* The memo is a cache beside the MultiFab's (const) contents. */
static void compat_remember(const bf_multifab *a, uint64_t uid) {
  bf_multifab *m = (bf_multifab *)a;
  unsigned slot = __atomic_fetch_add(&m->compat_next, 1u, __ATOMIC_RELAXED) % 4u;
  __atomic_store_n(&m->compat[slot], uid, __ATOMIC_RELAXED);
}

int bf_multifab_check_compatible(const bf_multifab *a, const bf_multifab *b, const char *what) {
  if (!what) what = "MultiFab operation";
  BF_CHECK(a && b, BF_ERROR_VALUE, "%s: NULL MultiFab", what);
  BF_CALL(bf_multifab_check(a));
  BF_CALL(bf_multifab_check(b));
  if (a == b) return BF_SUCCESS;
  BF_CHECK(a->dtype == b->dtype, BF_ERROR_TYPE, "%s: MultiFabs of different element types (%s and %s)", what,
           bf_dtype_name(a->dtype), bf_dtype_name(b->dtype));
  BF_CHECK(a->dim == b->dim, BF_ERROR_TYPE, "%s: MultiFabs of different dimensions (%d and %d)", what, a->dim,
           b->dim);
  if ((a->ba == b->ba && a->dm == b->dm) || compat_known(a, b->uid) || compat_known(b, a->uid)) return BF_SUCCESS;
  int64_t n = bf_boxarray_size(a->ba);
  BF_CHECK(n == bf_boxarray_size(b->ba), BF_ERROR_VALUE,
           "%s: the MultiFabs have different BoxArrays (%lld and %lld boxes)", what, (long long)n,
           (long long)bf_boxarray_size(b->ba));
  if (a->ba != b->ba) {
    const bf_box *x = bf_boxarray_data(a->ba), *y = bf_boxarray_data(b->ba);
    for (int64_t i = 0; i < n; ++i)
      BF_CHECK(bf_box_equal(&x[i], &y[i]), BF_ERROR_VALUE, "%s: the MultiFabs have different BoxArrays (box %lld differs)",
               what, (long long)i);
  }
  if (a->dm != b->dm) {
    const int *x = bf_distmap_data(a->dm), *y = bf_distmap_data(b->dm);
    for (int64_t i = 0; i < n; ++i)
      BF_CHECK(x[i] == y[i], BF_ERROR_VALUE,
               "%s: the MultiFabs have different DistributionMappings (box %lld on rank %d and %d)", what,
               (long long)i, x[i], y[i]);
  }
  compat_remember(a, b->uid);
  compat_remember(b, a->uid);
  return BF_SUCCESS;
}
