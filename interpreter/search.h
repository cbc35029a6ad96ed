/* search.h -- the search bot (search.c): determinized Monte-Carlo with the
 * heuristic bot as playout policy. */
#ifndef MENTAT_SEARCH_H
#define MENTAT_SEARCH_H

#include <stdbool.h>
#include <stdint.h>

#include "mentat.h"

/* Rounds per decision (each plays every candidate once), decisions per
 * playout after the candidate, and candidates searched (the heuristic's
 * best, one answer ahead): the defaults keep a 6-faction game with two
 * search seats at a few seconds. */
#define BOT_SEARCH_PLAYOUTS 4
#define BOT_SEARCH_HORIZON 8
#define BOT_SEARCH_WIDTH 4

/* Sets the budget of every search bot of the process (below 1, or below 0
 * for HORIZON: the default). */
void bot_search_set(int playouts, int horizon, int width);
void bot_search_get(int *playouts, int *horizon, int *width);
/* Chooses an answer to G's pending decision by determinized search from the
 * deciding faction's view; false if there is none.  Deterministic in *RNG. */
bool bot_search_choose(mt_game *g, uint64_t *rng, mt_choice *out);
/* Makes G one of the positions its pending decision's FACTION (a data faction
 * index) cannot tell from it (determinize.c): the cards of piles hidden from
 * it dealt anew within each deck, the other factions' secret variables guessed
 * (their integers set to FACTION's own value) and those nobody sees reset, in
 * a secret round the others' answers taken back, the leaders the rules'
 * leader_seen_by hides from it dealt anew among those of one owner, the game's
 * generator reseeded.  The result depends only on what FACTION may see and on
 * *RNG. */
void bot_determinize(mt_game *g, int64_t faction, uint64_t *rng);

#endif
