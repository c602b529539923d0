/* boxfab — memory: Arenas (allocators) and Buffers (reference-counted blocks).
 *
 * Arenas are process-wide singletons, one per memory kind, obtained with
 * bf_arena_get(kind); they are never destroyed (and stay usable after the
 * runtime's finalize, so that views can still release their memory).  Every
 * allocation goes through a pool: requests are rounded up to a size class
 * (4 classes per power of two, so at most 25 % waste), blocks are 64-byte
 * aligned, and freed blocks go back to their class's free list to be reused;
 * bf_arena_trim() returns the cached free blocks to the system.
 *
 * The memory itself comes from the backend selected at start-up (see
 * boxfab/gpu.h).  Without a GPU every kind is host memory, and the flags
 * below say so: host-accessible, not device memory, not managed, not pinned,
 * not stream ordered.  With a CUDA GPU: The_Arena and The_Device_Arena are
 * device memory (cudaMalloc), The_Async_Arena stream-ordered device memory
 * (cudaMallocAsync on boxfab's stream), The_Managed_Arena managed memory
 * (never more than the device has free: BF_ERROR_MEMORY instead), The_Pinned_Arena
 * page-locked host memory (cudaMallocHost), The_Cpu_Arena plain host memory;
 * the flags tell which.  The pool works the same for every kind, so a freed
 * device block is reused without calling cudaMalloc again.
 *
 * All functions are thread-safe (one lock per arena). */
#ifndef BOXFAB_ARENA_H
#define BOXFAB_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "boxfab/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The arenas (AMReX's The_Arena() is BF_ARENA_DEFAULT). */
typedef enum bf_arena_kind {
  BF_ARENA_DEFAULT = 0, /**< The_Arena: device memory on GPU builds, host here */
  BF_ARENA_CPU = 1,     /**< The_Cpu_Arena: always host memory */
  BF_ARENA_PINNED = 2,  /**< The_Pinned_Arena: page-locked host memory on GPU builds */
  BF_ARENA_MANAGED = 3, /**< The_Managed_Arena: unified memory on GPU builds */
  BF_ARENA_DEVICE = 4,  /**< The_Device_Arena: device memory on GPU builds */
  BF_ARENA_ASYNC = 5    /**< The_Async_Arena: stream-ordered device memory on GPU builds */
} bf_arena_kind;

#define BF_ARENA_NKINDS 6

/** Alignment of every block an arena hands out (bytes). */
#define BF_ARENA_ALIGNMENT 64

typedef struct bf_arena bf_arena;

/** Usage statistics of one arena (bytes unless said otherwise). */
typedef struct bf_arena_stats {
  size_t bytes_in_use;     /**< sum of the requested sizes of live allocations */
  size_t bytes_reserved;   /**< sum of the class sizes of live allocations */
  size_t bytes_cached;     /**< free blocks kept in the pool for reuse */
  size_t high_water;       /**< largest bytes_reserved seen */
  int64_t n_live;          /**< live allocations */
  int64_t n_alloc;         /**< allocations served since start */
  int64_t n_reused;        /**< of those, served from the pool's free lists */
  int64_t n_system_alloc;  /**< blocks obtained from the system (backend) */
} bf_arena_stats;

/** The singleton arena of `kind` (NULL for an unknown kind). Never fails otherwise. */
BF_EXPORT bf_arena *bf_arena_get(int kind);

/** Kind and name ("The_Arena", "The_Cpu_Arena", ...). */
BF_EXPORT int bf_arena_kind_of(const bf_arena *arena);
BF_EXPORT const char *bf_arena_name(const bf_arena *arena);

/** Memory properties of the memory this arena really hands out. */
BF_EXPORT bool bf_arena_is_device_accessible(const bf_arena *arena);
BF_EXPORT bool bf_arena_is_host_accessible(const bf_arena *arena);
BF_EXPORT bool bf_arena_is_managed(const bf_arena *arena);
BF_EXPORT bool bf_arena_is_device(const bf_arena *arena);
BF_EXPORT bool bf_arena_is_pinned(const bf_arena *arena);
BF_EXPORT bool bf_arena_is_stream_ordered(const bf_arena *arena);

