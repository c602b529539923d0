/* boxfab — AMR meta data: AMReX's AmrInfo (per-level grid parameters) and
 * AmrMesh (AmrInfo plus the Geometry of every level), filled from the
 * parameter store (amr.*, geometry.*) as AMReX's AmrMesh::InitAmrMesh does. */
#ifndef BOXFAB_AMRMESH_H
#define BOXFAB_AMRMESH_H

#include <stdbool.h>

#include "boxfab/base.h"
#include "boxfab/geometry.h"
#include "boxfab/intvect.h"

#ifdef __cplusplus
extern "C" {
#endif

/** AMReX's largest max_level (AmrMesh asserts max_level < 1000). */
#define BF_AMR_MAX_LEVELS 1000

/** AMReX's AmrInfo.  The per-level arrays have `nlev` entries (1 for a
 *  default AmrInfo, max_level + 1 in an AmrMesh); they are owned (malloc). */
typedef struct bf_amrinfo {
  int dim;
  int verbose, max_level;
  int nlev;
  bf_intvect *ref_ratio, *blocking_factor, *max_grid_size, *n_error_buf;
  double grid_eff;
  int n_proper, use_fixed_upto_level;
  bool use_fixed_coarse_grids, refine_grid_layout;
  bf_intvect refine_grid_layout_dims;
  bool check_input, use_new_chop, iterate_on_new_grids;
} bf_amrinfo;

/** AMReX's AmrInfo() defaults for dimension dim (ref_ratio 2, blocking_factor
 *  8, max_grid_size 128/128/32 in 1D/2D/3D, n_error_buf 1, grid_eff 0.7...). */
BF_EXPORT int bf_amrinfo_init(int dim, bf_amrinfo *info);
/** Free the per-level arrays (info stays a valid empty value). */
BF_EXPORT void bf_amrinfo_free(bf_amrinfo *info);

/** AMReX's AmrMesh: its AmrInfo, finest_level (-1: no grids yet) and the
 *  Geometry of levels 0..max_level. */
typedef struct bf_amrmesh {
  bf_amrinfo info;
  int finest_level;
  bf_geometry *geom; /* info.nlev entries */
} bf_amrmesh;

/** AMReX's AmrMesh() (rb == NULL, max_level -1, n_cell NULL: all from
 *  ParmParse amr.max_level, amr.n_cell and geometry.*) or AmrMesh(rb,
 *  max_level, n_cell, coord, ref_ratios, is_periodic).  Reads amr.verbose/v,
 *  n_proper, grid_eff, n_error_buf[_x,_y,_z], ref_ratio or ref_ratio_vect,
 *  max_grid_size[_x..], blocking_factor[_x..], refine_grid_layout[_x..],
 *  check_input (adding the defaults AMReX adds), defines each level's
 *  Geometry (level l+1 = level l refined by ref_ratio[l]) and, when
 *  check_input, runs AMReX's checkInput.  `nratios` ratios (0: from
 *  ParmParse) must cover max_level levels.  Needs a runtime instance
 *  (BF_ERROR_RUNTIME).  A missing amr.max_level / amr.n_cell is
 *  BF_ERROR_RUNTIME (AMReX aborts); bad values BF_ERROR_VALUE. */
BF_EXPORT int bf_amrmesh_create(int dim, const bf_realbox *rb, int max_level, const int *n_cell, int coord,
                                int nratios, const bf_intvect *ref_ratios, const int *is_periodic, bf_amrmesh *mesh);
/** Free what bf_amrmesh_create allocated. */
BF_EXPORT void bf_amrmesh_free(bf_amrmesh *mesh);

#ifdef __cplusplus
}
#endif
#endif
