/* boxfab._core: MultiFab / iMultiFab element-wise operations (API.md 2.7,
 * 2.8): set_val, abs, plus, minus, mult, divi, invert, negate and the static
 * add, subtract, multiply, divide, swap, saxpy, xpay, lin_comb, add_product
 * (FabArray_FArrayBox's saxpy/xpay/lin_comb have their own keyword names).
 * Arguments are checked by the C core: components or ghost widths out of
 * range give IndexError, MultiFabs on different BoxArrays ValueError.
 * Defaults: comp 0, all components, nghost 0. */
#include <string.h>

#include "mesh/multifab.h"

#define FASTKW(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS
#define NSIGS(s) ((int)(sizeof(s) / sizeof(s)[0]))

/* The bound argument named `name` of signature s (NULL when absent). */
static PyObject *arg(const bfpy_mf_sig *s, PyObject **out, const char *name) {
  for (int i = 0; s->names[i]; ++i)
    if (strcmp(s->names[i], name) == 0) return out[i];
  return NULL;
}

/* comp / num_comp / nghost / region common to the scalar forms. */
typedef struct {
  double val;
  bool has_region;
  bf_box region;
  int comp, ncomp;
  bf_intvect ng;
} scal_args;

/* The scalar of set_val / plus / mult / invert: a real number for a MultiFab;
 * for an iMultiFab an int that fits in C int, converted as every int
 * argument is (TypeError for a float, 1.5 or nan alike; OverflowError beyond
 * C int), as AMReX's iMultiFab::setVal(int) and pyAMReX's int argument take
 * it: a float value used to be cast to int (1.5 -> 1, 2**31 or nan -> -2**31). */
static int read_value(const bf_multifab *mf, PyObject *o, double *out, const char *what) {
  if (bf_multifab_dtype(mf) != BF_DTYPE_INT) return bfpy_mf_double(o, 0.0, out, what);
  int v = 0;
  if (o && bfpy_to_int(o, &v, what) < 0) return -1;
  *out = v; /* exact: every int is a double */
  return 0;
}

static int read_scal(bf_multifab *mf, int dim, const bfpy_mf_sig *s, PyObject **out, const char *valname,
                     const char *ncompname, scal_args *r) {
  PyObject *reg = arg(s, out, "region");
  r->val = 0;
  if (valname && read_value(mf, arg(s, out, valname), &r->val, valname) < 0) return -1;
  r->has_region = reg != NULL;
  if (reg && bfpy_as_box(reg, dim, &r->region, "region") < 0) return -1;
  if (bfpy_mf_int(arg(s, out, "comp"), 0, &r->comp, "comp") < 0) return -1;
  if (bfpy_mf_ncomp(arg(s, out, ncompname), mf, r->comp, &r->ncomp, ncompname) < 0) return -1;
  if (!arg(s, out, "comp")) r->ncomp = bf_multifab_ncomp(mf);
  return bfpy_mf_ng(arg(s, out, "nghost"), dim, bf_intvect_splat(dim, 0), &r->ng, "nghost");
}

typedef int (*scal_fn)(bf_multifab *, double, const bf_box *, int, int, bf_intvect);

static int do_set_val(bf_multifab *m, double v, const bf_box *r, int c, int n, bf_intvect g) {
  return bf_multifab_set_val(m, v, r, c, n, g);
}
static int do_plus(bf_multifab *m, double v, const bf_box *r, int c, int n, bf_intvect g) {
  return bf_multifab_plus_scalar(m, v, r, c, n, g);
}
static int do_mult(bf_multifab *m, double v, const bf_box *r, int c, int n, bf_intvect g) {
  return bf_multifab_mult_scalar(m, v, r, c, n, g);
}
static int do_invert(bf_multifab *m, double v, const bf_box *r, int c, int n, bf_intvect g) {
  return bf_multifab_invert(m, v, r, c, n, g);
}
static int do_negate(bf_multifab *m, double v, const bf_box *r, int c, int n, bf_intvect g) {
  (void)v;
  return bf_multifab_negate(m, r, c, n, g);
}
static int do_abs(bf_multifab *m, double v, const bf_box *r, int c, int n, bf_intvect g) {
  (void)v;
  return bf_multifab_abs(m, r, c, n, g);
}