/** True when `nbytes` more fit in the device's free memory (always true without a GPU). */
BF_EXPORT bool bf_arena_has_free_device_memory(const bf_arena *arena, size_t nbytes);

/** Allocate `nbytes` (> 0) bytes, 64-byte aligned, into *ptr.  BF_ERROR_VALUE
 *  for nbytes == 0, BF_ERROR_MEMORY when the system refuses. */
BF_EXPORT int bf_arena_alloc(bf_arena *arena, size_t nbytes, void **ptr);

/** Give back a block from bf_arena_alloc of the same arena, with the same
 *  `nbytes` it was allocated with.  ptr == NULL is a no-op. */
BF_EXPORT void bf_arena_free(bf_arena *arena, void *ptr, size_t nbytes);

/** Size actually reserved for a request of nbytes (the size class). */
BF_EXPORT size_t bf_arena_class_size(size_t nbytes);

/** Release the arena's cached free blocks to the system; returns the bytes released. */
BF_EXPORT size_t bf_arena_trim(bf_arena *arena);

/** Snapshot of the statistics. */
BF_EXPORT void bf_arena_get_stats(const bf_arena *arena, bf_arena_stats *stats);

/** Print a usage table of every arena that was used to `out` (stdout when NULL).
 *  `message`, when not NULL, is printed as a heading. */
BF_EXPORT void bf_arena_print_usage(FILE *out, const char *message);

/* ---- Buffers ------------------------------------------------------------ */

/** A reference-counted block of memory.  Either owned (allocated from an
 *  arena, given back to it when the last reference goes) or external (memory
 *  of someone else; `release(ctx)` is called when the last reference goes).
 *  Views of mesh data (Array4, NumPy arrays, DLPack capsules) hold a buffer
 *  reference, so the memory outlives the MultiFab or Fab that made it. */
typedef struct bf_buffer bf_buffer;

/** Callback releasing external memory; called once, with `ctx`. */
typedef void (*bf_release_fn)(void *ctx);

/** New owned buffer of `nbytes` from `arena` (NULL = BF_ARENA_DEFAULT).
 *  nbytes == 0 gives a buffer with data() == NULL.  Contents uninitialized. */
BF_EXPORT int bf_buffer_create(bf_arena *arena, size_t nbytes, bf_buffer **buf);

/** New buffer wrapping external memory `data` of `nbytes`; `release` (may be
 *  NULL) is called with `ctx` when the last reference is dropped.  `arena`
 *  (may be NULL) only says what kind of memory it is. */
BF_EXPORT int bf_buffer_create_external(void *data, size_t nbytes, bf_arena *arena, bf_release_fn release,
                                        void *ctx, bf_buffer **buf);

/** Add a reference; returns buf. */
BF_EXPORT bf_buffer *bf_buffer_retain(bf_buffer *buf);
/** Drop a reference and set *buf to NULL (NULL allowed). */
BF_EXPORT void bf_buffer_destroy(bf_buffer **buf);
BF_EXPORT long bf_buffer_refcount(const bf_buffer *buf);

/** Start of the memory (NULL for an empty buffer). */
BF_EXPORT void *bf_buffer_data(const bf_buffer *buf);
/** Size in bytes. */
BF_EXPORT size_t bf_buffer_nbytes(const bf_buffer *buf);
/** Arena of the memory (NULL for external memory of unknown kind). */
BF_EXPORT bf_arena *bf_buffer_arena(const bf_buffer *buf);
/** True when the buffer owns its memory (allocated from an arena). */
BF_EXPORT bool bf_buffer_is_owned(const bf_buffer *buf);

#ifdef __cplusplus
}
#endif
#endif
