/* data_state.c -- the reader half of state.c: a saved position read from
 * YAML (docs/state-format.md) with the component loaders' reader
 * (data_read.h), every diagnostic at its scalar. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "data_read.h"

/* ---- saved positions -------------------------------------------------------------------------------
 * The reader half of state.c (docs/state-format.md).  `factions` must come
 * before anything that needs the layout; every other key may be in any
 * order.  The position starts empty (board_state_clear); cards the file does
 * not mention go under the listed ones in their deck's starting pile. */

typedef struct state_rd {
  data_loader *ld;
  yr *r;
  const board_def *def;
  board_layout *L;
  unsigned char *st;
  state_ext x;   /* the caller's additions (zero: none) */
  mt_span *vm_sp; /* the spans of the `vm` words read */
  size_t nvm;
  mt_span vm_key;
  bool vm_given;
  ys *cards;     /* card names in document order */
  int *card_slot; /* their pile slots */
  size_t ncards, cap1, cap2;
  int version;            /* mentat_state: 1 (hand-written, partial), 2 (written whole: `end` required) */
  bool ended;             /* `end: true` was read: nothing may follow it */
  int *undecided;         /* per pile slot: its `undecided:` count, or -1 (chance as choice) */
  mt_span *undecided_sp;  /* where each was written */
} state_rd;

static bool need_layout(state_rd *s, const ys *k) {
  if (s->L) return true;
  data_lerr(s->ld, k->sp, "'%s' needs the game's factions: write 'factions' first", k->s);
  data_yr_skip(s->r);
  return false;
}

static int game_faction_of(state_rd *s, const ys *v) {
  int f = board_faction_index(s->def, v->s);
  if (f < 0) {
    if (s->def->nfactions) DANGLING(s->ld, v, "faction", s->def->factions, s->def->nfactions, id);
    else data_lerr(s->ld, v->sp, "unknown faction '%.40s'", v->s);
    return -1;
  }
  if (s->L->game_faction[f] < 0) {
    data_lerr(s->ld, v->sp, "faction '%s' is not in this game", v->s);
    return -1;
  }
  return s->L->game_faction[f];
}

static bool is_none(const ys *x) { return data_ys_null(x) || (x->plain && !strcmp(x->s, "none")); }

/* "NAME" or "NAME of FACTION" (a pile or pool instance): the name's part in
 * BUF, the owner's game index in *OWNER (-1 without one; -2 after an error). */
static void split_owner(state_rd *s, const ys *x, char *buf, size_t n, int *owner) {
  const char *of = strstr(x->s, " of ");
  *owner = -1;
  snprintf(buf, n, "%.*s", of ? (int)(of - x->s) : (int)strlen(x->s), x->s);
  if (!of) return;
  ys f = *x;
  f.s = of + 4;
  f.len = strlen(f.s);
  if (x->plain) { /* a plain scalar is its source text: point at the faction */
    f.sp.start += (uint32_t)(f.s - x->s);
    f.sp.end = f.sp.start + (uint32_t)f.len;
    if (f.sp.end > x->sp.end) f.sp = x->sp; /* folded over lines: the whole value */
  }
  if ((*owner = game_faction_of(s, &f)) < 0) *owner = -2;
}

/* One value of rule variable V (never none inside a set, MEMBER), by the
 * variable's declared type: references must name something of this game. */
