/* answers.c -- the legal answers to a pending decision (part of the engine
 * API of game.c): listing them (mt_legal, mt_legal_upto, mt_legal_nth),
 * drawing one at random (mt_sample), and the work budget that bounds both for
 * one decision.
 *
 * The parameters of an action are walked in order, each guard judged at the
 * deepest parameter it reads.  An integer parameter is an interval: guards
 * that bound it narrow it first, and when they say all there is to say at the
 * last parameter (action_rec.exact) its values are counted and drawn without
 * a walk.  Every evaluation is charged to the decision's account (vm_work),
 * so a decision whose answers cannot be found within the budget stops with
 * an error naming it (mt_decision_error), never a silent "no answer". */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "game.h"

/* The domain of parameter I of action A given the earlier arguments: a set
 * (SET), a range (LO..HI, *RANGE), or a pile's cards (*PILE = its slot). */
static bool param_domain_ex(mt_game *g, int a, int i, const int64_t *args, int64_t *set, int64_t *lo, int64_t *hi,
                            bool *range, int *pile) {
  const program *p = &g->r->prog;
  const action_rec *ar = &p->actions[a];
  const board_def *def = g->r->def;
  *range = false;
  *pile = -1;
  if (ar->dom_fn[i] >= 0 && ar->dom_pile[i]) {
    int64_t slot;
    if (!vm_eval_cached(&g->v, ar->dom_fn[i], args, i, i, &slot)) return false;
    *pile = (int)slot;
    return slot >= 0 && slot < g->L->npile_slots;
  }
  if (ar->dom_fn[i] < 0 && ar->lo_fn[i] < 0 && (ar->ptype[i] == TY_CARD || ar->ptype[i] == TY_LEADER)) {
    *range = true; /* every card (leader): more than a set holds */
    *lo = 0;
    *hi = (ar->ptype[i] == TY_CARD ? def->ncards : def->nleaders) - 1;
    return true;
  }
  if (ar->lo_fn[i] >= 0) {
    *range = true;
    return vm_eval_cached(&g->v, ar->lo_fn[i], args, i, i, lo) && vm_eval_cached(&g->v, ar->hi_fn[i], args, i, i, hi);
  }
  if (ar->dom_fn[i] >= 0) return vm_eval_cached(&g->v, ar->dom_fn[i], args, i, i, set);
  int64_t none = 0;
  switch (ar->ptype[i]) {
  case TY_FACTION: {
    int e = 0;
    *set = vm_builtin(&g->v, BI_factions, args, &e, &none);
    return true;
  }
  case TY_TERRITORY: *set = def->nareas >= 64 ? -1 : (int64_t)((1ull << def->nareas) - 1); return true;
  case TY_SECTOR: *set = (int64_t)((1ull << def->nsectors) - 1); return true;
  case TY_KIND: *set = (int64_t)((1ull << def->nkinds) - 1); return true;
  case TY_BOOL: *range = true; *lo = 0; *hi = 1; return true;
  default:
    if (ar->ptype[i] >= TY_ENUM0 && ar->ptype[i] - TY_ENUM0 < p->nenums) {
      *range = true;
      *lo = 0;
      *hi = p->enums[ar->ptype[i] - TY_ENUM0].nvalues - 1;
      return true;
    }
    return false;
  }
}

/* Narrows a range domain LO..HI of parameter I to the bounds its guards put
 * on it (require n > high_bid, n <= max_bid(f)): values outside would be
 * refused by those guards, so enumeration and sampling skip them.  A bound
 * that cannot be computed narrows nothing (the guards still judge). */
static bool narrow_range(mt_game *g, int a, int i, const int64_t *args, int64_t *lo, int64_t *hi) {
  const action_rec *ar = &g->r->prog.actions[a];
  int64_t b;
  bool ok = true;
  if (ar->nlo_fn[i] >= 0) {
    if (vm_eval_cached(&g->v, ar->nlo_fn[i], args, i, i, &b)) *lo = b > *lo ? b : *lo;
    else ok = false;
  }
  if (ar->nhi_fn[i] >= 0) {
    if (vm_eval_cached(&g->v, ar->nhi_fn[i], args, i, i, &b)) *hi = b < *hi ? b : *hi;
    else ok = false;
  }
  return ok; /* false: a bound could not be computed (its guard fails every value as well) */
}

