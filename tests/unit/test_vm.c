/* test_vm.c -- the VM: every opcode through small programs, runtime errors
 * that name their rule, decisions, refusals, suspension and cloning. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "bots.h"
#include "opcodes.h"
#include "rules_fixture.h"
#include "scratch.h"

static bool op_seen[OP__COUNT];

static void mark_opcodes(const mt_rules *r) {
  const program *p = &r->prog;
  for (uint32_t pc = 0; pc < p->ncode;) {
    uint8_t o = p->code[pc];
    op_seen[o] = true;
    pc += 1 + 4u * (uint32_t)op_table[o].operands;
  }
}

/* Runs SRC's game answering decisions with ANSWERS (';'-separated, then the
 * first legal choice); returns the final status.  Narration in fx_log. */
static int run_src(const char *src, const char *answers, mt_rules **out_rules, mt_game **out_game) {
  mt_rules *r = fx_compile(src);
  if (!r) {
    print_message("%s", fx_diag_text());
    fail_msg("does not compile");
  }
  mark_opcodes(r);
  char err[128];
  const char *fac[] = {"red", "blue", "green"};
  mt_game *g = mt_game_new(r, fac, 3, 7, err, sizeof err);
  assert_non_null(g);
  sb_free(&fx_log);
  mt_game_set_log(g, fx_narrate, NULL);
  int st = mt_start(g);
  char buf[256];
  snprintf(buf, sizeof buf, "%s", answers ? answers : "");
  char *cur = buf;
  while (st == MT_WAITING) {
    mt_choice c;
    char *semi = strchr(cur, ';');
    if (*cur) {
      if (semi) *semi = 0;
      char perr[128];
      assert_int_equal(mt_choice_parse(g, cur, &c, perr, sizeof perr), 0);
      cur = semi ? semi + 1 : cur + strlen(cur);
    } else {
      mt_choice legal[64];
      assert_true(mt_legal(g, legal, 64) > 0);
      c = legal[0];
    }
    mt_explain why;
    st = mt_apply(g, &c, &why);
    if (st < 0) print_message("refused: %s (pending: %s)\n", why.text, mt_pending(g)->prompt);
    assert_true(st >= 0);
  }
  if (out_rules) *out_rules = r;
  if (out_game) *out_game = g;
  if (!out_game) mt_game_free(g);
  if (!out_rules) mt_rules_free(r);
  return st;
}

static void expect_log(const char *src, const char *answers, const char *log) {
  mt_rules *r;
  mt_game *g;
  int st = run_src(src, answers, &r, &g);
  if (st == MT_FAILED) print_message("%s\n", mt_error(g));
  assert_int_equal(st, MT_FINISHED);
  assert_string_equal(fx_log.s ? fx_log.s : "", log);
  mt_game_free(g);
  mt_rules_free(r);
}

static void expect_error(const char *src, const char *needle) {
  mt_rules *r;
  mt_game *g;
  int st = run_src(src, NULL, &r, &g);
  assert_int_equal(st, MT_FAILED);
  const char *e = mt_error(g);
  if (!strstr(e, needle)) fail_msg("error '%s' lacks '%s'", e, needle);
  mt_game_free(g);
  mt_rules_free(r);
}

static void arithmetic(void **s) {
  (void)s;
  expect_log("game 9 \"t\" { let a = 7 / 2\n let b = -7 / 2\n let c = -7 % 3\n let d = 7 % -3\n"
             " let e = 2 * 3 - 10\n let k = 5000000000 + 1\n log \"{a} {b} {c} {d} {e} {k}\" }",
             NULL, "[9] 3 -4 2 -2 -4 5000000001\n");
}

/* log for S: the line names whom it is for; an empty audience narrates nothing; one faction will do */
static void narration_for_some_factions(void **s) {
  (void)s;
  expect_log("game 9 \"t\" { let n = 3\n log for {red, blue} \"secret {n}\"\n"
             " log for [f in factions where false] \"nobody\"\n log for green \"to green\"\n log \"public\" }",
             NULL, "[9] (for blue, red) secret 3\n[9] (for green) to green\n[9] public\n");
}

static void comparisons_and_logic(void **s) {
  (void)s;
  expect_log("game 9 \"t\" { let a = 1 < 2 and 2 <= 2 and 3 > 2 and 3 >= 3 and 1 == 1 and 1 != 2\n"
             " let z = 0\n let b = false or not true\n let c = true or 1 / z == 1\n let d = false and 1 / z == 1\n"
             " log \"{a} {b} {c} {d}\" }",
             NULL, "[9] true false true false\n");
}

static void sets(void **s) {
  (void)s;
  expect_log("game 9 \"t\" { let a = {red, blue} + green\n let b = a - {red}\n let c = a & {blue, green}\n"
             " let d = red in b\n let n = count(a)\n let f = first(b)\n let e = 3 in 1..5\n"
             " let w = [t in territories where attr(t, rank) >= 2]\n"
             " let eq = occupants(canyon) == factions or {red} == {blue} or {red} != {red}\n"
             " let ne = {red, blue} == {blue, red} and {red} != {blue}\n"
             " log \"{eq} {ne}\"\n"
             " log \"{a} {b} {c} {d} {n} {f} {e} {w}\" }",
             NULL, "[9] false true\n[9] {blue, green, red} {blue, green} {blue, green} false 3 blue true {canyon, goal_line}\n");
}

static void aggregates_and_loops(void **s) {
  (void)s;
  expect_log("value 1 \"seat\" st(f: faction): int = attr(f, seat)\n"
             "game 9 \"t\" { let s = sum(f in factions: st(f))\n let a = any(f in factions: st(f) == 2)\n"
             " let l = all(f in factions: st(f) > 0)\n let lo = min_of(f in factions: st(f))\n"
             " let hi = max_of(t in territories where t != goal_line: attr(t, toll))\n"
             " log \"{s} {a} {l} {lo} {hi}\"\n"
             " for f in factions by -st(f) { log \"{f}\" }\n"
             " for i in 1..10 where i % 3 == 0 { log \"{i}\"\n if i > 5 { break } } }",
             NULL, "[9] 6 true true 1 2\n[9] green\n[9] blue\n[9] red\n[9] 3\n[9] 6\n");
  /* min_by/max_by: the member with the least/greatest key, the first (by index) on ties, none if none */
  expect_log("value 1 \"seat\" st(f: faction): int = attr(f, seat)\n"
             "game 9 \"t\" { let a = min_by(f in factions: st(f))\n let b = max_by(f in factions: st(f))\n"
             " let c = min_by(f in factions: 0)\n let d = max_by(t in territories where t != goal_line: attr(t, toll))\n"
             " let e = min_by(f in factions where st(f) > 5: st(f))\n let g = max_by(f in {blue, green}: 1)\n"
             " log \"{a} {b} {c} {d} {e} {g}\" }",
             NULL, "[9] red green blue canyon none blue\n");
  /* a keyed loop does not compute the key of its last remaining member (nothing to compare) */
  expect_log("game 9 \"t\" { let z = 0\n for f in {red} by 1 / z { log \"{f}\" } }", NULL, "[9] red\n");
  expect_error("game 9 \"t\" { let z = 0\n for f in {red, blue} by 1 / z { log \"{f}\" } }", "division by zero");
}

