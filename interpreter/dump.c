/* dump.c -- `mentat dump board|decks|factions [--json]`: what was loaded.
 *
 * Pipeline stage: inspection, on top of data.c.  The text form is for
 * people; the JSON form is one document that tests and tools compare with
 * the reference fact sheet.  Both print exactly what the board_def holds.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "board.h"
#include "board_draw.h"
#include "data.h"
#include "diag.h"
#include "pack.h"


static const char *scope_name(board_scope s) {
  return s == BS_FACTION ? "faction" : s == BS_SECTION ? "section" : "global";
}

/* One attribute value, typed: JSON literal or text. */
static void put_value(const board_def *def, const board_attr *a, int32_t v, bool json, strbuf *o) {
  switch (a->type) {
  case BT_BOOL: sb_puts(o, v ? "true" : "false"); return;
  case BT_AREA:
    if (v < 0) sb_puts(o, json ? "null" : "none");
    else if (json) sb_json_str(o, def->areas[v].id);
    else sb_puts(o, def->areas[v].id);
    return;
  case BT_LEADER:
    if (v < 0) sb_puts(o, json ? "null" : "none");
    else if (json) sb_json_str(o, def->leaders[v].id);
    else sb_puts(o, def->leaders[v].id);
    return;
  case BT_SECTOR:
  case BT_FACTION:
    if (v < 0) sb_puts(o, json ? "null" : "none");
    else sb_printf(o, "%d", v);
    return;
  case BT_ENUM:
    if (v < 0 || v >= a->nvalues) sb_puts(o, json ? "null" : "?");
    else if (json) sb_json_str(o, a->values[v]);
    else sb_puts(o, a->values[v]);
    return;
  case BT_INT:
  case BT_CARD: /* the last four type only variables of the rules */
  case BT_NAME:
  case BT_PILE:
  case BT_LOC: sb_printf(o, "%d", v); return;
  }
}

/* Attributes that differ from their default (all of them in JSON). */
static void put_attrs(const board_def *def, const board_attr *attrs, int n, const int32_t *vals,
                      bool json, strbuf *o) {
  bool first = true;
  if (json) sb_putc(o, '{');
  for (int i = 0; i < n; i++) {
    if (!json && vals[i] == attrs[i].dflt) continue;
    if (json) {
      sb_printf(o, "%s", first ? "" : ",");
      sb_json_str(o, attrs[i].name);
      sb_putc(o, ':');
    } else sb_printf(o, "%s%s=", first ? "" : " ", attrs[i].name);
    put_value(def, &attrs[i], vals[i], json, o);
    first = false;
  }
  if (json) sb_putc(o, '}');
}

static void put_strv(char *const *v, int n, bool json, strbuf *o) {
  if (json) sb_putc(o, '[');
  for (int i = 0; i < n; i++) {
    if (i) sb_puts(o, json ? "," : " ");
    if (json) sb_json_str(o, v[i]);
    else sb_puts(o, v[i]);
  }
  if (json) sb_putc(o, ']');
}

static void put_area_set(const board_def *def, uint64_t m, bool json, strbuf *o) {
  bool first = true;
  if (json) sb_putc(o, '[');
  for (int a = 0; a < def->nareas; a++)
    if ((m >> a) & 1u) {
      if (!first) sb_puts(o, json ? "," : " ");
      if (json) sb_json_str(o, def->areas[a].id);
      else sb_puts(o, def->areas[a].id);
      first = false;
    }
  if (json) sb_putc(o, ']');
}

