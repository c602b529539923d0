/* The CUDA backend against the CPU backend.  Each operation runs twice on the
 * same data: on MultiFabs in host memory (The_Cpu_Arena: CPU kernels, the
 * oracle) and on MultiFabs in GPU memory (The_Arena, The_Async_Arena,
 * The_Managed_Arena: CUDA kernels; The_Pinned_Arena: CPU kernels on pinned
 * memory); results must be bitwise equal for element-wise operations and the
 * ghost exchange, within 1e-12 (relative) for floating-point reductions, and
 * exact for integer sums, min/max and their cells.  Also: arena flags, the
 * pool (a second MultiFab does not call cudaMalloc again), mixed host/device
 * memory refused, managed memory never over-asked, BOXFAB_DEVICE=cpu.
 *
 * Without a GPU it checks the CPU fallback and exits 77 (ctest: skipped).
 * `test_cuda_backend --selftest` runs the comparisons with host memory on
 * both sides (CPU against CPU), to keep the harness itself honest where
 * there is no GPU. */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gputest.h"

static bool selftest; /* no GPU: both sides in host memory */

/* ---- MultiFab pairs ------------------------------------------------------------------ */

static void *mf_data(const bf_multifab *mf) {
  bf_buffer *b = NULL;
  bf_multifab_buffer(mf, &b);
  return b ? bf_buffer_data(b) : NULL;
}
static size_t mf_bytes(const bf_multifab *mf) {
  bf_buffer *b = NULL;
  bf_multifab_buffer(mf, &b);
  return b ? bf_buffer_nbytes(b) : 0;
}

static bf_multifab *mf_on(bf_boxarray *ba, int ncomp, int ng, int dtype, int kind) {
  bf_distmap *dm = dm_for(ba);
  bf_multifab *mf = NULL;
  int dim = bf_boxarray_dim(ba);
  BFT_OK(bf_multifab_create(ba, dm, ncomp, iv3(dim, ng, ng, ng), dtype, bf_arena_get(kind), true, &mf));
  bf_distmap_destroy(&dm);
  return mf;
}

/* h: host oracle; d: the same data in memory of `kind`. */
typedef struct pair {
  bf_multifab *h, *d;
} pair;

static pair make_pair(bf_boxarray *ba, int ncomp, int ng, int dtype, int kind, int seed) {
  pair p = {mf_on(ba, ncomp, ng, dtype, BF_ARENA_CPU), mf_on(ba, ncomp, ng, dtype, kind)};
  fill_pattern(p.h, seed);
  BFT_OK(bf_gpu_memcpy(mf_data(p.d), mf_data(p.h), mf_bytes(p.h)));
  return p;
}

static void free_pair(pair *p) {
  bf_multifab_destroy(&p->h);
  bf_multifab_destroy(&p->d);
}

/* Are the device data bitwise equal to the host's?  Reports the first difference. */
static bool same(const pair *p, const char *what, int a, int b) {
  BFT_OK(bf_gpu_synchronize());
  size_t n = mf_bytes(p->h);
  BFT_CHECK(n == mf_bytes(p->d));
  unsigned char *got = malloc(n ? n : 1);
  BFT_OK(bf_gpu_memcpy(got, mf_data(p->d), n));
  const unsigned char *want = mf_data(p->h);
  bool ok = memcmp(got, want, n) == 0;
  if (!ok) {
    size_t i = 0;
    while (got[i] == want[i]) ++i;
    size_t es = bf_dtype_size(bf_multifab_dtype(p->h)), e = i / es;
    double g, w;
    if (es == sizeof(double)) g = ((double *)(void *)got)[e], w = ((const double *)(const void *)want)[e];
    else g = ((int *)(void *)got)[e], w = ((const int *)(const void *)want)[e];
    fprintf(stderr, "%s (%d, %d): element %zu differs: device %.17g, host %.17g\n", what, a, b, e, g, w);
  }
  free(got);
  return ok;
}

static bool close_to(double g, double c) { return g == c || fabs(g - c) <= 1e-12 * fmax(1.0, fabs(c)); }