static void values_procedures_and_vars(void **s) {
  (void)s;
  expect_log("var hits(f: faction): int = 2\nvar last: faction = none\n"
             "value 1 \"double\" twice(n: int): int = n * 2\n"
             "rule 2 \"helpers\" { procedure bump(f: faction) { set hits(f) = hits(f) + twice(3)\n set last = f } }\n"
             "game 9 \"t\" { run bump(blue)\n let h = hits(blue)\n let r = hits(red)\n let l = last\n"
             " set fuel(red) = fuel(red) + 1\n let fu = fuel(red)\n log \"{h} {r} {l} {fu}\" }",
             NULL, "[9] 8 2 blue 4\n");
}

static void builtins_attrs_and_piles(void **s) {
  (void)s;
  expect_log("game 9 \"t\" { let m = min(4, max(2, 3))\n let st = attr(green, seat)\n"
             " let c = draw(pile(gear_deck, none), pile(hand, red))\n let n = pile_size(pile(hand, red))\n"
             " for k in pile(gear_deck, none) where attr(k, power) == 0 { log \"{k}\" }\n"
             " move(red, runner, 1, section(start_line, 0), section(dunes, 1))\n let t = tokens(red, dunes)\n"
             " log \"{m} {st} {c} {n} {t}\" }",
             NULL, "[9] jammer\n[9] roadblock\n[9] 3 3 spare_tyre 1 1\n");
}

/* Builtins check the values they use as indices or add: none where a pool or
 * pile name is needed is a runtime error, and arithmetic near the int64
 * limits gives the exact result (no overflow). */
static void builtins_bound_their_arguments(void **s) {
  (void)s;
  expect_error("game 9 \"t\" { let n = pooled(red, none) }", "none was used");
  expect_error("game 9 \"t\" { let n = pooled_of(red, runner, none) }", "none was used");
  expect_error("game 9 \"t\" { let l = pool(none, red) }", "none was used");
  expect_error("game 9 \"t\" { let q = pile(none, red) }", "none was used");
  expect_log("game 9 \"t\" { let m = 1000000000000 * 9223372 + 36854775807\n let a = div_up(m, 2)\n let b = div_round(m, 2)\n"
             " let c = div_up(-m - 1, 3)\n let d = div_round(-m - 1, 2)\n"
             " let e = sector_add(3, m)\n let f = sector_add(1, -m - 1)\n"
             " log \"{a} {b} {c} {d} {e} {f}\" }",
             NULL, "[9] 4611686018427387904 4611686018427387904 -3074457345618258602 -4611686018427387904 2 1\n");
}

static void precedence_and_cancellation(void **s) {
  (void)s;
  /* an ability supersedes a base value; cancelled for the phase it falls back */
  expect_log("value 1 \"base\" speed2(f: faction): int = 1\n"
             "faction red { ability 2.1 \"fast\" karama after supersedes 1 { value speed2(red) = 5 } }\n"
             "phase 3 \"p\" ph { step 3.1 \"s\" { cancel 2.1 for phase\n let x = speed2(red)\n log \"{x}\" } }\n"
             "game 9 \"t\" { let a = speed2(red)\n let b = speed2(blue)\n run ph\n let c = speed2(red)\n"
             " log \"{a} {b} {c}\" }",
             NULL, "[3.1] 1\n[9] 5 1 5\n");
}

static void triggers_once_cancellation(void **s) {
  (void)s;
  expect_log("event ping(n: int)\n"
             "rule 1 \"on\" { on ping(n) { log \"base {n}\" } }\n"
             "faction red { ability 2.1 \"instead\" karama after supersedes 1 { instead of ping(n) where n > 1 { log \"red {n}\" } } }\n"
             "rule 3 \"before\" { before ping(n) { log \"before {n}\" } }\n"
             "game 9 \"t\" { signal ping(1)\n signal ping(2)\n cancel 2.1 for once\n signal ping(3)\n signal ping(4) }",
             NULL,
             "[3] before 1\n[1] base 1\n[3] before 2\n[2.1] red 2\n[3] before 3\n[1] base 3\n[3] before 4\n[2.1] red 4\n");
}

/* A rule cancelled for the game: its triggers are skipped before their where-clause, which may read
 * the rule's own values (they have no definition while it is cancelled). */
static void cancelled_triggers_skip_their_where(void **s) {
  (void)s;
  expect_log("event ping(n: int)\n"
             "faction red { ability 2.1 \"echo\" karama after {\n value big(n: int): bool = n > 1\n"
             " after ping(n) where big(n) { log \"red {n}\" } } }\n"
             "game 9 \"t\" { signal ping(2)\n cancel 2.1 for game\n signal ping(3)\n log \"done\" }",
             NULL, "[2.1] red 2\n[9] done\n");
}

static void totals(void **s) {
  (void)s;
  /* total(NAME): every instance (the factions in the game) and every cell */
  expect_log("var w(t: territory, s: sector): int = 1\n"
             "game 9 \"t\" { set w(dunes, 2) = 5\n set fuel(red) = 4\n set fuel(blue) = 0\n set fuel(green) = 7\n"
             " let a = total(w)\n let b = total(fuel)\n log \"{a} {b}\" }",
             NULL, "[9] 20 11\n");
}

static void computed_initial_values(void **s) {
  (void)s;
  /* evaluated once when the game is created, in declaration order */
  expect_log("var tolled: set of territory = [t in territories where attr(t, toll) > 1]\n"
             "var n: int = count(factions) * 2\nvar m: int = n + 1\nvar w: faction = min_by(f in factions: attr(f, seat))\n"
             "game 9 \"t\" { set n = n + 10\n log \"{tolled} {n} {m} {w}\" }",
             NULL, "[9] {canyon} 16 7 red\n");
  /* a failing initialiser: no game, and the error names the variable */
  mt_rules *r = fx_compile("var z: int = 6 / (count(factions) - 3)\ngame 9 \"t\" { }");
  assert_non_null(r);
  char err[256];
  assert_null(mt_game_new(r, NULL, 0, 1, err, sizeof err));
  assert_non_null(strstr(err, "the initial value of variable 'z' cannot be computed"));
  assert_non_null(strstr(err, "division by zero"));
  mt_rules_free(r);
}

static void decisions(void **s) {
  (void)s;
  expect_log("var b(f: faction): int = 0\n"
             "game 9 \"t\" { secret f in factions { set b(f) = ask f \"bid\" from 0..fuel(f) }\n"
             " let t = ask red \"where\" from {dunes, canyon}\n"
             " may blue \"ok?\" { log \"yes\" }\n"
             " let x = b(red) + b(blue) * 10 + b(green) * 100\n log \"{x} {t}\" }",
             "1;2;3;canyon;yes", "[9] yes\n[9] 213 canyon\n");
}

/* `is K`, `any K` and `can`: only a faction with a legal action of the kind is asked, and the
 * decision offers every action of the kind (one given its kind by a check too). */
