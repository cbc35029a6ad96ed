/* test_fuse.c -- superinstructions (fuse.c) change how many dispatches a game
 * takes, never the game: the standard pack compiled with and without them
 * plays the same positions, decision after decision, with the same legal
 * answers, in the Advanced game and the WBC 2022 variant; and every fused
 * opcode occurs in the fused pack, so those games run each of them.  Runs
 * from the repository root. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "opcodes.h"

static strbuf diag_text;

static void on_message(void *ud, int level, const char *text) {
  (void)ud;
  (void)level;
  sb_puts(&diag_text, text);
}

static uint64_t lcg(void *ctx) {
  uint64_t *x = ctx;
  *x = *x * 6364136223846793005ull + 1442695040888963407ull;
  return *x >> 11;
}

static mt_rules *pack(const char *variant, bool plain) {
  const char *vs[] = {variant};
  mt_load o = {.components = ".", .advanced = 1, .variants = vs, .nvariants = variant ? 1 : 0, .message = on_message,
               .plain_code = plain};
  mt_rules *r = mt_rules_load(&o);
  if (!r) fail_msg("%s", diag_text.s ? diag_text.s : "the pack does not compile");
  return r;
}

/* the opcodes in R's code, walked as the disassembler walks it */
static void opcodes_in(const mt_rules *r, bool *seen) {
  const program *p = &r->prog;
  for (uint32_t pc = 0; pc < p->ncode;) {
    uint8_t o = p->code[pc];
    assert_true(o < OP__COUNT);
    seen[o] = true;
    pc += 1 + 4u * (uint32_t)op_table[o].operands;
  }
}

static void same_games(const char *variant, uint64_t seed) {
  mt_rules *rf = pack(variant, false), *rp = pack(variant, true);
  assert_int_equal(rf->prog.ncode, rp->prog.ncode); /* nothing moved */
  bool fused[OP__COUNT] = {0}, plain[OP__COUNT] = {0};
  opcodes_in(rf, fused);
  opcodes_in(rp, plain);
  for (int o = OP_F_SET_NEXT; o < OP__COUNT; o++) { /* the superinstructions: the last opcodes, from F_SET_NEXT */
    if (!fused[o]) fail_msg("the fused pack has no %s", op_table[o].name);
    if (plain[o]) fail_msg("the plain pack has %s", op_table[o].name);
  }
  for (int game = 0; game < 3; game++) {
    char err[256];
    mt_game *a = mt_game_new(rf, NULL, 0, seed + (uint64_t)game, err, sizeof err);
    mt_game *b = mt_game_new(rp, NULL, 0, seed + (uint64_t)game, err, sizeof err);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(mt_start(a), mt_start(b));
    uint64_t rng = seed * 7 + (uint64_t)game;
    int d = 0;
    for (; mt_status(a) == MT_WAITING && d < 3000; d++) {
      if (mt_hash(a) != mt_hash(b)) fail_msg("game %d, decision %d: the positions part", game, d);
      assert_int_equal(mt_legal(a, NULL, 0), mt_legal(b, NULL, 0));
      mt_choice c;
      assert_int_equal(mt_sample(a, lcg, &rng, &c), 1);
      mt_explain why;
      assert_int_equal(mt_apply(a, &c, &why), mt_apply(b, &c, &why));
    }
    assert_true(d > 300);
    assert_int_equal(mt_status(a), mt_status(b));
    assert_int_equal(mt_hash(a), mt_hash(b));
    assert_true(a->v.steps < b->v.steps); /* fewer dispatches for the same game */
    mt_game_free(a);
    mt_game_free(b);
  }
  mt_rules_free(rf);
  mt_rules_free(rp);
}

static void advanced_games_are_the_same(void **state) {
  (void)state;
  same_games(NULL, 41);
}

static void wbc_games_are_the_same(void **state) {
  (void)state;
  same_games("wbc-2022", 43);
}

static int action_index(const program *p, const char *name) {
  for (int i = 0; i < p->nactions; i++)
    if (!strcmp(p->actions[i].name, name)) return i;
  fail_msg("no action %s", name);
  return -1;
}

/* Actions whose first guard is the same code are judged once per `can`
 * (answers.c): the Truthtrance questions share theirs, the Ghola's two uses
 * theirs, and the two groups differ; and wherever two actions are said to
 * share, their first guards answer alike for every faction in positions of
 * real games (the plain pack, which shares nothing, plays the same games:
 * same_games). */
static void alike_first_guards_are_judged_once(void **state) {
  (void)state;
  mt_rules *r = pack(NULL, false);
  const program *p = &r->prog;
  int ask = action_index(p, "ask_traitor");
  const char *questions[] = {"ask_any_traitor", "ask_spice", "ask_weapon", "ask_defense", "ask_karama", "ask_prediction"};
  for (size_t i = 0; i < sizeof questions / sizeof *questions; i++)
    assert_int_equal(p->actions[action_index(p, questions[i])].first_same, p->actions[ask].first_same);
  int leader = action_index(p, "ghola_revive_leader"), forces = action_index(p, "ghola_revive_forces");
  assert_int_equal(p->actions[forces].first_same, p->actions[leader].first_same);
  assert_true(p->actions[leader].first_same != p->actions[ask].first_same);
  int shared = 0;
  for (int i = 0; i < p->nactions; i++) shared += p->actions[i].first_same != i;
  assert_true(shared >= 7);
  mt_rules *plain = pack(NULL, true);
  for (int i = 0; i < plain->prog.nactions; i++) assert_int_equal(plain->prog.actions[i].first_same, i);
  mt_rules_free(plain);
  char err[256];
  mt_game *g = mt_game_new(r, NULL, 0, 4, err, sizeof err);
  assert_non_null(g);
  assert_int_equal(mt_start(g), MT_WAITING);
  uint64_t rng = 9;
  int compared = 0;
  for (int d = 0; d < 1500 && mt_status(g) == MT_WAITING; d++) {
    if (d % 50 == 0)
      for (int i = 0; i < p->nactions; i++) {
        int j = p->actions[i].first_same;
        if (j == i) continue;
        for (int f = 0; f < r->def->nfactions; f++) {
          int64_t args[MAX_PARAMS + 1] = {f}, x = -1, y = -2;
          vm_memo_reset(&g->v);
          bool ox = vm_eval(&g->v, p->actions[i].prefix_fn[0], args, p->actions[i].nparams + 1, &x, NULL);
          vm_memo_reset(&g->v);
          bool oy = vm_eval(&g->v, p->actions[j].prefix_fn[0], args, p->actions[j].nparams + 1, &y, NULL);
          assert_int_equal(ox, oy);
          if (ox) assert_int_equal(x, y);
          compared++;
        }
      }
    mt_choice c;
    assert_int_equal(mt_sample(g, lcg, &rng, &c), 1);
    assert_true(mt_apply(g, &c, NULL) >= 0);
  }
  assert_true(compared > 100);
  mt_game_free(g);
  mt_rules_free(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(advanced_games_are_the_same),
      cmocka_unit_test(wbc_games_are_the_same),
      cmocka_unit_test(alike_first_guards_are_judged_once),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  sb_free(&diag_text);
  return rc;
}
