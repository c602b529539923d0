/* The parameter store's inputs parser, typed reads and expressions
 * (src/core/params/), run plain and under ASan/UBSan. */
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bftest.h"

static char tmpdir[64];

static void write_file(const char *name, const char *text, size_t n) {
  char path[256];
  snprintf(path, sizeof path, "%s/%s", tmpdir, name);
  FILE *f = fopen(path, "wb");
  if (!f) {
    perror(path);
    exit(2);
  }
  fwrite(text, 1, n, f);
  fclose(f);
}

static const char *path_of(const char *name) {
  static char path[256];
  snprintf(path, sizeof path, "%s/%s", tmpdir, name);
  return path;
}

static bool msg_has(const char *s) { return strstr(bf_error_message(), s) != NULL; }

/* The call fails with `code` and its message contains `gist`. */
#define FAILS_WITH(call, code, gist)                                                                             \
  do {                                                                                                           \
    bf_error_clear();                                                                                            \
    int s_ = (call);                                                                                             \
    BFT_CHECK(s_ == (code));                                                                                     \
    if (!msg_has(gist)) {                                                                                        \
      ++bft_failures;                                                                                            \
      fprintf(stderr, "%s:%d: message \"%s\" lacks \"%s\"\n", __FILE__, __LINE__, bf_error_message(), gist);     \
    }                                                                                                            \
    bf_error_clear();                                                                                            \
  } while (0)

static int64_t geti(const char *name, int i) {
  bool found = false;
  int64_t v = -12345;
  BFT_OK(bf_parmparse_query_int64(name, i, &found, &v));
  BFT_CHECK(found);
  return v;
}

static double getr(const char *name, int i) {
  bool found = false;
  double v = -12345;
  BFT_OK(bf_parmparse_query_real(name, i, &found, &v));
  BFT_CHECK(found);
  return v;
}

static const char *gets_(const char *name, int i) {
  bool found = false;
  const char *v = "";
  BFT_OK(bf_parmparse_query_string(name, i, &found, &v));
  BFT_CHECK(found);
  return v;
}

static void test_syntax(void) {
  const char *text = "# a comment line\n"
                     "a.b = 1 2 3   # trailing comment\n"
                     "s = \"hello world\" x\n"
                     "c = 4 \\\n"
                     "    5 6\n"
                     "box = ((0,0,0) (7,7,7) (0,0,0))\n"
                     "d = 1 e = 2\n"
                     "a.b = 9\n"
                     "t = a#b\n";
  BFT_OK(bf_parmparse_add_text(text, "t.inputs", 3));
  BFT_CHECK(bf_parmparse_count("a.b") == 1 && geti("a.b", 0) == 9); /* the last definition wins */
  BFT_CHECK(bf_parmparse_count("s") == 2 && !strcmp(gets_("s", 0), "hello world") && !strcmp(gets_("s", 1), "x"));
  BFT_CHECK(bf_parmparse_count("c") == 3 && geti("c", 2) == 6);
  BFT_CHECK(bf_parmparse_count("box") == 1);
  bool found = false;
  bf_box b;
  BFT_OK(bf_parmparse_query_box("box", 0, 3, &found, &b));
  BFT_CHECK(found && b.hi[2] == 7 && b.lo[0] == 0 && b.type == 0);
  BFT_CHECK(geti("d", 0) == 1 && geti("e", 0) == 2);
  BFT_CHECK(!strcmp(gets_("t", 0), "a#b")); /* '#' inside a value is part of it (AMReX) */
  const char *file = NULL;
  int line = 0;
  BFT_OK(bf_parmparse_origin("c", &file, &line));
  BFT_CHECK(file && !strcmp(file, "t.inputs") && line == 4);
  bf_parmparse_clear();
}

static void test_syntax_errors(void) {
  FAILS_WITH(bf_parmparse_add_text("a = 1\nb =\n", "x", 3), BF_ERROR_VALUE, "x:2: b = has no value");
  FAILS_WITH(bf_parmparse_add_text("a = 1\n  2\n", "x", 3), BF_ERROR_VALUE, "x:2: a new line");
  FAILS_WITH(bf_parmparse_add_text("= 1\n", "x", 3), BF_ERROR_VALUE, "x:1: '=' without");
  FAILS_WITH(bf_parmparse_add_text("\n\n5 = 1\n", "x", 3), BF_ERROR_VALUE, "x:3: '5' is not a parameter name");
  FAILS_WITH(bf_parmparse_add_text("a 5\n", "x", 3), BF_ERROR_VALUE, "x:1: expected '='");
  FAILS_WITH(bf_parmparse_add_text("a = \"open\n\n", "x", 3), BF_ERROR_VALUE, "x:1: quoted string");
  FAILS_WITH(bf_parmparse_add_text("a = 1\nb = ((0,0)\n", "x", 3), BF_ERROR_VALUE, "x:2: '(' without");
  FAILS_WITH(bf_parmparse_add_text("a = 1\n\xff\xfe\n", "x", 3), BF_ERROR_VALUE, "x:2: bytes that are not UTF-8");
  FAILS_WITH(bf_parmparse_add_text("a = = 1\n", "x", 3), BF_ERROR_VALUE, "x:1: unexpected '='");
  BFT_CHECK(bf_parmparse_size() == 0); /* a text with an error adds nothing */
  /* a NUL byte in a file */
  write_file("nul", "a = 1\nb = 2\0\n", 13);
  FAILS_WITH(bf_parmparse_add_file(path_of("nul"), 3), BF_ERROR_VALUE, "nul:2: a NUL byte");
  BFT_CHECK(bf_parmparse_size() == 0);
}

