/* search.c -- the search bot: determinized Monte-Carlo over the engine.
 *
 * For each decision with more than one candidate answer (the heuristic bot's
 * candidates, bots.c; of those, the WIDTH it rates best one answer ahead),
 * the bot plays PLAYOUTS rounds.  Each round makes one determinization of
 * the position as the deciding faction sees it (bot_determinize), then for
 * every candidate: a copy of that world, the candidate applied, and HORIZON
 * more decisions answered by the heuristic bot for every faction (fewer when
 * the game ends).  A candidate's score is the mean over rounds of the
 * deciding faction's `bot_value` at the end of the playout, plus SEARCH_WIN
 * when the game ended in the playout with the faction among the `winners`,
 * minus it when it ended without.  The best mean wins; all candidates see
 * the same worlds and the same bots' draws in a round (common random
 * numbers), so their difference is not blurred by the draws.  Everything
 * random comes from the bot's generator: same position, same seed, same
 * answer.
 *
 * In a secret round (`secret f in ...`, run one faction after the other), the
 * answers other factions gave earlier in the round are hidden too: their
 * per-faction variables go back to the round's start (vm.h secret_vars). */
#include "search.h"

#include <stdlib.h>
#include <string.h>

#include "bots.h"
#include "game.h"

static int search_playouts = BOT_SEARCH_PLAYOUTS, search_horizon = BOT_SEARCH_HORIZON, search_width = BOT_SEARCH_WIDTH;

#define SEARCH_WIN 100000 /* a won game outweighs any position's value */
#define SEARCH_CAP 256

void bot_search_set(int playouts, int horizon, int width) {
  search_playouts = playouts > 0 ? playouts : BOT_SEARCH_PLAYOUTS;
  search_horizon = horizon >= 0 ? horizon : BOT_SEARCH_HORIZON;
  search_width = width > 0 ? width : BOT_SEARCH_WIDTH;
}

void bot_search_get(int *playouts, int *horizon, int *width) {
  *playouts = search_playouts;
  *horizon = search_horizon;
  *width = search_width;
}

static int find_var(const program *p, const char *name) {
  for (int i = 0; i < p->nvars; i++)
    if (!strcmp(p->vars[i].name, name)) return i;
  return -1;
}

/* The playout's worth to faction F: bot_value(f), plus SEARCH_WIN if the game
 * ended with F among the `winners`, minus it if it ended without. */
static bool outcome(mt_game *g, int value, int winners, int64_t f, int64_t *out) {
  if (!bot_value(g, value, f, out)) return false;
  if (mt_status(g) == MT_FINISHED && winners >= 0) {
    const var_rec *vr = &g->r->prog.vars[winners];
    uint64_t w = (uint32_t)board_var_get(g->L, g->v.st, vr->board_var, 0, 0);
    if (vr->width == 2) w |= (uint64_t)(uint32_t)board_var_get(g->L, g->v.st, vr->board_var, 0, 1) << 32;
    *out += (w >> f & 1u) ? SEARCH_WIN : -SEARCH_WIN;
  }
  return true;
}

/* Plays G on for HORIZON decisions with the heuristic bot at every seat. */
static void playout(mt_game *g, int horizon, uint64_t *rng) {
  for (int k = 0; k < horizon && mt_status(g) == MT_WAITING; k++) {
    mt_choice c;
    if (!bot_heuristic_choose(g, rng, &c, true) || mt_apply(g, &c, NULL) < 0) return; /* G is a world already */
  }
}

typedef struct ranked {
  int64_t score;
  size_t i;
} ranked;

static int by_score(const void *a, const void *b) {
  const ranked *x = a, *y = b;
  if (x->score != y->score) return x->score > y->score ? -1 : 1;
  return x->i < y->i ? -1 : x->i > y->i;
}

/* Keeps the WIDTH candidates of BUF[0..N) the heuristic bot rates best one
 * answer ahead (bot_value right after the answer), best first; returns how
 * many are kept.  They are rated in WORLD, a determinization, not in the
 * real position: an answer that draws a card or rolls the dice must not
 * show what it would really give.  Answers WORLD refuses are dropped. */
static size_t shortlist(mt_game *world, mt_game *probe, int value, int64_t me, mt_choice *buf, size_t n, size_t width) {
  static ranked rank[BOT_CAP];
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    mt_copy_state(probe, world);
    int64_t s;
    if (mt_apply(probe, &buf[i], NULL) < 0 || mt_status(probe) == MT_FAILED || !bot_value(probe, value, me, &s)) continue;
    rank[m++] = (ranked){s, i};
  }
  qsort(rank, m, sizeof *rank, by_score);
  if (m > width) m = width;
  static mt_choice keep[BOT_CAP];
  for (size_t k = 0; k < m; k++) keep[k] = buf[rank[k].i];
  memcpy(buf, keep, m * sizeof *buf);
  return m;
}

bool bot_search_choose(mt_game *g, uint64_t *rng, mt_choice *out) {
  static mt_choice buf[BOT_CAP];
  size_t n = bot_candidates(g, rng, buf);
  if (n == 0) return false;
  int value = bot_value_index(g);
  if (n == 1 || value < 0) {
    *out = buf[bot_rand(rng) % n];
    return true;
  }
  int64_t me = g->v.vs->dec.faction;
  mt_game *world = mt_clone(g), *probe = mt_clone(g);
  mt_game_set_log(world, NULL, NULL);
  mt_game_set_log(probe, NULL, NULL);
  bot_determinize(world, me, rng);
  size_t kept = shortlist(world, probe, value, me, buf, n, (size_t)search_width < SEARCH_CAP ? (size_t)search_width : SEARCH_CAP);
  if (kept <= 1) {
    *out = buf[kept == 1 ? 0 : bot_rand(rng) % n]; /* none rated: any candidate */
    mt_game_free(probe);
    mt_game_free(world);
    return true;
  }
  n = kept;
  int winners = find_var(&g->r->prog, "winners");
  double sum[SEARCH_CAP] = {0};
  int count[SEARCH_CAP] = {0};
  for (int round = 0; round < search_playouts && !mt_stop_requested; round++) { /* Ctrl-C: the rounds so far decide */
    if (round > 0) {
      mt_copy_state(world, g);
      bot_determinize(world, me, rng);
    }
    uint64_t seed = bot_rand(rng); /* the same bots' draws for every candidate of the round */
    for (size_t i = 0; i < n; i++) {
      mt_copy_state(probe, world);
      if (mt_apply(probe, &buf[i], NULL) < 0) continue; /* not legal in this world */
      uint64_t r = seed;
      playout(probe, search_horizon, &r);
      int64_t s;
      if (mt_status(probe) == MT_FAILED || !outcome(probe, value, winners, me, &s)) continue;
      sum[i] += (double)s;
      count[i]++;
    }
  }
  mt_game_free(probe);
  mt_game_free(world);
  size_t best = 0;
  double best_mean = 0;
  bool any = false;
  for (size_t i = 0; i < n; i++) {
    if (!count[i]) continue;
    double mean = sum[i] / (double)count[i];
    if (!any || mean > best_mean) best = i, best_mean = mean, any = true;
  }
  *out = buf[any ? best : bot_rand(rng) % n];
  return true;
}
