/* lint.c -- the warnings of `mentat check` (stage 4b, after check.c): rules
 * that are accepted but cannot do what they say.  Statements that nothing
 * runs, a karama ability that cancelling would not change, a supersedes of
 * a rule the ruleset leaves out, a Basic rule that reads a name only the
 * Advanced game declares.  Warnings only: `check` still exits 0.  Reads the
 * annotations check.c left on the tree, so it runs only on a clean check. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "program.h"

typedef struct lint {
  const program *p;
  diag *d;
  bool advanced;
  bool *run_by_name; /* per rule: some `run NAME` names it */
  bool *read;        /* per rule: its number is read (in_force, try_use, a rule value), not only cancelled */
  int rule;          /* the rule being walked (reads), or -1 */
  const char **said; /* names already reported for the rule being walked */
  int nsaid, capsaid;
} lint;

/* Is rule R (or a rule it is nested in) tagged advanced? */
static bool advanced_rule(const program *p, int r) {
  for (int depth = 0; r >= 0 && depth < 1000; depth++, r = p->rules[r].parent)
    if (p->rules[r].tags & TAG_ADVANCED) return true;
  return false;
}

static bool is_member(const node *n) {
  return n->kind == AST_VALUE || n->kind == AST_ACTION || n->kind == AST_CHECK || n->kind == AST_TRIGGER ||
         n->kind == AST_PROC || n->kind == AST_INVARIANT || n->kind == AST_VERB || n->kind == AST_KINDS;
}

/* A Basic rule (the walked one) reaches NAME, which rule DECL declares. */
static void basic_reads(lint *l, const node *at, const char *what, const char *name, int decl) {
  if (l->rule < 0 || !l->advanced || decl < 0 || !advanced_rule(l->p, decl) || advanced_rule(l->p, l->rule)) return;
  for (int i = 0; i < l->nsaid; i++)
    if (!strcmp(l->said[i], name)) return;
  VEC_PUSH(l->said, l->nsaid, l->capsaid, name);
  diag_warning(l->d, at->span, "rule %s is in the Basic game but %s '%s', which only the Advanced game has (rule %s is "
               "tagged advanced): the Basic game will not compile", l->p->rules[l->rule].id, what, name,
               l->p->rules[decl].id);
}

/* Every node under N, nested rules left out (they are walked as rules). */
static void walk(lint *l, const node *n, const node *up) {
  if (!n || n->kind == AST_RULE) return;
  const program *p = l->p;
  switch (n->kind) {
  case AST_RUN:
    if (n->op == RUN_RULE && n->sym >= 0 && n->sym < p->nrules) {
      l->run_by_name[n->sym] = true;
      basic_reads(l, n, "runs", n->name, n->sym);
    }
    if (n->op == RUN_PROC && n->sym >= 0 && n->sym < p->nprocs) basic_reads(l, n, "runs", n->name, p->procs[n->sym].rule);
    break;
  case AST_RULEREF: {
    int r = sema_find_rule(p, n->name);
    if (r >= 0 && !(up && up->kind == AST_CANCEL && up->kids[0] == n)) l->read[r] = true;
    break;
  }
  case AST_NAME:
    if (n->op == REF_VALUE && n->sym >= 0 && n->sym < p->nvalues)
      basic_reads(l, n, "reads", n->name, p->values[n->sym].base_rule);
    break;
  case AST_CALL:
    if (n->op == CALL_VALUE && n->sym >= 0 && n->sym < p->nvalues)
      basic_reads(l, n, "reads", n->name, p->values[n->sym].base_rule);
    break;
  case AST_ACT: case AST_CAN: /* may name an action not in force: never offered (language.md §6) */
    for (uint32_t i = 0; i < n->nkids; i++)
      if (n->kids[i] && n->kids[i]->kind != AST_LIST) walk(l, n->kids[i], n);
    return;
  default: break;
  }
  for (uint32_t i = 0; i < n->nkids; i++) walk(l, n->kids[i], n);
}

