/* console_quantity.c -- a count compared with a quantity of the position, in players' words:
 * `can the harkonnen bid more than they have?`, `can the atreides ship more forces than they
 * have in reserve?`, `can fremen bid 20 with 3 spice?`.  The comparison becomes a witness value
 * the rules judge (one more than the quantity, one less, all of it), the quantity being one the
 * question names (a pool of tokens such as `reserves`, a faction's variable such as `spice`) or,
 * when it names none (`more than they have`), the one the action's own rules compare that count
 * with (bid's limit is max_bid(f), whose base definition is spice(f)).  `with N spice` judges the
 * question on a copy of the game where the faction holds N.  The answer says which value was
 * judged and why. */
#define _POSIX_C_SOURCE 200809L
#include "console.h"

#include <ctype.h>
#include <strings.h>

/* A faction-scoped quantity of the position: a pool of tokens (`reserves`) or an int variable
 * (`spice`), by the word W (singular or plural); into OUT as an expression of faction F. */
static bool quantity_word(mt_game *g, const char *w, const char *f, char *out, size_t cap) {
  const board_def *def = g->r->def;
  char k[64];
  snprintf(k, sizeof k, "%s", w);
  for (int pass = 0; pass < 3; pass++) {
    if (pass == 1) { /* reserve: reserves */
      size_t n = strlen(w);
      if (n + 2 > sizeof k) return false;
      snprintf(k, sizeof k, "%ss", w);
    } else if (pass == 2) { /* spices: spice */
      size_t n = strlen(w);
      if (n < 2 || w[n - 1] != 's') return false;
      snprintf(k, sizeof k, "%.*s", (int)(n - 1), w);
    }
    int pl = board_pool_index(def, k);
    if (pl >= 0 && def->pools[pl].scope == BS_FACTION) return snprintf(out, cap, "pooled(%s, %s)", f, k), true;
    const board_layout *L = g->L;
    for (int v = 0; v < L->nvars; v++)
      if (!strcmp(L->vars[v].name, k) && L->vars[v].scope == BS_FACTION && L->vars[v].type == BT_INT && L->vars[v].len <= 1)
        return snprintf(out, cap, "%s(%s)", k, f), true;
  }
  return false;
}

/* The quantity the rules compare parameter NAME with, found in expression N (a guard or the
 * domain of the count), values read through their base definitions: the first pool or faction
 * variable met, as an expression of faction F, into OUT. */
static bool quantity_in(mt_game *g, const node *n, const char *f, char *out, size_t cap, int depth) {
  if (!n || depth > 6) return false;
  const program *p = &g->r->prog;
  if (n->kind == AST_CALL && n->name) {
    if (quantity_word(g, n->name, f, out, cap)) return true; /* spice(f) */
    for (uint32_t i = 0; i < n->nkids; i++) /* pooled(f, reserves) */
      if (n->kids[i] && n->kids[i]->kind == AST_NAME && n->kids[i]->name && board_pool_index(g->r->def, n->kids[i]->name) >= 0 &&
          quantity_word(g, n->kids[i]->name, f, out, cap))
        return true;
    for (int v = 0; v < p->nvalues; v++) { /* a value: its declaring definition (max_bid(f) = spice(f)) */
      const value_rec *vr = &p->values[v];
      if (strcmp(vr->name, n->name)) continue;
      for (int d = 0; d < vr->ndefs; d++) {
        const value_def *vd = &vr->defs[d];
        if (vd->rule != vr->base_rule || !vd->ast) continue;
        if (vd->ast->nkids > 3 && quantity_in(g, vd->ast->kids[3], f, out, cap, depth + 1)) return true; /* its body */
      }
    }
  }
  for (uint32_t i = 0; i < n->nkids; i++)
    if (quantity_in(g, n->kids[i], f, out, cap, depth + 1)) return true;
  return false;
}

/* Does N read the name V? */
static bool reads(const node *n, const char *v, int depth) {
  if (!n || depth > 60) return false;
  if (n->kind == AST_NAME && n->name && !strcmp(n->name, v)) return true;
  for (uint32_t i = 0; i < n->nkids; i++)
    if (reads(n->kids[i], v, depth + 1)) return true;
  return false;
}

