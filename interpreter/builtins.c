/* builtins.c -- the built-in functions of the rules language (builtins.def),
 * implemented over the generic board model.  Faction values in the language
 * are the data's faction indices; the board's state is indexed by game
 * faction, so every faction argument is mapped here, and a faction that is
 * not in the game is simply absent from every place. */
#include <string.h>

#include "check.h"
#include "vm.h"

static uint64_t all_areas(const board_def *def) { return def->nareas >= 64 ? ~0ull : (1ull << def->nareas) - 1; }

static uint64_t factions_present(const vm *v) {
  uint64_t s = 0;
  for (int i = 0; i < v->L->nf; i++) s |= 1ull << v->L->faction[i];
  return s;
}

/* game-faction bitset (board) -> def-faction bitset (language) */
static int64_t to_def_set(const vm *v, uint32_t gs) {
  uint64_t s = 0;
  for (int i = 0; i < v->L->nf; i++)
    if (gs >> i & 1u) s |= 1ull << v->L->faction[i];
  return (int64_t)s;
}

static bool area_ok(const vm *v, int64_t t) { return t >= 0 && t < v->p->def->nareas; }
static bool sector_ok(const vm *v, int64_t s) { return s >= 0 && s < v->p->def->nsectors; }


int64_t vm_builtin(vm *v, int id, const int64_t *a, int *err, int64_t *errv) {
  const board_def *def = v->p->def;
  const board_layout *L = v->L;
  unsigned char *st = v->st;
  int gf;
#define RANGE_CHECK(ok, val)                                                                                         \
  do {                                                                                                               \
    if (!(ok)) {                                                                                                     \
      *err = VE_RANGE;                                                                                               \
      *errv = (val);                                                                                                 \
      return 0;                                                                                                      \
    }                                                                                                                \
  } while (0)
  switch (id) {
  case BI_factions: return (int64_t)factions_present(v);
  case BI_territories: return (int64_t)all_areas(def);
  case BI_sectors: return def->nsectors >= 64 ? -1 : (int64_t)((1ull << def->nsectors) - 1);
  case BI_leaders_of: {
    if (a[0] < 0 || a[0] >= def->nfactions) return 0;
    uint64_t s = 0;
    const board_faction *f = &def->factions[a[0]];
    for (int i = 0; i < f->nleaders; i++)
      if (f->first_leader + i < 64) s |= 1ull << (f->first_leader + i);
    return (int64_t)s;
  }
  case BI_in_game: return vm_game_faction(v, a[0]) >= 0;
  case BI_count: return __builtin_popcountll((unsigned long long)a[0]);
  case BI_first: return a[0] ? __builtin_ctzll((unsigned long long)a[0]) : -1;
  case BI_min: return a[0] < a[1] ? a[0] : a[1];
  case BI_max: return a[0] > a[1] ? a[0] : a[1];
  case BI_abs:
    RANGE_CHECK(a[0] != INT64_MIN, a[0]);
    return a[0] < 0 ? -a[0] : a[0];
  /* C's division truncates: a rounded-up or rounded quotient is found from
   * the truncated one and the remainder, so no intermediate can overflow */
  case BI_div_up: {
    if (a[1] <= 0) return *errv = a[1], *err = VE_DIV, 0;
    int64_t q = a[0] / a[1];
    return a[0] % a[1] > 0 ? q + 1 : q;
  }
  case BI_div_round: {
    if (a[1] <= 0) return *errv = a[1], *err = VE_DIV, 0;
    int64_t q = a[0] / a[1], r = a[0] % a[1];
    if (r < 0) q--, r += a[1]; /* floor, 0 <= r < b */
    return r >= a[1] - r ? q + 1 : q; /* r / b >= 1/2: halves go up */
  }
  case BI_sectors_of: RANGE_CHECK(area_ok(v, a[0]), a[0]); return def->areas[a[0]].sectors;
  case BI_has_tag: RANGE_CHECK(area_ok(v, a[0]), a[0]); return board_area_has_tag(def, (int)a[0], (int)a[1]);
  case BI_tagged: return (int64_t)board_areas_with_tag(def, (int)a[0]);
  case BI_borders:
    RANGE_CHECK(area_ok(v, a[0]) && area_ok(v, a[1]), a[0]);
    return board_borders_at(L, st, (int)a[0], (int)a[1]);
  case BI_neighbours: RANGE_CHECK(area_ok(v, a[0]), a[0]); return (int64_t)board_neighbours_at(L, st, (int)a[0]);
  case BI_distance:
    RANGE_CHECK(area_ok(v, a[0]) && area_ok(v, a[1]), a[0]);
    return board_distance_at(L, st, (int)a[0], (int)a[1]);
  case BI_within:
    RANGE_CHECK(area_ok(v, a[0]), a[0]);
    if (a[1] < 0) return 0;
    return (int64_t)board_within_at(L, st, (int)a[0], a[1] > def->nareas ? def->nareas : (int)a[1]);
  case BI_sector_add: {
    RANGE_CHECK(sector_ok(v, a[0]), a[0]);
    int64_t n = def->nsectors;
    return (a[0] + a[1] % n + n) % n; /* each term below n: no overflow for any step */
  }
  case BI_storm_path:
    RANGE_CHECK(sector_ok(v, a[0]), a[0]);
    if (a[1] <= 0) return 0;
    return board_storm_path(def, (int)a[0], a[1] > 1000 ? 1000 : (int)a[1]);
  case BI_storm_sectors: return board_storm_sectors(L, st);
  case BI_in_storm: {
    RANGE_CHECK(area_ok(v, a[0]), a[0]);
    return board_area_in_storm_at(L, st, (int)a[0], (int)a[1]);
  }
  case BI_reachable:
    RANGE_CHECK(area_ok(v, a[0]), a[0]);
    if (a[1] < 0) return 0;
    return (int64_t)board_reachable_at(L, st, (int)a[0], a[1] > def->nareas ? def->nareas : (int)a[1], (uint64_t)a[2]);
  case BI_reachable_from: {
    RANGE_CHECK(area_ok(v, a[0]), a[0]);
    int s = board_section_of(def, (int)a[0], (int)a[1]);
    if (s < 0 && board_attached_section(L, st, (int)a[0]) >= 0) /* an attached area: from where it stands */
      return a[2] < 0 ? 0 : (int64_t)board_reachable_at(L, st, (int)a[0], a[2] > def->nareas ? def->nareas : (int)a[2], (uint64_t)a[3]);
    if (s < 0) return *err = VE_SECTION, 0;
    if (a[2] < 0) return 0;
    return (int64_t)board_reachable_from_section_at(L, st, s, a[2] > def->nareas ? def->nareas : (int)a[2], (uint64_t)a[3]);
  }
  case BI_tokens:
  case BI_tokens_of:
    gf = vm_game_faction(v, a[0]);
    if (id == BI_tokens) {
      RANGE_CHECK(area_ok(v, a[1]), a[1]);
      vm_dep(v, VM_DEP_TOKENS, (int)a[1]);
      return gf < 0 ? 0 : board_tokens_in_area(L, st, (int)a[1], gf, 0);
    }
    RANGE_CHECK(area_ok(v, a[2]) && a[1] >= 0 && a[1] < def->nkinds, a[2]);
    vm_dep(v, VM_DEP_TOKENS, (int)a[2]);
    return gf < 0 ? 0 : board_tokens_in_area(L, st, (int)a[2], gf, 1u << a[1]);
  case BI_tokens_at: {
    gf = vm_game_faction(v, a[0]);
    RANGE_CHECK(area_ok(v, a[1]), a[1]);
    vm_dep(v, VM_DEP_TOKENS, (int)a[1]);
    int s = board_section_at(L, st, (int)a[1], (int)a[2]);
    if (gf < 0 || s < 0) return 0;
    int n = 0;
    for (int k = 0; k < def->nkinds; k++) n += board_tokens(L, st, s, gf, k);
    return n;
  }
  case BI_tokens_at_of: {
    gf = vm_game_faction(v, a[0]);
    RANGE_CHECK(area_ok(v, a[2]) && a[1] >= 0 && a[1] < def->nkinds, a[2]);
    vm_dep(v, VM_DEP_TOKENS, (int)a[2]);
    int s = board_section_at(L, st, (int)a[2], (int)a[3]);
    return gf < 0 || s < 0 ? 0 : board_tokens(L, st, s, gf, (int)a[1]);
  }
  case BI_kinds_of:
    if (a[0] < 0 || a[0] >= def->nfactions) return 0;
    return def->factions[a[0]].kinds;
  case BI_move_all: {
    gf = vm_game_faction(v, a[0]);
    if (gf < 0) return *err = VE_ABSENT, 0;
    RANGE_CHECK(a[1] >= 0 && a[1] < L->nlocs, a[1]);
    RANGE_CHECK(a[2] >= 0 && a[2] < L->nlocs, a[2]);
    int moved = 0;
    for (int k = 0; k < def->nkinds; k++) {
      int n = board_tokens(L, st, (int)a[1], gf, k);
      if (n <= 0) continue;
      if (board_move_tokens(L, st, gf, k, (int)a[1], (int)a[2], n) != BOARD_OK) return *err = VE_RANGE, 0;
      moved += n;
    }
    return moved;
  }
  case BI_turn_over: {
    gf = vm_game_faction(v, a[0]);
    if (gf < 0) return *err = VE_ABSENT, 0;
    RANGE_CHECK(a[1] >= 0 && a[1] < def->nkinds, a[1]);
    RANGE_CHECK(a[2] >= 0 && a[2] < def->nkinds, a[2]);
    if (a[3] < 0) return *err = VE_RANGE, *errv = a[3], 0;
    RANGE_CHECK(a[4] >= 0 && a[4] < L->nlocs, a[4]);
    if (a[3] == 0 || a[1] == a[2]) return 0;
    int loc = (int)a[4];
    int have = board_tokens(L, st, loc, gf, (int)a[1]);
    int n = a[3] > INT16_MAX ? INT16_MAX + 1 : (int)a[3];
    if (have < n) return *err = VE_SHORT, 0;
    int other = board_tokens(L, st, loc, gf, (int)a[2]);
    if (other + n > INT16_MAX) return *err = VE_RANGE, *errv = a[3], 0;
    /* the new kind first: a kind the faction lacks is refused before anything changes */
    if (board_set_tokens(L, st, loc, gf, (int)a[2], other + n) != BOARD_OK ||
        board_set_tokens(L, st, loc, gf, (int)a[1], have - n) != BOARD_OK)
      return *err = VE_RANGE, 0;
    return 0;
  }
  case BI_pooled:
  case BI_pooled_of: {
    gf = vm_game_faction(v, a[0]);
    int64_t pa = id == BI_pooled ? a[1] : a[2];
    RANGE_CHECK(pa >= 0 && pa < def->npools, pa);
    int pool = (int)pa;
    if (gf < 0) return 0;
    int loc = board_loc_pool(L, (int)pool, def->pools[pool].scope == BS_FACTION ? gf : -1);
    if (loc < 0) return 0;
    vm_dep(v, VM_DEP_TOKENS, L->zone_of_loc[loc]);
    if (id == BI_pooled_of) return board_tokens(L, st, loc, gf, (int)a[1]);
    int n = 0;
    for (int k = 0; k < def->nkinds; k++) n += board_tokens(L, st, loc, gf, k);
    return n;
  }
  case BI_occupants:
    RANGE_CHECK(area_ok(v, a[0]), a[0]);
    vm_dep(v, VM_DEP_TOKENS, (int)a[0]);
    return to_def_set(v, board_factions_in_area(L, st, (int)a[0], 0));
  case BI_occupants_at: {
    RANGE_CHECK(area_ok(v, a[0]), a[0]);
    vm_dep(v, VM_DEP_TOKENS, (int)a[0]);
    int s = board_section_at(L, st, (int)a[0], (int)a[1]);
    return s < 0 ? 0 : to_def_set(v, board_factions_in_section(L, st, s, 0));
  }
  case BI_occupied_by:
    gf = vm_game_faction(v, a[0]);
    vm_dep(v, VM_DEP_TOKENS, -1); /* every zone */
    return gf < 0 ? 0 : (int64_t)board_occupied(L, st, gf, 0);
  case BI_controls:
    gf = vm_game_faction(v, a[0]);
    RANGE_CHECK(area_ok(v, a[1]), a[1]);
    vm_dep(v, VM_DEP_TOKENS, (int)a[1]);
    return gf >= 0 && board_controls(L, st, gf, (int)a[1], 0);
  case BI_occupied_sectors: {
    gf = vm_game_faction(v, a[0]);
    RANGE_CHECK(area_ok(v, a[1]), a[1]);
    vm_dep(v, VM_DEP_TOKENS, (int)a[1]);
    if (gf < 0) return 0;
    int64_t s = 0;
    const board_area *ar = &def->areas[a[1]];
    int at = board_attached_section(L, st, (int)a[1]); /* an attached area: in the sector it stands in */
    for (int i = 0; i < ar->nsections; i++) {
      int sec = ar->first_section + i;
      int n = 0;
      for (int k = 0; k < def->nkinds; k++) n += board_tokens(L, st, sec, gf, k);
      int sector = def->sections[sec].sector >= 0 ? def->sections[sec].sector : at >= 0 ? def->sections[at].sector : -1;
      if (n && sector >= 0) s |= 1ll << sector;
    }
    return s;
  }
  case BI_section: {
    RANGE_CHECK(area_ok(v, a[0]), a[0]);
    int s = board_section_of(def, (int)a[0], (int)a[1]);
    if (s < 0) s = def->areas[a[0]].nsections == 1 ? def->areas[a[0]].first_section : -1;
    if (s < 0) return *err = VE_SECTION, 0;
    return board_loc_section(s);
  }
  case BI_pool: {
    RANGE_CHECK(a[0] >= 0 && a[0] < def->npools, a[0]);
    int pool = (int)a[0];
    int owner = -1;
    if (def->pools[pool].scope == BS_FACTION) {
      owner = vm_game_faction(v, a[1]);
      if (owner < 0) return *err = VE_ABSENT, 0;
    }
    return board_loc_pool(L, pool, owner);
  }
  case BI_move: {
    gf = vm_game_faction(v, a[0]);
    if (gf < 0) return *err = VE_ABSENT, 0;
    if (a[2] < 0) return *err = VE_RANGE, *errv = a[2], 0;
    if (a[2] == 0) return 0;
    RANGE_CHECK(a[3] >= 0 && a[3] < L->nlocs, a[3]);
    RANGE_CHECK(a[4] >= 0 && a[4] < L->nlocs, a[4]);
    /* no stack holds more than INT16_MAX: a larger count is short, never cut to an int */
    int n = a[2] > INT16_MAX ? INT16_MAX + 1 : (int)a[2];
    int r = board_move_tokens(L, st, gf, (int)a[1], (int)a[3], (int)a[4], n);
    if (r != BOARD_OK) return *err = r == BOARD_ESHORT ? VE_SHORT : VE_RANGE, 0;
    return 0;
  }
  case BI_pile: {
    RANGE_CHECK(a[0] >= 0 && a[0] < def->npiles, a[0]);
    int owner = -1;
    if (def->piles[a[0]].scope == BS_FACTION) {
      owner = vm_game_faction(v, a[1]);
      if (owner < 0) return *err = VE_ABSENT, 0;
    }
    return board_pile_slot(L, (int)a[0], owner);
  }
  case BI_pile_size:
    RANGE_CHECK(a[0] >= 0 && a[0] < L->npile_slots, a[0]);
    vm_dep(v, VM_DEP_PILES, (int)a[0]);
    return board_pile_count(L, st, (int)a[0]);
  case BI_top:
    RANGE_CHECK(a[0] >= 0 && a[0] < L->npile_slots, a[0]);
    vm_dep(v, VM_DEP_PILES, (int)a[0]);
    if (v->chance && !vm_chance_card(v, (int)a[0], board_pile_count(L, st, (int)a[0]) - 1)) return *err = VE_CHANCE, 0;
    return board_pile_top(L, st, (int)a[0]);
  case BI_holds: {
    RANGE_CHECK(a[0] >= 0 && a[0] < L->npile_slots, a[0]);
    vm_dep(v, VM_DEP_PILES, (int)a[0]);
    if (a[1] < 0 || a[1] >= def->ncards) return 0;
    int pos;
    return board_card_pile(L, st, (int)a[1], &pos) == a[0];
  }
  case BI_copy_in: {
    /* the copies in instance order, not the pile's: the answer never depends on an order still undecided */
    RANGE_CHECK(a[0] >= 0 && a[0] < L->npile_slots, a[0]);
    vm_dep(v, VM_DEP_PILES, (int)a[0]);
    if (a[1] < 0 || a[1] >= def->ncards) return -1;
    const board_card *want = &def->cards[a[1]];
    int pos;
    for (int c = 0; c < def->ncards; c++)
      if (def->cards[c].ninstances == want->ninstances && !strcmp(def->cards[c].id, want->id) && board_card_pile(L, st, c, &pos) == a[0])
        return c;
    return -1;
  }
  case BI_pile_of: {
    RANGE_CHECK(a[0] >= 0 && a[0] < def->ncards, a[0]);
    vm_dep(v, VM_DEP_PILES, -1); /* wherever the card lies: every pile */
    int pos;
    return board_card_pile(L, st, (int)a[0], &pos);
  }
  case BI_deck_of:
    RANGE_CHECK(a[0] >= 0 && a[0] < def->ncards, a[0]);
    return def->decks[def->cards[a[0]].deck].pile;
  case BI_put:
    RANGE_CHECK(a[0] >= 0 && a[0] < def->ncards && a[1] >= 0 && a[1] < L->npile_slots, a[0]);
    if (board_card_move(L, st, (int)a[0], (int)a[1], -1) != BOARD_OK) return *err = VE_CARD, 0;
    return 0;
  case BI_draw: {
    RANGE_CHECK(a[0] >= 0 && a[0] < L->npile_slots && a[1] >= 0 && a[1] < L->npile_slots, a[0]);
    if (v->chance && !vm_chance_card(v, (int)a[0], board_pile_count(L, st, (int)a[0]) - 1)) return *err = VE_CHANCE, 0;
    int c = board_pile_top(L, st, (int)a[0]);
    if (c < 0) return -1;
    if (board_card_move(L, st, c, (int)a[1], -1) != BOARD_OK) return *err = VE_CARD, 0;
    return c;
  }
  case BI_shuffle:
    RANGE_CHECK(a[0] >= 0 && a[0] < L->npile_slots, a[0]);
    if (v->chance) board_pile_forget(L, st, (int)a[0]); /* its order is decided card by card as the rules read it */
    else board_pile_shuffle(L, st, (int)a[0]);
    return 0;
  case BI_strength: RANGE_CHECK(a[0] >= 0 && a[0] < def->nleaders, a[0]); return def->leaders[a[0]].strength;
  case BI_leader_owner: RANGE_CHECK(a[0] >= 0 && a[0] < def->nleaders, a[0]); return def->leaders[a[0]].faction;
  case BI_leader_status: RANGE_CHECK(a[0] >= 0 && a[0] < def->nleaders, a[0]); return board_leader_get(L, st, (int)a[0]).status;
  case BI_leader_holder: {
    RANGE_CHECK(a[0] >= 0 && a[0] < def->nleaders, a[0]);
    int h = board_leader_get(L, st, (int)a[0]).holder;
    return h >= 0 && h < L->nf ? L->faction[h] : -1;
  }
  case BI_leader_area: RANGE_CHECK(a[0] >= 0 && a[0] < def->nleaders, a[0]); return board_leader_get(L, st, (int)a[0]).area;
  case BI_leader_used: RANGE_CHECK(a[0] >= 0 && a[0] < def->nleaders, a[0]); return board_leader_get(L, st, (int)a[0]).used != 0;
  case BI_set_leader_status:
  case BI_set_leader_holder:
  case BI_set_leader_area:
  case BI_set_leader_used: {
    RANGE_CHECK(a[0] >= 0 && a[0] < def->nleaders, a[0]);
    board_leader_state s = board_leader_get(L, st, (int)a[0]);
    if (id == BI_set_leader_status) {
      RANGE_CHECK(a[1] >= 0 && a[1] < def->nleader_status, a[1]);
      s.status = (int8_t)a[1];
    } else if (id == BI_set_leader_holder) {
      int h = a[1] < 0 ? -1 : vm_game_faction(v, a[1]);
      if (a[1] >= 0 && h < 0) return *err = VE_ABSENT, 0;
      s.holder = (int8_t)h;
    } else if (id == BI_set_leader_area) {
      RANGE_CHECK(a[1] >= -1 && a[1] < def->nareas, a[1]);
      s.area = (int8_t)a[1];
    } else {
      s.used = (int8_t)(a[1] != 0);
    }
    board_leader_set(L, st, (int)a[0], s);
    return 0;
  }
  case BI_in_force: return vm_rule_active(v, (int)a[0]);
  case BI_try_use:
    RANGE_CHECK(a[0] >= 0 && a[0] < v->p->nrules, a[0]);
    return vm_rule_try(v, (int)a[0]);
  case BI_base_card: {
    RANGE_CHECK(a[0] >= 0 && a[0] < def->ncards, a[0]);
    int c = (int)a[0];
    while (c > 0 && !strcmp(def->cards[c - 1].id, def->cards[a[0]].id)) c--;
    return c;
  }
  case BI_karama_window:
    RANGE_CHECK(a[0] >= 0 && a[0] < v->p->nrules, a[0]);
    return (v->p->rules[a[0]].tags & TAG_KARAMA_BEFORE ? 1 : 0) | (v->p->rules[a[0]].tags & TAG_KARAMA_AFTER ? 2 : 0);
  case BI_random_member: {
    uint64_t set = (uint64_t)a[0];
    int n = __builtin_popcountll(set);
    if (n == 0) return -1;
    if (v->chance) {
      int64_t x;
      if (!vm_chance_take(v, VM_CH_MEMBER, (int64_t)set, &x)) return *err = VE_CHANCE, 0;
      return x;
    }
    uint64_t k = board_rng_below(L, st, (uint64_t)n);
    for (int i = 0; i < 64; i++)
      if (set >> i & 1u && k-- == 0) return i;
    return -1;
  }
  case BI_random:
    if (a[0] <= 0) return *err = VE_RANGE, *errv = a[0], 0;
    if (v->chance) {
      int64_t x;
      if (!vm_chance_take(v, VM_CH_NUMBER, a[0], &x)) return *err = VE_CHANCE, 0;
      return x;
    }
    return (int64_t)board_rng_below(L, st, (uint64_t)a[0]);
  default: *err = VE_INTERNAL; return 0;
  }
#undef RANGE_CHECK
}

