/* boxfab._core: ghost exchange and copies between layouts (API.md 2.7, 2.8):
 * fill_boundary (6 overloads), sum_boundary (4), override_sync (2),
 * average_sync, weighted_sync, and
 * the extension parallel_copy / parallel_add (AMReX's ParallelCopy between
 * MultiFabs on different BoxArrays):
 *
 *   dst.parallel_copy(src, scomp=0, dcomp=0, ncomp=src.n_comp - scomp,
 *                     src_nghost=0, dst_nghost=0, period=Periodicity.non_periodic())
 *
 * copies components src [scomp, scomp+ncomp) into dst [dcomp, dcomp+ncomp)
 * wherever a dst cell of its valid box grown by dst_nghost lies in a src
 * valid box grown by src_nghost (or its periodic image).  Copy plans are
 * cached by the C core. */
#include "mesh/multifab.h"

#define FASTKW(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

static PyObject *m_fill_boundary(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const n1[] = {"cross", NULL};
  static const char *const n2[] = {"period", "cross", NULL};
  static const char *const n3[] = {"nghost", "period", "cross", NULL};
  static const char *const n4[] = {"scomp", "ncomp", "cross", NULL};
  static const char *const n5[] = {"scomp", "ncomp", "period", "cross", NULL};
  static const char *const n6[] = {"scomp", "ncomp", "nghost", "period", "cross", NULL};
  static const bfpy_mf_sig sigs[] = {{n1, 0, "B"},   {n2, 1, "pB"},   {n3, 2, "gpB"},
                                     {n4, 2, "iiB"}, {n5, 3, "iipB"}, {n6, 4, "iigpB"}};
  PyObject *out[5];
  int s = bfpy_mf_match("fill_boundary", args, nargs, kwnames, sigs, 6, out,
                        "fill_boundary(cross: bool = False), (period: Periodicity, cross=False), (nghost: IntVect, "
                        "period, cross=False), (scomp: int, ncomp: int, cross=False), (scomp, ncomp, period, "
                        "cross=False), (scomp, ncomp, nghost: IntVect, period, cross=False)");
  if (s < 0) return NULL;
  int dim = MFO(self)->dim;
  bf_multifab *mf = bfpy_mf_self(self, "fill_boundary");
  if (!mf) return NULL;
  PyObject *oscomp = NULL, *oncomp = NULL, *ong = NULL, *oper = NULL, *ocross = NULL;
  switch (s) {
  case 0: ocross = out[0]; break;
  case 1: oper = out[0], ocross = out[1]; break;
  case 2: ong = out[0], oper = out[1], ocross = out[2]; break;
  case 3: oscomp = out[0], oncomp = out[1], ocross = out[2]; break;
  case 4: oscomp = out[0], oncomp = out[1], oper = out[2], ocross = out[3]; break;
  default: oscomp = out[0], oncomp = out[1], ong = out[2], oper = out[3], ocross = out[4]; break;
  }
  int sc, nc;
  bool cross, has;
  bf_intvect ng;
  bf_periodicity per;
  if (bfpy_mf_int(oscomp, 0, &sc, "scomp") < 0 || bfpy_mf_ncomp(oncomp, mf, sc, &nc, "ncomp") < 0 ||
      bfpy_mf_ng(ong, dim, bf_multifab_ngrow(mf), &ng, "nghost") < 0 ||
      bfpy_mf_period(oper, dim, &per, &has, "period") < 0 || bfpy_mf_bool(ocross, false, &cross, "cross") < 0 ||
      bfpy_check(bf_multifab_fill_boundary(mf, sc, nc, ng, has ? &per : NULL, cross)) < 0)
    return NULL;
  Py_RETURN_NONE;
}

