/* lsp_query.c -- what the language server answers about a checked document: hover, go to
 * definition, find references, completion and the document's symbols.  Every answer comes
 * from the document's model -- the pack compiled with the editor's text (lsp.c) -- and its
 * component data: the rule registry (rule numbers, titles, membership, Karama windows,
 * supersedes/amends both ways, as `mentat explain` says them), the values, actions, events,
 * variables and procedures with their spans, the built-ins with the docs of builtins.def, and
 * the board's territories, factions, cards, leaders and kinds.  Nothing here knows a name of
 * the standard pack. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "explain.h"
#include "lsp_int.h"
#include "pack.h"

/* ---- the name under the cursor ------------------------------------------------------------ */

typedef struct word {
  uint32_t start, end;
  char text[256];
  bool ruleid; /* a rule number (1.02.05, wbc.house.2): dotted */
} word;

static bool word_char(int c) { return isalnum(c) || c == '_' || c == '.' || c == '-'; }
static bool name_char(int c) { return isalnum(c) || c == '_'; }

/* The name or rule number of TEXT at byte OFF (or just before it), as the lexer reads it (a
 * range `0..n` is two words).  False if there is none. */
static bool word_at(const char *t, size_t len, uint32_t off, word *w) {
  if (off > len) off = (uint32_t)len;
  if ((off >= len || !word_char((unsigned char)t[off])) && off > 0 && word_char((unsigned char)t[off - 1])) off--;
  if (off >= len || !word_char((unsigned char)t[off])) return false;
  uint32_t a = off, b = off;
  while (a > 0 && word_char((unsigned char)t[a - 1]) && !(t[a - 1] == '.' && a >= 2 && t[a - 2] == '.')) a--;
  while (b < len && word_char((unsigned char)t[b]) && !(t[b] == '.' && b + 1 < len && t[b + 1] == '.')) b++;
  while (a < b && (t[a] == '.' || t[a] == '-')) a++;
  while (b > a && (t[b - 1] == '.' || t[b - 1] == '-')) b--;
  if (a >= b || off < a || off >= b) return false;
  w->ruleid = memchr(t + a, '.', b - a) != NULL;
  if (!w->ruleid) { /* a name: `-` is an operator between names */
    uint32_t x = off;
    while (x > a && name_char((unsigned char)t[x - 1])) x--;
    a = x;
    x = off;
    while (x < b && name_char((unsigned char)t[x])) x++;
    b = x;
    if (a >= b || isdigit((unsigned char)t[a])) return false; /* a number */
  }
  if (b - a >= sizeof w->text) return false;
  memcpy(w->text, t + a, b - a);
  w->text[b - a] = 0;
  w->start = a;
  w->end = b;
  return true;
}

/* ---- what a name is ----------------------------------------------------------------------- */

typedef enum {
  K_NONE, K_RULE, K_VALUE, K_ACTION, K_EVENT, K_VAR, K_PROC, K_VERB, K_BUILTIN, K_AREA, K_FACTION,
  K_CARD, K_LEADER, K_KIND, K_POOL, K_PILE, K_DECK, K_TAG, K_ENUM, K_ATTR, K_PHASE
} sym_kind;

typedef struct sym {
  sym_kind kind;
  int index, sub; /* sub: an enum's value, an attribute's owner (0 area, 1 faction, 2 card) */
} sym;

static int str_index(char *const *v, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (v[i] && !strcmp(v[i], name)) return i;
  return -1;
}

/* What NAME means in R: the first of the rules' own names (rule numbers, values, actions,
 * events, variables, procedures, verbs, phase and step names), the built-ins, then the
 * component data's. */
static sym lookup(const mt_rules *r, const char *name, bool ruleid) {
  const program *p = &r->prog;
  const board_def *def = r->def;
  int k;
  if (ruleid || isdigit((unsigned char)name[0])) {
    k = sema_find_rule(p, name);
    return (sym){k >= 0 ? K_RULE : K_NONE, k, 0};
  }
#define FIND(arr, n, field, kind)                                                                                      \
  for (int i = 0; i < (n); i++)                                                                                        \
    if ((arr)[i].field && !strcmp((arr)[i].field, name)) return (sym){kind, i, 0};
  FIND(p->values, p->nvalues, name, K_VALUE)
  FIND(p->actions, p->nactions, name, K_ACTION)
  FIND(p->events, p->nevents, name, K_EVENT)
  FIND(p->procs, p->nprocs, name, K_PROC)
  FIND(p->verbs, p->nverbs, name, K_VERB)
  FIND(p->vars, p->nvars, name, K_VAR)
  FIND(p->rules, p->nrules, name, K_PHASE)
  for (int i = 0; i < sema_nbuiltins; i++)
    if (!strcmp(sema_builtins[i].name, name)) return (sym){K_BUILTIN, i, 0};
  if (!def) return (sym){K_NONE, -1, 0};
  FIND(def->areas, def->nareas, id, K_AREA)
  FIND(def->factions, def->nfactions, id, K_FACTION)
  FIND(def->cards, def->ncards, id, K_CARD)
  FIND(def->leaders, def->nleaders, id, K_LEADER)
  FIND(def->pools, def->npools, name, K_POOL)
  FIND(def->piles, def->npiles, name, K_PILE)
  FIND(def->decks, def->ndecks, name, K_DECK)
#undef FIND
  if ((k = str_index(def->kinds, def->nkinds, name)) >= 0) return (sym){K_KIND, k, 0};
  if ((k = str_index(def->tags, def->ntags, name)) >= 0) return (sym){K_TAG, k, 0};
  const board_attr *attrs[3] = {def->area_attrs, def->faction_attrs, def->card_attrs};
  int nattrs[3] = {def->narea_attrs, def->nfaction_attrs, def->ncard_attrs};
  for (int o = 0; o < 3; o++)
    for (int i = 0; i < nattrs[o]; i++)
      if (!strcmp(attrs[o][i].name, name)) return (sym){K_ATTR, i, o};
  for (int e = 0; e < p->nenums; e++)
    if ((k = str_index(p->enums[e].values, p->enums[e].nvalues, name)) >= 0) return (sym){K_ENUM, e, k};
  return (sym){K_NONE, -1, 0};
}

