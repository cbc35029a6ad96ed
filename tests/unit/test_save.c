/* test_save.c -- saved positions of the standard pack: what the console
 * saves loads back identically, and a position whose VM words or variables
 * are out of range is refused at the offending value, never resumed.
 * Runs from the repository root (the pack is rules/ and factions/). */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fcntl.h>
#include <unistd.h>

#include "game.h"
#include "scratch.h"
#include "opcodes.h"
#include "repl.h"
#include "pack_fixture.h"

static int group_setup(void **state) {
  (void)state;
  return pack_setup(1);
}

static uint64_t lcg(void *ctx) {
  uint64_t *x = ctx;
  *x = *x * 6364136223846793005ull + 1442695040888963407ull;
  return *x >> 11;
}

/* Writes TEXT to test_save.yaml (scratch.h) and loads it; diagnostics in diag_text. */
static mt_game *load_text(const char *text) {
  FILE *f = fopen(scratch("test_save.yaml"), "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  diag_text.n = 0;
  if (diag_text.s) diag_text.s[0] = 0;
  return mt_load_position(R, scratch("test_save.yaml"));
}

static char *save_text(const mt_game *g) {
  char *t = NULL;
  mt_save_position(g, &t);
  return t;
}

/* Loads TEXT and expects a refusal whose first message contains NEEDLE. */
static void refused(const char *text, const char *needle) {
  mt_game *g = load_text(text);
  if (g) {
    mt_game_free(g);
    fail_msg("loaded, but should be refused (%s):\n%s", needle, text);
  }
  if (!strstr(diag_text.s ? diag_text.s : "", needle)) fail_msg("expected '%s' in:\n%s", needle, diag_text.s ? diag_text.s : "");
}

/* A game of factions FAC (NULL: all) played with the sampler for STEPS decisions. */
static mt_game *played(const char *const *fac, int nfac, uint64_t seed, int steps) {
  char err[128];
  mt_game *g = mt_game_new(R, fac, nfac, seed, err, sizeof err);
  assert_non_null(g);
  int st = mt_start(g);
  uint64_t rng = seed;
  for (int i = 0; i < steps && st == MT_WAITING; i++) {
    mt_choice c;
    assert_true(mt_sample(g, lcg, &rng, &c));
    st = mt_apply(g, &c, NULL);
    assert_true(st >= 0);
  }
  return g;
}

/* ---- the continuation ------------------------------------------------------------------- */

/* The reproducer of issue 9: a waiting game with a million frames.  Where the
 * VM's state starts among the words depends on the layout (it is 8-byte
 * aligned), so the first word the check refuses is either the status (then
 * the frame count) or a padding word; refuses_each_bad_word places each field
 * exactly. */
static void refuses_a_million_frames(void **state) {
  (void)state;
  char at[4400];
  snprintf(at, sizeof at, "%s:3:", scratch("test_save.yaml"));
  refused("mentat_state: 1\nfactions: [atreides, fremen]\nvm: [2, 0, 1000000]\n", at);
  assert_true(strstr(diag_text.s, "vm word 2: frame count 1000000") || strstr(diag_text.s, "vm word 0: a padding word"));
}

/* Where a vm_state field lies among the saved words of G. */
static int word_of(const mt_game *g, size_t off) {
  const unsigned char *ext = (const unsigned char *)board_ext(g->L, g->v.st);
  return (int)(((const unsigned char *)g->v.vs - ext + (long)off) / 4);
}

/* TEXT with vm word K replaced by VALUE; *LINE and *COL receive where it is. */
static char *with_word(const char *text, int k, long long value, int *line, int *col) {
  const char *vm_line = strstr(text, "\nvm: [");
  assert_non_null(vm_line);
  vm_line += 1;
  *line = 1;
  for (const char *q = text; q < vm_line; q++) *line += *q == '\n';
  const char *p = vm_line + 5;
  for (int i = 0; i < k; i++) {
    p = strchr(p, ',');
    assert_non_null(p);
    p += 2;
  }
  const char *e = p + strcspn(p, ",]");
  *col = (int)(p - vm_line) + 1;
  size_t n = strlen(text) + 32;
  char *out = malloc(n);
  snprintf(out, n, "%.*s%lld%s", (int)(p - text), text, value, e);
  return out;
}

static void refuse_word(const mt_game *g, const char *text, size_t off, long long value, const char *what) {
  int line, col;
  int k = word_of(g, off);
  char *t = with_word(text, k, value, &line, &col);
  char needle[96];
  snprintf(needle, sizeof needle, "test_save.yaml:%d:%d: error: vm word %d", line, col, k);
  mt_game *h = load_text(t);
  if (h) {
    mt_game_free(h);
    fail_msg("%s = %lld (word %d) was accepted", what, value, k);
  }
  if (!strstr(diag_text.s, needle)) fail_msg("%s = %lld: expected '%s' in:\n%s", what, value, needle, diag_text.s);
  free(t);
}

/* Whether a frame of G's continuation has a live slot holding a faction or a territory (its
 * kind known to the verifier). */
static bool typed_slot(const mt_game *g) {
  const program *p = &R->prog;
  const vm_state *vs = g->v.vs;
  for (int i = 0; i < vs->nframes; i++)
    for (int r = 0; r < p->nresume; r++) {
      const resume_point *rp = &p->resume[r];
      if (rp->fn != vs->frames[i].fn || rp->pc != (uint32_t)vs->frames[i].pc) continue;
      for (int s = 0; s < rp->depth; s++)
        if (p->resume_kinds[rp->kinds + s] == TY_FACTION || p->resume_kinds[rp->kinds + s] == TY_TERRITORY) return true;
    }
  return false;
}

#define FIELD(f) offsetof(vm_state, f)
#define FRAME(i, f) (offsetof(vm_state, frames) + (size_t)(i) * sizeof(vm_frame) + offsetof(vm_frame, f))

/* Every field of a waiting game's continuation, set out of range or out of
 * step with the code, is refused at its word. */
static void refuses_each_bad_word(void **state) {
  (void)state;
  const char *fac[] = {"atreides", "fremen", "harkonnen"};
  /* a waiting position a few frames deep with a live slot of a kind the verifier knows (the
   * first such after 120 decisions: which decision that is depends on the rules) */
  mt_game *g = NULL;
  for (int n = 120; n < 600 && !g; n++) {
    g = played(fac, 3, 11, n);
    if (mt_status(g) != MT_WAITING || g->v.vs->nframes < 2 || !typed_slot(g)) {
      mt_game_free(g);
      g = NULL;
    }
  }
  assert_non_null(g);
  const vm_state *vs = g->v.vs;
  assert_true(vs->nframes >= 2);
  char *text = save_text(g);
  int top = vs->nframes - 1;
  refuse_word(g, text, FIELD(status), 7, "status");
  refuse_word(g, text, FIELD(status), VM_RUNNING, "status");
  refuse_word(g, text, FIELD(sp), vs->sp + 1, "sp");
  refuse_word(g, text, FIELD(sp), -1, "sp");
  refuse_word(g, text, FIELD(sp), 100000, "sp");
  refuse_word(g, text, FIELD(nframes), VM_FRAMES + 1, "nframes");
  refuse_word(g, text, FIELD(ncancel), VM_CANCELS + 1, "ncancel");
  refuse_word(g, text, FIELD(ncancel), -3, "ncancel");
  refuse_word(g, text, FIELD(phase_rule), 99999, "phase_rule");
  refuse_word(g, text, FIELD(secret), 2, "secret");
  refuse_word(g, text, FIELD(err_code), VE_RANGE, "err_code");
  refuse_word(g, text, FRAME(top, pc), vs->frames[top].pc + 1, "top pc");
  refuse_word(g, text, FRAME(top, pc), 1000000, "top pc");
  refuse_word(g, text, FRAME(top, pc), -5, "top pc");
  refuse_word(g, text, FRAME(top, fn), 99999, "top fn");
  refuse_word(g, text, FRAME(top, fn), vs->frames[top].fn + 1, "top fn");
  refuse_word(g, text, FRAME(top - 1, pc), vs->frames[top - 1].pc + 5, "caller pc");
  refuse_word(g, text, FRAME(0, base), 3, "first base");
  refuse_word(g, text, FIELD(dec.kind), vs->dec.kind == DEC_MAY ? DEC_ASK : DEC_MAY, "decision kind");
  refuse_word(g, text, FIELD(dec.kind), 17, "decision kind");
  refuse_word(g, text, FIELD(dec.faction), 99, "decision faction");
  refuse_word(g, text, FIELD(dec.faction), board_faction_index(R->def, "emperor"), "absent decision faction");
  refuse_word(g, text, FIELD(dec.prompt), 99999, "prompt");
  refuse_word(g, text, FIELD(dec.list), 99999, "action list");
  refuse_word(g, text, FIELD(dec.hole_types), 99999, "hole types");
  refuse_word(g, text, FIELD(dec.nholes), 9, "holes");
  refuse_word(g, text, FIELD(dec.rule), 99999, "decision rule");
  /* a live slot whose kind the verifier knows, set out of its domain */
  const program *p = &R->prog;
  int found = 0;
  for (int i = 0; i < vs->nframes && !found; i++)
    for (int r = 0; r < p->nresume && !found; r++) {
      const resume_point *rp = &p->resume[r];
      if (rp->fn != vs->frames[i].fn || rp->pc != (uint32_t)vs->frames[i].pc) continue;
      for (int s = 0; s < rp->depth && !found; s++)
        if (p->resume_kinds[rp->kinds + s] == TY_FACTION || p->resume_kinds[rp->kinds + s] == TY_TERRITORY) {
          refuse_word(g, text, offsetof(vm_state, stack) + (size_t)(vs->frames[i].base + s) * 8, 4000, "slot");
          found = 1;
        }
    }
  assert_true(found);
  free(text);
  mt_game_free(g);
}

/* A position without `vm` is a game that has not started: no stop set. */
static void no_vm_is_a_fresh_game(void **state) {
  (void)state;
  mt_game *g = load_text("mentat_state: 1\nfactions: [atreides, fremen]\n");
  if (!g) fail_msg("%s", diag_text.s);
  assert_int_equal(mt_status(g), 0);
  assert_int_equal(g->v.vs->seek_phase, -1);
  assert_int_equal(g->v.vs->stop_phase_end, -1);
  assert_int_equal(g->v.vs->stop_turn, -1);
  /* the rules' variables the file does not give start at their declared (or computed) values */
  char *t = save_text(g);
  assert_non_null(strstr(t, "\n  high_bidder: none\n"));
  assert_non_null(strstr(t, "\n  game_length: 10\n"));
  assert_non_null(strstr(t, "\n  limited_areas: [carthag, arrakeen, tueks_sietch, sietch_tabr, habbanya_sietch]\n"));
  assert_non_null(strstr(t, "\n      seat: -1\n"));
  free(t);
  mt_game_free(g);
}

/* Real positions at many moments of seeded games: each live continuation
 * passes the check, and save -> load -> save gives the same text and hash. */
static void real_positions_round_trip(void **state) {
  (void)state;
  static const char *const sets[][6] = {{"atreides", "fremen"}, {"harkonnen", "emperor", "bene_gesserit"}, {NULL}};
  for (int k = 0; k < 3; k++) {
    int nf = 0;
    while (k < 2 && nf < 6 && sets[k][nf]) nf++;
    char err[128];
    mt_game *g = mt_game_new(R, k < 2 ? sets[k] : NULL, k < 2 ? nf : 0, (uint64_t)(20 + k), err, sizeof err);
    int st = mt_start(g);
    uint64_t rng = (uint64_t)k;
    for (int i = 0; st == MT_WAITING || i == 0; i++) {
      strbuf why = {0};
      long off = vm_check_state(&g->v, &why);
      if (off >= 0) fail_msg("game %d step %d: the live continuation is refused at %ld: %s", k, i, off, why.s);
      sb_free(&why);
      if (i % 37 == 0 || st != MT_WAITING) {
        char *a = save_text(g);
        mt_game *h = load_text(a);
        if (!h) fail_msg("game %d step %d: refused:\n%s", k, i, diag_text.s);
        char *b = save_text(h);
        assert_string_equal(a, b);
        assert_int_equal(mt_hash(h), mt_hash(g));
        free(a);
        free(b);
        mt_game_free(h);
      }
      if (st != MT_WAITING) break;
      mt_choice c;
      assert_true(mt_sample(g, lcg, &rng, &c));
      st = mt_apply(g, &c, NULL);
      assert_true(st >= 0);
    }
    mt_game_free(g);
  }
}

/* A paused game whose phase count the file put at the int32 limit resumes
 * without overflowing it (the count saturates). */
static void phase_count_at_the_limit(void **state) {
  (void)state;
  char err[64];
  mt_game *g = mt_game_new(R, NULL, 0, 3, err, sizeof err);
  vm_state *vs = g->v.vs;
  vs->seek_phase = -1;
  for (int r = 0; r < R->prog.nrules && vs->seek_phase < 0; r++)
    if (R->prog.rules[r].name && !strcmp(R->prog.rules[r].name, "bidding_phase")) vs->seek_phase = r;
  vs->seek_turn = 1;
  vm_start(&g->v);
  assert_int_equal(mt_status(g), MT_PAUSED);
  char *text = save_text(g);
  int line, col;
  char *t = with_word(text, word_of(g, FIELD(phase_seq)), INT32_MAX, &line, &col);
  mt_game *h = load_text(t);
  if (!h) fail_msg("%s", diag_text.s);
  vm_run(&h->v);
  assert_int_equal(h->v.vs->phase_seq, INT32_MAX);
  free(t);
  free(text);
  mt_game_free(h);
  mt_game_free(g);
}

/* ---- rule variables --------------------------------------------------------------------------- */

#define HEAD "mentat_state: 1\nfactions: [atreides, fremen]\n"

/* Values out of their declared type are refused where they are written. */
static void refuses_values_outside_their_type(void **state) {
  (void)state;
  refused(HEAD "variables: { winners: -1 }\n", "test_save.yaml:3:23: error: expected a sequence for a set");
  refused(HEAD "variables: { winners: 4096 }\n", "test_save.yaml:3:23: error: expected a sequence for a set");
  refused(HEAD "variables: { winners: [fremen, emperor] }\n", "test_save.yaml:3:32: error: faction 'emperor' is not in this game");
  refused(HEAD "variables: { winners: [none] }\n", "test_save.yaml:3:24: error: none is not a member of a set");
  refused(HEAD "variables: { high_bidder: 99 }\n", "test_save.yaml:3:27: error: unknown faction '99'");
  refused(HEAD "variables: { high_bidder: harkonnen }\n", "test_save.yaml:3:27: error: faction 'harkonnen' is not in this game");
  refused(HEAD "variables: { victory: 99999 }\n", "test_save.yaml:3:23: error: '99999' is not a value of victory");
  refused(HEAD "variables: { worm_territory: 2 }\n", "test_save.yaml:3:30: error: unknown territory '2'");
  refused(HEAD "variables: { wormsign_seen: shield#9 }\n", "test_save.yaml:3:29: error: unknown card 'shield#9'");
  refused(HEAD "variables: { bought_in: 3 }\n", "test_save.yaml:3:25: error: expected true or false for bought_in");
  refused(HEAD "variables: { limited_areas: [arrakeen, nowhere] }\n", "test_save.yaml:3:40: error: unknown territory 'nowhere'");
  refused(HEAD "variables: { deaths: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1] }\n",
          "test_save.yaml:3:113: error: 'deaths' has only 30 values");
  refused(HEAD "per_faction:\n  atreides:\n    variables: { plan_leader: feyd_rautha }\n",
          "test_save.yaml:5:31: error: leader 'feyd_rautha' belongs to faction 'harkonnen', which is not in this game");
  refused(HEAD "per_faction:\n  fremen:\n    variables: { ship_sponsor: bene_gesserit }\n",
          "test_save.yaml:5:32: error: faction 'bene_gesserit' is not in this game");
}

/* References are written as ids (none for none), sets as lists of ids, and
 * read back to the same state. */
static void references_are_saved_as_ids(void **state) {
  (void)state;
  mt_game *g = load_text(HEAD "variables:\n  winners: [fremen]\n  victory: 1.09.02\n  worm_territory: arrakeen\n"
                              "  high_bidder: atreides\n  wormsign_seen: shield#2\n  limited_areas: [carthag, arrakeen]\n"
                              "per_faction:\n  fremen: { variables: { plan_leader: stilgar, ship_sponsor: none } }\n");
  if (!g) fail_msg("%s", diag_text.s);
  char *t = save_text(g);
  assert_non_null(strstr(t, "\n  winners: [fremen]\n"));
  assert_non_null(strstr(t, "\n  victory: 1.09.02\n"));
  assert_non_null(strstr(t, "\n  worm_territory: arrakeen\n"));
  assert_non_null(strstr(t, "\n  high_bidder: atreides\n"));
  assert_non_null(strstr(t, "\n  wormsign_seen: shield#2\n"));
  assert_non_null(strstr(t, "\n  limited_areas: [carthag, arrakeen]\n"));
  assert_non_null(strstr(t, "\n  auction_opener: none\n"));
  assert_non_null(strstr(t, "\n      plan_leader: stilgar\n"));
  mt_game *h = load_text(t);
  if (!h) fail_msg("%s", diag_text.s);
  char *u = save_text(h);
  assert_string_equal(t, u);
  assert_int_equal(mt_hash(g), mt_hash(h));
  free(t);
  free(u);
  mt_game_free(g);
  mt_game_free(h);
}

/* ---- console edits ---------------------------------------------------------------------------- */

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  strbuf b = {0};
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) sb_putn(&b, buf, n);
  fclose(f);
  return sb_take(&b);
}