/* Is parameter I of action A the last one, an exact interval (program.h:
 * every value of its narrowed range passes the guards judged there)? */
static bool exact_last(const mt_game *g, int a, int i) {
  const action_rec *ar = &g->r->prog.actions[a];
  return i + 1 == ar->nparams && ar->exact[i];
}

/* A uniform number in 0..W-1 (W = 0: any 64-bit number), without the bias of
 * a plain modulo: draws below 2^64 mod W are drawn again. */
static uint64_t uniform_below(mt_rand_fn rnd, void *ctx, uint64_t w) {
  if (w == 0) return rnd(ctx);
  uint64_t floor = (0 - w) % w; /* 2^64 mod w */
  for (;;) {
    uint64_t r = rnd(ctx);
    if (r >= floor) return r % w;
  }
}

/* The work budget of the pending decision is spent: listing stops short. */
static bool work_out(const mt_game *g) { return g->v.work.out; }

/* Does LO..HI hold more than K + 1 values?  (Without overflow for any bounds.) */
static bool wider_than(int64_t lo, int64_t hi, uint64_t k) { return hi > lo && (uint64_t)hi - (uint64_t)lo > k; }

/* Is X within parameter I's domain? */
bool game_in_domain(mt_game *g, int a, int i, const int64_t *args, int64_t x, bool *ok) {
  int64_t set = 0, lo = 0, hi = -1;
  bool range;
  int pile;
  if (!param_domain_ex(g, a, i, args, &set, &lo, &hi, &range, &pile)) return false;
  if (pile >= 0) {
    int pos;
    *ok = x >= 0 && x < g->r->def->ncards && board_card_pile(g->L, g->v.st, (int)x, &pos) == pile;
  } else if (range) {
    *ok = x >= lo && x <= hi;
  } else {
    *ok = x >= 0 && x < 64 && ((uint64_t)set >> x & 1u);
  }
  return true;
}

typedef struct enum_ctx {
  mt_game *g;
  mt_choice *out;
  size_t cap, n;
  int action;
  int64_t args[MAX_PARAMS];
  size_t stop; /* stop once this many legal answers are found (1: does one exist?); 0: never */
  size_t only; /* with ONLY_ONE: keep just the answer of this index, in out[0] */
  bool only_one;
  bool any;    /* only whether an answer exists matters (not which): wide ranges are probed first */
} enum_ctx;

/* Guards that depend only on the parameters chosen so far: a refusal here
 * refuses every completion, so the branch is pruned. */
static bool prefix_ok(enum_ctx *e, int i) {
  const action_rec *ar = &e->g->r->prog.actions[e->action];
  if (i + 1 >= ar->nparams || ar->prefix_fn[i] < 0) return true;
  int64_t full[MAX_PARAMS + 1] = {0};
  memcpy(full, e->args, sizeof(int64_t) * (size_t)(i + 1));
  int64_t ok = 1;
  e->g->v.nrefused = 0;
  e->g->v.guard_failed = 0;
  if (!vm_eval_cached(&e->g->v, ar->prefix_fn[i], full, ar->nparams + 1, i + 1, &ok)) return true; /* the rest are 0 */
  return ok != 0;
}

/* The leaf of the enumeration: the cost and the guards not judged above. */
static bool tail_ok(enum_ctx *e, int64_t *cost) {
  mt_game *g = e->g;
  const action_rec *ar = &g->r->prog.actions[e->action];
  int64_t full[MAX_PARAMS + 1];
  memcpy(full, e->args, (size_t)ar->nparams * sizeof *full);
  *cost = 0;
  g->v.nrefused = 0;
  g->v.guard_failed = 0;
  if (ar->cost_fn >= 0 && !vm_eval(&g->v, ar->cost_fn, full, ar->nparams, cost, NULL)) return false;
  full[ar->nparams] = *cost;
  int64_t ok = 0;
  if (!vm_eval_cached(&g->v, ar->tail_fn, full, ar->nparams + 1, ar->nparams + 1, &ok)) return false;
  return ok != 0;
}