static bool rule_value(state_rd *s, const board_var *v, const ys *x, bool member, int32_t *out) {
  data_loader *ld = s->ld;
  const board_def *def = s->def;
  if (v->type == BT_BOOL) return data_conv_bool(ld, x, v->name, out);
  if (v->type == BT_INT) return data_conv_int(ld, x, v->name, INT32_MIN, INT32_MAX, out);
  if (is_none(x)) {
    if (!member) return *out = -1, true;
    data_lerr(ld, x->sp, "none is not a member of a set");
    return false;
  }
  char buf[128];
  int owner, k;
  switch (v->type) {
  case BT_SECTOR: /* sectors are numbered and the rules may compute any number */
    return data_conv_int(ld, x, v->name, member ? 0 : INT32_MIN, member ? 63 : INT32_MAX, out);
  case BT_FACTION:
    k = board_faction_index(def, x->s);
    if (k < 0) return game_faction_of(s, x) >= 0; /* reports it */
    if (s->L->game_faction[k] < 0) {
      data_lerr(ld, x->sp, "faction '%s' is not in this game", x->s);
      return false;
    }
    return *out = k, true; /* rule variables hold the data's index */
  case BT_AREA: return (*out = data_resolve_area(ld, x)) >= 0;
  case BT_LEADER:
    k = board_leader_index(def, x->s);
    if (k < 0) DANGLING(ld, x, "leader", def->leaders, def->nleaders, id);
    else if (s->L->game_faction[def->leaders[k].faction] < 0)
      data_lerr(ld, x->sp, "leader '%s' belongs to faction '%s', which is not in this game", x->s,
           def->factions[def->leaders[k].faction].id);
    else return *out = k, true;
    return false;
  case BT_CARD:
    k = board_card_index(def, x->s);
    if (k < 0) DANGLING(ld, x, "card", def->cards, def->ncards, id);
    else if (!board_card_in_game(s->L, k)) data_lerr(ld, x->sp, "card '%.40s' belongs to a faction not in this game", x->s);
    else return *out = k, true;
    return false;
  case BT_ENUM:
  case BT_NAME:
    for (int i = 0; i < v->nvalues; i++)
      if (!strcmp(v->values[i], x->s)) return *out = i, true;
    {
      const char *sug = diag_suggest(x->s, (const char *const *)v->values, (size_t)v->nvalues);
      if (sug) data_lerr(ld, x->sp, "'%.40s' is not a value of %s (did you mean '%s'?)", x->s, v->name, sug);
      else data_lerr(ld, x->sp, "'%.40s' is not a value of %s", x->s, v->name);
    }
    return false;
  case BT_PILE:
    split_owner(s, x, buf, sizeof buf, &owner);
    if (owner == -2) return false;
    k = board_pile_index(def, buf);
    if (k < 0) DANGLING(ld, x, "pile", def->piles, def->npiles, name);
    else if ((def->piles[k].scope == BS_FACTION) != (owner >= 0))
      data_lerr(ld, x->sp, "'%s' is a %s pile: write %s", buf, owner >= 0 ? "global" : "per-faction",
           owner >= 0 ? "its name alone" : "'NAME of FACTION'");
    else return (*out = board_pile_slot(s->L, k, owner)) >= 0;
    return false;
  case BT_LOC:
    if ((k = board_section_parse(def, x->s)) >= 0) return *out = k, true;
    split_owner(s, x, buf, sizeof buf, &owner);
    if (owner == -2) return false;
    k = board_pool_index(def, buf);
    if (k < 0) data_lerr(ld, x->sp, "'%.40s' is neither a section (area@sector) nor a pool", x->s);
    else if ((def->pools[k].scope == BS_FACTION) != (owner >= 0))
      data_lerr(ld, x->sp, "'%s' is a %s pool: write %s", buf, owner >= 0 ? "global" : "per-faction",
           owner >= 0 ? "its name alone" : "'NAME of FACTION'");
    else return (*out = board_loc_pool(s->L, k, owner)) >= 0;
    return false;
  case BT_INT:
  case BT_BOOL: break;
  }
  return false;
}

/* A value for variable V from the scalar X. */
static bool state_value(state_rd *s, const board_var *v, const ys *x, int32_t *out) {
  if (v->rule) return rule_value(s, v, x, false, out);
  if (v->kind == BV_FLAG) return data_conv_bool(s->ld, x, v->name, out);
  if (v->type == BT_FACTION) {
    if (is_none(x)) return *out = -1, true;
    return (*out = game_faction_of(s, x)) >= 0;
  }
  if (v->type == BT_LEADER) {
    if (is_none(x)) return *out = -1, true;
    *out = board_leader_index(s->def, x->s);
    if (*out < 0) data_lerr(s->ld, x->sp, "unknown leader '%.40s'", x->s);
    return *out >= 0;
  }
  data_loader *ld = s->ld;
  board_def *saved = ld->def; /* conv_value resolves against ld->def */
  ld->def = (board_def *)(uintptr_t)s->def;
  bool ok = data_conv_value(ld, x, v->type, v->values, v->nvalues, v->name, out);
  ld->def = saved;
  if (ok && v->kind == BV_COUNTER && *out < 0) {
    data_lerr(ld, x->sp, "counter '%s' cannot be negative", v->name);
    return false;
  }
  return ok;
}

/* One value of variable VAR (instance INDEX, first cell CELL) from the
 * current event: a scalar, or for a set the list of its members. */
static void state_one_value(state_rd *s, int var, int index, int cell) {
  yr *r = s->r;
  const board_var *bv = &s->L->vars[var];
  ys x;
  int32_t val;
  if (!bv->set) {
    if (data_expect_scalar(r, bv->name, &x) && state_value(s, bv, &x, &val)) board_var_set(s->L, s->st, var, index, cell, val);
    return;
  }
  uint64_t bits = 0;
  bool empty = data_is_empty(r); /* `name:` alone: the empty set */
  if (!empty && !data_expect_seq(r, "a set (a list of its members)")) return;
  while (!empty && data_yr_next(r) && r->ev.type != YAML_SEQUENCE_END_EVENT) {
    if (!data_expect_scalar(r, bv->name, &x) || !rule_value(s, bv, &x, true, &val)) continue;
    if (val < 0 || val >= (bv->width > 1 ? 64 : 32)) data_lerr(s->ld, x.sp, "'%s' cannot be a member of %s", x.s, bv->name);
    else bits |= 1ull << val;
  }
  board_var_set(s->L, s->st, var, index, cell, (int32_t)(uint32_t)bits);
  if (bv->width > 1) board_var_set(s->L, s->st, var, index, cell + 1, (int32_t)(uint32_t)(bits >> 32));
}

