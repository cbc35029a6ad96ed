/* game_words.c -- an action in players' words: the words of a choice or a question bound to an
 * action's parameters (by name, in order, or by type where they fit best), the verbs the rules
 * declare, and the names players write (multi-word names, small words, partial names). */
#define _POSIX_C_SOURCE 200809L
#include "game.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "check.h"
#include "data.h"

enum { WH_NONE, WH_FROM, WH_TO, WH_SECTOR }; /* what a small word says of the word after it */

/* Parses one word as a value of type TY. */
static bool parse_value(const mt_game *g, int ty, const char *w, int64_t *out) {
  const board_def *def = g->r->def;
  char *end;
  errno = 0;
  long long v = strtoll(w, &end, 10);
  if (*w && !*end) {
    *out = v;
    return errno != ERANGE && (ty == TY_INT || ty == TY_SECTOR || ty == TY_BOOL); /* never saturated */
  }
  if (!strcmp(w, "none")) return *out = -1, true;
  int k = -1;
  if (ty >= TY_ENUM0 && ty - TY_ENUM0 < g->r->prog.nenums) {
    const enum_rec *e = &g->r->prog.enums[ty - TY_ENUM0];
    for (int i = 0; i < e->nvalues; i++)
      if (!strcmp(e->values[i], w)) return *out = i, true;
    return false;
  }
  char low[128]; /* ids are written in lower case: Carthag is carthag */
  w = board_lower(w, low, sizeof low);
  switch (ty) {
  case TY_BOOL: return (!strcmp(w, "true") || !strcmp(w, "yes")) ? (*out = 1, true) : (!strcmp(w, "false") || !strcmp(w, "no")) ? (*out = 0, true) : false;
  case TY_FACTION: k = board_faction_find(def, w); break;
  case TY_TERRITORY: k = board_area_index(def, w); break;
  case TY_CARD: k = board_card_index(def, w); break;
  case TY_LEADER: k = board_leader_index(def, w); break;
  case TY_KIND: k = board_kind_index(def, w); break;
  case TY_POOL: k = board_pool_index(def, w); break;
  case TY_TAG: k = board_tag_index(def, w); break;
  case TY_RULE: k = sema_find_rule(&g->r->prog, w); break;
  default: break;
  }
  *out = k;
  return k >= 0;
}

/* ---- an action in players' words ----------------------------------------------------------
 * A choice names an action, or a kind of action its rules declare (`is ship`: the verb players
 * use), followed by its arguments: in order, by type in any order, or by name (`to=carthag`).
 * An argument left out is filled when it cannot be anything else: a faction parameter after
 * the first is the acting faction (the payer), and a parameter whose domain has one member
 * (the one landing sector of a territory) is that member.  Among the actions a verb names, the
 * faction's own is taken: one offered to it by the pending decision, else one it may legally
 * take, else the one named exactly. */

static void signature(const action_rec *a, char *buf, size_t cap) {
  size_t k = (size_t)snprintf(buf, cap, "%s", a->name);
  for (int i = 0; i < a->nparams && k < cap; i++) {
    char tn[32];
    k += (size_t)snprintf(buf + k, cap - k, " %s:%s", a->pname[i], sema_type_name(a->ptype[i], tn, sizeof tn));
  }
}

static bool is_number(const char *w) {
  if (*w == '-') w++;
  if (!*w) return false;
  for (; *w; w++)
    if (*w < '0' || *w > '9') return false;
  return true;
}

/* The id nearest to W among the values of A's open parameters (a misspelt territory, faction,
 * card or leader), or NULL. */
static const char *near_id(const mt_game *g, const action_rec *ar, const bool *filled, const char *w) {
  const board_def *def = g->r->def;
  const char **c = mt_calloc((size_t)(def->nfactions + def->nareas + def->ncards + def->nleaders) + 1, sizeof *c);
  size_t n = 0;
  for (int i = 0; i < ar->nparams; i++) {
    if (filled[i]) continue;
    switch (ar->ptype[i]) {
    case TY_FACTION: for (int k = 0; k < def->nfactions; k++) c[n++] = def->factions[k].id; break;
    case TY_TERRITORY: for (int k = 0; k < def->nareas; k++) c[n++] = def->areas[k].id; break;
    case TY_CARD: for (int k = 0; k < def->ncards; k++) c[n++] = def->cards[k].id; break;
    case TY_LEADER: for (int k = 0; k < def->nleaders; k++) c[n++] = def->leaders[k].id; break;
    default: break;
    }
  }
  const char *s = n ? diag_suggest(w, c, n) : NULL;
  mt_free(c);
  return s;
}

/* An example of action A for a message: its first completion within the domains (guards not
 * judged), taken by the faction W0 names, else the deciding one, else the first in the game. */
static void example_of(const mt_game *g, int a, const char *w0, char *out, size_t cap) {
  out[0] = 0;
  if (a < 0) return;
  mt_choice part = {0};
  part.action = a;
  part.nargs = g->r->prog.actions[a].nparams;
  int64_t f = -1;
  if (!(w0 && parse_value(g, TY_FACTION, w0, &f) && f >= 0))
    f = g->v.vs->status == VM_WAITING ? g->v.vs->dec.faction : g->L->faction[0];
  part.args[0] = f;
  for (int i = 1; i < part.nargs; i++) part.open |= 1u << i;
  mt_choice one;
  if (game_completions((mt_game *)(uintptr_t)g, &part, &one, 1) == 1) mt_choice_format((mt_game *)(uintptr_t)g, &one, out, cap);
}

/* A name as a key: lower case, apostrophes dropped, every other run of non-letters one `_`
 * ("Tuek's Sietch" and tueks_sietch are both tueks_sietch). */
static void name_key(const char *s, char *out, size_t cap) {
  size_t k = 0;
  bool sep = false;
  for (size_t i = 0; s[i] && k + 2 < cap; i++) {
    unsigned char ch = (unsigned char)s[i];
    if (ch == '\'') continue;
    if (ch == 0xE2 && (unsigned char)s[i + 1] == 0x80 && (unsigned char)s[i + 2] == 0x99) { /* a typographic apostrophe */
      i += 2;
      continue;
    }
    if (isalnum(ch)) {
      if (sep && k) out[k++] = '_';
      sep = false;
      out[k++] = (char)tolower(ch);
    } else {
      sep = true;
    }
  }
  out[k] = 0;
}

