/* Reading mesh plotfiles (AMReX's PlotFileData; see include/boxfab/plotfile.h).
 *
 * Every byte is untrusted: text files are read whole up to a size limit, a
 * tokenizer with line numbers gives "<file>, line N: ..." messages, every count
 * is bounded, boxes are checked, FAB file names must be plain names in the
 * level's folder, and FAB data must lie inside its file. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fileio.h"
#include "boxfab/distmap.h"
#include "boxfab/dtype.h"
#include "boxfab/gpu.h"
#include "boxfab/arena.h"
#include "boxfab/plotfile.h"
#include "boxfab/runtime.h"
#include "runtime/comm.h"
#include "io/plotfile_impl.h"

#define PFR_MAX_TEXT (256u << 20) /* largest Header / Cell_H accepted */
#define PFR_MAX_LEVELS 1000
#define PFR_MAX_COMP 100000
#define PFR_MAX_NAME 4096

typedef bf_pf_mfhdr pfr_level;
static int pfr_same_plotfile(const struct bf_plotfile_data *p);

/* stat of <dir>/Header; 0, or -1 with errno set. */
static int pfr_stat_header(const char *dir, struct stat *st) {
  size_t n = strlen(dir);
  char *h = malloc(n + 8);
  if (!h) return -1;
  memcpy(h, dir, n);
  memcpy(h + n, "/Header", 8);
  int rc = stat(h, st), e = errno;
  free(h);
  errno = e;
  return rc;
}

struct bf_plotfile_data {
  char *path;
  dev_t dev; /* the plotfile directory opened: a writer that replaces it makes a new one */
  ino_t ino;
  struct stat hst; /* its Header: a new directory may get the inode number of one deleted before (ext4
                    * reuses them at once), its new Header is another file all the same (other times) */
  int dim, ncomp, finest, coord;
  double time;
  char **names;
  double prob_lo[3], prob_hi[3];
  int *ref_ratio, *steps;
  bf_box *domain;
  double (*dx)[3];
  pfr_level *lev;
};

/* ---- a tokenizer with line numbers ------------------------------------------------------ */
typedef struct {
  const char *s;
  size_t n, pos;
  int line;
  const char *file;
} pfr_text;

#define PFR_FAIL(t, ...) return pfr_fail((t), __VA_ARGS__)
static int pfr_fail(const pfr_text *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static int pfr_fail(const pfr_text *t, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return bf_error_set(BF_ERROR_VALUE, "PlotFileData", "%s, line %d: %s", t->file, t->line, msg);
}

static void pfr_skip_ws(pfr_text *t) {
  while (t->pos < t->n && (t->s[t->pos] == ' ' || t->s[t->pos] == '\t' || t->s[t->pos] == '\n' ||
                           t->s[t->pos] == '\r')) {
    if (t->s[t->pos] == '\n') ++t->line;
    ++t->pos;
  }
}

/* The next whitespace-separated token into buf (at most size-1 chars). */
static int pfr_token(pfr_text *t, char *buf, size_t size, const char *what) {
  pfr_skip_ws(t);
  size_t k = 0;
  if (t->pos >= t->n) PFR_FAIL(t, "unexpected end of file, expected %s", what);
  while (t->pos < t->n && !strchr(" \t\n\r", t->s[t->pos])) {
    if (t->s[t->pos] == '\0') PFR_FAIL(t, "a NUL byte where %s was expected", what);
    if (k + 1 >= size) PFR_FAIL(t, "a token too long where %s was expected", what);
    buf[k++] = t->s[t->pos++];
  }
  buf[k] = '\0';
  return BF_SUCCESS;
}

static int pfr_long(pfr_text *t, long lo, long hi, long *out, const char *what) {
  char buf[64];
  BF_CALL(pfr_token(t, buf, sizeof buf, what));
  char *end;
  errno = 0;
  long v = strtol(buf, &end, 10);
  if (end == buf || *end || errno) PFR_FAIL(t, "expected %s (an integer), got '%s'", what, buf);
  if (v < lo || v > hi) PFR_FAIL(t, "%s %ld is outside [%ld, %ld]", what, v, lo, hi);
  *out = v;
  return BF_SUCCESS;
}

static int pfr_int(pfr_text *t, int lo, int hi, int *out, const char *what) {
  long v;
  BF_CALL(pfr_long(t, lo, hi, &v, what));
  *out = (int)v;
  return BF_SUCCESS;
}

static int pfr_double(pfr_text *t, double *out, const char *what) {
  char buf[128];
  BF_CALL(pfr_token(t, buf, sizeof buf, what));
  char *end;
  double v = strtod(buf, &end);
  if (end == buf || *end) PFR_FAIL(t, "expected %s (a real number), got '%s'", what, buf);
  *out = v;
  return BF_SUCCESS;
}

/* Rest of the current line (after skipping to the start of the next one when at_eol). */
static void pfr_next_line(pfr_text *t) {
  while (t->pos < t->n && t->s[t->pos] != '\n') ++t->pos;
  if (t->pos < t->n) ++t->pos, ++t->line;
}

static int pfr_expect_char(pfr_text *t, char c, const char *what) {
  pfr_skip_ws(t);
  if (t->pos >= t->n) PFR_FAIL(t, "unexpected end of file, expected '%c' in %s", c, what);
  if (t->s[t->pos] != c) PFR_FAIL(t, "expected '%c' in %s", c, what);
  ++t->pos;
  return BF_SUCCESS;
}

/* "(a,b,c)" with dim ints within [lo, hi] */
static int pfr_ivec(pfr_text *t, int dim, long lo, long hi, int *v, const char *what) {
  BF_CALL(pfr_expect_char(t, '(', what));
  for (int d = 0; d < dim; ++d) {
    if (d) BF_CALL(pfr_expect_char(t, ',', what));
    pfr_skip_ws(t);
    const char *start = t->s + t->pos;
    size_t k = 0;
    char buf[32];
    while (t->pos < t->n && (t->s[t->pos] == '-' || t->s[t->pos] == '+' || (t->s[t->pos] >= '0' && t->s[t->pos] <= '9'))) {
      if (k + 1 >= sizeof buf) PFR_FAIL(t, "a number too long in %s", what);
      buf[k++] = t->s[t->pos++];
    }
    buf[k] = '\0';
    (void)start;
    char *end;
    errno = 0;
    long x = strtol(buf, &end, 10);
    if (!k || *end || errno) PFR_FAIL(t, "expected an integer in %s", what);
    if (x < lo || x > hi) PFR_FAIL(t, "%ld is outside [%ld, %ld] in %s", x, lo, hi, what);
    v[d] = (int)x;
  }
  return pfr_expect_char(t, ')', what);
}

static int pfr_box(pfr_text *t, int dim, bf_box *b, const char *what) {
  int lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}, ty[3] = {0, 0, 0};
  BF_CALL(pfr_expect_char(t, '(', what));
  BF_CALL(pfr_ivec(t, dim, INT_MIN / 2, INT_MAX / 2, lo, what));
  BF_CALL(pfr_ivec(t, dim, INT_MIN / 2, INT_MAX / 2, hi, what));
  BF_CALL(pfr_ivec(t, dim, 0, 1, ty, what));
  BF_CALL(pfr_expect_char(t, ')', what));
  unsigned type = 0;
  for (int d = 0; d < dim; ++d) {
    if (hi[d] < lo[d]) PFR_FAIL(t, "an empty box in %s", what);
    if (ty[d]) type |= 1u << d;
  }
  if (bf_box_define(dim, lo, hi, type, b) != BF_SUCCESS) {
    bf_error_clear();
    PFR_FAIL(t, "a bad box in %s", what);
  }
  int64_t npts;
  if (bf_box_numpts(b, &npts) != BF_SUCCESS) {
    bf_error_clear();
    PFR_FAIL(t, "a box too large in %s", what);
  }
  return BF_SUCCESS;
}