/* `name: value` entries of variables of SCOPE at INDEX. */
static void state_vars(state_rd *s, board_scope scope, int index) {
  yr *r = s->r;
  if (!data_expect_map(r, "variables")) return;
  keyseen ks = {0};
  ys k;
  while (data_map_key(r, &ks, &k)) {
    int v = -1;
    for (int i = 0; i < s->L->nvars; i++)
      if (!strcmp(s->L->vars[i].name, k.s)) v = i;
    if (v < 0 || s->L->vars[v].scope != scope) {
      if (v < 0) data_lerr(s->ld, k.sp, "unknown variable '%.40s'", k.s);
      else data_lerr(s->ld, k.sp, "variable '%s' is not %s", k.s, scope == BS_GLOBAL ? "global" : "per faction");
      data_yr_skip(r);
      continue;
    }
    const board_var *bv = &s->L->vars[v];
    int width = bv->width > 1 ? bv->width : 1;
    if (bv->len == width) {
      state_one_value(s, v, index, 0);
      continue;
    }
    if (!data_expect_seq(r, bv->name)) continue;
    int cell = 0;
    while (data_yr_next(r) && r->ev.type != YAML_SEQUENCE_END_EVENT) {
      if (cell >= bv->len) {
        if (cell == bv->len) data_lerr(s->ld, data_ev_span(r), "'%s' has only %d values", bv->name, bv->len / width);
        data_yr_skip(r);
      } else state_one_value(s, v, index, cell);
      cell += width;
    }
  }
}

/* Token counts at LOC: for OWNER (>= 0) "n | {kind: n}", else a map of owners. */
static void state_tokens(state_rd *s, int loc, int owner) {
  yr *r = s->r;
  if (owner < 0) {
    if (!data_expect_map(r, "tokens (owner: count)")) return;
    keyseen ks = {0};
    ys k;
    while (data_map_key(r, &ks, &k)) {
      int f = game_faction_of(s, &k);
      if (f < 0) {
        data_yr_skip(r);
        continue;
      }
      state_tokens(s, loc, f);
    }
    return;
  }
  const board_faction *F = &s->def->factions[s->L->faction[owner]];
  int32_t n;
  ys x;
  if (data_is_scalar(r)) {
    data_yr_scalar(r, &x);
    if (data_conv_int(s->ld, &x, "a token count", 0, INT16_MAX, &n) && F->default_kind >= 0)
      board_set_tokens(s->L, s->st, loc, owner, F->default_kind, n);
    return;
  }
  if (!data_expect_map(r, "tokens (kind: count)")) return;
  keyseen ks = {0};
  ys k;
  while (data_map_key(r, &ks, &k)) {
    int kind = board_kind_index(s->def, k.s);
    if (kind < 0 || s->L->slot[owner][kind] < 0) {
      data_lerr(s->ld, k.sp, "faction '%s' has no tokens of kind '%.40s'", F->id, k.s);
      data_yr_skip(r);
      continue;
    }
    if (data_expect_scalar(r, "a token count", &x) && data_conv_int(s->ld, &x, "a token count", 0, INT16_MAX, &n))
      board_set_tokens(s->L, s->st, loc, owner, kind, n);
  }
}

static void state_pile_cards(state_rd *s, int slot);

/* `undecided: N` of a pile: the bottom N cards' order is not decided yet
 * (chance as choice).  Checked against the pile's size once its cards are placed. */
static void state_pile_undecided(state_rd *s, int slot) {
  ys x;
  int32_t n;
  if (!data_expect_scalar(s->r, "undecided", &x) || !data_conv_int(s->ld, &x, "undecided", 0, BOARD_MAX_CARDS, &n)) return;
  if (!s->undecided) {
    s->undecided = arena_alloc(&s->ld->ar, (size_t)s->L->npile_slots * sizeof *s->undecided);
    s->undecided_sp = arena_alloc(&s->ld->ar, (size_t)s->L->npile_slots * sizeof *s->undecided_sp);
    for (int i = 0; i < s->L->npile_slots; i++) s->undecided[i] = -1;
  }
  s->undecided[slot] = n;
  s->undecided_sp[slot] = x.sp;
}

