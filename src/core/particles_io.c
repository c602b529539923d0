/* Particle I/O in AMReX's binary particle format (AMReX_ParticleIO.H,
 * AMReX_WriteBinaryParticleData.H; the format is described in
 * /work/shared/PLOTFILE.md and docs/particles.md).
 *
 *   <dir>/<name>/Header             text: version, dim, component names,
 *                                   counts, next id, levels, grid table
 *   <dir>/<name>/Level_L/Particle_H the level's BoxArray
 *   <dir>/<name>/Level_L/DATA_00000 per grid: int32 block [id, cpu, ints...]
 *                                   then real block [pos..., reals...]
 *
 * Writing: one file per level (one rank), only particles with id > 0, the
 * whole directory built under a temporary sibling name and renamed into
 * place.  Reading: every file is untrusted; counts are checked against the
 * file sizes before anything is allocated, all data is read and checked
 * before the container changes, then the particles are added and
 * redistributed. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <stdarg.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "comm.h"
#include "fileio.h"
#include "boxfab/idcpu.h"
#include "boxfab/particles.h"

enum { PIO_MAX_TEXT = 64 << 20, PIO_MAX_NAME = 4096, PIO_PATH = 4096 };

/* ---- small helpers ------------------------------------------------------------ */

static int join(char *out, const char *a, const char *b) {
  int n = snprintf(out, PIO_PATH, "%s/%s", a, b);
  BF_CHECK(n > 0 && n < PIO_PATH, BF_ERROR_IO, "path too long: %.200s/%.200s", a, b);
  return BF_SUCCESS;
}

static int mkdir_p(const char *path) {
  char tmp[PIO_PATH];
  size_t n = strlen(path);
  BF_CHECK(n > 0 && n < PIO_PATH, BF_ERROR_IO, "bad directory name %.300s", path);
  memcpy(tmp, path, n + 1);
  for (size_t i = 1; i <= n; ++i) {
    if (tmp[i] == '/' || tmp[i] == '\0') {
      char c = tmp[i];
      tmp[i] = '\0';
      if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
        BF_ERROR(BF_ERROR_IO, "cannot create directory %.300s: %s", tmp, strerror(errno));
      tmp[i] = c;
    }
  }
  struct stat st;
  BF_CHECK(stat(path, &st) == 0 && S_ISDIR(st.st_mode), BF_ERROR_IO, "%.300s is not a directory", path);
  return BF_SUCCESS;
}

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb;
  (void)flag;
  (void)ftw;
  return remove(p);
}

static void rm_rf(const char *path) { nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS); }

/* A text file with the number of particle layout lines. */
typedef struct {
  char *buf;
  size_t len, cap;
  bool oom;
} sbuf;

static void sb_printf(sbuf *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *s, const char *fmt, ...) {
  if (s->oom) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(s->buf ? s->buf + s->len : NULL, s->buf ? s->cap - s->len : 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
      s->oom = true;
      return;
    }
    if (s->buf && s->len + (size_t)n < s->cap) {
      s->len += (size_t)n;
      return;
    }
    size_t nc = (s->cap ? s->cap * 2 : 4096) + (size_t)n;
    char *nb = realloc(s->buf, nc);
    if (!nb) {
      s->oom = true;
      return;
    }
    s->buf = nb;
    s->cap = nc;
  }
}

/* A whole file, flushed to the disk before it is closed.  The reason given is that of the call that
 * failed (it was the errno from before fclose, so a failed flush at fclose -- disk full -- was
 * reported with an unrelated reason or "Success"). */
static int write_file(const char *path, const void *data, size_t n) {
  FILE *f = fopen(path, "wb");
  BF_CHECK(f != NULL, BF_ERROR_IO, "cannot write %.300s: %s", path, strerror(errno));
  errno = 0;
  int e = 0;
  if (n && fwrite(data, 1, n, f) != n) e = errno ? errno : EIO;
  if (!e && bf_sync_file(f) != 0) e = errno ? errno : EIO;
  errno = 0;
  if (fclose(f) != 0 && !e) e = errno ? errno : EIO;
  BF_CHECK(!e, BF_ERROR_IO, "cannot write %.300s: %s", path, strerror(e));
  return BF_SUCCESS;
}

static void box_text(sbuf *s, const bf_box *b, int dim) {
  sb_printf(s, "((");
  for (int d = 0; d < dim; ++d) sb_printf(s, d ? ",%d" : "%d", b->lo[d]);
  sb_printf(s, ") (");
  for (int d = 0; d < dim; ++d) sb_printf(s, d ? ",%d" : "%d", b->hi[d]);
  sb_printf(s, ") (");
  for (int d = 0; d < dim; ++d) sb_printf(s, d ? ",%d" : "%d", (int)((b->type >> d) & 1u));
  sb_printf(s, "))");
}

/* ---- writing ------------------------------------------------------------------ */

/* The data of one grid (every tile of it), packed as the file holds it. */
typedef struct {
  int32_t *ints;
  double *reals;
  int64_t n, ncap;
} gridpack;

