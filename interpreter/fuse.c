/* fuse.c -- superinstructions: the commonest instruction sequences of the
 * compiled rules run as one dispatch; and values with a single definition
 * called straight at it.
 *
 * Runs once per rule set, after vm_verify and vm_reads_build have read the
 * plain code.  A sequence is fused by overwriting its first opcode byte with
 * a fused opcode (opcodes.def, F_*); every other byte stays, so the fused
 * handler reads the operands where the compiler put them and continues after
 * the sequence.  Nothing moves: jump targets, resume points, spans and the
 * saved positions' program counters mean what they meant.  A sequence is
 * fused only if no jump lands strictly inside it (a jump to its first
 * instruction runs the fused form, which does the same).  At each place the
 * longest sequence is fused, and a pair gives way to a longer sequence that
 * starts at its second instruction; sequences never overlap.  Then a JUMP or
 * JUMP_FALSE whose target is a loop head (F_SET_NEXT) becomes F_JUMP_NEXT or
 * F_JF_NEXT, which run the head in the same dispatch (operand unchanged).
 * cg_plain_op says what any fused opcode stands for (the verifier and the
 * native translator read fused code through it).  Nothing here knows a rule. */
#include <string.h>

#include "opcodes.h"
#include "program.h"
#include "util.h"

typedef struct pattern {
  uint8_t fused;
  int n;
  uint8_t ops[12];
} pattern;

/* in the order they are tried: longest first */
static const pattern patterns[] = {
    /* the head of `for x in s`: leave when s is empty, else x = its lowest member, taken out of s */
    {OP_F_SET_NEXT, 12, {OP_LOAD, OP_PUSH_INT, OP_EQ, OP_JUMP_TRUE, OP_LOAD, OP_SET_FIRST, OP_STORE, OP_LOAD, OP_LOAD,
                         OP_SET_SINGLE, OP_SET_DIFF, OP_STORE}},
    {OP_F_SET_DROP, 5, {OP_LOAD, OP_LOAD, OP_SET_SINGLE, OP_SET_DIFF, OP_STORE}},
    {OP_F_LOAD2_CALL, 3, {OP_LOAD, OP_LOAD, OP_CALL}},
    {OP_F_EQK_JT, 4, {OP_LOAD, OP_PUSH_INT, OP_EQ, OP_JUMP_TRUE}},
    {OP_F_EQK_JF, 4, {OP_LOAD, OP_PUSH_INT, OP_EQ, OP_JUMP_FALSE}},
    {OP_F_EQK, 3, {OP_LOAD, OP_PUSH_INT, OP_EQ}},
    {OP_F_FIRST_TO, 3, {OP_LOAD, OP_SET_FIRST, OP_STORE}},
    {OP_F_RULE_JF, 2, {OP_RULE_ACTIVE, OP_JUMP_FALSE}},
    {OP_F_EQ_JT, 2, {OP_EQ, OP_JUMP_TRUE}},
    {OP_F_EQ_JF, 2, {OP_EQ, OP_JUMP_FALSE}},
    {OP_F_LOAD2, 2, {OP_LOAD, OP_LOAD}},
    {OP_F_LOAD_CALL, 2, {OP_LOAD, OP_CALL}},
    {OP_F_LOAD_VAR, 2, {OP_LOAD, OP_VAR_GET}},
    {OP_F_PUSHK_STORE, 2, {OP_PUSH_INT, OP_STORE}},
    {OP_F_STORE_LOAD, 2, {OP_STORE, OP_LOAD}},
};

static uint32_t len_of(uint8_t o) { return 1 + 4u * (uint32_t)op_table[o].operands; }
static int32_t operand(const program *p, uint32_t pc) {
  int32_t a;
  memcpy(&a, p->code + pc + 1, 4);
  return a;
}

