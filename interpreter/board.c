/* board.c -- the generic board model: definition tables, geometry queries,
 * the flat state block and its mutation helpers.
 *
 * Pipeline stage: under the VM (which calls these queries) and over data.c
 * (which fills a board_def).  Nothing here names a game concept; see board.h.
 */
#include "board.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>

/* ---- definition --------------------------------------------------------- */

board_def *board_def_new(void) {
  board_def *def = mt_calloc(1, sizeof *def);
  def->initial_pool = -1;
  def->storm_var = -1;
  def->leader_deck = -1;
  def->leader_attr = -1;
  return def;
}

static void free_strv(char **v, int n) {
  for (int i = 0; i < n; i++) mt_free(v[i]);
  mt_free(v);
}

static void free_attrs(board_attr *a, int n) {
  for (int i = 0; i < n; i++) {
    mt_free(a[i].name);
    free_strv(a[i].values, a[i].nvalues);
  }
  mt_free(a);
}

void board_def_free(board_def *def) {
  if (!def) return;
  free_strv(def->tags, def->ntags);
  free_attrs(def->area_attrs, def->narea_attrs);
  free_attrs(def->faction_attrs, def->nfaction_attrs);
  free_attrs(def->card_attrs, def->ncard_attrs);
  for (int i = 0; i < def->npools; i++) mt_free(def->pools[i].name);
  mt_free(def->pools);
  free_strv(def->kinds, def->nkinds);
  free_strv(def->leader_status, def->nleader_status);
  for (int i = 0; i < def->nvars; i++) {
    mt_free(def->vars[i].name);
    free_strv(def->vars[i].values, def->vars[i].nvalues);
  }
  mt_free(def->vars);
  for (int i = 0; i < def->nareas; i++) {
    mt_free(def->areas[i].id);
    mt_free(def->areas[i].name);
    mt_free(def->areas[i].attrs);
  }
  mt_free(def->areas);
  for (int i = 0; i < def->nsections; i++) mt_free(def->sections[i].borders);
  mt_free(def->sections);
  for (int i = 0; i < def->npiles; i++) mt_free(def->piles[i].name);
  mt_free(def->piles);
  for (int i = 0; i < def->ndecks; i++) mt_free(def->decks[i].name);
  mt_free(def->decks);
  for (int i = 0; i < def->ncards; i++) {
    mt_free(def->cards[i].id);
    mt_free(def->cards[i].name);
    mt_free(def->cards[i].attrs);
  }
  mt_free(def->cards);
  for (int i = 0; i < def->nfactions; i++) {
    board_faction *f = &def->factions[i];
    mt_free(f->id);
    mt_free(f->name);
    for (int k = 0; k < f->naliases; k++) mt_free(f->aliases[k]);
    mt_free(f->aliases);
    mt_free(f->attrs);
    mt_free(f->start);
    mt_free(f->options);
  }
  mt_free(def->factions);
  for (int i = 0; i < def->nleaders; i++) {
    mt_free(def->leaders[i].id);
    mt_free(def->leaders[i].name);
  }
  mt_free(def->leaders);
  mt_free(def->area_dist);
  mt_free(def->sect_dist);
  mt_free(def->sect_ready);
  mt_free(def->bfs_memo);
  mt_free(def);
}

static int find_str(char *const *v, int n, const char *s) {
  for (int i = 0; i < n; i++)
    if (strcmp(v[i], s) == 0) return i;
  return -1;
}
#define FIND_FIELD(arr, n, field, s)                                                \
  do {                                                                             \
    for (int i_ = 0; i_ < (n); i_++)                                               \
      if (strcmp((arr)[i_].field, (s)) == 0) return i_;                            \
    return -1;                                                                     \
  } while (0)

int board_area_index(const board_def *def, const char *id) { FIND_FIELD(def->areas, def->nareas, id, id); }
int board_tag_index(const board_def *def, const char *name) { return find_str(def->tags, def->ntags, name); }
int board_pool_index(const board_def *def, const char *name) { FIND_FIELD(def->pools, def->npools, name, name); }
int board_kind_index(const board_def *def, const char *name) { return find_str(def->kinds, def->nkinds, name); }
int board_var_index(const board_def *def, const char *name) { FIND_FIELD(def->vars, def->nvars, name, name); }
int board_pile_index(const board_def *def, const char *name) { FIND_FIELD(def->piles, def->npiles, name, name); }
int board_deck_index(const board_def *def, const char *name) { FIND_FIELD(def->decks, def->ndecks, name, name); }
int board_faction_index(const board_def *def, const char *id) { FIND_FIELD(def->factions, def->nfactions, id, id); }

/* W lower-cased into BUF (ids are written in lower case): false if it does not fit. */
static bool lower(const char *w, char *buf, size_t cap) {
  size_t n = strlen(w);
  if (n + 1 > cap) return false;
  for (size_t i = 0; i <= n; i++) buf[i] = (char)(w[i] >= 'A' && w[i] <= 'Z' ? w[i] - 'A' + 'a' : w[i]);
  return true;
}

int board_faction_find(const board_def *def, const char *w) {
  char low[128];
  const char *forms[2] = {w, lower(w, low, sizeof low) ? low : w};
  for (int t = 0; t < 2; t++) {
    int f = board_faction_index(def, forms[t]);
    if (f >= 0) return f;
    for (int i = 0; i < def->nfactions; i++)
      for (int k = 0; k < def->factions[i].naliases; k++)
        if (!strcmp(def->factions[i].aliases[k], forms[t])) return i;
  }
  return -1;
}

const char *board_lower(const char *w, char *buf, size_t cap) { return lower(w, buf, cap) ? buf : w; }
int board_leader_index(const board_def *def, const char *id) { FIND_FIELD(def->leaders, def->nleaders, id, id); }
int board_leader_status_index(const board_def *def, const char *name) {
  return find_str(def->leader_status, def->nleader_status, name);
}
int board_area_attr_index(const board_def *def, const char *name) {
  FIND_FIELD(def->area_attrs, def->narea_attrs, name, name);
}
int board_faction_attr_index(const board_def *def, const char *name) {
  FIND_FIELD(def->faction_attrs, def->nfaction_attrs, name, name);
}
int board_card_attr_index(const board_def *def, const char *name) {
  FIND_FIELD(def->card_attrs, def->ncard_attrs, name, name);
}

/* "id" is instance 1; "id#k" instance k. */
int board_card_index(const board_def *def, const char *name) {
  const char *hash = strchr(name, '#');
  size_t len = hash ? (size_t)(hash - name) : strlen(name);
  long inst = 1;
  if (hash) {
    char *end;
    inst = strtol(hash + 1, &end, 10);
    if (*end || end == hash + 1) return -1;
  }
  for (int i = 0; i < def->ncards; i++) {
    const board_card *c = &def->cards[i];
    if (strlen(c->id) == len && memcmp(c->id, name, len) == 0 && c->instance == inst) return i;
  }
  return -1;
}

int board_section_of(const board_def *def, int area, int sector) {
  if (area < 0 || area >= def->nareas) return -1;
  const board_area *a = &def->areas[area];
  for (int i = 0; i < a->nsections; i++)
    if (def->sections[a->first_section + i].sector == sector) return a->first_section + i;
  return -1;
}