/* ---- places --------------------------------------------------------------------------------- */

/* A Location of SPAN in the model's sources. */
static json_t *location(const lsp_server *s, const mt_rules *r, mt_span sp) {
  if (sp.file == DIAG_NOFILE || sp.file >= diag_nsources(r->d)) return NULL;
  size_t len;
  const char *text = diag_source_text(r->d, sp.file, &len);
  char *uri = lsp_uri_of(diag_source_name(r->d, sp.file));
  json_t *l = json_pack("{s:s, s:o}", "uri", uri, "range", lsp_range(s, text, len, sp.start, sp.end));
  mt_free(uri);
  return l;
}

/* FILE relative to the pack's directory when it lies inside it, for messages. */
static const char *short_name(const lsp_doc *d, const char *file) {
  size_t n = strlen(d->components);
  return !strncmp(file, d->components, n) && file[n] == '/' ? file + n + 1 : file;
}

/* "FILE:LINE" of SPAN. */
static void where(const lsp_doc *d, const mt_rules *r, mt_span sp, strbuf *b) {
  if (sp.file == DIAG_NOFILE || sp.file >= diag_nsources(r->d)) return;
  uint32_t line, col;
  diag_linecol(r->d, sp.file, sp.start, &line, &col);
  sb_printf(b, "%s:%u", short_name(d, diag_source_name(r->d, sp.file)), line);
}

/* The spans that declare a symbol of the rules (a value: each definition); how many. */
static int decl_spans(const mt_rules *r, sym x, mt_span *out, int cap) {
  const program *p = &r->prog;
  int n = 0;
  switch (x.kind) {
  case K_RULE: case K_PHASE: out[n++] = p->rules[x.index].span; break;
  case K_VALUE:
    for (int i = 0; i < p->values[x.index].ndefs && n < cap; i++)
      if (p->values[x.index].defs[i].ast) out[n++] = p->values[x.index].defs[i].ast->span;
    if (!n) out[n++] = p->values[x.index].span;
    break;
  case K_ACTION: out[n++] = p->actions[x.index].span; break;
  case K_EVENT: out[n++] = p->events[x.index].span; break;
  case K_VAR: if (!p->vars[x.index].data) out[n++] = p->vars[x.index].span; break;
  case K_PROC: if (p->procs[x.index].ast) out[n++] = p->procs[x.index].ast->span; break;
  case K_VERB: if (p->verbs[x.index].ast) out[n++] = p->verbs[x.index].ast->span; break;
  default: break;
  }
  return n;
}

/* The files of D's component data, in the order a name is looked for in them: the board, the
 * decks and their additions, then the faction sheets (FIRST, if given, before them). */
static int data_files(const lsp_doc *d, const char *first, char **out, int cap) {
  pack_files pf;
  diag *dg = diag_new(NULL, NULL);
  int n = 0;
  if (pack_layer(d->components, (const char *const *)d->mods, d->nmods, &pf, dg) == 0) {
    for (size_t i = 0; first && i < pf.nyaml && n < cap; i++) {
      const char *b = strrchr(pf.yaml[i], '/');
      b = b ? b + 1 : pf.yaml[i];
      if (!strncmp(b, first, strlen(first)) && !strcmp(b + strlen(first), ".yaml")) out[n++] = mt_strdup(pf.yaml[i]);
    }
    if (pf.board && n < cap) out[n++] = mt_strdup(pf.board);
    if (pf.decks && n < cap) out[n++] = mt_strdup(pf.decks);
    for (size_t i = 0; i < pf.ndecks_add && n < cap; i++) out[n++] = mt_strdup(pf.decks_add[i]);
    for (size_t i = 0; i < pf.nyaml && n < cap; i++) out[n++] = mt_strdup(pf.yaml[i]);
  }
  pack_files_fini(&pf);
  diag_free(dg);
  return n;
}

/* Where NAME is declared in the component data: the first `NAME:` key of the files, else its
 * first mention outside a comment (the YAML loader keeps no positions: the data is looked up
 * as a reader would).  A Location, or NULL. */
static json_t *data_location(const lsp_server *s, const lsp_doc *d, const char *name, const char *first) {
  char *files[64];
  int nf = data_files(d, first, files, 64);
  size_t nl = strlen(name);
  json_t *loc = NULL;
  for (int pass = 0; pass < 2 && !loc; pass++)
    for (int f = 0; f < nf && !loc; f++) {
      size_t len;
      strbuf why = {0};
      char *t = mt_read_file(files[f], &len, &why);
      sb_free(&why);
      if (!t) continue;
      bool comment = false;
      for (size_t i = 0; i + nl <= len && !loc; i++) {
        if (t[i] == '\n') comment = false;
        if (t[i] == '#') comment = true;
        if (comment || memcmp(t + i, name, nl) || (i > 0 && name_char((unsigned char)t[i - 1])) ||
            (i + nl < len && name_char((unsigned char)t[i + nl])))
          continue;
        size_t j = i + nl;
        while (j < len && t[j] == ' ') j++;
        if (pass == 0 && (j >= len || t[j] != ':')) continue;
        char *uri = lsp_uri_of(files[f]);
        loc = json_pack("{s:s, s:o}", "uri", uri, "range", lsp_range(s, t, len, (uint32_t)i, (uint32_t)(i + nl)));
        mt_free(uri);
      }
      mt_free(t);
    }
  for (int f = 0; f < nf; f++) mt_free(files[f]);
  return loc;
}

