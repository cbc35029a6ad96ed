/* explain.c -- the engine explains itself: a rule's links and hooks, searches
 * over the loaded rules, and why a choice is (not) legal, with the facts that
 * decided each guard.  Everything comes from the loaded rule set (variants
 * included) and the game's state; nothing here is canned text. */
#include "explain.h"


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "game.h"

/* The source extent of an expression: its own span joined with its operands' (a binary
 * operator's span is its operator). */
static mt_span full_span(const node *n) {
  mt_span s = n->span;
  for (uint32_t i = 0; i < n->nkids; i++)
    if (n->kids[i] && n->kind != AST_STR) s = ast_join(s, full_span(n->kids[i]));
  return s;
}

static const char *const form_names[] = {"rule", "ability", "value", "action", "phase", "step", "game"};

static const char *karama_window(uint32_t tags) {
  int w = (tags & TAG_KARAMA_BEFORE ? 1 : 0) | (tags & TAG_KARAMA_AFTER ? 2 : 0);
  return w == 3 ? "both" : w == 2 ? "after" : w == 1 ? "before" : NULL;
}

static void json_ids(strbuf *b, const program *p, const int *v, int n) {
  sb_putc(b, '[');
  for (int i = 0; i < n; i++) {
    if (i) sb_putc(b, ',');
    sb_json_str(b, p->rules[v[i]].id);
  }
  sb_putc(b, ']');
}

/* Rules that supersede (LINK_SUPERSEDES) or amend rule R. */
static int reverse_links(const program *p, int r, bool sup, int *out, int cap) {
  int n = 0;
  for (int i = 0; i < p->nrules && n < cap; i++) {
    const rule_rec *q = &p->rules[i];
    const int *v = sup ? q->sup : q->amd;
    int k = sup ? q->nsup : q->namd;
    for (int j = 0; j < k; j++)
      if (v[j] == r) out[n++] = i;
  }
  return n;
}

static bool owned_by(const node *items, const node *n) {
  for (uint32_t i = 0; items && i < items->nkids; i++)
    if (items->kids[i] == n) return true;
  return false;
}

/* What rule R hooks: the values it defines, actions and checks, triggers,
 * procedures and invariants. */
static void hooks(const program *p, int r, strbuf *text, strbuf *json) {
  const rule_rec *rr = &p->rules[r];
  int n = 0;
  sb_puts(json, "[");
#define HOOK(fmt, ...)                                                                                                 \
  do {                                                                                                                 \
    char h_[256];                                                                                                      \
    snprintf(h_, sizeof h_, fmt, __VA_ARGS__);                                                                         \
    sb_printf(text, "%s%s", n ? ", " : "", h_);                                                                        \
    if (n) sb_putc(json, ',');                                                                                         \
    sb_json_str(json, h_);                                                                                             \
    n++;                                                                                                               \
  } while (0)
  for (int i = 0; i < p->nvalues; i++)
    for (int k = 0; k < p->values[i].ndefs; k++)
      if (p->values[i].defs[k].rule == r) HOOK("value %s", p->values[i].name);
  for (int i = 0; i < p->nactions; i++) {
    if (p->actions[i].rule != r) continue;
    char kinds[160] = "";
    size_t kl = 0;
    for (int k = 0; k < p->actions[i].nkinds && kl < sizeof kinds; k++)
      kl += (size_t)snprintf(kinds + kl, sizeof kinds - kl, "%s%s", k ? ", " : " (is ", p->actions[i].kinds[k]);
    if (kl && kl + 1 < sizeof kinds) kinds[kl] = ')', kinds[kl + 1] = 0;
    HOOK("action %s%s", p->actions[i].name, kinds);
  }
  for (int i = 0; i < p->nchecks; i++)
    if (p->checks[i].rule == r) HOOK("guards on action %s", p->actions[p->checks[i].action].name);
  for (int i = 0; i < p->nactions; i++)
    for (int g = 0; g < p->actions[i].nguards; g++)
      if (p->actions[i].guards[g].rule == r && p->actions[i].guards[g].decl_rule != r) {
        HOOK("guard of action %s", p->actions[i].name);
        break;
      }
  static const char *const tn[] = {"before", "after", "instead of", "on"};
  for (int i = 0; i < p->ntriggers; i++)
    if (p->triggers[i].rule == r) HOOK("%s %s", tn[p->triggers[i].timing], p->events[p->triggers[i].event].name);
  for (int i = 0; i < p->nprocs; i++)
    if (p->procs[i].rule == r) HOOK("procedure %s", p->procs[i].name);
  for (int i = 0; i < p->ninvariants; i++)
    if (p->invariants[i].rule == r) HOOK("invariant \"%s\"", p->invariants[i].text);
  if (rr->body_fn >= 0) HOOK("%s", rr->form == RF_PHASE ? "runs as a phase" : rr->form == RF_GAME ? "runs the game" : "runs as a step");
#undef HOOK
  (void)owned_by;
  sb_puts(json, "]");
  if (!n) sb_puts(text, "none");
}