static bf_boxarray *irregular(int dim, unsigned type) {
  int cx[4] = {0, 5, 11, 16}, cy[3] = {0, 7, 16}, cz[3] = {0, 3, 16};
  bf_box boxes[18];
  int m = 0;
  for (int c = 0; c < (dim > 2 ? 2 : 1); ++c)
    for (int b = 0; b < (dim > 1 ? 2 : 1); ++b)
      for (int a = 0; a < 3; ++a) {
        boxes[m] = mkbox(dim, cx[a], cy[b], cz[c], cx[a + 1] - 1, cy[b + 1] - 1, cz[c + 1] - 1, 0);
        bf_box_convert(&boxes[m], type);
        ++m;
      }
  bf_boxarray *ba = NULL;
  bf_boxarray_create_from_boxes(dim, m, boxes, &ba);
  return ba;
}

/* The memory kinds compared with the host (selftest: host only). */
static int kinds(int *out) {
  if (selftest) {
    out[0] = BF_ARENA_CPU;
    return 1;
  }
  out[0] = BF_ARENA_DEFAULT, out[1] = BF_ARENA_ASYNC, out[2] = BF_ARENA_MANAGED, out[3] = BF_ARENA_PINNED;
  return 4;
}

/* ---- element-wise operations ------------------------------------------------------- */

#define NOPS 23

/* Operation `op` on a (dst) with sources b, c; ncomp 2, ng grow cells. */
static int run_op(int op, bf_multifab *a, bf_multifab *b, bf_multifab *c, int ng) {
  int dim = bf_multifab_dim(a);
  bf_intvect g = iv3(dim, ng, ng, ng);
  bf_box region = mkbox(dim, 2, 1, 3, 9, 12, 7, 0);
  switch (op) {
  case 0: return bf_multifab_set_val(a, 4.25, &region, 1, 1, g);
  case 1: return bf_multifab_set_val_all(a, -7.5);
  case 2: return bf_multifab_plus_scalar(a, 2.5, NULL, 0, 2, g);
  case 3: return bf_multifab_mult_scalar(a, -1.5, &region, 0, 2, g);
  case 4: return bf_multifab_invert(a, 3.0, NULL, 0, 2, g);
  case 5: return bf_multifab_negate(a, NULL, 1, 1, g);
  case 6: return bf_multifab_abs(a, NULL, 0, 2, g);
  case 7: return bf_multifab_copy(a, b, 1, 0, 1, g);
  case 8: return bf_multifab_add(a, b, 0, 1, 1, g);
  case 9: return bf_multifab_subtract(a, b, 0, 0, 2, g);
  case 10: return bf_multifab_multiply(a, b, 1, 1, 1, g);
  case 11: return bf_multifab_divide(a, b, 0, 0, 2, g);
  case 12: return bf_multifab_swap(a, b, 0, 1, 1, g);
  case 13: return bf_multifab_saxpy(a, 0.75, b, 1, 0, 1, g);
  case 14: return bf_multifab_xpay(a, -0.5, b, 0, 0, 2, g);
  case 15: return bf_multifab_lin_comb(a, 0.5, b, 0, -2.0, c, 1, 0, 1, g);
  case 16: return bf_multifab_add_product(a, b, 0, c, 1, 1, 1, g);
  case 17: return bf_multifab_plus(a, b, 0, 2, g);
  case 18: return bf_multifab_minus(a, b, 1, 1, g);
  case 19: return bf_multifab_divi(a, b, 0, 2, g);
  case 20: return bf_multifab_copy(a, a, 0, 1, 1, g);  /* inside one MultiFab */
  case 21: return bf_multifab_swap(a, a, 1, 0, 1, g);  /* inside one MultiFab */
  case 22: return bf_multifab_invert(a, 1.0, NULL, 0, 2, g); /* ints: division by 0 gives 0 */
  default: return BF_ERROR_VALUE;
  }
}

static void compare_elementwise(bf_boxarray *ba, int dtype, int kind, int ng) {
  for (int op = 0; op < NOPS; ++op) {
    pair a = make_pair(ba, 2, 1, dtype, kind, 1), b = make_pair(ba, 2, 1, dtype, kind, 2),
         c = make_pair(ba, 2, 1, dtype, kind, 3);
    BFT_OK(run_op(op, a.h, b.h, c.h, ng));
    BFT_OK(run_op(op, a.d, b.d, c.d, ng));
    BFT_CHECK(same(&a, "elementwise op (op, kind)", op, kind));
    if (op == 12) BFT_CHECK(same(&b, "swap source (op, kind)", op, kind));
    free_pair(&a), free_pair(&b), free_pair(&c);
  }
}