/* The quantity action A's rules compare its first int parameter with, for faction F. */
static bool action_quantity(mt_game *g, int a, const char *f, char *out, size_t cap) {
  const action_rec *ar = &g->r->prog.actions[a];
  int k = -1;
  for (int i = 1; i < ar->nparams && k < 0; i++)
    if (ar->ptype[i] == TY_INT) k = i;
  if (k < 0) return false;
  for (int i = 0; ar->guards && i < ar->nguards; i++) /* a guard on the count, then the count's domain */
    if (reads(ar->guards[i].cond, ar->pname[k], 0) && quantity_in(g, ar->guards[i].cond, f, out, cap, 0)) return true;
  return ar->pdomain[k] && !ar->plisted[k] && quantity_in(g, ar->pdomain[k], f, out, cap, 0);
}

/* The upper bound of the count's domain (`1..tokens(f, origin)`) with the arguments of C put
 * for the parameters it reads, into OUT: false if it reads one left open. */
static bool domain_bound(mt_game *g, const mt_choice *c, char *out, size_t cap) {
  const action_rec *ar = &g->r->prog.actions[c->action];
  int k = -1;
  for (int i = 1; i < ar->nparams && k < 0; i++)
    if (ar->ptype[i] == TY_INT) k = i;
  if (k < 0 || !ar->pdomain[k] || ar->pdomain[k]->kind != AST_RANGE || ar->plisted[k]) return false;
  const node *hi = ar->pdomain[k]->kids[1];
  size_t len;
  const char *src = diag_source_text(g->r->d, hi->span.file, &len);
  uint32_t a = hi->span.start, b = hi->span.end;
  const node *stack[64];
  int ns = 0;
  stack[ns++] = hi;
  while (ns) { /* its full extent */
    const node *n = stack[--ns];
    if (n->span.file == hi->span.file && n->span.start < a) a = n->span.start;
    if (n->span.file == hi->span.file && n->span.end > b) b = n->span.end;
    for (uint32_t i = 0; i < n->nkids && ns < 64; i++)
      if (n->kids[i] && n->kind != AST_STR) stack[ns++] = n->kids[i];
  }
  if (!src || b > len) return false;
  strbuf t = {0};
  for (uint32_t at = a; at < b;) { /* a parameter's name (a whole word) is its value */
    bool done = false;
    for (int j = 0; j < ar->nparams && !done; j++) {
      size_t pl = strlen(ar->pname[j]);
      bool word = at + pl <= b && !strncmp(src + at, ar->pname[j], pl) && (at == a || !(isalnum((unsigned char)src[at - 1]) || src[at - 1] == '_')) &&
                  !(isalnum((unsigned char)src[at + pl]) || src[at + pl] == '_');
      if (!word) continue;
      if (c->open >> j & 1u) {
        sb_free(&t);
        return false;
      }
      strbuf v = {0};
      vm_format_value(&g->v, ar->ptype[j], c->args[j], &v);
      sb_puts(&t, v.s ? v.s : "");
      sb_free(&v);
      at += (uint32_t)pl;
      done = true;
    }
    if (!done) sb_printf(&t, "%c", src[at++]);
  }
  snprintf(out, cap, "%s", t.s ? t.s : "");
  sb_free(&t);
  return out[0] != 0;
}

static bool is_num(const char *w) {
  if (!*w) return false;
  for (; *w; w++)
    if (!isdigit((unsigned char)*w)) return false;
  return true;
}

static void lower_key(const char *w, char *out, size_t cap) {
  size_t k = 0;
  for (; *w && k + 1 < cap; w++)
    if (*w != '\'' && *w != '?' && *w != '!' && *w != ',' && *w != '.') out[k++] = (char)tolower((unsigned char)*w);
  out[k] = 0;
}

/* Words about whose quantity it is, never arguments. */
static bool owner_word(const char *k) {
  static const char *const own[] = {"they", "their", "theirs", "them", "it", "its", "he", "she", "his", "her", "hers", "own", "in", "of",
                                    "the", "all", "what", "whatever", "left", "available", "hand", "total", "whole"};
  for (size_t i = 0; i < sizeof own / sizeof *own; i++)
    if (!strcmp(k, own[i])) return true;
  return false;
}

