/* resolve.c -- the rule registry (stage 3): every rule by number, its level on
 * the precedence ladder (base < faction < card < variant), its enclosing block,
 * its supersedes/amends links resolved, and the chosen variants applied
 * (`disable`, `replace`, new rules).  Names inside rule bodies are left to
 * check.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "program.h"
#include "vm.h"

const char *const level_names[] = {"base rule", "faction ability", "card", "variant"};

void sema_init(program *p, const board_def *def) {
  memset(p, 0, sizeof *p);
  p->def = def;
  p->game_rule = -1;
  p->order_value = -1;
  p->turn_var = -1;
}

void sema_free(program *p) {
  for (int i = 0; i < p->nrules; i++) {
    mt_free(p->rules[i].sup);
    mt_free(p->rules[i].amd);
  }
  for (int i = 0; i < p->nvalues; i++) mt_free(p->values[i].defs);
  for (int i = 0; i < p->nactions; i++) mt_free(p->actions[i].guards);
  for (int i = 0; i < p->nlists; i++) mt_free(p->lists[i]);
  mt_free(p->lists);
  mt_free(p->nlist);
  mt_free(p->rules);
  mt_free(p->rule_slots);
  mt_free(p->values);
  mt_free(p->events);
  mt_free(p->triggers);
  mt_free(p->checks);
  mt_free(p->actions);
  mt_free(p->vars);
  mt_free(p->procs);
  mt_free(p->verbs);
  mt_free(p->invariants);
  for (int i = 0; i < p->nfuncs; i++) mt_free((void *)(uintptr_t)p->funcs[i].what);
  mt_free(p->funcs);
  mt_free(p->sup_row);
  mt_free(p->reads_fixed);
  mt_free(p->reads_vars);
  mt_free(p->value_ix.slot);
  vm_native_unload(p);
  mt_free(p->var_ix.slot);
  mt_free(p->sup_bits);
  mt_free(p->consts);
  mt_free(p->enums);
  mt_free(p->code);
  mt_free(p->spans);
  mt_free(p->strings);
  mt_free(p->strindex);
  mt_free(p->var_decls);
  mt_free(p->rule_ids);
  mt_free(p->pool_names);
  mt_free(p->pile_names);
  mt_free(p->resume);
  mt_free(p->resume_kinds);
  mt_free(p->draw_pc);
  mt_free(p->draw_ty);
  memset(p, 0, sizeof *p);
}

static size_t id_hash(const char *s) { return (size_t)mt_hash_bytes(s, strlen(s), 0); }

int sema_find_rule(const program *p, const char *id) {
  if (!p->rule_cap) return -1;
  for (size_t i = id_hash(id) & (p->rule_cap - 1);; i = (i + 1) & (p->rule_cap - 1)) {
    int k = p->rule_slots[i];
    if (k < 0) return -1;
    if (strcmp(p->rules[k].id, id) == 0) return k;
  }
}

/* Indexes rule K (its id is not yet indexed); grows the table at half full. */
static void index_rule(program *p, int k) {
  if ((size_t)(p->nrules + 1) * 2 > p->rule_cap) {
    size_t cap = p->rule_cap ? p->rule_cap * 2 : 64;
    mt_free(p->rule_slots);
    p->rule_slots = mt_alloc(cap * sizeof *p->rule_slots);
    for (size_t i = 0; i < cap; i++) p->rule_slots[i] = -1;
    p->rule_cap = cap;
    for (int j = 0; j < p->nrules; j++)
      if (j != k) index_rule(p, j);
  }
  size_t i = id_hash(p->rules[k].id) & (p->rule_cap - 1);
  while (p->rule_slots[i] >= 0) i = (i + 1) & (p->rule_cap - 1);
  p->rule_slots[i] = k;
}

/* One change a variant makes to a rule: what conflicts() compares. */
enum { CH_REPLACE, CH_DISABLE, CH_SUPERSEDE };
typedef struct change {
  int target, kind;
  const char *variant; /* the variant that makes it */
  int by;              /* CH_SUPERSEDE: the superseding rule */
  mt_span span;
} change;

typedef struct ctx {
  program *p;
  diag *d;
  const sema_options *o;
  change *ch;
  int nch, capch;
} ctx;

static void suggest_rule(ctx *c, const char *id, mt_span at) {
  const char **names = mt_calloc((size_t)c->p->nrules + 1, sizeof *names);
  for (int i = 0; i < c->p->nrules; i++) names[i] = c->p->rules[i].id;
  const char *s = diag_suggest(id, names, (size_t)c->p->nrules);
  if (s) diag_note(c->d, at, "did you mean '%s'?", s);
  mt_free(names);
}

