/* The communication layer (see comm.h): MPI when built with it, else serial. */
#include "runtime/comm.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boxfab/base.h"
#include "boxfab/runtime.h"
#include "boxfab_config.h"

#if BOXFAB_HAVE_MPI
#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI && defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif
#endif

struct bf_comm {
  int size, rank;
  bool mpi;
  bool exported; /* its handle was given out (bf_comm_fortran_handle): never freed */
#if BOXFAB_HAVE_MPI
  MPI_Comm comm;
#endif
};

static const bf_comm bf_serial = {.size = 1, .rank = 0, .mpi = false};

/* True when c communicates through MPI.  A build without MPI never makes such a communicator; saying so
 * as a constant lets the compiler drop the MPI paths there (else it warns that their buffers "may be
 * used uninitialized", gcc 12 -O3: the #if'd-out MPI calls would have filled them). */
static inline bool on_mpi(const bf_comm *c) { return BOXFAB_HAVE_MPI && c->mpi; }

const bf_comm *bf_comm_serial(void) { return &bf_serial; }
int bf_comm_size(const bf_comm *c) { return c->size; }
int bf_comm_rank(const bf_comm *c) { return c->rank; }
bool bf_comm_is_mpi(const bf_comm *c) { return on_mpi(c); }

#if BOXFAB_HAVE_MPI
/* BF_ERROR_RUNTIME with MPI's message when rc is not MPI_SUCCESS. */
static int mpi_check(int rc, const char *what) {
  if (rc == MPI_SUCCESS) return BF_SUCCESS;
  char msg[MPI_MAX_ERROR_STRING + 1];
  int len = 0;
  if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS) len = 0;
  msg[len] = 0;
  BF_ERROR(BF_ERROR_RUNTIME, "%s failed: %s", what, len ? msg : "unknown MPI error");
}
/* MPI may be finalized under a live instance (a script's MPI.Finalize() before
 * boxfab's finalize()): any MPI call then aborts the process ("called after
 * MPI_FINALIZE"); every entry point that communicates checks first, so the
 * script gets a RuntimeError instead. */
static int mpi_usable(void) {
  int fin = 0;
  if (MPI_Finalized(&fin) == MPI_SUCCESS && !fin) return BF_SUCCESS;
  BF_ERROR(BF_ERROR_RUNTIME, "MPI has been finalized (MPI.Finalize() before boxfab's finalize()): boxfab cannot "
                             "communicate any more");
}
#define MPI_CALL(call, what)                  \
  do {                                        \
    int mpi_rc_ = mpi_check((call), (what));  \
    if (mpi_rc_) return mpi_rc_;              \
  } while (0)
#endif

/* ---- CUDA awareness ------------------------------------------------------------------ */
bool bf_comm_cuda_aware(void) {
  const char *env = getenv("BOXFAB_MPI_CUDA_AWARE");
  if (env && env[0] == '0') return false;
  if (env && env[0] == '1') return true;
#if BOXFAB_HAVE_MPI && defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  int init = 0;
  if (MPI_Initialized(&init) != MPI_SUCCESS || !init) return false;
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

int bf_comm_thread_level(void) {
#if BOXFAB_HAVE_MPI
  int init = 0, level = 0;
  if (MPI_Initialized(&init) == MPI_SUCCESS && init && MPI_Query_thread(&level) == MPI_SUCCESS) return level;
#endif
  return 0;
}

void bf_parallel_mpi_library(char *buf, size_t len) {
  if (!buf || len == 0) return;
  buf[0] = 0;
#if BOXFAB_HAVE_MPI
  char v[MPI_MAX_LIBRARY_VERSION_STRING + 1];
  int n = 0;
  if (MPI_Get_library_version(v, &n) == MPI_SUCCESS) {
    v[n] = 0;
    snprintf(buf, len, "%s", v);
  }
#endif
}

bool bf_parallel_cuda_aware(void) { return bf_comm_cuda_aware(); }

/* ---- creation ------------------------------------------------------------------------- */

#if BOXFAB_HAVE_MPI
/* True when an MPI launcher started this process (mpirun / mpiexec / srun). */
static bool launched_by_mpi(void) {
  static const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMI_RANK", "PMIX_RANK",
                               "MPI_LOCALNRANKS",      "MV2_COMM_WORLD_SIZE", "HYDRA_CONTROL_FD"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; ++i)
    if (getenv(vars[i])) return true;
  return false;
}