/* Runs console SCRIPT (stdout to test_save.out); returns the output.  In
 * SCRIPT, each '@' stands for the scratch directory (scratch.h). */
static char *console(const char *script) {
  strbuf text = {0};
  const char *dir = scratch("");
  for (const char *p = script; *p; p++)
    if (*p == '@') sb_puts(&text, dir);
    else sb_putc(&text, *p);
  FILE *f = fopen(scratch("test_save.mentat"), "w");
  assert_non_null(f);
  fputs(text.s, f);
  fclose(f);
  sb_free(&text);
  fflush(stdout);
  int saved = dup(1), fd = open(scratch("test_save.out"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  assert_true(saved >= 0 && fd >= 0);
  dup2(fd, 1);
  close(fd);
  char a0[] = "repl", a1[4400];
  snprintf(a1, sizeof a1, "%s", scratch("test_save.mentat"));
  char *argv[] = {a0, a1, NULL};
  repl_main(2, argv, ".");
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
  return slurp(scratch("test_save.out"));
}

/* The hash the console printed after TAG ("saved to X (state hash H)"). */
static unsigned long long hash_after(const char *out, const char *tag) {
  const char *p = strstr(out, tag);
  if (!p || !(p = strstr(p, "state hash "))) return 0;
  return strtoull(p + 11, NULL, 16);
}

/* After each console edit, save -> load -> save gives the same text and the
 * same hash: what the console lets a position hold, a save keeps. */
static void console_edits_round_trip(void **state) {
  (void)state;
  static const char *const edits[] = {
      "put harkonnen 5 arrakeen",
      "put emperor 3 sardaukar sietch_tabr",
      "clear all",
      "tanks emperor 4",
      "reserves emperor 2 sardaukar",
      "spice harkonnen 25",
      "spice the_great_flat 8",
      "give emperor karama lasgun",
      "give harkonnen shield into hand",
      "hand bene_gesserit baliset",
      "give emperor thufir_hawat",        /* an Atreides traitor card: Atreides do not play */
      "give harkonnen piter_de_vries into traitors",
      "leader jamis tanks_face_down",     /* a Fremen leader: Fremen do not play */
      "leader feyd_rautha tanks_face_up",
      "stack treachery lasgun shield",
      "discard spice the_great_flat",
      "storm 7",
      "turn 3",
      "ally emperor harkonnen",
      "set winners = {emperor}",
      "set high_bidder = harkonnen",
      "set worm_territory = arrakeen",
      "set plan_leader(emperor) = bashar",
      "phase bidding",
      "run step",
      "run phase",
  };
  const char *head = "new factions=emperor,harkonnen,bene_gesserit,spacing_guild seed=5\n";
  for (size_t i = 0; i < sizeof edits / sizeof *edits; i++) {
    char script[1024];
    snprintf(script, sizeof script,
             "%s%s\nsave @test_save_a.yaml\nload @test_save_a.yaml\nsave @test_save_b.yaml\n", head,
             edits[i]);
    remove(scratch("test_save_a.yaml"));
    remove(scratch("test_save_b.yaml"));
    char *out = console(script);
    bool refused_edit = strstr(edits[i], "thufir") || strstr(edits[i], "jamis"); /* see the next test */
    if (!strstr(out, refused_edit ? "test_save.mentat: 1 failed" : "test_save.mentat: 0 failed"))
      fail_msg("'%s' %s:\n%s", edits[i], refused_edit ? "was not refused" : "failed", out);
    char *a = slurp(scratch("test_save_a.yaml")), *b = slurp(scratch("test_save_b.yaml"));
    if (!a || !b) fail_msg("'%s': no save\n%s", edits[i], out);
    if (strcmp(a, b)) fail_msg("'%s': the saves differ\n%s", edits[i], out);
    unsigned long long h1 = hash_after(out, "test_save_a.yaml (state hash"),
                       h2 = hash_after(out, "loaded "),
                       h3 = hash_after(out, "test_save_b.yaml (state hash");
    if (!h1 || h1 != h2 || h2 != h3) fail_msg("'%s': hashes %llx %llx %llx\n%s", edits[i], h1, h2, h3, out);
    free(a);
    free(b);
    free(out);
  }
}

/* The console refuses what a save could not hold, and says why; a load it
 * refuses leaves the game as it was. */
static void console_refuses_absent_factions(void **state) {
  (void)state;
  char *out = console("new factions=emperor,harkonnen seed=5\n"
                      "give emperor thufir_hawat\nexpect error thufir_hawat belongs to atreides, which is not in this game\n"
                      "leader jamis tanks_face_down\nexpect error jamis belongs to fremen, which is not in this game\n"
                      "save @test_save_a.yaml\n");
  if (!strstr(out, "test_save.mentat: 0 failed")) fail_msg("%s", out);
  free(out);
  FILE *f = fopen(scratch("test_save_bad.yaml"), "w");
  assert_non_null(f);
  fputs("mentat_state: 1\nfactions: [atreides, fremen]\nvm: [2, 0, 1000000]\n", f);
  fclose(f);
  out = console("load @test_save_a.yaml\nload @test_save_bad.yaml\nexpect error could not load\n"
                "save @test_save_b.yaml\n");
  if (!strstr(out, "test_save.mentat: 0 failed")) fail_msg("%s", out);
  assert_true(hash_after(out, "loaded ") == hash_after(out, "test_save_b.yaml (state hash"));
  free(out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(refuses_a_million_frames),
      cmocka_unit_test(refuses_each_bad_word),
      cmocka_unit_test(no_vm_is_a_fresh_game),
      cmocka_unit_test(real_positions_round_trip),
      cmocka_unit_test(phase_count_at_the_limit),
      cmocka_unit_test(refuses_values_outside_their_type),
      cmocka_unit_test(references_are_saved_as_ids),
      cmocka_unit_test(console_edits_round_trip),
      cmocka_unit_test(console_refuses_absent_factions),
  };
  return cmocka_run_group_tests_name("save", tests, group_setup, group_teardown);
}
