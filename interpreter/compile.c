/* compile.c -- checked AST -> bytecode (stage 5).
 *
 * Every function carries the rule it belongs to, and every instruction a
 * source span (pcspan table), so runtime errors and traces cite both.  Besides
 * the user's code, the compiler generates the dispatchers that implement the
 * precedence ladder: one per value (definitions in precedence order, with
 * runtime conflict checks), one per event (before / instead-of or on / after,
 * triggers of different factions in the rules' trigger order); the guard
 * functions of each action are compile_action.c's (compile_int.h: what the
 * two files share, the emission of instructions among it). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "compile_int.h"

void cg_push_int(cg *c, int64_t v) {
  if (v >= INT32_MIN && v <= INT32_MAX) {
    op1(c, OP_PUSH_INT, (int32_t)v);
    return;
  }
  program *p = c->p;
  int k = -1;
  for (int i = 0; i < p->nconsts; i++)
    if (p->consts[i] == v) k = i;
  if (k < 0) {
    VEC_PUSH(p->consts, p->nconsts, p->capconsts, v);
    k = p->nconsts - 1;
  }
  op1(c, OP_PUSH_K, k);
}

/* The string table with a hash index, so interning is constant time (a rule
 * set with 100,000 log lines compiles in linear time). */
static uint32_t str_slot(const program *p, const char *s) {
  return (uint32_t)mt_hash_bytes(s, strlen(s), 0x5354u) & (uint32_t)(p->capstrindex - 1);
}
static int intern(cg *c, const char *s) {
  program *p = c->p;
  if (p->capstrindex < 2 * (p->nstrings + 1)) { /* grow and rebuild */
    int cap = p->capstrindex ? p->capstrindex : 64;
    while (cap < 4 * (p->nstrings + 1)) cap *= 2;
    mt_free(p->strindex);
    p->strindex = mt_alloc((size_t)cap * sizeof *p->strindex);
    p->capstrindex = cap;
    for (int i = 0; i < cap; i++) p->strindex[i] = -1;
    for (int i = 0; i < p->nstrings; i++) {
      uint32_t h = str_slot(p, p->strings[i]);
      while (p->strindex[h] >= 0) h = (h + 1) & (uint32_t)(cap - 1);
      p->strindex[h] = i;
    }
  }
  uint32_t h = str_slot(p, s);
  for (; p->strindex[h] >= 0; h = (h + 1) & (uint32_t)(p->capstrindex - 1))
    if (p->strings[p->strindex[h]] == s || !strcmp(p->strings[p->strindex[h]], s)) return p->strindex[h];
  VEC_PUSH(p->strings, p->nstrings, p->capstrings, s);
  p->strindex[h] = p->nstrings - 1;
  return p->nstrings - 1;
}

static int new_list(cg *c, const int *v, int n) {
  program *p = c->p;
  int *list = mt_calloc((size_t)n + 1, sizeof *list);
  if (n) memcpy(list, v, (size_t)n * sizeof *v);
  VEC_GROW(p->lists, p->nlists, p->caplists);
  p->nlist = mt_realloc(p->nlist, (size_t)p->caplists * sizeof *p->nlist);
  p->lists[p->nlists] = list;
  p->nlist[p->nlists] = n;
  return p->nlists++;
}

int cg_new_func(cg *c, const char *what, int rule, fn_kind k, int nparams) {
  func_rec f = {0};
  f.what = what;
  f.rule = rule;
  f.kind = k;
  f.nparams = nparams;
  f.link = f.link_rule = -1;
  VEC_PUSH(c->p->funcs, c->p->nfuncs, c->p->capfuncs, f);
  return c->p->nfuncs - 1;
}

void cg_begin(cg *c, int fn, int nslots, mt_span span) {
  c->fn = fn;
  c->slot_base = nslots;
  c->ntemps = c->maxtemps = 0;
  c->span = span;
  c->p->funcs[fn].start = here(c);
}
void cg_end(cg *c) {
  func_rec *f = &c->p->funcs[c->fn];
  f->end = here(c);
  f->nlocals = c->slot_base + c->maxtemps;
  if (f->nlocals < f->nparams) f->nlocals = f->nparams;
}
int cg_temp(cg *c) {
  int t = c->slot_base + c->ntemps++;
  if (c->ntemps > c->maxtemps) c->maxtemps = c->ntemps;
  return t;
}

/* A function's description for traces and disassembly (owned by the program). */
char *cg_what(const char *fmt, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return mt_strdup(buf);
}

/* ---- expressions ------------------------------------------------------------ */

typedef void (*emit_fn)(cg *c, void *ud);

/* A loop's body begins: `break` statements in it are collected from here. */
static int loop_open(cg *c) {
  int mark = c->nbreaks;
  c->break_mark[c->loop_depth++ & 63] = mark;
  return mark;
}

/* A loop's body ends: jump back to TOP; the exit test J_END and every
 * `break` of the body land after the loop. */
static void loop_close(cg *c, uint32_t top, uint32_t j_end, int mark) {
  op1(c, OP_JUMP, (int32_t)top);
  patch(c, j_end, here(c));
  c->loop_depth--;
  while (c->nbreaks > mark) patch(c, c->breaks[--c->nbreaks], here(c));
}

/* Iterates the set in local SET_SLOT (consumed), binding X; when KEY is given
 * the members come in ascending key order (ties by index).  WHERE filters.
 * BODY runs for each member; `break` jumps to the end. */