static void test_spacedim_blocks(void) {
  const char *text = "#if AMREX_SPACEDIM == 2\nn = 2\n#elif AMREX_SPACEDIM >= 3\nn = 3\n#else\nn = 1\n#endif\nm = 7\n";
  for (int dim = 1; dim <= 3; ++dim) {
    BFT_OK(bf_parmparse_add_text(text, "sd", dim));
    BFT_CHECK(geti("n", 0) == dim && geti("m", 0) == 7);
    bf_parmparse_clear();
  }
  FAILS_WITH(bf_parmparse_add_text(text, "sd", 0), BF_ERROR_VALUE, "sd:1: #if AMREX_SPACEDIM needs the dimension");
  FAILS_WITH(bf_parmparse_add_text("#if AMREX_SPACEDIM == 2\nn = 2\n", "sd", 2), BF_ERROR_VALUE, "sd:1: #if without");
  FAILS_WITH(bf_parmparse_add_text("n = 2\n#endif\n", "sd", 2), BF_ERROR_VALUE, "sd:2: #endif without #if");
  /* Fortran namelists are skipped */
  BFT_OK(bf_parmparse_add_text("&nml\n x = 1\n/\ny = 2\n", "nml", 3));
  BFT_CHECK(bf_parmparse_count("x") == -1 && geti("y", 0) == 2);
  bf_parmparse_clear();
}

static void test_include(void) {
  BFT_CHECK(mkdir(path_of("sub"), 0700) == 0);
  write_file("sub/main", "a = 1\nFILE = inc\nc = 3\n", 22);
  write_file("sub/inc", "b = 2\na = 5\n", 12);
  BFT_OK(bf_parmparse_add_file(path_of("sub/main"), 3)); /* inc is found beside main, not in the cwd */
  BFT_CHECK(geti("a", 0) == 5 && geti("b", 0) == 2 && geti("c", 0) == 3);
  const char *file = NULL;
  int line = 0;
  BFT_OK(bf_parmparse_origin("b", &file, &line));
  BFT_CHECK(file && strstr(file, "sub/inc") && line == 1);
  bf_parmparse_clear();
  /* cycles: a -> b -> a, and a file including itself */
  write_file("cyc_a", "x = 1\nFILE = cyc_b\n", 19);
  write_file("cyc_b", "y = 1\nFILE = cyc_a\n", 19);
  FAILS_WITH(bf_parmparse_add_file(path_of("cyc_a"), 3), BF_ERROR_VALUE, "include cycle");
  write_file("self", "FILE = self\n", 12);
  FAILS_WITH(bf_parmparse_add_file(path_of("self"), 3), BF_ERROR_VALUE, "self:1: FILE = ");
  BFT_CHECK(bf_parmparse_size() == 0);
  write_file("missing", "a = 1\nFILE = nowhere\n", 20);
  FAILS_WITH(bf_parmparse_add_file(path_of("missing"), 3), BF_ERROR_IO, "missing:2: cannot read inputs file");
  FAILS_WITH(bf_parmparse_add_file(path_of("nonexistent"), 3), BF_ERROR_IO, "cannot read inputs file");
  FAILS_WITH(bf_parmparse_add_file(tmpdir, 3), BF_ERROR_IO, "not a regular file");
  BFT_CHECK(bf_parmparse_size() == 0);
}

static void test_typed_reads(void) {
  BFT_OK(bf_parmparse_add_text("i = 42 -7 +3 3000000000 1e3 1.5 2.\n"
                               "r = 1.e-5 .5 nan inf -inf 1e400 0x10\n"
                               "b = true T false F 1 0 2.5 yes\n"
                               "iv = (1,2,3) ( 4 , 5 , 6 ) (1,2)\n",
                               "typed", 3));
  BFT_CHECK(geti("i", 0) == 42 && geti("i", 1) == -7 && geti("i", 2) == 3 && geti("i", 3) == 3000000000LL);
  BFT_CHECK(geti("i", 4) == 1000);     /* IParser reads 1e3 as 1000 */
  BFT_CHECK(geti("i", 6) == 2);        /* and "2." as 2 */
  bool found;
  int v;
  int64_t v64;
  FAILS_WITH(bf_parmparse_query_int("i", 3, &found, &v), BF_ERROR_OVERFLOW, "does not fit in an int");
  FAILS_WITH(bf_parmparse_query_int64("i", 5, &found, &v64), BF_ERROR_VALUE, "typed:1");
  FAILS_WITH(bf_parmparse_query_int64("i", 7, &found, &v64), BF_ERROR_INDEX, "has 7 values");
  BFT_CHECK(getr("r", 0) == 1e-5 && getr("r", 1) == 0.5 && isnan(getr("r", 2)) && getr("r", 3) == INFINITY);
  BFT_CHECK(getr("r", 4) == -INFINITY && getr("r", 5) == INFINITY);
  double r;
  FAILS_WITH(bf_parmparse_query_real("r", 6, &found, &r), BF_ERROR_VALUE, "parameter r (typed:2)");
  const bool want[] = {true, true, false, false, true, false, true};
  for (int k = 0; k < 7; ++k) {
    bool b = !want[k];
    BFT_OK(bf_parmparse_query_bool("b", k, &found, &b));
    BFT_CHECK(found && b == want[k]);
  }
  bool b;
  FAILS_WITH(bf_parmparse_query_bool("b", 7, &found, &b), BF_ERROR_VALUE, "\"yes\" is not a bool");
  bf_intvect iv;
  BFT_OK(bf_parmparse_query_intvect("iv", 1, 3, &found, &iv));
  BFT_CHECK(found && iv.dim == 3 && iv.v[0] == 4 && iv.v[2] == 6);
  FAILS_WITH(bf_parmparse_query_intvect("iv", 2, 3, &found, &iv), BF_ERROR_VALUE, "not an IntVect of 3");
  BFT_OK(bf_parmparse_query_intvect("iv", 2, 2, &found, &iv));
  BFT_OK(bf_parmparse_query_int("missing", 0, &found, &v));
  BFT_CHECK(!found);
  bf_parmparse_clear();
}

