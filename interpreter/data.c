/* data.c -- the loader of the board file, and the entry points that load a
 * whole pack of components (the decks files are data_decks.c's).
 *
 * Pipeline stage: loading, before anything runs.  Each file is read with the
 * shared YAML reader (data_read.c: libyaml's event API, no aliases, anchors
 * or tags, bounded nesting, duplicate keys refused) into "raw" records of
 * scalars with their spans (in an arena), then checked and resolved into the
 * board_def, so every diagnostic points at the offending scalar whatever
 * order the keys were written in.  The faction files are data_faction.c's;
 * data_state.c reads saved positions with the same reader.
 *
 * Errors never stop the load of a file early unless the YAML itself is
 * broken; the caller learns from the return value that the def is unusable.
 */
#define _POSIX_C_SOURCE 200809L
#include "data.h"
#include "data_read.h"
#include "pack.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

char *data_read_file(data_loader *ld, const char *path, size_t *len) {
  strbuf why = {0};
  char *text = mt_read_file(path, len, &why);
  if (!text) {
    mt_span none = {DIAG_NOFILE, 0, 0};
    data_lerr(ld, none, "%s", why.s);
  }
  sb_free(&why);
  return text;
}

/* ---- declarations (board and decks files) ---------------------------------------------------- */


static bool parse_type(data_loader *ld, const ys *v, board_type *t, unsigned allowed) {
  static const char *const names[] = {"int", "bool", "area", "sector", "faction", "leader", "enum"};
  for (int i = 0; i < 7; i++)
    if (!strcmp(v->s, names[i]) && ((allowed >> i) & 1u)) return *t = (board_type)i, true;
  const char *ok[7];
  size_t n = 0;
  for (int i = 0; i < 7; i++)
    if ((allowed >> i) & 1u) ok[n++] = names[i];
  const char *sug = diag_suggest(v->s, ok, n);
  if (sug) data_lerr(ld, v->sp, "unknown type '%.40s' (did you mean '%s'?)", v->s, sug);
  else data_lerr(ld, v->sp, "unknown or unsupported type '%.40s' here", v->s);
  return false;
}

/* `name: type` or `name: { type:, values:, default:|initial:, scope:, kind: }`.
 * IS_VAR selects the variable keys. */
static void read_decl(yr *r, raw_decl *d, bool is_var) {
  if (data_is_scalar(r)) {
    data_yr_scalar(r, &d->type);
    d->has_type = true;
    return;
  }
  if (!data_expect_map(r, is_var ? "a variable" : "an attribute")) return;
  keyseen ks = {0};
  ys k;
  static const char *const akeys[] = {"type", "values", "default"};
  static const char *const vkeys[] = {"type", "values", "initial", "scope", "kind", "visibility"};
  while (data_map_key(r, &ks, &k)) {
    if (data_keyis(&k, "type")) d->has_type = data_expect_scalar(r, "type", &d->type);
    else if (data_keyis(&k, "values")) d->has_values = true, data_read_list(r, "values", &d->values);
    else if (data_keyis(&k, is_var ? "initial" : "default")) d->has_dflt = data_expect_scalar(r, "a value", &d->dflt);
    else if (is_var && data_keyis(&k, "scope")) d->has_scope = data_expect_scalar(r, "scope", &d->scope);
    else if (is_var && data_keyis(&k, "kind")) d->has_kind = data_expect_scalar(r, "kind", &d->kind);
    else if (is_var && data_keyis(&k, "visibility")) d->has_vis = data_expect_scalar(r, "visibility", &d->vis);
    else data_unknown_key(r, &k, is_var ? "a variable" : "an attribute", is_var ? vkeys : akeys, is_var ? 6 : 3);
  }
}

/* `visibility: public | owner | nobody` (1.11 secrecy is data: who may see an item). */
void data_parse_visibility(data_loader *ld, const ys *v, board_visibility *out) {
  if (!strcmp(v->s, "public")) *out = VIS_PUBLIC;
  else if (!strcmp(v->s, "owner")) *out = VIS_OWNER;
  else if (!strcmp(v->s, "nobody")) *out = VIS_NOBODY;
  else data_lerr(ld, v->sp, "unknown visibility '%.40s' (expected public, owner or nobody)", v->s);
}

static char **ysv_ids(data_loader *ld, const ysv *v, const char *what) {
  char **out = mt_calloc(v->n + 1, sizeof *out);
  for (size_t i = 0; i < v->n; i++) {
    data_check_id(ld, &v->v[i], what);
    for (size_t j = 0; j < i; j++)
      if (!strcmp(v->v[j].s, v->v[i].s)) data_lerr(ld, v->v[i].sp, "'%s' is listed twice", v->v[i].s);
    out[i] = mt_strdup(v->v[i].s);
  }
  return out;
}

/* Turns declarations into board_attrs; ALLOWED is a bitset of board_type. */
void data_make_attrs(data_loader *ld, raw_decl *raw, size_t n, board_attr **out, int *nout,
                       unsigned allowed, const char *what) {
  *out = mt_calloc(n + 1, sizeof **out);
  *nout = 0;
  for (size_t i = 0; i < n; i++) {
    raw_decl *d = &raw[i];
    board_attr a = {0};
    data_check_id(ld, &d->name, what);
    a.type = d->has_values ? BT_ENUM : BT_INT;
    if (d->has_type) parse_type(ld, &d->type, &a.type, allowed);
    if (a.type == BT_ENUM) {
      if (!d->has_values || d->values.n == 0) data_lerr(ld, d->name.sp, "enum %s '%s' needs a list of values", what, d->name.s);
      a.values = ysv_ids(ld, &d->values, "value");
      a.nvalues = (int)d->values.n;
    }
    a.dflt = (a.type == BT_AREA || a.type == BT_SECTOR || a.type == BT_LEADER || a.type == BT_FACTION) ? -1 : 0;
    if (d->has_dflt) data_conv_value(ld, &d->dflt, a.type, a.values, a.nvalues, d->name.s, &a.dflt);
    a.name = mt_strdup(d->name.s);
    (*out)[(*nout)++] = a;
  }
}

