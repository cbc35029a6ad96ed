/* test_state.c -- the flat state block: game creation from the faction
 * sheets, mutation helpers and their refusals, clone/hash, the random
 * generator, and save/load round trips.  Runs from the repository root. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "board.h"
#include "data.h"
#include "diag.h"

static board_def *DEF;
static const char *const SIX[] = {"atreides", "bene_gesserit", "emperor", "fremen", "spacing_guild", "harkonnen"};

typedef struct fx {
  board_layout *L;
  unsigned char *st;
} fx;

static int group_setup(void **state) {
  (void)state;
  diag *d = diag_new(diag_sink_file, stderr);
  DEF = data_load_dir(".", d);
  diag_free(d);
  return DEF ? 0 : -1;
}

static int group_teardown(void **state) {
  (void)state;
  board_def_free(DEF);
  return 0;
}

static board_layout *layout_for(const char *const *ids, int n, size_t ext) {
  int f[BOARD_MAX_FACTIONS];
  for (int i = 0; i < n; i++) f[i] = board_faction_index(DEF, ids[i]);
  board_var_decl extra[] = {{.name = "worms_seen", .scope = BS_GLOBAL, .len = 1, .visibility = VIS_PUBLIC},
                            {.name = "karama_used", .scope = BS_FACTION, .len = 3, .visibility = VIS_OWNER}};
  return board_layout_new(DEF, f, n, extra, 2, ext, NULL);
}

static int setup6(void **state) {
  fx *f = calloc(1, sizeof *f);
  f->L = layout_for(SIX, 6, 16);
  f->st = calloc(1, f->L->size);
  board_state_init(f->L, f->st, 42);
  *state = f;
  return 0;
}

static int teardown6(void **state) {
  fx *f = *state;
  board_layout_free(f->L);
  free(f->st);
  free(f);
  return 0;
}

#define K(name) board_kind_index(DEF, name)
#define P(name) board_pool_index(DEF, name)
#define V(name) board_var_index(DEF, name)
#define SEC(ref) board_section_parse(DEF, ref)

static int pile(const board_layout *L, const char *name, int owner) {
  return board_pile_slot(L, board_pile_index(DEF, name), owner);
}

/* A rule variable keeps the visibility it was declared with (a `secret var`: its owner only). */
static void rule_variable_visibility(void **state) {
  fx *f = *state;
  assert_int_equal(f->L->vars[DEF->nvars].visibility, VIS_PUBLIC);
  assert_int_equal(f->L->vars[DEF->nvars + 1].visibility, VIS_OWNER);
  assert_int_equal(f->L->vars[V("spice")].visibility, VIS_OWNER);
}

static void start_position(void **state) {
  fx *f = *state;
  board_layout *L = f->L;
  unsigned char *st = f->st;
  /* game faction indices follow the creation order */
  int atr = 0, bg = 1, emp = 2, fre = 3, gld = 4, hk = 5;
  assert_int_equal(board_tokens(L, st, SEC("arrakeen"), atr, K("normal")), 10);
  assert_int_equal(board_tokens(L, st, board_loc_pool(L, P("reserves"), atr), atr, K("normal")), 10);
  assert_int_equal(board_tokens(L, st, SEC("polar_sink"), bg, K("normal")), 1);
  assert_int_equal(board_tokens(L, st, board_loc_pool(L, P("reserves"), bg), bg, K("normal")), 19);
  assert_int_equal(board_tokens(L, st, board_loc_pool(L, P("reserves"), emp), emp, K("normal")), 15);
  assert_int_equal(board_tokens(L, st, board_loc_pool(L, P("reserves"), emp), emp, K("sardaukar")), 5);
  assert_int_equal(board_tokens(L, st, board_loc_pool(L, P("reserves"), fre), fre, K("normal")), 17);
  assert_int_equal(board_tokens(L, st, board_loc_pool(L, P("reserves"), fre), fre, K("fedaykin")), 3);
  assert_int_equal(board_tokens(L, st, SEC("tueks_sietch"), gld, K("normal")), 5);
  assert_int_equal(board_tokens(L, st, SEC("carthag"), hk, K("normal")), 10);
  int spice = V("spice");
  int want[] = {10, 5, 10, 3, 5, 10};
  for (int i = 0; i < 6; i++) assert_int_equal(board_var_get(L, st, spice, i, 0), want[i]);
  /* cards: every deck in its starting pile, hands empty */
  assert_int_equal(board_pile_count(L, st, pile(L, "treachery_deck", -1)), 33);
  assert_int_equal(board_pile_count(L, st, pile(L, "spice_deck", -1)), 21);
  assert_int_equal(board_pile_count(L, st, pile(L, "storm_deck", -1)), 6);
  assert_int_equal(board_pile_count(L, st, pile(L, "traitor_deck", -1)), 30);
  assert_int_equal(board_pile_count(L, st, pile(L, "hand", atr)), 0);
  /* storm marker, ally, phase */
  assert_int_equal(board_var_get(L, st, V("storm"), 0, 0), 0);
  assert_int_equal(board_var_get(L, st, V("ally"), fre, 0), -1);
  assert_int_equal(board_storm_sectors(L, st), 1u);
  assert_true(board_section_in_storm(L, st, SEC("cielago_north@0")));
  assert_false(board_section_in_storm(L, st, SEC("cielago_north@1")));
  assert_false(board_section_in_storm(L, st, SEC("polar_sink")));
  /* occupancy queries */
  int ark = board_area_index(DEF, "arrakeen");
  assert_int_equal(board_factions_in_area(L, st, ark, 0), 1u << atr);
  assert_true(board_controls(L, st, atr, ark, 0));
  assert_int_equal(board_tokens_in_area(L, st, ark, atr, 0), 10);
  assert_int_equal(board_occupied(L, st, hk, 0), 1ull << board_area_index(DEF, "carthag"));
}

