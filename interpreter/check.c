/* check.c -- names and types (stage 4).  Walks every resolved rule, builds the
 * hook tables (values, events, triggers, actions, checks, variables,
 * procedures), resolves every name (with "did you mean"), types every
 * expression, forbids effects in pure contexts, orders value definitions by
 * precedence and reports static conflicts.  Leaves annotations on the nodes
 * (check.h) for compile.c. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "program.h"

const builtin_info sema_builtins[] = {
#define B(name, ret, eff, n, a0, a1, a2, a3, a4, doc) {#name, ret, eff, n, {a0, a1, a2, a3, a4}, doc},
#include "builtins.def"
#undef B
};
const int sema_nbuiltins = BI__COUNT;

typedef struct local {
  const char *name;
  int slot, ty;
} local;

typedef struct chk {
  program *p;
  diag *d;
  arena *a;
  const board_def *def;
  local locals[MAX_LOCALS];
  int nlocals;  /* visible */
  int nslots;   /* slots used by the current function */
  fn_kind kind; /* what the current expression may do */
  int loops;
  int rule;
  /* entity_const's answers by name: the same ids are looked up again and again */
  struct ent_memo {
    const char *name;
    int n;
    struct { int ty, idx; } found[8];
  } ents[512];
  int nents;
} chk;

static const char *const type_names[] = {"<error>", "int", "bool", "faction", "territory", "sector", "card",
                                         "leader", "kind", "pool", "pile", "pile name", "location", "tag",
                                         "attribute", "rule", "string", "nothing"};
_Static_assert(sizeof type_names / sizeof *type_names == TY__COUNT, "type names");

static const program *naming; /* for enum names in messages */

const char *sema_type_name(int ty, char *buf, size_t n) {
  int e = (ty & ~TY_SETBIT) - TY_ENUM0;
  if (e >= 0 && naming && e < naming->nenums)
    snprintf(buf, n, "%s%s", ty & TY_SETBIT ? "set of " : "", naming->enums[e].name);
  else if (ty == TY_NONE) snprintf(buf, n, "none");
  else if (ty == TY_RANGE) snprintf(buf, n, "range");
  else if (ty & TY_SETBIT) snprintf(buf, n, "set of %s", type_names[(ty & ~TY_SETBIT) % TY__COUNT]);
  else snprintf(buf, n, "%s", ty >= 0 && ty < TY__COUNT ? type_names[ty] : "?");
  return buf;
}
#define TN(ty) sema_type_name((ty), (char[48]){0}, 48)

static bool is_enum(int ty) { return ty >= TY_ENUM0 && ty < TY_SETBIT; }

static bool is_entity(int ty) {
  return is_enum(ty) || ty == TY_FACTION || ty == TY_TERRITORY || ty == TY_SECTOR || ty == TY_CARD || ty == TY_LEADER ||
         ty == TY_KIND || ty == TY_POOL || ty == TY_PILENAME || ty == TY_PILE || ty == TY_TAG || ty == TY_RULE ||
         ty == TY_LOC;
}

/* Can a value of type GOT be used where WANT is expected? */
static bool compatible(int want, int got) {
  if (want == TY_ERROR || got == TY_ERROR) return true;
  if (want == got) return true;
  if (got == TY_NONE && is_entity(want)) return true;
  if (want == TY_NONE && is_entity(got)) return true;
  return false;
}

