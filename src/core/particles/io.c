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
 * Writing: only particles with id > 0; each MPI rank writes its grids into
 * Level_L/DATA_<rank / ceil(nprocs / nfiles)> (one rank: DATA_00000), rank 0
 * the Header and Particle_H; the whole directory is built under a temporary
 * sibling name and renamed into place once every rank agrees (write_dist).
 * Reading: every file is untrusted; counts are checked against the file
 * sizes before anything is allocated, all data is read and checked (each
 * rank its grids) and the outcome agreed before the container changes, then
 * the particles are added and redistributed (bf_pc_restart). */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
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

#include "runtime/comm.h"
#include "base/fileio.h"
#include "boxfab/distmap.h"
#include "boxfab/idcpu.h"
#include "boxfab/parmparse.h"
#include "boxfab/particles.h"
#include "particles/impl.h"

enum { PIO_MAX_TEXT = 64 << 20, PIO_MAX_NAME = 4096, PIO_PATH = 4096 };

/* ---- small helpers ------------------------------------------------------------ */

static int join(char *out, const char *a, const char *b) {
  int n = snprintf(out, PIO_PATH, "%s/%s", a, b);
  BF_CHECK(n > 0 && n < PIO_PATH, BF_ERROR_IO, "path too long: %.200s/%.200s", a, b);
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

/* The valid particles (id > 0, neighbours excluded) of a tile, as pack_tile keeps them. */
static int count_tile(const bf_pc *pc, const bf_ptile *t, int64_t *out) {
  const bf_playout *L = bf_pc_layout(pc);
  const int64_t np = bf_ptile_size(t) - bf_ptile_num_neighbors(t);
  *out = 0;
  if (np <= 0) return BF_SUCCESS;
  const size_t ssz = bf_playout_struct_size(L);
  uint64_t *idcpu = malloc((size_t)np * sizeof *idcpu);
  unsigned char *aos = L->pure_soa ? NULL : malloc((size_t)np * ssz);
  int rc = BF_SUCCESS;
  if (!idcpu || (!L->pure_soa && !aos)) {
    rc = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory counting %" PRId64 " particles", np);
  } else if (L->pure_soa) {
    rc = bf_podvec_read(bf_ptile_idcpu(t), 0, np, idcpu);
  } else if ((rc = bf_podvec_read(bf_ptile_aos(t), 0, np, aos)) == BF_SUCCESS) {
    for (int64_t i = 0; i < np; ++i) memcpy(&idcpu[i], aos + (size_t)i * ssz + bf_playout_idcpu_offset(L), 8);
  }
  int64_t n = 0;
  if (rc == BF_SUCCESS)
    for (int64_t i = 0; i < np; ++i) n += bf_idcpu_id(idcpu[i]) > 0;
  *out = n;
  free(idcpu);
  free(aos);
  return rc;
}

/* One grid's entry of the Header's table: (file number, count, byte offset), AMReX's which / count / where. */
typedef struct {
  int64_t grid, which, count, where;
} gentry;

/* The local tiles of a level (bf_pc_tiles), malloc'd. */
static int level_tiles(const bf_pc *pc, int lev, bf_pc_tileref **refs, int64_t *n) {
  *refs = NULL;
  *n = 0;
  int rc = bf_pc_tiles(pc, lev, false, NULL, 0, n);
  if (rc != BF_SUCCESS || *n == 0) return rc;
  *refs = malloc((size_t)*n * sizeof **refs);
  BF_CHECK(*refs != NULL, BF_ERROR_MEMORY, "out of memory");
  return bf_pc_tiles(pc, lev, false, *refs, *n, n);
}

/* AMReX's particle file rule (WriteBinaryParticleDataSync with NFilesIter, groupSets off, no sparse mode):
 * nfiles = max(1, min(nprocs, particles.particles_nfiles)) (256 unless set; -1 means nprocs); rank r writes
 * into DATA_<r / ceil(nprocs / nfiles)>, the ranks of one file one after another in rank order. */
static int particle_nfiles(int nprocs) {
  int n = 256;
  bool found = false;
  int v = 0;
  if (bf_parmparse_query_int("particles.particles_nfiles", 0, &found, &v) == BF_SUCCESS && found) n = v;
  else bf_error_clear();
  if (n == -1) n = nprocs;
  if (n > nprocs) n = nprocs;
  return n < 1 ? 1 : n;
}

/* This rank's part of level lev: the valid particles of its grids, grid after grid, into its data file at
 * byte `start`; one table entry per local grid (count 0 included: AMReX writes the rank's file number and
 * offset for those too).  The file is created by whichever rank of its set writes first (never truncated:
 * the directory is new). */
static int write_level_part(const bf_pc *pc, int lev, const char *path, int64_t start, int64_t nbytes, int which,
                            bool checkpoint, int ichunk, int rchunk, const int64_t *lgrids, int64_t nlg, gentry *ent) {
  int rc = BF_SUCCESS;
  int64_t ntiles = 0, ti = 0, where = start;
  bf_pc_tileref *refs = NULL;
  FILE *f = NULL;
  if ((rc = level_tiles(pc, lev, &refs, &ntiles)) != BF_SUCCESS) goto done;
  if (nbytes > 0) {
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
      rc = bf_error_set(BF_ERROR_IO, __func__, "cannot write %.300s: %s", path, strerror(errno));
      goto done;
    }
    if (!(f = fdopen(fd, "wb"))) {
      int e = errno;
      close(fd);
      rc = bf_error_set(BF_ERROR_IO, __func__, "cannot write %.300s: %s", path, strerror(e));
      goto done;
    }
    (void)setvbuf(f, NULL, _IOFBF, (size_t)1 << 22);
    if (fseeko(f, (off_t)start, SEEK_SET) != 0) {
      rc = bf_error_set(BF_ERROR_IO, __func__, "cannot seek in %.300s: %s", path, strerror(errno));
      goto done;
    }
  }
  for (int64_t k = 0; k < nlg && rc == BF_SUCCESS; ++k) {
    const int64_t g = lgrids[k];
    gridpack gp = {0};
    for (; ti < ntiles && refs[ti].grid < g; ++ti) {
    }
    for (; ti < ntiles && refs[ti].grid == g && rc == BF_SUCCESS; ++ti)
      rc = pack_tile(pc, refs[ti].ptile, checkpoint, &gp, ichunk, rchunk);
    if (rc == BF_SUCCESS) {
      ent[k] = (gentry){g, which, gp.n, where};
      size_t bi = (size_t)gp.n * (size_t)ichunk * 4, br = (size_t)gp.n * (size_t)rchunk * 8;
      if ((bi || br) && !f) {
        rc = bf_error_set(BF_ERROR_RUNTIME, __func__, "grid %" PRId64 " gained particles while %.300s was written", g,
                          path);
      } else {
        errno = 0;
        if ((bi && fwrite(gp.ints, 1, bi, f) != bi) || (br && fwrite(gp.reals, 1, br, f) != br))
          rc = bf_error_set(BF_ERROR_IO, __func__, "cannot write %.300s: %s", path, strerror(errno ? errno : EIO));
      }
      where += (int64_t)(bi + br);
    }
    free(gp.ints);
    free(gp.reals);
  }
  if (rc == BF_SUCCESS && where - start != nbytes)
    rc = bf_error_set(BF_ERROR_RUNTIME, __func__, "the particles of level %d changed while %.300s was written", lev,
                      path);
  if (f && rc == BF_SUCCESS && bf_sync_file(f) != 0)
    rc = bf_error_set(BF_ERROR_IO, __func__, "cannot write %.300s: %s", path, strerror(errno ? errno : EIO));
done:
  if (f) {
    errno = 0;
    if (fclose(f) != 0 && rc == BF_SUCCESS)
      rc = bf_error_set(BF_ERROR_IO, __func__, "cannot write %.300s: %s", path, strerror(errno ? errno : EIO));
  }
  free(refs);
  return rc;
}

