/* main.c -- the command line: subcommands, options, sysexits exit codes.
 *   0 ok, 64 usage, 65 rules/data error, 70 runtime error, 74 I/O. */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <stdbool.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data.h"
#include "game.h"
#include "mentat.h"
#include "pack.h"
#include "proc.h"
#include "program.h"
#include "bots.h"
#include "explain.h"
#include "repl.h"
#include "lsp.h"
#include "ruleset_report.h"
#include "sim.h"

enum { EX_OK = 0, EX_USAGE = 64, EX_DATAERR = 65, EX_SOFTWARE = 70, EX_IOERR = 74 };

static const char usage[] =
    "usage: mentat COMMAND [options]\n"
    "\n"
    "commands:\n"
    "  check   [pack options] [--json] [--alone] [FILE...]\n"
    "                                     check the pack, or house-rule FILEs against it (--alone: the\n"
    "                                     FILEs by themselves); exit 65 on errors\n"
    "  run     [pack options] [--seed N] [--answers A;B;...] [--factions a,b] [--work-budget N] [FILE...]\n"
    "                                     play the pack's game rule with seeded random bots\n"
    "  play    [pack options] [--factions a,b] [--turns N] [--seed N] [--bots random|uniform|passive|heuristic|search]\n"
    "          [--work-budget N] [--json] a full game with bots (Basic unless --ruleset advanced), narrated\n"
    "                                     (--json: one JSON object per line: narration, decisions, the end)\n"
    "  disasm  [pack options] RULE-ID [FILE...]   a rule's bytecode with its source lines\n"
    "  explain RULE-ID [--bytecode] [--json] [pack options]   a rule: links both ways, hooks, where defined\n"
    "  dump    board|decks|factions [--json] [--components DIR] [--pack DIR]...   the loaded components\n"
    "          board --svg FILE [--components DIR] [--pack DIR]...   the map drawn, with the start position\n"
    "  repl    [--json] [pack options] [--allow-write PATH]... [FILE|-]   the console: commands from FILE, or\n"
    "                                     standard input (-, or piped: a script like a file, its failures make\n"
    "                                     the exit status); a script writes only under its own directory and\n"
    "                                     the current one, or PATH\n"
    "  rules   --list [--json] [pack options]   every rule: number, title, kind, owner, membership, karama, links\n"
    "  diff    [pack options] --variant V... [--json]   what the variants change against the same pack and\n"
    "                                     ruleset without them: rules added, replaced, disabled, superseded,\n"
    "                                     amended, by phase (no --variant: says there is nothing to compare)\n"
    "  graph   [pack options] [--phase ID | --rule ID]   the rule-interaction graph in Graphviz DOT\n"
    "                                     (render: mentat graph ... | dot -Tsvg > rules.svg)\n"
    "  simulate [pack options] --games N [--seed S] [--jobs J] [--json] [--factions a,b] [--no-invariants]\n"
    "           [--bots B] [--search-budget P,H,W] [--work-budget N] [--quiet] [--records F [--resume]]\n"
    "           [--shard I/N]\n"
    "                                     seeded games with invariants checked after every step\n"
    "                                     (--no-invariants: unchecked, for balance runs)\n"
    "  compare [pack options] [--against W]... --variant V...|--without W... --games N [--seed S] [--jobs J]\n"
    "          [--bots B]\n"
    "          [--search-budget P,H,W]\n"
    "          [--factions a,b] [--json|--csv] [--records FILE [--resume]] [--plot FILE.svg] [--quiet]\n"
    "          [--shard I/N]\n"
    "                                     the variant against the base (the pack, with the --against\n"
    "                                     variants) on the same seeds: shares with 95% intervals, paired\n"
    "                                     differences, Holm-corrected tests (docs/balance.md)\n"
    "  merge   [--json|--csv] [--plot FILE.svg] RECORDS...   the summary of a run from its --records\n"
    "                                     files: every shard of one run, each once (compare, or simulate)\n"
    "  verify  [pack options] [--factions a,b] [--seed N] [--from SAVE|SCRIPT] [--json] can|always EXPR\n"
    "          [by turn T | within N decisions | this phase] [--for F,G] [--others B] [--jobs N] ...\n"
    "                                     can a position where EXPR holds (can) or fails (always) be\n"
    "                                     reached, over every legal decision and random outcome? a witness\n"
    "                                     to replay in the console, or no within the bounds (docs/verify.md)\n"
    "  lsp     [pack options]             the language server for editors, on standard input and output\n"
    "                                     (LSP 3.17: diagnostics, hover, definitions; docs/editors.md)\n";
/* the rest of the usage (one string literal may hold at most 4095 characters in C99) */
static const char usage_options[] =
    "\n"
    "--bots B: random, uniform, passive, heuristic or search (simulate and compare: also one per\n"
    "faction, comma-separated); --search-budget P,H,W: the search bot's playouts, horizon, width\n"
    "--work-budget N: the VM instructions the bots' listing and sampling may spend on one decision\n"
    "(default 100000000); a decision that needs more stops the game with an error naming it\n"
    "\n"
    "pack options:\n"
    "  --components DIR   the pack to play instead of the standard one: components (DIR/rules/board.yaml,\n"
    "                     DIR/rules/decks.yaml, DIR/factions/*.yaml) and, without FILEs, every\n"
    "                     DIR/{rules,factions,variants}/*.rules (--rules DIR: the same)\n"
    "  --pack DIR         a mod laid over that pack (repeatable, later ones over earlier ones): its files\n"
    "                     are added, and one with the same path as an earlier one replaces it\n"
    "                     (docs/modding.md)\n"
    "  --expansion NAME   lay the pack's expansion NAME (DIR/expansions/NAME, e.g. ixians_tleilaxu) over\n"
    "                     it, as --pack does, in the order given; NAME,NAME lays several (docs/expansions.md)\n"
    "  --variant NAME     apply a variant (repeatable)\n"
    "  --ruleset basic|advanced   the ruleset: basic (the default) leaves out the rules tagged\n"
    "                     advanced; advanced puts them in force\n"
    "  --advanced         short for --ruleset advanced\n"
    "  --native           run the rules' pure functions as C built by the system compiler (cached by\n"
    "                     the rule set's code hash; the same games, faster: docs/performance.md)\n";

static void message(void *ud, int level, const char *text) {
  (void)ud;
  (void)level;
  fputs(text, stderr);
}

