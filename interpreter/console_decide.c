/* console_decide.c -- `why` of a decision that is no action: a question about a `may` or an `ask`
 * of the rules (`can harkonnen call traitor on duncan idaho now?`, `can the bene gesserit use the
 * voice?`, `could atreides play karama to take the card without paying?`).  The question's words
 * are matched against every decision the rules in force can ask (its prompt and the title of the
 * rule asking it), and the decision is judged as an action is: asked now, asked later in this
 * phase (a copy of the game brought forward, the passive policy answering), or not before the
 * phase ends -- then the answer says when it would be asked: the rule, its phase, the event or
 * procedure that brings it about and the conditions around it, with their numbers. */
#define _POSIX_C_SOURCE 200809L
#include "console.h"
#include "ruleset_report.h"

#include <ctype.h>
#include <strings.h>

/* A place in the rules where a decision is asked. */
typedef struct dsite {
  int rule;
  const node *n;                 /* AST_MAY or AST_ASK */
  const char *event, *proc;      /* the `on EVENT` or `procedure NAME` it sits in, if any */
  const node *cond[6];           /* the conditions of the `if`s around it, outermost first */
  bool negated[6];               /* in the `else` of that `if` */
  int ncond;
  int score;
} dsite;

#define MAX_SITES 256

typedef struct dwalk {
  dsite *s;
  int n;
  dsite cur;
} dwalk;

static void walk_sites(const node *n, dwalk *W, int depth) {
  if (!n || depth > 200 || (depth > 0 && n->kind == AST_RULE)) return;
  dsite saved = W->cur;
  if (n->kind == AST_TRIGGER) W->cur.event = n->name;
  if (n->kind == AST_PROC) W->cur.proc = n->name;
  if ((n->kind == AST_MAY || n->kind == AST_ASK) && W->n < MAX_SITES && n->nkids >= 2 && n->kids[1] && n->kids[1]->kind == AST_STR) {
    W->s[W->n] = W->cur;
    W->s[W->n++].n = n;
  }
  if (n->kind == AST_IF) {
    for (uint32_t i = 1; i < n->nkids; i++) {
      dsite inner = W->cur;
      if (W->cur.ncond < 6) {
        W->cur.cond[W->cur.ncond] = n->kids[0];
        W->cur.negated[W->cur.ncond++] = i > 1;
      }
      walk_sites(n->kids[i], W, depth + 1);
      W->cur = inner;
    }
  } else {
    for (uint32_t i = 0; i < n->nkids; i++) walk_sites(n->kids[i], W, depth + 1);
  }
  W->cur = saved;
}

/* Every decision the rules in force can ask, into S; how many. */
static int decision_sites(const program *p, dsite *s) {
  dwalk W = {s, 0, {0}};
  for (int q = 0; q < p->nrules; q++) {
    const rule_rec *rr = &p->rules[q];
    if (!rr->items) continue;
    memset(&W.cur, 0, sizeof W.cur);
    W.cur.rule = q;
    for (uint32_t i = 0; i < rr->items->nkids; i++) walk_sites(rr->items->kids[i], &W, 1);
  }
  return W.n;
}

/* A word as a key for matching: lower case, letters only, a plural's `s` taken off. */
static void match_key(const char *w, char *out, size_t cap) {
  size_t k = 0;
  for (; *w && k + 1 < cap; w++)
    if (isalpha((unsigned char)*w)) out[k++] = (char)tolower((unsigned char)*w);
  if (k > 3 && out[k - 1] == 's' && out[k - 2] != 's') k--;
  out[k] = 0;
}

/* English words too common to tell one decision from another. */
static bool common_word(const char *k) {
  static const char *const common[] = {"the", "a", "an", "your", "you", "yours", "yourself", "on", "to", "of", "in", "into", "for", "and", "or",
                                       "it", "its", "this", "that", "these", "those", "at", "by", "with", "from", "now", "else", "any",
                                       "how", "many", "much", "which", "what", "do", "doe", "is", "are", "be", "their", "they", "them",
                                       "use", "using", "used", "make", "get", "turn", "one", "all", "there", "here", "time",
                                       "again", "still", "yet", "then", "when", "if", "him", "her", "his", "she", "he", "not", "no",
                                       "free", "force", "more", "over", "up", "out", "another", "anyway"};
  if (strlen(k) < 3) return true;
  for (size_t i = 0; i < sizeof common / sizeof *common; i++)
    if (!strcmp(k, common[i])) return true;
  return false;
}

