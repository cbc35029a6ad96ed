/* console_ask.c -- console questions: winner, eval, check, expect, explain,
 * rules, why (judged where the faction would be offered the action). */
#define _POSIX_C_SOURCE 200809L
#include "console.h"
#include "ruleset_report.h"

#include <ctype.h>
#include <strings.h>

/* Who wins if the victory phase of this turn were resolved now: run that
 * phase on a copy of the game with passive bots and read `winners`. */
int repl_cmd_winner(repl *R) {
  const program *p = &R->r->prog;
  int k = -1;
  for (int i = 0; i < p->nrules; i++)
    if (p->rules[i].form == RF_PHASE && p->rules[i].name && !strcmp(p->rules[i].name, "mentat_pause_phase")) k = i;
  if (k < 0) return fail(R, "this rule pack has no mentat_pause_phase to decide victory");
  int wv = -1, vv = -1;
  for (int i = 0; i < p->nvars; i++) {
    if (!strcmp(p->vars[i].name, "winners")) wv = i;
    if (!strcmp(p->vars[i].name, "victory")) vv = i;
  }
  if (wv < 0) return fail(R, "this rule pack has no 'winners' variable");
  int rc = 0;
  int64_t winners = 0, victory = -1;
  const var_rec *wr = &p->vars[wv];
  int64_t now_won = (uint32_t)board_var_get(LAY(R), ST(R), wr->board_var, 0, 0);
  if (wr->width == 2) now_won |= (int64_t)((uint64_t)(uint32_t)board_var_get(LAY(R), ST(R), wr->board_var, 0, 1) << 32);
  bool decided = mt_status(R->g) == MT_FINISHED || now_won != 0;
  strbuf reasoning = {0}, rules_run = {0};
  if (decided) { /* decided already: the result, and what the deciding step said */
    sb_puts(&reasoning, R->last_narr.s ? R->last_narr.s : "");
    sb_puts(&rules_run, R->last_fired.s ? R->last_fired.s : "");
  } else { /* resolve the Mentat Pause of this turn on a copy */
    mt_game *saved = R->g;
    R->g = mt_clone(saved);
    int saved_bots = R->bots;
    R->bots = BOT_PASSIVE;
    strbuf log = R->log;
    R->log = (strbuf){0};
    strbuf fired = R->fired;
    R->fired = (strbuf){0};
    repl_attach(R, R->g);
    rc = repl_seek_phase(R, k);
    if (rc == 0) {
      R->g->v.vs->stop_phase_end = k;
      rc = repl_advance(R, 1);
    }
    reasoning = R->log;
    rules_run = R->fired;
    R->log = log;
    R->fired = fired;
    if (rc == 0) {
      const var_rec *w = &p->vars[wv];
      winners = (uint32_t)board_var_get(LAY(R), ST(R), w->board_var, 0, 0);
      if (w->width == 2) winners |= (int64_t)((uint64_t)(uint32_t)board_var_get(LAY(R), ST(R), w->board_var, 0, 1) << 32);
      if (vv >= 0) victory = board_var_get(LAY(R), ST(R), p->vars[vv].board_var, 0, 0);
    }
    if (rc < 0) repl_chance_blocked(R, R->g); /* the copy met a random event: say so */
    mt_game_free(R->g);
    R->g = saved;
    R->bots = saved_bots;
    repl_attach(R, R->g);
    if (rc < 0) {
      sb_free(&reasoning);
      sb_free(&rules_run);
      return -1;
    }
  }
  if (decided) {
    winners = now_won;
    if (vv >= 0) victory = board_var_get(LAY(R), ST(R), p->vars[vv].board_var, 0, 0);
  }
  /* the derivation: what the victory phase's rules said and which of them ran */
  if (decided) say(R, "the game is decided%s%s", reasoning.n ? "; the last step said:\n" : "", reasoning.n ? reasoning.s : "");
  else if (reasoning.n) say(R, "the Mentat Pause, resolved now on a copy of the game:\n%s", reasoning.s);
  if (rules_run.n) say(R, "rules consulted:\n%s", rules_run.s);
  sb_puts(&R->jextra, ",\"reasoning\":");
  sb_json_str(&R->jextra, reasoning.s ? reasoning.s : "");
  sb_free(&reasoning);
  sb_free(&rules_run);
  strbuf names = {0};
  sb_puts(&R->jextra, ",\"winners\":[");
  int n = 0;
  for (int f = 0; f < DEF(R)->nfactions && f < 64; f++)
    if ((uint64_t)winners >> f & 1u) {
      sb_printf(&names, "%s%s", n ? ", " : "", DEF(R)->factions[f].id);
      sb_printf(&R->jextra, "%s\"%s\"", n++ ? "," : "", DEF(R)->factions[f].id);
    }
  sb_puts(&R->jextra, "]");
  if (victory >= 0 && victory < p->nrules) {
    sb_printf(&R->jextra, ",\"rules\":[\"%s\"]", p->rules[victory].id);
    say(R, "winners: %s — %s (%s)", n ? names.s : "none", p->rules[victory].id, p->rules[victory].title);
  } else {
    sb_puts(&R->jextra, ",\"rules\":[]");
    say(R, "winners: %s", n ? names.s : "none");
  }
  sb_free(&names);
  return 0;
}

int repl_cmd_eval(repl *R, const char *rest, bool check) {
  int64_t v;
  int ty;
  strbuf err = {0};
  if (!game_eval(R->g, rest, &v, &ty, &err)) {
    fail(R, "%s", err.s ? err.s : "cannot evaluate");
    sb_free(&err);
    return -1;
  }
  sb_free(&err);
  if (check) {
    if (ty != TY_BOOL) return fail(R, "check needs a true/false expression");
    if (!v) /* counted as a failed command (unless the next line expects the error) */
      return fail(R, "check failed: %s", rest);
    say(R, "check passed");
    return 0;
  }
  strbuf b = {0};
  vm_format_value(&R->g->v, ty, v, &b);
  say(R, "%s", b.s);
  sb_puts(&R->jextra, ",\"value\":");
  sb_json_str(&R->jextra, b.s);
  sb_free(&b);
  return 0;
}