/* Does rule R run: the game rule, a phase or step some `run` names, or
 * nested in a rule that runs (language.md §3)? */
static bool runs(const lint *l, int r) {
  for (int depth = 0; r >= 0 && depth < 1000; depth++, r = l->p->rules[r].parent)
    if (l->p->rules[r].form == RF_GAME || l->run_by_name[r]) return true;
  return false;
}

/* Does rule R (or a rule nested in it) have a member that a cancel switches off? */
static bool has_members(const program *p, int r) {
  for (int k = 0; k < p->nrules; k++) {
    int q = k;
    for (int depth = 0; q >= 0 && q != r && depth < 1000; depth++) q = p->rules[q].parent;
    if (q != r || p->rules[k].disabled) continue;
    const node *items = p->rules[k].items;
    for (uint32_t i = 0; items && i < items->nkids; i++)
      if (items->kids[i] && is_member(items->kids[i])) return true;
  }
  return false;
}

/* A rule all of whose supersedes targets the chosen ruleset leaves out (an
 * advanced rule in the Basic game): its supersedes changes nothing.  A rule
 * of both games may supersede an advanced rule for the Advanced game as long
 * as it supersedes something in force too (3.01.23 does). */
static void supersedes_out_of_force(lint *l, int r) {
  const program *p = l->p;
  const node *links = ast_kid(p->rules[r].ast, 0), *first = NULL;
  int out = 0;
  for (uint32_t k = 0; links && k < links->nkids; k++) {
    const node *ln = links->kids[k];
    int t = ln->op == LINK_SUPERSEDES ? sema_find_rule(p, ln->name) : -1;
    if (t < 0) continue;
    if (!p->rules[t].disabled || l->advanced || !advanced_rule(p, t)) return;
    if (!out++) first = ln;
  }
  if (out)
    diag_warning(l->d, first->span, "rule %s supersedes %s, which is not in force in the Basic game (it is tagged "
                 "advanced): here the supersedes changes nothing", p->rules[r].id, first->name);
}

void sema_lint(const program *p, diag *d, bool advanced) {
  lint l = {p, d, advanced, NULL, NULL, -1, NULL, 0, 0};
  l.run_by_name = mt_calloc((size_t)p->nrules + 1, sizeof *l.run_by_name);
  l.read = mt_calloc((size_t)p->nrules + 1, sizeof *l.read);
  for (int r = 0; r < p->nrules; r++) {
    if (p->rules[r].disabled) continue;
    l.rule = r;
    l.nsaid = 0;
    walk(&l, p->rules[r].items, NULL);
  }
  l.rule = -1;
  for (int i = 0; i < p->nvars; i++) walk(&l, p->vars[i].init, NULL);
  for (int r = 0; r < p->nrules; r++) {
    const rule_rec *rr = &p->rules[r];
    if (rr->disabled) continue;
    const node *first = NULL;
    for (uint32_t i = 0; rr->items && i < rr->items->nkids && !first; i++) {
      const node *it = rr->items->kids[i];
      if (it && it->kind != AST_RULE && !is_member(it)) first = it;
    }
    if (first && !runs(&l, r))
      diag_warning(d, first->span, "the statements of rule %s never run: it is not the game rule, no 'run' names it "
                   "and it is not nested in a rule that runs (put them in a step, a trigger, an action or a "
                   "procedure)", rr->id);
    if ((rr->tags & TAG_KARAMA) && !l.read[r] && !has_members(p, r))
      diag_warning(d, rr->span, "rule %s is karama-tagged, but nothing can be cancelled or prevented: it has no "
                   "members (values, actions, checks, triggers) and no rule reads it (in_force, try_use)", rr->id);
    supersedes_out_of_force(&l, r);
  }
  mt_free(l.run_by_name);
  mt_free(l.read);
  mt_free(l.said);
}
