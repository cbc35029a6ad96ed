/* hash.c -- the position hash (mt_hash) and its raw, layout-bound twin
 * (mt_hash_raw).
 *
 * Pipeline stage: beside the engine API (game.c), read by `play`, the
 * console and the golden games.  A game's state is a flat block whose
 * layout follows the compiled rule set: one slot per variable declared
 * anywhere in the pack, frames naming functions by index and code by pc.
 * Hashing those bytes would make every golden hash move whenever a rule, a
 * variable or a function is added, even one that is not in force.  mt_hash
 * therefore hashes what the position means (docs/state-format.md, "The
 * state hash"):
 *
 *  - the regions whose layout only the component data and the game's
 *    factions decide (the generator, tokens, cards, pile counts, leaders)
 *    as they are;
 *  - each variable by its name and values, skipped while every cell holds
 *    its declared initial value; rule names held by a variable as the name;
 *  - the VM's continuation by meaning: each frame as its function's key
 *    (rule id, what the function is, its rank among that rule's functions
 *    of the kind) and the rank of its resume point in the function's own
 *    code (verify.c), then its live slots (a rule as its id); the decision
 *    by kind, faction, prompt text, rule id and the names of its actions;
 *    cancellations by rule id.
 *
 * The variables are combined by addition, so their order does not count.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "game.h"

#define SEED 0x6d656e746174ull

static uint64_t mixw(uint64_t h, uint64_t w) {
  h ^= w * 0x9e3779b97f4a7c15ull;
  h = (h << 31 | h >> 33) * 0xbf58476d1ce4e5b9ull;
  return h ^ (h >> 29);
}

static uint64_t str_key(const char *s) { return s ? mt_hash_bytes(s, strlen(s), 0x737472ull) : 0; }

typedef struct fn_rank {
  uint64_t key;
  int fn;
} fn_rank;

static int cmp_rank(const void *a, const void *b) {
  const fn_rank *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->fn - y->fn;
}

void game_hash_prepare(mt_rules *r) {
  const program *p = &r->prog;
  game_hash_free(r);
  r->rule_key = mt_calloc((size_t)p->nrules + 1, sizeof *r->rule_key);
  for (int i = 0; i < p->nrules; i++) r->rule_key[i] = str_key(p->rules[i].id);
  r->nrule_key = p->nrules;
  r->action_key = mt_calloc((size_t)p->nactions + 1, sizeof *r->action_key);
  for (int i = 0; i < p->nactions; i++) r->action_key[i] = str_key(p->actions[i].name);
  r->naction_key = p->nactions;
  /* functions: (rule, what) and the rank among the functions sharing both,
   * in compilation order (a rule's two `after shipped` triggers are 0, 1) */
  int n = p->nverified;
  fn_rank *rk = mt_calloc((size_t)n + 1, sizeof *rk);
  for (int i = 0; i < n; i++) {
    const func_rec *f = &p->funcs[i];
    uint64_t rule = f->rule >= 0 && f->rule < p->nrules ? r->rule_key[f->rule] : 0;
    rk[i] = (fn_rank){mixw(rule, str_key(f->what)), i};
  }
  qsort(rk, (size_t)n, sizeof *rk, cmp_rank);
  r->fn_key = mt_calloc((size_t)n + 1, sizeof *r->fn_key);
  for (int i = 0, rank = 0; i < n; i++) {
    rank = i > 0 && rk[i].key == rk[i - 1].key ? rank + 1 : 0;
    r->fn_key[rk[i].fn] = mixw(rk[i].key, (uint64_t)rank);
  }
  r->nfn_key = n;
  mt_free(rk);
  /* variables, in the layout's order: the data's, then the rules' */
  const board_def *def = r->def;
  r->nvar_key = def->nvars + p->nvar_decls;
  r->var_key = mt_calloc((size_t)r->nvar_key + 1, sizeof *r->var_key);
  for (int i = 0; i < def->nvars; i++) r->var_key[i] = str_key(def->vars[i].name);
  for (int i = 0; i < p->nvar_decls; i++) r->var_key[def->nvars + i] = str_key(p->var_decls[i].name);
}

