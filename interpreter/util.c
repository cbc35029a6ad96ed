/* util.c -- allocation, string buffers, arenas, hashing and files used by every stage. */
#define _POSIX_C_SOURCE 200809L
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void *mt_realloc(void *p, size_t n) {
  if (n == 0) {
    free(p);
    return NULL;
  }
  void *q = realloc(p, n);
  if (!q) {
    fputs("mentat: out of memory\n", stderr);
    abort();
  }
  return q;
}

void *mt_calloc(size_t n, size_t size) {
  if (size && n > SIZE_MAX / size) {
    fputs("mentat: out of memory\n", stderr);
    abort();
  }
  size_t total = n * size > 0 ? n * size : 1;
  void *p = mt_alloc(total);
  memset(p, 0, total);
  return p;
}

char *mt_strndup(const char *s, size_t n) {
  char *d = mt_alloc(n + 1);
  memcpy(d, s, n);
  d[n] = 0;
  return d;
}

char *mt_strdup(const char *s) { return mt_strndup(s, strlen(s)); }

void sb_putn(strbuf *b, const char *s, size_t n) {
  if (b->n + n + 1 > b->cap) {
    size_t c = b->cap ? b->cap : 64;
    while (c < b->n + n + 1) c *= 2;
    b->s = mt_realloc(b->s, c);
    b->cap = c;
  }
  memcpy(b->s + b->n, s, n);
  b->n += n;
  b->s[b->n] = 0;
}

void sb_putc(strbuf *b, char c) { sb_putn(b, &c, 1); }
void sb_puts(strbuf *b, const char *s) { sb_putn(b, s, strlen(s)); }

void sb_vprintf(strbuf *b, const char *fmt, va_list ap) {
  char tmp[512];
  va_list again;
  va_copy(again, ap);
  int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
  if (k >= 0 && (size_t)k < sizeof tmp) sb_putn(b, tmp, (size_t)k);
  else if (k >= 0) {
    char *big = mt_alloc((size_t)k + 1);
    vsnprintf(big, (size_t)k + 1, fmt, again);
    sb_putn(b, big, (size_t)k);
    mt_free(big);
  }
  va_end(again);
}

void sb_printf(strbuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(b, fmt, ap);
  va_end(ap);
}

void sb_json_str(strbuf *b, const char *s) {
  sb_putc(b, '"');
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    switch (*p) {
    case '"': sb_puts(b, "\\\""); break;
    case '\\': sb_puts(b, "\\\\"); break;
    case '\n': sb_puts(b, "\\n"); break;
    case '\t': sb_puts(b, "\\t"); break;
    case '\r': sb_puts(b, "\\r"); break;
    default:
      if (*p < 0x20) sb_printf(b, "\\u%04x", *p);
      else sb_putc(b, (char)*p);
    }
  }
  sb_putc(b, '"');
}

void sb_json_list(strbuf *b, const char *list) {
  sb_putc(b, '[');
  const char *s = list ? list : "";
  for (int k = 0; *s; k++) {
    const char *e = strchr(s, ',');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    char *one = mt_strndup(s, n);
    if (k) sb_putc(b, ',');
    sb_json_str(b, one);
    mt_free(one);
    s += n + (e ? 1 : 0);
  }
  sb_putc(b, ']');
}

void sb_free(strbuf *b) {
  mt_free(b->s);
  b->s = NULL;
  b->n = b->cap = 0;
}

char *sb_take(strbuf *b) {
  char *s = b->s ? b->s : mt_strdup("");
  b->s = NULL;
  b->n = b->cap = 0;
  return s;
}

struct arena_block {
  arena_block *next;
  size_t used, cap;
  _Alignas(16) unsigned char data[];
};

void *arena_alloc(arena *a, size_t n) {
  n = (n + 15) & ~(size_t)15;
  if (!a->head || a->head->used + n > a->head->cap) {
    size_t cap = n > 65536 ? n : 65536;
    arena_block *b = mt_alloc(sizeof *b + cap);
    b->next = a->head;
    b->used = 0;
    b->cap = cap;
    a->head = b;
  }
  void *p = a->head->data + a->head->used;
  a->head->used += n;
  memset(p, 0, n);
  return p;
}

char *arena_strndup(arena *a, const char *s, size_t n) {
  char *d = arena_alloc(a, n + 1);
  memcpy(d, s, n);
  d[n] = 0;
  return d;
}

arena_mark arena_get_mark(const arena *a) {
  arena_mark m = {a->head, a->head ? a->head->used : 0};
  return m;
}

