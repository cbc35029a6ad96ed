/* ruleset_report.c -- reports over a whole compiled rule set, on top of the
 * registry (resolve.c) and the hook tables (check_decl.c), like explain.c:
 *   - `mentat diff`: what the chosen variants change against the same pack
 *     and ruleset without them, the page a tournament director reads before
 *     a game;
 *   - `mentat graph`: the rules, their supersedes/amends links and what each
 *     hooks (values, events, actions, procedures), as Graphviz DOT.
 * Nothing here runs a game or prints: the results go to a strbuf. */
#include "ruleset_report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "game.h"
#include "program.h"

/* ======================================================================
 * Phases: where a change or a rule belongs
 * ====================================================================== */

static bool numbered_in_play(const char *id) { return (id[0] == '0' || id[0] == '1') && id[1] == '.'; }

bool rules_reach(const program *p, const node *n, const char *event, int action, int depth) {
  if (!n || depth > 200) return false;
  if (event && n->kind == AST_SIGNAL && !strcmp(n->name, event)) return true;
  if (action >= 0 && n->kind == AST_ACT && n->sym >= 0 && n->sym < p->nlists)
    for (int i = 0; i < p->nlist[n->sym]; i++)
      if (p->lists[n->sym][i] == action) return true;
  for (uint32_t i = 0; i < n->nkids; i++)
    if (rules_reach(p, n->kids[i], event, action, depth + 1)) return true;
  return false;
}

/* Does N offer ACTION in an `act` of its own (the statements of a nested rule are that rule's)? */
static bool offers_own(const program *p, const node *n, int action, int depth) {
  if (!n || depth > 200 || (depth > 0 && n->kind == AST_RULE)) return false;
  if (n->kind == AST_ACT && n->sym >= 0 && n->sym < p->nlists)
    for (int i = 0; i < p->nlist[n->sym]; i++)
      if (p->lists[n->sym][i] == action) return true;
  for (uint32_t i = 0; i < n->nkids; i++)
    if (offers_own(p, n->kids[i], action, depth + 1)) return true;
  return false;
}

int rules_offering(const program *p, int action, strbuf *out) {
  int n = 0;
  for (int q = 0; q < p->nrules; q++) {
    const rule_rec *rr = &p->rules[q];
    if (rr->disabled || !rr->items) continue;
    bool own = false;
    for (uint32_t i = 0; i < rr->items->nkids && !own; i++) own = offers_own(p, rr->items->kids[i], action, 1);
    if (!own) continue;
    int ph = rr->parent;
    while (ph >= 0 && p->rules[ph].form != RF_PHASE) ph = p->rules[ph].parent;
    sb_printf(out, "%s%s (%s)", n++ ? "; " : "", rr->id, rr->title ? rr->title : "");
    if (ph >= 0 && ph != q) sb_printf(out, ", in %s (%s)", p->rules[ph].id, p->rules[ph].title ? p->rules[ph].title : "");
  }
  return n;
}

/* The numbered rule in whose phase rule R's hooks run, or -1: the first
 * numbered rule (in force) that signals an event R triggers on, or offers an
 * action R declares: where a faction ability that links to nothing (a
 * trigger of its own, say) takes effect. */
static int hook_phase(const program *p, int r) {
  for (int t = 0; t < p->ntriggers; t++) {
    if (p->triggers[t].rule != r) continue;
    const char *ev = p->events[p->triggers[t].event].name;
    for (int q = 0; q < p->nrules; q++)
      if (!p->rules[q].disabled && numbered_in_play(p->rules[q].id) && rules_reach(p, p->rules[q].items, ev, -1, 0)) return q;
  }
  for (int a = 0; a < p->nactions; a++) {
    if (p->actions[a].rule != r) continue;
    for (int q = 0; q < p->nrules; q++)
      if (!p->rules[q].disabled && numbered_in_play(p->rules[q].id) && rules_reach(p, p->rules[q].items, NULL, a, 0)) return q;
  }
  return -1;
}

