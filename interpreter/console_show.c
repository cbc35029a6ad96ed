/* console_show.c -- the position shown (show, view as) and kept (save, load). */
#define _POSIX_C_SOURCE 200809L
#include "board_draw.h"
#include "console.h"

/* May VIEWER (a data faction, -1: everyone's knowledge is shown) see an item
 * of OWNER with visibility VIS? */
static bool may_see(board_visibility vis, int viewer, int owner) {
  return viewer < 0 || vis == VIS_PUBLIC || (vis == VIS_OWNER && viewer == owner);
}

/* Tokens of game faction GF by kind, in AREA (>= 0) or else in POOL: when any of
 * them is of another kind than the faction's default one, the text gets
 * " (2 normal, 3 elite)" and, with JSON, KEY: {"normal":2,"elite":3} goes into
 * the object being written (*JFIRST: no member written yet).  Kinds are the
 * data's; a count alone means tokens of the default kind only. */
static void show_kinds(repl *R, int f, int gf, int area, int pool, bool text, bool json, const char *key, int *jfirst) {
  const board_def *def = DEF(R);
  int counts[64] = {0}, other = 0;
  for (int k = 0; k < def->nkinds && k < 64; k++) {
    counts[k] = area >= 0 ? board_tokens_in_area(LAY(R), ST(R), area, gf, 1u << k) : repl_pool_count(R, pool, gf, k);
    if (counts[k] && k != def->factions[f].default_kind) other = 1;
  }
  if (!other) return;
  if (text) say(R, " (");
  if (json) sb_printf(&R->jextra, "%s\"%s\":{", *jfirst ? "" : ",", key);
  *jfirst = 0;
  for (int k = 0, first = 1; k < def->nkinds && k < 64; k++) {
    if (!counts[k]) continue;
    if (text) say(R, "%s%d %s", first ? "" : ", ", counts[k], def->kinds[k]);
    if (json) sb_printf(&R->jextra, "%s\"%s\":%d", first ? "" : ",", def->kinds[k], counts[k]);
    first = 0;
  }
  if (text) say(R, ")");
  if (json) sb_putc(&R->jextra, '}');
}

/* The faction's secret variables (`secret var V(f: faction)`, seen by their owner only): those
 * no longer at their initial value are listed, with the value to the owner and in the full
 * view, as hidden to any other viewer.  JSON: "secrets":{"V":3} (null when hidden). */
static void show_secrets(repl *R, int f, int gf, bool json, int viewer) {
  const program *p = &R->r->prog;
  int first = 1;
  for (int i = 0; i < p->nvars; i++) {
    const var_rec *v = &p->vars[i];
    if (!v->secret || v->data || v->scope != BS_FACTION || v->nparams != 1 || v->board_var < 0) continue;
    int32_t x = board_var_get(LAY(R), ST(R), v->board_var, gf, 0);
    if (x == v->init_value) continue;
    bool seen = may_see(LAY(R)->vars[v->board_var].visibility, viewer, f);
    strbuf val = {0}; /* by its type: a card by name, a number as a number */
    vm_format_value(&R->g->v, v->type, x, &val);
    bool number = v->type == TY_INT || v->type == TY_BOOL;
    if (first) say(R, "\n  secret:");
    if (seen) say(R, " %s %s", v->name, val.s ? val.s : "");
    else say(R, " %s hidden", v->name);
    if (json) {
      sb_printf(&R->jextra, "%s\"%s\":", first ? ",\"secrets\":{" : ",", v->name);
      if (!seen) sb_puts(&R->jextra, "null");
      else if (number) sb_printf(&R->jextra, "%d", x);
      else sb_json_str(&R->jextra, val.s ? val.s : "");
    }
    sb_free(&val);
    first = 0;
  }
  if (json && !first) sb_putc(&R->jextra, '}');
}

/* May VIEWER (a data faction, or -1: everything) see leader L -- its name and status?  The rules
 * say so with the conventional value leader_seen_by(l, f) (rule 1.11.00; a variant may hide a
 * captive's identity, wbc.battle.7); a pack without it shows every leader. */
