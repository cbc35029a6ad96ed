/* reach.c -- `verify`: a bounded search for a position where a boolean holds
 * (can) or fails (always), over the legal answers of the deciding factions
 * and the outcomes of the rules' random events (reach.h, docs/verify.md).
 *
 * A step is one answer (or the game's start) run on a copy of its parent
 * with chance as choice on, then "settled": the query evaluated and the
 * next decision's answers listed.  A step that meets a random event with no
 * outcome planned stops short (mentat.h); the search then runs the same step
 * again once per possible outcome, the outcome added to the plan, so chance
 * is searched exactly like a decision, never drawn.  The rules say what is
 * random (shuffle, top/draw, random, random_member); nothing here knows a
 * deck.
 *
 * Depth-first by limited discrepancy: the answers of a decision are tried in
 * an order (the heuristic bot's choice first, then answers at the ends of
 * their integer ranges, then the rest), the outcomes of a random event in
 * card/number order, and a line may leave the first choice at most D times;
 * D goes 0, 1, 2, 4, 8, ... until a pass cuts no line (then every line
 * within the bounds was explored: a proof).  A transposition table keyed by
 * the position's hash keeps how much room was left when the position was
 * explored, so answers that lead to the same position are merged; budgets of
 * positions and seconds stop it.  With --jobs N, worker processes share
 * out the lines below the first points where the search branches.
 */
#define _POSIX_C_SOURCE 200809L
#include "reach.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bots.h"
#include "proc.h"

#define DEFAULT_POSITIONS 200000
#define DEFAULT_SECONDS 60.0
#define WORD 64

typedef struct tt_entry {
  uint64_t h;
  int32_t left;
} tt_entry;

typedef struct line_step {
  strbuf pre;  /* outcome words the command takes */
  strbuf cmd;
  strbuf post; /* cards decided while settling (the query or a guard read an undecided top card):
                  `stack PILE CARD` lines, each on its own line, that decide them the same way */
} line_step;

typedef struct ctx {
  const reach_query *q;
  int fn;          /* the query, compiled */
  tt_entry *tt;
  size_t tcap, tn;
  uint64_t positions, steps, chance, maxpos;
  int deepest, found_depth; /* found_depth: the witness's decisions */
  char error[512];          /* the condition could not be evaluated (the search stops) */
  uint64_t failed;          /* lines on which the rules failed (a runtime error) */
  char fail_text[512];      /* the first of them */
  double t0, deadline;
  bool stopped, found, cut, split;
  uint64_t code, prod; /* --jobs: the path through the branching points above (share_take) */
  bool was_on;     /* the start had chance as choice on already (no `chance on` in the witness) */
  bool had_stops;  /* the start had pauses set (the console's run phase/turn): the witness clears them */
  char stop[256];
  int limit;       /* discrepancies allowed on a line in this pass */
  mt_game **pool;  /* take(): a game object per level of the recursion */
  int npool, level;
  int jobs, worker;
  int64_t phase0;
  line_step *line;
  int nline, capline;
  const char *const *start;
  int nstart;
  bool started;    /* the start position has begun (no `run step` first) */
  char **witness;
  int nwitness;
} ctx;

/* A settled position: the query's value there and its answers. */
typedef struct settled {
  bool holds;
  mt_choice *ans;
  size_t nans;
} settled;

static double now(void) { return mt_seconds(); }

/* ---- the transposition table ------------------------------------------------------------ */

static bool tt_visit(ctx *C, uint64_t h, int32_t left) {
  if (C->tn * 2 >= C->tcap) {
    size_t ncap = C->tcap ? C->tcap * 2 : 1 << 16;
    tt_entry *n = mt_calloc(ncap, sizeof *n);
    for (size_t i = 0; i < C->tcap; i++) {
      if (!C->tt[i].h) continue;
      size_t j = C->tt[i].h & (ncap - 1);
      while (n[j].h) j = (j + 1) & (ncap - 1);
      n[j] = C->tt[i];
    }
    mt_free(C->tt);
    C->tt = n;
    C->tcap = ncap;
  }
  h |= 1; /* 0 marks an empty slot */
  size_t j = h & (C->tcap - 1);
  while (C->tt[j].h && C->tt[j].h != h) j = (j + 1) & (C->tcap - 1);
  if (C->tt[j].h == h) {
    if (C->tt[j].left >= left) return true; /* explored at least this deep already */
    C->tt[j].left = left;
    return false;
  }
  C->tt[j].h = h;
  C->tt[j].left = left;
  C->tn++;
  C->positions++;
  return false;
}

/* ---- the witness -------------------------------------------------------------------------- */

static void add_line(ctx *C, const char *head, const char *s) {
  C->witness = mt_realloc(C->witness, (size_t)(C->nwitness + 1) * sizeof *C->witness);
  size_t n = strlen(head) + strlen(s) + 1;
  C->witness[C->nwitness] = mt_alloc(n);
  snprintf(C->witness[C->nwitness++], n, "%s%s", head, s);
}

