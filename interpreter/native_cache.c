/* native_cache.c -- where --native keeps the shared objects it builds, and
 * why it may trust what it loads from there.
 *
 * Loading a shared object runs its code (its constructors first) inside
 * Mentat, with the user's rights.  So nothing is loaded that someone else
 * could have written, and nothing that is not exactly the object this rule
 * set needs:
 *   - the directory is the user's own.  Each missing component of its path is
 *     created 0700 and checked; the directory itself is lstat'ed (a symbolic
 *     link is refused), opened without following links and checked: a
 *     directory owned by the effective user, writable by nobody else.  Every
 *     later step works relative to that open descriptor, so renaming a
 *     component of the path after the check changes nothing;
 *   - an entry is the compiler's object followed by a trailer: the full
 *     128-bit key (a hash of the generated C), the object's length and a
 *     checksum of its bytes.  It is opened without following links (and
 *     without blocking on a FIFO), checked (a regular file of the user's,
 *     writable by nobody else), read whole and verified, and only then loaded,
 *     through /proc/self/fd: the very file that was verified, whose exported
 *     key must then agree.  An entry that fails is rebuilt, never loaded;
 *   - a build happens in a private temporary directory inside the cache: the
 *     compiler ($CC split at blanks, no shell) runs there on relative names,
 *     its output captured and shown if it fails; the object gets its trailer,
 *     is verified as a loaded entry would be and is renamed into place (the
 *     C source beside it, for reading).  The temporary directory is removed
 *     on every path, and one left by a killed build is swept an hour later.
 * A directory that fails the ownership checks is refused, not an error: the
 * caller warns and runs the bytecode.  Anyone can create /tmp/mentat-cache-0
 * before root does, and that must cost root its speed-up, not its run. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "native_int.h"

/* The biggest object taken as an entry (the Dune pack's is under 1 MB). */
#define ENTRY_MAX ((off_t)256 << 20)
/* A build directory this old was left by a killed build. */
#define STALE_SECONDS 3600
static const char trailer_magic[16] = "MENTAT-NATIVE\0\0\1"; /* the last byte: the trailer's format */
/* The names inside a build directory. */
#define SRC_NAME "mentat-native.c"
#define OBJ_NAME "mentat-native.so"
#define LOG_NAME "compiler.log"

void vm_native_key_of(const char *src, size_t n, vm_native_key *k) {
  uint64_t fnv = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) fnv = (fnv ^ (uint8_t)src[i]) * 1099511628211ull;
  k->w[0] = mt_hash_bytes(src, n, 0x6e61746976652d31ull);
  k->w[1] = fnv; /* a second, unrelated hash: 128 bits in all */
  snprintf(k->hex, sizeof k->hex, "%016llx%016llx", (unsigned long long)k->w[0], (unsigned long long)k->w[1]);
}

void vm_native_cache_path(const vm_native_env *e, strbuf *out) {
  if (e->mentat_cache && *e->mentat_cache) sb_puts(out, e->mentat_cache);
  else if (e->xdg_cache_home && e->xdg_cache_home[0] == '/') sb_printf(out, "%s/mentat", e->xdg_cache_home);
  else if (e->home && e->home[0] == '/') sb_printf(out, "%s/.cache/mentat", e->home);
  else if (e->pw_home && e->pw_home[0] == '/') sb_printf(out, "%s/.cache/mentat", e->pw_home);
  else sb_printf(out, "%s/mentat-cache-%lu", e->tmpdir && e->tmpdir[0] == '/' ? e->tmpdir : "/tmp", e->uid);
}

/* "user 'name' (uid N)", or "uid N" for a uid the password database lacks. */
static void owner_name(uid_t uid, strbuf *out) {
  char buf[4096];
  struct passwd pw, *res = NULL;
  if (getpwuid_r(uid, &pw, buf, sizeof buf, &res) == 0 && res && res->pw_name)
    sb_printf(out, "user '%s' (uid %lu)", res->pw_name, (unsigned long)uid);
  else sb_printf(out, "uid %lu", (unsigned long)uid);
}

/* Is ST (the status of directory PATH) the user's own and private?  False
 * with the reason in WHY. */