#define TYPES_ALL 0x7fu
#define T(x) (1u << (x))

/* ---- board file --------------------------------------------------------------------------------- */

typedef struct board_raw {
  bool has_sectors;
  ys initial_pool, storm_marker;
  bool has_initial_pool, has_storm_marker;
  raw_decl *aattr, *fattr, *vars;
  size_t naattr, capaattr, nfattr, capfattr, nvars, capvars;
  ys *pools, *pool_scope;
  size_t npools, cappools, cappools2;
  ysv tags, kinds, lstatus;
  raw_area *areas;
  size_t nareas, capareas;
} board_raw;

void data_read_decls(yr *r, raw_decl **v, size_t *n, size_t *cap, bool is_var, const char *what) {
  if (!data_expect_map(r, what)) return;
  keyseen ks = {0};
  ys k;
  while (data_map_key(r, &ks, &k)) {
    raw_decl d;
    memset(&d, 0, sizeof d);
    d.name = k;
    read_decl(r, &d, is_var);
    AVEC_PUSH(&r->ld->ar, *v, *n, *cap, d);
  }
}

/* One territory: fixed keys are read here; anything else is an attribute,
 * checked against the declarations once the whole file is read. */
static void read_area(yr *r, raw_area *a) {
  if (!data_expect_map(r, "a territory")) return;
  keyseen ks = {0};
  ys k;
  while (data_map_key(r, &ks, &k)) {
    if (data_keyis(&k, "name")) a->has_name = data_expect_scalar(r, "name", &a->name);
    else if (data_keyis(&k, "tags")) data_read_list(r, "tags", &a->tags);
    else if (data_keyis(&k, "sectors")) a->has_sectors = true, data_read_list(r, "sectors", &a->sectors);
    else if (data_keyis(&k, "borders")) data_read_list(r, "borders", &a->borders);
    else if (data_keyis(&k, "section_borders")) a->has_sb = true, data_read_list(r, "section_borders", &a->sborders);
    else if (data_keyis(&k, "attached_to")) {
      a->has_attach = true;
      a->attach_area.sp = a->attach_sector.sp = k.sp;
      if (!data_expect_map(r, "attached_to")) continue;
      keyseen ks2 = {0};
      ys k2;
      static const char *const ak[] = {"territory", "sector"};
      while (data_map_key(r, &ks2, &k2)) {
        if (data_keyis(&k2, "territory")) data_expect_scalar(r, "territory", &a->attach_area);
        else if (data_keyis(&k2, "sector")) data_expect_scalar(r, "sector", &a->attach_sector);
        else data_unknown_key(r, &k2, "attached_to", ak, 2);
      }
    }
    else if (data_keyis(&k, "sections")) {
      a->has_sections = true;
      if (!data_expect_map(r, "sections")) continue;
      keyseen ks2 = {0};
      ys k2;
      while (data_map_key(r, &ks2, &k2)) {
        raw_section_list sl;
        memset(&sl, 0, sizeof sl);
        sl.key = k2;
        data_read_list(r, "section borders", &sl.refs);
        AVEC_PUSH(&r->ld->ar, a->secs, a->nsecs, a->capsecs, sl);
      }
    } else {
      ys v;
      if (!data_expect_scalar(r, "an attribute", &v)) continue;
      AVEC_PUSH(&r->ld->ar, a->akeys, a->nattr, a->capattr, k);
      a->nattr--;
      AVEC_PUSH(&r->ld->ar, a->avals, a->nattr, a->capattr2, v);
    }
  }
}

/* A mapping WHAT of territories (id -> keys), appended to V. */
static void read_areas(yr *r, const char *what, raw_area **v, size_t *n, size_t *cap) {
  if (!data_expect_map(r, what)) return;
  keyseen ks = {0};
  ys k;
  while (data_map_key(r, &ks, &k)) {
    raw_area a;
    memset(&a, 0, sizeof a);
    a.id = k;
    read_area(r, &a);
    AVEC_PUSH(&r->ld->ar, *v, *n, *cap, a);
  }
}