static void a_game_without_a_faction(void **state) {
  (void)state;
  const char *two[] = {"harkonnen", "fremen"};
  board_layout *L = layout_for(two, 2, 0);
  unsigned char *st = calloc(1, L->size);
  board_state_init(L, st, 1);
  /* only the two factions' leaders are traitor cards in this game */
  assert_int_equal(board_pile_count(L, st, pile(L, "traitor_deck", -1)), 10);
  assert_int_equal(board_card_pile(L, st, board_card_index(DEF, "thufir_hawat"), NULL), -1);
  assert_int_equal(board_tokens(L, st, SEC("carthag"), 0, K("normal")), 10);
  /* Harkonnen has no fedaykin */
  assert_int_equal(board_move_tokens(L, st, 0, K("fedaykin"), SEC("carthag"), SEC("tsimpo@10"), 1), BOARD_EKIND);
  board_layout_free(L);
  free(st);
}

static void mutations_validate(void **state) {
  fx *f = *state;
  board_layout *L = f->L;
  unsigned char *st = f->st;
  uint64_t h = board_state_hash(L, st);
  int res = board_loc_pool(L, P("reserves"), 0);
  /* not enough tokens: refused, state untouched */
  assert_int_equal(board_move_tokens(L, st, 0, K("normal"), res, SEC("the_great_flat"), 11), BOARD_ESHORT);
  /* Atreides tokens cannot go into the Fremen's reserves */
  assert_int_equal(board_move_tokens(L, st, 0, K("normal"), res, board_loc_pool(L, P("reserves"), 3), 1), BOARD_EKIND);
  assert_int_equal(board_move_tokens(L, st, 0, K("sardaukar"), res, SEC("the_great_flat"), 1), BOARD_EKIND);
  assert_int_equal(board_move_tokens(L, st, 0, K("normal"), res, 9999, 1), BOARD_ERANGE);
  /* counters never go negative */
  assert_int_equal(board_var_add(L, st, V("spice"), 0, -11), BOARD_ENEG);
  assert_int_equal(board_var_set(L, st, V("ally"), 0, 0, 7), BOARD_ERANGE);
  assert_int_equal(board_var_set(L, st, V("shield_wall_destroyed"), 0, 0, 2), BOARD_ERANGE);
  assert_int_equal(board_state_hash(L, st), h);
  /* legal moves */
  assert_int_equal(board_move_tokens(L, st, 0, K("normal"), res, SEC("the_great_flat"), 4), BOARD_OK);
  assert_int_equal(board_tokens(L, st, res, 0, K("normal")), 6);
  assert_int_equal(board_var_add(L, st, V("spice"), 0, -10), BOARD_OK);
  assert_int_equal(board_var_get(L, st, V("spice"), 0, 0), 0);
  assert_int_equal(board_var_add(L, st, V("bank"), 0, -10), BOARD_OK); /* a marker may go negative */
  assert_int_not_equal(board_state_hash(L, st), h);
}