int explain_rule(const mt_rules *r, const char *id, bool bytecode, bool json, strbuf *out) {
  const program *p = &r->prog;
  int k = sema_find_rule(p, id);
  if (k < 0) {
    const char **c = mt_calloc((size_t)p->nrules + 1, sizeof *c);
    for (int i = 0; i < p->nrules; i++) c[i] = p->rules[i].id;
    const char *s = diag_suggest(id, c, (size_t)p->nrules);
    if (s) sb_printf(out, "no rule %s in the loaded rules (did you mean %s?)", id, s);
    else sb_printf(out, "no rule %s in the loaded rules", id);
    mt_free(c);
    return -1;
  }
  const rule_rec *rr = &p->rules[k];
  int sby[256], aby[256];
  int nsby = reverse_links(p, k, true, sby, 256), naby = reverse_links(p, k, false, aby, 256);
  uint32_t line = 0, col = 0;
  diag_linecol(r->d, rr->span.file, rr->span.start, &line, &col);
  const char *file = diag_source_name(r->d, rr->span.file);
  const char *owner = rr->faction >= 0 ? r->def->factions[rr->faction].id : rr->card >= 0 ? r->def->cards[rr->card].id : NULL;
  const char *kw = karama_window(rr->tags);
  strbuf htext = {0}, hjson = {0};
  hooks(p, k, &htext, &hjson);
  if (json) {
    sb_puts(out, "\"id\":");
    sb_json_str(out, rr->id);
    sb_puts(out, ",\"title\":");
    sb_json_str(out, rr->title ? rr->title : "");
    sb_printf(out, ",\"kind\":\"%s\",\"level\":\"%s\",\"faction\":", form_names[rr->form], level_names[rr->level]);
    if (rr->faction >= 0) sb_json_str(out, r->def->factions[rr->faction].id);
    else sb_puts(out, "null");
    sb_puts(out, ",\"card\":");
    if (rr->card >= 0) sb_json_str(out, r->def->cards[rr->card].id);
    else sb_puts(out, "null");
    sb_printf(out, ",\"advanced\":%s,\"note\":%s,\"alliance\":%s,\"karama\":", rr->tags & TAG_ADVANCED ? "true" : "false",
              rr->tags & TAG_NOTE ? "true" : "false", rr->tags & TAG_ALLIANCE ? "true" : "false");
    if (kw) sb_json_str(out, kw);
    else sb_puts(out, "null");
    sb_printf(out, ",\"in_force\":%s,\"supersedes\":", rr->disabled ? "false" : "true");
    json_ids(out, p, rr->sup, rr->nsup);
    sb_puts(out, ",\"amends\":");
    json_ids(out, p, rr->amd, rr->namd);
    sb_puts(out, ",\"superseded_by\":");
    json_ids(out, p, sby, nsby);
    sb_puts(out, ",\"amended_by\":");
    json_ids(out, p, aby, naby);
    sb_puts(out, ",\"hooks\":");
    sb_puts(out, hjson.s);
    sb_puts(out, ",\"defined_at\":");
    char at[512];
    snprintf(at, sizeof at, "%s:%u", file, line);
    sb_json_str(out, at);
    if (rr->variant) {
      sb_puts(out, ",\"variant\":");
      sb_json_str(out, rr->variant);
    }
  } else {
    sb_printf(out, "%s  %s\n", rr->id, rr->title ? rr->title : "");
    sb_printf(out, "  kind: %s (%s)%s%s\n", form_names[rr->form], level_names[rr->level], owner ? ", of " : "", owner ? owner : "");
    sb_printf(out, "  game: %s%s%s%s%s\n", rr->tags & TAG_ADVANCED ? "Advanced" : "Basic", rr->tags & TAG_NOTE ? ", a note (no behaviour)" : "",
              rr->tags & TAG_ALLIANCE ? ", an alliance ability" : "", rr->disabled ? "; NOT in force in this rule set" : "",
              rr->disabled && (rr->tags & TAG_ADVANCED) && !r->advanced ? " (the Basic game: --ruleset advanced puts it in force)" : "");
    if (kw)
      sb_printf(out, "  karama: %s (%s)\n", kw,
                !strcmp(kw, "after") ? "a Karama card may cancel a use as it is attempted"
                : !strcmp(kw, "both") ? "a Karama card may prevent a use, played before it"
                                      : "preventable: a passive or pre-emptive power");
    else sb_puts(out, "  karama: not cancellable\n");
    if (rr->nsup) {
      sb_puts(out, "  supersedes:");
      for (int i = 0; i < rr->nsup; i++) sb_printf(out, " %s (%s)", p->rules[rr->sup[i]].id, p->rules[rr->sup[i]].title);
      sb_putc(out, '\n');
    }
    if (rr->namd) {
      sb_puts(out, "  amends:");
      for (int i = 0; i < rr->namd; i++) sb_printf(out, " %s (%s)", p->rules[rr->amd[i]].id, p->rules[rr->amd[i]].title);
      sb_putc(out, '\n');
    }
    if (nsby) {
      sb_puts(out, "  superseded by:");
      for (int i = 0; i < nsby; i++) sb_printf(out, " %s (%s)", p->rules[sby[i]].id, p->rules[sby[i]].title);
      sb_putc(out, '\n');
    }
    if (naby) {
      sb_puts(out, "  amended by:");
      for (int i = 0; i < naby; i++) sb_printf(out, " %s (%s)", p->rules[aby[i]].id, p->rules[aby[i]].title);
      sb_putc(out, '\n');
    }
    sb_printf(out, "  hooks: %s\n", htext.s);
    if (rr->replaced) sb_printf(out, "  replaced by variant %s\n", rr->replaced_by);
    sb_printf(out, "  defined at %s:%u%s%s\n", file, line, rr->variant ? " in variant " : "", rr->variant ? rr->variant : "");
    if (bytecode) {
      char *text = NULL;
      if (mt_rules_disasm(r, id, &text) == 0) sb_puts(out, text);
      mt_free(text);
    }
  }
  sb_free(&htext);
  sb_free(&hjson);
  return 0;
}


/* Does rule R hook the value, event, action or procedure NAME? */
static bool hooks_name(const program *p, int r, const char *name) {
  for (int i = 0; i < p->nvalues; i++)
    if (!strcmp(p->values[i].name, name))
      for (int k = 0; k < p->values[i].ndefs; k++)
        if (p->values[i].defs[k].rule == r) return true;
  for (int i = 0; i < p->nactions; i++)
    if (!strcmp(p->actions[i].name, name)) {
      if (p->actions[i].rule == r) return true;
      for (int g = 0; g < p->actions[i].nguards; g++)
        if (p->actions[i].guards[g].rule == r) return true;
      for (int k = 0; k < p->nchecks; k++)
        if (p->checks[k].action == i && p->checks[k].rule == r) return true;
    }
  for (int i = 0; i < p->ntriggers; i++)
    if (p->triggers[i].rule == r && !strcmp(p->events[p->triggers[i].event].name, name)) return true;
  for (int i = 0; i < p->nprocs; i++)
    if (p->procs[i].rule == r && !strcmp(p->procs[i].name, name)) return true;
  return false;
}

/* ---- searching the rules in players' words ---------------------------------------------- */

static bool same_ci(const char *a, const char *b) {
  for (; *a && *b; a++, b++) {
    char x = *a >= 'A' && *a <= 'Z' ? (char)(*a - 'A' + 'a') : *a, y = *b >= 'A' && *b <= 'Z' ? (char)(*b - 'A' + 'a') : *b;
    if (x != y) return false;
  }
  return !*a && !*b;
}

static bool stop_word(const char *w) {
  static const char *const stop[] = {"a", "an", "the", "of", "to", "in", "on", "for", "and", "or", "is", "are", "what",
                                     "how", "when", "can", "do", "does", "i", "my", "with", "by", "at", "it", "its"};
  for (size_t i = 0; i < sizeof stop / sizeof *stop; i++)
    if (same_ci(w, stop[i])) return true;
  return false;
}

/* A word reduced for comparison: lower case, a plural's ending off (losses: loss, abilities: ability). */
static void stem(const char *w, size_t len, char *out, size_t cap) {
  size_t n = 0;
  for (size_t i = 0; i < len && n + 1 < cap; i++) out[n++] = (char)(w[i] >= 'A' && w[i] <= 'Z' ? w[i] - 'A' + 'a' : w[i]);
  out[n] = 0;
  if (n > 4 && !strcmp(out + n - 3, "ies")) strcpy(out + n - 3, "y");
  else if (n > 4 && !strcmp(out + n - 4, "sses")) out[n - 2] = 0;
  else if (n > 3 && out[n - 1] == 's' && out[n - 2] != 's' && out[n - 2] != 'u') out[n - 1] = 0;
}

/* Does TEXT hold a word equal to the stemmed query word Q (or, for Q of 3 letters or more,
 * beginning with it: ship finds shipping)? */
