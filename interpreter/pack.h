/* pack.h -- where the rule pack is, and which of its files a game loads
 * (pack.c). */
#ifndef MENTAT_PACK_H
#define MENTAT_PACK_H

#include <stddef.h>

#include "diag.h"
#include "util.h"

/* Finds the standard rule pack: the directory that holds rules/board.yaml
 * (and factions/, variants/).  Looks, in order, in the executable's parent
 * (a checkout's build/..), in PARENT/share/mentat (`make install` puts bin/
 * and share/mentat/ side by side), in the executable's own directory, and in
 * the current directory.  EXE is the executable's absolute path (NULL: read
 * /proc/self/exe).  Returns BUF holding the directory -- "." when it is the
 * current directory, so diagnostics name files relatively -- or NULL when
 * none has it.  Then WHY, if not NULL, receives the message for the user:
 * every file probed, one per line, and how to name a pack (--rules DIR). */
const char *pack_find(const char *exe, char *buf, size_t n, strbuf *why);

/* The files a game loads from a base pack with mods laid over it
 * (docs/modding.md).  Every path is owned (mt_free'd by pack_files_fini). */
typedef struct pack_files {
  char *board, *decks;     /* rules/board.yaml, rules/decks.yaml of the last layer that has one */
  char *no_factions;       /* the base's factions/ when it cannot be opened, else NULL */
  char **decks_add;        /* rules/decks.NAME.yaml (additions to the decks), by layer, then name */
  size_t ndecks_add, capdecks_add;
  char **yaml;             /* factions/ *.yaml, sorted by file name */
  size_t nyaml, capyaml;
  char **rules;            /* rules/, then factions/, then variants/ *.rules, each sorted by file name */
  size_t nrules, caprules;
} pack_files;

/* Lays the MODS directories, in order, over the BASE pack: a file of a later
 * layer with the same path inside its directory (rules/board.yaml,
 * factions/x.yaml, variants/v.rules...) replaces the earlier one, any other
 * file is added.  A mod that holds none of these files is an error, and a
 * file a mod holds where Mentat never looks (x.yaml beside rules/) a warning,
 * both reported to D.  Fills OUT (zeroed first); returns 0, or -1 after an
 * error.  A directory that does not exist is the caller's to refuse first:
 * here it only holds nothing. */
int pack_layer(const char *base, const char *const *mods, int nmods, pack_files *out, diag *d);
void pack_files_fini(pack_files *pf);

/* Whether DIR, given as --pack DIR, is a directory that can be read: 0, or -1
 * with the reason ("cannot read pack 'x': No such file or directory") in WHY. */
int pack_dir_ok(const char *dir, strbuf *why);

/* The directory of the expansion NAME of the pack BASE: BASE/expansions/NAME,
 * a pack layer like any mod (docs/expansions.md).  Returns it (mt_free'd by
 * the caller), or NULL with the reason in WHY: a name that is not a plain
 * word ([a-z0-9_-]), or one the pack does not have -- then WHY names the
 * nearest one it has and lists them all. */
char *pack_expansion(const char *base, const char *name, strbuf *why);

/* The name of the first expansion of the pack BASE (by name) that holds the
 * faction ID (expansions/NAME/factions/ID.yaml), mt_free'd by the caller, or
 * NULL: what an "unknown faction" message suggests turning on. */
char *pack_expansion_with_faction(const char *base, const char *id);

#endif