static void test_elementwise(void) {
  int ks[4], nk = kinds(ks);
  for (int dim = 1; dim <= 3; ++dim) {
    bf_boxarray *ba = irregular(dim, 0);
    for (int k = 0; k < nk; ++k)
      for (int dt = 0; dt < 2; ++dt) compare_elementwise(ba, dt ? BF_DTYPE_INT : BF_DTYPE_DOUBLE, ks[k], dim == 2);
    bf_boxarray_destroy(&ba);
  }
  /* more cells than one block covers, many boxes */
  bf_boxarray *big = chop_domain(3, 64, 16, 0);
  compare_elementwise(big, BF_DTYPE_DOUBLE, ks[0], 1);
  bf_boxarray_destroy(&big);
}

/* ---- reductions ------------------------------------------------------------------------ */

static void compare_reductions(bf_boxarray *ba, int dtype, int kind) {
  int dim = bf_boxarray_dim(ba);
  pair a = make_pair(ba, 2, 1, dtype, kind, 1), b = make_pair(ba, 2, 1, dtype, kind, 2);
  bf_box region = mkbox(dim, 2, 1, 3, 9, 12, 7, bf_multifab_ixtype(a.h));
  /* periodic over the data's bounding box (a period must fit the data) */
  bf_box all;
  bf_boxarray_minimal_box(ba, &all);
  bf_periodicity per = {dim, {0, 0, 0}};
  for (int d = 0; d < dim; ++d) per.period[d] = (int)bf_box_length(&all, d) - (int)(all.type >> d & 1u);
  for (int comp = 0; comp < 2; ++comp)
    for (int ng = 0; ng < 2; ++ng) {
      bf_intvect g = iv3(dim, ng, ng, ng);
      double rh, rd;
#define CMP(call_h, call_d, exact)                                                                        \
  do {                                                                                                    \
    rh = -1, rd = -2;                                                                                     \
    BFT_OK(call_h);                                                                                       \
    BFT_OK(call_d);                                                                                       \
    bool ok_ = (exact) ? rh == rd : close_to(rd, rh);                                                     \
    if (!ok_) fprintf(stderr, "%s: device %.17g host %.17g (dim %d comp %d ng %d kind %d)\n", #call_d, rd, rh, \
                      dim, comp, ng, kind);                                                               \
    BFT_CHECK(ok_);                                                                                       \
  } while (0)
      bool ints = dtype == BF_DTYPE_INT;
      CMP(bf_multifab_sum(a.h, NULL, comp, false, &rh), bf_multifab_sum(a.d, NULL, comp, false, &rd), ints);
      CMP(bf_multifab_sum(a.h, &region, comp, false, &rh), bf_multifab_sum(a.d, &region, comp, false, &rd), ints);
      CMP(bf_multifab_sum_unique(a.h, NULL, comp, false, NULL, &rh),
          bf_multifab_sum_unique(a.d, NULL, comp, false, NULL, &rd), ints);
      CMP(bf_multifab_sum_unique(a.h, &region, comp, false, &per, &rh),
          bf_multifab_sum_unique(a.d, &region, comp, false, &per, &rd), ints);
      CMP(bf_multifab_norm0(a.h, comp, g, false, &rh), bf_multifab_norm0(a.d, comp, g, false, &rd), true);
      CMP(bf_multifab_norm1(a.h, comp, g, false, &rh), bf_multifab_norm1(a.d, comp, g, false, &rd), ints);
      CMP(bf_multifab_norm1_unique(a.h, comp, &per, &rh), bf_multifab_norm1_unique(a.d, comp, &per, &rd), ints);
      CMP(bf_multifab_norm2(a.h, comp, NULL, &rh), bf_multifab_norm2(a.d, comp, NULL, &rd), false);
      CMP(bf_multifab_norm2(a.h, comp, &per, &rh), bf_multifab_norm2(a.d, comp, &per, &rd), false);
      CMP(bf_multifab_dot(a.h, comp, b.h, 1 - comp, 1, g, false, &rh),
          bf_multifab_dot(a.d, comp, b.d, 1 - comp, 1, g, false, &rd), ints);
      CMP(bf_multifab_dot(a.h, 0, b.h, 0, 2, g, false, &rh), bf_multifab_dot(a.d, 0, b.d, 0, 2, g, false, &rd), ints);
      CMP(bf_multifab_min(a.h, NULL, comp, g, false, &rh), bf_multifab_min(a.d, NULL, comp, g, false, &rd), true);
      CMP(bf_multifab_max(a.h, &region, comp, g, false, &rh), bf_multifab_max(a.d, &region, comp, g, false, &rd),
          true);
      bf_intvect ch, cd;
      BFT_OK(bf_multifab_min_index(a.h, comp, g, &ch));
      BFT_OK(bf_multifab_min_index(a.d, comp, g, &cd));
      BFT_CHECK(bf_intvect_equal(&ch, &cd));
      BFT_OK(bf_multifab_max_index(a.h, comp, g, &ch));
      BFT_OK(bf_multifab_max_index(a.d, comp, g, &cd));
      BFT_CHECK(bf_intvect_equal(&ch, &cd));
      bool nh = true, nd = false;
      BFT_OK(bf_multifab_contains_nan(a.h, 0, 2, g, false, &nh));
      BFT_OK(bf_multifab_contains_nan(a.d, 0, 2, g, false, &nd));
      BFT_CHECK(!nh && !nd);
      BFT_OK(bf_multifab_contains_inf(a.d, 0, 2, g, false, &nd));
      BFT_CHECK(!nd);
#undef CMP
    }
  if (dtype == BF_DTYPE_DOUBLE) {
    /* a NaN and an Inf in a ghost cell of the last fab: seen with ng = 1 only */
    int64_t last = bf_multifab_nlocal(a.h) - 1;
    bf_mf_fab f;
    bf_multifab_local_fab(a.h, last, &f);
    int p[3] = {f.fabbox.hi[0], f.fabbox.hi[1], f.fabbox.hi[2]};
    mf_put(a.h, last, p, 1, NAN);
    int q[3] = {f.fabbox.lo[0], f.fabbox.lo[1], f.fabbox.lo[2]};
    mf_put(a.h, last, q, 0, -INFINITY);
    BFT_OK(bf_gpu_memcpy(mf_data(a.d), mf_data(a.h), mf_bytes(a.h)));
    bool r0 = true, r1 = false;
    BFT_OK(bf_multifab_contains_nan(a.d, 0, 2, iv3(dim, 0, 0, 0), false, &r0));
    BFT_OK(bf_multifab_contains_nan(a.d, 0, 2, iv3(dim, 1, 1, 1), false, &r1));
    BFT_CHECK(!r0 && r1);
    r0 = true, r1 = false;
    BFT_OK(bf_multifab_contains_inf(a.d, 0, 1, iv3(dim, 0, 0, 0), false, &r0));
    BFT_OK(bf_multifab_contains_inf(a.d, 0, 1, iv3(dim, 1, 1, 1), false, &r1));
    BFT_CHECK(!r0 && r1);
  }
  free_pair(&a), free_pair(&b);
}

