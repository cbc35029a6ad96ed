/* pack.c -- the standard rule pack's place: beside the executable in a
 * checkout, under PREFIX/share/mentat once installed (ARCHITECTURE.md §5).
 * Used by the command line when no --rules/--components DIR is given. */
#define _POSIX_C_SOURCE 200809L
#include "pack.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* DIR without its last path component ("/" stays "/"). */
static void parent_of(const char *dir, char *out, size_t n) {
  snprintf(out, n, "%s", dir);
  char *slash = strrchr(out, '/');
  if (slash == out) out[1] = 0;
  else if (slash) *slash = 0;
}

static int has_pack(const char *dir, strbuf *tried) {
  strbuf p = {0};
  sb_printf(&p, "%s%srules/board.yaml", dir, dir[strlen(dir) - 1] == '/' ? "" : "/");
  int ok = access(p.s, R_OK) == 0;
  sb_printf(tried, "  %s\n", p.s);
  sb_free(&p);
  return ok;
}

const char *pack_find(const char *exe, char *buf, size_t n, strbuf *why) {
  char self[4096];
  if (!exe) {
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    if (k > 0) {
      self[k] = 0;
      exe = self;
    }
  }
  char here[4096];
  if (!getcwd(here, sizeof here)) snprintf(here, sizeof here, ".");
  char cand[4][4200];
  int nc = 0;
  if (exe && exe[0] == '/') {
    char dir[4096], parent[4096];
    parent_of(exe, dir, sizeof dir);
    parent_of(dir, parent, sizeof parent);
    snprintf(cand[nc++], sizeof cand[0], "%s", parent);
    snprintf(cand[nc++], sizeof cand[0], "%s%sshare/mentat", parent, strcmp(parent, "/") ? "/" : "");
    snprintf(cand[nc++], sizeof cand[0], "%s", dir);
  }
  snprintf(cand[nc++], sizeof cand[0], "%s", here);
  strbuf tried = {0};
  for (int i = 0; i < nc; i++) {
    int seen = 0;
    for (int j = 0; j < i; j++) seen |= !strcmp(cand[i], cand[j]);
    if (seen || !has_pack(cand[i], &tried)) continue;
    sb_free(&tried);
    snprintf(buf, n, "%s", strcmp(cand[i], here) ? cand[i] : ".");
    return buf;
  }
  if (why)
    sb_printf(why, "cannot find the rule pack; looked for:\n%suse --rules DIR to name the directory that holds it\n", tried.s);
  sb_free(&tried);
  return NULL;
}