/* ---- chance as choice ----------------------------------------------------------------- */

static bool chance_possible(int kind, int64_t what, int64_t x) {
  if (kind == VM_CH_NUMBER) return x >= 0 && x < what;
  return x >= 0 && x < 64 && ((uint64_t)what >> x & 1u);
}

/* The first question a step meets is the one reported: a step that goes on after it (a guard
 * that failed on it inside a listing) must not put a later one in its place. */
static void ask(vm_chance *ch, int kind, int64_t what, int slot, bool bad) {
  if (ch->need != VM_CH_NONE) return;
  ch->need = kind;
  ch->bad = bad;
  if (kind == VM_CH_NUMBER) ch->n = what;
  else if (kind == VM_CH_MEMBER) ch->set = (uint64_t)what;
  else ch->slot = slot;
}

bool vm_chance_take(vm *v, int kind, int64_t what, int64_t *out) {
  vm_chance *ch = v->chance;
  if (kind == VM_CH_NUMBER ? what == 1 : __builtin_popcountll((uint64_t)what) == 1) { /* one outcome: no choice */
    *out = kind == VM_CH_NUMBER ? 0 : __builtin_ctzll((uint64_t)what);
    return true;
  }
  bool bad = false;
  if (ch->need == VM_CH_NONE && ch->next < ch->nplan) {
    int64_t x = ch->plan[ch->next];
    if (chance_possible(kind, what, x)) {
      ch->next++;
      *out = x;
      return true;
    }
    bad = true;
  }
  ask(ch, kind, what, -1, bad);
  return false;
}

