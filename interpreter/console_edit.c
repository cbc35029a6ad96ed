/* console_edit.c -- console commands that set up a position: new, clear, put,
 * tanks, reserves, spice, give, hand, discard, stack, storm, turn, ally,
 * unally, set, leader.  Edits work on the generic board through the names of
 * the data (see repl.c). */
#define _POSIX_C_SOURCE 200809L
#include "console.h"

/* ---- commands ------------------------------------------------------------------ */

/* A rule set the console already holds (the current game's, or one kept by
 * undo, redo or a branch) compiled with these variants, by name, and this
 * ruleset: shared, not compiled again, so that a script alternating
 * `new ruleset=basic` and `new ruleset=advanced` keeps two rule sets, not
 * one per undo entry.  A variant given as a file is compiled anew each
 * time: the file may have changed. */
static mt_rules *held_rules(repl *R, const char *expansion, const char *const *variants, int nvariants, int advanced) {
  strbuf key = {0};
  sb_puts(&key, "");
  for (int i = 0; i < nvariants; i++) {
    if (strchr(variants[i], '/') || strstr(variants[i], ".rules")) return sb_free(&key), NULL;
    sb_printf(&key, "%s%s", i ? "," : "", variants[i]);
  }
  const mt_rules *found = NULL;
  const mt_rules *cands[1 + 256 + 256 + 32];
  int n = 0;
  cands[n++] = R->r;
  for (int i = 0; i < R->nhistory; i++) cands[n++] = R->history[i] ? R->history[i]->r : NULL;
  for (int i = 0; i < R->nfuture; i++) cands[n++] = R->future[i] ? R->future[i]->r : NULL;
  for (int i = 0; i < R->nbranches; i++) cands[n++] = R->branches[i].g ? R->branches[i].g->r : NULL;
  for (int i = 0; i < n && !found; i++)
    if (cands[i] && cands[i]->advanced == (advanced == 1) && cands[i]->variant_list && !strcmp(cands[i]->variant_list, key.s) &&
        !strcmp(cands[i]->expansion_list ? cands[i]->expansion_list : "", expansion))
      found = cands[i];
  sb_free(&key);
  return found ? (mt_rules *)(uintptr_t)game_rules_retain(found) : NULL;
}

/* Compiles the pack with the given expansions (a comma-separated list of
 * names, "" for none: each BASE/expansions/NAME laid over the base before the
 * command line's mods, docs/expansions.md), variants and ruleset (or shares one
 * the console holds); NULL (reported) on errors.  The caller owns a reference. */
static mt_rules *compile_pack(repl *R, const char *expansion, const char *const *variants, int nvariants, int advanced) {
  mt_rules *held = held_rules(R, expansion, variants, nvariants, advanced);
  if (held) return held;
  char names[512];
  snprintf(names, sizeof names, "%s", expansion);
  char *exp[32];
  int ne = *names ? mt_split_list(names, exp, 32) : 0;
  if (ne < 0) return fail(R, "expansion= has an empty name or too many names"), NULL;
  for (int i = 0; i < ne; i++)
    for (int j = 0; j < i; j++)
      if (!strcmp(exp[i], exp[j])) return fail(R, "expansion '%s' is listed twice", exp[i]), NULL;
  const char *packs[32 + 32];
  char *owned[32];
  for (int i = 0; i < ne; i++) {
    strbuf why = {0};
    owned[i] = pack_expansion(R->components, exp[i], &why);
    if (!owned[i]) {
      fail(R, "%s", why.s);
      sb_free(&why);
      for (int j = 0; j < i; j++) mt_free(owned[j]);
      return NULL;
    }
    packs[i] = owned[i];
  }
  for (int i = 0; i < R->npacks && i < 32; i++) packs[ne + i] = R->packs[i];
  mt_load L = {0};
  L.components = R->components;
  L.packs = packs;
  L.npacks = ne + (R->npacks < 32 ? R->npacks : 32);
  L.variants = variants;
  L.nvariants = nvariants;
  L.advanced = advanced;
  L.message = repl_message;
  L.message_ud = R;
  mt_rules *r = mt_rules_load(&L);
  for (int i = 0; i < ne; i++) mt_free(owned[i]);
  if (!r) fail(R, "the rule set does not compile");
  else r->expansion_list = mt_strdup(expansion);
  return r;
}

int repl_load_rules(repl *R) {
  mt_rules *r = compile_pack(R, R->expansion, R->variants, R->nvariants, R->advanced);
  if (!r) return -1;
  mt_rules_free(R->r);
  R->r = r;
  return 0;
}

/* Splits a comma-separated list of names into OUT (at most CAP); an empty
 * list or an empty name is an error naming WHAT. */
static int split_list(repl *R, char *list, const char *what, char **out, int cap) {
  int n = mt_split_list(list, out, cap);
  if (n == -1) return fail(R, "%s= has an empty name in its list", what);
  if (n == -2) return fail(R, "%s= lists more than %d names", what, cap);
  return n;
}

/* new [factions=a,b] [expansion=x|none] [ruleset=basic|advanced] [variants=v,w] [seed=N] [turns=N]:
 * everything is checked and built before the current game is replaced, so a
 * failed `new` changes nothing; `undo` returns to the game it replaced. */
