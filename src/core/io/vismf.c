/* MultiFab checkpoints in AMReX's VisMF format, version 1 (AMReX's
 * VisMF::Write / VisMF::Read; see include/boxfab/plotfile.h).  The files are
 * the plotfile's Cell_H / Cell_D pair with the grown FABs and the ghost width:
 * the multi-FAB writing and parsing are shared with plotfile.c and
 * plotfile_read.c (plotfile_impl.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boxfab/arena.h"
#include "boxfab/dtype.h"
#include "boxfab/gpu.h"
#include "boxfab/plotfile.h"
#include "base/fileio.h"
#include "runtime/comm.h"
#include "io/plotfile_impl.h"

static char *vm_cat(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  char *s = malloc(la + lb + 1);
  if (!s) return NULL;
  memcpy(s, a, la);
  memcpy(s + la, b, lb + 1);
  return s;
}

static int vm_check_name(const char *name) {
  BF_CHECK(name && name[0], BF_ERROR_VALUE, "the VisMF name must not be empty");
  BF_CHECK(!strpbrk(name, "\n\r"), BF_ERROR_VALUE, "the VisMF name must not hold a line break");
  size_t n = strlen(name);
  BF_CHECK(name[n - 1] != '/', BF_ERROR_VALUE, "the VisMF name '%s' names a directory, not a file prefix", name);
  /* the header names the data file by its base name, read as one whitespace-separated token (AMReX's
   * FabOnDisk too): a blank there made a checkpoint that no reader can open */
  const char *slash = strrchr(name, '/');
  BF_CHECK(!strpbrk(slash ? slash + 1 : name, " \t\v\f"), BF_ERROR_VALUE,
           "the VisMF name '%s' holds a blank in its last component: the header could not name its data file", name);
  return BF_SUCCESS;
}

/* A temporary sibling of `final`: "<dir>/.bftmp.<unique>", created empty (mode 0666 less the umask). */
static int vm_tmpfile(const char *final, char **out) {
  char *tmp = bf_make_sibling(final, false);
  if (!tmp)
    return bf_error_set(BF_ERROR_IO, "VisMF::Write", "cannot create a file beside '%s': %s", final, strerror(errno));
  *out = tmp;
  return BF_SUCCESS;
}

/* Move an existing `final` to a new temporary sibling (*aside; NULL when there is none).  (Moved, not kept
 * under a second link: the header must be gone from its name while the data files are replaced, so that a
 * process killed then leaves no header naming the wrong data.) */
static int vm_aside(const char *final, char **aside) {
  *aside = NULL;
  BF_CALL(vm_tmpfile(final, aside));
  if (rename(final, *aside) == 0) return BF_SUCCESS;
  int e = errno;
  unlink(*aside);
  free(*aside), *aside = NULL;
  if (e == ENOENT) return BF_SUCCESS;
  return bf_error_set(BF_ERROR_IO, "VisMF::Write", "cannot move the previous '%s' aside: %s", final, strerror(e));
}