/* The last parameter I ranges over the exact interval LO..HI: every value is
 * an answer with the same cost, so the answers are counted (saturating) and
 * those that fit OUT stored, without a walk.  The first value is judged (it
 * gives the cost); false if it is refused (then the range is walked after
 * all), true when done (or when the work budget ran out). */
static bool count_interval(enum_ctx *e, int i, int64_t lo, int64_t hi) {
  const action_rec *ar = &e->g->r->prog.actions[e->action];
  int64_t cost;
  e->args[i] = lo;
  if (!tail_ok(e, &cost)) return work_out(e->g);
  uint64_t last = (uint64_t)hi - (uint64_t)lo; /* the number of values, less one */
  mt_choice c = {.action = e->action, .nargs = ar->nparams, .value = cost};
  memcpy(c.args, e->args, sizeof e->args);
  if (e->only_one) { /* the answer numbered ONLY, if it lies here */
    if (e->only >= e->n && e->only - e->n <= last) {
      c.args[i] = (int64_t)((uint64_t)lo + (e->only - e->n));
      e->out[0] = c;
    }
  } else {
    for (uint64_t k = 0; e->n < e->cap && k < e->cap - e->n && k <= last; k++) {
      c.args[i] = (int64_t)((uint64_t)lo + k);
      e->out[e->n + k] = c;
    }
  }
  size_t room = SIZE_MAX - e->n;
  e->n += last >= room ? room : (size_t)last + 1;
  if (e->stop && e->n > e->stop) e->n = e->stop;
  return true;
}

/* Does a wide range of the last parameter hold an answer?  Before a walk
 * from its low end, PROBES values spread over it by a fixed generator are
 * judged: when answers are common one is found at once.  True if one was
 * (counted as found), false if the walk must decide. */
#define PROBE_WIDE 4095
#define PROBES 64
static bool probe_range(enum_ctx *e, int i, int64_t lo, int64_t hi) {
  uint64_t span = (uint64_t)hi - (uint64_t)lo + 1, z = (uint64_t)lo ^ (uint64_t)hi * 0x9e3779b97f4a7c15ull;
  int64_t cost;
  for (int t = 0; t < PROBES && !work_out(e->g); t++) {
    z += 0x9e3779b97f4a7c15ull; /* splitmix64: any spread will do, the answer is the same */
    uint64_t r = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    r = (r ^ (r >> 27)) * 0x94d049bb133111ebull;
    e->args[i] = (int64_t)((uint64_t)lo + (span ? (r ^ (r >> 31)) % span : r ^ (r >> 31)));
    if (tail_ok(e, &cost)) {
      e->n++;
      return true;
    }
  }
  return false;
}

static void enum_params(enum_ctx *e, int i) {
  const action_rec *ar = &e->g->r->prog.actions[e->action];
  if (i == ar->nparams) {
    int64_t cost;
    if (!tail_ok(e, &cost)) return;
    if (e->only_one ? e->n == e->only : e->n < e->cap) {
      mt_choice *c = &e->out[e->only_one ? 0 : e->n];
      c->open = 0;
      c->action = e->action;
      c->nargs = ar->nparams;
      memcpy(c->args, e->args, sizeof e->args);
      c->value = cost;
    }
    e->n++;
    return;
  }
  int64_t set = 0, lo = 0, hi = -1;
  bool range;
  int pile;
  if (!param_domain_ex(e->g, e->action, i, e->args, &set, &lo, &hi, &range, &pile)) return;
  if (pile >= 0) { /* a pile's cards, top first */
    int n = board_pile_count(e->g->L, e->g->v.st, pile);
    for (int k = n - 1; k >= 0 && !(e->stop && e->n >= e->stop); k--) {
      e->args[i] = board_pile_card(e->g->L, e->g->v.st, pile, k);
      if (prefix_ok(e, i)) enum_params(e, i + 1);
    }
    return;
  }
  if (range) {
    bool sure = narrow_range(e->g, e->action, i, e->args, &lo, &hi), exact = exact_last(e->g, e->action, i);
    if (lo > hi || (exact && (!sure || count_interval(e, i, lo, hi)))) return; /* a failing bound fails its guard */
    if (e->any && i + 1 == ar->nparams && wider_than(lo, hi, PROBE_WIDE) && probe_range(e, i, lo, hi)) return;
    /* every value, however wide the range: the decision's work budget bounds the walk */
    for (int64_t x = lo; !(e->stop && e->n >= e->stop) && !work_out(e->g); x++) {
      e->args[i] = x;
      if (prefix_ok(e, i)) enum_params(e, i + 1);
      if (x == hi) break; /* never steps past the largest integer */
    }
    return;
  }
  for (int k = 0; k < 64 && !(e->stop && e->n >= e->stop); k++)
    if ((uint64_t)set >> k & 1u) {
      e->args[i] = k;
      if (prefix_ok(e, i)) enum_params(e, i + 1);
    }
}

