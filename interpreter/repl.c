/* repl.c -- the console: set up a position, drive the game, ask questions.
 *
 * Commands come one per line from a script or stdin ('#' starts a comment).
 * Position edits work on the generic board through the data's names; the
 * console's conveniences use these conventional names of a rule pack: pools
 * `reserves` and `tanks`, variables `spice`, `board_spice`, `bank`, `storm`,
 * `turn`, `ally`, `winners`, `victory`, piles `hand`, `spice_deck`,
 * `spice_discard`, `treachery_deck`, `storm_deck`.  A pack without one of them
 * gets a clear error from the command that needs it.  With --json every
 * command prints exactly one JSON object on one line.
 *
 * Scenario scripts add expectations: `check EXPR` (a rules-language boolean
 * evaluated on the current state), `expect ok`, `expect refused RULE...`,
 * `expect output TEXT`, `expect error`.  The exit status is non-zero when an
 * expectation fails.
 *
 * The console is split by command family: console_edit.c (setting up a
 * position), console_play.c (driving the game, what-if), console_show.c (the
 * position shown, saved, loaded), console_ask.c (questions: why, explain,
 * rules, eval, winner, expectations); this file reads commands, dispatches
 * them, completes and prints.  console.h holds what they share. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "console.h"

#include <ctype.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef MT_HAVE_LIBEDIT
#include <editline/readline.h>
#endif

static void narrate(void *ud, const char *rule, const char *text) {
  repl *R = ud;
  /* a line for some factions only (log for S) is not narrated to another faction's view (view as) */
  uint64_t heard = R->g ? R->g->v.log_audience : 0;
  if (heard && R->viewer >= 0 && !(R->viewer < 64 && heard >> R->viewer & 1u)) return;
  sb_printf(&R->log, "[%s] %s\n", rule, text);
}

/* Told of every rule code the game runs: for `trace` and `why last`. */
static void on_fired(void *ud, int fn) {
  repl *R = ud;
  const program *p = &R->r->prog;
  const func_rec *f = &p->funcs[fn];
  if (f->rule < 0 || R->fired.n > 60000) return;
  const rule_rec *rr = &p->rules[f->rule];
  char line[512];
  snprintf(line, sizeof line, "  %s (%s): %s\n", rr->id, rr->title ? rr->title : "", f->what);
  if (R->fired.s && strstr(R->fired.s, line)) return; /* each rule's code is named once */
  sb_puts(&R->fired, line);
}

/* Makes G the current game.  The console's rule set is always the current
 * game's: a game kept by undo, a branch or a load may be built on rules that
 * an earlier `new` replaced (games hold their rules, so those are alive). */
void repl_attach(repl *R, mt_game *g) {
  if (g->r != R->r) {
    mt_rules *keep = (mt_rules *)(uintptr_t)game_rules_retain(g->r);
    mt_rules_free(R->r);
    R->r = keep;
    R->advanced = keep->advanced;
    snprintf(R->varbuf, sizeof R->varbuf, "%s", keep->variant_list ? keep->variant_list : "");
    snprintf(R->expansion, sizeof R->expansion, "%s", keep->expansion_list ? keep->expansion_list : "");
    R->nvariants = 0;
    for (char *t = strtok(R->varbuf, ","); t && R->nvariants < 32; t = strtok(NULL, ",")) R->variants[R->nvariants++] = t;
  }
  mt_game_set_log(g, narrate, R);
  g->v.fired = on_fired;
  g->v.fired_ud = R;
}

void repl_vsay(repl *R, const char *fmt, va_list ap) { sb_vprintf(&R->out, fmt, ap); }

void repl_message(void *ud, int level, const char *text) {
  (void)level;
  sb_puts(&((repl *)ud)->out, text);
}

/* ---- names ------------------------------------------------------------------ */

int repl_faction_id(repl *R, const char *w) { return board_faction_find(DEF(R), w); }

int repl_suggest_fail(repl *R, const char *what, const char *w, const char *const *c, size_t n) {
  const char *s = diag_suggest(w, c, n);
  return s ? fail(R, "unknown %s '%s' (did you mean '%s'?)", what, w, s) : fail(R, "unknown %s '%s'", what, w);
}

int repl_need_faction(repl *R, const char *w, int *f) {
  *f = repl_faction_id(R, w);
  if (*f >= 0) return 0;
  const char *c[BOARD_MAX_FACTIONS];
  int n = DEF(R)->nfactions < BOARD_MAX_FACTIONS ? DEF(R)->nfactions : BOARD_MAX_FACTIONS;
  for (int i = 0; i < n; i++) c[i] = DEF(R)->factions[i].id;
  return repl_suggest_fail(R, "faction", w, c, (size_t)n);
}

int repl_need_area(repl *R, const char *w, int *a) {
  char low[128];
  *a = board_area_index(DEF(R), board_lower(w, low, sizeof low)); /* Carthag is carthag */
  if (*a >= 0) return 0;
  const char *c[BOARD_MAX_AREAS];
  for (int i = 0; i < DEF(R)->nareas; i++) c[i] = DEF(R)->areas[i].id;
  return repl_suggest_fail(R, "territory", w, c, (size_t)DEF(R)->nareas);
}

int repl_need_card(repl *R, const char *w, int *k) {
  char low[128];
  *k = board_card_index(DEF(R), board_lower(w, low, sizeof low));
  if (*k >= 0) return 0;
  const char **c = mt_calloc((size_t)DEF(R)->ncards + 1, sizeof *c);
  for (int i = 0; i < DEF(R)->ncards; i++) c[i] = DEF(R)->cards[i].id;
  int rc = repl_suggest_fail(R, "card", w, c, (size_t)DEF(R)->ncards);
  mt_free(c);
  return rc;
}

/* A whole decimal number that fits 64 bits (no other check). */
bool repl_parse_int(const char *w, long long *v) {
  char *end;
  errno = 0;
  *v = strtoll(w, &end, 10);
  return *w && !*end && !errno;
}

/* W as a number in LO..HI for WHAT; otherwise the command fails saying which. */
int repl_parse_number(repl *R, const char *what, const char *w, long long lo, long long hi, long long *v) {
  char *end;
  errno = 0;
  long long x = strtoll(w, &end, 10);
  if (!*w || *end) return fail(R, "%s must be a whole number, not '%s'", what, w);
  if (errno == ERANGE || x < lo || x > hi) return fail(R, "%s %s is out of range (%lld..%lld)", what, w, lo, hi);
  *v = x;
  return 0;
}