/* Adds one rule (and, recursively, the rules nested in its body). */
static void add_rule(ctx *c, node *n, int level, int faction, int card, const char *owner,
                     const char *variant, int parent) {
  program *p = c->p;
  int dup = sema_find_rule(p, n->name);
  if (dup >= 0) {
    diag_error(c->d, n->span, "rule %s is defined twice", n->name);
    diag_note(c->d, p->rules[dup].span, "first defined here");
    return;
  }
  rule_rec r = {0};
  r.id = n->name;
  r.title = n->str;
  r.form = (int)n->ival;
  r.tags = n->flags;
  r.level = level;
  r.faction = faction;
  r.card = card;
  r.owner = owner;
  r.variant = variant;
  r.span = n->span;
  r.parent = parent;
  r.ast = n;
  r.items = ast_kid(n, 1);
  r.body_fn = -1;
  node *nm = ast_kid(n, 2);
  r.name = nm ? nm->name : NULL;
  if (r.form == RF_VALUE || r.form == RF_ACTION) r.name = NULL;
  if ((r.tags & TAG_BASIC) && (r.tags & TAG_ADVANCED))
    diag_error(c->d, n->span, "rule %s is tagged both basic and advanced", n->name);
  if (!c->o->advanced && (r.tags & TAG_ADVANCED)) r.disabled = true;
  if (r.form == RF_GAME) {
    if (p->game_rule >= 0 && !p->rules[p->game_rule].disabled) {
      diag_error(c->d, n->span, "a second game rule %s", n->name);
      diag_note(c->d, p->rules[p->game_rule].span, "the game rule is %s", p->rules[p->game_rule].id);
    } else {
      p->game_rule = p->nrules;
    }
  }
  VEC_PUSH(p->rules, p->nrules, p->caprules, r);
  int me = p->nrules - 1;
  index_rule(p, me);
  node *items = r.items;
  for (uint32_t i = 0; items && i < items->nkids; i++)
    if (items->kids[i] && items->kids[i]->kind == AST_RULE)
      add_rule(c, items->kids[i], level, faction, card, owner, variant, me);
}

static void add_block(ctx *c, node *blk, int level, const char *variant) {
  int faction = -1, card = -1;
  if (blk->kind == AST_FACTION) {
    faction = board_faction_index(c->p->def, blk->name);
    if (faction < 0) {
      const char **names = mt_calloc((size_t)c->p->def->nfactions + 1, sizeof *names);
      for (int i = 0; i < c->p->def->nfactions; i++) names[i] = c->p->def->factions[i].id;
      const char *s = diag_suggest(blk->name, names, (size_t)c->p->def->nfactions);
      diag_error(c->d, blk->span, "unknown faction '%s'%s%s%s", blk->name, s ? " (did you mean '" : "",
                 s ? s : "", s ? "'?)" : "");
      mt_free(names);
    }
  } else {
    card = board_card_index(c->p->def, blk->name);
    if (card < 0) {
      const char **names = mt_calloc((size_t)c->p->def->ncards + 1, sizeof *names);
      for (int i = 0; i < c->p->def->ncards; i++) names[i] = c->p->def->cards[i].id;
      const char *s = diag_suggest(blk->name, names, (size_t)c->p->def->ncards);
      diag_error(c->d, blk->span, "unknown card '%s'%s%s%s", blk->name, s ? " (did you mean '" : "", s ? s : "",
                 s ? "'?)" : "");
      mt_free(names);
    }
  }
  int lv = level == LEVEL_VARIANT ? LEVEL_VARIANT : blk->kind == AST_FACTION ? LEVEL_FACTION : LEVEL_CARD;
  for (uint32_t i = 0; i < blk->nkids; i++)
    if (blk->kids[i] && blk->kids[i]->kind == AST_RULE)
      add_rule(c, blk->kids[i], lv, faction, card, blk->name, variant, -1);
}

static node *find_variant(node *const *files, int nfiles, const char *name) {
  for (int f = 0; f < nfiles; f++)
    for (uint32_t i = 0; i < files[f]->nkids; i++) {
      node *d = files[f]->kids[i];
      if (d && d->kind == AST_VARIANT && strcmp(d->name, name) == 0) return d;
    }
  return NULL;
}

