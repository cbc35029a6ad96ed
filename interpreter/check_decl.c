/* check_decl.c -- names and types (stage 4), the declarations: variables,
 * events, values and their definitions (ordered by precedence, conflicts
 * reported), actions and their guards, checks, triggers, procedures and
 * verbs; the hook tables they fill; and the checker's entry points
 * (sema_declare, sema_check, sema_check_expr).  Expressions and statements
 * are checked by check.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_int.h"

/* ---- declarations --------------------------------------------------------- */

static int parse_type(chk *c, node *t) {
  if (!t) return TY_ERROR;
  static const struct {
    const char *name;
    int ty;
  } tys[] = {{"int", TY_INT},   {"bool", TY_BOOL}, {"faction", TY_FACTION}, {"territory", TY_TERRITORY},
             {"sector", TY_SECTOR}, {"card", TY_CARD}, {"leader", TY_LEADER}, {"kind", TY_KIND},
             {"pool", TY_POOL}, {"pile", TY_PILE}, {"rule", TY_RULE}, {"location", TY_LOC}, {"tag", TY_TAG}};
  for (size_t i = 0; i < sizeof tys / sizeof *tys; i++)
    if (!strcmp(tys[i].name, t->name)) return t->op ? chk_set_of(c, tys[i].ty, t->span) : tys[i].ty;
  for (int i = 0; i < c->p->nenums; i++) {
    char nm[64];
    snprintf(nm, sizeof nm, "%s", c->p->enums[i].name);
    for (char *q = nm; *q; q++)
      if (*q == ' ') *q = '_';
    if (!strcmp(nm, t->name)) return t->op ? chk_set_of(c, TY_ENUM0 + i, t->span) : TY_ENUM0 + i;
  }
  cands cs = {0};
  for (size_t i = 0; i < sizeof tys / sizeof *tys; i++) chk_cand(&cs, tys[i].name);
  chk_unknown(c, t->span, "type", t->name, &cs);
  return TY_ERROR;
}

static void declare_event(chk *c, node *e) {
  if (chk_find_event(c->p, e->name) >= 0) {
    diag_error(c->d, e->span, "event '%s' is declared twice", e->name);
    diag_note(c->d, c->p->events[chk_find_event(c->p, e->name)].span, "first declared here");
    return;
  }
  event_rec r = {0};
  r.name = e->name;
  r.span = e->span;
  r.dispatch_fn = -1;
  if (e->nkids > MAX_PARAMS) diag_error(c->d, e->span, "at most %d parameters", MAX_PARAMS);
  for (uint32_t i = 0; i < e->nkids && i < MAX_PARAMS; i++) {
    r.pname[i] = e->kids[i]->name;
    r.ptype[r.nparams++] = parse_type(c, ast_kid(e->kids[i], 0));
  }
  VEC_PUSH(c->p->events, c->p->nevents, c->p->capevents, r);
}

/* An initialiser judged at its declaration: a literal, or a name (a constant,
 * or an earlier variable read when the game is created). */
static bool literal_or_name(const node *n) {
  return n->kind == AST_INT || n->kind == AST_BOOL || n->kind == AST_NONE ||
         (n->kind == AST_UNARY && n->op == BOP_NEG && n->kids[0]->kind == AST_INT) || n->kind == AST_NAME;
}

/* A variable with a computed initial value that N reads directly and that is
 * computed at or after variable SELF (so it would still hold its default),
 * or NULL. */
static const node *reads_later_computed(const program *p, const node *n, int self) {
  if (!n) return NULL;
  bool var = (n->kind == AST_NAME && n->op == REF_VAR) ||
             (n->kind == AST_CALL && (n->op == CALL_VAR || n->op == CALL_TOTAL));
  if (var && n->sym >= self && p->vars[n->sym].init_computed) return n;
  for (uint32_t i = 0; i < n->nkids; i++) {
    const node *k = reads_later_computed(p, n->kids[i], self);
    if (k) return k;
  }
  return NULL;
}

static void declare_var(chk *c, node *v) {
  program *p = c->p;
  int old = chk_find_var(p, v->name);
  if (old >= 0) {
    diag_error(c->d, v->span, "variable '%s' is declared twice", v->name);
    if (!p->vars[old].data) diag_note(c->d, p->vars[old].span, "first declared here");
    else diag_note(c->d, v->span, "'%s' is a variable of the board data", v->name);
    return;
  }
  var_rec r = {0};
  r.name = v->name;
  r.span = v->span;
  r.type = parse_type(c, ast_kid(v, 1));
  r.width = (r.type & TY_SETBIT) && chk_domain_size(c, r.type & ~TY_SETBIT) > 32 ? 2 : 1;
  r.scope = BS_GLOBAL;
  r.cells = r.width;
  node *params = ast_kid(v, 0);
  for (uint32_t i = 0; params && i < params->nkids && i < MAX_PARAMS; i++) {
    int t = parse_type(c, ast_kid(params->kids[i], 0));
    r.ptype[r.nparams++] = t;
    if (i == 0 && t == TY_FACTION) {
      r.scope = BS_FACTION;
      continue;
    }
    int n = chk_domain_size(c, t);
    if (n <= 0 || t == TY_INT) {
      diag_error(c->d, params->kids[i]->span, "a variable cannot be indexed by %s", TN(t));
      continue;
    }
    r.cells *= n;
    if (r.cells > 100000) {
      diag_error(c->d, params->kids[i]->span, "variable '%s' would need too many cells", v->name);
      r.cells = 1;
    }
  }
  r.secret = (v->flags & 1u) != 0;
  if (r.secret && r.scope != BS_FACTION)
    diag_error(c->d, v->span, "secret variable '%s' must have a faction as its first index: that faction alone sees it", v->name);
  node *init = ast_kid(v, 2);
  r.init = init;
  r.init_fn = -1;
  /* an expression is computed when the game is created, checked with the rules' bodies (values are known then) */
  bool computed = init && !literal_or_name(init);
  if (init && !computed) {
    chk_begin_fn(c, FN_PURE);
    int t = chk_check_expr(c, init, r.type);
    if (!chk_compatible(r.type, t)) diag_error(c->d, init->span, "%s holds %s, not %s", v->name, TN(r.type), TN(t));
    if (init->kind == AST_INT) r.init_value = init->ival;
    else if (init->kind == AST_BOOL) r.init_value = init->ival;
    else if (init->kind == AST_NONE) r.init_value = -1;
    else if (init->kind == AST_NAME && init->op == REF_CONST) r.init_value = init->ival;
    else if (init->kind == AST_UNARY && init->op == BOP_NEG && init->kids[0]->kind == AST_INT) r.init_value = -init->kids[0]->ival;
    else if (t != TY_ERROR) computed = true; /* another variable, read when the game is created */
  } else if (chk_is_entity(r.type)) {
    r.init_value = -1;
  }
  if (computed) {
    if (r.nparams > 0) diag_error(c->d, init->span, "a variable with indices starts at a constant; set its cells in a step");
    else r.init_computed = true;
  }
  if (r.init_value < INT32_MIN || r.init_value > INT32_MAX) diag_error(c->d, v->span, "initial value out of range");
  r.board_var = -1;
  VEC_PUSH(p->vars, p->nvars, p->capvars, r);
}

