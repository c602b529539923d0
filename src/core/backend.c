/* The backend tables, one per kind of memory (see backend.h), filled once on
 * first use: the CPU table always; the CUDA table when this is a CUDA build,
 * a device is present and BOXFAB_DEVICE is not "cpu". */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "boxfab/arena.h"
#include "boxfab/base.h"
#include "boxfab_config.h"

static bf_backend cpu_be;    /* host memory, host kernels */
static bf_backend cuda_be;   /* device / managed / async memory, CUDA kernels */
static bf_backend pinned_be; /* pinned memory from CUDA, host kernels */
static bool have_gpu;
static pthread_once_t backend_once = PTHREAD_ONCE_INIT;

#if BOXFAB_HAVE_CUDA
/* Host kernels on pinned memory: first let pending GPU work on it finish. */
static int pinned_elementwise(const bf_kargs *args, int64_t ntasks, const bf_ktask *tasks, int64_t ngroups,
                              const int64_t *group_start) {
  (void)bf_cuda_synchronize();
  return cpu_be.elementwise(args, ntasks, tasks, ngroups, group_start);
}
static int pinned_reduce(const bf_kargs *args, int64_t ntasks, const bf_ktask *tasks, bf_kresult *out) {
  (void)bf_cuda_synchronize();
  return cpu_be.reduce(args, ntasks, tasks, out);
}
static int pinned_exchange(const bf_xargs *args, const struct bf_xlist *list) {
  (void)bf_cuda_synchronize();
  return cpu_be.exchange(args, list);
}
static int pinned_copy(void *dst, const void *src, size_t nbytes) {
  (void)bf_cuda_synchronize();
  return cpu_be.mem_copy(dst, src, nbytes);
}
#endif

static void backend_init(void) {
  bf_backend_cpu_fill(&cpu_be);
  pinned_be = cpu_be;
#if BOXFAB_HAVE_CUDA
  const char *dev = getenv("BOXFAB_DEVICE");
  bool forced_cpu = dev && (strcmp(dev, "cpu") == 0 || strcmp(dev, "CPU") == 0);
  if (!forced_cpu && bf_backend_cuda_fill(&cuda_be) == 0) {
    have_gpu = true;
    pinned_be.name = "cpu (pinned)";
    pinned_be.mem_alloc = cuda_be.mem_alloc;
    pinned_be.mem_free = cuda_be.mem_free;
    pinned_be.mem_flags = cuda_be.mem_flags;
    pinned_be.mem_copy = pinned_copy;
    pinned_be.elementwise = pinned_elementwise;
    pinned_be.reduce = pinned_reduce;
    pinned_be.exchange = pinned_exchange;
  }
#endif
}

const bf_backend *bf_backend_get(void) {
  pthread_once(&backend_once, backend_init);
  return &cpu_be;
}

bool bf_backend_have_gpu(void) {
  pthread_once(&backend_once, backend_init);
  return have_gpu;
}

const bf_backend *bf_backend_for_kind(int kind) {
  pthread_once(&backend_once, backend_init);
  if (!have_gpu) return &cpu_be;
  switch (kind) {
  case BF_ARENA_DEFAULT:
  case BF_ARENA_DEVICE:
  case BF_ARENA_MANAGED:
  case BF_ARENA_ASYNC: return &cuda_be;
  case BF_ARENA_PINNED: return &pinned_be;
  default: return &cpu_be;
  }
}

const bf_backend *bf_backend_for_arena(const struct bf_arena *arena) {
  return bf_backend_for_kind(arena ? bf_arena_kind_of(arena) : BF_ARENA_DEFAULT);
}

static unsigned arena_flags(const struct bf_arena *a) {
  int kind = a ? bf_arena_kind_of(a) : BF_ARENA_DEFAULT;
  return bf_backend_for_kind(kind)->mem_flags(kind);
}

/* Can the kernels of `be` reach memory of every arena? */
static bool reaches_all(const bf_backend *be, int n, const struct bf_arena *const *arenas) {
  unsigned need = be == &cuda_be ? BF_MEMFLAG_DEVICE_ACCESSIBLE : BF_MEMFLAG_HOST;
  for (int i = 0; i < n; ++i)
    if (arenas[i] && !(arena_flags(arenas[i]) & need)) return false;
  return true;
}

const bf_backend *bf_backend_for_arenas(int n, const struct bf_arena *const *arenas, const char *what) {
  const bf_backend *first = bf_backend_for_arena(n > 0 ? arenas[0] : NULL);
  if (!have_gpu) return first;
  const bf_backend *cand[3] = {first, &cuda_be, &cpu_be};
  for (int c = 0; c < 3; ++c)
    if (reaches_all(cand[c], n, arenas)) return cand[c];
  bf_error_set(BF_ERROR_VALUE, what,
               "%s: the data lie in host-only and device-only memory (copy them into one kind of memory first, "
               "e.g. with a MultiFab in The_Pinned_Arena or The_Managed_Arena)",
               what);
  return NULL;
}

#if !BOXFAB_HAVE_CUDA
bool bf_backend_device_has_free(size_t nbytes) {
  (void)nbytes;
  return true;
}
#endif