/* The declared variant nearest to NAME, for a did-you-mean (NULL: none close). */
static const char *suggest_variant(node *const *files, int nfiles, const char *name) {
  const char *known[64];
  size_t nk = 0;
  for (int f = 0; f < nfiles; f++)
    for (uint32_t k = 0; k < files[f]->nkids && nk < 64; k++)
      if (files[f]->kids[k] && files[f]->kids[k]->kind == AST_VARIANT) known[nk++] = files[f]->kids[k]->name;
  return diag_suggest(name, known, nk);
}

/* Whether variant NAME, or a variant it extends, extends the Advanced game. */
static bool extends_advanced(node *const *files, int nfiles, const char *name, int depth) {
  node *v = find_variant(files, nfiles, name);
  node *base = v && !(v->flags & AST_VARIANT_PART) ? ast_kid(v, 0) : NULL;
  if (!base || depth > 32) return false;
  if (!strcmp(base->name, "advanced")) return true;
  return extends_advanced(files, nfiles, base->name, depth + 1);
}

bool sema_variants_advanced(node *const *files, int nfiles, const char *const *names, int n) {
  for (int i = 0; i < n; i++)
    if (extends_advanced(files, nfiles, names[i], 0)) return true;
  return false;
}

static void apply_items(ctx *c, node *v, const char *label);

/* Applies variant V after its base (extends chain), then its parts (`variant
 * NAME in V`, from any file: a layer's additions to V); DEPTH stops cycles. */
static void apply_variant(ctx *c, node *const *files, int nfiles, node *v, int depth, const char **done,
                          int *ndone) {
  for (int i = 0; i < *ndone; i++)
    if (strcmp(done[i], v->name) == 0) return;
  if (depth > 32) {
    diag_error(c->d, v->span, "variant '%s' extends itself (a cycle of extends)", v->name);
    return;
  }
  node *base = ast_kid(v, 0);
  /* `extends basic` / `extends advanced` name the game a variant is built on, not a
   * variant: the rule set was chosen by them already (sema_variants_advanced) */
  if (base && (!strcmp(base->name, "basic") || !strcmp(base->name, "advanced"))) base = NULL;
  if (base) {
    node *b = find_variant(files, nfiles, base->name);
    if (b && (b->flags & AST_VARIANT_PART)) {
      diag_error(c->d, base->span, "variant '%s' extends '%s', which is a part of variant '%s' (declared `in %s`): extend '%s'",
                 v->name, b->name, ast_kid(b, 0)->name, ast_kid(b, 0)->name, ast_kid(b, 0)->name);
    } else if (!b) {
      const char *sg = suggest_variant(files, nfiles, base->name);
      diag_error(c->d, base->span, "variant '%s' extends unknown variant '%s'%s%s%s", v->name, base->name,
                 sg ? " (did you mean '" : "", sg ? sg : "", sg ? "'?)" : "");
    }
    else apply_variant(c, files, nfiles, b, depth + 1, done, ndone);
  }
  if (*ndone < 64) done[(*ndone)++] = v->name;
  apply_items(c, v, v->name);
  for (int f = 0; f < nfiles; f++)
    for (uint32_t i = 0; i < files[f]->nkids; i++) {
      node *part = files[f]->kids[i];
      if (part && part->kind == AST_VARIANT && (part->flags & AST_VARIANT_PART) && ast_kid(part, 0) &&
          !strcmp(ast_kid(part, 0)->name, v->name))
        apply_items(c, part, v->name);
    }
}

/* Adds the items of variant (or part) V as changes made by the variant LABEL:
 * a part's rules belong to its host, so that two changes of one rule by the
 * host and its part clash as two changes by one variant do. */
