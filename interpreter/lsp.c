/* lsp.c -- `mentat lsp`, the language server: JSON-RPC 2.0 framed by Content-Length headers
 * on a pair of streams (LSP 3.17), the server's lifecycle, the open documents kept in step with
 * the editor (full or incremental changes) and their diagnostics.  Every change checks the pack
 * the document belongs to with every open text in place of its file (mt_load.unsaved), the
 * checker's own messages placed by their spans (mt_load.message_at), exactly what `mentat check`
 * says, warnings included.  The queries on a checked document are in lsp_query.c.
 *
 * A malformed message -- a bad header, a body that is not JSON, a request without a method,
 * parameters of the wrong shape -- is answered with a JSON-RPC error and the server goes on:
 * nothing a client sends ends it but `exit` or the end of its input. */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700 /* realpath */
#include "lsp_int.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "pack.h"

/* JSON-RPC and LSP error codes */
enum {
  RPC_PARSE_ERROR = -32700,
  RPC_INVALID_REQUEST = -32600,
  RPC_METHOD_NOT_FOUND = -32601,
  RPC_INVALID_PARAMS = -32602,
  RPC_INTERNAL_ERROR = -32603,
  RPC_NOT_INITIALIZED = -32002,
};

/* The largest message body taken: a rules file is at most 64 MiB (diag_load_file), and its text
 * travels escaped in JSON. */
#define MAX_BODY (160u << 20)
#define MAX_HEADER_LINE 4096

/* ---- transport ---------------------------------------------------------------------------- */

/* Writes MSG, framed, to OUT. */
static void send_json(lsp_server *s, json_t *msg) {
  char *body = json_dumps(msg, JSON_COMPACT);
  if (!body) return; /* never: every string was built by lsp_str */
  fprintf(s->out, "Content-Length: %zu\r\n\r\n%s", strlen(body), body);
  fflush(s->out);
  free(body);
}

static int send_error(lsp_server *s, json_t *id, int code, const char *message) {
  json_t *m = json_pack("{s:s, s:O, s:{s:i, s:o}}", "jsonrpc", "2.0", "id", id ? id : json_null(), "error", "code",
                        code, "message", lsp_str(message));
  send_json(s, m);
  json_decref(m);
  return 0;
}

static int send_result(lsp_server *s, json_t *id, json_t *result) {
  json_t *m = json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id, "result", result ? result : json_null());
  send_json(s, m);
  json_decref(m);
  return 0;
}

static void notify(lsp_server *s, const char *method, json_t *params) {
  json_t *m = json_pack("{s:s, s:s, s:o}", "jsonrpc", "2.0", "method", method, "params", params);
  send_json(s, m);
  json_decref(m);
}

/* Reads one header line into BUF (without its line end); 1, 0 at the end of the input, -1 for a
 * line too long (the rest of it is skipped). */
static int header_line(FILE *in, char *buf, size_t n) {
  size_t k = 0;
  int c, toolong = 0;
  while ((c = getc(in)) != EOF && c != '\n') {
    if (k + 1 < n) buf[k++] = (char)c;
    else toolong = 1;
  }
  if (c == EOF && k == 0) return 0;
  if (k > 0 && buf[k - 1] == '\r') k--;
  buf[k] = 0;
  return toolong ? -1 : 1;
}

/* Reads one message: 1 with its body in *BODY (NUL-terminated, *LEN bytes), 0 at the end of the
 * input, -1 for a malformed header (its reason in WHY; the headers up to the blank line are
 * consumed, and a body is skipped when its length was given). */
