/* boxfab — the public C API.  Include this header (or the individual ones).
 * Naming: bf_<object>_<verb>; every fallible function returns a status
 * (base.h). */
#ifndef BOXFAB_BOXFAB_H
#define BOXFAB_BOXFAB_H

#include "boxfab/amrcore.h"
#include "boxfab/amrmesh.h"
#include "boxfab/arena.h"
#include "boxfab/base.h"
#include "boxfab/array4.h"
#include "boxfab/bcrec.h"
#include "boxfab/box.h"
#include "boxfab/boxarray.h"
#include "boxfab/distmap.h"
#include "boxfab/dtype.h"
#include "boxfab/fab.h"
#include "boxfab/fillpatch.h"
#include "boxfab/fluxreg.h"
#include "boxfab/geometry.h"
#include "boxfab/gpu.h"
#include "boxfab/interp.h"
#include "boxfab/intvect.h"
#include "boxfab/mfiter.h"
#include "boxfab/mfutil.h"
#include "boxfab/multifab.h"
#include "boxfab/parmparse.h"
#include "boxfab/plotfile.h"
#include "boxfab/runtime.h"
#include "boxfab/tagbox.h"
#include "boxfab/idcpu.h"
#include "boxfab/vector.h"

#endif
