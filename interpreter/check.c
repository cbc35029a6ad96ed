/* check.c -- names and types (stage 4): resolves every name (with "did you
 * mean"), types every expression, forbids effects in pure contexts and checks
 * statements, leaving annotations on the nodes (check.h) for compile.c.  The
 * declarations -- the hook tables (values, events, triggers, actions, checks,
 * variables, procedures), value definitions ordered by precedence, static
 * conflicts -- and the entry points are check_decl.c's; check_int.h is what
 * the two share. */
#include <stdio.h>
#include <string.h>

#include "check_int.h"

const builtin_info sema_builtins[] = {
#define B(name, ret, eff, n, a0, a1, a2, a3, a4, doc) {#name, ret, eff, n, {a0, a1, a2, a3, a4}, doc},
#include "builtins.def"
#undef B
};
const int sema_nbuiltins = BI__COUNT;

static const char *const type_names[] = {"<error>", "int", "bool", "faction", "territory", "sector", "card",
                                         "leader", "kind", "pool", "pile", "pile name", "location", "tag",
                                         "attribute", "rule", "string", "nothing"};
_Static_assert(sizeof type_names / sizeof *type_names == TY__COUNT, "type names");

const program *chk_naming; /* for enum names in messages */

const char *sema_type_name(int ty, char *buf, size_t n) {
  int e = (ty & ~TY_SETBIT) - TY_ENUM0;
  if (e >= 0 && chk_naming && e < chk_naming->nenums)
    snprintf(buf, n, "%s%s", ty & TY_SETBIT ? "set of " : "", chk_naming->enums[e].name);
  else if (ty == TY_NONE) snprintf(buf, n, "none");
  else if (ty == TY_RANGE) snprintf(buf, n, "range");
  else if (ty & TY_SETBIT) snprintf(buf, n, "set of %s", type_names[(ty & ~TY_SETBIT) % TY__COUNT]);
  else snprintf(buf, n, "%s", ty >= 0 && ty < TY__COUNT ? type_names[ty] : "?");
  return buf;
}

bool chk_is_enum(int ty) { return ty >= TY_ENUM0 && ty < TY_SETBIT; }

bool chk_is_entity(int ty) {
  return chk_is_enum(ty) || ty == TY_FACTION || ty == TY_TERRITORY || ty == TY_SECTOR || ty == TY_CARD || ty == TY_LEADER ||
         ty == TY_KIND || ty == TY_POOL || ty == TY_PILENAME || ty == TY_PILE || ty == TY_TAG || ty == TY_RULE ||
         ty == TY_LOC;
}

/* Can a value of type GOT be used where WANT is expected? */
bool chk_compatible(int want, int got) {
  if (want == TY_ERROR || got == TY_ERROR) return true;
  if (want == got) return true;
  if (got == TY_NONE && chk_is_entity(want)) return true;
  if (want == TY_NONE && chk_is_entity(got)) return true;
  return false;
}

int chk_domain_size(chk *c, int ty) {
  if (chk_is_enum(ty)) return ty - TY_ENUM0 < c->p->nenums ? c->p->enums[ty - TY_ENUM0].nvalues : -1;
  switch (ty) {
  case TY_FACTION: return c->def->nfactions;
  case TY_TERRITORY: return c->def->nareas;
  case TY_SECTOR: return c->def->nsectors;
  case TY_CARD: return c->def->ncards;
  case TY_LEADER: return c->def->nleaders;
  case TY_KIND: return c->def->nkinds;
  case TY_TAG: return c->def->ntags;
  case TY_BOOL: return 2;
  default: return -1;
  }
}

int chk_set_of(chk *c, int elem, mt_span at) {
  int n = chk_domain_size(c, elem);
  if (elem == TY_ERROR) return TY_ERROR;
  if (n < 0 || elem == TY_BOOL) {
    diag_error(c->d, at, "there are no sets of %s", TN(elem));
    return TY_ERROR;
  }
  if (n > 64) {
    diag_error(c->d, at, "a set of %s would need %d members; sets hold at most 64 (iterate a pile instead)", TN(elem),
               n);
    return TY_ERROR;
  }
  return elem | TY_SETBIT;
}

void chk_expect(chk *c, node *n, int want, int got) {
  if (!chk_compatible(want, got))
    diag_error(c->d, n->span, "expected %s, found %s", TN(want), TN(got));
}

/* ---- scopes ---------------------------------------------------------- */

void chk_begin_fn(chk *c, fn_kind k) {
  c->nlocals = 0;
  c->nslots = 0;
  c->kind = k;
  c->loops = 0;
}

int chk_declare(chk *c, const char *name, int ty, mt_span at) {
  if (c->nslots >= MAX_LOCALS || c->nlocals >= MAX_LOCALS) {
    diag_error(c->d, at, "too many local names in one function (the limit is %d)", MAX_LOCALS);
    return 0;
  }
  local l = {name, c->nslots++, ty};
  c->locals[c->nlocals++] = l;
  return l.slot;
}

/* A name in a slot reserved before (an action's parameters and cost: check_action). */
void chk_declare_at(chk *c, const char *name, int ty, int slot, mt_span at) {
  if (c->nlocals >= MAX_LOCALS) {
    diag_error(c->d, at, "too many local names in one function (the limit is %d)", MAX_LOCALS);
    return;
  }
  local l = {name, slot, ty};
  c->locals[c->nlocals++] = l;
}

static local *find_local(chk *c, const char *name) {
  for (int i = c->nlocals - 1; i >= 0; i--)
    if (c->locals[i].name && strcmp(c->locals[i].name, name) == 0) return &c->locals[i];
  return NULL;
}

/* ---- lookups ---------------------------------------------------------- */

/* Names are looked up hundreds of thousands of times while a pack is checked:
 * values and variables (append-only tables) through an index rebuilt when
 * the table has grown; the first entry of a name wins, as a scan would. */
static uint32_t name_hash(const char *s) {
  uint32_t h = 2166136261u;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 16777619u;
  return h;
}

static int ix_find(name_index *ix, int count, const char *(*name_at)(const program *, int), const program *p,
                   const char *name) {
  if (ix->n != count || !ix->slot) {
    size_t cap = 64;
    while (cap < 2 * (size_t)count + 16) cap *= 2;
    if (cap != ix->cap) {
      mt_free(ix->slot);
      ix->slot = mt_alloc(cap * sizeof *ix->slot);
      ix->cap = cap;
    }
    memset(ix->slot, -1, cap * sizeof *ix->slot);
    for (int i = 0; i < count; i++) {
      size_t h = name_hash(name_at(p, i)) & (cap - 1);
      while (ix->slot[h] >= 0 && strcmp(name_at(p, ix->slot[h]), name_at(p, i)) != 0) h = (h + 1) & (cap - 1);
      if (ix->slot[h] < 0) ix->slot[h] = i;
    }
    ix->n = count;
  }
  for (size_t h = name_hash(name) & (ix->cap - 1); ix->slot[h] >= 0; h = (h + 1) & (ix->cap - 1))
    if (!strcmp(name_at(p, ix->slot[h]), name)) return ix->slot[h];
  return -1;
}