static PyObject *run_scal(PyObject *self, const char *func, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames, const bfpy_mf_sig *sigs, int n, const char *valname,
                          const char *ncompname, scal_fn fn, const char *sigtext) {
  PyObject *out[8];
  int s = bfpy_mf_match(func, args, nargs, kwnames, sigs, n, out, sigtext);
  if (s < 0) return NULL;
  bf_multifab *mf = bfpy_mf_self(self, func);
  scal_args r;
  if (!mf || read_scal(mf, MFO(self)->dim, &sigs[s], out, valname, ncompname, &r) < 0) return NULL;
  if (bfpy_check(fn(mf, r.val, r.has_region ? &r.region : NULL, r.comp, r.ncomp, r.ng)) < 0) return NULL;
  Py_RETURN_NONE;
}

/* ---- signature tables ------------------------------------------------------------------------- */
static const char *const N_V_RCNG[] = {"val", "region", "comp", "num_comp", "nghost", NULL};
static const char *const N_V_RG[] = {"val", "region", "nghost", NULL};
static const char *const N_V_CNG[] = {"val", "comp", "num_comp", "nghost", NULL};
static const char *const N_V_G[] = {"val", "nghost", NULL};
static const char *const N_V[] = {"val", NULL};
static const char *const N_U_RCNG[] = {"numerator", "region", "comp", "num_comp", "nghost", NULL};
static const char *const N_U_RG[] = {"numerator", "region", "nghost", NULL};
static const char *const N_U_CNG[] = {"numerator", "comp", "num_comp", "nghost", NULL};
static const char *const N_U_G[] = {"numerator", "nghost", NULL};
static const char *const N_RCNG[] = {"region", "comp", "num_comp", "nghost", NULL};
static const char *const N_RG[] = {"region", "nghost", NULL};
static const char *const N_CNG[] = {"comp", "num_comp", "nghost", NULL};
static const char *const N_G[] = {"nghost", NULL};
static const char *const N_ABS[] = {"comp", "ncomp", "nghost", NULL};
static const char *const N_MF[] = {"mf", "strt_comp", "num_comp", "nghost", NULL};

static const bfpy_mf_sig scal4_sigs[] = {
    {N_V_RCNG, 4, "fbiig"}, {N_V_RG, 2, "fbg"}, {N_V_CNG, 3, "fiig"}, {N_V_G, 1, "fg"}};
static const bfpy_mf_sig invert_sigs[] = {
    {N_U_RCNG, 4, "fbiig"}, {N_U_RG, 3, "fbg"}, {N_U_CNG, 3, "fiig"}, {N_U_G, 2, "fg"}};
static const bfpy_mf_sig negate_sigs[] = {{N_RCNG, 3, "biig"}, {N_RG, 1, "bg"}, {N_CNG, 2, "iig"}, {N_G, 0, "g"}};
static const bfpy_mf_sig setval_sigs[] = {{N_V, 1, "f"}, {N_V_RCNG, 4, "fbiig"}, {N_V_CNG, 3, "fiig"}};
static const bfpy_mf_sig abs_sigs[] = {{N_ABS, 2, "iig"}};
static const bfpy_mf_sig mfop_sigs[] = {{N_MF, 3, "miig"}};

/* ---- methods ---------------------------------------------------------------------------------- */
static PyObject *m_set_val(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char sigtext[] = "set_val(val: float), set_val(val, comp: int, num_comp: int, nghost: int/IntVect = 0), "
                                "set_val(val, region: Box, comp: int, num_comp: int, nghost: int/IntVect = 0)";
  PyObject *out[8];
  int s = bfpy_mf_match("set_val", args, nargs, kwnames, setval_sigs, NSIGS(setval_sigs), out, sigtext);
  if (s < 0) return NULL;
  if (s == 0) {
    double v;
    bf_multifab *mf = bfpy_mf_self(self, "set_val");
    if (!mf || read_value(mf, out[0], &v, "val") < 0 || bfpy_check(bf_multifab_set_val_all(mf, v)) < 0) return NULL;
    Py_RETURN_NONE;
  }
  return run_scal(self, "set_val", args, nargs, kwnames, setval_sigs + 1, 2, "val", "num_comp", do_set_val, sigtext);
}

static PyObject *m_abs(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return run_scal(self, "abs", args, nargs, kwnames, abs_sigs, 1, NULL, "ncomp", do_abs,
                  "abs(comp: int, ncomp: int, nghost: int/IntVect = 0)");
}

