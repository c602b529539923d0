/* FArrayBox (see include/boxfab/fab.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boxfab/fab.h"
#include "base/object.h"

struct bf_fab {
  bf_object obj;
  bf_box box;
  int ncomp, dtype;
  bf_arena *arena;
  bf_buffer *buffer; /* NULL when unallocated */
  void *data;
  int64_t js, ks, ns;
  bool owned;
};

static void fab_free(bf_object *obj) {
  bf_fab *f = (bf_fab *)obj;
  bf_buffer_destroy(&f->buffer);
  free(f);
}

int bf_fab_bytes_of(const bf_box *box, int ncomp, int dtype, size_t *nbytes) {
  BF_CHECK(box != NULL && nbytes != NULL, BF_ERROR_VALUE, "NULL box or result pointer");
  BF_CHECK(ncomp >= 0, BF_ERROR_VALUE, "number of components must be >= 0, got %d", ncomp);
  size_t es = bf_dtype_size(dtype);
  BF_CHECK(es > 0, BF_ERROR_VALUE, "invalid element type %d", dtype);
  int64_t npts = 0;
  int st = bf_box_numpts(box, &npts);
  size_t n;
  if (st || !bf_size_mul((size_t)npts, (size_t)ncomp, &n) || !bf_size_mul(n, es, &n) || n > (size_t)INT64_MAX) {
    bf_error_clear();
    char lo[64] = "", hi[64] = "";
    for (int d = 0; d < box->dim && d < BF_SPACEDIM_MAX; ++d) {
      snprintf(lo + strlen(lo), sizeof lo - strlen(lo), "%s%d", d ? "," : "", box->lo[d]);
      snprintf(hi + strlen(hi), sizeof hi - strlen(hi), "%s%d", d ? "," : "", box->hi[d]);
    }
    BF_ERROR(BF_ERROR_OVERFLOW,
             "the data of box ((%s) (%s)) with %d component(s) of %zu bytes needs more than 2^63 bytes "
             "(%.4g points)",
             lo, hi, ncomp, es, bf_box_d_numpts(box));
  }
  *nbytes = n;
  return BF_SUCCESS;
}

static int check_shape(const bf_box *box, int ncomp, int dtype, int64_t *npts) {
  BF_CHECK(box != NULL, BF_ERROR_VALUE, "NULL box");
  BF_CHECK_DIM(box->dim);
  BF_CHECK(bf_dtype_is_mesh(dtype), BF_ERROR_VALUE, "fabs hold double or int data, not dtype %d", dtype);
  BF_CHECK(ncomp >= 1, BF_ERROR_VALUE, "number of components must be >= 1, got %d", ncomp);
  BF_CHECK(bf_box_ok(box), BF_ERROR_VALUE, "cannot make a fab on an empty box");
  size_t nbytes;
  BF_CALL(bf_fab_bytes_of(box, ncomp, dtype, &nbytes)); /* the byte count fits: so do the points */
  BF_CALL(bf_box_numpts(box, npts));
  return BF_SUCCESS;
}

static void set_contiguous(bf_fab *f) {
  int64_t nx = bf_box_length(&f->box, 0);
  int64_t ny = f->box.dim > 1 ? bf_box_length(&f->box, 1) : 1;
  int64_t nz = f->box.dim > 2 ? bf_box_length(&f->box, 2) : 1;
  f->js = nx, f->ks = nx * ny, f->ns = nx * ny * nz;
}