/* (cg_plain_op, program.h, answers the others: the superinstructions come last, opcodes.def) */
uint8_t cg_plain_op_fused(uint8_t op) {
  if (op < OP_F_SET_NEXT || op >= OP__COUNT) return op;
  if (op == OP_F_JUMP_NEXT) return OP_JUMP;
  if (op == OP_F_JF_NEXT) return OP_JUMP_FALSE;
  for (size_t k = 0; k < sizeof patterns / sizeof *patterns; k++)
    if (patterns[k].fused == op) return patterns[k].ops[0];
  return op;
}

uint32_t cg_fused_len(uint8_t op) {
  for (size_t k = 0; k < sizeof patterns / sizeof *patterns; k++)
    if (patterns[k].fused == op) {
      uint32_t n = 0;
      for (int i = 0; i < patterns[k].n; i++) n += len_of(patterns[k].ops[i]);
      return n;
    }
  return 0;
}

/* The first pattern of at least MIN instructions that matches the
 * instructions from I (of those before LAST), with no jump into it. */
static const pattern *match(const program *p, const uint32_t *ins, int i, int last, const uint8_t *target, int min) {
  uint8_t o = p->code[ins[i]];
  if (o != OP_LOAD && o != OP_STORE && o != OP_EQ && o != OP_RULE_ACTIVE && o != OP_PUSH_INT)
    return NULL; /* no pattern starts otherwise */
  for (size_t k = 0; k < sizeof patterns / sizeof *patterns; k++) {
    const pattern *pt = &patterns[k];
    if (pt->n < min || i + pt->n > last || p->code[ins[i]] != pt->ops[0]) continue;
    bool ok = true;
    for (int j = 1; j < pt->n && ok; j++) ok = p->code[ins[i + j]] == pt->ops[j] && !target[ins[i + j]];
    if (ok && pt->fused == OP_F_SET_NEXT) { /* one set local s, one member local x, the test against 0 */
      int32_t s = operand(p, ins[i]), x = operand(p, ins[i + 6]);
      ok = operand(p, ins[i + 1]) == 0 && operand(p, ins[i + 4]) == s && operand(p, ins[i + 7]) == s &&
           operand(p, ins[i + 11]) == s && operand(p, ins[i + 8]) == x && x != s;
    }
    if (ok) return pt;
  }
  return NULL;
}

/* Do functions F and G run the same code: the same instructions with the same
 * operands, jumps to the same place relative to their starts, the numbers of
 * their guards (GUARD: which refusal to report) aside?  (Their counts of
 * parameters and locals may differ: an action's first guard is run with the
 * faction alone, every other parameter 0 like the temporaries, and verified
 * code reads only locals both have.) */
static bool same_code(const program *p, int f, int g) {
  const func_rec *a = &p->funcs[f], *b = &p->funcs[g];
  if (a->end - a->start != b->end - b->start) return false;
  for (uint32_t k = 0; k < a->end - a->start;) {
    uint8_t o = p->code[a->start + k];
    if (o != p->code[b->start + k] || o >= OP__COUNT) return false;
    uint8_t plain = cg_plain_op(o);
    for (int j = 0; j < op_table[o].operands; j++) {
      int32_t x = operand(p, a->start + k + 4u * (uint32_t)j), y = operand(p, b->start + k + 4u * (uint32_t)j);
      bool jump = j == 0 && (plain == OP_JUMP || plain == OP_JUMP_FALSE || plain == OP_JUMP_TRUE || plain == OP_AND_JUMP ||
                             plain == OP_OR_JUMP);
      if (jump ? x - (int32_t)a->start != y - (int32_t)b->start : o == OP_GUARD ? false : x != y) return false;
    }
    k += len_of(o);
  }
  return true;
}

/* Each action's first_same (program.h): found once the code is final. */
static void share_first_guards(program *p) {
  for (int i = 0; i < p->nactions; i++) {
    action_rec *a = &p->actions[i];
    a->first_same = i;
    if (a->nparams < 2 || a->prefix_fn[0] < 0) continue;
    for (int j = 0; j < i; j++) {
      const action_rec *b = &p->actions[j];
      if (b->first_same == j && b->nparams >= 2 && b->prefix_fn[0] >= 0 && same_code(p, a->prefix_fn[0], b->prefix_fn[0])) {
        a->first_same = j;
        break;
      }
    }
  }
}

