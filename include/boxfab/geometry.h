/* boxfab — physical space: RealBox, Periodicity, Geometry (plain values).
 * The functions are declared below the types; see each for its errors. */
#ifndef BOXFAB_GEOMETRY_H
#define BOXFAB_GEOMETRY_H

#include <stdbool.h>

#include "boxfab/base.h"
#include "boxfab/box.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A box of physical space, lo and hi corners of `dim` doubles. */
typedef struct bf_realbox {
  int dim;
  double lo[BF_SPACEDIM_MAX];
  double hi[BF_SPACEDIM_MAX];
} bf_realbox;

/** Period length per direction; 0 means not periodic in that direction. */
typedef struct bf_periodicity {
  int dim;
  int period[BF_SPACEDIM_MAX];
} bf_periodicity;

/** Coordinate systems (AMReX's CoordSys::CoordType). */
typedef enum bf_coord_type {
  BF_COORD_UNDEF = -1,
  BF_COORD_CARTESIAN = 0,
  BF_COORD_RZ = 1,
  BF_COORD_SPHERICAL = 2
} bf_coord_type;

/** Index domain, physical domain, coordinates and periodicity of a level. */
typedef struct bf_geometry {
  int dim;
  bf_box domain;          /**< cell-centred index domain */
  bf_realbox prob_domain; /**< physical domain */
  int coord;              /**< bf_coord_type */
  int is_periodic[BF_SPACEDIM_MAX];
  double dx[BF_SPACEDIM_MAX];     /**< cell size */
  double inv_dx[BF_SPACEDIM_MAX]; /**< 1 / dx */
} bf_geometry;

#ifdef __cplusplus
}
#endif
#endif
