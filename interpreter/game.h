/* game.h -- the engine objects behind mentat.h (shared by main.c, repl.c, sim.c). */
#ifndef MENTAT_GAME_H
#define MENTAT_GAME_H

#include <stdbool.h>

#include "board.h"
#include "mentat.h"
#include "program.h"
#include "vm.h"

#define GAME_SPARE_MEMOS 4 /* memos the rules keep for the next games (take_memo, game.c) */

struct mt_rules {
  board_def *def;
  program prog;
  diag *d;
  arena arena;
  bool def_borrowed;
  uint32_t *source_ids;
  bool *variant_file; /* this source was given as --variant FILE */
  bool *user_file;    /* this source is a FILE checked against the pack (mt_load.against_pack) */
  int nsources;
  node **trees;
  int ntrees;
  mt_message_fn message;
  void *message_ud;
  /* how it was made, so that a game built on it can be made again */
  char *components;   /* the pack's directory (mt_rules_load), or NULL */
  char *expansion_list; /* the console's `new expansion=` names laid under the mods, comma-separated, or NULL */
  char *variant_list; /* the variants applied, comma-separated ("" for none), as given (names or files) */
  char *variant_names; /* the same by the names the variants declare (a file gives each of its variants) */
  bool advanced;
  int refs; /* holders: whoever created it, plus every game built on it (mt_rules_free drops one) */
  /* hash.c: what mt_hash reads instead of indices, one key per function
   * (its rule, what it is, its rank among the rule's functions of that
   * kind), rule (its id), action (its name) and state variable (its name) */
  uint64_t *fn_key, *rule_key, *action_key, *var_key;
  int nfn_key, nrule_key, naction_key, nvar_key;
  /* the value cache of the last game freed (vm.h), with its factions: the next game of the same
   * factions starts with it instead of an empty one (its entries are keyed by what they read) */
  struct vm_vcache *spare_vc;
  int spare_nf, spare_faction[BOARD_MAX_FACTIONS];
  /* the evaluation memos of the last games or clones freed (vm.h), with their epochs: entries of
   * older epochs never match, so the next game takes one instead of zeroing VM_MEMO entries of its
   * own (several: a bot keeps a world and a probe, two clones, alive at once) */
  struct vm_memo *spare_memo[GAME_SPARE_MEMOS];
  uint32_t spare_memo_epoch[GAME_SPARE_MEMOS];
  int nspare_memo;
  mt_message_at_fn message_at;
  int errors;      /* reported while loading (mt_load.keep_on_error): no game runs on it */
  bool keep;       /* mt_load.keep_on_error */
  int bot_value; /* the value the heuristic bot maximises (bots.c), -1 if none; BOT_VALUE_UNKNOWN: not looked up */
  int leader_seen_by; /* the value leader_seen_by(l, f) (1.11.00; determinize.c), -1 if none; BOT_VALUE_UNKNOWN: not looked up */
};
#define BOT_VALUE_UNKNOWN (-2)

struct mt_game {
  const mt_rules *r;
  board_layout *L;
  bool owns_layout;
  int *layout_ref;     /* shared by clones */
  unsigned char *block; /* [vm_state][board state]: the whole game state */
  size_t size;
  vm v;
  mt_decision dec;
  char prompt[512]; /* the pending decision's prompt, holes filled */
  strbuf errtext;
  strbuf evalerr; /* why the last judged answer's cost or guards could not be evaluated */
};

/* Compiles in-memory sources against a loaded (borrowed) component set:
 * for tests, the REPL and the fuzzer.  NULL on errors (reported to FN). */
mt_rules *game_rules_compile(const board_def *def, const char *const *names, const char *const *texts,
                             const size_t *lens, int n, const char *const *variants, int nvariants, int advanced,
                             mt_message_fn fn, void *ud);

int game_parse_action(const mt_game *g, const char *text, mt_choice *c, char *err, size_t errlen);
/* game_words.c: TEXT read as an answer to the pending decision (an action in players' words when
 * it asks for one; ALLOW_OPEN: parameters may be left out); 0, or -1 with the reason in ERR. */