static void set_loop(cg *c, int set_slot, int x, node *key, node *where, emit_fn body, void *ud) {
  uint32_t top = here(c);
  op1(c, OP_LOAD, set_slot);
  cg_push_int(c, 0);
  op0(c, OP_EQ);
  uint32_t j_end = jump(c, OP_JUMP_TRUE);
  if (!key) {
    op1(c, OP_LOAD, set_slot);
    op0(c, OP_SET_FIRST);
    op1(c, OP_STORE, x);
  } else {
    /* one member left: it comes next whatever its key, which is not computed */
    op1(c, OP_LOAD, set_slot);
    op0(c, OP_SET_COUNT);
    cg_push_int(c, 1);
    op0(c, OP_EQ);
    uint32_t j_many = jump(c, OP_JUMP_FALSE);
    op1(c, OP_LOAD, set_slot);
    op0(c, OP_SET_FIRST);
    op1(c, OP_STORE, x);
    uint32_t j_single = jump(c, OP_JUMP);
    patch(c, j_many, here(c));
    int scan = cg_temp(c), best = cg_temp(c), bestk = cg_temp(c); /* BY_TAKE: the key next to the member */
    op1(c, OP_LOAD, set_slot);
    op1(c, OP_STORE, scan);
    cg_push_int(c, -1);
    op1(c, OP_STORE, best);
    uint32_t l_scan = here(c);
    op1(c, OP_LOAD, scan);
    cg_push_int(c, 0);
    op0(c, OP_EQ);
    uint32_t j_done = jump(c, OP_JUMP_TRUE);
    op1(c, OP_LOAD, scan);
    op0(c, OP_SET_FIRST);
    op1(c, OP_STORE, x);
    op1(c, OP_LOAD, scan);
    op1(c, OP_LOAD, x);
    op0(c, OP_SET_SINGLE);
    op0(c, OP_SET_DIFF);
    op1(c, OP_STORE, scan);
    cg_expr(c, key);
    op2(c, OP_BY_TAKE, x, best);
    (void)bestk;
    op1(c, OP_JUMP, (int32_t)l_scan);
    patch(c, j_done, here(c));
    op1(c, OP_LOAD, best);
    op1(c, OP_STORE, x);
    patch(c, j_single, here(c));
  }
  op1(c, OP_LOAD, set_slot);
  op1(c, OP_LOAD, x);
  op0(c, OP_SET_SINGLE);
  op0(c, OP_SET_DIFF);
  op1(c, OP_STORE, set_slot);
  if (where) {
    cg_expr(c, where);
    op1(c, OP_JUMP_FALSE, (int32_t)top);
  }
  int mark = loop_open(c);
  body(c, ud);
  loop_close(c, top, j_end, mark);
}

/* Iterates a range, a pile or a set expression ITER, binding local X. */
static void iterate(cg *c, node *iter, int x, node *where, node *key, emit_fn body, void *ud) {
  if (iter->kind == AST_RANGE) {
    /* the step is taken only below HI, so a range ending at the largest
     * integer ends there instead of overflowing past it */
    int hi = cg_temp(c);
    cg_expr(c, iter->kids[0]);
    op1(c, OP_STORE, x);
    cg_expr(c, iter->kids[1]);
    op1(c, OP_STORE, hi);
    op1(c, OP_LOAD, x);
    op1(c, OP_LOAD, hi);
    op0(c, OP_LE);
    uint32_t j_end = jump(c, OP_JUMP_FALSE);
    uint32_t top = here(c);
    uint32_t j_skip = 0;
    if (where) {
      cg_expr(c, where);
      j_skip = jump(c, OP_JUMP_FALSE);
    }
    int mark = loop_open(c);
    body(c, ud);
    if (where) patch(c, j_skip, here(c));
    op1(c, OP_LOAD, x);
    op1(c, OP_LOAD, hi);
    op0(c, OP_GE);
    uint32_t j_last = jump(c, OP_JUMP_TRUE);
    op1(c, OP_LOAD, x);
    cg_push_int(c, 1);
    op0(c, OP_ADD);
    op1(c, OP_STORE, x);
    loop_close(c, top, j_end, mark);
    patch(c, j_last, here(c));
    return;
  }
  if (iter->ty == TY_PILE) { /* top card first */
    int pile = cg_temp(c), i = cg_temp(c);
    cg_expr(c, iter);
    op1(c, OP_STORE, pile);
    op1(c, OP_LOAD, pile);
    op2(c, OP_BUILTIN, BI_pile_size, 1);
    cg_push_int(c, 1);
    op0(c, OP_SUB);
    op1(c, OP_STORE, i);
    uint32_t top = here(c);
    op1(c, OP_LOAD, i);
    cg_push_int(c, 0);
    op0(c, OP_GE);
    uint32_t j_end = jump(c, OP_JUMP_FALSE);
    op1(c, OP_LOAD, pile);
    op1(c, OP_LOAD, i);
    op0(c, OP_PILE_CARD);
    op1(c, OP_STORE, x);
    op1(c, OP_LOAD, i);
    cg_push_int(c, 1);
    op0(c, OP_SUB);
    op1(c, OP_STORE, i);
    if (where) {
      cg_expr(c, where);
      op1(c, OP_JUMP_FALSE, (int32_t)top);
    }
    int mark = loop_open(c);
    body(c, ud);
    loop_close(c, top, j_end, mark);
    return;
  }
  int s = cg_temp(c);
  cg_expr(c, iter);
  op1(c, OP_STORE, s);
  set_loop(c, s, x, key, where, body, ud);
}

/* The type tag of a text hole: its type, or -N for {name/N} (an integer shown divided by N). */
static int hole_type(const node *h) {
  return h->flags > 1 ? -(int)h->flags : h->ty;
}

/* A decision's prompt with {name} holes: their values go to the decision record. */
static void prompt_holes(cg *c, node *str) {
  int types[64];
  int n = 0;
  for (uint32_t i = 0; i < str->nkids && n < 64; i++) {
    cg_expr(c, str->kids[i]);
    types[n++] = hole_type(str->kids[i]);
  }
  op1(c, OP_PROMPT, new_list(c, types, n));
}

typedef struct agg_ud {
  node *n;
  int acc;
  int res;
  int best; /* min_by/max_by: the member with the best key so far */
} agg_ud;

