/* Private: opening files that a reader will check before it reads them. */
#ifndef BOXFAB_FILEIO_H
#define BOXFAB_FILEIO_H

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

/* fopen(path, "rb") that never blocks in open(): a FIFO (or another special
 * file) named by a hostile header opens at once, so the caller's fstat check
 * refuses it instead of waiting forever for a writer.  NULL with errno set
 * on failure. */
static inline FILE *bf_fopen_rb(const char *path) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return NULL;
  int fl = fcntl(fd, F_GETFL);
  if (fl != -1) (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  FILE *f = fdopen(fd, "rb");
  if (!f) close(fd);
  return f;
}

#endif