/* ---- files -------------------------------------------------------------------------------- */
static char *pfr_join(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  char *s = malloc(la + lb + 2);
  if (!s) return NULL;
  memcpy(s, a, la);
  s[la] = '/';
  memcpy(s + la + 1, b, lb + 1);
  return s;
}

static int pfr_slurp(const char *path, char **out, size_t *n) {
  FILE *f = bf_fopen_rb(path);
  if (!f) return bf_error_set(BF_ERROR_IO, "PlotFileData", "cannot open '%s': %s", path, strerror(errno));
  struct stat st;
  if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
    fclose(f);
    return bf_error_set(BF_ERROR_IO, "PlotFileData", "'%s' is not a regular file", path);
  }
  if ((uint64_t)st.st_size > PFR_MAX_TEXT) {
    fclose(f);
    return bf_error_set(BF_ERROR_VALUE, "PlotFileData", "'%s' is too large for a header (%lld bytes)", path,
                        (long long)st.st_size);
  }
  size_t len = (size_t)st.st_size;
  char *s = malloc(len + 1);
  if (!s) {
    fclose(f);
    BF_ERROR(BF_ERROR_MEMORY, "out of memory reading '%s'", path);
  }
  size_t got = fread(s, 1, len, f);
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    free(s);
    return bf_error_set(BF_ERROR_IO, "PlotFileData", "cannot read '%s'", path);
  }
  s[got] = '\0';
  *out = s, *n = got;
  return BF_SUCCESS;
}

/* A relative path inside the plotfile: no absolute path, no "..", no empty part. */
static bool pfr_safe_relpath(const char *s) {
  if (!s[0] || s[0] == '/') return false;
  const char *p = s;
  while (*p) {
    const char *q = strchr(p, '/');
    size_t len = q ? (size_t)(q - p) : strlen(p);
    if (len == 0 || (len == 2 && p[0] == '.' && p[1] == '.') || (len == 1 && p[0] == '.')) return false;
    p += len;
    if (*p == '/') ++p;
  }
  return true;
}

/* ---- Cell_H ---------------------------------------------------------------------------- */
/* The dimension of the boxes of a multi-FAB header: the commas of its first box's lo. */
static int pfr_detect_dim(const char *s, size_t n) {
  const char *p = memchr(s, '(', n);
  if (!p) return 0;
  p = memchr(p + 1, '(', n - (size_t)(p + 1 - s)); /* the first box "((" */
  while (p && p + 1 < s + n && p[1] != '(') p = memchr(p + 1, '(', n - (size_t)(p + 1 - s));
  if (!p) return 0;
  int dim = 1;
  for (const char *q = p + 2; q < s + n && *q != ')'; ++q)
    if (*q == ',') ++dim;
  return dim >= 1 && dim <= 3 ? dim : 0;
}

static int pfr_level_header(bf_plotfile_data *p, int l, const char *rel) {
  size_t lr = strlen(rel);
  char *hpath = malloc(strlen(p->path) + lr + 8);
  if (!hpath) BF_ERROR(BF_ERROR_MEMORY, "out of memory");
  sprintf(hpath, "%s/%s_H", p->path, rel);
  int err = bf_pf_read_mf_header(hpath, p->dim, p->ncomp, &p->lev[l]);
  free(hpath);
  return err;
}

