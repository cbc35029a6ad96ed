#!/bin/sh
# run-native.sh -- the native tier (--native, interpreter/native.c) plays the
# same games as the VM:
#   1. simulate prints the same results with and without --native (Basic,
#      Advanced, WBC 2022), the per-decision instruction peak and timings aside;
#   2. a failing game fails at the same decision with the same message;
#   3. the shared object is built once and then taken from the cache;
#   4. without a working compiler, --native says so and exits non-zero;
#   5. a value whose operand stack outgrows the translation's array (291 nested
#      additions) stays bytecode and gives the VM's answer.
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

echo "$pass passed, $failn failed"
[ $failn -eq 0 ]
