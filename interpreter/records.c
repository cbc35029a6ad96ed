/* records.c -- the records files of simulate and compare: the header that
 * names the run, one JSON line per game, and the strict reader behind
 * `mentat merge` and `--resume` (stats.h; the format in docs/balance.md).
 *
 * Records are exchanged between people (shards from a cluster, a colleague's
 * run), so the reader trusts nothing: every line is a flat JSON object whose
 * fields are all known, of the right type, integers written as plain digits
 * in range, names of a small alphabet (they reach the terminal and gnuplot);
 * every file starts with its run's header; and what is merged must be exactly
 * one complete run: the same identity in every file, each shard once, each
 * game of each shard once. */
#define _POSIX_C_SOURCE 200809L
#include "stats.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RECORDS_VERSION 2
#define MAX_GAMES 100000000L
#define MAX_LINE (1L << 20)

/* ---- names ---- */

/* A name a records file may hold: 1 to 128 letters, digits, '_', '-', '.'.
 * Faction ids, rule ids, variant names and bot kinds all are; nothing else
 * may reach a terminal or gnuplot from a file someone else wrote. */
static bool name_ok(const char *s) {
  size_t n = strlen(s);
  if (n == 0 || n > 128) return false;
  for (const char *c = s; *c; c++)
    if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' || *c == '-' ||
          *c == '.'))
      return false;
  return true;
}

/* A comma-separated list of names ("" is the empty list when EMPTY_OK). */
static bool list_ok(const char *s, bool empty_ok) {
  if (!*s) return empty_ok;
  char *copy = mt_strdup(s);
  bool ok = true;
  char *p = copy;
  for (;;) {
    char *comma = strchr(p, ',');
    if (comma) *comma = 0;
    ok &= name_ok(p);
    if (!comma) break;
    p = comma + 1;
  }
  mt_free(copy);
  return ok;
}

bool sim_run_names_ok(const sim_run *run, strbuf *why) {
  for (int f = 0; f < run->nfactions; f++)
    if (!name_ok(run->factions[f])) return sb_printf(why, "the faction id '%s' cannot be written to records", run->factions[f]), false;
  if (!list_ok(run->bots ? run->bots : "", false)) return sb_printf(why, "the bots '%s' cannot be written to records", run->bots), false;
  for (int s = 0; s < (run->paired ? 2 : 1); s++)
    if (!list_ok(run->side[s].variants ? run->side[s].variants : "", true))
      return sb_printf(why, "the variant names '%s' cannot be written to records", run->side[s].variants), false;
  return true;
}

long sim_run_game(const sim_run *run, uint64_t seed) {
  uint64_t k = seed - run->seed; /* seeds wrap: game k plays seed S+k mod 2^64 */
  if (k >= (uint64_t)run->games || run->shard_n < 1) return -1;
  if ((long)(k % (uint64_t)run->shard_n) != run->shard_i - 1) return -1;
  return (long)k;
}

/* ---- writing ---- */

static void factions_json(strbuf *b, const sim_run *run) {
  sb_putc(b, '[');
  for (int f = 0; f < run->nfactions; f++) {
    if (f) sb_putc(b, ',');
    sb_json_str(b, run->factions[f]);
  }
  sb_putc(b, ']');
}

/* The header's text; without SHARD, the run's identity that every shard shares. */
static void header(strbuf *b, const sim_run *run, bool shard) {
  sb_printf(b, "{\"mentat_records\":%d,\"command\":\"%s\",\"seed\":%llu,\"games\":%ld,", RECORDS_VERSION,
            run->paired ? "compare" : "simulate", (unsigned long long)run->seed, run->games);
  if (shard) sb_printf(b, "\"shard\":\"%ld/%ld\",", run->shard_i, run->shard_n);
  else sb_printf(b, "\"shards\":%ld,", run->shard_n);
  sb_puts(b, "\"bots\":");
  sb_json_str(b, run->bots ? run->bots : "");
  sb_puts(b, ",\"search_budget\":");
  sb_json_str(b, run->search ? run->search : "");
  sb_printf(b, ",\"max_decisions\":%ld,\"work_budget\":%llu,\"invariants\":%s,\"factions\":", run->max_decisions,
            (unsigned long long)run->work_budget, run->invariants ? "true" : "false");
  factions_json(b, run);
  for (int s = 0; s < (run->paired ? 2 : 1); s++) {
    const char *who = s ? "variant" : "base";
    const sim_side *sd = &run->side[s];
    sb_printf(b, ",\"%s_hash\":", who);
    sb_json_str(b, sd->hash ? sd->hash : "");
    sb_printf(b, ",\"%s_ruleset\":", who);
    sb_json_str(b, sd->ruleset ? sd->ruleset : "");
    sb_printf(b, ",\"%s_variants\":", who);
    sb_json_list(b, sd->variants);
  }
  sb_puts(b, "}\n");
}

