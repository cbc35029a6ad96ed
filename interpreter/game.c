/* game.c -- the public engine API (mentat.h): loading a rule pack, games as a
 * state machine over decisions, legal choices from the same guards that
 * judge legality, refusals that name their rules, clone and hash. */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700 /* realpath */
#include "game.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "data.h"
#include "pack.h"
#include "reads.h"

void game_capture(void *ud, int level, const char *text) {
  (void)level;
  sb_puts((strbuf *)ud, text);
}

static void sink(void *ud, diag_level lv, const char *text) {
  mt_rules *r = ud;
  if (r->message) r->message(r->message_ud, (int)lv, text);
}

/* Passes a message on, unrendered, with its place as lines and columns. */
static void observe(void *ud, diag_level lv, mt_span at, const char *msg) {
  mt_rules *r = ud;
  mt_where w = {0};
  if (at.file != DIAG_NOFILE && at.file < diag_nsources(r->d)) {
    w.file = diag_source_name(r->d, at.file);
    diag_linecol(r->d, at.file, at.start, &w.line, &w.col);
    diag_linecol(r->d, at.file, at.end > at.start ? at.end : at.start, &w.end_line, &w.end_col);
  }
  r->message_at(r->message_ud, (int)lv, &w, msg);
}

/* The index among FILES[0..N) of the file PATH names (the same file by its
 * real path), or -1. */
static int same_file(char *const *files, int n, const char *path) {
  char want[4096], got[4096];
  if (!realpath(path, want)) return -1;
  for (int i = 0; i < n; i++)
    if (realpath(files[i], got) && !strcmp(want, got)) return i;
  return -1;
}

/* Do paths A and B name the same file (the same string, or the same real path)? */
static bool same_path(const char *a, const char *b) {
  char ra[4096], rb[4096];
  if (!strcmp(a, b)) return true;
  return realpath(a, ra) && realpath(b, rb) && !strcmp(ra, rb);
}

/* Parses, resolves, checks and compiles the sources already registered in
 * R's diag (files FIRST..); frees R and returns NULL on errors. */
static mt_rules *compile_sources(mt_rules *r, const sema_options *so) {
  size_t nsrc = (size_t)r->nsources;
  r->advanced = so->advanced;
  strbuf vl = {0};
  sb_puts(&vl, "");
  for (int i = 0; i < so->nvariants; i++) sb_printf(&vl, "%s%s", i ? "," : "", so->variants[i]);
  r->variant_list = sb_take(&vl);
  r->trees = mt_calloc(nsrc + 1, sizeof *r->trees);
  for (size_t i = 0; i < nsrc; i++) r->trees[r->ntrees++] = ast_parse(&r->arena, r->d, r->source_ids[i], NULL);
  /* a variant given as a file applies every variant that file declares */
  const char **names = mt_calloc((size_t)so->nvariants + 64, sizeof *names);
  int nnames = 0;
  for (int i = 0; i < so->nvariants; i++) {
    int from = -1;
    for (size_t k = 0; k < nsrc; k++)
      if (r->variant_file[k] && same_path(diag_source_name(r->d, r->source_ids[k]), so->variants[i])) from = (int)k;
    /* a variant file of the pack by its name without `.rules` (variants/wbc-2022.rules: wbc-2022),
     * unless a variant is declared by that very name */
    bool declared = false;
    for (size_t k = 0; k < (size_t)r->ntrees && !declared; k++)
      for (uint32_t j = 0; j < r->trees[k]->nkids && !declared; j++)
        declared = r->trees[k]->kids[j] && r->trees[k]->kids[j]->kind == AST_VARIANT && !strcmp(r->trees[k]->kids[j]->name, so->variants[i]);
    for (size_t k = 0; k < nsrc && from < 0 && !declared; k++) {
      const char *path = diag_source_name(r->d, r->source_ids[k]), *base = strrchr(path, '/');
      base = base ? base + 1 : path;
      bool in_variants = base - path >= 9 && !strncmp(base - 9, "variants/", 9);
      if (!r->variant_file[k] && !in_variants) continue;
      size_t bl = strlen(base), nl = strlen(so->variants[i]);
      if (bl == nl + 6 && !strncmp(base, so->variants[i], nl) && !strcmp(base + nl, ".rules")) from = (int)k;
    }
    if (from < 0) {
      names[nnames++] = so->variants[i];
      continue;
    }
    for (uint32_t k = 0; k < r->trees[from]->nkids && nnames < so->nvariants + 63; k++) {
      node *v = r->trees[from]->kids[k];
      if (v && v->kind == AST_VARIANT) names[nnames++] = v->name;
    }
  }
  /* a FILE checked against the pack applies every variant it declares, in file order (for a part,
   * `variant NAME in HOST`, its host, which brings it) */
  for (size_t k = 0; r->user_file && k < nsrc; k++)
    for (uint32_t i = 0; i < r->trees[k]->nkids; i++) {
      node *v = r->trees[k]->kids[i];
      if (!v || v->kind != AST_VARIANT) continue;
      const char *name = (v->flags & AST_VARIANT_PART) && ast_kid(v, 0) ? ast_kid(v, 0)->name : v->name;
      bool seen = false;
      for (int j = 0; j < nnames && !seen; j++) seen = !strcmp(names[j], name);
      if (!seen && r->user_file[k]) {
        names = mt_realloc(names, (size_t)(nnames + 1) * sizeof *names);
        names[nnames++] = name;
      }
    }
  strbuf vn = {0};
  sb_puts(&vn, "");
  for (int i = 0; i < nnames; i++) sb_printf(&vn, "%s%s", i ? "," : "", names[i]);
  r->variant_names = sb_take(&vn);
  /* a variant built on the Advanced game brings it: `--variant wbc-2022` alone plays Advanced */
  if (!so->advanced && sema_variants_advanced(r->trees, r->ntrees, names, nnames)) r->advanced = true;
  sema_options opts = {names, nnames, r->advanced, so->lint, so->plain, so->native};
  sema_init(&r->prog, r->def);
  sema_resolve(&r->prog, r->trees, r->ntrees, &opts, r->d);
  mt_free(names);
  sema_declare(&r->prog, r->trees, r->ntrees, r->d, &r->arena);
  sema_check(&r->prog, r->d, &r->arena);
  if (so->lint && diag_errors(r->d) == 0) sema_lint(&r->prog, r->d, so->advanced);
  if (diag_errors(r->d) == 0) cg_compile(&r->prog, r->d);
  if (diag_errors(r->d) == 0) vm_verify(&r->prog, r->d);
  if (diag_errors(r->d) == 0) vm_reads_build(&r->prog);
  if (diag_errors(r->d) == 0 && !so->plain) cg_fuse(&r->prog);
  if (diag_errors(r->d) == 0 && so->native) {
    strbuf why = {0};
    vm_native_status st = vm_native_load(&r->prog, &why);
    if (st == VM_NATIVE_FAILED) diag_error(r->d, (mt_span){DIAG_NOFILE, 0, 0}, "--native: %s", why.s ? why.s : "");
    else if (st == VM_NATIVE_REFUSED) /* a cache another user could have planted: not loaded, and the run goes on */
      diag_warning(r->d, (mt_span){DIAG_NOFILE, 0, 0}, "--native: %s; nothing is loaded from it, the rules run as bytecode",
                   why.s ? why.s : "");
    else if (why.s) diag_warning(r->d, (mt_span){DIAG_NOFILE, 0, 0}, "--native: %s", why.s);
    sb_free(&why);
  }
  if (diag_errors(r->d) > 0) {
    r->errors = diag_errors(r->d);
    if (r->keep) return r;
    mt_rules_free(r);
    return NULL;
  }
  game_hash_prepare(r);
  return r;
}

