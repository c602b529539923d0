/* The parameter store (see include/boxfab/parmparse.h). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "boxfab/parmparse.h"

typedef struct {
  char *name;
  int nvalues;
  char **values;
} pp_entry;

static pp_entry *pp_table;
static int pp_size, pp_capacity;

static char *pp_strdup(const char *s, size_t n) {
  char *r = malloc(n + 1);
  if (r) {
    memcpy(r, s, n);
    r[n] = '\0';
  }
  return r;
}

static void pp_free_entry(pp_entry *e) {
  for (int i = 0; i < e->nvalues; ++i) free(e->values[i]);
  free(e->values);
  free(e->name);
}

static int pp_find(const char *name) {
  if (!name) return -1;
  for (int i = 0; i < pp_size; ++i)
    if (strcmp(pp_table[i].name, name) == 0) return i;
  return -1;
}

int bf_parmparse_add(const char *name, int nvalues, const char *const *values) {
  BF_CHECK(name && name[0], BF_ERROR_VALUE, "parameter name must not be empty");
  BF_CHECK(nvalues >= 0, BF_ERROR_VALUE, "negative number of values %d", nvalues);
  BF_CHECK(nvalues == 0 || values != NULL, BF_ERROR_VALUE, "%d values but values is NULL", nvalues);
  for (int i = 0; i < nvalues; ++i) BF_CHECK(values[i] != NULL, BF_ERROR_VALUE, "value %d of %s is NULL", i, name);
  pp_entry e = {pp_strdup(name, strlen(name)), nvalues, calloc((size_t)nvalues + 1, sizeof(char *))};
  int ok = e.name && e.values;
  for (int i = 0; ok && i < nvalues; ++i) ok = (e.values[i] = pp_strdup(values[i], strlen(values[i]))) != NULL;
  if (!ok) {
    pp_free_entry(&e);
    BF_ERROR(BF_ERROR_MEMORY, "out of memory adding parameter %s", name);
  }
  int at = pp_find(name);
  if (at >= 0) {
    pp_free_entry(&pp_table[at]);
    pp_table[at] = e;
    return BF_SUCCESS;
  }
  if (pp_size == pp_capacity) {
    int cap = pp_capacity ? 2 * pp_capacity : 16;
    pp_entry *t = realloc(pp_table, (size_t)cap * sizeof *t);
    if (!t) {
      pp_free_entry(&e);
      BF_ERROR(BF_ERROR_MEMORY, "out of memory adding parameter %s", name);
    }
    pp_table = t;
    pp_capacity = cap;
  }
  pp_table[pp_size++] = e;
  return BF_SUCCESS;
}

/* Split "name = v1 v2 ..." into a name and a NULL-terminated list of values
 * (pointers into *storage).  Everything is freed by pp_split_free. */
typedef struct {
  char *name, *storage;
  const char **values;
  int n;
} pp_split_token;

static void pp_split_free(pp_split_token *t) {
  free(t->name), free(t->storage), free(t->values);
  memset(t, 0, sizeof *t);
}

static int pp_split(const char *token, pp_split_token *t) {
  memset(t, 0, sizeof *t);
  BF_CHECK(token != NULL, BF_ERROR_VALUE, "parameter token is NULL");
  const char *eq = strchr(token, '=');
  BF_CHECK(eq != NULL, BF_ERROR_VALUE, "expected \"key=value\", got \"%s\"", token);
  const char *ks = token, *ke = eq;
  while (ks < ke && isspace((unsigned char)*ks)) ++ks;
  while (ke > ks && isspace((unsigned char)ke[-1])) --ke;
  BF_CHECK(ke > ks, BF_ERROR_VALUE, "empty key in \"%s\"", token);
  t->name = pp_strdup(ks, (size_t)(ke - ks));
  t->storage = pp_strdup(eq + 1, strlen(eq + 1));
  t->values = calloc(strlen(eq + 1) / 2 + 2, sizeof(char *));
  if (!t->name || !t->storage || !t->values) {
    pp_split_free(t);
    BF_ERROR(BF_ERROR_MEMORY, "out of memory parsing \"%s\"", token);
  }
  for (char *p = t->storage; *p;) {
    while (*p && isspace((unsigned char)*p)) *p++ = '\0';
    if (!*p) break;
    t->values[t->n++] = p;
    while (*p && !isspace((unsigned char)*p)) ++p;
  }
  if (t->n == 0) {
    pp_split_free(t);
    BF_ERROR(BF_ERROR_VALUE, "no value given in \"%s\"", token);
  }
  return BF_SUCCESS;
}

