/* compile_action.c -- checked AST -> bytecode (stage 5), the actions: for
 * each action the functions the answer search and the VM judge it with --
 * its guards by parameter (each guard attributed to its rule, suppressed
 * where a superseding rule's check applies), the bounds its guards put on a
 * range parameter, whether a last range is an exact interval, its domains,
 * cost and effect -- and the warning for an answer space too wide to list.
 * The rest of the compiler is compile.c. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "compile_int.h"

/* ---- actions -------------------------------------------------------------------------- */

/* The highest parameter slot (at most TOP: the parameters and the cost) an
 * expression reads, or -1.  Higher slots are bound inside the expression
 * (an aggregate's or comprehension's variable) and do not count. */
static int max_slot(const node *n, int top) {
  if (!n) return -1;
  int m = n->kind == AST_NAME && n->op == REF_LOCAL && n->slot <= top ? n->slot : -1;
  for (uint32_t i = 0; i < n->nkids; i++) {
    int k = max_slot(n->kids[i], top);
    if (k > m) m = k;
  }
  return m;
}

/* The deepest input (parameter index, or nparams for the cost; -1 for
 * none) of guard GR's suppression: its check's where-clause and those of the
 * checks that supersede its rule. */
static int suppression_need(const program *p, int ai, const guard_rec *gr) {
  const action_rec *a = &p->actions[ai];
  int need = -1;
  if (gr->check >= 0 && p->checks[gr->check].ast->kids[1]) need = max_slot(p->checks[gr->check].ast->kids[1], a->nparams);
  for (int k = 0; k < p->nchecks; k++) {
    const check_rec *ck = &p->checks[k];
    if (ck->action == ai && !p->rules[ck->rule].disabled && sema_supersedes(p, ck->rule, gr->rule)) {
      int w = ck->ast->kids[1] ? max_slot(ck->ast->kids[1], a->nparams) : -1;
      if (w > need) need = w;
    }
  }
  return need;
}

/* A guard that bounds integer parameter I: `require x OP e` (a forbid
 * inverts OP) with e reading only earlier parameters.  Sets *E and which
 * bound it gives: x >= *E + *ADJ (LOWER) and/or x <= *E + *ADJ (UPPER). */
typedef struct bound_shape {
  node *e;
  int adj;
  bool lower, upper;
} bound_shape;

static bool guard_bound(const action_rec *a, const guard_rec *gr, int i, bound_shape *b) {
  const node *n = gr->cond;
  if (!n || n->kind != AST_BINARY || n->nkids != 2) return false;
  int op = n->op;
  node *x = n->kids[0], *e = n->kids[1];
  bool is_x0 = x->kind == AST_NAME && x->op == REF_LOCAL && x->slot == i;
  bool is_x1 = e->kind == AST_NAME && e->op == REF_LOCAL && e->slot == i;
  if (is_x1 && !is_x0) { /* e OP x: mirror it to x OP' e */
    node *t = x;
    x = e, e = t;
    op = op == '<' ? '>' : op == '>' ? '<' : op == BOP_LE ? BOP_GE : op == BOP_GE ? BOP_LE : op;
  } else if (!is_x0) {
    return false;
  }
  if (max_slot(e, a->nparams) >= i) return false;
  if (gr->forbid) /* forbid x OP e == require x (not OP) e; forbid x == e leaves a hole: no bound */
    op = op == '<' ? BOP_GE : op == BOP_LE ? '>' : op == '>' ? BOP_LE : op == BOP_GE ? '<' : 0;
  *b = (bound_shape){e, 0, false, false};
  switch (op) {
  case '>': b->lower = true, b->adj = 1; break;
  case BOP_GE: b->lower = true; break;
  case '<': b->upper = true, b->adj = -1; break;
  case BOP_LE: b->upper = true; break;
  case BOP_EQ: b->lower = b->upper = true; break;
  default: return false;
  }
  return true;
}

/* What emit_guards emits for each guard: the guard itself, or (NARROW) the
 * bound it puts on parameter PARAM, folded into local ACC (the greatest
 * lower bound when LOWER, else the least upper bound). */
typedef struct narrow_ud {
  int param, acc, tmp;
  bool lower;
} narrow_ud;

/* Emits the guards of action A whose deepest input (parameter index, or
 * nparams for the cost; -1 for none) lies in LO..HI (all guards when
 * ALL), each with its suppression; with NW, only the guards bounding its
 * parameter whose suppression reads earlier parameters, as bounds. */
