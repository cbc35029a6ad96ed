/* sim.c -- seeded random playouts with invariants and statistics.
 *
 * Game i of a run uses seed S+i for the game and for its bot, so any game can
 * be replayed alone.  After every step the engine's invariants (tokens of
 * each faction and kind conserved, every card in exactly one pile) and every
 * `invariant` declared by the rules are checked; a failure ends that game, and
 * the run goes on: every failing game is listed with its seed, its decision
 * and a command line that replays it alone, and the exit status is 1
 * (--no-invariants skips the checks, for balance runs).  With --jobs J the
 * games are split over J worker processes (game i goes to process i mod J),
 * which die with this one (proc.c) and send each game's result on a pipe of
 * their own as soon as it ends; a worker that ends before reporting all its
 * games makes the run fail (exit 70) with the count of games missing and how
 * the worker ended.
 *
 * `compare` (sim_compare_main) plays two rule sets on the same seeds with the
 * same play_one, always in worker processes, and hands the results to stats.c
 * as records: the summary, merge and the plot live there, the records format
 * in records.c.  Both commands open their outputs before the first game,
 * append each game's records as it ends (--resume finishes a stopped run),
 * and show progress on a terminal, counted as the results arrive. */
#define _POSIX_C_SOURCE 200809L
#include "sim.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bots.h"
#include "game.h"
#include "proc.h"
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
  const char *records;  /* --records FILE */
  bool resume;          /* --resume: play only the games FILE does not hold */
  long shard_i, shard_n; /* --shard I/N */
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

/* Plays game SEED; appends one result line to OUT:
 *   ok SEED DECISIONS WINNERS_MASK VICTORY_RULE VM_INSTRUCTIONS PEAK_DECISION_WORK TURNS
 *   fail SEED STEP MESSAGE */
