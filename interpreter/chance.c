/* chance.c -- chance as choice: the rules' random events as outcomes the
 * caller chooses (mentat.h, "chance as choice"; docs/verify.md).
 *
 * The VM side is in builtins.c (vm_chance_take, vm_chance_card): with a game's
 * chance record on, shuffle leaves a pile undecided (board_pile_forget), and
 * reading an undecided card, random(n) and random_member(set) take the next
 * outcome of the plan or stop the step with VE_CHANCE and the question in the
 * record.  Here: the public calls that switch it on, set the plan and turn
 * the question into outcomes and words.
 *
 * Identical cards (one id, several copies) are one outcome: the undecided
 * part of a pile is kept in card order, so "a karama comes up" is always the
 * lowest undecided copy, and positions that differ only in which copy came
 * up are never told apart.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "game.h"

void mt_chance_mode(mt_game *g, int on, int forget) {
  if (!on) {
    mt_free(g->v.chance);
    g->v.chance = NULL;
    return;
  }
  if (!g->v.chance) g->v.chance = mt_calloc(1, sizeof *g->v.chance);
  g->v.chance->on = true;
  if (forget)
    for (int s = 0; s < g->L->npile_slots; s++)
      if (g->r->def->piles[g->L->pile_of_slot[s]].visibility == VIS_NOBODY) board_pile_forget(g->L, g->block, s);
  vm_memo_reset(&g->v);
}

int mt_chance_on(const mt_game *g) { return g->v.chance != NULL; }

void mt_chance_plan(mt_game *g, const int64_t *outcomes, int n) {
  vm_chance *ch = g->v.chance;
  if (!ch) return;
  if (n > VM_CHANCE_PLAN) n = VM_CHANCE_PLAN;
  if (n > 0) memcpy(ch->plan, outcomes, (size_t)n * sizeof *outcomes);
  ch->nplan = n < 0 ? 0 : n;
  ch->next = 0;
  ch->need = VM_CH_NONE;
  ch->bad = false;
}

int mt_chance_taken(const mt_game *g) { return g->v.chance ? g->v.chance->next : 0; }

int mt_chance_undecided(const mt_game *g, int slot) { return board_pile_unknown(g->L, g->block, slot); }

/* The member type of the random_member call at PC (compile.c records them). */
static int member_type(const program *p, uint32_t pc) {
  for (int i = 0; i < p->ndraws; i++)
    if (p->draw_pc[i] == pc) return p->draw_ty[i];
  return TY_INT;
}

/* Is C the lowest undecided copy of its id in pile SLOT? */
static bool first_copy(const mt_game *g, int slot, int u, int c) {
  const board_def *def = g->r->def;
  for (int k = 0; k < c; k++) {
    int pos;
    if (!strcmp(def->cards[k].id, def->cards[c].id) && board_card_pile(g->L, g->block, k, &pos) == slot && pos < u)
      return false;
  }
  return true;
}