/* W as an unsigned 64-bit number (seeds: every value simulate prints). */
int repl_parse_u64(repl *R, const char *what, const char *w, unsigned long long *v) {
  char *end;
  errno = 0;
  if (!*w || *w == '-' || *w == '+') return fail(R, "%s must be a whole number from 0 to %llu, not '%s'", what, (unsigned long long)UINT64_MAX, w);
  unsigned long long x = strtoull(w, &end, 10);
  if (*end) return fail(R, "%s must be a whole number from 0 to %llu, not '%s'", what, (unsigned long long)UINT64_MAX, w);
  if (errno == ERANGE) return fail(R, "%s %s is out of range (0..%llu)", what, w, (unsigned long long)UINT64_MAX);
  *v = x;
  return 0;
}

static int need_game(repl *R) {
  if (R->g) return 0;
  return fail(R, "no game: start one with 'new'");
}

/* The section of territory A named by an optional sector word. */
int repl_section_arg(repl *R, int a, const char *w, int *sec) {
  const board_area *ar = &DEF(R)->areas[a];
  if (!w) {
    if (ar->nsections == 1) return *sec = ar->first_section, 0;
    strbuf b = {0};
    for (int i = 0; i < ar->nsections; i++) sb_printf(&b, "%s%d", i ? ", " : "", DEF(R)->sections[ar->first_section + i].sector);
    fail(R, "%s spans several sectors (%s): name one", ar->id, b.s);
    sb_free(&b);
    return -1;
  }
  long long s;
  if (!repl_parse_int(w, &s)) return fail(R, "'%s' is not a sector number", w);
  if (s < INT32_MIN || s > INT32_MAX) return fail(R, "%s does not lie in sector %lld", ar->id, s);
  *sec = board_section_of(DEF(R), a, (int)s);
  if (*sec < 0) return fail(R, "%s does not lie in sector %lld", ar->id, s);
  return 0;
}

int repl_var_of(repl *R, const char *name) {
  int v = -1;
  for (int i = 0; i < R->g->L->nvars; i++)
    if (!strcmp(R->g->L->vars[i].name, name)) v = i;
  if (v < 0) fail(R, "this rule pack has no variable '%s'", name);
  return v;
}

int repl_pool_of(repl *R, const char *name) {
  int p = board_pool_index(DEF(R), name);
  if (p < 0) fail(R, "this rule pack has no pool '%s'", name);
  return p;
}

int repl_pile_of(repl *R, const char *name) {
  int p = board_pile_index(DEF(R), name);
  if (p < 0) fail(R, "this rule pack has no pile '%s'", name);
  return p;
}

static const char *const help_text[][2] = {
    {"new", "new [factions=a,b] [expansion=NAME[,NAME]|none] [ruleset=basic|advanced] [variants=a,b] [seed=N] [turns=N] -- a new game at the start position"},
    {"clear", "clear FACTION|all -- forces on the board go back to reserves"},
    {"put", "put FACTION N [KIND] TERRITORY [SECTOR] -- forces from reserves (then tanks) onto the map"},
    {"tanks", "tanks FACTION N [KIND] -- set the tanks to N (balancing with reserves)"},
    {"reserves", "reserves FACTION N [KIND] -- set the reserves to N (balancing with the tanks)"},
    {"spice", "spice FACTION N | spice TERRITORY N [SECTOR] -- spice behind a shield or on the map (the bank balances)"},
    {"give", "give FACTION CARD... [into PILE] -- cards into a hand (or another pile of the faction, e.g. traitors)"},
    {"set", "set VAR(ARGS) = EXPR -- any variable of the data or the rules (e.g. set seat(fremen) = 2, set front_of_shield(atreides) = 3)"},
    {"leader", "leader LEADER STATUS -- a leader's status (e.g. leader stilgar tanks_face_up)"},
    {"hand", "hand FACTION CARD... -- set a hand exactly"},
    {"discard", "discard spice|PILE CARD... -- onto the spice discard pile (or the global pile named), the last on top"},
    {"stack", "stack spice|treachery|storm|PILE CARD... -- on top of a deck (or the global pile named), the first named drawn first"},
    {"storm", "storm SECTOR -- move the storm marker"},
    {"turn", "turn N -- set the turn marker"},
    {"phase", "phase ID -- position the game at the start of a phase of this turn (name or rule number)"},
    {"ally", "ally F1 F2 -- form an alliance"},
    {"unally", "unally F -- break F's alliance"},
    {"bots", "bots random|uniform|passive|heuristic|search -- how decisions are answered by run (heuristic: greedy on the rules' bot_value; search: playouts of it)"},
    {"show", "show [state|faction F|territory T|board [--svg FILE]] -- the position"},
    {"legal", "legal [FACTION] [ACTION|VERB] -- the pending decision and its legal answers; positioned at a phase (or another faction's turn), each faction's options when its turn comes (passive policy); filtered by faction and action"},
    {"do", "do CHOICE -- answer the pending decision (e.g. do ship fremen ... / do yes / do 3)"},
    {"offer", "offer ACTION ARGS -- an any-time action (a bribe, a deal) taken now if its rules allow it; the pending decision stays"},
    {"why", "why CHOICE -- legal or not now, and which rules decide, with the facts; why last -- the rules the last step ran"},
    {"explain", "explain RULE-ID [--bytecode] -- a rule: links both ways, hooks, where it is defined"},
    {"rules", "rules QUERY -- search the rules: number prefix, keywords, faction F, card C, hooks NAME, karama, basic, advanced, phase ID"},
    {"run", "run [step|phase|turn|game] -- play on, bots answering"},
    {"winner", "winner -- who would win if this turn's Mentat Pause were resolved now"},
    {"eval", "eval EXPR -- an expression of the rules language on the current state"},
    {"check", "check EXPR -- an expectation: EXPR must be true"},
    {"expect", "expect ok|error [TEXT]|refused RULE...|output TEXT -- an expectation about the previous command"},
    {"trace", "trace on|off -- print every rule that fires while the game runs"},
    {"undo", "undo -- back to the state before the last change (it says which command that was)"},
    {"redo", "redo -- the change undo took back, again"},
    {"branches", "branches -- the branches kept by fork (the current one marked *; the first is main)"},
    {"quit", "quit (or exit) -- end the session"},
    {"fork", "fork NAME -- keep a copy of this position as a branch"},
    {"switch", "switch NAME -- go to a branch (the current position stays on its branch)"},
    {"save", "save FILE -- the position as YAML"},
    {"load", "load FILE -- a saved position"},
    {"view", "view as FACTION|all -- the position as that faction may see it: others' secret spice and hands redacted (1.11)"},
    {"verify", "verify can|always EXPR [by turn T | within N decisions | this phase] [--for F,G] [--others passive|random|heuristic] [--ints all|ends] [--order heuristic|list] [--max-positions N] [--max-seconds S] [--jobs N] [--keep-order] [--json] -- can a position where EXPR holds (can) or fails (always) be reached from here, over every legal decision and every outcome of the random draws? A witness line to replay, or no within the bounds (docs/verify.md)"},
    {"chance", "chance on [--keep-order] | off | OUTCOME... -- chance as choice: with it on, a shuffle leaves the pile's order "
               "undecided and you say which card comes up, which number random(n) gives, which member random_member takes. "
               "'chance on' also forgets the order of the face-down decks (not with --keep-order); 'chance W1 W2 ...' queues "
               "outcomes for the next command that runs the game (run, do, phase, ...), taken in the order the rules draw; "
               "a command that draws with no outcome left fails, changing nothing, and lists the possible outcomes; "
               "'chance' alone: on or off, the outcomes queued, the undecided piles"},
    {"stop", "stop [phase | turn N | off] -- where the game pauses while it runs (do, run): at the end of this phase (or the next to begin), as turn N is over, or only at decisions; alone: the stop in force"},
    {"help", "help [COMMAND]"},
};

