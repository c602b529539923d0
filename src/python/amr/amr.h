/* boxfab._core, private: what the AMR families of src/python/amr/ share (issue 24).
 *
 * Callbacks into Python.  A core function that calls a Python callable (a PhysBCFunctUser's
 * function, an AmrCore subclass's virtual functions) is called with the GIL held.  When the
 * Python code raises, the callback returns a bf error code (BF_ERROR_RUNTIME with a message) and
 * leaves the Python exception pending; the binding that made the core call then returns NULL
 * without replacing it:
 *     if (st) return PyErr_Occurred() ? NULL : bfpy_raise(st);
 * so the user's own exception (its type and message) reaches the caller. */
#ifndef BOXFAB_PY_AMR_H
#define BOXFAB_PY_AMR_H

#include "bfpy.h"
#include "boxfab/bcrec.h"

/* ---- boundary conditions (amr/bcrec.c) ------------------------------------------------------- */
/* A BCRec object's value. */
int bfpy_as_bcrec(PyObject *o, int dim, bf_bcrec *out, const char *what);
/* A Vector_BCRec, or a sequence of BCRec: *out is malloc'ed (n entries, the caller frees; NULL
 * when n is 0). */
int bfpy_as_bcrecs(PyObject *o, int dim, bf_bcrec **out, int *n, const char *what);
/* A physical-boundary filler from a PhysBCFunct* object (PhysBCFunctNoOp, PhysBCFunct_
 * CpuBndryFuncFab, PhysBCFunctUser): out->ctx borrows `o`, which the caller keeps alive for the
 * duration of the core call. */
int bfpy_as_physbc(PyObject *o, int dim, bf_physbc *out, const char *what);

/* ---- interpolaters (amr/interp.c) --------------------------------------------------------------- */
struct bf_interp;
/* The interpolater of an InterpBase object (one of the singletons). */
int bfpy_as_interp(PyObject *o, int dim, const struct bf_interp **out, const char *what);

#endif