static void test_reductions(void) {
  int ks[4], nk = kinds(ks);
  unsigned nodal_all = 7;
  for (int dim = 1; dim <= 3; ++dim)
    for (int nodal = 0; nodal < 2; ++nodal) {
      bf_boxarray *ba = irregular(dim, nodal ? nodal_all : 0);
      for (int k = 0; k < nk; ++k)
        for (int dt = 0; dt < 2; ++dt) compare_reductions(ba, dt ? BF_DTYPE_INT : BF_DTYPE_DOUBLE, ks[k]);
      bf_boxarray_destroy(&ba);
    }
  /* many blocks in stage 1 */
  bf_boxarray *big = chop_domain(3, 64, 16, 0);
  compare_reductions(big, BF_DTYPE_DOUBLE, ks[0]);
  compare_reductions(big, BF_DTYPE_INT, ks[0]);
  bf_boxarray_destroy(&big);
}

/* ---- ghost exchange ------------------------------------------------------------------------ */

static void compare_exchange(bf_boxarray *ba, int kind) {
  int dim = bf_boxarray_dim(ba);
  bf_periodicity per = {dim, {16, dim > 1 ? 16 : 0, dim > 2 ? 16 : 0}};
  for (int periodic = 0; periodic < 2; ++periodic) {
    const bf_periodicity *pp = periodic ? &per : NULL;
    for (int cross = 0; cross < 2; ++cross) {
      pair a = make_pair(ba, 3, 2, BF_DTYPE_DOUBLE, kind, 4);
      BFT_OK(bf_multifab_fill_boundary(a.h, 1, 2, iv3(dim, 2, 1, 2), pp, cross));
      BFT_OK(bf_multifab_fill_boundary(a.d, 1, 2, iv3(dim, 2, 1, 2), pp, cross));
      BFT_CHECK(same(&a, "fill_boundary (periodic, cross)", periodic, cross));
      free_pair(&a);
    }
    pair a = make_pair(ba, 2, 2, BF_DTYPE_DOUBLE, kind, 5);
    BFT_OK(bf_multifab_sum_boundary(a.h, 0, 2, iv3(dim, 2, 2, 2), iv3(dim, 1, 1, 1), pp));
    BFT_OK(bf_multifab_sum_boundary(a.d, 0, 2, iv3(dim, 2, 2, 2), iv3(dim, 1, 1, 1), pp));
    BFT_CHECK(same(&a, "sum_boundary (periodic, kind)", periodic, kind));
    free_pair(&a);
    a = make_pair(ba, 2, 1, BF_DTYPE_DOUBLE, kind, 6);
    BFT_OK(bf_multifab_override_sync(a.h, 0, 2, pp));
    BFT_OK(bf_multifab_override_sync(a.d, 0, 2, pp));
    BFT_CHECK(same(&a, "override_sync (periodic, kind)", periodic, kind));
    free_pair(&a);
    a = make_pair(ba, 2, 1, BF_DTYPE_DOUBLE, kind, 7);
    BFT_OK(bf_multifab_average_sync(a.h, 1, 1, pp));
    BFT_OK(bf_multifab_average_sync(a.d, 1, 1, pp));
    BFT_CHECK(same(&a, "average_sync (periodic, kind)", periodic, kind));
    free_pair(&a);
    a = make_pair(ba, 2, 1, BF_DTYPE_INT, kind, 8);
    BFT_OK(bf_multifab_fill_boundary(a.h, 0, 2, iv3(dim, 1, 1, 1), pp, false));
    BFT_OK(bf_multifab_fill_boundary(a.d, 0, 2, iv3(dim, 1, 1, 1), pp, false));
    BFT_CHECK(same(&a, "fill_boundary int (periodic, kind)", periodic, kind));
    free_pair(&a);
  }
}

