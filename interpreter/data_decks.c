/* data_decks.c -- the loader of the decks file, rules/decks.yaml, and of the
 * additions a pack layer lays over it (rules/decks.NAME.yaml: cards appended to
 * a deck, new decks, piles and attributes, new values of an enum attribute,
 * more copies of a card).  Split out of data.c by responsibility; the shared
 * declaration readers are data_read.h's.  Every diagnostic points at the
 * offending scalar, as in the rest of the loaders.
 */
#define _POSIX_C_SOURCE 200809L
#include "data.h"
#include "data_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T(x) (1u << (x)) /* a set of allowed types (data.c has the same) */

/* ---- decks file ------------------------------------------------------------------------------------ */

typedef struct raw_card {
  ys id, name, count, more;
  bool has_name, has_count, has_more; /* more: copies added to a card the deck has (an addition's) */
  ys *akeys, *avals;
  size_t nattr, cap1, cap2;
} raw_card;

typedef struct raw_deck {
  ys id, pile, from_leaders;
  bool has_pile, has_from;
  raw_card *cards;
  size_t ncards, capcards;
  ys *dkeys, *dvals;
  size_t nd, cap1, cap2;
} raw_deck;

typedef struct decks_raw {
  raw_piles piles;
  raw_decl *cattr;
  size_t ncattr, capcattr;
  raw_deck *decks;
  size_t ndecks, capdecks;
} decks_raw;

/* Reads a `piles:` mapping (id -> { scope, visibility }) of the decks file or of a faction sheet. */
void data_read_piles(yr *r, raw_piles *b) {
  if (!data_expect_map(r, "piles")) return;
  keyseen ks2 = {0};
  ys k2;
  while (data_map_key(r, &ks2, &k2)) {
    ys scope = k2, vis = k2;
    scope.s = "global";
    vis.s = "public";
    if (data_expect_map(r, "a pile")) {
      keyseen ks3 = {0};
      ys k3;
      static const char *const pk[] = {"scope", "visibility"};
      while (data_map_key(r, &ks3, &k3)) {
        if (data_keyis(&k3, "scope")) data_expect_scalar(r, "scope", &scope);
        else if (data_keyis(&k3, "visibility")) data_expect_scalar(r, "visibility", &vis);
        else data_unknown_key(r, &k3, "a pile", pk, 2);
      }
    }
    AVEC_PUSH(&r->ld->ar, b->id, b->n, b->cap1, k2);
    b->n--;
    AVEC_PUSH(&r->ld->ar, b->vis, b->n, b->cap3, vis);
    b->n--;
    AVEC_PUSH(&r->ld->ar, b->scope, b->n, b->cap2, scope);
  }
}

/* Declares the piles read by data_read_piles; a name already declared (by the decks file or another
 * sheet) is an error at its key. */
void data_build_piles(data_loader *ld, const raw_piles *b) {
  board_def *def = ld->def;
  def->piles = mt_realloc(def->piles, (size_t)(def->npiles + (int)b->n + 1) * sizeof *def->piles);
  for (size_t i = 0; i < b->n; i++) {
    data_check_id(ld, &b->id[i], "pile");
    if (board_pile_index(def, b->id[i].s) >= 0) {
      data_lerr(ld, b->id[i].sp, "pile '%s' is already declared", b->id[i].s);
      continue;
    }
    board_pile p = {mt_strdup(b->id[i].s), BS_GLOBAL, VIS_PUBLIC};
    data_parse_scope(ld, &b->scope[i], &p.scope, false);
    data_parse_visibility(ld, &b->vis[i], &p.visibility);
    def->piles[def->npiles++] = p;
  }
}

