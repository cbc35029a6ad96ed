/* test_board.c -- the board model against the reference map: territories,
 * borders, sectors, spice-blow sites, distances and reachability under the
 * storm.  Runs from the repository root (loads rules/ and factions/). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "data.h"
#include "diag.h"

/* Generated from the reference fact sheet (../shared/reference/dune-data.yaml):
 * id, type, sectors, territory-level borders, spice-blow sector:amount. */
static const struct ref_territory {
  const char *id, *type, *sectors, *borders, *blow;
} REF[] = {
    {"polar_sink", "polar_sink", "",
     "arsunt cielago_north false_wall_east hagga_basin harg_pass imperial_basin wind_pass wind_pass_north", ""},
    {"imperial_basin", "sand", "8 9 10",
     "arrakeen arsunt carthag false_wall_east hole_in_the_rock old_gap polar_sink rim_wall_west shield_wall tsimpo", ""},
    {"carthag", "stronghold", "10",
     "arsunt hagga_basin imperial_basin tsimpo", ""},
    {"arrakeen", "stronghold", "9",
     "imperial_basin old_gap rim_wall_west", ""},
    {"tueks_sietch", "stronghold", "4",
     "false_wall_south pasty_mesa south_mesa", ""},
    {"sietch_tabr", "stronghold", "13",
     "bight_of_the_cliff plastic_basin rock_outcroppings", ""},
    {"habbanya_sietch", "stronghold", "16",
     "habbanya_ridge_flat", ""},
    {"cielago_north", "sand", "0 1 2",
     "cielago_depression cielago_east cielago_west false_wall_south harg_pass polar_sink wind_pass_north", "2:8"},
    {"cielago_depression", "sand", "0 1 2",
     "cielago_east cielago_north cielago_south cielago_west meridian", ""},
    {"meridian", "sand", "0 1",
     "cielago_depression cielago_south cielago_west habbanya_ridge_flat", ""},
    {"cielago_south", "sand", "1 2",
     "cielago_depression cielago_east meridian", "1:12"},
    {"cielago_east", "sand", "2 3",
     "cielago_depression cielago_north cielago_south false_wall_south south_mesa", ""},
    {"harg_pass", "sand", "3 4",
     "cielago_north false_wall_east false_wall_south polar_sink the_minor_erg", ""},
    {"false_wall_south", "rock", "3 4",
     "cielago_east cielago_north harg_pass pasty_mesa south_mesa the_minor_erg tueks_sietch", ""},
    {"false_wall_east", "rock", "4 5 6 7 8",
     "harg_pass imperial_basin polar_sink shield_wall the_minor_erg", ""},
    {"the_minor_erg", "sand", "4 5 6 7",
     "false_wall_east false_wall_south harg_pass pasty_mesa shield_wall", "7:8"},
    {"pasty_mesa", "rock", "4 5 6 7",
     "false_wall_south gara_kulon red_chasm shield_wall south_mesa the_minor_erg tueks_sietch", ""},
    {"red_chasm", "sand", "6",
     "pasty_mesa south_mesa", "6:8"},
    {"south_mesa", "sand", "3 4 5",
     "cielago_east false_wall_south pasty_mesa red_chasm tueks_sietch", "4:10"},
    {"basin", "sand", "8",
     "hole_in_the_rock old_gap rim_wall_west sihaya_ridge", ""},
    {"rim_wall_west", "rock", "8",
     "arrakeen basin hole_in_the_rock imperial_basin old_gap", ""},
    {"hole_in_the_rock", "sand", "8",
     "basin imperial_basin rim_wall_west shield_wall sihaya_ridge", ""},
    {"sihaya_ridge", "sand", "8",
     "basin gara_kulon hole_in_the_rock shield_wall", "8:6"},
    {"shield_wall", "rock", "7 8",
     "false_wall_east gara_kulon hole_in_the_rock imperial_basin pasty_mesa sihaya_ridge the_minor_erg", ""},
    {"gara_kulon", "sand", "7",
     "pasty_mesa shield_wall sihaya_ridge", ""},
    {"old_gap", "sand", "8 9 10",
     "arrakeen basin broken_land imperial_basin rim_wall_west tsimpo", "9:6"},
    {"broken_land", "sand", "10 11",
     "old_gap plastic_basin rock_outcroppings tsimpo", "11:8"},
    {"tsimpo", "sand", "10 11 12",
     "broken_land carthag hagga_basin imperial_basin old_gap plastic_basin", ""},
    {"arsunt", "sand", "10 11",
     "carthag hagga_basin imperial_basin polar_sink", ""},
    {"rock_outcroppings", "sand", "12 13",
     "bight_of_the_cliff broken_land plastic_basin sietch_tabr", "13:6"},
    {"plastic_basin", "rock", "11 12 13",
     "bight_of_the_cliff broken_land funeral_plain hagga_basin rock_outcroppings sietch_tabr the_great_flat tsimpo wind_pass", ""},
    {"hagga_basin", "sand", "11 12",
     "arsunt carthag plastic_basin polar_sink tsimpo wind_pass", "12:6"},
    {"bight_of_the_cliff", "sand", "13 14",
     "funeral_plain plastic_basin rock_outcroppings sietch_tabr", ""},
    {"funeral_plain", "sand", "14",
     "bight_of_the_cliff plastic_basin the_great_flat", "14:6"},
    {"the_great_flat", "sand", "14",
     "funeral_plain plastic_basin the_greater_flat wind_pass", "14:10"},
    {"wind_pass", "sand", "13 14 15 16",
     "cielago_west false_wall_west hagga_basin plastic_basin polar_sink the_great_flat the_greater_flat wind_pass_north", ""},
    {"the_greater_flat", "sand", "15",
     "false_wall_west habbanya_erg the_great_flat wind_pass", ""},
    {"habbanya_erg", "sand", "15 16",
     "false_wall_west habbanya_ridge_flat the_greater_flat", "15:8"},
    {"false_wall_west", "rock", "15 16 17",
     "cielago_west habbanya_erg habbanya_ridge_flat the_greater_flat wind_pass", ""},
    {"wind_pass_north", "sand", "16 17",
     "cielago_north cielago_west polar_sink wind_pass", "16:6"},
    {"habbanya_ridge_flat", "sand", "16 17",
     "cielago_west false_wall_west habbanya_erg habbanya_sietch meridian", "17:10"},
    {"cielago_west", "sand", "17 0",
     "cielago_depression cielago_north false_wall_west habbanya_ridge_flat meridian wind_pass wind_pass_north", ""},
};

