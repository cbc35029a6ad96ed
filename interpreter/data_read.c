/* data_read.c -- the YAML reader the loaders share (data_read.h): libyaml's
 * event API (STYLE.md 3.3) under a small recursive reader.  `data_yr_next`
 * pulls one event and enforces what libyaml does not (no aliases or anchors,
 * no tags, at most DATA_MAX_DEPTH nested collections); `data_map_key` walks a
 * mapping and rejects duplicate keys, which libyaml accepts silently.  Every
 * diagnostic points at the offending scalar (`file:line:col` with the line
 * and a caret).  Then the scalar conversions (ints in range, booleans, ids,
 * typed values) and the plumbing of one file.  data.c reads the component
 * files with it, data_state.c saved positions. */
#include "data_read.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* ---- diagnostics -------------------------------------------------------------- */

void data_lerr(data_loader *ld, mt_span sp, const char *fmt, ...) MT_PRINTF(3, 4);
void data_lerr(data_loader *ld, mt_span sp, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_report(ld->d, DIAG_ERROR, sp, fmt, ap);
  va_end(ap);
  ld->errors++;
}

static void lnote(data_loader *ld, mt_span sp, const char *fmt, ...) MT_PRINTF(3, 4);
static void lnote(data_loader *ld, mt_span sp, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_report(ld->d, DIAG_NOTE, sp, fmt, ap);
  va_end(ap);
}

/* libyaml marks count characters; diagnostics want byte offsets.  Walk the
 * mark's column in UTF-8 characters from the start of its line, or from the
 * last mark converted when it lies before this one on the same line (marks
 * come in order: a long line, such as a save's `vm`, is walked once). */
static uint32_t mark_off(yr *r, yaml_mark_t m) {
  uint32_t off;
  size_t col;
  if (r->mvalid && m.line == r->mline && m.column >= r->mcol) {
    off = r->moff;
    col = m.column - r->mcol;
  } else {
    off = diag_offset(r->ld->d, r->file, (uint32_t)m.line + 1, 1);
    col = m.column;
  }
  while (col > 0 && off < r->len && r->text[off] != '\n') {
    off++;
    while (off < r->len && ((unsigned char)r->text[off] & 0xC0) == 0x80) off++;
    col--;
  }
  r->mvalid = col == 0; /* stopped early (at the line's end): start over next time */
  r->mline = m.line;
  r->mcol = m.column;
  r->moff = off;
  return off;
}

mt_span data_ev_span(yr *r) {
  mt_span sp = {r->file, mark_off(r, r->ev.start_mark), mark_off(r, r->ev.end_mark)};
  if (sp.end <= sp.start) sp.end = sp.start + 1;
  return sp;
}

/* Reports libyaml's own error: a reader error (bad encoding) has only a byte
 * offset; scanner and parser errors have a mark and often a context. */
static void parser_error(yr *r) {
  yaml_parser_t *p = &r->p;
  const char *problem = p->problem ? p->problem : "malformed YAML";
  if (p->error == YAML_READER_ERROR) {
    uint32_t off = (uint32_t)(p->problem_offset < r->len ? p->problem_offset : r->len);
    mt_span sp = {r->file, off, off + 1};
    if (p->problem_value != -1)
      data_lerr(r->ld, sp, "invalid UTF-8 at byte offset %zu (%s: 0x%02x)", p->problem_offset, problem,
           (unsigned)p->problem_value & 0xffu);
    else data_lerr(r->ld, sp, "invalid input at byte offset %zu (%s)", p->problem_offset, problem);
    return;
  }
  mt_span sp = {r->file, mark_off(r, p->problem_mark), 0};
  sp.end = sp.start + 1;
  data_lerr(r->ld, sp, "YAML syntax error: %s", problem);
  if (p->context) {
    mt_span cs = {r->file, mark_off(r, p->context_mark), 0};
    cs.end = cs.start + 1;
    lnote(r->ld, cs, "%s", p->context);
  }
}

/* ---- the event reader ---------------------------------------------------------------- */

/* Pulls the next event.  Returns false (and marks the file fatal) on a YAML
 * error, an alias, an anchor, a tag or nesting deeper than the limit. */
