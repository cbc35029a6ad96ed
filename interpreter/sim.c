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
 * the count of games missing. */
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
#include "search.h"

/* The engine's own invariants; the first violation is described in OUT. */
static bool engine_invariants(mt_game *g, strbuf *out) {
  const board_layout *L = g->L;
  const board_def *def = g->r->def;
  const unsigned char *st = g->v.st;
  long totals[BOARD_MAX_FACTIONS * BOARD_MAX_KINDS];
  int neg_loc = -1, neg_slot = -1;
  bool sound = board_slot_totals(L, st, totals, &neg_loc, &neg_slot);
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
  int bad;
  switch (board_check_piles(L, st, &bad)) {
  case 0: return true;
  case 1: sb_printf(out, "card %s is recorded at a position outside its pile", def->cards[bad].id); return false;
  case 2: sb_printf(out, "card %s is recorded at a position of a pile that holds another card there", def->cards[bad].id); return false;
  default: sb_puts(out, "the piles' card counts do not match the cards placed in them"); return false;
  }
}

static bool rule_invariants(mt_game *g, strbuf *out) {
  const program *p = &g->r->prog;
  vm_memo_reset(&g->v);
  for (int i = 0; i < p->ninvariants; i++) {
    const invariant_rec *iv = &p->invariants[i];
    if (!vm_rule_active(&g->v, iv->rule)) continue;
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
  }
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
 *   ok SEED DECISIONS WINNERS_MASK VICTORY_RULE VM_INSTRUCTIONS PEAK_DECISION_WORK
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
  uint64_t bot = seed ^ 0x626f74ull;
  strbuf why = {0};
  long step = 0;
  int st = mt_start(g);
  bool bad = false;
  while (!bad) {
    PROF_MARK(0);
    if (!o->unchecked && (!engine_invariants(g, &why) || !rule_invariants(g, &why))) {
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
    int wv = find_var(p, "winners"), vv = find_var(p, "victory");
    int64_t w = wv >= 0 ? read_var(g, wv) : 0, v = vv >= 0 ? read_var(g, vv) : -1;
    fprintf(out, "ok %llu %ld %lld %lld %llu %llu\n", (unsigned long long)seed, step, (long long)w, (long long)v,
            (unsigned long long)g->v.steps, (unsigned long long)mt_decision_work_peak(g));
  }
  sb_free(&why);
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

int sim_main(const mt_rules *r, const char *pack_options, int argc, char **argv) {
  sim_opts o = {.bots = {BOT_RANDOM}, .nbots = 1, .games = 100, .seed = 1, .jobs = 1, .max_decisions = 100000};
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    char *end;
    errno = 0;
    if (!strcmp(a, "--games") && i + 1 < argc) {
      o.games = strtol(argv[++i], &end, 10);
      if (*end || errno || o.games < 1 || o.games > 100000000)
        return fprintf(stderr, "mentat simulate: --games must be a whole number from 1 to 100000000, not '%s'\n", argv[i]), 64;
    } else if (!strcmp(a, "--seed") && i + 1 < argc) {
      o.seed = strtoull(argv[++i], &end, 10);
      if (*end || errno || !*argv[i] || *argv[i] == '-')
        return fprintf(stderr, "mentat simulate: --seed must be a whole number from 0 to 18446744073709551615, not '%s'\n", argv[i]), 64;
    } else if (!strcmp(a, "--jobs") && i + 1 < argc) {
      o.jobs = (int)strtol(argv[++i], &end, 10);
      if (*end || errno || o.jobs < 1 || o.jobs > 256)
        return fprintf(stderr, "mentat simulate: --jobs must be a whole number from 1 to 256, not '%s'\n", argv[i]), 64;
    } else if (!strcmp(a, "--max-decisions") && i + 1 < argc) {
      o.max_decisions = strtol(argv[++i], &end, 10);
      if (*end || errno || o.max_decisions < 1)
        return fprintf(stderr, "mentat simulate: --max-decisions must be a positive whole number, not '%s'\n", argv[i]), 64;
    } else if (!strcmp(a, "--factions") && i + 1 < argc) {
      o.factions = argv[++i];
    } else if (!strcmp(a, "--bots") && i + 1 < argc) {
      o.bots_text = argv[++i];
      if ((o.nbots = bot_kinds_parse(o.bots_text, o.bots, BOARD_MAX_FACTIONS)) < 0)
        return fprintf(stderr, "mentat simulate: --bots is random, uniform, passive, heuristic or search, or one of "
                               "them per faction, comma-separated\n"), 64;
    } else if (!strcmp(a, "--search-budget") && i + 1 < argc) {
      int playouts = 0, horizon = -1, width = 0;
      if (sscanf(argv[++i], "%d,%d,%d", &playouts, &horizon, &width) < 1 || playouts < 1)
        return fprintf(stderr, "mentat simulate: --search-budget is PLAYOUTS[,HORIZON[,WIDTH]], not '%s'\n", argv[i]), 64;
      bot_search_set(playouts, horizon, width);
    } else if (!strcmp(a, "--json")) {
      o.json = true;
    } else if (!strcmp(a, "--no-invariants")) {
      o.unchecked = true;
    } else if (!strcmp(a, "--work-budget") && i + 1 < argc) {
      o.work_budget = strtoull(argv[++i], &end, 10);
      if (*end || !o.work_budget || argv[i][0] == '-') return fprintf(stderr, "mentat simulate: bad --work-budget\n"), 64;
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
  double t0 = now();
  /* results go through a temporary file per job */
  FILE *res[256];
  pid_t pids[256];
  for (int j = 0; j < o.jobs; j++) {
    res[j] = tmpfile();
    if (!res[j]) return fprintf(stderr, "mentat simulate: cannot create a temporary file\n"), 74;
  }
  for (int j = 0; j < o.jobs; j++) {
    pids[j] = o.jobs == 1 ? 0 : fork();
    if (pids[j] < 0) return fprintf(stderr, "mentat simulate: fork failed: %s\n", strerror(errno)), 70;
    if (pids[j] == 0) {
      /* test hook (tests/run-simulate.sh): worker K dies by SIGKILL after its first game */
      const char *kill_env = getenv("MENTAT_TEST_KILL_WORKER");
      bool die = o.jobs > 1 && kill_env && atoi(kill_env) == j + 1;
      for (long i = j; i < o.games; i += o.jobs) {
        play_one(r, &o, o.seed + (uint64_t)i, res[j]);
        fflush(res[j]);
        if (die) raise(SIGKILL);
      }
      if (o.jobs > 1) _exit(0);
    }
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
    long expected = o.games > j ? (o.games - 1 - j) / o.jobs + 1 : 0, got = 0;
    while (getline(&line, &linecap, res[j]) > 0) {
      if (!strchr(line, '\n')) break; /* a result cut short by a dying worker */
      got++;
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
    printf("},\"victories\":{");
    int k = 0;
    for (int i = 0; i < r->prog.nrules; i++)
      if (by_rule[i]) printf("%s\"%s\":%ld", k++ ? "," : "", r->prog.rules[i].id, by_rule[i]);
    printf("%s\"none\":%ld}}\n", k ? "," : "", no_winner);
  } else {
    printf("%ld games (%ld failed%s) in %.2f s with %d job%s: %.1f games/s, %.0f decisions/s, %.1f decisions per game\n",
           played + failures, failures, missing ? ", some missing: see below" : "", elapsed, o.jobs, o.jobs == 1 ? "" : "s",
           gps, dps, played ? (double)decisions / (double)played : 0);
    if (missing) printf("%ld of the %ld games are missing: a worker died before reporting them\n", missing, o.games);
    printf("VM: %.0f instructions/s; state: %zu bytes per game; listing and sampling one decision: at most %llu "
           "instructions (work budget %llu)\n",
           elapsed > 0 ? (double)instructions / elapsed : 0, state_bytes, peak,
           (unsigned long long)(o.work_budget ? o.work_budget : MT_WORK_BUDGET));
    printf("win rate per faction (shared victories count for each winner):\n");
    for (int f = 0; f < def->nfactions; f++)
      printf("  %-16s %6.1f%%\n", def->factions[f].id, played ? 100.0 * (double)wins[f] / (double)played : 0);
    printf("victories by deciding rule:\n");
    for (int i = 0; i < r->prog.nrules; i++)
      if (by_rule[i]) printf("  %-12s %6ld  %s\n", r->prog.rules[i].id, by_rule[i], r->prog.rules[i].title);
    printf("  %-12s %6ld\n", "no winner", no_winner);
  }
  mt_free(by_rule);
  free(line);
  sb_free(&failed_json);
  sb_free(&replay);
  if (getenv("MENTAT_PROFILE")) vm_profile_report(&r->prog), prof_report();
  if (missing) return 70;
  return failures ? 1 : 0;
}