static void read_decks(yr *r, decks_raw *b) {
  static const char *const keys[] = {"piles", "card_attributes", "decks"};
  static const char *const dkeys[] = {"pile", "cards", "from_leaders", "attributes"};
  keyseen ks = {0};
  ys k;
  while (data_map_key(r, &ks, &k)) {
    if (data_keyis(&k, "piles")) data_read_piles(r, &b->piles);
    else if (data_keyis(&k, "card_attributes")) data_read_decls(r, &b->cattr, &b->ncattr, &b->capcattr, false, "card_attributes");
    else if (data_keyis(&k, "decks")) {
      if (!data_expect_map(r, "decks")) continue;
      keyseen ks2 = {0};
      ys k2;
      while (data_map_key(r, &ks2, &k2)) {
        raw_deck d;
        memset(&d, 0, sizeof d);
        d.id = k2;
        if (!data_expect_map(r, "a deck")) continue;
        keyseen ks3 = {0};
        ys k3;
        while (data_map_key(r, &ks3, &k3)) {
          if (data_keyis(&k3, "pile")) d.has_pile = data_expect_scalar(r, "pile", &d.pile);
          else if (data_keyis(&k3, "from_leaders")) d.has_from = data_expect_scalar(r, "from_leaders", &d.from_leaders);
          else if (data_keyis(&k3, "attributes")) {
            if (!data_expect_map(r, "attributes")) continue;
            keyseen ks4 = {0};
            ys k4;
            while (data_map_key(r, &ks4, &k4)) data_read_kv(r, &d.dkeys, &d.dvals, &d.nd, &d.cap1, &d.cap2, &k4);
          } else if (data_keyis(&k3, "cards")) {
            if (!data_expect_map(r, "cards")) continue;
            keyseen ks4 = {0};
            ys k4;
            while (data_map_key(r, &ks4, &k4)) {
              raw_card c;
              memset(&c, 0, sizeof c);
              c.id = k4;
              if (data_is_scalar(r) && r->ev.data.scalar.length == 0) { /* `id:` with nothing */
              } else if (data_expect_map(r, "a card")) {
                keyseen ks5 = {0};
                ys k5;
                while (data_map_key(r, &ks5, &k5)) {
                  if (data_keyis(&k5, "name")) c.has_name = data_expect_scalar(r, "name", &c.name);
                  else if (data_keyis(&k5, "count")) c.has_count = data_expect_scalar(r, "count", &c.count);
                  else if (data_keyis(&k5, "more")) c.has_more = data_expect_scalar(r, "more", &c.more);
                  else data_read_kv(r, &c.akeys, &c.avals, &c.nattr, &c.cap1, &c.cap2, &k5);
                }
              }
              AVEC_PUSH(&r->ld->ar, d.cards, d.ncards, d.capcards, c);
            }
          } else data_unknown_key(r, &k3, "a deck", dkeys, 4);
        }
        AVEC_PUSH(&r->ld->ar, b->decks, b->ndecks, b->capdecks, d);
      }
    } else data_unknown_key(r, &k, "the decks file", keys, 3);
  }
}

/* Applies attribute K=V to a card's ATTRS; leader references are deferred. */
void data_card_attr(data_loader *ld, int card, int32_t *attrs, const ys *k, const ys *v) {
  board_def *def = ld->def;
  int a = board_card_attr_index(def, k->s);
  if (a < 0) {
    size_t nc = 2 + (size_t)def->ncard_attrs;
    const char **c = mt_calloc(nc, sizeof *c);
    c[0] = "name";
    c[1] = "count";
    for (int m = 0; m < def->ncard_attrs; m++) c[2 + m] = def->card_attrs[m].name;
    const char *sug = diag_suggest(k->s, c, nc);
    if (sug) data_lerr(ld, k->sp, "unknown key '%.40s' in a card (did you mean '%s'?)", k->s, sug);
    else data_lerr(ld, k->sp, "unknown key '%.40s' in a card (declare it under 'card_attributes')", k->s);
    mt_free(c);
    return;
  }
  const board_attr *at = &def->card_attrs[a];
  if (at->type == BT_LEADER && !data_ys_null(v)) {
    pending p = {card, a, *v};
    VEC_PUSH(ld->pend, ld->npend, ld->cappend, p);
    return;
  }
  data_conv_value(ld, v, at->type, at->values, at->nvalues, at->name, &attrs[a]);
}

void data_add_card(data_loader *ld, const char *id, const char *name, int deck, int faction) {
  board_def *def = ld->def;
  if (def->ncards % 64 == 0)
    def->cards = mt_realloc(def->cards, (size_t)(def->ncards + 64) * sizeof *def->cards);
  board_card *c = &def->cards[def->ncards];
  memset(c, 0, sizeof *c);
  c->id = mt_strdup(id);
  c->name = mt_strdup(name);
  c->deck = deck;
  c->faction = faction;
  c->attrs = mt_calloc((size_t)def->ncard_attrs + 1, sizeof *c->attrs);
  for (int k = 0; k < def->ncard_attrs; k++) c->attrs[k] = def->card_attrs[k].dflt;
  int n = 0;
  for (int i = 0; i < def->ncards; i++)
    if (!strcmp(def->cards[i].id, id)) n++;
  c->instance = n + 1;
  for (int i = 0; i <= def->ncards; i++)
    if (!strcmp(def->cards[i].id, id)) def->cards[i].ninstances = n + 1;
  def->ncards++;
  def->decks[deck].ncards++;
}