static bool leader_seen(repl *R, int l, int viewer) {
  if (viewer < 0) return true;
  char text[256];
  snprintf(text, sizeof text, "leader_seen_by(%s, %s)", DEF(R)->leaders[l].id, DEF(R)->factions[viewer].id);
  int64_t v = 1;
  int ty;
  strbuf err = {0};
  bool ok = game_eval(R->g, text, &v, &ty, &err);
  sb_free(&err);
  return !ok || v != 0;
}

static void show_faction(repl *R, int f, bool json, int viewer) {
  const board_def *def = DEF(R);
  const board_layout *L = LAY(R);
  int gf = L->game_faction[f];
  if (gf < 0) {
    say(R, "%s is not in this game", def->factions[f].id);
    return;
  }
  int res = board_pool_index(def, "reserves"), tanks = board_pool_index(def, "tanks");
  int sv = board_var_index(def, "spice");
  int32_t spice = sv >= 0 ? repl_get_var(R, "spice", gf) : 0;
  bool spice_seen = sv < 0 || may_see(def->vars[sv].visibility, viewer, f);
  int ally = board_var_index(def, "ally") >= 0 ? repl_get_var(R, "ally", gf) : -1;
  ally = ally >= 0 && ally < L->nf ? L->faction[ally] : -1;
  int nres = res >= 0 ? repl_pool_count(R, res, gf, -1) : 0, ntanks = tanks >= 0 ? repl_pool_count(R, tanks, gf, -1) : 0;
  char sp[16];
  snprintf(sp, sizeof sp, spice_seen ? "%d" : "hidden", spice);
  say(R, "%s: spice %s, reserves %d", def->factions[f].id, sp, nres);
  int none = 1; /* the text's kinds; JSON gets them below, as their own member */
  if (res >= 0) show_kinds(R, f, gf, -1, res, true, false, NULL, &none);
  say(R, ", tanks %d", ntanks);
  if (tanks >= 0) show_kinds(R, f, gf, -1, tanks, true, false, NULL, &none);
  say(R, ", ally %s\n  forces:", ally >= 0 ? def->factions[ally].id : "none");
  if (json)
    sb_printf(&R->jextra, ",\"faction\":\"%s\",\"spice\":%s,\"reserves\":%d,\"tanks\":%d,\"ally\":%s%s%s,\"forces\":{",
              def->factions[f].id, spice_seen ? sp : "null", nres, ntanks, ally >= 0 ? "\"" : "",
              ally >= 0 ? def->factions[ally].id : "null", ally >= 0 ? "\"" : "");
  int first = 1;
  for (int a = 0; a < def->nareas; a++) {
    int n = board_tokens_in_area(L, ST(R), a, gf, 0);
    if (!n) continue;
    say(R, " %s %d", def->areas[a].id, n);
    show_kinds(R, f, gf, a, -1, true, false, NULL, &none);
    if (json) sb_printf(&R->jextra, "%s\"%s\":%d", first ? "" : ",", def->areas[a].id, n);
    first = 0;
  }
  if (json) {
    /* "kinds": by place (a territory, reserves, tanks), the tokens by kind wherever some are
     * not of the faction's default kind */
    int jfirst = 1;
    sb_puts(&R->jextra, "},\"kinds\":{");
    if (res >= 0) show_kinds(R, f, gf, -1, res, false, true, "reserves", &jfirst);
    if (tanks >= 0) show_kinds(R, f, gf, -1, tanks, false, true, "tanks", &jfirst);
    for (int a = 0; a < def->nareas; a++)
      if (board_tokens_in_area(L, ST(R), a, gf, 0)) show_kinds(R, f, gf, a, -1, false, true, def->areas[a].id, &jfirst);
    sb_puts(&R->jextra, "},\"hand\":[");
  }
  int hand = board_pile_index(def, "hand");
  say(R, "\n  hand:");
  if (hand >= 0) {
    int slot = board_pile_slot(L, hand, gf);
    int n = board_pile_count(L, ST(R), slot);
    if (!may_see(def->piles[hand].visibility, viewer, f)) {
      say(R, " %d card%s (hidden)", n, n == 1 ? "" : "s");
      for (int i = 0; i < n && json; i++) sb_printf(&R->jextra, "%s\"hidden\"", i ? "," : "");
    } else {
      for (int i = 0; i < n; i++) {
        int c = board_pile_card(L, ST(R), slot, i);
        say(R, " %s", def->cards[c].id);
        if (json) sb_printf(&R->jextra, "%s\"%s\"", i ? "," : "", def->cards[c].id);
      }
    }
  }
  /* the faction's other piles, those of rules/decks.yaml and those a faction sheet declares
   * (traitors, Face Dancers, ...): named cards to whom may see them, counted for the others.
   * The text leaves out an empty pile; JSON has every one ("piles", each a list like "hand"). */
  if (json) sb_puts(&R->jextra, "],\"piles\":{");
  int jp = 0;
  for (int p = 0; p < def->npiles; p++) {
    if (p == hand || def->piles[p].scope != BS_FACTION) continue;
    int slot = board_pile_slot(L, p, gf), n = board_pile_count(L, ST(R), slot);
    bool seen = may_see(def->piles[p].visibility, viewer, f);
    if (json) {
      sb_printf(&R->jextra, "%s\"%s\":[", jp++ ? "," : "", def->piles[p].name);
      for (int i = 0; i < n; i++)
        sb_printf(&R->jextra, "%s\"%s\"", i ? "," : "", seen ? def->cards[board_pile_card(L, ST(R), slot, i)].id : "hidden");
      sb_puts(&R->jextra, "]");
    }
    if (!n) continue;
    say(R, "\n  %s:", def->piles[p].name);
    if (!seen) say(R, " %d card%s (hidden)", n, n == 1 ? "" : "s");
    else
      for (int i = 0; i < n; i++) say(R, " %s", def->cards[board_pile_card(L, ST(R), slot, i)].id);
  }
  if (json) sb_puts(&R->jextra, "},\"leaders\":{");
  say(R, "\n  leaders:");
  const board_faction *bf = &def->factions[f];
  int hidden = 0, shown = 0;
  for (int i = 0; i < bf->nleaders; i++) {
    int l = bf->first_leader + i;
    if (!leader_seen(R, l, viewer)) { /* its status and its very name: counted, not named */
      hidden++;
      continue;
    }
    board_leader_state ls = board_leader_get(L, ST(R), l);
    const char *stname = ls.status >= 0 && ls.status < def->nleader_status ? def->leader_status[ls.status] : "?";
    say(R, " %s (%s)", def->leaders[l].id, stname);
    if (json) sb_printf(&R->jextra, "%s\"%s\":\"%s\"", shown++ ? "," : "", def->leaders[l].id, stname);
  }
  if (hidden) say(R, " and %d hidden", hidden);
  if (json && hidden) sb_printf(&R->jextra, "},\"leaders_hidden\":%d", hidden);
  else if (json) sb_puts(&R->jextra, "}");
  show_secrets(R, f, gf, json, viewer);
}