void arena_release(arena *a, arena_mark m) {
  while (a->head && a->head != m.head) {
    arena_block *n = a->head->next;
    mt_free(a->head);
    a->head = n;
  }
  if (a->head) a->head->used = m.used;
}

void arena_free(arena *a) {
  while (a->head) {
    arena_block *n = a->head->next;
    mt_free(a->head);
    a->head = n;
  }
}

/* One pass over the bytes: four independent multiply-xorshift lanes over
 * 32-byte blocks (so the CPU overlaps them), then the tail, then a final
 * avalanche.  Stable across runs and machines of the same endianness. */
static uint64_t mix(uint64_t h, uint64_t w) {
  h ^= w * 0x9e3779b97f4a7c15ull;
  h = (h << 31 | h >> 33) * 0xbf58476d1ce4e5b9ull;
  return h;
}

uint64_t mt_hash_bytes(const void *p, size_t n, uint64_t seed) {
  const unsigned char *s = p;
  uint64_t a = 0xcbf29ce484222325ull ^ seed, b = 0x84222325cbf29ce4ull ^ n, c = seed + 0x9e3779b97f4a7c15ull, d = ~seed;
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    uint64_t w[4];
    memcpy(w, s + i, 32);
    a = mix(a, w[0]);
    b = mix(b, w[1]);
    c = mix(c, w[2]);
    d = mix(d, w[3]);
  }
  uint64_t h = a ^ (b << 17 | b >> 47) ^ (c << 29 | c >> 35) ^ (d << 43 | d >> 21);
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, s + i, 8);
    h = mix(h, w);
  }
  uint64_t tail = 0;
  for (size_t k = 0; i < n; i++, k++) tail |= (uint64_t)s[i] << (8 * k);
  h = mix(h, tail ^ (uint64_t)n);
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

int mt_ruleset_parse(const char *s) {
  if (!s) return -1;
  if (!strcmp(s, "basic")) return 0;
  if (!strcmp(s, "advanced")) return 1;
  return -1;
}

/* Splits S (changed in place) at commas into OUT (at most CAP names).  The
 * count, or -1 if a name is empty (an empty S included), -2 if there are more
 * than CAP. */
int mt_split_list(char *s, char **out, int cap) {
  int n = 0;
  for (char *t = s;;) {
    char *comma = strchr(t, ',');
    if (comma) *comma = 0;
    if (!*t) return -1;
    if (n == cap) return -2;
    out[n++] = t;
    if (!comma) return n;
    t = comma + 1;
  }
}

/* Reads the whole file PATH, at most MT_MAX_FILE bytes: the text (NUL-ended,
 * its length in LEN), or NULL with WHY set (a message naming the file).
 * Only a regular file is read: a FIFO would block forever (it is opened
 * without waiting for a writer, then refused), and a device or a directory
 * is never what a rules, components or saved-position file means. */
char *mt_read_file(const char *path, size_t *len, strbuf *why) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    sb_printf(why, "cannot open '%s': %s", path, strerror(errno));
    return NULL;
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    sb_printf(why, "cannot read '%s': %s", path, strerror(errno));
    close(fd);
    return NULL;
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    sb_printf(why, "cannot read '%s': it is %s, not a regular file", path,
              S_ISDIR(st.st_mode)    ? "a directory"
              : S_ISFIFO(st.st_mode) ? "a FIFO (named pipe)"
              : S_ISSOCK(st.st_mode) ? "a socket"
                                     : "a device");
    return NULL;
  }
  int fl = fcntl(fd, F_GETFL);
  if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  FILE *f = fdopen(fd, "rb");
  if (!f) {
    sb_printf(why, "cannot open '%s': %s", path, strerror(errno));
    close(fd);
    return NULL;
  }
  strbuf b = {0};
  char buf[65536];
  size_t k;
  while ((k = fread(buf, 1, sizeof buf, f)) > 0) {
    sb_putn(&b, buf, k);
    if (b.n > MT_MAX_FILE) {
      fclose(f);
      sb_free(&b);
      sb_printf(why, "'%s' is larger than %u MiB", path, (unsigned)(MT_MAX_FILE >> 20));
      return NULL;
    }
  }
  int bad = ferror(f);
  int e = errno;
  fclose(f);
  if (bad) {
    sb_free(&b);
    sb_printf(why, "cannot read '%s': %s", path, strerror(e));
    return NULL;
  }
  *len = b.n;
  return b.s ? b.s : mt_strdup("");
}

