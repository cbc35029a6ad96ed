/* reads.c -- what each compiled function reads of the game state, and a
 * watch that says which parts of a state changed since it last looked.
 *
 * Together they let a caller skip work that cannot give a different answer:
 * a rule's invariant that held, and reads nothing that changed since, holds
 * still.  Nothing here knows a rule or a game: the read sets come from the
 * bytecode (VAR_GET of a variable, RULE_ACTIVE, the builtins' own reads,
 * and the reads of every function called, to a fixpoint), so a rule pack
 * that adds invariants or values gets the same treatment with no change.
 *
 * The parts of a state: each variable (its cells over every instance), the
 * tokens, the cards and piles, the leaders, and the cancellations in force.
 * Anything else a function may touch (a decision, an effect, a builtin not
 * listed below) counts as RD_ALL: such a function is never skipped. */
#include <string.h>

#include "check.h"
#include "opcodes.h"
#include "reads.h"
#include "util.h"

/* What builtin ID reads of the state.  The geometry, the faction sheets, the
 * cards' data and the game's factions are fixed for a game: they read nothing.
 * Effects and anything new are RD_ALL until someone says otherwise. */
static uint32_t builtin_reads(int id, bool *storm, bool *geo) {
  *storm = false;
  /* the geometry of a state: where the attached areas stand (board_attach.c) */
  *geo = id == BI_borders || id == BI_neighbours || id == BI_distance || id == BI_within || id == BI_in_storm ||
         id == BI_reachable || id == BI_reachable_from || id == BI_tokens_at || id == BI_tokens_at_of ||
         id == BI_occupants_at || id == BI_occupied_sectors;
  switch (id) {
  case BI_factions: case BI_territories: case BI_sectors: case BI_leaders_of: case BI_in_game: case BI_count:
  case BI_first: case BI_min: case BI_max: case BI_abs: case BI_div_up: case BI_div_round: case BI_sectors_of:
  case BI_has_tag: case BI_tagged: case BI_borders: case BI_neighbours: case BI_distance: case BI_within:
  case BI_sector_add: case BI_storm_path: case BI_kinds_of: case BI_section: case BI_pool: case BI_pile:
  case BI_deck_of: case BI_strength: case BI_leader_owner: case BI_base_card: case BI_karama_window:
    return 0;
  case BI_storm_sectors: case BI_in_storm: case BI_reachable: case BI_reachable_from:
    *storm = true; /* the storm's sector is a variable of the data */
    return 0;
  case BI_tokens: case BI_tokens_of: case BI_tokens_at: case BI_tokens_at_of: case BI_pooled: case BI_pooled_of:
  case BI_occupants: case BI_occupants_at: case BI_occupied_by: case BI_controls: case BI_occupied_sectors:
    return RD_TOKENS;
  case BI_pile_size: case BI_top: case BI_holds: case BI_pile_of:
    return RD_CARDS;
  case BI_leader_status: case BI_leader_holder: case BI_leader_area: case BI_leader_used:
    return RD_LEADERS;
  case BI_in_force:
    return RD_CANCEL;
  default:
    return RD_ALL;
  }
}

static void set_var(const program *p, uint64_t *row, int bv) {
  if (bv < 0) return;
  size_t w = (size_t)bv / 64;
  if (w < p->reads_words) row[w] |= 1ull << (bv % 64);
}

