/* pack.h -- where the standard rule pack is (pack.c). */
#ifndef MENTAT_PACK_H
#define MENTAT_PACK_H

#include <stddef.h>

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

#endif
