/* board_draw.c -- pictures of a position (board_draw.h): the text map of
 * `show board` and the SVG of `show board --svg` and `mentat dump board --svg`.
 *
 * The geometry is the data's: sector k of N spans the angles (k-1/2)*360/N ..
 * (k+1/2)*360/N, counted counter-clockwise from straight down (sector 0 is
 * centred at the bottom), and a territory's `ring` says which band out from
 * the centre disc its sections occupy.  Sections sharing one band of one
 * sector split it side by side, in file order.  No name of any game is
 * known here: colours come from palettes indexed by tag, faction and
 * variable.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "board_draw.h"

#define MAX_RING 16
#define PI 3.14159265358979323846

/* ---- what lies in a section ------------------------------------------- */

/* Tokens of game faction GF in SECTION, every kind. */
static int section_tokens(const board_layout *L, const unsigned char *st, int section, int gf) {
  int n = 0;
  for (int k = 0; k < L->def->nkinds && k < BOARD_MAX_KINDS; k++) n += board_tokens(L, st, section, gf, k);
  return n;
}

/* Section variables drawn for VIEWER: the data's public ones, all in the full view. */
static bool var_drawn(const board_layout *L, int v, int viewer) {
  return v < L->def->nvars && L->vars[v].scope == BS_SECTION && (viewer < 0 || L->vars[v].visibility == VIS_PUBLIC);
}

/* The colour of section variable V: by its rank among the data's section variables. */
static const char *var_fill(const board_layout *L, int v);

/* The band of AREA: 0 for an area in no sector, else its `ring` (1..MAX_RING). */
static int area_ring(const board_def *def, int area, int ring_attr) {
  if (!def->areas[area].sectors) return 0;
  int r = ring_attr >= 0 ? (int)board_area_attr(def, area, ring_attr) : BOARD_DRAW_RING;
  return r < 1 ? 1 : r > MAX_RING ? MAX_RING : r;
}

/* Appends " [f n, var v]" for what lies in SECTION (nothing if it is empty). */
static void text_contents(const board_layout *L, const unsigned char *st, int section, int viewer, strbuf *o) {
  const board_def *def = L->def;
  int first = 1;
  for (int gf = 0; gf < L->nf; gf++) {
    int n = section_tokens(L, st, section, gf);
    if (!n) continue;
    sb_printf(o, "%s%s %d", first ? " [" : ", ", def->factions[L->faction[gf]].id, n);
    first = 0;
  }
  for (int v = 0; v < L->nvars; v++) {
    if (!var_drawn(L, v, viewer)) continue;
    int32_t x = board_var_get(L, st, v, section, 0);
    if (!x) continue;
    sb_printf(o, "%s%s %d", first ? " [" : ", ", L->vars[v].name, (int)x);
    first = 0;
  }
  if (!first) sb_putc(o, ']');
}

/* Appends " + area [...]" for each attached area standing on SECTION (board_attach.c). */
static void text_guests(const board_layout *L, const unsigned char *st, int section, int viewer, strbuf *o) {
  for (uint64_t m = L->def->attached; m; m &= m - 1) {
    int a = __builtin_ctzll(m);
    if (board_attached_section(L, st, a) != section) continue;
    sb_printf(o, " + %s", L->def->areas[a].id);
    text_contents(L, st, L->def->areas[a].first_section, viewer, o);
  }
}

/* Sections of SECTOR (-1: in no sector), from the centre out, into OUT; returns how many. */
static int sections_of_sector(const board_def *def, int sector, int ring_attr, int *out) {
  int n = 0;
  for (int r = 0; r <= MAX_RING; r++)
    for (int s = 0; s < def->nsections; s++)
      if (def->sections[s].sector == sector && area_ring(def, def->sections[s].area, ring_attr) == r) out[n++] = s;
  return n;
}

