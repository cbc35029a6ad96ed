/* console_play.c -- console commands that drive the game and explore
 * alternatives: phase, run, legal, do, offer, undo, redo, fork, switch, and
 * the bots that answer decisions on the way. */
#define _POSIX_C_SOURCE 200809L
#include "console.h"

/* ---- the game's execution ------------------------------------------------ */

static bool bot_choice(repl *R, mt_choice *out) { return bot_choose(R->g, R->bots, &R->bot_rng, out); }

/* Continues the game: bots answer every decision until STOP says so.
 * MODE 0: to the next decision (or pause/end); 1: until the VM pauses or ends. */
/* The progress line of a game the bots play (at a terminal, after half a second: mt_progress):
 * decisions, their rate, the turn, and, when the run goes to the game's end, the time left at
 * the pace of the turns played so far (the data's `turn` and the rules' `game_length`). */
static void play_progress(repl *R, long decisions, double t0, int32_t turn0, bool to_end) {
  double t = mt_seconds() - t0;
  if (!mt_progress_to || t < 0.5) return;
  int32_t turn = repl_get_var(R, "turn", 0), last = -1;
  const program *p = &R->r->prog;
  for (int i = 0; i < p->nvars; i++)
    if (!strcmp(p->vars[i].name, "game_length")) last = (int32_t)board_var_get(LAY(R), ST(R), p->vars[i].board_var, 0, 0);
  char left[96] = "";
  if (to_end && last > 0 && turn > turn0 && turn <= last) /* whole turns played: their pace for the turns still to come */
    snprintf(left, sizeof left, ", about %.0f s left", t / (turn - turn0) * (last - turn + 1));
  mt_progress("run: turn %d%s%.0d, %ld decisions, %.1f decisions/s%s (Ctrl-C stops)", turn, last > 0 ? " of " : "", last > 0 ? last : 0,
              decisions, (double)decisions / t, left);
}

int repl_advance(repl *R, int mode) {
  int st = mt_status(R->g);
  int guard = 0;
  double t0 = mt_seconds();
  int32_t turn0 = repl_get_var(R, "turn", 0);
  bool to_end = R->g->v.vs->stop_turn < 0 && R->g->v.vs->stop_phase_end == -1;
  if (st == MT_PAUSED || st == VM_IDLE) st = vm_run(&R->g->v);
  while (st == MT_WAITING && mode == 1 && guard++ < 1000000) {
    if (mt_stop_requested) return fail(R, "interrupted (Ctrl-C): the game is put back as it was before this command");
    play_progress(R, guard - 1, t0, turn0, to_end);
    mt_choice c;
    bool chose = bot_choice(R, &c);
    if (repl_chance_pending(R->g)) return fail(R, "a random event needs an outcome"); /* the bot's listing met it: run again */
    if (!chose) {
      if (mt_decision_error(R->g)) return fail(R, "%s", mt_decision_error(R->g));
      return fail(R, "%s has no legal answer to '%s' (rule %s)", mt_pending(R->g)->faction, mt_pending(R->g)->prompt,
                  mt_pending(R->g)->rule);
    }
    char text[512];
    mt_choice_format(R->g, &c, text, sizeof text);
    const mt_decision *d = mt_pending(R->g);
    sb_printf(&R->log, "  %s%s -> %s\n", d->faction, d->secret ? " (secret)" : "", text);
    mt_explain why;
    st = mt_apply(R->g, &c, &why);
    if (st < 0) return fail(R, "a bot's answer was refused: %s", why.text);
  }
  if (st == MT_FAILED) return fail(R, "%s", mt_error(R->g));
  return 0;
}

/* Whether the deck DK (in pile slot SLOT) is still whole and in printed order: not stacked or
 * dealt from by the user, so `phase` may order it as a game would. */
static bool deck_as_printed(repl *R, const board_deck *dk, int slot) {
  if (slot < 0) return false;
  int at = 0; /* the deck's cards in the game (a traitor card of a faction that does not play is not) */
  for (int k = 0; k < dk->ncards; k++) {
    if (!board_card_in_game(LAY(R), dk->first_card + k)) continue;
    if (board_pile_card(LAY(R), ST(R), slot, at++) != dk->first_card + k) return false;
  }
  return at == board_pile_count(LAY(R), ST(R), slot);
}