static void test_typed_adds_round_trip(void) {
  const double xs[] = {0.1, 1.0 / 3.0, -2.5e-300, 1.7976931348623157e308, 5e-324, -0.0};
  BFT_OK(bf_parmparse_add_reals("x", 6, xs));
  for (int k = 0; k < 6; ++k) {
    double y = getr("x", k);
    BFT_CHECK(memcmp(&y, &xs[k], sizeof y) == 0); /* exact, sign of zero included */
  }
  const int64_t is[] = {INT64_MIN, -1, 0, INT64_MAX};
  BFT_OK(bf_parmparse_add_ints("i", 4, is));
  for (int k = 0; k < 4; ++k) BFT_CHECK(geti("i", k) == is[k]);
  bf_box bx = {3, {-1, 0, 2}, {5, 6, 7}, 5u};
  BFT_OK(bf_parmparse_add_boxes("bx", 1, &bx));
  bf_box by;
  bool found;
  BFT_OK(bf_parmparse_query_box("bx", 0, 3, &found, &by));
  BFT_CHECK(found && memcmp(&bx, &by, sizeof bx) == 0);
  BFT_CHECK(!strcmp(gets_("bx", 0), "((-1,0,2) (5,6,7) (1,0,1))"));
  BFT_CHECK(bf_parmparse_type_of("bx") == BF_PP_BOX && bf_parmparse_type_of("i") == BF_PP_INT);
  bf_parmparse_clear();
}

static void test_expressions(void) {
  BFT_OK(bf_parmparse_add_text("n = 2*32\n"
                               "m = n+1\n"
                               "x = \"1.5e-3 * 2\"\n"
                               "y = 2^3^2 -2**2 2^-1 3*(1+2) -(4)\n"
                               "f = sqrt(16)+min(1,2)+max(3,4)+abs(-1)+floor(2.5)+pow(2,10)+if(1>2,5,6)\n"
                               "k = 7/2 -7/2 -7//2 7//-2 2^-1 3'000 1.5e3 if(0,1/0,3)\n"
                               "big = 9223372036854775807+1 2^63 1/0\n"
                               "bad = foo+1\nbad2 = 2*(3\nbad3 = 1.5\nbad4 = 1+ 2\n"
                               "p = 1.5e-3 * 2\n"
                               "r1 = r2+1\nr2 = r1+1\n"
                               "me = me\n",
                               "ex", 3));
  BFT_CHECK(geti("n", 0) == 64 && geti("m", 0) == 65);
  BFT_CHECK(getr("x", 0) == 1.5e-3 * 2);
  BFT_CHECK(getr("y", 0) == 512 && getr("y", 1) == -4 && getr("y", 2) == 0.5 && getr("y", 3) == 9 &&
            getr("y", 4) == -4);
  BFT_CHECK(getr("f", 0) == 4 + 1 + 4 + 1 + 2 + 1024 + 6);
  BFT_CHECK(geti("k", 0) == 3 && geti("k", 1) == -3 && geti("k", 2) == -4 && geti("k", 3) == -4);
  BFT_CHECK(geti("k", 4) == 0 && geti("k", 5) == 3000 && geti("k", 6) == 1500 && geti("k", 7) == 3);
  bool found;
  int64_t v;
  double r;
  FAILS_WITH(bf_parmparse_query_int64("big", 0, &found, &v), BF_ERROR_OVERFLOW, "overflow");
  FAILS_WITH(bf_parmparse_query_int64("big", 1, &found, &v), BF_ERROR_OVERFLOW, "overflow");
  FAILS_WITH(bf_parmparse_query_int64("big", 2, &found, &v), BF_ERROR_VALUE, "division by zero");
  BFT_OK(bf_parmparse_query_real("big", 2, &found, &r)); /* real division: inf, as AMReX */
  BFT_CHECK(r == INFINITY);
  FAILS_WITH(bf_parmparse_query_real("bad", 0, &found, &r), BF_ERROR_VALUE, "unknown name foo");
  FAILS_WITH(bf_parmparse_query_real("bad2", 0, &found, &r), BF_ERROR_VALUE, "expected ')'");
  FAILS_WITH(bf_parmparse_query_int64("bad3", 0, &found, &v), BF_ERROR_VALUE, "not an integer");
  FAILS_WITH(bf_parmparse_query_int64("bad4", 1, &found, &v), BF_ERROR_VALUE, "value \"1+\" is a piece");
  FAILS_WITH(bf_parmparse_query_real("p", 0, &found, &r), BF_ERROR_VALUE, "written with spaces");
  FAILS_WITH(bf_parmparse_query_real("r1", 0, &found, &r), BF_ERROR_VALUE, "recursive reference");
  FAILS_WITH(bf_parmparse_query_real("me", 0, &found, &r), BF_ERROR_VALUE, "recursive reference");
  /* deep nesting is an error, not a stack overflow */
  char deep[4096];
  memset(deep, '(', 2000);
  strcpy(deep + 2000, "1");
  FAILS_WITH(bf_parmparse_eval_real(deep, &r), BF_ERROR_VALUE, "nested too deeply");
  memset(deep, '-', 3000);
  strcpy(deep + 3000, "1");
  FAILS_WITH(bf_parmparse_eval_int(deep, &v), BF_ERROR_VALUE, "nested too deeply");
  /* nesting counts across parameters that refer to each other: an error, not a stack overflow */
  static char chain[20 * 100];
  for (int k = 0; k < 20; ++k) {
    char *c = chain;
    c += sprintf(c, "q%d = ", k);
    for (int j = 0; j < 30; ++j) *c++ = '(';
    c += k < 19 ? sprintf(c, "q%d", k + 1) : sprintf(c, "1");
    for (int j = 0; j < 30; ++j) *c++ = ')';
    *c = '\0';
    BFT_OK(bf_parmparse_add_text(chain, "chain", 3));
  }
  FAILS_WITH(bf_parmparse_query_real("q0", 0, &found, &r), BF_ERROR_VALUE, "nested too deeply");
  BFT_OK(bf_parmparse_query_real("q19", 0, &found, &r)); /* 30 parentheses: fine */
  BFT_CHECK(r == 1);
  BFT_OK(bf_parmparse_eval_real("comp_ellint_1(0)*2 - comp_ellint_2(0)*2", &r));
  BFT_CHECK(fabs(r) < 1e-15);
  BFT_OK(bf_parmparse_eval_real("comp_ellint_1(0.5)", &r));
  BFT_CHECK(fabs(r - 1.685750354812596) < 1e-14);
  BFT_OK(bf_parmparse_eval_real("comp_ellint_2(0.5)", &r));
  BFT_CHECK(fabs(r - 1.467462209339427) < 1e-14);
  BFT_OK(bf_parmparse_eval_real("1 < 2 and 3 >= 3 or 0", &r));
  BFT_CHECK(r == 1);
  bf_parmparse_clear();
}