static void show_territory(repl *R, int a, bool json) {
  const board_def *def = DEF(R);
  const board_layout *L = LAY(R);
  say(R, "%s (%s):", def->areas[a].id, def->areas[a].name);
  if (json) sb_printf(&R->jextra, ",\"territory\":\"%s\",\"forces\":{", def->areas[a].id);
  int first = 1, none = 1;
  for (int gf = 0; gf < L->nf; gf++) {
    int n = board_tokens_in_area(L, ST(R), a, gf, 0);
    if (!n) continue;
    say(R, " %s %d", def->factions[L->faction[gf]].id, n);
    show_kinds(R, L->faction[gf], gf, a, -1, true, false, NULL, &none);
    if (json) sb_printf(&R->jextra, "%s\"%s\":%d", first ? "" : ",", def->factions[L->faction[gf]].id, n);
    first = 0;
  }
  if (first) say(R, " no forces");
  int sv = board_var_index(def, "board_spice");
  long long spice = sv >= 0 ? board_var_area_total(L, ST(R), sv, a) : 0;
  say(R, "; spice %lld", spice);
  if (json) {
    /* "kinds": by faction, the tokens by kind when some are not of its default kind */
    int jfirst = 1;
    sb_puts(&R->jextra, "},\"kinds\":{");
    for (int gf = 0; gf < L->nf; gf++)
      if (board_tokens_in_area(L, ST(R), a, gf, 0))
        show_kinds(R, L->faction[gf], gf, a, -1, false, true, def->factions[L->faction[gf]].id, &jfirst);
    sb_printf(&R->jextra, "},\"spice\":%lld", spice);
  }
}

