/* boxfab — base definitions: status codes, error reporting, version.
 *
 * Every boxfab function that can fail returns an int status: BF_SUCCESS (0)
 * or one of the BF_ERROR_* codes below.  On failure a message with the
 * context (function, values) is stored in a thread-local buffer readable
 * with bf_error_message().  The library never aborts on bad input. */
#ifndef BOXFAB_BASE_H
#define BOXFAB_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define BF_EXPORT __declspec(dllexport)
#else
#define BF_EXPORT __attribute__((visibility("default")))
#endif

/** Largest spatial dimension; boxfab serves 1, 2 and 3 at run time. */
#define BF_SPACEDIM_MAX 3

/** Status codes. The Python layer maps each one to an exception type. */
enum bf_status {
  BF_SUCCESS = 0,
  BF_ERROR_VALUE = 1,       /**< bad value (ValueError) */
  BF_ERROR_INDEX = 2,       /**< index out of range (IndexError) */
  BF_ERROR_TYPE = 3,        /**< wrong kind of argument, e.g. dims mixed (TypeError) */
  BF_ERROR_MEMORY = 4,      /**< allocation failed (MemoryError) */
  BF_ERROR_RUNTIME = 5,     /**< runtime state, e.g. used after finalize (RuntimeError) */
  BF_ERROR_UNSUPPORTED = 6, /**< feature not built, e.g. CUDA or MPI (RuntimeError) */
  BF_ERROR_OVERFLOW = 7,    /**< integer overflow (OverflowError) */
  BF_ERROR_IO = 8           /**< a file cannot be read or written (OSError) */
};

/** Library version, e.g. "0.1.0". */
BF_EXPORT const char *bf_version(void);

/** Message of the last error on this thread ("" when none). Never NULL. */
BF_EXPORT const char *bf_error_message(void);

/** Code of the last error on this thread (BF_SUCCESS when none). */
BF_EXPORT int bf_error_code(void);

/** Forget the last error on this thread. */
BF_EXPORT void bf_error_clear(void);

/** Record an error (code, context and printf-style message) and return code.
 *  Used through the BF_CHECK / BF_ERROR macros. */
BF_EXPORT int bf_error_set(int code, const char *func, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/** Return `code` with a message when `cond` does not hold. */
#define BF_CHECK(cond, code, ...)                                              \
  do {                                                                         \
    if (!(cond)) return bf_error_set((code), __func__, __VA_ARGS__);           \
  } while (0)

/** Return the error unconditionally. */
#define BF_ERROR(code, ...) return bf_error_set((code), __func__, __VA_ARGS__)

/** Propagate a non-zero status from a call. */
#define BF_CALL(expr)                                                          \
  do {                                                                         \
    int bf_ierr_ = (expr);                                                     \
    if (bf_ierr_) return bf_ierr_;                                             \
  } while (0)

/** Overflow-checked arithmetic for sizes, element counts and offsets: the
 *  one place every byte or element count that user input can make large goes
 *  through.  Each stores a op b in *out and returns true when it fits, false
 *  (with *out unspecified) when it overflows the type. */
static inline bool bf_size_mul(size_t a, size_t b, size_t *out) { return !__builtin_mul_overflow(a, b, out); }
static inline bool bf_size_add(size_t a, size_t b, size_t *out) { return !__builtin_add_overflow(a, b, out); }
static inline bool bf_i64_mul(int64_t a, int64_t b, int64_t *out) { return !__builtin_mul_overflow(a, b, out); }
static inline bool bf_i64_add(int64_t a, int64_t b, int64_t *out) { return !__builtin_add_overflow(a, b, out); }
/** n rounded up to a multiple of `align` (a power of two), checked as above. */
static inline bool bf_size_align(size_t n, size_t align, size_t *out) {
  if (!bf_size_add(n, align - 1, out)) return false;
  *out &= ~(align - 1);
  return true;
}

/** Check a spatial dimension argument. */
#define BF_CHECK_DIM(dim)                                                      \
  BF_CHECK((dim) >= 1 && (dim) <= BF_SPACEDIM_MAX, BF_ERROR_VALUE,             \
           "dimension must be 1, 2 or 3, got %d", (int)(dim))

#ifdef __cplusplus
}
#endif
#endif
