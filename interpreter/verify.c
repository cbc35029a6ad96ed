/* verify.c -- the bytecode verifier and the check of a loaded continuation.
 *
 * Pipeline stage: the end of compilation (vm_verify) and the loading of a
 * saved position (vm_check_state).  A saved position carries the VM's
 * continuation (vm_state) as raw words: frames (function, pc, base), the
 * stack, the pending decision, the cancellations.  The file must not choose
 * where the VM resumes nor what it reads there, so:
 *
 *  - vm_verify runs once per rule set.  It applies the stack effects of
 *    opcodes.def to every function (abstract interpretation over the stack
 *    depth and the kind of value each slot holds: a faction, a territory, a
 *    set of sectors, ...) and records every point where a frame of a
 *    suspended game can stand: after a decision (ASK, ASK_RANGE, MAY, ACT),
 *    at a pause (PHASE_BEGIN, after PHASE_END), after FINISH, and after a
 *    CALL (or an ACT, below the action's effect) for the frames below the top.
 *    Each point keeps the depth there, the kind of every live slot and its
 *    rank among its function's points (how mt_hash names it).  Code
 *    that does not verify (a jump out of its function, depths that disagree
 *    where paths join, an operand out of range) is an internal error of the
 *    compiler, reported at compile time.
 *
 *  - vm_check_state accepts a continuation only if every frame stands on such
 *    a point, one above the other with consistent bases and the callee each
 *    call names, the stack pointer where the top frame's depth puts it, each
 *    live slot holding a value of its kind, the decision record matching the
 *    instruction that asked, and every other field in range.
 *
 * Values whose kind the analysis cannot tell (integers, the merge of two
 * kinds) are not checked here; the VM and the builtins bound-check every
 * value they use as an index, so no value can make them crash.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "opcodes.h"
#include "vm.h"

#define K_ANY 0       /* TY_ERROR: any value (integers, unknown kinds) */
#define K_ZERO (-1)   /* the value 0, as locals start: merges into any kind */
#define P_NONE (-2)   /* prompt tracking: no path yet */
#define P_ANY (-1)    /* prompt tracking: unknown */

/* The abstract state before one instruction. */
typedef struct astate {
  int32_t depth;   /* slots above the frame's base (locals, then operands); -1: not reached */
  int32_t prompt;  /* list of the last PROMPT executed, P_ANY or P_NONE */
  int32_t kinds;   /* offset of its DEPTH kinds in the pool */
} astate;

typedef struct vctx {
  program *p;
  diag *d;
  int fn;
  const func_rec *f;
  uint32_t n;        /* code bytes of the function */
  int32_t *at;       /* [pc - start]: instruction index, or -1 inside an instruction */
  astate *st;        /* per instruction */
  uint32_t *pcs;     /* instruction index -> pc */
  uint32_t ninstr;
  int32_t *pool;
  size_t npool, cappool;
  uint32_t *work;
  uint32_t nwork;
  bool *queued;
  const int **ptypes; /* per function: parameter types, or NULL */
  int *nptypes;
  int *ret;           /* per function: the kind its result has */
  int32_t *tmp;       /* scratch kinds */
  bool bad;
} vctx;

static int lenof(uint8_t o) { return 1 + 4 * op_table[o].operands; }

static int32_t word(const program *p, uint32_t pc, int k) {
  int32_t w;
  memcpy(&w, p->code + pc + 1 + 4 * k, 4);
  return w;
}

/* Kinds: the TY_* code of what a slot holds, K_ANY when any value may be
 * there.  Integers carry no constraint, so they are K_ANY too. */
static int norm(int ty) {
  if (ty == TY_INT || ty == TY_ERROR || ty == TY_NONE || ty == TY_RANGE || ty == TY_STR) return K_ANY;
  if ((ty & ~TY_SETBIT) == TY_SECTOR) return K_ANY; /* sectors are numbered: any integer converts to one */
  if (ty == TY_VOID) return K_ZERO;
  return ty;
}

static int merge_kind(int a, int b) {
  if (a == b) return a;
  if (a == K_ZERO) return b;
  if (b == K_ZERO) return a;
  return K_ANY;
}

static int enum_of_values(const program *p, char *const *values) {
  for (int i = 0; i < p->nenums; i++)
    if (p->enums[i].values == values) return TY_ENUM0 + i;
  return K_ANY;
}

/* The kind of a data attribute or variable of board type T. */
static int board_kind(const program *p, board_type t, char *const *values) {
  switch (t) {
  case BT_BOOL: return TY_BOOL;
  case BT_AREA: return TY_TERRITORY;
  case BT_SECTOR: return TY_SECTOR;
  case BT_FACTION: return TY_FACTION;
  case BT_LEADER: return TY_LEADER;
  case BT_ENUM: return enum_of_values(p, values);
  default: return K_ANY;
  }
}

static void vfail(vctx *c, uint32_t pc, const char *fmt, ...) MT_PRINTF(3, 4);
static void vfail(vctx *c, uint32_t pc, const char *fmt, ...) {
  if (c->bad) return;
  c->bad = true;
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  diag_error(c->d, cg_span_at(c->p, pc), "internal error: the compiled code of %s does not verify at pc %u: %s",
             c->f->what ? c->f->what : "?", pc, msg);
}

static int32_t *kinds_of(vctx *c, const astate *s) { return c->pool + s->kinds; }

static int32_t pool_alloc(vctx *c, int32_t n) {
  while (c->npool + (size_t)n > c->cappool || !c->pool) { /* never NULL: kinds_of adds to it */
    c->cappool = c->cappool ? c->cappool * 2 : 4096;
    c->pool = mt_realloc(c->pool, c->cappool * sizeof *c->pool);
  }
  int32_t at = (int32_t)c->npool;
  c->npool += (size_t)n;
  return at;
}