int repl_cmd_new(repl *R, int argc, char **argv) {
  char facbuf[512] = "", varbuf[1024] = "", expbuf[512] = "";
  bool have_fac = false, have_var = false, have_exp = false;
  unsigned long long seed = 1;
  long long turns = -1;
  int advanced = R->advanced; /* the current game's ruleset (before the first: the command line's) */
  for (int i = 1; i < argc; i++) {
    char *eq = strchr(argv[i], '=');
    if (!eq) return fail(R, "new takes key=value arguments (factions=, expansion=, ruleset=, variants=, seed=, turns=)");
    *eq = 0;
    const char *k = argv[i], *v = eq + 1;
    if (!strcmp(k, "factions")) {
      if (strlen(v) >= sizeof facbuf) return fail(R, "factions= is too long");
      snprintf(facbuf, sizeof facbuf, "%s", v);
      have_fac = true;
    } else if (!strcmp(k, "expansion")) { /* "expansion=" or "expansion=none": the base game alone */
      if (strlen(v) >= sizeof expbuf) return fail(R, "expansion= is too long");
      snprintf(expbuf, sizeof expbuf, "%s", strcmp(v, "none") ? v : "");
      have_exp = true;
    } else if (!strcmp(k, "ruleset")) {
      if ((advanced = mt_ruleset_parse(v)) < 0) return fail(R, "ruleset is basic or advanced");
    } else if (!strcmp(k, "variants")) {
      if (strlen(v) >= sizeof varbuf) return fail(R, "variants= is too long");
      snprintf(varbuf, sizeof varbuf, "%s", v);
      have_var = true;
    } else if (!strcmp(k, "seed")) {
      if (repl_parse_u64(R, "seed", v, &seed) < 0) return -1;
    } else if (!strcmp(k, "turns")) {
      if (repl_parse_number(R, "turns", v, 1, 1000, &turns) < 0) return -1;
    } else {
      return fail(R, "unknown setting '%s' (factions, expansion, ruleset, variants, seed, turns)", k);
    }
  }
  char *vnames[32];
  int nv = 0;
  if (have_var && *varbuf && (nv = split_list(R, varbuf, "variants", vnames, 32)) < 0) return -1;
  char *fnames[BOARD_MAX_FACTIONS];
  int nf = 0;
  if (have_fac && (nf = split_list(R, facbuf, "factions", fnames, BOARD_MAX_FACTIONS)) < 0) return -1;
  /* the rule set: the current one unless the ruleset or the variants change */
  mt_rules *r = R->r;
  const char *exp = have_exp ? expbuf : R->expansion;
  bool fresh = !r || advanced != R->advanced || have_var || strcmp(exp, R->expansion);
  if (fresh) {
    r = have_var ? compile_pack(R, exp, (const char *const *)vnames, nv, advanced)
                 : compile_pack(R, exp, R->variants, R->nvariants, advanced);
    if (!r) return -1;
  }
  const char *fac[BOARD_MAX_FACTIONS];
  for (int i = 0; i < nf; i++) {
    int f = board_faction_find(r->def, fnames[i]); /* an id or an alias of the sheet, in any case */
    if (f < 0) {
      const char *c[BOARD_MAX_FACTIONS];
      int n = r->def->nfactions < BOARD_MAX_FACTIONS ? r->def->nfactions : BOARD_MAX_FACTIONS;
      for (int j = 0; j < n; j++) c[j] = r->def->factions[j].id;
      const char *sug = diag_suggest(fnames[i], c, (size_t)n);
      char *x = sug ? NULL : pack_expansion_with_faction(R->components, fnames[i]);
      fail(R, "unknown faction '%s'%s%s%s%s%s%s", fnames[i], sug ? " (did you mean '" : "", sug ? sug : "", sug ? "'?)" : "",
           x ? " (it comes with the expansion: new expansion=" : "", x ? x : "", x ? ")" : "");
      mt_free(x);
      if (fresh) mt_rules_free(r);
      return -1;
    }
    for (int j = 0; j < i; j++)
      if (!strcmp(fac[j], r->def->factions[f].id)) {
        fail(R, "faction '%s' is listed twice", fac[j]);
        if (fresh) mt_rules_free(r);
        return -1;
      }
    fac[i] = r->def->factions[f].id;
  }
  char err[256];
  mt_game *g = mt_game_new(r, nf ? fac : NULL, nf, (uint64_t)seed, err, sizeof err);
  if (fresh) mt_rules_free(r); /* the game holds it now (or it is gone with the failure) */
  if (!g) return fail(R, "%s", err);
  if (turns > 0) {
    const program *p = &g->r->prog;
    for (int i = 0; i < p->nvars; i++)
      if (!strcmp(p->vars[i].name, "game_length"))
        board_var_set(g->L, g->v.st, p->vars[i].board_var, 0, 0, (int32_t)turns);
  }
  /* the old game goes to the undo history; the new one replaces it */
  repl_remember(R, R->g);
  R->g = g;
  repl_attach(R, g);
  R->bot_rng = (uint64_t)seed ^ 0x626f74ull;
  say(R, "new game: %d factions, seed %llu", g->L->nf, seed);
  return 0;
}

int repl_pool_count(repl *R, int pool, int gf, int kind) {
  int loc = board_loc_pool(LAY(R), pool, gf);
  if (kind >= 0) return board_tokens(LAY(R), ST(R), loc, gf, kind);
  int n = 0;
  for (int k = 0; k < DEF(R)->nkinds; k++) n += board_tokens(LAY(R), ST(R), loc, gf, k);
  return n;
}

/* Moves N tokens of KIND into location TO, taking from FROM1 then FROM2.  A
 * kind of which the faction's sheet has no tokens is the flip side of its
 * default kind (docs/components.md): what is short of it is taken as tokens
 * of the default kind and turned over where they arrive. */