/* help ACTION (or a verb: a kind of action): each action's parameters with their types and
 * domains, its rule, the verbs it answers to, and an example -- one of its legal answers now
 * when the pending decision offers it. */
static bool help_action(repl *R, const char *w) {
  if (!R->r) return false;
  const program *p = &R->r->prog;
  int shown = 0;
  for (int a = 0; a < p->nactions; a++) {
    const action_rec *ar = &p->actions[a];
    bool m = !strcmp(ar->name, w);
    for (int k = 0; k < ar->nkinds && !m; k++) m = !strcmp(ar->kinds[k], w);
    if (!m) continue;
    const rule_rec *rr = &p->rules[ar->rule];
    if (shown++) say(R, "\n\n");
    say(R, "%s", ar->name);
    for (int i = 0; i < ar->nparams; i++) {
      char tn[32];
      say(R, " %s:%s", ar->pname[i], sema_type_name(ar->ptype[i], tn, sizeof tn));
    }
    say(R, "\n  rule %s: %s%s", rr->id, rr->title ? rr->title : "", rr->disabled ? " (not in force in this rule set)" : "");
    if (ar->nkinds) {
      say(R, "\n  is:");
      for (int k = 0; k < ar->nkinds; k++) say(R, " %s", ar->kinds[k]);
    }
    for (int i = 1; i < ar->nparams; i++) {
      const node *dom = ar->pdomain[i];
      if (!dom) continue;
      size_t len;
      const char *src = diag_source_text(R->r->d, dom->span.file, &len);
      mt_span sp = dom->span;
      if (dom->kind == AST_RANGE) sp = ast_join(ast_join(sp, dom->kids[0]->span), dom->kids[1]->span);
      say(R, "\n  %s in %.*s", ar->pname[i], (int)(sp.end - sp.start), src + sp.start);
    }
    if (R->g && mt_pending(R->g) && R->g->v.vs->dec.kind == DEC_ACT) {
      static mt_choice buf[4096];
      size_t n = mt_legal(R->g, buf, 4096);
      for (size_t i = 0; i < n && i < 4096; i++)
        if (buf[i].action == a) {
          char text[512];
          mt_choice_format(R->g, &buf[i], text, sizeof text);
          say(R, "\n  e.g. (legal now) %s", text);
          break;
        }
    }
  }
  return shown > 0;
}

static int cmd_help(repl *R, int argc, char **argv) {
  size_t n = sizeof help_text / sizeof *help_text;
  if (argc > 1) {
    char low[128];
    const char *w = board_lower(argv[1], low, sizeof low); /* `help Ship` */
    for (size_t i = 0; i < n; i++)
      if (!strcmp(help_text[i][0], w)) {
        say(R, "%s", help_text[i][1]);
        return 0;
      }
    if (help_action(R, w)) return 0;
    const char *c[512];
    size_t nc = 0;
    for (size_t i = 0; i < n && nc < 512; i++) c[nc++] = help_text[i][0];
    for (int a = 0; R->r && a < R->r->prog.nactions && nc < 512; a++) c[nc++] = R->r->prog.actions[a].name;
    return repl_suggest_fail(R, "command or action", argv[1], c, nc);
  }
  say(R, "commands (help COMMAND for one; docs/console.md for all):\n");
  for (size_t i = 0; i < n; i++) say(R, "  %s\n", help_text[i][1]);
  return 0;
}

static int run_command(repl *R, const char *cmd, int argc, char **argv, const char *rest);
typedef struct command {
  const char *cmd;
  int argc;
  char **argv;
  const char *rest;
} command;
static int run_changing(repl *R, void *ctx);

#define MAX_WORDS 1024 /* words in one command */

static int dispatch_words(repl *R, char *line, char *copy, char **argv, int prev_ok);
static int dispatch_command(repl *R, char *line, int argc, char **argv, int prev_ok, bool too_many, const char *pending);

static int dispatch(repl *R, char *line, int prev_ok) {
  char *copy = mt_strdup(line);
  char **argv = mt_calloc(MAX_WORDS + 1, sizeof *argv);
  int rc = dispatch_words(R, line, copy, argv, prev_ok);
  if (argv[0]) repl_chance_replaced(R, argv[0]);
  mt_free(argv);
  mt_free(copy);
  return rc;
}

static int dispatch_words(repl *R, char *line, char *copy, char **argv, int prev_ok) {
  int argc = 0;
  R->cmd_line = line;
  bool too_many = false;
  for (char *t = strtok(copy, " \t"); t; t = strtok(NULL, " \t")) {
    if (argc == MAX_WORDS) {
      too_many = true;
      break;
    }
    argv[argc++] = t;
  }
  if (!argc) return 0;
  /* outcomes queued by `chance W...` belong to the witness history only with the command that used them */
  char *pending = R->origin_pending;
  R->origin_pending = NULL;
  int rc = dispatch_command(R, line, argc, argv, prev_ok, too_many, pending);
  mt_free(pending);
  return rc;
}

