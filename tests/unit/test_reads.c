/* test_reads.c -- the read sets of reads.c are sound: a function gives the
 * same answer in any two states that agree on everything it is said to read.
 *
 * Positions come from random Advanced games of the standard pack (and of
 * the WBC 2022 variant).  For pairs of them, X and Y, a hybrid is made: Y,
 * with the parts function F reads taken from X.  F must then answer in the
 * hybrid exactly as in X (value, or failure) -- if its read set missed a
 * variable, the tokens, the cards, the leaders or the cancellations, the
 * hybrid shows F Y's version and the answers part.  Every invariant and every
 * pure function without parameters is tried.  Runs from the repository root. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "scratch.h"
#include "ast.h"
#include "opcodes.h"
#include "reads.h"

#define MAX_SNAPS 160

static strbuf diag_text;

static void on_message(void *ud, int level, const char *text) {
  (void)ud;
  (void)level;
  sb_puts(&diag_text, text);
}

static uint64_t lcg(void *ctx) {
  uint64_t *x = ctx;
  *x = *x * 6364136223846793005ull + 1442695040888963407ull;
  return *x >> 11;
}

static mt_rules *pack(const char *variant) {
  const char *vs[] = {variant};
  mt_load o = {.components = ".", .advanced = 1, .variants = vs, .nvariants = variant ? 1 : 0, .message = on_message};
  mt_rules *r = mt_rules_load(&o);
  if (!r) fail_msg("%s", diag_text.s ? diag_text.s : "the pack does not compile");
  return r;
}

/* Copies from SRC into DST the parts of the state function FN reads. */
/* The dispatcher of the value called NAME, or -1. */
static int value_fn(const program *p, const char *name) {
  for (int i = 0; i < p->nvalues; i++)
    if (!strcmp(p->values[i].name, name)) return p->values[i].dispatch_fn;
  return -1;
}

static void take_reads(const program *p, const mt_game *g, unsigned char *dst, const unsigned char *src, int fn) {
  const board_layout *L = g->L;
  uint32_t fx = p->reads_fixed[fn];
  const uint64_t *row = p->reads_vars + (size_t)fn * p->reads_words;
  for (int i = 0; i < L->nvars; i++)
    if (row[i / 64] >> (i % 64) & 1u) {
      size_t end = i + 1 < L->nvars ? L->var_off[i + 1] : L->off_ext;
      memcpy(dst + L->var_off[i], src + L->var_off[i], end - L->var_off[i]);
    }
  /* each part with its generations (board.h: the part's, its zones' or piles'), as the write helpers leave them */
  size_t gen = sizeof(uint64_t), lead_end = L->off_leaders + (size_t)L->def->nleaders * sizeof(board_leader_state);
  if (fx & RD_TOKENS) {
    memcpy(dst + L->off_stacks, src + L->off_stacks, L->off_card_pile - L->off_stacks);
    memcpy(dst + L->off_gen + BOARD_GEN_TOKENS * gen, src + L->off_gen + BOARD_GEN_TOKENS * gen, gen);
    size_t z0 = L->off_gen + board_gen_zone(L, 0) * gen;
    memcpy(dst + z0, src + z0, (size_t)L->nzones * gen);
  }
  if (fx & RD_CARDS) {
    memcpy(dst + L->off_card_pile, src + L->off_card_pile, L->off_leaders - L->off_card_pile);
    memcpy(dst + L->off_pile_unknown, src + L->off_pile_unknown, (size_t)L->npile_slots * sizeof(int16_t));
    memcpy(dst + L->off_gen + BOARD_GEN_CARDS * gen, src + L->off_gen + BOARD_GEN_CARDS * gen, gen);
    size_t p0 = L->off_gen + board_gen_pile(L, 0) * gen;
    memcpy(dst + p0, src + p0, (size_t)L->npile_slots * gen);
  }
  if (fx & RD_LEADERS) {
    memcpy(dst + L->off_leaders, src + L->off_leaders, lead_end - L->off_leaders);
    memcpy(dst + L->off_gen + BOARD_GEN_LEADERS * gen, src + L->off_gen + BOARD_GEN_LEADERS * gen, gen);
  }
  if (fx & RD_CANCEL) {
    size_t vs_off = (size_t)((const unsigned char *)g->v.vs - g->block);
    vm_state *d = (vm_state *)(void *)(dst + vs_off);
    const vm_state *s = (const vm_state *)(const void *)(src + vs_off);
    d->ncancel = s->ncancel;
    memcpy(d->cancel, s->cancel, sizeof d->cancel);
  }
}

