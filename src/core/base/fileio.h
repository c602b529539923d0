/* Private: opening files that a reader will check before it reads them. */
#ifndef BOXFAB_FILEIO_H
#define BOXFAB_FILEIO_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "boxfab/base.h"

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

/* A new temporary sibling of `final`, "<dir>/.bftmp.<16 hex digits>": a
 * directory (mode 0755, as AMReX makes them) or an empty regular file (mode
 * 0666, as a C++ ofstream makes it), both less the
 * process's umask as for any file the user creates (mkstemp / mkdtemp make
 * 0600 / 0700, and forcing 0644 / 0755 afterwards ignored a umask of 077).
 * The name has a fixed length (23 bytes) whatever the length of `final`: it
 * once held the base name (".<base>.tmp.<unique>", 14 bytes longer than it), so
 * a legal final name of 242-255 bytes could not be written ("File name too
 * long").  mkdir / O_EXCL make it fresh: a name that exists is never reused.
 * Returns the malloc'd name, or NULL with errno set. */
static inline char *bf_make_sibling(const char *final, bool dir) {
  static unsigned counter;
  const char *slash = strrchr(final, '/');
  size_t plen = slash ? (size_t)(slash - final) + 1 : 0, n = plen + 40;
  char *tmp = malloc(n);
  if (!tmp) return NULL;
  for (int attempt = 0; attempt < 1000; ++attempt) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    unsigned c = __atomic_fetch_add(&counter, 1u, __ATOMIC_RELAXED);
    uint64_t u = ((uint64_t)getpid() * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)tv.tv_usec << 20) ^
                 ((uint64_t)c * 0xBF58476D1CE4E5B9ull) ^ (uint64_t)tv.tv_sec ^ ((uint64_t)attempt << 40);
    u ^= u >> 31;
    snprintf(tmp, n, "%.*s.bftmp.%016llx", (int)plen, final, (unsigned long long)u);
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

/* A writer's failure names what it was writing: the temporary names the files had while being written
 * (".bftmp.<unique>...") do not say, so " (writing '<final>')" is added to the message unless it names
 * `final` already.  Returns err. */
static inline int bf_error_writing(int err, const char *final) {
  if (!err || strstr(bf_error_message(), final)) return err;
  char msg[1024];
  snprintf(msg, sizeof msg, "%s", bf_error_message());
  return bf_error_set(err, "write", "%s (writing '%s')", msg, final);
}

/* Atomically exchange the names a and b (both exist; Linux's renameat2 RENAME_EXCHANGE): a writer
 * swaps its finished temporary with the previous output, so that the final name never stops naming
 * one of them (a reader opening it in between got ENOENT).  -1 with errno set where the system or the
 * file system cannot (ENOSYS, EINVAL): the caller then renames in two steps. */
#if defined(__linux__)
#include <sys/syscall.h>
long syscall(long number, ...); /* <unistd.h> declares it only with _DEFAULT_SOURCE */
/* glibc's wrapper (2.28 and later; weak: NULL with an older C library) */
extern int renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags)
    __attribute__((weak));
#endif
static inline int bf_rename_exchange(const char *a, const char *b) {
#if defined(__linux__) && defined(SYS_renameat2)
  if (renameat2) return renameat2(AT_FDCWD, a, AT_FDCWD, b, 2u /* RENAME_EXCHANGE */);
  return (int)syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, 2 /* RENAME_EXCHANGE */);
#else
  (void)a, (void)b;
  errno = ENOSYS;
  return -1;
#endif
}

/* rename(a, b) that fails with EEXIST when b exists (renameat2 RENAME_NOREPLACE) instead of replacing an
 * empty directory or a file of that name that appeared since the caller chose b; where the system or the
 * file system has no such flag, a plain rename (the caller looked for a free name just before). */
static inline int bf_rename_noreplace(const char *a, const char *b) {
#if defined(__linux__) && defined(SYS_renameat2)
  int rc = renameat2 ? renameat2(AT_FDCWD, a, AT_FDCWD, b, 1u /* RENAME_NOREPLACE */)
                     : (int)syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, 1 /* RENAME_NOREPLACE */);
  if (rc == 0 || (errno != ENOSYS && errno != EINVAL && errno != ENOTSUP && errno != EOPNOTSUPP)) return rc;
#endif
  return rename(a, b);
}

/* Whether bf_rename_exchange failed because the system or the file system has no exchange (then rename in
 * two steps), not because the rename itself failed (then that is the writer's error). */
static inline bool bf_exchange_unsupported(int e) {
  return e == ENOSYS || e == EINVAL || e == ENOTSUP || e == EOPNOTSUPP;
}

/* The folders a writer made above its output (bf_make_parents), to remove again when the write fails. */
typedef struct {
  char **dirs;
  int n;
} bf_made_dirs;

/* Remove the folders in *made that are still empty, deepest first (rmdir: never one that holds
 * anything), and forget them. */
