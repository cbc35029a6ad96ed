/* lex_state.h -- state shared by the flex scanner and the bison parser. */
#ifndef MENTAT_LEX_STATE_H
#define MENTAT_LEX_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "util.h"

struct lex_state {
  arena *arena;
  diag *diag;
  uint32_t file;
  uint32_t off;        /* byte offset of the next token */
  int incomplete;      /* input ended inside a construct */
  int depth;           /* nesting depth guard */
  struct node *root;
  int start_token;     /* returned before the input: selects the expression grammar */
  struct node *expr;   /* the result of an expression-only parse */
};

const char *lex_text(struct lex_state *ls, const char *s, size_t n);
const char *lex_string(struct lex_state *ls, const char *s, size_t n); /* unquotes */
void lex_error(struct lex_state *ls, mt_span at, const char *fmt, ...) MT_PRINTF(3, 4);
_Noreturn void lex_fatal(const char *msg);

#endif