void game_hash_free(mt_rules *r) {
  mt_free(r->fn_key);
  mt_free(r->rule_key);
  mt_free(r->action_key);
  mt_free(r->var_key);
  r->fn_key = r->rule_key = r->action_key = r->var_key = NULL;
  r->nfn_key = r->nrule_key = r->naction_key = r->nvar_key = 0;
}

/* A rule index as its id's key (other values as they are: -1, -2 ...). */
static uint64_t rule_of(const mt_rules *r, int64_t x) {
  return x >= 0 && x < r->nrule_key ? r->rule_key[x] : (uint64_t)x;
}

/* A value of kind K (a TY_* code, 0 for any): a rule by its id, a set of
 * rules by the sum of its members' ids, anything else as it is (entity
 * indices follow the component data, not the rules). */
static uint64_t value_of(const mt_rules *r, int k, int64_t x) {
  if (k == TY_RULE) return rule_of(r, x);
  if (k == (TY_RULE | TY_SETBIT)) {
    uint64_t s = 0;
    for (int i = 0; i < 64; i++)
      if ((uint64_t)x >> i & 1u) s += rule_of(r, i);
    return s;
  }
  return (uint64_t)x;
}

/* One cell value of a variable that holds names (BT_NAME: rules, kinds,
 * pools ...): the name, or for a set the sum of its members' names (cell
 * C of a WIDTH-cell set holds members 32*C ...). */
static uint64_t name_cell(const board_var *v, int32_t x, int c) {
  if (!v->set) return x >= 0 && x < v->nvalues ? str_key(v->values[x]) : (uint64_t)(int64_t)x;
  uint64_t s = 0;
  for (int i = 0; i < 32; i++)
    if ((uint32_t)x >> i & 1u) {
      int m = 32 * (c % (v->width > 1 ? v->width : 1)) + i;
      s += m < v->nvalues ? str_key(v->values[m]) : (uint64_t)m;
    }
  return s;
}

/* The variables: the sum over those not at their initial value of a hash
 * of name and cells. */
static uint64_t hash_vars(const mt_game *g) {
  const board_layout *L = g->L;
  const mt_rules *r = g->r;
  uint64_t sum = 0;
  for (int v = 0; v < L->nvars; v++) {
    const board_var *bv = &L->vars[v];
    size_t inst = bv->scope == BS_FACTION ? (size_t)L->nf : bv->scope == BS_SECTION ? (size_t)L->def->nsections : 1;
    size_t n = inst * (size_t)bv->len;
    const int32_t *c = (const int32_t *)(const void *)(g->v.st + L->var_off[v]);
    size_t i = 0;
    while (i < n && c[i] == bv->initial) i++;
    if (i == n) continue;
    uint64_t key = v < r->nvar_key ? r->var_key[v] : str_key(bv->name);
    uint64_t h;
    if (bv->type == BT_NAME && bv->values) {
      h = key;
      for (size_t k = 0; k < n; k++) h = mixw(h, name_cell(bv, c[k], (int)(k % (size_t)bv->len)));
      h = mixw(h, n);
    } else {
      h = mt_hash_bytes(c, n * sizeof *c, key);
    }
    sum += mixw(h, key);
  }
  return sum;
}

/* The decision record by meaning.  Only its kind when none is pending: the
 * rest is left over from the last decision and plays no part. */