void board_draw_text(const board_layout *L, const unsigned char *st, int viewer, strbuf *o) {
  const board_def *def = L->def;
  int ring_attr = board_area_attr_index(def, "ring");
  uint32_t storm = board_storm_sectors(L, st);
  int *secs = mt_calloc((size_t)def->nsections + 1, sizeof *secs);
  char nb[160];
  for (int k = -1; k < def->nsectors; k++) {
    int n = sections_of_sector(def, k, ring_attr, secs);
    if (k < 0 && !n) continue;
    if (k < 0) sb_puts(o, "centre:");
    else sb_printf(o, "sector %2d%s:", k, (storm >> k) & 1u ? " (storm)" : "");
    int shown = 0;
    for (int i = 0; i < n; i++) {
      int a = def->sections[secs[i]].area;
      if ((def->attached >> a) & 1u) continue; /* listed with the section it stands on, below */
      const board_area *A = &def->areas[a];
      sb_printf(o, "%s %s", shown++ ? "," : "", A->nsections == 1 ? A->id : board_section_name(def, secs[i], nb, sizeof nb));
      text_contents(L, st, secs[i], viewer, o);
      text_guests(L, st, secs[i], viewer, o);
    }
    if (k < 0 && !shown) sb_puts(o, " -");
    sb_putc(o, '\n');
  }
  /* attached areas standing nowhere */
  int nowhere = 0;
  for (uint64_t m = def->attached; m; m &= m - 1) {
    int a = __builtin_ctzll(m);
    if (board_attached_section(L, st, a) >= 0) continue;
    sb_printf(o, "%s %s", nowhere++ ? "," : "off the map:", def->areas[a].id);
    text_contents(L, st, def->areas[a].first_section, viewer, o);
  }
  if (nowhere) sb_putc(o, '\n');
  mt_free(secs);
}

/* ---- the SVG ----------------------------------------------------------- */

static const char *const TAG_FILL[] = {"#f2dca4", "#b98f62", "#d88c7a", "#e6ecf2", "#a9c48f", "#9fb7d6", "#d6b3d9", "#c9c9a6"};
static const char *const FACTION_COLOUR[] = {"#2e7d32", "#6a1b9a", "#c62828", "#1565c0", "#212121", "#e65100",
                                             "#00838f", "#ad1457", "#5d4037", "#827717", "#283593", "#37474f"};
static const char *const VAR_FILL[] = {"#ffb300", "#80deea", "#c5e1a5", "#f48fb1"};
#define NCOLOURS(a) ((int)(sizeof a / sizeof *a))

static const char *var_fill(const board_layout *L, int v) {
  int rank = 0;
  for (int u = 0; u < v; u++) rank += L->vars[u].scope == BS_SECTION;
  return VAR_FILL[rank % NCOLOURS(VAR_FILL)];
}

enum { W = 1200, H = 960, CX = 470, CY = 480 };
static const double R_OUT = 440.0, R_CENTRE = 70.0;
/* A baseline this many font sizes below a point centres a line of capitals and
 * digits on it (dominant-baseline is not drawn alike everywhere). */
static const double MID = 0.36;

/* Where a section is drawn: its band and its angles (degrees, see the file header). */
typedef struct slot {
  double a0, a1, r0, r1;
} slot;

typedef struct drawing {
  const board_layout *L;
  const unsigned char *st;
  int viewer, ring_attr, outline_attr, nrings;
  double band; /* the width of one ring */
  slot *at; /* [section] */
  strbuf *o;
} drawing;

static double px(double a, double r) { return CX + r * sin(a * PI / 180.0); }
static double py(double a, double r) { return CY + r * cos(a * PI / 180.0); }

enum { R_GUEST = 13 }; /* the disc of an attached area */

/* Where section S is drawn when its area is attached (board_attach.c): a disc near the outer edge of
 * the section it stands on.  False for a fixed area's section, or an attached area standing nowhere
 * (*SHOWN false: not drawn at all). */
static bool guest_at(const drawing *D, int s, double *x, double *y, bool *shown) {
  const board_def *def = D->L->def;
  int a = def->sections[s].area;
  *shown = true;
  if (!((def->attached >> a) & 1u)) return false;
  int h = board_attached_section(D->L, D->st, a);
  *shown = h >= 0;
  if (h < 0) return true;
  slot w = D->at[h];
  double m = (w.a0 + w.a1) / 2, r = w.r1 - R_GUEST - 3;
  *x = px(m, r);
  *y = py(m, r);
  return true;
}