static void finalize_mpi_at_exit(void) {
  int fin = 0;
  if (MPI_Finalized(&fin) == MPI_SUCCESS && !fin) MPI_Finalize();
}
#endif

int bf_comm_create(int64_t comm_f, bf_comm **out) {
  *out = NULL;
#if !BOXFAB_HAVE_MPI
  BF_CHECK(comm_f == BF_COMM_WORLD, BF_ERROR_UNSUPPORTED,
           "a communicator was given but boxfab was built without MPI (install an MPI, e.g. Debian's "
           "libopenmpi-dev, and rebuild)");
  return BF_SUCCESS;
#else
  int init = 0, fin = 0;
  MPI_CALL(MPI_Initialized(&init), "MPI_Initialized");
  MPI_CALL(MPI_Finalized(&fin), "MPI_Finalized");
  BF_CHECK(!fin, BF_ERROR_RUNTIME, "MPI has been finalized: boxfab cannot start on it");
  if (!init) {
    BF_CHECK(comm_f == BF_COMM_WORLD, BF_ERROR_RUNTIME,
             "a communicator was given but MPI is not initialized");
    if (!launched_by_mpi()) return BF_SUCCESS; /* a single process: serial, no MPI_Init */
    int provided = 0;
    MPI_CALL(MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided), "MPI_Init_thread");
    atexit(finalize_mpi_at_exit); /* boxfab started MPI: it ends it, at exit (a later cycle reuses it) */
  }
  MPI_Comm base = MPI_COMM_WORLD;
  if (comm_f != BF_COMM_WORLD) {
    BF_CHECK(comm_f >= INT_MIN && comm_f <= INT_MAX, BF_ERROR_VALUE, "invalid MPI communicator handle %lld",
             (long long)comm_f);
    base = MPI_Comm_f2c((MPI_Fint)comm_f);
    BF_CHECK(base != MPI_COMM_NULL, BF_ERROR_VALUE, "the communicator is MPI_COMM_NULL");
    int inter = 0;
    MPI_CALL(MPI_Comm_test_inter(base, &inter), "MPI_Comm_test_inter");
    BF_CHECK(!inter, BF_ERROR_VALUE, "boxfab needs an intracommunicator, not an intercommunicator");
  }
  bf_comm *c = calloc(1, sizeof *c);
  BF_CHECK(c != NULL, BF_ERROR_MEMORY, "out of memory");
  int rc = MPI_Comm_dup(base, &c->comm);
  if (rc != MPI_SUCCESS) {
    free(c);
    return mpi_check(rc, "MPI_Comm_dup");
  }
  MPI_Comm_set_errhandler(c->comm, MPI_ERRORS_RETURN);
  MPI_Comm_size(c->comm, &c->size);
  MPI_Comm_rank(c->comm, &c->rank);
  c->mpi = true;
  *out = c;
  return BF_SUCCESS;
#endif
}

void bf_comm_free(bf_comm *c) {
  if (!c) return;
#if BOXFAB_HAVE_MPI
  int fin = 0;
  /* an exported handle may outlive the instance (ParallelDescriptor.Communicator()
   * wraps it in an mpi4py communicator that the script keeps): freeing it
   * would make that object dangle (using it crashed in MPI); MPI_Finalize
   * reclaims it, one per instance at most */
  if (c->mpi && !c->exported && MPI_Finalized(&fin) == MPI_SUCCESS && !fin) MPI_Comm_free(&c->comm);
#endif
  free(c);
}

