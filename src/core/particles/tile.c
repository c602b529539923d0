/* Particle layouts, particle tiles and the particle id counters (see
 * include/boxfab/particles.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boxfab/idcpu.h"
#include "boxfab/particles.h"
#include "base/object.h"
#include "particles/podvec_impl.h"

/* ---- layouts ------------------------------------------------------------------- */

#define PLAYOUT_MAX_COMPS 1024

int bf_playout_check(const bf_playout *l) {
  BF_CHECK(l != NULL, BF_ERROR_VALUE, "NULL particle layout");
  BF_CHECK(l->dim >= 1 && l->dim <= BF_SPACEDIM_MAX, BF_ERROR_VALUE, "particle layout dimension %d not in 1..3",
           l->dim);
  BF_CHECK(l->nsr >= 0 && l->nsi >= 0 && l->nar >= 0 && l->nai >= 0 && l->nsr <= PLAYOUT_MAX_COMPS &&
               l->nsi <= PLAYOUT_MAX_COMPS && l->nar <= PLAYOUT_MAX_COMPS && l->nai <= PLAYOUT_MAX_COMPS,
           BF_ERROR_VALUE, "particle layout counts (%d, %d, %d, %d) must be in 0..%d", l->nsr, l->nsi, l->nar, l->nai,
           PLAYOUT_MAX_COMPS);
  if (l->pure_soa) {
    BF_CHECK(l->nsr == 0 && l->nsi == 0, BF_ERROR_VALUE, "a pure SoA layout has no struct components (%d, %d)",
             l->nsr, l->nsi);
    BF_CHECK(l->nar >= l->dim, BF_ERROR_VALUE, "a pure SoA layout of dimension %d needs at least %d reals (has %d)",
             l->dim, l->dim, l->nar);
  }
  return BF_SUCCESS;
}

size_t bf_playout_struct_size(const bf_playout *l) {
  if (l->pure_soa) return 0;
  size_t n = 8 * (size_t)(l->dim + l->nsr) + 8 + 4 * (size_t)l->nsi;
  return (n + 7) / 8 * 8;
}
size_t bf_playout_idcpu_offset(const bf_playout *l) { return 8 * (size_t)(l->dim + l->nsr); }
size_t bf_playout_idata_offset(const bf_playout *l) { return 8 * (size_t)(l->dim + l->nsr) + 8; }

/* ---- tiles --------------------------------------------------------------------- */

struct bf_ptile {
  bf_object obj;
  bf_playout lay;
  bf_arena *arena;
  bf_podvec *aos;   /* legacy only */
  bf_podvec *idcpu; /* pure SoA only */
  int nreal, nint;  /* SoA components (compile-time + run-time) */
  bf_podvec **real, **ints;
  char **rnames, **inames;
  int64_t nnb; /* neighbour particles */
  bool owned;  /* a tile of a particle container: only the container changes its components */
};

static void ptile_free(bf_object *o) {
  bf_ptile *t = (bf_ptile *)o;
  bf_podvec_destroy(&t->aos);
  bf_podvec_destroy(&t->idcpu);
  for (int c = 0; c < t->nreal; ++c) {
    bf_podvec_destroy(&t->real[c]);
    free(t->rnames[c]);
  }
  for (int c = 0; c < t->nint; ++c) {
    bf_podvec_destroy(&t->ints[c]);
    free(t->inames[c]);
  }
  free(t->real);
  free(t->ints);
  free(t->rnames);
  free(t->inames);
  free(t);
}

/* pyAMReX's soa_real_comps / soa_int_comps names of component c. */
static void default_real_name(bool pure_soa, int c, char *buf, size_t size) {
  static const char rotated[] = "xyzabcdefghijklmnopqrstuvw";
  static const char plain[] = "abcdefghijklmnopqrstuvw";
  const char *letters = pure_soa ? rotated : plain;
  int nl = (int)strlen(letters);
  if (c < nl) snprintf(buf, size, "%c", letters[c]);
  else snprintf(buf, size, "r%d", c - nl);
}
static void default_int_name(int c, char *buf, size_t size) { snprintf(buf, size, "i%d", c); }


int64_t bf_ptile_size(const bf_ptile *t) { return bf_podvec_size(t->lay.pure_soa ? t->idcpu : t->aos); }

/* ---- component names ------------------------------------------------------------
 * A tile's component names are the columns of to_df() and the keys of
 * soa().to_numpy() and add_particles(): every name must say one column.
 * Refused (BF_ERROR_VALUE): empty names, two components of one kind with a
 * name, a real and an int component with one name, "idcpu" / "id" / "cpu"
 * (the particles' ids and cpus), in pure SoA layouts x / y / z of the
 * layout's dimension for anything but the positions (its reals 0 .. dim-1, in
 * any order), and, in legacy layouts, the names of the struct components
 * "rdata_<i>" (i < nsr) and "idata_<i>" (i < nsi).  The positions of a
 * legacy layout are in the struct (to_df's x, y, z; its SoA columns are
 * SoA_<name>), so there an SoA component may be called x, as pyAMReX's own
 * tests call them. */

/* The names a tile would have: nr reals, ni ints (pointers borrowed). */
typedef struct nameset {
  int nr, ni;
  const char *const *rn;
  const char *const *in;
} nameset;