/* One word the other, or the other with an English ending (`pay`, `paying`; `revive`, `revival`). */
static bool words_match(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b), l = la < lb ? la : lb, m = la < lb ? lb : la;
  if (!strcmp(a, b)) return true;
  if (l >= 5 && !strncmp(a, b, l)) return true;
  if (l >= 3 && m - l <= 3 && !strncmp(a, b, l)) return true;
  return l >= 6 && m - l <= 3 && !strncmp(a, b, l - 1) && (a[l - 1] == 'e' || b[l - 1] == 'e');
}

/* Whether TEXT holds the id NAME, in any case, its `_` read as spaces (`Karama`, `Duncan Idaho`). */
static bool holds_name(const char *text, const char *name) {
  size_t n = strlen(name);
  for (const char *t = text; *t; t++) {
    size_t i = 0;
    while (i < n && t[i] && (tolower((unsigned char)t[i]) == name[i] || (name[i] == '_' && t[i] == ' '))) i++;
    if (i == n) return true;
  }
  return false;
}

/* How many of the question's words Q (keys) the text T holds, each counted once. */
static int text_matches(const char *t, char q[][32], int nq, bool *seen) {
  char copy[512];
  snprintf(copy, sizeof copy, "%s", t ? t : "");
  int m = 0;
  for (char *save = NULL, *w = strtok_r(copy, " \t:,.?!()-{}'", &save); w; w = strtok_r(NULL, " \t:,.?!()-{}'", &save)) {
    char k[32];
    match_key(w, k, sizeof k);
    if (common_word(k)) continue;
    for (int i = 0; i < nq; i++)
      if (!seen[i] && words_match(k, q[i])) seen[i] = true, m++;
  }
  return m;
}

/* The faction a site's `may F`/`ask F` names when F is a faction's id, else -1 (a variable). */
static int site_faction(const board_def *def, const dsite *s) {
  const node *f = s->n->kids[0];
  return f && f->kind == AST_NAME && f->name ? board_faction_find(def, f->name) : -1;
}

/* The source extent of an expression: its own span with its operands' (an operator's span is
 * the operator alone). */
static void full_extent(const node *n, uint32_t file, uint32_t *a, uint32_t *b, int depth) {
  if (!n || depth > 100 || n->span.file != file) return;
  if (n->span.start < *a) *a = n->span.start;
  if (n->span.end > *b) *b = n->span.end;
  if (n->kind != AST_STR)
    for (uint32_t i = 0; i < n->nkids; i++) full_extent(n->kids[i], file, a, b, depth + 1);
}

static void src_text(mt_game *g, const node *n, strbuf *out) {
  size_t len;
  const char *src = diag_source_text(g->r->d, n->span.file, &len);
  uint32_t a = n->span.start, b = n->span.end;
  full_extent(n, n->span.file, &a, &b, 0);
  if (src && b <= len && a < b) sb_printf(out, "%.*s", (int)(b - a), src + a);
}

/* The phase rule P belongs to (its enclosing phase), or -1. */
static int phase_of_rule(const program *p, int q) {
  while (q >= 0 && p->rules[q].form != RF_PHASE) q = p->rules[q].parent;
  return q;
}

/* The question's values put for the local names of a condition (`holds_traitor(f, l)` asked of
 * harkonnen about duncan_idaho: holds_traitor(harkonnen, duncan_idaho)): the site's faction name
 * is the asker, a local of another type the value the question names of that type.  Into OUT,
 * true when every local name got a value. */
typedef struct qvals {
  const char *asker, *site_f; /* the asker's id; the name the site asks (`may f`: f) */
  char (*names)[64];
  int nnames;
} qvals;

