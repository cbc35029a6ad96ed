/* test_pack.c -- where the standard rule pack is found: a checkout's
 * build/.., an installed PREFIX/share/mentat, beside the executable, the
 * current directory; "." when the pack is the current directory; and, when
 * it is nowhere, a message that names every file probed.  Builds each layout
 * in a temporary directory and passes the executable's path. */
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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(checkout_beside_build, setup, teardown),
      cmocka_unit_test_setup_teardown(installed_under_share, setup, teardown),
      cmocka_unit_test_setup_teardown(beside_the_executable, setup, teardown),
      cmocka_unit_test_setup_teardown(the_current_directory_last, setup, teardown),
      cmocka_unit_test_setup_teardown(nowhere_names_every_file_probed, setup, teardown),
  };
  return cmocka_run_group_tests_name("pack", tests, NULL, NULL);
}