/* Does the prefix E->args[0..I-1] of E->action have a legal completion?
 * The search stops at the first one. */
static bool completes(enum_ctx *e, int i) {
  enum_ctx sub = *e;
  mt_choice tmp;
  sub.out = &tmp;
  sub.cap = 1;
  sub.n = 0;
  sub.stop = 1;
  sub.any = true;
  enum_params(&sub, i);
  return sub.n > 0;
}

/* Reservoir sampling: the K-th candidate seen replaces the pick with chance 1/K. */
static bool keep(mt_rand_fn rnd, void *ctx, uint64_t *k) {
  ++*k;
  return *k == 1 || rnd(ctx) % *k == 0;
}

/* Takes candidates in random order until one passes TEST: the first to pass
 * is uniform among all that would (each order is equally likely), and only
 * the candidates drawn before it are tested.  Returns its index or -1. */
#define SAMPLE_MAX 4096
static int draw_until(int64_t *cand, int m, mt_rand_fn rnd, void *ctx, bool (*test)(enum_ctx *, int, int64_t, int64_t *),
                      enum_ctx *e, int i, int64_t *cost) {
  while (m > 0) {
    int j = (int)(rnd(ctx) % (uint64_t)m);
    int64_t x = cand[j];
    cand[j] = cand[--m];
    cand[m] = x;
    if (test(e, i, x, cost)) return m;
  }
  return -1;
}

/* Parameter I = X: does it lead to a legal answer?  (For the last
 * parameter this judges the answer, and gives its cost.) */
static bool value_leads(enum_ctx *e, int i, int64_t x, int64_t *cost) {
  const action_rec *ar = &e->g->r->prog.actions[e->action];
  e->args[i] = x;
  if (i + 1 == ar->nparams) return tail_ok(e, cost);
  return prefix_ok(e, i) && completes(e, i + 1);
}

/* One value of LO..HI (too wide to hold as candidates) for parameter I,
 * uniform among those that lead to a legal answer: values are drawn from the
 * whole range until one does (in an exact interval, the first), and after
 * SAMPLE_TRIES misses the range is walked once, keeping each value that does
 * with the right chance, as far as the decision's work budget allows.  Either
 * way every such value is equally likely; nothing is cut off. */
#define SAMPLE_TRIES 64
static bool sample_wide(enum_ctx *e, int i, int64_t lo, int64_t hi, mt_rand_fn rnd, void *ctx, int64_t *pick,
                        int64_t *cost) {
  uint64_t span = (uint64_t)hi - (uint64_t)lo + 1; /* 0: all 2^64 values */
  int64_t c = 0;
  for (int t = 0; t < SAMPLE_TRIES && !work_out(e->g); t++) {
    int64_t x = (int64_t)((uint64_t)lo + uniform_below(rnd, ctx, span));
    if (value_leads(e, i, x, &c)) return *pick = x, *cost = c, true;
  }
  uint64_t k = 0;
  for (int64_t x = lo; !work_out(e->g); x++) {
    if (value_leads(e, i, x, &c) && keep(rnd, ctx, &k)) *pick = x, *cost = c;
    if (x == hi) break;
  }
  return k > 0 && !work_out(e->g);
}

/* One value of parameter I, uniform among those with a legal completion;
 * for the last parameter, also its cost.  False if there is none. */