static int read_message(FILE *in, char **body, size_t *len, const char **why) {
  char line[MAX_HEADER_LINE];
  long long length = -1;
  int r, nlines = 0;
  *why = NULL;
  while ((r = header_line(in, line, sizeof line)) != 0) {
    if (r < 0) {
      *why = "a header line longer than 4096 bytes";
      continue;
    }
    if (!line[0]) {
      if (nlines == 0) continue; /* blank lines between messages */
      break;
    }
    nlines++;
    char *colon = strchr(line, ':');
    if (!colon) {
      *why = "a header line without ':' (expected 'Content-Length: N')";
      continue;
    }
    *colon = 0;
    if (strcasecmp(line, "Content-Length") != 0) continue; /* Content-Type and others are not needed */
    const char *v = colon + 1;
    while (*v == ' ' || *v == '\t') v++;
    char *end;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    while (*end == ' ' || *end == '\t') end++;
    if (!isdigit((unsigned char)*v) || *end || errno || n < 0) *why = "a Content-Length that is not a number";
    else length = n;
  }
  if (r == 0 && nlines == 0) return 0;
  if (!*why && length < 0) *why = "no Content-Length header";
  if (!*why && length > (long long)MAX_BODY) *why = "a message longer than 160 MiB";
  if (*why) {
    for (long long i = 0; i < length && getc(in) != EOF; i++) {
    }
    return r == 0 && length < 0 ? 0 : -1;
  }
  char *b = malloc((size_t)length + 1);
  if (!b) {
    *why = "out of memory for the message";
    return -1;
  }
  size_t got = fread(b, 1, (size_t)length, in);
  if (got < (size_t)length) { /* the input ended inside the body */
    free(b);
    return 0;
  }
  b[length] = 0;
  *body = b;
  *len = (size_t)length;
  return 1;
}

/* ---- documents ---------------------------------------------------------------------------- */

static lsp_doc *find_doc(lsp_server *s, const char *uri) {
  for (int i = 0; i < s->ndocs; i++)
    if (!strcmp(s->docs[i].uri, uri)) return &s->docs[i];
  return NULL;
}

static void free_strings(char **v, int n) {
  for (int i = 0; i < n; i++) mt_free(v[i]);
  mt_free(v);
}

static void doc_fini(lsp_doc *d) {
  mt_rules_free(d->model);
  mt_free(d->uri);
  mt_free(d->path);
  mt_free(d->text);
  mt_free(d->components);
  free_strings(d->mods, d->nmods);
  free_strings(d->published, d->npublished);
}

static bool is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The pack a file belongs to (docs/editors.md): a file in the rules/, factions/ or variants/ of a
 * directory D is checked with D's pack -- D itself when it holds rules/board.yaml (the standard
 * pack, or another whole game), else D as a mod laid over the standard pack (--pack D) -- and
 * any other file (house rules) against the standard pack.  The server's --pack mods are laid
 * over the standard pack in every case. */
static void doc_pack(lsp_server *s, lsp_doc *d) {
  mt_free(d->components);
  free_strings(d->mods, d->nmods);
  d->components = NULL;
  d->mods = NULL;
  d->nmods = 0;
  char *dir = mt_strdup(d->path);
  char *slash = strrchr(dir, '/');
  char *root = NULL;
  if (slash) {
    *slash = 0;
    char *sub = strrchr(dir, '/');
    if (sub && (!strcmp(sub + 1, "rules") || !strcmp(sub + 1, "factions") || !strcmp(sub + 1, "variants"))) {
      *sub = 0;
      if (!dir[0]) strcpy(dir, "/"); /* the file was /rules/x.rules */
      root = dir;
    }
  }
  if (root && !is_dir(root)) root = NULL; /* an unsaved file of no directory yet: house rules */
  strbuf board = {0};
  if (root) sb_printf(&board, "%s/rules/board.yaml", root);
  char real[PATH_MAX];
  bool whole = root && is_file(board.s);
  bool standard = whole && realpath(root, real) && !strcmp(real, s->components);
  d->components = mt_strdup(whole ? root : s->components);
  if (!whole || standard) {
    d->mods = mt_calloc((size_t)s->npacks + 2, sizeof *d->mods);
    for (int i = 0; i < s->npacks; i++) d->mods[d->nmods++] = mt_strdup(s->packs[i]);
    bool laid = false;
    for (int i = 0; root && !whole && i < s->npacks; i++) {
      char r2[PATH_MAX];
      laid |= realpath(root, real) && realpath(s->packs[i], r2) && !strcmp(real, r2);
    }
    if (root && !whole && !laid) d->mods[d->nmods++] = mt_strdup(root);
  }
  sb_free(&board);
  mt_free(dir);
}

/* ---- diagnostics -------------------------------------------------------------------------- */

typedef struct found {
  int level;
  char *file; /* NULL: in no file */
  unsigned line, col, end_line, end_col;
  char *msg;
} found;

typedef struct found_list {
  found *v;
  int n, cap;
} found_list;