static const char plus_text[] =
    "plus(val: float, nghost: int = 0), plus(val, comp: int, num_comp: int, nghost: int = 0), plus(val, region: Box, "
    "nghost: int = 0), plus(val, region, comp, num_comp, nghost: int = 0), plus(mf: MultiFab, strt_comp: int, "
    "num_comp: int, nghost: int = 0)";

/* self op= mf on [strt_comp, strt_comp+num_comp). */
typedef int (*mfop_fn)(bf_multifab *, const bf_multifab *, int, int, bf_intvect);
static PyObject *run_mfop(PyObject *self, const char *func, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames, mfop_fn fn, const char *sigtext) {
  PyObject *out[4];
  if (bfpy_mf_match(func, args, nargs, kwnames, mfop_sigs, 1, out, sigtext) < 0) return NULL;
  int dim = MFO(self)->dim, comp, ncomp;
  bf_intvect ng;
  bf_multifab *mf = bfpy_mf_self(self, func);
  bf_multifab *src = mf ? bfpy_mf_arg(out[0], dim, bf_multifab_dtype(mf), "mf") : NULL;
  if (!src || bfpy_to_int(out[1], &comp, "strt_comp") < 0 || bfpy_to_int(out[2], &ncomp, "num_comp") < 0 ||
      bfpy_mf_ng(out[3], dim, bf_intvect_splat(dim, 0), &ng, "nghost") < 0 ||
      bfpy_check(fn(mf, src, comp, ncomp, ng)) < 0)
    return NULL;
  Py_RETURN_NONE;
}

static bool first_is_mf(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  if (nargs > 0) return bfpy_is(args[0], BFPY_T_FABARRAYBASE, -1);
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; ++k)
    if (PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, k), "mf") == 0) return true;
  return false;
}

static PyObject *m_plus(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  if (first_is_mf(args, nargs, kwnames)) return run_mfop(self, "plus", args, nargs, kwnames, bf_multifab_plus, plus_text);
  return run_scal(self, "plus", args, nargs, kwnames, scal4_sigs, 4, "val", "num_comp", do_plus, plus_text);
}

static PyObject *m_minus(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return run_mfop(self, "minus", args, nargs, kwnames, bf_multifab_minus,
                  "minus(mf: MultiFab, strt_comp: int, num_comp: int, nghost: int = 0)");
}

static PyObject *m_divi(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return run_mfop(self, "divi", args, nargs, kwnames, bf_multifab_divi,
                  "divi(mf: MultiFab, strt_comp: int, num_comp: int, nghost: int = 0)");
}

static PyObject *m_mult(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return run_scal(self, "mult", args, nargs, kwnames, scal4_sigs, 4, "val", "num_comp", do_mult,
                  "mult(val: float, nghost: int = 0), mult(val, comp: int, num_comp: int, nghost: int = 0), "
                  "mult(val, region: Box, comp: int, num_comp: int, nghost: int = 0), mult(val, region: Box, "
                  "nghost: int = 0)");
}

static PyObject *m_invert(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return run_scal(self, "invert", args, nargs, kwnames, invert_sigs, 4, "numerator", "num_comp", do_invert,
                  "invert(numerator: float, nghost: int), invert(numerator, comp: int, num_comp: int, nghost: int = "
                  "0), invert(numerator, region: Box, nghost: int), invert(numerator, region: Box, comp: int, "
                  "num_comp: int, nghost: int = 0)");
}

static PyObject *m_negate(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return run_scal(self, "negate", args, nargs, kwnames, negate_sigs, 4, NULL, "num_comp", do_negate,
                  "negate(nghost: int = 0), negate(comp: int, num_comp: int, nghost: int = 0), negate(region: Box, "
                  "nghost: int = 0), negate(region: Box, comp: int, num_comp: int, nghost: int = 0)");
}

/* ---- statics (self = the class) --------------------------------------------------------------- */
typedef int (*binop_fn)(bf_multifab *, const bf_multifab *, int, int, int, bf_intvect);

static int do_swap(bf_multifab *d, const bf_multifab *s, int sc, int dc, int n, bf_intvect g) {
  return bf_multifab_swap(d, (bf_multifab *)s, sc, dc, n, g);
}