/* The group key of rule R into BUF: "0" for the setup rules (0.xx), "1.XX"
 * for rules numbered under a phase of play (1.04.02 -> 1.04).  Any other
 * rule (faction abilities 2.xx, cards 3.xx, namespaced house rules) belongs
 * where what it changes belongs: its first supersedes or amends target, else
 * its enclosing rule, else the phase its hooks run in (hook_phase); failing
 * those, "abilities", "cards" or "other". */
static void group_of(const program *p, int r, char *buf, size_t n, int depth) {
  const rule_rec *rr = &p->rules[r];
  const char *id = rr->id;
  if (numbered_in_play(id)) {
    size_t k = 2;
    while (id[k] && id[k] != '.') k++;
    snprintf(buf, n, "%.*s", id[0] == '0' ? 1 : (int)k, id);
    return;
  }
  int next = depth >= 8 ? -1 : rr->nsup ? rr->sup[0] : rr->namd ? rr->amd[0] : rr->parent;
  if (next < 0 && depth < 8) next = hook_phase(p, r);
  if (next >= 0) group_of(p, next, buf, n, depth + 1);
  else snprintf(buf, n, "%s", rr->faction >= 0 ? "abilities" : rr->card >= 0 ? "cards" : "other");
}

/* Numbered groups first, in number order (1.9 before 1.10), then the rest. */
static int group_cmp(const char *a, const char *b) {
  static const char *const named[] = {"abilities", "cards", "other"};
  int ra = 0, rb = 0;
  for (int i = 0; i < 3; i++) {
    if (!strcmp(a, named[i])) ra = i + 1;
    if (!strcmp(b, named[i])) rb = i + 1;
  }
  if (ra || rb) return ra - rb;
  while (*a && *b) {
    char *ea, *eb;
    long x = strtol(a, &ea, 10), y = strtol(b, &eb, 10);
    if (x != y) return x < y ? -1 : 1;
    a = *ea == '.' ? ea + 1 : ea;
    b = *eb == '.' ? eb + 1 : eb;
    if (ea == a && eb == b) break;
  }
  return strcmp(a, b);
}

/* A group's heading: "1.04 Bidding" (the title of the rule numbered so). */
static void group_label(const program *p, const char *key, strbuf *out) {
  if (!strcmp(key, "0")) sb_puts(out, "0 Setup");
  else if (!strcmp(key, "abilities")) sb_puts(out, "Faction abilities");
  else if (!strcmp(key, "cards")) sb_puts(out, "Cards");
  else if (!strcmp(key, "other")) sb_puts(out, "Other rules");
  else {
    int k = sema_find_rule(p, key);
    sb_printf(out, "%s%s%s", key, k >= 0 ? " " : "", k >= 0 && p->rules[k].title ? p->rules[k].title : "");
  }
}

/* ======================================================================
 * diff
 * ====================================================================== */

typedef struct change {
  const char *kind;    /* added, replaced, disabled, superseded, amended */
  int rule, target;    /* rules of the set with variants; target -1 when none */
  const char *variant; /* the variant that made the change, or NULL */
  char group[32];
  int seq;             /* order found: ties within a group keep it */
} change;

static int change_cmp(const void *x, const void *y) {
  const change *a = x, *b = y;
  int c = group_cmp(a->group, b->group);
  return c ? c : a->seq - b->seq;
}

static bool in_names(const char *s, char *const *names, int n) {
  for (int i = 0; i < n; i++)
    if (!strcmp(s, names[i])) return true;
  return false;
}

/* The applied variant whose `disable` names rule ID: among the variants
 * named when W was loaded (all those of a file given as --variant FILE) and
 * those they extend.  NULL when none names it (it went with its parent). */
