/* Kept task lists of MultiFab operations (see multifab_impl.h).
 *
 * Every element-wise operation and reduction works on a list of bf_ktask,
 * one per local fab.  Building it (and, on a GPU, turning it into a device
 * launch list and uploading it) costs more host time than the kernels of a
 * small operation take, so the list of a call is kept with the destination
 * MultiFab `a`, keyed by what it depends on: the sources b and c (by uid,
 * never reused, so a key cannot match a later MultiFab at the same address),
 * the region and the ghost width.  Components are not part of the key (the
 * views do not depend on them); the backend's device form is, through its
 * (type, ncomp) (bf_backend.prepare), and is rebuilt when they change.
 *
 * At most TC_MAX lists per MultiFab, the least recently used dropped.  The
 * lists are freed with the MultiFab (or when it is cleared).  Entries are
 * reference counted: one dropped while a call uses it is freed when the call
 * ends.  One mutex guards every MultiFab's list; the device form is built
 * and used under it (the CUDA backend serializes its work anyway). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/multifab_impl.h"

#define TC_MAX 4

struct bf_tc_entry {
  struct bf_tc_entry *next;
  uint64_t buid, cuid; /* 0: none */
  bool has_region;
  bf_box region;
  int ng[BF_SPACEDIM_MAX];
  int64_t ntasks;
  bf_ktask *tasks;
  const bf_backend *be; /* owner of handle */
  void *handle;
  int htype, hncomp;
  long refs;   /* the MultiFab's (while listed) + the calls' */
  uint64_t stamp;
};

static pthread_mutex_t tc_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t tc_clock, uid_next;
static int64_t tc_built, tc_live;

uint64_t bf_mf_new_uid(void) { return __atomic_add_fetch(&uid_next, 1, __ATOMIC_RELAXED); }

static void entry_free(bf_tc_entry *e) {
  if (e->handle && e->be->release) e->be->release(e->handle);
  free(e->tasks);
  free(e);
  --tc_live;
}

/* Called with tc_lock held. */
static void entry_unref(bf_tc_entry *e) {
  if (--e->refs == 0) entry_free(e);
}

static bool key_match(const bf_tc_entry *e, uint64_t buid, uint64_t cuid, const bf_box *region, const bf_intvect *ng) {
  if (e->buid != buid || e->cuid != cuid || e->has_region != (region != NULL)) return false;
  if (region && !bf_box_equal(&e->region, region)) return false;
  for (int d = 0; d < ng->dim; ++d)
    if (e->ng[d] != ng->v[d]) return false;
  return true;
}

static int build(const bf_multifab *a, const bf_multifab *b, const bf_multifab *c, const bf_box *region,
                 bf_intvect ng, bf_tc_entry **out) {
  bf_tc_entry *e = calloc(1, sizeof *e);
  bf_ktask *t = calloc((size_t)(a->nlocal > 0 ? a->nlocal : 1), sizeof *t);
  if (!e || !t) {
    free(e), free(t);
    BF_ERROR(BF_ERROR_MEMORY, "out of memory for a task list");
  }
  int64_t m = 0;
  for (int64_t li = 0; li < a->nlocal; ++li) {
    bf_box bx = *mf_validbox(a, li);
    (void)bf_box_grow(&bx, ng.v);
    if (region) bf_box_intersection(&bx, region, &bx);
    if (!bf_box_ok(&bx)) continue;
    bf_box_pad3(&bx, t[m].lo, t[m].hi);
    bf_mf_kview(a, li, &t[m].a);
    if (b) bf_mf_kview(b, li, &t[m].b);
    if (c) bf_mf_kview(c, li, &t[m].c);
    ++m;
  }
  e->buid = b ? b->uid : 0;
  e->cuid = c ? c->uid : 0;
  e->has_region = region != NULL;
  if (region) e->region = *region;
  for (int d = 0; d < ng.dim; ++d) e->ng[d] = ng.v[d];
  e->ntasks = m;
  e->tasks = t;
  *out = e;
  return BF_SUCCESS;
}

