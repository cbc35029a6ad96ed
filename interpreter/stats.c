/* stats.c -- balance statistics over game records: intervals, the paired
 * test, the summary (text, JSON, CSV), records files and the gnuplot plot.
 *
 * Sits beside sim.c: sim.c plays the games and hands over records; this file
 * knows nothing of the engine except the rule set it hashes.  The summary is
 * a function of the records only, which is what makes `mentat merge` of a
 * sharded run print the single run's summary byte for byte. */
#define _POSIX_C_SOURCE 200809L
#include "stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "proc.h"

#define Z95 1.959963984540054
#define ALPHA 0.05

void sim_wilson(long k, long n, double *lo, double *hi) {
  if (n <= 0) {
    *lo = 0, *hi = 1;
    return;
  }
  double p = (double)k / (double)n, nn = (double)n, z2 = Z95 * Z95;
  double den = 1 + z2 / nn, mid = (p + z2 / (2 * nn)) / den;
  double half = Z95 / den * sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn));
  *lo = k == 0 || mid - half < 0 ? 0 : mid - half; /* exactly 0 and 1 at the ends, not rounding's 1e-17 */
  *hi = k == n || mid + half > 1 ? 1 : mid + half;
}

/* McNemar's exact test: B pairs where only the base side won, C where only
 * the variant did; two-sided p of the binomial(B+C, 1/2) sign test. */
static double mcnemar_p(long b, long c) {
  long n = b + c, k = b < c ? b : c;
  if (n == 0) return 1;
  double sum = 0;
  for (long i = 0; i <= k; i++)
    sum += exp(lgamma((double)n + 1) - lgamma((double)i + 1) - lgamma((double)(n - i) + 1) - (double)n * log(2.0));
  return 2 * sum > 1 ? 1 : 2 * sum;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *c = p;
  for (size_t i = 0; i < n; i++) h = (h ^ c[i]) * 0x100000001b3ull;
  return h;
}

static uint64_t fnv_str(uint64_t h, const char *s) { return fnv(h, s ? s : "", (s ? strlen(s) : 0) + 1); }

void sim_ruleset_hash(const mt_rules *r, char out[17]) {
  const program *p = &r->prog;
  uint64_t h = 0xcbf29ce484222325ull;
  for (int i = 0; i < p->nrules; i++) {
    const rule_rec *rr = &p->rules[i];
    h = fnv_str(h, rr->id);
    h = fnv_str(h, rr->title);
    unsigned char flags[2] = {rr->disabled, rr->replaced};
    h = fnv(h, flags, sizeof flags);
  }
  h = fnv(h, p->code, p->ncode);
  h = fnv(h, p->consts, (size_t)p->nconsts * sizeof *p->consts);
  snprintf(out, 17, "%016llx", (unsigned long long)h);
}

void sim_run_add(sim_run *run, const sim_record *rec) {
  if (run->n == run->cap) {
    run->cap = run->cap ? run->cap * 2 : 256;
    run->recs = mt_realloc(run->recs, (size_t)run->cap * sizeof *run->recs);
  }
  sim_record *r = &run->recs[run->n++];
  *r = *rec;
  r->victory = rec->victory ? mt_strdup(rec->victory) : NULL;
  if (rec->side == SIM_VARIANT) run->paired = true;
}

void sim_run_fini(sim_run *run) {
  for (long i = 0; i < run->n; i++) mt_free(run->recs[i].victory);
  mt_free(run->recs);
  for (int i = 0; i < run->nfactions; i++) mt_free(run->factions[i]);
  for (int s = 0; s < 2; s++) {
    mt_free(run->side[s].hash);
    mt_free(run->side[s].ruleset);
    mt_free(run->side[s].variants);
  }
  mt_free(run->bots);
  mt_free(run->search);
  memset(run, 0, sizeof *run);
}

/* ---- the summary ---- */

