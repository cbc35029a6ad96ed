/* native.c -- the native tier: a rule set's pure functions (values, guards,
 * invariants, where-clauses) translated to C, built by the system compiler
 * into a shared object, cached by the rule set's code hash, and called by the
 * VM in place of its bytecode (`--native`).
 *
 * The translation is mechanical, instruction by instruction, from the
 * verified bytecode: a C local array is the stack, jumps are gotos, and
 * everything that touches the game goes through a table of VM functions
 * (vm.c: the same checks, the same errors).  A function is translated only
 * if every instruction in it is one this file knows and every function it
 * calls is translated too; the others stay bytecode.  The work budget is
 * kept: each straight run of instructions charges its length on entry, so a
 * runaway evaluation stops as it would in the VM (at the start of the run it
 * could not pay for, not at its exact instruction).  Memoisation and the
 * value cache are the VM's; native calls simply compute.  The cache of built
 * objects, and why one may be trusted, is native_cache.c.  Nothing here knows
 * a rule. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <string.h>

#include "check.h"
#include "native_int.h"
#include "opcodes.h"

/* Bump when the translation changes: cached objects of another generation are not reused. */
#define NATIVE_GENERATION 3

/* The generated file's view of the VM (kept in step with native_api in vm.h). */
static const char prelude[] =
    "#include <stdint.h>\n"
    "typedef struct napi {\n"
    "  int64_t (*var_get)(void *v, int var, const int64_t *args, int *err, int64_t *errv);\n"
    "  int64_t (*var_total)(void *v, int var);\n"
    "  int64_t (*builtin)(void *v, int id, const int64_t *args, int *err, int64_t *errv);\n"
    "  int (*rule_active)(void *v, int r);\n"
    "  int (*rule_live)(void *v, int r);\n"
    "  int64_t (*attr)(void *v, int tab, int at, int64_t x, int *err);\n"
    "  int64_t (*pile_card)(void *v, int64_t pile, int64_t pos);\n"
    "  void (*guard)(void *v, int id, int64_t ok);\n"
    "  int (*guard_result)(void *v);\n"
    "  void (*fail)(void *v, int code, uint32_t pc, int a, int b, int64_t x);\n"
    "  int (*memo_get)(void *v, int fn, const int64_t *args, int n, int64_t *out, int *slot);\n"
    "  void (*memo_put)(void *v, int fn, const int64_t *args, int n, int64_t x, int slot);\n"
    "} napi;\n"
    "typedef struct nctx { const napi *api; void *v; int64_t left; int depth, maxdepth; const int64_t *k; } nctx;\n"
    "typedef int (*nfn)(nctx *c, const int64_t *a, int64_t *out);\n"
    "#define FAIL(code, pc, a, b, x) do { c->api->fail(c->v, code, pc, a, b, x); c->depth--; return 0; } while (0)\n"
    "#define PAY(n, pc) do { if ((c->left -= (n)) < 0) FAIL(%d, pc, 0, 0, 0); } while (0)\n";

static int32_t word(const program *p, uint32_t pc, int k) {
  int32_t x;
  memcpy(&x, p->code + pc + 1 + 4 * k, 4);
  return x;
}

static bool supported(const program *p, uint8_t o, int32_t a) {
  switch ((opcode)o) {
  case OP_PUSH_INT: case OP_PUSH_K: case OP_POP: case OP_LOAD: case OP_STORE: case OP_ADD: case OP_SUB: case OP_MUL:
  case OP_DIV: case OP_MOD: case OP_NEG: case OP_NOT: case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT:
  case OP_GE: case OP_SET_UNION: case OP_SET_DIFF: case OP_SET_INTER: case OP_SET_HAS: case OP_SET_SINGLE:
  case OP_SET_COUNT: case OP_SET_FIRST: case OP_RANGE_HAS: case OP_JUMP: case OP_JUMP_FALSE: case OP_JUMP_TRUE:
  case OP_AND_JUMP: case OP_OR_JUMP: case OP_CALL: case OP_RET: case OP_VAR_GET: case OP_VAR_TOTAL: case OP_ATTR:
  case OP_PILE_CARD: case OP_RULE_ACTIVE: case OP_RULE_LIVE: case OP_NO_DEF: case OP_CONFLICT: case OP_GUARD:
  case OP_GUARD_RESULT: case OP_BY_TAKE:
    return true;
  case OP_BUILTIN: return a >= 0 && a < BI__COUNT && !sema_builtins[a].effect;
  default: (void)p; return false;
  }
}

