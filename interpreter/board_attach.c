/* board_attach.c -- the geometry of a state: the fixed board plus its attached areas.
 *
 * An attached area (a faction sheet's area with `attached_to: { territory: VAR, sector: VAR }`,
 * docs/components.md) has no sector and no printed border: in a state it stands on one section of
 * another territory, named by two global variables the rules set.  Its only neighbour is that
 * territory, entered from it and left to it, so every path through it is a dead end: distances
 * between fixed territories never change, and an attached area is one step beyond its territory.
 * For the storm it takes the sector of its section (docs/language.md, "Attached areas").
 *
 * Nothing here knows an area: a board with no attached area answers exactly as the fixed geometry
 * of board.c (the functions below fall through to it). */
#include "board.h"

int board_attached_section(const board_layout *L, const unsigned char *st, int area) {
  const board_def *def = L->def;
  if (area < 0 || area >= def->nareas || !((def->attached >> area) & 1u)) return -1;
  const board_area *a = &def->areas[area];
  int32_t t = board_var_get(L, st, a->attach_var[0], 0, 0), sec = board_var_get(L, st, a->attach_var[1], 0, 0);
  if (t < 0 || t >= def->nareas || ((def->attached >> t) & 1u)) return -1; /* nowhere, or on another mobile area */
  int s = board_section_of(def, t, sec);
  if (s < 0 && def->areas[t].nsections == 1) s = def->areas[t].first_section; /* a one-section territory */
  return s;
}

int board_section_at(const board_layout *L, const unsigned char *st, int area, int sector) {
  int s = board_section_of(L->def, area, sector);
  if (s >= 0 || sector < 0) return s;
  int at = board_attached_section(L, st, area); /* an attached area takes its section's sector */
  return at >= 0 && L->def->sections[at].sector == sector ? L->def->areas[area].first_section : -1;
}

/* The territory attached area A stands on, or -1. */
static int host(const board_layout *L, const unsigned char *st, int a) {
  int s = board_attached_section(L, st, a);
  return s < 0 ? -1 : L->def->sections[s].area;
}

/* The attached areas standing on territory T. */
static uint64_t guests(const board_layout *L, const unsigned char *st, int t) {
  uint64_t m = 0;
  for (uint64_t r = L->def->attached; r; r &= r - 1) {
    int a = __builtin_ctzll(r);
    if (host(L, st, a) == t) m |= 1ull << a;
  }
  return m;
}

bool board_borders_at(const board_layout *L, const unsigned char *st, int a, int b) {
  const board_def *def = L->def;
  if (board_borders(def, a, b)) return true;
  if (!def->attached) return false;
  return (host(L, st, a) == b && b >= 0) || (host(L, st, b) == a && a >= 0);
}

uint64_t board_neighbours_at(const board_layout *L, const unsigned char *st, int a) {
  const board_def *def = L->def;
  if (a < 0 || a >= def->nareas) return 0;
  uint64_t m = def->areas[a].borders;
  if (!def->attached) return m;
  int h = host(L, st, a);
  if (h >= 0) m |= 1ull << h;
  return m | guests(L, st, a);
}

/* The territory a path from or to A runs through (A itself when fixed), and the steps it adds. */
static int anchor(const board_layout *L, const unsigned char *st, int a, int *extra) {
  *extra = 0;
  if (!((L->def->attached >> a) & 1u)) return a;
  *extra = 1;
  return host(L, st, a);
}

int board_distance_at(const board_layout *L, const unsigned char *st, int a, int b) {
  const board_def *def = L->def;
  if (!def->attached || a == b) return board_area_distance(def, a, b);
  if (a < 0 || b < 0 || a >= def->nareas || b >= def->nareas) return -1;
  int ea, eb, ta = anchor(L, st, a, &ea), tb = anchor(L, st, b, &eb);
  if (ta < 0 || tb < 0) return -1;
  int d = board_area_distance(def, ta, tb);
  return d < 0 ? -1 : d + ea + eb;
}

