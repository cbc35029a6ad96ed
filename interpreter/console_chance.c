/* console_chance.c -- the console's `chance`: chance as choice (mentat.h),
 * for the rules lawyer who wants to say which card comes up, and for the
 * witness scripts of `verify`, which replay a line of play whose draws they
 * name.
 *
 * `chance on|off` switches it for the current game; `chance W...` queues
 * outcome words for the next command that runs the game.  repl.c runs every
 * command that changes the game through repl_chance_retry: whenever the rules
 * draw by chance and the plan has no outcome left, the command is run again
 * from the state before it, with the next queued word added to the plan.  So
 * a command is always one whole step of the game, never half of one, and a
 * command that cannot finish changes nothing.  Questions (legal, why, eval,
 * ...) never decide chance: one that meets an undecided draw says so.
 */
#define _POSIX_C_SOURCE 200809L
#include "console.h"

#define SHOWN_OUTCOMES 40 /* outcomes listed in a message, then "and N more" */

/* ---- the pending question ---------------------------------------------------- */

typedef struct question {
  int n;          /* possible outcomes */
  int64_t *out;   /* all of them (owned) */
  bool bad;       /* a planned outcome was not one of them */
  char what[256]; /* the event, in words */
} question;

/* The random event G stopped at, if any: true with Q filled (free Q->out). */
static bool question_of(mt_game *g, question *q) {
  int64_t few[64];
  int bad = 0;
  q->out = NULL;
  if (!mt_chance_on(g) || mt_chance_need(g, few, 64, &q->n, q->what, sizeof q->what, &bad) == MT_CHANCE_NONE) return false;
  q->bad = bad != 0;
  q->out = mt_calloc((size_t)q->n + 1, sizeof *q->out);
  if (q->n <= 64) memcpy(q->out, few, (size_t)q->n * sizeof *few);
  else mt_chance_need(g, q->out, q->n, &q->n, NULL, 0, NULL);
  return true;
}

/* The possible outcomes as words: at most SHOWN_OUTCOMES, then how many more. */
static void outcomes_text(const mt_game *g, const question *q, strbuf *b) {
  for (int i = 0; i < q->n && i < SHOWN_OUTCOMES; i++) {
    char w[96];
    mt_chance_format(g, q->out[i], w, sizeof w);
    sb_printf(b, "%s%s", i ? " " : "", w);
  }
  if (q->n > SHOWN_OUTCOMES) sb_printf(b, " and %d more", q->n - SHOWN_OUTCOMES);
}

/* Q as JSON members for --json: ,"chance_need":{"what":...,"outcomes":[every one],"given":GIVEN}. */
static void question_json(const mt_game *g, const question *q, int given, strbuf *j) {
  sb_puts(j, ",\"chance_need\":{\"what\":");
  sb_json_str(j, q->what);
  sb_puts(j, ",\"outcomes\":[");
  for (int i = 0; i < q->n; i++) {
    char w[96];
    mt_chance_format(g, q->out[i], w, sizeof w);
    sb_puts(j, i ? "," : "");
    sb_json_str(j, w);
  }
  sb_printf(j, "],\"given\":%d}", given);
}

/* The piles with undecided cards: "treachery_deck 33 of 33, ..."; how many. */
static int undecided_text(const mt_game *g, strbuf *b, bool json) {
  int k = 0;
  for (int s = 0; s < g->L->npile_slots; s++) {
    int u = mt_chance_undecided(g, s);
    if (!u) continue;
    strbuf name = {0};
    vm_format_value(&g->v, TY_PILE, s, &name);
    if (json) {
      sb_puts(b, k ? "," : "");
      sb_json_str(b, name.s ? name.s : "");
      sb_printf(b, ":%d", u);
    } else {
      sb_printf(b, "%s%s %d of %d", k ? ", " : "", name.s ? name.s : "", u, board_pile_count(g->L, g->v.st, s));
    }
    sb_free(&name);
    k++;
  }
  return k;
}