static int pack_tile(const bf_pc *pc, const bf_ptile *t, bool checkpoint, gridpack *g, int ichunk, int rchunk) {
  const bf_playout *L = bf_pc_layout(pc);
  const int dim = L->dim;
  const int64_t np = bf_ptile_size(t) - bf_ptile_num_neighbors(t);
  if (np <= 0) return BF_SUCCESS;
  const int nsoar = bf_ptile_num_real_comps(t), nsoai = bf_ptile_num_int_comps(t);
  int rc = BF_SUCCESS;
  uint64_t *idcpu = malloc((size_t)np * sizeof *idcpu);
  unsigned char *aos = NULL;
  double *col = malloc((size_t)np * sizeof *col);
  int32_t *icol = malloc((size_t)np * sizeof *icol);
  const size_t ssz = bf_playout_struct_size(L);
  if (!L->pure_soa) aos = malloc((size_t)np * ssz);
  if (!idcpu || !col || !icol || (!L->pure_soa && !aos)) {
    rc = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory packing %" PRId64 " particles", np);
    goto done;
  }
  if (g->n + np > g->ncap) {
    int64_t nc = g->n + np;
    int32_t *ni = realloc(g->ints, (size_t)nc * (size_t)ichunk * sizeof(int32_t));
    if (ni) g->ints = ni;
    double *nr = realloc(g->reals, (size_t)nc * (size_t)rchunk * sizeof(double));
    if (nr) g->reals = nr;
    if (!ni || !nr) {
      rc = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory packing %" PRId64 " particles", nc);
      goto done;
    }
    g->ncap = nc;
  }
  if (L->pure_soa) {
    if ((rc = bf_podvec_read(bf_ptile_idcpu(t), 0, np, idcpu)) != BF_SUCCESS) goto done;
  } else {
    if ((rc = bf_podvec_read(bf_ptile_aos(t), 0, np, aos)) != BF_SUCCESS) goto done;
    for (int64_t i = 0; i < np; ++i) memcpy(&idcpu[i], aos + (size_t)i * ssz + bf_playout_idcpu_offset(L), 8);
  }
  /* which particles: id > 0 (AMReX's FilterPositiveID) */
  int64_t *slot = malloc((size_t)np * sizeof *slot);
  if (!slot) {
    rc = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory");
    goto done;
  }
  int64_t k = g->n;
  for (int64_t i = 0; i < np; ++i) slot[i] = bf_idcpu_id(idcpu[i]) > 0 ? k++ : -1;
  for (int64_t i = 0; i < np; ++i) {
    if (slot[i] < 0) continue;
    int32_t *ip = g->ints + slot[i] * ichunk;
    if (checkpoint) {
      uint32_t hi = (uint32_t)(idcpu[i] >> 32), lo = (uint32_t)(idcpu[i] & 0xFFFFFFFFu);
      memcpy(&ip[0], &hi, 4);
      memcpy(&ip[1], &lo, 4);
    } else {
      ip[0] = (int32_t)bf_idcpu_id(idcpu[i]);
      ip[1] = bf_idcpu_cpu(idcpu[i]);
    }
    if (!L->pure_soa) {
      const unsigned char *p = aos + (size_t)i * ssz;
      double *rp = g->reals + slot[i] * rchunk;
      memcpy(rp, p, sizeof(double) * (size_t)(dim + L->nsr)); /* pos, then struct reals */
      memcpy(ip + 2, p + bf_playout_idata_offset(L), sizeof(int32_t) * (size_t)L->nsi);
    }
  }
  /* SoA ints after [id, cpu, struct ints] */
  for (int c = 0; c < nsoai && rc == BF_SUCCESS; ++c) {
    if ((rc = bf_podvec_read(bf_ptile_int(t, c), 0, np, icol)) != BF_SUCCESS) break;
    for (int64_t i = 0; i < np; ++i)
      if (slot[i] >= 0) g->ints[slot[i] * ichunk + 2 + L->nsi + c] = icol[i];
  }
  /* SoA reals: pure SoA: positions then the rest, in order; legacy: after pos + struct reals */
  const int roff = L->pure_soa ? 0 : dim + L->nsr;
  for (int c = 0; c < nsoar && rc == BF_SUCCESS; ++c) {
    if ((rc = bf_podvec_read(bf_ptile_real(t, c), 0, np, col)) != BF_SUCCESS) break;
    for (int64_t i = 0; i < np; ++i)
      if (slot[i] >= 0) g->reals[slot[i] * rchunk + roff + c] = col[i];
  }
  if (rc == BF_SUCCESS) g->n = k;
  free(slot);
done:
  free(idcpu);
  free(aos);
  free(col);
  free(icol);
  return rc;
}

