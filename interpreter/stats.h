/* stats.h -- what a balance run measured, and what it means (stats.c).
 *
 * A run is a list of game records: one per game played, of one rule set (a
 * simulate run) or of two on the same seeds (compare: the base and the
 * variant side).  Every summary -- text, JSON, CSV, the plot -- is computed
 * from the records alone, so a run split in shards and merged from its
 * records files prints exactly what the single run prints. */
#ifndef MENTAT_STATS_H
#define MENTAT_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "mentat.h"

enum { SIM_BASE = 0, SIM_VARIANT = 1, SIM_MAX_FACTIONS = 32 };

/* One game played. */
typedef struct sim_record {
  uint64_t seed;
  int side;         /* SIM_BASE or SIM_VARIANT */
  bool ok;          /* false: the game failed (it counts for neither side) */
  uint64_t winners; /* bit i: the run's faction i won */
  char *victory;    /* the deciding rule's id, or NULL (no winner) */
  long turns, decisions;
} sim_record;

/* A rule set as the records name it. */
typedef struct sim_side {
  char *hash;     /* sim_ruleset_hash, 16 hex digits */
  char *ruleset;  /* basic or advanced */
  char *variants; /* the variants' declared names, comma-separated ("" none) */
  bool present;
} sim_side;

typedef struct sim_run {
  bool paired; /* compare: two sides on the same seeds */
  char *bots;
  char *factions[SIM_MAX_FACTIONS];
  int nfactions;
  sim_side side[2];
  sim_record *recs;
  long n, cap;
} sim_run;

/* The options of the summary. */
typedef struct sim_output {
  bool json, csv;
  const char *plot; /* an SVG file drawn by gnuplot, or NULL */
} sim_output;

/* The 95% Wilson score interval of K successes in N trials. */
void sim_wilson(long k, long n, double *lo, double *hi);

/* A hash of the compiled rule set: rule ids, titles, what is disabled or
 * replaced, the bytecode and constants.  Equal for equal rule sets of one
 * build; 16 hex digits into OUT[17]. */
void sim_ruleset_hash(const mt_rules *r, char out[17]);

/* Adds a record (copied; VICTORY duplicated) to RUN. */
void sim_run_add(sim_run *run, const sim_record *rec);
void sim_run_fini(sim_run *run);

/* One record as one JSON line to OUT. */
void sim_record_write(FILE *out, const sim_run *run, const sim_record *rec);

/* Reads the records of PATH into RUN (which may already hold others of the
 * same run).  Returns false with a message in ERR on a line that is not a
 * record or belongs to another run (other factions, bots or rule sets). */
bool sim_records_read(const char *path, sim_run *run, char *err, size_t errlen);

/* The summary of RUN (its records sorted by seed) on standard output (text, --json or --csv), and the
 * plot if asked.  Returns 0, or 74 when the plot could not be drawn. */
int sim_summary(sim_run *run, const sim_output *out);

/* `mentat merge [--json|--csv] [--plot FILE.svg] RECORDS...`. */
int sim_merge_main(int argc, char **argv);

#endif
