/* bf_vector: one growable array for every element kind (see include/boxfab/vector.h). */
#include <stdlib.h>
#include <string.h>

#include "boxfab/box.h"
#include "boxfab/boxarray.h"
#include "boxfab/distmap.h"
#include "boxfab/geometry.h"
#include "boxfab/intvect.h"
#include "boxfab/vector.h"

static const size_t vec_elsize[BF_VECTOR_NKINDS] = {
    [BF_VECTOR_REAL] = sizeof(double),           [BF_VECTOR_INT] = sizeof(int32_t),
    [BF_VECTOR_LONG] = sizeof(int64_t),          [BF_VECTOR_STRING] = sizeof(char *),
    [BF_VECTOR_INTVECT] = sizeof(bf_intvect),    [BF_VECTOR_BOXARRAY] = sizeof(bf_boxarray *),
    [BF_VECTOR_DISTMAP] = sizeof(bf_distmap *),  [BF_VECTOR_GEOMETRY] = sizeof(bf_geometry),
    [BF_VECTOR_BOX] = sizeof(bf_box),
};

size_t bf_vector_elsize(int kind) { return kind >= 0 && kind < BF_VECTOR_NKINDS ? vec_elsize[kind] : 0; }

bool bf_vector_comparable(int kind) { return kind >= 0 && kind < BF_VECTOR_NKINDS && kind != BF_VECTOR_GEOMETRY; }

/* ---- element operations ----------------------------------------------------- */

/* Copy one element from src into dst (uninitialized): duplicate / retain. */
static int elem_copy(int kind, void *dst, const void *src, size_t elsize) {
  switch (kind) {
  case BF_VECTOR_STRING: {
    const char *s = *(const char *const *)src;
    BF_CHECK(s != NULL, BF_ERROR_VALUE, "a string element is NULL");
    size_t len = strlen(s);
    char *d = malloc(len + 1);
    BF_CHECK(d != NULL, BF_ERROR_MEMORY, "out of memory copying a string of %zu bytes", len);
    memcpy(d, s, len + 1);
    *(char **)dst = d;
    return BF_SUCCESS;
  }
  case BF_VECTOR_BOXARRAY: {
    bf_boxarray *ba = *(bf_boxarray *const *)src;
    BF_CHECK(ba != NULL, BF_ERROR_VALUE, "a BoxArray element is NULL");
    *(bf_boxarray **)dst = bf_boxarray_retain(ba);
    return BF_SUCCESS;
  }
  case BF_VECTOR_DISTMAP: {
    bf_distmap *dm = *(bf_distmap *const *)src;
    *(bf_distmap **)dst = dm ? bf_distmap_retain(dm) : NULL;
    return BF_SUCCESS;
  }
  default: memcpy(dst, src, elsize); return BF_SUCCESS;
  }
}

static void elem_release(int kind, void *p) {
  switch (kind) {
  case BF_VECTOR_STRING: free(*(char **)p); break;
  case BF_VECTOR_BOXARRAY: bf_boxarray_destroy((bf_boxarray **)p); break;
  case BF_VECTOR_DISTMAP: bf_distmap_destroy((bf_distmap **)p); break;
  default: break;
  }
}

static void release_range(bf_vector *v, int64_t from, int64_t to) {
  for (int64_t i = from; i < to; ++i) elem_release(v->kind, bf_vector_at(v, i));
}

