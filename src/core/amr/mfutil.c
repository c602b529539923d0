/* boxfab — see include/boxfab/mfutil.h (issue 24). */
#include "boxfab/mfutil.h"