static bool eval_in(mt_game *g, const unsigned char *st, int fn, int64_t *out) {
  memcpy(g->block, st, g->size);
  vm_memo_reset(&g->v);
  *out = 0;
  return vm_eval(&g->v, fn, NULL, 0, out, NULL);
}

static void check_pack(const char *variant, uint64_t seed) {
  mt_rules *r = pack(variant);
  const program *p = &r->prog;
  assert_int_equal(p->nreads, p->nfuncs);
  char err[256];
  mt_game *g = mt_game_new(r, NULL, 0, seed, err, sizeof err);
  assert_non_null(g);
  size_t size = g->size;
  unsigned char *snaps = mt_calloc(MAX_SNAPS + 40, size);
  int nsnaps = 0;
  /* two games of the same factions (the same layout): a position every few decisions */
  for (int game = 0; game < 2; game++) {
    mt_game *h = mt_game_new(r, NULL, 0, seed + 17 * (uint64_t)game, err, sizeof err);
    assert_non_null(h);
    assert_int_equal(h->size, size);
    uint64_t rng = seed * 31 + (uint64_t)game;
    int st = mt_start(h);
    for (int d = 0; st == MT_WAITING && nsnaps < MAX_SNAPS; d++) {
      if (d % 9 == 0) memcpy(snaps + (size_t)nsnaps++ * size, h->block, size);
      mt_choice c;
      assert_int_equal(mt_sample(h, lcg, &rng, &c), 1);
      mt_explain why;
      st = mt_apply(h, &c, &why);
      assert_true(st >= 0);
    }
    mt_game_free(h);
  }
  assert_true(nsnaps >= 100);
  /* random play seldom cancels a rule: some positions get sixteen cancellations, of rules the code
   * asks about (RULE_ACTIVE operands), for the rest of the game */
  int *asked = mt_calloc((size_t)p->ncode + 1, sizeof *asked), nasked = 0;
  for (uint32_t pc = 0; pc < p->ncode;) {
    uint8_t o = p->code[pc];
    if (o == OP_RULE_ACTIVE) memcpy(&asked[nasked++], p->code + pc + 1, 4);
    pc += 1 + 4u * (uint32_t)op_table[o].operands;
  }
  assert_true(nasked > 16);
  uint64_t crng = seed ^ 0xca9ce1ull;
  size_t vs_off = (size_t)((const unsigned char *)g->v.vs - g->block);
  for (int k = 0; k < 40 && nsnaps < MAX_SNAPS + 40; k++) {
    unsigned char *c = snaps + (size_t)nsnaps * size;
    memcpy(c, snaps + (size_t)(lcg(&crng) % (uint64_t)nsnaps) * size, size);
    vm_state *vs = (vm_state *)(void *)(c + vs_off);
    vs->ncancel = VM_CANCELS;
    for (int i = 0; i < VM_CANCELS; i++) {
      vm_cancel x = {asked[lcg(&crng) % (uint64_t)nasked], SCOPE_GAME, 0, -1};
      vs->cancel[i] = x;
    }
    nsnaps++;
  }
  mt_free(asked);
  unsigned char *hybrid = mt_alloc(size);
  uint64_t rng = seed;
  int tried = 0, skipped_all = 0, parted = 0;
  for (int fn = 0; fn < p->nfuncs; fn++) {
    bool inv = false;
    for (int i = 0; i < p->ninvariants; i++) inv |= p->invariants[i].fn == fn;
    if (!inv && (p->funcs[fn].kind != FN_PURE || p->funcs[fn].nparams != 0)) continue;
    if (p->reads_fixed[fn] & RD_ALL) {
      skipped_all++;
      continue;
    }
    tried++;
    for (int k = 0; k < 60; k++) {
      int x = (int)(lcg(&rng) % (uint64_t)nsnaps), y = (int)(lcg(&rng) % (uint64_t)nsnaps);
      const unsigned char *sx = snaps + (size_t)x * size, *sy = snaps + (size_t)y * size;
      memcpy(hybrid, sy, size);
      take_reads(p, g, hybrid, sx, fn);
      int64_t vx, vh, vy;
      bool ox = eval_in(g, sx, fn, &vx), oh = eval_in(g, hybrid, fn, &vh), oy = eval_in(g, sy, fn, &vy);
      if (ox != oh || (ox && vx != vh))
        fail_msg("%s (rule %s): %s%lld in position %d, %s%lld with only its reads taken from there", p->funcs[fn].what,
                 p->funcs[fn].rule >= 0 ? p->rules[p->funcs[fn].rule].id : "-", ox ? "" : "fails/", (long long)vx, x,
                 oh ? "" : "fails/", (long long)vh);
      parted += ox != oy || (ox && vx != vy); /* the positions mattered to it: the test could see a miss */
    }
  }
  /* the invariants are all judged, and the pairs are varied enough to tell functions' answers apart */
  assert_true(tried >= p->ninvariants);
  assert_true(parted > 100);
  (void)skipped_all;
  mt_free(hybrid);
  mt_free(snaps);
  mt_game_free(g);
  mt_rules_free(r);
}