static const char *disabled_by(const mt_rules *w, const char *id) {
  char *list = mt_strdup(w->variant_names ? w->variant_names : ""); /* by declared name: a file's variants too */
  char *names[64];
  int nn = 0;
  for (char *s = list, *e; *s && nn < 64; s = e) {
    e = strchr(s, ',');
    if (e) *e++ = 0;
    else e = s + strlen(s);
    names[nn++] = s;
  }
  const node *applied[64];
  int na = 0;
  for (int t = 0; t < w->ntrees; t++) {
    bool file = t < w->nsources && w->variant_file[t] && in_names(diag_source_name(w->d, w->source_ids[t]), names, nn);
    for (uint32_t k = 0; w->trees[t] && k < w->trees[t]->nkids && na < 64; k++) {
      const node *v = w->trees[t]->kids[k];
      if (v && v->kind == AST_VARIANT && (file || in_names(v->name, names, nn))) applied[na++] = v;
    }
  }
  for (int i = 0; i < na; i++) { /* the extends chains and the parts: applied grows as it is read */
    const node *base = applied[i]->flags & AST_VARIANT_PART ? NULL : ast_kid(applied[i], 0);
    for (int t = 0; t < w->ntrees; t++)
      for (uint32_t k = 0; w->trees[t] && k < w->trees[t]->nkids && na < 64; k++) {
        const node *v = w->trees[t]->kids[k];
        bool seen = false;
        for (int j = 0; j < na && !seen; j++) seen = applied[j] == v;
        if (!v || v->kind != AST_VARIANT || seen) continue;
        bool part = (v->flags & AST_VARIANT_PART) && ast_kid(v, 0) && !strcmp(ast_kid(v, 0)->name, applied[i]->name);
        if (part || (base && !(v->flags & AST_VARIANT_PART) && !strcmp(v->name, base->name))) applied[na++] = v;
      }
  }
  const char *by = NULL;
  for (int i = 0; i < na && !by; i++)
    for (uint32_t k = 1; k < applied[i]->nkids && !by; k++) {
      const node *it = applied[i]->kids[k];
      if (it && it->kind == AST_DISABLE && !strcmp(it->name, id)) by = applied[i]->flags & AST_VARIANT_PART ? ast_kid(applied[i], 0)->name : applied[i]->name;
    }
  mt_free(list);
  return by;
}

static void add_change(change **v, int *n, int *cap, const program *p, const char *kind, int rule, int target,
                       const char *variant) {
  change c = {kind, rule, target, variant, "", *n};
  group_of(p, target >= 0 && strcmp(kind, "disabled") ? target : rule, c.group, sizeof c.group, 0);
  VEC_PUSH(*v, *n, *cap, c);
}

/* Every change of WITH against BASE, in registry order. */
static change *collect_changes(const mt_rules *base, const mt_rules *with, int *count) {
  const program *p = &with->prog, *b = &base->prog;
  change *v = NULL;
  int n = 0, cap = 0;
  for (int i = 0; base != with && i < p->nrules; i++) {
    const rule_rec *rr = &p->rules[i];
    int k = sema_find_rule(b, rr->id);
    if (k < 0) {
      add_change(&v, &n, &cap, p, "added", i, -1, rr->variant);
      for (int j = 0; j < rr->nsup; j++) add_change(&v, &n, &cap, p, "superseded", i, rr->sup[j], rr->variant);
      for (int j = 0; j < rr->namd; j++) add_change(&v, &n, &cap, p, "amended", i, rr->amd[j], rr->variant);
      continue;
    }
    if (rr->replaced && !b->rules[k].replaced) add_change(&v, &n, &cap, p, "replaced", i, -1, rr->replaced_by);
    if (rr->disabled && !b->rules[k].disabled) {
      const char *by = disabled_by(with, rr->id);
      int top = -1; /* a nested rule goes with the rule a variant disabled */
      for (int q = rr->parent; !by && q >= 0; q = p->rules[q].parent)
        if ((by = disabled_by(with, p->rules[q].id))) top = q;
      add_change(&v, &n, &cap, p, "disabled", i, top, by);
    }
  }
  if (n > 1) qsort(v, (size_t)n, sizeof *v, change_cmp);
  *count = n;
  return v;
}