/* Each sector's territories (sorted), sector 0 first. */
static const char *const REF_SECTORS[18] = {
    "cielago_depression cielago_north cielago_west meridian",
    "cielago_depression cielago_north cielago_south meridian",
    "cielago_depression cielago_east cielago_north cielago_south",
    "cielago_east false_wall_south harg_pass south_mesa",
    "false_wall_east false_wall_south harg_pass pasty_mesa south_mesa the_minor_erg tueks_sietch",
    "false_wall_east pasty_mesa south_mesa the_minor_erg",
    "false_wall_east pasty_mesa red_chasm the_minor_erg",
    "false_wall_east gara_kulon pasty_mesa shield_wall the_minor_erg",
    "basin false_wall_east hole_in_the_rock imperial_basin old_gap rim_wall_west shield_wall sihaya_ridge",
    "arrakeen imperial_basin old_gap",
    "arsunt broken_land carthag imperial_basin old_gap tsimpo",
    "arsunt broken_land hagga_basin plastic_basin tsimpo",
    "hagga_basin plastic_basin rock_outcroppings tsimpo",
    "bight_of_the_cliff plastic_basin rock_outcroppings sietch_tabr wind_pass",
    "bight_of_the_cliff funeral_plain the_great_flat wind_pass",
    "false_wall_west habbanya_erg the_greater_flat wind_pass",
    "false_wall_west habbanya_erg habbanya_ridge_flat habbanya_sietch wind_pass wind_pass_north",
    "cielago_west false_wall_west habbanya_ridge_flat wind_pass_north",
};

static board_def *DEF;

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

static int A(const char *id) {
  int a = board_area_index(DEF, id);
  if (a < 0) fail_msg("no territory '%s'", id);
  return a;
}

static int S(const char *ref) {
  int s = board_section_parse(DEF, ref);
  if (s < 0) fail_msg("no section '%s'", ref);
  return s;
}

/* Area set from a space-separated list of ids. */
static uint64_t set_of(const char *list) {
  uint64_t m = 0;
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", list);
  for (char *t = strtok(buf, " "); t; t = strtok(NULL, " ")) m |= 1ull << A(t);
  return m;
}