static bool key_is(const char *name, const char *key) {
  if (!name) return false;
  char k[128];
  name_key(name, k, sizeof k);
  return !strcmp(k, key);
}

/* The id of what KEY names in the rule set's name tables (the components' ids and printed
 * names, faction aliases, token kinds, actions, their kinds and the verbs), or NULL. */
static const char *named(const mt_game *g, const char *key, bool actions) {
  const board_def *def = g->r->def;
  const program *p = &g->r->prog;
  if (!*key) return NULL;
  for (int i = 0; i < def->nfactions; i++) {
    if (key_is(def->factions[i].id, key) || key_is(def->factions[i].name, key)) return def->factions[i].id;
    for (int k = 0; k < def->factions[i].naliases; k++)
      if (key_is(def->factions[i].aliases[k], key)) return def->factions[i].id;
  }
  for (int i = 0; i < def->nareas; i++)
    if (key_is(def->areas[i].id, key) || key_is(def->areas[i].name, key)) return def->areas[i].id;
  for (int i = 0; i < def->nleaders; i++)
    if (key_is(def->leaders[i].id, key) || key_is(def->leaders[i].name, key)) return def->leaders[i].id;
  for (int i = 0; i < def->ncards; i++)
    if (key_is(def->cards[i].id, key) || key_is(def->cards[i].name, key)) return def->cards[i].id;
  for (int i = 0; i < def->nkinds; i++)
    if (key_is(def->kinds[i], key)) return def->kinds[i];
  for (int i = 0; i < p->nactions && actions; i++) {
    if (key_is(p->actions[i].name, key)) return p->actions[i].name;
    for (int k = 0; k < p->actions[i].nkinds; k++)
      if (key_is(p->actions[i].kinds[k], key)) return p->actions[i].kinds[k];
  }
  for (int i = 0; i < p->nverbs && actions; i++)
    if (key_is(p->verbs[i].name, key)) return p->verbs[i].name;
  return NULL;
}

/* The console's grammar words (English, never a name of the game): the small words players put
 * between the arguments, some of which say where the next one goes. */
static int small_word(const char *w) {
  static const char *const to[] = {"to", "into", "onto", "in", "at", "toward", "towards"};
  static const char *const other[] = {"the", "a", "an", "with", "for", "of", "on", "by", "and", "then", "some", "all", "their", "its", "his",
                                      "her", "back", "up", "again", "while", "whilst", "during", "under", "through", "across", "past",
                                      "inside", "when", "without", "itself", "themselves", "himself", "herself", "more", "extra",
                                      "additional", "only", "just"};
  if (!strcmp(w, "from") || !strcmp(w, "out")) return WH_FROM;
  if (!strcmp(w, "sector")) return WH_SECTOR;
  for (size_t i = 0; i < sizeof to / sizeof *to; i++)
    if (!strcmp(w, to[i])) return WH_TO;
  for (size_t i = 0; i < sizeof other / sizeof *other; i++)
    if (!strcmp(w, other[i])) return WH_NONE;
  return -1;
}

/* After a number, the word saying what is counted: an English unit, or a pool or a variable of
 * the components (`3 spice`): not an argument. */
static bool unit_word(const mt_game *g, const char *w) {
  static const char *const units[] = {"force", "forces", "troop", "troops", "token", "tokens", "unit", "units"};
  for (size_t i = 0; i < sizeof units / sizeof *units; i++)
    if (!strcmp(w, units[i])) return true;
  char low[64];
  board_lower(w, low, sizeof low);
  if (board_pool_index(g->r->def, low) >= 0 || board_var_index(g->r->def, low) >= 0) return true;
  size_t n = strlen(low);
  if (board_kind_index(g->r->def, low) < 0 && !(n > 1 && low[n - 1] == 's' && (low[n - 1] = 0, board_kind_index(g->r->def, low) >= 0)))
    return false; /* a kind of token, or its plural (`advisors`) */
  const program *p = &g->r->prog; /* a kind of token (`5 fedaykin`) counts, unless some action takes a kind */
  for (int a = 0; a < p->nactions; a++)
    for (int i = 0; i < p->actions[a].nparams; i++)
      if (p->actions[a].ptype[i] == TY_KIND) return false;
  return true;
}

/* Whether W names a pool of tokens (`reserves`, `tanks`) while no action takes a pool: the words
 * only describe the action (`send 2 back to their reserves`). */
static bool pool_word(const mt_game *g, const char *w) {
  if (board_pool_index(g->r->def, w) < 0) return false;
  const program *p = &g->r->prog;
  for (int a = 0; a < p->nactions; a++)
    for (int i = 0; i < p->actions[a].nparams; i++)
      if (p->actions[a].ptype[i] == TY_POOL) return false;
  return true;
}

/* A word naming a variable of the position rather than a value (`the storm`, `under the storm`,
 * `how much spice`): a global variable holding a sector stands for the sector it holds now (OUT,
 * with the hint WH_SECTOR: `ship into the storm at the great flat` asks about the place's sector
 * under the storm, where the place already is); any other variable only describes the question
 * and is dropped (OUT empty).  False when W names no variable. */
static bool position_word(const mt_game *g, const char *w, char *out, size_t cap, uint8_t *hint) {
  const board_layout *L = g->L;
  for (int v = 0; v < L->nvars; v++) {
    if (strcmp(L->vars[v].name, w)) continue;
    *hint = WH_NONE;
    out[0] = 0;
    if (L->vars[v].scope == BS_GLOBAL && L->vars[v].type == BT_SECTOR && L->vars[v].len <= 1) {
      int32_t s = board_var_get(L, g->v.st, v, 0, 0);
      if (s >= 0) snprintf(out, cap, "%d", (int)s), *hint = WH_SECTOR; /* no storm on the board: nothing to say */
    }
    return true;
  }
  return false;
}

static bool action_word(const program *p, const char *w, bool begins);
static bool word_of_name(const char *name, const char *w);

/* The action, kind or verb a noun or gerund of it names, as players say it (`shipping`,
 * `shipment`, `moving`, `movement`, `revival`, `bidding`): English suffixes taken off (a doubled
 * last consonant undone, an `e` put back), into OUT; false when no stem names one. */
