/* Expressions in parameter values, as AMReX's ParmParse evaluates them: a
 * value that does not read as a number is handed to AMReX's Parser (reals,
 * double arithmetic) or IParser (ints, 64-bit integer arithmetic).  The
 * grammar (AMReX's amrex_parser.y / amrex_iparser.y, lowest first):
 *   or < and < == != < < > <= >= < + - < * / (ints: //) < unary + - < ^ ** (right)
 * primaries: numbers, names of other parameters (their value 0, evaluated the
 * same way), ( ), and the functions below.  A recursive descent evaluator;
 * where AMReX crashes or wraps (int division by zero, int overflow, deep
 * nesting) boxfab reports an error. */
#define _XOPEN_SOURCE 700 /* jn() */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params/impl.h"

enum { PP_MAX_NESTING = 100, PP_MAX_REFS = 32 };

enum {
  F_SQRT, F_EXP, F_LOG, F_LOG10, F_SIN, F_COS, F_TAN, F_ASIN, F_ACOS, F_ATAN, F_SINH, F_COSH, F_TANH, F_ASINH,
  F_ACOSH, F_ATANH, F_ABS, F_FLOOR, F_CEIL, F_ELLINT1, F_ELLINT2, F_ERF, /* one argument */
  F_POW, F_ATAN2, F_HEAVISIDE, F_JN, F_MIN, F_MAX, F_FMOD,               /* two */
  F_IF                                                                   /* three */
};

typedef struct {
  const char *name;
  int id, nargs;
  bool in_int; /* also in IParser */
} pp_func;

static const pp_func pp_funcs[] = {
    {"sqrt", F_SQRT, 1, false},   {"exp", F_EXP, 1, false},     {"log", F_LOG, 1, false},
    {"log10", F_LOG10, 1, false}, {"sin", F_SIN, 1, false},     {"cos", F_COS, 1, false},
    {"tan", F_TAN, 1, false},     {"asin", F_ASIN, 1, false},   {"acos", F_ACOS, 1, false},
    {"atan", F_ATAN, 1, false},   {"sinh", F_SINH, 1, false},   {"cosh", F_COSH, 1, false},
    {"tanh", F_TANH, 1, false},   {"asinh", F_ASINH, 1, false}, {"acosh", F_ACOSH, 1, false},
    {"atanh", F_ATANH, 1, false}, {"abs", F_ABS, 1, true},      {"fabs", F_ABS, 1, false},
    {"iabs", F_ABS, 1, true},     {"floor", F_FLOOR, 1, false}, {"ceil", F_CEIL, 1, false},
    {"comp_ellint_1", F_ELLINT1, 1, false}, {"comp_ellint_2", F_ELLINT2, 1, false},
    {"erf", F_ERF, 1, false},     {"pow", F_POW, 2, false},     {"atan2", F_ATAN2, 2, false},
    {"heaviside", F_HEAVISIDE, 2, false}, {"jn", F_JN, 2, false}, {"min", F_MIN, 2, true},
    {"max", F_MAX, 2, true},      {"fmod", F_FMOD, 2, false},   {"if", F_IF, 3, true},
};

typedef struct {
  double r;
  int64_t i;
} pp_val;

typedef struct {
  const char *src, *p;
  const char *name; /* the parameter evaluated (messages) */
  bool is_int;
  int dead;  /* > 0 inside the branch of if() not taken: no arithmetic errors */
  int err;
} pp_parser;

/* Names being evaluated (recursion check), and the nesting depth summed over
 * the parameters evaluated inside each other (bounds the C stack). */
static const char *pp_refs[PP_MAX_REFS];
static int pp_nrefs;
static int pp_depth;
/* Number of the outermost evaluation running: names evaluated inside it keep their value in their
 * entry for it (pp_entry.memo_*), since the table cannot change during an evaluation. */
static uint64_t pp_epoch;
static int pp_running; /* evaluations running, nested in each other */

static int pp_fail(pp_parser *ps, int code, const char *fmt, const char *arg) {
  if (ps->err) return ps->err;
  char what[200];
  snprintf(what, sizeof what, fmt, arg ? arg : "");
  char where[300] = "";
  if (ps->name) pp_where(ps->name, where, sizeof where);
  ps->err = bf_error_set(code, __func__, "%s%.200s%s%s\"%.200s\" is not %s (as an expression: %s, at column %d)",
                         ps->name ? "parameter " : "", ps->name ? ps->name : "", where, ps->name ? ": " : "",
                         ps->src, ps->is_int ? "an int" : "a real number", what, (int)(ps->p - ps->src) + 1);
  return ps->err;
}

