/* The writers' durability and their fsync errors (plotfile.c, vismf.c, particles_io.c): every file
 * and directory of a plotfile, a VisMF checkpoint and a particle directory is fsync'ed before it is
 * renamed into place (and the parent directory after the rename), and a failing fsync -- the disk
 * could not store the data -- is an error naming a path, never a silent success, and never leaves
 * anything under the final name that is not complete (nor temporary debris).
 *
 * This executable defines fsync() itself: the library's calls resolve to it (ELF interposition), so
 * the test counts them and makes the k-th one fail with EIO (exported: -rdynamic in CMakeLists.txt and
 * default visibility against the build's -fvisibility=hidden). */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boxfab/particles.h"
#include "boxfab/plotfile.h"
#include "mftest.h"

static int g_calls, g_fail_at = -1;

__attribute__((visibility("default"))) int fsync(int fd) {
  (void)fd;
  if (g_calls++ == g_fail_at) {
    errno = EIO;
    return -1;
  }
  return 0; /* the test's files need not reach the disk */
}

static char root[256];

static int rm1(const char *p, const struct stat *s, int f, struct FTW *w) {
  (void)s, (void)f, (void)w;
  return remove(p);
}

static void clean(void) {
  DIR *d = opendir(root);
  struct dirent *e;
  char p[600];
  while (d && (e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
      snprintf(p, sizeof p, "%s/%s", root, e->d_name), nftw(p, rm1, 16, FTW_DEPTH | FTW_PHYS);
  if (d) closedir(d);
}

/* Names in root: their number, and whether any is a temporary sibling (a dot name). */
static int entries(bool *dot) {
  DIR *d = opendir(root);
  struct dirent *e;
  int n = 0;
  *dot = false;
  while (d && (e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) ++n, *dot = *dot || e->d_name[0] == '.';
  if (d) closedir(d);
  return n;
}

static bool exists(const char *rel) {
  char p[600];
  struct stat st;
  snprintf(p, sizeof p, "%s/%s", root, rel);
  return lstat(p, &st) == 0;
}

typedef int (*writer)(void *ctx);
typedef bool (*complete_fn)(void *ctx);

/* Run `w` once counting its fsyncs (at least `min_calls`), then once per call with that call failing:
 * an I/O error whose message names a path in root and the reason; afterwards no temporary sibling, and
 * the final name either absent or complete (the failing fsync was that of its directory, after the rename). */
static void check_writer(const char *what, writer w, complete_fn complete, void *ctx, const char *final,
                         int min_calls) {
  clean();
  g_calls = 0, g_fail_at = -1;
  BFT_OK(w(ctx));
  int n = g_calls;
  if (n < min_calls) fprintf(stderr, "%s: %d fsync calls, expected at least %d\n", what, n, min_calls);
  BFT_CHECK(n >= min_calls);
  BFT_CHECK(complete(ctx));
  for (int k = 0; k < n; ++k) {
    clean();
    g_calls = 0, g_fail_at = k;
    bf_error_clear();
    int rc = w(ctx);
    g_fail_at = -1;
    bool dot = false;
    int ne = entries(&dot);
    bool ok = rc == BF_ERROR_IO && strstr(bf_error_message(), root) && strstr(bf_error_message(), strerror(EIO)) &&
              !dot && (ne == 0 ? !exists(final) : complete(ctx));
    if (!ok)
      fprintf(stderr, "%s: fsync %d of %d failing: rc %d, %d entries%s, message \"%s\"\n", what, k, n, rc, ne,
              dot ? " (a temporary one)" : "", bf_error_message());
    BFT_CHECK(ok);
    bf_error_clear();
  }
}

/* ---- the three writers ---------------------------------------------------------------------------- */
typedef struct {
  bf_multifab *mf;
  bf_geometry geom;
  bf_pc *pc;
  char path[400];
} ctx_t;

static int w_plotfile(void *c) {
  ctx_t *x = c;
  const char *names[2] = {"a", "b"};
  return bf_write_single_level_plotfile(x->path, x->mf, 2, names, &x->geom, 0.5, 3, NULL);
}

static bool c_plotfile(void *c) {
  (void)c;
  bool dot;
  return entries(&dot) == 1 && !dot && exists("plt/Header") && exists("plt/job_info") && exists("plt/Level_0/Cell_H") &&
         exists("plt/Level_0/Cell_D_00000");
}

static int w_vismf(void *c) {
  ctx_t *x = c;
  return bf_vismf_write(x->mf, x->path);
}

static bool c_vismf(void *c) {
  ctx_t *x = c;
  bf_multifab *back = NULL;
  bool ok = bf_vismf_read_new(x->path, &back) == BF_SUCCESS;
  bf_multifab_destroy(&back);
  bf_error_clear();
  return ok;
}

static int w_particles(void *c) {
  ctx_t *x = c;
  return bf_pc_write_plotfile(x->pc, root, "parts");
}

static bool c_particles(void *c) {
  (void)c;
  bool dot;
  return entries(&dot) == 1 && !dot && exists("parts/Header") && exists("parts/Level_0/Particle_H") &&
         exists("parts/Level_0/DATA_00000");
}

static void test_every_writer_syncs_and_reports_fsync_errors(void) {
  ctx_t x;
  memset(&x, 0, sizeof x);
  bf_box dom = mkbox(3, 0, 0, 0, 7, 7, 7, 0);
  bf_realbox rb = {3, {0, 0, 0}, {1, 1, 1}};
  int per[3] = {0, 0, 0};
  BFT_OK(bf_geometry_define(&dom, &rb, 0, per, &x.geom));
  bf_boxarray *ba = chop_domain(3, 8, 4, 0);
  x.mf = make_mf(ba, 2, 1, BF_DTYPE_DOUBLE);
  BFT_OK(bf_multifab_set_val_all(x.mf, 1.25));
  /* plotfile: Header, job_info, Cell_H, Cell_D, Level_0, the directory itself, its parent */
  snprintf(x.path, sizeof x.path, "%s/plt", root);
  check_writer("plotfile", w_plotfile, c_plotfile, &x, "plt", 7);
  /* VisMF: data, header, the parent */
  snprintf(x.path, sizeof x.path, "%s/chk", root);
  check_writer("VisMF", w_vismf, c_vismf, &x, "chk_H", 3);
  /* particles: Particle_H, DATA, Level_0, Header, the directory, its parent */
  bf_playout lay = {3, true, 0, 0, 5, 1};
  BFT_OK(bf_pc_create(&lay, NULL, &x.pc));
  bf_distmap *dm = dm_for(ba);
  BFT_OK(bf_pc_define(x.pc, 1, &x.geom, &ba, &dm, NULL));
  double px[3] = {0.1, 0.6, 0.9}, py[3] = {0.2, 0.3, 0.8}, pz[3] = {0.5, 0.5, 0.1};
  bf_pcolumns cols;
  memset(&cols, 0, sizeof cols);
  cols.n = 3;
  cols.pos[0] = px, cols.pos[1] = py, cols.pos[2] = pz;
  BFT_OK(bf_pc_add_columns(x.pc, 0, &cols, true));
  BFT_OK(bf_pc_redistribute(x.pc, 0, -1, 0, 0, false));
  check_writer("particles", w_particles, c_particles, &x, "parts", 6);
  bf_pc_destroy(&x.pc);
  bf_distmap_destroy(&dm);
  bf_boxarray_destroy(&ba);
  bf_multifab_destroy(&x.mf);
  clean();
}

/* Files and directories follow the umask like any the user creates (they were forced to 0644 / 0755). */
static void test_modes_follow_the_umask(void) {
  ctx_t x;
  memset(&x, 0, sizeof x);
  bf_box dom = mkbox(2, 0, 0, 0, 3, 3, 0, 0);
  bf_realbox rb = {2, {0, 0, 0}, {1, 1, 0}};
  int per[2] = {0, 0};
  BFT_OK(bf_geometry_define(&dom, &rb, 0, per, &x.geom));
  bf_boxarray *ba = chop_domain(2, 4, 4, 0);
  x.mf = make_mf(ba, 2, 0, BF_DTYPE_DOUBLE);
  BFT_OK(bf_multifab_set_val_all(x.mf, 2.0));
  mode_t old = umask(077);
  clean();
  snprintf(x.path, sizeof x.path, "%s/plt", root);
  BFT_OK(w_plotfile(&x));
  snprintf(x.path, sizeof x.path, "%s/chk", root);
  BFT_OK(w_vismf(&x));
  umask(old);
  const char *rels[] = {"plt", "plt/Level_0", "plt/Header", "plt/Level_0/Cell_D_00000", "chk_H", "chk_D_00000"};
  for (size_t i = 0; i < sizeof rels / sizeof rels[0]; ++i) {
    char p[600];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", root, rels[i]);
    bool ok = stat(p, &st) == 0 && (st.st_mode & 077) == 0;
    if (!ok) fprintf(stderr, "%s: mode %o under umask 077\n", rels[i], (unsigned)(st.st_mode & 0777));
    BFT_CHECK(ok);
  }
  clean();
  /* and with the usual umask 022: 0755 directories, 0644 files, as AMReX writes them */
  old = umask(022);
  snprintf(x.path, sizeof x.path, "%s/plt", root);
  BFT_OK(w_plotfile(&x));
  snprintf(x.path, sizeof x.path, "%s/chk", root);
  BFT_OK(w_vismf(&x));
  umask(old);
  struct stat st;
  char p[600];
  snprintf(p, sizeof p, "%s/plt", root);
  BFT_CHECK(stat(p, &st) == 0 && (st.st_mode & 0777) == 0755);
  snprintf(p, sizeof p, "%s/chk_H", root);
  BFT_CHECK(stat(p, &st) == 0 && (st.st_mode & 0777) == 0644);
  clean();
  bf_boxarray_destroy(&ba);
  bf_multifab_destroy(&x.mf);
}

int main(void) {
  uint64_t id;
  bf_runtime_initialize(0, NULL, &id);
  snprintf(root, sizeof root, "/tmp/bf_wsync_XXXXXX");
  if (!mkdtemp(root)) return 1;
  BFT_RUN(test_every_writer_syncs_and_reports_fsync_errors);
  BFT_RUN(test_modes_follow_the_umask);
  rmdir(root);
  (void)id;
  bf_runtime_finalize();
  return bft_report();
}