/* S with the five XML specials escaped. */
static void put_esc(strbuf *o, const char *s) {
  for (; *s; s++) switch (*s) {
    case '&': sb_puts(o, "&amp;"); break;
    case '<': sb_puts(o, "&lt;"); break;
    case '>': sb_puts(o, "&gt;"); break;
    case '"': sb_puts(o, "&quot;"); break;
    case '\'': sb_puts(o, "&#39;"); break;
    default: sb_putc(o, *s);
  }
}

/* The short label of def faction F: the first three letters of its first
 * alias (else of its id), in capitals. */
static void faction_label(const board_def *def, int f, char *buf, size_t n) {
  const board_faction *bf = &def->factions[f];
  const char *src = bf->naliases > 0 ? bf->aliases[0] : bf->id;
  size_t i = 0;
  for (; i < 3 && i + 1 < n && src[i]; i++) {
    char c = src[i];
    buf[i] = c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
  }
  buf[i] = '\0';
}

/* Where a section goes among those sharing its band of SECTOR: one that
 * goes on into the previous sector first, into the next one last, so that a
 * territory's parts meet across sector lines; then in file order. */
static int side_key(const board_def *def, int s) {
  uint32_t m = def->areas[def->sections[s].area].sectors;
  int k = def->sections[s].sector, n = def->nsectors;
  return n > 1 ? (int)((m >> ((k + 1) % n)) & 1u) - (int)((m >> ((k + n - 1) % n)) & 1u) : 0;
}

/* Lays out every section: the band of its ring (stretched outwards over
 * bands its sector leaves empty), its sector's angles, split among the
 * sections sharing that band and sector. */
static void layout(drawing *D) {
  const board_def *def = D->L->def;
  int lo = MAX_RING, hi = 1; /* the rings in use: a map without rings gets one band */
  for (int a = 0; a < def->nareas; a++) {
    int r = area_ring(def, a, D->ring_attr);
    if (r && r < lo) lo = r;
    if (r > hi) hi = r;
  }
  if (lo > hi) lo = hi;
  D->nrings = hi - lo + 1;
  double band = D->band = (R_OUT - R_CENTRE) / D->nrings, span = 360.0 / def->nsectors;
  for (int s = 0; s < def->nsections; s++) {
    int k = def->sections[s].sector, r = area_ring(def, def->sections[s].area, D->ring_attr);
    if (k < 0) {
      D->at[s] = (slot){0, 360, 0, R_CENTRE};
      continue;
    }
    int n = 0, i = 0, key = side_key(def, s);
    uint32_t used = 0; /* the bands of sector K holding a section */
    for (int t = 0; t < def->nsections; t++) {
      if (def->sections[t].sector != k) continue;
      int rt = area_ring(def, def->sections[t].area, D->ring_attr);
      used |= 1u << rt;
      if (rt != r) continue;
      int kt = side_key(def, t);
      if (kt < key || (kt == key && t < s)) i++;
      n++;
    }
    int top = r;
    while (top < hi && !((used >> (top + 1)) & 1u)) top++;
    double a0 = (k - 0.5) * span;
    D->at[s] = (slot){a0 + span * i / n, a0 + span * (i + 1) / n, R_CENTRE + band * (r - lo), R_CENTRE + band * (top - lo + 1)};
  }
}

/* An annular wedge as a path (each arc in two halves, so no arc exceeds 180 degrees). */
static void wedge_path(strbuf *o, slot w) {
  double m = (w.a0 + w.a1) / 2;
  sb_printf(o, "M%.1f %.1f L%.1f %.1f", px(w.a0, w.r0), py(w.a0, w.r0), px(w.a0, w.r1), py(w.a0, w.r1));
  sb_printf(o, " A%.1f %.1f 0 0 0 %.1f %.1f A%.1f %.1f 0 0 0 %.1f %.1f", w.r1, w.r1, px(m, w.r1), py(m, w.r1), w.r1,
            w.r1, px(w.a1, w.r1), py(w.a1, w.r1));
  sb_printf(o, " L%.1f %.1f", px(w.a1, w.r0), py(w.a1, w.r0));
  if (w.r0 > 0)
    sb_printf(o, " A%.1f %.1f 0 0 1 %.1f %.1f A%.1f %.1f 0 0 1 %.1f %.1f", w.r0, w.r0, px(m, w.r0), py(m, w.r0), w.r0,
              w.r0, px(w.a0, w.r0), py(w.a0, w.r0));
  sb_puts(o, " Z");
}