static void pp_skip_space(pp_parser *ps) {
  for (;;) {
    if (*ps->p == ' ' || *ps->p == '\t') ++ps->p;
    else if (ps->p[0] == '\\' && ps->p[1] == '\n') ps->p += 2;
    else if (!ps->is_int && ps->p[0] == '/' && ps->p[1] == '/') ps->p += strlen(ps->p); /* a comment */
    else break;
  }
}

/* Does the input continue with `tok` (then consume it)? */
static bool pp_accept(pp_parser *ps, const char *tok) {
  pp_skip_space(ps);
  size_t n = strlen(tok);
  if (strncmp(ps->p, tok, n) != 0) return false;
  if (isalpha((unsigned char)tok[0]) && (isalnum((unsigned char)ps->p[n]) || ps->p[n] == '_' || ps->p[n] == '.'))
    return false; /* "and" in "android" */
  ps->p += n;
  return true;
}

static int pp_expect(pp_parser *ps, const char *tok) {
  if (pp_accept(ps, tok)) return 0;
  return pp_fail(ps, BF_ERROR_VALUE, "expected '%s'", tok);
}

static int pp_expr(pp_parser *ps, pp_val *v);

static bool pp_enter(pp_parser *ps) {
  if (pp_depth >= PP_MAX_NESTING) {
    pp_fail(ps, BF_ERROR_VALUE, "nested too deeply%s", NULL);
    return false;
  }
  ++pp_depth;
  return true;
}

/* ---- numbers ---------------------------------------------------------------- */
static int pp_number(pp_parser *ps, pp_val *v) {
  const char *s = ps->p, *q = s;
  char buf[400];
  size_t n = 0;
  bool dot = false, expo = false;
  int ex = 0;
  while (isdigit((unsigned char)*q) || (ps->is_int && *q == '\'' && q > s)) {
    if (*q != '\'' && n < sizeof buf - 1) buf[n++] = *q;
    ++q;
  }
  if (*q == '.') {
    dot = true;
    if (n < sizeof buf - 1) buf[n++] = '.';
    ++q;
    while (isdigit((unsigned char)*q)) {
      if (n < sizeof buf - 1) buf[n++] = *q;
      ++q;
    }
  }
  size_t mant_end = n;
  if ((*q == 'e' || *q == 'E') &&
      (isdigit((unsigned char)q[1]) || ((q[1] == '+' || q[1] == '-') && isdigit((unsigned char)q[2])))) {
    expo = true;
    const char *e = q + 1;
    errno = 0;
    long x = strtol(e, NULL, 10);
    ex = (errno == ERANGE || x > 100000) ? 100000 : x < -100000 ? -100000 : (int)x;
    if (n < sizeof buf - 1) buf[n++] = 'e';
    ++q;
    while (*q == '+' || *q == '-' || isdigit((unsigned char)*q)) {
      if (n < sizeof buf - 1) buf[n++] = *q;
      ++q;
    }
  }
  buf[n] = '\0';
  if (n >= sizeof buf - 1) return pp_fail(ps, BF_ERROR_VALUE, "number too long", NULL);
  ps->p = q;
  if (!ps->is_int) {
    v->r = strtod(buf, NULL);
    return 0;
  }
  /* IParser: digits, optionally "." and an exponent that makes it whole */
  char digits[400];
  size_t nd = 0, frac = 0;
  bool in_frac = false;
  for (size_t k = 0; k < mant_end; ++k) {
    if (buf[k] == '.') {
      in_frac = true;
      continue;
    }
    digits[nd++] = buf[k];
    frac += in_frac;
  }
  long shift = (long)ex - (long)frac;
  if ((dot && !expo && frac > 0) || shift < 0)
    return pp_fail(ps, BF_ERROR_VALUE, "%s is not an integer", buf);
  int64_t r = 0;
  for (size_t k = 0; k < nd; ++k)
    if (__builtin_mul_overflow(r, 10, &r) || __builtin_add_overflow(r, digits[k] - '0', &r))
      return pp_fail(ps, BF_ERROR_OVERFLOW, "%s does not fit in a 64-bit integer", buf);
  for (long k = 0; k < shift && r != 0; ++k)
    if (__builtin_mul_overflow(r, 10, &r))
      return pp_fail(ps, BF_ERROR_OVERFLOW, "%s does not fit in a 64-bit integer", buf);
  v->i = r;
  return 0;
}