int bf_pf_read_mf_header(const char *hpath, int dim, int expect_ncomp, bf_pf_mfhdr *L) {
  char *dir = NULL, *text = NULL;
  size_t n = 0;
  int err = BF_SUCCESS;
  bf_box *boxes = NULL;
  {
    dir = malloc(strlen(hpath) + 3);
    if (!dir) BF_ERROR(BF_ERROR_MEMORY, "out of memory");
    strcpy(dir, hpath);
    char *sl = strrchr(dir, '/');
    if (sl)
      *sl = '\0';
    else
      strcpy(dir, ".");
  }
  if ((err = pfr_slurp(hpath, &text, &n))) goto done;
  pfr_text t = {text, n, 0, 1, hpath};
  /* no box to tell the dimension from: parse on, the error comes at its line */
  if (dim == 0 && !(dim = pfr_detect_dim(text, n))) dim = 3;
  L->dim = dim;
  int vers, how, ncomp;
  if ((err = pfr_int(&t, INT_MIN, INT_MAX, &vers, "the VisMF version"))) goto done;
  if (vers != 1) {
    err = pfr_fail(&t, "VisMF version %d is not supported (only 1, AMReX's default)", vers);
    goto done;
  }
  if ((err = pfr_int(&t, 1, 1, &how, "the VisMF 'how'"))) goto done;
  if ((err = pfr_int(&t, 0, PFR_MAX_COMP, &ncomp, "the number of components"))) goto done;
  if (expect_ncomp >= 0 && ncomp != expect_ncomp) {
    err = pfr_fail(&t, "%d components, but the Header names %d", ncomp, expect_ncomp);
    goto done;
  }
  L->ncomp = ncomp;
  L->ngrow = bf_intvect_splat(dim, 0);
  pfr_skip_ws(&t);
  if (t.pos < t.n && t.s[t.pos] == '(') {
    if ((err = pfr_ivec(&t, dim, 0, 1 << 20, L->ngrow.v, "the ghost width"))) goto done;
  } else {
    int g;
    if ((err = pfr_int(&t, 0, 1 << 20, &g, "the ghost width"))) goto done;
    L->ngrow = bf_intvect_splat(dim, g);
  }
  long nbox;
  int zero;
  if ((err = pfr_expect_char(&t, '(', "the BoxArray"))) goto done;
  size_t remaining = t.n - t.pos;
  if ((err = pfr_long(&t, 0, (long)(remaining / 8 + 1 < INT_MAX ? remaining / 8 + 1 : INT_MAX), &nbox,
                      "the number of boxes")))
    goto done;
  if ((err = pfr_int(&t, 0, 0, &zero, "the BoxArray's hash tag"))) goto done;
  boxes = malloc((size_t)(nbox ? nbox : 1) * sizeof *boxes);
  if (!boxes) {
    err = bf_error_set(BF_ERROR_MEMORY, "PlotFileData", "out of memory");
    goto done;
  }
  for (long i = 0; i < nbox; ++i) {
    if ((err = pfr_box(&t, dim, &boxes[i], "a box of the BoxArray"))) goto done;
    if (i && boxes[i].type != boxes[0].type) {
      err = pfr_fail(&t, "boxes of different index types");
      goto done;
    }
  }
  if ((err = pfr_expect_char(&t, ')', "the BoxArray"))) goto done;
  long nfod;
  if ((err = pfr_long(&t, nbox, nbox, &nfod, "the number of FabOnDisk lines (one per box)"))) goto done;
  L->nbox = (int)nbox;
  L->fab_file = calloc((size_t)(nbox ? nbox : 1), sizeof *L->fab_file);
  L->fab_offset = calloc((size_t)(nbox ? nbox : 1), sizeof *L->fab_offset);
  if (!L->fab_file || !L->fab_offset) {
    err = bf_error_set(BF_ERROR_MEMORY, "PlotFileData", "out of memory");
    goto done;
  }
  for (long i = 0; i < nbox; ++i) {
    char word[32], name[PFR_MAX_NAME];
    long off;
    if ((err = pfr_token(&t, word, sizeof word, "'FabOnDisk:'"))) goto done;
    if (strcmp(word, "FabOnDisk:")) {
      err = pfr_fail(&t, "expected 'FabOnDisk:', got '%s'", word);
      goto done;
    }
    if ((err = pfr_token(&t, name, sizeof name, "a FAB file name"))) goto done;
    if (strchr(name, '/') || !strcmp(name, "..") || !strcmp(name, ".")) {
      err = pfr_fail(&t, "FAB file name '%s' is not a plain name in the level's folder", name);
      goto done;
    }
    if ((err = pfr_long(&t, 0, LONG_MAX, &off, "a FAB offset"))) goto done;
    if (!(L->fab_file[i] = pfr_join(dir, name))) {
      err = bf_error_set(BF_ERROR_MEMORY, "PlotFileData", "out of memory");
      goto done;
    }
    L->fab_offset[i] = off;
  }
  /* the min and max blocks: checked for shape when present */
  for (int which = 0; which < 2; ++which) {
    pfr_skip_ws(&t);
    if (t.pos >= t.n) break;
    long a, b;
    char buf[64];
    if ((err = pfr_token(&t, buf, sizeof buf, "the min/max block size"))) goto done;
    if (sscanf(buf, "%ld,%ld", &a, &b) != 2 || a != nbox || b != ncomp) {
      err = pfr_fail(&t, "expected '%ld,%d' (the min/max block), got '%s'", nbox, ncomp, buf);
      goto done;
    }
    for (long i = 0; i < nbox; ++i) {
      for (int c = 0; c < ncomp; ++c) {
        pfr_skip_ws(&t);
        const char *start = t.s + t.pos;
        char *end;
        strtod(start, &end);
        if (end == start || end >= t.s + t.n || *end != ',') {
          err = pfr_fail(&t, "expected a real number followed by ',' in the min/max block");
          goto done;
        }
        t.pos = (size_t)(end - t.s) + 1;
      }
    }
  }
  if ((err = bf_boxarray_create_from_boxes(dim, nbox, boxes, &L->ba))) goto done;
  if ((err = bf_distmap_create_balanced(L->ba, bf_parallel_nprocs() > 0 ? bf_parallel_nprocs() : 1,
                                        BF_DISTMAP_SFC, &L->dm)))
    goto done;
done:
  free(dir), free(text), free(boxes);
  return err;
}