static const char *value_name(const program *p, int i) { return p->values[i].name; }
static const char *var_name(const program *p, int i) { return p->vars[i].name; }

int chk_find_value(program *p, const char *n) { return ix_find(&p->value_ix, p->nvalues, value_name, p, n); }
int chk_find_event(program *p, const char *n) {
  for (int i = 0; i < p->nevents; i++)
    if (!strcmp(p->events[i].name, n)) return i;
  return -1;
}
int chk_find_action(program *p, const char *n) {
  for (int i = 0; i < p->nactions; i++)
    if (!strcmp(p->actions[i].name, n)) return i;
  return -1;
}
/* Is N the action of a rule that is not in force in this rule set (an advanced rule in the Basic
 * game, a rule a variant disabled)?  An `act` may name it: it is never offered. */
static bool action_of_rule_not_in_force(program *p, const char *n) {
  for (int r = 0; r < p->nrules; r++) {
    const rule_rec *rr = &p->rules[r];
    if (!rr->disabled) continue;
    for (uint32_t i = 0; rr->items && i < rr->items->nkids; i++) {
      const node *it = rr->items->kids[i];
      if (it && it->kind == AST_ACTION && it->name && !strcmp(it->name, n)) return true;
    }
  }
  return false;
}
int chk_find_var(program *p, const char *n) { return ix_find(&p->var_ix, p->nvars, var_name, p, n); }
int chk_find_proc(program *p, const char *n) {
  for (int i = 0; i < p->nprocs; i++)
    if (!strcmp(p->procs[i].name, n)) return i;
  return -1;
}
static int find_builtin(const char *n) {
  for (int i = 0; i < BI__COUNT; i++)
    if (!strcmp(sema_builtins[i].name, n)) return i;
  return -1;
}
int chk_find_named_rule(program *p, const char *n) {
  for (int i = 0; i < p->nrules; i++)
    if (p->rules[i].name && !p->rules[i].disabled && !strcmp(p->rules[i].name, n)) return i;
  return -1;
}

void chk_cand(cands *cs, const char *s) { VEC_PUSH(cs->v, cs->n, cs->cap, s); }

/* Every name a NAME could mean here, for suggestions. */
static void all_names(chk *c, cands *cs, bool callables_only) {
  const board_def *def = c->def;
  for (int i = 0; i < BI__COUNT; i++) chk_cand(cs, sema_builtins[i].name);
  for (int i = 0; i < c->p->nvalues; i++) chk_cand(cs, c->p->values[i].name);
  for (int i = 0; i < c->p->nvars; i++) chk_cand(cs, c->p->vars[i].name);
  if (callables_only) return;
  for (int i = 0; i < c->nlocals; i++) chk_cand(cs, c->locals[i].name);
  for (int i = 0; i < def->nfactions; i++) chk_cand(cs, def->factions[i].id);
  for (int i = 0; i < def->nareas; i++) chk_cand(cs, def->areas[i].id);
  for (int i = 0; i < def->ncards; i++) chk_cand(cs, def->cards[i].id);
  for (int i = 0; i < def->nleaders; i++) chk_cand(cs, def->leaders[i].id);
  for (int i = 0; i < def->nkinds; i++) chk_cand(cs, def->kinds[i]);
  for (int i = 0; i < def->npools; i++) chk_cand(cs, def->pools[i].name);
  for (int i = 0; i < def->npiles; i++) chk_cand(cs, def->piles[i].name);
  for (int i = 0; i < def->ntags; i++) chk_cand(cs, def->tags[i]);
}

/* The rule not in force (an advanced rule in the Basic game, a rule a variant
 * disabled) that declares NAME -- a value, action, procedure, phase or step -- or -1. */
static int declared_out_of_force(const program *p, const char *name) {
  for (int r = 0; r < p->nrules; r++) {
    const rule_rec *rr = &p->rules[r];
    if (!rr->disabled) continue;
    if (rr->name && !strcmp(rr->name, name)) return r;
    for (uint32_t i = 0; rr->items && i < rr->items->nkids; i++) {
      const node *it = rr->items->kids[i];
      if (it && it->name && !strcmp(it->name, name) &&
          ((it->kind == AST_VALUE && it->kids[1]) || it->kind == AST_ACTION || it->kind == AST_PROC))
        return r;
    }
  }
  return -1;
}

void chk_unknown(chk *c, mt_span at, const char *what, const char *name, cands *cs) {
  const char *s = diag_suggest(name, cs->v, cs->n);
  if (s) diag_error(c->d, at, "unknown %s '%s' (did you mean '%s'?)", what, name, s);
  else diag_error(c->d, at, "unknown %s '%s'", what, name);
  mt_free(cs->v);
  int r = declared_out_of_force(c->p, name);
  if (r < 0) return;
  bool adv = false;
  for (int q = r, depth = 0; q >= 0 && depth < 1000; q = c->p->rules[q].parent, depth++) adv |= (c->p->rules[q].tags & TAG_ADVANCED) != 0;
  diag_note(c->d, c->p->rules[r].span, "'%s' is declared by rule %s, which is not in force in this rule set (%s)", name,
            c->p->rules[r].id, adv ? "it is tagged advanced: the Advanced game has it" : "a variant disables it");
}

/* Whether some rule, in force or not, says an action is of kind K (`is K`). */
static bool kind_declared(const program *p, const char *kind) {
  for (int r = 0; r < p->nrules; r++) {
    const rule_rec *rr = &p->rules[r];
    for (uint32_t i = 0; rr->items && i < rr->items->nkids; i++) {
      const node *it = rr->items->kids[i];
      if (!it || (it->kind != AST_ACTION && it->kind != AST_CHECK)) continue;
      const node *items = it->kids[it->kind == AST_ACTION ? 1 : 2];
      for (uint32_t j = 0; items && j < items->nkids; j++) {
        const node *x = items->kids[j];
        if (!x || x->kind != AST_KINDS) continue;
        for (uint32_t k = 0; k < x->nkids; k++)
          if (!strcmp(x->kids[k]->name, kind)) return true;
      }
    }
  }
  return false;
}

static bool action_is(const action_rec *ar, const char *k) {
  for (int i = 0; i < ar->nkinds; i++)
    if (!strcmp(ar->kinds[i], k)) return true;
  return false;
}