static void advanced_reads_are_sound(void **state) {
  (void)state;
  check_pack(NULL, 5);
}

static void wbc_reads_are_sound(void **state) {
  (void)state;
  check_pack("wbc-2022", 9);
}

/* A function that calls another reads what the callee reads; a builtin of the
 * geometry reads nothing; an effect reads everything. */
static void reads_follow_calls(void **state) {
  (void)state;
  mt_rules *r = pack(NULL);
  const program *p = &r->prog;
  int reads_tokens = 0, reads_nothing = 0, reads_all = 0;
  for (int f = 0; f < p->nfuncs; f++) {
    uint32_t fx = p->reads_fixed[f];
    reads_tokens += (fx & RD_TOKENS) != 0;
    reads_all += (fx & RD_ALL) != 0;
    bool none = fx == 0;
    for (size_t w = 0; w < p->reads_words; w++) none &= p->reads_vars[(size_t)f * p->reads_words + w] == 0;
    reads_nothing += none;
  }
  assert_true(reads_tokens > 0);
  assert_true(reads_nothing > 0);
  assert_true(reads_all > 0);
  mt_rules_free(r);
}

/* The value cache (vm.h) changes nothing but the work: a game with it and one
 * without, given the same answers, stay the same position decision after
 * decision; and a write the VM never sees (as the console's `set` makes) is
 * seen by the cached values, which compare the bytes they read. */