static uint64_t hash_decision(const mt_game *g, uint64_t h) {
  const mt_rules *r = g->r;
  const program *p = &r->prog;
  const vm_decision *d = &g->v.vs->dec;
  h = mixw(h, (uint64_t)d->kind);
  if (d->kind == DEC_NONE) return h;
  h = mixw(h, (uint64_t)d->faction);
  h = mixw(h, rule_of(r, d->rule));
  h = mixw(h, (uint64_t)d->secret);
  if (d->kind == DEC_ACT) {
    if (d->list >= 0 && d->list < p->nlists)
      for (int i = 0; i < p->nlist[d->list]; i++) {
        int a = p->lists[d->list][i];
        h = mixw(h, a >= 0 && a < r->naction_key ? r->action_key[a] : (uint64_t)a);
      }
    return h;
  }
  h = mixw(h, d->prompt >= 0 && d->prompt < p->nstrings ? str_key(p->strings[d->prompt]) : (uint64_t)d->prompt);
  h = mixw(h, (uint64_t)d->elem);
  h = mixw(h, (uint64_t)d->set);
  h = mixw(h, (uint64_t)d->lo);
  h = mixw(h, (uint64_t)d->hi);
  h = mixw(h, (uint64_t)d->nholes);
  bool typed = d->hole_types >= 0 && d->hole_types < p->nlists;
  for (int i = 0; i < d->nholes && i < VM_PROMPT_HOLES; i++) {
    int ty = typed && i < p->nlist[d->hole_types] ? p->lists[d->hole_types][i] : 0;
    h = mixw(h, (uint64_t)ty);
    h = mixw(h, value_of(r, ty, d->holes[i]));
  }
  return h;
}

/* The frames and their live slots.  A frame is its function's key and the
 * rank of the point where it stands in that function's code; one that
 * stands on no point (a failed game) counts its offset in the function. */
static uint64_t hash_frames(const mt_game *g, uint64_t h) {
  const mt_rules *r = g->r;
  const program *p = &r->prog;
  const vm_state *vs = g->v.vs;
  int top_how = vs->status == VM_WAITING ? RP_ANSWER : vs->status == VM_PAUSED ? RP_PAUSE
                : vs->status == VM_FINISHED                                 ? RP_FINISH
                                                                            : RP_ANSWER | RP_RETURN | RP_PAUSE | RP_FINISH;
  int32_t from = 0;
  for (int i = 0; i < vs->nframes; i++) {
    const vm_frame *fr = &vs->frames[i];
    bool top = i == vs->nframes - 1;
    bool known = fr->fn >= 0 && fr->fn < r->nfn_key;
    h = mixw(h, known ? r->fn_key[fr->fn] : (uint64_t)fr->fn);
    const resume_point *rp = known ? vm_resume_point(p, fr->fn, (uint32_t)fr->pc, top ? top_how : RP_RETURN) : NULL;
    if (rp) h = mixw(h, (uint64_t)rp->ord);
    else h = mixw(h, (uint64_t)1 << 32 ^ (uint64_t)(fr->pc - (known ? (int32_t)p->funcs[fr->fn].start : 0)));
    int32_t to = top ? vs->sp : vs->frames[i + 1].base;
    if (fr->base > from) from = fr->base;
    if (to > VM_STACK) to = VM_STACK;
    h = mixw(h, (uint64_t)(to - from));
    const int32_t *kinds = rp ? p->resume_kinds + rp->kinds : NULL;
    for (int32_t s = from; s < to; s++) {
      int k = kinds && s - fr->base < rp->depth ? kinds[s - fr->base] : 0;
      h = mixw(h, value_of(r, k, vs->stack[s]));
    }
    from = to > from ? to : from;
  }
  if (vs->nframes == 0)
    for (int32_t s = 0; s < vs->sp && s < VM_STACK; s++) h = mixw(h, (uint64_t)vs->stack[s]);
  return h;
}