static void agg_body(cg *c, void *ud) {
  agg_ud *a = ud;
  node *n = a->n;
  switch (n->op) {
  case AGG_SUM:
    op1(c, OP_LOAD, a->acc);
    cg_expr(c, n->kids[2]);
    op0(c, OP_ADD);
    op1(c, OP_STORE, a->acc);
    break;
  case AGG_ANY:
  case AGG_ALL: {
    cg_expr(c, n->kids[2]);
    uint32_t j = jump(c, n->op == AGG_ANY ? OP_JUMP_FALSE : OP_JUMP_TRUE);
    cg_push_int(c, n->op == AGG_ANY);
    op1(c, OP_STORE, a->acc);
    patch(c, j, here(c));
    break;
  }
  case AGG_MIN:
  case AGG_MAX:
  case AGG_MINBY:
  case AGG_MAXBY: {
    int v = cg_temp(c);
    cg_expr(c, n->kids[2]);
    op1(c, OP_STORE, v);
    op1(c, OP_LOAD, a->res); /* first value seen? */
    uint32_t j_first = jump(c, OP_JUMP_FALSE);
    op1(c, OP_LOAD, v);
    op1(c, OP_LOAD, a->acc);
    op0(c, n->op == AGG_MIN || n->op == AGG_MINBY ? OP_LT : OP_GT); /* strictly: ties keep the first */
    uint32_t j_keep = jump(c, OP_JUMP_FALSE);
    patch(c, j_first, here(c));
    op1(c, OP_LOAD, v);
    op1(c, OP_STORE, a->acc);
    cg_push_int(c, 1);
    op1(c, OP_STORE, a->res);
    if (n->op == AGG_MINBY || n->op == AGG_MAXBY) {
      op1(c, OP_LOAD, n->slot);
      op1(c, OP_STORE, a->best);
    }
    patch(c, j_keep, here(c));
    c->ntemps--;
    break;
  }
  }
}

static void comp_body(cg *c, void *ud) {
  agg_ud *a = ud;
  op1(c, OP_LOAD, a->acc);
  op1(c, OP_LOAD, a->n->slot);
  op0(c, OP_SET_SINGLE);
  op0(c, OP_SET_UNION);
  op1(c, OP_STORE, a->acc);
}

static void call_args(cg *c, node *n) {
  for (uint32_t i = 0; i < n->nkids; i++) cg_expr(c, n->kids[i]);
}

void cg_expr(cg *c, node *n) {
  mt_span save = c->span;
  c->span = n->span;
  switch (n->kind) {
  case AST_INT: cg_push_int(c, n->ival); break;
  case AST_BOOL: cg_push_int(c, n->ival ? 1 : 0); break;
  case AST_NONE: cg_push_int(c, -1); break;
  case AST_RULEREF: cg_push_int(c, n->ival); break;
  case AST_NAME:
    switch (n->op) {
    case REF_LOCAL: op1(c, OP_LOAD, n->slot); break;
    case REF_CONST: cg_push_int(c, n->ival); break;
    case REF_VALUE: op2(c, OP_CALL, c->p->values[n->sym].dispatch_fn, 0); break;
    case REF_VAR: op1(c, OP_VAR_GET, n->sym); break;
    case REF_BUILTIN: op2(c, OP_BUILTIN, n->sym, 0); break;
    default: cg_push_int(c, 0); break;
    }
    break;
  case AST_CALL:
    switch (n->op) {
    case CALL_VALUE:
      call_args(c, n);
      op2(c, OP_CALL, c->p->values[n->sym].dispatch_fn, (int32_t)n->nkids);
      break;
    case CALL_VAR:
      call_args(c, n);
      op1(c, OP_VAR_GET, n->sym);
      break;
    case CALL_BUILTIN:
      call_args(c, n);
      if (n->sym == BI_count) op0(c, OP_SET_COUNT); /* the hot ones are single instructions */
      else if (n->sym == BI_first) op0(c, OP_SET_FIRST);
      else {
        if (n->sym == BI_random_member) { /* chance as choice names its outcomes by the members' type */
          program *p = c->p;
          if (p->ndraws == p->capdraws) {
            p->capdraws = p->capdraws ? 2 * p->capdraws : 16;
            p->draw_pc = mt_realloc(p->draw_pc, (size_t)p->capdraws * sizeof *p->draw_pc);
            p->draw_ty = mt_realloc(p->draw_ty, (size_t)p->capdraws * sizeof *p->draw_ty);
          }
          p->draw_pc[p->ndraws] = here(c);
          p->draw_ty[p->ndraws++] = n->ty;
        }
        op2(c, OP_BUILTIN, n->sym, (int32_t)n->nkids);
      }
      break;
    case CALL_TOTAL: op1(c, OP_VAR_TOTAL, n->sym); break;
    case CALL_ATTR:
      cg_expr(c, n->kids[0]);
      op2(c, OP_ATTR, (int32_t)n->ival, n->sym);
      break;
    default: cg_push_int(c, 0); break;
    }
    break;
  case AST_UNARY:
    cg_expr(c, n->kids[0]);
    op0(c, n->op == BOP_NOT ? OP_NOT : OP_NEG);
    break;
  case AST_BINARY: {
    int op = n->op;
    if (op == BOP_AND || op == BOP_OR) {
      cg_expr(c, n->kids[0]);
      uint32_t j = jump(c, op == BOP_AND ? OP_AND_JUMP : OP_OR_JUMP);
      cg_expr(c, n->kids[1]);
      patch(c, j, here(c));
      break;
    }
    if (op == BOP_IN) {
      node *r = n->kids[1];
      cg_expr(c, n->kids[0]);
      if (r->kind == AST_RANGE) {
        cg_expr(c, r->kids[0]);
        cg_expr(c, r->kids[1]);
        op0(c, OP_RANGE_HAS);
      } else {
        cg_expr(c, r);
        op0(c, OP_SET_HAS);
      }
      break;
    }
    cg_expr(c, n->kids[0]);
    cg_expr(c, n->kids[1]);
    if ((n->kids[0]->ty & TY_SETBIT) && n->kids[0]->ty != TY_ERROR && (op == '+' || op == '-' || op == '&' || op == '|')) {
      if (n->flags == 1) op0(c, OP_SET_SINGLE);
      op0(c, op == '-' ? OP_SET_DIFF : op == '&' ? OP_SET_INTER : OP_SET_UNION);
      break;
    }
    switch (op) {
    case '+': op0(c, OP_ADD); break;
    case '-': op0(c, OP_SUB); break;
    case '*': op0(c, OP_MUL); break;
    case '/': op0(c, OP_DIV); break;
    case '%': op0(c, OP_MOD); break;
    case BOP_EQ: op0(c, OP_EQ); break;
    case BOP_NE: op0(c, OP_NE); break;
    case '<': op0(c, OP_LT); break;
    case '>': op0(c, OP_GT); break;
    case BOP_LE: op0(c, OP_LE); break;
    case BOP_GE: op0(c, OP_GE); break;
    default: break;
    }
    break;
  }
  case AST_COND: {
    cg_expr(c, n->kids[0]);
    uint32_t j_else = jump(c, OP_JUMP_FALSE);
    cg_expr(c, n->kids[1]);
    uint32_t j_end = jump(c, OP_JUMP);
    patch(c, j_else, here(c));
    cg_expr(c, n->kids[2]);
    patch(c, j_end, here(c));
    break;
  }
  case AST_SETLIT:
    cg_push_int(c, 0);
    for (uint32_t i = 0; i < n->nkids; i++) {
      cg_expr(c, n->kids[i]);
      op0(c, OP_SET_SINGLE);
      op0(c, OP_SET_UNION);
    }
    break;
  case AST_COMPREHENSION: {
    agg_ud a = {n, cg_temp(c), 0, -1};
    cg_push_int(c, 0);
    op1(c, OP_STORE, a.acc);
    iterate(c, n->kids[0], n->slot, n->kids[1], NULL, comp_body, &a);
    op1(c, OP_LOAD, a.acc);
    break;
  }
  case AST_AGGREGATE: {
    bool by = n->op == AGG_MINBY || n->op == AGG_MAXBY;
    agg_ud a = {n, cg_temp(c), cg_temp(c), by ? cg_temp(c) : -1};
    cg_push_int(c, n->op == AGG_ALL ? 1 : 0);
    op1(c, OP_STORE, a.acc);
    cg_push_int(c, 0);
    op1(c, OP_STORE, a.res);
    if (by) {
      cg_push_int(c, -1); /* none when no member qualifies */
      op1(c, OP_STORE, a.best);
    }
    iterate(c, n->kids[0], n->slot, n->kids[1], NULL, agg_body, &a);
    op1(c, OP_LOAD, by ? a.best : a.acc);
    break;
  }
  case AST_CAN:
    cg_expr(c, n->kids[0]);
    op1(c, OP_CAN, n->sym);
    break;
  case AST_ASK: {
    node *from = n->kids[2];
    prompt_holes(c, n->kids[1]);
    cg_expr(c, n->kids[0]);
    int prompt = intern(c, n->kids[1]->str);
    if (from->kind == AST_RANGE) {
      cg_expr(c, from->kids[0]);
      cg_expr(c, from->kids[1]);
      op1(c, OP_ASK_RANGE, prompt);
    } else {
      cg_expr(c, from);
      op2(c, OP_ASK, from->ty & ~TY_SETBIT, prompt);
    }
    break;
  }
  default:
    cg_push_int(c, 0);
    break;
  }
  c->span = save;
}