/* Every ghost layer of a uniform lattice: on the device the x-line kernel with whole rows
 * (src/backend/cuda/xline.cu), in 16-byte pairs for even ghost widths and singly for odd ones. */
static void compare_lattice_fill(int dim, int kind) {
  bf_boxarray *ba = chop_domain(dim, 16, 8, 0);
  bf_periodicity per = {dim, {16, dim > 1 ? 16 : 0, dim > 2 ? 16 : 0}};
  for (int ng = 1; ng <= 3; ++ng)
    for (int periodic = 0; periodic < 2; ++periodic) {
      pair a = make_pair(ba, 3, ng, BF_DTYPE_DOUBLE, kind, 11 + ng);
      BFT_OK(bf_multifab_fill_boundary(a.h, 0, 3, iv3(dim, ng, ng, ng), periodic ? &per : NULL, false));
      BFT_OK(bf_multifab_fill_boundary(a.d, 0, 3, iv3(dim, ng, ng, ng), periodic ? &per : NULL, false));
      BFT_CHECK(same(&a, "fill_boundary of a lattice (ng, periodic)", ng, periodic));
      BFT_OK(bf_multifab_fill_boundary(a.h, 2, 1, iv3(dim, ng, ng, ng), periodic ? &per : NULL, false));
      BFT_OK(bf_multifab_fill_boundary(a.d, 2, 1, iv3(dim, ng, ng, ng), periodic ? &per : NULL, false));
      BFT_CHECK(same(&a, "fill_boundary of a lattice, one component (ng, periodic)", ng, periodic));
      free_pair(&a);
    }
  bf_boxarray_destroy(&ba);
}