/* The I/O rank's part: Level_L/Particle_H of the levels with particles, then the Header with the table of every
 * grid gathered from all ranks. */
static int write_headers(const bf_pc *pc, const char *pdir, bool checkpoint, const char *const *rnames, int nr,
                         const char *const *inames, int ni, int64_t next, const int64_t *levtot, gentry *const *tab) {
  const bf_playout *L = bf_pc_layout(pc);
  const int dim = L->dim, nlev = bf_pc_num_levels(pc);
  int rc = BF_SUCCESS;
  sbuf hdr = {0};
  int64_t total = 0;
  for (int lev = 0; lev < nlev; ++lev) total += levtot[lev];
  sb_printf(&hdr, "%s_double\n%d\n%d\n", checkpoint ? "Version_Two_Dot_One" : "Version_Two_Dot_Zero", dim, nr);
  for (int i = 0; i < nr; ++i) sb_printf(&hdr, "%s\n", rnames[i]);
  sb_printf(&hdr, "%d\n", ni);
  for (int i = 0; i < ni; ++i) sb_printf(&hdr, "%s\n", inames[i]);
  sb_printf(&hdr, "1\n%" PRId64 "\n%" PRId64 "\n%d\n", total, next, nlev - 1);
  for (int lev = 0; lev < nlev && rc == BF_SUCCESS; ++lev) {
    bf_boxarray *ba = NULL;
    if ((rc = bf_pc_level(pc, lev, NULL, &ba, NULL)) != BF_SUCCESS) break;
    sb_printf(&hdr, "%" PRId64 "\n", bf_boxarray_size(ba));
  }
  for (int lev = 0; lev < nlev && rc == BF_SUCCESS; ++lev) {
    bf_boxarray *ba = NULL;
    if ((rc = bf_pc_level(pc, lev, NULL, &ba, NULL)) != BF_SUCCESS) break;
    const int64_t ng = bf_boxarray_size(ba);
    for (int64_t g = 0; g < ng; ++g) {
      if (levtot[lev] == 0) sb_printf(&hdr, "0 0 0\n");
      else sb_printf(&hdr, "%" PRId64 " %" PRId64 " %" PRId64 "\n", tab[lev][g].which, tab[lev][g].count,
                     tab[lev][g].where);
    }
    if (levtot[lev] == 0) continue;
    char ldir[PIO_PATH], path[PIO_PATH], lname[32];
    snprintf(lname, sizeof lname, "Level_%d", lev);
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
    if (rc == BF_SUCCESS && (rc = join(ldir, pdir, lname)) == BF_SUCCESS &&
        (rc = join(path, ldir, "Particle_H")) == BF_SUCCESS)
      rc = write_file(path, ph.buf, ph.len);
    free(ph.buf);
    /* the data files of every rank are in the level directory now: their entries go to the disk */
    if (rc == BF_SUCCESS && bf_sync_dir(ldir) != 0)
      rc = bf_error_set(BF_ERROR_IO, __func__, "cannot flush the directory %.300s: %s", ldir, strerror(errno));
  }
  if (rc == BF_SUCCESS) {
    char path[PIO_PATH];
    if (hdr.oom) rc = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory");
    else if ((rc = join(path, pdir, "Header")) == BF_SUCCESS) rc = write_file(path, hdr.buf, hdr.len);
    if (rc == BF_SUCCESS && bf_sync_dir(pdir) != 0)
      rc = bf_error_set(BF_ERROR_IO, __func__, "cannot flush the directory %.300s: %s", pdir, strerror(errno));
  }
  free(hdr.buf);
  return rc;
}

/* The I/O rank moves the finished temporary directory to `final` (an existing directory is moved to a fresh
 * sibling first and removed afterwards). */