static void diff_json(const mt_rules *with, const change *c, int n, strbuf *out) {
  const program *p = &with->prog;
  sb_puts(out, "{\"base\":{\"pack\":");
  sb_json_str(out, with->components ? with->components : "");
  sb_printf(out, ",\"ruleset\":\"%s\"},\"variants\":", with->advanced ? "advanced" : "basic");
  sb_json_list(out, with->variant_list);
  sb_puts(out, ",\"changes\":[");
  for (int i = 0; i < n; i++) {
    const rule_rec *rr = &p->rules[c[i].rule];
    sb_printf(out, "%s\n{\"kind\":\"%s\",\"rule\":", i ? "," : "", c[i].kind);
    sb_json_str(out, rr->id);
    sb_puts(out, ",\"title\":");
    sb_json_str(out, rr->title ? rr->title : "");
    sb_puts(out, ",\"target\":");
    if (c[i].target >= 0) sb_json_str(out, p->rules[c[i].target].id);
    else sb_puts(out, "null");
    sb_puts(out, ",\"target_title\":");
    if (c[i].target >= 0) sb_json_str(out, p->rules[c[i].target].title ? p->rules[c[i].target].title : "");
    else sb_puts(out, "null");
    sb_puts(out, ",\"phase\":");
    strbuf g = {0};
    group_label(p, c[i].group, &g);
    sb_json_str(out, g.s);
    sb_free(&g);
    sb_puts(out, ",\"variant\":");
    if (c[i].variant) sb_json_str(out, c[i].variant);
    else sb_puts(out, "null");
    sb_printf(out, ",\"in_force\":%s}", rr->disabled ? "false" : "true");
  }
  sb_puts(out, n ? "\n]}\n" : "]}\n");
}

/* One change as text: the rule changed first, then who changed it. */
static void diff_line(const program *p, const change *c, strbuf *out) {
  const rule_rec *rr = &p->rules[c->rule];
  const char *vs = c->variant ? c->variant : "?";
  bool link = !strcmp(c->kind, "superseded") || !strcmp(c->kind, "amended");
  if (link) {
    const rule_rec *t = &p->rules[c->target];
    sb_printf(out, "  %-11s %s  %s\n", c->kind, t->id, t->title ? t->title : "");
    sb_printf(out, "  %-11s by %s  %s  [variant %s]\n", "", rr->id, rr->title ? rr->title : "", vs);
    return;
  }
  sb_printf(out, "  %-11s %s  %s  [variant %s", c->kind, rr->id, rr->title ? rr->title : "", vs);
  if (c->target >= 0) sb_printf(out, "; with %s", p->rules[c->target].id);
  if (!strcmp(c->kind, "added") && rr->disabled) sb_puts(out, "; not in force in this ruleset");
  sb_puts(out, "]\n");
}

static void diff_text(const mt_rules *base, const mt_rules *with, const change *c, int n, strbuf *out) {
  const program *p = &with->prog;
  sb_printf(out, "base: %s%s, %s ruleset, without variants\n", with->components ? "pack " : "the rule files given",
            with->components ? with->components : "",
            with->advanced ? "advanced" : "basic");
  if (base == with) {
    sb_puts(out, "no variant given: nothing to compare (name one or more with --variant NAME)\n");
    return;
  }
  sb_printf(out, "variants: ");
  for (const char *s = with->variant_list; s && *s; s++) {
    if (*s == ',') sb_puts(out, ", ");
    else sb_putc(out, *s);
  }
  static const char *const kinds[] = {"added", "replaced", "disabled", "superseded", "amended"};
  sb_printf(out, "\n%d change%s", n, n == 1 ? "" : "s");
  for (int k = 0, first = 1; k < 5; k++) {
    int m = 0;
    for (int i = 0; i < n; i++) m += !strcmp(c[i].kind, kinds[k]);
    if (m) sb_printf(out, "%s%d %s", first ? ": " : ", ", m, kinds[k]), first = 0;
  }
  sb_putc(out, '\n');
  for (int i = 0; i < n; i++) {
    if (i == 0 || strcmp(c[i].group, c[i - 1].group)) {
      sb_putc(out, '\n');
      group_label(p, c[i].group, out);
      sb_putc(out, '\n');
    }
    diff_line(p, &c[i], out);
  }
}

