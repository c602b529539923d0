/* PODVectors, particle layouts, particle tiles and id counters
 * (include/boxfab/particles.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bftest.h"
#include "boxfab/gpu.h"
#include "boxfab/idcpu.h"
#include "boxfab/particles.h"

static bf_arena *cpu(void) { return bf_arena_get(BF_ARENA_CPU); }

static void test_podvec_growth(void) {
  for (int kind = BF_ARENA_DEFAULT; kind < BF_ARENA_NKINDS; ++kind) {
    bf_podvec *v = NULL;
    BFT_OK(bf_podvec_create(bf_arena_get(kind), BF_POD_REAL, 0, 3, &v));
    BFT_CHECK(bf_podvec_size(v) == 3 && bf_podvec_capacity(v) >= 3 && bf_podvec_elem_size(v) == 8);
    BFT_CHECK(bf_podvec_kind(v) == BF_POD_REAL && bf_podvec_arena(v) == bf_arena_get(kind));
    double x = -1;
    for (int i = 0; i < 3; ++i) {
      BFT_OK(bf_podvec_get(v, i, &x));
      BFT_CHECK(x == 0.0);
    }
    for (int i = 0; i < 1000; ++i) {
      double d = i;
      BFT_OK(bf_podvec_push_back(v, &d));
    }
    BFT_CHECK(bf_podvec_size(v) == 1003);
    BFT_CHECK(bf_podvec_capacity(v) >= 1003 && bf_podvec_capacity(v) < 3000);
    double buf[1003];
    BFT_OK(bf_podvec_read(v, 0, 1003, buf));
    bool ok = buf[0] == 0 && buf[2] == 0;
    for (int i = 0; i < 1000; ++i) ok = ok && buf[3 + i] == i;
    BFT_CHECK(ok);
    double seven = 7;
    BFT_OK(bf_podvec_resize_fill(v, 1010, &seven));
    BFT_OK(bf_podvec_get(v, 1009, &x));
    BFT_CHECK(x == 7);
    BFT_OK(bf_podvec_get(v, 1002, &x));
    BFT_CHECK(x == 999);
    BFT_OK(bf_podvec_resize(v, 2));
    BFT_OK(bf_podvec_resize(v, 4)); /* regrown elements are zero again */
    BFT_OK(bf_podvec_get(v, 3, &x));
    BFT_CHECK(x == 0);
    BFT_OK(bf_podvec_assign(v, &seven));
    BFT_OK(bf_podvec_get(v, 0, &x));
    BFT_CHECK(x == 7);
    BFT_OK(bf_podvec_shrink_to_fit(v));
    BFT_CHECK(bf_podvec_capacity(v) == 4);
    BFT_OK(bf_podvec_pop_back(v));
    BFT_CHECK(bf_podvec_size(v) == 3);
    BFT_OK(bf_podvec_reserve(v, 100));
    BFT_CHECK(bf_podvec_capacity(v) == 100 && bf_podvec_size(v) == 3);
    bf_podvec *c = NULL;
    BFT_OK(bf_podvec_clone(v, cpu(), &c));
    BFT_CHECK(bf_podvec_size(c) == 3 && bf_podvec_arena(c) == cpu() && bf_podvec_data(c) != bf_podvec_data(v));
    BFT_OK(bf_podvec_get(c, 2, &x));
    BFT_CHECK(x == 7);
    BFT_OK(bf_podvec_resize(v, 0));
    BFT_OK(bf_podvec_shrink_to_fit(v));
    BFT_CHECK(bf_podvec_data(v) == NULL && bf_podvec_buffer(v) == NULL && bf_podvec_capacity(v) == 0);
    bf_podvec_destroy(&c);
    bf_podvec_destroy(&v);
    BFT_CHECK(v == NULL);
  }
  bf_podvec_destroy(NULL);
}