/* ---- statements ---------------------------------------------------------------- */

static void stmt(cg *c, node *s);

static void block_body(cg *c, void *ud) { cg_block(c, ud); }

static void secret_body(cg *c, void *ud) { cg_block(c, ud); }

static void stmt(cg *c, node *s) {
  mt_span save = c->span;
  c->span = s->span;
  program *p = c->p;
  switch (s->kind) {
  case AST_LET:
    cg_expr(c, s->kids[0]);
    op1(c, OP_STORE, s->slot);
    break;
  case AST_ASSIGN:
    if (s->op == 1) {
      cg_expr(c, s->kids[1]);
      op1(c, OP_STORE, s->slot);
      break;
    }
    call_args(c, s->kids[0]);
    cg_expr(c, s->kids[1]);
    op1(c, OP_VAR_SET, s->sym);
    break;
  case AST_IF: {
    cg_expr(c, s->kids[0]);
    uint32_t j_else = jump(c, OP_JUMP_FALSE);
    cg_block(c, s->kids[1]);
    node *e = ast_kid(s, 2);
    if (e) {
      uint32_t j_end = jump(c, OP_JUMP);
      patch(c, j_else, here(c));
      if (e->kind == AST_IF) stmt(c, e);
      else cg_block(c, e);
      patch(c, j_end, here(c));
    } else {
      patch(c, j_else, here(c));
    }
    break;
  }
  case AST_FOR: {
    int keep = c->ntemps;
    iterate(c, s->kids[0], s->slot, s->kids[1], s->kids[2], block_body, s->kids[3]);
    c->ntemps = keep;
    break;
  }
  case AST_BREAK: {
    uint32_t j = jump(c, OP_JUMP);
    VEC_PUSH(c->breaks, c->nbreaks, c->capbreaks, j);
    break;
  }
  case AST_SIGNAL:
    for (uint32_t i = 0; i < s->nkids; i++) cg_expr(c, s->kids[i]);
    op2(c, OP_CALL, p->events[s->sym].dispatch_fn, (int32_t)s->nkids);
    op0(c, OP_POP);
    break;
  case AST_RUN:
    if (s->op == RUN_PROC) {
      for (uint32_t i = 0; i < s->nkids; i++) cg_expr(c, s->kids[i]);
      op2(c, OP_CALL, p->procs[s->sym].fn, (int32_t)s->nkids);
      op0(c, OP_POP);
    } else if (s->op == RUN_RULE && p->rules[s->sym].body_fn >= 0) {
      bool phase = p->rules[s->sym].form == RF_PHASE;
      uint32_t begin_at = phase ? op2(c, OP_PHASE_BEGIN, s->sym, 0) : 0;
      op2(c, OP_CALL, p->rules[s->sym].body_fn, 0);
      op0(c, OP_POP);
      if (phase) {
        op1(c, OP_PHASE_END, s->sym);
        int32_t after = (int32_t)here(c);
        memcpy(c->p->code + begin_at + 5, &after, 4);
      }
    }
    break;
  case AST_MAY: {
    prompt_holes(c, s->kids[1]);
    cg_expr(c, s->kids[0]);
    op1(c, OP_MAY, intern(c, s->kids[1]->str));
    uint32_t j = jump(c, OP_JUMP_FALSE);
    cg_block(c, s->kids[2]);
    patch(c, j, here(c));
    break;
  }
  case AST_ACT:
    cg_expr(c, s->kids[0]);
    op1(c, OP_ACT, s->sym);
    op0(c, OP_POP);
    break;
  case AST_SECRET: {
    int keep = c->ntemps;
    int set = cg_temp(c);
    cg_expr(c, s->kids[0]);
    op1(c, OP_STORE, set);
    op1(c, OP_SECRET, 1);
    set_loop(c, set, s->slot, NULL, NULL, secret_body, s->kids[1]);
    op1(c, OP_SECRET, 0);
    c->ntemps = keep;
    break;
  }
  case AST_CANCEL:
    cg_expr(c, s->kids[0]);
    op1(c, OP_CANCEL, (int32_t)s->ival);
    break;
  case AST_LOG: {
    node *str = s->kids[0];
    int types[64];
    int n = 0;
    if (s->nkids > 1) { /* the audience first, under the holes */
      cg_expr(c, s->kids[1]);
      if (s->kids[1]->ty == TY_FACTION) op0(c, OP_SET_SINGLE);
    }
    for (uint32_t i = 0; i < str->nkids && n < 64; i++) {
      cg_expr(c, str->kids[i]);
      types[n++] = hole_type(str->kids[i]);
    }
    op2(c, s->nkids > 1 ? OP_LOG_TO : OP_LOG, intern(c, str->str), new_list(c, types, n));
    break;
  }
  case AST_FINISH: op0(c, OP_FINISH); break;
  case AST_EXPRSTMT:
    cg_expr(c, s->kids[0]);
    op0(c, OP_POP);
    break;
  default: break;
  }
  c->span = save;
}