static bool struct_field_name(const char *name, const char *prefix, int count) {
  size_t np = strlen(prefix);
  if (strncmp(name, prefix, np) != 0) return false;
  const char *d = name + np;
  if (!d[0] || (d[0] == '0' && d[1]) || strlen(d) > 9) return false; /* canonical decimal only */
  long v = 0;
  for (const char *c = d; *c; ++c) {
    if (*c < '0' || *c > '9') return false;
    v = v * 10 + (*c - '0');
  }
  return v < count;
}

/* Component c of a kind may take `name` in layout lay (the rules above, duplicates aside). */
static int check_comp_name(const bf_playout *lay, bool is_real, int c, const char *name) {
  BF_CHECK(name != NULL && name[0] != '\0', BF_ERROR_VALUE, "empty particle component name");
  static const char *const ids[] = {"idcpu", "id", "cpu"};
  for (int k = 0; k < 3; ++k)
    BF_CHECK(strcmp(name, ids[k]) != 0, BF_ERROR_VALUE,
             "'%s' cannot name a particle component: it names the particles' ids and cpus (idcpu)", name);
  static const char axes[] = "xyz";
  for (int d = 0; d < lay->dim && lay->pure_soa; ++d)
    if (name[0] == axes[d] && name[1] == '\0')
      BF_CHECK(is_real && c < lay->dim, BF_ERROR_VALUE,
               "'%s' cannot name %s component %d: it names the position in direction %d", name,
               is_real ? "real" : "int", c, d);
  if (!lay->pure_soa)
    BF_CHECK(!struct_field_name(name, "rdata_", lay->nsr) && !struct_field_name(name, "idata_", lay->nsi),
             BF_ERROR_VALUE, "'%s' cannot name a particle component: it names a struct component of the particles",
             name);
  return BF_SUCCESS;
}

/* Component c of a kind in the final names s: allowed, and no other component has its name. */
static int check_in_set(const bf_playout *lay, const nameset *s, bool is_real, int c) {
  const char *name = is_real ? s->rn[c] : s->in[c];
  BF_CALL(check_comp_name(lay, is_real, c, name));
  for (int k = 0; k < s->nr; ++k)
    if (!(is_real && k == c) && strcmp(s->rn[k], name) == 0)
      BF_ERROR(BF_ERROR_VALUE, "%s component %d and real component %d would both be named '%s'",
               is_real ? "real" : "int", c, k, name);
  for (int k = 0; k < s->ni; ++k)
    if (!(!is_real && k == c) && strcmp(s->in[k], name) == 0)
      BF_ERROR(BF_ERROR_VALUE, "%s component %d and int component %d would both be named '%s'",
               is_real ? "real" : "int", c, k, name);
  return BF_SUCCESS;
}

/* Default name of new component c of a kind into buf. */
static const char *default_name(const bf_ptile *t, bool is_real, int c, char *buf, size_t size) {
  if (is_real) default_real_name(t->lay.pure_soa, c, buf, size);
  else default_int_name(c, buf, size);
  return buf;
}

#define NAME_BUF 32
/* The names after adding nreal / nint components named real_names / int_names (NULL entries: the
 * defaults): every new name checked against the rules and every other name. */
static int check_added(const bf_ptile *t, int nreal, const char *const *real_names, int nint,
                       const char *const *int_names) {
  int nr = t->nreal + nreal, ni = t->nint + nint;
  const char **rn = malloc(sizeof *rn * (size_t)(nr + ni + 1));
  char *bufs = malloc((size_t)(nreal + nint + 1) * NAME_BUF);
  if (!rn || !bufs) {
    free(rn), free(bufs);
    BF_ERROR(BF_ERROR_MEMORY, "out of memory for particle component names");
  }
  const char **in = rn + nr;
  for (int c = 0; c < t->nreal; ++c) rn[c] = t->rnames[c];
  for (int c = 0; c < t->nint; ++c) in[c] = t->inames[c];
  for (int k = 0; k < nreal; ++k)
    rn[t->nreal + k] = real_names && real_names[k]
                           ? real_names[k]
                           : default_name(t, true, t->nreal + k, bufs + (size_t)k * NAME_BUF, NAME_BUF);
  for (int k = 0; k < nint; ++k)
    in[t->nint + k] = int_names && int_names[k]
                          ? int_names[k]
                          : default_name(t, false, t->nint + k, bufs + (size_t)(nreal + k) * NAME_BUF, NAME_BUF);
  nameset s = {nr, ni, rn, in};
  int st = BF_SUCCESS;
  for (int c = t->nreal; c < nr && !st; ++c) st = check_in_set(&t->lay, &s, true, c);
  for (int c = t->nint; c < ni && !st; ++c) st = check_in_set(&t->lay, &s, false, c);
  free(rn), free(bufs);
  return st;
}

/* The names after renaming (NULL entries and components past nreal / nint keep theirs): every renamed
 * component checked. */