static void kinds_of_action_and_can(void **s) {
  (void)s;
  static const char src[] =
      "rule 1 \"r\" {\n"
      " action carry_on(f: faction) { effect { } }\n"
      " action boost(f: faction, n: int in 1..fuel(f)) { is trick\n require f == red\n effect { log \"{f} boosts {n}\" } }\n"
      " action brake(f: faction) { is trick, slow\n require fuel(f) > 100\n effect { log \"{f} brakes\" } }\n"
      " action coast(f: faction) { effect { log \"{f} coasts\" } }\n"
      "}\n"
      "rule 2 \"blue coasts as a trick\" amends 1 { check coast(f) { is trick\n require fuel(f) == 5 } }\n"
      "game 9 \"t\" {\n"
      " set fuel(red) = %d\n set fuel(blue) = %d\n set fuel(green) = 3\n"
      " for f in factions where can(f: any trick) { act f: any trick, carry_on }\n"
      " log \"done\"\n}\n";
  char buf[1024];
  snprintf(buf, sizeof buf, src, 2, 5);
  expect_log(buf, "coast blue;boost red 2", "[1] blue coasts\n[1] red boosts 2\n[9] done\n");
  snprintf(buf, sizeof buf, src, 2, 4); /* blue cannot coast as a trick: only red is asked */
  expect_log(buf, "carry_on red", "[9] done\n");
  snprintf(buf, sizeof buf, src, 0, 4); /* nobody can: nobody is asked */
  expect_log(buf, NULL, "[9] done\n");
}

/* `can` judges once the first guards of actions that are the same code
 * (fuse.c, answers.c); guards that differ only in the value they call are
 * not the same: here red can cool (cold) but not heat or warm (hot). */
static void alike_first_guards_and_can(void **s) {
  (void)s;
  static const char src[] =
      "rule 1 \"r\" {\n"
      " value hot(f: faction): bool = fuel(f) > 3\n"
      " value cold(f: faction): bool = fuel(f) < 3\n"
      " action carry_on(f: faction) { effect { } }\n"
      " action heat(f: faction, n: int in 1..2) { is trick\n require hot(f)\n effect { log \"{f} heats {n}\" } }\n"
      " action cool(f: faction, n: int in 1..2) { is trick\n require cold(f)\n effect { log \"{f} cools {n}\" } }\n"
      " action warm(f: faction, n: int in 1..2) { is trick\n require hot(f)\n effect { log \"{f} warms {n}\" } }\n"
      "}\n"
      "game 9 \"t\" {\n"
      " set fuel(red) = 1\n set fuel(blue) = 3\n set fuel(green) = 3\n"
      " for f in factions where can(f: any trick) { act f: any trick, carry_on }\n"
      " log \"done\"\n}\n";
  expect_log(src, "cool red 2", "[1] red cools 2\n[9] done\n");
  mt_rules *r = fx_compile(src);
  assert_non_null(r);
  const program *p = &r->prog;
  int heat = -1, cool = -1, warm = -1;
  for (int i = 0; i < p->nactions; i++) {
    if (!strcmp(p->actions[i].name, "heat")) heat = i;
    if (!strcmp(p->actions[i].name, "cool")) cool = i;
    if (!strcmp(p->actions[i].name, "warm")) warm = i;
  }
  assert_true(heat >= 0 && cool >= 0 && warm >= 0);
  assert_int_equal(p->actions[warm].first_same, heat);
  assert_int_equal(p->actions[cool].first_same, cool);
  assert_int_equal(p->actions[heat].first_same, heat);
  mt_rules_free(r);
}

/* A range that ends at the largest integer lists its answers and stops there. */
static void ranges_at_the_int64_limit(void **s) {
  (void)s;
  mt_rules *r = fx_compile("game 9 \"t\" { let m = 1000000000000 * 9223372 + 36854775807\n let x = ask red \"n\" from m - 2..m }");
  assert_non_null(r);
  char err[64];
  mt_game *g = mt_game_new(r, NULL, 0, 1, err, sizeof err);
  assert_int_equal(mt_start(g), MT_WAITING);
  mt_choice legal[8];
  assert_int_equal(mt_legal(g, legal, 8), 3);
  assert_true(legal[2].value == INT64_MAX);
  mt_game_free(g);
  mt_rules_free(r);
}

static void actions_and_refusals(void **s) {
  (void)s;
  const char *src = "action 1 \"go\" go(f: faction, n: int in 0..5) {\n"
                    "  require n <= fuel(f) because 2\n  forbid n == 4 because 3\n  cost n\n"
                    "  effect { set fuel(f) = fuel(f) - cost\n log \"{f} pays {cost}\" } }\n"
                    "rule 2 \"fuel limit\" { }\nrule 3 \"no fours\" { }\n"
                    "game 9 \"t\" { act red: go }";
  mt_rules *r = fx_compile(src);
  assert_non_null(r);
  mark_opcodes(r);
  char err[64];
  mt_game *g = mt_game_new(r, NULL, 0, 1, err, sizeof err);
  assert_int_equal(mt_start(g), MT_WAITING);
  mt_choice legal[16];
  size_t n = mt_legal(g, legal, 16);
  assert_int_equal(n, 4); /* red has 3 fuel: 0..3 */
  uint64_t before = mt_hash(g);
  mt_choice c;
  assert_int_equal(mt_choice_parse(g, "go red 5", &c, err, sizeof err), 0);
  mt_explain why;
  assert_int_equal(mt_apply(g, &c, &why), -1);
  print_message("%s\n", why.text);
  assert_int_equal(why.nreasons, 1);
  assert_string_equal(why.rule[0], "2");
  assert_int_equal(mt_hash(g), before); /* refused: untouched */
  assert_int_equal(mt_choice_parse(g, "go red 2", &c, err, sizeof err), 0);
  sb_free(&fx_log);
  mt_game_set_log(g, fx_narrate, NULL);
  assert_int_equal(mt_apply(g, &c, &why), MT_FINISHED);
  assert_string_equal(fx_log.s, "[1] red pays 2\n");
  mt_game_free(g);
  mt_rules_free(r);
}

/* A comprehension in a parameter's domain binds its variable past the parameters and the cost:
 * the parameters after it, and the cost, keep their own slots. */
static void domain_comprehension_keeps_parameter_slots(void **s) {
  (void)s;
  const char *src = "action 1 \"go\" go(f: faction, t: territory in [x in territories where x != goal_line],\n"
                    "  n: int in 0..2) {\n  require t != goal_line because 2\n  cost n\n"
                    "  effect { log \"{f} to {t} with {n} pays {cost}\" } }\n"
                    "rule 2 \"not the goal\" { }\n"
                    "game 9 \"t\" { act red: go }";
  mt_rules *r = fx_compile(src);
  assert_non_null(r);
  char err[64];
  mt_game *g = mt_game_new(r, NULL, 0, 1, err, sizeof err);
  assert_int_equal(mt_start(g), MT_WAITING);
  mt_choice c;
  mt_explain why;
  assert_int_equal(mt_choice_parse(g, "go red canyon 2", &c, err, sizeof err), 0);
  sb_free(&fx_log);
  mt_game_set_log(g, fx_narrate, NULL);
  assert_int_equal(mt_apply(g, &c, &why), MT_FINISHED);
  assert_string_equal(fx_log.s, "[1] red to canyon with 2 pays 2\n");
  mt_game_free(g);
  mt_rules_free(r);
}

static uint64_t test_rand(void *ctx) {
  uint64_t *x = ctx; /* xorshift64: enough for a sampling test */
  *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
  return *x;
}

static bool same_choice(const mt_choice *a, const mt_choice *b) {
  if (a->action != b->action || a->nargs != b->nargs) return false;
  for (int i = 0; i < a->nargs; i++)
    if (a->args[i] != b->args[i]) return false;
  return true;
}

/* mt_sample draws only legal answers, level by level: the action uniform
 * among the actions with a legal answer, then each parameter uniform among
 * the values that still lead to one. */