/* ---- Header ------------------------------------------------------------------------------- */
static int pfr_header(bf_plotfile_data *p) {
  char *hpath = pfr_join(p->path, "Header"), *text = NULL;
  if (!hpath) BF_ERROR(BF_ERROR_MEMORY, "out of memory");
  size_t n = 0;
  int err = pfr_slurp(hpath, &text, &n);
  char **rels = NULL;
  int nlev = 0;
  if (err) goto done;
  pfr_text t = {text, n, 0, 1, hpath};
  char version[256];
  if ((err = pfr_token(&t, version, sizeof version, "the version name"))) goto done;
  if ((err = pfr_int(&t, 0, PFR_MAX_COMP, &p->ncomp, "the number of variables"))) goto done;
  pfr_next_line(&t);
  p->names = calloc((size_t)(p->ncomp ? p->ncomp : 1), sizeof *p->names);
  if (!p->names) {
    err = bf_error_set(BF_ERROR_MEMORY, "PlotFileData", "out of memory");
    goto done;
  }
  for (int i = 0; i < p->ncomp; ++i) {
    if (t.pos >= t.n) {
      err = pfr_fail(&t, "unexpected end of file in the variable names");
      goto done;
    }
    size_t a = t.pos, b = a;
    while (b < t.n && t.s[b] != '\n') ++b;
    size_t e = b;
    while (e > a && strchr(" \t\r", t.s[e - 1])) --e;
    while (a < e && strchr(" \t", t.s[a])) ++a;
    if (memchr(t.s + a, '\0', e - a)) {
      err = pfr_fail(&t, "a NUL byte in a variable name");
      goto done;
    }
    if (!(p->names[i] = malloc(e - a + 1))) {
      err = bf_error_set(BF_ERROR_MEMORY, "PlotFileData", "out of memory");
      goto done;
    }
    memcpy(p->names[i], t.s + a, e - a);
    p->names[i][e - a] = '\0';
    pfr_next_line(&t);
  }
  if ((err = pfr_int(&t, 1, BF_SPACEDIM_MAX, &p->dim, "the space dimension"))) goto done;
  if ((err = pfr_double(&t, &p->time, "the time"))) goto done;
  if ((err = pfr_int(&t, 0, PFR_MAX_LEVELS - 1, &p->finest, "the finest level"))) goto done;
  nlev = p->finest + 1;
  for (int d = 0; d < p->dim; ++d)
    if ((err = pfr_double(&t, &p->prob_lo[d], "prob_lo"))) goto done;
  for (int d = 0; d < p->dim; ++d)
    if ((err = pfr_double(&t, &p->prob_hi[d], "prob_hi"))) goto done;
  p->ref_ratio = calloc((size_t)nlev, sizeof *p->ref_ratio);
  p->steps = calloc((size_t)nlev, sizeof *p->steps);
  p->domain = calloc((size_t)nlev, sizeof *p->domain);
  p->dx = calloc((size_t)nlev, sizeof *p->dx);
  p->lev = calloc((size_t)nlev, sizeof *p->lev);
  rels = calloc((size_t)nlev, sizeof *rels);
  if (!p->ref_ratio || !p->steps || !p->domain || !p->dx || !p->lev || !rels) {
    err = bf_error_set(BF_ERROR_MEMORY, "PlotFileData", "out of memory");
    goto done;
  }
  for (int l = 0; l < p->finest; ++l)
    if ((err = pfr_int(&t, 1, 1 << 20, &p->ref_ratio[l], "a refinement ratio"))) goto done;
  for (int l = 0; l < nlev; ++l)
    if ((err = pfr_box(&t, p->dim, &p->domain[l], "a level's domain"))) goto done;
  for (int l = 0; l < nlev; ++l)
    if ((err = pfr_int(&t, INT_MIN, INT_MAX, &p->steps[l], "a level step"))) goto done;
  for (int l = 0; l < nlev; ++l)
    for (int d = 0; d < p->dim; ++d)
      if ((err = pfr_double(&t, &p->dx[l][d], "a cell size"))) goto done;
  if ((err = pfr_int(&t, 0, 2, &p->coord, "the coordinate system"))) goto done;
  int bwidth;
  if ((err = pfr_int(&t, 0, INT_MAX, &bwidth, "the boundary width"))) goto done;
  for (int l = 0; l < nlev; ++l) {
    int lev, ngrids, step;
    double gtime;
    if ((err = pfr_int(&t, l, l, &lev, "the level number"))) goto done;
    size_t remaining = t.n - t.pos;
    if ((err = pfr_int(&t, 0, (int)(remaining / 4 < INT_MAX ? remaining / 4 : INT_MAX), &ngrids,
                       "the number of grids")))
      goto done;
    if ((err = pfr_double(&t, &gtime, "the level's time"))) goto done;
    if ((err = pfr_int(&t, INT_MIN, INT_MAX, &step, "the level's step"))) goto done;
    for (int g = 0; g < ngrids; ++g)
      for (int d = 0; d < 2 * p->dim; ++d) {
        double x;
        if ((err = pfr_double(&t, &x, "a grid's physical corner"))) goto done;
      }
    char rel[PFR_MAX_NAME];
    if ((err = pfr_token(&t, rel, sizeof rel, "the level's MultiFab path"))) goto done;
    if (!pfr_safe_relpath(rel)) {
      err = pfr_fail(&t, "the MultiFab path '%s' leaves the plotfile", rel);
      goto done;
    }
    if (!(rels[l] = strdup(rel))) {
      err = bf_error_set(BF_ERROR_MEMORY, "PlotFileData", "out of memory");
      goto done;
    }
    (void)ngrids;
  }
  for (int l = 0; l < nlev && !err; ++l) {
    p->lev[l].ngrow = bf_intvect_splat(p->dim, 0);
    if (p->ncomp > 0) err = pfr_level_header(p, l, rels[l]);
  }
done:
  if (rels)
    for (int l = 0; l < nlev; ++l) free(rels[l]);
  free(rels), free(hpath), free(text);
  return err;
}