static void apply_items(ctx *c, node *v, const char *label) {
  for (uint32_t i = 1; i < v->nkids; i++) {
    node *it = v->kids[i];
    if (!it) continue;
    if (it->kind == AST_RULE) {
      add_rule(c, it, LEVEL_VARIANT, -1, -1, NULL, label, -1);
    } else if (it->kind == AST_FACTION || it->kind == AST_CARD) {
      add_block(c, it, LEVEL_VARIANT, label);
    } else if (it->kind == AST_DISABLE || it->kind == AST_REPLACE) {
      int r = sema_find_rule(c->p, it->name);
      if (r < 0) {
        diag_error(c->d, it->span, "variant '%s' %s unknown rule %s", v->name,
                   it->kind == AST_DISABLE ? "disables" : "replaces", it->name);
        suggest_rule(c, it->name, it->span);
        continue;
      }
      rule_rec *rr = &c->p->rules[r];
      change ch = {r, it->kind == AST_DISABLE ? CH_DISABLE : CH_REPLACE, label, -1, it->span};
      VEC_PUSH(c->ch, c->nch, c->capch, ch);
      if (it->kind == AST_DISABLE) {
        rr->disabled = true;
        /* nested rules go with their parent */
        for (int k = r + 1; k < c->p->nrules; k++) {
          int q = c->p->rules[k].parent;
          while (q >= 0 && q != r) q = c->p->rules[q].parent;
          if (q == r) c->p->rules[k].disabled = true;
        }
      } else {
        rr->items = ast_kid(it, 0);
        rr->replaced = true;
        rr->replaced_by = label;
        node *items = rr->items;
        for (uint32_t k = 0; items && k < items->nkids; k++)
          if (items->kids[k] && items->kids[k]->kind == AST_RULE)
            add_rule(c, items->kids[k], LEVEL_VARIANT, rr->faction, rr->card, rr->owner, label, r);
      }
    }
  }
}

/* Resolves link targets; reports unknown targets, self-links and cycles. */
static void resolve_links(ctx *c) {
  program *p = c->p;
  for (int i = 0; i < p->nrules; i++) {
    rule_rec *r = &p->rules[i];
    node *links = ast_kid(r->ast, 0);
    for (uint32_t k = 0; links && k < links->nkids; k++) {
      node *l = links->kids[k];
      int t = sema_find_rule(p, l->name);
      if (t < 0 && (l->flags & AST_LINK_OPTIONAL)) continue; /* another pack's rule, not laid in this game */
      if (t < 0) {
        diag_error(c->d, l->span, "rule %s %s unknown rule %s", r->id,
                   l->op == LINK_SUPERSEDES ? "supersedes" : "amends", l->name);
        suggest_rule(c, l->name, l->span);
        continue;
      }
      if (t == i) {
        diag_error(c->d, l->span, "rule %s %s itself", r->id, l->op == LINK_SUPERSEDES ? "supersedes" : "amends");
        continue;
      }
      if (l->op == LINK_SUPERSEDES) {
        r->sup = mt_realloc(r->sup, (size_t)(r->nsup + 1) * sizeof *r->sup);
        r->sup[r->nsup++] = t;
      } else {
        r->amd = mt_realloc(r->amd, (size_t)(r->namd + 1) * sizeof *r->amd);
        r->amd[r->namd++] = t;
      }
    }
  }
  /* cycles in the supersedes graph: iterative DFS with colours */
  int n = p->nrules;
  int *colour = mt_calloc((size_t)n + 1, sizeof *colour);
  int *stack = mt_calloc((size_t)n + 1, sizeof *stack), *edge = mt_calloc((size_t)n + 1, sizeof *edge);
  for (int s = 0; s < n; s++) {
    if (colour[s]) continue;
    int sp = 0;
    stack[sp] = s;
    edge[sp] = 0;
    colour[s] = 1;
    while (sp >= 0) {
      int v = stack[sp];
      if (edge[sp] < p->rules[v].nsup) {
        int w = p->rules[v].sup[edge[sp]++];
        if (colour[w] == 1) {
          diag_error(c->d, p->rules[v].span, "supersedes cycle: rule %s supersedes %s, which leads back to %s",
                     p->rules[v].id, p->rules[w].id, p->rules[v].id);
          for (int k = sp; k >= 0 && stack[k] != w; k--)
            if (k > 0) diag_note(c->d, p->rules[stack[k - 1]].span, "rule %s supersedes %s", p->rules[stack[k - 1]].id,
                                 p->rules[stack[k]].id);
        } else if (colour[w] == 0) {
          colour[w] = 1;
          stack[++sp] = w;
          edge[sp] = 0;
        }
      } else {
        colour[v] = 2;
        sp--;
      }
    }
  }
  mt_free(colour);
  mt_free(stack);
  mt_free(edge);
}

/* Does variant A extend variant B (directly or through its chain)? */
static bool extends(node *const *files, int nfiles, const char *a, const char *b) {
  node *v = find_variant(files, nfiles, a);
  for (int depth = 0; v && depth < 33; depth++) {
    node *base = ast_kid(v, 0);
    if (!base) return false;
    if (!strcmp(base->name, b)) return true;
    v = find_variant(files, nfiles, base->name);
  }
  return false;
}

