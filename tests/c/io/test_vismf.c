/* MultiFab checkpoints (bf_vismf_write / bf_vismf_read / bf_vismf_read_new, include/boxfab/plotfile.h):
 * bit-for-bit round trip with ghost cells and special values, the header's ghost width, the checks of
 * bf_vismf_read, errors naming the path, and no temporary file left behind. */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mftest.h"
#include "boxfab/plotfile.h"

static char g_root[256];

static int count_entries(const char *dir) {
  DIR *d = opendir(dir);
  int n = 0;
  struct dirent *e;
  if (!d) return -1;
  while ((e = readdir(d)))
    if (e->d_name[0] != '.' || (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))) ++n;
  closedir(d);
  return n;
}

/* 3D: 6x5x4 in boxes of at most 3, ncomp 2, ghost (1,2,0); every element a distinct bit pattern,
 * with NaN payloads, -0.0, denormals and infinities among them. */
static bf_multifab *make_vmf(int ncomp, bf_intvect ng) {
  bf_box dom = mkbox(3, 0, 0, 0, 5, 4, 3, 0);
  bf_boxarray *ba = NULL;
  bf_distmap *dm = NULL;
  bf_multifab *mf = NULL;
  BFT_OK(bf_boxarray_create_from_boxes(3, 1, &dom, &ba));
  int mx[3] = {3, 3, 3};
  BFT_OK(bf_boxarray_max_size(&ba, mx));
  BFT_OK(bf_distmap_create_balanced(ba, 1, BF_DISTMAP_SFC, &dm));
  BFT_OK(bf_multifab_create(ba, dm, ncomp, ng, BF_DTYPE_DOUBLE, NULL, true, &mf));
  bf_boxarray_destroy(&ba);
  bf_distmap_destroy(&dm);
  const uint64_t special[] = {0x7FF8000000000000ull, 0xFFF8DEADBEEF0001ull, 0x7FF0000000000123ull,
                              0x8000000000000000ull, 0x0000000000000001ull, 0x800FFFFFFFFFFFFFull,
                              0x7FF0000000000000ull, 0xFFF0000000000000ull};
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (int64_t li = 0; li < bf_multifab_nlocal(mf); ++li) {
    bf_mf_fab f;
    BFT_OK(bf_multifab_local_fab(mf, li, &f));
    uint64_t *p = f.data;
    for (int64_t e = 0; e < f.stride[2] * ncomp; ++e) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      p[e] = (x % 5 == 0) ? special[x % 8] : x;
    }
  }
  return mf;
}

/* The call fails with `code` and a message holding `what`. */
#define fails_with(call, code, what)                                                                          \
  do {                                                                                                         \
    bf_error_clear();                                                                                          \
    int s_ = (call);                                                                                           \
    BFT_CHECK(s_ == (code));                                                                                   \
    BFT_CHECK(strstr(bf_error_message(), (what)) != NULL);                                                     \
    bf_error_clear();                                                                                          \
  } while (0)

static bool same_bits(const bf_multifab *a, const bf_multifab *b) {
  if (bf_multifab_nlocal(a) != bf_multifab_nlocal(b)) return false;
  for (int64_t li = 0; li < bf_multifab_nlocal(a); ++li) {
    bf_mf_fab fa, fb;
    if (bf_multifab_local_fab(a, li, &fa) || bf_multifab_local_fab(b, li, &fb)) return false;
    if (!bf_box_equal(&fa.fabbox, &fb.fabbox) || fa.stride[2] != fb.stride[2]) return false;
    if (memcmp(fa.data, fb.data, (size_t)fa.stride[2] * (size_t)bf_multifab_ncomp(a) * 8)) return false;
  }
  return true;
}

