/* Private: the header every reference-counted core object starts with.
 * One scheme everywhere: *_create gives a reference, *_retain adds one,
 * *_destroy(&p) drops one and nulls the handle; the last drop frees. */
#ifndef BOXFAB_OBJECT_H
#define BOXFAB_OBJECT_H

#include <stdint.h>

typedef struct bf_object {
  long refcount;                          /* atomic */
  void (*destroy)(struct bf_object *obj); /* frees the object */
} bf_object;

static inline void bf_object_init(bf_object *o, void (*destroy)(bf_object *)) {
  o->refcount = 1;
  o->destroy = destroy;
}

static inline void bf_object_retain(bf_object *o) { __atomic_add_fetch(&o->refcount, 1, __ATOMIC_RELAXED); }

/* Drop a reference; free on the last one. */
static inline void bf_object_release(bf_object *o) {
  if (o && __atomic_sub_fetch(&o->refcount, 1, __ATOMIC_ACQ_REL) == 0) o->destroy(o);
}

static inline long bf_object_refcount(const bf_object *o) { return __atomic_load_n(&o->refcount, __ATOMIC_RELAXED); }

#endif