static PyObject *run_binop(PyObject *cls, const char *func, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames, binop_fn fn) {
  static const char *const names[] = {"dst", "src", "srccomp", "dstcomp", "numcomp", "nghost", NULL};
  PyObject *a[6];
  int dim, dtype, sc, dc, nc;
  bf_intvect ng = {0, {0, 0, 0}};
  if (bfpy_mf_type_info(cls, &dim, &dtype) < 0 || bfpy_bind(args, nargs, kwnames, names, 6, a, true) < 0)
    return NULL;
  bf_multifab *dst = bfpy_mf_arg(a[0], dim, dtype, "dst");
  bf_multifab *src = dst ? bfpy_mf_arg(a[1], dim, dtype, "src") : NULL;
  if (!src || bfpy_to_int(a[2], &sc, "srccomp") < 0 || bfpy_to_int(a[3], &dc, "dstcomp") < 0 ||
      bfpy_to_int(a[4], &nc, "numcomp") < 0 || bfpy_mf_ng(a[5], dim, ng, &ng, "nghost") < 0 ||
      bfpy_check(fn(dst, src, sc, dc, nc, ng)) < 0)
    return NULL;
  (void)func;
  Py_RETURN_NONE;
}

#define BINOP(name, fn)                                                                                          \
  static PyObject *s_##name(PyObject *cls, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {         \
    return run_binop(cls, #name, args, nargs, kwnames, fn);                                                      \
  }
BINOP(add, bf_multifab_add)
BINOP(subtract, bf_multifab_subtract)
BINOP(multiply, bf_multifab_multiply)
BINOP(divide, bf_multifab_divide)
BINOP(swap, do_swap)

/* saxpy / xpay: names[] gives (dst, a, src, srccomp, dstcomp, numcomp, nghost) in the C order
 * (FabArray's: y, a, x, xcomp, ycomp, ncomp, nghost). */
typedef int (*axpy_fn)(bf_multifab *, double, const bf_multifab *, int, int, int, bf_intvect);
static PyObject *run_axpy(PyObject *cls, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                          const char *const *names, axpy_fn fn) {
  PyObject *a[7];
  int dim, dtype, sc, dc, nc;
  double s;
  bf_intvect ng = {0, {0, 0, 0}};
  if (bfpy_mf_type_info(cls, &dim, &dtype) < 0 || bfpy_bind(args, nargs, kwnames, names, 7, a, true) < 0)
    return NULL;
  bf_multifab *dst = bfpy_mf_arg(a[0], dim, dtype, names[0]);
  bf_multifab *src = dst ? bfpy_mf_arg(a[2], dim, dtype, names[2]) : NULL;
  if (!src || bfpy_to_double(a[1], &s, "a") < 0 || bfpy_to_int(a[3], &sc, names[3]) < 0 ||
      bfpy_to_int(a[4], &dc, names[4]) < 0 || bfpy_to_int(a[5], &nc, names[5]) < 0 ||
      bfpy_mf_ng(a[6], dim, ng, &ng, "nghost") < 0 || bfpy_check(fn(dst, s, src, sc, dc, nc, ng)) < 0)
    return NULL;
  Py_RETURN_NONE;
}

static const char *const N_AXPY[] = {"dst", "a", "src", "srccomp", "dstcomp", "numcomp", "nghost", NULL};
static const char *const N_FA_AXPY[] = {"y", "a", "x", "xcomp", "ycomp", "ncomp", "nghost", NULL};

static PyObject *s_saxpy(PyObject *cls, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return run_axpy(cls, args, nargs, kwnames, N_AXPY, bf_multifab_saxpy);
}
static PyObject *s_xpay(PyObject *cls, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return run_axpy(cls, args, nargs, kwnames, N_AXPY, bf_multifab_xpay);
}
static PyObject *s_fa_saxpy(PyObject *cls, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return run_axpy(cls, args, nargs, kwnames, N_FA_AXPY, bf_multifab_saxpy);
}
static PyObject *s_fa_xpay(PyObject *cls, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return run_axpy(cls, args, nargs, kwnames, N_FA_AXPY, bf_multifab_xpay);
}