void cg_block(cg *c, node *b) {
  for (uint32_t i = 0; b && i < b->nkids; i++)
    if (b->kids[i]) stmt(c, b->kids[i]);
}

static bool is_member(const node *n) {
  return n->kind == AST_VALUE || n->kind == AST_ACTION || n->kind == AST_CHECK || n->kind == AST_TRIGGER || n->kind == AST_VERB ||
         n->kind == AST_PROC || n->kind == AST_INVARIANT;
}

/* A rule's body: its statements and, in order, its nested rules. */
static void rule_body(cg *c, int r) {
  program *p = c->p;
  rule_rec *rr = &p->rules[r];
  node *items = rr->items;
  cg_begin(c, rr->body_fn, items ? items->slot : 0, rr->span);
  for (uint32_t i = 0; items && i < items->nkids; i++) {
    node *it = items->kids[i];
    if (!it || is_member(it)) continue;
    if (it->kind == AST_RULE) {
      int k = -1;
      for (int j = 0; j < p->nrules; j++)
        if (p->rules[j].ast == it) k = j;
      if (k < 0 || p->rules[k].disabled || p->rules[k].body_fn < 0) continue;
      c->span = it->span;
      op1(c, OP_RULE_ACTIVE, k);
      uint32_t j = jump(c, OP_JUMP_FALSE);
      bool phase = p->rules[k].form == RF_PHASE;
      uint32_t begin_at = phase ? op2(c, OP_PHASE_BEGIN, k, 0) : 0;
      op2(c, OP_CALL, p->rules[k].body_fn, 0);
      op0(c, OP_POP);
      if (phase) {
        op1(c, OP_PHASE_END, k);
        int32_t after = (int32_t)here(c);
        memcpy(c->p->code + begin_at + 5, &after, 4);
      }
      patch(c, j, here(c));
      continue;
    }
    stmt(c, it);
  }
  op0(c, OP_RET_VOID);
  cg_end(c);
}

static bool rule_runs(const rule_rec *rr) {
  if (rr->disabled) return false;
  if (rr->form == RF_PHASE || rr->form == RF_STEP || rr->form == RF_GAME) return true;
  for (uint32_t i = 0; rr->items && i < rr->items->nkids; i++) {
    node *it = rr->items->kids[i];
    if (it && !is_member(it)) return true;
  }
  return false;
}

/* ---- values --------------------------------------------------------------------- */

void cg_load_params(cg *c, int n) {
  for (int i = 0; i < n; i++) op1(c, OP_LOAD, i);
}

static void value_funcs(cg *c, value_rec *v) {
  program *p = c->p;
  for (int i = 0; i < v->ndefs; i++) {
    value_def *d = &v->defs[i];
    if (p->rules[d->rule].disabled) continue;
    node *ast = d->ast;
    d->match_fn = -1;
    if (d->guarded) {
      d->match_fn = cg_new_func(c, cg_what("match of value %s in rule %s", v->name, p->rules[d->rule].id), d->rule,
                             FN_PURE, v->nparams);
      cg_begin(c, d->match_fn, ast->slot, ast->span);
      uint32_t fails[MAX_PARAMS + 1];
      int nf = 0;
      node *params = ast->kids[0];
      for (uint32_t k = 0; k < params->nkids; k++) {
        node *pa = params->kids[k];
        if (pa->flags != 1) continue;
        c->span = pa->span;
        op1(c, OP_LOAD, (int32_t)k);
        cg_expr(c, pa);
        op0(c, OP_EQ);
        fails[nf++] = jump(c, OP_JUMP_FALSE);
      }
      if (ast->kids[2]) {
        cg_expr(c, ast->kids[2]);
        fails[nf++] = jump(c, OP_JUMP_FALSE);
      }
      cg_push_int(c, 1);
      op0(c, OP_RET);
      for (int k = 0; k < nf; k++) patch(c, fails[k], here(c));
      cg_push_int(c, 0);
      op0(c, OP_RET);
      cg_end(c);
    }
    d->body_fn = cg_new_func(c, cg_what("value %s in rule %s", v->name, p->rules[d->rule].id), d->rule, FN_PURE,
                          v->nparams);
    cg_begin(c, d->body_fn, ast->slot, ast->kids[3]->span);
    cg_expr(c, ast->kids[3]);
    op0(c, OP_RET);
    cg_end(c);
  }
}