static void sampling_is_legal_and_level_by_level(void **s) {
  (void)s;
  const char *src = "action 1 \"go\" go(f: faction, d: int in 0..3, n: int in 0..5) {\n"
                    "  forbid d == 2 because 2\n  require n <= d because 3\n  require n <= fuel(f) because 3\n  cost n\n"
                    "  effect { } }\n"
                    "action 4 \"rest\" rest(f: faction) { effect { } }\n"
                    "action 5 \"stuck\" stuck(f: faction, n: int in 0..9) { require n > 20 because 6\n effect { } }\n"
                    "rule 2 \"no twos\" { }\nrule 3 \"limits\" { }\nrule 6 \"never\" { }\n"
                    "game 9 \"t\" { act red: go, rest, stuck\n act red: stuck }";
  mt_rules *r = fx_compile(src);
  if (!r) print_message("%s", fx_diag_text());
  assert_non_null(r);
  char err[64];
  mt_game *g = mt_game_new(r, NULL, 0, 1, err, sizeof err);
  assert_int_equal(mt_start(g), MT_WAITING);
  mt_choice legal[32];
  size_t n = mt_legal(g, legal, 32);
  assert_int_equal(n, 8); /* rest; go with d=0 (n 0), d=1 (n 0..1), d=3 (n 0..3, red has 3 fuel) */
  /* the k-th answer alone, and a listing that stops early, agree with the full list */
  for (size_t k = 0; k < n; k++) {
    mt_choice one;
    assert_int_equal(mt_legal_nth(g, k, &one), 1);
    assert_true(same_choice(&one, &legal[k]));
    assert_int_equal(one.value, legal[k].value);
  }
  mt_choice none_left;
  assert_int_equal(mt_legal_nth(g, n, &none_left), 0);
  mt_choice few[3];
  assert_int_equal(mt_legal_upto(g, few, 3), 4); /* "more than 3" */
  for (int k = 0; k < 3; k++) assert_true(same_choice(&few[k], &legal[k]));
  assert_int_equal(mt_legal_upto(g, legal, 32), 8);
  /* the passive bot's answer: the first with the fewest parameters (rest, listed after go) */
  mt_choice fewest;
  assert_true(game_first_fewest(g, &fewest));
  assert_int_equal(fewest.nargs, 1);
  assert_true(same_choice(&fewest, &legal[7]));
  uint64_t rng = 88172645463325252ull, before = mt_hash(g);
  int rest = 0, by_d[4] = {0}, by_n3[4] = {0};
  for (int k = 0; k < 6000; k++) {
    mt_choice c;
    assert_int_equal(mt_sample(g, test_rand, &rng, &c), 1);
    bool found = false;
    for (size_t i = 0; i < n; i++) found |= same_choice(&c, &legal[i]);
    assert_true(found);
    if (c.nargs == 1) rest++;
    else {
      assert_int_equal(c.value, c.args[2]); /* the cost comes with the answer */
      by_d[c.args[1]]++;
      if (c.args[1] == 3) by_n3[c.args[2]]++;
    }
  }
  assert_int_equal(mt_hash(g), before); /* sampling changes nothing */
  /* Half rest, half go (the stuck action has no legal answer); d is 0, 1 or 3
   * with a third each; given d = 3, n is 0..3 with a quarter each. */
  assert_in_range(rest, 2700, 3300);
  assert_int_equal(by_d[2], 0);
  for (int d = 0; d < 4; d++)
    if (d != 2) assert_in_range(by_d[d], 800, 1200);
  for (int x = 0; x < 4; x++) assert_in_range(by_n3[x], 150, 350);
  mt_choice c;
  assert_int_equal(mt_sample(g, test_rand, &rng, &c), 1);
  assert_true(mt_apply(g, &c, NULL) == MT_WAITING); /* the second decision: no legal answer */
  assert_int_equal(mt_legal(g, legal, 32), 0);
  assert_int_equal(mt_sample(g, test_rand, &rng, &c), 0);
  assert_false(game_first_fewest(g, &c));
  mt_game_free(g);
  mt_rules_free(r);
}

/* Guards of the form `require n > e` / `forbid n > e` (e reading earlier
 * parameters only) narrow an integer range before it is listed: a range of a
 * billion values with three legal ones lists three (a plain listing stops
 * after 100001 values and would find none), and a refusal still names the
 * guard's rule. */
static void guards_narrow_ranges(void **s) {
  (void)s;
  const char *src = "action 1 \"wide\" wide(f: faction, k: int in 0..3, n: int in 0..1000000000) {\n"
                    "  require n >= 999999990 + k because 2\n  forbid 999999999 < n - k because 3\n"
                    "  require n != 999999995 because 3\n  effect { } }\n"
                    "rule 2 \"floor\" { }\nrule 3 \"ceiling\" { }\n"
                    "game 9 \"t\" { act red: wide }";
  mt_rules *r = fx_compile(src);
  if (!r) print_message("%s", fx_diag_text());
  assert_non_null(r);
  char err[64];
  mt_game *g = mt_game_new(r, NULL, 0, 1, err, sizeof err);
  assert_int_equal(mt_start(g), MT_WAITING);
  mt_choice legal[64];
  /* k = 0..3: n from 999999990 + k to 999999999 + k within the domain (10, 10, 9 and 8
   * values), but never 999999995 */
  assert_int_equal(mt_legal(g, legal, 64), 10 + 10 + 9 + 8 - 4);
  assert_int_equal(legal[0].args[2], 999999990);
  uint64_t rng = 5;
  for (int i = 0; i < 50; i++) {
    mt_choice c;
    assert_int_equal(mt_sample(g, test_rand, &rng, &c), 1);
    assert_in_range(c.args[2], 999999990 + c.args[1], 999999999 + c.args[1]);
    assert_int_not_equal(c.args[2], 999999995);
  }
  mt_choice c;
  mt_explain why;
  assert_int_equal(mt_choice_parse(g, "wide red 1 5", &c, err, sizeof err), 0);
  assert_int_equal(mt_apply(g, &c, &why), -1);
  assert_int_equal(why.nreasons, 1);
  assert_string_equal(why.rule[0], "2");
  mt_game_free(g);
  mt_rules_free(r);
  /* the widest range there is: no overflow, and an equality narrows it to one value */
  r = fx_compile("action 1 \"pick\" pick(f: faction, n: int in -1000000000000 * 9000000..1000000000000 * 9000000) {\n"
                 "  require n == 7 because 2\n effect { } }\nrule 2 \"seven\" { }\ngame 9 \"t\" { act red: pick }");
  if (!r) print_message("%s", fx_diag_text());
  assert_non_null(r);
  g = mt_game_new(r, NULL, 0, 1, err, sizeof err);
  assert_int_equal(mt_start(g), MT_WAITING);
  assert_int_equal(mt_legal(g, legal, 64), 1);
  assert_int_equal(legal[0].args[1], 7);
  assert_int_equal(mt_sample(g, test_rand, &rng, &c), 1);
  assert_int_equal(c.args[1], 7);
  mt_game_free(g);
  mt_rules_free(r);
}

