/* test_chance.c -- chance as choice (mentat.h, chance.c; board.c's unknown
 * part of a pile): an undecided part stays in card order and keeps its count
 * through forget, fix and card moves; positions that differ only in an
 * undecided order hash the same; the retry loop a caller runs (the console's
 * `chance`) reaches the same position for the same outcomes and refuses a
 * wrong one; a position with undecided cards survives save and load.
 * Runs from the repository root (the standard pack). */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "scratch.h"
#include "pack_fixture.h"

static int group_setup(void **state) {
  (void)state;
  return pack_setup(0);
}

static const char *const two[] = {"atreides", "fremen"};

/* A new game of all the factions (TWO: of Atreides and Fremen). */
static mt_game *game_of(uint64_t seed, bool only_two) {
  char err[128];
  mt_game *g = mt_game_new(R, only_two ? two : NULL, only_two ? 2 : 0, seed, err, sizeof err);
  assert_non_null(g);
  return g;
}

static mt_game *new_game(uint64_t seed) {
  char err[128];
  mt_game *g = mt_game_new(R, NULL, 0, seed, err, sizeof err);
  assert_non_null(g);
  return g;
}

static int slot_of(const mt_game *g, const char *pile) {
  int p = board_pile_index(g->r->def, pile);
  assert_true(p >= 0);
  return board_pile_slot(g->L, p, -1);
}

/* Every card of SLOT below position U lies there in card-index order. */
static void assert_unknown_sorted(const mt_game *g, int slot, int u) {
  int last = -1;
  for (int pos = 0; pos < u; pos++) {
    int c = board_pile_card(g->L, g->v.st, slot, pos);
    assert_true(c > last);
    last = c;
  }
}

/* ---- the board's unknown part ---------------------------------------------------------- */

static void forget_and_fix_keep_card_order(void **state) {
  (void)state;
  mt_game *g = new_game(1);
  int s = slot_of(g, "treachery_deck"), n = board_pile_count(g->L, g->v.st, s);
  assert_true(n > 10);
  board_card_move(g->L, g->v.st, board_pile_card(g->L, g->v.st, s, 0), s, n); /* out of card order */
  assert_int_equal(board_pile_unknown(g->L, g->v.st, s), 0);
  board_pile_forget(g->L, g->v.st, s);
  assert_int_equal(board_pile_unknown(g->L, g->v.st, s), n);
  assert_int_equal(board_pile_count(g->L, g->v.st, s), n);
  assert_unknown_sorted(g, s, n);
  int c = board_pile_card(g->L, g->v.st, s, 3); /* decide the top: card C comes up */
  assert_int_equal(board_pile_fix(g->L, g->v.st, s, c), BOARD_OK);
  assert_int_equal(board_pile_unknown(g->L, g->v.st, s), n - 1);
  assert_int_equal(board_pile_top(g->L, g->v.st, s), c);
  assert_int_equal(board_pile_count(g->L, g->v.st, s), n);
  assert_unknown_sorted(g, s, n - 1);
  assert_int_equal(board_pile_fix(g->L, g->v.st, s, c), BOARD_ERANGE); /* decided already */
  int hand = board_pile_slot(g->L, board_pile_index(g->r->def, "hand"), 0);
  int elsewhere = board_pile_card(g->L, g->v.st, s, 0);
  board_card_move(g->L, g->v.st, elsewhere, hand, -1);
  assert_int_equal(board_pile_fix(g->L, g->v.st, s, elsewhere), BOARD_ERANGE); /* not in the pile */
  mt_game_free(g);
}

static void card_moves_keep_the_unknown_part(void **state) {
  (void)state;
  mt_game *g = new_game(1);
  int s = slot_of(g, "treachery_deck"), n = board_pile_count(g->L, g->v.st, s);
  int hand = board_pile_slot(g->L, board_pile_index(g->r->def, "hand"), 0);
  board_pile_forget(g->L, g->v.st, s);
  int c = board_pile_card(g->L, g->v.st, s, 5); /* out of the undecided part */
  board_card_move(g->L, g->v.st, c, hand, -1);
  assert_int_equal(board_pile_unknown(g->L, g->v.st, s), n - 1);
  assert_int_equal(board_pile_count(g->L, g->v.st, s), n - 1);
  assert_unknown_sorted(g, s, n - 1);
  board_card_move(g->L, g->v.st, c, s, -1); /* onto the top: decided */
  assert_int_equal(board_pile_unknown(g->L, g->v.st, s), n - 1);
  assert_int_equal(board_pile_top(g->L, g->v.st, s), c);
  board_card_move(g->L, g->v.st, c, s, 0); /* slipped in at the bottom: it joins the undecided part */
  assert_int_equal(board_pile_unknown(g->L, g->v.st, s), n);
  assert_int_equal(board_pile_count(g->L, g->v.st, s), n);
  assert_unknown_sorted(g, s, n);
  assert_int_equal(board_pile_settle(g->L, g->v.st, s), n); /* chance off: the generator decides */
  assert_int_equal(board_pile_unknown(g->L, g->v.st, s), 0);
  assert_int_equal(board_pile_count(g->L, g->v.st, s), n);
  mt_game_free(g);
}

