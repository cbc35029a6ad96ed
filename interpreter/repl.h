/* repl.h -- the console (repl.c). */
#ifndef MENTAT_REPL_H
#define MENTAT_REPL_H

/* `mentat repl [--json] [--components DIR] [--variant V] [FILE]`: runs console
 * commands from FILE or stdin; DEFAULT_PACK is the standard rule pack.
 * Returns 0, or 1 when a scripted expectation or command failed. */
int repl_main(int argc, char **argv, const char *default_pack);

#endif
