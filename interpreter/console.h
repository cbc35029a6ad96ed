/* console.h -- what the parts of the console share (repl.c, console_*.c):
 * its state and the helpers and commands one part calls in another.  Not an
 * interface of the library: `repl.h` is. */
#ifndef MENTAT_CONSOLE_H
#define MENTAT_CONSOLE_H

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bots.h"
#include "check.h"
#include "data.h"
#include "explain.h"
#include "game.h"
#include "opcodes.h"
#include "pack.h"
#include "repl.h"

typedef struct repl {
  char components[4096];
  const char *const *packs; /* mods laid over it (--pack DIR; borrowed from the options) */
  int npacks;
  const char *variants[32];
  int nvariants;
  char varbuf[1024];
  char expansion[512]; /* `new expansion=a,b`: the pack's expansions laid before the mods ("" none) */
  int advanced;
  mt_rules *r;
  mt_game *g;
  bool json;
  int bots; /* 0 random, 1 passive */
  uint64_t bot_rng;
  strbuf out;      /* text of the current command */
  strbuf log;      /* narration captured while running */
  strbuf jextra;   /* extra JSON members of the current command */
  bool jtext;          /* the command's JSON carries its own "text" */
  bool ask_free;       /* the question read asks for it free (`for free`): a Yes that costs is a No */
  int ok;          /* the last command succeeded */
  const char *refused_rules[MT_MAX_REASONS];
  int nrefused;
  char last_output[8192];
  const char *file;
  int line;
  int failures, errors;
  bool trace;
  int viewer;          /* view as: a data faction, or -1 (everything) */
  strbuf fired;        /* rules that fired during the last command that ran the game */
  strbuf last_fired;   /* ... kept for `why last` */
  strbuf last_narr;    /* the narration of that step, for `why last` */
  mt_game *history[256]; /* undo stack: the states before each change */
  int nhistory, nfuture;
  mt_game *future[256];
  char *history_what[256]; /* the command that changed history[i] (undo says what it undid) */
  char *future_what[256];  /* the command redo would do again */
  const char *cmd_line;    /* the command being run */
  bool quit;               /* quit or exit: no more commands are read */
  char branch[64];
  struct {
    char name[64];
    mt_game *g;
  } branches[32];
  int nbranches;
  char *chance_q[VM_CHANCE_PLAN]; /* `chance W...`: outcome words for the next command that runs the game */
  int nchance_q;
  FILE *outf;          /* where answers go */
  const char *sandbox; /* save/load: plain file names in this directory only (the fuzzer), or NULL */
  bool confine;        /* a script: files are written only under WRITE_ROOTS (repl_writable_path) */
  char *write_roots[40]; /* real paths: the current directory, the script's, each --allow-write */
  int nwrite_roots;
  char **origin;       /* the commands that made the current position (`new`/`load`, then each change), for verify's witness */
  int norigin, caporigin;
  bool quiet_start;    /* mentat verify: the commands that make the start position say nothing unless they fail */
  bool progress;       /* mentat verify: progress on a terminal although the commands come from a script */
  bool origin_known;   /* false after undo, redo or switch: the position's history is not a script any more */
  char *origin_pending; /* a `chance W...` line, joining the history with the command that takes its outcomes */
} repl;

static inline const board_def *DEF(repl *R) { return R->r->def; }
static inline unsigned char *ST(repl *R) { return R->g->v.st; }
static inline const board_layout *LAY(repl *R) { return R->g->L; }

/* The answer of the current command: text, and (fail) the command fails. */
void repl_vsay(repl *R, const char *fmt, va_list ap) MT_PRINTF(2, 0);
static inline void say(repl *R, const char *fmt, ...) MT_PRINTF(2, 3);
static inline void say(repl *R, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  repl_vsay(R, fmt, ap);
  va_end(ap);
}
static inline int fail(repl *R, const char *fmt, ...) MT_PRINTF(2, 3);
static inline int fail(repl *R, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  repl_vsay(R, fmt, ap);
  va_end(ap);
  R->ok = 0;
  return -1;
}

/* repl.c: output, names and numbers */
void repl_attach(repl *R, mt_game *g);
void repl_message(void *ud, int level, const char *text);
int repl_faction_id(repl *R, const char *w);
int repl_suggest_fail(repl *R, const char *what, const char *w, const char *const *c, size_t n);
int repl_need_faction(repl *R, const char *w, int *f);
int repl_need_area(repl *R, const char *w, int *a);
int repl_need_card(repl *R, const char *w, int *k);
bool repl_parse_int(const char *w, long long *v);
int repl_parse_number(repl *R, const char *what, const char *w, long long lo, long long hi, long long *v);
int repl_parse_u64(repl *R, const char *what, const char *w, unsigned long long *v);
int repl_section_arg(repl *R, int a, const char *w, int *sec);
int repl_var_of(repl *R, const char *name);
int repl_pool_of(repl *R, const char *name);
int repl_pile_of(repl *R, const char *name);

