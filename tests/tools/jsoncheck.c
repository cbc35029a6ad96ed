/* jsoncheck.c -- is standard input one JSON value (RFC 8259), and nothing
 * else?  Exit 0 if so; else 1 with the byte offset of the first error.  The
 * test scripts use it on `--json` output (python is not among the deps).
 * Strict: no trailing commas, no comments, strings with valid escapes and no
 * raw control characters, numbers in the JSON grammar, nesting below 512. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *s, *start;

static void ws(void) {
  while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
}

static int lit(const char *w) {
  size_t n = strlen(w);
  if (strncmp(s, w, n)) return 0;
  s += n;
  return 1;
}

static int hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

static int string(void) {
  if (*s++ != '"') return 0;
  for (;;) {
    unsigned char c = (unsigned char)*s++;
    if (c == '"') return 1;
    if (c < 32) return 0; /* also the end of input */
    if (c == '\\') {
      c = (unsigned char)*s++;
      if (c == 'u') {
        for (int i = 0; i < 4; i++)
          if (!hex(*s++)) return 0;
      } else if (!strchr("\"\\/bfnrt", c) || !c) {
        return 0;
      }
    }
  }
}

static int digits(void) {
  if (*s < '0' || *s > '9') return 0;
  while (*s >= '0' && *s <= '9') s++;
  return 1;
}

static int number(void) {
  if (*s == '-') s++;
  if (*s == '0') s++;
  else if (!digits()) return 0;
  if (*s == '.') {
    s++;
    if (!digits()) return 0;
  }
  if (*s == 'e' || *s == 'E') {
    s++;
    if (*s == '+' || *s == '-') s++;
    if (!digits()) return 0;
  }
  return 1;
}

static int value(int depth) {
  if (depth > 512) return 0;
  ws();
  if (*s == '{' || *s == '[') {
    char close = *s == '{' ? '}' : ']';
    int object = *s == '{';
    s++;
    ws();
    if (*s == close) return s++, 1;
    for (;;) {
      if (object) {
        ws();
        if (!string()) return 0;
        ws();
        if (*s++ != ':') return 0;
      }
      if (!value(depth + 1)) return 0;
      ws();
      if (*s == close) return s++, 1;
      if (*s++ != ',') return 0;
    }
  }
  if (*s == '"') return string();
  if (*s == '-' || (*s >= '0' && *s <= '9')) return number();
  return lit("true") || lit("false") || lit("null");
}

int main(void) {
  size_t n = 0, cap = 1 << 16;
  char *buf = malloc(cap + 1);
  size_t got;
  while (buf && (got = fread(buf + n, 1, cap - n, stdin)) > 0)
    if ((n += got) == cap) buf = realloc(buf, (cap *= 2) + 1);
  if (!buf) return 2;
  buf[n] = 0;
  if (strlen(buf) != n) return fprintf(stderr, "jsoncheck: a NUL byte in the input\n"), 1;
  s = start = buf;
  int ok = value(0);
  if (ok) ws();
  if (!ok || *s) {
    fprintf(stderr, "jsoncheck: not one JSON value: error at byte %ld\n", (long)(s - start));
    free(buf);
    return 1;
  }
  free(buf);
  return 0;
}
