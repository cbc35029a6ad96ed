/* lsp_int.h -- what the language server's files share: the open documents, positions and the
 * queries (lsp.c: transport, lifecycle, documents, diagnostics; lsp_query.c: hover, definition,
 * references, completion, symbols). */
#ifndef MENTAT_LSP_INT_H
#define MENTAT_LSP_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "game.h"
#include "lsp.h"

/* One open document: its text as the editor has it, and the pack compiled with it. */
typedef struct lsp_doc {
  char *uri, *path;    /* PATH: the absolute file the URI names */
  char *text;
  size_t len;
  mt_rules *model;     /* the pack with this text (and every open text), as last checked; kept with
                          errors (mt_load.keep_on_error); NULL when the pack itself cannot load */
  char *components;    /* the pack it was checked against, and the mods laid over it */
  char **mods;
  int nmods;
  char **published;    /* the URIs this document's check gave diagnostics to last time */
  int npublished;
} lsp_doc;

typedef struct lsp_server {
  FILE *in, *out;
  char *components;    /* absolute */
  char **packs;
  int npacks;
  lsp_doc *docs;
  int ndocs, capdocs;
  bool initialized, shutdown, exited;
  bool utf8;           /* positions count bytes (negotiated), else UTF-16 code units */
  const char *version;
} lsp_server;

/* ---- positions: LSP lines and characters <-> byte offsets of a text ---- */
uint32_t lsp_offset(const lsp_server *s, const char *text, size_t len, json_int_t line, json_int_t ch);
/* {"line","character"} of byte offset OFF */
json_t *lsp_position(const lsp_server *s, const char *text, size_t len, uint32_t off);
/* {"start","end"} of the byte range [START, END) */
json_t *lsp_range(const lsp_server *s, const char *text, size_t len, uint32_t start, uint32_t end);
/* A JSON string of S, any invalid UTF-8 replaced by U+FFFD (jansson takes only valid UTF-8). */
json_t *lsp_str(const char *s);
/* file:// URI of an absolute PATH (percent-encoded), and back (NULL if not a file URI). */
char *lsp_uri_of(const char *path);
char *lsp_path_of(const char *uri);

/* ---- the queries (lsp_query.c): each returns the result member of the answer, or NULL with
 * *ERR set to a JSON-RPC error code and MSG to its message ---- */
json_t *lsp_hover(lsp_server *s, lsp_doc *d, json_int_t line, json_int_t ch);
json_t *lsp_definition(lsp_server *s, lsp_doc *d, json_int_t line, json_int_t ch);
json_t *lsp_references(lsp_server *s, lsp_doc *d, json_int_t line, json_int_t ch, bool decl);
json_t *lsp_completion(lsp_server *s, lsp_doc *d, json_int_t line, json_int_t ch);
json_t *lsp_symbols(lsp_server *s, lsp_doc *d);

#endif