int game_parse_choice(const mt_game *g, const char *text, mt_choice *c, bool allow_open, char *err, size_t errlen);
/* game_words.c: the actions the first word of TEXT stands for (its kind: every action of it),
 * each with the words bound to it (OK[k] false: they do not fit); how many, up to CAP. */
int game_parse_candidates(const mt_game *g, const char *text, mt_choice *out, bool *ok, int cap);
/* game_words.c: whether W (any case; a noun or gerund of it too: `shipping`) names an action, a
 * kind of action or a verb of R (the word that does into STEM), and whether W and V are both whole words of one action's name
 * (`pay` and `revival` of pay_ally_revival). */
bool game_word_names_action(const mt_rules *r, const char *w, char *stem, size_t cap);
bool game_words_of_one_action(const mt_rules *r, const char *w, const char *v);
/* TEXT read as players write it (names of several words joined into their ids, small words
 * dropped) into W (in BUF); how many words. */
/* Whether W names an action, a kind or a verb of R, or begins an action's name (`give`). */
bool game_word_begins_action(const mt_rules *r, const char *w);
int game_read_names(const mt_game *g, const char *text, char *buf, size_t cap, char **w, int max);
int game_judge_action(mt_game *g, const mt_choice *c, int64_t *cost, char *err, size_t errlen);
/* Code compiled for a moment (a console query, why's facts): game_scratch_end
 * forgets the functions, trees and sources added since game_scratch_begin. */
typedef struct game_scratch {
  cg_mark code;
  arena_mark tree;
  uint32_t sources;
} game_scratch;
game_scratch game_scratch_begin(const mt_rules *r);
void game_scratch_end(const mt_rules *r, const game_scratch *m);
bool game_eval(mt_game *g, const char *text, int64_t *out, int *ty, strbuf *err);
bool game_eval_as(mt_game *g, const char *text, int want, int64_t *out, int *ty, strbuf *err);
int game_compile_expr(const mt_game *g, const char *name, const char *text, int want, int *ty, strbuf *err);
/* The first legal answer (in mt_legal's order) with the fewest parameters,
 * found without listing the others: actions are tried from the fewest
 * parameters up, each stopping at its first answer.  False if none. */
bool game_first_fewest(mt_game *g, mt_choice *out);
/* vm.can_act: whether faction F has a legal answer among action list LIST now. */
bool game_can_act(vm *v, int list, int64_t faction);
/* Takes one more reference to R (released by mt_rules_free): games hold
 * their rules, so freeing the rules while games built on them live is safe. */
const mt_rules *game_rules_retain(const mt_rules *r);
/* The range of integer parameter I of C's action given C's earlier
 * arguments, narrowed by the guards that bound it (charged to the pending
 * decision's work account).  False if it is not a range or is empty. */
bool game_param_range(mt_game *g, const mt_choice *c, int i, int64_t *lo, int64_t *hi);
/* Whether parameter I of action A, given the earlier arguments ARGS, has exactly one possible
 * value (its domain has one member): then *ONLY is it. */
bool game_param_only(mt_game *g, int a, int i, const int64_t *args, int64_t *only);
/* The completions of a choice with parameters left open (PARTIAL->open): every value of
 * those in their domains, guards not judged (a range: its first 64 values), up to CAP into OUT;
 * the number written. */
size_t game_completions(mt_game *g, const mt_choice *partial, mt_choice *out, size_t cap);
/* answers.c: is X within parameter I's domain of action A given the earlier
 * ARGS (*OK)?  False if the domain cannot be evaluated. */
bool game_in_domain(mt_game *g, int a, int i, const int64_t *args, int64_t x, bool *ok);
/* mt_load_position from TEXT (called NAME), diagnostics to D rather than the
 * rule set's: for the fuzzer, which loads many without keeping them. */
mt_game *game_load_text(const mt_rules *r, diag *d, const char *name, const char *text, size_t len);
/* hash.c: computes R's keys for mt_hash (once, after compilation);
 * game_hash_free frees them. */
void game_hash_prepare(mt_rules *r);
void game_hash_free(mt_rules *r);
/* A message callback that appends to the strbuf passed as UD. */
void game_capture(void *ud, int level, const char *text);

#endif
