/* Private: opening files that a reader will check before it reads them. */
#ifndef BOXFAB_FILEIO_H
#define BOXFAB_FILEIO_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
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

/* The writers' durability: a file or directory is flushed to the disk
 * before it is renamed into place, so that after a power cut the final name
 * never holds a file the kernel had not yet written.  A file system that
 * cannot sync (EINVAL, ENOTSUP) counts as done; any other failure is
 * returned (-1 with errno set), since the data may not be on the disk. */
static inline int bf_sync_fd(int fd) {
  if (fsync(fd) == 0) return 0;
  if (errno == EINVAL || errno == ENOTSUP || errno == EOPNOTSUPP) return 0;
  return -1;
}

/* fflush + fsync of a stdio file that is about to be closed. */
static inline int bf_sync_file(FILE *f) {
  if (fflush(f) != 0) return -1;
  return bf_sync_fd(fileno(f));
}

/* fsync of a directory (its entries: files created or renamed in it). */
static inline int bf_sync_dir(const char *dir) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return -1;
  int rc = bf_sync_fd(fd), e = errno;
  close(fd);
  errno = e;
  return rc;
}

/* fsync of the directory that holds `path` (after a rename into it). */
static inline int bf_sync_parent(const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash) return bf_sync_dir(".");
  size_t n = slash == path ? 1 : (size_t)(slash - path);
  char *dir = malloc(n + 1);
  if (!dir) return -1; /* errno: ENOMEM */
  memcpy(dir, path, n);
  dir[n] = '\0';
  int rc = bf_sync_dir(dir), e = errno;
  free(dir);
  errno = e;
  return rc;
}

/* A new temporary sibling of `final`, "<dir>/.<base>.tmp.<unique>": a
 * directory (mode 0755, as AMReX makes them) or an empty regular file (mode
 * 0666, as a C++ ofstream makes it), both less the
 * process's umask as for any file the user creates (mkstemp / mkdtemp make
 * 0600 / 0700, and forcing 0644 / 0755 afterwards ignored a umask of 077).
 * Returns the malloc'd name, or NULL with errno set. */
static inline char *bf_make_sibling(const char *final, bool dir) {
  static unsigned counter;
  const char *slash = strrchr(final, '/');
  size_t plen = slash ? (size_t)(slash - final) + 1 : 0, n = strlen(final) + 48;
  char *tmp = malloc(n);
  if (!tmp) return NULL;
  for (int attempt = 0; attempt < 1000; ++attempt) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    unsigned c = __atomic_fetch_add(&counter, 1u, __ATOMIC_RELAXED);
    unsigned long u = ((unsigned long)getpid() * 2654435761ul) ^ ((unsigned long)tv.tv_usec << 12) ^
                      ((unsigned long)c * 40503ul) ^ (unsigned long)tv.tv_sec;
    snprintf(tmp, n, "%.*s.%s.tmp.%08lx", (int)plen, final, final + plen, u & 0xfffffffful);
    if (dir) {
      if (mkdir(tmp, 0755) == 0) return tmp;
    } else {
      int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd >= 0) {
        close(fd);
        return tmp;
      }
    }
    if (errno != EEXIST) break;
  }
  int e = errno;
  free(tmp);
  errno = e;
  return NULL;
}

#endif
