/* state.c -- saved positions: writing a state block as YAML, by name.
 *
 * Pipeline stage: around the engine (the REPL's save/load, scenario tests).
 * The format is docs/state-format.md; reading it back is data.c's job
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

/* One variable cell as YAML: names for references and enums. */
static void put_var(const board_layout *L, const board_var *v, int32_t x, strbuf *o) {
  const board_def *def = L->def;
  if (v->kind == BV_FLAG || v->type == BT_BOOL) {
    sb_puts(o, x ? "true" : "false");
    return;
  }
  switch (v->type) {
  case BT_ENUM:
    if (x >= 0 && x < v->nvalues) sb_puts(o, v->values[x]);
    else sb_printf(o, "%d", x);
    return;
  case BT_FACTION:
    if (x >= 0 && x < L->nf) sb_puts(o, def->factions[L->faction[x]].id);
    else sb_puts(o, "none");
    return;
  case BT_AREA:
    if (x >= 0 && x < def->nareas) sb_puts(o, def->areas[x].id);
    else sb_puts(o, "none");
    return;
  case BT_LEADER:
    if (x >= 0 && x < def->nleaders) sb_puts(o, def->leaders[x].id);
    else sb_puts(o, "none");
    return;
  case BT_SECTOR:
    if (x >= 0) sb_printf(o, "%d", x);
    else sb_puts(o, "none");
    return;
  case BT_BOOL:
  case BT_INT: sb_printf(o, "%d", x); return;
  }
}

/* "name: value" for variable VAR at INDEX (a list for array variables). */
static void put_var_entry(const board_layout *L, const unsigned char *st, int var, int index,
                          const char *indent, strbuf *o) {
  const board_var *v = &L->vars[var];
  sb_printf(o, "%s%s: ", indent, v->name);
  if (v->len == 1) put_var(L, v, board_var_get(L, st, var, index, 0), o);
  else {
    sb_putc(o, '[');
    for (int c = 0; c < v->len; c++) {
      if (c) sb_puts(o, ", ");
      put_var(L, v, board_var_get(L, st, var, index, c), o);
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

static void put_pile(const board_layout *L, const unsigned char *st, int slot, const char *indent,
                     const char *name, strbuf *o) {
  int n = board_pile_count(L, st, slot);
  sb_printf(o, "%s%s: [", indent, name);
  for (int pos = n - 1; pos >= 0; pos--) { /* top first */
    put_card(L->def, board_pile_card(L, st, slot, pos), o);
    if (pos) sb_puts(o, ", ");
  }
  sb_puts(o, "]\n");
}

/* Appends the whole position to OUT.  Writes every variable, every non-empty
 * stack, every pile (top card first), every leader, the generator state and
 * the extension words: a complete description, so that loading it back gives
 * the same bytes and the same hash. */
void state_save(const board_layout *L, const unsigned char *st, strbuf *o) {
  const board_def *def = L->def;
  char nb[96];
  sb_puts(o, "# Mentat saved position (docs/state-format.md)\nmentat_state: 1\nfactions: [");
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
      put_var(L, &L->vars[v], x, o);
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
  sb_puts(o, "]\n");
}

board_layout *state_load_file(const board_def *def, const state_ext *x, const char *path, diag *d,
                              unsigned char **st) {
  uint32_t id = diag_load_file(d, path);
  if (id == DIAG_NOFILE) return NULL;
  size_t len;
  const char *text = diag_source_text(d, id, &len);
  return state_load_text(def, x, path, text, len, d, st);
}