static void value_cache_changes_nothing(void **state) {
  (void)state;
  mt_rules *r = pack(NULL);
  const program *p = &r->prog;
  char err[256];
  mt_game *a = mt_game_new(r, NULL, 0, 21, err, sizeof err), *b = mt_game_new(r, NULL, 0, 21, err, sizeof err);
  assert_non_null(a);
  assert_non_null(b);
  assert_non_null(a->v.vcache);
  vm_vcache_free(b->v.vcache);
  b->v.vcache = NULL;
  assert_int_equal(mt_start(a), MT_WAITING);
  assert_int_equal(mt_start(b), MT_WAITING);
  uint64_t rng = 77;
  int d = 0;
  for (; mt_status(a) == MT_WAITING && d < 900; d++) {
    assert_int_equal(mt_hash(a), mt_hash(b));
    assert_int_equal(mt_legal(a, NULL, 0), mt_legal(b, NULL, 0));
    mt_choice c;
    assert_int_equal(mt_sample(a, lcg, &rng, &c), 1);
    mt_explain why;
    assert_int_equal(mt_apply(a, &c, &why), mt_apply(b, &c, &why));
  }
  assert_true(d > 300);
  assert_int_equal(mt_hash(a), mt_hash(b));
  assert_true(a->v.vcache->hits > 1000);
  /* the storm moved behind the VM's back: storm_rank follows */
  int sr = value_fn(p, "storm_rank");
  assert_true(sr >= 0);
  assert_true(r->def->storm_var >= 0);
  bool cached = false;
  for (int i = 0; i < p->nreads; i++) cached |= i == sr && a->v.vcache->nreg[i] >= 0;
  assert_true(cached);
  int changed = 0;
  for (int32_t s = 0; s < r->def->nsectors; s++) {
    board_var_set(a->L, a->v.st, r->def->storm_var, 0, 0, s);
    board_var_set(b->L, b->v.st, r->def->storm_var, 0, 0, s);
    for (int f = 0; f < r->def->nfactions; f++) {
      int64_t arg = f, va = -1, vb = -2;
      vm_memo_reset(&a->v);
      vm_memo_reset(&b->v);
      assert_true(vm_eval(&a->v, sr, &arg, 1, &va, NULL));
      assert_true(vm_eval(&b->v, sr, &arg, 1, &vb, NULL));
      assert_int_equal(va, vb);
      if (f == 0) changed |= 1 << (va & 31); /* the ranks it took: the storm's move did reach it */
    }
  }
  assert_true(__builtin_popcount((unsigned)changed) > 1);
  mt_game_free(a);
  mt_game_free(b);
  mt_rules_free(r);
}

/* The generations (board.h) follow every write: values and guards that read
 * the tokens, the cards or the leaders are cached by them (vm.h), so after
 * any change made through the board's write helpers -- tokens moved, cards
 * moved, shuffled, forgotten, leaders changed -- each such function answers
 * from the cache exactly as it answers evaluated afresh.  The functions tried:
 * every cached one of at most two parameters, for sixteen arguments each. */
