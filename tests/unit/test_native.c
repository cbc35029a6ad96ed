/* test_native.c -- the native tier's cache (native_cache.c), below the CLI
 * that tests/run-native.sh drives: which directory each environment chooses
 * (HOME unset never means a shared /tmp path), which directories are refused
 * and why, that an entry is checked against its key, its length and its
 * checksum before anything loads it (and its exported key after), and that a
 * failed build leaves nothing behind.  Scratch files go to a temporary
 * directory. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "native_int.h"

static char root[4096];

static int make_root(void **state) {
  (void)state;
  const char *t = getenv("TMPDIR");
  snprintf(root, sizeof root, "%s/mentat-test-native.XXXXXX", t && *t == '/' ? t : "/tmp");
  return mkdtemp(root) ? 0 : -1;
}

/* Removes PATH and everything under it (no symbolic link followed). */
static void remove_tree(const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0) return;
  if (S_ISDIR(st.st_mode)) {
    chmod(path, 0700);
    DIR *d = opendir(path);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
      char sub[4096];
      snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
      remove_tree(sub);
    }
    if (d) closedir(d);
    rmdir(path);
  } else unlink(path);
}

static int drop_root(void **state) {
  (void)state;
  remove_tree(root);
  return 0;
}

static char *choose(const char *mc, const char *xdg, const char *home, const char *pw, const char *tmp) {
  vm_native_env e = {mc, xdg, home, pw, tmp, 1234};
  strbuf b = {0};
  vm_native_cache_path(&e, &b);
  return sb_take(&b);
}

#define CHOOSES(want, ...)                                                                                           \
  do {                                                                                                               \
    char *got_ = choose(__VA_ARGS__);                                                                                \
    assert_string_equal(got_, want);                                                                                 \
    mt_free(got_);                                                                                                   \
  } while (0)

/* The order of the variables, and no shared /tmp path when HOME is unset. */
static void the_directory_follows_the_environment(void **state) {
  (void)state;
  CHOOSES("/c", "/c", "/x", "/h", "/p", "/t");
  CHOOSES("/x/mentat", NULL, "/x", "/h", "/p", "/t");
  CHOOSES("/x/mentat", "", "/x", "/h", "/p", "/t");
  CHOOSES("/h/.cache/mentat", NULL, "relative/xdg", "/h", "/p", "/t"); /* XDG: absolute paths only */
  CHOOSES("/p/.cache/mentat", NULL, NULL, NULL, "/p", "/t");           /* HOME unset: the password entry */
  CHOOSES("/p/.cache/mentat", NULL, NULL, "", "/p", "/t");
  CHOOSES("/t/mentat-cache-1234", NULL, NULL, NULL, NULL, "/t"); /* no home at all: a per-user directory */
  CHOOSES("/tmp/mentat-cache-1234", NULL, NULL, NULL, NULL, NULL);
  CHOOSES("/tmp/mentat-cache-1234", NULL, NULL, NULL, NULL, "rel");
}

static int open_dir(const char *path, strbuf *why, vm_native_status *st) {
  sb_free(why);
  *st = VM_NATIVE_LOADED;
  return vm_native_cache_open(path, why, st);
}

/* Missing components are created 0700; unsafe directories are refused with the reason. */
static void the_directory_is_private_or_refused(void **state) {
  (void)state;
  char path[4200], sub[4300];
  strbuf why = {0};
  vm_native_status st;
  mode_t old = umask(0);
  snprintf(path, sizeof path, "%s/a/b/cache", root);
  int fd = open_dir(path, &why, &st);
  umask(old);
  assert_true(fd >= 0);
  close(fd);
  struct stat sb;
  snprintf(sub, sizeof sub, "%s/a", root);
  assert_int_equal(lstat(sub, &sb), 0);
  assert_int_equal(sb.st_mode & 07777, 0700);
  assert_int_equal(lstat(path, &sb), 0);
  assert_int_equal(sb.st_mode & 07777, 0700);
  assert_int_equal(sb.st_uid, geteuid());

  chmod(path, 0777);
  assert_int_equal(open_dir(path, &why, &st), -1);
  assert_int_equal(st, VM_NATIVE_REFUSED);
  assert_non_null(strstr(why.s, "is writable by its group and others (mode 0777)"));
  chmod(path, 0720);
  assert_int_equal(open_dir(path, &why, &st), -1);
  assert_non_null(strstr(why.s, "is writable by its group (mode 0720)"));
  chmod(path, 0755); /* readable by others is no danger: nobody else can write there */
  fd = open_dir(path, &why, &st);
  assert_true(fd >= 0);
  close(fd);

  snprintf(sub, sizeof sub, "%s/link", root);
  assert_int_equal(symlink(path, sub), 0);
  assert_int_equal(open_dir(sub, &why, &st), -1);
  assert_int_equal(st, VM_NATIVE_REFUSED);
  assert_non_null(strstr(why.s, "is a symbolic link"));

  snprintf(sub, sizeof sub, "%s/file", root);
  fclose(fopen(sub, "w"));
  assert_int_equal(open_dir(sub, &why, &st), -1);
  assert_non_null(strstr(why.s, "is not a directory"));
  snprintf(sub, sizeof sub, "%s/file/cache", root);
  assert_int_equal(open_dir(sub, &why, &st), -1);
  assert_int_equal(st, VM_NATIVE_FAILED);
  assert_non_null(strstr(why.s, "Not a directory"));
  assert_int_equal(open_dir("", &why, &st), -1);
  assert_int_equal(st, VM_NATIVE_FAILED);
  sb_free(&why);
}

