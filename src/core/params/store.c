/* The parameter store: the table and typed reads (see include/boxfab/parmparse.h).
 * Inputs files: params/file.c; expressions: params/expr.c. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/fileio.h"
#include "params/impl.h"

int64_t pp_work;

int64_t bf_parmparse_work_count(void) { return pp_work; }

static pp_entry *pp_table;
static int pp_size, pp_capacity;
static bool pp_sorted = true;

char *pp_strndup(const char *s, size_t n) {
  char *r = malloc(n + 1);
  if (r) {
    memcpy(r, s, n);
    r[n] = '\0';
  }
  return r;
}

void pp_entry_free(pp_entry *e) {
  if (e->values)
    for (int i = 0; i < e->nvalues; ++i) free(e->values[i]);
  free(e->values);
  free(e->name);
  free(e->file);
  memset(e, 0, sizeof *e);
}

/* ---- the hash index ----------------------------------------------------------------
 * pp_table holds the entries (sorted by name on demand for name_at / pretty);
 * pp_index maps a name to its position there: open addressing with linear
 * probing over a power-of-two number of slots, at most half of them used
 * (live or removed), so that add / query / remove take O(1) on average (a
 * linear scan made 80k distinct keys take 6 s to add).  A rebuild leaves at
 * most a quarter of the slots used, so that at least as many inserts as there
 * are entries come before the next one (with half, removing and adding names
 * at a size just under a power of two rebuilt the index every other call).  When memory for the
 * index runs out, lookups fall back to the scan and the next change rebuilds
 * it: the index is never needed for correctness. */
enum { PP_EMPTY = -1, PP_GONE = -2 };
typedef struct {
  uint64_t hash;
  int at; /* position in pp_table, PP_EMPTY or PP_GONE */
} pp_slot;
static pp_slot *pp_index;
static size_t pp_index_cap, pp_index_used; /* slots; live + removed */