static void set_names(uint64_t m, char *buf, size_t n) {
  size_t k = 0;
  buf[0] = 0;
  for (int a = 0; a < DEF->nareas; a++)
    if ((m >> a) & 1u) k += (size_t)snprintf(buf + k, k < n ? n - k : 0, "%s%s", k ? " " : "", DEF->areas[a].id);
}

#define assert_set(got, want)                                                    \
  do {                                                                           \
    uint64_t g_ = (got), w_ = set_of(want);                                      \
    if (g_ != w_) {                                                              \
      char b1_[2048], b2_[2048];                                                 \
      set_names(g_, b1_, sizeof b1_);                                            \
      set_names(w_, b2_, sizeof b2_);                                            \
      fail_msg("got {%s}\n want {%s}", b1_, b2_);                                \
    }                                                                            \
  } while (0)

static int popcount64(uint64_t m) {
  int n = 0;
  for (; m; m &= m - 1) n++;
  return n;
}

static void map_counts(void **state) {
  (void)state;
  assert_int_equal(DEF->nsectors, 18);
  assert_int_equal(DEF->nareas, 42);
  assert_int_equal(DEF->nsections, 86); /* 85 sections in sectors + the Polar Sink */
  assert_int_equal(popcount64(board_areas_with_tag(DEF, board_tag_index(DEF, "stronghold"))), 5);
  assert_int_equal(popcount64(board_areas_with_tag(DEF, board_tag_index(DEF, "rock"))), 7);
  assert_int_equal(popcount64(board_areas_with_tag(DEF, board_tag_index(DEF, "sand"))), 29);
  assert_set(board_areas_with_tag(DEF, board_tag_index(DEF, "polar_sink")), "polar_sink");
  assert_set(board_areas_with_tag(DEF, board_tag_index(DEF, "stronghold")),
             "arrakeen carthag tueks_sietch sietch_tabr habbanya_sietch");
  int borders = 0;
  for (int a = 0; a < DEF->nareas; a++) borders += popcount64(DEF->areas[a].borders);
  assert_int_equal(borders, 2 * 103);
}

static void territories_match_reference(void **state) {
  (void)state;
  assert_int_equal(sizeof REF / sizeof *REF, 42);
  int blow_sector = board_area_attr_index(DEF, "spice_blow_sector");
  int blow_amount = board_area_attr_index(DEF, "spice_blow_amount");
  assert_true(blow_sector >= 0 && blow_amount >= 0);
  int sites = 0, total = 0;
  for (size_t i = 0; i < sizeof REF / sizeof *REF; i++) {
    int a = A(REF[i].id);
    assert_true(board_area_has_tag(DEF, a, board_tag_index(DEF, REF[i].type)));
    assert_int_equal(popcount64(DEF->areas[a].tags), 1);
    uint32_t secs = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", REF[i].sectors);
    for (char *t = strtok(buf, " "); t; t = strtok(NULL, " ")) secs |= 1u << atoi(t);
    assert_int_equal(DEF->areas[a].sectors, secs);
    assert_set(DEF->areas[a].borders, REF[i].borders);
    if (REF[i].blow[0]) {
      int sec, amt;
      assert_int_equal(sscanf(REF[i].blow, "%d:%d", &sec, &amt), 2);
      assert_int_equal(board_area_attr(DEF, a, blow_sector), sec);
      assert_int_equal(board_area_attr(DEF, a, blow_amount), amt);
    } else {
      assert_int_equal(board_area_attr(DEF, a, blow_amount), 0);
    }
    if (board_area_attr(DEF, a, blow_amount) > 0) {
      sites++;
      total += board_area_attr(DEF, a, blow_amount);
    }
  }
  assert_int_equal(sites, 15);
  assert_int_equal(total, 118);
}

static void sectors_match_reference(void **state) {
  (void)state;
  for (int s = 0; s < 18; s++) {
    uint64_t m = 0;
    for (int a = 0; a < DEF->nareas; a++)
      if ((DEF->areas[a].sectors >> s) & 1u) m |= 1ull << a;
    assert_set(m, REF_SECTORS[s]);
  }
}