void dump_board(const board_def *def, bool json, strbuf *o) {
  char nb[96];
  if (json) {
    sb_printf(o, "{\"sectors\":%d,\"tags\":", def->nsectors);
    put_strv(def->tags, def->ntags, true, o);
    sb_puts(o, ",\"pools\":[");
    for (int i = 0; i < def->npools; i++) {
      sb_printf(o, "%s{\"name\":", i ? "," : "");
      sb_json_str(o, def->pools[i].name);
      sb_printf(o, ",\"scope\":\"%s\"}", scope_name(def->pools[i].scope));
    }
    sb_puts(o, "],\"token_kinds\":");
    put_strv(def->kinds, def->nkinds, true, o);
    sb_puts(o, ",\"variables\":[");
    for (int i = 0; i < def->nvars; i++) {
      const board_var *v = &def->vars[i];
      static const char *const kinds[] = {"counter", "marker", "flag"};
      sb_printf(o, "%s{\"name\":", i ? "," : "");
      sb_json_str(o, v->name);
      sb_printf(o, ",\"scope\":\"%s\",\"kind\":\"%s\",\"initial\":%d}", scope_name(v->scope), kinds[v->kind], v->initial);
    }
    sb_puts(o, "],\"sector_table\":[");
    for (int s = 0; s < def->nsectors; s++) {
      sb_printf(o, "%s[", s ? "," : "");
      bool first = true;
      for (int a = 0; a < def->nareas; a++)
        if ((def->areas[a].sectors >> s) & 1u) {
          sb_printf(o, "%s", first ? "" : ",");
          sb_json_str(o, def->areas[a].id);
          first = false;
        }
      sb_putc(o, ']');
    }
    sb_puts(o, "],\"territories\":[");
  } else {
    sb_printf(o, "board: %d sectors, %d territories, %d sections\n", def->nsectors, def->nareas, def->nsections);
    sb_puts(o, "tags: ");
    put_strv(def->tags, def->ntags, false, o);
    sb_puts(o, "\npools:");
    for (int i = 0; i < def->npools; i++) sb_printf(o, " %s (%s)", def->pools[i].name, scope_name(def->pools[i].scope));
    sb_puts(o, "\ntoken kinds: ");
    put_strv(def->kinds, def->nkinds, false, o);
    sb_puts(o, "\nvariables:");
    for (int i = 0; i < def->nvars; i++) sb_printf(o, " %s (%s)", def->vars[i].name, scope_name(def->vars[i].scope));
    sb_putc(o, '\n');
    for (int s = 0; s < def->nsectors; s++) {
      sb_printf(o, "sector %2d:", s);
      for (int a = 0; a < def->nareas; a++)
        if ((def->areas[a].sectors >> s) & 1u) sb_printf(o, " %s", def->areas[a].id);
      sb_putc(o, '\n');
    }
  }
  for (int i = 0; i < def->nareas; i++) {
    const board_area *a = &def->areas[i];
    if (json) {
      sb_printf(o, "%s{\"id\":", i ? "," : "");
      sb_json_str(o, a->id);
      sb_puts(o, ",\"name\":");
      sb_json_str(o, a->name);
      sb_puts(o, ",\"tags\":[");
      bool first = true;
      for (int t = 0; t < def->ntags; t++)
        if ((a->tags >> t) & 1u) {
          sb_printf(o, "%s", first ? "" : ",");
          sb_json_str(o, def->tags[t]);
          first = false;
        }
      sb_puts(o, "],\"sectors\":[");
      for (int s = 0; s < a->nsections; s++) {
        int sec = def->sections[a->first_section + s].sector;
        if (sec >= 0) sb_printf(o, "%s%d", s ? "," : "", sec);
      }
      sb_puts(o, "],\"attributes\":");
      put_attrs(def, def->area_attrs, def->narea_attrs, a->attrs, true, o);
      sb_puts(o, ",\"borders\":");
      put_area_set(def, a->borders, true, o);
      sb_puts(o, ",\"sections\":[");
      for (int s = 0; s < a->nsections; s++) {
        const board_section *sec = &def->sections[a->first_section + s];
        sb_printf(o, "%s{\"section\":", s ? "," : "");
        sb_json_str(o, board_section_name(def, a->first_section + s, nb, sizeof nb));
        if (sec->sector >= 0) sb_printf(o, ",\"sector\":%d", sec->sector);
        else sb_puts(o, ",\"sector\":null");
        sb_puts(o, ",\"borders\":[");
        for (int k = 0; k < sec->nborders; k++) {
          sb_printf(o, "%s", k ? "," : "");
          sb_json_str(o, board_section_name(def, sec->borders[k], nb, sizeof nb));
        }
        sb_puts(o, "]}");
      }
      sb_puts(o, "]}");
    } else {
      sb_printf(o, "\n%s \"%s\"", a->id, a->name);
      for (int t = 0; t < def->ntags; t++)
        if ((a->tags >> t) & 1u) sb_printf(o, " #%s", def->tags[t]);
      sb_puts(o, "\n  sectors:");
      for (int s = 0; s < a->nsections; s++) {
        int sec = def->sections[a->first_section + s].sector;
        if (sec >= 0) sb_printf(o, " %d", sec);
        else sb_puts(o, " none");
      }
      sb_puts(o, "\n  attributes: ");
      put_attrs(def, def->area_attrs, def->narea_attrs, a->attrs, false, o);
      sb_puts(o, "\n  borders: ");
      put_area_set(def, a->borders, false, o);
      sb_putc(o, '\n');
      for (int s = 0; s < a->nsections; s++) {
        const board_section *sec = &def->sections[a->first_section + s];
        sb_printf(o, "  %s:", board_section_name(def, a->first_section + s, nb, sizeof nb));
        for (int k = 0; k < sec->nborders; k++) sb_printf(o, " %s", board_section_name(def, sec->borders[k], nb, sizeof nb));
        sb_putc(o, '\n');
      }
    }
  }
  if (json) sb_puts(o, "]}\n");
}