void sim_header_write(strbuf *out, const sim_run *run) { header(out, run, true); }

void sim_record_write(strbuf *b, const sim_run *run, const sim_record *rec) {
  const sim_side *sd = &run->side[rec->side];
  sb_printf(b, "{\"seed\":%llu,\"side\":\"%s\",\"hash\":", (unsigned long long)rec->seed,
            rec->side == SIM_VARIANT ? "variant" : "base");
  sb_json_str(b, sd->hash);
  sb_puts(b, ",\"ruleset\":");
  sb_json_str(b, sd->ruleset);
  sb_puts(b, ",\"variants\":");
  sb_json_list(b, sd->variants);
  sb_puts(b, ",\"bots\":");
  sb_json_str(b, run->bots);
  sb_puts(b, ",\"factions\":");
  factions_json(b, run);
  sb_printf(b, ",\"ok\":%s,\"winners\":[", rec->ok ? "true" : "false");
  for (int f = 0, k = 0; f < run->nfactions; f++)
    if (rec->winners >> f & 1u) {
      if (k++) sb_putc(b, ',');
      sb_json_str(b, run->factions[f]);
    }
  sb_puts(b, "],\"victory\":");
  if (rec->victory) sb_json_str(b, rec->victory);
  else sb_puts(b, "null");
  sb_printf(b, ",\"turns\":%ld,\"decisions\":%ld}\n", rec->turns, rec->decisions);
}

/* ---- a flat JSON object ---- */

typedef struct jval {
  int kind;        /* 's' string, 'n' a bare token (a number, or what stands for one), 'a' array of strings,
                      't' true, 'f' false, '0' null */
  char *str;       /* 's': the string; 'a': the items comma-joined; 'n': the token as written */
} jval;

enum { MAX_FIELDS = 32 };
typedef struct jobj {
  char *key[MAX_FIELDS];
  jval val[MAX_FIELDS];
  int n;
} jobj;

static void jobj_free(jobj *o) {
  for (int i = 0; i < o->n; i++) mt_free(o->key[i]), mt_free(o->val[i].str);
  o->n = 0;
}

static void ws(const char **s) {
  while (**s == ' ' || **s == '\t' || **s == '\r') (*s)++;
}

/* A JSON string at *S; NULL with the reason in ERR. */
static char *jstring(const char **s, strbuf *err) {
  if (**s != '"') return sb_puts(err, "a string was expected"), NULL;
  strbuf b = {0};
  sb_puts(&b, "");
  for ((*s)++; **s != '"'; (*s)++) {
    unsigned char c = (unsigned char)**s;
    if (!c) return sb_free(&b), sb_puts(err, "a string is not closed"), NULL;
    if (c < 0x20) return sb_free(&b), sb_puts(err, "a control character in a string"), NULL;
    if (c != '\\') {
      sb_putc(&b, (char)c);
      continue;
    }
    (*s)++;
    switch (**s) {
    case '"': case '\\': case '/': sb_putc(&b, **s); break;
    case 'b': sb_putc(&b, '\b'); break;
    case 'f': sb_putc(&b, '\f'); break;
    case 'n': sb_putc(&b, '\n'); break;
    case 'r': sb_putc(&b, '\r'); break;
    case 't': sb_putc(&b, '\t'); break;
    case 'u': {
      unsigned v = 0;
      for (int i = 0; i < 4; i++) {
        char h = *++*s;
        int d = h >= '0' && h <= '9' ? h - '0' : (h | 32) >= 'a' && (h | 32) <= 'f' ? (h | 32) - 'a' + 10 : -1;
        if (d < 0) return sb_free(&b), sb_puts(err, "a bad \\u escape"), NULL;
        v = v * 16 + (unsigned)d;
      }
      if (v == 0 || v > 0x7f) return sb_free(&b), sb_puts(err, "a \\u escape of a character records never hold"), NULL;
      sb_putc(&b, (char)v);
      break;
    }
    default: return sb_free(&b), sb_puts(err, "a bad escape in a string"), NULL;
    }
  }
  (*s)++;
  return sb_take(&b);
}

