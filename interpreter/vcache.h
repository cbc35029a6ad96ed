/* vcache.h -- the value cache's lookups, for the VM's CALL and RET and its
 * entry points (vm.h says what the cache keeps; reads.c which functions it
 * may keep).  Private to the interpreter: vm.c and vcache.c.
 *
 * An entry is keyed by its function and arguments and holds the bytes of the
 * variables its function reads, the leaders' generation if it reads them,
 * and the generations of the token zones and piles its evaluation read
 * (vm_dep).  A lookup that hits passes what the entry read to the calls
 * around it (v->dep), as running the function would have. */
#ifndef MENTAT_VCACHE_H
#define MENTAT_VCACHE_H

#include <string.h>

#include "util.h"
#include "vm.h"

/* May FN's result come from the value cache now?  Not while a cancellation
 * is in force if it reads them.  (With chance as choice, a value that reads an
 * undecided card fixes it as it reads it: the entry is keyed by the state
 * after the evaluation, which holds that card, so it serves only there.) */
static inline bool vm_vc_usable(const vm *v, int fn) {
  const vm_vcache *vc = v->vcache;
  return vc && fn < vc->nfuncs && vc->nreg[fn] >= 0 && (!vc->cancel[fn] || v->vs->ncancel == 0);
}

/* The slot of FN with ARGS (N of them). */
static inline int vm_vc_slot(int fn, const int64_t *args, int n) {
  uint64_t h = (uint64_t)(uint32_t)fn * 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < n; i++) h = (h ^ (uint64_t)args[i]) * 0x100000001b3ull;
  return (int)(h >> 40) & (VM_VCACHE - 1);
}

/* The variables (and leaders' generation) entry E was computed from, still in state ST? */
static inline bool vm_vc_same_bytes(const vm_vcache *c, int fn, const vm_vc_entry *e, const unsigned char *st) {
  const vm_vc_region *r = c->reg + (size_t)fn * VM_VC_REGIONS;
  const unsigned char *b = e->bytes;
  for (int i = 0, n = c->nreg[fn]; i < n; i++) { /* a few words: compared inline, 8 bytes at a time */
    const unsigned char *q = st + r[i].off;
    uint32_t len = r[i].len, k = 0;
    for (; k + 8 <= len; k += 8) {
      uint64_t x1, x2;
      memcpy(&x1, b + k, 8);
      memcpy(&x2, q + k, 8);
      if (x1 != x2) return false;
    }
    if (k < len) { /* the 4 bytes left (whole variables: multiples of 4) */
      uint32_t x1, x2;
      memcpy(&x1, b + k, 4);
      memcpy(&x2, q + k, 4);
      if (x1 != x2) return false;
    }
    b += len;
  }
  return true;
}

/* The generation word of member B of dependency part K (a token zone, a pile slot), or of the whole part. */
static inline size_t vm_vc_dep_word(const board_layout *L, int k, int b) {
  if (b < 0) return k == VM_DEP_TOKENS ? BOARD_GEN_TOKENS : BOARD_GEN_CARDS;
  return k == VM_DEP_TOKENS ? board_gen_zone(L, b) : board_gen_pile(L, b);
}

/* Do the zones and piles entry E read hold what they held? */
static inline bool vm_vc_same_deps(const vm *v, int fn, const vm_vc_entry *e) {
  if (!v->vcache->dyn[fn]) return true;
  for (int k = 0; k < VM_NDEP; k++) {
    uint64_t d = e->dep[k];
    if (d & VM_DEP_ALL) {
      if (e->gen[k][0] != board_gen_at(v->L, v->st, vm_vc_dep_word(v->L, k, -1))) return false;
      continue;
    }
    for (int i = 0; d; i++, d &= d - 1)
      if (e->gen[k][i] != board_gen_at(v->L, v->st, vm_vc_dep_word(v->L, k, __builtin_ctzll(d)))) return false;
  }
  return true;
}

/* The entry of FN with ARGS (N, at most MAX_PARAMS), if it holds now: a hit
 * (counted, its reads passed on to the calls around it).  NULL on a miss
 * (counted), with *SLOT where the result is to go (vm_vc_fill).  Call only
 * when vm_vc_usable. */
static inline const vm_vc_entry *vm_vc_find(vm *v, int fn, const int64_t *args, int n, int *slot) {
  vm_vcache *vc = v->vcache;
  int s = vm_vc_slot(fn, args, n);
  const vm_vc_entry *e = &vc->e[s];
  bool same = e->fn == fn && e->nargs == n;
  for (int i = 0; i < n && same; i++) same = e->args[i] == args[i];
  if (same && vm_vc_same_bytes(vc, fn, e, v->st) && vm_vc_same_deps(v, fn, e)) {
    vc->hits++;
    for (int k = 0; k < VM_NDEP; k++) v->dep[k] |= e->dep[k];
    return e;
  }
  vc->misses++;
  *slot = s;
  return NULL;
}

/* A remembered call begins (a cache or memo miss about to run): what its
 * callees read is gathered apart.  False if too many are open (the call is
 * then not remembered). */
static inline bool vm_dep_open(vm *v) {
  if (!v->dep_save) v->dep_save = mt_alloc(VM_DEP_STACK * sizeof *v->dep_save); /* each entry written before it is read */
  if (v->ndep >= VM_DEP_STACK) return false;
  memcpy(v->dep_save[v->ndep++], v->dep, sizeof v->dep);
  memset(v->dep, 0, sizeof v->dep);
  return true;
}
/* It returns: the caller read what it read too. */
static inline void vm_dep_close(vm *v) {
  if (v->ndep <= 0) return;
  v->ndep--;
  for (int k = 0; k < VM_NDEP; k++) v->dep[k] |= v->dep_save[v->ndep][k];
}

/* Puts FN's RESULT for ARGS (N) into cache slot SLOT, keyed by what the state
 * holds now of what it reads and by the zones and piles v->dep says its
 * evaluation read (a remembered call's: call before vm_dep_close). */
void vm_vc_fill(vm *v, int slot, int fn, const int64_t *args, int n, int64_t result);

#endif
