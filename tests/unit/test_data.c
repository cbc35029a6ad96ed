/* test_data.c -- the YAML component loaders: the shipped files load without
 * a diagnostic, expansion-shaped files load with no code change, and every
 * rejection is a golden diagnostic: tests/golden/yaml/NAME.yaml against
 * NAME.err, byte for byte (UPDATE_GOLDEN=1 rewrites the .err files).
 *
 * A golden's name prefix says what it is: board_ (a board file alone),
 * decks_ (after rules/board.yaml), faction_ (after rules/board.yaml and
 * rules/decks.yaml), decksadd_ (an addition, rules/decks.NAME.yaml, laid over
 * rules/decks.yaml), state_ (a saved position against the full pack).
 * Runs from the repository root. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "data.h"
#include "diag.h"

#define GOLDEN_DIR "tests/golden/yaml"

static void capture(void *ud, diag_level lv, const char *text) {
  (void)lv;
  sb_puts(ud, text);
}

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  strbuf b = {0};
  char buf[4096];
  size_t k;
  while ((k = fread(buf, 1, sizeof buf, f)) > 0) sb_putn(&b, buf, k);
  fclose(f);
  if (len) *len = b.n;
  return b.s ? b.s : mt_strdup("");
}

static bool starts(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

/* Runs one golden input; returns the diagnostics it produced. */
static char *run_golden(const char *name, const char *path) {
  strbuf out = {0};
  diag *d = diag_new(capture, &out);
  if (starts(name, "state_")) {
    board_def *def = data_load_dir(".", d);
    unsigned char *st = NULL;
    board_layout *L = def ? state_load_file(def, &(state_ext){NULL, 0, 4, NULL, NULL, NULL, NULL, NULL}, path, d, &st) : NULL;
    if (L) sb_puts(&out, "(loaded)\n");
    board_layout_free(L);
    free(st);
    board_def_free(def);
  } else {
    board_def *def = board_def_new();
    data_loader *ld = data_loader_new(def, d);
    int rc;
    if (starts(name, "board_")) rc = data_load_board(ld, path);
    else {
      data_load_board(ld, "rules/board.yaml");
      if (starts(name, "decks_")) rc = data_load_decks(ld, path);
      else if (starts(name, "decksadd_")) rc = data_load_decks_adding(ld, "rules/decks.yaml", &path, 1);
      else {
        data_load_decks(ld, "rules/decks.yaml");
        rc = data_load_faction(ld, path);
      }
    }
    if (rc == 0) sb_puts(&out, "(loaded)\n");
    data_loader_free(ld);
    board_def_free(def);
  }
  diag_free(d);
  return out.s ? out.s : mt_strdup("");
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void golden_diagnostics(void **state) {
  (void)state;
  DIR *dir = opendir(GOLDEN_DIR);
  assert_non_null(dir);
  char *names[512];
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(dir)) && n < 512) {
    size_t l = strlen(e->d_name);
    if (l > 5 && !strcmp(e->d_name + l - 5, ".yaml")) names[n++] = mt_strdup(e->d_name);
  }
  closedir(dir);
  qsort(names, n, sizeof *names, cmp_names);
  bool update = getenv("UPDATE_GOLDEN") && !strcmp(getenv("UPDATE_GOLDEN"), "1");
  int failed = 0;
  for (size_t i = 0; i < n; i++) {
    char path[512], errpath[512];
    snprintf(path, sizeof path, GOLDEN_DIR "/%s", names[i]);
    snprintf(errpath, sizeof errpath, GOLDEN_DIR "/%.*s.err", (int)(strlen(names[i]) - 5), names[i]);
    char *got = run_golden(names[i], path);
    if (update) {
      FILE *f = fopen(errpath, "wb");
      assert_non_null(f);
      fputs(got, f);
      fclose(f);
    } else {
      char *want = slurp(errpath, NULL);
      if (!want) {
        printf("golden %s: missing %s\n", names[i], errpath);
        failed++;
      } else if (strcmp(want, got) != 0) {
        printf("golden %s: diagnostics differ\n--- expected\n%s--- got\n%s---\n", names[i], want, got);
        failed++;
      }
      free(want);
    }
    if (!strstr(got, "error:")) {
      printf("golden %s: no error reported\n", names[i]);
      failed++;
    }
    free(got);
    mt_free(names[i]);
  }
  printf("%zu golden YAML diagnostics checked, %d failed\n", n, failed);
  assert_true(n >= 15);
  assert_int_equal(failed, 0);
}