int rules_report_diff(const mt_rules *base, const mt_rules *with, bool json, strbuf *out) {
  int n = 0;
  change *c = collect_changes(base, with, &n);
  if (json) diff_json(with, c, n, out);
  else diff_text(base, with, c, n, out);
  mt_free(c);
  return 0;
}

/* ======================================================================
 * graph
 * ====================================================================== */

enum { GN_RULE, GN_VALUE, GN_EVENT, GN_ACTION, GN_PROC };
static const char *const gn_names[] = {"rule", "value", "event", "action", "procedure"};
static const char *const gn_shapes[] = {"box", "ellipse", "hexagon", "parallelogram", "component"};
enum { GE_SUP, GE_AMD, GE_HOOK, GE_SIGNAL, GE_CANCEL, GE_NEST };

typedef struct gnode {
  int kind;          /* GN_*; nodes 0..nrules-1 are the rules */
  const char *name;  /* hook nodes: the value, event, action or procedure */
} gnode;
typedef struct gedge {
  int from, to, style, seq;
  const char *label;
} gedge;
typedef struct graph {
  const program *p;
  gnode *nodes;
  int nnodes, capnodes;
  gedge *edges;
  int nedges, capedges;
} graph;

static int hook_node(graph *g, int kind, const char *name) {
  for (int i = g->p->nrules; i < g->nnodes; i++)
    if (g->nodes[i].kind == kind && !strcmp(g->nodes[i].name, name)) return i;
  gnode n = {kind, name};
  VEC_PUSH(g->nodes, g->nnodes, g->capnodes, n);
  return g->nnodes - 1;
}

static void edge(graph *g, int from, int to, int style, const char *label) {
  if (from < 0 || to < 0) return;
  gedge e = {from, to, style, g->nedges, label};
  VEC_PUSH(g->edges, g->nedges, g->capedges, e);
}

/* What rule R's statements and members do to other parts of the rule set
 * (not its nested rules'): the events it signals, the karama rules it
 * cancels, the phases, steps and procedures it runs, the actions it offers.
 * Run and act targets are read from the checker's annotations, which only
 * rules in force have. */
static void statements(graph *g, int r, const node *n, int depth) {
  const program *p = g->p;
  if (!n || depth > 200) return;
  if (n->kind == AST_RULE && depth > 0) return;
  if (n->kind == AST_SIGNAL)
    for (int i = 0; i < p->nevents; i++)
      if (!strcmp(p->events[i].name, n->name)) edge(g, r, hook_node(g, GN_EVENT, n->name), GE_SIGNAL, "signals");
  const node *target = n->kind == AST_CANCEL ? ast_kid(n, 0) : NULL;
  if (target && target->kind == AST_RULEREF) edge(g, r, sema_find_rule(p, target->name), GE_CANCEL, "cancels");
  if (n->kind == AST_RUN && !p->rules[r].disabled) {
    if (n->op == RUN_PROC && n->sym >= 0 && n->sym < p->nprocs)
      edge(g, r, hook_node(g, GN_PROC, p->procs[n->sym].name), GE_HOOK, "runs");
    if (n->op == RUN_RULE && n->sym >= 0 && n->sym < p->nrules) edge(g, r, n->sym, GE_HOOK, "runs");
  }
  if (n->kind == AST_ACT && !p->rules[r].disabled && n->sym >= 0 && n->sym < p->nlists)
    for (int i = 0; i < p->nlist[n->sym]; i++)
      if (p->lists[n->sym][i] >= 0) edge(g, r, hook_node(g, GN_ACTION, p->actions[p->lists[n->sym][i]].name), GE_HOOK, "offers");
  for (uint32_t i = 0; i < n->nkids; i++) statements(g, r, n->kids[i], depth + 1);
}