bool bf_vector_element_equal(int kind, const void *a, const void *b) {
  switch (kind) {
  case BF_VECTOR_REAL: return *(const double *)a == *(const double *)b;
  case BF_VECTOR_INT: return *(const int32_t *)a == *(const int32_t *)b;
  case BF_VECTOR_LONG: return *(const int64_t *)a == *(const int64_t *)b;
  case BF_VECTOR_STRING: return strcmp(*(const char *const *)a, *(const char *const *)b) == 0;
  case BF_VECTOR_INTVECT: return bf_intvect_equal((const bf_intvect *)a, (const bf_intvect *)b);
  case BF_VECTOR_BOX: return bf_box_equal((const bf_box *)a, (const bf_box *)b);
  case BF_VECTOR_BOXARRAY: {
    const bf_boxarray *x = *(bf_boxarray *const *)a, *y = *(bf_boxarray *const *)b;
    if (x == y) return true;
    if (!x || !y || bf_boxarray_dim(x) != bf_boxarray_dim(y) || bf_boxarray_size(x) != bf_boxarray_size(y))
      return false;
    const bf_box *bx = bf_boxarray_data(x), *by = bf_boxarray_data(y);
    for (int64_t i = 0; i < bf_boxarray_size(x); ++i)
      if (!bf_box_equal(&bx[i], &by[i])) return false;
    return true;
  }
  case BF_VECTOR_DISTMAP: {
    const bf_distmap *x = *(bf_distmap *const *)a, *y = *(bf_distmap *const *)b;
    if (x == y) return true;
    int64_t nx = x ? bf_distmap_size(x) : 0, ny = y ? bf_distmap_size(y) : 0;
    if (nx != ny) return false;
    return nx == 0 || memcmp(bf_distmap_data(x), bf_distmap_data(y), (size_t)nx * sizeof(int)) == 0;
  }
  default: return false;
  }
}

/* ---- storage -------------------------------------------------------------------- */

int bf_vector_init(bf_vector *v, int kind) {
  memset(v, 0, sizeof *v);
  BF_CHECK(kind >= 0 && kind < BF_VECTOR_NKINDS, BF_ERROR_VALUE, "unknown vector element kind %d", kind);
  v->kind = kind;
  v->elsize = vec_elsize[kind];
  v->data = calloc(1, v->elsize);
  BF_CHECK(v->data != NULL, BF_ERROR_MEMORY, "out of memory creating a vector");
  v->capacity = 1;
  return BF_SUCCESS;
}

void bf_vector_free(bf_vector *v) {
  if (!v->data && !v->retired) return;
  release_range(v, 0, v->size);
  free(v->data);
  for (int i = 0; i < v->nretired; ++i) free(v->retired[i]);
  free(v->retired);
  memset(v, 0, sizeof *v);
}

void bf_vector_pin(bf_vector *v) { v->pinned = true; }

int bf_vector_reserve(bf_vector *v, int64_t n) {
  if (n <= v->capacity) return BF_SUCCESS;
  int64_t maxn = (int64_t)(PTRDIFF_MAX / v->elsize);
  BF_CHECK(n <= maxn, BF_ERROR_MEMORY, "a vector of %lld elements is too large", (long long)n);
  int64_t cap = v->capacity <= maxn / 2 ? 2 * v->capacity : maxn;
  if (cap < n) cap = n;
  size_t bytes = (size_t)cap * v->elsize;
  if (v->pinned) {
    /* A view may read the current block: keep it, move to a new one. */
    void **r = realloc(v->retired, (size_t)(v->nretired + 1) * sizeof *r);
    BF_CHECK(r != NULL, BF_ERROR_MEMORY, "out of memory growing a vector");
    v->retired = r;
    void *d = malloc(bytes);
    BF_CHECK(d != NULL, BF_ERROR_MEMORY, "out of memory growing a vector to %lld elements", (long long)cap);
    memcpy(d, v->data, (size_t)v->size * v->elsize);
    v->retired[v->nretired++] = v->data;
    v->data = d;
    v->pinned = false;
  } else {
    void *d = realloc(v->data, bytes);
    BF_CHECK(d != NULL, BF_ERROR_MEMORY, "out of memory growing a vector to %lld elements", (long long)cap);
    v->data = d;
  }
  v->capacity = cap;
  return BF_SUCCESS;
}