static int write_all(const bf_pc *pc, const char *pdir, bool checkpoint, const char *const *rnames, int nr,
                     const char *const *inames, int ni) {
  const bf_playout *L = bf_pc_layout(pc);
  const int dim = L->dim, nlev = bf_pc_num_levels(pc);
  const int ichunk = 2 + ni, rchunk = dim + nr;
  int rc = BF_SUCCESS;
  sbuf hdr = {0}, table = {0};
  int64_t total = 0;
  for (int lev = 0; lev < nlev; ++lev) {
    int64_t n = 0;
    if ((rc = bf_pc_num_particles_at_level(pc, lev, true, false, &n)) != BF_SUCCESS) return rc;
    total += n;
  }
  int64_t next = 0;
  if ((rc = bf_particle_next_id(bf_pc_id_family(pc), 0, &next)) != BF_SUCCESS) return rc;
  sb_printf(&hdr, "%s_double\n%d\n%d\n", checkpoint ? "Version_Two_Dot_One" : "Version_Two_Dot_Zero", dim, nr);
  for (int i = 0; i < nr; ++i) sb_printf(&hdr, "%s\n", rnames[i]);
  sb_printf(&hdr, "%d\n", ni);
  for (int i = 0; i < ni; ++i) sb_printf(&hdr, "%s\n", inames[i]);
  sb_printf(&hdr, "1\n%" PRId64 "\n%" PRId64 "\n%d\n", total, next, nlev - 1);
  for (int lev = 0; lev < nlev && rc == BF_SUCCESS; ++lev) {
    const bf_geometry *geom = NULL;
    bf_boxarray *ba = NULL;
    bf_distmap *dm = NULL;
    if ((rc = bf_pc_level(pc, lev, &geom, &ba, &dm)) != BF_SUCCESS) break;
    const int64_t ng = bf_boxarray_size(ba);
    sb_printf(&hdr, "%" PRId64 "\n", ng);
    int64_t nvalid = 0;
    if ((rc = bf_pc_num_particles_at_level(pc, lev, true, false, &nvalid)) != BF_SUCCESS) break;
    if (nvalid == 0) {
      for (int64_t g = 0; g < ng; ++g) sb_printf(&table, "0 0 0\n");
      continue;
    }
    char ldir[PIO_PATH], path[PIO_PATH], lname[32];
    snprintf(lname, sizeof lname, "Level_%d", lev);
    if ((rc = join(ldir, pdir, lname)) != BF_SUCCESS) break;
    if (mkdir(ldir, 0755) != 0) {
      rc = bf_error_set(BF_ERROR_IO, __func__, "cannot create directory %.300s: %s", ldir, strerror(errno));
      break;
    }
    sbuf ph = {0};
    sb_printf(&ph, "(%" PRId64 " 0\n", ng);
    for (int64_t g = 0; g < ng; ++g) {
      bf_box b;
      bf_boxarray_get(ba, g, &b);
      box_text(&ph, &b, dim);
      sb_printf(&ph, "\n");
    }
    sb_printf(&ph, ")\n");
    if (ph.oom) rc = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory");
    if (rc == BF_SUCCESS && (rc = join(path, ldir, "Particle_H")) == BF_SUCCESS)
      rc = write_file(path, ph.buf, ph.len);
    free(ph.buf);
    if (rc != BF_SUCCESS) break;
    if ((rc = join(path, ldir, "DATA_00000")) != BF_SUCCESS) break;
    FILE *f = fopen(path, "wb");
    if (!f) {
      rc = bf_error_set(BF_ERROR_IO, __func__, "cannot write %.300s: %s", path, strerror(errno));
      break;
    }
    int64_t ntiles = 0;
    bf_pc_tileref *refs = NULL;
    rc = bf_pc_tiles(pc, lev, false, NULL, 0, &ntiles);
    if (rc == BF_SUCCESS && ntiles > 0) {
      refs = malloc((size_t)ntiles * sizeof *refs);
      if (!refs) rc = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory");
      else rc = bf_pc_tiles(pc, lev, false, refs, ntiles, &ntiles);
    }
    int64_t where = 0, ti = 0;
    for (int64_t g = 0; g < ng && rc == BF_SUCCESS; ++g) {
      gridpack gp = {0};
      for (; ti < ntiles && refs[ti].grid < g; ++ti) {
      }
      for (; ti < ntiles && refs[ti].grid == g && rc == BF_SUCCESS; ++ti)
        rc = pack_tile(pc, refs[ti].ptile, checkpoint, &gp, ichunk, rchunk);
      if (rc == BF_SUCCESS) {
        sb_printf(&table, "0 %" PRId64 " %" PRId64 "\n", gp.n, where);
        size_t bi = (size_t)gp.n * (size_t)ichunk * 4, br = (size_t)gp.n * (size_t)rchunk * 8;
        errno = 0;
        if ((bi && fwrite(gp.ints, 1, bi, f) != bi) || (br && fwrite(gp.reals, 1, br, f) != br))
          rc = bf_error_set(BF_ERROR_IO, __func__, "cannot write %.300s: %s", path, strerror(errno ? errno : EIO));
        where += (int64_t)(bi + br);
      }
      free(gp.ints);
      free(gp.reals);
    }
    free(refs);
    if (rc == BF_SUCCESS && bf_sync_file(f) != 0)
      rc = bf_error_set(BF_ERROR_IO, __func__, "cannot write %.300s: %s", path, strerror(errno ? errno : EIO));
    errno = 0;
    if (fclose(f) != 0 && rc == BF_SUCCESS)
      rc = bf_error_set(BF_ERROR_IO, __func__, "cannot write %.300s: %s", path, strerror(errno ? errno : EIO));
    if (rc == BF_SUCCESS && bf_sync_dir(ldir) != 0)
      rc = bf_error_set(BF_ERROR_IO, __func__, "cannot flush the directory %.300s: %s", ldir, strerror(errno));
  }
  if (rc == BF_SUCCESS) {
    sb_printf(&hdr, "%s", table.buf ? table.buf : "");
    char path[PIO_PATH];
    if (hdr.oom || table.oom) rc = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory");
    else if ((rc = join(path, pdir, "Header")) == BF_SUCCESS)
      rc = write_file(path, hdr.buf, hdr.len);
    if (rc == BF_SUCCESS && bf_sync_dir(pdir) != 0)
      rc = bf_error_set(BF_ERROR_IO, __func__, "cannot flush the directory %.300s: %s", pdir, strerror(errno));
  }
  free(hdr.buf);
  free(table.buf);
  return rc;
}

static int check_name(const char *name) {
  BF_CHECK(name && name[0], BF_ERROR_VALUE, "the particle directory name must not be empty");
  BF_CHECK(strchr(name, '/') == NULL && strcmp(name, ".") != 0 && strcmp(name, "..") != 0, BF_ERROR_VALUE,
           "the particle directory name must be one path component, not %.300s", name);
  return BF_SUCCESS;
}

