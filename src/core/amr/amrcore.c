/* boxfab — see include/boxfab/amrcore.h (issue 24). */
#include "boxfab/amrcore.h"