static void read_board(yr *r, board_raw *b) {
  board_def *def = r->ld->def;
  static const char *const keys[] = {"sectors", "initial_pool", "storm_marker", "tags",
                                     "area_attributes", "faction_attributes", "pools",
                                     "token_kinds", "leader_status", "variables", "territories"};
  keyseen ks = {0};
  ys k;
  while (data_map_key(r, &ks, &k)) {
    if (data_keyis(&k, "sectors")) {
      ys v;
      int32_t n;
      b->has_sectors = true;
      def->nsectors = BOARD_MAX_SECTORS; /* after a bad value: no cascade of range errors */
      if (data_expect_scalar(r, "sectors", &v) && data_conv_int(r->ld, &v, "sectors", 1, BOARD_MAX_SECTORS, &n))
        def->nsectors = n;
    } else if (data_keyis(&k, "initial_pool")) b->has_initial_pool = data_expect_scalar(r, "initial_pool", &b->initial_pool);
    else if (data_keyis(&k, "storm_marker")) b->has_storm_marker = data_expect_scalar(r, "storm_marker", &b->storm_marker);
    else if (data_keyis(&k, "tags")) data_read_list(r, "tags", &b->tags);
    else if (data_keyis(&k, "token_kinds")) data_read_list(r, "token_kinds", &b->kinds);
    else if (data_keyis(&k, "leader_status")) data_read_list(r, "leader_status", &b->lstatus);
    else if (data_keyis(&k, "area_attributes")) data_read_decls(r, &b->aattr, &b->naattr, &b->capaattr, false, "area_attributes");
    else if (data_keyis(&k, "faction_attributes")) data_read_decls(r, &b->fattr, &b->nfattr, &b->capfattr, false, "faction_attributes");
    else if (data_keyis(&k, "variables")) data_read_decls(r, &b->vars, &b->nvars, &b->capvars, true, "variables");
    else if (data_keyis(&k, "pools")) {
      if (!data_expect_map(r, "pools")) continue;
      keyseen ks2 = {0};
      ys k2;
      while (data_map_key(r, &ks2, &k2)) {
        ys scope = k2;
        scope.s = "global";
        if (data_expect_map(r, "a pool")) {
          keyseen ks3 = {0};
          ys k3;
          static const char *const pk[] = {"scope"};
          while (data_map_key(r, &ks3, &k3)) {
            if (data_keyis(&k3, "scope")) data_expect_scalar(r, "scope", &scope);
            else data_unknown_key(r, &k3, "a pool", pk, 1);
          }
        }
        AVEC_PUSH(&r->ld->ar, b->pools, b->npools, b->cappools, k2);
        b->npools--;
        AVEC_PUSH(&r->ld->ar, b->pool_scope, b->npools, b->cappools2, scope);
      }
    } else if (data_keyis(&k, "territories")) read_areas(r, "territories", &b->areas, &b->nareas, &b->capareas);
    else data_unknown_key(r, &k, "the board", keys, sizeof keys / sizeof *keys);
  }
}

bool data_parse_scope(data_loader *ld, const ys *v, board_scope *s, bool section_ok) {
  if (!strcmp(v->s, "global")) return *s = BS_GLOBAL, true;
  if (!strcmp(v->s, "faction")) return *s = BS_FACTION, true;
  if (section_ok && !strcmp(v->s, "section")) return *s = BS_SECTION, true;
  data_lerr(ld, v->sp, "unknown scope '%.40s' (expected global, faction%s)", v->s, section_ok ? " or section" : "");
  return false;
}

/* Resolves one "area@sector" / "area" reference for section borders. */
int data_resolve_section(data_loader *ld, const ys *v) {
  board_def *def = ld->def;
  const char *at = strchr(v->s, '@');
  ys area = *v;
  if (at) area.s = arena_strndup(&ld->ar, v->s, (size_t)(at - v->s));
  int a = data_resolve_area(ld, &area);
  if (a < 0) return -1;
  if (!at) {
    if (def->areas[a].nsections != 1 || def->sections[def->areas[a].first_section].sector >= 0) {
      data_lerr(ld, v->sp, "'%s' spans sectors: name a section as %s@SECTOR", area.s, area.s);
      return -1;
    }
    return def->areas[a].first_section;
  }
  ys sec = *v;
  sec.s = at + 1;
  int32_t n;
  if (!data_conv_int(ld, &sec, "a sector", INT32_MIN + 1L, INT32_MAX, &n)) return -1;
  if (n < 0 || n >= def->nsectors) {
    data_lerr(ld, v->sp, "sector %d out of range (the board has sectors 0..%d)", n, def->nsectors - 1);
    return -1;
  }
  int s = board_section_of(def, a, n);
  if (s < 0) data_lerr(ld, v->sp, "territory '%s' does not span sector %d", area.s, n);
  return s;
}

/* Section border references with their spans, for the symmetry check. */
typedef struct sref {
  int from, to;
  mt_span sp;
} sref;

/* Adds one area read as RA to the def, with its tags, sectors and sections (room for it is made by
 * the caller); its borders and attributes are resolved later, once every area of the file is known. */