static void shipped_components_load_clean(void **state) {
  (void)state;
  strbuf out = {0};
  diag *d = diag_new(capture, &out);
  board_def *def = data_load_dir(".", d);
  diag_free(d);
  if (!def) fail_msg("%s", out.s);
  assert_null(out.s);
  assert_int_equal(def->nfactions, 6);
  assert_int_equal(def->nleaders, 30);
  assert_int_equal(def->decks[board_deck_index(def, "spice")].ncards, 21);
  assert_int_equal(def->decks[board_deck_index(def, "treachery")].ncards, 33);
  assert_int_equal(def->decks[board_deck_index(def, "storm")].ncards, 6);
  assert_int_equal(def->decks[board_deck_index(def, "traitor")].ncards, 30);
  /* treachery classes: 9 weapons, 8 defenses, 5 worthless, 11 special */
  int cls = board_card_attr_index(def, "class");
  int counts[8] = {0};
  const board_deck *t = &def->decks[board_deck_index(def, "treachery")];
  for (int c = t->first_card; c < t->first_card + t->ncards; c++) counts[def->cards[c].attrs[cls]]++;
  const board_attr *a = &def->card_attrs[cls];
  for (int v = 0; v < a->nvalues; v++) {
    if (!strcmp(a->values[v], "weapon")) assert_int_equal(counts[v], 9);
    if (!strcmp(a->values[v], "defense")) assert_int_equal(counts[v], 8);
    if (!strcmp(a->values[v], "worthless")) assert_int_equal(counts[v], 5);
    if (!strcmp(a->values[v], "special")) assert_int_equal(counts[v], 11);
  }
  /* spice cards carry their territory's blow */
  int c = board_card_index(def, "cielago_south");
  assert_int_equal(def->cards[c].attrs[board_card_attr_index(def, "amount")], 12);
  assert_int_equal(def->cards[c].attrs[board_card_attr_index(def, "area")], board_area_index(def, "cielago_south"));
  /* traitor cards name their leader */
  c = board_card_index(def, "piter_de_vries");
  assert_int_equal(def->cards[c].attrs[board_card_attr_index(def, "leader")], board_leader_index(def, "piter_de_vries"));
  assert_int_equal(def->cards[c].faction, board_faction_index(def, "harkonnen"));
  /* faction sheets */
  int hk = board_faction_index(def, "harkonnen"), fr = board_faction_index(def, "fremen");
  assert_int_equal(def->factions[hk].attrs[board_faction_attr_index(def, "hand_limit")], 8);
  assert_int_equal(def->factions[hk].attrs[board_faction_attr_index(def, "traitors_kept")], 4);
  const board_attr *rl = &def->faction_attrs[board_faction_attr_index(def, "reserves_location")];
  assert_string_equal(rl->values[def->factions[fr].attrs[board_faction_attr_index(def, "reserves_location")]], "on_planet");
  assert_int_equal(def->factions[fr].noptions, 1);
  assert_int_equal(def->factions[fr].options[0].count, 10);
  assert_int_equal(def->leaders[board_leader_index(def, "stilgar")].strength, 7);
  board_def_free(def);
}

/* An expansion-shaped faction (new token kinds, its own leaders, a start in
 * a multi-sector territory) is just one more file: no code changes. */