static int check_renamed(const bf_ptile *t, int nreal, const char *const *real_names, int nint,
                         const char *const *int_names) {
  const char **rn = malloc(sizeof *rn * (size_t)(t->nreal + t->nint + 1));
  BF_CHECK(rn != NULL, BF_ERROR_MEMORY, "out of memory for particle component names");
  const char **in = rn + t->nreal;
  for (int c = 0; c < t->nreal; ++c) rn[c] = c < nreal && real_names && real_names[c] ? real_names[c] : t->rnames[c];
  for (int c = 0; c < t->nint; ++c) in[c] = c < nint && int_names && int_names[c] ? int_names[c] : t->inames[c];
  nameset s = {t->nreal, t->nint, rn, in};
  int st = BF_SUCCESS;
  for (int c = 0; c < nreal && real_names && !st; ++c)
    if (real_names[c]) st = check_in_set(&t->lay, &s, true, c);
  for (int c = 0; c < nint && int_names && !st; ++c)
    if (int_names[c]) st = check_in_set(&t->lay, &s, false, c);
  free(rn);
  return st;
}

/* Append `n` components of one kind (real: is_real) named by names (may be NULL: the defaults); the
 * names were checked by the caller (check_added), so only memory can fail, and then nothing changes. */
static int add_kind(bf_ptile *t, bool is_real, int n, const char *const *names) {
  if (n == 0) return BF_SUCCESS;
  int *count = is_real ? &t->nreal : &t->nint;
  bf_podvec ***vecs = is_real ? &t->real : &t->ints;
  char ***nm = is_real ? &t->rnames : &t->inames;
  int old = *count;
  BF_CHECK(n <= 1 << 20 && old <= (1 << 20), BF_ERROR_VALUE, "too many particle components (%d + %d)", old, n);
  char buf[32];
  bf_podvec **nv = realloc(*vecs, sizeof **vecs * (size_t)(old + n));
  BF_CHECK(nv != NULL, BF_ERROR_MEMORY, "out of memory for particle components");
  *vecs = nv;
  char **nn = realloc(*nm, sizeof **nm * (size_t)(old + n));
  BF_CHECK(nn != NULL, BF_ERROR_MEMORY, "out of memory for particle component names");
  *nm = nn;
  int64_t size = bf_ptile_size(t);
  int err = BF_SUCCESS;
  int k = 0;
  for (; k < n && !err; ++k) {
    nv[old + k] = NULL;
    nn[old + k] = NULL;
    const char *name = names && names[k] ? names[k] : NULL;
    if (!name) {
      if (is_real) default_real_name(t->lay.pure_soa, old + k, buf, sizeof buf);
      else default_int_name(old + k, buf, sizeof buf);
      name = buf;
    }
    nn[old + k] = strdup(name);
    if (!nn[old + k]) {
      err = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory for a component name");
      break;
    }
    err = bf_podvec_create(t->arena, is_real ? BF_POD_REAL : BF_POD_INT, 0, size, &nv[old + k]);
  }
  if (err) {
    for (int j = 0; j <= k && j < n; ++j) {
      bf_podvec_destroy(&nv[old + j]);
      free(nn[old + j]);
      nn[old + j] = NULL;
    }
    return err;
  }
  *count = old + n;
  return BF_SUCCESS;
}

int bf_ptile_create(const bf_playout *layout, int nrr, int nri, bf_arena *arena, bf_ptile **out) {
  BF_CHECK(out != NULL, BF_ERROR_VALUE, "NULL result pointer");
  BF_CALL(bf_playout_check(layout));
  BF_CHECK(nrr >= 0 && nri >= 0, BF_ERROR_VALUE, "negative run-time component counts (%d, %d)", nrr, nri);
  if (!arena) arena = bf_arena_get(BF_ARENA_DEFAULT);
  bf_ptile *t = calloc(1, sizeof *t);
  BF_CHECK(t != NULL, BF_ERROR_MEMORY, "out of memory for a particle tile");
  bf_object_init(&t->obj, ptile_free);
  t->lay = *layout;
  t->arena = arena;
  int err = layout->pure_soa ? bf_podvec_create(arena, BF_POD_UINT64, 0, 0, &t->idcpu)
                             : bf_podvec_create(arena, BF_POD_STRUCT, bf_playout_struct_size(layout), 0, &t->aos);
  if (!err) err = add_kind(t, true, layout->nar + nrr, NULL);
  if (!err) err = add_kind(t, false, layout->nai + nri, NULL);
  if (err) {
    ptile_free(&t->obj);
    return err;
  }
  *out = t;
  return BF_SUCCESS;
}

/* Private (podvec_impl.h): an empty tile with proto's layout, components and names (no checks: proto is
 * consistent), its vectors in `arena`. */
