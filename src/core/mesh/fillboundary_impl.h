/* Private: copy plans of the ghost exchange (fillboundary*.c). */
#ifndef BOXFAB_FILLBOUNDARY_IMPL_H
#define BOXFAB_FILLBOUNDARY_IMPL_H

#include <pthread.h>

#include "mesh/multifab_impl.h"

enum {
  BF_PLAN_FILL_BOUNDARY,
  BF_PLAN_COPY,          /* parallel copy / add */
  BF_PLAN_SUM_BOUNDARY,
  BF_PLAN_OVERRIDE_SYNC,
  BF_PLAN_AVERAGE_SYNC
};

typedef struct bf_plan_key {
  int kind;
  bf_boxarray *dst_ba, *src_ba; /* borrowed in queries; the cache retains them */
  bf_distmap *dst_dm, *src_dm;
  int dst_ng[3], src_ng[3];
  bool has_period;
  bf_periodicity period;
  bool cross;
  const struct bf_comm *comm; /* the communicator the plan's ranks refer to (NULL: one rank) */
  int nprocs, me;             /* its size and this rank (a later communicator may reuse the address) */
} bf_plan_key;

typedef struct bf_copy_item {
  int64_t dst_li, src_li;
  bf_box region; /* in dst index space */
  int shift[3];  /* src index = dst index - shift */
} bf_copy_item;

/* A plan compiled for the fab shapes of MultiFabs with ghost widths dng
 * (destination) and sng (source): one bf_xtask per item, plus the tasks that
 * stage the sources through a buffer (pack: item i's source region into
 * "fab" i of the buffer, a dense nx*ny*nz block per component; unpack: from
 * there into the destination) for runs whose sources and destinations share
 * memory.  Built on first use and kept with the plan. */
typedef struct bf_plan_exec {
  struct bf_plan_exec *next;
  int dng[3], sng[3];
  bf_xtask *tasks, *pack, *unpack; /* tasks: in `run` order */
  int64_t *ustart, *uprefix;       /* units of `run` */
  int64_t *gstart, *gprefix;       /* units of `unpack`: the plan's groups */
  int64_t *pstart, *pprefix;       /* units of `pack`: one task each */
  bf_xlist run, packs, unpacks;
  int64_t points; /* sum of the tasks' points */
  /* distributed plans: `spack` packs send item i (source fab -> "fab" i of
   * the send buffer, a dense block per component), `runpack` unpacks
   * receive item i ("fab" i of the receive buffer -> destination fab); the
   * caller gives the blocks' byte offsets.  Units are single tasks: sunits
   * covers every send item, runits[m] the receive items of message m
   * (prefixes from 0 within each message). */
  bf_xtask *spack, *runpack;
  int64_t *sstart, *spref, *rstart, *rpref;
  bf_xlist sunits;
  bf_xlist *runits;
} bf_plan_exec;

/* The element-wise form of a plan for backends without an exchange kernel
 * (CUDA): one bf_ktask per item, views relative to the MultiFabs' buffers
 * (valid for every MultiFab of the same layout: ghost widths, components,
 * type), and the backend's handle of it for one kind of call (op class,
 * components).  Built on first use and kept with the plan; released with
 * it. */
typedef struct bf_plan_glist {
  struct bf_plan_glist *next;
  int dng[3], sng[3];
  int dncomp, sncomp, dtype;
  bool has_src, serial;
  int ncomp, acomp, bcomp, opbits;
  bf_ktask *tasks;
  int64_t all[2]; /* the one group of a serial run */
  const bf_backend *be;
  void *handle;
} bf_plan_glist;

/* One aggregated message of a distributed plan: the items [start, end) of
 * the plan's send (or receive) list, all for (from) rank `peer`, packed in
 * item order; their points start at point `pos0` of the buffer. */
typedef struct bf_plan_msg {
  int peer;
  int64_t start, end;
  int64_t pos0, points;
} bf_plan_msg;

/* The cached buffers of a distributed plan's messages (host, or device plus
 * pinned host staging); taken by one call at a time. */
typedef struct bf_plan_bufs {
  const struct bf_backend *be; /* NULL: host memory (malloc) */
  int dkind;                   /* arena kind of the device buffers */
  void *sdev, *rdev;           /* device: pack/unpack buffers */
  void *shost, *rhost;         /* host (or pinned staging) */
  size_t scap, rcap;
} bf_plan_bufs;

/* fill_boundary's full x faces of fabs of one shape, run as whole x-lines
 * (bf_xline_desc): built on first use for one fab layout (ghost widths,
 * components) and kept with the plan.  `usable` false: the plan or the
 * layout does not allow it.  `rest`: a plan of the other items (NULL:
 * none, among others when d.rows covers them), run as before. */