static bool has_word(const char *text, const char *q) {
  size_t ql = strlen(q);
  for (const char *t = text; *t;) {
    while (*t && !((*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z') || (*t >= '0' && *t <= '9'))) t++;
    const char *b = t;
    while ((*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z') || (*t >= '0' && *t <= '9')) t++;
    if (t == b) continue;
    char w[64];
    stem(b, (size_t)(t - b), w, sizeof w);
    if (!strcmp(w, q) || (ql >= 3 && !strncmp(w, q, ql))) return true;
  }
  return false;
}

/* How well rule I matches the query words: 1000 for each word found (so more words always
 * rank higher), plus 3 when found in the title or number, 2 in its faction or card, 1 in what
 * it hooks.  0: no word found. */
static int keyword_score(const mt_rules *r, int i, int argc, const char *const *argv) {
  const program *p = &r->prog;
  const rule_rec *rr = &p->rules[i];
  strbuf own = {0}, hk = {0}, hj = {0};
  if (rr->faction >= 0) sb_printf(&own, "%s %s ability ", r->def->factions[rr->faction].id, r->def->factions[rr->faction].name);
  if (rr->card >= 0) sb_printf(&own, "%s %s card treachery", r->def->cards[rr->card].id, r->def->cards[rr->card].name);
  hooks(p, i, &hk, &hj);
  int score = 0;
  for (int a = 0; a < argc; a++) {
    if (stop_word(argv[a])) continue;
    char q[64];
    stem(argv[a], strlen(argv[a]), q, sizeof q);
    if (has_word(rr->title ? rr->title : "", q) || has_word(rr->id, q)) score += 1003;
    else if (own.s && has_word(own.s, q)) score += 1002;
    else if (hk.s && has_word(hk.s, q)) score += 1001;
  }
  sb_free(&own);
  sb_free(&hk);
  sb_free(&hj);
  return score;
}

/* Rule ids in number order: numeric parts as numbers (1.9 before 1.10), named parts
 * (wbc.house.2) after the numbered rules, alphabetically. */
static int id_cmp(const char *a, const char *b) {
  while (*a && *b) {
    bool da = *a >= '0' && *a <= '9', db = *b >= '0' && *b <= '9';
    if (da && db) {
      char *ea, *eb;
      unsigned long x = strtoul(a, &ea, 10), y = strtoul(b, &eb, 10);
      if (x != y) return x < y ? -1 : 1;
      a = ea, b = eb;
    } else if (da != db) {
      return da ? -1 : 1;
    } else {
      if (*a != *b) return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
      a++, b++;
    }
  }
  return *a ? 1 : *b ? -1 : 0;
}

static const program *sorting;
static int by_id(const void *x, const void *y) {
  int c = id_cmp(sorting->rules[*(const int *)x].id, sorting->rules[*(const int *)y].id);
  return c ? c : *(const int *)x - *(const int *)y;
}

void explain_sort_rules(const program *p, int *idx, int n) {
  sorting = p;
  if (n > 1) qsort(idx, (size_t)n, sizeof *idx, by_id);
}

int explain_query(const mt_rules *r, int argc, const char *const *argv, bool json, strbuf *out) {
  const program *p = &r->prog;
  if (argc < 1) {
    sb_puts(out, "usage: rules NUMBER-PREFIX | KEYWORD | faction F | card C | hooks NAME | karama | basic | advanced | phase ID");
    return -1;
  }
  const char *what = argv[0];
  int faction = -1, card = -1, phase = -1;
  if (!strcmp(what, "faction") && argc > 1) {
    faction = board_faction_find(r->def, argv[1]);
    if (faction < 0) {
      sb_printf(out, "unknown faction '%s'", argv[1]);
      return -1;
    }
  }
  if (!strcmp(what, "card") && argc > 1) {
    card = board_card_index(r->def, argv[1]);
    if (card < 0) {
      sb_printf(out, "unknown card '%s'", argv[1]);
      return -1;
    }
  }
  if (!strcmp(what, "phase") && argc > 1) {
    phase = sema_find_rule(p, argv[1]);
    for (int i = 0; i < p->nrules && phase < 0; i++)
      if (p->rules[i].form == RF_PHASE && p->rules[i].name &&
          (!strcmp(p->rules[i].name, argv[1]) || (!strncmp(p->rules[i].name, argv[1], strlen(argv[1])) &&
                                                  !strcmp(p->rules[i].name + strlen(argv[1]), "_phase"))))
        phase = i;
    if (phase < 0) {
      sb_printf(out, "unknown phase '%s'", argv[1]);
      return -1;
    }
  }
  int *score = mt_calloc((size_t)p->nrules + 1, sizeof *score);
  /* `karama`, `advanced`, `basic` alone name a tag; with more words they are keywords */
  bool tag = argc == 1 && (!strcmp(what, "karama") || !strcmp(what, "advanced") || !strcmp(what, "basic"));
  bool keywords = faction < 0 && card < 0 && phase < 0 && !tag && !(!strcmp(what, "hooks") && argc > 1) &&
                  !(what[0] >= '0' && what[0] <= '9');
  int best = 0;
  for (int i = 0; i < p->nrules; i++) {
    const rule_rec *rr = &p->rules[i];
    bool m;
    if (faction >= 0) m = rr->faction == faction;
    else if (card >= 0) m = rr->card >= 0 && !strcmp(r->def->cards[rr->card].id, r->def->cards[card].id);
    else if (phase >= 0) {
      m = false;
      for (int q = i; q >= 0 && !m; q = p->rules[q].parent) m = q == phase;
      if (!m) { /* numbered under the phase */
        size_t pl = strlen(p->rules[phase].id);
        m = !strncmp(rr->id, p->rules[phase].id, pl) && (rr->id[pl] == '.' || !rr->id[pl]);
      }
    } else if (!strcmp(what, "hooks") && argc > 1) m = hooks_name(p, i, argv[1]);
    else if (tag && !strcmp(what, "karama")) m = (rr->tags & TAG_KARAMA) != 0;
    else if (tag && !strcmp(what, "advanced")) m = (rr->tags & TAG_ADVANCED) != 0;
    else if (tag && !strcmp(what, "basic")) m = !(rr->tags & TAG_ADVANCED);
    else if (what[0] >= '0' && what[0] <= '9') {
      size_t pl = strlen(what);
      m = !strncmp(rr->id, what, pl) && (rr->id[pl] == '.' || !rr->id[pl] || what[pl - 1] == '.');
    } else {
      score[i] = keyword_score(r, i, argc, argv);
      m = score[i] > 0;
      if (score[i] > best) best = score[i];
    }
    if (!m) score[i] = -1;
    else if (!keywords) score[i] = 1;
  }
  /* keywords: the rules that match the most words (each word a title or id word first, then
   * its faction or card, then what it hooks), in number order */
  int *order = mt_calloc((size_t)p->nrules + 1, sizeof *order);
  int n = 0, want = keywords ? best / 1000 : 0;
  for (int i = 0; i < p->nrules; i++)
    if (score[i] > 0 && (!keywords || score[i] / 1000 == want)) order[n++] = i;
  explain_sort_rules(p, order, n);
  if (keywords && n > 1) { /* ranked: title and number matches first, then faction or card, then hooks; by number within */
    int *tmp = mt_calloc((size_t)n, sizeof *tmp);
    int m = 0;
    for (int tier = 3 * want; tier >= want; tier--)
      for (int k = 0; k < n; k++)
        if (score[order[k]] % 1000 == tier) tmp[m++] = order[k];
    memcpy(order, tmp, sizeof *order * (size_t)m);
    n = m;
    mt_free(tmp);
  }
  if (json) sb_puts(out, "\"matches\":[");
  int words = 0;
  for (int a = 0; keywords && a < argc; a++) words += !stop_word(argv[a]);
  if (keywords && n && want < words && !json)
    sb_printf(out, "no rule matches every word; these match %d of %d:\n", want, words);
  for (int k = 0; k < n; k++) {
    const rule_rec *rr = &p->rules[order[k]];
    if (json) {
      sb_printf(out, "%s{\"id\":", k ? "," : "");
      sb_json_str(out, rr->id);
      sb_puts(out, ",\"title\":");
      sb_json_str(out, rr->title ? rr->title : "");
      sb_puts(out, "}");
    } else {
      sb_printf(out, "%s%-14s %s%s", k ? "\n" : "", rr->id, rr->title ? rr->title : "", rr->disabled ? " (not in force)" : "");
    }
  }
  mt_free(order);
  mt_free(score);
  if (json) sb_printf(out, "],\"count\":%d", n);
  else if (!n) sb_puts(out, "no rule matches");
  return 0;
}

/* The rule whose definition of value VR is in force for arguments VARGS: the
 * first active definition whose pattern matches, or -1. */
static int deciding_rule(mt_game *g, const value_rec *vr, const int64_t *vargs) {
  for (int k = 0; k < vr->ndefs; k++) {
    const value_def *vd = &vr->defs[k];
    if (!vm_rule_active(&g->v, vd->rule)) continue;
    int64_t m = 1;
    if (vd->match_fn >= 0 && !vm_eval(&g->v, vd->match_fn, vargs, vr->nparams, &m, NULL)) return -1;
    if (m) return vd->rule;
  }
  return -1;
}

/* Evaluates expression N as a function of the action's parameters and cost (ARGS). */
static bool eval_in_action(mt_game *g, const action_rec *a, const node *n, const int64_t *args, int nargs, int64_t *out) {
  mt_rules *r = (mt_rules *)(uintptr_t)g->r;
  cg_mark mark = cg_get_mark(&r->prog);
  int fn = cg_compile_expr(&r->prog, r->d, (node *)(uintptr_t)n, a->ast->slot);
  r->prog.funcs[fn].nparams = nargs;
  if (r->prog.funcs[fn].nlocals < nargs) r->prog.funcs[fn].nlocals = nargs;
  bool ok = vm_eval(&g->v, fn, args, nargs, out, NULL);
  cg_rollback(&r->prog, &mark);
  return ok;
}

/* Whether another action of one of A's kinds declares a cost: A, which has none, is then a free
 * way of doing something that is paid for (the Fremen's send beside the shipment), and an answer
 * about A says it costs nothing. */
static bool kin_costs(const mt_rules *r, const action_rec *a) {
  const program *p = &r->prog;
  for (int i = 0; i < p->nactions; i++) {
    const action_rec *b = &p->actions[i];
    if (b == a || !b->cost) continue;
    for (int k = 0; k < a->nkinds; k++)
      for (int m = 0; m < b->nkinds; m++)
        if (!strcmp(a->kinds[k], b->kinds[m])) return true;
  }
  return false;
}

/* "N (EXPR, by rule R: TITLE)": an action's cost and, when a value gives it,
 * the rule whose definition decided it (a house rule that changed a price). */
static void cost_text(mt_game *g, const action_rec *a, const int64_t *args, int64_t cost, strbuf *text, strbuf *rules) {
  const program *p = &g->r->prog;
  size_t len;
  const char *src = diag_source_text(g->r->d, a->cost->span.file, &len);
  sb_printf(text, "%lld (%.*s", (long long)cost, (int)(a->cost->span.end - a->cost->span.start), src + a->cost->span.start);
  if (a->cost->kind == AST_CALL && a->cost->op == CALL_VALUE) {
    const value_rec *vr = &p->values[a->cost->sym];
    int64_t vargs[MAX_PARAMS];
    bool okargs = true;
    for (uint32_t i = 0; i < a->cost->nkids && i < MAX_PARAMS; i++)
      okargs &= eval_in_action(g, a, a->cost->kids[i], args, a->nparams + 1, &vargs[i]);
    int rule = okargs ? deciding_rule(g, vr, vargs) : -1;
    if (rule >= 0) {
      sb_printf(text, ", by rule %s: %s", p->rules[rule].id, p->rules[rule].title);
      sb_printf(rules, "%s\"%s\"", rules->n ? "," : "", p->rules[rule].id);
    }
  }
  sb_puts(text, ")");
}

static void bound_facts(mt_game *g, const action_rec *a, const node *n, const char *name, const int64_t *args, int nargs,
                        strbuf *text, strbuf *json, int *count, int depth);

/* The facts behind a guard: each call or variable in its condition,
 * evaluated with the choice's arguments (ARGS: parameters, then cost). */
static void facts(mt_game *g, const action_rec *a, const node *n, const int64_t *args, int nargs, strbuf *text, strbuf *json,
                  int *count, int depth) {
  if (!n || depth > 6 || *count >= 8) return;
  mt_rules *r = (mt_rules *)(uintptr_t)g->r;
  bool interesting = (n->kind == AST_CALL && n->op != CALL_ATTR) || (n->kind == AST_NAME && (n->op == REF_VAR || n->op == REF_VALUE || n->op == REF_BUILTIN));
  if (interesting && n->ty != TY_ERROR && n->ty != TY_VOID) {
    /* compile the sub-expression as a function of the action's parameters
     * (forgotten once evaluated) */
    cg_mark mark = cg_get_mark(&r->prog);
    int fn = cg_compile_expr(&r->prog, r->d, (node *)(uintptr_t)n, a->ast->slot);
    r->prog.funcs[fn].nparams = nargs;
    if (r->prog.funcs[fn].nlocals < nargs) r->prog.funcs[fn].nlocals = nargs;
    int64_t v;
    if (vm_eval(&g->v, fn, args, nargs, &v, NULL)) {
      size_t len;
      const char *src = diag_source_text(r->d, n->span.file, &len);
      strbuf val = {0};
      vm_format_value(&g->v, n->ty, v, &val);
      char fact[512];
      /* show the call with its arguments' values */
      strbuf call = {0};
      int by = -1; /* a value with several definitions: the rule whose definition decided it */
      if (n->kind == AST_CALL) {
        sb_printf(&call, "%s(", n->name);
        int64_t vargs[MAX_PARAMS];
        bool okargs = true;
        for (uint32_t i = 0; i < n->nkids; i++) {
          int64_t av = 0;
          int afn = cg_compile_expr(&r->prog, r->d, n->kids[i], a->ast->slot);
          r->prog.funcs[afn].nparams = nargs;
          if (r->prog.funcs[afn].nlocals < nargs) r->prog.funcs[afn].nlocals = nargs;
          if (i) sb_puts(&call, ", ");
          bool ok = vm_eval(&g->v, afn, args, nargs, &av, NULL);
          if (ok) vm_format_value(&g->v, n->kids[i]->ty, av, &call);
          else sb_puts(&call, "?");
          okargs &= ok;
          if (i < MAX_PARAMS) vargs[i] = av;
        }
        sb_puts(&call, ")");
        if (n->op == CALL_VALUE && okargs && r->prog.values[n->sym].ndefs > 1)
          by = deciding_rule(g, &r->prog.values[n->sym], vargs);
      } else {
        sb_printf(&call, "%.*s", (int)(n->span.end - n->span.start), src + n->span.start);
      }
      if (by >= 0) snprintf(fact, sizeof fact, "%s is %s (by rule %s)", call.s, val.s, r->prog.rules[by].id);
      else snprintf(fact, sizeof fact, "%s is %s", call.s, val.s);
      sb_printf(text, "%s%s", *count ? "; " : "", fact);
      if (*count) sb_putc(json, ',');
      sb_json_str(json, fact);
      (*count)++;
      sb_free(&val);
      sb_free(&call);
    }
    cg_rollback(&r->prog, &mark);
  }
  /* inside an aggregate or a comprehension, what reads the bound member has no value of its
   * own here: only the rest is shown (the iterable, calls that do not read the member) */
  if (n->kind == AST_AGGREGATE || n->kind == AST_COMPREHENSION) {
    facts(g, a, n->kids[0], args, nargs, text, json, count, depth + 1);
    for (uint32_t i = 1; i < n->nkids; i++) bound_facts(g, a, n->kids[i], n->name, args, nargs, text, json, count, depth + 1);
    return;
  }
  for (uint32_t i = 0; i < n->nkids; i++) facts(g, a, n->kids[i], args, nargs, text, json, count, depth + 1);
}

static bool mentions(const node *n, const char *name) {
  if (!n) return false;
  if (n->kind == AST_NAME && n->name && !strcmp(n->name, name)) return true;
  for (uint32_t i = 0; i < n->nkids; i++)
    if (mentions(n->kids[i], name)) return true;
  return false;
}

/* facts() under a binding of NAME: sub-expressions reading it are passed over. */
static void bound_facts(mt_game *g, const action_rec *a, const node *n, const char *name, const int64_t *args, int nargs,
                        strbuf *text, strbuf *json, int *count, int depth) {
  if (!n || depth > 6) return;
  if (!mentions(n, name)) {
    facts(g, a, n, args, nargs, text, json, count, depth);
    return;
  }
  for (uint32_t i = 0; i < n->nkids; i++) bound_facts(g, a, n->kids[i], name, args, nargs, text, json, count, depth + 1);
}

/* For a Yes: the exceptions that made action A with ARGS (parameters, then cost) legal, each
 * once into TEXT (and its id into RULES): a check whose rule lifts a guard that would have refused
 * (Nitro through the gale), and a value a guard reads decided by a rule other than the one that
 * declared it (a Karama lifting the bid limit). */
static void value_exceptions(mt_game *g, const action_rec *a, const node *n, const int64_t *args, int nargs, strbuf *text,
                             strbuf *rules, int depth) {
  if (!n || depth > 8) return;
  const program *p = &g->r->prog;
  if (n->kind == AST_CALL && n->op == CALL_VALUE && p->values[n->sym].ndefs > 1 && n->nkids <= MAX_PARAMS) {
    const value_rec *vr = &p->values[n->sym];
    int64_t vargs[MAX_PARAMS];
    bool ok = true;
    for (uint32_t i = 0; i < n->nkids && ok; i++) ok = eval_in_action(g, a, n->kids[i], args, nargs, &vargs[i]);
    int rule = ok ? deciding_rule(g, vr, vargs) : -1;
    char id[64];
    snprintf(id, sizeof id, "\"%s\"", rule >= 0 ? p->rules[rule].id : "");
    int64_t v;
    if (rule >= 0 && rule != vr->base_rule && !(rules->s && strstr(rules->s, id)) && eval_in_action(g, a, n, args, nargs, &v)) {
      strbuf val = {0};
      vm_format_value(&g->v, n->ty, v, &val);
      sb_printf(text, "\n  by rule %s (%s): %s is %s", p->rules[rule].id, p->rules[rule].title ? p->rules[rule].title : "",
                vr->name, val.s);
      sb_printf(rules, "%s%s", rules->n ? "," : "", id);
      sb_free(&val);
    }
  }
  /* inside an aggregate or a comprehension only the iterable has values of its own here */
  uint32_t nk = n->kind == AST_AGGREGATE || n->kind == AST_COMPREHENSION ? (n->nkids ? 1 : 0) : n->nkids;
  for (uint32_t i = 0; i < nk; i++) value_exceptions(g, a, n->kids[i], args, nargs, text, rules, depth + 1);
}

static void exceptions(mt_game *g, const mt_choice *c, const int64_t *args, strbuf *text, strbuf *rules) {
  const program *p = &g->r->prog;
  const action_rec *a = &p->actions[c->action];
  int nargs = a->nparams + 1;
  for (int k = 0; k < p->nchecks; k++) {
    const check_rec *ck = &p->checks[k];
    if (ck->action != c->action || !vm_rule_active(&g->v, ck->rule)) continue;
    int64_t where = 1;
    if (ck->where_fn >= 0 && !vm_eval(&g->v, ck->where_fn, args, nargs, &where, NULL)) continue;
    if (!where) continue;
    for (int gi = 0; gi < a->nguards; gi++) {
      const guard_rec *gr = &a->guards[gi];
      int64_t holds;
      if (!sema_supersedes(p, ck->rule, gr->rule) || !eval_in_action(g, a, gr->cond, args, nargs, &holds)) continue;
      if (gr->forbid ? !holds : holds) continue; /* it would not have refused anyway */
      sb_printf(text, "\n  allowed by %s (%s), which lifts %s (%s) in its cases", p->rules[ck->rule].id,
                p->rules[ck->rule].title ? p->rules[ck->rule].title : "", p->rules[gr->rule].id,
                p->rules[gr->rule].title ? p->rules[gr->rule].title : "");
      sb_printf(rules, "%s\"%s\"", rules->n ? "," : "", p->rules[ck->rule].id);
      break;
    }
  }
  for (int gi = 0; gi < a->nguards; gi++) value_exceptions(g, a, a->guards[gi].cond, args, nargs, text, rules, 0);
}

/* The other actions a kind word stood for (`ship`: the normal shipment, the Fremen's send, a
 * Karama's), each with its verdict, after the one judged (CHOSEN). */
static void kind_alternatives(mt_game *g, const char *text, int chosen, strbuf *out) {
  mt_choice all[16];
  bool ok[16];
  int n = game_parse_candidates(g, text, all, ok, 16);
  if (n < 2) return;
  const program *p = &g->r->prog;
  /* another faction's ability is said only when legal for this one (an ally's power) */
  for (int k = 0; k < n; k++) {
    int owner = ok[k] ? p->rules[p->actions[all[k].action].rule].faction : -1;
    if (owner >= 0 && owner != all[k].args[0] && !all[k].open) {
      int64_t cost;
      char e[128];
      ok[k] = game_judge_action(g, &all[k], &cost, e, sizeof e) == 1;
    } else if (owner >= 0 && owner != all[k].args[0]) {
      static mt_choice comp[4096];
      size_t m = game_completions(g, &all[k], comp, 4096);
      bool any = false;
      for (size_t q = 0; q < m && !any; q++) {
        int64_t cost;
        char e[128];
        any = game_judge_action(g, &comp[q], &cost, e, sizeof e) == 1;
      }
      ok[k] = any;
    }
  }
  int fit = 0;
  for (int k = 0; k < n; k++) fit += ok[k] && all[k].action != chosen;
  if (!fit) return; /* the words fit no other: nothing else was in question */
  sb_puts(out, "\n(every action of that kind was judged; the others the words fit:");
  for (int k = 0; k < n; k++) {
    if (all[k].action == chosen || !ok[k]) continue;
    sb_printf(out, "\n  %s: ", p->actions[all[k].action].name);
    int64_t cost;
    char err[256];
    const action_rec *a = &p->actions[all[k].action];
    if (all[k].open) { /* some completion legal? */
      static mt_choice comp[4096];
      size_t m = game_completions(g, &all[k], comp, 4096), nl = 0;
      strbuf why = {0}; /* the rules refusing the first completion refused */
      for (size_t q = 0; q < m; q++) {
        int j = game_judge_action(g, &comp[q], &cost, err, sizeof err);
        nl += j == 1;
        for (int r = 0; j == 0 && !why.n && r < g->v.nrefused && r < 4; r++) {
          int gi = g->v.refused[r];
          int rule = gi < 0 ? a->rule : a->guards[gi].rule;
          sb_printf(&why, "%s %s (%s)", r ? "," : "", p->rules[rule].id, p->rules[rule].title ? p->rules[rule].title : "");
        }
      }
      if (!m) sb_puts(out, "nothing to complete it with here");
      else if (nl) sb_printf(out, "%zu of its %zu completions legal", nl, m);
      else sb_printf(out, "none of its %zu completions legal%s%s", m, why.n ? "; the first refused by" : "", why.n ? why.s : "");
      sb_free(&why);
      continue;
    }
    int j = game_judge_action(g, &all[k], &cost, err, sizeof err);
    if (j == 1) sb_puts(out, "legal too");
    else if (j <= -2) {
      strbuf v = {0};
      vm_format_value(&g->v, a->ptype[-2 - j], all[k].args[-2 - j], &v);
      sb_printf(out, "%s = %s is outside the choices it offers", a->pname[-2 - j], v.s);
      sb_free(&v);
    }
    else if (j < 0) sb_puts(out, err);
    else {
      sb_puts(out, "refused by");
      for (int q = 0; q < g->v.nrefused && q < 4; q++) {
        int gi = g->v.refused[q];
        int r = gi < 0 ? a->rule : a->guards[gi].rule;
        sb_printf(out, "%s %s (%s)", q ? "," : "", p->rules[r].id, p->rules[r].title ? p->rules[r].title : "");
      }
    }
  }
  sb_puts(out, ")");
}

/* `why` with parameters left out: is some completion legal?  The legal one with the lowest cost
 * is shown; if none is, the rules that refuse them, each with how many it refuses and one of
 * them. */
static int explain_open(mt_game *g, const mt_choice *c, const char *text_in, bool json, strbuf *out) {
  const program *p = &g->r->prog;
  const action_rec *a = &p->actions[c->action];
  static mt_choice all[4096];
  size_t n = game_completions(g, c, all, 4096);
  strbuf open = {0}; /* the parameters left out */
  for (int i = 0; i < a->nparams; i++)
    if (c->open >> i & 1u) sb_printf(&open, "%s%s", open.n ? ", " : "", a->pname[i]);
  int best = -1, nlegal = 0;
  int64_t best_cost = 0;
  int rules[64], counts[64], example[64], nr = 0, nunjudged = 0;
  char unjudged[256] = "";
  for (size_t k = 0; k < n; k++) {
    int64_t cost = 0;
    char err[256];
    int j = game_judge_action(g, &all[k], &cost, err, sizeof err);
    if (j == 1) {
      nlegal++;
      if (best < 0 || cost < best_cost) best = (int)k, best_cost = cost;
      continue;
    }
    if (j < 0) { /* not judged by the guards (a value outside its domain): the reason kept, with the action's rule */
      g->v.nrefused = 0; /* what refusals there are belong to an earlier judgement */
      if (!nunjudged++) snprintf(unjudged, sizeof unjudged, "%s", err);
      continue;
    }
    bool seen[64] = {false}; /* each rule counts a completion once, however many of its guards refuse it */
    for (int q = 0; q < g->v.nrefused; q++) {
      int gi = g->v.refused[q];
      int r = gi < 0 ? a->rule : a->guards[gi].rule;
      int at = -1;
      for (int m = 0; m < nr && at < 0; m++)
        if (rules[m] == r) at = m;
      if (at < 0 && nr < 64) at = nr++, rules[at] = r, counts[at] = 0, example[at] = (int)k;
      if (at >= 0 && !seen[at]) seen[at] = true, counts[at]++;
    }
  }
  char text[512];
  strbuf t = {0};
  if (best >= 0) {
    mt_choice_format(g, &all[best], text, sizeof text);
    sb_printf(&t, "Yes: with %s left open, %d of the %zu completions tried are legal; %s %s", open.s, nlegal, n,
              a->cost ? "the cheapest" : "one", text);
    if (a->cost) sb_printf(&t, " (it costs %lld)", (long long)best_cost);
    else if (kin_costs(g->r, a)) sb_printf(&t, " (it costs nothing: %s has no cost, unlike others of its kind)", a->name);
  } else if (n == 0) {
    int first = 0; /* the first parameter left open: its domain reads only the arguments given */
    while (first < a->nparams && !(c->open >> first & 1u)) first++;
    mt_choice one = *c, tmp[1];
    one.open = 1u << first;
    const node *dom = first < a->nparams ? a->pdomain[first] : NULL;
    if (dom && game_completions(g, &one, tmp, 1) == 0) { /* it is empty: say which, and the facts behind it */
      size_t len;
      const char *src = diag_source_text(g->r->d, dom->span.file, &len);
      mt_span at = full_span(dom);
      strbuf ft = {0}, fj = {0};
      int nf = 0;
      int64_t args[MAX_PARAMS + 1] = {0};
      memcpy(args, c->args, sizeof(int64_t) * (size_t)a->nparams);
      facts(g, a, dom, args, a->nparams + 1, &ft, &fj, &nf, 0);
      sb_printf(&t, "No: there is nothing to complete it with: %s must be in %.*s (rule %s), and there is none here", a->pname[first],
                (int)(at.end - at.start), src + at.start, p->rules[a->rule].id);
      if (nf) sb_printf(&t, "\n      facts: %s", ft.s);
      sb_free(&ft);
      sb_free(&fj);
    } else {
      sb_printf(&t, "No: with %s left open there is nothing to complete it with: the domains of %s are empty here", open.s,
                open.s);
    }
  } else {
    sb_printf(&t, "No: with %s left open, none of the %zu completions tried is legal; refused by", open.s, n);
    for (int m = 0; m < nr; m++) {
      mt_choice_format(g, &all[example[m]], text, sizeof text);
      sb_printf(&t, "\n  %s (%s): %d of them, e.g. %s", p->rules[rules[m]].id, p->rules[rules[m]].title ? p->rules[rules[m]].title : "",
                counts[m], text);
    }
    if (nunjudged) /* never a "refused by" with no rule: the domain's refusal, under the action's rule */
      sb_printf(&t, "\n  %s (%s): %d of them, %s", p->rules[a->rule].id, p->rules[a->rule].title ? p->rules[a->rule].title : "",
                nunjudged, unjudged);
  }
  if (n == 4096) sb_puts(&t, "\n(the first 4096 completions were tried)");
  if (!c->verb) kind_alternatives(g, text_in, c->action, &t);
  if (json) {
    sb_printf(out, "\"legal\":%s,\"open\":", best >= 0 ? "true" : "false");
    sb_json_str(out, open.s ? open.s : "");
    sb_printf(out, ",\"completions\":%zu,\"legal_completions\":%d,", n, nlegal);
    if (best >= 0) {
      mt_choice_format(g, &all[best], text, sizeof text);
      sb_puts(out, "\"example\":");
      sb_json_str(out, text);
      sb_putc(out, ',');
    }
    sb_puts(out, "\"rules\":[");
    for (int m = 0; m < nr; m++) sb_printf(out, "%s\"%s\"", m ? "," : "", p->rules[rules[m]].id);
    sb_puts(out, "],\"text\":");
    sb_json_str(out, t.s);
  } else {
    sb_puts(out, t.s);
  }
  sb_free(&t);
  sb_free(&open);
  return 0;
}

int explain_why(mt_game *g, const char *choice, bool json, strbuf *out) {
  const mt_decision *d = mt_pending(g);
  mt_choice c;
  char err[256];
  const program *p = &g->r->prog;
  /* an action is judged as if it were its faction's decision now */
  if (game_parse_action(g, choice, &c, err, sizeof err) < 0) {
    if (!d || mt_choice_parse(g, choice, &c, err, sizeof err) < 0) {
      if (json) {
        sb_puts(out, "\"error\":");
        sb_json_str(out, err);
      } else {
        sb_puts(out, err);
      }
      return -1;
    }
    mt_choice legal[64]; /* asks, yes/no: legality is membership; a number: within its range, however wide */
    size_t n = d->kind == MT_DEC_NUMBER ? 0 : mt_legal(g, legal, 64);
    bool ok = d->kind == MT_DEC_NUMBER && c.value >= d->lo && c.value <= d->hi;
    for (size_t i = 0; i < n && i < 64; i++) ok |= legal[i].value == c.value;
    if (json) sb_printf(out, "\"legal\":%s,\"rules\":[\"%s\"],\"because\":[],\"text\":", ok ? "true" : "false", d->rule);
    char t[512];
    snprintf(t, sizeof t, "%s is %s answer to '%s' (rule %s)", choice, ok ? "a legal" : "not a legal", d->prompt, d->rule);
    if (json) sb_json_str(out, t);
    else sb_puts(out, t);
    return 0;
  }
  int outside = -1; /* with parameters left open, a given argument outside its domain is the answer */
  for (int i = 1; c.open && i < p->actions[c.action].nparams && outside < 0; i++) {
    bool known = true, in = true;
    for (int k = 0; k <= i; k++) known &= !(c.open >> k & 1u);
    if (known && !p->actions[c.action].plisted[i] && game_in_domain(g, c.action, i, c.args, c.args[i], &in) && !in) outside = i;
  }
  if (c.open && outside < 0) return explain_open(g, &c, choice, json, out);
  const action_rec *a = &p->actions[c.action];
  /* from here on the choice is named in full, as resolved: the action a verb stands for, every
   * argument in order, those left out filled in (`ship fremen 8 the_great_flat` is
   * `fremen_send fremen the_great_flat 14 8`) */
  char resolved[512];
  mt_choice_format(g, &c, resolved, sizeof resolved);
  strbuf by_verb = {0}; /* a verb of the rules: what it stands for, said after the answer */
  if (c.verb > 0 && c.verb <= p->nverbs) {
    const verb_rec *vb = &p->verbs[c.verb - 1];
    const node *call = vb->ast->kids[1];
    size_t len;
    const char *src = diag_source_text(g->r->d, call->span.file, &len);
    mt_span sp = full_span(call);
    if (sp.end < len && src[sp.end] == ')') sp.end++; /* the call's own closing parenthesis */
    sb_printf(&by_verb, "\n(`%s` by the verb %s of rule %s: %.*s)", choice, vb->name, p->rules[vb->rule].id,
              (int)(sp.end - sp.start), src + sp.start);
  }
  const char *original = choice;
  choice = resolved;
  int64_t cost = 0;
  int judged = outside >= 0 ? -2 - outside : game_judge_action(g, &c, &cost, err, sizeof err);
  if (judged <= -2) { /* a parameter outside the domain its rule gives */
    int i = -2 - judged;
    const node *dom = a->pdomain[i];
    strbuf t = {0}, v = {0};
    vm_format_value(&g->v, a->ptype[i], c.args[i], &v);
    sb_printf(&t, "No: %s cannot take %s = %s under %s (%s)", a->name, a->pname[i], v.s, p->rules[a->rule].id,
              p->rules[a->rule].title);
    if (dom) {
      size_t len;
      const char *src = diag_source_text(g->r->d, dom->span.file, &len);
      mt_span at = dom->span; /* a range's own span is its `..`: the source text runs from its low bound to its high one */
      if (dom->kind == AST_RANGE) at = ast_join(ast_join(at, full_span(dom->kids[0])), full_span(dom->kids[1]));
      sb_printf(&t, ", which allows only %s in %.*s", a->pname[i], (int)(at.end - at.start), src + at.start);
    }
    /* the facts behind the domain, evaluated with the choice's arguments */
    strbuf ftext = {0}, fjson = {0};
    int nf = 0;
    if (dom) {
      int64_t args[MAX_PARAMS + 1] = {0};
      memcpy(args, c.args, sizeof(int64_t) * (size_t)a->nparams);
      facts(g, a, dom, args, a->nparams + 1, &ftext, &fjson, &nf, 0);
      if (nf) sb_printf(&t, "\n      facts: %s", ftext.s);
    }
    if (by_verb.n) sb_puts(&t, by_verb.s);
    else kind_alternatives(g, original, c.action, &t);
    if (json) {
      sb_printf(out, "\"legal\":false,\"rules\":[\"%s\"],\"because\":[{\"rule\":", p->rules[a->rule].id);
      sb_json_str(out, p->rules[a->rule].id);
      sb_puts(out, ",\"title\":");
      sb_json_str(out, p->rules[a->rule].title ? p->rules[a->rule].title : "");
      sb_printf(out, ",\"facts\":[%s]}],\"text\":", fjson.s ? fjson.s : "");
      sb_json_str(out, t.s);
    } else {
      sb_puts(out, t.s);
    }
    sb_free(&t);
    sb_free(&v);
    sb_free(&ftext);
    sb_free(&fjson);
    sb_free(&by_verb);
    return 0;
  }
  if (judged < 0) {
    if (json) {
      sb_puts(out, "\"legal\":false,\"rules\":[],\"because\":[],\"text\":");
      sb_json_str(out, err);
    } else {
      sb_printf(out, "No: %s", err);
    }
    sb_free(&by_verb);
    return 0;
  }
  bool legal = judged == 1;
  bool cost_known = judged >= 0 && !g->evalerr.n; /* the cost is evaluated before the guards */
  int nref = g->v.nrefused;
  int refused[64];
  memcpy(refused, g->v.refused, sizeof(int) * (size_t)nref);
  int64_t args[MAX_PARAMS + 1];
  memcpy(args, c.args, sizeof(int64_t) * (size_t)a->nparams);
  args[a->nparams] = cost;
  strbuf text = {0}, because = {0}, rules = {0};
  if (legal) {
    sb_printf(&text, "Yes: %s is legal (rule %s, %s)", choice, p->rules[a->rule].id, p->rules[a->rule].title);
    if (a->cost) {
      sb_printf(&text, "; it costs ");
      cost_text(g, a, args, cost, &text, &rules);
    } else if (kin_costs(g->r, a))
      sb_printf(&text, "; it costs nothing (%s has no cost, unlike others of its kind)", a->name);
    sb_printf(&rules, "%s\"%s\"", rules.n ? "," : "", p->rules[a->rule].id);
    exceptions(g, &c, args, &text, &rules);
  } else {
    sb_printf(&text, "No: %s is refused", choice);
    if (!nref && g->evalerr.n) sb_printf(&text, ": its cost or guards could not be evaluated: %s", g->evalerr.s);
    bool cost_read = false; /* a refusing guard judged the price: say what it was, and the rule that set it */
    for (int i = 0; i < nref && !cost_read; i++) cost_read = refused[i] >= 0 && mentions(a->guards[refused[i]].cond, "cost");
    if (a->cost && cost_known && cost_read) {
      strbuf by = {0}; /* the rules that refuse stay the guards' */
      sb_printf(&text, "\n  cost: ");
      cost_text(g, a, args, cost, &text, &by);
      sb_free(&by);
    }
    for (int i = 0; i < nref; i++) {
      int gi = refused[i];
      int rule = gi < 0 ? a->rule : a->guards[gi].rule;
      sb_printf(&text, "\n  %s (%s)", p->rules[rule].id, p->rules[rule].title);
      sb_printf(&rules, "%s\"%s\"", rules.n ? "," : "", p->rules[rule].id);
      if (because.n) sb_putc(&because, ',');
      sb_puts(&because, "{\"rule\":");
      sb_json_str(&because, p->rules[rule].id);
      sb_puts(&because, ",\"title\":");
      sb_json_str(&because, p->rules[rule].title ? p->rules[rule].title : "");
      sb_puts(&because, ",\"facts\":[");
      if (gi >= 0) {
        const guard_rec *gr = &a->guards[gi];
        size_t len;
        const char *src = diag_source_text(g->r->d, gr->span.file, &len);
        sb_printf(&text, ": %s %.*s", gr->forbid ? "forbids" : "requires", (int)(gr->span.end - gr->span.start), src + gr->span.start);
        strbuf ftext = {0};
        int nf = 0;
        facts(g, a, gr->cond, args, a->nparams + 1, &ftext, &because, &nf, 0);
        if (nf) sb_printf(&text, "\n      facts: %s", ftext.s);
        sb_free(&ftext);
      } else {
        sb_puts(&text, ": the rule is not in force now (cancelled, or its faction is not playing)");
      }
      sb_puts(&because, "]}");
    }
    /* other actions whose rules replace a refusing rule (2.04.17's send into the storm for 1.06.03.04) */
    for (int i = 0; i < nref; i++) {
      int gi = refused[i];
      int rule = gi < 0 ? a->rule : a->guards[gi].rule;
      bool again = false;
      for (int q = 0; q < i; q++) again |= (refused[q] < 0 ? a->rule : a->guards[refused[q]].rule) == rule;
      for (int k = 0; k < p->nactions && !again; k++)
        if (k != c.action && p->actions[k].rule != rule && sema_supersedes(p, p->actions[k].rule, rule) &&
            vm_rule_active(&g->v, p->actions[k].rule))
          sb_printf(&text, "\n  (rule %s, %s, replaces %s with its own action: why %s ...)", p->rules[p->actions[k].rule].id,
                    p->rules[p->actions[k].rule].title, p->rules[rule].id, p->actions[k].name);
    }
    /* rules that would allow it in other circumstances: those that lift these guards */
    for (int i = 0; i < nref; i++) {
      int gi = refused[i];
      if (gi < 0) continue;
      int rule = a->guards[gi].rule;
      bool again = false; /* said already for an earlier guard of the same rule */
      for (int q = 0; q < i; q++) again |= refused[q] >= 0 && a->guards[refused[q]].rule == rule;
      for (int k = 0; k < p->nchecks && !again; k++)
        if (p->checks[k].action == c.action && sema_supersedes(p, p->checks[k].rule, rule))
          sb_printf(&text, "\n  (rule %s, %s, lifts %s in its cases)", p->rules[p->checks[k].rule].id,
                    p->rules[p->checks[k].rule].title, p->rules[rule].id);
    }
  }
  if (by_verb.n) sb_puts(&text, by_verb.s);
  else kind_alternatives(g, original, c.action, &text);
  sb_free(&by_verb);
  if (json) {
    sb_printf(out, "\"legal\":%s,\"rules\":[%s],", legal ? "true" : "false", rules.s ? rules.s : "");
    if (legal && a->cost) sb_printf(out, "\"cost\":%lld,", (long long)cost);
    sb_printf(out, "\"because\":[%s],\"text\":", because.s ? because.s : "");
    sb_json_str(out, text.s);
  } else {
    sb_puts(out, text.s);
  }
  sb_free(&text);
  sb_free(&because);
  sb_free(&rules);
  return 0;
}
