/* vm.h -- the bytecode VM (stage 6) and its continuation, which lives in the
 * flat game state so that a suspended game can be cloned with memcpy. */
#ifndef MENTAT_VM_H
#define MENTAT_VM_H

#include <stdint.h>

#include "board.h"
#include "program.h"

#define VM_STACK 320
#define VM_FRAMES 64
#define VM_CANCELS 16
#ifndef VM_BUDGET /* the fuzz build sets a smaller one: a runaway loop is then a quick runtime error */
#define VM_BUDGET 200000000ull /* instructions per run before "infinite loop" */
#endif

/* VM_PAUSED: stopped by a console stop condition (not a decision); vm_run continues */
enum { VM_IDLE, VM_RUNNING, VM_WAITING, VM_FINISHED, VM_FAILED, VM_PAUSED };
enum { DEC_NONE, DEC_ASK, DEC_RANGE, DEC_MAY, DEC_ACT };

typedef struct vm_frame {
  int32_t fn, pc, base, pad;
} vm_frame;

typedef struct vm_cancel {
  int32_t rule, scope, stamp, faction;
} vm_cancel;

#define VM_PROMPT_HOLES 4
typedef struct vm_decision {
  int32_t kind, faction, prompt, elem, list, rule, pc, secret;
  int64_t set, lo, hi;
  int32_t hole_types, nholes;     /* list of hole types; the prompt's {name} values follow */
  int64_t holes[VM_PROMPT_HOLES];
} vm_decision;

/* The continuation: all of it is plain data (no pointers). */
typedef struct vm_state {
  int32_t status, sp, nframes, phase_rule;
  int32_t phase_seq, secret, ncancel, err_code;
  int32_t err_pc, err_a, err_b;
  int32_t stop_phase_begin;       /* pause as this phase rule + 1 begins (0: never; the console's `phase`) */
  int32_t seek_phase, seek_turn;  /* seeking: skip phases until this one starts in this turn (-1: not seeking) */
  int32_t stop_phase_end;         /* pause when this phase rule ends (-1: never; -2: the next phase to begin) */
  int32_t stop_turn;              /* pause when a phase begins in a later turn than this (-1: never) */
  int64_t err_v;
  vm_decision dec;
  vm_cancel cancel[VM_CANCELS];
  vm_frame frames[VM_FRAMES];
  int64_t stack[VM_STACK];
} vm_state;

/* runtime error codes (err_code) */
enum {
  VE_NONE, VE_DIV, VE_OVERFLOW, VE_STACK, VE_BUDGET, VE_CONFLICT, VE_NODEF, VE_NEGATIVE, VE_SHORT, VE_ABSENT,
  VE_SECTION, VE_RANGE, VE_NOGAME, VE_CARD, VE_INTERNAL, VE_WIDE, VE_CHANCE
};

/* Chance as choice (mentat verify, the console's `chance`).  While ON, the
 * rules' random events are not drawn from the generator: a shuffle leaves
 * the pile's order undecided (board_pile_forget), and each read of an
 * undecided position, each random(n) and each random_member(s) takes the
 * next outcome of PLAN; with the plan used up, the run stops (VE_CHANCE) and
 * NEED describes what was asked, for the caller to choose an outcome and run
 * the same step again with it added to the plan. */
enum { VM_CH_NONE, VM_CH_CARD, VM_CH_NUMBER, VM_CH_MEMBER };
#define VM_CHANCE_PLAN 256
typedef struct vm_chance {
  bool on;
  int nplan, next;                 /* the outcomes given, and how many were taken */
  int64_t plan[VM_CHANCE_PLAN];
  int need;                        /* VM_CH_*: what stopped the last step (VM_CH_NONE: nothing) */
  int slot;                        /* CARD: the pile slot whose highest undecided card is asked for */
  int64_t n;                       /* NUMBER: outcomes 0..n-1 */
  uint64_t set;                    /* MEMBER: the set drawn from */
  int ty;                          /* MEMBER: the members' type */
  int32_t fn, pc;                  /* where the rules asked */
  bool bad;                        /* a planned outcome was not possible there */
} vm_chance;