void cg_fuse(program *p) {
  /* direct calls: a value with one definition in play, unconditional, is called straight at its
   * body while that definition's rule is in force (the VM's CALL; otherwise its dispatcher runs and
   * reports that no definition applies) */
  for (int i = 0; i < p->nvalues; i++) {
    const value_rec *v = &p->values[i];
    int live = -1, nlive = 0;
    for (int k = 0; k < v->ndefs; k++)
      if (!p->rules[v->defs[k].rule].disabled) live = k, nlive++;
    if (nlive == 1 && v->defs[live].match_fn < 0 && v->defs[live].body_fn >= 0 && v->dispatch_fn >= 0) {
      p->funcs[v->dispatch_fn].link = v->defs[live].body_fn;
      p->funcs[v->dispatch_fn].link_rule = v->defs[live].rule;
    }
  }
  uint32_t n = p->ncode;
  /* the instructions of every function (as code offsets), and where jumps land */
  uint32_t *ins = NULL;
  size_t nins = 0, capins = 0;
  uint8_t *target = mt_calloc((size_t)n + 1, 1);
  int *fn_first = mt_calloc((size_t)p->nfuncs + 1, sizeof *fn_first);
  for (int f = 0; f < p->nfuncs; f++) {
    fn_first[f] = (int)nins;
    for (uint32_t pc = p->funcs[f].start; pc < p->funcs[f].end && pc < n;) {
      uint8_t o = p->code[pc];
      if (o >= OP__COUNT || pc + len_of(o) > n) break;
      VEC_PUSH(ins, nins, capins, pc);
      int32_t a = 0, b = 0;
      if (op_table[o].operands > 0) memcpy(&a, p->code + pc + 1, 4);
      if (op_table[o].operands > 1) memcpy(&b, p->code + pc + 5, 4);
      if ((o == OP_JUMP || o == OP_JUMP_FALSE || o == OP_JUMP_TRUE || o == OP_AND_JUMP || o == OP_OR_JUMP) && a >= 0 &&
          (uint32_t)a < n)
        target[a] = 1;
      if (o == OP_PHASE_BEGIN && b >= 0 && (uint32_t)b < n) target[b] = 1;
      pc += len_of(o);
    }
  }
  fn_first[p->nfuncs] = (int)nins;
  for (int i = 0; i < p->nresume; i++)
    if (p->resume[i].pc < n) target[p->resume[i].pc] = 1;
  /* one pass: at each instruction the longest pattern that matches, except that a pair gives way
   * to a longer pattern starting at its second instruction */
  uint8_t *inner = mt_calloc(nins + 1, 1); /* an instruction a superinstruction runs after its first */
  for (int f = 0; f < p->nfuncs; f++)
    for (int i = fn_first[f]; i < fn_first[f + 1]; i++) {
      int last = fn_first[f + 1];
      const pattern *pt = match(p, ins, i, last, target, 0);
      if (!pt) continue;
      if (pt->n == 2 && i + 1 < last && match(p, ins, i + 1, last, target, 3)) continue;
      p->code[ins[i]] = pt->fused;
      for (int j = 1; j < pt->n; j++) inner[i + j] = 1;
      i += pt->n - 1;
    }
  /* a jump back to a loop's head runs the head itself: JUMP or JUMP_FALSE to an F_SET_NEXT (one
   * standing alone, not inside another superinstruction) */
  for (size_t i = 0; i < nins; i++) {
    uint8_t o = p->code[ins[i]];
    if (inner[i] || (o != OP_JUMP && o != OP_JUMP_FALSE)) continue;
    int32_t t = operand(p, ins[i]);
    if (t >= 0 && (uint32_t)t < n && p->code[t] == OP_F_SET_NEXT)
      p->code[ins[i]] = o == OP_JUMP ? OP_F_JUMP_NEXT : OP_F_JF_NEXT;
  }

  mt_free(inner);
  mt_free(ins);
  share_first_guards(p);
  mt_free(fn_first);
  mt_free(target);
}
