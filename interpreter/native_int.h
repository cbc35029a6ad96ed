/* native_int.h -- what the native tier's two files share (native.c: the
 * translation of a rule set's pure functions to C; native_cache.c: the cache
 * of shared objects built from it, and how an entry comes to be trusted).
 * Private to them and to their unit test; vm.h has the entry points. */
#ifndef MENTAT_NATIVE_INT_H
#define MENTAT_NATIVE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"
#include "vm.h"

/* An entry's key: a 128-bit hash of the generated C (which holds the code,
 * the constants, the function table, the VM's numbers and the translator's
 * generation), written as 32 hex digits in file names and in the object. */
typedef struct vm_native_key {
  uint64_t w[2];
  char hex[33];
} vm_native_key;
void vm_native_key_of(const char *src, size_t n, vm_native_key *k);

/* The environment that chooses the cache directory, gathered apart so that a
 * test can give any combination.  PW_HOME: the user's home directory from the
 * password database, NULL unless it exists as a directory. */
typedef struct vm_native_env {
  const char *mentat_cache, *xdg_cache_home, *home, *pw_home, *tmpdir;
  unsigned long uid;
} vm_native_env;
/* The cache directory for ENV: $MENTAT_CACHE, else $XDG_CACHE_HOME/mentat,
 * else $HOME/.cache/mentat, else the password entry's home/.cache/mentat,
 * else ${TMPDIR:-/tmp}/mentat-cache-UID (the XDG and HOME variables count
 * only when absolute paths, as the XDG spec says). */
void vm_native_cache_path(const vm_native_env *e, strbuf *out);

/* Opens the cache directory PATH, creating what is missing of it (0700), and
 * checks it is the user's own: a directory, not a symbolic link, owned by the
 * effective user, not writable by group or others.  The directory's
 * descriptor, or -1 with the reason in WHY and the kind of failure in *ST
 * (VM_NATIVE_REFUSED: the directory is not safe to load code from;
 * VM_NATIVE_FAILED: it could not be created or opened). */
int vm_native_cache_open(const char *path, strbuf *why, vm_native_status *st);

/* Checks the entry NAME in the cache directory DIRFD against KEY without
 * loading it: a regular file (not a symbolic link) of the user's, not writable
 * by others, whose trailer names KEY, the length and a checksum of every byte
 * before it.  An open descriptor of the verified file, or -1 with the reason in
 * WHY (the entry is missing when errno is ENOENT). */
int vm_native_entry_open(int dirfd, const char *name, const vm_native_key *key, strbuf *why);

/* Builds SRC (N bytes of C) into the entry for KEY in the cache DIRFD (at
 * DIRPATH, for messages): in a private temporary directory, by $CC run
 * without a shell; the object gets its trailer, is verified, and is renamed
 * into place.  False with the cause in WHY; nothing is left behind either way. */
bool vm_native_build(int dirfd, const char *dirpath, const vm_native_key *key, const char *src, size_t n,
                     strbuf *why);

/* Opens the cache directory, finds or builds the entry for KEY from SRC (N
 * bytes of C, which must export `const char mentat_native_key[]`, KEY's hex
 * digits) and loads it: the handle into *HANDLE.  VM_NATIVE_LOADED may
 * leave a warning in WHY (a damaged entry was found and rebuilt); the others
 * leave the reason. */
vm_native_status vm_native_cache_load(const char *src, size_t n, const vm_native_key *key, void **handle,
                                      strbuf *why);

/* The trailer's size, for tests that damage entries. */
#define VM_NATIVE_TRAILER 64

#endif
