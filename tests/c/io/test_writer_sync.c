/* The writers' durability and their fsync errors (plotfile.c, vismf.c, src/core/particles/io.c): every file
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
#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
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

/* rename() too: in a forked child, the k-th call kills the process (_exit) before it renames. */
static int g_renames, g_crash_at = -1, g_rename_fail_at = -1;
static unsigned g_rename_fail_mask; /* or the k-th for every bit k set */

static bool rename_fails(int k) { return k == g_rename_fail_at || (k < 32 && (g_rename_fail_mask >> k) & 1u); }

/* Another process takes the moved-aside name between the writer's look and its rename: the first rename to
 * a "<name>.old.<unique>" first makes that name a file of the other process's. */
static int g_race;
static void race(const char *to) {
  if (!g_race || !strstr(to, ".old.")) return;
  g_race = 0;
  FILE *f = fopen(to, "wb");
  if (f) fputs("theirs", f), fclose(f);
}

__attribute__((visibility("default"))) int rename(const char *from, const char *to) {
  int k = g_renames++;
  race(to);
  if (k == g_crash_at) _exit(0);
  if (rename_fails(k)) { /* or fails (EIO) */
    errno = EIO;
    return -1;
  }
  return renameat(AT_FDCWD, from, AT_FDCWD, to);
}

long syscall(long number, ...); /* <unistd.h> declares it only with _DEFAULT_SOURCE */
static int g_no_exchange;

/* renameat2() (the writers' atomic exchange of a finished temporary with the previous output) counts as a
 * rename as well. */
__attribute__((visibility("default"))) int renameat2(int fd1, const char *from, int fd2, const char *to,
                                                     unsigned int flags) {
  /* 1: a file system without renameat2's flags (the writers rename in two steps with rename()); 2: one with
   * RENAME_NOREPLACE but without RENAME_EXCHANGE */
  if (g_no_exchange == 1 || (g_no_exchange == 2 && (flags & 2u))) {
    errno = EINVAL;
    return -1;
  }
  int k = g_renames++;
  race(to);
  if (k == g_crash_at) _exit(0);
  if (rename_fails(k)) {
    errno = EIO;
    return -1;
  }
  return (int)syscall(SYS_renameat2, fd1, from, fd2, to, flags);
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

/* The geometry of every test below: the 8^3 cells of the unit cube, not periodic. */
static void unit_geometry(bf_geometry *geom) {
  bf_box dom = mkbox(3, 0, 0, 0, 7, 7, 7, 0);
  bf_realbox rb = {3, {0, 0, 0}, {1, 1, 1}};
  int per[3] = {0, 0, 0};
  BFT_OK(bf_geometry_define(&dom, &rb, 0, per, geom));
}

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
  unit_geometry(&x.geom);
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

/* Every value of every fab (ghost cells included) equals v. */
static bool all_equal(const bf_multifab *mf, double v) {
  double mn = 0, mx = 0;
  bf_intvect ng = bf_multifab_ngrow(mf);
  for (int c = 0; c < bf_multifab_ncomp(mf); ++c) {
    if (bf_multifab_min(mf, NULL, c, ng, true, &mn) || bf_multifab_max(mf, NULL, c, ng, true, &mx)) return false;
    if (mn != v || mx != v) return false;
  }
  return true;
}

/* Kill the writer at each of its renames in turn (a forked child dies just before the k-th rename) while
 * it replaces an existing checkpoint or plotfile: afterwards the final name holds the
 * old one, the new one, or nothing -- never a mix.  For VisMF, the old and the new MultiFab differ in
 * BoxArray and values, so that the previous header with the new data (the old order: data renamed, then
 * header) cannot pass. */
static void test_killed_at_every_rename(void) {
  ctx_t x;
  memset(&x, 0, sizeof x);
  unit_geometry(&x.geom);
  bf_boxarray *ba_old = chop_domain(3, 8, 8, 0), *ba_new = chop_domain(3, 8, 4, 0);
  bf_multifab *mf_old = make_mf(ba_old, 2, 1, BF_DTYPE_DOUBLE), *mf_new = make_mf(ba_new, 2, 2, BF_DTYPE_DOUBLE);
  BFT_OK(bf_multifab_set_val_all(mf_old, 1.25));
  BFT_OK(bf_multifab_set_val_all(mf_new, -3.5));
  int counts[2] = {0, 0};
  for (int which = 0; which < 2; ++which) {
    for (int k = 0; k < 20; ++k) {
      clean();
      /* the previous one, complete */
      x.mf = mf_old;
      snprintf(x.path, sizeof x.path, "%s/%s", root, which == 0 ? "chk" : "plt");
      BFT_OK(which == 0 ? w_vismf(&x) : w_plotfile(&x));
      pid_t pid = fork();
      if (pid == 0) {
        g_renames = 0, g_crash_at = k;
        x.mf = mf_new;
        int rc = which == 0 ? w_vismf(&x) : w_plotfile(&x);
        _exit(rc == BF_SUCCESS ? 3 : 4); /* ran to the end: fewer than k + 1 renames */
      }
      int status = 0;
      waitpid(pid, &status, 0);
      BFT_CHECK(WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 3));
      bool ok = true;
      if (which == 0) {
        bf_multifab *back = NULL;
        if (exists("chk_H")) {
          ok = bf_vismf_read_new(x.path, &back) == BF_SUCCESS &&
               ((bf_multifab_size(back) == 1 && all_equal(back, 1.25)) ||
                (bf_multifab_size(back) == 8 && all_equal(back, -3.5)));
          bf_multifab_destroy(&back);
        }
      } else if (exists("plt")) {
        bf_plotfile_data *p = NULL;
        ok = bf_plotfile_data_open(x.path, &p) == BF_SUCCESS;
        bf_plotfile_data_destroy(&p);
      }
      if (!ok) fprintf(stderr, "%s killed at rename %d: a broken one under the final name (%s)\n",
                       which == 0 ? "VisMF" : "plotfile", k, bf_error_message());
      BFT_CHECK(ok);
      bf_error_clear();
      if (WEXITSTATUS(status) == 3) break;
      ++counts[which];
    }
  }
  BFT_CHECK(counts[0] >= 2 && counts[1] >= 2); /* each was killed at two renames or more */
  x.mf = NULL;
  bf_multifab_destroy(&mf_old), bf_multifab_destroy(&mf_new);
  bf_boxarray_destroy(&ba_old), bf_boxarray_destroy(&ba_new);
  clean();
}