static void runtime_errors_name_rules(void **s) {
  (void)s;
  expect_error("rule 4.2 \"divides\" { procedure d(n: int) { let x = 10 / n } }\ngame 9 \"t\" { run d(0) }",
               "t.rules:1:55: runtime error in rule 4.2 (divides): division by zero");
  expect_error("game 9 \"t\" { set fuel(red) = fuel(red) - 10 }", "counter 'fuel' cannot go below zero");
  expect_error("game 9 \"t\" { for i in 1..1000000000000 { } }", "in rule 9 (t): still running after");
  expect_error("rule 5 \"loop\" { procedure r(n: int) { run r(n + 1) } }\ngame 9 \"t\" { run r(0) }",
               "rule 5 (loop): the rules nest calls too deeply");
  /* recursion through an event: the trigger that raises its own event is named, and the event */
  expect_error("event ping(n: int)\nrule 5 \"Echo: every ping pings again\" { on ping(n) { signal ping(n + 1) } }\n"
               "game 9 \"t\" { signal ping(0) }",
               "calls cycle through rule 5 (Echo: every ping pings again) and event 'ping'");
  /* two rules raising each other's events: both named */
  expect_error("event ping(n: int)\nevent pong(n: int)\nrule 5 \"Ping\" { on ping(n) { signal pong(n) } }\n"
               "rule 6 \"Pong\" { after pong(n) { signal ping(n) } }\ngame 9 \"t\" { signal ping(0) }",
               "rules 5 (Ping) and 6 (Pong) and events 'ping' and 'pong'");
  expect_error("value 1 \"v\" v(f: faction): int = 0\n"
               "faction red { ability 2 \"a\" supersedes 1 { value v(f) when f == red = 1 } }\n"
               "faction blue { ability 3 \"b\" supersedes 1 { value v(f) when f != blue = 2 } }\n"
               "game 9 \"t\" { let x = v(red) }",
               "rules 2 and 3 both apply at the same precedence level");
  expect_error("value 1 \"v\" v(f: faction): int when f == blue = 0\ngame 9 \"t\" { let x = v(red) }",
               "no definition of value 'v' applies");  /* a value with one definition is called straight at it (fuse.c) only while its rule is in force */
  expect_error("rule 4.5 \"v\" karama after { value v(): int = 3 }\ngame 9 \"t\" { let a = v()\n cancel 4.5 for game\n let x = v() }",
               "no definition of value 'v' applies");
}

/* Arithmetic never wraps (issue 9.4): at the edges of the 64-bit integers the
 * built-ins give the exact result, and what has none is a runtime error that
 * names the rule.  M is INT64_MAX, built from literals. */
#define M_ "(9223372 * 1000000000000 + 36854775807)"
static void arithmetic_at_the_limits(void **s) {
  (void)s;
  expect_log("game 9 \"t\" { let m = " M_ "\n let n = -m - 1\n"
             " let a = div_up(m, 2)\n let b = div_up(n, 3)\n let c = div_round(m, 2)\n let d = div_round(n, 2)\n"
             " let e = div_round(n, m)\n let f = div_round(m, m)\n"
             " log \"{a} {b} {c} {d} {e} {f}\"\n"
             " let g = div_up(7, 2)\n let h = div_up(-7, 2)\n let i = div_round(7, 2)\n let j = div_round(-7, 2)\n"
             " let k = div_round(5, 3)\n let l = div_round(4, 3)\n let o = div_round(-5, 3)\n let p = div_up(n, 1)\n"
             " log \"{g} {h} {i} {j} {k} {l} {o}\"\n"
             " let q = sector_add(3, m)\n let r = sector_add(1, n)\n let t = sector_add(0, -5)\n"
             " log \"{q} {r} {t} {p}\" }",
             NULL,
             "[9] 4611686018427387904 -3074457345618258602 4611686018427387904 -4611686018427387904 -1 1\n"
             "[9] 4 -3 4 -3 2 1 -2\n"
             "[9] 2 1 3 -9223372036854775808\n");
  /* a range loop up to the largest integer ends there, without stepping past it */
  expect_log("game 9 \"t\" { let m = " M_ "\n let k = 0\n for i in m - 1..m { set k = k + 1 }\n"
             " for j in -m - 1..-m { set k = k + 1 }\n for z in m..m - 1 { set k = k + 100 }\n log \"{k}\" }",
             NULL, "[9] 4\n");
  expect_error("rule 4.1 \"sums\" { procedure s() { let x = sum(f in factions: " M_ ") } }\ngame 9 \"t\" { run s() }",
               "runtime error in rule 4.1 (sums): integer overflow");
  expect_error("rule 4.2 \"abs\" { procedure s() { let x = abs(-" M_ " - 1) } }\ngame 9 \"t\" { run s() }",
               "runtime error in rule 4.2 (abs): value -9223372036854775808 is out of range");
  /* a state cell holds 32 bits: a store outside them is refused, never truncated */
  expect_error("var round: int\nrule 4.3 \"stores\" { procedure s() { set round = 4294967297 } }\ngame 9 \"t\" { run s() }",
               "runtime error in rule 4.3 (stores): variable 'round' cannot hold 4294967297");
  expect_error("rule 4.4 \"fills\" { procedure s() { set fuel(red) = 2147483647\n set fuel(red) = fuel(red) + 1 } }\n"
               "game 9 \"t\" { run s() }",
               "runtime error in rule 4.4 (fills): variable 'fuel' cannot hold 2147483648");
  /* moving 2^32 + 1 tokens is not moving one */
  expect_error("rule 4.5 \"moves\" { procedure s() {\n"
               " move(red, runner, 4294967297, section(start_line, first(sectors_of(start_line))), pool(reserves, red)) } }\n"
               "game 9 \"t\" { run s() }",
               "runtime error in rule 4.5 (moves): not enough tokens there to move");
  /* none where a pool or a pile is needed names the rule, never reads outside the data */
  expect_error("rule 4.6 \"pools\" { procedure s() { let x = pooled(red, none) } }\ngame 9 \"t\" { run s() }",
               "runtime error in rule 4.6 (pools): none was used");
  expect_error("rule 4.7 \"piles\" { procedure s() { let x = pile(none, red) } }\ngame 9 \"t\" { run s() }",
               "runtime error in rule 4.7 (piles): none was used");
}
#undef M_

/* A game of SRC started up to its first decision (red's); NULL if it does not compile. */
static mt_game *started(const char *src, mt_rules **r) {
  *r = fx_compile(src);
  if (!*r) print_message("%s", fx_diag_text());
  assert_non_null(*r);
  char err[64];
  mt_game *g = mt_game_new(*r, NULL, 0, 1, err, sizeof err);
  assert_non_null(g);
  assert_int_equal(mt_start(g), MT_WAITING);
  return g;
}

static void expect_in(const char *text, const char *needle) {
  if (!text || !strstr(text, needle)) fail_msg("'%s' lacks '%s'", text ? text : "(null)", needle);
}

/* Issue 9.5: one decision's listing and sampling share a work budget.  The
 * issue's six-line rule file (two integers of 0..100000 and a guard no
 * interval describes: 10^10 answers to judge) ends with an error naming the
 * decision, its rule and the action, instead of running for hours. */
