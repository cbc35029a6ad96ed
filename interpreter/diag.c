/* diag.c -- source registry and caret diagnostics (every stage reports here). */
#define _POSIX_C_SOURCE 200809L
#include "diag.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

typedef struct source {
  char *name;
  char *text;
  size_t len;
  uint32_t *lines; /* byte offset of each line start */
  uint32_t nlines;
  bool private_text; /* diag_source_private: never echo a line of it */
} source;

struct diag {
  diag_sink sink;
  void *ud;
  source *src;
  size_t nsrc, capsrc;
  int errors, limit;
  int dropping; /* past the limit: drop notes attached to dropped errors */
  diag_observer observer;
  void *observer_ud;
};

void diag_set_observer(diag *d, diag_observer fn, void *ud) {
  d->observer = fn;
  d->observer_ud = ud;
}

diag *diag_new(diag_sink sink, void *ud) {
  diag *d = mt_calloc(1, sizeof *d);
  d->sink = sink;
  d->ud = ud;
  d->limit = 50;
  return d;
}

void diag_free(diag *d) {
  if (!d) return;
  for (size_t i = 0; i < d->nsrc; i++) {
    mt_free(d->src[i].name);
    mt_free(d->src[i].text);
    mt_free(d->src[i].lines);
  }
  mt_free(d->src);
  mt_free(d);
}

uint32_t diag_nsources(const diag *d) { return (uint32_t)d->nsrc; }

void diag_drop_sources(diag *d, uint32_t n) {
  while (d->nsrc > n) {
    source *s = &d->src[--d->nsrc];
    mt_free(s->name);
    mt_free(s->text);
    mt_free(s->lines);
  }
}

uint32_t diag_add_source(diag *d, const char *name, const char *text, size_t len) {
  source s = {0};
  s.name = mt_strdup(name);
  s.text = mt_strndup(text, len);
  s.len = len;
  size_t cap = 16;
  s.lines = mt_alloc(cap * sizeof *s.lines);
  s.lines[s.nlines++] = 0;
  for (const char *q = text, *end = text + len; q < end && (q = memchr(q, '\n', (size_t)(end - q))) != NULL; q++) {
    if (s.nlines == cap) s.lines = mt_realloc(s.lines, (cap *= 2) * sizeof *s.lines);
    s.lines[s.nlines++] = (uint32_t)(q - text + 1);
  }
  VEC_PUSH(d->src, d->nsrc, d->capsrc, s);
  return (uint32_t)(d->nsrc - 1);
}

uint32_t diag_load_file(diag *d, const char *path) {
  mt_span none = {DIAG_NOFILE, 0, 0};
  strbuf why = {0};
  size_t len = 0;
  char *text = mt_read_file(path, &len, &why);
  if (!text) {
    diag_error(d, none, "%s", why.s);
    sb_free(&why);
    return DIAG_NOFILE;
  }
  uint32_t id = diag_add_source(d, path, text, len);
  mt_free(text);
  return id;
}

const char *diag_source_text(const diag *d, uint32_t file, size_t *len) {
  if (file >= d->nsrc) {
    if (len) *len = 0;
    return "";
  }
  if (len) *len = d->src[file].len;
  return d->src[file].text;
}

void diag_source_private(diag *d, uint32_t file, bool on) {
  if (file < d->nsrc) d->src[file].private_text = on;
}

const char *diag_source_name(const diag *d, uint32_t file) {
  return file < d->nsrc ? d->src[file].name : "<none>";
}

void diag_linecol(const diag *d, uint32_t file, uint32_t off, uint32_t *line, uint32_t *col) {
  *line = *col = 1;
  if (file >= d->nsrc) return;
  const source *s = &d->src[file];
  if (off > s->len) off = (uint32_t)s->len;
  uint32_t lo = 0, hi = s->nlines - 1;
  while (lo < hi) { /* last line start <= off */
    uint32_t mid = (lo + hi + 1) / 2;
    if (s->lines[mid] <= off) lo = mid;
    else hi = mid - 1;
  }
  *line = lo + 1;
  *col = off - s->lines[lo] + 1;
}