bool data_yr_next(yr *r) {
  if (r->fatal) return false;
  if (r->have) {
    yaml_event_delete(&r->ev);
    r->have = false;
  }
  if (!yaml_parser_parse(&r->p, &r->ev)) {
    parser_error(r);
    r->fatal = true;
    return false;
  }
  r->have = true;
  const yaml_char_t *anchor = NULL, *tag = NULL;
  switch (r->ev.type) {
  case YAML_ALIAS_EVENT:
    data_lerr(r->ld, data_ev_span(r), "aliases are not allowed in component files");
    r->fatal = true;
    return false;
  case YAML_SCALAR_EVENT:
    anchor = r->ev.data.scalar.anchor;
    tag = r->ev.data.scalar.tag;
    break;
  case YAML_SEQUENCE_START_EVENT:
  case YAML_MAPPING_START_EVENT:
    if (r->ev.type == YAML_SEQUENCE_START_EVENT) {
      anchor = r->ev.data.sequence_start.anchor;
      tag = r->ev.data.sequence_start.tag;
    } else {
      anchor = r->ev.data.mapping_start.anchor;
      tag = r->ev.data.mapping_start.tag;
    }
    if (++r->depth > DATA_MAX_DEPTH && !anchor && !tag) {
      data_lerr(r->ld, data_ev_span(r), "nesting deeper than %d levels", DATA_MAX_DEPTH);
      r->fatal = true;
      return false;
    }
    break;
  case YAML_SEQUENCE_END_EVENT:
  case YAML_MAPPING_END_EVENT:
    r->depth--;
    break;
  default:
    break;
  }
  if (anchor) {
    data_lerr(r->ld, data_ev_span(r), "anchors (&%s) are not allowed in component files", (const char *)anchor);
    r->fatal = true;
    return false;
  }
  if (tag) {
    data_lerr(r->ld, data_ev_span(r), "tags (%s) are not allowed in component files", (const char *)tag);
    r->fatal = true;
    return false;
  }
  return true;
}

/* Skips the value whose first event is current; leaves its last current. */
void data_yr_skip(yr *r) {
  if (r->ev.type != YAML_SEQUENCE_START_EVENT && r->ev.type != YAML_MAPPING_START_EVENT) return;
  int target = r->depth - 1;
  while (r->depth > target && data_yr_next(r)) {
  }
}

bool data_is_scalar(const yr *r) { return r->have && r->ev.type == YAML_SCALAR_EVENT; }

/* Copies the current scalar into the arena.  A NUL byte inside is refused. */
bool data_yr_scalar(yr *r, ys *out) {
  size_t n = r->ev.data.scalar.length;
  const char *s = (const char *)r->ev.data.scalar.value;
  out->sp = data_ev_span(r);
  out->plain = r->ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
  out->s = arena_strndup(&r->ld->ar, s, n);
  out->len = n;
  if (strlen(out->s) != n) {
    data_lerr(r->ld, out->sp, "NUL byte inside a string");
    out->s = "";
    out->len = 0;
    return false;
  }
  return true;
}

/* "found ..." wording for the current event. */
static const char *found(yr *r, char *buf, size_t n) {
  switch (r->ev.type) {
  case YAML_SCALAR_EVENT: {
    const char *s = (const char *)r->ev.data.scalar.value;
    if (r->ev.data.scalar.length == 0) return "nothing";
    snprintf(buf, n, "'%.40s%s'", s, r->ev.data.scalar.length > 40 ? "..." : "");
    return buf;
  }
  case YAML_SEQUENCE_START_EVENT: return "a sequence";
  case YAML_MAPPING_START_EVENT: return "a mapping";
  default: return "the end of the file";
  }
}

