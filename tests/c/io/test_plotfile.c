/* Mesh plotfile writer (include/boxfab/plotfile.h): layout, Header text, FAB bytes, atomic
 * replacement of an existing directory, and errors that leave nothing under the final name. */
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mftest.h"
#include "boxfab/plotfile.h"

static char g_root[256];

static char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)len + 1);
  size_t got = fread(s, 1, (size_t)len, f);
  s[got] = '\0';
  fclose(f);
  if (n) *n = got;
  return s;
}

static int count_entries(const char *dir, const char *prefix) {
  DIR *d = opendir(dir);
  int n = 0;
  struct dirent *e;
  if (!d) return -1;
  while ((e = readdir(d)))
    if (!strncmp(e->d_name, prefix, strlen(prefix))) ++n;
  closedir(d);
  return n;
}

/* 2D: domain 8x6 in two boxes, 2 components with one ghost, value c*1000 + 10*j + i. */
static bf_multifab *make_plot_mf(bf_geometry *g) {
  bf_box dom = mkbox(2, 0, 0, 0, 7, 5, 0, 0);
  bf_box boxes[2] = {mkbox(2, 0, 0, 0, 3, 5, 0, 0), mkbox(2, 4, 0, 0, 7, 5, 0, 0)};
  bf_boxarray *ba = NULL;
  bf_distmap *dm = NULL;
  bf_multifab *mf = NULL;
  bf_realbox rb = {2, {-1.0, 0.0, 0.0}, {1.0, 0.75, 0.0}};
  int per[2] = {0, 0};
  BFT_OK(bf_geometry_define(&dom, &rb, 0, per, g));
  BFT_OK(bf_boxarray_create_from_boxes(2, 2, boxes, &ba));
  int pmap[2] = {0, 0};
  BFT_OK(bf_distmap_create_from_pmap(2, pmap, &dm));
  BFT_OK(bf_multifab_create(ba, dm, 2, iv3(2, 1, 1, 0), BF_DTYPE_DOUBLE, NULL, true, &mf));
  bf_boxarray_destroy(&ba);
  bf_distmap_destroy(&dm);
  BFT_OK(bf_multifab_set_val_all(mf, -5.0));
  for (int64_t li = 0; li < bf_multifab_nlocal(mf); ++li) {
    bf_mf_fab f;
    BFT_OK(bf_multifab_local_fab(mf, li, &f));
    double *p = f.data;
    for (int c = 0; c < 2; ++c)
      for (int j = f.validbox.lo[1]; j <= f.validbox.hi[1]; ++j)
        for (int i = f.validbox.lo[0]; i <= f.validbox.hi[0]; ++i)
          p[c * f.stride[2] + (j - f.fabbox.lo[1]) * f.stride[0] + (i - f.fabbox.lo[0])] = c * 1000 + 10 * j + i;
  }
  return mf;
}