static void test_initialize_reads_inputs_file_first(void) {
  write_file("init", "a = 1\nb = 2\n", 12);
  const char *args[] = {path_of("init"), "b=5", "amrex.verbose=0"};
  uint64_t id;
  BFT_OK(bf_runtime_initialize_dim(3, 3, args, &id));
  BFT_CHECK(geti("a", 0) == 1 && geti("b", 0) == 5); /* the arguments win */
  BFT_OK(bf_runtime_finalize());
  BFT_CHECK(bf_parmparse_size() == 0);
  const char *bad[] = {path_of("nonexistent")};
  FAILS_WITH(bf_runtime_initialize_dim(3, 1, bad, &id), BF_ERROR_VALUE, "key=value");
}

/* A "FILE = inputs" token reads the file with the dimension of the initialize call, into the same table
 * as add_file (it was read with none: every #if AMREX_SPACEDIM block failed). */
static void test_file_token_reads_with_the_dimension(void) {
  const char *text = "#if AMREX_SPACEDIM == 1\nn = 1\n#elif AMREX_SPACEDIM == 2\nn = 2\n#else\nn = 3\n#endif\nm = 7\n";
  write_file("dimfile", text, strlen(text));
  char tok[300];
  snprintf(tok, sizeof tok, "FILE = %s", path_of("dimfile"));
  for (int dim = 1; dim <= 3; ++dim) {
    bf_parmparse_clear();
    BFT_OK(bf_parmparse_check_token_dim(tok, dim));
    BFT_CHECK(bf_parmparse_size() == 0);
    BFT_OK(bf_parmparse_add_token_dim(tok, dim));
    char *a = NULL, *b = NULL;
    BFT_OK(bf_parmparse_pretty(&a));
    bf_parmparse_clear();
    BFT_OK(bf_parmparse_add_file(path_of("dimfile"), dim));
    BFT_OK(bf_parmparse_pretty(&b));
    BFT_CHECK(a && b && !strcmp(a, b) && geti("n", 0) == dim && geti("m", 0) == 7);
    free(a), free(b);
    /* and through initialize */
    bf_parmparse_clear();
    const char *args[] = {"amrex.verbose=0", tok};
    uint64_t id;
    BFT_OK(bf_runtime_initialize_dim(dim, 2, args, &id));
    BFT_CHECK(geti("n", 0) == dim && geti("m", 0) == 7);
    BFT_OK(bf_runtime_finalize());
  }
  bf_parmparse_clear();
  FAILS_WITH(bf_parmparse_add_token(tok), BF_ERROR_VALUE, "needs the dimension"); /* dimension unknown */
  FAILS_WITH(bf_parmparse_add_token_dim(tok, 4), BF_ERROR_VALUE, "dimension");
  BFT_CHECK(bf_parmparse_size() == 0);
}

static void test_pretty(void) {
  BFT_OK(bf_parmparse_add_text("z = 1 2\na.b = \"x y\"\n", "p", 3));
  char *text = NULL;
  BFT_OK(bf_parmparse_pretty(&text));
  BFT_CHECK(text && !strcmp(text, "a.b = \"x y\"\nz = 1 2\n")); /* quoted: it reads back as one value */
  free(text);
  BFT_CHECK(!strcmp(bf_parmparse_name_at(0), "a.b") && bf_parmparse_name_at(2) == NULL);
  bf_parmparse_clear();
}

