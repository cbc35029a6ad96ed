/* test_ruleset_report.c -- `mentat diff` and `mentat graph` (ruleset_report.c)
 * on small rule sets compiled against the test game's components: the order
 * of the phase groups (setup first, 1.9 before 1.10, unnumbered last), which
 * variant disabled what, nested rules going with their parent, an ability
 * placed in the phase that signals its trigger's event, and DOT that
 * escapes quotes and backslashes in titles. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rules_fixture.h"
#include "ruleset_report.h"

static const char base_src[] =
    "value 1.9 \"Nine\" nine(): int = 9\n"
    "value 1.10 \"Ten\" ten(): int = 10\n"
    "rule 0.02 \"Setup two\" { }\n"
    "event lap(n: int)\n"
    "phase 1.12 \"Laps\" laps { signal lap(1) }\n"
    "rule 1.11 \"Eleven\" {\n"
    "  rule 1.11.01 \"Eleven one\" { }\n"
    "}\n"
    "variant base \"Base of v\" {\n"
    "  disable 0.02\n"
    "}\n"
    "variant v \"V\" extends base {\n"
    "  disable 1.11\n"
    "  replace 1.10 { value ten(): int = 100 }\n"
    "  rule v.1 \"Nine again\" supersedes 1.9 { value nine() = 1 }\n"
    "  rule v.2 \"A \\\"quoted\\\" \\\\ title\" amends 1.10 { }\n"
    "  rule v.3 \"Free\" { }\n"
    "  faction red \"Red\" {\n"
    "    ability v.4 \"Red cheers each lap\" { after lap(n) { log \"cheers\" } }\n"
    "  }\n"
    "}\n";

static mt_rules *compile_with(const char *const *variants, int n) {
  sb_free(&fx_diag);
  const char *names[] = {"t.rules"};
  const char *texts[] = {base_src};
  size_t lens[] = {strlen(base_src)};
  mt_rules *r = game_rules_compile(fx_def, names, texts, lens, 1, variants, n, 0, fx_message, NULL);
  if (!r) fprintf(stderr, "%s", fx_diag_text());
  return r;
}

static void diff_groups_and_who_disabled(void **state) {
  (void)state;
  const char *v[] = {"v"};
  mt_rules *base = fx_compile(base_src), *with = compile_with(v, 1);
  assert_non_null(base);
  assert_non_null(with);
  strbuf out = {0};
  assert_int_equal(rules_report_diff(base, with, false, &out), 0);
  const char *want =
      "base: the rule files given, basic ruleset, without variants\n"
      "variants: v\n"
      "10 changes: 4 added, 1 replaced, 3 disabled, 1 superseded, 1 amended\n"
      "\n"
      "0 Setup\n"
      "  disabled    0.02  Setup two  [variant base]\n"
      "\n"
      "1.9 Nine\n"
      "  added       v.1  Nine again  [variant v]\n"
      "  superseded  1.9  Nine\n"
      "              by v.1  Nine again  [variant v]\n"
      "\n"
      "1.10 Ten\n"
      "  replaced    1.10  Ten  [variant v]\n"
      "  added       v.2  A \"quoted\" \\ title  [variant v]\n"
      "  amended     1.10  Ten\n"
      "              by v.2  A \"quoted\" \\ title  [variant v]\n"
      "\n"
      "1.11 Eleven\n"
      "  disabled    1.11  Eleven  [variant v]\n"
      "  disabled    1.11.01  Eleven one  [variant v; with 1.11]\n"
      "\n"
      "1.12 Laps\n"
      "  added       v.4  Red cheers each lap  [variant v]\n"
      "\n"
      "Other rules\n"
      "  added       v.3  Free  [variant v]\n";
  assert_string_equal(out.s, want);
  sb_free(&out);
  /* JSON: the nested rule's target is the rule the variant disabled */
  assert_int_equal(rules_report_diff(base, with, true, &out), 0);
  assert_non_null(strstr(out.s, "{\"kind\":\"disabled\",\"rule\":\"1.11.01\",\"title\":\"Eleven one\",\"target\":\"1.11\","
                                "\"target_title\":\"Eleven\",\"phase\":\"1.11 Eleven\",\"variant\":\"v\",\"in_force\":false}"));
  assert_non_null(strstr(out.s, "\"title\":\"A \\\"quoted\\\" \\\\ title\""));
  sb_free(&out);
  /* no variants: nothing to compare */
  assert_int_equal(rules_report_diff(base, base, false, &out), 0);
  assert_non_null(strstr(out.s, "no variant given: nothing to compare"));
  sb_free(&out);
  mt_rules_free(base);
  mt_rules_free(with);
}

static void graph_escapes_and_selects(void **state) {
  (void)state;
  const char *v[] = {"v"};
  mt_rules *with = compile_with(v, 1);
  assert_non_null(with);
  strbuf out = {0};
  assert_int_equal(rules_report_graph(with, NULL, "v.2", &out), 0);
  assert_non_null(strstr(out.s, "  \"v.2\" [label=\"v.2\\nA \\\"quoted\\\" \\\\ title\\n[variant]\""));
  assert_non_null(strstr(out.s, "  \"v.2\" -> \"1.10\" [label=\"amends\""));
  assert_null(strstr(out.s, "\"v.1\"")); /* not a neighbour */
  sb_free(&out);
  assert_int_equal(rules_report_graph(with, "1.11", NULL, &out), 0);
  assert_non_null(strstr(out.s, "  \"1.11\" -> \"1.11.01\" [label=\"contains\""));
  assert_non_null(strstr(out.s, "[not in force]"));
  sb_free(&out);
  assert_int_equal(rules_report_graph(with, NULL, "v.9", &out), -1);
  assert_string_equal(out.s, "no rule v.9 in the loaded rules (did you mean 1.9?)");
  sb_free(&out);
  mt_rules_free(with);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(diff_groups_and_who_disabled),
      cmocka_unit_test(graph_escapes_and_selects),
  };
  return cmocka_run_group_tests_name("ruleset_report", tests, fx_load, fx_unload);
}
