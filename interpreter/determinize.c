/* determinize.c -- a world the deciding faction cannot tell from the real position
 * (bot_determinize, search.h): what every bot that reads the state decides on.
 *
 * What a faction's view hides (docs/console.md, `view as`), each replaced here by a guess that
 * reads nothing hidden: the cards of piles it may not see (other hands, traitors, decks and
 * their order), dealt anew deck by deck; the other factions' secret variables and the
 * variables nobody sees; in a secret round, what the others answered already; the leaders the
 * rules' leader_seen_by keeps from it, dealt anew among those of the same owner; the game's
 * generator (the dice and shuffles to come).  Narration for some factions only (`log for`)
 * is not state: no bot reads the narration. */
#include "search.h"

#include <stdlib.h>
#include <string.h>

#include "bots.h"
#include "game.h"

/* Whether game faction ME may see the cards of pile slot S (the data's
 * visibility of the pile; a faction pile is its owner's). */
static bool sees_pile(const board_layout *L, int s, int me) {
  const board_pile *p = &L->def->piles[L->pile_of_slot[s]];
  return p->visibility == VIS_PUBLIC || (p->visibility == VIS_OWNER && L->owner_of_slot[s] == me && me >= 0);
}

/* The card arrays of the state, as board.c lays them out: the pile slot and
 * the position of every card. */
static int16_t *cards_at(unsigned char *st, size_t off) {
  return (int16_t *)(void *)(st + off);
}

