/* program.h -- a compiled rule set: the rule registry (resolve.c), the hook
 * tables (check_decl.c) and the bytecode (compile.c) that vm.c runs.
 *
 * Everything the VM needs at run time is here and immutable once compiled;
 * the mutable part of a game lives in the flat state block (vm.h, board.h).
 */
#ifndef MENTAT_PROGRAM_H
#define MENTAT_PROGRAM_H

#include <stdbool.h>
#include <stdint.h>

#include "ast.h"
#include "board.h"
#include "diag.h"
#include "opcodes.h"

#define MAX_PARAMS 8
#define MAX_KINDS 8 /* kinds one action may be of (`is K`) */
#define MAX_LOCALS 250

enum { LEVEL_BASE, LEVEL_FACTION, LEVEL_CARD, LEVEL_VARIANT };
extern const char *const level_names[];

typedef struct rule_rec {
  const char *id, *title;
  int form;          /* RF_* */
  uint32_t tags;     /* TAG_* */
  int level;         /* LEVEL_* */
  int faction;       /* def faction of a faction block, or -1 */
  int card;          /* def card of a card block, or -1 */
  const char *owner; /* faction/card id of the enclosing block, or NULL */
  const char *variant; /* variant that declared it, or NULL */
  const char *name;  /* phase/step name, or NULL */
  mt_span span;
  int parent;        /* enclosing rule, or -1 */
  int *sup, nsup;    /* resolved supersedes targets */
  int *amd, namd;    /* resolved amends targets */
  bool disabled;     /* by a variant's `disable`, or not in the chosen ruleset */
  bool replaced;     /* body replaced by a variant */
  const char *replaced_by; /* variant name */
  node *ast;         /* AST_RULE (compile time only) */
  node *items;       /* the effective items (after `replace`) */
  int body_fn;       /* function running its statements and nested rules, or -1 */
} rule_rec;

typedef struct value_def {
  int rule;
  node *ast;         /* AST_VALUE */
  bool guarded;      /* has a when-guard or non-trivial pattern */
  int match_fn, body_fn;
} value_def;

typedef struct value_rec {
  const char *name;
  int nparams;
  int ptype[MAX_PARAMS];
  const char *pname[MAX_PARAMS];
  int ret;
  int base_rule;     /* rule of the declaring definition */
  value_def *defs;   /* in precedence order after resolve */
  int ndefs, capdefs;
  int dispatch_fn;
  mt_span span;
  bool ordered[LEVEL_VARIANT + 1]; /* the definitions in force at this level are totally ordered by supersedes
                                      (a chain): none can conflict with another at run time */
} value_rec;

typedef struct event_rec {
  const char *name;
  int nparams;
  int ptype[MAX_PARAMS];
  const char *pname[MAX_PARAMS];
  int dispatch_fn;
  mt_span span;
} event_rec;

typedef struct trigger_rec {
  int rule, event, timing; /* TRIG_* */
  int owner;               /* owning def faction or -1 */
  node *ast;
  int where_fn, body_fn;
} trigger_rec;

typedef struct guard_rec {
  int rule;          /* attribution (because, or the declaring rule) */
  int decl_rule;     /* the rule whose member declared it */
  int check;         /* the check that added it (its where-clause gates it), or -1 */
  bool forbid;
  node *cond;
  mt_span span;
} guard_rec;

typedef struct check_rec {
  int rule, action;
  node *ast;         /* AST_CHECK */
  int where_fn;      /* -1 when unconditional */
} check_rec;