/* ---- the command ------------------------------------------------------------- */

void repl_chance_forget_queue(repl *R) {
  for (int i = 0; i < R->nchance_q; i++) mt_free(R->chance_q[i]);
  R->nchance_q = 0;
}

/* After command CMD: the outcomes queued were for the game it replaced (new,
 * load, undo, redo, switch), so they are dropped. */
void repl_chance_replaced(repl *R, const char *cmd) {
  static const char *const replacing[] = {"new", "load", "undo", "redo", "switch"};
  for (size_t i = 0; i < sizeof replacing / sizeof *replacing; i++)
    if (!strcmp(cmd, replacing[i])) repl_chance_forget_queue(R);
}

/* `chance`: on or off, the queued outcomes, the undecided piles (JSON: "chance",
 * "queued", "undecided"). */
static int chance_status(repl *R) {
  bool on = mt_chance_on(R->g);
  say(R, "chance as choice: %s", on ? "on (the rules' random events are outcomes you choose)" : "off (the game's generator draws)");
  say(R, "\nqueued outcomes:");
  for (int i = 0; i < R->nchance_q; i++) say(R, " %s", R->chance_q[i]);
  if (!R->nchance_q) say(R, " none");
  strbuf b = {0};
  if (undecided_text(R->g, &b, false)) say(R, "\nundecided cards (bottom of the pile): %s", b.s);
  else say(R, "\nno pile has undecided cards");
  sb_free(&b);
  sb_printf(&R->jextra, ",\"chance\":%s,\"queued\":[", on ? "true" : "false");
  for (int i = 0; i < R->nchance_q; i++) {
    sb_puts(&R->jextra, i ? "," : "");
    sb_json_str(&R->jextra, R->chance_q[i]);
  }
  sb_puts(&R->jextra, "],\"undecided\":{");
  undecided_text(R->g, &R->jextra, true);
  sb_puts(&R->jextra, "}");
  return 0;
}

/* `chance on [--keep-order]`: undoable, like any change of the game. */
static int chance_on(repl *R, bool forget) {
  mt_game *before = mt_clone(R->g);
  mt_chance_mode(R->g, 1, forget);
  repl_remember(R, before);
  say(R, "chance as choice: on; ");
  strbuf b = {0};
  if (undecided_text(R->g, &b, false)) say(R, "undecided cards (bottom of the pile): %s", b.s);
  else say(R, "no pile has undecided cards yet (a shuffle leaves a pile undecided)");
  sb_free(&b);
  return 0;
}

/* `chance off`: the undecided parts are shuffled by the game's generator, as
 * the shuffles that left them undecided would have done. */
static int chance_off(repl *R) {
  repl_chance_forget_queue(R);
  if (!mt_chance_on(R->g)) {
    say(R, "chance as choice is already off");
    return 0;
  }
  mt_game *before = mt_clone(R->g);
  strbuf b = {0};
  undecided_text(R->g, &b, false);
  for (int s = 0; s < R->g->L->npile_slots; s++) board_pile_settle(R->g->L, R->g->v.st, s);
  mt_chance_mode(R->g, 0, 0);
  repl_remember(R, before);
  say(R, "chance as choice: off");
  if (b.s) say(R, "; the generator drew the order of the undecided cards: %s", b.s);
  sb_free(&b);
  return 0;
}

/* `chance W...`: the outcomes of the next command that runs the game, in the
 * order its random events ask for them (replacing any queued before). */
static int chance_queue(repl *R, int n, char **words) {
  if (!mt_chance_on(R->g)) return fail(R, "chance as choice is off in this game: turn it on with 'chance on' first");
  if (n > VM_CHANCE_PLAN) return fail(R, "at most %d outcomes for one command (%d given)", VM_CHANCE_PLAN, n);
  repl_chance_forget_queue(R);
  for (int i = 0; i < n; i++) R->chance_q[i] = mt_strdup(words[i]);
  R->nchance_q = n;
  say(R, "%d outcome%s queued for the next command that runs the game:", n, n == 1 ? "" : "s");
  for (int i = 0; i < n; i++) say(R, " %s", words[i]);
  return 0;
}

