/* mentat.h -- the public API of the Mentat engine (libmentat.a).
 *
 * A rule set (mt_rules) is compiled once from YAML components and .rules
 * text; games (mt_game) run against it.  A game is a deterministic state
 * machine: it runs until a player must decide, and continues when the
 * decision is answered.  The whole game state, including the suspended VM,
 * is one flat block: mt_clone copies it with memcpy.
 *
 * The library never prints or exits: diagnostics go to the message callback
 * given at load time; narration goes to the log callback of each game.
 */
#ifndef MENTAT_H
#define MENTAT_H

#include <stddef.h>
#include <stdint.h>

typedef struct mt_rules mt_rules;
typedef struct mt_game mt_game;

/* level: 0 error, 1 warning, 2 note; TEXT is a complete rendered message. */
typedef void (*mt_message_fn)(void *ud, int level, const char *text);
/* RULE is the number of the rule whose code narrated TEXT. */
typedef void (*mt_log_fn)(void *ud, const char *rule, const char *text);

/* The text of a rules file other than what is on disk: an editor's unsaved buffer. */
typedef struct mt_source {
  const char *path, *text;
  size_t len;
} mt_source;
/* Where a message is: FILE (NULL: in no file) and the 1-based LINE and COL of its start and of
 * its end (END_COL exclusive); columns count bytes. */
typedef struct mt_where {
  const char *file;
  unsigned line, col, end_line, end_col;
} mt_where;
/* A message unrendered: MSG alone, without place or source line. */
typedef void (*mt_message_at_fn)(void *ud, int level, const mt_where *at, const char *msg);

typedef struct mt_load {
  const char *components;          /* dir holding rules/board.yaml, rules/decks.yaml and factions/ */
  const char *const *packs;        /* mods laid over it, in order (docs/modding.md) */
  int npacks;
  const char *const *files;        /* rules files; none: every .rules file of the pack */
  int nfiles;
  const char *const *variants;     /* variant names to apply */
  int nvariants;
  int advanced;                    /* 0: rules tagged advanced are left out */
  mt_message_fn message;
  void *message_ud;
  int against_pack;                /* FILES are checked against the pack: its own .rules files are
                                      loaded first (a FILE among them only once), and every variant
                                      a FILE declares is applied, in file order, after VARIANTS */
  int lint;                        /* the warnings of `mentat check` too (sema_lint) */
  int native;                      /* --native: pure functions translated to C, built by the system
                                      compiler, cached by the code's hash (native.c) */
  int plain_code;                  /* no superinstructions or direct value calls (fuse.c): the bytecode as compiled */
  const mt_source *unsaved;        /* rules files read from these texts instead of the disk (the same
                                      path, or the same file by its real path); nothing is written */
  int nunsaved;
  mt_message_at_fn message_at;     /* each message again, unrendered, with where it is (message_ud) */
  int keep_on_error;               /* a rule set is returned even with errors in the rules, its names,
                                      rules and spans as far as checking got (mt_rules_errors): for
                                      tools that look names up (the language server), never for games */
} mt_load;

/* Compiles a rule set; NULL if it has errors (all of them were reported), unless keep_on_error. */
mt_rules *mt_rules_load(const mt_load *o);
/* The errors its loading reported: 0 for a rule set games can run on. */
int mt_rules_errors(const mt_rules *r);
void mt_rules_free(mt_rules *r);
/* Writes the bytecode of rule ID with its source lines; 0, or -1 if unknown. */
int mt_rules_disasm(const mt_rules *r, const char *id, char **text);
/* The faction ids of the data, in order. */
int mt_rules_factions(const mt_rules *r, const char ***ids);

enum { MT_WAITING = 2, MT_FINISHED = 3, MT_FAILED = 4, MT_PAUSED = 5 };
enum { MT_DEC_NONE, MT_DEC_CHOOSE, MT_DEC_NUMBER, MT_DEC_YESNO, MT_DEC_ACTION };

typedef struct mt_decision {
  int kind;            /* MT_DEC_* */
  const char *faction; /* who decides */
  const char *prompt;  /* for CHOOSE/NUMBER/YESNO */
  const char *rule;    /* the rule that asks */
  int secret;          /* part of a simultaneous secret round */
  int64_t lo, hi;      /* NUMBER: the range */
} mt_decision;