static void emit_guards(cg *c, int ai, int lo, int hi, bool all, const narrow_ud *nw) {
  program *p = c->p;
  action_rec *a = &p->actions[ai];
  for (int g = 0; g < a->nguards; g++) {
    guard_rec *gr = &a->guards[g];
    bound_shape bs = {0};
    if (nw) {
      if (!guard_bound(a, gr, nw->param, &bs) || (nw->lower ? !bs.lower : !bs.upper)) continue;
      if (suppression_need(p, ai, gr) >= nw->param) continue;
    } else if (!all) {
      int need = max_slot(gr->cond, a->nparams), w = suppression_need(p, ai, gr);
      if (w > need) need = w;
      if (need < lo || need > hi) continue;
    }
    c->span = gr->span;
    uint32_t skips[64];
    int ns = 0;
    for (int k = 0; k < p->nchecks && ns < 60; k++) {
      check_rec *ck = &p->checks[k];
      if (ck->action != ai || p->rules[ck->rule].disabled) continue;
      if (!sema_supersedes(p, ck->rule, gr->rule)) continue;
      op1(c, OP_RULE_ACTIVE, ck->rule);
      uint32_t j_not = jump(c, OP_JUMP_FALSE);
      if (ck->where_fn >= 0) {
        cg_load_params(c, a->nparams + 1);
        op2(c, OP_CALL, ck->where_fn, a->nparams + 1);
        skips[ns++] = jump(c, OP_JUMP_TRUE);
      } else {
        skips[ns++] = jump(c, OP_JUMP);
      }
      patch(c, j_not, here(c));
    }
    op1(c, OP_RULE_ACTIVE, gr->decl_rule);
    skips[ns++] = jump(c, OP_JUMP_FALSE);
    op1(c, OP_RULE_ACTIVE, gr->rule);
    skips[ns++] = jump(c, OP_JUMP_FALSE);
    if (gr->check >= 0 && p->checks[gr->check].where_fn >= 0) { /* a check's guards apply where its clause holds */
      cg_load_params(c, a->nparams + 1);
      op2(c, OP_CALL, p->checks[gr->check].where_fn, a->nparams + 1);
      skips[ns++] = jump(c, OP_JUMP_FALSE);
    }
    if (nw) { /* acc = max(acc, e + adj) for a lower bound, min for an upper one */
      cg_expr(c, bs.e);
      if (bs.adj) {
        cg_push_int(c, bs.adj);
        op0(c, OP_ADD);
      }
      op1(c, OP_STORE, nw->tmp);
      op1(c, OP_LOAD, nw->tmp);
      op1(c, OP_LOAD, nw->acc);
      op0(c, nw->lower ? OP_GT : OP_LT);
      uint32_t j_keep = jump(c, OP_JUMP_FALSE);
      op1(c, OP_LOAD, nw->tmp);
      op1(c, OP_STORE, nw->acc);
      patch(c, j_keep, here(c));
    } else {
      cg_expr(c, gr->cond);
      if (gr->forbid) op0(c, OP_NOT);
      op1(c, OP_GUARD, g);
    }
    for (int k = 0; k < ns; k++) patch(c, skips[k], here(c));
  }
}

/* The bound the guards put on integer parameter I of action AI (lower or
 * upper): a pure function of the earlier parameters, or -1 when no guard
 * bounds it.  Enumeration and sampling skip the values outside it, which
 * those guards would refuse anyway; judging an answer still runs the guards,
 * so refusals keep their rules. */
static int narrow_func(cg *c, int ai, int i, bool lower) {
  program *p = c->p;
  action_rec *a = &p->actions[ai];
  bool any = false;
  for (int g = 0; g < a->nguards && !any; g++) {
    bound_shape bs;
    any = guard_bound(a, &a->guards[g], i, &bs) && (lower ? bs.lower : bs.upper) &&
          suppression_need(p, ai, &a->guards[g]) < i;
  }
  if (!any) return -1;
  int fn = cg_new_func(c, cg_what("bound of %s.%s from its guards (%s)", a->name, a->pname[i], lower ? "low" : "high"), a->rule,
                    FN_PURE, i);
  p->funcs[fn].entry_cache = true;
  cg_begin(c, fn, a->ast->slot, a->span);
  narrow_ud nw = {i, cg_temp(c), cg_temp(c), lower};
  cg_push_int(c, lower ? INT64_MIN : INT64_MAX);
  op1(c, OP_STORE, nw.acc);
  emit_guards(c, ai, 0, 0, false, &nw);
  op1(c, OP_LOAD, nw.acc);
  op0(c, OP_RET);
  cg_end(c);
  return fn;
}

