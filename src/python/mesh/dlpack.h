/* DLPack declarations used by boxfab (private to the extension).
 *
 * Written from the DLPack ABI, following DLPack 1.1 (dlpack.h,
 * DLPACK_MAJOR_VERSION 1, DLPACK_MINOR_VERSION 1): the layout of these
 * structs and the values of the enums are the ABI, so a consumer built with
 * the official header reads what we write.  Debian 12's libdlpack-dev ships
 * DLPack 0.6 (no versioned tensor), so we do not include it.  This is the one
 * place in boxfab where these declarations live; when an official dlpack.h
 * (>= 1.0) is found at configure time (BOXFAB_DLPACK_INCLUDE_DIR), a C test can
 * check them against it.
 *
 * Capsule protocol (INTEROP.md): a producer returns a PyCapsule named
 * "dltensor" (DLManagedTensor) or "dltensor_versioned"
 * (DLManagedTensorVersioned); a consumer that takes ownership renames it to
 * "used_dltensor" / "used_dltensor_versioned" and later calls the deleter. */
#ifndef BOXFAB_BFPY_DLPACK_H
#define BOXFAB_BFPY_DLPACK_H

#include <stdint.h>

#define BFPY_DLPACK_MAJOR_VERSION 1
#define BFPY_DLPACK_MINOR_VERSION 1

typedef struct {
  uint32_t major;
  uint32_t minor;
} DLPackVersion;

typedef enum {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,
  kDLOpenCL = 4,
  kDLVulkan = 7,
  kDLMetal = 8,
  kDLVPI = 9,
  kDLROCM = 10,
  kDLROCMHost = 11,
  kDLExtDev = 12,
  kDLCUDAManaged = 13,
  kDLOneAPI = 14,
  kDLWebGPU = 15,
  kDLHexagon = 16,
  kDLMAIA = 17,
} DLDeviceType;

typedef struct {
  DLDeviceType device_type;
  int32_t device_id;
} DLDevice;

typedef enum {
  kDLInt = 0U,
  kDLUInt = 1U,
  kDLFloat = 2U,
  kDLOpaqueHandle = 3U,
  kDLBfloat = 4U,
  kDLComplex = 5U,
  kDLBool = 6U,
} DLDataTypeCode;

typedef struct {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} DLDataType;

typedef struct {
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape;
  int64_t *strides; /* in elements; NULL = compact row-major */
  uint64_t byte_offset;
} DLTensor;

typedef struct DLManagedTensor {
  DLTensor dl_tensor;
  void *manager_ctx;
  void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)
#define DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED (1UL << 2UL)

typedef struct DLManagedTensorVersioned {
  DLPackVersion version;
  void *manager_ctx;
  void (*deleter)(struct DLManagedTensorVersioned *self);
  uint64_t flags;
  DLTensor dl_tensor;
} DLManagedTensorVersioned;

#endif