static void data_vars(chk *c) {
  const board_def *def = c->def;
  for (int i = 0; i < def->nvars; i++) {
    const board_var *bv = &def->vars[i];
    var_rec r = {0};
    r.name = bv->name;
    r.data = true;
    r.board_var = i;
    r.scope = (int)bv->scope;
    r.type = bv->type == BT_ENUM ? chk_enum_type(c->p, bv->values) : chk_var_type_of_board(bv->type);
    r.width = 1;
    r.cells = 1;
    r.span = (mt_span){DIAG_NOFILE, 0, 0};
    if (bv->scope == BS_FACTION) r.ptype[r.nparams++] = TY_FACTION;
    if (bv->scope == BS_SECTION) {
      r.ptype[r.nparams++] = TY_TERRITORY;
      r.ptype[r.nparams++] = TY_SECTOR;
    }
    if (!strcmp(bv->name, "turn") && bv->scope == BS_GLOBAL) c->p->turn_var = c->p->nvars;
    VEC_PUSH(c->p->vars, c->p->nvars, c->p->capvars, r);
  }
}

/* Collects value declarations (definitions with a result type). */
static void declare_value(chk *c, int rule, node *v) {
  program *p = c->p;
  int k = chk_find_value(p, v->name);
  if (k >= 0) {
    diag_error(c->d, v->span, "value '%s' is declared twice (an override has no result type and says what it supersedes)",
               v->name);
    diag_note(c->d, p->values[k].span, "first declared here");
    return;
  }
  value_rec r = {0};
  r.name = v->name;
  r.span = v->span;
  r.base_rule = rule;
  r.dispatch_fn = -1;
  node *params = v->kids[0];
  for (uint32_t i = 0; i < params->nkids && i < MAX_PARAMS; i++) {
    node *pa = params->kids[i];
    if (pa->kind != AST_PARAM) {
      diag_error(c->d, pa->span, "the declaring definition of '%s' needs typed parameters (name: type)", v->name);
      r.ptype[r.nparams++] = TY_ERROR;
      continue;
    }
    r.pname[r.nparams] = pa->name;
    r.ptype[r.nparams++] = parse_type(c, pa->kids[0]);
  }
  r.ret = parse_type(c, v->kids[1]);
  VEC_PUSH(p->values, p->nvalues, p->capvalues, r);
}

bool sema_supersedes(const program *p, int a, int b) {
  if (!p->sup_row || a < 0 || b < 0 || p->sup_row[a] < 0) return false;
  return p->sup_bits[(size_t)p->sup_row[a] * p->sup_words + (size_t)b / 64] >> (b % 64) & 1u;
}
static bool supersedes_star(chk *c, int a, int b) { return sema_supersedes(c->p, a, b); }

/* The transitive supersedes relation, one bitset row per rule that
 * supersedes anything (most rules supersede nothing).  Rows are made in
 * post-order, each the union of its targets' rows and the targets
 * themselves: a word-wide OR per link, so a chain of 20,000 overrides costs
 * 20,000 row copies, not a walk of the whole chain from every rule.  A
 * cycle (reported elsewhere) falls back to a walk from each rule. */
static void closure(chk *c) {
  program *p = c->p;
  int n = p->nrules;
  p->sup_row = mt_calloc((size_t)n + 1, sizeof *p->sup_row);
  int rows = 0;
  for (int a = 0; a < n; a++) p->sup_row[a] = p->rules[a].nsup ? rows++ : -1;
  size_t W = p->sup_words = ((size_t)n + 63) / 64;
  p->sup_bits = mt_calloc((size_t)rows * W + 1, sizeof *p->sup_bits);
  int *stack = mt_calloc((size_t)n + 1, sizeof *stack), *edge = mt_calloc((size_t)n + 1, sizeof *edge);
  unsigned char *state = mt_calloc((size_t)n + 1, 1); /* 0 new, 1 on the walk, 2 done */
  bool cyclic = false;
  for (int s0 = 0; s0 < n && !cyclic; s0++) {
    if (state[s0]) continue;
    int sp = 0;
    stack[sp] = s0, edge[sp++] = 0, state[s0] = 1;
    while (sp && !cyclic) {
      int v = stack[sp - 1];
      if (edge[sp - 1] < p->rules[v].nsup) {
        int w = p->rules[v].sup[edge[sp - 1]++];
        if (state[w] == 1) cyclic = true;
        else if (!state[w]) stack[sp] = w, edge[sp++] = 0, state[w] = 1;
        continue;
      }
      sp--;
      state[v] = 2;
      if (p->sup_row[v] < 0) continue;
      uint64_t *row = p->sup_bits + (size_t)p->sup_row[v] * W;
      for (int k = 0; k < p->rules[v].nsup; k++) {
        int w = p->rules[v].sup[k];
        row[w / 64] |= 1ull << (w % 64);
        if (p->sup_row[w] >= 0) {
          const uint64_t *from = p->sup_bits + (size_t)p->sup_row[w] * W;
          for (size_t i = 0; i < W; i++) row[i] |= from[i];
        }
      }
    }
  }
  if (cyclic) {
    memset(p->sup_bits, 0, ((size_t)rows * W + 1) * sizeof *p->sup_bits);
    for (int a = 0; a < n; a++) {
      if (p->sup_row[a] < 0) continue;
      uint64_t *row = p->sup_bits + (size_t)p->sup_row[a] * W;
      int sp = 0;
      stack[sp++] = a;
      while (sp) {
        int v = stack[--sp];
        for (int k = 0; k < p->rules[v].nsup; k++) {
          int w = p->rules[v].sup[k];
          if (w != a && !(row[w / 64] >> (w % 64) & 1u)) {
            row[w / 64] |= 1ull << (w % 64);
            if (sp < n) stack[sp++] = w;
          }
        }
      }
    }
  }
  mt_free(state);
  mt_free(edge);
  mt_free(stack);
}