static void add_area(data_loader *ld, raw_area *ra) {
  board_def *def = ld->def;
  board_area *a = &def->areas[def->nareas];
  data_check_id(ld, &ra->id, "territory");
  a->id = mt_strdup(ra->id.s);
  a->name = mt_strdup(ra->has_name ? ra->name.s : ra->id.s);
  a->attrs = mt_calloc((size_t)def->narea_attrs + 1, sizeof *a->attrs);
  for (int k = 0; k < def->narea_attrs; k++) a->attrs[k] = def->area_attrs[k].dflt;
  for (size_t t = 0; t < ra->tags.n; t++) {
    int tag = board_tag_index(def, ra->tags.v[t].s);
    if (tag < 0) {
      const char *sug = diag_suggest(ra->tags.v[t].s, (const char *const *)def->tags, (size_t)def->ntags);
      if (sug) data_lerr(ld, ra->tags.v[t].sp, "unknown tag '%.40s' (did you mean '%s'?)", ra->tags.v[t].s, sug);
      else data_lerr(ld, ra->tags.v[t].sp, "unknown tag '%.40s' (declare it under 'tags')", ra->tags.v[t].s);
    } else if (tag < BOARD_MAX_TAGS) a->tags |= 1u << tag;
  }
  if (!ra->has_sectors) data_lerr(ld, ra->id.sp, "territory '%s' has no 'sectors' (write [] for none)", ra->id.s);
  a->first_section = def->nsections;
  for (size_t s = 0; s < ra->sectors.n; s++) {
    int32_t sec;
    if (!data_conv_int(ld, &ra->sectors.v[s], "a sector", INT32_MIN + 1L, INT32_MAX, &sec)) continue;
    if (sec < 0 || sec >= def->nsectors) {
      data_lerr(ld, ra->sectors.v[s].sp, "sector %d out of range (the board has sectors 0..%d)", sec, def->nsectors - 1);
      continue;
    }
    if ((a->sectors >> sec) & 1u) {
      data_lerr(ld, ra->sectors.v[s].sp, "sector %d is listed twice", sec);
      continue;
    }
    a->sectors |= 1u << sec;
    def->sections[def->nsections].area = def->nareas;
    def->sections[def->nsections++].sector = sec;
  }
  if (def->nsections == a->first_section) {
    def->sections[def->nsections].area = def->nareas;
    def->sections[def->nsections++].sector = BOARD_NO_SECTOR;
  }
  a->nsections = def->nsections - a->first_section;
  a->attach_var[0] = a->attach_var[1] = -1;
  def->nareas++;
}

/* Sets area I's attributes from the keys of RA that are not fixed keys (declared under the board's
 * `area_attributes`), with a suggestion for an unknown one. */
static void area_attrs(data_loader *ld, int i, const raw_area *ra) {
  board_def *def = ld->def;
  static const char *const fixed[] = {"name", "tags", "sectors", "borders", "sections", "section_borders"};
  for (size_t j = 0; j < ra->nattr; j++) {
    int k = board_area_attr_index(def, ra->akeys[j].s);
    if (k < 0) {
      size_t nc = 6 + (size_t)def->narea_attrs;
      const char **c = mt_calloc(nc, sizeof *c);
      for (size_t m = 0; m < 6; m++) c[m] = fixed[m];
      for (int m = 0; m < def->narea_attrs; m++) c[6 + m] = def->area_attrs[m].name;
      const char *sug = diag_suggest(ra->akeys[j].s, c, nc);
      if (sug) data_lerr(ld, ra->akeys[j].sp, "unknown key '%.40s' in territory '%s' (did you mean '%s'?)", ra->akeys[j].s, ra->id.s, sug);
      else data_lerr(ld, ra->akeys[j].sp, "unknown key '%.40s' in territory '%s' (declare it under 'area_attributes')", ra->akeys[j].s, ra->id.s);
      mt_free(c);
      continue;
    }
    const board_attr *at = &def->area_attrs[k];
    int32_t v;
    if (!data_conv_value(ld, &ra->avals[j], at->type, at->values, at->nvalues, at->name, &v)) continue;
    if (at->type == BT_SECTOR && v >= 0 && !((def->areas[i].sectors >> v) & 1u)) {
      data_lerr(ld, ra->avals[j].sp, "sector %d is not one of territory '%s''s sectors", v, ra->id.s);
      continue;
    }
    def->areas[i].attrs[k] = v;
  }
}

/* Adds the board variable declared by D to the def (room for it is made by the caller). */
static void add_var(data_loader *ld, const raw_decl *d) {
  board_def *def = ld->def;
  board_var v = {0};
  data_check_id(ld, &d->name, "variable");
  v.len = 1;
  if (d->has_scope) data_parse_scope(ld, &d->scope, &v.scope, true);
  if (d->has_vis) data_parse_visibility(ld, &d->vis, &v.visibility);
  if (d->has_kind) {
    if (!strcmp(d->kind.s, "counter")) v.kind = BV_COUNTER;
    else if (!strcmp(d->kind.s, "marker")) v.kind = BV_MARKER;
    else if (!strcmp(d->kind.s, "flag")) v.kind = BV_FLAG;
    else data_lerr(ld, d->kind.sp, "unknown variable kind '%.40s' (expected counter, marker or flag)", d->kind.s);
  }
  v.type = v.kind == BV_FLAG ? BT_BOOL : d->has_values ? BT_ENUM : BT_INT;
  if (d->has_type) parse_type(ld, &d->type, &v.type, T(BT_INT) | T(BT_BOOL) | T(BT_AREA) | T(BT_SECTOR) | T(BT_FACTION) | T(BT_ENUM));
  if (v.type == BT_ENUM) {
    if (!d->has_values || d->values.n == 0) data_lerr(ld, d->name.sp, "enum variable '%s' needs a list of values", d->name.s);
    v.values = ysv_ids(ld, &d->values, "value");
    v.nvalues = (int)d->values.n;
  }
  v.initial = (v.type == BT_AREA || v.type == BT_SECTOR || v.type == BT_FACTION) ? -1 : 0;
  if (d->has_dflt) data_conv_value(ld, &d->dflt, v.type, v.values, v.nvalues, d->name.s, &v.initial);
  if (v.kind == BV_COUNTER && v.initial < 0) data_lerr(ld, d->name.sp, "counter '%s' cannot start below zero", d->name.s);
  v.name = mt_strdup(d->name.s);
  def->vars[def->nvars++] = v;
}

/* Checks and converts the raw board into DEF.  Order: declarations, areas
 * and their sectors (which define the sections), then borders at both
 * levels, symmetry and agreement between the levels, then attributes. */