int bf_vismf_write(const bf_multifab *mf, const char *name) {
  BF_CHECK(mf, BF_ERROR_VALUE, "mf must not be NULL");
  BF_CALL(vm_check_name(name));
  BF_CALL(bf_multifab_check(mf));
  BF_CHECK(bf_multifab_dtype(mf) == BF_DTYPE_DOUBLE, BF_ERROR_TYPE, "VisMF writes real (float64) data, not %s",
           bf_dtype_name(bf_multifab_dtype(mf)));
  BF_CHECK(bf_multifab_is_allocated(mf), BF_ERROR_RUNTIME, "the MultiFab holds no data");
  /* Across the ranks of mf's instance (plotfile_mpi.c): every rank writes its FABs into a temporary data file
   * ".bftmp.<tag>_D_<k>" (AMReX's NFiles numbering: <base>_D_<rank> up to 256 ranks), rank 0 the header
   * into a temporary sibling; every step's outcome is agreed by all ranks. */
  const struct bf_comm *c = bf_pf_comm_of_mf(mf);
  int me = bf_comm_rank(c);
  bool io = me == 0;
  const char *slash = strrchr(name, '/');
  const char *base = slash ? slash + 1 : name;
  size_t dlen = slash ? (size_t)(slash - name) : 0;
  char *dir = malloc(dlen + 2), *hfinal = vm_cat(name, "_H"), *dtmp = NULL, *dfinal = NULL;
  char *htmp = NULL, *haside = NULL, *daside = NULL;
  bool renamed = false;
  char tag[32] = {0};
  int err = BF_SUCCESS, myfile = -1;
  if (!dir || !hfinal) {
    err = bf_error_set(BF_ERROR_MEMORY, "VisMF::Write", "out of memory");
  } else {
    if (slash && dlen == 0)
      snprintf(dir, 2, "/");
    else if (slash)
      memcpy(dir, name, dlen), dir[dlen] = '\0';
    else
      snprintf(dir, 2, ".");
  }
  if (!err && io) {
    struct stat st;
    /* the final names can be made (not too long, a folder that can be searched) before anything is written:
     * the header, the first data file and the one of the last rank (the most digits; AMReX's sparse mode) */
    char *d0 = bf_pf_data_path(dir, base, 0, NULL), *dn = bf_pf_data_path(dir, base, bf_comm_size(c) - 1, NULL);
    if (!d0 || !dn)
      err = bf_error_set(BF_ERROR_MEMORY, "VisMF::Write", "out of memory");
    else if (lstat(d0, &st) == 0 && S_ISDIR(st.st_mode))
      err = bf_error_set(BF_ERROR_IO, "VisMF::Write", "cannot write '%s': it is a directory", d0);
    else if (lstat(hfinal, &st) != 0 && errno != ENOENT)
      err = bf_error_set(BF_ERROR_IO, "VisMF::Write", "cannot write '%s': %s", hfinal, strerror(errno));
    else if (lstat(d0, &st) != 0 && errno != ENOENT)
      err = bf_error_set(BF_ERROR_IO, "VisMF::Write", "cannot write '%s': %s", d0, strerror(errno));
    else if (lstat(dn, &st) != 0 && errno != ENOENT)
      err = bf_error_set(BF_ERROR_IO, "VisMF::Write", "cannot write '%s': %s", dn, strerror(errno));
    free(d0), free(dn);
    if (!err) err = vm_tmpfile(hfinal, &htmp);
    if (!err) { /* the data files' temporary names share the header's unique suffix */
      const char *u = strrchr(htmp, '.');
      snprintf(tag, sizeof tag, "%s", u ? u + 1 : "0");
    }
  }
  if ((err = bf_comm_agree(c, err))) goto done;
  if ((err = bf_comm_agree(c, bf_comm_bcast(c, tag, sizeof tag, 0)))) goto done;
  tag[sizeof tag - 1] = '\0';
  if ((err = bf_pf_write_mf_dist(mf, dir, base, tag, htmp, BF_DTYPE_DOUBLE, true, "VisMF::Write", &myfile)))
    goto done;
  if (myfile >= 0 && (!(dtmp = bf_pf_data_path(dir, base, myfile, tag)) ||
                      !(dfinal = bf_pf_data_path(dir, base, myfile, NULL))))
    err = bf_error_set(BF_ERROR_MEMORY, "VisMF::Write", "out of memory");
  if ((err = bf_comm_agree(c, err))) goto done;
  /* Publish.  The header is the commit point: readers (boxfab's and AMReX's) open <name>_H, then the data
   * files it names.  The existing header is first moved to a temporary sibling (rank 0), then every rank that
   * created a data file moves the previous file of that name aside and renames its new one in, then rank 0
   * renames the new header.  A kill at any moment leaves under the final names a complete checkpoint (old or
   * new) or no header, never a header with the wrong data.  A failed rename on any rank puts the previous
   * files back on every rank (data first, the header only when all its data is back).  Like AMReX's
   * VisMF::Write, a successful write replaces the previous checkpoint and keeps no copy (data files of a
   * previous write on more ranks stay, named by no header). */
  if (io) err = vm_aside(hfinal, &haside);
  if ((err = bf_comm_agree(c, err))) goto restore;
  if (dtmp) {
    if (!(err = vm_aside(dfinal, &daside)) && rename(dtmp, dfinal) != 0) {
      err = bf_error_set(BF_ERROR_IO, "VisMF::Write", "cannot rename the finished data to '%s': %s", dfinal,
                         strerror(errno));
    } else if (!err) {
      free(dtmp), dtmp = NULL, renamed = true;
    }
  }
  if ((err = bf_comm_agree(c, err))) goto restore;
  if (io && rename(htmp, hfinal) != 0)
    err = bf_error_set(BF_ERROR_IO, "VisMF::Write", "cannot rename the finished header to '%s': %s", hfinal,
                       strerror(errno));
  else if (io)
    free(htmp), htmp = NULL;
  if ((err = bf_comm_agree(c, err))) goto restore;
  /* the renames on the disk too (the files were synced before) */
  if ((io || myfile >= 0) && bf_sync_parent(hfinal) != 0)
    err = bf_error_set(BF_ERROR_IO, "VisMF::Write", "wrote '%s' but cannot flush its directory to the disk: %s",
                       hfinal, strerror(errno));
  err = bf_comm_agree(c, err);
  goto done;
restore: {
  /* the previous files back under their names: every rank its data, then rank 0 the header when all data is
   * back (should that fail, it stays in the siblings, never deleted) */
  if (renamed && !daside) unlink(dfinal); /* new data where there was none before */
  int back = 1;
  if (daside) {
    if (rename(daside, dfinal) == 0)
      free(daside), daside = NULL;
    else
      back = 0;
  }
  (void)bf_comm_reduce(c, &back, 1, BF_CT_INT, BF_OP_LAND, -1);
  if (io && haside && back && rename(haside, hfinal) == 0) free(haside), haside = NULL;
  if (haside || daside) { /* what could not go back stays, and the message says where */
    char prev[1024], h[600] = "", d[600] = "";
    snprintf(prev, sizeof prev, "%s", bf_error_message());
    if (haside) snprintf(h, sizeof h, " '%s' (its header, %s)", haside, hfinal);
    if (daside) snprintf(d, sizeof d, "%s '%s' (its data, %s)", haside ? " and" : "", daside, dfinal);
    /* where it is kept comes first: a long path must not push it past the message's end */
    err = bf_error_set(err, "VisMF::Write",
                       "the previous checkpoint could not be put back under its names and is kept as%s%s: %s", h, d,
                       prev);
  }
  free(daside), free(haside), daside = haside = NULL;
}
done:
  if (dtmp) unlink(dtmp);
  if (htmp) unlink(htmp);
  if (haside) unlink(haside);
  if (daside) unlink(daside);
  free(dtmp), free(dfinal), free(htmp), free(haside), free(daside), free(hfinal), free(dir);
  return bf_error_writing(err, name);
}

