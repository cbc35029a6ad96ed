/* test_parser.c -- unit tests of the parser (stage 2: tokens -> AST).
 *
 * Each test parses a small source with ast_parse() and compares a compact
 * S-expression rendering of the tree (see dump() below) or the exact text of
 * the diagnostics, captured through the diag sink.  Every construct of
 * grammar/parser.y appears at least once; error recovery, the end-of-input
 * flag, the nesting limit and encoding checks are tested at the end. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "ast.h"
#include "diag.h"
#include "util.h"

struct fixture {
  arena arena;
  diag *diag;
  strbuf msgs; /* every diagnostic, concatenated */
  strbuf dump;
  bool incomplete;
};

static void capture(void *ud, diag_level level, const char *text) {
  (void)level;
  sb_puts(&((struct fixture *)ud)->msgs, text);
}

static int setup(void **state) {
  struct fixture *f = mt_calloc(1, sizeof *f);
  f->diag = diag_new(capture, f);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  struct fixture *f = *state;
  arena_free(&f->arena);
  diag_free(f->diag);
  sb_free(&f->msgs);
  sb_free(&f->dump);
  mt_free(f);
  return 0;
}

static const char *msgs(struct fixture *f) { return f->msgs.s ? f->msgs.s : ""; }

static node *parse_n(struct fixture *f, const char *src, size_t len) {
  uint32_t file = diag_add_source(f->diag, "t.rules", src, len);
  return ast_parse(&f->arena, f->diag, file, &f->incomplete);
}
static node *parse(struct fixture *f, const char *src) { return parse_n(f, src, strlen(src)); }

/* Operators: the token character, or 256.. in the order of ast.h's
 * multi-character operator enum (==, !=, <=, >=, and, or, not, in, neg). */
static const char *op_name(int op) {
  static const char *const multi[] = {"==", "!=", "<=", ">=", "and", "or", "not", "in", "neg"};
  static char c[2];
  if (op >= 256 && op < 256 + (int)(sizeof multi / sizeof *multi)) return multi[op - 256];
  c[0] = (char)op;
  c[1] = 0;
  return c;
}

/* The rendering: leaves print as themselves (42, true, none, "s", name,
 * #1.02 for a rule reference, _ for an absent child); other nodes as
 * (kind details kids...), operators as (op a b). */
static void dump_node(strbuf *b, const node *n) {
  static const char *const forms[] = {"rule", "ability", "value", "action", "phase", "step", "game"};
  static const char *const trigs[] = {"before", "after", "instead", "on"};
  static const char *const scopes[] = {"once", "phase", "turn", "game"};
  static const char *const aggs[] = {"count", "sum", "min_of", "max_of", "any", "all", "min_by", "max_by"};
  if (!n) {
    sb_puts(b, "_");
    return;
  }
  switch (n->kind) {
  case AST_INT: sb_printf(b, "%lld", (long long)n->ival); return;
  case AST_BOOL: sb_puts(b, n->ival ? "true" : "false"); return;
  case AST_NONE: sb_puts(b, "none"); return;
  case AST_NAME: sb_puts(b, n->name); return;
  case AST_RULEREF: sb_printf(b, "#%s", n->name); return;
  case AST_STR:
    if (n->nkids == 0) {
      sb_printf(b, "\"%s\"", n->str);
      return;
    }
    break;
  default: break;
  }
  sb_putc(b, '(');
  if (n->kind == AST_BINARY || n->kind == AST_UNARY) {
    sb_puts(b, op_name(n->op));
  } else {
    for (const char *k = ast_kind_name(n->kind); *k; k++) sb_putc(b, *k == ' ' ? '-' : *k);
    if (n->kind == AST_RULE) sb_printf(b, " %s", forms[n->ival]);
    if (n->kind == AST_TRIGGER) sb_printf(b, " %s", trigs[n->op]);
    if (n->kind == AST_AGGREGATE) sb_printf(b, " %s", aggs[n->op]);
    if (n->kind == AST_LINK) sb_puts(b, n->op == LINK_SUPERSEDES ? " supersedes" : " amends");
    if (n->kind == AST_TYPE && n->op) sb_puts(b, " set-of");
    if (n->kind == AST_CANCEL) sb_printf(b, " %s", scopes[n->ival]);
    if (n->name) sb_printf(b, " %s", n->name);
    if (n->str) sb_printf(b, " \"%s\"", n->str);
    if (n->kind == AST_RULE && n->flags) sb_printf(b, " tags=%u", (unsigned)n->flags);
  }
  for (uint32_t i = 0; i < n->nkids; i++) {
    sb_putc(b, ' ');
    dump_node(b, n->kids[i]);
  }
  sb_putc(b, ')');
}

