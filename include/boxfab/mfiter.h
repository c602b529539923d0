/* boxfab — MFIter (bf_mfiter): iteration over the local fabs of a MultiFab,
 * optionally cut into tiles.
 *
 *   bf_mfiter *it;
 *   bf_mfiter_create(mf, true, NULL, &it);      // tiling with the default size
 *   for (; bf_mfiter_is_valid(it); bf_mfiter_next(it)) {
 *     bf_box tb; bf_mfiter_tilebox(it, &tb); ...
 *   }
 *   bf_mfiter_destroy(&it);
 *
 * Tiles: each local box is cut, direction by direction, into
 * max(1, len / tilesize[d]) pieces of nearly equal length (the first ones one
 * cell longer); the tiles of a box partition it exactly and are visited x
 * fastest.  For nodal directions the cells are cut and the last tile takes the
 * extra node, so nodal tiles partition the nodal box too.  Without tiling a
 * tile is the whole valid box.  The default tile size (tiling on, tilesize
 * NULL) is AMReX's: 1024000 in x, 8 in y and z.
 *
 * The iterator holds a reference to the MultiFab.  Box queries return
 * BF_ERROR_RUNTIME after the runtime's finalize and BF_ERROR_INDEX when the
 * iterator is not on a tile (the loop has ended). */
#ifndef BOXFAB_MFITER_H
#define BOXFAB_MFITER_H

#include <stdbool.h>
#include <stdint.h>

#include "boxfab/base.h"
#include "boxfab/box.h"
#include "boxfab/intvect.h"
#include "boxfab/multifab.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bf_mfiter bf_mfiter;

/** AMReX's default tile size for dimension dim: (1024000, 8, 8) cut to dim. */
BF_EXPORT bf_intvect bf_mfiter_default_tilesize(int dim);

/** New iterator on the first tile of mf's local fabs.  `tilesize` (NULL =
 *  default) is used when `tiling` is true; each entry must be >= 1
 *  (BF_ERROR_VALUE) and its dim that of mf (BF_ERROR_TYPE). */
BF_EXPORT int bf_mfiter_create(bf_multifab *mf, bool tiling, const bf_intvect *tilesize, bf_mfiter **it);
BF_EXPORT void bf_mfiter_destroy(bf_mfiter **it);
/** An iterator over a chosen list of tiles of mf (as bf_mfiter_create cuts
 *  them): tile tiles[k] of global box grids[k], k < n, in that order (ParIter
 *  visits the particle tiles of a level this way).  BF_ERROR_INDEX for a box
 *  that is not local or a tile number out of range. */
BF_EXPORT int bf_mfiter_create_subset(bf_multifab *mf, bool tiling, const bf_intvect *tilesize, int64_t n,
                                      const int64_t *grids, const int *tiles, bf_mfiter **it);

/** Still on a tile. */
BF_EXPORT bool bf_mfiter_is_valid(const bf_mfiter *it);
/** Advance one tile (no-op at the end). */
BF_EXPORT void bf_mfiter_next(bf_mfiter *it);
/** Back to the first tile. */
BF_EXPORT void bf_mfiter_rewind(bf_mfiter *it);
/** Global box index of the current tile (-1 at the end). */
BF_EXPORT int64_t bf_mfiter_index(const bf_mfiter *it);
/** Local fab number of the current tile (-1 at the end). */
BF_EXPORT int64_t bf_mfiter_local_index(const bf_mfiter *it);
/** Number of tiles the iterator visits. */
BF_EXPORT int64_t bf_mfiter_length(const bf_mfiter *it);
/** Position of the current tile in 0 .. length-1. */
BF_EXPORT int64_t bf_mfiter_position(const bf_mfiter *it);
/** Borrowed MultiFab. */
BF_EXPORT bf_multifab *bf_mfiter_multifab(const bf_mfiter *it);

/** The current tile (of the MultiFab's index type). */
BF_EXPORT int bf_mfiter_tilebox(const bf_mfiter *it, bf_box *box);
/** The whole valid box of the current fab. */
BF_EXPORT int bf_mfiter_validbox(const bf_mfiter *it, bf_box *box);
/** The valid box grown by the MultiFab's ghost cells. */
BF_EXPORT int bf_mfiter_fabbox(const bf_mfiter *it, bf_box *box);
/** The tile grown by ng (NULL = the MultiFab's ngrow) on the sides where it
 *  touches its valid box's boundary (so grown tiles partition the fabbox).
 *  BF_ERROR_OVERFLOW when the grown box leaves the range of int. */
BF_EXPORT int bf_mfiter_growntilebox(const bf_mfiter *it, const bf_intvect *ng, bf_box *box);
/** The tile made nodal in direction dir (dir = -1: all directions); the last
 *  tile in that direction takes the extra node.  BF_ERROR_INDEX for dir < -1
 *  or dir >= dim. */
BF_EXPORT int bf_mfiter_nodaltilebox(const bf_mfiter *it, int dir, bf_box *box);
/** nodaltilebox(dir) grown by ng (NULL = ngrow) as growntilebox does. */
BF_EXPORT int bf_mfiter_grownnodaltilebox(const bf_mfiter *it, int dir, const bf_intvect *ng, bf_box *box);
/** General form: directions in `nodal_mask` (bit d) made nodal, then grown by
 *  ng (NULL = not grown) on the sides touching the valid box's boundary. */
BF_EXPORT int bf_mfiter_tilebox_ext(const bf_mfiter *it, unsigned nodal_mask, const bf_intvect *ng, bf_box *box);

#ifdef __cplusplus
}
#endif
#endif