static bool stem_of(const program *p, const char *w, char *out, size_t cap) {
  static const char *const suffix[] = {"ing", "ment", "al"};
  size_t n = strlen(w);
  if (action_word(p, w, false)) return false;
  for (size_t k = 0; k < sizeof suffix / sizeof *suffix; k++) {
    size_t sl = strlen(suffix[k]);
    if (n <= sl + 1 || strcmp(w + n - sl, suffix[k]) || n - sl + 2 > cap) continue;
    size_t m = n - sl;
    snprintf(out, cap, "%.*s", (int)m, w);
    if (action_word(p, out, false)) return true;
    snprintf(out, cap, "%.*se", (int)m, w); /* reviving, revival: revive */
    if (action_word(p, out, false)) return true;
    if (m > 2 && w[m - 1] == w[m - 2]) { /* shipping, bidding: ship, bid */
      snprintf(out, cap, "%.*s", (int)(m - 1), w);
      if (action_word(p, out, false)) return true;
    }
  }
  return false;
}

/* Reads TEXT as players write it into W (into BUF): a name of several words is one word (its id:
 * `funeral plain`, `Tuek's Sietch`, `the great flat`), capitals and possessives are dropped
 * (`Harkonnen's`), and the small words go, each leaving a hint for the word after it in HINT
 * (`from`, `to`, `sector`).  Words of the form NAME=VALUE and numbers are kept as they are.
 * JOIN 2: names of several words are joined, actions' names too (`no leader`); 1: the names of
 * the components only (`fremen send` stays two words); 0: none (each word read alone). */
static int read_words(const mt_game *g, const char *text, int join, char *buf, size_t cap, char **w, uint8_t *hint, int max) {
  char raw[1024];
  snprintf(raw, sizeof raw, "%s", text);
  char *tok[96];
  int nt = 0;
  for (char *t = strtok(raw, " \t\r\n"); t && nt < 96; t = strtok(NULL, " \t\r\n")) {
    while (*t == '"' || *t == '(' || *t == '`') t++;
    size_t len = strlen(t);
    while (len && strchr("?!,;:.\")`", t[len - 1])) t[--len] = 0;
    if (len) tok[nt++] = t;
  }
  size_t used = 0;
  int n = 0, pending = WH_NONE;
  bool from_position[96] = {false}; /* words standing for a variable's value (`the storm`: its sector) */
  for (int i = 0; i < nt && n < max;) {
    char key[256];
    const char *id = NULL;
    int take = 1;
    bool plain = strchr(tok[i], '=') || is_number(tok[i]) || strchr(tok[i], '.');
    int most = plain ? 0 : !join ? 1 : nt - i < 6 ? nt - i : 6;
    for (int len = most; len >= 1 && !id; len--) {
      size_t k = 0;
      bool ok = true;
      for (int j = 0; j < len && ok; j++) {
        ok = !strchr(tok[i + j], '=') && !is_number(tok[i + j]);
        char part[128];
        name_key(tok[i + j], part, sizeof part);
        k += (size_t)snprintf(key + k, sizeof key - k, "%s%s", j ? "_" : "", part);
        ok &= k < sizeof key;
      }
      if (ok && (id = named(g, key, len == 1 || join == 2)) != NULL) take = len;
    }
    char word[256];
    if (!id && !plain) { /* a possessive: Harkonnen's */
      size_t len = strlen(tok[i]);
      const char *cut = len > 2 && !strcmp(tok[i] + len - 2, "'s") ? tok[i] + len - 2
                        : len > 4 && !strcmp(tok[i] + len - 4, "\xE2\x80\x99s") ? tok[i] + len - 4 : NULL;
      if (cut) {
        snprintf(word, sizeof word, "%.*s", (int)(cut - tok[i]), tok[i]);
        name_key(word, key, sizeof key);
        id = named(g, key, true);
      }
    }
    if (id) snprintf(word, sizeof word, "%s", id);
    else if (plain) snprintf(word, sizeof word, "%s", tok[i]);
    else {
      name_key(tok[i], word, sizeof word);
      int sw = small_word(word);
      if (sw < 0 && pool_word(g, word)) sw = WH_NONE; /* `back to their reserves`: where, said by the action itself */
      if (sw >= 0) { /* a small word is never a name: those matched above */
        if (sw != WH_NONE) pending = sw;
        i++;
        continue;
      }
      char stem[64];
      uint8_t ph;
      bool in_name = false; /* `pay for the revival`: a word of one action's name with another word said (pay_ally_revival) */
      for (int m = 0; m < nt && !in_name; m++) {
        char other[128];
        name_key(tok[m], other, sizeof other);
        in_name = m != i && game_words_of_one_action(g->r, word, other);
      }
      if (!in_name && stem_of(&g->r->prog, word, stem, sizeof stem)) snprintf(word, sizeof word, "%s", stem);
      else if (position_word(g, word, stem, sizeof stem, &ph)) {
        i++;
        if (!stem[0]) continue; /* a description of the position: dropped, with the small word before it */
        snprintf(word, sizeof word, "%s", stem);
        pending = ph;
        take = 0;
        if (n < 96) from_position[n] = true;
      }
    }
    size_t len = strlen(word);
    if (used + len + 1 > cap) break;
    memcpy(buf + used, word, len + 1);
    w[n] = buf + used;
    hint[n++] = (uint8_t)pending;
    used += len + 1;
    pending = WH_NONE;
    i += take;
    if (is_number(word) && i < nt && unit_word(g, tok[i])) i++; /* 5 forces, 3 spice */
  }
  /* a sector the position names (`during the storm`) that no territory named spans: the storm is
   * elsewhere, and the question is about the place as it stands (its own sectors) */
  const board_def *def = g->r->def;
  for (int j = 0; j < n && j < 96; j++) {
    if (!from_position[j]) continue;
    long sec = strtol(w[j], NULL, 10);
    bool places = false, spans = false;
    for (int k = 0; k < n; k++) {
      int a = board_area_index(def, w[k]);
      if (a < 0) continue;
      places = true;
      spans |= sec >= 0 && sec < 32 && (def->areas[a].sectors >> sec & 1u);
    }
    if (!places || spans) continue;
    memmove(w + j, w + j + 1, sizeof *w * (size_t)(n - j - 1));
    memmove(hint + j, hint + j + 1, (size_t)(n - j - 1));
    memmove(from_position + j, from_position + j + 1, sizeof *from_position * (size_t)(95 - j));
    n--, j--;
  }
  return n;
}