typedef struct side_stats {
  long games, wins[SIM_MAX_FACTIONS];
  double turns, decisions;           /* sums */
  const char *vic[512]; long nvic[512]; int nv; long novictory; /* by deciding rule */
} side_stats;

typedef struct faction_stats {
  double share[2], lo[2], hi[2];
  double diff, dlo, dhi, p;
  long only_base, only_variant;
  bool significant;
} faction_stats;

typedef struct summary {
  long games, failed; /* games: counted games (pairs when paired) */
  uint64_t first_seed;
  side_stats side[2];
  faction_stats fac[SIM_MAX_FACTIONS];
  int nsig;
} summary;

int sim_record_order(const void *a, const void *b) {
  const sim_record *x = a, *y = b;
  if (x->seed != y->seed) return x->seed < y->seed ? -1 : 1;
  return x->side - y->side;
}

static void count(side_stats *s, const sim_record *r, int nf) {
  s->games++;
  s->turns += (double)r->turns;
  s->decisions += (double)r->decisions;
  for (int f = 0; f < nf; f++)
    if (r->winners >> f & 1u) s->wins[f]++;
  if (!r->victory) {
    s->novictory++;
    return;
  }
  int i = 0;
  while (i < s->nv && strcmp(s->vic[i], r->victory)) i++;
  if (i == s->nv) {
    if (s->nv == 512) return;
    s->vic[s->nv++] = r->victory;
  }
  s->nvic[i]++;
}

static int by_p(const void *a, const void *b, const faction_stats *fs) {
  double x = fs[*(const int *)a].p, y = fs[*(const int *)b].p;
  return x < y ? -1 : x > y ? 1 : *(const int *)a - *(const int *)b;
}

/* Holm-Bonferroni at ALPHA over the factions' p-values. */
static void holm(faction_stats *fs, int n) {
  int order[SIM_MAX_FACTIONS];
  for (int i = 0; i < n; i++) order[i] = i;
  for (int i = 1; i < n; i++) /* insertion sort: n is at most 32 */
    for (int j = i; j > 0 && by_p(&order[j - 1], &order[j], fs) > 0; j--) {
      int t = order[j];
      order[j] = order[j - 1], order[j - 1] = t;
    }
  for (int i = 0; i < n; i++) {
    if (fs[order[i]].p > ALPHA / (double)(n - i)) break;
    fs[order[i]].significant = true;
  }
}

/* Computes the summary of RUN (whose records it sorts). */
static void summarize(sim_run *run, summary *S) {
  memset(S, 0, sizeof *S);
  int nf = run->nfactions;
  if (run->n > 1) qsort(run->recs, (size_t)run->n, sizeof *run->recs, sim_record_order); /* none: recs may be NULL */
  if (run->n) S->first_seed = run->recs[0].seed;
  for (long i = 0; i < run->n; i++) {
    const sim_record *r = &run->recs[i];
    if (!run->paired) {
      if (r->ok) count(&S->side[0], r, nf), S->games++;
      else S->failed++;
      continue;
    }
    const sim_record *v = i + 1 < run->n && run->recs[i + 1].seed == r->seed ? &run->recs[i + 1] : NULL;
    if (r->side != SIM_BASE || !v || v->side != SIM_VARIANT) { /* a game without its pair */
      S->failed++;
      continue;
    }
    i++;
    if (!r->ok || !v->ok) {
      S->failed++;
      continue;
    }
    S->games++;
    count(&S->side[0], r, nf);
    count(&S->side[1], v, nf);
    for (int f = 0; f < nf; f++) {
      bool b = r->winners >> f & 1u, w = v->winners >> f & 1u;
      if (b && !w) S->fac[f].only_base++;
      if (w && !b) S->fac[f].only_variant++;
    }
  }
  double n = (double)S->games;
  for (int f = 0; f < nf; f++) {
    faction_stats *fs = &S->fac[f];
    for (int s = 0; s < (run->paired ? 2 : 1); s++) {
      fs->share[s] = n > 0 ? (double)S->side[s].wins[f] / n : 0;
      sim_wilson(S->side[s].wins[f], S->games, &fs->lo[s], &fs->hi[s]);
    }
    if (!run->paired) continue;
    /* per-seed differences d in {-1, 0, 1}: mean and sample deviation */
    double b = (double)fs->only_base, c = (double)fs->only_variant;
    fs->diff = n > 0 ? (c - b) / n : 0;
    double var = n > 1 ? ((c + b) - n * fs->diff * fs->diff) / (n - 1) : 0;
    double half = n > 0 ? Z95 * sqrt(var > 0 ? var : 0) / sqrt(n) : 0;
    fs->dlo = fs->diff - half, fs->dhi = fs->diff + half;
    fs->p = mcnemar_p(fs->only_base, fs->only_variant);
  }
  if (run->paired) {
    holm(S->fac, nf);
    for (int f = 0; f < nf; f++) S->nsig += S->fac[f].significant;
  }
}