static void expansion_faction_is_data(void **state) {
  (void)state;
  const char *ix =
      "name: Ixians\n"
      "forces: { suboid: 13, cyborg: 7 }\n"
      "start: { spice: 10, false_wall_east@6: { suboid: 3, cyborg: 3 } }\n"
      "leaders:\n"
      "  ctair_pilru: { name: \"C'Tair Pilru\", strength: 5 }\n"
      "  cammar_pilru: { name: Cammar Pilru, strength: 1 }\n";
  strbuf out = {0};
  diag *d = diag_new(capture, &out);
  board_def *def = board_def_new();
  data_loader *ld = data_loader_new(def, d);
  assert_int_equal(data_load_board(ld, "rules/board.yaml"), 0);
  assert_int_equal(data_load_decks(ld, "rules/decks.yaml"), 0);
  assert_int_equal(data_load_faction(ld, "factions/atreides.yaml"), 0);
  assert_int_equal(data_load_faction_text(ld, "factions/ixians.yaml", ix, strlen(ix)), 0);
  assert_int_equal(data_loader_finish(ld), 0);
  assert_null(out.s);
  int f[2] = {board_faction_index(def, "ixians"), board_faction_index(def, "atreides")};
  board_layout *L = board_layout_new(def, f, 2, NULL, 0, 0, NULL);
  unsigned char *st = calloc(1, L->size);
  board_state_init(L, st, 3);
  int sec = board_section_parse(def, "false_wall_east@6");
  assert_int_equal(board_tokens(L, st, sec, 0, board_kind_index(def, "cyborg")), 3);
  assert_int_equal(board_tokens(L, st, board_loc_pool(L, board_pool_index(def, "reserves"), 0), 0,
                                board_kind_index(def, "suboid")), 10);
  assert_int_equal(board_pile_count(L, st, board_pile_slot(L, board_pile_index(def, "traitor_deck"), -1)), 7);
  board_layout_free(L);
  free(st);
  data_loader_free(ld);
  board_def_free(def);
  diag_free(d);
}

/* Loads the base board, decks and the Atreides with one more sheet ID (TEXT): the def, clean. */
static board_def *load_with_sheet(const char *path, const char *text) {
  strbuf out = {0};
  diag *d = diag_new(capture, &out);
  board_def *def = board_def_new();
  data_loader *ld = data_loader_new(def, d);
  assert_int_equal(data_load_board(ld, "rules/board.yaml"), 0);
  assert_int_equal(data_load_decks(ld, "rules/decks.yaml"), 0);
  assert_int_equal(data_load_faction(ld, "factions/atreides.yaml"), 0);
  assert_int_equal(data_load_faction_text(ld, path, text, strlen(text)), 0);
  assert_int_equal(data_loader_finish(ld), 0);
  assert_null(out.s);
  data_loader_free(ld);
  diag_free(d);
  return def;
}

/* A faction sheet may bring areas of its own (`areas:`): off the map, in no sector, bordering
 * nothing, with the board's tags and attributes; the sheet's start may place tokens in them. */
static void faction_brings_an_area(void **state) {
  (void)state;
  const char *sheet =
      "name: Keepers\n"
      "forces: { normal: 10 }\n"
      "areas:\n"
      "  keep: { name: The Keep, tags: [stronghold] }\n"
      "start: { keep: 4 }\n"
      "leaders: { warden: { name: Warden, strength: 3 } }\n";
  board_def *def = load_with_sheet("factions/keepers.yaml", sheet);
  int keep = board_area_index(def, "keep");
  assert_int_equal(keep, def->nareas - 1); /* after the board's */
  assert_int_equal(board_area_index(def, "polar_sink"), 0);
  assert_string_equal(def->areas[keep].name, "The Keep");
  assert_int_equal(def->areas[keep].nsections, 1);
  assert_int_equal(def->sections[def->areas[keep].first_section].sector, BOARD_NO_SECTOR);
  assert_int_equal(def->areas[keep].borders, 0);
  assert_true((def->areas[keep].tags >> board_tag_index(def, "stronghold")) & 1u);
  int f[2] = {board_faction_index(def, "keepers"), board_faction_index(def, "atreides")};
  board_layout *L = board_layout_new(def, f, 2, NULL, 0, 0, NULL);
  unsigned char *st = calloc(1, L->size);
  board_state_init(L, st, 3);
  assert_int_equal(board_tokens(L, st, def->areas[keep].first_section, 0, board_kind_index(def, "normal")), 4);
  board_layout_free(L);
  free(st);
  board_def_free(def);
}

/* An attached area (a sheet's `attached_to`): the geometry of a state reads where the two variables
 * put it: its only neighbour is the territory it stands on, one step beyond it for distance, within
 * and reachable, and it takes its section's sector for the storm.  Unattached, it borders nothing. */
