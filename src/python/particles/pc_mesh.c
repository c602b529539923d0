/* Particle-mesh coupling from Python (a boxfab extension: pyAMReX binds no
 * ParticleToMesh / MeshToParticle): the methods `deposit` and `interpolate`
 * of every ParticleContainer type, as the table bfpy_pc_mesh_methods that the
 * container bindings include.  Each composes one C call (bf_pc_deposit_ex /
 * bf_pc_interpolate, src/core/particles/mesh.c); the per-particle work is
 * in the backends.
 *
 *   pc.deposit(mf, comp=-1, level=0, mf_comp=0, shape="cic",
 *              sum_boundary=True, zero_out=True)
 *   pc.interpolate(mf, comp, level=0, mf_comp=0, shape="cic")
 *
 * comp: an SoA real component, by index or by name ("w", "r0", ...);
 * deposit's comp=-1 or None gives every particle weight 1.  shape: "ngp",
 * "cic", "tsc" (any case) or the order 0, 1, 2. */
#include <string.h>

#include "bfpy.h"
#include "mesh/multifab.h"
#include "particles/pc.h"
#include "boxfab/particles.h"

#define FASTKW(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

/* A real component given by index or name; `allow_none`: None (and -1)
 * means "no component" (-1). */
static int comp_arg(PyObject *o, const bf_pc *pc, bool allow_none, int *out, const char *what) {
  if (!o || o == Py_None) {
    if (allow_none) {
      *out = -1;
      return 0;
    }
    PyErr_Format(PyExc_TypeError, "%s: a particle component (index or name) is required", what);
    return -1;
  }
  if (PyUnicode_Check(o)) {
    Py_ssize_t len = 0;
    const char *name = PyUnicode_AsUTF8AndSize(o, &len);
    if (!name) return -1;
    int c = (size_t)len == strlen(name) ? bf_pc_real_comp_index(pc, name) : -1; /* a NUL inside names none */
    if (c < 0) {
      PyObject *names = PyList_New(0);
      for (int i = 0; names && i < bf_pc_num_real_comps(pc); ++i) {
        PyObject *s = PyUnicode_FromString(bf_pc_real_comp_name(pc, i) ? bf_pc_real_comp_name(pc, i) : "?");
        if (!s || PyList_Append(names, s) < 0) Py_CLEAR(names);
        Py_XDECREF(s);
      }
      if (names) PyErr_Format(PyExc_ValueError, "%s: no real component named %R (the components: %R)", what, o, names);
      Py_XDECREF(names);
      return -1;
    }
    *out = c;
    return 0;
  }
  if (PyBool_Check(o)) {
    PyErr_Format(PyExc_TypeError, "%s: a component index or name, not bool", what);
    return -1;
  }
  int c;
  if (bfpy_to_int(o, &c, what) < 0) return -1;
  if (c == -1 && !allow_none) {
    PyErr_Format(PyExc_IndexError, "%s: particle component -1 out of range [0, %d)", what, bf_pc_num_real_comps(pc));
    return -1;
  }
  *out = c;
  return 0;
}

static int shape_arg(PyObject *o, int *out) {
  if (!o) {
    *out = BF_SHAPE_CIC;
    return 0;
  }
  if (PyUnicode_Check(o)) {
    const char *s = PyUnicode_AsUTF8(o);
    if (!s) return -1;
    static const char *const names[] = {"ngp", "cic", "tsc"};
    for (int i = 0; i < 3; ++i)
      if (PyOS_stricmp(s, names[i]) == 0) {
        *out = i;
        return 0;
      }
    PyErr_Format(PyExc_ValueError, "shape must be \"ngp\", \"cic\" or \"tsc\" (or the order 0, 1, 2), not %R", o);
    return -1;
  }
  if (PyBool_Check(o) || !bfpy_is_intlike(o)) {
    PyErr_Format(PyExc_TypeError, "shape must be \"ngp\", \"cic\", \"tsc\" or 0, 1, 2, not %.100s", Py_TYPE(o)->tp_name);
    return -1;
  }
  int v;
  if (bfpy_to_int(o, &v, "shape") < 0) return -1;
  if (v < 0 || v > 2) {
    PyErr_Format(PyExc_ValueError, "shape order must be 0 (NGP), 1 (CIC) or 2 (TSC), not %d", v);
    return -1;
  }
  *out = v;
  return 0;
}