/* ---- names of other parameters ------------------------------------------------ */
static int pp_symbol(pp_parser *ps, const char *sym, pp_val *v) {
  ++pp_work;
  for (int k = 0; k < pp_nrefs; ++k)
    if (!strcmp(pp_refs[k], sym)) return pp_fail(ps, BF_ERROR_VALUE, "recursive reference to %s", sym);
  pp_entry *e = pp_entry_of(sym);
  if (!e) return pp_fail(ps, BF_ERROR_VALUE, "unknown name %s", sym);
  if (e->memo_epoch == pp_epoch && e->memo_int == ps->is_int) {
    if (ps->is_int) v->i = e->memo_i;
    else v->r = e->memo_r;
    return 0;
  }
  bool found = false;
  int ierr = ps->is_int ? bf_parmparse_query_int64(sym, 0, &found, &v->i) : bf_parmparse_query_real(sym, 0, &found, &v->r);
  if (ierr) return ps->err = ierr; /* the inner message names the inner parameter */
  e = pp_entry_of(sym); /* the same entry: reads do not change the table */
  if (e) e->memo_epoch = pp_epoch, e->memo_int = ps->is_int, e->memo_i = v->i, e->memo_r = v->r;
  return 0;
}

/* ---- functions -------------------------------------------------------------- */
static double pp_ellint(double k, bool second) {
  if (fabs(k) > 1) return NAN;
  if (fabs(k) == 1) return second ? 1.0 : INFINITY;
  double a = 1, b = sqrt(1 - k * k), c = k, s = 0.5 * k * k, p = 0.5;
  for (int n = 0; n < 64 && fabs(c) > 1e-17 * a; ++n) {
    double an = 0.5 * (a + b);
    c = 0.5 * (a - b);
    b = sqrt(a * b);
    a = an;
    p *= 2;
    s += p * c * c;
  }
  double K = 3.14159265358979323846 / (2 * a);
  return second ? K * (1 - s) : K;
}

static int pp_apply(pp_parser *ps, int f, const pp_val *a, pp_val *v) {
  if (ps->is_int) {
    int64_t x = a[0].i, y = a[1].i;
    switch (f) {
    case F_ABS:
      if (x == INT64_MIN && !ps->dead) return pp_fail(ps, BF_ERROR_OVERFLOW, "abs overflows", NULL);
      v->i = x < 0 ? -x : x;
      break;
    case F_MIN: v->i = x < y ? x : y; break;
    case F_MAX: v->i = x > y ? x : y; break;
    default: v->i = 0; break;
    }
    return 0;
  }
  double x = a[0].r, y = a[1].r;
  switch (f) {
  case F_SQRT: v->r = sqrt(x); break;
  case F_EXP: v->r = exp(x); break;
  case F_LOG: v->r = log(x); break;
  case F_LOG10: v->r = log10(x); break;
  case F_SIN: v->r = sin(x); break;
  case F_COS: v->r = cos(x); break;
  case F_TAN: v->r = tan(x); break;
  case F_ASIN: v->r = asin(x); break;
  case F_ACOS: v->r = acos(x); break;
  case F_ATAN: v->r = atan(x); break;
  case F_SINH: v->r = sinh(x); break;
  case F_COSH: v->r = cosh(x); break;
  case F_TANH: v->r = tanh(x); break;
  case F_ASINH: v->r = asinh(x); break;
  case F_ACOSH: v->r = acosh(x); break;
  case F_ATANH: v->r = atanh(x); break;
  case F_ABS: v->r = fabs(x); break;
  case F_FLOOR: v->r = floor(x); break;
  case F_CEIL: v->r = ceil(x); break;
  case F_ELLINT1: v->r = pp_ellint(x, false); break;
  case F_ELLINT2: v->r = pp_ellint(x, true); break;
  case F_ERF: v->r = erf(x); break;
  case F_POW: v->r = pow(x, y); break;
  case F_ATAN2: v->r = atan2(x, y); break;
  case F_HEAVISIDE: v->r = x < 0 ? 0.0 : x > 0 ? 1.0 : y; break;
  case F_JN:
    if (!(x >= -1e6 && x <= 1e6) && !ps->dead) return pp_fail(ps, BF_ERROR_VALUE, "jn: order out of range", NULL);
    v->r = (x >= -1e6 && x <= 1e6) ? jn((int)x, y) : NAN;
    break;
  case F_MIN: v->r = x < y ? x : y; break;
  case F_MAX: v->r = x > y ? x : y; break;
  case F_FMOD: v->r = fmod(x, y); break;
  default: v->r = 0; break;
  }
  return 0;
}