static int dispatch_command(repl *R, char *line, int argc, char **argv, int prev_ok, bool too_many, const char *pending) {
  const char *cmd = argv[0];
  /* commands that read their text as an expression or an action take any length */
  static const char *const textual[] = {"set", "eval", "check", "why", "do", "offer", "expect"};
  bool is_text = false;
  for (size_t i = 0; i < sizeof textual / sizeof *textual; i++) is_text |= !strcmp(cmd, textual[i]);
  if (too_many && !is_text) return fail(R, "a command has at most %d words", MAX_WORDS);
  const char *rest = line + strlen(cmd);
  while (*rest == ' ' || *rest == '\t') rest++;
  if (!strcmp(cmd, "expect")) return repl_cmd_expect(R, argc, argv, line, prev_ok);
  if (!strcmp(cmd, "new") || !strcmp(cmd, "load")) { /* a position the witness of verify can start from */
    int rc = !strcmp(cmd, "new") ? repl_cmd_new(R, argc, argv) : repl_cmd_load(R, argc, argv);
    if (rc == 0) repl_origin_reset(R, line);
    return rc;
  }
  if (!strcmp(cmd, "trace")) {
    if (argc != 2 || (strcmp(argv[1], "on") && strcmp(argv[1], "off"))) return fail(R, "usage: trace on|off");
    R->trace = !strcmp(argv[1], "on");
    say(R, "trace %s", argv[1]);
    return 0;
  }
  if (!strcmp(cmd, "explain")) return repl_cmd_explain(R, argc, argv);
  if (!strcmp(cmd, "rules")) return repl_cmd_rules_query(R, argc, argv);
  if (!strcmp(cmd, "bots")) {
    if (argc != 2 || bot_kind_parse(argv[1]) < 0) return fail(R, "usage: bots random|uniform|passive|heuristic|search");
    R->bots = bot_kind_parse(argv[1]);
    say(R, "bots: %s", argv[1]);
    return 0;
  }
  static const char *const cmds[] = {"new", "clear", "put", "tanks", "reserves", "spice", "give", "storm", "turn",
                                     "phase", "ally", "unally", "hand", "discard", "stack", "bots", "show", "legal",
                                     "do", "run", "winner", "check", "eval", "expect", "help", "load", "save", "why", "explain", "rules",
                                     "trace", "undo", "redo", "fork", "switch", "set", "leader", "view", "offer",
                                     "branches", "quit", "exit", "verify", "chance", "stop"};
  bool known = false;
  for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) known |= !strcmp(cmds[i], cmd);
  size_t ll = strlen(line);
  while (ll && isspace((unsigned char)line[ll - 1])) ll--;
  if (known && !strcmp(cmd, "do") && ll && line[ll - 1] == '?') known = false; /* `do the fremen get 3 back?`: a question */
  if (!known) { /* a question in players' words, or a command in capitals */
    strbuf q = {0};
    if (repl_question(R, line, &q)) {
      say(R, "(read as: %s)\n", q.s);
      int rc = dispatch(R, q.s, prev_ok);
      sb_free(&q);
      return rc;
    }
    const char *s = diag_suggest(cmd, cmds, sizeof cmds / sizeof *cmds);
    return s ? fail(R, "unknown command '%s' (did you mean '%s'?)", cmd, s) : fail(R, "unknown command '%s'", cmd);
  }
  if (!strcmp(cmd, "help")) return cmd_help(R, argc, argv);
  if (!strcmp(cmd, "quit") || !strcmp(cmd, "exit")) {
    R->quit = true;
    return 0;
  }
  if (need_game(R) < 0) return -1;
  if (!strcmp(cmd, "branches")) return repl_cmd_branches(R);
  if (!strcmp(cmd, "verify")) { /* a question: like the others, it drops outcomes queued for a command */
    int rc = repl_cmd_verify(R, argc, argv);
    repl_chance_forget_queue(R);
    return rc;
  }
  if (!strcmp(cmd, "undo") || !strcmp(cmd, "redo") || !strcmp(cmd, "switch")) repl_origin_reset(R, NULL);
  if (!strcmp(cmd, "undo")) return repl_cmd_undo(R, false);
  if (!strcmp(cmd, "redo")) return repl_cmd_undo(R, true);
  if (!strcmp(cmd, "fork") || !strcmp(cmd, "switch")) return repl_cmd_branch(R, argc, argv);
  if (!strcmp(cmd, "chance")) {
    int rc = repl_cmd_chance(R, argc, argv);
    if (rc == 0 && argc > 1 && (!strcmp(argv[1], "on") || !strcmp(argv[1], "off"))) repl_origin_add(R, line);
    else if (rc == 0 && argc > 1) R->origin_pending = mt_strdup(line); /* kept if the command it serves succeeds */
    return rc;
  }
  static const char *const changing[] = {"clear", "put", "tanks", "reserves", "spice", "give", "hand", "discard", "stack",
                                         "storm", "turn", "phase", "ally", "unally", "do", "run", "set", "leader", "offer", "stop"};
  bool changes = false;
  for (size_t i = 0; i < sizeof changing / sizeof *changing; i++) changes |= !strcmp(cmd, changing[i]);
  if (!changes) return repl_chance_query_done(R, run_command(R, cmd, argc, argv, rest));
  /* a command that changes the game keeps the state before it for undo, and a
   * failed one puts it back: whatever it did before failing is undone */
  mt_game *before = mt_clone(R->g);
  uint64_t bot_rng = R->bot_rng; /* the bots' generator is put back too */
  command c = {cmd, argc, argv, rest};
  int rc = repl_chance_retry(R, before, bot_rng, run_changing, &c); /* run again for each outcome chance needs */
  if (rc >= 0 && mt_stop_requested) rc = fail(R, "interrupted (Ctrl-C): the game is put back as it was before this command");
  if (rc >= 0) {
    static const char *const edits[] = {"clear", "put", "tanks", "reserves", "spice", "give", "hand", "discard", "stack",
                                        "storm", "turn", "ally", "unally", "set", "leader"};
    for (size_t i = 0; i < sizeof edits / sizeof *edits; i++)
      if (!strcmp(cmd, edits[i])) rc = repl_edit_settle(R, before); /* what the edit implies, or refused */
  }
  if (rc < 0) {
    mt_game_free(R->g);
    R->g = before;
    R->bot_rng = bot_rng;
    repl_attach(R, before);
  } else {
    repl_remember(R, before);
    if (pending) repl_origin_add(R, pending);
    repl_origin_add(R, line);
  }
  return rc;
}

/* A command that changes the game, for repl_chance_retry to run (again). */
static int run_changing(repl *R, void *ctx) {
  const command *c = ctx;
  return run_command(R, c->cmd, c->argc, c->argv, c->rest);
}