static bool jvalue(const char **s, jval *v, strbuf *err) {
  ws(s);
  memset(v, 0, sizeof *v);
  if (**s == '"') return v->kind = 's', (v->str = jstring(s, err)) != NULL;
  if (**s == '[') {
    strbuf b = {0};
    sb_puts(&b, "");
    (*s)++;
    ws(s);
    for (int k = 0; **s != ']'; k++) {
      if (k) {
        if (**s != ',') return sb_free(&b), sb_puts(err, "',' or ']' expected in a list"), false;
        (*s)++;
        ws(s);
      }
      char *one = jstring(s, err);
      if (!one) return sb_free(&b), false;
      if (strchr(one, ',')) return mt_free(one), sb_free(&b), sb_puts(err, "a ',' inside a name"), false;
      sb_printf(&b, "%s%s", k ? "," : "", one);
      mt_free(one);
      ws(s);
    }
    (*s)++;
    return v->kind = 'a', v->str = sb_take(&b), true;
  }
  /* a bare token: true, false, null, or what stands for a number (checked by the field that wants it) */
  size_t n = strspn(*s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-.");
  if (!n) return sb_puts(err, "a value was expected"), false;
  char *tok = mt_strndup(*s, n);
  *s += n;
  if (!strcmp(tok, "true") || !strcmp(tok, "false") || !strcmp(tok, "null")) {
    v->kind = tok[0] == 't' ? 't' : tok[0] == 'f' ? 'f' : '0';
    mt_free(tok);
    return true;
  }
  return v->kind = 'n', v->str = tok, true;
}

/* LINE as a flat object (strings, lists of strings, bare tokens), each key once. */
static bool jobj_parse(const char *line, jobj *o, strbuf *err) {
  const char *s = line;
  memset(o, 0, sizeof *o);
  ws(&s);
  if (*s++ != '{') return sb_puts(err, "not a JSON object"), false;
  ws(&s);
  for (int k = 0; *s != '}'; k++) {
    if (k) {
      if (*s++ != ',') return sb_printf(err, "',' or '}' expected at column %ld", (long)(s - line)), false;
      ws(&s);
    }
    strbuf why = {0};
    char *key = jstring(&s, &why);
    if (!key) return sb_printf(err, "%s at column %ld", why.s, (long)(s - line)), sb_free(&why), false;
    for (int i = 0; i < o->n; i++)
      if (!strcmp(o->key[i], key)) return sb_printf(err, "the field '%.40s' is given twice", key), mt_free(key), false;
    if (o->n == MAX_FIELDS) return mt_free(key), sb_puts(err, "too many fields"), false;
    ws(&s);
    if (*s++ != ':') return sb_printf(err, "':' expected after '%.40s'", key), mt_free(key), false;
    jval v;
    if (!jvalue(&s, &v, &why)) {
      sb_printf(err, "the field '%.40s': %s", key, why.s ? why.s : "a bad value");
      sb_free(&why), mt_free(key);
      return false;
    }
    o->key[o->n] = key, o->val[o->n++] = v;
    ws(&s);
  }
  s++;
  ws(&s);
  if (*s) return sb_printf(err, "something after the object at column %ld", (long)(s - line) + 1), false;
  return true;
}

static const jval *jget(const jobj *o, const char *key) {
  for (int i = 0; i < o->n; i++)
    if (!strcmp(o->key[i], key)) return &o->val[i];
  return NULL;
}

/* Every field of O is one of KEYS (NULL-ended). */
static bool only_known(const jobj *o, const char *const *keys, strbuf *err) {
  for (int i = 0; i < o->n; i++) {
    int k = 0;
    while (keys[k] && strcmp(keys[k], o->key[i])) k++;
    if (!keys[k]) return sb_printf(err, "an unknown field '%.40s'", o->key[i]), false;
  }
  return true;
}

static const jval *need(const jobj *o, const char *key, int kind, strbuf *err) {
  const jval *v = jget(o, key);
  if (!v) return sb_printf(err, "the field '%s' is missing", key), NULL;
  if (v->kind == kind || (kind == 't' && v->kind == 'f')) return v;
  const char *what = kind == 's' ? "a string" : kind == 'a' ? "a list of strings" : kind == 't' ? "true or false" : "a number";
  return sb_printf(err, "the field '%s' must be %s", key, what), NULL;
}

/* A whole number from 0 to MAX, written as plain digits. */
static bool need_uint(const jobj *o, const char *key, uint64_t max, uint64_t *out, strbuf *err) {
  const jval *v = jget(o, key);
  if (!v) return sb_printf(err, "the field '%s' is missing", key), false;
  const char *t = v->kind == 'n' || v->kind == 's' ? v->str : v->kind == 't' ? "true" : v->kind == 'f' ? "false" : v->kind == '0' ? "null" : "a list";
  bool digits = v->kind == 'n' && t[0] && strspn(t, "0123456789") == strlen(t) && (t[0] != '0' || !t[1]);
  uint64_t x = 0;
  for (const char *c = t; digits && *c; c++) {
    if (x > (UINT64_MAX - (uint64_t)(*c - '0')) / 10) digits = false;
    else x = x * 10 + (uint64_t)(*c - '0');
  }
  if (!digits || x > max)
    return sb_printf(err, "the field '%s' must be a whole number from 0 to %llu, not '%.40s'", key, (unsigned long long)max, t), false;
  *out = x;
  return true;
}

static bool need_long(const jobj *o, const char *key, long lo, long hi, long *out, strbuf *err) {
  uint64_t x;
  if (!need_uint(o, key, (uint64_t)hi, &x, err)) return false;
  if ((long)x < lo) return sb_printf(err, "the field '%s' must be a whole number from %ld to %ld, not %llu", key, lo, hi, (unsigned long long)x), false;
  *out = (long)x;
  return true;
}

static bool need_names(const jobj *o, const char *key, bool list, bool empty_ok, char **out, strbuf *err) {
  const jval *v = need(o, key, list ? 'a' : 's', err);
  if (!v) return false;
  if (!list_ok(v->str, empty_ok))
    return sb_printf(err, "the field '%s' holds a name that is not 1 to 128 letters, digits, '_', '-' or '.'", key), false;
  *out = mt_strdup(v->str);
  return true;
}

static bool hex16(const char *s) {
  if (strlen(s) != 16) return false;
  for (const char *c = s; *c; c++)
    if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f'))) return false;
  return true;
}

/* ---- the header ---- */

static bool read_header(const jobj *o, sim_run *t, strbuf *err) {
  static const char *const keys[] = {"mentat_records", "command", "seed", "games", "shard", "bots", "search_budget",
                                     "max_decisions", "work_budget", "invariants", "factions", "base_hash", "base_ruleset",
                                     "base_variants", "variant_hash", "variant_ruleset", "variant_variants", NULL};
  uint64_t version, seed, wb;
  if (!need_uint(o, "mentat_records", 1000, &version, err)) return false;
  if (version != RECORDS_VERSION)
    return sb_printf(err, "records format %llu, but this Mentat reads format %d", (unsigned long long)version, RECORDS_VERSION), false;
  if (!only_known(o, keys, err)) return false;
  const jval *cmd = need(o, "command", 's', err);
  if (!cmd) return false;
  if (strcmp(cmd->str, "simulate") && strcmp(cmd->str, "compare"))
    return sb_printf(err, "the field 'command' must be simulate or compare, not '%.40s'", cmd->str), false;
  t->paired = !strcmp(cmd->str, "compare");
  if (!need_uint(o, "seed", UINT64_MAX, &seed, err) || !need_long(o, "games", 1, MAX_GAMES, &t->games, err)) return false;
  t->seed = seed;
  const jval *sh = need(o, "shard", 's', err);
  if (!sh) return false;
  char *end;
  const char *q = sh->str;
  bool shard_ok = *q >= '1' && *q <= '9';
  t->shard_i = shard_ok ? strtol(q, &end, 10) : 0;
  shard_ok = shard_ok && *end == '/' && end[1] >= '1' && end[1] <= '9';
  t->shard_n = shard_ok ? strtol(end + 1, &end, 10) : 0;
  if (!shard_ok || *end || t->shard_n > 1000000 || t->shard_i > t->shard_n)
    return sb_printf(err, "the field 'shard' must be I/N with 1 <= I <= N <= 1000000, not '%.40s'", sh->str), false;
  if (!need_names(o, "bots", false, false, &t->bots, err)) return false;
  const jval *sb = need(o, "search_budget", 's', err);
  if (!sb) return false;
  int p, h, w, used = 0;
  if (sscanf(sb->str, "%d,%d,%d%n", &p, &h, &w, &used) != 3 || (size_t)used != strlen(sb->str) || strspn(sb->str, "-0123456789,") != strlen(sb->str))
    return sb_printf(err, "the field 'search_budget' must be P,H,W (three whole numbers), not '%.40s'", sb->str), false;
  t->search = mt_strdup(sb->str);
  if (!need_long(o, "max_decisions", 1, 2000000000L, &t->max_decisions, err) || !need_uint(o, "work_budget", UINT64_MAX, &wb, err))
    return false;
  t->work_budget = wb;
  const jval *inv = need(o, "invariants", 't', err);
  if (!inv) return false;
  t->invariants = inv->kind == 't';
  char *facs;
  if (!need_names(o, "factions", true, false, &facs, err)) return false;
  for (char *f = strtok(facs, ","); f; f = strtok(NULL, ",")) {
    if (t->nfactions == SIM_MAX_FACTIONS) return mt_free(facs), sb_printf(err, "more than %d factions", SIM_MAX_FACTIONS), false;
    for (int g = 0; g < t->nfactions; g++)
      if (!strcmp(t->factions[g], f)) return sb_printf(err, "the faction '%s' is listed twice", f), mt_free(facs), false;
    t->factions[t->nfactions++] = mt_strdup(f);
  }
  mt_free(facs);
  for (int s = 0; s < 2; s++) {
    char key[32];
    const char *who = s ? "variant" : "base";
    if (s && !t->paired) {
      snprintf(key, sizeof key, "variant_hash");
      if (jget(o, key) || jget(o, "variant_ruleset") || jget(o, "variant_variants"))
        return sb_puts(err, "a simulate run has no variant side"), false;
      break;
    }
    sim_side *sd = &t->side[s];
    snprintf(key, sizeof key, "%s_hash", who);
    const jval *hv = need(o, key, 's', err);
    if (!hv) return false;
    if (!hex16(hv->str)) return sb_printf(err, "the field '%s' must be 16 hex digits", key), false;
    sd->hash = mt_strdup(hv->str);
    snprintf(key, sizeof key, "%s_ruleset", who);
    const jval *rv = need(o, key, 's', err);
    if (!rv) return false;
    if (strcmp(rv->str, "basic") && strcmp(rv->str, "advanced"))
      return sb_printf(err, "the field '%s' must be basic or advanced", key), false;
    sd->ruleset = mt_strdup(rv->str);
    snprintf(key, sizeof key, "%s_variants", who);
    if (!need_names(o, key, true, true, &sd->variants, err)) return false;
    sd->present = true;
  }
  return true;
}

/* The end of the field of a flat JSON object that starts at S: its comma at
 * the top level (not in a string or a list), or the closing brace. */
static const char *field_end(const char *s) {
  bool str = false;
  int depth = 0;
  for (; *s; s++) {
    if (str) {
      if (*s == '\\' && s[1]) s++;
      else if (*s == '"') str = false;
    } else if (*s == '"') str = true;
    else if (*s == '[') depth++;
    else if (*s == ']') depth--;
    else if ((*s == ',' || *s == '}') && depth == 0) return s;
  }
  return s;
}

/* The first field in which A and B (two runs' identities) differ, into WHY:
 * "LA has FIELD:VALUE, LB FIELD:VALUE". */
static void ident_diff(const sim_run *a, const sim_run *b, const char *la, const char *lb, strbuf *why) {
  strbuf x = {0}, y = {0};
  header(&x, a, false);
  header(&y, b, false);
  const char *p = x.s + 1, *q = y.s + 1; /* past the '{' */
  while (*p && *q) {
    const char *pe = field_end(p), *qe = field_end(q);
    if (pe - p != qe - q || strncmp(p, q, (size_t)(pe - p))) {
      sb_printf(why, "%s has %.*s, %s %.*s", la, (int)(pe - p), p, lb, (int)(qe - q), q);
      break;
    }
    if (!*pe || *pe == '}') break;
    p = pe + 1, q = qe + 1;
  }
  sb_free(&x), sb_free(&y);
}

bool sim_run_same(const sim_run *a, const sim_run *b, const char *la, const char *lb, strbuf *why) {
  strbuf x = {0}, y = {0};
  header(&x, a, false);
  header(&y, b, false);
  bool same = !strcmp(x.s, y.s);
  if (!same) ident_diff(a, b, la, lb, why);
  if (same && (a->shard_i != b->shard_i || a->shard_n != b->shard_n))
    sb_printf(why, "%s has shard %ld/%ld, %s %ld/%ld", la, a->shard_i, a->shard_n, lb, b->shard_i, b->shard_n), same = false;
  sb_free(&x), sb_free(&y);
  return same;
}

/* ---- the records ---- */

static bool read_record(sim_reader *rd, const jobj *o, sim_record *rec, strbuf *err) {
  static const char *const keys[] = {"seed", "side", "hash", "ruleset", "variants", "bots", "factions", "ok", "winners",
                                     "victory", "turns", "decisions", NULL};
  sim_run *run = rd->run;
  memset(rec, 0, sizeof *rec);
  if (!only_known(o, keys, err)) return false;
  uint64_t seed;
  if (!need_uint(o, "seed", UINT64_MAX, &seed, err)) return false;
  rec->seed = seed;
  const jval *side = need(o, "side", 's', err);
  if (!side) return false;
  if (!strcmp(side->str, "variant") && run->paired) rec->side = SIM_VARIANT;
  else if (!strcmp(side->str, "base")) rec->side = SIM_BASE;
  else return sb_printf(err, "the field 'side' must be %s, not '%.40s'", run->paired ? "base or variant" : "base (a simulate run)", side->str), false;
  const sim_side *sd = &run->side[rec->side];
  const struct { const char *key; int kind; const char *want; } same[] = {
      {"hash", 's', sd->hash}, {"ruleset", 's', sd->ruleset}, {"variants", 'a', sd->variants}, {"bots", 's', run->bots}};
  for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
    const jval *v = need(o, same[i].key, same[i].kind, err);
    if (!v) return false;
    if (strcmp(v->str, same[i].want ? same[i].want : ""))
      return sb_printf(err, "the field '%s' is not the one the header gives the %s side", same[i].key, rec->side ? "variant" : "base"), false;
  }
  const jval *fv = need(o, "factions", 'a', err);
  if (!fv) return false;
  strbuf mine = {0};
  sb_puts(&mine, "");
  for (int f = 0; f < run->nfactions; f++) sb_printf(&mine, "%s%s", f ? "," : "", run->factions[f]);
  bool fsame = !strcmp(mine.s, fv->str);
  sb_free(&mine);
  if (!fsame) return sb_puts(err, "the field 'factions' is not the header's"), false;
  const jval *okv = need(o, "ok", 't', err);
  if (!okv) return false;
  rec->ok = okv->kind == 't';
  const jval *wv = need(o, "winners", 'a', err);
  if (!wv) return false;
  char *list = mt_strdup(wv->str);
  for (char *t = strtok(list, ","); t; t = strtok(NULL, ",")) {
    int f = 0;
    while (f < run->nfactions && strcmp(run->factions[f], t)) f++;
    if (f == run->nfactions) {
      sb_printf(err, "a winner '%.40s' that is not among the factions", t);
      mt_free(list);
      return false;
    }
    rec->winners |= 1ull << f;
  }
  mt_free(list);
  const jval *vv = jget(o, "victory");
  if (!vv) return sb_puts(err, "the field 'victory' is missing"), false;
  if (vv->kind == 's') {
    if (!name_ok(vv->str)) return sb_puts(err, "the field 'victory' is not a rule id"), false;
    rec->victory = mt_strdup(vv->str);
  } else if (vv->kind != '0') return sb_puts(err, "the field 'victory' must be a rule id or null"), false;
  if (!need_long(o, "turns", 0, 1000000000L, &rec->turns, err) || !need_long(o, "decisions", 0, 2000000000L, &rec->decisions, err)) {
    mt_free(rec->victory);
    rec->victory = NULL;
    return false;
  }
  return true;
}