static void build_decks(data_loader *ld, decks_raw *b) {
  board_def *def = ld->def;
  data_build_piles(ld, &b->piles);
  if (b->ncattr) {
    board_attr *na;
    int nn;
    data_make_attrs(ld, b->cattr, b->ncattr, &na, &nn,
               T(BT_INT) | T(BT_BOOL) | T(BT_AREA) | T(BT_SECTOR) | T(BT_LEADER) | T(BT_ENUM), "card attribute");
    if (def->ncards || def->ncard_attrs) {
      data_lerr(ld, b->cattr[0].name.sp, "card attributes are already declared");
      for (int i = 0; i < nn; i++) {
        mt_free(na[i].name);
        for (int j = 0; j < na[i].nvalues; j++) mt_free(na[i].values[j]);
        mt_free(na[i].values);
      }
      mt_free(na);
    } else {
      def->card_attrs = na;
      def->ncard_attrs = nn;
    }
  }
  for (size_t i = 0; i < b->ndecks; i++) {
    raw_deck *rd = &b->decks[i];
    data_check_id(ld, &rd->id, "deck");
    if (board_deck_index(def, rd->id.s) >= 0) data_lerr(ld, rd->id.sp, "deck '%s' is already declared", rd->id.s);
    def->decks = mt_realloc(def->decks, (size_t)(def->ndecks + 1) * sizeof *def->decks);
    int di = def->ndecks++;
    board_deck *d = &def->decks[di];
    d->name = mt_strdup(rd->id.s);
    d->pile = -1;
    d->first_card = def->ncards;
    d->ncards = 0;
    if (!rd->has_pile) data_lerr(ld, rd->id.sp, "deck '%s' needs a 'pile' to start in", rd->id.s);
    else {
      d->pile = board_pile_index(def, rd->pile.s);
      if (d->pile < 0) DANGLING(ld, &rd->pile, "pile", def->piles, def->npiles, name);
      else if (def->piles[d->pile].scope != BS_GLOBAL) {
        data_lerr(ld, rd->pile.sp, "a deck must start in a global pile");
        d->pile = -1;
      }
    }
    deck_extra dx;
    memset(&dx, 0, sizeof dx);
    dx.dkeys = rd->dkeys;
    dx.dvals = rd->dvals;
    dx.nd = rd->nd;
    if (rd->has_from) {
      dx.from_leaders = rd->from_leaders;
      int a = board_card_attr_index(def, rd->from_leaders.s);
      if (a < 0) DANGLING(ld, &rd->from_leaders, "card attribute", def->card_attrs, def->ncard_attrs, name);
      else if (def->card_attrs[a].type != BT_LEADER) data_lerr(ld, rd->from_leaders.sp, "'from_leaders' needs an attribute of type leader");
      else if (def->leader_deck >= 0) data_lerr(ld, rd->from_leaders.sp, "only one deck can be made from leaders");
      else {
        def->leader_deck = di;
        def->leader_attr = a;
      }
      if (rd->ncards) data_lerr(ld, rd->from_leaders.sp, "a deck made from leaders lists no cards");
    }
    VEC_PUSH(ld->dx, ld->ndx, ld->capdx, dx);
    for (size_t j = 0; j < rd->ncards; j++) {
      raw_card *rc = &rd->cards[j];
      data_check_id(ld, &rc->id, "card");
      int32_t count = 1;
      if (rc->has_more) {
        data_lerr(ld, rc->more.sp, "'more' adds copies to a card already in the deck: it belongs in an addition (rules/decks.NAME.yaml)");
        continue;
      }
      if (rc->has_count) data_conv_int(ld, &rc->count, "count", 1, 1000, &count);
      for (int32_t n = 0; n < count && def->ncards < BOARD_MAX_CARDS; n++) {
        data_add_card(ld, rc->id.s, rc->has_name ? rc->name.s : rc->id.s, di, -1);
        board_card *c = &def->cards[def->ncards - 1];
        if (n == 0) { /* attributes are diagnosed once, then copied */
          for (size_t m = 0; m < rd->nd; m++) data_card_attr(ld, def->ncards - 1, c->attrs, &rd->dkeys[m], &rd->dvals[m]);
          for (size_t m = 0; m < rc->nattr; m++) data_card_attr(ld, def->ncards - 1, c->attrs, &rc->akeys[m], &rc->avals[m]);
        } else {
          memcpy(c->attrs, def->cards[def->ncards - 2].attrs, (size_t)def->ncard_attrs * sizeof *c->attrs);
          for (size_t p = 0, np = ld->npend; p < np; p++)
            if (ld->pend[p].card == def->ncards - 2) {
              pending q = ld->pend[p];
              q.card = def->ncards - 1;
              VEC_PUSH(ld->pend, ld->npend, ld->cappend, q);
            }
        }
      }
      if (def->ncards >= BOARD_MAX_CARDS) {
        data_lerr(ld, rc->id.sp, "more than %d cards", BOARD_MAX_CARDS);
        break;
      }
    }
  }
}