/* The standard pack (pack.c); when it is nowhere, says where it looked. */
static const char *find_pack(char *buf, size_t n) {
  strbuf why = {0};
  const char *dir = pack_find(NULL, buf, n, &why);
  if (!dir) fprintf(stderr, "mentat: error: %s", why.s);
  sb_free(&why);
  return dir;
}

/* A --factions list: one or more names, none empty, at most the board's limit. */
static int factions_ok(const char *who, const char *list) {
  char buf[512];
  char *names[BOARD_MAX_FACTIONS];
  if (strlen(list) >= sizeof buf) return fprintf(stderr, "%s: --factions is too long\n", who), -1;
  snprintf(buf, sizeof buf, "%s", list);
  int n = mt_split_list(buf, names, BOARD_MAX_FACTIONS);
  if (n == -1) return fprintf(stderr, "%s: --factions '%s' has an empty name (give one or more faction ids, comma-separated)\n", who, list), -1;
  if (n == -2) return fprintf(stderr, "%s: --factions lists more than %d factions\n", who, BOARD_MAX_FACTIONS), -1;
  return 0;
}

typedef struct opts {
  const char *components;
  const char *packs[32]; /* --pack DIR, in order */
  int npacks;
  const char *variants[32];
  int nvariants;
  int advanced;
  const char *files[256];
  int nfiles;
  const char *rule_id;
  const char *answers;
  const char *factions;
  long turns;
  int bots;
  uint64_t seed;
  uint64_t work_budget; /* 0: MT_WORK_BUDGET */
  int bytecode;
  int native;
  int json;
  const mt_load *check; /* cmd_check: its message sink, against_pack and lint */
} opts;

static int parse_opts(int argc, char **argv, opts *o, int want_rule) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--components") || !strcmp(a, "--rules")) {
      if (++i >= argc) return fprintf(stderr, "mentat: %s needs a directory\n", a), -1;
      o->components = argv[i];
    } else if (!strcmp(a, "--pack")) {
      if (++i >= argc) return fprintf(stderr, "mentat: --pack needs a directory\n"), -1;
      if (o->npacks >= 32) return fprintf(stderr, "mentat: at most 32 --pack options\n"), -1;
      o->packs[o->npacks++] = argv[i];
    } else if (!strcmp(a, "--variant")) {
      if (++i >= argc || o->nvariants >= 32) return fprintf(stderr, "mentat: --variant needs a name\n"), -1;
      o->variants[o->nvariants++] = argv[i];
    } else if (!strcmp(a, "--advanced")) {
      o->advanced = 1;
    } else if (!strcmp(a, "--ruleset")) {
      if (++i >= argc || (o->advanced = mt_ruleset_parse(argv[i])) < 0)
        return fprintf(stderr, "mentat: --ruleset is basic or advanced\n"), -1;
    } else if (!strcmp(a, "--native")) {
      o->native = 1;
    } else if (!strcmp(a, "--bytecode")) {
      o->bytecode = 1;
    } else if (!strcmp(a, "--json")) {
      o->json = 1;
    } else if (!strcmp(a, "--seed")) {
      if (++i >= argc) return fprintf(stderr, "mentat: --seed needs a number\n"), -1;
      char *end;
      errno = 0;
      unsigned long long s = strtoull(argv[i], &end, 10);
      if (*end || errno || argv[i][0] == '-') return fprintf(stderr, "mentat: bad seed '%s'\n", argv[i]), -1;
      o->seed = s;
    } else if (!strcmp(a, "--work-budget")) {
      char *end;
      errno = 0;
      if (++i >= argc || !(o->work_budget = strtoull(argv[i], &end, 10)) || *end || errno || argv[i][0] == '-')
        return fprintf(stderr, "mentat: --work-budget needs a positive number of instructions\n"), -1;
    } else if (!strcmp(a, "--answers")) {
      if (++i >= argc) return fprintf(stderr, "mentat: --answers needs a list\n"), -1;
      o->answers = argv[i];
    } else if (!strcmp(a, "--turns")) {
      if (++i >= argc) return fprintf(stderr, "mentat: --turns needs a number\n"), -1;
      char *end;
      o->turns = strtol(argv[i], &end, 10);
      if (*end || o->turns < 1 || o->turns > 1000) return fprintf(stderr, "mentat: bad --turns '%s'\n", argv[i]), -1;
    } else if (!strcmp(a, "--bots")) {
      if (++i >= argc || (o->bots = bot_kind_parse(argv[i])) < 0)
        return fprintf(stderr, "mentat: --bots is random, uniform, passive, heuristic or search\n"), -1;
    } else if (!strcmp(a, "--factions")) {
      if (++i >= argc) return fprintf(stderr, "mentat: --factions needs a list\n"), -1;
      o->factions = argv[i];
      if (factions_ok("mentat", o->factions) < 0) return -1;
    } else if (a[0] == '-' && a[1]) {
      return fprintf(stderr, "mentat: unknown option '%s'\n", a), -1;
    } else if (want_rule && !o->rule_id) {
      o->rule_id = a;
    } else {
      if (o->nfiles >= 256) return fprintf(stderr, "mentat: too many files\n"), -1;
      o->files[o->nfiles++] = a;
    }
  }
  return 0;
}

static mt_rules *load(opts *o, int *code) {
  char pack[4096];
  for (int i = 0; i < o->nfiles; i++)
    if (access(o->files[i], R_OK) != 0) {
      fprintf(stderr, "mentat: error: cannot read '%s': %s\n", o->files[i], strerror(errno));
      *code = EX_IOERR;
      return NULL;
    }
  for (int i = 0; i < o->npacks; i++) {
    strbuf why = {0};
    int bad = pack_dir_ok(o->packs[i], &why);
    if (bad) fprintf(stderr, "mentat: error: %s\n", why.s);
    sb_free(&why);
    if (bad) return *code = EX_IOERR, NULL;
  }
  mt_load L = {0};
  L.components = o->components ? o->components : find_pack(pack, sizeof pack);
  L.packs = o->packs;
  L.npacks = o->npacks;
  if (!L.components) {
    *code = EX_IOERR;
    return NULL;
  }
  L.files = o->files;
  L.nfiles = o->nfiles;
  L.variants = o->variants;
  L.nvariants = o->nvariants;
  L.advanced = o->advanced;
  L.native = o->native;
  L.message = message;
  if (o->check) {
    L.message = o->check->message;
    L.message_ud = o->check->message_ud;
    L.against_pack = o->check->against_pack;
    L.lint = o->check->lint;
  }
  mt_rules *r = mt_rules_load(&L);
  if (!r) *code = EX_DATAERR;
  return r;
}