int bf_pc_write_binary(const bf_pc *pc, const char *dir, const char *name, bool checkpoint, bool named) {
  BF_CHECK(pc != NULL, BF_ERROR_VALUE, "null container");
  int rc = bf_pc_check(pc);
  if (rc != BF_SUCCESS) return rc;
  BF_CHECK(bf_pc_is_defined(pc), BF_ERROR_VALUE, "the particle container is not defined");
  BF_CHECK(dir && dir[0], BF_ERROR_VALUE, "the plotfile directory name must not be empty");
  if ((rc = check_name(name)) != BF_SUCCESS) return rc;
  /* across MPI ranks: not yet (issue 12; waits for the distributed container, branch mpipart), refused on
   * every rank alike rather than several ranks racing to rename one directory */
  BF_CHECK(bf_comm_size(bf_comm_top()) == 1, BF_ERROR_UNSUPPORTED,
           "particle plotfiles, checkpoints and restart across %d MPI ranks are not implemented yet",
           bf_comm_size(bf_comm_top()));
  const bf_playout *L = bf_pc_layout(pc);
  const int dim = L->dim;
  const int nsoar = bf_pc_num_real_comps(pc), nsoai = bf_pc_num_int_comps(pc);
  const int nr = L->nsr + nsoar - (L->pure_soa ? dim : 0), ni = L->nsi + nsoai;
  char **rn = calloc((size_t)nr + 1, sizeof *rn), **in = calloc((size_t)ni + 1, sizeof *in);
  if (!rn || !in) {
    free(rn);
    free(in);
    BF_ERROR(BF_ERROR_MEMORY, "out of memory");
  }
  for (int i = 0; i < nr && rc == BF_SUCCESS; ++i) {
    const char *nm = NULL;
    char def[32];
    int soa = i - L->nsr + (L->pure_soa ? dim : 0);
    if (named && i >= L->nsr) nm = bf_pc_real_comp_name(pc, soa);
    if (!nm) {
      snprintf(def, sizeof def, "real_comp%d", i);
      nm = def;
    }
    rn[i] = strdup(nm);
    if (!rn[i]) rc = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory");
  }
  for (int i = 0; i < ni && rc == BF_SUCCESS; ++i) {
    const char *nm = NULL;
    char def[32];
    if (named && i >= L->nsi) nm = bf_pc_int_comp_name(pc, i - L->nsi);
    if (!nm) {
      snprintf(def, sizeof def, "int_comp%d", i);
      nm = def;
    }
    in[i] = strdup(nm);
    if (!in[i]) rc = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory");
  }
  /* the Header is whitespace-separated: a name with a blank cannot be read back */
  for (int i = 0; i < nr + ni && rc == BF_SUCCESS; ++i) {
    const char *nm = i < nr ? rn[i] : in[i - nr];
    bool bad = !nm[0] || strlen(nm) >= PIO_MAX_NAME;
    for (const char *c = nm; *c && !bad; ++c) bad = *c == ' ' || *c == '\t' || *c == '\n' || *c == '\r';
    if (bad)
      rc = bf_error_set(BF_ERROR_VALUE, __func__,
                        "component name '%.100s' cannot be written (empty, too long or with blanks)", nm);
  }
  /* Built in a temporary sibling "<dir>/.<name>.tmp.<unique>" (a fresh name made with mkdir, never one
   * that is removed first: a predictable "<pid>.<counter>" name was deleted by rm -rf before use, so two
   * writers with the same pid in different PID namespaces sharing a directory removed each other's work),
   * then renamed into place; an existing directory is moved to another fresh sibling and removed. */
  char final[PIO_PATH];
  char *tmp = NULL, *old = NULL;
  if (rc == BF_SUCCESS) rc = mkdir_p(dir);
  if (rc == BF_SUCCESS) rc = join(final, dir, name);
  if (rc == BF_SUCCESS && !(tmp = bf_make_sibling(final, true)))
    rc = bf_error_set(BF_ERROR_IO, __func__, "cannot create a directory beside %.300s: %s", final, strerror(errno));
  if (rc == BF_SUCCESS) {
    rc = write_all(pc, tmp, checkpoint, (const char *const *)rn, nr, (const char *const *)in, ni);
    if (rc == BF_SUCCESS) {
      struct stat st;
      bool had = lstat(final, &st) == 0;
      if (had && !S_ISDIR(st.st_mode))
        rc = bf_error_set(BF_ERROR_IO, __func__, "cannot write %.300s: it exists and is not a directory", final);
      else if (had && !(old = bf_make_sibling(final, true)))
        rc = bf_error_set(BF_ERROR_IO, __func__, "cannot create a directory beside %.300s: %s", final,
                          strerror(errno));
      else if (had && rename(final, old) != 0)
        rc = bf_error_set(BF_ERROR_IO, __func__, "cannot replace %.300s: %s", final, strerror(errno));
      if (rc == BF_SUCCESS && rename(tmp, final) != 0) {
        rc = bf_error_set(BF_ERROR_IO, __func__, "cannot rename %.300s to %.300s: %s", tmp, final, strerror(errno));
        if (had) (void)rename(old, final);
      }
      if (old && rc == BF_SUCCESS)
        rm_rf(old);
      else if (old) /* the empty sibling; a previous directory that could not go back stays (rmdir keeps data) */
        (void)rmdir(old);
      if (rc == BF_SUCCESS && bf_sync_parent(final) != 0)
        rc = bf_error_set(BF_ERROR_IO, __func__, "wrote %.300s but cannot flush its directory to the disk: %s",
                          final, strerror(errno));
    }
    if (rc != BF_SUCCESS) rm_rf(tmp);
  }
  free(tmp);
  free(old);
  for (int i = 0; i < nr; ++i) free(rn[i]);
  for (int i = 0; i < ni; ++i) free(in[i]);
  free(rn);
  free(in);
  return rc;
}

int bf_pc_write_plotfile(const bf_pc *pc, const char *dir, const char *name) {
  return bf_pc_write_binary(pc, dir, name, false, false);
}

int bf_pc_checkpoint(const bf_pc *pc, const char *dir, const char *name) {
  return bf_pc_write_binary(pc, dir, name, true, false);
}

/* ---- reading ------------------------------------------------------------------ */

