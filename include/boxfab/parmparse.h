/* boxfab — the parameter store (AMReX's ParmParse table).
 *
 * A process-wide table of names ("prefix.name") to lists of string values,
 * filled by bf_runtime_initialize() from "key=value" tokens and by explicit
 * adds.  A later add of the same name replaces the earlier values.
 * Not thread-safe. */
#ifndef BOXFAB_PARMPARSE_H
#define BOXFAB_PARMPARSE_H

#include <stdbool.h>

#include "boxfab/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Add "name=v1 v2 ..." (values separated by white space; at least one;
 *  white space around the name is ignored).  BF_ERROR_VALUE for a token
 *  without '=', with an empty name or without a value. */
BF_EXPORT int bf_parmparse_add_token(const char *token);

/** Check a token as bf_parmparse_add_token would, without adding it. */
BF_EXPORT int bf_parmparse_check_token(const char *token);

/** Set `name` to `nvalues` string values (copied; none may be NULL).
 *  BF_ERROR_VALUE for an empty name, BF_ERROR_MEMORY. */
BF_EXPORT int bf_parmparse_add(const char *name, int nvalues, const char *const *values);

/** Number of values of `name`, or -1 when it is not defined. */
BF_EXPORT int bf_parmparse_count(const char *name);

/** Value i of `name` (borrowed; valid until the entry changes).
 *  BF_ERROR_VALUE when `name` is not defined, BF_ERROR_INDEX when i is out of range. */
BF_EXPORT int bf_parmparse_get(const char *name, int i, const char **value);

/** Parse value i of `name` as int / double / bool ("true", "false", "1", "0").
 *  *found is false (and *out untouched) when the name is not defined;
 *  a value that does not parse is BF_ERROR_VALUE. */
BF_EXPORT int bf_parmparse_query_int(const char *name, int i, bool *found, int *out);
BF_EXPORT int bf_parmparse_query_real(const char *name, int i, bool *found, double *out);
BF_EXPORT int bf_parmparse_query_bool(const char *name, int i, bool *found, bool *out);

/** Remove `name`; returns how many entries were removed (0 or 1). */
BF_EXPORT int bf_parmparse_remove(const char *name);

/** Remove everything. */
BF_EXPORT void bf_parmparse_clear(void);

#ifdef __cplusplus
}
#endif
#endif
