/* ast.c -- syntax-tree nodes and the parse entry point (stage 2). */
#include "ast.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lex_state.h"
#include "parser.h"
#include "lexer.h"

node *ast_new(arena *a, ast_kind kind, mt_span span) {
  node *n = arena_alloc(a, sizeof *n);
  n->kind = (uint16_t)kind;
  n->span = span;
  n->sym = -1;
  n->slot = -1;
  return n;
}

node *ast_add(arena *a, node *parent, node *kid) {
  if (parent->nkids == parent->capkids) {
    uint32_t cap = parent->capkids ? parent->capkids * 2 : 4;
    node **k = arena_alloc(a, cap * sizeof *k);
    if (parent->nkids) memcpy(k, parent->kids, parent->nkids * sizeof *k);
    parent->kids = k;
    parent->capkids = cap;
  }
  parent->kids[parent->nkids++] = kid;
  return parent;
}

node *ast_kid(const node *n, uint32_t i) { return n && i < n->nkids ? n->kids[i] : NULL; }

mt_span ast_join(mt_span a, mt_span b) {
  mt_span s = a;
  if (b.file == a.file) {
    if (b.start < s.start) s.start = b.start;
    if (b.end > s.end) s.end = b.end;
  }
  return s;
}

const char *ast_kind_name(int kind) {
  static const char *const names[] = {
      "file", "event", "var", "rule", "link", "faction", "card", "variant", "disable", "replace",
      "order", "value", "action", "check", "require", "forbid", "cost", "effect", "is", "verb", "trigger",
      "procedure", "invariant", "body", "param", "type", "block", "let", "set", "if", "for", "break", "signal",
      "run", "may", "act", "secret", "cancel", "log", "finish", "call statement", "integer",
      "boolean", "none", "string", "name", "rule reference", "call", "unary", "binary",
      "conditional", "set literal", "comprehension", "aggregate", "range", "ask", "can", "list"};
  _Static_assert(sizeof names / sizeof *names == AST__COUNT, "ast kind names");
  return kind >= 0 && kind < AST__COUNT ? names[kind] : "?";
}

const char *lex_text(struct lex_state *ls, const char *s, size_t n) { return arena_strndup(ls->arena, s, n); }

/* Strips the quotes and resolves \" \\ \n \t; other escapes keep the character. */
const char *lex_string(struct lex_state *ls, const char *s, size_t n) {
  char *d = arena_alloc(ls->arena, n + 1);
  size_t k = 0;
  size_t end = (n >= 2 && s[n - 1] == '"') ? n - 1 : n;
  for (size_t i = 1; i < end; i++) {
    if (s[i] == '\\' && i + 1 < end) {
      i++;
      d[k++] = s[i] == 'n' ? '\n' : s[i] == 't' ? '\t' : s[i];
    } else {
      d[k++] = s[i];
    }
  }
  d[k] = 0;
  return d;
}

void lex_error(struct lex_state *ls, mt_span at, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_report(ls->diag, DIAG_ERROR, at, fmt, ap);
  va_end(ap);
}

_Noreturn void lex_fatal(const char *msg) {
  fprintf(stderr, "mentat: internal scanner error: %s\n", msg);
  abort();
}

/* Checks that the buffer is valid UTF-8 without NUL bytes; reports the first
 * bad byte.  The lexer itself is byte-based, so this is the one place that
 * rejects binary garbage with a clear message. */
static int check_encoding(struct lex_state *ls, const char *text, size_t len) {
  const unsigned char *s = (const unsigned char *)text;
  for (size_t i = 0; i < len;) {
    unsigned c = s[i];
    size_t need = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 : (c & 0xf8) == 0xf0 ? 3 : 9;
    if (c == 0 || need == 9 || (c >= 0xc0 && c < 0xc2) || c > 0xf4) goto bad;
    for (size_t j = 1; j <= need; j++)
      if (i + j >= len || (s[i + j] & 0xc0) != 0x80) goto bad;
    i += need + 1;
    continue;
  bad:
    lex_error(ls, (mt_span){ls->file, (uint32_t)i, (uint32_t)i + 1},
              c == 0 ? "NUL byte at byte offset %zu: this is not a rules file"
                     : "invalid UTF-8 at byte offset %zu: this is not a rules file",
              i);
    return 0;
  }
  return 1;
}

static node *parse(arena *a, diag *d, uint32_t file, bool *incomplete, int start);

node *ast_parse(arena *a, diag *d, uint32_t file, bool *incomplete) { return parse(a, d, file, incomplete, 0); }

node *ast_parse_expr(arena *a, diag *d, uint32_t file) {
  node *n = parse(a, d, file, NULL, T_START_EXPR);
  return n && n->kind != AST_FILE ? n : NULL;
}

/* Every pass after the parser recurses over the tree, so its depth is bounded
 * here, without recursion.  Returns the first node found deeper than LIMIT. */
#define MT_MAX_TREE_DEPTH 2000
static const node *too_deep(const node *root, int limit) {
  if (!root) return NULL;
  typedef struct { const node *n; int d; } item;
  size_t cap = 256, top = 0;
  item *st = mt_alloc(cap * sizeof *st);
  const node *found = NULL;
  st[top++] = (item){root, 1};
  while (top && !found) {
    item it = st[--top];
    if (it.d > limit) {
      found = it.n;
      break;
    }
    for (uint32_t i = 0; i < it.n->nkids; i++) {
      if (!it.n->kids[i]) continue;
      if (top == cap) st = mt_realloc(st, (cap *= 2) * sizeof *st);
      st[top++] = (item){it.n->kids[i], it.d + 1};
    }
  }
  mt_free(st);
  return found;
}

static node *parse(arena *a, diag *d, uint32_t file, bool *incomplete, int start) {
  size_t len;
  const char *text = diag_source_text(d, file, &len);
  struct lex_state ls = {.arena = a, .diag = d, .file = file, .start_token = start};
  if (incomplete) *incomplete = false;
  if (len > INT32_MAX || !check_encoding(&ls, text, len)) return ast_new(a, AST_FILE, (mt_span){file, 0, 0});
  yyscan_t sc;
  if (mtlex_init_extra(&ls, &sc) != 0) return ast_new(a, AST_FILE, (mt_span){file, 0, 0});
  YY_BUFFER_STATE buf = mt_scan_bytes(text, (int)len, sc);
  mtparse(sc, &ls);
  mt_delete_buffer(buf, sc);
  mtlex_destroy(sc);
  if (incomplete) *incomplete = ls.incomplete != 0;
  const node *deep = too_deep(start ? ls.expr : ls.root, MT_MAX_TREE_DEPTH);
  if (deep) {
    lex_error(&ls, deep->span, "this is nested too deeply (more than %d levels of expressions and statements)",
              MT_MAX_TREE_DEPTH);
    return start ? NULL : ast_new(a, AST_FILE, (mt_span){file, 0, 0});
  }
  if (start) return diag_errors(d) ? NULL : ls.expr;
  return ls.root ? ls.root : ast_new(a, AST_FILE, (mt_span){file, 0, 0});
}