/* chance [on [--keep-order] | off | OUTCOME...] */
int repl_cmd_chance(repl *R, int argc, char **argv) {
  if (argc == 1) return chance_status(R);
  bool on = !strcmp(argv[1], "on"), off = !strcmp(argv[1], "off");
  if (on && (argc == 2 || (argc == 3 && !strcmp(argv[2], "--keep-order")))) return chance_on(R, argc == 2);
  if (off && argc == 2) return chance_off(R);
  if (on || off || argv[1][0] == '-') return fail(R, "usage: chance [on [--keep-order] | off | OUTCOME...]");
  return chance_queue(R, argc - 1, argv + 1);
}

/* ---- running a command with chance as choice --------------------------------- */

/* The console's text at the start of a command, to cut a failed attempt's off. */
typedef struct text_mark {
  size_t out, log, fired, jextra;
  bool jtext;
  int nrefused, ok;
} text_mark;

static void cut(strbuf *b, size_t n) {
  if (b->s && b->n > n) b->s[b->n = n] = 0;
}

static text_mark mark_text(const repl *R) {
  text_mark m = {R->out.n, R->log.n, R->fired.n, R->jextra.n, R->jtext, R->nrefused, R->ok};
  return m;
}

/* Back to the moment the command started: a fresh copy of BEFORE, the bots'
 * generator, and the text, narration and fired rules as they were. */
static void restore(repl *R, const mt_game *before, uint64_t bot_rng, const text_mark *m) {
  mt_game_free(R->g);
  R->g = mt_clone(before);
  repl_attach(R, R->g);
  R->bot_rng = bot_rng;
  cut(&R->out, m->out);
  cut(&R->log, m->log);
  cut(&R->fired, m->fired);
  cut(&R->jextra, m->jextra);
  R->jtext = m->jtext;
  R->nrefused = m->nrefused;
  R->ok = m->ok;
}

/* What to say when the queued outcomes run out at question Q, the first NP
 * of them taken: what the rules draw, the possible outcomes, how to give one. */
static void ask_text(repl *R, const question *q, int np, strbuf *msg, strbuf *json) {
  question_json(R->g, q, np, json);
  sb_printf(msg, "the rules draw by chance here: %s", q->what);
  if (np) sb_printf(msg, " (after the %d outcome%s given)", np, np == 1 ? "" : "s");
  if (np == VM_CHANCE_PLAN) {
    sb_printf(msg, "\n  one command takes at most %d outcomes: go in smaller steps ('run step')", VM_CHANCE_PLAN);
    return;
  }
  sb_printf(msg, "\n  possible outcomes (%d): ", q->n);
  outcomes_text(R->g, q, msg);
  sb_puts(msg, "\n  give one with 'chance");
  for (int i = 0; i < np; i++) sb_printf(msg, " %s", R->chance_q[i]);
  sb_printf(msg, " OUTCOME', then '%s' again", R->cmd_line ? R->cmd_line : "the command");
}

/* The next queued word as the outcome of question Q, added to PLAN: 0; or -1
 * with MSG saying why the command cannot go on. */
static int take_word(repl *R, const question *q, int64_t *plan, int *np, strbuf *msg, strbuf *json) {
  if (q->bad) {
    sb_printf(msg, "the outcome given for %s was refused when the command ran again: it did not run the same way twice", q->what);
    return -1;
  }
  if (*np >= R->nchance_q || *np >= VM_CHANCE_PLAN) {
    ask_text(R, q, *np, msg, json);
    return -1;
  }
  char err[1024];
  const char *w = R->chance_q[*np];
  if (mt_chance_parse(R->g, w, &plan[*np], err, sizeof err) < 0) {
    char *list = strstr(err, "; it is one of:");
    if (list) *list = 0; /* the list is written here, shortened */
    sb_printf(msg, "chance outcome %d: %s, for %s\n  possible outcomes (%d): ", *np + 1, err, q->what, q->n);
    outcomes_text(R->g, q, msg);
    return -1;
  }
  ++*np;
  return 0;
}