/* What `check` saw: the messages counted, and kept for --json. */
typedef struct check_log {
  int errors, warnings;
  int json;
  strbuf diags; /* JSON objects, comma-separated */
} check_log;

/* One rendered message ("FILE:LINE:COL: LEVEL: TEXT\n..." or "mentat: LEVEL: TEXT\n")
 * as a JSON object of --json. */
static void check_json(strbuf *b, const char *text) {
  const char *nl = strchr(text, '\n');
  size_t n = nl ? (size_t)(nl - text) : strlen(text);
  char *line = mt_strndup(text, n);
  static const char *const levels[] = {": error: ", ": warning: ", ": note: "};
  char *at = NULL;
  int lv = 0;
  for (int i = 0; i < 3; i++) { /* the first of them: the message may quote another */
    char *hit = strstr(line, levels[i]);
    if (hit && (!at || hit < at)) at = hit, lv = i;
  }
  const char *msg = at ? at + strlen(levels[lv]) : line;
  char *file = NULL;
  long ln = 0, col = 0;
  if (at) {
    *at = 0; /* line now holds "FILE:LINE:COL" or "mentat" */
    char *c2 = strrchr(line, ':');
    char *c1 = c2 ? (*c2 = 0, strrchr(line, ':')) : NULL;
    if (c1 && c2) {
      *c1 = 0;
      ln = strtol(c1 + 1, NULL, 10);
      col = strtol(c2 + 1, NULL, 10);
      file = line;
    }
  }
  sb_printf(b, "%s{\"file\":", b->n ? "," : "");
  if (file) sb_json_str(b, file);
  else sb_puts(b, "null");
  sb_printf(b, ",\"line\":%ld,\"col\":%ld,\"severity\":\"%s\",\"message\":", ln, col,
            lv == 0 ? "error" : lv == 1 ? "warning" : "note");
  sb_json_str(b, msg);
  sb_putc(b, '}');
  mt_free(line);
}

static void check_message(void *ud, int level, const char *text) {
  check_log *cl = ud;
  if (level == 0) cl->errors++;
  if (level == 1) cl->warnings++;
  if (cl->json) check_json(&cl->diags, text);
  else fputs(text, stderr);
}

/* `check [pack options] [--alone] [--json] [FILE...]`: the FILEs against the pack
 * (its own rules loaded too, the variants the FILEs declare applied), or the
 * pack itself; --alone checks the FILEs by themselves, with the pack's
 * components only.  One summary line on success; exit 65 on errors. */
static int cmd_check(int argc, char **argv) {
  opts o = {0};
  int alone = 0, nrest = 0;
  char **rest = mt_calloc((size_t)argc + 1, sizeof *rest);
  for (int i = 0; i < argc; i++)
    if (i > 0 && !strcmp(argv[i], "--alone")) alone = 1;
    else rest[nrest++] = argv[i];
  int bad = parse_opts(nrest, rest, &o, 0) < 0;
  mt_free(rest);
  if (bad) return EX_USAGE;
  int code = EX_OK;
  check_log cl = {0, 0, o.json, {0}};
  mt_load how = {.message = check_message, .message_ud = &cl, .against_pack = !alone, .lint = 1};
  o.check = &how;
  mt_rules *r = load(&o, &code);
  if (!r && code != EX_DATAERR) return code; /* a file or the pack not found: said on stderr */
  int inforce = 0, added = 0, replaced = 0, switched_off = 0;
  strbuf what = {0}, from = {0};
  sb_puts(&what, (r ? r->advanced : o.advanced) ? "Advanced" : "Basic"); /* a variant may bring the Advanced game */
  for (int i = 0; i < o.nvariants; i++) sb_printf(&what, " + %s", o.variants[i]);
  for (int i = 0; i < o.nfiles && !alone; i++) sb_printf(&what, " + %s", o.files[i]);
  if (o.nfiles && alone) sb_printf(&from, "%s alone", o.nfiles == 1 ? o.files[0] : "the files");
  else {
    if (o.nfiles) sb_printf(&from, "%s against ", o.nfiles == 1 ? o.files[0] : "the files");
    sb_printf(&from, "%s%s", o.components ? "the pack in " : "the standard pack", o.components ? o.components : "");
    for (int i = 0; i < o.npacks; i++) sb_printf(&from, " + %s", o.packs[i]); /* the mods laid over it */
  }
  if (r) {
    const program *p = &r->prog;
    for (int i = 0; i < p->nrules; i++) {
      const rule_rec *rr = &p->rules[i];
      replaced += rr->replaced && !rr->disabled;
      /* switched off by a variant, not left out by the ruleset */
      switched_off += rr->disabled && (o.advanced || !(rr->tags & TAG_ADVANCED));
      if (rr->disabled) continue;
      inforce++;
      bool user = false;
      for (int k = 0; r->user_file && k < r->nsources && !user; k++) user = r->user_file[k] && r->source_ids[k] == rr->span.file;
      added += rr->level == LEVEL_VARIANT || user;
    }
  }
  if (o.nvariants || (o.nfiles && !alone)) {
    sb_printf(&what, ": %d rule%s", added, added == 1 ? "" : "s");
    if (replaced) sb_printf(&what, ", %d replaced", replaced);
    if (switched_off) sb_printf(&what, ", %d disabled", switched_off);
  }
  if (o.json) {
    printf("{\"ok\":%s,\"checked\":", r ? "true" : "false");
    strbuf j = {0};
    sb_json_str(&j, from.s);
    printf("%s,\"rules\":%d,\"errors\":%d,\"warnings\":%d,\"diagnostics\":[%s]}\n", j.s, inforce, cl.errors,
           cl.warnings, cl.diags.s ? cl.diags.s : "");
    sb_free(&j);
  } else if (r) {
    printf("ok: %s: %d rules (%s), %d errors, %d warning%s\n", from.s, inforce, what.s, cl.errors, cl.warnings,
           cl.warnings == 1 ? "" : "s");
  }
  sb_free(&what);
  sb_free(&from);
  sb_free(&cl.diags);
  mt_rules_free(r);
  return code;
}