/* The console lines from the start position to the current line's end, and the check. */
static void make_witness(ctx *C, int depth) {
  for (int i = 0; i < C->nstart; i++) add_line(C, "", C->start[i]);
  if (!C->was_on) add_line(C, "", C->q->keep_order ? "chance on --keep-order" : "chance on");
  char stop[64] = ""; /* the pause of the bound, as the search had it */
  if (C->q->bound == REACH_THIS_PHASE) snprintf(stop, sizeof stop, "stop phase");
  else if (C->q->bound == REACH_BY_TURN) snprintf(stop, sizeof stop, "stop turn %lld", (long long)C->q->limit);
  else if (C->had_stops) snprintf(stop, sizeof stop, "stop off");
  if (stop[0]) add_line(C, "", stop);
  C->found_depth = 0;
  for (int i = 0; i <= depth; i++) {
    line_step *s = &C->line[i];
    C->found_depth += s->cmd.n > 3 && !strncmp(s->cmd.s, "do ", 3);
    if (s->pre.n) add_line(C, "chance ", s->pre.s);
    if (s->cmd.n) add_line(C, "", s->cmd.s);
    for (char *l = s->post.s; l && *l;) { /* a top card decided where nothing runs: put it there */
      char *nl = strchr(l, '\n');
      if (nl) *nl = 0;
      add_line(C, "", l);
      if (!nl) break;
      *nl = '\n';
      l = nl + 1;
    }
  }
  strbuf chk = {0};
  if (C->q->mode == REACH_CAN) sb_printf(&chk, "check %s", C->q->expr);
  else sb_printf(&chk, "check not (%s)", C->q->expr);
  add_line(C, "", chk.s);
  sb_free(&chk);
}

static line_step *line_at(ctx *C, int depth) {
  while (depth >= C->capline) {
    int n = C->capline ? 2 * C->capline : 64;
    C->line = mt_realloc(C->line, (size_t)n * sizeof *C->line);
    memset(C->line + C->capline, 0, (size_t)(n - C->capline) * sizeof *C->line);
    C->capline = n;
  }
  line_step *s = &C->line[depth];
  s->pre.n = s->cmd.n = s->post.n = 0;
  if (s->pre.s) s->pre.s[0] = 0;
  if (s->cmd.s) s->cmd.s[0] = 0;
  if (s->post.s) s->post.s[0] = 0;
  return s;
}

/* ---- one step ------------------------------------------------------------------------------ */

static bool decides(const ctx *C, const mt_game *g) {
  if (!C->q->deciders) return true;
  int f = g->v.vs->dec.faction;
  return f >= 0 && f < 64 && (C->q->deciders >> f & 1u);
}

static bool budget_out(ctx *C) {
  if (C->stopped) return true;
  if (C->error[0]) {
    C->stopped = true;
    snprintf(C->stop, sizeof C->stop, "%.250s", C->error);
    return true;
  }
  if (mt_stop_requested) {
    C->stopped = true;
    snprintf(C->stop, sizeof C->stop, "interrupted (Ctrl-C)");
  } else if (C->positions >= C->maxpos) {
    C->stopped = true;
    snprintf(C->stop, sizeof C->stop, "the budget of %llu positions ran out", (unsigned long long)C->maxpos);
  } else if ((C->steps & 63) == 0) {
    double t = now();
    if (t > C->deadline) {
      C->stopped = true;
      snprintf(C->stop, sizeof C->stop, "the budget of %.0f seconds ran out", C->q->max_seconds > 0 ? C->q->max_seconds : DEFAULT_SECONDS);
    } else if (mt_progress_to && C->worker == 0) { /* how far, how fast, how long at most */
      double rate = t > C->t0 ? (double)C->positions / (t - C->t0) : 0;
      double left = C->deadline - t, by_pos = rate > 0 ? (double)(C->maxpos - C->positions) / rate : left;
      mt_progress("verify: %llu positions, %.0f positions/s, at most %.0f s left (Ctrl-C stops)", (unsigned long long)C->positions,
                  rate, by_pos < left ? by_pos : left);
    }
  }
  return C->stopped;
}

/* Puts the answers whose integer parameters lie at an end of their range first (every answer is
 * kept unless --ints ends): a line that ships everything or nothing is tried before the rest. */
static size_t order_answers(mt_game *g, mt_choice *a, size_t n, bool ends_only) {
  if (n < 2) return n;
  const mt_decision *d = mt_pending(g);
  char *end = mt_calloc(n, 1);
  for (size_t i = 0; i < n; i++) {
    end[i] = 1;
    if (d && d->kind == MT_DEC_NUMBER) {
      end[i] = a[i].value == d->lo || a[i].value == d->hi;
      continue;
    }
    if (a[i].action < 0) continue;
    const action_rec *ar = &g->r->prog.actions[a[i].action];
    for (int k = 1; k < ar->nparams && end[i]; k++) {
      int64_t lo, hi;
      if (ar->ptype[k] == TY_INT && game_param_range(g, &a[i], k, &lo, &hi) && a[i].args[k] != lo && a[i].args[k] != hi)
        end[i] = 0;
    }
  }
  mt_choice *out = mt_alloc(n * sizeof *out);
  size_t m = 0;
  for (int pass = 1; pass >= 0; pass--)
    for (size_t i = 0; i < n; i++)
      if (end[i] == pass && (pass || !ends_only)) out[m++] = a[i];
  memcpy(a, out, m * sizeof *out);
  mt_free(out);
  mt_free(end);
  return m;
}

/* Moves the heuristic bot's answer to the front: the line of no discrepancy is the one the
 * rules' own bot_value prefers, the others are tried as deviations from it. */
static void prefer_bot(ctx *C, mt_game *g, settled *s) {
  (void)C;
  mt_choice best;
  uint64_t rng = mt_hash(g) ^ 0x6f72646572ull; /* by meaning: not the code's addresses in the frames */
  if (!bot_choose(g, BOT_HEURISTIC, &rng, &best)) return;
  for (size_t i = 1; i < s->nans; i++)
    if (s->ans[i].action == best.action && s->ans[i].value == best.value && s->ans[i].nargs == best.nargs &&
        !memcmp(s->ans[i].args, best.args, (size_t)best.nargs * sizeof *best.args)) {
      memmove(s->ans + 1, s->ans, i * sizeof *s->ans);
      s->ans[0] = best;
      return;
    }
}