/* A pile: its list of cards, top first, or `{ undecided: N, cards: [...] }`. */
static void state_pile(state_rd *s, int slot) {
  yr *r = s->r;
  if (!r->have || r->ev.type != YAML_MAPPING_START_EVENT) {
    state_pile_cards(s, slot);
    return;
  }
  static const char *const keys[] = {"cards", "undecided"};
  keyseen ks = {0};
  ys k;
  while (data_map_key(r, &ks, &k)) {
    if (data_keyis(&k, "cards")) state_pile_cards(s, slot);
    else if (data_keyis(&k, "undecided")) state_pile_undecided(s, slot);
    else data_unknown_key(r, &k, "a pile", keys, 2);
  }
}

static void state_pile_cards(state_rd *s, int slot) {
  yr *r = s->r;
  if (!data_expect_seq(r, "a pile (a list of cards, top first)")) return;
  while (data_yr_next(r) && r->ev.type != YAML_SEQUENCE_END_EVENT) {
    ys x;
    if (!data_expect_scalar(r, "a card", &x)) continue;
    AVEC_PUSH(&s->ld->ar, s->cards, s->ncards, s->cap1, x);
    s->ncards--;
    AVEC_PUSH(&s->ld->ar, s->card_slot, s->ncards, s->cap2, slot);
  }
}

/* `pools:` / `piles:` mappings; OWNER -1 for the global ones. */
static void state_named(state_rd *s, bool piles, int owner) {
  yr *r = s->r;
  if (!data_expect_map(r, piles ? "piles" : "pools")) return;
  keyseen ks = {0};
  ys k;
  while (data_map_key(r, &ks, &k)) {
    int idx = piles ? board_pile_index(s->def, k.s) : board_pool_index(s->def, k.s);
    board_scope want = owner < 0 ? BS_GLOBAL : BS_FACTION;
    if (idx < 0) {
      if (piles) DANGLING(s->ld, &k, "pile", s->def->piles, s->def->npiles, name);
      else DANGLING(s->ld, &k, "pool", s->def->pools, s->def->npools, name);
      data_yr_skip(r);
      continue;
    }
    if ((piles ? s->def->piles[idx].scope : s->def->pools[idx].scope) != want) {
      data_lerr(s->ld, k.sp, "'%s' is a %s %s: list it %s", k.s, want == BS_GLOBAL ? "per-faction" : "global",
           piles ? "pile" : "pool", want == BS_GLOBAL ? "under per_faction" : "at the top level");
      data_yr_skip(r);
      continue;
    }
    if (piles) state_pile(s, board_pile_slot(s->L, idx, owner));
    else state_tokens(s, board_loc_pool(s->L, idx, owner), owner);
  }
}

static void state_leaders(state_rd *s, int owner) {
  yr *r = s->r;
  const board_def *def = s->def;
  if (!data_expect_map(r, "leaders")) return;
  keyseen ks = {0};
  ys k;
  while (data_map_key(r, &ks, &k)) {
    int l = board_leader_index(def, k.s);
    if (l < 0 || s->L->game_faction[def->leaders[l].faction] != owner) {
      if (l < 0) data_lerr(s->ld, k.sp, "unknown leader '%.40s'", k.s);
      else data_lerr(s->ld, k.sp, "leader '%s' belongs to faction '%s'", k.s, def->factions[def->leaders[l].faction].id);
      data_yr_skip(r);
      continue;
    }
    board_leader_state ls = board_leader_get(s->L, s->st, l);
    ys x;
    if (data_is_scalar(r)) {
      data_yr_scalar(r, &x);
      int st = board_leader_status_index(def, x.s);
      if (st < 0) data_lerr(s->ld, x.sp, "unknown leader status '%.40s'", x.s);
      else ls.status = (int8_t)st;
    } else if (data_expect_map(r, "a leader")) {
      keyseen ks2 = {0};
      ys k2;
      static const char *const lk[] = {"status", "holder", "area", "used"};
      while (data_map_key(r, &ks2, &k2)) {
        if (!data_keyis(&k2, "status") && !data_keyis(&k2, "holder") && !data_keyis(&k2, "area") && !data_keyis(&k2, "used")) {
          data_unknown_key(r, &k2, "a leader", lk, 4);
          continue;
        }
        if (!data_expect_scalar(r, k2.s, &x)) continue;
        int32_t v;
        if (data_keyis(&k2, "status")) {
          int st = board_leader_status_index(def, x.s);
          if (st < 0) data_lerr(s->ld, x.sp, "unknown leader status '%.40s'", x.s);
          else ls.status = (int8_t)st;
        } else if (data_keyis(&k2, "holder")) {
          if (data_ys_null(&x) || !strcmp(x.s, "none")) ls.holder = -1;
          else if ((v = game_faction_of(s, &x)) >= 0) ls.holder = (int8_t)v;
        } else if (data_keyis(&k2, "area")) {
          if (data_ys_null(&x) || !strcmp(x.s, "none")) ls.area = -1;
          else {
            int a = board_area_index(def, x.s);
            if (a < 0) DANGLING(s->ld, &x, "territory", def->areas, def->nareas, id);
            else ls.area = (int8_t)a;
          }
        } else if (data_conv_bool(s->ld, &x, "used", &v)) ls.used = (int8_t)v;
      }
    }
    board_leader_set(s->L, s->st, l, ls);
  }
}