/* An override: patterns and when-guard, checked in the value's scope. */
static void check_value_def(chk *c, int rule, node *v, bool declaring) {
  program *p = c->p;
  int k = chk_find_value(p, v->name);
  if (k < 0) {
    cands cs = {0};
    for (int i = 0; i < p->nvalues; i++) chk_cand(&cs, p->values[i].name);
    chk_unknown(c, v->span, "value", v->name, &cs);
    return;
  }
  value_rec *vr = &p->values[k];
  if (declaring && vr->base_rule != rule) return; /* duplicate already reported */
  node *params = v->kids[0];
  chk_begin_fn(c, FN_PURE);
  bool guarded = v->kids[2] != NULL;
  if ((int)params->nkids != vr->nparams) {
    diag_error(c->d, v->span, "'%s' takes %d parameter%s, this definition has %u", v->name, vr->nparams,
               vr->nparams == 1 ? "" : "s", params->nkids);
    return;
  }
  for (int i = 0; i < vr->nparams; i++) {
    node *pa = params->kids[i];
    if (pa->kind == AST_PARAM) {
      int t = parse_type(c, pa->kids[0]);
      if (!chk_compatible(vr->ptype[i], t)) diag_error(c->d, pa->span, "parameter %d of '%s' is %s, not %s", i + 1, v->name, TN(vr->ptype[i]), TN(t));
      pa->slot = chk_declare(c, pa->name, vr->ptype[i], pa->span);
      continue;
    }
    int ty;
    int64_t val;
    if (pa->kind == AST_NAME && !chk_entity_const(c, pa->name, vr->ptype[i], &ty, &val)) {
      pa->slot = chk_declare(c, pa->name, vr->ptype[i], pa->span); /* a binder */
      pa->op = 0;
      continue;
    }
    /* a constant pattern: the argument is compared with it */
    pa->slot = chk_declare(c, NULL, vr->ptype[i], pa->span);
    int t = chk_check_expr(c, pa, vr->ptype[i]);
    if (!chk_compatible(vr->ptype[i], t)) diag_error(c->d, pa->span, "pattern %d of '%s' must be %s, found %s", i + 1, v->name, TN(vr->ptype[i]), TN(t));
    pa->flags = 1; /* constant pattern */
    guarded = true;
  }
  if (v->kids[2]) chk_expect(c, v->kids[2], TY_BOOL, chk_check_expr(c, v->kids[2], TY_BOOL));
  int t = chk_check_expr(c, v->kids[3], vr->ret);
  if (!chk_compatible(vr->ret, t) && !(vr->ret == TY_SECTOR && t == TY_INT))
    diag_error(c->d, v->kids[3]->span, "'%s' is %s, but this definition gives %s", v->name, TN(vr->ret), TN(t));
  v->slot = c->nslots;
  value_def d = {rule, v, guarded, -1, -1};
  VEC_PUSH(vr->defs, vr->ndefs, vr->capdefs, d);
}

static bool patterns_overlap(const value_def *a, const value_def *b) {
  node *pa = a->ast->kids[0], *pb = b->ast->kids[0];
  for (uint32_t i = 0; i < pa->nkids && i < pb->nkids; i++) {
    node *x = pa->kids[i], *y = pb->kids[i];
    if (x->flags == 1 && y->flags == 1 && x->kind == y->kind && (x->kind == AST_NAME || x->kind == AST_INT) &&
        x->ival != y->ival)
      return false;
  }
  return true;
}

/* A min-heap of definition indices by (level, highest first; then
 * declaration order): the order_value queue of definitions free to go next. */
typedef struct def_heap {
  int *v, n;
  const value_rec *vr;
  const program *p;
} def_heap;
static bool def_before(const def_heap *h, int a, int b) {
  int la = h->p->rules[h->vr->defs[a].rule].level, lb = h->p->rules[h->vr->defs[b].rule].level;
  return la != lb ? la > lb : a < b;
}
static void heap_push(def_heap *h, int x) {
  int i = h->n++;
  h->v[i] = x;
  while (i && def_before(h, h->v[i], h->v[(i - 1) / 2])) {
    int up = (i - 1) / 2, t = h->v[i];
    h->v[i] = h->v[up], h->v[up] = t, i = up;
  }
}
static int heap_pop(def_heap *h) {
  int top = h->v[0], i = 0;
  h->v[0] = h->v[--h->n];
  for (;;) {
    int l = 2 * i + 1, r = l + 1, m = i;
    if (l < h->n && def_before(h, h->v[l], h->v[m])) m = l;
    if (r < h->n && def_before(h, h->v[r], h->v[m])) m = r;
    if (m == i) return top;
    int t = h->v[i];
    h->v[i] = h->v[m], h->v[m] = t, i = m;
  }
}

/* The first parameter of D's pattern when it is a literal (a name or a
 * number), else NULL: definitions with different literals there never
 * match the same arguments. */