static const char *dump(struct fixture *f, const node *n) {
  sb_free(&f->dump);
  dump_node(&f->dump, n);
  return f->dump.s;
}

/* Parses SRC, asserts no diagnostics, returns the dump of the whole file. */
static const char *ok(struct fixture *f, const char *src) {
  node *root = parse(f, src);
  assert_string_equal(msgs(f), "");
  assert_false(f->incomplete);
  assert_non_null(root);
  assert_int_equal(root->kind, AST_FILE);
  return dump(f, root);
}

/* The expression E, parsed as the body of a value. */
static const char *expr(struct fixture *f, const char *e) {
  char src[512];
  snprintf(src, sizeof src, "value 1 \"t\" v() = %s", e);
  node *root = parse(f, src);
  assert_string_equal(msgs(f), "");
  node *rule = ast_kid(root, 0);
  node *value = ast_kid(ast_kid(rule, 1), 0);
  assert_int_equal(value->kind, AST_VALUE);
  return dump(f, ast_kid(value, 3));
}

/* The first item of a rule body holding the statements S. */
static const char *stmt(struct fixture *f, const char *s) {
  char src[512];
  snprintf(src, sizeof src, "rule 1 \"t\" { %s }", s);
  node *root = parse(f, src);
  assert_string_equal(msgs(f), "");
  return dump(f, ast_kid(ast_kid(ast_kid(root, 0), 1), 0));
}

/* ---- declarations -------------------------------------------------------- */

static void empty_file(void **state) {
  struct fixture *f = *state;
  assert_string_equal(ok(f, ""), "(file)");
  assert_string_equal(ok(f, "  # only a comment\n\n"), "(file)");
}

static void event_and_var_declarations(void **state) {
  struct fixture *f = *state;
  assert_string_equal(ok(f, "event moved(f: faction, to: territory)\n"
                            "event tick()\n"
                            "var round: int = 0\n"
                            "var bid(f: faction): int\n"
                            "var seen: set of card\n"),
                      "(file (event moved (param f (type faction)) (param to (type territory))) (event tick) (var round (list) (type int) 0) (var bid (list (param f (type faction))) (type int) _) (var seen (list) (type set-of card) _))");
}

static void order_declaration(void **state) {
  struct fixture *f = *state;
  assert_string_equal(ok(f, "order triggers by seat"), "(file (order seat))");
}

static void order_needs_triggers(void **state) {
  struct fixture *f = *state;
  parse(f, "order events by seat");
  assert_string_equal(msgs(f), "t.rules:1:7: error: expected 'triggers' after 'order'\n"
                      "    1 | order events by seat\n"
                      "      |       ^~~~~~\n");
}

static void rule_with_tags_and_links(void **state) {
  struct fixture *f = *state;
  assert_string_equal(ok(f, "rule 1.06.03.05 \"Occupancy\" basic advanced supersedes 1.01 1.02, 1.03 "
                            "alliance amends wbc.2 note { }"),
                      "(file (rule rule 1.06.03.05 \"Occupancy\" tags=15 (list (link supersedes 1.01) (link supersedes 1.02) (link supersedes 1.03) (link amends wbc.2)) (list)))");
}

static void karama_windows(void **state) {
  struct fixture *f = *state;
  assert_string_equal(ok(f, "ability 2.01 \"a\" karama before { }\n"
                            "ability 2.02 \"b\" karama after { }\n"
                            "ability 2.03 \"c\" karama both { }\n"),
                      "(file (rule ability 2.01 \"a\" tags=16 (list) (list)) (rule ability 2.02 \"b\" tags=32 (list) (list)) (rule ability 2.03 \"c\" tags=48 (list) (list)))");
}