static void hash_ignores_the_undecided_order_not_its_size(void **state) {
  (void)state;
  mt_game *a = new_game(1), *b = new_game(1);
  int s = slot_of(a, "treachery_deck"), n = board_pile_count(a->L, a->v.st, s);
  board_card_move(b->L, b->v.st, board_pile_card(b->L, b->v.st, s, 0), s, n); /* B's deck in another order */
  board_card_move(b->L, b->v.st, board_pile_card(b->L, b->v.st, s, 4), s, 1);
  assert_true(mt_hash(a) != mt_hash(b));
  board_pile_forget(a->L, a->v.st, s);
  board_pile_forget(b->L, b->v.st, s);
  assert_true(mt_hash(a) == mt_hash(b));
  board_pile_set_unknown(b->L, b->v.st, s, n - 1); /* the same cards in the same places, one fewer undecided */
  assert_int_equal(board_pile_card(a->L, a->v.st, s, n - 1), board_pile_card(b->L, b->v.st, s, n - 1));
  assert_true(mt_hash(a) != mt_hash(b));
  mt_game_free(a);
  mt_game_free(b);
}

/* ---- the retry loop -------------------------------------------------------------------- */

/* Starts a copy of G, giving each random event the outcome PICK chooses among the possible
 * ones (PLAN, *NP: the outcomes given, kept for a replay); the copy at its first decision. */
static mt_game *start_with(const mt_game *g, int pick, int64_t *plan, int *np) {
  for (;;) {
    mt_game *x = mt_clone(g);
    mt_chance_plan(x, plan, *np);
    mt_start(x);
    int64_t opts[256];
    int n, bad;
    char what[256];
    int kind = mt_chance_need(x, opts, 256, &n, what, sizeof what, &bad);
    if (kind == MT_CHANCE_NONE) return x;
    assert_false(bad);
    assert_true(n > 1 && n <= 256); /* a single outcome is never asked */
    assert_true(*np < VM_CHANCE_PLAN);
    plan[(*np)++] = opts[pick % n];
    mt_game_free(x);
  }
}

static void retry_loop_reproduces_the_position(void **state) {
  (void)state;
  mt_game *g = new_game(1);
  mt_chance_mode(g, 1, 1);
  int64_t plan[VM_CHANCE_PLAN], again[VM_CHANCE_PLAN];
  int np = 0, na = 0;
  mt_game *first = start_with(g, 1, plan, &np);
  assert_int_equal(mt_status(first), MT_WAITING);
  assert_true(np >= 5); /* the seats, at least */
  assert_int_equal(mt_chance_taken(first), np);
  memcpy(again, plan, sizeof plan);
  na = np;
  mt_game *second = start_with(g, 1, again, &na); /* the whole plan at once: no question */
  assert_int_equal(na, np);
  assert_true(mt_hash(first) == mt_hash(second));
  int64_t other[VM_CHANCE_PLAN];
  int no = 0;
  mt_game *third = start_with(g, 2, other, &no); /* other outcomes: another position */
  assert_true(mt_hash(first) != mt_hash(third));
  assert_true(mt_chance_on(first) && mt_chance_on(third));
  mt_game_free(first);
  mt_game_free(second);
  mt_game_free(third);
  mt_game_free(g);
}

