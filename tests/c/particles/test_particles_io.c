/* Particle files (src/core/particles/io.c): write -> restart round trips for
 * pure SoA and legacy layouts on two levels (plotfile and checkpoint
 * formats), the particles compared one by one (sorted by id); invalid
 * particles are not written; malformed files give BF_ERROR_VALUE /
 * BF_ERROR_IO and leave the container unchanged; random bytes never crash. */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <math.h>

#include "boxfab/idcpu.h"
#include "boxfab/particles.h"
#include "mftest.h"

static char tmpdir[256];

static int rm1(const char *p, const struct stat *s, int f, struct FTW *w) {
  (void)s, (void)f, (void)w;
  return remove(p);
}

static bf_pc *make(int dim, bool legacy, int nlev) {
  bf_playout lay = legacy ? (bf_playout){dim, false, 2, 1, 3, 1} : (bf_playout){dim, true, 0, 0, dim + 2, 1};
  bf_pc *pc = NULL;
  BFT_OK(bf_pc_create(&lay, NULL, &pc));
  bf_geometry geoms[2];
  bf_boxarray *bas[2] = {NULL, NULL};
  bf_distmap *dms[2] = {NULL, NULL};
  int per[3] = {1, 1, 1};
  bf_realbox rb;
  double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  bf_realbox_define(dim, lo, hi, &rb);
  bf_box dom = mkbox(dim, 0, 0, 0, 15, 15, 15, 0);
  BFT_OK(bf_geometry_define(&dom, &rb, 0, per, &geoms[0]));
  bas[0] = chop_domain(dim, 16, 8, 0);
  dms[0] = dm_for(bas[0]);
  int ratio[3] = {2, 2, 2};
  if (nlev == 2) {
    bf_box fdom = mkbox(dim, 0, 0, 0, 31, 31, 31, 0);
    BFT_OK(bf_geometry_define(&fdom, &rb, 0, per, &geoms[1]));
    bf_box fb[1] = {mkbox(dim, 8, 8, 8, 23, 23, 23, 0)};
    BFT_OK(bf_boxarray_create_from_boxes(dim, 1, fb, &bas[1]));
    dms[1] = dm_for(bas[1]);
  }
  BFT_OK(bf_pc_define(pc, nlev, geoms, bas, dms, ratio));
  for (int l = 0; l < nlev; ++l) bf_boxarray_destroy(&bas[l]), bf_distmap_destroy(&dms[l]);
  BFT_OK(bf_pc_add_real_comp(pc, "rt", true));
  BFT_OK(bf_pc_add_int_comp(pc, "it", true));
  return pc;
}

typedef struct {
  int64_t id;
  double v[16];
  int32_t iv[8];
} prec;

static int cmp_prec(const void *a, const void *b) {
  int64_t x = ((const prec *)a)->id, y = ((const prec *)b)->id;
  return (x > y) - (x < y);
}

/* Every particle (any layout) through bf_ptile_get_particle, sorted by id. */
static prec *all(bf_pc *pc, int64_t *n) {
  int64_t total = 0;
  BFT_OK(bf_pc_total_num_particles(pc, false, true, &total));
  prec *r = calloc((size_t)total + 1, sizeof *r);
  int64_t m = 0;
  for (int lev = 0; lev < bf_pc_num_levels(pc); ++lev) {
    int64_t nt = 0;
    BFT_OK(bf_pc_tiles(pc, lev, false, NULL, 0, &nt));
    bf_pc_tileref *refs = calloc((size_t)nt + 1, sizeof *refs);
    BFT_OK(bf_pc_tiles(pc, lev, false, refs, nt, &nt));
    for (int64_t k = 0; k < nt; ++k) {
      bf_ptile *t = refs[k].ptile;
      for (int64_t i = 0; i < bf_ptile_size(t) && m < total; ++i, ++m) {
        double re[16];
        int32_t in[8];
        bf_superparticle sp = {{0}, 0, bf_ptile_super_nreal(t), bf_ptile_super_nint(t), re, in};
        BFT_OK(bf_ptile_get_particle(t, i, &sp));
        r[m].id = bf_idcpu_id(sp.idcpu);
        for (int d = 0; d < 3; ++d) r[m].v[d] = sp.pos[d];
        for (int c = 0; c < sp.nreal && c < 13; ++c) r[m].v[3 + c] = re[c];
        for (int c = 0; c < sp.nint && c < 7; ++c) r[m].iv[c] = in[c];
        r[m].iv[7] = bf_idcpu_cpu(sp.idcpu);
      }
    }
    free(refs);
  }
  qsort(r, (size_t)m, sizeof *r, cmp_prec);
  *n = m;
  return r;
}