/* Expectations about the previous command. */
int repl_cmd_expect(repl *R, int argc, char **argv, const char *rest, int prev_ok) {
  if (argc < 2) return fail(R, "usage: expect ok|error [TEXT]|refused RULE...|output TEXT");
  bool pass;
  if (!strcmp(argv[1], "ok")) pass = prev_ok;
  else if (!strcmp(argv[1], "error")) { /* expect error [TEXT]: the text must be in the message */
    pass = !prev_ok;
    if (pass && argc > 2) {
      const char *t = strstr(rest, "error") + 5;
      while (*t == ' ') t++;
      pass = strstr(R->last_output, t) != NULL;
    }
  }
  else if (!strcmp(argv[1], "refused")) {
    pass = !prev_ok && R->nrefused > 0;
    for (int i = 2; i < argc && pass; i++) {
      bool found = false;
      for (int k = 0; k < R->nrefused; k++) found |= !strcmp(R->refused_rules[k], argv[i]);
      pass = found;
    }
  } else if (!strcmp(argv[1], "output")) {
    const char *t = strstr(rest, "output") + 6;
    while (*t == ' ') t++;
    pass = strstr(R->last_output, t) != NULL;
  } else {
    return fail(R, "usage: expect ok|error [TEXT]|refused RULE...|output TEXT");
  }
  if (!pass) {
    R->failures++;
    return fail(R, "expectation failed: %s (previous output: %s)", rest, R->last_output);
  }
  say(R, "expectation met");
  return 0;
}

int repl_cmd_explain(repl *R, int argc, char **argv) {
  bool bytecode = false;
  const char *id = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--bytecode")) bytecode = true;
    else id = argv[i];
  }
  if (!id) return fail(R, "usage: explain RULE-ID [--bytecode]");
  if (!R->r && repl_load_rules(R) < 0) return -1;
  strbuf b = {0};
  int rc = explain_rule(R->r, id, bytecode, R->json, R->json ? &R->jextra : &b);
  if (R->json && rc == 0) {
    memmove(R->jextra.s + 1, R->jextra.s, R->jextra.n + 1); /* members follow the "ok" member */
    R->jextra.s[0] = ',';
    R->jextra.n++;
    R->jtext = true; /* the rule's members say it all */
  }
  if (rc < 0) {
    fail(R, "%s", R->json ? R->jextra.s : b.s);
    if (R->json) sb_free(&R->jextra);
  } else if (!R->json) {
    say(R, "%s", b.s);
  }
  sb_free(&b);
  return rc;
}

int repl_cmd_rules_query(repl *R, int argc, char **argv) {
  if (!R->r && repl_load_rules(R) < 0) return -1;
  strbuf b = {0};
  int rc = explain_query(R->r, argc - 1, (const char *const *)(argv + 1), R->json, &b);
  if (rc < 0) {
    fail(R, "%s", b.s);
  } else if (R->json) {
    sb_printf(&R->jextra, ",%s", b.s);
  } else {
    sb_puts(&R->out, b.s ? b.s : "");
  }
  sb_free(&b);
  return rc;
}

/* What a legal action would do: its effect run on a copy of the game, with the
 * narration captured (up to the first decision it would ask for). */
static void would_do(repl *R, mt_game *g, const char *rest, strbuf *lines, strbuf *stop) {
  mt_choice c;
  char err[256];
  int64_t cost = 0;
  if (game_parse_action(g, rest, &c, err, sizeof err) < 0 || c.open || game_judge_action(g, &c, &cost, err, sizeof err) != 1)
    return;
  const action_rec *a = &R->r->prog.actions[c.action];
  if (a->effect_fn < 0) return;
  int64_t args[MAX_PARAMS + 1];
  memcpy(args, c.args, sizeof(int64_t) * (size_t)a->nparams);
  args[a->nparams] = cost;
  strbuf log = R->log, fired = R->fired;
  R->log = (strbuf){0};
  R->fired = (strbuf){0};
  mt_game *copy = mt_clone(g);
  repl_attach(R, copy);
  copy->v.fired = NULL;
  if (vm_call_now(&copy->v, a->effect_fn, args, a->nparams + 1) < 0) {
    if (copy->v.vs->err_code == VE_INTERNAL) { /* it stopped at a decision: say whose */
      copy->v.vs->status = VM_WAITING;
      const mt_decision *d = mt_pending(copy);
      if (d) sb_printf(stop, "then %s decides: %s (rule %s) -- not followed here", d->faction, d->prompt, d->rule);
      else sb_puts(stop, "then the rules ask for a decision (not followed here)");
    }
    else vm_error_text(&copy->v, R->r->d, stop);
  }
  mt_game_free(copy);
  while (R->log.n && R->log.s[R->log.n - 1] == '\n') R->log.s[--R->log.n] = 0;
  *lines = R->log;
  sb_free(&R->fired);
  R->log = log;
  R->fired = fired;
}

/* Whether G waits for faction F to choose among actions that include A. */
static bool offers(mt_game *g, int64_t f, int a) {
  const vm_state *vs = g->v.vs;
  if (mt_status(g) != MT_WAITING || vs->dec.kind != DEC_ACT || vs->dec.faction != f) return false;
  const program *p = &g->r->prog;
  for (int i = 0; i < p->nlist[vs->dec.list]; i++)
    if (p->lists[vs->dec.list][i] == a) return true;
  return false;
}

/* The moment a question about action C is really about: the decision where C's faction is
 * offered C.  Some state is set only when that decision arrives (a faction's movement range
 * at the start of its move), so `why` judges on a copy of the game brought forward to it, the
 * passive policy answering every decision before (within the current phase).  Returns the copy
 * (NULL: judge the game as it stands) and says in WHERE where it judged, or why it could not. */
