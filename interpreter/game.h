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
  strbuf errtext;
};

#endif