/* Merges the state (DEPTH, KINDS, PROMPT) into instruction TARGET's. */
static void flow(vctx *c, uint32_t from_pc, uint32_t target, int32_t depth, const int32_t *kinds, int32_t prompt) {
  if (c->bad) return;
  if (target < c->f->start || target >= c->f->end || c->at[target - c->f->start] < 0) {
    vfail(c, from_pc, "a jump or fall-through to %u lands outside the function's instructions", target);
    return;
  }
  if (depth > VM_STACK) return; /* the VM would stop before (VE_STACK): nothing after is reached this way */
  uint32_t i = (uint32_t)c->at[target - c->f->start];
  astate *s = &c->st[i];
  bool changed = false;
  if (s->depth < 0) {
    s->depth = depth;
    s->prompt = prompt;
    s->kinds = pool_alloc(c, depth);
    if (depth) memcpy(kinds_of(c, s), kinds, (size_t)depth * sizeof *kinds);
    changed = true;
  } else {
    if (s->depth != depth) {
      vfail(c, target, "paths join with stack depths %d and %d", s->depth, depth);
      return;
    }
    int32_t *k = kinds_of(c, s);
    for (int32_t j = 0; j < depth; j++) {
      int m = merge_kind(k[j], kinds[j]);
      if (m != k[j]) k[j] = m, changed = true;
    }
    int32_t pr = s->prompt == P_NONE ? prompt : prompt == P_NONE || prompt == s->prompt ? s->prompt : P_ANY;
    if (pr != s->prompt) s->prompt = pr, changed = true;
  }
  if (changed && !c->queued[i]) {
    c->queued[i] = true;
    c->work[c->nwork++] = i;
  }
}

/* Checks operand ranges that the abstract interpretation relies on. */
static bool operands_ok(vctx *c, uint32_t pc) {
  const program *p = c->p;
  uint8_t o = cg_plain_op(p->code[pc]); /* a superinstruction checks as the code it stands for (fuse.c) */
  int32_t a = op_table[o].operands > 0 ? word(p, pc, 0) : 0, b = op_table[o].operands > 1 ? word(p, pc, 1) : 0;
  bool ok = true;
  switch ((opcode)o) {
  case OP_PUSH_K: ok = a >= 0 && a < p->nconsts; break;
  case OP_LOAD:
  case OP_STORE: ok = a >= 0 && a < c->f->nlocals; break;
  case OP_BY_TAKE: ok = a >= 0 && a < c->f->nlocals && b >= 0 && b + 1 < c->f->nlocals; break;
  case OP_CALL: ok = a >= 0 && a < p->nfuncs && b >= 0 && b == p->funcs[a].nparams; break;
  case OP_BUILTIN: ok = a >= 0 && a < BI__COUNT && b == sema_builtins[a].nargs; break;
  case OP_VAR_GET:
  case OP_VAR_SET:
  case OP_VAR_TOTAL: ok = a >= 0 && a < p->nvars; break;
  case OP_ATTR:
    ok = (a == ATTR_AREA && b >= 0 && b < p->def->narea_attrs) || (a == ATTR_FACTION && b >= 0 && b < p->def->nfaction_attrs) ||
         (a == ATTR_CARD && b >= 0 && b < p->def->ncard_attrs);
    break;
  case OP_RULE_ACTIVE:
  case OP_RULE_LIVE:
  case OP_RULE_TRY:
  case OP_PHASE_END: ok = a >= 0 && a < p->nrules; break;
  case OP_PHASE_BEGIN: ok = a >= 0 && a < p->nrules && b >= (int32_t)c->f->start && b < (int32_t)c->f->end; break;
  case OP_CANCEL: ok = a >= SCOPE_ONCE && a <= SCOPE_GAME; break;
  case OP_CONFLICT: ok = a >= 0 && a < p->nrules && b >= 0 && b < p->nrules; break;
  case OP_NO_DEF: ok = a >= 0 && a < p->nvalues; break;
  case OP_PROMPT:
  case OP_CAN:
  case OP_ACT: ok = a >= 0 && a < p->nlists; break;
  case OP_ASK: ok = b >= 0 && b < p->nstrings; break;
  case OP_ASK_RANGE:
  case OP_MAY: ok = a >= 0 && a < p->nstrings; break;
  case OP_LOG: case OP_LOG_TO: ok = a >= 0 && a < p->nstrings && b >= 0 && b < p->nlists; break;
  case OP_SECRET: ok = a == 0 || a == 1; break;
  default: break;
  }
  if (!ok) vfail(c, pc, "operand out of range for %s", op_table[o].name);
  return ok;
}

/* The kind of the result of CALL fn, of an attribute, of a builtin. */
static int attr_kind(const program *p, int tab, int at) {
  const board_attr *a = tab == ATTR_AREA ? &p->def->area_attrs[at] : tab == ATTR_FACTION ? &p->def->faction_attrs[at]
                                                                                         : &p->def->card_attrs[at];
  return board_kind(p, a->type, a->values);
}

static int builtin_kind(int id, const int32_t *args) {
  int ret = sema_builtins[id].ret;
  if (ret == TY_SETBIT) { /* first / random_member: the element type of the set argument */
    int k = args[0];
    return k > 0 && (k & TY_SETBIT) ? k & ~TY_SETBIT : K_ANY;
  }
  return norm(ret);
}