static void attached_area_geometry(void **state) {
  (void)state;
  const char *sheet =
      "name: Movers\n"
      "forces: { normal: 10 }\n"
      "variables:\n"
      "  keep_at: { kind: marker, type: area }\n"
      "  keep_sector: { kind: marker, type: sector }\n"
      "areas:\n"
      "  keep: { name: The Keep, tags: [stronghold], attached_to: { territory: keep_at, sector: keep_sector } }\n"
      "leaders: { warden: { name: Warden, strength: 3 } }\n";
  board_def *def = load_with_sheet("factions/movers.yaml", sheet);
  int f[2] = {board_faction_index(def, "movers"), board_faction_index(def, "atreides")};
  board_layout *L = board_layout_new(def, f, 2, NULL, 0, 0, NULL);
  unsigned char *st = calloc(1, L->size);
  board_state_init(L, st, 3);
  int keep = board_area_index(def, "keep"), basin = board_area_index(def, "imperial_basin");
  int arrakeen = board_area_index(def, "arrakeen"), carthag = board_area_index(def, "carthag");
  int at = board_var_index(def, "keep_at"), sec = board_var_index(def, "keep_sector"), storm = board_var_index(def, "storm");
  /* nowhere yet: no neighbour, unreachable */
  assert_int_equal(board_attached_section(L, st, keep), -1);
  assert_int_equal(board_neighbours_at(L, st, keep), 0);
  assert_int_equal(board_distance_at(L, st, keep, arrakeen), -1);
  board_var_set(L, st, at, 0, 0, basin);
  board_var_set(L, st, sec, 0, 0, 9);
  assert_int_equal(board_attached_section(L, st, keep), board_section_parse(def, "imperial_basin@9"));
  assert_true(board_borders_at(L, st, keep, basin));
  assert_true(board_borders_at(L, st, basin, keep));
  assert_false(board_borders_at(L, st, keep, arrakeen));
  assert_true((board_neighbours_at(L, st, basin) >> keep) & 1u);
  assert_int_equal(board_neighbours_at(L, st, keep), 1ull << basin);
  assert_int_equal(board_distance_at(L, st, keep, basin), 1);
  assert_int_equal(board_distance_at(L, st, arrakeen, keep), board_area_distance(def, arrakeen, basin) + 1);
  assert_int_equal(board_distance_at(L, st, arrakeen, carthag), board_area_distance(def, arrakeen, carthag));
  assert_false((board_within_at(L, st, basin, 0) >> keep) & 1u);
  assert_true((board_within_at(L, st, basin, 1) >> keep) & 1u);
  /* the storm away: reachable from the basin in one move, and out of the keep to the basin's neighbours */
  board_var_set(L, st, storm, 0, 0, 0);
  assert_true((board_reachable_at(L, st, basin, 1, 0) >> keep) & 1u);
  assert_false((board_reachable_at(L, st, basin, 1, 1ull << keep) >> keep) & 1u);
  assert_true((board_reachable_at(L, st, keep, 2, 0) >> arrakeen) & 1u);
  assert_false(board_area_in_storm_at(L, st, keep, -1));
  /* from the part of the basin the storm cuts off, its other part is not one move away */
  board_var_set(L, st, sec, 0, 0, 10);
  board_var_set(L, st, storm, 0, 0, 9);
  int b8 = board_section_parse(def, "imperial_basin@8"), b10 = board_section_parse(def, "imperial_basin@10");
  assert_true((board_reachable_from_section_at(L, st, b10, 1, 0) >> keep) & 1u);
  assert_false((board_reachable_from_section_at(L, st, b8, 1, 0) >> keep) & 1u);
  board_var_set(L, st, sec, 0, 0, 9);
  board_var_set(L, st, storm, 0, 0, 0);
  /* the storm over its section: nothing enters or leaves, and it counts as in the storm */
  board_var_set(L, st, storm, 0, 0, 9);
  assert_true(board_area_in_storm_at(L, st, keep, -1));
  assert_int_equal(board_reachable_at(L, st, keep, 3, 0), 1ull << keep);
  assert_false((board_reachable_at(L, st, carthag, 3, 0) >> keep) & 1u);
  /* its one section answers for the sector it stands in (tokens_at, section variables), no other */
  int own = def->areas[keep].first_section;
  assert_int_equal(board_section_at(L, st, keep, -1), own);
  assert_int_equal(board_section_at(L, st, keep, 9), own);
  assert_int_equal(board_section_at(L, st, keep, 10), -1);
  assert_int_equal(board_section_at(L, st, basin, 9), board_section_parse(def, "imperial_basin@9"));
  board_var_set(L, st, at, 0, 0, -1);
  assert_int_equal(board_section_at(L, st, keep, 9), -1);
  board_layout_free(L);
  free(st);
  board_def_free(def);
}