static bool is_jump(uint8_t o) {
  return o == OP_JUMP || o == OP_JUMP_FALSE || o == OP_JUMP_TRUE || o == OP_AND_JUMP || o == OP_OR_JUMP;
}

/* The deepest the operand stack of function F gets (locals apart), or -1 if
 * the walk finds it inconsistent: the translation's stack is a C array of
 * NATIVE_STACK values, so a deeper function stays bytecode (where the VM's own
 * check reports a full stack). */
#define NATIVE_STACK 256
static int max_depth(const program *p, int f) {
  const func_rec *fr = &p->funcs[f];
  uint32_t len = fr->end - fr->start;
  int *depth = mt_alloc(((size_t)len + 1) * sizeof *depth), best = 0;
  for (uint32_t i = 0; i <= len; i++) depth[i] = -1;
  uint32_t *work = mt_alloc(((size_t)len + 1) * sizeof *work);
  size_t nw = 0;
  depth[0] = 0;
  work[nw++] = fr->start;
  while (nw > 0 && best >= 0) {
    uint32_t pc = work[--nw];
    int d = depth[pc - fr->start];
    uint8_t o = cg_plain_op(p->code[pc]);
    uint32_t next = pc + 1 + 4u * (uint32_t)op_table[o].operands;
    int32_t a = op_table[o].operands > 0 ? word(p, pc, 0) : 0, b = op_table[o].operands > 1 ? word(p, pc, 1) : 0;
    int pops = op_table[o].pops, pushes = op_table[o].pushes;
    if (o == OP_CALL || o == OP_BUILTIN) pops = b;
    if (o == OP_VAR_GET) pops = a >= 0 && a < p->nvars ? p->vars[a].nparams : 0;
    int after = d - pops + pushes, taken = d; /* AND_JUMP/OR_JUMP keep the value on the jump */
    if (o == OP_AND_JUMP || o == OP_OR_JUMP) after = d - 1;
    if (o == OP_JUMP_FALSE || o == OP_JUMP_TRUE) taken = d - 1;
    if (d - pops < 0 || after < 0) {
      best = -1;
      break;
    }
    if (after > best) best = after;
    bool falls = o != OP_JUMP && o != OP_RET && o != OP_NO_DEF && o != OP_CONFLICT;
    if (is_jump(o) && a >= (int32_t)fr->start && (uint32_t)a < fr->end && depth[(uint32_t)a - fr->start] < 0) {
      depth[(uint32_t)a - fr->start] = o == OP_JUMP ? d : taken;
      work[nw++] = (uint32_t)a;
    }
    if (falls && next < fr->end && depth[next - fr->start] < 0) {
      depth[next - fr->start] = after;
      work[nw++] = next;
    }
  }
  mt_free(depth);
  mt_free(work);
  return best;
}

/* Which functions can be translated: pure, every instruction known, a stack
 * that fits, every callee translated (to a fixpoint). */
static bool *translatable(const program *p) {
  int n = p->nverified < p->nfuncs ? p->nverified : p->nfuncs;
  bool *ok = mt_calloc((size_t)p->nfuncs + 1, sizeof *ok);
  for (int f = 0; f < n; f++) {
    const func_rec *fr = &p->funcs[f];
    ok[f] = fr->kind == FN_PURE && fr->end > fr->start;
    for (uint32_t pc = fr->start; pc < fr->end && ok[f];) {
      uint8_t o = cg_plain_op(p->code[pc]);
      ok[f] = o < OP__COUNT && supported(p, o, op_table[o].operands ? word(p, pc, 0) : 0);
      pc += 1 + 4u * (uint32_t)op_table[o].operands;
    }
    if (ok[f]) {
      int d = max_depth(p, f);
      ok[f] = d >= 0 && d < NATIVE_STACK;
    }
  }
  for (bool more = true; more;) {
    more = false;
    for (int f = 0; f < n; f++) {
      if (!ok[f]) continue;
      const func_rec *fr = &p->funcs[f];
      for (uint32_t pc = fr->start; pc < fr->end;) {
        uint8_t o = cg_plain_op(p->code[pc]);
        if (o == OP_CALL) {
          int32_t g = word(p, pc, 0);
          if (g < 0 || g >= n || !ok[g]) {
            ok[f] = false;
            more = true;
            break;
          }
        }
        pc += 1 + 4u * (uint32_t)op_table[o].operands;
      }
    }
  }
  return ok;
}

/* One function's C: a label where a jump lands or a run starts, and each run
 * of instructions pays its length when entered. */