int bf_ptile_create_like(const bf_ptile *proto, bf_arena *arena, bf_ptile **out) {
  BF_CHECK(proto != NULL && out != NULL, BF_ERROR_VALUE, "NULL particle tile");
  bf_ptile *t = calloc(1, sizeof *t);
  BF_CHECK(t != NULL, BF_ERROR_MEMORY, "out of memory for a particle tile");
  bf_object_init(&t->obj, ptile_free);
  t->lay = proto->lay;
  t->arena = arena ? arena : proto->arena;
  int err = proto->lay.pure_soa ? bf_podvec_create(t->arena, BF_POD_UINT64, 0, 0, &t->idcpu)
                                : bf_podvec_create(t->arena, BF_POD_STRUCT, bf_playout_struct_size(&t->lay), 0, &t->aos);
  if (!err && proto->nreal > 0) {
    t->real = calloc((size_t)proto->nreal, sizeof *t->real);
    t->rnames = calloc((size_t)proto->nreal, sizeof *t->rnames);
    if (!t->real || !t->rnames) err = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory for a particle tile");
  }
  if (!err && proto->nint > 0) {
    t->ints = calloc((size_t)proto->nint, sizeof *t->ints);
    t->inames = calloc((size_t)proto->nint, sizeof *t->inames);
    if (!t->ints || !t->inames) err = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory for a particle tile");
  }
  /* counted as they are made: ptile_free frees what exists */
  for (int c = 0; !err && c < proto->nreal; ++c) {
    t->rnames[c] = strdup(proto->rnames[c]);
    if (!t->rnames[c]) err = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory for a component name");
    if (!err) err = bf_podvec_create(t->arena, BF_POD_REAL, 0, 0, &t->real[c]);
    t->nreal = c + 1;
  }
  for (int c = 0; !err && c < proto->nint; ++c) {
    t->inames[c] = strdup(proto->inames[c]);
    if (!t->inames[c]) err = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory for a component name");
    if (!err) err = bf_podvec_create(t->arena, BF_POD_INT, 0, 0, &t->ints[c]);
    t->nint = c + 1;
  }
  if (err) {
    ptile_free(&t->obj);
    return err;
  }
  *out = t;
  return BF_SUCCESS;
}

bf_ptile *bf_ptile_retain(bf_ptile *t) {
  bf_object_retain(&t->obj);
  return t;
}

void bf_ptile_destroy(bf_ptile **t) {
  if (!t || !*t) return;
  bf_object_release(&(*t)->obj);
  *t = NULL;
}

const bf_playout *bf_ptile_layout(const bf_ptile *t) { return &t->lay; }
bf_arena *bf_ptile_arena(const bf_ptile *t) { return t->arena; }

int bf_ptile_add_comps_unchecked(bf_ptile *t, int nreal, const char *const *real_names, int nint,
                                 const char *const *int_names) {
  BF_CHECK(t != NULL, BF_ERROR_VALUE, "NULL particle tile");
  BF_CHECK(nreal >= 0 && nint >= 0, BF_ERROR_VALUE, "negative component counts (%d, %d)", nreal, nint);
  BF_CHECK(nreal <= 1 << 20 && nint <= 1 << 20, BF_ERROR_VALUE, "too many particle components (%d, %d)", nreal, nint);
  /* every name checked before anything changes */
  BF_CALL(check_added(t, nreal, real_names, nint, int_names));
  int old = t->nreal;
  BF_CALL(add_kind(t, true, nreal, real_names));
  int err = add_kind(t, false, nint, int_names);
  if (err) {
    for (int c = old; c < t->nreal; ++c) {
      bf_podvec_destroy(&t->real[c]);
      free(t->rnames[c]);
    }
    t->nreal = old;
  }
  return err;
}

const char *bf_ptile_real_comp_name(const bf_ptile *t, int c) {
  return t && c >= 0 && c < t->nreal ? t->rnames[c] : NULL;
}
const char *bf_ptile_int_comp_name(const bf_ptile *t, int c) { return t && c >= 0 && c < t->nint ? t->inames[c] : NULL; }

/* New names of comps [0, n) of one kind (NULL entries keep), checked by the caller (check_renamed);
 * applied only when every copy was made. */
static int rename_kind(char **names, int n, const char *const *nn) {
  if (n == 0 || !nn) return BF_SUCCESS;
  char **dup = calloc((size_t)n, sizeof *dup);
  BF_CHECK(dup != NULL, BF_ERROR_MEMORY, "out of memory for component names");
  for (int c = 0; c < n; ++c)
    if (nn[c] && !(dup[c] = strdup(nn[c]))) {
      for (int d = 0; d < c; ++d) free(dup[d]);
      free(dup);
      BF_ERROR(BF_ERROR_MEMORY, "out of memory for component names");
    }
  for (int c = 0; c < n; ++c)
    if (dup[c]) {
      free(names[c]);
      names[c] = dup[c];
    }
  free(dup);
  return BF_SUCCESS;
}

int bf_ptile_rename_comps_unchecked(bf_ptile *t, int nreal, const char *const *real_names, int nint,
                                    const char *const *int_names) {
  BF_CHECK(t != NULL, BF_ERROR_VALUE, "NULL particle tile");
  BF_CHECK(nreal >= 0 && nint >= 0, BF_ERROR_VALUE, "negative name counts (%d, %d)", nreal, nint);
  BF_CHECK(nreal <= t->nreal && nint <= t->nint, BF_ERROR_INDEX,
           "%d real / %d int names for %d real / %d int components", nreal, nint, t->nreal, t->nint);
  if (!real_names) nreal = 0;
  if (!int_names) nint = 0;
  BF_CALL(check_renamed(t, nreal, real_names, nint, int_names));
  char **keep = NULL;
  if (nreal > 0) {
    /* the old real names, to restore them when the ints fail (memory only) */
    keep = calloc((size_t)nreal, sizeof *keep);
    BF_CHECK(keep != NULL, BF_ERROR_MEMORY, "out of memory for component names");
    for (int c = 0; c < nreal; ++c)
      if (real_names[c] && !(keep[c] = strdup(t->rnames[c]))) {
        for (int d = 0; d < c; ++d) free(keep[d]);
        free(keep);
        BF_ERROR(BF_ERROR_MEMORY, "out of memory for component names");
      }
  }
  int st = rename_kind(t->rnames, nreal, real_names);
  if (!st) st = rename_kind(t->inames, nint, int_names);
  if (st && keep && rename_kind(t->rnames, nreal, (const char *const *)keep) != BF_SUCCESS)
    st = bf_error_set(BF_ERROR_MEMORY, __func__, "out of memory for component names (some reals were renamed)");
  for (int c = 0; keep && c < nreal; ++c) free(keep[c]);
  free(keep);
  return st;
}