static bool dir_private(const struct stat *st, const char *path, strbuf *why) {
  if (!S_ISDIR(st->st_mode)) {
    sb_printf(why, "the native cache '%s' is not a directory", path);
    return false;
  }
  if (st->st_uid != geteuid()) {
    strbuf o = {0}, me = {0};
    owner_name(st->st_uid, &o);
    owner_name(geteuid(), &me);
    sb_printf(why, "the native cache directory '%s' belongs to %s, not to you (%s)", path, o.s, me.s);
    sb_free(&o);
    sb_free(&me);
    return false;
  }
  if (st->st_mode & (S_IWGRP | S_IWOTH)) {
    sb_printf(why, "the native cache directory '%s' is writable by %s (mode %04o); it must be private (chmod 700)",
              path, (st->st_mode & S_IWGRP) && (st->st_mode & S_IWOTH) ? "its group and others"
                    : st->st_mode & S_IWGRP                             ? "its group"
                                                                        : "others",
              (unsigned)(st->st_mode & 07777));
    return false;
  }
  return true;
}

/* Creates the missing directory PATH (0700) or finds it created by a racing
 * process, and checks it is private.  False with the reason in WHY and the
 * kind of failure in *ST. */
static bool make_component(const char *path, strbuf *why, vm_native_status *st) {
  bool made = mkdir(path, 0700) == 0;
  if (!made && errno != EEXIST) {
    sb_printf(why, "cannot create the native cache directory '%s': %s", path, strerror(errno));
    *st = VM_NATIVE_FAILED;
    return false;
  }
  int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  struct stat sb;
  if (fd < 0 || fstat(fd, &sb) != 0) {
    sb_printf(why, "the native cache directory '%s' cannot be opened as a directory: %s", path, strerror(errno));
    if (fd >= 0) close(fd);
    *st = VM_NATIVE_REFUSED;
    return false;
  }
  bool ok = dir_private(&sb, path, why);
  if (!ok) *st = VM_NATIVE_REFUSED;
  else if (made && (sb.st_mode & 07777) != 0700 && fchmod(fd, 0700) != 0) { /* a umask took the owner's bits */
    sb_printf(why, "cannot make the native cache directory '%s' private (0700): %s", path, strerror(errno));
    *st = VM_NATIVE_FAILED;
    ok = false;
  }
  close(fd);
  return ok;
}

int vm_native_cache_open(const char *path, strbuf *why, vm_native_status *st) {
  size_t n = strlen(path);
  if (n == 0) {
    sb_puts(why, "the native cache directory is named by an empty path");
    *st = VM_NATIVE_FAILED;
    return -1;
  }
  char *p = mt_strdup(path);
  while (n > 1 && p[n - 1] == '/') p[--n] = 0;
  /* each prefix ending before a '/' (and the whole path): a missing one is created */
  for (size_t i = 1; i <= n; i++) {
    if (i < n && (p[i] != '/' || p[i - 1] == '/')) continue;
    char keep = p[i];
    p[i] = 0;
    struct stat sb;
    bool ok = true;
    if (lstat(p, &sb) != 0) {
      if (errno == ENOENT) ok = make_component(p, why, st);
      else {
        sb_printf(why, "cannot use the native cache directory '%s': %s", p, strerror(errno));
        *st = VM_NATIVE_FAILED;
        ok = false;
      }
    }
    p[i] = keep;
    if (!ok) {
      mt_free(p);
      return -1;
    }
  }
  /* the directory itself: no symbolic link, and the one opened is the one lstat'ed */
  struct stat ls, fs;
  int fd = -1;
  if (lstat(p, &ls) != 0) sb_printf(why, "cannot use the native cache directory '%s': %s", p, strerror(errno));
  else if (S_ISLNK(ls.st_mode))
    sb_printf(why, "the native cache directory '%s' is a symbolic link; it must be a directory of your own", p);
  else if (!dir_private(&ls, p, why)) {
  } else if ((fd = open(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)) < 0)
    sb_printf(why, "cannot open the native cache directory '%s': %s", p, strerror(errno));
  else if (fstat(fd, &fs) != 0 || fs.st_dev != ls.st_dev || fs.st_ino != ls.st_ino) {
    sb_printf(why, "the native cache directory '%s' was replaced while it was being checked", p);
    close(fd);
    fd = -1;
  }
  /* a directory that is missing or cannot be opened is an error; one that is not safe, a refusal */
  if (fd < 0) *st = lstat(p, &ls) != 0 || (S_ISDIR(ls.st_mode) && ls.st_uid == geteuid() && !(ls.st_mode & 022))
                        ? VM_NATIVE_FAILED
                        : VM_NATIVE_REFUSED;
  mt_free(p);
  return fd;
}

