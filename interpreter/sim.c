/* sim.c -- seeded random playouts with invariants and statistics.
 *
 * Game i of a run uses seed S+i for the game and for its bot, so any game can
 * be replayed alone.  After every step the engine's invariants (tokens of
 * each faction and kind conserved, every card in exactly one pile) and every
 * `invariant` declared by the rules are checked; a failure ends that game, and
 * the run goes on: every failing game is listed with its seed, its decision
 * and a command line that replays it alone, and the exit status is 1
 * (--no-invariants skips the checks, for balance runs).  With --jobs J the
 * games are split over J processes (game i goes to process i mod J); a process
 * that dies before reporting all its games makes the run fail (exit 70) with
 * the count of games missing.
 *
 * `compare` (sim_compare_main) plays two rule sets on the same seeds with the
 * same play_one, always in worker processes, and hands the results to stats.c
 * as records: the summary, the records file, merge and the plot live there.
 * Both commands show progress on a terminal: the workers write one byte per
 * game to a pipe that the parent counts. */
#define _POSIX_C_SOURCE 200809L
#include "sim.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bots.h"
#include "game.h"
#include "reads.h"
#include "search.h"

/* The engine's own invariants; the first violation is described in OUT.
 * Only the parts W saw change are checked again (tokens, cards). */
static bool engine_invariants(mt_game *g, const vm_watch *w, board_tally *tally, strbuf *out) {
  const board_layout *L = g->L;
  const board_def *def = g->r->def;
  const unsigned char *st = g->v.st;
  if (!(w->changed_fixed & (RD_TOKENS | RD_ALL))) goto piles;
  const long *totals = tally->totals; /* summed again only where the tokens changed (board_tally) */
  int neg_loc = -1, neg_slot = -1;
  bool sound = board_tally_update(tally, L, st);
  if (!sound) { /* the first negative stack, for the message */
    long all[BOARD_MAX_FACTIONS * BOARD_MAX_KINDS];
    board_slot_totals(L, st, all, &neg_loc, &neg_slot);
  }
  for (int gf = 0; gf < L->nf; gf++) {
    const board_faction *bf = &def->factions[L->faction[gf]];
    for (int k = 0; k < def->nkinds; k++) {
      int slot = L->slot[gf][k];
      if (slot < 0) continue;
      if (!sound && slot == neg_slot) {
        sb_printf(out, "%s has %d %s tokens at location %d", bf->id, board_tokens(L, st, neg_loc, gf, k), def->kinds[k], neg_loc);
        return false;
      }
      /* a kind of 0 tokens on the sheet is the other face of the default kind's tokens (turn_over
       * moves tokens between the two): those are counted with the default kind */
      if (bf->forces[k] == 0 && k != bf->default_kind) continue;
      long total = totals[slot];
      if (k == bf->default_kind)
        for (int j = 0; j < def->nkinds; j++)
          if (j != k && bf->forces[j] == 0 && L->slot[gf][j] >= 0) total += totals[L->slot[gf][j]];
      if (total != bf->forces[k]) {
        sb_printf(out, "%s has %ld %s tokens in all places, but its sheet has %d", bf->id, total, def->kinds[k], bf->forces[k]);
        return false;
      }
    }
  }
piles:
  if (!(w->changed_fixed & (RD_CARDS | RD_ALL))) return true;
  int bad;
  switch (board_check_piles(L, st, &bad)) {
  case 0: return true;
  case 1: sb_printf(out, "card %s is recorded at a position outside its pile", def->cards[bad].id); return false;
  case 2: sb_printf(out, "card %s is recorded at a position of a pile that holds another card there", def->cards[bad].id); return false;
  default: sb_puts(out, "the piles' card counts do not match the cards placed in them"); return false;
  }
}

/* The rules' invariants.  W remembers which held at the last check and the
 * state then: an invariant that held, and reads nothing that has changed
 * since (reads.c), is not evaluated again. */
static bool rule_invariants(mt_game *g, vm_watch *w, strbuf *out) {
  const program *p = &g->r->prog;
  vm_memo_reset(&g->v);
  bool plain = g->v.vs->ncancel == 0; /* no cancellation: a rule is in force if in play (vm_rule_in_play) */
  for (int i = 0; i < p->ninvariants; i++) {
    const invariant_rec *iv = &p->invariants[i];
    if (!(plain ? vm_rule_in_play(&g->v, iv->rule) : vm_rule_active(&g->v, iv->rule))) {
      w->held[i] = 0;
      continue;
    }
    if (w->held[i] && !vm_watch_stale(w, p, iv->fn)) continue;
    w->held[i] = 0;
    int64_t ok = 0;
    strbuf err = {0};
    if (!vm_eval(&g->v, iv->fn, NULL, 0, &ok, &err)) {
      sb_printf(out, "invariant of rule %s (%s) could not be evaluated: %s", p->rules[iv->rule].id, iv->text, err.s ? err.s : "");
      sb_free(&err);
      return false;
    }
    if (!ok) {
      sb_printf(out, "invariant of rule %s failed: %s", p->rules[iv->rule].id, iv->text);
      return false;
    }
    w->held[i] = 1;
  }
  return true;
}