static const char *area_fill(const board_def *def, int a) {
  for (int t = 0; t < def->ntags && t < BOARD_MAX_TAGS; t++)
    if (board_area_has_tag(def, a, t)) return TAG_FILL[t % NCOLOURS(TAG_FILL)];
  return "#ffffff";
}

/* Every area as a group of wedges (the centre areas as the disc), with its
 * id and name in a <title>. */
static void draw_areas(drawing *D) {
  const board_def *def = D->L->def;
  strbuf *o = D->o;
  for (int a = 0; a < def->nareas; a++) {
    const board_area *A = &def->areas[a];
    sb_puts(o, "<g class=\"area\" id=\"area-");
    put_esc(o, A->id);
    sb_puts(o, "\"><title>");
    put_esc(o, A->name);
    sb_puts(o, " (");
    put_esc(o, A->id);
    sb_puts(o, ")</title>\n");
    for (int i = 0; i < A->nsections; i++) {
      int s = A->first_section + i;
      double gx, gy;
      bool shown;
      if (guest_at(D, s, &gx, &gy, &shown)) {
        if (shown)
          sb_printf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" fill=\"%s\" stroke=\"#7a1010\" stroke-width=\"2\"/>\n", gx,
                    gy, R_GUEST, area_fill(def, a));
        continue;
      }
      if (def->sections[s].sector < 0)
        sb_printf(o, "<circle cx=\"%d\" cy=\"%d\" r=\"%.1f\"", CX, CY, R_CENTRE);
      else {
        sb_puts(o, "<path d=\"");
        wedge_path(o, D->at[s]);
        sb_putc(o, '"');
      }
      sb_printf(o, " fill=\"%s\" stroke=\"#6d5a3f\" stroke-width=\"0.8\"/>\n", area_fill(def, a));
    }
    sb_puts(o, "</g>\n");
  }
}

/* The storm's sectors shaded, then the heavy outlines on top. */
static void draw_storm_and_outlines(drawing *D) {
  const board_def *def = D->L->def;
  strbuf *o = D->o;
  uint32_t storm = board_storm_sectors(D->L, D->st);
  double span = 360.0 / def->nsectors;
  for (int k = 0; k < def->nsectors; k++) {
    if (!((storm >> k) & 1u)) continue;
    slot w = {(k - 0.5) * span, (k + 0.5) * span, R_CENTRE, R_OUT + 8};
    sb_printf(o, "<path class=\"storm\" d=\"");
    wedge_path(o, w);
    sb_puts(o, "\" fill=\"#3b3f6b\" fill-opacity=\"0.38\" stroke=\"#3b3f6b\" stroke-width=\"1.5\"/>\n");
  }
  for (int a = 0; a < def->nareas && D->outline_attr >= 0; a++) {
    if (!board_area_attr(def, a, D->outline_attr) || ((def->attached >> a) & 1u)) continue;
    for (int i = 0; i < def->areas[a].nsections; i++) {
      int s = def->areas[a].first_section + i;
      if (def->sections[s].sector < 0)
        sb_printf(o, "<circle cx=\"%d\" cy=\"%d\" r=\"%.1f\"", CX, CY, R_CENTRE - 1.5);
      else {
        sb_puts(o, "<path d=\"");
        wedge_path(o, D->at[s]);
        sb_putc(o, '"');
      }
      sb_puts(o, " fill=\"none\" stroke=\"#7a1010\" stroke-width=\"3\"/>\n");
    }
  }
  for (int k = 0; k < def->nsectors; k++) { /* sector numbers round the rim */
    double a = k * span;
    sb_printf(o, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\" fill=\"%s\">%d</text>\n",
              px(a, R_OUT + 16), py(a, R_OUT + 16) + MID * 11, (storm >> k) & 1u ? "#3b3f6b" : "#555555", k);
  }
}

