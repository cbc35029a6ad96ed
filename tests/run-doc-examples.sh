#!/bin/sh
# run-doc-examples.sh -- the language manual's examples are tests.
#
# Every block fenced ```rules in docs/*.md must pass `mentat check` against the
# test game's components (exit 0); every block fenced ```rules-error must be
# rejected as a rules error (exit 65).  Each block is written to a temp file
# named DOC@LINE.rules (LINE: the line of the opening fence), padded with
# blank lines so that the line numbers in diagnostics are the lines of the
# doc itself.  It also checks that the manual mentions every built-in
# function of interpreter/builtins.def.  The last line of output is
# "N passed, N failed".
#
# Environment: BUILD (default build) is the directory holding `mentat`.
set -u
BUILD=${BUILD:-build}
ROOT=$(pwd)
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
MENTAT=$BUILD/mentat
COMPONENTS=$ROOT/tests/fixtures/race
if [ ! -x "$MENTAT" ]; then
  echo "run-doc-examples: $MENTAT not found (run make first)" >&2
  echo "0 passed, 1 failed"
  exit 1
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/mentat-doc.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
mkdir -p "$TMP/docs"

# Split the docs into blocks: TMP/docs/NAME.md@LINE.rules plus a list of
# "kind path" lines in TMP/list (kind: rules or rules-error).
for doc in docs/*.md; do
  [ -f "$doc" ] || continue
  awk -v out="$TMP/$doc" -v list="$TMP/list" '
    /^```rules(-error)?[ \t]*$/ && !inblock {
      inblock = 1
      kind = $0; sub(/^```/, "", kind); sub(/[ \t]+$/, "", kind)
      file = out "@" NR ".rules"
      for (i = 1; i <= NR; i++) printf "\n" > file
      print kind " " file >> list
      next
    }
    /^```[ \t]*$/ && inblock { inblock = 0; close(file); next }
    inblock { print > file }
  ' "$doc"
done

pass=0
fail=0
if [ -f "$TMP/list" ]; then
  while read -r kind file; do
    rel=${file#"$TMP"/}
    out=$(cd "$TMP" && "$MENTAT" check --alone --components "$COMPONENTS" "$rel" 2>&1 </dev/null)
    rc=$?
    if [ "$kind" = rules ]; then want=0; else want=65; fi
    if [ "$rc" -eq "$want" ]; then
      pass=$((pass + 1))
    else
      fail=$((fail + 1))
      echo "FAIL $rel: exit $rc, expected $want"
      [ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/    /'
    fi
  done < "$TMP/list"
fi
# The manual documents every built-in of interpreter/builtins.def.
if [ -f interpreter/builtins.def ] && [ -f docs/language.md ]; then
  sed -n 's/^B(\([a-z_0-9]*\),.*/\1/p' interpreter/builtins.def > "$TMP/builtins"
  while read -r b; do
    if grep -q "\`${b}[(\`]" docs/language.md; then
      pass=$((pass + 1))
    else
      fail=$((fail + 1))
      echo "FAIL docs/language.md does not document the built-in '$b' (interpreter/builtins.def)"
    fi
  done < "$TMP/builtins"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
