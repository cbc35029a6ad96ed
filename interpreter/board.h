/* board.h -- the generic board model: what the rules run against.
 *
 * Pipeline stage: below the VM.  Two halves:
 *
 *  - board_def: the immutable definition of a game's components, loaded from
 *    YAML by data.c (areas with sectors and borders, tags, attributes, pools,
 *    token kinds, variables, piles, cards, factions, leaders) plus the tables
 *    precomputed from it (distances, storm-dependent reachability).  Heap
 *    object: board_def_new / board_def_free.
 *
 *  - the state: ONE flat block of bytes (no pointers), sized by a
 *    board_layout computed from a def, the factions in the game and the
 *    variables the rules declare.  Cloning is memcpy, hashing one pass.
 *
 * Nothing here knows the game being modelled: "reserves", "spice", "storm",
 * "stronghold" are names that come from the data.  Indices are small ints in
 * file order; every name lookup returns -1 when the name is unknown.
 */
#ifndef MENTAT_BOARD_H
#define MENTAT_BOARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util.h"

#define BOARD_MAX_AREAS 64     /* area sets are uint64_t bitsets */
#define BOARD_MAX_SECTORS 32   /* sector sets are uint32_t bitsets */
#define BOARD_MAX_TAGS 32      /* an area's tags are a uint32_t bitset */
#define BOARD_MAX_FACTIONS 32  /* faction sets are uint32_t bitsets */
#define BOARD_MAX_KINDS 16
#define BOARD_MAX_SECTIONS 1024
#define BOARD_MAX_CARDS 4096
#define BOARD_MAX_LEADERS 64   /* leader sets (leaders_of) are uint64_t bitsets of the pack's leaders */
#define BOARD_MAX_LEADER_STATUS 64 /* a leader's status is one byte; sets of statuses are uint64_t bitsets */
#define BOARD_NO_SECTOR (-1)
#define BOARD_NONE (-1)        /* "no faction/area/sector" value of a reference variable */

/* ---- the definition ---------------------------------------------------- */

/* Value types of attributes and variables.  Reference types hold an index
 * (or -1 for none); enums hold an index into the declared values.  The last
 * four only type variables declared by the rules (board_var_decl): a card, a
 * name among the declaration's NAMES (kinds, tags, rules, ...; -1 none), a
 * pile instance and a location (a section or a pool instance). */
typedef enum {
  BT_INT,
  BT_BOOL,
  BT_AREA,
  BT_SECTOR,
  BT_FACTION,
  BT_LEADER,
  BT_ENUM,
  BT_CARD,
  BT_NAME,
  BT_PILE,
  BT_LOC
} board_type;

/* A declared attribute (of areas, factions or cards). */
typedef struct board_attr {
  char *name;
  board_type type;
  char **values; /* BT_ENUM only */
  int nvalues;
  int32_t dflt;
} board_attr;

typedef enum { BS_GLOBAL, BS_FACTION, BS_SECTION } board_scope;
typedef enum { BV_COUNTER, BV_MARKER, BV_FLAG } board_varkind;

/* A variable of the state: a counter (never negative), a marker (any value)
 * or a flag (0/1); `len` cells per instance (rule-declared arrays). */
/* Who may see an item (the console's `view as`; secrecy rule 1.11): everyone,
 * only the faction it belongs to, or nobody (a deck's order). */
typedef enum { VIS_PUBLIC, VIS_OWNER, VIS_NOBODY } board_visibility;

typedef struct board_var {
  char *name;
  board_scope scope;
  board_visibility visibility;
  board_varkind kind;
  board_type type; /* how it is shown and saved */
  char **values;   /* BT_ENUM, BT_NAME */
  int nvalues;
  int32_t initial;
  int len;
  /* declared by the rules (board_var_decl): their faction values are the
   * data's faction indices, not game indices, and the VM checks the values
   * it stores (the board accepts any); a value may be a set (a bitmask over
   * WIDTH cells: 1, or 2 for 64 members) */
  bool rule;
  bool set;
  int width;
} board_var;