static void fill(bf_pc *pc, int dim, int64_t n) {
  const bf_playout *L = bf_pc_layout(pc);
  int nreal = bf_pc_num_real_comps(pc) - (L->pure_soa ? dim : 0), nint = bf_pc_num_int_comps(pc);
  double *x[3], *re[8], *rs[2];
  int32_t *in[4], *is[1];
  for (int d = 0; d < dim; ++d) x[d] = malloc((size_t)n * sizeof(double));
  for (int c = 0; c < nreal; ++c) re[c] = malloc((size_t)n * sizeof(double));
  for (int c = 0; c < nint; ++c) in[c] = malloc((size_t)n * sizeof(int32_t));
  for (int c = 0; c < 2; ++c) rs[c] = malloc((size_t)n * sizeof(double));
  is[0] = malloc((size_t)n * sizeof(int32_t));
  for (int64_t i = 0; i < n; ++i) {
    for (int d = 0; d < dim; ++d) x[d][i] = fmod(0.123 * (double)i * (d + 1) + 0.01 * d, 1.0);
    for (int c = 0; c < nreal; ++c) re[c][i] = 1.5 * (double)i - c;
    for (int c = 0; c < nint; ++c) in[c][i] = (int32_t)(7 * i - c);
    rs[0][i] = -(double)i, rs[1][i] = 0.25 * (double)i;
    is[0][i] = (int32_t)(3 - i);
  }
  bf_pcolumns cols;
  memset(&cols, 0, sizeof cols);
  cols.n = n;
  for (int d = 0; d < dim; ++d) cols.pos[d] = x[d];
  cols.real = (const double *const *)re;
  cols.ints = (const int32_t *const *)in;
  if (!L->pure_soa) cols.real_struct = (const double *const *)rs, cols.int_struct = (const int32_t *const *)is;
  BFT_OK(bf_pc_add_columns(pc, 0, &cols, true));
  BFT_OK(bf_pc_redistribute(pc, 0, -1, 0, 0, false));
  for (int d = 0; d < dim; ++d) free(x[d]);
  for (int c = 0; c < nreal; ++c) free(re[c]);
  for (int c = 0; c < nint; ++c) free(in[c]);
  free(rs[0]), free(rs[1]), free(is[0]);
}

static void test_round_trips(void) {
  for (int dim = 1; dim <= 3; ++dim)
    for (int legacy = 0; legacy < 2; ++legacy)
      for (int ckpt = 0; ckpt < 2; ++ckpt) {
        bf_pc *pc = make(dim, legacy, 2);
        fill(pc, dim, 400);
        int64_t n0 = 0, n1 = 0, nl1 = 0;
        BFT_OK(bf_pc_num_particles_at_level(pc, 1, true, false, &nl1));
        BFT_CHECK(nl1 > 0);
        prec *a = all(pc, &n0);
        BFT_OK(bf_pc_write_binary(pc, tmpdir, "p", ckpt, false));
        bf_pc *pc2 = make(dim, legacy, 2);
        BFT_OK(bf_pc_restart(pc2, tmpdir, "p"));
        prec *b = all(pc2, &n1);
        BFT_CHECK(n0 == 400 && n1 == n0);
        BFT_CHECK(n1 == n0 && memcmp(a, b, (size_t)n0 * sizeof *a) == 0);
        bool ok = false;
        BFT_OK(bf_pc_ok(pc2, 0, -1, 0, &ok));
        BFT_CHECK(ok);
        free(a), free(b);
        bf_pc_destroy(&pc), bf_pc_destroy(&pc2);
      }
}

static void put(const char *rel, const char *text) {
  char p[512];
  snprintf(p, sizeof p, "%s/%s", tmpdir, rel);
  FILE *f = fopen(p, "wb");
  BFT_CHECK(f != NULL);
  if (f) fwrite(text, 1, strlen(text), f), fclose(f);
}