static mt_game *decision_point(repl *R, const mt_choice *c, strbuf *where, bool *not_offered) {
  if (c->action < 0 || c->args[0] < 0 || c->args[0] >= DEF(R)->nfactions || offers(R->g, c->args[0], c->action)) return NULL; /* (`none`) */
  int st = mt_status(R->g);
  if (st == VM_IDLE || st == MT_FINISHED || st == MT_FAILED) return NULL;
  const program *p = &R->r->prog;
  const char *fac = DEF(R)->factions[c->args[0]].id, *act = p->actions[c->action].name; /* a faction value is the data's index */
  int phase;
  mt_game *g = repl_forward_copy(R, &phase); /* within this phase: the one under way, or the one about to begin */
  strbuf taken = {0};
  int n = 0;
  uint64_t rng = R->bot_rng;
  for (int guard = 0; guard < 20000; guard++) {
    st = mt_status(g);
    if (st == MT_PAUSED && guard == 0) {
      vm_run(&g->v);
      continue;
    }
    if (st != MT_WAITING) break;
    if (offers(g, c->args[0], c->action)) {
      const mt_decision *d = mt_pending(g);
      sb_printf(where, "judged where %s decides '%s' (rule %s)", d->faction, d->prompt, d->rule);
      if (n) sb_printf(where, ", after %d decision%s the passive policy took: %s", n, n == 1 ? "" : "s", taken.s);
      sb_free(&taken);
      return g;
    }
    mt_choice x;
    if (!bot_choose(g, BOT_PASSIVE, &rng, &x)) break;
    char text[256];
    mt_choice_format(g, &x, text, sizeof text);
    const mt_decision *d = mt_pending(g);
    if (n < 4) sb_printf(&taken, "%s%s: %s", n ? "; " : "", d ? d->faction : "?", text);
    else if (n == 4) sb_puts(&taken, "; ...");
    n++;
    if (mt_apply(g, &x, NULL) < 0) break;
  }
  if (repl_chance_pending(g)) { /* stopped at a random event: repl_cmd_why says so */
    sb_free(&taken);
    return g;
  }
  st = mt_status(g);
  *not_offered = true;
  sb_printf(where, "%s is not offered %s now nor %s", fac, act,
            st == MT_FINISHED ? "before the game ends"
            : phase >= 0 ? "before this phase ends"
                         : "before the next phase to begin ends");
  if (phase >= 0) sb_printf(where, " (%s %s)", p->rules[phase].id, p->rules[phase].title ? p->rules[phase].title : "");
  sb_puts(where, ", the passive policy answering the decisions before");
  strbuf offering = {0}; /* where the rules do offer it: the step, with its number, and its phase */
  if (rules_offering(p, c->action, &offering)) sb_printf(where, "; %s is offered by %s", act, offering.s);
  else sb_printf(where, "; no rule in force offers %s in a decision", act);
  sb_free(&offering);
  sb_free(&taken);
  mt_game_free(g);
  return NULL;
}

static int why_clause(repl *R, const char *rest);

/* `can the emperor summon a sandstorm?`: the parser, finding no action, names the subject
 * (`unknown action 'emperor'`); the words naming nothing of the rules are the ones to say. */
static void unknown_verb(repl *R, const char *rest, strbuf *b) {
  const char *pre = "unknown action '";
  if (!b->s || strncmp(b->s, pre, strlen(pre))) return;
  char first[64];
  snprintf(first, sizeof first, "%s", b->s + strlen(pre));
  char *q = strchr(first, '\'');
  if (q) *q = 0;
  if (board_faction_find(DEF(R), first) < 0) return;
  char buf[1024];
  char *w[64];
  int nw = game_read_names(R->g, rest, buf, sizeof buf, w, 64);
  strbuf none = {0};
  const board_def *def = DEF(R);
  for (int i = 0; i < nw; i++) {
    char stem[64];
    bool name = board_faction_find(def, w[i]) >= 0 || board_area_index(def, w[i]) >= 0 || board_leader_index(def, w[i]) >= 0 ||
                board_card_index(def, w[i]) >= 0 || board_kind_index(def, w[i]) >= 0 || strchr("0123456789-", w[i][0]);
    if (!name && !game_word_names_action(R->r, w[i], stem, sizeof stem)) sb_printf(&none, "%s'%s'", none.n ? ", " : "", w[i]);
  }
  if (none.n) {
    sb_free(b);
    sb_printf(b, "no action of the rules, nor a decision they ask, is named by %s (`legal %s` lists what %s can do now; `rules WORD` "
                 "searches the rules)", none.s, first, first);
  }
  sb_free(&none);
}

/* A No names the rules that refused; the rules in force that supersede one of them lift it in
 * their cases (a Karama's bid beyond one's spice, 3.01.11.04; an ally's help, 1.10.02.04): said
 * after the refusal when the answer does not name them yet.  TEXT is the answer so far. */
static void lifted_by(repl *R, const char *text, int64_t asker, strbuf *out) {
  if (!text || strncmp(text, "No", 2)) return;
  const program *p = &R->r->prog;
  int n = 0;
  int64_t ally = -1; /* another faction's ability lifts nothing for the asker, unless it is its ally's alliance power */
  if (asker >= 0 && asker < DEF(R)->nfactions) {
    strbuf e = {0}, err = {0};
    int ty;
    sb_printf(&e, "ally(%s)", DEF(R)->factions[asker].id);
    if (!game_eval(R->g, e.s, &ally, &ty, &err)) ally = -1;
    sb_free(&e);
    sb_free(&err);
  }
  for (int q = 0; q < p->nrules; q++) {
    const rule_rec *rr = &p->rules[q];
    if (rr->disabled || strstr(text, rr->id)) continue;
    if (rr->faction >= 0 && rr->faction != asker && !(rr->faction == ally && (rr->tags & TAG_ALLIANCE))) continue;
    for (int k = 0; k < rr->nsup; k++) {
      char key[96];
      snprintf(key, sizeof key, "  %s (", p->rules[rr->sup[k]].id);
      if (!strstr(text, key)) continue;
      sb_printf(out, "%s%s (%s) lifts %s in its cases", n++ ? "; " : "\n(", rr->id, rr->title ? rr->title : "", p->rules[rr->sup[k]].id);
      break;
    }
  }
  if (n) sb_puts(out, ")");
}

/* Whether the verb of REST, read in G, leaves its action nothing to do (a count of 0 or less:
 * `revive fremen 3` once the Fremen have revived 3 this turn). */