void dump_decks(const board_def *def, bool json, strbuf *o) {
  if (json) {
    sb_puts(o, "{\"piles\":[");
    for (int i = 0; i < def->npiles; i++) {
      sb_printf(o, "%s{\"name\":", i ? "," : "");
      sb_json_str(o, def->piles[i].name);
      sb_printf(o, ",\"scope\":\"%s\"}", scope_name(def->piles[i].scope));
    }
    sb_puts(o, "],\"decks\":[");
  } else {
    sb_puts(o, "piles:");
    for (int i = 0; i < def->npiles; i++) sb_printf(o, " %s (%s)", def->piles[i].name, scope_name(def->piles[i].scope));
    sb_putc(o, '\n');
  }
  for (int d = 0; d < def->ndecks; d++) {
    const board_deck *dk = &def->decks[d];
    const char *pile = dk->pile >= 0 ? def->piles[dk->pile].name : "none";
    if (json) {
      sb_printf(o, "%s{\"name\":", d ? "," : "");
      sb_json_str(o, dk->name);
      sb_puts(o, ",\"pile\":");
      sb_json_str(o, pile);
      sb_printf(o, ",\"count\":%d,\"cards\":[", dk->ncards);
    } else sb_printf(o, "\ndeck %s (%d cards, starts in %s)\n", dk->name, dk->ncards, pile);
    bool first = true;
    for (int c = dk->first_card; c < dk->first_card + dk->ncards; c++) {
      const board_card *card = &def->cards[c];
      if (json) {
        sb_printf(o, "%s{\"id\":", first ? "" : ",");
        sb_json_str(o, card->id);
        sb_puts(o, ",\"name\":");
        sb_json_str(o, card->name);
        sb_printf(o, ",\"instance\":%d,\"faction\":", card->instance);
        if (card->faction >= 0) sb_json_str(o, def->factions[card->faction].id);
        else sb_puts(o, "null");
        sb_puts(o, ",\"attributes\":");
        put_attrs(def, def->card_attrs, def->ncard_attrs, card->attrs, true, o);
        sb_putc(o, '}');
      } else {
        if (card->instance > 1) continue;
        sb_printf(o, "  %s", card->id);
        if (card->ninstances > 1) sb_printf(o, " x%d", card->ninstances);
        sb_printf(o, " \"%s\" ", card->name);
        put_attrs(def, def->card_attrs, def->ncard_attrs, card->attrs, false, o);
        sb_putc(o, '\n');
      }
      first = false;
    }
    if (json) sb_puts(o, "]}");
  }
  if (json) sb_puts(o, "]}\n");
}

