/* Inputs files in AMReX's syntax (AMReX_ParmParse.cpp: read_file, getToken,
 * bldTable), read into the parameter store.  docs/inputs.md lists the rules
 * and where boxfab is stricter than AMReX (which aborts, or silently reads
 * something else, on most malformed input).
 *
 * A text is checked (no NUL byte, UTF-8), its `#if AMREX_SPACEDIM` blocks
 * and Fortran namelists blanked out (line numbers kept), then split into
 * tokens and definitions.  Definitions are collected in a list (includes
 * read in place) and put into the table only when the whole text parsed. */
#define _XOPEN_SOURCE 700 /* realpath() */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "params/impl.h"

enum { PP_MAX_INCLUDE_DEPTH = 32, PP_MAX_FILES_READ = 10000 };
#define PP_MAX_FILE_BYTES ((long long)256 << 20)

/* ---- pending definitions ------------------------------------------------------ */
typedef struct {
  pp_entry *items;
  int n, cap;
} pp_list;

static void pp_list_free(pp_list *l) {
  for (int i = 0; i < l->n; ++i) pp_entry_free(&l->items[i]);
  free(l->items);
  memset(l, 0, sizeof *l);
}

/* The files being read, innermost last (cycle check). */
typedef struct pp_source {
  const char *origin; /* as shown in messages */
  char *real;         /* realpath, NULL for text */
  const struct pp_source *parent;
  int depth;
} pp_source;

typedef struct {
  const char *p;
  int line;
  const pp_source *src;
  int dim;
  pp_list *out;
} pp_lexer;

static int pp_syntax(const pp_lexer *lx, int line, const char *fmt, const char *a, const char *b) {
  char what[600];
  snprintf(what, sizeof what, fmt, a ? a : "", b ? b : "");
  return bf_error_set(BF_ERROR_VALUE, __func__, "%.300s:%d: %s", lx->src->origin, line, what);
}

