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
 * An input that starts with the byte 0xF7 patches the vm words of a
 * position the harness played itself (see patched()).
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
 * out-of-range positions of issue 9 (90-94); patches (p0-p5) that set a
 * status, a frame's pc, a stack slot, the decision's faction; patches the
 * fuzzer found that load and then fail (a faction not in the game, an
 * overflow, a value out of range), pause, finish or wait (p6-pb). */
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

/* ---- word patches ----------------------------------------------------------
 * Text mutations rarely keep a continuation the check accepts, so an input
 * may instead patch the vm words of a real position: 0xF7, the position's
 * index in a bank played when the harness starts, then 7-byte patches (word
 * index u16, mode u8, value i32; mode bit 0: add the value to the word, else
 * set it). */
#define BANK 40
static char *bank[BANK];
static int nbank;

static void bank_add(const mt_game *g) {
  if (nbank < BANK) mt_save_position(g, &bank[nbank++]);
}

static void free_bank(void) {
  for (int i = 0; i < nbank; i++) free(bank[i]);
}

/* Positions of sampled games at many moments, a paused one and a new one. */
static void fill_bank(void) {
  static const int at[] = {1, 3, 8, 14, 30, 45, 60, 80, 100, 120, 150, 200, 260, 330, 400, 500};
  const char *two[] = {"atreides", "fremen"};
  for (int s = 1; s <= 3; s++) {
    char err[128];
    mt_game *g = mt_game_new(R, s == 3 ? two : NULL, s == 3 ? 2 : 0, (uint64_t)s, err, sizeof err);
    if (s == 1) bank_add(g);
    int st = mt_start(g);
    uint64_t rng = (uint64_t)s;
    for (int i = 0, k = 0; st == MT_WAITING && i < 600; i++) {
      if (k < (int)(sizeof at / sizeof *at) && i == at[k]) bank_add(g), k++;
      mt_choice c;
      if (!mt_sample(g, lcg, &rng, &c)) break;
      st = mt_apply(g, &c, NULL);
    }
    bank_add(g); /* at the end, or where it stopped */
    mt_game_free(g);
  }
  char err[128];
  mt_game *g = mt_game_new(R, NULL, 0, 4, err, sizeof err);
  for (int r = 0; r < R->prog.nrules; r++)
    if (R->prog.rules[r].form == RF_PHASE && R->prog.rules[r].name && !strcmp(R->prog.rules[r].name, "battle_phase"))
      g->v.vs->seek_phase = r;
  g->v.vs->seek_turn = 2;
  vm_start(&g->v);
  bank_add(g); /* paused before the battles of turn 2 */
  mt_game_free(g);
  atexit(free_bank);
}

/* The text of bank position DATA[1] with DATA's patches applied to its vm words. */
static char *patched(const uint8_t *data, size_t size) {
  const char *text = bank[data[1] % nbank];
  const char *words = strstr(text, "\nvm: [");
  if (!words) abort();
  words += 6;
  int32_t w[1100];
  int n = 0;
  for (const char *q = words; *q && *q != ']' && n < 1100; n++) {
    char *end;
    w[n] = (int32_t)strtol(q, &end, 10);
    q = end;
    while (*q == ',' || *q == ' ') q++;
  }
  for (size_t i = 2; i + 7 <= size && n; i += 7) {
    int k = (data[i] | data[i + 1] << 8) % n;
    int32_t v;
    memcpy(&v, data + i + 3, 4);
    w[k] = data[i + 2] & 1 ? (int32_t)((uint32_t)w[k] + (uint32_t)v) : v;
  }
  strbuf b = {0};
  sb_printf(&b, "%.*s", (int)(words - text), text);
  for (int i = 0; i < n; i++) sb_printf(&b, "%s%d", i ? ", " : "", w[i]);
  sb_puts(&b, "]\n");
  return sb_take(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!R) {
    mt_load L = {.components = ".", .message = discard}; /* the console's default rules (basic), as the seeds were saved */
    R = mt_rules_load(&L);
    if (!R) abort(); /* not a finding: the harness runs from the wrong directory */
    atexit(free_rules);
    fill_bank();
  }
  mt_game *g;
  if (size >= 2 && data[0] == 0xF7) {
    char *t = patched(data, size);
    g = load(t, strlen(t));
    free(t);
  } else {
    g = load((const char *)data, size);
  }
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
