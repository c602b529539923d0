/* boxfab._core: private declarations shared by the files of the geometry
 * family (index/realvect.c, index/realbox.c, bfpy_geometry*.c). */
#ifndef BOXFAB_BFPY_GEOMETRY_H
#define BOXFAB_BFPY_GEOMETRY_H

#include "bfpy.h"

/* Per-family init functions called by bfpy_init_geometry (index/geometry.c). */
int bfpy_init_realvect(PyObject *m, int dim);     /* RealVect, min, max */
int bfpy_init_realbox(PyObject *m, int dim);      /* RealBox, AlmostEqual */
int bfpy_init_periodicity(PyObject *m, int dim);  /* Periodicity */
int bfpy_init_geometrydata(PyObject *m, int dim); /* GeometryData */

/* A direction argument: an int in [-dim, dim) (negative counts from the end)
 * into *d in [0, dim).  TypeError / OverflowError / IndexError otherwise. */
int bfpy_geom_dir(PyObject *o, int dim, int *d, const char *what);

/* 1 when `o` is a plain real scalar: int, float or an object with
 * __float__ / __index__ that is not text nor a sequence with a length (a 0-d
 * NumPy array is a scalar, a 1-d one is not); 0 when not; -1 with the
 * exception when asking its length raised anything but TypeError. */
int bfpy_geom_is_real_scalar(PyObject *o);

/* str of a double, Python repr style ("1.0", "0.1", "inf"). */
PyObject *bfpy_geom_double_str(double v);

/* "name(<lo list>, <hi list>)"-style helper: repr of a list of n doubles. */
PyObject *bfpy_geom_reals_repr(const double *v, int n);

/* Vectorcall method signature used across the family. */
#define BFPY_FASTKW(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

#endif
