/* data_read.h -- the YAML reader the loaders share (data_read.c), used by
 * data.c (the board and decks files), data_faction.c (the faction files) and
 * data_state.c (saved positions).  Private to those files: not an interface
 * of the library. */
#ifndef MENTAT_DATA_READ_H
#define MENTAT_DATA_READ_H

#include <stdbool.h>
#include <yaml.h>

#include "data.h"

/* A scalar as read: text (arena, NUL-terminated), span, plain or quoted. */
typedef struct ys {
  const char *s;
  size_t len;
  mt_span sp;
  bool plain;
} ys;

typedef struct ysv {
  ys *v;
  size_t n, cap;
} ysv;

/* A leader reference in a card attribute, resolved when factions are in. */
typedef struct pending {
  int card, attr;
  ys v;
} pending;

typedef struct deck_extra {
  ys from_leaders; /* attribute name, or s == NULL */
  ys *dkeys, *dvals; /* deck-level attribute defaults */
  size_t nd;
} deck_extra;

struct data_loader {
  board_def *def;
  diag *d;
  arena ar;
  int errors;
  pending *pend;
  size_t npend, cappend;
  deck_extra *dx; /* per deck */
  size_t ndx, capdx;
};

/* The event reader over one file. */
typedef struct yr {
  data_loader *ld;
  yaml_parser_t p;
  yaml_event_t ev;
  bool have, fatal;
  uint32_t file;
  const char *text;
  size_t len;
  int depth;
  size_t mline, mcol; /* the last mark converted (mark_off), and its offset */
  uint32_t moff;
  bool mvalid;
} yr;

#define AVEC_PUSH(ar, v, n, cap, x)                                                 \
  do {                                                                              \
    if ((n) >= (cap)) {                                                             \
      size_t nc_ = (cap) ? (cap) * 2 : 8;                                           \
      void *nv_ = arena_alloc((ar), nc_ * sizeof *(v));                             \
      if (n) memcpy(nv_, (v), (n) * sizeof *(v));                                   \
      (v) = nv_;                                                                    \
      (cap) = nc_;                                                                  \
    }                                                                               \
    (v)[(n)++] = (x);                                                               \
  } while (0)

/* A `piles:` mapping as read (decks file, faction sheets): ids with their scope and visibility. */
typedef struct raw_piles {
  ys *id, *scope, *vis;
  size_t n, cap1, cap2, cap3;
} raw_piles;

/* An attribute or variable declaration as read (the board file, a faction sheet). */
typedef struct raw_decl { /* attribute or variable declaration */
  ys name, type, scope, kind, dflt;
  ysv values;
  ys vis;
  bool has_type, has_scope, has_kind, has_dflt, has_values, has_vis;
} raw_decl;
/* A `variables:` mapping of a faction sheet. */
typedef struct raw_vars {
  raw_decl *v;
  size_t n, cap;
} raw_vars;

/* One territory as read (the board file, or an `areas:` mapping of a faction sheet). */
typedef struct raw_section_list {
  ys key; /* sector (or empty for section_borders) */
  ysv refs;
} raw_section_list;

typedef struct raw_area {
  ys id, name;
  bool has_name, has_sectors, has_sections, has_sb;
  ysv tags, sectors, borders, sborders;
  ys attach_area, attach_sector; /* attached_to: { territory: VAR, sector: VAR } (a sheet's area) */
  bool has_attach;
  raw_section_list *secs;
  size_t nsecs, capsecs;
  ys *akeys, *avals;
  size_t nattr, capattr, capattr2;
} raw_area;

/* An `areas:` mapping of a faction sheet: the areas a pack layer brings beside the board's. */
typedef struct raw_areas {
  raw_area *v;
  size_t n, cap;
} raw_areas;

typedef struct keyseen {
  ys *k;
  size_t n, cap;
} keyseen;