static void collect(void *ud, int level, const mt_where *at, const char *msg) {
  found_list *fl = ud;
  found f = {level, at->file ? mt_strdup(at->file) : NULL, at->line, at->col, at->end_line, at->end_col, mt_strdup(msg)};
  VEC_PUSH(fl->v, fl->n, fl->cap, f);
}

/* The text of FILE as the check saw it: an open document's, a source of MODEL, or the disk's
 * (NULL if none); *OWNED when the caller frees it. */
static const char *text_of(lsp_server *s, const mt_rules *model, const char *file, size_t *len, bool *owned) {
  *owned = false;
  for (int i = 0; i < s->ndocs; i++)
    if (!strcmp(s->docs[i].path, file)) return *len = s->docs[i].len, s->docs[i].text;
  for (int k = 0; model && k < model->nsources; k++)
    if (!strcmp(diag_source_name(model->d, model->source_ids[k]), file))
      return diag_source_text(model->d, model->source_ids[k], len);
  strbuf why = {0};
  char *t = mt_read_file(file, len, &why);
  sb_free(&why);
  *owned = t != NULL;
  return t;
}

/* A diagnostic of F placed in TEXT (NULL: at the columns as given, counted in bytes). */
static json_t *diagnostic(lsp_server *s, const found *f, const char *text, size_t len) {
  json_t *range;
  if (!f->file) {
    range = json_pack("{s:{s:i,s:i}, s:{s:i,s:i}}", "start", "line", 0, "character", 0, "end", "line", 0, "character", 0);
  } else if (text) {
    uint32_t a = lsp_offset(&(lsp_server){.utf8 = true}, text, len, f->line - 1, f->col - 1);
    uint32_t b = lsp_offset(&(lsp_server){.utf8 = true}, text, len, f->end_line - 1, f->end_col - 1);
    range = lsp_range(s, text, len, a, b < a ? a : b);
  } else {
    range = json_pack("{s:{s:i,s:i}, s:{s:i,s:i}}", "start", "line", (json_int_t)f->line - 1, "character",
                      (json_int_t)f->col - 1, "end", "line", (json_int_t)f->end_line - 1, "character",
                      (json_int_t)f->end_col - 1);
  }
  int severity = f->level == 0 ? 1 : f->level == 1 ? 2 : 3;
  return json_pack("{s:o, s:i, s:s, s:o}", "range", range, "severity", severity, "source", "mentat", "message",
                   lsp_str(f->msg));
}

/* Checks D's pack with every open text and publishes the diagnostics of every file they fall in
 * (those of no file on D itself); files that had some from D's last check and have none now are
 * cleared. */
static void check_doc(lsp_server *s, lsp_doc *d) {
  found_list fl = {0};
  mt_source *open = mt_calloc((size_t)s->ndocs + 1, sizeof *open);
  for (int i = 0; i < s->ndocs; i++) open[i] = (mt_source){s->docs[i].path, s->docs[i].text, s->docs[i].len};
  const char *files[] = {d->path};
  mt_load L = {0};
  L.components = d->components;
  L.packs = (const char *const *)d->mods;
  L.npacks = d->nmods;
  L.files = files;
  L.nfiles = 1;
  L.against_pack = 1;
  L.lint = 1;
  L.unsaved = open;
  L.nunsaved = s->ndocs;
  L.message_at = collect;
  L.message_ud = &fl;
  L.keep_on_error = 1;
  L.plain_code = 1; /* superinstructions are for running games: not needed to check */
  mt_rules *model = mt_rules_load(&L);
  mt_free(open);
  mt_rules_free(d->model);
  d->model = model;
  /* one publication per file, D's own always (an empty list clears it) */
  char **uris = mt_calloc((size_t)fl.n + 2, sizeof *uris);
  json_t **lists = mt_calloc((size_t)fl.n + 2, sizeof *lists);
  int nuris = 0;
  uris[nuris] = mt_strdup(d->uri);
  lists[nuris++] = json_array();
  json_t *last = NULL; /* the diagnostic a note belongs to */
  for (int i = 0; i < fl.n; i++) {
    found *f = &fl.v[i];
    char *uri = f->file ? lsp_uri_of(f->file) : mt_strdup(d->uri);
    int k = 0;
    while (k < nuris && strcmp(uris[k], uri)) k++;
    if (k == nuris) uris[nuris] = mt_strdup(uri), lists[nuris++] = json_array();
    size_t len = 0;
    bool owned = false;
    const char *text = f->file ? text_of(s, model, f->file, &len, &owned) : NULL;
    json_t *dj = diagnostic(s, f, text, len);
    if (f->level == 2 && last && f->file) { /* a note: also the related information of what it explains */
      json_t *rel = json_object_get(last, "relatedInformation");
      if (!rel) json_object_set_new(last, "relatedInformation", rel = json_array());
      json_array_append_new(rel, json_pack("{s:{s:s, s:O}, s:O}", "location", "uri", uri, "range",
                                           json_object_get(dj, "range"), "message", json_object_get(dj, "message")));
    }
    if (f->level != 2) last = dj;
    json_array_append_new(lists[k], dj);
    if (owned) mt_free((char *)(uintptr_t)text);
    mt_free(uri);
  }
  for (int i = 0; i < d->npublished; i++) { /* cleared: had diagnostics, has none now */
    int k = 0;
    while (k < nuris && strcmp(uris[k], d->published[i])) k++;
    if (k == nuris) uris[nuris] = mt_strdup(d->published[i]), lists[nuris++] = json_array();
  }
  free_strings(d->published, d->npublished);
  d->published = mt_calloc((size_t)nuris + 1, sizeof *d->published);
  d->npublished = 0;
  for (int k = 0; k < nuris; k++) {
    if (json_array_size(lists[k])) d->published[d->npublished++] = mt_strdup(uris[k]);
    notify(s, "textDocument/publishDiagnostics", json_pack("{s:s, s:o}", "uri", uris[k], "diagnostics", lists[k]));
    mt_free(uris[k]);
  }
  mt_free(uris);
  mt_free(lists);
  for (int i = 0; i < fl.n; i++) mt_free(fl.v[i].file), mt_free(fl.v[i].msg);
  mt_free(fl.v);
}