static int install_dir(const char *tmp, const char *final) {
  int rc = BF_SUCCESS;
  char *old = NULL;
  struct stat st;
  bool had = lstat(final, &st) == 0, installed = false;
  if (had && !S_ISDIR(st.st_mode))
    rc = bf_error_set(BF_ERROR_IO, __func__, "cannot write %.300s: it exists and is not a directory", final);
  else if (had && bf_rename_exchange(tmp, final) == 0) { /* the name never stops naming a directory */
    rm_rf(tmp);                                            /* the previous one, now under the temporary name */
    had = false, installed = true;
  } else if (had && !bf_exchange_unsupported(errno))
    rc = bf_error_set(BF_ERROR_IO, __func__, "cannot replace %.300s: %s", final, strerror(errno));
  else if (had && !(old = bf_make_sibling(final, true)))
    rc = bf_error_set(BF_ERROR_IO, __func__, "cannot create a directory beside %.300s: %s", final, strerror(errno));
  else if (had && rename(final, old) != 0)
    rc = bf_error_set(BF_ERROR_IO, __func__, "cannot replace %.300s: %s", final, strerror(errno));
  if (rc == BF_SUCCESS && !installed && rename(tmp, final) != 0) {
    rc = bf_error_set(BF_ERROR_IO, __func__, "cannot rename %.300s to %.300s: %s", tmp, final, strerror(errno));
    if (had) (void)rename(old, final);
  }
  if (old && rc == BF_SUCCESS)
    rm_rf(old);
  else if (old) /* the empty sibling; a previous directory that could not go back stays (rmdir keeps data) */
    (void)rmdir(old);
  free(old);
  if (rc == BF_SUCCESS && bf_sync_parent(final) != 0)
    rc = bf_error_set(BF_ERROR_IO, __func__, "wrote %.300s but cannot flush its directory to the disk: %s", final,
                      strerror(errno));
  return rc;
}

/* Write dir/name across the ranks of the container's instance (one rank: the same steps without messages).
 *
 *  1. every rank counts the valid particles of its grids (a particle waiting in the outbox for redistribute
 *     is refused: it belongs to no grid of its rank); the counts are gathered on every rank, so each rank
 *     knows its byte offset in its data file; the next id is the largest counter of any rank (AMReX's
 *     ReduceLongMax);
 *  2. the I/O rank (0) makes the missing folders of <dir> and "<dir>/.bftmp.<unique>" (a fresh name made with mkdir, never one removed
 *     first) and its Level_L directories, and sends the name to everyone;
 *  3. each rank writes its grids into Level_L/DATA_<file> at its offset, the ranks of one file in rank order
 *     (a token from the previous one, as AMReX's NFilesIter), and flushes them to the disk;
 *  4. the table entries go to the I/O rank, which writes Particle_H and Header and renames the directory
 *     into place.
 *  Every step's outcome is agreed (bf_comm_agree): a failure on one rank is raised on every rank, the
 *  temporary directory is removed by the I/O rank after everyone stopped writing, and nothing appears under
 *  the final name. */
