/* lsp.h -- `mentat lsp`: a language server for the rules language over a pair of streams
 * (LSP 3.17, JSON-RPC 2.0 with Content-Length framing; docs/editors.md). */
#ifndef MENTAT_LSP_H
#define MENTAT_LSP_H

#include <stdio.h>

typedef struct lsp_options {
  const char *components;    /* the standard pack (a directory holding rules/board.yaml) */
  const char *const *packs;  /* mods laid over it for every file (--pack), in order */
  int npacks;
  const char *version;       /* the server's, for initialize's serverInfo */
} lsp_options;

/* Serves the requests read from IN, answering on OUT, until `exit` or the end of IN.  Returns
 * the exit code: 0 after `shutdown` then `exit`, 1 otherwise (LSP 3.17, "exit"). */
int lsp_serve(FILE *in, FILE *out, const lsp_options *o);

#endif
