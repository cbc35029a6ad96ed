/* pack_fixture.h -- the standard pack (the repository's rules/ and factions/)
 * loaded once for a cmocka group, as R, its diagnostics gathered in
 * diag_text.  A test file includes it after cmocka.h and game.h, calls
 * pack_setup() from its group setup and passes group_teardown.  Runs from
 * the repository root. */
#ifndef PACK_FIXTURE_H
#define PACK_FIXTURE_H

#include <stdio.h>

#include "game.h"

static mt_rules *R;
static strbuf diag_text;

static void on_message(void *ud, int level, const char *text) {
  (void)ud;
  (void)level;
  sb_puts(&diag_text, text);
}

/* Loads the pack into R (ADVANCED: with the Advanced rules): 0, or -1 with
 * its diagnostics printed. */
static int pack_setup(int advanced) {
  mt_load L = {.components = ".", .message = on_message, .advanced = advanced};
  R = mt_rules_load(&L);
  if (!R) fprintf(stderr, "%s", diag_text.s ? diag_text.s : "");
  return R ? 0 : -1;
}

static int group_teardown(void **state) {
  (void)state;
  mt_rules_free(R);
  sb_free(&diag_text);
  return 0;
}

#endif