static void decisions_have_a_work_budget(void **s) {
  (void)s;
  mt_rules *r;
  mt_game *g = started("action 1 \"pick\" pick(f: faction, a: int in 0..100000, b: int in 0..100000) {\n"
                       "  require a * 3 + b * 7 == 1\n  effect { }\n}\ngame 9 \"t\" { act red: pick }",
                       &r);
  mt_choice buf[8];
  assert_null(mt_decision_error(g));
  assert_int_equal(mt_legal(g, buf, 8), 0);
  const char *e = mt_decision_error(g);
  /* the position is the instruction the budget ran out at: here the `1` of `== 1` */
  expect_in(e, "t.rules:5:14: error in rule 9 (t): red's decision (choose an action) ran out of work: "
               "the guards of action pick at its last parameter and cost (rule 1, pick, at t.rules:2:28) used up the "
               "work budget of 100000000 VM instructions");
  uint64_t rng = 3;
  assert_int_equal(mt_sample(g, test_rand, &rng, &buf[0]), 0); /* spent: sampling stops at once */
  assert_non_null(mt_decision_error(g));
  assert_true(mt_decision_work_peak(g) >= 100000000 && mt_decision_work_peak(g) < 100001000);
  mt_game_free(g);
  mt_rules_free(r);
  /* a smaller budget, set per game; the random bot stops there too and says why */
  g = started("action 1 \"pick\" pick(f: faction, a: int in 0..100000, b: int in 0..100000) {\n"
              "  require a * 3 + b * 7 == 1\n  effect { }\n}\ngame 9 \"t\" { act red: pick }",
              &r);
  mt_set_work_budget(g, 1000000);
  assert_false(bot_choose(g, BOT_RANDOM, &rng, &buf[0]));
  expect_in(mt_decision_error(g), "used up the work budget of 1000000 VM instructions");
  mt_game_free(g);
  mt_rules_free(r);
}

/* Integer parameters are intervals: a range of a billion values whose guards
 * are all bounds is counted, indexed and sampled without a walk, and nothing is
 * cut at 100,000 values. */
static void wide_ranges_are_intervals(void **s) {
  (void)s;
  mt_rules *r;
  mt_game *g = started("var high: int = 5\n"
                       "action 1 \"bid\" bid(f: faction, n: int in 1..1000000000) {\n"
                       "  require n > high\n  forbid n > 999999990\n  effect { set high = n }\n}\n"
                       "game 9 \"t\" { act red: bid }",
                       &r);
  mt_choice buf[64];
  assert_int_equal(mt_legal(g, buf, 64), 999999985);
  assert_int_equal(buf[0].args[1], 6);
  assert_int_equal(buf[63].args[1], 69);
  assert_int_equal(mt_legal_upto(g, buf, 24), 25);
  mt_choice c;
  assert_int_equal(mt_legal_nth(g, 999999984, &c), 1);
  assert_int_equal(c.args[1], 999999990);
  assert_int_equal(mt_legal_nth(g, 999999985, &c), 0);
  uint64_t rng = 11;
  bool beyond = false;
  for (int i = 0; i < 200; i++) {
    assert_int_equal(mt_sample(g, test_rand, &rng, &c), 1);
    assert_in_range(c.args[1], 6, 999999990);
    beyond |= c.args[1] > 100006;
  }
  assert_true(beyond); /* the whole range, not its first 100,001 values */
  assert_true(mt_decision_work_peak(g) < 200000); /* 200 draws and four listings, all told */
  mt_game_free(g);
  mt_rules_free(r);

  /* a bound that cannot be computed fails its guard for every value: no answer, found at once
   * (not a walk of a billion values), and judging one names the error */
  g = started("var zero: int\naction 1 \"bid\" bid(f: faction, n: int in 1..1000000000) {\n"
              "  require n > 10 / zero\n  effect { }\n}\ngame 9 \"t\" { act red: bid }",
              &r);
  assert_int_equal(mt_legal(g, buf, 64), 0);
  assert_null(mt_decision_error(g));
  assert_true(mt_decision_work_peak(g) < 1000);
  mt_explain why;
  char err[64];
  assert_int_equal(mt_choice_parse(g, "bid red 5", &c, err, sizeof err), 0);
  assert_int_equal(mt_apply(g, &c, &why), -1);
  expect_in(why.text, "runtime error in rule 1 (bid): division by zero");
  mt_game_free(g);
  mt_rules_free(r);

  /* a guard no interval describes: sampled by drawing from the whole range; the
   * first answers are listed by walking; the full list would exceed the budget */
  g = started("action 1 \"far\" far(f: faction, n: int in 0..1000000000) {\n"
              "  require n / 1000 >= 200\n  effect { }\n}\ngame 9 \"t\" { act red: far }",
              &r);
  mt_set_work_budget(g, 20000000);
  for (int i = 0; i < 20; i++) {
    assert_int_equal(mt_sample(g, test_rand, &rng, &c), 1);
    assert_in_range(c.args[1], 200000, 1000000000);
  }
  assert_int_equal(mt_legal_upto(g, buf, 24), 25);
  assert_int_equal(buf[0].args[1], 200000);
  assert_null(mt_decision_error(g));
  assert_int_equal(mt_legal(g, buf, 64), 0);
  /* the instruction the budget ran out at, in the guard's line (which one of `n / 1000 >= 200` it
   * was depends on how many evaluations the value cache spared: any of them names the guard) */
  expect_in(mt_decision_error(g), "the guards of action far at its last parameter and cost (rule 1, far, at t.rules:2:");
  expect_in(mt_decision_error(g), ") used up the work budget of 20000000 VM instructions");
  mt_game_free(g);
  mt_rules_free(r);

  /* a range ending at the largest integer, walked to its end without stepping past it */
  g = started("action 1 \"top\" top(f: faction, n: int in 9223372 * 1000000000000 + 36854775802..9223372 * "
              "1000000000000 + 36854775807) {\n  require n % 2 == 1\n  effect { }\n}\ngame 9 \"t\" { act red: top }",
              &r);
  assert_int_equal(mt_legal(g, buf, 64), 3);
  assert_int_equal(buf[2].args[1], INT64_MAX);
  mt_game_free(g);
  mt_rules_free(r);

  /* an integer asked for: counted, indexed and drawn over the whole range */
  g = started("game 9 \"t\" { let x = ask red \"how many\" from 0..1000000000000\n log \"{x}\" }", &r);
  char perr[64];
  assert_int_equal(mt_choice_parse(g, "99999999999999999999", &c, perr, sizeof perr), -1); /* not read as INT64_MAX */
  assert_int_equal(mt_choice_parse(g, "-99999999999999999999", &c, perr, sizeof perr), -1);
  assert_int_equal(mt_choice_parse(g, "9223372036854775807", &c, perr, sizeof perr), 0);
  assert_int_equal(mt_legal(g, buf, 4), 1000000000001);
  assert_int_equal(buf[3].value, 3);
  beyond = false;
  for (int i = 0; i < 50; i++) {
    assert_int_equal(mt_sample(g, test_rand, &rng, &c), 1);
    assert_in_range(c.value, 0, 1000000000000);
    beyond |= c.value > 1000001;
  }
  assert_true(beyond);
  mt_game_free(g);
  mt_rules_free(r);
}

/* The heuristic bot on a bid of 1..10^9: a bounded number of candidates, among
 * them both ends of the range, so it finds the bid its value prefers (the
 * highest) in a few thousand instructions. */
static void heuristic_bot_on_a_wide_range(void **s) {
  (void)s;
  mt_rules *r;
  mt_game *g = started("var high: int\nvalue 2 \"score\" bot_value(f: faction): int = high\n"
                       "action 1 \"bid\" bid(f: faction, n: int in 1..1000000000) {\n"
                       "  require n > high\n  effect { set high = n }\n}\n"
                       "action 3 \"pass\" pass(f: faction) { effect { } }\n"
                       "game 9 \"t\" { act red: bid, pass }",
                       &r);
  uint64_t rng = 7, before = g->v.steps;
  mt_choice c;
  assert_true(bot_choose(g, BOT_HEURISTIC, &rng, &c));
  assert_int_equal(c.args[1], 1000000000);
  assert_true(g->v.steps - before < 100000);
  mt_game_free(g);
  mt_rules_free(r);
}