int mt_chance_need(mt_game *g, int64_t *out, int cap, int *n, char *what, size_t whatlen, int *bad) {
  vm_chance *ch = g->v.chance;
  *n = 0;
  if (bad) *bad = 0;
  if (what && whatlen) what[0] = 0;
  if (!ch || ch->need == VM_CH_NONE) return MT_CHANCE_NONE;
  if (bad) *bad = ch->bad;
  const board_def *def = g->r->def;
  switch (ch->need) {
  case VM_CH_CARD: {
    int u = board_pile_unknown(g->L, g->block, ch->slot);
    for (int c = 0; c < def->ncards; c++) {
      int pos;
      if (board_card_pile(g->L, g->block, c, &pos) != ch->slot || pos >= u || !first_copy(g, ch->slot, u, c)) continue;
      if (*n < cap) out[*n] = c;
      ++*n;
    }
    if (what) {
      char pile[96];
      pile[vm_format_value_buf(&g->v, TY_PILE, ch->slot, pile, sizeof pile - 1)] = 0; /* it writes no NUL */
      snprintf(what, whatlen, "the top undecided card of %s (%d undecided)", pile, u);
    }
    return MT_CHANCE_CARD;
  }
  case VM_CH_NUMBER:
    for (int64_t k = 0; k < ch->n; k++) {
      if (*n < cap) out[*n] = k;
      ++*n;
    }
    if (what) snprintf(what, whatlen, "random(%lld): a number from 0 to %lld", (long long)ch->n, (long long)ch->n - 1);
    return MT_CHANCE_NUMBER;
  default:
    ch->ty = member_type(g->v.p, (uint32_t)g->v.vs->err_pc);
    for (int k = 0; k < 64; k++)
      if (ch->set >> k & 1u) {
        if (*n < cap) out[*n] = k;
        ++*n;
      }
    if (what) {
      char ty[32];
      snprintf(what, whatlen, "random_member: one %s of %d", sema_type_name(ch->ty, ty, sizeof ty), __builtin_popcountll(ch->set));
    }
    return MT_CHANCE_MEMBER;
  }
}

void mt_chance_format(const mt_game *g, int64_t x, char *buf, size_t n) {
  const vm_chance *ch = g->v.chance;
  if (!ch || ch->need == VM_CH_NUMBER || ch->need == VM_CH_NONE) {
    snprintf(buf, n, "%lld", (long long)x);
    return;
  }
  if (ch->need == VM_CH_CARD) {
    snprintf(buf, n, "%s", x >= 0 && x < g->r->def->ncards ? g->r->def->cards[x].id : "?");
    return;
  }
  if (!n) return;
  size_t k = vm_format_value_buf(&g->v, member_type(g->v.p, (uint32_t)g->v.vs->err_pc), x, buf, n - 1);
  buf[k] = 0;
}

int mt_chance_parse(mt_game *g, const char *word, int64_t *out, char *err, size_t errlen) {
  int64_t opts[64], *big = NULL;
  int n, kind = mt_chance_need(g, opts, 64, &n, NULL, 0, NULL);
  int64_t *o = opts;
  if (n > 64) { /* a deck larger than the buffer */
    big = mt_calloc((size_t)n, sizeof *big);
    kind = mt_chance_need(g, big, n, &n, NULL, 0, NULL);
    o = big;
  }
  int rc = -1;
  if (kind == MT_CHANCE_NONE) {
    snprintf(err, errlen, "no random event is waiting for an outcome");
    goto done;
  }
  const char **names = mt_calloc((size_t)n + 1, sizeof *names);
  char(*text)[64] = mt_calloc((size_t)n + 1, sizeof *text);
  for (int i = 0; i < n; i++) {
    mt_chance_format(g, o[i], text[i], sizeof text[i]);
    names[i] = text[i];
    if (strcasecmp(word, text[i])) continue;
    *out = o[i];
    rc = 0;
    break;
  }
  if (rc) {
    const char *near = diag_suggest(word, names, (size_t)n);
    size_t k = (size_t)snprintf(err, errlen, "'%s' is not a possible outcome here", word);
    if (near && k < errlen) k += (size_t)snprintf(err + k, errlen - k, " (did you mean '%s'?)", near);
    if (k < errlen) k += (size_t)snprintf(err + k, errlen - k, "; it is one of:");
    for (int i = 0; i < n && k < errlen; i++) k += (size_t)snprintf(err + k, errlen - k, " %s", text[i]);
  }
  mt_free(names);
  mt_free(text);
done:
  mt_free(big);
  return rc;
}

int mt_chance_pile(const mt_game *g, char *name, size_t n) {
  const vm_chance *ch = g->v.chance;
  if (!ch || ch->need != VM_CH_CARD) return -1;
  if (name && n) name[vm_format_value_buf(&g->v, TY_PILE, ch->slot, name, n - 1)] = 0;
  return ch->slot;
}