/* The number of names in DIR besides . and .. */
static int count_entries(const char *dir) {
  DIR *d = opendir(dir);
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d)) != NULL;) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  if (d) closedir(d);
  return n;
}

static const char small_src[] = "int mentat_native_probe(void) { return 42; }\n";

/* A built entry verifies against its key only; a damaged one never does. */
static void an_entry_is_checked_before_use(void **state) {
  (void)state;
  char path[4200], entry[4400];
  strbuf why = {0};
  vm_native_status st;
  snprintf(path, sizeof path, "%s/entries", root);
  int dirfd = open_dir(path, &why, &st);
  assert_true(dirfd >= 0);
  vm_native_key key, other;
  vm_native_key_of(small_src, sizeof small_src - 1, &key);
  vm_native_key_of("int x;\n", 7, &other);
  assert_string_not_equal(key.hex, other.hex);
  assert_int_equal(strlen(key.hex), 32);
  unsetenv("CC");
  assert_true(vm_native_build(dirfd, path, &key, small_src, sizeof small_src - 1, &why));
  assert_int_equal(count_entries(path), 2); /* the object and its C, no build directory */
  char name[64];
  snprintf(name, sizeof name, "native-%s.so", key.hex);
  snprintf(entry, sizeof entry, "%s/%s", path, name);
  sb_free(&why);
  int fd = vm_native_entry_open(dirfd, name, &key, &why);
  assert_true(fd >= 0);
  close(fd);
  sb_free(&why);
  assert_int_equal(vm_native_entry_open(dirfd, name, &other, &why), -1);
  assert_non_null(strstr(why.s, "was built for another rule set"));

  struct stat sb;
  assert_int_equal(stat(entry, &sb), 0);
  assert_int_equal(sb.st_mode & 07777, 0600);
  char *bytes = mt_alloc((size_t)sb.st_size);
  FILE *f = fopen(entry, "rb");
  assert_int_equal(fread(bytes, 1, (size_t)sb.st_size, f), (size_t)sb.st_size);
  fclose(f);
  static const struct {
    long keep; /* bytes kept; -1: all, one flipped */
    const char *says;
  } harm[] = {{0, "is empty"}, {10, "impossible size"}, {-2, "no valid trailer"}, {-1, "is corrupt"}};
  for (size_t i = 0; i < sizeof harm / sizeof *harm; i++) {
    size_t n = harm[i].keep >= 0 ? (size_t)harm[i].keep : harm[i].keep == -2 ? (size_t)sb.st_size / 2 : (size_t)sb.st_size;
    if (harm[i].keep == -1) bytes[100] ^= 1;
    f = fopen(entry, "wb");
    assert_int_equal(fwrite(bytes, 1, n, f), n);
    fclose(f);
    if (harm[i].keep == -1) bytes[100] ^= 1;
    sb_free(&why);
    assert_int_equal(vm_native_entry_open(dirfd, name, &key, &why), -1);
    assert_non_null(strstr(why.s, harm[i].says));
  }
  /* whole again, but writable by others: refused all the same */
  f = fopen(entry, "wb");
  assert_int_equal(fwrite(bytes, 1, (size_t)sb.st_size, f), (size_t)sb.st_size);
  fclose(f);
  chmod(entry, 0622);
  sb_free(&why);
  assert_int_equal(vm_native_entry_open(dirfd, name, &key, &why), -1);
  assert_non_null(strstr(why.s, "is writable by others"));
  chmod(entry, 0600);
  sb_free(&why);
  fd = vm_native_entry_open(dirfd, name, &key, &why);
  assert_true(fd >= 0);
  close(fd);
  unlink(entry);
  sb_free(&why);
  assert_int_equal(vm_native_entry_open(dirfd, name, &key, &why), -1);
  assert_int_equal(errno, ENOENT);
  mt_free(bytes);
  close(dirfd);
  sb_free(&why);
}