static PyObject *m_sum_boundary(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const n1[] = {"period", NULL};
  static const char *const n2[] = {"scomp", "ncomp", "period", NULL};
  static const char *const n3[] = {"scomp", "ncomp", "nghost", "period", NULL};
  static const char *const n4[] = {"scomp", "ncomp", "nghost", "dst_nghost", "period", NULL};
  static const bfpy_mf_sig sigs[] = {{n1, 1, "p"}, {n2, 3, "iip"}, {n3, 4, "iigp"}, {n4, 5, "iiggp"}};
  PyObject *out[5];
  int s = bfpy_mf_match("sum_boundary", args, nargs, kwnames, sigs, 4, out,
                        "sum_boundary(period: Periodicity), (scomp: int, ncomp: int, period), (scomp, ncomp, nghost: "
                        "IntVect, period), (scomp, ncomp, nghost: IntVect, dst_nghost: IntVect, period)");
  if (s < 0) return NULL;
  int dim = MFO(self)->dim, sc, nc;
  bf_multifab *mf = bfpy_mf_self(self, "sum_boundary");
  if (!mf) return NULL;
  PyObject *oper = out[s == 0 ? 0 : s + 1];
  PyObject *ong = s >= 2 ? out[2] : NULL, *odng = s == 3 ? out[3] : NULL;
  bool has;
  bf_intvect ng, dng;
  bf_periodicity per;
  if (bfpy_mf_int(s ? out[0] : NULL, 0, &sc, "scomp") < 0 ||
      bfpy_mf_ncomp(s ? out[1] : NULL, mf, sc, &nc, "ncomp") < 0 ||
      bfpy_mf_ng(ong, dim, bf_multifab_ngrow(mf), &ng, "nghost") < 0 ||
      bfpy_mf_ng(odng, dim, bf_intvect_splat(dim, 0), &dng, "dst_nghost") < 0 ||
      bfpy_mf_period(oper, dim, &per, &has, "period") < 0 ||
      bfpy_check(bf_multifab_sum_boundary(mf, sc, nc, ng, dng, has ? &per : NULL)) < 0)
    return NULL;
  Py_RETURN_NONE;
}

typedef int (*sync_fn)(bf_multifab *, int, int, const bf_periodicity *);

static PyObject *m_override_sync(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const n1[] = {"period", NULL};
  static const char *const n2[] = {"scomp", "ncomp", "period", NULL};
  static const bfpy_mf_sig sigs[] = {{n1, 1, "p"}, {n2, 3, "iip"}};
  PyObject *out[3];
  int s = bfpy_mf_match("override_sync", args, nargs, kwnames, sigs, 2, out,
                        "override_sync(period: Periodicity), override_sync(scomp: int, ncomp: int, period)");
  if (s < 0) return NULL;
  int sc, nc;
  bool has;
  bf_periodicity per;
  bf_multifab *mf = bfpy_mf_self(self, "override_sync");
  if (!mf || bfpy_mf_int(s ? out[0] : NULL, 0, &sc, "scomp") < 0 ||
      bfpy_mf_ncomp(s ? out[1] : NULL, mf, sc, &nc, "ncomp") < 0 ||
      bfpy_mf_period(out[s ? 2 : 0], MFO(self)->dim, &per, &has, "period") < 0 ||
      bfpy_check(bf_multifab_override_sync(mf, sc, nc, has ? &per : NULL)) < 0)
    return NULL;
  Py_RETURN_NONE;
}

static PyObject *m_average_sync(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const n1[] = {"", NULL};
  static const bfpy_mf_sig sigs[] = {{n1, 1, "p"}};
  PyObject *out[1];
  bool has;
  bf_periodicity per;
  if (bfpy_mf_match("average_sync", args, nargs, kwnames, sigs, 1, out, "average_sync(period: Periodicity, /)") < 0)
    return NULL;
  bf_multifab *mf = bfpy_mf_self(self, "average_sync");
  if (!mf || bfpy_mf_period(out[0], MFO(self)->dim, &per, &has, "period") < 0 ||
      bfpy_check(bf_multifab_average_sync(mf, 0, bf_multifab_ncomp(mf), has ? &per : NULL)) < 0)
    return NULL;
  Py_RETURN_NONE;
}

static PyObject *m_weighted_sync(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const n2[] = {"", "", NULL};
  static const bfpy_mf_sig sigs[] = {{n2, 2, "mp"}};
  PyObject *out[2];
  if (bfpy_mf_match("weighted_sync", args, nargs, kwnames, sigs, 1, out,
                    "weighted_sync(vol: MultiFab, period: Periodicity, /)") < 0)
    return NULL;
  bool has;
  bf_periodicity per;
  bf_multifab *mf = bfpy_mf_self(self, "weighted_sync");
  bf_multifab *vol = mf ? bfpy_mf_arg(out[0], MFO(self)->dim, BF_DTYPE_DOUBLE, "weighted_sync(vol)") : NULL;
  if (!vol || bfpy_mf_period(out[1], MFO(self)->dim, &per, &has, "period") < 0 ||
      bfpy_check(bf_multifab_weighted_sync(mf, vol, has ? &per : NULL)) < 0)
    return NULL;
  Py_RETURN_NONE;
}