/* ---- hover ---------------------------------------------------------------------------------- */

static void type_name(int ty, char *buf, size_t n) {
  if (ty == TY_SETBIT) snprintf(buf, n, "set");
  else sema_type_name(ty, buf, n);
}

/* "(p: type, ...)" of a declaration's parameters. */
static void params(strbuf *b, int n, const int *ty, const char *const *names) {
  sb_putc(b, '(');
  for (int i = 0; i < n; i++) {
    char t[64];
    type_name(ty[i], t, sizeof t);
    sb_printf(b, "%s%s%s%s", i ? ", " : "", names && names[i] ? names[i] : "", names && names[i] ? ": " : "", t);
  }
  sb_putc(b, ')');
}

/* "rule N *title*" of rule K, and where it is. */
static void rule_ref(const lsp_doc *d, const mt_rules *r, int k, strbuf *b) {
  const rule_rec *rr = &r->prog.rules[k];
  sb_printf(b, "rule %s", rr->id);
  if (rr->title && rr->title[0]) sb_printf(b, " \"%s\"", rr->title);
  sb_puts(b, " (");
  where(d, r, rr->span, b);
  sb_puts(b, ")");
}

static void hover_text(const lsp_doc *d, const mt_rules *r, sym x, const char *name, strbuf *b) {
  const program *p = &r->prog;
  const board_def *def = r->def;
  char t[64];
  switch (x.kind) {
  case K_RULE: case K_PHASE: {
    strbuf e = {0};
    explain_rule(r, p->rules[x.index].id, false, false, &e);
    sb_puts(b, "```text\n");
    size_t n = strlen(d->components); /* files of the pack named inside it, as `explain` run there does */
    for (const char *q = e.s ? e.s : ""; *q;) {
      const char *hit = strstr(q, d->components);
      if (!hit || hit[n] != '/') {
        sb_puts(b, q);
        break;
      }
      sb_putn(b, q, (size_t)(hit - q));
      q = hit + n + 1;
    }
    sb_puts(b, "```");
    sb_free(&e);
    return;
  }
  case K_VALUE: {
    const value_rec *v = &p->values[x.index];
    sb_printf(b, "```mentat\nvalue %s", v->name);
    params(b, v->nparams, v->ptype, v->pname);
    type_name(v->ret, t, sizeof t);
    sb_printf(b, ": %s\n```\n", t);
    if (v->base_rule >= 0) sb_puts(b, "declared by "), rule_ref(d, r, v->base_rule, b), sb_putc(b, '\n');
    for (int i = 0; i < v->ndefs; i++)
      if (v->defs[i].rule >= 0 && v->defs[i].rule != v->base_rule)
        sb_puts(b, "\ndefined again by "), rule_ref(d, r, v->defs[i].rule, b), sb_putc(b, '\n');
    return;
  }
  case K_ACTION: {
    const action_rec *a = &p->actions[x.index];
    sb_printf(b, "```mentat\naction %s", a->name);
    params(b, a->nparams, a->ptype, a->pname);
    sb_puts(b, "\n```\n");
    for (int i = 0; i < a->nkinds; i++) sb_printf(b, "%s%s", i ? ", " : "is ", a->kinds[i]);
    if (a->nkinds) sb_puts(b, "\n\n");
    if (a->rule >= 0) sb_puts(b, "declared by "), rule_ref(d, r, a->rule, b);
    return;
  }
  case K_EVENT: {
    const event_rec *e = &p->events[x.index];
    sb_printf(b, "```mentat\nevent %s", e->name);
    params(b, e->nparams, e->ptype, e->pname);
    sb_puts(b, "\n```\ndeclared at ");
    where(d, r, e->span, b);
    return;
  }
  case K_VAR: {
    const var_rec *v = &p->vars[x.index];
    type_name(v->type, t, sizeof t);
    sb_printf(b, "```mentat\n%svar %s", v->secret ? "secret " : "", v->name);
    if (v->nparams) params(b, v->nparams, v->ptype, NULL);
    sb_printf(b, ": %s\n```\n", t);
    if (v->data) sb_puts(b, "a variable of the component data (rules/board.yaml, `variables`)");
    else sb_puts(b, "declared at "), where(d, r, v->span, b);
    return;
  }
  case K_PROC: {
    const proc_rec *q = &p->procs[x.index];
    sb_printf(b, "```mentat\nprocedure %s", q->name);
    params(b, q->nparams, q->ptype, NULL);
    sb_puts(b, "\n```\n");
    if (q->rule >= 0) sb_puts(b, "declared by "), rule_ref(d, r, q->rule, b);
    return;
  }
  case K_VERB: {
    const verb_rec *v = &p->verbs[x.index];
    if (v->alias) {
      sb_printf(b, "```mentat\nverb %s = %s\n```\n", v->name, v->alias);
      if (v->rule >= 0) sb_puts(b, "declared by "), rule_ref(d, r, v->rule, b);
      return;
    }
    sb_printf(b, "```mentat\nverb %s", v->name);
    params(b, v->nparams, v->ptype, v->pname);
    sb_printf(b, " = %s(...)\n```\n", v->action >= 0 && v->action < p->nactions ? p->actions[v->action].name : "?");
    if (v->rule >= 0) sb_puts(b, "declared by "), rule_ref(d, r, v->rule, b);
    return;
  }
  case K_BUILTIN: {
    const builtin_info *bi = &sema_builtins[x.index];
    sb_printf(b, "```mentat\n%s", bi->name);
    params(b, bi->nargs, bi->args, NULL);
    type_name(bi->ret, t, sizeof t);
    sb_printf(b, ": %s\n```\nbuilt-in%s: %s", bi->ret == TY_VOID ? "" : t, bi->effect ? " (an effect: statements only)" : "",
              bi->doc);
    if (bi->ret == TY_VOID) { /* no result: not ": void" in the signature */
      char *nl = strstr(b->s, ": \n```");
      if (nl) memmove(nl, nl + 2, strlen(nl + 2) + 1), b->n -= 2;
    }
    return;
  }
  case K_AREA: {
    const board_area *a = &def->areas[x.index];
    sb_printf(b, "**territory** `%s`: %s\n\n", a->id, a->name ? a->name : "");
    int ns = 0;
    for (int i = 0; i < def->ntags; i++)
      if (a->tags & (1u << i)) sb_printf(b, "%s%s", ns++ ? ", " : "tags: ", def->tags[i]);
    if (ns) sb_puts(b, "; ");
    ns = 0;
    for (int i = 0; i < def->nsectors && i < 32; i++)
      if (a->sectors & (1u << i)) sb_printf(b, "%s%d", ns++ ? ", " : "sectors: ", i + 1);
    if (!ns) sb_puts(b, "in no sector");
    sb_puts(b, "\n\ndeclared in the board data (rules/board.yaml)");
    return;
  }
  case K_FACTION: {
    const board_faction *f = &def->factions[x.index];
    sb_printf(b, "**faction** `%s`: %s\n\n%d leaders; its sheet: factions/%s.yaml, its abilities: factions/%s.rules", f->id,
              f->name ? f->name : "", f->nleaders, f->id, f->id);
    return;
  }
  case K_CARD: {
    const board_card *c = &def->cards[x.index];
    sb_printf(b, "**card** `%s`: %s\n\n%d in the %s deck", c->id, c->name ? c->name : "", c->ninstances ? c->ninstances : 1,
              c->deck >= 0 && c->deck < def->ndecks ? def->decks[c->deck].name : "?");
    if (c->faction >= 0) sb_printf(b, " (only when %s plays)", def->factions[c->faction].id);
    return;
  }
  case K_LEADER: {
    const board_leader *l = &def->leaders[x.index];
    sb_printf(b, "**leader** `%s`: %s, strength %d, of %s", l->id, l->name ? l->name : "", l->strength,
              l->faction >= 0 ? def->factions[l->faction].id : "?");
    return;
  }
  default: break;
  }
  static const char *const what[] = {[K_KIND] = "token kind", [K_POOL] = "pool", [K_PILE] = "pile", [K_DECK] = "deck",
                                     [K_TAG] = "territory tag", [K_ENUM] = "value of", [K_ATTR] = "attribute of"};
  static const char *const owners[] = {"territories", "factions", "cards"};
  sb_printf(b, "**%s**", what[x.kind]);
  if (x.kind == K_ENUM) sb_printf(b, " `%s`", p->enums[x.index].name);
  if (x.kind == K_ATTR) sb_printf(b, " %s", owners[x.sub]);
  sb_printf(b, ": `%s`\n\nfrom the component data", name);
}