static bool sample_param(enum_ctx *e, int i, mt_rand_fn rnd, void *ctx, int64_t *pick, int64_t *cost) {
  int64_t set = 0, lo = 0, hi = -1, c = 0;
  bool range;
  int pile;
  if (!param_domain_ex(e->g, e->action, i, e->args, &set, &lo, &hi, &range, &pile)) return false;
  int64_t cand[SAMPLE_MAX];
  int m = 0;
  if (pile >= 0) {
    int n = board_pile_count(e->g->L, e->g->v.st, pile);
    for (int k = 0; k < n && m < SAMPLE_MAX; k++) cand[m++] = board_pile_card(e->g->L, e->g->v.st, pile, k);
  } else if (range) {
    bool sure = narrow_range(e->g, e->action, i, e->args, &lo, &hi);
    if (lo > hi || (!sure && exact_last(e->g, e->action, i))) return false;
    if (wider_than(lo, hi, SAMPLE_MAX - 1)) return sample_wide(e, i, lo, hi, rnd, ctx, pick, cost);
    for (int64_t x = lo;; x++) {
      cand[m++] = x;
      if (x == hi) break;
    }
  } else {
    for (int k = 0; k < 64; k++)
      if ((uint64_t)set >> k & 1u) cand[m++] = k;
  }
  int j = draw_until(cand, m, rnd, ctx, value_leads, e, i, &c);
  if (j < 0) return false;
  *pick = cand[j];
  *cost = c;
  return true;
}

/* The action A = X (the answer's first level): does it have a legal answer? */
static bool action_leads(enum_ctx *e, int i, int64_t x, int64_t *cost) {
  (void)i, (void)cost;
  const program *p = &e->g->r->prog;
  e->action = (int)x;
  e->args[0] = e->g->v.vs->dec.faction;
  if (p->actions[e->action].nparams > 1 && !prefix_ok(e, 0)) return false;
  return completes(e, 1);
}

static int sample_answer(mt_game *g, mt_rand_fn rnd, void *ctx, mt_choice *out) {
  vm_state *vs = g->v.vs;
  if (vs->status != VM_WAITING) return false;
  vm_memo_reset(&g->v);
  *out = (mt_choice){.action = -1};
  switch (vs->dec.kind) {
  case DEC_ASK: {
    uint64_t k = 0;
    for (int x = 0; x < 64; x++)
      if ((uint64_t)vs->dec.set >> x & 1u && keep(rnd, ctx, &k)) out->value = x;
    return k > 0;
  }
  case DEC_RANGE: /* uniform over the whole range, however wide */
    if (vs->dec.hi < vs->dec.lo) return false;
    out->value = (int64_t)((uint64_t)vs->dec.lo + uniform_below(rnd, ctx, (uint64_t)vs->dec.hi - (uint64_t)vs->dec.lo + 1));
    return true;
  case DEC_MAY: out->value = (int64_t)(rnd(ctx) % 2); return true;
  case DEC_ACT: {
    const program *p = &g->r->prog;
    enum_ctx e = {g, NULL, 0, 0, 0, {0}, 0, 0, false, false};
    int64_t cand[SAMPLE_MAX];
    int m = 0;
    for (int i = 0; i < p->nlist[vs->dec.list] && m < SAMPLE_MAX; i++)
      if (p->lists[vs->dec.list][i] >= 0) cand[m++] = p->lists[vs->dec.list][i];
    int64_t cost = 0;
    int j = draw_until(cand, m, rnd, ctx, action_leads, &e, 0, &cost);
    int action = j < 0 ? -1 : (int)cand[j];
    if (action < 0) return false;
    const action_rec *ar = &p->actions[action];
    e.action = action;
    e.args[0] = vs->dec.faction;
    if (ar->nparams == 1 && !tail_ok(&e, &cost)) return false; /* judged above: cannot happen */
    for (int i = 1; i < ar->nparams; i++) {
      int64_t x = 0;
      if (!sample_param(&e, i, rnd, ctx, &x, &cost)) return false;
      e.args[i] = x;
    }
    out->action = action;
    out->nargs = ar->nparams;
    memcpy(out->args, e.args, sizeof e.args);
    out->value = cost;
    return true;
  }
  default: return false;
  }
}

static size_t legal(mt_game *g, mt_choice *out, size_t cap, size_t stop);

/* The listing and sampling entry points charge the pending decision's work
 * account (vm_work); what they find once it has run out is no answer. */
static void work_begin(mt_game *g) { g->v.work.counting = true; }
static bool work_end(mt_game *g) {
  g->v.work.counting = false;
  return !g->v.work.out;
}