int mt_rules_errors(const mt_rules *r) { return r->errors; }

/* Registers FILE's text: an unsaved text given for it in O, else the file on disk. */
static uint32_t load_source(diag *d, const mt_load *o, const char *file) {
  for (int k = 0; k < o->nunsaved; k++)
    if (o->unsaved[k].path && same_path(o->unsaved[k].path, file))
      return diag_add_source(d, file, o->unsaved[k].text ? o->unsaved[k].text : "", o->unsaved[k].len);
  return diag_load_file(d, file);
}

mt_rules *game_rules_compile(const board_def *def, const char *const *names, const char *const *texts,
                             const size_t *lens, int n, const char *const *variants, int nvariants, int advanced,
                             mt_message_fn fn, void *ud) {
  mt_rules *r = mt_calloc(1, sizeof *r);
  r->refs = 1;
  r->bot_value = BOT_VALUE_UNKNOWN;
  r->leader_seen_by = BOT_VALUE_UNKNOWN;
  r->message = fn;
  r->message_ud = ud;
  r->d = diag_new(sink, r);
  r->def = (board_def *)(uintptr_t)def;
  r->def_borrowed = true;
  r->source_ids = mt_calloc((size_t)n + 1, sizeof *r->source_ids);
  r->variant_file = mt_calloc((size_t)n + 1, sizeof *r->variant_file);
  for (int i = 0; i < n; i++) r->source_ids[r->nsources++] = diag_add_source(r->d, names[i], texts[i], lens[i]);
  sema_options so = {variants, nvariants, advanced != 0, false, false, false};
  return compile_sources(r, &so);
}

mt_rules *mt_rules_load(const mt_load *o) {
  mt_rules *r = mt_calloc(1, sizeof *r);
  r->refs = 1;
  r->bot_value = BOT_VALUE_UNKNOWN;
  r->leader_seen_by = BOT_VALUE_UNKNOWN;
  r->message = o->message;
  r->message_ud = o->message_ud;
  r->message_at = o->message_at;
  r->keep = o->keep_on_error != 0;
  r->d = diag_new(sink, r);
  if (r->message_at) diag_set_observer(r->d, observe, r);
  const char *comp = o->components ? o->components : ".";
  r->components = mt_strdup(comp);
  pack_files pf;
  if (pack_layer(comp, o->packs, o->npacks, &pf, r->d) < 0) {
    pack_files_fini(&pf);
    mt_rules_free(r);
    return NULL;
  }
  r->def = data_load_pack(&pf, r->d);
  if (!r->def) {
    pack_files_fini(&pf);
    mt_rules_free(r);
    return NULL;
  }
  char **files = NULL;
  int nfiles = 0, cap = 0;
  int npack = 0; /* files[0..npack) are the pack's own, before the FILEs checked against it */
  if (o->nfiles > 0 && !o->against_pack) {
    for (int i = 0; i < o->nfiles; i++) VEC_PUSH(files, nfiles, cap, mt_strdup(o->files[i]));
  } else {
    for (size_t i = 0; i < pf.nrules; i++) VEC_PUSH(files, nfiles, cap, mt_strdup(pf.rules[i]));
    npack = nfiles;
    for (int i = 0; i < o->nfiles; i++) VEC_PUSH(files, nfiles, cap, mt_strdup(o->files[i]));
  }
  pack_files_fini(&pf);
  for (int i = 0; i < o->nvariants; i++)
    if (strchr(o->variants[i], '/') || strstr(o->variants[i], ".rules")) VEC_PUSH(files, nfiles, cap, mt_strdup(o->variants[i]));
  r->source_ids = mt_calloc((size_t)nfiles + 1, sizeof *r->source_ids);
  r->variant_file = mt_calloc((size_t)nfiles + 1, sizeof *r->variant_file);
  if (npack < nfiles && o->against_pack) r->user_file = mt_calloc((size_t)nfiles + 1, sizeof *r->user_file);
  int *pack_source = mt_calloc((size_t)nfiles + 1, sizeof *pack_source); /* files[i] -> its source, or -1 */
  for (int i = 0; i < nfiles; i++) {
    pack_source[i] = -1;
    bool user = o->against_pack && i >= npack && i < npack + o->nfiles;
    bool variant = i >= npack + o->nfiles; /* a --variant FILE */
    int same = user ? same_file(files, npack, files[i]) : variant ? same_file(files, i, files[i]) : -1;
    if (same >= 0) { /* a file already loaded (a FILE or a --variant FILE of the pack itself): loaded once */
      if (pack_source[same] >= 0 && user) r->user_file[pack_source[same]] = true;
      if (pack_source[same] >= 0 && variant) r->variant_file[pack_source[same]] = true;
      continue;
    }
    uint32_t f = load_source(r->d, o, files[i]);
    if (f != DIAG_NOFILE) {
      for (int k = 0; k < o->nvariants; k++) r->variant_file[r->nsources] |= !strcmp(files[i], o->variants[k]);
      if (r->user_file) r->user_file[r->nsources] = user;
      pack_source[i] = r->nsources;
      r->source_ids[r->nsources++] = f;
    }
  }
  for (int i = 0; i < nfiles; i++) mt_free(files[i]);
  mt_free(pack_source);
  mt_free(files);
  if (diag_errors(r->d) > 0) {
    mt_rules_free(r);
    return NULL;
  }
  sema_options so = {o->variants, o->nvariants, o->advanced != 0, o->lint != 0, o->plain_code != 0, o->native != 0};
  return compile_sources(r, &so);
}