static void karama_window_must_be_known(void **state) {
  struct fixture *f = *state;
  parse(f, "ability 2.01 \"a\" karama sometimes { }");
  assert_string_equal(msgs(f), "t.rules:1:25: error: karama window must be 'before', 'after' or 'both'\n"
                      "    1 | ability 2.01 \"a\" karama sometimes { }\n"
                      "      |                         ^~~~~~~~~\n");
}

static void karama_without_window(void **state) {
  struct fixture *f = *state;
  parse(f, "ability 2.01 \"a\" karama { }");
  assert_string_equal(msgs(f), "t.rules:1:25: error: unexpected '{', expected 'before', 'after' or name\n"
                      "    1 | ability 2.01 \"a\" karama { }\n"
                      "      |                         ^\n");
}

static void value_shorthand(void **state) {
  struct fixture *f = *state;
  assert_string_equal(ok(f, "value 1.04 \"Speed\" speed(f: faction): int = 1\n"
                            "value 1.05 \"Toll\" supersedes 1.04 toll(green, to) when to == dunes = 0\n"),
                      "(file (rule value 1.04 \"Speed\" (list) (list (value speed (list (param f (type faction))) (type int) _ 1))) (rule value 1.05 \"Toll\" (list (link supersedes 1.04)) (list (value toll (list green to) _ (== to dunes) 0))))");
}

static void action_shorthand(void **state) {
  struct fixture *f = *state;
  assert_string_equal(ok(f, "action 1.06 \"Advance\" advance(f: faction, to: territory in neighbours(start_line), "
                            "n: int in 1..3) {\n"
                            "  require n > 0 because 1.06.01; forbid to == dunes\n"
                            "  cost n * 2\n"
                            "  effect { log \"go\" }\n"
                            "}"),
                      "(file (rule action 1.06 \"Advance\" (list) (list (action advance (list (param f (type faction)) (param to (type territory) (call neighbours start_line)) (param n (type int) (range 1 3))) (list (require 1.06.01 (> n 0)) (forbid (== to dunes)) (cost (* n 2)) (effect (block (log \"go\"))))))))");
}

static void phase_step_game(void **state) {
  struct fixture *f = *state;
  assert_string_equal(ok(f, "game 1 \"G\" { phase 1.1 \"P\" turn { step 1.1.1 \"S\" { finish } } }\n"
                            "phase 2 \"Q\" { }\n"),
                      "(file (rule game 1 \"G\" (list) (list (rule phase 1.1 \"P\" (list) (list (rule step 1.1.1 \"S\" (list) (list (finish)))) turn))) (rule phase 2 \"Q\" (list) (list)))");
}

static void faction_card_blocks(void **state) {
  struct fixture *f = *state;
  assert_string_equal(ok(f, "faction red \"Red\" { ability 2.01 \"x\" { } }\n"
                            "card nitro \"Nitro\" { rule 3.01 \"y\" { } rule 3.02 \"z\" { } }\n"
                            "faction blue { }\n"),
                      "(file (faction red \"Red\" (rule ability 2.01 \"x\" (list) (list))) (card nitro \"Nitro\" (rule rule 3.01 \"y\" (list) (list)) (rule rule 3.02 \"z\" (list) (list))) (faction blue))");
}

static void variant_items(void **state) {
  struct fixture *f = *state;
  assert_string_equal(ok(f, "variant sprint \"Sprint\" extends basic {\n"
                            "  disable 1.09\n"
                            "  replace 1.03 { value max_turns(): int = 6 }\n"
                            "  rule sprint.1 \"r\" supersedes 1.01 { }\n"
                            "  faction red \"R\" { }\n"
                            "  card jammer { }\n"
                            "}\n"
                            "variant advanced { }\n"),
                      "(file (variant sprint \"Sprint\" basic (disable 1.09) (replace 1.03 (list (value max_turns (list) (type int) _ 6))) (rule rule sprint.1 \"r\" (list (link supersedes 1.01)) (list)) (faction red \"R\") (card jammer)) (variant advanced _))");
}

static void integer_rule_numbers(void **state) {
  struct fixture *f = *state;
  assert_string_equal(ok(f, "rule 7 \"seven\" supersedes 3 amends 007 { }"), "(file (rule rule 7 \"seven\" (list (link supersedes 3) (link amends 7)) (list)))");
}