static void cards_and_piles(void **state) {
  fx *f = *state;
  board_layout *L = f->L;
  unsigned char *st = f->st;
  int deck = pile(L, "treachery_deck", -1), hand = pile(L, "hand", 2);
  int top = board_pile_top(L, st, deck);
  assert_int_equal(top, board_pile_card(L, st, deck, 32));
  assert_int_equal(board_card_move(L, st, top, hand, -1), BOARD_OK);
  assert_int_equal(board_pile_count(L, st, deck), 32);
  assert_int_equal(board_pile_count(L, st, hand), 1);
  int pos;
  assert_int_equal(board_card_pile(L, st, top, &pos), hand);
  assert_int_equal(pos, 0);
  /* shuffle is a permutation: same multiset, dense positions */
  board_pile_shuffle(L, st, deck);
  int seen[BOARD_MAX_CARDS] = {0};
  for (int p = 0; p < 32; p++) {
    int c = board_pile_card(L, st, deck, p);
    assert_true(c >= 0);
    assert_int_equal(seen[c]++, 0);
  }
  /* every card is in exactly one pile */
  int total = 0;
  for (int s = 0; s < L->npile_slots; s++) total += board_pile_count(L, st, s);
  assert_int_equal(total, DEF->ncards);
  /* the invariant check of the piles: sound now, and each corruption found */
  int bad = -2;
  assert_int_equal(board_check_piles(L, st, &bad), 0);
  int16_t *pos16 = (int16_t *)(uintptr_t)(st + L->off_card_pos);
  int other = board_pile_card(L, st, deck, 5);
  int16_t keep = pos16[other];
  pos16[other] = (int16_t)(keep == 0 ? 1 : 0); /* two cards at one position */
  assert_int_equal(board_check_piles(L, st, &bad), 2);
  pos16[other] = 40; /* beyond the deck's 32 cards */
  assert_int_equal(board_check_piles(L, st, &bad), 1);
  assert_int_equal(bad, other);
  pos16[other] = keep;
  assert_int_equal(board_check_piles(L, st, &bad), 0);
  /* the token count of the invariants, and a negative stack found */
  long totals[BOARD_MAX_FACTIONS * BOARD_MAX_KINDS];
  int neg_loc = -1, neg_slot = -1;
  assert_true(board_slot_totals(L, st, totals, &neg_loc, &neg_slot));
  assert_int_equal(totals[L->slot[0][0]], DEF->factions[L->faction[0]].forces[0]);
  int res = board_loc_pool(L, P("reserves"), 0);
  int16_t *stk = (int16_t *)(uintptr_t)(st + L->off_stacks) + (size_t)res * (size_t)L->nslots + (size_t)L->slot[0][0];
  int16_t was = *stk;
  *stk = -1;
  assert_false(board_slot_totals(L, st, totals, &neg_loc, &neg_slot));
  assert_int_equal(neg_loc, res);
  assert_int_equal(neg_slot, L->slot[0][0]);
  *stk = was;
  /* the same totals kept zone by zone (board_tally): after random moves, a stack set, and a raw
   * write stamped with board_touch, the tally agrees with a full count; an unstamped raw write is
   * not seen (the zones' generations are its only news) */
  board_tally t = {0};
  uint64_t x = 99;
  for (int i = 0; i < 300; i++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    int owner = (int)(x >> 33) % L->nf, from = (int)(x >> 20) % L->nlocs, to = (int)(x >> 40) % L->nlocs;
    int kind = L->slot[owner][0] >= 0 ? 0 : 1, n = board_tokens(L, st, from, owner, kind);
    if (n > 0) board_move_tokens(L, st, owner, kind, from, to, 1 + (int)(x % (uint64_t)n));
    if (i % 50 == 7) board_set_tokens(L, st, to, owner, kind, board_tokens(L, st, to, owner, kind) + 1);
    assert_true(board_tally_update(&t, L, st));
    assert_true(board_slot_totals(L, st, totals, &neg_loc, &neg_slot));
    for (int k = 0; k < L->nslots; k++) assert_int_equal(t.totals[k], totals[k]);
  }
  *stk = -1;
  assert_true(board_tally_update(&t, L, st)); /* behind the helpers' backs: unseen */
  board_touch(L, st, BOARD_GEN_TOKENS);
  assert_false(board_tally_update(&t, L, st)); /* stamped: seen */
  *stk = was;
  board_touch(L, st, BOARD_GEN_TOKENS);
  assert_true(board_tally_update(&t, L, st));
  assert_true(board_slot_totals(L, st, totals, &neg_loc, &neg_slot));
  for (int k = 0; k < L->nslots; k++) assert_int_equal(t.totals[k], totals[k]);
  board_tally_free(&t);
}

