/* vm.c -- the dispatch loop (stage 6).
 *
 * The game's VM runs on a stack and frames stored in the flat game state
 * (vm_state), so suspending at a decision is just returning: the state can be
 * cloned with memcpy and each copy resumed independently.  Pure functions
 * (values, guards, domains) can also be evaluated on a scratch stack by
 * vm_eval, which is how legal choices and why-not answers are computed
 * without touching the state.  No allocation happens in the loop; an
 * instruction budget stops a runaway rule with an error naming it. */
#include "vm.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "mentat.h"
#include "opcodes.h"
#include "vcache.h"

typedef struct regs {
  int64_t *stack;
  int cap;
  int sp;
  vm_frame *frames;
  int fcap;
  int nframes;
  bool scratch; /* pure evaluation: no suspension, no effects */
} regs;

int vm_game_faction(const vm *v, int64_t f) {
  if (f < 0 || f >= v->p->def->nfactions) return -1;
  return v->L->game_faction[f];
}

static int turn_now(vm *v) {
  const program *p = v->p;
  if (p->turn_var < 0) return 0;
  return board_var_get(v->L, v->st, p->vars[p->turn_var].board_var, 0, 0);
}

/* A rule is in force unless its faction is absent or it (or an enclosing
 * rule) is cancelled for a scope that has not expired; ONCE: one-use
 * cancellations count too. */
static bool rule_in_force(vm *v, int r, bool once) {
  const program *p = v->p;
  if (r < 0 || r >= p->nrules) return false;
  const rule_rec *rr = &p->rules[r];
  if (rr->disabled) return false;
  if (rr->faction >= 0 && v->L->game_faction[rr->faction] < 0) return false;
  vm_state *vs = v->vs;
  for (int i = 0; i < vs->ncancel; i++) {
    vm_cancel *c = &vs->cancel[i];
    if (c->scope == SCOPE_ONCE && !once) continue;
    if (c->scope == SCOPE_TURN && p->turn_var >= 0 && c->stamp != turn_now(v)) continue;
    for (int q = r; q >= 0; q = p->rules[q].parent)
      if (q == c->rule) return false;
  }
  return true;
}

bool vm_rule_active(vm *v, int r) { return rule_in_force(v, r, true); }

static void drop_cancel(vm_state *vs, int i) {
  vs->cancel[i] = vs->cancel[vs->ncancel - 1];
  vs->ncancel--;
}

/* RULE_TRY: a pending one-use cancellation is consumed here. */
bool vm_rule_try(vm *v, int r) {
  vm_state *vs = v->vs;
  for (int i = 0; i < vs->ncancel; i++)
    if (vs->cancel[i].rule == r && vs->cancel[i].scope == SCOPE_ONCE) {
      drop_cancel(vs, i);
      return false;
    }
  return vm_rule_active(v, r);
}

static void fail(vm *v, int code, uint32_t pc, int a, int b, int64_t x) {
  vm_state *vs = v->vs;
  vs->status = VM_FAILED;
  vs->err_code = code;
  vs->err_pc = (int32_t)pc;
  vs->err_a = a;
  vs->err_b = b;
  vs->err_v = x;
}

static size_t put(char *buf, size_t cap, const char *s) {
  size_t k = strlen(s);
  if (k > cap) k = cap;
  memcpy(buf, s, k);
  return k;
}

/* An integer X divided by N (2..10000, only the prime factors 2 and 5) as an
 * exact decimal: 7 / 2 is "3.5", -1 / 4 is "-0.25", 6 / 2 is "3".  The text
 * hole {name/N} (a negative type tag -N). */
static void format_decimal(int64_t x, int64_t n, char *out, size_t cap) {
  uint64_t ax = x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
  uint64_t un = (uint64_t)n, q = ax / un, r = ax % un, scale = 1;
  int digits = 0;
  while (scale % un != 0 && digits < 18) scale *= 10, digits++; /* 10^digits: the first power N divides */
  if (!r) {
    snprintf(out, cap, "%s%llu", x < 0 ? "-" : "", (unsigned long long)q);
    return;
  }
  uint64_t frac = r * (scale / un);
  while (frac % 10 == 0) frac /= 10, digits--;
  snprintf(out, cap, "%s%llu.%0*llu", x < 0 ? "-" : "", (unsigned long long)q, digits, (unsigned long long)frac);
}

/* vm_format_value into a fixed buffer (BUF of CAP bytes, not terminated);
 * returns the bytes written. */
size_t vm_format_value_buf(const vm *v, int ty, int64_t x, char *buf, size_t cap) {
  const board_def *def = v->p->def;
  char tmp[48];
  if (ty < 0) {
    format_decimal(x, -(int64_t)ty, tmp, sizeof tmp);
    return put(buf, cap, tmp);
  }
  if (ty & TY_SETBIT) {
    size_t n = put(buf, cap, "{");
    int first = 1;
    for (int i = 0; i < 64; i++)
      if ((uint64_t)x >> i & 1u) {
        if (!first) n += put(buf + n, cap - n, ", ");
        first = 0;
        n += vm_format_value_buf(v, ty & ~TY_SETBIT, i, buf + n, cap - n);
      }
    return n + put(buf + n, cap - n, "}");
  }
  if (x < 0 && ty != TY_INT) return put(buf, cap, "none");
  if (ty >= TY_ENUM0 && ty - TY_ENUM0 < v->p->nenums) {
    const enum_rec *e = &v->p->enums[ty - TY_ENUM0];
    return put(buf, cap, x < e->nvalues ? e->values[x] : "?");
  }
  switch (ty) {
  case TY_BOOL: return put(buf, cap, x ? "true" : "false");
  case TY_FACTION: return put(buf, cap, x < def->nfactions ? def->factions[x].id : "?");
  case TY_TERRITORY: return put(buf, cap, x < def->nareas ? def->areas[x].id : "?");
  case TY_CARD: return put(buf, cap, x < def->ncards ? def->cards[x].id : "?");
  case TY_LEADER: return put(buf, cap, x < def->nleaders ? def->leaders[x].id : "?");
  case TY_KIND: return put(buf, cap, x < def->nkinds ? def->kinds[x] : "?");
  case TY_POOL: return put(buf, cap, x < def->npools ? def->pools[x].name : "?");
  case TY_PILENAME: return put(buf, cap, x < def->npiles ? def->piles[x].name : "?");
  case TY_TAG: return put(buf, cap, x < def->ntags ? def->tags[x] : "?");
  case TY_RULE: return put(buf, cap, x < v->p->nrules ? v->p->rules[x].id : "?");
  case TY_PILE:
    if (x < v->L->npile_slots) {
      int owner = v->L->owner_of_slot[x];
      size_t n = put(buf, cap, def->piles[v->L->pile_of_slot[x]].name);
      if (owner >= 0) {
        n += put(buf + n, cap - n, " of ");
        n += put(buf + n, cap - n, def->factions[v->L->faction[owner]].id);
      }
      return n;
    }
    return 0;
  default:
    snprintf(tmp, sizeof tmp, "%lld", (long long)x);
    return put(buf, cap, tmp);
  }
}

