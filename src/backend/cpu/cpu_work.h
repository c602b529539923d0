/* CPU backend, private: splitting tasks into row chunks (a fixed partition
 * that does not depend on the number of threads, so reductions combined in
 * chunk order are deterministic). */
#ifndef BOXFAB_CPU_WORK_H
#define BOXFAB_CPU_WORK_H

#include <stdint.h>
#include <stdlib.h>

#include "backend.h"

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