#define MT_MAX_ARGS 8
typedef struct mt_choice {
  int action;          /* ACTION: index into the rule set's actions; else -1 */
  int nargs;
  int64_t args[MT_MAX_ARGS];
  int64_t value;       /* CHOOSE: the member; NUMBER: the number; YESNO: 0/1 */
  uint32_t open;       /* parameters left out, meaning "any" (bit i: args[i]): a question, never an answer */
  int verb;            /* read from a verb of the rules: its index + 1 (0: named as an action) */
} mt_choice;

/* Why a choice was refused: the rules whose guards said no. */
#define MT_MAX_REASONS 16
typedef struct mt_explain {
  int nreasons;
  const char *rule[MT_MAX_REASONS];   /* rule numbers */
  const char *title[MT_MAX_REASONS];
  char text[1024];                    /* one readable paragraph */
} mt_explain;

/* The work budget of one decision: the VM instructions that listing,
 * sampling and finding the k-th answer (mt_legal, mt_legal_upto,
 * mt_legal_nth, mt_sample) may spend on the guards, domains and costs of one
 * pending decision, all calls together.  When it runs out they stop short and
 * mt_decision_error says which decision and which action spent it.  No
 * decision of the standard pack comes near it (see docs/language.md). */
#define MT_WORK_BUDGET 100000000ull

/* FACTIONS: faction ids (NULL: all of the data's factions). */
mt_game *mt_game_new(const mt_rules *r, const char *const *factions, int nfactions, uint64_t seed, char *err,
                     size_t errlen);
void mt_game_free(mt_game *g);
void mt_game_set_log(mt_game *g, mt_log_fn fn, void *ud);
/* Runs the game rule up to the first decision. */
int mt_start(mt_game *g);
int mt_status(const mt_game *g);
/* The pending decision, or NULL when the game is over or failed. */
const mt_decision *mt_pending(mt_game *g);
/* Up to CAP legal answers to the pending decision; returns how many there are
 * in all (may exceed CAP). */
size_t mt_legal(mt_game *g, mt_choice *out, size_t cap);
/* As mt_legal, but the listing stops after CAP + 1 answers: a result above
 * CAP means "more than CAP" (the first CAP are in OUT), without the cost of
 * listing them all. */
size_t mt_legal_upto(mt_game *g, mt_choice *out, size_t cap);
/* The K-th legal answer (0-based, in mt_legal's order) into OUT: 0 if there
 * are not that many.  For a uniform pick among more answers than a buffer holds. */
int mt_legal_nth(mt_game *g, size_t k, mt_choice *out);
/* One legal answer drawn at random without listing them all: the action is
 * uniform among the actions that have a legal answer, then each parameter in
 * turn is uniform among the values that still lead to one.  Only the chosen
 * prefix is searched to the end, so a decision with thousands of answers
 * (shipments: territory x sector x count x payer) costs about as much as its
 * widest level.  RND returns uniform 64-bit numbers.  False if there is no
 * legal answer (0; else 1). */
typedef uint64_t (*mt_rand_fn)(void *ctx);
int mt_sample(mt_game *g, mt_rand_fn rnd, void *ctx, mt_choice *out);
/* Answers the pending decision and runs to the next one.  A refused answer
 * leaves the state untouched, fills WHY and returns -1. */
int mt_apply(mt_game *g, const mt_choice *c, mt_explain *why);
/* Text forms: "yes", "3", "arrakeen", "ship fremen 5 the_great_flat 7". */
void mt_choice_format(const mt_game *g, const mt_choice *c, char *buf, size_t n);
int mt_choice_parse(const mt_game *g, const char *text, mt_choice *c, char *err, size_t errlen);
/* A runtime error's message (MT_FAILED). */
const char *mt_error(mt_game *g);
/* Sets the work budget of each decision of G (and of its clones made after):
 * N VM instructions, or 0 for MT_WORK_BUDGET. */
