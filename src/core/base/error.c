/* Thread-local error state (see include/boxfab/base.h). */
#include <stdio.h>
#include <string.h>

#include "boxfab/base.h"
#include "boxfab_config.h"

static _Thread_local char bf_errmsg[1024];
static _Thread_local int bf_errcode;

const char *bf_version(void) { return BOXFAB_VERSION; }

const char *bf_error_message(void) { return bf_errmsg; }

int bf_error_code(void) { return bf_errcode; }

void bf_error_clear(void) {
  bf_errmsg[0] = '\0';
  bf_errcode = BF_SUCCESS;
}

int bf_error_set(int code, const char *func, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  (void)func; /* kept for C callers' debugging: prefix only in debug builds */
#ifdef BOXFAB_ERROR_WITH_FUNC
  int n = snprintf(bf_errmsg, sizeof bf_errmsg, "%s: ", func);
  if (n < 0 || (size_t)n >= sizeof bf_errmsg) n = 0;
  vsnprintf(bf_errmsg + n, sizeof bf_errmsg - (size_t)n, fmt, ap);
#else
  vsnprintf(bf_errmsg, sizeof bf_errmsg, fmt, ap);
#endif
  va_end(ap);
  bf_errcode = code;
  return code;
}