void bf_pf_mfhdr_clear(bf_pf_mfhdr *L) {
  bf_boxarray_destroy(&L->ba);
  bf_distmap_destroy(&L->dm);
  if (L->fab_file)
    for (int i = 0; i < L->nbox; ++i) free(L->fab_file[i]);
  free(L->fab_file), free(L->fab_offset);
  L->fab_file = NULL, L->fab_offset = NULL, L->nbox = 0;
}

void bf_plotfile_data_destroy(bf_plotfile_data **pp) {
  if (!pp || !*pp) return;
  bf_plotfile_data *p = *pp;
  if (p->names)
    for (int i = 0; i < p->ncomp; ++i) free(p->names[i]);
  if (p->lev)
    for (int l = 0; l <= p->finest; ++l) {
      bf_pf_mfhdr_clear(&p->lev[l]);
    }
  free(p->names), free(p->ref_ratio), free(p->steps), free(p->domain), free(p->dx), free(p->lev), free(p->path);
  free(p);
  *pp = NULL;
}

int bf_plotfile_data_open(const char *path, bf_plotfile_data **out) {
  BF_CHECK(path && path[0], BF_ERROR_VALUE, "the plotfile path must not be empty");
  BF_CHECK(out, BF_ERROR_VALUE, "out must not be NULL");
  bf_plotfile_data *p = calloc(1, sizeof *p);
  if (!p || !(p->path = strdup(path))) {
    free(p);
    BF_ERROR(BF_ERROR_MEMORY, "out of memory");
  }
  struct stat st;
  int err = BF_SUCCESS;
  if (stat(path, &st) != 0 || pfr_stat_header(path, &p->hst) != 0) {
    err = bf_error_set(BF_ERROR_IO, "PlotFileData", "cannot open '%s/Header': %s", path, strerror(errno));
  } else {
    p->dev = st.st_dev, p->ino = st.st_ino;
    err = pfr_header(p);
    if (!err) err = pfr_same_plotfile(p); /* not replaced while its headers were read */
  }
  if (err) {
    bf_plotfile_data_destroy(&p);
    return err;
  }
  *out = p;
  return BF_SUCCESS;
}

/* ---- accessors -------------------------------------------------------------------------- */
int bf_plotfile_data_dim(const bf_plotfile_data *p) { return p->dim; }
double bf_plotfile_data_time(const bf_plotfile_data *p) { return p->time; }
int bf_plotfile_data_finest_level(const bf_plotfile_data *p) { return p->finest; }
int bf_plotfile_data_coord(const bf_plotfile_data *p) { return p->coord; }
int bf_plotfile_data_ncomp(const bf_plotfile_data *p) { return p->ncomp; }
const char *bf_plotfile_data_varname(const bf_plotfile_data *p, int i) {
  return i >= 0 && i < p->ncomp ? p->names[i] : NULL;
}
void bf_plotfile_data_prob(const bf_plotfile_data *p, double *lo, double *hi) {
  for (int d = 0; d < p->dim; ++d) {
    if (lo) lo[d] = p->prob_lo[d];
    if (hi) hi[d] = p->prob_hi[d];
  }
}
int bf_plotfile_data_find_var(const bf_plotfile_data *p, const char *name) {
  for (int i = 0; i < p->ncomp; ++i)
    if (!strcmp(p->names[i], name)) return i;
  return -1;
}

#define PFR_LEVEL(p, level)                                                                                      \
  BF_CHECK((level) >= 0 && (level) <= (p)->finest, BF_ERROR_INDEX, "level %d is outside [0, %d]", (level),       \
           (p)->finest)