static void test_round_trip(void) {
  bf_multifab *mf = make_vmf(2, iv3(3, 1, 2, 0)), *back = NULL, *fresh = NULL;
  char name[400], path[420];
  snprintf(name, sizeof name, "%s/chk", g_root);
  BFT_OK(bf_vismf_write(mf, name));
  BFT_CHECK(count_entries(g_root) == 2); /* chk_H, chk_D_00000: no temporary left */
  snprintf(path, sizeof path, "%s_H", name);
  FILE *f = fopen(path, "r");
  char line[64] = "";
  for (int i = 0; f && i < 4; ++i) BFT_CHECK(fgets(line, sizeof line, f) != NULL);
  if (f) fclose(f);
  BFT_CHECK(!strcmp(line, "(1,2,0)\n")); /* a non-uniform ghost width: an IntVect, as AMReX writes it */
  BFT_OK(bf_multifab_clone(mf, &back));
  BFT_OK(bf_multifab_set_val_all(back, 0.0));
  BFT_OK(bf_vismf_read(back, name));
  BFT_CHECK(same_bits(mf, back));
  BFT_OK(bf_vismf_read_new(name, &fresh));
  BFT_CHECK(bf_multifab_ncomp(fresh) == 2 && bf_multifab_dim(fresh) == 3);
  bf_intvect ng = bf_multifab_ngrow(fresh), want = iv3(3, 1, 2, 0);
  BFT_CHECK(bf_intvect_equal(&ng, &want));
  BFT_CHECK(bf_boxarray_equal(bf_multifab_boxarray(fresh), bf_multifab_boxarray(mf)));
  BFT_CHECK(same_bits(mf, fresh));
  bf_multifab_destroy(&mf), bf_multifab_destroy(&back), bf_multifab_destroy(&fresh);
}

static void test_checks_and_errors(void) {
  bf_multifab *mf = make_vmf(2, iv3(3, 1, 1, 1)), *other = NULL, *none = NULL;
  char name[400], bad[420];
  snprintf(name, sizeof name, "%s/c2", g_root);
  BFT_OK(bf_vismf_write(mf, name));
  other = make_vmf(1, iv3(3, 1, 1, 1));
  fails_with(bf_vismf_read(other, name), BF_ERROR_VALUE, "components");
  bf_multifab_destroy(&other);
  other = make_vmf(2, iv3(3, 0, 1, 1));
  fails_with(bf_vismf_read(other, name), BF_ERROR_VALUE, "ghost");
  bf_multifab_destroy(&other);
  snprintf(bad, sizeof bad, "%s/missing", g_root);
  fails_with(bf_vismf_read_new(bad, &none), BF_ERROR_IO, "missing_H");
  BFT_CHECK(none == NULL);
  snprintf(bad, sizeof bad, "%s/nodir/chk", g_root);
  fails_with(bf_vismf_write(mf, bad), BF_ERROR_IO, "nodir");
  BFT_FAILS(bf_vismf_write(mf, ""), BF_ERROR_VALUE);
  BFT_FAILS(bf_vismf_write(NULL, name), BF_ERROR_VALUE);
  /* a damaged header: file and line */
  snprintf(bad, sizeof bad, "%s_H", name);
  FILE *f = fopen(bad, "w");
  BFT_CHECK(f != NULL);
  if (f) fputs("1\n1\n2\nzz\n", f), fclose(f);
  fails_with(bf_vismf_read_new(name, &none), BF_ERROR_VALUE, "c2_H, line 4");
  BFT_FAILS(bf_vismf_read(mf, name), BF_ERROR_VALUE);
  bf_multifab_destroy(&mf);
}

int main(void) {
  uint64_t id;
  const char *tmp = getenv("TMPDIR");
  snprintf(g_root, sizeof g_root, "%s/bf_vismf_XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
  if (!mkdtemp(g_root)) return 1;
  bf_runtime_initialize(0, NULL, &id);
  BFT_RUN(test_round_trip);
  BFT_RUN(test_checks_and_errors);
  bf_runtime_finalize();
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_root);
  if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", g_root);
  return bft_report();
}