/* The area's label anchor: the middle of its sections' angles (unwrapped
 * when it spans the last and the first sector), and their total span. */
static double area_mid_angle(drawing *D, int a, double *total) {
  const board_def *def = D->L->def;
  const board_area *A = &def->areas[a];
  bool wraps = (A->sectors & 1u) && ((A->sectors >> (def->nsectors - 1)) & 1u) && A->nsections < def->nsectors;
  double lo = 1e9, hi = -1e9;
  *total = 0;
  for (int i = 0; i < A->nsections; i++) {
    int s = A->first_section + i;
    slot w = D->at[s];
    if (wraps && def->sections[s].sector < def->nsectors / 2) w.a0 += 360, w.a1 += 360;
    if (w.a0 < lo) lo = w.a0;
    if (w.a1 > hi) hi = w.a1;
    *total += w.a1 - w.a0;
  }
  return (lo + hi) / 2;
}

/* Something is drawn in a section of AREA (see draw_contents). */
static bool area_has_contents(drawing *D, int area) {
  const board_layout *L = D->L;
  const board_area *A = &L->def->areas[area];
  for (int s = A->first_section; s < A->first_section + A->nsections; s++) {
    for (int gf = 0; gf < L->nf; gf++)
      if (section_tokens(L, D->st, s, gf)) return true;
    for (int v = 0; v < L->nvars; v++)
      if (var_drawn(L, v, D->viewer) && board_var_get(L, D->st, v, s, 0)) return true;
  }
  return false;
}

/* Each area's name, once: along the ring, in the outer part of its band,
 * where it fits (in a smaller type, if need be, when the middle of the band
 * holds tokens), else along the radius; turned to be read upright. */
static void draw_names(drawing *D) {
  const board_def *def = D->L->def;
  strbuf *o = D->o;
  for (int a = 0; a < def->nareas; a++) {
    const board_area *A = &def->areas[a];
    if (!A->nsections) continue;
    const char *name = A->name;
    double fs = 9.5, per_fs = 0.56 * (double)strlen(name), len = per_fs * fs;
    if (def->sections[A->first_section].sector < 0) {
      sb_printf(o, "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" font-weight=\"bold\" text-anchor=\"middle\">", CX, CY - R_CENTRE + 20);
      put_esc(o, name);
      sb_puts(o, "</text>\n");
      continue;
    }
    double total, m = area_mid_angle(D, a, &total);
    double r0 = D->at[A->first_section].r0, r = r0 + 0.8 * D->band, arc = r * total * PI / 180.0, rot;
    if (len > 0.92 * arc && area_has_contents(D, a) && 0.92 * arc / per_fs >= 6.5) fs = 0.9 * arc / per_fs, len = per_fs * fs;
    double x = px(m, r), y = py(m, r);
    if (len <= 0.92 * arc) {
      rot = cos(m * PI / 180.0) >= 0 ? -m : 180 - m; /* along the ring */
    } else {
      /* along the radius; clear of the tokens in the inner part, if any */
      bool busy = area_has_contents(D, a);
      double room = busy ? 0.6 * D->band : 0.9 * D->band;
      r = r0 + (busy ? 0.68 : 0.5) * D->band, x = px(m, r), y = py(m, r);
      rot = sin(m * PI / 180.0) >= 0 ? 90 - m : 270 - m;
      if (len > room) fs = room / per_fs;
    }
    rot = fmod(rot + 720.0, 360.0);
    sb_printf(o, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(%.1f %.1f %.1f)\" fill=\"#3e2f1c\">",
              x, y + MID * fs, fs, rot, x, y);
    put_esc(o, name);
    sb_puts(o, "</text>\n");
  }
}

/* One chip: a rounded rectangle (a faction's tokens) or a circle (a
 * variable) centred at X, Y; K scales it (1: 10-point type). */
