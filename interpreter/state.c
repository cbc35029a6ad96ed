/* state.c -- saved positions: writing a state block as YAML, by name.
 *
 * Pipeline stage: around the engine (the REPL's save/load, scenario tests).
 * The format is docs/state-format.md; reading it back is data_state.c's job
 * (state_load_text), since all YAML reading shares its event reader.  A save
 * names everything (factions, sections, cards, leaders), never raw offsets,
 * so it survives data files that grow; loading it gives the same hash.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "board.h"
#include "data.h"
#include "diag.h"

static void put_card(const board_def *def, int c, strbuf *o);

/* A pile instance or a location as the console names them: "treachery_deck",
 * "hand of fremen"; a section "arrakeen@9", a pool "reserves of fremen". */
static void put_owned(const board_layout *L, const char *name, int owner, strbuf *o) {
  sb_puts(o, name);
  if (owner >= 0) sb_printf(o, " of %s", L->def->factions[L->faction[owner]].id);
}

/* One value of variable V as YAML: ids for references (none for -1), names
 * for enums, true/false for flags and bools.  A value outside its type is
 * written as its number, which loading then refuses. */
static void put_scalar(const board_layout *L, const board_var *v, int32_t x, strbuf *o) {
  const board_def *def = L->def;
  char nb[96];
  if (v->kind == BV_FLAG || v->type == BT_BOOL) {
    if (x == 0 || x == 1) sb_puts(o, x ? "true" : "false");
    else sb_printf(o, "%d", x);
    return;
  }
  if (x == -1 && v->type != BT_INT && v->type != BT_ENUM) {
    sb_puts(o, "none");
    return;
  }
  const char *id = NULL;
  switch (v->type) {
  case BT_ENUM:
  case BT_NAME: id = x >= 0 && x < v->nvalues ? v->values[x] : NULL; break;
  case BT_FACTION:
    if (v->rule) id = x >= 0 && x < def->nfactions ? def->factions[x].id : NULL; /* the data's index */
    else id = x >= 0 && x < L->nf ? def->factions[L->faction[x]].id : NULL;     /* the game's */
    break;
  case BT_AREA: id = x >= 0 && x < def->nareas ? def->areas[x].id : NULL; break;
  case BT_LEADER: id = x >= 0 && x < def->nleaders ? def->leaders[x].id : NULL; break;
  case BT_CARD:
    if (x >= 0 && x < def->ncards) {
      put_card(def, x, o);
      return;
    }
    break;
  case BT_PILE:
    if (x >= 0 && x < L->npile_slots) {
      put_owned(L, def->piles[L->pile_of_slot[x]].name, L->owner_of_slot[x], o);
      return;
    }
    break;
  case BT_LOC: {
    int pool, owner;
    if (x >= 0 && x < def->nsections) id = board_section_name(def, x, nb, sizeof nb);
    else if (x >= 0 && x < L->nlocs && board_loc_is_pool(L, x, &pool, &owner)) {
      put_owned(L, def->pools[pool].name, owner, o);
      return;
    }
    break;
  }
  case BT_SECTOR:
  case BT_BOOL:
  case BT_INT: break;
  }
  if (id) sb_puts(o, id);
  else sb_printf(o, "%d", x);
}

/* The value of variable V of instance INDEX at cell CELL: a set (of WIDTH
 * cells) as the list of its members, anything else as put_scalar. */
static void put_value(const board_layout *L, const unsigned char *st, int var, int index, int cell, strbuf *o) {
  const board_var *v = &L->vars[var];
  if (!v->set) {
    put_scalar(L, v, board_var_get(L, st, var, index, cell), o);
    return;
  }
  uint64_t bits = (uint32_t)board_var_get(L, st, var, index, cell);
  if (v->width == 2) bits |= (uint64_t)(uint32_t)board_var_get(L, st, var, index, cell + 1) << 32;
  sb_putc(o, '[');
  for (int i = 0, n = 0; i < 64; i++)
    if (bits >> i & 1u) {
      if (n++) sb_puts(o, ", ");
      put_scalar(L, v, i, o);
    }
  sb_putc(o, ']');
}