static int write_dist(const bf_pc *pc, const char *dir, const char *name, bool checkpoint,
                      const char *const *rnames, int nr, const char *const *inames, int ni) {
  const struct bf_comm *c = bf_pc_comm(pc);
  const int nprocs = bf_comm_size(c), me = bf_comm_rank(c), nlev = bf_pc_num_levels(pc);
  const bf_playout *L = bf_pc_layout(pc);
  const int ichunk = 2 + ni, rchunk = L->dim + nr;
  const int64_t psize = (int64_t)ichunk * 4 + (int64_t)rchunk * 8;
  int rc = BF_SUCCESS;
  int64_t mycnt[BF_PC_MAX_LEVELS] = {0}, levtot[BF_PC_MAX_LEVELS] = {0}, mystart[BF_PC_MAX_LEVELS] = {0};
  int64_t *allcnt = NULL, *lgrids[BF_PC_MAX_LEVELS] = {0}, nlg[BF_PC_MAX_LEVELS] = {0}, next = 0;
  gentry *ent[BF_PC_MAX_LEVELS] = {0}, *tab[BF_PC_MAX_LEVELS] = {0};
  char final[PIO_PATH], tname[PIO_PATH];
  char *tmp = NULL;
  bf_made_dirs made = {0};
  memset(tname, 0, sizeof tname);
  const int nfiles = particle_nfiles(nprocs), set_len = (nprocs + nfiles - 1) / nfiles, myfile = me / set_len;
  const int prev = me > 0 && (me - 1) / set_len == myfile ? me - 1 : -1;
  const int nxt = me + 1 < nprocs && (me + 1) / set_len == myfile ? me + 1 : -1;

  /* 1. counts */
  if (pc->outbox && bf_ptile_size(pc->outbox) > 0)
    rc = bf_error_set(BF_ERROR_VALUE, __func__,
                      "%" PRId64 " particles on rank %d belong to grids of other ranks and wait for redistribute(); "
                      "call redistribute() before writing particle files",
                      bf_ptile_size(pc->outbox), me);
  for (int lev = 0; lev < nlev && rc == BF_SUCCESS; ++lev) {
    bf_boxarray *ba = NULL;
    bf_distmap *dm = NULL;
    if ((rc = bf_pc_level(pc, lev, NULL, &ba, &dm)) != BF_SUCCESS) break;
    const int64_t ng = bf_boxarray_size(ba);
    const int *pm = bf_distmap_data(dm);
    lgrids[lev] = malloc((size_t)(ng ? ng : 1) * sizeof(int64_t));
    ent[lev] = calloc((size_t)(ng ? ng : 1), sizeof(gentry));
    if (!lgrids[lev] || !ent[lev]) {
      rc = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory");
      break;
    }
    for (int64_t g = 0; g < ng; ++g)
      if (pm[g] == me) lgrids[lev][nlg[lev]++] = g;
    int64_t ntiles = 0;
    bf_pc_tileref *refs = NULL;
    rc = level_tiles(pc, lev, &refs, &ntiles);
    for (int64_t t = 0; t < ntiles && rc == BF_SUCCESS; ++t) {
      int64_t n = 0;
      rc = count_tile(pc, refs[t].ptile, &n);
      mycnt[lev] += n;
      /* a position that is not finite: restart() refuses such a file, so nothing is written */
      int64_t bad = -1;
      uint64_t idcpu = 0;
      double x[3];
      const bf_ptile *pt = refs[t].ptile;
      if (rc == BF_SUCCESS)
        rc = bf_pc_tile_nonfinite(pc, pt, bf_ptile_size(pt) - bf_ptile_num_neighbors(pt), &bad, &idcpu, x);
      if (rc == BF_SUCCESS && bad >= 0)
        rc = bf_pc_refused_error(pc, pc->lev[lev].grids[refs[t].grid].slot + refs[t].tile, pt, bad,
                                 BF_PDEST_NONFINITE, lev, lev, checkpoint ? "checkpoint" : "write_plotfile",
                                 "nothing was written (restart could not read it back)");
    }
    free(refs);
  }
  if (rc == BF_SUCCESS) rc = bf_particle_next_id(bf_pc_id_family(pc), 0, &next);
  if (rc == BF_SUCCESS && !(allcnt = calloc((size_t)nprocs * BF_PC_MAX_LEVELS, sizeof *allcnt)))
    rc = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory");
  if ((rc = bf_comm_agree(c, rc)) != BF_SUCCESS) goto done;
  if ((rc = bf_comm_agree(c, bf_comm_allgather(c, mycnt, sizeof mycnt, allcnt))) != BF_SUCCESS) goto done;
  if ((rc = bf_comm_agree(c, bf_comm_reduce(c, &next, 1, BF_CT_INT64, BF_OP_MAX, -1))) != BF_SUCCESS) goto done;
  for (int lev = 0; lev < nlev; ++lev)
    for (int r = 0; r < nprocs; ++r) {
      levtot[lev] += allcnt[(size_t)r * BF_PC_MAX_LEVELS + (size_t)lev];
      if (r < me && r / set_len == myfile) mystart[lev] += allcnt[(size_t)r * BF_PC_MAX_LEVELS + (size_t)lev] * psize;
    }

  /* 2. the temporary directory */
  rc = join(final, dir, name);
  if (rc == BF_SUCCESS && me == 0) {
    /* the folders above it, as AMReX's UtilCreateDirectory(dir/name) (mkdir -p); removed again on failure */
    char *where = NULL;
    struct stat st;
    if (bf_make_parents(final, &made, &where) != 0)
      rc = bf_error_set(BF_ERROR_IO, __func__, "cannot create directory %.300s: %s", where ? where : dir,
                        strerror(errno));
    else if (lstat(final, &st) != 0 && errno != ENOENT) /* a name too long: refused before anything is written */
      rc = bf_error_set(BF_ERROR_IO, __func__, "cannot write %.300s: %s", final, strerror(errno));
    free(where);
    if (rc == BF_SUCCESS && !(tmp = bf_make_sibling(final, true)))
      rc = bf_error_set(BF_ERROR_IO, __func__, "cannot create a directory beside %.300s: %s", final, strerror(errno));
    if (rc == BF_SUCCESS && strlen(tmp) >= sizeof tname)
      rc = bf_error_set(BF_ERROR_IO, __func__, "path too long: %.300s", tmp);
    if (rc == BF_SUCCESS) snprintf(tname, sizeof tname, "%s", tmp);
    for (int lev = 0; lev < nlev && rc == BF_SUCCESS; ++lev) {
      char ldir[PIO_PATH], lname[32];
      if (levtot[lev] == 0) continue;
      snprintf(lname, sizeof lname, "Level_%d", lev);
      if ((rc = join(ldir, tname, lname)) == BF_SUCCESS && mkdir(ldir, 0755) != 0)
        rc = bf_error_set(BF_ERROR_IO, __func__, "cannot create directory %.300s: %s", ldir, strerror(errno));
    }
  }
  if ((rc = bf_comm_agree(c, rc)) != BF_SUCCESS) goto cleanup;
  if ((rc = bf_comm_agree(c, bf_comm_bcast(c, tname, sizeof tname, 0))) != BF_SUCCESS) goto cleanup;

  /* 3. the data */
  for (int lev = 0; lev < nlev; ++lev) {
    if (levtot[lev] == 0) continue;
    char path[PIO_PATH], fname[64];
    snprintf(fname, sizeof fname, "Level_%d/DATA_%05d", lev, myfile);
    int err = join(path, tname, fname);
    bf_comm_reqs rq;
    int token = 0, tok_out = 0;
    if (err == BF_SUCCESS && (prev >= 0 || nxt >= 0)) err = bf_comm_reqs_init(&rq, c, 2);
    else if (err == BF_SUCCESS) memset(&rq, 0, sizeof rq);
    if (err == BF_SUCCESS && prev >= 0 && (err = bf_comm_irecv(&rq, &token, sizeof token, prev, BF_TAG_IO, 0)) == 0)
      err = bf_comm_waitall(&rq);
    if (err == BF_SUCCESS && rc == BF_SUCCESS) /* after a failure on an earlier level: only the tokens */
      err = write_level_part(pc, lev, path, mystart[lev], mycnt[lev] * psize, myfile, checkpoint, ichunk, rchunk,
                             lgrids[lev], nlg[lev], ent[lev]);
    /* the token goes on even after a failure: nobody waits forever */
    tok_out = err ? 1 : 0;
    if (nxt >= 0) {
      int e2 = bf_comm_isend(&rq, &tok_out, sizeof tok_out, nxt, BF_TAG_IO, 1);
      int e3 = bf_comm_waitall(&rq);
      if (err == BF_SUCCESS) err = e2 ? e2 : e3;
    }
    if (prev >= 0 || nxt >= 0) bf_comm_reqs_free(&rq);
    if (rc == BF_SUCCESS) rc = err;
  }
  if ((rc = bf_comm_agree(c, rc)) != BF_SUCCESS) goto cleanup;

  /* 4. the table at the I/O rank, the headers, the rename */
  for (int lev = 0; lev < nlev && rc == BF_SUCCESS; ++lev) {
    if (levtot[lev] == 0) continue;
    void *got = NULL;
    size_t *counts = calloc((size_t)nprocs, sizeof *counts);
    rc = counts ? bf_comm_gatherv(c, ent[lev], (size_t)nlg[lev] * sizeof(gentry), 0, &got, counts)
                : bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory");
    rc = bf_comm_agree(c, rc);
    if (rc == BF_SUCCESS && me == 0) {
      bf_boxarray *ba = NULL;
      rc = bf_pc_level(pc, lev, NULL, &ba, NULL);
      const int64_t ng = ba ? bf_boxarray_size(ba) : 0;
      size_t nent = 0;
      for (int r = 0; r < nprocs; ++r) nent += counts[r] / sizeof(gentry);
      tab[lev] = calloc((size_t)(ng ? ng : 1), sizeof(gentry));
      if (rc == BF_SUCCESS && !tab[lev]) rc = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory");
      const gentry *ge = got;
      for (size_t k = 0; rc == BF_SUCCESS && k < nent; ++k) /* every grid has one owner */
        if (ge[k].grid >= 0 && ge[k].grid < ng) tab[lev][ge[k].grid] = ge[k];
    }
    free(counts);
    free(got);
  }
  if (rc == BF_SUCCESS && me == 0) rc = write_headers(pc, tname, checkpoint, rnames, nr, inames, ni, next, levtot, tab);
  if (rc == BF_SUCCESS && me == 0) rc = install_dir(tname, final);
  rc = bf_comm_agree(c, rc);
cleanup:
  /* every rank has stopped writing into the temporary directory (the agreements above) */
  if (rc != BF_SUCCESS && me == 0 && tname[0]) {
    struct stat st;
    if (lstat(tname, &st) == 0) rm_rf(tname);
  }
  if (rc != BF_SUCCESS) bf_unmake_dirs(&made); /* the folders made for it, when still empty */
  bf_made_dirs_clear(&made);
  rc = bf_error_writing(rc, final);
done:
  free(tmp);
  free(allcnt);
  for (int lev = 0; lev < BF_PC_MAX_LEVELS; ++lev) {
    free(lgrids[lev]);
    free(ent[lev]);
    free(tab[lev]);
  }
  return rc;
}