/* The lowest undecided card of pile SLOT if every undecided card is a copy of it, else -1. */
static int only_outcome(const vm *v, int slot) {
  const board_def *def = v->p->def;
  int u = board_pile_unknown(v->L, v->st, slot), first = -1;
  for (int c = 0; c < def->ncards; c++) {
    int pos;
    if (board_card_pile(v->L, v->st, c, &pos) != slot || pos >= u) continue;
    if (first < 0) first = c;
    else if (strcmp(def->cards[c].id, def->cards[first].id)) return -1;
  }
  return first;
}

bool vm_chance_card(vm *v, int slot, int pos) {
  vm_chance *ch = v->chance;
  while (pos >= 0 && pos < board_pile_unknown(v->L, v->st, slot)) {
    int only = only_outcome(v, slot);
    if (only >= 0) { /* the undecided cards are copies of one card: no choice */
      board_pile_fix(v->L, v->st, slot, only);
      vm_memo_reset(v);
      continue;
    }
    if (ch->need == VM_CH_NONE && ch->next < ch->nplan && board_pile_fix(v->L, v->st, slot, (int)ch->plan[ch->next]) == BOARD_OK) {
      ch->next++;
      vm_memo_reset(v); /* the pile's bytes changed under any value remembered this epoch */
      continue;
    }
    ask(ch, VM_CH_CARD, 0, slot, ch->need == VM_CH_NONE && ch->next < ch->nplan);
    return false;
  }
  return true;
}
