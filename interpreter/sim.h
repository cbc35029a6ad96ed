/* sim.h -- seeded random playouts with invariants (sim.c). */
#ifndef MENTAT_SIM_H
#define MENTAT_SIM_H

#include "mentat.h"
#include "stats.h"

/* `mentat simulate` after the pack options: --games N --seed S --jobs J
 * --json --factions LIST --max-decisions M --bots B (or B1,B2,... one per
 * faction in game order) --search-budget P[,H[,W]] --no-invariants --quiet
 * --records FILE [--resume] --shard I/N.  PACK_OPTIONS: the pack options as
 * typed (--components, --variant, --advanced), for the line that replays a
 * failing game.  Returns 0, 1 when a game failed, 64 on bad options, 65 when
 * --resume finds another run's records, 70 when a worker died with games
 * unplayed, 74 when the records could not be written. */
int sim_main(const mt_rules *r, const char *pack_options, int argc, char **argv);

/* `mentat compare` after the pack options: plays BASE and VARIANT on the same
 * seeds (game k of each uses seed S+k) and prints the paired summary
 * (stats.h).  Options: --games --seed --jobs --bots --factions --json --csv
 * --records FILE [--resume] --plot FILE.svg --quiet --shard I/N --invariants
 * --max-decisions --work-budget.  Returns 0, 1 when a game failed, 64 on bad
 * options, 65 when --resume finds another run's records, 70 when a worker
 * died, 74 when an output could not be written. */
int sim_compare_main(const mt_rules *base, const mt_rules *variant, int argc, char **argv);

#endif