static void value_dispatch(cg *c, value_rec *v) {
  program *p = c->p;
  cg_begin(c, v->dispatch_fn, v->nparams, v->span);
  for (int i = 0; i < v->ndefs; i++) {
    value_def *d = &v->defs[i];
    rule_rec *r = &p->rules[d->rule];
    if (r->disabled) continue;
    c->span = d->ast->span;
    op1(c, OP_RULE_ACTIVE, d->rule);
    uint32_t j1 = jump(c, OP_JUMP_FALSE), j2 = 0;
    if (d->match_fn >= 0) {
      cg_load_params(c, v->nparams);
      op2(c, OP_CALL, d->match_fn, v->nparams);
      j2 = jump(c, OP_JUMP_FALSE);
    }
    /* another definition at the same level, unrelated by supersedes, that also
     * applies is a conflict: checked only for guarded ones (the others were
     * compared statically) */
    for (int k = i + 1; k < v->ndefs && !v->ordered[r->level]; k++) {
      value_def *e = &v->defs[k];
      rule_rec *re = &p->rules[e->rule];
      if (re->disabled || re->level != r->level || e->rule == d->rule) continue;
      if (sema_supersedes(p, d->rule, e->rule) ||
          sema_supersedes(p, e->rule, d->rule))
        continue;
      op1(c, OP_RULE_ACTIVE, e->rule);
      uint32_t k1 = jump(c, OP_JUMP_FALSE), k2 = 0;
      if (e->match_fn >= 0) {
        cg_load_params(c, v->nparams);
        op2(c, OP_CALL, e->match_fn, v->nparams);
        k2 = jump(c, OP_JUMP_FALSE);
      }
      op2(c, OP_CONFLICT, d->rule, e->rule);
      patch(c, k1, here(c));
      if (k2) patch(c, k2, here(c));
    }
    cg_load_params(c, v->nparams);
    op2(c, OP_CALL, d->body_fn, v->nparams);
    op0(c, OP_RET);
    patch(c, j1, here(c));
    if (j2) patch(c, j2, here(c));
  }
  op1(c, OP_NO_DEF, (int32_t)(v - p->values));
  cg_push_int(c, 0);
  op0(c, OP_RET);
  cg_end(c);
}

/* ---- events ----------------------------------------------------------------------- */

/* A trigger fires when its rule belongs to the game and is not cancelled for a
 * phase, turn or game (tested before its where-clause, which may read the
 * rule's own values), its where-clause holds and the rule is in force; a
 * pending one-use cancellation is spent here. */
static void try_trigger(cg *c, trigger_rec *t, int nparams) {
  c->span = t->ast->span;
  op1(c, OP_RULE_LIVE, t->rule);
  uint32_t j1 = jump(c, OP_JUMP_FALSE), j2 = 0;
  if (t->where_fn >= 0) {
    cg_load_params(c, nparams);
    op2(c, OP_CALL, t->where_fn, nparams);
    j2 = jump(c, OP_JUMP_FALSE);
  }
  op1(c, OP_RULE_TRY, t->rule);
  uint32_t j3 = jump(c, OP_JUMP_FALSE);
  cg_load_params(c, nparams);
  op2(c, OP_CALL, t->body_fn, nparams);
  op0(c, OP_POP);
  patch(c, j1, here(c));
  if (j2) patch(c, j2, here(c));
  patch(c, j3, here(c));
}

typedef struct timing_ud {
  int event, timing, f, nparams;
} timing_ud;

static void owned_triggers(cg *c, void *ud) {
  timing_ud *u = ud;
  program *p = c->p;
  for (int i = 0; i < p->ntriggers; i++) {
    trigger_rec *t = &p->triggers[i];
    if (t->event != u->event || t->timing != u->timing || t->owner < 0 || p->rules[t->rule].disabled) continue;
    op1(c, OP_LOAD, u->f);
    cg_push_int(c, t->owner);
    op0(c, OP_EQ);
    uint32_t j = jump(c, OP_JUMP_FALSE);
    try_trigger(c, t, u->nparams);
    patch(c, j, here(c));
  }
}

static void timing_group(cg *c, int ev, int timing, int nparams) {
  program *p = c->p;
  uint64_t owners = 0; /* the factions owning a trigger here: only they are ordered */
  for (int i = 0; i < p->ntriggers; i++) {
    trigger_rec *t = &p->triggers[i];
    if (t->event != ev || t->timing != timing || p->rules[t->rule].disabled) continue;
    if (t->owner < 0 || p->order_value < 0) try_trigger(c, t, nparams);
    else owners |= 1ull << t->owner;
  }
  if (!owners) return;
  /* faction-owned triggers: in the rules' trigger order */
  int set = cg_temp(c), f = cg_temp(c);
  op2(c, OP_BUILTIN, BI_factions, 0);
  cg_push_int(c, (int64_t)owners);
  op0(c, OP_SET_INTER);
  op1(c, OP_STORE, set);
  node key = {0};
  node arg = {0};
  node *args[1] = {&arg};
  key.kind = AST_CALL;
  key.op = CALL_VALUE;
  key.sym = p->order_value;
  key.kids = args;
  key.nkids = 1;
  key.span = c->span;
  arg.kind = AST_NAME;
  arg.op = REF_LOCAL;
  arg.slot = f;
  arg.span = c->span;
  timing_ud u = {ev, timing, f, nparams};
  set_loop(c, set, f, &key, NULL, owned_triggers, &u);
}