static bool pp_truth(const pp_parser *ps, const pp_val *v) { return ps->is_int ? v->i != 0 : v->r != 0.0; }

static int pp_call(pp_parser *ps, const pp_func *f, pp_val *v) {
  pp_val a[3] = {{0, 0}, {0, 0}, {0, 0}};
  if (pp_expect(ps, "(")) return ps->err;
  if (f->id == F_IF) { /* the branch not taken is checked, not evaluated */
    if (pp_expr(ps, &a[0]) || pp_expect(ps, ",")) return ps->err;
    bool c = pp_truth(ps, &a[0]);
    ps->dead += !c;
    if (pp_expr(ps, &a[1])) return ps->err;
    ps->dead -= !c;
    if (pp_expect(ps, ",")) return ps->err;
    ps->dead += c;
    if (pp_expr(ps, &a[2])) return ps->err;
    ps->dead -= c;
    if (pp_expect(ps, ")")) return ps->err;
    *v = c ? a[1] : a[2];
    return 0;
  }
  for (int k = 0; k < f->nargs; ++k) {
    if (k && pp_expect(ps, ",")) return ps->err;
    if (pp_expr(ps, &a[k])) return ps->err;
  }
  if (pp_expect(ps, ")")) return ps->err;
  return pp_apply(ps, f->id, a, v);
}

/* ---- the grammar -------------------------------------------------------------- */
static int pp_unary(pp_parser *ps, pp_val *v);

static int pp_primary(pp_parser *ps, pp_val *v) {
  pp_skip_space(ps);
  char c = *ps->p;
  if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)ps->p[1]))) return pp_number(ps, v);
  if (c == '(') {
    ++ps->p;
    if (pp_expr(ps, v)) return ps->err;
    return pp_expect(ps, ")");
  }
  if (isalpha((unsigned char)c) || c == '_') {
    const char *s = ps->p;
    while (isalnum((unsigned char)*ps->p) || *ps->p == '_' || *ps->p == '.') ++ps->p;
    size_t n = (size_t)(ps->p - s);
    char sym[256];
    if (n >= sizeof sym) return pp_fail(ps, BF_ERROR_VALUE, "name too long", NULL);
    memcpy(sym, s, n);
    sym[n] = '\0';
    for (size_t k = 0; k < sizeof pp_funcs / sizeof pp_funcs[0]; ++k)
      if (!strcmp(pp_funcs[k].name, sym) && (!ps->is_int || pp_funcs[k].in_int)) return pp_call(ps, &pp_funcs[k], v);
    if (!strcmp(sym, "and") || !strcmp(sym, "or")) {
      ps->p = s;
      return pp_fail(ps, BF_ERROR_VALUE, "unexpected '%s'", sym);
    }
    return pp_symbol(ps, sym, v);
  }
  if (c == '\0') return pp_fail(ps, BF_ERROR_VALUE, "unexpected end%s", NULL);
  char t[8];
  snprintf(t, sizeof t, "%c", c);
  return pp_fail(ps, BF_ERROR_VALUE, isprint((unsigned char)c) ? "unexpected '%s'" : "unexpected character", t);
}

