/* test_check.c -- resolver, checker and compiler: the registry, layering,
 * links, variants, names, types and conflicts, with exact diagnostics. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rules_fixture.h"

/* Compiles SRC, expecting failure with exactly DIAG. */
static void rejects(const char *src, const char *diag_text) {
  mt_rules *r = fx_compile(src);
  if (r) {
    mt_rules_free(r);
    fail_msg("compiled, but should fail with:\n%s", diag_text);
  }
  assert_string_equal(fx_diag_text(), diag_text);
}

/* Compiles SRC, expecting DIAG (or nothing) to appear in the messages. */
static void rejects_with(const char *src, const char *needle) {
  mt_rules *r = fx_compile(src);
  mt_rules_free(r);
  assert_null(r);
  if (!strstr(fx_diag_text(), needle)) fail_msg("diagnostics:\n%s\nlack: %s", fx_diag_text(), needle);
}

static mt_rules *accepts(const char *src) {
  mt_rules *r = fx_compile(src);
  if (!r) fail_msg("does not compile:\n%s", fx_diag_text());
  return r;
}

static void unknown_names_suggest(void **s) {
  (void)s;
  rejects("value 1 \"v\" v(f: faction): int = tokens(f, dune)\n",
          "t.rules:1:44: error: unknown name 'dune' (did you mean 'dunes'?)\n"
          "    1 | value 1 \"v\" v(f: faction): int = tokens(f, dune)\n"
          "      |                                            ^~~~\n");
  rejects_with("value 1 \"v\" v(f: faction): int = tokenz(f, dunes)\n", "unknown value or function 'tokenz' (did you mean 'tokens'?)");
  rejects_with("rule 1 \"r\" { after movd(f) { } }\nevent moved(f: faction)\n", "unknown event 'movd' (did you mean 'moved'?)");
  rejects_with("faction redd { }\n", "unknown faction 'redd' (did you mean 'red'?)");
  rejects_with("card nitr { }\n", "unknown card 'nitr' (did you mean 'nitro'?)");
}

static void types_and_arity(void **s) {
  (void)s;
  rejects_with("value 1 \"v\" v(f: faction): int = f\n", "'v' is int, but this definition gives faction");
  rejects_with("value 1 \"v\" v(f: faction): bool = f + 1 > 0\n", "arithmetic needs integers, found faction and int");
  rejects_with("value 1 \"v\" v(f: faction): int = tokens(f)\n", "tokens takes 2 arguments, 1 given");
  rejects_with("value 1 \"v\" v(f: faction): int = tokens(dunes, f)\n", "argument 1 of tokens must be faction, found territory");
  rejects_with("game 1 \"g\" { if 3 { } }\n", "expected bool, found int");
  rejects_with("game 1 \"g\" { let x = {red, dunes} }\n", "set members must all be faction, found territory");
  rejects_with("game 1 \"g\" { let s = sector_add(7, 1) }\n", "sector 7 is out of range (0..3)");
  /* values of one enumeration are ordered as declared; mixing kinds is still an error */
  mt_rules_free(accepts("value 1 \"v\" v(f: faction): int = count([g in factions where g < f and f >= none])\n"));
  rejects_with("value 1 \"v\" v(f: faction): bool = f < 1\n", "'<' compares integers or values of one enumeration, not faction and int");
  rejects_with("value 1 \"v\" v(f: faction): bool = f <= dunes\n", "'<=' compares integers or values of one enumeration");
  rejects_with("value 1 \"v\" v(): int = min_by(i in 1..3: i)\n", "min_by picks a member of a set or pile");
  rejects_with("value 1 \"v\" v(): faction = max_by(f in factions: f)\n", "expected int, found faction");
  /* computed initial values: pure, typed, only without indices */
  rejects_with("var v(f: faction): int = count(factions)\n", "a variable with indices starts at a constant");
  rejects_with("var v: int = {red}\n", "v holds int, not set of faction");
  rejects_with("var v: int = random(3)\n", "has an effect and cannot be used");
  /* computed in declaration order: reading a later (or the same) computed one is refused */
  rejects_with("var a: int = b + 1\nvar b: int = count(factions)\n", "the initial value of 'a' reads 'b', which is computed after it: declare 'b' first");
  rejects_with("var a: int = a + 1\n", "reads 'a', which is computed by this very expression");
  mt_rules_free(accepts("var b: int = count(factions)\nvar a: int = b + total(fuel)\nvar c: int = a\n"));
  /* total(NAME) sums an integer variable over all its indices */
  mt_rules_free(accepts("var w(t: territory, s: sector): int = 0\nvalue 1 \"v\" v(): int = total(fuel) + total(w)\n"));
  rejects_with("value 1 \"v\" v(): int = total(fule)\n", "unknown integer variable 'fule' (did you mean 'fuel'?)");
  rejects_with("value 1 \"v\" v(): int = total(3)\n", "total takes the name of an integer variable: total(NAME)");
  rejects_with("value 1 \"v\" v(): int = total(fuel, fuel)\n", "total takes the name of an integer variable");
  rejects_with("var seen: set of faction = {}\nvalue 1 \"v\" v(): int = total(seen)\n", "total sums an integer variable; 'seen' holds set of faction");
}