static inline void bf_unmake_dirs(bf_made_dirs *made) {
  for (int i = made->n - 1; i >= 0; --i) {
    (void)rmdir(made->dirs[i]);
    free(made->dirs[i]);
  }
  free(made->dirs);
  made->dirs = NULL, made->n = 0;
}

/* Forget the folders in *made (the write succeeded: they stay). */
static inline void bf_made_dirs_clear(bf_made_dirs *made) {
  for (int i = 0; i < made->n; ++i) free(made->dirs[i]);
  free(made->dirs);
  made->dirs = NULL, made->n = 0;
}

/* mkdir -p of the folder that holds `path` (AMReX's UtilCreateDirectory: each missing folder made
 * with mode 0755 less the umask; a symbolic link to a folder counts as a folder).  The folders made
 * are added to *made.  Returns 0, or -1 with errno set (ENOTDIR: a part of the path is not a folder)
 * and *where (malloc'd, may be NULL when out of memory) naming the folder that could not be made. */
static inline int bf_make_parents(const char *path, bf_made_dirs *made, char **where) {
  *where = NULL;
  size_t n = strlen(path);
  while (n > 1 && path[n - 1] == '/') --n; /* "a/b/" names b */
  while (n > 0 && path[n - 1] != '/') --n; /* the parent: "a/", or none */
  while (n > 1 && path[n - 1] == '/') --n;
  if (n == 0 || (n == 1 && path[0] == '/')) return 0; /* the current folder or the root */
  char *dir = malloc(n + 1);
  if (!dir) return -1;
  memcpy(dir, path, n);
  dir[n] = '\0';
  struct stat st;
  if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) { /* the usual case: it is there */
    free(dir);
    return 0;
  }
  for (size_t i = 1; i <= n; ++i) {
    if (i < n && (dir[i] != '/' || dir[i - 1] == '/')) continue;
    char c = dir[i];
    dir[i] = '\0';
    int e = 0;
    if (stat(dir, &st) == 0) {
      if (!S_ISDIR(st.st_mode)) e = ENOTDIR;
    } else if (errno != ENOENT) {
      e = errno;
    } else if (mkdir(dir, 0755) == 0) {
      char **grown = realloc(made->dirs, (size_t)(made->n + 1) * sizeof *grown);
      char *copy = grown ? strdup(dir) : NULL;
      if (grown) made->dirs = grown;
      if (!copy) {
        (void)rmdir(dir);
        e = ENOMEM;
      } else {
        made->dirs[made->n++] = copy;
      }
    } else if (errno != EEXIST || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
      e = errno == EEXIST ? ENOTDIR : errno; /* EEXIST and no folder: a file or a dangling link */
    } /* else another process made it meanwhile */
    if (e) {
      *where = strdup(dir);
      free(dir);
      errno = e;
      return -1;
    }
    dir[i] = c;
  }
  free(dir);
  return 0;
}

/* Whether the first or the last character of the UTF-8 string s is one that readers of AMReX's text
 * headers strip from a name: ASCII blanks (AMReX trims " \t", C++'s >> skips isspace), and every
 * character Python's str.strip() removes (yt reads the names with readline().strip()): \x1c-\x1f,
 * U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000.  Such a name would
 * not read back as written. */
static inline bool bf_cp_is_space(uint32_t c) {
  return c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f) || c == 0x85 || c == 0xa0 ||
         c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f ||
         c == 0x205f || c == 0x3000;
}
static inline uint32_t bf_utf8_cp(const unsigned char *p, size_t n) {
  if (n == 2 && (p[0] & 0xe0) == 0xc0) return ((uint32_t)(p[0] & 0x1f) << 6) | (p[1] & 0x3f);
  if (n == 3 && (p[0] & 0xf0) == 0xe0) return ((uint32_t)(p[0] & 0x0f) << 12) | ((uint32_t)(p[1] & 0x3f) << 6) | (p[2] & 0x3f);
  return n == 1 ? p[0] : 0xffffffffu; /* 4-byte characters hold no blank */
}
/* Whether any character of the UTF-8 string s is such a blank (names read as one token: Python's split()
 * splits at every one). */
static inline bool bf_name_has_any_space(const char *s) {
  const unsigned char *u = (const unsigned char *)s;
  for (size_t i = 0, n = strlen(s); i < n;) {
    size_t k = 1;
    while (i + k < n && k < 4 && (u[i + k] & 0xc0) == 0x80) ++k;
    if (bf_cp_is_space(bf_utf8_cp(u + i, k))) return true;
    i += k;
  }
  return false;
}
static inline bool bf_name_has_edge_space(const char *s) {
  const unsigned char *u = (const unsigned char *)s;
  size_t n = strlen(s);
  if (!n) return false;
  size_t k = 1; /* the first character */
  while (k < n && k < 4 && (u[k] & 0xc0) == 0x80) ++k;
  if (bf_cp_is_space(bf_utf8_cp(u, k))) return true;
  size_t b = n - 1; /* the last character */
  while (b > 0 && n - b < 4 && (u[b] & 0xc0) == 0x80) --b;
  return bf_cp_is_space(bf_utf8_cp(u + b, n - b));
}

#endif