typedef struct board_area {
  char *id, *name;
  uint32_t tags;     /* bitset over def->tags */
  uint32_t sectors;  /* bitset of the sectors it spans */
  int first_section; /* its sections are first_section .. +nsections-1 */
  int nsections;
  uint64_t borders;  /* area-level borders */
  int32_t *attrs;    /* def->narea_attrs values */
  int attach_var[2]; /* an attached area: the global variables (area, sector) of the section it is
                      * attached to in a state; -1: a fixed area */
} board_area;

/* An area section: the part of an area lying in one sector (sector -1 for
 * an area in no sector, which has exactly one section). */
typedef struct board_section {
  int area;
  int sector;
  int *borders; /* section indices */
  int nborders;
} board_section;

typedef struct board_pool {
  char *name;
  board_scope scope; /* BS_GLOBAL or BS_FACTION */
} board_pool;

typedef struct board_pile {
  char *name;
  board_scope scope; /* BS_GLOBAL or BS_FACTION */
  board_visibility visibility; /* of its cards (the count is always public) */
} board_pile;

typedef struct board_deck {
  char *name;
  int pile;        /* initial pile (global) */
  int first_card;  /* cards first_card .. +ncards-1 */
  int ncards;
} board_deck;

typedef struct board_card {
  char *id, *name;
  int deck;
  int instance;  /* 1-based among cards with the same id */
  int ninstances;
  int faction;   /* def faction it belongs to, or -1: in every game */
  int32_t *attrs;
} board_card;

typedef struct board_leader {
  char *id, *name;
  int faction; /* def faction index */
  int strength;
} board_leader;

/* One starting placement: COUNT tokens of KIND to a section or pool, or a
 * per-faction variable set to COUNT. */
typedef enum { START_SECTION, START_POOL, START_VAR } board_start_kind;
typedef struct board_start {
  board_start_kind what;
  int target; /* section, pool or variable index */
  int kind;   /* token kind */
  int32_t count;
} board_start;

typedef struct board_start_option {
  uint64_t areas;
  int count;
} board_start_option;

typedef struct board_faction {
  char *id, *name;
  char **aliases;          /* short names players use (`aliases: [bg]`), found by board_faction_find */
  int naliases;
  int32_t *attrs;          /* def->nfaction_attrs values */
  int32_t forces[BOARD_MAX_KINDS]; /* tokens per kind */
  uint32_t kinds;          /* kinds this faction has (bit per kind) */
  int default_kind;        /* the first kind of its sheet */
  int first_leader, nleaders;
  board_start *start;
  int nstart;
  board_start_option *options;
  int noptions;
} board_faction;

typedef struct board_def board_def;
struct board_def {
  int nsectors;
  char **tags;
  int ntags;
  board_attr *area_attrs, *faction_attrs, *card_attrs;
  int narea_attrs, nfaction_attrs, ncard_attrs;
  board_pool *pools;
  int npools;
  char **kinds;
  int nkinds;
  char **leader_status;
  int nleader_status;
  board_var *vars;
  int nvars;
  board_area *areas;
  int nareas;
  board_section *sections;
  int nsections;
  board_pile *piles;
  int npiles;
  board_deck *decks;
  int ndecks;
  board_card *cards;
  int ncards;
  board_faction *factions;
  int nfactions;
  board_leader *leaders;
  int nleaders;
  int initial_pool; /* where unplaced tokens start, or -1 */
  int storm_var;    /* global variable holding the storm sector, or -1 */
  uint64_t attached; /* the attached areas (board_area.attach_var) */
  int leader_deck;  /* deck generated from leaders (traitor cards), or -1 */
  int leader_attr;  /* card attribute set to the leader, or -1 */
  /* precomputed by board_def_finish */
  bool finished;
  uint8_t *area_dist;    /* [a*nareas+b], storm-independent; 255 = unreachable */
  uint8_t *sect_dist;    /* [(storm+1)*ns*ns + s*ns + t] 0-1 distances; storm -1 = none */
  uint8_t *sect_ready;   /* [(storm+1)*ns + s]: that row of sect_dist is filled (rows are filled on first
                            use, through a const pointer: a cache, never seen to change; no threads) */
  struct board_bfs_memo *bfs_memo; /* the last searches the tables cannot answer (areas blocked, a storm
                                      over several sectors), by their starts, storm and blocked areas
                                      (dist_from); a cache like sect_dist */
};