int bf_parmparse_check_token(const char *token) {
  pp_split_token t;
  BF_CALL(pp_split(token, &t));
  pp_split_free(&t);
  return BF_SUCCESS;
}

int bf_parmparse_add_token(const char *token) {
  pp_split_token t;
  BF_CALL(pp_split(token, &t));
  int ierr = bf_parmparse_add(t.name, t.n, t.values);
  pp_split_free(&t);
  return ierr;
}

int bf_parmparse_count(const char *name) {
  int at = pp_find(name);
  return at < 0 ? -1 : pp_table[at].nvalues;
}

int bf_parmparse_get(const char *name, int i, const char **value) {
  int at = pp_find(name);
  BF_CHECK(at >= 0, BF_ERROR_VALUE, "parameter %s is not defined", name ? name : "(NULL)");
  BF_CHECK(i >= 0 && i < pp_table[at].nvalues, BF_ERROR_INDEX, "parameter %s has %d values, asked for value %d",
           name, pp_table[at].nvalues, i);
  *value = pp_table[at].values[i];
  return BF_SUCCESS;
}

static int pp_lookup(const char *name, int i, bool *found, const char **s) {
  *found = false;
  if (pp_find(name) < 0) return BF_SUCCESS;
  BF_CALL(bf_parmparse_get(name, i, s));
  *found = true;
  return BF_SUCCESS;
}

int bf_parmparse_query_int(const char *name, int i, bool *found, int *out) {
  const char *s;
  BF_CALL(pp_lookup(name, i, found, &s));
  if (!*found) return BF_SUCCESS;
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  BF_CHECK(end != s && *end == '\0' && errno == 0 && v >= INT_MIN && v <= INT_MAX, BF_ERROR_VALUE,
           "parameter %s value \"%s\" is not an int", name, s);
  *out = (int)v;
  return BF_SUCCESS;
}

int bf_parmparse_query_real(const char *name, int i, bool *found, double *out) {
  const char *s;
  BF_CALL(pp_lookup(name, i, found, &s));
  if (!*found) return BF_SUCCESS;
  char *end;
  double v = strtod(s, &end);
  BF_CHECK(end != s && *end == '\0', BF_ERROR_VALUE, "parameter %s value \"%s\" is not a number", name, s);
  *out = v;
  return BF_SUCCESS;
}

int bf_parmparse_query_bool(const char *name, int i, bool *found, bool *out) {
  const char *s;
  BF_CALL(pp_lookup(name, i, found, &s));
  if (!*found) return BF_SUCCESS;
  if (!strcasecmp(s, "true") || !strcmp(s, "1")) *out = true;
  else if (!strcasecmp(s, "false") || !strcmp(s, "0")) *out = false;
  else BF_ERROR(BF_ERROR_VALUE, "parameter %s value \"%s\" is not a bool", name, s);
  return BF_SUCCESS;
}

int bf_parmparse_remove(const char *name) {
  int at = pp_find(name);
  if (at < 0) return 0;
  pp_free_entry(&pp_table[at]);
  pp_table[at] = pp_table[--pp_size];
  return 1;
}

void bf_parmparse_clear(void) {
  for (int i = 0; i < pp_size; ++i) pp_free_entry(&pp_table[i]);
  free(pp_table);
  pp_table = NULL;
  pp_size = pp_capacity = 0;
}