/* A rename that fails while a writer replaces an existing plotfile / checkpoint / particle directory:
 * an I/O error, and the previous one is back under its name, unchanged, with no debris beside it. */
static void test_failed_rename_restores_the_previous_one(void) {
  ctx_t x;
  memset(&x, 0, sizeof x);
  unit_geometry(&x.geom);
  bf_boxarray *ba = chop_domain(3, 8, 4, 0);
  bf_multifab *mf_old = make_mf(ba, 2, 1, BF_DTYPE_DOUBLE), *mf_new = make_mf(ba, 2, 1, BF_DTYPE_DOUBLE);
  BFT_OK(bf_multifab_set_val_all(mf_old, 1.25));
  BFT_OK(bf_multifab_set_val_all(mf_new, -3.5));
  bf_playout lay = {3, true, 0, 0, 3, 0};
  BFT_OK(bf_pc_create(&lay, NULL, &x.pc));
  bf_distmap *dm = dm_for(ba);
  BFT_OK(bf_pc_define(x.pc, 1, &x.geom, &ba, &dm, NULL));
  for (int which = 0; which < 6; ++which) {
    g_no_exchange = which >= 3; /* then again where the exchange is not supported */
    const char *what = which % 3 == 0 ? "plotfile" : which % 3 == 1 ? "VisMF" : "particles";
    for (int k = 0; k < 3; ++k) {
      clean();
      x.mf = mf_old;
      snprintf(x.path, sizeof x.path, "%s/%s", root, which % 3 == 1 ? "chk" : "plt");
      BFT_OK(which % 3 == 0 ? w_plotfile(&x) : which % 3 == 1 ? w_vismf(&x) : w_particles(&x));
      x.mf = mf_new;
      g_renames = 0, g_rename_fail_at = k;
      bf_error_clear();
      int rc = which % 3 == 0 ? w_plotfile(&x) : which % 3 == 1 ? w_vismf(&x) : w_particles(&x);
      g_rename_fail_at = -1;
      if (g_renames <= k) { /* fewer renames than k + 1: it succeeded */
        BFT_OK(rc);
        break;
      }
      bool dot = false, ok = rc == BF_ERROR_IO && strstr(bf_error_message(), root) &&
                            entries(&dot) == (which % 3 == 1 ? 2 : 1) && !dot;
      if (which % 3 == 0) {
        bf_plotfile_data *p = NULL;
        bf_multifab *got = NULL;
        ok = ok && bf_plotfile_data_open(x.path, &p) == BF_SUCCESS && bf_plotfile_data_get(p, 0, -1, &got) == 0 &&
             all_equal(got, 1.25);
        bf_multifab_destroy(&got);
        bf_plotfile_data_destroy(&p);
      } else if (which % 3 == 1) {
        bf_multifab *got = NULL;
        ok = ok && bf_vismf_read_new(x.path, &got) == BF_SUCCESS && all_equal(got, 1.25);
        bf_multifab_destroy(&got);
      } else {
        ok = ok && exists("parts/Header");
      }
      if (!ok) fprintf(stderr, "%s, rename %d failing: rc %d, \"%s\"\n", what, k, rc, bf_error_message());
      BFT_CHECK(ok);
      bf_error_clear();
    }
  }
  g_no_exchange = 0;
  bf_pc_destroy(&x.pc);
  bf_distmap_destroy(&dm);
  bf_boxarray_destroy(&ba);
  bf_multifab_destroy(&mf_old), bf_multifab_destroy(&mf_new);
  clean();
}