typedef int (*pcopy_fn)(bf_multifab *, const bf_multifab *, int, int, int, bf_intvect, bf_intvect,
                        const bf_periodicity *);
static PyObject *run_pcopy(PyObject *self, const char *func, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames, pcopy_fn fn) {
  static const char *const names[] = {"src", "scomp", "dcomp", "ncomp", "src_nghost", "dst_nghost", "period", NULL};
  PyObject *a[7];
  int dim = MFO(self)->dim, sc, dc, nc;
  bool has;
  bf_intvect sng, dng, zero = bf_intvect_splat(dim, 0);
  bf_periodicity per;
  if (bfpy_bind(args, nargs, kwnames, names, 1, a, true) < 0) return NULL;
  bf_multifab *dst = bfpy_mf_self(self, func);
  bf_multifab *src = dst ? bfpy_mf_arg(a[0], dim, bf_multifab_dtype(dst), "src") : NULL;
  if (!src || bfpy_mf_int(a[1], 0, &sc, "scomp") < 0 || bfpy_mf_int(a[2], 0, &dc, "dcomp") < 0 ||
      bfpy_mf_ncomp(a[3], src, sc, &nc, "ncomp") < 0 || bfpy_mf_ng(a[4], dim, zero, &sng, "src_nghost") < 0 ||
      bfpy_mf_ng(a[5], dim, zero, &dng, "dst_nghost") < 0 || bfpy_mf_period(a[6], dim, &per, &has, "period") < 0 ||
      bfpy_check(fn(dst, src, sc, dc, nc, sng, dng, has ? &per : NULL)) < 0)
    return NULL;
  Py_RETURN_NONE;
}

static PyObject *m_parallel_copy(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return run_pcopy(self, "parallel_copy", args, nargs, kwnames, bf_multifab_parallel_copy);
}
static PyObject *m_parallel_add(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return run_pcopy(self, "parallel_add", args, nargs, kwnames, bf_multifab_parallel_add);
}

#define M_FILL                                                                                                   \
  {"fill_boundary", FASTKW(m_fill_boundary),                                                                     \
   "fill_boundary(cross=False) / (period, cross=False) / (nghost: IntVect, period, cross=False) / (scomp, "      \
   "ncomp, cross=False) / (scomp, ncomp, period, cross=False) / (scomp, ncomp, nghost, period, cross=False): "    \
   "fill ghost cells from the neighbours' valid cells (cross=True: faces only, no edges/corners)."}
#define M_SUMB                                                                                                   \
  {"sum_boundary", FASTKW(m_sum_boundary),                                                                       \
   "sum_boundary(period) / (scomp, ncomp, period) / (scomp, ncomp, nghost, period) / (scomp, ncomp, nghost, "    \
   "dst_nghost, period): add overlapping ghost contributions into the cells they cover."}
#define M_OVERRIDE                                                                                               \
  {"override_sync", FASTKW(m_override_sync),                                                                     \
   "override_sync(period) / (scomp, ncomp, period): shared nodal points take the value of the lowest box."}
#define M_PCOPY                                                                                                  \
  {"parallel_copy", FASTKW(m_parallel_copy),                                                                     \
   "parallel_copy(src, scomp=0, dcomp=0, ncomp=src.n_comp-scomp, src_nghost=0, dst_nghost=0, "                   \
   "period=Periodicity.non_periodic()) -> None: copy from src on any BoxArray (extension: AMReX's "               \
   "ParallelCopy)."},                                                                                            \
      {"parallel_add", FASTKW(m_parallel_add), "parallel_add(...) -> None: as parallel_copy, but adds."}

PyMethodDef bfpy_mf_comm_methods[] = {M_FILL, M_SUMB, M_OVERRIDE, {NULL, NULL, 0, NULL}};

PyMethodDef bfpy_mf_comm_mf_methods[] = {
    {"average_sync", FASTKW(m_average_sync),
     "average_sync(period: Periodicity, /) -> None: shared nodal points take the average of their copies."},
    {"weighted_sync", FASTKW(m_weighted_sync),
     "weighted_sync(vol: MultiFab, period: Periodicity, /): NotImplementedError (not in boxfab's C core yet)."},
    M_PCOPY,
    {NULL, NULL, 0, NULL},
};

PyMethodDef bfpy_imf_comm_methods[] = {M_FILL, M_SUMB, M_OVERRIDE, M_PCOPY, {NULL, NULL, 0, NULL}};