/* lin_comb: (dst, a, x, xcomp, b, y, ycomp, dstcomp, numcomp, nghost) with the names given. */
static PyObject *run_lincomb(PyObject *cls, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                             const char *const *names) {
  PyObject *a[10];
  int dim, dtype, xc, yc, dc, nc;
  double sa, sb;
  bf_intvect ng = {0, {0, 0, 0}};
  if (bfpy_mf_type_info(cls, &dim, &dtype) < 0 || bfpy_bind(args, nargs, kwnames, names, 10, a, true) < 0)
    return NULL;
  bf_multifab *dst = bfpy_mf_arg(a[0], dim, dtype, "dst");
  bf_multifab *x = dst ? bfpy_mf_arg(a[2], dim, dtype, "x") : NULL;
  bf_multifab *y = x ? bfpy_mf_arg(a[5], dim, dtype, "y") : NULL;
  if (!y || bfpy_to_double(a[1], &sa, "a") < 0 || bfpy_to_int(a[3], &xc, names[3]) < 0 ||
      bfpy_to_double(a[4], &sb, "b") < 0 || bfpy_to_int(a[6], &yc, names[6]) < 0 ||
      bfpy_to_int(a[7], &dc, "dstcomp") < 0 || bfpy_to_int(a[8], &nc, "numcomp") < 0 ||
      bfpy_mf_ng(a[9], dim, ng, &ng, "nghost") < 0 ||
      bfpy_check(bf_multifab_lin_comb(dst, sa, x, xc, sb, y, yc, dc, nc, ng)) < 0)
    return NULL;
  Py_RETURN_NONE;
}

static PyObject *s_lin_comb(PyObject *cls, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"dst", "a", "x", "x_comp", "b", "y", "y_comp", "dstcomp", "numcomp", "nghost",
                                      NULL};
  return run_lincomb(cls, args, nargs, kwnames, names);
}
static PyObject *s_fa_lin_comb(PyObject *cls, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"dst", "a", "x", "xcomp", "b", "y", "ycomp", "dstcomp", "numcomp", "nghost",
                                      NULL};
  return run_lincomb(cls, args, nargs, kwnames, names);
}

static PyObject *s_add_product(PyObject *cls, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"dst", "src1", "comp1", "src2", "comp2", "dstcomp", "numcomp", "nghost", NULL};
  PyObject *a[8];
  int dim, dtype, c1, c2, dc, nc;
  bf_intvect ng = {0, {0, 0, 0}};
  if (bfpy_mf_type_info(cls, &dim, &dtype) < 0 || bfpy_bind(args, nargs, kwnames, names, 8, a, true) < 0)
    return NULL;
  bf_multifab *dst = bfpy_mf_arg(a[0], dim, dtype, "dst");
  bf_multifab *s1 = dst ? bfpy_mf_arg(a[1], dim, dtype, "src1") : NULL;
  bf_multifab *s2 = s1 ? bfpy_mf_arg(a[3], dim, dtype, "src2") : NULL;
  if (!s2 || bfpy_to_int(a[2], &c1, "comp1") < 0 || bfpy_to_int(a[4], &c2, "comp2") < 0 ||
      bfpy_to_int(a[5], &dc, "dstcomp") < 0 || bfpy_to_int(a[6], &nc, "numcomp") < 0 ||
      bfpy_mf_ng(a[7], dim, ng, &ng, "nghost") < 0 ||
      bfpy_check(bf_multifab_add_product(dst, s1, c1, s2, c2, dc, nc, ng)) < 0)
    return NULL;
  Py_RETURN_NONE;
}

/* ---- tables ----------------------------------------------------------------------------------- */
#define M_PLUS {"plus", FASTKW(m_plus), plus_text}
#define M_MINUS                                                                                                  \
  {"minus", FASTKW(m_minus), "minus(mf, strt_comp: int, num_comp: int, nghost: int = 0) -> None: self -= mf."}
#define M_DIVI                                                                                                   \
  {"divi", FASTKW(m_divi), "divi(mf, strt_comp: int, num_comp: int, nghost: int = 0) -> None: self /= mf."}
#define M_MULT                                                                                                   \
  {"mult", FASTKW(m_mult),                                                                                       \
   "mult(val, nghost=0) / (val, comp, num_comp, nghost=0) / (val, region, comp, num_comp, nghost=0) / (val, "     \
   "region, nghost=0) -> None: scale by val."}
#define M_NEGATE                                                                                                 \
  {"negate", FASTKW(m_negate),                                                                                   \
   "negate(nghost=0) / (comp, num_comp, nghost=0) / (region, nghost=0) / (region, comp, num_comp, nghost=0)."}

PyMethodDef bfpy_mf_ops_methods[] = {
    M_PLUS, M_MINUS, M_DIVI, M_MULT, M_NEGATE,
    {"invert", FASTKW(m_invert),
     "invert(numerator, nghost) / (numerator, comp, num_comp, nghost=0) / (numerator, region, nghost) / "
     "(numerator, region, comp, num_comp, nghost=0) -> None: a = numerator / a."},
    {NULL, NULL, 0, NULL},
};

