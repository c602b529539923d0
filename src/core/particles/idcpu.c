/* Packed particle id / rank (see include/boxfab/idcpu.h). */
#include "boxfab/idcpu.h"

int bf_idcpu_unpack_ids(int64_t n, const uint64_t *idcpu, int64_t *ids) {
  BF_CHECK(n >= 0, BF_ERROR_VALUE, "negative count %lld", (long long)n);
  for (int64_t i = 0; i < n; ++i) ids[i] = bf_idcpu_id(idcpu[i]);
  return BF_SUCCESS;
}

int bf_idcpu_unpack_cpus(int64_t n, const uint64_t *idcpu, int32_t *cpus) {
  BF_CHECK(n >= 0, BF_ERROR_VALUE, "negative count %lld", (long long)n);
  for (int64_t i = 0; i < n; ++i) cpus[i] = bf_idcpu_cpu(idcpu[i]);
  return BF_SUCCESS;
}

int bf_idcpu_pack(int64_t id, int32_t cpu, uint64_t *idcpu) {
  BF_CHECK(id >= -BF_IDCPU_MAX_ID && id <= BF_IDCPU_MAX_ID, BF_ERROR_OVERFLOW,
           "particle id %lld does not fit in 39 bits", (long long)id);
  BF_CHECK(cpu >= 0 && cpu <= BF_IDCPU_MAX_CPU, BF_ERROR_OVERFLOW, "rank %d outside [0, %d]", (int)cpu,
           (int)BF_IDCPU_MAX_CPU);
  uint64_t mag = (uint64_t)(id < 0 ? -id : id);
  *idcpu = (id >= 0 ? (uint64_t)1 << 63 : 0) | (mag << 24) | (uint64_t)cpu;
  return BF_SUCCESS;
}