static int fetch(repl *R, int gf, int kind, int n, int to, int from1, int from2) {
  const board_layout *L = LAY(R);
  const board_faction *bf = &DEF(R)->factions[L->faction[gf]];
  int a = board_tokens(L, ST(R), from1, gf, kind);
  int b = from2 >= 0 ? board_tokens(L, ST(R), from2, gf, kind) : 0;
  int d = bf->default_kind, flip = 0;
  if (a + b < n && bf->forces[kind] == 0 && kind != d) {
    int da = board_tokens(L, ST(R), from1, gf, d), db = from2 >= 0 ? board_tokens(L, ST(R), from2, gf, d) : 0;
    if (a + b + da + db < n)
      return fail(R, "only %d %s tokens are available (reserves and tanks, %s tokens to turn over included)", a + b + da + db,
                  DEF(R)->kinds[kind], DEF(R)->kinds[d]);
    flip = n - a - b;
    int x = da < flip ? da : flip;
    if (x) board_move_tokens(L, ST(R), gf, d, from1, to, x);
    if (flip - x) board_move_tokens(L, ST(R), gf, d, from2, to, flip - x);
    board_set_tokens(L, ST(R), to, gf, d, board_tokens(L, ST(R), to, gf, d) - flip);
    board_set_tokens(L, ST(R), to, gf, kind, board_tokens(L, ST(R), to, gf, kind) + flip);
    n -= flip;
  }
  if (a + b < n) return fail(R, "only %d %s tokens are available (reserves and tanks)", a + b, DEF(R)->kinds[kind]);
  int x = a < n ? a : n;
  if (x) board_move_tokens(L, ST(R), gf, kind, from1, to, x);
  if (n - x) board_move_tokens(L, ST(R), gf, kind, from2, to, n - x);
  return 0;
}

static int kind_arg(repl *R, int f, char **w, int *argc, int at) {
  if (*argc > at) {
    int k = board_kind_index(DEF(R), w[at]);
    if (k >= 0) {
      for (int i = at; i < *argc - 1; i++) w[i] = w[i + 1];
      (*argc)--;
      return k;
    }
  }
  return DEF(R)->factions[f].default_kind;
}

int repl_cmd_put(repl *R, int argc, char **argv) {
  int f, a, sec;
  long long n;
  if (argc < 4) return fail(R, "usage: put FACTION N [KIND] TERRITORY [SECTOR]");
  if (repl_need_faction(R, argv[1], &f) < 0) return -1;
  if (repl_parse_number(R, "the count", argv[2], 0, INT32_MAX, &n) < 0) return -1;
  int kind = kind_arg(R, f, argv, &argc, 3);
  if (argc < 4) return fail(R, "usage: put FACTION N [KIND] TERRITORY [SECTOR]");
  if (repl_need_area(R, argv[3], &a) < 0 || repl_section_arg(R, a, argc > 4 ? argv[4] : NULL, &sec) < 0) return -1;
  int gf = R->g->L->game_faction[f];
  if (gf < 0) return fail(R, "%s is not in this game", argv[1]);
  int res = repl_pool_of(R, "reserves");
  if (res < 0) return -1;
  int tanks = board_pool_index(DEF(R), "tanks"); /* optional */
  if (fetch(R, gf, kind, (int)n, sec, board_loc_pool(LAY(R), res, gf), tanks >= 0 ? board_loc_pool(LAY(R), tanks, gf) : -1) < 0)
    return -1;
  char name[128];
  say(R, "%s: %lld %s in %s", DEF(R)->factions[f].id, n, DEF(R)->kinds[kind],
      board_section_name(DEF(R), sec, name, sizeof name));
  return 0;
}

int repl_cmd_clear(repl *R, int argc, char **argv) {
  if (argc != 2) return fail(R, "usage: clear FACTION|all");
  int res = repl_pool_of(R, "reserves");
  if (res < 0) return -1;
  for (int gf = 0; gf < LAY(R)->nf; gf++) {
    int f = LAY(R)->faction[gf];
    if (strcmp(argv[1], "all") && repl_faction_id(R, argv[1]) != f) continue;
    for (int s = 0; s < DEF(R)->nsections; s++)
      for (int k = 0; k < DEF(R)->nkinds; k++) {
        int n = board_tokens(LAY(R), ST(R), s, gf, k);
        if (n > 0) board_move_tokens(LAY(R), ST(R), gf, k, s, board_loc_pool(LAY(R), res, gf), n);
      }
  }
  if (strcmp(argv[1], "all")) {
    int f;
    if (repl_need_faction(R, argv[1], &f) < 0) return -1;
  }
  say(R, "cleared %s", argv[1]);
  return 0;
}

/* tanks/reserves F N [KIND]: set that pool to N, balancing with the other. */
int repl_cmd_pool(repl *R, int argc, char **argv) {
  int f;
  long long n;
  if (argc < 3) return fail(R, "usage: %s FACTION N [KIND]", argv[0]);
  if (repl_need_faction(R, argv[1], &f) < 0) return -1;
  if (repl_parse_number(R, "the count", argv[2], 0, INT32_MAX, &n) < 0) return -1;
  int kind = kind_arg(R, f, argv, &argc, 3);
  int gf = LAY(R)->game_faction[f];
  if (gf < 0) return fail(R, "%s is not in this game", argv[1]);
  int res = repl_pool_of(R, "reserves"), tanks = repl_pool_of(R, "tanks");
  if (res < 0 || tanks < 0) return -1;
  int me = !strcmp(argv[0], "tanks") ? tanks : res, other = me == tanks ? res : tanks;
  int lme = board_loc_pool(LAY(R), me, gf), lot = board_loc_pool(LAY(R), other, gf);
  int have = board_tokens(LAY(R), ST(R), lme, gf, kind);
  if (have < n) {
    if (fetch(R, gf, kind, (int)n - have, lme, lot, -1) < 0) return -1;
  } else if (have > n) {
    board_move_tokens(LAY(R), ST(R), gf, kind, lme, lot, have - (int)n);
  }
  say(R, "%s: %lld %s in %s", DEF(R)->factions[f].id, n, DEF(R)->kinds[kind], argv[0]);
  return 0;
}