static int cmd_disasm(int argc, char **argv) {
  opts o = {0};
  if (parse_opts(argc, argv, &o, 1) < 0) return EX_USAGE;
  if (!o.rule_id) return fputs("mentat: which rule? (a rule number)\n", stderr), EX_USAGE;
  int code = EX_OK;
  mt_rules *r = load(&o, &code);
  if (!r) return code;
  if (!strcmp(argv[0], "explain")) {
    strbuf b = {0};
    int rc = explain_rule(r, o.rule_id, o.bytecode, o.json, &b);
    if (rc < 0) fprintf(stderr, "mentat: error: %s\n", b.s);
    else if (o.json) printf("{\"ok\":true,%s}\n", b.s);
    else fputs(b.s, stdout);
    sb_free(&b);
    mt_rules_free(r);
    return rc < 0 ? EX_DATAERR : EX_OK;
  }
  char *text = NULL;
  if (mt_rules_disasm(r, o.rule_id, &text) < 0) {
    fprintf(stderr, "mentat: error: no rule %s in the loaded rule set\n", o.rule_id);
    mt_rules_free(r);
    return EX_DATAERR;
  }
  fputs(text, stdout);
  free(text);
  mt_rules_free(r);
  return EX_OK;
}

static const char *const form_names[] = {"rule", "ability", "value", "action", "phase", "step", "game"};

static const char *karama_name(uint32_t tags) {
  int w = (tags & TAG_KARAMA_BEFORE ? 1 : 0) | (tags & TAG_KARAMA_AFTER ? 2 : 0);
  return w == 3 ? "both" : w == 2 ? "after" : w == 1 ? "before" : NULL;
}

/* `mentat rules --list [--json]`: every rule of the loaded set with its
 * number, title, kind, owner, membership, karama window and links. */
static int cmd_rules(int argc, char **argv) {
  opts o = {0};
  int list = 0, json = 0;
  char *rest[64];
  int nrest = 0;
  rest[nrest++] = argv[0];
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--list")) list = 1;
    else if (!strcmp(argv[i], "--json")) json = 1;
    else if (nrest < 63) rest[nrest++] = argv[i];
  }
  if (!list) return fputs("usage: mentat rules --list [--json] [pack options]\n", stderr), EX_USAGE;
  if (parse_opts(nrest, rest, &o, 0) < 0) return EX_USAGE;
  int code = EX_OK;
  mt_rules *r = load(&o, &code);
  if (!r) return code;
  const program *p = &r->prog;
  strbuf b = {0};
  int *order = mt_calloc((size_t)p->nrules + 1, sizeof *order); /* in number order: 1.9 before 1.10 */
  for (int i = 0; i < p->nrules; i++) order[i] = i;
  explain_sort_rules(p, order, p->nrules);
  if (json) sb_puts(&b, "[");
  for (int at = 0; at < p->nrules; at++) {
    int i = order[at];
    const rule_rec *rr = &p->rules[i];
    const char *k = karama_name(rr->tags);
    const char *mem = rr->tags & TAG_ADVANCED ? "advanced" : "basic";
    if (json) {
      sb_printf(&b, "%s\n{\"id\":", at ? "," : "");
      sb_json_str(&b, rr->id);
      sb_puts(&b, ",\"title\":");
      sb_json_str(&b, rr->title ? rr->title : "");
      sb_printf(&b, ",\"kind\":\"%s\",\"faction\":", form_names[rr->form]);
      if (rr->faction >= 0) sb_json_str(&b, r->def->factions[rr->faction].id);
      else sb_puts(&b, "null");
      sb_puts(&b, ",\"card\":");
      if (rr->card >= 0) sb_json_str(&b, r->def->cards[rr->card].id);
      else sb_puts(&b, "null");
      sb_printf(&b, ",\"advanced\":%s,\"karama\":", rr->tags & TAG_ADVANCED ? "true" : "false");
      if (k) sb_json_str(&b, k);
      else sb_puts(&b, "null");
      sb_printf(&b, ",\"note\":%s,\"alliance\":%s,\"disabled\":%s,\"supersedes\":[", rr->tags & TAG_NOTE ? "true" : "false",
                rr->tags & TAG_ALLIANCE ? "true" : "false", rr->disabled ? "true" : "false");
      for (int j = 0; j < rr->nsup; j++) sb_printf(&b, "%s\"%s\"", j ? "," : "", p->rules[rr->sup[j]].id);
      sb_puts(&b, "],\"amends\":[");
      for (int j = 0; j < rr->namd; j++) sb_printf(&b, "%s\"%s\"", j ? "," : "", p->rules[rr->amd[j]].id);
      sb_puts(&b, "]}");
    } else {
      sb_printf(&b, "%-14s %-8s %-8s %-14s %-7s %s", rr->id, form_names[rr->form], mem,
                rr->faction >= 0 ? r->def->factions[rr->faction].id : rr->card >= 0 ? r->def->cards[rr->card].id : "-",
                k ? k : "-", rr->title ? rr->title : "");
      for (int j = 0; j < rr->nsup; j++) sb_printf(&b, "%s%s", j ? " " : "  [supersedes ", p->rules[rr->sup[j]].id);
      if (rr->nsup) sb_puts(&b, "]");
      for (int j = 0; j < rr->namd; j++) sb_printf(&b, "%s%s", j ? " " : "  [amends ", p->rules[rr->amd[j]].id);
      if (rr->namd) sb_puts(&b, "]");
      if (rr->tags & TAG_NOTE) sb_puts(&b, "  (note)");
      if (rr->disabled) sb_puts(&b, "  (disabled)");
      sb_putc(&b, '\n');
    }
  }
  if (json) sb_puts(&b, "\n]\n");
  fputs(b.s ? b.s : "", stdout);
  sb_free(&b);
  mt_free(order);
  mt_rules_free(r);
  return EX_OK;
}

/* `mentat simulate [pack options] --games N ...`: pack options first, the
 * rest goes to sim_main. */
