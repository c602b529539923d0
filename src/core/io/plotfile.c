/* Mesh plotfile writers in AMReX's format (see include/boxfab/plotfile.h).
 *
 * Layout written (AMReX's WriteGenericPlotfileHeader and VisMF::Write, version
 * 1, one rank): Header, job_info, <level_prefix>L/<mf_prefix>_H and
 * <level_prefix>L/<mf_prefix>_D_00000.  Everything goes into a temporary
 * sibling directory first, which is renamed into place when complete. */
#include "boxfab/plotfile.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "boxfab/arena.h"
#include "boxfab/dtype.h"
#include "boxfab/gpu.h"
#include "boxfab/runtime.h"
#include "base/fileio.h"
#include "runtime/comm.h"
#include "io/plotfile_impl.h"

/* ---- a growing text buffer ------------------------------------------------------ */
typedef struct {
  char *s;
  size_t n, cap;
  bool failed;
} pf_text;

static void pf_printf(pf_text *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void pf_printf(pf_text *t, const char *fmt, ...) {
  if (t->failed) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    size_t room = t->cap - t->n;
    int k = vsnprintf(t->s ? t->s + t->n : NULL, t->s ? room : 0, fmt, ap);
    va_end(ap);
    if (k < 0) {
      t->failed = true;
      return;
    }
    if (t->s && (size_t)k < room) {
      t->n += (size_t)k;
      return;
    }
    size_t need = t->n + (size_t)k + 1, cap = t->cap ? t->cap : 256;
    while (cap < need) cap *= 2;
    char *s = realloc(t->s, cap);
    if (!s) {
      t->failed = true;
      return;
    }
    t->s = s, t->cap = cap;
  }
}

/* A real as C++'s ostream with precision(17) and the default float field. */
static void pf_real(pf_text *t, double v) { pf_printf(t, "%.17g", v); }

static void pf_box(pf_text *t, const bf_box *b) {
  pf_printf(t, "((");
  for (int d = 0; d < b->dim; ++d) pf_printf(t, d ? ",%d" : "%d", b->lo[d]);
  pf_printf(t, ") (");
  for (int d = 0; d < b->dim; ++d) pf_printf(t, d ? ",%d" : "%d", b->hi[d]);
  pf_printf(t, ") (");
  for (int d = 0; d < b->dim; ++d) pf_printf(t, d ? ",%d" : "%d", bf_box_is_nodal(b, d) ? 1 : 0);
  pf_printf(t, "))");
}

/* ---- files ------------------------------------------------------------------------ */
static int pf_io_error(const char *what, const char *path, int err) {
  return bf_error_set(BF_ERROR_IO, "write_plotfile", "cannot %s '%s': %s", what, path, strerror(err));
}

static int pf_io_error2(const char *who, const char *what, const char *path, int err) {
  return bf_error_set(BF_ERROR_IO, who, "cannot %s '%s': %s", what, path, strerror(err));
}

static char *pf_join(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  char *s = malloc(la + lb + 2);
  if (!s) return NULL;
  memcpy(s, a, la);
  s[la] = '/';
  memcpy(s + la + 1, b, lb + 1);
  return s;
}

static int pf_write_all2(const char *who, FILE *f, const void *p, size_t n, const char *path) {
  if (n && fwrite(p, 1, n, f) != n) return pf_io_error2(who, "write", path, errno ? errno : EIO);
  return BF_SUCCESS;
}

/* A whole text file, flushed to the disk before it is closed (it is renamed into place later). */
static int pf_write_text_path(const char *who, const char *path, const pf_text *t) {
  if (t->failed) BF_ERROR(BF_ERROR_MEMORY, "out of memory formatting %s", path);
  int err = BF_SUCCESS;
  FILE *f = fopen(path, "wb");
  if (!f) {
    err = pf_io_error2(who, "create", path, errno);
  } else {
    errno = 0;
    err = pf_write_all2(who, f, t->s, t->n, path);
    if (!err && bf_sync_file(f) != 0) err = pf_io_error2(who, "write", path, errno ? errno : EIO);
    errno = 0;
    if (fclose(f) != 0 && !err) err = pf_io_error2(who, "write", path, errno ? errno : EIO);
  }
  return err;
}

static int pf_write_text_file(const char *dir, const char *name, const pf_text *t) {
  if (t->failed) BF_ERROR(BF_ERROR_MEMORY, "out of memory formatting %s", name);
  char *path = pf_join(dir, name);
  if (!path) BF_ERROR(BF_ERROR_MEMORY, "out of memory");
  int err = pf_write_text_path("write_plotfile", path, t);
  free(path);
  return err;
}

