/* Arenas: process-wide pooled allocators (see include/boxfab/arena.h). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/backend.h"
#include "boxfab/arena.h"

/* Requests above this are refused without asking the system. */
#define BF_ARENA_MAX_BYTES ((size_t)1 << 48)

typedef struct free_block {
  void *ptr;
  size_t size;
  struct free_block *next;
} free_block;

typedef struct size_bin {
  size_t size;
  free_block *head;
} size_bin;

struct bf_arena {
  int kind;
  const char *name;
  pthread_mutex_t lock;
  size_bin *bins; /* sorted by size */
  int nbins, capbins;
  bf_arena_stats st;
};

#define ARENA_INIT(k, n) {.kind = (k), .name = (n), .lock = PTHREAD_MUTEX_INITIALIZER}

static bf_arena bf_arenas[BF_ARENA_NKINDS] = {
    ARENA_INIT(BF_ARENA_DEFAULT, "The_Arena"),        ARENA_INIT(BF_ARENA_CPU, "The_Cpu_Arena"),
    ARENA_INIT(BF_ARENA_PINNED, "The_Pinned_Arena"),  ARENA_INIT(BF_ARENA_MANAGED, "The_Managed_Arena"),
    ARENA_INIT(BF_ARENA_DEVICE, "The_Device_Arena"),  ARENA_INIT(BF_ARENA_ASYNC, "The_Async_Arena"),
};

bf_arena *bf_arena_get(int kind) {
  if (kind < 0 || kind >= BF_ARENA_NKINDS) return NULL;
  return &bf_arenas[kind];
}

int bf_arena_kind_of(const bf_arena *a) { return a->kind; }
const char *bf_arena_name(const bf_arena *a) { return a->name; }

static unsigned flags(const bf_arena *a) { return bf_backend_for_kind(a->kind)->mem_flags(a->kind); }

/* Which backend's table serves an arena's memory (runtime/backend.h). */
const bf_backend *bf_backend_for_arena(const bf_arena *a) {
  return bf_backend_for_kind(a ? a->kind : BF_ARENA_DEFAULT);
}

/* Can the kernels of `be` reach the memory of every arena (NULL ones skipped)? */
static bool reaches_all(const bf_backend *be, int n, const bf_arena *const *arenas) {
  unsigned need = be == bf_backend_device() ? BF_MEMFLAG_DEVICE_ACCESSIBLE : BF_MEMFLAG_HOST;
  for (int i = 0; i < n; ++i)
    if (arenas[i] && !(flags(arenas[i]) & need)) return false;
  return true;
}

const bf_backend *bf_backend_for_arenas(int n, const bf_arena *const *arenas, const char *what) {
  const bf_backend *first = bf_backend_for_arena(n > 0 ? arenas[0] : NULL);
  const bf_backend *dev = bf_backend_device();
  if (!dev) return first;
  const bf_backend *cand[3] = {first, dev, bf_backend_get()};
  for (int c = 0; c < 3; ++c)
    if (reaches_all(cand[c], n, arenas)) return cand[c];
  bf_error_set(BF_ERROR_VALUE, what,
               "%s: the data lie in host-only and device-only memory (copy them into one kind of memory first, "
               "e.g. with a MultiFab in The_Pinned_Arena or The_Managed_Arena)",
               what);
  return NULL;
}
bool bf_arena_is_device_accessible(const bf_arena *a) { return flags(a) & BF_MEMFLAG_DEVICE_ACCESSIBLE; }
bool bf_arena_is_host_accessible(const bf_arena *a) { return flags(a) & BF_MEMFLAG_HOST; }
bool bf_arena_is_managed(const bf_arena *a) { return flags(a) & BF_MEMFLAG_MANAGED; }
bool bf_arena_is_device(const bf_arena *a) { return flags(a) & BF_MEMFLAG_DEVICE; }
bool bf_arena_is_pinned(const bf_arena *a) { return flags(a) & BF_MEMFLAG_PINNED; }
bool bf_arena_is_stream_ordered(const bf_arena *a) { return flags(a) & BF_MEMFLAG_STREAM_ORDERED; }
bool bf_arena_has_free_device_memory(const bf_arena *a, size_t nbytes) {
  (void)a;
  return bf_backend_device_has_free(nbytes); /* always true without a GPU */
}

size_t bf_arena_class_size(size_t n) {
  if (n <= BF_ARENA_ALIGNMENT) return BF_ARENA_ALIGNMENT;
  /* 2^p < n <= 2^(p+1): four classes in that octave (steps of 2^(p-2), at least 64). */
  int p = 63 - __builtin_clzll((unsigned long long)(n - 1));
  size_t step = p >= 8 ? (size_t)1 << (p - 2) : BF_ARENA_ALIGNMENT;
  if (n > SIZE_MAX - step) return n; /* absurd sizes: let the system refuse */
  return (n + step - 1) / step * step;
}

/* Index of the bin of `size`, or where it would go (*found says). */
static int bin_find(const bf_arena *a, size_t size, bool *found) {
  int lo = 0, hi = a->nbins;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (a->bins[mid].size < size) lo = mid + 1;
    else hi = mid;
  }
  *found = lo < a->nbins && a->bins[lo].size == size;
  return lo;
}

