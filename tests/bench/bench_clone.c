/* bench_clone.c -- time to copy a whole game state (mt_copy_state: one memcpy)
 * and to hash it (before the start, and in play: mt_hash and mt_hash_raw),
 * for a game of the standard pack with all its factions. */
#include <stdio.h>
#include <time.h>

#include "mentat.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t lcg(void *ctx) {
  uint64_t *x = ctx;
  *x = *x * 6364136223846793005ull + 1442695040888963407ull;
  return *x >> 11;
}

static void quiet(void *ud, int level, const char *text) {
  (void)ud;
  (void)level;
  fputs(text, stderr);
}

int main(int argc, char **argv) {
  mt_load L = {.components = argc > 1 ? argv[1] : ".", .message = quiet};
  mt_rules *r = mt_rules_load(&L);
  if (!r) return 1;
  char err[128];
  mt_game *a = mt_game_new(r, NULL, 0, 1, err, sizeof err), *b = mt_clone(a);
  const int n = 1000000;
  double t0 = now();
  for (int i = 0; i < n; i++) mt_copy_state(b, a);
  double t1 = now();
  unsigned long long h = 0;
  for (int i = 0; i < n / 10; i++) h ^= mt_hash(b);
  double t2 = now();
  printf("state: %zu bytes; copy %.1f ns; hash %.1f ns (%llx)\n", mt_state_size(a), (t1 - t0) / n * 1e9,
         (t2 - t1) / (n / 10) * 1e9, h & 0xf);
  /* the hashes of a game in play: 150 random decisions in, rules suspended */
  uint64_t x = 1;
  mt_start(a);
  for (int i = 0; i < 150 && mt_status(a) == MT_WAITING; i++) {
    mt_choice c;
    if (!mt_sample(a, lcg, &x, &c) || mt_apply(a, &c, NULL) < 0) break;
  }
  double t3 = now();
  for (int i = 0; i < n / 10; i++) h ^= mt_hash(a);
  double t4 = now();
  for (int i = 0; i < n / 10; i++) h ^= mt_hash_raw(a);
  double t5 = now();
  printf("in play: hash (mt_hash, by meaning) %.1f ns; raw hash (mt_hash_raw, the bytes) %.1f ns (%llx)\n",
         (t4 - t3) / (n / 10) * 1e9, (t5 - t4) / (n / 10) * 1e9, h & 0xf);
  mt_game_free(a);
  mt_game_free(b);
  mt_rules_free(r);
  return 0;
}
