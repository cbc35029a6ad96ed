/* test_board_draw.c -- the pictures of a position (board_draw.c) on the base
 * map: the text map's lines and the SVG's shape.  Runs from the repository
 * root (loads rules/ and factions/). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "board_draw.h"
#include "data.h"
#include "diag.h"

static board_def *DEF;
static board_layout *L;
static unsigned char *ST;

/* Harkonnen 3 in Carthag, Atreides 2 in Arrakeen, 6 spice in The Great Flat, the storm in sector 10. */
static int group_setup(void **state) {
  (void)state;
  diag *d = diag_new(diag_sink_file, stderr);
  DEF = data_load_dir(".", d);
  diag_free(d);
  if (!DEF) return -1;
  int f[2] = {board_faction_index(DEF, "atreides"), board_faction_index(DEF, "harkonnen")};
  strbuf err = {0};
  L = board_layout_new(DEF, f, 2, NULL, 0, 0, &err);
  sb_free(&err);
  if (!L) return -1;
  ST = calloc(1, L->size);
  board_state_clear(L, ST);
  int kind = board_kind_index(DEF, "normal");
  board_set_tokens(L, ST, board_section_parse(DEF, "carthag"), 1, kind, 3);
  board_set_tokens(L, ST, board_section_parse(DEF, "arrakeen"), 0, kind, 2);
  board_var_set(L, ST, board_var_index(DEF, "board_spice"), board_section_parse(DEF, "the_great_flat"), 0, 6);
  board_var_set(L, ST, DEF->storm_var, 0, 0, 10);
  return 0;
}

static int group_teardown(void **state) {
  (void)state;
  free(ST);
  board_layout_free(L);
  board_def_free(DEF);
  return 0;
}

static size_t count(const char *hay, const char *needle) {
  size_t n = 0;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
  return n;
}

static void text_map(void **state) {
  (void)state;
  strbuf o = {0};
  board_draw_text(L, ST, -1, &o);
  assert_non_null(strstr(o.s, "sector 10 (storm): imperial_basin@10, arsunt@10, carthag [harkonnen 3], tsimpo@10"));
  assert_non_null(strstr(o.s, "sector  9: imperial_basin@9, arrakeen [atreides 2], old_gap@9\n"));
  assert_non_null(strstr(o.s, "the_great_flat [board_spice 6]"));
  assert_non_null(strstr(o.s, "centre: polar_sink\n"));
  assert_int_equal(count(o.s, "(storm)"), 1);
  assert_int_equal(count(o.s, "\n"), (size_t)DEF->nsectors + 1); /* a line per sector, one for the centre */
  sb_free(&o);
}

/* A faction's view leaves out section variables that are not public; the base map's are. */
static void text_map_as_a_faction(void **state) {
  (void)state;
  strbuf o = {0};
  board_draw_text(L, ST, board_faction_index(DEF, "atreides"), &o);
  assert_non_null(strstr(o.s, "the_great_flat [board_spice 6]"));
  assert_non_null(strstr(o.s, "carthag [harkonnen 3]"));
  sb_free(&o);
}

static void svg_shape(void **state) {
  (void)state;
  strbuf o = {0};
  board_draw_svg(L, ST, -1, "a <title> & more", &o);
  assert_true(!strncmp(o.s, "<?xml", 5));
  assert_int_equal(count(o.s, "<g class=\"area\""), (size_t)DEF->nareas);
  assert_int_equal(count(o.s, "class=\"storm\""), 1);
  assert_non_null(strstr(o.s, ">HAR 3</text>"));
  assert_non_null(strstr(o.s, ">ATR 2</text>"));
  assert_non_null(strstr(o.s, ">6</text>"));
  assert_non_null(strstr(o.s, "a &lt;title&gt; &amp; more"));
  assert_non_null(strstr(o.s, "Tuek&#39;s Sietch"));
  assert_int_equal(count(o.s, "<svg"), 1);
  assert_string_equal(o.s + o.n - 7, "</svg>\n");
  sb_free(&o);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(text_map),
      cmocka_unit_test(text_map_as_a_faction),
      cmocka_unit_test(svg_shape),
  };
  return cmocka_run_group_tests_name("board_draw", tests, group_setup, group_teardown);
}