void vm_format_value(const vm *v, int ty, int64_t x, strbuf *out) {
  const board_def *def = v->p->def;
  if (ty < 0) {
    char tmp[48];
    format_decimal(x, -(int64_t)ty, tmp, sizeof tmp);
    sb_puts(out, tmp);
    return;
  }
  if (ty & TY_SETBIT) {
    int e = ty & ~TY_SETBIT;
    sb_putc(out, '{');
    int first = 1;
    for (int i = 0; i < 64; i++)
      if ((uint64_t)x >> i & 1u) {
        if (!first) sb_puts(out, ", ");
        first = 0;
        vm_format_value(v, e, i, out);
      }
    sb_putc(out, '}');
    return;
  }
  if (x < 0 && ty != TY_INT) {
    sb_puts(out, "none");
    return;
  }
  if (ty >= TY_ENUM0 && ty - TY_ENUM0 < v->p->nenums) {
    const enum_rec *e = &v->p->enums[ty - TY_ENUM0];
    sb_puts(out, x < e->nvalues ? e->values[x] : "?");
    return;
  }
  switch (ty) {
  case TY_BOOL: sb_puts(out, x ? "true" : "false"); return;
  case TY_FACTION: sb_puts(out, x < def->nfactions ? def->factions[x].id : "?"); return;
  case TY_TERRITORY: sb_puts(out, x < def->nareas ? def->areas[x].id : "?"); return;
  case TY_CARD: sb_puts(out, x < def->ncards ? def->cards[x].id : "?"); return;
  case TY_LEADER: sb_puts(out, x < def->nleaders ? def->leaders[x].id : "?"); return;
  case TY_KIND: sb_puts(out, x < def->nkinds ? def->kinds[x] : "?"); return;
  case TY_POOL: sb_puts(out, x < def->npools ? def->pools[x].name : "?"); return;
  case TY_PILENAME: sb_puts(out, x < def->npiles ? def->piles[x].name : "?"); return;
  case TY_TAG: sb_puts(out, x < def->ntags ? def->tags[x] : "?"); return;
  case TY_RULE: sb_puts(out, x < v->p->nrules ? v->p->rules[x].id : "?"); return;
  case TY_PILE:
    if (x < v->L->npile_slots) {
      int owner = v->L->owner_of_slot[x];
      sb_puts(out, def->piles[v->L->pile_of_slot[x]].name);
      if (owner >= 0) sb_printf(out, " of %s", def->factions[v->L->faction[owner]].id);
    }
    return;
  default: sb_printf(out, "%lld", (long long)x); return;
  }
}

/* Narration: formats text with its holes into the VM's fixed buffer (no
 * allocation in the dispatch loop; over-long lines are cut). */
static void do_log(vm *v, uint32_t pc, int text, int list, const int64_t *holes) {
  if (!v->log || v->vs->seek_phase >= 0) return; /* seeking replays no narration */
  const program *p = v->p;
  const char *t = p->strings[text];
  char *buf = v->logbuf;
  size_t n = 0, cap = sizeof v->logbuf - 1;
  int h = 0;
  if (v->log_audience) { /* a line for some factions only (log for S): say whom, "(for a, b) " */
    const board_def *def = p->def;
    n += (size_t)snprintf(buf, cap, "(for");
    for (int f = 0; f < def->nfactions && f < 64 && n < cap; f++)
      if (v->log_audience >> f & 1u) n += (size_t)snprintf(buf + n, cap - n, "%s %s", n > 4 ? "," : "", def->factions[f].id);
    if (n < cap) n += (size_t)snprintf(buf + n, cap - n, ") ");
    if (n > cap) n = cap;
  }
  for (const char *q = t; *q && n < cap; q++) {
    const char *e = *q == '{' ? strchr(q, '}') : NULL;
    if (e && h < p->nlist[list]) {
      n += vm_format_value_buf(v, p->lists[list][h], holes[h], buf + n, cap - n);
      h++;
      q = e;
    } else {
      buf[n++] = *q;
    }
  }
  buf[n < cap ? n : cap] = 0;
  int fn = cg_func_at(p, pc);
  int r = fn >= 0 ? p->funcs[fn].rule : -1;
  v->log(v->log_ud, r >= 0 ? p->rules[r].id : "-", buf);
}

static int var_index(vm *v, const var_rec *vr, const int64_t *args, int *inst, int *cell, int *err) {
  const board_def *def = v->p->def;
  *inst = 0;
  *cell = 0;
  int k = 0;
  if (vr->data) {
    if (vr->scope == BS_FACTION) {
      *inst = vm_game_faction(v, args[0]);
      if (*inst < 0) return *err = VE_ABSENT, -1;
    } else if (vr->scope == BS_SECTION) {
      if (args[0] < 0 || args[0] >= def->nareas) return *err = VE_RANGE, -1;
      int s = board_section_at(v->L, v->st, (int)args[0], (int)args[1]);
      if (s < 0) return *err = VE_SECTION, -1;
      *inst = s;
    }
    return 0;
  }
  if (vr->scope == BS_FACTION) {
    *inst = vm_game_faction(v, args[0]);
    if (*inst < 0) return *err = VE_ABSENT, -1;
    k = 1;
  }
  int idx = 0;
  for (int i = k; i < vr->nparams; i++) {
    int n = vr->ptype[i] == TY_FACTION ? def->nfactions : vr->ptype[i] == TY_TERRITORY ? def->nareas
            : vr->ptype[i] == TY_SECTOR ? def->nsectors : vr->ptype[i] == TY_CARD ? def->ncards
            : vr->ptype[i] == TY_LEADER ? def->nleaders : vr->ptype[i] == TY_KIND ? def->nkinds
            : vr->ptype[i] == TY_TAG ? def->ntags : 2;
    if (args[i] < 0 || args[i] >= n) return *err = VE_RANGE, -1;
    idx = idx * n + (int)args[i];
  }
  *cell = idx * vr->width;
  return 0;
}

/* Build with -DMT_PROFILE to count the instructions each function executes;
 * vm_profile_report prints the heaviest (for tuning rules and the engine). */
#ifdef MT_PROFILE
static uint64_t prof_count[1 << 16], prof_ops[OP__COUNT];
#define PROFILE() (prof_count[F->fn & 0xffff]++, prof_ops[code[pc]]++)
void vm_profile_report(const program *p) {
  uint64_t all = 0;
  for (int o = 0; o < OP__COUNT; o++) all += prof_ops[o];
  for (int k = 0; k < 16 && all; k++) { /* the opcodes executed most */
    int best = 0;
    for (int o = 1; o < OP__COUNT; o++)
      if (prof_ops[o] > prof_ops[best]) best = o;
    if (!prof_ops[best]) break;
    fprintf(stderr, "%12llu  %5.1f%%  %s\n", (unsigned long long)prof_ops[best], 100.0 * (double)prof_ops[best] / (double)all,
            op_table[best].name);
    prof_ops[best] = 0;
  }
  for (int k = 0; k < 40; k++) {
    int best = -1;
    for (int i = 0; i < p->nfuncs && i < (1 << 16); i++)
      if (prof_count[i] && (best < 0 || prof_count[i] > prof_count[best])) best = i;
    if (best < 0) break;
    fprintf(stderr, "%12llu  %s\n", (unsigned long long)prof_count[best], p->funcs[best].what);
    prof_count[best] = 0;
  }
}
#else
#define PROFILE() ((void)0)
void vm_profile_report(const program *p) { (void)p; }
#endif

/* The calls nest too deeply: records the functions of the innermost cycle
 * (from the top frame down to the previous frame running the same function;
 * failing that, the top eight frames), so the error can name the rules and
 * events that call each other. */
static void note_cycle(vm *v, const vm_frame *frames, int n) {
  int top = frames[n - 1].fn, from = n - 8 < 0 ? 0 : n - 8;
  for (int i = n - 2; i >= 0; i--)
    if (frames[i].fn == top) {
      from = i + 1;
      break;
    }
  v->ncycle = 0;
  for (int i = from; i < n && v->ncycle < 8; i++) {
    bool seen = false;
    for (int k = 0; k < v->ncycle; k++) seen |= v->cycle[k] == frames[i].fn;
    if (!seen) v->cycle[v->ncycle++] = frames[i].fn;
  }
}

/* Appends "rules A (t) and B (t) and events 'e'" for the recorded cycle, in
 * declaration order. */
static void cycle_text(const vm *v, strbuf *out) {
  const program *p = v->p;
  int rules[8], events[8], nr = 0, ne = 0;
  for (int k = 0; k < v->ncycle; k++) {
    const func_rec *f = &p->funcs[v->cycle[k]];
    int r = f->rule, e = -1;
    if (r < 0)
      for (int i = 0; i < p->nevents && e < 0; i++)
        if (p->events[i].dispatch_fn == v->cycle[k]) e = i;
    int *list = r >= 0 ? rules : events, *nl = r >= 0 ? &nr : &ne, x = r >= 0 ? r : e;
    bool seen = x < 0;
    for (int i = 0; i < *nl && !seen; i++) seen = list[i] == x;
    if (seen) continue;
    int at = (*nl)++; /* insertion: declaration order */
    while (at > 0 && list[at - 1] > x) list[at] = list[at - 1], at--;
    list[at] = x;
  }
  if (nr) sb_puts(out, nr > 1 ? "rules " : "rule ");
  for (int i = 0; i < nr; i++)
    sb_printf(out, "%s%s (%s)", i == 0 ? "" : i + 1 == nr ? " and " : ", ", p->rules[rules[i]].id,
              p->rules[rules[i]].title ? p->rules[rules[i]].title : "");
  if (ne) sb_printf(out, "%s%s", nr ? " and " : "", ne > 1 ? "events " : "event ");
  for (int i = 0; i < ne; i++) sb_printf(out, "%s'%s'", i == 0 ? "" : i + 1 == ne ? " and " : ", ", p->events[events[i]].name);
}