/* "no_guild_win", or "the variant" when the side has no variants. */
static const char *label(const sim_side *sd, const char *none) {
  return sd->variants && *sd->variants ? sd->variants : none;
}

/* Whether the comma-separated list LIST names NAME (LEN bytes). */
static bool list_has(const char *list, const char *name, size_t len) {
  for (const char *p = list; p && *p;) {
    const char *e = strchr(p, ',');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    if (n == len && !strncmp(p, name, len)) return true;
    p = e ? e + 1 : NULL;
  }
  return false;
}

/* The subject of the verdict: the variant side's variants; or, when they are
 * the base side's less some (compare --without: options switched on), "without
 * W1, W2" naming the variants the variant side leaves out.  In BUF. */
static const char *verdict_subject(const sim_run *run, strbuf *buf) {
  const sim_side *B = &run->side[SIM_BASE], *V = &run->side[SIM_VARIANT];
  const char *bl = B->variants ? B->variants : "", *vl = V->variants ? V->variants : "";
  bool subset = true, fewer = false;
  for (const char *p = vl; *p && subset;) {
    const char *e = strchr(p, ',');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    subset = list_has(bl, p, n);
    p = e ? e + 1 : p + n;
  }
  if (subset)
    for (const char *p = bl; *p;) {
      const char *e = strchr(p, ',');
      size_t n = e ? (size_t)(e - p) : strlen(p);
      if (!list_has(vl, p, n)) {
        sb_puts(buf, fewer ? ", " : "without ");
        sb_printf(buf, "%.*s", (int)n, p);
        fewer = true;
      }
      p = e ? e + 1 : p + n;
    }
  return subset && fewer ? buf->s : label(V, "the variant");
}

/* The verdict of a paired run, one line per significant faction and one for
 * the rest, each ending in a newline, appended to OUT. */
static void verdict(const sim_run *run, const summary *S, strbuf *out) {
  strbuf subject = {0};
  const char *who = verdict_subject(run, &subject);
  for (int f = 0; f < run->nfactions; f++) {
    const faction_stats *fs = &S->fac[f];
    if (!fs->significant) continue;
    sb_printf(out, "%s %s %s's win share by %.1f points [%.1f, %.1f], significant after Holm (p = %.2g)\n", who,
              fs->diff > 0 ? "raises" : "lowers", run->factions[f], 100 * fabs(fs->diff),
              100 * (fs->diff > 0 ? fs->dlo : -fs->dhi), 100 * (fs->diff > 0 ? fs->dhi : -fs->dlo), fs->p);
  }
  if (!S->nsig) sb_printf(out, "%s: no faction's win share changes significantly (all within noise)\n", who);
  else if (S->nsig < run->nfactions) sb_puts(out, "other factions within noise\n");
  sb_free(&subject);
}