static PyObject *pc_deposit(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"mf", "comp", "level", "mf_comp", "shape", "sum_boundary", "zero_out", NULL};
  PyObject *a[7];
  if (bfpy_bind(args, nargs, kwnames, names, 1, a, true) < 0) return NULL;
  bf_pc *pc = bfpy_pc_unwrap(self);
  if (!pc) return NULL;
  /* The scalars first (their __index__ / __bool__ may run Python code that re-initializes the
   * container or the MultiFab); the container is held, the MultiFab read last, with no Python
   * code between it and the C call. */
  bf_pc_retain(pc);
  const int dim = bf_pc_layout(pc)->dim;
  int comp, lev, mfcomp, shape;
  bool sb, zero;
  bf_multifab *mf = NULL;
  PyObject *r = NULL;
  if (comp_arg(a[1], pc, true, &comp, "deposit(comp)") < 0 || bfpy_mf_int(a[2], 0, &lev, "level") < 0 ||
      bfpy_mf_int(a[3], 0, &mfcomp, "mf_comp") < 0 || shape_arg(a[4], &shape) < 0 ||
      bfpy_mf_bool(a[5], true, &sb, "sum_boundary") < 0 || bfpy_mf_bool(a[6], true, &zero, "zero_out") < 0 ||
      !(mf = bfpy_mf_arg(a[0], dim, BF_DTYPE_DOUBLE, "deposit(mf)")))
    goto done;
  if (bfpy_check(bf_pc_deposit_ex(pc, lev, comp, mf, mfcomp, shape, sb, zero)) < 0) goto done;
  r = Py_NewRef(Py_None);
done:
  bf_pc_destroy(&pc);
  return r;
}

static PyObject *pc_interpolate(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"mf", "comp", "level", "mf_comp", "shape", NULL};
  PyObject *a[5];
  if (bfpy_bind(args, nargs, kwnames, names, 2, a, true) < 0) return NULL;
  bf_pc *pc = bfpy_pc_unwrap(self);
  if (!pc) return NULL;
  bf_pc_retain(pc); /* as in deposit: scalars first, the MultiFab last */
  const int dim = bf_pc_layout(pc)->dim;
  int comp, lev, mfcomp, shape;
  bf_multifab *mf = NULL;
  PyObject *r = NULL;
  if (comp_arg(a[1], pc, false, &comp, "interpolate(comp)") < 0 || bfpy_mf_int(a[2], 0, &lev, "level") < 0 ||
      bfpy_mf_int(a[3], 0, &mfcomp, "mf_comp") < 0 || shape_arg(a[4], &shape) < 0 ||
      !(mf = bfpy_mf_arg(a[0], dim, BF_DTYPE_DOUBLE, "interpolate(mf)")))
    goto done;
  if (bfpy_check(bf_pc_interpolate(pc, lev, comp, mf, mfcomp, shape)) < 0) goto done;
  r = Py_NewRef(Py_None);
done:
  bf_pc_destroy(&pc);
  return r;
}

PyMethodDef bfpy_pc_mesh_methods[] = {
    {"deposit", FASTKW(pc_deposit),
     "deposit(mf: MultiFab, comp: int | str | None = -1, level: int = 0, mf_comp: int = 0, shape: str | int = 'cic', "
     "sum_boundary: bool = True, zero_out: bool = True) -> None: deposit the particles as a density.\n\n"
     "Deposit the particles of `level` onto component `mf_comp` of the cell-centred MultiFab `mf` (on the\n"
     "level's BoxArray and DistributionMapping) as a density: each particle adds w * shape / cell volume,\n"
     "w its real component `comp` (index or name; -1 or None: 1).  shape: 'ngp', 'cic' or 'tsc' (or the\n"
     "order 0, 1, 2; CIC and TSC need 1 ghost cell).  zero_out: set the component to 0 first (ghost cells\n"
     "included), as AMReX's ParticleToMesh; else add.  sum_boundary: add ghost contributions into the valid\n"
     "cells they are images of (periodic boundaries included).  A boxfab extension."},
    {"interpolate", FASTKW(pc_interpolate),
     "interpolate(mf: MultiFab, comp: int | str, level: int = 0, mf_comp: int = 0, shape: str | int = 'cic') -> None: "
     "interpolate mesh values to the particles.\n\n"
     "Set real component `comp` (index or name; not a position) of every particle of `level` to component\n"
     "`mf_comp` of the cell-centred MultiFab `mf` (ghost cells filled, e.g. by fill_boundary) interpolated\n"
     "with the shape's weights (the same cells and weights as deposit).  A boxfab extension."},
    {NULL, NULL, 0, NULL}};