/* The query's value at G and, if the game goes on, the answers to try: false if a random
 * event stopped it (the caller branches on it). */
static bool settle(ctx *C, mt_game *g, settled *s) {
  memset(s, 0, sizeof *s);
  int64_t v = 0;
  strbuf err = {0};
  bool ok = vm_eval_at(&g->v, C->fn, NULL, 0, &v, &err, g->r->d);
  if (mt_chance_need(g, NULL, 0, &(int){0}, NULL, 0, NULL) != MT_CHANCE_NONE) {
    sb_free(&err);
    return false;
  }
  if (!ok && !C->error[0]) /* the condition fails to evaluate here: the search stops and says so */
    snprintf(C->error, sizeof C->error, "the condition cannot be evaluated at a position reached: %s", err.s ? err.s : "?");
  sb_free(&err);
  s->holds = ok && v != 0;
  if (!ok) s->holds = C->q->mode == REACH_ALWAYS; /* neither a witness nor a counterexample */
  if (mt_status(g) != MT_WAITING) return true;
  if (decides(C, g)) {
    size_t cap = 256, n;
    for (;;) {
      s->ans = mt_realloc(s->ans, cap * sizeof *s->ans);
      n = mt_legal(g, s->ans, cap);
      if (n <= cap) break;
      cap = n;
    }
    s->nans = n;
  } else {
    s->ans = mt_alloc(sizeof *s->ans);
    uint64_t rng = mt_hash(g) ^ 0x7665726966ull; /* the policy's answer depends on the position only */
    s->nans = bot_choose(g, C->q->others, &rng, s->ans) ? 1 : 0;
  }
  if (mt_chance_need(g, NULL, 0, &(int){0}, NULL, 0, NULL) != MT_CHANCE_NONE) {
    mt_free(s->ans);
    s->ans = NULL;
    return false;
  }
  if (decides(C, g)) {
    s->nans = order_answers(g, s->ans, s->nans, C->q->ends);
    if (!C->q->list_order && C->q->mode == REACH_CAN && s->nans > 1) prefer_bot(C, g, s);
    if (mt_chance_need(g, NULL, 0, &(int){0}, NULL, 0, NULL) != MT_CHANCE_NONE) {
      mt_free(s->ans);
      s->ans = NULL;
      return false;
    }
  }
  return true;
}

static bool explore(ctx *C, mt_game *g, settled *s, int depth, int disc);

/* --jobs: the workers share out the lines below the first branching points.  Each path through
 * them has a number (its choices in mixed radix); once a path has enough siblings (8 per worker),
 * worker W explores the paths whose number is W modulo the workers, and everything below them.
 * Every worker walks the same points above, so they agree on the numbers. */
typedef struct share {
  bool active;
  uint64_t code, prod; /* the path's number and the count of paths at this depth, on entry */
  size_t n;
} share;

static share share_begin(ctx *C, size_t n) {
  share sh = {C->split && n > 1, C->code, C->prod, n};
  return sh;
}

static bool share_take(ctx *C, share *sh, size_t i) {
  if (!sh->active) return true;
  uint64_t code = sh->code * sh->n + i, prod = sh->prod * sh->n;
  if (prod >= 8 * (uint64_t)C->jobs) { /* shared out here */
    C->split = false;
    return code % (uint64_t)C->jobs == (uint64_t)C->worker;
  }
  C->split = true; /* not yet: below this branch the sharing goes on */
  C->code = code;
  C->prod = prod;
  return true;
}

static void share_end(ctx *C, const share *sh) {
  if (!sh->active) return;
  C->split = true;
  C->code = sh->code;
  C->prod = sh->prod;
}

static int turn_of(const mt_game *g) {
  const program *p = &g->r->prog;
  return p->turn_var < 0 ? 0 : board_var_get(g->L, g->v.st, p->vars[p->turn_var].board_var, 0, 0);
}

/* A game object for the next step down: one per level of the recursion, made once and
 * refilled with a state copy (its VM memo and chance record are kept, not reallocated). */
static mt_game *take(ctx *C, const mt_game *parent) {
  if (C->level == C->npool) {
    C->pool = mt_realloc(C->pool, (size_t)(C->npool + 1) * sizeof *C->pool);
    C->pool[C->npool++] = mt_clone(parent);
  } else {
    mt_copy_state(C->pool[C->level], parent);
  }
  mt_game *g = C->pool[C->level++];
  vm_memo_reset(&g->v);
  return g;
}

/* The outcomes planned for one step and their words. */
typedef struct plan_buf {
  int64_t plan[VM_CHANCE_PLAN];
  char words[VM_CHANCE_PLAN][WORD];
  char pile[VM_CHANCE_PLAN][WORD]; /* the pile of a card outcome */
  int64_t opts[512];
} plan_buf;

/* Runs answer A (NULL: the game's start; CMD NULL too: nothing, only settling) on a copy of
 * PARENT with the planned outcomes; a random event met without one is branched over.  Each
 * settled result is explored at DEPTH.  True when the search is over (found or stopped). */
