/* fuzz_parse.c -- libFuzzer target for the front end (lexer + parser).
 *
 * Each input is registered as a source buffer and parsed into an arena; the
 * diagnostics are rendered (so the caret code runs on hostile text too) and
 * discarded.  A crash, a sanitizer report or a hang is the failure; syntax
 * errors are the expected outcome for most inputs.  The same file links
 * with tests/fuzz/replay.c so `make test` replays the seeds and every saved
 * regression with plain gcc.  Parse only for now: resolve and compile will
 * be added here once they exist. */
#include <stddef.h>
#include <stdint.h>

#include "ast.h"
#include "diag.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void discard(void *ud, diag_level level, const char *text) {
  (void)ud;
  (void)level;
  (void)text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  diag *d = diag_new(discard, NULL);
  uint32_t file = diag_add_source(d, "fuzz.rules", (const char *)data, size);
  arena a = {0};
  bool incomplete;
  (void)ast_parse(&a, d, file, &incomplete);
  arena_free(&a);
  diag_free(d);
  return 0;
}