/* One component renamed (checked as a rename of that component alone). */
static int set_name(bf_ptile *t, bool is_real, int comp, const char *name) {
  int n = is_real ? t->nreal : t->nint;
  BF_CHECK(comp >= 0 && comp < n, BF_ERROR_INDEX, "%s component %d outside [0, %d)", is_real ? "real" : "int", comp, n);
  BF_CHECK(name != NULL && name[0] != '\0', BF_ERROR_VALUE, "empty particle component name");
  const char **nn = calloc((size_t)comp + 1, sizeof *nn);
  BF_CHECK(nn != NULL, BF_ERROR_MEMORY, "out of memory for component names");
  nn[comp] = name;
  int st = is_real ? bf_ptile_rename_comps_unchecked(t, comp + 1, nn, 0, NULL)
                   : bf_ptile_rename_comps_unchecked(t, 0, NULL, comp + 1, nn);
  free(nn);
  return st;
}

int bf_ptile_set_real_comp_name_unchecked(bf_ptile *t, int comp, const char *name) {
  BF_CHECK(t != NULL, BF_ERROR_VALUE, "NULL particle tile");
  return set_name(t, true, comp, name);
}
int bf_ptile_set_int_comp_name_unchecked(bf_ptile *t, int comp, const char *name) {
  BF_CHECK(t != NULL, BF_ERROR_VALUE, "NULL particle tile");
  return set_name(t, false, comp, name);
}

int64_t bf_ptile_num_neighbors(const bf_ptile *t) { return t->nnb; }
int64_t bf_ptile_capacity(const bf_ptile *t) { return bf_podvec_capacity(t->lay.pure_soa ? t->idcpu : t->aos); }
int bf_ptile_num_real_comps(const bf_ptile *t) { return t->nreal; }
int bf_ptile_num_int_comps(const bf_ptile *t) { return t->nint; }
int bf_ptile_num_runtime_real_comps(const bf_ptile *t) { return t->nreal - t->lay.nar; }
int bf_ptile_num_runtime_int_comps(const bf_ptile *t) { return t->nint - t->lay.nai; }

bf_podvec *bf_ptile_aos(const bf_ptile *t) { return t->aos; }
bf_podvec *bf_ptile_real(const bf_ptile *t, int c) { return c >= 0 && c < t->nreal ? t->real[c] : NULL; }
bf_podvec *bf_ptile_int(const bf_ptile *t, int c) { return c >= 0 && c < t->nint ? t->ints[c] : NULL; }
bf_podvec *bf_ptile_idcpu(const bf_ptile *t) { return t->idcpu; }

int bf_ptile_check_consistent(const bf_ptile *t) {
  BF_CHECK(t != NULL, BF_ERROR_VALUE, "NULL particle tile");
  int64_t n = bf_ptile_size(t);
  const char *main = t->lay.pure_soa ? "idcpu" : "array of structs";
  for (int c = 0; c < t->nreal; ++c)
    BF_CHECK(bf_podvec_size(t->real[c]) == n, BF_ERROR_VALUE,
             "particle tile inconsistent: real component %d ('%s') has %lld elements, the %s %lld", c, t->rnames[c],
             (long long)bf_podvec_size(t->real[c]), main, (long long)n);
  for (int c = 0; c < t->nint; ++c)
    BF_CHECK(bf_podvec_size(t->ints[c]) == n, BF_ERROR_VALUE,
             "particle tile inconsistent: int component %d ('%s') has %lld elements, the %s %lld", c, t->inames[c],
             (long long)bf_podvec_size(t->ints[c]), main, (long long)n);
  BF_CHECK(t->nnb <= n, BF_ERROR_VALUE, "particle tile inconsistent: %lld neighbours but %lld particles",
           (long long)t->nnb, (long long)n);
  return BF_SUCCESS;
}

/* Every vector of the tile, in a fixed order: main (aos or idcpu), reals, ints. */
static int nvecs(const bf_ptile *t) { return 1 + t->nreal + t->nint; }
static bf_podvec *vec_at(const bf_ptile *t, int k) {
  if (k == 0) return t->lay.pure_soa ? t->idcpu : t->aos;
  if (k <= t->nreal) return t->real[k - 1];
  return t->ints[k - 1 - t->nreal];
}

int bf_ptile_reserve(bf_ptile *t, int64_t n) {
  BF_CHECK(t != NULL, BF_ERROR_VALUE, "NULL particle tile");
  BF_CHECK(n >= 0, BF_ERROR_VALUE, "negative particle count %lld", (long long)n);
  for (int k = 0; k < nvecs(t); ++k) BF_CALL(bf_podvec_reserve(vec_at(t, k), n));
  return BF_SUCCESS;
}