/* A whole text file (no NUL byte), at most PIO_MAX_TEXT bytes. */
static int read_text(const char *path, char **out, size_t *len) {
  *out = NULL;
  FILE *f = bf_fopen_rb(path);
  BF_CHECK(f != NULL, BF_ERROR_IO, "cannot read %.300s: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
    fclose(f);
    BF_ERROR(BF_ERROR_IO, "cannot read %.300s: not a regular file", path);
  }
  if (st.st_size > PIO_MAX_TEXT) {
    fclose(f);
    BF_ERROR(BF_ERROR_VALUE, "%.300s: too large for a particle header (%lld bytes)", path, (long long)st.st_size);
  }
  size_t n = (size_t)st.st_size;
  char *b = malloc(n + 1);
  if (!b) {
    fclose(f);
    BF_ERROR(BF_ERROR_MEMORY, "out of memory reading %.300s", path);
  }
  size_t r = n ? fread(b, 1, n, f) : 0;
  fclose(f);
  if (r != n) {
    free(b);
    BF_ERROR(BF_ERROR_IO, "cannot read %.300s: short read", path);
  }
  b[n] = '\0';
  if (memchr(b, '\0', n)) {
    free(b);
    BF_ERROR(BF_ERROR_VALUE, "%.300s: not a text file (NUL byte)", path);
  }
  *out = b;
  *len = n;
  return BF_SUCCESS;
}

/* Whitespace-separated tokens with line numbers. */
typedef struct {
  const char *path, *p;
  int line;
  char tok[PIO_MAX_NAME];
} tokens;

static int next_tok(tokens *t, const char *what) {
  while (*t->p == ' ' || *t->p == '\t' || *t->p == '\r' || *t->p == '\n') {
    if (*t->p == '\n') t->line++;
    t->p++;
  }
  BF_CHECK(*t->p, BF_ERROR_VALUE, "%.300s line %d: file ends where %s was expected", t->path, t->line, what);
  size_t n = 0;
  while (*t->p && *t->p != ' ' && *t->p != '\t' && *t->p != '\r' && *t->p != '\n') {
    BF_CHECK(n + 1 < sizeof t->tok, BF_ERROR_VALUE, "%.300s line %d: token too long (expected %s)", t->path, t->line,
             what);
    t->tok[n++] = *t->p++;
  }
  t->tok[n] = '\0';
  return BF_SUCCESS;
}

/* The current token, printable (non-ASCII and control bytes as '?'), for messages. */
static const char *tok_show(tokens *t) {
  static _Thread_local char buf[64];
  size_t i = 0;
  for (; t->tok[i] && i + 1 < sizeof buf; ++i) {
    unsigned char c = (unsigned char)t->tok[i];
    buf[i] = c >= 32 && c < 127 ? (char)c : '?';
  }
  buf[i] = '\0';
  return buf;
}

static int tok_i64(tokens *t, const char *what, int64_t lo, int64_t hi, int64_t *v) {
  int rc = next_tok(t, what);
  if (rc != BF_SUCCESS) return rc;
  char *end = NULL;
  errno = 0;
  long long x = strtoll(t->tok, &end, 10);
  BF_CHECK(end != t->tok && *end == '\0' && errno == 0, BF_ERROR_VALUE, "%.300s line %d: %s must be an integer, not '%.60s'",
           t->path, t->line, what, tok_show(t));
  BF_CHECK(x >= lo && x <= hi, BF_ERROR_VALUE, "%.300s line %d: %s %lld out of range [%lld, %lld]", t->path, t->line,
           what, x, (long long)lo, (long long)hi);
  *v = x;
  return BF_SUCCESS;
}

typedef struct {
  int64_t ngrids;
  int64_t *which, *count, *where;
} lev_table;

typedef struct {
  bool ids64; /* Version_Two_Dot_One: ints 0/1 are the halves of idcpu */
  int rsize;  /* 8 double, 4 single */
  int dim, nr, ni, finest;
  int64_t nparticles, next_id;
  lev_table lev[BF_PC_MAX_LEVELS];
} pheader;

static void pheader_free(pheader *h) {
  for (int l = 0; l < BF_PC_MAX_LEVELS; ++l) {
    free(h->lev[l].which);
    free(h->lev[l].count);
    free(h->lev[l].where);
  }
}