static void test_podvec_kinds(void) {
  bf_podvec *i = NULL, *u = NULL, *s = NULL;
  BFT_OK(bf_podvec_create(cpu(), BF_POD_INT, 0, 2, &i));
  BFT_OK(bf_podvec_create(cpu(), BF_POD_UINT64, 0, 2, &u));
  BFT_OK(bf_podvec_create(cpu(), BF_POD_STRUCT, 24, 2, &s));
  BFT_CHECK(bf_podvec_elem_size(i) == 4 && bf_podvec_elem_size(u) == 8 && bf_podvec_elem_size(s) == 24);
  int32_t iv = -5;
  uint64_t uv = UINT64_MAX;
  BFT_OK(bf_podvec_set(i, 1, &iv));
  BFT_OK(bf_podvec_set(u, 0, &uv));
  int32_t ir = 0;
  uint64_t ur = 0;
  BFT_OK(bf_podvec_get(i, 1, &ir));
  BFT_OK(bf_podvec_get(u, 0, &ur));
  BFT_CHECK(ir == -5 && ur == UINT64_MAX && ((int32_t *)bf_podvec_data(i))[1] == -5);
  unsigned char st[24];
  for (int k = 0; k < 24; ++k) st[k] = (unsigned char)k;
  BFT_OK(bf_podvec_push_back(s, st));
  unsigned char back[24] = {0};
  BFT_OK(bf_podvec_get(s, 2, back));
  BFT_CHECK(memcmp(st, back, 24) == 0);
  bf_podvec_destroy(&i);
  bf_podvec_destroy(&u);
  bf_podvec_destroy(&s);
}

/* A view that retained the old buffer keeps reading it after a reallocation. */
static void test_podvec_retained_buffer(void) {
  bf_podvec *v = NULL;
  BFT_OK(bf_podvec_create(cpu(), BF_POD_INT, 0, 4, &v));
  int32_t vals[4] = {1, 2, 3, 4};
  BFT_OK(bf_podvec_write(v, 0, 4, vals));
  bf_buffer *old = bf_buffer_retain(bf_podvec_buffer(v));
  int32_t *oldp = bf_podvec_data(v);
  BFT_CHECK(bf_buffer_data(old) == oldp && bf_buffer_refcount(old) == 2);
  BFT_OK(bf_podvec_reserve(v, 1 << 16)); /* moves */
  BFT_CHECK(bf_podvec_data(v) != oldp && bf_buffer_refcount(old) == 1);
  int32_t nine = 9;
  BFT_OK(bf_podvec_set(v, 0, &nine));
  BFT_CHECK(oldp[0] == 1 && oldp[3] == 4); /* the old storage is intact (ASan: not freed) */
  BFT_CHECK(((int32_t *)bf_podvec_data(v))[0] == 9 && ((int32_t *)bf_podvec_data(v))[3] == 4);
  bf_podvec_destroy(&v);
  BFT_CHECK(oldp[2] == 3); /* still alive after the vector is gone */
  bf_buffer_destroy(&old);
}

static void test_podvec_errors(void) {
  bf_podvec *v = NULL;
  BFT_FAILS(bf_podvec_create(cpu(), 7, 0, 1, &v), BF_ERROR_VALUE);
  BFT_FAILS(bf_podvec_create(cpu(), BF_POD_STRUCT, 12, 1, &v), BF_ERROR_VALUE);
  BFT_FAILS(bf_podvec_create(cpu(), BF_POD_STRUCT, 0, 1, &v), BF_ERROR_VALUE);
  BFT_FAILS(bf_podvec_create(cpu(), BF_POD_REAL, 0, -1, &v), BF_ERROR_VALUE);
  BFT_FAILS(bf_podvec_create(cpu(), BF_POD_REAL, 0, 1, NULL), BF_ERROR_VALUE);
  BFT_OK(bf_podvec_create(NULL, BF_POD_REAL, 0, 0, &v));
  BFT_CHECK(bf_podvec_arena(v) == bf_arena_get(BF_ARENA_DEFAULT) && bf_podvec_data(v) == NULL);
  double x = 0;
  BFT_FAILS(bf_podvec_pop_back(v), BF_ERROR_INDEX);
  BFT_FAILS(bf_podvec_get(v, 0, &x), BF_ERROR_INDEX);
  BFT_FAILS(bf_podvec_set(v, -1, &x), BF_ERROR_INDEX);
  BFT_FAILS(bf_podvec_resize(v, -3), BF_ERROR_VALUE);
  BFT_FAILS(bf_podvec_reserve(v, -3), BF_ERROR_VALUE);
  BFT_FAILS(bf_podvec_reserve(v, INT64_MAX / 4), BF_ERROR_OVERFLOW);
  BFT_FAILS(bf_podvec_resize(v, INT64_MAX), BF_ERROR_OVERFLOW);
  BFT_CHECK(bf_podvec_size(v) == 0 && bf_podvec_capacity(v) == 0);
  BFT_OK(bf_podvec_resize(v, 5));
  BFT_FAILS(bf_podvec_read(v, 3, 3, &x), BF_ERROR_INDEX);
  BFT_FAILS(bf_podvec_write(v, 6, 0, &x), BF_ERROR_INDEX);
  BFT_FAILS(bf_podvec_read(v, 0, -1, &x), BF_ERROR_VALUE);
  BFT_FAILS(bf_podvec_get(v, 5, &x), BF_ERROR_INDEX);
  BFT_OK(bf_podvec_read(v, 5, 0, NULL));
  bf_podvec_destroy(&v);
}