/* Reads one decks file (the decks file or an addition) into B; false when it could not be read. */
static bool read_decks_text(data_loader *ld, const char *name, const char *text, size_t len, decks_raw *b) {
  yr r;
  data_yr_open(&r, ld, name, text, len);
  bool root = data_yr_root(&r, "the decks (a mapping)");
  if (root) {
    read_decks(&r, b);
    data_yr_end(&r);
  }
  bool fatal = r.fatal;
  data_yr_close(&r);
  return root && !fatal;
}

static raw_deck *raw_deck_named(decks_raw *b, const char *id) {
  for (size_t i = 0; i < b->ndecks; i++)
    if (!strcmp(b->decks[i].id.s, id)) return &b->decks[i];
  return NULL;
}

/* An addition's `card_attributes:` entry D: a new attribute is declared; one the decks
 * already declare may only gain values, and only if it is an enum (`class: { values: [x] }`). */
static void add_card_attr(data_loader *ld, decks_raw *b, const raw_decl *d) {
  raw_decl *old = NULL;
  for (size_t i = 0; i < b->ncattr; i++)
    if (!strcmp(b->cattr[i].name.s, d->name.s)) old = &b->cattr[i];
  if (!old) {
    AVEC_PUSH(&ld->ar, b->cattr, b->ncattr, b->capcattr, *d);
    return;
  }
  bool is_enum = old->has_values && (!old->has_type || !strcmp(old->type.s, "enum"));
  if (!is_enum || d->has_dflt || !d->has_values || (d->has_type && strcmp(d->type.s, "enum"))) {
    data_lerr(ld, d->name.sp, "card attribute '%s' is already declared (an addition may only add values to an enum attribute: '%s: { values: [...] }')",
              d->name.s, d->name.s);
    return;
  }
  for (size_t j = 0; j < d->values.n; j++) {
    const ys *v = &d->values.v[j];
    bool dup = false;
    for (size_t i = 0; i < old->values.n && !dup; i++) dup = !strcmp(old->values.v[i].s, v->s);
    if (dup) data_lerr(ld, v->sp, "card attribute '%s' already has the value '%s'", d->name.s, v->s);
    else AVEC_PUSH(&ld->ar, old->values.v, old->values.n, old->values.cap, *v);
  }
}

/* Whether card C of an addition names a card some deck of B has already: an error at its id
 * naming the deck (with the way to add copies when it is C's own deck), unless C is
 * `id: { more: N }` for a card of DECK, which is then returned in *SAME. */
static bool card_known(data_loader *ld, decks_raw *b, const raw_card *c, const raw_deck *deck, const raw_card **same) {
  *same = NULL;
  for (size_t i = 0; i < b->ndecks; i++)
    for (size_t j = 0; j < b->decks[i].ncards; j++) {
      const raw_card *o = &b->decks[i].cards[j];
      if (strcmp(o->id.s, c->id.s) || o->has_more) continue;
      bool mine = deck == &b->decks[i];
      if (mine && c->has_more && !c->has_name && !c->has_count && c->nattr == 0) {
        *same = o;
        return false;
      }
      if (mine)
        data_lerr(ld, c->id.sp, "card '%s' is already in deck '%s' (to add copies of it: '%s: { more: N }' and nothing else)",
                  c->id.s, b->decks[i].id.s, c->id.s);
      else data_lerr(ld, c->id.sp, "card '%s' is already in deck '%s'", c->id.s, b->decks[i].id.s);
      return true;
    }
  if (c->has_more)
    data_lerr(ld, c->more.sp, "card '%s' is not in deck '%s': 'more' adds copies to a card the deck has", c->id.s,
              deck->id.s);
  return c->has_more;
}

/* Lays the addition A (rules/decks.NAME.yaml, docs/components.md) over B: its piles and new
 * attributes are declared, its enum values added, its cards appended to the deck of the same
 * name (a deck B lacks is a new deck).  The addition's deck `attributes:` apply to its own
 * cards only; a deck it extends takes no `pile` or `from_leaders` from it. */