void dump_factions(const board_def *def, bool json, strbuf *o) {
  char nb[96];
  if (json) sb_putc(o, '[');
  for (int i = 0; i < def->nfactions; i++) {
    const board_faction *F = &def->factions[i];
    if (json) {
      sb_printf(o, "%s{\"id\":", i ? "," : "");
      sb_json_str(o, F->id);
      sb_puts(o, ",\"name\":");
      sb_json_str(o, F->name);
      sb_puts(o, ",\"attributes\":");
      put_attrs(def, def->faction_attrs, def->nfaction_attrs, F->attrs, true, o);
      sb_puts(o, ",\"forces\":{");
      bool first = true;
      for (int k = 0; k < def->nkinds; k++)
        if ((F->kinds >> k) & 1u) {
          sb_printf(o, "%s", first ? "" : ",");
          sb_json_str(o, def->kinds[k]);
          sb_printf(o, ":%d", F->forces[k]);
          first = false;
        }
      sb_puts(o, "},\"start\":[");
      for (int s = 0; s < F->nstart; s++) {
        const board_start *st = &F->start[s];
        const char *what = st->what == START_VAR ? "variable" : st->what == START_POOL ? "pool" : "section";
        const char *target = st->what == START_VAR ? def->vars[st->target].name
                             : st->what == START_POOL ? def->pools[st->target].name
                                                      : board_section_name(def, st->target, nb, sizeof nb);
        sb_printf(o, "%s{\"%s\":", s ? "," : "", what);
        sb_json_str(o, target);
        if (st->kind >= 0) {
          sb_puts(o, ",\"kind\":");
          sb_json_str(o, def->kinds[st->kind]);
        }
        sb_printf(o, ",\"count\":%d}", st->count);
      }
      sb_puts(o, "],\"start_options\":[");
      for (int s = 0; s < F->noptions; s++) {
        sb_printf(o, "%s{\"areas\":", s ? "," : "");
        put_area_set(def, F->options[s].areas, true, o);
        sb_printf(o, ",\"count\":%d}", F->options[s].count);
      }
      sb_puts(o, "],\"leaders\":[");
      for (int l = 0; l < F->nleaders; l++) {
        const board_leader *L = &def->leaders[F->first_leader + l];
        sb_printf(o, "%s{\"id\":", l ? "," : "");
        sb_json_str(o, L->id);
        sb_puts(o, ",\"name\":");
        sb_json_str(o, L->name);
        sb_printf(o, ",\"strength\":%d}", L->strength);
      }
      sb_puts(o, "]}");
    } else {
      sb_printf(o, "%s%s \"%s\"\n  ", i ? "\n" : "", F->id, F->name);
      put_attrs(def, def->faction_attrs, def->nfaction_attrs, F->attrs, false, o);
      sb_puts(o, "\n  forces:");
      for (int k = 0; k < def->nkinds; k++)
        if ((F->kinds >> k) & 1u) sb_printf(o, " %s=%d", def->kinds[k], F->forces[k]);
      sb_puts(o, "\n  start:");
      for (int s = 0; s < F->nstart; s++) {
        const board_start *st = &F->start[s];
        if (st->what == START_VAR) sb_printf(o, " %s=%d", def->vars[st->target].name, st->count);
        else
          sb_printf(o, " %s=%d%s%s",
                    st->what == START_POOL ? def->pools[st->target].name : board_section_name(def, st->target, nb, sizeof nb),
                    st->count, st->kind != F->default_kind ? " " : "", st->kind != F->default_kind ? def->kinds[st->kind] : "");
      }
      for (int s = 0; s < F->noptions; s++) {
        sb_printf(o, "\n  start option: %d among ", F->options[s].count);
        put_area_set(def, F->options[s].areas, false, o);
      }
      sb_puts(o, "\n  leaders:");
      for (int l = 0; l < F->nleaders; l++) {
        const board_leader *L = &def->leaders[F->first_leader + l];
        sb_printf(o, " %s(%d)", L->id, L->strength);
      }
      sb_putc(o, '\n');
    }
  }
  if (json) sb_puts(o, "]\n");
}

static bool has_pack(const char *root) {
  char p[4096];
  struct stat st;
  snprintf(p, sizeof p, "%s/rules/board.yaml", root);
  return stat(p, &st) == 0;
}

/* `dump board --svg FILE`: the start position of a game of every faction in
 * the data (each where its sheet places it), drawn by board_draw_svg. */