/* Adds the kinds of an `is` item to action AR (once each). */
void chk_add_kinds(chk *c, action_rec *ar, const node *is) {
  for (uint32_t k = 0; k < is->nkids; k++) {
    const char *name = is->kids[k]->name;
    if (action_is(ar, name)) continue;
    if (ar->nkinds == MAX_KINDS) {
      diag_error(c->d, is->kids[k]->span, "action '%s' is of too many kinds (the limit is %d)", ar->name, MAX_KINDS);
      return;
    }
    ar->kinds[ar->nkinds++] = name;
  }
}

/* The action list of an `act` decision or a `can` test: each named action,
 * and for `any K` every action of kind K in force, in declaration order,
 * each once.  An action of a rule not in force is left out. */
static int action_list(chk *c, node *names) {
  program *p = c->p;
  int cap = (int)names->nkids + p->nactions + 1, nlisted = 0;
  int *list = mt_calloc((size_t)cap, sizeof *list);
  for (uint32_t i = 0; i < names->nkids; i++) {
    node *nm = names->kids[i];
    if (nm->ival == 1) { /* any KIND */
      int found = 0;
      for (int a = 0; a < p->nactions; a++) {
        if (!action_is(&p->actions[a], nm->name)) continue;
        found++;
        bool dup = false;
        for (int j = 0; j < nlisted && !dup; j++) dup = list[j] == a;
        if (!dup) list[nlisted++] = a;
      }
      if (!found && !kind_declared(p, nm->name)) {
        cands cs = {0};
        for (int a = 0; a < p->nactions; a++)
          for (int k = 0; k < p->actions[a].nkinds; k++) chk_cand(&cs, p->actions[a].kinds[k]);
        chk_unknown(c, nm->span, "kind of action", nm->name, &cs);
      }
      continue;
    }
    int a = chk_find_action(p, nm->name);
    if (a < 0 && action_of_rule_not_in_force(p, nm->name)) continue; /* never offered */
    if (a < 0) {
      cands cs = {0};
      for (int k = 0; k < p->nactions; k++) chk_cand(&cs, p->actions[k].name);
      chk_unknown(c, nm->span, "action", nm->name, &cs);
    }
    bool dup = false;
    for (int j = 0; j < nlisted && !dup; j++) dup = a >= 0 && list[j] == a;
    if (!dup) list[nlisted++] = a;
  }
  int id = p->nlists;
  VEC_GROW(p->lists, p->nlists, p->caplists);
  p->nlist = mt_realloc(p->nlist, (size_t)p->caplists * sizeof *p->nlist);
  p->lists[p->nlists] = list;
  p->nlist[p->nlists++] = nlisted;
  return id;
}

/* Entity constants named NAME, preferring the expected type WANT. */
/* Every kind of entity NAME names (a territory, a faction, a leader, ...). */
static void entity_lookup(const board_def *def, const char *name, struct ent_memo *m) {
  int k;
  m->n = 0;
  if ((k = board_area_index(def, name)) >= 0) m->found[m->n].ty = TY_TERRITORY, m->found[m->n++].idx = k;
  if ((k = board_faction_index(def, name)) >= 0) m->found[m->n].ty = TY_FACTION, m->found[m->n++].idx = k;
  if ((k = board_leader_index(def, name)) >= 0) m->found[m->n].ty = TY_LEADER, m->found[m->n++].idx = k;
  if ((k = board_kind_index(def, name)) >= 0) m->found[m->n].ty = TY_KIND, m->found[m->n++].idx = k;
  if ((k = board_pool_index(def, name)) >= 0) m->found[m->n].ty = TY_POOL, m->found[m->n++].idx = k;
  if ((k = board_pile_index(def, name)) >= 0) m->found[m->n].ty = TY_PILENAME, m->found[m->n++].idx = k;
  if ((k = board_tag_index(def, name)) >= 0) m->found[m->n].ty = TY_TAG, m->found[m->n++].idx = k;
  if ((k = board_card_index(def, name)) >= 0) m->found[m->n].ty = TY_CARD, m->found[m->n++].idx = k;
}

bool chk_entity_const(chk *c, const char *name, int want, int *ty, int64_t *val) {
  uint32_t h = 2166136261u;
  for (const char *q = name; *q; q++) h = (h ^ (uint8_t)*q) * 16777619u;
  struct ent_memo *m = NULL, scratch;
  uint32_t at = h & 511u;
  while (c->ents[at].name && strcmp(c->ents[at].name, name) != 0) at = (at + 1) & 511u;
  if (c->ents[at].name) {
    m = &c->ents[at]; /* seen before */
  } else {
    m = c->nents < 384 ? &c->ents[at] : &scratch; /* past three quarters full: looked up each time */
    entity_lookup(c->def, name, m);
    if (m != &scratch) m->name = name, c->nents++;
  }
  if (m->n == 0) return false;
  int pick = 0;
  for (int i = 0; i < m->n; i++)
    if (m->found[i].ty == want) pick = i;
  *ty = m->found[pick].ty;
  *val = m->found[pick].idx;
  return true;
}

/* ---- expressions ---------------------------------------------------------- */

static void need_effects(chk *c, node *n, const char *what) {
  if (c->kind == FN_PURE)
    diag_error(c->d, n->span, "%s has an effect and cannot be used in a value, guard, cost or where-clause", what);
}

static int elem_of(int ty) { return ty == TY_RANGE ? TY_INT : ty == TY_PILE ? TY_CARD : (ty & TY_SETBIT) ? ty & ~TY_SETBIT : TY_ERROR; }

/* A set, a range or a pile: what `for` and aggregates iterate. */
static int check_iterable(chk *c, node *n, bool pile_ok) {
  int ty = chk_check_expr(c, n, TY_ERROR);
  if (ty == TY_ERROR) return TY_ERROR;
  if (ty == TY_RANGE || (ty & TY_SETBIT) || (pile_ok && ty == TY_PILE)) return ty;
  diag_error(c->d, n->span, "cannot iterate over %s (expected a set, a range a..b%s)", TN(ty),
             pile_ok ? " or a pile" : "");
  return TY_ERROR;
}

/* The enum whose value list is VALUES (registered from the data), or -1. */
static int enum_of(const program *p, char *const *values) {
  for (int i = 0; i < p->nenums; i++)
    if (p->enums[i].values == values) return i;
  return -1;
}

static void add_enum(program *p, const char *name, char *const *values, int n) {
  if (enum_of(p, values) >= 0) return;
  enum_rec e = {name, values, n};
  VEC_PUSH(p->enums, p->nenums, p->capenums, e);
}