/* ---- the native tier's view of the VM (native.c) ---------------------------
 * The same steps as the opcodes, with the same checks and errors; the layout
 * of both structs is repeated in the generated C (native.c's prelude). */
typedef struct napi {
  int64_t (*var_get)(void *v, int var, const int64_t *args, int *err, int64_t *errv);
  int64_t (*var_total)(void *v, int var);
  int64_t (*builtin)(void *v, int id, const int64_t *args, int *err, int64_t *errv);
  int (*rule_active)(void *v, int r);
  int (*rule_live)(void *v, int r);
  int64_t (*attr)(void *v, int tab, int at, int64_t x, int *err);
  int64_t (*pile_card)(void *v, int64_t pile, int64_t pos);
  void (*guard)(void *v, int id, int64_t ok);
  int (*guard_result)(void *v);
  void (*fail)(void *v, int code, uint32_t pc, int a, int b, int64_t x);
  int (*memo_get)(void *v, int fn, const int64_t *args, int n, int64_t *out, int *slot);
  void (*memo_put)(void *v, int fn, const int64_t *args, int n, int64_t x, int slot);
} napi;
struct nctx {
  const napi *api;
  void *v;
  int64_t left;
  int depth, maxdepth;
  const int64_t *k;
};

static int64_t var_read(vm *v, int var, const int64_t *args, int *err, int64_t *errv) {
  const program *p = v->p;
  const var_rec *vr = &p->vars[var];
  int inst, cell;
  if (var_index(v, vr, args, &inst, &cell, err) < 0) {
    *errv = vr->nparams > 0 ? args[0] : 0;
    return 0;
  }
  int64_t x = board_var_get(v->L, v->st, vr->board_var, inst, cell);
  if (vr->data && v->L->vars[vr->board_var].type == BT_FACTION) x = x >= 0 && x < v->L->nf ? v->L->faction[x] : -1;
  if (vr->width == 2)
    x = (int64_t)(((uint64_t)(uint32_t)board_var_get(v->L, v->st, vr->board_var, inst, cell + 1) << 32) | (uint32_t)x);
  return x;
}
static int64_t n_var_get(void *v, int var, const int64_t *args, int *err, int64_t *errv) {
  return var_read(v, var, args, err, errv);
}
static int64_t n_var_total(void *vv, int var) {
  vm *v = vv;
  return board_var_total(v->L, v->st, v->p->vars[var].board_var);
}
static int64_t n_builtin(void *v, int id, const int64_t *args, int *err, int64_t *errv) {
  return vm_builtin(v, id, args, err, errv);
}
static int n_rule_active(void *vv, int r) {
  vm *v = vv;
  if (v->vs->ncancel == 0) { /* the common case, as the VM's RULE_ACTIVE: no cancellation to consult */
    const rule_rec *rr = &v->p->rules[r];
    return !rr->disabled && (rr->faction < 0 || v->L->game_faction[rr->faction] >= 0);
  }
  return vm_rule_active(v, r);
}
static bool rule_in_force(vm *v, int r, bool once);
static int n_rule_live(void *v, int r) { return rule_in_force(v, r, false); }
static int64_t n_attr(void *vv, int tab, int at, int64_t x, int *err) {
  const board_def *def = ((vm *)vv)->p->def;
  int64_t n = tab == ATTR_AREA ? def->nareas : tab == ATTR_FACTION ? def->nfactions : def->ncards;
  if (x < 0 || x >= n) return *err = VE_RANGE, 0;
  return tab == ATTR_AREA ? def->areas[x].attrs[at] : tab == ATTR_FACTION ? def->factions[x].attrs[at] : def->cards[x].attrs[at];
}
static int64_t n_pile_card(void *vv, int64_t pile, int64_t pos) {
  vm *v = vv;
  return board_pile_card(v->L, v->st, (int)pile, (int)pos);
}
static void n_guard(void *vv, int id, int64_t ok) {
  vm *v = vv;
  if (!ok) {
    v->guard_failed = 1;
    if (v->nrefused < 64) v->refused[v->nrefused++] = id;
  }
}
static int n_guard_result(void *vv) {
  vm *v = vv;
  int r = !v->guard_failed;
  v->guard_failed = 0;
  return r;
}
static void n_fail(void *v, int code, uint32_t pc, int a, int b, int64_t x) { fail(v, code, pc, a, b, x); }
/* A value's result remembered as the VM's CALL remembers it: the value cache
 * (vm.h) when it applies, else this evaluation's memo.  SLOT: where a miss is
 * to be put (VM_MEMO + cache slot, a memo slot, or -1). */
static int n_memo_get(void *vv, int fn, const int64_t *args, int n, int64_t *out, int *slot) {
  vm *v = vv;
  *slot = -1;
  if (vm_vc_usable(v, fn)) {
    int s;
    const vm_vc_entry *e = vm_vc_find(v, fn, args, n, &s);
    if (e) {
      *out = e->result;
      return 1;
    }
    *slot = VM_MEMO + s; /* keyed by all that was read since the remembered call around it began: more, never less */
    return 0;
  }
  if (!v->memo || n > MAX_PARAMS) return 0;
  uint64_t h = (uint64_t)(uint32_t)fn * 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < n; i++) h = (h ^ (uint64_t)args[i]) * 0x100000001b3ull;
  int ms = (int)(h >> 52) & (VM_MEMO - 1);
  const vm_memo *m = &v->memo[ms];
  if (m->epoch == v->memo_epoch && m->fn == fn && m->nargs == n &&
      (n == 0 || memcmp(m->args, args, (size_t)n * sizeof *args) == 0)) {
    for (int k = 0; k < VM_NDEP; k++) v->dep[k] |= m->dep[k];
    *out = m->result;
    return 1;
  }
  *slot = ms;
  return 0;
}
static void n_memo_put(void *vv, int fn, const int64_t *args, int n, int64_t x, int slot) {
  vm *v = vv;
  if (slot >= VM_MEMO) {
    vm_vc_fill(v, slot - VM_MEMO, fn, args, n, x);
  } else if (slot >= 0) {
    vm_memo *m = &v->memo[slot];
    m->epoch = v->memo_epoch;
    m->fn = fn;
    m->nargs = n;
    memcpy(m->args, args, (size_t)n * sizeof *args);
    m->result = x;
    memcpy(m->dep, v->dep, sizeof m->dep);
  }
}
static const napi native_api = {n_var_get, n_var_total, n_builtin, n_rule_active, n_rule_live, n_attr,
                                n_pile_card, n_guard, n_guard_result, n_fail, n_memo_get, n_memo_put};

/* Runs native function FN (vm_eval and CALL): 1 with the result in OUT, 0
 * after a runtime error (in V's state).  *LEFT: the budget, spent in place;
 * DEPTH: the frames it may still open. */
static int native_call(vm *v, int fn, const int64_t *args, int64_t *out, uint64_t *left, int depth) {
  struct nctx c = {&native_api, v, *left > INT64_MAX ? INT64_MAX : (int64_t)*left, 0, depth, v->p->consts};
  int ok = v->p->native[fn](&c, args, out);
  uint64_t rest = c.left > 0 ? (uint64_t)c.left : 0;
  v->steps += *left - rest;
  *left = rest;
  return ok;
}

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic" /* computed goto is a GNU extension */
#endif
/* The loop.  Runs R until its frame count drops to STOP (scratch) or the game
 * suspends / finishes / fails. */
static int run_loop(vm *v, regs *R, int stop, uint64_t *left);

