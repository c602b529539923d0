/* Private layout of bf_distmap (src/core/distmap*.c). */
#ifndef BOXFAB_DISTMAP_IMPL_H
#define BOXFAB_DISTMAP_IMPL_H

#include "boxfab/distmap.h"
#include "base/object.h"

struct bf_distmap {
  bf_object obj;
  int64_t n;
  int nprocs;
  int *pmap;
};

/* A new map of n entries (uninitialised ranks) for nprocs ranks. */
int bf_distmap_alloc(int64_t n, int nprocs, bf_distmap **out);

#endif