static void cost_reads_as_a_value(void **state) {
  struct fixture *f = *state;
  assert_string_equal(stmt(f, "action go(f: faction) { cost 2; require fuel(f) >= cost; effect { let c = cost } }"),
                      "(action go (list (param f (type faction))) (list (cost 2) (require (>= (call fuel f) cost)) "
                      "(effect (block (let c cost)))))");
}

/* ---- members --------------------------------------------------------------- */

static void value_members(void **state) {
  struct fixture *f = *state;
  assert_string_equal(stmt(f, "value speed(f: faction): int = 1"), "(value speed (list (param f (type faction))) (type int) _ 1)");
  assert_string_equal(stmt(f, "value speed(red) = 2"), "(value speed (list red) _ _ 2)");
  assert_string_equal(stmt(f, "value toll(g, t) when count(occupants(t)) > 1 = 0"), "(value toll (list g t) _ (> (call count (call occupants t)) 1) 0)");
  assert_string_equal(stmt(f, "value tolls(): set of int = {1}"), "(value tolls (list) (type set-of int) _ (set-literal 1))");
}

static void action_check_members(void **state) {
  struct fixture *f = *state;
  assert_string_equal(stmt(f, "action rest(f: faction) { effect { } }"), "(action rest (list (param f (type faction))) (list (effect (block))))");
  assert_string_equal(stmt(f, "check advance(f, to) where to == dunes { forbid true because 3.02; require false }"),
                      "(check advance (list f to) (== to dunes) (list (forbid 3.02 true) (require false)))");
  assert_string_equal(stmt(f, "check pass() { }"), "(check pass (list) _ (list))");
}

static void trigger_members(void **state) {
  struct fixture *f = *state;
  assert_string_equal(stmt(f, "before moved(f, to) where f == red { }"), "(trigger before moved (list f to) (== f red) (block))");
  assert_string_equal(stmt(f, "after moved(f, to) { }"), "(trigger after moved (list f to) _ (block))");
  assert_string_equal(stmt(f, "on tick() { }"), "(trigger on tick (list) _ (block))");
  assert_string_equal(stmt(f, "instead of moved(f, to) where to == dunes { break }"), "(trigger instead moved (list f to) (== to dunes) (block (break)))");
}

static void procedure_member(void **state) {
  struct fixture *f = *state;
  assert_string_equal(stmt(f, "procedure pay(f: faction, n: int) { set fuel(f) = fuel(f) - n }"), "(procedure pay (list (param f (type faction)) (param n (type int))) (block (set fuel (list f) (- (call fuel f) n))))");
}

static void invariant_member(void **state) {
  struct fixture *f = *state;
  assert_string_equal(stmt(f, "invariant \"fuel is bounded\" all(g in factions: fuel(g) <= 20)"),
                      "(invariant \"fuel is bounded\" (aggregate all g factions _ (<= (call fuel g) 20)))");
}

static void karama_card_and_name(void **state) {
  struct fixture *f = *state;
  assert_string_equal(ok(f, "card karama \"Karama\" { rule 3.01 \"k\" { let c = karama } }"),
                      "(file (card karama \"Karama\" (rule rule 3.01 \"k\" (list) (list (let c karama)))))");
}

/* ---- statements ------------------------------------------------------------ */

static void let_set_log_finish(void **state) {
  struct fixture *f = *state;
  assert_string_equal(stmt(f, "let x = 1"), "(let x 1)");
  assert_string_equal(stmt(f, "set round = round + 1"), "(set round (list) (+ round 1))");
  assert_string_equal(stmt(f, "set fuel(f) = 3"), "(set fuel (list f) 3)");
  assert_string_equal(stmt(f, "log \"{f} moves\""), "(log \"{f} moves\")");
  assert_string_equal(stmt(f, "finish"), "(finish)");
  assert_string_equal(stmt(f, "break"), "(break)");
}

static void if_chains(void **state) {
  struct fixture *f = *state;
  assert_string_equal(stmt(f, "if a { }"), "(if a (block) _)");
  assert_string_equal(stmt(f, "if a { finish } else if b { break } else { }"), "(if a (block (finish)) (if b (block (break)) (block)))");
}