/* One instruction: its successors with their states. */
static void step(vctx *c, uint32_t i) {
  const program *p = c->p;
  uint32_t pc = c->pcs[i];
  uint8_t o = cg_plain_op(p->code[pc]);
  if (!operands_ok(c, pc)) return;
  astate s = c->st[i];
  int32_t d = s.depth;
  int32_t *k = c->tmp;
  if (d) memcpy(k, kinds_of(c, &c->st[i]), (size_t)d * sizeof *k);
  int32_t prompt = s.prompt;
  uint32_t next = pc + (uint32_t)lenof(o);
  int32_t a = op_table[o].operands > 0 ? word(p, pc, 0) : 0, b = op_table[o].operands > 1 ? word(p, pc, 1) : 0;
  int pops = op_table[o].pops, pushes = op_table[o].pushes;
  /* operand-dependent counts */
  switch ((opcode)o) {
  case OP_CALL:
  case OP_BUILTIN: pops = b; break;
  case OP_VAR_GET: pops = p->vars[a].nparams; break;
  case OP_VAR_SET: pops = p->vars[a].nparams + 1; break;
  case OP_PROMPT: pops = p->nlist[a]; break;
  case OP_LOG: pops = p->nlist[b]; break;
  case OP_LOG_TO: pops = p->nlist[b] + 1; break;
  case OP_AND_JUMP:
  case OP_OR_JUMP: pops = 1, pushes = 0; break; /* the fall-through; the jump keeps it */
  default: break;
  }
  if (d - pops < c->f->nlocals) {
    vfail(c, pc, "%s pops %d of %d operands", op_table[o].name, pops, d - c->f->nlocals);
    return;
  }
  int32_t nd = d - pops;
  const int32_t *args = k + nd;
  int res = K_ANY;
  switch ((opcode)o) {
  case OP_PUSH_INT: res = a == 0 ? K_ZERO : K_ANY; break;
  case OP_LOAD: res = k[a]; break;
  case OP_STORE: k[a] = args[0]; break;
  case OP_BY_TAKE: /* either path: taken (the member and its key) or not */
    k[b] = merge_kind(k[b], k[a]);
    k[b + 1] = merge_kind(k[b + 1], args[0]);
    break;
  case OP_EQ:
  case OP_NE:
  case OP_LT:
  case OP_LE:
  case OP_GT:
  case OP_GE:
  case OP_NOT:
  case OP_SET_HAS:
  case OP_RANGE_HAS:
  case OP_RULE_ACTIVE:
  case OP_RULE_LIVE:
  case OP_RULE_TRY:
  case OP_CAN:
  case OP_GUARD_RESULT: res = TY_BOOL; break;
  case OP_SET_UNION: res = args[0] == args[1] ? args[0] : args[0] == K_ZERO ? args[1] : args[1] == K_ZERO ? args[0] : K_ANY; break;
  case OP_SET_DIFF: res = args[0]; break; /* a subset of the first */
  case OP_SET_INTER: res = args[0] != K_ANY && args[0] != K_ZERO ? args[0] : args[1]; break;
  case OP_SET_SINGLE: res = args[0] > 0 && !(args[0] & TY_SETBIT) ? args[0] | TY_SETBIT : K_ANY; break;
  case OP_SET_FIRST: res = args[0] > 0 && (args[0] & TY_SETBIT) ? args[0] & ~TY_SETBIT : K_ANY; break;
  case OP_CALL: res = c->ret[a]; break;
  case OP_BUILTIN: res = builtin_kind(a, args); break;
  case OP_VAR_GET: res = norm(p->vars[a].type); break;
  case OP_ATTR: res = attr_kind(p, a, b); break;
  case OP_PILE_CARD: res = TY_CARD; break;
  case OP_PROMPT: prompt = a; break;
  default: break;
  }
  /* suspensions and calls push their result when the frame continues: the
   * abstract result is what the answer or the callee gives */
  switch ((opcode)o) {
  case OP_ASK: res = norm(a); break;
  case OP_ASK_RANGE: res = K_ANY; break;
  case OP_MAY: res = TY_BOOL; break;
  case OP_ACT: res = K_ZERO; break;
  default: break;
  }
  if (o == OP_CALL && p->funcs[a].kind == FN_EFFECT) prompt = P_ANY; /* an effect may ask (and prompt) */
  if (o == OP_ACT) prompt = P_ANY;
  for (int j = 0; j < pushes; j++) k[nd + j] = res;
  int32_t after = nd + pushes;
  switch ((opcode)o) {
  case OP_JUMP: flow(c, pc, (uint32_t)a, after, k, prompt); return;
  case OP_JUMP_FALSE:
  case OP_JUMP_TRUE:
    flow(c, pc, (uint32_t)a, after, k, prompt);
    break;
  case OP_AND_JUMP:
  case OP_OR_JUMP:
    flow(c, pc, (uint32_t)a, d, k, prompt); /* the tested value stays */
    break;
  case OP_PHASE_BEGIN: flow(c, pc, (uint32_t)b, after, k, prompt); break; /* a skipped phase */
  case OP_RET:
  case OP_RET_VOID:
  case OP_FINISH:
  case OP_CONFLICT:
  case OP_NO_DEF: return;
  default: break;
  }
  if (next >= c->f->end) {
    vfail(c, pc, "execution runs off the end of the function");
    return;
  }
  flow(c, pc, next, after, k, prompt);
}

/* A resume point of the function being verified: pc PC, the DEPTH slots of
 * KINDS, flags HOW, the instruction AT; PROMPT for decisions. */
