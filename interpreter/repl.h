/* repl.h -- the console (repl.c). */
#ifndef MENTAT_REPL_H
#define MENTAT_REPL_H

/* `mentat repl [--json] [--components DIR] [--pack DIR]... [--variant V] [--ruleset basic|advanced] [FILE]`: runs console
 * commands from FILE or stdin; DEFAULT_PACK is the standard rule pack.
 * Returns 0, or 1 when a scripted expectation or command failed. */
int repl_main(int argc, char **argv, const char *default_pack);
/* `mentat verify [pack options] [--factions a,b] [--seed N] [--from SAVE|SCRIPT] [--json] QUERY`: the
 * start position made by the console (`new`, `load SAVE`, or the script), then its `verify QUERY`. */
int repl_verify_main(int argc, char **argv, const char *default_pack);

#include <stdbool.h>
#include <stdio.h>

#include "mentat.h"

typedef struct repl_options {
  const char *pack;                /* the rule pack's directory */
  const char *const *packs;        /* mods laid over it (--pack DIR), borrowed */
  int npacks;
  const char *const *variants;     /* variants applied by `new` */
  int nvariants;
  bool advanced;                   /* the ruleset of `new` when it names none: advanced, else basic */
  bool json;                       /* one JSON object per command */
  const char *sandbox;             /* save/load take plain file names, in this directory (or NULL) */
  bool confine;                    /* a script: it writes files only under the current directory, OWN_FILE's
                                      directory and ALLOW_WRITE (docs/console.md, "What a script may touch") */
  const char *own_file;            /* the script's file, or NULL (standard input) */
  const char *const *allow_write;  /* --allow-write PATH: more places a script may write (borrowed) */
  int nallow_write;
  const mt_rules *rules;           /* already compiled rules of PACK to start with, or NULL */
  bool no_summary;                 /* mentat verify: no "SCRIPT: N failed" line at the end, and commands that
                                      succeed print nothing but `verify`'s answer */
  bool progress;                   /* mentat verify: long commands show progress on standard error when it is a
                                      terminal (as at an interactive prompt), never with --json */
} repl_options;

/* Runs console commands from IN, answers to OUT; SCRIPT names IN in messages
 * (NULL: interactive when IN is a terminal).  Returns 0, or 1 when a command
 * or an expectation failed in a script. */
int repl_run(FILE *in, FILE *out, const char *script, const repl_options *o);

#endif