board_def *board_def_new(void);
void board_def_free(board_def *def);
/* Builds the derived tables (section lists, distances per storm position).
 * data.c calls it once everything is loaded and validated. */
void board_def_finish(board_def *def);

int board_area_index(const board_def *def, const char *id);
int board_tag_index(const board_def *def, const char *name);
int board_pool_index(const board_def *def, const char *name);
int board_kind_index(const board_def *def, const char *name);
int board_var_index(const board_def *def, const char *name);
int board_pile_index(const board_def *def, const char *name);
int board_deck_index(const board_def *def, const char *name);
int board_faction_index(const board_def *def, const char *id);
/* A faction as players write it: its id, one of its aliases (the sheet's `aliases`), in any
 * case; -1 if none. */
int board_faction_find(const board_def *def, const char *w);
/* W in lower case (ids are), in BUF; W itself if it does not fit. */
const char *board_lower(const char *w, char *buf, size_t cap);
int board_leader_index(const board_def *def, const char *id);
int board_leader_status_index(const board_def *def, const char *name);
/* First card with this id (instance 1), or -1; "id#k" names instance k. */
int board_card_index(const board_def *def, const char *name);
int board_area_attr_index(const board_def *def, const char *name);
int board_faction_attr_index(const board_def *def, const char *name);
int board_card_attr_index(const board_def *def, const char *name);
/* The section of AREA in SECTOR (any section if the area has no sector and
 * SECTOR is -1), or -1.  "area@sector" / "area" parsing: */
int board_section_of(const board_def *def, int area, int sector);
int board_section_parse(const board_def *def, const char *ref);
/* Writes "area@sector" (or "area") into buf; returns buf. */
const char *board_section_name(const board_def *def, int section, char *buf, size_t n);

static inline bool board_area_has_tag(const board_def *def, int area, int tag) {
  return tag >= 0 && tag < def->ntags && tag < BOARD_MAX_TAGS && (def->areas[area].tags >> tag) & 1u;
}
static inline int32_t board_area_attr(const board_def *def, int area, int attr) {
  return def->areas[area].attrs[attr];
}
/* Areas carrying TAG (bitset). */
uint64_t board_areas_with_tag(const board_def *def, int tag);

/* ---- storm-independent geometry --------------------------------------- */

bool board_borders(const board_def *def, int a, int b);
/* Borders between two sections (section level). */
bool board_sections_border(const board_def *def, int s, int t);
/* Number of area-level borders to cross from A to B (0 for A == B), or -1. */
int board_area_distance(const board_def *def, int a, int b);
/* Areas at most N borders away from AREA (AREA included).  Ignores storm. */
uint64_t board_within(const board_def *def, int area, int n);
/* The sectors a storm moving MOVES sectors from FROM passes through or stops
 * in: from+1 .. from+moves (mod nsectors).  Sectors are numbered in the
 * direction the storm moves.  moves >= nsectors gives every sector. */
uint32_t board_storm_path(const board_def *def, int from_sector, int moves);
/* The same between two storm positions (moving forward from FROM to TO). */
uint32_t board_storm_path_to(const board_def *def, int from_sector, int to_sector);

/* ---- movement with a storm --------------------------------------------
 * Movement is counted in area borders crossed; moving between sections of
 * one area is free but goes section to section along section borders, so a
 * partly stormed area can be crossed through its unstormed sections.  A
 * section is impassable when its sector is in STORM (a sector bitset; areas
 * in no sector are never in storm) and every section of an area in BLOCKED
 * is impassable (an occupancy limit; the caller decides which areas).  The
 * starting sections are never blocked by BLOCKED, but a start section in
 * storm cannot move.  Distances are precomputed for "no storm" and for each
 * single-sector storm; other combinations are searched on the fly. */
uint64_t board_reachable_from_section(const board_def *def, int section, int n, uint32_t storm,
                                      uint64_t blocked);
/* From any unstormed section of AREA. */
uint64_t board_reachable(const board_def *def, int area, int n, uint32_t storm, uint64_t blocked);
/* Least number of borders from (any unstormed section of) A to B, or -1. */
int board_distance(const board_def *def, int a, int b, uint32_t storm, uint64_t blocked);
int board_section_distance(const board_def *def, int from_section, int to_area, uint32_t storm,
                           uint64_t blocked);