static void rng_behaviour(void **state) {
  fx *f = *state;
  int counts[6] = {0};
  for (int i = 0; i < 60000; i++) counts[board_rng_below(f->L, f->st, 6)]++;
  for (int i = 0; i < 6; i++) assert_true(counts[i] > 9000 && counts[i] < 11000);
  /* same seed, same sequence */
  unsigned char *a = calloc(1, f->L->size), *b = calloc(1, f->L->size);
  board_state_init(f->L, a, 7);
  board_state_init(f->L, b, 7);
  for (int i = 0; i < 100; i++) assert_true(board_rng_next(f->L, a) == board_rng_next(f->L, b));
  board_state_init(f->L, b, 8);
  assert_true(board_rng_next(f->L, a) != board_rng_next(f->L, b));
  free(a);
  free(b);
}

static void clone_and_hash(void **state) {
  fx *f = *state;
  board_layout *L = f->L;
  unsigned char *copy = malloc(L->size);
  board_state_clone(L, copy, f->st);
  assert_true(board_state_hash(L, copy) == board_state_hash(L, f->st));
  assert_int_equal(board_move_tokens(L, copy, 0, K("normal"), SEC("arrakeen"), SEC("imperial_basin@9"), 3), BOARD_OK);
  board_leader_state ls = {(int8_t)board_leader_status_index(DEF, "captured"), 5, (int8_t)board_area_index(DEF, "arrakeen"), 1};
  assert_int_equal(board_leader_set(L, copy, board_leader_index(DEF, "duncan_idaho"), ls), BOARD_OK);
  /* the original is unchanged */
  assert_int_equal(board_tokens(L, f->st, SEC("arrakeen"), 0, K("normal")), 10);
  assert_int_equal(board_leader_get(L, f->st, board_leader_index(DEF, "duncan_idaho")).status, 0);
  assert_true(board_state_hash(L, copy) != board_state_hash(L, f->st));
  /* equal states hash equal */
  unsigned char *again = calloc(1, L->size);
  board_state_init(L, again, 42);
  assert_true(board_state_hash(L, again) == board_state_hash(L, f->st));
  board_state_init(L, again, 43);
  assert_true(board_state_hash(L, again) != board_state_hash(L, f->st));
  free(copy);
  free(again);
}

/* The size of a 6-faction state and the cost of a clone (printed; the
 * assertion is loose so sanitizer builds pass). */
static void clone_speed(void **state) {
  fx *f = *state;
  board_layout *L = f->L;
  unsigned char *buf = malloc(L->size);
  enum { N = 1000000 };
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int i = 0; i < N; i++) {
    board_state_clone(L, buf, f->st);
    __asm__ volatile("" : : "r"(buf) : "memory");
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double ns = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / N;
  uint64_t h = 0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int i = 0; i < N / 10; i++) h ^= board_state_hash(L, f->st);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double hns = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / (N / 10);
  printf("state size (6 factions, 16 VM words): %zu bytes; clone %.1f ns; hash %.1f ns (%llx)\n", L->size, ns, hns,
         (unsigned long long)(h & 0xf));
  assert_true(L->size < 8192);
  assert_true(ns < 20000.0);
  free(buf);
}

/* Applies a spread of changes so a save touches every region. */
static void scramble(board_layout *L, unsigned char *st) {
  board_pile_shuffle(L, st, pile(L, "treachery_deck", -1));
  board_pile_shuffle(L, st, pile(L, "traitor_deck", -1));
  for (int f = 0; f < L->nf; f++) {
    board_card_move(L, st, board_pile_top(L, st, pile(L, "treachery_deck", -1)), pile(L, "hand", f), -1);
    for (int k = 0; k < 4; k++)
      board_card_move(L, st, board_pile_top(L, st, pile(L, "traitor_deck", -1)), pile(L, "traitors", f), -1);
  }
  board_move_tokens(L, st, 3, K("fedaykin"), board_loc_pool(L, P("reserves"), 3), SEC("false_wall_south@4"), 2);
  board_move_tokens(L, st, 3, K("normal"), board_loc_pool(L, P("reserves"), 3), SEC("false_wall_south@4"), 5);
  board_move_tokens(L, st, 0, K("normal"), SEC("arrakeen"), board_loc_pool(L, P("tanks"), 0), 4);
  board_move_tokens(L, st, 2, K("sardaukar"), board_loc_pool(L, P("reserves"), 2), board_loc_pool(L, P("set_aside"), -1), 1);
  board_var_set(L, st, V("board_spice"), SEC("cielago_south@1"), 0, 12);
  board_var_set(L, st, V("storm"), 0, 0, 13);
  board_var_set(L, st, V("phase"), 0, 0, 4);
  board_var_set(L, st, V("ally"), 3, 0, 5);
  board_var_set(L, st, V("ally"), 5, 0, 3);
  board_var_set(L, st, V("shield_wall_destroyed"), 0, 0, 1);
  board_var_set(L, st, board_var_index(DEF, "bank"), 0, 0, -17);
  board_var_set(L, st, DEF->nvars + 1, 4, 2, 9); /* rule variable karama_used[2] for the Guild */
  board_leader_state ls = {(int8_t)board_leader_status_index(DEF, "captured"), 5, (int8_t)board_area_index(DEF, "carthag"), 1};
  board_leader_set(L, st, board_leader_index(DEF, "chani"), ls);
  board_leader_state dead = {(int8_t)board_leader_status_index(DEF, "tanks_face_up"), 0, -1, 0};
  board_leader_set(L, st, board_leader_index(DEF, "gurney_halleck"), dead);
  int32_t *ext = board_ext(L, st);
  for (size_t i = 0; i < L->ext_words; i++) ext[i] = (int32_t)(i * 7) - 20;
  board_rng_next(L, st);
}