/* A compiler that fails, or cannot be run: the cause, and an empty cache. */
static void a_failed_build_leaves_nothing(void **state) {
  (void)state;
  char path[4200];
  strbuf why = {0};
  vm_native_status st;
  snprintf(path, sizeof path, "%s/failing", root);
  int dirfd = open_dir(path, &why, &st);
  assert_true(dirfd >= 0);
  vm_native_key key;
  vm_native_key_of(small_src, sizeof small_src - 1, &key);
  static const struct {
    const char *cc, *says;
  } bad[] = {
      {"false", "the system compiler failed: 'false' exited with status 1"},
      {"cc -DBROKEN=1 -include /nonexistent/header.h", "its output:\n    "}, /* what the compiler said, shown */
      {"cc -DBROKEN=1 -include /nonexistent/header.h", "/nonexistent/header.h"},
      {"/nonexistent/cc", "cannot run the system compiler '/nonexistent/cc': No such file or directory"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    setenv("CC", bad[i].cc, 1);
    sb_free(&why);
    assert_false(vm_native_build(dirfd, path, &key, small_src, sizeof small_src - 1, &why));
    assert_non_null(strstr(why.s, bad[i].says));
    assert_int_equal(count_entries(path), 0);
  }
  unsetenv("CC");
  close(dirfd);
  sb_free(&why);
}

/* SRC as native.c emits it: BODY, then the line exporting the key of BODY (into *KEY). */
static char *keyed_source(const char *body, vm_native_key *key) {
  strbuf b = {0};
  sb_puts(&b, body);
  vm_native_key_of(b.s, b.n, key);
  sb_printf(&b, "const char mentat_native_key[] = \"%s\";\n", key->hex);
  return sb_take(&b);
}

/* The whole path: built once, then taken from the cache; a damaged entry
 * rebuilt with a warning; an object whose exported key disagrees with its
 * trailer never used; an unsafe directory refused. */
static void a_load_builds_reuses_and_checks_the_key(void **state) {
  (void)state;
  char path[4200], entry[4400];
  snprintf(path, sizeof path, "%s/loads", root);
  setenv("MENTAT_CACHE", path, 1);
  unsetenv("CC");
  vm_native_key key;
  char *src = keyed_source("int mentat_native_probe(void) { return 42; }\n", &key);
  strbuf why = {0};
  void *h = NULL;
  assert_int_equal(vm_native_cache_load(src, strlen(src), &key, &h, &why), VM_NATIVE_LOADED);
  assert_non_null(h);
  assert_null(why.s); /* a first build says nothing */
  assert_non_null(dlsym(h, "mentat_native_probe"));
  dlclose(h);
  snprintf(entry, sizeof entry, "%s/native-%s.so", path, key.hex);
  struct stat before, after;
  assert_int_equal(stat(entry, &before), 0);
  assert_int_equal(vm_native_cache_load(src, strlen(src), &key, &h, &why), VM_NATIVE_LOADED);
  dlclose(h);
  assert_null(why.s);
  assert_int_equal(stat(entry, &after), 0);
  assert_int_equal(before.st_ino, after.st_ino); /* taken from the cache, not built again */

  assert_int_equal(truncate(entry, before.st_size / 2), 0);
  assert_int_equal(vm_native_cache_load(src, strlen(src), &key, &h, &why), VM_NATIVE_LOADED);
  dlclose(h);
  assert_non_null(strstr(why.s, "has no valid trailer"));
  assert_non_null(strstr(why.s, "built it again"));
  sb_free(&why);

  /* a source whose exported key is not the key it is built under */
  vm_native_key other;
  char *liar = keyed_source("int mentat_native_liar;\n", &other);
  vm_native_key_of("something else", 14, &key);
  assert_int_equal(vm_native_cache_load(liar, strlen(liar), &key, &h, &why), VM_NATIVE_FAILED);
  assert_null(h);
  assert_non_null(strstr(why.s, "carries another key; removed it"));
  snprintf(entry, sizeof entry, "%s/native-%s.so", path, key.hex);
  assert_int_not_equal(access(entry, F_OK), 0);
  sb_free(&why);

  chmod(path, 0707);
  assert_int_equal(vm_native_cache_load(src, strlen(src), &key, &h, &why), VM_NATIVE_REFUSED);
  assert_null(h);
  assert_non_null(strstr(why.s, "is writable by others (mode 0707)"));
  chmod(path, 0700);
  sb_free(&why);
  mt_free(src);
  mt_free(liar);
  unsetenv("MENTAT_CACHE");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(the_directory_follows_the_environment),
      cmocka_unit_test(the_directory_is_private_or_refused),
      cmocka_unit_test(an_entry_is_checked_before_use),
      cmocka_unit_test(a_failed_build_leaves_nothing),
      cmocka_unit_test(a_load_builds_reuses_and_checks_the_key),
  };
  return cmocka_run_group_tests(tests, make_root, drop_root);
}