/* rules/decks.NAME.yaml: cards join the base's deck (its run of cards stays contiguous, the
 * generated traitor deck after it), a new deck and pile exist, an enum gains a value, and the
 * addition's deck attributes reach its own cards only. */
static void additions_extend_the_decks(void **state) {
  (void)state;
  strbuf out = {0};
  diag *d = diag_new(capture, &out);
  board_def *def = board_def_new();
  data_loader *ld = data_loader_new(def, d);
  const char *add = "tests/fixtures/decks-add/decks.relics.yaml";
  assert_int_equal(data_load_board(ld, "rules/board.yaml"), 0);
  assert_int_equal(data_load_decks_adding(ld, "rules/decks.yaml", &add, 1), 0);
  assert_int_equal(data_load_faction(ld, "factions/atreides.yaml"), 0);
  assert_int_equal(data_loader_finish(ld), 0);
  assert_null(out.s);
  const board_deck *t = &def->decks[board_deck_index(def, "treachery")];
  assert_int_equal(t->ncards, 33 + 4);
  int charges = board_card_attr_index(def, "charges"), cls = board_card_attr_index(def, "class");
  assert_true(charges >= 0);
  /* the fifth Shield lies right after the base's four (index 9..12), so the cards after them move
     up by one and the addition's own cards follow the base's */
  const board_card *blade = &def->cards[t->first_card + 34], *spare = &def->cards[t->first_card + 36];
  assert_string_equal(blade->id, "pod_blade");
  assert_int_equal(blade->attrs[charges], 3);
  assert_string_equal(spare->id, "spare_shield");
  assert_int_equal(spare->instance, 2);
  assert_int_equal(spare->attrs[charges], 1); /* the card's own value wins */
  assert_int_equal(def->cards[t->first_card].attrs[charges], 1); /* the base's cards: the default */
  const board_card *fifth = &def->cards[t->first_card + 13];
  assert_string_equal(fifth->id, "shield"); /* `more: 1`: a copy of the base's card, instance 5 of 5, */
  assert_string_equal(def->cards[t->first_card + 14].id, "snooper"); /* beside the other four */
  assert_int_equal(fifth->instance, 5);
  assert_int_equal(fifth->ninstances, 5);
  assert_int_equal(fifth->attrs[cls], def->cards[t->first_card + 9].attrs[cls]);
  assert_string_equal(def->cards[t->first_card + 9].id, "shield");
  assert_int_equal(def->cards[t->first_card + 9].ninstances, 5);
  int r = board_deck_index(def, "relics");
  assert_true(r >= 0);
  assert_int_equal(def->decks[r].pile, board_pile_index(def, "relic_deck"));
  const board_card *relic = &def->cards[def->decks[r].first_card];
  assert_string_equal(relic->id, "old_relic");
  assert_string_equal(def->card_attrs[cls].values[relic->attrs[cls]], "relic");
  for (int i = 0; i < def->ndecks; i++) /* every deck's cards contiguous */
    for (int c = def->decks[i].first_card; c < def->decks[i].first_card + def->decks[i].ncards; c++)
      assert_int_equal(def->cards[c].deck, i);
  data_loader_free(ld);
  board_def_free(def);
  diag_free(d);
}