/* The plotfile at root/rel opens and every value of level 0 is v. */
static bool plotfile_holds(const char *rel, double v) {
  char p[600];
  snprintf(p, sizeof p, "%s/%s", root, rel);
  bf_plotfile_data *pd = NULL;
  bf_multifab *got = NULL;
  bool ok = bf_plotfile_data_open(p, &pd) == BF_SUCCESS && bf_plotfile_data_get(pd, 0, -1, &got) == BF_SUCCESS &&
            all_equal(got, v);
  bf_multifab_destroy(&got);
  bf_plotfile_data_destroy(&pd);
  bf_error_clear();
  return ok;
}

/* Two renames failing while a plotfile replaces an existing one (the move aside of the previous one and
 * the swap back, or the rename into place and the way back): the previous plotfile is never lost.  It is
 * back under its name, or kept where the error message says; after a success the new one is under the name
 * and the previous one under "<name>.old.<unique>" (AMReX's).  The exchange back was unchecked: when it
 * failed too, the previous plotfile, then under the temporary name, was removed as the temporary. */
static void test_two_failed_renames_never_lose_the_previous_plotfile(void) {
  ctx_t x;
  memset(&x, 0, sizeof x);
  unit_geometry(&x.geom);
  bf_boxarray *ba = chop_domain(3, 8, 4, 0);
  bf_multifab *mf_old = make_mf(ba, 2, 0, BF_DTYPE_DOUBLE), *mf_new = make_mf(ba, 2, 0, BF_DTYPE_DOUBLE);
  BFT_OK(bf_multifab_set_val_all(mf_old, 1.25));
  BFT_OK(bf_multifab_set_val_all(mf_new, -3.5));
  snprintf(x.path, sizeof x.path, "%s/plt", root);
  int failures = 0;
  for (int ex = 0; ex < 3; ++ex) {
    g_no_exchange = ex;
    for (int j = 0; j < 5; ++j)
      for (int k = j; k < 5; ++k) {
        clean();
        x.mf = mf_old;
        BFT_OK(w_plotfile(&x));
        x.mf = mf_new;
        g_renames = 0, g_rename_fail_mask = (1u << j) | (1u << k);
        bf_error_clear();
        int rc = w_plotfile(&x);
        g_rename_fail_mask = 0;
        char msg[2048];
        snprintf(msg, sizeof msg, "%s", bf_error_message());
        bf_error_clear();
        /* where the previous plotfile is: a name in root that holds it */
        char where[300] = "";
        DIR *d = opendir(root);
        struct dirent *e;
        while (d && (e = readdir(d)))
          if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && !where[0] && plotfile_holds(e->d_name, 1.25))
            snprintf(where, sizeof where, "%s", e->d_name);
        if (d) closedir(d);
        bool ok = where[0] != '\0';
        if (rc == BF_SUCCESS)
          ok = ok && plotfile_holds("plt", -3.5) && !strncmp(where, "plt.old.", 8);
        else
          ok = ok && rc == BF_ERROR_IO && (!strcmp(where, "plt") || strstr(msg, where));
        failures += rc != BF_SUCCESS;
        if (!ok)
          fprintf(stderr, "mode %d, renames %d and %d failing: rc %d, previous plotfile at '%s', \"%s\"\n", ex, j, k,
                  rc, where, msg);
        BFT_CHECK(ok);
      }
  }
  BFT_CHECK(failures > 5);
  g_no_exchange = 0;
  x.mf = NULL;
  bf_multifab_destroy(&mf_old), bf_multifab_destroy(&mf_new);
  bf_boxarray_destroy(&ba);
  clean();
}

