/* test_search.c -- the search bot (search.c) on the standard pack's Basic
 * game: it answers legally, the same way for the same seed; and every bot
 * decides from its faction's view (determinize.c): positions that differ only
 * in hidden cards, in another faction's secrets, in what the others answered
 * earlier in a secret round or (the WBC variant) in which hidden leader is
 * which determinize to the same bytes and get the same answer from the
 * search, heuristic and random bots.  Runs from the repository root. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "bots.h"
#include "game.h"
#include "search.h"
#include "pack_fixture.h"

static int group_setup(void **state) {
  (void)state;
  if (pack_setup(0) < 0) return -1;
  bot_search_set(2, 4, 3); /* small: the tests judge the bot's soundness, not its play */
  return 0;
}

static bool same_choice(const mt_choice *a, const mt_choice *b) {
  if (a->action != b->action || a->nargs != b->nargs || a->value != b->value) return false;
  for (int i = 0; i < a->nargs; i++)
    if (a->args[i] != b->args[i]) return false;
  return true;
}

/* A new game of SEED played by random bots for STEPS decisions. */
static mt_game *position(uint64_t seed, int steps) {
  char err[128];
  mt_game *g = mt_game_new(R, NULL, 0, seed, err, sizeof err);
  assert_non_null(g);
  assert_int_equal(mt_start(g), MT_WAITING);
  uint64_t rng = seed;
  for (int k = 0; k < steps && mt_status(g) == MT_WAITING; k++) {
    mt_choice c;
    assert_true(bot_choose(g, BOT_RANDOM, &rng, &c));
    assert_true(mt_apply(g, &c, NULL) >= 0);
  }
  return g;
}

/* At decisions of several positions: the answer is legal (the game takes it)
 * and the same for the same seed. */
static void legal_and_deterministic(void **state) {
  (void)state;
  int searched = 0;
  for (uint64_t seed = 1; seed <= 3; seed++)
    for (int steps = 20; steps <= 200; steps += 60) {
      mt_game *g = position(seed, steps);
      if (mt_status(g) != MT_WAITING) {
        mt_game_free(g);
        continue;
      }
      mt_choice a, b;
      uint64_t r1 = 42, r2 = 42;
      assert_true(bot_search_choose(g, &r1, &a));
      assert_true(bot_search_choose(g, &r2, &b));
      assert_true(same_choice(&a, &b));
      assert_true(r1 == r2);
      mt_game *h = mt_clone(g);
      mt_explain why;
      assert_true(mt_apply(h, &a, &why) >= 0);
      mt_game_free(h);
      mt_game_free(g);
      searched++;
    }
  assert_true(searched >= 6);
}

/* Whether game faction ME may see pile slot S, as the data says. */
static bool sees(const mt_game *g, int s, int me) {
  const board_pile *p = &g->r->def->piles[g->L->pile_of_slot[s]];
  return p->visibility == VIS_PUBLIC || (p->visibility == VIS_OWNER && g->L->owner_of_slot[s] == me);
}

/* Swaps a card another faction holds hidden from the deciding faction with a
 * card of the same deck in another hidden pile (a face-down deck), and adds 7
 * to another faction's secret variables: the game faction that held the first
 * card (it sees the change), or -1 if no such cards were found. */
static int change_hidden(mt_game *g) {
  const board_layout *L = g->L;
  const board_def *def = g->r->def;
  int me = vm_game_faction(&g->v, g->v.vs->dec.faction);
  for (int d = 0; d < def->ndecks; d++)
    for (int c1 = def->decks[d].first_card; c1 < def->decks[d].first_card + def->decks[d].ncards; c1++) {
      int p1, s1 = board_card_pile(L, g->v.st, c1, &p1);
      if (s1 < 0 || sees(g, s1, me) || L->owner_of_slot[s1] < 0 || L->owner_of_slot[s1] == me) continue;
      for (int c2 = def->decks[d].first_card; c2 < def->decks[d].first_card + def->decks[d].ncards; c2++) {
        int p2, s2 = board_card_pile(L, g->v.st, c2, &p2);
        if (s2 < 0 || s2 == s1 || sees(g, s2, me)) continue;
        board_card_move(L, g->v.st, c1, s2, p2);
        board_card_move(L, g->v.st, c2, s1, p1);
        for (int v = 0; v < L->nvars; v++)
          if (L->vars[v].visibility == VIS_OWNER && L->vars[v].scope == BS_FACTION && L->vars[v].type == BT_INT)
            board_var_set(L, g->v.st, v, (me + 1) % L->nf, 0, board_var_get(L, g->v.st, v, (me + 1) % L->nf, 0) + 7);
        assert_int_equal(board_check_piles(L, g->v.st, &(int){0}), 0);
        return L->owner_of_slot[s1];
      }
    }
  return -1;
}