static void play_one(const mt_rules *r, const sim_opts *o, uint64_t seed, strbuf *out) {
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
    sb_printf(out, "fail %llu 0 %s\n", (unsigned long long)seed, err);
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
    sb_printf(out, "fail %llu %ld %s\n", (unsigned long long)seed, step, why.s ? why.s : "");
  } else {
    const program *p = &r->prog;
    int wv = find_var(p, "winners"), vv = find_var(p, "victory"), tv = find_var(p, "turn");
    int64_t w = wv >= 0 ? read_var(g, wv) : 0, v = vv >= 0 ? read_var(g, vv) : -1, t = tv >= 0 ? read_var(g, tv) : 0;
    sb_printf(out, "ok %llu %ld %lld %lld %llu %llu %lld\n", (unsigned long long)seed, step, (long long)w, (long long)v,
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

static double now(void) { return mt_seconds(); }

/* The bots as given (one kind, or one per seat). */
static const char *bots_name(const sim_opts *o) { return o->bots_text ? o->bots_text : bot_kind_name(o->bots[0]); }

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
 * a message.  Returns 0, 64 when --factions is bad, 65 when a name cannot be
 * written to records. */
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
  run->seed = o->seed, run->games = o->games, run->shard_i = o->shard_i, run->shard_n = o->shard_n;
  int playouts, horizon, width;
  bot_search_get(&playouts, &horizon, &width);
  strbuf sb = {0};
  sb_printf(&sb, "%d,%d,%d", playouts, horizon, width);
  run->search = sb_take(&sb);
  run->max_decisions = o->max_decisions;
  run->work_budget = o->work_budget ? o->work_budget : MT_WORK_BUDGET;
  run->invariants = !o->unchecked;
  strbuf why = {0};
  if (o->records && !sim_run_names_ok(run, &why)) {
    fprintf(stderr, "mentat %s: --records: %s\n", who, why.s);
    sb_free(&why);
    return 65;
  }
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

/* The options simulate and compare share, at ARGV[*I] (WHO names the command
 * in messages): 1 if it was one (*I moved past its value), 0 if not, 64 on a
 * bad value (reported). */
static int run_option(const char *who, sim_opts *o, int argc, char **argv, int *i) {
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
    if (*end || errno || o->jobs < 1 || o->jobs > PROC_MAX_WORKERS)
      return fprintf(stderr, "mentat %s: --jobs must be a whole number from 1 to %d, not '%s'\n", who, PROC_MAX_WORKERS, argv[*i]), 64;
  } else if (!strcmp(a, "--max-decisions") && has) {
    o->max_decisions = strtol(argv[++*i], &end, 10);
    if (*end || errno || o->max_decisions < 1 || o->max_decisions > 2000000000L)
      return fprintf(stderr, "mentat %s: --max-decisions must be a whole number from 1 to 2000000000, not '%s'\n", who, argv[*i]), 64;
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
    o->records = argv[++*i];
  } else if (!strcmp(a, "--resume")) {
    o->resume = true;
  } else if (!strcmp(a, "--shard") && has) {
    if (!parse_shard(argv[++*i], &o->shard_i, &o->shard_n))
      return fprintf(stderr, "mentat %s: --shard is I/N with 1 <= I <= N, not '%s'\n", who, argv[*i]), 64;
  } else if (!strcmp(a, "--work-budget") && has) {
    o->work_budget = strtoull(argv[++*i], &end, 10);
    if (*end || !o->work_budget || argv[*i][0] == '-') return fprintf(stderr, "mentat %s: bad --work-budget\n", who), 64;
  } else {
    return 0;
  }
  return 1;
}

/* ---- a run in progress: its games, its records file, its workers ---- */

typedef struct sim_play sim_play;
/* A result line of worker W (or of this process, W = 0): 0, or an exit code that stops the run. */
typedef int (*sim_line_fn)(sim_play *P, int w, const char *line);

struct sim_play {
  const sim_opts *o;
  const char *who;           /* simulate or compare */
  const mt_rules *rs[2];
  int nsides;
  sim_run run;               /* the identity; compare: and every record */
  int map[2][SIM_MAX_FACTIONS];
  long total;                /* the games of this shard: t = 0..total-1 is game k = I-1 + t*N (seed S+k) */
  unsigned char *held;       /* --resume: bit t set when the records hold game t already (NULL: none) */
  long nplay;                /* the games this process plays */
  int jobs;
  long done;                 /* games done now */
  FILE *rec;                 /* --records, appended game by game */
  long resumed;              /* games the records file held already (--resume) */
  mt_out *plot;              /* compare --plot, opened before the games, removed if interrupted */
  sim_line_fn on_line;
  sim_record stash[PROC_MAX_WORKERS]; /* compare: the base game of worker w waiting for its variant */
  bool stashed[PROC_MAX_WORKERS];
  double t0, shown;
  bool show;
  void *ud;                  /* the command's own tally */
};

/* The seed of the shard's game T. */
static uint64_t game_seed(const sim_play *P, long t) {
  return P->o->seed + (uint64_t)(P->o->shard_i - 1) + (uint64_t)t * (uint64_t)P->o->shard_n;
}

static bool held(const sim_play *P, long t) { return P->held && (P->held[t >> 3] >> (t & 7) & 1); }

/* The games worker W of JOBS plays: every JOBS-th of the shard's, less those held. */
static long worker_games(const sim_play *P, int w) {
  if (!P->held) return P->total > w ? (P->total - 1 - w) / P->jobs + 1 : 0;
  long n = 0;
  for (long t = w; t < P->total; t += P->jobs) n += !held(P, t);
  return n;
}

/* The records of one game (one side, or both) appended and flushed, so that a
 * run stopped at any point keeps every game it finished.  74 on an error,
 * said with its cause: the run stops there. */
static int record_game(sim_play *P, const sim_record *recs, int n) {
  if (!P->rec) return 0;
  strbuf b = {0};
  for (int i = 0; i < n; i++) sim_record_write(&b, &P->run, &recs[i]);
  errno = 0;
  bool ok = fwrite(b.s, 1, b.n, P->rec) == b.n && fflush(P->rec) == 0;
  int e = errno ? errno : EIO;
  sb_free(&b);
  if (ok) return 0;
  fprintf(stderr, "mentat %s: cannot write the records to '%s': %s (the run stops: %ld games recorded)\n", P->who,
          P->o->records, strerror(e), P->resumed + P->done);
  return 74;
}

/* Opens --records before any game is played: a path that cannot be written
 * fails at once.  A new run writes the header; --resume reads what FILE
 * holds (it must be this very run and shard), keeps its complete games (a
 * last line cut short, or a compare game with one side only, is dropped) and
 * appends the rest; P->held marks the games FILE holds.  Returns 0 or an
 * exit code (said). */
static int records_begin(sim_play *P) {
  const sim_opts *o = P->o;
  strbuf err = {0}, b = {0};
  struct stat st;
  bool exists = stat(o->records, &st) == 0;
  if (o->resume && exists) {
    if (!S_ISREG(st.st_mode)) return fprintf(stderr, "mentat %s: --resume: '%s' is not a regular file\n", P->who, o->records), 74;
    sim_run old = {0};
    sim_reader rd;
    sim_reader_init(&rd, &old);
    rd.partial = true;
    bool ok = sim_records_read(&rd, o->records, &err);
    sim_reader_fini(&rd);
    if (ok && !sim_run_same(&old, &P->run, "the file", "this command", &err)) {
      strbuf why = {0};
      sb_printf(&why, "'%s' holds another run: %s", o->records, err.s);
      sb_free(&err);
      err = why;
      ok = false;
    }
    if (!ok) {
      fprintf(stderr, "mentat %s: --resume: %s\n", P->who, err.s);
      sb_free(&err);
      sim_run_fini(&old);
      return 65;
    }
    /* the complete games, written again as the new start of FILE */
    sim_header_write(&b, &P->run);
    if (old.n > 1) qsort(old.recs, (size_t)old.n, sizeof *old.recs, sim_record_order);
    for (long i = 0; i < old.n; i++) {
      const sim_record *r = &old.recs[i];
      int n = P->nsides == 2 ? (i + 1 < old.n && old.recs[i + 1].seed == r->seed ? 2 : 0) : 1;
      if (!n) continue; /* one side of a pair: the game is played again */
      long t = (long)((r->seed - o->seed) / (uint64_t)o->shard_n); /* the reader checked it is a game of this shard */
      if (!P->held) P->held = mt_calloc((size_t)P->total / 8 + 1, 1);
      P->held[t >> 3] |= (unsigned char)(1u << (t & 7));
      for (int j = 0; j < n; j++) {
        sim_record_write(&b, &P->run, &r[j]);
        if (P->nsides == 2) sim_run_add(&P->run, &r[j]);
      }
      P->resumed++;
      i += n - 1;
    }
    sim_run_fini(&old);
    if (!mt_write_file(o->records, b.s, b.n, &err)) {
      fprintf(stderr, "mentat %s: --records: %s\n", P->who, err.s);
      sb_free(&err), sb_free(&b);
      return 74;
    }
    sb_free(&b);
    P->rec = fopen(o->records, "a");
  } else {
    P->rec = fopen(o->records, "w");
    if (P->rec) {
      sim_header_write(&b, &P->run);
      errno = 0;
      if (fwrite(b.s, 1, b.n, P->rec) != b.n || fflush(P->rec) != 0) {
        int e = errno ? errno : EIO;
        fclose(P->rec);
        P->rec = NULL;
        errno = e;
      }
      sb_free(&b);
    }
  }
  if (!P->rec) return fprintf(stderr, "mentat %s: cannot write the records to '%s': %s\n", P->who, o->records, strerror(errno)), 74;
  return 0;
}

/* Closes the records: flushed, synced (a regular file), closed, every step checked.  0 or 74 (said). */
static int records_end(sim_play *P) {
  if (!P->rec) return 0;
  errno = 0;
  int e = 0;
  if (fflush(P->rec) != 0 || ferror(P->rec)) e = errno ? errno : EIO;
  struct stat st;
  if (!e && fstat(fileno(P->rec), &st) == 0 && S_ISREG(st.st_mode) && fsync(fileno(P->rec)) != 0) e = errno;
  if (fclose(P->rec) != 0 && !e) e = errno ? errno : EIO;
  P->rec = NULL;
  if (!e) return 0;
  fprintf(stderr, "mentat %s: cannot write the records to '%s': %s\n", P->who, P->o->records, strerror(e));
  return 74;
}

/* One game done: the progress line, if shown. */
static void game_done(sim_play *P) {
  P->done++;
  if (P->show && now() - P->shown > 0.25) progress(P->who, P->done, P->nplay, P->t0, false), P->shown = now();
}

/* In worker W: its share of the games still to play (every jobs-th one), each game's result lines
 * sent as soon as it ends. */
static void work(void *ud, int w, int fd) {
  sim_play *P = ud;
  /* test hook (tests/run-simulate.sh): worker K dies by SIGKILL after its first game */
  const char *kill_env = getenv("MENTAT_TEST_KILL_WORKER");
  bool die = kill_env && atoi(kill_env) == w + 1;
  strbuf b = {0};
  for (long t = w; t < P->total; t += P->jobs) {
    if (held(P, t)) continue;
    b.n = 0;
    for (int s = 0; s < P->nsides; s++) {
      if (P->nsides == 2) sb_printf(&b, "%d ", s);
      play_one(P->rs[s], P->o, game_seed(P, t), &b);
    }
    if (!proc_write_all(fd, b.s, b.n)) {
      fprintf(stderr, "mentat %s: worker %d cannot send its results: %s\n", P->who, w + 1, strerror(errno));
      _exit(74);
    }
    if (die) raise(SIGKILL);
  }
  sb_free(&b);
}

static int crew_line(void *ud, int w, const char *line) {
  sim_play *P = ud;
  return P->on_line(P, w, line);
}

/* Plays the run's games: in this process (one job, simulate), or over
 * workers that die with this process.  A signal (SIGINT, SIGTERM, SIGHUP)
 * stops the run: the workers are killed and reaped, the records kept as far
 * as they go, the plot's temporary removed, and this process dies of the
 * signal.  Returns 0, the code that stopped the run, or 70 when the workers
 * could not be started; *MISSING: the games not reported. */
static int play_games(sim_play *P, long *missing) {
  const sim_opts *o = P->o;
  *missing = 0;
  P->t0 = now();
  P->show = !o->quiet && isatty(2);
  int rc = 0;
  if (P->jobs == 1 && P->nsides == 1) {
    strbuf b = {0};
    for (long t = 0; t < P->total && !rc; t++) {
      if (held(P, t)) continue;
      b.n = 0;
      play_one(P->rs[0], o, game_seed(P, t), &b);
      b.s[b.n - 1] = 0;
      rc = P->on_line(P, 0, b.s);
    }
    sb_free(&b);
    if (P->show) progress(P->who, P->done, P->nplay, P->t0, true);
    return rc;
  }
  proc_crew c;
  strbuf why = {0};
  if (!proc_crew_start(&c, P->jobs, work, P, &why)) {
    fprintf(stderr, "mentat %s: %s\n", P->who, why.s);
    sb_free(&why);
    return 70;
  }
  rc = proc_crew_collect(&c, crew_line, P);
  if (P->show) progress(P->who, P->done, P->nplay, P->t0, true);
  if (rc < 0) { /* a signal: what was played is recorded; then die of it */
    records_end(P);
    if (P->plot) mt_out_abort(P->plot);
    fprintf(stderr, "mentat %s: stopped by signal %d after %ld of %ld games", P->who, -rc, P->done, P->nplay);
    if (o->records) fprintf(stderr, "; the records of %ld games are in '%s': the same command with --resume plays the rest", P->resumed + P->done, o->records);
    fprintf(stderr, "\n");
    proc_die(-rc);
  }
  if (rc) return rc;
  for (int w = 0; w < c.n; w++) {
    long games = worker_games(P, w), got = c.lines[w] / P->nsides;
    strbuf end = {0};
    proc_crew_end(&c, w, &end);
    if (got < games || end.n) {
      *missing += games - got;
      fprintf(stderr, "mentat %s: worker %d %s: %ld of its %ld games are missing\n", P->who, w + 1,
              end.n ? end.s : "stopped early", games - got, games);
    }
    sb_free(&end);
  }
  return 0;
}

/* The run's setup shared by simulate and compare: the identity, the games of
 * this shard, the records opened (and read, with --resume), the workers'
 * count.  Returns 0 or an exit code (said). */
static int play_setup(sim_play *P, const sim_opts *o, const char *who, const mt_rules *const *rs, int nsides) {
  P->o = o, P->who = who, P->nsides = nsides;
  for (int s = 0; s < nsides; s++) P->rs[s] = rs[s];
  int rc = run_setup(&P->run, rs, nsides, o, P->map, who);
  if (rc) return rc;
  if (o->resume && !o->records) return fprintf(stderr, "mentat %s: --resume needs --records FILE (the run to finish)\n", who), 64;
  /* this shard's games: k = I-1, I-1+N, ... */
  P->total = o->games >= o->shard_i ? (o->games - o->shard_i) / o->shard_n + 1 : 0;
  if (o->records && (rc = records_begin(P)) != 0) return rc;
  P->nplay = P->total - P->resumed;
  P->jobs = o->jobs;
  if (P->jobs > P->nplay && P->nplay > 0) P->jobs = (int)P->nplay;
  if (P->nplay == 0) P->jobs = 1;
  return 0;
}

static void play_fini(sim_play *P) {
  if (P->rec) fclose(P->rec);
  for (int w = 0; w < PROC_MAX_WORKERS; w++)
    if (P->stashed[w]) mt_free(P->stash[w].victory);
  mt_free(P->held);
  sim_run_fini(&P->run);
}

/* ---- simulate ---- */

/* What simulate counts of the games it played. */
typedef struct sim_tally {
  long played, decisions, failures;
  unsigned long long instructions, peak; /* peak: the most work one decision needed */
  long wins[BOARD_MAX_FACTIONS];
  long *by_rule, no_winner;
  strbuf failed_json;
} sim_tally;

static int simulate_line(sim_play *P, int w, const char *line) {
  (void)w;
  sim_tally *T = P->ud;
  const mt_rules *r = P->rs[0];
  const sim_opts *o = P->o;
  game_done(P);
  sim_record rec = {.side = SIM_BASE};
  const char *failure;
  int rc = 0;
  if (parse_result(line, r, P->map[0], P->run.nfactions, &rec, &failure)) rc = record_game(P, &rec, 1);
  mt_free(rec.victory);
  unsigned long long seed;
  long steps;
  long long wm, v;
  unsigned long long ins = 0, work_peak = 0;
  if (!strncmp(line, "fail", 4)) {
    char *msg = mt_calloc(strlen(line) + 1, 1);
    if (sscanf(line, "fail %llu %ld %[^\n]", &seed, &steps, msg) < 2) {
      mt_free(msg);
      return rc;
    }
    fprintf(stderr, "mentat simulate: game with seed %llu failed at decision %ld: %s\n"
                    "  reproduce: %s --games 1 --seed %llu\n",
            seed, steps, msg, o->replay, seed);
    sb_printf(&T->failed_json, "%s{\"seed\":%llu,\"decision\":%ld,\"error\":", T->failures ? "," : "", seed, steps);
    sb_json_str(&T->failed_json, msg);
    sb_printf(&T->failed_json, ",\"reproduce\":");
    strbuf rep = {0};
    sb_printf(&rep, "%s --games 1 --seed %llu", o->replay, seed);
    sb_json_str(&T->failed_json, rep.s);
    sb_free(&rep);
    sb_putc(&T->failed_json, '}');
    mt_free(msg);
    T->failures++;
    return rc;
  }
  if (sscanf(line, "ok %llu %ld %lld %lld %llu %llu", &seed, &steps, &wm, &v, &ins, &work_peak) != 6) return rc;
  T->played++;
  if (work_peak > T->peak) T->peak = work_peak;
  T->instructions += ins;
  T->decisions += steps;
  for (int f = 0; f < r->def->nfactions && f < BOARD_MAX_FACTIONS; f++)
    if ((uint64_t)wm >> f & 1u) T->wins[f]++;
  if (v >= 0 && v < r->prog.nrules) T->by_rule[v]++;
  else T->no_winner++;
  return rc;
}

/* simulate's summary of the games played now, on standard output. */
static void simulate_report(const sim_play *P, const sim_tally *T, long missing, double elapsed) {
  const mt_rules *r = P->rs[0];
  const sim_opts *o = P->o;
  const board_def *def = r->def;
  size_t state_bytes = 0;
  {
    char err[64];
    mt_game *g = mt_game_new(r, NULL, 0, 1, err, sizeof err);
    if (g) state_bytes = mt_state_size(g);
    mt_game_free(g);
  }
  long played = T->played;
  char hash[17];
  sim_ruleset_hash(r, hash);
  double gps = elapsed > 0 ? (double)played / elapsed : 0, dps = elapsed > 0 ? (double)T->decisions / elapsed : 0;
  unsigned long long budget = (unsigned long long)(o->work_budget ? o->work_budget : MT_WORK_BUDGET);
  if (o->json) {
    printf("{\"games\":%ld,\"ok\":%ld,\"failures\":%ld,\"seconds\":%.3f,\"games_per_second\":%.1f,\"decisions_per_second\":%.0f,"
           "\"mean_decisions\":%.1f,\"jobs\":%d,\"vm_instructions_per_second\":%.0f,\"state_bytes\":%zu,"
           "\"peak_decision_work\":%llu,\"work_budget\":%llu,\"missing\":%ld,\"resumed\":%ld,\"failed\":[%s],\"win_rate\":{",
           played + T->failures, played, T->failures, elapsed, gps, dps, played ? (double)T->decisions / (double)played : 0,
           P->jobs, elapsed > 0 ? (double)T->instructions / elapsed : 0, state_bytes, T->peak, budget, missing, P->resumed,
           T->failed_json.s ? T->failed_json.s : "");
    for (int f = 0, k = 0; f < def->nfactions; f++)
      printf("%s\"%s\":%.4f", k++ ? "," : "", def->factions[f].id, played ? (double)T->wins[f] / (double)played : 0);
    /* the run as compare reports it: what played, and each faction's share with its 95% Wilson interval */
    strbuf id = {0};
    sb_printf(&id, "},\"seed\":%llu,\"ruleset\":\"%s\",\"variants\":", (unsigned long long)o->seed, r->advanced ? "advanced" : "basic");
    sb_json_list(&id, r->variant_names);
    sb_printf(&id, ",\"bots\":\"%s\",\"hash\":\"%s\",\"factions\":[", bots_name(o), hash);
    for (int f = 0; f < def->nfactions; f++) {
      double lo, hi;
      sim_wilson(T->wins[f], played, &lo, &hi);
      sb_printf(&id, "%s{\"faction\":", f ? "," : "");
      sb_json_str(&id, def->factions[f].id);
      sb_printf(&id, ",\"wins\":%ld,\"share\":%.4f,\"ci\":[%.4f,%.4f]}", T->wins[f], played ? (double)T->wins[f] / (double)played : 0,
                lo, hi);
    }
    printf("%s]", id.s);
    sb_free(&id);
    printf(",\"victories\":{");
    int k = 0;
    for (int i = 0; i < r->prog.nrules; i++)
      if (T->by_rule[i]) printf("%s\"%s\":%ld", k++ ? "," : "", r->prog.rules[i].id, T->by_rule[i]);
    printf("%s\"none\":%ld}}\n", k ? "," : "", T->no_winner);
    return;
  }
  printf("%ld games (%ld failed%s) in %.2f s with %d job%s: %.1f games/s, %.0f decisions/s, %.1f decisions per game\n",
         played + T->failures, T->failures, missing ? ", some missing: see below" : "", elapsed, P->jobs, P->jobs == 1 ? "" : "s",
         gps, dps, played ? (double)T->decisions / (double)played : 0);
  if (missing) printf("%ld of the %ld games are missing: a worker stopped before reporting them (its reason is on standard error)\n", missing, P->nplay);
  if (P->resumed)
    printf("%ld games were in '%s' already (--resume): `mentat merge %s` summarizes the whole run\n", P->resumed, o->records, o->records);
  printf("VM: %.0f instructions/s; state: %zu bytes per game; listing and sampling one decision: at most %llu "
         "instructions (work budget %llu)\n",
         elapsed > 0 ? (double)T->instructions / elapsed : 0, state_bytes, T->peak, budget);
  printf("seed %llu (game i plays seed %llu+i), ruleset %s, variants: %s, bots %s, rule-set hash %s\n", (unsigned long long)o->seed,
         (unsigned long long)o->seed, r->advanced ? "advanced" : "basic",
         r->variant_names && *r->variant_names ? r->variant_names : "(none)", bots_name(o), hash);
  printf("win rate per faction (shared victories count for each winner), 95%% Wilson interval:\n");
  for (int f = 0; f < def->nfactions; f++) {
    double lo, hi;
    sim_wilson(T->wins[f], played, &lo, &hi);
    printf("  %-16s %6.1f%% [%5.1f, %5.1f]\n", def->factions[f].id, played ? 100.0 * (double)T->wins[f] / (double)played : 0,
           100 * lo, 100 * hi);
  }
  printf("victories by deciding rule:\n");
  for (int i = 0; i < r->prog.nrules; i++)
    if (T->by_rule[i]) printf("  %-12s %6ld  %s\n", r->prog.rules[i].id, T->by_rule[i], r->prog.rules[i].title);
  printf("  %-12s %6ld\n", "no winner", T->no_winner);
}

int sim_main(const mt_rules *r, const char *pack_options, int argc, char **argv) {
  sim_opts o = {.bots = {BOT_RANDOM}, .nbots = 1, .games = 100, .seed = 1, .jobs = 1, .max_decisions = 100000, .shard_i = 1, .shard_n = 1};
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    int rc = run_option("simulate", &o, argc, argv, &i);
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
  sim_play P = {0};
  sim_tally T = {0};
  T.by_rule = mt_calloc((size_t)r->prog.nrules + 1, sizeof *T.by_rule);
  P.on_line = simulate_line, P.ud = &T;
  const mt_rules *rs[1] = {r};
  int rc = play_setup(&P, &o, "simulate", rs, 1);
  long missing = 0;
  if (!rc) rc = play_games(&P, &missing);
  double elapsed = now() - P.t0;
  int closed = records_end(&P);
  if (!rc) simulate_report(&P, &T, missing, elapsed);
  mt_free(T.by_rule);
  sb_free(&T.failed_json);
  play_fini(&P);
  sb_free(&replay);
  if (getenv("MENTAT_PROFILE")) vm_profile_report(&r->prog), prof_report();
  if (rc) return rc;
  if (missing) return 70;
  if (closed) return closed;
  return T.failures ? 1 : 0;
}

/* ---- compare: two rule sets on the same seeds ---- */

/* A result line "SIDE RESULT" of a compare worker: the base game is kept
 * until its variant game arrives, then both are recorded together (a
 * records file never holds half a pair but when cut short). */
static int compare_line(sim_play *P, int w, const char *line) {
  if ((line[0] != '0' && line[0] != '1') || line[1] != ' ') return 0;
  int s = line[0] - '0';
  sim_record rec = {.side = s};
  const char *failure;
  if (!parse_result(line + 2, P->rs[s], P->map[s], P->run.nfactions, &rec, &failure)) return 0;
  if (failure) {
    int *failures = P->ud;
    (*failures)++;
    fprintf(stderr, "mentat compare: the %s game with seed %llu failed: %s\n", s ? "variant" : "base", (unsigned long long)rec.seed,
            failure);
  }
  if (s == SIM_BASE) {
    if (P->stashed[w]) mt_free(P->stash[w].victory);
    P->stash[w] = rec, P->stashed[w] = true;
    return 0;
  }
  if (!P->stashed[w] || P->stash[w].seed != rec.seed) { /* cannot happen: a worker sends the base game first */
    mt_free(rec.victory);
    return 0;
  }
  sim_record pair[2] = {P->stash[w], rec};
  P->stashed[w] = false;
  int rc = record_game(P, pair, 2);
  sim_run_add(&P->run, &pair[0]);
  sim_run_add(&P->run, &pair[1]);
  mt_free(pair[0].victory), mt_free(pair[1].victory);
  game_done(P);
  return rc;
}

int sim_compare_main(const mt_rules *base, const mt_rules *variant, int argc, char **argv) {
  sim_opts o = {.bots = {BOT_RANDOM}, .nbots = 1, .games = 100, .seed = 1, .jobs = 1, .max_decisions = 100000, .unchecked = true,
                .shard_i = 1, .shard_n = 1};
  sim_output out = {0};
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    int rc = run_option("compare", &o, argc, argv, &i);
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
  if (o.nbots > 1) { /* before anything is opened */
    sim_run probe = {0};
    const mt_rules *rs1[1] = {base};
    int map1[2][SIM_MAX_FACTIONS];
    sim_opts quiet = o;
    quiet.records = NULL;
    int bad = run_setup(&probe, rs1, 1, &quiet, map1, "compare");
    int nf = probe.nfactions;
    sim_run_fini(&probe);
    if (bad) return bad;
    if (o.nbots != nf) return fprintf(stderr, "mentat compare: --bots names %d bots for %d factions\n", o.nbots, nf), 64;
  }
  /* the outputs first: a path that cannot be written fails before any game */
  mt_out plot_out;
  strbuf why = {0};
  if (out.plot && !mt_out_open(&plot_out, out.plot, &why)) {
    fprintf(stderr, "mentat compare: --plot: %s\n", why.s);
    sb_free(&why);
    return 74;
  }
  sim_play P = {0};
  int failures = 0;
  P.on_line = compare_line, P.ud = &failures;
  P.plot = out.plot ? &plot_out : NULL;
  const mt_rules *rs[2] = {base, variant};
  int rc = play_setup(&P, &o, "compare", rs, 2);
  long missing = 0;
  if (!rc) rc = play_games(&P, &missing);
  int closed = records_end(&P);
  if (rc && rc != 70) {
    if (P.plot) mt_out_abort(P.plot);
    play_fini(&P);
    return rc;
  }
  if (missing) {
    fprintf(stderr, "mentat compare: %ld of the %ld games are missing: the summary below is of the games played only\n", missing,
            P.nplay);
    rc = 70;
  }
  int src = sim_summary(&P.run, &out, P.plot);
  play_fini(&P);
  if (rc) return rc;
  if (closed) return closed;
  if (src) return src;
  return failures ? 1 : 0;
}