/* The moved-aside name is taken by another process just before the writer renames onto it: the writer
 * takes another name, and replaces nothing (a plain rename replaced a file of that name, or an empty
 * directory, without a word).  The previous "plotfile" here is a regular file, as a user's file in the way. */
static void test_a_moved_aside_name_taken_meanwhile_is_not_replaced(void) {
  ctx_t x;
  memset(&x, 0, sizeof x);
  unit_geometry(&x.geom);
  bf_boxarray *ba = chop_domain(3, 8, 4, 0);
  x.mf = make_mf(ba, 2, 0, BF_DTYPE_DOUBLE);
  BFT_OK(bf_multifab_set_val_all(x.mf, 2.0));
  snprintf(x.path, sizeof x.path, "%s/plt", root);
  for (int ex = 0; ex <= 2; ex += 2) { /* with the exchange, and without it but with RENAME_NOREPLACE (with
                                        * neither, a plain rename cannot tell: the writer's look just before it
                                        * is all there is) */
    g_no_exchange = ex;
    clean();
    FILE *f = fopen(x.path, "wb");
    BFT_CHECK(f != NULL);
    if (f) fputs("mine", f), fclose(f);
    g_race = 1;
    BFT_OK(w_plotfile(&x));
    BFT_CHECK(g_race == 0 && plotfile_holds("plt", 2.0));
    int mine = 0, theirs = 0, n = 0;
    DIR *d = opendir(root);
    struct dirent *e;
    while (d && (e = readdir(d))) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
      ++n;
      char p[600], buf[16] = "";
      snprintf(p, sizeof p, "%s/%s", root, e->d_name);
      FILE *g = fopen(p, "rb");
      struct stat st;
      if (g && stat(p, &st) == 0 && S_ISREG(st.st_mode) && fgets(buf, sizeof buf, g)) {
        mine += !strcmp(buf, "mine") && !strncmp(e->d_name, "plt.old.", 8);
        theirs += !strcmp(buf, "theirs");
      }
      if (g) fclose(g);
    }
    if (d) closedir(d);
    if (mine != 1 || theirs != 1 || n != 3)
      fprintf(stderr, "mode %d: mine %d, theirs %d, %d entries\n", ex, mine, theirs, n);
    BFT_CHECK(mine == 1 && theirs == 1 && n == 3);
  }
  g_no_exchange = 0, g_race = 0;
  bf_multifab_destroy(&x.mf);
  bf_boxarray_destroy(&ba);
  clean();
}

/* Two renames failing while a VisMF checkpoint replaces an existing one: the previous checkpoint is never
 * lost.  It is back under its names, or the error message names the files it is kept as (renamed back to
 * <name>_H / <name>_D_00000 they read as the previous checkpoint); it was kept without a word. */