static void print_json(const sim_run *run, const summary *S) {
  strbuf b = {0};
  sb_printf(&b, "{\"games\":%ld,\"failed\":%ld,\"seed\":%llu,\"ruleset\":", S->games, S->failed,
            (unsigned long long)S->first_seed);
  sb_json_str(&b, run->side[SIM_BASE].ruleset ? run->side[SIM_BASE].ruleset : "");
  const sim_side *V = &run->side[run->paired ? SIM_VARIANT : SIM_BASE];
  sb_puts(&b, ",\"variants\":");
  sb_json_list(&b, V->variants);
  if (run->paired) {
    sb_puts(&b, ",\"against\":");
    sb_json_list(&b, run->side[SIM_BASE].variants);
  }
  sb_puts(&b, ",\"bots\":");
  sb_json_str(&b, run->bots ? run->bots : "");
  if (run->paired) {
    sb_puts(&b, ",\"hashes\":{\"base\":");
    sb_json_str(&b, run->side[0].hash);
    sb_puts(&b, ",\"variant\":");
    sb_json_str(&b, run->side[1].hash);
    sb_printf(&b, "},\"test\":\"McNemar exact, Holm-Bonferroni over %d factions, alpha %.2f\"", run->nfactions, ALPHA);
  } else {
    sb_puts(&b, ",\"hash\":");
    sb_json_str(&b, run->side[0].hash ? run->side[0].hash : "");
  }
  sb_puts(&b, ",\"factions\":[");
  for (int f = 0; f < run->nfactions; f++) {
    const faction_stats *fs = &S->fac[f];
    sb_puts(&b, f ? ",{\"faction\":" : "{\"faction\":");
    sb_json_str(&b, run->factions[f]);
    for (int s = 0; s < (run->paired ? 2 : 1); s++)
      sb_printf(&b, ",\"%s\":{\"wins\":%ld,\"share\":%.4f,\"ci\":[%.4f,%.4f]}", s ? "variant" : "base",
                S->side[s].wins[f], fs->share[s], fs->lo[s], fs->hi[s]);
    if (run->paired)
      sb_printf(&b, ",\"diff\":{\"value\":%.4f,\"ci\":[%.4f,%.4f]},\"p\":%.6f,\"significant\":%s", fs->diff, fs->dlo,
                fs->dhi, fs->p, fs->significant ? "true" : "false");
    sb_putc(&b, '}');
  }
  sb_puts(&b, "]");
  for (int s = 0; s < (run->paired ? 2 : 1); s++) {
    const side_stats *ss = &S->side[s];
    double n = ss->games > 0 ? (double)ss->games : 1;
    sb_printf(&b, ",\"%s\":{\"mean_turns\":%.2f,\"mean_decisions\":%.1f,\"victories\":{", s ? "variant_games" : "base_games",
              ss->turns / n, ss->decisions / n);
    for (int i = 0; i < ss->nv; i++) {
      sb_json_str(&b, ss->vic[i]);
      sb_printf(&b, ":%ld,", ss->nvic[i]);
    }
    sb_printf(&b, "\"none\":%ld}}", ss->novictory);
  }
  if (run->paired) { /* the verdict's lines, as the text prints them */
    strbuf v = {0};
    verdict(run, S, &v);
    sb_puts(&b, ",\"verdict\":[");
    int k = 0;
    for (char *line = v.s, *nl; line && (nl = strchr(line, '\n')); line = nl + 1) {
      *nl = 0;
      if (k++) sb_putc(&b, ',');
      sb_json_str(&b, line);
    }
    sb_putc(&b, ']');
    sb_free(&v);
  }
  sb_puts(&b, "}\n");
  fputs(b.s, stdout);
  sb_free(&b);
}

