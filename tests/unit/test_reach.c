/* test_reach.c -- verify's search (reach.c) on the standard pack's Basic game:
 * the query in words, a witness that is a console line from the start, a
 * proof that exhausts, a budget that is not a proof, the same answer twice,
 * merging of positions, and the start left untouched.  Runs from the
 * repository root. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "bots.h"
#include "game.h"
#include "reach.h"
#include "pack_fixture.h"

static int group_setup(void **state) {
  (void)state;
  return pack_setup(0);
}

/* Parses WORDS (space-separated) as a query: its return code. */
static int parse(const char *words, reach_query *q, char *err, size_t n) {
  char buf[1024], *argv[64];
  int argc = 0;
  snprintf(buf, sizeof buf, "%s", words);
  for (char *t = strtok(buf, " "); t && argc < 64; t = strtok(NULL, " ")) argv[argc++] = t;
  return reach_parse(R, argc, argv, q, err, n);
}

static void the_query_in_words(void **state) {
  (void)state;
  reach_query q;
  char err[256];
  assert_int_equal(parse("can fremen in winners by turn 2 --for fremen,bg --ints ends --jobs 2", &q, err, sizeof err), 0);
  assert_int_equal(q.mode, REACH_CAN);
  assert_string_equal(q.expr, "fremen in winners");
  assert_int_equal(q.bound, REACH_BY_TURN);
  assert_int_equal(q.limit, 2);
  assert_int_equal(__builtin_popcountll(q.deciders), 2); /* bg is the Bene Gesserit's alias */
  assert_true(q.ends);
  assert_int_equal(q.jobs, 2);
  assert_int_equal(parse("always turn < 3 within 12 decisions", &q, err, sizeof err), 0);
  assert_int_equal(q.mode, REACH_ALWAYS);
  assert_int_equal(q.bound, REACH_WITHIN);
  assert_int_equal(q.limit, 12);
  assert_string_equal(q.expr, "turn < 3");
  assert_int_equal(parse("can true this phase", &q, err, sizeof err), 0);
  assert_int_equal(q.bound, REACH_THIS_PHASE);
  /* refusals, each saying why */
  assert_int_equal(parse("maybe true", &q, err, sizeof err), -1);
  assert_non_null(strstr(err, "usage: verify can|always"));
  assert_int_equal(parse("can by turn 2", &q, err, sizeof err), -1);
  assert_non_null(strstr(err, "needs a condition"));
  assert_int_equal(parse("can true --for fremem", &q, err, sizeof err), -1);
  assert_non_null(strstr(err, "did you mean 'fremen'"));
  assert_int_equal(parse("can true --jobs 0", &q, err, sizeof err), -1);
  assert_int_equal(parse("can true --others search", &q, err, sizeof err), -1);
  assert_int_equal(parse("can true --frobnicate", &q, err, sizeof err), -1);
  assert_non_null(strstr(err, "unknown option"));
}

/* A 2-faction game at its first decision. */
static mt_game *start(void) {
  const char *fac[] = {"atreides", "harkonnen"};
  char err[128];
  mt_game *g = mt_game_new(R, fac, 2, 1, err, sizeof err);
  assert_non_null(g);
  return g;
}

static void a_witness_replays_from_the_start_lines(void **state) {
  (void)state;
  mt_game *g = start();
  uint64_t before = mt_hash(g);
  reach_query q;
  char err[256];
  assert_int_equal(parse("can hand_count(harkonnen) >= 2 within 3 decisions --for harkonnen", &q, err, sizeof err), 0);
  const char *lines[] = {"new factions=atreides,harkonnen seed=1"};
  reach_result r;
  strbuf e = {0};
  assert_int_equal(reach_run(g, &q, lines, 1, &r, &e), 0);
  assert_int_equal(r.verdict, REACH_FOUND);
  assert_true(r.nlines >= 4);
  assert_string_equal(r.lines[0], lines[0]);
  assert_string_equal(r.lines[1], "chance on");
  assert_string_equal(r.lines[r.nlines - 1], "check hand_count(harkonnen) >= 2");
  assert_true(!strncmp(r.lines[2], "chance atreides ", 16)); /* the seat draw and the traitor deal, then the start */
  assert_string_equal(r.lines[3], "run step");
  assert_true(r.positions >= 1 && r.steps >= r.positions);
  assert_int_equal(mt_hash(g), before); /* the start is not touched */
  assert_false(mt_chance_on(g));
  /* the same answer the second time */
  reach_result r2;
  assert_int_equal(reach_run(g, &q, lines, 1, &r2, &e), 0);
  assert_int_equal(r2.nlines, r.nlines);
  for (int i = 0; i < r.nlines; i++) assert_string_equal(r.lines[i], r2.lines[i]);
  assert_int_equal(r2.positions, r.positions);
  reach_result_free(&r);
  reach_result_free(&r2);
  sb_free(&e);
  mt_game_free(g);
}

