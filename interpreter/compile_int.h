/* compile_int.h -- what the compiler's two files share (compile.c: the
 * expressions, statements, rule bodies, value and event dispatchers and the
 * entry points; compile_action.c: the guard functions of the actions).  The
 * emission of instructions is here, inline.  Private to them; program.h has
 * the public entry points. */
#ifndef MENTAT_COMPILE_INT_H
#define MENTAT_COMPILE_INT_H

#include <string.h>

#include "opcodes.h"
#include "program.h"

typedef struct cg {
  program *p;
  diag *d;
  mt_span span;
  int fn;
  int slot_base, ntemps, maxtemps;
  uint32_t *breaks;
  int nbreaks, capbreaks;
  int loop_depth;
  int break_mark[64];
} cg;

/* ---- emission ------------------------------------------------------------ */

static inline void put_byte(cg *c, uint8_t b) { VEC_PUSH(c->p->code, c->p->ncode, c->p->capcode, b); }
static inline void put_word(cg *c, int32_t w) {
  uint8_t b[4];
  memcpy(b, &w, 4);
  for (int i = 0; i < 4; i++) put_byte(c, b[i]);
}

static inline void mark_span(cg *c) {
  program *p = c->p;
  if (p->nspans && p->spans[p->nspans - 1].span.file == c->span.file &&
      p->spans[p->nspans - 1].span.start == c->span.start && p->spans[p->nspans - 1].span.end == c->span.end)
    return;
  if (p->nspans && p->spans[p->nspans - 1].pc == p->ncode) {
    p->spans[p->nspans - 1].span = c->span;
    return;
  }
  pcspan ps = {p->ncode, c->span};
  VEC_PUSH(p->spans, p->nspans, p->capspans, ps);
}

static inline uint32_t op0(cg *c, opcode o) {
  mark_span(c);
  uint32_t at = c->p->ncode;
  put_byte(c, (uint8_t)o);
  return at;
}
static inline uint32_t op1(cg *c, opcode o, int32_t a) {
  uint32_t at = op0(c, o);
  put_word(c, a);
  return at;
}
static inline uint32_t op2(cg *c, opcode o, int32_t a, int32_t b) {
  uint32_t at = op0(c, o);
  put_word(c, a);
  put_word(c, b);
  return at;
}
static inline uint32_t here(cg *c) { return c->p->ncode; }
static inline void patch(cg *c, uint32_t at, uint32_t target) {
  int32_t t = (int32_t)target;
  memcpy(c->p->code + at + 1, &t, 4);
}
static inline uint32_t jump(cg *c, opcode o) { return op1(c, o, 0); }

void cg_push_int(cg *c, int64_t v);            /* PUSH_INT, or PUSH_K with V in the constant table */
int cg_new_func(cg *c, const char *what, int rule, fn_kind k, int nparams); /* a function record: its index */
void cg_begin(cg *c, int fn, int nslots, mt_span span); /* FN's code starts here; its first NSLOTS locals are taken */
void cg_end(cg *c);                              /* FN's code ends here: its size and locals */
int cg_temp(cg *c);                              /* a fresh local of the function being compiled */
char *cg_what(const char *fmt, ...) MT_PRINTF(1, 2); /* a function's description for traces and disassembly */
void cg_load_params(cg *c, int n);               /* pushes the first N locals (a call's arguments) */
void cg_expr(cg *c, node *n);                    /* N's value onto the stack */
void cg_block(cg *c, node *b);
void cg_action_funcs(cg *c, int ai);             /* compile_action.c: every function of action AI */

#endif