static void effects_only_where_allowed(void **s) {
  (void)s;
  rejects_with("value 1 \"v\" v(f: faction): int = random(3)\n", "random has an effect and cannot be used in a value");
  rejects_with("value 1 \"v\" v(f: faction): int = ask f \"x\" from 1..2\n", "ask has an effect");
  rejects_with("action 1 \"a\" a(f: faction) { require random(2) == 1 }\n", "random has an effect");
  rejects_with("game 1 \"g\" { break }\n", "'break' outside a loop");
  rejects_with("action 1 \"a\" a(f: faction) { is t\n effect { } }\n"
               "value 2 \"v\" v(f: faction): bool = can(f: any t)\n", "can judges actions' guards and cannot be used in a value");
  rejects_with("action 1 \"a\" a(f: faction) { is trick\n effect { } }\n"
               "game 2 \"g\" { act red: any tricks }\n", "unknown kind of action 'tricks' (did you mean 'trick'?)");
}

static void registry_and_links(void **s) {
  (void)s;
  rejects("rule 1.01 \"a\" { }\nrule 1.01 \"b\" { }\n",
          "t.rules:2:6: error: rule 1.01 is defined twice\n"
          "    2 | rule 1.01 \"b\" { }\n"
          "      |      ^~~~\n"
          "t.rules:1:6: note: first defined here\n"
          "    1 | rule 1.01 \"a\" { }\n"
          "      |      ^~~~\n");
  rejects_with("rule 1.01 \"a\" supersedes 1.02 { }\nrule 1.03 \"b\" { }\n", "rule 1.01 supersedes unknown rule 1.02");
  rejects_with("rule 1.01 \"a\" supersedes 1.01 { }\n", "rule 1.01 supersedes itself");
  rejects_with("rule 1.01 \"a\" supersedes 1.02 { }\nrule 1.02 \"b\" supersedes 1.03 { }\nrule 1.03 \"c\" supersedes 1.01 { }\n",
               "supersedes cycle");
  rejects_with("rule 1.01 \"a\" amends 1.09 { }\nrule 1.08 \"b\" { }\n", "rule 1.01 amends unknown rule 1.09");
  /* an optional target (`ID?`: another pack's rule) is dropped when absent, kept when present */
  mt_rules *o = accepts("rule 1.01 \"a\" supersedes 1.02, 1.09? amends 1.08? { }\nrule 1.02 \"b\" { }\n");
  assert_int_equal(o->prog.rules[0].nsup, 1);
  assert_int_equal(o->prog.rules[0].namd, 0);
  mt_rules_free(o);
  o = accepts("value 1.02 \"b\" v(f: faction): int = 1\n"
              "faction red { ability 2.1 \"r\" supersedes 1.02 { value v(f) = 2 } }\n"
              "rule 1.01 \"a\" supersedes 1.02, 2.1? { value v(f) = 3 }\n");
  int a = -1, b = -1;
  for (int i = 0; i < o->prog.nrules; i++) {
    if (!strcmp(o->prog.rules[i].id, "1.01")) a = i;
    if (!strcmp(o->prog.rules[i].id, "2.1")) b = i;
  }
  assert_true(a >= 0 && b >= 0);
  assert_int_equal(o->prog.rules[a].nsup, 2);
  /* the present optional target is superseded: the base-level rule's definition goes first */
  assert_string_equal(o->prog.rules[o->prog.values[0].defs[0].rule].id, "1.01");
  mt_rules_free(o);
  rejects_with("rule 1.01 \"a\" supersedes 1.01? { }\n", "rule 1.01 supersedes itself");
  rejects_with("rule 1.01 \"n\" note { log \"x\" }\n", "rule 1.01 is a note");
  rejects_with("rule 1.01 \"n\" basic advanced { }\n", "tagged both basic and advanced");
}