static int check_name(const char *name) {
  BF_CHECK(name && name[0], BF_ERROR_VALUE, "the particle directory name must not be empty");
  BF_CHECK(strchr(name, '/') == NULL && strcmp(name, ".") != 0 && strcmp(name, "..") != 0, BF_ERROR_VALUE,
           "the particle directory name must be one path component, not %.300s", name);
  return BF_SUCCESS;
}

static int write_binary(const bf_pc *pc, const char *dir, const char *name, bool checkpoint, bool named, int nur,
                        const char *const *ur, int nui, const char *const *ui);

int bf_pc_write_binary(const bf_pc *pc, const char *dir, const char *name, bool checkpoint, bool named) {
  return write_binary(pc, dir, name, checkpoint, named, -1, NULL, -1, NULL);
}

int bf_pc_write_binary_names(const bf_pc *pc, const char *dir, const char *name, bool checkpoint, int nreal,
                             const char *const *real_names, int nint, const char *const *int_names) {
  BF_CHECK(nreal >= 0 && nint >= 0, BF_ERROR_VALUE, "negative name counts (%d, %d)", nreal, nint);
  for (int i = 0; i < nreal; ++i) BF_CHECK(real_names && real_names[i], BF_ERROR_VALUE, "real name %d is missing", i);
  for (int i = 0; i < nint; ++i) BF_CHECK(int_names && int_names[i], BF_ERROR_VALUE, "int name %d is missing", i);
  return write_binary(pc, dir, name, checkpoint, false, nreal, real_names, nint, int_names);
}

static int write_binary(const bf_pc *pc, const char *dir, const char *name, bool checkpoint, bool named, int nur,
                        const char *const *ur, int nui, const char *const *ui) {
  BF_CHECK(pc != NULL, BF_ERROR_VALUE, "null container");
  int rc = bf_pc_check(pc);
  if (rc != BF_SUCCESS) return rc;
  BF_CHECK(bf_pc_is_defined(pc), BF_ERROR_VALUE, "the particle container is not defined");
  BF_CHECK(dir && dir[0], BF_ERROR_VALUE, "the plotfile directory name must not be empty");
  if ((rc = check_name(name)) != BF_SUCCESS) return rc;
  const bf_playout *L = bf_pc_layout(pc);
  const int dim = L->dim;
  const int nsoar = bf_pc_num_real_comps(pc), nsoai = bf_pc_num_int_comps(pc);
  const int nr = L->nsr + nsoar - (L->pure_soa ? dim : 0), ni = L->nsi + nsoai;
  BF_CHECK(nur < 0 || nur == nr, BF_ERROR_VALUE,
           "write_plotfile: %d real component names for %d real components (%s)", nur, nr,
           L->pure_soa ? "pure SoA: the positions are not named" : "the struct reals, then the SoA reals");
  BF_CHECK(nui < 0 || nui == ni, BF_ERROR_VALUE, "write_plotfile: %d int component names for %d int components", nui,
           ni);
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
    if (nur >= 0) nm = ur[i];
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
    if (nui >= 0) nm = ui[i];
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
    for (const char *c = nm; *c && !bad; ++c) bad = strchr(" \t\n\r\v\f", *c) != NULL;
    bad = bad || bf_name_has_edge_space(nm); /* yt strip()s each name line (U+00A0 and the like too) */
    if (bad)
      rc = bf_error_set(BF_ERROR_VALUE, __func__,
                        "component name '%.100s' cannot be written (empty, too long or with blanks)", nm);
  }
  /* the names are the same on every rank; a failure to make them (memory) stops every rank */
  rc = bf_comm_agree(bf_pc_comm(pc), rc);
  if (rc == BF_SUCCESS) rc = write_dist(pc, dir, name, checkpoint, (const char *const *)rn, nr, (const char *const *)in, ni);
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
  bool checkpoint_flag;       /* the Header's is_checkpoint */
  char version[PIO_MAX_NAME]; /* the version token */
  char **names;               /* [nr + ni]: the component names (reals, then ints) */
} pheader;

