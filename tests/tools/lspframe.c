/* lspframe.c -- the test suite's LSP client plumbing (tests/run-lsp.sh).
 *
 *   lspframe frame   < script > stream   each line of the script is one message: its bytes framed
 *                                        with a Content-Length header; a line "RAW text" is written
 *                                        as is, with \r, \n, \\ and \xHH decoded (malformed framing);
 *                                        blank lines and lines starting with '#' are skipped
 *   lspframe unframe < stream > lines    the server's stream split into its messages, one a line;
 *                                        exit 1 if the framing is not exactly Content-Length
 *                                        headers, a blank line and that many bytes
 *   lspframe get BASE [FIELD...]        for each JSON line of the input, each value at path BASE
 *                                        (keys and indices joined by '.', '*' every element of an
 *                                        array): the value, or its FIELDs (paths below it) joined
 *                                        by '|'; strings raw, other values as compact JSON, a
 *                                        missing one as '-'
 *   lspframe jstr FILE                   FILE's bytes as one JSON string (for a didOpen's text)
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

static int frame(void) {
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  while ((n = getline(&line, &cap, stdin)) > 0) {
    if (line[n - 1] == '\n') line[--n] = 0;
    if (!n || line[0] == '#') continue;
    if (!strncmp(line, "RAW ", 4)) {
      for (char *p = line + 4; *p; p++) {
        if (*p != '\\' || !p[1]) {
          putchar(*p);
          continue;
        }
        p++;
        if (*p == 'r') putchar('\r');
        else if (*p == 'n') putchar('\n');
        else if (*p == 'x' && p[1] && p[2]) {
          char hex[3] = {p[1], p[2], 0};
          putchar((int)strtol(hex, NULL, 16));
          p += 2;
        } else putchar(*p);
      }
      continue;
    }
    printf("Content-Length: %zd\r\n\r\n%s", n, line);
  }
  free(line);
  return 0;
}

static int unframe(void) {
  char header[4096];
  for (;;) {
    long len = -1;
    int lines = 0;
    for (;;) {
      if (!fgets(header, sizeof header, stdin)) {
        if (lines) fprintf(stderr, "lspframe: the stream ended inside a header\n");
        return lines ? 1 : 0;
      }
      size_t k = strlen(header);
      if (k < 2 || header[k - 2] != '\r' || header[k - 1] != '\n') {
        fprintf(stderr, "lspframe: a header line not ended by \\r\\n: %s\n", header);
        return 1;
      }
      if (k == 2) break;
      lines++;
      if (!strncmp(header, "Content-Length: ", 16)) len = strtol(header + 16, NULL, 10);
    }
    if (len < 0) {
      fprintf(stderr, "lspframe: a message without Content-Length\n");
      return 1;
    }
    char *body = malloc((size_t)len + 1);
    if (!body || fread(body, 1, (size_t)len, stdin) != (size_t)len) {
      fprintf(stderr, "lspframe: the stream ended inside a body\n");
      free(body);
      return 1;
    }
    body[len] = 0;
    if (memchr(body, '\n', (size_t)len)) {
      fprintf(stderr, "lspframe: a body with a raw newline (not compact JSON)\n");
      free(body);
      return 1;
    }
    printf("%s\n", body);
    free(body);
  }
}

/* Prints V (a string raw, else compact JSON; NULL as '-'). */
static void put_value(json_t *v) {
  if (!v) fputs("-", stdout);
  else if (json_is_string(v)) fwrite(json_string_value(v), 1, json_string_length(v), stdout);
  else {
    char *t = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    fputs(t ? t : "?", stdout);
    free(t);
  }
}

/* The value at PATH below V (no '*'), or NULL. */
static json_t *at(json_t *v, const char *path) {
  char buf[512];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *seg = strtok(buf, "."); seg && v; seg = strtok(NULL, "."))
    v = json_is_array(v) ? json_array_get(v, strtoul(seg, NULL, 10)) : json_object_get(v, seg);
  return v;
}

/* Walks PATH from V ('*': every element), printing what `get` prints at its end. */
static void walk(json_t *v, const char *path, int nf, char **fields) {
  if (!v && strchr(path, '*')) return;
  if (!v || !*path) {
    for (int i = 0; i < nf; i++) {
      if (i) putchar('|');
      put_value(v ? at(v, fields[i]) : NULL);
    }
    if (!nf) put_value(v);
    putchar('\n');
    return;
  }
  const char *dot = strchr(path, '.');
  size_t n = dot ? (size_t)(dot - path) : strlen(path);
  const char *rest = dot ? dot + 1 : "";
  if (n == 1 && path[0] == '*') {
    size_t i;
    json_t *e;
    json_array_foreach(v, i, e) walk(e, rest, nf, fields);
    return;
  }
  char seg[256];
  snprintf(seg, sizeof seg, "%.*s", (int)n, path);
  walk(json_is_array(v) ? json_array_get(v, strtoul(seg, NULL, 10)) : json_object_get(v, seg), rest, nf, fields);
}

static int get(int argc, char **argv) {
  char *line = NULL;
  size_t cap = 0;
  while (getline(&line, &cap, stdin) > 0) {
    json_error_t err;
    json_t *v = json_loads(line, 0, &err);
    if (!v) {
      fprintf(stderr, "lspframe: not JSON: %s\n", err.text);
      free(line);
      return 1;
    }
    walk(v, argv[0], argc - 1, argv + 1);
    json_decref(v);
  }
  free(line);
  return 0;
}

static int jstr(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return perror(path), 1;
  char *buf = NULL;
  size_t n = 0, cap = 0, k;
  do {
    if (n == cap && !(buf = realloc(buf, cap = cap ? 2 * cap : 65536))) return 1;
    k = fread(buf + n, 1, cap - n, f);
    n += k;
  } while (k > 0);
  fclose(f);
  json_t *s = json_stringn(buf, n);
  free(buf);
  if (!s) return fprintf(stderr, "lspframe: %s is not UTF-8 text\n", path), 1;
  char *t = json_dumps(s, JSON_COMPACT | JSON_ENCODE_ANY);
  json_decref(s);
  if (!t) return 1;
  fputs(t, stdout);
  free(t);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "jstr")) return jstr(argv[2]);
  if (argc >= 3 && !strcmp(argv[1], "get")) return get(argc - 2, argv + 2);
  if (argc == 2 && !strcmp(argv[1], "frame")) return frame();
  if (argc == 2 && !strcmp(argv[1], "unframe")) return unframe();
  fprintf(stderr, "usage: lspframe frame|unframe\n");
  return 64;
}