static void save_load_round_trip(void **state) {
  fx *f = *state;
  board_layout *L = f->L;
  scramble(L, f->st);
  strbuf out = {0};
  state_save(L, f->st, &out);
  strbuf errs = {0};
  diag *d = diag_new(diag_sink_file, stderr);
  board_var_decl extra[] = {{.name = "worms_seen", .scope = BS_GLOBAL, .len = 1, .visibility = VIS_PUBLIC},
                            {.name = "karama_used", .scope = BS_FACTION, .len = 3, .visibility = VIS_OWNER}};
  unsigned char *st2 = NULL;
  board_layout *L2 = state_load_text(DEF, &(state_ext){extra, 2, 16, NULL, NULL, NULL, NULL, NULL}, "saved.yaml", out.s, out.n, d, &st2);
  diag_free(d);
  if (!L2) fail_msg("load failed; the document was:\n%s", out.s);
  assert_int_equal(L2->size, L->size);
  if (board_state_hash(L2, st2) != board_state_hash(L, f->st)) {
    for (size_t i = 0; i < L->size; i++)
      if (st2[i] != f->st[i]) {
        fail_msg("first difference at byte %zu (vars %zu stacks %zu cards %zu piles %zu leaders %zu)\n%s", i,
                 L->off_vars, L->off_stacks, L->off_card_pile, L->off_pile_n, L->off_leaders, out.s);
      }
  }
  /* and saving again gives the same text */
  strbuf again = {0};
  state_save(L2, st2, &again);
  assert_string_equal(again.s, out.s);
  sb_free(&again);
  sb_free(&out);
  sb_free(&errs);
  board_layout_free(L2);
  free(st2);
}

static void capture_sink(void *ud, diag_level lv, const char *text) {
  (void)lv;
  sb_puts(ud, text);
}

static void load_a_scenario(void **state) {
  (void)state;
  const char *doc =
      "mentat_state: 1\n"
      "factions: [fremen, harkonnen]\n"
      "seed: 5\n"
      "variables: { storm: 4, phase: battle }\n"
      "board:\n"
      "  false_wall_south@4: { fremen: { normal: 3, fedaykin: 1 }, harkonnen: 2 }\n"
      "per_faction:\n"
      "  harkonnen:\n"
      "    variables: { spice: 12, ally: fremen }\n"
      "    piles: { hand: [lasgun, shield, shield] }\n"
      "    leaders: { feyd_rautha: tanks_face_down }\n";
  strbuf errs = {0};
  diag *d = diag_new(capture_sink, &errs);
  unsigned char *st = NULL;
  board_layout *L = state_load_text(DEF, NULL, "scenario.yaml", doc, strlen(doc), d, &st);
  diag_free(d);
  if (!L) fail_msg("%s", errs.s);
  assert_int_equal(board_tokens(L, st, SEC("false_wall_south@4"), 0, K("fedaykin")), 1);
  assert_int_equal(board_factions_in_area(L, st, board_area_index(DEF, "false_wall_south"), 0), 3u);
  assert_false(board_controls(L, st, 0, board_area_index(DEF, "false_wall_south"), 0));
  assert_int_equal(board_var_get(L, st, V("ally"), 1, 0), 0);
  int hand = pile(L, "hand", 1);
  assert_int_equal(board_pile_count(L, st, hand), 3);
  assert_int_equal(board_pile_top(L, st, hand), board_card_index(DEF, "lasgun"));
  assert_int_equal(board_pile_card(L, st, hand, 0), board_card_index(DEF, "shield#2"));
  assert_int_equal(board_pile_count(L, st, pile(L, "treachery_deck", -1)), 30);
  assert_int_equal(board_pile_count(L, st, pile(L, "traitor_deck", -1)), 10);
  assert_int_equal(board_leader_get(L, st, board_leader_index(DEF, "feyd_rautha")).status,
                   board_leader_status_index(DEF, "tanks_face_down"));
  board_layout_free(L);
  free(st);
  /* a card listed more often than it exists */
  const char *bad = "mentat_state: 1\nfactions: [fremen]\npiles: { treachery_deck: [karama, karama, karama] }\n";
  errs.n = 0;
  d = diag_new(capture_sink, &errs);
  L = state_load_text(DEF, NULL, "bad.yaml", bad, strlen(bad), d, &st);
  diag_free(d);
  assert_null(L);
  assert_non_null(strstr(errs.s, "bad.yaml:3:43: error: card 'karama' is listed more often than it exists"));
  sb_free(&errs);
}

