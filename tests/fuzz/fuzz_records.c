/* fuzz_records.c -- libFuzzer target for the records reader behind `mentat
 * merge` and `--resume` (records.c).
 *
 * An input is one or more records files: a line holding only a form feed
 * ("\f") starts the next file.  The files are read line by line as merge
 * reads them (a last line without its newline is one cut short), then the
 * run is checked for completeness.  An input starting with 'P' is read as
 * --resume reads its one file (incomplete games allowed).  When the run is
 * accepted, it is written again as one file (the header of a one-shard run,
 * then every record) and read back: that must be accepted too and give the
 * same records.  A crash, a sanitizer report, a hang or a broken round trip
 * is a finding.  Replayed by tests/fuzz/replay.c in make test.
 *
 * Seeds (tests/fuzz/seeds/records): a compare run and a simulate run as
 * Mentat wrote them, two shards of a run, a resumed run's file cut short,
 * and records the reader must refuse (no header, numbers out of range, names
 * that would inject gnuplot commands, a seed outside its shard). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Feeds TEXT (N bytes, one file or more) to RD; false when refused. */
static bool read_all(sim_reader *rd, const char *text, size_t n) {
  static const char *const names[] = {"a.jsonl", "b.jsonl", "c.jsonl", "d.jsonl", "e.jsonl", "f.jsonl", "g.jsonl", "h.jsonl"};
  strbuf err = {0};
  bool ok = true, cut = false;
  int file = 0;
  size_t at = 0;
  sim_reader_begin(rd, names[0]);
  while (ok && at < n) {
    const char *nl = memchr(text + at, '\n', n - at);
    size_t len = nl ? (size_t)(nl - (text + at)) : n - at;
    char *line = malloc(len + 1);
    if (!line) abort();
    memcpy(line, text + at, len);
    line[len] = 0;
    at += len + (nl ? 1 : 0);
    if (!nl) { /* cut short: the end of the last file */
      free(line);
      cut = true;
      break;
    }
    if (len == 1 && line[0] == '\f' && file < 7) {
      ok = sim_reader_end(rd, false, &err);
      sim_reader_begin(rd, names[++file]);
    } else
      ok = sim_reader_line(rd, line, len, &err);
    free(line);
  }
  if (ok) ok = sim_reader_end(rd, cut, &err);
  if (ok) ok = sim_reader_finish(rd, &err);
  if (!ok && !err.s) abort(); /* every refusal says why */
  sb_free(&err);
  return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  bool partial = size > 0 && data[0] == 'P';
  const char *text = (const char *)data + (partial ? 1 : 0);
  size_t n = size - (partial ? 1 : 0);
  sim_run run = {0};
  sim_reader rd;
  sim_reader_init(&rd, &run);
  rd.partial = partial;
  bool ok = read_all(&rd, text, n);
  sim_reader_fini(&rd);
  if (ok && run.n > 0) { /* written again as one file and read back: the same records */
    run.shard_i = 1, run.shard_n = 1;
    strbuf out = {0};
    sim_header_write(&out, &run);
    for (long i = 0; i < run.n; i++) sim_record_write(&out, &run, &run.recs[i]);
    sim_run back = {0};
    sim_reader rd2;
    sim_reader_init(&rd2, &back);
    rd2.partial = partial;
    if (!read_all(&rd2, out.s, out.n)) abort();
    if (back.n != run.n) abort();
    for (long i = 0; i < run.n; i++) {
      const sim_record *a = &run.recs[i], *b = &back.recs[i];
      if (a->seed != b->seed || a->side != b->side || a->ok != b->ok || a->winners != b->winners || a->turns != b->turns ||
          a->decisions != b->decisions || (!a->victory) != (!b->victory) || (a->victory && strcmp(a->victory, b->victory)))
        abort();
    }
    sim_reader_fini(&rd2);
    sim_run_fini(&back);
    sb_free(&out);
  }
  sim_run_fini(&run);
  return 0;
}