const mt_rules *game_rules_retain(const mt_rules *r) {
  ((mt_rules *)(uintptr_t)r)->refs++;
  return r;
}

/* Drops one reference; the last one frees the rule set. */
void mt_rules_free(mt_rules *r) {
  if (!r || --r->refs > 0) return;
  vm_vcache_free(r->spare_vc);
  for (int i = 0; i < r->nspare_memo; i++) mt_free(r->spare_memo[i]);
  game_hash_free(r);
  sema_free(&r->prog);
  if (r->def && !r->def_borrowed) board_def_free(r->def);
  mt_free(r->trees);
  mt_free(r->source_ids);
  mt_free(r->variant_file);
  mt_free(r->user_file);
  mt_free(r->components);
  mt_free(r->variant_list);
  mt_free(r->expansion_list);
  mt_free(r->variant_names);
  arena_free(&r->arena);
  diag_free(r->d);
  mt_free(r);
}

int mt_rules_disasm(const mt_rules *r, const char *id, char **text) {
  int k = sema_find_rule(&r->prog, id);
  if (k < 0) return -1;
  strbuf b = {0};
  const rule_rec *rr = &r->prog.rules[k];
  uint32_t line, col;
  diag_linecol(r->d, rr->span.file, rr->span.start, &line, &col);
  sb_printf(&b, "rule %s \"%s\" (%s, defined at %s:%u)\n", rr->id, rr->title ? rr->title : "", level_names[rr->level],
            diag_source_name(r->d, rr->span.file), line);
  if (rr->disabled) sb_puts(&b, "  (disabled in this rule set)\n");
  cg_disasm(&r->prog, r->d, k, &b);
  *text = sb_take(&b);
  return 0;
}

int mt_rules_factions(const mt_rules *r, const char ***ids) {
  static const char *buf[BOARD_MAX_FACTIONS];
  int n = r->def->nfactions < BOARD_MAX_FACTIONS ? r->def->nfactions : BOARD_MAX_FACTIONS;
  for (int i = 0; i < n; i++) buf[i] = r->def->factions[i].id;
  *ids = buf;
  return n;
}

/* ---- games ---------------------------------------------------------------------- */

/* The VM's continuation lives in the board's extension region (saved with
 * the position), at the first 8-byte boundary inside it. */
#define VM_WORDS ((sizeof(vm_state) + 8) / sizeof(int32_t))

static void bind(mt_game *g) {
  g->v.p = &g->r->prog;
  g->v.L = g->L;
  g->v.st = g->block;
  uintptr_t ext = (uintptr_t)board_ext(g->L, g->block);
  g->v.vs = (vm_state *)(void *)((ext + 7) & ~(uintptr_t)7);
  g->v.can_act = game_can_act;
}

/* One of the rules' spare memos (game.h), if any, becomes G's, in an epoch of its own. */
static void take_memo(mt_game *g) {
  mt_rules *r = (mt_rules *)(uintptr_t)g->r;
  if (!r->nspare_memo) return;
  int i = --r->nspare_memo;
  g->v.memo = r->spare_memo[i];
  g->v.memo_epoch = r->spare_memo_epoch[i];
  r->spare_memo[i] = NULL;
  vm_memo_reset(&g->v);
}

/* G's memo goes back to the rules (up to GAME_SPARE_MEMOS spares), else is freed. */
static void give_memo(mt_game *g) {
  mt_rules *r = (mt_rules *)(uintptr_t)g->r;
  if (g->v.memo && r->nspare_memo < GAME_SPARE_MEMOS) {
    r->spare_memo[r->nspare_memo] = g->v.memo;
    r->spare_memo_epoch[r->nspare_memo++] = g->v.memo_epoch;
  } else {
    mt_free(g->v.memo);
  }
  g->v.memo = NULL;
}

