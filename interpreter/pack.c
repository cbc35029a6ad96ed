/* pack.c -- the rule pack's files.  Where the standard pack is: beside the
 * executable in a checkout, under PREFIX/share/mentat once installed
 * (ARCHITECTURE.md §5), used by the command line when no --rules/--components
 * DIR is given; and which files a game loads when mods (--pack DIR) are laid
 * over it (docs/modding.md). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "pack.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* ---- layers ------------------------------------------------------------------ */

/* One file a layer offers: NAME (its name inside its directory) is what a later
 * layer replaces it by. */
typedef struct entry {
  char *name, *path;
  int layer; /* the layer that offered it (0: the base), for the files read in layer order */
} entry;

typedef struct entries {
  entry *v;
  size_t n, cap;
} entries;

static void upsert(entries *e, const char *name, char *path, int layer) {
  for (size_t i = 0; i < e->n; i++)
    if (!strcmp(e->v[i].name, name)) {
      mt_free(e->v[i].path);
      e->v[i].path = path;
      e->v[i].layer = layer;
      return;
    }
  entry x = {mt_strdup(name), path, layer};
  VEC_PUSH(e->v, e->n, e->cap, x);
}

static int by_name(const void *a, const void *b) { return strcmp(((const entry *)a)->name, ((const entry *)b)->name); }

/* Additions to the decks are read layer by layer (a mod extends what the expansion under it
 * declared), by name within a layer; a file replaced by a later layer moves to that layer. */
static int by_layer(const void *a, const void *b) {
  const entry *x = a, *y = b;
  return x->layer != y->layer ? (x->layer > y->layer) - (x->layer < y->layer) : strcmp(x->name, y->name);
}

/* Moves E's paths, sorted by CMP, to the end of LIST; frees E. */
static void drain_by(entries *e, char ***list, size_t *n, size_t *cap, int (*cmp)(const void *, const void *)) {
  if (e->n) qsort(e->v, e->n, sizeof *e->v, cmp);
  for (size_t i = 0; i < e->n; i++) {
    VEC_PUSH(*list, *n, *cap, e->v[i].path);
    mt_free(e->v[i].name);
  }
  mt_free(e->v);
}

static void drain(entries *e, char ***list, size_t *n, size_t *cap) { drain_by(e, list, n, cap, by_name); }

/* What goes between DIR and a name inside it: nothing after a '/'. */
static const char *sep_after(const char *dir) {
  size_t n = strlen(dir);
  return n && dir[n - 1] == '/' ? "" : "/";
}

static bool ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a > b && !strcmp(s + a - b, suffix);
}

/* The layers seen so far: each file by its name inside its subdirectory. */
typedef struct layering {
  pack_files *out;
  entries yaml, rules[3]; /* factions/ *.yaml; rules/, factions/, variants/ *.rules */
  entries decks_add;      /* rules/decks.NAME.yaml */
  int layer;              /* the layer being scanned: 0 the base, then 1, 2... */
  diag *d;
  int refused; /* files refused (inside_pack) */
} layering;

/* Whether the file at PATH may be read as part of the pack whose real
 * directory is ROOT.  A pack is shared like a save: a symbolic link in it
 * that leads out of it (to /etc/shadow, to a user's private files) is
 * refused with an error and never read, so no line of such a file can ever
 * be quoted in a diagnostic; a link within the pack is fine. */
static bool inside_pack(diag *d, const char *root, const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode)) return true;
  mt_span none = {DIAG_NOFILE, 0, 0};
  char real[PATH_MAX];
  if (!realpath(path, real)) {
    diag_error(d, none, "pack file '%s' is a symbolic link that leads nowhere: %s", path, strerror(errno));
    return false;
  }
  size_t n = strlen(root);
  if (!strncmp(real, root, n) && (real[n] == '/' || (n == 1 && root[0] == '/'))) return true;
  diag_error(d, none, "pack file '%s' is a symbolic link to a file outside the pack ('%s'); Mentat does not follow it",
             path, real);
  return false;
}

/* Adds the files of the layer in directory DIR over those seen so far.  YAML
 * names are DIR/sub/name; rules names drop a "./" so that diagnostics of the
 * current directory's pack read rules/x.rules, as they always did.  A MOD's
 * YAML where Mentat never looks gets a warning.  Returns how many files
 * Mentat reads the layer offered. */
