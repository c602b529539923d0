/* CPU backend, private: the particle-mesh kernels of the table (cpu/pmesh.c). */
#ifndef BOXFAB_CPU_PMESH_H
#define BOXFAB_CPU_PMESH_H

#include "runtime/backend.h"

int bf_cpu_pmesh_deposit(const bf_pmesh_args *a, int64_t *nskipped);
int bf_cpu_pmesh_interpolate(const bf_pmesh_args *a, int64_t *nskipped);

#endif