json_t *lsp_hover(lsp_server *s, lsp_doc *d, json_int_t line, json_int_t ch) {
  word w;
  if (!d->model || !word_at(d->text, d->len, lsp_offset(s, d->text, d->len, line, ch), &w)) return NULL;
  sym x = lookup(d->model, w.text, w.ruleid);
  strbuf b = {0};
  if (x.kind != K_NONE) {
    hover_text(d, d->model, x, w.text, &b);
  } else if (w.ruleid) { /* explain's answer: no such rule, and the nearest number */
    strbuf e = {0};
    explain_rule(d->model, w.text, false, false, &e);
    sb_printf(&b, "%s", e.s ? e.s : "");
    sb_free(&e);
  } else {
#define KW(k) if (!strcmp(w.text, k)) sb_printf(&b, "`%s`: a keyword of the rules language (docs/language.md)", k);
#include "keywords.h"
#undef KW
  }
  if (!b.s) return NULL;
  json_t *h = json_pack("{s:{s:s, s:o}, s:o}", "contents", "kind", "markdown", "value", lsp_str(b.s), "range",
                        lsp_range(s, d->text, d->len, w.start, w.end));
  sb_free(&b);
  return h;
}

/* ---- definition and references ------------------------------------------------------------ */

json_t *lsp_definition(lsp_server *s, lsp_doc *d, json_int_t line, json_int_t ch) {
  word w;
  if (!d->model || !word_at(d->text, d->len, lsp_offset(s, d->text, d->len, line, ch), &w)) return NULL;
  sym x = lookup(d->model, w.text, w.ruleid);
  mt_span sp[64];
  int n = decl_spans(d->model, x, sp, 64);
  json_t *out = json_array();
  for (int i = 0; i < n; i++) {
    json_t *l = location(s, d->model, sp[i]);
    if (l) json_array_append_new(out, l);
  }
  if (!n && x.kind >= K_AREA) { /* the component data */
    const board_def *def = d->model->def;
    int lf = x.kind == K_LEADER ? def->leaders[x.index].faction : -1;
    const char *first = x.kind == K_FACTION ? w.text : lf >= 0 ? def->factions[lf].id : NULL;
    json_t *l = data_location(s, d, w.text, first);
    if (l) json_array_append_new(out, l);
  }
  if (!n && x.kind == K_VAR) {
    json_t *l = data_location(s, d, w.text, NULL);
    if (l) json_array_append_new(out, l);
  }
  if (json_array_size(out)) return out;
  json_decref(out);
  return NULL;
}