static void state_per_faction(state_rd *s) {
  yr *r = s->r;
  if (!data_expect_map(r, "per_faction")) return;
  keyseen ks = {0};
  ys k;
  while (data_map_key(r, &ks, &k)) {
    int f = game_faction_of(s, &k);
    if (f < 0 || !data_expect_map(r, "a faction's state")) {
      data_yr_skip(r);
      continue;
    }
    keyseen ks2 = {0};
    ys k2;
    static const char *const fk[] = {"variables", "pools", "piles", "leaders"};
    while (data_map_key(r, &ks2, &k2)) {
      if (data_keyis(&k2, "variables")) state_vars(s, BS_FACTION, f);
      else if (data_keyis(&k2, "pools")) state_named(s, false, f);
      else if (data_keyis(&k2, "piles")) state_named(s, true, f);
      else if (data_keyis(&k2, "leaders")) state_leaders(s, f);
      else data_unknown_key(r, &k2, "a faction's state", fk, 4);
    }
  }
}

/* Parses a decimal uint64 (the generator words exceed int32). */
static bool conv_u64(data_loader *ld, const ys *v, uint64_t *out) {
  if (!v->plain || !v->s[0] || strlen(v->s) > 20) goto bad;
  uint64_t x = 0;
  for (const char *p = v->s; *p; p++) {
    if (*p < '0' || *p > '9') goto bad;
    uint64_t d = (uint64_t)(*p - '0');
    if (x > (UINT64_MAX - d) / 10) goto bad;
    x = x * 10 + d;
  }
  *out = x;
  return true;
bad:
  data_lerr(ld, v->sp, "expected an unsigned 64-bit integer, found '%.40s'", v->s);
  return false;
}