/* Many keys through the hash index: random adds (the last definition wins), removals and lookups
 * against a plain array model, with name_at (which sorts the table) in between. */
static void test_many_keys(void) {
  enum { NAMES = 20000, OPS = 120000 };
  bf_parmparse_clear();
  static int64_t model[NAMES];
  static bool present[NAMES];
  memset(present, 0, sizeof present);
  uint64_t rng = 88172645463325252ull;
  int live = 0, bad = 0;
  char name[32];
  for (int op = 0; op < OPS; ++op) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    int k = (int)(rng % NAMES), what = (int)((rng >> 32) % 10);
    snprintf(name, sizeof name, "many.k%d", k);
    if (what < 6) {
      int64_t v = (int64_t)(rng >> 20) - op;
      BFT_OK(bf_parmparse_add_ints(name, 1, &v));
      live += !present[k], present[k] = true, model[k] = v;
    } else if (what < 8) {
      int r = bf_parmparse_remove(name);
      bad += r != (present[k] ? 1 : 0);
      live -= present[k], present[k] = false;
    } else {
      bool found = false;
      int64_t v = 0;
      BFT_OK(bf_parmparse_query_int64(name, 0, &found, &v));
      bad += found != present[k] || (found && v != model[k]);
    }
    if (op % 25000 == 0 && bf_parmparse_size() > 0) BFT_CHECK(bf_parmparse_name_at(0) != NULL); /* sorts */
  }
  BFT_CHECK(bad == 0);
  BFT_CHECK(bf_parmparse_size() == live);
  for (int k = 0; k < NAMES; ++k) {
    snprintf(name, sizeof name, "many.k%d", k);
    bool found = false;
    int64_t v = 0;
    BFT_OK(bf_parmparse_query_int64(name, 0, &found, &v));
    bad += found != present[k] || (found && v != model[k]) || bf_parmparse_count(name) != (present[k] ? 1 : -1);
  }
  BFT_CHECK(bad == 0);
  /* name_at: every live name once, in strcmp order (as before the index) */
  for (int i = 1; i < bf_parmparse_size(); ++i) bad += strcmp(bf_parmparse_name_at(i - 1), bf_parmparse_name_at(i)) >= 0;
  BFT_CHECK(bad == 0);
  /* after the sort every lookup still lands on its own entry; removing all empties the table */
  for (int k = 0; k < NAMES; ++k) {
    snprintf(name, sizeof name, "many.k%d", k);
    bad += bf_parmparse_remove(name) != (present[k] ? 1 : 0);
  }
  BFT_CHECK(bad == 0 && bf_parmparse_size() == 0);
  int64_t one = 1;
  BFT_OK(bf_parmparse_add_ints("many.again", 1, &one));
  BFT_CHECK(geti("many.again", 0) == 1 && bf_parmparse_size() == 1);
  bf_parmparse_clear();
  BFT_CHECK(bf_parmparse_count("many.again") == -1 && bf_parmparse_size() == 0);
}