uint64_t board_within_at(const board_layout *L, const unsigned char *st, int a, int n) {
  const board_def *def = L->def;
  if (!def->attached) return board_within(def, a, n);
  if (a < 0 || a >= def->nareas || n < 0) return 0;
  uint64_t m = 0;
  for (int b = 0; b < def->nareas; b++) {
    int d = board_distance_at(L, st, a, b);
    if (d >= 0 && d <= n) m |= 1ull << b;
  }
  return m;
}

/* The attached areas reachable in at most N moves by a search whose distance to section S is given
 * by DIST (S's sector must be out of the storm and the area unblocked to be entered). */
static uint64_t reachable_guests(const board_layout *L, const unsigned char *st, int n, uint64_t blocked,
                                 int (*dist)(const board_layout *, const unsigned char *, const void *, int),
                                 const void *from) {
  const board_def *def = L->def;
  uint64_t m = 0;
  for (uint64_t r = def->attached; r; r &= r - 1) {
    int g = __builtin_ctzll(r), s = board_attached_section(L, st, g);
    if (s < 0 || ((blocked >> g) & 1u) || ((blocked >> def->sections[s].area) & 1u) || board_section_in_storm(L, st, s))
      continue;
    int d = dist(L, st, from, s);
    if (d >= 0 && d + 1 <= n) m |= 1ull << g;
  }
  return m;
}

typedef struct from_area { int area; uint64_t blocked; } from_area;
typedef struct from_section { int section; uint64_t blocked; } from_section;

static int dist_area_to(const board_layout *L, const unsigned char *st, const void *p, int s) {
  const from_area *f = p;
  return board_section_distance(L->def, s, f->area, board_storm_sectors(L, st), f->blocked);
}

static int dist_section_to(const board_layout *L, const unsigned char *st, const void *p, int s) {
  const from_section *f = p;
  return board_sections_distance(L->def, f->section, s, board_storm_sectors(L, st), f->blocked);
}

uint64_t board_reachable_from_section_at(const board_layout *L, const unsigned char *st, int section, int n,
                                         uint64_t blocked) {
  const board_def *def = L->def;
  uint32_t storm = board_storm_sectors(L, st);
  uint64_t m = board_reachable_from_section(def, section, n, storm, blocked);
  if (!def->attached || n < 0 || section < 0 || section >= def->nsections) return m;
  from_section f = {section, blocked};
  return m | reachable_guests(L, st, n, blocked, dist_section_to, &f);
}

uint64_t board_reachable_at(const board_layout *L, const unsigned char *st, int a, int n, uint64_t blocked) {
  const board_def *def = L->def;
  uint32_t storm = board_storm_sectors(L, st);
  if (!def->attached) return board_reachable(def, a, n, storm, blocked);
  if (a < 0 || a >= def->nareas || n < 0) return 0;
  if ((def->attached >> a) & 1u) { /* out through the section it stands on, unless the storm is there */
    int s = board_attached_section(L, st, a);
    uint64_t m = 1ull << a;
    if (s < 0 || n < 1 || board_section_in_storm(L, st, s) || ((blocked >> def->sections[s].area) & 1u)) return m;
    return m | board_reachable_from_section_at(L, st, s, n - 1, blocked | (1ull << a));
  }
  from_area f = {a, blocked};
  return board_reachable(def, a, n, storm, blocked) | reachable_guests(L, st, n, blocked, dist_area_to, &f);
}

bool board_area_in_storm_at(const board_layout *L, const unsigned char *st, int area, int sector) {
  const board_def *def = L->def;
  int s = board_section_of(def, area, sector);
  if (s < 0) s = board_section_of(def, area, -1);
  if (s >= 0 && board_section_in_storm(L, st, s)) return true;
  int at = board_attached_section(L, st, area); /* an attached area takes its section's sector */
  return at >= 0 && board_section_in_storm(L, st, at);
}
