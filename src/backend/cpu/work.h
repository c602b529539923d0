/* CPU backend, private: splitting tasks into row chunks (a fixed partition
 * that does not depend on the number of threads, so reductions combined in
 * chunk order are deterministic). */
#ifndef BOXFAB_CPU_WORK_H
#define BOXFAB_CPU_WORK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "runtime/backend.h"

/* A chunk: rows [r0, r1) of task t.  Rows run over (n, k, j), j fastest. */
typedef struct cpu_chunk {
  int64_t t, r0, r1;
} cpu_chunk;

#define CPU_CHUNK_ELEMS 16384

static inline int64_t cpu_task_nx(const bf_ktask *t) { return (int64_t)t->hi[0] - t->lo[0] + 1; }
static inline int64_t cpu_task_rows(const bf_ktask *t, int ncomp) {
  for (int d = 0; d < 3; ++d)
    if (t->hi[d] < t->lo[d]) return 0;
  return (int64_t)ncomp * ((int64_t)t->hi[1] - t->lo[1] + 1) * ((int64_t)t->hi[2] - t->lo[2] + 1);
}

/* Chunks of all tasks into a new array (*n of them); NULL on out of memory. */
static inline cpu_chunk *cpu_make_chunks(int64_t ntasks, const bf_ktask *tasks, int ncomp, int64_t *n,
                                         int64_t *total_elems) {
  int64_t count = 0, elems = 0;
  for (int64_t t = 0; t < ntasks; ++t) {
    int64_t rows = cpu_task_rows(&tasks[t], ncomp), nx = cpu_task_nx(&tasks[t]);
    if (rows == 0) continue;
    int64_t per = CPU_CHUNK_ELEMS / nx > 0 ? CPU_CHUNK_ELEMS / nx : 1;
    count += (rows + per - 1) / per;
    elems += rows * nx;
  }
  cpu_chunk *c = malloc((size_t)(count > 0 ? count : 1) * sizeof *c);
  if (!c) return NULL;
  int64_t m = 0;
  for (int64_t t = 0; t < ntasks; ++t) {
    int64_t rows = cpu_task_rows(&tasks[t], ncomp), nx = cpu_task_nx(&tasks[t]);
    if (rows == 0) continue;
    int64_t per = CPU_CHUNK_ELEMS / nx > 0 ? CPU_CHUNK_ELEMS / nx : 1;
    for (int64_t r = 0; r < rows; r += per) c[m++] = (cpu_chunk){t, r, r + per < rows ? r + per : rows};
  }
  *n = count;
  *total_elems = elems;
  return c;
}

/* Longest row made by fusing contiguous rows (cpu_fuse_rows). */
#define CPU_ROW_CAP 65536

static inline bool cpu_rows_contiguous(const bf_kview *v, int64_t len, bool planes) {
  return len == (planes ? v->ks : v->js);
}

/* Fuse the rows of task t that are contiguous in every view it uses (a; b
 * when use_b; c when use_c): x with y when the region spans whole rows, then
 * with z when it spans whole planes, up to CPU_ROW_CAP points per row.  The
 * fused task addresses the same memory (x runs past the row end into the
 * next rows), so its x indices no longer name points: not for reductions
 * that report a position. */
static inline void cpu_fuse_rows(bf_ktask *t, bool use_b, bool use_c) {
  int64_t nx = (int64_t)t->hi[0] - t->lo[0] + 1, ny = (int64_t)t->hi[1] - t->lo[1] + 1,
          nz = (int64_t)t->hi[2] - t->lo[2] + 1;
  if (nx <= 0 || ny <= 0 || nz <= 0 || (ny == 1 && nz == 1)) return;
  bool rows = nx * ny <= CPU_ROW_CAP && cpu_rows_contiguous(&t->a, nx, false) &&
              (!use_b || cpu_rows_contiguous(&t->b, nx, false)) && (!use_c || cpu_rows_contiguous(&t->c, nx, false));
  if (!rows && ny > 1) return;
  nx *= ny, ny = 1;
  bool planes = nz > 1 && nx * nz <= CPU_ROW_CAP && cpu_rows_contiguous(&t->a, nx, true) &&
                (!use_b || cpu_rows_contiguous(&t->b, nx, true)) && (!use_c || cpu_rows_contiguous(&t->c, nx, true));
  if (planes) nx *= nz, nz = 1;
  t->hi[0] = t->lo[0] + (int)(nx - 1);
  t->hi[1] = t->lo[1];
  t->hi[2] = t->lo[2] + (int)(nz - 1);
}

/* Decode row r of task t into (n, k, j). */
static inline void cpu_row(const bf_ktask *t, int64_t r, int *n, int *k, int *j) {
  int64_t ny = (int64_t)t->hi[1] - t->lo[1] + 1, nz = (int64_t)t->hi[2] - t->lo[2] + 1;
  int64_t per_comp = ny * nz;
  *n = (int)(r / per_comp);
  int64_t rem = r % per_comp;
  *k = t->lo[2] + (int)(rem / ny);
  *j = t->lo[1] + (int)(rem % ny);
}

/* Address of element (i, j, k, comp) of view v, element size es. */
static inline char *cpu_addr(const bf_kview *v, int i, int j, int k, int comp, size_t es) {
  int64_t off = ((int64_t)i - v->lo[0]) + ((int64_t)j - v->lo[1]) * v->js + ((int64_t)k - v->lo[2]) * v->ks +
                (int64_t)comp * v->ns;
  return (char *)v->data + off * (int64_t)es;
}

#endif
