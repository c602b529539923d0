/* Writing a MultiFab's FABs across the MPI ranks of its runtime instance, as
 * AMReX's VisMF::Write does with NFiles (AMReX_VisMF.cpp, AMReX_NFiles.H):
 *
 * - nfiles = max(1, min(nprocs, nOutFiles)) data files (nOutFiles: 256 unless
 *   set); rank r writes into file r / ceil(nprocs / nfiles) ("groupSets"
 *   off), so up to 256 ranks each rank has its own file <base>_D_<rank>.
 *   When fewer ranks hold boxes than nfiles, AMReX's sparse mode: only the
 *   ranks with boxes write, each into the file numbered by its rank.
 * - The ranks sharing a file write one after another in rank order (AMReX's
 *   static set selection; its default dynamic selection picks the order at
 *   run time, which gives the same set of files with other offsets): each
 *   waits for a token from the previous one.  Every rank computes every
 *   FAB's offset from the BoxArray and DistributionMapping alone (the FAB
 *   header lines and data sizes are known), as AMReX's FindOffsets does.
 * - The I/O rank (0) gathers the per-box min/max and writes the header
 *   (<base>_H) with the global FabOnDisk list.
 * - Every rank learns the outcome: a failure on any rank (disk full, a file
 *   that cannot be created) is returned on every rank (bf_comm_agree).
 *
 * The bytes of each FAB and of the header are those of the one-rank writer;
 * only the data file names and offsets depend on the number of ranks (as in
 * AMReX). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boxfab/distmap.h"
#include "boxfab/dtype.h"
#include "boxfab/plotfile.h"
#include "runtime/comm.h"
#include "base/fileio.h"
#include "mesh/multifab_impl.h"
#include "io/plotfile_impl.h"

static int pm_nout_files = 256; /* AMReX's VisMF::nOutFiles default */

int bf_pf_set_noutfiles(int n) {
  BF_CHECK(n >= 1, BF_ERROR_VALUE, "the number of output files must be >= 1, got %d", n);
  pm_nout_files = n;
  return BF_SUCCESS;
}

int bf_pf_get_noutfiles(void) { return pm_nout_files; }

const bf_comm *bf_pf_comm_of_mf(const bf_multifab *mf) { return bf_comm_of(mf->runtime_id); }

/* ---- the NFiles layout ----------------------------------------------------------------- */
int bf_pf_layout_make(const bf_distmap *dm, int nprocs, int nout, bf_pf_layout *L) {
  memset(L, 0, sizeof *L);
  L->nprocs = nprocs;
  L->file = malloc((size_t)nprocs * sizeof *L->file);
  L->prev = malloc((size_t)nprocs * sizeof *L->prev);
  L->next = malloc((size_t)nprocs * sizeof *L->next);
  bool *has = calloc((size_t)nprocs, sizeof *has);
  if (!L->file || !L->prev || !L->next || !has) {
    free(has);
    bf_pf_layout_clear(L);
    BF_ERROR(BF_ERROR_MEMORY, "out of memory");
  }
  int64_t n = bf_distmap_size(dm);
  const int *pm = bf_distmap_data(dm);
  int nwith = 0;
  for (int64_t i = 0; i < n; ++i)
    if (pm[i] >= 0 && pm[i] < nprocs && !has[pm[i]]) has[pm[i]] = true, ++nwith;
  int nfiles = nout < nprocs ? nout : nprocs;
  if (nfiles < 1) nfiles = 1;
  L->sparse = nwith > 0 && nwith < nfiles; /* AMReX's allowSparseWrites */
  int set_len = (nprocs + nfiles - 1) / nfiles;
  for (int r = 0; r < nprocs; ++r) {
    if (L->sparse)
      L->file[r] = has[r] ? r : -1;
    else
      L->file[r] = r / set_len;
  }
  for (int r = 0; r < nprocs; ++r) {
    L->prev[r] = L->next[r] = -1;
    if (L->file[r] < 0) continue;
    for (int q = r - 1; q >= 0; --q)
      if (L->file[q] == L->file[r]) {
        L->prev[r] = q;
        break;
      }
    for (int q = r + 1; q < nprocs; ++q)
      if (L->file[q] == L->file[r]) {
        L->next[r] = q;
        break;
      }
  }
  free(has);
  return BF_SUCCESS;
}