static void duplicate_key_has_a_note(void **state) {
  (void)state;
  const char *doc = "sectors: 2\nsectors: 3\n";
  strbuf out = {0};
  diag *d = diag_new(capture, &out);
  board_def *def = board_def_new();
  data_loader *ld = data_loader_new(def, d);
  assert_int_equal(data_load_board_text(ld, "t.yaml", doc, strlen(doc)), -1);
  assert_string_equal(out.s,
                      "t.yaml:2:1: error: duplicate key 'sectors'\n"
                      "    2 | sectors: 3\n"
                      "      | ^~~~~~~\n"
                      "t.yaml:1:1: note: first defined here\n"
                      "    1 | sectors: 2\n"
                      "      | ^~~~~~~\n");
  data_loader_free(ld);
  board_def_free(def);
  diag_free(d);
  sb_free(&out);
}

static void missing_pack_is_an_error(void **state) {
  (void)state;
  strbuf out = {0};
  diag *d = diag_new(capture, &out);
  assert_null(data_load_dir("tests/no-such-pack", d));
  assert_non_null(strstr(out.s, "cannot open 'tests/no-such-pack/rules/board.yaml'"));
  diag_free(d);
  sb_free(&out);
}

/* Issue 9.11: a component file has the same size limit as a rules file: a
 * faction sheet that is an endless stream (/dev/zero) or a file past the
 * size limit is an error naming the file, not an out-of-memory abort. */
static void endless_component_is_an_error(void **state) {
  (void)state;
  char dir[] = "/tmp/mentat-endless.XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[256], cmd[600];
  snprintf(cmd, sizeof cmd, "mkdir -p %s/rules %s/factions && cp tests/fixtures/race/rules/*.yaml %s/rules/ && "
                            "ln -s /dev/zero %s/factions/endless.yaml", dir, dir, dir, dir);
  assert_int_equal(system(cmd), 0);
  strbuf out = {0};
  diag *d = diag_new(capture, &out);
  assert_null(data_load_dir(dir, d));
  /* a link out of the pack is never followed (pack.c inside_pack) */
  snprintf(path, sizeof path, "'%s/factions/endless.yaml' is a symbolic link to a file outside the pack ('/dev/zero')", dir);
  assert_non_null(out.s);
  assert_non_null(strstr(out.s, path));
  diag_free(d);
  sb_free(&out);
  /* a regular file past the limit (sparse: no disk used) */
  snprintf(cmd, sizeof cmd, "rm %s/factions/endless.yaml && truncate -s 65M %s/factions/endless.yaml", dir, dir);
  assert_int_equal(system(cmd), 0);
  d = diag_new(capture, &out);
  assert_null(data_load_dir(dir, d));
  snprintf(path, sizeof path, "'%s/factions/endless.yaml' is larger than 64 MiB", dir);
  assert_non_null(strstr(out.s, path));
  diag_free(d);
  sb_free(&out);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal(system(cmd), 0);
}

/* The dump command's exit codes (its output is checked by test_board
 * through the same def; here only usage and I/O paths). */
static int run_dump(const char *a, const char *b, const char *c, const char *d) {
  char buf[4][64];
  char *argv[5] = {NULL};
  const char *in[4] = {a, b, c, d};
  int argc = 0;
  for (int i = 0; i < 4 && in[i]; i++) {
    snprintf(buf[i], sizeof buf[i], "%s", in[i]);
    argv[argc++] = buf[i];
  }
  return dump_main(argc, argv);
}

static void dump_exit_codes(void **state) {
  (void)state;
  assert_int_equal(run_dump("dump", "boards", NULL, NULL), 64);
  assert_int_equal(run_dump("dump", NULL, NULL, NULL), 64);
  assert_int_equal(run_dump("dump", "board", "--rules", "tests/no-such-pack"), 74);
  assert_int_equal(run_dump("dump", "factions", "--rules", "tests/golden"), 74);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(shipped_components_load_clean),
      cmocka_unit_test(expansion_faction_is_data),
      cmocka_unit_test(faction_brings_an_area),
      cmocka_unit_test(attached_area_geometry),
      cmocka_unit_test(additions_extend_the_decks),
      cmocka_unit_test(duplicate_key_has_a_note),
      cmocka_unit_test(missing_pack_is_an_error),
      cmocka_unit_test(endless_component_is_an_error),
      cmocka_unit_test(golden_diagnostics),
      cmocka_unit_test(dump_exit_codes),
  };
  return cmocka_run_group_tests_name("data", tests, NULL, NULL);
}