static int parse_header(const char *path, const char *text, pheader *h) {
  tokens t = {path, text, 1, {0}};
  int rc = next_tok(&t, "the version");
  if (rc != BF_SUCCESS) return rc;
  const char *v = t.tok;
  const char *known[] = {"Version_Two_Dot_Zero", "Version_Two_Dot_One", "Version_One_Dot_One"};
  bool ok = false;
  for (int i = 0; i < 3 && !ok; ++i) {
    size_t n = strlen(known[i]);
    if (strncmp(v, known[i], n) == 0) {
      if (strcmp(v + n, "_double") == 0) ok = true, h->rsize = 8;
      else if (strcmp(v + n, "_single") == 0) ok = true, h->rsize = 4;
      h->ids64 = i == 1;
    }
  }
  if (!ok && strcmp(v, "Version_One_Dot_Zero") == 0) ok = true, h->rsize = 8, h->ids64 = false;
  BF_CHECK(ok, BF_ERROR_VALUE, "%.300s line %d: unknown particle file version '%.60s'", path, t.line, tok_show(&t));
  int64_t x;
  if ((rc = tok_i64(&t, "the dimension", 1, 3, &x)) != BF_SUCCESS) return rc;
  h->dim = (int)x;
  if ((rc = tok_i64(&t, "the number of real components", 0, 4096, &x)) != BF_SUCCESS) return rc;
  h->nr = (int)x;
  for (int i = 0; i < h->nr; ++i)
    if ((rc = next_tok(&t, "a real component name")) != BF_SUCCESS) return rc;
  if ((rc = tok_i64(&t, "the number of int components", 0, 4096, &x)) != BF_SUCCESS) return rc;
  h->ni = (int)x;
  for (int i = 0; i < h->ni; ++i)
    if ((rc = next_tok(&t, "an int component name")) != BF_SUCCESS) return rc;
  if ((rc = tok_i64(&t, "the checkpoint flag", 0, 1, &x)) != BF_SUCCESS) return rc;
  if ((rc = tok_i64(&t, "the number of particles", 0, INT64_MAX / 2, &h->nparticles)) != BF_SUCCESS) return rc;
  if ((rc = tok_i64(&t, "the next particle id", 1, BF_IDCPU_MAX_ID + 1, &h->next_id)) != BF_SUCCESS) return rc;
  if ((rc = tok_i64(&t, "the finest level", 0, BF_PC_MAX_LEVELS - 1, &x)) != BF_SUCCESS) return rc;
  h->finest = (int)x;
  for (int l = 0; l <= h->finest; ++l)
    if ((rc = tok_i64(&t, "a level's number of grids", 0, 1 << 24, &h->lev[l].ngrids)) != BF_SUCCESS) return rc;
  int64_t sum = 0;
  for (int l = 0; l <= h->finest; ++l) {
    lev_table *lt = &h->lev[l];
    size_t n = (size_t)(lt->ngrids ? lt->ngrids : 1);
    lt->which = calloc(n, sizeof(int64_t));
    lt->count = calloc(n, sizeof(int64_t));
    lt->where = calloc(n, sizeof(int64_t));
    BF_CHECK(lt->which && lt->count && lt->where, BF_ERROR_MEMORY, "out of memory reading %.300s", path);
    for (int64_t g = 0; g < lt->ngrids; ++g) {
      if ((rc = tok_i64(&t, "a data file number", 0, 99999, &lt->which[g])) != BF_SUCCESS ||
          (rc = tok_i64(&t, "a grid's particle count", 0, INT32_MAX, &lt->count[g])) != BF_SUCCESS ||
          (rc = tok_i64(&t, "a byte offset", 0, INT64_MAX / 2, &lt->where[g])) != BF_SUCCESS)
        return rc;
      sum += lt->count[g];
    }
  }
  BF_CHECK(sum == h->nparticles, BF_ERROR_VALUE,
           "%.300s: the grids hold %" PRId64 " particles but the header says %" PRId64, path, sum, h->nparticles);
  while (*t.p == ' ' || *t.p == '\t' || *t.p == '\r' || *t.p == '\n') {
    if (*t.p == '\n') t.line++;
    t.p++;
  }
  BF_CHECK(*t.p == '\0', BF_ERROR_VALUE, "%.300s line %d: unexpected text after the grid table", path, t.line);
  return BF_SUCCESS;
}

/* Level_L/Particle_H: "(N 0" then N boxes then ")"; returns the box count. */
static int parse_particle_h(const char *path, const char *text, int dim, int64_t *nboxes) {
  const char *p = text;
  int line = 1;
#define SKIPWS()                                                                                                       \
  while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') {                                                        \
    if (*p == '\n') line++;                                                                                            \
    p++;                                                                                                               \
  }
#define EXPECT(ch)                                                                                                     \
  do {                                                                                                                 \
    SKIPWS();                                                                                                          \
    BF_CHECK(*p == (ch), BF_ERROR_VALUE, "%.300s line %d: expected '%c'", path, line, (ch));                          \
    p++;                                                                                                               \
  } while (0)
#define NUMBER(var, lo, hi)                                                                                            \
  do {                                                                                                                 \
    SKIPWS();                                                                                                          \
    char *end = NULL;                                                                                                  \
    errno = 0;                                                                                                         \
    long long x_ = strtoll(p, &end, 10);                                                                               \
    BF_CHECK(end != p && errno == 0 && x_ >= (lo) && x_ <= (hi), BF_ERROR_VALUE,                                      \
             "%.300s line %d: expected an integer in [%lld, %lld]", path, line, (long long)(lo), (long long)(hi));     \
    (var) = x_;                                                                                                        \
    p = end;                                                                                                           \
  } while (0)
  long long n = 0, hash = 0, v = 0;
  EXPECT('(');
  NUMBER(n, 0, 1 << 24);
  NUMBER(hash, LLONG_MIN, LLONG_MAX);
  (void)hash;
  (void)v;
  for (long long b = 0; b < n; ++b) {
    EXPECT('(');
    for (int part = 0; part < 3; ++part) {
      EXPECT('(');
      for (int d = 0; d < dim; ++d) {
        if (d) EXPECT(',');
        if (part < 2) NUMBER(v, INT_MIN / 2, INT_MAX / 2);
        else NUMBER(v, 0, 1);
      }
      EXPECT(')');
    }
    EXPECT(')');
  }
  EXPECT(')');
  SKIPWS();
  BF_CHECK(*p == '\0', BF_ERROR_VALUE, "%.300s line %d: unexpected text after the BoxArray", path, line);
#undef SKIPWS
#undef EXPECT
#undef NUMBER
  *nboxes = n;
  return BF_SUCCESS;
}

typedef struct {
  int lev;
  int64_t n;
  int32_t *ints;
  double *reals;
} readgrid;

/* `used`: bytes of this data file that earlier grids claimed; the grids of a
 * valid file do not overlap, so together they fit in the file (this bounds the
 * memory a hostile grid table can make the reader allocate). */