static void put64(unsigned char *b, uint64_t x) {
  for (int i = 0; i < 8; i++) b[i] = (unsigned char)(x >> (8 * i));
}

static uint64_t get64(const unsigned char *b) {
  uint64_t x = 0;
  for (int i = 0; i < 8; i++) x |= (uint64_t)b[i] << (8 * i);
  return x;
}

/* The trailer of an object of LEN bytes BODY for KEY, into T. */
static void make_trailer(unsigned char t[VM_NATIVE_TRAILER], const vm_native_key *key, const void *body, size_t len) {
  memset(t, 0, VM_NATIVE_TRAILER);
  memcpy(t, trailer_magic, 16);
  put64(t + 16, key->w[0]);
  put64(t + 24, key->w[1]);
  put64(t + 32, (uint64_t)len);
  put64(t + 40, mt_hash_bytes(body, len, 0x626f64792d73756dull));
  put64(t + 56, mt_hash_bytes(t, 56, 0x747261696c65722dull));
}

/* Reads the N bytes of FD from offset 0 into BUF; false with errno set
 * (EIO for a file shorter than its status said). */
static bool read_whole(int fd, unsigned char *buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = pread(fd, buf + got, n - got, (off_t)got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      if (r == 0) errno = EIO;
      return false;
    }
    got += (size_t)r;
  }
  return true;
}

/* Checks the bytes of an entry (ST its status) against KEY; false with the
 * reason in WHY. */
static bool entry_valid(int fd, const struct stat *st, const char *name, const vm_native_key *key, strbuf *why) {
  if (st->st_size == 0) {
    sb_printf(why, "the cached object '%s' is empty", name);
    return false;
  }
  if (st->st_size < VM_NATIVE_TRAILER + 1 || st->st_size > ENTRY_MAX) {
    sb_printf(why, "the cached object '%s' has an impossible size (%lld bytes)", name, (long long)st->st_size);
    return false;
  }
  size_t n = (size_t)st->st_size, len = n - VM_NATIVE_TRAILER;
  unsigned char *b = mt_alloc(n), want[VM_NATIVE_TRAILER];
  bool ok = false;
  if (!read_whole(fd, b, n)) sb_printf(why, "cannot read the cached object '%s': %s", name, strerror(errno));
  else if (memcmp(b + len, trailer_magic, 16) != 0 ||
           get64(b + len + 56) != mt_hash_bytes(b + len, 56, 0x747261696c65722dull))
    sb_printf(why, "the cached object '%s' has no valid trailer (truncated, or not written by this Mentat)", name);
  else if (get64(b + len + 16) != key->w[0] || get64(b + len + 24) != key->w[1])
    sb_printf(why, "the cached object '%s' was built for another rule set (key %016llx%016llx)", name,
              (unsigned long long)get64(b + len + 16), (unsigned long long)get64(b + len + 24));
  else if (get64(b + len + 32) != (uint64_t)len)
    sb_printf(why, "the cached object '%s' is %zu bytes where its trailer says %llu", name, len,
              (unsigned long long)get64(b + len + 32));
  else {
    make_trailer(want, key, b, len);
    ok = memcmp(want, b + len, VM_NATIVE_TRAILER) == 0;
    if (!ok) sb_printf(why, "the cached object '%s' is corrupt (its bytes do not match their checksum)", name);
  }
  mt_free(b);
  return ok;
}

