/* boxfab — element types of mesh data and views.
 *
 * Array4 views come in pyAMReX's 13 element types; fabs and MultiFabs hold
 * double (FArrayBox, MultiFab) or int (IArrayBox, iMultiFab) data. */
#ifndef BOXFAB_DTYPE_H
#define BOXFAB_DTYPE_H

#include <stdbool.h>
#include <stddef.h>

#include "boxfab/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Element types (pyAMReX's 13 Array4 instantiations). */
typedef enum bf_dtype {
  BF_DTYPE_DOUBLE = 0,
  BF_DTYPE_FLOAT,
  BF_DTYPE_LONGDOUBLE,
  BF_DTYPE_CDOUBLE,   /**< double _Complex */
  BF_DTYPE_CFLOAT,    /**< float _Complex */
  BF_DTYPE_SHORT,
  BF_DTYPE_INT,
  BF_DTYPE_LONG,
  BF_DTYPE_LONGLONG,
  BF_DTYPE_USHORT,
  BF_DTYPE_UINT,
  BF_DTYPE_ULONG,
  BF_DTYPE_ULONGLONG,
  BF_DTYPE_COUNT
} bf_dtype;

/** Size in bytes of one element of `t`; 0 for an invalid `t`. */
BF_EXPORT size_t bf_dtype_size(int t);

/** The C name of `t` ("double", "ulonglong", ...); "invalid" for a bad `t`. */
BF_EXPORT const char *bf_dtype_name(int t);

/** True for the element types fabs and MultiFabs hold: double and int. */
static inline bool bf_dtype_is_mesh(int t) { return t == BF_DTYPE_DOUBLE || t == BF_DTYPE_INT; }

#ifdef __cplusplus
}
#endif
#endif