static const char *value_for(const mt_game *g, const qvals *Q, const node *n) {
  const board_def *def = g->r->def;
  if (Q->site_f && !strcmp(n->name, Q->site_f)) return Q->asker;
  for (int i = 0; i < Q->nnames; i++) {
    const char *v = Q->names[i];
    bool fits = (n->ty == TY_LEADER && board_leader_index(def, v) >= 0) || (n->ty == TY_TERRITORY && board_area_index(def, v) >= 0) ||
                (n->ty == TY_CARD && board_card_index(def, v) >= 0) || (n->ty == TY_FACTION && board_faction_find(def, v) >= 0);
    if (fits) return v;
  }
  return NULL;
}

typedef struct subst {
  uint32_t start, end;
  const char *text;
} subst;

static bool collect_locals(const mt_game *g, const qvals *Q, const node *n, subst *sv, int *ns, int depth) {
  if (!n || depth > 60) return true;
  if (n->kind == AST_NAME && n->slot >= 0 && n->name) {
    const char *v = value_for(g, Q, n);
    if (!v || *ns >= 16) return false;
    sv[*ns].start = n->span.start, sv[*ns].end = n->span.end, sv[*ns].text = v;
    (*ns)++;
    return true;
  }
  for (uint32_t i = 0; i < n->nkids; i++)
    if (!collect_locals(g, Q, n->kids[i], sv, ns, depth + 1)) return false;
  return true;
}

static bool cond_with_values(mt_game *g, const qvals *Q, const node *c, strbuf *out) {
  subst sv[16];
  int ns = 0;
  if (!collect_locals(g, Q, c, sv, &ns, 0) || !ns) return false;
  size_t len;
  const char *src = diag_source_text(g->r->d, c->span.file, &len);
  uint32_t a = c->span.start, b = c->span.end;
  full_extent(c, c->span.file, &a, &b, 0);
  if (!src || b > len) return false;
  for (uint32_t at = a; at < b;) {
    int k = -1;
    for (int i = 0; i < ns && k < 0; i++)
      if (sv[i].start == at) k = i;
    if (k >= 0) {
      sb_puts(out, sv[k].text);
      at = sv[k].end;
    } else {
      sb_printf(out, "%c", src[at++]);
    }
  }
  return true;
}

/* Where a site is asked, said into OUT: the rule, the event or procedure that brings it about and
 * the rules doing so (with their phases), the conditions around it. */
static void site_when(mt_game *g, const dsite *s, const qvals *Q, strbuf *out) {
  const program *p = &g->r->prog;
  const rule_rec *rr = &p->rules[s->rule];
  sb_printf(out, "asked by %s (%s)", rr->id, rr->title ? rr->title : "");
  int ph = phase_of_rule(p, s->rule);
  if (ph >= 0 && ph != s->rule) sb_printf(out, ", in %s (%s)", p->rules[ph].id, p->rules[ph].title ? p->rules[ph].title : "");
  const char *what = s->event ? s->event : s->proc;
  if (what) { /* the rules that signal the event or run the procedure */
    sb_printf(out, ", %s %s", s->event ? "when the event" : "in the procedure", what);
    int n = 0;
    for (int q = 0; q < p->nrules && n < 4; q++) {
      const rule_rec *r2 = &p->rules[q];
      if (r2->disabled || !r2->items || q == s->rule) continue;
      bool reach = false;
      if (s->event) reach = rules_reach(p, r2->items, s->event, -1, 0);
      if (reach) {
        int ph2 = phase_of_rule(p, q);
        sb_printf(out, "%s%s (%s)", n++ ? "; " : " is signalled by ", r2->id, r2->title ? r2->title : "");
        if (ph2 >= 0 && ph2 != q) sb_printf(out, ", in %s", p->rules[ph2].id);
      }
    }
    if (!s->event) sb_puts(out, " it declares");
  }
  for (int i = 0; i < s->ncond; i++) {
    sb_puts(out, i ? " and " : ", if ");
    if (s->negated[i]) sb_puts(out, "not (");
    src_text(g, s->cond[i], out);
    if (s->negated[i]) sb_puts(out, ")");
  }
  for (int i = 0; i < s->ncond && Q; i++) { /* the conditions with the question's values, judged now */
    strbuf e = {0}, err = {0};
    int64_t v;
    int ty;
    if (cond_with_values(g, Q, s->cond[i], &e) && game_eval(g, e.s, &v, &ty, &err) && ty == TY_BOOL)
      sb_printf(out, "; now %s is %s", e.s, v ? "true" : "false");
    sb_free(&e);
    sb_free(&err);
  }
}