int mt_sample(mt_game *g, mt_rand_fn rnd, void *ctx, mt_choice *out) {
  work_begin(g);
  int ok = sample_answer(g, rnd, ctx, out);
  return work_end(g) ? ok : 0;
}

size_t mt_legal(mt_game *g, mt_choice *out, size_t cap) {
  work_begin(g);
  size_t n = legal(g, out, cap, 0);
  return work_end(g) ? n : 0;
}

size_t mt_legal_upto(mt_game *g, mt_choice *out, size_t cap) {
  work_begin(g);
  size_t n = legal(g, out, cap, cap + 1);
  return work_end(g) ? n : 0;
}

static bool first_fewest(mt_game *g, mt_choice *out);
static int legal_nth(mt_game *g, size_t k, mt_choice *out);

bool game_first_fewest(mt_game *g, mt_choice *out) {
  work_begin(g);
  bool ok = first_fewest(g, out);
  return work_end(g) && ok;
}

int mt_legal_nth(mt_game *g, size_t k, mt_choice *out) {
  work_begin(g);
  int ok = legal_nth(g, k, out);
  return work_end(g) ? ok : 0;
}

void mt_set_work_budget(mt_game *g, uint64_t n) { g->v.work.limit = n; }
uint64_t mt_decision_work_peak(const mt_game *g) { return g->v.work.peak; }

const char *mt_decision_error(mt_game *g) {
  const vm_work *w = &g->v.work;
  const vm_state *vs = g->v.vs;
  if (!w->out || vs->status != VM_WAITING) return NULL;
  const program *p = &g->r->prog;
  const diag *d = g->r->d;
  strbuf *b = &g->errtext;
  sb_free(b);
  mt_span at = cg_span_at(p, (uint32_t)vs->dec.pc);
  uint32_t line, col;
  if (at.file != DIAG_NOFILE) {
    diag_linecol(d, at.file, at.start, &line, &col);
    sb_printf(b, "%s:%u:%u: ", diag_source_name(d, at.file), line, col);
  }
  sb_puts(b, "error");
  if (vs->dec.rule >= 0) sb_printf(b, " in rule %s (%s)", p->rules[vs->dec.rule].id, p->rules[vs->dec.rule].title);
  const mt_decision *dec = mt_pending(g);
  const func_rec *f = &p->funcs[w->fn];
  sb_printf(b, ": %s's decision (%s) ran out of work: ", dec->faction, dec->prompt);
  sb_printf(b, "%s%s", w->endless ? "one evaluation of the " : "the ", f->what);
  if (f->rule >= 0) sb_printf(b, " (rule %s, %s", p->rules[f->rule].id, p->rules[f->rule].title);
  mt_span in = cg_span_at(p, (uint32_t)w->pc);
  if (in.file != DIAG_NOFILE) {
    diag_linecol(d, in.file, in.start, &line, &col);
    sb_printf(b, "%s%s:%u:%u", f->rule >= 0 ? ", at " : " (at ", diag_source_name(d, in.file), line, col);
  }
  if (f->rule >= 0 || in.file != DIAG_NOFILE) sb_putc(b, ')');
  if (w->endless)
    sb_printf(b, " ran past its own budget of %llu instructions: it does not terminate", (unsigned long long)VM_BUDGET);
  else
    sb_printf(b, " used up the work budget of %llu VM instructions before its answers were listed or sampled; "
                 "bound the action's integer parameters with guards such as 'require n <= e', or raise the budget "
                 "(--work-budget N)",
              (unsigned long long)(w->limit ? w->limit : MT_WORK_BUDGET));
  return b->s;
}

/* The completions of a partial choice: every value of its open parameters in their domains
 * (the guards are not judged here), a range at most COMPLETE_RANGE values from its low end. */