/* bf_podvec_copy between every pair of memory kinds, overlapping ranges of one vector (as memmove),
 * bf_podvec_write_device and bf_podvec_resize_uninit; a brute-force host reference. */
static void test_podvec_copies(void) {
  enum { N = 37 };
  int64_t ref[N], got[N];
  for (int s = BF_ARENA_DEFAULT; s < BF_ARENA_NKINDS; ++s)
    for (int d = BF_ARENA_DEFAULT; d < BF_ARENA_NKINDS; ++d) {
      bf_podvec *src = NULL, *dst = NULL;
      BFT_OK(bf_podvec_create(bf_arena_get(s), BF_POD_UINT64, 0, N, &src));
      BFT_OK(bf_podvec_create(bf_arena_get(d), BF_POD_UINT64, 0, 0, &dst));
      BFT_OK(bf_podvec_resize_uninit(dst, N));
      BFT_CHECK(bf_podvec_size(dst) == N);
      for (int i = 0; i < N; ++i) ref[i] = (int64_t)(0x8000000000000000ULL | (uint64_t)(i * 977));
      BFT_OK(bf_podvec_write(src, 0, N, ref));
      BFT_OK(bf_podvec_write(dst, 0, N, ref));
      /* dst[5, 25) = src[10, 30) */
      BFT_OK(bf_podvec_copy(dst, 5, src, 10, 20));
      int64_t want[N];
      memcpy(want, ref, sizeof want);
      memmove(want + 5, ref + 10, 20 * sizeof(int64_t));
      BFT_OK(bf_podvec_read(dst, 0, N, got));
      BFT_CHECK(memcmp(got, want, sizeof got) == 0);
      /* overlapping, both directions, within one vector */
      BFT_OK(bf_podvec_copy(dst, 3, dst, 0, 30));
      memmove(want + 3, want, 30 * sizeof(int64_t));
      BFT_OK(bf_podvec_copy(dst, 0, dst, 2, 33));
      memmove(want, want + 2, 33 * sizeof(int64_t));
      BFT_OK(bf_podvec_read(dst, 0, N, got));
      BFT_CHECK(memcmp(got, want, sizeof got) == 0);
      /* write_device from host memory (without a GPU the host copy; with one cudaMemcpyDefault) */
      BFT_OK(bf_podvec_write_device(dst, 1, 2, ref));
      BFT_OK(bf_podvec_read(dst, 1, 2, got));
      BFT_CHECK(got[0] == ref[0] && got[1] == ref[1]);
      /* refused: out of range (nothing written), another element type */
      BFT_FAILS(bf_podvec_copy(dst, 30, src, 0, 8), BF_ERROR_INDEX);
      BFT_FAILS(bf_podvec_copy(dst, 0, src, 30, 8), BF_ERROR_INDEX);
      BFT_FAILS(bf_podvec_copy(dst, -1, src, 0, 1), BF_ERROR_INDEX);
      BFT_FAILS(bf_podvec_copy(dst, 0, NULL, 0, 1), BF_ERROR_VALUE);
      BFT_FAILS(bf_podvec_write_device(dst, N, 1, ref), BF_ERROR_INDEX);
      bf_podvec *other = NULL;
      BFT_OK(bf_podvec_create(bf_arena_get(d), BF_POD_REAL, 0, N, &other));
      BFT_FAILS(bf_podvec_copy(other, 0, src, 0, 1), BF_ERROR_TYPE);
      BFT_FAILS(bf_podvec_resize_uninit(other, -1), BF_ERROR_VALUE);
      BFT_OK(bf_podvec_read(dst, 0, N, got));
      want[1] = ref[0], want[2] = ref[1];
      BFT_CHECK(memcmp(got, want, sizeof got) == 0);
      bf_podvec_destroy(&other);
      bf_podvec_destroy(&src);
      bf_podvec_destroy(&dst);
    }
}