static int edge_cmp(const void *x, const void *y) {
  const gedge *a = x, *b = y;
  if (a->from != b->from) return a->from - b->from;
  if (a->to != b->to) return a->to - b->to;
  int c = strcmp(a->label, b->label);
  return c ? c : a->seq - b->seq;
}

/* Every node and edge of the program, edges sorted by source and target
 * with duplicates (two triggers on one event) dropped. */
static void build_graph(graph *g) {
  const program *p = g->p;
  for (int i = 0; i < p->nrules; i++) {
    gnode n = {GN_RULE, p->rules[i].id};
    VEC_PUSH(g->nodes, g->nnodes, g->capnodes, n);
  }
  for (int i = 0; i < p->nrules; i++) {
    for (int j = 0; j < p->rules[i].nsup; j++) edge(g, i, p->rules[i].sup[j], GE_SUP, "supersedes");
    for (int j = 0; j < p->rules[i].namd; j++) edge(g, i, p->rules[i].amd[j], GE_AMD, "amends");
  }
  for (int i = 0; i < p->nvalues; i++)
    for (int k = 0; k < p->values[i].ndefs; k++) {
      int r = p->values[i].defs[k].rule;
      edge(g, r, hook_node(g, GN_VALUE, p->values[i].name), GE_HOOK, r == p->values[i].base_rule ? "defines" : "overrides");
    }
  for (int i = 0; i < p->nactions; i++) {
    const action_rec *a = &p->actions[i];
    edge(g, a->rule, hook_node(g, GN_ACTION, a->name), GE_HOOK, "defines");
    for (int k = 0; k < a->nguards; k++)
      if (a->guards[k].rule != a->rule && a->guards[k].decl_rule != a->guards[k].rule) /* a `because`, not its own check */
        edge(g, a->guards[k].rule, hook_node(g, GN_ACTION, a->name), GE_HOOK, "guards");
  }
  for (int i = 0; i < p->nchecks; i++)
    edge(g, p->checks[i].rule, hook_node(g, GN_ACTION, p->actions[p->checks[i].action].name), GE_HOOK, "checks");
  static const char *const timing[] = {"before", "after", "instead of", "on"};
  for (int i = 0; i < p->ntriggers; i++)
    edge(g, p->triggers[i].rule, hook_node(g, GN_EVENT, p->events[p->triggers[i].event].name), GE_HOOK,
         timing[p->triggers[i].timing & 3]);
  for (int i = 0; i < p->nprocs; i++) edge(g, p->procs[i].rule, hook_node(g, GN_PROC, p->procs[i].name), GE_HOOK, "defines");
  for (int i = 0; i < p->nrules; i++) {
    statements(g, i, p->rules[i].items, 1);
    if (p->rules[i].parent >= 0) edge(g, p->rules[i].parent, i, GE_NEST, "contains");
  }
  if (g->nedges > 1) qsort(g->edges, (size_t)g->nedges, sizeof *g->edges, edge_cmp);
  int m = 0;
  for (int i = 0; i < g->nedges; i++)
    if (!m || g->edges[i].from != g->edges[m - 1].from || g->edges[i].to != g->edges[m - 1].to ||
        strcmp(g->edges[i].label, g->edges[m - 1].label))
      g->edges[m++] = g->edges[i];
  g->nedges = m;
}

/* S, quoted and escaped for a DOT string (control characters become spaces). */
static void dot_escape(strbuf *out, const char *s, size_t n) {
  for (size_t i = 0; i < n && s[i]; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') sb_putc(out, '\\');
    sb_putc(out, c < 32 ? ' ' : (char)c);
  }
}

static void dot_id(strbuf *out, const graph *g, int n) {
  sb_putc(out, '"');
  if (g->nodes[n].kind != GN_RULE) sb_printf(out, "%s ", gn_names[g->nodes[n].kind]);
  dot_escape(out, g->nodes[n].name, strlen(g->nodes[n].name));
  sb_putc(out, '"');
}