static bool branch(ctx *C, const mt_game *parent, const mt_choice *a, const char *cmd, plan_buf *pb, int np, int depth,
                   int disc) {
  if (budget_out(C)) return true;
  mt_game *g = take(C, parent);
  mt_chance_plan(g, pb->plan, np);
  mt_explain why;
  int rc = a ? mt_apply(g, a, &why) : !cmd ? 0 : mt_status(g) == VM_IDLE ? mt_start(g) : vm_run(&g->v); /* `run step` */
  C->steps++;
  int taken = mt_chance_taken(g);
  settled s = {0};
  int64_t *opts = pb->opts;
  int n = 0;
  bool need = mt_chance_need(g, opts, 512, &n, NULL, 0, NULL) != MT_CHANCE_NONE;
  if (!need && a && rc < 0 && mt_status(g) == MT_WAITING) { /* refused (a listed answer should not be) */
    C->level--;
    return false;
  }
  if (!need && mt_status(g) == MT_FAILED) { /* the rules fail on this line: counted, the first one said */
    if (!C->failed++) snprintf(C->fail_text, sizeof C->fail_text, "%s (after: %s)", mt_error(g), cmd ? cmd : "the start");
  }
  if (!need && mt_status(g) != MT_FAILED && !settle(C, g, &s)) need = mt_chance_need(g, opts, 512, &n, NULL, 0, NULL) != MT_CHANCE_NONE;
  if (need) {
    if (n > 512) n = 512; /* a pile of more than 512 different cards: its first 512 */
    if (np >= VM_CHANCE_PLAN) {
      C->level--;
      return false;
    }
    C->chance++;
    if (getenv("REACH_DEBUG")) {
      char what[160];
      int nn, bad;
      mt_chance_need(g, NULL, 0, &nn, what, sizeof what, &bad);
      fprintf(stderr, "need np=%d taken=%d n=%d %s [%s]\n", np, taken, nn, what, cmd ? cmd : "-");
    }
    int64_t *mine = mt_alloc((size_t)n * sizeof *mine); /* the options: PB's buffer and G serve the steps below */
    char(*word)[WORD] = mt_alloc((size_t)n * WORD);
    memcpy(mine, opts, (size_t)n * sizeof *mine);
    for (int i = 0; i < n; i++) mt_chance_format(g, mine[i], word[i], WORD);
    char pile[WORD] = "";
    mt_chance_pile(g, pile, sizeof pile);
    share sh = share_begin(C, (size_t)n);
    for (int i = 0; i < n && !C->found; i++) {
      if (!share_take(C, &sh, (size_t)i)) continue;
      if (i > 0 && disc + 1 > C->limit) { /* another outcome than the first: a discrepancy */
        C->cut = true;
        break;
      }
      pb->plan[np] = mine[i];
      memcpy(pb->words[np], word[i], WORD);
      memcpy(pb->pile[np], pile, WORD);
      if (branch(C, parent, a, cmd, pb, np + 1, depth, disc + (i > 0))) break;
    }
    share_end(C, &sh);
    mt_free(mine);
    mt_free(word);
    C->level--;
    return C->found || C->stopped;
  }
  line_step *ls = line_at(C, depth);
  for (int i = 0; i < taken; i++) sb_printf(&ls->pre, "%s%s", i ? " " : "", pb->words[i]);
  for (int i = taken; i < np; i++) sb_printf(&ls->post, "%sstack %s %s", ls->post.n ? "\n" : "", pb->pile[i], pb->words[i]);
  if (cmd) sb_printf(&ls->cmd, "%s", cmd);
  bool over = mt_status(g) == MT_FAILED ? false : explore(C, g, &s, depth, disc);
  mt_free(s.ans);
  C->level--;
  return over;
}

/* G is settled at the end of line step DEPTH. */
static bool explore(ctx *C, mt_game *g, settled *s, int depth, int disc) {
  const reach_query *q = C->q;
  if (q->bound == REACH_BY_TURN && turn_of(g) > q->limit) return false;
  if (C->phase0 < 0) C->phase0 = g->v.vs->phase_seq; /* the phase of the first position settled */
  if (q->bound == REACH_THIS_PHASE && g->v.vs->phase_seq != C->phase0) return false;
  if (depth > C->deepest) C->deepest = depth;
  if (s->holds == (q->mode == REACH_CAN)) {
    C->found = true;
    make_witness(C, depth);
    return true;
  }
  if (mt_status(g) == MT_PAUSED) { /* stopped between phases: at the bound, or a console position (play on) */
    if (q->bound == REACH_THIS_PHASE || q->bound == REACH_BY_TURN) return false;
    plan_buf *pb = mt_alloc(sizeof *pb);
    bool over = branch(C, g, NULL, "run step", pb, 0, depth + 1, disc);
    mt_free(pb);
    return over;
  }
  if (mt_status(g) != MT_WAITING || s->nans == 0) return false;
  int left = q->bound == REACH_WITHIN ? (int)(q->limit - depth) : 0;
  if (q->bound == REACH_WITHIN && left <= 0) return false;
  int32_t room = (C->limit - disc) * 4096 + (left < 4096 ? left : 4095);
  if (tt_visit(C, mt_hash(g), room)) return false;
  if (budget_out(C)) return true;
  char text[512], cmd[520];
  share sh = share_begin(C, s->nans);
  plan_buf *pb = mt_alloc(sizeof *pb);
  bool over = false;
  for (size_t i = 0; i < s->nans && !over; i++) {
    if (!share_take(C, &sh, i)) continue;
    if (i > 0 && disc + 1 > C->limit) {
      C->cut = true;
      break;
    }
    mt_choice_format(g, &s->ans[i], text, sizeof text);
    snprintf(cmd, sizeof cmd, "do %s", text);
    over = branch(C, g, &s->ans[i], cmd, pb, 0, depth + 1, disc + (i > 0));
  }
  mt_free(pb);
  share_end(C, &sh);
  return over;
}

