/* diag.h -- source buffers, spans and compiler-style diagnostics.
 *
 * Every message the library produces goes through a diag sink: the library
 * never prints or exits by itself.  Positions are byte spans into a source
 * registered with diag_add_source(); line and column are computed only when
 * a message is rendered, in the gcc shape editors understand:
 *
 *   file:line:col: error: message
 *      12 |   source line
 *         |   ^~~~~
 */
#ifndef MENTAT_DIAG_H
#define MENTAT_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define MT_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define MT_PRINTF(f, a)
#endif

#define DIAG_NOFILE UINT32_MAX

typedef struct mt_span {
  uint32_t file, start, end; /* byte offsets, end exclusive */
} mt_span;

typedef enum { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE } diag_level;

/* Receives one fully rendered message (several lines, '\n'-terminated). */
typedef void (*diag_sink)(void *ud, diag_level level, const char *text);

typedef struct diag diag;

diag *diag_new(diag_sink sink, void *ud);
void diag_free(diag *d);

/* Registers a copy of TEXT under NAME; returns its file id. */
/* The number of sources; diag_drop_sources forgets those added after N. */
uint32_t diag_nsources(const diag *d);
void diag_drop_sources(diag *d, uint32_t n);
uint32_t diag_add_source(diag *d, const char *name, const char *text, size_t len);
/* Reads a whole file and registers it.  On failure reports an error naming
 * PATH and returns DIAG_NOFILE.  Files over 64 MiB are refused. */
uint32_t diag_load_file(diag *d, const char *path);
const char *diag_source_text(const diag *d, uint32_t file, size_t *len);
/* A private source: its messages give file:line:col but never echo its
 * lines.  For a file that may not be what it claims to be (a `load` of
 * /etc/passwd) until its first key says it is. */
void diag_source_private(diag *d, uint32_t file, bool on);
const char *diag_source_name(const diag *d, uint32_t file);
/* 1-based line/column -> byte offset (clamped to the buffer). */
uint32_t diag_offset(const diag *d, uint32_t file, uint32_t line, uint32_t col);
/* byte offset -> 1-based line and column (column counts bytes). */
void diag_linecol(const diag *d, uint32_t file, uint32_t off, uint32_t *line, uint32_t *col);

void diag_error(diag *d, mt_span at, const char *fmt, ...) MT_PRINTF(3, 4);
void diag_warning(diag *d, mt_span at, const char *fmt, ...) MT_PRINTF(3, 4);
void diag_note(diag *d, mt_span at, const char *fmt, ...) MT_PRINTF(3, 4);
void diag_report(diag *d, diag_level lv, mt_span at, const char *fmt, va_list ap) MT_PRINTF(4, 0);

int diag_errors(const diag *d);   /* errors reported so far */
void diag_reset_count(diag *d);
/* After this many errors further errors (and their notes) are dropped and
 * one "too many errors" line is printed.  Default 50. */
void diag_set_limit(diag *d, int max_errors);

/* Best candidate for a misspelt NAME among CANDS (Damerau-Levenshtein,
 * distance at most max(1, strlen/3)), or NULL. */
const char *diag_suggest(const char *name, const char *const *cands, size_t n);

/* A second receiver of every message that is not dropped: its level, its
 * span and the message alone, unrendered (tools that place it themselves:
 * the language server).  FN NULL: none. */
typedef void (*diag_observer)(void *ud, diag_level level, mt_span at, const char *msg);
void diag_set_observer(diag *d, diag_observer fn, void *ud);

/* A ready-made sink that writes to the FILE* passed as UD. */
void diag_sink_file(void *ud, diag_level level, const char *text);

#endif