/* Does the pending decision of G come from site S, asked of faction F (-1: anyone)? */
static bool asks_site(mt_game *g, const dsite *s, int f) {
  const vm_state *vs = g->v.vs;
  if (mt_status(g) != MT_WAITING || vs->dec.kind == DEC_ACT || vs->dec.kind == DEC_NONE) return false;
  if (f >= 0 && vs->dec.faction != f) return false;
  if (vs->dec.rule != s->rule || vs->dec.prompt < 0) return false;
  return !strcmp(g->r->prog.strings[vs->dec.prompt], s->n->kids[1]->str);
}

/* The named values of the question (a leader, a territory, another faction) are the prompt's:
 * NAMES, NNAMES; true when the prompt of the pending decision names every one of them. */
static bool prompt_names(const char *prompt, char names[][64], int nnames) {
  for (int i = 0; i < nnames; i++)
    if (!holds_name(prompt, names[i])) return false;
  return true;
}

/* The lines of LOG (narration of the rest of the phase) that the rules of the sites S wrote about
 * faction F: a decision the rules take for it without asking (the Atreides look at the card in
 * the Basic game, 2.01.05).  Said into OUT as a Yes without a decision; false if none. */
static bool auto_lines(const char *log, const program *p, const dsite *s, int ns, const char *f, strbuf *out) {
  strbuf said = {0};
  for (const char *line = log; line && *line;) {
    const char *end = strchr(line, '\n');
    size_t n = end ? (size_t)(end - line) : strlen(line);
    for (int i = 0; i < ns; i++) {
      char tag[80];
      int tl = snprintf(tag, sizeof tag, "[%s]", p->rules[s[i].rule].id);
      bool names = false; /* the faction named in the line (in any case) */
      size_t fl = strlen(f);
      for (size_t k = 0; k + fl <= n && !names; k++) names = !strncasecmp(line + k, f, fl);
      if (n >= (size_t)tl && !strncmp(line, tag, (size_t)tl) && names) {
        sb_printf(&said, "\n  %.*s", (int)n, line);
        break;
      }
    }
    line = end ? end + 1 : NULL;
  }
  if (!said.n) return false;
  sb_printf(out, "Yes, without a decision: the rules do it for %s in the rest of this phase (played on a copy, the passive policy "
                 "answering), without asking:%s", f, said.s);
  sb_free(&said);
  return true;
}

/* Whether K is the first word of an action's name (`give`: give_spice). */
static bool first_segment(const program *p, const char *k) {
  size_t n = strlen(k);
  for (int a = 0; a < p->nactions; a++)
    if (!strncmp(p->actions[a].name, k, n) && p->actions[a].name[n] == '_') return true;
  return false;
}

/* `why` of a decision (the clause REST): 1 answered, 0 not a question about a decision (the
 * caller's error stands), -1 failed.  ALSO: said besides an action's answer (no JSON members, and
 * a random event on the way is no failure: nothing is added). */