/* Moves from section FROM to section TO avoiding the storm and BLOCKED (-1: none). */
int board_sections_distance(const board_def *def, int from, int to, uint32_t storm, uint64_t blocked);

/* ---- the state layout --------------------------------------------------- */

/* A variable declared by the rules, appended to the data's variables.  The
 * type says how its values are saved and which ones a saved position may
 * give (BT_INT, the zero default: any integer). */
typedef struct board_var_decl {
  const char *name;
  board_scope scope; /* BS_GLOBAL or BS_FACTION */
  int len;           /* cells; 1 for a scalar */
  board_visibility visibility; /* VIS_OWNER for a `secret var` (per faction) */
  board_type type;
  bool set;          /* a set of TYPE (a bitmask) */
  int width;         /* cells per value: 1 (0 means 1), or 2 for a 64-bit set */
  const char *const *names; /* BT_NAME: the names, borrowed */
  int nnames;
  int32_t initial;   /* every cell's value in an empty position */
} board_var_decl;

typedef struct board_layout {
  const board_def *def; /* borrowed; must outlive the layout */
  int nf;               /* factions in the game */
  int faction[BOARD_MAX_FACTIONS]; /* game faction -> def faction */
  int game_faction[BOARD_MAX_FACTIONS]; /* def faction -> game faction or -1 */
  board_var *vars;      /* def vars followed by the rule-declared ones */
  int nvars;
  size_t *var_off;      /* byte offset of each variable's first cell */
  int nslots;           /* (owner, kind) slots */
  int slot[BOARD_MAX_FACTIONS][BOARD_MAX_KINDS]; /* -1 when the faction lacks the kind */
  int slot_owner[BOARD_MAX_FACTIONS * BOARD_MAX_KINDS], slot_kind[BOARD_MAX_FACTIONS * BOARD_MAX_KINDS];
  int nlocs;            /* sections, then pool instances */
  int *pool_loc;        /* [pool] first location of each pool */
  int npile_slots;
  int *pile_slot;       /* [pile] first pile slot */
  int *pile_of_slot;    /* [pile slot] pile */
  int *owner_of_slot;   /* [pile slot] game faction or -1 */
  size_t off_rng, off_vars, off_stacks, off_card_pile, off_card_pos, off_pile_n, off_leaders,
      off_ext, off_pile_unknown, off_gen;
  int nzones;           /* token zones: an area (all its sections) each, then a pool instance each */
  int *zone_of_loc;     /* [location] its zone */
  size_t ext_words;
  size_t size;          /* bytes in a state block */
} board_layout;

/* FACTIONS: def faction indices, in game order (that order is the game
 * faction index everywhere below).  EXTRA: rule-declared variables (may be
 * NULL; their names are borrowed and must outlive the layout).  EXT_WORDS: int32 words reserved for the caller (the VM's
 * continuation).  Returns NULL (and fills ERR) on a bad faction list or a
 * name clash. */
board_layout *board_layout_new(const board_def *def, const int *factions, int nf,
                               const board_var_decl *extra, int nextra, size_t ext_words,
                               strbuf *err);
void board_layout_free(board_layout *L);

/* ---- the state block ----------------------------------------------------- */

/* Leader record in the state. */
typedef struct board_leader_state {
  int8_t status; /* index into def->leader_status */
  int8_t holder; /* game faction holding it (the owner unless captured), -1 none */
  int8_t area;   /* area where it is (was) used, -1 none */
  int8_t used;   /* used this turn */
} board_leader_state;

/* Error codes of the mutation helpers: they leave the state untouched. */
enum { BOARD_OK = 0, BOARD_ERANGE = -1, BOARD_ESHORT = -2, BOARD_EKIND = -3, BOARD_ENEG = -4 };

/* Creates the start position: every variable at its initial value, each
 * faction's tokens where its sheet puts them (the rest in the initial pool),
 * its starting variables, every card in its deck's pile in file order (cards
 * of factions not in the game in no pile), leaders available, the random
 * generator seeded.  ST must hold L->size bytes. */