void sim_reader_init(sim_reader *rd, sim_run *run) {
  memset(rd, 0, sizeof *rd);
  rd->run = run;
}

void sim_reader_fini(sim_reader *rd) {
  for (long i = 0; i < rd->nshards; i++) mt_free(rd->shard_file[i]);
  mt_free(rd->shard_file);
  mt_free(rd->shard_games);
  mt_free(rd->ident);
  memset(rd, 0, sizeof *rd);
}

void sim_reader_begin(sim_reader *rd, const char *name) {
  rd->name = name;
  rd->lineno = 0;
  rd->shard = 0;
}

/* The header of the current file: the run's identity from the first one, the same from every other. */
static bool take_header(sim_reader *rd, const jobj *o, strbuf *err) {
  sim_run t = {0};
  strbuf why = {0};
  bool ok = read_header(o, &t, &why);
  sim_run *run = rd->run;
  if (ok && !rd->ident) {
    sim_run_fini(run);
    *run = t;
    memset(&t, 0, sizeof t);
    strbuf id = {0};
    header(&id, run, false);
    rd->ident = sb_take(&id);
    rd->nshards = run->shard_n;
    rd->shard_file = mt_calloc((size_t)rd->nshards, sizeof *rd->shard_file);
    rd->shard_games = mt_calloc((size_t)rd->nshards, sizeof *rd->shard_games);
  } else if (ok) {
    strbuf id = {0};
    header(&id, &t, false);
    if (strcmp(id.s, rd->ident)) {
      strbuf first = {0};
      sb_printf(&first, "'%s'", rd->shard_file[run->shard_i - 1] ? rd->shard_file[run->shard_i - 1] : "the first file");
      sb_puts(&why, "records of another run: ");
      ident_diff(&t, run, "this file", first.s, &why);
      sb_free(&first);
      ok = false;
    }
    sb_free(&id);
  }
  if (ok) {
    long i = t.shard_n ? t.shard_i : run->shard_i; /* t was taken over by the run when it was the first */
    if (rd->shard_file[i - 1]) {
      sb_printf(&why, "shard %ld/%ld is already in '%s'", i, rd->nshards, rd->shard_file[i - 1]);
      ok = false;
    } else {
      rd->shard_file[i - 1] = mt_strdup(rd->name);
      rd->shard = i;
    }
  }
  if (!ok) sb_printf(err, "%s:%ld: %s", rd->name, rd->lineno, why.s ? why.s : "a bad header");
  sb_free(&why);
  sim_run_fini(&t);
  return ok;
}