static void build_board(data_loader *ld, board_raw *b, uint32_t file) {
  board_def *def = ld->def;
  mt_span top = {file, 0, 1};
  if (!b->has_sectors) {
    data_lerr(ld, top, "the board must declare 'sectors'");
    def->nsectors = BOARD_MAX_SECTORS;
  }
  def->tags = ysv_ids(ld, &b->tags, "tag");
  def->ntags = (int)b->tags.n;
  if (def->ntags > BOARD_MAX_TAGS) data_lerr(ld, b->tags.v[BOARD_MAX_TAGS].sp, "more than %d tags", BOARD_MAX_TAGS);
  def->kinds = ysv_ids(ld, &b->kinds, "token kind");
  def->nkinds = (int)b->kinds.n;
  if (def->nkinds > BOARD_MAX_KINDS) {
    data_lerr(ld, b->kinds.v[BOARD_MAX_KINDS].sp, "more than %d token kinds", BOARD_MAX_KINDS);
    def->nkinds = BOARD_MAX_KINDS;
  }
  def->leader_status = ysv_ids(ld, &b->lstatus, "leader status");
  def->nleader_status = (int)b->lstatus.n;
  if (def->nleader_status > BOARD_MAX_LEADER_STATUS) {
    data_lerr(ld, b->lstatus.v[BOARD_MAX_LEADER_STATUS].sp, "more than %d leader statuses (a set of them holds at most %d)",
         BOARD_MAX_LEADER_STATUS, BOARD_MAX_LEADER_STATUS);
    for (int i = BOARD_MAX_LEADER_STATUS; i < def->nleader_status; i++) mt_free(def->leader_status[i]);
    def->nleader_status = BOARD_MAX_LEADER_STATUS;
  }
  if (def->nleader_status == 0) {
    mt_free(def->leader_status);
    def->leader_status = mt_calloc(2, sizeof(char *));
    def->leader_status[0] = mt_strdup("available");
    def->nleader_status = 1;
  }
  data_make_attrs(ld, b->aattr, b->naattr, &def->area_attrs, &def->narea_attrs,
             T(BT_INT) | T(BT_BOOL) | T(BT_AREA) | T(BT_SECTOR) | T(BT_ENUM), "area attribute");
  data_make_attrs(ld, b->fattr, b->nfattr, &def->faction_attrs, &def->nfaction_attrs,
             T(BT_INT) | T(BT_BOOL) | T(BT_AREA) | T(BT_SECTOR) | T(BT_ENUM), "faction attribute");
  def->pools = mt_calloc(b->npools + 1, sizeof *def->pools);
  for (size_t i = 0; i < b->npools; i++) {
    data_check_id(ld, &b->pools[i], "pool");
    def->pools[i].name = mt_strdup(b->pools[i].s);
    data_parse_scope(ld, &b->pool_scope[i], &def->pools[i].scope, false);
    def->npools++;
  }
  /* areas and sections */
  if (b->nareas > BOARD_MAX_AREAS) {
    data_lerr(ld, b->areas[BOARD_MAX_AREAS].id.sp, "more than %d territories", BOARD_MAX_AREAS);
    b->nareas = BOARD_MAX_AREAS;
  }
  def->areas = mt_calloc(b->nareas + 1, sizeof *def->areas);
  size_t nsec = 0;
  for (size_t i = 0; i < b->nareas; i++) nsec += b->areas[i].sectors.n ? b->areas[i].sectors.n : 1;
  def->sections = mt_calloc(nsec + 1, sizeof *def->sections);
  for (size_t i = 0; i < b->nareas; i++) {
    if (b->areas[i].has_attach)
      data_lerr(ld, b->areas[i].attach_area.sp, "only an area a faction sheet brings may be 'attached_to' a section "
                "(a board territory has borders of its own)");
    add_area(ld, &b->areas[i]);
  }
  if (def->nsections > BOARD_MAX_SECTIONS) data_lerr(ld, top, "more than %d sections", BOARD_MAX_SECTIONS);
  /* area-level borders */
  typedef struct aref { int from, to; mt_span sp; } aref;
  aref *arefs = NULL;
  size_t narefs = 0, caparefs = 0;
  for (int i = 0; i < def->nareas; i++) {
    raw_area *ra = &b->areas[i];
    for (size_t j = 0; j < ra->borders.n; j++) {
      int t = data_resolve_area(ld, &ra->borders.v[j]);
      if (t < 0) continue;
      if (t == i) {
        data_lerr(ld, ra->borders.v[j].sp, "territory '%s' cannot border itself", ra->id.s);
        continue;
      }
      if ((def->areas[i].borders >> t) & 1u) {
        data_lerr(ld, ra->borders.v[j].sp, "border '%s' is listed twice", ra->borders.v[j].s);
        continue;
      }
      def->areas[i].borders |= 1ull << t;
      aref x = {i, t, ra->borders.v[j].sp};
      AVEC_PUSH(&ld->ar, arefs, narefs, caparefs, x);
    }
  }
  for (size_t i = 0; i < narefs; i++)
    if (!((def->areas[arefs[i].to].borders >> arefs[i].from) & 1u))
      data_lerr(ld, arefs[i].sp, "asymmetric border: '%s' lists '%s' but '%s' does not list '%s'",
           def->areas[arefs[i].from].id, def->areas[arefs[i].to].id, def->areas[arefs[i].to].id,
           def->areas[arefs[i].from].id);
  /* section-level borders */
  sref *srefs = NULL;
  size_t nsrefs = 0, capsrefs = 0;
  for (int i = 0; i < def->nareas; i++) {
    raw_area *ra = &b->areas[i];
    board_area *a = &def->areas[i];
    bool sectorless = def->sections[a->first_section].sector < 0;
    if (sectorless && ra->has_sections)
      data_lerr(ld, ra->id.sp, "territory '%s' spans no sector: give its borders as 'section_borders'", ra->id.s);
    if (!sectorless && ra->has_sb)
      data_lerr(ld, ra->id.sp, "territory '%s' spans sectors: give its borders under 'sections'", ra->id.s);
    uint32_t seen = 0;
    for (size_t s = 0; s < ra->nsecs + (sectorless && ra->has_sb ? 1 : 0); s++) {
      ysv *refs;
      int from;
      if (s == ra->nsecs) {
        refs = &ra->sborders;
        from = a->first_section;
      } else {
        raw_section_list *sl = &ra->secs[s];
        int32_t sec;
        refs = &sl->refs;
        if (sectorless || !data_conv_int(ld, &sl->key, "a sector", INT32_MIN + 1L, INT32_MAX, &sec)) continue;
        if (sec < 0 || sec >= def->nsectors) {
          data_lerr(ld, sl->key.sp, "sector %d out of range (the board has sectors 0..%d)", sec, def->nsectors - 1);
          continue;
        }
        from = board_section_of(def, i, sec);
        if (from < 0) {
          data_lerr(ld, sl->key.sp, "territory '%s' does not span sector %d", ra->id.s, sec);
          continue;
        }
        seen |= 1u << sec;
      }
      for (size_t j = 0; j < refs->n; j++) {
        int t = data_resolve_section(ld, &refs->v[j]);
        if (t < 0) continue;
        if (t == from) {
          data_lerr(ld, refs->v[j].sp, "a section cannot border itself");
          continue;
        }
        if (board_sections_border(def, from, t)) {
          data_lerr(ld, refs->v[j].sp, "section border '%s' is listed twice", refs->v[j].s);
          continue;
        }
        board_section *fs = &def->sections[from];
        fs->borders = mt_realloc(fs->borders, (size_t)(fs->nborders + 1) * sizeof *fs->borders);
        fs->borders[fs->nborders++] = t;
        sref x = {from, t, refs->v[j].sp};
        AVEC_PUSH(&ld->ar, srefs, nsrefs, capsrefs, x);
      }
    }
    if (!sectorless)
      for (int k = 0; k < a->nsections; k++) {
        int sec = def->sections[a->first_section + k].sector;
        if (!((seen >> sec) & 1u) && a->nsections > 0 && (ra->has_sections || a->borders))
          data_lerr(ld, ra->id.sp, "territory '%s' gives no section borders for sector %d", ra->id.s, sec);
      }
  }
  char n1[96], n2[96];
  for (size_t i = 0; i < nsrefs; i++) {
    int f = srefs[i].from, t = srefs[i].to;
    if (!board_sections_border(def, t, f))
      data_lerr(ld, srefs[i].sp, "asymmetric border: '%s' lists '%s' but not the other way round",
           board_section_name(def, f, n1, sizeof n1), board_section_name(def, t, n2, sizeof n2));
    int af = def->sections[f].area, at = def->sections[t].area;
    if (af != at && !((def->areas[af].borders >> at) & 1u))
      data_lerr(ld, srefs[i].sp, "section border '%s' - '%s' but territories '%s' and '%s' do not border",
           board_section_name(def, f, n1, sizeof n1), board_section_name(def, t, n2, sizeof n2),
           def->areas[af].id, def->areas[at].id);
  }
  for (size_t i = 0; i < narefs; i++) { /* every territory border has a section contact */
    int f = arefs[i].from, t = arefs[i].to;
    bool contact = false;
    for (int s = 0; s < def->areas[f].nsections && !contact; s++) {
      const board_section *fs = &def->sections[def->areas[f].first_section + s];
      for (int k = 0; k < fs->nborders; k++) contact |= def->sections[fs->borders[k]].area == t;
    }
    if (!contact)
      data_lerr(ld, arefs[i].sp, "territories '%s' and '%s' border but no section of one borders the other",
           def->areas[f].id, def->areas[t].id);
  }
  /* attributes */
  for (int i = 0; i < def->nareas; i++) area_attrs(ld, i, &b->areas[i]);
  /* variables */
  def->vars = mt_calloc(b->nvars + 1, sizeof *def->vars);
  for (size_t i = 0; i < b->nvars; i++) add_var(ld, &b->vars[i]);
  if (b->has_storm_marker) {
    def->storm_var = board_var_index(def, b->storm_marker.s);
    if (def->storm_var < 0) DANGLING(ld, &b->storm_marker, "variable", def->vars, def->nvars, name);
    else if (def->vars[def->storm_var].scope != BS_GLOBAL) {
      data_lerr(ld, b->storm_marker.sp, "the storm marker must be a global variable");
      def->storm_var = -1;
    }
  }
  if (b->has_initial_pool) {
    def->initial_pool = board_pool_index(def, b->initial_pool.s);
    if (def->initial_pool < 0) DANGLING(ld, &b->initial_pool, "pool", def->pools, def->npools, name);
  }
  /* names in start sections share one namespace: keep them apart */
  for (int i = 0; i < def->nvars; i++)
    if (board_pool_index(def, def->vars[i].name) >= 0 || board_area_index(def, def->vars[i].name) >= 0)
      data_lerr(ld, b->vars[i].name.sp, "variable '%s' has the name of a pool or territory", def->vars[i].name);
  for (int i = 0; i < def->npools; i++)
    if (board_area_index(def, def->pools[i].name) >= 0)
      data_lerr(ld, b->pools[i].sp, "pool '%s' has the name of a territory", def->pools[i].name);
}