int bf_arena_alloc(bf_arena *a, size_t nbytes, void **ptr) {
  BF_CHECK(a != NULL && ptr != NULL, BF_ERROR_VALUE, "NULL arena or result pointer");
  BF_CHECK(nbytes > 0, BF_ERROR_VALUE, "cannot allocate 0 bytes from %s", a->name);
  BF_CHECK(nbytes <= BF_ARENA_MAX_BYTES, BF_ERROR_MEMORY, "%s cannot allocate %zu bytes (more than 2^48)", a->name,
           nbytes);
  size_t cs = bf_arena_class_size(nbytes);
  void *p = NULL;
  pthread_mutex_lock(&a->lock);
  bool found;
  int b = bin_find(a, cs, &found);
  if (found && a->bins[b].head) {
    free_block *fb = a->bins[b].head;
    a->bins[b].head = fb->next;
    p = fb->ptr;
    free(fb);
    a->st.bytes_cached -= cs;
    a->st.n_reused++;
  }
  pthread_mutex_unlock(&a->lock);
  if (!p) {
    int err = bf_backend_for_kind(a->kind)->mem_alloc(a->kind, cs, &p);
    if (err || !p) {
      /* retry once after giving the cached blocks back */
      bf_arena_trim(a);
      err = bf_backend_for_kind(a->kind)->mem_alloc(a->kind, cs, &p);
    }
    BF_CHECK(!err && p, BF_ERROR_MEMORY, "%s could not allocate %zu bytes", a->name, nbytes);
    pthread_mutex_lock(&a->lock);
    a->st.n_system_alloc++;
    pthread_mutex_unlock(&a->lock);
  }
  pthread_mutex_lock(&a->lock);
  a->st.bytes_in_use += nbytes;
  a->st.bytes_reserved += cs;
  if (a->st.bytes_reserved > a->st.high_water) a->st.high_water = a->st.bytes_reserved;
  a->st.n_live++;
  a->st.n_alloc++;
  pthread_mutex_unlock(&a->lock);
  *ptr = p;
  return BF_SUCCESS;
}

void bf_arena_free(bf_arena *a, void *ptr, size_t nbytes) {
  if (!a || !ptr) return;
  size_t cs = bf_arena_class_size(nbytes);
  free_block *fb = malloc(sizeof *fb);
  pthread_mutex_lock(&a->lock);
  a->st.bytes_in_use -= nbytes;
  a->st.bytes_reserved -= cs;
  a->st.n_live--;
  bool found;
  int b = bin_find(a, cs, &found);
  if (!found && fb && a->nbins == a->capbins) {
    int nc = a->capbins ? 2 * a->capbins : 16;
    size_bin *nb = realloc(a->bins, (size_t)nc * sizeof *nb);
    if (nb) a->bins = nb, a->capbins = nc;
  }
  if (fb && (found || a->nbins < a->capbins)) {
    if (!found) {
      memmove(&a->bins[b + 1], &a->bins[b], (size_t)(a->nbins - b) * sizeof *a->bins);
      a->bins[b].size = cs;
      a->bins[b].head = NULL;
      a->nbins++;
    }
    fb->ptr = ptr;
    fb->next = a->bins[b].head;
    a->bins[b].head = fb;
    a->st.bytes_cached += cs;
    fb = NULL;
    ptr = NULL;
  }
  pthread_mutex_unlock(&a->lock);
  if (ptr) bf_backend_for_kind(a->kind)->mem_free(a->kind, ptr, cs); /* could not cache it */
  free(fb);
}

size_t bf_arena_trim(bf_arena *a) {
  if (!a) return 0;
  free_block *list = NULL;
  size_t released = 0;
  pthread_mutex_lock(&a->lock);
  for (int b = 0; b < a->nbins; ++b) {
    for (free_block *fb = a->bins[b].head, *next; fb; fb = next) {
      next = fb->next;
      fb->size = a->bins[b].size;
      fb->next = list;
      list = fb;
      released += fb->size;
    }
    a->bins[b].head = NULL;
  }
  a->st.bytes_cached -= released;
  pthread_mutex_unlock(&a->lock);
  for (free_block *fb = list, *next; fb; fb = next) {
    next = fb->next;
    bf_backend_for_kind(a->kind)->mem_free(a->kind, fb->ptr, fb->size);
    free(fb);
  }
  return released;
}

void bf_arena_get_stats(const bf_arena *a, bf_arena_stats *st) {
  pthread_mutex_lock((pthread_mutex_t *)&a->lock);
  *st = a->st;
  pthread_mutex_unlock((pthread_mutex_t *)&a->lock);
}

static void print_bytes(FILE *out, size_t n) {
  const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = (double)n;
  int u = 0;
  while (v >= 1024.0 && u < 4) v /= 1024.0, ++u;
  fprintf(out, " %10.3f %-3s", v, unit[u]);
}

void bf_arena_print_usage(FILE *out, const char *message) {
  if (!out) out = stdout;
  if (message && message[0]) fprintf(out, "%s\n", message);
  fprintf(out, "%-18s %14s %14s %14s %14s %10s %10s\n", "arena", "in use", "reserved", "cached", "high water",
          "live", "allocs");
  for (int k = 0; k < BF_ARENA_NKINDS; ++k) {
    bf_arena_stats st;
    bf_arena_get_stats(&bf_arenas[k], &st);
    if (st.n_alloc == 0 && st.bytes_cached == 0) continue;
    fprintf(out, "%-18s", bf_arenas[k].name);
    print_bytes(out, st.bytes_in_use);
    print_bytes(out, st.bytes_reserved);
    print_bytes(out, st.bytes_cached);
    print_bytes(out, st.high_water);
    fprintf(out, " %10lld %10lld\n", (long long)st.n_live, (long long)st.n_alloc);
  }
}