static void test_two_failed_renames_never_lose_the_previous_checkpoint(void) {
  ctx_t x;
  memset(&x, 0, sizeof x);
  unit_geometry(&x.geom);
  bf_boxarray *ba = chop_domain(3, 8, 4, 0);
  bf_multifab *mf_old = make_mf(ba, 2, 1, BF_DTYPE_DOUBLE), *mf_new = make_mf(ba, 2, 1, BF_DTYPE_DOUBLE);
  BFT_OK(bf_multifab_set_val_all(mf_old, 1.25));
  BFT_OK(bf_multifab_set_val_all(mf_new, -3.5));
  snprintf(x.path, sizeof x.path, "%s/chk", root);
  int failures = 0, kept = 0;
  for (int j = 0; j < 6; ++j)
    for (int k = j; k < 6; ++k) {
      clean();
      x.mf = mf_old;
      BFT_OK(w_vismf(&x));
      x.mf = mf_new;
      g_renames = 0, g_rename_fail_mask = (1u << j) | (1u << k);
      bf_error_clear();
      int rc = w_vismf(&x);
      g_rename_fail_mask = 0;
      char msg[2048];
      snprintf(msg, sizeof msg, "%s", bf_error_message());
      bf_error_clear();
      bf_multifab *got = NULL;
      bool at_name = bf_vismf_read_new(x.path, &got) == BF_SUCCESS && all_equal(got, rc == BF_SUCCESS ? -3.5 : 1.25);
      bf_multifab_destroy(&got);
      bf_error_clear();
      bool ok = at_name;
      if (rc != BF_SUCCESS) ++failures;
      if (rc != BF_SUCCESS && !at_name) { /* kept elsewhere: where the message says */
        ++kept;
        const char *parts[2] = {"' (its header, ", "' (its data, "};
        const char *finals[2] = {"chk_H", "chk_D_00000"};
        for (int w = 0; w < 2; ++w) {
          const char *end = strstr(msg, parts[w]);
          if (!end) continue;
          const char *start = end;
          while (start > msg && start[-1] != '\'') --start;
          char from[600], to[600];
          snprintf(from, sizeof from, "%.*s", (int)(end - start), start);
          snprintf(to, sizeof to, "%s/%s", root, finals[w]);
          if (renameat(AT_FDCWD, from, AT_FDCWD, to) != 0) fprintf(stderr, "cannot rename back %s\n", from);
        }
        ok = bf_vismf_read_new(x.path, &got) == BF_SUCCESS && all_equal(got, 1.25);
        bf_multifab_destroy(&got);
        bf_error_clear();
      }
      ok = ok && (rc == BF_SUCCESS || rc == BF_ERROR_IO);
      if (!ok) fprintf(stderr, "VisMF, renames %d and %d failing: rc %d, \"%s\"\n", j, k, rc, msg);
      BFT_CHECK(ok);
    }
  BFT_CHECK(failures > 5 && kept > 0);
  x.mf = NULL;
  bf_multifab_destroy(&mf_old), bf_multifab_destroy(&mf_new);
  bf_boxarray_destroy(&ba);
  clean();
}

int main(void) {
  uint64_t id;
  bf_runtime_initialize(0, NULL, &id);
  snprintf(root, sizeof root, "/tmp/bf_wsync_XXXXXX");
  if (!mkdtemp(root)) return 1;
  BFT_RUN(test_every_writer_syncs_and_reports_fsync_errors);
  BFT_RUN(test_modes_follow_the_umask);
  BFT_RUN(test_killed_at_every_rename);
  BFT_RUN(test_failed_rename_restores_the_previous_one);
  BFT_RUN(test_two_failed_renames_never_lose_the_previous_plotfile);
  BFT_RUN(test_a_moved_aside_name_taken_meanwhile_is_not_replaced);
  BFT_RUN(test_two_failed_renames_never_lose_the_previous_checkpoint);
  rmdir(root);
  (void)id;
  bf_runtime_finalize();
  return bft_report();
}