#define COMPLETE_RANGE 64
static void complete(mt_game *g, mt_choice *c, int i, mt_choice *out, size_t cap, size_t *n) {
  const action_rec *ar = &g->r->prog.actions[c->action];
  if (*n >= cap) return;
  if (i == ar->nparams) {
    out[*n] = *c;
    out[*n].open = 0;
    ++*n;
    return;
  }
  if (!(c->open >> i & 1u)) {
    complete(g, c, i + 1, out, cap, n);
    return;
  }
  int64_t set = 0, lo = 0, hi = -1;
  bool range;
  int pile;
  if (!param_domain_ex(g, c->action, i, c->args, &set, &lo, &hi, &range, &pile)) return;
  if (pile >= 0) {
    int k = board_pile_count(g->L, g->v.st, pile);
    for (int j = k - 1; j >= 0 && *n < cap; j--) {
      c->args[i] = board_pile_card(g->L, g->v.st, pile, j);
      complete(g, c, i + 1, out, cap, n);
    }
  } else if (range) {
    for (int64_t x = lo, m = 0; x <= hi && m < COMPLETE_RANGE && *n < cap; x++, m++) {
      c->args[i] = x;
      complete(g, c, i + 1, out, cap, n);
      if (x == hi) break;
    }
  } else {
    for (int k = 0; k < 64 && *n < cap; k++)
      if ((uint64_t)set >> k & 1u) {
        c->args[i] = k;
        complete(g, c, i + 1, out, cap, n);
      }
  }
}

size_t game_completions(mt_game *g, const mt_choice *partial, mt_choice *out, size_t cap) {
  mt_choice c = *partial;
  size_t n = 0;
  vm_memo_reset(&g->v);
  complete(g, &c, 1, out, cap, &n);
  return n;
}

bool game_param_only(mt_game *g, int a, int i, const int64_t *args, int64_t *only) {
  int64_t set = 0, lo = 0, hi = -1;
  bool range;
  int pile;
  vm_memo_reset(&g->v);
  if (!param_domain_ex(g, a, i, args, &set, &lo, &hi, &range, &pile)) return false;
  if (pile >= 0) {
    if (board_pile_count(g->L, g->v.st, pile) != 1) return false;
    *only = board_pile_card(g->L, g->v.st, pile, 0);
    return true;
  }
  if (range) return lo == hi && (*only = lo, true);
  if (set == 0 || (set & (set - 1))) return false;
  for (int k = 0; k < 64; k++)
    if ((uint64_t)set >> k & 1u) *only = k;
  return true;
}

bool game_param_range(mt_game *g, const mt_choice *c, int i, int64_t *lo, int64_t *hi) {
  const program *p = &g->r->prog;
  if (c->action < 0 || c->action >= p->nactions || i <= 0 || i >= p->actions[c->action].nparams) return false;
  int64_t set = 0;
  bool range;
  int pile;
  vm_memo_reset(&g->v);
  work_begin(g);
  bool ok = param_domain_ex(g, c->action, i, c->args, &set, lo, hi, &range, &pile) && range && pile < 0;
  if (ok) narrow_range(g, c->action, i, c->args, lo, hi);
  return work_end(g) && ok && *lo <= *hi;
}

static bool first_fewest(mt_game *g, mt_choice *out) {
  vm_state *vs = g->v.vs;
  if (vs->status != VM_WAITING) return false;
  if (vs->dec.kind != DEC_ACT) return legal(g, out, 1, 1) > 0;
  vm_memo_reset(&g->v);
  const program *p = &g->r->prog;
  for (int np = 1; np <= MAX_PARAMS; np++)
    for (int i = 0; i < p->nlist[vs->dec.list]; i++) {
      enum_ctx e = {g, out, 1, 0, p->lists[vs->dec.list][i], {0}, 1, 0, false, false};
      if (e.action < 0 || p->actions[e.action].nparams != np) continue;
      e.args[0] = vs->dec.faction;
      if (np > 1 && !prefix_ok(&e, 0)) continue;
      enum_params(&e, 1);
      if (e.n) return true;
    }
  return false;
}

static int legal_nth(mt_game *g, size_t k, mt_choice *out) {
  vm_state *vs = g->v.vs;
  if (vs->status != VM_WAITING) return 0;
  if (vs->dec.kind != DEC_ACT) { /* a short list, or a range: no search */
    if (vs->dec.kind == DEC_RANGE) {
      if (vs->dec.hi < vs->dec.lo || k > (uint64_t)vs->dec.hi - (uint64_t)vs->dec.lo) return 0;
      *out = (mt_choice){.action = -1, .value = vs->dec.lo + (int64_t)k};
      return 1;
    }
    mt_choice buf[64];
    size_t n = legal(g, buf, 64, 0);
    if (k >= n || k >= 64) return 0;
    *out = buf[k];
    return 1;
  }
  vm_memo_reset(&g->v);
  const program *p = &g->r->prog;
  enum_ctx e = {g, out, 1, 0, 0, {0}, k + 1, k, true, false};
  for (int i = 0; i < p->nlist[vs->dec.list] && e.n <= k; i++) {
    e.action = p->lists[vs->dec.list][i];
    if (e.action < 0) continue;
    e.args[0] = vs->dec.faction;
    if (p->actions[e.action].nparams > 1 && !prefix_ok(&e, 0)) continue;
    enum_params(&e, 1);
  }
  return e.n > k;
}

