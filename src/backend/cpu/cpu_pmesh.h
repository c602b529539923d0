/* CPU backend, private: the particle-mesh kernels of the table (cpu_pmesh.c). */
#ifndef BOXFAB_CPU_PMESH_H
#define BOXFAB_CPU_PMESH_H

#include "backend.h"

int bf_cpu_pmesh_deposit(const bf_pmesh_args *a, int64_t *nskipped);
int bf_cpu_pmesh_interpolate(const bf_pmesh_args *a, int64_t *nskipped);

#endif