int board_section_parse(const board_def *def, const char *ref) {
  const char *at = strchr(ref, '@');
  if (!at) {
    int a = board_area_index(def, ref);
    if (a < 0 || def->areas[a].nsections != 1) return -1;
    return def->areas[a].first_section;
  }
  char buf[128];
  size_t len = (size_t)(at - ref);
  if (len >= sizeof buf) return -1;
  memcpy(buf, ref, len);
  buf[len] = 0;
  char *end;
  long sec = strtol(at + 1, &end, 10);
  if (*end || end == at + 1 || sec < 0 || sec >= def->nsectors) return -1;
  return board_section_of(def, board_area_index(def, buf), (int)sec);
}

const char *board_section_name(const board_def *def, int section, char *buf, size_t n) {
  if (section < 0 || section >= def->nsections) {
    snprintf(buf, n, "?");
    return buf;
  }
  const board_section *s = &def->sections[section];
  if (s->sector < 0) snprintf(buf, n, "%s", def->areas[s->area].id);
  else snprintf(buf, n, "%s@%d", def->areas[s->area].id, s->sector);
  return buf;
}

uint64_t board_areas_with_tag(const board_def *def, int tag) {
  uint64_t m = 0;
  for (int a = 0; a < def->nareas; a++)
    if (board_area_has_tag(def, a, tag)) m |= 1ull << a;
  return m;
}

/* ---- geometry -------------------------------------------------------------- */

bool board_borders(const board_def *def, int a, int b) {
  return a >= 0 && a < def->nareas && b >= 0 && b < def->nareas && (def->areas[a].borders >> b) & 1u;
}

bool board_sections_border(const board_def *def, int s, int t) {
  if (s < 0 || s >= def->nsections) return false;
  for (int i = 0; i < def->sections[s].nborders; i++)
    if (def->sections[s].borders[i] == t) return true;
  return false;
}

int board_area_distance(const board_def *def, int a, int b) {
  if (a < 0 || b < 0 || a >= def->nareas || b >= def->nareas || !def->area_dist) return -1;
  uint8_t d = def->area_dist[a * def->nareas + b];
  return d == 255 ? -1 : d;
}

uint64_t board_within(const board_def *def, int area, int n) {
  uint64_t m = 0;
  if (area < 0 || area >= def->nareas || !def->area_dist || n < 0) return 0;
  for (int b = 0; b < def->nareas; b++) {
    uint8_t d = def->area_dist[area * def->nareas + b];
    if (d != 255 && d <= n) m |= 1ull << b;
  }
  return m;
}

uint32_t board_storm_path(const board_def *def, int from, int moves) {
  uint32_t m = 0;
  int ns = def->nsectors;
  if (ns <= 0 || from < 0 || from >= ns || moves <= 0) return 0;
  if (moves > ns) moves = ns;
  for (int i = 1; i <= moves; i++) m |= 1u << ((from + i) % ns);
  return m;
}

uint32_t board_storm_path_to(const board_def *def, int from_sector, int to_sector) {
  int ns = def->nsectors;
  if (ns <= 0 || from_sector < 0 || from_sector >= ns || to_sector < 0 || to_sector >= ns) return 0;
  return board_storm_path(def, from_sector, (to_sector - from_sector + ns) % ns);
}

static bool passable(const board_def *def, int s, uint32_t storm, uint64_t blocked) {
  const board_section *sec = &def->sections[s];
  if (sec->sector >= 0 && ((storm >> sec->sector) & 1u)) return false;
  return !((blocked >> sec->area) & 1u);
}

/* Layered 0-1 breadth-first search over sections: moving inside an area
 * costs 0, crossing into another area costs 1.  SRC lists the start
 * sections (distance 0, never blocked, but a start in storm does not move).
 * DIST receives one byte per section, 255 when unreachable.  No allocation:
 * this runs on the VM's hot path when BLOCKED is non-empty. */
static void section_bfs(const board_def *def, const int *src, int nsrc, uint32_t storm,
                        uint64_t blocked, uint8_t *dist) {
  int16_t order[BOARD_MAX_SECTIONS];
  int ns = def->nsections, n = 0;
  memset(dist, 255, (size_t)ns);
  for (int i = 0; i < nsrc; i++)
    if (dist[src[i]] == 255) {
      dist[src[i]] = 0;
      if (passable(def, src[i], storm, 0)) order[n++] = (int16_t)src[i];
    }
  int start = 0;
  while (start < n) {
    uint8_t d = dist[order[start]];
    for (int i = start; i < n; i++) { /* close the layer over same-area moves */
      const board_section *u = &def->sections[order[i]];
      for (int k = 0; k < u->nborders; k++) {
        int v = u->borders[k];
        if (dist[v] == 255 && def->sections[v].area == u->area && passable(def, v, storm, blocked)) {
          dist[v] = d;
          order[n++] = (int16_t)v;
        }
      }
    }
    int end = n;
    if (d < 254)
      for (int i = start; i < end; i++) {
        const board_section *u = &def->sections[order[i]];
        for (int k = 0; k < u->nborders; k++) {
          int v = u->borders[k];
          if (dist[v] == 255 && passable(def, v, storm, blocked)) {
            dist[v] = (uint8_t)(d + 1);
            order[n++] = (int16_t)v;
          }
        }
      }
    start = end;
  }
}

/* Index of the precomputed table for STORM, or -1 (none: search). */
static int storm_table(const board_def *def, uint32_t storm) {
  if (!def->sect_dist) return -1;
  storm &= def->nsectors >= 32 ? UINT32_MAX : ((1u << def->nsectors) - 1);
  if (storm == 0) return 0;
  if (storm & (storm - 1)) return -1;
  int k = 0;
  while (!((storm >> k) & 1u)) k++;
  return k + 1;
}

/* A search the tables cannot answer, remembered: a rule judging moves asks
 * the same one (the same start, storm and blocked areas) for every
 * destination it judges, and the board never changes.  Direct mapped; an
 * entry holds its whole key, so a hit is the search's own answer. */
#define BFS_MEMO 64
#define BFS_MEMO_SECTIONS 256
typedef struct board_bfs_memo {
  struct {
    uint64_t blocked;
    uint32_t storm;
    int16_t nsrc; /* 0: empty */
    int16_t src[BOARD_MAX_SECTORS + 1];
    uint8_t dist[BFS_MEMO_SECTIONS];
  } e[BFS_MEMO];
} board_bfs_memo;

static const uint8_t *memo_bfs(const board_def *def, const int *src, int nsrc, uint32_t storm, uint64_t blocked,
                               uint8_t *buf) {
  board_bfs_memo *m = def->bfs_memo;
  if (!m || nsrc < 1 || nsrc > BOARD_MAX_SECTORS + 1 || def->nsections > BFS_MEMO_SECTIONS) {
    section_bfs(def, src, nsrc, storm, blocked, buf);
    return buf;
  }
  uint64_t h = (blocked ^ ((uint64_t)storm << 7)) * 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < nsrc; i++) h = (h ^ (uint32_t)src[i]) * (uint64_t)0x100000001b3u;
  int slot = (int)(h >> 58) & (BFS_MEMO - 1);
  bool same = m->e[slot].nsrc == nsrc && m->e[slot].blocked == blocked && m->e[slot].storm == storm;
  for (int i = 0; i < nsrc && same; i++) same = m->e[slot].src[i] == src[i];
  if (!same) {
    section_bfs(def, src, nsrc, storm, blocked, m->e[slot].dist);
    m->e[slot].nsrc = (int16_t)nsrc;
    m->e[slot].blocked = blocked;
    m->e[slot].storm = storm;
    for (int i = 0; i < nsrc; i++) m->e[slot].src[i] = (int16_t)src[i];
  }
  return m->e[slot].dist;
}