static void print_csv(const sim_run *run, const summary *S) {
  printf("faction,games,base_wins,base_share,base_lo,base_hi");
  if (run->paired) printf(",variant_wins,variant_share,variant_lo,variant_hi,diff,diff_lo,diff_hi,p,significant");
  printf("\n");
  for (int f = 0; f < run->nfactions; f++) {
    const faction_stats *fs = &S->fac[f];
    printf("%s,%ld,%ld,%.4f,%.4f,%.4f", run->factions[f], S->games, S->side[0].wins[f], fs->share[0], fs->lo[0], fs->hi[0]);
    if (run->paired)
      printf(",%ld,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.6f,%s", S->side[1].wins[f], fs->share[1], fs->lo[1], fs->hi[1], fs->diff,
             fs->dlo, fs->dhi, fs->p, fs->significant ? "yes" : "no");
    printf("\n");
  }
}

/* Victories by deciding rule, both sides in one table. */
static void print_victories(const sim_run *run, const summary *S) {
  int ns = run->paired ? 2 : 1;
  printf("victories by deciding rule:%s\n", run->paired ? "        base  variant" : "");
  const char *seen[1024];
  int nseen = 0;
  for (int s = 0; s < ns; s++)
    for (int i = 0; i < S->side[s].nv; i++) {
      int k = 0;
      while (k < nseen && strcmp(seen[k], S->side[s].vic[i])) k++;
      if (k == nseen && nseen < 1024) seen[nseen++] = S->side[s].vic[i];
    }
  for (int i = 1; i < nseen; i++) /* in rule order */
    for (int j = i; j > 0 && strcmp(seen[j - 1], seen[j]) > 0; j--) {
      const char *t = seen[j];
      seen[j] = seen[j - 1], seen[j - 1] = t;
    }
  for (int k = 0; k < nseen; k++) {
    printf("  %-26s", seen[k]);
    for (int s = 0; s < ns; s++) {
      long c = 0;
      for (int i = 0; i < S->side[s].nv; i++)
        if (!strcmp(S->side[s].vic[i], seen[k])) c = S->side[s].nvic[i];
      printf(" %8ld", c);
    }
    printf("\n");
  }
  printf("  %-26s", "no winner");
  for (int s = 0; s < ns; s++) printf(" %8ld", S->side[s].novictory);
  printf("\n");
}

static void print_text(const sim_run *run, const summary *S) {
  const sim_side *B = &run->side[0], *V = &run->side[1];
  /* a variant built on the Advanced game brings it: then the two sides' rulesets differ */
  bool two = run->paired && B->ruleset && V->ruleset && strcmp(B->ruleset, V->ruleset);
  printf("%s: %ld %sgames (%ld failed), first seed %llu, ruleset %s%s%s%s, bots %s\n", run->paired ? "compare" : "simulate",
         S->games, run->paired ? "paired " : "", S->failed, (unsigned long long)S->first_seed, B->ruleset ? B->ruleset : "?",
         two ? " (variant: " : "", two ? V->ruleset : "", two ? ")" : "", run->bots ? run->bots : "?");
  printf("  %-8s variants: %-30s rule-set hash %s\n", run->paired ? "base" : "rules", label(B, "(none)"), B->hash ? B->hash : "?");
  if (run->paired) printf("  %-8s variants: %-30s rule-set hash %s\n", "variant", label(V, "(none)"), V->hash ? V->hash : "?");
  printf("win share per faction with 95%% Wilson intervals (shared victories count for each winner)");
  if (run->paired)
    printf(";\ndifference = variant - base, paired by seed, 95%% normal interval; significance: McNemar's exact test,\n"
           "Holm-Bonferroni over the %d factions, alpha %.2f",
           run->nfactions, ALPHA);
  if (run->paired) printf("\n  %-16s %-21s %-21s %-21s %8s", "faction", "base", "variant", "difference (points)", "p");
  else printf("\n  %-16s %s", "faction", "win share");
  printf("\n");
  for (int f = 0; f < run->nfactions; f++) {
    const faction_stats *fs = &S->fac[f];
    printf("  %-16s", run->factions[f]);
    for (int s = 0; s < (run->paired ? 2 : 1); s++)
      printf(" %5.1f%% [%5.1f, %5.1f]", 100 * fs->share[s], 100 * fs->lo[s], 100 * fs->hi[s]);
    if (run->paired)
      printf("  %+5.1f [%+5.1f, %+5.1f] %8.2g%s", 100 * fs->diff, 100 * fs->dlo, 100 * fs->dhi, fs->p,
             fs->significant ? " *" : "");
    printf("\n");
  }
  print_victories(run, S);
  for (int s = 0; s < (run->paired ? 2 : 1); s++) {
    double n = S->side[s].games > 0 ? (double)S->side[s].games : 1;
    printf("%s: %.2f turns and %.1f decisions per game\n", s ? "variant" : run->paired ? "base" : "games", S->side[s].turns / n,
           S->side[s].decisions / n);
  }
  if (!run->paired) return;
  strbuf v = {0};
  verdict(run, S, &v);
  printf("verdict:\n  ");
  for (const char *c = v.s; c && *c; c++) {
    putchar(*c);
    if (*c == '\n' && c[1]) printf("  ");
  }
  sb_free(&v);
  printf("overall: %s changes the win share of %d of the %d factions significantly (* above)\n",
         label(V, "the variant"), S->nsig, run->nfactions);
}

