/* boxfab — see include/boxfab/bcrec.h (issue 24). */
#include "boxfab/bcrec.h"