/* ---- the query ----------------------------------------------------------------------------- */

static int compile_query(const mt_game *g, const char *text, strbuf *err) {
  int ty;
  int fn = game_compile_expr(g, "<verify>", text, TY_BOOL, &ty, err);
  if (fn >= 0 && ty != TY_BOOL) {
    sb_printf(err, "the query must be true or false (a boolean), not a value of another type");
    return -1;
  }
  return fn;
}

/* ---- running it, in one process or several -------------------------------------------- */

static void search(ctx *C, const mt_game *start) {
  mt_game *root = mt_clone(start);
  mt_game_set_log(root, NULL, NULL);
  root->v.fired = NULL;
  plan_buf *pb = mt_alloc(sizeof *pb);
  vm_state *vs = root->v.vs;
  int st = mt_status(root);
  C->had_stops = vs->stop_phase_end != -1 || vs->stop_turn != -1;
  vm_reset_stops(vs); /* the console's own stops are not the bounds; the witness sets the same (`stop`) */
  if (C->q->bound == REACH_THIS_PHASE) /* pause as the phase ends: nothing past it is drawn or listed */
    vs->stop_phase_end = st == VM_IDLE || st == MT_PAUSED || vs->phase_rule < 0 ? -2 : vs->phase_rule;
  if (C->q->bound == REACH_BY_TURN) vs->stop_turn = (int32_t)C->q->limit; /* pause as turn T is over */
  /* can: deepening by discrepancies; always: one pass over everything.  ALL_DISC is as good as no
   * limit (a line has fewer choices than that) and keeps the table's room, limit * 4096, in 31 bits */
  enum { ALL_DISC = 1 << 18 };
  for (C->limit = C->q->mode == REACH_ALWAYS ? ALL_DISC : 0;; C->limit = C->limit ? 2 * C->limit : 1) {
    C->cut = false;
    C->split = C->jobs > 1;
    C->code = 0;
    C->prod = 1;
    /* an idle game starts (its setup is the first step); a started one is only settled */
    branch(C, root, NULL, mt_status(root) == VM_IDLE || mt_status(root) == MT_PAUSED ? "run step" : NULL, pb, 0, 0, 0);
    if (C->found || C->stopped || !C->cut || C->limit >= ALL_DISC) break;
  }
  mt_free(pb);
  mt_game_free(root);
}

/* Adds one search's (or worker's) outcome to RES, which starts as REACH_EXHAUSTED: a
 * witness wins, then a stopped search (not a proof). */
static void result_of(ctx *C, reach_result *res) {
  res->positions += C->positions;
  res->steps += C->steps;
  res->chance += C->chance;
  if (C->deepest > res->deepest) res->deepest = C->deepest;
  if (C->found && res->verdict != REACH_FOUND) {
    res->verdict = REACH_FOUND;
    res->lines = C->witness;
    res->nlines = C->nwitness;
    C->witness = NULL;
    C->nwitness = 0;
    res->depth = C->found_depth;
  } else if (C->error[0] && res->verdict != REACH_FOUND) {
    res->verdict = REACH_ERROR;
    snprintf(res->stop, sizeof res->stop, "%.250s", C->error);
  } else if (C->stopped && res->verdict == REACH_EXHAUSTED) {
    res->verdict = REACH_BUDGET;
    snprintf(res->stop, sizeof res->stop, "%s", C->stop);
  }
  if (C->failed && !res->failed) snprintf(res->fail_text, sizeof res->fail_text, "%s", C->fail_text);
  res->failed += C->failed;
}

static void ctx_free(ctx *C) {
  mt_free(C->tt);
  for (int i = 0; i < C->npool; i++) mt_game_free(C->pool[i]);
  mt_free(C->pool);
  for (int i = 0; i < C->capline; i++) {
    sb_free(&C->line[i].pre);
    sb_free(&C->line[i].cmd);
    sb_free(&C->line[i].post);
  }
  mt_free(C->line);
  for (int i = 0; i < C->nwitness; i++) mt_free(C->witness[i]);
  mt_free(C->witness);
}

/* A worker's result on its pipe: a header line, then the witness's lines.
 * False (errno set) when it could not be sent whole. */
static bool send_result(int fd, ctx *C) {
  strbuf b = {0};
  sb_printf(&b, "%d %d %d %llu %llu %llu %d %d %llu\n", C->found, C->found_depth, C->stopped, (unsigned long long)C->positions,
            (unsigned long long)C->steps, (unsigned long long)C->chance, C->deepest, C->nwitness, (unsigned long long)C->failed);
  sb_printf(&b, "%s\n%s\n%s\n", C->stop, C->error, C->fail_text);
  for (int i = 0; i < C->nwitness; i++) sb_printf(&b, "%s\n", C->witness[i]);
  bool ok = proc_write_all(fd, b.s, b.n);
  sb_free(&b);
  return ok;
}