static int fab_new(int dim, int dtype, bf_arena *arena, bf_fab **out) {
  BF_CHECK(out != NULL, BF_ERROR_VALUE, "NULL result pointer");
  BF_CHECK_DIM(dim);
  BF_CHECK(bf_dtype_is_mesh(dtype), BF_ERROR_VALUE, "fabs hold double or int data, not dtype %d", dtype);
  bf_fab *f = calloc(1, sizeof *f);
  BF_CHECK(f != NULL, BF_ERROR_MEMORY, "out of memory for a fab");
  bf_object_init(&f->obj, fab_free);
  /* AMReX's default BaseFab domain is Box(): small end 1, big end 0 in every
   * direction, cell-centred (AMReX_Box.H BoxND(): smallend(1), bigend(0)) */
  f->box.dim = dim;
  for (int d = 0; d < dim; ++d) f->box.lo[d] = 1, f->box.hi[d] = 0;
  f->dtype = dtype;
  f->arena = arena ? arena : bf_arena_get(BF_ARENA_DEFAULT);
  *out = f;
  return BF_SUCCESS;
}

int bf_fab_create_empty(int dim, int dtype, bf_arena *arena, bf_fab **out) {
  return fab_new(dim, dtype, arena, out);
}

int bf_fab_create(const bf_box *box, int ncomp, int dtype, bf_arena *arena, bf_fab **out) {
  int64_t npts;
  BF_CALL(check_shape(box, ncomp, dtype, &npts));
  bf_fab *f = NULL;
  BF_CALL(fab_new(box->dim, dtype, arena, &f));
  int err = bf_fab_resize(f, box, ncomp, NULL);
  if (err) {
    bf_fab_destroy(&f);
    return err;
  }
  *out = f;
  return BF_SUCCESS;
}

int bf_fab_create_alias(const bf_box *box, int ncomp, int dtype, void *ptr, const int64_t *strides,
                        bf_release_fn release, void *ctx, bf_fab **out) {
  int64_t npts;
  BF_CALL(check_shape(box, ncomp, dtype, &npts));
  BF_CHECK(ptr != NULL, BF_ERROR_VALUE, "NULL data pointer for a fab alias");
  bf_fab *f = NULL;
  BF_CALL(fab_new(box->dim, dtype, NULL, &f));
  f->arena = NULL;
  int err = bf_buffer_create_external(ptr, (size_t)npts * (size_t)ncomp * bf_dtype_size(dtype), NULL, release, ctx,
                                      &f->buffer);
  if (err) {
    bf_fab_destroy(&f);
    return err;
  }
  f->box = *box;
  f->ncomp = ncomp;
  f->data = ptr;
  set_contiguous(f);
  if (strides) f->js = strides[0], f->ks = strides[1], f->ns = strides[2];
  *out = f;
  return BF_SUCCESS;
}

int bf_fab_create_on_buffer(const bf_box *box, int ncomp, int dtype, bf_buffer *buffer, size_t offset,
                            bf_fab **out) {
  int64_t npts;
  BF_CALL(check_shape(box, ncomp, dtype, &npts));
  BF_CHECK(buffer != NULL, BF_ERROR_VALUE, "NULL buffer");
  size_t need = (size_t)npts * (size_t)ncomp * bf_dtype_size(dtype);
  BF_CHECK(offset <= bf_buffer_nbytes(buffer) && need <= bf_buffer_nbytes(buffer) - offset, BF_ERROR_VALUE,
           "a fab of %zu bytes at offset %zu does not fit in a buffer of %zu bytes", need, offset,
           bf_buffer_nbytes(buffer));
  bf_fab *f = NULL;
  BF_CALL(fab_new(box->dim, dtype, bf_buffer_arena(buffer), &f));
  f->buffer = bf_buffer_retain(buffer);
  f->box = *box;
  f->ncomp = ncomp;
  f->data = (char *)bf_buffer_data(buffer) + offset;
  set_contiguous(f);
  *out = f;
  return BF_SUCCESS;
}

bf_fab *bf_fab_retain(bf_fab *f) {
  bf_object_retain(&f->obj);
  return f;
}

void bf_fab_destroy(bf_fab **f) {
  if (!f || !*f) return;
  bf_object_release(&(*f)->obj);
  *f = NULL;
}

long bf_fab_refcount(const bf_fab *f) { return bf_object_refcount(&f->obj); }

