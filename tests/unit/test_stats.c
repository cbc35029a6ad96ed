/* test_stats.c -- the statistics of `compare` (stats.c): the Wilson interval
 * at known values, and game records (records.c) written and read back
 * unchanged, in memory, with a record of another run, a line that is not a
 * record, an incomplete run and names that could carry commands refused. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "util.h"

static void wilson_known_values(void **state) {
  (void)state;
  double lo, hi;
  sim_wilson(10, 100, &lo, &hi); /* p = 0.1: [0.0552, 0.1744] */
  assert_true(lo > 0.0551 && lo < 0.0553);
  assert_true(hi > 0.1743 && hi < 0.1745);
  sim_wilson(0, 10, &lo, &hi); /* no success: from 0, not below */
  assert_true(lo == 0.0);
  assert_true(hi > 0.2775 && hi < 0.2776);
  sim_wilson(10, 10, &lo, &hi);
  assert_true(hi == 1.0);
  assert_true(lo > 0.7224 && lo < 0.7225);
  sim_wilson(0, 0, &lo, &hi); /* nothing known */
  assert_true(lo == 0.0 && hi == 1.0);
}

/* A compare run of 3 games from the largest seed (the seeds wrap: 2^64-1, 0, 1). */
static void fill_run(sim_run *run) {
  static const char *const fac[] = {"red", "blue", "green"};
  memset(run, 0, sizeof *run);
  for (int f = 0; f < 3; f++) run->factions[run->nfactions++] = mt_strdup(fac[f]);
  run->paired = true;
  run->seed = 18446744073709551615ull, run->games = 3, run->shard_i = 1, run->shard_n = 1;
  run->bots = mt_strdup("random");
  run->search = mt_strdup("4,8,4");
  run->max_decisions = 100000, run->work_budget = 100000000, run->invariants = false;
  for (int s = 0; s < 2; s++) {
    run->side[s].hash = mt_strdup(s ? "00000000000000bb" : "00000000000000aa");
    run->side[s].ruleset = mt_strdup("basic");
    run->side[s].variants = mt_strdup(s ? "house,wbc-2022" : "");
    run->side[s].present = true;
  }
}

/* Feeds TEXT to RD line by line as one file NAME; the reader's verdict, its message in ERR. */
static bool read_text(sim_reader *rd, const char *name, const char *text, strbuf *err) {
  sim_reader_begin(rd, name);
  char *copy = mt_strdup(text), *line = copy, *nl;
  bool ok = true;
  while (ok && (nl = strchr(line, '\n'))) {
    *nl = 0;
    ok = sim_reader_line(rd, line, strlen(line), err);
    line = nl + 1;
  }
  if (ok) ok = sim_reader_end(rd, *line != 0, err);
  mt_free(copy);
  return ok;
}

static void records_round_trip(void **state) {
  (void)state;
  sim_run run, back = {0};
  fill_run(&run);
  sim_record recs[] = {
      {.seed = 18446744073709551615ull, .side = SIM_BASE, .ok = true, .winners = 1u, .victory = (char[]){"1.09"}, .turns = 10, .decisions = 300},
      {.seed = 18446744073709551615ull, .side = SIM_VARIANT, .ok = true, .winners = 6u, .victory = (char[]){"house.x.1"}, .turns = 9, .decisions = 280},
      {.seed = 0, .side = SIM_BASE, .ok = false, .winners = 0, .victory = NULL, .turns = 0, .decisions = 12},
      {.seed = 0, .side = SIM_VARIANT, .ok = true, .winners = 0, .victory = NULL, .turns = 10, .decisions = 12},
      {.seed = 1, .side = SIM_BASE, .ok = true, .winners = 4u, .victory = (char[]){"2.06.08"}, .turns = 10, .decisions = 500},
      {.seed = 1, .side = SIM_VARIANT, .ok = true, .winners = 4u, .victory = (char[]){"2.06.08"}, .turns = 10, .decisions = 501},
  };
  enum { N = sizeof recs / sizeof *recs };
  strbuf text = {0}, err = {0};
  sim_header_write(&text, &run);
  for (size_t i = 0; i < N; i++) sim_record_write(&text, &run, &recs[i]);
  sim_reader rd;
  sim_reader_init(&rd, &back);
  assert_true(read_text(&rd, "run.jsonl", text.s, &err));
  assert_true(sim_reader_finish(&rd, &err));
  sim_reader_fini(&rd);
  assert_int_equal(back.n, N);
  assert_int_equal(back.nfactions, 3);
  assert_string_equal(back.factions[2], "green");
  assert_string_equal(back.bots, "random");
  assert_string_equal(back.side[1].variants, "house,wbc-2022");
  assert_string_equal(back.side[0].hash, "00000000000000aa");
  assert_true(back.paired);
  assert_true(back.seed == run.seed);
  assert_int_equal(back.games, 3);
  strbuf why = {0};
  assert_true(sim_run_same(&back, &run, "a", "b", &why));
  for (int i = 0; i < N; i++) { /* merged records come sorted by seed: 0, 1, then 2^64-1 */
    const sim_record *want = &recs[(i + 2) % N];
    assert_true(back.recs[i].seed == want->seed);
    assert_int_equal(back.recs[i].side, want->side);
    assert_int_equal(back.recs[i].ok, want->ok);
    assert_true(back.recs[i].winners == want->winners);
    assert_int_equal(back.recs[i].turns, want->turns);
    assert_int_equal(back.recs[i].decisions, want->decisions);
    if (want->victory) assert_string_equal(back.recs[i].victory, want->victory);
    else assert_null(back.recs[i].victory);
  }
  sim_run_fini(&back);

  /* a record of another run (other bots) is refused, with its line */
  strbuf bad = {0};
  sim_header_write(&bad, &run);
  mt_free(run.bots);
  run.bots = mt_strdup("heuristic");
  sim_record_write(&bad, &run, &recs[0]);
  sim_reader_init(&rd, &back);
  sb_free(&err);
  assert_false(read_text(&rd, "bad.jsonl", bad.s, &err));
  assert_non_null(strstr(err.s, "bad.jsonl:2: the field 'bots' is not the one the header gives the base side"));
  sim_reader_fini(&rd);
  sim_run_fini(&back);
  /* a line that is not a record */
  sim_reader_init(&rd, &back);
  sb_free(&err);
  assert_false(read_text(&rd, "cut.jsonl", "{\"seed\":1,\"side\":\"base\"\n", &err));
  assert_non_null(strstr(err.s, "cut.jsonl:1: ',' or '}' expected"));
  sim_reader_fini(&rd);
  sim_run_fini(&back);
  /* incomplete: a header and half the games */
  sim_reader_init(&rd, &back);
  sb_free(&err);
  char *half = mt_strdup(text.s);
  *strstr(half, "{\"seed\":0,") = 0;
  assert_false(read_text(&rd, "half.jsonl", half, &err));
  assert_non_null(strstr(err.s, "half.jsonl: shard 1/1 holds 2 of its 6 game records"));
  mt_free(half);
  sim_reader_fini(&rd);
  sim_run_fini(&back);
  /* names that could carry commands are not written */
  mt_free(run.side[1].variants);
  run.side[1].variants = mt_strdup("house,\"odd\"\r\t\\name");
  sb_free(&why);
  assert_false(sim_run_names_ok(&run, &why));
  assert_non_null(strstr(why.s, "cannot be written to records"));
  sb_free(&why), sb_free(&err), sb_free(&text), sb_free(&bad);
  sim_run_fini(&run);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(wilson_known_values),
      cmocka_unit_test(records_round_trip),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