static bool verb_met(repl *R, mt_game *g, const char *rest) {
  mt_choice x;
  char e[256];
  if (game_parse_action(g, rest, &x, e, sizeof e) < 0 || x.action < 0) return false;
  const action_rec *a = &R->r->prog.actions[x.action];
  bool met = false;
  for (int i = 1; i < a->nparams; i++) met |= a->ptype[i] == TY_INT && x.args[i] <= 0;
  return met;
}

/* A question about something the rules may do without a decision (the Fremen's free revival):
 * the rest of this phase played on a copy, the passive policy answering, and what the rules
 * narrated about faction F said in OUT (with their numbers).  For a verb, *DONE tells whether
 * what it asks for is done by then (the action it stands for has nothing left to do: a count of
 * 0 or less).  False if the copy could not be played (a random event without an outcome). */
static bool run_forward(repl *R, const char *rest, const mt_choice *c, strbuf *out, bool *done) {
  *done = false;
  int phase;
  mt_game *saved = R->g;
  mt_game *g = repl_forward_copy(R, &phase);
  int saved_bots = R->bots;
  strbuf log = R->log, fired = R->fired;
  R->log = (strbuf){0};
  R->fired = (strbuf){0};
  R->g = g;
  R->bots = BOT_PASSIVE;
  repl_attach(R, g);
  int st = mt_status(g);
  int rc = st == MT_PAUSED || st == MT_WAITING ? repl_advance(R, 1) : -1;
  strbuf said = R->log;
  R->log = log;
  sb_free(&R->fired);
  R->fired = fired;
  R->bots = saved_bots;
  R->g = saved;
  bool ok = rc == 0 && !repl_chance_pending(g);
  if (ok && (c->args[0] < 0 || c->args[0] >= DEF(R)->nfactions)) ok = false; /* no faction (`none`): nothing to say of it */
  if (ok) { /* the lines naming the faction, whatever their case */
    const char *fac = DEF(R)->factions[c->args[0]].id;
    size_t fl = strlen(fac);
    for (char *line = said.s; line && *line;) {
      char *end = strchr(line, '\n');
      size_t n = end ? (size_t)(end - line) : strlen(line);
      bool names = false;
      for (size_t i = 0; i + fl <= n && !names; i++) names = !strncasecmp(line + i, fac, fl);
      if (names) sb_printf(out, "\n  %.*s", (int)n, line);
      line = end ? end + 1 : NULL;
    }
    /* the verb read again where the phase ends: nothing left for its action to do, and something
     * left before (a count already met now was met by what happened earlier, not by the rules
     * still to run: no Yes for that) */
    if (c->verb && !verb_met(R, R->g, rest)) *done = verb_met(R, g, rest);
  }
  sb_free(&said);
  mt_game_free(g);
  repl_attach(R, R->g);
  return ok;
}

static int why_command(repl *R, const char *rest);

int repl_cmd_why(repl *R, const char *rest) {
  int rc = why_command(R, rest);
  R->ask_free = false; /* said by the question read for this command only */
  return rc;
}

static int why_command(repl *R, const char *rest) {
  if (!*rest || !strcmp(rest, "last")) {
    if (!R->last_fired.n) return fail(R, "nothing has run yet");
    say(R, "the last step ran these rules, in order:\n%s", R->last_fired.s);
    if (R->last_narr.n) say(R, "and this is what they did:\n%s", R->last_narr.s);
    return 0;
  }
  strbuf clause = {0}; /* `why can't harkonnen move to arrakeen`: the clause without the question's words */
  if (repl_question_clause(rest, &clause) && clause.n) rest = clause.s;
  strbuf rel = {0}, relnote = {0}; /* `give spice to its ally`: the faction it is now */
  bool none = false;
  if (repl_relation_clause(R, rest, &rel, &relnote, &none)) {
    say(R, "%s\n", relnote.s);
    if (R->json) {
      sb_puts(&R->jextra, ",\"relation\":");
      sb_json_str(&R->jextra, relnote.s);
    }
    if (!none) rest = rel.s; /* none: the words stay (a decision about `their ally` is still one) */
  }
  strbuf qc = {0}, note = {0}; /* `bid more than they have`: a witness value, said */
  char hypo[128];
  int64_t hval = 0;
  mt_game *saved = NULL;
  int rc = 0;
  if (repl_quantity_clause(R, rest, &qc, &note, hypo, sizeof hypo, &hval) && qc.n) {
    rest = qc.s;
    say(R, "%s\n", note.s);
    if (R->json) { /* the text the answer carries may be its own: the value judged is said here too */
      sb_puts(&R->jextra, ",\"judged_with\":");
      sb_json_str(&R->jextra, note.s);
    }
    if (hypo[0]) { /* `with 3 spice`: the question asked of a copy of the game where it is so */
      saved = R->g;
      R->g = mt_clone(saved);
      repl_attach(R, R->g);
      char set[200];
      snprintf(set, sizeof set, "%s = %lld", hypo, (long long)hval);
      size_t keep = R->out.n;
      rc = repl_cmd_set(R, set);
      if (R->out.s && rc == 0) R->out.s[R->out.n = keep] = 0; /* what `set` said is not the answer */
    }
  }
  size_t keep = R->out.n;
  if (rc == 0) rc = why_clause(R, rest);
  if (rc < 0 && rel.n && !none && !hypo[0] && !qc.n) { /* `let their ally revive`: read with the words as said (a decision's) */
    if (R->out.s) R->out.s[R->out.n = keep] = 0;
    R->ok = 1;
    rc = why_clause(R, clause.n ? clause.s : rest);
  }
  if (rc < 0 && none) say(R, "\n(that faction is none now: there is nothing to judge)");
  if (saved) {
    mt_game_free(R->g);
    R->g = saved;
    repl_attach(R, R->g);
  }
  sb_free(&qc);
  sb_free(&note);
  sb_free(&rel);
  sb_free(&relnote);
  sb_free(&clause);
  return rc;
}