static bool read_result(FILE *f, ctx *C) {
  int found, fdepth, stopped, nw, deepest;
  unsigned long long pos, steps, chance, failed;
  char buf[8192];
  if (!fgets(buf, sizeof buf, f) || sscanf(buf, "%d %d %d %llu %llu %llu %d %d %llu", &found, &fdepth, &stopped, &pos, &steps, &chance, &deepest, &nw, &failed) != 9)
    return false;
  char *into[3] = {C->stop, C->error, C->fail_text};
  size_t cap[3] = {sizeof C->stop, sizeof C->error, sizeof C->fail_text};
  for (int k = 0; k < 3; k++) {
    if (!fgets(buf, sizeof buf, f)) return false;
    buf[strcspn(buf, "\n")] = 0;
    snprintf(into[k], cap[k], "%.250s", buf);
  }
  C->failed = failed;
  C->found = found, C->found_depth = fdepth, C->stopped = stopped, C->positions = pos, C->steps = steps, C->chance = chance, C->deepest = deepest;
  for (int i = 0; i < nw && fgets(buf, sizeof buf, f); i++) {
    buf[strcspn(buf, "\n")] = 0;
    add_line(C, "", buf);
  }
  return true;
}

/* The search over JOBS worker processes (proc_fork_worker: they die with
 * this process, whatever kills it), each reporting on its own pipe; a worker
 * that ends without a whole answer makes the verdict a budget stop that says
 * how it ended. */
static void run_jobs(ctx *base, const mt_game *start, reach_result *res) {
  int jobs = base->jobs;
  pid_t pid[64];
  FILE *in[64];
  for (int w = 0; w < jobs; w++) {
    int fd[2];
    in[w] = NULL;
    pid[w] = -1;
    if (pipe(fd) < 0) continue;
    pid[w] = proc_fork_worker();
    if (pid[w] == 0) {
      close(fd[0]);
      for (int k = 0; k < w; k++)
        if (in[k]) close(fileno(in[k])); /* the others' pipes end when they do */
      ctx C = *base;
      C.worker = w;
      search(&C, start);
      if (!send_result(fd[1], &C)) _exit(74);
      close(fd[1]);
      _exit(0);
    }
    close(fd[1]);
    in[w] = pid[w] > 0 ? fdopen(fd[0], "r") : NULL;
    if (!in[w]) close(fd[0]);
  }
  for (int w = 0; w < jobs; w++) {
    ctx C = *base;
    C.witness = NULL, C.nwitness = 0, C.tt = NULL, C.line = NULL, C.capline = 0, C.pool = NULL, C.npool = 0;
    bool got = in[w] && read_result(in[w], &C);
    if (in[w]) fclose(in[w]);
    int st = 0;
    bool reaped = pid[w] > 0 && waitpid(pid[w], &st, 0) == pid[w];
    if (got) result_of(&C, res);
    else if (res->verdict != REACH_FOUND) {
      res->verdict = REACH_BUDGET;
      if (pid[w] < 0) snprintf(res->stop, sizeof res->stop, "worker %d could not be started: %s", w + 1, strerror(errno));
      else if (reaped && WIFSIGNALED(st)) snprintf(res->stop, sizeof res->stop, "worker %d was killed by signal %d before it answered", w + 1, WTERMSIG(st));
      else if (reaped && WIFEXITED(st) && WEXITSTATUS(st) != 0)
        snprintf(res->stop, sizeof res->stop, "worker %d could not send its answer (exit %d)", w + 1, WEXITSTATUS(st));
      else snprintf(res->stop, sizeof res->stop, "worker %d stopped without an answer", w + 1);
    }
    for (int i = 0; i < C.nwitness; i++) mt_free(C.witness[i]);
    mt_free(C.witness);
  }
}

int reach_run(const mt_game *start, const reach_query *q, const char *const *start_lines, int nstart, reach_result *res, strbuf *err) {
  memset(res, 0, sizeof *res);
  res->verdict = REACH_EXHAUSTED;
  mt_game *g0 = mt_clone(start);
  game_scratch scratch = game_scratch_begin(g0->r);
  int fn = compile_query(g0, q->expr, err);
  if (fn < 0) {
    game_scratch_end(g0->r, &scratch);
    mt_game_free(g0);
    res->verdict = REACH_ERROR;
    return -1;
  }
  bool was_on = mt_chance_on(g0); /* the console's chance as choice is kept as it is (cards it decided stay) */
  if (!was_on) mt_chance_mode(g0, 1, !q->keep_order);
  ctx C = {.q = q, .fn = fn, .start = start_lines, .nstart = nstart, .jobs = q->jobs > 1 ? q->jobs : 1, .was_on = was_on};
  if (C.jobs > 64) C.jobs = 64;
  C.maxpos = q->max_positions ? q->max_positions : DEFAULT_POSITIONS;
  C.t0 = now();
  C.deadline = C.t0 + (q->max_seconds > 0 ? q->max_seconds : DEFAULT_SECONDS);
  C.phase0 = -1;
  if (C.jobs > 1) {
    run_jobs(&C, g0, res);
  } else {
    search(&C, g0);
    result_of(&C, res);
  }
  res->seconds = now() - C.t0;
  ctx_free(&C);
  game_scratch_end(g0->r, &scratch);
  mt_game_free(g0);
  return 0;
}

void reach_result_free(reach_result *res) {
  for (int i = 0; i < res->nlines; i++) mt_free(res->lines[i]);
  mt_free(res->lines);
  memset(res, 0, sizeof *res);
}

/* ---- the query in words, and the answer ------------------------------------------------- */

static int parse_count(const char *w, double lo, double hi, double *out) {
  char *end;
  errno = 0;
  double x = strtod(w, &end);
  if (!*w || *end || errno || x < lo || x > hi) return -1;
  *out = x;
  return 0;
}