/* show board [--svg FILE]: the text map (board_draw_text), or the SVG
 * written to FILE (a plain name in a sandbox, as for save); either shows
 * what the current view may see. */
static int show_board(repl *R, int argc, char **argv) {
  if (argc == 2) {
    strbuf o = {0};
    board_draw_text(LAY(R), ST(R), R->viewer, &o);
    if (o.n && o.s[o.n - 1] == '\n') o.s[--o.n] = '\0';
    say(R, "%s", o.s ? o.s : "");
    sb_free(&o);
    return 0;
  }
  if (argc != 4 || strcmp(argv[2], "--svg")) return fail(R, "usage: show board [--svg FILE]");
  char path[4200], title[256];
  if (repl_writable_path(R, argv[3], path, sizeof path) < 0) return -1;
  const program *p = &R->r->prog;
  int turn = p->turn_var >= 0 ? board_var_get(LAY(R), ST(R), p->vars[p->turn_var].board_var, 0, 0) : 0;
  int ph = R->g->v.vs->phase_rule;
  snprintf(title, sizeof title, "turn %d, phase %s%s%s", turn, ph >= 0 ? p->rules[ph].id : "-",
           R->viewer >= 0 ? ", as seen by " : "", R->viewer >= 0 ? DEF(R)->factions[R->viewer].id : "");
  strbuf o = {0}, why = {0};
  board_draw_svg(LAY(R), ST(R), R->viewer, title, &o);
  bool ok = mt_write_file(path, o.s, o.n, &why);
  sb_free(&o);
  if (!ok) {
    fail(R, "%s", why.s);
    sb_free(&why);
    return -1;
  }
  say(R, "board drawn to %s", argv[3]);
  return 0;
}

int repl_cmd_show(repl *R, int argc, char **argv) {
  if (argc >= 2 && !strcmp(argv[1], "board")) return show_board(R, argc, argv);
  if (argc >= 3 && !strcmp(argv[1], "faction")) {
    int f;
    if (repl_need_faction(R, argv[2], &f) < 0) return -1;
    show_faction(R, f, true, R->viewer); /* what the current view may see (view as) */
    return 0;
  }
  if (argc >= 3 && !strcmp(argv[1], "territory")) {
    int a;
    if (repl_need_area(R, argv[2], &a) < 0) return -1;
    show_territory(R, a, true);
    return 0;
  }
  if (argc >= 2 && strcmp(argv[1], "state")) return fail(R, "usage: show [state|faction F|territory T|board [--svg FILE]]");
  const program *p = &R->r->prog;
  int turn = p->turn_var >= 0 ? board_var_get(LAY(R), ST(R), p->vars[p->turn_var].board_var, 0, 0) : 0;
  int storm = board_var_index(DEF(R), "storm") >= 0 ? repl_get_var(R, "storm", 0) : -1;
  int ph = R->g->v.vs->phase_rule;
  const char *vn = R->r->variant_names && *R->r->variant_names ? R->r->variant_names : NULL; /* the rules in force */
  say(R, "rules: %s, variants: %s\n", R->r->advanced ? "advanced" : "basic", vn ? vn : "none");
  sb_printf(&R->jextra, ",\"ruleset\":\"%s\",\"variants\":", R->r->advanced ? "advanced" : "basic");
  sb_json_str(&R->jextra, vn ? vn : "");
  say(R, "turn %d, storm in sector %d, phase %s; ", turn, storm, ph >= 0 ? p->rules[ph].id : "-");
  sb_printf(&R->jextra, ",\"turn\":%d,\"storm\":%d,\"hash\":\"%016llx\"", turn, storm, (unsigned long long)mt_hash(R->g));
  repl_describe_pending(R);
  for (int gf = 0; gf < LAY(R)->nf; gf++) {
    say(R, "\n");
    show_faction(R, LAY(R)->faction[gf], false, R->viewer);
  }
  return 0;
}

