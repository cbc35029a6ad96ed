/* bots.h -- players for the engine's decisions (bots.c). */
#ifndef MENTAT_BOTS_H
#define MENTAT_BOTS_H

#include <stdbool.h>
#include <stdint.h>

#include "mentat.h"

/* random: level by level (mt_sample): the action uniform among those with a
 * legal answer, then each parameter uniform among the values still leading to
 * one -- the playout bot, which never lists every answer; uniform: uniform over
 * the full list of legal answers (so an action with many parameter values, a
 * shipment, is picked far more often than passing; an answer beyond the buffer
 * is fetched with mt_legal_nth); passive: declines optional uses
 * (`may` -> no) and otherwise takes the answer with the fewest parameters;
 * heuristic: tries up to BOT_SAMPLE answers (all, when there are no more;
 * else draws of mt_sample, never the full list, plus both ends of the
 * integer range of each action drawn) on copies of the game and keeps the one
 * after which the rules' value `bot_value(f)` of the deciding faction is
 * highest (random when the rules define no such value).  Every bot returns
 * false when there is no answer, and also when the decision's work budget ran
 * out (mt_decision_error then says so). */
typedef enum { BOT_RANDOM, BOT_PASSIVE, BOT_HEURISTIC, BOT_UNIFORM } bot_kind;

int bot_kind_parse(const char *name); /* -1 if unknown */
const char *bot_kind_name(int kind);
/* A splitmix64 step: the bots' own generator, seeded per game. */
uint64_t bot_rand(uint64_t *state);
/* Chooses an answer to G's pending decision; false if there is none. */
bool bot_choose(mt_game *g, int kind, uint64_t *rng, mt_choice *out);

#endif