static void test_playout(void) {
  /* AMReX's Particle<NR, NI>: pos[dim], rdata[NR], idcpu, idata[NI], rounded to 8 */
  for (int dim = 1; dim <= 3; ++dim) {
    bf_playout l = {dim, false, 2, 1, 3, 1};
    BFT_OK(bf_playout_check(&l));
    BFT_CHECK(bf_playout_idcpu_offset(&l) == 8u * (unsigned)(dim + 2));
    BFT_CHECK(bf_playout_idata_offset(&l) == 8u * (unsigned)(dim + 2) + 8);
    BFT_CHECK(bf_playout_struct_size(&l) == 8u * (unsigned)(dim + 2) + 16); /* 4 bytes of int, 4 of padding */
    bf_playout l16 = {dim, false, 16, 4, 0, 0};
    BFT_CHECK(bf_playout_struct_size(&l16) == 8u * (unsigned)(dim + 16) + 8 + 16);
    bf_playout l00 = {dim, false, 0, 0, 0, 0};
    BFT_CHECK(bf_playout_struct_size(&l00) == 8u * (unsigned)dim + 8);
    bf_playout p = {dim, true, 0, 0, dim + 5, 0};
    BFT_OK(bf_playout_check(&p));
    BFT_CHECK(bf_playout_struct_size(&p) == 0);
  }
  bf_playout bad[] = {{0, false, 0, 0, 0, 0}, {4, false, 0, 0, 0, 0}, {3, true, 1, 0, 3, 0},
                      {3, true, 0, 0, 2, 0},  {3, false, -1, 0, 0, 0}, {3, false, 0, 0, 2000, 0}};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) BFT_FAILS(bf_playout_check(&bad[k]), BF_ERROR_VALUE);
  BFT_FAILS(bf_playout_check(NULL), BF_ERROR_VALUE);
}

static void test_tile_names(void) {
  bf_playout p = {3, true, 0, 0, 8, 0};
  bf_ptile *t = NULL;
  BFT_OK(bf_ptile_create(&p, 0, 0, cpu(), &t));
  const char *want[] = {"x", "y", "z", "a", "b", "c", "d", "e"};
  for (int c = 0; c < 8; ++c) BFT_CHECK(strcmp(bf_ptile_real_comp_name(t, c), want[c]) == 0);
  BFT_CHECK(bf_ptile_real_comp_name(t, 8) == NULL && bf_ptile_real_comp_name(t, -1) == NULL);
  BFT_CHECK(bf_ptile_num_real_comps(t) == 8 && bf_ptile_num_int_comps(t) == 0);
  const char *rn[] = {"w", NULL};
  BFT_OK(bf_ptile_add_comps(t, 2, rn, 2, NULL));
  BFT_CHECK(strcmp(bf_ptile_real_comp_name(t, 8), "w") == 0 && strcmp(bf_ptile_real_comp_name(t, 9), "g") == 0);
  BFT_CHECK(strcmp(bf_ptile_int_comp_name(t, 0), "i0") == 0 && strcmp(bf_ptile_int_comp_name(t, 1), "i1") == 0);
  BFT_CHECK(bf_ptile_num_runtime_real_comps(t) == 2 && bf_ptile_num_runtime_int_comps(t) == 2);
  /* duplicates: nothing changes */
  const char *dup[] = {"x"};
  BFT_FAILS(bf_ptile_add_comps(t, 1, dup, 0, NULL), BF_ERROR_VALUE);
  const char *dup2[] = {"q", "q"};
  BFT_FAILS(bf_ptile_add_comps(t, 2, dup2, 0, NULL), BF_ERROR_VALUE);
  const char *idup[] = {"i1"};
  const char *fine[] = {"fine"};
  BFT_FAILS(bf_ptile_add_comps(t, 1, fine, 1, idup), BF_ERROR_VALUE);
  const char *empty[] = {""};
  BFT_FAILS(bf_ptile_add_comps(t, 1, empty, 0, NULL), BF_ERROR_VALUE);
  BFT_FAILS(bf_ptile_add_comps(t, -1, NULL, 0, NULL), BF_ERROR_VALUE);
  BFT_CHECK(bf_ptile_num_real_comps(t) == 10 && bf_ptile_num_int_comps(t) == 2);
  BFT_OK(bf_ptile_set_real_comp_name(t, 3, "weight"));
  BFT_CHECK(strcmp(bf_ptile_real_comp_name(t, 3), "weight") == 0);
  BFT_OK(bf_ptile_set_real_comp_name(t, 3, "weight")); /* its own name again */
  BFT_FAILS(bf_ptile_set_real_comp_name(t, 4, "weight"), BF_ERROR_VALUE);
  BFT_FAILS(bf_ptile_set_real_comp_name(t, 10, "zz"), BF_ERROR_INDEX);
  BFT_FAILS(bf_ptile_set_int_comp_name(t, 0, "i1"), BF_ERROR_VALUE);
  BFT_FAILS(bf_ptile_set_int_comp_name(t, 0, ""), BF_ERROR_VALUE);
  BFT_OK(bf_ptile_set_int_comp_name(t, 0, "species"));
  BFT_CHECK(strcmp(bf_ptile_int_comp_name(t, 0), "species") == 0);
  /* rename several at once: a swap of names is fine, a duplicate changes nothing */
  const char *sw[] = {"y", "x"};
  BFT_OK(bf_ptile_rename_comps(t, 2, sw, 0, NULL));
  BFT_CHECK(strcmp(bf_ptile_real_comp_name(t, 0), "y") == 0 && strcmp(bf_ptile_real_comp_name(t, 1), "x") == 0);
  const char *keep[] = {NULL, "u"};
  BFT_OK(bf_ptile_rename_comps(t, 2, keep, 0, NULL));
  BFT_CHECK(strcmp(bf_ptile_real_comp_name(t, 0), "y") == 0 && strcmp(bf_ptile_real_comp_name(t, 1), "u") == 0);
  const char *clash[] = {"z"};
  BFT_FAILS(bf_ptile_rename_comps(t, 1, clash, 0, NULL), BF_ERROR_VALUE);
  const char *iclash[] = {"i1"};
  BFT_FAILS(bf_ptile_rename_comps(t, 1, sw, 1, iclash), BF_ERROR_VALUE);
  BFT_CHECK(strcmp(bf_ptile_real_comp_name(t, 0), "y") == 0); /* unchanged by the int failure */
  BFT_FAILS(bf_ptile_rename_comps(t, 11, sw, 0, NULL), BF_ERROR_INDEX);
  BFT_FAILS(bf_ptile_rename_comps(t, 1, empty, 0, NULL), BF_ERROR_VALUE);
  bf_ptile_destroy(&t);

  /* legacy: a, b, ... ; beyond w: r0, r1, ... */
  bf_playout l = {2, false, 2, 1, 3, 1};
  BFT_OK(bf_ptile_create(&l, 22, 0, cpu(), &t));
  BFT_CHECK(strcmp(bf_ptile_real_comp_name(t, 0), "a") == 0 && strcmp(bf_ptile_real_comp_name(t, 22), "w") == 0);
  BFT_CHECK(strcmp(bf_ptile_real_comp_name(t, 23), "r0") == 0 && strcmp(bf_ptile_real_comp_name(t, 24), "r1") == 0);
  BFT_CHECK(bf_ptile_aos(t) != NULL && bf_ptile_idcpu(t) == NULL);
  bf_ptile_destroy(&t);
}