static void add_point(vctx *c, uint32_t pc, uint32_t at, int how, int32_t depth, const int32_t *kinds, int32_t prompt) {
  program *p = c->p;
  VEC_GROW(p->resume, p->nresume, p->capresume);
  resume_point *r = &p->resume[p->nresume++];
  r->pc = pc;
  r->at = at;
  r->fn = c->fn;
  r->how = how;
  r->depth = depth;
  r->prompt = prompt;
  while (p->nresume_kinds + (size_t)depth > p->capresume_kinds || !p->resume_kinds) {
    p->capresume_kinds = p->capresume_kinds ? p->capresume_kinds * 2 : 4096;
    p->resume_kinds = mt_realloc(p->resume_kinds, p->capresume_kinds * sizeof *p->resume_kinds);
  }
  r->kinds = (int32_t)p->nresume_kinds;
  if (depth) memcpy(p->resume_kinds + p->nresume_kinds, kinds, (size_t)depth * sizeof *kinds);
  p->nresume_kinds += (size_t)depth;
}

/* After the fixpoint: the function's resume points. */
static void record_points(vctx *c) {
  const program *p = c->p;
  for (uint32_t i = 0; i < c->ninstr; i++) {
    astate *s = &c->st[i];
    if (s->depth < 0) continue;
    uint32_t pc = c->pcs[i];
    uint8_t o = cg_plain_op(p->code[pc]);
    uint32_t next = pc + (uint32_t)lenof(o);
    const int32_t *k = kinds_of(c, s);
    int32_t b = op_table[o].operands > 1 ? word(p, pc, 1) : 0;
    switch ((opcode)o) {
    case OP_ASK: add_point(c, next, pc, RP_ANSWER, s->depth - 2, k, s->prompt); break;
    case OP_ASK_RANGE: add_point(c, next, pc, RP_ANSWER, s->depth - 3, k, s->prompt); break;
    case OP_MAY: add_point(c, next, pc, RP_ANSWER, s->depth - 1, k, s->prompt); break;
    case OP_ACT: add_point(c, next, pc, RP_ANSWER | RP_RETURN, s->depth - 1, k, P_ANY); break;
    case OP_CALL:
      if (p->funcs[word(p, pc, 0)].kind == FN_EFFECT) add_point(c, next, pc, RP_RETURN, s->depth - b, k, P_ANY);
      break;
    case OP_PHASE_BEGIN: add_point(c, pc, pc, RP_PAUSE, s->depth, k, P_ANY); break;
    case OP_PHASE_END: add_point(c, next, pc, RP_PAUSE, s->depth, k, P_ANY); break;
    case OP_FINISH: add_point(c, next, pc, RP_FINISH, s->depth, k, P_ANY); break;
    default: break;
    }
  }
}

static bool verify_fn(vctx *c, int fn) {
  program *p = c->p;
  c->fn = fn;
  c->f = &p->funcs[fn];
  const func_rec *f = c->f;
  if (f->end <= f->start) return true; /* never compiled (a disabled rule) */
  if (f->end > p->ncode || f->nlocals < f->nparams || f->nlocals > MAX_LOCALS + 64) {
    vfail(c, f->start, "bad function bounds or locals");
    return false;
  }
  c->n = f->end - f->start;
  c->at = mt_realloc(c->at, (size_t)c->n * sizeof *c->at);
  c->pcs = mt_realloc(c->pcs, (size_t)c->n * sizeof *c->pcs);
  c->ninstr = 0;
  for (uint32_t i = 0; i < c->n; i++) c->at[i] = -1;
  for (uint32_t pc = f->start; pc < f->end;) {
    uint8_t o = cg_plain_op(p->code[pc]);
    if (o >= OP__COUNT || pc + (uint32_t)lenof(o) > f->end) {
      vfail(c, pc, "not an instruction");
      return false;
    }
    c->at[pc - f->start] = (int32_t)c->ninstr;
    c->pcs[c->ninstr++] = pc;
    pc += (uint32_t)lenof(o);
  }
  c->st = mt_realloc(c->st, (size_t)c->ninstr * sizeof *c->st);
  c->queued = mt_realloc(c->queued, (size_t)c->ninstr * sizeof *c->queued);
  c->work = mt_realloc(c->work, (size_t)c->ninstr * sizeof *c->work);
  for (uint32_t i = 0; i < c->ninstr; i++) c->st[i] = (astate){-1, P_NONE, 0}, c->queued[i] = false;
  c->npool = 0;
  c->nwork = 0;
  /* entry: parameters of their declared types, other locals 0 */
  int32_t *k0 = c->tmp;
  int typed = c->ptypes[fn] ? c->nptypes[fn] : 0;
  for (int j = 0; j < f->nlocals; j++) k0[j] = j < f->nparams ? (j < typed ? norm(c->ptypes[fn][j]) : K_ANY) : K_ZERO;
  flow(c, f->start, f->start, f->nlocals, k0, P_ANY);
  while (c->nwork && !c->bad) {
    uint32_t i = c->work[--c->nwork];
    c->queued[i] = false;
    step(c, i);
  }
  if (c->bad) return false;
  record_points(c);
  return true;
}

/* Parameter types and result kinds of the functions, from the records that
 * own them. */
