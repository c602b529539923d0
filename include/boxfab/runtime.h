/* boxfab — runtime lifecycle, build information, parallel descriptor.
 *
 * The runtime is a stack of instances (as AMReX's).  Each instance has an id
 * that is never reused.  Objects that hold runtime resources record the id of
 * the instance they were made under and check it with bf_runtime_check()
 * before use, so that use after finalize fails with BF_ERROR_RUNTIME instead
 * of touching released resources.  Pure values (IntVect, Box, IndexType,
 * RealBox, RealVect, Periodicity, Geometry, BoxArray, DistributionMapping)
 * do not depend on the runtime and stay usable after finalize.
 * Not thread-safe: initialize and finalize from one thread. */
#ifndef BOXFAB_RUNTIME_H
#define BOXFAB_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boxfab/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Start a runtime instance and push it on the stack.
 *  args: `nargs` command-line style tokens "key=value"; when nargs > 0 they are
 *  added to the parameter store (see parmparse.h).  All tokens are checked
 *  before any is added: a token without '=', with an empty key or without a
 *  value is BF_ERROR_VALUE and nothing changes.  After parsing, a parameter
 *  "amrex.verbose" sets the verbosity; when it is not an int the call fails
 *  with BF_ERROR_VALUE (no instance is started; the tokens stay added).  *id receives the new instance
 *  id (> 0, never reused).  BF_ERROR_RUNTIME when 64 instances are active. */
BF_EXPORT int bf_runtime_initialize(int nargs, const char *const *args, uint64_t *id);

/** bf_runtime_initialize with AMReX's inputs file: when args[0] has no '='
 *  (and args[1] does not start with '='), args[0] is an inputs file, read
 *  first (bf_parmparse_add_file with `dim`, 0 = unknown), and the other
 *  tokens are added after it, so that they win (amrex::Initialize's order).
 *  The tokens are read with `dim` too (bf_parmparse_add_token_dim: a
 *  "FILE=inputs" token reads its #if AMREX_SPACEDIM blocks for it).
 *  A first token without '=' that is not an existing file is the
 *  "key=value" error of bf_runtime_initialize. */
BF_EXPORT int bf_runtime_initialize_dim(int dim, int nargs, const char *const *args, uint64_t *id);

/** The default communicator for bf_runtime_initialize_comm: MPI_COMM_WORLD. */
#define BF_COMM_WORLD ((int64_t)-1)

/** bf_runtime_initialize_dim on an MPI communicator given by its Fortran
 *  handle `comm_f` (MPI_Comm_c2f; mpi4py's `comm.py2f()`), so that the public
 *  API names no MPI type.  The instance works on a duplicate of it (its own
 *  message space); BF_COMM_WORLD means MPI_COMM_WORLD.
 *  MPI's life: when MPI is already initialized (e.g. by mpi4py), boxfab uses
 *  it and never finalizes it.  Otherwise, when an MPI launcher (mpirun,
 *  mpiexec, srun) started this process, boxfab initializes MPI
 *  (MPI_THREAD_SERIALIZED) and finalizes it at process exit, not at
 *  bf_runtime_finalize, so that a later initialize/finalize cycle works.  A
 *  process that no launcher started and that did not initialize MPI runs as
 *  one rank without MPI (no MPI_Init).
 *  BF_ERROR_UNSUPPORTED when comm_f is not BF_COMM_WORLD in a build without
 *  MPI; BF_ERROR_RUNTIME when a communicator is given but MPI is not
 *  initialized, or MPI was finalized; BF_ERROR_VALUE for an
 *  intercommunicator or MPI_COMM_NULL. */
BF_EXPORT int bf_runtime_initialize_comm(int dim, int nargs, const char *const *args, int64_t comm_f,
                                         uint64_t *id);

/** Finalize the top instance. BF_ERROR_RUNTIME when none is active.
 *  The finalize hooks run first (with the instance still active); when the
 *  last instance goes, the parameter store is cleared (as AMReX's
 *  ParmParse::Finalize), so that a later initialize starts afresh. */
BF_EXPORT int bf_runtime_finalize(void);

/** Finalize (remove) the instance `id` wherever it is on the stack, as
 *  bf_runtime_finalize does for the top one.  BF_ERROR_RUNTIME when it is not
 *  active. */
BF_EXPORT int bf_runtime_finalize_instance(uint64_t id);

/** True while at least one instance is active. */
BF_EXPORT bool bf_runtime_initialized(void);

/** Number of active instances. */
BF_EXPORT int bf_runtime_size(void);

/** Id of the top instance, 0 when none. */
BF_EXPORT uint64_t bf_runtime_top(void);

/** True when instance `id` is still active. */
BF_EXPORT bool bf_runtime_alive(uint64_t id);

/** BF_SUCCESS when instance `id` is active, else BF_ERROR_RUNTIME with a
 *  message "<what> was used after boxfab's finalize()" (or "before initialize"
 *  when id is 0). */