typedef struct action_rec {
  const char *name;
  int rule;
  node *ast;
  int nparams;
  int ptype[MAX_PARAMS];
  const char *pname[MAX_PARAMS];
  node *pdomain[MAX_PARAMS];
  bool plisted[MAX_PARAMS];   /* `in D listed`: D bounds only what is listed (enumerated), never legality */
  int dom_fn[MAX_PARAMS];   /* domain: set-valued function of earlier params, or -1 (whole type) */
  bool dom_pile[MAX_PARAMS]; /* the domain function gives a pile: its cards */
  int lo_fn[MAX_PARAMS], hi_fn[MAX_PARAMS]; /* range domains */
  int nlo_fn[MAX_PARAMS], nhi_fn[MAX_PARAMS]; /* bounds of an int range from the guards (enumeration only), or -1 */
  bool exact[MAX_PARAMS]; /* int range: the guards judged at this parameter are all bounds (nlo/nhi_fn say all
                             they say) and, for the last one, no cost reads it: every value in the narrowed
                             range passes them, so it is counted and sampled as an interval */
  node *cost;
  int cost_fn;       /* -1: no cost */
  int guard_fn;      /* params + cost -> bool; records failing guards */
  int prefix_fn[MAX_PARAMS]; /* enumeration: the guards whose deepest input is param i (i < nparams-1), or -1 */
  int first_same;    /* the first action whose prefix_fn[0] is the same code as this one's (fuse.c: all but the
                        guards' numbers), so answers alike for the same faction; this action's own index if none */
  int tail_fn;       /* enumeration: the guards reading the last param or the cost */
  int effect_fn;     /* params + cost */
  node *effect;
  guard_rec *guards;
  int nguards, capguards;
  const char *kinds[MAX_KINDS]; /* `is K`: what the action is a kind of (its own and its checks'), in force */
  int nkinds;
  mt_span span;
} action_rec;

typedef struct var_rec {
  const char *name;
  int nparams;
  int ptype[MAX_PARAMS];
  int type;
  bool data;         /* declared by the YAML (board var) rather than the rules */
  int board_var;     /* index into the layout's variables */
  int scope;         /* BS_* */
  int cells;         /* cells per instance */
  int width;         /* 1, or 2 for 64-bit sets */
  node *init;
  int64_t init_value;
  bool init_computed; /* the initial value is an expression evaluated when a game is created */
  bool secret;        /* `secret var`: seen only by the faction of its first index (VIS_OWNER) */
  int init_fn;        /* its pure function (-1 if constant) */
  int init_nlocals;
  mt_span span;
} var_rec;

/* `verb NAME(params) = ACTION(args)`: players' words for an action, the arguments computed from
 * the verb's (the console reads `revive fremen 3` as revive_by_spice(fremen, 3 - revived)). */
typedef struct verb_rec {
  const char *name;
  int rule;
  node *ast;         /* AST_VERB; its argument expressions read the parameters at slots 0.. */
  int nparams;
  int ptype[MAX_PARAMS];
  const char *pname[MAX_PARAMS];
  int action;        /* the action it stands for (-1 for another word) */
  int nlocals;       /* slots its argument expressions need */
  const char *alias; /* `verb NAME = WORD`: NAME is another word for WORD (an action, a kind, a verb), else NULL */
} verb_rec;

typedef struct proc_rec {
  const char *name;
  int rule;
  node *ast;
  int nparams;
  int ptype[MAX_PARAMS];
  int fn;
} proc_rec;

typedef struct invariant_rec {
  int rule;
  const char *text;
  node *cond;
  int fn; /* pure function giving the condition */
  int nlocals;
  node *repair;       /* `repair { ... }`: what a position edit that broke it implies, or NULL */
  int repair_fn;      /* its effect function (no parameters), or -1 */
  int repair_nlocals;
} invariant_rec;

typedef enum { FN_PURE, FN_EFFECT } fn_kind;
typedef struct func_rec {
  uint32_t start, end; /* code range */
  int nparams, nlocals;
  int rule;            /* the rule this code belongs to (for traces and errors) */
  fn_kind kind;
  const char *what;    /* "value movement_range", "trigger after shipped", ... */
  bool memo;           /* a value's dispatcher: its results may be memoised in pure evaluation */
  bool entry_cache;    /* evaluated from C alone (an action's guards by parameter, its domains and
                          their bounds, for the answer enumeration), its refusals unread: its result
                          may be cached like a value's */
  int link, link_rule; /* a value's dispatcher with one definition: its body, called directly while
                          that definition's rule is in force (-1: none) */
} func_rec;