/* `why` of one clause: an action judged where its faction would be offered it. */
static int why_clause(repl *R, const char *rest) {
  strbuf b = {0}, where = {0};
  mt_choice c;
  char perr[256];
  mt_game *at = NULL;
  bool not_offered = false; /* nowhere in this phase: the answer is No, whatever the guards say */
  if (game_parse_action(R->g, rest, &c, perr, sizeof perr) >= 0) at = decision_point(R, &c, &where, &not_offered);
  if (not_offered && !c.verb) { /* a kind word (`pass`): the action of that kind this phase offers the faction, if any */
    mt_choice cands[64];
    bool ok[64];
    int nc = game_parse_candidates(R->g, rest, cands, ok, 64);
    for (int k = 0; k < nc && not_offered; k++) {
      if (!ok[k] || cands[k].action == c.action || cands[k].args[0] != c.args[0]) continue;
      strbuf w2 = {0};
      bool no2 = false;
      mt_game *at2 = decision_point(R, &cands[k], &w2, &no2);
      if (no2) {
        sb_free(&w2);
        continue;
      }
      if (at) mt_game_free(at);
      at = at2, not_offered = false, c = cands[k];
      sb_free(&where);
      where = w2;
    }
  }
  if (at && repl_chance_pending(at)) { /* on the way there, a random event that has no outcome yet */
    repl_chance_blocked(R, at);
    mt_game_free(at);
    sb_free(&where);
    repl_attach(R, R->g);
    return -1;
  }
  mt_game *g = at ? at : R->g;
  int rc = explain_why(g, rest, R->json, &b);
  if (rc < 0 && !at) { /* a faction no parameter takes: the one the action is for (`pay for atreides revival`)? */
    strbuf rc2 = {0}, note = {0};
    bool refused = false;
    if (repl_reach_clause(R, rest, &rc2, &note, &refused)) {
      sb_free(&b);
      say(R, "%s\n", note.s);
      if (R->json) {
        sb_puts(&R->jextra, refused ? ",\"not_for_it\":true,\"for\":" : ",\"for\":");
        sb_json_str(&R->jextra, note.s);
      }
      rc = why_clause(R, rc2.s);
      sb_free(&rc2);
      sb_free(&note);
      sb_free(&where);
      return rc;
    }
    sb_free(&rc2);
    sb_free(&note);
  }
  bool names_asked = b.s && (strstr(b.s, "did you mean") || strstr(b.s, "could be")); /* a name to correct: that is the answer */
  int dec = rc < 0 && !at && !names_asked ? repl_why_decision(R, rest, false) : 0; /* no action: a decision of the rules (`call traitor`)? */
  if (dec) {
    rc = dec > 0 ? 0 : -1;
  } else if (rc < 0) {
    unknown_verb(R, rest, &b);
    if (R->json) { /* the error as plain text: the JSON line wraps it */
      sb_free(&b);
      explain_why(g, rest, false, &b);
    }
    fail(R, "%s", b.s);
  } else {
    strbuf eff = {0}, stop = {0}, auto_said = {0};
    if (!not_offered) would_do(R, g, rest, &eff, &stop);
    bool done = false; /* not offered: what the rules do without a decision in the rest of the phase */
    if (not_offered) run_forward(R, rest, &c, &auto_said, &done);
    /* offered, but what the verb asks for was done by the rules on the way there (`revive harkonnen
     * 1` where the Harkonnen revive 2 free before they are asked): Yes, without a decision */
    else if (c.verb && at && !verb_met(R, R->g, rest) && verb_met(R, at, rest)) run_forward(R, rest, &c, &auto_said, &done);
    if (R->json) {
      sb_printf(&R->jextra, ",%s", b.s);
      if (R->ask_free) sb_puts(&R->jextra, ",\"asked_free\":true"); /* `for free`: a legal answer's cost says if it is */
      if (not_offered) sb_printf(&R->jextra, ",\"offered\":false,\"done_by_the_rules\":%s", done ? "true" : "false");
      if (auto_said.n) {
        sb_puts(&R->jextra, ",\"the_rules_do\":");
        sb_json_str(&R->jextra, auto_said.s + 1);
      }
      if (where.n) {
        sb_puts(&R->jextra, ",\"judged_at\":");
        sb_json_str(&R->jextra, where.s);
      }
      if (eff.n || stop.n) {
        sb_puts(&R->jextra, ",\"effects\":");
        sb_json_str(&R->jextra, eff.s ? eff.s : "");
        sb_puts(&R->jextra, ",\"effects_stop\":");
        sb_json_str(&R->jextra, stop.s ? stop.s : "");
      }
      R->jtext = true;
    } else {
      if (done)
        sb_printf(&R->out, "Yes, without a decision: the rules do it in the rest of this phase (played on a copy, the passive "
                           "policy answering):%s\n(%s: nothing is left for it to do.)\nThe action it stands for, judged in the "
                           "position as it stands, would say:\n",
                  auto_said.s ? auto_said.s : "", where.s);
      else if (not_offered) {
        sb_printf(&R->out, "No: %s.", where.s);
        if (auto_said.n) sb_printf(&R->out, "\nWhat the rules do for it in the rest of this phase, without a decision:%s", auto_said.s);
        sb_puts(&R->out, "\nIts rules alone, judged in the position as it stands, would say:\n");
      }
      long long price = 0; /* asked for free, legal at a price: No, with the price and its rule below */
      const char *costs = R->ask_free && b.s && !strncmp(b.s, "Yes", 3) ? strstr(b.s, "it costs ") : NULL;
      if (costs && sscanf(costs + 9, "%lld", &price) == 1 && price > 0)
        sb_printf(&R->out, "No, not for free: it is legal, but it costs %lld (the rules' price below)\n", price);
      sb_puts(&R->out, b.s);
      lifted_by(R, b.s, c.action >= 0 ? c.args[0] : -1, &R->out);
      if (where.n && !not_offered) sb_printf(&R->out, "\n(%s)", where.s);
      if (eff.n || stop.n) sb_puts(&R->out, at ? "\nif taken then, on a copy of the game:" : "\nif taken now, on a copy of the game:");
      if (eff.n) sb_printf(&R->out, "\n%s", eff.s);
      if (stop.n) sb_printf(&R->out, "\n%s", stop.s);
      if (b.s && !strncmp(b.s, "No", 2)) { /* the words may fit a decision too (`place the worm`) */
        size_t keep = R->out.n;
        sb_puts(&R->out, "\n(the words fit a decision of the rules too:)\n");
        if (repl_why_decision(R, rest, true) <= 0 && R->out.s) R->out.s[R->out.n = keep] = 0;
      }
    }
    sb_free(&auto_said);
    sb_free(&eff);
    sb_free(&stop);
  }
  sb_free(&b);
  sb_free(&where);
  if (at) {
    if (repl_chance_blocked(R, at) < 0) rc = -1;
    mt_game_free(at);
    repl_attach(R, R->g);
  }
  return rc;
}