/* A game over layout L and state block ST (both taken). */
static mt_game *game_take(const mt_rules *r, board_layout *L, unsigned char *st) {
  mt_game *g = mt_calloc(1, sizeof *g);
  g->r = game_rules_retain(r);
  g->L = L;
  g->owns_layout = true;
  g->size = L->size;
  g->block = st;
  bind(g);
  /* shared with the clones, like the layout; the last freed game's if it had the same factions */
  mt_rules *rw = (mt_rules *)(uintptr_t)r;
  if (rw->spare_vc && rw->spare_nf == L->nf && !memcmp(rw->spare_faction, L->faction, (size_t)L->nf * sizeof *L->faction)) {
    g->v.vcache = rw->spare_vc;
    rw->spare_vc = NULL;
  } else {
    g->v.vcache = vm_vcache_new(&r->prog, L);
  }
  take_memo(g);
  g->v.secret_vars = mt_calloc(L->off_ext - L->off_vars + 1, 1);
  return g;
}

static bool init_rule_vars(mt_game *g, char *err, size_t errlen);

mt_game *mt_game_new(const mt_rules *r, const char *const *factions, int nfactions, uint64_t seed, char *err,
                     size_t errlen) {
  int idx[BOARD_MAX_FACTIONS];
  int n = 0;
  if (r->errors) { /* kept for its names only (mt_load.keep_on_error) */
    snprintf(err, errlen, "the rules have %d error%s: no game runs on them", r->errors, r->errors == 1 ? "" : "s");
    return NULL;
  }
  if (!factions) {
    for (int i = 0; i < r->def->nfactions && i < BOARD_MAX_FACTIONS; i++) idx[n++] = i;
  } else {
    for (int i = 0; i < nfactions && n < BOARD_MAX_FACTIONS; i++) {
      int k = board_faction_find(r->def, factions[i]); /* an id or an alias, in any case */
      if (k < 0) {
        const char *c[BOARD_MAX_FACTIONS];
        for (int j = 0; j < r->def->nfactions && j < BOARD_MAX_FACTIONS; j++) c[j] = r->def->factions[j].id;
        const char *s = diag_suggest(factions[i], c, (size_t)r->def->nfactions);
        char *x = s ? NULL : pack_expansion_with_faction(r->components ? r->components : ".", factions[i]);
        snprintf(err, errlen, "unknown faction '%s'%s%s%s%s%s%s%s", factions[i], s ? " (did you mean '" : "", s ? s : "",
                 s ? "'?)" : "", x ? " (it comes with an expansion: add --expansion " : "", x ? x : "", x ? ")" : "", "");
        mt_free(x);
        return NULL;
      }
      idx[n++] = k;
    }
  }
  strbuf e = {0};
  board_layout *L = board_layout_new(r->def, idx, n, r->prog.var_decls, r->prog.nvar_decls, VM_WORDS, &e);
  if (!L) {
    snprintf(err, errlen, "%s", e.s ? e.s : "cannot lay out the game");
    sb_free(&e);
    return NULL;
  }
  sb_free(&e);
  mt_game *g = game_take(r, L, mt_calloc(1, L->size));
  board_state_init(L, g->v.st, seed);
  memset(g->v.vs, 0, sizeof *g->v.vs);
  vm_reset_stops(g->v.vs);
  if (!init_rule_vars(g, err, errlen)) {
    mt_game_free(g);
    return NULL;
  }
  return g;
}

/* The rule-declared variables of G at their declared values, then the
 * computed ones, in declaration order (one may read an earlier one). */
static bool init_rule_vars(mt_game *g, char *err, size_t errlen) {
  const program *p = &g->r->prog;
  const board_layout *L = g->L;
  for (int i = 0; i < p->nvars; i++) {
    const var_rec *vr = &p->vars[i];
    if (vr->data || vr->init_value == 0) continue;
    int inst = vr->scope == BS_FACTION ? L->nf : 1;
    for (int k = 0; k < inst; k++)
      for (int c = 0; c < vr->cells; c++) board_var_set(L, g->v.st, vr->board_var, k, c, (int32_t)vr->init_value);
  }
  for (int i = 0; i < p->nvars; i++) {
    const var_rec *vr = &p->vars[i];
    if (!vr->init_computed) continue;
    int64_t x = 0;
    strbuf why = {0};
    vm_memo_reset(&g->v);
    if (!vm_eval(&g->v, vr->init_fn, NULL, 0, &x, &why)) {
      snprintf(err, errlen, "the initial value of variable '%s' cannot be computed: %s", vr->name, why.s ? why.s : "");
      sb_free(&why);
      return false;
    }
    sb_free(&why);
    bool fits = vr->width == 2 || (x >= INT32_MIN && x <= INT32_MAX);
    if (!fits || board_var_set(L, g->v.st, vr->board_var, 0, 0, (int32_t)(uint32_t)(uint64_t)x) != BOARD_OK ||
        (vr->width == 2 && board_var_set(L, g->v.st, vr->board_var, 0, 1, (int32_t)(uint32_t)((uint64_t)x >> 32)) != BOARD_OK)) {
      snprintf(err, errlen, "the initial value of variable '%s' (%lld) does not fit it", vr->name, (long long)x);
      return false;
    }
  }
  return true;
}

/* The last holder of a game's layout lets its value cache go: kept by the
 * rules for the next game of the same factions (one spare), else freed. */
static void drop_vcache(mt_game *g) {
  mt_rules *r = (mt_rules *)(uintptr_t)g->r;
  if (!g->v.vcache) return;
  if (r->spare_vc) vm_vcache_free(r->spare_vc);
  r->spare_vc = g->v.vcache;
  r->spare_nf = g->L->nf;
  memcpy(r->spare_faction, g->L->faction, (size_t)g->L->nf * sizeof *g->L->faction);
}

