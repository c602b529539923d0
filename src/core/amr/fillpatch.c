/* boxfab — see include/boxfab/fillpatch.h (issue 24). */
#include "boxfab/fillpatch.h"