typedef void (*vm_log_fn)(void *ud, const char *rule, const char *text);

/* Memoised value results during pure evaluation.  Valid while the state does
 * not change: every entry point that evaluates starts a new epoch. */
#define VM_MEMO 4096
/* What a pure evaluation read of the tokens and piles, found as it runs (the
 * builtins mark it, vm_dep): a bit per token zone (board.h) and per pile
 * slot, bit 63 for every zone or pile (or one past the 63rd). */
enum { VM_DEP_TOKENS, VM_DEP_PILES, VM_NDEP };
#define VM_DEP_ALL (1ull << 63)
#define VM_DEP_KEEP 3 /* zones or piles an entry of the value cache keys on one by one; more: the whole part */

typedef struct vm_memo {
  uint32_t epoch;
  int32_t fn, nargs;
  int64_t args[MAX_PARAMS];
  int64_t result;
  uint64_t dep[VM_NDEP]; /* what its evaluation read (told to the callers that meet it) */
} vm_memo;

/* Values cached across decisions (vcache.c builds it from the read sets of
 * reads.c; the VM fills and consults it, vcache.h): a value dispatcher, or a
 * guard of the answer enumeration (entry_cache), whose read set is a few small variables,
 * perhaps the tokens, cards or leaders, and perhaps the cancellations, keeps
 * its result with a copy of the bytes it read; the result is reused while
 * those bytes are unchanged.  Variables are compared by content; the leaders
 * by their generation word (board.h), which every write helper stamps; the
 * tokens and piles by the generations of the very zones and piles the
 * evaluation read (vm_dep: up to VM_DEP_KEEP of each, else the part's).
 * Cancellations: cached only while none is in force.  One cache serves a game
 * and its clones (the same program and layout). */
#define VM_VCACHE 2048 /* entries, a power of two */
#define VM_VC_BYTES 64 /* state bytes an entry may compare */
#define VM_VC_REGIONS 6
typedef struct vm_vc_entry {
  int32_t fn, nargs;
  int64_t args[MAX_PARAMS];
  int64_t result;
  uint8_t bytes[VM_VC_BYTES];
  /* the tokens and piles it read: DEP (VM_DEP_ALL: the whole part) and their generations then */
  uint64_t dep[VM_NDEP];
  uint64_t gen[VM_NDEP][VM_DEP_KEEP];
} vm_vc_entry;
typedef struct vm_vc_region {
  uint32_t off, len;
} vm_vc_region;
typedef struct vm_vcache {
  int nfuncs;
  int8_t *nreg;            /* per function: its regions (VM_VC_REGIONS at most), or -1: not cached */
  bool *cancel;            /* it reads the cancellations: cached only while none is in force */
  uint8_t *dyn;            /* it reads the tokens (bit VM_DEP_TOKENS), the piles (VM_DEP_PILES): keyed by
                              the generations of the zones and piles its evaluation read (vm_vc_entry) */
  vm_vc_region *reg;       /* nfuncs * VM_VC_REGIONS */
  uint64_t hits, misses;
  vm_vc_entry e[VM_VCACHE];
} vm_vcache;

/* Work accounting for one decision: while COUNTING, every pure evaluation
 * (vm_eval) is charged to USED and may spend at most LIMIT - USED, so the
 * listing and sampling of one decision's answers is bounded in all, however
 * many guards they evaluate.  A run of the game (the decision answered)
 * starts a new account. */
typedef struct vm_work {
  uint64_t used, limit; /* limit 0: MT_WORK_BUDGET */
  uint64_t peak;        /* the most any decision of this game used */
  bool counting;
  bool out;             /* the budget ran out (or one evaluation did not end) for this decision */
  bool endless;         /* it was one evaluation's own budget (VM_BUDGET) that ran out */
  int32_t fn, pc;       /* where: the function evaluated, the innermost pc */
} vm_work;

