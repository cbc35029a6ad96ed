/* fuzz_yaml.c -- libFuzzer target for the YAML loaders (data.c, state.c).
 *
 * The first input byte picks the loader (mod 4): 0 a board file, 1 a decks
 * file, 2 a faction file, 3 a saved position; the rest is the file.  Decks
 * and factions load after a small built-in board, positions against a small
 * built-in pack.  Whatever loads is exercised further: a board's tables and
 * queries, a position's save -> load -> same hash round trip (a mismatch
 * aborts: it is a bug, not bad input).  Diagnostics go nowhere. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "data.h"
#include "diag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char BOARD[] =
    "sectors: 4\n"
    "initial_pool: reserves\n"
    "storm_marker: storm\n"
    "tags: [sand, rock]\n"
    "area_attributes:\n"
    "  protected: { type: bool }\n"
    "  blow: { type: sector }\n"
    "  size: { type: enum, values: [small, big] }\n"
    "faction_attributes: { limit: { type: int, default: 4 } }\n"
    "pools: { reserves: { scope: faction }, aside: { scope: global } }\n"
    "token_kinds: [normal]\n"
    "leader_status: [ok, dead]\n"
    "variables:\n"
    "  cash: { scope: faction }\n"
    "  heap: { scope: section }\n"
    "  storm: { kind: marker, type: sector }\n"
    "  ally: { scope: faction, kind: marker, type: faction, initial: none }\n"
    "  phase: { kind: marker, values: [one, two] }\n"
    "  done: { kind: flag }\n"
    "territories:\n"
    "  hub: { sectors: [], borders: [north, south], section_borders: [north@0, south@2] }\n"
    "  north:\n"
    "    tags: [sand]\n"
    "    sectors: [0, 1]\n"
    "    blow: 1\n"
    "    borders: [hub, south]\n"
    "    sections: { 0: [hub, north@1], 1: [north@0, south@1] }\n"
    "  south:\n"
    "    tags: [rock]\n"
    "    sectors: [1, 2]\n"
    "    protected: true\n"
    "    borders: [hub, north]\n"
    "    sections: { 1: [north@1, south@2], 2: [south@1, hub] }\n";

static const char DECKS[] =
    "piles: { deck: {}, hand: { scope: faction }, tdeck: {}, discard: {} }\n"
    "card_attributes: { kind: { values: [a, b] }, at: { type: area }, who: { type: leader } }\n"
    "decks:\n"
    "  main: { pile: deck, cards: { x: { kind: b, count: 3 }, y: { at: north }, z: {} } }\n"
    "  traitors: { pile: tdeck, from_leaders: who }\n";

static const char RED[] =
    "name: Red\nlimit: 5\nforces: { normal: 8, elite: 2 }\n"
    "start: { cash: 4, north@0: 3, hub: { elite: 1 } }\n"
    "start_options: [ { areas: [north, south], count: 2 } ]\n"
    "leaders: { ra: { name: Ra, strength: 3 }, rb: { strength: 1 } }\n";
static const char BLUE[] = "name: Blue\nforces: { normal: 5 }\nstart: { south@2: 2 }\nleaders: { ba: { strength: 2 } }\n";

static board_def *pack(bool with_factions, data_loader **keep, diag *d) {
  board_def *def = board_def_new();
  data_loader *ld = data_loader_new(def, d);
  data_load_board_text(ld, "board.yaml", BOARD, sizeof BOARD - 1);
  if (with_factions) {
    data_load_decks_text(ld, "decks.yaml", DECKS, sizeof DECKS - 1);
    data_load_faction_text(ld, "red.yaml", RED, sizeof RED - 1);
    data_load_faction_text(ld, "blue.yaml", BLUE, sizeof BLUE - 1);
  }
  *keep = ld;
  return def;
}

/* Runs the queries over every area of a finished def. */
static void exercise(board_def *def) {
  for (int a = 0; a < def->nareas; a++) {
    (void)board_within(def, a, 2);
    for (int s = -1; s < def->nsectors; s++) {
      uint32_t storm = s < 0 ? 0 : 1u << s;
      (void)board_reachable(def, a, 3, storm, 0);
      (void)board_reachable(def, a, 3, storm, 1ull << ((a + 1) % def->nareas));
      (void)board_distance(def, a, (a + 1) % def->nareas, storm, 0);
    }
  }
  (void)board_storm_path(def, 0, def->nsectors + 3);
}

static void round_trip(const board_def *def, diag *d, const board_layout *L, const unsigned char *st,
                       const board_var_decl *extra, int nextra) {
  strbuf out = {0};
  state_save(L, st, &out);
  unsigned char *st2 = NULL;
  board_layout *L2 = state_load_text(def, &(state_ext){extra, nextra, L->ext_words, NULL, NULL, NULL, NULL, NULL}, "again.yaml", out.s, out.n, d, &st2);
  if (!L2 || L2->size != L->size || board_state_hash(L2, st2) != board_state_hash(L, st)) abort();
  board_layout_free(L2);
  free(st2);
  sb_free(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  int mode = data[0] % 4;
  const char *text = (const char *)data + 1;
  size_t len = size - 1;
  diag *d = diag_new(NULL, NULL);
  data_loader *ld = NULL;
  board_def *def = NULL;
  switch (mode) {
  case 0:
    def = board_def_new();
    ld = data_loader_new(def, d);
    if (data_load_board_text(ld, "fuzz.yaml", text, len) == 0 && data_loader_finish(ld) == 0) {
      exercise(def);
      int f[1] = {0};
      board_layout *L = board_layout_new(def, f, 0, NULL, 0, 2, NULL);
      if (L) {
        unsigned char *st = calloc(1, L->size);
        board_state_init(L, st, 9);
        round_trip(def, d, L, st, NULL, 0);
        free(st);
        board_layout_free(L);
      }
    }
    break;
  case 1:
  case 2:
    def = pack(mode == 2, &ld, d);
    if (mode == 1) data_load_decks_text(ld, "fuzz.yaml", text, len);
    else data_load_faction_text(ld, "fuzz.yaml", text, len);
    if (data_loader_finish(ld) == 0 && def->nfactions > 0) {
      int f[BOARD_MAX_FACTIONS], n = def->nfactions;
      for (int i = 0; i < n; i++) f[i] = n - 1 - i;
      board_layout *L = board_layout_new(def, f, n, NULL, 0, 1, NULL);
      if (L) {
        unsigned char *st = calloc(1, L->size);
        board_state_init(L, st, 1);
        round_trip(def, d, L, st, NULL, 0);
        free(st);
        board_layout_free(L);
      }
    }
    break;
  default: {
    def = pack(true, &ld, d);
    if (data_loader_finish(ld) != 0) abort(); /* the built-in pack must load */
    unsigned char *st = NULL;
    board_var_decl extra[] = {{.name = "count", .scope = BS_FACTION, .len = 2, .visibility = VIS_PUBLIC}};
    board_layout *L = state_load_text(def, &(state_ext){extra, 1, 3, NULL, NULL, NULL, NULL, NULL}, "fuzz.yaml", text, len, d, &st);
    if (L) {
      board_rng_next(L, st);
      round_trip(def, d, L, st, extra, 1);
    }
    board_layout_free(L);
    free(st);
    break;
  }
  }
  data_loader_free(ld);
  board_def_free(def);
  diag_free(d);
  return 0;
}