/* S as a gnuplot single-quoted string (no escapes inside but '' for a
 * quote).  Anything not printable ASCII -- a newline would end the command
 * and start another -- and the characters gnuplot substitutes in some
 * contexts (` and @) become '?'.  The records reader already refuses such
 * names; this is the second wall. */
static void gp_str(strbuf *b, const char *s) {
  sb_putc(b, '\'');
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '\'') sb_puts(b, "''");
    else if (c < 0x20 || c >= 0x7f || c == '`' || c == '@') sb_putc(b, '?');
    else sb_putc(b, (char)c);
  }
  sb_putc(b, '\'');
}

/* The plot: win shares with their intervals, base beside variant, by gnuplot,
 * run without a shell; its SVG comes back on its standard output into OUT
 * (the path never reaches the script), its messages on its standard error. */
static int plot(const sim_run *run, const summary *S, mt_out *out) {
  strbuf g = {0}, title = {0};
  sb_puts(&g, "set terminal svg size 900,480 dynamic font 'sans,12' background rgb 'white'\nset termoption noenhanced\n"
              "set style data histogram\nset style histogram errorbars gap 2 lw 1.5\n"
              "set style fill solid 0.7 border -1\nset yrange [0:100]\nset ylabel 'win share (%), 95% interval'\n"
              "set key top right\nset grid ytics\nset xtics rotate by -30\n");
  if (run->paired)
    sb_printf(&title, "%ld paired games, bots %s: %s (base) vs %s", S->games, run->bots ? run->bots : "?",
              label(&run->side[0], "the pack"), label(&run->side[1], "the variant"));
  else
    sb_printf(&title, "%ld games, bots %s: %s", S->games, run->bots ? run->bots : "?", label(&run->side[0], "the pack"));
  sb_puts(&g, "set title ");
  gp_str(&g, title.s);
  sb_free(&title);
  sb_puts(&g, "\n$data << EOD\n");
  for (int f = 0; f < run->nfactions; f++) { /* a quoted first column: a line of data can never read EOD */
    const faction_stats *fs = &S->fac[f];
    sb_putc(&g, '"');
    for (const char *c = run->factions[f]; *c; c++) sb_putc(&g, *c == '"' || (unsigned char)*c < 0x20 || *c == '\\' ? '?' : *c);
    sb_putc(&g, '"');
    for (int s = 0; s < (run->paired ? 2 : 1); s++)
      sb_printf(&g, " %.3f %.3f %.3f", 100 * fs->share[s], 100 * fs->lo[s], 100 * fs->hi[s]);
    sb_putc(&g, '\n');
  }
  sb_puts(&g, "EOD\nplot $data using 2:3:4:xtic(1) title 'base' lc rgb '#4477aa' noenhanced");
  if (run->paired) sb_puts(&g, ", '' using 5:6:7 title 'variant' lc rgb '#ee6677'");
  sb_puts(&g, "\n");
  static const char *const argv[] = {"gnuplot", NULL};
  strbuf said = {0}, why = {0};
  bool ok = proc_run_filter(argv, g.s, g.n, out->f, &said, &why);
  sb_free(&g);
  if (said.n) { /* gnuplot's own words: its reason when it failed, its warnings when it did not */
    for (char *line = said.s, *nl; line && *line; line = nl ? nl + 1 : NULL) {
      nl = strchr(line, '\n');
      if (nl) *nl = 0;
      if (*line) fprintf(stderr, "gnuplot: %s\n", line);
      if (!nl) break;
    }
  }
  sb_free(&said);
  if (!ok) {
    bool missing = strstr(why.s, "cannot run") != NULL;
    fprintf(stderr, "mentat: --plot: %s%s; '%s' is not written\n", why.s,
            missing ? " (install gnuplot: Debian gnuplot-nox)" : "", out->path);
    sb_free(&why);
    mt_out_abort(out);
    return 74;
  }
  if (!mt_out_commit(out, &why)) {
    fprintf(stderr, "mentat: --plot: %s\n", why.s);
    sb_free(&why);
    return 74;
  }
  sb_free(&why);
  return 0;
}

