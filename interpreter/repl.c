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
 * expectation fails. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "opcodes.h"
#include "data.h"
#include "game.h"
#include "bots.h"
#include "explain.h"
#include "pack.h"
#include "repl.h"

#include <unistd.h>
#ifdef MT_HAVE_LIBEDIT
#include <editline/readline.h>
#endif

typedef struct repl {
  char components[4096];
  const char *const *packs; /* mods laid over it (--pack DIR; borrowed from the options) */
  int npacks;
  const char *variants[32];
  int nvariants;
  char varbuf[1024];
  int advanced;
  mt_rules *r;
  mt_game *g;
  bool json;
  int bots; /* 0 random, 1 passive */
  uint64_t bot_rng;
  strbuf out;      /* text of the current command */
  strbuf log;      /* narration captured while running */
  strbuf jextra;   /* extra JSON members of the current command */
  bool jtext;          /* the command's JSON carries its own "text" */
  int ok;          /* the last command succeeded */
  const char *refused_rules[MT_MAX_REASONS];
  int nrefused;
  char last_output[8192];
  const char *file;
  int line;
  int failures, errors;
  bool trace;
  int viewer;          /* view as: a data faction, or -1 (everything) */
  strbuf fired;        /* rules that fired during the last command that ran the game */
  strbuf last_fired;   /* ... kept for `why last` */
  strbuf last_narr;    /* the narration of that step, for `why last` */
  mt_game *history[256]; /* undo stack: the states before each change */
  int nhistory, nfuture;
  mt_game *future[256];
  char branch[64];
  struct {
    char name[64];
    mt_game *g;
  } branches[32];
  int nbranches;
  FILE *outf;          /* where answers go */
  const char *sandbox; /* save/load: plain file names in this directory only (the fuzzer), or NULL */
} repl;