static void test_layout_and_bytes(void) {
  bf_geometry g;
  bf_multifab *mf = make_plot_mf(&g);
  const char *names[2] = {"a", "b"};
  char path[512], file[600];
  snprintf(path, sizeof path, "%s/plt2d", g_root);
  BFT_OK(bf_write_single_level_plotfile(path, mf, 2, names, &g, 0.5, 3, NULL));
  snprintf(file, sizeof file, "%s/Header", path);
  char *h = slurp(file, NULL);
  BFT_CHECK(h && !strcmp(h, "HyperCLaw-V1.1\n2\na\nb\n2\n0.5\n0\n-1 0 \n1 0.75 \n\n((0,0) (7,5) (0,0)) \n3 \n"
                            "0.25 0.125 \n0\n0\n0 2 0.5\n3\n-1 0\n0 0.75\n0 1\n0 0.75\nLevel_0/Cell\n"));
  free(h);
  snprintf(file, sizeof file, "%s/Level_0/Cell_H", path);
  h = slurp(file, NULL);
  const char *line = "FAB ((8, (64 11 52 0 1 12 0 1023)),(8, (8 7 6 5 4 3 2 1)))((0,0) (3,5) (0,0)) 2\n";
  char expect[1024];
  snprintf(expect, sizeof expect,
           "1\n1\n2\n0\n(2 0\n((0,0) (3,5) (0,0))\n((4,0) (7,5) (0,0))\n)\n2\nFabOnDisk: Cell_D_00000 0\n"
           "FabOnDisk: Cell_D_00000 %zu\n\n2,2\n"
           "0.00000000000000000e+00,1.00000000000000000e+03,\n4.00000000000000000e+00,1.00400000000000000e+03,\n"
           "\n2,2\n5.30000000000000000e+01,1.05300000000000000e+03,\n5.70000000000000000e+01,1.05700000000000000e+03,\n\n",
           strlen(line) + 2 * 24 * 8);
  BFT_CHECK(h && !strcmp(h, expect));
  free(h);
  size_t n = 0;
  snprintf(file, sizeof file, "%s/Level_0/Cell_D_00000", path);
  char *d = slurp(file, &n);
  BFT_CHECK(d && n == 2 * (strlen(line) + 2 * 24 * 8) && !strncmp(d, line, strlen(line)));
  if (d && n > strlen(line) + 8 * 8) {
    double v[8];
    memcpy(v, d + strlen(line), sizeof v);
    BFT_CHECK(v[0] == 0 && v[3] == 3 && v[4] == 10 && v[7] == 13);
  }
  free(d);
  snprintf(file, sizeof file, "%s/job_info", path);
  h = slurp(file, NULL);
  BFT_CHECK(h && strstr(h, "amrex"));
  free(h);

  /* float32 on disk */
  bf_plotfile_options opt = {0};
  opt.precision = BF_DTYPE_FLOAT;
  snprintf(path, sizeof path, "%s/plt2d_f", g_root);
  BFT_OK(bf_write_single_level_plotfile(path, mf, 2, names, &g, 0.5, 3, &opt));
  snprintf(file, sizeof file, "%s/Level_0/Cell_D_00000", path);
  d = slurp(file, &n);
  const char *fline = "FAB ((8, (32 8 23 0 1 9 0 127)),(4, (4 3 2 1)))((0,0) (3,5) (0,0)) 2\n";
  BFT_CHECK(d && n == 2 * (strlen(fline) + 2 * 24 * 4) && !strncmp(d, fline, strlen(fline)));
  if (d && n > strlen(fline) + 16) {
    float v[4];
    memcpy(v, d + strlen(fline), sizeof v);
    BFT_CHECK(v[0] == 0.0f && v[3] == 3.0f);
  }
  free(d);
  bf_multifab_destroy(&mf);
}