int repl_why_decision(repl *R, const char *rest, bool also) {
  if (!R->g || !R->r) return 0;
  mt_game *g0 = R->g;
  const board_def *def = DEF(R);
  const program *p = &R->r->prog;
  char buf[1024];
  char *w[64];
  int nw = game_read_names(g0, rest, buf, sizeof buf, w, 64);
  int fac = -1;
  char q[32][32], names[8][64];
  int nq = 0, nnames = 0;
  bool verb_seen = false;
  for (int i = 0; i < nw; i++) {
    int f = board_faction_find(def, w[i]);
    if (f >= 0 && fac < 0) {
      fac = f;
      continue;
    }
    if (f >= 0 || board_leader_index(def, w[i]) >= 0 || board_area_index(def, w[i]) >= 0 || board_card_index(def, w[i]) >= 0) {
      if (nnames < 8) snprintf(names[nnames++], 64, "%s", w[i]);
      continue;
    }
    char k[32], stem[64];
    match_key(w[i], k, sizeof k);
    /* the verb naming an action (`bid`, `give`) makes the question the action's; a word of price (`pay`) says nothing of a decision */
    bool verb = !verb_seen && !common_word(k);
    verb_seen |= verb;
    if (verb && (game_word_names_action(R->r, k, stem, sizeof stem) || first_segment(p, k))) return 0; /* an action's verb: its question */
    if (repl_cost_word(k)) continue;
    if (!common_word(k) && nq < 32) snprintf(q[nq++], 32, "%s", k);
  }
  if (!nq) return 0;
  dsite *s = mt_calloc(MAX_SITES, sizeof *s);
  int ns = decision_sites(p, s), best = 0;
  for (int i = 0; i < ns; i++) {
    int sf = site_faction(def, &s[i]);
    bool theirs = fac >= 0 && sf >= 0 && sf != fac; /* asked of another faction only (the Voice, for the Fremen) */
    bool seen[32] = {false};
    int m = 2 * text_matches(s[i].n->kids[1]->str, q, nq, seen); /* the prompt's words, then the rule's title */
    m += text_matches(p->rules[s[i].rule].title, q, nq, seen);
    for (int k = 0; k < nnames; k++) /* a name the prompt says (`Karama`) */
      if (holds_name(s[i].n->kids[1]->str, names[k])) m += 2;
    if (m && !text_matches(s[i].n->kids[1]->str, q, nq, (bool[32]){false})) m = 0; /* the prompt must say something of it */
    m = p->rules[s[i].rule].disabled ? 2 * m - 1 : 2 * m; /* in force first, at equal match */
    m = theirs ? 2 * m - 1 : 2 * m;                          /* the asker's own first, at equal match */
    s[i].score = m;
    if (m > best) best = m;
  }
  int nbest = 0;
  for (int i = 0; i < ns; i++)
    if (s[i].score == best && best >= 3) s[nbest++] = s[i];
  if (!nbest) {
    mt_free(s);
    return 0;
  }
  const char *fid = fac >= 0 ? def->factions[fac].id : "anyone";
  bool in_force = !p->rules[s[0].rule].disabled; /* a group is all in force or none (the scores say) */
  int owner = site_faction(def, &s[0]);
  bool theirs = fac >= 0 && owner >= 0 && owner != fac; /* likewise all another faction's */
  strbuf out = {0};
  int found = -1;
  bool named_ok = true;
  for (int i = 0; i < nbest && found < 0; i++)
    if (asks_site(g0, &s[i], fac)) found = i;
  const mt_decision *d;
  if (theirs) {
    sb_printf(&out, "No: %s asked of %s only, never of %s", nbest == 1 ? "this decision is" : "these decisions are", def->factions[owner].id, fid);
  } else if (!in_force) {
    sb_printf(&out, "No: the rules that ask %s are not in force in this game (%s)", nbest == 1 ? "it" : "them",
              R->advanced ? "a variant's or an expansion's" : "the Advanced game's, or a variant's");
  } else if (found >= 0 && (d = mt_pending(g0)) != NULL) {
    named_ok = prompt_names(d->prompt, names, nnames);
    if (named_ok) sb_printf(&out, "Yes: %s is asked now: '%s' (rule %s, %s)", d->faction, d->prompt, d->rule, p->rules[s[found].rule].title);
    else sb_printf(&out, "No: %s is asked now '%s' (rule %s), which is not about what the question names", d->faction, d->prompt, d->rule);
  } else { /* forward on a copy, within this phase, the passive policy answering */
    int phase = -1;
    mt_game *g = repl_forward_copy(R, &phase);
    strbuf log = R->log, fired = R->fired; /* what the rules narrate on the way: an automatic answer */
    R->log = (strbuf){0};
    R->fired = (strbuf){0};
    repl_attach(R, g);
    g->v.fired = NULL;
    uint64_t rng = R->bot_rng;
    strbuf taken = {0};
    int n = 0;
    for (int guard = 0; guard < 20000 && found < 0; guard++) {
      int st = mt_status(g);
      if (st == MT_PAUSED && guard == 0) {
        vm_run(&g->v);
        continue;
      }
      if (st != MT_WAITING) break;
      for (int i = 0; i < nbest && found < 0; i++)
        if (asks_site(g, &s[i], fac) && (d = mt_pending(g)) != NULL && prompt_names(d->prompt, names, nnames)) found = i;
      if (found >= 0) break;
      mt_choice x;
      if (!bot_choose(g, BOT_PASSIVE, &rng, &x)) break;
      char text[256];
      mt_choice_format(g, &x, text, sizeof text);
      d = mt_pending(g);
      if (n < 4) sb_printf(&taken, "%s%s: %s", n ? "; " : "", d ? d->faction : "?", text);
      else if (n == 4) sb_puts(&taken, "; ...");
      n++;
      if (mt_apply(g, &x, NULL) < 0) break;
    }
    if (found < 0 && repl_chance_pending(g)) { /* a random event on the way, without an outcome */
      sb_free(&R->log);
      sb_free(&R->fired);
      R->log = log;
      R->fired = fired;
      sb_free(&taken);
      sb_free(&out);
      mt_free(s);
      if (!also) repl_chance_blocked(R, g); /* (besides an action's answer: nothing to add, and no failure) */
      mt_game_free(g);
      repl_attach(R, R->g);
      return also ? 0 : -1;
    }
    if (found >= 0 && (d = mt_pending(g)) != NULL) {
      sb_printf(&out, "Yes, later in this phase: %s will be asked '%s' (rule %s, %s), after %d decision%s the passive policy took", d->faction, d->prompt,
                d->rule, p->rules[s[found].rule].title, n, n == 1 ? "" : "s");
      if (n) sb_printf(&out, ": %s", taken.s);
    } else if (auto_lines(R->log.s, p, s, nbest, fid, &out)) {
    } else {
      sb_printf(&out, "No: %s is not asked %s now nor before %s", fid, nbest == 1 ? "this" : "any of these",
                mt_status(g) == MT_FINISHED ? "the game ends" : phase >= 0 ? "this phase ends" : "the next phase to begin ends");
      if (phase >= 0) sb_printf(&out, " (%s %s)", p->rules[phase].id, p->rules[phase].title ? p->rules[phase].title : "");
      sb_puts(&out, ", the passive policy answering the decisions before (other answers may bring it about: when the rules ask it is "
                    "said below)");
    }
    sb_free(&taken);
    mt_game_free(g);
    sb_free(&R->log);
    sb_free(&R->fired);
    R->log = log;
    R->fired = fired;
    repl_attach(R, R->g);
  }
  /* the decisions the question was read as, and when the rules ask each */
  sb_printf(&out, "\nthe decision%s the question names:", nbest == 1 ? "" : "s");
  for (int i = 0; i < nbest; i++) {
    int sf = site_faction(def, &s[i]);
    sb_printf(&out, "\n  '%s'%s (%s %s), ", s[i].n->kids[1]->str, p->rules[s[i].rule].disabled ? " [not in force]" : "", s[i].n->kind == AST_MAY ? "a yes/no of" : "a choice of",
              sf >= 0 ? def->factions[sf].id : "the faction the rule names");
    const node *sfn = s[i].n->kids[0];
    qvals Q = {fac >= 0 ? def->factions[fac].id : NULL, sfn && sfn->kind == AST_NAME ? sfn->name : NULL, names, nnames};
    site_when(R->g, &s[i], fac >= 0 ? &Q : NULL, &out);
  }
  if (nnames) {
    sb_puts(&out, "\n(the question names");
    for (int i = 0; i < nnames; i++) sb_printf(&out, " %s", names[i]);
    sb_puts(&out, ": a Yes needs the decision asked about it)");
  }
  say(R, "%s", out.s);
  if (R->json && !also) {
    sb_puts(&R->jextra, ",\"decision\":true,\"asked\":");
    sb_puts(&R->jextra, found >= 0 && named_ok ? "true" : "false");
    sb_puts(&R->jextra, ",\"rules\":[");
    for (int i = 0; i < nbest; i++) sb_printf(&R->jextra, "%s\"%s\"", i ? "," : "", p->rules[s[i].rule].id);
    sb_puts(&R->jextra, "]");
  }
  sb_free(&out);
  mt_free(s);
  return 1;
}
