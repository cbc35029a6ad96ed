/* test_diag.c -- diagnostics: the gcc shape, carets under the exact bytes,
 * notes, tabs and UTF-8 in echoed lines, binary bytes never echoed raw, long
 * lines windowed, the error limit, and "did you mean" suggestions. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "diag.h"
#include "util.h"

static strbuf out;
static void capture(void *ud, diag_level lv, const char *text) {
  (void)ud;
  (void)lv;
  sb_puts(&out, text);
}

static diag *fresh(void) {
  sb_free(&out);
  return diag_new(capture, NULL);
}

static void caret_under_token(void **s) {
  (void)s;
  diag *d = fresh();
  const char *src = "line one\n  value x = 3\n";
  uint32_t f = diag_add_source(d, "a.rules", src, strlen(src));
  diag_error(d, (mt_span){f, 17, 18}, "bad %s", "x");
  assert_string_equal(out.s, "a.rules:2:9: error: bad x\n"
                             "    2 |   value x = 3\n"
                             "      |         ^\n");
  sb_free(&out);
  diag_note(d, (mt_span){f, 0, 4}, "first here");
  assert_string_equal(out.s, "a.rules:1:1: note: first here\n"
                             "    1 | line one\n"
                             "      | ^~~~\n");
  assert_int_equal(diag_errors(d), 1);
  diag_free(d);
}

static void tabs_and_utf8_keep_columns(void **s) {
  (void)s;
  diag *d = fresh();
  const char *src = "\t\"\xe2\x9c\xb7\" x";
  uint32_t f = diag_add_source(d, "u.rules", src, strlen(src));
  diag_error(d, (mt_span){f, 6, 7}, "here");
  assert_string_equal(out.s, "u.rules:1:7: error: here\n"
                             "    1 | \t\"\xe2\x9c\xb7\" x\n"
                             "      | \t   ^\n");
  diag_free(d);
}

static void binary_bytes_are_not_echoed(void **s) {
  (void)s;
  diag *d = fresh();
  const char src[] = {'a', (char)0xff, (char)0x80, 1, 'b'};
  uint32_t f = diag_add_source(d, "b.rules", src, sizeof src);
  diag_error(d, (mt_span){f, 1, 2}, "garbage");
  assert_string_equal(out.s, "b.rules:1:2: error: garbage\n"
                             "    1 | a?? b\n"
                             "      |  ^\n");
  diag_free(d);
}

static void long_lines_are_windowed(void **s) {
  (void)s;
  diag *d = fresh();
  char *big = mt_alloc(1000001);
  memset(big, 'x', 1000000);
  big[1000000] = 0;
  uint32_t f = diag_add_source(d, "l.rules", big, 1000000);
  diag_error(d, (mt_span){f, 500000, 500001}, "deep inside");
  assert_non_null(strstr(out.s, "l.rules:1:500001: error: deep inside\n"));
  assert_true(out.n < 600); /* the echoed window, not the megabyte */
  mt_free(big);
  diag_free(d);
}

static void error_limit(void **s) {
  (void)s;
  diag *d = fresh();
  diag_set_limit(d, 2);
  uint32_t f = diag_add_source(d, "e.rules", "abc", 3);
  for (int i = 0; i < 5; i++) diag_error(d, (mt_span){f, 0, 1}, "e%d", i);
  diag_note(d, (mt_span){f, 0, 1}, "dropped with its error");
  assert_int_equal(diag_errors(d), 5);
  assert_null(strstr(out.s, "e2"));
  assert_null(strstr(out.s, "dropped"));
  assert_non_null(strstr(out.s, "too many errors (2)"));
  diag_free(d);
}

static void locations_without_a_file(void **s) {
  (void)s;
  diag *d = fresh();
  diag_error(d, (mt_span){DIAG_NOFILE, 0, 0}, "unknown variant '%s'", "x");
  assert_string_equal(out.s, "mentat: error: unknown variant 'x'\n");
  assert_int_equal(diag_load_file(d, "/nonexistent/file.rules"), DIAG_NOFILE);
  assert_non_null(strstr(out.s, "cannot open '/nonexistent/file.rules'"));
  diag_free(d);
}

static void suggestions(void **s) {
  (void)s;
  const char *c[] = {"sietch_tabr", "tueks_sietch", "arrakeen", "carthag"};
  assert_string_equal(diag_suggest("sietch-tabr", c, 4), "sietch_tabr");
  assert_string_equal(diag_suggest("arakeen", c, 4), "arrakeen");
  assert_string_equal(diag_suggest("cartahg", c, 4), "carthag"); /* transposition */
  assert_null(diag_suggest("polar_sink", c, 4));
  uint32_t line, col;
  diag *d = fresh();
  uint32_t f = diag_add_source(d, "p.rules", "ab\ncd\n", 6);
  diag_linecol(d, f, 4, &line, &col);
  assert_int_equal(line, 2);
  assert_int_equal(col, 2);
  assert_int_equal(diag_offset(d, f, 2, 2), 4);
  diag_free(d);
  sb_free(&out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(caret_under_token),     cmocka_unit_test(tabs_and_utf8_keep_columns),
      cmocka_unit_test(binary_bytes_are_not_echoed), cmocka_unit_test(long_lines_are_windowed),
      cmocka_unit_test(error_limit),           cmocka_unit_test(locations_without_a_file),
      cmocka_unit_test(suggestions),
  };
  return cmocka_run_group_tests_name("diag", tests, NULL, NULL);
}