/* TITLE in lines of about 28 characters, at most three, cut at spaces; an
 * ellipsis when it was longer. */
static void short_title(strbuf *out, const char *title) {
  const char *s = title ? title : "";
  for (int line = 0; *s && line < 3; line++) {
    size_t len = strlen(s), cut = len;
    if (len > 28) {
      cut = 28;
      while (cut > 0 && s[cut] != ' ') cut--;
      if (cut == 0) cut = strcspn(s, " ");
    }
    sb_puts(out, "\\n");
    dot_escape(out, s, cut);
    s += cut;
    while (*s == ' ') s++;
    if (*s && line == 2) sb_puts(out, " \xe2\x80\xa6");
  }
}

static void dot_rule(strbuf *out, const mt_rules *r, int i) {
  const rule_rec *rr = &r->prog.rules[i];
  static const char *const fill[] = {"white", "#fff2cc", "#dae8fc", "#d5e8d4"};
  static const char *const level[] = {"base", "ability", "card", "variant"};
  const char *kw = rr->tags & TAG_KARAMA_BEFORE && rr->tags & TAG_KARAMA_AFTER ? "both"
                   : rr->tags & TAG_KARAMA_AFTER                               ? "after"
                   : rr->tags & TAG_KARAMA_BEFORE                              ? "before"
                                                                               : NULL;
  int lv = rr->level >= 0 && rr->level <= LEVEL_VARIANT ? rr->level : 0;
  sb_puts(out, "  \"");
  dot_escape(out, rr->id, strlen(rr->id));
  sb_puts(out, "\" [label=\"");
  dot_escape(out, rr->id, strlen(rr->id));
  short_title(out, rr->title);
  strbuf tags = {0};
  if (lv != LEVEL_BASE) sb_printf(&tags, "%s", level[lv]);
  if (rr->tags & TAG_ADVANCED) sb_printf(&tags, "%sadvanced", tags.n ? ", " : "");
  if (kw) sb_printf(&tags, "%skarama %s", tags.n ? ", " : "", kw);
  if (rr->replaced) sb_printf(&tags, "%sreplaced by %s", tags.n ? ", " : "", rr->replaced_by);
  if (rr->disabled) sb_printf(&tags, "%snot in force", tags.n ? ", " : "");
  if (tags.n) {
    sb_puts(out, "\\n[");
    dot_escape(out, tags.s, tags.n);
    sb_puts(out, "]");
  }
  sb_free(&tags);
  sb_printf(out, "\", shape=%s, style=\"filled%s%s\", fillcolor=\"%s\", tooltip=\"", lv == LEVEL_CARD ? "note" : "box",
            lv == LEVEL_FACTION ? ",rounded" : "", rr->tags & TAG_ADVANCED ? ",dashed" : "", fill[lv]);
  dot_escape(out, rr->title ? rr->title : "", strlen(rr->title ? rr->title : ""));
  sb_putc(out, '"');
  if (kw) sb_puts(out, ", peripheries=2");
  if (rr->disabled) sb_puts(out, ", color=\"gray60\", fontcolor=\"gray50\"");
  sb_puts(out, "];\n");
}

/* Marks in SEL the rules the report is about; -1 (message in OUT) when
 * PHASE or RULE names nothing. */