/* ---- text synchronisation ----------------------------------------------------------------- */

/* Applies one change of didChange: a whole text, or a range replaced.  False if it is malformed. */
static bool apply_change(lsp_server *s, lsp_doc *d, json_t *change) {
  json_t *text = json_object_get(change, "text"), *range = json_object_get(change, "range");
  if (!json_is_string(text)) return false;
  const char *t = json_string_value(text);
  size_t tl = json_string_length(text);
  if (!range) {
    mt_free(d->text);
    d->text = mt_strndup(t, tl);
    d->len = tl;
    return true;
  }
  json_int_t l0, c0, l1, c1;
  if (json_unpack(range, "{s:{s:I, s:I}, s:{s:I, s:I}}", "start", "line", &l0, "character", &c0, "end", "line", &l1,
                  "character", &c1))
    return false;
  uint32_t a = lsp_offset(s, d->text, d->len, l0, c0), b = lsp_offset(s, d->text, d->len, l1, c1);
  if (b < a) return false;
  char *n = mt_alloc(d->len - (b - a) + tl + 1);
  memcpy(n, d->text, a);
  memcpy(n + a, t, tl);
  memcpy(n + a + tl, d->text + b, d->len - b);
  d->len = d->len - (b - a) + tl;
  n[d->len] = 0;
  mt_free(d->text);
  d->text = n;
  return true;
}

/* The document a request's params name ({"textDocument":{"uri":...}}), or NULL. */
static lsp_doc *param_doc(lsp_server *s, json_t *params, const char **uri) {
  *uri = NULL;
  json_t *td = json_object_get(params, "textDocument");
  json_t *u = json_object_get(td, "uri");
  if (!json_is_string(u)) return NULL;
  *uri = json_string_value(u);
  return find_doc(s, *uri);
}

static void did_open(lsp_server *s, json_t *params) {
  const char *uri, *text;
  size_t len;
  if (json_unpack(params, "{s:{s:s, s:s%}}", "textDocument", "uri", &uri, "text", &text, &len)) return;
  char *path = lsp_path_of(uri);
  if (!path) return; /* not a file: nothing to check it against */
  lsp_doc *d = find_doc(s, uri);
  if (!d) {
    VEC_PUSH(s->docs, s->ndocs, s->capdocs, (lsp_doc){0});
    d = &s->docs[s->ndocs - 1];
    d->uri = mt_strdup(uri);
    d->path = path;
    doc_pack(s, d);
  } else {
    mt_free(path);
    mt_free(d->text);
  }
  d->text = mt_strndup(text, len);
  d->len = len;
  check_doc(s, d);
}