/* ---- what the store takes: only what an inputs file can hold (issue 21) ---------------------- */
static void test_unreadable_names_and_values_are_refused(void) {
  bf_parmparse_clear();
  BFT_OK(bf_parmparse_add_text("keep = 1\n", "p", 3));
  const char *one[] = {"1"};
  static const char *const bad_names[] = {"a b", "a=b", "=", "", "a\tb", "#a", "a#b", "\"a\"", "a\"", "1a", ".a",
                                          "_a", "(a)", "FILE", "\xc3\xa9t\xc3\xa9", "a\xff", "a\xc3", "a\x01",
                                          "a\x7f", "a\xc2\xa0" "b", "a\xe3\x80\x80", "f(x, y)", " a", "a ", "a\r",
                                          "a\v", "a\f"};
  for (size_t k = 0; k < sizeof bad_names / sizeof *bad_names; ++k) {
    FAILS_WITH(bf_parmparse_add(bad_names[k], 1, one), BF_ERROR_VALUE, "");
    int64_t i = 1;
    FAILS_WITH(bf_parmparse_add_ints(bad_names[k], 1, &i), BF_ERROR_VALUE, "");
  }
  FAILS_WITH(bf_parmparse_add("a b", 1, one), BF_ERROR_VALUE, "could not be read back");
  FAILS_WITH(bf_parmparse_add("FILE", 1, one), BF_ERROR_VALUE, "include");
  FAILS_WITH(bf_parmparse_add(NULL, 1, one), BF_ERROR_VALUE, "empty");
  /* names AMReX reads */
  static const char *const good_names[] = {"a", "Z9", "a.b.c", "a_b", "a[0]", "a+b-c", "a..b", "a.", "FILE.x", "xFILE",
                                           "e.density_function(x,y,z)", "a(b)", "a*b", "a/b", "a,b", "a\\b", "a\\",
                                           "h\xc3\xa9"};
  for (size_t k = 0; k < sizeof good_names / sizeof *good_names; ++k) BFT_OK(bf_parmparse_add(good_names[k], 1, one));
  int n = bf_parmparse_size();
  /* values: a new line, not UTF-8, a '"' in a value that needs quotes, no values */
  static const char *const bad_values[] = {"a\nb", "\n", "\xff", "\xc3", "\"x", "a\" b", "\"", "=\"", "#\"", "(\"", "x\"\\",
                                           "\"\"", "(a\" b))"};
  for (size_t k = 0; k < sizeof bad_values / sizeof *bad_values; ++k) {
    const char *v[] = {"fine", bad_values[k]};
    FAILS_WITH(bf_parmparse_add("keep", 2, v), BF_ERROR_VALUE, "value 1 of parameter keep");
  }
  FAILS_WITH(bf_parmparse_add("keep", 0, NULL), BF_ERROR_VALUE, "no values");
  FAILS_WITH(bf_parmparse_add_reals("keep", 0, NULL), BF_ERROR_VALUE, "no values");
  /* nothing changed */
  BFT_CHECK(bf_parmparse_size() == n && bf_parmparse_count("keep") == 1 && geti("keep", 0) == 1);
  /* tokens follow the same rules, and read as AMReX reads its command line */
  FAILS_WITH(bf_parmparse_add_token("a b=1"), BF_ERROR_VALUE, "expected '='");
  FAILS_WITH(bf_parmparse_add_token("=1"), BF_ERROR_VALUE, "empty key");
  FAILS_WITH(bf_parmparse_add_token("a= "), BF_ERROR_VALUE, "no value");
  FAILS_WITH(bf_parmparse_add_token("1a=1"), BF_ERROR_VALUE, "not a parameter name");
  FAILS_WITH(bf_parmparse_add_token("a=\"x"), BF_ERROR_VALUE, "closing");
  FAILS_WITH(bf_parmparse_add_token("a=\xe9t\xe9"), BF_ERROR_VALUE, "UTF-8");
  FAILS_WITH(bf_parmparse_check_token("ok=1 2 3x=4"), BF_ERROR_VALUE, "not a parameter name");
  /* a token that is all comment (or a namelist) defined nothing without a word */
  FAILS_WITH(bf_parmparse_add_token("#a=1"), BF_ERROR_VALUE, "comment");
  FAILS_WITH(bf_parmparse_add_token("  # a = 1 b = 2"), BF_ERROR_VALUE, "defines nothing");
  FAILS_WITH(bf_parmparse_add_token("&nml a=1 /"), BF_ERROR_VALUE, "namelist");
  BFT_CHECK(bf_parmparse_size() == n);
  BFT_OK(bf_parmparse_check_token("tq=\"x y\""));
  BFT_CHECK(bf_parmparse_count("tq") == -1); /* checked, not added */
  BFT_OK(bf_parmparse_add_token("tq=\"x y\" z"));
  BFT_CHECK(bf_parmparse_count("tq") == 2 && !strcmp(gets_("tq", 0), "x y") && !strcmp(gets_("tq", 1), "z"));
  BFT_OK(bf_parmparse_add_token("tb=((0,0,0) (7,7,7))  tc = 3"));
  BFT_CHECK(bf_parmparse_count("tb") == 1 && !strcmp(gets_("tb", 0), "((0,0,0) (7,7,7))") && geti("tc", 0) == 3);
  const char *file = NULL;
  int line = 0;
  BFT_OK(bf_parmparse_origin("tc", &file, &line));
  BFT_CHECK(file && !strcmp(file, "<initialize>") && line == 1);
  /* values that need quotes are written in quotes */
  bf_parmparse_clear();
  const char *q[] = {"", "a b", "#x", "=", "a=b", "tr\\", "\t", "(a)b", "(a", "x\r"};
  BFT_OK(bf_parmparse_add("q", (int)(sizeof q / sizeof *q), q));
  const char *b[] = {"a\"b", "(a \"b\" c)", "x#y", "a\\b", "((0,0) (1,1))", "\xc3\xa9"};
  BFT_OK(bf_parmparse_add("b", (int)(sizeof b / sizeof *b), b));
  char *text = NULL;
  BFT_OK(bf_parmparse_pretty(&text));
  BFT_CHECK(text && !strcmp(text, "b = a\"b (a \"b\" c) x#y a\\b ((0,0) (1,1)) \xc3\xa9\n"
                                   "q = \"\" \"a b\" \"#x\" \"=\" \"a=b\" \"tr\\\" \"\t\" \"(a)b\" \"(a\" \"x\r\"\n"));
  bf_parmparse_clear();
  BFT_OK(bf_parmparse_add_text(text, "pretty", 3));
  for (int k = 0; k < (int)(sizeof q / sizeof *q); ++k) BFT_CHECK(!strcmp(gets_("q", k), q[k]));
  for (int k = 0; k < (int)(sizeof b / sizeof *b); ++k) BFT_CHECK(!strcmp(gets_("b", k), b[k]));
  BFT_CHECK(bf_parmparse_count("q") == (int)(sizeof q / sizeof *q) && bf_parmparse_count("b") == (int)(sizeof b / sizeof *b));
  free(text);
  bf_parmparse_clear();
}

/* Property: whatever bf_parmparse_add accepts, pretty -> add_text into an empty store gives back,
 * byte for byte (names from an alphabet of the tokenizer's special bytes and any byte 1..255). */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) {
  rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
  return rng_state;
}
static void rnd_text(char *buf, int max) {
  static const char special[] = " \t\r\n\v\f=#\"()\\&/!,.[]+-_aZ09";
  int n = (int)(rnd() % (uint64_t)(max + 1));
  for (int i = 0; i < n; ++i) {
    uint64_t r = rnd();
    buf[i] = r % 3 ? special[(r >> 8) % (sizeof special - 1)] : (char)(1 + (r >> 16) % 255);
  }
  buf[n] = '\0';
}

