/* Private layout of bf_multifab and helpers shared by the multifab*.c,
 * mfiter.c and fillboundary*.c files. */
#ifndef BOXFAB_MULTIFAB_IMPL_H
#define BOXFAB_MULTIFAB_IMPL_H

#include "runtime/backend.h"
#include "boxfab/multifab.h"
#include "base/object.h"

struct bf_multifab {
  bf_object obj;
  uint64_t runtime_id;
  bf_boxarray *ba;
  bf_distmap *dm;
  int dim, ncomp, dtype;
  bf_intvect ngrow;
  bf_arena *arena;
  bf_buffer *buffer; /* NULL when not allocated or cleared */
  int64_t nlocal;
  int64_t *lidx;    /* nlocal: global index of local fab li */
  int64_t *g2l;     /* size(ba): local index or -1 */
  size_t *offsets;  /* nlocal: byte offset of each fab's data */
  size_t nbytes;    /* bytes of all local data */
  uint64_t uid;     /* never reused: keys of kept task lists */
  /* uids of MultiFabs found to have this one's BoxArray and DistributionMapping
   * contents (they never change: a MultiFab keeps its own references, and a
   * shared BoxArray or DistributionMapping is copied before it is modified),
   * so a repeated check costs no comparison of every box (multifab.c) */
  uint64_t compat[4];
  unsigned compat_next;
  struct bf_tc_entry *tcache; /* kept task lists (multifab_tcache.c) */
};

static inline const bf_box *mf_validbox(const bf_multifab *mf, int64_t li) {
  return &bf_boxarray_data(mf->ba)[mf->lidx[li]];
}

static inline bf_box mf_fabbox(const bf_multifab *mf, int64_t li) {
  bf_box b = *mf_validbox(mf, li);
  (void)bf_box_grow(&b, mf->ngrow.v);
  return b;
}

static inline int bf_ktype_of(int dtype) { return dtype == BF_DTYPE_DOUBLE ? BF_KTYPE_DOUBLE : BF_KTYPE_INT; }

/* Kernel view of local fab li. */
void bf_mf_kview(const bf_multifab *mf, int64_t li, bf_kview *v);

/* Box corners padded to 3D (unused dims 0). */
static inline void bf_box_pad3(const bf_box *b, int lo[3], int hi[3]) {
  for (int d = 0; d < 3; ++d) {
    lo[d] = d < b->dim ? b->lo[d] : 0;
    hi[d] = d < b->dim ? b->hi[d] : 0;
  }
}

/* Argument checks (each sets the error and returns its code). */
int bf_mf_check_data(const bf_multifab *mf);
int bf_mf_check_comps(const bf_multifab *mf, int comp, int ncomp, const char *what);
int bf_mf_check_ng(const bf_multifab *mf, bf_intvect ng, const char *what);
int bf_mf_check_region(const bf_multifab *mf, const bf_box *region);
int bf_mf_check_period(const bf_multifab *mf, const bf_periodicity *period);

/* The boxes of `ba` that intersect `box` (same type), in increasing index
 * order, into `out` (a reusable list, see bf_isect_list): the BoxArray's
 * hashed query. */
int bf_mesh_intersecting(const bf_boxarray *ba, const bf_box *box, bf_isect_list *out);

/* Bounding box of all boxes of `ba`, grown by grow[0..dim) (NULL: not grown). */
bf_box bf_mesh_bounding(const bf_boxarray *ba);

/* Periodic shifts s = k * period (s = 0 included first) of AMReX's set for
 * ghost width ng (|k| <= max(1, ceil(ng / period)) per direction,
 * Periodicity::shiftIntVect(ng); ng NULL: 0) such that `a` shifted by s may
 * intersect `b`; *out malloc'd, 3 ints each. */
int bf_mesh_periodic_shifts(const bf_box *a, const bf_box *b, const bf_periodicity *period, const int *ng, int **out,
                            int *n);

/* BF_ERROR_VALUE (naming `what`, the period and the data's bounding box) when
 * `bounding` (bf_mesh_bounding of a BoxArray) spans more than two periods in
 * a periodic direction: the
 * period does not fit the data (AMReX's periodic Geometry holds its boxes in
 * one period; helper BoxArrays grown or coarsened from them stick out by less
 * than one more).  Within that bound the shifts and copies of a periodic
 * exchange stay proportional to the data; beyond it they grow without bound
 * (a 64^3 box with period 1 built a plan of 20 GB). */
int bf_mesh_check_period(const bf_box *bounding, const bf_periodicity *period, const char *what);

/* Owner mask over `region` (a sub-box of local fab li's valid box), x fastest:
 * 1 where the point is counted by sum_unique (see multifab.h), else 0.
 * `all`: bf_mesh_bounding(mf's BoxArray); `scratch`: a query list
 * reused between calls (the caller frees it). */
int bf_mf_unique_mask(const bf_multifab *mf, int64_t li, const bf_box *region, const bf_box *all,
                      const bf_periodicity *period, bf_isect_list *scratch, uint8_t **mask);

/* AMReX's OverlapMask(period): a new MultiFab (1 double component, no ghost
 * cells, mf's layout) holding at each valid point the number of copies of
 * that point (boxes sharing it, periodic images under `period`; NULL = not
 * periodic), found from the BoxArray alone (no communication, so right on
 * any number of ranks); *out NULL when no local point has more than one copy.
 * BF_ERROR_VALUE naming `what` when the period does not fit the data. */
int bf_mf_overlap_count(const bf_multifab *mf, const bf_periodicity *period, bf_multifab **out, const char *what);

/* The backend whose kernels reach the data of a, b and c (b, c may be NULL):
 * NULL, with a BF_ERROR_VALUE message naming `what`, when host-only and
 * device-only memory are mixed. */
static inline const bf_backend *bf_mf_backend(const bf_multifab *a, const bf_multifab *b, const bf_multifab *c,
                                              const char *what) {
  const struct bf_arena *ar[3] = {a->arena, b ? b->arena : NULL, c ? c->arena : NULL};
  return bf_backend_for_arenas(3, ar, what);
}

/* ---- kept task lists (multifab_tcache.c) --------------------------------------
 * The tasks of an element-wise op or reduction over local fabs (views a of
 * `a`, b of `b`, c of `c` (may be NULL), region = (valid grown by ng) ∩
 * region, empty ones skipped), kept with `a` and reused by later calls with
 * the same b, c, region and ng.  get returns a reference (release with put);
 * the list stays valid until then. */
typedef struct bf_tc_entry bf_tc_entry;
int bf_mf_tasks_get(const bf_multifab *a, const bf_multifab *b, const bf_multifab *c, const bf_box *region,
                    bf_intvect ng, bf_tc_entry **out);
void bf_mf_tasks_put(bf_tc_entry *e);
int64_t bf_tc_ntasks(const bf_tc_entry *e);
const bf_ktask *bf_tc_tasks(const bf_tc_entry *e);
/* Run g over the kept list with backend `be` (through its kept device form
 * when the backend has one).  Return the backend's status (0 = success). */
int bf_tc_elementwise(const bf_backend *be, bf_tc_entry *e, const bf_kargs *g);
int bf_tc_reduce(const bf_backend *be, bf_tc_entry *e, const bf_kargs *g, bf_kresult *out);
/* Drop every list `mf` keeps (at destruction). */
void bf_mf_tcache_free(bf_multifab *mf);
/* A new uid for a MultiFab. */
uint64_t bf_mf_new_uid(void);

#endif