static void borders_symmetric_both_levels(void **state) {
  (void)state;
  for (int a = 0; a < DEF->nareas; a++)
    for (int b = 0; b < DEF->nareas; b++) assert_int_equal(board_borders(DEF, a, b), board_borders(DEF, b, a));
  for (int s = 0; s < DEF->nsections; s++)
    for (int k = 0; k < DEF->sections[s].nborders; k++)
      assert_true(board_sections_border(DEF, DEF->sections[s].borders[k], s));
  /* the three corner contacts the reference flags as uncertain are kept */
  assert_true(board_sections_border(DEF, S("arsunt@10"), S("imperial_basin@9")));
  assert_true(board_sections_border(DEF, S("broken_land@10"), S("old_gap@10")));
  assert_true(board_sections_border(DEF, S("cielago_east@2"), S("false_wall_south@3")));
}

static void storm_protection_attributes(void **state) {
  (void)state;
  int prot = board_area_attr_index(DEF, "storm_protected");
  int by = board_area_attr_index(DEF, "protected_by");
  int safe = board_area_attr_index(DEF, "worm_safe");
  uint64_t protected_m = 0, by_wall = 0, safe_m = 0;
  for (int a = 0; a < DEF->nareas; a++) {
    if (board_area_attr(DEF, a, prot)) protected_m |= 1ull << a;
    if (board_area_attr(DEF, a, by) == A("shield_wall")) by_wall |= 1ull << a;
    if (board_area_attr(DEF, a, safe)) safe_m |= 1ull << a;
  }
  assert_set(by_wall, "imperial_basin arrakeen carthag");
  assert_set(protected_m, "polar_sink imperial_basin arrakeen carthag tueks_sietch sietch_tabr habbanya_sietch "
                          "false_wall_south false_wall_east pasty_mesa shield_wall rim_wall_west plastic_basin "
                          "false_wall_west");
  assert_set(safe_m, "polar_sink arrakeen carthag tueks_sietch sietch_tabr habbanya_sietch false_wall_south "
                     "false_wall_east pasty_mesa shield_wall rim_wall_west plastic_basin false_wall_west");
}

static void fremen_send_zone(void **state) {
  (void)state;
  uint64_t z = board_within(DEF, A("the_great_flat"), 2);
  assert_int_equal(popcount64(z), 16);
  assert_set(z, "bight_of_the_cliff broken_land cielago_west false_wall_west funeral_plain habbanya_erg "
                "hagga_basin plastic_basin polar_sink rock_outcroppings sietch_tabr the_great_flat "
                "the_greater_flat tsimpo wind_pass wind_pass_north");
  assert_set(board_within(DEF, A("shield_wall"), 1),
             "shield_wall false_wall_east the_minor_erg pasty_mesa gara_kulon sihaya_ridge hole_in_the_rock "
             "imperial_basin");
  assert_set(board_within(DEF, A("arrakeen"), 0), "arrakeen");
}

static uint32_t SEC(int s) { return 1u << s; }

static void distances_under_storm(void **state) {
  (void)state;
  /* no storm */
  assert_int_equal(board_distance(DEF, A("arrakeen"), A("carthag"), 0, 0), 2);
  assert_int_equal(board_area_distance(DEF, A("arrakeen"), A("carthag")), 2);
  assert_int_equal(board_distance(DEF, A("the_great_flat"), A("habbanya_sietch"), 0, 0), 4);
  /* Imperial Basin crossed through its unstormed sections 9 and 10 */
  assert_int_equal(board_distance(DEF, A("arrakeen"), A("carthag"), SEC(8), 0), 2);
  /* sector 9 cuts Imperial Basin in two: around through the Polar Sink */
  assert_int_equal(board_distance(DEF, A("rim_wall_west"), A("carthag"), SEC(9), 0), 4);
  assert_int_equal(board_distance(DEF, A("rim_wall_west"), A("carthag"), 0, 0), 2);
  /* a destination wholly in storm cannot be reached */
  assert_int_equal(board_distance(DEF, A("arrakeen"), A("carthag"), SEC(10), 0), -1);
  assert_int_equal(board_distance(DEF, A("the_great_flat"), A("habbanya_sietch"), SEC(15), 0), 6);
  assert_int_equal(board_distance(DEF, A("the_great_flat"), A("habbanya_sietch"), SEC(16), 0), -1);
  /* Cielago North to Cielago South past a storm in sector 1, through sector 2 */
  assert_int_equal(board_distance(DEF, A("cielago_north"), A("cielago_south"), SEC(1), 0), 2);
  assert_int_equal(board_distance(DEF, A("cielago_north"), A("cielago_south"), SEC(1) | SEC(2), 0), -1);
  assert_int_equal(board_distance(DEF, A("sietch_tabr"), A("hagga_basin"), SEC(12), 0), 5);
  assert_int_equal(board_distance(DEF, A("harg_pass"), A("wind_pass"), SEC(0), 0), 2);
  /* an occupancy limit blocks Imperial Basin (entering and passing) */
  assert_int_equal(board_distance(DEF, A("rim_wall_west"), A("carthag"), 0, 1ull << A("imperial_basin")), 3);
  /* from a section: forces in arrakeen@9 under the storm cannot move */
  assert_int_equal(board_section_distance(DEF, S("arrakeen@9"), A("imperial_basin"), SEC(9), 0), -1);
  assert_int_equal(board_section_distance(DEF, S("imperial_basin@8"), A("carthag"), SEC(9), 0), 3);
  assert_int_equal(board_section_distance(DEF, S("imperial_basin@10"), A("carthag"), SEC(9), 0), 1);
}