/* The continuation's header and error record by meaning. */
static uint64_t hash_vm(const mt_game *g, uint64_t h) {
  const mt_rules *r = g->r;
  const program *p = &r->prog;
  const vm_state *vs = g->v.vs;
  h = mixw(h, (uint64_t)vs->status);
  h = mixw(h, (uint64_t)vs->nframes);
  h = mixw(h, (uint64_t)vs->sp);
  h = mixw(h, vs->status == VM_IDLE ? 0 : rule_of(r, vs->phase_rule)); /* 0, not rule 0, before the start */
  h = mixw(h, (uint64_t)vs->phase_seq);
  h = mixw(h, (uint64_t)vs->secret);
  h = mixw(h, rule_of(r, vs->seek_phase));
  h = mixw(h, (uint64_t)vs->seek_turn);
  h = mixw(h, rule_of(r, vs->stop_phase_end));
  h = mixw(h, (uint64_t)vs->stop_turn);
  h = mixw(h, (uint64_t)vs->err_code);
  uint64_t a = (uint64_t)vs->err_a, b = (uint64_t)vs->err_b;
  switch (vs->err_code) { /* what err_a and err_b name, by name */
  case VE_CONFLICT: a = rule_of(r, vs->err_a), b = rule_of(r, vs->err_b); break;
  case VE_NODEF:
    if (vs->err_a >= 0 && vs->err_a < p->nvalues) a = str_key(p->values[vs->err_a].name);
    break;
  case VE_NEGATIVE:
  case VE_WIDE:
    if (vs->err_a >= 0 && vs->err_a < p->nvars) a = str_key(p->vars[vs->err_a].name);
    break;
  default: break;
  }
  h = mixw(mixw(h, a), b);
  h = mixw(h, (uint64_t)vs->err_v);
  h = mixw(h, (uint64_t)vs->ncancel);
  for (int i = 0; i < vs->ncancel && i < VM_CANCELS; i++) {
    const vm_cancel *c = &vs->cancel[i];
    h = mixw(h, rule_of(r, c->rule));
    h = mixw(h, (uint64_t)c->scope);
    h = mixw(h, (uint64_t)c->stamp);
    h = mixw(h, (uint64_t)c->faction);
  }
  h = hash_decision(g, h);
  return hash_frames(g, h);
}

uint64_t mt_hash(const mt_game *g) {
  const board_layout *L = g->L;
  uint64_t h = mt_hash_bytes(g->v.st + L->off_rng, 4 * sizeof(uint64_t), SEED);
  /* tokens, cards, pile counts, leaders: to the last leader, not the block's
   * end, whose padding depends on the variables' size */
  size_t end = L->off_leaders + (size_t)L->def->nleaders * sizeof(board_leader_state);
  h = mt_hash_bytes(g->v.st + L->off_stacks, end - L->off_stacks, h);
  for (int s = 0; s < L->npile_slots; s++) { /* chance as choice: undecided parts (none in ordinary play) */
    int u = board_pile_unknown(L, g->v.st, s);
    if (u) h = mixw(mixw(h, 0x756e6b6e6f776eull + (uint64_t)(unsigned)s), (uint64_t)u);
  }
  h = mixw(h, hash_vars(g));
  h = hash_vm(g, h);
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 33);
}

/* The state's bytes as laid out: the VM's live continuation (its header
 * without code addresses, the cancellations and frames in use, the live
 * stack) and the board block around it, but for its generations. */
uint64_t mt_hash_raw(const mt_game *g) {
  const vm_state *vs = g->v.vs;
  vm_state head;
  memcpy(&head, vs, offsetof(vm_state, cancel));
  head.dec.pc = 0;
  head.err_pc = 0;
  uint64_t h = mt_hash_bytes(&head, offsetof(vm_state, cancel), SEED);
  h = mt_hash_bytes(vs->cancel, (size_t)vs->ncancel * sizeof *vs->cancel, h);
  h = mt_hash_bytes(vs->frames, (size_t)vs->nframes * sizeof *vs->frames, h);
  h = mt_hash_bytes(vs->stack, (size_t)vs->sp * sizeof *vs->stack, h);
  const board_layout *L = g->L;
  size_t ext_end = L->off_ext + L->ext_words * sizeof(int32_t);
  h = mt_hash_bytes(g->v.st, L->off_ext, h);
  return mt_hash_bytes(g->v.st + ext_end, L->off_gen - ext_end, h); /* not the generations (board.h) */
}
