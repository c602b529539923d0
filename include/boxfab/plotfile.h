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

#ifdef __cplusplus
}
#endif
#endif