static int cmd_simulate(int argc, char **argv) {
  opts o = {0};
  char *pack_args[64], *sim_args[64];
  int np = 0, ns = 0;
  pack_args[np++] = argv[0];
  if (argc > 62) return fprintf(stderr, "mentat simulate: too many arguments\n"), EX_USAGE;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--components") || !strcmp(argv[i], "--rules") || !strcmp(argv[i], "--pack") ||
        !strcmp(argv[i], "--variant")) {
      pack_args[np++] = argv[i];
      if (i + 1 < argc) pack_args[np++] = argv[++i];
    } else if (!strcmp(argv[i], "--advanced") || !strcmp(argv[i], "--native")) {
      pack_args[np++] = argv[i];
    } else if (!strcmp(argv[i], "--ruleset")) {
      pack_args[np++] = argv[i];
      if (i + 1 < argc) pack_args[np++] = argv[++i];
    } else {
      sim_args[ns++] = argv[i];
    }
  }
  if (parse_opts(np, pack_args, &o, 0) < 0) return EX_USAGE;
  int code = EX_OK;
  mt_rules *r = load(&o, &code);
  if (!r) return code;
  strbuf packs = {0}; /* as typed, quoted for a shell: the replay line of a failing game */
  for (int i = 1; i < np; i++) {
    const char *w = pack_args[i];
    bool plain = *w != 0;
    for (const char *c = w; *c; c++) plain &= strchr("-_./,=+:@%", *c) != NULL || (*c >= '0' && *c <= '9') ||
                                           (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z');
    if (i > 1) sb_putc(&packs, ' ');
    if (plain) sb_puts(&packs, w);
    else {
      sb_putc(&packs, '\'');
      for (const char *c = w; *c; c++) *c == '\'' ? sb_puts(&packs, "'\\''") : sb_putc(&packs, *c);
      sb_putc(&packs, '\'');
    }
  }
  code = sim_main(r, packs.s ? packs.s : "", ns, sim_args);
  sb_free(&packs);
  mt_rules_free(r);
  return code;
}

/* `mentat compare [pack options] [--against W]... --variant V... ...`: the
 * base rule set (the pack with the --against variants) and the variant one
 * (the pack with the --variant ones), loaded here; the games in sim.c.
 * `--without W` (repeatable) measures an option switched ON: W is a variant
 * that switches an option off (an expansion's no_OPTION); the base side plays
 * every W (with the --against variants), the compared side the --variant ones
 * and every W but one -- one comparison per W, on the same seeds, then one
 * with none of them (every option on) when there are several. */
#define COMPARE_MAX_WITHOUT 16

/* Loads both sides of a comparison and plays it (sim.c). */
static int compare_loaded(opts *ob, opts *ov, int ns, char **sim_args) {
  int code = EX_OK;
  mt_rules *base = load(ob, &code);
  if (!base) return code;
  mt_rules *var = load(ov, &code);
  if (!var) return mt_rules_free(base), code;
  code = sim_compare_main(base, var, ns, sim_args);
  mt_rules_free(var);
  mt_rules_free(base);
  return code;
}

static int compare_once(opts *ob, char **pack_args, int np, char **var_args, int nv, char **without, int nw, int skip,
                        int ns, char **sim_args) {
  opts ov = {0};
  char *all_v[192];
  int nva = 0;
  static char variant_opt[] = "--variant";
  for (int i = 0; i < np; i++) all_v[nva++] = pack_args[i];
  for (int i = 0; i < nv; i++) all_v[nva++] = var_args[i];
  for (int i = 0; i < nw; i++)
    if (skip >= 0 && i != skip) all_v[nva++] = variant_opt, all_v[nva++] = without[i];
  if (parse_opts(nva, all_v, &ov, 0) < 0) return EX_USAGE;
  return compare_loaded(ob, &ov, ns, sim_args);
}

static int cmd_compare(int argc, char **argv) {
  opts ob = {0}, ov = {0};
  char *pack_args[64], *base_args[128], *var_args[128], *sim_args[64], *without[COMPARE_MAX_WITHOUT];
  int np = 0, nb = 0, nv = 0, ns = 0, nvariants = 0, nw = 0;
  if (argc > 62) return fprintf(stderr, "mentat compare: too many arguments\n"), EX_USAGE;
  pack_args[np++] = argv[0];
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    bool has_arg = !strcmp(a, "--components") || !strcmp(a, "--rules") || !strcmp(a, "--pack") || !strcmp(a, "--ruleset");
    if (has_arg || !strcmp(a, "--advanced") || !strcmp(a, "--native")) {
      pack_args[np++] = argv[i];
      if (has_arg && i + 1 < argc) pack_args[np++] = argv[++i];
    } else if (!strcmp(a, "--without") && i + 1 < argc) {
      if (nw == COMPARE_MAX_WITHOUT) return fprintf(stderr, "mentat compare: at most %d --without\n", COMPARE_MAX_WITHOUT), EX_USAGE;
      without[nw++] = argv[++i];
    } else if ((!strcmp(a, "--variant") || !strcmp(a, "--against")) && i + 1 < argc) {
      char **to = a[2] == 'v' ? var_args : base_args;
      int *n = a[2] == 'v' ? &nv : &nb;
      nvariants += a[2] == 'v';
      static char variant_opt[] = "--variant";
      to[(*n)++] = variant_opt;
      to[(*n)++] = argv[++i];
    } else sim_args[ns++] = argv[i];
  }
  if (!nvariants && !nw)
    return fprintf(stderr, "mentat compare: give the house rule to measure: --variant V (repeatable), or an option switched on: --without W\n"),
           EX_USAGE;
  if (nw > 1) /* several comparisons: each prints its own summary; one records file, shard or plot cannot hold them */
    for (int i = 0; i < ns; i++)
      if (!strcmp(sim_args[i], "--records") || !strcmp(sim_args[i], "--shard") || !strcmp(sim_args[i], "--plot") ||
          !strcmp(sim_args[i], "--resume") || !strcmp(sim_args[i], "--csv"))
        return fprintf(stderr, "mentat compare: %s takes one comparison: give one --without at a time\n", sim_args[i]), EX_USAGE;
  char *all_b[192], *all_v[192];
  int na = 0, nva = 0;
  static char variant_opt[] = "--variant";
  for (int i = 0; i < np; i++) all_b[na++] = pack_args[i], all_v[nva++] = pack_args[i];
  for (int i = 0; i < nb; i++) all_b[na++] = base_args[i];
  for (int i = 0; i < nw; i++) all_b[na++] = variant_opt, all_b[na++] = without[i];
  for (int i = 0; i < nv; i++) all_v[nva++] = var_args[i];
  if (parse_opts(na, all_b, &ob, 0) < 0 || parse_opts(nva, all_v, &ov, 0) < 0) return EX_USAGE;
  if (ob.nfiles || ov.nfiles) return fprintf(stderr, "mentat compare: unexpected argument '%s'\n", ob.files[0]), EX_USAGE;
  if (nw) {
    bool json = false;
    for (int i = 0; i < ns; i++) json |= !strcmp(sim_args[i], "--json");
    int worst = EX_OK;
    for (int k = 0; k < nw + (nw > 1); k++) {
      int skip = k < nw ? k : -1; /* -1: none of them, every option on */
      if (!json && nw > 1) {
        if (k) printf("\n");
        if (skip >= 0) printf("== switched on: the option %s switches off (the others stay off) ==\n", without[skip]);
        else printf("== switched on: every option of the --without variants ==\n");
        fflush(stdout);
      }
      int code = compare_once(&ob, pack_args, np, var_args, nv, without, nw, nw > 1 ? skip : -1, ns, sim_args);
      if (code > worst) worst = code;
      if (code > 1) break;
    }
    return worst;
  }
  return compare_loaded(&ob, &ov, ns, sim_args);
}

