/* bots.c -- the players the engine can use for any decision: a random bot, a
 * passive one and a one-ply heuristic one.  They know no game: the heuristic
 * bot scores positions with a value the rules define (bot_value). */
#include "bots.h"

#include <string.h>

#include "check.h"
#include "game.h"

static const char *const names[] = {"random", "passive", "heuristic", "uniform"};
#define NKINDS (int)(sizeof names / sizeof *names)

int bot_kind_parse(const char *name) {
  for (int i = 0; i < NKINDS; i++)
    if (!strcmp(name, names[i])) return i;
  return -1;
}

const char *bot_kind_name(int kind) { return kind >= 0 && kind < NKINDS ? names[kind] : "?"; }

uint64_t bot_rand(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

#define BOT_CAP 4096
#define BOT_SAMPLE 24

/* The rules' bot_value(f) of faction F in G, or 0 if the rules define none. */
static bool score(mt_game *g, int value, int64_t f, int64_t *out) {
  const program *p = &g->r->prog;
  vm_memo_reset(&g->v);
  return vm_eval(&g->v, p->values[value].dispatch_fn, &f, 1, out, NULL);
}

static uint64_t rand_cb(void *ctx) { return bot_rand(ctx); }

bool bot_choose(mt_game *g, int kind, uint64_t *rng, mt_choice *out) {
  static mt_choice buf[BOT_CAP];
  if (kind == BOT_RANDOM) return mt_sample(g, rand_cb, rng, out) != 0;
  size_t n = mt_legal(g, buf, BOT_CAP);
  if (n == 0) return false;
  if (n > BOT_CAP) n = BOT_CAP;
  const mt_decision *d = mt_pending(g);
  if (kind == BOT_PASSIVE) {
    if (d->kind == MT_DEC_YESNO) {
      *out = (mt_choice){.action = -1, .value = 0};
      return true;
    }
    size_t best = 0;
    for (size_t i = 1; i < n; i++)
      if (buf[i].nargs < buf[best].nargs) best = i;
    *out = buf[best];
    return true;
  }
  if (kind == BOT_HEURISTIC && n > 1) {
    const program *p = &g->r->prog;
    int value = -1;
    for (int i = 0; i < p->nvalues; i++)
      if (!strcmp(p->values[i].name, "bot_value") && p->values[i].nparams == 1 && p->values[i].ptype[0] == TY_FACTION &&
          p->values[i].ret == TY_INT)
        value = i;
    int64_t me = g->v.vs->dec.faction;
    if (value >= 0) {
      size_t best = SIZE_MAX;
      int64_t best_score = INT64_MIN;
      mt_game *probe = mt_clone(g);
      mt_game_set_log(probe, NULL, NULL); /* the trials are silent: only the answer chosen is narrated */
      for (int k = 0; k < BOT_SAMPLE; k++) {
        size_t i = n <= BOT_SAMPLE ? (size_t)k : (size_t)(bot_rand(rng) % n);
        if (i >= n) break;
        mt_copy_state(probe, g);
        if (mt_apply(probe, &buf[i], NULL) < 0 || mt_status(probe) == MT_FAILED) continue;
        int64_t s;
        if (!score(probe, value, me, &s)) continue;
        s = s * 16 + (int64_t)(bot_rand(rng) % 16); /* ties broken at random */
        if (s > best_score) best_score = s, best = i;
      }
      mt_game_free(probe);
      if (best != SIZE_MAX) {
        *out = buf[best];
        return true;
      }
    }
  }
  *out = buf[bot_rand(rng) % n];
  return true;
}