/* The ids of values of type TY that W is part of (a whole word of the id or of the printed name:
 * `sietch` is part of sietch_tabr), up to CAP into OUT; how many. */
static int partial_ids(const mt_game *g, int ty, const char *w, const char **out, int cap) {
  const board_def *def = g->r->def;
  int n = 0, count = ty == TY_FACTION ? def->nfactions : ty == TY_TERRITORY ? def->nareas : ty == TY_LEADER ? def->nleaders
                                                         : ty == TY_CARD      ? def->ncards
                                                                              : 0;
  size_t wl = strlen(w);
  for (int k = 0; k < count; k++) {
    const char *id = ty == TY_FACTION ? def->factions[k].id : ty == TY_TERRITORY ? def->areas[k].id : ty == TY_LEADER ? def->leaders[k].id : def->cards[k].id;
    const char *name = ty == TY_FACTION ? def->factions[k].name : ty == TY_TERRITORY ? def->areas[k].name : ty == TY_LEADER ? def->leaders[k].name : def->cards[k].name;
    bool hit = false;
    for (int pass = 0; pass < 2 && !hit; pass++) {
      char key[128];
      name_key(pass ? (name ? name : "") : id, key, sizeof key);
      for (const char *s = key; *s && !hit; s = strchr(s, '_') ? strchr(s, '_') + 1 : s + strlen(s))
        hit = !strncmp(s, w, wl) && (s[wl] == '_' || !s[wl]);
    }
    bool dup = false;
    for (int m = 0; m < n; m++) dup |= !strcmp(out[m], id);
    if (hit && !dup && n < cap) out[n++] = id;
  }
  return n;
}

/* How words are bound to an action's parameters (bind_words): every assignment of the words to
 * parameters whose types read them is tried, and the best kept. */
typedef struct binder {
  const mt_game *g;
  int a;
  const action_rec *ar;
  char **w;
  const uint8_t *hint;
  int nw;
  bool allow_open;
  bool used[MT_MAX_ARGS + 2];   /* words bound by name */
  bool named_filled[MAX_PARAMS]; /* parameters bound by name */
  int assign[MT_MAX_ARGS + 2];  /* the parameter each positional word goes to */
  mt_choice cur, best;
  int best_score, leaves;
  bool have;
  char err[512];
} binder;

/* The assignment in B->assign finished (what was left out filled or left open) and scored:
 * a hint not followed (`from`, `to`, `sector`) costs most, then a value outside its domain, then
 * words of one type taken against the order they were written in (`give atreides emperor` is
 * never read the other way round); a legal choice earns a point.  The first of equal scores is
 * kept (the declared order). */
static void bind_leaf(binder *B) {
  const action_rec *ar = B->ar;
  mt_choice c = B->cur;
  bool filled[MAX_PARAMS];
  memcpy(filled, B->named_filled, sizeof filled);
  for (int j = 0; j < B->nw; j++)
    if (!B->used[j]) filled[B->assign[j]] = true;
  mt_game *g = (mt_game *)(uintptr_t)B->g;
  char sig[192];
  for (int i = 0; i < ar->nparams; i++) {
    if (filled[i]) continue;
    bool before = true; /* its domain may read only the parameters before it */
    for (int k = 0; k < i; k++) before &= filled[k];
    if (i > 0 && ar->ptype[i] == TY_FACTION && filled[0]) {
      c.args[i] = c.args[0], filled[i] = true;
    } else if (B->a >= 0 && i > 0 && before && game_param_only(g, B->a, i, c.args, &c.args[i])) {
      filled[i] = true;
    } else if (B->allow_open && i > 0) { /* left out: any (a question about every completion) */
      c.open |= 1u << i;
      c.args[i] = 0;
    } else {
      signature(ar, sig, sizeof sig);
      if (!B->err[0]) snprintf(B->err, sizeof B->err, "%s needs %s (%.180s)", ar->name, ar->pname[i], sig);
      return;
    }
  }
  B->leaves++;
  int pen = 0;
  for (int j = 0; j < B->nw; j++) {
    if (B->used[j] || !B->hint || !B->hint[j]) continue;
    int i = B->assign[j], rank = 0, same = 0;
    for (int k = 1; k < ar->nparams; k++)
      if (ar->ptype[k] == ar->ptype[i]) same++, rank += k < i;
    if (B->hint[j] == WH_SECTOR && ar->ptype[i] != TY_SECTOR) pen += 100;
    if (B->hint[j] == WH_FROM && same > 1 && rank != 0) pen += 100;
    if (B->hint[j] == WH_TO && same > 1 && rank == 0) pen += 100;
    /* alone of its type, a parameter still says by its (English) name which way it goes: `from
     * Tuek's Sietch` is no destination `to`, `to Carthag` no `origin` */
    if (B->hint[j] == WH_FROM && same == 1 && ar->pname[i] && !strcmp(ar->pname[i], "to")) pen += 100;
    if (B->hint[j] == WH_TO && same == 1 && ar->pname[i] && (!strcmp(ar->pname[i], "origin") || !strcmp(ar->pname[i], "from")))
      pen += 100;
  }
  int inversions = 0; /* words of one type bound against the order they were written in */
  for (int j = 0; j < B->nw; j++)
    for (int k = j + 1; k < B->nw; k++)
      if (!B->used[j] && !B->used[k] && ar->ptype[B->assign[j]] == ar->ptype[B->assign[k]] && B->assign[j] > B->assign[k]) inversions++;
  bool closed = c.open == 0;
  if (B->a >= 0)
    for (int i = 1; i < ar->nparams; i++) {
      bool known = true, in = true;
      for (int k = 0; k <= i; k++) known &= !(c.open >> k & 1u);
      if (known && !ar->plisted[i] && game_in_domain(g, B->a, i, c.args, c.args[i], &in) && !in) pen += 10;
    }
  int score = -4 * pen - 2 * inversions;
  if (B->a >= 0 && closed && pen == 0) {
    int64_t cost;
    char je[64];
    score += game_judge_action(g, &c, &cost, je, sizeof je) == 1;
  }
  if (!B->have || score > B->best_score) B->have = true, B->best_score = score, B->best = c;
}