static int load_board(data_loader *ld, const char *name, const char *text, size_t len) {
  int before = ld->errors;
  yr r;
  data_yr_open(&r, ld, name, text, len);
  if (ld->def->nareas || ld->def->nsectors) {
    mt_span sp = {r.file, 0, 1};
    data_lerr(ld, sp, "a board is already loaded");
    data_yr_close(&r);
    return -1;
  }
  board_raw b;
  memset(&b, 0, sizeof b);
  bool root = data_yr_root(&r, "the board (a mapping)");
  if (root) {
    read_board(&r, &b);
    data_yr_end(&r);
  }
  bool fatal = r.fatal;
  data_yr_close(&r);
  if (root && !fatal) build_board(ld, &b, r.file); /* check what can be checked, even after errors */
  return ld->errors == before ? 0 : -1;
}

/* Reads an `areas:` mapping (id -> a territory's keys) of a faction sheet. */
void data_read_areas(yr *r, raw_areas *b) { read_areas(r, "areas", &b->v, &b->n, &b->cap); }

/* Resolves an area's `attached_to: { territory: VAR, sector: VAR }`: two global board variables, of
 * type area and sector, whose values in a state say where the area stands (docs/language.md). */
static void attach_vars(data_loader *ld, int area, const raw_area *ra) {
  board_def *def = ld->def;
  const ys *names[2] = {&ra->attach_area, &ra->attach_sector};
  static const board_type want[2] = {BT_AREA, BT_SECTOR};
  static const char *const what[2] = {"territory", "sector"};
  int v[2];
  for (int i = 0; i < 2; i++) {
    if (!names[i]->s) {
      data_lerr(ld, names[i]->sp, "'attached_to' of area '%s' needs a '%s' variable", ra->id.s, what[i]);
      return;
    }
    v[i] = board_var_index(def, names[i]->s);
    if (v[i] < 0) {
      DANGLING(ld, names[i], "variable", def->vars, def->nvars, name);
      return;
    }
    if (def->vars[v[i]].scope != BS_GLOBAL || def->vars[v[i]].type != want[i]) {
      data_lerr(ld, names[i]->sp, "'%s' must be a global variable of type %s (the %s area '%s' is attached to)",
                names[i]->s, i ? "sector" : "area", what[i], ra->id.s);
      return;
    }
  }
  def->areas[area].attach_var[0] = v[0];
  def->areas[area].attach_var[1] = v[1];
  def->attached |= 1ull << area;
}