/* CLAUSE with a comparison of a count with a quantity replaced by a witness value: the clause
 * `why` judges into OUT, what was judged into NOTE, and in *HYPO an expression and value the
 * position is to hold for the question (`with 3 spice`: spice(fremen) and 3; HYPO[0] empty if
 * none).  False when CLAUSE compares nothing. */
bool repl_quantity_clause(repl *R, const char *clause, strbuf *out, strbuf *note, char *hypo, size_t hcap, int64_t *hval) {
  hypo[0] = 0;
  if (!R->g || !R->r) return false;
  char *copy = mt_strdup(clause);
  char *w[64], k[64][32];
  int n = 0;
  for (char *t = strtok(copy, " \t"); t && n < 64; t = strtok(NULL, " \t")) {
    w[n] = t;
    lower_key(t, k[n], sizeof k[n]);
    n++;
  }
  /* the subject: the first word naming a faction (read as names are read: `the harkonnen`, `bg`) */
  mt_game *g = R->g;
  const board_def *def = g->r->def;
  int fac = -1;
  for (int i = 0; i < n && fac < 0; i++) fac = board_faction_find(def, k[i]);
  int cmp = -1, than = -1, mode = 0; /* mode 1: more than, -1: less than, 0: all of it, 2: with N (hypothetical) */
  for (int i = 0; i < n && cmp < 0; i++) {
    if (!strcmp(k[i], "more") || !strcmp(k[i], "greater") || !strcmp(k[i], "higher") || !strcmp(k[i], "less") ||
        !strcmp(k[i], "fewer") || !strcmp(k[i], "lower")) {
      for (int j = i + 1; j < n && j <= i + 3 && than < 0; j++)
        if (!strcmp(k[j], "than")) than = j;
      if (than >= 0) cmp = i, mode = k[i][0] == 'l' || k[i][0] == 'f' ? -1 : 1;
    } else if (!strcmp(k[i], "above") || !strcmp(k[i], "beyond") || !strcmp(k[i], "exceeding")) {
      cmp = than = i, mode = 1;
    } else if ((!strcmp(k[i], "all") || !strcmp(k[i], "everything")) && i + 1 < n) {
      cmp = than = i, mode = 0;
    } else if (!strcmp(k[i], "with")) { /* with [only|just] N NOUN */
      int j = i + 1;
      while (j < n && (!strcmp(k[j], "only") || !strcmp(k[j], "just") || !strcmp(k[j], "exactly"))) j++;
      char e[128];
      if (j + 1 < n && is_num(k[j]) && fac >= 0 && quantity_word(g, k[j + 1], def->factions[fac].id, e, sizeof e)) cmp = i, than = j, mode = 2;
    }
  }
  if (cmp < 0 || fac < 0) {
    mt_free(copy);
    return false;
  }
  const char *f = def->factions[fac].id;
  char expr[128] = "";
  int end = than + 1; /* the quantity's words: after `than`, up to a word that is an argument again */
  if (mode == 2) {
    quantity_word(g, k[than + 1], f, expr, sizeof expr);
    snprintf(hypo, hcap, "%s", expr);
    *hval = strtoll(k[than], NULL, 10);
    end = than + 2;
  } else if (mode != 0 && than + 1 < n && is_num(k[than + 1])) { /* `more than 3`: the number itself */
    snprintf(expr, sizeof expr, "%s", k[than + 1]);
    end = than + 2;
    if (end < n && (!strcmp(k[end], "forces") || !strcmp(k[end], "force") || !strcmp(k[end], "spice"))) end++;
  } else {
    for (int i = cmp + 1; i < than; i++) /* `more spice than`: the noun between */
      if (!expr[0]) quantity_word(g, k[i], f, expr, sizeof expr);
    for (; end < n; end++) {
      char e[128];
      if (quantity_word(g, k[end], f, e, sizeof e)) {
        if (!expr[0]) snprintf(expr, sizeof expr, "%s", e);
        continue;
      }
      if (board_faction_find(def, k[end]) == fac || owner_word(k[end]) || !strcmp(k[end], "have") || !strcmp(k[end], "has") ||
          !strcmp(k[end], "hold") || !strcmp(k[end], "holds") || !strcmp(k[end], "got"))
        continue;
      break;
    }
  }
  strbuf rest = {0}; /* the clause without the comparison, the count left open */
  for (int i = 0; i < n; i++)
    if (i < cmp || i >= end) sb_printf(&rest, "%s%s", rest.n ? " " : "", w[i]);
  if (mode == 2) { /* `bid 20 with 3 spice`: the count is said; the position is what is supposed */
    sb_puts(out, rest.s ? rest.s : "");
    sb_printf(note, "(judged as if %s were %lld, on a copy of the game; now it is ", expr, (long long)*hval);
    int64_t v;
    int ty;
    strbuf err = {0};
    if (game_eval(g, expr, &v, &ty, &err)) sb_printf(note, "%lld)", (long long)v);
    else sb_puts(note, "unknown)");
    sb_free(&err);
    sb_free(&rest);
    mt_free(copy);
    return true;
  }
  if (!expr[0]) { /* `more than they have`: what the action's rules compare the count with */
    mt_choice c;
    char perr[256];
    if (game_parse_action(g, rest.s ? rest.s : "", &c, perr, sizeof perr) >= 0 && c.action >= 0 &&
        !action_quantity(g, c.action, f, expr, sizeof expr))
      domain_bound(g, &c, expr, sizeof expr); /* `more than they have in carthag`: tokens(harkonnen, carthag) */
  }
  int64_t q = 0;
  int ty;
  strbuf err = {0};
  bool ok = expr[0] && game_eval(g, expr, &q, &ty, &err) && ty == TY_INT;
  sb_free(&err);
  if (!ok) {
    sb_free(&rest);
    mt_free(copy);
    return false;
  }
  int64_t wv = mode == 1 ? q + 1 : mode < 0 ? q - 1 : q;
  if (wv < 1) wv = 1;
  /* the witness goes where the count would: right after the verb's words, i.e. in the comparison's place */
  strbuf judged = {0};
  for (int i = 0; i < n; i++) {
    if (i == cmp) sb_printf(&judged, "%s%lld", judged.n ? " " : "", (long long)wv);
    if (i < cmp || i >= end) sb_printf(&judged, "%s%s", judged.n ? " " : "", w[i]);
  }
  sb_puts(out, judged.s ? judged.s : "");
  if (is_num(expr))
    sb_printf(note, "(judged with %lld: %s %s)", (long long)wv, mode == 1 ? "one more than" : mode < 0 ? "one less than" : "all of", expr);
  else
    sb_printf(note, "(judged with %lld: %s %s, which is %lld now)", (long long)wv,
              mode == 1 ? "one more than" : mode < 0 ? "one less than" : "all of", expr, (long long)q);
  sb_free(&judged);
  sb_free(&rest);
  mt_free(copy);
  return true;
}

