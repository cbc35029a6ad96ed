/* vcache.c -- the value cache (vm.h): which functions it keeps and under
 * what key (from their read sets, reads.c), and how an entry is filled; the
 * lookups the VM makes at every call are inline, in vcache.h.  Nothing here
 * knows a rule: any value or guard a pack compiles is kept if what it reads
 * can be told cheaply. */
#include "vcache.h"

#include <string.h>

#include "board.h"
#include "reads.h"
#include "util.h"

vm_vcache *vm_vcache_new(const program *p, const board_layout *L) {
  vm_vcache *c = NULL;
  for (int fn = 0; fn < p->nreads; fn++) {
    if (!vm_reads_cacheable(p, fn)) continue;
    const uint64_t *row = p->reads_vars + (size_t)fn * p->reads_words;
    vm_vc_region reg[VM_VC_REGIONS];
    int n = 0;
    size_t bytes = 0;
    bool fits = true;
    /* the turn, when only RULE_ACTIVE reads it (a turn-long cancellation expires with the turn): an
     * entry reading cancellations serves only while none is in force, and then the turn is not read */
    int turn = p->turn_var >= 0 ? p->vars[p->turn_var].board_var : -1;
    bool skip_turn = (p->reads_fixed[fn] & RD_CANCEL) && !(p->reads_fixed[fn] & RD_TURN);
    for (int i = 0; i < L->nvars && fits; i++) {
      if (!((size_t)i / 64 < p->reads_words && row[i / 64] >> (i % 64) & 1u)) continue;
      if (i == turn && skip_turn) continue;
      size_t end = i + 1 < L->nvars ? L->var_off[i + 1] : L->off_ext;
      bytes += end - L->var_off[i];
      fits = n < VM_VC_REGIONS && bytes <= VM_VC_BYTES;
      if (fits) reg[n++] = (vm_vc_region){(uint32_t)L->var_off[i], (uint32_t)(end - L->var_off[i])};
    }
    /* the leaders it reads: by their generation (board.h); the tokens and piles by those of the
     * zones and piles each evaluation reads (vm.h) */
    if (p->reads_fixed[fn] & RD_LEADERS) {
      bytes += sizeof(uint64_t);
      fits = n < VM_VC_REGIONS && bytes <= VM_VC_BYTES;
      if (fits) reg[n++] = (vm_vc_region){(uint32_t)(L->off_gen + BOARD_GEN_LEADERS * sizeof(uint64_t)), sizeof(uint64_t)};
    }
    if (!fits) continue;
    if (!c) {
      c = mt_calloc(1, sizeof *c);
      c->nfuncs = p->nreads;
      c->nreg = mt_alloc((size_t)p->nreads);
      memset(c->nreg, -1, (size_t)p->nreads);
      c->cancel = mt_calloc((size_t)p->nreads, sizeof *c->cancel);
      c->dyn = mt_calloc((size_t)p->nreads, sizeof *c->dyn);
      c->reg = mt_calloc((size_t)p->nreads * VM_VC_REGIONS, sizeof *c->reg);
      for (int k = 0; k < VM_VCACHE; k++) c->e[k].fn = -1;
    }
    c->nreg[fn] = (int8_t)n;
    c->cancel[fn] = (p->reads_fixed[fn] & RD_CANCEL) != 0;
    c->dyn[fn] = (uint8_t)((p->reads_fixed[fn] & RD_TOKENS ? 1u << VM_DEP_TOKENS : 0u) |
                           (p->reads_fixed[fn] & RD_CARDS ? 1u << VM_DEP_PILES : 0u));
    memcpy(c->reg + (size_t)fn * VM_VC_REGIONS, reg, (size_t)n * sizeof *reg);
  }
  return c;
}

void vm_vcache_free(vm_vcache *c) {
  if (!c) return;
  mt_free(c->nreg);
  mt_free(c->cancel);
  mt_free(c->dyn);
  mt_free(c->reg);
  mt_free(c);
}

/* The variables (and leaders' generation) FN reads, as they are now, into E. */
static void take_bytes(const vm_vcache *c, int fn, vm_vc_entry *e, const unsigned char *st) {
  const vm_vc_region *r = c->reg + (size_t)fn * VM_VC_REGIONS;
  uint32_t at = 0;
  for (int i = 0; i < c->nreg[fn]; i++) {
    memcpy(e->bytes + at, st + r[i].off, r[i].len);
    at += r[i].len;
  }
}

/* The zones and piles DEP that E's evaluation read, with their generations now
 * (up to VM_DEP_KEEP of each; more, or "every": the part's own). */
static void take_deps(const vm *v, int fn, vm_vc_entry *e, const uint64_t *dep) {
  for (int k = 0; k < VM_NDEP; k++) {
    uint64_t d = ((unsigned)v->vcache->dyn[fn] >> k) & 1u ? dep[k] : 0;
    if (d & VM_DEP_ALL || __builtin_popcountll(d) > VM_DEP_KEEP) {
      e->dep[k] = VM_DEP_ALL;
      e->gen[k][0] = board_gen_at(v->L, v->st, vm_vc_dep_word(v->L, k, -1));
      continue;
    }
    e->dep[k] = d;
    for (int i = 0; d; i++, d &= d - 1)
      e->gen[k][i] = board_gen_at(v->L, v->st, vm_vc_dep_word(v->L, k, __builtin_ctzll(d)));
  }
}

void vm_vc_fill(vm *v, int slot, int fn, const int64_t *args, int n, int64_t result) {
  vm_vc_entry *e = &v->vcache->e[slot];
  e->fn = fn;
  e->nargs = n;
  if (n) memcpy(e->args, args, (size_t)n * sizeof *args);
  e->result = result;
  take_bytes(v->vcache, fn, e, v->st);
  take_deps(v, fn, e, v->dep);
}

bool vm_eval_cached(vm *v, int fn, const int64_t *args, int nargs, int nkey, int64_t *out) {
  if (!vm_vc_usable(v, fn) || nkey > MAX_PARAMS || nkey > nargs) return vm_eval(v, fn, args, nargs, out, NULL);
  int slot;
  const vm_vc_entry *e = vm_vc_find(v, fn, args, nkey, &slot);
  if (e) {
    *out = e->result;
    return true;
  }
  if (!vm_dep_open(v)) return vm_eval(v, fn, args, nargs, out, NULL);
  int nd = v->ndep;
  if (!vm_eval(v, fn, args, nargs, out, NULL)) {
    v->ndep = nd;
    vm_dep_close(v);
    return false;
  }
  vm_vc_fill(v, slot, fn, args, nkey, *out); /* (the evaluation may have used the slot meanwhile: it is ours again) */
  vm_dep_close(v);
  return true;
}