int bf_comm_fortran_handle(const bf_comm *c, int64_t *comm_f) {
  BF_CHECK(on_mpi(c), BF_ERROR_RUNTIME,
           BOXFAB_HAVE_MPI ? "this runtime instance runs as a single process without MPI (no MPI launcher "
                                "started it and MPI was not initialized before initialize())"
                              : "boxfab was built without MPI");
#if BOXFAB_HAVE_MPI
  BF_CALL(mpi_usable());
  ((bf_comm *)c)->exported = true; /* see bf_comm_free (c is never the serial one here) */
  *comm_f = (int64_t)MPI_Comm_c2f(c->comm);
#else
  *comm_f = BF_COMM_WORLD;
#endif
  return BF_SUCCESS;
}

/* ---- point to point --------------------------------------------------------------------- */

int bf_comm_reqs_init(bf_comm_reqs *r, const bf_comm *c, int nids) {
  memset(r, 0, sizeof *r);
  r->comm = c;
  r->nids = nids > 0 ? nids : 0;
  r->pending = calloc((size_t)(r->nids > 0 ? r->nids : 1), sizeof *r->pending);
  BF_CHECK(r->pending != NULL, BF_ERROR_MEMORY, "out of memory for %d message states", nids);
  return BF_SUCCESS;
}

void bf_comm_reqs_free(bf_comm_reqs *r) {
  if (r->active > 0) (void)bf_comm_waitall(r);
  free(r->req);
  free(r->rid);
  free(r->pending);
  memset(r, 0, sizeof *r);
}

#if BOXFAB_HAVE_MPI
static int reqs_grow(bf_comm_reqs *r, int more) {
  if (r->n + more <= r->cap) return BF_SUCCESS;
  int cap = r->cap ? r->cap : 16;
  while (cap < r->n + more) cap *= 2;
  MPI_Request *q = realloc(r->req, (size_t)cap * sizeof *q);
  if (q) r->req = q;
  int *id = realloc(r->rid, (size_t)cap * sizeof *id);
  if (id) r->rid = id;
  BF_CHECK(q && id, BF_ERROR_MEMORY, "out of memory for %d MPI requests", cap);
  for (int i = r->cap; i < cap; ++i) q[i] = MPI_REQUEST_NULL;
  r->cap = cap;
  return BF_SUCCESS;
}

static int post(bf_comm_reqs *r, void *buf, size_t bytes, int peer, int tag, int id, bool send) {
  const bf_comm *c = r->comm;
  BF_CHECK(id >= 0 && id < r->nids, BF_ERROR_RUNTIME, "message id %d out of [0, %d)", id, r->nids);
  BF_CHECK(peer >= 0 && peer < c->size, BF_ERROR_RUNTIME, "rank %d out of [0, %d)", peer, c->size);
  BF_CHECK(on_mpi(c), BF_ERROR_RUNTIME, "a message on the serial communicator");
  BF_CALL(mpi_usable());
  size_t chunk = (size_t)INT_MAX & ~(size_t)63;
  int nchunks = bytes == 0 ? 1 : (int)((bytes + chunk - 1) / chunk);
  BF_CALL(reqs_grow(r, nchunks));
  MPI_Request *q = r->req;
  for (int k = 0; k < nchunks; ++k) {
    size_t off = (size_t)k * chunk, len = bytes - off < chunk ? bytes - off : chunk;
    if (bytes == 0) len = 0;
    char *p = (char *)buf + (bytes ? off : 0);
    int rc = send ? MPI_Isend(p, (int)len, MPI_BYTE, peer, tag, c->comm, &q[r->n])
                  : MPI_Irecv(p, (int)len, MPI_BYTE, peer, tag, c->comm, &q[r->n]);
    BF_CALL(mpi_check(rc, send ? "MPI_Isend" : "MPI_Irecv"));
    r->rid[r->n++] = id;
    ++r->pending[id];
    ++r->active;
  }
  return BF_SUCCESS;
}
#endif