/* A rule variable may not take the name of a board variable or of another rule variable: the
 * layout is refused, with the name.  Many distinct names are accepted (the check is a hash set). */
static void rule_variable_names_clash(void **state) {
  (void)state;
  int f[2] = {board_faction_index(DEF, "fremen"), board_faction_index(DEF, "harkonnen")};
  enum { MANY = 300 };
  static char names[MANY][16];
  board_var_decl extra[MANY];
  for (int i = 0; i < MANY; i++) {
    snprintf(names[i], sizeof names[i], "rv_%d", i);
    extra[i] = (board_var_decl){.name = names[i], .scope = BS_GLOBAL, .len = 1};
  }
  board_layout *L = board_layout_new(DEF, f, 2, extra, MANY, 0, NULL);
  assert_non_null(L);
  board_layout_free(L);
  const char *taken[] = {DEF->vars[0].name, DEF->vars[DEF->nvars - 1].name, "rv_17"};
  for (int k = 0; k < 3; k++) {
    extra[MANY - 1 - k].name = taken[k]; /* a board variable's name; an earlier rule variable's */
    strbuf err = {0};
    assert_null(board_layout_new(DEF, f, 2, extra, MANY, 0, &err));
    assert_non_null(strstr(err.s, taken[k]));
    assert_non_null(strstr(err.s, "clashes"));
    sb_free(&err);
    extra[MANY - 1 - k].name = names[MANY - 1 - k];
  }
}

/* Typed rule variables of every kind the format names: saved by id, read
 * back to the same bytes, and refused when out of their type. */