static int pf_mkdir(const char *path) {
  if (mkdir(path, 0755) != 0) return pf_io_error("create directory", path, errno);
  return BF_SUCCESS;
}

/* Remove a directory tree that this writer made (no symbolic links followed). */
static void pf_remove_tree(const char *path) {
  DIR *d = opendir(path);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
      char *sub = pf_join(path, e->d_name);
      if (!sub) break;
      struct stat st;
      if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
        pf_remove_tree(sub);
      else
        unlink(sub);
      free(sub);
    }
    closedir(d);
  }
  rmdir(path);
}

/* ---- checks --------------------------------------------------------------------- */
static int pf_check_name(const char *s, const char *what, bool allow_slash, bool allow_empty) {
  BF_CHECK(s, BF_ERROR_VALUE, "%s must not be NULL", what);
  BF_CHECK(allow_empty || s[0], BF_ERROR_VALUE, "%s must not be empty", what);
  BF_CHECK(!strpbrk(s, "\n\r"), BF_ERROR_VALUE, "%s must not hold a line break: '%s'", what, s);
  BF_CHECK(allow_slash || !strchr(s, '/'), BF_ERROR_VALUE, "%s must not hold '/': '%s'", what, s);
  return BF_SUCCESS;
}

/* ---- the top Header (AMReX's WriteGenericPlotfileHeader) --------------------------- */
static void pf_header(pf_text *t, int nlevels, const bf_multifab *const *mfs, int nvars,
                      const char *const *varnames, const bf_geometry *geoms, double time, const int *steps,
                      const bf_intvect *ref_ratios, const char *version, const char *lp, const char *mp) {
  int dim = geoms[0].dim, finest = nlevels - 1;
  pf_printf(t, "%s\n%d\n", version, nvars);
  for (int i = 0; i < nvars; ++i) pf_printf(t, "%s\n", varnames[i]);
  pf_printf(t, "%d\n", dim);
  pf_real(t, time);
  pf_printf(t, "\n%d\n", finest);
  for (int d = 0; d < dim; ++d) pf_real(t, geoms[0].prob_domain.lo[d]), pf_printf(t, " ");
  pf_printf(t, "\n");
  for (int d = 0; d < dim; ++d) pf_real(t, geoms[0].prob_domain.hi[d]), pf_printf(t, " ");
  pf_printf(t, "\n");
  for (int l = 0; l < finest; ++l) pf_printf(t, "%d ", ref_ratios[l].v[0]);
  pf_printf(t, "\n");
  for (int l = 0; l <= finest; ++l) pf_box(t, &geoms[l].domain), pf_printf(t, " ");
  pf_printf(t, "\n");
  for (int l = 0; l <= finest; ++l) pf_printf(t, "%d ", steps[l]);
  pf_printf(t, "\n");
  for (int l = 0; l <= finest; ++l) {
    for (int d = 0; d < dim; ++d) pf_real(t, geoms[l].dx[d]), pf_printf(t, " ");
    pf_printf(t, "\n");
  }
  pf_printf(t, "%d\n0\n", geoms[0].coord);
  for (int l = 0; l <= finest; ++l) {
    const bf_boxarray *ba = bf_multifab_boxarray(mfs[l]);
    int64_t n = bf_boxarray_size(ba);
    const bf_box *boxes = bf_boxarray_data(ba);
    pf_printf(t, "%d %lld ", l, (long long)n);
    pf_real(t, time);
    pf_printf(t, "\n%d\n", steps[l]);
    const bf_geometry *g = &geoms[l];
    for (int64_t i = 0; i < n; ++i) {
      const bf_box *b = &boxes[i];
      for (int d = 0; d < dim; ++d) {
        /* AMReX: RealBox(shift(b, -domain.lo), dx, prob_lo) */
        int lo = b->lo[d] - g->domain.lo[d], hi = b->hi[d] - g->domain.lo[d] + (bf_box_is_nodal(b, d) ? 0 : 1);
        double xlo = g->prob_domain.lo[d] + g->dx[d] * (double)lo;
        double xhi = g->prob_domain.lo[d] + g->dx[d] * (double)hi;
        pf_real(t, xlo);
        pf_printf(t, " ");
        pf_real(t, xhi);
        pf_printf(t, "\n");
      }
    }
    pf_printf(t, "%s%d/%s\n", lp, l, mp);
  }
}

