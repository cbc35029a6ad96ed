#!/bin/sh
# run-native.sh -- the native tier (--native, interpreter/native.c) plays the
# same games as the VM:
#   1. simulate prints the same results with and without --native (Basic,
#      Advanced, WBC 2022), the per-decision instruction peak and timings aside;
#   2. a failing game fails at the same decision with the same message;
#   3. the shared object is built once and then taken from the cache;
#   4. without a working compiler, --native says so and exits non-zero;
#   5. a value whose operand stack outgrows the translation's array (291 nested
#      additions) stays bytecode and gives the VM's answer;
#   6. the cache is trusted only when it is safe (docs/performance.md): a cache
#      directory writable by others, owned by another user or a symbolic link is
#      refused with a warning naming the reason, and the run goes on as bytecode
#      (a shared object planted there never runs); an entry that is planted,
#      of another rule set, truncated, empty, corrupt, a symbolic link, a FIFO
#      or writable by others is rebuilt, never loaded; a quote, a space or
#      $(...) in the cache path is just a name; a failed build leaves nothing
#      behind and says why; with HOME unset the cache is the user's own, never
#      a shared /tmp path (as root, also checked as the user nobody).
# The cache is a temporary directory (MENTAT_CACHE).  Last line: "N passed, N failed".
set -u
BUILD=${BUILD:-build}
MENTAT=$BUILD/mentat
pass=0
failn=0
ok() { pass=$((pass + 1)); }
bad() { failn=$((failn + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | tail -12 | sed 's/^/    /'; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/mentat-native.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
MENTAT_CACHE=$TMP/cache
export MENTAT_CACHE
strip() { grep -v 'instructions/s\|games (' "$1"; }

# 1. the same games
for set in "" "--ruleset advanced" "--variant wbc-2022"; do
  # shellcheck disable=SC2086
  "$MENTAT" simulate $set --games 40 --seed 7 >"$TMP/vm" 2>&1
  # shellcheck disable=SC2086
  "$MENTAT" simulate $set --native --games 40 --seed 7 >"$TMP/native" 2>&1
  if strip "$TMP/vm" >"$TMP/a" && strip "$TMP/native" >"$TMP/b" && cmp -s "$TMP/a" "$TMP/b" && [ -s "$TMP/a" ]; then ok
  else bad "simulate ${set:-basic}: --native differs" "$(diff "$TMP/a" "$TMP/b")"; fi
done
# heuristic bots judge answers with the rules' values and guards many times a decision
"$MENTAT" simulate --games 3 --seed 2 --bots heuristic >"$TMP/vm" 2>&1
"$MENTAT" simulate --games 3 --seed 2 --bots heuristic --native >"$TMP/native" 2>&1
strip "$TMP/vm" >"$TMP/a"; strip "$TMP/native" >"$TMP/b"
if cmp -s "$TMP/a" "$TMP/b"; then ok; else bad "heuristic bots: --native differs" "$(diff "$TMP/a" "$TMP/b")"; fi

# 2. a failing game: the same decision, the same message
FLAKY="--components tests/fixtures/race --variant tests/fixtures/failing/flaky-invariant.rules --factions red,blue"
# shellcheck disable=SC2086
"$MENTAT" simulate $FLAKY --games 30 --seed 1 >/dev/null 2>"$TMP/e1"
# shellcheck disable=SC2086
"$MENTAT" simulate $FLAKY --native --games 30 --seed 1 >/dev/null 2>"$TMP/e2"
grep 'failed at decision' "$TMP/e1" >"$TMP/f1"; grep 'failed at decision' "$TMP/e2" >"$TMP/f2"
if [ -s "$TMP/f1" ] && cmp -s "$TMP/f1" "$TMP/f2"; then ok; else bad "failing games differ" "$(diff "$TMP/f1" "$TMP/f2")"; fi

# 3. built once, then taken from the cache
so=$(ls "$MENTAT_CACHE"/native-*.so 2>/dev/null | head -1)
if [ -n "$so" ]; then
  before=$(ls -l --time-style=+%s.%N "$so")
  "$MENTAT" simulate --native --games 1 --seed 1 >/dev/null 2>&1
  after=$(ls -l --time-style=+%s.%N "$so")
  if [ "$before" = "$after" ]; then ok; else bad "the cached shared object was built again"; fi
else bad "no shared object in the cache" "$(ls -la "$MENTAT_CACHE")"; fi

# 4. no compiler: a clear error, a non-zero exit
rm -rf "$MENTAT_CACHE"
CC=false "$MENTAT" simulate --native --games 1 --seed 1 >"$TMP/o" 2>"$TMP/e"
rc=$?
if [ $rc -ne 0 ] && grep -q -- '--native: the system compiler failed' "$TMP/e"; then ok
else bad "no compiler (exit $rc)" "$(cat "$TMP/o" "$TMP/e")"; fi

# 5. a deep expression
e=1
i=0
while [ $i -lt 290 ]; do e="1 + ($e)"; i=$((i + 1)); done
printf 'value 4.1 "deep" deep(): int = %s\ngame 9 "t" { let x = deep()\n log "{x}" }\n' "$e" >"$TMP/deep.rules"
"$MENTAT" run --components tests/fixtures/race "$TMP/deep.rules" >"$TMP/d1" 2>&1
"$MENTAT" run --components tests/fixtures/race --native "$TMP/deep.rules" >"$TMP/d2" 2>&1
if grep -q '^\[9\] 291$' "$TMP/d1" && cmp -s "$TMP/d1" "$TMP/d2"; then ok; else bad "a deep expression" "$(cat "$TMP/d1" "$TMP/d2")"; fi

# 6. the cache is trusted only when it is safe (a small rule set: each case builds in a moment;
# a timeout, as an entry that is a FIFO blocked the old code forever)
GAME="simulate --components tests/fixtures/race --games 6 --seed 3"
# shellcheck disable=SC2086
"$MENTAT" $GAME >"$TMP/vm6" 2>&1
strip "$TMP/vm6" >"$TMP/vm6s"
# same_games NAME [ENV...]: --native with that environment plays the VM's games and exits 0
same_games() {
  name=$1
  shift
  # shellcheck disable=SC2086
  timeout 300 env "$@" "$MENTAT" $GAME --native >"$TMP/o6" 2>"$TMP/e6" </dev/null
  rc=$?
  strip "$TMP/o6" >"$TMP/o6s"
  if [ $rc -eq 0 ] && cmp -s "$TMP/vm6s" "$TMP/o6s"; then return 0; fi
  bad "$name: exit $rc, or other games than the VM's" "$(cat "$TMP/e6"; diff "$TMP/vm6s" "$TMP/o6s")"
  return 1
}
# warns NAME PATTERN: the last run warned, matching PATTERN
warns() {
  if grep -q "warning: --native: .*$2" "$TMP/e6"; then ok; else bad "$1: no warning matching '$2'" "$(cat "$TMP/e6")"; fi
}
# plant SO MARKER: a shared object whose constructor creates MARKER; it must never run
plant() {
  printf '#include <stdio.h>\n__attribute__((constructor)) static void planted(void) { FILE *f = fopen("%s", "w"); if (f) fclose(f); }\nvoid mentat_native_table(void) {}\n' \
    "$2" >"$TMP/plant.c"
  cc -shared -fPIC -o "$1" "$TMP/plant.c" || bad "cannot build the planted object"
}
plant "$TMP/plant.so" "$TMP/marker"
good=$TMP/good
same_games "a fresh private cache" MENTAT_CACHE="$good" && ok
key=$(ls "$good" | sed -n 's/^native-\([0-9a-f]*\)\.so$/\1/p')
if [ ${#key} -eq 32 ] && [ "$(stat -c %a "$good")" = 700 ]; then ok
else bad "the cache holds one entry named by a 128-bit key, mode 0700" "$(ls -la "$good")"; fi
# cache directories to refuse: the planted object under the right key never runs, nothing is built there
refused() { # NAME DIR PATTERN
  rm -f "$TMP/marker"
  cp "$TMP/plant.so" "$2/native-$key.so"
  if same_games "$1" MENTAT_CACHE="$2"; then warns "$1" "$3"; fi
  if [ -e "$TMP/marker" ]; then bad "$1: the planted object ran"; else ok; fi
  if [ "$(ls "$2" | grep -vc "^native-$key.so$")" -eq 0 ]; then ok; else bad "$1: something was built there" "$(ls -la "$2")"; fi
}
mkdir "$TMP/open" && chmod 777 "$TMP/open"
refused "a cache writable by everyone" "$TMP/open" "is writable by its group and others (mode 0777)"
mkdir "$TMP/group" && chmod 770 "$TMP/group"
refused "a group-writable cache" "$TMP/group" "is writable by its group (mode 0770)"
if [ "$(id -u)" -eq 0 ]; then
  mkdir -m 700 "$TMP/theirs" && chown 65534 "$TMP/theirs"
  refused "a cache of another user" "$TMP/theirs" "belongs to user 'nobody' (uid 65534), not to you"
else # root's / stands for another user's directory: nothing can be planted or built in it
  same_games "a cache of another user" MENTAT_CACHE=/ && warns "a cache of another user" "belongs to user 'root' (uid 0)"
fi
mkdir -m 700 "$TMP/target"
ln -s "$TMP/target" "$TMP/link"
refused "a symbolic link as the cache" "$TMP/link" "is a symbolic link"
# entries to rebuild, never load
entry=$good/native-$key.so
cp "$entry" "$TMP/entry.so"
damaged() { # NAME PATTERN: the entry was just damaged
  rm -f "$TMP/marker"
  if same_games "$1" MENTAT_CACHE="$good"; then warns "$1" "$2"; fi
  if [ -e "$TMP/marker" ]; then bad "$1: the planted object ran"; fi
  if [ -f "$entry" ] && [ ! -L "$entry" ] && cmp -s "$entry" "$TMP/entry.so"; then ok
  else bad "$1: the entry was not rebuilt" "$(ls -la "$good")"; fi
}
cp "$TMP/plant.so" "$entry"
# a build directory left by a killed build is swept by the next build an hour later, a recent one kept
mkdir "$good/build-1-0-0" "$good/build-2-0-0" && : >"$good/build-1-0-0/mentat-native.c" && : >"$good/build-2-0-0/mentat-native.c"
touch -d '2 hours ago' "$good/build-1-0-0"
damaged "a planted entry" "has no valid trailer"
if [ ! -e "$good/build-1-0-0" ] && [ -e "$good/build-2-0-0/mentat-native.c" ]; then ok
else bad "a stale build directory: not swept, or a recent one swept" "$(ls -la "$good")"; fi
rm -rf "$good/build-2-0-0"
# shellcheck disable=SC2086
MENTAT_CACHE=$good "$MENTAT" $GAME --variant sprint --native >/dev/null 2>&1
other=$(ls "$good"/native-*.so | grep -v "$key")
if [ -n "$other" ]; then
  cp "$other" "$entry"
  damaged "another rule set's entry" "was built for another rule set"
else bad "no entry for the sprint variant's rule set" "$(ls -la "$good")"; fi
head -c $(($(wc -c <"$TMP/entry.so") / 2)) "$TMP/entry.so" >"$entry"
damaged "a truncated entry" "has no valid trailer"
: >"$entry"
damaged "an empty entry" "is empty"
cp "$TMP/entry.so" "$entry"
printf 'X' | dd of="$entry" bs=1 seek=3000 conv=notrunc 2>/dev/null
damaged "a corrupted entry" "is corrupt"
rm -f "$entry"
ln -s "$TMP/plant.so" "$entry"
damaged "an entry that is a symbolic link" "is a symbolic link"
rm -f "$entry"
mkfifo "$entry"
damaged "an entry that is a FIFO" "is not a regular file"
chmod 666 "$entry"
damaged "an entry writable by others" "is writable by others (mode 0666)"
# a quote, spaces, $(...) and backquotes in the cache path are only a name
weird="$TMP/it's a \$(touch $TMP/pwned1) \`touch $TMP/pwned2\` \"dir\""
same_games "a cache path with shell syntax" MENTAT_CACHE="$weird" && ok
if [ ! -e "$TMP/pwned1" ] && [ ! -e "$TMP/pwned2" ] && [ -f "$weird/native-$key.so" ]; then ok
else bad "a cache path with shell syntax: a command ran, or no entry" "$(ls -la "$TMP")"; fi
# a failed build leaves nothing behind and says why; so does a compiler that cannot be run
mkdir -m 700 "$TMP/fail"
# shellcheck disable=SC2086
CC=false MENTAT_CACHE="$TMP/fail" "$MENTAT" $GAME --native >/dev/null 2>"$TMP/e"
rc=$?
if [ $rc -ne 0 ] && grep -q "the system compiler failed: 'false' exited with status 1" "$TMP/e" && [ -z "$(ls -A "$TMP/fail")" ]; then ok
else bad "a failed build (exit $rc) left files or said no cause" "$(cat "$TMP/e"; ls -la "$TMP/fail")"; fi
printf '#!/bin/sh\necho "mycc: internal error in $*" >&2\nexit 3\n' >"$TMP/mycc"
chmod +x "$TMP/mycc"
# shellcheck disable=SC2086
CC="$TMP/mycc -pipe" MENTAT_CACHE="$TMP/fail" "$MENTAT" $GAME --native >/dev/null 2>"$TMP/e"
rc=$?
if [ $rc -ne 0 ] && grep -q "exited with status 3" "$TMP/e" && grep -q "mycc: internal error in -pipe -O1" "$TMP/e" &&
  [ -z "$(ls -A "$TMP/fail")" ]; then ok
else bad "a failing compiler's output is shown (exit $rc)" "$(cat "$TMP/e"; ls -la "$TMP/fail")"; fi
# shellcheck disable=SC2086
CC="$TMP/no-such-cc" MENTAT_CACHE="$TMP/fail" "$MENTAT" $GAME --native >/dev/null 2>"$TMP/e"
rc=$?
if [ $rc -ne 0 ] && grep -q "cannot run the system compiler '$TMP/no-such-cc': No such file or directory" "$TMP/e" &&
  [ -z "$(ls -A "$TMP/fail")" ]; then ok
else bad "a compiler that cannot be run (exit $rc)" "$(cat "$TMP/e"; ls -la "$TMP/fail")"; fi
# a cache that cannot be created names the real cause
: >"$TMP/file"
# shellcheck disable=SC2086
MENTAT_CACHE="$TMP/file/cache" "$MENTAT" $GAME --native >/dev/null 2>"$TMP/e"
rc=$?
if [ $rc -ne 0 ] && grep -q "cannot use the native cache directory '$TMP/file/cache': Not a directory" "$TMP/e"; then ok
else bad "an impossible cache path (exit $rc)" "$(cat "$TMP/e")"; fi
# HOME unset: XDG_CACHE_HOME, then HOME, then the password entry's home, then a per-user directory
if same_games "HOME unset, XDG_CACHE_HOME set" -u HOME -u MENTAT_CACHE XDG_CACHE_HOME="$TMP/xdg"; then
  if [ -f "$TMP/xdg/mentat/native-$key.so" ]; then ok; else bad "HOME unset: XDG_CACHE_HOME/mentat not used"; fi
fi
if [ "$(id -u)" -eq 0 ]; then # as nobody, whose home (/nonexistent) does not exist: the per-user directory
  pub=$(mktemp -d "${TMPDIR:-/tmp}/mentat-native-pub.XXXXXX") || exit 1
  chmod 755 "$pub"
  mkdir "$pub/t" && chmod 1777 "$pub/t"
  d=$pub/t/mentat-cache-65534
  # nobody runs a copy of the binary and of the fixture where nobody may read them (the checkout may be
  # in a private directory, as in the fresh-clone build of run-fresh-build.sh)
  cp "$MENTAT" "$pub/mentat" && cp -R tests/fixtures/race "$pub/race" && chmod -R a+rX "$pub/mentat" "$pub/race"
  NGAME="simulate --components $pub/race --games 6 --seed 3"
  # and finds the compiler where nobody may run it (a fresh machine's PATH may hold only private links to it)
  ccdir=$(dirname "$(readlink -f "$(command -v "${CC:-cc}")")")
  asnobody() { setpriv --reuid=65534 --regid=65534 --clear-groups env -u HOME -u XDG_CACHE_HOME -u MENTAT_CACHE TMPDIR="$pub/t" PATH="$ccdir:$PATH" "$@"; }
  # shellcheck disable=SC2086
  asnobody "$pub/mentat" $NGAME --native >"$TMP/o6" 2>"$TMP/e6"
  rc=$?
  strip "$TMP/o6" >"$TMP/o6s"
  if [ $rc -eq 0 ] && cmp -s "$TMP/vm6s" "$TMP/o6s" && [ "$(stat -c '%u %a' "$d")" = "65534 700" ] &&
    [ -f "$d/native-$key.so" ] && [ ! -e "$pub/t/.cache" ]; then ok
  else bad "HOME unset as nobody: the per-user cache (exit $rc)" "$(cat "$TMP/e6"; ls -laR "$pub")"; fi
  # another user made that directory first: refused, the planted object never runs, the run goes on
  rm -rf "$d"
  mkdir "$d" && chmod 777 "$d"
  plant "$d/native-$key.so" "$pub/t/marker"
  chmod 777 "$d/native-$key.so"
  # shellcheck disable=SC2086
  asnobody "$pub/mentat" $NGAME --native >"$TMP/o6" 2>"$TMP/e6"
  rc=$?
  strip "$TMP/o6" >"$TMP/o6s"
  if [ $rc -eq 0 ] && cmp -s "$TMP/vm6s" "$TMP/o6s" && [ ! -e "$pub/t/marker" ] &&
    grep -q "warning: --native: the native cache directory '$d' belongs to user 'root' (uid 0), not to you" "$TMP/e6"; then ok
  else bad "HOME unset as nobody: a per-user cache made by another user (exit $rc)" "$(cat "$TMP/e6")"; fi
  # a cache the user cannot write to says so
  mkdir -m 500 "$pub/ro" && chown 65534 "$pub/ro"
  # shellcheck disable=SC2086
  setpriv --reuid=65534 --regid=65534 --clear-groups env MENTAT_CACHE="$pub/ro" PATH="$ccdir:$PATH" "$pub/mentat" $NGAME --native >/dev/null 2>"$TMP/e"
  rc=$?
  if [ $rc -ne 0 ] && grep -q "cannot create a build directory in the native cache '$pub/ro': Permission denied" "$TMP/e"; then ok
  else bad "an unwritable cache (exit $rc)" "$(cat "$TMP/e")"; fi
  rm -rf "$pub"
fi

echo "$pass passed, $failn failed"
[ $failn -eq 0 ]