static void state_root(state_rd *s) {
  yr *r = s->r;
  const board_def *def = s->def;
  static const char *const keys[] = {"mentat_state", "ruleset", "variants", "factions", "rng", "seed", "variables", "board",
                                     "section_variables", "pools", "piles", "per_faction", "vm", "end"};
  keyseen ks = {0};
  ys k;
  bool have_version = false;
  while (data_map_key(r, &ks, &k)) {
    ys x;
    if (s->ended) {
      data_lerr(s->ld, k.sp, "'%s' after 'end': 'end' is the last line of a saved position", k.s);
      data_yr_skip(r);
      continue;
    }
    if (data_keyis(&k, "mentat_state")) {
      int32_t v;
      have_version = true;
      if (data_expect_scalar(r, "mentat_state", &x) && data_conv_int(s->ld, &x, "mentat_state", INT32_MIN + 1L, INT32_MAX, &v)) {
        if (v != 1 && v != 2) {
          data_lerr(s->ld, x.sp, "unsupported saved-state version %d (this program reads 1 and 2)", v);
          r->fatal = true;
          return;
        }
        s->version = v;
      }
    } else if (data_keyis(&k, "end")) {
      if (data_expect_scalar(r, "end", &x)) {
        if (!x.plain || strcmp(x.s, "true")) data_lerr(s->ld, x.sp, "'end' is 'true'");
        s->ended = true;
      }
    } else if (data_keyis(&k, "ruleset")) {
      /* the rule set the position was saved under must be the one loading it */
      if (data_expect_scalar(r, "ruleset", &x) && s->x.ruleset && strcmp(x.s, s->x.ruleset))
        data_lerr(s->ld, x.sp, "this position was saved under the %s rules, not the %s rules loading it: load it with "
             "--ruleset %.20s (in the console: new ruleset=%.20s, then load)", x.s, s->x.ruleset, x.s, x.s);
    } else if (data_keyis(&k, "variants")) {
      ysv vl = {0};
      data_read_list(r, "variants", &vl);
      strbuf got = {0};
      for (size_t i = 0; i < vl.n; i++) sb_printf(&got, "%s%s", i ? "," : "", vl.v[i].s);
      if (s->x.variants && strcmp(got.s ? got.s : "", s->x.variants))
        data_lerr(s->ld, k.sp, "this position was saved with the variants [%s], but the rule set loading it has [%s]: load it "
             "with the same --variant options (in the console: new variants=..., then load)", got.s ? got.s : "", s->x.variants);
      sb_free(&got);
    } else if (data_keyis(&k, "factions")) {
      ysv fl = {0};
      data_read_list(r, "factions", &fl);
      int fs[BOARD_MAX_FACTIONS], n = 0;
      bool ok = !s->L;
      if (s->L) data_lerr(s->ld, k.sp, "'factions' given twice");
      for (size_t i = 0; i < fl.n && ok; i++) {
        int f = board_faction_index(def, fl.v[i].s);
        if (f < 0) {
          if (def->nfactions) DANGLING(s->ld, &fl.v[i], "faction", def->factions, def->nfactions, id);
          else data_lerr(s->ld, fl.v[i].sp, "unknown faction '%.40s'", fl.v[i].s);
          ok = false;
        } else if (n >= BOARD_MAX_FACTIONS) {
          data_lerr(s->ld, fl.v[i].sp, "too many factions");
          ok = false;
        } else {
          for (int j = 0; j < n; j++)
            if (fs[j] == f) {
              data_lerr(s->ld, fl.v[i].sp, "faction '%s' is listed twice", fl.v[i].s);
              ok = false;
            }
          fs[n++] = f;
        }
      }
      if (!ok) continue;
      strbuf err = {0};
      s->L = board_layout_new(def, fs, n, s->x.vars, s->x.nvars, s->x.words, &err);
      if (!s->L) {
        data_lerr(s->ld, k.sp, "%s", err.s ? err.s : "cannot lay out the state");
        sb_free(&err);
        continue;
      }
      s->st = mt_calloc(1, s->L->size);
      board_state_clear(s->L, s->st);
      strbuf why = {0};
      if (s->x.init && !s->x.init(s->x.ud, s->L, s->st, &why)) data_lerr(s->ld, k.sp, "%s", why.s ? why.s : "cannot start the position");
      sb_free(&why);
    } else if (!need_layout(s, &k)) {
      continue;
    } else if (data_keyis(&k, "rng") || data_keyis(&k, "seed")) {
      uint64_t w[4] = {0, 0, 0, 0};
      if (data_keyis(&k, "seed")) {
        if (data_expect_scalar(r, "seed", &x) && conv_u64(s->ld, &x, &w[0])) board_rng_seed(s->L, s->st, w[0]);
        continue;
      }
      if (!data_expect_seq(r, "rng")) continue;
      int i = 0;
      while (data_yr_next(r) && r->ev.type != YAML_SEQUENCE_END_EVENT) {
        if (!data_expect_scalar(r, "rng", &x)) continue;
        if (i < 4) conv_u64(s->ld, &x, &w[i]);
        else if (i == 4) data_lerr(s->ld, x.sp, "rng has four words");
        i++;
      }
      if (i < 4) data_lerr(s->ld, k.sp, "rng has four words");
      if (!(w[0] | w[1] | w[2] | w[3])) data_lerr(s->ld, k.sp, "rng state cannot be all zero");
      memcpy(s->st + s->L->off_rng, w, sizeof w);
    } else if (data_keyis(&k, "variables")) state_vars(s, BS_GLOBAL, 0);
    else if (data_keyis(&k, "board")) {
      if (!data_expect_map(r, "board")) continue;
      keyseen ks2 = {0};
      ys k2;
      while (data_map_key(r, &ks2, &k2)) {
        int sec = board_section_parse(def, k2.s);
        if (sec < 0) {
          if (data_resolve_section(s->ld, &k2) >= 0) data_lerr(s->ld, k2.sp, "'%.40s' is not a section", k2.s);
          data_yr_skip(r);
          continue;
        }
        state_tokens(s, sec, -1);
      }
    } else if (data_keyis(&k, "section_variables")) {
      if (!data_expect_map(r, "section_variables")) continue;
      keyseen ks2 = {0};
      ys k2;
      while (data_map_key(r, &ks2, &k2)) {
        int v = board_var_index(def, k2.s);
        if (v < 0 || def->vars[v].scope != BS_SECTION) {
          data_lerr(s->ld, k2.sp, "'%.40s' is not a section variable", k2.s);
          data_yr_skip(r);
          continue;
        }
        if (!data_expect_map(r, "section values")) continue;
        keyseen ks3 = {0};
        ys k3;
        while (data_map_key(r, &ks3, &k3)) {
          int sec = board_section_parse(def, k3.s);
          int32_t val;
          if (sec < 0) {
            if (data_resolve_section(s->ld, &k3) >= 0) data_lerr(s->ld, k3.sp, "'%.40s' is not a section", k3.s);
            data_yr_skip(r);
            continue;
          }
          if (data_expect_scalar(r, "a value", &x) && state_value(s, &def->vars[v], &x, &val))
            board_var_set(s->L, s->st, v, sec, 0, val);
        }
      }
    } else if (data_keyis(&k, "pools")) state_named(s, false, -1);
    else if (data_keyis(&k, "piles")) state_named(s, true, -1);
    else if (data_keyis(&k, "per_faction")) state_per_faction(s);
    else if (data_keyis(&k, "vm")) {
      s->vm_given = true;
      s->vm_key = k.sp;
      if (!data_expect_seq(r, "vm")) continue;
      size_t i = 0;
      int32_t *ext = board_ext(s->L, s->st);
      s->vm_sp = arena_alloc(&s->ld->ar, (s->L->ext_words + 1) * sizeof *s->vm_sp);
      while (data_yr_next(r) && r->ev.type != YAML_SEQUENCE_END_EVENT) {
        int32_t v;
        if (!data_expect_scalar(r, "vm", &x)) continue;
        if (i >= s->L->ext_words) {
          if (i == s->L->ext_words) data_lerr(s->ld, x.sp, "the VM region holds only %zu words", s->L->ext_words);
        } else if (data_conv_int(s->ld, &x, "a VM word", INT32_MIN, INT32_MAX, &v)) {
          ext[i] = v;
          s->vm_sp[i] = x.sp;
          s->nvm = i + 1;
        }
        i++;
      }
    } else data_unknown_key(r, &k, "a saved state", keys, sizeof keys / sizeof *keys);
  }
  if (!have_version && !r->fatal) {
    mt_span sp = {r->file, 0, 1};
    data_lerr(s->ld, sp, "not a saved state: 'mentat_state: 1' is missing");
  }
  if (s->version == 2 && !s->ended && !r->fatal) {
    /* a file Mentat wrote whole ends with `end: true`; without it the file was cut short (a full disk,
     * an interrupted copy), and what is left must not load as another position */
    mt_span sp = {r->file, (uint32_t)r->len, (uint32_t)r->len};
    data_lerr(s->ld, sp, "this saved position is incomplete: a file written by Mentat (mentat_state: 2) ends with "
                         "'end: true', and this one stops before it (truncated?)");
  }
}