/* Every enumeration of the data; the leader statuses are enum 0. */
void chk_data_enums(program *p) {
  const board_def *def = p->def;
  add_enum(p, "leader status", def->leader_status, def->nleader_status);
  for (int i = 0; i < def->narea_attrs; i++)
    if (def->area_attrs[i].type == BT_ENUM) add_enum(p, def->area_attrs[i].name, def->area_attrs[i].values, def->area_attrs[i].nvalues);
  for (int i = 0; i < def->nfaction_attrs; i++)
    if (def->faction_attrs[i].type == BT_ENUM) add_enum(p, def->faction_attrs[i].name, def->faction_attrs[i].values, def->faction_attrs[i].nvalues);
  for (int i = 0; i < def->ncard_attrs; i++)
    if (def->card_attrs[i].type == BT_ENUM) add_enum(p, def->card_attrs[i].name, def->card_attrs[i].values, def->card_attrs[i].nvalues);
  for (int i = 0; i < def->nvars; i++)
    if (def->vars[i].type == BT_ENUM) add_enum(p, def->vars[i].name, def->vars[i].values, def->vars[i].nvalues);
}

int chk_enum_type(const program *p, char *const *values) {
  int e = enum_of(p, values);
  return e < 0 ? TY_INT : TY_ENUM0 + e;
}

int chk_var_type_of_board(board_type t) {
  switch (t) {
  case BT_INT: return TY_INT;
  case BT_BOOL: return TY_BOOL;
  case BT_AREA: return TY_TERRITORY;
  case BT_SECTOR: return TY_SECTOR;
  case BT_FACTION: return TY_FACTION;
  case BT_LEADER: return TY_LEADER;
  case BT_CARD: return TY_CARD;
  case BT_PILE: return TY_PILE;
  case BT_LOC: return TY_LOC;
  case BT_ENUM:
  case BT_NAME: return TY_INT;
  }
  return TY_INT;
}

static void check_args(chk *c, node *call, int nparams, const int *ptypes, const char *what, uint32_t first) {
  uint32_t given = call->nkids - first;
  if ((int)given != nparams) {
    diag_error(c->d, call->span, "%s takes %d argument%s, %u given", what, nparams, nparams == 1 ? "" : "s", given);
    for (uint32_t i = first; i < call->nkids; i++) chk_check_expr(c, call->kids[i], TY_ERROR);
    return;
  }
  for (int i = 0; i < nparams; i++) {
    node *a = call->kids[first + (uint32_t)i];
    int want = ptypes[i];
    int got = chk_check_expr(c, a, want == TY_SETBIT ? TY_ERROR : want);
    if (want == TY_SETBIT) {
      if (got != TY_ERROR && !(got & TY_SETBIT))
        diag_error(c->d, a->span, "argument %d of %s must be a set, found %s", i + 1, what, TN(got));
    } else if (want == TY_SECTOR && got == TY_INT && a->kind == AST_INT) {
      if (a->ival < 0 || a->ival >= c->def->nsectors)
        diag_error(c->d, a->span, "sector %lld is out of range (0..%d)", (long long)a->ival, c->def->nsectors - 1);
    } else if (!chk_compatible(want, got)) {
      diag_error(c->d, a->span, "argument %d of %s must be %s, found %s", i + 1, what, TN(want), TN(got));
    }
  }
}

/* A card named by its id stands for its first copy.  Where a built-in needs
 * one particular card (holds, put, pile_of) and the name has several copies,
 * the rule almost surely means "a copy of": the first copy alone would make
 * the second copy unplayable and move a copy from someone else's hand.  An
 * error, naming the construct that says it (copy_in). */
static void one_copy_meant(chk *c, const node *arg, const char *fn) {
  if (!arg || arg->op != REF_CONST || arg->ty != TY_CARD || arg->ival < 0 || arg->ival >= c->def->ncards) return;
  const board_card *card = &c->def->cards[arg->ival];
  if (card->ninstances < 2) return;
  if (!strcmp(fn, "=="))
    diag_error(c->d, arg->span, "card '%s' has %d copies: comparing with the name matches its first copy only; any copy is base_card(x) == %s",
               card->id, card->ninstances, card->id);
  else
    diag_error(c->d, arg->span,
               "card '%s' has %d copies: %s(...) of the name means its first copy only; a copy of it in a pile is copy_in(pile, %s)",
               card->id, card->ninstances, fn, card->id);
}

/* Is N a call of base_card (which names the first copy on purpose)? */
static bool is_base_card_call(const node *n) { return n && n->op == CALL_BUILTIN && n->sym == BI_base_card; }