/* Every invariant, the engine's and the rules', of the position after a
 * step; W is then told the position they held in. */
static bool invariants(mt_game *g, vm_watch *w, board_tally *tally, strbuf *out) {
  vm_watch_diff(w, &g->v);
  if (!engine_invariants(g, w, tally, out) || !rule_invariants(g, w, out)) return false;
  vm_watch_commit(w, &g->v);
  return true;
}

typedef struct sim_opts {
  const char *replay; /* the options that replay a game: pack, factions, bots, limits */
  int bots[BOARD_MAX_FACTIONS]; /* by seat (game faction); one kind: every seat */
  int nbots;
  const char *bots_text;
  long games;
  uint64_t seed;
  int jobs;
  bool json;
  long max_decisions;
  const char *factions;
  bool unchecked; /* --no-invariants: balance runs that trust the rules */
  uint64_t work_budget; /* per decision (0: MT_WORK_BUDGET) */
  bool quiet;           /* --quiet: no progress line even on a terminal */
} sim_opts;

static int find_var(const program *p, const char *name) {
  for (int i = 0; i < p->nvars; i++)
    if (!strcmp(p->vars[i].name, name)) return i;
  return -1;
}

static int64_t read_var(mt_game *g, int v) {
  const var_rec *vr = &g->r->prog.vars[v];
  int64_t x = (uint32_t)board_var_get(g->L, g->v.st, vr->board_var, 0, 0);
  if (vr->width == 2) x |= (int64_t)((uint64_t)(uint32_t)board_var_get(g->L, g->v.st, vr->board_var, 0, 1) << 32);
  else x = board_var_get(g->L, g->v.st, vr->board_var, 0, 0);
  return x;
}

/* In a profiling build (-DMT_PROFILE), the VM instructions spent checking
 * invariants, choosing (the bots) and applying the choices, reported by
 * MENTAT_PROFILE=1 simulate. */
#ifdef MT_PROFILE
static uint64_t prof_split[3], prof_last;
#define PROF_MARK(k) ((k) ? (void)(prof_split[(k) - 1] += g->v.steps - prof_last) : (void)0, prof_last = g->v.steps)
#else
#define PROF_MARK(k) ((void)0)
#endif

/* Plays game SEED; writes one result line to OUT:
 *   ok SEED DECISIONS WINNERS_MASK VICTORY_RULE VM_INSTRUCTIONS PEAK_DECISION_WORK TURNS
 *   fail SEED STEP MESSAGE */
static void play_one(const mt_rules *r, const sim_opts *o, uint64_t seed, FILE *out) {
  const char *fac[BOARD_MAX_FACTIONS];
  int nf = 0;
  char facbuf[512];
  if (o->factions) {
    snprintf(facbuf, sizeof facbuf, "%s", o->factions);
    for (char *t = strtok(facbuf, ","); t && nf < BOARD_MAX_FACTIONS; t = strtok(NULL, ",")) fac[nf++] = t;
  }
  char err[256];
  mt_game *g = mt_game_new(r, o->factions ? fac : NULL, nf, seed, err, sizeof err);
  if (!g) {
    fprintf(out, "fail %llu 0 %s\n", (unsigned long long)seed, err);
    return;
  }
  mt_set_work_budget(g, o->work_budget);
  vm_watch inv = {0};
  vm_watch_reset(&inv, &g->v, r->prog.ninvariants);
  board_tally tally = {0};
  uint64_t bot = seed ^ 0x626f74ull;
  strbuf why = {0};
  long step = 0;
  int st = mt_start(g);
  bool bad = false;
  while (!bad) {
    PROF_MARK(0);
    if (!o->unchecked && !invariants(g, &inv, &tally, &why)) {
      bad = true;
      break;
    }
    if (st != MT_WAITING) break;
    if (step >= o->max_decisions) {
      sb_printf(&why, "the game did not end within %ld decisions", o->max_decisions);
      bad = true;
      break;
    }
    PROF_MARK(1);
    mt_choice c;
    int seat = o->nbots > 1 ? vm_game_faction(&g->v, g->v.vs->dec.faction) : 0;
    bool chose = bot_choose(g, o->bots[seat >= 0 && seat < o->nbots ? seat : 0], &bot, &c);
    PROF_MARK(2);
    if (!chose) {
      const mt_decision *d = mt_pending(g);
      const char *stopped = mt_decision_error(g);
      if (stopped) sb_puts(&why, stopped);
      else sb_printf(&why, "%s has no legal answer to '%s' (rule %s)", d->faction, d->prompt, d->rule);
      bad = true;
      break;
    }
    mt_explain ex;
    st = mt_apply(g, &c, &ex);
    PROF_MARK(3);
    if (st < 0) {
      sb_printf(&why, "a legal choice was refused: %s", ex.text);
      bad = true;
      break;
    }
    step++;
  }
  if (!bad && st == MT_FAILED) {
    sb_puts(&why, mt_error(g));
    bad = true;
  }
  if (bad) {
    for (char *q = why.s; q && *q; q++)
      if (*q == '\n') *q = ' ';
    fprintf(out, "fail %llu %ld %s\n", (unsigned long long)seed, step, why.s ? why.s : "");
  } else {
    const program *p = &r->prog;
    int wv = find_var(p, "winners"), vv = find_var(p, "victory"), tv = find_var(p, "turn");
    int64_t w = wv >= 0 ? read_var(g, wv) : 0, v = vv >= 0 ? read_var(g, vv) : -1, t = tv >= 0 ? read_var(g, tv) : 0;
    fprintf(out, "ok %llu %ld %lld %lld %llu %llu %lld\n", (unsigned long long)seed, step, (long long)w, (long long)v,
            (unsigned long long)g->v.steps, (unsigned long long)mt_decision_work_peak(g), (long long)t);
  }
  sb_free(&why);
  vm_watch_free(&inv);
  board_tally_free(&tally);
  mt_game_free(g);
}