static void test_ghost_exchange(void) {
  int ks[4], nk = kinds(ks);
  for (int dim = 1; dim <= 3; ++dim)
    for (int k = 0; k < nk; ++k) compare_lattice_fill(dim, ks[k]);
  for (int dim = 1; dim <= 3; ++dim)
    for (int nodal = 0; nodal < 2; ++nodal)
      for (int which = 0; which < 2; ++which) {
        bf_boxarray *ba = which ? irregular(dim, nodal ? 7u : 0u) : chop_domain(dim, 16, 8, nodal ? 7u : 0u);
        for (int k = 0; k < nk; ++k) compare_exchange(ba, ks[k]);
        bf_boxarray_destroy(&ba);
      }
}

static void test_parallel_copy(void) {
  int ks[4], nk = kinds(ks);
  for (int dim = 1; dim <= 3; ++dim) {
    bf_boxarray *sba = chop_domain(dim, 16, 8, 0), *dba = irregular(dim, 0);
    bf_periodicity per = {dim, {16, 16, 16}};
    for (int k = 0; k < nk; ++k) {
      pair s = make_pair(sba, 2, 1, BF_DTYPE_DOUBLE, ks[k], 9), d = make_pair(dba, 2, 2, BF_DTYPE_DOUBLE, ks[k], 10);
      BFT_OK(bf_multifab_parallel_copy(d.h, s.h, 0, 1, 1, iv3(dim, 1, 1, 1), iv3(dim, 2, 2, 2), &per));
      BFT_OK(bf_multifab_parallel_copy(d.d, s.d, 0, 1, 1, iv3(dim, 1, 1, 1), iv3(dim, 2, 2, 2), &per));
      BFT_CHECK(same(&d, "parallel_copy (dim, kind)", dim, ks[k]));
      BFT_OK(bf_multifab_parallel_add(d.h, s.h, 0, 0, 2, iv3(dim, 0, 0, 0), iv3(dim, 1, 1, 1), NULL));
      BFT_OK(bf_multifab_parallel_add(d.d, s.d, 0, 0, 2, iv3(dim, 0, 0, 0), iv3(dim, 1, 1, 1), NULL));
      BFT_CHECK(same(&d, "parallel_add (dim, kind)", dim, ks[k]));
      free_pair(&s), free_pair(&d);
    }
    bf_boxarray_destroy(&sba), bf_boxarray_destroy(&dba);
  }
}

/* ---- memory ------------------------------------------------------------------------------- */

static void test_arena_flags(void) {
  BFT_CHECK(bf_gpu_available());
  BFT_CHECK(bf_gpu_backend_name() && strcmp(bf_gpu_backend_name(), "CUDA") == 0);
  BFT_CHECK(bf_build_has_cuda());
  BFT_CHECK(bf_gpu_device_count() >= 1);
  BFT_CHECK(bf_gpu_device_id() >= 0);
  BFT_CHECK(bf_gpu_stream() != NULL);
  BFT_CHECK(bf_gpu_stream() == bf_gpu_stream());
  BFT_OK(bf_gpu_synchronize());
  size_t fr = 0, tot = 0;
  BFT_OK(bf_gpu_memory_info(&fr, &tot));
  BFT_CHECK(fr > 0 && tot >= fr);
  struct {
    int kind;
    bool host, devacc, dev, managed, pinned, stream;
  } want[] = {
      {BF_ARENA_DEFAULT, false, true, true, false, false, false}, {BF_ARENA_DEVICE, false, true, true, false, false, false},
      {BF_ARENA_ASYNC, false, true, true, false, false, true},    {BF_ARENA_MANAGED, true, true, false, true, false, false},
      {BF_ARENA_PINNED, true, true, false, false, true, false},   {BF_ARENA_CPU, true, false, false, false, false, false},
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; ++i) {
    bf_arena *a = bf_arena_get(want[i].kind);
    BFT_CHECK(bf_arena_is_host_accessible(a) == want[i].host);
    BFT_CHECK(bf_arena_is_device_accessible(a) == want[i].devacc);
    BFT_CHECK(bf_arena_is_device(a) == want[i].dev);
    BFT_CHECK(bf_arena_is_managed(a) == want[i].managed);
    BFT_CHECK(bf_arena_is_pinned(a) == want[i].pinned);
    BFT_CHECK(bf_arena_is_stream_ordered(a) == want[i].stream);
  }
  bf_arena *dev = bf_arena_get(BF_ARENA_DEFAULT);
  BFT_CHECK(bf_arena_has_free_device_memory(dev, 1));
  BFT_CHECK(!bf_arena_has_free_device_memory(dev, tot + 1));
}

