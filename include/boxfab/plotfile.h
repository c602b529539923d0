/* boxfab — mesh plotfiles in AMReX's format (AMReX's WriteSingleLevelPlotfile,
 * WriteMultiLevelPlotfile; VisMF version 1, one file per rank).
 *
 * A plotfile is a directory:  Header, job_info, Level_L/Cell_H and
 * Level_L/Cell_D_00000 (valid cells only; ghost cells are never written).
 * For the same data the Header, Cell_H and Cell_D files are the same bytes as
 * AMReX 24.10 writes (reals in the Header with 17 significant digits, the
 * per-FAB min/max in Cell_H in scientific notation with 17 digits, FAB data
 * native little-endian float64, or float32 when asked).
 *
 * Crash safety.  Everything is written into a temporary directory beside the
 * target (".<name>.tmp.XXXXXX") and renamed into place once complete.  A
 * directory (or file) already under the final name is first renamed to
 * "<name>.old.<unique>" as AMReX's UtilCreateCleanDirectory does.  So the
 * final name never holds a partial plotfile, whatever moment the process
 * dies at; on an error the temporary directory is removed.
 *
 * Errors: BF_ERROR_VALUE for inconsistent arguments (counts, a name holding a
 * newline, a prefix holding '/'), BF_ERROR_TYPE for MultiFabs of mixed
 * dimension or int data, BF_ERROR_UNSUPPORTED when some boxes live on another
 * MPI rank, BF_ERROR_IO (with the path and the OS's reason) when a file or
 * directory cannot be created, written or renamed. */
#ifndef BOXFAB_PLOTFILE_H
#define BOXFAB_PLOTFILE_H

#include "boxfab/base.h"
#include "boxfab/geometry.h"
#include "boxfab/intvect.h"
#include "boxfab/multifab.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Optional settings of the writers (NULL = all defaults, AMReX's). */
typedef struct bf_plotfile_options {
  const char *version_name;      /**< first Header line; NULL = "HyperCLaw-V1.1" */
  const char *level_prefix;      /**< NULL = "Level_" */
  const char *mf_prefix;         /**< NULL = "Cell" */
  int n_extra_dirs;              /**< extra empty directory trees (each with Level_L subfolders) */
  const char *const *extra_dirs; /**< their names, relative to the plotfile */
  int precision;                 /**< BF_DTYPE_DOUBLE (0, default) or BF_DTYPE_FLOAT: element type on disk */
} bf_plotfile_options;

/** Write one level: `mf` (double data, any ghost width, cell or nodal), its
 *  `nvars` == ncomp component names, its Geometry, time and step. */
BF_EXPORT int bf_write_single_level_plotfile(const char *name, const bf_multifab *mf, int nvars,
                                             const char *const *varnames, const bf_geometry *geom, double time,
                                             int level_step, const bf_plotfile_options *opt);

/** Write `nlevels` >= 1 levels: mfs[L], geoms[L], level_steps[L] for each
 *  level, ref_ratios[L] (IntVects, the first component goes to the Header as
 *  AMReX does) between level L and L+1 for L < nlevels-1 (NULL allowed for a
 *  single level).  Every level has nvars components. */
BF_EXPORT int bf_write_multi_level_plotfile(const char *name, int nlevels, const bf_multifab *const *mfs, int nvars,
                                            const char *const *varnames, const bf_geometry *geoms, double time,
                                            const int *level_steps, const bf_intvect *ref_ratios,
                                            const bf_plotfile_options *opt);

/* ---- reading (AMReX's PlotFileData) ------------------------------------------------
 * bf_plotfile_data_open parses <path>/Header and every level's multi-FAB
 * header (Cell_H); get reads the FAB data.  Every file is untrusted: bounded
 * sizes, checked counts, offsets and boxes, FAB file names that cannot leave
 * the level's folder.  Malformed content gives BF_ERROR_VALUE with a message
 * "<file>, line N: ..."; a file that cannot be opened or read BF_ERROR_IO.
 * Reads float64 and float32 FABs, little- or big-endian (converted to double). */
typedef struct bf_plotfile_data bf_plotfile_data;

/** Open a plotfile directory (*pfd: a new handle; free with bf_plotfile_data_destroy). */
BF_EXPORT int bf_plotfile_data_open(const char *path, bf_plotfile_data **pfd);
BF_EXPORT void bf_plotfile_data_destroy(bf_plotfile_data **pfd);