static void reachable_sets(void **state) {
  (void)state;
  assert_set(board_reachable(DEF, A("arrakeen"), 1, 0, 0), "arrakeen imperial_basin old_gap rim_wall_west");
  assert_set(board_reachable(DEF, A("imperial_basin"), 1, SEC(9), 0),
             "arsunt carthag false_wall_east hole_in_the_rock imperial_basin polar_sink rim_wall_west shield_wall "
             "tsimpo");
  /* a stormed start stays where it is */
  assert_set(board_reachable(DEF, A("arrakeen"), 2, SEC(9), 0), "arrakeen");
  /* several stormed sectors (searched, not precomputed) */
  assert_set(board_reachable(DEF, A("polar_sink"), 1, SEC(10) | SEC(11), 0),
             "cielago_north false_wall_east hagga_basin harg_pass imperial_basin polar_sink wind_pass "
             "wind_pass_north");
  /* precomputed and searched answers agree for every single-sector storm */
  for (int s = -1; s < 18; s++) {
    uint32_t storm = s < 0 ? 0 : SEC(s);
    for (int a = 0; a < DEF->nareas; a++)
      for (int n = 0; n <= 3; n++) {
        uint64_t fast = board_reachable(DEF, a, n, storm, 0);
        /* a blocked set naming an unreachable bit forces the search path */
        uint64_t slow = board_reachable(DEF, a, n, storm, 1ull << 63);
        assert_int_equal(fast, slow);
      }
  }
  /* without storm, reachability equals the territory-level ball */
  for (int a = 0; a < DEF->nareas; a++)
    for (int n = 0; n <= 4; n++) assert_int_equal(board_reachable(DEF, a, n, 0, 0), board_within(DEF, a, n));
}

/* Searches the tables cannot answer (areas blocked, a storm over several
 * sectors) are remembered (board.c memo_bfs): queries drawn from a pool of
 * keys larger than the memo (so entries are both hit and evicted), each
 * answered again with the memo off, must agree: reachability, distances and
 * from a single section. */
static void remembered_searches_agree(void **state) {
  (void)state;
  enum { KEYS = 300, QUERIES = 6000 };
  static uint64_t blocked[KEYS], got[QUERIES];
  static uint32_t storm[KEYS];
  static int area[KEYS];
  uint64_t x = 11, draw[7];
  for (int k = 0; k < KEYS; k++) {
    for (int i = 0; i < 7; i++) draw[i] = (x = x * 6364136223846793005ull + 1442695040888963407ull) >> 33;
    /* few starts and storms, many blocked sets: keys that differ in one part only share slots */
    area[k] = (int)(draw[0] % 4 * 7 % (uint64_t)DEF->nareas);
    storm[k] = (uint32_t)(draw[1] % 3 * 0x3001u & ((1u << DEF->nsectors) - 1)); /* none, or several sectors */
    blocked[k] = draw[2] % 4 ? (draw[3] | draw[4] << 31) & (draw[5] | draw[6] << 31) : 0;
    if (k % 2) blocked[k] &= ~(1ull << area[k]); /* a start blocked or not */
  }
  for (int pass = 0; pass < 2; pass++) {
    uint64_t y = 5;
    struct board_bfs_memo *memo = DEF->bfs_memo;
    if (pass == 1) DEF->bfs_memo = NULL; /* the plain search */
    for (int q = 0; q < QUERIES; q++) {
      y = y * 6364136223846793005ull + 1442695040888963407ull;
      int k = (int)((y >> 33) % KEYS), b = (int)((y >> 20) % (uint64_t)DEF->nareas), m = (int)((y >> 12) % 5);
      int sec = DEF->areas[area[k]].first_section;
      uint64_t r = q % 3 == 0   ? board_reachable(DEF, area[k], m, storm[k], blocked[k])
                   : q % 3 == 1 ? (uint64_t)(int64_t)board_distance(DEF, area[k], b, storm[k], blocked[k])
                                : board_reachable_from_section(DEF, sec, m, storm[k], blocked[k]);
      if (pass == 0) got[q] = r;
      else assert_int_equal(got[q], r);
    }
    DEF->bfs_memo = memo;
  }
}

