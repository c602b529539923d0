/* Internal: the multi-FAB (VisMF version 1) pieces shared by the plotfile
 * writer / reader (plotfile.c, plotfile_read.c) and the VisMF checkpoints
 * (vismf.c). */
#ifndef BOXFAB_PLOTFILE_IMPL_H
#define BOXFAB_PLOTFILE_IMPL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "boxfab/boxarray.h"
#include "boxfab/distmap.h"
#include "boxfab/multifab.h"

/* A parsed multi-FAB header (<name>_H). */
typedef struct bf_pf_mfhdr {
  int dim;
  int nbox;
  bf_boxarray *ba;
  bf_distmap *dm;
  bf_intvect ngrow;
  int ncomp;
  char **fab_file; /* per box: full path of its data file */
  int64_t *fab_offset;
  bool exact; /* bf_pf_read_fab: each FAB must be dst's grown box exactly (VisMF checkpoints) */
} bf_pf_mfhdr;

/* The FAB header line of a FAB on box wb, malloc'd into *line (length *len). */
int bf_pf_fab_header_line(const bf_box *wb, int ncomp, int precision, char **line, size_t *len);

/* Write this rank's FABs of `mf` (local order) to f (path names it in errors): each FAB's header line and
 * data (grown: the grown FABs, else the valid boxes), min/max over the valid box of FAB li component n into
 * mins/maxs[li * ncomp + n]. */
int bf_pf_write_local_fabs(const bf_multifab *mf, FILE *f, const char *path, int precision, bool grown,
                           const char *who, double *mins, double *maxs);

/* Write the multi-FAB header (<name>_H) of mf: per box its data file name, offset, min and max
 * (mins/maxs[i * ncomp + n]).  grown: the ghost width of mf, else 0. */
int bf_pf_write_mf_header(const bf_multifab *mf, bool grown, const char *const *fab_names, const int64_t *offsets,
                          const double *mins, const double *maxs, const char *hdr_path, const char *who);

/* ---- across MPI ranks (plotfile_mpi.c) ---- */

/* AMReX's NFiles layout over nprocs ranks for a DistributionMapping: file[r] is rank r's data file number
 * (-1: rank r writes none), prev / next the ranks writing before / after it in the same file (-1: none). */
typedef struct bf_pf_layout {
  int nprocs;
  bool sparse;
  int *file, *prev, *next;
} bf_pf_layout;
int bf_pf_layout_make(const bf_distmap *dm, int nprocs, int nout_files, bf_pf_layout *L);
void bf_pf_layout_clear(bf_pf_layout *L);

/* AMReX's VisMF::nOutFiles (256 by default): the most data files one MultiFab is written to. */
int bf_pf_set_noutfiles(int n);
int bf_pf_get_noutfiles(void);

struct bf_comm;
/* The communicator of mf's runtime instance. */
const struct bf_comm *bf_pf_comm_of_mf(const bf_multifab *mf);

/* "<dir>/<base>_D_<k, 5 digits>", or with a tag "<dir>/.bftmp.<tag>_D_<k>" (malloc'd; NULL: no memory). */
char *bf_pf_data_path(const char *dir, const char *base, int k, const char *tag);

/* Collective over mf's ranks: every rank writes its FABs into its data file in `dir` (named as
 * bf_pf_data_path(dir, base, k, tag)), the ranks of one file one after another in rank order; rank 0 writes
 * the header hdr_path naming the files "<base>_D_<k>".  The result is the same on every rank (an error on
 * any rank fails all).  first_file (may be NULL): the file this rank created (it wrote first in it), else -1. */
int bf_pf_write_mf_dist(const bf_multifab *mf, const char *dir, const char *base, const char *tag,
                        const char *hdr_path, int precision, bool grown, const char *who, int *first_file);

/* Parse the multi-FAB header at hpath: dim 0 = tell it from the boxes,
 * expect_ncomp -1 = any.  Fills *L (zeroed by the caller; free with
 * bf_pf_mfhdr_clear). */
int bf_pf_read_mf_header(const char *hpath, int dim, int expect_ncomp, bf_pf_mfhdr *L);
void bf_pf_mfhdr_clear(bf_pf_mfhdr *L);

/* Read FAB i (all components when comp == -1, else component comp into
 * component 0) into the part of dst's grown box it covers; host: dst's data
 * on the host. */
int bf_pf_read_fab(const bf_pf_mfhdr *L, int i, int comp, int ncomp_out, const bf_mf_fab *dst, double *host);

/* Read every local FAB of mf (its ncomp components: comp as above) with
 * bf_pf_read_fab, through a host staging buffer where mf's memory is not
 * host-accessible; `who` names the caller in an out-of-memory message.  This
 * rank's part only: the callers agree on the outcome across ranks. */
int bf_pf_read_local_fabs(const bf_pf_mfhdr *L, int comp, bf_multifab *mf, const char *who);

#endif
