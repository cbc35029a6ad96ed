/* test_pack.c -- where the standard rule pack is found: a checkout's
 * build/.., an installed PREFIX/share/mentat, beside the executable, the
 * current directory; "." when the pack is the current directory; and, when
 * it is nowhere, a message that names every file probed.  Builds each layout
 * in a temporary directory and passes the executable's path.  Then mods laid
 * over a pack (pack_layer): which files are loaded, in which order, which
 * replace which, and the diagnostics of a mod that holds nothing. */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700 /* realpath */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "pack.h"
#include "util.h"

static char root[PATH_MAX], start[PATH_MAX]; /* root: a short /tmp name */

/* ROOT/REL, a path to build a layout under the temporary directory */
static const char *at(const char *rel) {
  static char bufs[4][2 * PATH_MAX + 2];
  static int k;
  k = (k + 1) % 4;
  snprintf(bufs[k], sizeof bufs[k], "%s/%s", root, rel);
  return bufs[k];
}

static void mkdirs(const char *rel) {
  char p[2 * PATH_MAX + 2];
  snprintf(p, sizeof p, "%s", at(rel));
  for (char *s = p + strlen(root) + 1; *s; s++)
    if (*s == '/') {
      *s = 0;
      mkdir(p, 0755);
      *s = '/';
    }
  mkdir(p, 0755);
}

/* a pack under REL: REL/rules/board.yaml */
static void make_pack(const char *rel) {
  char d[PATH_MAX];
  snprintf(d, sizeof d, "%.200s/rules", rel);
  mkdirs(d);
  snprintf(d, sizeof d, "%.200s/rules/board.yaml", rel);
  FILE *f = fopen(at(d), "w");
  assert_non_null(f);
  fclose(f);
}

static int setup(void **s) {
  (void)s;
  char tmpl[] = "/tmp/mentat-pack-XXXXXX";
  if (!mkdtemp(tmpl) || !realpath(tmpl, root) || !getcwd(start, sizeof start)) return -1;
  return 0;
}

static int teardown(void **s) {
  (void)s;
  char cmd[PATH_MAX + 16];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  return chdir(start) == 0 && system(cmd) == 0 ? 0 : -1;
}

static void checkout_beside_build(void **s) {
  (void)s;
  make_pack("co");
  mkdirs("co/build");
  mkdirs("elsewhere");
  assert_int_equal(chdir(at("elsewhere")), 0);
  char buf[PATH_MAX];
  assert_string_equal(pack_find(at("co/build/mentat"), buf, sizeof buf, NULL), at("co"));
  /* from the checkout itself, names stay relative */
  assert_int_equal(chdir(at("co")), 0);
  assert_string_equal(pack_find(at("co/build/mentat"), buf, sizeof buf, NULL), ".");
}

static void installed_under_share(void **s) {
  (void)s;
  make_pack("inst/share/mentat");
  mkdirs("inst/bin");
  mkdirs("elsewhere");
  assert_int_equal(chdir(at("elsewhere")), 0);
  char buf[PATH_MAX];
  assert_string_equal(pack_find(at("inst/bin/mentat"), buf, sizeof buf, NULL), at("inst/share/mentat"));
}

static void beside_the_executable(void **s) {
  (void)s;
  make_pack("side");
  mkdirs("elsewhere");
  assert_int_equal(chdir(at("elsewhere")), 0);
  char buf[PATH_MAX];
  assert_string_equal(pack_find(at("side/mentat"), buf, sizeof buf, NULL), at("side"));
}

static void the_current_directory_last(void **s) {
  (void)s;
  make_pack("here");
  mkdirs("lonely");
  assert_int_equal(chdir(at("here")), 0);
  char buf[PATH_MAX];
  assert_string_equal(pack_find(at("lonely/mentat"), buf, sizeof buf, NULL), ".");
}

static void nowhere_names_every_file_probed(void **s) {
  (void)s;
  mkdirs("lonely");
  mkdirs("elsewhere");
  assert_int_equal(chdir(at("elsewhere")), 0);
  char buf[PATH_MAX];
  strbuf why = {0};
  assert_null(pack_find(at("lonely/mentat"), buf, sizeof buf, &why));
  strbuf want = {0};
  sb_printf(&want,
            "cannot find the rule pack; looked for:\n"
            "  %s/rules/board.yaml\n"
            "  %s/share/mentat/rules/board.yaml\n"
            "  %s/lonely/rules/board.yaml\n"
            "  %s/elsewhere/rules/board.yaml\n"
            "use --rules DIR to name the directory that holds it\n",
            root, root, root, root);
  assert_string_equal(why.s, want.s);
  sb_free(&want);
  sb_free(&why);
  /* a directory probed twice is listed once */
  assert_int_equal(chdir(at("lonely")), 0);
  assert_null(pack_find(at("lonely/mentat"), buf, sizeof buf, &why));
  assert_non_null(strstr(why.s, "/lonely/rules/board.yaml\nuse --rules"));
  sb_free(&why);
}