typedef void (*token_fn)(void *ud, uint32_t start, uint32_t end);

/* Calls FN on every name and rule number of TEXT outside comments and string literals, the
 * `{expressions}` inside a string included (the lexer's reading, without its tables). */
static void scan_tokens(const char *t, size_t n, token_fn fn, void *ud) {
  int depth = -1; /* >= 0: inside a string's hole, at that brace depth */
  bool str = false;
  for (size_t i = 0; i < n;) {
    char c = t[i];
    if (str) {
      if (c == '\\' && i + 1 < n) i += 2;
      else if (c == '"' || c == '\n') str = false, i++;
      else if (c == '{') str = false, depth = 0, i++;
      else i++;
      continue;
    }
    if (c == '#') {
      while (i < n && t[i] != '\n') i++;
    } else if (c == '"') {
      str = true, i++;
    } else if (depth >= 0 && c == '{') {
      depth++, i++;
    } else if (depth >= 0 && c == '}') {
      if (depth-- == 0) str = true;
      i++;
    } else if (name_char((unsigned char)c)) {
      size_t a = i;
      while (i < n && name_char((unsigned char)t[i])) i++;
      while (i + 1 < n && t[i] == '.' && name_char((unsigned char)t[i + 1]))
        for (i++; i < n && (name_char((unsigned char)t[i]) || t[i] == '-'); i++) {
        }
      fn(ud, (uint32_t)a, (uint32_t)i);
    } else {
      i++;
    }
  }
}

typedef struct ref_search {
  const lsp_server *s;
  const char *text, *name;
  size_t len, nlen;
  char *uri;
  json_t *out;
  uint32_t skip_from, skip_to; /* the declaration's token, when not asked for: the first within */
  bool skipping;
} ref_search;

static void ref_token(void *ud, uint32_t a, uint32_t b) {
  ref_search *q = ud;
  if (b - a != q->nlen || memcmp(q->text + a, q->name, q->nlen)) return;
  if (q->skipping && a >= q->skip_from && b <= q->skip_to) {
    q->skipping = false;
    return;
  }
  json_array_append_new(q->out, json_pack("{s:s, s:o}", "uri", q->uri, "range", lsp_range(q->s, q->text, q->len, a, b)));
}

json_t *lsp_references(lsp_server *s, lsp_doc *d, json_int_t line, json_int_t ch, bool decl) {
  word w;
  if (!d->model || !word_at(d->text, d->len, lsp_offset(s, d->text, d->len, line, ch), &w)) return NULL;
  const mt_rules *r = d->model;
  sym x = lookup(r, w.text, w.ruleid);
  mt_span sp[64];
  int nsp = decl_spans(r, x, sp, 64);
  json_t *out = json_array();
  for (int k = 0; k < r->nsources; k++) { /* every source of the pack, variants included */
    uint32_t f = r->source_ids[k];
    /* a name the pack does not declare (a parameter, a `let`): this document's mentions only */
    if (x.kind == K_NONE && !w.ruleid && strcmp(diag_source_name(r->d, f), d->path)) continue;
    ref_search q = {s, NULL, w.text, 0, strlen(w.text), lsp_uri_of(diag_source_name(r->d, f)), out, 0, 0, false};
    q.text = diag_source_text(r->d, f, &q.len);
    for (int i = 0; i < nsp && !decl; i++)
      if (sp[i].file == f) q.skip_from = sp[i].start, q.skip_to = sp[i].end, q.skipping = true;
    scan_tokens(q.text, q.len, ref_token, &q);
    mt_free(q.uri);
  }
  return out;
}

/* ---- completion ----------------------------------------------------------------------------- */

static mt_span extent(const node *n);

typedef struct completer {
  const char *prefix;
  size_t plen;
  json_t *items, *range;
  const char **seen; /* labels given, an open-addressing set (by label and kind: a card and a keyword
                        may share a name) */
  int *seen_kind;
  size_t cap;
} completer;