/* view as FACTION: the position as that faction may see it (1.11): others'
 * secret variables and owner-only piles are redacted; `view as all` ends it. */
int repl_cmd_view(repl *R, int argc, char **argv) {
  if (argc != 3 || strcmp(argv[1], "as")) return fail(R, "usage: view as FACTION|all");
  if (!strcmp(argv[2], "all")) {
    R->viewer = -1;
    say(R, "viewing everything");
    return 0;
  }
  int f;
  if (repl_need_faction(R, argv[2], &f) < 0) return -1;
  R->viewer = f;
  say(R, "viewing as %s:\n", DEF(R)->factions[f].id);
  const board_def *def = DEF(R);
  for (int gf = 0; gf < LAY(R)->nf; gf++) {
    show_faction(R, LAY(R)->faction[gf], false, f);
    say(R, "\n");
  }
  for (int p = 0; p < def->npiles; p++)
    if (def->piles[p].scope == BS_GLOBAL) {
      int slot = board_pile_slot(LAY(R), p, -1), n = board_pile_count(LAY(R), ST(R), slot);
      if (!n) continue;
      say(R, "%s: %d card%s", def->piles[p].name, n, n == 1 ? "" : "s");
      if (may_see(def->piles[p].visibility, f, -1) && n) say(R, ", top %s", def->cards[board_pile_top(LAY(R), ST(R), slot)].id);
      say(R, "\n");
    }
  return 0;
}

/* The path of file NAME for load.  In a sandbox (the console fuzzer) NAME
 * must be a plain name, and it lives in the sandbox directory.  Reading is not
 * confined: a file that is not a saved position is refused without a line of
 * it quoted (docs/console.md). */
static int file_path(repl *R, const char *name, char *path, size_t n) {
  if (!R->sandbox) return snprintf(path, n, "%s", name), 0;
  return repl_writable_path(R, name, path, n);
}

/* save FILE: the whole position, written to a temporary beside FILE and
 * renamed over it once complete (util.h mt_out): a full disk fails the
 * command and leaves the previous save whole. */
int repl_cmd_save(repl *R, int argc, char **argv) {
  if (argc != 2) return fail(R, "usage: save FILE");
  char path[4200];
  if (repl_writable_path(R, argv[1], path, sizeof path) < 0) return -1;
  char *text = NULL;
  mt_save_position(R->g, &text);
  strbuf why = {0};
  bool ok = mt_write_file(path, text, strlen(text), &why);
  free(text);
  if (!ok) {
    fail(R, "%s", why.s);
    sb_free(&why);
    return -1;
  }
  say(R, "saved to %s (state hash %016llx)", argv[1], (unsigned long long)mt_hash(R->g));
  return 0;
}

int repl_cmd_load(repl *R, int argc, char **argv) {
  if (argc != 2) return fail(R, "usage: load FILE");
  char path[4200];
  if (file_path(R, argv[1], path, sizeof path) < 0) return -1;
  if (!R->r && repl_load_rules(R) < 0) return -1;
  mt_rules *r = R->r;
  mt_message_fn m = r->message;
  void *ud = r->message_ud;
  r->message = repl_message;
  r->message_ud = R;
  mt_game *g = mt_load_position(r, path);
  r->message = m;
  r->message_ud = ud;
  if (!g) return fail(R, "could not load '%s'", argv[1]);
  repl_remember(R, R->g); /* undo goes back to the game the file replaced */
  R->g = g;
  repl_attach(R, g);
  say(R, "loaded %s (state hash %016llx)", argv[1], (unsigned long long)mt_hash(g));
  return 0;
}
