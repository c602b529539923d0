/* The parameter store's private parts (params/store.c, params/file.c,
 * params/expr.c). */
#ifndef BOXFAB_PARMPARSE_IMPL_H
#define BOXFAB_PARMPARSE_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
  /* value 0 as evaluated by the expression evaluation numbered memo_epoch (0: none): a name used many
   * times in one expression, or in a chain of names, is evaluated once (not 2^depth times) */
  uint64_t memo_epoch;
  bool memo_int;
  int64_t memo_i;
  double memo_r;
  /* times it was read (a query, get, count, contains, a symbol of an expression) or added by a call,
   * as AMReX's m_count: 0 for a definition from an inputs file or the command line nobody read */
  int64_t used;
} pp_entry;

/* Character classes of AMReX's tokenizer in the C locale (the process's locale must not change how a
 * file reads: under Latin-1, isspace(0xA0) would split UTF-8 text). */
static inline bool pp_isspace(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
static inline bool pp_isalpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static inline bool pp_isdigit(char c) { return c >= '0' && c <= '9'; }
static inline bool pp_name_char(char c) {
  return pp_isalpha(c) || pp_isdigit(c) || c == '_' || c == '.' || c == '[' || c == ']' || c == '+' || c == '-';
}

/* Whether `name` (NUL-terminated) reads back from an inputs file as one name (params/store.c). */
bool pp_name_ok(const char *name);

/* Offset of the first byte of s[0..n) that is not UTF-8, or -1. */
long pp_utf8_bad(const unsigned char *s, size_t n);

/* Work counter (bf_parmparse_work_count): bytes examined by the inputs reader, slots probed and
 * moved by the hash index, symbols evaluated by expressions. */
extern int64_t pp_work;

/* Make room for `extra` more entries (table and index), so that that many pp_table_put of new
 * names cannot fail: a file's definitions go in all or none. */
int pp_table_reserve(int extra);

/* The entry of `name`, or NULL (borrowed; valid until the table changes). */
pp_entry *pp_entry_of(const char *name);

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