typedef struct pcspan { uint32_t pc; mt_span span; } pcspan;

/* A point where a frame of a suspended game may stand (verify.c): the top
 * frame after a decision (RP_ANSWER), at a pause (RP_PAUSE) or after FINISH
 * (RP_FINISH); a frame below another after the call that made it
 * (RP_RETURN).  DEPTH live slots above the frame's base (the answer or the
 * callee's result not yet pushed), their kinds at KINDS in resume_kinds
 * (TY_* codes; 0 any value, -1 the value 0); AT is the instruction that
 * suspended or called; PROMPT the list of the PROMPT that fed a decision's
 * holes, or -1 if not known.  ORD numbers the function's points in code
 * order (0, 1, ...): where a frame stands, in terms of its function's own
 * code only, so the position hash does not depend on where the function was
 * put (mt_hash). */
enum { RP_ANSWER = 1, RP_RETURN = 2, RP_PAUSE = 4, RP_FINISH = 8 };
typedef struct resume_point {
  uint32_t pc, at;
  int32_t fn, how, depth, kinds, prompt, ord;
} resume_point;

/* An enumeration of the data (an enum attribute or variable, or the leader
 * statuses): its values are names, typed by the enum they belong to. */
#define TY_ENUM0 128 /* type of enum k is TY_ENUM0 + k; enum 0 is the leader statuses */
typedef struct enum_rec {
  const char *name;
  char *const *values;
  int nvalues;
} enum_rec;

/* A pure function translated to C (native.c): 1, the result in OUT; 0 after
 * reporting a runtime error to the VM. */
struct nctx;
typedef int (*vm_native_fn)(struct nctx *c, const int64_t *args, int64_t *out);

/* An index of names (check.c): open addressing over an append-only table's
 * first N entries, rebuilt when the table has grown. */
typedef struct name_index {
  int *slot;
  size_t cap;
  int n;
} name_index;

typedef struct program {
  rule_rec *rules; int nrules, caprules;
  int *rule_slots; size_t rule_cap; /* open-addressing index: rule id -> rule */
  value_rec *values; int nvalues, capvalues;
  event_rec *events; int nevents, capevents;
  trigger_rec *triggers; int ntriggers, captriggers;
  check_rec *checks; int nchecks, capchecks;
  action_rec *actions; int nactions, capactions;
  var_rec *vars; int nvars, capvars;
  proc_rec *procs; int nprocs, capprocs;
  verb_rec *verbs; int nverbs, capverbs;
  invariant_rec *invariants; int ninvariants, capinvariants;
  func_rec *funcs; int nfuncs, capfuncs;
  uint8_t *code; uint32_t ncode, capcode;
  pcspan *spans; uint32_t nspans, capspans;
  const char **strings; int nstrings, capstrings; /* prompts, log texts */
  int *strindex; int capstrindex;                  /* open-addressing index of strings (-1 empty) */
  int64_t *consts; int nconsts, capconsts;
  enum_rec *enums; int nenums, capenums;
  int **lists; int *nlist; int nlists, caplists;  /* action lists of `act` */
  int game_rule;          /* the `game` entry rule, or -1 */
  int order_value;        /* `order triggers by` value, or -1 */
  node *order_node;
  int turn_var;           /* the data variable named "turn", or -1 */
  int *sup_row;           /* per rule: its row of the supersedes closure, or -1 (supersedes nothing) */
  uint64_t *sup_bits;     /* rows of nrules bits: rule a supersedes rule b, transitively */
  size_t sup_words;
  const board_def *def;
  board_var_decl *var_decls; int nvar_decls;
  const char **rule_ids, **pool_names, **pile_names; /* name tables of typed rule variables */
  resume_point *resume; int nresume, capresume; /* sorted by pc (verify.c) */
  int32_t *resume_kinds; size_t nresume_kinds, capresume_kinds;
  int nverified;          /* functions verified (those compiled later for queries never suspend) */
  uint32_t *reads_fixed;  /* reads.c: per function, the RD_* parts of the state it reads */
  uint64_t *reads_vars;   /*   and the variables, reads_words words per function */
  size_t reads_words;
  int nreads;             /* functions with read sets (those compiled later read anything) */
  name_index value_ix, var_ix; /* check.c: values and variables by name */
  uint32_t *draw_pc; int32_t *draw_ty; int ndraws, capdraws; /* random_member calls: their pc and member type (for chance outcomes' names) */
  vm_native_fn *native;   /* native.c (--native): per function, its C translation, or NULL */
  int nnative;
  void *native_handle;    /* the shared object they live in */
} program;

