/* fuzz_save.c -- libFuzzer target for saved positions of the standard pack
 * (rules/ and factions/, loaded once: run from the repository root).
 *
 * Each input is loaded as a saved position.  When it loads, it is used the
 * way the console and the bots use a game: the pending decision and its
 * prompt, the legal answers (listed, the k-th, sampled) and their text, the
 * hash, the winners; it is saved and loaded again, which must give the same
 * text and hash; then it is resumed for a bounded number of decisions with
 * legal answers.  A crash, a sanitizer report, a hang or a broken round trip
 * is a finding.  Replayed by tests/fuzz/replay.c in make test.
 *
 * Seeds (tests/fuzz/seeds/save): positions the console saved from games of
 * the basic rules -- `new seed=3`, then `run step` N times and `save` (N = 0
 * a game not started, 1 a secret prediction, 3 a traitor pick, 11 the first
 * storm dial, 44 charity, 57 a Karama prevention asked inside an ability,
 * 112 the aggressor's territory, 116 a battle wheel dial, 125 a battle plan,
 * 123 the Voice mid-battle, 226 an ally's card price, 283 a Ghola revival,
 * 431 a Karama cancellation, 583 Prescience, 586 a battle action ten frames
 * deep, 31 a shipment, 148 a bid, 700 a finished game); `phase bidding`
 * (paused before a phase); two- and three-faction games after a turn; a
 * one-use cancellation in force (sampled game of seed 2, step 94); and the
 * out-of-range positions of issue 9 (90-94). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static mt_rules *R;

static void discard(void *ud, int level, const char *text) {
  (void)ud;
  (void)level;
  (void)text;
}
static void discard_diag(void *ud, diag_level level, const char *text) {
  (void)ud;
  (void)level;
  (void)text;
}

static uint64_t lcg(void *ctx) {
  uint64_t *x = ctx;
  *x = *x * 6364136223846793005ull + 1442695040888963407ull;
  return *x >> 11;
}

static void free_rules(void) { mt_rules_free(R); }

static mt_game *load(const char *text, size_t len) {
  diag *d = diag_new(discard_diag, NULL);
  mt_game *g = game_load_text(R, d, "fuzz.yaml", text, len);
  diag_free(d);
  return g;
}

/* What the console's `show` and `winner` read: the decision, the winners. */
static void look(mt_game *g) {
  const mt_decision *d = mt_pending(g);
  if (d && (!d->faction || !d->prompt || !d->rule)) abort();
  (void)mt_hash(g);
  const program *p = &R->prog;
  for (int i = 0; i < p->nvars; i++) {
    const var_rec *vr = &p->vars[i];
    if (strcmp(vr->name, "winners") && strcmp(vr->name, "victory")) continue;
    int64_t x = (uint32_t)board_var_get(g->L, g->v.st, vr->board_var, 0, 0);
    strbuf b = {0};
    vm_format_value(&g->v, vr->type, vr->type & TY_SETBIT ? x : (int32_t)x, &b);
    sb_free(&b);
  }
  if (mt_status(g) == MT_FAILED) (void)mt_error(g);
}

/* Saving and loading again keeps the text and the hash.  STRICT: the
 * position must load again (it is one that loaded).  After resuming, a value
 * the check could not type (an integer slot the file set to nonsense) may
 * have flowed into a typed variable, so the save may be refused: that is not
 * a finding, only a crash or a changed position is. */
static void round_trip(const mt_game *g, bool strict) {
  char *a = NULL, *b = NULL;
  mt_save_position(g, &a);
  mt_game *h = load(a, strlen(a));
  if (!h) {
    if (strict) abort(); /* a position that loaded saves into one that does not */
    free(a);
    return;
  }
  mt_save_position(h, &b);
  if (strcmp(a, b) || mt_hash(h) != mt_hash(g)) abort();
  free(a);
  free(b);
  mt_game_free(h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!R) {
    mt_load L = {.components = ".", .message = discard}; /* the console's default rules (basic), as the seeds were saved */
    R = mt_rules_load(&L);
    if (!R) abort(); /* not a finding: the harness runs from the wrong directory */
    atexit(free_rules);
  }
  mt_game *g = load((const char *)data, size);
  if (!g) return 0;
  look(g);
  round_trip(g, true);
  uint64_t rng = size;
  int st = mt_status(g);
  if (st == 0) st = mt_start(g); /* a game that has not started: from its setup */
  else if (st == MT_PAUSED) st = vm_run(&g->v);
  for (int i = 0; i < 24 && st == MT_WAITING; i++) {
    mt_choice c[16];
    char text[256];
    size_t n = mt_legal_upto(g, c, 16);
    for (size_t k = 0; k < n && k < 16; k++) mt_choice_format(g, &c[k], text, sizeof text);
    if (n == 0) break;
    mt_choice pick = c[0];
    if (i % 3 == 1 && mt_sample(g, lcg, &rng, &pick) != 1) abort(); /* there is a legal answer */
    if (i % 3 == 2 && n > 1 && mt_legal_nth(g, n > 16 ? 16 : n - 1, &pick) != 1) abort();
    st = mt_apply(g, &pick, NULL);
    if (st < 0) break; /* refused (the rules nest too deeply for it, say): the game stays */
    look(g);
  }
  round_trip(g, false);
  mt_game_free(g);
  return 0;
}