/* Reads a `variables:` mapping of a faction sheet (the board file's shape). */
void data_read_vars(yr *r, raw_vars *b) { data_read_decls(r, &b->v, &b->n, &b->cap, true, "variables"); }

/* Adds the board variables a sheet WHO declares after the board's; a name taken by a variable, pool
 * or area is an error. */
void data_build_vars(data_loader *ld, const raw_vars *b, const char *who) {
  board_def *def = ld->def;
  for (size_t i = 0; i < b->n; i++) {
    const raw_decl *d = &b->v[i];
    if (board_var_index(def, d->name.s) >= 0 || board_pool_index(def, d->name.s) >= 0 || board_area_index(def, d->name.s) >= 0) {
      data_lerr(ld, d->name.sp, "variable '%s' of '%s': the name is already taken by a variable, pool or territory", d->name.s, who);
      continue;
    }
    def->vars = mt_realloc(def->vars, (size_t)(def->nvars + 2) * sizeof *def->vars);
    memset(&def->vars[def->nvars], 0, 2 * sizeof *def->vars);
    add_var(ld, d);
  }
}

/* Adds the areas a pack layer's sheet WHO brings after the board's.  Such an area lies in no sector
 * and borders nothing on the printed board (the board's borders are checked for symmetry in one
 * file): it is off the map, or the rules attach it to a section (docs/language.md, attachments).
 * Its name may be taken by no area, pool or variable. */
void data_build_areas(data_loader *ld, const raw_areas *b, const char *who) {
  board_def *def = ld->def;
  for (size_t i = 0; i < b->n; i++) {
    raw_area ra = b->v[i];
    if (ra.sectors.n || ra.borders.n || ra.has_sections || ra.has_sb) {
      data_lerr(ld, ra.id.sp, "area '%s' of '%s' may have no sectors or borders (an area a faction sheet brings is "
                "off the map, or attached by the rules): give it only a name, tags and attributes", ra.id.s, who);
      continue;
    }
    if (board_area_index(def, ra.id.s) >= 0 || board_pool_index(def, ra.id.s) >= 0 || board_var_index(def, ra.id.s) >= 0) {
      data_lerr(ld, ra.id.sp, "area '%s' of '%s': the name is already taken by a territory, pool or variable", ra.id.s, who);
      continue;
    }
    if (def->nareas >= BOARD_MAX_AREAS || def->nsections >= BOARD_MAX_SECTIONS) {
      data_lerr(ld, ra.id.sp, "area '%s' of '%s': more than %d territories or %d sections in all", ra.id.s, who,
                BOARD_MAX_AREAS, BOARD_MAX_SECTIONS);
      return;
    }
    def->areas = mt_realloc(def->areas, (size_t)(def->nareas + 2) * sizeof *def->areas);
    memset(&def->areas[def->nareas], 0, 2 * sizeof *def->areas);
    def->sections = mt_realloc(def->sections, (size_t)(def->nsections + 2) * sizeof *def->sections);
    memset(&def->sections[def->nsections], 0, 2 * sizeof *def->sections);
    ra.has_sectors = true; /* no sector: one section in none */
    add_area(ld, &ra);
    area_attrs(ld, def->nareas - 1, &ra);
    if (ra.has_attach) attach_vars(ld, def->nareas - 1, &ra);
  }
}