static void test_pretty_round_trip_property(void) {
  enum { TRIES = 20000, MAXV = 4 };
  static char names[TRIES][12];
  static char vals[TRIES][MAXV][16];
  static int nv[TRIES];
  static bool live[TRIES];
  bf_parmparse_clear();
  int accepted = 0, refused = 0, bad = 0;
  for (int t = 0; t < TRIES; ++t) {
    rnd_text(names[t], 6);
    if (rnd() % 2) { /* more names that pass: a letter, then name characters */
      static const char nc[] = "abcXYZ019_.[]+-";
      int n = 1 + (int)(rnd() % 6);
      for (int i = 0; i < n; ++i) names[t][i] = i ? nc[rnd() % (sizeof nc - 1)] : (char)('a' + rnd() % 26);
      names[t][n] = '\0';
    }
    nv[t] = (int)(rnd() % (MAXV + 1));
    const char *v[MAXV];
    for (int k = 0; k < nv[t]; ++k) rnd_text(vals[t][k], 8), v[k] = vals[t][k];
    int size = bf_parmparse_size();
    if (bf_parmparse_add(names[t], nv[t], v) == BF_SUCCESS) {
      ++accepted;
      for (int u = 0; u < t; ++u) live[u] = live[u] && strcmp(names[u], names[t]) != 0;
      live[t] = true;
    } else {
      ++refused;
      bf_error_clear();
      bad += bf_parmparse_size() != size;
    }
  }
  BFT_CHECK(bad == 0 && accepted > 1000 && refused > 1000);
  if (accepted <= 1000 || refused <= 1000) fprintf(stderr, "accepted %d, refused %d\n", accepted, refused);
  char *text = NULL;
  BFT_OK(bf_parmparse_pretty(&text));
  int size = bf_parmparse_size();
  bf_parmparse_clear();
  BFT_OK(bf_parmparse_add_text(text, "pretty", 3));
  BFT_CHECK(bf_parmparse_size() == size);
  for (int t = 0; t < TRIES; ++t) {
    if (!live[t]) continue;
    bool same = bf_parmparse_count(names[t]) == nv[t];
    for (int k = 0; same && k < nv[t]; ++k) {
      const char *got = NULL;
      same = bf_parmparse_get(names[t], k, &got) == BF_SUCCESS && !strcmp(got, vals[t][k]);
    }
    if (!same && bad++ < 5) fprintf(stderr, "round trip of \"%s\" changed it\n", names[t]);
  }
  BFT_CHECK(bad == 0);
  char *again = NULL;
  BFT_OK(bf_parmparse_pretty(&again));
  BFT_CHECK(again && !strcmp(again, text)); /* a fixed point */
  free(text), free(again);
  bf_parmparse_clear();
}

/* Property: whatever add_text reads (random texts of the tokenizer's special bytes), pretty writes
 * so that add_text into an empty store reads the same names and values, byte for byte. */
static void test_read_text_round_trips_through_pretty(void) {
  static const char *const parts[] = {"a", "b.c", " ", " ", "=", "=", "\n", "\r\n", "\\\n", "#", "\"", "(", ")", "\t",
                                      "1", "x", "FILE", "&", "/", "\xc3\xa9", "\\", "a = 1\n", "b = \"q r\"\n"};
  enum { TEXTS = 4000 };
  char text[512];
  int accepted = 0, bad = 0;
  for (int t = 0; t < TEXTS; ++t) {
    size_t n = 0;
    int k = (int)(rnd() % 40);
    for (int i = 0; i < k; ++i) {
      const char *p = parts[rnd() % (sizeof parts / sizeof *parts)];
      size_t m = strlen(p);
      if (n + m >= sizeof text) break;
      memcpy(text + n, p, m), n += m;
    }
    text[n] = '\0';
    bf_parmparse_clear();
    if (bf_parmparse_add_text(text, "rt", 3) != BF_SUCCESS) {
      bf_error_clear();
      bad += bf_parmparse_size() != 0; /* nothing of a text with an error */
      continue;
    }
    ++accepted;
    char *first = NULL, *second = NULL;
    BFT_OK(bf_parmparse_pretty(&first));
    bf_parmparse_clear();
    if (bf_parmparse_add_text(first, "pretty", 3) != BF_SUCCESS) {
      if (bad++ < 5) fprintf(stderr, "pretty of %s does not read back: %s\n", text, bf_error_message());
      bf_error_clear();
    } else {
      BFT_OK(bf_parmparse_pretty(&second));
      if (strcmp(first, second) && bad++ < 5) fprintf(stderr, "pretty of %s: %s then %s\n", text, first, second);
    }
    free(first), free(second);
  }
  BFT_CHECK(bad == 0 && accepted > 300);
  bf_parmparse_clear();
}

/* ---- linear work (issue 21: addfile of 400k keys took 68 s) ------------------------------------
 * Counted, not timed: bf_parmparse_work_count() adds the bytes the reader examines and the slots
 * the index probes; 4 times the input must cost about 4 times the work. */
static char *keys_text(int n, size_t *len) {
  char *t = malloc((size_t)n * 32 + 1), *p = t;
  for (int i = 0; i < n; ++i) p += sprintf(p, "lin.k%d = %d\n", i, i);
  *len = (size_t)(p - t);
  return t;
}
static char *continued_text(int n, size_t *len) {
  char *t = malloc((size_t)n * 16 + 16), *p = t;
  p += sprintf(p, "lin.c = 0");
  for (int i = 1; i < n; ++i) p += sprintf(p, " \\\n %d", i);
  *p++ = '\n', *p = '\0';
  *len = (size_t)(p - t);
  return t;
}