/* ---- checks and preprocessing ------------------------------------------------- */
/* Offset of the first byte that is not valid UTF-8, or -1. */
long pp_utf8_bad(const unsigned char *s, size_t n) {
  size_t i = 0;
  while (i < n) {
    unsigned c = s[i];
    size_t k;
    unsigned min;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) k = 1, min = 0x80, c &= 0x1F;
    else if ((c & 0xF0) == 0xE0) k = 2, min = 0x800, c &= 0x0F;
    else if ((c & 0xF8) == 0xF0) k = 3, min = 0x10000, c &= 0x07;
    else return (long)i;
    for (size_t j = 1; j <= k; ++j) {
      if (i + j >= n || (s[i + j] & 0xC0) != 0x80) return (long)i;
      c = (c << 6) | (s[i + j] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return (long)i;
    i += k + 1;
  }
  return -1;
}

static int pp_line_of(const char *s, size_t off) {
  int line = 1;
  for (size_t i = 0; i < off; ++i) line += s[i] == '\n';
  pp_work += (int64_t)off;
  return line;
}

/* A `#if AMREX_SPACEDIM op N` line (AMReX's regexes): kind 1 if, 2 elif,
 * 3 else, 4 endif, 0 another line. */
static int pp_directive(const char *s, const char *e, int dim, bool *truth) {
  while (s < e && pp_isspace(*s)) ++s;
  if (s == e || *s != '#') return 0;
  ++s;
  while (s < e && pp_isspace(*s)) ++s;
  int kind;
  if ((size_t)(e - s) >= 5 && !strncmp(s, "endif", 5)) kind = 4, s += 5;
  else if ((size_t)(e - s) >= 4 && !strncmp(s, "else", 4)) kind = 3, s += 4;
  else if ((size_t)(e - s) >= 4 && !strncmp(s, "elif", 4)) kind = 2, s += 4;
  else if ((size_t)(e - s) >= 2 && !strncmp(s, "if", 2)) kind = 1, s += 2;
  else return 0;
  if (kind >= 3) {
    while (s < e && pp_isspace(*s)) ++s;
    return s == e ? kind : 0;
  }
  if (s == e || !pp_isspace(*s)) return 0;
  while (s < e && pp_isspace(*s)) ++s;
  bool paren = s < e && *s == '(';
  if (paren) ++s;
  while (s < e && pp_isspace(*s)) ++s;
  if ((size_t)(e - s) < 14 || strncmp(s, "AMREX_SPACEDIM", 14)) return 0;
  s += 14;
  while (s < e && pp_isspace(*s)) ++s;
  char op[3] = {0, 0, 0};
  if (s + 1 < e && (s[1] == '=') && (*s == '=' || *s == '<' || *s == '>')) op[0] = s[0], op[1] = '=', s += 2;
  else if (s < e && (*s == '<' || *s == '>')) op[0] = *s++;
  else return 0;
  if (!strcmp(op, "=") ) return 0;
  while (s < e && pp_isspace(*s)) ++s;
  if (s == e || *s < '1' || *s > '3') return 0;
  int n = *s++ - '0';
  while (s < e && pp_isspace(*s)) ++s;
  if (paren && s < e && *s == ')') ++s;
  while (s < e && pp_isspace(*s)) ++s;
  if (s != e) return 0;
  *truth = !strcmp(op, "<") ? dim < n : !strcmp(op, ">") ? dim > n : !strcmp(op, "==") ? dim == n
         : !strcmp(op, "<=") ? dim <= n : dim >= n;
  return kind;
}

/* Blank out (with spaces, newlines kept) the lines that are not read: those
 * in false #if blocks, the directives, Fortran namelists (& ... /). */
static int pp_preprocess(const pp_lexer *lx, char *text) {
  enum { MAXNEST = 64 };
  bool valid[MAXNEST], has_true[MAXNEST];
  int nest = 0, line = 1, if_line = 0;
  bool namelist = false;
  char *end = text + strlen(text);
  for (char *s = text; *s; ++line) {
    /* the '#' of a directive is looked for on this line only: strchr(s, '#') searched the rest
     * of the text on every line, which made a file without '#' quadratic in its lines */
    char *e = memchr(s, '\n', (size_t)(end - s));
    char *next = e ? e + 1 : end;
    if (!e) e = next;
    pp_work += next - s;
    bool truth = false, blank = false;
    int kind = memchr(s, '#', (size_t)(e - s)) ? pp_directive(s, e, lx->dim, &truth) : 0;
    if (kind) {
      if (kind == 1) {
        if (lx->dim == 0)
          return pp_syntax(lx, line, "#if AMREX_SPACEDIM needs the dimension (read the file through a space module)%s%s",
                           NULL, NULL);
        if (nest == MAXNEST) return pp_syntax(lx, line, "#if blocks nested too deeply%s%s", NULL, NULL);
        valid[nest] = truth, has_true[nest] = truth, ++nest;
        if_line = line;
      } else {
        if (nest == 0) return pp_syntax(lx, line, "#%s without #if%s", kind == 2 ? "elif" : kind == 3 ? "else" : "endif", NULL);
        if (kind == 2) {
          valid[nest - 1] = !has_true[nest - 1] && truth;
          has_true[nest - 1] = has_true[nest - 1] || truth;
        } else if (kind == 3) {
          valid[nest - 1] = !has_true[nest - 1];
        } else {
          --nest;
        }
      }
      blank = true;
    } else {
      for (int k = 0; k < nest && !blank; ++k) blank = !valid[k];
      if (!blank) {
        const char *r = s;
        while (r < e && pp_isspace(*r)) ++r;
        if (namelist) {
          blank = true;
          if (r < e && *r == '/') namelist = false;
        } else if (r < e && *r == '&') {
          blank = namelist = true;
        }
      }
    }
    if (blank)
      for (char *c = s; c < e; ++c) *c = ' ';
    s = next;
  }
  if (nest > 0) return pp_syntax(lx, if_line, "#if without #endif%s%s", NULL, NULL);
  return BF_SUCCESS;
}

/* ---- tokens (AMReX's getToken) ------------------------------------------------ */
enum { T_NAME, T_EQ, T_VALUE, T_EOF };

typedef struct {
  int kind, line, linefeeds;
  char *text;
} pp_token;

/* A line continuation at p: '\' then \n, \r\n or \r; its length or 0. */
static int pp_continuation(const char *p) {
  if (p[0] != '\\') return 0;
  if (p[1] == '\n') return 2;
  if (p[1] == '\r') return p[2] == '\n' ? 3 : 2;
  return 0;
}

static int pp_eat_garbage(pp_lexer *lx) {
  int linefeeds = 0;
  for (;;) {
    char c = *lx->p;
    int k;
    ++pp_work;
    if (c == '#') {
      const char *s = lx->p;
      while (*lx->p && *lx->p != '\n') ++lx->p;
      pp_work += lx->p - s;
    } else if (c && pp_isspace(c)) {
      if (c == '\n') ++linefeeds, ++lx->line;
      ++lx->p;
    } else if ((k = pp_continuation(lx->p))) {
      ++lx->line;
      lx->p += k;
    } else {
      return linefeeds;
    }
  }
}

static int pp_next_token(pp_lexer *lx, pp_token *t) {
  memset(t, 0, sizeof *t);
  t->linefeeds = pp_eat_garbage(lx);
  t->line = lx->line;
  if (!*lx->p) {
    t->kind = T_EOF;
    return BF_SUCCESS;
  }
  const char *s = lx->p, *b = s, *e;
  if (*s == '=') {
    lx->p++;
    t->kind = T_EQ;
    return BF_SUCCESS;
  }
  if (*s == '"') {
    b = ++s;
    while (*s && *s != '"') lx->line += *s++ == '\n';
    if (!*s) return pp_syntax(lx, t->line, "quoted string without its closing \"%s%s", NULL, NULL);
    e = s++;
    t->kind = T_VALUE;
  } else if (*s == '(') {
    int depth = 0;
    do {
      depth += *s == '(';
      depth -= *s == ')';
      lx->line += *s == '\n';
      ++s;
    } while (*s && depth > 0);
    if (depth > 0) return pp_syntax(lx, t->line, "'(' without its closing ')'%s%s", NULL, NULL);
    e = s;
    t->kind = T_VALUE;
  } else {
    t->kind = T_NAME; /* a name if pp_name_ok says so, below */
    while (*s && !pp_isspace(*s) && *s != '=' && !pp_continuation(s)) ++s;
    e = s;
  }
  pp_work += s - lx->p;
  lx->p = s;
  t->text = pp_strndup(b, (size_t)(e - b));
  BF_CHECK(t->text != NULL, BF_ERROR_MEMORY, "out of memory reading %.300s", lx->src->origin);
  /* a bare token is a name when add would take it as one (quoted and parenthesized ones never are) */
  if (t->kind == T_NAME && !pp_name_ok(t->text)) t->kind = T_VALUE;
  return BF_SUCCESS;
}

/* ---- definitions (AMReX's bldTable) -------------------------------------------- */
static int pp_read_file(const char *path, const char *display, const pp_source *parent, int dim, pp_list *out,
                        const pp_lexer *includer, int include_line);

static int pp_define(pp_lexer *lx, pp_token *name, pp_token *vals, int nvals) {
  if (!strcmp(name->text, "FILE")) {
    if (nvals != 1) return pp_syntax(lx, name->line, "FILE = takes one file name, got %s", nvals == 0 ? "none" : "several", NULL);
    /* relative to the including file's folder, else (AMReX) to the working directory */
    const char *inc = vals[0].text;
    char *path = NULL;
    if (inc[0] != '/' && lx->src->real) {
      const char *slash = strrchr(lx->src->origin, '/');
      size_t dn = slash ? (size_t)(slash - lx->src->origin + 1) : 0;
      path = malloc(dn + strlen(inc) + 1);
      BF_CHECK(path != NULL, BF_ERROR_MEMORY, "out of memory");
      memcpy(path, lx->src->origin, dn);
      strcpy(path + dn, inc);
      if (access(path, F_OK) != 0 && access(inc, F_OK) == 0) {
        free(path);
        path = NULL;
      }
    }
    int ierr = pp_read_file(path ? path : inc, path ? path : inc, lx->src, lx->dim, lx->out, lx, name->line);
    free(path);
    return ierr;
  }
  pp_list *l = lx->out;
  if (l->n == l->cap) {
    int cap = l->cap ? 2 * l->cap : 32;
    pp_entry *items = cap > l->cap ? realloc(l->items, (size_t)cap * sizeof *items) : NULL;
    BF_CHECK(items != NULL, BF_ERROR_MEMORY, "out of memory reading %.300s", lx->src->origin);
    l->items = items, l->cap = cap;
  }
  pp_entry *en = &l->items[l->n];
  memset(en, 0, sizeof *en);
  en->values = calloc((size_t)nvals + 1, sizeof(char *));
  en->file = pp_strndup(lx->src->origin, strlen(lx->src->origin));
  if (!en->values || !en->file) {
    pp_entry_free(en);
    BF_ERROR(BF_ERROR_MEMORY, "out of memory reading %.300s", lx->src->origin);
  }
  en->name = name->text, name->text = NULL;
  for (int k = 0; k < nvals; ++k) en->values[k] = vals[k].text, vals[k].text = NULL;
  en->nvalues = nvals;
  en->line = name->line;
  en->type = BF_PP_TEXT;
  en->fragment = -1;
  ++l->n;
  return BF_SUCCESS;
}

static bool pp_valid_name(const pp_token *t) { return t->kind == T_NAME; }

static int pp_parse(pp_lexer *lx) {
  pp_token name = {0, 0, 0, NULL}, tok = {0, 0, 0, NULL};
  pp_token *vals = NULL;
  int nvals = 0, cap = 0, ierr = BF_SUCCESS;
  bool have_name = false, have_eq = false;
  for (;;) {
    if ((ierr = pp_next_token(lx, &tok))) break;
    if (tok.kind == T_VALUE || tok.kind == T_NAME) {
      if (!have_name) {
        if (tok.kind != T_NAME) {
          ierr = pp_syntax(lx, tok.line, "'%.100s' is not a parameter name (names start with a letter)%s", tok.text, NULL);
          break;
        }
        name = tok, tok.text = NULL, have_name = true;
        continue;
      }
      if (!have_eq) {
        ierr = pp_syntax(lx, tok.line, "expected '=' after %.100s%s", name.text, NULL);
        break;
      }
      if (nvals == cap) {
        cap = cap ? 2 * cap : 8;
        pp_token *v = realloc(vals, (size_t)cap * sizeof *v);
        if (!v) {
          ierr = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory reading %.300s", lx->src->origin);
          break;
        }
        vals = v;
      }
      vals[nvals++] = tok, tok.text = NULL;
      continue;
    }
    if (tok.kind == T_EQ) {
      if (!have_name) {
        ierr = pp_syntax(lx, tok.line, "'=' without a parameter name before it%s%s", NULL, NULL);
        break;
      }
      if (!have_eq) {
        have_eq = true;
        continue;
      }
      /* "a = 1 2 b = 3": the last value read is the next name */
      if (nvals == 0) {
        ierr = pp_syntax(lx, tok.line, "unexpected '=' (no value for %.100s)%s", name.text, NULL);
        break;
      }
      pp_token next = vals[--nvals];
      if (nvals == 0) {
        ierr = pp_syntax(lx, name.line, "%.100s = has no value%s", name.text, NULL);
        free(next.text);
        break;
      }
      if (!pp_valid_name(&next)) {
        ierr = pp_syntax(lx, next.line, "'%.100s' is not a parameter name (names start with a letter)%s", next.text, NULL);
        free(next.text);
        break;
      }
      for (int k = 1; k < nvals && !ierr; ++k)
        if (vals[k].linefeeds > 0)
          ierr = pp_syntax(lx, vals[k].line, "a new line in the values of %.100s: end the line with \\ to continue it%s",
                           name.text, NULL);
      if (!ierr && vals[0].linefeeds > 0)
        ierr = pp_syntax(lx, name.line, "%.100s = has no value on its line%s", name.text, NULL);
      if (!ierr) ierr = pp_define(lx, &name, vals, nvals);
      if (ierr) {
        free(next.text);
        break;
      }
      free(name.text);
      for (int k = 0; k < nvals; ++k) free(vals[k].text);
      nvals = 0;
      name = next;
      continue;
    }
    /* T_EOF */
    if (have_name) {
      if (!have_eq) ierr = pp_syntax(lx, name.line, "expected '=' after %.100s%s", name.text, NULL);
      else if (nvals == 0) ierr = pp_syntax(lx, name.line, "%.100s = has no value%s", name.text, NULL);
      for (int k = 1; k < nvals && !ierr; ++k)
        if (vals[k].linefeeds > 0)
          ierr = pp_syntax(lx, vals[k].line, "a new line in the values of %.100s: end the line with \\ to continue it%s",
                           name.text, NULL);
      if (!ierr && vals[0].linefeeds > 0)
        ierr = pp_syntax(lx, name.line, "%.100s = has no value on its line%s", name.text, NULL);
      if (!ierr) ierr = pp_define(lx, &name, vals, nvals);
    }
    break;
  }
  free(tok.text);
  free(name.text);
  for (int k = 0; k < nvals; ++k) free(vals[k].text);
  free(vals);
  return ierr;
}

/* Check, preprocess and parse `text` (modified in place) from `src`. */
static int pp_parse_text(char *text, size_t len, const pp_source *src, int dim, pp_list *out) {
  pp_lexer lx = {text, 1, src, dim, out};
  pp_work += 2 * (int64_t)len;
  const char *nul = memchr(text, '\0', len);
  if (nul) return pp_syntax(&lx, pp_line_of(text, (size_t)(nul - text)), "a NUL byte: not a text file%s%s", NULL, NULL);
  long bad = pp_utf8_bad((const unsigned char *)text, len);
  if (bad >= 0) return pp_syntax(&lx, pp_line_of(text, (size_t)bad), "bytes that are not UTF-8 text%s%s", NULL, NULL);
  BF_CALL(pp_preprocess(&lx, text));
  return pp_parse(&lx);
}

/* Files read by one addfile / add_text / token (reset there), includes counted each time: bounds
 * the fan-out of a file that includes another twice, which includes another twice, ... (2^depth
 * files otherwise). */
static long pp_files_read;

static int pp_read_file(const char *path, const char *display, const pp_source *parent, int dim, pp_list *out,
                        const pp_lexer *includer, int include_line) {
  char where[400] = "";
  if (includer) snprintf(where, sizeof where, "%.300s:%d: ", includer->src->origin, include_line);
  BF_CHECK(path && path[0], BF_ERROR_IO, "%sno file name given", where);
  int depth = parent ? parent->depth + 1 : 0;
  BF_CHECK(depth <= PP_MAX_INCLUDE_DEPTH, BF_ERROR_VALUE, "%sFILE includes nested more than %d deep", where,
           PP_MAX_INCLUDE_DEPTH);
  BF_CHECK(++pp_files_read <= PP_MAX_FILES_READ, BF_ERROR_VALUE,
           "%smore than %d inputs files read by one addfile (FILE includes repeat)", where, (int)PP_MAX_FILES_READ);
  FILE *f = bf_fopen_rb(path);
  BF_CHECK(f != NULL, BF_ERROR_IO, "%scannot read inputs file %.300s: %s", where, path, strerror(errno));
  struct stat st;
  if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
    fclose(f);
    BF_ERROR(BF_ERROR_IO, "%scannot read inputs file %.300s: not a regular file", where, path);
  }
  if ((long long)st.st_size > PP_MAX_FILE_BYTES) {
    fclose(f);
    BF_ERROR(BF_ERROR_VALUE, "%.300s:1: larger than %lld bytes: not an inputs file", path, PP_MAX_FILE_BYTES);
  }
  char *real = realpath(path, NULL);
  for (const pp_source *s = parent; s && real; s = s->parent)
    if (s->real && !strcmp(s->real, real)) {
      free(real);
      fclose(f);
      BF_ERROR(BF_ERROR_VALUE, "%sFILE = %.300s includes a file that is being read (an include cycle)", where, path);
    }
  size_t size = (size_t)st.st_size;
  char *text = malloc(size + 1);
  if (!text) {
    free(real);
    fclose(f);
    BF_ERROR(BF_ERROR_MEMORY, "out of memory reading %.300s", path);
  }
  size_t got = fread(text, 1, size, f);
  int rerr = ferror(f);
  fclose(f);
  if (rerr || got != size) {
    free(real), free(text);
    BF_ERROR(BF_ERROR_IO, "%scannot read inputs file %.300s: read error", where, path);
  }
  text[size] = '\0';
  pp_source src = {display, real ? real : pp_strndup(path, strlen(path)), parent, depth};
  int ierr = src.real ? pp_parse_text(text, size, &src, dim, out)
                      : bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory reading %.300s", path);
  free(src.real);
  free(text);
  return ierr;
}