/* ---- questions in players' words --------------------------------------------------------------
 * The console's question grammar (English words only; the names in a question are read by the
 * rules' own name tables, game_words.c): `can the fremen ship 5 to funeral plain?`, `is it
 * legal for X to ...`, `why can't X move to Y` go to `why`; `who wins now` to `winner`; `what does
 * rule 2.04.16 say` to `explain`; `what can X do` to `legal X`; `what about karama` to `rules`. */

/* Words that only make a sentence a question about legality. */
static bool question_filler(const char *w) {
  static const char *const fill[] = {"can", "could", "may", "might", "cannot", "cant", "couldnt", "not", "is", "isnt", "are", "arent",
                                     "it", "legal", "illegal", "possible", "allowed", "able", "permitted", "does", "doesnt", "do",
                                     "dont", "would", "will", "wont", "how", "much", "cost", "costs", "i", "we", "you", "still",
                                     "now", "ever", "why", "there", "be", "what", "whats", "if", "wants", "want", "tried", "try", "whether",
                                     "have", "has", "had", "need", "needs", "must", "should", "get", "gets", "got", "anyone",
                                     "anybody", "someone", "somebody", "anything", "something", "right", "currently"};
  for (size_t i = 0; i < sizeof fill / sizeof *fill; i++)
    if (!strcmp(w, fill[i])) return true;
  return false;
}

/* W as a key for the grammar: lower case, apostrophes and trailing punctuation dropped. */
static void grammar_key(const char *w, char *out, size_t cap) {
  size_t k = 0;
  for (; *w && k + 1 < cap; w++)
    if (*w != '\'' && *w != '?' && *w != '!' && *w != ',') out[k++] = (char)tolower((unsigned char)*w);
  while (k && out[k - 1] == '.') k--;
  out[k] = 0;
}

/* TEXT with the words that only make it a question dropped: the clause `why` judges.  True if
 * any was dropped. */
bool repl_question_clause(const char *text, strbuf *out) {
  char *copy = mt_strdup(text);
  bool dropped = false;
  for (char *t = strtok(copy, " \t"); t; t = strtok(NULL, " \t")) {
    char k[64];
    grammar_key(t, k, sizeof k);
    if (!strchr(t, '=') && question_filler(k)) {
      dropped = true;
      continue;
    }
    sb_printf(out, "%s%s", out->n ? " " : "", t);
  }
  mt_free(copy);
  return dropped;
}

/* Words asking what something costs (`does the guild pay for shipping`, `what does it cost X to
 * ship`, `how much spice does X spend`). */
bool repl_cost_word(const char *k) {
  static const char *const cost[] = {"pay", "pays", "paid", "paying", "spend", "spends", "spent", "charge", "charges",
                                     "charged", "price", "cost", "costs", "fee", "owe", "owes", "free", "cheap", "cheaper", "cheapest", "half",
                                     "full", "rate", "rates", "discount"};
  for (size_t i = 0; i < sizeof cost / sizeof *cost; i++)
    if (!strcmp(k, cost[i])) return true;
  return false;
}

/* A question about what an action costs: a cost word and another word naming an action of the
 * rules, the two not words of one action's name (`pay ... revival` is pay_ally_revival).  The
 * question is then about that action (its cost, with its rule, is in the answer): OUT the line
 * with the cost words dropped. */
static bool cost_question(repl *R, char **w, int n, strbuf *out) {
  if (!R->r) return false;
  int costs = -1, act = -1;
  char stem[64];
  for (int i = 0; i < n; i++) {
    char k[64];
    grammar_key(w[i], k, sizeof k);
    if (repl_cost_word(k)) costs = costs < 0 ? i : costs;
    else if (act < 0 && game_word_names_action(R->r, k, stem, sizeof stem)) act = i;
  }
  char kc[64];
  if (costs >= 0) grammar_key(w[costs], kc, sizeof kc);
  if (costs < 0 || (act < 0 && strcmp(kc, "free") && strncmp(kc, "cheap", 5))) return false; /* `pay 3`: the action pay_ally_revival */
  if (act < 0) act = costs;
  char ka[64];
  grammar_key(w[act], ka, sizeof ka);
  for (int i = 0; i < n; i++) {
    char k[64];
    grammar_key(w[i], k, sizeof k);
    if (repl_cost_word(k) && game_words_of_one_action(R->r, k, ka)) return false;
  }
  /* `can atreides pay for the fremen's shipment?`: the possessive names whose action it is, the
   * subject the payer: the owner first, the subject after it (a later faction parameter) */
  int subj = -1, owner = -1;
  for (int i = 0; i < n; i++) {
    size_t l = strlen(w[i]);
    char base[64];
    bool poss = l > 2 && (!strcmp(w[i] + l - 2, "'s") || !strcmp(w[i] + l - 3, "s'") || !strcmp(w[i] + l - 3, "'s?"));
    grammar_key(w[i], base, sizeof base);
    size_t bl = strlen(base);
    if (poss && bl > 1 && base[bl - 1] == 's') base[bl - 1] = 0;
    int f = board_faction_find(DEF(R), base);
    if (f < 0) {
      grammar_key(w[i], base, sizeof base);
      f = board_faction_find(DEF(R), base);
    }
    if (f < 0) continue;
    char next[64], nstem[64]; /* `the atreides shipment`: a faction before a noun of an action is its owner too */
    grammar_key(i + 1 < n ? w[i + 1] : "", next, sizeof next);
    poss |= *next && game_word_names_action(R->r, next, nstem, sizeof nstem);
    if (poss && owner < 0 && subj >= 0) owner = i;
    else if (subj < 0) subj = i;
  }
  for (int i = 0; i < n; i++) {
    char k[64];
    grammar_key(w[i], k, sizeof k);
    if (owner >= 0 && i == subj) continue;
    if (!repl_cost_word(k)) sb_printf(out, "%s%s", out->n ? " " : "", w[i]);
    if (owner >= 0 && i == owner) sb_printf(out, " %s", w[subj]);
  }
  return true;
}