/* The guards judged at parameter I of action AI (at the tail, those reading
 * the last parameter or the cost) are all bounds that the narrowing
 * functions apply in full, and no cost reads I: every value of the narrowed
 * range passes them (game.c then counts and samples the range as an
 * interval, whatever its width). */
static bool exact_interval(const program *p, int ai, int i) {
  const action_rec *a = &p->actions[ai];
  bool last = i + 1 == a->nparams;
  if (a->ptype[i] != TY_INT || !a->pdomain[i] || a->pdomain[i]->kind != AST_RANGE) return false;
  if (last && a->cost && max_slot(a->cost, a->nparams) >= i) return false;
  for (int g = 0; g < a->nguards; g++) {
    const guard_rec *gr = &a->guards[g];
    int w = suppression_need(p, ai, gr), need = max_slot(gr->cond, a->nparams);
    if (w > need) need = w;
    if (need != i && !(last && need == a->nparams)) continue; /* judged at another level */
    bound_shape bs;
    if (!guard_bound(a, gr, i, &bs) || w >= i) return false;
  }
  return true;
}

/* How many values parameter I of action AI may take at most, from its type
 * and a constant domain (-1: unknown, such as 1..spice(f)); an exact
 * interval counts 1, since it is counted and sampled without a walk. */
static double param_width(const program *p, int ai, int i) {
  const action_rec *a = &p->actions[ai];
  const board_def *def = p->def;
  node *dom = a->pdomain[i];
  if (a->ptype[i] == TY_INT) {
    if (a->exact[i] && i + 1 == a->nparams) return 1;
    if (!dom || dom->kind != AST_RANGE || a->nlo_fn[i] >= 0 || a->nhi_fn[i] >= 0) return -1;
    int64_t b[2];
    for (int k = 0; k < 2; k++) {
      node *e = dom->kids[k];
      bool neg = e->kind == AST_UNARY && e->op == BOP_NEG && e->nkids == 1;
      if (neg) e = e->kids[0];
      if (e->kind != AST_INT) return -1;
      b[k] = neg ? -e->ival : e->ival;
    }
    return b[1] < b[0] ? 0 : (double)b[1] - (double)b[0] + 1;
  }
  switch (a->ptype[i]) {
  case TY_FACTION: return def->nfactions;
  case TY_TERRITORY: return def->nareas;
  case TY_SECTOR: return def->nsectors;
  case TY_CARD: return def->ncards;
  case TY_LEADER: return def->nleaders;
  case TY_KIND: return def->nkinds;
  case TY_BOOL: return 2;
  default: return a->ptype[i] >= TY_ENUM0 && a->ptype[i] - TY_ENUM0 < p->nenums ? p->enums[a->ptype[i] - TY_ENUM0].nvalues : -1;
  }
}

/* A warning for an action whose answers, walked value by value, may number
 * more than this: listing or sampling it could exhaust a decision's work
 * budget (mt_set_work_budget).  Exact intervals count as one value. */
#define EXPLODING_ANSWERS 1e6

static void warn_explosion(cg *c, int ai) {
  const action_rec *a = &c->p->actions[ai];
  double n = 1;
  strbuf why = {0};
  for (int i = 1; i < a->nparams; i++) {
    double w = param_width(c->p, ai, i);
    if (w <= 1) continue; /* unknown, or counted at once */
    n *= w;
    sb_printf(&why, "%s%s: %.0f", why.n ? " x " : "", a->pname[i], w);
  }
  if (n > EXPLODING_ANSWERS)
    diag_warning(c->d, a->span,
                 "the answers of action '%s' may number %.0f (%s), walked value by value: no guard bounds its "
                 "integer parameters as an interval (require n <= e), so listing or sampling a decision may "
                 "exhaust its work budget",
                 a->name, n, why.s);
  sb_free(&why);
}