int sim_summary(sim_run *run, const sim_output *out, mt_out *plot_out) {
  summary *S = mt_calloc(1, sizeof *S);
  summarize(run, S);
  if (out->json) print_json(run, S);
  else if (out->csv) print_csv(run, S);
  else print_text(run, S);
  proc_flush(); /* the summary is out before gnuplot runs */
  int rc = plot_out ? plot(run, S, plot_out) : 0;
  mt_free(S);
  return rc;
}

int sim_merge_main(int argc, char **argv) {
  sim_output out = {0};
  int nfiles = 0;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--json")) out.json = true;
    else if (!strcmp(argv[i], "--csv")) out.csv = true;
    else if (!strcmp(argv[i], "--plot") && i + 1 < argc) out.plot = argv[++i];
    else if (argv[i][0] == '-' && argv[i][1]) return fprintf(stderr, "mentat merge: unknown option '%s'\n", argv[i]), 64;
    else nfiles++;
  }
  if (!nfiles) return fprintf(stderr, "usage: mentat merge [--json|--csv] [--plot FILE.svg] RECORDS...\n"), 64;
  /* the plot's file first: a path that cannot be written fails before any work */
  mt_out plot_out;
  strbuf err = {0};
  if (out.plot && !mt_out_open(&plot_out, out.plot, &err)) {
    fprintf(stderr, "mentat merge: --plot: %s\n", err.s);
    sb_free(&err);
    return 74;
  }
  sim_run run = {0};
  sim_reader rd;
  sim_reader_init(&rd, &run);
  bool ok = true;
  for (int i = 0; ok && i < argc; i++) {
    if (argv[i][0] == '-' && argv[i][1]) {
      if (!strcmp(argv[i], "--plot")) i++;
      continue;
    }
    ok = sim_records_read(&rd, argv[i], &err);
  }
  if (ok) ok = sim_reader_finish(&rd, &err);
  sim_reader_fini(&rd);
  if (!ok) {
    fprintf(stderr, "mentat merge: %s\n", err.s);
    sb_free(&err);
    sim_run_fini(&run);
    if (out.plot) mt_out_abort(&plot_out);
    return 65;
  }
  int rc = sim_summary(&run, &out, out.plot ? &plot_out : NULL);
  sim_run_fini(&run);
  return rc;
}
