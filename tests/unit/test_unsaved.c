/* test_unsaved.c -- what the language server asks of mt_rules_load (mentat.h): a rules file read
 * from a text given in place of the disk's (mt_load.unsaved: by path, or the same file by its real
 * path; the disk untouched), every message again with its place as lines and columns
 * (mt_load.message_at), and a rule set kept despite errors in the rules for looking names up
 * (mt_load.keep_on_error), on which no game runs.  Against the race game, run from the
 * repository root. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "mentat.h"
#include "program.h"

#define RACE "tests/fixtures/race"
#define BLUE RACE "/factions/blue.rules"

typedef struct seen {
  int n, errors;
  char file[512], msg[512];
  unsigned line, col, end_line, end_col;
} seen;

/* Keeps the first error. */
static void at(void *ud, int level, const mt_where *w, const char *msg) {
  seen *s = ud;
  s->n++;
  if (level != 0 || s->errors++) return;
  snprintf(s->file, sizeof s->file, "%s", w->file ? w->file : "");
  snprintf(s->msg, sizeof s->msg, "%s", msg);
  s->line = w->line, s->col = w->col, s->end_line = w->end_line, s->end_col = w->end_col;
}

static char *read_all(const char *path, size_t *len) {
  strbuf why = {0};
  char *t = mt_read_file(path, len, &why);
  sb_free(&why);
  assert_non_null(t);
  return t;
}

/* BLUE's text with "refuel(blue)" misspelt as "refuil(blue)". */
static char *broken_blue(size_t *len) {
  char *t = read_all(BLUE, len);
  char *p = strstr(t, "refuel(blue)");
  assert_non_null(p);
  memcpy(p, "refuil", 6);
  return t;
}

static mt_rules *load(const mt_source *un, int nun, int keep, seen *s) {
  const char *files[] = {BLUE};
  mt_load L = {0};
  L.components = RACE;
  L.files = files;
  L.nfiles = 1;
  L.against_pack = 1;
  L.unsaved = un;
  L.nunsaved = nun;
  L.message_at = at;
  L.message_ud = s;
  L.keep_on_error = keep;
  return mt_rules_load(&L);
}

/* The unsaved text is what is checked; the file on disk is left as it was. */
static void an_unsaved_text_is_checked_not_the_disk(void **state) {
  (void)state;
  size_t len, disk_len;
  char *text = broken_blue(&len), *disk = read_all(BLUE, &disk_len);
  mt_source un = {BLUE, text, len};
  seen s = {0};
  mt_rules *r = load(&un, 1, 0, &s);
  assert_null(r); /* without keep_on_error: NULL, as ever */
  assert_int_equal(s.errors, 1);
  assert_non_null(strstr(s.msg, "refuil"));
  assert_string_equal(s.file, BLUE);
  /* the place: the line and columns of "refuil" in the text given */
  const char *p = strstr(text, "refuil");
  unsigned line = 1, col = 1;
  for (const char *q = text; q < p; q++) line += *q == '\n', col = *q == '\n' ? 1 : col + 1;
  assert_int_equal(s.line, line);
  assert_int_equal(s.col, col);
  assert_int_equal(s.end_line, line);
  assert_true(s.end_col > s.col);
  size_t after_len;
  char *after = read_all(BLUE, &after_len);
  assert_int_equal(after_len, disk_len);
  assert_memory_equal(after, disk, disk_len);
  mt_free(after);
  mt_free(disk);
  mt_free(text);
}

/* The same file named another way (its real path through "..") takes the unsaved text too. */
static void the_same_file_by_another_path(void **state) {
  (void)state;
  size_t len;
  char *text = broken_blue(&len);
  mt_source un = {RACE "/rules/../factions/blue.rules", text, len};
  seen s = {0};
  assert_null(load(&un, 1, 0, &s));
  assert_int_equal(s.errors, 1);
  mt_free(text);
}

/* keep_on_error: the rule set comes back with its registry, its errors counted, and no game. */
static void kept_with_errors_for_its_names(void **state) {
  (void)state;
  size_t len;
  char *text = broken_blue(&len);
  mt_source un = {BLUE, text, len};
  seen s = {0};
  mt_rules *r = load(&un, 1, 1, &s);
  assert_non_null(r);
  assert_int_equal(mt_rules_errors(r), 1);
  assert_true(sema_find_rule(&r->prog, "2.02") >= 0); /* the file's own rule, as far as checking got */
  assert_true(sema_find_rule(&r->prog, "1.07") >= 0);
  char err[200] = "";
  assert_null(mt_game_new(r, NULL, 0, 1, err, sizeof err));
  assert_non_null(strstr(err, "1 error"));
  mt_rules_free(r);
  /* the good text: no errors, and games run */
  size_t glen;
  char *good = read_all(BLUE, &glen);
  mt_source ok = {BLUE, good, glen};
  seen s2 = {0};
  r = load(&ok, 1, 1, &s2);
  assert_non_null(r);
  assert_int_equal(mt_rules_errors(r), 0);
  mt_game *g = mt_game_new(r, NULL, 0, 1, err, sizeof err);
  assert_non_null(g);
  mt_game_free(g);
  mt_rules_free(r);
  mt_free(good);
  mt_free(text);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(an_unsaved_text_is_checked_not_the_disk),
      cmocka_unit_test(the_same_file_by_another_path),
      cmocka_unit_test(kept_with_errors_for_its_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