/* Diagnostics at a span (counted as errors of the load). */
void data_lerr(data_loader *ld, mt_span sp, const char *fmt, ...) MT_PRINTF(3, 4);
/* The event reader over one file (data.c, "the event reader"). */
void data_yr_open(yr *r, data_loader *ld, const char *name, const char *text, size_t len);
void data_yr_close(yr *r);
bool data_yr_root(yr *r, const char *what);
void data_yr_end(yr *r);
bool data_yr_next(yr *r);
void data_yr_skip(yr *r);
bool data_yr_scalar(yr *r, ys *out);
mt_span data_ev_span(yr *r);
bool data_is_scalar(const yr *r);
bool data_is_empty(const yr *r);
bool data_expect_map(yr *r, const char *what);
bool data_expect_seq(yr *r, const char *what);
bool data_expect_scalar(yr *r, const char *what, ys *out);
bool data_map_key(yr *r, keyseen *ks, ys *key);
bool data_keyis(const ys *k, const char *s);
void data_unknown_key(yr *r, const ys *k, const char *where, const char *const *cands, size_t n);
void data_read_list(yr *r, const char *what, ysv *v);
void data_read_kv(yr *r, ys **keys, ys **vals, size_t *n, size_t *c1, size_t *c2, const ys *k);
/* Scalar conversions, each reporting what is wrong at the scalar. */
bool data_ys_null(const ys *v);
bool data_conv_int(data_loader *ld, const ys *v, const char *what, long lo, long hi, int32_t *out);
bool data_conv_bool(data_loader *ld, const ys *v, const char *what, int32_t *out);
/* V is a snake_case id (else an error naming WHAT) */
bool data_check_id(data_loader *ld, const ys *v, const char *what);
bool data_conv_value(data_loader *ld, const ys *v, board_type t, char **values, int nvalues, const char *what, int32_t *out);
void data_dangling(data_loader *ld, const ys *v, const char *what, char *const *names, size_t stride, int n);
/* An unknown name V among the N records of ARR (their FIELD is the name): the error with a suggestion. */
#define DANGLING(ld, v, what, arr, n, field) \
  data_dangling((ld), (v), (what), (n) ? &(arr)[0].field : NULL, sizeof(arr)[0], (n))
int data_resolve_area(data_loader *ld, const ys *v);
int data_resolve_section(data_loader *ld, const ys *v);

/* A faction file (data_faction.c): read, checked and added to the board. */
/* The `piles:` reader and builder shared by the decks file and the faction sheets (data_decks.c). */
void data_read_piles(yr *r, raw_piles *p);
void data_build_piles(data_loader *ld, const raw_piles *p);
/* The `areas:` reader and builder of the faction sheets (data.c): areas in no sector and with no
 * borders (off the map, or attached to a section by the rules), added after the board's. */
void data_read_areas(yr *r, raw_areas *a);
void data_build_areas(data_loader *ld, const raw_areas *a, const char *who);
/* The `variables:` reader and builder of the faction sheets: board variables declared as in
 * rules/board.yaml's `variables:`, added after the board's (an attached area's position...). */
void data_read_vars(yr *r, raw_vars *v);
void data_build_vars(data_loader *ld, const raw_vars *v, const char *who);
/* The declaration readers shared by the board file (data.c) and the decks files (data_decks.c). */
char *data_read_file(data_loader *ld, const char *path, size_t *len);
void data_read_decls(yr *r, raw_decl **v, size_t *n, size_t *cap, bool is_var, const char *what);
void data_make_attrs(data_loader *ld, raw_decl *raw, size_t n, board_attr **out, int *nout, unsigned allowed,
                     const char *what);
void data_parse_visibility(data_loader *ld, const ys *v, board_visibility *out);
bool data_parse_scope(data_loader *ld, const ys *v, board_scope *s, bool section_ok);
/* The decks file and its additions (data_decks.c): ADDS are laid over it in order. */
int data_load_decks_with(data_loader *ld, const char *name, const char *text, size_t len, const char *const *adds,
                         size_t nadds);
int data_load_decks_raw(data_loader *ld, const char *name, const char *text, size_t len);
/* A card of deck DECK added to the def (data_decks.c), and one attribute of it set from K: V; the
 * generated leader deck of data_loader_finish uses both. */
void data_add_card(data_loader *ld, const char *id, const char *name, int deck, int faction);
void data_card_attr(data_loader *ld, int card, int32_t *attrs, const ys *k, const ys *v);
int data_faction_load(data_loader *ld, const char *name, const char *text, size_t len);

#endif