/* Runs R with a budget of LIMIT instructions; *SPENT (if given) receives the
 * instructions spent. */
static int run(vm *v, regs *R, int stop, uint64_t limit, uint64_t *spent) {
  if (limit == 0) { /* nothing left to spend: fails where it would start */
    fail(v, VE_BUDGET, (uint32_t)R->frames[R->nframes - 1].pc, 0, 0, 0);
    if (spent) *spent = 0;
    return VM_FAILED;
  }
  uint64_t left = limit;
  int st = run_loop(v, R, stop, &left);
  uint64_t used = limit - left; /* the failing dispatch wraps LEFT below zero: one more, harmless */
  v->steps += used;
  if (st == VM_FAILED && v->vs->err_code == VE_BUDGET) v->vs->err_v = (int64_t)limit;
  if (st == VM_FAILED && v->vs->err_code == VE_STACK && v->vs->err_a == 1) note_cycle(v, R->frames, R->nframes);
  if (spent) *spent = used;
  return st;
}

/* The loop proper: LEFT is the budget on entry and what remains of it on
 * return (read and written only there, so the loop keeps it in a register). */
static int run_loop(vm *v, regs *R, int stop, uint64_t *left) {
  const program *p = v->p;
  const uint8_t *code = p->code;
  vm_state *vs = v->vs;
  int64_t *S = R->stack;
  int sp = R->sp;
  vm_frame *F = &R->frames[R->nframes - 1];
  uint32_t pc = (uint32_t)F->pc;
  uint32_t ipc = pc;
  int32_t a = 0, b = 0;
  uint64_t budget = *left;
#if defined(__GNUC__)
  if (budget == 0) __builtin_unreachable(); /* run() never starts with none: the first dispatch cannot fail, */
#endif                                      /* which keeps the dispatch table in a register (about 2% faster) */
  int64_t x, y;
  int err;
  int64_t errv;

#define A_ (memcpy(&a, code + ipc + 1, 4), a)
#define B_ (memcpy(&b, code + ipc + 5, 4), b)
#define POP() (S[--sp])
#define PUSH(v_) (S[sp++] = (v_))
#define TOP (S[sp - 1])
#define LOCAL(i) S[F->base + (i)]
#define FAIL(code_, a_, b_, v_)                                                                                       \
  do {                                                                                                                \
    *left = budget;                                                                                       \
    R->sp = sp;                                                                                                       \
    F->pc = (int32_t)ipc;                                                                                             \
    fail(v, code_, ipc, a_, b_, v_);                                                                                  \
    return VM_FAILED;                                                                                                 \
  } while (0)
/* a new decision record, keeping the prompt holes a PROMPT just stored */
#define PROMPT_KEEP()                                                                                                 \
  do {                                                                                                                \
    int32_t ht_ = vs->dec.hole_types, nh_ = vs->dec.nholes;                                                           \
    int64_t h_[VM_PROMPT_HOLES];                                                                                      \
    memcpy(h_, vs->dec.holes, sizeof h_);                                                                             \
    memset(&vs->dec, 0, sizeof vs->dec);                                                                              \
    vs->dec.hole_types = ht_;                                                                                         \
    vs->dec.nholes = nh_;                                                                                             \
    memcpy(vs->dec.holes, h_, sizeof h_);                                                                             \
  } while (0)
#define NEED(n_)                                                                                                      \
  do {                                                                                                                \
    if (sp + (n_) > R->cap) FAIL(VE_STACK, 0, 0, 0);                                                                  \
  } while (0)

#if defined(__GNUC__)
  static const void *const labels[OP__COUNT] = {
#define OP(name, operands, pops, pushes, doc) &&L_##name,
#include "opcodes.def"
#undef OP
  };
  /* each instruction's length is a constant of its handler, not a table lookup */
  enum {
#define OP(name, operands, pops, pushes, doc) LEN_##name = 1 + 4 * (operands),
#include "opcodes.def"
#undef OP
  };
#define DISPATCH()                                                                                                    \
  do {                                                                                                                \
    if (!budget--) FAIL(VE_BUDGET, 0, 0, 0);                                                                          \
    PROFILE();                                                                                                        \
    ipc = pc;                                                                                                         \
    goto *labels[code[pc]];                                                                                           \
  } while (0)
#define CASE(name) L_##name: pc = ipc + LEN_##name;
  DISPATCH();
#else
#define DISPATCH() goto dispatch
#define CASE(name) case OP_##name:
dispatch:
  if (!budget--) FAIL(VE_BUDGET, 0, 0, 0);
  ipc = pc;
  pc += 1 + 4u * (uint32_t)op_table[code[ipc]].operands;
  switch ((opcode)code[ipc]) {
#endif

  CASE(PUSH_INT) NEED(1); PUSH(A_); DISPATCH();
  CASE(PUSH_K) NEED(1); PUSH(p->consts[A_]); DISPATCH();
  CASE(POP) sp--; DISPATCH();
  CASE(LOAD) NEED(1); PUSH(LOCAL(A_)); DISPATCH();
  CASE(STORE) LOCAL(A_) = POP(); DISPATCH();
  CASE(ADD) y = POP(); x = POP(); if (__builtin_add_overflow(x, y, &x)) FAIL(VE_OVERFLOW, 0, 0, 0); PUSH(x); DISPATCH();
  CASE(SUB) y = POP(); x = POP(); if (__builtin_sub_overflow(x, y, &x)) FAIL(VE_OVERFLOW, 0, 0, 0); PUSH(x); DISPATCH();
  CASE(MUL) y = POP(); x = POP(); if (__builtin_mul_overflow(x, y, &x)) FAIL(VE_OVERFLOW, 0, 0, 0); PUSH(x); DISPATCH();
  CASE(DIV) {
    y = POP(); x = POP();
    if (y == 0) FAIL(VE_DIV, 0, 0, 0);
    if (x == INT64_MIN && y == -1) FAIL(VE_OVERFLOW, 0, 0, 0);
    int64_t q = x / y;
    if ((x % y != 0) && ((x < 0) != (y < 0))) q--;
    PUSH(q);
    DISPATCH();
  }
  CASE(MOD) {
    y = POP(); x = POP();
    if (y == 0) FAIL(VE_DIV, 0, 0, 0);
    if (y == -1) { PUSH(0); DISPATCH(); }
    int64_t m = x % y;
    if (m != 0 && ((m < 0) != (y < 0))) m += y;
    PUSH(m);
    DISPATCH();
  }
  CASE(NEG) if (TOP == INT64_MIN) FAIL(VE_OVERFLOW, 0, 0, 0); TOP = -TOP; DISPATCH();
  CASE(NOT) TOP = !TOP; DISPATCH();
  CASE(EQ) y = POP(); TOP = TOP == y; DISPATCH();
  CASE(NE) y = POP(); TOP = TOP != y; DISPATCH();
  CASE(LT) y = POP(); TOP = TOP < y; DISPATCH();
  CASE(LE) y = POP(); TOP = TOP <= y; DISPATCH();
  CASE(GT) y = POP(); TOP = TOP > y; DISPATCH();
  CASE(GE) y = POP(); TOP = TOP >= y; DISPATCH();
  CASE(SET_UNION) y = POP(); TOP = (int64_t)((uint64_t)TOP | (uint64_t)y); DISPATCH();
  CASE(SET_DIFF) y = POP(); TOP = (int64_t)((uint64_t)TOP & ~(uint64_t)y); DISPATCH();
  CASE(SET_INTER) y = POP(); TOP = (int64_t)((uint64_t)TOP & (uint64_t)y); DISPATCH();
  CASE(SET_HAS) y = POP(); x = TOP; TOP = x >= 0 && x < 64 && ((uint64_t)y >> x & 1u); DISPATCH();
  CASE(SET_SINGLE) x = TOP; TOP = x >= 0 && x < 64 ? (int64_t)(1ull << x) : 0; DISPATCH();
  CASE(SET_COUNT) TOP = __builtin_popcountll((unsigned long long)TOP); DISPATCH();
  CASE(SET_FIRST) TOP = TOP ? __builtin_ctzll((unsigned long long)TOP) : -1; DISPATCH();
  CASE(RANGE_HAS) { int64_t hi = POP(), lo = POP(); TOP = TOP >= lo && TOP <= hi; DISPATCH(); }
  CASE(JUMP) pc = (uint32_t)A_; DISPATCH();
  CASE(JUMP_FALSE) if (!POP()) pc = (uint32_t)A_; DISPATCH();
  CASE(JUMP_TRUE) if (POP()) pc = (uint32_t)A_; DISPATCH();
  CASE(AND_JUMP) if (!TOP) pc = (uint32_t)A_; else sp--; DISPATCH();
  CASE(OR_JUMP) if (TOP) pc = (uint32_t)A_; else sp--; DISPATCH();
  CASE(CALL) {
  call: /* (F_LOAD_CALL, F_LOAD2_CALL: IPC at the CALL, PC after it, the arguments pushed) */;
    int fn = A_, n = B_;
    const func_rec *f = &p->funcs[fn];
    int memo_slot = -1;
    if (vm_vc_usable(v, fn)) {
      int slot;
      const vm_vc_entry *e = vm_vc_find(v, fn, S + sp - n, n, &slot);
      if (e) {
        sp -= n;
        PUSH(e->result);
        DISPATCH();
      }
      if (vm_dep_open(v)) memo_slot = VM_MEMO + slot; /* remembered on return */
    } else if (R->scratch && f->memo && v->memo && n <= MAX_PARAMS) {
      uint64_t h = (uint64_t)(uint32_t)fn * 0x9e3779b97f4a7c15ull;
      for (int i = 0; i < n; i++) h = (h ^ (uint64_t)S[sp - n + i]) * 0x100000001b3ull;
      memo_slot = (int)(h >> 52) & (VM_MEMO - 1);
      vm_memo *m = &v->memo[memo_slot];
      if (m->epoch == v->memo_epoch && m->fn == fn && m->nargs == n &&
          (n == 0 || memcmp(m->args, S + sp - n, (size_t)n * sizeof *S) == 0)) {
        for (int k = 0; k < VM_NDEP; k++) v->dep[k] |= m->dep[k];
        sp -= n;
        PUSH(m->result);
        DISPATCH();
      }
      if (!vm_dep_open(v)) memo_slot = -1;
    }
    if (memo_slot < 0 && f->link >= 0) { /* a value with one definition: straight to its body */
      if (vs->ncancel == 0 ? vm_rule_in_play(v, f->link_rule) : vm_rule_active(v, f->link_rule)) {
        fn = f->link;
        f = &p->funcs[fn];
      }
    }
    if (memo_slot < 0 && fn < p->nnative && p->native[fn] && !v->chance) { /* the C translation (native.c) */
      uint64_t before = budget;
      if (!R->scratch) vm_memo_reset(v); /* a memo for this call alone: the state moves on after it */
      int ok = native_call(v, fn, S + sp - n, &x, &budget, R->fcap - R->nframes);
      if (!R->scratch) vm_memo_reset(v);
      v->steps -= before - budget; /* run() counts what this loop spends */
      if (!ok) {
        *left = budget;
        R->sp = sp;
        F->pc = (int32_t)ipc;
        return VM_FAILED;
      }
      sp -= n;
      PUSH(x);
      DISPATCH();
    }
    if (R->nframes >= R->fcap) FAIL(VE_STACK, 1, 0, 0);
    NEED(f->nlocals - n + 8);
    F->pc = (int32_t)pc;
    F = &R->frames[R->nframes++];
    F->fn = fn;
    F->base = sp - n;
    F->pad = memo_slot; /* where the result is remembered, or -1 */
    if (v->fired && !R->scratch && f->kind == FN_EFFECT) v->fired(v->fired_ud, fn);
    for (int i = n; i < f->nlocals; i++) S[sp++] = 0;
    pc = f->start;
    DISPATCH();
  }
  CASE(RET) {
    x = POP();
    if (F->pad >= VM_MEMO) { /* remember a value's result with what it read */
      vm_vc_fill(v, F->pad - VM_MEMO, F->fn, S + F->base, p->funcs[F->fn].nparams, x);
      vm_dep_close(v);
    } else if (F->pad >= 0 && R->scratch) { /* remember a value's result for this epoch */
      vm_memo *m = &v->memo[F->pad];
      const func_rec *f = &p->funcs[F->fn];
      m->epoch = v->memo_epoch;
      m->fn = F->fn;
      m->nargs = f->nparams;
      memcpy(m->args, S + F->base, (size_t)f->nparams * sizeof *S);
      m->result = x;
      memcpy(m->dep, v->dep, sizeof m->dep);
      vm_dep_close(v);
    }
  ret:
    sp = F->base;
    R->nframes--;
    if (R->nframes <= stop) {
      *left = budget;
      R->sp = sp;
      NEED(1);
      S[R->sp++] = x;
      return VM_FINISHED;
    }
    F = &R->frames[R->nframes - 1];
    pc = (uint32_t)F->pc;
    PUSH(x);
    DISPATCH();
  }
  CASE(RET_VOID) x = 0; goto ret;
  CASE(BUILTIN) {
    int id = A_, n = B_;
    if (R->scratch && sema_builtins[id].effect) FAIL(VE_INTERNAL, 0, 0, 0);
    err = 0;
    errv = 0;
    sp -= n;
    R->sp = sp;
    x = vm_builtin(v, id, S + sp, &err, &errv);
    if (err) FAIL(err, id, 0, errv);
    if (id == BI_shuffle) v->shuffled_rule = p->funcs[F->fn].rule, v->shuffled_slot = (int)S[sp];
    NEED(1);
    PUSH(x);
    DISPATCH();
  }
  CASE(VAR_GET) {
  var_get: /* (F_LOAD_VAR: IPC at the VAR_GET, PC after it, its index pushed) */;
    const var_rec *vr = &p->vars[A_];
    int inst, cell;
    err = 0;
    sp -= vr->nparams;
    if (var_index(v, vr, S + sp, &inst, &cell, &err) < 0) FAIL(err, A_, 0, S[sp]);
    x = board_var_get(v->L, v->st, vr->board_var, inst, cell);
    if (vr->data && v->L->vars[vr->board_var].type == BT_FACTION) /* the board keeps game indices */
      x = x >= 0 && x < v->L->nf ? v->L->faction[x] : -1;
    if (vr->width == 2)
      x = (int64_t)(((uint64_t)(uint32_t)board_var_get(v->L, v->st, vr->board_var, inst, cell + 1) << 32) | (uint32_t)x);
    NEED(1);
    PUSH(x);
    DISPATCH();
  }
  CASE(VAR_SET) {
    const var_rec *vr = &p->vars[A_];
    int inst, cell;
    err = 0;
    y = POP();
    sp -= vr->nparams;
    if (var_index(v, vr, S + sp, &inst, &cell, &err) < 0) FAIL(err, A_, 0, S[sp]);
    if (vr->width == 2) {
      board_var_set(v->L, v->st, vr->board_var, inst, cell, (int32_t)(uint32_t)(uint64_t)y);
      board_var_set(v->L, v->st, vr->board_var, inst, cell + 1, (int32_t)(uint32_t)((uint64_t)y >> 32));
    } else {
      if (y < INT32_MIN || y > INT32_MAX) FAIL(VE_WIDE, A_, 0, y); /* never truncated */
      if (vr->data && v->L->vars[vr->board_var].type == BT_FACTION && y >= 0) {
        y = vm_game_faction(v, y);
        if (y < 0) FAIL(VE_ABSENT, A_, 0, y);
      }
      if (board_var_set(v->L, v->st, vr->board_var, inst, cell, (int32_t)y) != BOARD_OK) FAIL(VE_NEGATIVE, A_, inst, y);
    }
    DISPATCH();
  }
  CASE(VAR_TOTAL) {
    NEED(1);
    PUSH(board_var_total(v->L, v->st, p->vars[A_].board_var));
    DISPATCH();
  }
  CASE(ATTR) {
    const board_def *def = p->def;
    int tab = A_, at = B_;
    x = TOP;
    if (tab == ATTR_AREA) {
      if (x < 0 || x >= def->nareas) FAIL(VE_RANGE, 0, 0, x);
      TOP = def->areas[x].attrs[at];
    } else if (tab == ATTR_FACTION) {
      if (x < 0 || x >= def->nfactions) FAIL(VE_RANGE, 0, 0, x);
      TOP = def->factions[x].attrs[at];
    } else {
      if (x < 0 || x >= def->ncards) FAIL(VE_RANGE, 0, 0, x);
      TOP = def->cards[x].attrs[at];
    }
    DISPATCH();
  }
  /* `for c in pile` visits every card; an undecided part (chance as choice) is visited in card
   * order without deciding it: only top and draw decide which card lies where */
  CASE(PILE_CARD) y = POP(); x = TOP; TOP = board_pile_card(v->L, v->st, (int)x, (int)y); DISPATCH();
  CASE(RULE_ACTIVE) {
    NEED(1);
    if (vs->ncancel == 0) { /* the common case, inline: no cancellation to consult */
      PUSH(vm_rule_in_play(v, A_));
    } else {
      PUSH(vm_rule_active(v, A_));
    }
    DISPATCH();
  }
  CASE(RULE_LIVE) { /* a trigger's first test: a rule cancelled for longer than once is skipped before its where */
    int32_t r = A_;
    NEED(1);
    PUSH(vs->ncancel == 0 ? vm_rule_in_play(v, r) : rule_in_force(v, r, false));
    DISPATCH();
  }
  CASE(RULE_TRY) NEED(1); PUSH(R->scratch ? vm_rule_active(v, A_) : vm_rule_try(v, A_)); DISPATCH();
  CASE(CANCEL) {
    x = POP();
    if (x < 0 || x >= p->nrules) FAIL(VE_RANGE, 0, 0, x);
    if (vs->ncancel >= VM_CANCELS) FAIL(VE_STACK, 2, 0, 0);
    vm_cancel c = {(int32_t)x, A_, turn_now(v), -1};
    vs->cancel[vs->ncancel++] = c;
    DISPATCH();
  }
  CASE(CONFLICT) FAIL(VE_CONFLICT, A_, B_, 0);
  CASE(NO_DEF) FAIL(VE_NODEF, A_, 0, 0);
  CASE(PROMPT) { /* holes are kept in the decision record (flat: survives clone and save) */
    int n = p->nlist[A_];
    sp -= n;
    vs->dec.hole_types = A_;
    vs->dec.nholes = n < VM_PROMPT_HOLES ? n : VM_PROMPT_HOLES;
    for (int i = 0; i < vs->dec.nholes; i++) vs->dec.holes[i] = S[sp + i];
    DISPATCH();
  }
  CASE(ASK) {
    if (R->scratch) FAIL(VE_INTERNAL, 0, 0, 0);
    x = POP();
    y = POP();
    PROMPT_KEEP();
    vs->dec.kind = DEC_ASK;
    vs->dec.faction = (int32_t)y;
    vs->dec.elem = A_;
    vs->dec.prompt = B_;
    vs->dec.set = x;
    goto suspend;
  }
  CASE(ASK_RANGE) {
    if (R->scratch) FAIL(VE_INTERNAL, 0, 0, 0);
    int64_t hi = POP(), lo = POP();
    y = POP();
    PROMPT_KEEP();
    vs->dec.kind = DEC_RANGE;
    vs->dec.faction = (int32_t)y;
    vs->dec.prompt = A_;
    vs->dec.lo = lo;
    vs->dec.hi = hi;
    goto suspend;
  }
  CASE(MAY) {
    if (R->scratch) FAIL(VE_INTERNAL, 0, 0, 0);
    y = POP();
    PROMPT_KEEP();
    vs->dec.kind = DEC_MAY;
    vs->dec.faction = (int32_t)y;
    vs->dec.prompt = A_;
    goto suspend;
  }
  CASE(ACT) {
    if (R->scratch) FAIL(VE_INTERNAL, 0, 0, 0);
    y = POP();
    memset(&vs->dec, 0, sizeof vs->dec);
    vs->dec.hole_types = -1;
    vs->dec.kind = DEC_ACT;
    vs->dec.faction = (int32_t)y;
    vs->dec.list = A_;
    goto suspend;
  }
  CASE(CAN) { /* judged by the game's answer search, on scratch stacks: this frame's registers are untouched */
    if (R->scratch || !v->can_act) FAIL(VE_INTERNAL, 0, 0, 0);
    y = POP();
    /* while the game is positioned at a phase (seek), nothing outside the phases is played */
    PUSH(vs->seek_phase < 0 && v->can_act(v, A_, y) ? 1 : 0);
    DISPATCH();
  }
  CASE(SECRET) {
    vs->secret = A_;
    if (A_ && v->secret_vars) { /* a round begins: remember what everyone knew */
      memcpy(v->secret_vars, v->st + v->L->off_vars, v->L->off_ext - v->L->off_vars);
      v->secret_seen = true;
    }
    DISPATCH();
  }
  CASE(LOG) {
    int n = p->nlist[B_];
    sp -= n;
    do_log(v, ipc, A_, B_, S + sp);
    DISPATCH();
  }
  CASE(LOG_TO) {
    /* log for S: the holes, under them the audience (a set of data factions) */
    int n = p->nlist[B_];
    sp -= n;
    uint64_t all = 0;
    for (int i = 0; i < v->L->nf; i++)
      if (v->L->faction[i] >= 0 && v->L->faction[i] < 64) all |= (uint64_t)1 << v->L->faction[i];
    uint64_t heard = (uint64_t)S[sp - 1] & all; /* only the factions that play hear anything */
    if (heard) { /* no player to tell: no line; every player: a public line */
      v->log_audience = heard == all ? 0 : heard;
      do_log(v, ipc, A_, B_, S + sp);
      v->log_audience = 0;
    }
    sp--;
    DISPATCH();
  }
  CASE(FINISH) {
    *left = budget;
    R->sp = sp;
    F->pc = (int32_t)pc;
    vs->status = VM_FINISHED;
    return VM_FINISHED;
  }
  CASE(PHASE_BEGIN) {
    if (R->scratch) DISPATCH();
    if (vs->seek_phase >= 0) {
      if (A_ != vs->seek_phase || (p->turn_var >= 0 && turn_now(v) != vs->seek_turn)) {
        pc = (uint32_t)B_; /* skip the whole phase */
        DISPATCH();
      }
      vs->seek_phase = -1;
      pc = ipc; /* positioned: pause at the start of the phase */
      goto pause;
    }
    if (vs->stop_phase_begin == A_ + 1) { /* pause before this phase begins; it begins when resumed */
      vs->stop_phase_begin = 0;
      pc = ipc;
      goto pause;
    }
    if (vs->stop_phase_end == -2) vs->stop_phase_end = A_; /* `run phase` between phases: play the next one */
    if (vs->stop_turn >= 0 && p->turn_var >= 0 && turn_now(v) > vs->stop_turn) { /* turn stop_turn is over */
      vs->stop_turn = -1;
      pc = ipc; /* pause before this phase begins; it begins when resumed */
      goto pause;
    }
    vs->phase_rule = A_;
    if (vs->phase_seq < INT32_MAX) vs->phase_seq++; /* a count a saved file may have put anywhere */
    DISPATCH();
  }
  CASE(PHASE_END) {
    if (R->scratch) DISPATCH();
    for (int i = vs->ncancel - 1; i >= 0; i--)
      if (vs->cancel[i].scope == SCOPE_PHASE || vs->cancel[i].scope == SCOPE_ONCE) drop_cancel(vs, i);
    vs->phase_rule = -1;
    if (vs->stop_phase_end == A_) {
      vs->stop_phase_end = -1;
      goto pause;
    }
    DISPATCH();
  }
  CASE(GUARD) {
    x = POP();
    if (!x) {
      v->guard_failed = 1;
      if (v->nrefused < 64) v->refused[v->nrefused++] = A_;
    }
    DISPATCH();
  }
  CASE(BY_TAKE) {
    x = POP();
    int32_t bs = B_;
    if (LOCAL(bs) == -1 || x < LOCAL(bs + 1)) {
      LOCAL(bs) = LOCAL(A_);
      LOCAL(bs + 1) = x;
    }
    DISPATCH();
  }
  CASE(GUARD_RESULT) NEED(1); PUSH(!v->guard_failed); v->guard_failed = 0; DISPATCH();
  /* superinstructions (fuse.c): operands at their places in the original sequence */
#define AT_(k) (memcpy(&b, code + ipc + (k), 4), b)
  CASE(F_SET_NEXT) {
  set_next: /* (F_JUMP_NEXT, F_JF_NEXT: IPC at the F_SET_NEXT) */;
    uint64_t set = (uint64_t)LOCAL(A_);
    if (!set) {
      pc = (uint32_t)AT_(12);
      DISPATCH();
    }
    LOCAL(AT_(23)) = __builtin_ctzll((unsigned long long)set);
    LOCAL(a) = (int64_t)(set & (set - 1));
    pc = ipc + 44;
    DISPATCH();
  }
  CASE(F_JUMP_NEXT) ipc = (uint32_t)A_; goto set_next;
  CASE(F_JF_NEXT) if (POP()) DISPATCH(); ipc = (uint32_t)A_; goto set_next;
  CASE(F_LOAD_VAR) NEED(1); PUSH(LOCAL(A_)); ipc += 5; pc = ipc + 5; goto var_get;
  CASE(F_PUSHK_STORE) LOCAL(AT_(6)) = A_; pc = ipc + 10; DISPATCH();
  CASE(F_LOAD_CALL) NEED(1); PUSH(LOCAL(A_)); ipc += 5; pc = ipc + 9; goto call;
  CASE(F_LOAD2_CALL) NEED(2); PUSH(LOCAL(A_)); PUSH(LOCAL(AT_(6))); ipc += 10; pc = ipc + 9; goto call;
  CASE(F_EQK_JT) pc = LOCAL(A_) == AT_(6) ? (uint32_t)AT_(12) : ipc + 16; DISPATCH();
  CASE(F_EQK_JF) pc = LOCAL(A_) != AT_(6) ? (uint32_t)AT_(12) : ipc + 16; DISPATCH();
  CASE(F_EQK) NEED(1); x = LOCAL(A_) == AT_(6); PUSH(x); pc = ipc + 11; DISPATCH();
  CASE(F_SET_DROP) {
    x = LOCAL(AT_(6));
    LOCAL(AT_(13)) = (int64_t)((uint64_t)LOCAL(A_) & ~(x >= 0 && x < 64 ? 1ull << x : 0ull));
    pc = ipc + 17;
    DISPATCH();
  }
  CASE(F_FIRST_TO) x = LOCAL(A_); LOCAL(AT_(7)) = x ? __builtin_ctzll((unsigned long long)x) : -1; pc = ipc + 11; DISPATCH();
  CASE(F_RULE_JF) {
    int32_t r = A_;
    bool on = vs->ncancel == 0 ? vm_rule_in_play(v, r) : vm_rule_active(v, r);
    pc = on ? ipc + 10 : (uint32_t)AT_(6);
    DISPATCH();
  }
  CASE(F_EQ_JT) y = POP(); x = POP(); pc = x == y ? (uint32_t)AT_(2) : ipc + 6; DISPATCH();
  CASE(F_EQ_JF) y = POP(); x = POP(); pc = x != y ? (uint32_t)AT_(2) : ipc + 6; DISPATCH();
  CASE(F_LOAD2) NEED(2); PUSH(LOCAL(A_)); PUSH(LOCAL(AT_(6))); pc = ipc + 10; DISPATCH();
  CASE(F_STORE_LOAD) LOCAL(A_) = POP(); PUSH(LOCAL(AT_(6))); pc = ipc + 10; DISPATCH();
#undef AT_
#if !defined(__GNUC__)
  }
#endif

pause:
  *left = budget;
  F->pc = (int32_t)pc;
  R->sp = sp;
  vs->status = VM_PAUSED;
  return VM_PAUSED;

suspend:
  *left = budget;
  vs->dec.rule = F->fn >= 0 ? p->funcs[F->fn].rule : -1;
  vs->dec.pc = (int32_t)ipc;
  vs->dec.secret = vs->secret;
  F->pc = (int32_t)pc;
  R->sp = sp;
  vs->status = VM_WAITING;
  return VM_WAITING;
#undef A_
#undef B_
#undef POP
#undef PUSH
#undef TOP
#undef LOCAL
#undef FAIL
#undef NEED
#undef PROMPT_KEEP
#undef DISPATCH
#undef CASE
}

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