int bf_plotfile_data_ref_ratio(const bf_plotfile_data *p, int level, int *rr) {
  PFR_LEVEL(p, level);
  *rr = p->ref_ratio[level];
  return BF_SUCCESS;
}
int bf_plotfile_data_level_step(const bf_plotfile_data *p, int level, int *step) {
  PFR_LEVEL(p, level);
  *step = p->steps[level];
  return BF_SUCCESS;
}
int bf_plotfile_data_prob_domain(const bf_plotfile_data *p, int level, bf_box *box) {
  PFR_LEVEL(p, level);
  *box = p->domain[level];
  return BF_SUCCESS;
}
int bf_plotfile_data_cell_size(const bf_plotfile_data *p, int level, double *dx) {
  PFR_LEVEL(p, level);
  for (int d = 0; d < p->dim; ++d) dx[d] = p->dx[level][d];
  return BF_SUCCESS;
}
int bf_plotfile_data_ngrow(const bf_plotfile_data *p, int level, bf_intvect *ng) {
  PFR_LEVEL(p, level);
  *ng = p->lev[level].ngrow;
  return BF_SUCCESS;
}
int bf_plotfile_data_boxarray(const bf_plotfile_data *p, int level, bf_boxarray **ba) {
  PFR_LEVEL(p, level);
  BF_CHECK(p->lev[level].ba, BF_ERROR_RUNTIME, "the plotfile has no variables: no BoxArray");
  *ba = p->lev[level].ba;
  return BF_SUCCESS;
}
int bf_plotfile_data_distmap(const bf_plotfile_data *p, int level, bf_distmap **dm) {
  PFR_LEVEL(p, level);
  BF_CHECK(p->lev[level].dm, BF_ERROR_RUNTIME, "the plotfile has no variables: no DistributionMapping");
  *dm = p->lev[level].dm;
  return BF_SUCCESS;
}
int bf_plotfile_data_set_distmap(bf_plotfile_data *p, int level, bf_distmap *dm) {
  PFR_LEVEL(p, level);
  if (dm && p->lev[level].dm && bf_distmap_size(dm) == bf_distmap_size(p->lev[level].dm)) {
    bf_distmap *old = p->lev[level].dm;
    p->lev[level].dm = bf_distmap_retain(dm);
    bf_distmap_destroy(&old);
  }
  return BF_SUCCESS;
}

/* ---- FAB data ---------------------------------------------------------------------------- */
static const char *const pfr_descriptors[4] = {
    "((8, (64 11 52 0 1 12 0 1023)),(8, (8 7 6 5 4 3 2 1)))", "((8, (64 11 52 0 1 12 0 1023)),(8, (1 2 3 4 5 6 7 8)))",
    "((8, (32 8 23 0 1 9 0 127)),(4, (4 3 2 1)))", "((8, (32 8 23 0 1 9 0 127)),(4, (1 2 3 4)))"};

static bool pfr_host_little(void) {
  uint16_t x = 1;
  unsigned char c;
  memcpy(&c, &x, 1);
  return c == 1;
}

/* The data files one read has open: each FAB is read from the file opened for the first FAB of that name,
 * and a file opened again (FABs of several files interleave) must be the same one (device and inode), so
 * that a writer replacing a data file during the read (VisMF.Write of the same name) cannot mix FABs of two
 * checkpoints into one MultiFab without an error. */
typedef struct {
  FILE *f; /* the open one, named by L->fab_file[cur] */
  int cur;
  struct stat st;
  int n, cap;
  const char **path;
  dev_t *dev;
  ino_t *ino;
} pfr_files;

static void pfr_files_close(pfr_files *F) {
  if (F->f) fclose(F->f);
  free(F->path), free(F->dev), free(F->ino);
  memset(F, 0, sizeof *F);
}

static int pfr_files_open(pfr_files *F, const bf_pf_mfhdr *L, int i) {
  const char *file = L->fab_file[i];
  if (F->f && !strcmp(L->fab_file[F->cur], file)) return BF_SUCCESS;
  if (F->f) fclose(F->f), F->f = NULL;
  FILE *f = bf_fopen_rb(file);
  if (!f) return bf_error_set(BF_ERROR_IO, "PlotFileData", "cannot open '%s': %s", file, strerror(errno));
  if (fstat(fileno(f), &F->st) != 0 || !S_ISREG(F->st.st_mode)) {
    fclose(f);
    return bf_error_set(BF_ERROR_IO, "PlotFileData", "'%s' is not a regular file", file);
  }
  for (int k = F->n - 1; k >= 0; --k)
    if (!strcmp(F->path[k], file)) {
      if (F->dev[k] != F->st.st_dev || F->ino[k] != F->st.st_ino) {
        fclose(f);
        return bf_error_set(BF_ERROR_IO, "PlotFileData", "'%s' was replaced while it was being read", file);
      }
      F->f = f, F->cur = i;
      return BF_SUCCESS;
    }
  if (F->n == F->cap) {
    int cap = F->cap ? 2 * F->cap : 8;
    const char **p = realloc(F->path, (size_t)cap * sizeof *p);
    if (p) F->path = p;
    dev_t *d = p ? realloc(F->dev, (size_t)cap * sizeof *d) : NULL;
    if (d) F->dev = d;
    ino_t *o = d ? realloc(F->ino, (size_t)cap * sizeof *o) : NULL;
    if (!o) {
      fclose(f);
      BF_ERROR(BF_ERROR_MEMORY, "out of memory");
    }
    F->ino = o, F->cap = cap;
  }
  F->path[F->n] = file, F->dev[F->n] = F->st.st_dev, F->ino[F->n] = F->st.st_ino, ++F->n;
  F->f = f, F->cur = i;
  return BF_SUCCESS;
}