static void did_change(lsp_server *s, json_t *params) {
  const char *uri;
  lsp_doc *d = param_doc(s, params, &uri);
  json_t *changes = json_object_get(params, "contentChanges");
  if (!d || !json_is_array(changes)) return;
  size_t i;
  json_t *c;
  json_array_foreach(changes, i, c) if (!apply_change(s, d, c)) break;
  check_doc(s, d);
}

static void did_close(lsp_server *s, json_t *params) {
  const char *uri;
  lsp_doc *d = param_doc(s, params, &uri);
  if (!d) return;
  for (int i = 0; i < d->npublished; i++) /* what is not open shows no diagnostics of ours */
    notify(s, "textDocument/publishDiagnostics", json_pack("{s:s, s:[]}", "uri", d->published[i], "diagnostics"));
  doc_fini(d);
  *d = s->docs[--s->ndocs];
}

/* ---- requests ----------------------------------------------------------------------------- */

/* The answer to initialize: what the server does (no formatting: the language has no one
 * canonical layout), and positions in UTF-8 when the client offers them (no conversion), else in
 * UTF-16 as LSP requires by default. */
static json_t *initialize(lsp_server *s, json_t *params) {
  json_t *encs = json_object_get(json_object_get(json_object_get(params, "capabilities"), "general"), "positionEncodings");
  size_t i;
  json_t *e;
  json_array_foreach(encs, i, e) if (json_is_string(e) && !strcmp(json_string_value(e), "utf-8")) s->utf8 = true;
  s->initialized = true;
  return json_pack("{s:{s:s, s:{s:b, s:i, s:{s:b}}, s:b, s:b, s:b, s:b, s:{s:[s,s,s]}}, s:{s:s, s:s}}",
                   "capabilities", "positionEncoding", s->utf8 ? "utf-8" : "utf-16", "textDocumentSync", "openClose", 1,
                   "change", 2, "save", "includeText", 0, "hoverProvider", 1, "definitionProvider", 1,
                   "referencesProvider", 1, "documentSymbolProvider", 1, "completionProvider", "triggerCharacters",
                   ".", "_", " ", "serverInfo", "name", "mentat", "version", s->version ? s->version : "");
}

/* The position of a request ({"textDocument":..., "position":{"line","character"}}). */
static bool param_pos(json_t *params, json_int_t *line, json_int_t *ch) {
  return json_unpack(params, "{s:{s:I, s:I}}", "position", "line", line, "character", ch) == 0 && *line >= 0 && *ch >= 0;
}

/* Answers request METHOD (ID) or acts on notification METHOD (ID NULL). */
static int dispatch(lsp_server *s, const char *method, json_t *id, json_t *params) {
  if (!strcmp(method, "exit")) {
    s->exited = true;
    return 0;
  }
  if (!strcmp(method, "initialize")) {
    if (!id) return 0;
    if (s->initialized) return send_error(s, id, RPC_INVALID_REQUEST, "initialize was already received");
    if (params && !json_is_object(params)) return send_error(s, id, RPC_INVALID_PARAMS, "initialize: params must be an object");
    return send_result(s, id, initialize(s, params));
  }
  if (!s->initialized) {
    if (id) send_error(s, id, RPC_NOT_INITIALIZED, "the server is not initialized: send initialize first");
    return 0;
  }
  if (s->shutdown) {
    if (id) send_error(s, id, RPC_INVALID_REQUEST, "the server is shut down: only exit is accepted");
    return 0;
  }
  if (!id) { /* notifications */
    if (!strcmp(method, "textDocument/didOpen")) did_open(s, params);
    else if (!strcmp(method, "textDocument/didChange")) did_change(s, params);
    else if (!strcmp(method, "textDocument/didClose")) did_close(s, params);
    /* initialized, didSave (the text is already known), $/cancelRequest (answers are immediate),
     * $/setTrace, workspace/didChangeConfiguration and unknown notifications: nothing to do */
    return 0;
  }
  if (!strcmp(method, "shutdown")) {
    s->shutdown = true;
    return send_result(s, id, NULL);
  }
  static const char *const doc_methods[] = {"textDocument/hover", "textDocument/definition", "textDocument/references",
                                            "textDocument/completion", "textDocument/documentSymbol"};
  int m = -1;
  for (int i = 0; i < 5; i++)
    if (!strcmp(method, doc_methods[i])) m = i;
  if (m < 0) {
    char msg[200];
    snprintf(msg, sizeof msg, "unknown method '%.120s'", method);
    return send_error(s, id, RPC_METHOD_NOT_FOUND, msg);
  }
  const char *uri;
  lsp_doc *d = param_doc(s, params, &uri);
  if (!uri) return send_error(s, id, RPC_INVALID_PARAMS, "params.textDocument.uri is missing");
  if (!d) return send_error(s, id, RPC_INVALID_PARAMS, "the document is not open (send didOpen first)");
  json_int_t line = 0, ch = 0;
  if (m != 4 && !param_pos(params, &line, &ch))
    return send_error(s, id, RPC_INVALID_PARAMS, "params.position needs a line and a character, both integers >= 0");
  json_t *r = NULL;
  switch (m) {
  case 0: r = lsp_hover(s, d, line, ch); break;
  case 1: r = lsp_definition(s, d, line, ch); break;
  case 2: {
    json_t *inc = json_object_get(json_object_get(params, "context"), "includeDeclaration");
    r = lsp_references(s, d, line, ch, inc && json_is_true(inc));
    break;
  }
  case 3: r = lsp_completion(s, d, line, ch); break;
  default: r = lsp_symbols(s, d); break;
  }
  return send_result(s, id, r);
}

