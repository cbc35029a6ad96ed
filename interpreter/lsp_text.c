/* lsp_text.c -- the language server's conversions: LSP positions (a line and a character
 * counted in UTF-16 code units, or in bytes when the client agrees to UTF-8) to byte offsets of
 * a text and back, file URIs to paths and back, and C strings to JSON strings that are always
 * valid UTF-8 whatever bytes a rules file holds. */
#include <string.h>

#include "lsp_int.h"

/* The length of the UTF-8 sequence at P (at most N bytes): 1..4, or 1 for a byte that starts
 * no valid sequence (it counts as one character). *VALID says which. */
static uint32_t seq_len(const unsigned char *p, size_t n, bool *valid) {
  unsigned c = p[0];
  uint32_t need = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
  *valid = need > 0 && need <= n && !(c >= 0xc0 && c < 0xc2) && c <= 0xf4;
  for (uint32_t j = 1; *valid && j < need; j++) *valid = (p[j] & 0xc0) == 0x80;
  if (*valid && need == 3 && ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] >= 0xa0))) *valid = false;
  if (*valid && need == 4 && ((c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] >= 0x90))) *valid = false;
  return *valid ? need : 1;
}

/* The byte offset where line LINE (0-based) starts, or LEN past the last line. */
static size_t line_start(const char *text, size_t len, json_int_t line) {
  size_t off = 0;
  for (json_int_t l = 0; l < line; l++) {
    const char *nl = memchr(text + off, '\n', len - off);
    if (!nl) return len;
    off = (size_t)(nl - text) + 1;
  }
  return off;
}

uint32_t lsp_offset(const lsp_server *s, const char *text, size_t len, json_int_t line, json_int_t ch) {
  if (line < 0) line = 0;
  size_t off = line_start(text, len, line);
  const char *nl = memchr(text + off, '\n', len - off);
  size_t end = nl ? (size_t)(nl - text) : len;
  for (json_int_t units = 0; off < end && units < ch;) {
    bool valid;
    uint32_t k = seq_len((const unsigned char *)text + off, end - off, &valid);
    units += s->utf8 ? k : (valid && k == 4 ? 2 : 1);
    off += k;
  }
  return (uint32_t)(off > end ? end : off);
}

json_t *lsp_position(const lsp_server *s, const char *text, size_t len, uint32_t off) {
  if (off > len) off = (uint32_t)len;
  json_int_t line = 0;
  size_t start = 0;
  for (const char *p = text; (p = memchr(p, '\n', (size_t)(text + off - p))) != NULL; p++) {
    line++;
    start = (size_t)(p - text) + 1;
  }
  json_int_t units = 0;
  for (size_t i = start; i < off;) {
    bool valid;
    uint32_t k = seq_len((const unsigned char *)text + i, off - i, &valid);
    units += s->utf8 ? k : (valid && k == 4 ? 2 : 1);
    i += k;
  }
  return json_pack("{s:I, s:I}", "line", line, "character", units);
}

json_t *lsp_range(const lsp_server *s, const char *text, size_t len, uint32_t start, uint32_t end) {
  return json_pack("{s:o, s:o}", "start", lsp_position(s, text, len, start), "end",
                   lsp_position(s, text, len, end < start ? start : end));
}

json_t *lsp_str(const char *str) {
  size_t n = strlen(str);
  bool valid = true;
  for (size_t i = 0; i < n && valid;) i += seq_len((const unsigned char *)str + i, n - i, &valid);
  if (valid) return json_stringn(str, n);
  strbuf b = {0};
  sb_puts(&b, "");
  for (size_t i = 0; i < n;) {
    bool ok;
    uint32_t k = seq_len((const unsigned char *)str + i, n - i, &ok);
    if (ok) sb_putn(&b, str + i, k);
    else sb_puts(&b, "\xef\xbf\xbd"); /* U+FFFD */
    i += k;
  }
  json_t *j = json_stringn(b.s, b.n);
  sb_free(&b);
  return j;
}

char *lsp_uri_of(const char *path) {
  strbuf b = {0};
  sb_puts(&b, "file://");
  for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
    if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr("/-._~", *p))
      sb_putc(&b, (char)*p);
    else
      sb_printf(&b, "%%%02X", *p);
  }
  return sb_take(&b);
}

static int hexval(int c) {
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

char *lsp_path_of(const char *uri) {
  if (strncmp(uri, "file://", 7) != 0) return NULL;
  const char *p = uri + 7;
  if (!strncmp(p, "localhost/", 10)) p += 9;
  if (*p != '/') return NULL; /* another host, or not an absolute path */
  strbuf b = {0};
  for (; *p && *p != '?' && *p != '#'; p++) {
    if (*p == '%') {
      int hi = hexval((unsigned char)p[1]), lo = hi < 0 ? -1 : hexval((unsigned char)p[2]);
      if (lo < 0 || (hi == 0 && lo == 0)) { /* a bad escape, or a NUL byte no path holds */
        sb_free(&b);
        return NULL;
      }
      sb_putc(&b, (char)(hi * 16 + lo));
      p += 2;
    } else {
      sb_putc(&b, *p);
    }
  }
  return sb_take(&b);
}