/* ---- one level's MultiFab (VisMF::Write, version 1, one file) ----------------------- */
static const char *pf_real_descriptor(int precision) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  return precision == BF_DTYPE_FLOAT ? "((8, (32 8 23 0 1 9 0 127)),(4, (1 2 3 4)))"
                                     : "((8, (64 11 52 0 1 12 0 1023)),(8, (1 2 3 4 5 6 7 8)))";
#else
  return precision == BF_DTYPE_FLOAT ? "((8, (32 8 23 0 1 9 0 127)),(4, (4 3 2 1)))"
                                     : "((8, (64 11 52 0 1 12 0 1023)),(8, (8 7 6 5 4 3 2 1)))";
#endif
}

/* The FAB header line of a FAB on box wb ("FAB ((8, (64 11 52 ...)))((lo) (hi) (t)) ncomp\n"),
 * malloc'd into *line (length *len). */
int bf_pf_fab_header_line(const bf_box *wb, int ncomp, int precision, char **line, size_t *len) {
  pf_text t = {0};
  pf_printf(&t, "FAB %s", pf_real_descriptor(precision));
  pf_box(&t, wb);
  pf_printf(&t, " %d\n", ncomp);
  if (t.failed) {
    free(t.s);
    return bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory");
  }
  *line = t.s, *len = t.n;
  return BF_SUCCESS;
}

int bf_pf_write_local_fabs(const bf_multifab *mf, FILE *f, const char *path, int precision, bool grown,
                           const char *who, double *mins, double *maxs) {
  int64_t nlocal = bf_multifab_nlocal(mf);
  int ncomp = bf_multifab_ncomp(mf), dim = bf_multifab_dim(mf);
  bool host = bf_arena_is_host_accessible(bf_multifab_arena(mf));
  size_t esize = precision == BF_DTYPE_FLOAT ? 4 : 8;
  void *row = NULL, *stage = NULL;
  int err = BF_SUCCESS;
  for (int64_t li = 0; li < nlocal; ++li) {
    bf_mf_fab fab;
    if ((err = bf_multifab_local_fab(mf, li, &fab))) goto done;
    const bf_box *vb = &fab.validbox; /* min/max: over the valid box (AMReX) */
    const bf_box *wb = grown ? &fab.fabbox : &fab.validbox; /* written */
    int64_t wlen[3] = {1, 1, 1}, wsh[3] = {0, 0, 0};
    for (int d = 0; d < dim; ++d) wlen[d] = bf_box_length(wb, d), wsh[d] = wb->lo[d] - fab.fabbox.lo[d];
    int64_t len[3] = {1, 1, 1}, sh[3] = {0, 0, 0};
    for (int d = 0; d < dim; ++d) len[d] = bf_box_length(vb, d), sh[d] = vb->lo[d] - fab.fabbox.lo[d];
    const double *base = fab.data;
    if (!host) { /* device memory: stage the whole fab on the host */
      size_t bytes = (size_t)fab.stride[2] * (size_t)ncomp * sizeof(double);
      void *s = realloc(stage, bytes ? bytes : 1);
      if (!s) {
        err = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory staging a fab of %zu bytes", bytes);
        goto done;
      }
      stage = s;
      if ((err = bf_gpu_memcpy(stage, fab.data, bytes))) goto done;
      base = stage;
    }
    char *line = NULL;
    size_t llen = 0;
    if ((err = bf_pf_fab_header_line(wb, ncomp, precision, &line, &llen))) goto done;
    errno = 0;
    err = pf_write_all2(who, f, line, llen, path);
    free(line);
    if (err) goto done;
    void *r = realloc(row, (size_t)wlen[0] * esize);
    if (!r) {
      err = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory");
      goto done;
    }
    row = r;
    /* without ghost cells a component of a fab is one contiguous block: one min/max pass, one write */
    bool contiguous = precision != BF_DTYPE_FLOAT && sh[0] == 0 && sh[1] == 0 && sh[2] == 0 &&
                      fab.stride[0] == len[0] && fab.stride[1] == len[0] * len[1] &&
                      fab.stride[2] == len[0] * len[1] * len[2];
    for (int n = 0; contiguous && n < ncomp; ++n) {
      const double *p = base + n * fab.stride[2];
      int64_t m = fab.stride[2];
      double mn = m > 0 ? p[0] : 0, mx = mn;
      for (int64_t i = 0; i < m; ++i) {
        double v = p[i];
        if (v < mn) mn = v;
        if (v > mx) mx = v;
      }
      if ((err = pf_write_all2(who, f, p, (size_t)m * 8, path))) goto done;
      mins[li * ncomp + n] = mn, maxs[li * ncomp + n] = mx;
    }
    for (int n = 0; !contiguous && n < ncomp; ++n) {
      double mn = 0, mx = 0;
      bool first = true;
      for (int64_t k = 0; k < len[2]; ++k)
        for (int64_t j = 0; j < len[1]; ++j) {
          const double *p = base + n * fab.stride[2] + (k + sh[2]) * fab.stride[1] + (j + sh[1]) * fab.stride[0] + sh[0];
          if (first) mn = mx = p[0], first = false;
          for (int64_t i = 0; i < len[0]; ++i) {
            double v = p[i];
            if (v < mn) mn = v;
            if (v > mx) mx = v;
          }
        }
      for (int64_t k = 0; k < wlen[2]; ++k)
        for (int64_t j = 0; j < wlen[1]; ++j) {
          const double *p =
              base + n * fab.stride[2] + (k + wsh[2]) * fab.stride[1] + (j + wsh[1]) * fab.stride[0] + wsh[0];
          if (precision == BF_DTYPE_FLOAT) {
            float *q = row;
            for (int64_t i = 0; i < wlen[0]; ++i) q[i] = (float)p[i];
            err = pf_write_all2(who, f, q, (size_t)wlen[0] * 4, path);
          } else {
            err = pf_write_all2(who, f, p, (size_t)wlen[0] * 8, path);
          }
          if (err) goto done;
        }
      mins[li * ncomp + n] = mn, maxs[li * ncomp + n] = mx;
    }
  }
done:
  free(row), free(stage);
  return err;
}