bool sim_reader_line(sim_reader *rd, const char *line, size_t len, strbuf *err) {
  rd->lineno++;
  if (strlen(line) != len) return sb_printf(err, "%s:%ld: a NUL byte in the line", rd->name, rd->lineno), false;
  if (line[strspn(line, " \t\r")] == 0) return true;
  jobj o;
  strbuf why = {0};
  bool ok = jobj_parse(line, &o, &why);
  if (ok && !rd->shard) {
    if (jget(&o, "mentat_records")) ok = take_header(rd, &o, err);
    else {
      if (jget(&o, "seed") && jget(&o, "side"))
        sb_printf(err, "%s:%ld: game records without the header that names their run (records of Mentat 0.12 or older): "
                       "merge cannot check that they are one complete run; play the run again with this version", rd->name, rd->lineno);
      else sb_printf(err, "%s:%ld: not a records file: its first line is not a records header", rd->name, rd->lineno);
      ok = false;
    }
    jobj_free(&o);
    sb_free(&why);
    return ok;
  }
  sim_record rec;
  if (ok && jget(&o, "mentat_records")) sb_puts(&why, "a second header"), ok = false;
  if (ok) ok = read_record(rd, &o, &rec, &why);
  jobj_free(&o);
  if (ok) {
    sim_run *run = rd->run;
    long i = run->shard_i;
    run->shard_i = rd->shard; /* the file's shard, for the check */
    long k = sim_run_game(run, rec.seed);
    run->shard_i = i;
    if (k < 0) {
      sb_printf(&why, "the seed %llu is not a game of shard %ld/%ld of this run (seed %llu, %ld games)", (unsigned long long)rec.seed,
                rd->shard, run->shard_n, (unsigned long long)run->seed, run->games);
      mt_free(rec.victory);
      ok = false;
    } else {
      sim_run_add(run, &rec);
      mt_free(rec.victory);
      rd->shard_games[rd->shard - 1]++;
    }
  }
  if (!ok) sb_printf(err, "%s:%ld: %s", rd->name, rd->lineno, why.s ? why.s : "not a game record");
  sb_free(&why);
  return ok;
}