/* One message's body: parsed, validated as JSON-RPC 2.0, dispatched. */
static int handle(lsp_server *s, const char *body, size_t len) {
  json_error_t err;
  json_t *msg = json_loadb(body, len, JSON_DECODE_ANY, &err);
  if (!msg) {
    char why[300];
    snprintf(why, sizeof why, "parse error: %s (line %d, column %d)", err.text, err.line, err.column);
    return send_error(s, NULL, RPC_PARSE_ERROR, why);
  }
  json_t *id = json_object_get(msg, "id"), *method = json_object_get(msg, "method");
  json_t *params = json_object_get(msg, "params");
  if (!json_is_object(msg)) {
    send_error(s, NULL, RPC_INVALID_REQUEST, json_is_array(msg) ? "batches are not part of LSP: send one message at a time"
                                                                 : "a message must be a JSON object");
  } else if (id && !json_is_integer(id) && !json_is_string(id) && !json_is_null(id)) {
    send_error(s, NULL, RPC_INVALID_REQUEST, "id must be a number or a string");
  } else if (!method) {
    /* a response to a request of ours (we send none) is ignored; anything else is invalid */
    if (!(id && (json_object_get(msg, "result") || json_object_get(msg, "error"))))
      send_error(s, id, RPC_INVALID_REQUEST, "a request needs a method");
  } else if (!json_is_string(method)) {
    send_error(s, id, RPC_INVALID_REQUEST, "method must be a string");
  } else if (params && !json_is_object(params) && !json_is_array(params)) {
    send_error(s, id, RPC_INVALID_PARAMS, "params must be an object or an array");
  } else {
    dispatch(s, json_string_value(method), id, params);
  }
  json_decref(msg);
  return 0;
}

int lsp_serve(FILE *in, FILE *out, const lsp_options *o) {
  lsp_server s = {0};
  s.in = in;
  s.out = out;
  s.version = o->version;
  char real[PATH_MAX];
  s.components = mt_strdup(realpath(o->components, real) ? real : o->components);
  s.packs = mt_calloc((size_t)o->npacks + 1, sizeof *s.packs);
  for (int i = 0; i < o->npacks; i++) s.packs[s.npacks++] = mt_strdup(realpath(o->packs[i], real) ? real : o->packs[i]);
  while (!s.exited) {
    char *body = NULL;
    size_t len = 0;
    const char *why;
    int r = read_message(in, &body, &len, &why);
    if (r == 0) break;
    if (r < 0) {
      char msg[200];
      snprintf(msg, sizeof msg, "malformed message header: %s", why);
      send_error(&s, NULL, RPC_PARSE_ERROR, msg);
      continue;
    }
    handle(&s, body, len);
    free(body);
  }
  for (int i = 0; i < s.ndocs; i++) doc_fini(&s.docs[i]);
  mt_free(s.docs);
  free_strings(s.packs, s.npacks);
  mt_free(s.components);
  return s.shutdown && s.exited ? 0 : 1;
}
