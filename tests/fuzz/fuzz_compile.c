/* fuzz_compile.c -- libFuzzer target for the whole front end: parse, resolve,
 * check and compile, against the test game's components (loaded once from
 * tests/fixtures/race: run from the repository root).  When the input
 * compiles, its game is also started and played for a bounded number of
 * decisions with the first legal answer, so the VM sees the compiler's output
 * for hostile programs too, and every program that compiles must pass the
 * bytecode verifier.  Replayed by tests/fuzz/replay.c in make test. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "game.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Compile errors are expected; code the compiler produced that the verifier
 * (verify.c) rejects is a bug of one of them. */
static void discard(void *ud, int level, const char *text) {
  (void)ud;
  (void)level;
  const char *e = strstr(text, ": error: "), *nl = strchr(text, '\n'); /* the message, not the quoted source */
  if (e && (!nl || e < nl) && !strncmp(e + 9, "internal error: the compiled code", 33)) abort();
}
static void discard_diag(void *ud, diag_level level, const char *text) {
  (void)ud;
  (void)level;
  (void)text;
}

static board_def *def;

static uint64_t lcg(void *ctx) {
  uint64_t *x = ctx;
  *x = *x * 6364136223846793005ull + 1442695040888963407ull;
  return *x >> 11;
}

static void free_def(void) { board_def_free(def); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!def) {
    diag *d = diag_new(discard_diag, NULL);
    def = data_load_dir("tests/fixtures/race", d);
    diag_free(d);
    if (!def) abort(); /* not a finding: the harness runs from the wrong directory */
    atexit(free_def);
  }
  const char *names[] = {"fuzz.rules"};
  const char *texts[] = {(const char *)data};
  size_t lens[] = {size};
  mt_rules *r = game_rules_compile(def, names, texts, lens, 1, NULL, 0, (int)(size & 1), discard, NULL);
  if (!r) return 0;
  char err[128];
  mt_game *g = mt_game_new(r, NULL, 0, 1, err, sizeof err);
  if (g) {
    int st = mt_start(g);
    uint64_t rng = size;
    for (int i = 0; i < 64 && st == MT_WAITING; i++) {
      mt_choice c[8];
      size_t n = mt_legal(g, c, 8);
      if (n == 0) break;
      /* odd steps: the sampler's answer, which must be one of the legal ones */
      if (i % 2 && mt_sample(g, lcg, &rng, &c[0]) != 1) abort();
      if (i % 4 == 3 && n > 1 && mt_legal_nth(g, n - 1, &c[0]) != 1) abort();
      st = mt_apply(g, &c[0], NULL);
      if (st < 0) abort(); /* a legal answer refused */
    }
    if (st == MT_FAILED) (void)mt_error(g);
    mt_game_free(g);
  }
  mt_rules_free(r);
  return 0;
}