/* Fill a super particle of tile t with values derived from k. */
static void make_particle(const bf_ptile *t, int64_t k, bf_superparticle *p, double *r, int32_t *in) {
  p->nreal = bf_ptile_super_nreal(t);
  p->nint = bf_ptile_super_nint(t);
  p->real = r;
  p->ints = in;
  int dim = bf_ptile_layout(t)->dim;
  memset(p->pos, 0, sizeof p->pos);
  for (int d = 0; d < dim; ++d) p->pos[d] = 0.5 + (double)k + 0.25 * d;
  for (int c = 0; c < p->nreal; ++c) r[c] = 1000.0 * (double)k + c + 0.125;
  for (int c = 0; c < p->nint; ++c) in[c] = (int32_t)(-100 * k - c);
  uint64_t idcpu = 0;
  (void)bf_idcpu_pack(k + 1, 0, &idcpu);
  p->idcpu = idcpu;
}

static void check_round_trip(const bf_playout *l, int nrr, int nri) {
  bf_ptile *t = NULL;
  BFT_OK(bf_ptile_create(l, nrr, nri, cpu(), &t));
  int nr = bf_ptile_super_nreal(t), ni = bf_ptile_super_nint(t);
  BFT_CHECK(nr == l->nsr + l->nar + nrr - (l->pure_soa ? l->dim : 0));
  BFT_CHECK(ni == l->nsi + l->nai + nri);
  double r[64], r2[64];
  int32_t in[64], in2[64];
  bf_superparticle p, q;
  const int64_t n = 100;
  for (int64_t k = 0; k < n; ++k) {
    make_particle(t, k, &p, r, in);
    BFT_OK(bf_ptile_push_back(t, &p));
  }
  BFT_CHECK(bf_ptile_size(t) == n && bf_ptile_capacity(t) >= n);
  BFT_OK(bf_ptile_check_consistent(t));
  bool ok = true;
  for (int64_t k = 0; k < n; ++k) {
    make_particle(t, k, &p, r, in);
    q.nreal = nr;
    q.nint = ni;
    q.real = r2;
    q.ints = in2;
    BFT_OK(bf_ptile_get_particle(t, k, &q));
    ok = ok && q.idcpu == p.idcpu && memcmp(q.pos, p.pos, sizeof p.pos) == 0;
    ok = ok && (nr == 0 || memcmp(r, r2, sizeof(double) * (size_t)nr) == 0);
    ok = ok && (ni == 0 || memcmp(in, in2, sizeof(int32_t) * (size_t)ni) == 0);
  }
  BFT_CHECK(ok);
  /* where the data sit: positions / idcpu in the struct (legacy) or the SoA (pure) */
  make_particle(t, 7, &p, r, in);
  if (l->pure_soa) {
    BFT_CHECK(((double *)bf_podvec_data(bf_ptile_real(t, 0)))[7] == p.pos[0]);
    BFT_CHECK(((uint64_t *)bf_podvec_data(bf_ptile_idcpu(t)))[7] == p.idcpu);
    if (bf_ptile_num_real_comps(t) > l->dim)
      BFT_CHECK(((double *)bf_podvec_data(bf_ptile_real(t, l->dim)))[7] == r[0]);
  } else {
    const char *s = (const char *)bf_podvec_data(bf_ptile_aos(t)) + 7 * bf_playout_struct_size(l);
    double x0;
    uint64_t id;
    memcpy(&x0, s, 8);
    memcpy(&id, s + bf_playout_idcpu_offset(l), 8);
    BFT_CHECK(x0 == p.pos[0] && id == p.idcpu);
    if (l->nsr) {
      double r0;
      memcpy(&r0, s + 8 * l->dim, 8);
      BFT_CHECK(r0 == r[0]);
    }
    if (l->nsi) {
      int32_t i0;
      memcpy(&i0, s + bf_playout_idata_offset(l), 4);
      BFT_CHECK(i0 == in[0]);
    }
    if (bf_ptile_num_real_comps(t) > 0)
      BFT_CHECK(((double *)bf_podvec_data(bf_ptile_real(t, 0)))[7] == r[l->nsr]);
  }
  /* set_particle overwrites one particle */
  make_particle(t, 555, &p, r, in);
  BFT_OK(bf_ptile_set_particle(t, 3, &p));
  q.real = r2;
  q.ints = in2;
  BFT_OK(bf_ptile_get_particle(t, 3, &q));
  BFT_CHECK(q.idcpu == p.idcpu && q.pos[0] == p.pos[0] && (nr == 0 || r2[nr - 1] == r[nr - 1]));
  /* errors */
  BFT_FAILS(bf_ptile_get_particle(t, n, &q), BF_ERROR_INDEX);
  BFT_FAILS(bf_ptile_set_particle(t, -1, &p), BF_ERROR_INDEX);
  q.nreal = nr + 1;
  BFT_FAILS(bf_ptile_get_particle(t, 0, &q), BF_ERROR_VALUE);
  BFT_FAILS(bf_ptile_push_back(t, &q), BF_ERROR_VALUE);
  BFT_CHECK(bf_ptile_size(t) == n);
  /* run-time components added after particles exist start at 0 */
  BFT_OK(bf_ptile_add_comps(t, 1, NULL, 1, NULL));
  BFT_OK(bf_ptile_check_consistent(t));
  double rr[66];
  int32_t ii[66];
  q.nreal = nr + 1;
  q.nint = ni + 1;
  q.real = rr;
  q.ints = ii;
  BFT_OK(bf_ptile_get_particle(t, 10, &q));
  BFT_CHECK(rr[nr] == 0.0 && ii[ni] == 0);
  bf_ptile_destroy(&t);
}

