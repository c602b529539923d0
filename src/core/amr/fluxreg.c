/* boxfab — see include/boxfab/fluxreg.h (issue 24). */
#include "boxfab/fluxreg.h"