uint32_t diag_offset(const diag *d, uint32_t file, uint32_t line, uint32_t col) {
  if (file >= d->nsrc || line == 0) return 0;
  const source *s = &d->src[file];
  if (line > s->nlines) return (uint32_t)s->len;
  uint32_t start = s->lines[line - 1];
  uint32_t end = line < s->nlines ? s->lines[line] : (uint32_t)s->len;
  uint32_t off = start + (col ? col - 1 : 0);
  return off > end ? end : off;
}

/* Length of the valid UTF-8 sequence at S (at most N bytes), or 0 if invalid. */
static uint32_t utf8_len(const char *s, uint32_t n) {
  const unsigned char *p = (const unsigned char *)s;
  unsigned c = p[0];
  uint32_t need = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 : (c & 0xf8) == 0xf0 ? 3 : 9;
  if (need == 9 || (c >= 0xc0 && c < 0xc2) || c > 0xf4 || need >= n) return need == 0 ? 1 : 0;
  for (uint32_t j = 1; j <= need; j++)
    if ((p[j] & 0xc0) != 0x80) return 0;
  return need + 1;
}

static const char *level_name(diag_level lv) {
  return lv == DIAG_ERROR ? "error" : lv == DIAG_WARNING ? "warning" : "note";
}

/* Renders "file:line:col: level: msg", the source line and a caret under the
 * span (clipped to the line).  Control bytes in the echoed line become spaces
 * so binary garbage cannot corrupt a terminal. */
void diag_report(diag *d, diag_level lv, mt_span at, const char *fmt, va_list ap) {
  if (lv == DIAG_ERROR) {
    if (d->errors >= d->limit) {
      if (d->errors == d->limit && d->sink) {
        char msg[96];
        snprintf(msg, sizeof msg, "mentat: error: too many errors (%d), stopping here\n", d->limit);
        d->sink(d->ud, DIAG_ERROR, msg);
      }
      if (d->errors == d->limit && d->observer) {
        char msg[96];
        snprintf(msg, sizeof msg, "too many errors (%d), stopping here", d->limit);
        d->observer(d->observer_ud, DIAG_ERROR, (mt_span){DIAG_NOFILE, 0, 0}, msg);
      }
      d->errors++;
      d->dropping = 1;
      return;
    }
    d->errors++;
    d->dropping = 0;
  } else if (lv == DIAG_NOTE && d->dropping) {
    return;
  }
  if (!d->sink && !d->observer) return;
  strbuf b = {0};
  char msg[1024];
  vsnprintf(msg, sizeof msg, fmt, ap);
  if (d->observer) d->observer(d->observer_ud, lv, at, msg);
  if (!d->sink) return;
  if (at.file >= d->nsrc) {
    sb_printf(&b, "mentat: %s: %s\n", level_name(lv), msg);
    d->sink(d->ud, lv, b.s);
    sb_free(&b);
    return;
  }
  const source *s = &d->src[at.file];
  uint32_t line, col;
  diag_linecol(d, at.file, at.start, &line, &col);
  sb_printf(&b, "%s:%u:%u: %s: %s\n", s->name, line, col, level_name(lv), msg);
  if (s->private_text) {
    d->sink(d->ud, lv, b.s);
    sb_free(&b);
    return;
  }
  uint32_t ls = s->lines[line - 1];
  uint32_t le = ls;
  while (le < s->len && s->text[le] != '\n') le++;
  if (le > ls && s->text[le - 1] == '\r') le--;
  /* very long lines: show a window around the caret */
  uint32_t from = ls, to = le;
  if (to - from > 160) {
    from = at.start > ls + 60 ? at.start - 60 : ls;
    to = from + 160 < le ? from + 160 : le;
  }
  char gutter[16];
  int gw = snprintf(gutter, sizeof gutter, "%5u", line);
  sb_printf(&b, "%s | ", gutter);
  for (uint32_t i = from; i < to;) {
    unsigned char c = (unsigned char)s->text[i];
    uint32_t k = utf8_len(s->text + i, to - i);
    if (k == 0) { /* invalid byte: never echo it raw */
      sb_putc(&b, '?');
      i++;
    } else if (k == 1) {
      sb_putc(&b, c == '\t' ? '\t' : (c < 0x20 || c == 0x7f) ? ' ' : (char)c);
      i++;
    } else {
      sb_putn(&b, s->text + i, k);
      i += k;
    }
  }
  sb_putc(&b, '\n');
  sb_printf(&b, "%*s | ", gw, "");
  uint32_t cs = at.start < from ? from : at.start;
  for (uint32_t i = from; i < cs && i < to; i++) {
    unsigned char c = (unsigned char)s->text[i];
    if (c == '\t') sb_putc(&b, '\t');
    else if ((c & 0xc0) != 0x80) sb_putc(&b, ' '); /* one column per UTF-8 character */
  }
  sb_putc(&b, '^');
  uint32_t ce = at.end < to ? at.end : to;
  for (uint32_t i = cs + 1; i < ce; i++)
    if (((unsigned char)s->text[i] & 0xc0) != 0x80) sb_putc(&b, '~');
  sb_putc(&b, '\n');
  d->sink(d->ud, lv, b.s);
  sb_free(&b);
}