BF_EXPORT int bf_runtime_check(uint64_t id, const char *what);

/** A function called when an instance is finalized: `id` is the instance
 *  (still active during the call), `ctx` the pointer given at registration.
 *  Hooks must not initialize or finalize instances themselves. */
typedef void (*bf_runtime_hook)(uint64_t id, void *ctx);

/** Register a finalize hook (the same fn/ctx pair once; hooks run newest
 *  first).  BF_ERROR_VALUE for a NULL fn or a pair already registered,
 *  BF_ERROR_RUNTIME when 32 hooks are registered. */
BF_EXPORT int bf_runtime_add_finalize_hook(bf_runtime_hook fn, void *ctx);

/** Unregister a finalize hook; BF_ERROR_VALUE when the pair is not registered. */
BF_EXPORT int bf_runtime_remove_finalize_hook(bf_runtime_hook fn, void *ctx);

/** Verbosity (Config.verbose, AMReX's amrex::Verbose()), default 1 as in
 *  AMReX; set by the "amrex.verbose" (or else "amrex.v") token of
 *  bf_runtime_initialize, and it stays for later instances.  When it is > 0,
 *  bf_runtime_initialize prints AMReX's initialization lines ("Initializing
 *  AMReX (boxfab <version>)...", "OMP initialized with N OMP threads" in
 *  OpenMP builds, "Initializing CUDA..." / "CUDA initialized with 1 device."
 *  when a GPU is in use, "AMReX (boxfab <version>) initialized"), and every
 *  finalize prints "AMReX (boxfab <version>) finalized", through the output
 *  function below. */
BF_EXPORT int bf_runtime_verbose(void);
BF_EXPORT void bf_runtime_set_verbose(int verbose);

/** Where the runtime's messages go: `stream` 1 (standard output) or 2
 *  (standard error, e.g. AMReX's warning about more OpenMP threads than
 *  cores), `text` one or more whole lines ending in '\n'. */
typedef void (*bf_runtime_output_fn)(int stream, const char *text, void *ctx);

/** Send the runtime's messages to `fn` (called with `ctx`); NULL restores the
 *  default, C's stdout / stderr (flushed after each message).  The Python
 *  extension sets one that writes to sys.stdout / sys.stderr. */
BF_EXPORT void bf_runtime_set_output(bf_runtime_output_fn fn, void *ctx);

/** Parallel descriptor of the top instance's communicator: number of ranks,
 *  this rank, I/O rank (1, 0, 0 without MPI or without an instance). */
BF_EXPORT int bf_parallel_nprocs(void);
BF_EXPORT int bf_parallel_myproc(void);
BF_EXPORT int bf_parallel_ioprocessor_number(void);

/** True when the top instance communicates through MPI (false without MPI,
 *  without an instance, or for a single process that no launcher started). */
BF_EXPORT bool bf_parallel_uses_mpi(void);

/** Fortran handle (MPI_Comm_c2f) of the top instance's communicator, for
 *  mpi4py's `MPI.Comm.f2py`.  BF_ERROR_RUNTIME when no instance is active or
 *  it does not use MPI (see bf_parallel_uses_mpi). */
BF_EXPORT int bf_parallel_communicator(int64_t *comm_f);

/** MPI's library version string (MPI_Get_library_version) into buf (at most
 *  len bytes, NUL-terminated); "" without MPI. */
BF_EXPORT void bf_parallel_mpi_library(char *buf, size_t len);

/** True when device (CUDA) pointers are handed to MPI directly: the MPI is
 *  CUDA-aware (detected at run time, Open MPI's MPIX_Query_cuda_support),
 *  unless BOXFAB_MPI_CUDA_AWARE=0 (=1 forces it on); else device data travel
 *  through pinned host buffers. */
BF_EXPORT bool bf_parallel_cuda_aware(void);

/** Barrier over the top instance's ranks (nothing without MPI). */
BF_EXPORT int bf_parallel_barrier(void);

/** Reductions over the top instance's ranks, in place: n values of double
 *  (reduce_double) or int64 (reduce_int64); op 0 sum, 1 min, 2 max, 3 logical
 *  and, 4 logical or; the result on every rank when root < 0, else on rank
 *  root (the others keep their values).  Sums are added in rank order:
 *  deterministic for a given number of ranks.  BF_ERROR_VALUE for an unknown
 *  op or root >= nprocs. */
BF_EXPORT int bf_parallel_reduce_double(double *v, int64_t n, int op, int root);
BF_EXPORT int bf_parallel_reduce_int64(int64_t *v, int64_t n, int op, int root);

/** Broadcast `bytes` bytes from rank root of the top instance. */
BF_EXPORT int bf_parallel_bcast(void *buf, size_t bytes, int root);

/** Build information: what this build of the library contains. */
BF_EXPORT bool bf_build_has_cuda(void);
BF_EXPORT bool bf_build_has_mpi(void);
BF_EXPORT bool bf_build_has_openmp(void);

#ifdef __cplusplus
}
#endif
#endif