static int pp_power(pp_parser *ps, pp_val *v) {
  if (pp_primary(ps, v)) return ps->err;
  if (!(pp_accept(ps, "**") || pp_accept(ps, "^"))) return 0;
  pp_val e = {0, 0};
  if (pp_unary(ps, &e)) return ps->err; /* right associative; 2^-1 */
  if (!ps->is_int) {
    v->r = pow(v->r, e.r);
    return 0;
  }
  /* IParser: a negative exponent gives 0 */
  int64_t base = v->i, ex = e.i, r = 1;
  if (ex < 0) {
    v->i = 0;
    return 0;
  }
  while (ex > 0) {
    if ((ex & 1) && __builtin_mul_overflow(r, base, &r)) goto overflow;
    ex >>= 1;
    if (ex > 0 && __builtin_mul_overflow(base, base, &base)) goto overflow;
  }
  v->i = r;
  return 0;
overflow:
  v->i = 0;
  return ps->dead ? 0 : pp_fail(ps, BF_ERROR_OVERFLOW, "integer overflow in ^%s", NULL);
}

static int pp_unary(pp_parser *ps, pp_val *v) {
  if (!pp_enter(ps)) return ps->err;
  int r;
  pp_skip_space(ps);
  if (*ps->p == '-' || *ps->p == '+') {
    bool neg = *ps->p++ == '-';
    r = pp_unary(ps, v);
    if (!r && neg) {
      if (ps->is_int) {
        if (v->i == INT64_MIN && !ps->dead) r = pp_fail(ps, BF_ERROR_OVERFLOW, "integer overflow in -%s", NULL);
        else v->i = v->i == INT64_MIN ? 0 : -v->i;
      } else {
        v->r = -v->r;
      }
    }
  } else {
    r = pp_power(ps, v);
  }
  --pp_depth;
  return r;
}

static int pp_mul(pp_parser *ps, pp_val *v) {
  if (pp_unary(ps, v)) return ps->err;
  for (;;) {
    int op;
    if (ps->is_int && pp_accept(ps, "//")) op = 'f';
    else if (pp_accept(ps, "**") || pp_accept(ps, "^")) return pp_fail(ps, BF_ERROR_VALUE, "misplaced power%s", NULL);
    else if (pp_accept(ps, "*")) op = '*';
    else if (pp_accept(ps, "/")) op = '/';
    else return 0;
    pp_val w = {0, 0};
    if (pp_unary(ps, &w)) return ps->err;
    if (!ps->is_int) {
      v->r = op == '*' ? v->r * w.r : v->r / w.r;
      continue;
    }
    int64_t a = v->i, b = w.i;
    if (op == '*') {
      if (__builtin_mul_overflow(a, b, &v->i) && !ps->dead)
        return pp_fail(ps, BF_ERROR_OVERFLOW, "integer overflow in *%s", NULL);
      continue;
    }
    if (b == 0 || (a == INT64_MIN && b == -1)) {
      if (!ps->dead)
        return pp_fail(ps, b == 0 ? BF_ERROR_VALUE : BF_ERROR_OVERFLOW,
                       b == 0 ? "integer division by zero%s" : "integer overflow in /%s", NULL);
      v->i = 0;
      continue;
    }
    int64_t q = a / b;
    if (op == 'f' && q * b != a && ((a < 0) != (b < 0))) --q; /* floor division */
    v->i = q;
  }
}

static int pp_add(pp_parser *ps, pp_val *v) {
  if (pp_mul(ps, v)) return ps->err;
  for (;;) {
    int op;
    if (pp_accept(ps, "+")) op = '+';
    else if (pp_accept(ps, "-")) op = '-';
    else return 0;
    pp_val w = {0, 0};
    if (pp_mul(ps, &w)) return ps->err;
    if (!ps->is_int) v->r = op == '+' ? v->r + w.r : v->r - w.r;
    else if ((op == '+' ? __builtin_add_overflow(v->i, w.i, &v->i) : __builtin_sub_overflow(v->i, w.i, &v->i)) &&
             !ps->dead)
      return pp_fail(ps, BF_ERROR_OVERFLOW, "integer overflow in %s", op == '+' ? "+" : "-");
  }
}