static int set_var(repl *R, const char *name, int index, int32_t v) {
  int k = repl_var_of(R, name);
  if (k < 0) return -1;
  if (board_var_set(LAY(R), ST(R), k, index, 0, v) != BOARD_OK) return fail(R, "%s cannot be %d", name, v);
  return 0;
}

int32_t repl_get_var(repl *R, const char *name, int index) {
  int k = repl_var_of(R, name);
  return k < 0 ? 0 : board_var_get(LAY(R), ST(R), k, index, 0);
}

/* Balances a change of DELTA spice with bank variable B (if any): refused,
 * changing nothing, when the bank would leave what a state cell holds (it
 * never wraps) or go where its kind forbids. */
static int bank_balance(repl *R, int b, long long delta) {
  if (b < 0) return 0;
  long long bank = (long long)board_var_get(LAY(R), ST(R), b, 0, 0) - delta;
  if (bank < INT32_MIN || bank > INT32_MAX || board_var_set(LAY(R), ST(R), b, 0, 0, (int32_t)bank) != BOARD_OK)
    return fail(R, "the bank cannot balance that: it would hold %lld (a state cell holds -2147483648..2147483647)", bank);
  return 0;
}

/* spice F N (behind the shield) or spice TERRITORY N [SECTOR] (on the map);
 * the difference comes from or goes to the bank, so spice stays conserved. */
int repl_cmd_spice(repl *R, int argc, char **argv) {
  long long n;
  if (argc < 3) return fail(R, "usage: spice FACTION|TERRITORY N [SECTOR]");
  if (repl_parse_number(R, "the amount of spice", argv[2], 0, INT32_MAX, &n) < 0) return -1;
  int f = repl_faction_id(R, argv[1]);
  int32_t before;
  int b = repl_var_of(R, "bank");
  if (f >= 0) {
    int gf = LAY(R)->game_faction[f];
    if (gf < 0) return fail(R, "%s is not in this game", argv[1]);
    before = repl_get_var(R, "spice", gf);
    if (bank_balance(R, b, n - before) < 0) return -1;
    if (set_var(R, "spice", gf, (int32_t)n) < 0) return bank_balance(R, b, before - n), -1;
  } else {
    int a, sec;
    char low[128];
    if (board_area_index(DEF(R), board_lower(argv[1], low, sizeof low)) < 0) {
      const char *c[BOARD_MAX_AREAS + BOARD_MAX_FACTIONS];
      size_t k = 0;
      for (int i = 0; i < DEF(R)->nareas; i++) c[k++] = DEF(R)->areas[i].id;
      for (int i = 0; i < DEF(R)->nfactions && k < sizeof c / sizeof *c; i++) c[k++] = DEF(R)->factions[i].id;
      return repl_suggest_fail(R, "faction or territory", argv[1], c, k);
    }
    if (repl_need_area(R, argv[1], &a) < 0 || repl_section_arg(R, a, argc > 3 ? argv[3] : NULL, &sec) < 0) return -1;
    before = repl_get_var(R, "board_spice", sec);
    if (bank_balance(R, b, n - before) < 0) return -1;
    if (set_var(R, "board_spice", sec, (int32_t)n) < 0) return bank_balance(R, b, before - n), -1;
  }
  say(R, "spice of %s: %lld", argv[1], n);
  return 0;
}

static int move_card_to(repl *R, int card, int pile_slot, int pos) {
  if (board_card_move(LAY(R), ST(R), card, pile_slot, pos) != BOARD_OK)
    return fail(R, "%s cannot go there", DEF(R)->cards[card].id);
  return 0;
}

/* Card word W as the console takes it: an id in any case. */
static int card_of(repl *R, const char *w) {
  char low[128];
  return board_card_index(DEF(R), board_lower(w, low, sizeof low));
}

/* Finds instance K of card id C not already in DONE. */
static int next_card(repl *R, const char *w, const bool *taken) {
  int c = card_of(R, w);
  if (c < 0) return -1;
  for (int i = c; i < DEF(R)->ncards && !strcmp(DEF(R)->cards[i].id, DEF(R)->cards[c].id); i++)
    if (!taken[i]) return i;
  return c;
}

/* The same, for a card going to pile slot TO: a copy still in its deck's draw pile first, then a
 * copy not already in TO, so that naming a card of several copies again in a later command moves
 * another copy, not the one an earlier command put somewhere. */
static int next_card_for(repl *R, const char *w, const bool *taken, int to) {
  int c = card_of(R, w);
  if (c < 0) return -1;
  for (int pass = 0; pass < 2; pass++)
    for (int i = c; i < DEF(R)->ncards && !strcmp(DEF(R)->cards[i].id, DEF(R)->cards[c].id); i++) {
      int at = board_card_pile(LAY(R), ST(R), i, NULL);
      int home = board_pile_slot(LAY(R), DEF(R)->decks[DEF(R)->cards[i].deck].pile, -1);
      if (!taken[i] && (pass ? at != to : at == home)) return i;
    }
  return next_card(R, w, taken);
}

/* The copy of card W (of several identical ones) to put in pile slot TO: one already there
 * first, then one in a global pile (a deck, a discard pile), and only then one another faction
 * holds -- so `hand emperor karama` takes the Karama still in the deck, not the Atreides' one. */
