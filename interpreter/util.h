/* util.h -- allocation, growable buffers and small helpers shared by every stage. */
#ifndef MENTAT_UTIL_H
#define MENTAT_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The one allocation entry point (like lua_Alloc).  n == 0 frees.  Running
 * out of memory is not a recoverable condition in this program: it prints one
 * line and aborts, so no caller has to test for NULL. */
void *mt_realloc(void *p, size_t n);
#define mt_alloc(n) mt_realloc(NULL, (n))
#define mt_free(p) ((void)mt_realloc((p), 0))
void *mt_calloc(size_t n, size_t size);
char *mt_strdup(const char *s);
char *mt_strndup(const char *s, size_t n);

/* Growable array: `T *v; size_t n, cap;` with VEC_PUSH(v, n, cap, x). */
#define VEC_GROW(v, n, cap)                                                        \
  do {                                                                             \
    if ((n) >= (cap)) {                                                            \
      (cap) = (cap) ? (cap) * 2 : 8;                                               \
      (v) = mt_realloc((v), (size_t)(cap) * sizeof *(v));                                  \
    }                                                                              \
  } while (0)
#define VEC_PUSH(v, n, cap, x)                                                     \
  do {                                                                             \
    VEC_GROW(v, n, cap);                                                           \
    (v)[(n)++] = (x);                                                              \
  } while (0)

/* A growable string buffer. */
typedef struct strbuf {
  char *s;
  size_t n, cap;
} strbuf;
void sb_putc(strbuf *b, char c);
void sb_puts(strbuf *b, const char *s);
void sb_putn(strbuf *b, const char *s, size_t n);
void sb_vprintf(strbuf *b, const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 0)))
#endif
    ;
void sb_printf(strbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void sb_json_str(strbuf *b, const char *s); /* quoted, escaped JSON string */
void sb_json_list(strbuf *b, const char *list); /* a comma-separated LIST (NULL: none) as a JSON array of strings */
void sb_free(strbuf *b);
char *sb_take(strbuf *b); /* returns the NUL-terminated string, resets b */

/* An arena: many small allocations freed together. */
typedef struct arena_block arena_block;
typedef struct arena {
  arena_block *head;
} arena;
void *arena_alloc(arena *a, size_t n); /* zeroed, 16-byte aligned */
char *arena_strndup(arena *a, const char *s, size_t n);
void arena_free(arena *a);
/* A point in an arena's life: arena_release frees what was allocated after it. */
typedef struct arena_mark {
  arena_block *head;
  size_t used;
} arena_mark;
arena_mark arena_get_mark(const arena *a);
void arena_release(arena *a, arena_mark m);

uint64_t mt_hash_bytes(const void *p, size_t n, uint64_t seed); /* 64-bit, one pass */

/* Splits a comma-separated list in place: the count, -1 for an empty name
 * (or an empty list), -2 for more than CAP names. */
int mt_split_list(char *s, char **out, int cap);

/* A ruleset's name: 0 for "basic", 1 for "advanced" (the rules tagged
 * advanced are in force), -1 for anything else. */
int mt_ruleset_parse(const char *s);

/* Every file Mentat reads (rules, components, saves) is at most this big. */
#define MT_MAX_FILE (64u << 20)
/* The whole file PATH (NUL-ended, length in LEN), or NULL with the reason in WHY. */
char *mt_read_file(const char *path, size_t *len, strbuf *why);

/* A file being written so that it is never seen half-written.  A regular
 * file (or a new name) is written to a temporary file beside it, which
 * mt_out_commit flushes, syncs and renames over PATH; until then PATH keeps
 * its old content, and mt_out_abort (or a failed commit) removes the
 * temporary.  A PATH that exists and is not a regular file (a terminal,
 * /dev/stdout, /dev/full, a pipe) cannot be replaced: it is written in place,
 * and every write, flush and close is still checked.  Opening checks the
 * directory at once, so a typo in an output path is found before any work. */
typedef struct mt_out {
  FILE *f;    /* write here between open and commit */
  char *path; /* the destination */
  char *tmp;  /* the temporary beside it, NULL when written in place */
} mt_out;
bool mt_out_open(mt_out *o, const char *path, strbuf *why);
bool mt_out_commit(mt_out *o, strbuf *why); /* false with WHY on any error; O is closed either way */
void mt_out_abort(mt_out *o);               /* the destination untouched; safe after commit */
/* N bytes of DATA as the whole content of PATH, by mt_out. */
bool mt_write_file(const char *path, const char *data, size_t n, strbuf *why);

/* Asking a long piece of work to stop (the console's Ctrl-C while a command runs): set from a
 * signal handler, read by the loops that can run long (the search of verify, the bots' playouts,
 * a game played on by bots), which then stop as if their budget had run out. */
extern volatile int mt_stop_requested;
/* Where long work says how far it is (the console sets it to standard error at a terminal, never
 * for --json or a pipe); NULL: silent.  mt_progress prints one line over the last, at most a few
 * times a second; mt_progress_end clears it. */
extern FILE *mt_progress_to;
void mt_progress(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Seconds on a monotonic clock (for rates and time left, never for results). */
double mt_seconds(void);
void mt_progress_end(void);

#endif