static void chip(strbuf *o, double x, double y, const char *text, const char *fill, const char *ink, bool round, double k) {
  double w = k * (7.0 * (double)strlen(text) + 6), h = 13 * k;
  if (round)
    sb_printf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\" stroke=\"#5d4037\" stroke-width=\"0.8\"/>", x, y,
              w / 2 < 8 * k ? 8 * k : w / 2, fill);
  else
    sb_printf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"3\" fill=\"%s\" stroke=\"#ffffff\" stroke-width=\"0.8\"/>",
              x - w / 2, y - h / 2, w, h, fill);
  sb_printf(o, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%.1f\" font-weight=\"bold\" text-anchor=\"middle\" fill=\"%s\">%s</text>\n",
            x, y + MID * 10 * k, 10 * k, ink, text);
}

/* What lies in each section: variables, then tokens, stacked upright at its centre. */
static void draw_contents(drawing *D) {
  const board_layout *L = D->L;
  const board_def *def = L->def;
  strbuf *o = D->o;
  for (int s = 0; s < def->nsections; s++) {
    char text[64], lab[32], nb[160];
    int nchips = 0;
    size_t widest = 0; /* in characters */
    for (int v = 0; v < L->nvars; v++) nchips += var_drawn(L, v, D->viewer) && board_var_get(L, D->st, v, s, 0);
    for (int gf = 0; gf < L->nf; gf++) {
      int n = section_tokens(L, D->st, s, gf);
      if (!n) continue;
      nchips++;
      faction_label(def, L->faction[gf], lab, sizeof lab);
      size_t len = strlen(lab) + (size_t)snprintf(text, sizeof text, " %d", n);
      if (len > widest) widest = len;
    }
    if (!nchips) continue;
    slot w = D->at[s];
    bool centre = def->sections[s].sector < 0;
    double m = (w.a0 + w.a1) / 2, r = centre ? 0 : w.r0 + (nchips > 2 ? 0.38 : 0.24) * D->band;
    /* smaller chips (down to 3/4) in a slice narrower than the widest */
    double room = centre ? 2 * R_CENTRE : r * (w.a1 - w.a0) * PI / 180.0 * 1.15, need = 7.0 * (double)widest + 6;
    double k = need > room ? room / need : 1.0;
    if (k < 0.75) k = 0.75;
    double x = px(m, r), y = py(m, r) - 7.0 * k * (nchips - 1), gx, gy;
    bool shown;
    if (guest_at(D, s, &gx, &gy, &shown)) { /* an attached area's chips: beside its disc */
      if (!shown) continue;
      k = 0.75;
      x = gx;
      y = gy + R_GUEST + 7.0 * k;
    }
    sb_printf(o, "<g class=\"contents\" id=\"at-%s\">", board_section_name(def, s, nb, sizeof nb));
    for (int v = 0; v < L->nvars; v++) {
      int32_t n = var_drawn(L, v, D->viewer) ? board_var_get(L, D->st, v, s, 0) : 0;
      if (!n) continue;
      snprintf(text, sizeof text, "%d", (int)n);
      chip(o, x, y, text, var_fill(L, v), "#3e2f1c", true, k);
      y += 14 * k;
    }
    for (int gf = 0; gf < L->nf; gf++) {
      int n = section_tokens(L, D->st, s, gf), f = L->faction[gf];
      if (!n) continue;
      faction_label(def, f, lab, sizeof lab);
      snprintf(text, sizeof text, "%s %d", lab, n);
      chip(o, x, y, text, FACTION_COLOUR[f % NCOLOURS(FACTION_COLOUR)], "#ffffff", false, k);
      y += 14 * k;
    }
    sb_puts(o, "</g>\n");
  }
}