static void precedence_rules(void **s) {
  (void)s;
  /* an override must say what it supersedes */
  rejects_with("value 1.1 \"v\" v(f: faction): int = 1\nfaction red { ability 2.1 \"a\" { value v(red) = 2 } }\n",
               "rule 2.1 redefines value 'v' (declared by rule 1.1) but does not say 'supersedes 1.1'");
  /* two faction abilities superseding the same value for overlapping cases */
  rejects_with("value 1.1 \"v\" v(f: faction): int = 1\n"
               "faction red { ability 2.1 \"a\" supersedes 1.1 { value v(f) = 2 } }\n"
               "faction blue { ability 2.2 \"b\" supersedes 1.1 { value v(f) = 3 } }\n",
               "conflict: rules 2.1 and 2.2 (both at the faction ability level) define 'v' for overlapping cases");
  /* disjoint cases are fine, and each wins for its own faction */
  mt_rules *r = accepts("value 1.1 \"v\" v(f: faction): int = 1\n"
                        "faction red { ability 2.1 \"a\" supersedes 1.1 { value v(red) = 2 } }\n"
                        "faction blue { ability 2.2 \"b\" supersedes 1.1 { value v(blue) = 3 } }\n"
                        "card nitro { rule 3.1 \"c\" supersedes 2.1 { value v(red) = 4 } }\n");
  /* order of definitions: the card's first, then the abilities, then the base rule */
  const value_rec *v = &r->prog.values[0];
  assert_int_equal(v->ndefs, 4);
  assert_string_equal(r->prog.rules[v->defs[0].rule].id, "3.1");
  assert_string_equal(r->prog.rules[v->defs[3].rule].id, "1.1");
  mt_rules_free(r);
  /* replacing an event's handling needs supersedes */
  rejects_with("event e(n: int)\nrule 1.1 \"on\" { on e(n) { } }\nrule 1.2 \"x\" { instead of e(n) { } }\n",
               "rule 1.2 replaces the handling of 'e' (instead of) but does not say 'supersedes 1.1'");
  rejects_with("rule 1.1 \"k\" karama sideways { }\n", "karama window must be 'before', 'after' or 'both'");
  rejects_with("rule 1.1 \"plain\" { }\ngame 2 \"g\" { cancel 1.1 for turn }\n", "rule 1.1 is not karama-tagged");
}

