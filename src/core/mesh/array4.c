/* Array4 views: index math and strided copies (see include/boxfab/array4.h). */
#include <complex.h>
#include <string.h>

#include "boxfab/array4.h"

int bf_array4_check(const bf_array4 *a) {
  BF_CHECK(a->dtype >= 0 && a->dtype < BF_DTYPE_COUNT, BF_ERROR_VALUE, "invalid Array4 element type %d", a->dtype);
  BF_CHECK(a->ncomp >= 0, BF_ERROR_VALUE, "number of components must be >= 0, got %d", a->ncomp);
  int64_t len[4], n = a->ncomp;
  for (int d = 0; d < 3; ++d) {
    BF_CHECK(a->end[d] >= a->begin[d], BF_ERROR_VALUE, "Array4 end %lld < begin %lld in direction %d",
             (long long)a->end[d], (long long)a->begin[d], d);
    BF_CHECK(!__builtin_sub_overflow(a->end[d], a->begin[d], &len[d]), BF_ERROR_OVERFLOW,
             "Array4 extent [%lld, %lld) in direction %d does not fit in 64 bits", (long long)a->begin[d],
             (long long)a->end[d], d);
  }
  len[3] = a->ncomp;
  /* every size and offset computed from the view must fit in int64 bytes
   * (bf_array4_size, bf_array4_offset, the exported shape and strides): an
   * imported shape of (2**40, 2**40) had size 0 */
  const int64_t es = (int64_t)bf_dtype_size(a->dtype);
  for (int d = 0; d < 3; ++d)
    BF_CHECK(bf_i64_mul(n, len[d], &n), BF_ERROR_OVERFLOW,
             "Array4 of extents (%lld, %lld, %lld) and %d components: the element count does not fit in 64 bits",
             (long long)len[0], (long long)len[1], (long long)len[2], a->ncomp);
  int64_t bytes;
  BF_CHECK(bf_i64_mul(n, es, &bytes), BF_ERROR_OVERFLOW, "Array4 of %lld elements: the byte count does not fit in 64 bits",
           (long long)n);
  if (n > 0) {
    const int64_t st[4] = {a->istride, a->jstride, a->kstride, a->nstride};
    int64_t span = 0, t;
    for (int d = 0; d < 4; ++d) {
      bool ok = st[d] != INT64_MIN && bf_i64_mul(st[d] < 0 ? -st[d] : st[d], len[d] - 1, &t) &&
                bf_i64_add(span, t, &span);
      BF_CHECK(ok && bf_i64_mul(span, es, &t), BF_ERROR_OVERFLOW,
               "Array4 strides (%lld, %lld, %lld, %lld) reach beyond 2^63 bytes", (long long)st[0], (long long)st[1],
               (long long)st[2], (long long)st[3]);
    }
  }
  BF_CHECK(a->p || n == 0, BF_ERROR_VALUE, "Array4 with %lld elements has no data pointer", (long long)n);
  return BF_SUCCESS;
}

int bf_array4_init(bf_array4 *a, void *p, int dtype, const int64_t begin[3], const int64_t end[3], int ncomp) {
  bf_array4 r = bf_array4_empty(dtype);
  r.p = p;
  r.ncomp = ncomp;
  for (int d = 0; d < 3; ++d) {
    r.begin[d] = begin[d];
    r.end[d] = end[d];
  }
  BF_CALL(bf_array4_check(&r));
  r.istride = 1;
  r.jstride = bf_array4_length(&r, 0);
  r.kstride = r.jstride * bf_array4_length(&r, 1);
  r.nstride = r.kstride * bf_array4_length(&r, 2);
  *a = r;
  return BF_SUCCESS;
}

int bf_array4_index(const bf_array4 *a, int64_t i, int64_t j, int64_t k, int64_t n, int64_t *offset) {
  if (!bf_array4_contains(a, i, j, k))
    BF_ERROR(BF_ERROR_INDEX, "Array4 index (%lld, %lld, %lld) outside the view [(%lld, %lld, %lld), (%lld, %lld, %lld)]",
             (long long)i, (long long)j, (long long)k, (long long)a->begin[0], (long long)a->begin[1],
             (long long)a->begin[2], (long long)a->end[0] - 1, (long long)a->end[1] - 1, (long long)a->end[2] - 1);
  BF_CHECK(n >= 0 && n < a->ncomp, BF_ERROR_INDEX, "Array4 component %lld out of range [0, %d)", (long long)n,
           a->ncomp);
  *offset = bf_array4_offset(a, i, j, k, n);
  return BF_SUCCESS;
}