static int pp_compare(pp_parser *ps, pp_val *v, int level) {
  /* level 0: == !=, level 1: < > <= >= */
  if (level == 0 ? pp_compare(ps, v, 1) : pp_add(ps, v)) return ps->err;
  for (;;) {
    const char *op = NULL;
    static const char *const ops0[] = {"==", "!="}, *const ops1[] = {"<=", ">=", "<", ">"};
    const char *const *ops = level == 0 ? ops0 : ops1;
    int nops = level == 0 ? 2 : 4;
    for (int k = 0; k < nops && !op; ++k)
      if (pp_accept(ps, ops[k])) op = ops[k];
    if (!op) return 0;
    pp_val w = {0, 0};
    if (level == 0 ? pp_compare(ps, &w, 1) : pp_add(ps, &w)) return ps->err;
    bool r;
    double a = ps->is_int ? (double)v->i : v->r, b = ps->is_int ? (double)w.i : w.r;
    if (ps->is_int) { /* exact for 64-bit ints */
      int64_t x = v->i, y = w.i;
      r = !strcmp(op, "==") ? x == y : !strcmp(op, "!=") ? x != y : !strcmp(op, "<=") ? x <= y
        : !strcmp(op, ">=") ? x >= y : !strcmp(op, "<") ? x < y : x > y;
    } else {
      r = !strcmp(op, "==") ? a == b : !strcmp(op, "!=") ? a != b : !strcmp(op, "<=") ? a <= b
        : !strcmp(op, ">=") ? a >= b : !strcmp(op, "<") ? a < b : a > b;
    }
    v->i = r;
    v->r = r;
  }
}

static int pp_logic(pp_parser *ps, pp_val *v, bool is_or) {
  if (is_or ? pp_logic(ps, v, false) : pp_compare(ps, v, 0)) return ps->err;
  while (pp_accept(ps, is_or ? "or" : "and")) {
    pp_val w = {0, 0};
    if (is_or ? pp_logic(ps, &w, false) : pp_compare(ps, &w, 0)) return ps->err;
    bool a = pp_truth(ps, v), b = pp_truth(ps, &w);
    bool r = is_or ? (a || b) : (a && b);
    v->i = r;
    v->r = r;
  }
  return 0;
}

static int pp_expr(pp_parser *ps, pp_val *v) {
  if (!pp_enter(ps)) return ps->err;
  int r = pp_logic(ps, v, true);
  --pp_depth;
  return r;
}

static int pp_eval(const char *expr, const char *name, bool is_int, pp_val *v) {
  BF_CHECK(expr != NULL, BF_ERROR_VALUE, "expression is NULL");
  if (name) {
    for (int k = 0; k < pp_nrefs; ++k)
      BF_CHECK(strcmp(pp_refs[k], name) != 0, BF_ERROR_VALUE, "parameter %.200s refers to itself", name);
    BF_CHECK(pp_nrefs < PP_MAX_REFS, BF_ERROR_VALUE,
             "parameter %.200s: more than %d parameters refer to each other in a chain", name, PP_MAX_REFS);
    pp_refs[pp_nrefs++] = name;
  }
  if (pp_running++ == 0) ++pp_epoch; /* an outermost evaluation: the memos of earlier ones are stale */
  pp_parser ps = {expr, expr, name, is_int, 0, 0};
  int ierr = pp_expr(&ps, v);
  if (!ierr) {
    pp_skip_space(&ps);
    if (*ps.p) {
      char t[8];
      snprintf(t, sizeof t, "%c", *ps.p);
      ierr = pp_fail(&ps, BF_ERROR_VALUE, isprint((unsigned char)*ps.p) ? "unexpected '%s'" : "unexpected character",
                     t);
    }
  }
  --pp_running;
  if (name) --pp_nrefs;
  return ierr;
}

int pp_eval_real(const char *expr, const char *name, double *out) {
  pp_val v = {0, 0};
  BF_CALL(pp_eval(expr, name, false, &v));
  *out = v.r;
  return BF_SUCCESS;
}

int pp_eval_int(const char *expr, const char *name, int64_t *out) {
  pp_val v = {0, 0};
  BF_CALL(pp_eval(expr, name, true, &v));
  *out = v.i;
  return BF_SUCCESS;
}

int bf_parmparse_eval_real(const char *expr, double *out) {
  BF_CHECK(out != NULL, BF_ERROR_VALUE, "out must not be NULL");
  return pp_eval_real(expr, NULL, out);
}

int bf_parmparse_eval_int(const char *expr, int64_t *out) {
  BF_CHECK(out != NULL, BF_ERROR_VALUE, "out must not be NULL");
  return pp_eval_int(expr, NULL, out);
}
