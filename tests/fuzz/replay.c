/* replay.c -- plain-C driver for the fuzz targets (SQLite's fuzzcheck idea).
 *
 * Links with any tests/fuzz/fuzz_*.c and calls its LLVMFuzzerTestOneInput on
 * every regular file of the directories named on the command line, in sorted
 * order, so that seeds and saved crash inputs run under gcc in `make test`.
 * Missing directories are skipped (a target may have no regressions yet).  A
 * crash is the failure; otherwise prints "replay: N inputs" and exits 0. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Reads PATH whole; returns a malloc'd buffer (caller frees) or NULL. */
static uint8_t *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, n = 0;
  uint8_t *buf = malloc(cap);
  size_t k;
  while (buf && (k = fread(buf + n, 1, cap - n, f)) > 0) {
    n += k;
    if (n == cap) {
      uint8_t *nb = realloc(buf, cap *= 2);
      if (!nb) free(buf);
      buf = nb;
    }
  }
  fclose(f);
  *len = n;
  return buf;
}

/* Runs every regular file of DIR; returns how many, or -1 on a read error. */
static long replay_dir(const char *dir) {
  DIR *dp = opendir(dir);
  if (!dp) return 0;
  char **names = NULL;
  size_t n = 0, cap = 0;
  struct dirent *e;
  while ((e = readdir(dp)) != NULL) {
    if (e->d_name[0] == '.') continue; /* ., .., .keep */
    if (n == cap) {
      cap = cap ? cap * 2 : 64;
      char **nn = realloc(names, cap * sizeof *names);
      if (!nn) abort();
      names = nn;
    }
    size_t len = strlen(dir) + strlen(e->d_name) + 2;
    names[n] = malloc(len);
    if (!names[n]) abort();
    snprintf(names[n++], len, "%s/%s", dir, e->d_name);
  }
  closedir(dp);
  if (n) qsort(names, n, sizeof *names, by_name);
  long ran = 0;
  for (size_t i = 0; i < n; i++) {
    struct stat st;
    if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
      size_t len = 0;
      uint8_t *data = slurp(names[i], &len);
      if (!data) {
        fprintf(stderr, "replay: cannot read %s\n", names[i]);
        ran = -1;
      } else {
        LLVMFuzzerTestOneInput(data, len);
        free(data);
        if (ran >= 0) ran++;
      }
    }
    free(names[i]);
  }
  free(names);
  return ran;
}

int main(int argc, char **argv) {
  long total = 0;
  int bad = 0;
  for (int i = 1; i < argc; i++) {
    long k = replay_dir(argv[i]);
    if (k < 0) bad = 1;
    else total += k;
  }
  printf("replay: %ld inputs\n", total);
  return bad;
}