static int check_call(chk *c, node *n) {
  program *p = c->p;
  int k;
  if (!strcmp(n->name, "total")) { /* total(NAME): an integer variable summed over all its indices */
    n->op = CALL_TOTAL;
    node *a = n->nkids == 1 ? n->kids[0] : NULL;
    if (!a || a->kind != AST_NAME) {
      diag_error(c->d, n->span, "total takes the name of an integer variable: total(NAME)");
      return TY_ERROR;
    }
    if ((k = chk_find_var(p, a->name)) < 0) {
      cands cs = {0};
      for (int i = 0; i < p->nvars; i++)
        if (p->vars[i].type == TY_INT) chk_cand(&cs, p->vars[i].name);
      chk_unknown(c, a->span, "integer variable", a->name, &cs);
      return TY_ERROR;
    }
    if (p->vars[k].type != TY_INT || p->vars[k].width != 1) {
      diag_error(c->d, a->span, "total sums an integer variable; '%s' holds %s", a->name, TN(p->vars[k].type));
      return TY_ERROR;
    }
    n->sym = k;
    a->ty = TY_INT;
    return TY_INT;
  }
  if (!strcmp(n->name, "attr")) {
    n->op = CALL_ATTR;
    if (n->nkids != 2 || !n->kids[1] || n->kids[1]->kind != AST_NAME) {
      diag_error(c->d, n->span, "attr takes an object and an attribute name: attr(x, NAME)");
      return TY_ERROR;
    }
    int ot = chk_check_expr(c, n->kids[0], TY_ERROR);
    const board_attr *tab = NULL;
    int nt = 0;
    if (ot == TY_TERRITORY) tab = c->def->area_attrs, nt = c->def->narea_attrs, n->ival = ATTR_AREA;
    else if (ot == TY_FACTION) tab = c->def->faction_attrs, nt = c->def->nfaction_attrs, n->ival = ATTR_FACTION;
    else if (ot == TY_CARD) tab = c->def->card_attrs, nt = c->def->ncard_attrs, n->ival = ATTR_CARD;
    else {
      if (ot != TY_ERROR) diag_error(c->d, n->kids[0]->span, "attributes belong to territories, factions and cards, not %s", TN(ot));
      return TY_ERROR;
    }
    for (int i = 0; i < nt; i++)
      if (!strcmp(tab[i].name, n->kids[1]->name)) {
        n->sym = i;
        n->kids[1]->ty = TY_ATTR;
        return tab[i].type == BT_ENUM ? chk_enum_type(c->p, tab[i].values) : chk_var_type_of_board(tab[i].type);
      }
    cands cs = {0};
    for (int i = 0; i < nt; i++) chk_cand(&cs, tab[i].name);
    chk_unknown(c, n->kids[1]->span, ot == TY_TERRITORY ? "territory attribute" : ot == TY_FACTION ? "faction attribute" : "card attribute",
            n->kids[1]->name, &cs);
    return TY_ERROR;
  }
  if ((k = chk_find_value(p, n->name)) >= 0) {
    n->op = CALL_VALUE;
    n->sym = k;
    check_args(c, n, p->values[k].nparams, p->values[k].ptype, n->name, 0);
    return p->values[k].ret;
  }
  if ((k = chk_find_var(p, n->name)) >= 0) {
    n->op = CALL_VAR;
    n->sym = k;
    check_args(c, n, p->vars[k].nparams, p->vars[k].ptype, n->name, 0);
    return p->vars[k].type;
  }
  if ((k = find_builtin(n->name)) >= 0) {
    const builtin_info *b = &sema_builtins[k];
    n->op = CALL_BUILTIN;
    n->sym = k;
    if (b->effect) need_effects(c, n, n->name);
    check_args(c, n, b->nargs, b->args, n->name, 0);
    if (k == BI_holds || k == BI_put || k == BI_pile_of) one_copy_meant(c, n->kids[k == BI_holds ? 1 : 0], n->name);
    if (k == BI_first || k == BI_random_member) {
      int st = n->nkids == 1 ? n->kids[0]->ty : TY_ERROR;
      return (st & TY_SETBIT) ? st & ~TY_SETBIT : TY_ERROR;
    }
    return b->ret;
  }
  if (chk_find_event(p, n->name) >= 0) {
    diag_error(c->d, n->span, "'%s' is an event: raise it with 'signal %s(...)'", n->name, n->name);
    return TY_ERROR;
  }
  if (chk_find_action(p, n->name) >= 0) {
    diag_error(c->d, n->span, "'%s' is an action: players take it with 'act FACTION: %s'", n->name, n->name);
    return TY_ERROR;
  }
  cands cs = {0};
  all_names(c, &cs, true);
  chk_unknown(c, n->span, "value or function", n->name, &cs);
  for (uint32_t i = 0; i < n->nkids; i++) chk_check_expr(c, n->kids[i], TY_ERROR);
  return TY_ERROR;
}

static int check_name(chk *c, node *n, int want) {
  local *l = find_local(c, n->name);
  if (l) {
    n->op = REF_LOCAL;
    n->slot = l->slot;
    return l->ty;
  }
  if (chk_is_enum(want) && want - TY_ENUM0 < c->p->nenums) {
    const enum_rec *e = &c->p->enums[want - TY_ENUM0];
    for (int i = 0; i < e->nvalues; i++)
      if (!strcmp(e->values[i], n->name)) {
        n->op = REF_CONST;
        n->ival = i;
        return want;
      }
  }
  int ty;
  int64_t v;
  if (chk_entity_const(c, n->name, want, &ty, &v)) {
    n->op = REF_CONST;
    n->ival = v;
    return ty;
  }
  int k;
  if ((k = chk_find_value(c->p, n->name)) >= 0 && c->p->values[k].nparams == 0) {
    n->op = REF_VALUE;
    n->sym = k;
    return c->p->values[k].ret;
  }
  if ((k = chk_find_var(c->p, n->name)) >= 0 && c->p->vars[k].nparams == 0) {
    n->op = REF_VAR;
    n->sym = k;
    return c->p->vars[k].type;
  }
  if ((k = find_builtin(n->name)) >= 0 && sema_builtins[k].nargs == 0) {
    n->op = REF_BUILTIN;
    n->sym = k;
    if (sema_builtins[k].effect) need_effects(c, n, n->name);
    return sema_builtins[k].ret;
  }
  if (k >= 0 || chk_find_value(c->p, n->name) >= 0 || chk_find_var(c->p, n->name) >= 0) {
    diag_error(c->d, n->span, "'%s' needs arguments", n->name);
    return TY_ERROR;
  }
  cands cs = {0};
  all_names(c, &cs, false);
  if (chk_is_enum(want) && want - TY_ENUM0 < c->p->nenums)
    for (int i = 0; i < c->p->enums[want - TY_ENUM0].nvalues; i++) chk_cand(&cs, c->p->enums[want - TY_ENUM0].values[i]);
  chk_unknown(c, n->span, chk_is_enum(want) ? "value" : "name", n->name, &cs);
  return TY_ERROR;
}