/* ---- public entry points ------------------------------------------------------------------------ */

data_loader *data_loader_new(board_def *def, diag *d) {
  data_loader *ld = mt_calloc(1, sizeof *ld);
  ld->def = def;
  ld->d = d;
  return ld;
}

void data_loader_free(data_loader *ld) {
  if (!ld) return;
  arena_free(&ld->ar);
  mt_free(ld->pend);
  mt_free(ld->dx);
  mt_free(ld);
}

typedef int (*load_fn)(data_loader *, const char *, const char *, size_t);

static int load_path(data_loader *ld, const char *path, load_fn fn) {
  size_t len;
  char *text = data_read_file(ld, path, &len);
  if (!text) return -1;
  int rc = fn(ld, path, text, len);
  mt_free(text);
  return rc;
}

int data_load_board(data_loader *ld, const char *path) { return load_path(ld, path, load_board); }
int data_load_decks(data_loader *ld, const char *path) { return load_path(ld, path, data_load_decks_raw); }
int data_load_decks_adding(data_loader *ld, const char *path, const char *const *adds, size_t nadds) {
  size_t len;
  char *text = data_read_file(ld, path, &len);
  if (!text) return -1;
  int rc = data_load_decks_with(ld, path, text, len, adds, nadds);
  mt_free(text);
  return rc;
}
int data_load_faction(data_loader *ld, const char *path) { return load_path(ld, path, data_faction_load); }
int data_load_board_text(data_loader *ld, const char *name, const char *text, size_t len) {
  return load_board(ld, name, text, len);
}
int data_load_decks_text(data_loader *ld, const char *name, const char *text, size_t len) {
  return data_load_decks_raw(ld, name, text, len);
}
int data_load_faction_text(data_loader *ld, const char *name, const char *text, size_t len) {
  return data_faction_load(ld, name, text, len);
}

/* Generates the leader deck (one card per leader, in faction-file order,
 * belonging to the leader's faction so a game without that faction leaves
 * it out), resolves leader references in card attributes, and precomputes
 * the board tables. */
int data_loader_finish(data_loader *ld) {
  board_def *def = ld->def;
  int before = ld->errors;
  if (def->leader_deck >= 0) {
    int di = def->leader_deck;
    deck_extra *dx = (size_t)di < ld->ndx ? &ld->dx[di] : NULL;
    /* a deck's cards are contiguous: the generated ones go after all others */
    def->decks[di].first_card = def->ncards;
    def->decks[di].ncards = 0;
    for (int i = 0; i < def->nleaders && def->ncards < BOARD_MAX_CARDS; i++) {
      data_add_card(ld, def->leaders[i].id, def->leaders[i].name, di, def->leaders[i].faction);
      board_card *c = &def->cards[def->ncards - 1];
      if (dx)
        for (size_t m = 0; m < dx->nd; m++) data_card_attr(ld, def->ncards - 1, c->attrs, &dx->dkeys[m], &dx->dvals[m]);
      c->attrs[def->leader_attr] = i;
    }
  }
  for (size_t i = 0; i < ld->npend; i++) {
    pending *p = &ld->pend[i];
    int l = board_leader_index(def, p->v.s);
    if (l < 0) {
      if (def->nleaders) DANGLING(ld, &p->v, "leader", def->leaders, def->nleaders, id);
      else data_lerr(ld, p->v.sp, "unknown leader '%.40s'", p->v.s);
      continue;
    }
    def->cards[p->card].attrs[p->attr] = l;
  }
  ld->npend = 0;
  if (def->nsections == 0) {
    mt_span none = {DIAG_NOFILE, 0, 0};
    data_lerr(ld, none, def->nsectors ? "the board has no territories" : "no board loaded");
  }
  if (ld->errors == before) board_def_finish(def);
  return ld->errors == before && ld->errors == 0 ? 0 : -1;
}

board_def *data_load_pack(const pack_files *pf, diag *d) {
  board_def *def = board_def_new();
  data_loader *ld = data_loader_new(def, d);
  int rc = data_load_board(ld, pf->board);
  if (rc == 0) rc = data_load_decks_adding(ld, pf->decks, (const char *const *)pf->decks_add, pf->ndecks_add);
  if (rc == 0 && pf->no_factions) {
    mt_span none = {DIAG_NOFILE, 0, 0};
    data_lerr(ld, none, "cannot open directory '%s'", pf->no_factions);
    rc = -1;
  }
  if (rc == 0) /* every sheet, so each one's errors are reported */
    for (size_t i = 0; i < pf->nyaml; i++)
      if (data_load_faction(ld, pf->yaml[i]) != 0) rc = -1;
  if (rc == 0) rc = data_loader_finish(ld);
  data_loader_free(ld);
  if (rc != 0) {
    board_def_free(def);
    return NULL;
  }
  return def;
}

board_def *data_load_dir(const char *root, diag *d) {
  pack_files pf;
  board_def *def = pack_layer(root, NULL, 0, &pf, d) == 0 ? data_load_pack(&pf, d) : NULL;
  pack_files_fini(&pf);
  return def;
}