/* Places the cards named in piles: explicit instances ("shield#2") first,
 * then plain names take the lowest instance not yet placed; each pile's list
 * is top first.  Unmentioned cards go under them in their starting pile. */
static void state_cards(state_rd *s) {
  const board_def *def = s->def;
  int *card = mt_calloc(s->ncards + 1, sizeof *card);
  bool *used = mt_calloc((size_t)def->ncards + 1, sizeof *used);
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < s->ncards; i++) {
      const ys *x = &s->cards[i];
      bool explicit_inst = strchr(x->s, '#') != NULL;
      if (explicit_inst != (pass == 0)) continue;
      int c = -1;
      if (explicit_inst) c = board_card_index(def, x->s);
      else
        for (int j = 0; j < def->ncards && c < 0; j++)
          if (!strcmp(def->cards[j].id, x->s) && !used[j]) c = j;
      if (c < 0) {
        bool known = false;
        for (int j = 0; j < def->ncards; j++) known |= !strncmp(def->cards[j].id, x->s, strcspn(x->s, "#")) && strlen(def->cards[j].id) == strcspn(x->s, "#");
        if (known) data_lerr(s->ld, x->sp, "card '%.40s' is listed more often than it exists", x->s);
        else if (def->ncards) DANGLING(s->ld, x, "card", def->cards, def->ncards, id);
        else data_lerr(s->ld, x->sp, "unknown card '%.40s'", x->s);
        card[i] = -1;
        continue;
      }
      if (used[c]) {
        data_lerr(s->ld, x->sp, "card '%.40s' is listed twice", x->s);
        card[i] = -1;
        continue;
      }
      if (!board_card_in_game(s->L, c)) {
        data_lerr(s->ld, x->sp, "card '%.40s' belongs to a faction not in this game", x->s);
        card[i] = -1;
        continue;
      }
      used[c] = true;
      card[i] = c;
    }
  for (size_t i = 0; i < s->ncards; i++)
    if (card[i] >= 0) board_card_move(s->L, s->st, card[i], s->card_slot[i], 0);
  for (int c = def->ncards - 1; c >= 0; c--) {
    int pile = def->decks[def->cards[c].deck].pile;
    if (!used[c] && board_card_in_game(s->L, c) && pile >= 0)
      board_card_move(s->L, s->st, c, board_pile_slot(s->L, pile, -1), 0);
  }
  mt_free(card);
  mt_free(used);
}

/* The piles' `undecided:` counts, now that their cards are placed: at most
 * the pile's size; the undecided part is kept in card order (board.h). */