static int run_game(vm *v) {
  vm_state *vs = v->vs;
  v->ndep = 0;
  v->work.used = 0; /* the next decision has its own account */
  v->work.out = false;
  regs R = {vs->stack, VM_STACK, vs->sp, vs->frames, VM_FRAMES, vs->nframes, false};
  vs->status = VM_RUNNING;
  int st = run(v, &R, 0, VM_BUDGET, NULL);
  vs->sp = R.sp;
  vs->nframes = R.nframes;
  if (st == VM_FINISHED) vs->status = VM_FINISHED;
  return vs->status;
}

void vm_reset_stops(vm_state *vs) {
  vs->seek_phase = -1;
  vs->seek_turn = -1;
  vs->stop_phase_end = -1;
  vs->stop_turn = -1;
  vs->stop_phase_begin = 0;
}

int vm_start(vm *v) {
  vm_state *vs = v->vs;
  const program *p = v->p;
  int32_t seek = vs->seek_phase, seek_turn = vs->seek_turn, stop_end = vs->stop_phase_end, stop_turn = vs->stop_turn;
  int32_t stop_begin = vs->stop_phase_begin;
  memset(vs, 0, sizeof *vs);
  vs->stop_phase_begin = stop_begin;
  vs->phase_rule = -1;
  vs->seek_phase = seek; /* vm_start keeps the stop conditions the caller set */
  vs->seek_turn = seek_turn;
  vs->stop_phase_end = stop_end;
  vs->stop_turn = stop_turn;
  if (p->game_rule < 0 || p->rules[p->game_rule].body_fn < 0) {
    fail(v, VE_NOGAME, 0, 0, 0, 0);
    return VM_FAILED;
  }
  const func_rec *f = &p->funcs[p->rules[p->game_rule].body_fn];
  vs->frames[0].fn = p->rules[p->game_rule].body_fn;
  vs->frames[0].pc = (int32_t)f->start;
  vs->frames[0].base = 0;
  vs->nframes = 1;
  vs->sp = f->nlocals;
  for (int i = 0; i < f->nlocals; i++) vs->stack[i] = 0;
  return run_game(v);
}

