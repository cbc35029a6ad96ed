/* reads.h -- what each function reads of the state (reads.c), and a watch
 * over a game's state that says what changed since the last look.  Used to
 * re-check a rule's invariant only when something it reads has changed. */
#ifndef MENTAT_READS_H
#define MENTAT_READS_H

#include "vm.h"

/* The parts of a state other than its variables (those are one bit each). */
enum {
  RD_TOKENS = 1,  /* tokens in every place */
  RD_CARDS = 2,   /* which card is where, piles' counts */
  RD_LEADERS = 4, /* leaders' status, holder, area, use */
  RD_CANCEL = 8,  /* the cancellations in force */
  RD_ALL = 16,    /* anything: never skipped */
  RD_TURN = 32    /* the turn variable, read as a variable (not only to expire a turn-long cancellation,
                     which RULE_ACTIVE does with the turn's bit set but not this flag) */
};

/* Fills P->reads_*: for each function, what it and every function it calls
 * read.  Functions compiled afterwards (console queries) count as RD_ALL. */
void vm_reads_build(program *p);
/* Whether function FN may be kept by the value cache (vm_vcache): a value's
 * dispatcher or a guard of the answer enumeration (entry_cache) that reads
 * nothing but variables, tokens, cards, leaders and cancellations (not
 * RD_ALL), and never assigns to its parameters. */
bool vm_reads_cacheable(const program *p, int fn);

/* A value cache for programs P over layout L (vm.h; vcache.c), or NULL when
 * no value of P can be cached. */
vm_vcache *vm_vcache_new(const program *p, const board_layout *L);
void vm_vcache_free(vm_vcache *c);

typedef struct vm_watch {
  const board_layout *L;
  size_t size, words;
  unsigned char *prev;     /* the state at the last commit */
  bool primed;             /* PREV holds a state of this game */
  uint8_t *held;           /* the caller's per-item flags (e.g. an invariant held at the last commit) */
  int nheld;
  int *var_of_word;        /* variable of each 32-bit word of the variables' region */
  uint32_t changed_fixed;  /* RD_* parts that differ from PREV (RD_ALL: not primed) */
  uint64_t *changed_vars;  /* variables that differ from PREV */
} vm_watch;

/* Makes W watch V's game afresh (nothing known, NHELD flags cleared). */
void vm_watch_reset(vm_watch *w, const vm *v, int nheld);
void vm_watch_free(vm_watch *w);
/* Compares V's state with the last commit. */
void vm_watch_diff(vm_watch *w, const vm *v);
/* Whether function FN reads something vm_watch_diff found changed. */
bool vm_watch_stale(const vm_watch *w, const program *p, int fn);
/* Remembers V's state as the one the next diff compares with. */
void vm_watch_commit(vm_watch *w, const vm *v);

#endif