void mt_game_free(mt_game *g) {
  if (!g) return;
  if (g->owns_layout) {
    drop_vcache(g);
    board_layout_free(g->L);
  } else if (g->layout_ref && --*g->layout_ref == 0) {
    drop_vcache(g);
    board_layout_free(g->L);
    mt_free(g->layout_ref);
  }
  mt_free(g->block);
  give_memo(g);
  mt_free(g->v.dep_save);
  mt_free(g->v.secret_vars);
  mt_free(g->v.chance);
  sb_free(&g->errtext);
  mt_rules_free((mt_rules *)(uintptr_t)g->r);
  sb_free(&g->evalerr);
  mt_free(g);
}

void mt_game_set_log(mt_game *g, mt_log_fn fn, void *ud) {
  g->v.log = fn;
  g->v.log_ud = ud;
}

int mt_start(mt_game *g) { return vm_start(&g->v); }
int mt_status(const mt_game *g) { return g->v.vs->status; }

const char *mt_error(mt_game *g) {
  sb_free(&g->errtext);
  vm_error_text(&g->v, g->r->d, &g->errtext);
  return g->errtext.s ? g->errtext.s : "";
}

const mt_decision *mt_pending(mt_game *g) {
  vm_state *vs = g->v.vs;
  if (vs->status != VM_WAITING) return NULL;
  const program *p = &g->r->prog;
  mt_decision *d = &g->dec;
  memset(d, 0, sizeof *d);
  static const int kinds[] = {MT_DEC_NONE, MT_DEC_CHOOSE, MT_DEC_NUMBER, MT_DEC_YESNO, MT_DEC_ACTION};
  d->kind = kinds[vs->dec.kind];
  d->faction = vs->dec.faction >= 0 && vs->dec.faction < g->r->def->nfactions ? g->r->def->factions[vs->dec.faction].id
                                                                                : "none";
  if (vs->dec.kind == DEC_ACT) {
    d->prompt = "choose an action";
  } else { /* the prompt's {name} holes, formatted from the decision record */
    const char *t = p->strings[vs->dec.prompt];
    size_t n = 0, cap = sizeof g->prompt - 1;
    int h = 0;
    for (const char *q = t; *q && n < cap; q++) {
      const char *e = *q == '{' ? strchr(q, '}') : NULL;
      if (e && h < vs->dec.nholes && vs->dec.hole_types >= 0) {
        n += vm_format_value_buf(&g->v, p->lists[vs->dec.hole_types][h], vs->dec.holes[h], g->prompt + n, cap - n);
        h++;
        q = e;
      } else {
        g->prompt[n++] = *q;
      }
    }
    g->prompt[n] = 0;
    d->prompt = g->prompt;
  }
  d->rule = vs->dec.rule >= 0 ? p->rules[vs->dec.rule].id : "-";
  d->secret = vs->dec.secret;
  d->lo = vs->dec.lo;
  d->hi = vs->dec.hi;
  return d;
}

/* Cost and guards of action A with ARGS; fills the refused guard list.  A
 * cost or guard that cannot be evaluated refuses, its runtime error (which
 * names the rule, and the budget when it did not terminate) in g->evalerr. */
static bool action_legal(mt_game *g, int a, const int64_t *args, int64_t *cost) {
  const program *p = &g->r->prog;
  const action_rec *ar = &p->actions[a];
  int64_t full[MAX_PARAMS + 1];
  memcpy(full, args, (size_t)ar->nparams * sizeof *args);
  *cost = 0;
  g->v.nrefused = 0;
  g->v.guard_failed = 0;
  sb_free(&g->evalerr);
  if (ar->cost_fn >= 0 && !vm_eval_at(&g->v, ar->cost_fn, full, ar->nparams, cost, &g->evalerr, g->r->d)) return false;
  full[ar->nparams] = *cost;
  int64_t ok = 0;
  if (!vm_eval_at(&g->v, ar->guard_fn, full, ar->nparams + 1, &ok, &g->evalerr, g->r->d)) return false;
  return ok != 0;
}

static void refuse(mt_game *g, mt_explain *why, const char *msg) {
  (void)g;
  if (!why) return;
  memset(why, 0, sizeof *why);
  snprintf(why->text, sizeof why->text, "%s", msg);
}

/* Fills WHY with every guard that refused action A. */
static void explain_guards(mt_game *g, int a, mt_explain *why) {
  if (!why) return;
  const program *p = &g->r->prog;
  const action_rec *ar = &p->actions[a];
  memset(why, 0, sizeof *why);
  strbuf b = {0};
  sb_printf(&b, "%s is refused:", ar->name);
  for (int i = 0; i < g->v.nrefused && why->nreasons < MT_MAX_REASONS; i++) {
    int gi = g->v.refused[i];
    int r = gi < 0 ? ar->rule : ar->guards[gi].rule;
    why->rule[why->nreasons] = p->rules[r].id;
    why->title[why->nreasons] = p->rules[r].title;
    why->nreasons++;
    if (gi < 0) sb_printf(&b, " %s (%s) is not in force;", p->rules[r].id, p->rules[r].title);
    else {
      mt_span sp = ar->guards[gi].span;
      size_t len;
      const char *text = diag_source_text(g->r->d, sp.file, &len);
      sb_printf(&b, " %s (%s): %s %.*s;", p->rules[r].id, p->rules[r].title, ar->guards[gi].forbid ? "forbid" : "require",
                (int)(sp.end - sp.start), text + sp.start);
    }
  }
  if (why->nreasons == 0) sb_printf(&b, " its cost or guards could not be evaluated: %s;", g->evalerr.s ? g->evalerr.s : "?");
  b.s[b.n - 1] = 0;
  snprintf(why->text, sizeof why->text, "%s", b.s);
  sb_free(&b);
}

