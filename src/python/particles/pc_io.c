/* Particle files from Python: the methods `write_plotfile`, `checkpoint`,
 * `restart` and `restart_checkpoint` of every ParticleContainer type, as the
 * table bfpy_pc_io_methods that the container bindings include.  Each
 * composes one C call (src/core/particles/io.c).
 *
 *   pc.write_plotfile(dir, name)            AMReX's WritePlotFile
 *   pc.checkpoint(dir, name)                AMReX's Checkpoint (extension)
 *   pc.restart(dir, file)                   AMReX's Restart
 *   pc.restart_checkpoint(dir, file, is_checkpoint)
 *
 * dir / name: str or os.PathLike.  The generic ParticleContainer writes its
 * component names into the Header; the pyAMReX classes write AMReX's
 * real_compN / int_compN as AMReX 24.10 does.
 *
 * Across MPI ranks all four are collective (src/core/particles/io.c). */
#include <errno.h>
#include <string.h>

#include "bfpy.h"
#include "particles/pc.h"
#include "boxfab/particles.h"

#define FASTKW(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

/* A path argument (str, bytes or os.PathLike) as a new bytes object. */
static PyObject *path_arg(PyObject *o, const char *what) {
  if (!o || !(PyUnicode_Check(o) || PyBytes_Check(o) || PyObject_HasAttrString(o, "__fspath__"))) {
    PyErr_Format(PyExc_TypeError, "%s must be a str or os.PathLike, not %.100s", what, o ? Py_TYPE(o)->tp_name : "nothing");
    return NULL;
  }
  PyObject *b = NULL;
  if (!PyUnicode_FSConverter(o, &b)) return NULL;
  if ((size_t)PyBytes_GET_SIZE(b) != strlen(PyBytes_AS_STRING(b))) {
    Py_DECREF(b);
    PyErr_Format(PyExc_ValueError, "%s must not contain a NUL character", what);
    return NULL;
  }
  return b;
}

/* A sequence of str (a Vector_string, a list) as an array of n UTF-8 names borrowed from *keep (a new
 * reference the caller releases, with the array). */
static int str_list(PyObject *o, PyObject **keep, const char ***out, int *n, const char *what) {
  *keep = NULL, *out = NULL, *n = 0;
  if (PyUnicode_Check(o) || PyBytes_Check(o)) {
    PyErr_Format(PyExc_TypeError, "%s must be a list of str (a Vector_string), not %.100s", what, Py_TYPE(o)->tp_name);
    return -1;
  }
  PyObject *seq = PySequence_Fast(o, what);
  if (!seq) return -1;
  Py_ssize_t m = PySequence_Fast_GET_SIZE(seq);
  if (m > 100000) {
    Py_DECREF(seq);
    PyErr_Format(PyExc_ValueError, "%s: %zd names are too many", what, m);
    return -1;
  }
  const char **arr = PyMem_Calloc((size_t)m + 1, sizeof *arr);
  if (!arr) {
    Py_DECREF(seq);
    PyErr_NoMemory();
    return -1;
  }
  for (Py_ssize_t i = 0; i < m; ++i) {
    PyObject *it = PySequence_Fast_GET_ITEM(seq, i);
    Py_ssize_t len = 0;
    const char *c = PyUnicode_Check(it) ? PyUnicode_AsUTF8AndSize(it, &len) : NULL;
    if (!c) {
      if (!PyErr_Occurred())
        PyErr_Format(PyExc_TypeError, "%s: item %zd must be a str, not %.100s", what, i, Py_TYPE(it)->tp_name);
      PyMem_Free(arr);
      Py_DECREF(seq);
      return -1;
    }
    if ((size_t)len != strlen(c)) {
      PyErr_Format(PyExc_ValueError, "%s: item %zd contains a NUL character", what, i);
      PyMem_Free(arr);
      Py_DECREF(seq);
      return -1;
    }
    arr[i] = c;
  }
  *keep = seq, *out = arr, *n = (int)m;
  return 0;
}