/* Distances (per section) from the start sections of an area or a section:
 * a table's row, a remembered search's, or BUF (nsections bytes) filled.
 * Valid until the next search. */
static const uint8_t *dist_from(const board_def *def, const int *src, int nsrc, uint32_t storm,
                                uint64_t blocked, uint8_t *buf) {
  int t = blocked ? -1 : storm_table(def, storm);
  int ns = def->nsections;
  if (t < 0) return memo_bfs(def, src, nsrc, storm, blocked, buf);
  uint8_t *tab = def->sect_dist + (size_t)t * (size_t)ns * (size_t)ns;
  for (int i = 0; i < nsrc; i++) { /* a row is searched the first time it is needed */
    uint8_t *ready = def->sect_ready + (size_t)t * (size_t)ns + (size_t)src[i];
    if (*ready) continue;
    uint32_t st = t == 0 ? 0 : 1u << (t - 1);
    section_bfs(def, &src[i], 1, st, 0, tab + (size_t)src[i] * (size_t)ns);
    *ready = 1;
  }
  if (nsrc == 1) return tab + (size_t)src[0] * (size_t)ns;
  memcpy(buf, tab + (size_t)src[0] * (size_t)ns, (size_t)ns);
  for (int i = 1; i < nsrc; i++) {
    const uint8_t *row = tab + (size_t)src[i] * (size_t)ns;
    for (int s = 0; s < ns; s++)
      if (row[s] < buf[s]) buf[s] = row[s];
  }
  return buf;
}

static uint64_t areas_within(const board_def *def, const uint8_t *dist, int n) {
  uint64_t m = 0;
  for (int s = 0; s < def->nsections; s++)
    if (dist[s] != 255 && dist[s] <= n) m |= 1ull << def->sections[s].area;
  return m;
}

/* Start sections of AREA: those not in storm (all of them if every one is,
 * so that the caller still gets "stays where it is"). */
static int area_sources(const board_def *def, int area, uint32_t storm, int *src) {
  const board_area *a = &def->areas[area];
  int n = 0;
  for (int i = 0; i < a->nsections; i++)
    if (passable(def, a->first_section + i, storm, 0)) src[n++] = a->first_section + i;
  if (n == 0)
    for (int i = 0; i < a->nsections; i++) src[n++] = a->first_section + i;
  return n;
}

uint64_t board_reachable_from_section(const board_def *def, int section, int n, uint32_t storm,
                                      uint64_t blocked) {
  uint8_t buf[BOARD_MAX_SECTIONS];
  if (section < 0 || section >= def->nsections || n < 0) return 0;
  const uint8_t *d = dist_from(def, &section, 1, storm, blocked, buf);
  return areas_within(def, d, n);
}

uint64_t board_reachable(const board_def *def, int area, int n, uint32_t storm, uint64_t blocked) {
  uint8_t buf[BOARD_MAX_SECTIONS];
  int src[BOARD_MAX_SECTORS + 1];
  if (area < 0 || area >= def->nareas || n < 0 || def->areas[area].nsections == 0) return 0;
  int k = area_sources(def, area, storm, src);
  const uint8_t *d = dist_from(def, src, k, storm, blocked, buf);
  return areas_within(def, d, n);
}

static int dist_to_area(const board_def *def, const uint8_t *dist, int area) {
  const board_area *a = &def->areas[area];
  int best = 255;
  for (int i = 0; i < a->nsections; i++)
    if (dist[a->first_section + i] < best) best = dist[a->first_section + i];
  return best == 255 ? -1 : best;
}

int board_distance(const board_def *def, int a, int b, uint32_t storm, uint64_t blocked) {
  uint8_t buf[BOARD_MAX_SECTIONS];
  int src[BOARD_MAX_SECTORS + 1];
  if (a < 0 || b < 0 || a >= def->nareas || b >= def->nareas || def->areas[a].nsections == 0) return -1;
  int k = area_sources(def, a, storm, src);
  const uint8_t *d = dist_from(def, src, k, storm, blocked, buf);
  return dist_to_area(def, d, b);
}

int board_section_distance(const board_def *def, int from, int to_area, uint32_t storm,
                           uint64_t blocked) {
  uint8_t buf[BOARD_MAX_SECTIONS];
  if (from < 0 || from >= def->nsections || to_area < 0 || to_area >= def->nareas) return -1;
  const uint8_t *d = dist_from(def, &from, 1, storm, blocked, buf);
  return dist_to_area(def, d, to_area);
}

int board_sections_distance(const board_def *def, int from, int to, uint32_t storm, uint64_t blocked) {
  uint8_t buf[BOARD_MAX_SECTIONS];
  if (from < 0 || from >= def->nsections || to < 0 || to >= def->nsections) return -1;
  const uint8_t *d = dist_from(def, &from, 1, storm, blocked, buf);
  return d[to] == 255 ? -1 : d[to];
}

/* Area-level all-pairs distances, computed at load, and room for the section
 * distances for "no storm" and for a storm in each single sector: (nsectors+1)
 * * nsections^2 bytes (19 * 86 * 86 = 140 KB for the base map), each row
 * searched the first time a move from that section under that storm is
 * judged (dist_from). */
void board_def_finish(board_def *def) {
  int na = def->nareas, ns = def->nsections;
  mt_free(def->area_dist);
  mt_free(def->sect_dist);
  def->sect_dist = NULL;
  def->area_dist = mt_alloc((size_t)(na ? na * na : 1));
  memset(def->area_dist, 255, (size_t)(na * na));
  for (int a = 0; a < na; a++) { /* BFS per area */
    int q[BOARD_MAX_AREAS], h = 0, t = 0;
    uint8_t *d = def->area_dist + a * na;
    d[a] = 0;
    q[t++] = a;
    while (h < t) {
      int u = q[h++];
      for (int v = 0; v < na; v++)
        if (((def->areas[u].borders >> v) & 1u) && d[v] == 255) {
          d[v] = (uint8_t)(d[u] + 1);
          q[t++] = v;
        }
    }
  }
  def->finished = true;
  if (ns > 256) return; /* a table would pass 2 MB: search every time instead */
  size_t per = (size_t)ns * (size_t)ns;
  def->sect_dist = mt_alloc(per * (size_t)(def->nsectors + 1) + 1);
  mt_free(def->sect_ready);
  def->sect_ready = mt_calloc((size_t)ns * (size_t)(def->nsectors + 1) + 1, 1); /* rows filled when first used */
  mt_free(def->bfs_memo);
  def->bfs_memo = mt_calloc(1, sizeof *def->bfs_memo);
}

/* ---- layout ------------------------------------------------------------------ */

static size_t align_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

/* Computes where each region of the state lives.  The order puts 8-byte
 * data first, then int32, int16 and byte regions, so no padding sits between
 * cells; the block's tail is padded to 8 and zeroed by init (the hash reads
 * every byte). */
/* The first of the NEXTRA rule variables whose name is taken, by a board
 * variable or an earlier rule variable; -1 if none.  A hash set of the names
 * (every game's layout is built with them: no quadratic scan). */
static int first_clash(const board_def *def, const board_var_decl *extra, int nextra) {
  size_t cap = 16;
  while (cap < 2 * ((size_t)def->nvars + (size_t)nextra)) cap *= 2;
  const char **set = mt_calloc(cap, sizeof *set);
  int clash = -1;
  for (int i = 0; i < def->nvars + nextra && clash < 0; i++) {
    const char *name = i < def->nvars ? def->vars[i].name : extra[i - def->nvars].name;
    size_t h = (size_t)mt_hash_bytes(name, strlen(name), 0) & (cap - 1);
    while (set[h] && strcmp(set[h], name) != 0) h = (h + 1) & (cap - 1);
    if (set[h] && i >= def->nvars) clash = i - def->nvars;
    set[h] = name;
  }
  mt_free(set);
  return clash;
}