static void generations_follow_every_write(void **state) {
  (void)state;
  mt_rules *r = pack(NULL);
  const program *p = &r->prog;
  const board_def *def = r->def;
  char err[256];
  mt_game *g = mt_game_new(r, NULL, 0, 33, err, sizeof err);
  assert_non_null(g);
  vm_vcache *vc = g->v.vcache;
  assert_non_null(vc);
  const board_layout *L = g->L;
  uint64_t rng = 5;
  assert_int_equal(mt_start(g), MT_WAITING);
  for (int d = 0; d < 150 && mt_status(g) == MT_WAITING; d++) { /* a position in the middle of a game */
    mt_choice c;
    assert_int_equal(mt_sample(g, lcg, &rng, &c), 1);
    mt_explain why;
    assert_true(mt_apply(g, &c, &why) >= 0);
  }
  int fns[4096], nfns = 0, parts = 0;
  for (int fn = 0; fn < p->nfuncs && nfns < 4096; fn++) {
    uint32_t fx = p->reads_fixed[fn] & (RD_TOKENS | RD_CARDS | RD_LEADERS);
    if (vc->nreg[fn] < 0 || !fx || p->funcs[fn].nparams > 2)
      continue;
    fns[nfns++] = fn;
    parts |= (int)fx;
  }
  assert_true(nfns > 10);
  assert_int_equal(parts, RD_TOKENS | RD_CARDS | RD_LEADERS); /* each part is read by some cached function */
  /* the arguments tried: sixteen tuples per function (a first argument 0..5, a faction's index, and
   * a second spread over 0..47, a territory's), few enough entries that they stay in the cache */
  int nargs_max = 16, changed = 0;
  int64_t *before = mt_calloc((size_t)nfns * (size_t)nargs_max, sizeof *before);
  uint64_t hits0 = vc->hits;
  for (int round = 0; round < 200; round++) {
    unsigned char *st = g->v.st;
    switch (lcg(&rng) % 6) {
    case 5: { /* the turn moves on or back (an entry keyed without it must not read it) */
      int tv = p->turn_var >= 0 ? p->vars[p->turn_var].board_var : -1;
      assert_true(tv >= 0);
      board_var_set(L, st, tv, 0, 0, 1 + (int32_t)(lcg(&rng) % 10));
      break;
    }
    case 0: case 1: { /* tokens: some of a faction's tokens to another place */
      int f = 0, k = 0, from = 0, n = 0, to = (int)(lcg(&rng) % (uint64_t)L->nlocs);
      for (int t = 0; t < 1000 && n == 0; t++) { /* a place where some faction has tokens */
        f = (int)(lcg(&rng) % (uint64_t)L->nf), k = (int)(lcg(&rng) % (uint64_t)def->nkinds);
        from = (int)(lcg(&rng) % (uint64_t)L->nlocs);
        n = board_tokens(L, st, from, f, k);
      }
      if (n > 0) board_move_tokens(L, st, f, k, from, to, 1 + (int)(lcg(&rng) % (uint64_t)n));
      break;
    }
    case 2: { /* a card to another pile, anywhere in it */
      int c = (int)(lcg(&rng) % (uint64_t)def->ncards), s = (int)(lcg(&rng) % (uint64_t)L->npile_slots);
      if (board_card_in_game(L, c)) board_card_move(L, st, c, s, (int)(lcg(&rng) % 4) - 1);
      break;
    }
    case 3: { /* a pile shuffled, or its order forgotten and settled */
      int s = (int)(lcg(&rng) % (uint64_t)L->npile_slots);
      if (lcg(&rng) % 2) board_pile_shuffle(L, st, s);
      else board_pile_forget(L, st, s), board_pile_settle(L, st, s);
      break;
    }
    default: { /* leaders: a status for all of one faction's, or another holder for one */
      int f = (int)(lcg(&rng) % (uint64_t)L->nf), status = (int)(lcg(&rng) % (uint64_t)def->nleader_status);
      int l = (int)(lcg(&rng) % (uint64_t)def->nleaders);
      for (int i = 0; i < def->nleaders; i++) {
        board_leader_state ls = board_leader_get(L, st, i);
        if (ls.holder == f) ls.status = (int8_t)status;
        if (i == l) ls.holder = (int8_t)(lcg(&rng) % (uint64_t)L->nf);
        if (ls.holder == f || i == l) board_leader_set(L, st, i, ls);
      }
      break;
    }
    }
    for (int i = 0; i < nfns; i++) {
      int fn = fns[i], na = p->funcs[fn].nparams;
      for (int64_t a = 0; a < (na ? nargs_max : 1); a++) {
        int64_t args[MAX_PARAMS + 1] = {na == 2 ? a % 6 : a, (a * 7 + i) % 48}, cached = 0, fresh = 0;
        vm_memo_reset(&g->v);
        bool oc = vm_eval_cached(&g->v, fn, args, na, na, &cached);
        g->v.vcache = NULL;
        vm_memo_reset(&g->v);
        bool of = vm_eval(&g->v, fn, args, na, &fresh, NULL);
        g->v.vcache = vc;
        if (oc != of || (oc && cached != fresh))
          fail_msg("%s(%lld, %lld) after round %d: %s%lld from the cache, %s%lld evaluated afresh", p->funcs[fn].what,
                   (long long)args[0], (long long)args[1], round, oc ? "" : "fails/", (long long)cached, of ? "" : "fails/", (long long)fresh);
        int64_t *b = &before[(size_t)i * (size_t)nargs_max + (size_t)a];
        changed += round > 0 && oc && *b != fresh; /* the writes did change answers: a stale entry would show */
        if (oc) *b = fresh;
      }
    }
  }
  assert_true(changed > 25);
  assert_true(vc->hits - hits0 > 1000); /* and the cache did answer */
  mt_free(before);
  mt_game_free(g);
  mt_rules_free(r);
}