static void prof_report(void) {
#ifdef MT_PROFILE
  uint64_t t = prof_split[0] + prof_split[1] + prof_split[2];
  if (!t) return;
  fprintf(stderr, "VM instructions: %.1f%% invariants, %.1f%% choosing, %.1f%% applying (%llu in all)\n",
          100.0 * (double)prof_split[0] / (double)t, 100.0 * (double)prof_split[1] / (double)t,
          100.0 * (double)prof_split[2] / (double)t, (unsigned long long)t);
#endif
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The bots as given (one kind, or one per seat). */
static const char *bots_name(const sim_opts *o) { return o->bots_text ? o->bots_text : bot_kind_name(o->bots[0]); }

/* A comma-separated list as the items of a JSON array (without the brackets). */
static void json_names(strbuf *b, const char *list) {
  char *copy = mt_strdup(list ? list : "");
  int k = 0;
  for (char *t = strtok(copy, ","); t; t = strtok(NULL, ",")) {
    if (k++) sb_putc(b, ',');
    sb_json_str(b, t);
  }
  mt_free(copy);
}

/* Parses --shard I/N (1 <= I <= N). */
static bool parse_shard(const char *s, long *i, long *n) {
  char *end;
  errno = 0;
  *i = strtol(s, &end, 10);
  if (errno || end == s || *end != '/') return false;
  const char *q = end + 1;
  *n = strtol(q, &end, 10);
  return !errno && end != q && !*end && *n >= 1 && *n <= 1000000 && *i >= 1 && *i <= *n;
}

/* The side's def index of each of the run's factions. */
static void faction_map(const mt_rules *r, const sim_run *run, int map[SIM_MAX_FACTIONS]) {
  for (int f = 0; f < run->nfactions; f++) {
    map[f] = -1;
    for (int d = 0; d < r->def->nfactions; d++)
      if (!strcmp(r->def->factions[d].id, run->factions[f])) map[f] = d;
  }
}

/* A result line of play_one as a record of SIDE. */
static bool parse_result(const char *line, const mt_rules *r, const int map[SIM_MAX_FACTIONS], int nf, sim_record *rec,
                         const char **failure) {
  unsigned long long seed, ins, work;
  long steps;
  long long w, v, t;
  *failure = NULL;
  if (!strncmp(line, "fail ", 5)) {
    if (sscanf(line, "fail %llu %ld", &seed, &steps) != 2) return false;
    rec->seed = seed, rec->ok = false, rec->decisions = steps;
    *failure = line;
    return true;
  }
  if (sscanf(line, "ok %llu %ld %lld %lld %llu %llu %lld", &seed, &steps, &w, &v, &ins, &work, &t) != 7) return false;
  rec->seed = seed, rec->ok = true, rec->decisions = steps, rec->turns = (long)t;
  rec->winners = 0;
  for (int f = 0; f < nf; f++)
    if (map[f] >= 0 && map[f] < 64 && ((uint64_t)w >> map[f] & 1u)) rec->winners |= 1ull << f;
  rec->victory = v >= 0 && v < r->prog.nrules ? mt_strdup(r->prog.rules[v].id) : NULL; /* the caller frees it */
  return true;
}

/* The run's identity for records: its factions (the seated ones, or every
 * faction of the pack), bots, and each of the NSIDES rule sets RS with the
 * map from the run's factions to that rule set's.  WHO names the command in
 * a message.  Returns 0, or 64 when --factions is bad. */
static int run_setup(sim_run *run, const mt_rules *const *rs, int nsides, const sim_opts *o,
                     int map[2][SIM_MAX_FACTIONS], const char *who) {
  if (o->factions) {
    char buf[512];
    char *names[BOARD_MAX_FACTIONS];
    snprintf(buf, sizeof buf, "%s", o->factions);
    int n = mt_split_list(buf, names, BOARD_MAX_FACTIONS);
    char err[256];
    mt_game *g = n > 0 ? mt_game_new(rs[0], (const char *const *)names, n, 1, err, sizeof err) : NULL;
    if (!g) return fprintf(stderr, "mentat %s: --factions: %s\n", who, n > 0 ? err : "give faction ids, comma-separated"), 64;
    mt_game_free(g);
    for (int f = 0; f < n && f < SIM_MAX_FACTIONS; f++) run->factions[run->nfactions++] = mt_strdup(names[f]);
  } else
    for (int f = 0; f < rs[0]->def->nfactions && f < SIM_MAX_FACTIONS; f++)
      run->factions[run->nfactions++] = mt_strdup(rs[0]->def->factions[f].id);
  run->bots = mt_strdup(bots_name(o));
  for (int s = 0; s < nsides; s++) {
    char h[17];
    sim_ruleset_hash(rs[s], h);
    run->side[s].hash = mt_strdup(h);
    run->side[s].ruleset = mt_strdup(rs[s]->advanced ? "advanced" : "basic");
    run->side[s].variants = mt_strdup(rs[s]->variant_names ? rs[s]->variant_names : "");
    run->side[s].present = true;
    faction_map(rs[s], run, map[s]);
  }
  run->paired = nsides == 2;
  return 0;
}

/* Progress on standard error, on one line redrawn: games done, games/s, time
 * left; LAST clears it.  Only called when standard error is a terminal. */
static void progress(const char *who, long done, long total, double t0, bool last) {
  double el = now() - t0, rate = el > 0 ? (double)done / el : 0;
  if (last) {
    fprintf(stderr, "\r\033[K");
    return;
  }
  fprintf(stderr, "\r\033[K%s: %ld/%ld games, %.1f games/s, %.0f s left", who, done, total, rate,
          rate > 0 ? (double)(total - done) / rate : 0);
}

/* Counts the ticks (one byte per game) the workers write to FD until they all
 * close it, showing progress when SHOW. */
static void follow(int fd, const char *who, long total, double t0, bool show) {
  long done = 0;
  double shown = 0;
  char buf[256];
  ssize_t got;
  while ((got = read(fd, buf, sizeof buf)) != 0) {
    if (got < 0) {
      if (errno == EINTR) continue;
      break;
    }
    done += got;
    if (show && now() - shown > 0.25) progress(who, done, total, t0, false), shown = now();
  }
  close(fd);
  if (show) progress(who, done, total, t0, true);
}

/* One game done: a byte to the parent's progress pipe (nobody reading is no error). */
static void tick_once(int fd) {
  if (fd >= 0 && write(fd, "", 1) < 0) return;
}

/* The options simulate and compare share, at ARGV[*I] (WHO names the command
 * in messages): 1 if it was one (*I moved past its value), 0 if not, 64 on a
 * bad value (reported). */
static int run_option(const char *who, sim_opts *o, const char **records, long *shard_i, long *shard_n, int argc,
                      char **argv, int *i) {
  const char *a = argv[*i];
  bool has = *i + 1 < argc;
  char *end;
  errno = 0;
  if (!strcmp(a, "--games") && has) {
    o->games = strtol(argv[++*i], &end, 10);
    if (*end || errno || o->games < 1 || o->games > 100000000)
      return fprintf(stderr, "mentat %s: --games must be a whole number from 1 to 100000000, not '%s'\n", who, argv[*i]), 64;
  } else if (!strcmp(a, "--seed") && has) {
    o->seed = strtoull(argv[++*i], &end, 10);
    if (*end || errno || !*argv[*i] || *argv[*i] == '-')
      return fprintf(stderr, "mentat %s: --seed must be a whole number from 0 to 18446744073709551615, not '%s'\n", who,
                     argv[*i]), 64;
  } else if (!strcmp(a, "--jobs") && has) {
    o->jobs = (int)strtol(argv[++*i], &end, 10);
    if (*end || errno || o->jobs < 1 || o->jobs > 256)
      return fprintf(stderr, "mentat %s: --jobs must be a whole number from 1 to 256, not '%s'\n", who, argv[*i]), 64;
  } else if (!strcmp(a, "--max-decisions") && has) {
    o->max_decisions = strtol(argv[++*i], &end, 10);
    if (*end || errno || o->max_decisions < 1)
      return fprintf(stderr, "mentat %s: --max-decisions must be a positive whole number, not '%s'\n", who, argv[*i]), 64;
  } else if (!strcmp(a, "--factions") && has) {
    o->factions = argv[++*i];
  } else if (!strcmp(a, "--bots") && has) {
    o->bots_text = argv[++*i];
    if ((o->nbots = bot_kinds_parse(o->bots_text, o->bots, BOARD_MAX_FACTIONS)) < 0)
      return fprintf(stderr, "mentat %s: --bots is random, uniform, passive, heuristic or search, or one of "
                             "them per faction, comma-separated\n", who), 64;
  } else if (!strcmp(a, "--search-budget") && has) {
    int playouts = 0, horizon = -1, width = 0;
    if (sscanf(argv[++*i], "%d,%d,%d", &playouts, &horizon, &width) < 1 || playouts < 1)
      return fprintf(stderr, "mentat %s: --search-budget is PLAYOUTS[,HORIZON[,WIDTH]], not '%s'\n", who, argv[*i]), 64;
    bot_search_set(playouts, horizon, width);
  } else if (!strcmp(a, "--quiet")) {
    o->quiet = true;
  } else if (!strcmp(a, "--records") && has) {
    *records = argv[++*i];
  } else if (!strcmp(a, "--shard") && has) {
    if (!parse_shard(argv[++*i], shard_i, shard_n))
      return fprintf(stderr, "mentat %s: --shard is I/N with 1 <= I <= N, not '%s'\n", who, argv[*i]), 64;
  } else if (!strcmp(a, "--work-budget") && has) {
    o->work_budget = strtoull(argv[++*i], &end, 10);
    if (*end || !o->work_budget || argv[*i][0] == '-') return fprintf(stderr, "mentat %s: bad --work-budget\n", who), 64;
  } else {
    return 0;
  }
  return 1;
}

int sim_main(const mt_rules *r, const char *pack_options, int argc, char **argv) {
  sim_opts o = {.bots = {BOT_RANDOM}, .nbots = 1, .games = 100, .seed = 1, .jobs = 1, .max_decisions = 100000};
  const char *records = NULL;
  long shard_i = 1, shard_n = 1;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    int rc = run_option("simulate", &o, &records, &shard_i, &shard_n, argc, argv, &i);
    if (rc > 1) return rc;
    if (rc == 1) continue;
    if (!strcmp(a, "--json")) {
      o.json = true;
    } else if (!strcmp(a, "--no-invariants")) {
      o.unchecked = true;
    } else {
      return fprintf(stderr, "mentat simulate: unknown option '%s'\n", a), 64;
    }
  }
  if (o.nbots > 1) {
    char err[64];
    mt_game *g = mt_game_new(r, NULL, 0, 1, err, sizeof err);
    int nf = g ? g->L->nf : 0;
    mt_game_free(g);
    if (!o.factions && o.nbots != nf)
      return fprintf(stderr, "mentat simulate: --bots names %d bots for %d factions\n", o.nbots, nf), 64;
  }
  if (o.factions) {
    char buf[512];
    char *names[BOARD_MAX_FACTIONS];
    if (strlen(o.factions) >= sizeof buf) return fprintf(stderr, "mentat simulate: --factions is too long\n"), 64;
    snprintf(buf, sizeof buf, "%s", o.factions);
    int nnames = mt_split_list(buf, names, BOARD_MAX_FACTIONS);
    if (nnames < 0)
      return fprintf(stderr, "mentat simulate: --factions '%s' must list one or more faction ids, comma-separated\n", o.factions), 64;
    char err[256];
    mt_game *g = mt_game_new(r, (const char *const *)names, nnames, 1, err, sizeof err);
    if (!g) return fprintf(stderr, "mentat simulate: --factions: %s\n", err), 64;
    int nf = g->L->nf;
    mt_game_free(g);
    if (o.nbots > 1 && o.nbots != nf)
      return fprintf(stderr, "mentat simulate: --bots names %d bots for %d factions\n", o.nbots, nf), 64;
  }
  /* the options a failing game is replayed with, besides --games 1 --seed S */
  strbuf replay = {0};
  sb_puts(&replay, "mentat simulate");
  if (pack_options && *pack_options) sb_printf(&replay, " %s", pack_options);
  if (o.factions) sb_printf(&replay, " --factions %s", o.factions);
  if (o.bots_text) sb_printf(&replay, " --bots %s", o.bots_text);
  int playouts, horizon, width;
  bot_search_get(&playouts, &horizon, &width);
  if (playouts != BOT_SEARCH_PLAYOUTS || horizon != BOT_SEARCH_HORIZON || width != BOT_SEARCH_WIDTH)
    sb_printf(&replay, " --search-budget %d,%d,%d", playouts, horizon, width);
  if (o.max_decisions != 100000) sb_printf(&replay, " --max-decisions %ld", o.max_decisions);
  if (o.unchecked) sb_puts(&replay, " --no-invariants");
  o.replay = replay.s;
  /* with --shard I/N, this process plays games I-1, I-1+N, ... of the run */
  long total = o.games >= shard_i ? (o.games - shard_i) / shard_n + 1 : 0;
  sim_run run = {0};
  int map[2][SIM_MAX_FACTIONS];
  if (records && run_setup(&run, &r, 1, &o, map, "simulate")) return sb_free(&replay), sim_run_fini(&run), 64;
  double t0 = now();
  /* results go through a temporary file per job; progress through a pipe
   * from the workers (one byte per game), or in the loop with one job */
  FILE *res[256];
  pid_t pids[256];
  bool show = !o.quiet && isatty(2);
  int tick[2] = {-1, -1};
  if (show && o.jobs > 1 && pipe(tick) < 0) tick[0] = tick[1] = -1;
  for (int j = 0; j < o.jobs; j++) {
    res[j] = tmpfile();
    if (!res[j]) return fprintf(stderr, "mentat simulate: cannot create a temporary file\n"), 74;
  }
  fflush(stdout), fflush(stderr);
  for (int j = 0; j < o.jobs; j++) {
    pids[j] = o.jobs == 1 ? 0 : fork();
    if (pids[j] < 0) return fprintf(stderr, "mentat simulate: fork failed: %s\n", strerror(errno)), 70;
    if (pids[j] == 0) {
      /* test hook (tests/run-simulate.sh): worker K dies by SIGKILL after its first game */
      const char *kill_env = getenv("MENTAT_TEST_KILL_WORKER");
      bool die = o.jobs > 1 && kill_env && atoi(kill_env) == j + 1;
      if (tick[0] >= 0) close(tick[0]);
      double shown = 0;
      for (long t = j; t < total; t += o.jobs) {
        play_one(r, &o, o.seed + (uint64_t)(shard_i - 1 + t * shard_n), res[j]);
        fflush(res[j]);
        tick_once(tick[1]);
        if (show && o.jobs == 1 && now() - shown > 0.25) progress("simulate", t + 1, total, t0, false), shown = now();
        if (die) raise(SIGKILL);
      }
      if (o.jobs > 1) _exit(0);
      if (show) progress("simulate", total, total, t0, true);
    }
  }
  if (tick[1] >= 0) {
    close(tick[1]);
    follow(tick[0], "simulate", total, t0, true);
  }
  /* how each worker ended: one killed by a signal (or failing otherwise)
   * before it wrote every result loses games, which must not pass unseen */
  int died[256] = {0};
  if (o.jobs > 1)
    for (int j = 0; j < o.jobs; j++) {
      int status = 0;
      if (waitpid(pids[j], &status, 0) < 0) died[j] = -1;
      else if (WIFSIGNALED(status)) died[j] = WTERMSIG(status);
      else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) died[j] = -2;
    }
  double elapsed = now() - t0;
  const board_def *def = r->def;
  long played = 0, decisions = 0, failures = 0;
  unsigned long long instructions = 0, peak = 0; /* peak: the most work one decision needed */
  size_t state_bytes = 0;
  {
    char err[64];
    mt_game *g = mt_game_new(r, NULL, 0, 1, err, sizeof err);
    if (g) state_bytes = mt_state_size(g);
    mt_game_free(g);
  }
  long wins[BOARD_MAX_FACTIONS] = {0};
  long *by_rule = mt_calloc((size_t)r->prog.nrules + 1, sizeof *by_rule);
  long no_winner = 0;
  char *line = NULL;
  size_t linecap = 0;
  long missing = 0;
  strbuf failed_json = {0};
  for (int j = 0; j < o.jobs; j++) {
    rewind(res[j]);
    long expected = total > j ? (total - 1 - j) / o.jobs + 1 : 0, got = 0;
    while (getline(&line, &linecap, res[j]) > 0) {
      if (!strchr(line, '\n')) break; /* a result cut short by a dying worker */
      got++;
      if (records) {
        sim_record rec = {.side = SIM_BASE};
        const char *failure;
        if (parse_result(line, r, map[0], run.nfactions, &rec, &failure)) sim_run_add(&run, &rec);
        mt_free(rec.victory);
      }
      unsigned long long seed;
      long steps;
      long long w, v;
      unsigned long long ins = 0, work = 0;
      if (!strncmp(line, "fail", 4)) {
        char *msg = mt_calloc(strlen(line) + 1, 1);
        if (sscanf(line, "fail %llu %ld %[^\n]", &seed, &steps, msg) < 2) {
          mt_free(msg);
          continue;
        }
        fprintf(stderr, "mentat simulate: game with seed %llu failed at decision %ld: %s\n"
                        "  reproduce: %s --games 1 --seed %llu\n",
                seed, steps, msg, o.replay, seed);
        sb_printf(&failed_json, "%s{\"seed\":%llu,\"decision\":%ld,\"error\":", failures ? "," : "", seed, steps);
        sb_json_str(&failed_json, msg);
        sb_printf(&failed_json, ",\"reproduce\":");
        strbuf rep = {0};
        sb_printf(&rep, "%s --games 1 --seed %llu", o.replay, seed);
        sb_json_str(&failed_json, rep.s);
        sb_free(&rep);
        sb_putc(&failed_json, '}');
        mt_free(msg);
        failures++;
        continue;
      }
      if (sscanf(line, "ok %llu %ld %lld %lld %llu %llu", &seed, &steps, &w, &v, &ins, &work) != 6) continue;
      played++;
      if (work > peak) peak = work;
      instructions += ins;
      decisions += steps;
      for (int f = 0; f < def->nfactions && f < BOARD_MAX_FACTIONS; f++)
        if ((uint64_t)w >> f & 1u) wins[f]++;
      if (v >= 0 && v < r->prog.nrules) by_rule[v]++;
      else no_winner++;
    }
    fclose(res[j]);
    if (got < expected || died[j]) {
      missing += expected - got;
      if (died[j] > 0)
        fprintf(stderr, "mentat simulate: worker %d was killed by signal %d: %ld of its %ld games are missing\n", j + 1,
                died[j], expected - got, expected);
      else
        fprintf(stderr, "mentat simulate: worker %d did not finish: %ld of its %ld games are missing\n", j + 1,
                expected - got, expected);
      if (!died[j]) died[j] = -2;
    }
  }
  char hash[17];
  sim_ruleset_hash(r, hash);
  double gps = elapsed > 0 ? (double)played / elapsed : 0, dps = elapsed > 0 ? (double)decisions / elapsed : 0;
  if (o.json) {
    printf("{\"games\":%ld,\"ok\":%ld,\"failures\":%ld,\"seconds\":%.3f,\"games_per_second\":%.1f,\"decisions_per_second\":%.0f,"
           "\"mean_decisions\":%.1f,\"jobs\":%d,\"vm_instructions_per_second\":%.0f,\"state_bytes\":%zu,"
           "\"peak_decision_work\":%llu,\"work_budget\":%llu,\"missing\":%ld,\"failed\":[%s],\"win_rate\":{",
           played + failures, played, failures, elapsed, gps, dps, played ? (double)decisions / (double)played : 0, o.jobs,
           elapsed > 0 ? (double)instructions / elapsed : 0, state_bytes, peak,
           (unsigned long long)(o.work_budget ? o.work_budget : MT_WORK_BUDGET), missing, failed_json.s ? failed_json.s : "");
    for (int f = 0, k = 0; f < def->nfactions; f++)
      printf("%s\"%s\":%.4f", k++ ? "," : "", def->factions[f].id, played ? (double)wins[f] / (double)played : 0);
    /* the run as compare reports it: what played, and each faction's share with its 95% Wilson interval */
    strbuf id = {0};
    sb_printf(&id, "},\"seed\":%llu,\"ruleset\":\"%s\",\"variants\":[", (unsigned long long)o.seed,
              r->advanced ? "advanced" : "basic");
    json_names(&id, r->variant_names);
    sb_printf(&id, "],\"bots\":\"%s\",\"hash\":\"%s\",\"factions\":[", bots_name(&o), hash);
    for (int f = 0; f < def->nfactions; f++) {
      double lo, hi;
      sim_wilson(wins[f], played, &lo, &hi);
      sb_printf(&id, "%s{\"faction\":", f ? "," : "");
      sb_json_str(&id, def->factions[f].id);
      sb_printf(&id, ",\"wins\":%ld,\"share\":%.4f,\"ci\":[%.4f,%.4f]}", wins[f],
                played ? (double)wins[f] / (double)played : 0, lo, hi);
    }
    printf("%s]", id.s);
    sb_free(&id);
    printf(",\"victories\":{");
    int k = 0;
    for (int i = 0; i < r->prog.nrules; i++)
      if (by_rule[i]) printf("%s\"%s\":%ld", k++ ? "," : "", r->prog.rules[i].id, by_rule[i]);
    printf("%s\"none\":%ld}}\n", k ? "," : "", no_winner);
  } else {
    printf("%ld games (%ld failed%s) in %.2f s with %d job%s: %.1f games/s, %.0f decisions/s, %.1f decisions per game\n",
           played + failures, failures, missing ? ", some missing: see below" : "", elapsed, o.jobs, o.jobs == 1 ? "" : "s",
           gps, dps, played ? (double)decisions / (double)played : 0);
    if (missing) printf("%ld of the %ld games are missing: a worker died before reporting them\n", missing, total);
    printf("VM: %.0f instructions/s; state: %zu bytes per game; listing and sampling one decision: at most %llu "
           "instructions (work budget %llu)\n",
           elapsed > 0 ? (double)instructions / elapsed : 0, state_bytes, peak,
           (unsigned long long)(o.work_budget ? o.work_budget : MT_WORK_BUDGET));
    printf("seed %llu (game i plays seed %llu+i), ruleset %s, variants: %s, bots %s, rule-set hash %s\n",
           (unsigned long long)o.seed, (unsigned long long)o.seed, r->advanced ? "advanced" : "basic",
           r->variant_names && *r->variant_names ? r->variant_names : "(none)", bots_name(&o), hash);
    printf("win rate per faction (shared victories count for each winner), 95%% Wilson interval:\n");
    for (int f = 0; f < def->nfactions; f++) {
      double lo, hi;
      sim_wilson(wins[f], played, &lo, &hi);
      printf("  %-16s %6.1f%% [%5.1f, %5.1f]\n", def->factions[f].id, played ? 100.0 * (double)wins[f] / (double)played : 0,
             100 * lo, 100 * hi);
    }
    printf("victories by deciding rule:\n");
    for (int i = 0; i < r->prog.nrules; i++)
      if (by_rule[i]) printf("  %-12s %6ld  %s\n", r->prog.rules[i].id, by_rule[i], r->prog.rules[i].title);
    printf("  %-12s %6ld\n", "no winner", no_winner);
  }
  mt_free(by_rule);
  free(line);
  int wrote = 0;
  if (records) {
    FILE *f = fopen(records, "w");
    if (f) {
      for (long i = 0; i < run.n; i++) sim_record_write(f, &run, &run.recs[i]);
      if (fclose(f) != 0) wrote = 74;
    } else wrote = 74;
    if (wrote) fprintf(stderr, "mentat simulate: cannot write '%s': %s\n", records, strerror(errno));
    sim_run_fini(&run);
  }
  sb_free(&failed_json);
  sb_free(&replay);
  if (getenv("MENTAT_PROFILE")) vm_profile_report(&r->prog), prof_report();
  if (missing) return 70;
  if (wrote) return wrote;
  return failures ? 1 : 0;
}