static void test_tile_round_trips(void) {
  for (int dim = 1; dim <= 3; ++dim) {
    bf_playout legacy = {dim, false, 2, 1, 3, 1};
    bf_playout legacy16 = {dim, false, 16, 4, 0, 0};
    bf_playout pure = {dim, true, 0, 0, dim + 5, 0};
    bf_playout pure_min = {dim, true, 0, 0, dim, 0};
    check_round_trip(&legacy, 0, 0);
    check_round_trip(&legacy, 2, 3);
    check_round_trip(&legacy16, 0, 0);
    check_round_trip(&pure, 0, 0);
    check_round_trip(&pure, 3, 2);
    check_round_trip(&pure_min, 0, 0);
  }
}

static void test_tile_ops(void) {
  bf_playout l = {3, false, 2, 1, 3, 1};
  bf_ptile *a = NULL, *b = NULL;
  BFT_OK(bf_ptile_create(&l, 1, 0, cpu(), &a));
  BFT_OK(bf_ptile_create(&l, 1, 0, cpu(), &b));
  double r[16];
  int32_t in[16];
  bf_superparticle p;
  for (int k = 0; k < 5; ++k) {
    make_particle(a, k, &p, r, in);
    BFT_OK(bf_ptile_push_back(a, &p));
  }
  for (int k = 0; k < 3; ++k) {
    make_particle(b, 100 + k, &p, r, in);
    BFT_OK(bf_ptile_push_back(b, &p));
  }
  bf_podvec *ra = bf_ptile_real(a, 0);
  BFT_OK(bf_ptile_swap(a, b));
  BFT_CHECK(bf_ptile_size(a) == 3 && bf_ptile_size(b) == 5);
  BFT_CHECK(bf_ptile_real(a, 0) == ra && bf_podvec_size(ra) == 3); /* handles stay the tile's vectors */
  BFT_OK(bf_ptile_append(a, b));
  BFT_CHECK(bf_ptile_size(a) == 8);
  bf_superparticle q = {.nreal = bf_ptile_super_nreal(a), .nint = bf_ptile_super_nint(a), .real = r, .ints = in};
  BFT_OK(bf_ptile_get_particle(a, 3, &q));
  BFT_CHECK(bf_idcpu_id(q.idcpu) == 1 && q.pos[0] == 0.5);
  BFT_OK(bf_ptile_get_particle(a, 2, &q));
  BFT_CHECK(bf_idcpu_id(q.idcpu) == 103);
  BFT_OK(bf_ptile_append(a, a)); /* with itself */
  BFT_CHECK(bf_ptile_size(a) == 16);
  BFT_OK(bf_ptile_get_particle(a, 11, &q));
  BFT_CHECK(bf_idcpu_id(q.idcpu) == 1);
  /* neighbours */
  BFT_OK(bf_ptile_set_num_neighbors(a, 4));
  BFT_CHECK(bf_ptile_num_neighbors(a) == 4 && bf_ptile_size(a) == 20);
  BFT_OK(bf_ptile_set_num_neighbors(a, 0));
  BFT_CHECK(bf_ptile_size(a) == 16);
  BFT_FAILS(bf_ptile_set_num_neighbors(a, -1), BF_ERROR_VALUE);
  /* resize, reserve, shrink */
  BFT_OK(bf_ptile_reserve(a, 1000));
  BFT_CHECK(bf_ptile_capacity(a) == 1000 && bf_podvec_capacity(bf_ptile_int(a, 0)) >= 1000);
  BFT_OK(bf_ptile_resize(a, 30));
  BFT_CHECK(bf_ptile_size(a) == 30 && bf_podvec_size(bf_ptile_real(a, 3)) == 30);
  BFT_OK(bf_ptile_shrink_to_fit(a));
  BFT_CHECK(bf_ptile_capacity(a) == 30);
  BFT_FAILS(bf_ptile_resize(a, -1), BF_ERROR_VALUE);
  BFT_FAILS(bf_ptile_reserve(a, -1), BF_ERROR_VALUE);
  /* inconsistent: a user resized one vector */
  BFT_OK(bf_podvec_resize(bf_ptile_real(a, 2), 7));
  bf_error_clear();
  BFT_FAILS(bf_ptile_check_consistent(a), BF_ERROR_VALUE);
  BFT_OK(bf_ptile_check_consistent(b));
  make_particle(a, 1, &p, r, in);
  BFT_FAILS(bf_ptile_push_back(a, &p), BF_ERROR_VALUE);
  BFT_FAILS(bf_ptile_append(b, a), BF_ERROR_VALUE);
  BFT_OK(bf_ptile_resize(a, 30));
  BFT_OK(bf_ptile_check_consistent(a));
  /* different layouts / components */
  bf_ptile *c = NULL, *d = NULL;
  BFT_OK(bf_ptile_create(&l, 0, 0, cpu(), &c));
  BFT_FAILS(bf_ptile_swap(a, c), BF_ERROR_VALUE);
  BFT_FAILS(bf_ptile_append(a, c), BF_ERROR_VALUE);
  bf_playout pl = {3, true, 0, 0, 3, 1};
  BFT_OK(bf_ptile_create(&pl, 1, 0, cpu(), &d));
  BFT_FAILS(bf_ptile_swap(a, d), BF_ERROR_VALUE);
  BFT_OK(bf_ptile_swap(a, a));
  BFT_FAILS(bf_ptile_create(&l, -1, 0, cpu(), &c), BF_ERROR_VALUE);
  bf_playout bad = {3, true, 0, 0, 2, 0};
  BFT_FAILS(bf_ptile_create(&bad, 0, 0, cpu(), &c), BF_ERROR_VALUE);
  BFT_CHECK(c != NULL); /* untouched on failure */
  bf_ptile_destroy(&a);
  bf_ptile_destroy(&b);
  bf_ptile_destroy(&c);
  bf_ptile_destroy(&d);
}