static void test_pool(void) {
  bf_boxarray *ba = chop_domain(3, 32, 8, 0); /* 64 boxes */
  int kk[2] = {BF_ARENA_DEFAULT, BF_ARENA_ASYNC};
  for (int i = 0; i < 2; ++i) {
    bf_arena *ar = bf_arena_get(kk[i]);
    bf_arena_trim(ar);
    int64_t c0 = bf_gpu_debug_alloc_count();
    bf_multifab *mf = mf_on(ba, 2, 1, BF_DTYPE_DOUBLE, kk[i]);
    int64_t c1 = bf_gpu_debug_alloc_count();
    BFT_CHECK(c1 - c0 == 1); /* one block for all 64 boxes */
    bf_multifab_destroy(&mf);
    bf_arena_stats st0, st1;
    bf_arena_get_stats(ar, &st0);
    mf = mf_on(ba, 2, 1, BF_DTYPE_DOUBLE, kk[i]);
    bf_arena_get_stats(ar, &st1);
    BFT_CHECK(bf_gpu_debug_alloc_count() == c1); /* from the pool: no cudaMalloc */
    BFT_CHECK(st1.n_reused == st0.n_reused + 1);
    BFT_OK(bf_multifab_set_val_all(mf, 2.0));
    double s = 0;
    BFT_OK(bf_multifab_sum(mf, NULL, 1, false, &s));
    BFT_CHECK(s == 2.0 * 32 * 32 * 32);
    bf_multifab_destroy(&mf);
    BFT_CHECK(bf_arena_trim(ar) > 0);
  }
  bf_boxarray_destroy(&ba);
}

static void test_managed_limit(void) {
  size_t fr = 0;
  BFT_OK(bf_gpu_memory_info(&fr, NULL));
  int64_t c0 = bf_gpu_debug_alloc_count();
  void *p = NULL;
  BFT_FAILS(bf_arena_alloc(bf_arena_get(BF_ARENA_MANAGED), fr + ((size_t)1 << 30), &p), BF_ERROR_MEMORY);
  BFT_CHECK(p == NULL);
  BFT_CHECK(bf_gpu_debug_alloc_count() == c0);
  /* a small managed block: the host and the device see it */
  BFT_OK(bf_arena_alloc(bf_arena_get(BF_ARENA_MANAGED), 4096, &p));
  if (p) {
    memset(p, 0, 4096);
    BFT_OK(bf_gpu_memcpy(p, "boxfab", 7));
    BFT_CHECK(strcmp(p, "boxfab") == 0);
  }
  bf_arena_free(bf_arena_get(BF_ARENA_MANAGED), p, 4096);
}