/* Positional word J and those after it, each to an open parameter of a type that reads it: names
 * in the declared order; numbers counts before sectors when there are fewer numbers than open
 * numeric parameters (a sector can often be told from its territory). */
static void bind_from(binder *B, int j, bool *filled, bool counts_first) {
  if (B->leaves >= 4096) return;
  while (j < B->nw && B->used[j]) j++;
  if (j == B->nw) {
    bind_leaf(B);
    return;
  }
  const action_rec *ar = B->ar;
  bool number = is_number(B->w[j]);
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < ar->nparams; i++) {
      if (filled[i]) continue;
      bool num = ar->ptype[i] == TY_INT || ar->ptype[i] == TY_SECTOR;
      bool ordered = number && num && counts_first; /* pass 0 the counts, pass 1 the sectors */
      if (ordered ? (pass == 0) != (ar->ptype[i] == TY_INT) : pass == 1) continue;
      if (!parse_value(B->g, ar->ptype[i], B->w[j], &B->cur.args[i])) continue;
      filled[i] = true;
      B->assign[j] = i;
      bind_from(B, j + 1, filled, counts_first);
      filled[i] = false;
    }
}

/* Binds words W[0..NW) (hints HINT, may be NULL) to the parameters of action A (AS: a verb's,
 * as a record without domains: A < 0): by name (`to=carthag`), in order, or by type where they
 * fit best.  False with the reason in ERR; *SCORE how well they fit (0 best). */
static bool bind_words(const mt_game *g, int a, const action_rec *as, char **w, const uint8_t *hint, int nw, mt_choice *c,
                       bool allow_open, char *err, size_t errlen, int *score) {
  const action_rec *ar = as ? as : &g->r->prog.actions[a];
  binder *B = mt_calloc(1, sizeof *B);
  B->g = g, B->a = a, B->ar = ar, B->w = w, B->hint = hint, B->nw = nw, B->allow_open = allow_open;
  char sig[192];
  signature(ar, sig, sizeof sig);
  B->cur.action = a;
  B->cur.nargs = ar->nparams;
  bool named = false, ok = true;
  for (int j = 0; j < nw && ok; j++) { /* name=value */
    char *eq = strchr(w[j], '=');
    if (!eq) continue;
    named = B->used[j] = true;
    *eq = 0;
    int i = -1;
    for (int k = 0; k < ar->nparams; k++)
      if (!strcmp(ar->pname[k], w[j])) i = k;
    bool fits = i >= 0 && !B->named_filled[i] && parse_value(g, ar->ptype[i], eq + 1, &B->cur.args[i]);
    *eq = '=';
    if (i < 0) snprintf(err, errlen, "%s has no parameter '%.*s' (%.180s)", ar->name, (int)(eq - w[j]), w[j], sig), ok = false;
    else if (!fits) snprintf(err, errlen, "'%s' is not a valid %s (%.180s)", eq + 1, ar->pname[i], sig), ok = false;
    else B->named_filled[i] = true;
  }
  for (int j = 0; j < nw && ok; j++) { /* `pay for 2 revival`: a word of the action's own name that fits no parameter */
    char one[64]; /* `revivals`: a plural */
    size_t ol = strlen(w[j]);
    snprintf(one, sizeof one, "%.*s", (int)(ol > 3 && w[j][ol - 1] == 's' ? ol - 1 : ol), w[j]);
    if (B->used[j] || is_number(w[j]) || !(word_of_name(ar->name, w[j]) || word_of_name(ar->name, one))) continue;
    bool fits = false;
    int64_t v;
    for (int i = 0; i < ar->nparams && !fits; i++) fits = !B->named_filled[i] && parse_value(g, ar->ptype[i], w[j], &v);
    if (!fits) B->used[j] = true;
  }
  int npos = 0, nnum = 0, nopen = 0;
  for (int j = 0; j < nw; j++) npos += !B->used[j], nnum += !B->used[j] && is_number(w[j]);
  if (ok && npos > ar->nparams) {
    char ex[200];
    example_of(g, a, nw ? w[0] : NULL, ex, sizeof ex);
    snprintf(err, errlen, "%s takes %d arguments: %.180s%s%.190s", ar->name, ar->nparams, sig, ex[0] ? ", e.g. " : "", ex);
    ok = false;
  }
  /* a word that fits no open parameter: part of a name (`sietch`: which one?), or misspelt */
  for (int j = 0; j < nw && ok; j++) {
    if (B->used[j] || is_number(w[j])) continue;
    bool fits = false, kinds = false;
    int64_t v;
    for (int i = 0; i < ar->nparams && !fits; i++) fits = !B->named_filled[i] && parse_value(g, ar->ptype[i], w[j], &v);
    for (int i = 0; i < ar->nparams; i++) kinds |= ar->ptype[i] == TY_KIND;
    if (!fits && word_of_name(ar->name, w[j])) { /* `ride the worm`: a word of the action's own name */
      B->used[j] = true;
      continue;
    }
    char single[64]; /* `advisors`: the plural of a kind */
    size_t wl = strlen(w[j]);
    snprintf(single, sizeof single, "%.*s", (int)(wl > 1 && w[j][wl - 1] == 's' ? wl - 1 : wl), w[j]);
    if (!fits && !kinds && (parse_value(g, TY_KIND, w[j], &v) || parse_value(g, TY_KIND, single, &v))) { /* `5 sardaukar` where the kinds are asked later: the count */
      B->used[j] = true;
      continue;
    }
    if (fits) continue;
    const char *ids[16];
    int n = 0;
    for (int i = 0; i < ar->nparams; i++) {
      bool dup = false;
      for (int k = 0; k < i; k++) dup |= ar->ptype[k] == ar->ptype[i] && !B->named_filled[k];
      if (!B->named_filled[i] && !dup) n += partial_ids(g, ar->ptype[i], w[j], ids + n, 16 - n);
    }
    if (n == 1) {
      w[j] = (char *)(uintptr_t)ids[0]; /* the only name it is part of */
      continue;
    }
    if (n > 1) {
      strbuf b = {0};
      for (int k = 0; k < n; k++) sb_printf(&b, "%s%s", k ? (k == n - 1 ? " or " : ", ") : "", ids[k]);
      snprintf(err, errlen, "'%s' could be %s: which one?", w[j], b.s);
      sb_free(&b);
    } else {
      const char *sg = near_id(g, ar, B->named_filled, w[j]);
      snprintf(err, errlen, "'%s' fits no open parameter of %s%s%s%s (%.180s)", w[j], ar->name, sg ? " (did you mean '" : "",
               sg ? sg : "", sg ? "'?)" : "", sig);
    }
    ok = false;
  }
  if (ok) {
    for (int i = 0; i < ar->nparams; i++)
      if (!B->named_filled[i] && (ar->ptype[i] == TY_INT || ar->ptype[i] == TY_SECTOR)) nopen++;
    bool hinted = false;
    for (int j = 0; j < nw && hint; j++) hinted |= hint[j] != 0;
    if (!named && npos == ar->nparams && !hinted) { /* in order, as `legal` lists them: tried first */
      bool inorder = true;
      for (int i = 0; i < ar->nparams && inorder; i++) inorder = parse_value(g, ar->ptype[i], w[i], &B->cur.args[i]), B->assign[i] = i;
      if (inorder) bind_leaf(B);
    }
    bool filled[MAX_PARAMS];
    memcpy(filled, B->named_filled, sizeof filled);
    bind_from(B, 0, filled, nnum < nopen);
    if (!B->have) {
      if (B->err[0]) snprintf(err, errlen, "%s", B->err);
      else {
        int last = -1;
        for (int j = 0; j < nw; j++)
          if (!B->used[j]) last = j;
        snprintf(err, errlen, "'%s' fits no open parameter of %s (%.180s)", last >= 0 ? w[last] : "?", ar->name, sig);
      }
      ok = false;
    }
  }
  if (ok) {
    *c = B->best;
    if (score) *score = B->best_score;
  }
  mt_free(B);
  return ok;
}

