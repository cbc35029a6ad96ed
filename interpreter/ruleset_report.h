/* ruleset_report.h -- reports over a whole rule set (ruleset_report.c):
 * what variants change (`mentat diff`) and how the rules connect
 * (`mentat graph`, Graphviz DOT). */
#ifndef MENTAT_RULESET_REPORT_H
#define MENTAT_RULESET_REPORT_H

#include <stdbool.h>

#include "mentat.h"
#include "program.h"
#include "util.h"

/* What WITH (a rule set with variants) changes relative to BASE (the same
 * pack and ruleset without them): every rule added, replaced, disabled,
 * superseded or amended by the variants, grouped by phase.  Text, or one
 * JSON object {base, variants, changes:[...]}.  BASE == WITH (no variant
 * given) reports that there is nothing to compare.  Appends to OUT; 0. */
int rules_report_diff(const mt_rules *base, const mt_rules *with, bool json, strbuf *out);

/* The rule-interaction graph of R in DOT: rules (styled by level, advanced,
 * karama, in force), supersedes/amends edges, and the values, events,
 * actions and procedures each rule defines, overrides, guards or hooks.
 * PHASE (an id, or a phase's name) or RULE, when not NULL, keeps the rules
 * under that phase, or that rule, and their direct neighbours.  Appends to
 * OUT; -1 (the message in OUT) for an unknown phase or rule. */
int rules_report_graph(const mt_rules *r, const char *phase, const char *rule, strbuf *out);

/* Does the tree N (nested rules included) signal EVENT, or offer ACTION in an
 * `act`?  (act lists are the checker's, so only rules in force answer.) */
bool rules_reach(const program *p, const node *n, const char *event, int action, int depth);
/* The rules in force whose own statements (not a nested rule's) offer ACTION in an `act`,
 * each as `ID (title), in PHASE-ID (title)` (the phase it belongs to, if any), joined by
 * "; " into OUT; how many. */
int rules_offering(const program *p, int action, strbuf *out);

#endif
