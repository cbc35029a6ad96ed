/* test_hash.c -- the position hash describes the position, not the build:
 * a Basic game of the standard pack hashes the same, decision by decision,
 * when the pack grows by rules the Basic game never plays (an unused
 * variable, a new event, a Basic value nobody reads, an Advanced rule with
 * triggers and an action), put before everything else so that every rule,
 * function, variable and event index moves.  And it tells positions apart.
 * Runs from the repository root (the pack is rules/ and factions/). */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "scratch.h"

#define EXTRA scratch("test_hash_extra.rules")

static const char extra_rules[] =
    "# an addition the Basic game never plays (test_hash.c)\n"
    "var hash_probe_total: int = 7\n"
    "var hash_probe_seen(f: faction): bool\n"
    "event hash_probe_fired(f: faction, n: int)\n"
    "\n"
    "rule 9.97 \"Hash probe: a basic rule with a value nobody reads\" basic {\n"
    "  value hash_probe_weight(f: faction): int = 3\n"
    "}\n"
    "\n"
    "rule 9.98 \"Hash probe: an advanced rule with triggers and an action\" advanced {\n"
    "  after shipped(f, to, n) {\n"
    "    set hash_probe_total = hash_probe_total + n\n"
    "    signal hash_probe_fired(f, n)\n"
    "  }\n"
    "  after hash_probe_fired(f, n) {\n"
    "    set hash_probe_seen(f) = true\n"
    "  }\n"
    "  action hash_probe(f: faction, n: int in 1..3) {\n"
    "    effect { set hash_probe_total = n }\n"
    "  }\n"
    "}\n";

static strbuf diag_text;

static void on_message(void *ud, int level, const char *text) {
  (void)ud;
  (void)level;
  sb_puts(&diag_text, text);
}