/* Words players type name actions, kinds and verbs in any case (`why Ship ...`). */
static bool same_word(const char *a, const char *b) {
  for (; *a && *b; a++, b++)
    if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return false;
  return *a == *b;
}

static bool action_of_kind(const action_rec *a, const char *k) {
  for (int i = 0; i < a->nkinds; i++)
    if (same_word(a->kinds[i], k)) return true;
  return false;
}

static bool reads_name(const node *n, const char *name) {
  if (!n) return false;
  if (n->kind == AST_NAME && n->name && !strcmp(n->name, name)) return true;
  for (uint32_t i = 0; i < n->nkids; i++)
    if (reads_name(n->kids[i], name)) return true;
  return false;
}

/* Whether the refusals G holds for action A (after a judgement) refuse it whatever its arguments
 * but the faction: a rule not in force, or a guard that reads no other parameter nor the cost
 * (the Fremen's 2.04.03: no normal shipment at all). */
static bool refused_outright(const mt_game *g, int a) {
  const action_rec *ar = &g->r->prog.actions[a];
  for (int q = 0; q < g->v.nrefused; q++) {
    int gi = g->v.refused[q];
    if (gi < 0) return true;
    bool reads = reads_name(ar->guards[gi].cond, "cost");
    for (int i = 1; i < ar->nparams && !reads; i++) reads = reads_name(ar->guards[gi].cond, ar->pname[i]);
    if (!reads) return true;
  }
  return false;
}

/* How choice C stands for its faction now: 2 legal (some completion of it, when parameters are
 * left open), 1 refused for these arguments, 0 refused outright (refused_outright) or, left open,
 * with nothing to complete it with (the Guild's cross-ship for a faction with no forces out). */
static int standing(const mt_game *g, const mt_choice *c) {
  mt_game *gg = (mt_game *)(uintptr_t)g;
  int64_t cost;
  char je[128];
  if (!c->open) {
    int j = game_judge_action(gg, c, &cost, je, sizeof je);
    return j == 1 ? 2 : j == 0 && refused_outright(g, c->action) ? 0 : 1;
  }
  static mt_choice all[4096];
  size_t n = game_completions(gg, c, all, 4096);
  int first = -1;
  for (size_t k = 0; k < n; k++) {
    int j = game_judge_action(gg, &all[k], &cost, je, sizeof je);
    if (j == 1) return 2;
    if (first < 0 && j == 0) first = refused_outright(g, c->action) ? 0 : 1;
  }
  return n == 0 ? 0 : first < 0 ? 1 : first; /* nothing to complete it with: no use to the faction now */
}

/* A verb of the rules (`verb revive(f, n) = revive_by_spice(f, n - revived_forces(f))`): its words
 * bound to its parameters, the action's arguments computed from them.  1 done, 0 not a verb,
 * -1 an error (in ERR). */
static int parse_verb(const mt_game *g, char **words, const uint8_t *hint, int nw, mt_choice *c, char *err, size_t errlen) {
  mt_rules *r = (mt_rules *)(uintptr_t)g->r;
  program *p = &r->prog;
  const verb_rec *vb = NULL;
  for (int i = 0; i < p->nverbs && !vb; i++)
    if (!p->verbs[i].alias && same_word(p->verbs[i].name, words[0])) vb = &p->verbs[i];
  if (!vb) return 0;
  action_rec as = {0}; /* the verb's parameters, as an action without domains */
  as.name = vb->name;
  as.nparams = vb->nparams;
  for (int i = 0; i < vb->nparams; i++) as.ptype[i] = vb->ptype[i], as.pname[i] = vb->pname[i];
  mt_choice v;
  if (!bind_words(g, -1, &as, words + 1, hint + 1, nw - 1, &v, false, err, errlen, NULL)) return -1;
  const action_rec *ar = &p->actions[vb->action];
  memset(c, 0, sizeof *c);
  c->action = vb->action;
  c->nargs = ar->nparams;
  c->verb = (int)(vb - p->verbs) + 1;
  const node *call = vb->ast->kids[1];
  int64_t args[MAX_PARAMS + 1] = {0};
  memcpy(args, v.args, sizeof(int64_t) * (size_t)vb->nparams);
  for (int i = 0; i < ar->nparams; i++) { /* each argument compiled, evaluated and forgotten */
    cg_mark mark = cg_get_mark(p);
    int fn = cg_compile_expr(p, r->d, call->kids[i], vb->nlocals);
    p->funcs[fn].nparams = vb->nparams;
    if (p->funcs[fn].nlocals < vb->nlocals) p->funcs[fn].nlocals = vb->nlocals;
    strbuf e = {0};
    bool ok = vm_eval((vm *)(uintptr_t)&g->v, fn, args, vb->nparams, &c->args[i], &e);
    cg_rollback(p, &mark);
    if (!ok) {
      snprintf(err, errlen, "verb %s (rule %s): its argument %s could not be evaluated: %s", vb->name, p->rules[vb->rule].id,
               ar->pname[i], e.s ? e.s : "?");
      sb_free(&e);
      return -1;
    }
    sb_free(&e);
  }
  return 1;
}

