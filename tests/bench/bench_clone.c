/* bench_clone.c -- time to copy a whole game state (mt_copy_state: one memcpy)
 * and to hash it, for a game of the standard pack with all its factions. */
#include <stdio.h>
#include <time.h>

#include "mentat.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
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
  mt_game_free(a);
  mt_game_free(b);
  mt_rules_free(r);
  return 0;
}
