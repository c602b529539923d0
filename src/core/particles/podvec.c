/* PODVectors: reference-counted growable vectors of plain elements whose
 * storage is a bf_buffer from an arena (see include/boxfab/particles.h).
 *
 * A reallocation moves the elements to a new buffer and drops the vector's
 * reference to the old one: a view that retained the old buffer keeps it.
 * Memory the host cannot touch directly (device, managed, async, and pinned
 * memory with GPU work pending) is read, written and filled only through the
 * backend's mem_copy of its arena. */
#include <stdlib.h>
#include <string.h>

#include "runtime/backend.h"
#include "boxfab/gpu.h"
#include "boxfab/particles.h"
#include "base/object.h"
#include "particles/podvec_impl.h"

struct bf_podvec {
  bf_object obj;
  int kind;
  size_t esz;
  int64_t size, cap;
  bf_arena *arena;
  bf_buffer *buf; /* NULL while cap == 0 */
};

static void podvec_free(bf_object *o) {
  bf_podvec *v = (bf_podvec *)o;
  bf_buffer_destroy(&v->buf);
  free(v);
}

/* True when the host may use memcpy/memset on memory of `a` (its table is the plain CPU one). */
static bool direct(const bf_arena *a) { return bf_backend_for_arena(a) == bf_backend_get(); }

int bf_pod_copy(bf_arena *dst_arena, void *dst, const bf_arena *src_arena, const void *src, size_t nbytes) {
  if (nbytes == 0) return BF_SUCCESS;
  bool dd = direct(dst_arena), sd = direct(src_arena);
  if (dd && sd) {
    memmove(dst, src, nbytes);
    return BF_SUCCESS;
  }
  /* device memory on either side: the device backend's copy (any direction); only between
   * host-accessible memories may a table with a host copy (pinned: wait, then memcpy) do it */
  const bf_arena *by = !bf_arena_is_host_accessible(src_arena)   ? src_arena
                       : !bf_arena_is_host_accessible(dst_arena) ? dst_arena
                       : dd                                      ? src_arena
                                                                 : dst_arena;
  return bf_backend_for_arena(by)->mem_copy(dst, src, nbytes);
}

/* Host <-> vector memory. */
static int to_mem(const bf_arena *a, void *dst, const void *src, size_t nbytes) {
  if (nbytes == 0) return BF_SUCCESS;
  if (direct(a)) {
    memmove(dst, src, nbytes);
    return BF_SUCCESS;
  }
  return bf_backend_for_arena(a)->mem_copy(dst, src, nbytes);
}

/* Set n elements of esz bytes at dst to *value (NULL: zero). */
int bf_pod_fill(bf_arena *a, void *dst, size_t esz, int64_t n, const void *value) {
  if (n <= 0) return BF_SUCCESS;
  size_t nbytes = (size_t)n * esz;
  if (direct(a)) {
    if (!value) {
      memset(dst, 0, nbytes);
    } else {
      char *p = dst;
      for (int64_t i = 0; i < n; ++i) memcpy(p + (size_t)i * esz, value, esz);
    }
    return BF_SUCCESS;
  }
  const bf_backend *be = bf_backend_for_arena(a);
  if (be->particles.p_copy && !bf_arena_is_host_accessible(a) && (esz == 4 || esz % 8 == 0) && esz <= 4096) {
    /* the device fills (one kernel) */
    char zero[4096];
    if (!value) memset(zero, 0, esz);
    bf_pcopy op;
    memset(&op, 0, sizeof op);
    op.dst = dst, op.value = value ? value : zero, op.elem = esz, op.n = n;
    return be->particles.p_copy(1, &op);
  }
  /* a host pattern of whole elements, copied chunk by chunk */
  size_t per = (size_t)1 << 16;
  size_t chunk_elems = per / esz ? per / esz : 1;
  if ((size_t)n < chunk_elems) chunk_elems = (size_t)n;
  char *tmp = calloc(chunk_elems, esz);
  BF_CHECK(tmp != NULL, BF_ERROR_MEMORY, "out of memory for a fill pattern");
  if (value)
    for (size_t i = 0; i < chunk_elems; ++i) memcpy(tmp + i * esz, value, esz);
  int err = BF_SUCCESS;
  for (size_t done = 0; done < nbytes && !err;) {
    size_t m = nbytes - done < chunk_elems * esz ? nbytes - done : chunk_elems * esz;
    err = be->mem_copy((char *)dst + done, tmp, m);
    done += m;
  }
  free(tmp);
  return err;
}