static int pfr_read_fab(const bf_pf_mfhdr *L, int i, int comp, int ncomp_out, const bf_mf_fab *dst, double *host,
                        pfr_files *F) {
  const char *file = L->fab_file[i];
  BF_CALL(pfr_files_open(F, L, i));
  FILE *f = F->f;
  int err = BF_SUCCESS;
  unsigned char *buf = NULL;
  const struct stat st = F->st;
  if (L->fab_offset[i] >= (int64_t)st.st_size || fseeko(f, (off_t)L->fab_offset[i], SEEK_SET) != 0) {
    err = bf_error_set(BF_ERROR_VALUE, "PlotFileData", "'%s': FAB %d starts at %lld, past the end (%lld bytes)",
                       file, i, (long long)L->fab_offset[i], (long long)st.st_size);
    goto done;
  }
  char line[1024];
  if (!fgets(line, sizeof line, f) || !strchr(line, '\n')) {
    err = bf_error_set(BF_ERROR_VALUE, "PlotFileData", "'%s': FAB %d has no header line", file, i);
    goto done;
  }
  int kind = -1;
  if (strncmp(line, "FAB ", 4) == 0)
    for (int k = 0; k < 4; ++k)
      if (!strncmp(line + 4, pfr_descriptors[k], strlen(pfr_descriptors[k]))) kind = k;
  if (kind < 0) {
    err = bf_error_set(BF_ERROR_VALUE, "PlotFileData",
                       "'%s': FAB %d: not a float64/float32 IEEE FAB header (AMReX's NATIVE/NATIVE_32/IEEE_32)",
                       file, i);
    goto done;
  }
  pfr_text t = {line, strlen(line), 4 + strlen(pfr_descriptors[kind]), 1, file};
  bf_box box;
  int fncomp;
  if ((err = pfr_box(&t, L->dim, &box, "a FAB header"))) goto done;
  if ((err = pfr_int(&t, 1, PFR_MAX_COMP, &fncomp, "the FAB's number of components"))) goto done;
  if (fncomp != L->ncomp || !bf_box_contains_box(&box, &dst->validbox) || box.type != dst->validbox.type ||
      (L->exact && !bf_box_equal(&box, &dst->fabbox))) {
    err = bf_error_set(BF_ERROR_VALUE, "PlotFileData", "'%s': FAB %d (%d components) does not cover box %d", file,
                       i, fncomp, i);
    goto done;
  }
  size_t esize = kind < 2 ? 8 : 4;
  bool swap = (kind % 2 == 0) != pfr_host_little();
  int64_t npts;
  bf_box_numpts(&box, &npts);
  off_t start = ftello(f);
  size_t comp_bytes, all_bytes, end_pos;
  if (start < 0 || !bf_size_mul((size_t)npts, esize, &comp_bytes) ||
      !bf_size_mul(comp_bytes, (size_t)fncomp, &all_bytes) || !bf_size_add(all_bytes, (size_t)start, &end_pos) ||
      end_pos > (size_t)st.st_size) {
    err = bf_error_set(BF_ERROR_VALUE, "PlotFileData", "'%s': FAB %d is truncated (needs %lld bytes from %lld)",
                       file, i, (long long)npts * fncomp * (long long)esize, (long long)start);
    goto done;
  }
  int64_t nx = bf_box_length(&box, 0), ny = L->dim > 1 ? bf_box_length(&box, 1) : 1;
  if (!(buf = malloc(comp_bytes ? comp_bytes : 1))) {
    err = bf_error_set(BF_ERROR_MEMORY, "PlotFileData", "out of memory");
    goto done;
  }
  /* the part of the FAB inside the destination's (grown) box */
  bf_box ov;
  bf_box_intersection(&box, &dst->fabbox, &ov);
  /* native float64 covering exactly the destination's box: straight into the destination */
  const bool direct = esize == 8 && !swap && bf_box_equal(&box, &dst->fabbox) &&
                      dst->stride[0] == nx && dst->stride[1] == nx * ny && dst->stride[2] == npts;
  for (int c = 0; c < ncomp_out; ++c) {
    int src_c = comp >= 0 ? comp : c;
    void *into = direct ? (void *)(host + (size_t)c * (size_t)dst->stride[2]) : (void *)buf;
    if (fseeko(f, start + (off_t)comp_bytes * src_c, SEEK_SET) != 0 || fread(into, 1, comp_bytes, f) != comp_bytes) {
      err = bf_error_set(BF_ERROR_IO, "PlotFileData", "cannot read '%s'", file);
      goto done;
    }
    if (direct) continue;
    int lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (int d = 0; d < L->dim; ++d) lo[d] = ov.lo[d], hi[d] = ov.hi[d];
    for (int k = lo[2]; k <= hi[2]; ++k)
      for (int j = lo[1]; j <= hi[1]; ++j)
        for (int ii = lo[0]; ii <= hi[0]; ++ii) {
          int64_t s = (ii - box.lo[0]) + nx * ((L->dim > 1 ? j - box.lo[1] : 0) +
                                               ny * (L->dim > 2 ? k - box.lo[2] : 0));
          unsigned char e[8];
          memcpy(e, buf + (size_t)s * esize, esize);
          if (swap)
            for (size_t b = 0; b < esize / 2; ++b) {
              unsigned char x = e[b];
              e[b] = e[esize - 1 - b], e[esize - 1 - b] = x;
            }
          double v;
          if (esize == 8) {
            memcpy(&v, e, 8);
          } else {
            float fv;
            memcpy(&fv, e, 4);
            v = fv;
          }
          int64_t o = c * dst->stride[2] + (L->dim > 2 ? k - dst->fabbox.lo[2] : 0) * dst->stride[1] +
                      (L->dim > 1 ? j - dst->fabbox.lo[1] : 0) * dst->stride[0] + (ii - dst->fabbox.lo[0]);
          host[o] = v;
        }
  }
done:
  free(buf);
  return err;
}

int bf_pf_read_fab(const bf_pf_mfhdr *L, int i, int comp, int ncomp_out, const bf_mf_fab *dst, double *host) {
  pfr_files F = {0};
  int err = pfr_read_fab(L, i, comp, ncomp_out, dst, host, &F);
  pfr_files_close(&F);
  return err;
}