typedef struct bf_plan_xline {
  struct bf_plan_xline *next;
  int ng[3], ncomp;
  bool usable;
  bf_xline_desc d;
  int64_t *lstart, *lfab, *lnbr;
  uint8_t *lper;
  struct bf_plan *rest;
  const struct bf_backend *for_be; /* the backend it was made for (NULL: the host loop) */
  const struct bf_backend *be;     /* the backend of `handle` (NULL: none made) */
  void *handle;
} bf_plan_xline;

typedef struct bf_plan {
  long refcount;
  int kind; /* BF_PLAN_* (-1: a plan made from another's items) */
  bf_plan_xline *xlines;
  bf_copy_item *items;
  int64_t nitems;
  int64_t *group_start; /* items of one dst fab: [group_start[g], group_start[g+1]) */
  int64_t ngroups;
  bool needs_tmp;  /* sum_boundary: some item reads cells another writes */
  bool free_order; /* no item reads points an item writes, and no two write the same point */
  pthread_mutex_t lock; /* guards execs and glists */
  bf_plan_exec *execs;
  bf_plan_glist *glists;
  int nglists;
  /* ---- distributed plans (the communicator has more than one rank) --------
   * The items are built for every box of the layouts in the same order on
   * every rank (the one-rank plan's order), then split: `items` above keep
   * the local copies (dst and src on this rank) that can run while messages
   * are in flight; `sitems` the copies whose source is here and destination
   * elsewhere (dst_li: the global dst index, src_li local), grouped by
   * destination rank in plan order (smsg); `ritems` those whose
   * destination is here and source elsewhere (dst_li local, src_li the
   * global src index), grouped by source rank in plan order (rmsg).  Both
   * sides thus agree on the layout of every message.  When the plan is not
   * free-order (two items may touch the same point: nodal faces, sums,
   * syncs), the items of a destination fab that share points with a remote
   * item (closure) form the `late` list, run after every message arrived in
   * plan order (src_li >= 0: local source; < 0: receive item -1 - src_li);
   * every point then gets its writes in the one-rank order. */
  bool distributed;
  bf_copy_item *sitems, *ritems, *late;
  int64_t nsitems, nritems, nlate;
  int64_t *spos, *rpos; /* point offset of each item's block in its buffer (n + 1) */
  bf_plan_msg *smsg, *rmsg;
  int nsmsg, nrmsg;
  int64_t *late_gs, nlate_groups; /* late groups: one dst fab each */
  bf_plan_bufs *bufs;             /* kept between calls (atomic exchange) */
} bf_plan;

/* The x-line form of fill_boundary plan p for MultiFab mf (kept with the
 * plan; *out->usable false when it does not apply), and a host run of it
 * (the reference the device kernel follows; tests: BOXFAB_FB_XLINE=1), and
 * the release of a plan's forms (fillboundary_xline.c). */
int bf_plan_xline_get(struct bf_plan *p, const bf_multifab *mf, const bf_backend *be, const bf_plan_xline **out);
void bf_xline_run_host(const bf_xline_desc *d, double *base, int comp0, int ncomp);
void bf_plan_xlines_free(bf_plan_xline *l);
/* Release a plan reference (fillboundary_plan.c). */
void bf_plan_done(struct bf_plan *plan);
/* A plan of the given items (copied), grouped by destination fab as they
 * come, free_order as given, outside the cache (kind -1). */
int bf_plan_of_items(const bf_copy_item *items, int64_t n, bool free_order, struct bf_plan **out);

/* Free kept message buffers (NULL allowed; fillboundary.c). */
void bf_plan_bufs_free(bf_plan_bufs *b);

/* Bytes and messages of the last distributed exchange of this process and
 * the totals since start-up (fillboundary.c). */
void bf_exchange_stats_get(int64_t out[6]);

/* The plan of `key` (cached); release it with bf_plan_done. */
int bf_plan_get(const bf_plan_key *key, bf_plan **plan);
void bf_plan_done(bf_plan *plan);

/* The compiled form of `plan` for destination `dst` and source `src` (their
 * ghost widths; src NULL: as dst), built on first use; owned by the plan. */
int bf_plan_exec_get(bf_plan *plan, const bf_multifab *dst, const bf_multifab *src, const bf_plan_exec **exec);

/* The kept element-wise form of `plan` for a call with kernel arguments g
 * (op, type, ncomp, acomp, bcomp) on dst and src (NULL: no source) with
 * backend `be` (which has `prepare`); `serial`: all items as one group.
 * *out NULL (and success) when the plan keeps too many forms already: the
 * caller builds the tasks itself.  Owned by the plan. */
int bf_plan_glist_get(bf_plan *plan, const bf_backend *be, const bf_kargs *g, const bf_multifab *dst,
                      const bf_multifab *src, bool serial, const bf_plan_glist **out);

#endif