/* A retained vector of a tile outlives the tile. */
static void test_tile_lifetime(void) {
  bf_playout l = {2, true, 0, 0, 2, 1};
  bf_ptile *t = NULL;
  BFT_OK(bf_ptile_create(&l, 0, 0, NULL, &t));
  BFT_CHECK(bf_ptile_arena(t) == bf_arena_get(BF_ARENA_DEFAULT));
  BFT_OK(bf_ptile_resize(t, 10));
  bf_podvec *x = bf_podvec_retain(bf_ptile_real(t, 0));
  bf_buffer *buf = bf_buffer_retain(bf_podvec_buffer(bf_ptile_int(t, 0)));
  bf_ptile *t2 = bf_ptile_retain(t);
  bf_ptile_destroy(&t);
  BFT_CHECK(bf_ptile_size(t2) == 10);
  bf_ptile_destroy(&t2);
  BFT_CHECK(bf_podvec_size(x) == 10);
  double v = 3;
  BFT_OK(bf_podvec_set(x, 9, &v));
  int32_t old9 = -1; /* the old storage is in The_Arena: device memory on a GPU, read through the runtime */
  BFT_OK(bf_gpu_memcpy(&old9, (const int32_t *)bf_buffer_data(buf) + 9, sizeof old9));
  BFT_CHECK(old9 == 0);
  bf_podvec_destroy(&x);
  bf_buffer_destroy(&buf);
}

