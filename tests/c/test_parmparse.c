/* The parameter store's inputs parser, typed reads and expressions
 * (src/core/parmparse*.c), run plain and under ASan/UBSan. */
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

static void test_pretty(void) {
  BFT_OK(bf_parmparse_add_text("z = 1 2\na.b = \"x y\"\n", "p", 3));
  char *text = NULL;
  BFT_OK(bf_parmparse_pretty(&text));
  BFT_CHECK(text && !strcmp(text, "a.b = x y\nz = 1 2\n"));
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
  BFT_RUN(test_pretty);
  BFT_RUN(test_many_keys);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
  if (system(cmd) != 0) return 2;
  return bft_report();
}
