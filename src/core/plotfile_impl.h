/* Internal: the multi-FAB (VisMF version 1) pieces shared by the plotfile
 * writer / reader (plotfile.c, plotfile_read.c) and the VisMF checkpoints
 * (vismf.c). */
#ifndef BOXFAB_PLOTFILE_IMPL_H
#define BOXFAB_PLOTFILE_IMPL_H

#include <stdbool.h>
#include <stdint.h>

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

/* Write `mf`'s FABs to data_path (named fab_name in the header's FabOnDisk
 * lines) and the multi-FAB header to hdr_path.  grown: write the grown FABs
 * and the ghost width (VisMF::Write), else the valid boxes with ngrow 0
 * (plotfiles).  `who` names the caller in error messages. */
int bf_pf_write_mf(const bf_multifab *mf, const char *data_path, const char *fab_name, const char *hdr_path,
                   int precision, bool grown, const char *who);

/* Parse the multi-FAB header at hpath: dim 0 = tell it from the boxes,
 * expect_ncomp -1 = any.  Fills *L (zeroed by the caller; free with
 * bf_pf_mfhdr_clear). */
int bf_pf_read_mf_header(const char *hpath, int dim, int expect_ncomp, bf_pf_mfhdr *L);
void bf_pf_mfhdr_clear(bf_pf_mfhdr *L);

/* Read FAB i (all components when comp == -1, else component comp into
 * component 0) into the part of dst's grown box it covers; host: dst's data
 * on the host. */
int bf_pf_read_fab(const bf_pf_mfhdr *L, int i, int comp, int ncomp_out, const bf_mf_fab *dst, double *host);

#endif
