/* Private: the communication layer of the distributed engine.
 *
 * Every runtime instance has a communicator (a bf_comm): MPI's, duplicated
 * from the one initialize() was given (MPI_COMM_WORLD by default), or the
 * serial one (one rank) when boxfab was built without MPI or runs as a single
 * process that no MPI launcher started (see runtime.h).  The core reaches
 * MPI only through the functions below, so that no file but comm.c includes
 * mpi.h and a build without MPI has the same core.
 *
 * Errors: every function returns BF_SUCCESS or a BF_ERROR_* code with the
 * message set (MPI's error string for an MPI failure: the communicators use
 * MPI_ERRORS_RETURN).  A collective must be called by every rank of the
 * communicator in the same order; the callers check their arguments the same
 * way on every rank (the same BoxArray, DistributionMapping and arguments),
 * so that either all ranks fail a check or none.
 *
 * Messages of any size: a point-to-point message over INT_MAX bytes travels as
 * several MPI messages with the same tag (MPI keeps their order). */
#ifndef BOXFAB_COMM_H
#define BOXFAB_COMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct bf_comm bf_comm;

/* Tags of the point-to-point messages (one per kind of exchange). */
enum {
  BF_TAG_EXCHANGE = 0x4246, /* fill_boundary and the copy family (fillboundary.c) */
  BF_TAG_PARTICLES,         /* particle redistribute */
  BF_TAG_IO,                /* plotfile / checkpoint tokens */
  BF_TAG_GATHER,
  BF_TAG_USER
};

/* The communicator of runtime instance `id`; the serial one when `id` is 0 or
 * not active.  Never NULL; valid while the instance is active. */
const bf_comm *bf_comm_of(uint64_t id);
/* The communicator of the top instance (the serial one when none). */
const bf_comm *bf_comm_top(void);
/* The serial communicator (one rank, no MPI). */
const bf_comm *bf_comm_serial(void);

int bf_comm_size(const bf_comm *c);
int bf_comm_rank(const bf_comm *c);
/* True when c communicates through MPI (false for the serial one, even in an
 * MPI build). */
bool bf_comm_is_mpi(const bf_comm *c);
/* True when device (CUDA) pointers may be passed to MPI directly: an MPI with
 * CUDA support detected at run time (Open MPI's MPIX_Query_cuda_support), unless
 * the environment says BOXFAB_MPI_CUDA_AWARE=0 (=1 forces it on). */
bool bf_comm_cuda_aware(void);

/* MPI's thread support level (MPI_Query_thread: 0 single .. 3 multiple); 0
 * when MPI is not initialized or not built. */
int bf_comm_thread_level(void);

/* ---- point to point ------------------------------------------------------------- */

/* A set of pending non-blocking messages.  Each message has an id in [0, nids)
 * chosen by the caller; bf_comm_waitany reports ids as whole messages
 * complete.  Initialize with bf_comm_reqs_init, free with bf_comm_reqs_free
 * (which first waits for anything still pending). */
typedef struct bf_comm_reqs {
  const bf_comm *comm;
  void *req;    /* MPI_Request[cap] */
  int *rid;     /* message id of each request */
  int *pending; /* per id: requests not yet complete */
  int n, cap, nids, active;
} bf_comm_reqs;

int bf_comm_reqs_init(bf_comm_reqs *r, const bf_comm *c, int nids);
void bf_comm_reqs_free(bf_comm_reqs *r);
/* Post a send / receive of `bytes` bytes to / from rank `peer` as message `id`
 * (0 <= id < nids).  The buffer must stay untouched until the message
 * completes.  `bytes` may be 0 (a message is still sent: the receiver knows
 * what it expects).  Sending to oneself is allowed (a matching receive must
 * be posted too). */
int bf_comm_isend(bf_comm_reqs *r, const void *buf, size_t bytes, int peer, int tag, int id);
int bf_comm_irecv(bf_comm_reqs *r, void *buf, size_t bytes, int peer, int tag, int id);
/* Wait until some message has completed: *id receives its id; -1 when no
 * message is pending. */
int bf_comm_waitany(bf_comm_reqs *r, int *id);
/* Wait for every pending message. */
int bf_comm_waitall(bf_comm_reqs *r);

/* ---- collectives ------------------------------------------------------------------ */

typedef enum { BF_CT_DOUBLE, BF_CT_INT64, BF_CT_INT, BF_CT_UINT8 } bf_comm_type;
typedef enum { BF_OP_SUM, BF_OP_MIN, BF_OP_MAX, BF_OP_LAND, BF_OP_LOR } bf_comm_op;

/* Reduce n values of `type` in place over all ranks with `op`: every rank gets
 * the result when root < 0, else rank root (the others keep their values).
 * Sums of doubles are deterministic for a given number of ranks and
 * identical on every rank: the partial values are gathered and added in rank
 * order (MPI's reduction order is not specified). */
int bf_comm_reduce(const bf_comm *c, void *buf, int64_t n, bf_comm_type type, bf_comm_op op, int root);
int bf_comm_barrier(const bf_comm *c);
int bf_comm_bcast(const bf_comm *c, void *buf, size_t bytes, int root);
/* Every rank contributes `bytes` bytes; recv (size * bytes) receives them in
 * rank order on every rank. */
int bf_comm_allgather(const bf_comm *c, const void *send, size_t bytes, void *recv);
/* Every rank contributes `bytes` bytes (different per rank); on every rank
 * (root < 0) or on root only, *out receives a malloc'd concatenation in rank
 * order (free it) and counts[size] (when not NULL) each rank's byte count;
 * other ranks get *out = NULL. */
int bf_comm_gatherv(const bf_comm *c, const void *send, size_t bytes, int root, void **out, size_t *counts);
/* send[size] int64 values, one for each rank: recv[r] receives what rank r
 * sent to this rank. */
int bf_comm_alltoall_i64(const bf_comm *c, const int64_t *send, int64_t *recv);

/* ---- the runtime's side (runtime/lifecycle.c) ----------------------------------------------- */

/* A new communicator for a runtime instance: a duplicate of the MPI
 * communicator with Fortran handle `comm_f` (BF_COMM_WORLD: MPI_COMM_WORLD, or
 * the serial one when MPI is not initialized and no launcher started this
 * process; see runtime.h), MPI initialized first when needed.  *out NULL means
 * the serial communicator. */
int bf_comm_create(int64_t comm_f, bf_comm **out);
/* Release a communicator of bf_comm_create (NULL allowed). */
void bf_comm_free(bf_comm *c);
/* Fortran handle of c's MPI communicator (BF_ERROR_RUNTIME for the serial one).
 * A communicator whose handle was given out is not freed by bf_comm_free
 * (the caller may keep using it after the instance ends). */
int bf_comm_fortran_handle(const bf_comm *c, int64_t *comm_f);


/* ---- agreement (collective) ------------------------------------------------------------- */

/* Every rank passes its own result of a step that all ranks took: all return
 * BF_SUCCESS when every rank succeeded, else every rank returns the error of
 * the lowest failing rank with its message (the others' own errors are
 * replaced by it), so that a failure on one rank raises the same exception
 * everywhere and no rank goes on alone.  Returns err unchanged on one rank. */
int bf_comm_agree(const bf_comm *c, int err);

#endif
