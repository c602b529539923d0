/* boxfab — the parameter store (AMReX's ParmParse table).
 *
 * A process-wide table of names ("prefix.name") to lists of string values,
 * filled from inputs files (bf_parmparse_add_file: AMReX's inputs syntax,
 * docs/inputs.md), from bf_runtime_initialize()'s "key=value" tokens and by
 * explicit adds.  A later definition of a name replaces the earlier one
 * (AMReX keeps every occurrence and reads the last).
 *
 * Typed reads follow AMReX's ParmParse: a value that does not read as a
 * number is evaluated as an expression (AMReX's Parser for reals, IParser for
 * ints: + - * / ^ ** // comparisons, and/or, min/max/sqrt/..., names of other
 * parameters); errors name the parameter and, for values read from a file,
 * the file and line.  All functions keep the table consistent when they fail
 * (a file with an error adds nothing).  Not thread-safe: callers serialize
 * (the Python bindings hold the GIL). */
#ifndef BOXFAB_PARMPARSE_H
#define BOXFAB_PARMPARSE_H

#include <stdbool.h>
#include <stdint.h>

#include "boxfab/base.h"
#include "boxfab/box.h"
#include "boxfab/intvect.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What kind of value an entry holds: how it was added (or, for text read
 *  from a file or initialize(), the type it was last read as; BF_PP_TEXT
 *  before that).  Used by to_dict to give values their Python types. */
typedef enum {
  BF_PP_TEXT = 0,   /**< from a file / initialize(), never read as a type */
  BF_PP_STRING = 1, /**< add(str) or read as a string */
  BF_PP_BOOL = 2,
  BF_PP_INT = 3,
  BF_PP_REAL = 4,
  BF_PP_INTVECT = 5,
  BF_PP_BOX = 6
} bf_parmparse_type;

/** Add "name=v1 v2 ..." as AMReX reads its command line: the token is read
 *  as an inputs text (docs/inputs.md: values separated by white space, at
 *  least one, quotes and parentheses keep a value together; several
 *  definitions may follow each other), origin "<initialize>".
 *  BF_ERROR_VALUE for a token without '=', with an empty name, without a
 *  value, or that does not read as inputs text; nothing is added then. */
BF_EXPORT int bf_parmparse_add_token(const char *token);

/** Check a token as bf_parmparse_add_token would, without adding it. */
BF_EXPORT int bf_parmparse_check_token(const char *token);

/** bf_parmparse_add_token / _check_token with the dimension `dim` (0 to 3; 0 = unknown) that a
 *  "FILE = inputs" token reads its file's `#if AMREX_SPACEDIM` blocks with, as bf_parmparse_add_file
 *  does (the plain forms: 0, where such a block is an error). */
BF_EXPORT int bf_parmparse_add_token_dim(const char *token, int dim);
BF_EXPORT int bf_parmparse_check_token_dim(const char *token, int dim);

/** Set `name` to `nvalues` string values (copied; none may be NULL).
 *  Only what an inputs file can hold is taken, so that bf_parmparse_pretty's
 *  text reads back as it was (AMReX's tokenizer): BF_ERROR_VALUE for a name
 *  that does not start with a letter (A-Z, a-z) or holds white space (a
 *  Unicode blank too), '=', '"', '#' or a control character (AMReX's
 *  f(x,y,z) is a name), for the name FILE, for no values, for a value with a
 *  new line, that is not UTF-8, or that holds a '"' and would need quotes;
 *  BF_ERROR_MEMORY.  Nothing is
 *  changed on error.  These rules hold for every add below and for tokens. */
BF_EXPORT int bf_parmparse_add(const char *name, int nvalues, const char *const *values);

/** bf_parmparse_add with the kind of the values (bf_parmparse_type). */
BF_EXPORT int bf_parmparse_add_typed(const char *name, int nvalues, const char *const *values, int type);

/** Typed adds in AMReX's text forms: ints, reals (17 significant digits: the
 *  double reads back exactly), bools ("1"/"0"), IntVects "(1,2,3)" and
 *  Boxes "((0,0,0) (7,7,7) (0,0,0))". */
BF_EXPORT int bf_parmparse_add_ints(const char *name, int n, const int64_t *v);
BF_EXPORT int bf_parmparse_add_reals(const char *name, int n, const double *v);
BF_EXPORT int bf_parmparse_add_bools(const char *name, int n, const bool *v);
BF_EXPORT int bf_parmparse_add_intvects(const char *name, int n, const bf_intvect *v);
BF_EXPORT int bf_parmparse_add_boxes(const char *name, int n, const bf_box *v);

/** Read an inputs file (AMReX's syntax, docs/inputs.md) into the table.
 *  `dim` (1..3, or 0 when unknown) decides `#if AMREX_SPACEDIM` blocks
 *  (with 0 such a block is an error).  `FILE = other` includes a file,
 *  relative to the including file's folder (else to the working directory,
 *  as AMReX).  BF_ERROR_IO (OSError) when the file cannot be read;
 *  BF_ERROR_VALUE "file:line: ..." for a syntax error, an include cycle,
 *  text that is not UTF-8, a NUL byte.  On error nothing is added. */