static void a_wrong_outcome_is_bad(void **state) {
  (void)state;
  mt_game *g = new_game(1);
  mt_chance_mode(g, 1, 1);
  int64_t plan[1] = {63}; /* the first seat draw: no faction is member 63 */
  mt_chance_plan(g, plan, 1);
  mt_start(g);
  int64_t opts[64];
  int n, bad;
  assert_int_equal(mt_chance_need(g, opts, 64, &n, NULL, 0, &bad), MT_CHANCE_MEMBER);
  assert_true(bad);
  assert_int_equal(n, 6);
  assert_int_equal(mt_chance_taken(g), 0);
  char err[512];
  int64_t x;
  assert_int_equal(mt_chance_parse(g, "Fremen", &x, err, sizeof err), 0); /* in any case */
  assert_int_equal(mt_chance_parse(g, "fremenn", &x, err, sizeof err), -1);
  assert_non_null(strstr(err, "did you mean 'fremen'?"));
  mt_game_free(g);
}

/* A card that is not in the undecided part of the pile asked about is a bad outcome too
 * (two factions: the traitor cards are drawn before the first decision). */
static void a_card_from_elsewhere_is_bad(void **state) {
  (void)state;
  mt_game *g = game_of(1, true);
  mt_chance_mode(g, 1, 1);
  int64_t plan[VM_CHANCE_PLAN];
  int np = 0;
  mt_game *x = start_with(g, 0, plan, &np);
  mt_game_free(x);
  int seats = 0;
  for (;;) { /* the plan up to the first card drawn: the seats */
    mt_game *y = mt_clone(g);
    mt_chance_plan(y, plan, seats);
    mt_start(y);
    int n;
    int kind = mt_chance_need(y, NULL, 0, &n, NULL, 0, NULL);
    mt_game_free(y);
    if (kind == MT_CHANCE_CARD) break;
    seats++;
    assert_true(seats < np);
  }
  int hand = board_pile_slot(g->L, board_pile_index(g->r->def, "hand"), 0);
  int deck = slot_of(g, "treachery_deck");
  int c = board_pile_card(g->L, g->v.st, deck, 0);
  board_card_move(g->L, g->v.st, c, hand, -1); /* a treachery card in a hand: never a traitor card */
  plan[seats] = c;
  mt_chance_plan(g, plan, seats + 1);
  mt_start(g);
  int n, bad;
  assert_int_equal(mt_chance_need(g, NULL, 0, &n, NULL, 0, &bad), MT_CHANCE_CARD);
  assert_true(bad);
  assert_int_equal(mt_chance_taken(g), seats);
  mt_game_free(g);
}

/* ---- saved positions ------------------------------------------------------------------- */

static void undecided_cards_are_saved_and_loaded(void **state) {
  (void)state;
  mt_game *g = new_game(3);
  mt_chance_mode(g, 1, 1);
  int s = slot_of(g, "treachery_deck"), n = board_pile_count(g->L, g->v.st, s);
  board_pile_fix(g->L, g->v.st, s, board_pile_card(g->L, g->v.st, s, 2));
  char *text = NULL;
  mt_save_position(g, &text);
  char needle[64];
  snprintf(needle, sizeof needle, "treachery_deck: { undecided: %d, cards: [", n - 1);
  assert_non_null(strstr(text, needle));
  mt_game *h = game_load_text(R, R->d, "t.yaml", text, strlen(text));
  assert_non_null(h);
  assert_true(mt_chance_on(h));
  assert_int_equal(mt_chance_undecided(h, s), n - 1);
  assert_true(mt_hash(g) == mt_hash(h));
  mt_game_free(h);
  free(text);
  mt_chance_mode(g, 0, 0); /* nothing undecided any more (the generator decides): a plain save */
  for (int k = 0; k < g->L->npile_slots; k++) board_pile_settle(g->L, g->v.st, k);
  mt_save_position(g, &text);
  assert_null(strstr(text, "undecided"));
  h = game_load_text(R, R->d, "t.yaml", text, strlen(text));
  assert_non_null(h);
  assert_false(mt_chance_on(h));
  mt_game_free(h);
  free(text);
  mt_game_free(g);
}