static PyObject *do_io(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, int what) {
  static const char *const wnames[] = {"dir", "name", "real_comp_names", "int_comp_names", NULL};
  static const char *const rnames[] = {"dir", "file", NULL};
  static const char *const cnames[] = {"dir", "file", "is_checkpoint", NULL};
  PyObject *a[4] = {NULL, NULL, NULL, NULL};
  const char *const *names = what <= 1 ? wnames : what == 2 ? rnames : cnames;
  if (bfpy_bind(args, nargs, kwnames, names, what == 3 ? 3 : 2, a, true) < 0) return NULL;
  if (what <= 1 && a[3] && (!a[2] || a[2] == Py_None)) {
    PyErr_SetString(PyExc_TypeError, "write_plotfile: int_comp_names needs real_comp_names too");
    return NULL;
  }
  bf_pc *pc = bfpy_pc_unwrap(self);
  if (!pc) return NULL;
  if (what == 3 && !PyBool_Check(a[2]) && !bfpy_is_intlike(a[2])) {
    PyErr_Format(PyExc_TypeError, "is_checkpoint must be a bool, not %.100s", Py_TYPE(a[2])->tp_name);
    return NULL;
  }
  PyObject *d = path_arg(a[0], "dir");
  if (!d) return NULL;
  PyObject *n = path_arg(a[1], what <= 1 ? "name" : "file");
  if (!n) {
    Py_DECREF(d);
    return NULL;
  }
  const char *ds = PyBytes_AS_STRING(d), *ns = PyBytes_AS_STRING(n);
  int rc;
  if (what <= 1 && a[2] && a[2] != Py_None) {
    /* AMReX's WritePlotFile(dir, name, real_comp_names[, int_comp_names]): the names as given (ints:
     * AMReX's defaults when not given) */
    PyObject *kr = NULL, *ki = NULL;
    const char **rv = NULL, **iv = NULL;
    int nr = 0, ni = 0;
    if (str_list(a[2], &kr, &rv, &nr, "write_plotfile(real_comp_names)") < 0 ||
        (a[3] && a[3] != Py_None && str_list(a[3], &ki, &iv, &ni, "write_plotfile(int_comp_names)") < 0)) {
      PyMem_Free(rv), PyMem_Free(iv);
      Py_XDECREF(kr), Py_XDECREF(ki);
      Py_DECREF(d), Py_DECREF(n);
      return NULL;
    }
    if (!ki) {
      const bf_playout *L = bf_pc_layout(pc);
      ni = L->nsi + bf_pc_num_int_comps(pc);
      char *buf = PyMem_Malloc((size_t)ni * 24 + 1);
      iv = PyMem_Calloc((size_t)ni + 1, sizeof *iv);
      if (!buf || !iv) {
        PyMem_Free(buf), PyMem_Free(iv), PyMem_Free(rv);
        Py_XDECREF(kr), Py_DECREF(d), Py_DECREF(n);
        return PyErr_NoMemory();
      }
      for (int i = 0; i < ni; ++i) {
        snprintf(buf + (size_t)i * 24, 24, "int_comp%d", i);
        iv[i] = buf + (size_t)i * 24;
      }
      rc = bf_pc_write_binary_names(pc, ds, ns, what == 1, nr, rv, ni, iv);
      PyMem_Free(buf);
    } else {
      rc = bf_pc_write_binary_names(pc, ds, ns, what == 1, nr, rv, ni, iv);
    }
    PyMem_Free(rv), PyMem_Free(iv);
    Py_XDECREF(kr), Py_XDECREF(ki);
  } else if (what <= 1) {
    const bool generic = ((bfpy_pc_object *)self)->generic;
    rc = bf_pc_write_binary(pc, ds, ns, what == 1, generic);
  } else {
    rc = bf_pc_restart(pc, ds, ns);
  }
  Py_DECREF(d);
  Py_DECREF(n);
  if (bfpy_check(rc) < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject *pc_write_plotfile(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) {
  return do_io(self, args, nargs, kw, 0);
}
static PyObject *pc_checkpoint(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) {
  return do_io(self, args, nargs, kw, 1);
}
static PyObject *pc_restart(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) {
  return do_io(self, args, nargs, kw, 2);
}
static PyObject *pc_restart_checkpoint(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) {
  return do_io(self, args, nargs, kw, 3);
}

PyMethodDef bfpy_pc_io_methods[] = {
    {"write_plotfile", FASTKW(pc_write_plotfile),
     "write_plotfile(dir: str, name: str, real_comp_names: list[str] = None, int_comp_names: list[str] = None) "
     "-> None: write the particles in AMReX's plotfile format (with the names given: one per struct and SoA "
     "real, the positions of pure SoA not counted, and per struct and SoA int).\n\n"
     "Writes dir/name/Header, dir/name/Level_L/Particle_H and DATA_nnnnn (the particles with id > 0), the\n"
     "same bytes as AMReX's WritePlotFile; dir is created when missing, dir/name is replaced atomically.\n"
     "Collective across MPI ranks: each rank writes its grids (AMReX's NFiles rule), rank 0 the headers.\n"
     "OSError naming the path when a file cannot be written."},
    {"checkpoint", FASTKW(pc_checkpoint),
     "checkpoint(dir: str, name: str, real_comp_names=None, int_comp_names=None) -> None: write the particles in "
     "AMReX's checkpoint format\n"
     "(Version_Two_Dot_One: full 64-bit ids).  A boxfab extension (AMReX's Checkpoint)."},
    {"restart", FASTKW(pc_restart),
     "restart(dir: str, file: str) -> None: read particles written by write_plotfile / checkpoint (boxfab's or\n"
     "AMReX's) from dir/file, add them and redistribute.  ValueError naming the file for malformed content,\n"
     "OSError when a file cannot be read."},
    {"restart_checkpoint", FASTKW(pc_restart_checkpoint),
     "restart_checkpoint(dir: str, file: str, is_checkpoint: bool) -> None: restart (the format is read from\n"
     "the Header; is_checkpoint is ignored, as in AMReX)."},
    {NULL, NULL, 0, NULL}};

/* ---- ParticleHeader (pyAMReX 26) ---------------------------------------------------------------------
 * ParticleHeader.read(plotfile, particle_dir) / ParticleHeader(plotfile, particle_dir="particles"): the
 * Header of a particle directory, read and checked as restart does (bf_particle_header_read), without the
 * data: the component layout a container needs to read the file (read_particles). */
typedef struct {
  PyObject_HEAD bf_particle_header *h;
} pheader_object;

#define PH(o) (((pheader_object *)(o))->h)

static PyObject *ph_make(PyTypeObject *type, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const char *const names[] = {"plotfile", "particle_dir", NULL};
  PyObject *a[2] = {NULL, NULL};
  if (bfpy_bind(args, nargs, kwnames, names, 1, a, true) < 0) return NULL;
  PyObject *d = path_arg(a[0], "plotfile");
  if (!d) return NULL;
  PyObject *n = a[1] ? path_arg(a[1], "particle_dir") : PyBytes_FromString("particles");
  if (!n) {
    Py_DECREF(d);
    return NULL;
  }
  if (!PyBytes_GET_SIZE(d) || !PyBytes_GET_SIZE(n)) {
    PyErr_SetString(PyExc_ValueError, "ParticleHeader: plotfile and particle_dir must not be empty");
    Py_DECREF(d), Py_DECREF(n);
    return NULL;
  }
  /* collective (rank 0 reads, every rank gets its text or its error); a missing Header is
   * FileNotFoundError (pyAMReX), not a generic OSError, on every rank alike */
  bf_particle_header *h = NULL;
  int rc = bf_particle_header_read(PyBytes_AS_STRING(d), PyBytes_AS_STRING(n), &h);
  if (rc == BF_ERROR_IO && strstr(bf_error_message(), strerror(ENOENT))) {
    PyErr_Format(PyExc_FileNotFoundError, "ParticleHeader: no particle Header at '%s/%s/Header'",
                 PyBytes_AS_STRING(d), PyBytes_AS_STRING(n));
    bf_error_clear();
    Py_DECREF(d), Py_DECREF(n);
    return NULL;
  }
  Py_DECREF(d), Py_DECREF(n);
  if (bfpy_check(rc) < 0) return NULL;
  pheader_object *o = (pheader_object *)type->tp_alloc(type, 0);
  if (!o) {
    bf_particle_header_destroy(&h);
    return NULL;
  }
  o->h = h;
  return (PyObject *)o;
}

static PyObject *ph_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
  PyObject *fast[2] = {NULL, NULL};
  Py_ssize_t na = PyTuple_GET_SIZE(args), nk = kwds ? PyDict_GET_SIZE(kwds) : 0;
  if (na + nk > 2) {
    PyErr_SetString(PyExc_TypeError, "ParticleHeader(plotfile, particle_dir='particles'): too many arguments");
    return NULL;
  }
  for (Py_ssize_t i = 0; i < na; ++i) fast[i] = PyTuple_GET_ITEM(args, i);
  PyObject *kwnames = NULL;
  if (nk) {
    kwnames = PyTuple_New(nk);
    if (!kwnames) return NULL;
    PyObject *k, *v;
    Py_ssize_t pos = 0, j = 0;
    while (PyDict_Next(kwds, &pos, &k, &v)) {
      PyTuple_SET_ITEM(kwnames, j, Py_NewRef(k));
      fast[na + j++] = v;
    }
  }
  PyObject *r = ph_make(type, fast, na, kwnames);
  Py_XDECREF(kwnames);
  return r;
}

static PyObject *ph_read(PyObject *cls, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return ph_make((PyTypeObject *)cls, args, nargs, kwnames);
}

static void ph_dealloc(PyObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  bf_particle_header_destroy(&PH(self));
  tp->tp_free(self);
  Py_DECREF(tp);
}

static PyObject *ph_names(PyObject *self, bool real) {
  int n = real ? bf_particle_header_num_real(PH(self)) : bf_particle_header_num_int(PH(self));
  PyObject *l = PyList_New(n);
  for (int i = 0; l && i < n; ++i) {
    const char *c = real ? bf_particle_header_real_name(PH(self), i) : bf_particle_header_int_name(PH(self), i);
    PyObject *v = PyUnicode_DecodeUTF8(c, (Py_ssize_t)strlen(c), "replace");
    if (!v) {
      Py_CLEAR(l);
      break;
    }
    PyList_SET_ITEM(l, i, v);
  }
  return l;
}

static PyObject *ph_get(PyObject *self, void *c) {
  const bf_particle_header *h = PH(self);
  switch ((int)(intptr_t)c) {
  case 0: return PyUnicode_FromString(bf_particle_header_version(h));
  case 1: return PyLong_FromLong(bf_particle_header_dim(h));
  case 2: return PyLong_FromLong(bf_particle_header_num_real(h));
  case 3: return PyLong_FromLong(bf_particle_header_num_int(h));
  case 4: return ph_names(self, true);
  case 5: return ph_names(self, false);
  case 6: return PyBool_FromLong(bf_particle_header_is_checkpoint(h));
  case 7: return PyBool_FromLong(bf_particle_header_is_single(h));
  case 8: return PyLong_FromLongLong(bf_particle_header_num_particles(h));
  case 9: return PyLong_FromLongLong(bf_particle_header_next_id(h));
  case 10: return PyLong_FromLong(bf_particle_header_finest_level(h));
  default: {
    int nl = bf_particle_header_finest_level(h) + 1;
    PyObject *l = PyList_New(nl);
    for (int lev = 0; l && lev < nl; ++lev) {
      PyObject *v = PyLong_FromLongLong(bf_particle_header_num_grids(h, lev));
      if (!v) {
        Py_CLEAR(l);
        break;
      }
      PyList_SET_ITEM(l, lev, v);
    }
    return l;
  }
  }
}

static PyObject *ph_repr(PyObject *self) {
  const bf_particle_header *h = PH(self);
  return PyUnicode_FromFormat("<ParticleHeader %s: %lld particles, %d real / %d int components, finest level %d>",
                              bf_particle_header_version(h), (long long)bf_particle_header_num_particles(h),
                              bf_particle_header_num_real(h), bf_particle_header_num_int(h),
                              bf_particle_header_finest_level(h));
}

#define PHG(name, k, doc) {name, ph_get, NULL, doc, (void *)(intptr_t)(k)}
static PyGetSetDef ph_getset[] = {
    PHG("version", 0, "The version token (Version_Two_Dot_Zero_double, ...)."),
    PHG("dim", 1, "Dimension of the particles."),
    PHG("num_real", 2, "Real components in the file (pure SoA: the positions not counted)."),
    PHG("num_int", 3, "Int components in the file."),
    PHG("real_comp_names", 4, "Names of the real components."),
    PHG("int_comp_names", 5, "Names of the int components."),
    PHG("is_checkpoint", 6, "The Header's checkpoint flag (False for plotfiles)."),
    PHG("is_single_precision", 7, "Reals stored in single precision."),
    PHG("num_particles", 8, "Particles in the file."),
    PHG("next_id", 9, "The next particle id the writer would have given."),
    PHG("finest_level", 10, "Finest level of the file."),
    PHG("num_grids", 11, "Grids per level."),
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef ph_methods[] = {
    {"read", (PyCFunction)(void (*)(void))ph_read, METH_FASTCALL | METH_KEYWORDS | METH_CLASS,
     "read(plotfile: str, particle_dir: str = 'particles') -> ParticleHeader: read plotfile/particle_dir/Header "
     "(FileNotFoundError when missing, ValueError when malformed)."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot ph_slots[] = {
    {Py_tp_doc, "ParticleHeader(plotfile, particle_dir='particles'): the Header of a particle directory (component "
                "names and counts, particle count, levels), without the data."},
    {Py_tp_new, ph_new},
    {Py_tp_dealloc, ph_dealloc},
    {Py_tp_repr, ph_repr},
    {Py_tp_getset, ph_getset},
    {Py_tp_methods, ph_methods},
    {0, NULL},
};

int bfpy_init_pheader(PyObject *m, int dim) {
  static char names[BF_SPACEDIM_MAX + 1][48];
  snprintf(names[dim], sizeof names[dim], "boxfab.space%dd.ParticleHeader", dim);
  PyType_Spec spec = {.name = names[dim], .basicsize = sizeof(pheader_object), .flags = Py_TPFLAGS_DEFAULT,
                      .slots = ph_slots};
  PyObject *t = PyType_FromSpec(&spec);
  if (!t) return -1;
  if (PyModule_AddObject(m, "ParticleHeader", t) < 0) {
    Py_DECREF(t);
    return -1;
  }
  return 0;
}