/* console_edit.c: setting up a position */
int repl_load_rules(repl *R);
int repl_cmd_new(repl *R, int argc, char **argv);
int repl_pool_count(repl *R, int pool, int gf, int kind);
int repl_cmd_put(repl *R, int argc, char **argv);
int repl_cmd_clear(repl *R, int argc, char **argv);
int repl_cmd_pool(repl *R, int argc, char **argv);
int32_t repl_get_var(repl *R, const char *name, int index);
int repl_cmd_spice(repl *R, int argc, char **argv);
int repl_cmd_give(repl *R, int argc, char **argv, bool exact);
int repl_cmd_stack(repl *R, int argc, char **argv, bool discard);
int repl_cmd_setmarker(repl *R, int argc, char **argv);
int repl_cmd_ally(repl *R, int argc, char **argv);
int repl_cmd_set(repl *R, const char *rest);
int repl_cmd_leader(repl *R, int argc, char **argv);

/* console_play.c: driving the game */
int repl_advance(repl *R, int mode);
int repl_seek_phase(repl *R, int ph);
int repl_cmd_phase(repl *R, int argc, char **argv);
void repl_describe_pending(repl *R);
int repl_cmd_run(repl *R, int argc, char **argv);
int repl_cmd_legal(repl *R, int argc, char **argv);
int repl_cmd_do(repl *R, const char *rest);
void repl_remember(repl *R, mt_game *before);
/* The path to write NAME at: NAME itself, checked against what a script may
 * touch (R->confine), or in the sandbox; -1 (reported) when refused. */
int repl_writable_path(repl *R, const char *name, char *path, size_t n);
int repl_cmd_undo(repl *R, bool redo);
int repl_cmd_branch(repl *R, int argc, char **argv);
int repl_cmd_branches(repl *R);
mt_game *repl_forward_copy(repl *R, int *phase);
int repl_cmd_offer(repl *R, const char *rest);
int repl_cmd_stop(repl *R, int argc, char **argv);

/* console_show.c: showing, saving, loading */
int repl_cmd_show(repl *R, int argc, char **argv);
int repl_cmd_view(repl *R, int argc, char **argv);
int repl_cmd_save(repl *R, int argc, char **argv);
int repl_cmd_load(repl *R, int argc, char **argv);

/* console_ask.c: questions */
int repl_cmd_winner(repl *R);
int repl_cmd_eval(repl *R, const char *rest, bool check);
int repl_cmd_expect(repl *R, int argc, char **argv, const char *rest, int prev_ok);
int repl_cmd_explain(repl *R, int argc, char **argv);
int repl_cmd_rules_query(repl *R, int argc, char **argv);
int repl_cmd_why(repl *R, const char *rest);
/* console_ask.c: a line that is no command read as a question in players' words (`can the
 * fremen ship 5 to funeral plain?`, `who wins now`): the command it stands for in OUT. */
bool repl_question(repl *R, const char *line, strbuf *out);
/* console_edit.c: after a position edit, a warning for each invariant of the rules it broke. */
int repl_edit_settle(repl *R, mt_game *before);
/* console_ask.c: TEXT without the words that only make it a question (`can't`, `is it legal`). */
bool repl_question_clause(const char *text, strbuf *out);
/* console_ask.c: a word asking what something costs (`pay`, `price`, `free`). */
bool repl_cost_word(const char *k);
/* console_decide.c: `why` of a decision that is no action (a `may` or an `ask` of the rules):
 * 1 answered, 0 not about a decision, -1 failed. */
int repl_why_decision(repl *R, const char *rest, bool also);
/* console_quantity.c: CLAUSE comparing a count with a quantity (`bid more than they have`) as the
 * clause `why` judges, with a witness value (OUT), what was judged (NOTE), and a supposition
 * (`with 3 spice`: the expression HYPO is to be HVAL; HYPO empty if none); false if none. */
bool repl_quantity_clause(repl *R, const char *clause, strbuf *out, strbuf *note, char *hypo, size_t hcap, int64_t *hval);
/* console_quantity.c: CLAUSE naming a faction no parameter of its action takes (`the emperor pay
 * for atreides revival`), read as the faction an expression of the action's parameters stands
 * for (ally(f)): the clause without it (OUT), what it is (NOTE), *REFUSED when it is not that
 * faction (a No whatever else); false if no such reading. */
bool repl_reach_clause(repl *R, const char *clause, strbuf *out, strbuf *note, bool *refused);
/* console_quantity.c: CLAUSE naming a faction by its relation to the subject (`its ally`): the
 * clause with the faction it is now (OUT), what was read (NOTE), *NONE when there is none. */
bool repl_relation_clause(repl *R, const char *clause, strbuf *out, strbuf *note, bool *none);

/* console_verify.c: can this ever happen? */
int repl_cmd_verify(repl *R, int argc, char **argv);
void repl_origin_reset(repl *R, const char *line);
void repl_origin_add(repl *R, const char *line);

/* console_chance.c: chance as choice */
typedef int (*repl_step_fn)(repl *R, void *ctx);
int repl_cmd_chance(repl *R, int argc, char **argv);
int repl_chance_retry(repl *R, const mt_game *before, uint64_t bot_rng, repl_step_fn run, void *ctx);
int repl_chance_blocked(repl *R, mt_game *g);
bool repl_chance_pending(mt_game *g);
int repl_chance_query_done(repl *R, int rc);
void repl_chance_forget_queue(repl *R);
void repl_chance_replaced(repl *R, const char *cmd);

#endif
