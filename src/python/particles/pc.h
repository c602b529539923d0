/* boxfab._core: particle containers and their iterators, private
 * declarations (particles/pc.c: ParticleContainer_<S>_<alloc> and the generic
 * ParticleContainer; particles/pariter.c: ParIterBase_*, ParIter_*,
 * ParConstIterBase_*, ParConstIter_*).
 *
 * A container object holds one reference to its bf_pc (never NULL).  Views
 * handed out (tiles, SoA, AoS, iterators) hold a reference to the container
 * object, so deleting the container while they live is safe. */
#ifndef BOXFAB_BFPY_PC_H
#define BOXFAB_BFPY_PC_H

#include "bfpy.h"
#include "particles/arrays.h"

typedef struct {
  PyObject_HEAD int dim, spec, alloc;
  bool generic;                           /* amr.ParticleContainer (pure SoA, named components) */
  bf_pc *pc;                              /* never NULL after construction */
  bf_multifab *iter_mf[BF_PC_MAX_LEVELS]; /* unallocated MultiFabs the iterators walk (lazy) */
  PyObject *weakreflist;
} bfpy_pc_object;

/* Borrowed bf_pc of a particle container object of any dim, or NULL with
 * TypeError (for the particle-mesh methods of the deposition engineer). */
bf_pc *bfpy_pc_unwrap(PyObject *o);

/* The particle-mesh methods (deposit, interpolate, ...) added to every
 * container type; defined in bfpy_pc_mesh*.c, ending with a zeroed entry. */
extern PyMethodDef bfpy_pc_mesh_methods[];
/* The particle file methods (write_plotfile, checkpoint, restart,
 * restart_checkpoint), particles/pc_io.c, added the same way. */
extern PyMethodDef bfpy_pc_io_methods[];

/* The ParIter_S_A / ParConstIter_S_A type (is_const), for the container's
 * `iterator` / `const_iterator` class attributes. */
PyTypeObject *bfpy_pariter_type(int dim, int spec, int alloc, bool is_const);

/* A new reference to the unallocated MultiFab on level lev's BoxArray the
 * iterators of this container walk (made on first use). */
bf_multifab *bfpy_pc_iter_mf(bfpy_pc_object *o, int lev);

/* The ParticleContainer_S_A type; the generic ParticleContainer with spec -1. */
PyTypeObject *bfpy_pc_type(int dim, int spec, int alloc);

int bfpy_init_pc(PyObject *m, int dim);      /* ParticleContainer_*, ParticleContainer, ParticleHeader */
int bfpy_init_pheader(PyObject *m, int dim); /* ParticleHeader (particles/pc_io.c; called by bfpy_init_pc) */
int bfpy_init_pariter(PyObject *m, int dim); /* ParIterBase_*, ParIter_*, ParConstIterBase_*, ParConstIter_* */

#endif