void cg_action_funcs(cg *c, int ai) {
  program *p = c->p;
  action_rec *a = &p->actions[ai];
  int slots = a->ast->slot;
  for (int i = 0; i < a->nparams; i++) {
    node *dom = a->pdomain[i];
    if (!dom) continue;
    if (dom->kind == AST_RANGE) {
      a->lo_fn[i] = cg_new_func(c, cg_what("domain of %s.%s (low)", a->name, a->pname[i]), a->rule, FN_PURE, i);
      p->funcs[a->lo_fn[i]].entry_cache = true;
      cg_begin(c, a->lo_fn[i], slots, dom->span);
      cg_expr(c, dom->kids[0]);
      op0(c, OP_RET);
      cg_end(c);
      a->hi_fn[i] = cg_new_func(c, cg_what("domain of %s.%s (high)", a->name, a->pname[i]), a->rule, FN_PURE, i);
      p->funcs[a->hi_fn[i]].entry_cache = true;
      cg_begin(c, a->hi_fn[i], slots, dom->span);
      cg_expr(c, dom->kids[1]);
      op0(c, OP_RET);
      cg_end(c);
      if (a->ptype[i] == TY_INT) {
        a->nlo_fn[i] = narrow_func(c, ai, i, true);
        a->nhi_fn[i] = narrow_func(c, ai, i, false);
        a->exact[i] = exact_interval(p, ai, i);
      }
    } else {
      a->dom_fn[i] = cg_new_func(c, cg_what("domain of %s.%s", a->name, a->pname[i]), a->rule, FN_PURE, i);
      p->funcs[a->dom_fn[i]].entry_cache = true;
      cg_begin(c, a->dom_fn[i], slots, dom->span);
      cg_expr(c, dom);
      op0(c, OP_RET);
      cg_end(c);
    }
  }
  warn_explosion(c, ai);
  if (a->cost) {
    a->cost_fn = cg_new_func(c, cg_what("cost of action %s", a->name), a->rule, FN_PURE, a->nparams);
    cg_begin(c, a->cost_fn, slots, a->cost->span);
    cg_expr(c, a->cost);
    op0(c, OP_RET);
    cg_end(c);
  }
  /* where-clauses of checks */
  for (int k = 0; k < p->nchecks; k++) {
    check_rec *ck = &p->checks[k];
    if (ck->action != ai || !ck->ast->kids[1]) continue;
    ck->where_fn = cg_new_func(c, cg_what("where of check %s in rule %s", a->name, p->rules[ck->rule].id), ck->rule,
                            FN_PURE, a->nparams + 1);
    cg_begin(c, ck->where_fn, ck->ast->slot, ck->ast->kids[1]->span);
    cg_expr(c, ck->ast->kids[1]);
    op0(c, OP_RET);
    cg_end(c);
  }
  a->guard_fn = cg_new_func(c, cg_what("guards of action %s", a->name), a->rule, FN_PURE, a->nparams + 1);
  cg_begin(c, a->guard_fn, slots, a->span);
  /* the action's own rule must be in force (a cancelled ability cannot be used) */
  op1(c, OP_RULE_ACTIVE, a->rule);
  op1(c, OP_GUARD, -1);
  emit_guards(c, ai, 0, 0, true, NULL);
  op0(c, OP_GUARD_RESULT);
  op0(c, OP_RET);
  cg_end(c);
  /* Enumeration checks each guard once, at the deepest parameter it reads:
   * level i those whose deepest input is parameter i (level 0: none or the
   * faction, with the rule in force), the tail those reading the last
   * parameter or the cost. */
  for (int i = 0; i + 1 < a->nparams; i++) {
    a->prefix_fn[i] = cg_new_func(c, cg_what("guards of action %s at parameter %d", a->name, i + 1), a->rule, FN_PURE,
                               a->nparams + 1);
    p->funcs[a->prefix_fn[i]].entry_cache = true;
    cg_begin(c, a->prefix_fn[i], slots, a->span);
    if (i == 0) {
      op1(c, OP_RULE_ACTIVE, a->rule);
      op1(c, OP_GUARD, -1);
    }
    emit_guards(c, ai, i == 0 ? -1 : i, i, false, NULL);
    op0(c, OP_GUARD_RESULT);
    op0(c, OP_RET);
    cg_end(c);
  }
  a->tail_fn = cg_new_func(c, cg_what("guards of action %s at its last parameter and cost", a->name), a->rule, FN_PURE,
                        a->nparams + 1);
  p->funcs[a->tail_fn].entry_cache = true;
  cg_begin(c, a->tail_fn, slots, a->span);
  if (a->nparams == 1) {
    op1(c, OP_RULE_ACTIVE, a->rule);
    op1(c, OP_GUARD, -1);
  }
  emit_guards(c, ai, a->nparams == 1 ? -1 : a->nparams - 1, a->nparams, false, NULL);
  op0(c, OP_GUARD_RESULT);
  op0(c, OP_RET);
  cg_end(c);
  if (a->effect) {
    cg_begin(c, a->effect_fn, slots, a->effect->span);
    cg_block(c, a->effect);
    op0(c, OP_RET_VOID);
    cg_end(c);
  } else {
    cg_begin(c, a->effect_fn, slots, a->span);
    op0(c, OP_RET_VOID);
    cg_end(c);
  }
}
