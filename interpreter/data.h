/* data.h -- loading the game's components (YAML) into a board_def.
 *
 * Pipeline stage: the first thing a game does.  libyaml's event API drives a
 * small recursive reader; every problem is a diagnostic at file:line:col with
 * the offending line and a caret (see docs/components.md for the format).
 *
 * Files are loaded into a loader in dependency order -- the board file first
 * (it declares the names everything else refers to), then the decks file and
 * the faction files -- and data_loader_finish() resolves what refers across
 * files (cards naming leaders), derives generated cards and precomputes the
 * board tables.  Any error makes finish fail; the def is then unusable.
 */
#ifndef MENTAT_DATA_H
#define MENTAT_DATA_H

#include <stddef.h>

#include "board.h"
#include "diag.h"

#define DATA_MAX_DEPTH 64 /* nesting limit for YAML collections */

typedef struct data_loader data_loader;

/* DEF is borrowed and filled; D receives diagnostics (borrowed). */
data_loader *data_loader_new(board_def *def, diag *d);
void data_loader_free(data_loader *ld);

/* Each returns 0 on success, -1 if it reported errors.  The _text forms take
 * a buffer (NAME is what diagnostics call it); the others read PATH.  A
 * faction's id is its file name without ".yaml" (for _text: NAME's). */
int data_load_board(data_loader *ld, const char *path);
int data_load_decks(data_loader *ld, const char *path);
/* The decks file PATH with the additions ADDS (rules/decks.NAME.yaml of the layers, in the order
 * they are laid) appended to its decks, piles and attributes (docs/components.md). */
int data_load_decks_adding(data_loader *ld, const char *path, const char *const *adds, size_t nadds);
int data_load_faction(data_loader *ld, const char *path);
int data_load_board_text(data_loader *ld, const char *name, const char *text, size_t len);
int data_load_decks_text(data_loader *ld, const char *name, const char *text, size_t len);
int data_load_faction_text(data_loader *ld, const char *name, const char *text, size_t len);
/* Cross-file resolution and derived tables; 0 or -1. */
int data_loader_finish(data_loader *ld);

/* Loads a component pack: ROOT/rules/board.yaml, ROOT/rules/decks.yaml and
 * ROOT/factions/ *.yaml (sorted by name).  Returns a finished def, or NULL
 * after reporting errors to D. */
board_def *data_load_dir(const char *root, diag *d);

/* Loads the component files PF names (pack.h: a pack with mods laid over
 * it), in the same order; the same results as data_load_dir. */
struct pack_files;
board_def *data_load_pack(const struct pack_files *pf, diag *d);

/* ---- inspection (dump.c) ------------------------------------------------
 * `mentat dump board|decks|factions [--json] [--rules DIR]`; argv[0] is
 * "dump".  Returns 0, 64 (usage), 65 (data error) or 74 (I/O).  The dump_*
 * writers append the text or JSON form of a finished def to OUT. */
int dump_main(int argc, char **argv);
void dump_board(const board_def *def, bool json, strbuf *out);
void dump_decks(const board_def *def, bool json, strbuf *out);
void dump_factions(const board_def *def, bool json, strbuf *out);

#endif