/* Put the definitions into the table, all or (on an error, before or here) none. */
static int pp_commit(pp_list *l, int ierr) {
  if (!ierr) ierr = pp_table_reserve(l->n); /* then no put of a new name can fail */
  for (int i = 0; !ierr && i < l->n; ++i) ierr = pp_table_put(&l->items[i]);
  pp_list_free(l);
  return ierr;
}

int bf_parmparse_add_file(const char *path, int dim) {
  BF_CHECK(dim >= 0 && dim <= BF_SPACEDIM_MAX, BF_ERROR_VALUE, "dimension must be 0 to 3, got %d", dim);
  BF_CHECK(path != NULL, BF_ERROR_VALUE, "path must not be NULL");
  pp_list l = {NULL, 0, 0};
  pp_files_read = 0;
  return pp_commit(&l, pp_read_file(path, path, NULL, dim, &l, NULL, 0));
}

int bf_parmparse_add_text(const char *text, const char *origin, int dim) {
  BF_CHECK(dim >= 0 && dim <= BF_SPACEDIM_MAX, BF_ERROR_VALUE, "dimension must be 0 to 3, got %d", dim);
  BF_CHECK(text != NULL, BF_ERROR_VALUE, "text must not be NULL");
  size_t n = strlen(text);
  char *copy = pp_strndup(text, n);
  BF_CHECK(copy != NULL, BF_ERROR_MEMORY, "out of memory parsing parameters");
  pp_source src = {origin ? origin : "<text>", NULL, NULL, 0};
  pp_list l = {NULL, 0, 0};
  pp_files_read = 0;
  int ierr = pp_parse_text(copy, n, &src, dim, &l);
  free(copy);
  return pp_commit(&l, ierr);
}

