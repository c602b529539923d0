/* Runtime lifecycle and build information (see include/boxfab/runtime.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boxfab/gpu.h"
#include "runtime/comm.h"
#include "boxfab/parmparse.h"
#include "boxfab/runtime.h"
#include "boxfab_config.h"
#if BOXFAB_HAVE_OPENMP && defined(_OPENMP)
#include <omp.h>
#endif

#define BF_RUNTIME_MAX_STACK 64
#define BF_RUNTIME_MAX_HOOKS 32

static uint64_t bf_stack[BF_RUNTIME_MAX_STACK];
static bf_comm *bf_stack_comm[BF_RUNTIME_MAX_STACK]; /* NULL: serial */
static bf_comm *bf_pending_comm;                      /* the instance being initialized */
static int bf_stack_size;
static uint64_t bf_next_id = 1;
static int bf_verbose = 1;

static struct {
  bf_runtime_hook fn;
  void *ctx;
} bf_hooks[BF_RUNTIME_MAX_HOOKS];
static int bf_nhooks;

/* ---- messages (AMReX's amrex::Print() / ErrorStream() in Initialize and Finalize) ---- */
static bf_runtime_output_fn bf_output_fn;
static void *bf_output_ctx;

void bf_runtime_set_output(bf_runtime_output_fn fn, void *ctx) {
  bf_output_fn = fn;
  bf_output_ctx = fn ? ctx : NULL;
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void bf_message(int stream, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (bf_output_fn) {
    bf_output_fn(stream, buf, bf_output_ctx);
  } else {
    FILE *f = stream == 2 ? stderr : stdout;
    fputs(buf, f);
    fflush(f);
  }
}

/* The lines of AMReX's Initialize (AMReX.cpp, amrex::Initialize, verbose > 0;
 * the GPU lines from Gpu::Device::Initialize), with boxfab's version where AMReX
 * prints its own; the MPI lines when the instance communicates through MPI. */
static void bf_runtime_print_initialize(void) {
  bool io = bf_parallel_myproc() == bf_parallel_ioprocessor_number();
  if (!io) return;
  bf_message(1, "Initializing AMReX (boxfab %s)...\n", bf_version());
  if (bf_parallel_uses_mpi()) {
    bf_message(1, "MPI initialized with %d MPI processes\n", bf_parallel_nprocs());
    bf_message(1, "MPI initialized with thread support level %d\n", bf_comm_thread_level());
  }
#if BOXFAB_HAVE_OPENMP && defined(_OPENMP)
  int nthreads = omp_get_max_threads();
  bf_message(1, "OMP initialized with %d OMP threads\n", nthreads);
  long ncores = sysconf(_SC_NPROCESSORS_ONLN);
  int nranks = bf_parallel_nprocs(); /* ranks per node: all of them (one node) */
  if (ncores > 0 && ncores < (long)nthreads * nranks)
    bf_message(2,
               "AMReX Warning: You might be oversubscribing CPU cores with OMP threads.\n"
               "               There are %ld cores per node.\n"
               "               But OMP is initialized with %d threads per process.\n"
               "               You should consider setting OMP_NUM_THREADS=%ld or less in the environment.\n",
               ncores, nthreads, ncores / nranks);
#endif
  if (bf_gpu_available()) {
    bf_message(1, "Initializing %s...\n", bf_gpu_backend_name());
    bf_message(1, "%s initialized with 1 device.\n", bf_gpu_backend_name());
  }
  bf_message(1, "AMReX (boxfab %s) initialized\n", bf_version());
}

static int bf_runtime_initialize_params(int dim, int nargs, const char *const *args, int first);

int bf_runtime_initialize(int nargs, const char *const *args, uint64_t *id) {
  return bf_runtime_initialize_dim(0, nargs, args, id);
}

int bf_runtime_initialize_dim(int dim, int nargs, const char *const *args, uint64_t *id) {
  return bf_runtime_initialize_comm(dim, nargs, args, BF_COMM_WORLD, id);
}

int bf_runtime_initialize_comm(int dim, int nargs, const char *const *args, int64_t comm_f, uint64_t *id) {
  BF_CHECK(dim >= 0 && dim <= BF_SPACEDIM_MAX, BF_ERROR_VALUE, "dimension must be 0 to 3, got %d", dim);
  BF_CHECK(nargs >= 0, BF_ERROR_VALUE, "negative argument count %d", nargs);
  BF_CHECK(nargs == 0 || args != NULL, BF_ERROR_VALUE, "%d arguments but args is NULL", nargs);
  BF_CHECK(bf_stack_size < BF_RUNTIME_MAX_STACK, BF_ERROR_RUNTIME,
           "too many nested runtime instances (at most %d)", BF_RUNTIME_MAX_STACK);
  for (int i = 0; i < nargs; ++i) BF_CHECK(args[i] != NULL, BF_ERROR_VALUE, "argument %d is NULL", i);
  /* amrex::Initialize: argv[1] without '=' (and argv[2] not starting with '=') is the inputs file */
  int first = 0;
  if (nargs > 0 && !strchr(args[0], '=') && !(nargs > 1 && args[1][0] == '=') && access(args[0], F_OK) == 0)
    first = 1;
  for (int i = first; i < nargs; ++i) {
    BF_CHECK(strchr(args[i], '=') != NULL, BF_ERROR_VALUE,
             "initialize() expects \"key=value\" tokens (the first may be an inputs file), got \"%.200s\"%s",
             args[i], i == 0 ? " (no such file)" : "");
    BF_CALL(bf_parmparse_check_token_dim(args[i], dim));
  }
  /* the communicator first: the messages below print on the I/O rank only */
  bf_comm *comm = NULL;
  BF_CALL(bf_comm_create(comm_f, &comm));
  bf_pending_comm = comm; /* bf_comm_top() during the steps below */
  int err = bf_runtime_initialize_params(dim, nargs, args, first);
  if (!err && bf_verbose > 0) bf_runtime_print_initialize();
  bf_pending_comm = NULL;
  if (err) {
    bf_comm_free(comm);
    return err;
  }
  uint64_t new_id = bf_next_id++;
  bf_stack_comm[bf_stack_size] = comm;
  bf_stack[bf_stack_size++] = new_id;
  if (id) *id = new_id;
  return BF_SUCCESS;
}

/* The parameters AMReX's initialize reads (AMReX.cpp, AMReX_Arena.cpp, AMReX_TinyProfiler.cpp,
 * AMReX_GpuDevice.cpp) that boxfab takes without acting on: read, so that the unused-parameter report
 * at finalize lists what AMReX's lists.  A pair is a name and its alias (read only without the name). */
static const char *const amrex_init_params[][2] = {
    {"amrex.call_addr2line", NULL}, {"amrex.regtest_reduction", NULL}, {"amrex.abort_on_unused_inputs", NULL},
    {"amrex.fpe_trap_invalid", NULL}, {"amrex.fpe_trap_overflow", NULL}, {"amrex.fpe_trap_zero", NULL},
    {"amrex.handle_sigabrt", NULL}, {"amrex.handle_sigfpe", NULL}, {"amrex.handle_sigill", NULL},
    {"amrex.handle_sigint", NULL}, {"amrex.handle_sigsegv", NULL}, {"amrex.handle_sigterm", NULL},
    {"amrex.init_snan", NULL}, {"amrex.signal_handling", NULL}, {"amrex.throw_exception", NULL},
    {"amrex.abort_on_out_of_gpu_memory", NULL}, {"amrex.the_arena_is_managed", NULL},
    {"amrex.the_arena_init_size", NULL}, {"amrex.the_device_arena_init_size", NULL},
    {"amrex.the_managed_arena_init_size", NULL}, {"amrex.the_pinned_arena_init_size", NULL},
    {"amrex.the_comms_arena_init_size", NULL}, {"amrex.the_arena_release_threshold", NULL},
    {"amrex.the_device_arena_release_threshold", NULL}, {"amrex.the_managed_arena_release_threshold", NULL},
    {"amrex.the_pinned_arena_release_threshold", NULL}, {"amrex.the_comms_arena_release_threshold", NULL},
    {"amrex.the_async_arena_release_threshold", NULL}, {"amrex.use_gpu_aware_mpi", NULL},
    {"amrex.max_gpu_streams", NULL}, {"tiny_profiler.output_file", NULL}, {"tiny_profiler.verbose", "tiny_profiler.v"},
    {"tiny_profiler.device_synchronize_around_region", NULL}, {"tiny_profiler.enabled", NULL},
    {"tiny_profiler.memprof_enabled", NULL}, {"tiny_profiler.print_threshold", NULL},
    {"device.graph_init", NULL}, {"device.graph_init_nodes", NULL}, {"device.verbose", "device.v"},
};

static int bf_runtime_initialize_params(int dim, int nargs, const char *const *args, int first) {
  if (first) BF_CALL(bf_parmparse_add_file(args[0], dim));
  for (int i = first; i < nargs; ++i) BF_CALL(bf_parmparse_add_token_dim(args[i], dim));
  if (nargs > 0) { /* AMReX: ParmParse("amrex").query("verbose", "v", ...): "amrex.v" when no "amrex.verbose" */
    bool found = false;
    int verbose = bf_verbose;
    BF_CALL(bf_parmparse_query_int("amrex.verbose", 0, &found, &verbose));
    if (!found) BF_CALL(bf_parmparse_query_int("amrex.v", 0, &found, &verbose));
    if (found) bf_verbose = verbose;
    for (size_t k = 0; k < sizeof amrex_init_params / sizeof amrex_init_params[0]; ++k)
      if (bf_parmparse_count(amrex_init_params[k][0]) < 0 && amrex_init_params[k][1])
        (void)bf_parmparse_count(amrex_init_params[k][1]);
  }
  return BF_SUCCESS;
}

/* AMReX's ParmParse::Finalize: with amrex.parmparse.verbose (default amrex.verbose) > 0 the I/O rank
 * lists the parameters nobody read. */
static void report_unused_parameters(bool io) {
  if (!io || !bf_parmparse_has_unused(NULL)) return;
  bool found = false;
  int verbose = bf_verbose > 0 ? bf_verbose : 0;
  if (bf_parmparse_query_int("amrex.parmparse.verbose", 0, &found, &verbose) != BF_SUCCESS) {
    bf_error_clear();
    verbose = bf_verbose > 0 ? bf_verbose : 0;
  }
  char *text = NULL;
  if (verbose <= 0 || bf_parmparse_unused(NULL, 0, &text) != BF_SUCCESS) {
    bf_error_clear();
    return;
  }
  bf_message(1, "Unused ParmParse Variables:\n");
  for (char *line = text, *nl; *line; line = nl + 1) {
    nl = strchr(line, '\n');
    *nl = '\0';
    bf_message(1, "  [TOP]::%s\n", line);
  }
  bf_message(1, "\n");
  free(text);
}

/* Remove the stack entry at position `at` after running the hooks. */
static void bf_runtime_pop_at(int at) {
  uint64_t id = bf_stack[at];
  for (int h = bf_nhooks - 1; h >= 0; --h) bf_hooks[h].fn(id, bf_hooks[h].ctx);
  /* AMReX's Finalize prints this at the end of every Finalize (AMReX.cpp, amrex::Finalize) */
  bool io = bf_comm_rank(bf_comm_of(id)) == 0;
  bf_comm_free(bf_stack_comm[at]);
  memmove(&bf_stack[at], &bf_stack[at + 1], (size_t)(bf_stack_size - at - 1) * sizeof bf_stack[0]);
  memmove(&bf_stack_comm[at], &bf_stack_comm[at + 1], (size_t)(bf_stack_size - at - 1) * sizeof bf_stack_comm[0]);
  --bf_stack_size;
  bf_stack_comm[bf_stack_size] = NULL;
  if (bf_stack_size == 0) {
    report_unused_parameters(io);
    bf_parmparse_clear();
  }
  if (bf_verbose > 0 && io)
    bf_message(1, "AMReX (boxfab %s) finalized\n", bf_version());
}

int bf_runtime_finalize(void) {
  BF_CHECK(bf_stack_size > 0, BF_ERROR_RUNTIME, "finalize() called but boxfab is not initialized");
  bf_runtime_pop_at(bf_stack_size - 1);
  return BF_SUCCESS;
}

int bf_runtime_finalize_instance(uint64_t id) {
  for (int i = bf_stack_size - 1; i >= 0; --i) {
    if (bf_stack[i] != id) continue;
    bf_runtime_pop_at(i);
    return BF_SUCCESS;
  }
  BF_ERROR(BF_ERROR_RUNTIME, "runtime instance %llu is not active (already finalized?)", (unsigned long long)id);
}

bool bf_runtime_initialized(void) { return bf_stack_size > 0; }

int bf_runtime_size(void) { return bf_stack_size; }

uint64_t bf_runtime_top(void) { return bf_stack_size > 0 ? bf_stack[bf_stack_size - 1] : 0; }

bool bf_runtime_alive(uint64_t id) {
  for (int i = 0; i < bf_stack_size; ++i)
    if (bf_stack[i] == id) return true;
  return false;
}

int bf_runtime_check(uint64_t id, const char *what) {
  if (!what) what = "an object";
  BF_CHECK(id != 0, BF_ERROR_RUNTIME, "%s needs boxfab to be initialized (call initialize() first)", what);
  BF_CHECK(bf_runtime_alive(id), BF_ERROR_RUNTIME,
           "%s was used after boxfab's finalize(); create it again after initialize()", what);
  return BF_SUCCESS;
}

static int bf_hook_find(bf_runtime_hook fn, void *ctx) {
  for (int h = 0; h < bf_nhooks; ++h)
    if (bf_hooks[h].fn == fn && bf_hooks[h].ctx == ctx) return h;
  return -1;
}

int bf_runtime_add_finalize_hook(bf_runtime_hook fn, void *ctx) {
  BF_CHECK(fn != NULL, BF_ERROR_VALUE, "finalize hook is NULL");
  BF_CHECK(bf_hook_find(fn, ctx) < 0, BF_ERROR_VALUE, "this finalize hook is already registered");
  BF_CHECK(bf_nhooks < BF_RUNTIME_MAX_HOOKS, BF_ERROR_RUNTIME, "too many finalize hooks (at most %d)",
           BF_RUNTIME_MAX_HOOKS);
  bf_hooks[bf_nhooks].fn = fn;
  bf_hooks[bf_nhooks].ctx = ctx;
  ++bf_nhooks;
  return BF_SUCCESS;
}

int bf_runtime_remove_finalize_hook(bf_runtime_hook fn, void *ctx) {
  int h = bf_hook_find(fn, ctx);
  BF_CHECK(h >= 0, BF_ERROR_VALUE, "this finalize hook is not registered");
  memmove(&bf_hooks[h], &bf_hooks[h + 1], (size_t)(bf_nhooks - h - 1) * sizeof bf_hooks[0]);
  --bf_nhooks;
  return BF_SUCCESS;
}

int bf_runtime_verbose(void) { return bf_verbose; }
void bf_runtime_set_verbose(int verbose) { bf_verbose = verbose; }

/* ---- communicators ------------------------------------------------------------------------ */
const bf_comm *bf_comm_of(uint64_t id) {
  for (int i = bf_stack_size - 1; i >= 0; --i)
    if (bf_stack[i] == id) return bf_stack_comm[i] ? bf_stack_comm[i] : bf_comm_serial();
  return bf_comm_serial();
}

const bf_comm *bf_comm_top(void) {
  if (bf_pending_comm) return bf_pending_comm; /* during initialize: the new instance's */
  return bf_stack_size > 0 && bf_stack_comm[bf_stack_size - 1] ? bf_stack_comm[bf_stack_size - 1]
                                                                : bf_comm_serial();
}

int bf_parallel_nprocs(void) { return bf_comm_size(bf_comm_top()); }
int bf_parallel_myproc(void) { return bf_comm_rank(bf_comm_top()); }
int bf_parallel_ioprocessor_number(void) { return 0; }
bool bf_parallel_uses_mpi(void) { return bf_comm_is_mpi(bf_comm_top()); }

int bf_parallel_communicator(int64_t *comm_f) {
  BF_CHECK(bf_stack_size > 0, BF_ERROR_RUNTIME, "boxfab is not initialized (call initialize() first)");
  return bf_comm_fortran_handle(bf_comm_top(), comm_f);
}

int bf_parallel_barrier(void) { return bf_comm_barrier(bf_comm_top()); }

static int reduce_op(int op, bf_comm_op *out) {
  BF_CHECK(op >= 0 && op <= 4, BF_ERROR_VALUE, "unknown reduction %d (0 sum, 1 min, 2 max, 3 and, 4 or)", op);
  *out = (bf_comm_op)op;
  return BF_SUCCESS;
}

int bf_parallel_reduce_double(double *v, int64_t n, int op, int root) {
  bf_comm_op o = BF_OP_SUM;
  BF_CALL(reduce_op(op, &o));
  BF_CHECK(root < bf_parallel_nprocs(), BF_ERROR_VALUE, "root rank %d out of [0, %d)", root, bf_parallel_nprocs());
  return bf_comm_reduce(bf_comm_top(), v, n, BF_CT_DOUBLE, o, root);
}

int bf_parallel_reduce_int64(int64_t *v, int64_t n, int op, int root) {
  bf_comm_op o = BF_OP_SUM;
  BF_CALL(reduce_op(op, &o));
  BF_CHECK(root < bf_parallel_nprocs(), BF_ERROR_VALUE, "root rank %d out of [0, %d)", root, bf_parallel_nprocs());
  return bf_comm_reduce(bf_comm_top(), v, n, BF_CT_INT64, o, root);
}

int bf_parallel_bcast(void *buf, size_t bytes, int root) { return bf_comm_bcast(bf_comm_top(), buf, bytes, root); }

bool bf_build_has_cuda(void) { return BOXFAB_HAVE_CUDA != 0; }
bool bf_build_has_mpi(void) { return BOXFAB_HAVE_MPI != 0; }
bool bf_build_has_openmp(void) { return BOXFAB_HAVE_OPENMP != 0; }