/* The run-time context of one game (not part of the state). */
typedef struct vm {
  const program *p;
  const board_layout *L;
  unsigned char *st; /* board state */
  vm_state *vs;
  vm_log_fn log;
  void *log_ud;
  int refused[64]; /* guard ids that refused during the last guard evaluation (the first 64) */
  int nrefused;
  int guard_failed;
  uint64_t steps;
  vm_memo *memo;       /* VM_MEMO entries, allocated on first use or taken from the rules' spare (game.h) */
  vm_vcache *vcache;   /* values cached across decisions, or NULL (owned by the game, shared by its clones) */
  /* the variables as they were when the current secret round began (SECRET 1): what the factions
   * answered in the round is told apart from what they knew before it (the search bot hides the
   * others' answers).  Owned by the game, copied with it; SECRET_SEEN: it holds this game's round */
  unsigned char *secret_vars;
  bool secret_seen;
  char logbuf[1024];   /* narration is formatted here */
  uint64_t log_audience; /* while a line is narrated: the data factions it is for (log for S), or 0: everyone */
  void (*fired)(void *ud, int fn); /* told of every rule code the game runs (triggers, steps, effects); may be NULL */
  void *fired_ud;
  /* the rule whose code last shuffled a pile, and that pile's slot (-1: none since the caller
   * set them so): the console's `stack` names the rule that will shuffle its card away */
  int shuffled_rule, shuffled_slot;
  uint32_t memo_epoch;
  int32_t cycle[8];    /* VE_STACK: the functions of the innermost repeating calls (for the message) */
  int ncycle;
  vm_work work;        /* the pending decision's listing and sampling (game.c) */
  vm_chance *chance;   /* chance as choice, or NULL: the generator draws (owned by the game, copied with it) */
  /* `can(F: list)`: whether faction F has a legal answer among the actions of
   * list LIST now (answers.c); NULL where no game runs the VM */
  bool (*can_act)(struct vm *v, int list, int64_t faction);
  /* the zones and piles read since the innermost remembered call began (vm_dep), and those of
   * the remembered calls still open around it */
  uint64_t dep[VM_NDEP];
  uint64_t (*dep_save)[VM_NDEP]; /* VM_DEP_STACK entries, allocated on first use (a clone starts without) */
  int ndep;
} vm;
#define VM_DEP_STACK 256 /* remembered calls open at once; past it a call is not remembered */

/* A builtin read the tokens of zone I (VM_DEP_TOKENS) or pile slot I (VM_DEP_PILES); -1: all. */
static inline void vm_dep(vm *v, int part, int i) {
  v->dep[part] |= i >= 0 && i < 63 ? 1ull << i : VM_DEP_ALL;
}

/* Starts a new memo epoch: call before evaluating after any state change.
 * (After 2^32 epochs the memo is emptied: an old entry never matches.) */
void vm_memo_wrap(vm *v);
static inline void vm_memo_reset(vm *v) {
  if (++v->memo_epoch == 0) vm_memo_wrap(v);
}

/* Starts the game rule.  Returns the status after running to the first
 * decision (VM_WAITING), the end (VM_FINISHED) or an error (VM_FAILED). */
int vm_start(vm *v);
/* Continues after the pending decision has been answered by vm_answer. */
int vm_run(vm *v);
/* Clears the seek and stop conditions (set them in vm_state before vm_start/vm_run). */
void vm_reset_stops(vm_state *vs);
/* Evaluates pure function FN with ARGS on a scratch stack; returns false on a
 * runtime error (message in ERR if given). */