static int domain_size(chk *c, int ty) {
  if (is_enum(ty)) return ty - TY_ENUM0 < c->p->nenums ? c->p->enums[ty - TY_ENUM0].nvalues : -1;
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

static int set_of(chk *c, int elem, mt_span at) {
  int n = domain_size(c, elem);
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

static void expect(chk *c, node *n, int want, int got) {
  if (!compatible(want, got))
    diag_error(c->d, n->span, "expected %s, found %s", TN(want), TN(got));
}

/* ---- scopes ---------------------------------------------------------- */

static void begin_fn(chk *c, fn_kind k) {
  c->nlocals = 0;
  c->nslots = 0;
  c->kind = k;
  c->loops = 0;
}

static int declare(chk *c, const char *name, int ty, mt_span at) {
  if (c->nslots >= MAX_LOCALS || c->nlocals >= MAX_LOCALS) {
    diag_error(c->d, at, "too many local names in one function (the limit is %d)", MAX_LOCALS);
    return 0;
  }
  local l = {name, c->nslots++, ty};
  c->locals[c->nlocals++] = l;
  return l.slot;
}

/* A name in a slot reserved before (an action's parameters and cost: check_action). */
static void declare_at(chk *c, const char *name, int ty, int slot, mt_span at) {
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

static int find_value(program *p, const char *n) { return ix_find(&p->value_ix, p->nvalues, value_name, p, n); }
static int find_event(program *p, const char *n) {
  for (int i = 0; i < p->nevents; i++)
    if (!strcmp(p->events[i].name, n)) return i;
  return -1;
}
static int find_action(program *p, const char *n) {
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
static int find_var(program *p, const char *n) { return ix_find(&p->var_ix, p->nvars, var_name, p, n); }
static int find_proc(program *p, const char *n) {
  for (int i = 0; i < p->nprocs; i++)
    if (!strcmp(p->procs[i].name, n)) return i;
  return -1;
}
static int find_builtin(const char *n) {
  for (int i = 0; i < BI__COUNT; i++)
    if (!strcmp(sema_builtins[i].name, n)) return i;
  return -1;
}
static int find_named_rule(program *p, const char *n) {
  for (int i = 0; i < p->nrules; i++)
    if (p->rules[i].name && !p->rules[i].disabled && !strcmp(p->rules[i].name, n)) return i;
  return -1;
}

typedef struct cands {
  const char **v;
  size_t n, cap;
} cands;
static void cand(cands *cs, const char *s) { VEC_PUSH(cs->v, cs->n, cs->cap, s); }

/* Every name a NAME could mean here, for suggestions. */
static void all_names(chk *c, cands *cs, bool callables_only) {
  const board_def *def = c->def;
  for (int i = 0; i < BI__COUNT; i++) cand(cs, sema_builtins[i].name);
  for (int i = 0; i < c->p->nvalues; i++) cand(cs, c->p->values[i].name);
  for (int i = 0; i < c->p->nvars; i++) cand(cs, c->p->vars[i].name);
  if (callables_only) return;
  for (int i = 0; i < c->nlocals; i++) cand(cs, c->locals[i].name);
  for (int i = 0; i < def->nfactions; i++) cand(cs, def->factions[i].id);
  for (int i = 0; i < def->nareas; i++) cand(cs, def->areas[i].id);
  for (int i = 0; i < def->ncards; i++) cand(cs, def->cards[i].id);
  for (int i = 0; i < def->nleaders; i++) cand(cs, def->leaders[i].id);
  for (int i = 0; i < def->nkinds; i++) cand(cs, def->kinds[i]);
  for (int i = 0; i < def->npools; i++) cand(cs, def->pools[i].name);
  for (int i = 0; i < def->npiles; i++) cand(cs, def->piles[i].name);
  for (int i = 0; i < def->ntags; i++) cand(cs, def->tags[i]);
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

static void unknown(chk *c, mt_span at, const char *what, const char *name, cands *cs) {
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
static void add_kinds(chk *c, action_rec *ar, const node *is) {
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
          for (int k = 0; k < p->actions[a].nkinds; k++) cand(&cs, p->actions[a].kinds[k]);
        unknown(c, nm->span, "kind of action", nm->name, &cs);
      }
      continue;
    }
    int a = find_action(p, nm->name);
    if (a < 0 && action_of_rule_not_in_force(p, nm->name)) continue; /* never offered */
    if (a < 0) {
      cands cs = {0};
      for (int k = 0; k < p->nactions; k++) cand(&cs, p->actions[k].name);
      unknown(c, nm->span, "action", nm->name, &cs);
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

static bool entity_const(chk *c, const char *name, int want, int *ty, int64_t *val) {
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

static int check_expr(chk *c, node *n, int want);
static void check_block(chk *c, node *blk);

static void need_effects(chk *c, node *n, const char *what) {
  if (c->kind == FN_PURE)
    diag_error(c->d, n->span, "%s has an effect and cannot be used in a value, guard, cost or where-clause", what);
}

static int elem_of(int ty) { return ty == TY_RANGE ? TY_INT : ty == TY_PILE ? TY_CARD : (ty & TY_SETBIT) ? ty & ~TY_SETBIT : TY_ERROR; }

/* A set, a range or a pile: what `for` and aggregates iterate. */
static int check_iterable(chk *c, node *n, bool pile_ok) {
  int ty = check_expr(c, n, TY_ERROR);
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
static void data_enums(program *p) {
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

static int enum_type(const program *p, char *const *values) {
  int e = enum_of(p, values);
  return e < 0 ? TY_INT : TY_ENUM0 + e;
}

static int var_type_of_board(board_type t) {
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
    for (uint32_t i = first; i < call->nkids; i++) check_expr(c, call->kids[i], TY_ERROR);
    return;
  }
  for (int i = 0; i < nparams; i++) {
    node *a = call->kids[first + (uint32_t)i];
    int want = ptypes[i];
    int got = check_expr(c, a, want == TY_SETBIT ? TY_ERROR : want);
    if (want == TY_SETBIT) {
      if (got != TY_ERROR && !(got & TY_SETBIT))
        diag_error(c->d, a->span, "argument %d of %s must be a set, found %s", i + 1, what, TN(got));
    } else if (want == TY_SECTOR && got == TY_INT && a->kind == AST_INT) {
      if (a->ival < 0 || a->ival >= c->def->nsectors)
        diag_error(c->d, a->span, "sector %lld is out of range (0..%d)", (long long)a->ival, c->def->nsectors - 1);
    } else if (!compatible(want, got)) {
      diag_error(c->d, a->span, "argument %d of %s must be %s, found %s", i + 1, what, TN(want), TN(got));
    }
  }
}

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
    if ((k = find_var(p, a->name)) < 0) {
      cands cs = {0};
      for (int i = 0; i < p->nvars; i++)
        if (p->vars[i].type == TY_INT) cand(&cs, p->vars[i].name);
      unknown(c, a->span, "integer variable", a->name, &cs);
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
    int ot = check_expr(c, n->kids[0], TY_ERROR);
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
        return tab[i].type == BT_ENUM ? enum_type(c->p, tab[i].values) : var_type_of_board(tab[i].type);
      }
    cands cs = {0};
    for (int i = 0; i < nt; i++) cand(&cs, tab[i].name);
    unknown(c, n->kids[1]->span, ot == TY_TERRITORY ? "territory attribute" : ot == TY_FACTION ? "faction attribute" : "card attribute",
            n->kids[1]->name, &cs);
    return TY_ERROR;
  }
  if ((k = find_value(p, n->name)) >= 0) {
    n->op = CALL_VALUE;
    n->sym = k;
    check_args(c, n, p->values[k].nparams, p->values[k].ptype, n->name, 0);
    return p->values[k].ret;
  }
  if ((k = find_var(p, n->name)) >= 0) {
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
    if (k == BI_first || k == BI_random_member) {
      int st = n->nkids == 1 ? n->kids[0]->ty : TY_ERROR;
      return (st & TY_SETBIT) ? st & ~TY_SETBIT : TY_ERROR;
    }
    return b->ret;
  }
  if (find_event(p, n->name) >= 0) {
    diag_error(c->d, n->span, "'%s' is an event: raise it with 'signal %s(...)'", n->name, n->name);
    return TY_ERROR;
  }
  if (find_action(p, n->name) >= 0) {
    diag_error(c->d, n->span, "'%s' is an action: players take it with 'act FACTION: %s'", n->name, n->name);
    return TY_ERROR;
  }
  cands cs = {0};
  all_names(c, &cs, true);
  unknown(c, n->span, "value or function", n->name, &cs);
  for (uint32_t i = 0; i < n->nkids; i++) check_expr(c, n->kids[i], TY_ERROR);
  return TY_ERROR;
}

static int check_name(chk *c, node *n, int want) {
  local *l = find_local(c, n->name);
  if (l) {
    n->op = REF_LOCAL;
    n->slot = l->slot;
    return l->ty;
  }
  if (is_enum(want) && want - TY_ENUM0 < c->p->nenums) {
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
  if (entity_const(c, n->name, want, &ty, &v)) {
    n->op = REF_CONST;
    n->ival = v;
    return ty;
  }
  int k;
  if ((k = find_value(c->p, n->name)) >= 0 && c->p->values[k].nparams == 0) {
    n->op = REF_VALUE;
    n->sym = k;
    return c->p->values[k].ret;
  }
  if ((k = find_var(c->p, n->name)) >= 0 && c->p->vars[k].nparams == 0) {
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
  if (k >= 0 || find_value(c->p, n->name) >= 0 || find_var(c->p, n->name) >= 0) {
    diag_error(c->d, n->span, "'%s' needs arguments", n->name);
    return TY_ERROR;
  }
  cands cs = {0};
  all_names(c, &cs, false);
  if (is_enum(want) && want - TY_ENUM0 < c->p->nenums)
    for (int i = 0; i < c->p->enums[want - TY_ENUM0].nvalues; i++) cand(&cs, c->p->enums[want - TY_ENUM0].values[i]);
  unknown(c, n->span, is_enum(want) ? "value" : "name", n->name, &cs);
  return TY_ERROR;
}

static int check_binary(chk *c, node *n) {
  node *a = n->kids[0], *b = n->kids[1];
  int op = n->op;
  if (op == BOP_AND || op == BOP_OR) {
    expect(c, a, TY_BOOL, check_expr(c, a, TY_BOOL));
    expect(c, b, TY_BOOL, check_expr(c, b, TY_BOOL));
    return TY_BOOL;
  }
  if (op == BOP_IN) {
    int tb = check_expr(c, b, TY_ERROR);
    int ta = check_expr(c, a, elem_of(tb));
    if (tb == TY_ERROR || ta == TY_ERROR) return TY_BOOL;
    if (tb == TY_RANGE) expect(c, a, TY_INT, ta);
    else if ((tb & ~TY_SETBIT) == TY_SECTOR && ta == TY_INT) (void)0; /* sectors are numbered */
    else if (tb & TY_SETBIT) expect(c, a, tb & ~TY_SETBIT, ta);
    else diag_error(c->d, b->span, "'in' needs a set or a range on the right, found %s", TN(tb));
    return TY_BOOL;
  }
  int ta, tb;
  if (a->kind == AST_NAME && b->kind != AST_NAME && (op == BOP_EQ || op == BOP_NE)) {
    /* `weapon == attr(c, class)`: the right side tells what the name means */
    tb = check_expr(c, b, TY_ERROR);
    ta = check_expr(c, a, tb);
  } else {
    ta = check_expr(c, a, TY_ERROR);
    tb = check_expr(c, b, (ta & TY_SETBIT) ? (ta & ~TY_SETBIT) : ta);
  }
  if (ta == TY_ERROR || tb == TY_ERROR) return op == BOP_EQ || op == BOP_NE || op == '<' || op == '>' || op == BOP_LE || op == BOP_GE ? TY_BOOL : TY_ERROR;
  if (op == BOP_EQ || op == BOP_NE) {
    if (ta == TY_NONE && tb != TY_NONE && a->kind == AST_NONE) a->ty = tb;
    if (!compatible(ta, tb) && !(ta == TY_SECTOR && tb == TY_INT) && !(ta == TY_INT && tb == TY_SECTOR))
      diag_error(c->d, n->span, "cannot compare %s with %s", TN(ta), TN(tb));
    return TY_BOOL;
  }
  if (op == '<' || op == '>' || op == BOP_LE || op == BOP_GE) {
    /* Values of one enumeration (factions, territories, leaders, declared enums) are ordered as
     * they are declared; none comes before all of them. */
    bool ordered = (is_enum(ta) || ta == TY_FACTION || ta == TY_TERRITORY || ta == TY_LEADER) &&
                   (tb == ta || tb == TY_NONE);
    if (!ordered && (is_enum(tb) || tb == TY_FACTION || tb == TY_TERRITORY || tb == TY_LEADER) && ta == TY_NONE)
      ordered = true;
    if (!ordered && !((ta == TY_INT || ta == TY_SECTOR) && (tb == TY_INT || tb == TY_SECTOR)))
      diag_error(c->d, n->span, "'%s' compares integers or values of one enumeration, not %s and %s",
                 op == '<' ? "<" : op == '>' ? ">" : op == BOP_LE ? "<=" : ">=", TN(ta), TN(tb));
    return TY_BOOL;
  }
  if (ta & TY_SETBIT) {
    int e = ta & ~TY_SETBIT;
    if (op == '+' || op == '-' || op == '|' || op == '&') {
      if (tb == ta || (op != '&' && compatible(e, tb) && tb != TY_NONE)) {
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

static int check_expr(chk *c, node *n, int want) {
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
      for (int i = 0; i < c->p->nrules; i++) cand(&cs, c->p->rules[i].id);
      unknown(c, n->span, "rule", n->name, &cs);
    }
    n->ival = r;
    ty = TY_RULE;
    break;
  }
  case AST_CALL: ty = check_call(c, n); break;
  case AST_UNARY:
    if (n->op == BOP_NOT) {
      expect(c, n->kids[0], TY_BOOL, check_expr(c, n->kids[0], TY_BOOL));
      ty = TY_BOOL;
    } else {
      expect(c, n->kids[0], TY_INT, check_expr(c, n->kids[0], TY_INT));
      ty = TY_INT;
    }
    break;
  case AST_BINARY: ty = check_binary(c, n); break;
  case AST_COND: {
    expect(c, n->kids[0], TY_BOOL, check_expr(c, n->kids[0], TY_BOOL));
    int a = check_expr(c, n->kids[1], want);
    int b = check_expr(c, n->kids[2], a == TY_NONE ? want : a);
    if (!compatible(a, b)) diag_error(c->d, n->span, "the branches of ?: have different types (%s and %s)", TN(a), TN(b));
    ty = a == TY_NONE ? b : a;
    break;
  }
  case AST_SETLIT: {
    int e = (want & TY_SETBIT) ? want & ~TY_SETBIT : TY_ERROR;
    for (uint32_t i = 0; i < n->nkids; i++) {
      int t = check_expr(c, n->kids[i], e);
      if (e == TY_ERROR || e == TY_NONE) e = t;
      else if (!compatible(e, t)) diag_error(c->d, n->kids[i]->span, "set members must all be %s, found %s", TN(e), TN(t));
    }
    if (n->nkids == 0 && e == TY_ERROR) {
      diag_error(c->d, n->span, "cannot tell the type of an empty set here");
      ty = TY_ERROR;
    } else {
      ty = set_of(c, e, n->span);
    }
    break;
  }
  case AST_COMPREHENSION: {
    int st = check_iterable(c, n->kids[0], false);
    int save = c->nlocals;
    n->slot = declare(c, n->name, st == TY_ERROR ? TY_ERROR : elem_of(st), n->span);
    if (n->kids[1]) expect(c, n->kids[1], TY_BOOL, check_expr(c, n->kids[1], TY_BOOL));
    c->nlocals = save;
    ty = st == TY_RANGE ? set_of(c, TY_INT, n->span) : st;
    break;
  }
  case AST_AGGREGATE: {
    int st = check_iterable(c, n->kids[0], true);
    int save = c->nlocals;
    n->slot = declare(c, n->name, st == TY_ERROR ? TY_ERROR : elem_of(st), n->span);
    if (n->kids[1]) expect(c, n->kids[1], TY_BOOL, check_expr(c, n->kids[1], TY_BOOL));
    int et = n->op == AGG_ANY || n->op == AGG_ALL ? TY_BOOL : TY_INT;
    expect(c, n->kids[2], et, check_expr(c, n->kids[2], et));
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
    expect(c, n->kids[0], TY_INT, check_expr(c, n->kids[0], TY_INT));
    expect(c, n->kids[1], TY_INT, check_expr(c, n->kids[1], TY_INT));
    ty = TY_RANGE;
    break;
  case AST_CAN:
    if (c->kind == FN_PURE)
      diag_error(c->d, n->span, "can judges actions' guards and cannot be used in a value, guard or cost; "
                                "use it in a statement or a trigger");
    expect(c, n->kids[0], TY_FACTION, check_expr(c, n->kids[0], TY_FACTION));
    n->sym = action_list(c, n->kids[1]);
    ty = TY_BOOL;
    break;
  case AST_ASK: {
    need_effects(c, n, "ask");
    expect(c, n->kids[0], TY_FACTION, check_expr(c, n->kids[0], TY_FACTION));
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

static int rule_ref(chk *c, const char *id, mt_span at) {
  int r = sema_find_rule(c->p, id);
  if (r < 0) {
    cands cs = {0};
    for (int i = 0; i < c->p->nrules; i++) cand(&cs, c->p->rules[i].id);
    unknown(c, at, "rule", id, &cs);
  }
  return r;
}

static void check_stmt(chk *c, node *s) {
  program *p = c->p;
  switch (s->kind) {
  case AST_LET: {
    int t = check_expr(c, s->kids[0], TY_ERROR);
    if (t == TY_VOID) diag_error(c->d, s->kids[0]->span, "this produces no value");
    if (t == TY_NONE) diag_error(c->d, s->kids[0]->span, "cannot tell the type of 'none' here");
    s->slot = declare(c, s->name, t, s->span);
    break;
  }
  case AST_ASSIGN: {
    node *args = s->kids[0];
    local *l = args->nkids == 0 ? find_local(c, s->name) : NULL;
    if (l) { /* a local: set x = x + 1 */
      s->op = 1;
      s->slot = l->slot;
      int t = check_expr(c, s->kids[1], l->ty);
      if (!compatible(l->ty, t) && !(l->ty == TY_SECTOR && t == TY_INT))
        diag_error(c->d, s->kids[1]->span, "%s holds %s, not %s", s->name, TN(l->ty), TN(t));
      break;
    }
    need_effects(c, s, "set");
    int k = find_var(p, s->name);
    if (k < 0) {
      cands cs = {0};
      for (int i = 0; i < p->nvars; i++) cand(&cs, p->vars[i].name);
      unknown(c, s->span, "variable", s->name, &cs);
      check_expr(c, s->kids[1], TY_ERROR);
      break;
    }
    s->sym = k;
    /* check the index arguments through a call-shaped view */
    node fake = *args;
    fake.span = s->span;
    check_args(c, &fake, p->vars[k].nparams, p->vars[k].ptype, s->name, 0);
    int t = check_expr(c, s->kids[1], p->vars[k].type);
    if (!compatible(p->vars[k].type, t) && !(p->vars[k].type == TY_SECTOR && t == TY_INT))
      diag_error(c->d, s->kids[1]->span, "%s holds %s, not %s", s->name, TN(p->vars[k].type), TN(t));
    break;
  }
  case AST_IF: {
    expect(c, s->kids[0], TY_BOOL, check_expr(c, s->kids[0], TY_BOOL));
    check_block(c, s->kids[1]);
    node *e = ast_kid(s, 2);
    if (e) {
      if (e->kind == AST_IF) check_stmt(c, e);
      else check_block(c, e);
    }
    break;
  }
  case AST_FOR: {
    int st = check_iterable(c, s->kids[0], true);
    int save = c->nlocals;
    s->slot = declare(c, s->name, st == TY_ERROR ? TY_ERROR : elem_of(st), s->span);
    if (s->kids[1]) expect(c, s->kids[1], TY_BOOL, check_expr(c, s->kids[1], TY_BOOL));
    if (s->kids[2]) {
      if (st == TY_PILE || st == TY_RANGE) diag_error(c->d, s->kids[2]->span, "'by' orders the members of a set; piles and ranges have their own order");
      expect(c, s->kids[2], TY_INT, check_expr(c, s->kids[2], TY_INT));
    }
    /* hidden slots the compiler uses for iteration state */
    s->ival = declare(c, NULL, TY_INT, s->span);
    declare(c, NULL, TY_INT, s->span);
    declare(c, NULL, TY_INT, s->span);
    declare(c, NULL, TY_INT, s->span);
    c->loops++;
    check_block(c, s->kids[3]);
    c->loops--;
    c->nlocals = save;
    break;
  }
  case AST_BREAK:
    if (!c->loops) diag_error(c->d, s->span, "'break' outside a loop");
    break;
  case AST_SIGNAL: {
    need_effects(c, s, "signal");
    int e = find_event(p, s->name);
    if (e < 0) {
      cands cs = {0};
      for (int i = 0; i < p->nevents; i++) cand(&cs, p->events[i].name);
      unknown(c, s->span, "event", s->name, &cs);
      break;
    }
    s->sym = e;
    check_args(c, s, p->events[e].nparams, p->events[e].ptype, s->name, 0);
    break;
  }
  case AST_RUN: {
    need_effects(c, s, "run");
    int k = find_proc(p, s->name);
    if (k >= 0) {
      s->op = RUN_PROC;
      s->sym = k;
      check_args(c, s, p->procs[k].nparams, p->procs[k].ptype, s->name, 0);
      break;
    }
    k = find_named_rule(p, s->name);
    if (k >= 0) {
      s->op = RUN_RULE;
      s->sym = k;
      if (s->nkids) diag_error(c->d, s->span, "phase or step '%s' takes no arguments", s->name);
      break;
    }
    cands cs = {0};
    for (int i = 0; i < p->nprocs; i++) cand(&cs, p->procs[i].name);
    for (int i = 0; i < p->nrules; i++)
      if (p->rules[i].name) cand(&cs, p->rules[i].name);
    unknown(c, s->span, "phase, step or procedure", s->name, &cs);
    break;
  }
  case AST_MAY:
    need_effects(c, s, "may");
    expect(c, s->kids[0], TY_FACTION, check_expr(c, s->kids[0], TY_FACTION));
    check_format(c, s->kids[1]);
    check_block(c, s->kids[2]);
    break;
  case AST_ACT:
    need_effects(c, s, "act");
    expect(c, s->kids[0], TY_FACTION, check_expr(c, s->kids[0], TY_FACTION));
    s->sym = action_list(c, s->kids[1]);
    break;
  case AST_SECRET: {
    need_effects(c, s, "secret");
    int st = check_expr(c, s->kids[0], TY_FACTION | TY_SETBIT);
    if (st != TY_ERROR && st != (TY_FACTION | TY_SETBIT))
      diag_error(c->d, s->kids[0]->span, "secret decisions are made by a set of factions, not %s", TN(st));
    int save = c->nlocals;
    s->slot = declare(c, s->name, TY_FACTION, s->span);
    s->ival = declare(c, NULL, TY_INT, s->span);
    check_block(c, s->kids[1]);
    c->nlocals = save;
    break;
  }
  case AST_CANCEL:
    need_effects(c, s, "cancel");
    expect(c, s->kids[0], TY_RULE, check_expr(c, s->kids[0], TY_RULE));
    if (s->kids[0]->kind == AST_RULEREF && s->kids[0]->ival >= 0 &&
        !(p->rules[s->kids[0]->ival].tags & TAG_KARAMA))
      diag_error(c->d, s->kids[0]->span, "rule %s is not karama-tagged: it cannot be cancelled", s->kids[0]->name);
    break;
  case AST_LOG: check_format(c, s->kids[0]); break;
  case AST_FINISH: need_effects(c, s, "finish"); break;
  case AST_EXPRSTMT: check_expr(c, s->kids[0], TY_ERROR); break;
  default: diag_error(c->d, s->span, "a %s is not a statement", ast_kind_name(s->kind)); break;
  }
}

static void check_block(chk *c, node *blk) {
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
    check_stmt(c, s);
  }
  c->nlocals = save;
}

/* ---- declarations --------------------------------------------------------- */

static int parse_type(chk *c, node *t) {
  if (!t) return TY_ERROR;
  static const struct {
    const char *name;
    int ty;
  } tys[] = {{"int", TY_INT},   {"bool", TY_BOOL}, {"faction", TY_FACTION}, {"territory", TY_TERRITORY},
             {"sector", TY_SECTOR}, {"card", TY_CARD}, {"leader", TY_LEADER}, {"kind", TY_KIND},
             {"pool", TY_POOL}, {"pile", TY_PILE}, {"rule", TY_RULE}, {"location", TY_LOC}, {"tag", TY_TAG}};
  for (size_t i = 0; i < sizeof tys / sizeof *tys; i++)
    if (!strcmp(tys[i].name, t->name)) return t->op ? set_of(c, tys[i].ty, t->span) : tys[i].ty;
  for (int i = 0; i < c->p->nenums; i++) {
    char nm[64];
    snprintf(nm, sizeof nm, "%s", c->p->enums[i].name);
    for (char *q = nm; *q; q++)
      if (*q == ' ') *q = '_';
    if (!strcmp(nm, t->name)) return t->op ? set_of(c, TY_ENUM0 + i, t->span) : TY_ENUM0 + i;
  }
  cands cs = {0};
  for (size_t i = 0; i < sizeof tys / sizeof *tys; i++) cand(&cs, tys[i].name);
  unknown(c, t->span, "type", t->name, &cs);
  return TY_ERROR;
}

static void declare_event(chk *c, node *e) {
  if (find_event(c->p, e->name) >= 0) {
    diag_error(c->d, e->span, "event '%s' is declared twice", e->name);
    diag_note(c->d, c->p->events[find_event(c->p, e->name)].span, "first declared here");
    return;
  }
  event_rec r = {0};
  r.name = e->name;
  r.span = e->span;
  r.dispatch_fn = -1;
  if (e->nkids > MAX_PARAMS) diag_error(c->d, e->span, "at most %d parameters", MAX_PARAMS);
  for (uint32_t i = 0; i < e->nkids && i < MAX_PARAMS; i++) {
    r.pname[i] = e->kids[i]->name;
    r.ptype[r.nparams++] = parse_type(c, ast_kid(e->kids[i], 0));
  }
  VEC_PUSH(c->p->events, c->p->nevents, c->p->capevents, r);
}

/* An initialiser judged at its declaration: a literal, or a name (a constant,
 * or an earlier variable read when the game is created). */
static bool literal_or_name(const node *n) {
  return n->kind == AST_INT || n->kind == AST_BOOL || n->kind == AST_NONE ||
         (n->kind == AST_UNARY && n->op == BOP_NEG && n->kids[0]->kind == AST_INT) || n->kind == AST_NAME;
}

/* A variable with a computed initial value that N reads directly and that is
 * computed at or after variable SELF (so it would still hold its default),
 * or NULL. */
static const node *reads_later_computed(const program *p, const node *n, int self) {
  if (!n) return NULL;
  bool var = (n->kind == AST_NAME && n->op == REF_VAR) ||
             (n->kind == AST_CALL && (n->op == CALL_VAR || n->op == CALL_TOTAL));
  if (var && n->sym >= self && p->vars[n->sym].init_computed) return n;
  for (uint32_t i = 0; i < n->nkids; i++) {
    const node *k = reads_later_computed(p, n->kids[i], self);
    if (k) return k;
  }
  return NULL;
}

static void declare_var(chk *c, node *v) {
  program *p = c->p;
  int old = find_var(p, v->name);
  if (old >= 0) {
    diag_error(c->d, v->span, "variable '%s' is declared twice", v->name);
    if (!p->vars[old].data) diag_note(c->d, p->vars[old].span, "first declared here");
    else diag_note(c->d, v->span, "'%s' is a variable of the board data", v->name);
    return;
  }
  var_rec r = {0};
  r.name = v->name;
  r.span = v->span;
  r.type = parse_type(c, ast_kid(v, 1));
  r.width = (r.type & TY_SETBIT) && domain_size(c, r.type & ~TY_SETBIT) > 32 ? 2 : 1;
  r.scope = BS_GLOBAL;
  r.cells = r.width;
  node *params = ast_kid(v, 0);
  for (uint32_t i = 0; params && i < params->nkids && i < MAX_PARAMS; i++) {
    int t = parse_type(c, ast_kid(params->kids[i], 0));
    r.ptype[r.nparams++] = t;
    if (i == 0 && t == TY_FACTION) {
      r.scope = BS_FACTION;
      continue;
    }
    int n = domain_size(c, t);
    if (n <= 0 || t == TY_INT) {
      diag_error(c->d, params->kids[i]->span, "a variable cannot be indexed by %s", TN(t));
      continue;
    }
    r.cells *= n;
    if (r.cells > 100000) {
      diag_error(c->d, params->kids[i]->span, "variable '%s' would need too many cells", v->name);
      r.cells = 1;
    }
  }
  r.secret = (v->flags & 1u) != 0;
  if (r.secret && r.scope != BS_FACTION)
    diag_error(c->d, v->span, "secret variable '%s' must have a faction as its first index: that faction alone sees it", v->name);
  node *init = ast_kid(v, 2);
  r.init = init;
  r.init_fn = -1;
  /* an expression is computed when the game is created, checked with the rules' bodies (values are known then) */
  bool computed = init && !literal_or_name(init);
  if (init && !computed) {
    begin_fn(c, FN_PURE);
    int t = check_expr(c, init, r.type);
    if (!compatible(r.type, t)) diag_error(c->d, init->span, "%s holds %s, not %s", v->name, TN(r.type), TN(t));
    if (init->kind == AST_INT) r.init_value = init->ival;
    else if (init->kind == AST_BOOL) r.init_value = init->ival;
    else if (init->kind == AST_NONE) r.init_value = -1;
    else if (init->kind == AST_NAME && init->op == REF_CONST) r.init_value = init->ival;
    else if (init->kind == AST_UNARY && init->op == BOP_NEG && init->kids[0]->kind == AST_INT) r.init_value = -init->kids[0]->ival;
    else if (t != TY_ERROR) computed = true; /* another variable, read when the game is created */
  } else if (is_entity(r.type)) {
    r.init_value = -1;
  }
  if (computed) {
    if (r.nparams > 0) diag_error(c->d, init->span, "a variable with indices starts at a constant; set its cells in a step");
    else r.init_computed = true;
  }
  if (r.init_value < INT32_MIN || r.init_value > INT32_MAX) diag_error(c->d, v->span, "initial value out of range");
  r.board_var = -1;
  VEC_PUSH(p->vars, p->nvars, p->capvars, r);
}

static void data_vars(chk *c) {
  const board_def *def = c->def;
  for (int i = 0; i < def->nvars; i++) {
    const board_var *bv = &def->vars[i];
    var_rec r = {0};
    r.name = bv->name;
    r.data = true;
    r.board_var = i;
    r.scope = (int)bv->scope;
    r.type = bv->type == BT_ENUM ? enum_type(c->p, bv->values) : var_type_of_board(bv->type);
    r.width = 1;
    r.cells = 1;
    r.span = (mt_span){DIAG_NOFILE, 0, 0};
    if (bv->scope == BS_FACTION) r.ptype[r.nparams++] = TY_FACTION;
    if (bv->scope == BS_SECTION) {
      r.ptype[r.nparams++] = TY_TERRITORY;
      r.ptype[r.nparams++] = TY_SECTOR;
    }
    if (!strcmp(bv->name, "turn") && bv->scope == BS_GLOBAL) c->p->turn_var = c->p->nvars;
    VEC_PUSH(c->p->vars, c->p->nvars, c->p->capvars, r);
  }
}

/* Collects value declarations (definitions with a result type). */
static void declare_value(chk *c, int rule, node *v) {
  program *p = c->p;
  int k = find_value(p, v->name);
  if (k >= 0) {
    diag_error(c->d, v->span, "value '%s' is declared twice (an override has no result type and says what it supersedes)",
               v->name);
    diag_note(c->d, p->values[k].span, "first declared here");
    return;
  }
  value_rec r = {0};
  r.name = v->name;
  r.span = v->span;
  r.base_rule = rule;
  r.dispatch_fn = -1;
  node *params = v->kids[0];
  for (uint32_t i = 0; i < params->nkids && i < MAX_PARAMS; i++) {
    node *pa = params->kids[i];
    if (pa->kind != AST_PARAM) {
      diag_error(c->d, pa->span, "the declaring definition of '%s' needs typed parameters (name: type)", v->name);
      r.ptype[r.nparams++] = TY_ERROR;
      continue;
    }
    r.pname[r.nparams] = pa->name;
    r.ptype[r.nparams++] = parse_type(c, pa->kids[0]);
  }
  r.ret = parse_type(c, v->kids[1]);
  VEC_PUSH(p->values, p->nvalues, p->capvalues, r);
}

bool sema_supersedes(const program *p, int a, int b) {
  if (!p->sup_row || a < 0 || b < 0 || p->sup_row[a] < 0) return false;
  return p->sup_bits[(size_t)p->sup_row[a] * p->sup_words + (size_t)b / 64] >> (b % 64) & 1u;
}
static bool supersedes_star(chk *c, int a, int b) { return sema_supersedes(c->p, a, b); }

/* The transitive supersedes relation, one bitset row per rule that
 * supersedes anything (most rules supersede nothing). */
static void closure(chk *c) {
  program *p = c->p;
  int n = p->nrules;
  p->sup_row = mt_calloc((size_t)n + 1, sizeof *p->sup_row);
  int rows = 0;
  for (int a = 0; a < n; a++) p->sup_row[a] = p->rules[a].nsup ? rows++ : -1;
  p->sup_words = ((size_t)n + 63) / 64;
  p->sup_bits = mt_calloc((size_t)rows * p->sup_words + 1, sizeof *p->sup_bits);
  int *stack = mt_calloc((size_t)n + 1, sizeof *stack);
  for (int a = 0; a < n; a++) {
    if (p->sup_row[a] < 0) continue;
    uint64_t *row = p->sup_bits + (size_t)p->sup_row[a] * p->sup_words;
    int sp = 0;
    stack[sp++] = a;
    while (sp) {
      int v = stack[--sp];
      for (int k = 0; k < p->rules[v].nsup; k++) {
        int w = p->rules[v].sup[k];
        if (w != a && !(row[w / 64] >> (w % 64) & 1u)) {
          row[w / 64] |= 1ull << (w % 64);
          if (sp < n) stack[sp++] = w;
        }
      }
    }
  }
  mt_free(stack);
}

/* An override: patterns and when-guard, checked in the value's scope. */
static void check_value_def(chk *c, int rule, node *v, bool declaring) {
  program *p = c->p;
  int k = find_value(p, v->name);
  if (k < 0) {
    cands cs = {0};
    for (int i = 0; i < p->nvalues; i++) cand(&cs, p->values[i].name);
    unknown(c, v->span, "value", v->name, &cs);
    return;
  }
  value_rec *vr = &p->values[k];
  if (declaring && vr->base_rule != rule) return; /* duplicate already reported */
  node *params = v->kids[0];
  begin_fn(c, FN_PURE);
  bool guarded = v->kids[2] != NULL;
  if ((int)params->nkids != vr->nparams) {
    diag_error(c->d, v->span, "'%s' takes %d parameter%s, this definition has %u", v->name, vr->nparams,
               vr->nparams == 1 ? "" : "s", params->nkids);
    return;
  }
  for (int i = 0; i < vr->nparams; i++) {
    node *pa = params->kids[i];
    if (pa->kind == AST_PARAM) {
      int t = parse_type(c, pa->kids[0]);
      if (!compatible(vr->ptype[i], t)) diag_error(c->d, pa->span, "parameter %d of '%s' is %s, not %s", i + 1, v->name, TN(vr->ptype[i]), TN(t));
      pa->slot = declare(c, pa->name, vr->ptype[i], pa->span);
      continue;
    }
    int ty;
    int64_t val;
    if (pa->kind == AST_NAME && !entity_const(c, pa->name, vr->ptype[i], &ty, &val)) {
      pa->slot = declare(c, pa->name, vr->ptype[i], pa->span); /* a binder */
      pa->op = 0;
      continue;
    }
    /* a constant pattern: the argument is compared with it */
    pa->slot = declare(c, NULL, vr->ptype[i], pa->span);
    int t = check_expr(c, pa, vr->ptype[i]);
    if (!compatible(vr->ptype[i], t)) diag_error(c->d, pa->span, "pattern %d of '%s' must be %s, found %s", i + 1, v->name, TN(vr->ptype[i]), TN(t));
    pa->flags = 1; /* constant pattern */
    guarded = true;
  }
  if (v->kids[2]) expect(c, v->kids[2], TY_BOOL, check_expr(c, v->kids[2], TY_BOOL));
  int t = check_expr(c, v->kids[3], vr->ret);
  if (!compatible(vr->ret, t) && !(vr->ret == TY_SECTOR && t == TY_INT))
    diag_error(c->d, v->kids[3]->span, "'%s' is %s, but this definition gives %s", v->name, TN(vr->ret), TN(t));
  v->slot = c->nslots;
  value_def d = {rule, v, guarded, -1, -1};
  VEC_PUSH(vr->defs, vr->ndefs, vr->capdefs, d);
}

static bool patterns_overlap(const value_def *a, const value_def *b) {
  node *pa = a->ast->kids[0], *pb = b->ast->kids[0];
  for (uint32_t i = 0; i < pa->nkids && i < pb->nkids; i++) {
    node *x = pa->kids[i], *y = pb->kids[i];
    if (x->flags == 1 && y->flags == 1 && x->kind == y->kind && (x->kind == AST_NAME || x->kind == AST_INT) &&
        x->ival != y->ival)
      return false;
  }
  return true;
}

/* Orders definitions: superseding ones first, then by level (highest
 * first), then declaration order; reports overrides that do not say what
 * they supersede and static conflicts. */
static void order_value(chk *c, value_rec *vr) {
  program *p = c->p;
  int n = vr->ndefs;
  for (int i = 0; i < n; i++) {
    value_def *d = &vr->defs[i];
    if (d->rule == vr->base_rule && d->ast->kids[1]) continue;
    bool ok = false;
    for (int j = 0; j < n && !ok; j++)
      if (j != i && supersedes_star(c, d->rule, vr->defs[j].rule)) ok = true;
    if (!ok)
      diag_error(c->d, d->ast->span, "rule %s redefines value '%s' (declared by rule %s) but does not say 'supersedes %s'",
                 p->rules[d->rule].id, vr->name, p->rules[vr->base_rule].id, p->rules[vr->base_rule].id);
  }
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      value_def *a = &vr->defs[i], *b = &vr->defs[j];
      rule_rec *ra = &p->rules[a->rule], *rb = &p->rules[b->rule];
      if (a->rule == b->rule || ra->level != rb->level || supersedes_star(c, a->rule, b->rule) ||
          supersedes_star(c, b->rule, a->rule))
        continue;
      if (ra->disabled || rb->disabled) continue;
      bool both_unguarded = !a->ast->kids[2] && !b->ast->kids[2];
      if (both_unguarded && patterns_overlap(a, b)) {
        diag_error(c->d, b->ast->span, "conflict: rules %s and %s (both at the %s level) define '%s' for overlapping "
                   "cases, and neither supersedes the other", ra->id, rb->id, level_names[ra->level], vr->name);
        diag_note(c->d, a->ast->span, "rule %s defines it here", ra->id);
      }
    }
  value_def *out = mt_calloc((size_t)n + 1, sizeof *out);
  bool *used = mt_calloc((size_t)n + 1, sizeof *used);
  for (int k = 0; k < n; k++) {
    int best = -1;
    for (int i = 0; i < n; i++) {
      if (used[i]) continue;
      bool dominated = false;
      for (int j = 0; j < n && !dominated; j++)
        if (!used[j] && j != i && supersedes_star(c, vr->defs[j].rule, vr->defs[i].rule)) dominated = true;
      if (dominated) continue;
      if (best < 0 || p->rules[vr->defs[i].rule].level > p->rules[vr->defs[best].rule].level) best = i;
    }
    if (best < 0) /* a cycle (already reported): keep the rest in order */
      for (int i = 0; i < n && best < 0; i++)
        if (!used[i]) best = i;
    used[best] = true;
    out[k] = vr->defs[best];
  }
  memcpy(vr->defs, out, (size_t)n * sizeof *out);
  mt_free(out);
  mt_free(used);
}

static void declare_action(chk *c, int rule, node *a) {
  program *p = c->p;
  int old = find_action(p, a->name);
  if (old >= 0) {
    diag_error(c->d, a->span, "action '%s' is declared twice", a->name);
    diag_note(c->d, p->actions[old].span, "first declared here");
    return;
  }
  action_rec r = {0};
  r.name = a->name;
  r.rule = rule;
  r.ast = a;
  r.span = a->span;
  r.cost_fn = r.guard_fn = r.effect_fn = r.tail_fn = -1;
  r.first_same = (int)p->nactions; /* its own index (fuse.c may find an earlier one alike) */
  node *params = a->kids[0];
  for (uint32_t i = 0; i < params->nkids && i < MAX_PARAMS; i++) {
    node *pa = params->kids[i];
    r.dom_fn[i] = r.lo_fn[i] = r.hi_fn[i] = r.prefix_fn[i] = r.nlo_fn[i] = r.nhi_fn[i] = -1;
    if (pa->kind != AST_PARAM) {
      diag_error(c->d, pa->span, "action parameters are typed: name: type [in domain]");
      r.ptype[r.nparams++] = TY_ERROR;
      continue;
    }
    r.pname[r.nparams] = pa->name;
    r.pdomain[r.nparams] = ast_kid(pa, 1);
    r.ptype[r.nparams++] = parse_type(c, pa->kids[0]);
  }
  if (params->nkids > MAX_PARAMS) diag_error(c->d, a->span, "at most %d parameters", MAX_PARAMS);
  if (r.nparams == 0 || r.ptype[0] != TY_FACTION)
    diag_error(c->d, a->span, "the first parameter of an action is the faction taking it (f: faction)");
  node *items = a->kids[1];
  for (uint32_t i = 0; items && i < items->nkids; i++)
    if (items->kids[i] && items->kids[i]->kind == AST_KINDS) add_kinds(c, &r, items->kids[i]);
  VEC_PUSH(p->actions, p->nactions, p->capactions, r);
}

static void add_guard(chk *c, action_rec *ar, int decl_rule, node *g, int check) {
  guard_rec gr = {0};
  gr.decl_rule = decl_rule;
  gr.check = check;
  gr.rule = g->name ? rule_ref(c, g->name, g->span) : decl_rule;
  if (gr.rule < 0) gr.rule = decl_rule;
  gr.forbid = g->kind == AST_FORBID;
  gr.cond = g->kids[0];
  gr.span = g->span; /* the whole condition, quoted by why-not answers */
  expect(c, gr.cond, TY_BOOL, check_expr(c, gr.cond, TY_BOOL));
  VEC_PUSH(ar->guards, ar->nguards, ar->capguards, gr);
}

static void check_action(chk *c, int ai) {
  action_rec *ar = &c->p->actions[ai];
  node *a = ar->ast;
  begin_fn(c, FN_PURE);
  /* The parameters take slots 0..n-1 and the cost slot n, whatever their domains declare: a
   * comprehension in a domain ([x in S where ...]) binds its variable in a slot past them. */
  if (ar->nparams + 1 > MAX_LOCALS) {
    diag_error(c->d, a->span, "too many local names in one function (the limit is %d)", MAX_LOCALS);
    return;
  }
  c->nslots = ar->nparams + 1;
  for (int i = 0; i < ar->nparams; i++) {
    node *dom = ar->pdomain[i];
    if (dom) {
      int t = check_expr(c, dom, TY_ERROR);
      int e = t == TY_RANGE ? TY_INT : t == TY_PILE ? TY_CARD : (t & TY_SETBIT) ? t & ~TY_SETBIT : TY_ERROR;
      ar->dom_pile[i] = t == TY_PILE;
      if (t != TY_ERROR && t != TY_RANGE && t != TY_PILE && !(t & TY_SETBIT))
        diag_error(c->d, dom->span, "a parameter's domain is a set, a range or a pile, not %s", TN(t));
      else if (t != TY_ERROR && !compatible(ar->ptype[i], e))
        diag_error(c->d, dom->span, "the domain of '%s' holds %s, but the parameter is %s", ar->pname[i], TN(e), TN(ar->ptype[i]));
    } else if (ar->ptype[i] == TY_INT) {
      diag_error(c->d, a->kids[0]->kids[i]->span, "integer parameter '%s' needs a domain (in a..b) so that choices can be listed", ar->pname[i]);
    } else if (ar->ptype[i] != TY_ERROR && domain_size(c, ar->ptype[i]) < 0) {
      diag_error(c->d, a->kids[0]->kids[i]->span, "parameter '%s' of type %s needs a domain (in SET)", ar->pname[i], TN(ar->ptype[i]));
    }
    declare_at(c, ar->pname[i], ar->ptype[i], i, a->kids[0]->kids[i]->span);
  }
  declare_at(c, "cost", TY_INT, ar->nparams, a->span);
  node *items = a->kids[1];
  for (uint32_t i = 0; i < items->nkids; i++) {
    node *it = items->kids[i];
    if (!it || it->kind != AST_COST) continue;
    if (ar->cost) diag_error(c->d, it->span, "action '%s' has two costs", ar->name);
    ar->cost = it->kids[0];
    expect(c, it->kids[0], TY_INT, check_expr(c, it->kids[0], TY_INT));
  }
  for (uint32_t i = 0; i < items->nkids; i++) {
    node *it = items->kids[i];
    if (it && (it->kind == AST_REQUIRE || it->kind == AST_FORBID)) add_guard(c, ar, ar->rule, it, -1);
  }
  for (uint32_t i = 0; i < items->nkids; i++) {
    node *it = items->kids[i];
    if (!it || it->kind != AST_EFFECT) continue;
    if (ar->effect) diag_error(c->d, it->span, "action '%s' has two effects", ar->name);
    ar->effect = it->kids[0];
    c->kind = FN_EFFECT;
    check_block(c, it->kids[0]);
    c->kind = FN_PURE;
  }
  if (c->nslots > a->slot) a->slot = c->nslots;
}

static void check_check(chk *c, int rule, node *k) {
  program *p = c->p;
  int ai = find_action(p, k->name);
  if (ai < 0) {
    cands cs = {0};
    for (int i = 0; i < p->nactions; i++) cand(&cs, p->actions[i].name);
    unknown(c, k->span, "action", k->name, &cs);
    return;
  }
  action_rec *ar = &p->actions[ai];
  node *binders = k->kids[0];
  if ((int)binders->nkids != ar->nparams) {
    diag_error(c->d, k->span, "action '%s' has %d parameters; this check binds %u", k->name, ar->nparams, binders->nkids);
    return;
  }
  const rule_rec *rr = &p->rules[rule];
  /* a rule adding guards amends the action's rule, or lifts guards it supersedes */
  bool linked = rule == ar->rule || rr->nsup > 0;
  for (int i = 0; i < rr->namd && !linked; i++) linked = rr->amd[i] == ar->rule;
  if (!linked)
    diag_error(c->d, k->span, "rule %s adds guards to action '%s' (rule %s) but neither amends nor supersedes anything",
               rr->id, k->name, p->rules[ar->rule].id);
  begin_fn(c, FN_PURE);
  for (int i = 0; i < ar->nparams; i++) declare(c, binders->kids[i]->name, ar->ptype[i], binders->kids[i]->span);
  declare(c, "cost", TY_INT, k->span);
  if (k->kids[1]) expect(c, k->kids[1], TY_BOOL, check_expr(c, k->kids[1], TY_BOOL));
  node *items = k->kids[2];
  for (uint32_t i = 0; i < items->nkids; i++) {
    node *it = items->kids[i];
    if (!it) continue;
    if (it->kind == AST_REQUIRE || it->kind == AST_FORBID) add_guard(c, &p->actions[ai], rule, it, p->nchecks);
    else if (it->kind == AST_KINDS) continue; /* added with the declarations (sema_check, pass 1) */
    else diag_error(c->d, it->span, "a check adds guards (require/forbid); costs and effects belong to the action");
  }
  k->slot = c->nslots;
  check_rec cr = {rule, ai, k, -1};
  VEC_PUSH(p->checks, p->nchecks, p->capchecks, cr);
  if (c->nslots > ar->ast->slot) ar->ast->slot = c->nslots;
}

static void check_trigger(chk *c, int rule, node *t) {
  program *p = c->p;
  int e = find_event(p, t->name);
  if (e < 0) {
    cands cs = {0};
    for (int i = 0; i < p->nevents; i++) cand(&cs, p->events[i].name);
    unknown(c, t->span, "event", t->name, &cs);
    return;
  }
  node *binders = t->kids[0];
  if ((int)binders->nkids != p->events[e].nparams) {
    diag_error(c->d, t->span, "event '%s' has %d parameters; this trigger binds %u", t->name, p->events[e].nparams,
               binders->nkids);
    return;
  }
  begin_fn(c, FN_PURE);
  for (int i = 0; i < p->events[e].nparams; i++) declare(c, binders->kids[i]->name, p->events[e].ptype[i], binders->kids[i]->span);
  if (t->kids[1]) expect(c, t->kids[1], TY_BOOL, check_expr(c, t->kids[1], TY_BOOL));
  c->kind = FN_EFFECT;
  check_block(c, t->kids[2]);
  t->slot = c->nslots;
  trigger_rec tr = {rule, e, t->op, p->rules[rule].faction, t, -1, -1};
  if (t->op == TRIG_INSTEAD) {
    /* it replaces the on-handlers: its rule must supersede theirs */
    for (uint32_t r = 0; r < (uint32_t)p->nrules; r++) {
      node *items = p->rules[r].items;
      for (uint32_t i = 0; items && i < items->nkids; i++) {
        node *it = items->kids[i];
        if (it && it->kind == AST_TRIGGER && it->op == TRIG_ON && !strcmp(it->name, t->name) && (int)r != rule &&
            !p->rules[r].disabled && !supersedes_star(c, rule, (int)r)) {
          diag_error(c->d, t->span, "rule %s replaces the handling of '%s' (instead of) but does not say 'supersedes %s'",
                     p->rules[rule].id, t->name, p->rules[r].id);
          diag_note(c->d, it->span, "rule %s handles '%s' here", p->rules[r].id, t->name);
        }
      }
    }
  }
  VEC_PUSH(p->triggers, p->ntriggers, p->captriggers, tr);
}

static void declare_proc(chk *c, int rule, node *pr) {
  program *p = c->p;
  if (find_proc(p, pr->name) >= 0 || find_named_rule(p, pr->name) >= 0) {
    diag_error(c->d, pr->span, "'%s' is already the name of a procedure, phase or step", pr->name);
    return;
  }
  proc_rec r = {0};
  r.name = pr->name;
  r.rule = rule;
  r.ast = pr;
  r.fn = -1;
  node *params = pr->kids[0];
  for (uint32_t i = 0; i < params->nkids && i < MAX_PARAMS; i++) r.ptype[r.nparams++] = parse_type(c, params->kids[i]->kids[0]);
  VEC_PUSH(p->procs, p->nprocs, p->capprocs, r);
}

static void check_proc(chk *c, int pi) {
  proc_rec *pr = &c->p->procs[pi];
  begin_fn(c, FN_EFFECT);
  node *params = pr->ast->kids[0];
  for (int i = 0; i < pr->nparams; i++) declare(c, params->kids[i]->name, pr->ptype[i], params->kids[i]->span);
  check_block(c, pr->ast->kids[1]);
  pr->ast->slot = c->nslots;
}

/* `verb NAME(params) = ACTION(args)`: the arguments are pure expressions of the verb's
 * parameters, each of the type of the action's parameter it fills. */
static void check_verb(chk *c, int rule, node *v) {
  program *p = c->p;
  for (int i = 0; i < p->nverbs; i++)
    if (!strcmp(p->verbs[i].name, v->name)) {
      diag_error(c->d, v->span, "verb '%s' is declared twice", v->name);
      diag_note(c->d, p->verbs[i].ast->span, "first declared here");
      return;
    }
  verb_rec vr = {0};
  vr.name = v->name;
  vr.rule = rule;
  vr.ast = v;
  node *params = v->kids[0], *call = v->kids[1];
  begin_fn(c, FN_PURE);
  for (uint32_t i = 0; i < params->nkids && i < MAX_PARAMS; i++) {
    node *pa = params->kids[i];
    if (pa->kind != AST_PARAM) {
      diag_error(c->d, pa->span, "a verb's parameters are typed: name: type");
      return;
    }
    vr.pname[vr.nparams] = pa->name;
    vr.ptype[vr.nparams] = parse_type(c, pa->kids[0]);
    declare_at(c, pa->name, vr.ptype[vr.nparams], vr.nparams, pa->span);
    vr.nparams++;
  }
  c->nslots = vr.nparams > c->nslots ? vr.nparams : c->nslots;
  if (vr.nparams == 0 || vr.ptype[0] != TY_FACTION)
    diag_error(c->d, v->span, "the first parameter of a verb is the faction taking the action (f: faction)");
  vr.action = find_action(p, call->name);
  if (vr.action < 0) {
    cands cs = {0};
    for (int k = 0; k < p->nactions; k++) cand(&cs, p->actions[k].name);
    unknown(c, call->span, "action", call->name, &cs);
    return;
  }
  const action_rec *ar = &p->actions[vr.action];
  if ((int)call->nkids != ar->nparams) {
    diag_error(c->d, call->span, "action '%s' has %d parameters; the verb gives %u", ar->name, ar->nparams, call->nkids);
    return;
  }
  for (uint32_t i = 0; i < call->nkids; i++) {
    int t = check_expr(c, call->kids[i], ar->ptype[i]);
    if (t != TY_ERROR && !compatible(ar->ptype[i], t))
      diag_error(c->d, call->kids[i]->span, "parameter '%s' of '%s' is %s, not %s", ar->pname[i], ar->name, TN(ar->ptype[i]), TN(t));
  }
  vr.nlocals = c->nslots;
  VEC_PUSH(p->verbs, p->nverbs, p->capverbs, vr);
}

static bool is_member(const node *n) {
  return n && (n->kind == AST_VALUE || n->kind == AST_ACTION || n->kind == AST_CHECK || n->kind == AST_TRIGGER ||
               n->kind == AST_PROC || n->kind == AST_INVARIANT || n->kind == AST_VERB);
}

/* How a rule variable of type TY is saved: its board type and names. */
static void decl_type(program *p, int ty, board_var_decl *bd) {
  const board_def *def = p->def;
  bd->set = (ty & TY_SETBIT) != 0;
  ty &= ~TY_SETBIT;
  bd->type = BT_NAME;
  if (is_enum(ty) && ty - TY_ENUM0 < p->nenums) {
    bd->names = (const char *const *)p->enums[ty - TY_ENUM0].values;
    bd->nnames = p->enums[ty - TY_ENUM0].nvalues;
    return;
  }
  switch (ty) {
  case TY_BOOL: bd->type = BT_BOOL; return;
  case TY_FACTION: bd->type = BT_FACTION; return;
  case TY_TERRITORY: bd->type = BT_AREA; return;
  case TY_SECTOR: bd->type = BT_SECTOR; return;
  case TY_CARD: bd->type = BT_CARD; return;
  case TY_LEADER: bd->type = BT_LEADER; return;
  case TY_PILE: bd->type = BT_PILE; return;
  case TY_LOC: bd->type = BT_LOC; return;
  case TY_KIND: bd->names = (const char *const *)def->kinds, bd->nnames = def->nkinds; return;
  case TY_TAG: bd->names = (const char *const *)def->tags, bd->nnames = def->ntags; return;
  case TY_RULE:
    if (!p->rule_ids) {
      p->rule_ids = mt_calloc((size_t)p->nrules + 1, sizeof *p->rule_ids);
      for (int i = 0; i < p->nrules; i++) p->rule_ids[i] = p->rules[i].id;
    }
    bd->names = p->rule_ids, bd->nnames = p->nrules;
    return;
  case TY_POOL:
    if (!p->pool_names) {
      p->pool_names = mt_calloc((size_t)def->npools + 1, sizeof *p->pool_names);
      for (int i = 0; i < def->npools; i++) p->pool_names[i] = def->pools[i].name;
    }
    bd->names = p->pool_names, bd->nnames = def->npools;
    return;
  case TY_PILENAME:
    if (!p->pile_names) {
      p->pile_names = mt_calloc((size_t)def->npiles + 1, sizeof *p->pile_names);
      for (int i = 0; i < def->npiles; i++) p->pile_names[i] = def->piles[i].name;
    }
    bd->names = p->pile_names, bd->nnames = def->npiles;
    return;
  default: bd->type = BT_INT; return;
  }
}

bool sema_check(program *p, diag *d, arena *a) {
  int before = diag_errors(d);
  chk c = {0};
  c.p = p;
  c.d = d;
  c.a = a;
  c.def = p->def;
  closure(&c);
  /* pass 1: declarations of every active rule */
  for (int r = 0; r < p->nrules; r++) {
    rule_rec *rr = &p->rules[r];
    if (rr->disabled) continue;
    for (uint32_t i = 0; rr->items && i < rr->items->nkids; i++) {
      node *it = rr->items->kids[i];
      if (!it) continue;
      if (it->kind == AST_VALUE && it->kids[1]) declare_value(&c, r, it);
      else if (it->kind == AST_ACTION) declare_action(&c, r, it);
      else if (it->kind == AST_PROC) declare_proc(&c, r, it);
    }
  }
  /* the kinds a check gives its action (`is K` in a check of a rule in force) */
  for (int r = 0; r < p->nrules; r++) {
    rule_rec *rr = &p->rules[r];
    if (rr->disabled) continue;
    for (uint32_t i = 0; rr->items && i < rr->items->nkids; i++) {
      node *it = rr->items->kids[i];
      if (!it || it->kind != AST_CHECK) continue;
      int ai = find_action(p, it->name);
      for (uint32_t j = 0; ai >= 0 && j < it->kids[2]->nkids; j++)
        if (it->kids[2]->kids[j] && it->kids[2]->kids[j]->kind == AST_KINDS) add_kinds(&c, &p->actions[ai], it->kids[2]->kids[j]);
    }
  }
  (void)is_member;
  /* computed initial values of variables: pure expressions, evaluated when a game is created */
  for (int i = 0; i < p->nvars; i++) {
    var_rec *vr = &p->vars[i];
    if (!vr->init_computed) continue;
    begin_fn(&c, FN_PURE);
    int t = check_expr(&c, vr->init, vr->type);
    if (!compatible(vr->type, t)) diag_error(d, vr->init->span, "%s holds %s, not %s", vr->name, TN(vr->type), TN(t));
    const node *later = reads_later_computed(p, vr->init, i);
    if (later)
      diag_error(d, later->span, "the initial value of '%s' reads '%s', which is computed %s: declare '%s' first", vr->name,
                 p->vars[later->sym].name, later->sym == i ? "by this very expression" : "after it", p->vars[later->sym].name);
    vr->init_nlocals = c.nslots;
  }
  /* pass 2: bodies */
  for (int r = 0; r < p->nrules; r++) {
    rule_rec *rr = &p->rules[r];
    if (rr->disabled) continue;
    c.rule = r;
    node *items = rr->items;
    bool has_stmts = false;
    for (uint32_t i = 0; items && i < items->nkids; i++) {
      node *it = items->kids[i];
      if (!it) continue;
      switch (it->kind) {
      case AST_VALUE: check_value_def(&c, r, it, it->kids[1] != NULL); break;
      case AST_CHECK: check_check(&c, r, it); break;
      case AST_TRIGGER: check_trigger(&c, r, it); break;
      case AST_ACTION: case AST_PROC: case AST_RULE: case AST_VERB: break;
      case AST_INVARIANT: {
        begin_fn(&c, FN_PURE);
        expect(&c, it->kids[0], TY_BOOL, check_expr(&c, it->kids[0], TY_BOOL));
        invariant_rec iv = {r, it->str, it->kids[0], -1, c.nslots};
        VEC_PUSH(p->invariants, p->ninvariants, p->capinvariants, iv);
        break;
      }
      default: has_stmts = true; break;
      }
    }
    if (has_stmts || rr->form == RF_PHASE || rr->form == RF_STEP || rr->form == RF_GAME) {
      begin_fn(&c, FN_EFFECT);
      int save = c.nlocals;
      for (uint32_t i = 0; items && i < items->nkids; i++) {
        node *it = items->kids[i];
        if (!it || it->kind == AST_RULE || is_member(it)) continue;
        check_stmt(&c, it);
      }
      c.nlocals = save;
      if (items) items->slot = c.nslots;
    }
    if ((rr->tags & TAG_KARAMA) && rr->form != RF_RULE && rr->form != RF_ABILITY && rr->form != RF_VALUE &&
        rr->form != RF_ACTION)
      diag_warning(d, rr->span, "karama tag on a %s rule", rr->form == RF_PHASE ? "phase" : rr->form == RF_STEP ? "step" : "game");
  }
  for (int i = 0; i < p->nactions; i++) {
    c.rule = p->actions[i].rule;
    check_action(&c, i);
  }
  for (int i = 0; i < p->nprocs; i++) {
    c.rule = p->procs[i].rule;
    check_proc(&c, i);
  }
  for (int r = 0; r < p->nrules; r++) { /* verbs: players' words for actions */
    rule_rec *rr = &p->rules[r];
    if (rr->disabled) continue;
    c.rule = r;
    for (uint32_t i = 0; rr->items && i < rr->items->nkids; i++)
      if (rr->items->kids[i] && rr->items->kids[i]->kind == AST_VERB) check_verb(&c, r, rr->items->kids[i]);
  }
  for (int i = 0; i < p->nvalues; i++) order_value(&c, &p->values[i]);
  if (p->order_node) {
    int k = find_value(p, p->order_node->name);
    if (k < 0) {
      cands cs = {0};
      for (int i = 0; i < p->nvalues; i++) cand(&cs, p->values[i].name);
      unknown(&c, p->order_node->span, "value", p->order_node->name, &cs);
    } else if (p->values[k].nparams != 1 || p->values[k].ptype[0] != TY_FACTION || p->values[k].ret != TY_INT) {
      diag_error(d, p->order_node->span, "triggers are ordered by a value of one faction giving an int; '%s' is not",
                 p->order_node->name);
    } else {
      p->order_value = k;
    }
  }
  /* rule-declared variables become board variable declarations, typed so
   * that a saved position names their values and is checked against them */
  p->var_decls = mt_calloc((size_t)p->nvars + 1, sizeof *p->var_decls);
  for (int i = 0; i < p->nvars; i++) {
    var_rec *v = &p->vars[i];
    if (v->data) continue;
    v->board_var = p->def->nvars + p->nvar_decls;
    board_var_decl bd = {0};
    bd.name = v->name;
    bd.scope = v->scope == BS_FACTION ? BS_FACTION : BS_GLOBAL;
    bd.len = v->cells;
    bd.width = v->width;
    bd.initial = (int32_t)v->init_value;
    bd.visibility = v->secret ? VIS_OWNER : VIS_PUBLIC;
    decl_type(p, v->type, &bd);
    p->var_decls[p->nvar_decls++] = bd;
  }
  return diag_errors(d) == before;
}

/* Top-level declarations (events, variables, trigger order) come before the rules. */
bool sema_declare(program *p, node *const *files, int nfiles, diag *d, arena *a) {
  int before = diag_errors(d);
  chk c = {0};
  c.p = p;
  c.d = d;
  c.a = a;
  c.def = p->def;
  naming = p;
  data_enums(p);
  for (int f = 0; f < nfiles; f++)
    for (uint32_t i = 0; i < files[f]->nkids; i++) {
      node *n = files[f]->kids[i];
      if (n && n->kind == AST_EVENT) declare_event(&c, n);
      if (n && n->kind == AST_ORDER) {
        if (p->order_node) {
          diag_error(d, n->span, "the trigger order is given twice");
          diag_note(d, p->order_node->span, "first given here");
        }
        p->order_node = n;
      }
    }
  data_vars(&c);
  for (int f = 0; f < nfiles; f++)
    for (uint32_t i = 0; i < files[f]->nkids; i++) {
      node *n = files[f]->kids[i];
      if (n && n->kind == AST_VARDECL) declare_var(&c, n);
    }
  return diag_errors(d) == before;
}

/* Types one console expression against a compiled program (pure context, no
 * locals); returns its type or TY_ERROR (errors reported to D). */
int sema_check_expr(program *p, diag *d, arena *a, node *e, int want, int *nslots) {
  int before = diag_errors(d);
  chk c = {0};
  c.p = p;
  c.d = d;
  c.a = a;
  c.def = p->def;
  naming = p;
  begin_fn(&c, FN_PURE);
  int t = check_expr(&c, e, want);
  *nslots = c.nslots; /* not in e->slot: a comprehension keeps its variable there */
  if (t == TY_RANGE || t == TY_STR || t == TY_VOID) {
    diag_error(d, e->span, "this is not a value that can be shown");
    return TY_ERROR;
  }
  return diag_errors(d) == before ? t : TY_ERROR;
}