/* `can(F: list)` during a run (vm.can_act): does faction F have a legal answer
 * among the actions of LIST?  Judged as a decision's answers are, stopping at
 * the first; the running frame is untouched (guards run on scratch stacks). */
bool game_can_act(vm *v, int list, int64_t faction) {
  mt_game *g = (mt_game *)(void *)((char *)v - offsetof(mt_game, v));
  const program *p = &g->r->prog;
  if (list < 0 || list >= p->nlists) return false;
  mt_choice tmp;
  enum_ctx e = {g, &tmp, 1, 0, 0, {0}, 1, 0, false, true};
  vm_memo_reset(v);
  /* actions whose first guard is the same code (fuse.c: several questions of one card) are judged
   * once: the state and the faction are the same throughout */
  int judged[16], njudged = 0;
  bool passed[16];
  for (int i = 0; i < p->nlist[list] && e.n == 0; i++) {
    e.action = p->lists[list][i];
    if (e.action < 0) continue;
    e.args[0] = faction;
    const action_rec *ar = &p->actions[e.action];
    if (ar->nparams > 1) {
      int k = 0;
      while (k < njudged && judged[k] != ar->first_same) k++;
      bool ok;
      if (k < njudged) {
        ok = passed[k];
      } else {
        ok = prefix_ok(&e, 0);
        if (njudged < 16) judged[njudged] = ar->first_same, passed[njudged++] = ok;
      }
      if (!ok) continue;
    }
    enum_params(&e, 1);
  }
  vm_memo_reset(v); /* the run goes on changing the state */
  return e.n > 0;
}

/* The legal answers into OUT (up to CAP); the count, or STOP when it stops there (0: never). */
static size_t legal(mt_game *g, mt_choice *out, size_t cap, size_t stop) {
  vm_state *vs = g->v.vs;
  if (vs->status != VM_WAITING) return 0;
  vm_memo_reset(&g->v);
  size_t n = 0;
  switch (vs->dec.kind) {
  case DEC_ASK:
    for (int k = 0; k < 64; k++)
      if ((uint64_t)vs->dec.set >> k & 1u) {
        if (n < cap) out[n] = (mt_choice){.action = -1, .value = k};
        n++;
      }
    return n;
  case DEC_RANGE: { /* counted, not walked: only the answers that fit OUT are written */
    if (vs->dec.hi < vs->dec.lo) return 0;
    uint64_t last = (uint64_t)vs->dec.hi - (uint64_t)vs->dec.lo;
    for (uint64_t k = 0; k < cap && k <= last; k++) out[k] = (mt_choice){.action = -1, .value = (int64_t)((uint64_t)vs->dec.lo + k)};
    n = last >= SIZE_MAX ? SIZE_MAX : (size_t)last + 1;
    return stop && n > stop ? stop : n;
  }
  case DEC_MAY:
    for (int x = 0; x < 2; x++) {
      if (n < cap) out[n] = (mt_choice){.action = -1, .value = x};
      n++;
    }
    return n;
  case DEC_ACT: {
    const program *p = &g->r->prog;
    enum_ctx e = {g, out, cap, 0, 0, {0}, stop, 0, false, false};
    for (int i = 0; i < p->nlist[vs->dec.list] && !(stop && e.n >= stop); i++) {
      e.action = p->lists[vs->dec.list][i];
      if (e.action < 0) continue;
      e.args[0] = vs->dec.faction;
      if (p->actions[e.action].nparams > 1 && !prefix_ok(&e, 0)) continue; /* guards on the faction alone */
      enum_params(&e, 1);
    }
    return e.n;
  }
  default: return 0;
  }
}