/* The games of shard I of RUN. */
static long shard_games(const sim_run *run, long i) { return run->games >= i ? (run->games - i) / run->shard_n + 1 : 0; }

bool sim_reader_end(sim_reader *rd, bool cut, strbuf *err) {
  if (!rd->shard) return sb_printf(err, "%s: no records header: the file is empty", rd->name), false;
  if (cut && !rd->partial)
    return sb_printf(err, "%s:%ld: the last line is cut short (the run was stopped while writing it): finish the run with "
                          "the same command and --resume, which drops that line", rd->name, rd->lineno), false;
  long want = shard_games(rd->run, rd->shard) * (rd->run->paired ? 2 : 1), got = rd->shard_games[rd->shard - 1];
  if (!rd->partial && got < want)
    return sb_printf(err, "%s: shard %ld/%ld holds %ld of its %ld game records: the run is incomplete (stopped early?): "
                          "finish it with the same command and --resume", rd->name, rd->shard, rd->nshards, got, want), false;
  return true;
}

/* No game twice in RUN (its records sorted). */
static bool once(sim_run *run, strbuf *err) {
  if (run->n > 1) qsort(run->recs, (size_t)run->n, sizeof *run->recs, sim_record_order); /* none: recs may be NULL */
  for (long i = 1; i < run->n; i++)
    if (run->recs[i].seed == run->recs[i - 1].seed && run->recs[i].side == run->recs[i - 1].side)
      return sb_printf(err, "the game with seed %llu (%s) is in the records twice", (unsigned long long)run->recs[i].seed,
                       run->recs[i].side ? "variant" : "base"), false;
  return true;
}