static void pheader_free(pheader *h) {
  if (h->names)
    for (int i = 0; i < h->nr + h->ni; ++i) free(h->names[i]);
  free(h->names);
  h->names = NULL;
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
  snprintf(h->version, sizeof h->version, "%s", t.tok);
  int64_t x;
  if ((rc = tok_i64(&t, "the dimension", 1, 3, &x)) != BF_SUCCESS) return rc;
  h->dim = (int)x;
  if ((rc = tok_i64(&t, "the number of real components", 0, 4096, &x)) != BF_SUCCESS) return rc;
  h->nr = (int)x;
  /* room for every name; filled as they come (pheader_free frees what was made) */
  h->names = calloc((size_t)h->nr + 4097, sizeof *h->names);
  BF_CHECK(h->names != NULL, BF_ERROR_MEMORY, "out of memory reading %.300s", path);
  for (int i = 0; i < h->nr; ++i) {
    if ((rc = next_tok(&t, "a real component name")) != BF_SUCCESS) return rc;
    BF_CHECK((h->names[i] = strdup(t.tok)) != NULL, BF_ERROR_MEMORY, "out of memory reading %.300s", path);
  }
  if ((rc = tok_i64(&t, "the number of int components", 0, 4096, &x)) != BF_SUCCESS) return rc;
  h->ni = (int)x;
  for (int i = 0; i < h->ni; ++i) {
    if ((rc = next_tok(&t, "an int component name")) != BF_SUCCESS) return rc;
    BF_CHECK((h->names[h->nr + i] = strdup(t.tok)) != NULL, BF_ERROR_MEMORY, "out of memory reading %.300s", path);
  }
  if ((rc = tok_i64(&t, "the checkpoint flag", 0, 1, &x)) != BF_SUCCESS) return rc;
  h->checkpoint_flag = x != 0;
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
static int parse_particle_h(const char *path, const char *text, int dim, int64_t *nboxes, bf_box **boxes) {
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
  if (boxes) *boxes = NULL;
  EXPECT('(');
  NUMBER(n, 0, 1 << 24);
  NUMBER(hash, LLONG_MIN, LLONG_MAX);
  (void)hash;
  (void)v;
  /* the boxes, when asked for (grown as they are read: the count is not trusted) */
  bf_box *bx = NULL;
  long long cap = 0;
  for (long long b = 0; b < n; ++b) {
    EXPECT('(');
    if (boxes && b == cap) {
      cap = cap ? 2 * cap : 64;
      if (cap > n) cap = n;
      bf_box *nb = realloc(bx, (size_t)cap * sizeof *bx);
      BF_CHECK(nb != NULL, BF_ERROR_MEMORY, "out of memory reading %.300s", path);
      *boxes = bx = nb;
      memset(bx + b, 0, (size_t)(cap - b) * sizeof *bx);
    }
    for (int part = 0; part < 3; ++part) {
      EXPECT('(');
      for (int d = 0; d < dim; ++d) {
        if (d) EXPECT(',');
        if (part < 2) NUMBER(v, INT_MIN / 2, INT_MAX / 2);
        else NUMBER(v, 0, 1);
        if (bx && part == 0) bx[b].lo[d] = (int)v;
        else if (bx && part == 1) bx[b].hi[d] = (int)v;
        else if (bx && v) bx[b].type |= 1u << d;
      }
      EXPECT(')');
    }
    if (bx) bx[b].dim = dim;
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

/* Does the file's level BoxArray (from Particle_H) equal the container's level lev, box for box? */
static bool same_boxes(const bf_pc *pc, int lev, const bf_box *boxes, int64_t n) {
  bf_boxarray *ba = NULL;
  if (!boxes || lev >= bf_pc_num_levels(pc) || bf_pc_level(pc, lev, NULL, &ba, NULL) != BF_SUCCESS) return false;
  if (bf_boxarray_size(ba) != n) return false;
  const int dim = bf_pc_layout(pc)->dim;
  for (int64_t g = 0; g < n; ++g) {
    bf_box b;
    bf_boxarray_get(ba, g, &b);
    if (b.type != boxes[g].type) return false;
    for (int d = 0; d < dim; ++d)
      if (b.lo[d] != boxes[g].lo[d] || b.hi[d] != boxes[g].hi[d]) return false;
  }
  return true;
}

/* Restart across the ranks of the container's instance (one rank: the same steps without messages).
 *
 * Every rank reads the Header and the Particle_H files (small text).  The grids of a level are read by the
 * rank that owns them when the file's BoxArray is the container's (AMReX's Restart without dual grids: each
 * rank reads the grids of its DistributionMapping), else grid g by rank g % nprocs; the particles are added
 * where they were read and redistribute moves them to their owners.  Every rank checks what it read; the
 * outcome is agreed (bf_comm_agree) before any rank changes its container, so a malformed file raises the
 * same error on every rank and adds nothing anywhere. */
int bf_pc_restart(bf_pc *pc, const char *dir, const char *name) {
  BF_CHECK(pc != NULL, BF_ERROR_VALUE, "null container");
  int rc = bf_pc_check(pc);
  if (rc != BF_SUCCESS) return rc;
  BF_CHECK(bf_pc_is_defined(pc), BF_ERROR_VALUE, "restart: the particle container is not defined");
  BF_CHECK(dir && dir[0], BF_ERROR_VALUE, "restart: the directory name must not be empty");
  if ((rc = check_name(name)) != BF_SUCCESS) return rc;
  const struct bf_comm *c = bf_pc_comm(pc);
  const int nprocs = bf_comm_size(c), me = bf_comm_rank(c);
  const bf_playout *L = bf_pc_layout(pc);
  char pdir[PIO_PATH], path[PIO_PATH];
  char *text = NULL;
  size_t len = 0;
  pheader h;
  memset(&h, 0, sizeof h);
  readgrid *grids = NULL;
  int64_t ngr = 0, capgr = 0;
  /* the directory read: a writer replacing it meanwhile (a rename) makes a new one.  Its number alone
   * does not tell: ext4 gives a deleted directory's number to the next one made at once (a checkpoint
   * written twice during the read), so the directory is held open (its number cannot go to another
   * while it is), and files copied over it in place keep it: its Header is compared too (inode, size,
   * times), as PlotFileData does */
  struct stat st0, st1, hst0, hst1;
  bool known = false;
  int dfd = -1;
  if ((rc = join(pdir, dir, name)) == BF_SUCCESS) {
    dfd = open(pdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    known = dfd >= 0 && fstat(dfd, &st0) == 0;
  }
  if (rc == BF_SUCCESS && (rc = join(path, pdir, "Header")) == BF_SUCCESS) {
    known = known && stat(path, &hst0) == 0;
    rc = read_text(path, &text, &len);
  }
  if (rc == BF_SUCCESS) {
    rc = parse_header(path, text, &h);
    free(text);
  }
  const int nr = L->nsr + bf_pc_num_real_comps(pc) - (L->pure_soa ? L->dim : 0);
  const int ni = L->nsi + bf_pc_num_int_comps(pc);
  if (rc == BF_SUCCESS && h.dim != L->dim)
    rc = bf_error_set(BF_ERROR_VALUE, __func__, "%.300s: particles of dimension %d, the container's is %d", path, h.dim,
                      L->dim);
  if (rc == BF_SUCCESS && (h.nr != nr || h.ni != ni))
    rc = bf_error_set(BF_ERROR_VALUE, __func__,
                      "%.300s: particles with %d real and %d int components, the container has %d and %d", path, h.nr,
                      h.ni, nr, ni);
  for (int l = 0; l <= h.finest && rc == BF_SUCCESS; ++l) {
    const lev_table *lt = &h.lev[l];
    bool any = false;
    for (int64_t g = 0; g < lt->ngrids; ++g) any = any || lt->count[g] > 0;
    if (!any) continue;
    char ldir[PIO_PATH], lname[32];
    snprintf(lname, sizeof lname, "Level_%d", l);
    if ((rc = join(ldir, pdir, lname)) != BF_SUCCESS || (rc = join(path, ldir, "Particle_H")) != BF_SUCCESS) break;
    struct stat st;
    bf_box *boxes = NULL;
    if (stat(path, &st) == 0) {
      if ((rc = read_text(path, &text, &len)) != BF_SUCCESS) break;
      int64_t nb = 0;
      rc = parse_particle_h(path, text, L->dim, &nb, &boxes);
      free(text);
      if (rc == BF_SUCCESS && nb != lt->ngrids)
        rc = bf_error_set(BF_ERROR_VALUE, __func__, "%.300s: %" PRId64 " boxes, the header says %" PRId64 " grids", path,
                          nb, lt->ngrids);
    }
    /* who reads which grid: the owner when the grids are the container's, else round robin */
    const int *pm = NULL;
    if (rc == BF_SUCCESS && same_boxes(pc, l, boxes, lt->ngrids)) {
      bf_distmap *dm = NULL;
      if (bf_pc_level(pc, l, NULL, NULL, &dm) == BF_SUCCESS && bf_distmap_size(dm) == lt->ngrids)
        pm = bf_distmap_data(dm);
    }
    free(boxes);
    if (rc != BF_SUCCESS) break;
    double *used = calloc(100000, sizeof *used); /* per data file number */
    if (!used) rc = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory");
    for (int64_t g = 0; g < lt->ngrids && rc == BF_SUCCESS; ++g) {
      if (lt->count[g] == 0) continue;
      if ((pm ? pm[g] : (int)(g % nprocs)) != me) continue;
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
  if (known) { /* also after a failed read: its error (bytes of another file) would mislead */
    char hp[PIO_PATH];
    if (stat(pdir, &st1) != 0 || st1.st_dev != st0.st_dev || st1.st_ino != st0.st_ino ||
        join(hp, pdir, "Header") != BF_SUCCESS || stat(hp, &hst1) != 0 || hst1.st_dev != hst0.st_dev ||
        hst1.st_ino != hst0.st_ino || hst1.st_size != hst0.st_size || hst1.st_mtim.tv_sec != hst0.st_mtim.tv_sec ||
        hst1.st_mtim.tv_nsec != hst0.st_mtim.tv_nsec || hst1.st_ctim.tv_sec != hst0.st_ctim.tv_sec ||
        hst1.st_ctim.tv_nsec != hst0.st_ctim.tv_nsec)
      rc = bf_error_set(BF_ERROR_IO, __func__, "%.300s was replaced (written again) while it was being read", pdir);
  }
  if (dfd >= 0) close(dfd);
  /* nothing changes anywhere unless every rank read and checked its part */
  if ((rc = bf_comm_agree(c, rc)) == BF_SUCCESS) {
    /* the particles are appended to the first local tile of their level (or the outbox): their sizes
     * before, so that a redistribute that refuses a particle (in no grid of the container: nothing has
     * moved then) takes them out again and the container is as it was */
    int64_t before[BF_PC_MAX_LEVELS + 1];
    for (int l = 0; l < pc->nlev; ++l) {
      const pc_level *L = &pc->lev[l];
      before[l] = L->nslots > 0 && pc->slots[L->base] ? bf_ptile_size(pc->slots[L->base]) : -1;
    }
    before[BF_PC_MAX_LEVELS] = pc->outbox ? bf_ptile_size(pc->outbox) : -1;
    for (int64_t i = 0; i < ngr && rc == BF_SUCCESS; ++i) rc = add_grid(pc, &h, &grids[i]);
    /* AMReX sets the counter to the file's next id; boxfab never moves it back
     * (ids made earlier in this process stay unique) */
    int64_t cur = 0;
    if (rc == BF_SUCCESS) rc = bf_particle_next_id(bf_pc_id_family(pc), 0, &cur);
    if (rc == BF_SUCCESS && h.next_id > cur) rc = bf_particle_set_next_id(bf_pc_id_family(pc), h.next_id);
    /* collective: a rank that failed above makes every rank fail, and nothing moves */
    bool moving = false;
    if ((rc = bf_comm_agree(c, rc)) == BF_SUCCESS) {
      moving = true;
      rc = bf_pc_redistribute(pc, 0, -1, 0, 0, false);
    }
    if (rc != BF_SUCCESS && (!moving || rc == BF_ERROR_VALUE || rc == BF_ERROR_MEMORY)) {
      /* adding failed on some rank, or redistribute refused before anything moved (BF_ERROR_VALUE: a
       * particle in no grid of the container) or ran out of memory before its first change: the
       * particles read go again (shrinking cannot fail) */
      char msg[1024];
      snprintf(msg, sizeof msg, "%s", bf_error_message());
      for (int l = 0; l < pc->nlev; ++l) {
        const pc_level *L = &pc->lev[l];
        bf_ptile **t = L->nslots > 0 ? &pc->slots[L->base] : NULL;
        if (!t || !*t) continue;
        if (before[l] < 0) bf_ptile_destroy(t);
        else (void)bf_ptile_resize(*t, before[l]);
      }
      if (pc->outbox) {
        if (before[BF_PC_MAX_LEVELS] < 0) bf_ptile_destroy(&pc->outbox);
        else (void)bf_ptile_resize(pc->outbox, before[BF_PC_MAX_LEVELS]);
      }
      rc = bf_error_set(rc, __func__, "%s", msg);
    }
  }
  for (int64_t i = 0; i < ngr; ++i) {
    free(grids[i].ints);
    free(grids[i].reals);
  }
  free(grids);
  pheader_free(&h);
  return rc;
}

/* ---- the Header alone (pyAMReX's ParticleHeader) ------------------------------------------------ */

struct bf_particle_header {
  pheader h;
};

int bf_particle_header_read(const char *dir, const char *name, bf_particle_header **out) {
  BF_CHECK(out != NULL, BF_ERROR_VALUE, "NULL argument");
  *out = NULL;
  BF_CHECK(dir && dir[0], BF_ERROR_VALUE, "the plotfile directory name must not be empty");
  BF_CALL(check_name(name));
  char pdir[PIO_PATH], path[PIO_PATH];
  BF_CALL(join(pdir, dir, name));
  BF_CALL(join(path, pdir, "Header"));
  /* collective over the top instance (AMReX's ReadAndBcastFile): rank 0 reads, every rank gets the text
   * or rank 0's error, so that the ranks return together (none is left reading a file another removes) */
  const bf_comm *c = bf_comm_top();
  const int me = bf_comm_rank(c);
  char *text = NULL;
  size_t len = 0;
  int64_t hdr[2] = {0, 0};
  if (me == 0) {
    hdr[0] = read_text(path, &text, &len);
    hdr[1] = (int64_t)len;
  }
  if (bf_comm_size(c) > 1) {
    BF_CALL(bf_comm_bcast(c, hdr, sizeof hdr, 0));
    if (hdr[0] != BF_SUCCESS) {
      char msg[1024] = {0};
      if (me == 0) snprintf(msg, sizeof msg, "%s", bf_error_message());
      int rc = bf_comm_bcast(c, msg, sizeof msg, 0);
      if (rc != BF_SUCCESS) return rc;
      return bf_error_set((int)hdr[0], __func__, "%s", msg);
    }
    int rc = BF_SUCCESS;
    if (me != 0) {
      text = malloc((size_t)hdr[1] + 1);
      if (text) text[hdr[1]] = '\0';
      else rc = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory reading %.300s", path);
    }
    /* every rank has its buffer, or every rank returns */
    if ((rc = bf_comm_agree(c, rc)) == BF_SUCCESS) rc = bf_comm_bcast(c, text, (size_t)hdr[1], 0);
    if (rc != BF_SUCCESS) {
      free(text);
      return rc;
    }
  } else if (hdr[0] != BF_SUCCESS) {
    return (int)hdr[0];
  }
  bf_particle_header *ph = calloc(1, sizeof *ph);
  if (!ph) {
    free(text);
    BF_ERROR(BF_ERROR_MEMORY, "out of memory");
  }
  int rc = parse_header(path, text, &ph->h);
  free(text);
  if (rc != BF_SUCCESS) {
    pheader_free(&ph->h);
    free(ph);
    return rc;
  }
  *out = ph;
  return BF_SUCCESS;
}

void bf_particle_header_destroy(bf_particle_header **h) {
  if (!h || !*h) return;
  pheader_free(&(*h)->h);
  free(*h);
  *h = NULL;
}

const char *bf_particle_header_version(const bf_particle_header *h) { return h->h.version; }
int bf_particle_header_dim(const bf_particle_header *h) { return h->h.dim; }
int bf_particle_header_num_real(const bf_particle_header *h) { return h->h.nr; }
int bf_particle_header_num_int(const bf_particle_header *h) { return h->h.ni; }
const char *bf_particle_header_real_name(const bf_particle_header *h, int i) {
  return i >= 0 && i < h->h.nr ? h->h.names[i] : NULL;
}
const char *bf_particle_header_int_name(const bf_particle_header *h, int i) {
  return i >= 0 && i < h->h.ni ? h->h.names[h->h.nr + i] : NULL;
}
bool bf_particle_header_is_checkpoint(const bf_particle_header *h) { return h->h.checkpoint_flag; }
bool bf_particle_header_is_single(const bf_particle_header *h) { return h->h.rsize == 4; }
int64_t bf_particle_header_num_particles(const bf_particle_header *h) { return h->h.nparticles; }
int64_t bf_particle_header_next_id(const bf_particle_header *h) { return h->h.next_id; }
int bf_particle_header_finest_level(const bf_particle_header *h) { return h->h.finest; }
int64_t bf_particle_header_num_grids(const bf_particle_header *h, int lev) {
  return lev >= 0 && lev <= h->h.finest ? h->h.lev[lev].ngrids : -1;
}