static int pick_copy(repl *R, const char *w, const bool *taken, int to) {
  int c = card_of(R, w);
  if (c < 0) return -1;
  int best = -1, best_rank = 9;
  for (int i = c; i < DEF(R)->ncards && !strcmp(DEF(R)->cards[i].id, DEF(R)->cards[c].id); i++) {
    if (taken[i]) continue;
    int at = board_card_pile(LAY(R), ST(R), i, NULL);
    int owner = at >= 0 ? LAY(R)->owner_of_slot[at] : -1;
    int rank = at == to ? 0 : owner < 0 ? 1 : 2;
    if (rank < best_rank) best = i, best_rank = rank;
  }
  return best >= 0 ? best : next_card(R, w, taken);
}

int repl_cmd_give(repl *R, int argc, char **argv, bool exact) {
  int f;
  if (argc < 2) return fail(R, "usage: %s FACTION CARD...", argv[0]);
  if (repl_need_faction(R, argv[1], &f) < 0) return -1;
  int gf = LAY(R)->game_faction[f];
  if (gf < 0) return fail(R, "%s is not in this game", argv[1]);
  const char *pname = "hand";
  if (!exact && argc >= 4 && !strcmp(argv[argc - 2], "into")) { /* give F CARD... into PILE */
    pname = argv[argc - 1];
    argc -= 2;
  }
  int hand = repl_pile_of(R, pname);
  if (hand < 0) return -1;
  if (DEF(R)->piles[hand].scope != BS_FACTION) return fail(R, "pile '%s' does not belong to a faction", pname);
  int slot = board_pile_slot(LAY(R), hand, gf);
  for (int i = 2; i < argc; i++) {
    int c;
    if (repl_need_card(R, argv[i], &c) < 0) return -1;
    if (!board_card_in_game(LAY(R), c)) /* a card of an absent faction is not in the game (nor in a save) */
      return fail(R, "%s belongs to %s, which is not in this game", argv[i], DEF(R)->factions[DEF(R)->cards[c].faction].id);
  }
  /* Choose every copy before moving anything, so a refused give changes nothing: a copy already
   * in the pile is not given again (`give f karama` twice gives both Karamas). */
  bool *taken = mt_calloc((size_t)DEF(R)->ncards + 1, 1);
  int *chosen = mt_calloc((size_t)argc, sizeof *chosen);
  if (!exact)
    for (int k = 0, n = board_pile_count(LAY(R), ST(R), slot); k < n; k++) taken[board_pile_card(LAY(R), ST(R), slot, k)] = true;
  for (int i = 2; i < argc; i++) {
    int c = pick_copy(R, argv[i], taken, slot);
    if (c < 0 || taken[c]) {
      mt_free(taken);
      mt_free(chosen);
      return fail(R, "no %s is left to give: every copy is already in %s's %s or given above", argv[i],
                  DEF(R)->factions[f].id, pname);
    }
    taken[c] = true;
    chosen[i] = c;
  }
  if (exact) /* the old hand goes back on top of its decks */
    while (board_pile_count(LAY(R), ST(R), slot) > 0) {
      int c = board_pile_top(LAY(R), ST(R), slot);
      move_card_to(R, c, board_pile_slot(LAY(R), DEF(R)->decks[DEF(R)->cards[c].deck].pile, -1), -1);
    }
  for (int i = 2; i < argc; i++) {
    if (move_card_to(R, chosen[i], slot, -1) < 0) {
      mt_free(taken);
      mt_free(chosen);
      return -1;
    }
  }
  mt_free(chosen);
  mt_free(taken);
  say(R, "%s holds %d cards in %s", DEF(R)->factions[f].id, board_pile_count(LAY(R), ST(R), slot), pname);
  return 0;
}

/* stack DECK CARD... (first named is drawn first) / discard DECK CARD... (last on top): DECK is
 * spice, treachery or storm (its pile DECK_deck or DECK_discard), or the name of a global pile. */
/* After `stack`: a silent copy of the game plays on (the passive policy answering) until the card
 * stacked on top of pile SLOT leaves it; if the rules move it within the pile first (a shuffle, as
 * the Advanced storm deck's 2.04.13), the stacking would be lost: warned, with the phase where it
 * happens.  A game not yet started is not played (the next command decides how it starts). */
static void stacked_lookahead(repl *R, int slot, int card, const char *pname) {
  int st = mt_status(R->g);
  if (st != MT_WAITING && st != MT_PAUSED) return;
  mt_game *g = mt_clone(R->g);
  mt_game_set_log(g, NULL, NULL);
  g->v.fired = NULL;
  g->v.shuffled_rule = g->v.shuffled_slot = -1;
  vm_reset_stops(g->v.vs);
  uint64_t rng = R->bot_rng;
  for (int step = 0; step < 5000; step++) {
    st = mt_status(g);
    if (st == MT_PAUSED) vm_run(&g->v);
    else if (st == MT_WAITING) {
      mt_choice x;
      if (!bot_choose(g, BOT_PASSIVE, &rng, &x) || mt_apply(g, &x, NULL) < 0) break;
    } else break;
    if (repl_chance_pending(g)) break;
    int pos = -1;
    int at = board_card_pile(g->L, g->v.st, card, &pos);
    if (at != slot) break; /* drawn (or dealt) as stacked */
    if (pos != board_pile_count(g->L, g->v.st, slot) - 1 || g->v.shuffled_slot == slot) { /* reordered before drawn */
      const program *p = &R->r->prog;
      int sr = g->v.shuffled_slot == slot ? g->v.shuffled_rule : -1, ph = g->v.vs->phase_rule;
      if (sr >= 0)
        say(R, "\nwarning: rule %s (%s) shuffles %s before its top card is drawn: the card stacked will not come up as stacked",
            p->rules[sr].id, p->rules[sr].title ? p->rules[sr].title : "", pname);
      else
        say(R, "\nwarning: the rules reorder %s before its top card is drawn%s%s%s%s: the card stacked will not come up as stacked",
            pname, ph >= 0 ? "; seen at the next decision, in " : "", ph >= 0 ? p->rules[ph].id : "", ph >= 0 ? " " : "",
            ph >= 0 ? p->rules[ph].title : "");
      break;
    }
  }
  mt_game_free(g);
  repl_attach(R, R->g);
}