/* Issue 9.6: a guard that does not terminate names its rule and the budget,
 * both when an answer is judged and when the answers are listed. */
static void endless_guards_name_their_rule(void **s) {
  (void)s;
  mt_rules *r;
  mt_game *g = started("action 1 \"slow\" slow(f: faction) {\n  require sum(i in 1..1000000000000: i) > 0\n"
                       "  effect { }\n}\ngame 9 \"t\" { act red: slow }",
                       &r);
  mt_choice c;
  mt_explain why;
  char err[64];
  assert_int_equal(mt_choice_parse(g, "slow red", &c, err, sizeof err), 0);
  assert_int_equal(mt_apply(g, &c, &why), -1);
  expect_in(why.text, "slow is refused: its cost or guards could not be evaluated: t.rules:2:11: runtime error in rule 1 "
                      "(slow): still running after 200000000 instructions");
  mt_choice buf[4];
  assert_int_equal(mt_legal(g, buf, 4), 0);
  expect_in(mt_decision_error(g), "the guards of action slow at its last parameter and cost (rule 1, slow, at t.rules:2:11) "
                                  "used up the work budget");
  mt_game_free(g);
  mt_rules_free(r);
}

/* A game suspended at a decision is cloned with memcpy; each copy then goes
 * its own way, deterministically. */
static void clone_and_resume(void **s) {
  (void)s;
  const char *src = "game 9 \"t\" { let a = ask red \"pick\" from 1..3\n let r = random(1000)\n set fuel(red) = a\n log \"{a} {r}\" }";
  mt_rules *r = fx_compile(src);
  assert_non_null(r);
  char err[64];
  mt_game *g = mt_game_new(r, NULL, 0, 42, err, sizeof err);
  assert_int_equal(mt_start(g), MT_WAITING);
  mt_game *c1 = mt_clone(g), *c2 = mt_clone(g);
  assert_int_equal(mt_hash(c1), mt_hash(g));
  mt_choice one = {.action = -1, .value = 1}, three = {.action = -1, .value = 3};
  sb_free(&fx_log);
  mt_game_set_log(c1, fx_narrate, NULL);
  mt_game_set_log(c2, fx_narrate, NULL);
  assert_int_equal(mt_apply(c1, &one, NULL), MT_FINISHED);
  assert_int_equal(mt_apply(c2, &three, NULL), MT_FINISHED);
  assert_int_equal(mt_status(g), MT_WAITING); /* the original is untouched */
  char *log = sb_take(&fx_log);
  /* the same random draw in both copies: the generator is part of the state */
  char r1[32], r2[32];
  assert_int_equal(sscanf(log, "[9] 1 %31s\n[9] 3 %31s", r1, r2), 2);
  assert_string_equal(r1, r2);
  free(log);
  assert_int_not_equal(mt_hash(c1), mt_hash(c2));
  mt_game *c3 = mt_clone(g);
  assert_int_equal(mt_apply(c3, &one, NULL), MT_FINISHED);
  assert_int_equal(mt_hash(c3), mt_hash(c1)); /* deterministic */
  mt_copy_state(c3, g);
  assert_int_equal(mt_hash(c3), mt_hash(g));
  mt_game_free(c1);
  mt_game_free(c2);
  mt_game_free(c3);
  mt_game_free(g);
  mt_rules_free(r);
}

/* The verifier accepts what the compiler emits and refuses code whose stack
 * depths disagree or whose jumps leave their function, naming the function. */
static void the_verifier_refuses_bad_code(void **s) {
  (void)s;
  mt_rules *r = fx_compile("game 9 \"t\" { let a = 1\n if a > 0 { log \"{a}\" } }");
  assert_non_null(r);
  program *p = &r->prog;
  assert_true(p->nverified == p->nfuncs && p->nfuncs > 0);
  const func_rec *f = &p->funcs[p->rules[p->game_rule].body_fn];
  uint32_t push = 0, jump = 0;
  for (uint32_t pc = f->start; pc < f->end; pc += 1 + 4u * (uint32_t)op_table[p->code[pc]].operands) {
    if (!push && p->code[pc] == OP_PUSH_INT) push = pc;
    if (!jump && p->code[pc] == OP_JUMP_FALSE) jump = pc;
  }
  assert_true(push && jump);
  uint8_t saved[5];
  memcpy(saved, p->code + jump, 5);
  int32_t out = (int32_t)f->end + 40;
  memcpy(p->code + jump + 1, &out, 4); /* a jump out of the function */
  sb_free(&fx_diag);
  assert_false(vm_verify(p, r->d));
  assert_non_null(strstr(fx_diag_text(), "internal error: the compiled code of rule 9 does not verify"));
  assert_int_equal(p->nverified, 0);
  memcpy(p->code + jump, saved, 5);
  memcpy(saved, p->code + push, 5);
  p->code[push] = OP_POP; /* a pop where a push was: the operands run short */
  memset(p->code + push + 1, OP_POP, 4);
  sb_free(&fx_diag);
  assert_false(vm_verify(p, r->d));
  assert_non_null(strstr(fx_diag_text(), "does not verify"));
  memcpy(p->code + push, saved, 5);
  assert_true(vm_verify(p, r->d));
  assert_int_equal(p->nverified, p->nfuncs);
  mt_rules_free(r);
}

/* A game that failed in an any-time action taken while it waited (vm_call_now)
 * keeps the decision it waited for; saved, it loads back as it was. */
