/* test_lexer.c -- unit tests of the scanner (stage 1: bytes -> tokens).
 *
 * Drives the flex scanner directly (mtlex) over small buffers and renders the
 * token stream as "KIND@start-end" words, with the value of names, numbers
 * and strings, so one string comparison checks kinds, values and byte spans.
 * Diagnostics are captured through the diag sink and compared exactly. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "ast.h"
#include "diag.h"
#include "lex_state.h"
#include "util.h"
/* parser.h before lexer.h: the scanner's header needs MTSTYPE and MTLTYPE */
#include "parser.h"
#include "lexer.h"

struct fixture {
  arena arena;
  diag *diag;
  strbuf msgs;
  strbuf toks;
  int incomplete;
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
  sb_free(&f->toks);
  mt_free(f);
  return 0;
}

static const char *msgs(struct fixture *f) { return f->msgs.s ? f->msgs.s : ""; }

/* Token names for the rendering: keywords and punctuation by their text. */
static const char *tok_name(int t) {
  switch (t) {
  case T_NAME: return "NAME";
  case T_INT: return "INT";
  case T_STRING: return "STRING";
  case T_RULEID: return "RULEID";
  case T_AGG: return "AGG";
  case T_MTUNDEF: return "UNDEF";
  case T_EQ: return "==";
  case T_NE: return "!=";
  case T_LE: return "<=";
  case T_GE: return ">=";
  case T_DOTDOT: return "..";
  case T_RULE: return "rule";
  case T_VALUE: return "value";
  case T_LET: return "let";
  case T_IN: return "in";
  case T_OF: return "of";
  case T_SET: return "set";
  case T_KARAMA: return "karama";
  case T_BEFORE: return "before";
  case T_AND: return "and";
  case T_NOT: return "not";
  case T_TRUE: return "true";
  case T_NONE: return "none";
  case T_FINISH: return "finish";
  default: break;
  }
  static char c[8];
  if (t > 0 && t < 256) {
    c[0] = '\'';
    c[1] = (char)t;
    c[2] = '\'';
    c[3] = 0;
    return c;
  }
  return "KEYWORD";
}

/* Scans SRC (LEN bytes) to the end and returns the rendered token list. */
static const char *lex_n(struct fixture *f, const char *src, size_t len) {
  uint32_t file = diag_add_source(f->diag, "t.rules", src, len);
  struct lex_state ls = {.arena = &f->arena, .diag = f->diag, .file = file};
  yyscan_t sc;
  assert_int_equal(mtlex_init_extra(&ls, &sc), 0);
  YY_BUFFER_STATE buf = mt_scan_bytes(src, (int)len, sc);
  sb_free(&f->toks);
  sb_puts(&f->toks, "");
  for (;;) {
    MTSTYPE v;
    MTLTYPE loc;
    int t = mtlex(&v, &loc, sc);
    if (t == T_END) break;
    if (f->toks.n) sb_putc(&f->toks, ' ');
    sb_puts(&f->toks, tok_name(t));
    if (t == T_NAME || t == T_RULEID) sb_printf(&f->toks, "(%s)", v.T_NAME);
    if (t == T_STRING) sb_printf(&f->toks, "(%s)", v.T_STRING);
    if (t == T_INT) sb_printf(&f->toks, "(%lld)", (long long)v.T_INT);
    if (t == T_AGG) sb_printf(&f->toks, "(%d)", v.T_AGG);
    sb_printf(&f->toks, "@%u-%u", (unsigned)loc.start, (unsigned)loc.end);
    assert_int_equal(loc.file, file);
  }
  mt_delete_buffer(buf, sc);
  mtlex_destroy(sc);
  f->incomplete = ls.incomplete;
  return f->toks.s;
}
static const char *lex(struct fixture *f, const char *src) { return lex_n(f, src, strlen(src)); }

static void empty_input(void **state) {
  struct fixture *f = *state;
  assert_string_equal(lex(f, ""), "");
  assert_string_equal(lex(f, " \t\r\n  "), "");
}

static void comments_are_skipped(void **state) {
  struct fixture *f = *state;
  assert_string_equal(lex(f, "# a comment\nrule # another\n#last"), "rule@12-16");
}

static void keywords_and_names(void **state) {
  struct fixture *f = *state;
  assert_string_equal(lex(f, "rule rules _rule value2 Let let"), "rule@0-4 NAME(rules)@5-10 NAME(_rule)@11-16 NAME(value2)@17-23 NAME(Let)@24-27 let@28-31");
  assert_string_equal(lex(f, "karama before set of in and not true none finish"), "karama@0-6 before@7-13 set@14-17 of@18-20 in@21-23 and@24-27 not@28-31 true@32-36 none@37-41 finish@42-48");
}

static void every_keyword_is_reserved(void **state) {
  struct fixture *f = *state;
  static const char *const kws[] = {
      "event", "var", "rule", "ability", "value", "action", "phase", "step", "game", "faction",
      "card", "variant", "extends", "disable", "replace", "supersedes", "amends", "basic",
      "advanced", "alliance", "note", "karama", "before", "after", "instead", "of", "on",
      "procedure", "check", "require", "forbid", "because", "cost", "effect", "when", "where",
      "order", "let", "set", "if", "else", "for", "in", "by", "break", "signal", "run", "may", "act",
      "ask", "from", "secret", "cancel", "log", "finish", "and", "or", "not", "true", "false", "none",
      "invariant"};
  for (size_t i = 0; i < sizeof kws / sizeof *kws; i++) {
    const char *t = lex(f, kws[i]);
    assert_null(strstr(t, "NAME"));
    assert_int_equal(strncmp(t, "AGG", 3) != 0, 1);
  }
}