void vm_reads_build(program *p) {
  mt_free(p->reads_fixed);
  mt_free(p->reads_vars);
  int nvars = (p->def ? p->def->nvars : 0) + p->nvar_decls, n = p->nfuncs;
  p->reads_words = (size_t)(nvars + 63) / 64 + 1;
  p->nreads = n;
  p->reads_fixed = mt_calloc((size_t)n + 1, sizeof *p->reads_fixed);
  p->reads_vars = mt_calloc(((size_t)n + 1) * p->reads_words, sizeof *p->reads_vars);
  int turn = p->turn_var >= 0 ? p->vars[p->turn_var].board_var : -1;
  int storm = p->def ? p->def->storm_var : -1;
  /* the calls each function makes, as (caller, callee) pairs */
  typedef struct { int caller, callee; } call_edge;
  call_edge *edges = NULL;
  size_t nedges = 0, capedges = 0;
  for (int f = 0; f < n; f++) {
    const func_rec *fr = &p->funcs[f];
    uint32_t *fixed = &p->reads_fixed[f];
    uint64_t *row = p->reads_vars + (size_t)f * p->reads_words;
    for (uint32_t pc = fr->start; pc < fr->end && pc < p->ncode;) {
      uint8_t o = p->code[pc];
      if (o >= OP__COUNT) { /* not code we understand: never skipped */
        *fixed |= RD_ALL;
        break;
      }
      int32_t a = 0;
      if (op_table[o].operands > 0) memcpy(&a, p->code + pc + 1, 4);
      switch ((opcode)o) {
      case OP_VAR_GET: case OP_VAR_TOTAL:
        if (a >= 0 && a < p->nvars) set_var(p, row, p->vars[a].board_var);
        else *fixed |= RD_ALL;
        if (a >= 0 && a < p->nvars && p->vars[a].board_var == turn && turn >= 0) *fixed |= RD_TURN;
        break;
      case OP_RULE_ACTIVE: case OP_RULE_TRY: case OP_RULE_LIVE: /* a turn-long cancellation expires with the turn */
        *fixed |= RD_CANCEL;
        set_var(p, row, turn);
        break;
      case OP_PILE_CARD: *fixed |= RD_CARDS; break;
      case OP_BUILTIN: {
        bool st = false, geo = false;
        *fixed |= builtin_reads(a, &st, &geo);
        if (st) set_var(p, row, storm);
        if (geo && p->def)
          for (uint64_t m = p->def->attached; m; m &= m - 1)
            for (int k = 0; k < 2; k++) set_var(p, row, p->def->areas[__builtin_ctzll(m)].attach_var[k]);
        if (a == BI_in_force) set_var(p, row, turn);
        break;
      }
      case OP_CALL:
        if (a < 0 || a >= n) {
          *fixed |= RD_ALL;
          break;
        }
        VEC_PUSH(edges, nedges, capedges, ((call_edge){f, a}));
        break;
      /* what suspends, effects and the answer search see everything */
      case OP_VAR_SET: case OP_ASK: case OP_ASK_RANGE: case OP_MAY: case OP_ACT: case OP_CAN: case OP_CANCEL:
      case OP_SECRET: case OP_FINISH: case OP_PHASE_BEGIN: case OP_PHASE_END: case OP_PROMPT: case OP_LOG: case OP_LOG_TO:
        *fixed |= RD_ALL;
        break;
      default: break;
      }
      pc += 1 + 4u * (uint32_t)op_table[o].operands;
    }
  }
  /* a function reads what the functions it calls read: to a fixpoint */
  for (bool more = true; more;) {
    more = false;
    for (size_t e = 0; e < nedges; e++) {
      int f = edges[e].caller, g = edges[e].callee;
      uint32_t fx = p->reads_fixed[f] | p->reads_fixed[g];
      if (fx != p->reads_fixed[f]) p->reads_fixed[f] = fx, more = true;
      uint64_t *rf = p->reads_vars + (size_t)f * p->reads_words, *rg = p->reads_vars + (size_t)g * p->reads_words;
      for (size_t w = 0; w < p->reads_words; w++)
        if ((rf[w] | rg[w]) != rf[w]) rf[w] |= rg[w], more = true;
    }
  }
  mt_free(edges);
}

bool vm_reads_cacheable(const program *p, int fn) {
  if (fn < 0 || fn >= p->nreads || !(p->funcs[fn].memo || p->funcs[fn].entry_cache) || p->funcs[fn].kind != FN_PURE)
    return false;
  if (p->funcs[fn].nparams > MAX_PARAMS || p->reads_fixed[fn] & RD_ALL) return false;
  const func_rec *fr = &p->funcs[fn];
  for (uint32_t pc = fr->start; pc < fr->end && pc < p->ncode;) { /* its arguments stay as they came */
    uint8_t o = p->code[pc];
    int32_t a = 0;
    if (op_table[o].operands > 0) memcpy(&a, p->code + pc + 1, 4);
    if (o == OP_STORE && a < fr->nparams) return false;
    pc += 1 + 4u * (uint32_t)op_table[o].operands;
  }
  return true;
}

/* ---- the watch ------------------------------------------------------------ */

void vm_watch_free(vm_watch *w) {
  mt_free(w->prev);
  mt_free(w->held);
  mt_free(w->var_of_word);
  mt_free(w->changed_vars);
  memset(w, 0, sizeof *w);
}

