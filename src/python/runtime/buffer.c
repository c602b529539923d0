/* boxfab._core: _BufferOwner, the object that keeps mesh memory alive for views.
 *
 * mf.array(mfi), fab.array() and everything exported from them (NumPy arrays,
 * DLPack capsules) hold a reference to one of these, and it holds a reference
 * to the bf_buffer: clearing or deleting the MultiFab drops only the
 * MultiFab's own reference, so a view never reads freed memory. */
#include "bfpy.h"

static void owner_dealloc(PyObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  bf_buffer_destroy(&((bfpy_buffer_owner_object *)self)->buf);
  tp->tp_free(self);
  Py_DECREF(tp);
}

static PyObject *owner_repr(PyObject *self) {
  bf_buffer *b = ((bfpy_buffer_owner_object *)self)->buf;
  return PyUnicode_FromFormat("<boxfab buffer of %zu bytes at %p>", b ? bf_buffer_nbytes(b) : (size_t)0,
                              b ? bf_buffer_data(b) : NULL);
}

static PyType_Slot owner_slots[] = {
    {Py_tp_doc, "Keeps a block of boxfab memory alive while views of it exist (internal)."},
    {Py_tp_dealloc, owner_dealloc},
    {Py_tp_repr, owner_repr},
    {0, NULL},
};

static PyType_Spec owner_spec = {
    .name = "_BufferOwner", .basicsize = sizeof(bfpy_buffer_owner_object), .flags = Py_TPFLAGS_DEFAULT,
    .slots = owner_slots};

PyObject *bfpy_buffer_owner_new(bf_buffer *buf) {
  PyTypeObject *t = bfpy_types[0][BFPY_T_BUFFER_OWNER];
  if (!t) {
    PyErr_SetString(PyExc_RuntimeError, "boxfab: _BufferOwner is not available");
    return NULL;
  }
  bfpy_buffer_owner_object *o = (bfpy_buffer_owner_object *)t->tp_alloc(t, 0);
  if (!o) return NULL;
  o->buf = bf_buffer_retain(buf);
  return (PyObject *)o;
}

int bfpy_memory_of_arena(const bf_arena *a) {
  if (!a) return BFPY_MEM_HOST;
  if (bf_arena_is_device(a)) return BFPY_MEM_DEVICE;
  if (bf_arena_is_managed(a)) return BFPY_MEM_MANAGED;
  if (bf_arena_is_pinned(a)) return BFPY_MEM_PINNED;
  return BFPY_MEM_HOST;
}

int bfpy_init_buffer(PyObject *m, int dim) {
  (void)m;
  if (dim == 1 && !bfpy_make_type(NULL, 0, BFPY_T_BUFFER_OWNER, "_BufferOwner", &owner_spec, NULL)) return -1;
  return 0;
}