int vm_run(vm *v) {
  if (v->vs->status != VM_WAITING && v->vs->status != VM_RUNNING && v->vs->status != VM_PAUSED) return v->vs->status;
  return run_game(v);
}

void vm_memo_wrap(vm *v) {
  if (v->memo) memset(v->memo, 0, VM_MEMO * sizeof *v->memo);
  v->memo_epoch = 1;
}

bool vm_eval(vm *v, int fn, const int64_t *args, int nargs, int64_t *out, strbuf *err) {
  return vm_eval_at(v, fn, args, nargs, out, err, NULL);
}

bool vm_eval_at(vm *v, int fn, const int64_t *args, int nargs, int64_t *out, strbuf *err, const diag *d) {
  int64_t stack[256];
  vm_frame frames[24];
  const func_rec *f = &v->p->funcs[fn];
  if (f->nlocals > 200) return false;
  /* a failure during scratch evaluation must not disturb the game's status */
  vm_state *vs = v->vs;
  int32_t save_status = vs->status, save_code = vs->err_code, save_pc = vs->err_pc, sa = vs->err_a, sb = vs->err_b;
  int64_t sv = vs->err_v;
  for (int i = 0; i < nargs; i++) stack[i] = args[i];
  for (int i = nargs; i < f->nlocals; i++) stack[i] = 0;
  frames[0].fn = fn;
  frames[0].pc = (int32_t)f->start;
  frames[0].base = 0;
  frames[0].pad = -1;
  if (!v->memo) {
    v->memo = mt_calloc(VM_MEMO, sizeof *v->memo);
    v->memo_epoch = 1;
  }
  regs R = {stack, 256, f->nlocals, frames, 24, 1, true};
  uint64_t limit = VM_BUDGET, used = 0;
  vm_work *w = &v->work;
  if (w->counting) { /* the decision's account pays, up to what is left of it */
    uint64_t budget = w->limit ? w->limit : MT_WORK_BUDGET, left = w->used < budget ? budget - w->used : 0;
    if (w->out) return false;
    if (left < limit) limit = left;
  }
  int st;
  int64_t native_out = 0;
  int ndep = v->ndep; /* remembered calls a failure leaves open are closed here */
  bool native = fn < v->p->nnative && v->p->native[fn] && !v->chance;
  if (native) { /* the C translation (native.c) */
    uint64_t left = limit;
    uint64_t steps = v->steps;
    st = native_call(v, fn, args, &native_out, &left, 24) ? VM_FINISHED : VM_FAILED;
    used = limit - left;
    v->steps = steps + used;
    if (st == VM_FAILED && vs->err_code == VE_BUDGET) vs->err_v = (int64_t)limit;
  } else {
    st = run(v, &R, 0, limit, &used);
  }
  bool ok = st == VM_FINISHED;
  v->ndep = ndep;
  if (w->counting) {
    w->used += used;
    if (w->used > w->peak) w->peak = w->used;
    if (!ok && vs->err_code == VE_BUDGET) {
      w->out = true;
      w->endless = limit == VM_BUDGET;
      w->fn = fn;
      w->pc = vs->err_pc;
    }
  }
  if (ok) *out = native ? native_out : stack[R.sp - 1];
  else if (err) vm_error_text(v, d, err);
  vs->status = save_status;
  vs->err_code = save_code;
  vs->err_pc = save_pc;
  vs->err_a = sa;
  vs->err_b = sb;
  vs->err_v = sv;
  return ok;
}