void bf_pf_layout_clear(bf_pf_layout *L) {
  free(L->file), free(L->prev), free(L->next);
  memset(L, 0, sizeof *L);
}

/* Path of data file k: "<dir>/<base>_D_<k>" or, with a tag, the temporary "<dir>/.bftmp.<tag>_D_<k>" (its
 * length does not grow with the base name's: a legal final name always has a temporary one). */
char *bf_pf_data_path(const char *dir, const char *base, int k, const char *tag) {
  size_t n = strlen(dir) + strlen(base) + (tag ? strlen(tag) : 0) + 48;
  char *s = malloc(n);
  if (!s) return NULL;
  if (tag)
    snprintf(s, n, "%s/.bftmp.%s_D_%05d", dir, tag, k);
  else
    snprintf(s, n, "%s/%s_D_%05d", dir, base, k);
  return s;
}

static int pm_io_error(const char *who, const char *what, const char *path, int e) {
  return bf_error_set(BF_ERROR_IO, who, "cannot %s '%s': %s", what, path, strerror(e ? e : EIO));
}

/* This rank's turn in its file: open it (the first writer creates it) at `start`, write the local FABs,
 * flush them to the disk. */
static int pm_write_my_fabs(const bf_multifab *mf, const char *path, bool first, int64_t start, int precision,
                            bool grown, const char *who, double *mins, double *maxs) {
  int fd = open(path, first ? (O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC) : (O_WRONLY | O_CLOEXEC), 0666);
  if (fd < 0) return pm_io_error(who, first ? "create" : "open", path, errno);
  if (lseek(fd, (off_t)start, SEEK_SET) != (off_t)start) {
    int e = errno;
    close(fd);
    return pm_io_error(who, "seek in", path, e);
  }
  FILE *f = fdopen(fd, "wb");
  if (!f) {
    int e = errno;
    close(fd);
    return pm_io_error(who, "open", path, e);
  }
  /* large writes: the rows of a fab go out in a few big system calls */
  (void)setvbuf(f, NULL, _IOFBF, (size_t)1 << 22);
  int err = bf_pf_write_local_fabs(mf, f, path, precision, grown, who, mins, maxs);
  if (!err && bf_sync_file(f) != 0) err = pm_io_error(who, "write", path, errno);
  errno = 0;
  if (fclose(f) != 0 && !err) err = pm_io_error(who, "write", path, errno);
  return err;
}