/* The key: tags, outline, storm, variables, factions with their tokens on the map. */
static void draw_legend(drawing *D, const char *title) {
  const board_layout *L = D->L;
  const board_def *def = L->def;
  strbuf *o = D->o;
  double x = 950, y = 40;
  char lab[32], text[64];
  if (title) {
    sb_printf(o, "<text x=\"20\" y=\"28\" font-size=\"15\" font-weight=\"bold\">");
    put_esc(o, title);
    sb_puts(o, "</text>\n");
  }
  sb_printf(o, "<g class=\"legend\"><text x=\"%.0f\" y=\"%.0f\" font-size=\"13\" font-weight=\"bold\">Legend</text>\n", x, y);
  y += 22;
  for (int t = 0; t < def->ntags && t < BOARD_MAX_TAGS; t++, y += 20) {
    sb_printf(o, "<rect x=\"%.0f\" y=\"%.0f\" width=\"22\" height=\"14\" fill=\"%s\" stroke=\"#6d5a3f\"/>", x, y - 11,
              TAG_FILL[t % NCOLOURS(TAG_FILL)]);
    sb_printf(o, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\">", x + 30, y);
    put_esc(o, def->tags[t]);
    sb_puts(o, "</text>\n");
  }
  if (D->outline_attr >= 0) {
    sb_printf(o, "<rect x=\"%.0f\" y=\"%.0f\" width=\"22\" height=\"14\" fill=\"none\" stroke=\"#7a1010\" stroke-width=\"3\"/>"
                 "<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\">outlined</text>\n", x, y - 11, x + 30, y);
    y += 20;
  }
  if (def->storm_var >= 0) {
    sb_printf(o, "<rect x=\"%.0f\" y=\"%.0f\" width=\"22\" height=\"14\" fill=\"#3b3f6b\" fill-opacity=\"0.38\" stroke=\"#3b3f6b\"/>"
                 "<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\">", x, y - 11, x + 30, y);
    put_esc(o, def->vars[def->storm_var].name);
    sb_puts(o, "</text>\n");
    y += 20;
  }
  for (int v = 0; v < L->nvars; v++) {
    if (!var_drawn(L, v, D->viewer)) continue;
    chip(o, x + 11, y - 4, "n", var_fill(L, v), "#3e2f1c", true, 1.0);
    sb_printf(o, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\">", x + 30, y);
    put_esc(o, L->vars[v].name);
    sb_puts(o, "</text>\n");
    y += 20;
  }
  y += 6;
  for (int gf = 0; gf < L->nf; gf++, y += 20) {
    int f = L->faction[gf];
    faction_label(def, f, lab, sizeof lab);
    snprintf(text, sizeof text, "%s", lab);
    chip(o, x + 22, y - 4, text, FACTION_COLOUR[f % NCOLOURS(FACTION_COLOUR)], "#ffffff", false, 1.0);
    sb_printf(o, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\">", x + 50, y);
    put_esc(o, def->factions[f].name);
    sb_puts(o, "</text>\n");
  }
  sb_puts(o, "</g>\n");
}

void board_draw_svg(const board_layout *L, const unsigned char *st, int viewer, const char *title, strbuf *o) {
  const board_def *def = L->def;
  drawing D = {L, st, viewer, board_area_attr_index(def, "ring"), board_area_attr_index(def, "outlined"), 1, 0, NULL, o};
  if (D.outline_attr >= 0 && def->area_attrs[D.outline_attr].type != BT_BOOL) D.outline_attr = -1;
  if (D.ring_attr >= 0 && def->area_attrs[D.ring_attr].type != BT_INT) D.ring_attr = -1;
  D.at = mt_calloc((size_t)def->nsections + 1, sizeof *D.at);
  layout(&D);
  sb_printf(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
               "font-family=\"DejaVu Sans, Arial, sans-serif\">\n"
               "<rect width=\"100%%\" height=\"100%%\" fill=\"#fbf7ef\"/>\n",
          W, H, W, H);
  sb_printf(o, "<circle cx=\"%d\" cy=\"%d\" r=\"%.1f\" fill=\"none\" stroke=\"#6d5a3f\" stroke-width=\"1.5\"/>\n", CX, CY,
            R_OUT + 1);
  draw_areas(&D);
  draw_storm_and_outlines(&D);
  draw_names(&D);
  draw_contents(&D);
  draw_legend(&D, title);
  sb_puts(o, "</svg>\n");
  mt_free(D.at);
}