PyMethodDef bfpy_mf_fabarray_ops[] = {
    {"set_val", FASTKW(m_set_val),
     "set_val(val) -> None: every cell incl. ghosts, all components; set_val(val, comp, num_comp, nghost=0) / "
     "set_val(val, region: Box, comp, num_comp, nghost=0): components [comp, comp+num_comp), valid + nghost."},
    {"abs", FASTKW(m_abs), "abs(comp: int, ncomp: int, nghost: int/IntVect = 0) -> None: a = |a|."},
    {NULL, NULL, 0, NULL},
};

PyMethodDef bfpy_mf_imf_ops_methods[] = {M_PLUS, M_MINUS, M_DIVI, M_MULT, M_NEGATE, {NULL, NULL, 0, NULL}};

#define S_BIN(name, what)                                                                                        \
  {#name, FASTKW(s_##name),                                                                                      \
   #name "(dst, src, srccomp: int, dstcomp: int, numcomp: int, nghost: int/IntVect) -> None: " what              \
         " (same BoxArray and DistributionMapping)."}

PyMethodDef bfpy_mf_statics[] = {
    S_BIN(add, "dst += src"),
    S_BIN(subtract, "dst -= src"),
    S_BIN(multiply, "dst *= src"),
    S_BIN(divide, "dst /= src"),
    S_BIN(swap, "exchange the data"),
    {"saxpy", FASTKW(s_saxpy),
     "saxpy(dst, a: float, src, srccomp: int, dstcomp: int, numcomp: int, nghost: int) -> None: dst += a*src."},
    {"xpay", FASTKW(s_xpay),
     "xpay(dst, a: float, src, srccomp: int, dstcomp: int, numcomp: int, nghost: int) -> None: dst = src + a*dst."},
    {"lin_comb", FASTKW(s_lin_comb),
     "lin_comb(dst, a: float, x, x_comp: int, b: float, y, y_comp: int, dstcomp: int, numcomp: int, nghost: int) "
     "-> None: dst = a*x + b*y."},
    {"add_product", FASTKW(s_add_product),
     "add_product(dst, src1, comp1: int, src2, comp2: int, dstcomp: int, numcomp: int, nghost: int/IntVect) -> "
     "None: dst += src1*src2."},
    {NULL, NULL, 0, NULL},
};
/* the static forms' parameter counts, in the order above (bfpy_add_hybrids) */
const int bfpy_mf_statics_arity[] = {6, 6, 6, 6, 6, 7, 7, 10, 8};

PyMethodDef bfpy_mf_static_only[] = {
    {"dot", FASTKW(bfpy_mf_dot_static),
     "dot(x, xcomp: int, y, ycomp: int, numcomp: int, nghost: int, local: bool = False) / dot(x, xcomp, numcomp, "
     "nghost, local=False) -> float: sum of x*y (or x*x) over components and valid + nghost cells."},
    {NULL, NULL, 0, NULL},
};

PyMethodDef bfpy_mf_fabarray_statics[] = {
    {"saxpy", FASTKW(s_fa_saxpy),
     "saxpy(y, a: float, x, xcomp: int, ycomp: int, ncomp: int, nghost: IntVect) -> None: y += a*x."},
    {"xpay", FASTKW(s_fa_xpay),
     "xpay(y, a: float, x, xcomp: int, ycomp: int, ncomp: int, nghost: IntVect) -> None: y = x + a*y."},
    {"lin_comb", FASTKW(s_fa_lin_comb),
     "lin_comb(dst, a: float, x, xcomp: int, b: float, y, ycomp: int, dstcomp: int, numcomp: int, nghost: "
     "IntVect) -> None: dst = a*x + b*y."},
    {NULL, NULL, 0, NULL},
};
const int bfpy_mf_fabarray_statics_arity[] = {7, 7, 10};

PyMethodDef bfpy_imf_statics[] = {
    S_BIN(add, "dst += src"), S_BIN(subtract, "dst -= src"), S_BIN(multiply, "dst *= src"),
    S_BIN(divide, "dst /= src (integer division; by zero gives 0)"), S_BIN(swap, "exchange the data"),
    {NULL, NULL, 0, NULL},
};
const int bfpy_imf_statics_arity[] = {6, 6, 6, 6, 6};