static int parse_option(const mt_rules *r, char **argv, int argc, int *i, reach_query *q, char *err, size_t n) {
  const char *o = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
  double x;
  if (!strcmp(o, "--json")) return q->json = true, 0;
  if (!strcmp(o, "--keep-order")) return q->keep_order = true, 0;
  if (!strcmp(o, "--order")) {
    if (!v || (strcasecmp(v, "heuristic") && strcasecmp(v, "list"))) return snprintf(err, n, "--order is heuristic or list"), -1;
    q->list_order = !strcasecmp(v, "list");
    ++*i;
    return 0;
  }
  static const char *const valued[] = {"--for", "--others", "--ints", "--max-positions", "--max-seconds", "--jobs"};
  bool known = false;
  for (size_t k = 0; k < sizeof valued / sizeof *valued; k++) known |= !strcmp(o, valued[k]);
  if (!known) return snprintf(err, n, "unknown option '%s' (--for, --others, --ints, --max-positions, --max-seconds, --jobs, --keep-order, --order, --json)", o), -1;
  if (!v) return snprintf(err, n, "%s needs a value", o), -1;
  ++*i;
  if (!strcmp(o, "--for")) {
    char buf[512];
    snprintf(buf, sizeof buf, "%s", v);
    for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
      int f = board_faction_find(r->def, t);
      if (f < 0 || f >= 64) {
        const char *c[64];
        int nf = r->def->nfactions < 64 ? r->def->nfactions : 64;
        for (int k = 0; k < nf; k++) c[k] = r->def->factions[k].id;
        const char *s = diag_suggest(t, c, (size_t)nf);
        return snprintf(err, n, "unknown faction '%s' in --for%s%s%s", t, s ? " (did you mean '" : "", s ? s : "", s ? "'?)" : ""), -1;
      }
      q->deciders |= 1ull << f;
    }
    return 0;
  }
  if (!strcmp(o, "--others")) {
    q->others = bot_kind_parse(v);
    if (q->others != BOT_PASSIVE && q->others != BOT_RANDOM && q->others != BOT_HEURISTIC)
      return snprintf(err, n, "--others is passive, random or heuristic"), -1;
    return 0;
  }
  if (!strcmp(o, "--ints")) {
    if (strcasecmp(v, "all") && strcasecmp(v, "ends")) return snprintf(err, n, "--ints is all or ends"), -1;
    q->ends = !strcasecmp(v, "ends");
    return 0;
  }
  if (!strcmp(o, "--max-positions")) {
    if (parse_count(v, 1, 1e12, &x)) return snprintf(err, n, "--max-positions is a number from 1 to 10^12"), -1;
    q->max_positions = (uint64_t)x;
    return 0;
  }
  if (!strcmp(o, "--max-seconds")) {
    if (parse_count(v, 0.001, 1e7, &x)) return snprintf(err, n, "--max-seconds is a number of seconds above 0"), -1;
    q->max_seconds = x;
    return 0;
  }
  if (!strcmp(o, "--jobs")) {
    if (parse_count(v, 1, 64, &x) || x != (int)x) return snprintf(err, n, "--jobs is a whole number from 1 to 64"), -1;
    q->jobs = (int)x;
    return 0;
  }
  return -1;
}

/* A bound at the end of the words W[0..*N): removed, and set in Q. */
static int parse_bound(char **w, int *n, reach_query *q, char *err, size_t errlen) {
  double x;
  if (*n >= 3 && !strcasecmp(w[*n - 3], "by") && !strcasecmp(w[*n - 2], "turn")) {
    if (parse_count(w[*n - 1], 1, 1000, &x) || x != (int)x) return snprintf(err, errlen, "by turn T: T is a turn from 1 to 1000"), -1;
    q->bound = REACH_BY_TURN, q->limit = (int64_t)x, *n -= 3;
  } else if (*n >= 3 && !strcasecmp(w[*n - 3], "within") && !strncasecmp(w[*n - 1], "decision", 8)) {
    if (parse_count(w[*n - 2], 1, 100000, &x) || x != (int)x)
      return snprintf(err, errlen, "within N decisions: N is a number from 1 to 100000"), -1;
    q->bound = REACH_WITHIN, q->limit = (int64_t)x, *n -= 3;
  } else if (*n >= 2 && !strcasecmp(w[*n - 2], "this") && !strcasecmp(w[*n - 1], "phase")) {
    q->bound = REACH_THIS_PHASE, *n -= 2;
  }
  return 0;
}

int reach_parse(const mt_rules *r, int argc, char **argv, reach_query *q, char *err, size_t errlen) {
  memset(q, 0, sizeof *q);
  q->others = BOT_PASSIVE;
  q->jobs = 1;
  if (argc < 1 || (strcasecmp(argv[0], "can") && strcasecmp(argv[0], "always")))
    return snprintf(err, errlen, "usage: verify can|always EXPR [by turn T | within N decisions | this phase] [options]"), -1;
  q->mode = strcasecmp(argv[0], "can") ? REACH_ALWAYS : REACH_CAN;
  char **w = mt_calloc((size_t)argc + 1, sizeof *w);
  int n = 0, rc = 0;
  for (int i = 1; i < argc && !rc; i++) {
    if (argv[i][0] == '-' && argv[i][1] == '-') rc = parse_option(r, argv, argc, &i, q, err, errlen);
    else w[n++] = argv[i];
  }
  if (!rc) rc = parse_bound(w, &n, q, err, errlen);
  size_t k = 0;
  for (int i = 0; i < n && !rc; i++) {
    int m = snprintf(q->expr + k, sizeof q->expr - k, "%s%s", i ? " " : "", w[i]);
    if (m < 0 || (size_t)m >= sizeof q->expr - k) rc = -1, snprintf(err, errlen, "the query is longer than %zu characters", sizeof q->expr - 1);
    else k += (size_t)m;
  }
  if (!rc && !n) rc = -1, snprintf(err, errlen, "verify %s needs a condition: a rules-language boolean, e.g. verify %s winner != none by turn 2", argv[0], argv[0]);
  mt_free(w);
  return rc;
}