int bf_comm_isend(bf_comm_reqs *r, const void *buf, size_t bytes, int peer, int tag, int id) {
#if BOXFAB_HAVE_MPI
  return post(r, (void *)buf, bytes, peer, tag, id, true);
#else
  (void)r, (void)buf, (void)bytes, (void)peer, (void)tag, (void)id;
  BF_ERROR(BF_ERROR_RUNTIME, "a message without MPI");
#endif
}

int bf_comm_irecv(bf_comm_reqs *r, void *buf, size_t bytes, int peer, int tag, int id) {
#if BOXFAB_HAVE_MPI
  return post(r, buf, bytes, peer, tag, id, false);
#else
  (void)r, (void)buf, (void)bytes, (void)peer, (void)tag, (void)id;
  BF_ERROR(BF_ERROR_RUNTIME, "a message without MPI");
#endif
}

int bf_comm_waitany(bf_comm_reqs *r, int *id) {
  *id = -1;
#if BOXFAB_HAVE_MPI
  MPI_Request *q = r->req;
  while (r->active > 0) {
    int idx = MPI_UNDEFINED;
    BF_CALL(mpi_check(MPI_Waitany(r->n, q, &idx, MPI_STATUS_IGNORE), "MPI_Waitany"));
    if (idx == MPI_UNDEFINED) {
      r->active = 0;
      break;
    }
    --r->active;
    int m = r->rid[idx];
    if (--r->pending[m] == 0) {
      *id = m;
      break;
    }
  }
  if (r->active == 0) r->n = 0; /* every request is MPI_REQUEST_NULL: start over */
#else
  (void)r;
#endif
  return BF_SUCCESS;
}

int bf_comm_waitall(bf_comm_reqs *r) {
#if BOXFAB_HAVE_MPI
  if (r->n > 0) {
    int rc = MPI_Waitall(r->n, (MPI_Request *)r->req, MPI_STATUSES_IGNORE);
    r->n = r->active = 0;
    memset(r->pending, 0, (size_t)r->nids * sizeof *r->pending);
    BF_CALL(mpi_check(rc, "MPI_Waitall"));
  }
#else
  (void)r;
#endif
  return BF_SUCCESS;
}

/* ---- collectives ------------------------------------------------------------------------ */

static size_t type_size(bf_comm_type t) {
  switch (t) {
    case BF_CT_DOUBLE: return sizeof(double);
    case BF_CT_INT64: return sizeof(int64_t);
    case BF_CT_INT: return sizeof(int);
    default: return 1;
  }
}

/* acc[i] = acc[i] op v[i] */
static void combine(void *acc, const void *v, int64_t n, bf_comm_type t, bf_comm_op op) {
#define COMBINE(T)                                                         \
  do {                                                                     \
    T *a = acc;                                                            \
    const T *b = v;                                                        \
    for (int64_t i = 0; i < n; ++i) {                                      \
      switch (op) {                                                        \
        case BF_OP_SUM: a[i] = (T)(a[i] + b[i]); break;                    \
        case BF_OP_MIN: a[i] = b[i] < a[i] ? b[i] : a[i]; break;           \
        case BF_OP_MAX: a[i] = b[i] > a[i] ? b[i] : a[i]; break;           \
        case BF_OP_LAND: a[i] = (T)(a[i] && b[i]); break;                  \
        case BF_OP_LOR: a[i] = (T)(a[i] || b[i]); break;                   \
      }                                                                    \
    }                                                                      \
  } while (0)
  switch (t) {
    case BF_CT_DOUBLE: COMBINE(double); break;
    case BF_CT_INT64: COMBINE(int64_t); break;
    case BF_CT_INT: COMBINE(int); break;
    default: COMBINE(uint8_t); break;
  }
#undef COMBINE
}