static size_t kind_size(int kind) {
  switch (kind) {
  case BF_POD_REAL: return sizeof(double);
  case BF_POD_INT: return sizeof(int32_t);
  case BF_POD_UINT64: return sizeof(uint64_t);
  default: return 0;
  }
}

int bf_podvec_create(bf_arena *arena, int kind, size_t elem_size, int64_t n, bf_podvec **out) {
  BF_CHECK(out != NULL, BF_ERROR_VALUE, "NULL result pointer");
  BF_CHECK(kind >= BF_POD_REAL && kind <= BF_POD_STRUCT, BF_ERROR_VALUE, "unknown PODVector kind %d", kind);
  size_t esz = kind == BF_POD_STRUCT ? elem_size : kind_size(kind);
  BF_CHECK(esz > 0 && (kind != BF_POD_STRUCT || esz % 8 == 0), BF_ERROR_VALUE,
           "element size %zu of a struct PODVector must be a positive multiple of 8", elem_size);
  BF_CHECK(n >= 0, BF_ERROR_VALUE, "negative PODVector size %lld", (long long)n);
  if (!arena) arena = bf_arena_get(BF_ARENA_DEFAULT);
  bf_podvec *v = calloc(1, sizeof *v);
  BF_CHECK(v != NULL, BF_ERROR_MEMORY, "out of memory for a PODVector");
  bf_object_init(&v->obj, podvec_free);
  v->kind = kind;
  v->esz = esz;
  v->arena = arena;
  int err = bf_podvec_resize(v, n);
  if (err) {
    free(v);
    return err;
  }
  *out = v;
  return BF_SUCCESS;
}

int bf_podvec_clone(const bf_podvec *src, bf_arena *arena, bf_podvec **out) {
  BF_CHECK(src != NULL && out != NULL, BF_ERROR_VALUE, "NULL PODVector");
  bf_podvec *v = NULL;
  BF_CALL(bf_podvec_create(arena ? arena : src->arena, src->kind, src->esz, 0, &v));
  int err = bf_podvec_reserve(v, src->size);
  if (!err && src->size > 0)
    err = bf_pod_copy(v->arena, bf_buffer_data(v->buf), src->arena, bf_buffer_data(src->buf),
                      (size_t)src->size * src->esz);
  if (err) {
    bf_podvec_destroy(&v);
    return err;
  }
  v->size = src->size;
  *out = v;
  return BF_SUCCESS;
}

bf_podvec *bf_podvec_retain(bf_podvec *v) {
  bf_object_retain(&v->obj);
  return v;
}

void bf_podvec_destroy(bf_podvec **v) {
  if (!v || !*v) return;
  bf_object_release(&(*v)->obj);
  *v = NULL;
}

int bf_podvec_kind(const bf_podvec *v) { return v->kind; }
size_t bf_podvec_elem_size(const bf_podvec *v) { return v->esz; }
int64_t bf_podvec_size(const bf_podvec *v) { return v->size; }
int64_t bf_podvec_capacity(const bf_podvec *v) { return v->cap; }
bf_arena *bf_podvec_arena(const bf_podvec *v) { return v->arena; }
void *bf_podvec_data(const bf_podvec *v) { return v->buf ? bf_buffer_data(v->buf) : NULL; }
bf_buffer *bf_podvec_buffer(const bf_podvec *v) { return v->buf; }

/* Move to a new buffer of exactly `cap` elements (cap >= size). */
static int realloc_to(bf_podvec *v, int64_t cap) {
  BF_CHECK(cap >= 0 && (uint64_t)cap <= (uint64_t)INT64_MAX / v->esz, BF_ERROR_OVERFLOW,
           "a PODVector of %lld elements of %zu bytes does not fit in memory", (long long)cap, v->esz);
  bf_buffer *nb = NULL;
  if (cap > 0) {
    BF_CALL(bf_buffer_create(v->arena, (size_t)cap * v->esz, &nb));
    int err = v->size > 0 ? bf_pod_copy(v->arena, bf_buffer_data(nb), v->arena, bf_buffer_data(v->buf),
                                        (size_t)v->size * v->esz)
                          : BF_SUCCESS;
    if (err) {
      bf_buffer_destroy(&nb);
      return err;
    }
  }
  bf_buffer_destroy(&v->buf);
  v->buf = nb;
  v->cap = cap;
  return BF_SUCCESS;
}