/* The narration of `play` and `run`; UD non-NULL: as JSON lines. */
static void narrate(void *ud, const char *rule, const char *text) {
  if (!ud) {
    printf("[%s] %s\n", rule, text);
    return;
  }
  strbuf b = {0};
  sb_puts(&b, "{\"event\":\"narration\",\"rule\":");
  sb_json_str(&b, rule);
  sb_puts(&b, ",\"text\":");
  sb_json_str(&b, text);
  sb_puts(&b, "}\n");
  fputs(b.s, stdout);
  sb_free(&b);
}

/* Plays the game rule: scripted answers first (separated by ';'), then
 * uniformly random legal answers from a bot generator seeded by --seed. */
static int play_game(mt_rules *r, opts *o) {
  char *fac[32];
  int nf = 0;
  char facbuf[512];
  if (o->factions) {
    snprintf(facbuf, sizeof facbuf, "%s", o->factions);
    nf = mt_split_list(facbuf, fac, 32); /* parse_opts checked the list */
  }
  char err[256];
  mt_game *g = mt_game_new(r, o->factions ? (const char *const *)fac : NULL, nf, o->seed, err, sizeof err);
  if (!g) {
    fprintf(stderr, "mentat: error: %s\n", err);
    return EX_USAGE;
  }
  static int as_json = 1;
  mt_game_set_log(g, narrate, o->json ? &as_json : NULL); /* --json: one JSON line per narrated event and decision */
  mt_set_work_budget(g, o->work_budget);
  if (o->turns > 0) { /* the pack's turn limit, when it has one (var game_length) */
    const program *p = &r->prog;
    for (int i = 0; i < p->nvars; i++)
      if (!strcmp(p->vars[i].name, "game_length")) board_var_set(g->L, g->v.st, p->vars[i].board_var, 0, 0, (int32_t)o->turns);
  }
  char *script = o->answers ? mt_strdup(o->answers) : NULL;
  char *cursor = script;
  uint64_t bot = o->seed ^ 0x626f74ull;
  int st = mt_start(g);
  int decisions = 0;
  while (st == MT_WAITING) {
    const mt_decision *d = mt_pending(g);
    mt_choice c;
    char text[512];
    char *ans = NULL;
    if (cursor && *cursor) {
      ans = cursor;
      char *semi = strchr(cursor, ';');
      if (semi) {
        *semi = 0;
        cursor = semi + 1;
      } else {
        cursor = cursor + strlen(cursor);
      }
    }
    if (ans) {
      char perr[256];
      if (mt_choice_parse(g, ans, &c, perr, sizeof perr) < 0) {
        fprintf(stderr, "mentat: error: scripted answer '%s' to %s (%s): %s\n", ans, d->faction, d->prompt, perr);
        st = -1;
        break;
      }
    } else if (!bot_choose(g, o->bots, &bot, &c)) {
      const char *stopped = mt_decision_error(g);
      if (stopped) fprintf(stderr, "mentat: %s\n", stopped);
      else fprintf(stderr, "mentat: error: %s has no legal answer to '%s' (rule %s)\n", d->faction, d->prompt, d->rule);
      st = -1;
      break;
    }
    mt_choice_format(g, &c, text, sizeof text);
    if (o->json) {
      strbuf b = {0};
      sb_puts(&b, "{\"event\":\"decision\",\"faction\":");
      sb_json_str(&b, d->faction);
      sb_puts(&b, ",\"rule\":");
      sb_json_str(&b, d->rule);
      sb_puts(&b, ",\"prompt\":");
      sb_json_str(&b, d->prompt);
      sb_printf(&b, ",\"secret\":%s,\"answer\":", d->secret ? "true" : "false");
      sb_json_str(&b, text);
      sb_puts(&b, "}\n");
      fputs(b.s, stdout);
      sb_free(&b);
    } else {
      printf("  %s%s -> %s\n", d->faction, d->secret ? " (secret)" : "", text);
    }
    mt_explain why;
    int rc = mt_apply(g, &c, &why);
    if (rc < 0) {
      fprintf(stderr, "mentat: refused: %s\n", why.text);
      if (!ans) {
        st = -1;
        break;
      }
      continue;
    }
    st = rc;
    decisions++;
  }
  int code = EX_OK;
  if (st == MT_FAILED) {
    fprintf(stderr, "mentat: %s\n", mt_error(g));
    code = EX_SOFTWARE;
  } else if (st < 0) {
    code = EX_SOFTWARE;
  } else {
    const program *p = &r->prog;
    strbuf res = {0}, jw = {0}, jv = {0};
    for (int i = 0; i < p->nvars; i++) {
      const var_rec *vr = &p->vars[i];
      if (!strcmp(vr->name, "winners")) {
        int64_t w = (uint32_t)board_var_get(g->L, g->v.st, vr->board_var, 0, 0);
        for (int f = 0; f < r->def->nfactions; f++)
          if ((uint64_t)w >> f & 1u) {
            sb_printf(&res, "%s%s", res.n ? ", " : "winners: ", r->def->factions[f].id);
            sb_printf(&jw, "%s\"%s\"", jw.n ? "," : "", r->def->factions[f].id);
          }
        if (!res.n) sb_puts(&res, "no winner");
      }
    }
    for (int i = 0; i < p->nvars; i++)
      if (!strcmp(p->vars[i].name, "victory")) {
        int v = board_var_get(g->L, g->v.st, p->vars[i].board_var, 0, 0);
        if (v >= 0 && v < p->nrules) {
          sb_printf(&res, " (%s %s)", p->rules[v].id, p->rules[v].title);
          sb_json_str(&jv, p->rules[v].id);
        }
      }
    if (o->json)
      printf("{\"event\":\"end\",\"decisions\":%d,\"winners\":[%s],\"victory\":%s,\"hash\":\"%016llx\"}\n", decisions,
             jw.s ? jw.s : "", jv.s ? jv.s : "null", (unsigned long long)mt_hash(g));
    else
      printf("game over after %d decisions%s%s; state hash %016llx\n", decisions, res.n ? "; " : "", res.n ? res.s : "",
             (unsigned long long)mt_hash(g));
    sb_free(&res);
    sb_free(&jw);
    sb_free(&jv);
  }
  mt_free(script);
  mt_game_free(g);
  return code;
}

