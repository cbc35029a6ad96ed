/* data_faction.c -- the faction files: each faction's sheet (name, aliases,
 * forces by kind, starting forces and their options, leaders, attributes),
 * read through the shared YAML reader (data_read.h), checked with every
 * diagnostic at the offending scalar, and added to the board_def.  The board
 * and decks files are data.c's. */
#include "data_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- faction files ------------------------------------------------------------------------------ */

typedef struct raw_start {
  ys key, val;    /* val for a plain count */
  ys *kk, *kv;    /* kind: count pairs */
  size_t nk, c1, c2;
  bool is_map;
} raw_start;

typedef struct raw_leader {
  ys id, name, strength;
  bool has_name, has_strength;
} raw_leader;

typedef struct raw_option {
  ysv areas;
  ys count, at;
  bool has_count, has_areas;
} raw_option;

typedef struct faction_raw {
  ys name;
  ysv aliases;
  bool has_name, has_forces;
  ys *fk, *fv;
  size_t nf, cf1, cf2;
  raw_start *start;
  size_t nstart, capstart;
  raw_option *opts;
  size_t nopts, capopts;
  raw_leader *leaders;
  size_t nleaders, capleaders;
  ys *akeys, *avals;
  size_t nattr, ca1, ca2;
  raw_piles piles;    /* piles the faction brings into the game (a private deck, Face Dancers...) */
  raw_areas areas;    /* areas it brings onto the board (off the map, or attached by the rules) */
  raw_vars vars;      /* board variables it brings (where an attached area stands...) */
} faction_raw;

static void read_faction(yr *r, faction_raw *f) {
  keyseen ks = {0};
  ys k;
  while (data_map_key(r, &ks, &k)) {
    if (data_keyis(&k, "name")) f->has_name = data_expect_scalar(r, "name", &f->name);
    else if (data_keyis(&k, "aliases")) data_read_list(r, "aliases", &f->aliases);
    else if (data_keyis(&k, "piles")) data_read_piles(r, &f->piles);
    else if (data_keyis(&k, "areas")) data_read_areas(r, &f->areas);
    else if (data_keyis(&k, "variables")) data_read_vars(r, &f->vars);
    else if (data_keyis(&k, "forces")) {
      f->has_forces = true;
      if (!data_expect_map(r, "forces")) continue;
      keyseen ks2 = {0};
      ys k2;
      while (data_map_key(r, &ks2, &k2)) data_read_kv(r, &f->fk, &f->fv, &f->nf, &f->cf1, &f->cf2, &k2);
    } else if (data_keyis(&k, "start")) {
      if (!data_expect_map(r, "start")) continue;
      keyseen ks2 = {0};
      ys k2;
      while (data_map_key(r, &ks2, &k2)) {
        raw_start s;
        memset(&s, 0, sizeof s);
        s.key = k2;
        if (r->ev.type == YAML_MAPPING_START_EVENT) {
          s.is_map = true;
          keyseen ks3 = {0};
          ys k3;
          while (data_map_key(r, &ks3, &k3)) data_read_kv(r, &s.kk, &s.kv, &s.nk, &s.c1, &s.c2, &k3);
        } else if (!data_expect_scalar(r, "a count", &s.val)) continue;
        AVEC_PUSH(&r->ld->ar, f->start, f->nstart, f->capstart, s);
      }
    } else if (data_keyis(&k, "start_options")) {
      if (!data_expect_seq(r, "start_options")) continue;
      while (data_yr_next(r) && r->ev.type != YAML_SEQUENCE_END_EVENT) {
        raw_option o;
        memset(&o, 0, sizeof o);
        o.at = (ys){"", 0, data_ev_span(r), true};
        if (!data_expect_map(r, "a start option")) continue;
        keyseen ks2 = {0};
        ys k2;
        static const char *const ok[] = {"areas", "count"};
        while (data_map_key(r, &ks2, &k2)) {
          if (data_keyis(&k2, "areas")) o.has_areas = true, data_read_list(r, "areas", &o.areas);
          else if (data_keyis(&k2, "count")) o.has_count = data_expect_scalar(r, "count", &o.count);
          else data_unknown_key(r, &k2, "a start option", ok, 2);
        }
        AVEC_PUSH(&r->ld->ar, f->opts, f->nopts, f->capopts, o);
      }
    } else if (data_keyis(&k, "leaders")) {
      if (!data_expect_map(r, "leaders")) continue;
      keyseen ks2 = {0};
      ys k2;
      while (data_map_key(r, &ks2, &k2)) {
        raw_leader l;
        memset(&l, 0, sizeof l);
        l.id = k2;
        if (data_expect_map(r, "a leader")) {
          keyseen ks3 = {0};
          ys k3;
          static const char *const lk[] = {"name", "strength"};
          while (data_map_key(r, &ks3, &k3)) {
            if (data_keyis(&k3, "name")) l.has_name = data_expect_scalar(r, "name", &l.name);
            else if (data_keyis(&k3, "strength")) l.has_strength = data_expect_scalar(r, "strength", &l.strength);
            else data_unknown_key(r, &k3, "a leader", lk, 2);
          }
        }
        AVEC_PUSH(&r->ld->ar, f->leaders, f->nleaders, f->capleaders, l);
      }
    } else data_read_kv(r, &f->akeys, &f->avals, &f->nattr, &f->ca1, &f->ca2, &k);
  }
}