static void aggregates(void **state) {
  struct fixture *f = *state;
  assert_string_equal(lex(f, "sum any all min_of max_of count"), "AGG(1)@0-3 AGG(4)@4-7 AGG(5)@8-11 AGG(2)@12-18 AGG(3)@19-25 NAME(count)@26-31");
  assert_string_equal(lex(f, "min_by max_by"), "AGG(6)@0-6 AGG(7)@7-13");
}

static void integers(void **state) {
  struct fixture *f = *state;
  assert_string_equal(lex(f, "0 42 007 1000000000000"), "INT(0)@0-1 INT(42)@2-4 INT(7)@5-8 INT(1000000000000)@9-22");
  assert_string_equal(msgs(f), "");
}

static void integer_too_large(void **state) {
  struct fixture *f = *state;
  assert_string_equal(lex(f, "x = 1000000000001"), "NAME(x)@0-1 '='@2-3 INT(0)@4-17");
  assert_string_equal(msgs(f), "t.rules:1:5: error: integer literal '1000000000001' is too large (the limit is 10^12)\n"
                      "    1 | x = 1000000000001\n"
                      "      |     ^~~~~~~~~~~~~\n");
}

static void integer_out_of_range(void **state) {
  struct fixture *f = *state;
  assert_string_equal(lex(f, "99999999999999999999999"), "INT(0)@0-23");
  assert_string_equal(msgs(f), "t.rules:1:1: error: integer literal '99999999999999999999999' is too large (the limit is 10^12)\n"
                      "    1 | 99999999999999999999999\n"
                      "      | ^~~~~~~~~~~~~~~~~~~~~~~\n");
}

static void rule_numbers(void **state) {
  struct fixture *f = *state;
  assert_string_equal(lex(f, "1.06.03.05 2.04 wbc.2 house.storm-cards"), "RULEID(1.06.03.05)@0-10 RULEID(2.04)@11-15 RULEID(wbc.2)@16-21 RULEID(house.storm-cards)@22-39");
}

static void ranges_are_not_rule_numbers(void **state) {
  struct fixture *f = *state;
  assert_string_equal(lex(f, "1..3 a..b 1 .. 2"), "INT(1)@0-1 ..@1-3 INT(3)@3-4 NAME(a)@5-6 ..@6-8 NAME(b)@8-9 INT(1)@10-11 ..@12-14 INT(2)@15-16");
}

static void strings(void **state) {
  struct fixture *f = *state;
  assert_string_equal(lex(f, "\"plain\" \"a \\\"quoted\\\" word\" \"tab\\there\" \"\""), "STRING(plain)@0-7 STRING(a \"quoted\" word)@8-27 STRING(tab\x09""here)@28-39 STRING()@40-42");
}

static void string_holes_are_kept(void **state) {
  struct fixture *f = *state;
  assert_string_equal(lex(f, "\"{f} moves to {to}\""), "STRING({f} moves to {to})@0-19");
}

static void unterminated_string(void **state) {
  struct fixture *f = *state;
  assert_string_equal(lex(f, "log \"no end\nrule"), "KEYWORD@0-3 STRING(no end)@4-11 rule@12-16");
  assert_true(f->incomplete);
  assert_string_equal(msgs(f), "t.rules:1:5: error: unterminated string\n"
                      "    1 | log \"no end\n"
                      "      |     ^~~~~~~\n");
}

static void operators(void **state) {
  struct fixture *f = *state;
  assert_string_equal(lex(f, "== != <= >= .. + - * / % < > = ? : , ; ( ) { } [ ] & |"), "==@0-2 !=@3-5 <=@6-8 >=@9-11 ..@12-14 '+'@15-16 '-'@17-18 '*'@19-20 '/'@21-22 '%'@23-24 '<'@25-26 '>'@27-28 '='@29-30 '?'@31-32 ':'@33-34 ','@35-36 ';'@37-38 '('@39-40 ')'@41-42 '{'@43-44 '}'@45-46 '['@47-48 ']'@49-50 '&'@51-52 '|'@53-54");
}

static void operators_without_spaces(void **state) {
  struct fixture *f = *state;
  assert_string_equal(lex(f, "a<=b==c!=-1"), "NAME(a)@0-1 <=@1-3 NAME(b)@3-4 ==@4-6 NAME(c)@6-7 !=@7-9 '-'@9-10 INT(1)@10-11");
}

static void invalid_characters(void **state) {
  struct fixture *f = *state;
  assert_string_equal(lex(f, "a $ b @ ! ."), "NAME(a)@0-1 UNDEF@2-3 NAME(b)@4-5 UNDEF@6-7 UNDEF@8-9 UNDEF@10-11");
  assert_string_equal(msgs(f), "");
}

static void spans_count_bytes(void **state) {
  struct fixture *f = *state;
  /* the UTF-8 apostrophe is three bytes: the span of `x` starts at byte 11 */
  assert_string_equal(lex(f, "\"Tuek\xe2\x80\x99s\" x"), "STRING(Tuek\xe2""\x80""\x99""s)@0-10 NAME(x)@11-12");
}

int main(void) {
  const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
      T(empty_input), T(comments_are_skipped), T(keywords_and_names), T(every_keyword_is_reserved),
      T(aggregates), T(integers), T(integer_too_large), T(integer_out_of_range), T(rule_numbers),
      T(ranges_are_not_rule_numbers), T(strings), T(string_holes_are_kept), T(unterminated_string),
      T(operators), T(operators_without_spaces), T(invalid_characters), T(spans_count_bytes),
#undef T
  };
  return cmocka_run_group_tests_name("lexer", tests, NULL, NULL);
}