int bf_fab_resize(bf_fab *f, const bf_box *box, int ncomp, bf_arena *arena) {
  int64_t npts;
  BF_CALL(check_shape(box, ncomp, f->dtype, &npts));
  BF_CHECK(box->dim == f->box.dim, BF_ERROR_TYPE, "box of dimension %d for a fab of dimension %d", box->dim,
           f->box.dim);
  if (arena) f->arena = arena;
  if (!f->arena) f->arena = bf_arena_get(BF_ARENA_DEFAULT);
  bf_buffer *nb;
  BF_CALL(bf_buffer_create(f->arena, (size_t)npts * (size_t)ncomp * bf_dtype_size(f->dtype), &nb));
  bf_buffer_destroy(&f->buffer);
  f->buffer = nb;
  f->box = *box;
  f->ncomp = ncomp;
  f->data = bf_buffer_data(nb);
  f->owned = true;
  set_contiguous(f);
  return BF_SUCCESS;
}

void bf_fab_clear(bf_fab *f) {
  bf_buffer_destroy(&f->buffer);
  f->data = NULL;
  f->owned = false;
}

bf_box bf_fab_box(const bf_fab *f) { return f->box; }
int bf_fab_ncomp(const bf_fab *f) { return f->ncomp; }
int bf_fab_dtype(const bf_fab *f) { return f->dtype; }
bf_arena *bf_fab_arena(const bf_fab *f) { return f->arena; }
void *bf_fab_data(const bf_fab *f) { return f->data; }
void bf_fab_strides(const bf_fab *f, int64_t out[3]) { out[0] = f->js, out[1] = f->ks, out[2] = f->ns; }
bf_buffer *bf_fab_buffer(const bf_fab *f) { return f->buffer; }
bool bf_fab_is_allocated(const bf_fab *f) { return f->data != NULL; }
int64_t bf_fab_num_pts(const bf_fab *f) { return bf_box_ok(&f->box) ? (int64_t)bf_box_d_numpts(&f->box) : 0; }
int64_t bf_fab_size(const bf_fab *f) { return bf_fab_num_pts(f) * f->ncomp; }
size_t bf_fab_n_bytes(const bf_fab *f) {
  return f->data ? (size_t)bf_fab_size(f) * bf_dtype_size(f->dtype) : 0;
}
int bf_fab_n_bytes_box(const bf_fab *f, const bf_box *box, int ncomp, size_t *nbytes) {
  BF_CHECK(f != NULL, BF_ERROR_VALUE, "NULL fab");
  BF_CHECK(box != NULL && box->dim == f->box.dim, BF_ERROR_TYPE, "n_bytes: box of dimension %d for a fab of dimension %d",
           box ? box->dim : 0, f->box.dim);
  BF_CHECK(ncomp >= 0, BF_ERROR_VALUE, "n_bytes: ncomp must be >= 0, got %d", ncomp);
  return bf_fab_bytes_of(box, ncomp, f->dtype, nbytes);
}
size_t bf_fab_n_bytes_owned(const bf_fab *f) { return f->owned && f->data ? bf_fab_n_bytes(f) : 0; }

int bf_fab_offset(const bf_fab *f, const int *p, int n, int64_t *offset) {
  BF_CHECK(f->data != NULL, BF_ERROR_RUNTIME, "the fab holds no data");
  BF_CHECK(bf_box_contains(&f->box, p), BF_ERROR_INDEX, "point outside the fab's box");
  BF_CHECK(n >= 0 && n < f->ncomp, BF_ERROR_INDEX, "component %d out of range [0, %d)", n, f->ncomp);
  int64_t off = (int64_t)p[0] - f->box.lo[0];
  if (f->box.dim > 1) off += ((int64_t)p[1] - f->box.lo[1]) * f->js;
  if (f->box.dim > 2) off += ((int64_t)p[2] - f->box.lo[2]) * f->ks;
  *offset = off + (int64_t)n * f->ns;
  return BF_SUCCESS;
}