/* A bot's answer to G's decision with its generator at SEED. */
static mt_choice choose(mt_game *g, int kind, uint64_t seed) {
  mt_choice c;
  assert_true(bot_choose(g, kind, &seed, &c));
  return c;
}

/* Two positions that differ only in what the deciding faction may not see
 * (another faction's hand, a deck's order, another faction's secret
 * variables) determinize to the same bytes and get the same answer from
 * every bot kind for the same seed. */
static void hidden_cards_and_secrets(int kind) {
  int compared = 0;
  for (uint64_t seed = 1; seed <= 4; seed++) {
    mt_game *g = position(seed, 150);
    if (mt_status(g) != MT_WAITING) {
      mt_game_free(g);
      continue;
    }
    mt_game *h = mt_clone(g);
    int holder = change_hidden(h);
    if (holder < 0) {
      mt_game_free(h);
      mt_game_free(g);
      continue;
    }
    assert_true(memcmp(g->block, h->block, g->L->off_gen) != 0 /* the positions, not their generations */);
    mt_game *dg = mt_clone(g), *dh = mt_clone(h);
    uint64_t r1 = 7, r2 = 7;
    int64_t me = g->v.vs->dec.faction;
    bot_determinize(dg, me, &r1);
    bot_determinize(dh, me, &r2);
    assert_true(memcmp(dg->block, dh->block, g->L->off_gen) == 0);
    mt_copy_state(dg, g); /* the faction that held the card sees the change: its worlds differ */
    mt_copy_state(dh, h);
    r1 = r2 = 7;
    bot_determinize(dg, g->L->faction[holder], &r1);
    bot_determinize(dh, g->L->faction[holder], &r2);
    assert_true(memcmp(dg->block, dh->block, g->L->off_gen) != 0);
    mt_choice a = choose(g, kind, 99), b = choose(h, kind, 99);
    assert_true(same_choice(&a, &b));
    mt_game_free(dg);
    mt_game_free(dh);
    mt_game_free(h);
    mt_game_free(g);
    compared++;
  }
  assert_true(compared >= 2);
}
static void never_reads_hidden(void **state) {
  (void)state;
  hidden_cards_and_secrets(BOT_SEARCH);
}
static void heuristic_never_reads_hidden(void **state) {
  (void)state;
  hidden_cards_and_secrets(BOT_HEURISTIC);
}
static void random_never_reads_hidden(void **state) {
  (void)state;
  hidden_cards_and_secrets(BOT_RANDOM);
}

/* Whether, in G's secret round, a faction other than the deciding one has
 * already answered: one of its per-faction variables differs from the round's
 * start. */
static bool others_answered(const mt_game *g, int me) {
  const board_layout *L = g->L;
  for (int i = 0; i < L->nvars; i++) {
    if (L->vars[i].scope != BS_FACTION) continue;
    size_t cells = (size_t)L->vars[i].len * sizeof(int32_t);
    for (int k = 0; k < L->nf; k++) {
      size_t off = L->var_off[i] + (size_t)k * cells;
      if (k != me && memcmp(g->v.st + off, g->v.secret_vars + (off - L->off_vars), cells) != 0) return true;
    }
  }
  return false;
}

/* In a secret round the engine asks one faction after the other: a faction
 * asked later must not see what the earlier ones answered (a storm dial, a
 * battle plan).  Two positions that differ only in those answers determinize
 * to the same bytes and get the same answer from bot KIND; the faction's own
 * answers stay. */
