/* CPU backend: memory.  Every arena kind is host memory here. */
#include <stdlib.h>
#include <string.h>

#include "runtime/backend.h"
#include "pmesh.h"
#include "boxfab/arena.h"

static int cpu_alloc(int kind, size_t nbytes, void **ptr) {
  (void)kind;
  size_t n = (nbytes + BF_ARENA_ALIGNMENT - 1) / BF_ARENA_ALIGNMENT * BF_ARENA_ALIGNMENT;
  *ptr = aligned_alloc(BF_ARENA_ALIGNMENT, n ? n : BF_ARENA_ALIGNMENT);
  return *ptr ? 0 : 1;
}

static void cpu_free(int kind, void *ptr, size_t nbytes) {
  (void)kind, (void)nbytes;
  free(ptr);
}

static int cpu_copy(void *dst, const void *src, size_t nbytes) {
  if (nbytes) memmove(dst, src, nbytes);
  return 0;
}

/* Host memory: host-accessible; no device, so not device-accessible. */
static unsigned cpu_flags(int kind) {
  (void)kind;
  return BF_MEMFLAG_HOST;
}

int bf_cpu_elementwise(const bf_kargs *args, int64_t ntasks, const bf_ktask *tasks, int64_t ngroups,
                       const int64_t *group_start);
int bf_cpu_reduce(const bf_kargs *args, int64_t ntasks, const bf_ktask *tasks, bf_kresult *out);
int bf_cpu_exchange(const bf_xargs *args, const bf_xlist *list);
void bf_cpu_elementwise_init(void);

void bf_backend_cpu_fill(bf_backend *b) {
  b->name = "cpu";
  b->mem_alloc = cpu_alloc;
  b->mem_free = cpu_free;
  b->mem_copy = cpu_copy;
  b->mem_flags = cpu_flags;
  b->elementwise = bf_cpu_elementwise;
  b->reduce = bf_cpu_reduce;
  b->exchange = bf_cpu_exchange;
  b->pmesh_deposit = bf_cpu_pmesh_deposit;
  b->pmesh_interpolate = bf_cpu_pmesh_interpolate;
  bf_cpu_elementwise_init();
  bf_backend_cpu_particles_fill(&b->particles);
  bf_backend_cpu_amr_fill(&b->amr);
}

/* Registration (src/core/runtime/backend.h): the host backend, always usable. */
static int cpu_provider_fill(bf_backend *b) {
  bf_backend_cpu_fill(b);
  return 0;
}
const bf_backend_provider bf_backend_provider_cpu = {"cpu", false, cpu_provider_fill};
