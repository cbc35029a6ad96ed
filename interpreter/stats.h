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
#include "util.h"

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

/* A run: what decides its games (its identity, written first in every
 * records file, so that merge can tell the shards of one run from anything
 * else), and the records of the games played. */
typedef struct sim_run {
  bool paired;            /* compare: two sides on the same seeds */
  uint64_t seed;          /* game k plays seed SEED+k */
  long games;             /* of the whole run, every shard */
  long shard_i, shard_n;  /* this process's (or file's) slice: games k = I-1, I-1+N, ... */
  char *bots;             /* as given: one kind, or one per seat */
  char *search;           /* the search bot's budget P,H,W */
  long max_decisions;
  uint64_t work_budget;   /* per decision, as in force (0 never: the default is written out) */
  bool invariants;        /* checked after every step */
  char *factions[SIM_MAX_FACTIONS];
  int nfactions;
  sim_side side[2];
  sim_record *recs;
  long n, cap;
} sim_run;

/* The first line of a records file: the run's identity as one JSON object,
 * ending in a newline, appended to OUT (docs/balance.md). */
void sim_header_write(strbuf *out, const sim_run *run);

/* Whether A and B are the same run and shard; if not, the first difference
 * in WHY ("LA has FIELD:X, LB FIELD:Y"). */
bool sim_run_same(const sim_run *a, const sim_run *b, const char *la, const char *lb, strbuf *why);

/* Checks that every name RUN will write (factions, bots, variants) is one a
 * records file may hold; false with the reason in WHY. */
bool sim_run_names_ok(const sim_run *run, strbuf *why);

/* The game index k of SEED in RUN (seed = RUN's seed + k, wrapping), or -1
 * when the seed is not a game of RUN's shard. */
long sim_run_game(const sim_run *run, uint64_t seed);

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

/* qsort's order of records: by seed, the base side first. */
int sim_record_order(const void *a, const void *b);

/* Adds a record (copied; VICTORY duplicated) to RUN. */
void sim_run_add(sim_run *run, const sim_record *rec);
void sim_run_fini(sim_run *run);

/* One record as one JSON line appended to OUT. */
void sim_record_write(strbuf *out, const sim_run *run, const sim_record *rec);

/* Reading records: one file after another into one run.  Every file must
 * start with the header of the same run (all but its shard), each shard once;
 * every record must agree with its file's header, be a game of that shard,
 * and appear once.  sim_reader_finish then refuses anything that is not
 * exactly one complete run: every shard present, every game of every shard
 * (both sides for compare).  Errors are "FILE:LINE: reason". */
typedef struct sim_reader {
  sim_run *run;       /* the run read (its identity from the first header) */
  char *ident;        /* the first header's text without its shard: the run's identity */
  char **shard_file;  /* by shard: the file that held it, or NULL */
  long *shard_games;  /* by shard: the records read */
  long nshards;
  const char *name;   /* the file being read */
  long lineno;
  long shard;         /* the file's shard (1-based), 0 before its header */
  bool partial;       /* resume: one file, its games may be incomplete */
} sim_reader;
void sim_reader_init(sim_reader *rd, sim_run *run);
void sim_reader_fini(sim_reader *rd);
/* Starts file NAME (kept by reference until the next one). */
void sim_reader_begin(sim_reader *rd, const char *name);
/* One line of the current file, without its newline. */
bool sim_reader_line(sim_reader *rd, const char *line, size_t len, strbuf *err);
/* The current file ended; CUT: its last line had no newline (it was cut short). */
bool sim_reader_end(sim_reader *rd, bool cut, strbuf *err);
/* After every file: exactly one complete run, or false with the reason. */
bool sim_reader_finish(sim_reader *rd, strbuf *err);

/* Reads records file PATH into RD (a regular file, a pipe or a device; a
 * directory or a read error is refused with its cause).  With RD->partial
 * (--resume), a last line cut short is left out and the shard's games may be
 * incomplete. */
bool sim_records_read(sim_reader *rd, const char *path, strbuf *err);

/* The summary of RUN (its records sorted by seed) on standard output (text,
 * --json or --csv), and the plot into PLOT (opened by the caller before any
 * work, so that a bad path fails at once; committed or removed here) if not
 * NULL.  Returns 0, or 74 with the cause on standard error when the plot
 * could not be drawn or written. */
int sim_summary(sim_run *run, const sim_output *out, mt_out *plot);

/* `mentat merge [--json|--csv] [--plot FILE.svg] RECORDS...`. */
int sim_merge_main(int argc, char **argv);

#endif