/* Whether W is one word of action name NAME, which has several (`give` of give_spice, `send` of
 * fremen_send). */
static bool first_word_of(const char *name, const char *w) {
  size_t n = strlen(w);
  if (!n || !strchr(name, '_')) return false;
  for (const char *s = name; s; s = strchr(s, '_') ? strchr(s, '_') + 1 : NULL) {
    size_t i = 0;
    while (i < n && s[i] && tolower((unsigned char)s[i]) == tolower((unsigned char)w[i])) i++;
    if (i == n && (s[n] == '_' || !s[n])) return true;
  }
  return false;
}

/* Whether W names an action, a kind of action or a verb of the rules, or is the first word of an
 * action's name. */
static bool action_word(const program *p, const char *w, bool begins) {
  for (int i = 0; i < p->nverbs; i++)
    if (same_word(p->verbs[i].name, w)) return true;
  for (int i = 0; i < p->nactions; i++)
    if (same_word(p->actions[i].name, w) || action_of_kind(&p->actions[i], w) || (begins && first_word_of(p->actions[i].name, w)))
      return true;
  return false;
}

/* The actions WORDS[0] names: the action of that name and every action of that kind (`ship`:
 * the normal shipment, the Fremen's send, a Karama's), else those whose name it begins (`give`:
 * give_spice, give_back_card); up to CAP into CAND; how many, *EXACT the one named exactly or -1. */
static int candidates(const program *p, const char *w, int *cand, int cap, int *exact) {
  int nc = 0;
  *exact = -1;
  for (int i = 0; i < p->nactions && nc < cap; i++) {
    bool name = same_word(p->actions[i].name, w);
    if (name) *exact = i;
    if (name || action_of_kind(&p->actions[i], w)) cand[nc++] = i;
  }
  for (int i = 0; i < p->nactions && nc < cap && nc == 0; i++) /* none: the actions whose name has it (`give`, `send`) */
    for (int k = i; k < p->nactions && nc < cap; k++)
      if (first_word_of(p->actions[k].name, w)) cand[nc++] = k;
  return nc;
}

/* The words bound to the action they fit best among those the first names.  A verb of the rules
 * comes first; then, among the actions of a kind, the faction's own: one legal now, else one not
 * refused outright (the one it would really use), then the best fit of the words, one offered by
 * the pending decision, a full binding before one that leaves parameters open, the one named
 * exactly. */
static int parse_action_words(const mt_game *g, char **words, const uint8_t *hint, int nw, mt_choice *c, bool allow_open, char *err,
                              size_t errlen) {
  const program *p = &g->r->prog;
  int verb = parse_verb(g, words, hint, nw, c, err, errlen); /* a verb the rules declare comes first */
  if (verb > 0) return 0;
  const vm_state *vs = g->v.vs;
  int cand[64], exact;
  int nc = candidates(p, words[0], cand, 64, &exact);
  if (verb < 0 && nc == 0) return -1; /* the words fit the verb nor any action of its kind (`revive duncan`: revive_leader) */
  if (nc == 0) {
    const char *names[512];
    size_t nn = 0;
    for (int i = 0; i < p->nactions && nn < 512; i++) {
      names[nn++] = p->actions[i].name;
      for (int k = 0; k < p->actions[i].nkinds && nn < 512; k++) names[nn++] = p->actions[i].kinds[k];
    }
    const char *sg = diag_suggest(words[0], names, nn);
    if (sg) return snprintf(err, errlen, "unknown action '%s' (did you mean '%s'?)", words[0], sg), -1;
    return snprintf(err, errlen, "unknown action '%s'", words[0]), -1;
  }
  int best = -1, best_key[5] = {0};
  mt_choice bound;
  char first_err[512] = "";
  for (int k = 0; k < nc; k++) {
    char e[512];
    int fit = 0;
    if (!bind_words(g, cand[k], NULL, words + 1, hint + 1, nw - 1, &bound, allow_open, e, sizeof e, &fit)) {
      if (!first_err[0] || cand[k] == exact) memcpy(first_err, e, sizeof e);
      continue;
    }
    int offered = 0;
    if (vs->status == VM_WAITING && vs->dec.kind == DEC_ACT && vs->dec.faction == bound.args[0])
      for (int i = 0; i < p->nlist[vs->dec.list]; i++) offered |= p->lists[vs->dec.list][i] == cand[k];
    int key[5] = {nc > 1 ? standing(g, &bound) : 0, fit, offered, !bound.open, cand[k] == exact};
    int cmp = 0;
    for (int i = 0; i < 5 && !cmp && best >= 0; i++) cmp = (key[i] > best_key[i]) - (key[i] < best_key[i]);
    if (best < 0 || cmp > 0) best = k, memcpy(best_key, key, sizeof key), *c = bound;
  }
  if (best < 0 && verb < 0) return -1; /* the verb's own error says most */
  if (best < 0) return snprintf(err, errlen, "%.500s", first_err), -1;
  return 0;
}