int bf_podvec_reserve(bf_podvec *v, int64_t n) {
  BF_CHECK(v != NULL, BF_ERROR_VALUE, "NULL PODVector");
  BF_CHECK(n >= 0, BF_ERROR_VALUE, "negative PODVector capacity %lld", (long long)n);
  if (n <= v->cap) return BF_SUCCESS;
  return realloc_to(v, n);
}

/* Capacity for n elements: grow by 1.5x at least (AMReX's default growth). */
static int grow_for(bf_podvec *v, int64_t n) {
  if (n <= v->cap) return BF_SUCCESS;
  int64_t want = v->cap + v->cap / 2;
  if (want < n || want < v->cap) want = n;
  if ((uint64_t)want > (uint64_t)INT64_MAX / v->esz) want = n;
  return realloc_to(v, want);
}

int bf_podvec_resize_fill(bf_podvec *v, int64_t n, const void *value) {
  BF_CHECK(v != NULL, BF_ERROR_VALUE, "NULL PODVector");
  BF_CHECK(n >= 0, BF_ERROR_VALUE, "negative PODVector size %lld", (long long)n);
  BF_CALL(grow_for(v, n));
  if (n > v->size)
    BF_CALL(bf_pod_fill(v->arena, (char *)bf_buffer_data(v->buf) + (size_t)v->size * v->esz, v->esz, n - v->size,
                        value));
  v->size = n;
  return BF_SUCCESS;
}

int bf_podvec_resize(bf_podvec *v, int64_t n) { return bf_podvec_resize_fill(v, n, NULL); }

int bf_podvec_shrink_to_fit(bf_podvec *v) {
  BF_CHECK(v != NULL, BF_ERROR_VALUE, "NULL PODVector");
  if (v->cap == v->size) return BF_SUCCESS;
  return realloc_to(v, v->size);
}

int bf_podvec_push_back(bf_podvec *v, const void *value) {
  BF_CHECK(v != NULL && value != NULL, BF_ERROR_VALUE, "NULL PODVector or value");
  BF_CHECK(v->size < INT64_MAX, BF_ERROR_OVERFLOW, "PODVector full");
  BF_CALL(grow_for(v, v->size + 1));
  BF_CALL(to_mem(v->arena, (char *)bf_buffer_data(v->buf) + (size_t)v->size * v->esz, value, v->esz));
  v->size += 1;
  return BF_SUCCESS;
}

int bf_podvec_pop_back(bf_podvec *v) {
  BF_CHECK(v != NULL, BF_ERROR_VALUE, "NULL PODVector");
  BF_CHECK(v->size > 0, BF_ERROR_INDEX, "pop_back from an empty PODVector");
  v->size -= 1;
  return BF_SUCCESS;
}

int bf_podvec_assign(bf_podvec *v, const void *value) {
  BF_CHECK(v != NULL && value != NULL, BF_ERROR_VALUE, "NULL PODVector or value");
  if (v->size == 0) return BF_SUCCESS;
  return bf_pod_fill(v->arena, bf_buffer_data(v->buf), v->esz, v->size, value);
}

static int check_range(const bf_podvec *v, int64_t i, int64_t n, const char *func) {
  if (!v) return bf_error_set(BF_ERROR_VALUE, func, "NULL PODVector");
  if (n < 0) return bf_error_set(BF_ERROR_VALUE, func, "negative count %lld", (long long)n);
  if (i < 0 || i > v->size || n > v->size - i)
    return bf_error_set(BF_ERROR_INDEX, func, "elements [%lld, %lld) outside a PODVector of size %lld",
                        (long long)i, (long long)i + (long long)n, (long long)v->size);
  return BF_SUCCESS;
}

int bf_podvec_get(const bf_podvec *v, int64_t i, void *value) {
  BF_CHECK(value != NULL, BF_ERROR_VALUE, "NULL value");
  if (v && (i < 0 || i >= v->size))
    BF_ERROR(BF_ERROR_INDEX, "index %lld outside a PODVector of size %lld", (long long)i, (long long)v->size);
  return bf_podvec_read(v, i, 1, value);
}

int bf_podvec_set(bf_podvec *v, int64_t i, const void *value) {
  BF_CHECK(value != NULL, BF_ERROR_VALUE, "NULL value");
  if (v && (i < 0 || i >= v->size))
    BF_ERROR(BF_ERROR_INDEX, "index %lld outside a PODVector of size %lld", (long long)i, (long long)v->size);
  return bf_podvec_write(v, i, 1, value);
}

