/* Errors, runtime lifecycle and the parameter store. */
#include "bftest.h"

static void test_error_message_and_clear(void) {
  bf_error_clear();
  BFT_CHECK(bf_error_code() == BF_SUCCESS && bf_error_message()[0] == '\0');
  BFT_CHECK(bf_error_set(BF_ERROR_INDEX, "f", "index %d", 7) == BF_ERROR_INDEX);
  BFT_CHECK(bf_error_code() == BF_ERROR_INDEX && strstr(bf_error_message(), "index 7"));
  bf_error_clear();
  BFT_CHECK(bf_error_message()[0] == '\0');
}

static void test_runtime_stack(void) {
  uint64_t a, b;
  BFT_CHECK(!bf_runtime_initialized() && bf_runtime_size() == 0);
  BFT_FAILS(bf_runtime_finalize(), BF_ERROR_RUNTIME);
  BFT_FAILS(bf_runtime_check(0, "MultiFab"), BF_ERROR_RUNTIME);
  BFT_OK(bf_runtime_initialize(0, NULL, &a));
  BFT_OK(bf_runtime_initialize(0, NULL, &b));
  BFT_CHECK(a != b && bf_runtime_size() == 2 && bf_runtime_top() == b);
  BFT_OK(bf_runtime_finalize_instance(a));
  BFT_CHECK(!bf_runtime_alive(a) && bf_runtime_alive(b) && bf_runtime_size() == 1);
  BFT_FAILS(bf_runtime_check(a, "MultiFab"), BF_ERROR_RUNTIME);
  BFT_FAILS(bf_runtime_finalize_instance(a), BF_ERROR_RUNTIME);
  BFT_OK(bf_runtime_finalize());
  BFT_CHECK(!bf_runtime_initialized());
  uint64_t c;
  BFT_OK(bf_runtime_initialize(0, NULL, &c)); /* again after finalize */
  BFT_CHECK(c != a && c != b && bf_runtime_check(c, "x") == BF_SUCCESS);
  BFT_OK(bf_runtime_finalize());
}

static void test_initialize_parses_tokens(void) {
  const char *args[] = {"amrex.verbose=0", "n_cell = 32 32 64"};
  uint64_t id;
  BFT_OK(bf_runtime_initialize(2, args, &id));
  BFT_CHECK(bf_parmparse_count("n_cell") == 3);
  bool found;
  int v = -1;
  BFT_OK(bf_parmparse_query_int("n_cell", 2, &found, &v));
  BFT_CHECK(found && v == 64);
  BFT_OK(bf_parmparse_query_int("amrex.verbose", 0, &found, &v));
  BFT_CHECK(found && v == 0);
  BFT_FAILS(bf_parmparse_query_int("n_cell", 3, &found, &v), BF_ERROR_INDEX);
  BFT_OK(bf_parmparse_query_int("missing", 0, &found, &v));
  BFT_CHECK(!found);
  BFT_OK(bf_runtime_finalize());
  const char *bad[] = {"novalue"};
  BFT_FAILS(bf_runtime_initialize(1, bad, &id), BF_ERROR_VALUE);
  BFT_CHECK(!bf_runtime_initialized());
  bf_parmparse_clear();
}

static void test_parmparse_types(void) {
  const char *vals[] = {"true", "2.5", "x"};
  BFT_OK(bf_parmparse_add("p.a", 3, vals));
  bool found, b = false;
  double r = 0;
  int i;
  BFT_OK(bf_parmparse_query_bool("p.a", 0, &found, &b));
  BFT_CHECK(found && b);
  BFT_OK(bf_parmparse_query_real("p.a", 1, &found, &r));
  BFT_CHECK(found && r == 2.5);
  BFT_FAILS(bf_parmparse_query_int("p.a", 2, &found, &i), BF_ERROR_VALUE);
  BFT_FAILS(bf_parmparse_query_bool("p.a", 2, &found, &b), BF_ERROR_VALUE);
  BFT_CHECK(bf_parmparse_remove("p.a") == 1 && bf_parmparse_remove("p.a") == 0);
  BFT_CHECK(bf_parmparse_count("p.a") == -1);
  bf_parmparse_clear();
}

static int hook_calls;
static uint64_t hook_last_id;
static bool hook_saw_alive;
static void record_hook(uint64_t id, void *ctx) {
  hook_calls += *(int *)ctx;
  hook_last_id = id;
  hook_saw_alive = bf_runtime_alive(id);
}

