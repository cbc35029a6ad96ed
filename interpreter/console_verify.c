/* console_verify.c -- the console's `verify` and `mentat verify` (reach.c does the search).
 *
 * The witness is a console script from a position the console can make
 * again: the `new` or `load` the game began with and every command that
 * changed it since (repl.c keeps them), then the line found.  When that
 * history is lost (undo, switch), the witness starts at the current position.
 */
#define _POSIX_C_SOURCE 200809L
#include "console.h"
#include "reach.h"

int repl_cmd_verify(repl *R, int argc, char **argv) {
  reach_query q;
  char err[512];
  if (reach_parse(R->r, argc - 1, argv + 1, &q, err, sizeof err) < 0) return fail(R, "%s", err);
  if (R->sandbox) { /* the fuzzer's console: small budgets, one process (a long search is not a finding) */
    q.max_positions = q.max_positions && q.max_positions < 2000 ? q.max_positions : 2000;
    q.max_seconds = q.max_seconds > 0 && q.max_seconds < 2 ? q.max_seconds : 2;
    q.jobs = 1;
  }
  reach_result res;
  strbuf e = {0};
  const char *const *start = R->origin_known ? (const char *const *)R->origin : NULL;
  int nstart = R->origin_known ? R->norigin : 0;
  if (reach_run(R->g, &q, start, nstart, &res, &e) < 0) {
    fail(R, "%s", e.s ? e.s : "the query does not compile");
    sb_free(&e);
    return -1;
  }
  sb_free(&e);
  strbuf out = {0};
  if (!R->origin_known && res.nlines) sb_puts(&out, "(the line starts at the current position: its history was undone or switched)\n");
  reach_format(&q, &res, q.json && !R->json, &out); /* verify ... --json in a text console: the object as the answer */
  if (out.n && out.s[out.n - 1] == '\n') out.s[--out.n] = 0;
  if (res.verdict == REACH_ERROR) fail(R, "%s", out.s);
  else say(R, "%s", out.s);
  if (R->json) {
    strbuf j = {0};
    reach_format(&q, &res, true, &j);
    sb_printf(&R->jextra, ",\"verify\":%s", j.s);
    sb_free(&j);
  }
  sb_free(&out);
  int rc = res.verdict == REACH_ERROR ? -1 : 0;
  reach_result_free(&res);
  return rc;
}

/* ---- the position's history, for witnesses ----------------------------------------------- */

void repl_origin_reset(repl *R, const char *line) {
  for (int i = 0; i < R->norigin; i++) mt_free(R->origin[i]);
  R->norigin = 0;
  R->origin_known = line != NULL;
  if (line) repl_origin_add(R, line);
}

void repl_origin_add(repl *R, const char *line) {
  if (!R->origin_known) return;
  if (R->norigin == R->caporigin) {
    R->caporigin = R->caporigin ? 2 * R->caporigin : 16;
    R->origin = mt_realloc(R->origin, (size_t)R->caporigin * sizeof *R->origin);
  }
  R->origin[R->norigin++] = mt_strdup(line);
}

/* ---- mentat verify ------------------------------------------------------------------------- */

/* The start position's console lines: --from SAVE (`load`), --from SCRIPT (its lines), else `new`. */
static int start_script(const char *from, const char *factions, const char *seed, const char *turns, bool advanced, strbuf *s) {
  if (!from) {
    sb_printf(s, "new ruleset=%s", advanced ? "advanced" : "basic");
    if (factions) sb_printf(s, " factions=%s", factions);
    if (seed) sb_printf(s, " seed=%s", seed);
    if (turns) sb_printf(s, " turns=%s", turns);
    sb_puts(s, "\n");
    return 0;
  }
  size_t n = strlen(from);
  if ((n > 5 && !strcmp(from + n - 5, ".yaml")) || (n > 4 && !strcmp(from + n - 4, ".yml"))) {
    sb_printf(s, "load %s\n", from);
    return 0;
  }
  FILE *f = fopen(from, "r");
  if (!f) {
    fprintf(stderr, "mentat verify: cannot open '%s': %s\n", from, strerror(errno));
    return -1;
  }
  char buf[8192];
  size_t got;
  while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
    if (s->n + got > (size_t)16 << 20) {
      fclose(f);
      fprintf(stderr, "mentat verify: '%s' is longer than 16 MiB\n", from);
      return -1;
    }
    sb_printf(s, "%.*s", (int)got, buf);
  }
  fclose(f);
  if (s->n && s->s[s->n - 1] != '\n') sb_puts(s, "\n");
  return 0;
}