board_layout *board_layout_new(const board_def *def, const int *factions, int nf,
                               const board_var_decl *extra, int nextra, size_t ext_words,
                               strbuf *err) {
  if (nf < 0 || nf > BOARD_MAX_FACTIONS) {
    if (err) sb_printf(err, "too many factions (%d, at most %d)", nf, BOARD_MAX_FACTIONS);
    return NULL;
  }
  board_layout *L = mt_calloc(1, sizeof *L);
  L->def = def;
  L->nf = nf;
  for (int i = 0; i < BOARD_MAX_FACTIONS; i++) L->game_faction[i] = -1;
  for (int i = 0; i < nf; i++) {
    int f = factions[i];
    if (f < 0 || f >= def->nfactions || f >= BOARD_MAX_FACTIONS || L->game_faction[f] >= 0) {
      if (err) sb_printf(err, "bad or repeated faction in the game's faction list");
      mt_free(L);
      return NULL;
    }
    L->faction[i] = f;
    L->game_faction[f] = i;
  }
  L->nvars = def->nvars + (nextra > 0 ? nextra : 0);
  L->vars = mt_calloc((size_t)L->nvars + 1, sizeof *L->vars);
  L->var_off = mt_calloc((size_t)L->nvars + 1, sizeof *L->var_off);
  for (int i = 0; i < def->nvars; i++) L->vars[i] = def->vars[i]; /* shallow: def owns names */
  int clash = nextra > 0 ? first_clash(def, extra, nextra) : -1;
  for (int i = 0; i < nextra; i++) {
    board_var *v = &L->vars[def->nvars + i];
    if (i == clash || extra[i].len < 1 || extra[i].scope == BS_SECTION || extra[i].width > 2 ||
        extra[i].len % (extra[i].width > 1 ? extra[i].width : 1)) {
      if (err) sb_printf(err, "rule variable '%s' clashes with another or is malformed", extra[i].name);
      board_layout_free(L);
      return NULL;
    }
    v->name = (char *)(uintptr_t)extra[i].name; /* borrowed; never freed through L */
    v->scope = extra[i].scope;
    v->visibility = extra[i].visibility;
    v->kind = BV_MARKER;
    v->type = extra[i].type;
    v->values = (char **)(uintptr_t)extra[i].names; /* borrowed too */
    v->nvalues = extra[i].nnames;
    v->initial = extra[i].initial;
    v->len = extra[i].len;
    v->rule = true;
    v->set = extra[i].set;
    v->width = extra[i].width > 1 ? extra[i].width : 1;
  }
  /* token slots: one per (game faction, kind it has) */
  for (int f = 0; f < BOARD_MAX_FACTIONS; f++)
    for (int k = 0; k < BOARD_MAX_KINDS; k++) L->slot[f][k] = -1;
  for (int f = 0; f < nf; f++)
    for (int k = 0; k < def->nkinds; k++)
      if ((def->factions[L->faction[f]].kinds >> k) & 1u) {
        L->slot_owner[L->nslots] = f;
        L->slot_kind[L->nslots] = k;
        L->slot[f][k] = L->nslots++;
      }
  L->pool_loc = mt_calloc((size_t)def->npools + 1, sizeof *L->pool_loc);
  L->nlocs = def->nsections;
  for (int p = 0; p < def->npools; p++) {
    L->pool_loc[p] = L->nlocs;
    L->nlocs += def->pools[p].scope == BS_FACTION ? nf : 1;
  }
  L->pile_slot = mt_calloc((size_t)def->npiles + 1, sizeof *L->pile_slot);
  for (int p = 0; p < def->npiles; p++) {
    L->pile_slot[p] = L->npile_slots;
    L->npile_slots += def->piles[p].scope == BS_FACTION ? nf : 1;
  }
  L->pile_of_slot = mt_calloc((size_t)L->npile_slots + 1, sizeof *L->pile_of_slot);
  L->owner_of_slot = mt_calloc((size_t)L->npile_slots + 1, sizeof *L->owner_of_slot);
  for (int p = 0; p < def->npiles; p++)
    for (int i = 0; i < (def->piles[p].scope == BS_FACTION ? nf : 1); i++) {
      L->pile_of_slot[L->pile_slot[p] + i] = p;
      L->owner_of_slot[L->pile_slot[p] + i] = def->piles[p].scope == BS_FACTION ? i : -1;
    }
  size_t off = 0;
  L->off_rng = off;
  off += 4 * sizeof(uint64_t);
  L->off_vars = off;
  for (int i = 0; i < L->nvars; i++) {
    board_var *v = &L->vars[i];
    int inst = v->scope == BS_FACTION ? nf : v->scope == BS_SECTION ? def->nsections : 1;
    L->var_off[i] = off;
    off += (size_t)inst * (size_t)v->len * sizeof(int32_t);
  }
  L->off_ext = off;
  L->ext_words = ext_words;
  off += ext_words * sizeof(int32_t);
  L->off_stacks = off;
  off += (size_t)L->nlocs * (size_t)L->nslots * sizeof(int16_t);
  L->off_card_pile = off;
  off += (size_t)def->ncards * sizeof(int16_t);
  L->off_card_pos = off;
  off += (size_t)def->ncards * sizeof(int16_t);
  L->off_pile_n = off;
  off += (size_t)L->npile_slots * sizeof(int16_t);
  L->off_leaders = off;
  off += (size_t)def->nleaders * sizeof(board_leader_state);
  L->off_pile_unknown = off;
  off += (size_t)L->npile_slots * sizeof(int16_t);
  L->off_gen = align_up(off, 8);
  L->nzones = def->nareas + (L->nlocs - def->nsections);
  L->zone_of_loc = mt_calloc((size_t)L->nlocs + 1, sizeof *L->zone_of_loc);
  for (int loc = 0; loc < L->nlocs; loc++)
    L->zone_of_loc[loc] = loc < def->nsections ? def->sections[loc].area : def->nareas + (loc - def->nsections);
  L->size = L->off_gen + (BOARD_NGEN + (size_t)L->nzones + (size_t)L->npile_slots) * sizeof(uint64_t);
  return L;
}

void board_layout_free(board_layout *L) {
  if (!L) return;
  mt_free(L->vars);
  mt_free(L->var_off);
  mt_free(L->pool_loc);
  mt_free(L->pile_slot);
  mt_free(L->pile_of_slot);
  mt_free(L->owner_of_slot);
  mt_free(L->zone_of_loc);
  mt_free(L);
}

/* ---- state access helpers ----------------------------------------------------- */

static int16_t *stacks(const board_layout *L, const unsigned char *st) {
  return (int16_t *)(uintptr_t)(st + L->off_stacks);
}
static int16_t *card_pile(const board_layout *L, const unsigned char *st) {
  return (int16_t *)(uintptr_t)(st + L->off_card_pile);
}
static int16_t *card_pos(const board_layout *L, const unsigned char *st) {
  return (int16_t *)(uintptr_t)(st + L->off_card_pos);
}
static int16_t *pile_n(const board_layout *L, const unsigned char *st) {
  return (int16_t *)(uintptr_t)(st + L->off_pile_n);
}
static int16_t *pile_u(const board_layout *L, const unsigned char *st) {
  return (int16_t *)(uintptr_t)(st + L->off_pile_unknown);
}
static board_leader_state *leaders(const board_layout *L, const unsigned char *st) {
  return (board_leader_state *)(uintptr_t)(st + L->off_leaders);
}
/* The generations (board.h): a clock that never repeats within a process,
 * so two states holding the same generation of a part hold the same part.
 * Each thread counts in a range of its own (2^40 stamps from a base taken
 * once), so games in different threads never share a value either. */