/* ---- layers -------------------------------------------------------------------------------- */

static void touch(const char *rel) {
  char d[PATH_MAX];
  snprintf(d, sizeof d, "%.200s", rel);
  char *slash = strrchr(d, '/');
  if (slash) {
    *slash = 0;
    mkdirs(d);
  }
  FILE *f = fopen(at(rel), "w");
  assert_non_null(f);
  fclose(f);
}

static void capture(void *ud, diag_level lv, const char *text) {
  (void)lv;
  sb_puts(ud, text);
}

/* the layout of every layer test: a base pack and two mods over it */
static void make_layers(void) {
  touch("base/rules/board.yaml");
  touch("base/rules/decks.yaml");
  touch("base/rules/1.01-storm.rules");
  touch("base/rules/1.02-blow.rules");
  touch("base/factions/red.yaml");
  touch("base/factions/red.rules");
  touch("base/factions/zed.yaml");
  touch("base/variants/fast.rules");
  touch("a/factions/blue.yaml");   /* added */
  touch("a/factions/blue.rules");
  touch("a/rules/1.02-blow.rules"); /* replaces the base's */
  touch("a/rules/board.yaml");      /* replaces the base's board */
  touch("b/factions/blue.yaml");   /* replaces a's */
  touch("b/rules/0.house.rules");  /* added, sorted first */
  touch("b/README.md");            /* not a pack file: ignored silently */
}

static void mods_add_and_replace_by_path(void **s) {
  (void)s;
  make_layers();
  assert_int_equal(chdir(root), 0);
  strbuf out = {0};
  diag *d = diag_new(capture, &out);
  const char *mods[] = {"a", "b"};
  pack_files pf;
  assert_int_equal(pack_layer("base", mods, 2, &pf, d), 0);
  assert_string_equal(pf.board, "a/rules/board.yaml");
  assert_string_equal(pf.decks, "base/rules/decks.yaml");
  assert_null(pf.no_factions);
  assert_int_equal(pf.nyaml, 3);
  assert_string_equal(pf.yaml[0], "b/factions/blue.yaml");
  assert_string_equal(pf.yaml[1], "base/factions/red.yaml");
  assert_string_equal(pf.yaml[2], "base/factions/zed.yaml");
  /* rules/, then factions/, then variants/, each by file name */
  const char *want[] = {"b/rules/0.house.rules", "base/rules/1.01-storm.rules", "a/rules/1.02-blow.rules",
                        "a/factions/blue.rules", "base/factions/red.rules", "base/variants/fast.rules"};
  assert_int_equal(pf.nrules, 6);
  for (size_t i = 0; i < 6; i++) assert_string_equal(pf.rules[i], want[i]);
  assert_null(out.s);
  pack_files_fini(&pf);
  /* the other order: a's sheet of blue wins */
  const char *rev[] = {"b", "a"};
  assert_int_equal(pack_layer("base", rev, 2, &pf, d), 0);
  assert_string_equal(pf.yaml[0], "a/factions/blue.yaml");
  pack_files_fini(&pf);
  diag_free(d);
  sb_free(&out);
}

/* rules/decks.NAME.yaml: every layer's additions are read, the base's first and then each
 * mod's, by name within a layer; a later layer's file of the same name replaces one. */
static void decks_additions_in_layer_order(void **s) {
  (void)s;
  make_layers();
  touch("base/rules/decks.zz.yaml");
  touch("a/rules/decks.b.yaml");
  touch("a/rules/decks.a.yaml");
  touch("b/rules/decks.a.yaml"); /* replaces a's, and is read with b */
  touch("b/rules/decks..yaml");  /* no NAME: not an addition */
  assert_int_equal(chdir(root), 0);
  strbuf out = {0};
  diag *d = diag_new(capture, &out);
  const char *mods[] = {"a", "b"};
  pack_files pf;
  assert_int_equal(pack_layer("base", mods, 2, &pf, d), 0);
  assert_int_equal(pf.ndecks_add, 3);
  assert_string_equal(pf.decks_add[0], "base/rules/decks.zz.yaml");
  assert_string_equal(pf.decks_add[1], "a/rules/decks.b.yaml");
  assert_string_equal(pf.decks_add[2], "b/rules/decks.a.yaml");
  assert_string_equal(pf.decks, "base/rules/decks.yaml");
  assert_non_null(strstr(out.s, "ignoring 'b/rules/decks..yaml'"));
  pack_files_fini(&pf);
  diag_free(d);
  sb_free(&out);
}