static void emit_fn(const program *p, int f, strbuf *out) {
  const func_rec *fr = &p->funcs[f];
  uint32_t len = fr->end - fr->start;
  uint8_t *label = mt_calloc(len + 1, 1);
  for (uint32_t pc = fr->start; pc < fr->end;) {
    uint8_t o = cg_plain_op(p->code[pc]);
    uint32_t next = pc + 1 + 4u * (uint32_t)op_table[o].operands;
    if (is_jump(o)) {
      int32_t t = word(p, pc, 0);
      if (t >= (int32_t)fr->start && (uint32_t)t < fr->end) label[(uint32_t)t - fr->start] = 1;
      if (next < fr->end) label[next - fr->start] = 1; /* a run ends at a branch */
    }
    pc = next;
  }
  label[0] = 1;
  sb_printf(out, "static int f%d(nctx *c, const int64_t *a, int64_t *out) {\n", f);
  sb_printf(out, "  int64_t s[%d], L[%d], x, y;\n  int sp = 0;\n  (void)x; (void)y; (void)sp;\n", NATIVE_STACK,
            fr->nlocals > 0 ? fr->nlocals : 1);
  sb_printf(out, "  if (++c->depth > c->maxdepth) FAIL(%d, %uu, 1, 0, 0);\n", VE_STACK, fr->start);
  sb_printf(out, "  for (int i = 0; i < %d; i++) L[i] = i < %d ? a[i] : 0;\n", fr->nlocals, fr->nparams);
  for (uint32_t pc = fr->start; pc < fr->end;) {
    uint8_t o = cg_plain_op(p->code[pc]);
    uint32_t next = pc + 1 + 4u * (uint32_t)op_table[o].operands;
    int32_t A = op_table[o].operands > 0 ? word(p, pc, 0) : 0, B = op_table[o].operands > 1 ? word(p, pc, 1) : 0;
    if (label[pc - fr->start]) { /* a run: the instructions up to the next label */
      int n = 0;
      for (uint32_t q = pc; q < fr->end && (q == pc || !label[q - fr->start]);) {
        uint8_t oq = cg_plain_op(p->code[q]);
        n++;
        q += 1 + 4u * (uint32_t)op_table[oq].operands;
      }
      sb_printf(out, "L%u: PAY(%d, %uu);\n", pc, n, pc);
    }
    switch ((opcode)o) {
    case OP_PUSH_INT: sb_printf(out, "  s[sp++] = %d;\n", A); break;
    case OP_PUSH_K: sb_printf(out, "  s[sp++] = c->k[%d];\n", A); break;
    case OP_POP: sb_puts(out, "  sp--;\n"); break;
    case OP_LOAD: sb_printf(out, "  s[sp++] = L[%d];\n", A); break;
    case OP_STORE: sb_printf(out, "  L[%d] = s[--sp];\n", A); break;
    case OP_BY_TAKE:
      sb_printf(out, "  x = s[--sp]; if (L[%d] == -1 || x < L[%d]) L[%d] = L[%d], L[%d] = x;\n", word(p, pc, 1),
                word(p, pc, 1) + 1, word(p, pc, 1), A, word(p, pc, 1) + 1);
      break;
    case OP_ADD: case OP_SUB: case OP_MUL:
      sb_printf(out, "  y = s[--sp]; x = s[--sp]; if (__builtin_%s_overflow(x, y, &x)) FAIL(%d, %uu, 0, 0, 0); s[sp++] = x;\n",
                o == OP_ADD ? "add" : o == OP_SUB ? "sub" : "mul", VE_OVERFLOW, pc);
      break;
    case OP_DIV:
      sb_printf(out, "  y = s[--sp]; x = s[--sp]; if (y == 0) FAIL(%d, %uu, 0, 0, 0); if (x == INT64_MIN && y == -1) FAIL(%d, %uu, 0, 0, 0);\n"
                     "  { int64_t q = x / y; if ((x %% y != 0) && ((x < 0) != (y < 0))) q--; s[sp++] = q; }\n",
                VE_DIV, pc, VE_OVERFLOW, pc);
      break;
    case OP_MOD:
      sb_printf(out, "  y = s[--sp]; x = s[--sp]; if (y == 0) FAIL(%d, %uu, 0, 0, 0);\n"
                     "  if (y == -1) s[sp++] = 0; else { int64_t m = x %% y; if (m != 0 && ((m < 0) != (y < 0))) m += y; s[sp++] = m; }\n",
                VE_DIV, pc);
      break;
    case OP_NEG: sb_printf(out, "  if (s[sp-1] == INT64_MIN) FAIL(%d, %uu, 0, 0, 0); s[sp-1] = -s[sp-1];\n", VE_OVERFLOW, pc); break;
    case OP_NOT: sb_puts(out, "  s[sp-1] = !s[sp-1];\n"); break;
    case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT: case OP_GE: {
      const char *cmp = o == OP_EQ ? "==" : o == OP_NE ? "!=" : o == OP_LT ? "<" : o == OP_LE ? "<=" : o == OP_GT ? ">" : ">=";
      sb_printf(out, "  y = s[--sp]; s[sp-1] = s[sp-1] %s y;\n", cmp);
      break;
    }
    case OP_SET_UNION: sb_puts(out, "  y = s[--sp]; s[sp-1] = (int64_t)((uint64_t)s[sp-1] | (uint64_t)y);\n"); break;
    case OP_SET_DIFF: sb_puts(out, "  y = s[--sp]; s[sp-1] = (int64_t)((uint64_t)s[sp-1] & ~(uint64_t)y);\n"); break;
    case OP_SET_INTER: sb_puts(out, "  y = s[--sp]; s[sp-1] = (int64_t)((uint64_t)s[sp-1] & (uint64_t)y);\n"); break;
    case OP_SET_HAS: sb_puts(out, "  y = s[--sp]; x = s[sp-1]; s[sp-1] = x >= 0 && x < 64 && ((uint64_t)y >> x & 1u);\n"); break;
    case OP_SET_SINGLE: sb_puts(out, "  x = s[sp-1]; s[sp-1] = x >= 0 && x < 64 ? (int64_t)(1ull << x) : 0;\n"); break;
    case OP_SET_COUNT: sb_puts(out, "  s[sp-1] = __builtin_popcountll((unsigned long long)s[sp-1]);\n"); break;
    case OP_SET_FIRST: sb_puts(out, "  s[sp-1] = s[sp-1] ? __builtin_ctzll((unsigned long long)s[sp-1]) : -1;\n"); break;
    case OP_RANGE_HAS: sb_puts(out, "  { int64_t hi = s[--sp], lo = s[--sp]; s[sp-1] = s[sp-1] >= lo && s[sp-1] <= hi; }\n"); break;
    case OP_JUMP: sb_printf(out, "  goto L%d;\n", A); break;
    case OP_JUMP_FALSE: sb_printf(out, "  if (!s[--sp]) goto L%d;\n", A); break;
    case OP_JUMP_TRUE: sb_printf(out, "  if (s[--sp]) goto L%d;\n", A); break;
    case OP_AND_JUMP: sb_printf(out, "  if (!s[sp-1]) goto L%d; sp--;\n", A); break;
    case OP_OR_JUMP: sb_printf(out, "  if (s[sp-1]) goto L%d; sp--;\n", A); break;
    case OP_CALL:
      if (p->funcs[A].memo) /* a value: remembered as the VM's CALL remembers it */
        sb_printf(out, "  { int slot; if (!c->api->memo_get(c->v, %d, &s[sp-%d], %d, &x, &slot)) {"
                       " if (!f%d(c, &s[sp-%d], &x)) { c->depth--; return 0; } c->api->memo_put(c->v, %d, &s[sp-%d], %d, x, slot); }"
                       " sp -= %d; s[sp++] = x; }\n",
                  A, B, B, A, B, A, B, B, B);
      else
        sb_printf(out, "  if (!f%d(c, &s[sp-%d], &x)) { c->depth--; return 0; } sp -= %d; s[sp++] = x;\n", A, B, B);
      break;
    case OP_RET: sb_puts(out, "  *out = s[sp-1]; c->depth--; return 1;\n"); break;
    case OP_BUILTIN:
      sb_printf(out, "  { int e = 0; int64_t ev = 0; sp -= %d; x = c->api->builtin(c->v, %d, &s[sp], &e, &ev);"
                     " if (e) FAIL(e, %uu, %d, 0, ev); s[sp++] = x; }\n",
                B, A, pc, A);
      break;
    case OP_VAR_GET:
      sb_printf(out, "  { int e = 0; int64_t ev = 0; sp -= %d; x = c->api->var_get(c->v, %d, &s[sp], &e, &ev);"
                     " if (e) FAIL(e, %uu, %d, 0, ev); s[sp++] = x; }\n",
                p->vars[A].nparams, A, pc, A);
      break;
    case OP_VAR_TOTAL: sb_printf(out, "  s[sp++] = c->api->var_total(c->v, %d);\n", A); break;
    case OP_ATTR:
      sb_printf(out, "  { int e = 0; x = s[sp-1]; y = c->api->attr(c->v, %d, %d, x, &e); if (e) FAIL(e, %uu, 0, 0, x); s[sp-1] = y; }\n",
                A, B, pc);
      break;
    case OP_PILE_CARD: sb_puts(out, "  y = s[--sp]; s[sp-1] = c->api->pile_card(c->v, s[sp-1], y);\n"); break;
    case OP_RULE_ACTIVE: sb_printf(out, "  s[sp++] = c->api->rule_active(c->v, %d);\n", A); break;
    case OP_RULE_LIVE: sb_printf(out, "  s[sp++] = c->api->rule_live(c->v, %d);\n", A); break;
    case OP_NO_DEF: sb_printf(out, "  FAIL(%d, %uu, %d, 0, 0);\n", VE_NODEF, pc, A); break;
    case OP_CONFLICT: sb_printf(out, "  FAIL(%d, %uu, %d, %d, 0);\n", VE_CONFLICT, pc, A, B); break;
    case OP_GUARD: sb_printf(out, "  c->api->guard(c->v, %d, s[--sp]);\n", A); break;
    case OP_GUARD_RESULT: sb_puts(out, "  s[sp++] = c->api->guard_result(c->v);\n"); break;
    default: sb_printf(out, "  #error untranslated opcode %d\n", o); break;
    }
    pc = next;
  }
  sb_printf(out, "  FAIL(%d, %uu, 0, 0, 0);\n}\n\n", VE_INTERNAL, fr->end);
  mt_free(label);
}