static uint64_t fnv(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

/* LSP CompletionItemKind */
enum { CI_METHOD = 2, CI_FUNCTION = 3, CI_VARIABLE = 6, CI_MODULE = 9, CI_KEYWORD = 14, CI_REFERENCE = 18,
       CI_ENUM_MEMBER = 20, CI_CONSTANT = 21, CI_EVENT = 23 };

/* One completion item, if LABEL starts with the prefix typed and was not offered with KIND
 * already; the prefix is replaced by it (textEdit: a rule number's dots are no word boundary). */
static void offer(completer *c, const char *label, int kind, const char *detail) {
  if (!label || strncmp(label, c->prefix, c->plen)) return;
  size_t h = (size_t)(fnv(label) + (uint64_t)kind) & (c->cap - 1);
  while (c->seen[h]) {
    if (c->seen_kind[h] == kind && !strcmp(c->seen[h], label)) return;
    h = (h + 1) & (c->cap - 1);
  }
  c->seen[h] = label;
  c->seen_kind[h] = kind;
  json_array_append_new(c->items, json_pack("{s:o, s:i, s:o, s:{s:O, s:o}}", "label", lsp_str(label), "kind", kind, "detail",
                                            lsp_str(detail ? detail : ""), "textEdit", "range", c->range, "newText",
                                            lsp_str(label)));
}

/* Every rule number with its title (NAMES: a phase's or step's name instead, where it has one,
 * for `run`). */
static void offer_rules(completer *c, const program *p, bool names) {
  for (int i = 0; i < p->nrules; i++) {
    const rule_rec *rr = &p->rules[i];
    char detail[300];
    snprintf(detail, sizeof detail, "rule: %s%s", rr->title ? rr->title : "", rr->disabled ? " (not in force)" : "");
    offer(c, names && rr->name ? rr->name : rr->id, CI_REFERENCE, detail);
  }
}

/* The word before byte A of TEXT, rule numbers and commas skipped over (a `supersedes 1.01,
 * 1.02` list), into W. */
static void keyword_before(const char *t, uint32_t a, char *w, size_t n) {
  w[0] = 0;
  for (;;) {
    while (a > 0 && (isspace((unsigned char)t[a - 1]) || t[a - 1] == ',')) a--;
    uint32_t e = a;
    while (a > 0 && word_char((unsigned char)t[a - 1])) a--;
    if (a == e) return;
    if (memchr(t + a, '.', e - a)) continue; /* a rule number of the list */
    if (e - a < n) memcpy(w, t + a, e - a), w[e - a] = 0;
    return;
  }
}

/* Every name of the rules, the built-ins and the component data, with what it is. */
static void offer_names(completer *c, const mt_rules *r) {
  const program *p = &r->prog;
  const board_def *def = r->def;
  char detail[300], t[64];
  for (int i = 0; i < p->nvalues; i++) {
    type_name(p->values[i].ret, t, sizeof t);
    snprintf(detail, sizeof detail, "value: %s (rule %s)", t, p->values[i].base_rule >= 0 ? p->rules[p->values[i].base_rule].id : "?");
    offer(c, p->values[i].name, CI_FUNCTION, detail);
  }
  for (int i = 0; i < p->nactions; i++) {
    snprintf(detail, sizeof detail, "action (rule %s)", p->actions[i].rule >= 0 ? p->rules[p->actions[i].rule].id : "?");
    offer(c, p->actions[i].name, CI_METHOD, detail);
  }
  for (int i = 0; i < p->nactions; i++) /* the kinds of action (`is K`, `act f: any K`) */
    for (int k = 0; k < p->actions[i].nkinds; k++) offer(c, p->actions[i].kinds[k], CI_CONSTANT, "kind of action");
  for (int i = 0; i < p->nevents; i++) offer(c, p->events[i].name, CI_EVENT, "event");
  for (int i = 0; i < p->nprocs; i++) offer(c, p->procs[i].name, CI_FUNCTION, "procedure");
  for (int i = 0; i < p->nverbs; i++) offer(c, p->verbs[i].name, CI_METHOD, "verb");
  for (int i = 0; i < p->nvars; i++) {
    type_name(p->vars[i].type, t, sizeof t);
    snprintf(detail, sizeof detail, "%s: %s", p->vars[i].data ? "data variable" : "variable", t);
    offer(c, p->vars[i].name, CI_VARIABLE, detail);
  }
  for (int i = 0; i < sema_nbuiltins; i++) {
    strbuf b = {0};
    sb_printf(&b, "built-in %s", sema_builtins[i].name);
    params(&b, sema_builtins[i].nargs, sema_builtins[i].args, NULL);
    sb_printf(&b, ": %s", sema_builtins[i].doc);
    offer(c, sema_builtins[i].name, CI_FUNCTION, b.s);
    sb_free(&b);
  }
  for (int i = 0; def && i < def->nareas; i++) {
    snprintf(detail, sizeof detail, "territory: %s", def->areas[i].name ? def->areas[i].name : "");
    offer(c, def->areas[i].id, CI_ENUM_MEMBER, detail);
  }
  for (int i = 0; def && i < def->nfactions; i++) {
    snprintf(detail, sizeof detail, "faction: %s", def->factions[i].name ? def->factions[i].name : "");
    offer(c, def->factions[i].id, CI_ENUM_MEMBER, detail);
  }
  for (int i = 0; def && i < def->ncards; i++) {
    snprintf(detail, sizeof detail, "card: %s", def->cards[i].name ? def->cards[i].name : "");
    offer(c, def->cards[i].id, CI_ENUM_MEMBER, detail);
  }
  for (int i = 0; def && i < def->nleaders; i++) {
    snprintf(detail, sizeof detail, "leader: %s (%s)", def->leaders[i].name ? def->leaders[i].name : "",
             def->leaders[i].faction >= 0 ? def->factions[def->leaders[i].faction].id : "?");
    offer(c, def->leaders[i].id, CI_ENUM_MEMBER, detail);
  }
  for (int i = 0; def && i < def->nkinds; i++) offer(c, def->kinds[i], CI_CONSTANT, "token kind");
  for (int i = 0; def && i < def->npools; i++) offer(c, def->pools[i].name, CI_CONSTANT, "pool");
  for (int i = 0; def && i < def->npiles; i++) offer(c, def->piles[i].name, CI_CONSTANT, "pile");
  for (int i = 0; def && i < def->ndecks; i++) offer(c, def->decks[i].name, CI_CONSTANT, "deck");
  for (int i = 0; def && i < def->ntags; i++) offer(c, def->tags[i], CI_CONSTANT, "territory tag");
  for (int e = 0; e < p->nenums; e++)
    for (int i = 0; i < p->enums[e].nvalues; i++) {
      snprintf(detail, sizeof detail, "value of %s", p->enums[e].name);
      offer(c, p->enums[e].values[i], CI_ENUM_MEMBER, detail);
    }
  const board_attr *attrs[3] = {def ? def->area_attrs : NULL, def ? def->faction_attrs : NULL, def ? def->card_attrs : NULL};
  int nattrs[3] = {def ? def->narea_attrs : 0, def ? def->nfaction_attrs : 0, def ? def->ncard_attrs : 0};
  static const char *const owners[] = {"attribute of territories", "attribute of factions", "attribute of cards"};
  for (int o = 0; o < 3; o++)
    for (int i = 0; i < nattrs[o]; i++) offer(c, attrs[o][i].name, CI_CONSTANT, owners[o]);
}

/* The local names in scope at byte OFF of the tree N: the parameters of the value, action,
 * procedure or verb around it, the binders of the trigger or check around it, the loop and
 * aggregate variables around it, and the `let`s before it in the blocks around it. */
static void offer_locals(completer *c, const node *n, uint32_t off) {
  if (!n) return;
  mt_span sp = extent(n);
  if (off < sp.start || off > sp.end) return;
  switch (n->kind) {
  case AST_VALUE: case AST_ACTION: case AST_PROC: case AST_VERB: case AST_TRIGGER: case AST_CHECK: {
    const node *ps = ast_kid(n, 0);
    for (uint32_t i = 0; ps && i < ps->nkids; i++) {
      const node *q = ps->kids[i];
      if (q && q->name && (q->kind == AST_PARAM || ((n->kind == AST_TRIGGER || n->kind == AST_CHECK) && q->kind == AST_NAME)))
        offer(c, q->name, CI_VARIABLE, "parameter");
    }
    break;
  }
  case AST_FOR: case AST_AGGREGATE: case AST_COMPREHENSION: case AST_SECRET:
    if (n->name) offer(c, n->name, CI_VARIABLE, "loop variable");
    break;
  case AST_BLOCK:
    for (uint32_t i = 0; i < n->nkids; i++)
      if (n->kids[i] && n->kids[i]->kind == AST_LET && n->kids[i]->span.start < off && n->kids[i]->name)
        offer(c, n->kids[i]->name, CI_VARIABLE, "local (let)");
    break;
  default: break;
  }
  for (uint32_t i = 0; i < n->nkids; i++) offer_locals(c, n->kids[i], off);
}

/* Offers the locals at OFF in TEXT[0..LEN) parsed alone. */
static void offer_locals_of(completer *c, const char *path, const char *text, size_t len, uint32_t off) {
  diag *dg = diag_new(NULL, NULL);
  arena ar = {0};
  offer_locals(c, ast_parse(&ar, dg, diag_add_source(dg, path, text, len), NULL), off);
  arena_free(&ar);
  diag_free(dg);
}

/* While a line is being typed the text rarely parses, and a construct that does not parse leaves
 * no tree: the text up to the word being completed (at A), a placeholder name for it, and the
 * brackets still open closed in turn, parses as far as the cursor. */
static void offer_locals_typing(completer *c, const lsp_doc *d, uint32_t a) {
  char open[256];
  int n = 0;
  bool str = false;
  for (uint32_t i = 0; i < a; i++) {
    char ch = d->text[i];
    if (str) {
      if (ch == '\\') i++;
      else if (ch == '"' || ch == '\n') str = false;
    } else if (ch == '#') {
      while (i + 1 < a && d->text[i + 1] != '\n') i++;
    } else if (ch == '"') {
      str = true;
    } else if ((ch == '(' || ch == '{' || ch == '[') && n < 256) {
      open[n++] = ch;
    } else if ((ch == ')' || ch == '}' || ch == ']') && n > 0) {
      n--;
    }
  }
  strbuf t = {0};
  sb_putn(&t, d->text, a);
  sb_puts(&t, " x ");
  while (n > 0) sb_puts(&t, open[--n] == '(' ? ")" : open[n] == '[' ? "]" : "\n}");
  offer_locals_of(c, d->path, t.s, t.n, a + 1);
  sb_free(&t);
}

json_t *lsp_completion(lsp_server *s, lsp_doc *d, json_int_t line, json_int_t ch) {
  uint32_t off = lsp_offset(s, d->text, d->len, line, ch), a = off;
  while (a > 0 && word_char((unsigned char)d->text[a - 1])) a--;
  for (uint32_t i = a; i + 1 < off; i++) /* `0..le`: a range, the word after it */
    if (d->text[i] == '.' && d->text[i + 1] == '.') a = i + 2;
  while (a < off && (d->text[a] == '.' || d->text[a] == '-')) a++;
  char prefix[256];
  if (off - a >= sizeof prefix) return json_array();
  memcpy(prefix, d->text + a, off - a);
  prefix[off - a] = 0;
  completer c = {prefix, strlen(prefix), json_array(), lsp_range(s, d->text, d->len, a, off), NULL, NULL, 1 << 13};
  c.seen = mt_calloc(c.cap, sizeof *c.seen);
  c.seen_kind = mt_calloc(c.cap, sizeof *c.seen_kind);
  char kw[32];
  keyword_before(d->text, a, kw, sizeof kw);
  const mt_rules *r = d->model;
  bool rule_context = !strcmp(kw, "supersedes") || !strcmp(kw, "amends") || !strcmp(kw, "because") ||
                      !strcmp(kw, "disable") || !strcmp(kw, "replace");
  if (r && (rule_context || strchr(prefix, '.') || isdigit((unsigned char)prefix[0]))) {
    offer_rules(&c, &r->prog, false);
  } else {
    offer_locals_typing(&c, d, a);
    offer_locals_of(&c, d->path, d->text, d->len, off);
    if (r && !strcmp(kw, "run")) offer_rules(&c, &r->prog, true);
    if (r) offer_names(&c, r);
#define KW(k) offer(&c, k, CI_KEYWORD, "keyword");
#include "keywords.h"
#undef KW
  }
  (void)CI_MODULE;
  mt_free(c.seen);
  mt_free(c.seen_kind);
  json_decref(c.range);
  return json_pack("{s:b, s:o}", "isIncomplete", 0, "items", c.items);
}

/* ---- document symbols ----------------------------------------------------------------------- */

/* The extent of a node: its own span joined with its children's. */
static mt_span extent(const node *n) {
  mt_span sp = n->span;
  for (uint32_t i = 0; i < n->nkids; i++)
    if (n->kids[i]) {
      mt_span k = extent(n->kids[i]);
      if (k.file == sp.file) sp = ast_join(sp, k);
    }
  return sp;
}

/* LSP SymbolKind */
enum { SK_MODULE = 2, SK_NAMESPACE = 3, SK_CLASS = 5, SK_METHOD = 6, SK_FUNCTION = 12, SK_VARIABLE = 13, SK_EVENT = 24 };

static void symbols_of(const lsp_server *s, const char *text, size_t len, const node *n, json_t *out);

/* N as a DocumentSymbol (a block, rule or member: its name, kind, extent and children), or, for a
 * list, its members. */
static void symbol(const lsp_server *s, const char *text, size_t len, const node *n, json_t *out) {
  static const char *const timing[] = {"before", "after", "instead of", "on"};
  char name[300];
  const char *detail = n->str;
  int kind;
  const char *nm = n->name ? n->name : "?";
  switch (n->kind) {
  case AST_FACTION: snprintf(name, sizeof name, "faction %s", nm), kind = SK_NAMESPACE; break;
  case AST_CARD: snprintf(name, sizeof name, "card %s", nm), kind = SK_NAMESPACE; break;
  case AST_VARIANT: snprintf(name, sizeof name, "variant %s", nm), kind = SK_NAMESPACE; break;
  case AST_REPLACE: snprintf(name, sizeof name, "replace %s", nm), kind = SK_CLASS; break;
  case AST_RULE:
    snprintf(name, sizeof name, "%s", nm);
    kind = n->ival == RF_PHASE || n->ival == RF_STEP || n->ival == RF_GAME ? SK_MODULE : SK_CLASS;
    break;
  case AST_VALUE: snprintf(name, sizeof name, "value %s", nm), kind = SK_FUNCTION; break;
  case AST_ACTION: snprintf(name, sizeof name, "action %s", nm), kind = SK_METHOD; break;
  case AST_VERB: snprintf(name, sizeof name, "verb %s", nm), kind = SK_METHOD; break;
  case AST_PROC: snprintf(name, sizeof name, "procedure %s", nm), kind = SK_FUNCTION; break;
  case AST_EVENT: snprintf(name, sizeof name, "event %s", nm), kind = SK_EVENT; break;
  case AST_VARDECL: snprintf(name, sizeof name, "var %s", nm), kind = SK_VARIABLE; break;
  case AST_TRIGGER: snprintf(name, sizeof name, "%s %s", timing[n->op & 3], nm), kind = SK_EVENT; break;
  default: symbols_of(s, text, len, n, out); return; /* a list: its members */
  }
  mt_span full = extent(n);
  json_t *sy = json_pack("{s:o, s:i, s:o, s:o}", "name", lsp_str(name), "kind", kind, "range",
                         lsp_range(s, text, len, full.start, full.end), "selectionRange",
                         lsp_range(s, text, len, n->span.start, n->span.end));
  if (detail && detail[0]) json_object_set_new(sy, "detail", lsp_str(detail));
  json_t *kids = json_array();
  symbols_of(s, text, len, n, kids);
  if (json_array_size(kids)) json_object_set_new(sy, "children", kids);
  else json_decref(kids);
  json_array_append_new(out, sy);
}

/* The symbols among N's children: declarations and the lists that hold them, not expressions. */
static void symbols_of(const lsp_server *s, const char *text, size_t len, const node *n, json_t *out) {
  if (n->kind != AST_FILE && n->kind != AST_LIST && n->kind != AST_FACTION && n->kind != AST_CARD &&
      n->kind != AST_VARIANT && n->kind != AST_RULE && n->kind != AST_REPLACE)
    return;
  for (uint32_t i = 0; i < n->nkids; i++) {
    const node *k = n->kids[i];
    if (!k || (n->kind == AST_RULE && i == 0)) continue; /* a rule's links */
    if (k->kind == AST_LIST || k->kind == AST_FACTION || k->kind == AST_CARD || k->kind == AST_VARIANT ||
        k->kind == AST_RULE || k->kind == AST_REPLACE || k->kind == AST_VALUE || k->kind == AST_ACTION ||
        k->kind == AST_VERB || k->kind == AST_PROC || k->kind == AST_EVENT || k->kind == AST_VARDECL ||
        k->kind == AST_TRIGGER)
      symbol(s, text, len, k, out);
  }
}

json_t *lsp_symbols(lsp_server *s, lsp_doc *d) {
  diag *dg = diag_new(NULL, NULL); /* the text alone: its outline even when the pack does not load */
  arena a = {0};
  uint32_t f = diag_add_source(dg, d->path, d->text, d->len);
  node *tree = ast_parse(&a, dg, f, NULL);
  json_t *out = json_array();
  if (tree) symbols_of(s, d->text, d->len, tree, out);
  arena_free(&a);
  diag_free(dg);
  return out;
}