static int check_binary(chk *c, node *n) {
  node *a = n->kids[0], *b = n->kids[1];
  int op = n->op;
  if (op == BOP_AND || op == BOP_OR) {
    chk_expect(c, a, TY_BOOL, chk_check_expr(c, a, TY_BOOL));
    chk_expect(c, b, TY_BOOL, chk_check_expr(c, b, TY_BOOL));
    return TY_BOOL;
  }
  if (op == BOP_IN) {
    int tb = chk_check_expr(c, b, TY_ERROR);
    int ta = chk_check_expr(c, a, elem_of(tb));
    if (tb == TY_ERROR || ta == TY_ERROR) return TY_BOOL;
    if (tb == TY_RANGE) chk_expect(c, a, TY_INT, ta);
    else if ((tb & ~TY_SETBIT) == TY_SECTOR && ta == TY_INT) (void)0; /* sectors are numbered */
    else if (tb & TY_SETBIT) chk_expect(c, a, tb & ~TY_SETBIT, ta);
    else diag_error(c->d, b->span, "'in' needs a set or a range on the right, found %s", TN(tb));
    return TY_BOOL;
  }
  int ta, tb;
  if (a->kind == AST_NAME && b->kind != AST_NAME && (op == BOP_EQ || op == BOP_NE)) {
    /* `weapon == attr(c, class)`: the right side tells what the name means */
    tb = chk_check_expr(c, b, TY_ERROR);
    ta = chk_check_expr(c, a, tb);
  } else {
    ta = chk_check_expr(c, a, TY_ERROR);
    tb = chk_check_expr(c, b, (ta & TY_SETBIT) ? (ta & ~TY_SETBIT) : ta);
  }
  if (ta == TY_ERROR || tb == TY_ERROR) return op == BOP_EQ || op == BOP_NE || op == '<' || op == '>' || op == BOP_LE || op == BOP_GE ? TY_BOOL : TY_ERROR;
  if (op == BOP_EQ || op == BOP_NE) {
    if (ta == TY_NONE && tb != TY_NONE && a->kind == AST_NONE) a->ty = tb;
    if (!chk_compatible(ta, tb) && !(ta == TY_SECTOR && tb == TY_INT) && !(ta == TY_INT && tb == TY_SECTOR))
      diag_error(c->d, n->span, "cannot compare %s with %s", TN(ta), TN(tb));
    if (ta == TY_CARD && tb == TY_CARD) { /* `c == karama` matches the first copy only: base_card(c) == karama */
      if (!is_base_card_call(b)) one_copy_meant(c, a, "==");
      if (!is_base_card_call(a)) one_copy_meant(c, b, "==");
    }
    return TY_BOOL;
  }
  if (op == '<' || op == '>' || op == BOP_LE || op == BOP_GE) {
    /* Values of one enumeration (factions, territories, leaders, declared enums) are ordered as
     * they are declared; none comes before all of them. */
    bool ordered = (chk_is_enum(ta) || ta == TY_FACTION || ta == TY_TERRITORY || ta == TY_LEADER) &&
                   (tb == ta || tb == TY_NONE);
    if (!ordered && (chk_is_enum(tb) || tb == TY_FACTION || tb == TY_TERRITORY || tb == TY_LEADER) && ta == TY_NONE)
      ordered = true;
    if (!ordered && !((ta == TY_INT || ta == TY_SECTOR) && (tb == TY_INT || tb == TY_SECTOR)))
      diag_error(c->d, n->span, "'%s' compares integers or values of one enumeration, not %s and %s",
                 op == '<' ? "<" : op == '>' ? ">" : op == BOP_LE ? "<=" : ">=", TN(ta), TN(tb));
    return TY_BOOL;
  }
  if (ta & TY_SETBIT) {
    int e = ta & ~TY_SETBIT;
    if (op == '+' || op == '-' || op == '|' || op == '&') {
      if (tb == ta || (op != '&' && chk_compatible(e, tb) && tb != TY_NONE)) {
        n->flags = tb == ta ? 0 : 1; /* 1: the right side is one element */
        return ta;
      }
      diag_error(c->d, n->span, "cannot combine %s with %s", TN(ta), TN(tb));
      return TY_ERROR;
    }
    diag_error(c->d, n->span, "sets combine with + or | (union), - (difference) and & (intersection)");
    return TY_ERROR;
  }
  if (op == '&' || op == '|') {
    diag_error(c->d, n->span, "'%c' combines sets, not %s", op, TN(ta));
    return TY_ERROR;
  }
  /* sectors are numbered: arithmetic on them gives plain integers */
  if ((ta != TY_INT && ta != TY_SECTOR) || (tb != TY_INT && tb != TY_SECTOR)) {
    diag_error(c->d, n->span, "arithmetic needs integers, found %s and %s", TN(ta), TN(tb));
    return TY_ERROR;
  }
  if ((op == '/' || op == '%') && b->kind == AST_INT && b->ival == 0)
    diag_error(c->d, b->span, "division by zero");
  return TY_INT;
}

/* Splits "text {name} text" into name nodes (kids of the AST_STR).  A hole
 * {name/N} shows the integer name divided by N as an exact decimal: N (kept in
 * the node's flags) is 2..HOLE_DIVISOR_MAX and has no prime factors but 2 and 5. */
#define HOLE_DIVISOR_MAX 10000
static void check_format(chk *c, node *s) {
  const char *t = s->str;
  for (const char *q = t; *q; q++) {
    if (*q != '{') continue;
    const char *e = strchr(q, '}');
    if (!e) break;
    const char *slash = memchr(q + 1, '/', (size_t)(e - q - 1));
    const char *end = slash ? slash : e;
    uint32_t off = s->span.start + 1 + (uint32_t)(q - t);
    node *nm = ast_new(c->a, AST_NAME, (mt_span){s->span.file, off + 1, off + 1 + (uint32_t)(end - q - 1)});
    nm->name = arena_strndup(c->a, q + 1, (size_t)(end - q - 1));
    ast_add(c->a, s, nm);
    nm->ty = check_name(c, nm, TY_ERROR);
    if (slash) {
      mt_span dspan = {s->span.file, off + 1 + (uint32_t)(slash - q), off + (uint32_t)(e - q)};
      long long n = 0;
      bool digits = slash + 1 < e;
      for (const char *d = slash + 1; d < e && digits; d++) {
        if (*d < '0' || *d > '9') digits = false;
        else if ((n = n * 10 + (*d - '0')) > HOLE_DIVISOR_MAX) n = HOLE_DIVISOR_MAX + 1;
      }
      long long m = n;
      while (m > 1 && m % 2 == 0) m /= 2;
      while (m > 1 && m % 5 == 0) m /= 5;
      if (!digits || n < 2 || n > HOLE_DIVISOR_MAX || m != 1)
        diag_error(c->d, dspan, "a hole {%s/N} divides by a number N from 2 to %d whose only prime factors are 2 and 5 "
                   "(so that the quotient is an exact decimal: 2, 4, 10, 100, ...)", nm->name, HOLE_DIVISOR_MAX);
      else if (nm->ty != TY_ERROR && nm->ty != TY_INT)
        diag_error(c->d, nm->span, "a hole {%s/%lld} divides an integer, but %s is %s", nm->name, n, nm->name, TN(nm->ty));
      else
        nm->flags = (uint32_t)n;
    }
    q = e;
  }
}