static void test_replace_and_errors(void) {
  bf_geometry g;
  bf_multifab *mf = make_plot_mf(&g);
  const char *names[2] = {"a", "b"};
  char path[512], file[600];
  snprintf(path, sizeof path, "%s/rep", g_root);
  BFT_CHECK(mkdir(path, 0755) == 0);
  BFT_OK(bf_write_single_level_plotfile(path, mf, 2, names, &g, 0.5, 3, NULL));
  BFT_CHECK(count_entries(g_root, "rep.old.") == 1);
  BFT_OK(bf_write_single_level_plotfile(path, mf, 2, names, &g, 0.5, 3, NULL));
  BFT_CHECK(count_entries(g_root, "rep.old.") == 2);
  /* a path under a regular file, a missing parent: BF_ERROR_IO naming it, nothing left */
  snprintf(file, sizeof file, "%s/regular", g_root);
  FILE *f = fopen(file, "w");
  fclose(f);
  snprintf(path, sizeof path, "%s/regular/plt", g_root);
  BFT_FAILS(bf_write_single_level_plotfile(path, mf, 2, names, &g, 0.5, 3, NULL), BF_ERROR_IO);
  bf_write_single_level_plotfile(path, mf, 2, names, &g, 0.5, 3, NULL);
  BFT_CHECK(strstr(bf_error_message(), "regular/plt") != NULL);
  BFT_CHECK(count_entries(g_root, ".") == 2); /* only . and .. : no temporary left behind */
  /* missing parents are made (AMReX's mkdir -p, mode 0755 less the umask) */
  mode_t um = umask(022);
  snprintf(path, sizeof path, "%s/missing/deeper/plt", g_root);
  BFT_OK(bf_write_single_level_plotfile(path, mf, 2, names, &g, 0.5, 3, NULL));
  snprintf(file, sizeof file, "%s/missing/deeper/plt/Header", g_root);
  BFT_CHECK(access(file, F_OK) == 0);
  struct stat st;
  snprintf(file, sizeof file, "%s/missing", g_root);
  BFT_CHECK(stat(file, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0755);
  umask(um);
  /* a name that cannot be made (256 bytes): BF_ERROR_IO, and the parents it made are gone again */
  int k = snprintf(path, sizeof path, "%s/gone/", g_root);
  memset(path + k, 'q', 256);
  path[k + 256] = '\0';
  BFT_FAILS(bf_write_single_level_plotfile(path, mf, 2, names, &g, 0.5, 3, NULL), BF_ERROR_IO);
  snprintf(file, sizeof file, "%s/gone", g_root);
  BFT_CHECK(access(file, F_OK) != 0);
  /* 255 bytes: written, and again (the previous one moved aside under a name of at most 255 bytes) */
  path[k + 255] = '\0';
  BFT_OK(bf_write_single_level_plotfile(path, mf, 2, names, &g, 0.5, 3, NULL));
  BFT_OK(bf_write_single_level_plotfile(path, mf, 2, names, &g, 0.5, 3, NULL));
  BFT_CHECK(count_entries(file, "q") == 2 && count_entries(file, ".") == 2);
  /* a variable name with a blank at either end would not read back: refused */
  const char *edge[2] = {"a", " b"};
  snprintf(path, sizeof path, "%s/edge", g_root);
  BFT_FAILS(bf_write_single_level_plotfile(path, mf, 2, edge, &g, 0.5, 3, NULL), BF_ERROR_VALUE);
  BFT_CHECK(access(path, F_OK) != 0);
  /* argument errors */
  snprintf(path, sizeof path, "%s/bad", g_root);
  const char *one[1] = {"a"}, *nl[2] = {"a", "b\n"};
  BFT_FAILS(bf_write_single_level_plotfile(path, mf, 1, one, &g, 0.5, 3, NULL), BF_ERROR_VALUE);
  BFT_FAILS(bf_write_single_level_plotfile(path, mf, 2, nl, &g, 0.5, 3, NULL), BF_ERROR_VALUE);
  BFT_FAILS(bf_write_single_level_plotfile("", mf, 2, names, &g, 0.5, 3, NULL), BF_ERROR_VALUE);
  BFT_FAILS(bf_write_multi_level_plotfile(path, 0, NULL, 2, names, &g, 0.5, NULL, NULL, NULL), BF_ERROR_VALUE);
  const bf_multifab *two[2] = {mf, mf};
  int steps[2] = {1, 2};
  BFT_FAILS(bf_write_multi_level_plotfile(path, 2, two, 2, names, &g, 0.5, steps, NULL, NULL), BF_ERROR_VALUE);
  bf_plotfile_options opt = {0};
  opt.level_prefix = "../up";
  BFT_FAILS(bf_write_single_level_plotfile(path, mf, 2, names, &g, 0.5, 3, &opt), BF_ERROR_VALUE);
  opt.level_prefix = NULL;
  opt.precision = BF_DTYPE_INT;
  BFT_FAILS(bf_write_single_level_plotfile(path, mf, 2, names, &g, 0.5, 3, &opt), BF_ERROR_VALUE);
  bf_geometry g3 = g;
  g3.dim = 3;
  BFT_FAILS(bf_write_single_level_plotfile(path, mf, 2, names, &g3, 0.5, 3, NULL), BF_ERROR_TYPE);
  BFT_CHECK(access(path, F_OK) != 0);
  bf_multifab_destroy(&mf);
}

static void test_read_back(void) {
  bf_geometry g;
  bf_multifab *mf = make_plot_mf(&g);
  const char *names[2] = {"a", "b"};
  char path[512], file[600];
  snprintf(path, sizeof path, "%s/rb", g_root);
  BFT_OK(bf_write_single_level_plotfile(path, mf, 2, names, &g, 0.5, 3, NULL));
  bf_plotfile_data *p = NULL;
  BFT_OK(bf_plotfile_data_open(path, &p));
  if (!p) return;
  BFT_CHECK(bf_plotfile_data_dim(p) == 2 && bf_plotfile_data_ncomp(p) == 2 && bf_plotfile_data_time(p) == 0.5);
  BFT_CHECK(!strcmp(bf_plotfile_data_varname(p, 1), "b") && bf_plotfile_data_varname(p, 2) == NULL);
  BFT_CHECK(bf_plotfile_data_find_var(p, "a") == 0 && bf_plotfile_data_find_var(p, "z") == -1);
  int rr = -1, step = -1;
  BFT_OK(bf_plotfile_data_ref_ratio(p, 0, &rr));
  BFT_OK(bf_plotfile_data_level_step(p, 0, &step));
  BFT_CHECK(rr == 0 && step == 3);
  BFT_FAILS(bf_plotfile_data_level_step(p, 1, &step), BF_ERROR_INDEX);
  double dx[2];
  BFT_OK(bf_plotfile_data_cell_size(p, 0, dx));
  BFT_CHECK(dx[0] == 0.25 && dx[1] == 0.125);
  bf_multifab *back = NULL;
  BFT_OK(bf_plotfile_data_get(p, 0, 1, &back));
  if (back) {
    for (int64_t li = 0; li < bf_multifab_nlocal(back); ++li) {
      bf_mf_fab f;
      BFT_OK(bf_multifab_local_fab(back, li, &f));
      const double *d = f.data;
      BFT_CHECK(d[0] == 1000 + f.validbox.lo[0] && d[f.stride[0]] == 1010 + f.validbox.lo[0]);
    }
    bf_multifab_destroy(&back);
  }
  BFT_FAILS(bf_plotfile_data_get(p, 0, 2, &back), BF_ERROR_INDEX);
  bf_plotfile_data_destroy(&p);
  BFT_CHECK(p == NULL);
  /* a truncated Header: BF_ERROR_VALUE naming the file and the line */
  snprintf(file, sizeof file, "%s/Header", path);
  FILE *f = fopen(file, "r+");
  if (f) {
    BFT_CHECK(ftruncate(fileno(f), 30) == 0);
    fclose(f);
  }
  BFT_FAILS(bf_plotfile_data_open(path, &p), BF_ERROR_VALUE);
  bf_plotfile_data_open(path, &p);
  BFT_CHECK(strstr(bf_error_message(), "Header, line") != NULL);
  bf_error_clear();
  BFT_FAILS(bf_plotfile_data_open("/nonexistent/plt", &p), BF_ERROR_IO);
  BFT_CHECK(p == NULL);
  bf_multifab_destroy(&mf);
}

/* Random damage to the Header and Cell_H (byte flips, insertions, truncations): open and get
 * either succeed or fail with a status, never crash (this test runs under ASan/UBSan). */
static void write_bytes(const char *path, const char *s, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) return;
  if (n) BFT_CHECK(fwrite(s, 1, n, f) == n);
  fclose(f);
}