BF_EXPORT int bf_parmparse_add_file(const char *path, int dim);

/** Parse `text` (inputs syntax) into the table; `origin` names it in
 *  messages and in bf_parmparse_origin (NULL: "<text>"); FILE includes are
 *  relative to the working directory. */
BF_EXPORT int bf_parmparse_add_text(const char *text, const char *origin, int dim);

/** Number of values of `name`, or -1 when it is not defined. */
BF_EXPORT int bf_parmparse_count(const char *name);

/** Value i of `name` (borrowed; valid until the entry changes).
 *  BF_ERROR_VALUE when `name` is not defined, BF_ERROR_INDEX when i is out of range. */
BF_EXPORT int bf_parmparse_get(const char *name, int i, const char **value);

/** Where `name` was defined: *file is the file (or "<initialize>", "<text>")
 *  and *line its line, or *file NULL and *line 0 for values added by a call.
 *  BF_ERROR_VALUE when not defined. */
BF_EXPORT int bf_parmparse_origin(const char *name, const char **file, int *line);

/** The bf_parmparse_type of `name`, or -1 when not defined. */
BF_EXPORT int bf_parmparse_type_of(const char *name);

/** Typed reads of value i of `name`.  *found is false (and *out untouched)
 *  when the name is not defined.  BF_ERROR_INDEX when i is out of range;
 *  BF_ERROR_VALUE (message: name, value, file:line) for a value of another
 *  type; BF_ERROR_OVERFLOW for an int out of range.
 *  int / int64 / real: a number, else an expression (AMReX's IParser /
 *  Parser).  bool: true/t/false/f (any case) or a number (nonzero = true).
 *  string: the value.  intvect: "(i,j,k)" with `dim` components.
 *  box: "((lo) (hi))" or "((lo) (hi) (type))". */
BF_EXPORT int bf_parmparse_query_int(const char *name, int i, bool *found, int *out);
BF_EXPORT int bf_parmparse_query_int64(const char *name, int i, bool *found, int64_t *out);
BF_EXPORT int bf_parmparse_query_real(const char *name, int i, bool *found, double *out);
BF_EXPORT int bf_parmparse_query_bool(const char *name, int i, bool *found, bool *out);
BF_EXPORT int bf_parmparse_query_string(const char *name, int i, bool *found, const char **out);
BF_EXPORT int bf_parmparse_query_intvect(const char *name, int i, int dim, bool *found, bf_intvect *out);
BF_EXPORT int bf_parmparse_query_box(const char *name, int i, int dim, bool *found, bf_box *out);

/** Evaluate an expression as AMReX's Parser (double) / IParser (int64)
 *  would, names resolved from the table.  BF_ERROR_VALUE for a syntax
 *  error, an unknown or recursive name, a division by zero (ints);
 *  BF_ERROR_OVERFLOW for int overflow. */
BF_EXPORT int bf_parmparse_eval_real(const char *expr, double *out);
BF_EXPORT int bf_parmparse_eval_int(const char *expr, int64_t *out);

/** Number of names in the table, and name i in sorted order (borrowed;
 *  valid until the table changes); NULL when i is out of range. */
BF_EXPORT int bf_parmparse_size(void);
BF_EXPORT const char *bf_parmparse_name_at(int i);

/** The table as text, AMReX's prettyPrintTable: one "name = v1 v2" line per
 *  name, sorted; a value the tokenizer would not read back bare (white
 *  space, '=', '#' first, empty, ...) is written in double quotes, so that
 *  bf_parmparse_add_text of the text gives the same values.  *text is
 *  malloc'ed (free() it). */
BF_EXPORT int bf_parmparse_pretty(char **text);

/** Remove `name`; returns how many entries were removed (0 or 1). */
BF_EXPORT int bf_parmparse_remove(const char *name);

/** Remove everything. */
BF_EXPORT void bf_parmparse_clear(void);

/** Whether some parameter under `prefix` ("a" means "a.*"; NULL or "" all)
 *  was never read: defined by an inputs file or the command line and never
 *  queried, counted or looked for (AMReX's ParmParse::hasUnusedInputs). */
BF_EXPORT bool bf_parmparse_has_unused(const char *prefix);
/** Those parameters, sorted, one line each: style 0 as AMReX's finalize
 *  prints them ("name(nvals = N)  :: [v1, v2]\n"), style 1 as its
 *  getUnusedInputs gives them ("name = v1 v2\n"); a new string (free()). */
BF_EXPORT int bf_parmparse_unused(const char *prefix, int style, char **text);

/** Work the store has done since the process started (introspection, for tests of its
 *  complexity): bytes examined by the inputs reader, hash-index slots probed or rebuilt,
 *  names looked up by expressions.  Linear algorithms add an amount proportional to their input. */
BF_EXPORT int64_t bf_parmparse_work_count(void);

#ifdef __cplusplus
}
#endif
#endif
