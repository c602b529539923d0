/* CPU backend: particle-mesh coupling (deposit, interpolate; see
 * bf_pmesh_args in backend.h and the shapes in src/core/particles/mesh_shape.h).
 *
 * Deposit runs the groups (the tiles of one grid, which write the same fab)
 * in parallel, one group per thread at a time: a particle's stencil lies in
 * its grid's fab (checked per particle), so no two threads write the same
 * cell and no atomics are needed.  Interpolate writes only the particles'
 * values: tiles run in parallel. */
#include "pmesh.h"

#include <stdbool.h>

#include "particles/mesh_shape.h"

/* One tile's particles into its fab; returns the particles skipped. */
static int64_t deposit_tile(const bf_pmesh_args *a, const bf_pmesh_tile *tl) {
  int64_t bad = 0;
  double *fab = tl->fab;
  for (int64_t i = 0; i < tl->np; ++i) {
    int64_t base = 0;
    int n[3];
    double w[3][BF_PMESH_WMAX];
    if (!bf_pmesh_stencil(a, tl, i, &base, n, w)) {
      ++bad;
      continue;
    }
    const double v = (tl->val ? tl->val[i] : 1.0) * a->scale;
    for (int kk = 0; kk < n[2]; ++kk)
      for (int jj = 0; jj < n[1]; ++jj) {
        double *row = fab + base + jj * tl->js + kk * tl->ks;
        const double vjk = v * w[1][jj] * w[2][kk];
        for (int ii = 0; ii < n[0]; ++ii) row[ii] += w[0][ii] * vjk;
      }
  }
  return bad;
}

static int64_t interpolate_tile(const bf_pmesh_args *a, const bf_pmesh_tile *tl) {
  int64_t bad = 0;
  const double *fab = tl->fab;
  for (int64_t i = 0; i < tl->np; ++i) {
    int64_t base = 0;
    int n[3];
    double w[3][BF_PMESH_WMAX];
    if (!bf_pmesh_stencil(a, tl, i, &base, n, w)) {
      ++bad;
      continue;
    }
    double s = 0.0;
    for (int kk = 0; kk < n[2]; ++kk)
      for (int jj = 0; jj < n[1]; ++jj) {
        const double *row = fab + base + jj * tl->js + kk * tl->ks;
        double r = 0.0;
        for (int ii = 0; ii < n[0]; ++ii) r += w[0][ii] * row[ii];
        s += r * w[1][jj] * w[2][kk];
      }
    tl->val[i] = s;
  }
  return bad;
}

/* Below this many particles one thread does all: waking a team costs more. */
#define PAR_MIN_PARTICLES 32768

static int64_t total_particles(const bf_pmesh_args *a) {
  int64_t n = 0;
  for (int64_t t = 0; t < a->ntiles; ++t) n += a->tiles[t].np;
  return n;
}

int bf_cpu_pmesh_deposit(const bf_pmesh_args *a, int64_t *nskipped) {
  int64_t bad = 0;
  const int64_t ng = a->ngroups;
  const bool par = ng > 1 && total_particles(a) >= PAR_MIN_PARTICLES;
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : bad) if (par)
  for (int64_t g = 0; g < ng; ++g)
    for (int64_t t = a->group_start[g]; t < a->group_start[g + 1]; ++t) bad += deposit_tile(a, &a->tiles[t]);
  *nskipped = bad;
  return 0;
}

int bf_cpu_pmesh_interpolate(const bf_pmesh_args *a, int64_t *nskipped) {
  int64_t bad = 0;
  const int64_t nt = a->ntiles;
  const bool par = nt > 1 && total_particles(a) >= PAR_MIN_PARTICLES;
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : bad) if (par)
  for (int64_t t = 0; t < nt; ++t) bad += interpolate_tile(a, &a->tiles[t]);
  *nskipped = bad;
  return 0;
}