static void test_fuzz_reader(void) {
  bf_geometry g;
  bf_multifab *mf = make_plot_mf(&g);
  const char *names[2] = {"a", "b"};
  char path[512], files[2][600];
  snprintf(path, sizeof path, "%s/fz", g_root);
  BFT_OK(bf_write_single_level_plotfile(path, mf, 2, names, &g, 0.5, 3, NULL));
  snprintf(files[0], sizeof files[0], "%s/Header", path);
  snprintf(files[1], sizeof files[1], "%s/Level_0/Cell_H", path);
  uint64_t rng = 12345;
  int opened = 0, failed = 0;
  for (int which = 0; which < 2; ++which) {
    size_t n = 0;
    char *orig = slurp(files[which], &n);
    if (!orig) continue;
    char *buf = malloc(n + 64);
    for (int trial = 0; trial < 400; ++trial) {
      memcpy(buf, orig, n);
      size_t m = n;
      int edits = 1 + trial % 4;
      for (int e = 0; e < edits; ++e) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        size_t at = (size_t)(rng >> 33) % (m ? m : 1);
        unsigned kind = (unsigned)(rng >> 20) % 4;
        unsigned char byte = (unsigned char)(rng >> 40);
        if (kind == 0 && m) buf[at] = (char)byte;
        else if (kind == 1 && m) buf[at] = "0123456789-,() \n"[byte % 16];
        else if (kind == 2 && m < n + 60) memmove(buf + at + 1, buf + at, m - at), buf[at] = (char)byte, ++m;
        else m = at;
      }
      write_bytes(files[which], buf, m);
      bf_plotfile_data *p = NULL;
      if (bf_plotfile_data_open(path, &p) == BF_SUCCESS) {
        ++opened;
        bf_multifab *back = NULL;
        if (bf_plotfile_data_get(p, 0, -1, &back) == BF_SUCCESS) bf_multifab_destroy(&back);
        bf_plotfile_data_destroy(&p);
      } else {
        ++failed;
        BFT_CHECK(bf_error_message()[0] != '\0');
      }
      bf_error_clear();
    }
    write_bytes(files[which], orig, n);
    free(buf);
    free(orig);
  }
  BFT_CHECK(opened > 0 && failed > 0);
  bf_multifab_destroy(&mf);
}

static void rm_rf(const char *path) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
  if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", path);
}

int main(void) {
  uint64_t id;
  const char *tmp = getenv("TMPDIR");
  snprintf(g_root, sizeof g_root, "%s/bf_plotfile_XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
  if (!mkdtemp(g_root)) return 1;
  bf_runtime_initialize(0, NULL, &id);
  BFT_RUN(test_layout_and_bytes);
  rm_rf(g_root);
  BFT_CHECK(mkdir(g_root, 0700) == 0);
  BFT_RUN(test_replace_and_errors);
  BFT_RUN(test_read_back);
  BFT_RUN(test_fuzz_reader);
  bf_runtime_finalize();
  rm_rf(g_root);
  return bft_report();
}