int bf_pf_write_mf_header(const bf_multifab *mf, bool grown, const char *const *fab_names, const int64_t *offsets,
                          const double *mins, const double *maxs, const char *hdr_path, const char *who) {
  const bf_boxarray *ba = bf_multifab_boxarray(mf);
  int64_t nbox = bf_boxarray_size(ba);
  int ncomp = bf_multifab_ncomp(mf), dim = bf_multifab_dim(mf);
  bf_intvect ng = grown ? bf_multifab_ngrow(mf) : bf_intvect_splat(dim, 0);
  pf_text h = {0};
  /* the multi-FAB header (AMReX: the ghost width as one int when uniform, else an IntVect) */
  pf_printf(&h, "1\n1\n%d\n", ncomp);
  bool uniform = true;
  for (int d = 1; d < dim; ++d) uniform = uniform && ng.v[d] == ng.v[0];
  if (uniform) {
    pf_printf(&h, "%d\n", ng.v[0]);
  } else {
    for (int d = 0; d < dim; ++d) pf_printf(&h, d ? ",%d" : "(%d", ng.v[d]);
    pf_printf(&h, ")\n");
  }
  pf_printf(&h, "(%lld 0\n", (long long)nbox);
  const bf_box *boxes = bf_boxarray_data(ba);
  for (int64_t i = 0; i < nbox; ++i) pf_box(&h, &boxes[i]), pf_printf(&h, "\n");
  pf_printf(&h, ")\n%lld\n", (long long)nbox);
  for (int64_t i = 0; i < nbox; ++i) pf_printf(&h, "FabOnDisk: %s %lld\n", fab_names[i], (long long)offsets[i]);
  for (int which = 0; which < 2; ++which) {
    const double *v = which ? maxs : mins;
    pf_printf(&h, "\n%lld,%d\n", (long long)nbox, ncomp);
    for (int64_t i = 0; i < nbox; ++i) {
      for (int n = 0; n < ncomp; ++n) pf_printf(&h, "%.17e,", v[i * ncomp + n]);
      pf_printf(&h, "\n");
    }
  }
  pf_printf(&h, "\n");
  int err = pf_write_text_path(who, hdr_path, &h);
  free(h.s);
  return err;
}

/* AMReX's name for the plotfile it moves aside, "<name>.old.<unique>", into old (size bytes), one that does
 * not exist yet.  When that is longer than the file system takes (a name near NAME_MAX), the name's last
 * part is cut, at a character boundary, to leave the result no longer than the name itself: every name that
 * can be written can be moved aside.  0, or -1 with errno set. */