int bf_ptile_resize(bf_ptile *t, int64_t n) {
  BF_CHECK(t != NULL, BF_ERROR_VALUE, "NULL particle tile");
  BF_CHECK(n >= 0, BF_ERROR_VALUE, "negative particle count %lld", (long long)n);
  /* reserve everything first: a failure leaves the sizes as they were */
  for (int k = 0; k < nvecs(t); ++k) {
    bf_podvec *v = vec_at(t, k);
    if (n > bf_podvec_capacity(v)) BF_CALL(bf_podvec_reserve(v, n));
  }
  for (int k = 0; k < nvecs(t); ++k) BF_CALL(bf_podvec_resize(vec_at(t, k), n));
  if (t->nnb > n) t->nnb = n;
  return BF_SUCCESS;
}

int bf_ptile_resize_raw(bf_ptile *t, int64_t n) {
  BF_CHECK(t != NULL, BF_ERROR_VALUE, "NULL particle tile");
  BF_CHECK(n >= 0, BF_ERROR_VALUE, "negative particle count %lld", (long long)n);
  for (int k = 0; k < nvecs(t); ++k) {
    bf_podvec *v = vec_at(t, k);
    if (n > bf_podvec_capacity(v)) BF_CALL(bf_podvec_reserve(v, n));
  }
  for (int k = 0; k < nvecs(t); ++k) bf_podvec_set_size_raw(vec_at(t, k), n);
  if (t->nnb > n) t->nnb = n;
  return BF_SUCCESS;
}

int bf_ptile_set_num_neighbors(bf_ptile *t, int64_t n) {
  BF_CHECK(t != NULL, BF_ERROR_VALUE, "NULL particle tile");
  BF_CHECK(n >= 0, BF_ERROR_VALUE, "negative number of neighbours %lld", (long long)n);
  int64_t nreal = bf_ptile_size(t) - t->nnb;
  BF_CHECK(n <= INT64_MAX - nreal, BF_ERROR_OVERFLOW, "too many neighbours");
  BF_CALL(bf_ptile_resize(t, nreal + n));
  t->nnb = n;
  return BF_SUCCESS;
}

int bf_ptile_shrink_to_fit(bf_ptile *t) {
  BF_CHECK(t != NULL, BF_ERROR_VALUE, "NULL particle tile");
  for (int k = 0; k < nvecs(t); ++k) BF_CALL(bf_podvec_shrink_to_fit(vec_at(t, k)));
  return BF_SUCCESS;
}

static int same_shape(const bf_ptile *a, const bf_ptile *b, const char *func) {
  const bf_playout *x = &a->lay, *y = &b->lay;
  if (x->dim != y->dim || x->pure_soa != y->pure_soa || x->nsr != y->nsr || x->nsi != y->nsi || x->nar != y->nar ||
      x->nai != y->nai)
    return bf_error_set(BF_ERROR_VALUE, func, "particle tiles of different layouts");
  if (a->nreal != b->nreal || a->nint != b->nint)
    return bf_error_set(BF_ERROR_VALUE, func,
                        "particle tiles with different components (%d real + %d int vs %d real + %d int)", a->nreal,
                        a->nint, b->nreal, b->nint);
  return BF_SUCCESS;
}

int bf_ptile_swap(bf_ptile *a, bf_ptile *b) {
  BF_CHECK(a != NULL && b != NULL, BF_ERROR_VALUE, "NULL particle tile");
  if (a == b) return BF_SUCCESS;
  BF_CALL(same_shape(a, b, __func__));
  /* a container's tile keeps its container's memory kind (its kernels are those of that memory) */
  BF_CHECK(!(a->owned || b->owned) || a->arena == b->arena, BF_ERROR_VALUE,
           "swap: a tile of a particle container can only swap with a tile in the same memory (%s and %s)",
           bf_arena_name(a->arena), bf_arena_name(b->arena));
  for (int k = 0; k < nvecs(a); ++k) bf_podvec_swap_storage(vec_at(a, k), vec_at(b, k));
  int64_t nnb = a->nnb;
  a->nnb = b->nnb;
  b->nnb = nnb;
  bf_arena *ar = a->arena;
  a->arena = b->arena;
  b->arena = ar;
  return BF_SUCCESS;
}

int bf_ptile_append(bf_ptile *dst, const bf_ptile *src) {
  BF_CHECK(src != NULL, BF_ERROR_VALUE, "NULL particle tile");
  return bf_ptile_append_n(dst, src, bf_ptile_size(src));
}

int bf_ptile_append_n(bf_ptile *dst, const bf_ptile *src, int64_t m) {
  BF_CHECK(dst != NULL && src != NULL, BF_ERROR_VALUE, "NULL particle tile");
  BF_CALL(same_shape(dst, src, __func__));
  BF_CALL(bf_ptile_check_consistent(src));
  BF_CALL(bf_ptile_check_consistent(dst));
  BF_CHECK(m >= 0 && m <= bf_ptile_size(src), BF_ERROR_INDEX, "%lld particles of a tile of %lld", (long long)m,
           (long long)bf_ptile_size(src));
  int64_t n0 = bf_ptile_size(dst);
  if (m == 0) return BF_SUCCESS;
  BF_CHECK(m <= INT64_MAX - n0, BF_ERROR_OVERFLOW, "too many particles");
  for (int k = 0; k < nvecs(dst); ++k) BF_CALL(bf_podvec_reserve(vec_at(dst, k), n0 + m));
  for (int k = 0; k < nvecs(dst); ++k) {
    bf_podvec *d = vec_at(dst, k), *s = vec_at(src, k);
    size_t esz = bf_podvec_elem_size(d);
    BF_CALL(bf_pod_copy(bf_podvec_arena(d), (char *)bf_podvec_data(d) + (size_t)n0 * esz, bf_podvec_arena(s),
                        bf_podvec_data(s), (size_t)m * esz));
  }
  for (int k = 0; k < nvecs(dst); ++k) bf_podvec_set_size_raw(vec_at(dst, k), n0 + m);
  return BF_SUCCESS;
}