static void the_current_directory_names_rules_relatively(void **s) {
  (void)s;
  make_layers();
  assert_int_equal(chdir(at("base")), 0);
  pack_files pf;
  diag *d = diag_new(capture, NULL);
  assert_int_equal(pack_layer(".", NULL, 0, &pf, d), 0);
  assert_string_equal(pf.board, "./rules/board.yaml"); /* YAML diagnostics as before mods existed */
  assert_string_equal(pf.rules[0], "rules/1.01-storm.rules");
  pack_files_fini(&pf);
  diag_free(d);
}

static void a_mod_with_nothing_is_an_error(void **s) {
  (void)s;
  make_layers();
  touch("stray/blue.yaml");
  touch("stray/rules/notes.yaml");
  mkdirs("empty/factions");
  assert_int_equal(chdir(root), 0);
  strbuf out = {0};
  diag *d = diag_new(capture, &out);
  const char *mods[] = {"empty", "a", "stray"};
  pack_files pf;
  assert_int_equal(pack_layer("base", mods, 3, &pf, d), -1);
  assert_int_equal(diag_errors(d), 2);
  assert_non_null(strstr(out.s, "error: pack 'empty' holds nothing Mentat reads"));
  assert_non_null(strstr(out.s, "warning: pack 'stray': ignoring 'stray/rules/notes.yaml'"));
  assert_non_null(strstr(out.s, "warning: pack 'stray': ignoring 'stray/blue.yaml'"));
  assert_non_null(strstr(out.s, "error: pack 'stray' holds nothing Mentat reads"));
  assert_null(strstr(out.s, "pack 'a'"));
  pack_files_fini(&pf);
  diag_free(d);
  sb_free(&out);
}

static void a_base_without_files_names_them(void **s) {
  (void)s;
  mkdirs("bare");
  touch("a/factions/blue.yaml");
  assert_int_equal(chdir(root), 0);
  diag *d = diag_new(capture, NULL);
  const char *mods[] = {"a"};
  pack_files pf;
  assert_int_equal(pack_layer("bare/", mods, 1, &pf, d), 0);
  /* loading them says what is missing */
  assert_string_equal(pf.board, "bare/rules/board.yaml");
  assert_string_equal(pf.decks, "bare/rules/decks.yaml");
  assert_null(pf.no_factions); /* a mod gave a faction */
  pack_files_fini(&pf);
  assert_int_equal(pack_layer("bare", NULL, 0, &pf, d), 0);
  assert_string_equal(pf.no_factions, "bare/factions");
  pack_files_fini(&pf);
  diag_free(d);
}

static void pack_dir_must_be_a_directory(void **s) {
  (void)s;
  touch("file.yaml");
  mkdirs("dir");
  assert_int_equal(chdir(root), 0);
  strbuf why = {0};
  assert_int_equal(pack_dir_ok("dir", &why), 0);
  assert_null(why.s);
  assert_int_equal(pack_dir_ok("nowhere", &why), -1);
  assert_string_equal(why.s, "cannot read pack 'nowhere': No such file or directory");
  sb_free(&why);
  assert_int_equal(pack_dir_ok("file.yaml", &why), -1);
  assert_non_null(strstr(why.s, "pack 'file.yaml' is not a directory"));
  sb_free(&why);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(checkout_beside_build, setup, teardown),
      cmocka_unit_test_setup_teardown(installed_under_share, setup, teardown),
      cmocka_unit_test_setup_teardown(beside_the_executable, setup, teardown),
      cmocka_unit_test_setup_teardown(the_current_directory_last, setup, teardown),
      cmocka_unit_test_setup_teardown(nowhere_names_every_file_probed, setup, teardown),
      cmocka_unit_test_setup_teardown(mods_add_and_replace_by_path, setup, teardown),
      cmocka_unit_test_setup_teardown(decks_additions_in_layer_order, setup, teardown),
      cmocka_unit_test_setup_teardown(the_current_directory_names_rules_relatively, setup, teardown),
      cmocka_unit_test_setup_teardown(a_mod_with_nothing_is_an_error, setup, teardown),
      cmocka_unit_test_setup_teardown(a_base_without_files_names_them, setup, teardown),
      cmocka_unit_test_setup_teardown(pack_dir_must_be_a_directory, setup, teardown),
  };
  return cmocka_run_group_tests_name("pack", tests, NULL, NULL);
}