static int pf_old_name(const char *final, char *old, size_t size) {
  const char *slash = strrchr(final, '/');
  size_t b = slash ? (size_t)(slash - final) + 1 : 0, len = strlen(final);
  bool cut = false;
  for (int attempt = 0; attempt < 1000; ++attempt) {
    struct timeval tv;
    char suffix[64];
    gettimeofday(&tv, NULL);
    if (attempt)
      snprintf(suffix, sizeof suffix, ".old.%ld%06ld_%d", (long)tv.tv_sec, (long)tv.tv_usec, attempt);
    else
      snprintf(suffix, sizeof suffix, ".old.%ld%06ld", (long)tv.tv_sec, (long)tv.tv_usec);
    size_t keep = len, sl = strlen(suffix);
    if (cut) {
      keep = len - b > sl ? len - sl : b + 1;
      while (keep > b + 1 && ((unsigned char)final[keep] & 0xc0) == 0x80) --keep; /* not inside a character */
    }
    snprintf(old, size, "%.*s%s", (int)keep, final, suffix);
    struct stat st;
    if (lstat(old, &st) == 0) continue; /* taken */
    if (errno == ENAMETOOLONG && !cut) {
      cut = true, --attempt;
      continue;
    }
    return errno == ENOENT ? 0 : -1;
  }
  errno = EEXIST;
  return -1;
}

/* Move the existing `final` aside to a fresh "<name>.old.<unique>" (its name written into old, `size`
 * bytes), by renameat2's RENAME_NOREPLACE from `from` (final itself, or the temporary holding it after an
 * exchange): a name taken between pf_old_name's look and the rename is never replaced, another is chosen.
 * 0, or -1 with errno set. */
static int pf_move_aside(const char *from, const char *final, char *old, size_t size) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    if (pf_old_name(final, old, size) != 0) return -1;
    if (bf_rename_noreplace(from, old) == 0) return 0;
    if (errno != EEXIST && errno != ENOTEMPTY) return -1;
  }
  errno = EEXIST;
  return -1;
}

/* The I/O rank installs the finished plotfile `tmp` as `final`.  An existing one is moved to
 * "<name>.old.<unique>" (AMReX's PreBuildDirectorHierarchy keeps it there): where the file system can,
 * tmp and final are first exchanged (renameat2's RENAME_EXCHANGE: the name never stops naming a complete
 * plotfile), then the previous one, now under tmp, is renamed to the .old name; elsewhere final is renamed
 * to the .old name, then tmp to final.  The previous plotfile is never deleted: on a failure it goes back
 * under its name, and when that fails too, the error says where it is kept (*keep_tmp: under tmp, which
 * the caller must then not remove).  Then the renames (and the folders made) are flushed to the disk. */
static int pf_install(const char *tmp, const char *final, char *old, size_t size, int nmade, char *const *made,
                      bool *keep_tmp) {
  struct stat st;
  int err = BF_SUCCESS;
  bool installed = false, moved = false;
  *keep_tmp = false;
  if (lstat(final, &st) == 0) {
    if (bf_rename_exchange(tmp, final) == 0) { /* final: the new one; tmp: the previous one */
      if (pf_move_aside(tmp, final, old, size) == 0) {
        installed = true;
      } else {
        int e = errno;
        if (bf_rename_exchange(tmp, final) == 0) { /* the previous one back; the new one is removed */
          err = pf_io_error("move aside the existing", final, e);
        } else {
          *keep_tmp = true; /* the new one is in place: the previous one stays under the temporary name */
          err = bf_error_set(BF_ERROR_IO, "write_plotfile",
                             "the previous plotfile is kept as '%s': wrote '%s' but could neither move the previous "
                             "one aside to a .old name (%s) nor put it back (%s)",
                             tmp, final, strerror(e), strerror(errno));
        }
      }
    } else if (!bf_exchange_unsupported(errno)) {
      err = pf_io_error("replace the existing", final, errno);
    } else if (pf_move_aside(final, final, old, size) != 0) { /* no exchange here: in two steps */
      err = pf_io_error("move aside the existing", final, errno);
    } else {
      moved = true;
    }
  }
  if (!err && !installed && rename(tmp, final) != 0) {
    int e = errno;
    if (!moved || rename(old, final) == 0) /* the previous plotfile back under its name */
      err = pf_io_error("rename the finished plotfile to", final, e);
    else
      err = bf_error_set(BF_ERROR_IO, "write_plotfile",
                         "the previous plotfile is kept as '%s': cannot rename the finished plotfile to '%s' (%s), "
                         "nor the previous one back (%s)",
                         old, final, strerror(e), strerror(errno));
  }
  for (int i = nmade; !err && i >= 0; --i) /* the renames, and the folders made, on the disk too */
    if (bf_sync_parent(i == nmade ? final : made[i]) != 0)
      err = bf_error_set(BF_ERROR_IO, "write_plotfile", "wrote '%s' but cannot flush its directory to the disk: %s",
                         final, strerror(errno));
  return err;
}