/* Before allocating a level's MultiFab: every box's data must fit in its file (at least its valid
 * points, at 4 bytes each), so that a header with huge boxes is refused without first allocating and
 * zero-filling gigabytes.  One stat per distinct data file. */
static int pfr_check_sizes(const bf_pf_mfhdr *L) {
  const char *last = NULL;
  int64_t size = 0;
  for (int i = 0; i < L->nbox; ++i) {
    if (!last || strcmp(last, L->fab_file[i]) != 0) {
      struct stat st;
      if (stat(L->fab_file[i], &st) != 0)
        return bf_error_set(BF_ERROR_IO, "PlotFileData", "cannot open '%s': %s", L->fab_file[i], strerror(errno));
      if (!S_ISREG(st.st_mode))
        return bf_error_set(BF_ERROR_IO, "PlotFileData", "'%s' is not a regular file", L->fab_file[i]);
      last = L->fab_file[i], size = (int64_t)st.st_size;
    }
    bf_box b;
    int64_t npts = 0;
    if (bf_boxarray_get(L->ba, i, &b) != BF_SUCCESS || bf_box_numpts(&b, &npts) != BF_SUCCESS) continue;
    double need = (double)L->fab_offset[i] + (double)npts * (double)L->ncomp * 4.0;
    if (L->fab_offset[i] < 0 || need > (double)size)
      return bf_error_set(BF_ERROR_VALUE, "PlotFileData",
                          "'%s': FAB %d is truncated or past the end (%lld points x %d components from byte "
                          "%lld; the file has %lld bytes)",
                          L->fab_file[i], i, (long long)npts, L->ncomp, (long long)L->fab_offset[i], (long long)size);
  }
  return BF_SUCCESS;
}

int bf_pf_read_local_fabs(const bf_pf_mfhdr *L, int comp, bf_multifab *mf, const char *who) {
  int nc = bf_multifab_ncomp(mf), err = BF_SUCCESS;
  bool host = bf_arena_is_host_accessible(bf_multifab_arena(mf));
  double *stage = NULL;
  pfr_files F = {0};
  for (int64_t li = 0; !err && li < bf_multifab_nlocal(mf); ++li) {
    bf_mf_fab f;
    if ((err = bf_multifab_local_fab(mf, li, &f))) break;
    size_t bytes = (size_t)f.stride[2] * (size_t)nc * sizeof(double);
    double *dst = f.data;
    if (!host) {
      double *s = realloc(stage, bytes ? bytes : 1);
      if (!s) {
        err = bf_error_set(BF_ERROR_MEMORY, who, "out of memory");
        break;
      }
      stage = s;
      if ((err = bf_gpu_memcpy(stage, f.data, bytes))) break;
      dst = stage;
    }
    err = pfr_read_fab(L, (int)f.index, comp, nc, &f, dst, &F);
    if (!err && !host) err = bf_gpu_memcpy(f.data, stage, bytes);
  }
  pfr_files_close(&F);
  free(stage);
  return err;
}

/* The headers were parsed from the directory now at p->path (not one written there since: a writer renames a
 * new directory into place, so the data files under the name would belong to other headers -- other boxes,
 * offsets, variables -- and could read as wrong values without an error). */
static int pfr_same_plotfile(const bf_plotfile_data *p) {
  struct stat st, hst;
  if (stat(p->path, &st) != 0 || pfr_stat_header(p->path, &hst) != 0)
    return bf_error_set(BF_ERROR_IO, "PlotFileData", "cannot open '%s': %s", p->path, strerror(errno));
  if (st.st_dev != p->dev || st.st_ino != p->ino || hst.st_dev != p->hst.st_dev || hst.st_ino != p->hst.st_ino ||
      hst.st_size != p->hst.st_size || hst.st_mtim.tv_sec != p->hst.st_mtim.tv_sec ||
      hst.st_mtim.tv_nsec != p->hst.st_mtim.tv_nsec || hst.st_ctim.tv_sec != p->hst.st_ctim.tv_sec ||
      hst.st_ctim.tv_nsec != p->hst.st_ctim.tv_nsec)
    return bf_error_set(BF_ERROR_IO, "PlotFileData",
                        "the plotfile '%s' was replaced (written again) after it was opened: open it again", p->path);
  return BF_SUCCESS;
}

int bf_plotfile_data_get(const bf_plotfile_data *p, int level, int comp, bf_multifab **out) {
  PFR_LEVEL(p, level);
  BF_CHECK(p->ncomp > 0, BF_ERROR_RUNTIME, "the plotfile '%s' has no variables", p->path);
  BF_CHECK(comp >= -1 && comp < p->ncomp, BF_ERROR_INDEX, "component %d is outside [0, %d)", comp, p->ncomp);
  const pfr_level *L = &p->lev[level];
  int nc = comp >= 0 ? 1 : p->ncomp;
  BF_CALL(pfr_same_plotfile(p));
  BF_CALL(pfr_check_sizes(L));
  bf_multifab *mf = NULL;
  BF_CALL(bf_multifab_create(L->ba, L->dm, nc, L->ngrow, BF_DTYPE_DOUBLE, NULL, true, &mf));
  int err = bf_multifab_set_val_all(mf, 0.0);
  if (!err) err = bf_pf_read_local_fabs(L, comp, mf, "PlotFileData");
  if (!err) err = pfr_same_plotfile(p); /* replaced while its data was read: some FABs may be the new ones */
  err = bf_comm_agree(bf_pf_comm_of_mf(mf), err); /* each rank read its own boxes: one failure fails all */
  if (err) {
    bf_multifab_destroy(&mf);
    return err;
  }
  *out = mf;
  return BF_SUCCESS;
}