/* An empty plain value (`key:` with nothing) stands for an empty collection. */
bool data_is_empty(const yr *r) {
  return r->have && r->ev.type == YAML_SCALAR_EVENT && r->ev.data.scalar.length == 0 &&
         r->ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

bool data_expect_map(yr *r, const char *what) {
  if (r->have && r->ev.type == YAML_MAPPING_START_EVENT) return true;
  if (data_is_empty(r)) return false;
  char buf[64];
  if (r->have) data_lerr(r->ld, data_ev_span(r), "expected a mapping for %s, found %s", what, found(r, buf, sizeof buf));
  data_yr_skip(r);
  return false;
}

bool data_expect_seq(yr *r, const char *what) {
  if (r->have && r->ev.type == YAML_SEQUENCE_START_EVENT) return true;
  if (data_is_empty(r)) return false;
  char buf[64];
  if (r->have) data_lerr(r->ld, data_ev_span(r), "expected a sequence for %s, found %s", what, found(r, buf, sizeof buf));
  data_yr_skip(r);
  return false;
}

bool data_expect_scalar(yr *r, const char *what, ys *out) {
  if (data_is_scalar(r)) return data_yr_scalar(r, out);
  char buf[64];
  if (r->have) data_lerr(r->ld, data_ev_span(r), "expected a single value for %s, found %s", what, found(r, buf, sizeof buf));
  data_yr_skip(r);
  return false;
}

/* Advances to the next key of the mapping being walked and then to its
 * value.  Returns false at the mapping's end (or on a fatal error).
 * Duplicate and non-scalar keys are reported and their values skipped. */
bool data_map_key(yr *r, keyseen *ks, ys *key) {
  for (;;) {
    if (!data_yr_next(r) || r->ev.type == YAML_MAPPING_END_EVENT) return false;
    if (r->ev.type != YAML_SCALAR_EVENT) {
      data_lerr(r->ld, data_ev_span(r), "mapping keys must be single values");
      data_yr_skip(r);
      if (!data_yr_next(r)) return false;
      data_yr_skip(r);
      continue;
    }
    if (!data_yr_scalar(r, key)) {
      if (!data_yr_next(r)) return false;
      data_yr_skip(r);
      continue;
    }
    bool dup = false;
    for (size_t i = 0; i < ks->n && !dup; i++)
      if (ks->k[i].len == key->len && memcmp(ks->k[i].s, key->s, key->len) == 0) {
        data_lerr(r->ld, key->sp, "duplicate key '%s'", key->s);
        lnote(r->ld, ks->k[i].sp, "first defined here");
        dup = true;
      }
    if (!data_yr_next(r)) return false;
    if (dup) {
      data_yr_skip(r);
      continue;
    }
    AVEC_PUSH(&r->ld->ar, ks->k, ks->n, ks->cap, *key);
    return true;
  }
}

bool data_keyis(const ys *k, const char *s) { return strcmp(k->s, s) == 0; }

void data_unknown_key(yr *r, const ys *k, const char *where, const char *const *cands, size_t n) {
  const char *sug = diag_suggest(k->s, cands, n);
  if (sug) data_lerr(r->ld, k->sp, "unknown key '%s' in %s (did you mean '%s'?)", k->s, where, sug);
  else {
    strbuf b = {0};
    for (size_t i = 0; i < n && i < 12; i++) sb_printf(&b, "%s%s", i ? ", " : "", cands[i]);
    data_lerr(r->ld, k->sp, "unknown key '%s' in %s (expected one of: %s)", k->s, where, b.s ? b.s : "");
    sb_free(&b);
  }
  data_yr_skip(r);
}

/* Reads a sequence of scalars into V (arena). */
void data_read_list(yr *r, const char *what, ysv *v) {
  if (!data_expect_seq(r, what)) return;
  while (data_yr_next(r) && r->ev.type != YAML_SEQUENCE_END_EVENT) {
    ys s;
    if (data_expect_scalar(r, what, &s)) AVEC_PUSH(&r->ld->ar, v->v, v->n, v->cap, s);
  }
}

/* ---- scalar conversions ---------------------------------------------------------------- */

bool data_ys_null(const ys *v) {
  return v->plain && (v->len == 0 || !strcmp(v->s, "~") || !strcmp(v->s, "null") ||
                      !strcmp(v->s, "Null") || !strcmp(v->s, "NULL"));
}

static bool ys_yaml_bool(const ys *v) {
  static const char *const b[] = {"y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO",
                                  "true", "True", "TRUE", "false", "False", "FALSE",
                                  "on", "On", "ON", "off", "Off", "OFF"};
  if (!v->plain) return false;
  for (size_t i = 0; i < sizeof b / sizeof *b; i++)
    if (!strcmp(v->s, b[i])) return true;
  return false;
}

bool data_conv_int(data_loader *ld, const ys *v, const char *what, long lo, long hi, int32_t *out) {
  if (!v->plain) {
    data_lerr(ld, v->sp, "expected an integer for %s, found a quoted string", what);
    return false;
  }
  if (ys_yaml_bool(v)) {
    data_lerr(ld, v->sp, "expected an integer for %s, found '%s' (a YAML 1.1 boolean); write a number", what, v->s);
    return false;
  }
  const char *s = v->s;
  size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  bool ok = s[i] != 0;
  for (size_t j = i; s[j]; j++) ok &= s[j] >= '0' && s[j] <= '9';
  if (!ok) {
    data_lerr(ld, v->sp, "expected an integer for %s, found '%.40s'", what, s);
    return false;
  }
  long x = strlen(s) > 12 ? (s[0] == '-' ? -1000000000000L : 1000000000000L) : strtol(s, NULL, 10);
  if (x < lo || x > hi) {
    data_lerr(ld, v->sp, "%s out of range: %.40s (expected %ld..%ld)", what, s, lo, hi);
    return false;
  }
  *out = (int32_t)x;
  return true;
}

bool data_conv_bool(data_loader *ld, const ys *v, const char *what, int32_t *out) {
  if (v->plain && !strcmp(v->s, "true")) return *out = 1, true;
  if (v->plain && !strcmp(v->s, "false")) return *out = 0, true;
  if (ys_yaml_bool(v)) data_lerr(ld, v->sp, "write true or false for %s, not '%s'", what, v->s);
  else data_lerr(ld, v->sp, "expected true or false for %s, found '%.40s'", what, v->s);
  return false;
}

static bool valid_id(const char *s) {
  if (!(s[0] >= 'a' && s[0] <= 'z')) return false;
  for (size_t i = 1; s[i]; i++)
    if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_')) return false;
  return strlen(s) < 64;
}

bool data_check_id(data_loader *ld, const ys *v, const char *what) {
  if (valid_id(v->s)) return true;
  data_lerr(ld, v->sp, "'%.40s' is not a valid %s id (ids are snake_case: a-z, 0-9, '_', starting with a letter)", v->s, what);
  return false;
}

static const char *type_name(board_type t) {
  static const char *const n[] = {"int", "bool", "area", "sector", "faction", "leader", "enum", "card", "name", "pile", "location"};
  return n[t];
}

/* Names a reference that does not resolve, with a suggestion. */
void data_dangling(data_loader *ld, const ys *v, const char *what, char *const *names, size_t stride, int n) {
  const char **c = mt_calloc((size_t)n + 1, sizeof *c);
  for (int i = 0; i < n; i++) c[i] = *(char *const *)(const void *)((const char *)names + (size_t)i * stride);
  const char *sug = diag_suggest(v->s, c, (size_t)n);
  if (sug) data_lerr(ld, v->sp, "unknown %s '%.40s' (did you mean '%s'?)", what, v->s, sug);
  else data_lerr(ld, v->sp, "unknown %s '%.40s'", what, v->s);
  mt_free(c);
}

int data_resolve_area(data_loader *ld, const ys *v) {
  board_def *def = ld->def;
  int a = board_area_index(def, v->s);
  if (a < 0) {
    if (def->nareas) DANGLING(ld, v, "territory", def->areas, def->nareas, id);
    else data_lerr(ld, v->sp, "unknown territory '%.40s' (no board loaded)", v->s);
  }
  return a;
}

/* Converts V to a value of type T (enum VALUES), reporting what is wrong.
 * Faction and leader references only accept none here: component files name
 * leaders through deferred resolution (card_attr) and saved states resolve
 * factions against the game (state_value). */
bool data_conv_value(data_loader *ld, const ys *v, board_type t, char **values, int nvalues, const char *what,
                     int32_t *out) {
  switch (t) {
  case BT_INT: return data_conv_int(ld, v, what, INT32_MIN + 1L, INT32_MAX, out);
  case BT_BOOL: return data_conv_bool(ld, v, what, out);
  case BT_SECTOR:
    if (data_ys_null(v) || (v->plain && !strcmp(v->s, "none"))) return *out = -1, true;
    if (!data_conv_int(ld, v, what, INT32_MIN + 1L, INT32_MAX, out)) return false;
    if (*out < 0 || *out >= ld->def->nsectors) {
      data_lerr(ld, v->sp, "sector %d out of range (the board has sectors 0..%d)", *out, ld->def->nsectors - 1);
      return false;
    }
    return true;
  case BT_AREA:
    if (data_ys_null(v) || (v->plain && !strcmp(v->s, "none"))) return *out = -1, true;
    return (*out = data_resolve_area(ld, v)) >= 0;
  case BT_FACTION:
  case BT_LEADER:
    if (data_ys_null(v) || (v->plain && !strcmp(v->s, "none"))) return *out = -1, true;
    data_lerr(ld, v->sp, "a %s value here can only be none", type_name(t));
    return false;
  case BT_CARD: /* variables of the rules: state_value reads them */
  case BT_NAME:
  case BT_PILE:
  case BT_LOC: data_lerr(ld, v->sp, "a %s value is not expected here", type_name(t)); return false;
  case BT_ENUM:
    for (int i = 0; i < nvalues; i++)
      if (!strcmp(values[i], v->s)) return *out = i, true;
    {
      const char *sug = diag_suggest(v->s, (const char *const *)values, (size_t)nvalues);
      if (sug) data_lerr(ld, v->sp, "'%.40s' is not a value of %s (did you mean '%s'?)", v->s, what, sug);
      else data_lerr(ld, v->sp, "'%.40s' is not a value of %s", v->s, what);
    }
    return false;
  }
  return false;
}

/* ---- file plumbing ------------------------------------------------------------------------ */

/* Opens a reader on TEXT (registered with diag under NAME). */
void data_yr_open(yr *r, data_loader *ld, const char *name, const char *text, size_t len) {
  memset(r, 0, sizeof *r);
  r->ld = ld;
  r->file = diag_add_source(ld->d, name, text, len);
  r->text = diag_source_text(ld->d, r->file, &r->len);
  yaml_parser_initialize(&r->p);
  yaml_parser_set_input_string(&r->p, (const unsigned char *)r->text, r->len);
}

void data_yr_close(yr *r) {
  if (r->have) yaml_event_delete(&r->ev);
  yaml_parser_delete(&r->p);
}

/* Positions the reader on the root mapping's start; false if there is none. */
bool data_yr_root(yr *r, const char *what) {
  if (!data_yr_next(r) || r->ev.type != YAML_STREAM_START_EVENT) return false;
  if (!data_yr_next(r)) return false;
  if (r->ev.type == YAML_STREAM_END_EVENT) {
    mt_span sp = {r->file, 0, 1};
    data_lerr(r->ld, sp, "empty file: expected %s", what);
    return false;
  }
  if (!data_yr_next(r)) return false;
  if (data_is_empty(r)) {
    data_lerr(r->ld, data_ev_span(r), "expected %s, found nothing", what);
    return false;
  }
  return data_expect_map(r, what);
}

/* After the root mapping: exactly one document. */
void data_yr_end(yr *r) {
  if (r->fatal) return;
  if (!data_yr_next(r)) return; /* DOCUMENT_END */
  if (!data_yr_next(r)) return;
  if (r->ev.type != YAML_STREAM_END_EVENT)
    data_lerr(r->ld, data_ev_span(r), "only one YAML document is allowed in a component file");
}

/* One KEY: VALUE attribute pair: the key onto *KEYS, the scalar value onto *VALS (N counts both). */
void data_read_kv(yr *r, ys **keys, ys **vals, size_t *n, size_t *c1, size_t *c2, const ys *k) {
  ys v;
  if (!data_expect_scalar(r, "an attribute", &v)) return;
  AVEC_PUSH(&r->ld->ar, *keys, *n, *c1, *k);
  (*n)--;
  AVEC_PUSH(&r->ld->ar, *vals, *n, *c2, v);
}