static int vm_open(const char *name, int dim, bf_pf_mfhdr *L) {
  BF_CALL(vm_check_name(name));
  char *h = vm_cat(name, "_H");
  if (!h) BF_ERROR(BF_ERROR_MEMORY, "out of memory");
  memset(L, 0, sizeof *L);
  int err = bf_pf_read_mf_header(h, dim, -1, L);
  L->exact = true;
  free(h);
  if (err) bf_pf_mfhdr_clear(L);
  return err;
}

int bf_vismf_read(bf_multifab *mf, const char *name) {
  BF_CHECK(mf, BF_ERROR_VALUE, "mf must not be NULL");
  BF_CALL(bf_multifab_check(mf));
  BF_CHECK(bf_multifab_dtype(mf) == BF_DTYPE_DOUBLE, BF_ERROR_TYPE, "VisMF reads real (float64) data, not into %s",
           bf_dtype_name(bf_multifab_dtype(mf)));
  BF_CHECK(bf_multifab_is_allocated(mf), BF_ERROR_RUNTIME, "the MultiFab holds no data");
  bf_pf_mfhdr L;
  BF_CALL(vm_open(name, bf_multifab_dim(mf), &L));
  int err = BF_SUCCESS;
  bf_intvect ng = bf_multifab_ngrow(mf);
  if (!bf_boxarray_equal(L.ba, bf_multifab_boxarray(mf))) {
    err = bf_error_set(BF_ERROR_VALUE, "VisMF::Read",
                       "'%s_H': its BoxArray (%d boxes) differs from the MultiFab's (%lld boxes)", name, L.nbox,
                       (long long)bf_boxarray_size(bf_multifab_boxarray(mf)));
  } else if (L.ncomp != bf_multifab_ncomp(mf)) {
    err = bf_error_set(BF_ERROR_VALUE, "VisMF::Read", "'%s_H' holds %d components, the MultiFab %d", name, L.ncomp,
                       bf_multifab_ncomp(mf));
  } else if (!bf_intvect_equal(&L.ngrow, &ng)) {
    char a[64], b[64];
    int ka = 0, kb = 0;
    for (int d = 0; d < L.dim; ++d) {
      ka += snprintf(a + ka, sizeof a - (size_t)ka, d ? ",%d" : "(%d", L.ngrow.v[d]);
      kb += snprintf(b + kb, sizeof b - (size_t)kb, d ? ",%d" : "(%d", ng.v[d]);
    }
    err = bf_error_set(BF_ERROR_VALUE, "VisMF::Read", "'%s_H' has %s) ghost cells, the MultiFab %s)", name, a, b);
  } else {
    err = bf_pf_read_local_fabs(&L, -1, mf, "VisMF::Read");
  }
  bf_pf_mfhdr_clear(&L);
  return bf_comm_agree(bf_pf_comm_of_mf(mf), err); /* a FAB that failed on one rank fails every rank */
}

int bf_vismf_read_new(const char *name, bf_multifab **out) {
  BF_CHECK(out, BF_ERROR_VALUE, "out must not be NULL");
  bf_pf_mfhdr L;
  BF_CALL(vm_open(name, 0, &L));
  int err = BF_SUCCESS;
  bf_multifab *mf = NULL;
  if (L.ncomp < 1)
    err = bf_error_set(BF_ERROR_VALUE, "VisMF::Read", "'%s_H' holds no components", name);
  else if (L.nbox < 1)
    err = bf_error_set(BF_ERROR_VALUE, "VisMF::Read", "'%s_H' holds no boxes", name);
  else if (!(err = bf_multifab_create(L.ba, L.dm, L.ncomp, L.ngrow, BF_DTYPE_DOUBLE, NULL, true, &mf)))
    err = bf_pf_read_local_fabs(&L, -1, mf, "VisMF::Read");
  bf_pf_mfhdr_clear(&L);
  err = bf_comm_agree(bf_comm_top(), err); /* a FAB that failed on one rank fails every rank */
  if (err) {
    bf_multifab_destroy(&mf);
    return err;
  }
  *out = mf;
  return BF_SUCCESS;
}