bool sim_reader_finish(sim_reader *rd, strbuf *err) {
  if (!rd->ident) return sb_puts(err, "no records were read"), false;
  long missing = 0;
  strbuf which = {0};
  for (long i = 0; i < rd->nshards; i++)
    if (!rd->shard_file[i] && missing++ < 5) sb_printf(&which, "%s%ld/%ld", missing > 1 ? ", " : "", i + 1, rd->nshards);
  if (missing) {
    sb_printf(err, "the run has %ld shards and %ld %s missing (%s%s): merge needs every shard of the run, each once",
              rd->nshards, missing, missing == 1 ? "is" : "are", which.s, missing > 5 ? ", ..." : "");
    sb_free(&which);
    return false;
  }
  if (!once(rd->run, err)) return false;
  long want = rd->run->games * (rd->run->paired ? 2 : 1);
  if (!rd->partial && rd->run->n != want)
    return sb_printf(err, "the run has %ld game records, not the %ld of %ld games", rd->run->n, want, rd->run->games), false;
  rd->run->shard_i = 1, rd->run->shard_n = rd->nshards;
  return true;
}

bool sim_records_read(sim_reader *rd, const char *path, strbuf *err) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return sb_printf(err, "cannot read '%s': %s", path, strerror(errno)), false;
  struct stat st;
  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    close(fd);
    return sb_printf(err, "cannot read '%s': it is a directory, not a records file", path), false;
  }
  FILE *f = fdopen(fd, "r");
  if (!f) {
    int e = errno;
    close(fd);
    return sb_printf(err, "cannot read '%s': %s", path, strerror(e)), false;
  }
  sim_reader_begin(rd, path);
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  bool ok = true, cut = false;
  errno = 0;
  while (ok && (n = getline(&line, &cap, f)) > 0) {
    if (line[n - 1] != '\n') { /* the last line, cut short */
      cut = true;
      break;
    }
    if (n > MAX_LINE) {
      sb_printf(err, "%s:%ld: a line longer than %ld bytes", path, rd->lineno + 1, MAX_LINE);
      ok = false;
      break;
    }
    line[--n] = 0;
    ok = sim_reader_line(rd, line, (size_t)n, err);
    errno = 0;
  }
  if (ok && ferror(f)) {
    sb_printf(err, "cannot read '%s': %s", path, strerror(errno ? errno : EIO));
    ok = false;
  }
  free(line);
  fclose(f);
  if (ok && cut) rd->lineno++;
  if (ok) ok = sim_reader_end(rd, cut, err);
  if (ok && rd->partial) ok = once(rd->run, err);
  return ok;
}
