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

static PyObject *do_io(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, int what) {
  static const char *const wnames[] = {"dir", "name", NULL};
  static const char *const rnames[] = {"dir", "file", NULL};
  static const char *const cnames[] = {"dir", "file", "is_checkpoint", NULL};
  PyObject *a[3] = {NULL, NULL, NULL};
  const char *const *names = what <= 1 ? wnames : what == 2 ? rnames : cnames;
  if (bfpy_bind(args, nargs, kwnames, names, what == 3 ? 3 : 2, a, true) < 0) return NULL;
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
  if (what <= 1) {
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
     "write_plotfile(dir: str, name: str) -> None: write the particles in AMReX's plotfile format.\n\n"
     "Writes dir/name/Header, dir/name/Level_L/Particle_H and DATA_nnnnn (the particles with id > 0), the\n"
     "same bytes as AMReX's WritePlotFile; dir is created when missing, dir/name is replaced atomically.\n"
     "Collective across MPI ranks: each rank writes its grids (AMReX's NFiles rule), rank 0 the headers.\n"
     "OSError naming the path when a file cannot be written."},
    {"checkpoint", FASTKW(pc_checkpoint),
     "checkpoint(dir: str, name: str) -> None: write the particles in AMReX's checkpoint format\n"
     "(Version_Two_Dot_One: full 64-bit ids).  A boxfab extension (AMReX's Checkpoint)."},
    {"restart", FASTKW(pc_restart),
     "restart(dir: str, file: str) -> None: read particles written by write_plotfile / checkpoint (boxfab's or\n"
     "AMReX's) from dir/file, add them and redistribute.  ValueError naming the file for malformed content,\n"
     "OSError when a file cannot be read."},
    {"restart_checkpoint", FASTKW(pc_restart_checkpoint),
     "restart_checkpoint(dir: str, file: str, is_checkpoint: bool) -> None: restart (the format is read from\n"
     "the Header; is_checkpoint is ignored, as in AMReX)."},
    {NULL, NULL, 0, NULL}};
