#!/bin/sh
# run-golden.sh -- golden tests: exact diagnostics and exact game logs.
#
#  tests/golden/rules/NAME.rules   `mentat check` against the test game's
#                                  components; stderr must equal NAME.err byte
#                                  for byte, the exit status must be 65 if
#                                  NAME.err holds an error, else 0 (none, or
#                                  warnings only).  An
#                                  optional NAME.flags holds extra options
#                                  (such as --variant V).
#  tests/golden/generated/NAME     inputs too big to commit (a 1 MB line,
#                                  10,000 nested parentheses, 100,000 rules,
#                                  a chain of 60,000 additions),
#                                  generated here; expected stderr in
#                                  tests/golden/generated-expect/NAME.err.
#  tests/golden/run/NAME.args      a one-line argument list for `mentat`, in
#                                  shell syntax (quotes group words);
#                                  stdout must equal NAME.out, and stderr
#                                  NAME.err when that file exists.
#
# Environment: BUILD (default build); UPDATE=1 rewrites the expectations
# instead of comparing (review the diff before committing).  Prints a unified
# diff per mismatch; the last line is "N passed, N failed".
set -u
BUILD=${BUILD:-build}
UPDATE=${UPDATE:-0}
ROOT=$(pwd)
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
MENTAT=$BUILD/mentat
COMPONENTS=tests/fixtures/race
if [ ! -x "$MENTAT" ]; then
  echo "run-golden: $MENTAT not found (run make first)" >&2
  echo "0 passed, 1 failed"
  exit 1
fi
# A hang is a failure too, when timeout(1) is available.
if command -v timeout >/dev/null 2>&1; then LIMIT="timeout 120"; else LIMIT=""; fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/mentat-golden.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
pass=0
fail=0

# compare NAME EXPECTED-FILE ACTUAL-FILE: update or diff, and count.
compare() {
  if [ "$UPDATE" = 1 ]; then
    if [ ! -f "$2" ] || ! cmp -s "$2" "$3"; then cp "$3" "$2" && echo "updated $2"; fi
    pass=$((pass + 1))
  elif [ -f "$2" ] && cmp -s "$2" "$3"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL $1"
    if [ -f "$2" ]; then diff -u "$2" "$3" | sed "s|$3|actual|"
    else echo "    (no expectation file $2)"; fi
  fi
}

# check_one NAME DIR FILE EXPECT: runs `mentat check` in DIR on FILE (a path
# relative to DIR, as it will appear in diagnostics).
check_one() {
  flags=
  [ -f "${4%.err}.flags" ] && flags=$(cat "${4%.err}.flags")
  # shellcheck disable=SC2086 # the flags are split into words on purpose
  (cd "$2" && $LIMIT "$MENTAT" check --alone --components "$ROOT/$COMPONENTS" $flags "$3" \
     >/dev/null 2>"$TMP/err" </dev/null)
  rc=$?
  # Anything but 0 or 65 (a crash, a signal, a timeout, a missing binary) is
  # a failure, and is never recorded as an expectation.
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 65 ]; then
    fail=$((fail + 1))
    echo "FAIL $1: exit status $rc"
    sed 's/^/    /' "$TMP/err" | head -20
    return
  fi
  if grep -q ': error: ' "$4" 2>/dev/null || { [ "$UPDATE" = 1 ] && grep -q ': error: ' "$TMP/err"; }; then want=65; else want=0; fi
  if [ "$UPDATE" != 1 ] && [ "$rc" -ne "$want" ]; then
    fail=$((fail + 1))
    echo "FAIL $1: exit status $rc, expected $want"
    diff -u "$4" "$TMP/err" 2>/dev/null | sed "s|$TMP/err|actual|"
    return
  fi
  if [ "$UPDATE" = 1 ] && [ "$rc" -ne "$want" ]; then
    echo "warning: $1 exits $rc (expected $want); check the expectation by hand"
  fi
  compare "$1" "$4" "$TMP/err"
}

# 1. Broken (and a few clean) rule files.
for f in tests/golden/rules/*.rules; do
  [ -f "$f" ] || continue
  check_one "$f" "$ROOT" "$f" "${f%.rules}.err"
done

# 2. Generated inputs, written under TMP so that diagnostics still name
#    tests/golden/generated/NAME.rules.
GEN=$TMP/tests/golden/generated
mkdir -p "$GEN"
awk 'BEGIN { s = "x"; while (length(s) < 1048576) s = s s;
             printf "rule 1.1 \"%s\" { let = 1 }\n", s }' > "$GEN/long-line.rules"
awk 'BEGIN { printf "value 1.1 \"deep\" deep(): int = ";
             for (i = 0; i < 10000; i++) printf "(";  printf "1";
             for (i = 0; i < 10000; i++) printf ")";  printf "\n" }' > "$GEN/deep-parens.rules"
awk 'BEGIN { for (i = 1; i <= 100000; i++) printf "rule 9.%d \"generated rule %d\" { }\n", i, i }' \
  > "$GEN/many-rules.rules"
awk 'BEGIN { printf "value 1.1 \"chain\" chain(): int = 1"; for (i = 0; i < 60000; i++) printf " + 1";
             printf "\n" }' > "$GEN/long-chain.rules"
mkdir -p tests/golden/generated-expect
for f in "$GEN"/*.rules; do
  name=$(basename "$f" .rules)
  check_one "tests/golden/generated/$name.rules" "$TMP" "tests/golden/generated/$name.rules" \
    "tests/golden/generated-expect/$name.err"
done

# 3. Seeded runs: stdout must match.
for a in tests/golden/run/*.args; do
  [ -f "$a" ] || continue
  # The argument list is read as shell words: quotes group, globs expand.
  eval "set -- $(cat "$a")"
  $LIMIT "$MENTAT" "$@" >"$TMP/out" 2>"$TMP/runerr" </dev/null
  rc=$?
  if [ "$rc" -ne 0 ]; then
    fail=$((fail + 1))
    echo "FAIL $a: exit status $rc"
    sed 's/^/    /' "$TMP/runerr" | head -20
    continue
  fi
  compare "$a" "${a%.args}.out" "$TMP/out"
  # stderr too (refusals of scripted answers), when an expectation exists
  if [ -f "${a%.args}.err" ] || { [ "$UPDATE" = 1 ] && [ -s "$TMP/runerr" ]; }; then
    compare "$a (stderr)" "${a%.args}.err" "$TMP/runerr"
  fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