/* ---- super particles ------------------------------------------------------------- */

int bf_ptile_super_nreal(const bf_ptile *t) { return t->lay.nsr + t->nreal - (t->lay.pure_soa ? t->lay.dim : 0); }
int bf_ptile_super_nint(const bf_ptile *t) { return t->lay.nsi + t->nint; }

static int check_super(const bf_ptile *t, const bf_superparticle *p, const char *func) {
  if (!t || !p) return bf_error_set(BF_ERROR_VALUE, func, "NULL particle tile or particle");
  if (p->nreal != bf_ptile_super_nreal(t) || p->nint != bf_ptile_super_nint(t))
    return bf_error_set(BF_ERROR_VALUE, func, "a particle of this tile has %d reals and %d ints (given %d and %d)",
                        bf_ptile_super_nreal(t), bf_ptile_super_nint(t), p->nreal, p->nint);
  if ((p->nreal > 0 && !p->real) || (p->nint > 0 && !p->ints))
    return bf_error_set(BF_ERROR_VALUE, func, "NULL particle data arrays");
  return BF_SUCCESS;
}

/* Write particle i (< capacity, the vectors' sizes are set by the caller). */
static int write_particle(bf_ptile *t, int64_t i, const bf_superparticle *p) {
  const bf_playout *l = &t->lay;
  int dim = l->dim;
  if (l->pure_soa) {
    BF_CALL(bf_pod_fill(bf_podvec_arena(t->idcpu), (uint64_t *)bf_podvec_data(t->idcpu) + i, 8, 1, &p->idcpu));
    for (int c = 0; c < t->nreal; ++c) {
      double v = c < dim ? p->pos[c] : p->real[c - dim];
      BF_CALL(bf_pod_fill(bf_podvec_arena(t->real[c]), (double *)bf_podvec_data(t->real[c]) + i, 8, 1, &v));
    }
  } else {
    size_t sz = bf_playout_struct_size(l);
    unsigned char st[8 * (BF_SPACEDIM_MAX + 2) + 4 * PLAYOUT_MAX_COMPS + 8 * PLAYOUT_MAX_COMPS];
    memset(st, 0, sz);
    memcpy(st, p->pos, 8 * (size_t)dim);
    if (l->nsr) memcpy(st + 8 * dim, p->real, 8 * (size_t)l->nsr);
    memcpy(st + bf_playout_idcpu_offset(l), &p->idcpu, 8);
    if (l->nsi) memcpy(st + bf_playout_idata_offset(l), p->ints, 4 * (size_t)l->nsi);
    BF_CALL(bf_pod_fill(bf_podvec_arena(t->aos), (char *)bf_podvec_data(t->aos) + (size_t)i * sz, sz, 1, st));
    for (int c = 0; c < t->nreal; ++c)
      BF_CALL(bf_pod_fill(bf_podvec_arena(t->real[c]), (double *)bf_podvec_data(t->real[c]) + i, 8, 1,
                          &p->real[l->nsr + c]));
  }
  for (int c = 0; c < t->nint; ++c)
    BF_CALL(bf_pod_fill(bf_podvec_arena(t->ints[c]), (int32_t *)bf_podvec_data(t->ints[c]) + i, 4, 1,
                        &p->ints[l->nsi + c]));
  return BF_SUCCESS;
}

int bf_ptile_push_back(bf_ptile *t, const bf_superparticle *p) {
  BF_CALL(check_super(t, p, __func__));
  BF_CALL(bf_ptile_check_consistent(t));
  int64_t n = bf_ptile_size(t);
  BF_CHECK(n < INT64_MAX, BF_ERROR_OVERFLOW, "too many particles");
  /* grow every vector (geometrically) before writing: a failure changes no size */
  for (int k = 0; k < nvecs(t); ++k) {
    bf_podvec *v = vec_at(t, k);
    if (n + 1 > bf_podvec_capacity(v)) {
      int64_t want = bf_podvec_capacity(v) + bf_podvec_capacity(v) / 2;
      if (want < n + 1) want = n + 1;
      BF_CALL(bf_podvec_reserve(v, want));
    }
  }
  BF_CALL(write_particle(t, n, p));
  for (int k = 0; k < nvecs(t); ++k) bf_podvec_set_size_raw(vec_at(t, k), n + 1);
  return BF_SUCCESS;
}

int bf_ptile_set_particle(bf_ptile *t, int64_t i, const bf_superparticle *p) {
  BF_CALL(check_super(t, p, __func__));
  BF_CALL(bf_ptile_check_consistent(t));
  BF_CHECK(i >= 0 && i < bf_ptile_size(t), BF_ERROR_INDEX, "particle %lld outside a tile of %lld", (long long)i,
           (long long)bf_ptile_size(t));
  return write_particle(t, i, p);
}