static void fn_signatures(vctx *c) {
  program *p = c->p;
  c->ptypes = mt_calloc((size_t)p->nfuncs + 1, sizeof *c->ptypes);
  c->nptypes = mt_calloc((size_t)p->nfuncs + 1, sizeof *c->nptypes);
  c->ret = mt_calloc((size_t)p->nfuncs + 1, sizeof *c->ret);
  for (int i = 0; i < p->nfuncs; i++) c->ret[i] = p->funcs[i].kind == FN_EFFECT ? K_ZERO : K_ANY;
#define SIG(fn_, types_, n_, ret_)                                                                                    \
  do {                                                                                                                \
    int f_ = (fn_);                                                                                                   \
    if (f_ >= 0 && f_ < p->nfuncs) {                                                                                  \
      c->ptypes[f_] = (types_);                                                                                       \
      c->nptypes[f_] = (n_);                                                                                          \
      c->ret[f_] = (ret_);                                                                                            \
    }                                                                                                                 \
  } while (0)
  for (int i = 0; i < p->nvalues; i++) {
    value_rec *v = &p->values[i];
    SIG(v->dispatch_fn, v->ptype, v->nparams, norm(v->ret));
    for (int k = 0; k < v->ndefs; k++) {
      SIG(v->defs[k].match_fn, v->ptype, v->nparams, TY_BOOL);
      SIG(v->defs[k].body_fn, v->ptype, v->nparams, norm(v->ret));
    }
  }
  for (int i = 0; i < p->nevents; i++) SIG(p->events[i].dispatch_fn, p->events[i].ptype, p->events[i].nparams, K_ZERO);
  for (int i = 0; i < p->ntriggers; i++) {
    trigger_rec *t = &p->triggers[i];
    if (p->rules[t->rule].disabled) continue;
    const event_rec *e = &p->events[t->event];
    SIG(t->where_fn, e->ptype, e->nparams, TY_BOOL);
    SIG(t->body_fn, e->ptype, e->nparams, K_ZERO);
  }
  for (int i = 0; i < p->nprocs; i++) SIG(p->procs[i].fn, p->procs[i].ptype, p->procs[i].nparams, K_ZERO);
  for (int i = 0; i < p->nactions; i++) {
    action_rec *a = &p->actions[i];
    /* params, then the cost: the action's own types and an int (K_ANY past the types) */
    SIG(a->effect_fn, a->ptype, a->nparams, K_ZERO);
    SIG(a->guard_fn, a->ptype, a->nparams, TY_BOOL);
    SIG(a->tail_fn, a->ptype, a->nparams, TY_BOOL);
    SIG(a->cost_fn, a->ptype, a->nparams, K_ANY);
    for (int j = 0; j < a->nparams; j++) {
      SIG(a->prefix_fn[j], a->ptype, a->nparams, TY_BOOL);
      SIG(a->dom_fn[j], a->ptype, j, a->dom_pile[j] ? TY_PILE : norm(a->ptype[j] | TY_SETBIT));
      SIG(a->lo_fn[j], a->ptype, j, K_ANY);
      SIG(a->hi_fn[j], a->ptype, j, K_ANY);
      SIG(a->nlo_fn[j], a->ptype, j, K_ANY);
      SIG(a->nhi_fn[j], a->ptype, j, K_ANY);
    }
  }
  for (int i = 0; i < p->nchecks; i++)
    if (p->checks[i].where_fn >= 0) SIG(p->checks[i].where_fn, p->actions[p->checks[i].action].ptype, p->actions[p->checks[i].action].nparams, TY_BOOL);
#undef SIG
}

static int cmp_point(const void *a, const void *b) {
  const resume_point *x = a, *y = b;
  return x->pc < y->pc ? -1 : x->pc > y->pc ? 1 : x->how - y->how;
}

bool vm_verify(program *p, diag *d) {
  vctx c = {0};
  c.p = p;
  c.d = d;
  mt_free(p->resume);
  mt_free(p->resume_kinds);
  p->resume = NULL;
  p->resume_kinds = NULL;
  p->nresume = p->capresume = 0;
  p->nresume_kinds = p->capresume_kinds = 0;
  fn_signatures(&c);
  c.tmp = mt_calloc(VM_STACK + MAX_LOCALS + 128, sizeof *c.tmp);
  bool ok = true;
  for (int fn = 0; fn < p->nfuncs && ok; fn++) ok = verify_fn(&c, fn);
  mt_free(c.at);
  mt_free(c.pcs);
  mt_free(c.st);
  mt_free(c.queued);
  mt_free(c.work);
  mt_free(c.pool);
  mt_free(c.tmp);
  mt_free(c.ptypes);
  mt_free(c.nptypes);
  mt_free(c.ret);
  if (p->nresume) qsort(p->resume, (size_t)p->nresume, sizeof *p->resume, cmp_point);
  int *next = mt_calloc((size_t)p->nfuncs + 1, sizeof *next); /* each function's points in code order */
  for (int i = 0; i < p->nresume; i++) p->resume[i].ord = next[p->resume[i].fn]++;
  mt_free(next);
  p->nverified = ok ? p->nfuncs : 0;
  return ok;
}

/* ---- the check of a loaded continuation ------------------------------------------------- */

/* Members in the domain of kind K (or -1: not an index kind). */
static int64_t domain(const vm *v, int k) {
  const program *p = v->p;
  const board_def *def = p->def;
  if (k >= TY_ENUM0 && k - TY_ENUM0 < p->nenums) return p->enums[k - TY_ENUM0].nvalues;
  switch (k) {
  case TY_FACTION: return def->nfactions;
  case TY_TERRITORY: return def->nareas;
  case TY_CARD: return def->ncards;
  case TY_LEADER: return def->nleaders;
  case TY_KIND: return def->nkinds;
  case TY_POOL: return def->npools;
  case TY_PILENAME: return def->npiles;
  case TY_PILE: return v->L->npile_slots;
  case TY_LOC: return v->L->nlocs;
  case TY_TAG: return def->ntags;
  case TY_RULE: return p->nrules;
  default: return -1;
  }
}

/* May a slot of kind K hold X?  Entities are -1 (none) or an index; sets have
 * no member outside their element's domain; 0 is every kind's start value. */
static bool kind_ok(const vm *v, int k, int64_t x) {
  if (k == K_ANY || x == 0) return true;
  if (k == K_ZERO) return false;
  if (k == TY_BOOL) return x == 1;
  if (k & TY_SETBIT) {
    int64_t n = domain(v, k & ~TY_SETBIT);
    return n < 0 || n >= 64 || ((uint64_t)x >> n) == 0;
  }
  int64_t n = domain(v, k);
  return n < 0 || (x >= -1 && x < n);
}