/* Runs a command that needs a game. */
static int run_command(repl *R, const char *cmd, int argc, char **argv, const char *rest) {
  if (!strcmp(cmd, "clear")) return repl_cmd_clear(R, argc, argv);
  if (!strcmp(cmd, "put")) return repl_cmd_put(R, argc, argv);
  if (!strcmp(cmd, "tanks") || !strcmp(cmd, "reserves")) return repl_cmd_pool(R, argc, argv);
  if (!strcmp(cmd, "spice")) return repl_cmd_spice(R, argc, argv);
  if (!strcmp(cmd, "give")) return repl_cmd_give(R, argc, argv, false);
  if (!strcmp(cmd, "hand")) return repl_cmd_give(R, argc, argv, true);
  if (!strcmp(cmd, "discard")) return repl_cmd_stack(R, argc, argv, true);
  if (!strcmp(cmd, "stack")) return repl_cmd_stack(R, argc, argv, false);
  if (!strcmp(cmd, "storm") || !strcmp(cmd, "turn")) return repl_cmd_setmarker(R, argc, argv);
  if (!strcmp(cmd, "phase")) return repl_cmd_phase(R, argc, argv);
  if (!strcmp(cmd, "ally") || !strcmp(cmd, "unally")) return repl_cmd_ally(R, argc, argv);
  if (!strcmp(cmd, "show")) return repl_cmd_show(R, argc, argv);
  if (!strcmp(cmd, "legal")) return repl_cmd_legal(R, argc, argv);
  if (!strcmp(cmd, "do")) return repl_cmd_do(R, rest);
  if (!strcmp(cmd, "run")) return repl_cmd_run(R, argc, argv);
  if (!strcmp(cmd, "winner")) return repl_cmd_winner(R);
  if (!strcmp(cmd, "save")) return repl_cmd_save(R, argc, argv);
  if (!strcmp(cmd, "set")) return repl_cmd_set(R, rest);
  if (!strcmp(cmd, "leader")) return repl_cmd_leader(R, argc, argv);
  if (!strcmp(cmd, "why")) return repl_cmd_why(R, rest);
  if (!strcmp(cmd, "offer")) return repl_cmd_offer(R, rest);
  if (!strcmp(cmd, "stop")) return repl_cmd_stop(R, argc, argv);
  if (!strcmp(cmd, "view")) return repl_cmd_view(R, argc, argv);
  if (!strcmp(cmd, "check")) return repl_cmd_eval(R, rest, true);
  return repl_cmd_eval(R, rest, false);
}

static bool colour(FILE *out) { return isatty(fileno(out)) && !getenv("NO_COLOR"); }

/* Under a failed command, a caret under the word its message quotes. */
static void caret(repl *R, const char *line, FILE *out) {
  const char *msg = R->out.s ? R->out.s : "";
  const char *q = strchr(msg, '\'');
  if (!q) return;
  const char *e = strchr(q + 1, '\'');
  if (!e || e == q + 1) return;
  size_t len = (size_t)(e - q - 1);
  for (const char *w = line; *w; w++)
    if (!strncmp(w, q + 1, len) && (w == line || w[-1] == ' ') && (w[len] == ' ' || !w[len])) {
      fprintf(out, "  %s\n  %*s^", line, (int)(w - line), "");
      for (size_t i = 1; i < len; i++) fputc('~', out);
      fputc('\n', out);
      return;
    }
}

static void emit(repl *R, FILE *out) {
  if (R->quiet_start && R->ok && R->cmd_line && strncmp(R->cmd_line, "verify", 6)) return; /* mentat verify: its answer only */
  if (R->json) {
    strbuf j = {0};
    sb_printf(&j, "{\"ok\":%s", R->ok ? "true" : "false");
    if (!R->ok) {
      sb_puts(&j, ",\"error\":");
      sb_json_str(&j, R->out.s ? R->out.s : "");
      sb_puts(&j, ",\"rules\":[");
      for (int i = 0; i < R->nrefused; i++) sb_printf(&j, "%s\"%s\"", i ? "," : "", R->refused_rules[i]);
      sb_puts(&j, "]");
    } else if (!R->jtext) {
      sb_puts(&j, ",\"text\":");
      sb_json_str(&j, R->out.s ? R->out.s : "");
    }
    if (R->log.n) {
      sb_puts(&j, ",\"log\":");
      sb_json_str(&j, R->log.s);
    }
    if (R->jextra.s) sb_puts(&j, R->jextra.s);
    sb_puts(&j, "}\n");
    fputs(j.s, out);
    sb_free(&j);
  } else {
    if (R->log.n) fputs(R->log.s, out);
    bool c = colour(out) && !R->file;
    if (R->out.n)
      fprintf(out, "%s%s%s%s\n", c && !R->ok ? "\033[31m" : "", R->ok ? "" : (R->file ? "" : "error: "), R->out.s,
              c && !R->ok ? "\033[0m" : "");
  }
}

#ifdef MT_HAVE_LIBEDIT
static repl *completing;

/* Candidates for tab completion: commands, then ids and rule numbers. */
/* Completion by context: the words typed before the one being completed say what may come:
 * a command first; after why/do/help an action or a verb, then values of the type of the
 * parameter at that place; after a faction command, factions then territories; after
 * explain/rules, rule numbers; after phase, phase names.  Each candidate once. */
static const char *const cmd_words[] = {"new", "clear", "put", "tanks", "reserves", "spice", "give", "hand", "discard",
                                        "stack", "storm", "turn", "phase", "ally", "unally", "bots", "show", "legal", "do",
                                        "why", "explain", "rules", "run", "winner", "eval", "check", "expect", "trace",
                                        "undo", "redo", "fork", "switch", "branches", "save", "load", "help", "quit", "exit",
                                        "view", "offer", "set", "leader", "verify", "chance", "stop"};
static const char **cands;
static size_t ncands, capcands;

static void cand_add(const char *c) {
  for (size_t i = 0; i < ncands; i++)
    if (!strcmp(cands[i], c)) return;
  VEC_PUSH(cands, ncands, capcands, c);
}

static void cand_type(const board_def *def, const program *p, int ty) {
  switch (ty) {
  case TY_FACTION:
    for (int i = 0; i < def->nfactions; i++) {
      cand_add(def->factions[i].id);
      for (int k = 0; k < def->factions[i].naliases; k++) cand_add(def->factions[i].aliases[k]);
    }
    break;
  case TY_TERRITORY:
    for (int i = 0; i < def->nareas; i++) cand_add(def->areas[i].id);
    break;
  case TY_CARD:
    for (int i = 0; i < def->ncards; i++) cand_add(def->cards[i].id);
    break;
  case TY_LEADER:
    for (int i = 0; i < def->nleaders; i++) cand_add(def->leaders[i].id);
    break;
  case TY_RULE:
    for (int i = 0; i < p->nrules; i++) cand_add(p->rules[i].id);
    break;
  default: break;
  }
}