int bf_ptile_get_particle(const bf_ptile *t, int64_t i, bf_superparticle *p) {
  BF_CALL(check_super(t, p, __func__));
  BF_CALL(bf_ptile_check_consistent(t));
  BF_CHECK(i >= 0 && i < bf_ptile_size(t), BF_ERROR_INDEX, "particle %lld outside a tile of %lld", (long long)i,
           (long long)bf_ptile_size(t));
  const bf_playout *l = &t->lay;
  int dim = l->dim;
  memset(p->pos, 0, sizeof p->pos);
  if (l->pure_soa) {
    BF_CALL(bf_podvec_get(t->idcpu, i, &p->idcpu));
    for (int c = 0; c < t->nreal; ++c) {
      double v = 0;
      BF_CALL(bf_podvec_get(t->real[c], i, &v));
      if (c < dim) p->pos[c] = v;
      else p->real[c - dim] = v;
    }
  } else {
    size_t sz = bf_playout_struct_size(l);
    unsigned char st[8 * (BF_SPACEDIM_MAX + 2) + 4 * PLAYOUT_MAX_COMPS + 8 * PLAYOUT_MAX_COMPS];
    BF_CALL(bf_podvec_get(t->aos, i, st));
    (void)sz;
    memcpy(p->pos, st, 8 * (size_t)dim);
    if (l->nsr) memcpy(p->real, st + 8 * dim, 8 * (size_t)l->nsr);
    memcpy(&p->idcpu, st + bf_playout_idcpu_offset(l), 8);
    if (l->nsi) memcpy(p->ints, st + bf_playout_idata_offset(l), 4 * (size_t)l->nsi);
    for (int c = 0; c < t->nreal; ++c) BF_CALL(bf_podvec_get(t->real[c], i, &p->real[l->nsr + c]));
  }
  for (int c = 0; c < t->nint; ++c) BF_CALL(bf_podvec_get(t->ints[c], i, &p->ints[l->nsi + c]));
  return BF_SUCCESS;
}

/* ---- id counters ------------------------------------------------------------------- */

#define ID_FAMILIES 256
static int64_t next_ids[ID_FAMILIES];
static pthread_mutex_t id_lock = PTHREAD_MUTEX_INITIALIZER;

int bf_particle_next_id(int family, int64_t count, int64_t *first) {
  BF_CHECK(family >= 0 && family < ID_FAMILIES, BF_ERROR_INDEX, "particle id family %d outside [0, %d)", family,
           ID_FAMILIES);
  BF_CHECK(count >= 0, BF_ERROR_VALUE, "negative id count %lld", (long long)count);
  BF_CHECK(first != NULL, BF_ERROR_VALUE, "NULL result pointer");
  pthread_mutex_lock(&id_lock);
  int64_t cur = next_ids[family] ? next_ids[family] : 1;
  if (count > BF_IDCPU_MAX_ID + 1 - cur) {
    pthread_mutex_unlock(&id_lock);
    BF_ERROR(BF_ERROR_OVERFLOW, "particle ids overflow: %lld more ids after %lld exceed the largest id %lld",
             (long long)count, (long long)cur, (long long)BF_IDCPU_MAX_ID);
  }
  next_ids[family] = cur + count;
  pthread_mutex_unlock(&id_lock);
  *first = cur;
  return BF_SUCCESS;
}

int bf_particle_set_next_id(int family, int64_t next) {
  BF_CHECK(family >= 0 && family < ID_FAMILIES, BF_ERROR_INDEX, "particle id family %d outside [0, %d)", family,
           ID_FAMILIES);
  BF_CHECK(next >= 1 && next <= BF_IDCPU_MAX_ID + 1, BF_ERROR_OVERFLOW, "next particle id %lld outside [1, %lld]",
           (long long)next, (long long)BF_IDCPU_MAX_ID + 1);
  pthread_mutex_lock(&id_lock);
  next_ids[family] = next;
  pthread_mutex_unlock(&id_lock);
  return BF_SUCCESS;
}

/* ---- the checked entry points: a container's tiles change components only through the container ---- */

static int owned_error(const char *what) {
  return bf_error_set(BF_ERROR_VALUE, what,
                      "%s: this tile belongs to a particle container, whose tiles all have the same components: "
                      "use the container's add_real_comp / add_int_comp (names: the container's renames)",
                      what);
}

void bf_ptile_set_owned(bf_ptile *t, bool owned) {
  if (t) t->owned = owned;
}

int bf_ptile_add_comps(bf_ptile *t, int nreal, const char *const *real_names, int nint, const char *const *int_names) {
  if (t && t->owned) return owned_error("add components");
  return bf_ptile_add_comps_unchecked(t, nreal, real_names, nint, int_names);
}

int bf_ptile_rename_comps(bf_ptile *t, int nreal, const char *const *real_names, int nint,
                          const char *const *int_names) {
  if (t && t->owned) return owned_error("rename components");
  return bf_ptile_rename_comps_unchecked(t, nreal, real_names, nint, int_names);
}

int bf_ptile_set_real_comp_name(bf_ptile *t, int comp, const char *name) {
  if (t && t->owned) return owned_error("rename a component");
  return bf_ptile_set_real_comp_name_unchecked(t, comp, name);
}

int bf_ptile_set_int_comp_name(bf_ptile *t, int comp, const char *name) {
  if (t && t->owned) return owned_error("rename a component");
  return bf_ptile_set_int_comp_name_unchecked(t, comp, name);
}
