/* The backend tables, one per kind of memory (see backend.h), filled once on
 * first use from the registered backends: the host table always; the device
 * table when a device backend of this build finds a device and BOXFAB_DEVICE
 * is not "cpu". */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/backend.h"
#include "boxfab/arena.h"
#include "boxfab/base.h"
#include "boxfab_config.h"

/* The registered backends (backend.h): the descriptors named by CMake's
 * generated list, host backend first.  This is the only place where the
 * core names a backend. */
#define BF_DECLARE_PROVIDER(name) extern const bf_backend_provider bf_backend_provider_##name;
BOXFAB_BACKEND_LIST(BF_DECLARE_PROVIDER)
#undef BF_DECLARE_PROVIDER
#define BF_PROVIDER_ADDRESS(name) &bf_backend_provider_##name,
static const bf_backend_provider *const providers[] = {BOXFAB_BACKEND_LIST(BF_PROVIDER_ADDRESS)};
#undef BF_PROVIDER_ADDRESS
enum { NPROVIDERS = (int)(sizeof providers / sizeof providers[0]) };

static bf_backend cpu_be;    /* host memory, host kernels */
static bf_backend dev_be;    /* device / managed / async memory, device kernels */
static bf_backend pinned_be; /* pinned memory from the device backend, host kernels */
static bool have_gpu;
static pthread_once_t backend_once = PTHREAD_ONCE_INIT;

/* Host kernels on pinned memory: first let pending device work on it finish. */
static int pinned_elementwise(const bf_kargs *args, int64_t ntasks, const bf_ktask *tasks, int64_t ngroups,
                              const int64_t *group_start) {
  (void)dev_be.synchronize();
  return cpu_be.elementwise(args, ntasks, tasks, ngroups, group_start);
}
static int pinned_reduce(const bf_kargs *args, int64_t ntasks, const bf_ktask *tasks, bf_kresult *out) {
  (void)dev_be.synchronize();
  return cpu_be.reduce(args, ntasks, tasks, out);
}
static int pinned_exchange(const bf_xargs *args, const struct bf_xlist *list) {
  (void)dev_be.synchronize();
  return cpu_be.exchange(args, list);
}
static int pinned_copy(void *dst, const void *src, size_t nbytes) {
  (void)dev_be.synchronize();
  return cpu_be.mem_copy(dst, src, nbytes);
}

/* The device glue of table `from` into `to`. */
static void copy_glue(bf_backend *to, const bf_backend *from) {
  to->device_api = from->device_api;
  to->device_count = from->device_count;
  to->device_id = from->device_id;
  to->stream = from->stream;
  to->synchronize = from->synchronize;
  to->copy_sync = from->copy_sync;
  to->memory_info = from->memory_info;
  to->alloc_count = from->alloc_count;
  to->stream_idle = from->stream_idle;
  to->stream_wait = from->stream_wait;
  to->wait_stream = from->wait_stream;
  to->pointer_info = from->pointer_info;
  to->has_free = from->has_free;
}

static void backend_init(void) {
  /* the host backend: first in the list, always usable */
  (void)providers[0]->fill(&cpu_be);
  pinned_be = cpu_be;
  const char *dev = getenv("BOXFAB_DEVICE");
  bool forced_cpu = dev && (strcmp(dev, "cpu") == 0 || strcmp(dev, "CPU") == 0);
  bool named = false; /* BOXFAB_DEVICE names a device backend of this build: only that one */
  for (int i = 1; dev && i < NPROVIDERS; ++i)
    if (providers[i]->device && strcmp(dev, providers[i]->name) == 0) named = true;
  for (int i = 1; !forced_cpu && !have_gpu && i < NPROVIDERS; ++i) {
    if (!providers[i]->device || (named && strcmp(dev, providers[i]->name) != 0)) continue;
    bf_backend b;
    memset(&b, 0, sizeof b);
    if (providers[i]->fill(&b) != 0 || !b.synchronize) continue;
    dev_be = b;
    have_gpu = true;
    pinned_be.name = "cpu (pinned)";
    pinned_be.mem_alloc = dev_be.mem_alloc;
    pinned_be.mem_free = dev_be.mem_free;
    pinned_be.mem_flags = dev_be.mem_flags;
    pinned_be.mem_copy = pinned_copy;
    pinned_be.elementwise = pinned_elementwise;
    pinned_be.reduce = pinned_reduce;
    pinned_be.exchange = pinned_exchange;
    copy_glue(&pinned_be, &dev_be);
  }
}

const bf_backend *bf_backend_get(void) {
  pthread_once(&backend_once, backend_init);
  return &cpu_be;
}

bool bf_backend_have_gpu(void) {
  pthread_once(&backend_once, backend_init);
  return have_gpu;
}

const bf_backend *bf_backend_device(void) {
  pthread_once(&backend_once, backend_init);
  return have_gpu ? &dev_be : NULL;
}

int bf_backend_host_sync(const bf_backend *be) {
  if (be != &pinned_be || !have_gpu) return BF_SUCCESS;
  return dev_be.synchronize();
}

const bf_backend *bf_backend_for_kind(int kind) {
  pthread_once(&backend_once, backend_init);
  if (!have_gpu) return &cpu_be;
  switch (kind) {
  case BF_ARENA_DEFAULT:
  case BF_ARENA_DEVICE:
  case BF_ARENA_MANAGED:
  case BF_ARENA_ASYNC: return &dev_be;
  case BF_ARENA_PINNED: return &pinned_be;
  default: return &cpu_be;
  }
}

bool bf_backend_device_has_free(size_t nbytes) {
  const bf_backend *d = bf_backend_device();
  return d && d->has_free ? d->has_free(nbytes) : true;
}
