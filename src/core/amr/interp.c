/* boxfab — see include/boxfab/interp.h (issue 24). */
#include "boxfab/interp.h"