static int cmd_run(int argc, char **argv) {
  opts o = {0};
  if (parse_opts(argc, argv, &o, 0) < 0) return EX_USAGE;
  int code = EX_OK;
  mt_rules *r = load(&o, &code);
  if (!r) return code;
  code = play_game(r, &o);
  mt_rules_free(r);
  return code;
}

/* `play`: a full game of the standard pack (or --components DIR) with bots. */
static int cmd_play(int argc, char **argv) {
  opts o = {0};
  if (parse_opts(argc, argv, &o, 0) < 0) return EX_USAGE;
  int code = EX_OK;
  mt_rules *r = load(&o, &code);
  if (!r) return code;
  code = play_game(r, &o);
  mt_rules_free(r);
  return code;
}

/* `mentat diff` and `mentat graph` (ruleset_report.c), with the pack options
 * of every command.  diff loads the rule set twice: as asked, and as its base
 * (the same pack and ruleset without the variants). */
static int cmd_report(int argc, char **argv) {
  bool graph = !strcmp(argv[0], "graph");
  const char *phase = NULL, *rule = NULL;
  char *rest[64];
  int nrest = 0;
  rest[nrest++] = argv[0];
  for (int i = 1; i < argc; i++) {
    if (graph && (!strcmp(argv[i], "--phase") || !strcmp(argv[i], "--rule"))) {
      if (i + 1 >= argc) return fprintf(stderr, "mentat graph: %s needs a rule number\n", argv[i]), EX_USAGE;
      const char **dst = argv[i][2] == 'p' ? &phase : &rule;
      *dst = argv[++i];
    } else if (nrest < 63) {
      rest[nrest++] = argv[i];
    } else {
      return fprintf(stderr, "mentat %s: too many arguments\n", argv[0]), EX_USAGE;
    }
  }
  opts o = {0};
  if (parse_opts(nrest, rest, &o, 0) < 0) return EX_USAGE;
  if (phase && rule) return fputs("mentat graph: give --phase or --rule, not both\n", stderr), EX_USAGE;
  if (graph && o.json) return fputs("mentat graph: the graph is DOT; --json is for diff\n", stderr), EX_USAGE;
  int code = EX_OK;
  mt_rules *r = load(&o, &code);
  if (!r) return code;
  strbuf b = {0};
  int rc = 0;
  if (graph) {
    rc = rules_report_graph(r, phase, rule, &b);
  } else {
    mt_rules *base = r;
    if (o.nvariants) {
      o.nvariants = 0;
      if (r->advanced) o.advanced = 1; /* a variant built on the Advanced game compares with the Advanced game */
      if (!(base = load(&o, &code))) return mt_rules_free(r), code;
    }
    rules_report_diff(base, r, o.json, &b);
    if (base != r) mt_rules_free(base);
  }
  if (rc < 0) fprintf(stderr, "mentat: error: %s\n", b.s);
  else fputs(b.s ? b.s : "", stdout);
  sb_free(&b);
  mt_rules_free(r);
  return rc < 0 ? EX_DATAERR : EX_OK;
}

#ifndef MENTAT_VERSION
#define MENTAT_VERSION "0.12"
#endif

/* `lsp [pack options]`: the language server on standard input and output (lsp.c); a file is
 * checked against the pack it lies in, else against this one with its --pack mods. */
static int cmd_lsp(int argc, char **argv) {
  opts o = {0};
  if (parse_opts(argc, argv, &o, 0) < 0) return EX_USAGE;
  if (o.nfiles) return fprintf(stderr, "mentat lsp: no FILE arguments: the editor opens the files\n"), EX_USAGE;
  char pack[4096];
  const char *dir = o.components ? o.components : find_pack(pack, sizeof pack);
  if (!dir) return EX_IOERR;
  for (int i = 0; i < o.npacks; i++) {
    strbuf why = {0};
    int bad = pack_dir_ok(o.packs[i], &why);
    if (bad) fprintf(stderr, "mentat: error: %s\n", why.s);
    sb_free(&why);
    if (bad) return EX_IOERR;
  }
  lsp_options lo = {dir, o.packs, o.npacks, MENTAT_VERSION};
  return lsp_serve(stdin, stdout, &lo);
}

/* `mentat COMMAND --help`: the lines of the usage that describe COMMAND, then the options every
 * pack-loading command shares.  An unknown command is a usage error. */
static int command_help(const char *cmd) {
  const char *at = NULL;
  char key[64];
  snprintf(key, sizeof key, "\n  %s ", cmd);
  if (!strcmp(cmd, "explain")) at = strstr(usage, "\n  explain ");
  else at = strstr(usage, key);
  if (!at) {
    fprintf(stderr, "mentat: unknown command '%s'\n", cmd);
    return EX_USAGE;
  }
  at++;
  const char *end = at;
  do { /* this command's line and its indented continuation lines */
    end = strchr(end, '\n');
    if (!end) break;
    end++;
  } while (!strncmp(end, "      ", 6) || !strncmp(end, "           ", 11));
  const char *line = at + strspn(at, " ");
  printf("usage: mentat %.*s", (int)(end ? end - line : (long)strlen(line)), line);
  const char *pack = strstr(usage_options, "\npack options:");
  if (pack && strcmp(cmd, "help")) printf("%s", pack);
  return EX_OK;
}

/* `--expansion NAME` is `--pack BASE/expansions/NAME` (docs/expansions.md),
 * BASE being the pack the command plays (--components/--rules DIR, else the
 * standard one).  Rewritten here, once, for every command that takes pack
 * options, so that each of them lays an expansion exactly as it lays a mod, in
 * the order given.  Returns 0 with *ARGV the new vector (its strings live until
 * exit), or an exit code after saying why. */