/* The C of P's translatable functions, then the line that carries KEY, the
 * hash of everything before it: a loaded object shows what it was built for. */
static void emit(const program *p, strbuf *out, int *count, vm_native_key *key) {
  bool *ok = translatable(p);
  *count = 0;
  sb_printf(out, "/* generated by mentat (interpreter/native.c, generation %d) from a rule set's bytecode; do not edit */\n",
            NATIVE_GENERATION);
  sb_printf(out, prelude, VE_BUDGET);
  for (int f = 0; f < p->nfuncs; f++)
    if (ok[f]) sb_printf(out, "static int f%d(nctx *c, const int64_t *a, int64_t *out);\n", f);
  sb_puts(out, "\n");
  for (int f = 0; f < p->nfuncs; f++)
    if (ok[f]) {
      emit_fn(p, f, out);
      (*count)++;
    }
  sb_printf(out, "void mentat_native_table(nfn *t, int n) {\n");
  for (int f = 0; f < p->nfuncs; f++)
    if (ok[f]) sb_printf(out, "  if (%d < n) t[%d] = f%d;\n", f, f, f);
  sb_puts(out, "}\n");
  mt_free(ok);
  vm_native_key_of(out->s, out->n, key);
  sb_printf(out, "const char mentat_native_key[] = \"%s\";\n", key->hex);
}

