/* Shared helpers of the MultiFab C tests: layouts, patterns and element access. */
#ifndef BOXFAB_MFTEST_H
#define BOXFAB_MFTEST_H

#include <math.h>
#include <stdlib.h>

#include "bftest.h"
#include "boxfab/arena.h"
#include "boxfab/fab.h"
#include "boxfab/mfiter.h"
#include "boxfab/multifab.h"
#include "boxfab_config.h"
#if BOXFAB_HAVE_OPENMP
#include <omp.h>
#endif

static inline bf_intvect iv3(int dim, int a, int b, int c) {
  bf_intvect v = {dim, {a, dim > 1 ? b : 0, dim > 2 ? c : 0}};
  return v;
}

static inline bf_box mkbox(int dim, int l0, int l1, int l2, int h0, int h1, int h2, unsigned type) {
  bf_box b = {dim, {l0, dim > 1 ? l1 : 0, dim > 2 ? l2 : 0}, {h0, dim > 1 ? h1 : 0, dim > 2 ? h2 : 0}, type};
  return b;
}

/* The domain [0, n)^dim cut into boxes of size bs (cell-centred), or nodal
 * versions (type bits) of those boxes. */
static inline bf_boxarray *chop_domain(int dim, int n, int bs, unsigned type) {
  int nb = n / bs, count = 1;
  for (int d = 0; d < dim; ++d) count *= nb;
  bf_box *boxes = malloc((size_t)count * sizeof *boxes);
  int m = 0;
  for (int c = 0; c < (dim > 2 ? nb : 1); ++c)
    for (int b = 0; b < (dim > 1 ? nb : 1); ++b)
      for (int a = 0; a < nb; ++a) {
        bf_box bx = mkbox(dim, a * bs, b * bs, c * bs, a * bs + bs - 1, b * bs + bs - 1, c * bs + bs - 1, 0);
        bf_box_convert(&bx, type);
        boxes[m++] = bx;
      }
  bf_boxarray *ba = NULL;
  bf_boxarray_create_from_boxes(dim, m, boxes, &ba);
  free(boxes);
  return ba;
}

static inline bf_distmap *dm_for(const bf_boxarray *ba) {
  int64_t n = bf_boxarray_size(ba);
  int *p = calloc((size_t)n + 1, sizeof *p);
  bf_distmap *dm = NULL;
  bf_distmap_create_from_pmap(n, p, &dm);
  free(p);
  return dm;
}

static inline bf_multifab *make_mf(bf_boxarray *ba, int ncomp, int ng, int dtype) {
  bf_distmap *dm = dm_for(ba);
  bf_multifab *mf = NULL;
  int dim = bf_boxarray_dim(ba);
  BFT_OK(bf_multifab_create(ba, dm, ncomp, iv3(dim, ng, ng, ng), dtype, NULL, true, &mf));
  bf_distmap_destroy(&dm);
  return mf;
}

/* Address of (p, n) in local fab li (p: 3 ints, padded). */
static inline void *mf_at(const bf_multifab *mf, int64_t li, const int *p, int n) {
  bf_mf_fab f;
  bf_multifab_local_fab(mf, li, &f);
  int lo[3] = {f.fabbox.lo[0], f.fabbox.lo[1], f.fabbox.lo[2]};
  int64_t off = (p[0] - lo[0]) + (int64_t)(p[1] - lo[1]) * f.stride[0] + (int64_t)(p[2] - lo[2]) * f.stride[1] +
                (int64_t)n * f.stride[2];
  return (char *)f.data + off * (int64_t)bf_dtype_size(bf_multifab_dtype(mf));
}

static inline double mf_get(const bf_multifab *mf, int64_t li, const int *p, int n) {
  void *a = mf_at(mf, li, p, n);
  return bf_multifab_dtype(mf) == BF_DTYPE_DOUBLE ? *(double *)a : (double)*(int *)a;
}

static inline void mf_put(bf_multifab *mf, int64_t li, const int *p, int n, double v) {
  void *a = mf_at(mf, li, p, n);
  if (bf_multifab_dtype(mf) == BF_DTYPE_DOUBLE) *(double *)a = v;
  else *(int *)a = (int)v;
}

/* Loop over every point p of box b (3 ints, padded). */
#define FOR_BOX(b, p)                                                                                            \
  for (int p[3] = {(b).lo[0], (b).lo[1], (b).lo[2]}; p[2] <= (b).hi[2];                                          \
       (++p[0] > (b).hi[0] ? (p[0] = (b).lo[0], (++p[1] > (b).hi[1] ? (p[1] = (b).lo[1], ++p[2]) : 0)) : 0))

/* A pattern value for (p, n, seed): small integers and halves, signs mixed. */
static inline double pattern(const int *p, int n, int seed) {
  int h = (p[0] * 7 + p[1] * 13 + p[2] * 31 + n * 101 + seed * 17) % 23;
  if (h < 0) h += 23;
  return (double)(h - 11) + (seed % 2 ? 0.5 : 0.25);
}

/* Fill every cell (ghosts included) with the pattern (ints: floor). */
static inline void fill_pattern(bf_multifab *mf, int seed) {
  for (int64_t li = 0; li < bf_multifab_nlocal(mf); ++li) {
    bf_mf_fab f;
    bf_multifab_local_fab(mf, li, &f);
    for (int n = 0; n < bf_multifab_ncomp(mf); ++n) FOR_BOX(f.fabbox, p) mf_put(mf, li, p, n, floor(pattern(p, n, seed)));
  }
  if (bf_multifab_dtype(mf) == BF_DTYPE_DOUBLE)
    for (int64_t li = 0; li < bf_multifab_nlocal(mf); ++li) {
      bf_mf_fab f;
      bf_multifab_local_fab(mf, li, &f);
      for (int n = 0; n < bf_multifab_ncomp(mf); ++n) FOR_BOX(f.fabbox, p) mf_put(mf, li, p, n, pattern(p, n, seed));
    }
}

static inline bool in_box(const bf_box *b, const int *p) {
  for (int d = 0; d < 3; ++d)
    if (p[d] < b->lo[d] || p[d] > b->hi[d]) return false;
  return true;
}

static inline void set_threads(int n) {
#if BOXFAB_HAVE_OPENMP
  omp_set_num_threads(n);
#else
  (void)n;
#endif
}

#endif