static void event_dispatch(cg *c, int ev) {
  program *p = c->p;
  event_rec *e = &p->events[ev];
  cg_begin(c, e->dispatch_fn, e->nparams, e->span);
  timing_group(c, ev, TRIG_BEFORE, e->nparams);
  /* instead-of triggers: the first applicable in precedence order */
  int order[512];
  int n = 0;
  for (int i = 0; i < p->ntriggers && n < 512; i++)
    if (p->triggers[i].event == ev && p->triggers[i].timing == TRIG_INSTEAD && !p->rules[p->triggers[i].rule].disabled)
      order[n++] = i;
  for (int a = 0; a < n; a++) /* precedence: superseding first, then higher level */
    for (int b = a + 1; b < n; b++) {
      int ra = p->triggers[order[a]].rule, rb = p->triggers[order[b]].rule;
      bool swap = sema_supersedes(p, rb, ra) ||
                  (!sema_supersedes(p, ra, rb) && p->rules[rb].level > p->rules[ra].level);
      if (swap) {
        int t = order[a];
        order[a] = order[b];
        order[b] = t;
      }
    }
  uint32_t done[512];
  int nd = 0;
  for (int k = 0; k < n; k++) {
    trigger_rec *t = &p->triggers[order[k]];
    c->span = t->ast->span;
    op1(c, OP_RULE_LIVE, t->rule);
    uint32_t j1 = jump(c, OP_JUMP_FALSE), j2 = 0;
    if (t->where_fn >= 0) {
      cg_load_params(c, e->nparams);
      op2(c, OP_CALL, t->where_fn, e->nparams);
      j2 = jump(c, OP_JUMP_FALSE);
    }
    op1(c, OP_RULE_TRY, t->rule);
    uint32_t j3 = jump(c, OP_JUMP_FALSE);
    cg_load_params(c, e->nparams);
    op2(c, OP_CALL, t->body_fn, e->nparams);
    op0(c, OP_POP);
    done[nd++] = jump(c, OP_JUMP);
    patch(c, j1, here(c));
    if (j2) patch(c, j2, here(c));
    patch(c, j3, here(c));
  }
  timing_group(c, ev, TRIG_ON, e->nparams);
  for (int k = 0; k < nd; k++) patch(c, done[k], here(c));
  timing_group(c, ev, TRIG_AFTER, e->nparams);
  cg_push_int(c, 0);
  op0(c, OP_RET);
  cg_end(c);
}

bool cg_compile(program *p, diag *d) {
  int before = diag_errors(d);
  cg c = {0};
  c.p = p;
  c.d = d;
  /* function indices first: calls may go forward */
  for (int r = 0; r < p->nrules; r++)
    if (rule_runs(&p->rules[r]))
      p->rules[r].body_fn = cg_new_func(&c, cg_what("rule %s%s", p->rules[r].id, ""), r, FN_EFFECT, 0);
  for (int i = 0; i < p->nvalues; i++) {
    p->values[i].dispatch_fn = cg_new_func(&c, cg_what("value %s%s", p->values[i].name, ""), p->values[i].base_rule,
                                        FN_PURE, p->values[i].nparams);
    p->funcs[p->values[i].dispatch_fn].memo = true;
  }
  for (int i = 0; i < p->nevents; i++)
    p->events[i].dispatch_fn = cg_new_func(&c, cg_what("event %s%s", p->events[i].name, ""), -1, FN_EFFECT,
                                        p->events[i].nparams);
  for (int i = 0; i < p->nprocs; i++)
    p->procs[i].fn = cg_new_func(&c, cg_what("procedure %s%s", p->procs[i].name, ""), p->procs[i].rule, FN_EFFECT,
                              p->procs[i].nparams);
  for (int i = 0; i < p->nactions; i++)
    p->actions[i].effect_fn = cg_new_func(&c, cg_what("effect of action %s%s", p->actions[i].name, ""),
                                       p->actions[i].rule, FN_EFFECT, p->actions[i].nparams + 1);
  for (int i = 0; i < p->ntriggers; i++) {
    trigger_rec *t = &p->triggers[i];
    if (p->rules[t->rule].disabled) continue;
    static const char *const tn[] = {"before", "after", "instead of", "on"};
    int np = p->events[t->event].nparams;
    if (t->ast->kids[1]) {
      t->where_fn = cg_new_func(&c, cg_what("where of %s %s", tn[t->timing], t->ast->name), t->rule, FN_PURE, np);
      cg_begin(&c, t->where_fn, t->ast->slot, t->ast->kids[1]->span);
      cg_expr(&c, t->ast->kids[1]);
      op0(&c, OP_RET);
      cg_end(&c);
    }
    t->body_fn = cg_new_func(&c, cg_what("trigger %s %s", tn[t->timing], t->ast->name), t->rule, FN_EFFECT, np);
    cg_begin(&c, t->body_fn, t->ast->slot, t->ast->span);
    cg_block(&c, t->ast->kids[2]);
    op0(&c, OP_RET_VOID);
    cg_end(&c);
  }
  for (int i = 0; i < p->nvalues; i++) value_funcs(&c, &p->values[i]);
  for (int i = 0; i < p->nvalues; i++) value_dispatch(&c, &p->values[i]);
  for (int i = 0; i < p->nevents; i++) event_dispatch(&c, i);
  for (int i = 0; i < p->nactions; i++) cg_action_funcs(&c, i);
  for (int i = 0; i < p->nprocs; i++) {
    proc_rec *pr = &p->procs[i];
    cg_begin(&c, pr->fn, pr->ast->slot, pr->ast->span);
    cg_block(&c, pr->ast->kids[1]);
    op0(&c, OP_RET_VOID);
    cg_end(&c);
  }
  for (int r = 0; r < p->nrules; r++)
    if (p->rules[r].body_fn >= 0) rule_body(&c, r);
  for (int i = 0; i < p->nvars; i++) {
    var_rec *vr = &p->vars[i];
    if (!vr->init_computed) continue;
    vr->init_fn = cg_new_func(&c, cg_what("initial value of variable %s", vr->name), -1, FN_PURE, 0);
    cg_begin(&c, vr->init_fn, vr->init_nlocals, vr->init->span);
    cg_expr(&c, vr->init);
    op0(&c, OP_RET);
    cg_end(&c);
  }
  for (int i = 0; i < p->ninvariants; i++) {
    invariant_rec *iv = &p->invariants[i];
    iv->fn = cg_new_func(&c, cg_what("invariant of rule %s", p->rules[iv->rule].id), iv->rule, FN_PURE, 0);
    cg_begin(&c, iv->fn, iv->nlocals, iv->cond->span);
    cg_expr(&c, iv->cond);
    op0(&c, OP_RET);
    cg_end(&c);
    if (!iv->repair) continue;
    iv->repair_fn = cg_new_func(&c, cg_what("repair of an invariant of rule %s", p->rules[iv->rule].id), iv->rule, FN_EFFECT, 0);
    cg_begin(&c, iv->repair_fn, iv->repair_nlocals, iv->repair->span);
    cg_block(&c, iv->repair);
    op0(&c, OP_RET_VOID);
    cg_end(&c);
  }
  mt_free(c.breaks);
  return diag_errors(d) == before;
}