/* A silent copy of fresh game G played by the rules from the start, the passive policy
 * answering its decisions, until phase rule PH is about to begin (NULL if it never does within
 * the step bound, or the copy fails or needs an outcome chance as choice would ask for). */
static mt_game *played_to_phase(mt_game *g, int ph) {
  mt_game *c = mt_clone(g);
  mt_game_set_log(c, NULL, NULL);
  c->v.fired = NULL;
  vm_reset_stops(c->v.vs);
  c->v.vs->stop_phase_begin = ph + 1;
  uint64_t rng = 0x70686173ull;
  vm_start(&c->v);
  for (int step = 0; step < 20000; step++) {
    if (c->v.vs->stop_phase_begin == 0 && mt_status(c) == MT_PAUSED) return c; /* there */
    int st = mt_status(c);
    mt_choice x;
    if (st == MT_PAUSED) vm_run(&c->v);
    else if (st != MT_WAITING || !bot_choose(c, BOT_PASSIVE, &rng, &x) || mt_apply(c, &x, NULL) < 0) break;
  }
  mt_game_free(c);
  return NULL;
}

/* From a game not yet started, `phase PH` gives the decks and the generator the position a game
 * from this seed has when PH first begins: a copy plays the game by its own rules (setup's
 * shuffles, its draws between them, the phases before PH; the passive policy deciding), and each
 * deck still as printed here takes the copy's order, the cards the copy dealt out of it (hands,
 * traitors, the discard) going to its bottom in the order they left; the generator goes on from
 * where the copy's stands.  Nothing else of the copy is kept.  False if the copy never got there. */
static bool decks_as_played(repl *R, int ph) {
  mt_game *c = played_to_phase(R->g, ph);
  if (!c) return false;
  const board_layout *L = LAY(R);
  for (int d = 0; d < DEF(R)->ndecks; d++) {
    const board_deck *dk = &DEF(R)->decks[d];
    int slot = board_pile_slot(L, dk->pile, -1);
    if (!deck_as_printed(R, dk, slot)) continue; /* a deck the user stacked or dealt from stays as made */
    for (int k = 0; k < dk->ncards; k++) { /* first the cards the copy dealt: they end at the bottom */
      int card = dk->first_card + k;
      if (board_card_in_game(L, card) && board_card_pile(c->L, c->v.st, card, NULL) != slot) board_card_move(L, ST(R), card, slot, -1);
    }
    for (int k = 0, n = board_pile_count(c->L, c->v.st, slot); k < n; k++) /* then the copy's deck, bottom to top */
      board_card_move(L, ST(R), board_pile_card(c->L, c->v.st, slot, k), slot, -1);
  }
  memcpy(ST(R) + L->off_rng, c->v.st + c->L->off_rng, 4 * sizeof(uint64_t)); /* the generator as the copy left it */
  mt_game_free(c);
  return true;
}

/* Restarts the game's VM positioned at the start of phase rule PH in the
 * current turn: the game rule runs with every other phase skipped. */
int repl_seek_phase(repl *R, int ph) {
  vm_state *vs = R->g->v.vs;
  const program *p = &R->r->prog;
  if (vs->status == VM_IDLE && (R->g->v.chance || !decks_as_played(R, ph))) {
    /* chance as choice, or a game that never reaches PH: every deck as printed is shuffled (or,
     * under chance as choice, left undecided, as a shuffle leaves it) */
    for (int d = 0; d < DEF(R)->ndecks; d++) {
      const board_deck *dk = &DEF(R)->decks[d];
      int slot = board_pile_slot(LAY(R), dk->pile, -1);
      if (!deck_as_printed(R, dk, slot)) continue;
      if (R->g->v.chance) board_pile_forget(LAY(R), ST(R), slot);
      else board_pile_shuffle(LAY(R), ST(R), slot);
    }
  }
  vm_reset_stops(vs);
  vs->seek_phase = ph;
  vs->seek_turn = p->turn_var >= 0 ? board_var_get(LAY(R), ST(R), p->vars[p->turn_var].board_var, 0, 0) : 0;
  if (vs->seek_turn < 1) vs->seek_turn = 1; /* before the first turn: the first turn */
  vs->stop_phase_end = -1;
  int st = vm_start(&R->g->v);
  (void)st;
  if (mt_status(R->g) == MT_FAILED) return fail(R, "%s", mt_error(R->g));
  if (vs->seek_phase >= 0) return fail(R, "the game never reaches phase %s in this turn", p->rules[ph].id);
  return 0;
}

