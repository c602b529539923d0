/* The parameter store's private parts (parmparse.c, parmparse_file.c,
 * parmparse_expr.c). */
#ifndef BOXFAB_PARMPARSE_IMPL_H
#define BOXFAB_PARMPARSE_IMPL_H

#include <stddef.h>

#include "boxfab/parmparse.h"

/* One definition: a name and its values, where it came from and its kind. */
typedef struct {
  char *name;
  int nvalues;
  char **values; /* nvalues strings, then NULL */
  char *file;    /* NULL for values added by a call */
  int line;
  int type;      /* bf_parmparse_type */
  int fragment;  /* value index + 1 of a piece of a spaced expression; 0 none; -1 not yet looked at */
} pp_entry;

char *pp_strndup(const char *s, size_t n);
void pp_entry_free(pp_entry *e);

/* Put `e` into the table (replacing an entry of the same name); the table
 * takes its contents (on success and failure). */
int pp_table_put(pp_entry *e);

/* Evaluate `expr` for parameter `name` (for recursion checks and messages;
 * may be NULL). */
int pp_eval_real(const char *expr, const char *name, double *out);
int pp_eval_int(const char *expr, const char *name, int64_t *out);

/* The " (file:line)" suffix of an entry's messages into buf ("" when added
 * by a call). */
const char *pp_where(const char *name, char *buf, size_t size);

#endif
