/* rules_fixture.h -- compile rule text against the test game's components
 * (tests/fixtures/race) and capture diagnostics and narration. */
#ifndef RULES_FIXTURE_H
#define RULES_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "game.h"

static board_def *fx_def;
static strbuf fx_diag, fx_log;

static void fx_message(void *ud, int level, const char *text) {
  (void)ud;
  (void)level;
  sb_puts(&fx_diag, text);
}

__attribute__((unused)) static void fx_narrate(void *ud, const char *rule, const char *text) {
  (void)ud;
  sb_printf(&fx_log, "[%s] %s\n", rule, text);
}

static int fx_load(void **state) {
  (void)state;
  diag *d = diag_new(diag_sink_file, stderr);
  fx_def = data_load_dir("tests/fixtures/race", d);
  diag_free(d);
  return fx_def ? 0 : -1;
}

static int fx_unload(void **state) {
  (void)state;
  board_def_free(fx_def);
  sb_free(&fx_diag);
  sb_free(&fx_log);
  return 0;
}

/* Compiles SRC (named "t.rules"); diagnostics land in fx_diag. */
static mt_rules *fx_compile(const char *src) {
  sb_free(&fx_diag);
  const char *names[] = {"t.rules"};
  const char *texts[] = {src};
  size_t lens[] = {strlen(src)};
  return game_rules_compile(fx_def, names, texts, lens, 1, NULL, 0, 0, fx_message, NULL);
}

static const char *fx_diag_text(void) { return fx_diag.s ? fx_diag.s : ""; }

#endif