static void typed_rule_variables(void **state) {
  (void)state;
  static const char *const colours[] = {"red", "blue"};
  board_var_decl extra[] = {
      {.name = "where", .scope = BS_GLOBAL, .len = 1, .type = BT_LOC},
      {.name = "stack", .scope = BS_FACTION, .len = 2, .type = BT_PILE},
      {.name = "colour", .scope = BS_GLOBAL, .len = 1, .type = BT_NAME, .names = colours, .nnames = 2, .initial = -1},
      {.name = "zones", .scope = BS_GLOBAL, .len = 4, .type = BT_AREA, .set = true, .width = 2},
      {.name = "who", .scope = BS_FACTION, .len = 1, .type = BT_FACTION, .set = true},
      {.name = "card", .scope = BS_GLOBAL, .len = 1, .type = BT_CARD, .initial = -1},
  };
  const char *const two[] = {"fremen", "harkonnen"};
  int f[2] = {board_faction_index(DEF, two[0]), board_faction_index(DEF, two[1])};
  board_layout *L = board_layout_new(DEF, f, 2, extra, 6, 0, NULL);
  assert_non_null(L);
  unsigned char *st = calloc(1, L->size);
  board_state_init(L, st, 3);
  int v = DEF->nvars;
  assert_int_equal(board_var_get(L, st, v + 2, 0, 0), -1); /* declared initial values */
  board_var_set(L, st, v, 0, 0, board_loc_pool(L, P("reserves"), 1));
  board_var_set(L, st, v + 1, 0, 0, pile(L, "hand", 1));
  board_var_set(L, st, v + 1, 0, 1, pile(L, "treachery_deck", -1));
  board_var_set(L, st, v + 1, 1, 0, -1);
  board_var_set(L, st, v + 1, 1, 1, pile(L, "hand", 0));
  board_var_set(L, st, v + 2, 0, 0, 1);
  int polar = board_area_index(DEF, "polar_sink"), last = DEF->nareas - 1;
  board_var_set(L, st, v + 3, 0, 0, (int32_t)(1u << polar));
  board_var_set(L, st, v + 3, 0, 3, (int32_t)(1u << (last - 32)));
  board_var_set(L, st, v + 4, 1, 0, 1 << f[0] | 1 << f[1]);
  board_var_set(L, st, v + 5, 0, 0, board_card_index(DEF, "shield#2"));
  strbuf out = {0};
  state_save(L, st, &out);
  char want[256];
  snprintf(want, sizeof want, "\n  zones: [[%s], [%s]]\n", DEF->areas[polar].id, DEF->areas[last].id);
  assert_non_null(strstr(out.s, want));
  assert_non_null(strstr(out.s, "\n  where: reserves of harkonnen\n"));
  assert_non_null(strstr(out.s, "\n  colour: blue\n"));
  assert_non_null(strstr(out.s, "\n  card: shield#2\n"));
  assert_non_null(strstr(out.s, "\n      stack: [hand of harkonnen, treachery_deck]\n"));
  assert_non_null(strstr(out.s, "\n      stack: [none, hand of fremen]\n"));
  assert_non_null(strstr(out.s, "\n      who: [fremen, harkonnen]\n"));
  diag *d = diag_new(diag_sink_file, stderr);
  unsigned char *st2 = NULL;
  state_ext x = {extra, 6, 0, NULL, NULL, NULL, NULL, NULL};
  board_layout *L2 = state_load_text(DEF, &x, "typed.yaml", out.s, out.n, d, &st2);
  diag_free(d);
  if (!L2) fail_msg("%s", out.s);
  assert_memory_equal(st, st2, L->off_gen); /* the position, not the generations (board.h) */
  board_layout_free(L2);
  free(st2);
  static const char *const bad[][2] = {
      {"variables: { where: reserves }", "typed.yaml:3:21: error: 'reserves' is a per-faction pool: write 'NAME of FACTION'"},
      {"variables: { where: set_aside of fremen }", "typed.yaml:3:21: error: 'set_aside' is a global pool: write its name alone"},
      {"variables: { where: nowhere@3 }", "typed.yaml:3:21: error: 'nowhere@3' is neither a section (area@sector) nor a pool"},
      {"variables: { colour: green }", "typed.yaml:3:22: error: 'green' is not a value of colour"},
      {"variables: { zones: [[polar_sink], [polar_sink], []] }", "typed.yaml:3:50: error: 'zones' has only 2 values"},
      {"variables: { card: traitor_deck }", "typed.yaml:3:20: error: unknown card 'traitor_deck'"},
      {"per_faction: { fremen: { variables: { stack: [hand of emperor, none] } } }", "typed.yaml:3:55: error: faction 'emperor' is not in this game"},
      {"per_faction: { fremen: { variables: { who: [atreides] } } }", "typed.yaml:3:45: error: faction 'atreides' is not in this game"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char doc[512];
    snprintf(doc, sizeof doc, "mentat_state: 1\nfactions: [fremen, harkonnen]\n%s\n", bad[i][0]);
    strbuf errs = {0};
    d = diag_new(capture_sink, &errs);
    L2 = state_load_text(DEF, &x, "typed.yaml", doc, strlen(doc), d, &st2);
    diag_free(d);
    assert_null(L2);
    if (!strstr(errs.s, bad[i][1])) fail_msg("expected '%s' in:\n%s", bad[i][1], errs.s);
    sb_free(&errs);
  }
  sb_free(&out);
  board_layout_free(L);
  free(st);
}

/* Positions of a long line (a save's `vm` words) are found in one walk of
 * the line, not one walk per value: 100,000 values load in well under a
 * second (it took minutes). */
static void long_lines_load_in_linear_time(void **state) {
  (void)state;
  strbuf doc = {0};
  sb_puts(&doc, "mentat_state: 1\nfactions: [fremen]\nvm: [");
  for (int i = 0; i < 100000; i++) sb_puts(&doc, i ? ", 0" : "0");
  sb_puts(&doc, ", x]\n");
  strbuf errs = {0};
  diag *d = diag_new(capture_sink, &errs);
  unsigned char *st = NULL;
  clock_t t0 = clock();
  board_layout *L = state_load_text(DEF, &(state_ext){NULL, 0, 200000, NULL, NULL, NULL, NULL, NULL}, "long.yaml", doc.s, doc.n, d, &st);
  double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
  diag_free(d);
  assert_null(L);
  if (!strstr(errs.s, "long.yaml:3:300006: error: expected an integer for a VM word, found 'x'")) fail_msg("%s", errs.s);
  if (secs > 2.0) fail_msg("loading took %.1f s", secs);
  sb_free(&errs);
  sb_free(&doc);
}

/* Every write helper stamps the part it wrote with a new generation and
 * leaves the others' alone (board.h: the value cache keys on them); a refused
 * write stamps nothing; the hash and a clone's position ignore them. */
static uint64_t gens[BOARD_NGEN];
static void gens_take(const board_layout *L, const unsigned char *st) {
  for (int k = 0; k < BOARD_NGEN; k++) gens[k] = board_gen(L, st, k);
}
static void gens_expect(const board_layout *L, const unsigned char *st, int part) {
  for (int k = 0; k < BOARD_NGEN; k++)
    if ((board_gen(L, st, k) != gens[k]) != (k == part)) fail_msg("generation %d %s", k, k == part ? "unchanged" : "changed");
  gens_take(L, st);
}
static void generations_stamp_every_write(void **state) {
  fx *f = *state;
  board_layout *L = f->L;
  unsigned char *st = f->st;
  int deck = pile(L, "treachery_deck", -1), hand = pile(L, "hand", 2);
  int duncan = board_leader_index(DEF, "duncan_idaho");
  uint64_t h = board_state_hash(L, st);
  gens_take(L, st);
  assert_int_equal(board_move_tokens(L, st, 0, K("normal"), SEC("arrakeen"), SEC("imperial_basin@9"), 1), BOARD_OK);
  gens_expect(L, st, BOARD_GEN_TOKENS);
  assert_int_equal(board_set_tokens(L, st, SEC("arrakeen"), 0, K("normal"), 9), BOARD_OK);
  gens_expect(L, st, BOARD_GEN_TOKENS);
  assert_int_equal(board_move_tokens(L, st, 0, K("normal"), SEC("arrakeen"), SEC("imperial_basin@9"), 500), BOARD_ESHORT);
  gens_expect(L, st, -1);
  int c = board_pile_top(L, st, deck);
  assert_int_equal(board_card_move(L, st, c, hand, -1), BOARD_OK);
  gens_expect(L, st, BOARD_GEN_CARDS);
  board_pile_shuffle(L, st, deck);
  gens_expect(L, st, BOARD_GEN_CARDS);
  board_pile_forget(L, st, deck);
  gens_expect(L, st, BOARD_GEN_CARDS);
  assert_int_equal(board_pile_fix(L, st, deck, board_pile_card(L, st, deck, 0)), BOARD_OK);
  gens_expect(L, st, BOARD_GEN_CARDS);
  board_pile_set_unknown(L, st, deck, 3);
  gens_expect(L, st, BOARD_GEN_CARDS);
  board_pile_settle(L, st, deck);
  gens_expect(L, st, BOARD_GEN_CARDS);
  board_leader_state ls = board_leader_get(L, st, duncan);
  ls.used = 1;
  assert_int_equal(board_leader_set(L, st, duncan, ls), BOARD_OK);
  gens_expect(L, st, BOARD_GEN_LEADERS);
  ls.status = 99;
  assert_int_equal(board_leader_set(L, st, duncan, ls), BOARD_ERANGE);
  gens_expect(L, st, -1);
  /* the position is what the hash sees: the same position with other generations hashes alike */
  unsigned char *copy = malloc(L->size);
  board_state_clone(L, copy, st);
  for (int k = 0; k < BOARD_NGEN; k++) board_touch(L, copy, k);
  assert_true(board_state_hash(L, copy) == board_state_hash(L, st));
  assert_true(board_state_hash(L, st) != h);
  free(copy);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(start_position, setup6, teardown6),
      cmocka_unit_test_setup_teardown(rule_variable_visibility, setup6, teardown6),
      cmocka_unit_test(a_game_without_a_faction),
      cmocka_unit_test_setup_teardown(mutations_validate, setup6, teardown6),
      cmocka_unit_test_setup_teardown(cards_and_piles, setup6, teardown6),
      cmocka_unit_test_setup_teardown(rng_behaviour, setup6, teardown6),
      cmocka_unit_test_setup_teardown(clone_and_hash, setup6, teardown6),
      cmocka_unit_test_setup_teardown(generations_stamp_every_write, setup6, teardown6),
      cmocka_unit_test_setup_teardown(clone_speed, setup6, teardown6),
      cmocka_unit_test_setup_teardown(save_load_round_trip, setup6, teardown6),
      cmocka_unit_test(load_a_scenario),
      cmocka_unit_test(typed_rule_variables),
      cmocka_unit_test(rule_variable_names_clash),
      cmocka_unit_test(long_lines_load_in_linear_time),
  };
  return cmocka_run_group_tests_name("state", tests, group_setup, group_teardown);
}
