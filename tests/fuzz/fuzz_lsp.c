/* fuzz_lsp.c -- libFuzzer target for the language server (lsp.c): the input is the byte stream a
 * client sends to `mentat lsp` -- framed messages, broken frames, any JSON, any text in didOpen and
 * didChange -- served against the test game's pack (tests/fixtures/race: run from the repository
 * root).  Whatever comes in, the server must end (at the end of the input), never crash, and
 * answer only well-framed messages that are JSON objects: anything else aborts.  Replayed by
 * tests/fuzz/replay.c in make test; the seeds are sessions of every method (tests/fuzz/seeds/lsp). */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lsp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts unless OUT[0..N) is a sequence of "Content-Length: L\r\n\r\n" + L bytes of a JSON object. */
static void check_answers(const char *out, size_t n) {
  size_t i = 0;
  while (i < n) {
    unsigned long len;
    int used = 0;
    if (sscanf(out + i, "Content-Length: %lu\r\n\r\n%n", &len, &used) != 1 || used == 0 || len > n - i - (size_t)used)
      abort();
    i += (size_t)used;
    json_error_t err;
    json_t *v = json_loadb(out + i, len, 0, &err);
    if (!v || !json_is_object(v) || !json_object_get(v, "jsonrpc")) abort();
    json_decref(v);
    i += len;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0; /* fmemopen refuses an empty buffer */
  FILE *in = fmemopen((void *)(uintptr_t)data, size, "rb");
  char *out = NULL;
  size_t n = 0;
  FILE *o = open_memstream(&out, &n);
  if (!in || !o) abort();
  lsp_options opts = {"tests/fixtures/race", NULL, 0, "fuzz"};
  lsp_serve(in, o, &opts);
  fclose(in);
  fclose(o);
  check_answers(out, n);
  free(out);
  return 0;
}