void repl_remember(repl *R, mt_game *before);

static int find_phase(repl *R, const char *word) {
  const program *p = &R->r->prog;
  char low[128];
  const char *w = board_lower(word, low, sizeof low); /* names in any case: `phase Bidding` */
  int k = sema_find_rule(p, w);
  char alt[160];
  snprintf(alt, sizeof alt, "%s_phase", w);
  for (int i = 0; i < p->nrules && k < 0; i++)
    if (p->rules[i].form == RF_PHASE && p->rules[i].name && (!strcmp(p->rules[i].name, w) || !strcmp(p->rules[i].name, alt)))
      k = i;
  if (k < 0 || p->rules[k].form != RF_PHASE) {
    const char *c[64];
    size_t n = 0;
    for (int i = 0; i < p->nrules && n < 64; i++)
      if (p->rules[i].form == RF_PHASE && p->rules[i].name) c[n++] = p->rules[i].name;
    repl_suggest_fail(R, "phase", word, c, n);
    return -1;
  }
  return k;
}

int repl_cmd_phase(repl *R, int argc, char **argv) {
  if (argc != 2) return fail(R, "usage: phase ID (a phase name or rule number)");
  int k = find_phase(R, argv[1]);
  if (k < 0) return -1;
  if (repl_seek_phase(R, k) < 0) return -1;
  say(R, "at the start of %s %s", R->r->prog.rules[k].id, R->r->prog.rules[k].title);
  return 0;
}

void repl_describe_pending(repl *R) {
  const mt_decision *d = mt_pending(R->g);
  if (!d) {
    int st = mt_status(R->g);
    say(R, "%s", st == MT_FINISHED ? "the game is over" : st == MT_PAUSED ? "paused" : "no decision pending");
    return;
  }
  say(R, "%s decides: %s (rule %s)%s", d->faction, d->prompt, d->rule, d->secret ? " [secret]" : "");
}

/* The phase G is in, or about to begin when paused just before one: -1 between phases. */
static int32_t phase_of(const mt_game *g) {
  const vm_state *vs = g->v.vs;
  const program *p = &g->r->prog;
  int32_t ph = vs->phase_rule;
  if (ph < 0 && vs->status == VM_PAUSED && vs->nframes > 0) {
    uint32_t pc = (uint32_t)vs->frames[vs->nframes - 1].pc;
    if (pc < p->ncode && p->code[pc] == OP_PHASE_BEGIN) memcpy(&ph, p->code + pc + 1, 4);
  }
  return ph;
}

/* A silent copy of the game that will stop at the end of this phase (the one under way, or the
 * one about to begin): questions answered further on in the phase (why, legal) play on it. */
mt_game *repl_forward_copy(repl *R, int *phase) {
  mt_game *g = mt_clone(R->g);
  mt_game_set_log(g, NULL, NULL); /* what the copy plays is not narrated: only where it stopped is said */
  g->v.fired = NULL;
  int32_t ph = phase_of(g);
  g->v.vs->stop_phase_end = ph >= 0 ? ph : -2; /* between phases: through the next to begin, never further */
  if (phase) *phase = ph;
  return g;
}