/* The rules keep the cache of the last game freed for the next game of the
 * same factions: a warm cache and a cold one play the same game; a game of
 * other factions starts with a cache of its own. */
static void value_cache_passes_to_the_next_game(void **state) {
  (void)state;
  mt_rules *r = pack(NULL);
  char err[256];
  uint64_t rng = 3;
  mt_game *g1 = mt_game_new(r, NULL, 0, 5, err, sizeof err);
  assert_non_null(g1);
  assert_int_equal(mt_start(g1), MT_WAITING);
  for (int d = 0; d < 200 && mt_status(g1) == MT_WAITING; d++) {
    mt_choice c;
    assert_int_equal(mt_sample(g1, lcg, &rng, &c), 1);
    assert_true(mt_apply(g1, &c, NULL) >= 0);
  }
  uint64_t h1 = g1->v.vcache->hits; /* (a new game's own set-up hits it a few times) */
  assert_true(h1 > 1000);
  mt_game_free(g1);
  mt_game *warm = mt_game_new(r, NULL, 0, 9, err, sizeof err), *cold = mt_game_new(r, NULL, 0, 9, err, sizeof err);
  assert_non_null(warm);
  assert_non_null(cold);
  assert_true(warm->v.vcache->hits >= h1); /* the first game's */
  assert_true(cold->v.vcache->hits < 100); /* the spare was taken: a new one */
  assert_true(warm->v.vcache != cold->v.vcache);
  /* the first game's evaluation memo too, in an epoch after its last (game.h) */
  assert_non_null(warm->v.memo);
  assert_true(warm->v.memo_epoch > 1);
  assert_true(warm->v.memo != cold->v.memo);
  assert_int_equal(mt_start(warm), mt_start(cold));
  for (int d = 0; d < 600 && mt_status(warm) == MT_WAITING; d++) {
    assert_int_equal(mt_hash(warm), mt_hash(cold));
    mt_choice c;
    assert_int_equal(mt_sample(warm, lcg, &rng, &c), 1);
    assert_int_equal(mt_apply(warm, &c, NULL), mt_apply(cold, &c, NULL));
  }
  assert_int_equal(mt_hash(warm), mt_hash(cold));
  mt_game_free(warm);
  const char *two[] = {"atreides", "harkonnen"};
  mt_game *other = mt_game_new(r, two, 2, 9, err, sizeof err);
  assert_non_null(other);
  assert_true(other->v.vcache->hits < 100); /* not the Advanced six's */
  mt_game_free(other);
  mt_game_free(cold);
  mt_rules_free(r);
}

/* After 2^32 memo epochs the count starts again at 1 and the memo is emptied:
 * an entry of an old epoch 1 must not answer.  Here every entry claims a wrong
 * result for position(f), the value storm_rank calls; evaluated after the wrap
 * (the value cache off, so the call goes to the memo), storm_rank is right. */