static void variants_apply(void **s) {
  (void)s;
  const char *src = "value 1.1 \"v\" v(): int = 1\nrule 1.2 \"r\" { }\n"
                    "variant house \"h\" { replace 1.1 { value v(): int = 2 }\n disable 1.2\n"
                    "  rule house.1 \"new\" { } }\n";
  const char *names[] = {"t.rules"};
  const char *texts[] = {src};
  size_t lens[] = {strlen(src)};
  const char *variants[] = {"house"};
  sb_free(&fx_diag);
  mt_rules *r = game_rules_compile(fx_def, names, texts, lens, 1, variants, 1, 0, fx_message, NULL);
  if (!r) fail_msg("%s", fx_diag_text());
  int k = sema_find_rule(&r->prog, "1.1");
  assert_true(r->prog.rules[k].replaced);
  assert_true(r->prog.rules[sema_find_rule(&r->prog, "1.2")].disabled);
  assert_int_equal(r->prog.rules[sema_find_rule(&r->prog, "house.1")].level, LEVEL_VARIANT);
  mt_rules_free(r);
  const char *bad[] = {"nosuch"};
  r = game_rules_compile(fx_def, names, texts, lens, 1, bad, 1, 0, fx_message, NULL);
  assert_null(r);
  assert_non_null(strstr(fx_diag_text(), "unknown variant 'nosuch'"));
  /* advanced rules are out of a basic game */
  r = accepts("value 1.1 \"v\" v(): int = 1\nrule 1.2 \"a\" advanced supersedes 1.1 { value v() = 2 }\n");
  assert_true(r->prog.rules[1].disabled);
  mt_rules_free(r);
  /* a variant that extends the Advanced game (directly or through another) brings it */
  const char *adv = "value 1.1 \"v\" v(): int = 1\nrule 1.2 \"a\" advanced supersedes 1.1 { value v() = 2 }\n"
                    "variant cup \"c\" extends advanced { rule cup.1 \"n\" note { } }\n"
                    "variant final \"f\" extends cup { rule final.1 \"n\" note { } }\n";
  const char *atexts[] = {adv};
  size_t alens[] = {strlen(adv)};
  const char *fin[] = {"final"};
  sb_free(&fx_diag);
  r = game_rules_compile(fx_def, names, atexts, alens, 1, fin, 1, 0, fx_message, NULL);
  if (!r) fail_msg("%s", fx_diag_text());
  assert_true(r->advanced);
  assert_false(r->prog.rules[sema_find_rule(&r->prog, "1.2")].disabled);
  mt_rules_free(r);
  const char *cup_only[] = {"cup"};
  r = game_rules_compile(fx_def, names, atexts, alens, 1, cup_only, 1, 0, fx_message, NULL);
  assert_non_null(r);
  assert_true(r->advanced);
  mt_rules_free(r);
  r = game_rules_compile(fx_def, names, atexts, alens, 1, cup_only, 0, 0, fx_message, NULL); /* no variant: Basic */
  assert_non_null(r);
  assert_false(r->advanced);
  assert_true(r->prog.rules[sema_find_rule(&r->prog, "1.2")].disabled);
  mt_rules_free(r);
}

/* Compiles SRC with VARIANTS applied; the rule set, or NULL (diagnostics in fx_diag). */
static mt_rules *with_variants(const char *src, const char *const *variants, int n) {
  const char *names[] = {"t.rules"};
  const char *texts[] = {src};
  size_t lens[] = {strlen(src)};
  sb_free(&fx_diag);
  return game_rules_compile(fx_def, names, texts, lens, 1, variants, n, 0, fx_message, NULL);
}

/* Two variants changing one rule at the variant level: a conflict naming both,
 * unless one extends the other. */
static void variants_conflict(void **s) {
  (void)s;
  const char *src = "value 1.1 \"v\" v(): int = 1\n"
                    "variant a \"A\" { rule a.1 \"A's\" supersedes 1.1 { value v() = 2 } }\n"
                    "variant b \"B\" { replace 1.1 { value v(): int = 3 } }\n"
                    "variant c \"C\" { disable 1.1 }\n"
                    "variant d \"D\" extends b { replace 1.1 { value v(): int = 4 } }\n"
                    "variant e \"E\" { replace 1.1 { value v(): int = 5 } }\n";
  const char *ab[] = {"a", "b"}, *bc[] = {"b", "c"}, *ac[] = {"a", "c"}, *be[] = {"b", "e"}, *bd[] = {"b", "d"};
  assert_null(with_variants(src, ab, 2));
  assert_string_equal(fx_diag_text(),
      "t.rules:2:43: error: conflict: rule 1.1 is changed twice at the variant level: rule a.1 of variant 'a' "
      "supersedes it, and variant 'b' replaces it; neither variant extends the other, so one would silently win\n"
      "    2 | variant a \"A\" { rule a.1 \"A's\" supersedes 1.1 { value v() = 2 } }\n"
      "      |                                           ^~~\n"
      "t.rules:3:25: note: variant 'b' replaces it here\n"
      "    3 | variant b \"B\" { replace 1.1 { value v(): int = 3 } }\n"
      "      |                         ^~~\n");
  assert_null(with_variants(src, bc, 2));
  assert_non_null(strstr(fx_diag_text(), "variant 'c' disables it, and variant 'b' replaces it"));
  assert_null(with_variants(src, ac, 2));
  assert_non_null(strstr(fx_diag_text(), "rule a.1 of variant 'a' supersedes it, and variant 'c' disables it"));
  assert_null(with_variants(src, be, 2));
  assert_non_null(strstr(fx_diag_text(), "variant 'e' replaces it, and variant 'b' replaces it"));
  mt_rules *r = with_variants(src, bd, 2); /* d extends b: it overrides b on purpose */
  if (!r) fail_msg("%s", fx_diag_text());
  mt_rules_free(r);
  const char *one[] = {"a"};
  r = with_variants(src, one, 1);
  if (!r) fail_msg("%s", fx_diag_text());
  mt_rules_free(r);
}