int mt_apply(mt_game *g, const mt_choice *c, mt_explain *why) {
  vm_state *vs = g->v.vs;
  vm_memo_reset(&g->v);
  if (vs->status != VM_WAITING) {
    refuse(g, why, "no decision is pending");
    return -1;
  }
  int64_t answer = c->value;
  switch (vs->dec.kind) {
  case DEC_ASK:
    if (answer < 0 || answer >= 64 || !((uint64_t)vs->dec.set >> answer & 1u)) {
      refuse(g, why, "that is not one of the offered choices");
      return -1;
    }
    break;
  case DEC_RANGE:
    if (answer < vs->dec.lo || answer > vs->dec.hi) {
      char buf[96];
      snprintf(buf, sizeof buf, "the answer must be between %lld and %lld", (long long)vs->dec.lo, (long long)vs->dec.hi);
      refuse(g, why, buf);
      return -1;
    }
    break;
  case DEC_MAY:
    if (answer != 0 && answer != 1) {
      refuse(g, why, "the answer is yes or no");
      return -1;
    }
    break;
  case DEC_ACT: {
    const program *p = &g->r->prog;
    bool listed = false;
    for (int i = 0; i < p->nlist[vs->dec.list]; i++) listed |= p->lists[vs->dec.list][i] == c->action;
    if (!listed || c->action < 0) { /* say what is offered, and by which rule */
      if (why) {
        memset(why, 0, sizeof *why);
        int r = vs->dec.rule;
        strbuf b = {0};
        sb_printf(&b, "%s is not offered here: ", c->action >= 0 ? p->actions[c->action].name : "that action");
        if (r >= 0 && r < p->nrules) {
          why->rule[0] = p->rules[r].id, why->title[0] = p->rules[r].title, why->nreasons = 1;
          sb_printf(&b, "%s (%s) asks for one of: ", p->rules[r].id, p->rules[r].title);
        } else {
          sb_puts(&b, "the decision asks for one of: ");
        }
        for (int i = 0, k = 0; i < p->nlist[vs->dec.list]; i++)
          if (p->lists[vs->dec.list][i] >= 0) sb_printf(&b, "%s%s", k++ ? ", " : "", p->actions[p->lists[vs->dec.list][i]].name);
        snprintf(why->text, sizeof why->text, "%s", b.s);
        sb_free(&b);
      }
      return -1;
    }
    const action_rec *ar = &p->actions[c->action];
    if (c->nargs != ar->nparams || c->args[0] != vs->dec.faction) {
      const board_def *def = g->r->def;
      int df = vs->dec.faction;
      char msg[160];
      if (c->nargs == ar->nparams && df >= 0 && df < def->nfactions && c->args[0] >= 0 && c->args[0] < def->nfactions)
        snprintf(msg, sizeof msg, "it is %s's decision now, not %s's", def->factions[df].id, def->factions[c->args[0]].id);
      else
        snprintf(msg, sizeof msg, "the action is taken by the deciding faction, with all its parameters");
      refuse(g, why, msg);
      return -1;
    }
    for (int i = 1; i < ar->nparams; i++) {
      bool in;
      if (ar->plisted[i]) continue; /* its domain bounds the listing only: the guards judge */
      if (!game_in_domain(g, c->action, i, c->args, c->args[i], &in)) {
        refuse(g, why, "the parameters could not be evaluated");
        return -1;
      }
      if (!in) { /* the rule of the action gives the domain: name it, and the domain's text */
        if (why) {
          memset(why, 0, sizeof *why);
          const rule_rec *rr = &p->rules[ar->rule];
          why->rule[0] = rr->id, why->title[0] = rr->title, why->nreasons = 1;
          strbuf v = {0};
          vm_format_value(&g->v, ar->ptype[i], c->args[i], &v);
          snprintf(why->text, sizeof why->text, "%s cannot take %s = %s under %s (%s)", ar->name, ar->pname[i], v.s ? v.s : "?",
                   rr->id, rr->title ? rr->title : "");
          const node *dom = ar->pdomain[i];
          if (dom) {
            size_t len, at = strlen(why->text);
            const char *src = diag_source_text(g->r->d, dom->span.file, &len);
            mt_span sp = dom->span; /* a range's span is its `..`: from its low bound to its high one */
            if (dom->kind == AST_RANGE) sp = ast_join(ast_join(sp, dom->kids[0]->span), dom->kids[1]->span);
            snprintf(why->text + at, sizeof why->text - at, ", which allows only %s in %.*s", ar->pname[i], (int)(sp.end - sp.start),
                     src + sp.start);
          }
          sb_free(&v);
        }
        return -1;
      }
    }
    int64_t cost;
    if (!action_legal(g, c->action, c->args, &cost)) {
      explain_guards(g, c->action, why);
      return -1;
    }
    /* call the effect: arguments and cost become the frame's parameters */
    if (vs->sp + ar->nparams + 1 + p->funcs[ar->effect_fn].nlocals + 8 > VM_STACK || vs->nframes >= VM_FRAMES) {
      refuse(g, why, "the rules nest too deeply to take this action");
      return -1;
    }
    int base = vs->sp;
    for (int i = 0; i < ar->nparams; i++) vs->stack[vs->sp++] = c->args[i];
    vs->stack[vs->sp++] = cost;
    const func_rec *f = &p->funcs[ar->effect_fn];
    for (int i = ar->nparams + 1; i < f->nlocals; i++) vs->stack[vs->sp++] = 0;
    vm_frame *fr = &vs->frames[vs->nframes++];
    if (g->v.fired) g->v.fired(g->v.fired_ud, ar->effect_fn);
    fr->fn = ar->effect_fn;
    fr->pc = (int32_t)f->start;
    fr->base = base;
    vs->dec.kind = DEC_NONE;
    return vm_run(&g->v);
  }
  default: refuse(g, why, "no decision is pending"); return -1;
  }
  if (vs->sp >= VM_STACK) {
    refuse(g, why, "stack full");
    return -1;
  }
  vs->stack[vs->sp++] = answer;
  vs->dec.kind = DEC_NONE;
  return vm_run(&g->v);
}