int vm_native_entry_open(int dirfd, const char *name, const vm_native_key *key, strbuf *why) {
  int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    struct stat ls;
    if (e != ENOENT && fstatat(dirfd, name, &ls, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(ls.st_mode))
      sb_printf(why, "the cached object '%s' is a symbolic link", name);
    else sb_printf(why, "cannot open the cached object '%s': %s", name, strerror(e));
    errno = e;
    return -1;
  }
  struct stat st;
  bool ok = false;
  if (fstat(fd, &st) != 0) sb_printf(why, "cannot read the cached object '%s': %s", name, strerror(errno));
  else if (!S_ISREG(st.st_mode)) sb_printf(why, "the cached object '%s' is not a regular file", name);
  else if (st.st_uid != geteuid()) {
    strbuf o = {0};
    owner_name(st.st_uid, &o);
    sb_printf(why, "the cached object '%s' belongs to %s, not to you", name, o.s);
    sb_free(&o);
  } else if (st.st_mode & (S_IWGRP | S_IWOTH))
    sb_printf(why, "the cached object '%s' is writable by others (mode %04o)", name, (unsigned)(st.st_mode & 07777));
  else ok = entry_valid(fd, &st, name, key, why);
  if (!ok) {
    close(fd);
    errno = EINVAL;
    return -1;
  }
  return fd;
}

/* Writes N bytes of BUF to FD; false with errno set. */
static bool write_all(int fd, const void *buf, size_t n) {
  const char *s = buf;
  while (n > 0) {
    ssize_t w = write(fd, s, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      if (w == 0) errno = EIO;
      return false;
    }
    s += w;
    n -= (size_t)w;
  }
  return true;
}

/* Removes everything in the build directory NAME of DIRFD (open as TFD,
 * which this closes) and the directory itself. */
static void remove_build_dir(int dirfd, const char *name, int tfd) {
  int dup_fd = dup(tfd);
  DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
  if (d) {
    for (struct dirent *e; (e = readdir(d)) != NULL;)
      if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) unlinkat(tfd, e->d_name, 0);
    closedir(d);
  } else if (dup_fd >= 0) close(dup_fd);
  close(tfd);
  unlinkat(dirfd, name, AT_REMOVEDIR);
}

/* Removes the build directories of DIRFD older than STALE_SECONDS: those of
 * builds that were killed (a build takes seconds). */
static void sweep_stale(int dirfd) {
  int dup_fd = dup(dirfd);
  DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
  if (!d) {
    if (dup_fd >= 0) close(dup_fd);
    return;
  }
  time_t now = time(NULL);
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    struct stat st;
    if (strncmp(e->d_name, "build-", 6) != 0 || fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || now - st.st_mtime < STALE_SECONDS) continue;
    int tfd = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (tfd >= 0) remove_build_dir(dirfd, e->d_name, tfd);
  }
  closedir(d);
}

/* Creates a private build directory in DIRFD, its name into NAME; its
 * descriptor, or -1 with the cause in WHY. */
static int make_build_dir(int dirfd, const char *dirpath, char *name, size_t cap, strbuf *why) {
  static unsigned counter;
  for (int tries = 0; tries < 100; tries++) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    snprintf(name, cap, "build-%ld-%u-%09ld", (long)getpid(), counter++, (long)ts.tv_nsec);
    if (mkdirat(dirfd, name, 0700) != 0) {
      if (errno == EEXIST) continue;
      sb_printf(why, "cannot create a build directory in the native cache '%s': %s", dirpath, strerror(errno));
      return -1;
    }
    int tfd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (tfd < 0) {
      sb_printf(why, "cannot open the build directory '%s/%s': %s", dirpath, name, strerror(errno));
      unlinkat(dirfd, name, AT_REMOVEDIR);
      return -1;
    }
    return tfd;
  }
  sb_printf(why, "cannot create a build directory in the native cache '%s': every name tried exists", dirpath);
  return -1;
}

/* Writes the C source into the build directory TFD. */
static bool write_source(int tfd, const char *where, const char *src, size_t n, strbuf *why) {
  int fd = openat(tfd, SRC_NAME, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0 || !write_all(fd, src, n)) {
    sb_printf(why, "cannot write the generated C in '%s': %s", where, strerror(errno));
    if (fd >= 0) close(fd);
    return false;
  }
  if (close(fd) != 0) {
    sb_printf(why, "cannot write the generated C in '%s': %s", where, strerror(errno));
    return false;
  }
  return true;
}

