/* Private layout of bf_boxarray. */
#ifndef BOXFAB_BOXARRAY_IMPL_H
#define BOXFAB_BOXARRAY_IMPL_H

#include "boxfab/boxarray.h"
#include "object.h"

struct bf_boxarray {
  bf_object obj;
  int dim;
  int64_t n, capacity;
  bf_box *boxes;
};

/* A new BoxArray with n boxes of dimension dim (zeroed, dim set). */
int bf_boxarray_alloc(int dim, int64_t n, bf_boxarray **out);

#endif