static void a_proof_exhausts_and_a_budget_does_not(void **state) {
  (void)state;
  mt_game *g = start();
  assert_int_equal(mt_start(g), MT_WAITING); /* the setup drawn by the generator: only decisions branch */
  reach_query q;
  char err[256];
  strbuf e = {0};
  reach_result r;
  /* nobody can hold more cards than their limit within 6 decisions of the start (the decks as
   * they lie, integer answers at their ends: the deals of 1.12 offer every amount of spice) */
  assert_int_equal(parse("always all(f in factions: hand_count(f) <= max_hand(f)) within 6 decisions --keep-order --ints ends", &q,
                         err, sizeof err), 0);
  assert_int_equal(reach_run(g, &q, NULL, 0, &r, &e), 0);
  assert_int_equal(r.verdict, REACH_EXHAUSTED);
  assert_int_equal(r.nlines, 0);
  uint64_t all = r.positions;
  assert_true(all > 10);
  assert_true(r.steps > r.positions); /* answers that lead to one position are explored once */
  reach_result_free(&r);
  /* the same with a budget below it: stopped, not a proof */
  q.max_positions = all / 2;
  assert_int_equal(reach_run(g, &q, NULL, 0, &r, &e), 0);
  assert_int_equal(r.verdict, REACH_BUDGET);
  assert_non_null(strstr(r.stop, "positions ran out"));
  reach_result_free(&r);
  /* something false everywhere within the bound: exhausted, no witness */
  assert_int_equal(parse("can turn > 5 within 4 decisions --keep-order --ints ends", &q, err, sizeof err), 0);
  assert_int_equal(reach_run(g, &q, NULL, 0, &r, &e), 0);
  assert_int_equal(r.verdict, REACH_EXHAUSTED);
  reach_result_free(&r);
  /* a counterexample to something that fails at once: found at the start itself */
  assert_int_equal(parse("always turn > 5 within 4 decisions --keep-order", &q, err, sizeof err), 0);
  assert_int_equal(reach_run(g, &q, NULL, 0, &r, &e), 0);
  assert_int_equal(r.verdict, REACH_FOUND);
  assert_int_equal(r.depth, 0);
  assert_string_equal(r.lines[r.nlines - 1], "check not (turn > 5)");
  reach_result_free(&r);
  sb_free(&e);
  mt_game_free(g);
}

static void a_query_that_does_not_compile(void **state) {
  (void)state;
  mt_game *g = start();
  reach_query q;
  char err[256];
  strbuf e = {0};
  reach_result r;
  assert_int_equal(parse("can hand_count(harkonnen) within 3 decisions", &q, err, sizeof err), 0);
  assert_int_equal(reach_run(g, &q, NULL, 0, &r, &e), -1);
  assert_non_null(strstr(e.s, "must be true or false"));
  sb_free(&e);
  assert_int_equal(parse("can hand_cont(harkonnen) > 1 within 3 decisions", &q, err, sizeof err), 0);
  assert_int_equal(reach_run(g, &q, NULL, 0, &r, &e), -1);
  assert_non_null(strstr(e.s, "hand_cont"));
  sb_free(&e);
  mt_game_free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(the_query_in_words),
      cmocka_unit_test(a_witness_replays_from_the_start_lines),
      cmocka_unit_test(a_proof_exhausts_and_a_budget_does_not),
      cmocka_unit_test(a_query_that_does_not_compile),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