int bf_comm_reduce(const bf_comm *c, void *buf, int64_t n, bf_comm_type type, bf_comm_op op, int root) {
  if (!on_mpi(c) || n <= 0) return BF_SUCCESS;
  BF_CHECK(root < c->size, BF_ERROR_VALUE, "root rank %d out of [0, %d)", root, c->size);
  size_t es = type_size(type);
  BF_CHECK((uint64_t)n <= SIZE_MAX / es / (size_t)c->size, BF_ERROR_VALUE, "reduction of %lld values is too large",
           (long long)n);
  size_t bytes = (size_t)n * es;
  /* gather everyone's values, then combine in rank order: deterministic and
   * (with root < 0) identical on every rank, whatever MPI's reduction order */
  /* small reductions (every scalar one) use the stack: no allocation that could fail on one rank
   * only and leave the others waiting in the gather */
  char stackbuf[8192];
  size_t need = bytes * (size_t)c->size;
  char *all = need <= sizeof stackbuf ? stackbuf : malloc(need);
  BF_CHECK(all != NULL, BF_ERROR_MEMORY, "out of memory for a reduction of %lld values", (long long)n);
  int err = bf_comm_allgather(c, buf, bytes, all);
  if (!err && (root < 0 || root == c->rank)) {
    memcpy(buf, all, bytes);
    for (int r = 1; r < c->size; ++r) combine(buf, all + (size_t)r * bytes, n, type, op);
  }
  if (all != stackbuf) free(all);
  return err;
}

int bf_comm_barrier(const bf_comm *c) {
  if (!on_mpi(c)) return BF_SUCCESS;
#if BOXFAB_HAVE_MPI
  BF_CALL(mpi_usable());
  MPI_CALL(MPI_Barrier(c->comm), "MPI_Barrier");
#endif
  return BF_SUCCESS;
}

int bf_comm_bcast(const bf_comm *c, void *buf, size_t bytes, int root) {
  if (!on_mpi(c)) return BF_SUCCESS;
  BF_CHECK(root >= 0 && root < c->size, BF_ERROR_VALUE, "root rank %d out of [0, %d)", root, c->size);
#if BOXFAB_HAVE_MPI
  BF_CALL(mpi_usable());
  size_t chunk = (size_t)INT_MAX & ~(size_t)63;
  for (size_t off = 0; off < bytes; off += chunk) {
    size_t len = bytes - off < chunk ? bytes - off : chunk;
    MPI_CALL(MPI_Bcast((char *)buf + off, (int)len, MPI_BYTE, root, c->comm), "MPI_Bcast");
  }
#else
  (void)buf, (void)bytes;
#endif
  return BF_SUCCESS;
}

int bf_comm_allgather(const bf_comm *c, const void *send, size_t bytes, void *recv) {
  if (!on_mpi(c)) {
    if (bytes) memmove(recv, send, bytes);
    return BF_SUCCESS;
  }
#if BOXFAB_HAVE_MPI
  BF_CALL(mpi_usable());
  if (bytes <= (size_t)INT_MAX) {
    MPI_CALL(MPI_Allgather(send, (int)bytes, MPI_BYTE, recv, (int)bytes, MPI_BYTE, c->comm), "MPI_Allgather");
    return BF_SUCCESS;
  }
  /* large: one broadcast per rank */
  memmove((char *)recv + (size_t)c->rank * bytes, send, bytes);
  for (int r = 0; r < c->size; ++r) BF_CALL(bf_comm_bcast(c, (char *)recv + (size_t)r * bytes, bytes, r));
#endif
  return BF_SUCCESS;
}