/* ---- the whole plotfile -------------------------------------------------------------- */
/* The I/O rank's part: the directories, Header and job_info. */
static int pf_fill_io(const char *tmp, int nlevels, const bf_multifab *const *mfs, int nvars,
                      const char *const *varnames, const bf_geometry *geoms, double time, const int *steps,
                      const bf_intvect *ref_ratios, const char *version, const char *lp, const char *mp,
                      const bf_plotfile_options *opt) {
  int err = BF_SUCCESS;
  char lname[400];
  for (int l = 0; l < nlevels && !err; ++l) {
    snprintf(lname, sizeof lname, "%s%d", lp, l);
    char *p = pf_join(tmp, lname);
    if (!p) BF_ERROR(BF_ERROR_MEMORY, "out of memory");
    err = pf_mkdir(p);
    free(p);
  }
  for (int e = 0; !err && opt && e < opt->n_extra_dirs; ++e) {
    char *p = pf_join(tmp, opt->extra_dirs[e]);
    if (!p) BF_ERROR(BF_ERROR_MEMORY, "out of memory");
    err = pf_mkdir(p);
    for (int l = 0; l < nlevels && !err; ++l) {
      snprintf(lname, sizeof lname, "%s%d", lp, l);
      char *q = pf_join(p, lname);
      if (!q) {
        free(p);
        BF_ERROR(BF_ERROR_MEMORY, "out of memory");
      }
      err = pf_mkdir(q);
      free(q);
    }
    free(p);
  }
  if (err) return err;
  pf_text t = {0};
  pf_header(&t, nlevels, mfs, nvars, varnames, geoms, time, steps, ref_ratios, version, lp, mp);
  err = pf_write_text_file(tmp, "Header", &t);
  free(t.s);
  if (err) return err;
  pf_text j = {0};
  pf_printf(&j,
            "===============================================================================\n"
            " Job Information\n"
            "===============================================================================\n"
            "written by boxfab %s (an implementation of the amrex plotfile format, AMReX HyperCLaw-V1.1)\n"
            "number of MPI processes: %d\n",
            bf_version(), bf_parallel_nprocs());
  err = pf_write_text_file(tmp, "job_info", &j);
  free(j.s);
  return err;
}

/* Collective over the ranks of c: the I/O rank (0) makes the directories and writes Header and job_info,
 * then every rank writes its FABs of every level (plotfile_mpi.c); the same result on every rank. */
static int pf_fill(const struct bf_comm *c, const char *tmp, int nlevels, const bf_multifab *const *mfs,
                   int nvars, const char *const *varnames, const bf_geometry *geoms, double time, const int *steps,
                   const bf_intvect *ref_ratios, const char *version, const char *lp, const char *mp,
                   const bf_plotfile_options *opt, int precision) {
  bool io = bf_comm_rank(c) == 0;
  int err = BF_SUCCESS;
  if (io) err = pf_fill_io(tmp, nlevels, mfs, nvars, varnames, geoms, time, steps, ref_ratios, version, lp, mp, opt);
  err = bf_comm_agree(c, err); /* the level directories exist before any rank writes into them */
  char lname[400];
  for (int l = 0; l < nlevels && !err; ++l) {
    snprintf(lname, sizeof lname, "%s%d", lp, l);
    char *p = pf_join(tmp, lname), *h = p ? pf_join(p, mp) : NULL, *hp = NULL;
    if (h && (hp = malloc(strlen(h) + 3))) snprintf(hp, strlen(h) + 3, "%s_H", h);
    err = hp ? BF_SUCCESS : bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory");
    err = bf_comm_agree(c, err);
    if (!err) err = bf_pf_write_mf_dist(mfs[l], p, mp, NULL, hp, precision, false, "write_plotfile", NULL);
    if (!err && io && bf_sync_dir(p) != 0) err = pf_io_error("flush the directory", p, errno);
    free(p), free(h), free(hp);
    err = bf_comm_agree(c, err);
  }
  if (!err && io && bf_sync_dir(tmp) != 0) err = pf_io_error("flush the directory", tmp, errno);
  return bf_comm_agree(c, err);
}