static int scan_layer(layering *L, const char *dir, bool mod) {
  static const char *const subs[] = {"rules", "factions", "variants"};
  mt_span none = {DIAG_NOFILE, 0, 0};
  int found = 0;
  const char *sep = sep_after(dir);
  char root[PATH_MAX];
  if (!realpath(dir, root)) snprintf(root, sizeof root, "%s", dir);
  for (int k = 0; k < 3; k++) {
    strbuf sub = {0};
    sb_printf(&sub, "%s%s%s", dir, sep, subs[k]);
    DIR *dd = opendir(sub.s);
    if (!dd && k == 1 && !mod) L->out->no_factions = mt_strdup(sub.s);
    struct dirent *e;
    while (dd && (e = readdir(dd))) {
      const char *f = e->d_name;
      strbuf path = {0};
      sb_printf(&path, "%s/%s", sub.s, f);
      if ((ends_with(f, ".rules") || ends_with(f, ".yaml")) && !inside_pack(L->d, root, path.s)) {
        L->refused++;
        sb_free(&path);
        continue;
      }
      if (ends_with(f, ".rules")) {
        strbuf rel = {0};
        if (!strcmp(dir, ".")) sb_printf(&rel, "%s/%s", subs[k], f);
        else sb_puts(&rel, path.s);
        upsert(&L->rules[k], f, sb_take(&rel), L->layer);
        found++;
      } else if (k == 0 && (!strcmp(f, "board.yaml") || !strcmp(f, "decks.yaml"))) {
        char **slot = f[0] == 'b' ? &L->out->board : &L->out->decks;
        mt_free(*slot);
        *slot = sb_take(&path);
        found++;
      } else if (k == 0 && !strncmp(f, "decks.", 6) && ends_with(f + 6, ".yaml")) { /* decks.NAME.yaml */
        upsert(&L->decks_add, f, sb_take(&path), L->layer);
        found++;
      } else if (k == 1 && ends_with(f, ".yaml")) {
        upsert(&L->yaml, f, sb_take(&path), L->layer);
        found++;
      } else if (mod && k == 0 && ends_with(f, ".yaml")) {
        diag_warning(L->d, none, "pack '%s': ignoring '%s' (only rules/board.yaml, rules/decks.yaml and rules/decks.NAME.yaml are read in rules/)",
                     dir, path.s);
      }
      sb_free(&path);
    }
    if (dd) closedir(dd);
    sb_free(&sub);
  }
  DIR *top = mod ? opendir(dir) : NULL;
  struct dirent *e;
  while (top && (e = readdir(top)))
    if (ends_with(e->d_name, ".yaml") || ends_with(e->d_name, ".rules"))
      diag_warning(L->d, none, "pack '%s': ignoring '%s%s%s' (a pack's files go in its rules/, factions/ or variants/)",
                   dir, dir, sep, e->d_name);
  if (top) closedir(top);
  return found;
}

int pack_layer(const char *base, const char *const *mods, int nmods, pack_files *out, diag *d) {
  memset(out, 0, sizeof *out);
  layering L = {.out = out, .d = d};
  int rc = 0;
  scan_layer(&L, base, false);
  for (int i = 0; i < nmods; i++)
    if ((L.layer = i + 1, scan_layer(&L, mods[i], true)) == 0) {
      mt_span none = {DIAG_NOFILE, 0, 0};
      diag_error(d, none,
                 "pack '%s' holds nothing Mentat reads: it needs rules/board.yaml, rules/decks.yaml, rules/decks.NAME.yaml, rules/*.rules, "
                 "factions/*.yaml, factions/*.rules or variants/*.rules",
                 mods[i]);
      rc = -1;
    }
  /* the base's own paths when it lacks them: loading them then says what is missing */
  const char *sep = sep_after(base);
  strbuf p = {0};
  if (!out->board) sb_printf(&p, "%s%srules/board.yaml", base, sep), out->board = sb_take(&p);
  if (!out->decks) sb_printf(&p, "%s%srules/decks.yaml", base, sep), out->decks = sb_take(&p);
  if (out->no_factions && L.yaml.n) mt_free(out->no_factions), out->no_factions = NULL;
  drain(&L.yaml, &out->yaml, &out->nyaml, &out->capyaml);
  drain_by(&L.decks_add, &out->decks_add, &out->ndecks_add, &out->capdecks_add, by_layer);
  for (int k = 0; k < 3; k++) drain(&L.rules[k], &out->rules, &out->nrules, &out->caprules);
  return L.refused ? -1 : rc;
}