BF_EXPORT int bf_plotfile_data_dim(const bf_plotfile_data *p);
BF_EXPORT double bf_plotfile_data_time(const bf_plotfile_data *p);
BF_EXPORT int bf_plotfile_data_finest_level(const bf_plotfile_data *p);
BF_EXPORT int bf_plotfile_data_coord(const bf_plotfile_data *p);
BF_EXPORT int bf_plotfile_data_ncomp(const bf_plotfile_data *p);
/** Name of variable i (NULL when out of range). */
BF_EXPORT const char *bf_plotfile_data_varname(const bf_plotfile_data *p, int i);
/** prob_lo / prob_hi (dim doubles each). */
BF_EXPORT void bf_plotfile_data_prob(const bf_plotfile_data *p, double *lo, double *hi);
/** Per-level values; BF_ERROR_INDEX for a level outside [0, finest].  ref_ratio
 *  of the finest level is 0 (AMReX). */
BF_EXPORT int bf_plotfile_data_ref_ratio(const bf_plotfile_data *p, int level, int *rr);
BF_EXPORT int bf_plotfile_data_level_step(const bf_plotfile_data *p, int level, int *step);
BF_EXPORT int bf_plotfile_data_prob_domain(const bf_plotfile_data *p, int level, bf_box *box);
BF_EXPORT int bf_plotfile_data_cell_size(const bf_plotfile_data *p, int level, double *dx);
BF_EXPORT int bf_plotfile_data_ngrow(const bf_plotfile_data *p, int level, bf_intvect *ng);
/** The level's BoxArray / DistributionMapping (borrowed; retain to keep). */
BF_EXPORT int bf_plotfile_data_boxarray(const bf_plotfile_data *p, int level, bf_boxarray **ba);
BF_EXPORT int bf_plotfile_data_distmap(const bf_plotfile_data *p, int level, bf_distmap **dm);
/** Replace the level's DistributionMapping by `dm` (retained) when the sizes agree
 *  (AMReX's syncDistributionMap; otherwise nothing changes). */
BF_EXPORT int bf_plotfile_data_set_distmap(bf_plotfile_data *p, int level, bf_distmap *dm);
/** Read a level: all components (comp = -1) or one, into a new MultiFab
 *  (*mf) on the level's BoxArray / DistributionMapping with its ngrow. */
BF_EXPORT int bf_plotfile_data_get(const bf_plotfile_data *p, int level, int comp, bf_multifab **mf);
/** Index of variable `name`, or -1. */
BF_EXPORT int bf_plotfile_data_find_var(const bf_plotfile_data *p, const char *name);

/* ---- MultiFab checkpoints (AMReX's VisMF::Write / VisMF::Read, version 1) ----------
 * bf_vismf_write writes <name>_H (the multi-FAB header: ncomp, ghost width,
 * BoxArray, FabOnDisk lines, per-FAB min/max over the valid box) and
 * <name>_D_00000 (the grown FABs, ghost cells included, native float64), the
 * layout of AMReX's VisMF::Write(mf, name).  Both are written (and fsync'ed)
 * under temporary names beside the targets; an existing pair is moved aside
 * (header first), then the new data and the new header are renamed in, so
 * that a crash leaves a complete checkpoint (old or new) or no <name>_H, and a
 * failed rename puts the previous pair back.  The base name must not hold a
 * blank (the header names the data file as one token).  Reading
 * restores every value bit for bit (NaN payloads and -0.0 included).
 * bf_vismf_read reads into `mf` (float64, allocated) with the same BoxArray,
 * ncomp and ghost width as the file (BF_ERROR_VALUE saying what differs);
 * bf_vismf_read_new makes a new MultiFab from the file (AMReX's Read into an
 * undefined FabArray).  Damaged files: BF_ERROR_VALUE "<file>, line N: ...";
 * missing or unreadable files: BF_ERROR_IO naming the path. */
BF_EXPORT int bf_vismf_write(const bf_multifab *mf, const char *name);
BF_EXPORT int bf_vismf_read(bf_multifab *mf, const char *name);
BF_EXPORT int bf_vismf_read_new(const char *name, bf_multifab **mf);

/* Across MPI ranks (AMReX's NFiles): the plotfile and VisMF writers put the
 * FABs of a MultiFab in at most nOutFiles data files (256 by default, never
 * more than the ranks): rank r writes into <name>_D_<r / ceil(nprocs/nfiles)>,
 * the ranks of one file in rank order; when fewer ranks than nfiles hold
 * boxes, each rank with boxes writes <name>_D_<r>.  The headers are written
 * by rank 0.  Writers and readers are collective over the instance's ranks
 * and fail on every rank when one rank fails. */
BF_EXPORT int bf_vismf_set_noutfiles(int n);
BF_EXPORT int bf_vismf_get_noutfiles(void);

#ifdef __cplusplus
}
#endif
#endif
