/* reach.h -- `verify`: can a position be reached from here? (reach.c)
 *
 * A bounded search over the legal decisions of the factions that decide and
 * the outcomes of the rules' random events (chance as choice, mentat.h),
 * for a position where a rules-language boolean holds (`can`) or fails
 * (`always`).  The answer is a witness -- the console lines that replay the
 * line from the start position -- or "no, within these bounds" with how much
 * was explored and why the search stopped (docs/verify.md). */
#ifndef MENTAT_REACH_H
#define MENTAT_REACH_H

#include <stdbool.h>
#include <stdint.h>

#include "game.h"

typedef enum { REACH_CAN, REACH_ALWAYS } reach_mode;
typedef enum { REACH_NO_BOUND, REACH_BY_TURN, REACH_WITHIN, REACH_THIS_PHASE } reach_bound;
typedef enum { REACH_FOUND, REACH_EXHAUSTED, REACH_BUDGET, REACH_ERROR } reach_verdict;

typedef struct reach_query {
  reach_mode mode;
  char expr[2048];
  reach_bound bound;
  int64_t limit;               /* BY_TURN: the last turn; WITHIN: decisions */
  uint64_t deciders;           /* data-faction bits of the factions that choose (0: every faction) */
  int others;                  /* bot kind answering for the other factions (BOT_PASSIVE by default) */
  bool ends;                   /* integer answers only at the ends of their ranges (fewer, not a proof) */
  bool list_order;             /* answers in listing order (else the heuristic bot's choice first) */
  bool keep_order;             /* the face-down piles keep the order they have (else it is undecided) */
  uint64_t max_positions;      /* budget: distinct positions (0: the default) */
  double max_seconds;          /* budget: time (0: the default) */
  int jobs;                    /* worker processes splitting the first branching point */
  bool json;
} reach_query;

typedef struct reach_result {
  reach_verdict verdict;
  uint64_t positions;          /* distinct positions explored (summed over workers) */
  uint64_t steps;              /* answers and outcomes applied */
  uint64_t chance;             /* random events branched on */
  int depth;                   /* decisions in the witness */
  int deepest;                 /* the most decisions on any line explored */
  double seconds;
  char stop[256];              /* why the search stopped, in words */
  uint64_t failed;             /* lines on which the rules hit a runtime error (not followed further) */
  char fail_text[512];         /* the first such error */
  char **lines;                /* the witness: console lines from the start position */
  int nlines;
} reach_result;

/* Parses "can|always EXPR [by turn T | within N decisions | this phase]
 * [--for F,G] [--others passive|random|heuristic] [--ints all|ends] [--order heuristic|list]
 * [--max-positions N] [--max-seconds S] [--jobs N] [--json]": 0, or -1 with
 * the reason in ERR.  Faction names are checked against R. */
int reach_parse(const mt_rules *r, int argc, char **argv, reach_query *q, char *err, size_t errlen);
/* Searches from START (left unchanged; idle, waiting or over).  START_LINES
 * are the console lines that make the start position (`new ...`), copied to
 * the witness's head.  0, or -1 with ERR (the query does not compile). */
int reach_run(const mt_game *start, const reach_query *q, const char *const *start_lines, int nstart, reach_result *res,
              strbuf *err);
void reach_result_free(reach_result *res);
/* The result as text (human) or one JSON object, appended to OUT. */
void reach_format(const reach_query *q, const reach_result *res, bool json, strbuf *out);

#endif