/* Opens O for PATH (see util.h).  The temporary is PATH.XXXXXX, created 0600
 * by mkstemp in PATH's own directory (a rename across file systems is not
 * atomic) and given the usual 0666 & ~umask mode at commit. */
bool mt_out_open(mt_out *o, const char *path, strbuf *why) {
  memset(o, 0, sizeof *o);
  struct stat st;
  if (!*path) {
    sb_printf(why, "cannot write '': an empty file name");
    return false;
  }
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) {
      sb_printf(why, "cannot write '%s': it is a directory", path);
      return false;
    }
    o->f = fopen(path, "w");
    if (!o->f) {
      sb_printf(why, "cannot write '%s': %s", path, strerror(errno));
      return false;
    }
    o->path = mt_strdup(path);
    return true;
  }
  size_t n = strlen(path);
  o->tmp = mt_alloc(n + 8);
  memcpy(o->tmp, path, n);
  memcpy(o->tmp + n, ".XXXXXX", 8);
  int fd = mkstemp(o->tmp);
  if (fd < 0) {
    sb_printf(why, "cannot write '%s': %s", path, strerror(errno));
    mt_free(o->tmp);
    o->tmp = NULL;
    return false;
  }
  o->f = fdopen(fd, "w");
  if (!o->f) {
    sb_printf(why, "cannot write '%s': %s", path, strerror(errno));
    close(fd);
    unlink(o->tmp);
    mt_free(o->tmp);
    o->tmp = NULL;
    return false;
  }
  o->path = mt_strdup(path);
  return true;
}

static void out_release(mt_out *o) {
  mt_free(o->path);
  mt_free(o->tmp);
  memset(o, 0, sizeof *o);
}

void mt_out_abort(mt_out *o) {
  if (o->f) fclose(o->f);
  if (o->tmp) unlink(o->tmp);
  out_release(o);
}

/* Flushes, syncs and closes O, then renames the temporary over the
 * destination.  Any error (a full disk shows at the flush or the sync) leaves
 * the destination as it was and names the cause. */
bool mt_out_commit(mt_out *o, strbuf *why) {
  if (!o->f) {
    sb_printf(why, "cannot write '%s': not open", o->path ? o->path : "");
    out_release(o);
    return false;
  }
  int err = 0;
  if (ferror(o->f)) err = errno ? errno : EIO;
  if (!err && fflush(o->f) != 0) err = errno;
  if (!err && o->tmp) {
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fileno(o->f), 0666 & ~mask) != 0) err = errno;
    if (!err && fsync(fileno(o->f)) != 0) err = errno;
  }
  if (fclose(o->f) != 0 && !err) err = errno;
  o->f = NULL;
  if (!err && o->tmp && rename(o->tmp, o->path) != 0) err = errno;
  if (err) {
    sb_printf(why, "cannot write '%s': %s", o->path, strerror(err));
    if (o->tmp) unlink(o->tmp);
    out_release(o);
    return false;
  }
  out_release(o);
  return true;
}

bool mt_write_file(const char *path, const char *data, size_t n, strbuf *why) {
  mt_out o;
  if (!mt_out_open(&o, path, why)) return false;
  if (n && fwrite(data, 1, n, o.f) != n) {
    int e = errno;
    mt_out_abort(&o);
    sb_printf(why, "cannot write '%s': %s", path, strerror(e ? e : EIO));
    return false;
  }
  return mt_out_commit(&o, why);
}

volatile int mt_stop_requested;
FILE *mt_progress_to;
static struct timespec progress_last;
static bool progress_shown;

/* One line of progress over the last (carriage return, the line cleared), no more than four
 * times a second: a terminal's standard error only (the console decides where it goes). */
void mt_progress(const char *fmt, ...) {
  if (!mt_progress_to) return;
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  double since = (double)(t.tv_sec - progress_last.tv_sec) + (double)(t.tv_nsec - progress_last.tv_nsec) / 1e9;
  if (progress_shown && since < 0.25) return;
  progress_last = t;
  progress_shown = true;
  va_list ap;
  va_start(ap, fmt);
  fputs("\r\033[K", mt_progress_to);
  vfprintf(mt_progress_to, fmt, ap);
  va_end(ap);
  fflush(mt_progress_to);
}

double mt_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void mt_progress_end(void) {
  if (mt_progress_to && progress_shown) {
    fputs("\r\033[K", mt_progress_to);
    fflush(mt_progress_to);
  }
  progress_shown = false;
}
