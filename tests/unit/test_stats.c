/* test_stats.c -- the statistics of `compare` (stats.c): the Wilson interval
 * at known values, and game records written and read back unchanged, with a
 * record of another run refused. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static void fill_run(sim_run *run) {
  static const char *const fac[] = {"red", "blue", "green"};
  memset(run, 0, sizeof *run);
  for (int f = 0; f < 3; f++) run->factions[run->nfactions++] = mt_strdup(fac[f]);
  run->bots = mt_strdup("random");
  for (int s = 0; s < 2; s++) {
    run->side[s].hash = mt_strdup(s ? "00000000000000bb" : "00000000000000aa");
    run->side[s].ruleset = mt_strdup("basic");
    run->side[s].variants = mt_strdup(s ? "house,\"odd\"\r\t\\name" : "");
    run->side[s].present = true;
  }
}

static void records_round_trip(void **state) {
  (void)state;
  sim_run run, back = {0};
  fill_run(&run);
  sim_record recs[] = {
      {.seed = 7, .side = SIM_BASE, .ok = true, .winners = 1u, .victory = (char[]){"1.09"}, .turns = 10, .decisions = 300},
      {.seed = 7, .side = SIM_VARIANT, .ok = true, .winners = 6u, .victory = (char[]){"house.x.1"}, .turns = 9, .decisions = 280},
      {.seed = 18446744073709551615ull, .side = SIM_BASE, .ok = false, .winners = 0, .victory = NULL, .turns = 0, .decisions = 12},
  };
  char path[] = "/tmp/mentat-stats-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  for (size_t i = 0; i < sizeof recs / sizeof *recs; i++) {
    sim_run_add(&run, &recs[i]);
    sim_record_write(f, &run, &recs[i]);
  }
  fclose(f);
  char err[256] = "";
  assert_true(sim_records_read(path, &back, err, sizeof err));
  assert_int_equal(back.n, 3);
  assert_int_equal(back.nfactions, 3);
  assert_string_equal(back.factions[2], "green");
  assert_string_equal(back.bots, "random");
  assert_string_equal(back.side[1].variants, "house,\"odd\"\r\t\\name");
  assert_string_equal(back.side[0].hash, "00000000000000aa");
  assert_true(back.paired);
  for (int i = 0; i < 3; i++) {
    assert_true(back.recs[i].seed == recs[i].seed);
    assert_int_equal(back.recs[i].side, recs[i].side);
    assert_int_equal(back.recs[i].ok, recs[i].ok);
    assert_true(back.recs[i].winners == recs[i].winners);
    assert_int_equal(back.recs[i].turns, recs[i].turns);
    assert_int_equal(back.recs[i].decisions, recs[i].decisions);
    if (recs[i].victory) assert_string_equal(back.recs[i].victory, recs[i].victory);
    else assert_null(back.recs[i].victory);
  }
  /* a record of another run (other bots) is refused, with the line */
  f = fopen(path, "w");
  mt_free(run.bots);
  run.bots = mt_strdup("heuristic");
  sim_record_write(f, &run, &recs[0]);
  fclose(f);
  assert_false(sim_records_read(path, &back, err, sizeof err));
  assert_non_null(strstr(err, ":1: a record of another run"));
  /* and a line that is not a record */
  f = fopen(path, "w");
  fputs("{\"seed\":1,\"side\":\"base\"\n", f);
  fclose(f);
  assert_false(sim_records_read(path, &back, err, sizeof err));
  assert_non_null(strstr(err, "not a game record"));
  unlink(path);
  sim_run_fini(&run);
  sim_run_fini(&back);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(wilson_known_values),
      cmocka_unit_test(records_round_trip),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