static atomic_uint_fast64_t gen_ranges;
static _Thread_local uint64_t gen_clock;
static void stamp(const board_layout *L, unsigned char *st, size_t word) {
  if (!(gen_clock & ((1ull << 40) - 1))) /* none yet, or the range is spent: a new one */
    gen_clock = ((uint64_t)atomic_fetch_add(&gen_ranges, 1) + 1) << 40;
  uint64_t g = gen_clock++;
  memcpy(st + L->off_gen + word * sizeof g, &g, sizeof g);
}
/* The tokens at location LOC changed (and so the tokens as a whole). */
static void touch_loc(const board_layout *L, unsigned char *st, int loc) {
  stamp(L, st, BOARD_GEN_TOKENS);
  stamp(L, st, board_gen_zone(L, L->zone_of_loc[loc]));
}
/* Pile slot SLOT changed (and so the cards as a whole). */
static void touch_pile(const board_layout *L, unsigned char *st, int slot) {
  stamp(L, st, BOARD_GEN_CARDS);
  stamp(L, st, board_gen_pile(L, slot));
}
void board_touch(const board_layout *L, unsigned char *st, int part) {
  stamp(L, st, (size_t)part);
  if (part == BOARD_GEN_TOKENS)
    for (int z = 0; z < L->nzones; z++) stamp(L, st, board_gen_zone(L, z));
  if (part == BOARD_GEN_CARDS)
    for (int s = 0; s < L->npile_slots; s++) stamp(L, st, board_gen_pile(L, s));
}
static void touch_all(const board_layout *L, unsigned char *st) {
  for (int k = 0; k < BOARD_NGEN; k++) board_touch(L, st, k);
}
static uint64_t *rng(const board_layout *L, const unsigned char *st) {
  return (uint64_t *)(uintptr_t)(st + L->off_rng);
}
static int32_t *var_cell(const board_layout *L, const unsigned char *st, int var, int index, int cell) {
  const board_var *v = &L->vars[var];
  return (int32_t *)(uintptr_t)(st + L->var_off[var]) + (size_t)index * (size_t)v->len + (size_t)cell;
}
static int var_instances(const board_layout *L, int var) {
  board_scope s = L->vars[var].scope;
  return s == BS_FACTION ? L->nf : s == BS_SECTION ? L->def->nsections : 1;
}