static void build_candidates(repl *R, const char *line, int start) {
  ncands = 0;
  char buf[1024];
  snprintf(buf, sizeof buf, "%.*s", start < (int)sizeof buf ? start : (int)sizeof buf - 1, line);
  char *w[64];
  int nw = 0;
  for (char *t = strtok(buf, " \t"); t && nw < 64; t = strtok(NULL, " \t")) w[nw++] = t;
  if (nw == 0) {
    for (size_t i = 0; i < sizeof cmd_words / sizeof *cmd_words; i++) cand_add(cmd_words[i]);
    return;
  }
  const board_def *def = R && R->r ? R->r->def : NULL;
  const program *p = R && R->r ? &R->r->prog : NULL;
  if (!def) return;
  const char *c = w[0];
  if (!strcmp(c, "why") || !strcmp(c, "do") || !strcmp(c, "help") || !strcmp(c, "legal") || !strcmp(c, "offer")) {
    if (nw == 1) {
      for (int a = 0; a < p->nactions; a++) {
        cand_add(p->actions[a].name);
        for (int k = 0; k < p->actions[a].nkinds; k++) cand_add(p->actions[a].kinds[k]);
      }
      if (!strcmp(c, "legal")) cand_type(def, p, TY_FACTION);
      return;
    }
    for (int a = 0; a < p->nactions; a++) { /* the parameter at this place, of each action the word names */
      const action_rec *ar = &p->actions[a];
      bool m = !strcmp(ar->name, w[1]);
      for (int k = 0; k < ar->nkinds && !m; k++) m = !strcmp(ar->kinds[k], w[1]);
      if (m && nw - 2 < ar->nparams) cand_type(def, p, ar->ptype[nw - 2]);
    }
    return;
  }
  if (!strcmp(c, "explain") || !strcmp(c, "rules") || !strcmp(c, "disasm")) {
    cand_type(def, p, TY_RULE);
    return;
  }
  if (!strcmp(c, "phase")) {
    for (int i = 0; i < p->nrules; i++)
      if (p->rules[i].form == RF_PHASE && p->rules[i].name) cand_add(p->rules[i].name);
    return;
  }
  if (!strcmp(c, "put") || !strcmp(c, "spice") || !strcmp(c, "tanks") || !strcmp(c, "reserves") || !strcmp(c, "give") ||
      !strcmp(c, "hand") || !strcmp(c, "ally") || !strcmp(c, "unally") || !strcmp(c, "clear")) {
    if (nw == 1 || !strcmp(c, "ally")) cand_type(def, p, TY_FACTION);
    else if (!strcmp(c, "give") || !strcmp(c, "hand")) cand_type(def, p, TY_CARD);
    else {
      for (int k = 0; k < def->nkinds; k++) cand_add(def->kinds[k]);
      cand_type(def, p, TY_TERRITORY);
    }
    return;
  }
  if (!strcmp(c, "show")) {
    static const char *const what[] = {"state", "faction", "territory", "board"};
    if (nw == 1) for (size_t i = 0; i < 4; i++) cand_add(what[i]);
    else cand_type(def, p, !strcmp(w[1], "faction") ? TY_FACTION : TY_TERRITORY);
    return;
  }
  if (!strcmp(c, "chance")) { /* on, off, or outcomes: cards, factions, numbers */
    if (nw == 2 && !strcmp(w[1], "on")) cand_add("--keep-order");
    if (nw == 1) cand_add("on"), cand_add("off");
    if (nw == 1 || strcmp(w[1], "on")) cand_type(def, p, TY_FACTION), cand_type(def, p, TY_CARD);
    return;
  }
  if (!strcmp(c, "run")) {
    static const char *const what[] = {"step", "phase", "turn", "game"};
    for (size_t i = 0; i < 4; i++) cand_add(what[i]);
    return;
  }
  cand_type(def, p, TY_FACTION);
  cand_type(def, p, TY_TERRITORY);
  cand_type(def, p, TY_CARD);
}

static char *complete_word(const char *text, int state) {
  static size_t i;
  if (!state) i = 0;
  size_t n = strlen(text);
  while (i < ncands) {
    const char *c = cands[i++];
    if (!strncmp(c, text, n)) return strdup(c);
  }
  return NULL;
}

static char **complete(const char *text, int start, int end) {
  (void)end;
  build_candidates(completing, rl_line_buffer, start);
  rl_attempted_completion_over = 1; /* these candidates only, not file names */
  return rl_completion_matches(text, complete_word);
}
#endif

/* Brackets still open in LINE: the command continues on the next line.  An
 * `expect` line is text to find, never continued. */
static int open_brackets(const char *line) {
  while (*line == ' ' || *line == '\t') line++;
  if (!strncmp(line, "expect", 6) && (line[6] == ' ' || line[6] == '\t')) return 0;
  int depth = 0;
  for (const char *p = line; *p && *p != '#'; p++) depth += (*p == '(' || *p == '[' || *p == '{') - (*p == ')' || *p == ']' || *p == '}');
  return depth;
}

#define MAX_LINE 65536 /* bytes in one command, continuation lines included */

/* Reads one physical line of any length into B (appending); false at end of input. */
static bool read_line(FILE *in, strbuf *b) {
  char chunk[4096];
  bool any = false;
  while (fgets(chunk, sizeof chunk, in)) {
    any = true;
    size_t k = strlen(chunk);
    sb_putn(b, chunk, k);
    if (k && chunk[k - 1] == '\n') break;
  }
  return any;
}

/* Reads the next command into CMD: a line, joined with the lines that follow
 * while brackets are open.  1: a command; -1: a command longer than MAX_LINE
 * (read to its end and refused whole); 0: end of input.  R->line counts the
 * lines read. */
/* Ctrl-C at the prompt cancels the line being typed, never the session. */
static volatile sig_atomic_t interrupted;
static void on_interrupt(int sig) {
  (void)sig;
  interrupted = 1;
  mt_stop_requested = 1; /* a command running stops (util.h); at the prompt it is reset before the next */
}

static int read_command(repl *R, FILE *in, bool interactive, strbuf *cmd) {
  sb_free(cmd);
  sb_puts(cmd, "");
  bool any = false;
#ifdef MT_HAVE_LIBEDIT
  if (interactive) {
    for (;;) {
      interrupted = 0;
      char *l = readline(any ? "   ...> " : "mentat> ");
      if (!l && interrupted) { /* the line is dropped; a new prompt follows */
        fputs("^C\n", stdout);
        sb_free(cmd);
        sb_puts(cmd, "");
        any = false;
        continue;
      }
      if (!l) break;
      if (interrupted) { /* an editor that returned the line typed so far: drop it too */
        free(l);
        fputs("^C\n", stdout);
        sb_free(cmd);
        sb_puts(cmd, "");
        any = false;
        continue;
      }
      if (any) sb_putc(cmd, ' ');
      sb_puts(cmd, l);
      free(l);
      any = true;
      R->line++;
      if (cmd->n > MAX_LINE || open_brackets(cmd->s) <= 0) break;
    }
    if (any && cmd->n && cmd->n <= MAX_LINE) add_history(cmd->s);
    return !any ? 0 : cmd->n > MAX_LINE ? -1 : 1;
  }
#else
  if (interactive) {
    fputs("mentat> ", stdout);
    fflush(stdout);
  }
#endif
  for (;;) {
    size_t start = cmd->n;
    if (!read_line(in, cmd)) break;
    any = true;
    R->line++;
    while (cmd->n > start && (cmd->s[cmd->n - 1] == '\n' || cmd->s[cmd->n - 1] == '\r')) cmd->s[--cmd->n] = 0;
    if (cmd->n > MAX_LINE || open_brackets(cmd->s) <= 0) break;
    sb_putc(cmd, ' ');
  }
  return !any ? 0 : cmd->n > MAX_LINE ? -1 : 1;
}