/* ---- mapping and disassembly --------------------------------------------------------- */

mt_span cg_span_at(const program *p, uint32_t pc) {
  uint32_t lo = 0, hi = p->nspans;
  if (!hi) return (mt_span){DIAG_NOFILE, 0, 0};
  while (hi - lo > 1) {
    uint32_t mid = (lo + hi) / 2;
    if (p->spans[mid].pc <= pc) lo = mid;
    else hi = mid;
  }
  return p->spans[lo].span;
}

int cg_func_at(const program *p, uint32_t pc) {
  for (int i = 0; i < p->nfuncs; i++)
    if (pc >= p->funcs[i].start && pc < p->funcs[i].end) return i;
  return -1;
}

static void disasm_fn(const program *p, const diag *d, int fn, strbuf *out) {
  const func_rec *f = &p->funcs[fn];
  sb_printf(out, "function %d: %s (rule %s, %d params, %d locals, %s)\n", fn, f->what,
            f->rule >= 0 ? p->rules[f->rule].id : "-", f->nparams, f->nlocals, f->kind == FN_PURE ? "pure" : "effects");
  uint32_t last_line = 0, last_file = DIAG_NOFILE, fused_to = 0;
  for (uint32_t pc = f->start; pc < f->end;) {
    mt_span sp = cg_span_at(p, pc);
    if (sp.file != DIAG_NOFILE) {
      uint32_t line, col;
      diag_linecol(d, sp.file, sp.start, &line, &col);
      if (line != last_line || sp.file != last_file) {
        size_t len;
        const char *text = diag_source_text(d, sp.file, &len);
        uint32_t ls = diag_offset(d, sp.file, line, 1), le = ls;
        while (le < len && text[le] != '\n') le++;
        sb_printf(out, "  ; %s:%u: %.*s\n", diag_source_name(d, sp.file), line, (int)(le - ls), text + ls);
        last_line = line;
        last_file = sp.file;
      }
    }
    uint8_t o = p->code[pc];
    const op_info *oi = &op_table[o < OP__COUNT ? o : 0];
    /* the instructions a superinstruction runs along with its first (fuse.c) are marked `|` */
    sb_printf(out, "  %6u  %s%-*s", pc, pc < fused_to ? "| " : "", pc < fused_to ? 11 : 13, oi->name);
    if (cg_fused_len(o)) fused_to = pc + cg_fused_len(o);
    int32_t a = 0, b = 0;
    if (oi->operands >= 1) memcpy(&a, p->code + pc + 1, 4);
    if (oi->operands >= 2) memcpy(&b, p->code + pc + 5, 4);
    if (oi->operands >= 1) sb_printf(out, " %d", a);
    if (oi->operands >= 2) sb_printf(out, " %d", b);
    if ((o == OP_CALL) && a >= 0 && a < p->nfuncs) sb_printf(out, "    ; %s", p->funcs[a].what);
    if ((o == OP_RULE_ACTIVE || o == OP_RULE_TRY || o == OP_F_RULE_JF) && a >= 0 && a < p->nrules)
      sb_printf(out, "    ; %s", p->rules[a].id);
    if (o == OP_BUILTIN && a >= 0 && a < BI__COUNT) sb_printf(out, "    ; %s", sema_builtins[a].name);
    if ((o == OP_VAR_GET || o == OP_VAR_SET) && a >= 0 && a < p->nvars) sb_printf(out, "    ; %s", p->vars[a].name);
    sb_putc(out, '\n');
    pc += 1 + 4u * (uint32_t)oi->operands;
  }
}

void cg_disasm(const program *p, const diag *d, int rule, strbuf *out) {
  for (int i = 0; i < p->nfuncs; i++)
    if (p->funcs[i].rule == rule && p->funcs[i].end > p->funcs[i].start) disasm_fn(p, d, i, out);
}

cg_mark cg_get_mark(const program *p) {
  cg_mark m = {p->nfuncs, p->nconsts, p->nstrings, p->nlists, p->ncode, p->nspans};
  return m;
}

void cg_rollback(program *p, const cg_mark *m) {
  while (p->nfuncs > m->nfuncs) mt_free((void *)(uintptr_t)p->funcs[--p->nfuncs].what);
  while (p->nlists > m->nlists) mt_free(p->lists[--p->nlists]);
  p->nconsts = m->nconsts;
  p->ncode = m->ncode;
  p->nspans = m->nspans;
  if (p->nstrings > m->nstrings) { /* drop them from the index: rebuild it */
    p->nstrings = m->nstrings;
    for (int i = 0; i < p->capstrindex; i++) p->strindex[i] = -1;
    for (int i = 0; i < p->nstrings; i++) {
      uint32_t h = str_slot(p, p->strings[i]);
      while (p->strindex[h] >= 0) h = (h + 1) & (uint32_t)(p->capstrindex - 1);
      p->strindex[h] = i;
    }
  }
}

/* Compiles one checked console expression into a new pure function. */
int cg_compile_expr(program *p, diag *d, node *e, int base) {
  cg c = {0};
  c.p = p;
  c.d = d;
  int fn = cg_new_func(&c, cg_what("console query"), -1, FN_PURE, 0);
  cg_begin(&c, fn, base, e->span);
  cg_expr(&c, e);
  op0(&c, OP_RET);
  cg_end(&c);
  mt_free(c.breaks);
  return fn;
}