/* resolve.c: builds the registry from the parsed files.  VARIANTS names the
 * variants to apply (their `extends` chains included); ADVANCED selects the
 * ruleset (rules tagged `advanced` are disabled in a basic game). */
typedef struct sema_options {
  const char *const *variants;
  int nvariants;
  bool advanced;
  bool lint;     /* sema_lint after the checks (mentat check) */
  bool plain;    /* no superinstructions (fuse.c): the code as compiled */
  bool native;   /* translate the pure functions to C and run them natively (native.c) */
} sema_options;
void sema_init(program *p, const board_def *def);
void sema_free(program *p);
bool sema_resolve(program *p, node *const *files, int nfiles, const sema_options *o, diag *d);
/* Whether one of the variants NAMES extends the Advanced game (`extends advanced`, directly or
 * through the variants it extends): applying it plays the Advanced game. */
bool sema_variants_advanced(node *const *files, int nfiles, const char *const *names, int n);
/* check.c, check_decl.c: names and types; fills the hook tables.  compile.c: bytecode. */
bool sema_declare(program *p, node *const *files, int nfiles, diag *d, arena *a);
bool sema_check(program *p, diag *d, arena *a);
/* lint.c: the warnings of `mentat check`, on a program that checked clean
 * (statements nothing runs, karama without anything to cancel, supersedes of
 * a rule out of the ruleset, a Basic rule reading an Advanced-only name). */
void sema_lint(const program *p, diag *d, bool advanced);
bool cg_compile(program *p, diag *d);
/* fuse.c: superinstructions over the verified code (run after vm_verify). */
void cg_fuse(program *p);
/* The bytes a fused opcode's sequence spans (0: OP is not fused). */
uint32_t cg_fused_len(uint8_t op);
/* The plain opcode a superinstruction stands for where it stands: its sequence's first instruction
 * (the rest follows in place), or the jump it rewrote (F_JUMP_NEXT, F_JF_NEXT); any other, itself. */
uint8_t cg_plain_op_fused(uint8_t op);
static inline uint8_t cg_plain_op(uint8_t op) { return op < OP_F_SET_NEXT ? op : cg_plain_op_fused(op); }
/* WANT: the type expected (guides names such as enum values), or TY_ERROR. */
int sema_check_expr(program *p, diag *d, arena *a, node *e, int want, int *nslots);
/* Compiles one checked expression into a new pure function whose locals
 * start at slot BASE (its parameters and the checker's slots lie below). */
int cg_compile_expr(program *p, diag *d, node *e, int base);
/* The program's size at a point; cg_rollback forgets the code, functions,
 * constants, strings and lists added after it (a console query's). */
typedef struct cg_mark {
  int nfuncs, nconsts, nstrings, nlists;
  uint32_t ncode, nspans;
} cg_mark;
cg_mark cg_get_mark(const program *p);
void cg_rollback(program *p, const cg_mark *m);
int sema_find_rule(const program *p, const char *id);
/* Does rule A supersede rule B, directly or through other rules? */
bool sema_supersedes(const program *p, int a, int b);
const char *sema_type_name(int ty, char *buf, size_t n);

/* mapping from a pc to its source span */
mt_span cg_span_at(const program *p, uint32_t pc);
int cg_func_at(const program *p, uint32_t pc);
/* disassembles function FN (or every function of RULE when fn < 0) */
void cg_disasm(const program *p, const diag *d, int rule, strbuf *out);

#endif