static int cmpstr(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The .rules files of DIR, sorted, appended to LIST (as mt_rules_load lists the pack). */
static void list_dir(const char *dir, char **list, int *n, int cap) {
  DIR *d = opendir(dir);
  assert_non_null(d);
  int first = *n;
  struct dirent *e;
  while ((e = readdir(d)) && *n < cap) {
    size_t len = strlen(e->d_name);
    if (len > 6 && !strcmp(e->d_name + len - 6, ".rules")) {
      strbuf b = {0};
      sb_printf(&b, "%s/%s", dir, e->d_name);
      list[(*n)++] = sb_take(&b);
    }
  }
  closedir(d);
  qsort(list + first, (size_t)(*n - first), sizeof *list, cmpstr);
}

/* The standard pack, Basic, with the extra file first when WITH_EXTRA. */
static mt_rules *pack(bool with_extra) {
  char *files[256];
  int n = 0;
  if (with_extra) {
    FILE *f = fopen(EXTRA, "w");
    assert_non_null(f);
    fputs(extra_rules, f);
    fclose(f);
    files[n++] = mt_strdup(EXTRA);
  }
  list_dir("rules", files, &n, 256);
  list_dir("factions", files, &n, 256);
  mt_load L = {.components = ".", .files = (const char *const *)files, .nfiles = n, .message = on_message};
  mt_rules *r = mt_rules_load(&L);
  for (int i = 0; i < n; i++) mt_free(files[i]);
  if (!r) fail_msg("%s", diag_text.s ? diag_text.s : "the pack does not compile");
  return r;
}

static uint64_t lcg(void *ctx) {
  uint64_t *x = ctx;
  *x = *x * 6364136223846793005ull + 1442695040888963407ull;
  return *x >> 11;
}

/* Plays a Basic game in both packs, the same answers in both (sampled in
 * the first, given by text to the second), for up to 400 decisions: the
 * hashes agree at every decision, differ from one decision to the next,
 * and the raw hash (the layout's bytes) does not agree. */
static void basic_game_ignores_unplayed_rules(void **state) {
  (void)state;
  mt_rules *ra = pack(false), *rb = pack(true);
  assert_true(rb->prog.nfuncs > ra->prog.nfuncs); /* the extra code is compiled, and before the pack's */
  assert_true(rb->prog.nrules > ra->prog.nrules);
  char err[256];
  mt_game *a = mt_game_new(ra, NULL, 0, 11, err, sizeof err), *b = mt_game_new(rb, NULL, 0, 11, err, sizeof err);
  assert_non_null(a);
  assert_non_null(b);
  assert_true(mt_state_size(b) > mt_state_size(a));
  assert_int_equal(mt_hash(a), mt_hash(b)); /* not started */
  assert_int_equal(mt_start(a), MT_WAITING);
  assert_int_equal(mt_start(b), MT_WAITING);
  uint64_t rng = 5, before = 0;
  int decisions = 0, frames = 0, raw_differs = 0;
  while (mt_status(a) == MT_WAITING && decisions < 400) {
    uint64_t ha = mt_hash(a), hb = mt_hash(b);
    if (ha != hb) fail_msg("decision %d: hashes %016llx and %016llx", decisions, (unsigned long long)ha, (unsigned long long)hb);
    if (decisions > 0 && ha == before) fail_msg("decision %d: the position changed, the hash did not", decisions);
    raw_differs += mt_hash_raw(a) != mt_hash_raw(b);
    if (a->v.vs->nframes > frames) frames = a->v.vs->nframes;
    before = ha;
    mt_choice c;
    assert_int_equal(mt_sample(a, lcg, &rng, &c), 1);
    char text[512];
    mt_choice_format(a, &c, text, sizeof text);
    mt_choice cb = c; /* the same answer: its values are entities of the data; the action by name */
    if (c.action >= 0) {
      cb.action = -1;
      for (int i = 0; i < rb->prog.nactions; i++)
        if (!strcmp(rb->prog.actions[i].name, ra->prog.actions[c.action].name)) cb.action = i;
      assert_true(cb.action >= 0);
    }
    mt_explain why;
    int sa = mt_apply(a, &c, &why), sb = mt_apply(b, &cb, &why);
    if (sa != sb) fail_msg("decision %d: '%s' gives %d and %d: %s", decisions, text, sa, sb, why.text);
    decisions++;
  }
  assert_true(decisions >= 200);
  assert_true(frames >= 3); /* the hash met suspended rules below the top */
  assert_int_equal(raw_differs, decisions); /* the layout's bytes, as the hash once was, never agree */
  assert_int_equal(mt_hash(a), mt_hash(b));
  /* one more answer in one game: different positions, different hashes */
  if (mt_status(a) == MT_WAITING) {
    mt_choice c;
    assert_int_equal(mt_sample(a, lcg, &rng, &c), 1);
    mt_explain why;
    mt_apply(a, &c, &why);
    assert_int_not_equal(mt_hash(a), mt_hash(b));
  }
  mt_game_free(a);
  mt_game_free(b);
  mt_rules_free(ra);
  mt_rules_free(rb);
}

/* A variable the rules declare counts once it leaves its initial value,
 * whatever the pack around it. */
static void a_changed_variable_counts(void **state) {
  (void)state;
  mt_rules *rb = pack(true);
  char err[256];
  mt_game *g = mt_game_new(rb, NULL, 0, 3, err, sizeof err);
  assert_non_null(g);
  uint64_t h0 = mt_hash(g);
  int64_t x;
  int ty;
  strbuf e = {0};
  assert_true(game_eval(g, "hash_probe_total", &x, &ty, &e));
  assert_int_equal(x, 7);
  int var = -1;
  for (int i = 0; i < rb->prog.nvars; i++)
    if (!strcmp(rb->prog.vars[i].name, "hash_probe_total")) var = rb->prog.vars[i].board_var;
  assert_true(var >= 0);
  assert_int_equal(board_var_set(g->L, g->v.st, var, 0, 0, 8), BOARD_OK);
  assert_int_not_equal(mt_hash(g), h0);
  assert_int_equal(board_var_set(g->L, g->v.st, var, 0, 0, 7), BOARD_OK);
  assert_int_equal(mt_hash(g), h0);
  sb_free(&e);
  mt_game_free(g);
  mt_rules_free(rb);
}

static int teardown(void **state) {
  (void)state;
  sb_free(&diag_text);
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(basic_game_ignores_unplayed_rules),
      cmocka_unit_test(a_changed_variable_counts),
  };
  return cmocka_run_group_tests_name("hash", tests, NULL, teardown);
}