int repl_verify_main(int argc, char **argv, const char *default_pack) {
  repl_options o = {.pack = default_pack};
  const char *variants[32], *packs[32], *from = NULL, *factions = NULL, *seed = NULL, *turns = NULL;
  strbuf query = {0};
  bool json = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    bool takes = !strcmp(a, "--components") || !strcmp(a, "--rules") || !strcmp(a, "--pack") || !strcmp(a, "--variant") ||
                 !strcmp(a, "--ruleset") || !strcmp(a, "--from") || !strcmp(a, "--factions") || !strcmp(a, "--seed") ||
                 !strcmp(a, "--turns");
    if (takes && !v) return fprintf(stderr, "mentat verify: %s needs a value\n", a), sb_free(&query), 64;
    if (!strcmp(a, "--json")) json = true;
    else if (!strcmp(a, "--advanced")) o.advanced = true;
    else if (!strcmp(a, "--components") || !strcmp(a, "--rules")) o.pack = argv[++i];
    else if (!strcmp(a, "--pack") && o.npacks < 32) packs[o.npacks++] = argv[++i];
    else if (!strcmp(a, "--variant") && o.nvariants < 32) variants[o.nvariants++] = argv[++i];
    else if (!strcmp(a, "--from")) from = argv[++i];
    else if (!strcmp(a, "--factions")) factions = argv[++i];
    else if (!strcmp(a, "--seed")) seed = argv[++i];
    else if (!strcmp(a, "--turns")) turns = argv[++i];
    else if (!strcmp(a, "--ruleset")) {
      int rs = mt_ruleset_parse(argv[++i]);
      if (rs < 0) return fprintf(stderr, "mentat verify: --ruleset is basic or advanced\n"), sb_free(&query), 64;
      o.advanced = rs == 1;
    } else if (takes) {
      return fprintf(stderr, "mentat verify: at most 32 %s options\n", a), sb_free(&query), 64;
    } else { /* the query's words, and its own options (--for, --jobs, ...) */
      if (strchr(a, '\n')) return fprintf(stderr, "mentat verify: a query is one line\n"), sb_free(&query), 64;
      sb_printf(&query, "%s%s", query.n ? " " : "", a);
    }
  }
  if (!query.n) {
    fprintf(stderr, "usage: mentat verify [pack options] [--factions a,b] [--seed N] [--from SAVE|SCRIPT] [--json] can|always EXPR [bound] [options]\n");
    return 64;
  }
  o.variants = variants;
  o.packs = packs;
  o.json = json;
  o.no_summary = true;
  o.progress = true; /* on standard error, at a terminal only, never with --json */
  o.confine = true; /* the start script is confined as a console script is (docs/console.md) */
  o.own_file = from;
  strbuf script = {0};
  if (start_script(from, factions, seed, turns, o.advanced, &script) < 0) {
    sb_free(&query);
    sb_free(&script);
    return 74;
  }
  sb_printf(&script, "verify %s\n", query.s);
  FILE *in = fmemopen(script.s, script.n, "r");
  int rc = in ? repl_run(in, stdout, "<verify>", &o) : 74;
  if (in) fclose(in);
  sb_free(&query);
  sb_free(&script);
  return rc;
}
