/* test_explain.c -- explanations from the loaded rules: every rule of the
 * standard pack can be explained, every supersedes/amends link is reported
 * in both directions, searches find what they should, and why-not answers
 * cite the refusing rule with its facts. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "data.h"
#include "explain.h"
#include "game.h"

static mt_rules *pack;

static void quiet(void *ud, int level, const char *text) {
  (void)ud;
  (void)level;
  fputs(text, stderr);
}

static void quiet_sink(void *ud, diag_level level, const char *text) { quiet(ud, (int)level, text); }

static int load(void **s) {
  (void)s;
  mt_load L = {.components = ".", .message = quiet};
  pack = mt_rules_load(&L);
  return pack ? 0 : -1;
}

static int unload(void **s) {
  (void)s;
  mt_rules_free(pack);
  return 0;
}

static bool json_list_has(const char *json, const char *key, const char *id) {
  char k[64], needle[96];
  snprintf(k, sizeof k, "\"%s\":[", key);
  const char *p = strstr(json, k);
  if (!p) return false;
  const char *end = strchr(p, ']');
  snprintf(needle, sizeof needle, "\"%s\"", id);
  const char *q = strstr(p, needle);
  return q && q < end;
}

static void every_rule_explains_and_links_go_both_ways(void **s) {
  (void)s;
  const program *p = &pack->prog;
  assert_true(p->nrules > 100);
  int links = 0;
  for (int i = 0; i < p->nrules; i++) {
    strbuf b = {0};
    assert_int_equal(explain_rule(pack, p->rules[i].id, false, true, &b), 0);
    assert_non_null(strstr(b.s, "\"defined_at\":"));
    sb_free(&b);
    for (int pass = 0; pass < 2; pass++) {
      const int *v = pass ? p->rules[i].amd : p->rules[i].sup;
      int n = pass ? p->rules[i].namd : p->rules[i].nsup;
      for (int k = 0; k < n; k++) {
        strbuf fwd = {0}, back = {0};
        explain_rule(pack, p->rules[i].id, false, true, &fwd);
        explain_rule(pack, p->rules[v[k]].id, false, true, &back);
        if (!json_list_has(fwd.s, pass ? "amends" : "supersedes", p->rules[v[k]].id) ||
            !json_list_has(back.s, pass ? "amended_by" : "superseded_by", p->rules[i].id))
          fail_msg("link %s -> %s is not reported both ways", p->rules[i].id, p->rules[v[k]].id);
        sb_free(&fwd);
        sb_free(&back);
        links++;
      }
    }
  }
  assert_true(links > 20);
}

static void unknown_rules_get_suggestions(void **s) {
  (void)s;
  strbuf b = {0};
  assert_int_equal(explain_rule(pack, "2.04.055", false, false, &b), -1);
  assert_non_null(strstr(b.s, "did you mean 2.04.05?"));
  sb_free(&b);
}

static void searches(void **s) {
  (void)s;
  strbuf b = {0};
  const char *prefix[] = {"2.04"};
  explain_query(pack, 1, prefix, false, &b);
  assert_non_null(strstr(b.s, "2.04.05"));
  assert_null(strstr(b.s, "2.05.01"));
  sb_free(&b);
  const char *hooks[] = {"hooks", "shipping_cost"};
  explain_query(pack, 2, hooks, false, &b);
  assert_non_null(strstr(b.s, "1.06.03.01"));
  assert_non_null(strstr(b.s, "2.06.06"));
  sb_free(&b);
  const char *faction[] = {"faction", "fremen"};
  explain_query(pack, 2, faction, true, &b);
  assert_non_null(strstr(b.s, "\"2.04.06\""));
  sb_free(&b);
}

static void why_not_cites_rules_and_facts(void **s) {
  (void)s;
  char err[64];
  mt_game *g = mt_game_new(pack, NULL, 0, 1, err, sizeof err);
  assert_non_null(g);
  strbuf out = {0};
  assert_true(game_eval(g, "storm", &(int64_t){0}, &(int){0}, &out));
  sb_free(&out);
  /* the storm over the Great Flat (sector 14) refuses a Fremen send there */
  const program *p = &pack->prog;
  for (int i = 0; i < p->nvars; i++)
    if (!strcmp(p->vars[i].name, "storm")) board_var_set(g->L, g->v.st, p->vars[i].board_var, 0, 0, 14);
  strbuf b = {0};
  assert_int_equal(explain_why(g, "fremen_send fremen the_great_flat 14 3", true, &b), 0);
  assert_non_null(strstr(b.s, "\"legal\":false"));
  assert_non_null(strstr(b.s, "\"1.06.03.04\""));
  assert_non_null(strstr(b.s, "storm_covers(the_great_flat, 14) is true"));
  sb_free(&b);
  assert_int_equal(explain_why(g, "fremen_send fremen carthag 10 3", false, &b), 0);
  assert_non_null(strstr(b.s, "2.04.05"));
  sb_free(&b);
  mt_game_free(g);
}

/* A number asked for is judged against its whole range, not the first answers
 * a listing holds. */
static void why_judges_a_number_in_a_wide_range(void **s) {
  (void)s;
  diag *d = diag_new(quiet_sink, NULL);
  board_def *def = data_load_dir("tests/fixtures/race", d);
  assert_non_null(def);
  const char *names[] = {"t.rules"}, *texts[] = {"game 9 \"t\" { let x = ask red \"how many\" from 0..1000000\n log \"{x}\" }"};
  size_t lens[] = {strlen(texts[0])};
  mt_rules *r = game_rules_compile(def, names, texts, lens, 1, NULL, 0, 0, quiet, NULL);
  assert_non_null(r);
  char err[64];
  mt_game *g = mt_game_new(r, NULL, 0, 1, err, sizeof err);
  assert_int_equal(mt_start(g), MT_WAITING);
  strbuf b = {0};
  assert_int_equal(explain_why(g, "500000", false, &b), 0);
  assert_non_null(strstr(b.s, "500000 is a legal answer"));
  sb_free(&b);
  assert_int_equal(explain_why(g, "1000001", false, &b), 0);
  assert_non_null(strstr(b.s, "1000001 is not a legal answer"));
  sb_free(&b);
  mt_game_free(g);
  mt_rules_free(r);
  board_def_free(def);
  diag_free(d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_rule_explains_and_links_go_both_ways),
      cmocka_unit_test(unknown_rules_get_suggestions),
      cmocka_unit_test(searches),
      cmocka_unit_test(why_not_cites_rules_and_facts),
      cmocka_unit_test(why_judges_a_number_in_a_wide_range),
  };
  return cmocka_run_group_tests_name("explain", tests, load, unload);
}
