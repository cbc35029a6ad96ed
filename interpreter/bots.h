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
 * highest (random when the rules define no such value), tried in a world
 * made from what that faction may see (bot_determinize), never in the real
 * position; search: tries the
 * heuristic's candidates in playouts on determinized copies (search.c).  Every bot returns
 * false when there is no answer, and also when the decision's work budget ran
 * out (mt_decision_error then says so). */
typedef enum { BOT_RANDOM, BOT_PASSIVE, BOT_HEURISTIC, BOT_UNIFORM, BOT_SEARCH } bot_kind;

#define BOT_CAP 4096 /* the most candidates a bot lists */

int bot_kind_parse(const char *name); /* -1 if unknown */
/* A comma-separated list of kinds, one per seat (game faction order), into
 * KINDS: how many, or -1 if a name is unknown or there are more than CAP. */
int bot_kinds_parse(const char *list, int *kinds, int cap);
const char *bot_kind_name(int kind);
/* A splitmix64 step: the bots' own generator, seeded per game. */
uint64_t bot_rand(uint64_t *state);
/* Chooses an answer to G's pending decision; false if there is none. */
bool bot_choose(mt_game *g, int kind, uint64_t *rng, mt_choice *out);
/* The heuristic bot's answer to G's pending decision, its candidates scored in a
 * determinization of G from the deciding faction's view (bot_determinize); WORLD:
 * G is one already (a search playout), scored as it is. */
bool bot_heuristic_choose(mt_game *g, uint64_t *rng, mt_choice *out, bool world);
/* The heuristic bot's candidate answers into BUF (BOT_CAP entries): how many. */
size_t bot_candidates(mt_game *g, uint64_t *rng, mt_choice *buf);
/* The rules' value `bot_value(f: faction): int`, or -1 if they define none. */
int bot_value_index(const mt_game *g);
/* bot_value(F) (F a data faction index) in G: false if it cannot be evaluated. */
bool bot_value(mt_game *g, int value, int64_t f, int64_t *out);

#endif