void board_state_init(const board_layout *L, unsigned char *st, uint64_t seed);
/* Variables initial, no tokens, no card in a pile, leaders available. */
void board_state_clear(const board_layout *L, unsigned char *st);
bool board_card_in_game(const board_layout *L, int card);
static inline void board_state_clone(const board_layout *L, unsigned char *dst,
                                     const unsigned char *src) {
  memcpy(dst, src, L->size);
}
uint64_t board_state_hash(const board_layout *L, const unsigned char *st);
/* Generations: the last words of a state say, for the tokens, the cards and
 * piles, and the leaders, which write last changed them -- each part as a
 * whole, and finer: the tokens of each zone (an area, a pool instance) and
 * each pile.  Every mutation helper below stamps what it changed with a value
 * never used before in this process, so two states (a game and its clones)
 * holding the same generation of a part hold the same part: a cache keyed by
 * it needs no comparison of the part itself.  They are not the position (the
 * hash leaves them out); code that writes a part behind the helpers' backs
 * must call board_touch, which stamps the part and all its zones or piles. */
enum { BOARD_GEN_TOKENS, BOARD_GEN_CARDS, BOARD_GEN_LEADERS, BOARD_NGEN };
void board_touch(const board_layout *L, unsigned char *st, int part);
static inline uint64_t board_gen_at(const board_layout *L, const unsigned char *st, size_t word) {
  uint64_t g;
  memcpy(&g, st + L->off_gen + word * sizeof g, sizeof g);
  return g;
}
static inline uint64_t board_gen(const board_layout *L, const unsigned char *st, int part) {
  return board_gen_at(L, st, (size_t)part);
}
/* The word of zone Z's tokens, of pile slot S, among the generations. */
static inline size_t board_gen_zone(const board_layout *L, int z) { (void)L; return BOARD_NGEN + (size_t)z; }
static inline size_t board_gen_pile(const board_layout *L, int slot) {
  return BOARD_NGEN + (size_t)L->nzones + (size_t)slot;
}

/* Locations: a section index, or a pool instance. */
int board_loc_pool(const board_layout *L, int pool, int owner);
static inline int board_loc_section(int section) { return section; }
int board_loc_is_pool(const board_layout *L, int loc, int *pool, int *owner);

/* Token counts.  OWNER is a game faction, KIND a def kind. */
int board_tokens(const board_layout *L, const unsigned char *st, int loc, int owner, int kind);
int board_set_tokens(const board_layout *L, unsigned char *st, int loc, int owner, int kind, int n);
/* Moves N tokens; BOARD_ESHORT if fewer are there, BOARD_EKIND if the owner
 * has no such kind or a faction pool would receive another owner's tokens. */
int board_move_tokens(const board_layout *L, unsigned char *st, int owner, int kind, int from,
                      int to, int n);
/* Tokens of OWNER of the kinds in KINDS (bitset; 0 means all kinds) in AREA. */
int board_tokens_in_area(const board_layout *L, const unsigned char *st, int area, int owner,
                         uint32_t kinds);
/* Game factions with tokens of KINDS in AREA / in SECTION (bitsets). */
uint32_t board_factions_in_area(const board_layout *L, const unsigned char *st, int area,
                                uint32_t kinds);
uint32_t board_factions_in_section(const board_layout *L, const unsigned char *st, int section,
                                   uint32_t kinds);
/* Areas where OWNER has tokens of KINDS. */
uint64_t board_occupied(const board_layout *L, const unsigned char *st, int owner, uint32_t kinds);
/* OWNER is the only faction with tokens of KINDS in AREA. */
bool board_controls(const board_layout *L, const unsigned char *st, int owner, int area,
                    uint32_t kinds);

/* Variables.  INDEX selects the faction (BS_FACTION), the section
 * (BS_SECTION) or 0 (BS_GLOBAL); CELL the cell of an array variable. */
int32_t board_var_get(const board_layout *L, const unsigned char *st, int var, int index, int cell);
int board_var_set(const board_layout *L, unsigned char *st, int var, int index, int cell, int32_t v);
/* Adds DELTA; a counter refuses to go negative (BOARD_ENEG). */
int board_var_add(const board_layout *L, unsigned char *st, int var, int index, int32_t delta);
/* Every slot's tokens summed over every location, in one pass: TOTALS has
 * L->nslots entries.  False if some stack is negative (the first in
 * *NEG_LOC, *NEG_SLOT). */
