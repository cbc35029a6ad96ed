/* game.h -- the engine objects behind mentat.h (shared by main.c, repl.c, sim.c). */
#ifndef MENTAT_GAME_H
#define MENTAT_GAME_H

#include <stdbool.h>

#include "board.h"
#include "mentat.h"
#include "program.h"
#include "vm.h"

struct mt_rules {
  board_def *def;
  program prog;
  diag *d;
  arena arena;
  bool def_borrowed;
  uint32_t *source_ids;
  bool *variant_file; /* this source was given as --variant FILE */
  int nsources;
  node **trees;
  int ntrees;
  mt_message_fn message;
  void *message_ud;
};

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
};

/* Compiles in-memory sources against a loaded (borrowed) component set:
 * for tests, the REPL and the fuzzer.  NULL on errors (reported to FN). */
mt_rules *game_rules_compile(const board_def *def, const char *const *names, const char *const *texts,
                             const size_t *lens, int n, const char *const *variants, int nvariants, int advanced,
                             mt_message_fn fn, void *ud);

int game_parse_action(const mt_game *g, const char *text, mt_choice *c, char *err, size_t errlen);
int game_judge_action(mt_game *g, const mt_choice *c, int64_t *cost, char *err, size_t errlen);
bool game_eval(mt_game *g, const char *text, int64_t *out, int *ty, strbuf *err);
bool game_eval_as(mt_game *g, const char *text, int want, int64_t *out, int *ty, strbuf *err);
/* The first legal answer (in mt_legal's order) with the fewest parameters,
 * found without listing the others: actions are tried from the fewest
 * parameters up, each stopping at its first answer.  False if none. */
bool game_first_fewest(mt_game *g, mt_choice *out);
/* mt_load_position from TEXT (called NAME), diagnostics to D rather than the
 * rule set's: for the fuzzer, which loads many without keeping them. */
mt_game *game_load_text(const mt_rules *r, diag *d, const char *name, const char *text, size_t len);
/* A message callback that appends to the strbuf passed as UD. */
void game_capture(void *ud, int level, const char *text);

#endif