int chk_check_expr(chk *c, node *n, int want) {
  if (!n) return TY_ERROR;
  int ty = TY_ERROR;
  switch (n->kind) {
  case AST_INT: ty = TY_INT; break;
  case AST_BOOL: ty = TY_BOOL; break;
  case AST_NONE: ty = TY_NONE; break;
  case AST_STR: ty = TY_STR; break;
  case AST_NAME: ty = check_name(c, n, want); break;
  case AST_RULEREF: {
    int r = sema_find_rule(c->p, n->name);
    if (r < 0) {
      cands cs = {0};
      for (int i = 0; i < c->p->nrules; i++) chk_cand(&cs, c->p->rules[i].id);
      chk_unknown(c, n->span, "rule", n->name, &cs);
    }
    n->ival = r;
    ty = TY_RULE;
    break;
  }
  case AST_CALL: ty = check_call(c, n); break;
  case AST_UNARY:
    if (n->op == BOP_NOT) {
      chk_expect(c, n->kids[0], TY_BOOL, chk_check_expr(c, n->kids[0], TY_BOOL));
      ty = TY_BOOL;
    } else {
      chk_expect(c, n->kids[0], TY_INT, chk_check_expr(c, n->kids[0], TY_INT));
      ty = TY_INT;
    }
    break;
  case AST_BINARY: ty = check_binary(c, n); break;
  case AST_COND: {
    chk_expect(c, n->kids[0], TY_BOOL, chk_check_expr(c, n->kids[0], TY_BOOL));
    int a = chk_check_expr(c, n->kids[1], want);
    int b = chk_check_expr(c, n->kids[2], a == TY_NONE ? want : a);
    if (!chk_compatible(a, b)) diag_error(c->d, n->span, "the branches of ?: have different types (%s and %s)", TN(a), TN(b));
    ty = a == TY_NONE ? b : a;
    break;
  }
  case AST_SETLIT: {
    int e = (want & TY_SETBIT) ? want & ~TY_SETBIT : TY_ERROR;
    for (uint32_t i = 0; i < n->nkids; i++) {
      int t = chk_check_expr(c, n->kids[i], e);
      if (e == TY_ERROR || e == TY_NONE) e = t;
      else if (!chk_compatible(e, t)) diag_error(c->d, n->kids[i]->span, "set members must all be %s, found %s", TN(e), TN(t));
    }
    if (n->nkids == 0 && e == TY_ERROR) {
      diag_error(c->d, n->span, "cannot tell the type of an empty set here");
      ty = TY_ERROR;
    } else {
      ty = chk_set_of(c, e, n->span);
    }
    break;
  }
  case AST_COMPREHENSION: {
    int st = check_iterable(c, n->kids[0], false);
    int save = c->nlocals;
    n->slot = chk_declare(c, n->name, st == TY_ERROR ? TY_ERROR : elem_of(st), n->span);
    if (n->kids[1]) chk_expect(c, n->kids[1], TY_BOOL, chk_check_expr(c, n->kids[1], TY_BOOL));
    c->nlocals = save;
    ty = st == TY_RANGE ? chk_set_of(c, TY_INT, n->span) : st;
    break;
  }
  case AST_AGGREGATE: {
    int st = check_iterable(c, n->kids[0], true);
    int save = c->nlocals;
    n->slot = chk_declare(c, n->name, st == TY_ERROR ? TY_ERROR : elem_of(st), n->span);
    if (n->kids[1]) chk_expect(c, n->kids[1], TY_BOOL, chk_check_expr(c, n->kids[1], TY_BOOL));
    int et = n->op == AGG_ANY || n->op == AGG_ALL ? TY_BOOL : TY_INT;
    chk_expect(c, n->kids[2], et, chk_check_expr(c, n->kids[2], et));
    c->nlocals = save;
    ty = et;
    if (n->op == AGG_MINBY || n->op == AGG_MAXBY) { /* the member itself, or none */
      if (st == TY_RANGE) {
        diag_error(c->d, n->kids[0]->span, "%s picks a member of a set or pile (over a range it would have no 'none'); use %s",
                   n->op == AGG_MINBY ? "min_by" : "max_by", n->op == AGG_MINBY ? "min_of" : "max_of");
        ty = TY_ERROR;
      } else ty = st == TY_ERROR ? TY_ERROR : elem_of(st);
    }
    break;
  }
  case AST_RANGE:
    chk_expect(c, n->kids[0], TY_INT, chk_check_expr(c, n->kids[0], TY_INT));
    chk_expect(c, n->kids[1], TY_INT, chk_check_expr(c, n->kids[1], TY_INT));
    ty = TY_RANGE;
    break;
  case AST_CAN:
    if (c->kind == FN_PURE)
      diag_error(c->d, n->span, "can judges actions' guards and cannot be used in a value, guard or cost; "
                                "use it in a statement or a trigger");
    chk_expect(c, n->kids[0], TY_FACTION, chk_check_expr(c, n->kids[0], TY_FACTION));
    n->sym = action_list(c, n->kids[1]);
    ty = TY_BOOL;
    break;
  case AST_ASK: {
    need_effects(c, n, "ask");
    chk_expect(c, n->kids[0], TY_FACTION, chk_check_expr(c, n->kids[0], TY_FACTION));
    check_format(c, n->kids[1]);
    int st = check_iterable(c, n->kids[2], false);
    ty = st == TY_ERROR ? TY_ERROR : elem_of(st);
    break;
  }
  default:
    diag_error(c->d, n->span, "a %s is not an expression", ast_kind_name(n->kind));
    break;
  }
  n->ty = ty;
  return ty;
}

/* ---- statements ------------------------------------------------------------- */

int chk_rule_ref(chk *c, const char *id, mt_span at) {
  int r = sema_find_rule(c->p, id);
  if (r < 0) {
    cands cs = {0};
    for (int i = 0; i < c->p->nrules; i++) chk_cand(&cs, c->p->rules[i].id);
    chk_unknown(c, at, "rule", id, &cs);
  }
  return r;
}