int repl_main(int argc, char **argv, const char *default_pack) {
  repl_options o = {.pack = default_pack};
  const char *variants[32], *packs[32], *allow[32];
  const char *script = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--json")) o.json = true;
    else if ((!strcmp(argv[i], "--components") || !strcmp(argv[i], "--rules")) && i + 1 < argc) o.pack = argv[++i];
    else if (!strcmp(argv[i], "--pack") && i + 1 < argc) {
      if (o.npacks == 32) return fprintf(stderr, "mentat repl: at most 32 --pack options\n"), 64;
      strbuf why = {0};
      int bad = pack_dir_ok(argv[++i], &why);
      if (bad) fprintf(stderr, "mentat: error: %s\n", why.s);
      sb_free(&why);
      if (bad) return 74;
      packs[o.npacks++] = argv[i];
    } else if (!strcmp(argv[i], "--variant") && i + 1 < argc) {
      if (o.nvariants == 32) return fprintf(stderr, "mentat repl: at most 32 --variant options\n"), 64;
      variants[o.nvariants++] = argv[++i];
    } else if (!strcmp(argv[i], "--allow-write") && i + 1 < argc) {
      if (o.nallow_write == 32) return fprintf(stderr, "mentat repl: at most 32 --allow-write options\n"), 64;
      char real[PATH_MAX];
      if (!realpath(argv[++i], real))
        return fprintf(stderr, "mentat repl: --allow-write '%s': %s\n", argv[i], strerror(errno)), 64;
      allow[o.nallow_write++] = argv[i];
    } else if (!strcmp(argv[i], "--advanced")) {
      o.advanced = true;
    } else if (!strcmp(argv[i], "--ruleset")) {
      int rs = i + 1 < argc ? mt_ruleset_parse(argv[++i]) : -1;
      if (rs < 0) return fprintf(stderr, "mentat repl: --ruleset is basic or advanced\n"), 64;
      o.advanced = rs == 1;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "mentat repl: unknown option '%s'\n", argv[i]);
      return 64;
    } else script = argv[i];
  }
  o.variants = variants;
  o.packs = packs;
  o.allow_write = allow;
  /* a script, from a file or piped, is confined; the person at a terminal is not */
  o.confine = script || !isatty(0);
  o.own_file = script && strcmp(script, "-") ? script : NULL;
  /* `-`, or standard input that is not a terminal, is a script like a file: its failures make
   * the exit status, and `expect error` may follow a failing line (it is read whole, so the
   * console can look one line ahead) */
  char *piped = NULL;
  FILE *in;
  if ((script && !strcmp(script, "-")) || (!script && !isatty(0))) {
    strbuf all = {0};
    char chunk[65536];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, stdin)) > 0) {
      if (all.n + got > (size_t)64 << 20) return fprintf(stderr, "mentat repl: standard input is longer than 64 MiB\n"), 74;
      sb_printf(&all, "%.*s", (int)got, chunk);
    }
    piped = all.s ? all.s : mt_strdup("");
    in = fmemopen(piped, strlen(piped), "r");
    script = "<stdin>";
    if (!in) return fprintf(stderr, "mentat repl: cannot read standard input: %s\n", strerror(errno)), mt_free(piped), 74;
  } else {
    in = script ? fopen(script, "r") : stdin;
  }
  if (!in) {
    fprintf(stderr, "mentat repl: cannot open '%s': %s\n", script, strerror(errno));
    return 74;
  }
  int rc = repl_run(in, stdout, script, &o);
  if (in != stdin) fclose(in);
  mt_free(piped);
  return rc;
}

/* What a script may write (docs/console.md): under the current directory,
 * the script's own directory, and each --allow-write PATH, all by their real
 * paths (so neither `..` nor a symbolic link leads out).  A place that does
 * not exist is left out: nothing can be written there anyway. */
static void set_write_roots(repl *R, const repl_options *o) {
  R->confine = true;
  char real[PATH_MAX];
  if (realpath(".", real)) R->write_roots[R->nwrite_roots++] = mt_strdup(real);
  if (o->own_file) {
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", o->own_file);
    char *slash = strrchr(dir, '/');
    if (slash) *(slash == dir ? slash + 1 : slash) = 0;
    else snprintf(dir, sizeof dir, ".");
    if (realpath(dir, real)) R->write_roots[R->nwrite_roots++] = mt_strdup(real);
  }
  for (int i = 0; i < o->nallow_write && R->nwrite_roots < 40; i++)
    if (realpath(o->allow_write[i], real)) R->write_roots[R->nwrite_roots++] = mt_strdup(real);
}

/* Whether the real path P lies under one of R's write roots. */
static bool under_write_root(const repl *R, const char *p) {
  for (int i = 0; i < R->nwrite_roots; i++) {
    const char *r = R->write_roots[i];
    size_t n = strlen(r);
    if (!strncmp(p, r, n) && (p[n] == 0 || p[n] == '/' || (n == 1 && r[0] == '/'))) return true;
  }
  return false;
}

int repl_writable_path(repl *R, const char *name, char *path, size_t n) {
  if (R->sandbox) {
    if (strchr(name, '/') || name[0] == '.' || !name[0] || strlen(name) > 64) return fail(R, "only plain file names here");
    snprintf(path, n, "%s/%s", R->sandbox, name);
    return 0;
  }
  if ((size_t)snprintf(path, n, "%s", name) >= n) return fail(R, "the file name is too long");
  if (!R->confine) return 0;
  /* the directory by its real path, then the name in it: never a link */
  char dir[PATH_MAX], real[PATH_MAX];
  const char *base = strrchr(name, '/');
  if (base) {
    snprintf(dir, sizeof dir, "%.*s", base == name ? 1 : (int)(base - name), name);
    base++;
  } else {
    snprintf(dir, sizeof dir, ".");
    base = name;
  }
  if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) return fail(R, "'%s' is not a file name", name);
  if (!realpath(dir, real)) return fail(R, "cannot write '%s': %s", name, strerror(errno));
  char full[PATH_MAX + 256];
  snprintf(full, sizeof full, "%s%s%s", real, strcmp(real, "/") ? "/" : "", base);
  struct stat st;
  if (lstat(full, &st) == 0 && S_ISLNK(st.st_mode))
    return fail(R, "a script does not write through a symbolic link ('%s'); give the real path with --allow-write", name);
  if (!under_write_root(R, full) && !under_write_root(R, real))
    return fail(R, "a script writes files only under its own directory and the current one: '%s' is outside them "
                   "(mentat repl --allow-write PATH allows more; docs/console.md)", name);
  return 0;
}