static void for_loops(void **state) {
  struct fixture *f = *state;
  assert_string_equal(stmt(f, "for x in factions { }"), "(for x factions _ _ (block))");
  assert_string_equal(stmt(f, "for t in 1..5 where t > 2 by -t { break }"), "(for t (range 1 5) (> t 2) (neg t) (block (break)))");
}

static void signal_run_calls(void **state) {
  struct fixture *f = *state;
  assert_string_equal(stmt(f, "signal moved(red, dunes)"), "(signal moved red dunes)");
  assert_string_equal(stmt(f, "signal tick()"), "(signal tick)");
  assert_string_equal(stmt(f, "run turn"), "(run turn)");
  assert_string_equal(stmt(f, "run pay(red, 2)"), "(run pay red 2)");
  assert_string_equal(stmt(f, "shuffle(pile(gear_deck, none))"), "(call-statement (call shuffle (call pile gear_deck none)))");
}

static void decisions(void **state) {
  struct fixture *f = *state;
  assert_string_equal(stmt(f, "let b = ask red \"Bid?\" from 0..fuel(red)"), "(let b (ask red \"Bid?\" (range 0 (call fuel red))))");
  assert_string_equal(stmt(f, "may red \"Burn it?\" { set fuel(red) = 1 }"), "(may red \"Burn it?\" (block (set fuel (list red) 1)))");
  assert_string_equal(stmt(f, "act f: advance, rest"), "(act f (list advance rest))");
  assert_string_equal(stmt(f, "secret f in factions { set bid(f) = ask f \"Bid\" from 0..3 }"), "(secret f factions (block (set bid (list f) (ask f \"Bid\" (range 0 3)))))");
}

static void cancel_scopes(void **state) {
  struct fixture *f = *state;
  assert_string_equal(stmt(f, "cancel 2.03 for once"), "(cancel once #2.03 _)");
  assert_string_equal(stmt(f, "cancel 2.03 for phase"), "(cancel phase #2.03 _)");
  assert_string_equal(stmt(f, "cancel r for turn"), "(cancel turn r _)");
  assert_string_equal(stmt(f, "cancel 2.03 for game"), "(cancel game #2.03 _)");
}

static void cancel_scope_must_be_known(void **state) {
  struct fixture *f = *state;
  parse(f, "rule 1 \"t\" { cancel 2.03 for ever }");
  assert_string_equal(msgs(f), "t.rules:1:30: error: cancellation scope must be 'once', 'phase', 'turn' or 'game'\n"
                      "    1 | rule 1 \"t\" { cancel 2.03 for ever }\n"
                      "      |                              ^~~~\n");
}

static void semicolons_separate_items(void **state) {
  struct fixture *f = *state;
  assert_string_equal(ok(f, "rule 1 \"t\" { let a = 1; let b = 2;; }"), "(file (rule rule 1 \"t\" (list) (list (let a 1) (let b 2))))");
}

/* ---- expressions ----------------------------------------------------------- */

static void literals_and_names(void **state) {
  struct fixture *f = *state;
  assert_string_equal(expr(f, "42"), "42");
  assert_string_equal(expr(f, "true"), "true");
  assert_string_equal(expr(f, "false"), "false");
  assert_string_equal(expr(f, "none"), "none");
  assert_string_equal(expr(f, "\"text\""), "\"text\"");
  assert_string_equal(expr(f, "dunes"), "dunes");
  assert_string_equal(expr(f, "2.03"), "#2.03");
  assert_string_equal(expr(f, "1000000000000"), "1000000000000");
}

static void arithmetic_precedence(void **state) {
  struct fixture *f = *state;
  assert_string_equal(expr(f, "1 + 2 * 3"), "(+ 1 (* 2 3))");
  assert_string_equal(expr(f, "(1 + 2) * 3"), "(* (+ 1 2) 3)");
  assert_string_equal(expr(f, "1 - 2 - 3"), "(- (- 1 2) 3)");
  assert_string_equal(expr(f, "-a * b % c / d"), "(/ (% (* (neg a) b) c) d)");
  assert_string_equal(expr(f, "a | b & c - d"), "(- (& (| a b) c) d)");
}