void chk_check_stmt(chk *c, node *s) {
  program *p = c->p;
  switch (s->kind) {
  case AST_LET: {
    int t = chk_check_expr(c, s->kids[0], TY_ERROR);
    if (t == TY_VOID) diag_error(c->d, s->kids[0]->span, "this produces no value");
    if (t == TY_NONE) diag_error(c->d, s->kids[0]->span, "cannot tell the type of 'none' here");
    s->slot = chk_declare(c, s->name, t, s->span);
    break;
  }
  case AST_ASSIGN: {
    node *args = s->kids[0];
    local *l = args->nkids == 0 ? find_local(c, s->name) : NULL;
    if (l) { /* a local: set x = x + 1 */
      s->op = 1;
      s->slot = l->slot;
      int t = chk_check_expr(c, s->kids[1], l->ty);
      if (!chk_compatible(l->ty, t) && !(l->ty == TY_SECTOR && t == TY_INT))
        diag_error(c->d, s->kids[1]->span, "%s holds %s, not %s", s->name, TN(l->ty), TN(t));
      break;
    }
    need_effects(c, s, "set");
    int k = chk_find_var(p, s->name);
    if (k < 0) {
      cands cs = {0};
      for (int i = 0; i < p->nvars; i++) chk_cand(&cs, p->vars[i].name);
      chk_unknown(c, s->span, "variable", s->name, &cs);
      chk_check_expr(c, s->kids[1], TY_ERROR);
      break;
    }
    s->sym = k;
    /* check the index arguments through a call-shaped view */
    node fake = *args;
    fake.span = s->span;
    check_args(c, &fake, p->vars[k].nparams, p->vars[k].ptype, s->name, 0);
    int t = chk_check_expr(c, s->kids[1], p->vars[k].type);
    if (!chk_compatible(p->vars[k].type, t) && !(p->vars[k].type == TY_SECTOR && t == TY_INT))
      diag_error(c->d, s->kids[1]->span, "%s holds %s, not %s", s->name, TN(p->vars[k].type), TN(t));
    break;
  }
  case AST_IF: {
    chk_expect(c, s->kids[0], TY_BOOL, chk_check_expr(c, s->kids[0], TY_BOOL));
    chk_check_block(c, s->kids[1]);
    node *e = ast_kid(s, 2);
    if (e) {
      if (e->kind == AST_IF) chk_check_stmt(c, e);
      else chk_check_block(c, e);
    }
    break;
  }
  case AST_FOR: {
    int st = check_iterable(c, s->kids[0], true);
    int save = c->nlocals;
    s->slot = chk_declare(c, s->name, st == TY_ERROR ? TY_ERROR : elem_of(st), s->span);
    if (s->kids[1]) chk_expect(c, s->kids[1], TY_BOOL, chk_check_expr(c, s->kids[1], TY_BOOL));
    if (s->kids[2]) {
      if (st == TY_PILE || st == TY_RANGE) diag_error(c->d, s->kids[2]->span, "'by' orders the members of a set; piles and ranges have their own order");
      chk_expect(c, s->kids[2], TY_INT, chk_check_expr(c, s->kids[2], TY_INT));
    }
    /* hidden slots the compiler uses for iteration state */
    s->ival = chk_declare(c, NULL, TY_INT, s->span);
    chk_declare(c, NULL, TY_INT, s->span);
    chk_declare(c, NULL, TY_INT, s->span);
    chk_declare(c, NULL, TY_INT, s->span);
    c->loops++;
    chk_check_block(c, s->kids[3]);
    c->loops--;
    c->nlocals = save;
    break;
  }
  case AST_BREAK:
    if (!c->loops) diag_error(c->d, s->span, "'break' outside a loop");
    break;
  case AST_SIGNAL: {
    need_effects(c, s, "signal");
    int e = chk_find_event(p, s->name);
    if (e < 0) {
      cands cs = {0};
      for (int i = 0; i < p->nevents; i++) chk_cand(&cs, p->events[i].name);
      chk_unknown(c, s->span, "event", s->name, &cs);
      break;
    }
    s->sym = e;
    check_args(c, s, p->events[e].nparams, p->events[e].ptype, s->name, 0);
    break;
  }
  case AST_RUN: {
    need_effects(c, s, "run");
    int k = chk_find_proc(p, s->name);
    if (k >= 0) {
      s->op = RUN_PROC;
      s->sym = k;
      check_args(c, s, p->procs[k].nparams, p->procs[k].ptype, s->name, 0);
      break;
    }
    k = chk_find_named_rule(p, s->name);
    if (k >= 0) {
      s->op = RUN_RULE;
      s->sym = k;
      if (s->nkids) diag_error(c->d, s->span, "phase or step '%s' takes no arguments", s->name);
      break;
    }
    cands cs = {0};
    for (int i = 0; i < p->nprocs; i++) chk_cand(&cs, p->procs[i].name);
    for (int i = 0; i < p->nrules; i++)
      if (p->rules[i].name) chk_cand(&cs, p->rules[i].name);
    chk_unknown(c, s->span, "phase, step or procedure", s->name, &cs);
    break;
  }
  case AST_MAY:
    need_effects(c, s, "may");
    chk_expect(c, s->kids[0], TY_FACTION, chk_check_expr(c, s->kids[0], TY_FACTION));
    check_format(c, s->kids[1]);
    chk_check_block(c, s->kids[2]);
    break;
  case AST_ACT:
    need_effects(c, s, "act");
    chk_expect(c, s->kids[0], TY_FACTION, chk_check_expr(c, s->kids[0], TY_FACTION));
    s->sym = action_list(c, s->kids[1]);
    break;
  case AST_SECRET: {
    need_effects(c, s, "secret");
    int st = chk_check_expr(c, s->kids[0], TY_FACTION | TY_SETBIT);
    if (st != TY_ERROR && st != (TY_FACTION | TY_SETBIT))
      diag_error(c->d, s->kids[0]->span, "secret decisions are made by a set of factions, not %s", TN(st));
    int save = c->nlocals;
    s->slot = chk_declare(c, s->name, TY_FACTION, s->span);
    s->ival = chk_declare(c, NULL, TY_INT, s->span);
    chk_check_block(c, s->kids[1]);
    c->nlocals = save;
    break;
  }
  case AST_CANCEL:
    need_effects(c, s, "cancel");
    chk_expect(c, s->kids[0], TY_RULE, chk_check_expr(c, s->kids[0], TY_RULE));
    if (s->kids[0]->kind == AST_RULEREF && s->kids[0]->ival >= 0 &&
        !(p->rules[s->kids[0]->ival].tags & TAG_KARAMA))
      diag_error(c->d, s->kids[0]->span, "rule %s is not karama-tagged: it cannot be cancelled", s->kids[0]->name);
    break;
  case AST_LOG:
    check_format(c, s->kids[0]);
    if (s->nkids > 1) { /* log for S: a set of factions (or one faction) hears it */
      int t = chk_check_expr(c, s->kids[1], TY_FACTION | TY_SETBIT);
      if (t != TY_ERROR && t != (TY_FACTION | TY_SETBIT) && t != TY_FACTION)
        diag_error(c->d, s->kids[1]->span, "'log for' names the factions that hear it: a set of factions, not %s", TN(t));
    }
    break;
  case AST_FINISH: need_effects(c, s, "finish"); break;
  case AST_EXPRSTMT: chk_check_expr(c, s->kids[0], TY_ERROR); break;
  default: diag_error(c->d, s->span, "a %s is not a statement", ast_kind_name(s->kind)); break;
  }
}

void chk_check_block(chk *c, node *blk) {
  int save = c->nlocals;
  for (uint32_t i = 0; blk && i < blk->nkids; i++) {
    node *s = blk->kids[i];
    if (!s) continue;
    if (s->kind == AST_RULE) {
      diag_error(c->d, s->span, "rules are declared in rule bodies, not inside statements");
      continue;
    }
    if (s->kind >= AST_VALUE && s->kind <= AST_INVARIANT && s->kind != AST_BODY && s->kind != AST_PARAM && s->kind != AST_TYPE) {
      diag_error(c->d, s->span, "a %s is declared in a rule body, not inside statements", ast_kind_name(s->kind));
      continue;
    }
    chk_check_stmt(c, s);
  }
  c->nlocals = save;
}