int bf_write_multi_level_plotfile(const char *name, int nlevels, const bf_multifab *const *mfs, int nvars,
                                  const char *const *varnames, const bf_geometry *geoms, double time,
                                  const int *level_steps, const bf_intvect *ref_ratios,
                                  const bf_plotfile_options *opt) {
  BF_CHECK(name && name[0], BF_ERROR_VALUE, "the plotfile name must not be empty");
  BF_CHECK(nlevels >= 1, BF_ERROR_VALUE, "nlevels must be >= 1, got %d", nlevels);
  BF_CHECK(mfs && geoms && level_steps, BF_ERROR_VALUE, "mfs, geoms and level_steps must not be NULL");
  BF_CHECK(nlevels == 1 || ref_ratios, BF_ERROR_VALUE, "ref_ratios must be given for %d levels", nlevels);
  BF_CHECK(nvars >= 0 && (nvars == 0 || varnames), BF_ERROR_VALUE, "bad variable names (%d)", nvars);
  BF_CALL(pf_check_name(name, "the plotfile name", true, false));
  const char *version = opt && opt->version_name ? opt->version_name : "HyperCLaw-V1.1";
  const char *lp = opt && opt->level_prefix ? opt->level_prefix : "Level_";
  const char *mp = opt && opt->mf_prefix ? opt->mf_prefix : "Cell";
  int precision = opt ? opt->precision : BF_DTYPE_DOUBLE;
  BF_CHECK(precision == BF_DTYPE_DOUBLE || precision == BF_DTYPE_FLOAT, BF_ERROR_VALUE,
           "precision must be double or float, got dtype %d", precision);
  BF_CALL(pf_check_name(version, "versionName", true, false));
  /* the Header's first token (AMReX reads it with >>): empty or with a blank, the Header could not be read */
  BF_CHECK(!strpbrk(version, " \t\v\f") && !bf_name_has_edge_space(version), BF_ERROR_VALUE,
           "versionName must not hold a blank: '%s'", version);
  BF_CALL(pf_check_name(lp, "levelPrefix", false, false));
  BF_CALL(pf_check_name(mp, "mfPrefix", false, false));
  /* the Header names each level's data "<levelPrefix>L/<mfPrefix>" and Cell_H its files as one
   * whitespace-separated token each (AMReX reads them with >>, yt split()s the FabOnDisk lines at any
   * Unicode blank): a blank made an unreadable plotfile */
  BF_CHECK(!bf_name_has_any_space(lp), BF_ERROR_VALUE, "levelPrefix must not hold a blank: '%s'", lp);
  BF_CHECK(!bf_name_has_any_space(mp), BF_ERROR_VALUE, "mfPrefix must not hold a blank: '%s'", mp);
  BF_CHECK(strlen(lp) < 300, BF_ERROR_VALUE, "levelPrefix is too long");
  BF_CHECK(strcmp(lp, "Header") && strcmp(lp, "job_info"), BF_ERROR_VALUE, "levelPrefix '%s' is a reserved name", lp);
  if (opt && opt->n_extra_dirs) {
    BF_CHECK(opt->n_extra_dirs > 0 && opt->extra_dirs, BF_ERROR_VALUE, "bad extra_dirs");
    for (int e = 0; e < opt->n_extra_dirs; ++e) {
      BF_CALL(pf_check_name(opt->extra_dirs[e], "an extra directory name", false, false));
      BF_CHECK(strcmp(opt->extra_dirs[e], ".") && strcmp(opt->extra_dirs[e], ".."), BF_ERROR_VALUE,
               "extra directory name '%s' is not allowed", opt->extra_dirs[e]);
    }
  }
  /* each name is one line of the Header, read back with its blanks at either end stripped (AMReX's
   * PlotFileData trims " \t", yt strip()s): such a name would come back changed */
  for (int i = 0; i < nvars; ++i) {
    BF_CALL(pf_check_name(varnames[i], "a variable name", true, false));
    BF_CHECK(!bf_name_has_edge_space(varnames[i]), BF_ERROR_VALUE,
             "variable name %d '%s' begins or ends with a blank, which readers of the Header strip", i, varnames[i]);
  }
  int dim = geoms[0].dim;
  BF_CHECK_DIM(dim);
  for (int l = 0; l < nlevels; ++l) {
    const bf_multifab *mf = mfs[l];
    BF_CHECK(mf, BF_ERROR_VALUE, "level %d: no MultiFab", l);
    BF_CALL(bf_multifab_check(mf));
    BF_CHECK(bf_multifab_dim(mf) == dim && geoms[l].dim == dim, BF_ERROR_TYPE,
             "level %d: dimensions differ (MultiFab %d, Geometry %d, level 0 %d)", l, bf_multifab_dim(mf),
             geoms[l].dim, dim);
    BF_CHECK(bf_multifab_dtype(mf) == BF_DTYPE_DOUBLE, BF_ERROR_TYPE, "level %d: plotfiles hold real data, not %s",
             l, bf_dtype_name(bf_multifab_dtype(mf)));
    BF_CHECK(bf_multifab_ncomp(mf) == nvars, BF_ERROR_VALUE,
             "level %d: the MultiFab has %d components but %d variable names are given", l,
             bf_multifab_ncomp(mf), nvars);
    BF_CHECK(bf_multifab_is_allocated(mf), BF_ERROR_RUNTIME, "level %d: the MultiFab holds no data", l);
    BF_CHECK(bf_pf_comm_of_mf(mf) == bf_pf_comm_of_mf(mfs[0]), BF_ERROR_VALUE,
             "level %d: the MultiFabs belong to different runtime instances", l);
    if (l + 1 < nlevels) BF_CHECK(ref_ratios[l].dim == dim, BF_ERROR_TYPE, "ref_ratio %d has dimension %d", l,
                                  ref_ratios[l].dim);
  }

  /* a temporary sibling directory: "<parent>/.bftmp.<unique>", made by the I/O rank (0) after the missing
   * parent folders (AMReX's PreBuildDirectorHierarchy: mkdir -p) and renamed by it once every rank has
   * written its part; every step's outcome is agreed by all ranks */
  const struct bf_comm *c = bf_pf_comm_of_mf(mfs[0]);
  bool io = bf_comm_rank(c) == 0;
  size_t len = strlen(name);
  while (len > 1 && name[len - 1] == '/') --len;
  {
    size_t b = len;
    while (b > 0 && name[b - 1] != '/') --b;
    size_t blen = len - b;
    BF_CHECK(blen > 0 && !(blen == 1 && name[b] == '.') && !(blen == 2 && name[b] == '.' && name[b + 1] == '.'),
             BF_ERROR_VALUE, "the plotfile name '%s' names no new folder (it ends in '/', '.' or '..')", name);
  }
  char *final = malloc(len + 1), *tmp = NULL, *old = malloc(len + 64), *tname = calloc(1, len + 64);
  bf_made_dirs made = {0};
  int err = BF_SUCCESS;
  bool keep_tmp = false; /* it holds the previous plotfile, which could not go back under its name */
  if (!final || !old || !tname) err = bf_error_set(BF_ERROR_MEMORY, "write_plotfile", "out of memory");
  if ((err = bf_comm_agree(c, err))) goto done;
  memcpy(final, name, len);
  final[len] = '\0';
  if (io) {
    struct stat st;
    char *where = NULL;
    if (bf_make_parents(final, &made, &where) != 0)
      err = bf_error_set(BF_ERROR_IO, "write_plotfile", "cannot create the folder '%s' for '%s': %s",
                         where ? where : final, final, strerror(errno));
    else if (lstat(final, &st) != 0 && errno != ENOENT) /* a name too long, a folder that cannot be searched */
      err = pf_io_error("write", final, errno);
    else if (!(tmp = bf_make_sibling(final, true)))
      err = bf_error_set(BF_ERROR_IO, "write_plotfile", "cannot create a directory beside '%s': %s", final,
                         strerror(errno));
    else
      snprintf(tname, len + 64, "%s", tmp);
    free(where);
  }
  if ((err = bf_comm_agree(c, err))) goto io_cleanup;
  if ((err = bf_comm_agree(c, bf_comm_bcast(c, tname, len + 64, 0)))) goto io_cleanup;
  err = pf_fill(c, tname, nlevels, mfs, nvars, varnames, geoms, time, level_steps, ref_ratios, version, lp, mp,
                opt, precision);
  if (!err && io) err = pf_install(tmp, final, old, len + 64, made.n, made.dirs, &keep_tmp);
io_cleanup:
  /* every rank is done with the temporary directory (pf_fill ends with an agreement) */
  if (err && io && tmp && !keep_tmp) {
    struct stat st;
    if (lstat(tmp, &st) == 0) pf_remove_tree(tmp);
  }
  if (err) /* the folders made for it go too (only those still empty) */
    bf_unmake_dirs(&made);
  bf_made_dirs_clear(&made);
  err = bf_error_writing(bf_comm_agree(c, err), final);
done:
  free(final), free(tmp), free(old), free(tname);
  return err;
}

int bf_write_single_level_plotfile(const char *name, const bf_multifab *mf, int nvars, const char *const *varnames,
                                   const bf_geometry *geom, double time, int level_step,
                                   const bf_plotfile_options *opt) {
  BF_CHECK(geom, BF_ERROR_VALUE, "geom must not be NULL");
  return bf_write_multi_level_plotfile(name, 1, &mf, nvars, varnames, geom, time, &level_step, NULL, opt);
}