static int by_place(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* Deals the cards game faction ME may not see anew, deck by deck: the cards
 * of one deck lying in piles hidden from ME are dealt at random into the
 * places those cards held (each pile keeps its size, a deck's cards stay in
 * the piles that held that deck's cards).  Places and cards are listed in a
 * fixed order (by pile slot and position, by card), so the result does not
 * depend on where the hidden cards really were. */
static void deal_hidden(const board_layout *L, unsigned char *st, int me, uint64_t *rng) {
  const board_def *def = L->def;
  int16_t *cp = cards_at(st, L->off_card_pile), *cpos = cards_at(st, L->off_card_pos);
  for (int d = 0; d < def->ndecks; d++) {
    int first = def->decks[d].first_card, end = first + def->decks[d].ncards;
    int16_t card[BOARD_MAX_CARDS], slot[BOARD_MAX_CARDS], pos[BOARD_MAX_CARDS];
    int n = 0;
    for (int c = first; c < end && c < def->ncards; c++)
      if (cp[c] >= 0 && !sees_pile(L, cp[c], me)) card[n++] = (int16_t)c;
    if (n < 2) continue;
    int32_t place[BOARD_MAX_CARDS]; /* the places, in slot then position order */
    for (int k = 0; k < n; k++) place[k] = (int32_t)cp[card[k]] << 16 | (int32_t)(uint16_t)cpos[card[k]];
    qsort(place, (size_t)n, sizeof *place, by_place);
    for (int k = 0; k < n; k++) slot[k] = (int16_t)(place[k] >> 16), pos[k] = (int16_t)(place[k] & 0xffff);
    for (int i = n - 1; i > 0; i--) { /* Fisher-Yates over the cards */
      int j = (int)(bot_rand(rng) % (uint64_t)(i + 1));
      int16_t t = card[i];
      card[i] = card[j], card[j] = t;
    }
    for (int k = 0; k < n; k++) cp[card[k]] = slot[k], cpos[card[k]] = pos[k];
  }
  board_touch(L, st, BOARD_GEN_CARDS);
}

/* Replaces what ME may not read of the variables: the other factions' secret
 * variables (visibility owner) -- an integer by ME's own value of it (a guess
 * that reads nothing hidden), anything else by its initial value -- and every
 * instance of a variable nobody sees, by its initial value. */
static void guess_secrets(const board_layout *L, unsigned char *st, int me) {
  for (int v = 0; v < L->nvars; v++) {
    const board_var *bv = &L->vars[v];
    if (bv->visibility == VIS_PUBLIC) continue;
    bool owned = bv->visibility == VIS_OWNER && bv->scope == BS_FACTION;
    bool mine = owned && me >= 0 && bv->type == BT_INT && !bv->set;
    int ninst = bv->scope == BS_FACTION ? L->nf : bv->scope == BS_SECTION ? L->def->nsections : 1;
    for (int inst = 0; inst < ninst; inst++) {
      if (owned && inst == me) continue;
      for (int cell = 0; cell < bv->len; cell++)
        board_var_set(L, st, v, inst, cell, mine ? board_var_get(L, st, v, me, cell) : bv->initial);
    }
  }
}

/* In a secret round, what the other factions answered is not known yet: their
 * instances of every per-faction variable go back to what they were when the
 * round began (the VM's copy); ME's own answers stay. */
static void hide_round(const board_layout *L, unsigned char *st, const unsigned char *before, int me) {
  for (int i = 0; i < L->nvars; i++) {
    const board_var *bv = &L->vars[i];
    if (bv->scope != BS_FACTION) continue;
    size_t cells = (size_t)bv->len * sizeof(int32_t);
    for (int k = 0; k < L->nf; k++)
      if (k != me) {
        size_t off = L->var_off[i] + (size_t)k * cells;
        memcpy(st + off, before + (off - L->off_vars), cells);
      }
  }
}

/* ---- leaders the faction may not tell apart ------------------------------------------- */

/* The rules' value `leader_seen_by(l: leader, f: faction): bool` (1.11.00: may F see L's name
 * and status?), or -1 when the pack defines none; looked up once per rule set. */
static int seen_by_index(const mt_game *g) {
  mt_rules *r = (mt_rules *)(uintptr_t)g->r;
  if (r->leader_seen_by != BOT_VALUE_UNKNOWN) return r->leader_seen_by;
  const program *p = &r->prog;
  int value = -1;
  for (int i = 0; i < p->nvalues; i++)
    if (!strcmp(p->values[i].name, "leader_seen_by") && p->values[i].nparams == 2 && p->values[i].ptype[0] == TY_LEADER &&
        p->values[i].ptype[1] == TY_FACTION && p->values[i].ret == TY_BOOL)
      value = i;
  return r->leader_seen_by = value;
}

/* How many values an index of type T takes (as the VM lays out indexed variables). */
static int domain(const board_def *def, int t) {
  return t == TY_FACTION ? def->nfactions : t == TY_TERRITORY ? def->nareas : t == TY_SECTOR ? def->nsectors
         : t == TY_CARD ? def->ncards : t == TY_LEADER ? def->nleaders : t == TY_KIND ? def->nkinds
         : t == TY_TAG ? def->ntags : 2;
}

/* One variable as the relabelling sees it: how its cells are laid out and where leaders are in
 * it (its value, a set of leaders, an index). */
typedef struct lvar {
  int bv, ninst, len, width, nidx;
  int first;               /* the first index laid out in the cells (1 past a faction scope) */
  int nparams, ptype[MAX_PARAMS], size[MAX_PARAMS];
  bool value, set, indexed; /* a leader value, a set of leaders, an index of leader type */
} lvar;

/* Whether variable VR holds or is indexed by leaders; fills X. */
static bool leader_var(const mt_game *g, const var_rec *vr, lvar *x) {
  const board_layout *L = g->L;
  const board_def *def = L->def;
  if (vr->board_var < 0) return false;
  int t = vr->type & ~TY_SETBIT;
  *x = (lvar){.bv = vr->board_var, .value = t == TY_LEADER && !(vr->type & TY_SETBIT),
              .set = vr->type == (TY_LEADER | TY_SETBIT), .nparams = vr->nparams};
  const board_var *b = &L->vars[vr->board_var];
  x->ninst = b->scope == BS_FACTION ? L->nf : b->scope == BS_SECTION ? def->nsections : 1;
  x->len = b->len > 0 ? b->len : 1;
  x->width = vr->width > 0 ? vr->width : 1;
  x->first = !vr->data && vr->scope == BS_FACTION ? 1 : 0;
  x->nidx = 1;
  for (int i = 0; i < vr->nparams; i++) {
    x->ptype[i] = vr->ptype[i];
    x->size[i] = domain(def, vr->ptype[i]);
    if (vr->data || i < x->first) continue;
    x->indexed |= vr->ptype[i] == TY_LEADER;
    x->nidx *= x->size[i];
  }
  if (x->nidx * x->width != x->len) x->indexed = false; /* not laid out as the VM does: left alone */
  return x->value || x->set || x->indexed;
}

/* Index IDX of X with every leader component mapped by TO. */
static int map_index(const lvar *x, int idx, const int *to) {
  int comp[MAX_PARAMS];
  for (int i = x->nparams - 1; i >= x->first; i--) comp[i] = idx % x->size[i], idx /= x->size[i];
  int out = 0;
  for (int i = x->first; i < x->nparams; i++) out = out * x->size[i] + (x->ptype[i] == TY_LEADER ? to[comp[i]] : comp[i]);
  return out;
}

/* One value of X (WIDTH cells at C) with the leaders in it mapped by TO. */
static uint64_t map_value(const lvar *x, const int32_t *c, const int *to, int nleaders) {
  uint64_t v = (uint32_t)c[0];
  if (x->width == 2) v |= (uint64_t)(uint32_t)c[1] << 32;
  if (x->value) return c[0] >= 0 && c[0] < nleaders ? (uint64_t)(uint32_t)to[c[0]] : v;
  if (!x->set) return v;
  uint64_t m = 0;
  for (int l = 0; l < nleaders && l < 64; l++)
    if (v >> l & 1u) m |= 1ull << to[l];
  return m;
}

/* A fingerprint of everything the state says about leader L that a relabelling carries along:
 * its record, the cells indexed by it, the sets holding it and the variables naming it.  Two
 * leaders the faction cannot tell apart are put in the order of their fingerprints, so the
 * world made does not depend on which of them really is which. */
static uint64_t leader_key(const mt_game *g, int l) {
  const board_layout *L = g->L;
  const program *p = &g->r->prog;
  board_leader_state ls = board_leader_get(L, g->v.st, l);
  uint64_t h = mt_hash_bytes(&ls, sizeof ls, 0x6c65616465ull);
  for (int v = 0; v < p->nvars; v++) {
    lvar x;
    if (!leader_var(g, &p->vars[v], &x)) continue;
    for (int inst = 0; inst < x.ninst; inst++)
      for (int idx = 0; idx * x.width < x.len; idx++) {
        int32_t c[2] = {board_var_get(L, g->v.st, x.bv, inst, idx * x.width), 0};
        if (x.width == 2) c[1] = board_var_get(L, g->v.st, x.bv, inst, idx * x.width + 1);
        int64_t mark[5] = {v, inst, idx, -1, 0};
        if (x.value && c[0] == l) mark[3] = 0;
        if (x.set && l < 64 && ((uint64_t)(uint32_t)c[0] | (uint64_t)(uint32_t)c[1] << 32) >> l & 1u) mark[3] = 1;
        if (x.indexed) { /* the cells indexed by L: which index it is, and what they hold */
          int rest = idx;
          for (int i = x.nparams - 1; i >= x.first; i--) {
            if (x.ptype[i] == TY_LEADER && rest % x.size[i] == l) mark[3] = 2 + i, mark[4] = (int64_t)c[0] << 32 ^ c[1];
            rest /= x.size[i];
          }
        }
        if (mark[3] >= 0) h = mt_hash_bytes(mark, sizeof mark, h);
      }
  }
  return h;
}

/* Relabels the leaders of G's state by TO (leader L's record, cells and mentions become TO[L]'s). */
static void relabel(mt_game *g, const int *to) {
  const board_layout *L = g->L;
  const program *p = &g->r->prog;
  int nl = L->def->nleaders;
  board_leader_state old[BOARD_MAX_LEADERS];
  for (int l = 0; l < nl; l++) old[l] = board_leader_get(L, g->v.st, l);
  for (int l = 0; l < nl; l++) board_leader_set(L, g->v.st, to[l], old[l]);
  int32_t *was = NULL;
  size_t cap = 0;
  for (int v = 0; v < p->nvars; v++) {
    lvar x;
    if (!leader_var(g, &p->vars[v], &x)) continue;
    if ((size_t)x.len > cap) cap = (size_t)x.len, was = mt_realloc(was, cap * sizeof *was);
    for (int inst = 0; inst < x.ninst; inst++) {
      for (int c = 0; c < x.len; c++) was[c] = board_var_get(L, g->v.st, x.bv, inst, c);
      for (int idx = 0; idx * x.width < x.len; idx++) {
        int at = x.indexed ? map_index(&x, idx, to) : idx;
        uint64_t y = map_value(&x, was + (size_t)idx * (size_t)x.width, to, nl);
        board_var_set(L, g->v.st, x.bv, inst, at * x.width, (int32_t)(uint32_t)y);
        if (x.width == 2) board_var_set(L, g->v.st, x.bv, inst, at * x.width + 1, (int32_t)(uint32_t)(y >> 32));
      }
    }
  }
  mt_free(was);
}

typedef struct keyed {
  uint64_t key;
  int l;
} keyed;

static int by_key(const void *a, const void *b) {
  const keyed *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->l > y->l) - (x->l < y->l);
}

/* The leaders the rules' leader_seen_by keeps from FACTION (a Harkonnen captive, a leader killed
 * face down on capture: wbc.battle.7) are counted in its view, not named: it knows how many of
 * each faction's leaders it cannot see, hence which names they are, but not which of those
 * names goes with which status, place or death count.  So the hidden leaders of one owner are
 * dealt anew among themselves: their states, in the order of their fingerprints, go to their
 * names shuffled.  The draws depend only on how many are hidden per owner; the world, only on
 * what FACTION sees and on *RNG. */
static void deal_hidden_leaders(mt_game *g, int64_t faction, uint64_t *rng) {
  int seen_by = seen_by_index(g);
  const board_def *def = g->L->def;
  int nl = def->nleaders;
  if (seen_by < 0 || nl < 2 || nl > BOARD_MAX_LEADERS) return;
  bool hidden[BOARD_MAX_LEADERS];
  int nhidden = 0;
  vm_memo_reset(&g->v);
  for (int l = 0; l < nl; l++) {
    int64_t args[2] = {l, faction}, seen = 1;
    hidden[l] = vm_eval_cached(&g->v, g->r->prog.values[seen_by].dispatch_fn, args, 2, 2, &seen) && seen == 0;
    nhidden += hidden[l];
  }
  if (nhidden < 2) return;
  int to[BOARD_MAX_LEADERS];
  for (int l = 0; l < nl; l++) to[l] = l;
  bool moved = false;
  for (int f = 0; f < def->nfactions; f++) {
    keyed st[BOARD_MAX_LEADERS];
    int name[BOARD_MAX_LEADERS], k = 0;
    for (int l = 0; l < nl; l++)
      if (hidden[l] && def->leaders[l].faction == f) st[k] = (keyed){leader_key(g, l), l}, name[k++] = l;
    if (k < 2) continue;
    qsort(st, (size_t)k, sizeof *st, by_key);
    for (int i = k - 1; i > 0; i--) { /* Fisher-Yates over the names */
      int j = (int)(bot_rand(rng) % (uint64_t)(i + 1));
      int t = name[i];
      name[i] = name[j], name[j] = t;
    }
    for (int i = 0; i < k; i++) to[st[i].l] = name[i];
    moved = true;
  }
  if (moved) relabel(g, to);
}

void bot_determinize(mt_game *g, int64_t faction, uint64_t *rng) {
  const board_layout *L = g->L;
  int me = vm_game_faction(&g->v, faction);
  if (g->v.vs->secret && g->v.secret_seen) hide_round(L, g->v.st, g->v.secret_vars, me);
  deal_hidden_leaders(g, faction, rng); /* leader_seen_by read on the position, as `view as` reads it */
  deal_hidden(L, g->v.st, me, rng);
  guess_secrets(L, g->v.st, me);
  board_rng_seed(L, g->v.st, bot_rand(rng)); /* the dice to come are not the real ones */
  vm_memo_reset(&g->v);
}