/* ---- "key=value" tokens (bf_runtime_initialize) ----------------------------------
 * Read as AMReX reads its command line (the arguments joined and read as an inputs text): quotes,
 * parentheses, comments and FILE includes as in a file, with the dimension of the space module that
 * initializes (a FILE = inputs token reads the file's #if AMREX_SPACEDIM blocks as addfile would). */
static int pp_parse_token(const char *token, int dim, pp_list *l) {
  BF_CHECK(dim >= 0 && dim <= BF_SPACEDIM_MAX, BF_ERROR_VALUE, "dimension must be 0 to 3, got %d", dim);
  BF_CHECK(token != NULL, BF_ERROR_VALUE, "parameter token is NULL");
  const char *eq = strchr(token, '=');
  BF_CHECK(eq != NULL, BF_ERROR_VALUE, "expected \"key=value\", got \"%.200s\"", token);
  const char *k = token;
  while (k < eq && pp_isspace(*k)) ++k;
  BF_CHECK(k < eq, BF_ERROR_VALUE, "empty key in \"%.200s\"", token);
  const char *v = eq + 1;
  while (*v && pp_isspace(*v)) ++v;
  BF_CHECK(*v, BF_ERROR_VALUE, "no value given in \"%.200s\"", token);
  /* a token that is a comment or a namelist from its start would define nothing, without a word
   * ("#a=1": AMReX's joined command line would comment out every token after it as well) */
  const char *e = strchr(k, '\n');
  bool truth;
  BF_CHECK(*k != '&' && (*k != '#' || pp_directive(k, e ? e : k + strlen(k), dim ? dim : 3, &truth)), BF_ERROR_VALUE,
           "the token \"%.200s\" starts with '%c': it is a %s and defines nothing", token, *k,
           *k == '#' ? "comment" : "Fortran namelist");
  size_t n = strlen(token);
  char *copy = pp_strndup(token, n);
  BF_CHECK(copy != NULL, BF_ERROR_MEMORY, "out of memory parsing \"%.200s\"", token);
  pp_source src = {"<initialize>", NULL, NULL, 0};
  pp_files_read = 0;
  int ierr = pp_parse_text(copy, n, &src, dim, l);
  free(copy);
  return ierr;
}

int bf_parmparse_check_token_dim(const char *token, int dim) {
  pp_list l = {NULL, 0, 0};
  int ierr = pp_parse_token(token, dim, &l);
  pp_list_free(&l);
  return ierr;
}

int bf_parmparse_add_token_dim(const char *token, int dim) {
  pp_list l = {NULL, 0, 0};
  return pp_commit(&l, pp_parse_token(token, dim, &l));
}

int bf_parmparse_check_token(const char *token) { return bf_parmparse_check_token_dim(token, 0); }

int bf_parmparse_add_token(const char *token) { return bf_parmparse_add_token_dim(token, 0); }
