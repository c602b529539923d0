/* Element types (see include/boxfab/dtype.h). */
#include <complex.h>

#include "boxfab/dtype.h"

static const size_t dtype_sizes[BF_DTYPE_COUNT] = {
    [BF_DTYPE_DOUBLE] = sizeof(double),
    [BF_DTYPE_FLOAT] = sizeof(float),
    [BF_DTYPE_LONGDOUBLE] = sizeof(long double),
    [BF_DTYPE_CDOUBLE] = sizeof(double _Complex),
    [BF_DTYPE_CFLOAT] = sizeof(float _Complex),
    [BF_DTYPE_SHORT] = sizeof(short),
    [BF_DTYPE_INT] = sizeof(int),
    [BF_DTYPE_LONG] = sizeof(long),
    [BF_DTYPE_LONGLONG] = sizeof(long long),
    [BF_DTYPE_USHORT] = sizeof(unsigned short),
    [BF_DTYPE_UINT] = sizeof(unsigned int),
    [BF_DTYPE_ULONG] = sizeof(unsigned long),
    [BF_DTYPE_ULONGLONG] = sizeof(unsigned long long),
};

static const char *const dtype_names[BF_DTYPE_COUNT] = {
    "double", "float", "longdouble", "cdouble", "cfloat", "short", "int",
    "long",   "longlong", "ushort",   "uint",    "ulong", "ulonglong",
};

size_t bf_dtype_size(int t) { return (t >= 0 && t < BF_DTYPE_COUNT) ? dtype_sizes[t] : 0; }

const char *bf_dtype_name(int t) { return (t >= 0 && t < BF_DTYPE_COUNT) ? dtype_names[t] : "invalid"; }