static int select_rules(const program *p, const char *phase, const char *rule, bool *sel, strbuf *out) {
  const char *want = rule ? rule : phase;
  int k = sema_find_rule(p, want);
  if (phase && k < 0) /* a phase by its name, as `rules phase NAME` in the console */
    for (int i = 0; i < p->nrules && k < 0; i++)
      if (p->rules[i].form == RF_PHASE && p->rules[i].name &&
          (!strcmp(p->rules[i].name, want) ||
           (!strncmp(p->rules[i].name, want, strlen(want)) && !strcmp(p->rules[i].name + strlen(want), "_phase"))))
        k = i;
  const char *under = k >= 0 ? p->rules[k].id : want; /* a phase: rules numbered UNDER.x */
  size_t ul = strlen(under);
  int n = 0;
  for (int i = 0; i < p->nrules; i++) {
    bool m = i == k;
    for (int q = p->rules[i].parent; phase && q >= 0 && !m; q = p->rules[q].parent) m = q == k;
    if (phase && !m) m = !strncmp(p->rules[i].id, under, ul) && p->rules[i].id[ul] == '.';
    sel[i] = m;
    n += m;
  }
  if (n) return 0;
  const char **ids = mt_calloc((size_t)p->nrules + 1, sizeof *ids);
  for (int i = 0; i < p->nrules; i++) ids[i] = p->rules[i].id;
  const char *s = diag_suggest(want, ids, (size_t)p->nrules);
  sb_printf(out, "no %s %s in the loaded rules%s%s%s", rule ? "rule" : "phase", want, s ? " (did you mean " : "", s ? s : "",
            s ? "?)" : "");
  mt_free(ids);
  return -1;
}

int rules_report_graph(const mt_rules *r, const char *phase, const char *rule, strbuf *out) {
  const program *p = &r->prog;
  graph g = {p, NULL, 0, 0, NULL, 0, 0};
  build_graph(&g);
  bool *keep = mt_calloc((size_t)g.nnodes + 1, sizeof *keep);
  if (phase || rule) {
    bool *sel = mt_calloc((size_t)p->nrules + 1, sizeof *sel);
    if (select_rules(p, phase, rule, sel, out) < 0) {
      mt_free(sel);
      mt_free(keep);
      mt_free(g.nodes);
      mt_free(g.edges);
      return -1;
    }
    for (int i = 0; i < p->nrules; i++) keep[i] = sel[i];
    for (int i = 0; i < g.nedges; i++) { /* the direct neighbours, either way */
      if (g.edges[i].from < p->nrules && sel[g.edges[i].from]) keep[g.edges[i].to] = true;
      if (g.edges[i].to < p->nrules && sel[g.edges[i].to]) keep[g.edges[i].from] = true;
    }
    mt_free(sel);
  } else {
    for (int i = 0; i < g.nnodes; i++) keep[i] = true;
  }
  sb_puts(out, "digraph rules {\n  graph [rankdir=LR, fontname=\"Helvetica\"];\n"
               "  node [fontname=\"Helvetica\", fontsize=10];\n  edge [fontname=\"Helvetica\", fontsize=9];\n");
  for (int i = 0; i < p->nrules; i++)
    if (keep[i]) dot_rule(out, r, i);
  for (int i = p->nrules; i < g.nnodes; i++) {
    if (!keep[i]) continue;
    sb_puts(out, "  ");
    dot_id(out, &g, i);
    sb_printf(out, " [label=\"%s\\n", gn_names[g.nodes[i].kind]);
    dot_escape(out, g.nodes[i].name, strlen(g.nodes[i].name));
    sb_printf(out, "\", shape=%s, style=filled, fillcolor=\"#eeeeee\"];\n", gn_shapes[g.nodes[i].kind]);
  }
  static const char *const estyle[] = {", color=\"#cc0000\", penwidth=2", ", color=\"#0055cc\", style=dashed", "",
                                       ", style=dotted", ", color=\"#8000a0\", style=dashed", ", color=\"gray60\""};
  for (int i = 0; i < g.nedges; i++) {
    const gedge *e = &g.edges[i];
    if (!keep[e->from] || !keep[e->to]) continue;
    sb_puts(out, "  ");
    dot_id(out, &g, e->from);
    sb_puts(out, " -> ");
    dot_id(out, &g, e->to);
    sb_printf(out, " [label=\"%s\"%s];\n", e->label, estyle[e->style]);
  }
  sb_puts(out, "}\n");
  mt_free(keep);
  mt_free(g.nodes);
  mt_free(g.edges);
  return 0;
}