static void test_errors(void) {
  bf_pc *pc = make(3, false, 1);
  fill(pc, 3, 100);
  BFT_OK(bf_pc_write_plotfile(pc, tmpdir, "q"));
  BFT_FAILS(bf_pc_write_plotfile(pc, tmpdir, "a/b"), BF_ERROR_VALUE);
  BFT_FAILS(bf_pc_write_plotfile(pc, tmpdir, ""), BF_ERROR_VALUE);
  BFT_FAILS(bf_pc_write_plotfile(pc, "", "q"), BF_ERROR_VALUE);
  BFT_FAILS(bf_pc_restart(pc, tmpdir, "nothing"), BF_ERROR_IO);
  int64_t n0 = 0, n = 0;
  BFT_OK(bf_pc_total_num_particles(pc, true, false, &n0));
  const char *bad[] = {
      "",
      "Version_Nine\n3\n",
      "Version_Two_Dot_Zero_double\n2\n",
      "Version_Two_Dot_Zero_double\n3\n3\na\nb\nc\n1\nx\n1\n5\n9\n0\n1\n0 5 0\n",     /* wrong counts */
      "Version_Two_Dot_Zero_double\n3\n4\na\nb\nc\nd\n1\nx\n1\n5\n9\n0\n1\n0 6 0\n", /* sum != total */
      "Version_Two_Dot_Zero_double\n3\n4\na\nb\nc\nd\n1\nx\n1\n5\n9\n0\n1\n0 5 999999999\n", /* offset past end */
      "Version_Two_Dot_Zero_double\n3\n4\na\nb\nc\nd\n1\nx\n1\n5\n9\n99\n",
      "Version_Two_Dot_Zero_double\n3\n4\na\nb\nc\nd\n1\nx\n1\n5\n9\n0\n1\n0 5 0\nextra\n",
      "Version_Two_Dot_Zero_double\n3\n4\na\nb\nc\nd\n1\nx\n1\n5\n9\n0\n1\n0 -5 0\n",
  };
  char dir[300];
  snprintf(dir, sizeof dir, "%s/r", tmpdir);
  mkdir(dir, 0755);
  snprintf(dir, sizeof dir, "%s/r/Level_0", tmpdir);
  mkdir(dir, 0755);
  put("r/Level_0/DATA_00000", "0123456789");
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    put("r/Header", bad[i]);
    bf_error_clear();
    BFT_CHECK(bf_pc_restart(pc, tmpdir, "r") == BF_ERROR_VALUE);
    BFT_CHECK(strstr(bf_error_message(), "r/Header") != NULL || strstr(bf_error_message(), "DATA") != NULL);
    bf_error_clear();
    BFT_OK(bf_pc_total_num_particles(pc, true, false, &n));
    BFT_CHECK(n == n0);
  }
  /* random bytes in every file never crash */
  srand(5);
  const char *files[] = {"q/Header", "q/Level_0/Particle_H", "q/Level_0/DATA_00000"};
  for (int round = 0; round < 300; ++round) {
    BFT_OK(bf_pc_write_plotfile(pc, tmpdir, "q"));
    char p[512];
    snprintf(p, sizeof p, "%s/%s", tmpdir, files[round % 3]);
    FILE *f = fopen(p, "r+b");
    BFT_CHECK(f != NULL);
    if (!f) continue;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    for (int k = 0; k < 1 + round % 4; ++k) {
      fseek(f, len ? rand() % len : 0, SEEK_SET);
      fputc(rand() % 256, f);
    }
    fclose(f);
    if (round % 7 == 0 && truncate(p, len ? rand() % len : 0) != 0) BFT_CHECK(0);
    bf_pc *t = make(3, false, 1);
    int rc = bf_pc_restart(t, tmpdir, "q");
    BFT_CHECK(rc == BF_SUCCESS || rc == BF_ERROR_VALUE || rc == BF_ERROR_IO);
    bf_pc_destroy(&t);
  }
  bf_pc_destroy(&pc);
}

int main(void) {
  uint64_t id;
  bf_runtime_initialize(0, NULL, &id);
  snprintf(tmpdir, sizeof tmpdir, "/tmp/bf_pio_XXXXXX");
  if (!mkdtemp(tmpdir)) return 1;
  BFT_RUN(test_round_trips);
  BFT_RUN(test_errors);
  nftw(tmpdir, rm1, 16, FTW_DEPTH | FTW_PHYS);
  (void)id;
  bf_runtime_finalize();
  return bft_report();
}