static uint64_t pp_hash(const char *s) { /* FNV-1a, 64 bits */
  uint64_t h = 1469598103934665603ull;
  for (; *s; ++s) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

static void pp_index_drop(void) {
  free(pp_index);
  pp_index = NULL;
  pp_index_cap = pp_index_used = 0;
}

/* Put position `at` (its name hashes to h) into a free slot; room is guaranteed by the caller. */
static void pp_index_insert(uint64_t h, int at) {
  size_t mask = pp_index_cap - 1, i = (size_t)h & mask;
  while (pp_index[i].at >= 0) i = (i + 1) & mask, ++pp_work;
  ++pp_work;
  if (pp_index[i].at == PP_EMPTY) ++pp_index_used;
  pp_index[i].hash = h, pp_index[i].at = at;
}

/* Rebuild the index from pp_table with room for `want` entries; false (and no index) when out of memory. */
static bool pp_index_rebuild(size_t want) {
  size_t cap = 16;
  while (cap < 4 * want + 4) cap *= 2;
  pp_slot *t = cap == pp_index_cap ? pp_index : malloc(cap * sizeof *t);
  if (!t) {
    pp_index_drop();
    return false;
  }
  if (t != pp_index) free(pp_index);
  pp_index = t, pp_index_cap = cap, pp_index_used = 0;
  for (size_t i = 0; i < cap; ++i) t[i].hash = 0, t[i].at = PP_EMPTY;
  pp_work += (int64_t)cap;
  for (int k = 0; k < pp_size; ++k) pp_index_insert(pp_hash(pp_table[k].name), k);
  return true;
}

/* The slot holding position `at` of a name hashing to h. */
static size_t pp_slot_of(uint64_t h, int at) {
  size_t mask = pp_index_cap - 1, i = (size_t)h & mask;
  while (pp_index[i].at != at) i = (i + 1) & mask, ++pp_work;
  return i;
}

static int pp_find(const char *name) {
  if (!name) return -1;
  if (!pp_index && pp_size > 0) (void)pp_index_rebuild((size_t)pp_size);
  if (!pp_index) {
    for (int i = 0; i < pp_size; ++i)
      if (++pp_work, strcmp(pp_table[i].name, name) == 0) return i;
    return -1;
  }
  uint64_t h = pp_hash(name);
  size_t mask = pp_index_cap - 1;
  for (size_t i = (size_t)h & mask; ++pp_work, pp_index[i].at != PP_EMPTY; i = (i + 1) & mask)
    if (pp_index[i].at >= 0 && pp_index[i].hash == h && strcmp(pp_table[pp_index[i].at].name, name) == 0)
      return pp_index[i].at;
  return -1;
}

pp_entry *pp_entry_of(const char *name) {
  int at = pp_find(name);
  return at < 0 ? NULL : &pp_table[at];
}

int pp_table_reserve(int extra) {
  BF_CHECK(extra >= 0 && pp_size <= INT_MAX - extra, BF_ERROR_OVERFLOW, "too many parameters (%d more)", extra);
  if (pp_size + extra > pp_capacity) {
    int cap = pp_capacity ? pp_capacity : 16;
    while (cap < pp_size + extra) cap = cap > INT_MAX / 2 ? INT_MAX : 2 * cap;
    pp_entry *t = realloc(pp_table, (size_t)cap * sizeof *t);
    BF_CHECK(t != NULL, BF_ERROR_MEMORY, "out of memory adding %d parameters", extra);
    pp_table = t;
    pp_capacity = cap;
  }
  return BF_SUCCESS;
}

int pp_table_put(pp_entry *e) {
  int at = pp_find(e->name);
  if (at >= 0) { /* the last definition wins: same name, same slot; its reads so far stay counted */
    e->used += pp_table[at].used;
    pp_entry_free(&pp_table[at]);
    pp_table[at] = *e;
    memset(e, 0, sizeof *e);
    return BF_SUCCESS;
  }
  if (pp_size == INT_MAX) {
    int ierr = bf_error_set(BF_ERROR_OVERFLOW, __func__, "too many parameters adding %.200s", e->name);
    pp_entry_free(e);
    return ierr;
  }
  if (pp_size == pp_capacity) {
    int cap = pp_capacity > INT_MAX / 2 ? INT_MAX : pp_capacity ? 2 * pp_capacity : 16;
    pp_entry *t = realloc(pp_table, (size_t)cap * sizeof *t);
    if (!t) {
      int ierr = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory adding parameter %.200s", e->name);
      pp_entry_free(e);
      return ierr;
    }
    pp_table = t;
    pp_capacity = cap;
  }
  pp_table[pp_size++] = *e;
  memset(e, 0, sizeof *e);
  pp_sorted = false;
  /* index it (at most half the slots in use); out of memory: the scan takes over until the next rebuild */
  if (pp_index && 2 * (pp_index_used + 1) <= pp_index_cap)
    pp_index_insert(pp_hash(pp_table[pp_size - 1].name), pp_size - 1);
  else
    (void)pp_index_rebuild((size_t)pp_size);
  return BF_SUCCESS;
}

/* ---- what an inputs file can hold (AMReX's getToken) -------------------------------
 * pretty_print writes "name = v1 v2 ..." lines that addfile (and AMReX) must read back as they
 * were: every name and value added is checked against what the tokenizer can read. */

/* A name as the tokenizer reads one: a letter, then anything up to the white space or '=' that ends
 * the token (AMReX's getToken reads a name token in its IDENTIFIER state and, from the first byte
 * that is not a letter, digit or _ . [ ] + -, in its STRING state: WarpX's
 * "electrons.density_function(x,y,z)" is a name), but no '"' or '#' (other readers of inputs files
 * take them for quotes and comments), no control character and no Unicode blank (Python's split()
 * and yt cut there); UTF-8.  pp_next_token classes a file's tokens with it, so that what add takes
 * and what addfile reads as a name are the same. */
bool pp_name_ok(const char *name) {
  if (!name || !pp_isalpha(name[0])) return false;
  size_t n = strlen(name);
  if (pp_utf8_bad((const unsigned char *)name, n) >= 0) return false;
  for (size_t i = 0; i < n; ++i) {
    unsigned char c = (unsigned char)name[i];
    if (c < 0x20 || c == 0x7f || c == ' ' || c == '=' || c == '"' || c == '#') return false;
  }
  return !bf_name_has_any_space(name);
}

/* ... and not FILE, which includes a file. */
static int pp_check_name(const char *name) {
  BF_CHECK(name && name[0], BF_ERROR_VALUE, "parameter name must not be empty");
  BF_CHECK(pp_name_ok(name), BF_ERROR_VALUE,
           "parameter name \"%.200s\" could not be read back from an inputs file: a name starts with a "
           "letter (A-Z, a-z) and holds no white space, '=', '\"', '#' or control character",
           name);
  BF_CHECK(strcmp(name, "FILE") != 0, BF_ERROR_VALUE,
           "parameter name FILE is the include directive of inputs files (FILE = other_inputs), not a parameter");
  return BF_SUCCESS;
}

/* A value written bare: the tokenizer, started at its first byte, reads exactly it.  A value
 * starting with '(' is read up to its matching ')'; another up to white space or '='.  A bare
 * value must not start with '#' (a comment), '"' (a quoted value) or '=', and must not end with
 * '\' (before the line's end that continues the line). */
static bool pp_bare_ok(const char *v) {
  if (!v[0] || v[0] == '#' || v[0] == '"' || v[0] == '=') return false;
  size_t n = strlen(v);
  if (v[0] == '(') {
    int depth = 0;
    for (size_t i = 0; i < n; ++i) {
      depth += v[i] == '(';
      depth -= v[i] == ')';
      if (depth == 0) return i == n - 1;
    }
    return false;
  }
  for (size_t i = 0; i < n; ++i)
    if (pp_isspace(v[i]) || v[i] == '=') return false;
  return v[n - 1] != '\\';
}

/* Written in double quotes, read back as it is: no '"' (AMReX's quotes have no escapes) and no new
 * line (the lines of a file are read one by one for #if blocks and namelists). */
static bool pp_quoted_ok(const char *v) { return !strchr(v, '"') && !strchr(v, '\n'); }

static int pp_check_value(const char *name, int i, const char *v) {
  BF_CHECK(v != NULL, BF_ERROR_VALUE, "value %d of %.200s is NULL", i, name);
  size_t n = strlen(v);
  BF_CHECK(pp_utf8_bad((const unsigned char *)v, n) < 0, BF_ERROR_VALUE,
           "value %d of parameter %.200s is not UTF-8 text (inputs files are UTF-8)", i, name);
  BF_CHECK(!strchr(v, '\n'), BF_ERROR_VALUE,
           "value %d of parameter %.200s holds a new line, which an inputs file cannot hold in a value", i, name);
  BF_CHECK(pp_bare_ok(v) || pp_quoted_ok(v), BF_ERROR_VALUE,
           "value %d of parameter %.200s, \"%.100s\", could not be read back from an inputs file: a value "
           "with a double quote (\") must not need quotes (no white space or '=', no '#' or '\"' first, "
           "no '\\' last, or one group in parentheses)",
           i, name, v);
  return BF_SUCCESS;
}

int bf_parmparse_add_typed(const char *name, int nvalues, const char *const *values, int type) {
  BF_CALL(pp_check_name(name));
  BF_CHECK(nvalues >= 0, BF_ERROR_VALUE, "negative number of values %d", nvalues);
  BF_CHECK(nvalues > 0, BF_ERROR_VALUE,
           "parameter %.200s: no values (an inputs file cannot define a name without values)", name);
  BF_CHECK(values != NULL, BF_ERROR_VALUE, "%d values but values is NULL", nvalues);
  BF_CHECK(type >= BF_PP_TEXT && type <= BF_PP_BOX, BF_ERROR_VALUE, "unknown parameter type %d", type);
  for (int i = 0; i < nvalues; ++i) BF_CALL(pp_check_value(name, i, values[i]));
  pp_entry e = {pp_strndup(name, strlen(name)), nvalues, calloc((size_t)nvalues + 1, sizeof(char *)), NULL, 0,
                type, -1, 0, false, 0, 0.0, 1}; /* added by a call: used (AMReX's saddval counts it) */
  int ok = e.name && e.values;
  for (int i = 0; ok && i < nvalues; ++i) ok = (e.values[i] = pp_strndup(values[i], strlen(values[i]))) != NULL;
  if (!ok) {
    pp_entry_free(&e);
    BF_ERROR(BF_ERROR_MEMORY, "out of memory adding parameter %.200s", name);
  }
  return pp_table_put(&e);
}

int bf_parmparse_add(const char *name, int nvalues, const char *const *values) {
  return bf_parmparse_add_typed(name, nvalues, values, BF_PP_STRING);
}

/* ---- typed adds: AMReX's text forms ---------------------------------------------- */
typedef void (*pp_format_fn)(const void *items, int i, char *buf, size_t size);

static int pp_add_formatted(const char *name, int n, const void *items, pp_format_fn fmt, int type, size_t width) {
  BF_CHECK(n >= 0, BF_ERROR_VALUE, "negative number of values %d", n);
  BF_CHECK(n == 0 || items != NULL, BF_ERROR_VALUE, "%d values but the array is NULL", n);
  char *storage = malloc((size_t)n * width + 1);
  const char **vals = calloc((size_t)n + 1, sizeof *vals);
  if (!storage || !vals) {
    free(storage), free(vals);
    BF_ERROR(BF_ERROR_MEMORY, "out of memory adding parameter %.200s", name ? name : "(NULL)");
  }
  for (int i = 0; i < n; ++i) {
    fmt(items, i, storage + (size_t)i * width, width);
    vals[i] = storage + (size_t)i * width;
  }
  int ierr = bf_parmparse_add_typed(name, n, vals, type);
  free(storage), free(vals);
  return ierr;
}

static void pp_fmt_int(const void *v, int i, char *buf, size_t size) {
  snprintf(buf, size, "%" PRId64, ((const int64_t *)v)[i]);
}
static void pp_fmt_real(const void *v, int i, char *buf, size_t size) {
  double x = ((const double *)v)[i];
  if (isnan(x)) snprintf(buf, size, "nan"); /* AMReX reads "nan", never "-nan" */
  else if (isinf(x)) snprintf(buf, size, x > 0 ? "inf" : "-inf");
  else snprintf(buf, size, "%.17g", x);
}
static void pp_fmt_bool(const void *v, int i, char *buf, size_t size) {
  snprintf(buf, size, "%d", ((const bool *)v)[i] ? 1 : 0);
}
static void pp_fmt_ints(char *buf, size_t size, const int *v, int n) {
  size_t at = 0;
  for (int d = 0; d < n && at < size; ++d)
    at += (size_t)snprintf(buf + at, size - at, "%s%d", d ? "," : "(", v[d]);
  if (at < size) snprintf(buf + at, size - at, ")");
}
static void pp_fmt_intvect(const void *v, int i, char *buf, size_t size) {
  const bf_intvect *iv = &((const bf_intvect *)v)[i];
  pp_fmt_ints(buf, size, iv->v, iv->dim);
}
static void pp_fmt_box(const void *v, int i, char *buf, size_t size) {
  const bf_box *b = &((const bf_box *)v)[i];
  char lo[40], hi[40], ty[40];
  int t[BF_SPACEDIM_MAX];
  for (int d = 0; d < b->dim; ++d) t[d] = (int)((b->type >> d) & 1u);
  pp_fmt_ints(lo, sizeof lo, b->lo, b->dim);
  pp_fmt_ints(hi, sizeof hi, b->hi, b->dim);
  pp_fmt_ints(ty, sizeof ty, t, b->dim);
  snprintf(buf, size, "(%s %s %s)", lo, hi, ty);
}

int bf_parmparse_add_ints(const char *name, int n, const int64_t *v) {
  return pp_add_formatted(name, n, v, pp_fmt_int, BF_PP_INT, 24);
}
int bf_parmparse_add_reals(const char *name, int n, const double *v) {
  return pp_add_formatted(name, n, v, pp_fmt_real, BF_PP_REAL, 32);
}
int bf_parmparse_add_bools(const char *name, int n, const bool *v) {
  return pp_add_formatted(name, n, v, pp_fmt_bool, BF_PP_BOOL, 2);
}
int bf_parmparse_add_intvects(const char *name, int n, const bf_intvect *v) {
  for (int i = 0; i < n && v; ++i) BF_CHECK_DIM(v[i].dim);
  return pp_add_formatted(name, n, v, pp_fmt_intvect, BF_PP_INTVECT, 40);
}
int bf_parmparse_add_boxes(const char *name, int n, const bf_box *v) {
  for (int i = 0; i < n && v; ++i) BF_CHECK_DIM(v[i].dim);
  return pp_add_formatted(name, n, v, pp_fmt_box, BF_PP_BOX, 128);
}

/* ---- lookups --------------------------------------------------------------------- */
int bf_parmparse_count(const char *name) {
  int at = pp_find(name);
  if (at < 0) return -1;
  ++pp_table[at].used;
  return pp_table[at].nvalues;
}

int bf_parmparse_get(const char *name, int i, const char **value) {
  int at = pp_find(name);
  BF_CHECK(at >= 0, BF_ERROR_VALUE, "parameter %.200s is not defined", name ? name : "(NULL)");
  pp_entry *e = &pp_table[at];
  ++e->used;
  char where[300];
  BF_CHECK(i >= 0 && i < e->nvalues, BF_ERROR_INDEX, "parameter %.200s has %d value%s, asked for value %d%s", name,
           e->nvalues, e->nvalues == 1 ? "" : "s", i, pp_where(name, where, sizeof where));
  *value = e->values[i];
  return BF_SUCCESS;
}

int bf_parmparse_origin(const char *name, const char **file, int *line) {
  int at = pp_find(name);
  BF_CHECK(at >= 0, BF_ERROR_VALUE, "parameter %.200s is not defined", name ? name : "(NULL)");
  if (file) *file = pp_table[at].file;
  if (line) *line = pp_table[at].line;
  return BF_SUCCESS;
}

int bf_parmparse_type_of(const char *name) {
  int at = pp_find(name);
  return at < 0 ? -1 : pp_table[at].type;
}

const char *pp_where(const char *name, char *buf, size_t size) {
  int at = pp_find(name);
  buf[0] = '\0';
  if (at >= 0 && pp_table[at].file) snprintf(buf, size, " (%.200s:%d)", pp_table[at].file, pp_table[at].line);
  return buf;
}

static int pp_lookup(const char *name, int i, bool *found, const char **s) {
  BF_CHECK(found != NULL, BF_ERROR_VALUE, "found must not be NULL");
  *found = false;
  if (pp_find(name) < 0) return BF_SUCCESS;
  BF_CALL(bf_parmparse_get(name, i, s));
  *found = true;
  return BF_SUCCESS;
}

/* Remember the type a text value was read as (to_dict). */
static void pp_note_type(const char *name, int type) {
  int at = pp_find(name);
  if (at >= 0 && pp_table[at].type == BF_PP_TEXT) pp_table[at].type = type;
}

/* A value token that is a piece of an expression written with spaces
 * ("x = 1.5e-3 * 2" gives the values "1.5e-3", "*", "2"): AMReX reads the
 * first token alone (1.5e-3, silently); boxfab refuses such an entry. */
static bool pp_is_fragment(const char *s) {
  size_t n = strlen(s);
  if (n == 0) return false;
  if (strchr("*/^)=<>,", s[0])) return true;
  if (strchr("+-*/^(=<>,", s[n - 1])) return true;
  return false;
}

static int pp_check_fragments(const char *name) {
  int at = pp_find(name);
  if (at < 0 || pp_table[at].nvalues < 2) return BF_SUCCESS;
  pp_entry *e = &pp_table[at];
  if (e->fragment < 0) { /* once per entry: reads of long lists stay linear */
    e->fragment = 0;
    for (int k = 0; k < e->nvalues && !e->fragment; ++k)
      if (pp_is_fragment(e->values[k])) e->fragment = k + 1;
  }
  if (e->fragment > 0) {
    int k = e->fragment - 1;
    {
      char where[300];
      BF_ERROR(BF_ERROR_VALUE,
               "parameter %.200s%s: value \"%.100s\" is a piece of an expression written with spaces; "
               "quote the expression (\"2 * 3\") or write it without spaces (2*3)",
               name, pp_where(name, where, sizeof where), e->values[k]);
    }
  }
  return BF_SUCCESS;
}

/* A decimal number as AMReX's istream reads a double: [+-](d+[.d*]|.d+)([eE][+-]d+). */
static bool pp_is_decimal(const char *s) {
  const char *p = s;
  if (*p == '+' || *p == '-') ++p;
  int digits = 0;
  while (isdigit((unsigned char)*p)) ++p, ++digits;
  if (*p == '.') {
    ++p;
    while (isdigit((unsigned char)*p)) ++p, ++digits;
  }
  if (!digits) return false;
  if (*p == 'e' || *p == 'E') {
    ++p;
    if (*p == '+' || *p == '-') ++p;
    if (!isdigit((unsigned char)*p)) return false;
    while (isdigit((unsigned char)*p)) ++p;
  }
  return *p == '\0';
}

/* An integer as istream >> int reads it: [+-]d+.  1: parsed; 0: not an
 * integer; BF_ERROR_OVERFLOW (with a message) beyond int64. */
static int pp_parse_int64(const char *name, const char *s, int64_t *out, bool *ok) {
  *ok = false;
  const char *p = s;
  if (*p == '+' || *p == '-') ++p;
  if (!isdigit((unsigned char)*p)) return BF_SUCCESS;
  while (isdigit((unsigned char)*p)) ++p;
  if (*p) return BF_SUCCESS;
  errno = 0;
  long long v = strtoll(s, NULL, 10);
  char where[300];
  BF_CHECK(errno != ERANGE, BF_ERROR_OVERFLOW, "parameter %.200s%s: %.100s does not fit in a 64-bit integer", name,
           pp_where(name, where, sizeof where), s);
  *out = (int64_t)v;
  *ok = true;
  return BF_SUCCESS;
}

int bf_parmparse_query_int64(const char *name, int i, bool *found, int64_t *out) {
  const char *s = NULL;
  BF_CALL(pp_lookup(name, i, found, &s));
  if (!*found) return BF_SUCCESS;
  BF_CHECK(out != NULL, BF_ERROR_VALUE, "out must not be NULL");
  BF_CALL(pp_check_fragments(name));
  bool ok;
  int64_t v = 0;
  BF_CALL(pp_parse_int64(name, s, &v, &ok));
  if (!ok) BF_CALL(pp_eval_int(s, name, &v));
  *out = v;
  pp_note_type(name, BF_PP_INT);
  return BF_SUCCESS;
}

int bf_parmparse_query_int(const char *name, int i, bool *found, int *out) {
  int64_t v = 0;
  BF_CALL(bf_parmparse_query_int64(name, i, found, &v));
  if (!*found) return BF_SUCCESS;
  char where[300];
  BF_CHECK(v >= INT_MIN && v <= INT_MAX, BF_ERROR_OVERFLOW, "parameter %.200s%s: %" PRId64 " does not fit in an int",
           name, pp_where(name, where, sizeof where), v);
  *out = (int)v;
  return BF_SUCCESS;
}

/* A real number as AMReX reads one (decimal, nan, inf, -inf); false otherwise. */
static bool pp_parse_real(const char *s, double *out) {
  if (!strcmp(s, "nan")) *out = NAN;
  else if (!strcmp(s, "inf")) *out = INFINITY;
  else if (!strcmp(s, "-inf")) *out = -INFINITY;
  else if (pp_is_decimal(s)) *out = strtod(s, NULL);
  else return false;
  return true;
}

int bf_parmparse_query_real(const char *name, int i, bool *found, double *out) {
  const char *s = NULL;
  BF_CALL(pp_lookup(name, i, found, &s));
  if (!*found) return BF_SUCCESS;
  BF_CHECK(out != NULL, BF_ERROR_VALUE, "out must not be NULL");
  BF_CALL(pp_check_fragments(name));
  double v = 0;
  if (!pp_parse_real(s, &v)) BF_CALL(pp_eval_real(s, name, &v));
  *out = v;
  pp_note_type(name, BF_PP_REAL);
  return BF_SUCCESS;
}

int bf_parmparse_query_bool(const char *name, int i, bool *found, bool *out) {
  const char *s = NULL;
  BF_CALL(pp_lookup(name, i, found, &s));
  if (!*found) return BF_SUCCESS;
  BF_CHECK(out != NULL, BF_ERROR_VALUE, "out must not be NULL");
  bool v;
  if (!strcasecmp(s, "true") || !strcasecmp(s, "t")) v = true;
  else if (!strcasecmp(s, "false") || !strcasecmp(s, "f")) v = false;
  else if (pp_is_decimal(s)) v = strtod(s, NULL) != 0.0;
  else {
    char where[300];
    BF_ERROR(BF_ERROR_VALUE,
             "parameter %.200s%s: value \"%.100s\" is not a bool (true, false, t, f in any case, or a number)", name,
             pp_where(name, where, sizeof where), s);
  }
  *out = v;
  pp_note_type(name, BF_PP_BOOL);
  return BF_SUCCESS;
}

int bf_parmparse_query_string(const char *name, int i, bool *found, const char **out) {
  const char *s = NULL;
  BF_CALL(pp_lookup(name, i, found, &s));
  if (!*found) return BF_SUCCESS;
  BF_CHECK(out != NULL, BF_ERROR_VALUE, "out must not be NULL");
  *out = s;
  pp_note_type(name, BF_PP_STRING);
  return BF_SUCCESS;
}

/* "(i,j,k)" with exactly n ints at *p; advances *p.  False when it does not parse. */
static bool pp_scan_ints(const char **p, int n, int *v) {
  const char *s = *p;
  while (isspace((unsigned char)*s)) ++s;
  if (*s++ != '(') return false;
  for (int d = 0; d < n; ++d) {
    while (isspace((unsigned char)*s)) ++s;
    if (d > 0) {
      if (*s++ != ',') return false;
      while (isspace((unsigned char)*s)) ++s;
    }
    const char *b = s;
    if (*s == '+' || *s == '-') ++s;
    if (!isdigit((unsigned char)*s)) return false;
    while (isdigit((unsigned char)*s)) ++s;
    errno = 0;
    long x = strtol(b, NULL, 10);
    if (errno == ERANGE || x < INT_MIN || x > INT_MAX) return false;
    v[d] = (int)x;
  }
  while (isspace((unsigned char)*s)) ++s;
  if (*s++ != ')') return false;
  *p = s;
  return true;
}

static bool pp_at_end(const char *s) {
  while (isspace((unsigned char)*s)) ++s;
  return *s == '\0';
}

int bf_parmparse_query_intvect(const char *name, int i, int dim, bool *found, bf_intvect *out) {
  BF_CHECK_DIM(dim);
  const char *s = NULL;
  BF_CALL(pp_lookup(name, i, found, &s));
  if (!*found) return BF_SUCCESS;
  BF_CHECK(out != NULL, BF_ERROR_VALUE, "out must not be NULL");
  bf_intvect iv = bf_intvect_splat(dim, 0);
  const char *p = s;
  if (!pp_scan_ints(&p, dim, iv.v) || !pp_at_end(p)) {
    char where[300];
    BF_ERROR(BF_ERROR_VALUE, "parameter %.200s%s: value \"%.100s\" is not an IntVect of %d components like (%s)",
             name, pp_where(name, where, sizeof where), s, dim, dim == 1 ? "0" : dim == 2 ? "0,0" : "0,0,0");
  }
  *out = iv;
  pp_note_type(name, BF_PP_INTVECT);
  return BF_SUCCESS;
}

int bf_parmparse_query_box(const char *name, int i, int dim, bool *found, bf_box *out) {
  BF_CHECK_DIM(dim);
  const char *s = NULL;
  BF_CALL(pp_lookup(name, i, found, &s));
  if (!*found) return BF_SUCCESS;
  BF_CHECK(out != NULL, BF_ERROR_VALUE, "out must not be NULL");
  bf_box b;
  memset(&b, 0, sizeof b);
  b.dim = dim;
  int t[BF_SPACEDIM_MAX] = {0, 0, 0};
  const char *p = s;
  while (isspace((unsigned char)*p)) ++p;
  bool ok = *p++ == '(' && pp_scan_ints(&p, dim, b.lo) && pp_scan_ints(&p, dim, b.hi);
  if (ok) {
    while (isspace((unsigned char)*p)) ++p;
    if (*p == '(') ok = pp_scan_ints(&p, dim, t);
    for (int d = 0; ok && d < dim; ++d) ok = t[d] == 0 || t[d] == 1;
    while (ok && isspace((unsigned char)*p)) ++p;
    ok = ok && *p++ == ')' && pp_at_end(p);
  }
  if (!ok) {
    char where[300];
    BF_ERROR(BF_ERROR_VALUE, "parameter %.200s%s: value \"%.100s\" is not a Box of dimension %d like %s", name,
             pp_where(name, where, sizeof where), s, dim,
             dim == 1 ? "((0) (7) (0))" : dim == 2 ? "((0,0) (7,7) (0,0))" : "((0,0,0) (7,7,7) (0,0,0))");
  }
  for (int d = 0; d < dim; ++d) b.type |= (unsigned)t[d] << d;
  *out = b;
  pp_note_type(name, BF_PP_BOX);
  return BF_SUCCESS;
}

/* ---- the whole table ------------------------------------------------------------- */
static int pp_cmp(const void *a, const void *b) {
  return strcmp(((const pp_entry *)a)->name, ((const pp_entry *)b)->name);
}

static void pp_sort(void) {
  if (!pp_sorted && pp_size > 1) {
    qsort(pp_table, (size_t)pp_size, sizeof *pp_table, pp_cmp);
    if (pp_index) (void)pp_index_rebuild((size_t)pp_size); /* every position moved */
  }
  pp_sorted = true;
}

int bf_parmparse_size(void) { return pp_size; }

const char *bf_parmparse_name_at(int i) {
  if (i < 0 || i >= pp_size) return NULL;
  pp_sort();
  return pp_table[i].name;
}

/* How pretty writes value v: bare when the tokenizer reads it back so, else in double quotes
 * (values added are checked by pp_check_value; a value read from a file across lines in quotes or
 * parentheses is written as it was read). */
static bool pp_pretty_quoted(const char *v) { return !pp_bare_ok(v) && !strchr(v, '"'); }

int bf_parmparse_pretty(char **text) {
  BF_CHECK(text != NULL, BF_ERROR_VALUE, "text must not be NULL");
  pp_sort();
  size_t len = 1;
  for (int i = 0; i < pp_size; ++i) {
    len += strlen(pp_table[i].name) + 4;
    for (int k = 0; k < pp_table[i].nvalues; ++k) len += strlen(pp_table[i].values[k]) + 3;
  }
  char *out = malloc(len), *p = out;
  BF_CHECK(out != NULL, BF_ERROR_MEMORY, "out of memory printing the parameter table");
  for (int i = 0; i < pp_size; ++i) {
    size_t n = strlen(pp_table[i].name);
    memcpy(p, pp_table[i].name, n), p += n;
    memcpy(p, " =", 2), p += 2;
    for (int k = 0; k < pp_table[i].nvalues; ++k) {
      const char *v = pp_table[i].values[k];
      bool q = pp_pretty_quoted(v);
      size_t m = strlen(v);
      *p++ = ' ';
      if (q) *p++ = '"';
      memcpy(p, v, m), p += m;
      if (q) *p++ = '"';
    }
    *p++ = '\n';
  }
  *p = '\0';
  *text = out;
  return BF_SUCCESS;
}

int bf_parmparse_remove(const char *name) {
  int at = pp_find(name);
  if (at < 0) return 0;
  int last = pp_size - 1;
  if (pp_index) {
    pp_index[pp_slot_of(pp_hash(name), at)].at = PP_GONE;
    if (at != last) pp_index[pp_slot_of(pp_hash(pp_table[last].name), last)].at = at;
  }
  pp_entry_free(&pp_table[at]);
  pp_table[at] = pp_table[last];
  --pp_size;
  pp_sorted = false;
  return 1;
}

/* The unused entries whose names start with prefix + "." (every one for an empty prefix), sorted. */
static int pp_unused_list(const char *prefix, int *idx) {
  size_t np = prefix ? strlen(prefix) : 0;
  int n = 0;
  pp_sort();
  for (int i = 0; i < pp_size; ++i) {
    const char *nm = pp_table[i].name;
    if (pp_table[i].used == 0 && (np == 0 || (strncmp(nm, prefix, np) == 0 && nm[np] == '.'))) {
      if (idx) idx[n] = i;
      ++n;
    }
  }
  return n;
}

bool bf_parmparse_has_unused(const char *prefix) { return pp_unused_list(prefix, NULL) > 0; }

int bf_parmparse_unused(const char *prefix, int style, char **text) {
  BF_CHECK(text != NULL, BF_ERROR_VALUE, "text must not be NULL");
  int n = pp_unused_list(prefix, NULL);
  int *idx = malloc(sizeof *idx * (size_t)(n + 1));
  BF_CHECK(idx != NULL, BF_ERROR_MEMORY, "out of memory listing unused parameters");
  pp_unused_list(prefix, idx);
  size_t len = 1;
  for (int k = 0; k < n; ++k) {
    const pp_entry *e = &pp_table[idx[k]];
    len += strlen(e->name) + 48;
    for (int v = 0; v < e->nvalues; ++v) len += strlen(e->values[v]) + 2;
  }
  char *out = malloc(len), *p = out;
  if (!out) {
    free(idx);
    BF_ERROR(BF_ERROR_MEMORY, "out of memory listing unused parameters");
  }
  *p = '\0';
  for (int k = 0; k < n; ++k) {
    const pp_entry *e = &pp_table[idx[k]];
    if (style == 0) { /* AMReX's pp_to_string: name(nvals = N)  :: [a, b] */
      p += sprintf(p, "%s(nvals = %d)  :: [", e->name, e->nvalues);
      for (int v = 0; v < e->nvalues; ++v) p += sprintf(p, "%s%s", v ? ", " : "", e->values[v]);
      p += sprintf(p, "]\n");
    } else { /* AMReX's getUnusedInputs: name = a b */
      p += sprintf(p, "%s =", e->name);
      for (int v = 0; v < e->nvalues; ++v) p += sprintf(p, " %s", e->values[v]);
      p += sprintf(p, "\n");
    }
  }
  free(idx);
  *text = out;
  return BF_SUCCESS;
}

void bf_parmparse_clear(void) {
  for (int i = 0; i < pp_size; ++i) pp_entry_free(&pp_table[i]);
  free(pp_table);
  pp_table = NULL;
  pp_size = pp_capacity = 0;
  pp_sorted = true;
  pp_index_drop();
}