int repl_cmd_stack(repl *R, int argc, char **argv, bool discard) {
  if (argc < 3) return fail(R, "usage: %s spice|treachery|storm|PILE CARD...", argv[0]);
  char pname[64], low[128];
  argv[1] = (char *)(uintptr_t)board_lower(argv[1], low, sizeof low); /* pile and deck names in any case */
  int exact = board_pile_index(DEF(R), argv[1]);
  if (exact >= 0 && DEF(R)->piles[exact].scope == BS_FACTION)
    return fail(R, "%s is a pile of each faction: use 'give FACTION CARD... into %s'", argv[1], argv[1]);
  if (exact >= 0) snprintf(pname, sizeof pname, "%s", argv[1]);
  else snprintf(pname, sizeof pname, "%s_%s", argv[1], discard ? "discard" : "deck");
  int pile = repl_pile_of(R, pname);
  if (pile < 0) return -1;
  int slot = board_pile_slot(LAY(R), pile, -1);
  bool *taken = mt_calloc((size_t)DEF(R)->ncards + 1, 1);
  int cards[256];
  int n = 0;
  for (int i = 2; i < argc && n < 256; i++) {
    long long v;
    int c = -1;
    if (!strcmp(argv[1], "storm") && repl_parse_int(argv[i], &v)) {
      int at = board_card_attr_index(DEF(R), "value");
      for (int k = 0; k < DEF(R)->ncards && at >= 0; k++)
        if (!taken[k] && DEF(R)->decks[DEF(R)->cards[k].deck].pile == pile && DEF(R)->cards[k].attrs[at] == v) c = k;
      if (c < 0) {
        mt_free(taken);
        return fail(R, "no storm card with value %lld", v);
      }
    } else {
      if (repl_need_card(R, argv[i], &c) < 0) {
        mt_free(taken);
        return -1;
      }
      c = next_card_for(R, argv[i], taken, slot);
      if (c < 0) {
        mt_free(taken);
        return fail(R, "no card '%s'", argv[i]);
      }
    }
    taken[c] = true;
    cards[n++] = c;
  }
  mt_free(taken);
  if (discard)
    for (int i = 0; i < n; i++) move_card_to(R, cards[i], slot, -1);
  else
    for (int i = n - 1; i >= 0; i--) move_card_to(R, cards[i], slot, -1);
  say(R, "%s: %d cards placed", pname, n);
  if (!discard && n > 0) stacked_lookahead(R, slot, cards[0], pname);
  return 0;
}

int repl_cmd_setmarker(repl *R, int argc, char **argv) {
  long long n;
  if (argc != 2) return fail(R, "usage: %s N", argv[0]);
  if (repl_parse_number(R, argv[0], argv[1], 0, INT32_MAX, &n) < 0) return -1;
  if (!strcmp(argv[0], "storm") && (n < 0 || n >= DEF(R)->nsectors))
    return fail(R, "the storm is in a sector 0..%d", DEF(R)->nsectors - 1);
  if (set_var(R, argv[0], 0, (int32_t)n) < 0) return -1;
  say(R, "%s: %lld", argv[0], n);
  return 0;
}

int repl_cmd_ally(repl *R, int argc, char **argv) {
  int a, b;
  if (!strcmp(argv[0], "unally")) {
    if (argc != 2 || repl_need_faction(R, argv[1], &a) < 0) return fail(R, "usage: unally FACTION");
    int ga = LAY(R)->game_faction[a];
    if (ga < 0) return fail(R, "%s is not in this game", argv[1]);
    int old = repl_get_var(R, "ally", ga); /* the board keeps game indices in faction-typed variables */
    if (old >= 0 && old < LAY(R)->nf) set_var(R, "ally", old, -1);
    if (set_var(R, "ally", ga, -1) < 0) return -1;
    say(R, "%s has no ally", argv[1]);
    return 0;
  }
  if (argc != 3 || repl_need_faction(R, argv[1], &a) < 0 || repl_need_faction(R, argv[2], &b) < 0)
    return fail(R, "usage: ally FACTION FACTION");
  int ga = LAY(R)->game_faction[a], gb = LAY(R)->game_faction[b];
  if (ga < 0 || gb < 0 || a == b) return fail(R, "both factions must be in the game, and different");
  /* one alliance each, named both ways: an alliance either had before is broken first */
  for (int side = 0; side < 2; side++) {
    int g = side ? gb : ga, other = side ? ga : gb;
    int old = repl_get_var(R, "ally", g);
    if (old >= 0 && old < LAY(R)->nf && old != other) {
      if (set_var(R, "ally", old, -1) < 0 || set_var(R, "ally", g, -1) < 0) return -1;
      say(R, "%s's alliance with %s is broken first (one alliance each)\n", DEF(R)->factions[LAY(R)->faction[g]].id,
          DEF(R)->factions[LAY(R)->faction[old]].id);
    }
  }
  if (set_var(R, "ally", ga, gb) < 0 || set_var(R, "ally", gb, ga) < 0) return -1;
  say(R, "%s and %s are allied", DEF(R)->factions[a].id, DEF(R)->factions[b].id);
  return 0;
}

static int set_command(repl *R, char *buf, const char *rest);

/* set VAR(ARG, ...) = EXPR: any variable of the data or the rules; the
 * arguments and the value are expressions of the rules language. */
int repl_cmd_set(repl *R, const char *rest) {
  char *buf = mt_strdup(rest);
  int rc = set_command(R, buf, rest);
  mt_free(buf);
  return rc;
}