bool vm_eval(vm *v, int fn, const int64_t *args, int nargs, int64_t *out, strbuf *err);
/* vm_eval of a function the value cache may hold (an entry_cache guard, a
 * value): the cached result while what it reads is unchanged.  The first
 * NKEY arguments are the key (the caller promises the others are always the
 * same for FN: zeros past a guard's parameter).  Its GUARD refusals are not
 * recorded on a hit: for callers that read only the result. */
bool vm_eval_cached(vm *v, int fn, const int64_t *args, int nargs, int nkey, int64_t *out);
/* As vm_eval; the error message starts with file:line:col from D's sources. */
bool vm_eval_at(vm *v, int fn, const int64_t *args, int nargs, int64_t *out, strbuf *err, const diag *d);
/* Chance as choice: the next outcome of the plan for a request of KIND;
 * false, with the request recorded (the first of the step only), when the
 * plan is used up or the outcome is not possible. */
bool vm_chance_take(vm *v, int kind, int64_t what, int64_t *out); /* WHAT: n (NUMBER) or the set (MEMBER) */
/* Decides undecided positions of pile SLOT down to POS from the plan: false
 * (request recorded) when it runs out. */
bool vm_chance_card(vm *v, int slot, int pos);
/* Formats the current runtime error with the rule and source position. */
void vm_error_text(const vm *v, const diag *d, strbuf *out);
/* Calls builtin ID (builtins.c). */
int64_t vm_builtin(vm *v, int id, const int64_t *a, int *err, int64_t *errv);
/* Formats a value of type TY (faction ids, territory ids, ...). */
void vm_format_value(const vm *v, int ty, int64_t x, strbuf *out);
size_t vm_format_value_buf(const vm *v, int ty, int64_t x, char *buf, size_t cap);
int vm_game_faction(const vm *v, int64_t f);
int vm_var_store(vm *v, int var, const int64_t *args, int64_t x);
int vm_call_now(vm *v, int fn, const int64_t *args, int nargs);
bool vm_rule_active(vm *v, int r);
/* Rule R is in play in this game: not disabled, its faction (if it has one)
 * playing.  With no cancellation in force that is vm_rule_active's answer:
 * the common case, which the VM and simulate judge inline. */
static inline bool vm_rule_in_play(const vm *v, int r) {
  const rule_rec *rr = &v->p->rules[r];
  return !rr->disabled && (rr->faction < 0 || v->L->game_faction[rr->faction] >= 0);
}
/* With -DMT_PROFILE: prints the functions that executed the most instructions. */
void vm_profile_report(const program *p);
/* As vm_rule_active, but spends a pending one-use cancellation (giving false). */
bool vm_rule_try(vm *v, int r);

/* native.c: the pure functions of P as C (COUNT: how many); the shared object
 * built from it (cached by the C's hash, native_cache.c) loaded into
 * P->native; unloading.  Loading says one of three things: loaded (WHY may
 * hold a warning: a damaged cache entry was rebuilt); refused, the cache
 * directory not being safe to load code from (the caller warns with WHY and
 * runs the bytecode); failed (WHY: the cause, an error). */
typedef enum { VM_NATIVE_LOADED, VM_NATIVE_REFUSED, VM_NATIVE_FAILED } vm_native_status;
bool vm_native_emit(const program *p, strbuf *out, int *count);
vm_native_status vm_native_load(program *p, strbuf *why);
void vm_native_unload(program *p);

/* verify.c: checks every function of P against the stack effects of
 * opcodes.def and records where a suspended game may stand (P->resume).
 * False, with an internal error reported to D, if some code does not verify. */
bool vm_verify(program *p, diag *d);
/* Checks a continuation read from a saved position (V bound to its layout and
 * state) against the program: -1 if it may be resumed, else the byte offset
 * in vm_state of the first field that is wrong, with the reason in WHY. */
long vm_check_state(const vm *v, strbuf *why);
/* The resume point of function FN at PC whose kind is in the mask HOW
 * (RP_*), or NULL. */
const resume_point *vm_resume_point(const program *p, int fn, uint32_t pc, int how);

#endif