/* Brings the action word to the front, as players put the subject first (`fremen ship 5 ...`). */
static void subject_first(const mt_game *g, char **words, uint8_t *hint, int nw) {
  const program *p = &g->r->prog;
  int at = -1; /* a word naming an action, kind or verb; else one beginning an action's name that names nothing else */
  for (int j = 0; j < nw && at < 0; j++)
    if (action_word(p, words[j], false)) at = j;
  static const int named_types[] = {TY_FACTION, TY_TERRITORY, TY_LEADER, TY_CARD};
  for (int j = 0; j < nw && at < 0; j++) {
    bool other = false;
    int64_t v;
    for (size_t t = 0; t < sizeof named_types / sizeof *named_types; t++) other |= parse_value(g, named_types[t], words[j], &v);
    if (!other && action_word(p, words[j], true)) at = j;
  }
  if (at <= 0) return;
  char *w = words[at];
  uint8_t h = hint[at];
  memmove(words + 1, words, sizeof *words * (size_t)at);
  memmove(hint + 1, hint, (size_t)at);
  words[0] = w, hint[0] = h;
}

/* W, or the word it is another word for (`verb land = ship`), unless W names a component. */
static const char *word_for(const mt_game *g, const char *w) {
  const program *p = &g->r->prog;
  static const int named_types[] = {TY_FACTION, TY_TERRITORY, TY_LEADER, TY_CARD};
  int64_t v;
  for (size_t t = 0; t < sizeof named_types / sizeof *named_types; t++)
    if (parse_value(g, named_types[t], w, &v)) return w;
  for (int i = 0; i < p->nverbs; i++)
    if (p->verbs[i].alias && same_word(p->verbs[i].name, w)) return p->verbs[i].alias;
  return w;
}

static int parse_read(const mt_game *g, const char *text, int join, mt_choice *c, bool allow_open, char *err, size_t errlen) {
  const vm_state *vs = g->v.vs;
  char buf[1024];
  char *words[MT_MAX_ARGS + 2];
  uint8_t hint[MT_MAX_ARGS + 2];
  int nw = read_words(g, text, join, buf, sizeof buf, words, hint, MT_MAX_ARGS + 2);
  memset(c, 0, sizeof *c);
  c->action = -1;
  if (nw == 0) return snprintf(err, errlen, "empty choice"), -1;
  for (int j = 0; j < nw; j++) words[j] = (char *)(uintptr_t)word_for(g, words[j]);
  switch (vs->dec.kind) {
  case DEC_MAY:
    if (!parse_value(g, TY_BOOL, words[0], &c->value) || c->value < 0 || c->value > 1)
      return snprintf(err, errlen, "answer yes or no"), -1;
    return 0;
  case DEC_RANGE:
    if (!parse_value(g, TY_INT, words[0], &c->value)) return snprintf(err, errlen, "answer a number"), -1;
    return 0;
  case DEC_ASK:
    if (!parse_value(g, vs->dec.elem, words[0], &c->value)) return snprintf(err, errlen, "'%s' is not a valid answer here", words[0]), -1;
    return 0;
  case DEC_ACT:
    subject_first(g, words, hint, nw);
    return parse_action_words(g, words, hint, nw, c, allow_open, err, errlen);
  default: return snprintf(err, errlen, "no decision is pending"), -1;
  }
}

/* TEXT read with names of several words joined; if that does not parse, with the components'
 * names only joined (`Fremen send 4 to the Wind Pass`: the subject, then the verb), then each word
 * alone (`advance red canyon` is faction red to the canyon where no action takes a red_canyon). */
int game_parse_choice(const mt_game *g, const char *text, mt_choice *c, bool allow_open, char *err, size_t errlen) {
  int rc = parse_read(g, text, 2, c, allow_open, err, errlen);
  for (int join = 1; rc < 0 && join >= 0; join--) {
    char e2[512];
    mt_choice c2;
    if (parse_read(g, text, join, &c2, allow_open, e2, sizeof e2) == 0) {
      *c = c2;
      return 0;
    }
  }
  return rc;
}

/* The actions the first word of TEXT stands for, each with the words bound to it (OK[k] false:
 * they do not fit it), up to CAP; how many.  For `why` to say what else a verb was judged against. */
int game_parse_candidates(const mt_game *g, const char *text, mt_choice *out, bool *ok, int cap) {
  char buf[1024];
  char *words[MT_MAX_ARGS + 2];
  uint8_t hint[MT_MAX_ARGS + 2];
  int nw = read_words(g, text, 2, buf, sizeof buf, words, hint, MT_MAX_ARGS + 2);
  if (nw == 0) return 0;
  const program *p = &g->r->prog;
  for (int j = 0; j < nw; j++) words[j] = (char *)(uintptr_t)word_for(g, words[j]);
  subject_first(g, words, hint, nw);
  int cand[64], exact;
  int nc = candidates(p, words[0], cand, cap < 64 ? cap : 64, &exact);
  for (int k = 0; k < nc; k++) {
    char e[512];
    ok[k] = bind_words(g, cand[k], NULL, words + 1, hint + 1, nw - 1, &out[k], true, e, sizeof e, NULL);
    if (!ok[k]) out[k].action = cand[k];
  }
  return nc;
}

bool game_word_names_action(const mt_rules *r, const char *w, char *stem, size_t cap) {
  if (action_word(&r->prog, w, false)) return snprintf(stem, cap, "%s", w), true;
  return stem_of(&r->prog, w, stem, cap);
}

/* Whether W is a whole word of action name NAME, wherever in it (`revival` of pay_ally_revival). */
static bool word_of_name(const char *name, const char *w) {
  size_t n = strlen(w);
  for (const char *s = name; *s;) {
    size_t k = strcspn(s, "_");
    if (k == n && !strncasecmp(s, w, n)) return true;
    s += k;
    if (*s) s++;
  }
  return false;
}

bool game_words_of_one_action(const mt_rules *r, const char *w, const char *v) {
  for (int i = 0; i < r->prog.nactions; i++)
    if (word_of_name(r->prog.actions[i].name, w) && word_of_name(r->prog.actions[i].name, v)) return true;
  return false;
}

/* TEXT read as players write it (read_words: names of several words joined into their ids, small
 * words dropped) into W (in BUF); how many words. */
int game_read_names(const mt_game *g, const char *text, char *buf, size_t cap, char **w, int max) {
  uint8_t hint[96];
  return read_words(g, text, 1, buf, cap, w, hint, max < 96 ? max : 96);
}

/* Whether W names an action, a kind or a verb of R, or begins an action's name (`give`). */
bool game_word_begins_action(const mt_rules *r, const char *w) { return action_word(&r->prog, w, true); }