bool board_slot_totals(const board_layout *L, const unsigned char *st, long *totals, int *neg_loc, int *neg_slot);
/* The same totals kept from one look to the next, zone by zone: a zone whose
 * generation (the tokens of an area or a pool) is the one last summed is not
 * summed again.  Zero-initialise; one tally follows states of one layout. */
typedef struct board_tally {
  const board_layout *L;
  int *first, *locs;     /* the locations of each zone: locs[first[z]] .. locs[first[z + 1] - 1] */
  uint64_t *seen;        /* [zone] the generation summed (0: none yet; the clock never gives 0) */
  long *sums;            /* [zone * nslots + slot] */
  bool *neg;             /* [zone] a negative stack there */
  long totals[BOARD_MAX_FACTIONS * BOARD_MAX_KINDS];
} board_tally;
/* T->totals as board_slot_totals gives them for ST; false if some stack is negative. */
bool board_tally_update(board_tally *t, const board_layout *L, const unsigned char *st);
void board_tally_free(board_tally *t);
/* Checks that every card in a pile sits at a distinct position below its
 * pile's count, and that the counts add up to the cards placed: 0 if so; else
 * 1 (a position outside its pile), 2 (two cards at one position) or 3 (a
 * count that does not match), with the card in *BAD_CARD (-1 for 3). */
int board_check_piles(const board_layout *L, const unsigned char *st, int *bad_card);
/* Sum of a variable over all its instances (factions in the game, sections)
 * and cells. */
int64_t board_var_total(const board_layout *L, const unsigned char *st, int var);
/* Sum of a section variable over the sections of AREA. */
int64_t board_var_area_total(const board_layout *L, const unsigned char *st, int var, int area);

/* Storm: the sectors under the storm (the storm marker's sector, if the data
 * names one and it is on the board). */
/* The geometry of a state (board_attach.c): the fixed board plus the attached areas where the state
 * puts them.  With no attached area each is the fixed function above. */
int board_attached_section(const board_layout *L, const unsigned char *st, int area);
/* The section of AREA in SECTOR, or -1: board_section_of, and for an attached area its one section
 * in the sector of the section it stands on (tokens_at, occupants_at, a section variable). */
int board_section_at(const board_layout *L, const unsigned char *st, int area, int sector);
bool board_borders_at(const board_layout *L, const unsigned char *st, int a, int b);
uint64_t board_neighbours_at(const board_layout *L, const unsigned char *st, int a);
int board_distance_at(const board_layout *L, const unsigned char *st, int a, int b);
uint64_t board_within_at(const board_layout *L, const unsigned char *st, int a, int n);
uint64_t board_reachable_at(const board_layout *L, const unsigned char *st, int a, int n, uint64_t blocked);
uint64_t board_reachable_from_section_at(const board_layout *L, const unsigned char *st, int section, int n,
                                         uint64_t blocked);
bool board_area_in_storm_at(const board_layout *L, const unsigned char *st, int area, int sector);
uint32_t board_storm_sectors(const board_layout *L, const unsigned char *st);
bool board_section_in_storm(const board_layout *L, const unsigned char *st, int section);

/* Piles and cards.  A pile slot is a pile instance (a faction pile has one
 * per game faction).  Position 0 is the bottom; the top is count-1. */
int board_pile_slot(const board_layout *L, int pile, int owner);
int board_pile_count(const board_layout *L, const unsigned char *st, int pile_slot);
/* Card at POS of the pile, or -1. */
int board_pile_card(const board_layout *L, const unsigned char *st, int pile_slot, int pos);
static inline int board_pile_top(const board_layout *L, const unsigned char *st, int pile_slot) {
  return board_pile_card(L, st, pile_slot, board_pile_count(L, st, pile_slot) - 1);
}
/* The pile slot holding CARD (-1: not in the game) and its position. */
int board_card_pile(const board_layout *L, const unsigned char *st, int card, int *pos);
/* Moves CARD to position POS of the pile slot (-1 or >= count: on top). */
int board_card_move(const board_layout *L, unsigned char *st, int card, int pile_slot, int pos);
void board_pile_shuffle(const board_layout *L, unsigned char *st, int pile_slot);

