/* explain.h -- explanations from the engine itself (explain.c). */
#ifndef MENTAT_EXPLAIN_H
#define MENTAT_EXPLAIN_H

#include <stdbool.h>

#include "mentat.h"
#include "util.h"
#include "program.h"

/* One rule: title, kind, owner, membership, karama window, links both ways,
 * hooks, where it is defined (and its bytecode).  JSON: object members
 * without braces.  -1 (message in OUT) for an unknown rule. */
int explain_rule(const mt_rules *r, const char *id, bool bytecode, bool json, strbuf *out);
/* Searches the loaded rules: a number prefix, keywords, `faction F`, `card C`,
 * `hooks NAME`, `karama`, `basic`, `advanced`, `phase ID`. */
int explain_query(const mt_rules *r, int argc, const char *const *argv, bool json, strbuf *out);
/* Sorts rule indices IDX[0..N) by rule number (1.9 before 1.10; named ids after numbered ones). */
void explain_sort_rules(const program *p, int *idx, int n);
/* Is CHOICE legal for the pending decision, and why (not)? */
int explain_why(mt_game *g, const char *choice, bool json, strbuf *out);

#endif