static void memo_epochs_wrap(void **state) {
  (void)state;
  mt_rules *r = pack(NULL);
  char err[256];
  mt_game *g = mt_game_new(r, NULL, 0, 5, err, sizeof err);
  assert_non_null(g);
  assert_int_equal(mt_start(g), MT_WAITING);
  const program *p = &r->prog;
  int rank = value_fn(p, "storm_rank"), position = value_fn(p, "position");
  assert_true(rank >= 0 && position >= 0);
  vm_vcache *cache = g->v.vcache;
  g->v.vcache = NULL;
  int64_t f = g->L->faction[0], want = 0, got = 0;
  vm_memo_reset(&g->v);
  assert_true(vm_eval(&g->v, rank, &f, 1, &want, NULL));
  assert_non_null(g->v.memo);
  for (int k = 0; k < VM_MEMO; k++)
    g->v.memo[k] = (vm_memo){.epoch = 1, .fn = position, .nargs = 1, .args = {f}, .result = 1000};
  g->v.memo_epoch = UINT32_MAX;
  vm_memo_reset(&g->v);
  assert_int_equal(g->v.memo_epoch, 1);
  assert_true(vm_eval(&g->v, rank, &f, 1, &got, NULL));
  assert_int_equal(got, want);
  /* the same lie, stamped with the epoch in force, is believed: the test can fail */
  for (int k = 0; k < VM_MEMO; k++)
    g->v.memo[k] = (vm_memo){.epoch = 1, .fn = position, .nargs = 1, .args = {f}, .result = 1000};
  g->v.memo_epoch = 1;
  assert_true(vm_eval(&g->v, rank, &f, 1, &got, NULL));
  assert_int_not_equal(got, want);
  g->v.vcache = cache;
  mt_game_free(g);
  mt_rules_free(r);
}

/* The turn is left out of an entry's key when only the cancellation checks
 * read it (they are cached only while no cancellation is in force, and then
 * the turn does not count); a value that reads the turn itself keeps it. */
static void the_turn_counts_when_read(void **state) {
  (void)state;
  const char *path = scratch("test_reads_turn.rules");
  FILE *fp = fopen(path, "w");
  assert_non_null(fp);
  fputs("rule 90.02 \"Late game: from turn 3\" basic {\n  value late_game(): bool = turn >= 3\n}\n", fp);
  fclose(fp);
  const char *files[] = {path};
  mt_load o = {.components = ".", .advanced = 1, .files = files, .nfiles = 1, .against_pack = 1, .message = on_message};
  mt_rules *r = mt_rules_load(&o);
  if (!r) fail_msg("%s", diag_text.s ? diag_text.s : "the house rule does not compile");
  const program *p = &r->prog;
  int fn = value_fn(p, "late_game");
  assert_true(fn >= 0);
  assert_true(p->reads_fixed[fn] & RD_TURN);
  char err[256];
  mt_game *g = mt_game_new(r, NULL, 0, 1, err, sizeof err);
  assert_non_null(g);
  assert_true(g->v.vcache->nreg[fn] >= 1); /* cached, keyed by the turn */
  int tv = p->vars[p->turn_var].board_var;
  for (int32_t t = 1; t <= 6; t++) {
    board_var_set(g->L, g->v.st, tv, 0, 0, t);
    for (int k = 0; k < 2; k++) { /* the second time from the cache */
      int64_t x = -1;
      vm_memo_reset(&g->v);
      assert_true(vm_eval_cached(&g->v, fn, NULL, 0, 0, &x));
      assert_int_equal(x, t >= 3);
    }
  }
  /* storm_rank reads the cancellations (through rule checks) but not the turn: not in its key */
  int sr = value_fn(p, "storm_rank");
  assert_true(sr >= 0 && (p->reads_fixed[sr] & RD_CANCEL) && !(p->reads_fixed[sr] & RD_TURN));
  const vm_vc_region *reg = g->v.vcache->reg + (size_t)sr * VM_VC_REGIONS;
  for (int i = 0; i < g->v.vcache->nreg[sr]; i++) assert_true(reg[i].off != g->L->var_off[tv]);
  mt_game_free(g);
  mt_rules_free(r);
  remove(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(reads_follow_calls),
      cmocka_unit_test(advanced_reads_are_sound),
      cmocka_unit_test(wbc_reads_are_sound),
      cmocka_unit_test(value_cache_changes_nothing),
      cmocka_unit_test(generations_follow_every_write),
      cmocka_unit_test(value_cache_passes_to_the_next_game),
      cmocka_unit_test(the_turn_counts_when_read),
      cmocka_unit_test(memo_epochs_wrap),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  sb_free(&diag_text);
  return rc;
}