static void narrate(void *ud, const char *rule, const char *text) {
  repl *R = ud;
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
static void attach(repl *R, mt_game *g) {
  if (g->r != R->r) {
    mt_rules *keep = (mt_rules *)(uintptr_t)game_rules_retain(g->r);
    mt_rules_free(R->r);
    R->r = keep;
    R->advanced = keep->advanced;
    snprintf(R->varbuf, sizeof R->varbuf, "%s", keep->variant_list ? keep->variant_list : "");
    R->nvariants = 0;
    for (char *t = strtok(R->varbuf, ","); t && R->nvariants < 32; t = strtok(NULL, ",")) R->variants[R->nvariants++] = t;
  }
  mt_game_set_log(g, narrate, R);
  g->v.fired = on_fired;
  g->v.fired_ud = R;
}

static void vsay(repl *R, const char *fmt, va_list ap) MT_PRINTF(2, 0);
static void vsay(repl *R, const char *fmt, va_list ap) { sb_vprintf(&R->out, fmt, ap); }

static void say(repl *R, const char *fmt, ...) MT_PRINTF(2, 3);
static void say(repl *R, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsay(R, fmt, ap);
  va_end(ap);
}

/* Reports an error of the current command: its message, and the command fails. */
static int fail(repl *R, const char *fmt, ...) MT_PRINTF(2, 3);
static int fail(repl *R, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsay(R, fmt, ap);
  va_end(ap);
  R->ok = 0;
  return -1;
}

static void message(void *ud, int level, const char *text) {
  (void)level;
  sb_puts(&((repl *)ud)->out, text);
}

/* ---- names ------------------------------------------------------------------ */

static const board_def *DEF(repl *R) { return R->r->def; }

static const char *const aliases[][2] = {{"guild", "spacing_guild"}, {"bg", "bene_gesserit"}, {"harko", "harkonnen"}};

static int faction_id(repl *R, const char *w) {
  for (size_t i = 0; i < sizeof aliases / sizeof *aliases; i++)
    if (!strcmp(w, aliases[i][0])) w = aliases[i][1];
  return board_faction_index(DEF(R), w);
}

static int suggest_fail(repl *R, const char *what, const char *w, const char *const *c, size_t n) {
  const char *s = diag_suggest(w, c, n);
  return s ? fail(R, "unknown %s '%s' (did you mean '%s'?)", what, w, s) : fail(R, "unknown %s '%s'", what, w);
}

static int need_faction(repl *R, const char *w, int *f) {
  *f = faction_id(R, w);
  if (*f >= 0) return 0;
  const char *c[BOARD_MAX_FACTIONS];
  int n = DEF(R)->nfactions < BOARD_MAX_FACTIONS ? DEF(R)->nfactions : BOARD_MAX_FACTIONS;
  for (int i = 0; i < n; i++) c[i] = DEF(R)->factions[i].id;
  return suggest_fail(R, "faction", w, c, (size_t)n);
}

static int need_area(repl *R, const char *w, int *a) {
  *a = board_area_index(DEF(R), w);
  if (*a >= 0) return 0;
  const char *c[BOARD_MAX_AREAS];
  for (int i = 0; i < DEF(R)->nareas; i++) c[i] = DEF(R)->areas[i].id;
  return suggest_fail(R, "territory", w, c, (size_t)DEF(R)->nareas);
}

static int need_card(repl *R, const char *w, int *k) {
  *k = board_card_index(DEF(R), w);
  if (*k >= 0) return 0;
  const char **c = mt_calloc((size_t)DEF(R)->ncards + 1, sizeof *c);
  for (int i = 0; i < DEF(R)->ncards; i++) c[i] = DEF(R)->cards[i].id;
  int rc = suggest_fail(R, "card", w, c, (size_t)DEF(R)->ncards);
  mt_free(c);
  return rc;
}

/* A whole decimal number that fits 64 bits (no other check). */
static bool parse_int(const char *w, long long *v) {
  char *end;
  errno = 0;
  *v = strtoll(w, &end, 10);
  return *w && !*end && !errno;
}

/* W as a number in LO..HI for WHAT; otherwise the command fails saying which. */
static int parse_number(repl *R, const char *what, const char *w, long long lo, long long hi, long long *v) {
  char *end;
  errno = 0;
  long long x = strtoll(w, &end, 10);
  if (!*w || *end) return fail(R, "%s must be a whole number, not '%s'", what, w);
  if (errno == ERANGE || x < lo || x > hi) return fail(R, "%s %s is out of range (%lld..%lld)", what, w, lo, hi);
  *v = x;
  return 0;
}

/* W as an unsigned 64-bit number (seeds: every value simulate prints). */
static int parse_u64(repl *R, const char *what, const char *w, unsigned long long *v) {
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
static int section_arg(repl *R, int a, const char *w, int *sec) {
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
  if (!parse_int(w, &s)) return fail(R, "'%s' is not a sector number", w);
  if (s < INT32_MIN || s > INT32_MAX) return fail(R, "%s does not lie in sector %lld", ar->id, s);
  *sec = board_section_of(DEF(R), a, (int)s);
  if (*sec < 0) return fail(R, "%s does not lie in sector %lld", ar->id, s);
  return 0;
}

static int var_of(repl *R, const char *name) {
  int v = -1;
  for (int i = 0; i < R->g->L->nvars; i++)
    if (!strcmp(R->g->L->vars[i].name, name)) v = i;
  if (v < 0) fail(R, "this rule pack has no variable '%s'", name);
  return v;
}

static int pool_of(repl *R, const char *name) {
  int p = board_pool_index(DEF(R), name);
  if (p < 0) fail(R, "this rule pack has no pool '%s'", name);
  return p;
}

static int pile_of(repl *R, const char *name) {
  int p = board_pile_index(DEF(R), name);
  if (p < 0) fail(R, "this rule pack has no pile '%s'", name);
  return p;
}

static unsigned char *ST(repl *R) { return R->g->v.st; }
static const board_layout *LAY(repl *R) { return R->g->L; }

/* ---- the game's execution ------------------------------------------------ */

static bool bot_choice(repl *R, mt_choice *out) { return bot_choose(R->g, R->bots, &R->bot_rng, out); }

/* Continues the game: bots answer every decision until STOP says so.
 * MODE 0: to the next decision (or pause/end); 1: until the VM pauses or ends. */
static int advance(repl *R, int mode) {
  int st = mt_status(R->g);
  int guard = 0;
  if (st == MT_PAUSED || st == VM_IDLE) st = vm_run(&R->g->v);
  while (st == MT_WAITING && mode == 1 && guard++ < 1000000) {
    mt_choice c;
    if (!bot_choice(R, &c)) {
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

/* Restarts the game's VM positioned at the start of phase rule PH in the
 * current turn: the game rule runs with every other phase skipped. */
static int seek_phase(repl *R, int ph) {
  vm_state *vs = R->g->v.vs;
  const program *p = &R->r->prog;
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

/* ---- commands ------------------------------------------------------------------ */

/* Compiles the pack with the given variants and ruleset; NULL (reported) on errors. */
static mt_rules *compile_pack(repl *R, const char *const *variants, int nvariants, int advanced) {
  mt_load L = {0};
  L.components = R->components;
  L.packs = R->packs;
  L.npacks = R->npacks;
  L.variants = variants;
  L.nvariants = nvariants;
  L.advanced = advanced;
  L.message = message;
  L.message_ud = R;
  mt_rules *r = mt_rules_load(&L);
  if (!r) fail(R, "the rule set does not compile");
  return r;
}

static int load_rules(repl *R) {
  mt_rules *r = compile_pack(R, R->variants, R->nvariants, R->advanced);
  if (!r) return -1;
  mt_rules_free(R->r);
  R->r = r;
  return 0;
}

/* Splits a comma-separated list of names into OUT (at most CAP); an empty
 * list or an empty name is an error naming WHAT. */
static int split_list(repl *R, char *list, const char *what, char **out, int cap) {
  int n = mt_split_list(list, out, cap);
  if (n == -1) return fail(R, "%s= has an empty name in its list", what);
  if (n == -2) return fail(R, "%s= lists more than %d names", what, cap);
  return n;
}

static void remember(repl *R, mt_game *before);

/* new [factions=a,b] [ruleset=basic|advanced] [variants=v,w] [seed=N] [turns=N]:
 * everything is checked and built before the current game is replaced, so a
 * failed `new` changes nothing; `undo` returns to the game it replaced. */
static int cmd_new(repl *R, int argc, char **argv) {
  char facbuf[512] = "", varbuf[1024] = "";
  bool have_fac = false, have_var = false;
  unsigned long long seed = 1;
  long long turns = -1;
  int advanced = R->advanced; /* the current game's ruleset (before the first: the command line's) */
  for (int i = 1; i < argc; i++) {
    char *eq = strchr(argv[i], '=');
    if (!eq) return fail(R, "new takes key=value arguments (factions=, ruleset=, variants=, seed=, turns=)");
    *eq = 0;
    const char *k = argv[i], *v = eq + 1;
    if (!strcmp(k, "factions")) {
      if (strlen(v) >= sizeof facbuf) return fail(R, "factions= is too long");
      snprintf(facbuf, sizeof facbuf, "%s", v);
      have_fac = true;
    } else if (!strcmp(k, "ruleset")) {
      if ((advanced = mt_ruleset_parse(v)) < 0) return fail(R, "ruleset is basic or advanced");
    } else if (!strcmp(k, "variants")) {
      if (strlen(v) >= sizeof varbuf) return fail(R, "variants= is too long");
      snprintf(varbuf, sizeof varbuf, "%s", v);
      have_var = true;
    } else if (!strcmp(k, "seed")) {
      if (parse_u64(R, "seed", v, &seed) < 0) return -1;
    } else if (!strcmp(k, "turns")) {
      if (parse_number(R, "turns", v, 1, 1000, &turns) < 0) return -1;
    } else {
      return fail(R, "unknown setting '%s' (factions, ruleset, variants, seed, turns)", k);
    }
  }
  char *vnames[32];
  int nv = 0;
  if (have_var && *varbuf && (nv = split_list(R, varbuf, "variants", vnames, 32)) < 0) return -1;
  char *fnames[BOARD_MAX_FACTIONS];
  int nf = 0;
  if (have_fac && (nf = split_list(R, facbuf, "factions", fnames, BOARD_MAX_FACTIONS)) < 0) return -1;
  /* the rule set: the current one unless the ruleset or the variants change */
  mt_rules *r = R->r;
  bool fresh = !r || advanced != R->advanced || have_var;
  if (fresh) {
    r = have_var ? compile_pack(R, (const char *const *)vnames, nv, advanced)
                 : compile_pack(R, R->variants, R->nvariants, advanced);
    if (!r) return -1;
  }
  const char *fac[BOARD_MAX_FACTIONS];
  for (int i = 0; i < nf; i++) {
    int f = board_faction_index(r->def, fnames[i]);
    for (size_t a = 0; f < 0 && a < sizeof aliases / sizeof *aliases; a++)
      if (!strcmp(fnames[i], aliases[a][0])) f = board_faction_index(r->def, aliases[a][1]);
    if (f < 0) {
      const char *c[BOARD_MAX_FACTIONS];
      int n = r->def->nfactions < BOARD_MAX_FACTIONS ? r->def->nfactions : BOARD_MAX_FACTIONS;
      for (int j = 0; j < n; j++) c[j] = r->def->factions[j].id;
      const char *sug = diag_suggest(fnames[i], c, (size_t)n);
      fail(R, "unknown faction '%s'%s%s%s", fnames[i], sug ? " (did you mean '" : "", sug ? sug : "", sug ? "'?)" : "");
      if (fresh) mt_rules_free(r);
      return -1;
    }
    for (int j = 0; j < i; j++)
      if (!strcmp(fac[j], r->def->factions[f].id)) {
        fail(R, "faction '%s' is listed twice", fac[j]);
        if (fresh) mt_rules_free(r);
        return -1;
      }
    fac[i] = r->def->factions[f].id;
  }
  char err[256];
  mt_game *g = mt_game_new(r, nf ? fac : NULL, nf, (uint64_t)seed, err, sizeof err);
  if (fresh) mt_rules_free(r); /* the game holds it now (or it is gone with the failure) */
  if (!g) return fail(R, "%s", err);
  if (turns > 0) {
    const program *p = &g->r->prog;
    for (int i = 0; i < p->nvars; i++)
      if (!strcmp(p->vars[i].name, "game_length"))
        board_var_set(g->L, g->v.st, p->vars[i].board_var, 0, 0, (int32_t)turns);
  }
  /* the old game goes to the undo history; the new one replaces it */
  remember(R, R->g);
  R->g = g;
  attach(R, g);
  R->bot_rng = (uint64_t)seed ^ 0x626f74ull;
  say(R, "new game: %d factions, seed %llu", g->L->nf, seed);
  return 0;
}

static int pool_count(repl *R, int pool, int gf, int kind) {
  int loc = board_loc_pool(LAY(R), pool, gf);
  if (kind >= 0) return board_tokens(LAY(R), ST(R), loc, gf, kind);
  int n = 0;
  for (int k = 0; k < DEF(R)->nkinds; k++) n += board_tokens(LAY(R), ST(R), loc, gf, k);
  return n;
}

/* Moves N tokens of KIND into location TO, taking from FROM1 then FROM2.  A
 * kind of which the faction's sheet has no tokens is the flip side of its
 * default kind (docs/components.md): what is short of it is taken as tokens
 * of the default kind and turned over where they arrive. */
static int fetch(repl *R, int gf, int kind, int n, int to, int from1, int from2) {
  const board_layout *L = LAY(R);
  const board_faction *bf = &DEF(R)->factions[L->faction[gf]];
  int a = board_tokens(L, ST(R), from1, gf, kind);
  int b = from2 >= 0 ? board_tokens(L, ST(R), from2, gf, kind) : 0;
  int d = bf->default_kind, flip = 0;
  if (a + b < n && bf->forces[kind] == 0 && kind != d) {
    int da = board_tokens(L, ST(R), from1, gf, d), db = from2 >= 0 ? board_tokens(L, ST(R), from2, gf, d) : 0;
    if (a + b + da + db < n)
      return fail(R, "only %d %s tokens are available (reserves and tanks, %s tokens to turn over included)", a + b + da + db,
                  DEF(R)->kinds[kind], DEF(R)->kinds[d]);
    flip = n - a - b;
    int x = da < flip ? da : flip;
    if (x) board_move_tokens(L, ST(R), gf, d, from1, to, x);
    if (flip - x) board_move_tokens(L, ST(R), gf, d, from2, to, flip - x);
    board_set_tokens(L, ST(R), to, gf, d, board_tokens(L, ST(R), to, gf, d) - flip);
    board_set_tokens(L, ST(R), to, gf, kind, board_tokens(L, ST(R), to, gf, kind) + flip);
    n -= flip;
  }
  if (a + b < n) return fail(R, "only %d %s tokens are available (reserves and tanks)", a + b, DEF(R)->kinds[kind]);
  int x = a < n ? a : n;
  if (x) board_move_tokens(L, ST(R), gf, kind, from1, to, x);
  if (n - x) board_move_tokens(L, ST(R), gf, kind, from2, to, n - x);
  return 0;
}

static int kind_arg(repl *R, int f, char **w, int *argc, int at) {
  if (*argc > at) {
    int k = board_kind_index(DEF(R), w[at]);
    if (k >= 0) {
      for (int i = at; i < *argc - 1; i++) w[i] = w[i + 1];
      (*argc)--;
      return k;
    }
  }
  return DEF(R)->factions[f].default_kind;
}

static int cmd_put(repl *R, int argc, char **argv) {
  int f, a, sec;
  long long n;
  if (argc < 4) return fail(R, "usage: put FACTION N [KIND] TERRITORY [SECTOR]");
  if (need_faction(R, argv[1], &f) < 0) return -1;
  if (parse_number(R, "the count", argv[2], 0, INT32_MAX, &n) < 0) return -1;
  int kind = kind_arg(R, f, argv, &argc, 3);
  if (argc < 4) return fail(R, "usage: put FACTION N [KIND] TERRITORY [SECTOR]");
  if (need_area(R, argv[3], &a) < 0 || section_arg(R, a, argc > 4 ? argv[4] : NULL, &sec) < 0) return -1;
  int gf = R->g->L->game_faction[f];
  if (gf < 0) return fail(R, "%s is not in this game", argv[1]);
  int res = pool_of(R, "reserves");
  if (res < 0) return -1;
  int tanks = board_pool_index(DEF(R), "tanks"); /* optional */
  if (fetch(R, gf, kind, (int)n, sec, board_loc_pool(LAY(R), res, gf), tanks >= 0 ? board_loc_pool(LAY(R), tanks, gf) : -1) < 0)
    return -1;
  char name[128];
  say(R, "%s: %lld %s in %s", DEF(R)->factions[f].id, n, DEF(R)->kinds[kind],
      board_section_name(DEF(R), sec, name, sizeof name));
  return 0;
}

static int cmd_clear(repl *R, int argc, char **argv) {
  if (argc != 2) return fail(R, "usage: clear FACTION|all");
  int res = pool_of(R, "reserves");
  if (res < 0) return -1;
  for (int gf = 0; gf < LAY(R)->nf; gf++) {
    int f = LAY(R)->faction[gf];
    if (strcmp(argv[1], "all") && faction_id(R, argv[1]) != f) continue;
    for (int s = 0; s < DEF(R)->nsections; s++)
      for (int k = 0; k < DEF(R)->nkinds; k++) {
        int n = board_tokens(LAY(R), ST(R), s, gf, k);
        if (n > 0) board_move_tokens(LAY(R), ST(R), gf, k, s, board_loc_pool(LAY(R), res, gf), n);
      }
  }
  if (strcmp(argv[1], "all")) {
    int f;
    if (need_faction(R, argv[1], &f) < 0) return -1;
  }
  say(R, "cleared %s", argv[1]);
  return 0;
}

/* tanks/reserves F N [KIND]: set that pool to N, balancing with the other. */
static int cmd_pool(repl *R, int argc, char **argv) {
  int f;
  long long n;
  if (argc < 3) return fail(R, "usage: %s FACTION N [KIND]", argv[0]);
  if (need_faction(R, argv[1], &f) < 0) return -1;
  if (parse_number(R, "the count", argv[2], 0, INT32_MAX, &n) < 0) return -1;
  int kind = kind_arg(R, f, argv, &argc, 3);
  int gf = LAY(R)->game_faction[f];
  if (gf < 0) return fail(R, "%s is not in this game", argv[1]);
  int res = pool_of(R, "reserves"), tanks = pool_of(R, "tanks");
  if (res < 0 || tanks < 0) return -1;
  int me = !strcmp(argv[0], "tanks") ? tanks : res, other = me == tanks ? res : tanks;
  int lme = board_loc_pool(LAY(R), me, gf), lot = board_loc_pool(LAY(R), other, gf);
  int have = board_tokens(LAY(R), ST(R), lme, gf, kind);
  if (have < n) {
    if (fetch(R, gf, kind, (int)n - have, lme, lot, -1) < 0) return -1;
  } else if (have > n) {
    board_move_tokens(LAY(R), ST(R), gf, kind, lme, lot, have - (int)n);
  }
  say(R, "%s: %lld %s in %s", DEF(R)->factions[f].id, n, DEF(R)->kinds[kind], argv[0]);
  return 0;
}

static int set_var(repl *R, const char *name, int index, int32_t v) {
  int k = var_of(R, name);
  if (k < 0) return -1;
  if (board_var_set(LAY(R), ST(R), k, index, 0, v) != BOARD_OK) return fail(R, "%s cannot be %d", name, v);
  return 0;
}

static int32_t get_var(repl *R, const char *name, int index) {
  int k = var_of(R, name);
  return k < 0 ? 0 : board_var_get(LAY(R), ST(R), k, index, 0);
}

/* Balances a change of DELTA spice with bank variable B (if any): refused,
 * changing nothing, when the bank would leave what a state cell holds (it
 * never wraps) or go where its kind forbids. */
static int bank_balance(repl *R, int b, long long delta) {
  if (b < 0) return 0;
  long long bank = (long long)board_var_get(LAY(R), ST(R), b, 0, 0) - delta;
  if (bank < INT32_MIN || bank > INT32_MAX || board_var_set(LAY(R), ST(R), b, 0, 0, (int32_t)bank) != BOARD_OK)
    return fail(R, "the bank cannot balance that: it would hold %lld (a state cell holds -2147483648..2147483647)", bank);
  return 0;
}

/* spice F N (behind the shield) or spice TERRITORY N [SECTOR] (on the map);
 * the difference comes from or goes to the bank, so spice stays conserved. */
static int cmd_spice(repl *R, int argc, char **argv) {
  long long n;
  if (argc < 3) return fail(R, "usage: spice FACTION|TERRITORY N [SECTOR]");
  if (parse_number(R, "the amount of spice", argv[2], 0, INT32_MAX, &n) < 0) return -1;
  int f = faction_id(R, argv[1]);
  int32_t before;
  int b = var_of(R, "bank");
  if (f >= 0) {
    int gf = LAY(R)->game_faction[f];
    if (gf < 0) return fail(R, "%s is not in this game", argv[1]);
    before = get_var(R, "spice", gf);
    if (bank_balance(R, b, n - before) < 0) return -1;
    if (set_var(R, "spice", gf, (int32_t)n) < 0) return bank_balance(R, b, before - n), -1;
  } else {
    int a, sec;
    if (board_area_index(DEF(R), argv[1]) < 0) {
      const char *c[BOARD_MAX_AREAS + BOARD_MAX_FACTIONS];
      size_t k = 0;
      for (int i = 0; i < DEF(R)->nareas; i++) c[k++] = DEF(R)->areas[i].id;
      for (int i = 0; i < DEF(R)->nfactions && k < sizeof c / sizeof *c; i++) c[k++] = DEF(R)->factions[i].id;
      return suggest_fail(R, "faction or territory", argv[1], c, k);
    }
    if (need_area(R, argv[1], &a) < 0 || section_arg(R, a, argc > 3 ? argv[3] : NULL, &sec) < 0) return -1;
    before = get_var(R, "board_spice", sec);
    if (bank_balance(R, b, n - before) < 0) return -1;
    if (set_var(R, "board_spice", sec, (int32_t)n) < 0) return bank_balance(R, b, before - n), -1;
  }
  say(R, "spice of %s: %lld", argv[1], n);
  return 0;
}

static int move_card_to(repl *R, int card, int pile_slot, int pos) {
  if (board_card_move(LAY(R), ST(R), card, pile_slot, pos) != BOARD_OK)
    return fail(R, "%s cannot go there", DEF(R)->cards[card].id);
  return 0;
}

/* Finds instance K of card id C not already in DONE. */
static int next_card(repl *R, const char *w, const bool *taken) {
  int c = board_card_index(DEF(R), w);
  if (c < 0) return -1;
  for (int i = c; i < DEF(R)->ncards && !strcmp(DEF(R)->cards[i].id, DEF(R)->cards[c].id); i++)
    if (!taken[i]) return i;
  return c;
}

/* The same, for a card going to pile slot TO: a copy still in its deck's draw pile first, then a
 * copy not already in TO, so that naming a card of several copies again in a later command moves
 * another copy, not the one an earlier command put somewhere. */
static int next_card_for(repl *R, const char *w, const bool *taken, int to) {
  int c = board_card_index(DEF(R), w);
  if (c < 0) return -1;
  for (int pass = 0; pass < 2; pass++)
    for (int i = c; i < DEF(R)->ncards && !strcmp(DEF(R)->cards[i].id, DEF(R)->cards[c].id); i++) {
      int at = board_card_pile(LAY(R), ST(R), i, NULL);
      int home = board_pile_slot(LAY(R), DEF(R)->decks[DEF(R)->cards[i].deck].pile, -1);
      if (!taken[i] && (pass ? at != to : at == home)) return i;
    }
  return next_card(R, w, taken);
}

static int cmd_give(repl *R, int argc, char **argv, bool exact) {
  int f;
  if (argc < 2) return fail(R, "usage: %s FACTION CARD...", argv[0]);
  if (need_faction(R, argv[1], &f) < 0) return -1;
  int gf = LAY(R)->game_faction[f];
  if (gf < 0) return fail(R, "%s is not in this game", argv[1]);
  const char *pname = "hand";
  if (!exact && argc >= 4 && !strcmp(argv[argc - 2], "into")) { /* give F CARD... into PILE */
    pname = argv[argc - 1];
    argc -= 2;
  }
  int hand = pile_of(R, pname);
  if (hand < 0) return -1;
  if (DEF(R)->piles[hand].scope != BS_FACTION) return fail(R, "pile '%s' does not belong to a faction", pname);
  int slot = board_pile_slot(LAY(R), hand, gf);
  for (int i = 2; i < argc; i++) {
    int c;
    if (need_card(R, argv[i], &c) < 0) return -1;
    if (!board_card_in_game(LAY(R), c)) /* a card of an absent faction is not in the game (nor in a save) */
      return fail(R, "%s belongs to %s, which is not in this game", argv[i], DEF(R)->factions[DEF(R)->cards[c].faction].id);
  }
  /* Choose every copy before moving anything, so a refused give changes nothing: a copy already
   * in the pile is not given again (`give f karama` twice gives both Karamas). */
  bool *taken = mt_calloc((size_t)DEF(R)->ncards + 1, 1);
  int *chosen = mt_calloc((size_t)argc, sizeof *chosen);
  if (!exact)
    for (int k = 0, n = board_pile_count(LAY(R), ST(R), slot); k < n; k++) taken[board_pile_card(LAY(R), ST(R), slot, k)] = true;
  for (int i = 2; i < argc; i++) {
    int c = next_card(R, argv[i], taken);
    if (taken[c]) {
      mt_free(taken);
      mt_free(chosen);
      return fail(R, "no %s is left to give: every copy is already in %s's %s or given above", argv[i],
                  DEF(R)->factions[f].id, pname);
    }
    taken[c] = true;
    chosen[i] = c;
  }
  if (exact) /* the old hand goes back on top of its decks */
    while (board_pile_count(LAY(R), ST(R), slot) > 0) {
      int c = board_pile_top(LAY(R), ST(R), slot);
      move_card_to(R, c, board_pile_slot(LAY(R), DEF(R)->decks[DEF(R)->cards[c].deck].pile, -1), -1);
    }
  for (int i = 2; i < argc; i++) {
    if (move_card_to(R, chosen[i], slot, -1) < 0) {
      mt_free(taken);
      mt_free(chosen);
      return -1;
    }
  }
  mt_free(chosen);
  mt_free(taken);
  say(R, "%s holds %d cards in %s", DEF(R)->factions[f].id, board_pile_count(LAY(R), ST(R), slot), pname);
  return 0;
}

/* stack DECK CARD... (first named is drawn first) / discard DECK CARD... (last on top): DECK is
 * spice, treachery or storm (its pile DECK_deck or DECK_discard), or the name of a global pile. */
static int cmd_stack(repl *R, int argc, char **argv, bool discard) {
  if (argc < 3) return fail(R, "usage: %s spice|treachery|storm|PILE CARD...", argv[0]);
  char pname[64];
  int exact = board_pile_index(DEF(R), argv[1]);
  if (exact >= 0 && DEF(R)->piles[exact].scope == BS_FACTION)
    return fail(R, "%s is a pile of each faction: use 'give FACTION CARD... into %s'", argv[1], argv[1]);
  if (exact >= 0) snprintf(pname, sizeof pname, "%s", argv[1]);
  else snprintf(pname, sizeof pname, "%s_%s", argv[1], discard ? "discard" : "deck");
  int pile = pile_of(R, pname);
  if (pile < 0) return -1;
  int slot = board_pile_slot(LAY(R), pile, -1);
  bool *taken = mt_calloc((size_t)DEF(R)->ncards + 1, 1);
  int cards[256];
  int n = 0;
  for (int i = 2; i < argc && n < 256; i++) {
    long long v;
    int c = -1;
    if (!strcmp(argv[1], "storm") && parse_int(argv[i], &v)) {
      int at = board_card_attr_index(DEF(R), "value");
      for (int k = 0; k < DEF(R)->ncards && at >= 0; k++)
        if (!taken[k] && DEF(R)->decks[DEF(R)->cards[k].deck].pile == pile && DEF(R)->cards[k].attrs[at] == v) c = k;
      if (c < 0) {
        mt_free(taken);
        return fail(R, "no storm card with value %lld", v);
      }
    } else {
      if (need_card(R, argv[i], &c) < 0) {
        mt_free(taken);
        return -1;
      }
      c = next_card_for(R, argv[i], taken, slot);
    }
    taken[c] = true;
    cards[n++] = c;
  }
  mt_free(taken);
  if (discard)
    for (int i = 0; i < n; i++) move_card_to(R, cards[i], slot, -1);
  else
    for (int i = n - 1; i >= 0; i--) move_card_to(R, cards[i], slot, -1);
  say(R, "%s: %d cards placed", pname, n);
  return 0;
}

static int cmd_setmarker(repl *R, int argc, char **argv) {
  long long n;
  if (argc != 2) return fail(R, "usage: %s N", argv[0]);
  if (parse_number(R, argv[0], argv[1], 0, INT32_MAX, &n) < 0) return -1;
  if (!strcmp(argv[0], "storm") && (n < 0 || n >= DEF(R)->nsectors))
    return fail(R, "the storm is in a sector 0..%d", DEF(R)->nsectors - 1);
  if (set_var(R, argv[0], 0, (int32_t)n) < 0) return -1;
  say(R, "%s: %lld", argv[0], n);
  return 0;
}

static int cmd_ally(repl *R, int argc, char **argv) {
  int a, b;
  if (!strcmp(argv[0], "unally")) {
    if (argc != 2 || need_faction(R, argv[1], &a) < 0) return fail(R, "usage: unally FACTION");
    int ga = LAY(R)->game_faction[a];
    if (ga < 0) return fail(R, "%s is not in this game", argv[1]);
    int old = get_var(R, "ally", ga); /* the board keeps game indices in faction-typed variables */
    if (old >= 0 && old < LAY(R)->nf) set_var(R, "ally", old, -1);
    if (set_var(R, "ally", ga, -1) < 0) return -1;
    say(R, "%s has no ally", argv[1]);
    return 0;
  }
  if (argc != 3 || need_faction(R, argv[1], &a) < 0 || need_faction(R, argv[2], &b) < 0)
    return fail(R, "usage: ally FACTION FACTION");
  int ga = LAY(R)->game_faction[a], gb = LAY(R)->game_faction[b];
  if (ga < 0 || gb < 0 || a == b) return fail(R, "both factions must be in the game, and different");
  if (set_var(R, "ally", ga, gb) < 0 || set_var(R, "ally", gb, ga) < 0) return -1;
  say(R, "%s and %s are allied", DEF(R)->factions[a].id, DEF(R)->factions[b].id);
  return 0;
}

static int find_phase(repl *R, const char *w) {
  const program *p = &R->r->prog;
  int k = sema_find_rule(p, w);
  char alt[128];
  snprintf(alt, sizeof alt, "%s_phase", w);
  for (int i = 0; i < p->nrules && k < 0; i++)
    if (p->rules[i].form == RF_PHASE && p->rules[i].name && (!strcmp(p->rules[i].name, w) || !strcmp(p->rules[i].name, alt)))
      k = i;
  if (k < 0 || p->rules[k].form != RF_PHASE) {
    const char *c[64];
    size_t n = 0;
    for (int i = 0; i < p->nrules && n < 64; i++)
      if (p->rules[i].form == RF_PHASE && p->rules[i].name) c[n++] = p->rules[i].name;
    suggest_fail(R, "phase", w, c, n);
    return -1;
  }
  return k;
}

static int cmd_phase(repl *R, int argc, char **argv) {
  if (argc != 2) return fail(R, "usage: phase ID (a phase name or rule number)");
  int k = find_phase(R, argv[1]);
  if (k < 0) return -1;
  if (seek_phase(R, k) < 0) return -1;
  say(R, "at the start of %s %s", R->r->prog.rules[k].id, R->r->prog.rules[k].title);
  return 0;
}

static void describe_pending(repl *R) {
  const mt_decision *d = mt_pending(R->g);
  if (!d) {
    int st = mt_status(R->g);
    say(R, "%s", st == MT_FINISHED ? "the game is over" : st == MT_PAUSED ? "paused" : "no decision pending");
    return;
  }
  say(R, "%s decides: %s (rule %s)%s", d->faction, d->prompt, d->rule, d->secret ? " [secret]" : "");
}

static int cmd_run(repl *R, int argc, char **argv) {
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
      if (!bot_choice(R, &c)) return fail(R, "%s", mt_decision_error(R->g) ? mt_decision_error(R->g) : "no legal answer");
      mt_explain why;
      if (mt_apply(R->g, &c, &why) < 0) return fail(R, "%s", why.text);
    } else if (advance(R, 0) < 0) {
      return -1;
    }
  } else if (!strcmp(what, "phase")) {
    vs->stop_phase_end = vs->phase_rule;
    if (vs->phase_rule < 0 && st == MT_PAUSED && vs->nframes > 0) {
      /* paused just before a phase begins: run that whole phase */
      uint32_t pc = (uint32_t)vs->frames[vs->nframes - 1].pc;
      const program *p = &R->r->prog;
      if (pc < p->ncode && p->code[pc] == OP_PHASE_BEGIN) memcpy(&vs->stop_phase_end, p->code + pc + 1, 4);
    }
    if (vs->stop_phase_end < 0 || st == VM_IDLE) vs->stop_phase_end = -2; /* between phases, or a fresh game: play the next phase */
    if (st == VM_IDLE) {
      vm_start(&R->g->v); /* runs to the stop or a decision, which the bots then answer */
      if (mt_status(R->g) == MT_WAITING && advance(R, 1) < 0) return -1;
      describe_pending(R);
      return 0;
    }
    if (advance(R, 1) < 0) return -1;
  } else if (!strcmp(what, "turn")) {
    const program *p = &R->r->prog;
    vs->stop_turn = p->turn_var >= 0 ? board_var_get(LAY(R), ST(R), p->vars[p->turn_var].board_var, 0, 0) : -1;
    if (st == VM_IDLE) vm_start(&R->g->v);
    if (advance(R, 1) < 0) return -1;
  } else if (!strcmp(what, "game")) {
    vs->stop_phase_end = -1;
    vs->stop_turn = -1;
    if (st == VM_IDLE) {
      if (mt_start(R->g) == MT_FAILED) return fail(R, "%s", mt_error(R->g));
    }
    if (advance(R, 1) < 0) return -1;
  } else {
    return fail(R, "usage: run [step|phase|turn|game]");
  }
  describe_pending(R);
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
static size_t legal_lines(repl *R, const mt_choice *buf, size_t n) {
  const program *p = &R->g->r->prog;
  const mt_decision *d = mt_pending(R->g);
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
      mt_choice_format(R->g, &buf[i], text, sizeof text);
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
          vm_format_value(&R->g->v, ar->ptype[a], buf[i].args[a], &b);
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

static int cmd_legal(repl *R) {
  if (!mt_pending(R->g)) return fail(R, "no decision is pending");
  static mt_choice buf[4096];
  size_t n = mt_legal(R->g, buf, 4096);
  if (mt_decision_error(R->g)) return fail(R, "%s", mt_decision_error(R->g));
  describe_pending(R);
  say(R, "\n%zu legal answer%s%s", n, n == 1 ? "" : "s", n > 4096 ? " (the first 4096 follow)" : "");
  size_t shown = n < 4096 ? n : 4096;
  legal_lines(R, buf, shown);
  sb_puts(&R->jextra, ",\"choices\":[");
  for (size_t i = 0; i < shown; i++) {
    char text[512];
    mt_choice_format(R->g, &buf[i], text, sizeof text);
    sb_printf(&R->jextra, "%s", i ? "," : "");
    sb_json_str(&R->jextra, text);
  }
  sb_printf(&R->jextra, "],\"count\":%zu", n);
  return 0;
}

static int cmd_do(repl *R, const char *rest) {
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
  describe_pending(R);
  return 0;
}

/* May VIEWER (a data faction, -1: everyone's knowledge is shown) see an item
 * of OWNER with visibility VIS? */
static bool may_see(board_visibility vis, int viewer, int owner) {
  return viewer < 0 || vis == VIS_PUBLIC || (vis == VIS_OWNER && viewer == owner);
}

/* Tokens of game faction GF by kind, in AREA (>= 0) or else in POOL: when any of
 * them is of another kind than the faction's default one, the text gets
 * " (2 normal, 3 elite)" and, with JSON, KEY: {"normal":2,"elite":3} goes into
 * the object being written (*JFIRST: no member written yet).  Kinds are the
 * data's; a count alone means tokens of the default kind only. */
static void show_kinds(repl *R, int f, int gf, int area, int pool, bool text, bool json, const char *key, int *jfirst) {
  const board_def *def = DEF(R);
  int counts[64] = {0}, other = 0;
  for (int k = 0; k < def->nkinds && k < 64; k++) {
    counts[k] = area >= 0 ? board_tokens_in_area(LAY(R), ST(R), area, gf, 1u << k) : pool_count(R, pool, gf, k);
    if (counts[k] && k != def->factions[f].default_kind) other = 1;
  }
  if (!other) return;
  if (text) say(R, " (");
  if (json) sb_printf(&R->jextra, "%s\"%s\":{", *jfirst ? "" : ",", key);
  *jfirst = 0;
  for (int k = 0, first = 1; k < def->nkinds && k < 64; k++) {
    if (!counts[k]) continue;
    if (text) say(R, "%s%d %s", first ? "" : ", ", counts[k], def->kinds[k]);
    if (json) sb_printf(&R->jextra, "%s\"%s\":%d", first ? "" : ",", def->kinds[k], counts[k]);
    first = 0;
  }
  if (text) say(R, ")");
  if (json) sb_putc(&R->jextra, '}');
}

/* The faction's secret variables (`secret var V(f: faction)`, seen by their owner only): those
 * no longer at their initial value are listed, with the value to the owner and in the full
 * view, as hidden to any other viewer.  JSON: "secrets":{"V":3} (null when hidden). */
static void show_secrets(repl *R, int f, int gf, bool json, int viewer) {
  const program *p = &R->r->prog;
  int first = 1;
  for (int i = 0; i < p->nvars; i++) {
    const var_rec *v = &p->vars[i];
    if (!v->secret || v->data || v->scope != BS_FACTION || v->nparams != 1 || v->board_var < 0) continue;
    int32_t x = board_var_get(LAY(R), ST(R), v->board_var, gf, 0);
    if (x == v->init_value) continue;
    bool seen = may_see(LAY(R)->vars[v->board_var].visibility, viewer, f);
    strbuf val = {0}; /* by its type: a card by name, a number as a number */
    vm_format_value(&R->g->v, v->type, x, &val);
    bool number = v->type == TY_INT || v->type == TY_BOOL;
    if (first) say(R, "\n  secret:");
    if (seen) say(R, " %s %s", v->name, val.s ? val.s : "");
    else say(R, " %s hidden", v->name);
    if (json) {
      sb_printf(&R->jextra, "%s\"%s\":", first ? ",\"secrets\":{" : ",", v->name);
      if (!seen) sb_puts(&R->jextra, "null");
      else if (number) sb_printf(&R->jextra, "%d", x);
      else sb_json_str(&R->jextra, val.s ? val.s : "");
    }
    sb_free(&val);
    first = 0;
  }
  if (json && !first) sb_putc(&R->jextra, '}');
}

static void show_faction(repl *R, int f, bool json, int viewer) {
  const board_def *def = DEF(R);
  const board_layout *L = LAY(R);
  int gf = L->game_faction[f];
  if (gf < 0) {
    say(R, "%s is not in this game", def->factions[f].id);
    return;
  }
  int res = board_pool_index(def, "reserves"), tanks = board_pool_index(def, "tanks");
  int sv = board_var_index(def, "spice");
  int32_t spice = sv >= 0 ? get_var(R, "spice", gf) : 0;
  bool spice_seen = sv < 0 || may_see(def->vars[sv].visibility, viewer, f);
  int ally = board_var_index(def, "ally") >= 0 ? get_var(R, "ally", gf) : -1;
  ally = ally >= 0 && ally < L->nf ? L->faction[ally] : -1;
  int nres = res >= 0 ? pool_count(R, res, gf, -1) : 0, ntanks = tanks >= 0 ? pool_count(R, tanks, gf, -1) : 0;
  char sp[16];
  snprintf(sp, sizeof sp, spice_seen ? "%d" : "hidden", spice);
  say(R, "%s: spice %s, reserves %d", def->factions[f].id, sp, nres);
  int none = 1; /* the text's kinds; JSON gets them below, as their own member */
  if (res >= 0) show_kinds(R, f, gf, -1, res, true, false, NULL, &none);
  say(R, ", tanks %d", ntanks);
  if (tanks >= 0) show_kinds(R, f, gf, -1, tanks, true, false, NULL, &none);
  say(R, ", ally %s\n  forces:", ally >= 0 ? def->factions[ally].id : "none");
  if (json)
    sb_printf(&R->jextra, ",\"faction\":\"%s\",\"spice\":%s,\"reserves\":%d,\"tanks\":%d,\"ally\":%s%s%s,\"forces\":{",
              def->factions[f].id, spice_seen ? sp : "null", nres, ntanks, ally >= 0 ? "\"" : "",
              ally >= 0 ? def->factions[ally].id : "null", ally >= 0 ? "\"" : "");
  int first = 1;
  for (int a = 0; a < def->nareas; a++) {
    int n = board_tokens_in_area(L, ST(R), a, gf, 0);
    if (!n) continue;
    say(R, " %s %d", def->areas[a].id, n);
    show_kinds(R, f, gf, a, -1, true, false, NULL, &none);
    if (json) sb_printf(&R->jextra, "%s\"%s\":%d", first ? "" : ",", def->areas[a].id, n);
    first = 0;
  }
  if (json) {
    /* "kinds": by place (a territory, reserves, tanks), the tokens by kind wherever some are
     * not of the faction's default kind */
    int jfirst = 1;
    sb_puts(&R->jextra, "},\"kinds\":{");
    if (res >= 0) show_kinds(R, f, gf, -1, res, false, true, "reserves", &jfirst);
    if (tanks >= 0) show_kinds(R, f, gf, -1, tanks, false, true, "tanks", &jfirst);
    for (int a = 0; a < def->nareas; a++)
      if (board_tokens_in_area(L, ST(R), a, gf, 0)) show_kinds(R, f, gf, a, -1, false, true, def->areas[a].id, &jfirst);
    sb_puts(&R->jextra, "},\"hand\":[");
  }
  int hand = board_pile_index(def, "hand");
  say(R, "\n  hand:");
  if (hand >= 0) {
    int slot = board_pile_slot(L, hand, gf);
    int n = board_pile_count(L, ST(R), slot);
    if (!may_see(def->piles[hand].visibility, viewer, f)) {
      say(R, " %d card%s (hidden)", n, n == 1 ? "" : "s");
      for (int i = 0; i < n && json; i++) sb_printf(&R->jextra, "%s\"hidden\"", i ? "," : "");
    } else {
      for (int i = 0; i < n; i++) {
        int c = board_pile_card(L, ST(R), slot, i);
        say(R, " %s", def->cards[c].id);
        if (json) sb_printf(&R->jextra, "%s\"%s\"", i ? "," : "", def->cards[c].id);
      }
    }
  }
  /* the faction's other piles it may show (traitors, ...) */
  for (int p = 0; p < def->npiles; p++) {
    if (p == hand || def->piles[p].scope != BS_FACTION) continue;
    int slot = board_pile_slot(L, p, gf), n = board_pile_count(L, ST(R), slot);
    if (!n) continue;
    say(R, "\n  %s:", def->piles[p].name);
    if (!may_see(def->piles[p].visibility, viewer, f)) say(R, " %d card%s (hidden)", n, n == 1 ? "" : "s");
    else
      for (int i = 0; i < n; i++) say(R, " %s", def->cards[board_pile_card(L, ST(R), slot, i)].id);
  }
  if (json) sb_puts(&R->jextra, "],\"leaders\":{");
  say(R, "\n  leaders:");
  const board_faction *bf = &def->factions[f];
  for (int i = 0; i < bf->nleaders; i++) {
    int l = bf->first_leader + i;
    board_leader_state ls = board_leader_get(L, ST(R), l);
    const char *stname = ls.status >= 0 && ls.status < def->nleader_status ? def->leader_status[ls.status] : "?";
    say(R, " %s (%s)", def->leaders[l].id, stname);
    if (json) sb_printf(&R->jextra, "%s\"%s\":\"%s\"", i ? "," : "", def->leaders[l].id, stname);
  }
  if (json) sb_puts(&R->jextra, "}");
  show_secrets(R, f, gf, json, viewer);
}

static void show_territory(repl *R, int a, bool json) {
  const board_def *def = DEF(R);
  const board_layout *L = LAY(R);
  say(R, "%s (%s):", def->areas[a].id, def->areas[a].name);
  if (json) sb_printf(&R->jextra, ",\"territory\":\"%s\",\"forces\":{", def->areas[a].id);
  int first = 1, none = 1;
  for (int gf = 0; gf < L->nf; gf++) {
    int n = board_tokens_in_area(L, ST(R), a, gf, 0);
    if (!n) continue;
    say(R, " %s %d", def->factions[L->faction[gf]].id, n);
    show_kinds(R, L->faction[gf], gf, a, -1, true, false, NULL, &none);
    if (json) sb_printf(&R->jextra, "%s\"%s\":%d", first ? "" : ",", def->factions[L->faction[gf]].id, n);
    first = 0;
  }
  if (first) say(R, " no forces");
  int sv = board_var_index(def, "board_spice");
  long long spice = sv >= 0 ? board_var_area_total(L, ST(R), sv, a) : 0;
  say(R, "; spice %lld", spice);
  if (json) {
    /* "kinds": by faction, the tokens by kind when some are not of its default kind */
    int jfirst = 1;
    sb_puts(&R->jextra, "},\"kinds\":{");
    for (int gf = 0; gf < L->nf; gf++)
      if (board_tokens_in_area(L, ST(R), a, gf, 0))
        show_kinds(R, L->faction[gf], gf, a, -1, false, true, def->factions[L->faction[gf]].id, &jfirst);
    sb_printf(&R->jextra, "},\"spice\":%lld", spice);
  }
}

static int cmd_show(repl *R, int argc, char **argv) {
  if (argc >= 3 && !strcmp(argv[1], "faction")) {
    int f;
    if (need_faction(R, argv[2], &f) < 0) return -1;
    show_faction(R, f, true, R->viewer); /* what the current view may see (view as) */
    return 0;
  }
  if (argc >= 3 && !strcmp(argv[1], "territory")) {
    int a;
    if (need_area(R, argv[2], &a) < 0) return -1;
    show_territory(R, a, true);
    return 0;
  }
  if (argc >= 2 && strcmp(argv[1], "state")) return fail(R, "usage: show [state|faction F|territory T]");
  const program *p = &R->r->prog;
  int turn = p->turn_var >= 0 ? board_var_get(LAY(R), ST(R), p->vars[p->turn_var].board_var, 0, 0) : 0;
  int storm = board_var_index(DEF(R), "storm") >= 0 ? get_var(R, "storm", 0) : -1;
  int ph = R->g->v.vs->phase_rule;
  say(R, "turn %d, storm in sector %d, phase %s; ", turn, storm, ph >= 0 ? p->rules[ph].id : "-");
  sb_printf(&R->jextra, ",\"turn\":%d,\"storm\":%d,\"hash\":\"%016llx\"", turn, storm, (unsigned long long)mt_hash(R->g));
  describe_pending(R);
  for (int gf = 0; gf < LAY(R)->nf; gf++) {
    say(R, "\n");
    show_faction(R, LAY(R)->faction[gf], false, R->viewer);
  }
  return 0;
}

/* view as FACTION: the position as that faction may see it (1.11): others'
 * secret variables and owner-only piles are redacted; `view as all` ends it. */
static int cmd_view(repl *R, int argc, char **argv) {
  if (argc != 3 || strcmp(argv[1], "as")) return fail(R, "usage: view as FACTION|all");
  if (!strcmp(argv[2], "all")) {
    R->viewer = -1;
    say(R, "viewing everything");
    return 0;
  }
  int f;
  if (need_faction(R, argv[2], &f) < 0) return -1;
  R->viewer = f;
  say(R, "viewing as %s:\n", DEF(R)->factions[f].id);
  const board_def *def = DEF(R);
  for (int gf = 0; gf < LAY(R)->nf; gf++) {
    show_faction(R, LAY(R)->faction[gf], false, f);
    say(R, "\n");
  }
  for (int p = 0; p < def->npiles; p++)
    if (def->piles[p].scope == BS_GLOBAL) {
      int slot = board_pile_slot(LAY(R), p, -1), n = board_pile_count(LAY(R), ST(R), slot);
      if (!n) continue;
      say(R, "%s: %d card%s", def->piles[p].name, n, n == 1 ? "" : "s");
      if (may_see(def->piles[p].visibility, f, -1) && n) say(R, ", top %s", def->cards[board_pile_top(LAY(R), ST(R), slot)].id);
      say(R, "\n");
    }
  return 0;
}

/* Who wins if the victory phase of this turn were resolved now: run that
 * phase on a copy of the game with passive bots and read `winners`. */
static int cmd_winner(repl *R) {
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
    attach(R, R->g);
    rc = seek_phase(R, k);
    if (rc == 0) {
      R->g->v.vs->stop_phase_end = k;
      rc = advance(R, 1);
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
    mt_game_free(R->g);
    R->g = saved;
    R->bots = saved_bots;
    attach(R, R->g);
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

/* The path of file NAME for save/load.  In a sandbox (the console fuzzer)
 * NAME must be a plain name, and it lives in the sandbox directory. */
static int file_path(repl *R, const char *name, char *path, size_t n) {
  if (!R->sandbox) return snprintf(path, n, "%s", name), 0;
  if (strchr(name, '/') || name[0] == '.' || !name[0] || strlen(name) > 64) return fail(R, "only plain file names here");
  snprintf(path, n, "%s/%s", R->sandbox, name);
  return 0;
}

static int cmd_save(repl *R, int argc, char **argv) {
  if (argc != 2) return fail(R, "usage: save FILE");
  char path[4200];
  if (file_path(R, argv[1], path, sizeof path) < 0) return -1;
  char *text = NULL;
  mt_save_position(R->g, &text);
  FILE *f = fopen(path, "w");
  if (!f) {
    free(text);
    return fail(R, "cannot write '%s': %s", argv[1], strerror(errno));
  }
  fputs(text, f);
  fclose(f);
  free(text);
  say(R, "saved to %s (state hash %016llx)", argv[1], (unsigned long long)mt_hash(R->g));
  return 0;
}

static int cmd_load(repl *R, int argc, char **argv) {
  if (argc != 2) return fail(R, "usage: load FILE");
  char path[4200];
  if (file_path(R, argv[1], path, sizeof path) < 0) return -1;
  if (!R->r && load_rules(R) < 0) return -1;
  mt_rules *r = R->r;
  mt_message_fn m = r->message;
  void *ud = r->message_ud;
  r->message = message;
  r->message_ud = R;
  mt_game *g = mt_load_position(r, path);
  r->message = m;
  r->message_ud = ud;
  if (!g) return fail(R, "could not load '%s'", argv[1]);
  remember(R, R->g); /* undo goes back to the game the file replaced */
  R->g = g;
  attach(R, g);
  say(R, "loaded %s (state hash %016llx)", argv[1], (unsigned long long)mt_hash(g));
  return 0;
}

static int set_command(repl *R, char *buf, const char *rest);

/* set VAR(ARG, ...) = EXPR: any variable of the data or the rules; the
 * arguments and the value are expressions of the rules language. */
static int cmd_set(repl *R, const char *rest) {
  char *buf = mt_strdup(rest);
  int rc = set_command(R, buf, rest);
  mt_free(buf);
  return rc;
}

static int set_command(repl *R, char *buf, const char *rest) {
  char *eq = strchr(buf, '=');
  if (!eq) return fail(R, "usage: set VAR(ARGS) = EXPR");
  *eq = 0;
  char *lhs = buf, *rhs = eq + 1;
  while (*lhs == ' ') lhs++;
  char *paren = strchr(lhs, '(');
  char name[128];
  size_t nl = paren ? (size_t)(paren - lhs) : strlen(lhs);
  while (nl && lhs[nl - 1] == ' ') nl--;
  snprintf(name, sizeof name, "%.*s", (int)nl, lhs);
  const program *p = &R->r->prog;
  int var = -1;
  for (int i = 0; i < p->nvars; i++)
    if (!strcmp(p->vars[i].name, name)) var = i;
  if (var < 0) {
    const char **c = mt_calloc((size_t)p->nvars + 1, sizeof *c);
    for (int i = 0; i < p->nvars; i++) c[i] = p->vars[i].name;
    int rc = suggest_fail(R, "variable", name, c, (size_t)p->nvars);
    mt_free(c);
    return rc;
  }
  int64_t args[MAX_PARAMS] = {0};
  int nargs = 0;
  if (paren) {
    char *close = strrchr(paren, ')');
    if (!close) return fail(R, "missing ')'");
    *close = 0;
    char *a = paren + 1;
    int depth = 0;
    char *start = a;
    for (char *q = a;; q++) {
      if (*q == '(' || *q == '[' || *q == '{') depth++;
      if (*q == ')' || *q == ']' || *q == '}') depth--;
      if ((*q == ',' && depth == 0) || !*q) {
        char end = *q;
        *q = 0;
        if (*start && nargs < MAX_PARAMS) {
          int ty;
          strbuf err = {0};
          bool ok = game_eval(R->g, start, &args[nargs], &ty, &err);
          if (!ok) {
            fail(R, "%s", err.s ? err.s : "bad argument");
            sb_free(&err);
            return -1;
          }
          sb_free(&err);
          nargs++;
        }
        if (!end) break;
        start = q + 1;
      }
    }
  }
  if (nargs != p->vars[var].nparams) return fail(R, "%s takes %d argument(s)", name, p->vars[var].nparams);
  int64_t value;
  int ty;
  strbuf err = {0};
  if (!game_eval_as(R->g, rhs, p->vars[var].type, &value, &ty, &err)) {
    fail(R, "%s", err.s ? err.s : "bad value");
    sb_free(&err);
    return -1;
  }
  sb_free(&err);
  int code = vm_var_store(&R->g->v, var, args, value);
  if (code) return fail(R, "%s cannot take that value here (%s)", name, code == VE_ABSENT ? "a faction not in the game" : "out of range");
  strbuf v = {0};
  vm_format_value(&R->g->v, p->vars[var].type, value, &v);
  const char *shown = rest;
  while (*shown == ' ') shown++;
  say(R, "%.*s= %s", (int)(strchr(shown, '=') - shown), shown, v.s);
  sb_free(&v);
  return 0;
}

/* leader L STATUS: a leader's status (a value of the data's leader statuses). */
static int cmd_leader(repl *R, int argc, char **argv) {
  if (argc != 3) return fail(R, "usage: leader LEADER STATUS");
  const board_def *def = DEF(R);
  int l = board_leader_index(def, argv[1]);
  if (l < 0) {
    const char **c = mt_calloc((size_t)def->nleaders + 1, sizeof *c);
    for (int i = 0; i < def->nleaders; i++) c[i] = def->leaders[i].id;
    int rc = suggest_fail(R, "leader", argv[1], c, (size_t)def->nleaders);
    mt_free(c);
    return rc;
  }
  if (LAY(R)->game_faction[def->leaders[l].faction] < 0) /* its record is not part of this game (nor of a save) */
    return fail(R, "%s belongs to %s, which is not in this game", argv[1], def->factions[def->leaders[l].faction].id);
  int s = -1;
  for (int i = 0; i < def->nleader_status; i++)
    if (!strcmp(def->leader_status[i], argv[2])) s = i;
  if (s < 0) return suggest_fail(R, "leader status", argv[2], (const char *const *)def->leader_status, (size_t)def->nleader_status);
  board_leader_state ls = board_leader_get(LAY(R), ST(R), l);
  ls.status = (int8_t)s;
  board_leader_set(LAY(R), ST(R), l, ls);
  say(R, "%s is %s", argv[1], argv[2]);
  return 0;
}

static int cmd_eval(repl *R, const char *rest, bool check) {
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
static int cmd_expect(repl *R, int argc, char **argv, const char *rest, int prev_ok) {
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

static int cmd_explain(repl *R, int argc, char **argv) {
  bool bytecode = false;
  const char *id = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--bytecode")) bytecode = true;
    else id = argv[i];
  }
  if (!id) return fail(R, "usage: explain RULE-ID [--bytecode]");
  if (!R->r && load_rules(R) < 0) return -1;
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

static int cmd_rules_query(repl *R, int argc, char **argv) {
  if (!R->r && load_rules(R) < 0) return -1;
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

/* After a change succeeded: BEFORE (the game as it was, taken) becomes the
 * last undo step, and the redo list is forgotten. */
static void remember(repl *R, mt_game *before) {
  if (!before) return;
  if (R->nhistory == 256) {
    mt_game_free(R->history[0]);
    memmove(R->history, R->history + 1, sizeof R->history[0] * 255);
    R->nhistory--;
  }
  R->history[R->nhistory++] = before;
  while (R->nfuture) mt_game_free(R->future[--R->nfuture]);
}

static int cmd_undo(repl *R, bool redo) {
  mt_game **from = redo ? R->future : R->history, **to = redo ? R->history : R->future;
  int *nfrom = redo ? &R->nfuture : &R->nhistory, *nto = redo ? &R->nhistory : &R->nfuture;
  if (!*nfrom) return fail(R, "nothing to %s", redo ? "redo" : "undo");
  if (*nto < 256) to[(*nto)++] = R->g;
  else mt_game_free(R->g);
  R->g = from[--*nfrom];
  attach(R, R->g);
  say(R, "%s: state hash %016llx", redo ? "redone" : "undone", (unsigned long long)mt_hash(R->g));
  return 0;
}

/* fork NAME: keep a copy of this position as branch NAME; switch NAME: go to
 * it (the current position is kept under the current branch's name). */
static int cmd_branch(repl *R, int argc, char **argv) {
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
    return suggest_fail(R, "branch", argv[1], c, (size_t)R->nbranches);
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
  attach(R, R->g);
  snprintf(R->branch, sizeof R->branch, "%s", argv[1]);
  say(R, "on branch %s", argv[1]);
  return 0;
}

/* offer ACTION ARGS: an action that may be taken at any time (a deal, a
 * bribe) is judged by its guards and, if legal, its effect runs now; the
 * pending decision stays pending. */
static int cmd_offer(repl *R, const char *rest) {
  mt_choice c;
  char err[256];
  if (game_parse_action(R->g, rest, &c, err, sizeof err) < 0) return fail(R, "%s", err);
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
  if (vm_call_now(&R->g->v, a->effect_fn, args, a->nparams + 1) < 0) return fail(R, "%s", mt_error(R->g));
  say(R, "done: %s", rest);
  return 0;
}

/* What a legal action would do: its effect run on a copy of the game, with the
 * narration captured (up to the first decision it would ask for). */
static void would_do(repl *R, mt_game *g, const char *rest, strbuf *lines, strbuf *stop) {
  mt_choice c;
  char err[256];
  int64_t cost = 0;
  if (game_parse_action(g, rest, &c, err, sizeof err) < 0 || game_judge_action(g, &c, &cost, err, sizeof err) != 1)
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
  attach(R, copy);
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
static mt_game *decision_point(repl *R, const mt_choice *c, strbuf *where) {
  if (c->action < 0 || offers(R->g, c->args[0], c->action)) return NULL;
  int st = mt_status(R->g);
  if (st == VM_IDLE || st == MT_FINISHED || st == MT_FAILED) return NULL;
  const program *p = &R->r->prog;
  const char *fac = DEF(R)->factions[LAY(R)->faction[c->args[0]]].id, *act = p->actions[c->action].name;
  mt_game *g = mt_clone(R->g);
  mt_game_set_log(g, NULL, NULL); /* what the copy plays is not narrated: only where it stopped is said */
  g->v.fired = NULL;
  vm_state *vs = g->v.vs;
  /* within this phase: the one under way, or the one about to begin */
  vs->stop_phase_end = vs->phase_rule;
  if (vs->phase_rule < 0 && st == MT_PAUSED && vs->nframes > 0) {
    uint32_t pc = (uint32_t)vs->frames[vs->nframes - 1].pc;
    if (pc < p->ncode && p->code[pc] == OP_PHASE_BEGIN) memcpy(&vs->stop_phase_end, p->code + pc + 1, 4);
  }
  int phase = vs->stop_phase_end;
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
  st = mt_status(g);
  sb_printf(where, "%s is not offered %s %s", fac, act,
            st == MT_FINISHED ? "before the game ends"
            : phase >= 0 ? "before this phase ends"
                         : "in this phase");
  if (phase >= 0) sb_printf(where, " (%s %s)", p->rules[phase].id, p->rules[phase].title ? p->rules[phase].title : "");
  sb_puts(where, ", the passive policy answering the decisions before: judged in the position as it stands");
  sb_free(&taken);
  mt_game_free(g);
  return NULL;
}

static int cmd_why(repl *R, const char *rest) {
  if (!*rest || !strcmp(rest, "last")) {
    if (!R->last_fired.n) return fail(R, "nothing has run yet");
    say(R, "the last step ran these rules, in order:\n%s", R->last_fired.s);
    if (R->last_narr.n) say(R, "and this is what they did:\n%s", R->last_narr.s);
    return 0;
  }
  strbuf b = {0}, where = {0};
  mt_choice c;
  char perr[256];
  mt_game *at = NULL;
  if (game_parse_action(R->g, rest, &c, perr, sizeof perr) >= 0) at = decision_point(R, &c, &where);
  mt_game *g = at ? at : R->g;
  int rc = explain_why(g, rest, R->json, &b);
  if (rc < 0) {
    if (R->json) { /* the error as plain text: the JSON line wraps it */
      sb_free(&b);
      explain_why(g, rest, false, &b);
    }
    fail(R, "%s", b.s);
  } else {
    strbuf eff = {0}, stop = {0};
    would_do(R, g, rest, &eff, &stop);
    if (R->json) {
      sb_printf(&R->jextra, ",%s", b.s);
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
      sb_puts(&R->out, b.s);
      if (where.n) sb_printf(&R->out, "\n(%s)", where.s);
      if (eff.n || stop.n) sb_puts(&R->out, at ? "\nif taken then, on a copy of the game:" : "\nif taken now, on a copy of the game:");
      if (eff.n) sb_printf(&R->out, "\n%s", eff.s);
      if (stop.n) sb_printf(&R->out, "\n%s", stop.s);
    }
    sb_free(&eff);
    sb_free(&stop);
  }
  sb_free(&b);
  sb_free(&where);
  if (at) {
    mt_game_free(at);
    attach(R, R->g);
  }
  return rc;
}

static const char *const help_text[][2] = {
    {"new", "new [factions=a,b] [ruleset=basic|advanced] [variants=a,b] [seed=N] [turns=N] -- a new game at the start position"},
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
    {"bots", "bots random|uniform|passive|heuristic -- how decisions are answered by run (heuristic: greedy on the rules' bot_value)"},
    {"show", "show [state|faction F|territory T] -- the position"},
    {"legal", "legal -- the pending decision and its legal answers"},
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
    {"undo", "undo / redo -- step back or forward through changes"},
    {"redo", "redo -- after undo"},
    {"fork", "fork NAME -- keep a copy of this position as a branch"},
    {"switch", "switch NAME -- go to a branch (the current position stays on its branch)"},
    {"save", "save FILE -- the position as YAML"},
    {"load", "load FILE -- a saved position"},
    {"view", "view as FACTION|all -- the position as that faction may see it: others' secret spice and hands redacted (1.11)"},
    {"help", "help [COMMAND]"},
};

static int cmd_help(repl *R, int argc, char **argv) {
  size_t n = sizeof help_text / sizeof *help_text;
  if (argc > 1) {
    for (size_t i = 0; i < n; i++)
      if (!strcmp(help_text[i][0], argv[1])) {
        say(R, "%s", help_text[i][1]);
        return 0;
      }
    const char *c[64];
    for (size_t i = 0; i < n && i < 64; i++) c[i] = help_text[i][0];
    return suggest_fail(R, "command", argv[1], c, n);
  }
  say(R, "commands (help COMMAND for one; docs/console.md for all):\n");
  for (size_t i = 0; i < n; i++) say(R, "  %s\n", help_text[i][1]);
  return 0;
}

static int run_command(repl *R, const char *cmd, int argc, char **argv, const char *rest);

#define MAX_WORDS 1024 /* words in one command */

static int dispatch_words(repl *R, char *line, char *copy, char **argv, int prev_ok);

static int dispatch(repl *R, char *line, int prev_ok) {
  char *copy = mt_strdup(line);
  char **argv = mt_calloc(MAX_WORDS + 1, sizeof *argv);
  int rc = dispatch_words(R, line, copy, argv, prev_ok);
  mt_free(argv);
  mt_free(copy);
  return rc;
}

static int dispatch_words(repl *R, char *line, char *copy, char **argv, int prev_ok) {
  int argc = 0;
  bool too_many = false;
  for (char *t = strtok(copy, " \t"); t; t = strtok(NULL, " \t")) {
    if (argc == MAX_WORDS) {
      too_many = true;
      break;
    }
    argv[argc++] = t;
  }
  if (!argc) return 0;
  const char *cmd = argv[0];
  /* commands that read their text as an expression or an action take any length */
  static const char *const textual[] = {"set", "eval", "check", "why", "do", "offer", "expect"};
  bool is_text = false;
  for (size_t i = 0; i < sizeof textual / sizeof *textual; i++) is_text |= !strcmp(cmd, textual[i]);
  if (too_many && !is_text) return fail(R, "a command has at most %d words", MAX_WORDS);
  const char *rest = line + strlen(cmd);
  while (*rest == ' ' || *rest == '\t') rest++;
  if (!strcmp(cmd, "expect")) return cmd_expect(R, argc, argv, line, prev_ok);
  if (!strcmp(cmd, "new")) return cmd_new(R, argc, argv);
  if (!strcmp(cmd, "load")) return cmd_load(R, argc, argv);
  if (!strcmp(cmd, "trace")) {
    if (argc != 2 || (strcmp(argv[1], "on") && strcmp(argv[1], "off"))) return fail(R, "usage: trace on|off");
    R->trace = !strcmp(argv[1], "on");
    say(R, "trace %s", argv[1]);
    return 0;
  }
  if (!strcmp(cmd, "explain")) return cmd_explain(R, argc, argv);
  if (!strcmp(cmd, "rules")) return cmd_rules_query(R, argc, argv);
  if (!strcmp(cmd, "bots")) {
    if (argc != 2 || bot_kind_parse(argv[1]) < 0) return fail(R, "usage: bots random|uniform|passive|heuristic");
    R->bots = bot_kind_parse(argv[1]);
    say(R, "bots: %s", argv[1]);
    return 0;
  }
  static const char *const cmds[] = {"new", "clear", "put", "tanks", "reserves", "spice", "give", "storm", "turn",
                                     "phase", "ally", "unally", "hand", "discard", "stack", "bots", "show", "legal",
                                     "do", "run", "winner", "check", "eval", "expect", "help", "load", "save", "why", "explain", "rules",
                                     "trace", "undo", "redo", "fork", "switch", "set", "leader", "view", "offer"};
  bool known = false;
  for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) known |= !strcmp(cmds[i], cmd);
  if (!known) {
    const char *s = diag_suggest(cmd, cmds, sizeof cmds / sizeof *cmds);
    return s ? fail(R, "unknown command '%s' (did you mean '%s'?)", cmd, s) : fail(R, "unknown command '%s'", cmd);
  }
  if (!strcmp(cmd, "help")) return cmd_help(R, argc, argv);
  if (need_game(R) < 0) return -1;
  if (!strcmp(cmd, "undo")) return cmd_undo(R, false);
  if (!strcmp(cmd, "redo")) return cmd_undo(R, true);
  if (!strcmp(cmd, "fork") || !strcmp(cmd, "switch")) return cmd_branch(R, argc, argv);
  static const char *const changing[] = {"clear", "put", "tanks", "reserves", "spice", "give", "hand", "discard", "stack",
                                         "storm", "turn", "phase", "ally", "unally", "do", "run", "set", "leader", "offer"};
  bool changes = false;
  for (size_t i = 0; i < sizeof changing / sizeof *changing; i++) changes |= !strcmp(cmd, changing[i]);
  if (!changes) return run_command(R, cmd, argc, argv, rest);
  /* a command that changes the game keeps the state before it for undo, and a
   * failed one puts it back: whatever it did before failing is undone */
  mt_game *before = mt_clone(R->g);
  uint64_t bot_rng = R->bot_rng; /* the bots' generator is put back too */
  int rc = run_command(R, cmd, argc, argv, rest);
  if (rc < 0) {
    mt_game_free(R->g);
    R->g = before;
    R->bot_rng = bot_rng;
    attach(R, before);
  } else {
    remember(R, before);
  }
  return rc;
}

/* Runs a command that needs a game. */
static int run_command(repl *R, const char *cmd, int argc, char **argv, const char *rest) {
  if (!strcmp(cmd, "clear")) return cmd_clear(R, argc, argv);
  if (!strcmp(cmd, "put")) return cmd_put(R, argc, argv);
  if (!strcmp(cmd, "tanks") || !strcmp(cmd, "reserves")) return cmd_pool(R, argc, argv);
  if (!strcmp(cmd, "spice")) return cmd_spice(R, argc, argv);
  if (!strcmp(cmd, "give")) return cmd_give(R, argc, argv, false);
  if (!strcmp(cmd, "hand")) return cmd_give(R, argc, argv, true);
  if (!strcmp(cmd, "discard")) return cmd_stack(R, argc, argv, true);
  if (!strcmp(cmd, "stack")) return cmd_stack(R, argc, argv, false);
  if (!strcmp(cmd, "storm") || !strcmp(cmd, "turn")) return cmd_setmarker(R, argc, argv);
  if (!strcmp(cmd, "phase")) return cmd_phase(R, argc, argv);
  if (!strcmp(cmd, "ally") || !strcmp(cmd, "unally")) return cmd_ally(R, argc, argv);
  if (!strcmp(cmd, "show")) return cmd_show(R, argc, argv);
  if (!strcmp(cmd, "legal")) return cmd_legal(R);
  if (!strcmp(cmd, "do")) return cmd_do(R, rest);
  if (!strcmp(cmd, "run")) return cmd_run(R, argc, argv);
  if (!strcmp(cmd, "winner")) return cmd_winner(R);
  if (!strcmp(cmd, "save")) return cmd_save(R, argc, argv);
  if (!strcmp(cmd, "set")) return cmd_set(R, rest);
  if (!strcmp(cmd, "leader")) return cmd_leader(R, argc, argv);
  if (!strcmp(cmd, "why")) return cmd_why(R, rest);
  if (!strcmp(cmd, "offer")) return cmd_offer(R, rest);
  if (!strcmp(cmd, "view")) return cmd_view(R, argc, argv);
  if (!strcmp(cmd, "check")) return cmd_eval(R, rest, true);
  return cmd_eval(R, rest, false);
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
static char *complete_word(const char *text, int state) {
  static size_t i, phase;
  static const char *const cmds[] = {"new", "clear", "put", "tanks", "reserves", "spice", "give", "hand", "discard",
                                     "stack", "storm", "turn", "phase", "ally", "unally", "bots", "show", "legal", "do",
                                     "why", "explain", "rules", "run", "winner", "eval", "check", "expect", "trace",
                                     "undo", "redo", "fork", "switch", "save", "load", "help", "faction", "territory",
                                     "state", "step", "game", "last", "random", "passive", "on", "off"};
  if (!state) i = phase = 0;
  size_t n = strlen(text);
  repl *R = completing;
  const board_def *def = R && R->r ? R->r->def : NULL;
  for (;;) {
    const char *cand = NULL;
    if (phase == 0) {
      if (i < sizeof cmds / sizeof *cmds) cand = cmds[i++];
      else phase++, i = 0;
    } else if (phase == 1) {
      if (def && i < (size_t)def->nfactions) cand = def->factions[i++].id;
      else phase++, i = 0;
    } else if (phase == 2) {
      if (def && i < (size_t)def->nareas) cand = def->areas[i++].id;
      else phase++, i = 0;
    } else if (phase == 3) {
      if (def && i < (size_t)def->ncards) cand = def->cards[i++].id;
      else phase++, i = 0;
    } else if (phase == 4) {
      if (R && R->r && i < (size_t)R->r->prog.nrules) cand = R->r->prog.rules[i++].id;
      else return NULL;
    }
    if (cand && !strncmp(cand, text, n)) return strdup(cand);
  }
}

static char **complete(const char *text, int start, int end) {
  (void)start;
  (void)end;
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
static int read_command(repl *R, FILE *in, bool interactive, strbuf *cmd) {
  sb_free(cmd);
  sb_puts(cmd, "");
  bool any = false;
#ifdef MT_HAVE_LIBEDIT
  if (interactive) {
    for (;;) {
      char *l = readline(any ? "   ...> " : "mentat> ");
      if (!l) break;
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
  const char *variants[32], *packs[32];
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
  FILE *in = script ? fopen(script, "r") : stdin;
  if (!in) {
    fprintf(stderr, "mentat repl: cannot open '%s': %s\n", script, strerror(errno));
    return 74;
  }
  int rc = repl_run(in, stdout, script, &o);
  if (in != stdin) fclose(in);
  return rc;
}

int repl_run(FILE *in, FILE *out, const char *script, const repl_options *o) {
  repl *R = mt_calloc(1, sizeof *R);
  R->viewer = -1;
  R->outf = out;
  R->json = o->json;
  R->sandbox = o->sandbox;
  snprintf(R->components, sizeof R->components, "%s", o->pack ? o->pack : ".");
  R->packs = o->packs;
  R->npacks = o->npacks;
  for (int i = 0; i < o->nvariants && i < 32; i++) R->variants[R->nvariants++] = o->variants[i];
  R->advanced = o->rules ? o->rules->advanced : o->advanced;
  if (o->rules) R->r = (mt_rules *)(uintptr_t)game_rules_retain(o->rules);
  R->file = script;
  int prev_ok = 1;
  bool interactive = !script && in == stdin && isatty(0);
#ifdef MT_HAVE_LIBEDIT
  if (interactive) {
    completing = R;
    rl_attempted_completion_function = complete;
    using_history();
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
    int rc = dispatch(R, s, prev_ok);
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
    if (script && !R->json && (rc < 0 || is_expect)) {
      if (rc < 0) fprintf(out, "%s:%d: %s\n", script, R->line, s);
    }
    emit(R, out);
    if (rc < 0 && !R->json) caret(R, s, out);
    if (!is_expect) {
      prev_ok = rc == 0;
      snprintf(R->last_output, sizeof R->last_output, "%s%s", R->log.s ? R->log.s : "", R->out.s ? R->out.s : "");
    }
  }
  sb_free(&cmdline);
  int failed = R->failures + R->errors;
  if (script && !R->json) fprintf(out, "%s: %d failed\n", script, failed);
  sb_free(&R->out);
  sb_free(&R->log);
  sb_free(&R->jextra);
  sb_free(&R->fired);
  sb_free(&R->last_fired);
  sb_free(&R->last_narr);
  for (int i = 0; i < R->nhistory; i++) mt_game_free(R->history[i]);
  for (int i = 0; i < R->nfuture; i++) mt_game_free(R->future[i]);
  for (int i = 0; i < R->nbranches; i++) mt_game_free(R->branches[i].g);
  mt_game_free(R->g);
  mt_rules_free(R->r);
  mt_free(R);
  return failed ? 1 : 0;
}
