/* boxfab — see include/boxfab/tagbox.h (issue 24). */
#include "boxfab/tagbox.h"