void mt_set_work_budget(mt_game *g, uint64_t n);
/* Why the answers to the pending decision could not be listed or sampled:
 * its work budget ran out (file:line:col of the decision, its rule, the
 * action and where it was spent), or NULL when nothing stopped short.  A
 * listing or sampling that returns nothing is "no legal answer" only when
 * this is NULL. */
const char *mt_decision_error(mt_game *g);
/* The most VM instructions any one decision of G (and of the games it was
 * cloned from) has spent on listing and sampling so far. */
uint64_t mt_decision_work_peak(const mt_game *g);

mt_game *mt_clone(const mt_game *g);
/* Copies the state of SRC into DST (same rules and factions): one memcpy. */
void mt_copy_state(mt_game *dst, const mt_game *src);
size_t mt_state_size(const mt_game *g);
/* The position's hash: what it means, not how this build lays it out.  The
 * same position hashes the same under any rule pack with the same component
 * data and the same code in the rules suspended in it: variables by name
 * (those at their declared initial value left out), suspended rules by rule
 * id, the sort of their code and where they stand in it, decisions by prompt
 * text and action names (docs/state-format.md, "The state hash").  `play`,
 * the console and the golden games print this one.  About 1 microsecond for
 * a 6-faction game in play (make bench). */
uint64_t mt_hash(const mt_game *g);
/* The state's bytes as this build lays them out (one pass, about half of
 * mt_hash's time): equal positions of one rule set hash equal, but adding a
 * variable or a function to the pack changes it.  For a table of positions
 * within one run (a transposition table), never for anything recorded. */
uint64_t mt_hash_raw(const mt_game *g);
/* ---- chance as choice (mentat verify, the console's `chance`; docs/verify.md) ----
 * With chance on, the rules' random events are not drawn from the generator:
 * a shuffle leaves the pile's order undecided, and each read of an undecided
 * card, each random(n) and each random_member(set) takes the next outcome of
 * the plan.  When the plan runs out, the step (mt_apply, mt_legal, ...) stops
 * short: mt_chance_need then says what was asked and lists the possible
 * outcomes; the caller runs the same step again, from the same state, with
 * the chosen outcome added to the plan.  An outcome taken while listing
 * decides the pile in the state itself (the listing may be repeated). */
enum { MT_CHANCE_NONE, MT_CHANCE_CARD, MT_CHANCE_NUMBER, MT_CHANCE_MEMBER };
/* Turns chance as choice on or off.  Turning it on with FORGET set also
 * forgets the order of every pile nobody may look at (face-down decks),
 * which is not known to anyone at the table. */
void mt_chance_mode(mt_game *g, int on, int forget);
int mt_chance_on(const mt_game *g);
/* The outcomes for the next random events, in order (replaces the plan and
 * clears what was asked). */
void mt_chance_plan(mt_game *g, const int64_t *outcomes, int n);
/* How many outcomes of the plan have been taken. */
int mt_chance_taken(const mt_game *g);
/* What stopped the last step: MT_CHANCE_* (NONE: nothing); up to CAP
 * possible outcomes in OUT, their number in *N; WHAT (if given) describes
 * the event ("the top card of treachery_deck"), and *BAD is set when a
 * planned outcome was not one of them. */
int mt_chance_need(mt_game *g, int64_t *out, int cap, int *n, char *what, size_t whatlen, int *bad);
/* An outcome of the pending event as a word (a card id, a number, a name),
 * and back (0 on success; else ERR says why, with a suggestion). */
void mt_chance_format(const mt_game *g, int64_t outcome, char *buf, size_t n);
int mt_chance_parse(mt_game *g, const char *word, int64_t *out, char *err, size_t errlen);
/* The pile whose card the pending event decides (its slot, its name in NAME), or -1 when the
 * event is not a card. */
int mt_chance_pile(const mt_game *g, char *name, size_t n);
/* Undecided cards of a pile slot (its bottom ones). */
int mt_chance_undecided(const mt_game *g, int pile_slot);

/* A position as YAML (docs/state-format.md), including a suspended VM. */
int mt_save_position(const mt_game *g, char **text);
/* Loads a position saved against the same rule set; NULL on errors (reported
 * to the rule set's message callback, with file:line:col). */
mt_game *mt_load_position(const mt_rules *r, const char *path);

#endif