/* ---- compare: two rule sets on the same seeds ---- */

int sim_compare_main(const mt_rules *base, const mt_rules *variant, int argc, char **argv) {
  sim_opts o = {.bots = {BOT_RANDOM}, .nbots = 1, .games = 100, .seed = 1, .jobs = 1, .max_decisions = 100000, .unchecked = true};
  sim_output out = {0};
  const char *records = NULL;
  long shard_i = 1, shard_n = 1;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    int rc = run_option("compare", &o, &records, &shard_i, &shard_n, argc, argv, &i);
    if (rc > 1) return rc;
    if (rc == 1) continue;
    if (!strcmp(a, "--json")) {
      out.json = true;
    } else if (!strcmp(a, "--csv")) {
      out.csv = true;
    } else if (!strcmp(a, "--plot") && i + 1 < argc) {
      out.plot = argv[++i];
    } else if (!strcmp(a, "--invariants")) {
      o.unchecked = false;
    } else {
      return fprintf(stderr, "mentat compare: unknown option '%s'\n", a), 64;
    }
  }
  /* the run: its factions (seated, or every faction of the pack), bots, rule sets */
  sim_run run = {0};
  const mt_rules *rs[2] = {base, variant};
  int map[2][SIM_MAX_FACTIONS];
  if (run_setup(&run, rs, 2, &o, map, "compare")) return sim_run_fini(&run), 64;
  if (o.nbots > 1 && o.nbots != run.nfactions)
    return fprintf(stderr, "mentat compare: --bots names %d bots for %d factions\n", o.nbots, run.nfactions), sim_run_fini(&run), 64;
  /* this shard's games: k = shard_i-1, shard_i-1+shard_n, ...; worker j plays every jobs-th of them */
  long total = o.games >= shard_i ? (o.games - shard_i) / shard_n + 1 : 0;
  if (o.jobs > total && total > 0) o.jobs = (int)total;
  FILE *res[256];
  pid_t pids[256];
  int tick[2];
  if (pipe(tick) < 0) return fprintf(stderr, "mentat compare: pipe failed: %s\n", strerror(errno)), 70;
  for (int j = 0; j < o.jobs; j++)
    if (!(res[j] = tmpfile())) return fprintf(stderr, "mentat compare: cannot create a temporary file\n"), 74;
  fflush(stdout), fflush(stderr);
  double t0 = now();
  for (int j = 0; j < o.jobs; j++) {
    pids[j] = fork();
    if (pids[j] < 0) return fprintf(stderr, "mentat compare: fork failed: %s\n", strerror(errno)), 70;
    if (pids[j] == 0) {
      close(tick[0]);
      for (long t = j; t < total; t += o.jobs) {
        uint64_t seed = o.seed + (uint64_t)(shard_i - 1 + t * shard_n);
        for (int s = 0; s < 2; s++) {
          fprintf(res[j], "%d ", s);
          play_one(rs[s], &o, seed, res[j]);
        }
        fflush(res[j]);
        tick_once(tick[1]);
      }
      _exit(0);
    }
  }
  close(tick[1]);
  follow(tick[0], "compare", total, t0, !o.quiet && isatty(2));
  int rc = 0;
  for (int j = 0; j < o.jobs; j++) {
    int status = 0;
    if (waitpid(pids[j], &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      fprintf(stderr, "mentat compare: worker %d died: its games are missing\n", j + 1);
      rc = 70;
    }
  }
  char *line = NULL;
  size_t cap = 0;
  long failures = 0;
  for (int j = 0; j < o.jobs; j++) {
    rewind(res[j]);
    while (getline(&line, &cap, res[j]) > 0) {
      if (!strchr(line, '\n') || (line[0] != '0' && line[0] != '1') || line[1] != ' ') continue;
      int s = line[0] - '0';
      sim_record rec = {.side = s};
      const char *failure;
      if (!parse_result(line + 2, rs[s], map[s], run.nfactions, &rec, &failure)) continue;
      if (failure) {
        failures++;
        fprintf(stderr, "mentat compare: the %s game with seed %llu failed: %s", s ? "variant" : "base",
                (unsigned long long)rec.seed, failure);
      }
      sim_run_add(&run, &rec);
      mt_free(rec.victory);
    }
    fclose(res[j]);
  }
  free(line);
  if (records) {
    FILE *f = fopen(records, "w");
    if (!f) {
      fprintf(stderr, "mentat compare: cannot write '%s': %s\n", records, strerror(errno));
      rc = 74;
    } else {
      for (long i = 0; i < run.n; i++) sim_record_write(f, &run, &run.recs[i]);
      if (fclose(f) != 0) rc = 74;
    }
  }
  int src = sim_summary(&run, &out);
  sim_run_fini(&run);
  if (rc) return rc;
  if (src) return src;
  return failures ? 1 : 0;
}