static double work_per_byte(char *(*make)(int, size_t *), int n, bool as_file) {
  size_t len = 0;
  char *text = make(n, &len);
  bf_parmparse_clear();
  int64_t w0 = bf_parmparse_work_count();
  if (as_file) {
    write_file("lin", text, len);
    BFT_OK(bf_parmparse_add_file(path_of("lin"), 3));
  } else {
    BFT_OK(bf_parmparse_add_text(text, "lin", 3));
  }
  int64_t w = bf_parmparse_work_count() - w0;
  free(text);
  return (double)w / (double)len;
}

static void test_addfile_work_is_linear(void) {
  double a = work_per_byte(keys_text, 25000, true), b = work_per_byte(keys_text, 100000, true);
  BFT_CHECK(b < 1.25 * a + 1);
  BFT_CHECK(geti("lin.k99999", 0) == 99999 && bf_parmparse_size() == 100000);
  double c = work_per_byte(continued_text, 25000, false), d = work_per_byte(continued_text, 100000, false);
  BFT_CHECK(d < 1.25 * c + 1);
  BFT_CHECK(bf_parmparse_count("lin.c") == 100000 && geti("lin.c", 99999) == 99999);
  if (b >= 1.25 * a + 1 || d >= 1.25 * c + 1) fprintf(stderr, "work per byte: keys %g -> %g, continued %g -> %g\n", a, b, c, d);
  bf_parmparse_clear();
}

/* Removing and adding names at a size just under a power of two: the index was rebuilt (every
 * slot) on every other call. */
static void test_index_churn_is_linear(void) {
  enum { N = 32767, OPS = 20000 };
  bf_parmparse_clear();
  char name[32];
  int64_t v = 1;
  for (int i = 0; i < N; ++i) {
    snprintf(name, sizeof name, "churn.k%d", i);
    BFT_OK(bf_parmparse_add_ints(name, 1, &v));
  }
  int64_t w0 = bf_parmparse_work_count();
  for (int i = 0; i < OPS; ++i) {
    snprintf(name, sizeof name, "churn.k%d", i);
    BFT_CHECK(bf_parmparse_remove(name) == 1);
    snprintf(name, sizeof name, "churn.n%d", i);
    BFT_OK(bf_parmparse_add_ints(name, 1, &v));
  }
  double per_op = (double)(bf_parmparse_work_count() - w0) / (2.0 * OPS);
  BFT_CHECK(per_op < 64);
  if (per_op >= 64) fprintf(stderr, "index work per remove/add: %g\n", per_op);
  BFT_CHECK(bf_parmparse_size() == N && bf_parmparse_count("churn.k0") == -1 && geti("churn.n19999", 0) == 1);
  bf_parmparse_clear();
}

/* a_k = a_{k-1} + a_{k-1} + a_{k-1}: 3^30 evaluations of a_0 unless each name is evaluated once per
 * query; and a later query sees a changed table. */
static void test_expression_chains_are_evaluated_once(void) {
  bf_parmparse_clear();
  char name[16], expr[64];
  BFT_OK(bf_parmparse_add_text("a0 = 1\n", "chain", 3));
  for (int k = 1; k <= 30; ++k) {
    snprintf(name, sizeof name, "a%d", k);
    snprintf(expr, sizeof expr, "a%d+a%d-a%d", k - 1, k - 1, k - 1);
    const char *v[] = {expr};
    BFT_OK(bf_parmparse_add_typed(name, 1, v, BF_PP_TEXT));
  }
  int64_t w0 = bf_parmparse_work_count();
  BFT_CHECK(geti("a30", 0) == 1 && getr("a30", 0) == 1.0);
  BFT_CHECK(bf_parmparse_work_count() - w0 < 1000);
  int64_t two = 2;
  BFT_OK(bf_parmparse_add_ints("a0", 1, &two));
  BFT_CHECK(geti("a30", 0) == 2 && getr("a30", 0) == 2.0 && geti("a1", 0) == 2);
  BFT_OK(bf_parmparse_add_text("a15 = 7\n", "chain", 3));
  BFT_CHECK(geti("a30", 0) == 7 && geti("a14", 0) == 2);
  /* the same name read as an int and as a real in one expression: each its own value */
  BFT_OK(bf_parmparse_add_text("h = 7/2\nm = h*2\n", "chain", 3));
  BFT_CHECK(geti("m", 0) == 6 && getr("m", 0) == 7.0);
  bf_parmparse_clear();
}

int main(void) {
  strcpy(tmpdir, "/tmp/bf_pp_XXXXXX");
  if (!mkdtemp(tmpdir)) return 2;
  BFT_RUN(test_syntax);
  BFT_RUN(test_syntax_errors);
  BFT_RUN(test_spacedim_blocks);
  BFT_RUN(test_include);
  BFT_RUN(test_typed_reads);
  BFT_RUN(test_typed_adds_round_trip);
  BFT_RUN(test_expressions);
  BFT_RUN(test_initialize_reads_inputs_file_first);
  BFT_RUN(test_file_token_reads_with_the_dimension);
  BFT_RUN(test_pretty);
  BFT_RUN(test_many_keys);
  BFT_RUN(test_unreadable_names_and_values_are_refused);
  BFT_RUN(test_pretty_round_trip_property);
  BFT_RUN(test_read_text_round_trips_through_pretty);
  BFT_RUN(test_addfile_work_is_linear);
  BFT_RUN(test_index_churn_is_linear);
  BFT_RUN(test_expression_chains_are_evaluated_once);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
  if (system(cmd) != 0) return 2;
  return bft_report();
}