static int set_command(repl *R, char *buf, const char *rest) {
  char *eq = strchr(buf, '=');
  if (!eq) return fail(R, "usage: set VAR(ARGS) = EXPR");
  *eq = 0;
  char *lhs = buf, *rhs = eq + 1;
  while (*lhs == ' ') lhs++;
  char *paren = strchr(lhs, '(');
  char name[128];
  size_t nl = paren ? (size_t)(paren - lhs) : strlen(lhs);
  while (nl && lhs[nl - 1] == ' ') nl--;
  snprintf(name, sizeof name, "%.*s", (int)nl, lhs);
  const program *p = &R->r->prog;
  int var = -1;
  for (int i = 0; i < p->nvars; i++)
    if (!strcmp(p->vars[i].name, name)) var = i;
  if (var < 0) {
    const char **c = mt_calloc((size_t)p->nvars + 1, sizeof *c);
    for (int i = 0; i < p->nvars; i++) c[i] = p->vars[i].name;
    int rc = repl_suggest_fail(R, "variable", name, c, (size_t)p->nvars);
    mt_free(c);
    return rc;
  }
  int64_t args[MAX_PARAMS] = {0};
  int nargs = 0;
  if (paren) {
    char *close = strrchr(paren, ')');
    if (!close) return fail(R, "missing ')'");
    *close = 0;
    char *a = paren + 1;
    int depth = 0;
    char *start = a;
    for (char *q = a;; q++) {
      if (*q == '(' || *q == '[' || *q == '{') depth++;
      if (*q == ')' || *q == ']' || *q == '}') depth--;
      if ((*q == ',' && depth == 0) || !*q) {
        char end = *q;
        *q = 0;
        if (*start && nargs < MAX_PARAMS) {
          int ty;
          strbuf err = {0};
          bool ok = game_eval(R->g, start, &args[nargs], &ty, &err);
          if (!ok) {
            fail(R, "%s", err.s ? err.s : "bad argument");
            sb_free(&err);
            return -1;
          }
          sb_free(&err);
          nargs++;
        }
        if (!end) break;
        start = q + 1;
      }
    }
  }
  if (nargs != p->vars[var].nparams) return fail(R, "%s takes %d argument(s)", name, p->vars[var].nparams);
  int64_t value;
  int ty;
  strbuf err = {0};
  if (!game_eval_as(R->g, rhs, p->vars[var].type, &value, &ty, &err)) {
    fail(R, "%s", err.s ? err.s : "bad value");
    sb_free(&err);
    return -1;
  }
  sb_free(&err);
  int code = vm_var_store(&R->g->v, var, args, value);
  if (code) return fail(R, "%s cannot take that value here (%s)", name, code == VE_ABSENT ? "a faction not in the game" : "out of range");
  strbuf v = {0};
  vm_format_value(&R->g->v, p->vars[var].type, value, &v);
  const char *shown = rest;
  while (*shown == ' ') shown++;
  say(R, "%.*s= %s", (int)(strchr(shown, '=') - shown), shown, v.s);
  sb_free(&v);
  return 0;
}

/* leader L STATUS: a leader's status (a value of the data's leader statuses). */
int repl_cmd_leader(repl *R, int argc, char **argv) {
  if (argc != 3) return fail(R, "usage: leader LEADER STATUS");
  const board_def *def = DEF(R);
  char low[128], slow[128];
  int l = board_leader_index(def, board_lower(argv[1], low, sizeof low));
  if (l < 0) {
    const char **c = mt_calloc((size_t)def->nleaders + 1, sizeof *c);
    for (int i = 0; i < def->nleaders; i++) c[i] = def->leaders[i].id;
    int rc = repl_suggest_fail(R, "leader", argv[1], c, (size_t)def->nleaders);
    mt_free(c);
    return rc;
  }
  if (LAY(R)->game_faction[def->leaders[l].faction] < 0) /* its record is not part of this game (nor of a save) */
    return fail(R, "%s belongs to %s, which is not in this game", argv[1], def->factions[def->leaders[l].faction].id);
  int s = -1;
  board_lower(argv[2], slow, sizeof slow);
  for (int i = 0; i < def->nleader_status; i++)
    if (!strcmp(def->leader_status[i], slow)) s = i;
  if (s < 0) return repl_suggest_fail(R, "leader status", argv[2], (const char *const *)def->leader_status, (size_t)def->nleader_status);
  board_leader_state ls = board_leader_get(LAY(R), ST(R), l);
  ls.status = (int8_t)s;
  board_leader_set(LAY(R), ST(R), l, ls);
  say(R, "%s is %s", def->leaders[l].id, def->leader_status[s]);
  return 0;
}

/* Whether invariant I of the rules holds in G (true where it is not in force or cannot be read). */
static bool invariant_holds(mt_game *g, int i) {
  const invariant_rec *iv = &g->r->prog.invariants[i];
  if (!vm_rule_active(&g->v, iv->rule)) return true;
  vm_memo_reset(&g->v);
  int64_t ok = 1;
  return !vm_eval(&g->v, iv->fn, NULL, 0, &ok, NULL) || ok != 0;
}

/* Rule variables of one leader or faction parameter (or none) whose value differs between A and
 * B, said as `name(x) = v`; and leaders whose status or holder differs: what repairs moved. */