const resume_point *vm_resume_point(const program *p, int fn, uint32_t pc, int how) {
  int lo = 0, hi = p->nresume;
  while (lo < hi) { /* the first point at or after PC */
    int mid = (lo + hi) / 2;
    if (p->resume[mid].pc < pc) lo = mid + 1;
    else hi = mid;
  }
  for (int i = lo; i < p->nresume && p->resume[i].pc == pc; i++)
    if (p->resume[i].fn == fn && (p->resume[i].how & how)) return &p->resume[i];
  return NULL;
}

static bool is_phase(const program *p, int32_t r) { return r >= 0 && r < p->nrules && p->rules[r].form == RF_PHASE; }

#define OFF(field) ((long)offsetof(vm_state, field))
#define OFF_FRAME(i, field) ((long)(offsetof(vm_state, frames) + (size_t)(i) * sizeof(vm_frame) + offsetof(vm_frame, field)))
#define OFF_CANCEL(i, field) ((long)(offsetof(vm_state, cancel) + (size_t)(i) * sizeof(vm_cancel) + offsetof(vm_cancel, field)))
#define OFF_SLOT(i) ((long)(offsetof(vm_state, stack) + (size_t)(i) * sizeof(int64_t)))
#define BAD(off, ...)                                                                                                 \
  do {                                                                                                                \
    sb_printf(why, __VA_ARGS__);                                                                                      \
    return (off);                                                                                                     \
  } while (0)

/* The fields every status shares: the header, the stop conditions, the
 * cancellations. */
static long check_header(const vm *v, strbuf *why) {
  const program *p = v->p;
  const vm_state *vs = v->vs;
  if (vs->status < VM_IDLE || vs->status > VM_PAUSED || vs->status == VM_RUNNING)
    BAD(OFF(status), "status %d is not one a saved game can have (0 idle, 2 waiting, 3 finished, 4 failed, 5 paused)", vs->status);
  if (vs->sp < 0 || vs->sp > VM_STACK) BAD(OFF(sp), "stack pointer %d outside 0..%d", vs->sp, VM_STACK);
  if (vs->nframes < 0 || vs->nframes > VM_FRAMES) BAD(OFF(nframes), "frame count %d outside 0..%d", vs->nframes, VM_FRAMES);
  if (vs->ncancel < 0 || vs->ncancel > VM_CANCELS) BAD(OFF(ncancel), "cancellation count %d outside 0..%d", vs->ncancel, VM_CANCELS);
  if (vs->phase_rule < -1 || vs->phase_rule >= p->nrules) BAD(OFF(phase_rule), "phase rule %d is not a rule", vs->phase_rule);
  if (vs->phase_seq < 0) BAD(OFF(phase_seq), "phase count %d is negative", vs->phase_seq);
  if (vs->secret != 0 && vs->secret != 1) BAD(OFF(secret), "secret round flag %d is not 0 or 1", vs->secret);
  if (vs->stop_phase_begin != 0 && !is_phase(p, vs->stop_phase_begin - 1))
    BAD(OFF(stop_phase_begin), "stop before phase %d is not a phase", vs->stop_phase_begin - 1);
  if (vs->seek_phase != -1 && !is_phase(p, vs->seek_phase)) BAD(OFF(seek_phase), "seek target %d is not a phase", vs->seek_phase);
  if (vs->stop_phase_end != -1 && vs->stop_phase_end != -2 && !is_phase(p, vs->stop_phase_end))
    BAD(OFF(stop_phase_end), "stop phase %d is not a phase", vs->stop_phase_end);
  for (int i = 0; i < vs->ncancel; i++) {
    const vm_cancel *c = &vs->cancel[i];
    if (c->rule < 0 || c->rule >= p->nrules) BAD(OFF_CANCEL(i, rule), "cancellation %d names rule %d, not a rule", i, c->rule);
    if (c->scope < SCOPE_ONCE || c->scope > SCOPE_GAME) BAD(OFF_CANCEL(i, scope), "cancellation %d has scope %d (0..3)", i, c->scope);
    if (c->faction != -1) BAD(OFF_CANCEL(i, faction), "cancellation %d has faction %d (always -1)", i, c->faction);
  }
  /* the error record: set only in a failed game, and then naming what its message names */
  if (vs->status != VM_FAILED) {
    if (vs->err_code) BAD(OFF(err_code), "error code %d in a game that has not failed", vs->err_code);
    if (vs->err_pc || vs->err_a || vs->err_b) BAD(OFF(err_pc), "error details in a game that has not failed");
    if (vs->err_v) BAD(OFF(err_v), "error value in a game that has not failed");
  } else {
    int a = vs->err_a, b = vs->err_b;
    if (vs->err_code <= VE_NONE || vs->err_code > VE_INTERNAL) BAD(OFF(err_code), "error code %d is not one", vs->err_code);
    if (vs->err_code == VE_CONFLICT && (a < 0 || a >= p->nrules || b < 0 || b >= p->nrules))
      BAD(OFF(err_a), "a conflict between rules %d and %d", a, b);
    if (vs->err_code == VE_NODEF && (a < 0 || a >= p->nvalues)) BAD(OFF(err_a), "value %d is not one", a);
    if (vs->err_code == VE_NEGATIVE && (a < 0 || a >= p->nvars)) BAD(OFF(err_a), "variable %d is not one", a);
    if (vs->err_code == VE_STACK && (a < 0 || a > 2)) BAD(OFF(err_a), "stack error kind %d is not one", a);
  }
  return -1;
}