/* mt_load.against_pack: FILEs on top of the pack's own rules, their variants applied. */
static void files_against_the_pack(void **s) {
  (void)s;
  const char *files[] = {"tests/fixtures/house/race-dash.rules"};
  mt_load L = {.components = "tests/fixtures/race", .message = fx_message, .files = files, .nfiles = 1};
  sb_free(&fx_diag);
  mt_rules *r = mt_rules_load(&L); /* alone: the file's variant is not applied, the pack's rules not loaded */
  if (!r) fail_msg("%s", fx_diag_text());
  assert_true(sema_find_rule(&r->prog, "1.03") < 0);
  mt_rules_free(r);
  L.against_pack = 1;
  sb_free(&fx_diag);
  r = mt_rules_load(&L);
  if (!r) fail_msg("%s", fx_diag_text());
  assert_true(r->prog.rules[sema_find_rule(&r->prog, "1.03")].replaced);
  assert_string_equal(r->prog.rules[sema_find_rule(&r->prog, "1.03")].replaced_by, "dash");
  mt_rules_free(r);
  const char *pack_file[] = {"tests/fixtures/race/rules/race.rules"}; /* loaded once, not twice */
  L.files = pack_file;
  sb_free(&fx_diag);
  r = mt_rules_load(&L);
  if (!r) fail_msg("%s", fx_diag_text());
  mt_rules_free(r);
}

static void many_errors_in_one_run(void **s) {
  (void)s;
  mt_rules *r = fx_compile("value 1 \"a\" a(): int = nope\nvalue 2 \"b\" b(): bool = 3\ngame 3 \"c\" { run nowhere }\n");
  assert_null(r);
  const char *t = fx_diag_text();
  int n = 0;
  for (const char *q = t; (q = strstr(q, ": error: ")); q++) n++;
  assert_int_equal(n, 3);
}

static void the_test_game_and_its_variant(void **s) {
  (void)s;
  mt_load L = {.components = "tests/fixtures/race", .message = fx_message};
  sb_free(&fx_diag);
  mt_rules *r = mt_rules_load(&L);
  if (!r) fail_msg("%s", fx_diag_text());
  char *text = NULL;
  assert_int_equal(mt_rules_disasm(r, "2.01", &text), 0);
  assert_non_null(strstr(text, "value speed in rule 2.01"));
  free(text);
  mt_rules_free(r);
  const char *v[] = {"sprint"};
  L.variants = v;
  L.nvariants = 1;
  r = mt_rules_load(&L);
  assert_non_null(r);
  assert_true(r->prog.rules[sema_find_rule(&r->prog, "1.03")].replaced);
  mt_rules_free(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(unknown_names_suggest),
      cmocka_unit_test(types_and_arity),
      cmocka_unit_test(effects_only_where_allowed),
      cmocka_unit_test(registry_and_links),
      cmocka_unit_test(precedence_rules),
      cmocka_unit_test(variants_apply),
      cmocka_unit_test(variants_conflict),
      cmocka_unit_test(files_against_the_pack),
      cmocka_unit_test(many_errors_in_one_run),
      cmocka_unit_test(the_test_game_and_its_variant),
  };
  return cmocka_run_group_tests_name("check", tests, fx_load, fx_unload);
}