/* "name: value" for variable VAR at INDEX (a list for array variables). */
static void put_var_entry(const board_layout *L, const unsigned char *st, int var, int index,
                          const char *indent, strbuf *o) {
  const board_var *v = &L->vars[var];
  int width = v->width > 1 ? v->width : 1;
  sb_printf(o, "%s%s: ", indent, v->name);
  if (v->len == width) put_value(L, st, var, index, 0, o);
  else {
    sb_putc(o, '[');
    for (int c = 0; c < v->len; c += width) {
      if (c) sb_puts(o, ", ");
      put_value(L, st, var, index, c, o);
    }
    sb_putc(o, ']');
  }
  sb_putc(o, '\n');
}

/* The tokens at LOC as "{ owner: n }" or "{ owner: { kind: n } }"; returns
 * false (writing nothing) when the location is empty.  OWNER_ONLY >= 0
 * writes just that owner's kinds ("n" or "{ kind: n }"). */
static bool put_tokens(const board_layout *L, const unsigned char *st, int loc, int owner_only,
                       strbuf *o) {
  const board_def *def = L->def;
  bool any = false;
  for (int f = 0; f < L->nf; f++) {
    if (owner_only >= 0 && f != owner_only) continue;
    const board_faction *F = &def->factions[L->faction[f]];
    int nonzero = 0, total = 0;
    bool only_default = true;
    for (int k = 0; k < def->nkinds; k++) {
      int n = board_tokens(L, st, loc, f, k);
      if (n) {
        nonzero++;
        total += n;
        if (k != F->default_kind) only_default = false;
      }
    }
    if (!nonzero) continue;
    if (owner_only < 0) sb_printf(o, "%s%s: ", any ? ", " : "{ ", F->id);
    if (only_default) sb_printf(o, "%d", total);
    else {
      bool first = true;
      sb_puts(o, "{ ");
      for (int k = 0; k < def->nkinds; k++) {
        int n = board_tokens(L, st, loc, f, k);
        if (!n) continue;
        sb_printf(o, "%s%s: %d", first ? "" : ", ", def->kinds[k], n);
        first = false;
      }
      sb_puts(o, " }");
    }
    any = true;
  }
  if (any && owner_only < 0) sb_puts(o, " }");
  return any;
}

/* A card's saved name: "id", or "id#k" when several cards share the id. */
static void put_card(const board_def *def, int c, strbuf *o) {
  if (def->cards[c].ninstances > 1) sb_printf(o, "%s#%d", def->cards[c].id, def->cards[c].instance);
  else sb_puts(o, def->cards[c].id);
}

/* A pile, top card first.  A pile whose bottom cards are undecided (chance
 * as choice) is a mapping that says how many: `{ undecided: 30, cards: [...] }`. */
static void put_pile(const board_layout *L, const unsigned char *st, int slot, const char *indent,
                     const char *name, strbuf *o) {
  int n = board_pile_count(L, st, slot), u = board_pile_unknown(L, st, slot);
  sb_printf(o, "%s%s: ", indent, name);
  if (u) sb_printf(o, "{ undecided: %d, cards: ", u);
  sb_putc(o, '[');
  for (int pos = n - 1; pos >= 0; pos--) { /* top first */
    put_card(L->def, board_pile_card(L, st, slot, pos), o);
    if (pos) sb_puts(o, ", ");
  }
  sb_puts(o, u ? "] }\n" : "]\n");
}

/* Appends the whole position to OUT.  Writes every variable, every non-empty
 * stack, every pile (top card first), every leader, the generator state and
 * the extension words: a complete description, so that loading it back gives
 * the same bytes and the same hash. */