static int expand_expansions(int argc, char ***argv) {
  static char *out[512 + 2 * 64];
  static char *owned[64];
  static int nowned;
  char **in = *argv;
  bool any = false;
  const char *base = NULL;
  for (int i = 2; i < argc; i++) {
    any |= !strcmp(in[i], "--expansion");
    if ((!strcmp(in[i], "--components") || !strcmp(in[i], "--rules")) && i + 1 < argc) base = in[i + 1];
  }
  if (!any) return 0;
  if (argc > 500) return fprintf(stderr, "mentat: too many arguments\n"), EX_USAGE;
  char pack[4096];
  if (!base && !(base = find_pack(pack, sizeof pack))) return EX_IOERR;
  int n = 0;
  for (int i = 0; i < argc; i++) {
    if (i < 2 || strcmp(in[i], "--expansion")) {
      out[n++] = in[i];
      continue;
    }
    if (i + 1 >= argc) return fprintf(stderr, "mentat: --expansion needs a name (e.g. --expansion ixians_tleilaxu)\n"), EX_USAGE;
    /* a comma-separated list lays each name in the order given, as repeated options do */
    char list[1024], *names[64];
    if (strlen(in[++i]) >= sizeof list) return fprintf(stderr, "mentat: --expansion %s: the list is too long\n", in[i]), EX_USAGE;
    snprintf(list, sizeof list, "%s", in[i]);
    int nn = mt_split_list(list, names, 64);
    if (nn < 0) return fprintf(stderr, "mentat: --expansion %s: an empty name or too many names\n", in[i]), EX_USAGE;
    for (int j = 0; j < nn; j++) {
      if (nowned == 64) return fprintf(stderr, "mentat: at most 64 expansions\n"), EX_USAGE;
      for (int k = 0; k < j; k++)
        if (!strcmp(names[j], names[k])) return fprintf(stderr, "mentat: error: expansion '%s' is listed twice\n", names[j]), EX_USAGE;
      strbuf why = {0};
      char *dir = pack_expansion(base, names[j], &why);
      if (!dir) {
        fprintf(stderr, "mentat: error: %s\n", why.s);
        sb_free(&why);
        return EX_USAGE;
      }
      static char pack_opt[] = "--pack";
      out[n++] = pack_opt;
      out[n++] = owned[nowned++] = dir;
    }
  }
  out[n] = NULL;
  *argv = out;
  return -(n + 1); /* the new count, told apart from an exit code */
}

static int run_command(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    fputs(usage, argc < 2 ? stderr : stdout);
    fputs(usage_options, argc < 2 ? stderr : stdout);
    return argc < 2 ? EX_USAGE : EX_OK;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
    printf("mentat %s (rules language %d, saved positions %d)\n", MENTAT_VERSION, 1, 1);
    return EX_OK;
  }
  for (int i = 2; i < argc; i++) /* COMMAND --help: that command's usage, on stdout */
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return command_help(cmd);
  static const char *const pack_cmds[] = {"check", "run", "play", "disasm", "explain", "dump", "rules",
                                          "simulate", "compare", "lsp", "repl", "verify"};
  for (size_t i = 0; i < sizeof pack_cmds / sizeof *pack_cmds; i++)
    if (!strcmp(cmd, pack_cmds[i])) {
      int e = expand_expansions(argc, &argv);
      if (e > 0) return e;
      if (e < 0) argc = -e - 1;
      break;
    }
  if (!strcmp(cmd, "check")) return cmd_check(argc - 1, argv + 1);
  if (!strcmp(cmd, "run")) return cmd_run(argc - 1, argv + 1);
  if (!strcmp(cmd, "play")) return cmd_play(argc - 1, argv + 1);
  if (!strcmp(cmd, "disasm") || !strcmp(cmd, "explain")) return cmd_disasm(argc - 1, argv + 1);
  if (!strcmp(cmd, "dump")) return dump_main(argc - 1, argv + 1);
  if (!strcmp(cmd, "rules")) return cmd_rules(argc - 1, argv + 1);
  if (!strcmp(cmd, "simulate")) return cmd_simulate(argc - 1, argv + 1);
  if (!strcmp(cmd, "compare")) return cmd_compare(argc - 1, argv + 1);
  if (!strcmp(cmd, "merge")) return sim_merge_main(argc - 2, argv + 2);
  if (!strcmp(cmd, "diff") || !strcmp(cmd, "graph")) return cmd_report(argc - 1, argv + 1);
  if (!strcmp(cmd, "lsp")) return cmd_lsp(argc - 1, argv + 1);
  if (!strcmp(cmd, "repl") || !strcmp(cmd, "verify")) {
    char pack[4096];
    const char *dir = NULL; /* repl_main reads --components/--rules DIR itself */
    for (int i = 2; i + 1 < argc; i++)
      if (!strcmp(argv[i], "--components") || !strcmp(argv[i], "--rules")) dir = argv[i + 1];
    if (!dir && !(dir = find_pack(pack, sizeof pack))) return EX_IOERR;
    return !strcmp(cmd, "verify") ? repl_verify_main(argc - 1, argv + 1, dir) : repl_main(argc - 1, argv + 1, dir);
  }
  static const char *const cmds[] = {"check", "run", "play", "disasm", "explain", "dump", "repl", "rules", "simulate", "compare", "merge", "diff", "graph", "verify", "lsp", "help"};
  const char *s = diag_suggest(cmd, cmds, sizeof cmds / sizeof *cmds);
  fprintf(stderr, "mentat: unknown command '%s'%s%s%s\n%s", cmd, s ? " (did you mean '" : "", s ? s : "", s ? "'?)" : "",
          usage);
  return EX_USAGE;
}

/* What a command printed must reach its destination: standard output full
 * (a disk, /dev/full) or otherwise failing is an I/O error, named, never a
 * silent success.  Checked once for every command, at its end. */
static int finish_output(int code) {
  errno = 0;
  bool failed = fflush(stdout) != 0 || ferror(stdout);
  int e = errno;
  if (fclose(stdout) != 0 && !failed) failed = true, e = errno;
  if (!failed) return code;
  if (!e) e = proc_stdout_errno(); /* a flush before a fork saw it first */
  fprintf(stderr, "mentat: cannot write standard output: %s\n", e ? strerror(e) : "a write failed");
  return EX_IOERR;
}

int main(int argc, char **argv) { return finish_output(run_command(argc, argv)); }