int bf_podvec_write(bf_podvec *v, int64_t i, int64_t n, const void *src) {
  BF_CALL(check_range(v, i, n, __func__));
  if (n == 0) return BF_SUCCESS;
  BF_CHECK(src != NULL, BF_ERROR_VALUE, "NULL source");
  return to_mem(v->arena, (char *)bf_buffer_data(v->buf) + (size_t)i * v->esz, src, (size_t)n * v->esz);
}

int bf_podvec_read(const bf_podvec *v, int64_t i, int64_t n, void *dst) {
  BF_CALL(check_range(v, i, n, __func__));
  if (n == 0) return BF_SUCCESS;
  BF_CHECK(dst != NULL, BF_ERROR_VALUE, "NULL destination");
  return to_mem(v->arena, dst, (char *)bf_buffer_data(v->buf) + (size_t)i * v->esz, (size_t)n * v->esz);
}

int bf_podvec_write_device(bf_podvec *v, int64_t i, int64_t n, const void *src) {
  BF_CALL(check_range(v, i, n, __func__));
  if (n == 0) return BF_SUCCESS;
  BF_CHECK(src != NULL, BF_ERROR_VALUE, "NULL source");
  return bf_gpu_memcpy((char *)bf_buffer_data(v->buf) + (size_t)i * v->esz, src, (size_t)n * v->esz);
}

int bf_podvec_copy(bf_podvec *dst, int64_t i, const bf_podvec *src, int64_t j, int64_t n) {
  BF_CHECK(src != NULL, BF_ERROR_VALUE, "NULL source PODVector");
  BF_CALL(check_range(dst, i, n, __func__));
  BF_CALL(check_range(src, j, n, __func__));
  BF_CHECK(dst->kind == src->kind && dst->esz == src->esz, BF_ERROR_TYPE,
           "PODVectors of different element types (%d, %zu bytes and %d, %zu bytes)", dst->kind, dst->esz, src->kind,
           src->esz);
  if (n == 0 || (dst == src && i == j)) return BF_SUCCESS;
  const size_t esz = dst->esz, nbytes = (size_t)n * esz;
  if (dst == src && (i < j + n && j < i + n) && !direct(dst->arena)) {
    /* overlapping ranges of one vector in device memory: the device copy is not a memmove */
    bf_podvec *tmp = NULL;
    BF_CALL(bf_podvec_create(dst->arena, dst->kind, esz, 0, &tmp));
    int err = bf_podvec_resize_uninit(tmp, n);
    if (!err) err = bf_pod_copy(tmp->arena, bf_buffer_data(tmp->buf), src->arena,
                                (const char *)bf_buffer_data(src->buf) + (size_t)j * esz, nbytes);
    if (!err) err = bf_pod_copy(dst->arena, (char *)bf_buffer_data(dst->buf) + (size_t)i * esz, tmp->arena,
                                bf_buffer_data(tmp->buf), nbytes);
    bf_podvec_destroy(&tmp);
    return err;
  }
  return bf_pod_copy(dst->arena, (char *)bf_buffer_data(dst->buf) + (size_t)i * esz, src->arena,
                     (const char *)bf_buffer_data(src->buf) + (size_t)j * esz, nbytes);
}

int bf_podvec_resize_uninit(bf_podvec *v, int64_t n) {
  BF_CHECK(v != NULL, BF_ERROR_VALUE, "NULL PODVector");
  BF_CHECK(n >= 0, BF_ERROR_VALUE, "negative size %lld", (long long)n);
  BF_CALL(bf_podvec_reserve(v, n));
  v->size = n;
  return BF_SUCCESS;
}

/* Private (podvec_impl.h): exchange the storage of two vectors of the same kind and element size. */
void bf_podvec_swap_storage(bf_podvec *a, bf_podvec *b) {
  bf_podvec t = *a;
  a->size = b->size;
  a->cap = b->cap;
  a->buf = b->buf;
  a->arena = b->arena;
  b->size = t.size;
  b->cap = t.cap;
  b->buf = t.buf;
  b->arena = t.arena;
}

/* Private: set the size without touching memory (n <= capacity). */
void bf_podvec_set_size_raw(bf_podvec *v, int64_t n) { v->size = n; }

/* Private: take buf (at least cap * esz bytes, the caller's reference) as the storage of an empty vector. */
void bf_podvec_adopt(bf_podvec *v, bf_buffer *buf, int64_t cap) {
  bf_buffer_destroy(&v->buf);
  v->buf = buf;
  v->cap = cap;
  v->size = 0;
}