/* ---- a faction the action reaches through its parameters ---------------------------------------
 * `can the emperor pay for atreides revival?`: pay_ally_revival takes the Emperor only, and is for
 * ally(f).  A faction named that no parameter takes is the one such an expression of the action
 * (a call of faction type over its parameters, in its guards or its effect) stands for. */

typedef struct reach_expr {
  const node *call;
  char text[160];
} reach_expr;

/* The calls of faction type in N whose arguments are all parameters of AR (or literals): into X. */
static int faction_calls(const action_rec *ar, const node *n, reach_expr *x, int nx, int cap, int depth) {
  if (!n || depth > 80 || nx >= cap) return nx;
  if (n->kind == AST_CALL && n->ty == TY_FACTION && n->nkids > 0) {
    bool ok = true;
    for (uint32_t i = 0; i < n->nkids && ok; i++) {
      const node *a = n->kids[i];
      bool param = false;
      for (int k = 0; a && a->kind == AST_NAME && k < ar->nparams; k++) param |= !strcmp(a->name, ar->pname[k]);
      ok = param || (a && (a->kind == AST_INT || a->kind == AST_NAME));
    }
    bool dup = false;
    for (int i = 0; i < nx; i++) dup |= !strcmp(x[i].call->name, n->name);
    if (ok && !dup) x[nx++].call = n;
  }
  for (uint32_t i = 0; i < n->nkids; i++) nx = faction_calls(ar, n->kids[i], x, nx, cap, depth + 1);
  return nx;
}