static int read_grid_data(const char *path, int64_t where, int64_t count, const pheader *h, readgrid *g,
                          double *used) {
  const int ichunk = 2 + h->ni, rchunk = h->dim + h->nr;
  FILE *f = bf_fopen_rb(path);
  BF_CHECK(f != NULL, BF_ERROR_IO, "cannot read %.300s: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
    fclose(f);
    BF_ERROR(BF_ERROR_IO, "cannot read %.300s: not a regular file", path);
  }
  const double need = (double)count * ((double)ichunk * 4 + (double)rchunk * h->rsize);
  if ((double)where + need > (double)st.st_size) {
    fclose(f);
    BF_ERROR(BF_ERROR_VALUE, "%.300s: %" PRId64 " particles at byte %" PRId64 " need %.0f bytes, the file has %lld",
             path, count, where, need, (long long)st.st_size);
  }
  if (*used + need > (double)st.st_size) {
    fclose(f);
    BF_ERROR(BF_ERROR_VALUE, "%.300s: the grid table claims more bytes than the file has (%lld)", path,
             (long long)st.st_size);
  }
  *used += need;
  const size_t bi = (size_t)count * (size_t)ichunk * 4, br = (size_t)count * (size_t)rchunk * (size_t)h->rsize;
  g->ints = malloc(bi ? bi : 1);
  g->reals = malloc((size_t)count * (size_t)rchunk * sizeof(double) + 1);
  void *raw = h->rsize == 4 ? malloc(br + 1) : (void *)g->reals;
  if (!g->ints || !g->reals || !raw) {
    fclose(f);
    if (raw != (void *)g->reals) free(raw);
    BF_ERROR(BF_ERROR_MEMORY, "out of memory reading %.300s", path);
  }
  bool ok = fseeko(f, (off_t)where, SEEK_SET) == 0 && (bi == 0 || fread(g->ints, 1, bi, f) == bi) &&
            (br == 0 || fread(raw, 1, br, f) == br);
  fclose(f);
  if (h->rsize == 4) {
    const float *fl = raw;
    for (size_t i = 0; i < (size_t)count * (size_t)rchunk; ++i) g->reals[i] = fl[i];
    free(raw);
  }
  BF_CHECK(ok, BF_ERROR_IO, "cannot read %.300s: short read", path);
  g->n = count;
  /* check ids, cpus and positions */
  for (int64_t i = 0; i < count; ++i) {
    const int32_t *ip = g->ints + i * ichunk;
    int64_t id;
    int32_t cpu;
    if (h->ids64) {
      uint32_t hi, lo;
      memcpy(&hi, &ip[0], 4);
      memcpy(&lo, &ip[1], 4);
      uint64_t u = ((uint64_t)hi << 32) | lo;
      id = bf_idcpu_id(u);
      cpu = bf_idcpu_cpu(u);
    } else {
      id = ip[0];
      cpu = ip[1];
    }
    BF_CHECK(id > 0 && cpu >= 0 && cpu <= BF_IDCPU_MAX_CPU, BF_ERROR_VALUE,
             "%.300s: particle %" PRId64 " at byte %" PRId64 " has id %" PRId64 " and cpu %d (need id > 0, cpu >= 0)",
             path, i, where, id, (int)cpu);
    for (int d = 0; d < h->dim; ++d)
      BF_CHECK(isfinite(g->reals[i * rchunk + d]), BF_ERROR_VALUE,
               "%.300s: particle %" PRId64 " at byte %" PRId64 " has a position that is not finite", path, i, where);
  }
  return BF_SUCCESS;
}

static int add_grid(bf_pc *pc, const pheader *h, const readgrid *g) {
  const bf_playout *L = bf_pc_layout(pc);
  const int dim = h->dim, ichunk = 2 + h->ni, rchunk = dim + h->nr;
  const int64_t n = g->n;
  const int nsoar = bf_pc_num_real_comps(pc) - (L->pure_soa ? dim : 0), nsoai = bf_pc_num_int_comps(pc);
  const int ncols = dim + L->nsr + nsoar, nicols = L->nsi + nsoai;
  double *rc_ = malloc(((size_t)ncols + 1) * (size_t)n * sizeof(double));
  int32_t *ic = malloc(((size_t)nicols + 2) * (size_t)n * sizeof(int32_t));
  int64_t *ids = malloc((size_t)n * sizeof(int64_t));
  const double **rp = calloc((size_t)ncols + 1, sizeof *rp);
  const int32_t **ipp = calloc((size_t)nicols + 1, sizeof *ipp);
  int rc = BF_SUCCESS;
  if (!rc_ || !ic || !ids || !rp || !ipp) {
    rc = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory");
    goto done;
  }
  int32_t *cpus = ic + (size_t)nicols * (size_t)n;
  for (int64_t i = 0; i < n; ++i) {
    const int32_t *ip = g->ints + i * ichunk;
    if (h->ids64) {
      uint32_t hi, lo;
      memcpy(&hi, &ip[0], 4);
      memcpy(&lo, &ip[1], 4);
      uint64_t u = ((uint64_t)hi << 32) | lo;
      ids[i] = bf_idcpu_id(u);
      cpus[i] = bf_idcpu_cpu(u);
    } else {
      ids[i] = ip[0];
      cpus[i] = ip[1];
    }
    for (int c = 0; c < nicols; ++c) ic[(size_t)c * (size_t)n + (size_t)i] = ip[2 + c];
    const double *r = g->reals + i * rchunk;
    for (int c = 0; c < ncols; ++c) rc_[(size_t)c * (size_t)n + (size_t)i] = r[c];
  }
  for (int c = 0; c < ncols; ++c) rp[c] = rc_ + (size_t)c * (size_t)n;
  for (int c = 0; c < nicols; ++c) ipp[c] = ic + (size_t)c * (size_t)n;
  bf_pcolumns cols;
  memset(&cols, 0, sizeof cols);
  cols.n = n;
  cols.device = false;
  for (int d = 0; d < dim; ++d) cols.pos[d] = rp[d];
  cols.real_struct = L->nsr ? rp + dim : NULL;
  cols.real = nsoar ? rp + dim + L->nsr : NULL;
  cols.int_struct = L->nsi ? ipp : NULL;
  cols.ints = nsoai ? ipp + L->nsi : NULL;
  cols.ids = ids;
  cols.cpus = cpus;
  int lev = g->lev < bf_pc_num_levels(pc) ? g->lev : bf_pc_num_levels(pc) - 1;
  rc = bf_pc_add_columns(pc, lev, &cols, false);
done:
  free(rc_);
  free(ic);
  free(ids);
  free(rp);
  free(ipp);
  return rc;
}