/* Copies of n elements into a new malloc'ed block (*out; NULL when n == 0). */
static int copy_block(int kind, size_t elsize, int64_t n, const void *elems, int64_t step, void **out) {
  *out = NULL;
  if (n == 0) return BF_SUCCESS;
  void *tmp = malloc((size_t)n * elsize);
  BF_CHECK(tmp != NULL, BF_ERROR_MEMORY, "out of memory copying %lld elements", (long long)n);
  for (int64_t k = 0; k < n; ++k) {
    int ierr = elem_copy(kind, (char *)tmp + (size_t)k * elsize, (const char *)elems + k * step * (int64_t)elsize,
                         elsize);
    if (ierr) {
      for (int64_t j = 0; j < k; ++j) elem_release(kind, (char *)tmp + (size_t)j * elsize);
      free(tmp);
      return ierr;
    }
  }
  *out = tmp;
  return BF_SUCCESS;
}

/* Insert n already-owned elements (moved, not copied) at `at`. */
static int insert_owned(bf_vector *v, int64_t at, int64_t n, const void *owned) {
  BF_CHECK(n <= INT64_MAX - v->size, BF_ERROR_MEMORY, "vector too large");
  BF_CALL(bf_vector_reserve(v, v->size + n));
  char *base = v->data;
  memmove(base + (size_t)(at + n) * v->elsize, base + (size_t)at * v->elsize, (size_t)(v->size - at) * v->elsize);
  if (n > 0) memcpy(base + (size_t)at * v->elsize, owned, (size_t)n * v->elsize);
  v->size += n;
  return BF_SUCCESS;
}

int bf_vector_insert(bf_vector *v, int64_t at, int64_t n, const void *elems) {
  BF_CHECK(at >= 0 && at <= v->size, BF_ERROR_INDEX, "insert position %lld outside [0, %lld]", (long long)at,
           (long long)v->size);
  BF_CHECK(n >= 0, BF_ERROR_VALUE, "negative element count %lld", (long long)n);
  if (n == 0) return BF_SUCCESS;
  void *tmp;
  BF_CALL(copy_block(v->kind, v->elsize, n, elems, 1, &tmp)); /* before growing: elems may alias v */
  int ierr = insert_owned(v, at, n, tmp);
  if (ierr)
    for (int64_t j = 0; j < n; ++j) elem_release(v->kind, (char *)tmp + (size_t)j * v->elsize);
  free(tmp);
  return ierr;
}

int bf_vector_push(bf_vector *v, const void *elem) { return bf_vector_insert(v, v->size, 1, elem); }

int bf_vector_take(bf_vector *v, int64_t at, bf_vector *src) {
  BF_CHECK(v != src, BF_ERROR_VALUE, "cannot move a vector into itself");
  BF_CHECK(v->kind == src->kind, BF_ERROR_TYPE, "vector kinds differ (%d, %d)", v->kind, src->kind);
  BF_CHECK(at >= 0 && at <= v->size, BF_ERROR_INDEX, "insert position %lld outside [0, %lld]", (long long)at,
           (long long)v->size);
  BF_CALL(insert_owned(v, at, src->size, src->data));
  src->size = 0; /* the elements now belong to v */
  return BF_SUCCESS;
}

static int check_strided(const bf_vector *v, int64_t start, int64_t step, int64_t n) {
  BF_CHECK(step != 0, BF_ERROR_VALUE, "slice step must not be zero");
  BF_CHECK(n >= 0, BF_ERROR_VALUE, "negative element count %lld", (long long)n);
  if (n == 0) return BF_SUCCESS;
  int64_t last = start + (n - 1) * step; /* callers pass slices, no overflow for in-range ones */
  BF_CHECK(start >= 0 && start < v->size && last >= 0 && last < v->size, BF_ERROR_INDEX,
           "positions %lld..%lld (step %lld) outside a vector of size %lld", (long long)start, (long long)last,
           (long long)step, (long long)v->size);
  return BF_SUCCESS;
}

int bf_vector_set(bf_vector *v, int64_t i, const void *elem) {
  BF_CHECK(i >= 0 && i < v->size, BF_ERROR_INDEX, "index %lld outside [0, %lld)", (long long)i, (long long)v->size);
  return bf_vector_set_strided(v, i, 1, 1, elem);
}