int bf_pf_write_mf_dist(const bf_multifab *mf, const char *dir, const char *base, const char *tag,
                        const char *hdr_path, int precision, bool grown, const char *who, int *first_file) {
  const bf_comm *c = bf_pf_comm_of_mf(mf);
  int nprocs = bf_comm_size(c), me = bf_comm_rank(c);
  const bf_boxarray *ba = bf_multifab_boxarray(mf);
  const bf_distmap *dm = mf->dm;
  int64_t nbox = bf_boxarray_size(ba), nlocal = bf_multifab_nlocal(mf);
  int ncomp = bf_multifab_ncomp(mf);
  size_t esize = precision == BF_DTYPE_FLOAT ? 4 : 8;
  const int *pm = bf_distmap_data(dm);
  bf_pf_layout lay;
  int64_t *offsets = NULL, *fileoff = NULL;
  char **names = NULL;
  double *mm = NULL, *all = NULL;
  char *mypath = NULL;
  int err = BF_SUCCESS;
  if (first_file) *first_file = -1;
  if ((err = bf_pf_layout_make(dm, nprocs, pm_nout_files, &lay))) return bf_comm_agree(c, err);
  /* every FAB's offset, from the boxes alone: files in rank order, a rank's boxes in index order */
  offsets = malloc((size_t)(nbox ? nbox : 1) * sizeof *offsets);
  fileoff = calloc((size_t)nprocs, sizeof *fileoff);
  int64_t *rank_start = calloc((size_t)nprocs, sizeof *rank_start), *rank_bytes = calloc((size_t)nprocs, 8);
  mm = malloc((size_t)(nlocal ? nlocal : 1) * (size_t)(1 + 2 * ncomp) * sizeof *mm);
  if (!offsets || !fileoff || !rank_start || !rank_bytes || !mm) {
    err = bf_error_set(BF_ERROR_MEMORY, who, "out of memory");
    goto write_done;
  }
  for (int64_t i = 0; i < nbox; ++i) {
    bf_box b = bf_boxarray_data(ba)[i];
    if (grown) (void)bf_box_grow(&b, mf->ngrow.v);
    char *line = NULL;
    size_t llen = 0;
    int64_t npts = 0;
    if ((err = bf_pf_fab_header_line(&b, ncomp, precision, &line, &llen))) goto write_done;
    free(line);
    (void)bf_box_numpts(&b, &npts);
    rank_bytes[pm[i]] += (int64_t)llen + npts * ncomp * (int64_t)esize;
  }
  for (int r = 0; r < nprocs; ++r) { /* rank order is each file's write order */
    if (lay.file[r] < 0) continue;
    rank_start[r] = fileoff[lay.file[r]];
    fileoff[lay.file[r]] += rank_bytes[r];
  }
  {
    int64_t *cur = calloc((size_t)nprocs, sizeof *cur);
    if (!cur) {
      err = bf_error_set(BF_ERROR_MEMORY, who, "out of memory");
      goto write_done;
    }
    for (int r = 0; r < nprocs; ++r) cur[r] = rank_start[r];
    for (int64_t i = 0; i < nbox; ++i) {
      bf_box b = bf_boxarray_data(ba)[i];
      if (grown) (void)bf_box_grow(&b, mf->ngrow.v);
      char *line = NULL;
      size_t llen = 0;
      int64_t npts = 0;
      if ((err = bf_pf_fab_header_line(&b, ncomp, precision, &line, &llen))) break;
      free(line);
      (void)bf_box_numpts(&b, &npts);
      offsets[i] = cur[pm[i]];
      cur[pm[i]] += (int64_t)llen + npts * ncomp * (int64_t)esize;
    }
    free(cur);
    if (err) goto write_done;
  }
write_done:
  /* the layout failing anywhere stops everyone before any file is touched */
  if ((err = bf_comm_agree(c, err))) goto done;
  int myfile = lay.file[me];
  if (myfile >= 0) {
    bf_comm_reqs rq;
    int token = 0, tok_out = 0;
    if ((err = bf_comm_reqs_init(&rq, c, 2))) goto after_write;
    if (lay.prev[me] >= 0) { /* wait for the previous writer of this file */
      if (!(err = bf_comm_irecv(&rq, &token, sizeof token, lay.prev[me], BF_TAG_IO, 0)))
        err = bf_comm_waitall(&rq);
    }
    if (!err) {
      if (!(mypath = bf_pf_data_path(dir, base, myfile, tag)))
        err = bf_error_set(BF_ERROR_MEMORY, who, "out of memory");
      else
        err = pm_write_my_fabs(mf, mypath, lay.prev[me] < 0, rank_start[me], precision, grown, who, mm,
                               mm + (size_t)(nlocal ? nlocal : 1) * (size_t)ncomp);
      if (err && tag) { /* the message names the data file it was written for, not only its temporary name */
        char *shown = bf_pf_data_path(dir, base, myfile, NULL);
        if (shown) err = bf_error_writing(err, shown);
        free(shown);
      }
    }
    /* always hand the token on, even after a failure: nobody waits forever */
    tok_out = err ? 1 : 0;
    if (lay.next[me] >= 0) {
      int e2 = bf_comm_isend(&rq, &tok_out, sizeof tok_out, lay.next[me], BF_TAG_IO, 1);
      int e3 = bf_comm_waitall(&rq);
      if (!err) err = e2 ? e2 : e3;
    }
    bf_comm_reqs_free(&rq);
    if (!err && first_file && lay.prev[me] < 0) *first_file = myfile;
  } else if (nlocal > 0) {
    err = bf_error_set(BF_ERROR_RUNTIME, who, "rank %d holds boxes but no data file", me);
  }
after_write:
  if ((err = bf_comm_agree(c, err))) goto done;
  /* min/max of every box at the I/O rank: per local fab [global index, mins..., maxs...] */
  {
    size_t per = (size_t)(1 + 2 * ncomp);
    double *pack = malloc((size_t)(nlocal ? nlocal : 1) * per * sizeof *pack);
    const double *mins = mm, *maxs = mm + (size_t)(nlocal ? nlocal : 1) * (size_t)ncomp;
    if (!pack) {
      err = bf_error_set(BF_ERROR_MEMORY, who, "out of memory");
    } else {
      for (int64_t li = 0; li < nlocal; ++li) {
        pack[li * per] = (double)mf->lidx[li];
        for (int n = 0; n < ncomp; ++n)
          pack[li * per + 1 + n] = mins[li * ncomp + n], pack[li * per + 1 + ncomp + n] = maxs[li * ncomp + n];
      }
    }
    if ((err = bf_comm_agree(c, err))) {
      free(pack);
      goto done;
    }
    void *got = NULL;
    size_t *counts = NULL;
    err = bf_comm_gatherv(c, pack, (size_t)nlocal * per * sizeof *pack, 0, &got, counts);
    free(pack);
    all = got;
    if (!err && me == 0) {
      double *gmin = malloc((size_t)(nbox ? nbox : 1) * (size_t)ncomp * 2 * sizeof *gmin);
      names = calloc((size_t)(nbox ? nbox : 1), sizeof *names);
      if (!gmin || !names) {
        free(gmin);
        err = bf_error_set(BF_ERROR_MEMORY, who, "out of memory");
      } else {
        double *gmax = gmin + (size_t)(nbox ? nbox : 1) * (size_t)ncomp;
        for (int64_t k = 0; k < nbox; ++k) {
          const double *q = all + (size_t)k * per;
          int64_t i = (int64_t)q[0];
          if (i < 0 || i >= nbox) continue;
          memcpy(gmin + i * ncomp, q + 1, (size_t)ncomp * sizeof *q);
          memcpy(gmax + i * ncomp, q + 1 + ncomp, (size_t)ncomp * sizeof *q);
        }
        for (int64_t i = 0; !err && i < nbox; ++i) {
          int k = lay.file[pm[i]];
          char *p = bf_pf_data_path("", base, k, NULL); /* "/<base>_D_k" */
          if (!p || !(names[i] = strdup(p + 1))) err = bf_error_set(BF_ERROR_MEMORY, who, "out of memory");
          free(p);
        }
        if (!err)
          err = bf_pf_write_mf_header(mf, grown, (const char *const *)names, offsets, gmin, gmax, hdr_path, who);
        free(gmin);
      }
    }
  }
  err = bf_comm_agree(c, err);
done:
  /* a failed write leaves no temporary data file behind (plotfiles: the whole directory goes) */
  if (err && tag && mypath && lay.file && lay.prev[me] < 0) (void)unlink(mypath);
  if (names)
    for (int64_t i = 0; i < nbox; ++i) free(names[i]);
  free(names), free(all), free(mm), free(offsets), free(fileoff), free(rank_start), free(rank_bytes), free(mypath);
  bf_pf_layout_clear(&lay);
  return err;
}

int bf_vismf_set_noutfiles(int n) { return bf_pf_set_noutfiles(n); }
int bf_vismf_get_noutfiles(void) { return bf_pf_get_noutfiles(); }