/* The decision record of a game that is not waiting: left from the last
 * decision (only its kind says none is pending; a game that failed during an
 * any-time action keeps the decision it was waiting for), so only its ranges
 * count. */
static long check_stale_decision(const vm *v, strbuf *why) {
  const program *p = v->p;
  const vm_decision *dc = &v->vs->dec;
  if (dc->kind != DEC_NONE && (v->vs->status != VM_FAILED || dc->kind < DEC_NONE || dc->kind > DEC_ACT))
    BAD(OFF(dec.kind), "a decision record (kind %d) in a game that is not waiting", dc->kind);
  if (dc->faction < -1 || dc->faction >= p->def->nfactions) BAD(OFF(dec.faction), "decision faction %d is not a faction", dc->faction);
  if (dc->prompt < 0 || (dc->prompt >= p->nstrings && dc->prompt)) BAD(OFF(dec.prompt), "prompt %d is not a text", dc->prompt);
  if (dc->list < 0 || (dc->list >= p->nlists && dc->list)) BAD(OFF(dec.list), "action list %d is not one", dc->list);
  if (dc->rule < -1 || dc->rule >= p->nrules) BAD(OFF(dec.rule), "decision rule %d is not a rule", dc->rule);
  if (dc->secret != 0 && dc->secret != 1) BAD(OFF(dec.secret), "decision secret flag %d", dc->secret);
  if (dc->hole_types < -1 || dc->hole_types >= p->nlists) BAD(OFF(dec.hole_types), "prompt holes list %d is not one", dc->hole_types);
  if (dc->nholes < 0 || dc->nholes > VM_PROMPT_HOLES) BAD(OFF(dec.nholes), "%d prompt holes (at most %d)", dc->nholes, VM_PROMPT_HOLES);
  return -1;
}

/* The pending decision: what the instruction that asked (at DEC.pc, just
 * before the top frame's pc) would have written. */
static long check_decision(const vm *v, const vm_frame *top, const resume_point *rp, strbuf *why) {
  const program *p = v->p;
  const vm_state *vs = v->vs;
  const vm_decision *dc = &vs->dec;
  uint8_t o = p->code[rp->at];
  int32_t a = word(p, rp->at, 0), b = op_table[o].operands > 1 ? word(p, rp->at, 1) : 0;
  static const int kind_of_op[OP__COUNT] = {[OP_ASK] = DEC_ASK, [OP_ASK_RANGE] = DEC_RANGE, [OP_MAY] = DEC_MAY, [OP_ACT] = DEC_ACT};
  if (dc->kind != kind_of_op[o]) BAD(OFF(dec.kind), "decision kind %d does not match the %s that asked", dc->kind, op_table[o].name);
  if (dc->pc != (int32_t)rp->at) BAD(OFF(dec.pc), "decision pc %d is not the instruction that asked (%u)", dc->pc, rp->at);
  int32_t rule = p->funcs[top->fn].rule;
  if (dc->rule != rule) BAD(OFF(dec.rule), "decision rule %d is not the asking function's (%d)", dc->rule, rule);
  if (dc->faction < 0 || dc->faction >= p->def->nfactions || v->L->game_faction[dc->faction] < 0)
    BAD(OFF(dec.faction), "the deciding faction %d is not in this game", dc->faction);
  if (dc->secret != vs->secret) BAD(OFF(dec.secret), "decision secret flag %d differs from the round's (%d)", dc->secret, vs->secret);
  int32_t prompt = o == OP_ASK ? b : o == OP_ACT ? 0 : a;
  if (dc->prompt != prompt) BAD(OFF(dec.prompt), "prompt %d is not the asking instruction's (%d)", dc->prompt, prompt);
  if (dc->elem != (o == OP_ASK ? a : 0)) BAD(OFF(dec.elem), "element type %d is not the asking instruction's", dc->elem);
  if (dc->list != (o == OP_ACT ? a : 0)) BAD(OFF(dec.list), "action list %d is not the asking instruction's", dc->list);
  if (o == OP_ASK) {
    if (!kind_ok(v, norm(a | TY_SETBIT), dc->set)) BAD(OFF(dec.set), "the offered set has members that are not %s values", "its element type's");
  } else if (dc->set) BAD(OFF(dec.set), "an offered set in a decision that is not a choice");
  if (o != OP_ASK_RANGE && (dc->lo || dc->hi)) BAD(OFF(dec.lo), "a range in a decision that is not a number");
  if (o == OP_ACT) {
    if (dc->hole_types != -1) BAD(OFF(dec.hole_types), "prompt holes list %d in an action decision", dc->hole_types);
    if (dc->nholes != 0) BAD(OFF(dec.nholes), "%d prompt holes in an action decision", dc->nholes);
    for (int i = 0; i < VM_PROMPT_HOLES; i++)
      if (dc->holes[i]) BAD(OFF(dec.holes) + 8L * i, "prompt hole values in an action decision");
    return -1;
  }
  if (dc->hole_types < 0 || dc->hole_types >= p->nlists || (rp->prompt >= 0 && dc->hole_types != rp->prompt))
    BAD(OFF(dec.hole_types), "prompt holes list %d is not the one the prompt was given", dc->hole_types);
  int n = p->nlist[dc->hole_types] < VM_PROMPT_HOLES ? p->nlist[dc->hole_types] : VM_PROMPT_HOLES;
  if (dc->nholes != n) BAD(OFF(dec.nholes), "%d prompt holes where the prompt has %d", dc->nholes, n);
  for (int i = 0; i < n; i++)
    if (!kind_ok(v, norm(p->lists[dc->hole_types][i]), dc->holes[i]))
      BAD(OFF(dec.holes) + 8L * i, "prompt hole %d holds %lld, not a value of its type", i, (long long)dc->holes[i]);
  return -1;
}