static void logic_precedence(void **state) {
  struct fixture *f = *state;
  assert_string_equal(expr(f, "a or b and not c == d"), "(or a (and b (not (== c d))))");
  assert_string_equal(expr(f, "not a < b"), "(not (< a b))");
  assert_string_equal(expr(f, "x in s and y != z"), "(and (in x s) (!= y z))");
  assert_string_equal(expr(f, "a <= b or c >= d"), "(or (<= a b) (>= c d))");
}

static void conditional_and_ranges(void **state) {
  struct fixture *f = *state;
  assert_string_equal(expr(f, "a ? b : c ? d : e"), "(conditional a b (conditional c d e))");
  assert_string_equal(expr(f, "a or b ? 1 + 2 : 3"), "(conditional (or a b) (+ 1 2) 3)");
  assert_string_equal(expr(f, "1..n + 1"), "(range 1 (+ n 1))");
}

static void comparisons_do_not_chain(void **state) {
  struct fixture *f = *state;
  parse(f, "value 1 \"t\" v() = a < b < c");
  assert_string_equal(msgs(f), "t.rules:1:25: error: unexpected '<'\n"
                      "    1 | value 1 \"t\" v() = a < b < c\n"
                      "      |                         ^\n");
}

static void calls_sets_aggregates(void **state) {
  struct fixture *f = *state;
  assert_string_equal(expr(f, "f()"), "(call f)");
  assert_string_equal(expr(f, "attr(to, toll)"), "(call attr to toll)");
  assert_string_equal(expr(f, "{}"), "(set-literal)");
  assert_string_equal(expr(f, "{red, blue} - {blue}"), "(- (set-literal red blue) (set-literal blue))");
  assert_string_equal(expr(f, "[t in territories where t != dunes]"), "(comprehension t territories (!= t dunes))");
  assert_string_equal(expr(f, "[t in territories]"), "(comprehension t territories _)");
  assert_string_equal(expr(f, "sum(f in factions where f != red: fuel(f))"), "(aggregate sum f factions (!= f red) (call fuel f))");
  assert_string_equal(expr(f, "any(f in factions: true)"), "(aggregate any f factions _ true)");
  assert_string_equal(expr(f, "all(f in factions: true)"), "(aggregate all f factions _ true)");
  assert_string_equal(expr(f, "min_of(f in factions: 1)"), "(aggregate min_of f factions _ 1)");
  assert_string_equal(expr(f, "max_by(f in factions where f != red: 1)"), "(aggregate max_by f factions (!= f red) 1)");
  assert_string_equal(expr(f, "max_of(f in factions: 1)"), "(aggregate max_of f factions _ 1)");
}

/* ---- spans ----------------------------------------------------------------- */

static void spans_point_at_source(void **state) {
  struct fixture *f = *state;
  /*                 0         1         2         3
   *                 0123456789012345678901234567890123456 */
  node *root = parse(f, "value 1.04 \"Speed\" speed(f: faction) = a + bb");
  assert_string_equal(msgs(f), "");
  node *rule = ast_kid(root, 0);
  assert_int_equal(rule->span.start, 6); /* a rule's span is its number */
  assert_int_equal(rule->span.end, 10);
  node *value = ast_kid(ast_kid(rule, 1), 0);
  assert_int_equal(value->span.start, 19); /* its name */
  assert_int_equal(value->span.end, 24);
  node *param = ast_kid(ast_kid(value, 0), 0);
  assert_int_equal(param->kind, AST_PARAM);
  assert_int_equal(param->span.start, 25);
  assert_int_equal(param->span.end, 26);
  node *plus = ast_kid(value, 3);
  assert_int_equal(plus->kind, AST_BINARY);
  assert_int_equal(plus->span.start, 41); /* a binary node's span is its operator */
  node *bb = ast_kid(plus, 1);
  assert_int_equal(bb->span.start, 43);
  assert_int_equal(bb->span.end, 45);
}

static void call_span_covers_arguments(void **state) {
  struct fixture *f = *state;
  node *root = parse(f, "value 1 \"t\" v() = max(1, 22)");
  node *call = ast_kid(ast_kid(ast_kid(ast_kid(root, 0), 1), 0), 3);
  assert_int_equal(call->kind, AST_CALL);
  assert_int_equal(call->span.start, 18);
  assert_int_equal(call->span.end, 28);
}

/* ---- errors and recovery --------------------------------------------------- */

