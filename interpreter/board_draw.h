/* board_draw.h -- pictures of a position: a compact text map and an SVG.
 *
 * Pipeline stage: beside the console, over board.h.  Everything drawn comes
 * from the data: the sectors, each territory's sections, its tags, and two
 * optional area attributes, `ring` (the band counted out from the centre;
 * default BOARD_DRAW_RING) and `outlined` (a heavy outline).  Tokens are
 * public; section variables are drawn when VIEWER may see them (public ones
 * always, others only in the full view, VIEWER -1).
 */
#ifndef MENTAT_BOARD_DRAW_H
#define MENTAT_BOARD_DRAW_H

#include "board.h"

#define BOARD_DRAW_RING 2 /* the band of a territory whose data gives none */

/* One line per sector (then one for the territories in no sector): its
 * sections from the centre out (`area@sector`, or the area's id when it has
 * one section), each followed by what lies there in
 * brackets, `[harkonnen 10, board_spice 6]`; a sector under the storm is
 * marked `(storm)`.  Appends to O. */
void board_draw_text(const board_layout *L, const unsigned char *st, int viewer, strbuf *o);

/* A polar schematic as a standalone SVG document: the territories in no
 * sector in the centre disc, every section an annular wedge (its ring's
 * band x its sector), filled by the colour of its area's first tag, the
 * storm's sectors shaded, section variables as numbers in circles, each
 * faction's tokens as labelled chips, and a legend.  TITLE may be NULL.
 * Appends to O. */
void board_draw_svg(const board_layout *L, const unsigned char *st, int viewer, const char *title, strbuf *o);

#endif