static void polar_sink_never_in_storm(void **state) {
  (void)state;
  int ps = A("polar_sink");
  assert_int_equal(DEF->areas[ps].nsections, 1);
  assert_int_equal(DEF->sections[DEF->areas[ps].first_section].sector, BOARD_NO_SECTOR);
  for (int s = 0; s < 18; s++) {
    assert_true(board_reachable(DEF, A("arsunt"), 1, SEC(s) | (s == 10 ? 0 : SEC(11)), 0) >> ps & 1u);
    assert_int_equal(board_distance(DEF, ps, ps, SEC(s), 0), 0);
  }
  /* a storm everywhere still leaves the Polar Sink reachable from itself only */
  assert_set(board_reachable(DEF, ps, 5, UINT32_MAX, 0), "polar_sink");
}

static void storm_path(void **state) {
  (void)state;
  assert_int_equal(board_storm_path(DEF, 3, 2), SEC(4) | SEC(5));
  assert_int_equal(board_storm_path(DEF, 16, 3), SEC(17) | SEC(0) | SEC(1));
  assert_int_equal(board_storm_path(DEF, 5, 0), 0);
  assert_int_equal(board_storm_path(DEF, 0, 40), (1u << 18) - 1);
  assert_int_equal(board_storm_path_to(DEF, 16, 1), SEC(17) | SEC(0) | SEC(1));
  assert_int_equal(board_storm_path_to(DEF, 4, 4), 0);
}

static void names_and_sections(void **state) {
  (void)state;
  char buf[64];
  assert_int_equal(board_area_index(DEF, "sietch_tabr"), A("sietch_tabr"));
  assert_int_equal(board_area_index(DEF, "sietch-tabr"), -1);
  assert_int_equal(board_faction_index(DEF, "spacing_guild") >= 0, 1);
  assert_int_equal(board_faction_index(DEF, "guild"), -1);
  assert_string_equal(board_section_name(DEF, S("cielago_west@17"), buf, sizeof buf), "cielago_west@17");
  assert_string_equal(board_section_name(DEF, S("polar_sink"), buf, sizeof buf), "polar_sink");
  assert_int_equal(board_section_parse(DEF, "cielago_west"), -1); /* spans two sectors */
  assert_int_equal(board_section_parse(DEF, "cielago_west@3"), -1);
  assert_int_equal(board_section_parse(DEF, "arrakeen"), S("arrakeen@9"));
  assert_int_equal(board_card_index(DEF, "shield#4") - board_card_index(DEF, "shield"), 3);
  assert_int_equal(board_card_index(DEF, "shield#5"), -1);
  assert_true(board_leader_index(DEF, "feyd_rautha") >= 0);
  assert_true(board_leader_index(DEF, "thufir_hawat") >= 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(map_counts),
      cmocka_unit_test(territories_match_reference),
      cmocka_unit_test(sectors_match_reference),
      cmocka_unit_test(borders_symmetric_both_levels),
      cmocka_unit_test(storm_protection_attributes),
      cmocka_unit_test(fremen_send_zone),
      cmocka_unit_test(distances_under_storm),
      cmocka_unit_test(reachable_sets),
      cmocka_unit_test(remembered_searches_agree),
      cmocka_unit_test(polar_sink_never_in_storm),
      cmocka_unit_test(storm_path),
      cmocka_unit_test(names_and_sections),
  };
  return cmocka_run_group_tests_name("board", tests, group_setup, group_teardown);
}