/* `how many forces can harkonnen revive`: the legal answers of that verb for that faction
 * (`legal harkonnen revive`); `how does the bene gesserit voice work`: the rules about it. */
static bool how_question(repl *R, char **w, int n, strbuf *out) {
  char k1[64], kl[64];
  grammar_key(w[1], k1, sizeof k1);
  grammar_key(w[n - 1], kl, sizeof kl);
  if (!strcmp(kl, "work") || !strcmp(kl, "works")) {
    sb_puts(out, "rules");
    for (int i = 2; i < n - 1; i++) {
      char k[64];
      grammar_key(w[i], k, sizeof k);
      if (strcmp(k, "the") && strcmp(k, "a") && strcmp(k, "do") && strcmp(k, "does") && strcmp(k, "an")) sb_printf(out, " %s", k);
    }
    return true;
  }
  if (strcmp(k1, "many") || !R->r) return false;
  int modal = -1, act = -1;
  char stem[64] = "";
  for (int i = 2; i < n && act < 0; i++) {
    char k[64];
    grammar_key(w[i], k, sizeof k);
    if (modal < 0 && (!strcmp(k, "can") || !strcmp(k, "could") || !strcmp(k, "may") || !strcmp(k, "does") || !strcmp(k, "do")))
      modal = i;
    else if (modal >= 0 && game_word_names_action(R->r, k, stem, sizeof stem)) act = i;
  }
  if (modal < 0 || act < 0) return false;
  int end = n; /* the words saying when (`this turn`, `right now`) */
  static const char *const when[] = {"now", "turn", "phase", "round", "this", "right", "here", "yet", "still", "again"};
  for (bool more = true; more && end > act + 1;) {
    char k[64];
    grammar_key(w[end - 1], k, sizeof k);
    more = false;
    for (size_t j = 0; j < sizeof when / sizeof *when && !more; j++) more = !strcmp(k, when[j]);
    end -= more;
  }
  if (act + 1 < end) { /* more said after the verb (`to carthag`): why, the count left open */
    strbuf rest = {0};
    for (int i = modal; i < end; i++) sb_printf(&rest, "%s%s", rest.n ? " " : "", w[i]);
    strbuf clause = {0};
    repl_question_clause(rest.s, &clause);
    if (clause.n) sb_printf(out, "why %s", clause.s);
    sb_free(&clause);
    sb_free(&rest);
    return out->n > 0;
  }
  sb_puts(out, "legal");
  for (int i = modal + 1; i < act; i++) {
    char k[64];
    grammar_key(w[i], k, sizeof k);
    if (strcmp(k, "the")) sb_printf(out, " %s", k);
  }
  sb_printf(out, " %s", stem);
  return true;
}

/* A yes/no question about winning (`would anyone win right now?`, `does anybody win if the turn
 * ended here`, `is there a winner`): a word of winning and none naming an action. */
static bool wins_question(repl *R, char **w0, int n0) {
  char *w[64];
  char buf[1024];
  int n = n0;
  strbuf line = {0}; /* the names of several words joined (`bene gesserit`) */
  for (int i = 0; i < n0; i++) sb_printf(&line, "%s%s", i ? " " : "", w0[i]);
  if (R->g && line.s) n = game_read_names(R->g, line.s, buf, sizeof buf, w, 64);
  else for (int i = 0; i < n0 && i < 64; i++) w[i] = w0[i];
  sb_free(&line);
  bool win = false, subject = false;
  for (int i = 1; i < n && !win; i++) {
    char k[64];
    grammar_key(w[i], k, sizeof k);
    char stem[64];
    if (R->r && game_word_names_action(R->r, k, stem, sizeof stem)) return false;
    win |= !strncmp(k, "win", 3) || !strcmp(k, "won");
    bool faction = R->r && board_faction_find(DEF(R), k) >= 0;
    /* `can bene gesserit predict the winner?`: a faction doing something else than winning */
    if (!win && subject && !faction && !question_filler(k) && strcmp(k, "and") && strcmp(k, "or") && strcmp(k, "the") && strcmp(k, "both") &&
        strcmp(k, "together") && strcmp(k, "alliance"))
      return false;
    subject |= faction;
  }
  return win;
}

/* A line that is not a command read as a question in players' words: the command it stands for
 * in OUT (true), or false. */