/* Runs RUN (a command that changes the game; BEFORE is the game before it,
 * BOT_RNG the bots' generator then).  With chance as choice on, each time the
 * command stops at a random event, the next queued outcome is added to the
 * plan and the command runs again from BEFORE.  It fails, changing nothing
 * (repl.c puts BEFORE back), when the queued outcomes run out or one is not a
 * possible outcome, and when some were never asked for.  The queue is
 * emptied after every command that runs the game. */
int repl_chance_retry(repl *R, const mt_game *before, uint64_t bot_rng, repl_step_fn run, void *ctx) {
  if (!mt_chance_on(R->g)) {
    if (!R->nchance_q) return run(R, ctx);
    repl_chance_forget_queue(R);
    return fail(R, "chance as choice is off in this game: the outcomes queued with 'chance' were dropped (turn it on with 'chance on')");
  }
  text_mark m = mark_text(R);
  int64_t plan[VM_CHANCE_PLAN];
  int np = 0, rc;
  strbuf msg = {0}, json = {0};
  for (;;) {
    mt_chance_plan(R->g, plan, np);
    rc = run(R, ctx);
    question q;
    if (!question_of(R->g, &q)) break;
    int took = take_word(R, &q, plan, &np, &msg, &json);
    mt_free(q.out);
    restore(R, before, bot_rng, &m);
    if (took < 0) {
      rc = fail(R, "%s", msg.s);
      if (json.s) sb_puts(&R->jextra, json.s);
      break;
    }
  }
  if (rc == 0 && np < R->nchance_q) {
    int k = R->nchance_q - np;
    sb_printf(&msg, "%d outcome%s given %s not asked for:", k, k == 1 ? "" : "s", k == 1 ? "was" : "were");
    for (int i = np; i < R->nchance_q; i++) sb_printf(&msg, " %s", R->chance_q[i]);
    sb_printf(&msg, " (the command drew %d time%s by chance); nothing was done", np, np == 1 ? "" : "s");
    restore(R, before, bot_rng, &m);
    rc = fail(R, "%s", msg.s);
  }
  sb_free(&msg);
  sb_free(&json);
  mt_chance_plan(R->g, NULL, 0);
  repl_chance_forget_queue(R);
  return rc;
}

/* Whether G stopped at a random event that has no outcome yet. */
bool repl_chance_pending(mt_game *g) {
  int n;
  return mt_chance_on(g) && mt_chance_need(g, NULL, 0, &n, NULL, 0, NULL) != MT_CHANCE_NONE;
}

/* A question (legal, why, eval, ...) met a random event still undecided in G:
 * it fails, saying what and how to decide it (-1); else 0.  The question is
 * cleared.  Questions never decide chance: only a command that runs the game does. */
int repl_chance_blocked(repl *R, mt_game *g) {
  question q;
  if (!question_of(g, &q)) return 0;
  strbuf b = {0};
  sb_printf(&b, "this depends on chance, not decided yet: %s\n  possible outcomes (%d): ", q.what, q.n);
  outcomes_text(g, &q, &b);
  sb_puts(&b, "\n  a question does not decide it: give the outcome with 'chance OUTCOME', then a command that runs the game "
              "(do, run, phase, offer)");
  cut(&R->out, 0);
  cut(&R->jextra, 0);
  R->jtext = false;
  fail(R, "%s", b.s);
  question_json(g, &q, 0, &R->jextra);
  mt_free(q.out);
  mt_chance_plan(g, NULL, 0);
  sb_free(&b);
  return -1;
}

/* After a question: RC, or -1 when it met an undecided random event. */
int repl_chance_query_done(repl *R, int rc) {
  if (R->g && repl_chance_blocked(R, R->g) < 0) return -1;
  return rc;
}