int bf_vector_set_strided(bf_vector *v, int64_t start, int64_t step, int64_t n, const void *elems) {
  BF_CALL(check_strided(v, start, step, n));
  void *tmp;
  BF_CALL(copy_block(v->kind, v->elsize, n, elems, 1, &tmp)); /* first: elems may alias v */
  for (int64_t k = 0; k < n; ++k) {
    void *p = bf_vector_at(v, start + k * step);
    elem_release(v->kind, p);
    memcpy(p, (char *)tmp + (size_t)k * v->elsize, v->elsize);
  }
  free(tmp);
  return BF_SUCCESS;
}

int bf_vector_erase(bf_vector *v, int64_t start, int64_t step, int64_t n) {
  BF_CALL(check_strided(v, start, step, n));
  if (n == 0) return BF_SUCCESS;
  if (step < 0) { /* the same positions in increasing order */
    start += (n - 1) * step;
    step = -step;
  }
  for (int64_t k = 0; k < n; ++k) elem_release(v->kind, bf_vector_at(v, start + k * step));
  char *base = v->data;
  int64_t w = start;
  for (int64_t r = start; r < v->size; ++r) {
    int64_t off = r - start;
    if (off % step == 0 && off / step < n) continue; /* erased */
    if (w != r) memcpy(base + (size_t)w * v->elsize, base + (size_t)r * v->elsize, v->elsize);
    ++w;
  }
  v->size = w;
  return BF_SUCCESS;
}

void bf_vector_clear(bf_vector *v) {
  release_range(v, 0, v->size);
  v->size = 0;
}

int bf_vector_slice(const bf_vector *v, int64_t start, int64_t step, int64_t n, bf_vector *out) {
  BF_CALL(check_strided(v, start, step, n));
  BF_CALL(bf_vector_init(out, v->kind));
  void *tmp = NULL;
  int ierr = copy_block(v->kind, v->elsize, n, n > 0 ? bf_vector_at(v, start) : v->data, step, &tmp);
  if (!ierr) ierr = insert_owned(out, 0, n, tmp);
  if (ierr) {
    if (tmp)
      for (int64_t j = 0; j < n; ++j) elem_release(v->kind, (char *)tmp + (size_t)j * v->elsize);
    bf_vector_free(out);
  }
  free(tmp);
  return ierr;
}

/* ---- comparison ---------------------------------------------------------------- */

static int check_comparable(int kind) {
  BF_CHECK(bf_vector_comparable(kind), BF_ERROR_TYPE, "elements of this vector kind (%d) cannot be compared", kind);
  return BF_SUCCESS;
}

int bf_vector_equal(const bf_vector *a, const bf_vector *b, bool *equal) {
  BF_CALL(check_comparable(a->kind));
  *equal = false;
  if (a->kind != b->kind || a->size != b->size) return BF_SUCCESS;
  for (int64_t i = 0; i < a->size; ++i)
    if (!bf_vector_element_equal(a->kind, bf_vector_at(a, i), bf_vector_at(b, i))) return BF_SUCCESS;
  *equal = true;
  return BF_SUCCESS;
}

int bf_vector_find(const bf_vector *v, const void *elem, int64_t start, int64_t *index) {
  BF_CALL(check_comparable(v->kind));
  *index = -1;
  for (int64_t i = start < 0 ? 0 : start; i < v->size; ++i)
    if (bf_vector_element_equal(v->kind, bf_vector_at(v, i), elem)) {
      *index = i;
      break;
    }
  return BF_SUCCESS;
}

int bf_vector_count(const bf_vector *v, const void *elem, int64_t *count) {
  BF_CALL(check_comparable(v->kind));
  int64_t c = 0;
  for (int64_t i = 0; i < v->size; ++i) c += bf_vector_element_equal(v->kind, bf_vector_at(v, i), elem);
  *count = c;
  return BF_SUCCESS;
}
