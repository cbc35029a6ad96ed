/* bots.c -- the players the engine can use for any decision: a random bot, a
 * passive one and a one-ply heuristic one.  They know no game: the heuristic
 * bot scores positions with a value the rules define (bot_value). */
#include "bots.h"

#include <ctype.h>
#include <string.h>

#include "check.h"
#include "game.h"
#include "search.h"

static const char *const names[] = {"random", "passive", "heuristic", "uniform", "search"};
#define NKINDS (int)(sizeof names / sizeof *names)

int bot_kind_parse(const char *name) {
  for (int i = 0; i < NKINDS; i++) { /* in any case: `bots Heuristic` */
    const char *a = name, *b = names[i];
    while (*a && *b && tolower((unsigned char)*a) == *b) a++, b++;
    if (!*a && !*b) return i;
  }
  return -1;
}

int bot_kinds_parse(const char *list, int *kinds, int cap) {
  int n = 0;
  const char *p = list;
  for (;;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    char name[32];
    if (len == 0 || len >= sizeof name || n >= cap) return -1;
    memcpy(name, p, len);
    name[len] = 0;
    if ((kinds[n++] = bot_kind_parse(name)) < 0) return -1;
    if (!comma) return n;
    p = comma + 1;
  }
}

const char *bot_kind_name(int kind) { return kind >= 0 && kind < NKINDS ? names[kind] : "?"; }

uint64_t bot_rand(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

#define BOT_SAMPLE 24 /* candidates drawn; the ends of integer ranges may add a few more (buf holds BOT_CAP) */

bool bot_value(mt_game *g, int value, int64_t f, int64_t *out) {
  const program *p = &g->r->prog;
  vm_memo_reset(&g->v);
  return vm_eval(&g->v, p->values[value].dispatch_fn, &f, 1, out, NULL);
}

static uint64_t rand_cb(void *ctx) { return bot_rand(ctx); }

static bool same_answer(const mt_choice *a, const mt_choice *b) {
  if (a->action != b->action || a->nargs != b->nargs || (a->action < 0 && a->value != b->value)) return false;
  for (int i = 0; i < a->nargs; i++)
    if (a->args[i] != b->args[i]) return false;
  return true;
}

static bool add_candidate(mt_choice *buf, size_t *m, const mt_choice *c) {
  for (size_t i = 0; i < *m; i++)
    if (same_answer(&buf[i], c)) return false;
  buf[(*m)++] = *c;
  return true;
}

/* The heuristic bot's candidates: every legal answer when there are at most
 * BOT_SAMPLE, else BOT_SAMPLE draws of the level-by-level sampler (repeats
 * dropped), and for the first drawn answer of each action whose last
 * parameter is an integer, the same answer at both ends of that parameter's
 * range (the least and the most it may bid, pay or move).  Nothing lists
 * every answer of a wide decision, and a range of a billion values costs no
 * more than a range of three: the work per decision is bounded. */
size_t bot_candidates(mt_game *g, uint64_t *rng, mt_choice *buf) {
  size_t n = mt_legal_upto(g, buf, BOT_SAMPLE);
  if (n <= BOT_SAMPLE) return n;
  size_t m = 0, drawn;
  for (int k = 0; k < 2 * BOT_SAMPLE && m < BOT_SAMPLE; k++) {
    mt_choice c;
    if (!mt_sample(g, rand_cb, rng, &c)) break;
    add_candidate(buf, &m, &c);
  }
  drawn = m;
  for (size_t i = 0; i < drawn; i++) {
    const mt_choice *c = &buf[i];
    bool first = true;
    for (size_t j = 0; j < i && first; j++) first = buf[j].action != c->action;
    int last = c->nargs - 1;
    int64_t lo, hi;
    if (!first || last < 1 || !game_param_range(g, c, last, &lo, &hi)) continue;
    mt_choice end = *c;
    end.args[last] = lo;
    add_candidate(buf, &m, &end);
    end.args[last] = hi;
    add_candidate(buf, &m, &end);
  }
  return m;
}

int bot_value_index(const mt_game *g) {
  mt_rules *r = (mt_rules *)(uintptr_t)g->r; /* found once per rule set (game.h bot_value) */
  if (r->bot_value != BOT_VALUE_UNKNOWN) return r->bot_value;
  const program *p = &r->prog;
  int value = -1;
  for (int i = 0; i < p->nvalues; i++)
    if (!strcmp(p->values[i].name, "bot_value") && p->values[i].nparams == 1 && p->values[i].ptype[0] == TY_FACTION &&
        p->values[i].ret == TY_INT)
      value = i;
  return r->bot_value = value;
}

/* The heuristic bot: the candidates (bot_candidates) are the answers the engine offers, so they
 * read only what the deciding faction is told; each is then tried and scored in one world that
 * faction cannot tell from G (bot_determinize), never in G itself: an answer that draws a card
 * or reaches another faction's secret shows what the faction could guess, not what is there.
 * In a world that is already a determinization (a search playout, WORLD true) the answers are
 * tried in G. */
bool bot_heuristic_choose(mt_game *g, uint64_t *rng, mt_choice *out, bool world) {
  static mt_choice buf[BOT_CAP];
  size_t n = bot_candidates(g, rng, buf);
  if (n == 0) return false;
  int value = bot_value_index(g);
  int64_t me = g->v.vs->dec.faction;
  if (value >= 0 && n > 1) {
    size_t best = SIZE_MAX;
    int64_t best_score = INT64_MIN;
    mt_game *seen = NULL; /* what the faction may see of G, the rest guessed */
    if (!world) {
      seen = mt_clone(g);
      mt_game_set_log(seen, NULL, NULL);
      bot_determinize(seen, me, rng);
    }
    const mt_game *base = seen ? seen : g;
    mt_game *probe = mt_clone(base);
    mt_game_set_log(probe, NULL, NULL); /* the trials are silent: only the answer chosen is narrated */
    for (size_t i = 0; i < n; i++) {
      mt_copy_state(probe, base);
      if (mt_apply(probe, &buf[i], NULL) < 0 || mt_status(probe) == MT_FAILED) continue;
      int64_t s;
      if (!bot_value(probe, value, me, &s)) continue;
      s = s * 16 + (int64_t)(bot_rand(rng) % 16); /* ties broken at random */
      if (s > best_score) best_score = s, best = i;
    }
    mt_game_free(probe);
    if (seen) mt_game_free(seen);
    if (best != SIZE_MAX) {
      *out = buf[best];
      return true;
    }
  }
  *out = buf[bot_rand(rng) % n];
  return true;
}

bool bot_choose(mt_game *g, int kind, uint64_t *rng, mt_choice *out) {
  static mt_choice buf[BOT_CAP];
  if (kind == BOT_RANDOM) return mt_sample(g, rand_cb, rng, out) != 0;
  if (kind == BOT_SEARCH) return bot_search_choose(g, rng, out);
  if (kind == BOT_HEURISTIC) return bot_heuristic_choose(g, rng, out, false);
  if (kind == BOT_PASSIVE) {
    const mt_decision *d = mt_pending(g);
    if (d && d->kind == MT_DEC_YESNO) {
      *out = (mt_choice){.action = -1, .value = 0};
      return true;
    }
    return game_first_fewest(g, out);
  }
  size_t n = mt_legal(g, buf, BOT_CAP);
  if (n == 0) return false;
  size_t k = (size_t)(bot_rand(rng) % n); /* uniform over all the legal answers */
  if (k < BOT_CAP) *out = buf[k];
  else if (!mt_legal_nth(g, k, out)) return false;
  return true;
}