void pack_files_fini(pack_files *pf) {
  mt_free(pf->board);
  mt_free(pf->decks);
  mt_free(pf->no_factions);
  for (size_t i = 0; i < pf->ndecks_add; i++) mt_free(pf->decks_add[i]);
  mt_free(pf->decks_add);
  for (size_t i = 0; i < pf->nyaml; i++) mt_free(pf->yaml[i]);
  mt_free(pf->yaml);
  for (size_t i = 0; i < pf->nrules; i++) mt_free(pf->rules[i]);
  mt_free(pf->rules);
  memset(pf, 0, sizeof *pf);
}

int pack_dir_ok(const char *dir, strbuf *why) {
  struct stat st;
  if (stat(dir, &st) != 0) return sb_printf(why, "cannot read pack '%s': %s", dir, strerror(errno)), -1;
  if (!S_ISDIR(st.st_mode)) return sb_printf(why, "pack '%s' is not a directory (a pack is a directory holding rules/, factions/ or variants/)", dir), -1;
  if (access(dir, R_OK | X_OK) != 0) return sb_printf(why, "cannot read pack '%s': %s", dir, strerror(errno)), -1;
  return 0;
}

/* ---- expansions ----------------------------------------------------------------- */

char *pack_expansion(const char *base, const char *name, strbuf *why) {
  bool plain = *name != 0 && *name != '-';
  for (const char *c = name; *c; c++)
    plain &= (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_' || *c == '-';
  strbuf dir = {0};
  sb_printf(&dir, "%s%sexpansions", base, sep_after(base));
  if (plain) {
    strbuf p = {0};
    sb_printf(&p, "%s/%s", dir.s, name);
    struct stat st;
    if (stat(p.s, &st) == 0 && S_ISDIR(st.st_mode)) {
      sb_free(&dir);
      return p.s; /* the strbuf's text is the caller's now */
    }
    sb_free(&p);
  }
  /* what the pack has, sorted, for the suggestion and the list */
  char **have = NULL;
  size_t nhave = 0, cap = 0;
  DIR *dp = opendir(dir.s);
  for (struct dirent *e; dp && (e = readdir(dp));) {
    if (e->d_name[0] == '.') continue;
    strbuf p = {0};
    sb_printf(&p, "%s/%s", dir.s, e->d_name);
    struct stat st;
    if (stat(p.s, &st) == 0 && S_ISDIR(st.st_mode)) {
      char *n = mt_strdup(e->d_name);
      VEC_PUSH(have, nhave, cap, n);
    }
    sb_free(&p);
  }
  if (dp) closedir(dp);
  for (size_t i = 1; i < nhave; i++) /* insertion sort: a handful of names */
    for (size_t j = i; j > 0 && strcmp(have[j - 1], have[j]) > 0; j--) {
      char *t = have[j];
      have[j] = have[j - 1];
      have[j - 1] = t;
    }
  const char *sug = plain ? diag_suggest(name, (const char *const *)have, nhave) : NULL;
  for (size_t i = 0; plain && !sug && i < nhave; i++) /* a part of the name: `ixians` for ixians_tleilaxu */
    if (strstr(have[i], name)) sug = have[i];
  sb_printf(why, "unknown expansion '%s'", name);
  if (sug) sb_printf(why, " (did you mean '%s'?)", sug);
  if (!plain) sb_puts(why, ": an expansion is named by a word of a-z, 0-9, '_' and '-'");
  if (nhave) {
    sb_printf(why, "; the pack in %s has:", base);
    for (size_t i = 0; i < nhave; i++) sb_printf(why, " %s", have[i]);
  } else sb_printf(why, "; the pack in %s has no expansions (%s/NAME)", base, dir.s);
  for (size_t i = 0; i < nhave; i++) mt_free(have[i]);
  mt_free(have);
  sb_free(&dir);
  return NULL;
}

char *pack_expansion_with_faction(const char *base, const char *id) {
  bool plain = *id != 0;
  for (const char *c = id; *c; c++) plain &= (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_' || *c == '-';
  if (!plain) return NULL;
  strbuf dir = {0};
  sb_printf(&dir, "%s%sexpansions", base, sep_after(base));
  char *found = NULL;
  DIR *dp = opendir(dir.s);
  for (struct dirent *e; dp && (e = readdir(dp));) {
    if (e->d_name[0] == '.') continue;
    strbuf p = {0};
    sb_printf(&p, "%s/%s/factions/%s.yaml", dir.s, e->d_name, id);
    if (access(p.s, R_OK) == 0 && (!found || strcmp(e->d_name, found) < 0)) {
      mt_free(found);
      found = mt_strdup(e->d_name);
    }
    sb_free(&p);
  }
  if (dp) closedir(dp);
  sb_free(&dir);
  return found;
}