/* CALL's text with the parameters of AR replaced by the values of C (`ally(emperor)`). */
static void call_text(mt_game *g, const action_rec *ar, const mt_choice *c, const node *call, char *out, size_t cap) {
  size_t k = (size_t)snprintf(out, cap, "%s(", call->name);
  for (uint32_t i = 0; i < call->nkids && k < cap; i++) {
    const node *a = call->kids[i];
    char v[64] = "";
    for (int j = 0; j < ar->nparams && !v[0]; j++)
      if (a->kind == AST_NAME && !strcmp(a->name, ar->pname[j]) && !(c->open >> j & 1u)) {
        strbuf b = {0};
        vm_format_value(&g->v, ar->ptype[j], c->args[j], &b);
        snprintf(v, sizeof v, "%s", b.s ? b.s : "");
        sb_free(&b);
      }
    if (!v[0] && a->kind == AST_INT) snprintf(v, sizeof v, "%lld", (long long)a->ival);
    if (!v[0] && a->kind == AST_NAME) snprintf(v, sizeof v, "%s", a->name);
    k += (size_t)snprintf(out + k, cap - k, "%s%s", i ? ", " : "", v);
  }
  if (k < cap) snprintf(out + k, cap - k, ")");
}

bool repl_reach_clause(repl *R, const char *clause, strbuf *out, strbuf *note, bool *refused) {
  *refused = false;
  if (!R->g || !R->r) return false;
  mt_game *g = R->g;
  const board_def *def = g->r->def;
  char buf[1024];
  char *w[64];
  int nw = game_read_names(g, clause, buf, sizeof buf, w, 64);
  int first = -1;
  for (int i = 0; i < nw; i++) {
    int f = board_faction_find(def, w[i]);
    if (f < 0) continue;
    if (first < 0) {
      first = i;
      continue;
    }
    strbuf rest = {0}; /* the clause without that faction's word */
    for (int j = 0; j < nw; j++)
      if (j != i) sb_printf(&rest, "%s%s", rest.n ? " " : "", w[j]);
    mt_choice c;
    char perr[256];
    if (game_parse_action(g, rest.s, &c, perr, sizeof perr) < 0 || c.action < 0) {
      sb_free(&rest);
      continue;
    }
    const action_rec *ar = &g->r->prog.actions[c.action];
    bool takes = false; /* a faction parameter left open would take the word itself */
    for (int k = 1; k < ar->nparams; k++) takes |= ar->ptype[k] == TY_FACTION && (c.open >> k & 1u);
    reach_expr x[8];
    int nx = 0; /* the factions its guards and cost judge (ally(f)), not its effect's (who is paid) */
    for (int gi = 0; !takes && ar->guards && gi < ar->nguards; gi++) nx = faction_calls(ar, ar->guards[gi].cond, x, nx, 8, 0);
    if (!takes && ar->cost) nx = faction_calls(ar, ar->cost, x, nx, 8, 0);
    for (int k = 0; k < ar->nparams && nx; k++) /* a faction the choice already names is no other */
      if (ar->ptype[k] == TY_FACTION && !(c.open >> k & 1u) && c.args[k] == f) nx = 0;
    for (int k = 0; k < nx; k++) {
      call_text(g, ar, &c, x[k].call, x[k].text, sizeof x[k].text);
      int64_t v;
      int ty;
      strbuf err = {0};
      bool ok = game_eval(g, x[k].text, &v, &ty, &err) && ty == TY_FACTION;
      sb_free(&err);
      if (!ok) continue;
      const char *is = v >= 0 && v < def->nfactions ? def->factions[v].id : "none";
      sb_printf(out, "%s", rest.s);
      const char *rule = g->r->prog.rules[ar->rule].id, *title = g->r->prog.rules[ar->rule].title;
      if (v == f) {
        sb_printf(note, "(%s is %s, the faction %s is for: the question is %s's)", def->factions[f].id, x[k].text, ar->name, ar->name);
      } else {
        *refused = true;
        char formal[160];
        size_t fl = (size_t)snprintf(formal, sizeof formal, "%s(", x[k].call->name);
        for (uint32_t a = 0; a < x[k].call->nkids && fl < sizeof formal; a++)
          fl += (size_t)snprintf(formal + fl, sizeof formal - fl, "%s%s", a ? ", " : "", x[k].call->kids[a]->kind == AST_NAME ? x[k].call->kids[a]->name : "_");
        if (fl < sizeof formal) snprintf(formal + fl, sizeof formal - fl, ")");
        sb_printf(note, "No: %s is for %s only (rule %s, %s), and %s is %s, not %s.\nWhat the rules say of %s for %s itself (for %s):",
                  ar->name, formal, rule, title ? title : "", x[k].text, is, def->factions[f].id, ar->name, w[first], is);
      }
      sb_free(&rest);
      return true;
    }
    sb_free(&rest);
  }
  return false;
}