static void unexpected_token(void **state) {
  struct fixture *f = *state;
  parse(f, "rule 1 \"t\" { let = 2 }");
  assert_string_equal(msgs(f), "t.rules:1:18: error: unexpected '=', expected name\n"
                      "    1 | rule 1 \"t\" { let = 2 }\n"
                      "      |                  ^\n");
  assert_false(f->incomplete);
}

static void missing_title(void **state) {
  struct fixture *f = *state;
  parse(f, "rule 1.02 { }");
  assert_string_equal(msgs(f), "t.rules:1:11: error: unexpected '{', expected string\n"
                      "    1 | rule 1.02 { }\n"
                      "      |           ^\n");
}

static void recovers_at_rule_boundaries(void **state) {
  struct fixture *f = *state;
  node *root = parse(f, "rule 1 \"a\" { let = 1 }\n"
                        "rule 2 \"b\" { set }\n"
                        "value 3 \"c\" v() = 1 +\n"
                        "rule 4 \"d\" { let ok = 1 }\n");
  assert_string_equal(msgs(f), "t.rules:1:18: error: unexpected '=', expected name\n"
                      "    1 | rule 1 \"a\" { let = 1 }\n"
                      "      |                  ^\n"
                      "t.rules:2:18: error: unexpected '}', expected 'phase' or name\n"
                      "    2 | rule 2 \"b\" { set }\n"
                      "      |                  ^\n"
                      "t.rules:4:1: error: unexpected 'rule'\n"
                      "    4 | rule 4 \"d\" { let ok = 1 }\n"
                      "      | ^~~~\n");
  assert_string_equal(dump(f, root), "(file (rule rule 1 \"a\" (list) (list)) (rule rule 2 \"b\" (list) (list)) (rule rule 4 \"d\" (list) (list (let ok 1))))");
}

static void incomplete_at_end_of_input(void **state) {
  struct fixture *f = *state;
  parse(f, "rule 1 \"t\" {\n  let x = 1\n");
  assert_true(f->incomplete);
  assert_string_equal(msgs(f), "t.rules:2:12: error: unexpected end of input\n"
                      "    2 |   let x = 1\n"
                      "      |            ^\n");
}

static void complete_input_is_not_incomplete(void **state) {
  struct fixture *f = *state;
  parse(f, "rule 1 \"t\" { let x = }");
  assert_false(f->incomplete);
}

static void unterminated_string_is_incomplete(void **state) {
  struct fixture *f = *state;
  parse(f, "rule 1 \"t { }\n");
  assert_true(f->incomplete);
  assert_string_equal(msgs(f), "t.rules:1:8: error: unterminated string\n"
                      "    1 | rule 1 \"t { }\n"
                      "      |        ^~~~~~\n"
                      "t.rules:1:14: error: unexpected end of input, expected 'supersedes', 'amends', 'basic', 'advanced', 'alliance', 'note', 'karama' or '{'\n"
                      "    1 | rule 1 \"t { }\n"
                      "      |              ^\n");
}

static void nesting_limit(void **state) {
  struct fixture *f = *state;
  strbuf b = {0};
  sb_puts(&b, "value 1 \"t\" v() = ");
  for (int i = 0; i < 5000; i++) sb_putc(&b, '(');
  sb_putc(&b, '1');
  for (int i = 0; i < 5000; i++) sb_putc(&b, ')');
  parse(f, b.s);
  sb_free(&b);
  assert_non_null(strstr(msgs(f), "error: input is nested too deeply (more than 1000 levels)\n"));
}

static void moderate_nesting_is_fine(void **state) {
  struct fixture *f = *state;
  strbuf b = {0};
  sb_puts(&b, "value 1 \"t\" v() = ");
  for (int i = 0; i < 500; i++) sb_putc(&b, '(');
  sb_putc(&b, '1');
  for (int i = 0; i < 500; i++) sb_putc(&b, ')');
  node *root = parse(f, b.s);
  sb_free(&b);
  assert_string_equal(msgs(f), "");
  assert_int_equal(ast_kid(ast_kid(ast_kid(ast_kid(root, 0), 1), 0), 3)->ival, 1);
}