void vm_error_text(const vm *v, const diag *d, strbuf *out) {
  const program *p = v->p;
  const vm_state *vs = v->vs;
  uint32_t pc = (uint32_t)vs->err_pc;
  int fn = cg_func_at(p, pc);
  int r = fn >= 0 ? p->funcs[fn].rule : -1;
  mt_span sp = cg_span_at(p, pc);
  if (d && sp.file != DIAG_NOFILE) {
    uint32_t line, col;
    diag_linecol(d, sp.file, sp.start, &line, &col);
    sb_printf(out, "%s:%u:%u: ", diag_source_name(d, sp.file), line, col);
  }
  sb_puts(out, "runtime error");
  if (r >= 0) sb_printf(out, " in rule %s (%s)", p->rules[r].id, p->rules[r].title ? p->rules[r].title : "");
  sb_puts(out, ": ");
  switch (vs->err_code) {
  case VE_DIV:
    if (vs->err_v < 0) sb_printf(out, "division by %lld: div_up and div_round divide by a positive number", (long long)vs->err_v);
    else sb_puts(out, "division by zero");
    break;
  case VE_OVERFLOW: sb_puts(out, "integer overflow"); break;
  case VE_WIDE:
    sb_printf(out, "variable '%s' cannot hold %lld: the state keeps 32-bit integers (-2147483648..2147483647)",
              p->vars[vs->err_a].name, (long long)vs->err_v);
    break;
  case VE_STACK:
    if (vs->err_a == 2) {
      sb_puts(out, "too many cancellations in force");
    } else if (vs->err_a == 1 && v->ncycle > 0) {
      sb_puts(out, "the rules nest calls too deeply: the calls cycle through ");
      cycle_text(v, out);
    } else {
      sb_puts(out, "the rules nest calls too deeply (recursion?)");
    }
    break;
  case VE_BUDGET:
    sb_printf(out, "still running after %llu instructions (the budget of one run): the rule does not terminate",
              (unsigned long long)vs->err_v);
    break;
  case VE_CONFLICT:
    sb_printf(out, "rules %s and %s both apply at the same precedence level and neither supersedes the other",
              p->rules[vs->err_a].id, p->rules[vs->err_b].id);
    break;
  case VE_NODEF: sb_printf(out, "no definition of value '%s' applies here", p->values[vs->err_a].name); break;
  case VE_NEGATIVE:
    if (v->L->vars[p->vars[vs->err_a].board_var].kind == BV_COUNTER)
      sb_printf(out, "counter '%s' cannot go below zero (would be %lld)", p->vars[vs->err_a].name, (long long)vs->err_v);
    else
      sb_printf(out, "variable '%s' cannot hold %lld", p->vars[vs->err_a].name, (long long)vs->err_v);
    break;
  case VE_SHORT: sb_puts(out, "not enough tokens there to move"); break;
  case VE_ABSENT: sb_puts(out, "that faction is not in this game"); break;
  case VE_SECTION: sb_puts(out, "that territory does not lie in that sector"); break;
  case VE_RANGE:
    if (vs->err_v == -1) sb_puts(out, "none was used where a faction, territory, card, leader or rule is needed");
    else sb_printf(out, "value %lld is out of range", (long long)vs->err_v);
    break;
  case VE_NOGAME: sb_puts(out, "the rules have no game rule to run"); break;
  case VE_CARD: sb_puts(out, "that card cannot go there"); break;
  case VE_CHANCE:
    sb_puts(out, v->chance && v->chance->bad ? "the outcome given for this random event is not one it can have"
                                             : "a random event needs an outcome (chance as choice)");
    break;
  default: sb_puts(out, "internal error (an effect in a pure evaluation)"); break;
  }
}