static void test_next_id(void) {
  int64_t first = 0;
  BFT_OK(bf_particle_next_id(200, 0, &first));
  BFT_CHECK(first == 1);
  BFT_OK(bf_particle_next_id(200, 5, &first));
  BFT_CHECK(first == 1);
  BFT_OK(bf_particle_next_id(200, 1, &first));
  BFT_CHECK(first == 6);
  BFT_OK(bf_particle_next_id(201, 1, &first)); /* families are independent */
  BFT_CHECK(first == 1);
  BFT_OK(bf_particle_set_next_id(200, 42));
  BFT_OK(bf_particle_next_id(200, 1, &first));
  BFT_CHECK(first == 42);
  BFT_OK(bf_particle_set_next_id(200, BF_IDCPU_MAX_ID));
  BFT_OK(bf_particle_next_id(200, 1, &first));
  BFT_CHECK(first == BF_IDCPU_MAX_ID);
  BFT_FAILS(bf_particle_next_id(200, 1, &first), BF_ERROR_OVERFLOW);
  BFT_OK(bf_particle_set_next_id(200, 1));
  BFT_FAILS(bf_particle_next_id(200, BF_IDCPU_MAX_ID + 1, &first), BF_ERROR_OVERFLOW);
  BFT_OK(bf_particle_next_id(200, 1, &first)); /* unchanged by the failure */
  BFT_CHECK(first == 1);
  BFT_FAILS(bf_particle_next_id(-1, 1, &first), BF_ERROR_INDEX);
  BFT_FAILS(bf_particle_next_id(100000, 1, &first), BF_ERROR_INDEX);
  BFT_FAILS(bf_particle_next_id(200, -1, &first), BF_ERROR_VALUE);
  BFT_FAILS(bf_particle_set_next_id(200, 0), BF_ERROR_OVERFLOW);
  BFT_FAILS(bf_particle_set_next_id(200, BF_IDCPU_MAX_ID + 2), BF_ERROR_OVERFLOW);
}

int main(void) {
  BFT_RUN(test_podvec_growth);
  BFT_RUN(test_podvec_kinds);
  BFT_RUN(test_podvec_retained_buffer);
  BFT_RUN(test_podvec_errors);
  BFT_RUN(test_podvec_copies);
  BFT_RUN(test_playout);
  BFT_RUN(test_tile_names);
  BFT_RUN(test_tile_round_trips);
  BFT_RUN(test_tile_ops);
  BFT_RUN(test_tile_lifetime);
  BFT_RUN(test_next_id);
  return bft_report();
}