static node *first_literal(const value_def *d) {
  node *x = d->ast->kids[0]->nkids ? d->ast->kids[0]->kids[0] : NULL;
  return x && x->flags == 1 && (x->kind == AST_NAME || x->kind == AST_INT) ? x : NULL;
}
static int literal_cmp(const value_def *a, const value_def *b) {
  node *x = first_literal(a), *y = first_literal(b);
  if (!x || !y) return !x && !y ? 0 : !x ? -1 : 1; /* wildcards first */
  if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
  return x->ival < y->ival ? -1 : x->ival > y->ival;
}
static const value_def *sort_defs; /* the definitions by_literal sorts indices of */
static int by_literal(const void *a, const void *b) {
  int i = *(const int *)a, j = *(const int *)b;
  int c = literal_cmp(&sort_defs[i], &sort_defs[j]);
  return c ? c : (i > j) - (i < j);
}
static int by_pair(const void *a, const void *b) {
  const int *x = a, *y = b;
  return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

#define MAX_CONFLICTS 1024 /* pairs reported for one value and level: past the error limit anyway */

/* Reports the static conflicts among definitions IDX[0..N) of VR (indices in
 * declaration order), all unguarded and at one level: two that may match the
 * same arguments, where neither rule supersedes the other.  Near-linear when
 * there are none: N definitions free of conflicts form a chain in precedence
 * order ORDER (each rule supersedes the next), and then every pair is ordered;
 * otherwise only definitions that can overlap are compared (the same literal
 * first argument, or a wildcard there), and the pairs found are reported in
 * declaration order, the earlier definition in the note. */
static void report_conflicts(chk *c, value_rec *vr, const int *order, int *idx, int n) {
  program *p = c->p;
  int prev = -1, total = 0;
  while (order[total] >= 0) total++;
  bool chain = true, *in = mt_calloc((size_t)total + 1, sizeof *in);
  for (int m = 0; m < n; m++) in[idx[m]] = true;
  for (int k = 0; k < total && chain; k++) {
    int i = order[k];
    if (!in[i]) continue;
    if (prev >= 0 && vr->defs[prev].rule != vr->defs[i].rule && !supersedes_star(c, vr->defs[prev].rule, vr->defs[i].rule))
      chain = false;
    prev = i;
  }
  mt_free(in);
  if (chain) return;
  sort_defs = vr->defs;
  qsort(idx, (size_t)n, sizeof *idx, by_literal);
  int wild = 0;
  while (wild < n && !first_literal(&vr->defs[idx[wild]])) wild++;
  int (*pairs)[2] = mt_calloc(MAX_CONFLICTS, sizeof *pairs), np = 0;
  for (int x = 0; x < n && np < MAX_CONFLICTS; x++)
    for (int y = x + 1; y < n && np < MAX_CONFLICTS; y++) {
      if (x >= wild && literal_cmp(&vr->defs[idx[x]], &vr->defs[idx[y]])) break; /* another literal class */
      int i = idx[x] < idx[y] ? idx[x] : idx[y], j = idx[x] < idx[y] ? idx[y] : idx[x];
      value_def *a = &vr->defs[i], *b = &vr->defs[j];
      if (a->rule == b->rule || supersedes_star(c, a->rule, b->rule) || supersedes_star(c, b->rule, a->rule) ||
          !patterns_overlap(a, b))
        continue;
      pairs[np][0] = i, pairs[np][1] = j, np++;
    }
  qsort(pairs, (size_t)np, sizeof *pairs, by_pair);
  for (int k = 0; k < np; k++) { /* past the error limit the diag drops them, saying so once */
    value_def *a = &vr->defs[pairs[k][0]], *b = &vr->defs[pairs[k][1]];
    rule_rec *ra = &p->rules[a->rule], *rb = &p->rules[b->rule];
    diag_error(c->d, b->ast->span, "conflict: rules %s and %s (both at the %s level) define '%s' for overlapping "
               "cases, and neither supersedes the other", ra->id, rb->id, level_names[ra->level], vr->name);
    diag_note(c->d, a->ast->span, "rule %s defines it here", ra->id);
  }
  mt_free(pairs);
}

/* Orders definitions: superseding ones first, then by level (highest
 * first), then declaration order; reports overrides that do not say what
 * they supersede and static conflicts.
 *
 * The order is a topological sort of the supersedes graph (rule -> the rules
 * it lists) restricted to what lies below this value's rules: a definition
 * goes when every rule above it that defines the value has gone, through any
 * rules in between that do not define it; among those free to go, the
 * highest level, then the first declared.  Linear in the rules and links
 * involved (a value defined by 20,000 rules checks in milliseconds); a
 * supersedes cycle (reported elsewhere) releases its definitions in
 * declaration order. */
/* Per-rule arrays order_value uses for every value, allocated once: all
 * zero between values (each value clears what it touched, the rules in its
 * `reach`). */
typedef struct order_scratch {
  int *left, *indeg, *first, *stack, *reach;
  bool *below;
} order_scratch;

static void order_value(chk *c, value_rec *vr, order_scratch *o) {
  program *p = c->p;
  int n = vr->ndefs;
  if (n == 0) return;
  int *left = o->left, *indeg = o->indeg, *first = o->first, *stack = o->stack, *reach = o->reach;
  bool *below = o->below;
  /* the rules defining the value, and how many definitions each has */
  for (int i = 0; i < n; i++) left[vr->defs[i].rule]++;
  /* every rule one must declare 'supersedes' for: the override says what it replaces */
  for (int i = 0; i < n; i++) {
    value_def *d = &vr->defs[i];
    if (d->rule == vr->base_rule && d->ast->kids[1]) continue;
    bool ok = false;
    if (p->sup_row && p->sup_row[d->rule] >= 0) { /* a rule it supersedes, at any depth, that defines the value */
      const uint64_t *row = p->sup_bits + (size_t)p->sup_row[d->rule] * p->sup_words;
      for (size_t w = 0; w < p->sup_words && !ok; w++)
        for (uint64_t bits = row[w]; bits && !ok; bits &= bits - 1)
          ok = left[w * 64 + (size_t)__builtin_ctzll(bits)] > 0;
    }
    if (!ok)
      diag_error(c->d, d->ast->span, "rule %s redefines value '%s' (declared by rule %s) but does not say 'supersedes %s'",
                 p->rules[d->rule].id, vr->name, p->rules[vr->base_rule].id, p->rules[vr->base_rule].id);
  }
  /* the rules reachable from the defining ones, and each one's links from inside that set */
  int sp = 0, nreach = 0;
  for (int i = 0; i < n; i++)
    if (!below[vr->defs[i].rule]) below[vr->defs[i].rule] = true, stack[sp++] = vr->defs[i].rule;
  while (sp) {
    int v = stack[--sp];
    reach[nreach++] = v;
    for (int k = 0; k < p->rules[v].nsup; k++) {
      int w = p->rules[v].sup[k];
      indeg[w]++;
      if (!below[w]) below[w] = true, stack[sp++] = w;
    }
  }
  /* each rule's definitions, in declaration order */
  int *next = mt_calloc((size_t)n + 1, sizeof *next);
  for (int r = 0; r < nreach; r++) first[reach[r]] = -1;
  for (int i = n - 1; i >= 0; i--) next[i] = first[vr->defs[i].rule], first[vr->defs[i].rule] = i;
  def_heap h = {mt_calloc((size_t)n + 1, sizeof(int)), 0, vr, p};
  /* rules that do not define the value pass on at once; a defining one when its last definition goes */
  sp = 0;
  for (int r = 0; r < nreach; r++)
    if (!indeg[reach[r]]) stack[sp++] = reach[r];
  value_def *out = mt_calloc((size_t)n + 1, sizeof *out);
  int *ord = mt_calloc((size_t)n + 1, sizeof *ord);
  bool *used = mt_calloc((size_t)n + 1, sizeof *used);
  int k = 0, scan = 0;
  while (k < n) {
    while (sp) {
      int v = stack[--sp];
      if (left[v]) {
        for (int i = first[v]; i >= 0; i = next[i]) heap_push(&h, i);
        continue;
      }
      for (int e = 0; e < p->rules[v].nsup; e++)
        if (--indeg[p->rules[v].sup[e]] == 0) stack[sp++] = p->rules[v].sup[e];
    }
    int best;
    if (h.n) best = heap_pop(&h);
    else { /* a cycle: the first definition not placed yet */
      while (used[scan]) scan++;
      best = scan;
      indeg[vr->defs[best].rule] = -1; /* never queued again by a link */
    }
    if (used[best]) continue;
    used[best] = true;
    ord[k++] = best;
    int r = vr->defs[best].rule;
    if (--left[r] == 0)
      for (int e = 0; e < p->rules[r].nsup; e++)
        if (--indeg[p->rules[r].sup[e]] == 0) stack[sp++] = p->rules[r].sup[e];
  }
  /* which levels' definitions form a chain (each supersedes the next): the dispatcher then needs no
   * run-time conflict checks there (compile.c value_dispatch) */
  for (int lv = LEVEL_BASE; lv <= LEVEL_VARIANT; lv++) {
    int prev = -1;
    vr->ordered[lv] = true;
    for (int k2 = 0; k2 < n && vr->ordered[lv]; k2++) {
      const value_def *d = &vr->defs[ord[k2]];
      if (p->rules[d->rule].level != lv || p->rules[d->rule].disabled) continue;
      if (prev >= 0 && prev != d->rule && !supersedes_star(c, prev, d->rule)) vr->ordered[lv] = false;
      prev = d->rule;
    }
  }
  /* conflicts: unguarded definitions at one level (ord: the precedence order, by declaration index) */
  ord[n] = -1;
  int *idx = mt_calloc((size_t)n + 1, sizeof *idx);
  for (int lv = LEVEL_BASE; lv <= LEVEL_VARIANT; lv++) {
    int m = 0;
    for (int i = 0; i < n; i++)
      if (!vr->defs[i].ast->kids[2] && p->rules[vr->defs[i].rule].level == lv && !p->rules[vr->defs[i].rule].disabled) idx[m++] = i;
    if (m > 1) report_conflicts(c, vr, ord, idx, m);
  }
  for (int i = 0; i < n; i++) out[i] = vr->defs[ord[i]];
  memcpy(vr->defs, out, (size_t)n * sizeof *out);
  mt_free(idx);
  mt_free(ord);
  mt_free(out);
  mt_free(used);
  mt_free(h.v);
  mt_free(next);
  for (int r = 0; r < nreach; r++) {
    int v = reach[r];
    left[v] = indeg[v] = first[v] = 0;
    below[v] = false;
  }
}

static void declare_action(chk *c, int rule, node *a) {
  program *p = c->p;
  int old = chk_find_action(p, a->name);
  if (old >= 0) {
    diag_error(c->d, a->span, "action '%s' is declared twice", a->name);
    diag_note(c->d, p->actions[old].span, "first declared here");
    return;
  }
  action_rec r = {0};
  r.name = a->name;
  r.rule = rule;
  r.ast = a;
  r.span = a->span;
  r.cost_fn = r.guard_fn = r.effect_fn = r.tail_fn = -1;
  r.first_same = (int)p->nactions; /* its own index (fuse.c may find an earlier one alike) */
  node *params = a->kids[0];
  for (uint32_t i = 0; i < params->nkids && i < MAX_PARAMS; i++) {
    node *pa = params->kids[i];
    r.dom_fn[i] = r.lo_fn[i] = r.hi_fn[i] = r.prefix_fn[i] = r.nlo_fn[i] = r.nhi_fn[i] = -1;
    if (pa->kind != AST_PARAM) {
      diag_error(c->d, pa->span, "action parameters are typed: name: type [in domain]");
      r.ptype[r.nparams++] = TY_ERROR;
      continue;
    }
    r.pname[r.nparams] = pa->name;
    r.pdomain[r.nparams] = ast_kid(pa, 1);
    r.plisted[r.nparams] = pa->op == 1;
    r.ptype[r.nparams++] = parse_type(c, pa->kids[0]);
  }
  if (params->nkids > MAX_PARAMS) diag_error(c->d, a->span, "at most %d parameters", MAX_PARAMS);
  if (r.nparams == 0 || r.ptype[0] != TY_FACTION)
    diag_error(c->d, a->span, "the first parameter of an action is the faction taking it (f: faction)");
  node *items = a->kids[1];
  for (uint32_t i = 0; items && i < items->nkids; i++)
    if (items->kids[i] && items->kids[i]->kind == AST_KINDS) chk_add_kinds(c, &r, items->kids[i]);
  VEC_PUSH(p->actions, p->nactions, p->capactions, r);
}

static void add_guard(chk *c, action_rec *ar, int decl_rule, node *g, int check) {
  guard_rec gr = {0};
  gr.decl_rule = decl_rule;
  gr.check = check;
  gr.rule = g->name ? chk_rule_ref(c, g->name, g->span) : decl_rule;
  if (gr.rule < 0) gr.rule = decl_rule;
  gr.forbid = g->kind == AST_FORBID;
  gr.cond = g->kids[0];
  gr.span = g->span; /* the whole condition, quoted by why-not answers */
  chk_expect(c, gr.cond, TY_BOOL, chk_check_expr(c, gr.cond, TY_BOOL));
  VEC_PUSH(ar->guards, ar->nguards, ar->capguards, gr);
}

static void check_action(chk *c, int ai) {
  action_rec *ar = &c->p->actions[ai];
  node *a = ar->ast;
  chk_begin_fn(c, FN_PURE);
  /* The parameters take slots 0..n-1 and the cost slot n, whatever their domains declare: a
   * comprehension in a domain ([x in S where ...]) binds its variable in a slot past them. */
  if (ar->nparams + 1 > MAX_LOCALS) {
    diag_error(c->d, a->span, "too many local names in one function (the limit is %d)", MAX_LOCALS);
    return;
  }
  c->nslots = ar->nparams + 1;
  for (int i = 0; i < ar->nparams; i++) {
    node *dom = ar->pdomain[i];
    if (dom) {
      int t = chk_check_expr(c, dom, TY_ERROR);
      int e = t == TY_RANGE ? TY_INT : t == TY_PILE ? TY_CARD : (t & TY_SETBIT) ? t & ~TY_SETBIT : TY_ERROR;
      ar->dom_pile[i] = t == TY_PILE;
      if (t != TY_ERROR && t != TY_RANGE && t != TY_PILE && !(t & TY_SETBIT))
        diag_error(c->d, dom->span, "a parameter's domain is a set, a range or a pile, not %s", TN(t));
      else if (t != TY_ERROR && !chk_compatible(ar->ptype[i], e))
        diag_error(c->d, dom->span, "the domain of '%s' holds %s, but the parameter is %s", ar->pname[i], TN(e), TN(ar->ptype[i]));
    } else if (ar->ptype[i] == TY_INT) {
      diag_error(c->d, a->kids[0]->kids[i]->span, "integer parameter '%s' needs a domain (in a..b) so that choices can be listed", ar->pname[i]);
    } else if (ar->ptype[i] != TY_ERROR && chk_domain_size(c, ar->ptype[i]) < 0) {
      diag_error(c->d, a->kids[0]->kids[i]->span, "parameter '%s' of type %s needs a domain (in SET)", ar->pname[i], TN(ar->ptype[i]));
    }
    chk_declare_at(c, ar->pname[i], ar->ptype[i], i, a->kids[0]->kids[i]->span);
  }
  chk_declare_at(c, "cost", TY_INT, ar->nparams, a->span);
  node *items = a->kids[1];
  for (uint32_t i = 0; i < items->nkids; i++) {
    node *it = items->kids[i];
    if (!it || it->kind != AST_COST) continue;
    if (ar->cost) diag_error(c->d, it->span, "action '%s' has two costs", ar->name);
    ar->cost = it->kids[0];
    chk_expect(c, it->kids[0], TY_INT, chk_check_expr(c, it->kids[0], TY_INT));
  }
  for (uint32_t i = 0; i < items->nkids; i++) {
    node *it = items->kids[i];
    if (it && (it->kind == AST_REQUIRE || it->kind == AST_FORBID)) add_guard(c, ar, ar->rule, it, -1);
  }
  for (uint32_t i = 0; i < items->nkids; i++) {
    node *it = items->kids[i];
    if (!it || it->kind != AST_EFFECT) continue;
    if (ar->effect) diag_error(c->d, it->span, "action '%s' has two effects", ar->name);
    ar->effect = it->kids[0];
    c->kind = FN_EFFECT;
    chk_check_block(c, it->kids[0]);
    c->kind = FN_PURE;
  }
  if (c->nslots > a->slot) a->slot = c->nslots;
}

static void check_check(chk *c, int rule, node *k) {
  program *p = c->p;
  int ai = chk_find_action(p, k->name);
  if (ai < 0) {
    cands cs = {0};
    for (int i = 0; i < p->nactions; i++) chk_cand(&cs, p->actions[i].name);
    chk_unknown(c, k->span, "action", k->name, &cs);
    return;
  }
  action_rec *ar = &p->actions[ai];
  node *binders = k->kids[0];
  if ((int)binders->nkids != ar->nparams) {
    diag_error(c->d, k->span, "action '%s' has %d parameters; this check binds %u", k->name, ar->nparams, binders->nkids);
    return;
  }
  const rule_rec *rr = &p->rules[rule];
  /* a rule adding guards amends the action's rule, or lifts guards it supersedes */
  bool linked = rule == ar->rule || rr->nsup > 0;
  for (int i = 0; i < rr->namd && !linked; i++) linked = rr->amd[i] == ar->rule;
  if (!linked)
    diag_error(c->d, k->span, "rule %s adds guards to action '%s' (rule %s) but neither amends nor supersedes anything",
               rr->id, k->name, p->rules[ar->rule].id);
  chk_begin_fn(c, FN_PURE);
  for (int i = 0; i < ar->nparams; i++) chk_declare(c, binders->kids[i]->name, ar->ptype[i], binders->kids[i]->span);
  chk_declare(c, "cost", TY_INT, k->span);
  if (k->kids[1]) chk_expect(c, k->kids[1], TY_BOOL, chk_check_expr(c, k->kids[1], TY_BOOL));
  node *items = k->kids[2];
  for (uint32_t i = 0; i < items->nkids; i++) {
    node *it = items->kids[i];
    if (!it) continue;
    if (it->kind == AST_REQUIRE || it->kind == AST_FORBID) add_guard(c, &p->actions[ai], rule, it, p->nchecks);
    else if (it->kind == AST_KINDS) continue; /* added with the declarations (sema_check, pass 1) */
    else diag_error(c->d, it->span, "a check adds guards (require/forbid); costs and effects belong to the action");
  }
  k->slot = c->nslots;
  check_rec cr = {rule, ai, k, -1};
  VEC_PUSH(p->checks, p->nchecks, p->capchecks, cr);
  if (c->nslots > ar->ast->slot) ar->ast->slot = c->nslots;
}

static void check_trigger(chk *c, int rule, node *t) {
  program *p = c->p;
  int e = chk_find_event(p, t->name);
  if (e < 0) {
    cands cs = {0};
    for (int i = 0; i < p->nevents; i++) chk_cand(&cs, p->events[i].name);
    chk_unknown(c, t->span, "event", t->name, &cs);
    return;
  }
  node *binders = t->kids[0];
  if ((int)binders->nkids != p->events[e].nparams) {
    diag_error(c->d, t->span, "event '%s' has %d parameters; this trigger binds %u", t->name, p->events[e].nparams,
               binders->nkids);
    return;
  }
  chk_begin_fn(c, FN_PURE);
  for (int i = 0; i < p->events[e].nparams; i++) chk_declare(c, binders->kids[i]->name, p->events[e].ptype[i], binders->kids[i]->span);
  if (t->kids[1]) chk_expect(c, t->kids[1], TY_BOOL, chk_check_expr(c, t->kids[1], TY_BOOL));
  c->kind = FN_EFFECT;
  chk_check_block(c, t->kids[2]);
  t->slot = c->nslots;
  trigger_rec tr = {rule, e, t->op, p->rules[rule].faction, t, -1, -1};
  if (t->op == TRIG_INSTEAD) {
    /* it replaces the on-handlers: its rule must supersede theirs */
    for (uint32_t r = 0; r < (uint32_t)p->nrules; r++) {
      node *items = p->rules[r].items;
      for (uint32_t i = 0; items && i < items->nkids; i++) {
        node *it = items->kids[i];
        if (it && it->kind == AST_TRIGGER && it->op == TRIG_ON && !strcmp(it->name, t->name) && (int)r != rule &&
            !p->rules[r].disabled && !supersedes_star(c, rule, (int)r)) {
          diag_error(c->d, t->span, "rule %s replaces the handling of '%s' (instead of) but does not say 'supersedes %s'",
                     p->rules[rule].id, t->name, p->rules[r].id);
          diag_note(c->d, it->span, "rule %s handles '%s' here", p->rules[r].id, t->name);
        }
      }
    }
  }
  VEC_PUSH(p->triggers, p->ntriggers, p->captriggers, tr);
}

static void declare_proc(chk *c, int rule, node *pr) {
  program *p = c->p;
  if (chk_find_proc(p, pr->name) >= 0 || chk_find_named_rule(p, pr->name) >= 0) {
    diag_error(c->d, pr->span, "'%s' is already the name of a procedure, phase or step", pr->name);
    return;
  }
  proc_rec r = {0};
  r.name = pr->name;
  r.rule = rule;
  r.ast = pr;
  r.fn = -1;
  node *params = pr->kids[0];
  for (uint32_t i = 0; i < params->nkids && i < MAX_PARAMS; i++) r.ptype[r.nparams++] = parse_type(c, params->kids[i]->kids[0]);
  VEC_PUSH(p->procs, p->nprocs, p->capprocs, r);
}

static void check_proc(chk *c, int pi) {
  proc_rec *pr = &c->p->procs[pi];
  chk_begin_fn(c, FN_EFFECT);
  node *params = pr->ast->kids[0];
  for (int i = 0; i < pr->nparams; i++) chk_declare(c, params->kids[i]->name, pr->ptype[i], params->kids[i]->span);
  chk_check_block(c, pr->ast->kids[1]);
  pr->ast->slot = c->nslots;
}

/* `verb NAME(params) = ACTION(args)`: the arguments are pure expressions of the verb's
 * parameters, each of the type of the action's parameter it fills. */
static void check_verb(chk *c, int rule, node *v) {
  program *p = c->p;
  for (int i = 0; i < p->nverbs; i++)
    if (!strcmp(p->verbs[i].name, v->name)) {
      diag_error(c->d, v->span, "verb '%s' is declared twice", v->name);
      diag_note(c->d, p->verbs[i].ast->span, "first declared here");
      return;
    }
  verb_rec vr = {0};
  vr.name = v->name;
  vr.rule = rule;
  vr.ast = v;
  if (v->str) { /* `verb land = ship`: another word players use for an action, a kind or a verb */
    bool known = false;
    for (int k = 0; k < p->nactions; k++) {
      known |= !strcmp(p->actions[k].name, v->str);
      for (int j = 0; j < p->actions[k].nkinds; j++) known |= !strcmp(p->actions[k].kinds[j], v->str);
    }
    for (int k = 0; k < p->nverbs; k++) known |= !p->verbs[k].alias && !strcmp(p->verbs[k].name, v->str);
    if (!known) { /* the error, with a suggestion among the actions, kinds and verbs (chk_unknown frees them) */
      cands cs = {0};
      for (int k = 0; k < p->nactions; k++) {
        chk_cand(&cs, p->actions[k].name);
        for (int j = 0; j < p->actions[k].nkinds; j++) chk_cand(&cs, p->actions[k].kinds[j]);
      }
      for (int k = 0; k < p->nverbs; k++) chk_cand(&cs, p->verbs[k].name);
      chk_unknown(c, v->span, "action, kind or verb", v->str, &cs);
      return;
    }
    vr.alias = v->str;
    vr.action = -1;
    VEC_PUSH(p->verbs, p->nverbs, p->capverbs, vr);
    return;
  }
  node *params = v->kids[0], *call = v->kids[1];
  chk_begin_fn(c, FN_PURE);
  for (uint32_t i = 0; i < params->nkids && i < MAX_PARAMS; i++) {
    node *pa = params->kids[i];
    if (pa->kind != AST_PARAM) {
      diag_error(c->d, pa->span, "a verb's parameters are typed: name: type");
      return;
    }
    vr.pname[vr.nparams] = pa->name;
    vr.ptype[vr.nparams] = parse_type(c, pa->kids[0]);
    chk_declare_at(c, pa->name, vr.ptype[vr.nparams], vr.nparams, pa->span);
    vr.nparams++;
  }
  c->nslots = vr.nparams > c->nslots ? vr.nparams : c->nslots;
  if (vr.nparams == 0 || vr.ptype[0] != TY_FACTION)
    diag_error(c->d, v->span, "the first parameter of a verb is the faction taking the action (f: faction)");
  vr.action = chk_find_action(p, call->name);
  if (vr.action < 0) {
    cands cs = {0};
    for (int k = 0; k < p->nactions; k++) chk_cand(&cs, p->actions[k].name);
    chk_unknown(c, call->span, "action", call->name, &cs);
    return;
  }
  const action_rec *ar = &p->actions[vr.action];
  if ((int)call->nkids != ar->nparams) {
    diag_error(c->d, call->span, "action '%s' has %d parameters; the verb gives %u", ar->name, ar->nparams, call->nkids);
    return;
  }
  for (uint32_t i = 0; i < call->nkids; i++) {
    int t = chk_check_expr(c, call->kids[i], ar->ptype[i]);
    if (t != TY_ERROR && !chk_compatible(ar->ptype[i], t))
      diag_error(c->d, call->kids[i]->span, "parameter '%s' of '%s' is %s, not %s", ar->pname[i], ar->name, TN(ar->ptype[i]), TN(t));
  }
  vr.nlocals = c->nslots;
  VEC_PUSH(p->verbs, p->nverbs, p->capverbs, vr);
}

static bool is_member(const node *n) {
  return n && (n->kind == AST_VALUE || n->kind == AST_ACTION || n->kind == AST_CHECK || n->kind == AST_TRIGGER ||
               n->kind == AST_PROC || n->kind == AST_INVARIANT || n->kind == AST_VERB);
}

/* How a rule variable of type TY is saved: its board type and names. */
static void decl_type(program *p, int ty, board_var_decl *bd) {
  const board_def *def = p->def;
  bd->set = (ty & TY_SETBIT) != 0;
  ty &= ~TY_SETBIT;
  bd->type = BT_NAME;
  if (chk_is_enum(ty) && ty - TY_ENUM0 < p->nenums) {
    bd->names = (const char *const *)p->enums[ty - TY_ENUM0].values;
    bd->nnames = p->enums[ty - TY_ENUM0].nvalues;
    return;
  }
  switch (ty) {
  case TY_BOOL: bd->type = BT_BOOL; return;
  case TY_FACTION: bd->type = BT_FACTION; return;
  case TY_TERRITORY: bd->type = BT_AREA; return;
  case TY_SECTOR: bd->type = BT_SECTOR; return;
  case TY_CARD: bd->type = BT_CARD; return;
  case TY_LEADER: bd->type = BT_LEADER; return;
  case TY_PILE: bd->type = BT_PILE; return;
  case TY_LOC: bd->type = BT_LOC; return;
  case TY_KIND: bd->names = (const char *const *)def->kinds, bd->nnames = def->nkinds; return;
  case TY_TAG: bd->names = (const char *const *)def->tags, bd->nnames = def->ntags; return;
  case TY_RULE:
    if (!p->rule_ids) {
      p->rule_ids = mt_calloc((size_t)p->nrules + 1, sizeof *p->rule_ids);
      for (int i = 0; i < p->nrules; i++) p->rule_ids[i] = p->rules[i].id;
    }
    bd->names = p->rule_ids, bd->nnames = p->nrules;
    return;
  case TY_POOL:
    if (!p->pool_names) {
      p->pool_names = mt_calloc((size_t)def->npools + 1, sizeof *p->pool_names);
      for (int i = 0; i < def->npools; i++) p->pool_names[i] = def->pools[i].name;
    }
    bd->names = p->pool_names, bd->nnames = def->npools;
    return;
  case TY_PILENAME:
    if (!p->pile_names) {
      p->pile_names = mt_calloc((size_t)def->npiles + 1, sizeof *p->pile_names);
      for (int i = 0; i < def->npiles; i++) p->pile_names[i] = def->piles[i].name;
    }
    bd->names = p->pile_names, bd->nnames = def->npiles;
    return;
  default: bd->type = BT_INT; return;
  }
}

bool sema_check(program *p, diag *d, arena *a) {
  int before = diag_errors(d);
  chk c = {0};
  c.p = p;
  c.d = d;
  c.a = a;
  c.def = p->def;
  closure(&c);
  /* pass 1: declarations of every active rule */
  for (int r = 0; r < p->nrules; r++) {
    rule_rec *rr = &p->rules[r];
    if (rr->disabled) continue;
    for (uint32_t i = 0; rr->items && i < rr->items->nkids; i++) {
      node *it = rr->items->kids[i];
      if (!it) continue;
      if (it->kind == AST_VALUE && it->kids[1]) declare_value(&c, r, it);
      else if (it->kind == AST_ACTION) declare_action(&c, r, it);
      else if (it->kind == AST_PROC) declare_proc(&c, r, it);
    }
  }
  /* the kinds a check gives its action (`is K` in a check of a rule in force) */
  for (int r = 0; r < p->nrules; r++) {
    rule_rec *rr = &p->rules[r];
    if (rr->disabled) continue;
    for (uint32_t i = 0; rr->items && i < rr->items->nkids; i++) {
      node *it = rr->items->kids[i];
      if (!it || it->kind != AST_CHECK) continue;
      int ai = chk_find_action(p, it->name);
      for (uint32_t j = 0; ai >= 0 && j < it->kids[2]->nkids; j++)
        if (it->kids[2]->kids[j] && it->kids[2]->kids[j]->kind == AST_KINDS) chk_add_kinds(&c, &p->actions[ai], it->kids[2]->kids[j]);
    }
  }
  (void)is_member;
  /* computed initial values of variables: pure expressions, evaluated when a game is created */
  for (int i = 0; i < p->nvars; i++) {
    var_rec *vr = &p->vars[i];
    if (!vr->init_computed) continue;
    chk_begin_fn(&c, FN_PURE);
    int t = chk_check_expr(&c, vr->init, vr->type);
    if (!chk_compatible(vr->type, t)) diag_error(d, vr->init->span, "%s holds %s, not %s", vr->name, TN(vr->type), TN(t));
    const node *later = reads_later_computed(p, vr->init, i);
    if (later)
      diag_error(d, later->span, "the initial value of '%s' reads '%s', which is computed %s: declare '%s' first", vr->name,
                 p->vars[later->sym].name, later->sym == i ? "by this very expression" : "after it", p->vars[later->sym].name);
    vr->init_nlocals = c.nslots;
  }
  /* pass 2: bodies */
  for (int r = 0; r < p->nrules; r++) {
    rule_rec *rr = &p->rules[r];
    if (rr->disabled) continue;
    c.rule = r;
    node *items = rr->items;
    bool has_stmts = false;
    for (uint32_t i = 0; items && i < items->nkids; i++) {
      node *it = items->kids[i];
      if (!it) continue;
      switch (it->kind) {
      case AST_VALUE: check_value_def(&c, r, it, it->kids[1] != NULL); break;
      case AST_CHECK: check_check(&c, r, it); break;
      case AST_TRIGGER: check_trigger(&c, r, it); break;
      case AST_ACTION: case AST_PROC: case AST_RULE: case AST_VERB: break;
      case AST_INVARIANT: {
        chk_begin_fn(&c, FN_PURE);
        chk_expect(&c, it->kids[0], TY_BOOL, chk_check_expr(&c, it->kids[0], TY_BOOL));
        invariant_rec iv = {r, it->str, it->kids[0], -1, c.nslots, NULL, -1, 0};
        if (it->nkids > 1 && it->kids[1]) { /* the repair: statements, run as an effect without parameters */
          chk_begin_fn(&c, FN_EFFECT);
          chk_check_block(&c, it->kids[1]);
          iv.repair = it->kids[1];
          iv.repair_nlocals = c.nslots;
        }
        VEC_PUSH(p->invariants, p->ninvariants, p->capinvariants, iv);
        break;
      }
      default: has_stmts = true; break;
      }
    }
    if (has_stmts || rr->form == RF_PHASE || rr->form == RF_STEP || rr->form == RF_GAME) {
      chk_begin_fn(&c, FN_EFFECT);
      int save = c.nlocals;
      for (uint32_t i = 0; items && i < items->nkids; i++) {
        node *it = items->kids[i];
        if (!it || it->kind == AST_RULE || is_member(it)) continue;
        chk_check_stmt(&c, it);
      }
      c.nlocals = save;
      if (items) items->slot = c.nslots;
    }
    if ((rr->tags & TAG_KARAMA) && rr->form != RF_RULE && rr->form != RF_ABILITY && rr->form != RF_VALUE &&
        rr->form != RF_ACTION)
      diag_warning(d, rr->span, "karama tag on a %s rule", rr->form == RF_PHASE ? "phase" : rr->form == RF_STEP ? "step" : "game");
  }
  for (int i = 0; i < p->nactions; i++) {
    c.rule = p->actions[i].rule;
    check_action(&c, i);
  }
  for (int i = 0; i < p->nprocs; i++) {
    c.rule = p->procs[i].rule;
    check_proc(&c, i);
  }
  for (int r = 0; r < p->nrules; r++) { /* verbs: players' words for actions */
    rule_rec *rr = &p->rules[r];
    if (rr->disabled) continue;
    c.rule = r;
    for (uint32_t i = 0; rr->items && i < rr->items->nkids; i++)
      if (rr->items->kids[i] && rr->items->kids[i]->kind == AST_VERB) check_verb(&c, r, rr->items->kids[i]);
  }
  order_scratch os;
  size_t nr = (size_t)p->nrules + 1;
  os.left = mt_calloc(nr, sizeof(int)), os.indeg = mt_calloc(nr, sizeof(int)), os.first = mt_calloc(nr, sizeof(int));
  os.stack = mt_calloc(nr, sizeof(int)), os.reach = mt_calloc(nr, sizeof(int)), os.below = mt_calloc(nr, sizeof(bool));
  for (int i = 0; i < p->nvalues; i++) order_value(&c, &p->values[i], &os);
  mt_free(os.left), mt_free(os.indeg), mt_free(os.first), mt_free(os.stack), mt_free(os.reach), mt_free(os.below);
  if (p->order_node) {
    int k = chk_find_value(p, p->order_node->name);
    if (k < 0) {
      cands cs = {0};
      for (int i = 0; i < p->nvalues; i++) chk_cand(&cs, p->values[i].name);
      chk_unknown(&c, p->order_node->span, "value", p->order_node->name, &cs);
    } else if (p->values[k].nparams != 1 || p->values[k].ptype[0] != TY_FACTION || p->values[k].ret != TY_INT) {
      diag_error(d, p->order_node->span, "triggers are ordered by a value of one faction giving an int; '%s' is not",
                 p->order_node->name);
    } else {
      p->order_value = k;
    }
  }
  /* rule-declared variables become board variable declarations, typed so
   * that a saved position names their values and is checked against them */
  p->var_decls = mt_calloc((size_t)p->nvars + 1, sizeof *p->var_decls);
  for (int i = 0; i < p->nvars; i++) {
    var_rec *v = &p->vars[i];
    if (v->data) continue;
    v->board_var = p->def->nvars + p->nvar_decls;
    board_var_decl bd = {0};
    bd.name = v->name;
    bd.scope = v->scope == BS_FACTION ? BS_FACTION : BS_GLOBAL;
    bd.len = v->cells;
    bd.width = v->width;
    bd.initial = (int32_t)v->init_value;
    bd.visibility = v->secret ? VIS_OWNER : VIS_PUBLIC;
    decl_type(p, v->type, &bd);
    p->var_decls[p->nvar_decls++] = bd;
  }
  return diag_errors(d) == before;
}

/* Top-level declarations (events, variables, trigger order) come before the rules. */
bool sema_declare(program *p, node *const *files, int nfiles, diag *d, arena *a) {
  int before = diag_errors(d);
  chk c = {0};
  c.p = p;
  c.d = d;
  c.a = a;
  c.def = p->def;
  chk_naming = p;
  chk_data_enums(p);
  for (int f = 0; f < nfiles; f++)
    for (uint32_t i = 0; i < files[f]->nkids; i++) {
      node *n = files[f]->kids[i];
      if (n && n->kind == AST_EVENT) declare_event(&c, n);
      if (n && n->kind == AST_ORDER) {
        if (p->order_node) {
          diag_error(d, n->span, "the trigger order is given twice");
          diag_note(d, p->order_node->span, "first given here");
        }
        p->order_node = n;
      }
    }
  data_vars(&c);
  for (int f = 0; f < nfiles; f++)
    for (uint32_t i = 0; i < files[f]->nkids; i++) {
      node *n = files[f]->kids[i];
      if (n && n->kind == AST_VARDECL) declare_var(&c, n);
    }
  return diag_errors(d) == before;
}

/* Types one console expression against a compiled program (pure context, no
 * locals); returns its type or TY_ERROR (errors reported to D). */
int sema_check_expr(program *p, diag *d, arena *a, node *e, int want, int *nslots) {
  int before = diag_errors(d);
  chk c = {0};
  c.p = p;
  c.d = d;
  c.a = a;
  c.def = p->def;
  chk_naming = p;
  chk_begin_fn(&c, FN_PURE);
  int t = chk_check_expr(&c, e, want);
  *nslots = c.nslots; /* not in e->slot: a comprehension keeps its variable there */
  if (t == TY_RANGE || t == TY_STR || t == TY_VOID) {
    diag_error(d, e->span, "this is not a value that can be shown");
    return TY_ERROR;
  }
  return diag_errors(d) == before ? t : TY_ERROR;
}