static void rounds_answers(int kind) {
  int compared = 0;
  for (uint64_t seed = 1; seed <= 6 && compared < 4; seed++) {
    char err[128];
    mt_game *g = mt_game_new(R, NULL, 0, seed, err, sizeof err);
    assert_non_null(g);
    assert_int_equal(mt_start(g), MT_WAITING);
    uint64_t rng = seed;
    for (int k = 0; k < 1500 && mt_status(g) == MT_WAITING && compared < 4; k++) {
      int me = vm_game_faction(&g->v, g->v.vs->dec.faction);
      if (g->v.vs->secret && g->v.secret_seen && others_answered(g, me)) {
        /* H: the same position, the others' answers in this round taken back */
        mt_game *h = mt_clone(g);
        const board_layout *L = g->L;
        for (int i = 0; i < L->nvars; i++) {
          if (L->vars[i].scope != BS_FACTION) continue;
          size_t cells = (size_t)L->vars[i].len * sizeof(int32_t);
          for (int f = 0; f < L->nf; f++)
            if (f != me) memcpy(h->v.st + L->var_off[i] + (size_t)f * cells, g->v.secret_vars + L->var_off[i] - L->off_vars + (size_t)f * cells, cells);
        }
        assert_true(memcmp(g->block, h->block, g->L->off_gen) != 0 /* the positions, not their generations */);
        mt_game *dg = mt_clone(g), *dh = mt_clone(h);
        uint64_t r1 = 5, r2 = 5;
        bot_determinize(dg, g->v.vs->dec.faction, &r1);
        bot_determinize(dh, g->v.vs->dec.faction, &r2);
        assert_true(memcmp(dg->block, dh->block, g->L->off_gen) == 0);
        mt_choice a = choose(g, kind, 41), b = choose(h, kind, 41);
        assert_true(same_choice(&a, &b));
        mt_game_free(dg);
        mt_game_free(dh);
        mt_game_free(h);
        compared++;
      }
      mt_choice c;
      assert_true(bot_choose(g, BOT_RANDOM, &rng, &c));
      assert_true(mt_apply(g, &c, NULL) >= 0);
    }
    mt_game_free(g);
  }
  assert_true(compared >= 2); /* storm dials and battle plans were met with earlier answers in */
}
static void blind_to_the_rounds_answers(void **state) {
  (void)state;
  rounds_answers(BOT_SEARCH);
}
static void heuristic_blind_to_the_rounds_answers(void **state) {
  (void)state;
  rounds_answers(BOT_HEURISTIC);
}

/* ---- the WBC variant: leaders whose identity the rules hide (wbc.battle.7) ---- */

/* Adds leader L to the set variable NAME of G (a set of leaders). */
static void set_add(mt_game *g, const char *name, int l) {
  const program *p = &g->r->prog;
  for (int i = 0; i < p->nvars; i++) {
    const var_rec *vr = &p->vars[i];
    if (strcmp(vr->name, name)) continue;
    int cell = vr->width == 2 && l >= 32 ? 1 : 0;
    int32_t x = board_var_get(g->L, g->v.st, vr->board_var, 0, cell);
    board_var_set(g->L, g->v.st, vr->board_var, 0, cell, (int32_t)((uint32_t)x | 1u << (l % 32)));
    return;
  }
  fail_msg("no variable %s", name);
}

/* Sets the integer variable NAME(L) of G (indexed by a leader). */
static void set_by_leader(mt_game *g, const char *name, int l, int32_t v) {
  const program *p = &g->r->prog;
  for (int i = 0; i < p->nvars; i++)
    if (!strcmp(p->vars[i].name, name)) {
      board_var_set(g->L, g->v.st, p->vars[i].board_var, 0, l, v);
      return;
    }
  fail_msg("no variable %s", name);
}

/* G as if the Harkonnen (game faction HK) had captured leader A and killed
 * leader B when they drew it (wbc.battle.7: face down in the Tanks, its
 * identity known to the Harkonnen and B's owner only). */
static void capture_and_kill(mt_game *g, int hk, int a, int b) {
  const board_def *def = g->r->def;
  board_leader_state la = {(int8_t)board_leader_status_index(def, "captured"), (int8_t)hk, -1, 0};
  board_leader_state lb = {(int8_t)board_leader_status_index(def, "tanks_face_down"), -1, -1, 0};
  assert_int_equal(board_leader_set(g->L, g->v.st, a, la), BOARD_OK);
  assert_int_equal(board_leader_set(g->L, g->v.st, b, lb), BOARD_OK);
  set_add(g, "captives", a);
  set_add(g, "wbc_killed_captives", b);
  set_by_leader(g, "deaths", b, 2);
  vm_memo_reset(&g->v);
}

/* Whether the rules let data faction F see leader L in G (1.11.00). */
static bool seen_by(mt_game *g, int l, int f) {
  char text[160];
  snprintf(text, sizeof text, "leader_seen_by(%s, %s)", g->r->def->leaders[l].id, g->r->def->factions[f].id);
  int64_t v = -1;
  int ty;
  strbuf err = {0};
  assert_true(game_eval(g, text, &v, &ty, &err));
  sb_free(&err);
  return v != 0;
}

/* Whether the determinizations of G and H for data faction F (the same seed) are the same bytes. */
static bool same_world(const mt_game *g, const mt_game *h, int64_t f) {
  mt_game *dg = mt_clone(g), *dh = mt_clone(h);
  uint64_t r1 = 13, r2 = 13;
  bot_determinize(dg, f, &r1);
  bot_determinize(dh, f, &r2);
  bool same = memcmp(dg->block, dh->block, g->L->off_gen) == 0 && r1 == r2;
  mt_game_free(dg);
  mt_game_free(dh);
  return same;
}