static void invalid_utf8_rejected(void **state) {
  struct fixture *f = *state;
  node *root = parse(f, "rule 1 \"caf\xc3\" { }");
  assert_string_equal(msgs(f), "t.rules:1:12: error: invalid UTF-8 at byte offset 11: this is not a rules file\n"
                      "    1 | rule 1 \"caf?\" { }\n"
                      "      |            ^\n");
  assert_int_equal(root->nkids, 0);
}

static void valid_utf8_in_strings(void **state) {
  struct fixture *f = *state;
  assert_string_equal(ok(f, "rule 1 \"Tuek\xe2\x80\x99s Sietch\" { }"), "(file (rule rule 1 \"Tuek\xe2\x80\x99s Sietch\" (list) (list)))");
}

static void nul_byte_rejected(void **state) {
  struct fixture *f = *state;
  node *root = parse_n(f, "rule 1 \"t\" {\0}", 14);
  assert_string_equal(msgs(f), "t.rules:1:13: error: NUL byte at byte offset 12: this is not a rules file\n"
                      "    1 | rule 1 \"t\" { }\n"
                      "      |             ^\n");
  assert_int_equal(root->nkids, 0);
}

static void integer_overflow(void **state) {
  struct fixture *f = *state;
  parse(f, "value 1 \"t\" v() = 1000000000001");
  assert_string_equal(msgs(f), "t.rules:1:19: error: integer literal '1000000000001' is too large (the limit is 10^12)\n"
                      "    1 | value 1 \"t\" v() = 1000000000001\n"
                      "      |                   ^~~~~~~~~~~~~\n");
}

static void invalid_character(void **state) {
  struct fixture *f = *state;
  parse(f, "value 1 \"t\" v() = 1 $ 2");
  assert_string_equal(msgs(f), "t.rules:1:21: error: invalid character\n"
                      "    1 | value 1 \"t\" v() = 1 $ 2\n"
                      "      |                     ^\n");
}

static void three_errors_three_carets(void **state) {
  struct fixture *f = *state;
  parse(f, "rule 1 \"a\" { let = 1 }\n"
           "value 2 \"b\" v() = 99999999999999\n"
           "rule 3 \"c\" { log @ }\n");
  assert_string_equal(msgs(f), "t.rules:1:18: error: unexpected '=', expected name\n"
                      "    1 | rule 1 \"a\" { let = 1 }\n"
                      "      |                  ^\n"
                      "t.rules:2:19: error: integer literal '99999999999999' is too large (the limit is 10^12)\n"
                      "    2 | value 2 \"b\" v() = 99999999999999\n"
                      "      |                   ^~~~~~~~~~~~~~\n"
                      "t.rules:3:18: error: invalid character, expected 'for' or string\n"
                      "    3 | rule 3 \"c\" { log @ }\n"
                      "      |                  ^\n");
}

int main(void) {
  const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
      T(empty_file), T(event_and_var_declarations), T(order_declaration), T(order_needs_triggers),
      T(rule_with_tags_and_links), T(karama_windows), T(karama_window_must_be_known),
      T(karama_without_window), T(value_shorthand), T(action_shorthand), T(phase_step_game),
      T(faction_card_blocks), T(cost_reads_as_a_value), T(variant_items), T(integer_rule_numbers), T(value_members),
      T(action_check_members), T(trigger_members), T(procedure_member), T(invariant_member), T(karama_card_and_name), T(let_set_log_finish),
      T(if_chains), T(for_loops), T(signal_run_calls), T(decisions), T(cancel_scopes),
      T(cancel_scope_must_be_known), T(semicolons_separate_items), T(literals_and_names),
      T(arithmetic_precedence), T(logic_precedence), T(conditional_and_ranges),
      T(comparisons_do_not_chain), T(calls_sets_aggregates), T(spans_point_at_source),
      T(call_span_covers_arguments), T(unexpected_token), T(missing_title),
      T(recovers_at_rule_boundaries), T(incomplete_at_end_of_input),
      T(complete_input_is_not_incomplete), T(unterminated_string_is_incomplete), T(nesting_limit),
      T(moderate_nesting_is_fine), T(invalid_utf8_rejected), T(valid_utf8_in_strings),
      T(nul_byte_rejected), T(integer_overflow), T(invalid_character), T(three_errors_three_carets),
#undef T
  };
  return cmocka_run_group_tests_name("parser", tests, NULL, NULL);
}