/* The last lines of the compiler's output (at most about 2,000 bytes), indented, into WHY. */
static void show_log(int tfd, strbuf *why) {
  int fd = openat(tfd, LOG_NAME, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  struct stat st;
  char buf[2048];
  size_t n = 0;
  if (fstat(fd, &st) == 0 && st.st_size > 0) {
    off_t from = st.st_size > (off_t)sizeof buf - 1 ? st.st_size - (off_t)sizeof buf + 1 : 0;
    ssize_t r = pread(fd, buf, sizeof buf - 1, from);
    n = r > 0 ? (size_t)r : 0;
  }
  close(fd);
  buf[n] = 0;
  char *s = buf;
  if (n == sizeof buf - 1 && strchr(s, '\n')) s = strchr(s, '\n') + 1; /* a whole first line */
  while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r')) buf[--n] = 0;
  if (!*s) return;
  sb_puts(why, "; its output:");
  for (char *line = s; line;) {
    char *nl = strchr(line, '\n');
    if (nl) *nl = 0;
    sb_printf(why, "\n    %s", line);
    line = nl ? nl + 1 : NULL;
  }
}

/* The compiler's command: $CC (default cc) split at blanks -- no shell reads
 * it, so no quote or $(...) in it or in a path means anything -- then the
 * flags and the relative names of the build directory.  A relative program
 * path is made absolute, as the compiler runs in the build directory.  The
 * words live in *STORE (one buffer, freed by the caller). */
static char **compiler_argv(char **store) {
  static const char *const tail[] = {"-O1", "-fPIC", "-shared", "-w", "-o", OBJ_NAME, SRC_NAME};
  const char *cc = getenv("CC");
  cc = cc ? cc + strspn(cc, " \t\n") : "";
  if (!*cc) cc = "cc";
  size_t first = strcspn(cc, " \t\n"); /* the program */
  strbuf b = {0};
  char cwd[4096];
  if (cc[0] != '/' && memchr(cc, '/', first) && getcwd(cwd, sizeof cwd)) sb_printf(&b, "%s/", cwd);
  sb_puts(&b, cc);
  *store = sb_take(&b);
  size_t cap = 8 + sizeof tail / sizeof *tail, n = 0;
  char **argv = mt_alloc(cap * sizeof *argv);
  char *save = NULL;
  for (char *w = strtok_r(*store, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
    if (n + sizeof tail / sizeof *tail + 1 >= cap) argv = mt_realloc(argv, (cap *= 2) * sizeof *argv);
    argv[n++] = w;
  }
  for (size_t i = 0; i < sizeof tail / sizeof *tail; i++) argv[n++] = (char *)(uintptr_t)tail[i];
  argv[n] = NULL;
  return argv;
}

/* Runs the compiler in the build directory TFD, without a shell, its output
 * to the log there.  False with the cause in WHY: the program could not be
 * run, or it exited non-zero or was killed (with what it said). */
static bool run_compiler(int tfd, strbuf *why) {
  char *store = NULL;
  char **argv = compiler_argv(&store);
  int log = openat(tfd, LOG_NAME, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  int null = open("/dev/null", O_RDONLY | O_CLOEXEC), pfd[2] = {-1, -1};
  bool ok = false;
  pid_t pid = -1;
  if (log < 0 || null < 0 || pipe(pfd) != 0) {
    sb_printf(why, "cannot prepare to run the system compiler: %s", strerror(errno));
    goto out;
  }
  fcntl(pfd[0], F_SETFD, FD_CLOEXEC);
  fcntl(pfd[1], F_SETFD, FD_CLOEXEC); /* closed by a successful exec: the parent reads nothing */
  pid = fork();
  if (pid < 0) {
    sb_printf(why, "cannot start the system compiler: %s", strerror(errno));
    goto out;
  }
  if (pid == 0) { /* the child: only async-signal-safe calls until exec */
    int e = 0;
    if (fchdir(tfd) != 0 || dup2(null, 0) < 0 || dup2(log, 1) < 0 || dup2(log, 2) < 0) e = errno;
    if (!e) {
      execvp(argv[0], argv);
      e = errno;
    }
    ssize_t w = write(pfd[1], &e, sizeof e);
    (void)w;
    _exit(127);
  }
  close(pfd[1]);
  pfd[1] = -1;
  int e = 0;
  ssize_t r;
  while ((r = read(pfd[0], &e, sizeof e)) < 0 && errno == EINTR) {
  }
  int status = 0;
  pid_t w;
  while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  if (r == (ssize_t)sizeof e) sb_printf(why, "cannot run the system compiler '%s': %s", argv[0], strerror(e));
  else if (w < 0) sb_printf(why, "cannot wait for the system compiler '%s': %s", argv[0], strerror(errno));
  else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) ok = true;
  else {
    if (WIFEXITED(status)) sb_printf(why, "the system compiler failed: '%s' exited with status %d", argv[0], WEXITSTATUS(status));
    else sb_printf(why, "the system compiler failed: '%s' was killed by signal %d (%s)", argv[0], WTERMSIG(status),
                   strsignal(WTERMSIG(status)));
    show_log(tfd, why);
  }
out:
  if (log >= 0) close(log);
  if (null >= 0) close(null);
  if (pfd[0] >= 0) close(pfd[0]);
  if (pfd[1] >= 0) close(pfd[1]);
  mt_free(argv);
  mt_free(store);
  return ok;
}

/* Appends KEY's trailer to the compiled object in TFD, makes it 0600 and
 * syncs it. */
static bool seal_object(int tfd, const char *where, const vm_native_key *key, strbuf *why) {
  int fd = openat(tfd, OBJ_NAME, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  bool ok = false;
  if (fd < 0 || fstat(fd, &st) != 0) sb_printf(why, "the system compiler made no object in '%s': %s", where, strerror(errno));
  else if (!S_ISREG(st.st_mode) || st.st_size == 0 || st.st_size > ENTRY_MAX - VM_NATIVE_TRAILER)
    sb_printf(why, "the system compiler's object in '%s' is not a usable file (%lld bytes)", where, (long long)st.st_size);
  else {
    size_t n = (size_t)st.st_size;
    unsigned char *b = mt_alloc(n), t[VM_NATIVE_TRAILER];
    if (!read_whole(fd, b, n)) sb_printf(why, "cannot read the compiled object in '%s': %s", where, strerror(errno));
    else {
      make_trailer(t, key, b, n);
      ok = pwrite(fd, t, sizeof t, (off_t)n) == (ssize_t)sizeof t && fchmod(fd, 0600) == 0 && fsync(fd) == 0;
      if (!ok) sb_printf(why, "cannot write the compiled object in '%s': %s", where, strerror(errno ? errno : EIO));
    }
    mt_free(b);
  }
  if (fd >= 0 && close(fd) != 0 && ok) {
    sb_printf(why, "cannot write the compiled object in '%s': %s", where, strerror(errno));
    ok = false;
  }
  return ok;
}

bool vm_native_build(int dirfd, const char *dirpath, const vm_native_key *key, const char *src, size_t n,
                     strbuf *why) {
  sweep_stale(dirfd);
  char tname[96], obj[64], csrc[64];
  int tfd = make_build_dir(dirfd, dirpath, tname, sizeof tname, why);
  if (tfd < 0) return false;
  strbuf where = {0};
  sb_printf(&where, "%s/%s", dirpath, tname);
  snprintf(obj, sizeof obj, "native-%s.so", key->hex);
  snprintf(csrc, sizeof csrc, "native-%s.c", key->hex);
  bool ok = write_source(tfd, where.s, src, n, why) && run_compiler(tfd, why) && seal_object(tfd, where.s, key, why);
  if (ok) { /* what is renamed into place is what a later load will accept */
    strbuf bad = {0};
    int fd = vm_native_entry_open(tfd, OBJ_NAME, key, &bad);
    if (fd < 0) sb_printf(why, "the object just built does not verify: %s", bad.s);
    else close(fd);
    ok = fd >= 0;
    sb_free(&bad);
  }
  if (ok && (renameat(tfd, SRC_NAME, dirfd, csrc) != 0 || renameat(tfd, OBJ_NAME, dirfd, obj) != 0)) {
    sb_printf(why, "cannot move the built object into the native cache '%s': %s", dirpath, strerror(errno));
    ok = false;
  }
  if (ok) fsync(dirfd); /* the names made durable where the file system can (an entry lost to a crash is rebuilt) */
  remove_build_dir(dirfd, tname, tfd);
  sb_free(&where);
  return ok;
}

/* The cache directory from the process's environment (vm_native_cache_path);
 * the password database is asked only when neither variable names a home. */
static void cache_dir(strbuf *out) {
  vm_native_env e = {getenv("MENTAT_CACHE"), getenv("XDG_CACHE_HOME"), getenv("HOME"), NULL, getenv("TMPDIR"),
                     (unsigned long)geteuid()};
  char buf[4096];
  struct passwd pw, *res = NULL;
  struct stat st;
  bool named = (e.mentat_cache && *e.mentat_cache) || (e.xdg_cache_home && e.xdg_cache_home[0] == '/') ||
               (e.home && e.home[0] == '/');
  if (!named && getpwuid_r(geteuid(), &pw, buf, sizeof buf, &res) == 0 && res && res->pw_dir &&
      stat(res->pw_dir, &st) == 0 && S_ISDIR(st.st_mode))
    e.pw_home = res->pw_dir;
  vm_native_cache_path(&e, out);
}

/* dlopen's the verified entry FD (NAME in DIRFD, at DIRPATH): through
 * /proc/self/fd, so that the file loaded is the file verified; without /proc,
 * by its name, once the name is seen to still be that file. */
static void *load_object(int fd, int dirfd, const char *dirpath, const char *name, strbuf *why) {
  char proc[64];
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
  struct stat a, b;
  strbuf path = {0};
  void *h = NULL;
  if (fstat(fd, &b) != 0) sb_printf(why, "cannot load the cached object '%s/%s': %s", dirpath, name, strerror(errno));
  else if (stat(proc, &a) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) sb_puts(&path, proc);
  else if (fstatat(dirfd, name, &a, AT_SYMLINK_NOFOLLOW) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
    sb_printf(&path, "%s/%s", dirpath, name);
  else sb_printf(why, "the cached object '%s/%s' was replaced while it was being loaded", dirpath, name);
  if (path.s) {
    h = dlopen(path.s, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char *e = dlerror();
      sb_printf(why, "cannot load the cached object '%s/%s': %s", dirpath, name, e ? e : "unknown error");
    }
  }
  sb_free(&path);
  return h;
}

vm_native_status vm_native_cache_load(const char *src, size_t n, const vm_native_key *key, void **handle,
                                      strbuf *why) {
  *handle = NULL;
  strbuf dir = {0}, bad = {0};
  cache_dir(&dir);
  vm_native_status st = VM_NATIVE_FAILED;
  int dirfd = vm_native_cache_open(dir.s, why, &st), fd = -1;
  char name[64];
  snprintf(name, sizeof name, "native-%s.so", key->hex);
  if (dirfd < 0) goto out;
  st = VM_NATIVE_FAILED;
  fd = vm_native_entry_open(dirfd, name, key, &bad);
  if (fd < 0) { /* missing, or not to be trusted: built (again), never loaded as it is */
    if (errno == ENOENT) sb_free(&bad);
    else unlinkat(dirfd, name, 0);
    if (!vm_native_build(dirfd, dir.s, key, src, n, why)) goto out;
    strbuf again = {0};
    fd = vm_native_entry_open(dirfd, name, key, &again);
    if (fd < 0) sb_printf(why, "the object just built in '%s' does not verify: %s", dir.s, again.s);
    sb_free(&again);
    if (fd < 0) goto out;
  }
  *handle = load_object(fd, dirfd, dir.s, name, why);
  const char *carried = *handle ? dlsym(*handle, "mentat_native_key") : NULL;
  if (*handle && (!carried || strcmp(carried, key->hex) != 0)) { /* the trailer said otherwise: removed, not used */
    sb_printf(why, "the cached object '%s/%s' %s; removed it", dir.s, name, carried ? "carries another key" : "carries no key");
    dlclose(*handle);
    *handle = NULL;
    unlinkat(dirfd, name, 0);
  } else if (*handle) {
    st = VM_NATIVE_LOADED;
    if (bad.s) sb_printf(why, "%s in '%s': built it again", bad.s, dir.s);
  }
out:
  if (fd >= 0) close(fd);
  if (dirfd >= 0) close(dirfd);
  sb_free(&dir);
  sb_free(&bad);
  return st;
}