/* Chance as choice (verify): a pile's unknown part.  The cards at positions
 * 0..U-1 of a pile are there in an order nobody has decided yet; they are
 * kept in card-index order so that two positions differing only in an
 * undecided order are the same bytes.  U is 0 in ordinary play. */
int board_pile_unknown(const board_layout *L, const unsigned char *st, int pile_slot);
/* The whole pile becomes unknown (a shuffle whose outcome is left open). */
void board_pile_forget(const board_layout *L, unsigned char *st, int pile_slot);
/* Decides the highest unknown position: CARD, which must lie in the unknown
 * part, goes to position U-1 and U drops by one.  BOARD_ERANGE otherwise. */
int board_pile_fix(const board_layout *L, unsigned char *st, int pile_slot, int card);
/* The bottom U cards of the pile become its unknown part (U clipped to
 * 0..the pile's size), put in card order: a saved position read back. */
void board_pile_set_unknown(const board_layout *L, unsigned char *st, int pile_slot, int u);
/* Draws the order of the pile's unknown part from the state's generator and
 * leaves nothing unknown: chance as choice turned off.  Returns how many
 * cards were unknown. */
int board_pile_settle(const board_layout *L, unsigned char *st, int pile_slot);

/* Leaders. */
board_leader_state board_leader_get(const board_layout *L, const unsigned char *st, int leader);
int board_leader_set(const board_layout *L, unsigned char *st, int leader, board_leader_state s);

/* Random generator (xoshiro256**, inside the state), seeded by splitmix64. */
void board_rng_seed(const board_layout *L, unsigned char *st, uint64_t seed);
uint64_t board_rng_next(const board_layout *L, unsigned char *st);
/* Uniform in [0, n) without modulo bias; n > 0. */
uint64_t board_rng_below(const board_layout *L, unsigned char *st, uint64_t n);

/* The caller's extension region (int32 words). */
static inline int32_t *board_ext(const board_layout *L, unsigned char *st) {
  return (int32_t *)(void *)(st + L->off_ext);
}

/* ---- saved positions (state.c) ------------------------------------------
 * A position is saved as YAML by name (docs/state-format.md).  state_save
 * appends the document to OUT.  state_load parses one (NAME/TEXT/LEN, or a
 * file) against DEF; the factions come from the document.  X (may be NULL)
 * says what the caller adds to a position: its rule-declared variables and
 * extension words (as for board_layout_new), and a check of the extension
 * words once everything else is read.  On success returns a new layout and
 * sets *ST to a new state block (mt_free it); on errors reports to D and
 * returns NULL. */
struct diag;
typedef struct state_ext {
  const board_var_decl *vars;
  int nvars;
  size_t words;
  /* Checks the loaded extension words (GIVEN: the file has `vm`; if not, the
   * words are zero and the check may initialise them): -1 if acceptable, else
   * the index of the first bad word with the reason in WHY.  May be NULL. */
  long (*check)(void *ud, const board_layout *L, unsigned char *st, bool given, strbuf *why);
  /* Gives the caller's variables their initial values in the empty position,
   * before the file's are read; false (the reason in WHY) if it cannot.  May
   * be NULL (each cell then starts at its declaration's INITIAL). */
  bool (*init)(void *ud, const board_layout *L, unsigned char *st, strbuf *why);
  void *ud;
  /* The rule set the position is loaded under: its ruleset ("basic",
   * "advanced") and variants (comma-separated, "" for none).  A file that
   * names another (`ruleset:`, `variants:`) is refused.  NULL: not checked. */
  const char *ruleset, *variants;
} state_ext;
void state_save(const board_layout *L, const unsigned char *st, strbuf *out);
board_layout *state_load_text(const board_def *def, const state_ext *x, const char *name, const char *text,
                              size_t len, struct diag *d, unsigned char **st);
board_layout *state_load_file(const board_def *def, const state_ext *x, const char *path, struct diag *d,
                              unsigned char **st);

#endif
