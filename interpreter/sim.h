/* sim.h -- seeded random playouts with invariants (sim.c). */
#ifndef MENTAT_SIM_H
#define MENTAT_SIM_H

#include "mentat.h"

/* `mentat simulate` after the pack options: --games N --seed S --jobs J
 * --json --factions LIST --max-decisions M.  Returns 0, 1 on a failed game,
 * 64 on bad options. */
int sim_main(const mt_rules *r, int argc, char **argv);

#endif