int bf_pc_restart(bf_pc *pc, const char *dir, const char *name) {
  BF_CHECK(pc != NULL, BF_ERROR_VALUE, "null container");
  int rc = bf_pc_check(pc);
  if (rc != BF_SUCCESS) return rc;
  BF_CHECK(bf_pc_is_defined(pc), BF_ERROR_VALUE, "restart: the particle container is not defined");
  BF_CHECK(dir && dir[0], BF_ERROR_VALUE, "restart: the directory name must not be empty");
  if ((rc = check_name(name)) != BF_SUCCESS) return rc;
  /* across MPI ranks: not yet (issue 12; waits for the distributed container, branch mpipart), refused on
   * every rank alike rather than several ranks racing to rename one directory */
  BF_CHECK(bf_comm_size(bf_comm_top()) == 1, BF_ERROR_UNSUPPORTED,
           "particle plotfiles, checkpoints and restart across %d MPI ranks are not implemented yet",
           bf_comm_size(bf_comm_top()));
  const bf_playout *L = bf_pc_layout(pc);
  char pdir[PIO_PATH], path[PIO_PATH];
  if ((rc = join(pdir, dir, name)) != BF_SUCCESS || (rc = join(path, pdir, "Header")) != BF_SUCCESS) return rc;
  char *text = NULL;
  size_t len = 0;
  if ((rc = read_text(path, &text, &len)) != BF_SUCCESS) return rc;
  pheader h;
  memset(&h, 0, sizeof h);
  rc = parse_header(path, text, &h);
  free(text);
  const int nr = L->nsr + bf_pc_num_real_comps(pc) - (L->pure_soa ? L->dim : 0);
  const int ni = L->nsi + bf_pc_num_int_comps(pc);
  if (rc == BF_SUCCESS && h.dim != L->dim)
    rc = bf_error_set(BF_ERROR_VALUE, __func__, "%.300s: particles of dimension %d, the container's is %d", path, h.dim,
                      L->dim);
  if (rc == BF_SUCCESS && (h.nr != nr || h.ni != ni))
    rc = bf_error_set(BF_ERROR_VALUE, __func__,
                      "%.300s: particles with %d real and %d int components, the container has %d and %d", path, h.nr,
                      h.ni, nr, ni);
  readgrid *grids = NULL;
  int64_t ngr = 0, capgr = 0;
  for (int l = 0; l <= h.finest && rc == BF_SUCCESS; ++l) {
    const lev_table *lt = &h.lev[l];
    bool any = false;
    for (int64_t g = 0; g < lt->ngrids; ++g) any = any || lt->count[g] > 0;
    if (!any) continue;
    char ldir[PIO_PATH], lname[32];
    snprintf(lname, sizeof lname, "Level_%d", l);
    if ((rc = join(ldir, pdir, lname)) != BF_SUCCESS || (rc = join(path, ldir, "Particle_H")) != BF_SUCCESS) break;
    struct stat st;
    if (stat(path, &st) == 0) {
      if ((rc = read_text(path, &text, &len)) != BF_SUCCESS) break;
      int64_t nb = 0;
      rc = parse_particle_h(path, text, L->dim, &nb);
      free(text);
      if (rc == BF_SUCCESS && nb != lt->ngrids)
        rc = bf_error_set(BF_ERROR_VALUE, __func__, "%.300s: %" PRId64 " boxes, the header says %" PRId64 " grids", path,
                          nb, lt->ngrids);
      if (rc != BF_SUCCESS) break;
    }
    double *used = calloc(100000, sizeof *used); /* per data file number */
    if (!used) rc = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory");
    for (int64_t g = 0; g < lt->ngrids && rc == BF_SUCCESS; ++g) {
      if (lt->count[g] == 0) continue;
      char fname[32];
      snprintf(fname, sizeof fname, "DATA_%05d", (int)lt->which[g]);
      if ((rc = join(path, ldir, fname)) != BF_SUCCESS) break;
      if (ngr == capgr) {
        int64_t nc = capgr ? 2 * capgr : 16;
        readgrid *ng = realloc(grids, (size_t)nc * sizeof *ng);
        if (!ng) {
          rc = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory");
          break;
        }
        grids = ng;
        capgr = nc;
      }
      memset(&grids[ngr], 0, sizeof grids[ngr]);
      grids[ngr].lev = l;
      rc = read_grid_data(path, lt->where[g], lt->count[g], &h, &grids[ngr], &used[lt->which[g]]);
      ngr++;
    }
    free(used);
  }
  if (rc == BF_SUCCESS) {
    for (int64_t i = 0; i < ngr && rc == BF_SUCCESS; ++i) rc = add_grid(pc, &h, &grids[i]);
    /* AMReX sets the counter to the file's next id; boxfab never moves it back
     * (ids made earlier in this process stay unique) */
    int64_t cur = 0;
    if (rc == BF_SUCCESS) rc = bf_particle_next_id(bf_pc_id_family(pc), 0, &cur);
    if (rc == BF_SUCCESS && h.next_id > cur) rc = bf_particle_set_next_id(bf_pc_id_family(pc), h.next_id);
    if (rc == BF_SUCCESS) rc = bf_pc_redistribute(pc, 0, -1, 0, 0, false);
  }
  for (int64_t i = 0; i < ngr; ++i) {
    free(grids[i].ints);
    free(grids[i].reals);
  }
  free(grids);
  pheader_free(&h);
  return rc;
}