static void bound_text(const reach_query *q, strbuf *out) {
  switch (q->bound) {
  case REACH_BY_TURN: sb_printf(out, "by the end of turn %lld", (long long)q->limit); break;
  case REACH_WITHIN: sb_printf(out, "within %lld decisions", (long long)q->limit); break;
  case REACH_THIS_PHASE: sb_puts(out, "in this phase"); break;
  default: sb_puts(out, "with no bound but the budget"); break;
  }
}

static int outcomes_of(const reach_result *res) {
  int n = 0;
  for (int i = 0; i < res->nlines; i++) {
    const char *l = res->lines[i];
    if (strncmp(l, "chance ", 7) || !strncmp(l, "chance on", 9)) continue;
    for (const char *c = l + 6; *c; c++) n += *c == ' ' && c[1] && c[1] != ' ';
  }
  return n;
}

static const char *answer_word(const reach_query *q, const reach_result *res) {
  if (res->verdict == REACH_FOUND) return q->mode == REACH_CAN ? "yes" : "no";
  if (res->verdict == REACH_EXHAUSTED) return q->mode == REACH_CAN ? "no" : "yes";
  return "unknown";
}

/* --ints ends explores fewer answers: a "no" or a "yes, always" is then not a proof. */
#define ENDS_NOTE(q) ((q)->ends ? " with integer answers at the ends of their ranges only: not a proof over every answer" : "")

void reach_format(const reach_query *q, const reach_result *res, bool json, strbuf *out) {
  double rate = res->seconds > 0 ? (double)res->positions / res->seconds : 0;
  strbuf b = {0};
  bound_text(q, &b);
  if (json) {
    sb_printf(out, "{\"query\":\"%s\",\"expr\":", q->mode == REACH_CAN ? "can" : "always");
    sb_json_str(out, q->expr);
    sb_puts(out, ",\"bound\":");
    sb_json_str(out, b.s);
    static const char *const verdicts[] = {"found", "exhausted", "budget", "error"};
    sb_printf(out, ",\"answer\":\"%s\",\"verdict\":\"%s\",\"positions\":%llu,\"steps\":%llu,\"chance_events\":%llu,", answer_word(q, res),
              verdicts[res->verdict], (unsigned long long)res->positions, (unsigned long long)res->steps, (unsigned long long)res->chance);
    sb_printf(out, "\"ints\":\"%s\",\"proof\":%s,", q->ends ? "ends" : "all",
              res->verdict == REACH_FOUND || (res->verdict == REACH_EXHAUSTED && !q->ends) ? "true" : "false");
    sb_printf(out, "\"seconds\":%.3f,\"positions_per_second\":%.0f,\"decisions\":%d,\"outcomes\":%d,\"stop\":", res->seconds, rate,
              res->depth, outcomes_of(res));
    sb_json_str(out, res->stop);
    sb_printf(out, ",\"rule_failures\":%llu,\"first_failure\":", (unsigned long long)res->failed);
    sb_json_str(out, res->fail_text);
    sb_puts(out, ",\"witness\":[");
    for (int i = 0; i < res->nlines; i++) {
      if (i) sb_puts(out, ",");
      sb_json_str(out, res->lines[i]);
    }
    sb_puts(out, "]}");
    sb_free(&b);
    return;
  }
  const char *ans = answer_word(q, res);
  if (res->verdict == REACH_FOUND && q->mode == REACH_CAN)
    sb_printf(out, "yes: a line of %d decisions and %d random outcomes reaches it %s. Replay it in the console:\n", res->depth,
              outcomes_of(res), b.s);
  else if (res->verdict == REACH_FOUND)
    sb_printf(out, "no: a counterexample %s, after %d decisions and %d random outcomes. Replay it in the console:\n", b.s, res->depth,
              outcomes_of(res));
  else if (res->verdict == REACH_EXHAUSTED && q->mode == REACH_CAN)
    sb_printf(out, "no: no line reaches it %s (every line explored%s)\n", b.s, ENDS_NOTE(q));
  else if (res->verdict == REACH_EXHAUSTED)
    sb_printf(out, "yes: it holds at every position reachable %s (every line explored%s)\n", b.s, ENDS_NOTE(q));
  else if (res->verdict == REACH_ERROR)
    sb_printf(out, "error: %s\n", res->stop);
  else
    sb_printf(out, "%s: %s before every line %s was explored, and none %s (not a proof)\n", ans, res->stop[0] ? res->stop : "the search stopped",
              b.s, q->mode == REACH_CAN ? "reached it" : "broke it");
  for (int i = 0; i < res->nlines; i++) sb_printf(out, "  %s\n", res->lines[i]);
  if (res->failed)
    sb_printf(out, "%llu line(s) ended in a runtime error of the rules, not followed further; the first: %s\n",
              (unsigned long long)res->failed, res->fail_text);
  sb_printf(out, "explored %llu positions (%llu steps, %llu random events branched on, lines up to %d steps) in %.2f s: %.0f positions/s",
            (unsigned long long)res->positions, (unsigned long long)res->steps, (unsigned long long)res->chance, res->deepest, res->seconds, rate);
  sb_free(&b);
}