int repl_run(FILE *in, FILE *out, const char *script, const repl_options *o) {
  repl *R = mt_calloc(1, sizeof *R);
  R->viewer = -1;
  R->outf = out;
  R->json = o->json;
  R->sandbox = o->sandbox;
  if (o->confine) set_write_roots(R, o);
  snprintf(R->components, sizeof R->components, "%s", o->pack ? o->pack : ".");
  R->packs = o->packs;
  R->npacks = o->npacks;
  for (int i = 0; i < o->nvariants && i < 32; i++) R->variants[R->nvariants++] = o->variants[i];
  R->advanced = o->rules ? o->rules->advanced : o->advanced;
  if (o->rules) R->r = (mt_rules *)(uintptr_t)game_rules_retain(o->rules);
  R->file = script;
  R->quiet_start = o->no_summary;
  R->progress = o->progress;
  int prev_ok = 1;
  bool interactive = !script && in == stdin && isatty(0);
  char histfile[4096] = "";
  if (interactive) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt; /* no SA_RESTART: the read at the prompt returns */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    const char *h = getenv("MENTAT_HISTORY"), *home = getenv("HOME");
    if (h) snprintf(histfile, sizeof histfile, "%s", h);
    else if (home) snprintf(histfile, sizeof histfile, "%s/.mentat_history", home);
  }
#ifdef MT_HAVE_LIBEDIT
  if (interactive) {
    completing = R;
    rl_attempted_completion_function = complete;
    using_history();
    stifle_history(1000);
    if (histfile[0]) read_history(histfile); /* the commands of earlier sessions (MENTAT_HISTORY, or ~/.mentat_history) */
    printf("Mentat console: 'help' lists the commands, 'new' starts a game.\n");
  }
#endif
  strbuf cmdline = {0};
  for (;;) {
    int got = read_command(R, in, interactive, &cmdline);
    if (got == 0) break;
    char *line = cmdline.s;
    if (got < 0) {
      /* too long: refused whole, never split into commands */
      sb_free(&R->out);
      sb_free(&R->log);
      sb_free(&R->jextra);
      R->jtext = false;
      R->ok = 1;
      fail(R, "line %d is longer than %d bytes: ignored", R->line, MAX_LINE);
      if (script) R->errors++;
      if (script && !R->json) fprintf(out, "%s:%d: (a line of more than %d bytes)\n", script, R->line, MAX_LINE);
      emit(R, out);
      prev_ok = 0;
      continue;
    }
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = 0;
    char *hash = strchr(line, '#');
    if (hash) *hash = 0;
    char *s = line;
    while (*s == ' ' || *s == '\t') s++;
    n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t')) s[--n] = 0;
    if (!*s) continue;
    sb_free(&R->out);
    sb_free(&R->log);
    sb_free(&R->jextra);
    R->jtext = false;
    R->ok = 1;
    bool is_expect = !strncmp(s, "expect", 6);
    if (!is_expect) R->nrefused = 0; /* an expectation reads the previous command's refusal */
    sb_free(&R->fired);
    mt_stop_requested = 0;
    mt_progress_to = (interactive || R->progress) && !R->json && isatty(2) ? stderr : NULL; /* at a terminal only */
    int rc = dispatch(R, s, prev_ok);
    mt_progress_end();
    mt_progress_to = NULL;
    if (mt_stop_requested && interactive) { /* Ctrl-C while it ran: said, the prompt comes back */
      if (rc == 0) say(R, "%s(interrupted)", R->out.n ? "\n" : "");
      mt_stop_requested = 0;
    }
    if (R->quit) {
      emit(R, out);
      break;
    }
    if (R->fired.n) {
      sb_free(&R->last_fired);
  sb_free(&R->last_narr);
      R->last_fired = R->fired;
      R->fired = (strbuf){0};
      sb_free(&R->last_narr);
      sb_puts(&R->last_narr, R->log.s ? R->log.s : "");
      if (R->trace) {
        strbuf t = {0};
        sb_printf(&t, "trace:\n%s", R->last_fired.s);
        sb_puts(&t, R->log.s ? R->log.s : "");
        sb_free(&R->log);
        R->log = t;
      }
    }
    if (rc < 0 && !is_expect && script) {
      /* an error in a script is a failure unless the next line expects it */
      long pos = ftell(in);
      char *next = NULL;
      size_t nextcap = 0;
      bool expected = false;
      while (pos >= 0 && getline(&next, &nextcap, in) >= 0) {
        char *t = next;
        while (*t == ' ' || *t == '\t') t++;
        if (*t == '#' || *t == '\n' || !*t) continue;
        expected = !strncmp(t, "expect error", 12) || !strncmp(t, "expect refused", 14);
        break;
      }
      free(next);
      if (pos >= 0) fseek(in, pos, SEEK_SET);
      if (!expected) R->errors++;
    }
    /* a failed command's report goes to the error stream (standard error when the answers go
     * to standard output), flushed in turn so that a file holding both keeps their order */
    FILE *errf = rc < 0 && !R->json && out == stdout ? stderr : out;
    strbuf narration = {0}; /* what ran before the failure stays on the answers' stream */
    if (errf != out) {
      if (R->log.n) fputs(R->log.s, out);
      narration = R->log;
      R->log = (strbuf){0};
      fflush(out);
    }
    if (script && !R->json && (rc < 0 || is_expect)) {
      if (rc < 0) fprintf(errf, "%s:%d: %s\n", script, R->line, s);
    }
    emit(R, errf);
    if (rc < 0 && !R->json) caret(R, s, errf);
    if (errf != out) {
      fflush(errf);
      R->log = narration;
    }
    if (!is_expect) {
      prev_ok = rc == 0;
      snprintf(R->last_output, sizeof R->last_output, "%s%s", R->log.s ? R->log.s : "", R->out.s ? R->out.s : "");
    }
  }
  sb_free(&cmdline);
  int failed = R->failures + R->errors;
  if (script && !R->json && !o->no_summary) fprintf(out, "%s: %d failed\n", script, failed);
  sb_free(&R->out);
  sb_free(&R->log);
  sb_free(&R->jextra);
  sb_free(&R->fired);
  sb_free(&R->last_fired);
  sb_free(&R->last_narr);
#ifdef MT_HAVE_LIBEDIT
  if (interactive && histfile[0]) write_history(histfile);
#endif
  for (int i = 0; i < R->nhistory; i++) mt_game_free(R->history[i]), mt_free(R->history_what[i]);
  repl_origin_reset(R, NULL);
  mt_free(R->origin);
  mt_free(R->origin_pending);
  for (int i = 0; i < R->nfuture; i++) mt_game_free(R->future[i]), mt_free(R->future_what[i]);
  for (int i = 0; i < R->nbranches; i++) mt_game_free(R->branches[i].g);
  repl_chance_forget_queue(R);
  mt_game_free(R->g);
  mt_rules_free(R->r);
  for (int i = 0; i < R->nwrite_roots; i++) mt_free(R->write_roots[i]);
  mt_free(R);
  return failed ? 1 : 0;
}