int bf_comm_gatherv(const bf_comm *c, const void *send, size_t bytes, int root, void **out, size_t *counts) {
  *out = NULL;
  BF_CHECK(root < c->size, BF_ERROR_VALUE, "root rank %d out of [0, %d)", root, c->size);
  if (!on_mpi(c)) {
    *out = malloc(bytes ? bytes : 1);
    BF_CHECK(*out != NULL, BF_ERROR_MEMORY, "out of memory for %zu bytes", bytes);
    if (bytes) memcpy(*out, send, bytes);
    if (counts) counts[0] = bytes;
    return BF_SUCCESS;
  }
  int size = c->size, me = c->rank;
  int64_t mine = (int64_t)bytes;
  int64_t *all = malloc((size_t)size * sizeof *all);
  BF_CHECK(all != NULL, BF_ERROR_MEMORY, "out of memory");
  int err = bf_comm_allgather(c, &mine, sizeof mine, all);
  size_t total = 0;
  for (int r = 0; !err && r < size; ++r) total += (size_t)all[r];
  bool receive = root < 0 || root == me;
  char *buf = NULL;
  if (!err && receive) {
    buf = malloc(total ? total : 1);
    if (!buf) err = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory for %zu gathered bytes", total);
  }
  /* an allocation failure on one rank must not leave the others waiting: agree first */
  int ok = err == 0;
  int e2 = bf_comm_reduce(c, &ok, 1, BF_CT_INT, BF_OP_LAND, -1);
  if (!err) err = e2;
  if (!err && !ok) err = bf_error_set(BF_ERROR_MEMORY, __func__, "a rank ran out of memory in a gather");
  if (!err) {
    bf_comm_reqs r;
    err = bf_comm_reqs_init(&r, c, size + 1);
    if (!err) {
      size_t off = 0;
      for (int p = 0; !err && receive && p < size; ++p) {
        if (p != me) err = bf_comm_irecv(&r, buf + off, (size_t)all[p], p, BF_TAG_GATHER, p);
        else if (bytes) memcpy(buf + off, send, bytes);
        off += (size_t)all[p];
      }
      for (int p = 0; !err && p < size; ++p)
        if (p != me && (root < 0 || p == root)) err = bf_comm_isend(&r, send, bytes, p, BF_TAG_GATHER, size);
      int e3 = bf_comm_waitall(&r);
      if (!err) err = e3;
      bf_comm_reqs_free(&r);
    }
  }
  if (!err && receive) {
    *out = buf;
    buf = NULL;
    if (counts)
      for (int p = 0; p < size; ++p) counts[p] = (size_t)all[p];
  }
  free(buf);
  free(all);
  return err;
}

int bf_comm_alltoall_i64(const bf_comm *c, const int64_t *send, int64_t *recv) {
  if (!on_mpi(c)) {
    recv[0] = send[0];
    return BF_SUCCESS;
  }
#if BOXFAB_HAVE_MPI
  BF_CALL(mpi_usable());
  MPI_CALL(MPI_Alltoall(send, 1, MPI_INT64_T, recv, 1, MPI_INT64_T, c->comm), "MPI_Alltoall");
#endif
  return BF_SUCCESS;
}

/* ---- agreement on the outcome of a collective step (added for the distributed I/O) -------- */

int bf_comm_agree(const bf_comm *c, int err) {
  int size = bf_comm_size(c), me = bf_comm_rank(c);
  if (size == 1) return err;
  int first = err ? me : size;
  int e = bf_comm_reduce(c, &first, 1, BF_CT_INT, BF_OP_MIN, -1);
  if (e) return err ? err : e;
  if (first == size) return BF_SUCCESS;
  struct {
    int code;
    char msg[1000];
  } m;
  memset(&m, 0, sizeof m);
  if (me == first) {
    m.code = err;
    snprintf(m.msg, sizeof m.msg, "%s", bf_error_message());
  }
  e = bf_comm_bcast(c, &m, sizeof m, first);
  if (me == first) return err;
  if (e) return err ? err : e;
  m.msg[sizeof m.msg - 1] = '\0';
  return bf_error_set(m.code ? m.code : BF_ERROR_RUNTIME, __func__, "%s", m.msg);
}