static void describe(const program *p, const change *x, char *buf, size_t n) {
  if (x->kind == CH_SUPERSEDE)
    snprintf(buf, n, "rule %s of variant '%s' supersedes it", p->rules[x->by].id, x->variant);
  else snprintf(buf, n, "variant '%s' %s it", x->variant, x->kind == CH_REPLACE ? "replaces" : "disables");
}

/* Two changes of one rule at the variant level where one silently wins:
 * replace and replace, replace and supersedes, disable and replace or
 * supersedes.  A variant that extends another overrides it on purpose; one
 * variant may disable a rule and supersede it with its own. */
/* Whether changes A and B (A made first) of one rule clash: one would
 * silently win over the other. */
static bool clashes(node *const *files, int nfiles, const change *a, const change *b) {
  bool same = !strcmp(a->variant, b->variant);
  int ka = a->kind, kb = b->kind;
  bool clash = (ka == CH_REPLACE || kb == CH_REPLACE) ? !(ka == CH_DISABLE && kb == CH_DISABLE)
                                                      : (ka == CH_DISABLE) != (kb == CH_DISABLE);
  if (!clash || (same && (ka == CH_SUPERSEDE || kb == CH_SUPERSEDE))) return false;
  return same || !(extends(files, nfiles, a->variant, b->variant) || extends(files, nfiles, b->variant, a->variant));
}

#define MAX_CLASHES 1024 /* clashing pairs reported at most: past the error limit anyway */
static const change *sorting_changes; /* what by_target sorts indices of */
static int by_target(const void *x, const void *y) {
  int i = *(const int *)x, j = *(const int *)y, ti = sorting_changes[i].target, tj = sorting_changes[j].target;
  return ti != tj ? (ti > tj) - (ti < tj) : (i > j) - (i < j);
}
static int by_pair(const void *x, const void *y) {
  const int *a = x, *b = y;
  return a[0] != b[0] ? (a[0] > b[0]) - (a[0] < b[0]) : (a[1] > b[1]) - (a[1] < b[1]);
}

static void conflicts(ctx *c, node *const *files, int nfiles) {
  program *p = c->p;
  for (int i = 0; i < p->nrules; i++) {
    rule_rec *r = &p->rules[i];
    if (r->level != LEVEL_VARIANT || r->disabled || !r->variant) continue;
    node *links = ast_kid(r->ast, 0);
    for (uint32_t k = 0; links && k < links->nkids; k++) {
      node *l = links->kids[k];
      int t = l->op == LINK_SUPERSEDES ? sema_find_rule(p, l->name) : -1;
      if (t < 0 || t == i) continue;
      change ch = {t, CH_SUPERSEDE, r->variant, i, l->span};
      VEC_PUSH(c->ch, c->nch, c->capch, ch);
    }
  }
  /* the pairs that clash, found per target: only a replace or a disable can clash (two supersedes of one rule
   * never do), so each of those is compared with the target's other changes -- linear in the changes when
   * there are none (a variant of 20,000 overrides) -- then reported in the order of the later change */
  int *ord = mt_calloc((size_t)c->nch + 1, sizeof *ord);
  for (int i = 0; i < c->nch; i++) ord[i] = i;
  sorting_changes = c->ch;
  qsort(ord, (size_t)c->nch, sizeof *ord, by_target);
  int (*pairs)[2] = mt_calloc(MAX_CLASHES, sizeof *pairs), np = 0;
  for (int g0 = 0, g1; g0 < c->nch && np < MAX_CLASHES; g0 = g1) {
    for (g1 = g0 + 1; g1 < c->nch && c->ch[ord[g1]].target == c->ch[ord[g0]].target;) g1++;
    for (int x = g0; x < g1 && np < MAX_CLASHES; x++) {
      if (c->ch[ord[x]].kind == CH_SUPERSEDE) continue;
      for (int y = g0; y < g1 && np < MAX_CLASHES; y++) {
        if (y == x || (c->ch[ord[y]].kind != CH_SUPERSEDE && y < x)) continue; /* each such pair once */
        int i = ord[x] < ord[y] ? ord[x] : ord[y], j = ord[x] < ord[y] ? ord[y] : ord[x];
        if (clashes(files, nfiles, &c->ch[i], &c->ch[j])) pairs[np][0] = j, pairs[np][1] = i, np++;
      }
    }
  }
  qsort(pairs, (size_t)np, sizeof *pairs, by_pair);
  for (int k = 0; k < np; k++) { /* past the error limit the diag drops them, saying so once */
    const change *a = &c->ch[pairs[k][1]], *b = &c->ch[pairs[k][0]];
    char da[256], db[256];
    describe(p, a, da, sizeof da);
    describe(p, b, db, sizeof db);
    diag_error(c->d, b->span, "conflict: rule %s is changed twice at the variant level: %s, and %s; neither "
               "variant extends the other, so one would silently win", p->rules[a->target].id, db, da);
    diag_note(c->d, a->span, "%s here", da);
  }
  mt_free(pairs);
  mt_free(ord);
}

