/* Private: the shape functions of particle-mesh coupling (see bf_pmesh_args
 * in backend.h), shared by the host kernels (C) and the CUDA kernels (.cu)
 * so that both compute the same cells and weights. */
#ifndef BOXFAB_PMESH_SHAPE_H
#define BOXFAB_PMESH_SHAPE_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "runtime/backend.h"

#ifdef __CUDACC__
#define BF_PMESH_FN static inline __host__ __device__
#else
#define BF_PMESH_FN static inline
#endif

/* Shapes (particles.h's BF_SHAPE_*). */
#define BF_PMESH_NGP 0
#define BF_PMESH_CIC 1
#define BF_PMESH_TSC 2
#define BF_PMESH_WMAX 3 /* widest stencil (TSC) */

/* Stencil width of a shape. */
BF_PMESH_FN int bf_pmesh_width(int shape) { return shape == BF_PMESH_NGP ? 1 : shape == BF_PMESH_CIC ? 2 : 3; }

/* The stencil along one direction of a particle at x: first cell *start
 * (absolute index) and the weights w[0..width).  False when the stencil
 * does not lie inside cells [flo, fhi] or x is not finite (nothing set
 * then).  Every comparison is made in double before any conversion to int,
 * so no position can overflow an int. */
BF_PMESH_FN bool bf_pmesh_stencil1(int shape, double x, double plo, double dxi, int dlo, int flo, int fhi,
                                   int *start, double *w) {
  const double l = (x - plo) * dxi;
  double f, t = 0.0;
  int width;
  if (shape == BF_PMESH_NGP) {
    f = floor(l);
    width = 1;
  } else if (shape == BF_PMESH_CIC) { /* AMReX's ParticleInterpolator::Linear */
    const double L = l + 0.5;
    f = floor(L) - 1.0;
    t = L - (f + 1.0);
    width = 2;
  } else {
    f = floor(l) - 1.0;
    t = l - (f + 1.0) - 0.5; /* offset from the centre of the nearest cell, in [-0.5, 0.5) */
    width = 3;
  }
  if (!(f >= (double)flo - (double)dlo && f + (double)(width - 1) <= (double)fhi - (double)dlo)) return false;
  *start = (int)f + dlo;
  if (shape == BF_PMESH_NGP) {
    w[0] = 1.0;
  } else if (shape == BF_PMESH_CIC) {
    w[0] = 1.0 - t;
    w[1] = t;
  } else {
    w[0] = 0.5 * (0.5 - t) * (0.5 - t);
    w[1] = 0.75 - t * t;
    w[2] = 0.5 * (0.5 + t) * (0.5 + t);
  }
  return true;
}

/* The stencil of particle i of tile tl in every direction: first cells
 * start[3] as element offsets into the fab are folded into *base (offset of
 * the stencil's first cell from tl->fab, in elements), widths n[3] and
 * weights w[d][.] (unused directions: one cell, weight 1).  False when the
 * particle is skipped (see bf_pmesh_stencil1). */
BF_PMESH_FN bool bf_pmesh_stencil(const bf_pmesh_args *a, const bf_pmesh_tile *tl, int64_t i, int64_t *base,
                                  int n[3], double w[3][BF_PMESH_WMAX]) {
  int start[3];
  const int width = bf_pmesh_width(a->shape);
  for (int d = 0; d < 3; ++d) {
    if (d < a->dim) {
      if (!bf_pmesh_stencil1(a->shape, tl->pos[d][i * tl->pstride], a->plo[d], a->dxi[d], a->dlo[d], tl->flo[d],
                             tl->fhi[d], &start[d], w[d]))
        return false;
      n[d] = width;
    } else {
      start[d] = tl->flo[d];
      n[d] = 1;
      w[d][0] = 1.0;
    }
  }
  *base = (int64_t)(start[0] - tl->flo[0]) + (int64_t)(start[1] - tl->flo[1]) * tl->js +
          (int64_t)(start[2] - tl->flo[2]) * tl->ks;
  return true;
}

#endif