bool repl_question(repl *R, const char *line, strbuf *out) {
  char *copy = mt_strdup(line);
  char *wa[64], **w = wa;
  int n = 0;
  for (char *t = strtok(copy, " \t"); t && n < 64; t = strtok(NULL, " \t")) wa[n++] = t;
  bool done = false;
  char w0[64];
  grammar_key(n ? w[0] : "", w0, sizeof w0);
  static const char *const starts[] = {"can", "could", "may", "might", "is", "are", "does", "would", "will", "how", "who", "what",
                                       "why", "whats", "whos", "do", "did", "should"};
  int lead = 0; /* `with a karama, can atreides bid 12?`: the words before the question only say what the position holds */
  for (int i = 1; i < n && i <= 5 && !lead; i++) {
    size_t wl = strlen(w[i - 1]);
    char k[64];
    grammar_key(w[i], k, sizeof k);
    for (size_t j = 0; j < sizeof starts / sizeof *starts && !lead; j++)
      if (!strcmp(k, starts[j]) && wl && w[i - 1][wl - 1] == ',') lead = i;
  }
  if (lead) {
    w += lead, n -= lead;
    grammar_key(w[0], w0, sizeof w0);
    line += w[0] - copy;
  }
  static const char *const asks[] = {"can", "could", "may", "might", "is", "are", "does", "would", "will", "am", "how", "cant", "cannot",
                                     "do", "did", "should", "must", "shall", "was", "were", "has", "have"};
  bool ask = false;
  for (size_t i = 0; i < sizeof asks / sizeof *asks; i++) ask |= !strcmp(w0, asks[i]);
  bool tell = !strcmp(w0, "tell") || !strcmp(w0, "describe") || !strcmp(w0, "quote") || !strcmp(w0, "read") || !strcmp(w0, "look");
  int when = -1; /* `does the guild get paid when atreides ship 2 to arrakeen`: the payee's question is the action's */
  for (int i = 2; i + 1 < n && when < 0; i++) {
    char k[64], kp[64];
    grammar_key(w[i], k, sizeof k);
    grammar_key(w[i - 1], kp, sizeof kp);
    bool passive = !strcmp(kp, "get") || !strcmp(kp, "gets") || !strcmp(kp, "got") || !strcmp(kp, "is") || !strcmp(kp, "are") ||
                   !strcmp(kp, "be") || !strcmp(kp, "been");
    if (!(passive && (!strcmp(k, "paid") || !strcmp(k, "rewarded")))) continue;
    for (int j = i + 1; j < n && when < 0; j++) {
      char kj[64];
      grammar_key(w[j], kj, sizeof kj);
      if (!strcmp(kj, "when") || !strcmp(kj, "if") || !strcmp(kj, "whenever")) when = j;
    }
  }
  strbuf priced = {0};
  if (ask && when >= 0 && when + 1 < n) {
    strbuf clause = {0}, rest = {0};
    for (int j = when + 1; j < n; j++) sb_printf(&rest, "%s%s", rest.n ? " " : "", w[j]);
    repl_question_clause(rest.s, &clause);
    if (clause.n) sb_printf(out, "why %s", clause.s), done = true;
    sb_free(&clause);
    sb_free(&rest);
  }
  bool cost = !done && n && (ask || !strcmp(w0, "why") || !strcmp(w0, "what") || !strcmp(w0, "whats")) && cost_question(R, w, n, &priced);
  if (done) {
  } else if (cost) { /* what an action costs: `why` of the action, whose answer names its cost and rule */
    bool free = false;
    for (int i = 0; i < n; i++) { /* `for free`, `without paying`: a Yes must cost nothing */
      char k[64];
      grammar_key(w[i], k, sizeof k);
      free |= !strcmp(k, "free") || (!strcmp(k, "without") && i + 1 < n && repl_cost_word((grammar_key(w[i + 1], k, sizeof k), k)));
    }
    strbuf clause = {0};
    repl_question_clause(priced.s, &clause);
    if (clause.n) sb_printf(out, "why %s", clause.s), done = true, R->ask_free = free;
    sb_free(&clause);
  } else if (n && (!strcmp(w0, "who") || !strcmp(w0, "whos") || !strcmp(w0, "wholl"))) { /* who wins / who's winning / ... */
    for (int i = 1; i < n && !done; i++) {
      char k[64];
      grammar_key(w[i], k, sizeof k);
      if (!strncmp(k, "win", 3) || !strncmp(k, "won", 3) || !strcmp(k, "ahead") || !strncmp(k, "lead", 4))
        sb_puts(out, "winner"), done = true;
    }
  } else if (n && (!strcmp(w0, "what") || !strcmp(w0, "which") || !strcmp(w0, "whats") || tell)) {
    /* (`tell me about rule 1.06.05`, `describe 2.04.16`, `look up karama`: the same as `what`) */
    for (int i = 1; i < n && !done; i++) { /* a rule named by its number */
      char k[64];
      grammar_key(w[i], k, sizeof k);
      if (R->r && sema_find_rule(&R->r->prog, k) >= 0) sb_printf(out, "explain %s", k), done = true;
    }
    int last = n - 1; /* what can X do [now, right now, this turn, ...]: the words after `do` only say when */
    for (int i = 2; i < n; i++) {
      char k[64];
      grammar_key(w[i], k, sizeof k);
      if (!strcmp(k, "do")) last = i;
    }
    if (!done && n >= 3) { /* what can X do */
      char k1[64], kl[64];
      grammar_key(w[1], k1, sizeof k1);
      grammar_key(w[last], kl, sizeof kl);
      if (!strcmp(k1, "can") && !strcmp(kl, "do") && R->g) {
        sb_puts(out, "legal");
        for (int i = 2; i < last; i++) {
          char k[64];
          grammar_key(w[i], k, sizeof k);
          if (strcmp(k, "the")) sb_printf(out, " %s", k);
        }
        done = true;
      }
    }
    if (!done) { /* what does karama do: the rules about the words that are left */
      static const char *const skip[] = {"what", "which", "whats", "does", "do", "is", "are", "the", "a", "rule", "rules", "say", "says",
                                         "about", "mean", "means", "happen", "happens", "when", "of", "to", "for", "in", "tell",
                                         "me", "us", "describe", "quote", "read", "look", "up", "again", "please"};
      strbuf q = {0};
      for (int i = 0; i < n; i++) {
        char k[64];
        grammar_key(w[i], k, sizeof k);
        bool s = !*k;
        for (size_t j = 0; j < sizeof skip / sizeof *skip && !s; j++) s = !strcmp(k, skip[j]);
        if (!s) sb_printf(&q, " %s", k);
      }
      if (q.n) sb_printf(out, "rules%s", q.s), done = true;
      sb_free(&q);
    }
  } else if (n >= 3 && !strcmp(w0, "how") && how_question(R, w, n, out)) {
    done = true;
  } else if (n && ask && wins_question(R, w, n)) {
    sb_puts(out, "winner"), done = true;
  } else if (n && (ask || !strcmp(w0, "why"))) {
    strbuf clause = {0};
    repl_question_clause(line, &clause);
    if (clause.n) sb_printf(out, "why %s", clause.s), done = true;
    sb_free(&clause);
  }
  sb_free(&priced);
  mt_free(copy);
  return done;
}