static uint64_t splitmix64(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void board_rng_seed(const board_layout *L, unsigned char *st, uint64_t seed) {
  uint64_t *r = rng(L, st);
  for (int i = 0; i < 4; i++) r[i] = splitmix64(&seed);
}

void board_state_init(const board_layout *L, unsigned char *st, uint64_t seed) {
  const board_def *def = L->def;
  memset(st, 0, L->size);
  board_rng_seed(L, st, seed);
  for (int v = 0; v < L->nvars; v++) {
    int inst = var_instances(L, v);
    for (int i = 0; i < inst; i++)
      for (int c = 0; c < L->vars[v].len; c++) *var_cell(L, st, v, i, c) = L->vars[v].initial;
  }
  int16_t *stk = stacks(L, st);
  for (int f = 0; f < L->nf; f++) {
    const board_faction *F = &def->factions[L->faction[f]];
    int32_t placed[BOARD_MAX_KINDS] = {0};
    for (int i = 0; i < F->nstart; i++) {
      const board_start *s = &F->start[i];
      if (s->what == START_VAR) {
        if (def->vars[s->target].scope == BS_FACTION) *var_cell(L, st, s->target, f, 0) = s->count;
        continue;
      }
      int slot = L->slot[f][s->kind];
      if (slot < 0) continue;
      int loc = s->what == START_SECTION ? s->target : board_loc_pool(L, s->target, f);
      stk[(size_t)loc * (size_t)L->nslots + (size_t)slot] = (int16_t)(stk[(size_t)loc * (size_t)L->nslots + (size_t)slot] + s->count);
      placed[s->kind] += s->count;
    }
    if (def->initial_pool >= 0) {
      int loc = board_loc_pool(L, def->initial_pool, f);
      for (int k = 0; k < def->nkinds; k++)
        if (L->slot[f][k] >= 0 && F->forces[k] > placed[k])
          stk[(size_t)loc * (size_t)L->nslots + (size_t)L->slot[f][k]] += (int16_t)(F->forces[k] - placed[k]);
    }
  }
  int16_t *cp = card_pile(L, st), *pos = card_pos(L, st), *pn = pile_n(L, st);
  for (int c = 0; c < def->ncards; c++) {
    const board_card *card = &def->cards[c];
    int pile = def->decks[card->deck].pile;
    if ((card->faction >= 0 && L->game_faction[card->faction] < 0) || pile < 0) {
      cp[c] = -1;
      pos[c] = 0;
      continue;
    }
    int slot = L->pile_slot[pile];
    cp[c] = (int16_t)slot;
    pos[c] = pn[slot]++;
  }
  board_leader_state *ls = leaders(L, st);
  for (int i = 0; i < def->nleaders; i++) {
    ls[i].status = 0;
    ls[i].holder = (int8_t)L->game_faction[def->leaders[i].faction];
    ls[i].area = -1;
    ls[i].used = 0;
  }
  touch_all(L, st);
}

/* The empty position a saved state is loaded into: variables at their
 * initial values, no tokens anywhere, no card in any pile, leaders available
 * and held by their owners, the generator seeded with 0. */
void board_state_clear(const board_layout *L, unsigned char *st) {
  const board_def *def = L->def;
  board_state_init(L, st, 0);
  memset(st + L->off_stacks, 0, (size_t)L->nlocs * (size_t)L->nslots * sizeof(int16_t));
  memset(st + L->off_pile_n, 0, (size_t)L->npile_slots * sizeof(int16_t));
  int16_t *cp = card_pile(L, st), *pos = card_pos(L, st);
  for (int c = 0; c < def->ncards; c++) {
    cp[c] = -1;
    pos[c] = 0;
  }
  touch_all(L, st);
}

/* A card belongs to the game if its faction (if any) is playing. */
bool board_card_in_game(const board_layout *L, int card) {
  if (card < 0 || card >= L->def->ncards) return false;
  int f = L->def->cards[card].faction;
  return f < 0 || L->game_faction[f] >= 0;
}

uint64_t board_state_hash(const board_layout *L, const unsigned char *st) {
  return mt_hash_bytes(st, L->off_gen, 0x6d656e746174ull); /* not the generations: they say when, not what */
}

int board_loc_pool(const board_layout *L, int pool, int owner) {
  if (pool < 0 || pool >= L->def->npools) return -1;
  if (L->def->pools[pool].scope == BS_GLOBAL) return L->pool_loc[pool];
  if (owner < 0 || owner >= L->nf) return -1;
  return L->pool_loc[pool] + owner;
}

int board_loc_is_pool(const board_layout *L, int loc, int *pool, int *owner) {
  if (loc < L->def->nsections) return 0;
  for (int p = L->def->npools - 1; p >= 0; p--)
    if (loc >= L->pool_loc[p]) {
      if (pool) *pool = p;
      if (owner) *owner = L->def->pools[p].scope == BS_FACTION ? loc - L->pool_loc[p] : -1;
      return 1;
    }
  return 0;
}

static int slot_of(const board_layout *L, int owner, int kind) {
  if (owner < 0 || owner >= L->nf || kind < 0 || kind >= BOARD_MAX_KINDS) return -1;
  return L->slot[owner][kind];
}

int board_tokens(const board_layout *L, const unsigned char *st, int loc, int owner, int kind) {
  int slot = slot_of(L, owner, kind);
  if (slot < 0 || loc < 0 || loc >= L->nlocs) return 0;
  return stacks(L, st)[(size_t)loc * (size_t)L->nslots + (size_t)slot];
}

bool board_slot_totals(const board_layout *L, const unsigned char *st, long *totals, int *neg_loc, int *neg_slot) {
  const int16_t *row = stacks(L, st);
  int ns = L->nslots;
  int low = 0;
  for (int k = 0; k < ns; k++) totals[k] = 0;
  for (int loc = 0; loc < L->nlocs; loc++, row += ns)
    for (int k = 0; k < ns; k++) {
      totals[k] += row[k];
      low = row[k] < low ? row[k] : low;
    }
  if (low >= 0) return true;
  row = stacks(L, st); /* a negative stack: find the first, for the message */
  for (int loc = 0; loc < L->nlocs; loc++, row += ns)
    for (int k = 0; k < ns; k++)
      if (row[k] < 0) {
        *neg_loc = loc, *neg_slot = k;
        return false;
      }
  return false;
}

void board_tally_free(board_tally *t) {
  mt_free(t->first);
  mt_free(t->locs);
  mt_free(t->seen);
  mt_free(t->sums);
  mt_free(t->neg);
  memset(t, 0, sizeof *t);
}

bool board_tally_update(board_tally *t, const board_layout *L, const unsigned char *st) {
  int ns = L->nslots, nz = L->nzones;
  if (t->L != L) { /* first use (or another layout): the zones' locations, nothing summed */
    board_tally_free(t);
    t->L = L;
    t->first = mt_calloc((size_t)nz + 2, sizeof *t->first);
    t->locs = mt_calloc((size_t)L->nlocs + 1, sizeof *t->locs);
    for (int loc = 0; loc < L->nlocs; loc++) t->first[L->zone_of_loc[loc] + 2]++;
    for (int z = 0; z < nz; z++) t->first[z + 2] += t->first[z + 1];
    for (int loc = 0; loc < L->nlocs; loc++) t->locs[t->first[L->zone_of_loc[loc] + 1]++] = loc;
    t->seen = mt_calloc((size_t)nz + 1, sizeof *t->seen);
    t->sums = mt_calloc((size_t)nz * (size_t)ns + 1, sizeof *t->sums);
    t->neg = mt_calloc((size_t)nz + 1, sizeof *t->neg);
  }
  const int16_t *stk = stacks(L, st);
  bool sound = true;
  for (int z = 0; z < nz; z++) {
    uint64_t g = board_gen_at(L, st, board_gen_zone(L, z));
    long *sum = t->sums + (size_t)z * (size_t)ns;
    if (g != t->seen[z]) { /* changed since it was summed: take it out of the totals, sum it again */
      for (int k = 0; k < ns; k++) t->totals[k] -= sum[k], sum[k] = 0;
      t->neg[z] = false;
      for (int i = t->first[z]; i < t->first[z + 1]; i++) {
        const int16_t *row = stk + (size_t)t->locs[i] * (size_t)ns;
        for (int k = 0; k < ns; k++) {
          sum[k] += row[k];
          t->neg[z] |= row[k] < 0;
        }
      }
      for (int k = 0; k < ns; k++) t->totals[k] += sum[k];
      t->seen[z] = g;
    }
    sound &= !t->neg[z];
  }
  return sound;
}

int board_check_piles(const board_layout *L, const unsigned char *st, int *bad_card) {
  const int16_t *cp = card_pile(L, st), *cpos = card_pos(L, st), *pn = pile_n(L, st);
  int ncards = L->def->ncards, total = 0;
  size_t words = ((size_t)L->npile_slots * (size_t)ncards + 63) / 64;
  uint64_t seen_small[64], *seen = words <= 64 ? seen_small : mt_calloc(words, sizeof *seen);
  if (words <= 64) memset(seen_small, 0, sizeof seen_small);
  int r = 0;
  for (int c = 0; c < ncards && !r; c++) {
    if (cp[c] < 0) continue; /* not in this game */
    size_t bit = (size_t)cp[c] * (size_t)ncards + (size_t)cpos[c];
    if (cp[c] >= L->npile_slots || cpos[c] < 0 || cpos[c] >= pn[cp[c]]) r = 1;
    else if (seen[bit / 64] >> (bit % 64) & 1u) r = 2;
    else seen[bit / 64] |= 1ull << (bit % 64), total++;
    if (r) *bad_card = c;
  }
  if (!r) {
    int held = 0;
    for (int s = 0; s < L->npile_slots; s++) held += pn[s];
    if (held != total) r = 3, *bad_card = -1;
  }
  if (seen != seen_small) free(seen);
  return r;
}

/* May tokens of OWNER lie at LOC?  A faction pool holds only its owner's. */
static bool loc_accepts(const board_layout *L, int loc, int owner) {
  int pool, po;
  if (loc < 0 || loc >= L->nlocs) return false;
  if (board_loc_is_pool(L, loc, &pool, &po) && po >= 0 && po != owner) return false;
  return true;
}

int board_set_tokens(const board_layout *L, unsigned char *st, int loc, int owner, int kind, int n) {
  int slot = slot_of(L, owner, kind);
  if (slot < 0) return BOARD_EKIND;
  if (!loc_accepts(L, loc, owner)) return loc < 0 || loc >= L->nlocs ? BOARD_ERANGE : BOARD_EKIND;
  if (n < 0 || n > INT16_MAX) return BOARD_ERANGE;
  stacks(L, st)[(size_t)loc * (size_t)L->nslots + (size_t)slot] = (int16_t)n;
  touch_loc(L, st, loc);
  return BOARD_OK;
}

int board_move_tokens(const board_layout *L, unsigned char *st, int owner, int kind, int from,
                      int to, int n) {
  int slot = slot_of(L, owner, kind);
  if (slot < 0) return BOARD_EKIND;
  if (from < 0 || from >= L->nlocs || to < 0 || to >= L->nlocs || n < 0) return BOARD_ERANGE;
  if (!loc_accepts(L, to, owner)) return BOARD_EKIND;
  int16_t *s = stacks(L, st);
  int16_t *a = &s[(size_t)from * (size_t)L->nslots + (size_t)slot];
  int16_t *b = &s[(size_t)to * (size_t)L->nslots + (size_t)slot];
  if (*a < n) return BOARD_ESHORT;
  if (from != to && *b + n > INT16_MAX) return BOARD_ERANGE;
  *a = (int16_t)(*a - n);
  *b = (int16_t)(*b + n);
  touch_loc(L, st, from);
  touch_loc(L, st, to);
  return BOARD_OK;
}

/* OWNER's slots for the token kinds in KINDS (0: all): at most BOARD_MAX_KINDS. */
static int owner_slots(const board_layout *L, int owner, uint32_t kinds, int *out) {
  int n = 0;
  if (owner < 0 || owner >= L->nf) return 0;
  for (int k = 0; k < L->def->nkinds && k < BOARD_MAX_KINDS; k++)
    if (L->slot[owner][k] >= 0 && (kinds == 0 || ((kinds >> k) & 1u))) out[n++] = L->slot[owner][k];
  return n;
}

static int tokens_at_section(const board_layout *L, const int16_t *s, int section, int owner,
                             uint32_t kinds) {
  int slots[BOARD_MAX_KINDS], ns = owner_slots(L, owner, kinds, slots), n = 0;
  const int16_t *row = s + (size_t)section * (size_t)L->nslots;
  for (int i = 0; i < ns; i++) n += row[slots[i]];
  return n;
}

int board_tokens_in_area(const board_layout *L, const unsigned char *st, int area, int owner,
                         uint32_t kinds) {
  if (area < 0 || area >= L->def->nareas) return 0;
  const board_area *a = &L->def->areas[area];
  int n = 0;
  for (int i = 0; i < a->nsections; i++)
    n += tokens_at_section(L, stacks(L, st), a->first_section + i, owner, kinds);
  return n;
}

uint32_t board_factions_in_section(const board_layout *L, const unsigned char *st, int section,
                                   uint32_t kinds) {
  uint32_t m = 0;
  if (section < 0 || section >= L->def->nsections) return 0;
  const int16_t *row = stacks(L, st) + (size_t)section * (size_t)L->nslots;
  for (int slot = 0; slot < L->nslots; slot++)
    if (row[slot] > 0 && (kinds == 0 || ((kinds >> L->slot_kind[slot]) & 1u)))
      m |= 1u << L->slot_owner[slot];
  return m;
}

uint32_t board_factions_in_area(const board_layout *L, const unsigned char *st, int area,
                                uint32_t kinds) {
  uint32_t m = 0;
  if (area < 0 || area >= L->def->nareas) return 0;
  const board_area *a = &L->def->areas[area];
  for (int i = 0; i < a->nsections; i++)
    m |= board_factions_in_section(L, st, a->first_section + i, kinds);
  return m;
}

uint64_t board_occupied(const board_layout *L, const unsigned char *st, int owner, uint32_t kinds) {
  uint64_t m = 0;
  int slots[BOARD_MAX_KINDS], ns = owner_slots(L, owner, kinds, slots);
  const int16_t *row = stacks(L, st);
  for (int sec = 0; sec < L->def->nsections; sec++, row += L->nslots) {
    int n = 0;
    for (int i = 0; i < ns; i++) n += row[slots[i]];
    if (n > 0) m |= 1ull << L->def->sections[sec].area;
  }
  return m;
}

bool board_controls(const board_layout *L, const unsigned char *st, int owner, int area,
                    uint32_t kinds) {
  if (owner < 0 || owner >= L->nf) return false;
  return board_factions_in_area(L, st, area, kinds) == (1u << owner);
}

/* ---- variables ---------------------------------------------------------------------- */

static bool var_ok(const board_layout *L, int var, int index, int cell) {
  return var >= 0 && var < L->nvars && index >= 0 && index < var_instances(L, var) && cell >= 0 &&
         cell < L->vars[var].len;
}

int32_t board_var_get(const board_layout *L, const unsigned char *st, int var, int index, int cell) {
  if (!var_ok(L, var, index, cell)) return 0;
  return *var_cell(L, st, var, index, cell);
}

/* Checks V against the variable's kind and type; reference types accept -1.
 * The rules' variables are checked by the VM, which knows their types. */
static bool value_ok(const board_layout *L, const board_var *v, int32_t x) {
  if (v->rule) return true;
  if (v->kind == BV_COUNTER && x < 0) return false;
  if (v->kind == BV_FLAG) return x == 0 || x == 1;
  switch (v->type) {
  case BT_BOOL: return x == 0 || x == 1;
  case BT_AREA: return x >= -1 && x < L->def->nareas;
  case BT_SECTOR: return x >= -1 && x < L->def->nsectors;
  case BT_FACTION: return x >= -1 && x < L->nf;
  case BT_LEADER: return x >= -1 && x < L->def->nleaders;
  case BT_ENUM: return x >= 0 && x < v->nvalues;
  case BT_INT:
  case BT_CARD:
  case BT_NAME:
  case BT_PILE:
  case BT_LOC: return true;
  }
  return true;
}

int board_var_set(const board_layout *L, unsigned char *st, int var, int index, int cell, int32_t x) {
  if (!var_ok(L, var, index, cell)) return BOARD_ERANGE;
  if (!value_ok(L, &L->vars[var], x)) return L->vars[var].kind == BV_COUNTER && x < 0 ? BOARD_ENEG : BOARD_ERANGE;
  *var_cell(L, st, var, index, cell) = x;
  return BOARD_OK;
}

int board_var_add(const board_layout *L, unsigned char *st, int var, int index, int32_t delta) {
  if (!var_ok(L, var, index, 0)) return BOARD_ERANGE;
  int64_t x = (int64_t)*var_cell(L, st, var, index, 0) + delta;
  if (x > INT32_MAX || x < INT32_MIN) return BOARD_ERANGE;
  return board_var_set(L, st, var, index, 0, (int32_t)x);
}

int64_t board_var_total(const board_layout *L, const unsigned char *st, int var) {
  if (var < 0 || var >= L->nvars) return 0;
  const int32_t *c = var_cell(L, st, var, 0, 0);
  size_t n = (size_t)var_instances(L, var) * (size_t)L->vars[var].len;
  int64_t t = 0;
  for (size_t i = 0; i < n; i++) t += c[i];
  return t;
}

int64_t board_var_area_total(const board_layout *L, const unsigned char *st, int var, int area) {
  if (var < 0 || var >= L->nvars || L->vars[var].scope != BS_SECTION || area < 0 ||
      area >= L->def->nareas)
    return 0;
  const board_area *a = &L->def->areas[area];
  int64_t t = 0; /* several 32-bit cells: summed without wrapping */
  for (int i = 0; i < a->nsections; i++) t += *var_cell(L, st, var, a->first_section + i, 0);
  return t;
}

uint32_t board_storm_sectors(const board_layout *L, const unsigned char *st) {
  int v = L->def->storm_var;
  if (v < 0) return 0;
  int32_t s = board_var_get(L, st, v, 0, 0);
  if (s < 0 || s >= L->def->nsectors) return 0;
  return 1u << s;
}

bool board_section_in_storm(const board_layout *L, const unsigned char *st, int section) {
  if (section < 0 || section >= L->def->nsections) return false;
  int sec = L->def->sections[section].sector;
  return sec >= 0 && ((board_storm_sectors(L, st) >> sec) & 1u);
}

/* ---- piles and cards ------------------------------------------------------------------ */

int board_pile_slot(const board_layout *L, int pile, int owner) {
  if (pile < 0 || pile >= L->def->npiles) return -1;
  if (L->def->piles[pile].scope == BS_GLOBAL) return L->pile_slot[pile];
  if (owner < 0 || owner >= L->nf) return -1;
  return L->pile_slot[pile] + owner;
}

int board_pile_count(const board_layout *L, const unsigned char *st, int slot) {
  if (slot < 0 || slot >= L->npile_slots) return 0;
  return pile_n(L, st)[slot];
}

int board_pile_card(const board_layout *L, const unsigned char *st, int slot, int pos) {
  if (slot < 0 || slot >= L->npile_slots || pos < 0 || pos >= pile_n(L, st)[slot]) return -1;
  const int16_t *cp = card_pile(L, st), *cpos = card_pos(L, st);
  for (int c = 0; c < L->def->ncards; c++)
    if (cp[c] == slot && cpos[c] == pos) return c;
  return -1;
}

int board_card_pile(const board_layout *L, const unsigned char *st, int card, int *pos) {
  if (card < 0 || card >= L->def->ncards) return -1;
  if (pos) *pos = card_pos(L, st)[card];
  return card_pile(L, st)[card];
}

static void unknown_sort(const board_layout *L, unsigned char *st, int slot);

/* Keeps each pile's positions dense: closing the gap in the old pile and
 * opening one in the new pile are both a pass over the cards. */
int board_card_move(const board_layout *L, unsigned char *st, int card, int slot, int pos) {
  if (card < 0 || card >= L->def->ncards || slot < 0 || slot >= L->npile_slots) return BOARD_ERANGE;
  int16_t *cp = card_pile(L, st), *cpos = card_pos(L, st), *pn = pile_n(L, st);
  int16_t *pu = pile_u(L, st);
  int from = cp[card], fpos = cpos[card];
  if (from >= 0) {
    for (int c = 0; c < L->def->ncards; c++)
      if (cp[c] == from && cpos[c] > fpos) cpos[c]--;
    pn[from]--;
    if (fpos < pu[from]) pu[from]--; /* the unknown part stays in card order */
  }
  if (pos < 0 || pos > pn[slot]) pos = pn[slot];
  for (int c = 0; c < L->def->ncards; c++)
    if (c != card && cp[c] == slot && cpos[c] >= pos) cpos[c]++;
  cp[card] = (int16_t)slot;
  cpos[card] = (int16_t)pos;
  pn[slot]++;
  if (pos < pu[slot]) { /* slipped into the undecided part: it joins it (where it sits is forgotten) */
    pu[slot]++;
    unknown_sort(L, st, slot);
  }
  if (from >= 0) touch_pile(L, st, from);
  touch_pile(L, st, slot);
  return BOARD_OK;
}

/* Puts the cards of the pile's unknown part in card-index order. */
static void unknown_sort(const board_layout *L, unsigned char *st, int slot) {
  int16_t *cp = card_pile(L, st), *cpos = card_pos(L, st);
  int u = pile_u(L, st)[slot], k = 0;
  for (int c = 0; c < L->def->ncards; c++)
    if (cp[c] == slot && cpos[c] < u) cpos[c] = (int16_t)k++;
}

int board_pile_unknown(const board_layout *L, const unsigned char *st, int slot) {
  if (slot < 0 || slot >= L->npile_slots) return 0;
  return pile_u(L, st)[slot];
}

void board_pile_forget(const board_layout *L, unsigned char *st, int slot) {
  if (slot < 0 || slot >= L->npile_slots) return;
  pile_u(L, st)[slot] = pile_n(L, st)[slot];
  unknown_sort(L, st, slot);
  touch_pile(L, st, slot);
}

int board_pile_fix(const board_layout *L, unsigned char *st, int slot, int card) {
  if (slot < 0 || slot >= L->npile_slots || card < 0 || card >= L->def->ncards) return BOARD_ERANGE;
  int16_t *cp = card_pile(L, st), *cpos = card_pos(L, st), *pu = pile_u(L, st);
  int u = pu[slot], at = cpos[card];
  if (cp[card] != slot || at >= u) return BOARD_ERANGE;
  for (int c = 0; c < L->def->ncards; c++)
    if (cp[c] == slot && cpos[c] > at && cpos[c] < u) cpos[c]--;
  cpos[card] = (int16_t)(u - 1);
  pu[slot] = (int16_t)(u - 1);
  touch_pile(L, st, slot);
  return BOARD_OK;
}

void board_pile_set_unknown(const board_layout *L, unsigned char *st, int slot, int u) {
  if (slot < 0 || slot >= L->npile_slots) return;
  int n = pile_n(L, st)[slot];
  pile_u(L, st)[slot] = (int16_t)(u < 0 ? 0 : u > n ? n : u);
  unknown_sort(L, st, slot);
  touch_pile(L, st, slot);
}

/* A Fisher-Yates pass over the unknown positions 0..U-1 only: the decided
 * cards above them stay where they are. */
int board_pile_settle(const board_layout *L, unsigned char *st, int slot) {
  int16_t byp[BOARD_MAX_CARDS];
  if (slot < 0 || slot >= L->npile_slots) return 0;
  int16_t *cp = card_pile(L, st), *cpos = card_pos(L, st);
  int u = pile_u(L, st)[slot];
  for (int c = 0; c < L->def->ncards; c++)
    if (cp[c] == slot && cpos[c] < u) byp[cpos[c]] = (int16_t)c;
  for (int i = u - 1; i > 0; i--) {
    int j = (int)board_rng_below(L, st, (uint64_t)i + 1);
    int16_t t = byp[i];
    byp[i] = byp[j];
    byp[j] = t;
  }
  for (int i = 0; i < u; i++) cpos[byp[i]] = (int16_t)i;
  pile_u(L, st)[slot] = 0;
  touch_pile(L, st, slot);
  return u;
}

void board_pile_shuffle(const board_layout *L, unsigned char *st, int slot) {
  int16_t byp[BOARD_MAX_CARDS];
  if (slot < 0 || slot >= L->npile_slots) return;
  int16_t *cp = card_pile(L, st), *cpos = card_pos(L, st);
  int n = pile_n(L, st)[slot];
  for (int c = 0; c < L->def->ncards; c++)
    if (cp[c] == slot) byp[cpos[c]] = (int16_t)c;
  for (int i = n - 1; i > 0; i--) { /* Fisher-Yates */
    int j = (int)board_rng_below(L, st, (uint64_t)i + 1);
    int16_t t = byp[i];
    byp[i] = byp[j];
    byp[j] = t;
  }
  for (int i = 0; i < n; i++) cpos[byp[i]] = (int16_t)i;
  touch_pile(L, st, slot);
}

board_leader_state board_leader_get(const board_layout *L, const unsigned char *st, int leader) {
  board_leader_state none = {-1, -1, -1, 0};
  if (leader < 0 || leader >= L->def->nleaders) return none;
  return leaders(L, st)[leader];
}

int board_leader_set(const board_layout *L, unsigned char *st, int leader, board_leader_state s) {
  if (leader < 0 || leader >= L->def->nleaders || s.status < 0 || s.status >= L->def->nleader_status ||
      s.holder < -1 || s.holder >= L->nf || s.area < -1 || s.area >= L->def->nareas ||
      (s.used != 0 && s.used != 1))
    return BOARD_ERANGE;
  leaders(L, st)[leader] = s;
  stamp(L, st, BOARD_GEN_LEADERS);
  return BOARD_OK;
}

/* ---- random generator: xoshiro256** (Blackman & Vigna) ------------------------------------ */

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t board_rng_next(const board_layout *L, unsigned char *st) {
  uint64_t s[4];
  memcpy(s, st + L->off_rng, sizeof s);
  uint64_t result = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  memcpy(st + L->off_rng, s, sizeof s);
  return result;
}

uint64_t board_rng_below(const board_layout *L, unsigned char *st, uint64_t n) {
  if (n <= 1) return 0;
  uint64_t limit = UINT64_MAX - UINT64_MAX % n; /* reject the biased tail */
  uint64_t x;
  do x = board_rng_next(L, st);
  while (x >= limit);
  return x % n;
}