bool vm_native_emit(const program *p, strbuf *out, int *count) {
  vm_native_key key;
  emit(p, out, count, &key);
  return true;
}

/* Emits P's C, gets its object from the cache (native_cache.c: verified
 * before it is loaded, built if missing or damaged, its exported key checked
 * after) and takes its table. */
vm_native_status vm_native_load(program *p, strbuf *why) {
  strbuf src = {0};
  int count = 0;
  vm_native_key key;
  emit(p, &src, &count, &key);
  void *h = NULL;
  vm_native_status st = vm_native_cache_load(src.s, src.n, &key, &h, why);
  sb_free(&src);
  if (st != VM_NATIVE_LOADED) return st;
  void *sym = dlsym(h, "mentat_native_table");
  if (!sym) {
    sb_printf(why, "the cached object native-%s.so has no function table", key.hex);
    dlclose(h);
    return VM_NATIVE_FAILED;
  }
  void (*table)(vm_native_fn *, int);
  memcpy(&table, &sym, sizeof table);
  mt_free(p->native);
  p->native = mt_calloc((size_t)p->nfuncs + 1, sizeof *p->native);
  table(p->native, p->nfuncs);
  p->native_handle = h;
  p->nnative = p->nfuncs;
  return VM_NATIVE_LOADED;
}

void vm_native_unload(program *p) {
  mt_free(p->native);
  p->native = NULL;
  p->nnative = 0;
  if (p->native_handle) dlclose(p->native_handle);
  p->native_handle = NULL;
}