void mt_choice_format(const mt_game *g, const mt_choice *c, char *buf, size_t n) {
  const program *p = &g->r->prog;
  const vm_state *vs = g->v.vs;
  strbuf b = {0};
  if (c->action >= 0 && c->action < p->nactions) {
    const action_rec *ar = &p->actions[c->action];
    sb_puts(&b, ar->name);
    for (int i = 0; i < ar->nparams; i++) {
      sb_putc(&b, ' ');
      vm_format_value(&g->v, ar->ptype[i], c->args[i], &b);
    }
  } else if (vs->dec.kind == DEC_MAY) {
    sb_puts(&b, c->value ? "yes" : "no");
  } else if (vs->dec.kind == DEC_ASK) {
    vm_format_value(&g->v, vs->dec.elem, c->value, &b);
  } else {
    sb_printf(&b, "%lld", (long long)c->value);
  }
  snprintf(buf, n, "%s", b.s ? b.s : "");
  sb_free(&b);
}

mt_game *mt_clone(const mt_game *g) {
  mt_game *c = mt_calloc(1, sizeof *c);
  c->r = game_rules_retain(g->r);
  c->L = g->L;
  /* the layout is shared, reference-counted */
  mt_game *gg = (mt_game *)(uintptr_t)g;
  if (gg->owns_layout) {
    gg->owns_layout = false;
    gg->layout_ref = mt_calloc(1, sizeof *gg->layout_ref);
    *gg->layout_ref = 1;
  }
  c->layout_ref = gg->layout_ref;
  ++*c->layout_ref;
  c->size = g->size;
  c->block = mt_alloc(g->size); /* the whole state: board and VM continuation */
  memcpy(c->block, g->block, g->size);
  c->v = g->v;
  c->v.nrefused = 0;
  c->v.memo = NULL;
  take_memo(c);
  c->v.dep_save = NULL;
  c->v.ndep = 0;
  if (g->v.secret_vars) { /* its own copy: a playout may begin another round */
    size_t n = g->L->off_ext - g->L->off_vars;
    c->v.secret_vars = mt_alloc(n + 1);
    memcpy(c->v.secret_vars, g->v.secret_vars, n);
  }
  if (g->v.chance) { /* chance as choice, with a plan of its own: a trial on a copy takes none of G's outcomes */
    c->v.chance = mt_calloc(1, sizeof *c->v.chance);
    c->v.chance->on = true;
  }
  bind(c);
  return c;
}

void mt_copy_state(mt_game *dst, const mt_game *src) {
  memcpy(dst->block, src->block, src->size);
  dst->v.secret_seen = src->v.secret_seen && dst->v.secret_vars && src->v.secret_vars;
  if (dst->v.secret_seen) memcpy(dst->v.secret_vars, src->v.secret_vars, src->L->off_ext - src->L->off_vars);
}
size_t mt_state_size(const mt_game *g) { return g->size; }
int mt_save_position(const mt_game *g, char **text) {
  strbuf b = {0};
  state_save(g->L, g->v.st, &b);
  /* the rule set it belongs to, after the version line: a load under another is refused */
  const char *at = b.s ? strstr(b.s, "mentat_state: 2\n") : NULL;
  if (at) {
    at += strlen("mentat_state: 2\n");
    strbuf o = {0};
    sb_printf(&o, "%.*s", (int)(at - b.s), b.s);
    sb_printf(&o, "ruleset: %s\nvariants: [", g->r->advanced ? "advanced" : "basic");
    const char *v = g->r->variant_names ? g->r->variant_names : "";
    for (const char *p = v; *p; p++) sb_puts(&o, *p == ',' ? ", " : (char[2]){*p, 0});
    sb_printf(&o, "]\n%s", at);
    sb_free(&b);
    b = o;
  }
  *text = sb_take(&b);
  return 0;
}

/* The loader's check of the `vm` words: the continuation must be one the
 * program can resume (vm_check_state); the words around it (alignment) are
 * 0.  A file without `vm` is a game that has not started. */
static long check_vm_words(void *ud, const board_layout *L, unsigned char *st, bool given, strbuf *why) {
  mt_game g = {0};
  g.r = ud;
  g.L = (board_layout *)(uintptr_t)L;
  g.block = st;
  bind(&g);
  if (!given) {
    memset(g.v.vs, 0, sizeof *g.v.vs);
    vm_reset_stops(g.v.vs);
    return -1;
  }
  const int32_t *ext = board_ext(L, st);
  long shift = (long)((const unsigned char *)g.v.vs - (const unsigned char *)ext) / 4;
  for (long i = 0; i < (long)L->ext_words; i++)
    if ((i < shift || i >= shift + (long)(sizeof(vm_state) / 4)) && ext[i]) {
      sb_printf(why, "a padding word around the VM's state holds %d, not 0", ext[i]);
      return i;
    }
  long off = vm_check_state(&g.v, why);
  return off < 0 ? -1 : shift + off / 4;
}

/* The empty position of a file: the rules' variables at their initial values. */
static bool init_vars(void *ud, const board_layout *L, unsigned char *st, strbuf *why) {
  mt_game g = {0};
  g.r = ud;
  g.L = (board_layout *)(uintptr_t)L;
  g.block = st;
  bind(&g);
  char err[256];
  bool ok = init_rule_vars(&g, err, sizeof err);
  if (!ok) sb_puts(why, err);
  mt_free(g.v.memo);
  mt_free(g.v.dep_save);
  return ok;
}

/* A position saved with undecided cards (chance as choice) loads with chance
 * as choice on: only it can decide them (docs/state-format.md). */