int repl_cmd_run(repl *R, int argc, char **argv) {
  const char *what = argc > 1 ? argv[1] : "step";
  vm_state *vs = R->g->v.vs;
  int st = mt_status(R->g);
  if (st == MT_FINISHED) return fail(R, "the game is over");
  if (st == VM_IDLE && strcmp(what, "game") && strcmp(what, "turn") && strcmp(what, "step") && strcmp(what, "phase"))
    return fail(R, "the game has not started: use 'phase ID' to position it, or 'run step|phase|turn|game'");
  if (!strcmp(what, "step")) {
    if (st == VM_IDLE) { /* a fresh game: run its setup to the first decision */
      if (mt_start(R->g) == MT_FAILED) return fail(R, "%s", mt_error(R->g));
    } else if (st == MT_WAITING) {
      mt_choice c;
      bool chose = bot_choice(R, &c);
      if (repl_chance_pending(R->g)) return fail(R, "a random event needs an outcome"); /* the bot's listing met it: run again */
      if (!chose) return fail(R, "%s", mt_decision_error(R->g) ? mt_decision_error(R->g) : "no legal answer");
      mt_explain why;
      if (mt_apply(R->g, &c, &why) < 0) return fail(R, "%s", why.text);
    } else if (repl_advance(R, 0) < 0) {
      return -1;
    }
  } else if (!strcmp(what, "phase")) {
    vs->stop_phase_end = phase_of(R->g); /* paused just before a phase begins: run that whole phase */
    if (vs->stop_phase_end < 0 || st == VM_IDLE) vs->stop_phase_end = -2; /* between phases, or a fresh game: play the next phase */
    if (st == VM_IDLE) {
      vm_start(&R->g->v); /* runs to the stop or a decision, which the bots then answer */
      if (mt_status(R->g) == MT_WAITING && repl_advance(R, 1) < 0) return -1;
      repl_describe_pending(R);
      return 0;
    }
    if (repl_advance(R, 1) < 0) return -1;
  } else if (!strcmp(what, "turn")) {
    const program *p = &R->r->prog;
    vs->stop_turn = p->turn_var >= 0 ? board_var_get(LAY(R), ST(R), p->vars[p->turn_var].board_var, 0, 0) : -1;
    if (st == VM_IDLE) vm_start(&R->g->v);
    if (repl_advance(R, 1) < 0) return -1;
  } else if (!strcmp(what, "game")) {
    vs->stop_phase_end = -1;
    vs->stop_turn = -1;
    if (st == VM_IDLE) {
      if (mt_start(R->g) == MT_FAILED) return fail(R, "%s", mt_error(R->g));
    }
    if (repl_advance(R, 1) < 0) return -1;
  } else {
    return fail(R, "usage: run [step|phase|turn|game]");
  }
  repl_describe_pending(R);
  return 0;
}

/* The integer parameter of action A whose values `legal` gathers into
 * ranges (the last one), or -1. */
static int ranged_param(const program *p, int a) {
  if (a < 0 || a >= p->nactions) return -1;
  for (int i = p->actions[a].nparams - 1; i >= 1; i--)
    if (p->actions[a].ptype[i] == TY_INT) return i;
  return -1;
}