int bf_mf_tasks_get(const bf_multifab *a, const bf_multifab *b, const bf_multifab *c, const bf_box *region,
                    bf_intvect ng, bf_tc_entry **out) {
  bf_multifab *mut = (bf_multifab *)a; /* the cache is not part of the value */
  uint64_t buid = b ? b->uid : 0, cuid = c ? c->uid : 0;
  pthread_mutex_lock(&tc_lock);
  for (bf_tc_entry *e = mut->tcache; e; e = e->next)
    if (key_match(e, buid, cuid, region, &ng)) {
      e->stamp = ++tc_clock;
      ++e->refs;
      pthread_mutex_unlock(&tc_lock);
      *out = e;
      return BF_SUCCESS;
    }
  pthread_mutex_unlock(&tc_lock);
  bf_tc_entry *e = NULL;
  BF_CALL(build(a, b, c, region, ng, &e));
  pthread_mutex_lock(&tc_lock);
  ++tc_built, ++tc_live;
  e->refs = 2; /* the MultiFab's and the caller's */
  e->stamp = ++tc_clock;
  int n = 0;
  bf_tc_entry **oldest = NULL;
  for (bf_tc_entry **p = &mut->tcache; *p; p = &(*p)->next, ++n)
    if (!oldest || (*p)->stamp < (*oldest)->stamp) oldest = p;
  if (n >= TC_MAX) {
    bf_tc_entry *drop = *oldest;
    *oldest = drop->next;
    entry_unref(drop);
  }
  e->next = mut->tcache;
  mut->tcache = e;
  pthread_mutex_unlock(&tc_lock);
  *out = e;
  return BF_SUCCESS;
}

void bf_mf_tasks_put(bf_tc_entry *e) {
  if (!e) return;
  pthread_mutex_lock(&tc_lock);
  entry_unref(e);
  pthread_mutex_unlock(&tc_lock);
}

int64_t bf_tc_ntasks(const bf_tc_entry *e) { return e->ntasks; }
const bf_ktask *bf_tc_tasks(const bf_tc_entry *e) { return e->tasks; }

/* The device form of e for g, built when missing or made for other
 * arguments.  Called with tc_lock held. */
static int ensure_handle(const bf_backend *be, bf_tc_entry *e, const bf_kargs *g) {
  if (e->handle && e->be == be && e->htype == g->type && e->hncomp == g->ncomp) return 0;
  if (e->handle) e->be->release(e->handle);
  e->handle = NULL;
  bf_klist l = {.ntasks = e->ntasks, .tasks = e->tasks};
  if (be->prepare(g, &l, &e->handle)) return 1;
  e->be = be, e->htype = g->type, e->hncomp = g->ncomp;
  return 0;
}

int bf_tc_elementwise(const bf_backend *be, bf_tc_entry *e, const bf_kargs *g) {
  if (e->ntasks == 0) return 0;
  if (!be->prepare) return be->elementwise(g, e->ntasks, e->tasks, 0, NULL);
  pthread_mutex_lock(&tc_lock);
  int err = ensure_handle(be, e, g);
  if (!err) err = be->run_elementwise(e->handle, g);
  pthread_mutex_unlock(&tc_lock);
  return err;
}

int bf_tc_reduce(const bf_backend *be, bf_tc_entry *e, const bf_kargs *g, bf_kresult *out) {
  if (!be->prepare || e->ntasks == 0) return be->reduce(g, e->ntasks, e->tasks, out);
  pthread_mutex_lock(&tc_lock);
  int err = ensure_handle(be, e, g);
  if (!err) err = be->run_reduce(e->handle, g, out);
  pthread_mutex_unlock(&tc_lock);
  return err;
}

void bf_mf_tcache_free(bf_multifab *mf) {
  pthread_mutex_lock(&tc_lock);
  for (bf_tc_entry *e = mf->tcache, *next; e; e = next) {
    next = e->next;
    entry_unref(e);
  }
  mf->tcache = NULL;
  pthread_mutex_unlock(&tc_lock);
}

int bf_multifab_task_cache_size(const bf_multifab *mf) {
  if (!mf) return 0;
  pthread_mutex_lock(&tc_lock);
  int n = 0;
  for (const bf_tc_entry *e = mf->tcache; e; e = e->next) ++n;
  pthread_mutex_unlock(&tc_lock);
  return n;
}

void bf_multifab_task_cache_stats(int64_t *built, int64_t *live) {
  pthread_mutex_lock(&tc_lock);
  if (built) *built = tc_built;
  if (live) *live = tc_live;
  pthread_mutex_unlock(&tc_lock);
}