static void say_moved(repl *R, mt_game *a, mt_game *b) {
  const program *p = &R->r->prog;
  const board_def *def = DEF(R);
  int said = 0;
  for (int i = 0; i < p->nvars; i++) {
    const var_rec *vr = &p->vars[i];
    int ty = vr->nparams ? vr->ptype[0] : TY_ERROR;
    if (vr->nparams > 1 || (vr->nparams == 1 && ty != TY_LEADER && ty != TY_FACTION)) continue;
    int n = !vr->nparams ? 1 : ty == TY_LEADER ? def->nleaders : a->L->nf;
    for (int k = 0; k < n; k++) {
      const char *arg = !vr->nparams ? NULL : ty == TY_LEADER ? def->leaders[k].id : def->factions[a->L->faction[k]].id;
      if (ty == TY_LEADER && a->L->game_faction[def->leaders[k].faction] < 0) continue;
      char text[256];
      snprintf(text, sizeof text, arg ? "%s(%s)" : "%s", vr->name, arg);
      int64_t x = 0, y = 0;
      int t1, t2;
      if (!game_eval(a, text, &x, &t1, NULL) || !game_eval(b, text, &y, &t2, NULL) || x == y) continue;
      strbuf v = {0};
      vm_format_value(&b->v, vr->type, y, &v);
      say(R, "%s%s = %s", said++ ? ", " : "", text, v.s ? v.s : "");
      sb_free(&v);
    }
  }
  for (int l = 0; l < def->nleaders; l++) {
    if (a->L->game_faction[def->leaders[l].faction] < 0) continue;
    board_leader_state x = board_leader_get(a->L, a->v.st, l), y = board_leader_get(b->L, b->v.st, l);
    if (x.holder != y.holder)
      say(R, "%sleader_holder(%s) = %s", said++ ? ", " : "", def->leaders[l].id,
          y.holder >= 0 && y.holder < b->L->nf ? def->factions[b->L->faction[y.holder]].id : "none");
    if (x.area != y.area)
      say(R, "%sleader_area(%s) = %s", said++ ? ", " : "", def->leaders[l].id, y.area >= 0 ? def->areas[y.area].id : "none");
  }
  if (!said) say(R, "nothing the console can name");
}

/* Whether the bytes of the position that the edit changed (BEFORE -> EDITED) are still what the
 * edit wrote in G (the generations and the VM's own region aside: they say when, not what). */
static bool edit_kept(const mt_game *before, const mt_game *edited, const mt_game *g) {
  const board_layout *L = g->L;
  size_t ext_end = L->off_ext + L->ext_words * sizeof(int32_t);
  for (size_t i = 0; i < L->off_gen; i++) {
    if (i >= L->off_ext && i < ext_end) continue;
    if (before->v.st[i] != edited->v.st[i] && g->v.st[i] != edited->v.st[i]) return false;
  }
  return true;
}

/* Refuses the edit: what it said is dropped, the caller puts the position back. */
static int refuse_edit(repl *R, const program *p, int rule, const char *why, const char *text) {
  R->out.n = 0;
  if (R->out.s) R->out.s[0] = 0;
  return fail(R, "refused: this edit breaks rule %s (%s): %s%s", p->rules[rule].id, p->rules[rule].title ? p->rules[rule].title : "",
              text, why);
}

/* After a position edit, the rules say what it implies (docs/console.md, "Edits the rules
 * complete"): every invariant the edit broke (it held before, it fails now) runs its `repair`,
 * pass after pass while repairs break others, and what they moved is said with the rule.  An
 * invariant still broken after that, a repair that needs a decision, or one that undoes what
 * the edit itself wrote refuses the edit (-1; the caller restores BEFORE). */
int repl_edit_settle(repl *R, mt_game *before) {
  const program *p = &R->r->prog;
  mt_game *edited = NULL;
  bool *ran = mt_calloc((size_t)p->ninvariants + 1, 1);
  int rc = 0;
  for (int pass = 0; pass < 8 && rc == 0; pass++) {
    bool any = false;
    for (int i = 0; i < p->ninvariants && rc == 0; i++) {
      const invariant_rec *iv = &p->invariants[i];
      if (iv->repair_fn < 0 || ran[i] || invariant_holds(R->g, i) || !invariant_holds(before, i)) continue;
      if (!edited) edited = mt_clone(R->g);
      vm_memo_reset(&R->g->v);
      if (vm_call_now(&R->g->v, iv->repair_fn, NULL, 0) < 0) {
        strbuf e = {0};
        vm_error_text(&R->g->v, NULL, &e);
        rc = refuse_edit(R, p, iv->rule, "; its repair cannot run here: ", e.s ? e.s : "an error");
        sb_free(&e);
      }
      ran[i] = any = true;
    }
    if (!any) break;
  }
  for (int i = 0; i < p->ninvariants && rc == 0; i++)
    if (!invariant_holds(R->g, i) && invariant_holds(before, i))
      rc = refuse_edit(R, p, p->invariants[i].rule, "", p->invariants[i].text);
  if (rc == 0 && edited && !edit_kept(before, edited, R->g)) {
    int first = -1;
    for (int i = 0; i < p->ninvariants && first < 0; i++)
      if (ran[i]) first = i;
    rc = refuse_edit(R, p, p->invariants[first].rule, " (it would undo what the edit writes)", p->invariants[first].text);
  }
  if (rc == 0 && edited) {
    say(R, "%swith it, by rule", R->out.n ? "\n" : "");
    for (int i = 0, k = 0; i < p->ninvariants; i++)
      if (ran[i]) {
        bool again = false; /* a rule with two repairs that ran is named once */
        for (int j = 0; j < i; j++) again |= ran[j] && p->invariants[j].rule == p->invariants[i].rule;
        if (again) continue;
        const rule_rec *rr = &p->rules[p->invariants[i].rule];
        say(R, "%s %s (%s)", k++ ? "," : "", rr->id, rr->title ? rr->title : "");
      }
    say(R, ": ");
    say_moved(R, edited, R->g);
  }
  mt_free(ran);
  if (edited) mt_game_free(edited);
  repl_attach(R, R->g);
  return rc;
}
