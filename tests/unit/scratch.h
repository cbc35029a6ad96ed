/* scratch.h -- where a unit test writes its files.  The Makefile runs each
 * test with MT_SCRATCH set to its own build directory's tests/ (build/tests,
 * build-asan/tests), so a sanitizer build never needs a plain build beside
 * it; a test run by hand without it gets a private directory made once under
 * $TMPDIR (or /tmp).  Never a hard-coded build/. */
#ifndef MENTAT_TEST_SCRATCH_H
#define MENTAT_TEST_SCRATCH_H
#include <stdio.h>
#include <stdlib.h>
char *mkdtemp(char *tmpl); /* POSIX: declared here, whatever feature macros the test chose */

/* The path of NAME in the scratch directory; the last 8 results stay valid. */
static const char *scratch(const char *name) {
  static char dir[4096], buf[8][4352];
  static int k;
  if (!dir[0]) {
    const char *e = getenv("MT_SCRATCH"), *t = getenv("TMPDIR");
    if (e && *e) snprintf(dir, sizeof dir, "%s", e);
    else {
      snprintf(dir, sizeof dir, "%s/mentat-unit.XXXXXX", t && *t ? t : "/tmp");
      if (!mkdtemp(dir)) {
        perror("scratch: mkdtemp");
        abort();
      }
    }
  }
  k = (k + 1) % 8;
  snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
  return buf[k];
}
#endif
