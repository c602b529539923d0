/* Private to the core: the checks of a Geometry's parts that index/geometry.c
 * and runtime/default_geometry.c (Geometry::define and Setup) share. */
#ifndef BOXFAB_GEOMETRY_IMPL_H
#define BOXFAB_GEOMETRY_IMPL_H

#include "boxfab/geometry.h"

/* the coordinate system: -1 (undef), 0 (cartesian), 1 (RZ) or 2 (spherical) */
int bf_geometry_check_coord(int coord);
/* a physical domain of dimension dim, finite, lo < hi in every direction */
int bf_geometry_check_prob_domain(const bf_realbox *rb, int dim);
/* an index domain of dimension dim: cell-centred, non-empty, lengths within C int */
int bf_geometry_check_domain(const bf_box *domain, int dim);

#endif