static void test_mixed_memory(void) {
  bf_boxarray *ba = chop_domain(2, 16, 8, 0);
  bf_multifab *host = mf_on(ba, 1, 1, BF_DTYPE_DOUBLE, BF_ARENA_CPU);
  bf_multifab *dev = mf_on(ba, 1, 1, BF_DTYPE_DOUBLE, BF_ARENA_DEFAULT);
  BFT_OK(bf_multifab_set_val_all(host, 1.0));
  BFT_OK(bf_multifab_set_val_all(dev, 2.0));
  BFT_FAILS(bf_multifab_copy(dev, host, 0, 0, 1, iv3(2, 0, 0, 0)), BF_ERROR_VALUE);
  BFT_FAILS(bf_multifab_copy(host, dev, 0, 0, 1, iv3(2, 0, 0, 0)), BF_ERROR_VALUE);
  double r;
  BFT_FAILS(bf_multifab_dot(host, 0, dev, 0, 1, iv3(2, 0, 0, 0), false, &r), BF_ERROR_VALUE);
  BFT_FAILS(bf_multifab_parallel_copy(dev, host, 0, 0, 1, iv3(2, 0, 0, 0), iv3(2, 0, 0, 0), NULL), BF_ERROR_VALUE);
  /* pinned memory is reachable from both: pinned -> device runs on the GPU */
  pair p = make_pair(ba, 1, 1, BF_DTYPE_DOUBLE, BF_ARENA_DEFAULT, 11);
  bf_multifab *pinned = mf_on(ba, 1, 1, BF_DTYPE_DOUBLE, BF_ARENA_PINNED);
  fill_pattern(pinned, 12);
  BFT_OK(bf_multifab_copy(p.d, pinned, 0, 0, 1, iv3(2, 1, 1, 1)));
  BFT_OK(bf_multifab_copy(p.h, pinned, 0, 0, 1, iv3(2, 1, 1, 1)));
  BFT_CHECK(same(&p, "pinned -> device copy", 0, 0));
  BFT_OK(bf_multifab_dot(pinned, 0, p.d, 0, 1, iv3(2, 0, 0, 0), false, &r));
  double rh;
  BFT_OK(bf_multifab_dot(pinned, 0, p.h, 0, 1, iv3(2, 0, 0, 0), false, &rh));
  BFT_CHECK(close_to(r, rh));
  free_pair(&p);
  bf_multifab_destroy(&pinned), bf_multifab_destroy(&host), bf_multifab_destroy(&dev);
  bf_boxarray_destroy(&ba);
}

/* BOXFAB_DEVICE=cpu: this program again, in a child process. */
static void test_forced_cpu(void) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    setenv("BOXFAB_DEVICE", "cpu", 1);
    execl("/proc/self/exe", "test_cuda_backend", "--forced-cpu", (char *)NULL);
    _exit(127);
  }
  int status = 0;
  BFT_CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
  BFT_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void test_selftest_cpu(void) { check_cpu_fallback(); }

/* Every MultiFab of the tests is gone: no arena has a live allocation, and
 * trimming returns the pooled blocks (so that compute-sanitizer's leak check
 * reports only memory that was really lost). */
static void test_no_live_allocations(void) {
  bf_plan_cache_clear(); /* plans hold no memory of arenas, but drop them anyway */
  for (int kind = 0; kind < BF_ARENA_NKINDS; ++kind) {
    bf_arena *a = bf_arena_get(kind);
    bf_arena_stats st;
    bf_arena_get_stats(a, &st);
    if (st.n_live != 0) fprintf(stderr, "%s: %lld live allocations\n", bf_arena_name(a), (long long)st.n_live);
    BFT_CHECK(st.n_live == 0);
    bf_arena_trim(a);
    bf_arena_get_stats(a, &st);
    BFT_CHECK(st.bytes_cached == 0);
  }
}

int main(int argc, char **argv) {
  uint64_t id;
  BFT_OK(bf_runtime_initialize(0, NULL, &id));
  if (argc > 1 && strcmp(argv[1], "--forced-cpu") == 0) { /* the child of test_forced_cpu */
    BFT_RUN(test_selftest_cpu);
    return bft_report();
  }
  selftest = argc > 1 && strcmp(argv[1], "--selftest") == 0;
  if (!selftest && !bf_gpu_available()) {
    check_cpu_fallback();
    if (bft_failures) return bft_report();
    printf("skipped: no GPU (the CPU fallback was checked: %d checks)\n", bft_checks);
    return 77;
  }
  if (!selftest) {
    BFT_RUN(test_arena_flags);
    BFT_RUN(test_pool);
    BFT_RUN(test_managed_limit);
    BFT_RUN(test_mixed_memory);
    BFT_RUN(test_forced_cpu);
  }
  BFT_RUN(test_elementwise);
  BFT_RUN(test_reductions);
  BFT_RUN(test_ghost_exchange);
  BFT_RUN(test_parallel_copy);
  BFT_OK(bf_gpu_synchronize());
  BFT_RUN(test_no_live_allocations);
  return bft_report();
}