static mt_game *loaded(const mt_rules *r, board_layout *L, unsigned char *st) {
  mt_game *g = game_take(r, L, st);
  for (int s = 0; s < L->npile_slots; s++)
    if (board_pile_unknown(L, st, s) > 0) {
      mt_chance_mode(g, 1, 0);
      break;
    }
  return g;
}

mt_game *mt_load_position(const mt_rules *r, const char *path) {
  mt_rules *rr = (mt_rules *)(uintptr_t)r;
  unsigned char *st = NULL;
  state_ext x = {r->prog.var_decls, r->prog.nvar_decls, VM_WORDS, check_vm_words, init_vars, rr,
                 r->advanced ? "advanced" : "basic", r->variant_names ? r->variant_names : ""};
  board_layout *L = state_load_file(r->def, &x, path, rr->d, &st);
  if (!L) return NULL;
  return loaded(r, L, st);
}

mt_game *game_load_text(const mt_rules *r, diag *d, const char *name, const char *text, size_t len) {
  unsigned char *st = NULL;
  state_ext x = {r->prog.var_decls, r->prog.nvar_decls, VM_WORDS, check_vm_words, init_vars, (void *)(uintptr_t)r,
                 r->advanced ? "advanced" : "basic", r->variant_names ? r->variant_names : ""};
  board_layout *L = state_load_text(r->def, &x, name, text, len, d, &st);
  if (!L) return NULL;
  return loaded(r, L, st);
}

game_scratch game_scratch_begin(const mt_rules *r) {
  game_scratch m = {cg_get_mark(&r->prog), arena_get_mark(&r->arena), diag_nsources(r->d)};
  return m;
}

void game_scratch_end(const mt_rules *r, const game_scratch *m) {
  mt_rules *rr = (mt_rules *)(uintptr_t)r;
  cg_rollback(&rr->prog, &m->code);
  arena_release(&rr->arena, m->tree);
  diag_drop_sources(rr->d, m->sources);
}

/* Evaluates TEXT as an expression of the rules language against the game's
 * current state (pure: the state is not changed).  Errors, with carets,
 * go to ERR.  The query's code is compiled, run and forgotten. */
bool game_eval(mt_game *g, const char *text, int64_t *out, int *ty, strbuf *err) {
  return game_eval_as(g, text, 0, out, ty, err);
}

/* Compiles TEXT, named NAME in messages, as an expression of the rules against G's rule set:
 * the new pure function, or -1 with the errors (carets) in ERR; *TY its type.  What it adds
 * stays until the caller's game_scratch_end. */
int game_compile_expr(const mt_game *g, const char *name, const char *text, int want, int *ty, strbuf *err) {
  mt_rules *r = (mt_rules *)(uintptr_t)g->r;
  mt_message_fn saved = r->message;
  void *saved_ud = r->message_ud;
  r->message = game_capture;
  r->message_ud = err;
  diag_reset_count(r->d);
  uint32_t f = diag_add_source(r->d, name, text, strlen(text));
  node *e = ast_parse_expr(&r->arena, r->d, f);
  int fn = -1;
  *ty = TY_ERROR;
  if (e) {
    int nslots = 0;
    *ty = sema_check_expr(&r->prog, r->d, &r->arena, e, want, &nslots);
    if (*ty != TY_ERROR) fn = cg_compile_expr(&r->prog, r->d, e, nslots);
  }
  r->message = saved;
  r->message_ud = saved_ud;
  return fn;
}

/* As game_eval, with WANT the type expected of the value (0: none). */
bool game_eval_as(mt_game *g, const char *text, int want, int64_t *out, int *ty, strbuf *err) {
  /* everything the query adds (its source, tree and code) is forgotten after
   * it, so a long console session does not grow */
  game_scratch scratch = game_scratch_begin(g->r);
  vm_memo_reset(&g->v);
  int fn = game_compile_expr(g, "<query>", text, want, ty, err);
  bool ok = false;
  if (fn >= 0) {
    g->v.p = &g->r->prog;
    ok = vm_eval(&g->v, fn, NULL, 0, out, err);
  }
  game_scratch_end(g->r, &scratch);
  return ok;
}

/* Parses "ACTION ARG..." whatever decision is pending (for why-not). */
int mt_choice_parse(const mt_game *g, const char *text, mt_choice *c, char *err, size_t errlen) {
  return game_parse_choice(g, text, c, false, err, errlen);
}

int game_parse_action(const mt_game *g, const char *text, mt_choice *c, char *err, size_t errlen) {
  vm_state *vs = g->v.vs;
  int32_t saved = vs->dec.kind;
  vs->dec.kind = DEC_ACT;
  int rc = game_parse_choice(g, text, c, true, err, errlen);
  vs->dec.kind = saved;
  return rc;
}

/* Judges action choice C on the current state as if it were its faction's
 * decision now: 1 legal, 0 refused by guards (g->v.refused lists them), -1
 * not judgeable (message in ERR), -2-i when parameter i is outside its domain. */
int game_judge_action(mt_game *g, const mt_choice *c, int64_t *cost, char *err, size_t errlen) {
  const program *p = &g->r->prog;
  if (c->action < 0 || c->action >= p->nactions) return snprintf(err, errlen, "not an action"), -1;
  const action_rec *ar = &p->actions[c->action];
  vm_memo_reset(&g->v);
  for (int i = 1; i < ar->nparams; i++) {
    bool in;
    if (ar->plisted[i]) continue; /* its domain bounds the listing only: the guards judge */
    if (!game_in_domain(g, c->action, i, c->args, c->args[i], &in))
      return snprintf(err, errlen, "the domain of '%s' could not be evaluated", ar->pname[i]), -1;
    if (!in) return snprintf(err, errlen, "'%s' is outside the choices the action offers", ar->pname[i]), -2 - i;
  }
  return action_legal(g, c->action, c->args, cost) ? 1 : 0;
}