/* The kind named by K for faction F (adding it to the def's kinds when the
 * faction's `forces` introduces it). */
static int kind_of(data_loader *ld, const ys *k, bool add) {
  board_def *def = ld->def;
  int kind = board_kind_index(def, k->s);
  if (kind >= 0 || !add) return kind;
  if (!data_check_id(ld, k, "token kind")) return -1;
  if (def->nkinds >= BOARD_MAX_KINDS) {
    data_lerr(ld, k->sp, "more than %d token kinds", BOARD_MAX_KINDS);
    return -1;
  }
  def->kinds = mt_realloc(def->kinds, (size_t)(def->nkinds + 2) * sizeof *def->kinds);
  def->kinds[def->nkinds] = mt_strdup(k->s);
  return def->nkinds++;
}

static void add_start(board_faction *F, board_start s) {
  F->start = mt_realloc(F->start, (size_t)(F->nstart + 1) * sizeof *F->start);
  F->start[F->nstart++] = s;
}

static void build_faction(data_loader *ld, faction_raw *fr, const char *id, mt_span idsp) {
  board_def *def = ld->def;
  if (def->nfactions >= BOARD_MAX_FACTIONS) {
    data_lerr(ld, idsp, "more than %d factions", BOARD_MAX_FACTIONS);
    return;
  }
  ys idys = {id, strlen(id), idsp, true};
  data_check_id(ld, &idys, "faction");
  if (board_faction_index(def, id) >= 0) {
    data_lerr(ld, idsp, "faction '%s' is already loaded", id);
    return;
  }
  def->factions = mt_realloc(def->factions, (size_t)(def->nfactions + 1) * sizeof *def->factions);
  int fi = def->nfactions++;
  board_faction *F = &def->factions[fi];
  memset(F, 0, sizeof *F);
  F->id = mt_strdup(id);
  F->name = mt_strdup(fr->has_name ? fr->name.s : id);
  for (size_t i = 0; i < fr->aliases.n; i++) { /* a short name: an id of its own, taken by nothing else */
    const ys *a = &fr->aliases.v[i];
    data_check_id(ld, a, "alias");
    bool taken = board_faction_find(def, a->s) >= 0 || !strcmp(a->s, id);
    for (int k = 0; k < F->naliases && !taken; k++) taken = !strcmp(F->aliases[k], a->s);
    if (taken) {
      data_lerr(ld, a->sp, "alias '%s' already names a faction", a->s);
      continue;
    }
    F->aliases = mt_realloc(F->aliases, (size_t)(F->naliases + 1) * sizeof *F->aliases);
    F->aliases[F->naliases++] = mt_strdup(a->s);
  }
  F->default_kind = -1;
  F->attrs = mt_calloc((size_t)def->nfaction_attrs + 1, sizeof *F->attrs);
  for (int k = 0; k < def->nfaction_attrs; k++) F->attrs[k] = def->faction_attrs[k].dflt;
  for (size_t i = 0; i < fr->nattr; i++) {
    int a = board_faction_attr_index(def, fr->akeys[i].s);
    if (a < 0) {
      static const char *const fixed[] = {"name", "aliases", "forces", "start", "start_options", "leaders", "piles", "areas", "variables"};
      size_t nfixed = sizeof fixed / sizeof *fixed, nc = nfixed + (size_t)def->nfaction_attrs;
      const char **c = mt_calloc(nc, sizeof *c);
      for (size_t m = 0; m < nfixed; m++) c[m] = fixed[m];
      for (int m = 0; m < def->nfaction_attrs; m++) c[nfixed + (size_t)m] = def->faction_attrs[m].name;
      const char *sug = diag_suggest(fr->akeys[i].s, c, nc);
      if (sug) data_lerr(ld, fr->akeys[i].sp, "unknown key '%.40s' in faction '%s' (did you mean '%s'?)", fr->akeys[i].s, id, sug);
      else data_lerr(ld, fr->akeys[i].sp, "unknown key '%.40s' in faction '%s' (declare it under 'faction_attributes')", fr->akeys[i].s, id);
      mt_free(c);
      continue;
    }
    const board_attr *at = &def->faction_attrs[a];
    data_conv_value(ld, &fr->avals[i], at->type, at->values, at->nvalues, at->name, &F->attrs[a]);
  }
  /* the areas the sheet brings, before its start entries (which may place tokens in them) */
  data_build_vars(ld, &fr->vars, id);
  data_build_areas(ld, &fr->areas, id);
  if (!fr->has_forces) data_lerr(ld, idsp, "faction '%s' has no 'forces'", id);
  for (size_t i = 0; i < fr->nf; i++) {
    int k = kind_of(ld, &fr->fk[i], true);
    int32_t n;
    if (k < 0 || !data_conv_int(ld, &fr->fv[i], "a token count", 0, 10000, &n)) continue;
    F->forces[k] = n;
    F->kinds |= 1u << k;
    if (F->default_kind < 0) F->default_kind = k;
  }
  int32_t placed[BOARD_MAX_KINDS] = {0};
  mt_span placed_sp[BOARD_MAX_KINDS];
  for (size_t i = 0; i < fr->nstart; i++) {
    raw_start *s = &fr->start[i];
    board_start st = {START_VAR, -1, -1, 0};
    int v = board_var_index(def, s->key.s), p = board_pool_index(def, s->key.s);
    if (v >= 0) {
      if (def->vars[v].scope != BS_FACTION) {
        data_lerr(ld, s->key.sp, "'%s' is not a per-faction variable", s->key.s);
        continue;
      }
      if (s->is_map) {
        data_lerr(ld, s->key.sp, "expected a single value for '%s'", s->key.s);
        continue;
      }
      st.target = v;
      const board_var *bv = &def->vars[v];
      if (!data_conv_value(ld, &s->val, bv->type, bv->values, bv->nvalues, bv->name, &st.count)) continue;
      if (bv->kind == BV_COUNTER && st.count < 0) data_lerr(ld, s->val.sp, "counter '%s' cannot be negative", bv->name);
      else add_start(F, st);
      continue;
    }
    if (p >= 0) {
      st.what = START_POOL;
      st.target = p;
    } else {
      st.what = START_SECTION;
      bool has_at = strchr(s->key.s, '@') != NULL;
      if (!has_at) {
        int a = data_resolve_area(ld, &s->key);
        if (a < 0) continue;
        if (def->areas[a].nsections != 1) {
          data_lerr(ld, s->key.sp, "'%s' spans several sectors: name a section as %s@SECTOR", s->key.s, s->key.s);
          continue;
        }
        st.target = def->areas[a].first_section;
      } else if ((st.target = data_resolve_section(ld, &s->key)) < 0) continue;
    }
    size_t n = s->is_map ? s->nk : 1;
    for (size_t j = 0; j < n; j++) {
      const ys *cnt = s->is_map ? &s->kv[j] : &s->val;
      int k = F->default_kind;
      if (s->is_map) {
        k = kind_of(ld, &s->kk[j], false);
        if (k < 0 || !((F->kinds >> k) & 1u)) {
          data_lerr(ld, s->kk[j].sp, "faction '%s' has no tokens of kind '%s'", id, s->kk[j].s);
          continue;
        }
      }
      if (k < 0 || !data_conv_int(ld, cnt, "a token count", 0, 10000, &st.count)) continue;
      st.kind = k;
      placed[k] += st.count;
      placed_sp[k] = cnt->sp;
      add_start(F, st);
    }
  }
  for (int k = 0; k < def->nkinds && k < BOARD_MAX_KINDS; k++)
    if (placed[k] > F->forces[k])
      data_lerr(ld, placed_sp[k], "faction '%s' places %d %s tokens at the start but has only %d", id, placed[k],
           def->kinds[k], F->forces[k]);
  for (size_t i = 0; i < fr->nopts; i++) {
    raw_option *o = &fr->opts[i];
    board_start_option bo = {0, 0};
    if (!o->has_areas || !o->has_count) data_lerr(ld, o->at.sp, "a start option needs 'areas' and 'count'");
    for (size_t j = 0; j < o->areas.n; j++) {
      int a = data_resolve_area(ld, &o->areas.v[j]);
      if (a >= 0) bo.areas |= 1ull << a;
    }
    int32_t c = 0;
    if (o->has_count && data_conv_int(ld, &o->count, "count", 0, 10000, &c)) bo.count = c;
    F->options = mt_realloc(F->options, (size_t)(F->noptions + 1) * sizeof *F->options);
    F->options[F->noptions++] = bo;
  }
  F->first_leader = def->nleaders;
  for (size_t i = 0; i < fr->nleaders; i++) {
    raw_leader *rl = &fr->leaders[i];
    data_check_id(ld, &rl->id, "leader");
    int other = board_leader_index(def, rl->id.s);
    if (other >= 0) {
      data_lerr(ld, rl->id.sp, "leader '%s' already belongs to faction '%s'", rl->id.s,
           def->factions[def->leaders[other].faction].id);
      continue;
    }
    if (def->nleaders >= BOARD_MAX_LEADERS) { /* leaders_of(f) is a set: bit i is leader i of the whole pack */
      data_lerr(ld, rl->id.sp, "more than %d leaders in all (with the other factions' sheets): sets of leaders hold at most %d",
           BOARD_MAX_LEADERS, BOARD_MAX_LEADERS);
      break;
    }
    int32_t strength = 0;
    if (!rl->has_strength) data_lerr(ld, rl->id.sp, "leader '%s' has no strength", rl->id.s);
    else data_conv_int(ld, &rl->strength, "strength", 0, 1000, &strength);
    def->leaders = mt_realloc(def->leaders, (size_t)(def->nleaders + 1) * sizeof *def->leaders);
    board_leader *L = &def->leaders[def->nleaders++];
    L->id = mt_strdup(rl->id.s);
    L->name = mt_strdup(rl->has_name ? rl->name.s : rl->id.s);
    L->faction = fi;
    L->strength = strength;
  }
  F->nleaders = def->nleaders - F->first_leader;
  /* the piles the sheet brings: declared like the decks file's, for every faction when their scope
   * is faction (a pile of the game's, whichever factions play) */
  data_build_piles(ld, &fr->piles);
}

int data_faction_load(data_loader *ld, const char *name, const char *text, size_t len) {
  int before = ld->errors;
  yr r;
  data_yr_open(&r, ld, name, text, len);
  faction_raw f;
  memset(&f, 0, sizeof f);
  bool root = data_yr_root(&r, "a faction sheet (a mapping)");
  if (root) {
    read_faction(&r, &f);
    data_yr_end(&r);
  }
  bool fatal = r.fatal;
  data_yr_close(&r);
  if (root && !fatal) {
    /* the id is the file's base name without its extension */
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    size_t n = strlen(base);
    if (n > 5 && !strcmp(base + n - 5, ".yaml")) n -= 5;
    char *id = arena_strndup(&ld->ar, base, n);
    mt_span sp = {r.file, 0, 1};
    build_faction(ld, &f, id, sp);
  }
  return ld->errors == before ? 0 : -1;
}
