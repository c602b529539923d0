/* boxfab._core: family "fab" (placeholder until implemented). */
#include "bfpy.h"

int bfpy_init_fab(PyObject *m, int dim) {
  (void)m, (void)dim;
  return 0;
}

PyObject *bfpy_arena_new(int dim, bf_arena *arena) {
  (void)dim, (void)arena;
  PyErr_SetString(PyExc_RuntimeError, "Arena is not implemented yet");
  return NULL;
}

int bfpy_as_arena(PyObject *o, int dim, bf_arena **out, const char *what) {
  (void)dim;
  if (o == Py_None) {
    *out = bf_arena_get(BF_ARENA_DEFAULT);
    return 0;
  }
  PyErr_Format(PyExc_TypeError, "%s must be an Arena or None", what);
  return -1;
}