bool sema_resolve(program *p, node *const *files, int nfiles, const sema_options *o, diag *d) {
  int before = diag_errors(d);
  ctx c = {p, d, o, NULL, 0, 0};
  for (int f = 0; f < nfiles; f++)
    for (uint32_t i = 0; i < files[f]->nkids; i++) {
      node *n = files[f]->kids[i];
      if (!n) continue;
      if (n->kind == AST_RULE) add_rule(&c, n, LEVEL_BASE, -1, -1, NULL, NULL, -1);
      else if (n->kind == AST_FACTION || n->kind == AST_CARD) add_block(&c, n, LEVEL_BASE, NULL);
    }
  /* a variant name declared twice: the first would be applied, the other silently ignored */
  for (int f = 0; f < nfiles; f++)
    for (uint32_t i = 0; i < files[f]->nkids; i++) {
      node *v = files[f]->kids[i];
      if (!v || v->kind != AST_VARIANT) continue;
      node *first = find_variant(files, nfiles, v->name);
      if (first != v) {
        diag_error(d, v->span, "variant '%s' is declared twice", v->name);
        diag_note(d, first->span, "first declared here");
      }
    }
  /* a part names a host that must exist (a misspelt host would never apply), and is no host itself */
  for (int f = 0; f < nfiles; f++)
    for (uint32_t i = 0; i < files[f]->nkids; i++) {
      node *v = files[f]->kids[i];
      if (!v || v->kind != AST_VARIANT || !(v->flags & AST_VARIANT_PART) || !ast_kid(v, 0)) continue;
      node *host = ast_kid(v, 0), *h = find_variant(files, nfiles, host->name);
      if (!h) {
        const char *sg = suggest_variant(files, nfiles, host->name);
        diag_error(d, host->span, "variant '%s' is a part of unknown variant '%s'%s%s%s", v->name, host->name,
                   sg ? " (did you mean '" : "", sg ? sg : "", sg ? "'?)" : "");
      } else if (h->flags & AST_VARIANT_PART) {
        diag_error(d, host->span, "variant '%s' is a part of '%s', which is itself a part of '%s': name '%s'", v->name,
                   h->name, ast_kid(h, 0)->name, ast_kid(h, 0)->name);
      }
    }
  const char *done[64];
  int ndone = 0;
  for (int i = 0; i < o->nvariants; i++) {
    node *v = find_variant(files, nfiles, o->variants[i]);
    if (v && (v->flags & AST_VARIANT_PART)) {
      diag_error(d, (mt_span){DIAG_NOFILE, 0, 0},
                 "variant '%s' is a part of variant '%s' (declared `in %s`): it applies whenever '%s' does; apply '%s'",
                 v->name, ast_kid(v, 0)->name, ast_kid(v, 0)->name, ast_kid(v, 0)->name, ast_kid(v, 0)->name);
      continue;
    }
    if (!v) {
      const char *s = suggest_variant(files, nfiles, o->variants[i]);
      if (s) diag_error(d, (mt_span){DIAG_NOFILE, 0, 0}, "unknown variant '%s' (did you mean '%s'?)", o->variants[i], s);
      else diag_error(d, (mt_span){DIAG_NOFILE, 0, 0}, "unknown variant '%s'", o->variants[i]);
      continue;
    }
    apply_variant(&c, files, nfiles, v, 0, done, &ndone);
  }
  resolve_links(&c);
  conflicts(&c, files, nfiles);
  mt_free(c.ch);
  for (int i = 0; i < p->nrules; i++) {
    rule_rec *r = &p->rules[i];
    if ((r->tags & TAG_NOTE) && r->items && r->items->nkids > 0) {
      for (uint32_t k = 0; k < r->items->nkids; k++)
        if (r->items->kids[k] && r->items->kids[k]->kind != AST_RULE) {
          diag_error(d, r->items->kids[k]->span, "rule %s is a note: it carries a number and a summary but no behaviour",
                     r->id);
          break;
        }
    }
  }
  return diag_errors(d) == before;
}