static void state_undecided(state_rd *s) {
  for (int slot = 0; s->undecided && slot < s->L->npile_slots; slot++) {
    int u = s->undecided[slot], n = board_pile_count(s->L, s->st, slot);
    if (u < 0) continue;
    if (u > n) data_lerr(s->ld, s->undecided_sp[slot], "undecided: %d is more than the %d card%s of the pile", u, n, n == 1 ? "" : "s");
    else board_pile_set_unknown(s->L, s->st, slot, u);
  }
}

/* The caller's check of the extension words, reported at the bad word (or
 * at `vm` when the file stops before it). */
static void state_check_ext(state_rd *s) {
  if (!s->x.check) return;
  strbuf why = {0};
  long bad = s->x.check(s->x.ud, s->L, s->st, s->vm_given, &why);
  if (bad >= 0) {
    mt_span sp = (size_t)bad < s->nvm ? s->vm_sp[bad] : s->vm_key;
    data_lerr(s->ld, sp, "vm word %ld: %s%s", bad, why.s ? why.s : "out of range",
         (size_t)bad < s->nvm ? "" : " (the word is not given: it is 0)");
  }
  sb_free(&why);
}

/* The version a saved position's text begins with (its first line past
 * comments, blank lines and a `---`: `mentat_state: N`), 0 if it does not
 * begin so.  Read before any YAML, so that a file that is not a saved
 * position (a `load` of /etc/passwd) is refused without a line of it quoted. */
static int leading_version(const char *text, size_t len) {
  const char *p = text, *end = text + len;
  if (len >= 3 && !memcmp(p, "\xef\xbb\xbf", 3)) p += 3;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *le = nl ? nl : end, *q = p;
    while (q < le && (*q == ' ' || *q == '\t' || *q == '\r')) q++;
    if (q == le || *q == '#' || (le - q >= 3 && !memcmp(q, "---", 3) && (le - q == 3 || q[3] == ' ' || q[3] == '\r'))) {
      p = nl ? nl + 1 : end;
      continue;
    }
    static const char key[] = "mentat_state:";
    if (p != q || (size_t)(le - p) < sizeof key - 1 || memcmp(p, key, sizeof key - 1)) return 0;
    long v = strtol(p + sizeof key - 1, NULL, 10);
    return v > 0 && v < 100 ? (int)v : -1;
  }
  return 0;
}

/* Whether TEXT's last line is `end: true` (a whole file of version 2). */
static bool ends_whole(const char *text, size_t len) {
  while (len && (text[len - 1] == '\n' || text[len - 1] == '\r' || text[len - 1] == ' ')) len--;
  return len >= 9 && !memcmp(text + len - 9, "end: true", 9);
}

board_layout *state_load_text(const board_def *def, const state_ext *x, const char *name, const char *text,
                              size_t len, diag *d, unsigned char **st) {
  data_loader *ld = data_loader_new((board_def *)(uintptr_t)def, d);
  yr r;
  data_yr_open(&r, ld, name, text, len);
  int version = leading_version(text, len);
  if (version == 0) {
    diag_source_private(d, r.file, true);
    mt_span sp = {r.file, 0, 0};
    data_lerr(ld, sp, "not a saved position: it does not begin with 'mentat_state:' (docs/state-format.md)");
    data_yr_close(&r);
    data_loader_free(ld);
    *st = NULL;
    return NULL;
  }
  state_rd s;
  memset(&s, 0, sizeof s);
  s.ld = ld;
  s.r = &r;
  s.def = def;
  if (x) s.x = *x;
  if (data_yr_root(&r, "a saved state (a mapping)")) {
    state_root(&s);
    data_yr_end(&r);
  }
  if (s.L && !r.fatal) state_cards(&s);
  if (s.L && !r.fatal) state_undecided(&s);
  if (s.L && !r.fatal && ld->errors == 0) state_check_ext(&s);
  if (s.L == NULL && !r.fatal && ld->errors == 0) {
    mt_span sp = {r.file, 0, 1};
    data_lerr(ld, sp, "a saved state needs 'factions'");
  }
  if (r.fatal && version == 2 && !s.ended && !ends_whole(text, len)) {
    mt_span sp = {r.file, (uint32_t)len, (uint32_t)len};
    diag_note(d, sp, "the file does not end with 'end: true' as every file Mentat saves does: it was cut short "
                     "(a full disk, an interrupted copy)");
  }
  data_yr_close(&r);
  int errors = ld->errors;
  data_loader_free(ld);
  if (errors || !s.L) {
    board_layout_free(s.L);
    mt_free(s.st);
    *st = NULL;
    return NULL;
  }
  *st = s.st;
  return s.L;
}