void vm_watch_reset(vm_watch *w, const vm *v, int nheld) {
  const board_layout *L = v->L;
  const program *p = v->p;
  if (w->size != L->size || w->L != L || w->nheld != nheld || w->words != p->reads_words) {
    vm_watch_free(w);
    w->L = L;
    w->size = L->size;
    w->prev = mt_calloc(L->size, 1);
    w->nheld = nheld;
    w->held = mt_calloc((size_t)nheld + 1, 1);
    w->words = p->reads_words;
    w->changed_vars = mt_calloc(w->words + 1, sizeof *w->changed_vars);
    /* the variable each 32-bit word of the variables' region belongs to */
    size_t nw = (L->off_ext - L->off_vars) / 4;
    w->var_of_word = mt_calloc(nw + 1, sizeof *w->var_of_word);
    for (int i = 0; i < L->nvars; i++) {
      size_t end = i + 1 < L->nvars ? L->var_off[i + 1] : L->off_ext;
      for (size_t off = L->var_off[i]; off < end; off += 4) w->var_of_word[(off - L->off_vars) / 4] = i;
    }
  }
  memset(w->held, 0, (size_t)nheld);
  w->primed = false;
}

/* The cancellations in force: their count and records (the rest of the
 * continuation is the VM's own business). */
static bool cancels_differ(const vm_state *a, const vm_state *b) {
  return a->ncancel != b->ncancel || memcmp(a->cancel, b->cancel, (size_t)a->ncancel * sizeof *a->cancel) != 0;
}

void vm_watch_diff(vm_watch *w, const vm *v) {
  const board_layout *L = v->L;
  const unsigned char *st = v->st, *pv = w->prev;
  memset(w->changed_vars, 0, w->words * sizeof *w->changed_vars);
  w->changed_fixed = 0;
  if (!w->primed) {
    w->changed_fixed = RD_ALL;
    return;
  }
  /* the variables: blocks of 64 bytes compared whole, the words of a differing one one by one */
  size_t vars = (L->off_ext - L->off_vars) / 4;
  const uint32_t *a = (const uint32_t *)(const void *)(st + L->off_vars);
  const uint32_t *b = (const uint32_t *)(const void *)(pv + L->off_vars);
  for (size_t blk = 0; blk < vars; blk += 16) {
    size_t end = blk + 16 < vars ? blk + 16 : vars;
    if (memcmp(a + blk, b + blk, (end - blk) * 4) == 0) continue;
    for (size_t i = blk; i < end; i++)
      if (a[i] != b[i]) {
        int var = w->var_of_word[i];
        if ((size_t)var / 64 < w->words) w->changed_vars[var / 64] |= 1ull << (var % 64);
      }
  }
  /* the tokens, the cards and piles, the leaders: by their generations (board.h) */
  static const uint32_t part_reads[BOARD_NGEN] = {RD_TOKENS, RD_CARDS, RD_LEADERS};
  for (int k = 0; k < BOARD_NGEN; k++)
    if (board_gen(L, st, k) != board_gen(L, pv, k)) w->changed_fixed |= part_reads[k];
  uintptr_t vs_off = (uintptr_t)((const unsigned char *)v->vs - st);
  if (cancels_differ(v->vs, (const vm_state *)(const void *)(pv + vs_off))) w->changed_fixed |= RD_CANCEL;
}

bool vm_watch_stale(const vm_watch *w, const program *p, int fn) {
  if (fn < 0 || fn >= p->nreads || w->changed_fixed & RD_ALL) return true;
  uint32_t fx = p->reads_fixed[fn];
  if (fx & RD_ALL || fx & w->changed_fixed) return true;
  const uint64_t *row = p->reads_vars + (size_t)fn * p->reads_words;
  for (size_t i = 0; i < w->words; i++)
    if (row[i] & w->changed_vars[i]) return true;
  return false;
}

void vm_watch_commit(vm_watch *w, const vm *v) {
  const board_layout *L = v->L;
  /* the variables, the generations of the tokens, cards and leaders (what vm_watch_diff compares of
   * them), and the cancellations: not the parts themselves, nor the VM's frames and stack */
  memcpy(w->prev + L->off_vars, v->st + L->off_vars, L->off_ext - L->off_vars);
  memcpy(w->prev + L->off_gen, v->st + L->off_gen, BOARD_NGEN * sizeof(uint64_t));
  uintptr_t vs_off = (uintptr_t)((const unsigned char *)v->vs - v->st);
  vm_state *pv = (vm_state *)(void *)(w->prev + vs_off);
  pv->ncancel = v->vs->ncancel;
  memcpy(pv->cancel, v->vs->cancel, (size_t)v->vs->ncancel * sizeof *pv->cancel);
  w->primed = true;
}
