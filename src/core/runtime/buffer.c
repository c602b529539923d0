/* Buffers: reference-counted blocks of memory (see include/boxfab/arena.h). */
#include <stdlib.h>

#include "boxfab/arena.h"
#include "base/object.h"

struct bf_buffer {
  bf_object obj;
  void *data;
  size_t nbytes;
  bf_arena *arena;
  bool owned;
  bf_release_fn release;
  void *ctx;
};

static void buffer_free(bf_object *obj) {
  bf_buffer *b = (bf_buffer *)obj;
  if (b->owned) bf_arena_free(b->arena, b->data, b->nbytes);
  else if (b->release) b->release(b->ctx);
  free(b);
}

int bf_buffer_create(bf_arena *arena, size_t nbytes, bf_buffer **out) {
  BF_CHECK(out != NULL, BF_ERROR_VALUE, "NULL result pointer");
  if (!arena) arena = bf_arena_get(BF_ARENA_DEFAULT);
  bf_buffer *b = calloc(1, sizeof *b);
  BF_CHECK(b != NULL, BF_ERROR_MEMORY, "out of memory for a buffer");
  if (nbytes > 0) {
    int err = bf_arena_alloc(arena, nbytes, &b->data);
    if (err) {
      free(b);
      return err;
    }
  }
  bf_object_init(&b->obj, buffer_free);
  b->nbytes = nbytes;
  b->arena = arena;
  b->owned = true;
  *out = b;
  return BF_SUCCESS;
}

int bf_buffer_create_external(void *data, size_t nbytes, bf_arena *arena, bf_release_fn release, void *ctx,
                              bf_buffer **out) {
  BF_CHECK(out != NULL, BF_ERROR_VALUE, "NULL result pointer");
  BF_CHECK(data != NULL || nbytes == 0, BF_ERROR_VALUE, "NULL data for an external buffer of %zu bytes", nbytes);
  bf_buffer *b = calloc(1, sizeof *b);
  BF_CHECK(b != NULL, BF_ERROR_MEMORY, "out of memory for a buffer");
  bf_object_init(&b->obj, buffer_free);
  b->data = data;
  b->nbytes = nbytes;
  b->arena = arena;
  b->owned = false;
  b->release = release;
  b->ctx = ctx;
  *out = b;
  return BF_SUCCESS;
}

bf_buffer *bf_buffer_retain(bf_buffer *b) {
  bf_object_retain(&b->obj);
  return b;
}

void bf_buffer_destroy(bf_buffer **b) {
  if (!b || !*b) return;
  bf_object_release(&(*b)->obj);
  *b = NULL;
}

long bf_buffer_refcount(const bf_buffer *b) { return bf_object_refcount(&b->obj); }
void *bf_buffer_data(const bf_buffer *b) { return b->data; }
size_t bf_buffer_nbytes(const bf_buffer *b) { return b->nbytes; }
bf_arena *bf_buffer_arena(const bf_buffer *b) { return b->arena; }
bool bf_buffer_is_owned(const bf_buffer *b) { return b->owned; }