static void a_failed_any_time_action_saves(void **s) {
  (void)s;
  mt_rules *r = fx_compile("action 1 \"boom\" boom(f: faction) { effect { let z = 0\n let x = 1 / z } }\n"
                           "game 9 \"t\" { let t = ask red \"where\" from {dunes, canyon} }");
  assert_non_null(r);
  char err[64];
  mt_game *g = mt_game_new(r, NULL, 0, 1, err, sizeof err);
  assert_int_equal(mt_start(g), MT_WAITING);
  int64_t args[2] = {0, 0};
  assert_int_equal(vm_call_now(&g->v, r->prog.actions[0].effect_fn, args, 2), -1);
  assert_int_equal(mt_status(g), MT_FAILED);
  char *text = NULL;
  mt_save_position(g, &text);
  FILE *f = fopen(scratch("test_vm_failed.yaml"), "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  free(text);
  mt_game *h = mt_load_position(r, scratch("test_vm_failed.yaml"));
  if (!h) fail_msg("%s", fx_diag_text());
  assert_int_equal(mt_hash(h), mt_hash(g));
  assert_string_equal(mt_error(h), mt_error(g));
  mt_game_free(g);
  mt_game_free(h);
  mt_rules_free(r);
}

/* A game suspended at a decision is saved as YAML and loaded back: the same
 * hash, and the same future. */
static void save_and_load_a_suspended_game(void **s) {
  (void)s;
  mt_load L = {.components = "tests/fixtures/race", .message = fx_message};
  mt_rules *r = mt_rules_load(&L);
  assert_non_null(r);
  char err[64];
  mt_game *g = mt_game_new(r, NULL, 0, 9, err, sizeof err);
  int st = mt_start(g);
  mt_choice legal[64];
  for (int i = 0; i < 7 && st == MT_WAITING; i++) {
    assert_true(mt_legal(g, legal, 64) > 0);
    st = mt_apply(g, &legal[0], NULL);
  }
  assert_int_equal(st, MT_WAITING);
  char *text = NULL;
  mt_save_position(g, &text);
  FILE *f = fopen(scratch("test_vm_position.yaml"), "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  free(text);
  mt_game *h = mt_load_position(r, scratch("test_vm_position.yaml"));
  if (!h) fail_msg("%s", fx_diag_text());
  assert_int_equal(mt_hash(h), mt_hash(g));
  assert_int_equal(mt_status(h), MT_WAITING);
  while (mt_status(g) == MT_WAITING) {
    size_t n = mt_legal(g, legal, 64);
    assert_int_equal(mt_legal(h, legal + 32, 32), n < 32 ? n : n);
    mt_apply(g, &legal[n - 1], NULL);
    mt_apply(h, &legal[n - 1], NULL);
  }
  assert_int_equal(mt_status(h), MT_FINISHED);
  assert_int_equal(mt_hash(h), mt_hash(g));
  mt_game_free(g);
  mt_game_free(h);
  mt_rules_free(r);
}

/* The test game plays to the end from its text. */
static void the_test_game_plays(void **s) {
  (void)s;
  mt_load L = {.components = "tests/fixtures/race", .message = fx_message};
  mt_rules *r = mt_rules_load(&L);
  assert_non_null(r);
  mark_opcodes(r);
  uint64_t h[2];
  for (int k = 0; k < 2; k++) {
    char err[64];
    mt_game *g = mt_game_new(r, NULL, 0, 5, err, sizeof err);
    int st = mt_start(g);
    int steps = 0;
    while (st == MT_WAITING && steps < 10000) {
      mt_choice legal[256];
      size_t n = mt_legal(g, legal, 256);
      assert_true(n > 0);
      st = mt_apply(g, &legal[(size_t)steps % (n < 256 ? n : 256)], NULL);
      steps++;
    }
    assert_int_equal(st, MT_FINISHED);
    h[k] = mt_hash(g);
    mt_game_free(g);
  }
  assert_int_equal(h[0], h[1]);
  mt_rules_free(r);
}

/* Console queries: a comprehension at the top of a query keeps its own variable. */
static void queries_on_a_live_game(void **s) {
  (void)s;
  mt_load L = {.components = "tests/fixtures/race", .message = fx_message};
  mt_rules *r = mt_rules_load(&L);
  assert_non_null(r);
  char err[64];
  mt_game *g = mt_game_new(r, NULL, 0, 1, err, sizeof err);
  int64_t v;
  int ty;
  strbuf e = {0};
  assert_true(game_eval(g, "[t in territories where attr(t, rank) >= 2]", &v, &ty, &e));
  strbuf out = {0};
  vm_format_value(&g->v, ty, v, &out);
  assert_string_equal(out.s, "{canyon, goal_line}");
  sb_free(&out);
  assert_true(game_eval(g, "sum(f in factions: fuel(f)) + count([f in factions where f != red])", &v, &ty, &e));
  assert_int_equal(v, 9 + 2);
  assert_false(game_eval(g, "tokens(red, dunez)", &v, &ty, &e));
  assert_non_null(strstr(e.s, "did you mean 'dunes'?"));
  sb_free(&e);
  mt_game_free(g);
  mt_rules_free(r);
}

/* Issue 9.11: a console query is compiled, run and forgotten: after many
 * queries (good ones, failing ones, ones with strings and big constants) the
 * rule set holds exactly the code, functions, strings and sources it held
 * before.  Before the fix each query stayed in the program (200,000 evals
 * grew the process by 120 MB). */
static void queries_are_forgotten(void **s) {
  (void)s;
  mt_load L = {.components = "tests/fixtures/race", .message = fx_message};
  mt_rules *r = mt_rules_load(&L);
  assert_non_null(r);
  char err[64];
  mt_game *g = mt_game_new(r, NULL, 0, 1, err, sizeof err);
  assert_non_null(g);
  int64_t v;
  int ty;
  strbuf e = {0};
  assert_true(game_eval(g, "1 + 1", &v, &ty, &e)); /* the first one may size tables once */
  cg_mark before = cg_get_mark(&r->prog);
  uint32_t sources = diag_nsources(r->d);
  for (int i = 0; i < 2000; i++) {
    char q[128];
    snprintf(q, sizeof q, "sum(f in factions: fuel(f)) + %d + 900000000000", i);
    assert_true(game_eval(g, q, &v, &ty, &e));
    assert_int_equal(v, 9 + i + 900000000000);
    sb_free(&e);
    assert_false(game_eval(g, "tokens(red, dunez)", &v, &ty, &e));
    sb_free(&e);
  }
  cg_mark after = cg_get_mark(&r->prog);
  assert_int_equal(after.nfuncs, before.nfuncs);
  assert_int_equal(after.ncode, before.ncode);
  assert_int_equal(after.nconsts, before.nconsts);
  assert_int_equal(after.nstrings, before.nstrings);
  assert_int_equal(after.nspans, before.nspans);
  assert_int_equal(diag_nsources(r->d), sources);
  /* and the game still plays and evaluates */
  assert_true(game_eval(g, "sum(f in factions: fuel(f))", &v, &ty, &e));
  assert_int_equal(v, 9);
  sb_free(&e);
  mt_game_free(g);
  mt_rules_free(r);
}

static void every_opcode_is_exercised(void **s) {
  (void)s;
  for (int o = 0; o < OP__COUNT; o++)
    if (!op_seen[o]) fail_msg("opcode %s is not exercised by any VM test", op_table[o].name);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(arithmetic),
      cmocka_unit_test(narration_for_some_factions),
      cmocka_unit_test(comparisons_and_logic),
      cmocka_unit_test(sets),
      cmocka_unit_test(aggregates_and_loops),
      cmocka_unit_test(values_procedures_and_vars),
      cmocka_unit_test(builtins_attrs_and_piles),
      cmocka_unit_test(builtins_bound_their_arguments),
      cmocka_unit_test(precedence_and_cancellation),
      cmocka_unit_test(triggers_once_cancellation),
      cmocka_unit_test(cancelled_triggers_skip_their_where),
      cmocka_unit_test(decisions),
      cmocka_unit_test(kinds_of_action_and_can),
      cmocka_unit_test(alike_first_guards_and_can),
      cmocka_unit_test(ranges_at_the_int64_limit),
      cmocka_unit_test(actions_and_refusals),
      cmocka_unit_test(domain_comprehension_keeps_parameter_slots),
      cmocka_unit_test(runtime_errors_name_rules),
      cmocka_unit_test(arithmetic_at_the_limits),
      cmocka_unit_test(decisions_have_a_work_budget),
      cmocka_unit_test(wide_ranges_are_intervals),
      cmocka_unit_test(heuristic_bot_on_a_wide_range),
      cmocka_unit_test(endless_guards_name_their_rule),
      cmocka_unit_test(totals),
      cmocka_unit_test(guards_narrow_ranges),
      cmocka_unit_test(computed_initial_values),
      cmocka_unit_test(sampling_is_legal_and_level_by_level),
      cmocka_unit_test(clone_and_resume),
      cmocka_unit_test(save_and_load_a_suspended_game),
      cmocka_unit_test(a_failed_any_time_action_saves),
      cmocka_unit_test(the_verifier_refuses_bad_code),
      cmocka_unit_test(the_test_game_plays),
      cmocka_unit_test(queries_on_a_live_game),
      cmocka_unit_test(queries_are_forgotten),
      cmocka_unit_test(every_opcode_is_exercised),
  };
  return cmocka_run_group_tests_name("vm", tests, fx_load, fx_unload);
}