static void a_bad_undecided_count_is_refused_where_written(void **state) {
  (void)state;
  diag_text.n = 0;
  const char *t = "mentat_state: 1\nfactions: [atreides, fremen]\npiles:\n  treachery_deck: { undecided: 40 }\n";
  assert_null(game_load_text(R, R->d, "u.yaml", t, strlen(t)));
  assert_non_null(strstr(diag_text.s, "u.yaml:4:32: error: undecided: 40 is more than the 33 cards of the pile"));
  diag_text.n = 0;
  t = "mentat_state: 1\nfactions: [atreides, fremen]\npiles:\n  spice_deck: { cards: [], undecided: -2 }\n";
  assert_null(game_load_text(R, R->d, "u.yaml", t, strlen(t)));
  assert_non_null(strstr(diag_text.s, "u.yaml:4:39: error: undecided out of range: -2"));
  diag_text.n = 0;
  t = "mentat_state: 1\nfactions: [atreides, fremen]\npiles:\n  spice_deck: { undecided: 21 }\n";
  mt_game *g = game_load_text(R, R->d, "u.yaml", t, strlen(t)); /* the cards not listed fill the deck */
  assert_non_null(g);
  assert_int_equal(mt_chance_undecided(g, slot_of(g, "spice_deck")), 21);
  assert_true(mt_chance_on(g));
  mt_game_free(g);
}

/* A value the cache keeps (vm.h) that reads an undecided card: the card is
 * fixed as it is read, so the entry is keyed by the state after the reading;
 * from the state before it, each planned outcome gives its own answer (a
 * cache keyed by the state before would answer the first outcome for all). */
static void a_cached_value_reads_the_planned_card(void **state) {
  (void)state;
  const char *path = scratch("test_chance_peek.rules");
  FILE *fp = fopen(path, "w");
  assert_non_null(fp);
  fputs("rule 90.01 \"Peek: the next storm card's sectors\" basic {\n"
        "  value next_storm(): int = attr(top(pile(storm_deck, none)), value)\n}\n",
        fp);
  fclose(fp);
  const char *files[] = {path};
  mt_load o = {.components = ".", .files = files, .nfiles = 1, .against_pack = 1, .message = on_message};
  mt_rules *r = mt_rules_load(&o);
  if (!r) fail_msg("%s", diag_text.s ? diag_text.s : "the house rule does not compile");
  int fn = -1;
  for (int i = 0; i < r->prog.nvalues; i++)
    if (!strcmp(r->prog.values[i].name, "next_storm")) fn = r->prog.values[i].dispatch_fn;
  assert_true(fn >= 0);
  char err[128];
  mt_game *g = mt_game_new(r, NULL, 0, 1, err, sizeof err);
  assert_non_null(g);
  assert_non_null(g->v.vcache);
  assert_true(g->v.vcache->nreg[fn] >= 0); /* it is cached: it reads the cards alone */
  mt_chance_mode(g, 1, 1);
  int slot = board_pile_slot(g->L, board_pile_index(r->def, "storm_deck"), -1);
  board_pile_forget(g->L, g->v.st, slot);
  assert_true(board_pile_unknown(g->L, g->v.st, slot) >= 6);
  mt_game *before = mt_clone(g);
  const char *cards[] = {"storm_2", "storm_5", "storm_2"};
  const int64_t want[] = {2, 5, 2};
  for (int k = 0; k < 3; k++) {
    mt_copy_state(g, before);
    int64_t plan[1] = {board_card_index(r->def, cards[k])}, x = -1;
    mt_chance_plan(g, plan, 1);
    vm_memo_reset(&g->v);
    assert_true(vm_eval_cached(&g->v, fn, NULL, 0, 0, &x));
    assert_int_equal(x, want[k]);
    assert_int_equal(mt_chance_taken(g), 1);
    uint64_t hits = g->v.vcache->hits;
    mt_chance_plan(g, NULL, 0); /* read again where the card lies fixed: the cache answers */
    vm_memo_reset(&g->v);
    assert_true(vm_eval_cached(&g->v, fn, NULL, 0, 0, &x));
    assert_int_equal(x, want[k]);
    assert_int_equal(g->v.vcache->hits, hits + 1);
  }
  mt_game_free(before);
  mt_game_free(g);
  mt_rules_free(r);
  remove(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(forget_and_fix_keep_card_order),
      cmocka_unit_test(card_moves_keep_the_unknown_part),
      cmocka_unit_test(hash_ignores_the_undecided_order_not_its_size),
      cmocka_unit_test(retry_loop_reproduces_the_position),
      cmocka_unit_test(a_wrong_outcome_is_bad),
      cmocka_unit_test(a_card_from_elsewhere_is_bad),
      cmocka_unit_test(undecided_cards_are_saved_and_loaded),
      cmocka_unit_test(a_bad_undecided_count_is_refused_where_written),
      cmocka_unit_test(a_cached_value_reads_the_planned_card),
  };
  return cmocka_run_group_tests_name("chance", tests, group_setup, group_teardown);
}