/* Stores V into variable VAR at ARGS as `set` would (faction mapping, counter
 * limits); returns 0 or a VE_* code. */
int vm_var_store(vm *v, int var, const int64_t *args, int64_t x) {
  const var_rec *vr = &v->p->vars[var];
  int inst, cell, err = 0;
  if (var_index(v, vr, args, &inst, &cell, &err) < 0) return err;
  if (vr->width == 2) {
    board_var_set(v->L, v->st, vr->board_var, inst, cell, (int32_t)(uint32_t)(uint64_t)x);
    board_var_set(v->L, v->st, vr->board_var, inst, cell + 1, (int32_t)(uint32_t)((uint64_t)x >> 32));
    return 0;
  }
  if (x < INT32_MIN || x > INT32_MAX) return VE_WIDE;
  if (vr->data && v->L->vars[vr->board_var].type == BT_FACTION && x >= 0) {
    x = vm_game_faction(v, x);
    if (x < 0) return VE_ABSENT;
  }
  return board_var_set(v->L, v->st, vr->board_var, inst, cell, (int32_t)x) == BOARD_OK ? 0 : VE_NEGATIVE;
}

/* Runs effect function FN with ARGS now, on the game's own stack, above a
 * suspended or paused game (an "any time" action such as a bribe); the game
 * then stays where it was.  The effect must not ask a decision.  Returns 0,
 * or -1 with the state left as the effect made it (an error is recorded). */
int vm_call_now(vm *v, int fn, const int64_t *args, int nargs) {
  vm_state *vs = v->vs;
  const func_rec *f = &v->p->funcs[fn];
  if (vs->sp + f->nlocals + 16 > VM_STACK || vs->nframes >= VM_FRAMES) return -1;
  int32_t status = vs->status;
  vm_decision dec = vs->dec;
  int32_t stop = vs->nframes;
  int base = vs->sp;
  for (int i = 0; i < nargs; i++) vs->stack[vs->sp++] = args[i];
  for (int i = nargs; i < f->nlocals; i++) vs->stack[vs->sp++] = 0;
  vm_frame *fr = &vs->frames[vs->nframes++];
  fr->fn = fn;
  fr->pc = (int32_t)f->start;
  fr->base = base;
  fr->pad = -1;
  regs R = {vs->stack, VM_STACK, vs->sp, vs->frames, VM_FRAMES, vs->nframes, false};
  int st = run(v, &R, stop, VM_BUDGET, NULL);
  if (st == VM_FINISHED && R.nframes == stop) {
    vs->sp = base; /* drop the effect's result */
    vs->nframes = stop;
    vs->status = status;
    vs->dec = dec;
    return 0;
  }
  if (st == VM_WAITING) fail(v, VE_INTERNAL, 0, 0, 0, 0); /* an any-time action may not ask */
  return -1;
}