void state_save(const board_layout *L, const unsigned char *st, strbuf *o) {
  const board_def *def = L->def;
  char nb[96];
  sb_puts(o, "# Mentat saved position (docs/state-format.md)\nmentat_state: 2\nfactions: [");
  for (int f = 0; f < L->nf; f++) sb_printf(o, "%s%s", f ? ", " : "", def->factions[L->faction[f]].id);
  uint64_t r[4];
  memcpy(r, st + L->off_rng, sizeof r);
  sb_printf(o, "]\nrng: [%" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 "]\n", r[0], r[1], r[2], r[3]);
  sb_puts(o, "variables:\n");
  for (int v = 0; v < L->nvars; v++)
    if (L->vars[v].scope == BS_GLOBAL) put_var_entry(L, st, v, 0, "  ", o);
  sb_puts(o, "board:");
  bool any = false;
  for (int s = 0; s < def->nsections; s++) {
    strbuf t = {0};
    if (put_tokens(L, st, s, -1, &t)) {
      sb_printf(o, "\n  %s: %s", board_section_name(def, s, nb, sizeof nb), t.s);
      any = true;
    }
    sb_free(&t);
  }
  sb_puts(o, any ? "\n" : " {}\n");
  sb_puts(o, "section_variables:\n");
  for (int v = 0; v < L->nvars; v++) {
    if (L->vars[v].scope != BS_SECTION) continue;
    sb_printf(o, "  %s:", L->vars[v].name);
    any = false;
    for (int s = 0; s < def->nsections; s++) {
      int32_t x = board_var_get(L, st, v, s, 0);
      if (x == L->vars[v].initial) continue;
      sb_printf(o, "\n    %s: ", board_section_name(def, s, nb, sizeof nb));
      put_scalar(L, &L->vars[v], x, o);
      any = true;
    }
    sb_puts(o, any ? "\n" : " {}\n");
  }
  sb_puts(o, "pools:\n");
  for (int p = 0; p < def->npools; p++) {
    if (def->pools[p].scope != BS_GLOBAL) continue;
    strbuf t = {0};
    if (put_tokens(L, st, board_loc_pool(L, p, -1), -1, &t)) sb_printf(o, "  %s: %s\n", def->pools[p].name, t.s);
    else sb_printf(o, "  %s: {}\n", def->pools[p].name);
    sb_free(&t);
  }
  sb_puts(o, "piles:\n");
  for (int p = 0; p < def->npiles; p++)
    if (def->piles[p].scope == BS_GLOBAL) put_pile(L, st, board_pile_slot(L, p, -1), "  ", def->piles[p].name, o);
  sb_puts(o, "per_faction:\n");
  for (int f = 0; f < L->nf; f++) {
    const board_faction *F = &def->factions[L->faction[f]];
    sb_printf(o, "  %s:\n    variables:\n", F->id);
    for (int v = 0; v < L->nvars; v++)
      if (L->vars[v].scope == BS_FACTION) put_var_entry(L, st, v, f, "      ", o);
    sb_puts(o, "    pools:\n");
    for (int p = 0; p < def->npools; p++) {
      if (def->pools[p].scope != BS_FACTION) continue;
      strbuf t = {0};
      if (put_tokens(L, st, board_loc_pool(L, p, f), f, &t)) sb_printf(o, "      %s: %s\n", def->pools[p].name, t.s);
      else sb_printf(o, "      %s: 0\n", def->pools[p].name);
      sb_free(&t);
    }
    sb_puts(o, "    piles:\n");
    for (int p = 0; p < def->npiles; p++)
      if (def->piles[p].scope == BS_FACTION) put_pile(L, st, board_pile_slot(L, p, f), "      ", def->piles[p].name, o);
    sb_puts(o, "    leaders:\n");
    for (int l = F->first_leader; l < F->first_leader + F->nleaders; l++) {
      board_leader_state ls = board_leader_get(L, st, l);
      const char *status = def->leader_status[ls.status];
      if (ls.holder == f && ls.area < 0 && !ls.used) {
        sb_printf(o, "      %s: %s\n", def->leaders[l].id, status);
        continue;
      }
      sb_printf(o, "      %s: { status: %s, holder: %s, area: %s, used: %s }\n", def->leaders[l].id, status,
                ls.holder >= 0 ? def->factions[L->faction[ls.holder]].id : "none",
                ls.area >= 0 ? def->areas[ls.area].id : "none", ls.used ? "true" : "false");
    }
  }
  sb_puts(o, "vm: [");
  const int32_t *ext = (const int32_t *)(const void *)(st + L->off_ext);
  for (size_t i = 0; i < L->ext_words; i++) sb_printf(o, "%s%d", i ? ", " : "", ext[i]);
  sb_puts(o, "]\nend: true\n"); /* the last line: a file cut short lacks it (mentat_state: 2) */
}

board_layout *state_load_file(const board_def *def, const state_ext *x, const char *path, diag *d,
                              unsigned char **st) {
  uint32_t id = diag_load_file(d, path);
  if (id == DIAG_NOFILE) return NULL;
  size_t len;
  const char *text = diag_source_text(d, id, &len);
  return state_load_text(def, x, path, text, len, d, st);
}