static void merge_decks(data_loader *ld, decks_raw *b, decks_raw *a) {
  for (size_t i = 0; i < a->piles.n; i++) {
    AVEC_PUSH(&ld->ar, b->piles.id, b->piles.n, b->piles.cap1, a->piles.id[i]);
    b->piles.n--;
    AVEC_PUSH(&ld->ar, b->piles.vis, b->piles.n, b->piles.cap3, a->piles.vis[i]);
    b->piles.n--;
    AVEC_PUSH(&ld->ar, b->piles.scope, b->piles.n, b->piles.cap2, a->piles.scope[i]);
  }
  for (size_t i = 0; i < a->ncattr; i++) add_card_attr(ld, b, &a->cattr[i]);
  for (size_t i = 0; i < a->ndecks; i++) {
    raw_deck *ad = &a->decks[i];
    raw_deck *old = raw_deck_named(b, ad->id.s);
    if (!old) {
      const raw_card *same;
      for (size_t j = 0; j < ad->ncards; j++)
        if (card_known(ld, b, &ad->cards[j], ad, &same)) ad->cards[j].id.s = NULL;
      size_t k = 0; /* the known cards left out, so that each error is said once */
      for (size_t j = 0; j < ad->ncards; j++)
        if (ad->cards[j].id.s) ad->cards[k++] = ad->cards[j];
      ad->ncards = k;
      AVEC_PUSH(&ld->ar, b->decks, b->ndecks, b->capdecks, *ad);
      continue;
    }
    if (ad->has_pile) data_lerr(ld, ad->pile.sp, "deck '%s' is already declared: an addition adds cards to it and cannot move it to another pile", ad->id.s);
    if (ad->has_from) data_lerr(ld, ad->from_leaders.sp, "deck '%s' is already declared: an addition cannot make it from leaders", ad->id.s);
    for (size_t j = 0; j < ad->ncards; j++) {
      raw_card c = ad->cards[j];
      const raw_card *same;
      if (card_known(ld, b, &c, old, &same)) continue;
      if (same) { /* N more copies of SAME, its attributes and all, placed right after its own (and
                     after copies added before), so that the copies of a card stay contiguous:
                     base_card and copy_in find a card's copies as the run of cards with its id */
        raw_card copy = *same;
        copy.count = c.more;
        copy.has_count = true;
        size_t at = (size_t)(same - old->cards) + 1;
        while (at < old->ncards && !strcmp(old->cards[at].id.s, same->id.s)) at++;
        AVEC_PUSH(&ld->ar, old->cards, old->ncards, old->capcards, copy);
        memmove(&old->cards[at + 1], &old->cards[at], (old->ncards - 1 - at) * sizeof *old->cards);
        old->cards[at] = copy;
        continue;
      }
      if (ad->nd) { /* the addition's deck attributes first, the card's own after (they win) */
        ys *k = NULL, *v = NULL;
        size_t n = 0, c1 = 0, c2 = 0;
        for (size_t m = 0; m < ad->nd; m++) {
          AVEC_PUSH(&ld->ar, k, n, c1, ad->dkeys[m]);
          n--;
          AVEC_PUSH(&ld->ar, v, n, c2, ad->dvals[m]);
        }
        for (size_t m = 0; m < c.nattr; m++) {
          AVEC_PUSH(&ld->ar, k, n, c1, c.akeys[m]);
          n--;
          AVEC_PUSH(&ld->ar, v, n, c2, c.avals[m]);
        }
        c.akeys = k, c.avals = v, c.nattr = n, c.cap1 = c1, c.cap2 = c2;
      }
      AVEC_PUSH(&ld->ar, old->cards, old->ncards, old->capcards, c);
    }
  }
}

/* Loads the decks file NAME (TEXT) with the additions ADDS (paths, in order) laid over it,
 * then builds the decks once, so that an added card joins its deck's contiguous run. */
int data_load_decks_with(data_loader *ld, const char *name, const char *text, size_t len, const char *const *adds,
                           size_t nadds) {
  int before = ld->errors;
  decks_raw b;
  memset(&b, 0, sizeof b);
  bool ok = read_decks_text(ld, name, text, len, &b);
  for (size_t i = 0; i < nadds; i++) {
    size_t alen;
    char *atext = data_read_file(ld, adds[i], &alen);
    if (!atext) {
      ok = false;
      continue;
    }
    decks_raw a;
    memset(&a, 0, sizeof a);
    if (read_decks_text(ld, adds[i], atext, alen, &a) && ok) merge_decks(ld, &b, &a);
    else ok = false;
    mt_free(atext);
  }
  if (ok) build_decks(ld, &b);
  return ld->errors == before ? 0 : -1;
}

int data_load_decks_raw(data_loader *ld, const char *name, const char *text, size_t len) {
  return data_load_decks_with(ld, name, text, len, NULL, 0);
}