static int dump_board_svg(const board_def *def, const char *path) {
  int factions[BOARD_MAX_FACTIONS], nf = 0;
  for (int f = 0; f < def->nfactions && nf < BOARD_MAX_FACTIONS; f++) factions[nf++] = f;
  strbuf err = {0}, o = {0};
  board_layout *L = board_layout_new(def, factions, nf, NULL, 0, 0, &err);
  if (!L) {
    fprintf(stderr, "mentat: error: %s\n", err.s ? err.s : "cannot lay out the position");
    sb_free(&err);
    return 65;
  }
  unsigned char *st = mt_calloc(1, L->size);
  board_state_init(L, st, 1);
  board_draw_svg(L, st, -1, "start position", &o);
  strbuf why = {0};
  int rc = mt_write_file(path, o.s, o.n, &why) ? 0 : 74;
  if (rc) fprintf(stderr, "mentat: error: %s\n", why.s);
  sb_free(&why);
  mt_free(st);
  board_layout_free(L);
  sb_free(&err);
  sb_free(&o);
  return rc;
}

/* argv[0] is "dump".  Exit codes: 0 ok, 64 usage, 65 data error, 74 I/O. */
int dump_main(int argc, char **argv) {
  const char *what = NULL, *rules = NULL, *svg = NULL;
  const char *packs[32];
  int npacks = 0;
  bool json = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--json")) json = true;
    else if (!strcmp(argv[i], "--svg") && i + 1 < argc) svg = argv[++i];
    else if (!strcmp(argv[i], "--pack") && i + 1 < argc && npacks < 32) {
      strbuf why = {0};
      int bad = pack_dir_ok(argv[++i], &why);
      if (bad) fprintf(stderr, "mentat: error: %s\n", why.s);
      sb_free(&why);
      if (bad) return 74;
      packs[npacks++] = argv[i];
    }
    else if ((!strcmp(argv[i], "--rules") || !strcmp(argv[i], "--components")) && i + 1 < argc) rules = argv[++i];
    else if (!strncmp(argv[i], "--rules=", 8)) rules = argv[i] + 8;
    else if (!what && (!strcmp(argv[i], "board") || !strcmp(argv[i], "decks") || !strcmp(argv[i], "factions")))
      what = argv[i];
    else {
      fprintf(stderr, "usage: mentat dump board|decks|factions [--json] [--components DIR] [--pack DIR]...\n"
                      "       mentat dump board --svg FILE [--components DIR] [--pack DIR]...\n");
      return 64;
    }
  }
  if (!what || (svg && strcmp(what, "board"))) {
    fprintf(stderr, "usage: mentat dump board|decks|factions [--json] [--components DIR] [--pack DIR]...\n"
                      "       mentat dump board --svg FILE [--components DIR] [--pack DIR]...\n");
    return 64;
  }
  char buf[4096];
  if (!rules) {
    strbuf why = {0};
    rules = pack_find(NULL, buf, sizeof buf, &why);
    if (!rules) fprintf(stderr, "mentat: error: %s", why.s);
    sb_free(&why);
    if (!rules) return 74;
  }
  if (!has_pack(rules)) {
    fprintf(stderr, "mentat: error: cannot find the component files (rules/board.yaml); use --rules DIR\n");
    return 74;
  }
  diag *d = diag_new(diag_sink_file, stderr);
  pack_files pf;
  board_def *def = pack_layer(rules, packs, npacks, &pf, d) == 0 ? data_load_pack(&pf, d) : NULL;
  pack_files_fini(&pf);
  diag_free(d);
  if (!def) return 65;
  if (svg) {
    int rc = dump_board_svg(def, svg);
    board_def_free(def);
    return rc;
  }
  strbuf o = {0};
  if (!strcmp(what, "board")) dump_board(def, json, &o);
  else if (!strcmp(what, "decks")) dump_decks(def, json, &o);
  else dump_factions(def, json, &o);
  int rc = fwrite(o.s, 1, o.n, stdout) == o.n && fflush(stdout) == 0 ? 0 : 74;
  sb_free(&o);
  board_def_free(def);
  return rc;
}