static bool same_but(const mt_choice *x, const mt_choice *y, int j) {
  if (x->action != y->action || x->nargs != y->nargs) return false;
  for (int i = 0; i < x->nargs; i++)
    if (i != j && x->args[i] != y->args[i]) return false;
  return true;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* The text form of `legal`: answers that differ only in an action's integer
 * parameter are one line, their values written as ranges ("ship f t 5
 * 1..5 f"); a numeric decision is its range.  Returns the lines printed. */
static size_t legal_lines(repl *R, mt_game *g, const mt_choice *buf, size_t n) {
  const program *p = &g->r->prog;
  const mt_decision *d = mt_pending(g);
  if (d->kind == MT_DEC_NUMBER && n > 0) {
    say(R, "\n  %lld..%lld", (long long)buf[0].value, (long long)buf[n - 1].value);
    return 1;
  }
  static bool used[4096];
  static int64_t vals[4096];
  memset(used, 0, sizeof used);
  size_t lines = 0;
  for (size_t i = 0; i < n; i++) {
    if (used[i]) continue;
    used[i] = true;
    int j = ranged_param(p, buf[i].action);
    strbuf b = {0};
    if (j < 0) {
      char text[512];
      mt_choice_format(g, &buf[i], text, sizeof text);
      sb_puts(&b, text);
    } else {
      size_t nv = 0;
      vals[nv++] = buf[i].args[j];
      for (size_t k = i + 1; k < n; k++)
        if (!used[k] && same_but(&buf[i], &buf[k], j)) used[k] = true, vals[nv++] = buf[k].args[j];
      qsort(vals, nv, sizeof *vals, cmp_i64);
      const action_rec *ar = &p->actions[buf[i].action];
      sb_puts(&b, ar->name);
      for (int a = 0; a < ar->nparams; a++) {
        sb_putc(&b, ' ');
        if (a != j) {
          vm_format_value(&g->v, ar->ptype[a], buf[i].args[a], &b);
          continue;
        }
        for (size_t k = 0; k < nv;) { /* runs of consecutive values */
          size_t e = k;
          while (e + 1 < nv && vals[e + 1] == vals[e] + 1) e++;
          if (k) sb_putc(&b, ',');
          if (e > k) sb_printf(&b, "%lld..%lld", (long long)vals[k], (long long)vals[e]);
          else sb_printf(&b, "%lld", (long long)vals[k]);
          k = e + 1;
        }
      }
    }
    if (lines < 200) say(R, "\n  %s", b.s ? b.s : "");
    lines++;
    sb_free(&b);
  }
  if (lines > 200) say(R, "\n  ... (%zu more lines)", lines - 200);
  return lines;
}

/* Whether action A is the action or the kind of action ONLY names (NULL: any). */
static bool action_matches(const program *p, int a, const char *only) {
  if (!only) return true;
  if (a < 0) return false;
  if (!strcmp(p->actions[a].name, only)) return true;
  for (int k = 0; k < p->actions[a].nkinds; k++)
    if (!strcmp(p->actions[a].kinds[k], only)) return true;
  return false;
}

/* Whether G's pending decision may be answered by the action or kind ONLY (NULL: any). */
static bool offers_kind(mt_game *g, const char *only) {
  const vm_state *vs = g->v.vs;
  if (!only) return true;
  if (vs->dec.kind != DEC_ACT) return false;
  const program *p = &g->r->prog;
  for (int i = 0; i < p->nlist[vs->dec.list]; i++)
    if (action_matches(p, p->lists[vs->dec.list][i], only)) return true;
  return false;
}

/* The pending decision of G and its legal answers (those of action or kind ONLY). */
static int legal_of(repl *R, mt_game *g, const char *only, bool json) {
  static mt_choice buf[4096];
  size_t n = mt_legal(g, buf, 4096);
  if (repl_chance_blocked(R, g) < 0) return -1;
  if (mt_decision_error(g)) return fail(R, "%s", mt_decision_error(g));
  const program *p = &g->r->prog;
  size_t shown = n < 4096 ? n : 4096, kept = 0;
  for (size_t i = 0; i < shown; i++)
    if (action_matches(p, buf[i].action, only)) buf[kept++] = buf[i];
  const mt_decision *d = mt_pending(g);
  say(R, "%s decides: %s (rule %s)%s", d->faction, d->prompt, d->rule, d->secret ? " [secret]" : "");
  if (only) say(R, "\n%zu legal answer%s of %s (of %zu)", kept, kept == 1 ? "" : "s", only, n);
  else say(R, "\n%zu legal answer%s%s", n, n == 1 ? "" : "s", n > 4096 ? " (the first 4096 follow)" : "");
  legal_lines(R, g, buf, kept);
  if (json) {
    sb_puts(&R->jextra, ",\"choices\":[");
    for (size_t i = 0; i < kept; i++) {
      char text[512];
      mt_choice_format(g, &buf[i], text, sizeof text);
      sb_printf(&R->jextra, "%s", i ? "," : "");
      sb_json_str(&R->jextra, text);
    }
    sb_printf(&R->jextra, "],\"count\":%zu", only ? kept : n);
  }
  return 0;
}

/* legal [FACTION|--faction F] [ACTION|KIND]: the pending decision and its legal answers.  With
 * no decision pending (positioned at a phase), or one that is another faction's, a copy of the
 * game goes on with the passive policy through this phase and each faction's options are
 * listed when its turn comes (only F's with a faction named); an action or a verb (`ship`)
 * keeps only its answers. */
int repl_cmd_legal(repl *R, int argc, char **argv) {
  const program *p = &R->r->prog;
  int want = -1; /* a faction (the data's index, as the VM holds it) */
  const char *only = NULL;
  for (int i = 1; i < argc; i++) {
    const char *w = argv[i];
    if (!strcmp(w, "--faction")) {
      if (++i >= argc) return fail(R, "usage: legal [FACTION] [ACTION]");
      w = argv[i];
    }
    int f = repl_faction_id(R, w);
    if (f >= 0) {
      if (LAY(R)->game_faction[f] < 0) return fail(R, "%s is not in this game", w);
      want = f;
      continue;
    }
    bool known = false;
    for (int a = 0; a < p->nactions && !known; a++) known = action_matches(p, a, w);
    if (!known) {
      const char *names[512];
      size_t nn = 0;
      for (int a = 0; a < p->nactions && nn < 512; a++) {
        names[nn++] = p->actions[a].name;
        for (int k = 0; k < p->actions[a].nkinds && nn < 512; k++) names[nn++] = p->actions[a].kinds[k];
      }
      return repl_suggest_fail(R, "faction, action or kind of action", w, names, nn);
    }
    only = w;
  }
  const mt_decision *d = mt_pending(R->g);
  if (d && (want < 0 || R->g->v.vs->dec.faction == want) && offers_kind(R->g, only)) return legal_of(R, R->g, only, true);
  int st = mt_status(R->g);
  if (st == VM_IDLE || st == MT_FINISHED || st == MT_FAILED)
    return fail(R, st == MT_FINISHED ? "the game is over" : "no decision is pending (use 'phase ID' or 'run step')");
  mt_game *g = repl_forward_copy(R, NULL); /* forward on a copy, through this phase */
  if (d) say(R, "it is %s's decision now; ", d->faction);
  say(R, "%s, the passive policy answering the decisions before:", want >= 0 ? "when its turn comes" : "each faction when its turn comes");
  uint64_t shown = 0, rng = R->bot_rng;
  int listed = 0, taken = 0, rc = 0;
  for (int guard = 0; guard < 20000; guard++) {
    st = mt_status(g);
    if (st == MT_PAUSED && guard == 0) {
      vm_run(&g->v);
      continue;
    }
    if (st != MT_WAITING) break;
    int f = g->v.vs->dec.faction;
    if ((want < 0 || f == want) && !(shown >> f & 1u) && offers_kind(g, only)) {
      shown |= 1ull << f;
      say(R, "\n\n");
      if (taken) say(R, "(after %d decision%s) ", taken, taken == 1 ? "" : "s");
      if ((rc = legal_of(R, g, only, listed == 0)) < 0) break;
      listed++;
      if (want >= 0) break;
    }
    mt_choice x;
    if (!bot_choose(g, BOT_PASSIVE, &rng, &x) || mt_apply(g, &x, NULL) < 0) break;
    taken++;
  }
  if (repl_chance_blocked(R, g) < 0) { /* the copy stopped at a random event that has no outcome yet */
    mt_game_free(g);
    return -1;
  }
  if (!listed && rc == 0)
    say(R, "\n%s%s%s in the rest of this phase", want >= 0 ? DEF(R)->factions[want].id : "nobody", only ? " is not offered " : " is asked nothing",
        only ? only : "");
  mt_game_free(g);
  return rc;
}

int repl_cmd_do(repl *R, const char *rest) {
  if (!mt_pending(R->g)) return fail(R, "no decision is pending");
  mt_choice c;
  char err[256];
  if (mt_choice_parse(R->g, rest, &c, err, sizeof err) < 0) return fail(R, "%s", err);
  mt_explain why;
  int st = mt_apply(R->g, &c, &why);
  if (st < 0) {
    for (int i = 0; i < why.nreasons; i++) R->refused_rules[R->nrefused++] = why.rule[i];
    return fail(R, "refused: %s", why.text);
  }
  if (st == MT_FAILED) return fail(R, "%s", mt_error(R->g));
  say(R, "done: %s; ", rest);
  repl_describe_pending(R);
  return 0;
}

/* After a change succeeded: BEFORE (the game as it was, taken) becomes the
 * last undo step, and the redo list is forgotten. */
void repl_remember(repl *R, mt_game *before) {
  if (!before) return;
  if (R->nhistory == 256) {
    mt_game_free(R->history[0]);
    mt_free(R->history_what[0]);
    memmove(R->history, R->history + 1, sizeof R->history[0] * 255);
    memmove(R->history_what, R->history_what + 1, sizeof R->history_what[0] * 255);
    R->nhistory--;
  }
  R->history_what[R->nhistory] = mt_strdup(R->cmd_line ? R->cmd_line : "?");
  R->history[R->nhistory++] = before;
  while (R->nfuture) {
    R->nfuture--;
    mt_game_free(R->future[R->nfuture]);
    mt_free(R->future_what[R->nfuture]);
  }
}

/* undo: back to the state before the last change, saying which command it was; redo: that
 * command's state again. */
int repl_cmd_undo(repl *R, bool redo) {
  mt_game **from = redo ? R->future : R->history, **to = redo ? R->history : R->future;
  char **wfrom = redo ? R->future_what : R->history_what, **wto = redo ? R->history_what : R->future_what;
  int *nfrom = redo ? &R->nfuture : &R->nhistory, *nto = redo ? &R->nhistory : &R->nfuture;
  if (!*nfrom) return fail(R, "nothing to %s", redo ? "redo" : "undo");
  char *what = wfrom[--*nfrom];
  mt_game *left = R->g;
  R->g = from[*nfrom];
  repl_attach(R, R->g);
  say(R, "%s: %s (state hash %016llx)", redo ? "redone" : "undone", what, (unsigned long long)mt_hash(R->g));
  if (*nto < 256) { /* the state left goes to the other list, under the same command */
    wto[*nto] = what;
    to[(*nto)++] = left;
  } else {
    mt_game_free(left);
    mt_free(what);
  }
  return 0;
}

/* branches: every branch, the current one marked (it is `main` until another is switched to). */
int repl_cmd_branches(repl *R) {
  const char *cur = R->branch[0] ? R->branch : "main";
  bool listed_cur = false;
  say(R, "branches:");
  for (int i = 0; i < R->nbranches; i++) {
    bool here = !strcmp(R->branches[i].name, cur);
    listed_cur |= here;
    say(R, "\n  %s%s", R->branches[i].name, here ? " *" : "");
  }
  if (!listed_cur) say(R, "\n  %s *", cur);
  return 0;
}

/* fork NAME: keep a copy of this position as branch NAME; switch NAME: go to
 * it (the current position is kept under the current branch's name). */
int repl_cmd_branch(repl *R, int argc, char **argv) {
  if (argc != 2 || strlen(argv[1]) >= 64) return fail(R, "usage: %s NAME", argv[0]);
  int k = -1;
  for (int i = 0; i < R->nbranches; i++)
    if (!strcmp(R->branches[i].name, argv[1])) k = i;
  if (!strcmp(argv[0], "fork")) {
    if (k < 0) {
      if (R->nbranches == 32) return fail(R, "at most 32 branches");
      k = R->nbranches++;
      snprintf(R->branches[k].name, sizeof R->branches[k].name, "%s", argv[1]);
    } else {
      mt_game_free(R->branches[k].g);
    }
    R->branches[k].g = mt_clone(R->g);
    say(R, "branch %s: a copy of this position", argv[1]);
    return 0;
  }
  if (!strcmp(argv[1], R->branch[0] ? R->branch : "main")) {
    say(R, "already on branch %s", argv[1]);
    return 0;
  }
  if (k < 0) {
    const char *c[32];
    for (int i = 0; i < R->nbranches; i++) c[i] = R->branches[i].name;
    return repl_suggest_fail(R, "branch", argv[1], c, (size_t)R->nbranches);
  }
  /* keep where we are under the current branch name ("main" at first) */
  const char *cur = R->branch[0] ? R->branch : "main";
  int c = -1;
  for (int i = 0; i < R->nbranches; i++)
    if (!strcmp(R->branches[i].name, cur)) c = i;
  if (c < 0 && R->nbranches < 32) {
    c = R->nbranches++;
    snprintf(R->branches[c].name, sizeof R->branches[c].name, "%s", cur);
    R->branches[c].g = NULL;
  }
  if (c >= 0) {
    mt_game_free(R->branches[c].g);
    R->branches[c].g = R->g;
  } else {
    mt_game_free(R->g);
  }
  R->g = mt_clone(R->branches[k].g);
  repl_attach(R, R->g);
  snprintf(R->branch, sizeof R->branch, "%s", argv[1]);
  say(R, "on branch %s", argv[1]);
  return 0;
}

/* offer ACTION ARGS: an action that may be taken at any time (a deal, a
 * bribe) is judged by its guards and, if legal, its effect runs now; the
 * pending decision stays pending. */
int repl_cmd_offer(repl *R, const char *rest) {
  mt_choice c;
  char err[256];
  if (game_parse_action(R->g, rest, &c, err, sizeof err) < 0) return fail(R, "%s", err);
  if (c.open) return fail(R, "offer takes every parameter (ask `why` for the choices left open)");
  int64_t cost = 0;
  int judged = game_judge_action(R->g, &c, &cost, err, sizeof err);
  if (judged < 0) return fail(R, "refused: %s", judged == -1 ? err : "a parameter is outside its domain");
  if (judged == 0) {
    strbuf b = {0};
    explain_why(R->g, rest, false, &b);
    const program *p = &R->r->prog;
    const action_rec *a = &p->actions[c.action];
    for (int i = 0; i < R->g->v.nrefused && R->nrefused < MT_MAX_REASONS; i++) {
      int gi = R->g->v.refused[i];
      R->refused_rules[R->nrefused++] = p->rules[gi < 0 ? a->rule : a->guards[gi].rule].id;
    }
    fail(R, "refused: %s", b.s);
    sb_free(&b);
    return -1;
  }
  const action_rec *a = &R->r->prog.actions[c.action];
  int64_t args[MAX_PARAMS + 1];
  memcpy(args, c.args, sizeof(int64_t) * (size_t)a->nparams);
  args[a->nparams] = cost;
  if (vm_call_now(&R->g->v, a->effect_fn, args, a->nparams + 1) < 0) {
    if (R->g->v.vs->err_code == VE_INTERNAL) { /* the effect asked for a decision: say whose (the game is put back) */
      R->g->v.vs->status = VM_WAITING;
      const mt_decision *d = mt_pending(R->g);
      return fail(R, "refused: %s asks a decision on the way (%s decides '%s', rule %s), and an action offered between "
                     "decisions cannot wait for one: take it when the rules offer it (`do`); the game is as it was",
                  a->name, d ? d->faction : "?", d ? d->prompt : "?", d ? d->rule : "?");
    }
    return fail(R, "%s", mt_error(R->g));
  }
  say(R, "done: %s", rest);
  return 0;
}

/* `stop phase | turn N | off`: where the game pauses while it runs (do, run): at the end of the
 * phase under way (or of the next one to begin), or as turn N is over; `verify`'s witnesses set
 * the stop of their bound so that their last step ends where the search's did. */
int repl_cmd_stop(repl *R, int argc, char **argv) {
  vm_state *vs = R->g->v.vs;
  if (argc == 1) {
    const program *p = &R->r->prog;
    if (vs->stop_phase_end >= 0 && vs->stop_phase_end < p->nrules)
      say(R, "the game pauses at the end of %s (%s)", p->rules[vs->stop_phase_end].id, p->rules[vs->stop_phase_end].title);
    else if (vs->stop_phase_end == -2) say(R, "the game pauses at the end of the next phase to begin");
    if (vs->stop_turn >= 0) say(R, "%sthe game pauses as turn %d is over", R->out.n ? "\n" : "", vs->stop_turn);
    if (vs->stop_phase_end == -1 && vs->stop_turn < 0) say(R, "no stop: the game runs to the next decision");
    return 0;
  }
  long long t = 0;
  if (!strcmp(argv[1], "phase") && argc == 2) {
    vm_reset_stops(vs);
    int st = mt_status(R->g), ph = st == VM_IDLE || st == MT_PAUSED ? -1 : vs->phase_rule; /* as verify sets it */
    vs->stop_phase_end = ph >= 0 ? ph : -2;
    say(R, "stop: at the end of %s", ph >= 0 ? R->r->prog.rules[ph].id : "the next phase to begin");
    return 0;
  }
  if (!strcmp(argv[1], "turn") && argc == 3) {
    if (repl_parse_number(R, "turn", argv[2], 0, 100000, &t) < 0) return -1;
    vm_reset_stops(vs);
    vs->stop_turn = (int32_t)t;
    say(R, "stop: as turn %lld is over", t);
    return 0;
  }
  if (!strcmp(argv[1], "off") && argc == 2) {
    vm_reset_stops(vs);
    say(R, "stop: off");
    return 0;
  }
  return fail(R, "usage: stop [phase | turn N | off]");
}
