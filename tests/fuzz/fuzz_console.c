/* fuzz_console.c -- libFuzzer target for the console: the input is a script
 * of console commands (new, put, spice, give, phase, run, do, why, eval, set,
 * undo, fork, save, load, ...) run against the standard Dune pack, compiled
 * once (run from the repository root).  Answers go to /dev/null; a crash, a
 * sanitizer report or a hang is the finding.  The console runs sandboxed:
 * `save` and `load` take plain file names, kept in a scratch directory.  Replayed
 * by tests/fuzz/replay.c in make test. */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700 /* realpath */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "repl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void discard(void *ud, int level, const char *text) {
  (void)ud;
  (void)level;
  (void)text;
}

static mt_rules *rules;
static FILE *sink;
static char pack[PATH_MAX], scratch[] = "/tmp/mentat-fuzz-console.XXXXXX";

static void cleanup(void) {
  mt_rules_free(rules);
  if (sink) fclose(sink);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", scratch);
  if (system(cmd) != 0) fprintf(stderr, "fuzz_console: could not remove %s\n", scratch);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!rules) {
    if (!realpath(".", pack)) abort();
    mt_load L = {.components = pack, .message = discard};
    rules = mt_rules_load(&L);
    if (!rules) abort(); /* not a finding: the harness runs from the wrong directory */
    sink = fopen("/dev/null", "w");
    if (!sink || !mkdtemp(scratch)) abort();
    atexit(cleanup);
  }
  if (size == 0 || size > 1 << 16) return 0;
  FILE *in = fmemopen((void *)(uintptr_t)data, size, "r");
  if (!in) return 0;
  repl_options o = {.pack = pack, .sandbox = scratch, .rules = rules, .json = size & 1};
  repl_run(in, sink, "fuzz", &o);
  fclose(in);
  return 0;
}
