/* boxfab — boundary conditions: AMReX's BCType and PhysBCType values (AMReX_BC_TYPES.H),
 * BCRec (one type per face of a component), setBC, the physical-boundary fillers
 * (AMReX's PhysBCFunct) and FillDomainBoundary (amr/bcrec.c). */
#ifndef BOXFAB_BCREC_H
#define BOXFAB_BCREC_H

#include "boxfab/base.h"
#include "boxfab/box.h"
#include "boxfab/geometry.h"
#include "boxfab/intvect.h"
#include "boxfab/multifab.h"

#ifdef __cplusplus
extern "C" {
#endif

/** AMReX's BCType (math boundary types), same values. */
enum bf_bctype {
  BF_BC_BOGUS = -666,
  BF_BC_REFLECT_ODD = -1,
  BF_BC_INT_DIR = 0,
  BF_BC_REFLECT_EVEN = 1,
  BF_BC_FOEXTRAP = 2,
  BF_BC_EXT_DIR = 3,
  BF_BC_HOEXTRAP = 4,
  BF_BC_HOEXTRAPCC = 5,
  BF_BC_EXT_DIR_CC = 6,
  BF_BC_DIRECTION_DEPENDENT = 7
};

/** AMReX's PhysBCType (physical boundary types), same values. */
enum bf_physbctype {
  BF_PHYSBC_INTERIOR = 0,
  BF_PHYSBC_INFLOW = 1,
  BF_PHYSBC_OUTFLOW = 2,
  BF_PHYSBC_SYMMETRY = 3,
  BF_PHYSBC_SLIPWALL = 4,
  BF_PHYSBC_NOSLIPWALL = 5,
  BF_PHYSBC_INFLOWOUTFLOW = 6
};

/** AMReX's BCRec: the type of the low and high face in each direction (entries d >= dim are
 *  BF_BC_BOGUS). */
typedef struct bf_bcrec {
  int lo[BF_SPACEDIM_MAX];
  int hi[BF_SPACEDIM_MAX];
} bf_bcrec;

/** A physical-boundary filler, AMReX's PhysBCFunct interface: fill(ctx, mf, dcomp, ncomp,
 *  nghost, time, bccomp) fills the ghost cells of mf's components dcomp..dcomp+ncomp-1 (up to
 *  nghost) that lie outside the domain, with boundary conditions from bccomp on.  Returns 0 or
 *  a bf error code with the error set.  A filler that calls back into a language with its own
 *  exceptions (Python) leaves that exception pending as well; the caller's binding re-raises it. */
typedef int (*bf_physbc_fn)(void *ctx, bf_multifab *mf, int dcomp, int ncomp, const bf_intvect *nghost, double time,
                            int bccomp);
typedef struct bf_physbc {
  bf_physbc_fn fill; /**< NULL: nothing to fill (AMReX's PhysBCFunctNoOp) */
  void *ctx;
} bf_physbc;

/** Call a filler (NULL fill: nothing). */
static inline int bf_physbc_call(const bf_physbc *bc, bf_multifab *mf, int dcomp, int ncomp, const bf_intvect *nghost,
                                 double time, int bccomp) {
  return bc && bc->fill ? bc->fill(bc->ctx, mf, dcomp, ncomp, nghost, time, bccomp) : 0;
}

#ifdef __cplusplus
}
#endif
#endif