static void test_finalize_hooks(void) {
  int one = 1, ten = 10;
  hook_calls = 0;
  BFT_OK(bf_runtime_add_finalize_hook(record_hook, &one));
  BFT_OK(bf_runtime_add_finalize_hook(record_hook, &ten));
  BFT_FAILS(bf_runtime_add_finalize_hook(record_hook, &one), BF_ERROR_VALUE); /* twice */
  BFT_FAILS(bf_runtime_add_finalize_hook(NULL, NULL), BF_ERROR_VALUE);
  uint64_t a, b;
  BFT_OK(bf_runtime_initialize(0, NULL, &a));
  BFT_OK(bf_runtime_initialize(0, NULL, &b));
  BFT_OK(bf_runtime_finalize_instance(a));
  BFT_CHECK(hook_calls == 11 && hook_last_id == a && hook_saw_alive);
  BFT_OK(bf_runtime_remove_finalize_hook(record_hook, &ten));
  BFT_FAILS(bf_runtime_remove_finalize_hook(record_hook, &ten), BF_ERROR_VALUE);
  BFT_OK(bf_runtime_finalize());
  BFT_CHECK(hook_calls == 12 && hook_last_id == b);
  BFT_FAILS(bf_runtime_finalize(), BF_ERROR_RUNTIME); /* no hook runs for a failed finalize */
  BFT_CHECK(hook_calls == 12);
  BFT_OK(bf_runtime_remove_finalize_hook(record_hook, &one));
}

static void test_initialize_is_all_or_nothing(void) {
  const char *mixed[] = {"a.b=1", "=2"};
  uint64_t id;
  BFT_FAILS(bf_runtime_initialize(2, mixed, &id), BF_ERROR_VALUE);
  BFT_CHECK(bf_parmparse_count("a.b") == -1 && !bf_runtime_initialized());
  const char *novalue[] = {"a.b=1", "c=  "};
  BFT_FAILS(bf_runtime_initialize(2, novalue, &id), BF_ERROR_VALUE);
  BFT_CHECK(bf_parmparse_count("a.b") == -1 && !bf_runtime_initialized());
  BFT_FAILS(bf_runtime_initialize(1, NULL, &id), BF_ERROR_VALUE);
  BFT_FAILS(bf_runtime_initialize(-1, NULL, &id), BF_ERROR_VALUE);
  BFT_OK(bf_parmparse_check_token(" x = 1 2 "));
  BFT_FAILS(bf_parmparse_check_token("x"), BF_ERROR_VALUE);
  BFT_FAILS(bf_parmparse_check_token(NULL), BF_ERROR_VALUE);
}

static void test_verbose_and_store_lifetime(void) {
  int before = bf_runtime_verbose();
  const char *args[] = {"amrex.verbose=3", "keep=1"};
  uint64_t a, b;
  BFT_OK(bf_runtime_initialize(2, args, &a));
  BFT_CHECK(bf_runtime_verbose() == 3);
  bf_runtime_set_verbose(0);
  BFT_CHECK(bf_runtime_verbose() == 0);
  BFT_OK(bf_runtime_initialize(0, NULL, &b)); /* no tokens: verbose untouched */
  BFT_CHECK(bf_runtime_verbose() == 0);
  BFT_OK(bf_runtime_finalize());
  BFT_CHECK(bf_parmparse_count("keep") == 1); /* one instance still active */
  BFT_OK(bf_runtime_finalize());
  BFT_CHECK(bf_parmparse_count("keep") == -1); /* cleared with the last one */
  const char *bad[] = {"amrex.verbose=loud"};
  BFT_FAILS(bf_runtime_initialize(1, bad, &a), BF_ERROR_VALUE);
  BFT_CHECK(!bf_runtime_initialized());
  bf_parmparse_clear();
  bf_runtime_set_verbose(before);
}

static void test_parmparse_null_and_replace(void) {
  const char *one[] = {"1"}, *two[] = {"2", "3"};
  const char *withnull[] = {"a", NULL};
  BFT_FAILS(bf_parmparse_add("", 1, one), BF_ERROR_VALUE);
  BFT_FAILS(bf_parmparse_add(NULL, 1, one), BF_ERROR_VALUE);
  BFT_FAILS(bf_parmparse_add("n", 2, withnull), BF_ERROR_VALUE);
  BFT_FAILS(bf_parmparse_add("n", 1, NULL), BF_ERROR_VALUE);
  BFT_CHECK(bf_parmparse_count(NULL) == -1);
  const char *s;
  BFT_FAILS(bf_parmparse_get(NULL, 0, &s), BF_ERROR_VALUE);
  BFT_OK(bf_parmparse_add("n", 1, one));
  BFT_OK(bf_parmparse_add("n", 2, two));
  BFT_CHECK(bf_parmparse_count("n") == 2);
  BFT_OK(bf_parmparse_get("n", 1, &s));
  BFT_CHECK(strcmp(s, "3") == 0);
  BFT_OK(bf_parmparse_add_token("  n  =  7   8 9"));
  BFT_CHECK(bf_parmparse_count("n") == 3);
  BFT_OK(bf_parmparse_get("n", 2, &s));
  BFT_CHECK(strcmp(s, "9") == 0);
  bf_parmparse_clear();
}

int main(void) {
  BFT_RUN(test_error_message_and_clear);
  BFT_RUN(test_runtime_stack);
  BFT_RUN(test_initialize_parses_tokens);
  BFT_RUN(test_parmparse_types);
  BFT_RUN(test_finalize_hooks);
  BFT_RUN(test_initialize_is_all_or_nothing);
  BFT_RUN(test_verbose_and_store_lifetime);
  BFT_RUN(test_parmparse_null_and_replace);
  return bft_report();
}