/* ---- a faction named by its relation to the subject ----------------------------------------------
 * `can the emperor give spice to its ally?`: a word naming a faction's variable of faction type
 * (`ally`) stands for its value for the subject (ally(emperor)). */
bool repl_relation_clause(repl *R, const char *clause, strbuf *out, strbuf *note, bool *none) {
  *none = false;
  if (!R->g || !R->r) return false;
  mt_game *g = R->g;
  const board_def *def = g->r->def;
  const board_layout *L = g->L;
  char *copy = mt_strdup(clause);
  char *w[64];
  int n = 0;
  for (char *t = strtok(copy, " \t"); t && n < 64; t = strtok(NULL, " \t")) w[n++] = t;
  int fac = -1, at = -1, var = -1;
  for (int i = 0; i < n; i++) {
    char k[64];
    lower_key(w[i], k, sizeof k);
    size_t kl = strlen(k);
    if (kl > 2 && k[kl - 1] == 's' && board_faction_find(def, k) < 0) { /* `emperor's ally`: the possessive, its `s` */
      char b[64];
      snprintf(b, sizeof b, "%.*s", (int)(kl - 1), k);
      if (board_faction_find(def, b) >= 0 && fac < 0) {
        fac = board_faction_find(def, b);
        continue;
      }
    }
    if (fac < 0 && board_faction_find(def, k) >= 0) {
      fac = board_faction_find(def, k);
      continue;
    }
    char kp[64]; /* after a possessive only (`its ally`, `the emperor's ally`): `ally with` is a verb */
    lower_key(i ? w[i - 1] : "", kp, sizeof kp);
    size_t pl = strlen(kp);
    bool after_poss = !strcmp(kp, "its") || !strcmp(kp, "their") || !strcmp(kp, "his") || !strcmp(kp, "her") ||
                      (pl > 1 && kp[pl - 1] == 's' && i && strchr(w[i - 1], '\''));
    for (int v = 0; v < L->nvars && fac >= 0 && at < 0 && after_poss; v++)
      if (!strcmp(L->vars[v].name, k) && L->vars[v].scope == BS_FACTION && L->vars[v].type == BT_FACTION && L->vars[v].len <= 1 &&
          board_faction_find(def, k) < 0)
        at = i, var = v;
  }
  if (at < 0) {
    mt_free(copy);
    return false;
  }
  const char *f = def->factions[fac].id;
  char expr[128];
  snprintf(expr, sizeof expr, "%s(%s)", L->vars[var].name, f);
  int64_t v;
  int ty;
  strbuf err = {0};
  bool ok = game_eval(g, expr, &v, &ty, &err) && ty == TY_FACTION;
  sb_free(&err);
  if (!ok) {
    mt_free(copy);
    return false;
  }
  *none = v < 0 || v >= def->nfactions;
  const char *is = *none ? "none" : def->factions[v].id;
  for (int i = 0; i < n; i++) {
    char k[64];
    lower_key(w[i], k, sizeof k);
    bool pron = i + 1 == at && (!strcmp(k, "its") || !strcmp(k, "their") || !strcmp(k, "his") || !strcmp(k, "her"));
    if (pron) continue;
    sb_printf(out, "%s%s", out->n ? " " : "", i == at ? is : w[i]);
  }
  sb_printf(note, "(%s is %s now)", expr, is);
  mt_free(copy);
  return true;
}
