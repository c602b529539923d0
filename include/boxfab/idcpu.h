/* boxfab — packed particle id and owning rank (AMReX's idcpu, 64 bits).
 *
 * Layout: bits 0..23 = owning rank (cpu), bits 24..62 = |id| (39 bits),
 * bit 63 = sign flag: set means the id is positive, clear means negative
 * (AMReX marks invalid particles by flipping the sign). */
#ifndef BOXFAB_IDCPU_H
#define BOXFAB_IDCPU_H

#include <stdint.h>

#include "boxfab/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Largest |id| that fits (2^39 - 1) and largest rank (2^24 - 1). */
#define BF_IDCPU_MAX_ID ((int64_t)0x7FFFFFFFFF)
#define BF_IDCPU_MAX_CPU ((int32_t)0xFFFFFF)

/** Particle id of a packed value. */
static inline int64_t bf_idcpu_id(uint64_t idcpu) {
  int64_t v = (int64_t)((idcpu >> 24) & (uint64_t)BF_IDCPU_MAX_ID);
  return (idcpu >> 63) ? v : -v;
}

/** Owning rank of a packed value. */
static inline int32_t bf_idcpu_cpu(uint64_t idcpu) { return (int32_t)(idcpu & (uint64_t)BF_IDCPU_MAX_CPU); }

/** ids[i] = id of idcpu[i] for i < n (n >= 0; arrays may not overlap). */
BF_EXPORT int bf_idcpu_unpack_ids(int64_t n, const uint64_t *idcpu, int64_t *ids);

/** cpus[i] = rank of idcpu[i] for i < n. */
BF_EXPORT int bf_idcpu_unpack_cpus(int64_t n, const uint64_t *idcpu, int32_t *cpus);

/** Pack an id (|id| <= BF_IDCPU_MAX_ID, id != 0 is positive/negative as given;
 *  id 0 packs as positive) and a rank (0 <= cpu <= BF_IDCPU_MAX_CPU).
 *  BF_ERROR_OVERFLOW when either does not fit. */
BF_EXPORT int bf_idcpu_pack(int64_t id, int32_t cpu, uint64_t *idcpu);

#ifdef __cplusplus
}
#endif
#endif