#define DEFINE_LEVEL(fn, lv)                                                       \
  void fn(diag *d, mt_span at, const char *fmt, ...) {                            \
    va_list ap;                                                                    \
    va_start(ap, fmt);                                                             \
    diag_report(d, lv, at, fmt, ap);                                               \
    va_end(ap);                                                                    \
  }
DEFINE_LEVEL(diag_error, DIAG_ERROR)
DEFINE_LEVEL(diag_warning, DIAG_WARNING)
DEFINE_LEVEL(diag_note, DIAG_NOTE)

int diag_errors(const diag *d) { return d->errors; }
void diag_reset_count(diag *d) { d->errors = 0; d->dropping = 0; }
void diag_set_limit(diag *d, int max_errors) { d->limit = max_errors > 0 ? max_errors : 1; }

void diag_sink_file(void *ud, diag_level level, const char *text) {
  (void)level;
  fputs(text, (FILE *)ud);
}

/* Optimal string alignment distance, capped: the classic suggestion metric. */
static size_t edit_distance(const char *a, const char *b, size_t cap) {
  size_t la = strlen(a), lb = strlen(b);
  if (la > 64 || lb > 64) return cap + 1;
  size_t d[65][65];
  for (size_t i = 0; i <= la; i++) d[i][0] = i;
  for (size_t j = 0; j <= lb; j++) d[0][j] = j;
  for (size_t i = 1; i <= la; i++)
    for (size_t j = 1; j <= lb; j++) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      size_t v = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
      if (d[i - 1][j - 1] + cost < v) v = d[i - 1][j - 1] + cost;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
        v = d[i - 2][j - 2] + 1;
      d[i][j] = v;
    }
  return d[la][lb];
}

const char *diag_suggest(const char *name, const char *const *cands, size_t n) {
  size_t len = strlen(name);
  size_t cap = len / 3 > 1 ? len / 3 : 1;
  const char *best = NULL;
  size_t bestd = cap + 1;
  for (size_t i = 0; i < n; i++) {
    if (!cands[i]) continue;
    /* separators often differ: sietch-tabr vs sietch_tabr */
    char norm[128];
    size_t k = 0;
    for (; name[k] && k < sizeof norm - 1; k++) norm[k] = name[k] == '-' || name[k] == ' ' ? '_' : name[k];
    norm[k] = 0;
    size_t dist = strcmp(norm, cands[i]) == 0 ? 0 : edit_distance(name, cands[i], cap);
    if (dist < bestd) {
      bestd = dist;
      best = cands[i];
    }
  }
  return best;
}