/* The frames of a waiting, paused or finished game: each on a resume point,
 * each above the call that made it, the live slots of their kinds. */
static long check_frames(const vm *v, strbuf *why) {
  const program *p = v->p;
  const vm_state *vs = v->vs;
  int n = vs->nframes;
  int top_how = vs->status == VM_WAITING ? RP_ANSWER : vs->status == VM_PAUSED ? RP_PAUSE : RP_FINISH;
  if (n == 0) {
    if (vs->status == VM_FINISHED && (vs->sp == 0 || vs->sp == 1)) return -1; /* the game rule returned */
    BAD(OFF(nframes), "no frame in a %s game", vs->status == VM_WAITING ? "waiting" : vs->status == VM_PAUSED ? "paused" : "finished");
  }
  if (p->game_rule < 0 || vs->frames[0].fn != p->rules[p->game_rule].body_fn) BAD(OFF_FRAME(0, fn), "the first frame does not run the game rule");
  if (vs->frames[0].base != 0) BAD(OFF_FRAME(0, base), "the first frame's base is %d, not 0", vs->frames[0].base);
  for (int i = 0; i < n; i++) {
    const vm_frame *fr = &vs->frames[i];
    if (fr->fn < 0 || fr->fn >= p->nverified) BAD(OFF_FRAME(i, fn), "frame %d runs function %d, not one", i, fr->fn);
    bool top = i == n - 1;
    const resume_point *rp = vm_resume_point(p, fr->fn, (uint32_t)fr->pc, top ? top_how : RP_RETURN);
    if (!rp || fr->pc < 0)
      BAD(OFF_FRAME(i, pc), "frame %d stands at pc %d of %s, where a %s game cannot be", i, fr->pc, p->funcs[fr->fn].what,
          top ? (vs->status == VM_WAITING ? "waiting" : vs->status == VM_PAUSED ? "paused" : "finished") : "suspended");
    int32_t limit = top ? vs->sp : vs->frames[i + 1].base;
    if (fr->base < 0 || fr->base > VM_STACK - rp->depth) BAD(OFF_FRAME(i, base), "frame %d's base %d is out of range", i, fr->base);
    if (fr->base + rp->depth != limit)
      BAD(top ? OFF(sp) : OFF_FRAME(i + 1, base), "frame %d holds %d slots where its code has %d", i, limit - fr->base, rp->depth);
    if (!top) { /* the frame above is the callee this point calls */
      const vm_frame *up = &vs->frames[i + 1];
      uint8_t o = p->code[rp->at];
      bool callee = false;
      if (o == OP_CALL) callee = up->fn == word(p, rp->at, 0);
      else
        for (int k = 0, l = word(p, rp->at, 0); k < p->nlist[l] && !callee; k++)
          callee = p->lists[l][k] >= 0 && p->actions[p->lists[l][k]].effect_fn == up->fn;
      if (!callee) BAD(OFF_FRAME(i + 1, fn), "frame %d runs function %d, which frame %d does not call", i + 1, up->fn, i);
    }
    const int32_t *k = p->resume_kinds + rp->kinds;
    for (int s = 0; s < rp->depth; s++)
      if (!kind_ok(v, k[s], vs->stack[fr->base + s]))
        BAD(OFF_SLOT(fr->base + s), "stack slot %d of frame %d holds %lld, not a value of its kind", fr->base + s, i,
            (long long)vs->stack[fr->base + s]);
    if (top && vs->status == VM_WAITING) return check_decision(v, fr, rp, why);
  }
  return -1;
}

/* Frames of a failed game are never resumed: they only need to lie inside
 * the code and the stack (the hash and the error message read them). */
static long check_failed_frames(const vm *v, strbuf *why) {
  const program *p = v->p;
  const vm_state *vs = v->vs;
  int32_t base = 0;
  for (int i = 0; i < vs->nframes; i++) {
    const vm_frame *fr = &vs->frames[i];
    if (fr->fn < 0 || fr->fn >= p->nverified) BAD(OFF_FRAME(i, fn), "frame %d runs function %d, not one", i, fr->fn);
    const func_rec *f = &p->funcs[fr->fn];
    if (fr->pc < (int32_t)f->start || fr->pc > (int32_t)f->end) BAD(OFF_FRAME(i, pc), "frame %d's pc %d lies outside its function", i, fr->pc);
    if (fr->base < base || fr->base > vs->sp) BAD(OFF_FRAME(i, base), "frame %d's base %d is out of order", i, fr->base);
    base = fr->base;
  }
  return -1;
}

long vm_check_state(const vm *v, strbuf *why) {
  const vm_state *vs = v->vs;
  long bad = check_header(v, why);
  if (bad >= 0) return bad;
  if (vs->status != VM_WAITING && (bad = check_stale_decision(v, why)) >= 0) return bad;
  switch (vs->status) {
  case VM_IDLE:
    if (vs->nframes) BAD(OFF(nframes), "frames in a game that has not started");
    if (vs->sp) BAD(OFF(sp), "a stack in a game that has not started");
    if (vs->ncancel) BAD(OFF(ncancel), "cancellations in a game that has not started");
    return -1;
  case VM_FAILED: return check_failed_frames(v, why);
  default: break;
  }
  if (vs->status == VM_WAITING || vs->status == VM_PAUSED) {
    if (vs->phase_rule != -1 && !is_phase(v->p, vs->phase_rule)) BAD(OFF(phase_rule), "phase rule %d is not a phase", vs->phase_rule);
  }
  return check_frames(v, why);
}