/* Under the WBC variant a third faction sees that the Harkonnen hold one of
 * X's leaders captive and that another of X's leaders died face down on
 * capture, not which is which (`view as`: "and 2 hidden").  Two positions
 * that differ only in that (leader A captive and B face down, or the other
 * way round, each with its death count) determinize to the same bytes for it
 * and get the same answer from its heuristic and search bots; for the
 * Harkonnen, who see both, the worlds differ. */
static void wbc_hidden_leaders(void **state) {
  (void)state;
  static const char *const variants[] = {"wbc-2022"};
  mt_load ld = {.components = ".", .message = on_message, .advanced = 1, .variants = variants, .nvariants = 1};
  mt_rules *W = mt_rules_load(&ld);
  assert_non_null(W);
  const board_def *def = W->def;
  int hkf = board_faction_index(def, "harkonnen");
  assert_true(hkf >= 0);
  int compared = 0;
  for (uint64_t seed = 1; seed <= 8 && compared < 6; seed++) {
    char err[128];
    mt_game *g = mt_game_new(W, NULL, 0, seed, err, sizeof err);
    assert_non_null(g);
    assert_int_equal(mt_start(g), MT_WAITING);
    uint64_t rng = seed;
    for (int k = 0; k < 600 && mt_status(g) == MT_WAITING && compared < 6; k++) {
      int64_t f = g->v.vs->dec.faction;
      mt_choice c;
      if (k % 37 == 36 && f != hkf) { /* a decision of a third faction: X, a faction other than it and the Harkonnen */
        int hk = g->L->game_faction[hkf];
        for (int x = 0; x < def->nfactions; x++) {
          if (x == f || x == hkf || g->L->game_faction[x] < 0) continue;
          int a = -1, b = -1; /* two leaders of X at home */
          for (int l = def->factions[x].first_leader; l < def->factions[x].first_leader + def->factions[x].nleaders; l++) {
            board_leader_state ls = board_leader_get(g->L, g->v.st, l);
            if (ls.status != board_leader_status_index(def, "available") || ls.holder != g->L->game_faction[x] || ls.area >= 0) continue;
            if (a < 0) a = l;
            else if (b < 0) b = l;
          }
          if (b < 0) continue;
          mt_game *g1 = mt_clone(g), *h1 = mt_clone(g);
          capture_and_kill(g1, hk, a, b);
          capture_and_kill(h1, hk, b, a);
          assert_true(memcmp(g1->block, h1->block, g->L->off_gen) != 0);
          assert_false(seen_by(g1, a, (int)f) || seen_by(g1, b, (int)f) || seen_by(h1, a, (int)f));
          assert_true(seen_by(g1, a, hkf) && seen_by(g1, b, x));
          assert_true(same_world(g1, h1, f));         /* the faction cannot tell them apart */
          assert_false(same_world(g1, h1, hkf));      /* the Harkonnen can */
          assert_false(same_world(g1, h1, x));        /* and so can X */
          mt_choice p = choose(g1, BOT_HEURISTIC, 77), q = choose(h1, BOT_HEURISTIC, 77);
          assert_true(same_choice(&p, &q));
          p = choose(g1, BOT_SEARCH, 78), q = choose(h1, BOT_SEARCH, 78);
          assert_true(same_choice(&p, &q));
          mt_game_free(g1);
          mt_game_free(h1);
          compared++;
          break;
        }
      }
      assert_true(bot_choose(g, BOT_RANDOM, &rng, &c));
      assert_true(mt_apply(g, &c, NULL) >= 0);
    }
    mt_game_free(g);
  }
  mt_rules_free(W);
  assert_true(compared >= 4);
}

/* A whole game with search bots in two seats and random bots elsewhere ends,
 * every answer taken. */
static void plays_a_game(void **state) {
  (void)state;
  char err[128];
  mt_game *g = mt_game_new(R, NULL, 0, 5, err, sizeof err);
  assert_non_null(g);
  int st = mt_start(g);
  uint64_t rng = 5;
  for (long k = 0; st == MT_WAITING && k < 20000; k++) {
    int seat = vm_game_faction(&g->v, g->v.vs->dec.faction);
    mt_choice c;
    assert_true(bot_choose(g, seat % 3 == 0 ? BOT_SEARCH : BOT_RANDOM, &rng, &c));
    st = mt_apply(g, &c, NULL);
    assert_true(st >= 0);
  }
  assert_int_equal(st, MT_FINISHED);
  mt_game_free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(legal_and_deterministic),
      cmocka_unit_test(never_reads_hidden),
      cmocka_unit_test(blind_to_the_rounds_answers),
      cmocka_unit_test(heuristic_never_reads_hidden),
      cmocka_unit_test(random_never_reads_hidden),
      cmocka_unit_test(heuristic_blind_to_the_rounds_answers),
      cmocka_unit_test(wbc_hidden_leaders),
      cmocka_unit_test(plays_a_game),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