int bf_array4_subview(const bf_array4 *a, int start, int num, bf_array4 *out) {
  BF_CHECK(start >= 0 && start < a->ncomp, BF_ERROR_INDEX, "start component %d out of range [0, %d)", start,
           a->ncomp);
  BF_CHECK(num >= 1, BF_ERROR_VALUE, "number of components must be positive, got %d", num);
  BF_CHECK(num <= a->ncomp - start, BF_ERROR_INDEX, "components [%d, %lld) exceed the %d of the view", start,
           (long long)start + num, a->ncomp);
  bf_array4 r = *a;
  r.p = (char *)a->p + (ptrdiff_t)(start * a->nstride) * (ptrdiff_t)bf_dtype_size(a->dtype);
  r.ncomp = num;
  *out = r;
  return BF_SUCCESS;
}

bool bf_array4_is_contiguous(const bf_array4 *a) {
  int64_t nx = bf_array4_length(a, 0), ny = bf_array4_length(a, 1), nz = bf_array4_length(a, 2);
  /* strides of directions of extent 1 (or components when ncomp == 1) do not matter */
  if (nx > 1 && a->istride != 1) return false;
  if (ny > 1 && a->jstride != nx) return false;
  if (nz > 1 && a->kstride != nx * ny) return false;
  if (a->ncomp > 1 && a->nstride != nx * ny * nz) return false;
  return true;
}

/* One row of n elements of `size` bytes, strides in elements. */
static void copy_row(char *dst, int64_t ds, const char *src, int64_t ss, int64_t n, size_t size) {
  if (ds == 1 && ss == 1) {
    memcpy(dst, src, (size_t)n * size);
    return;
  }
  switch (size) {
  case 2:
    for (int64_t i = 0; i < n; ++i) memcpy(dst + i * ds * 2, src + i * ss * 2, 2);
    break;
  case 4:
    for (int64_t i = 0; i < n; ++i) memcpy(dst + i * ds * 4, src + i * ss * 4, 4);
    break;
  case 8:
    for (int64_t i = 0; i < n; ++i) memcpy(dst + i * ds * 8, src + i * ss * 8, 8);
    break;
  case 16:
    for (int64_t i = 0; i < n; ++i) memcpy(dst + i * ds * 16, src + i * ss * 16, 16);
    break;
  default:
    for (int64_t i = 0; i < n; ++i) memcpy(dst + i * ds * (int64_t)size, src + i * ss * (int64_t)size, size);
  }
}

int bf_array4_copy(const bf_array4 *dst, const bf_array4 *src) {
  BF_CALL(bf_array4_check(dst));
  BF_CALL(bf_array4_check(src));
  BF_CHECK(dst->dtype == src->dtype, BF_ERROR_TYPE, "Array4 copy between element types %s and %s",
           bf_dtype_name(dst->dtype), bf_dtype_name(src->dtype));
  for (int d = 0; d < 3; ++d)
    BF_CHECK(bf_array4_length(dst, d) == bf_array4_length(src, d), BF_ERROR_VALUE,
             "Array4 copy: extents differ in direction %d (%lld and %lld)", d, (long long)bf_array4_length(dst, d),
             (long long)bf_array4_length(src, d));
  BF_CHECK(dst->ncomp == src->ncomp, BF_ERROR_VALUE, "Array4 copy: %d and %d components", dst->ncomp, src->ncomp);
  if (bf_array4_size(src) == 0) return BF_SUCCESS;
  const int64_t size = (int64_t)bf_dtype_size(src->dtype);
  const int64_t nx = bf_array4_length(src, 0), ny = bf_array4_length(src, 1), nz = bf_array4_length(src, 2);
  for (int64_t n = 0; n < src->ncomp; ++n)
    for (int64_t k = 0; k < nz; ++k)
      for (int64_t j = 0; j < ny; ++j) {
        char *d = (char *)dst->p + (n * dst->nstride + k * dst->kstride + j * dst->jstride) * size;
        const char *s = (const char *)src->p + (n * src->nstride + k * src->kstride + j * src->jstride) * size;
        copy_row(d, dst->istride, s, src->istride, nx, (size_t)size);
      }
  return BF_SUCCESS;
}

int bf_array4_copy_to_buffer(const bf_array4 *src, void *buf) {
  BF_CALL(bf_array4_check(src));
  BF_CHECK(buf || bf_array4_size(src) == 0, BF_ERROR_VALUE, "Array4 copy into a NULL buffer");
  bf_array4 dst;
  BF_CALL(bf_array4_init(&dst, buf, src->dtype, src->begin, src->end, src->ncomp));
  return bf_array4_copy(&dst, src);
}
