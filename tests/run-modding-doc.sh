#!/bin/sh
# run-modding-doc.sh -- docs/modding.md is a test: the tutorial is followed,
# step by step, in an empty directory.
#
#   <!-- file: PATH -->     the next fenced block is written to PATH
#   <!-- append: PATH -->   the next fenced block is added to the end of PATH
#   ```console              each line `$ CMD` is run by sh in that directory,
#                           with `mentat` on the PATH, stdout and stderr
#                           together; the lines up to the next `$ ` or the
#                           fence are its output, compared exactly
#
# Then the mod the tutorial built (smugglers/) must be docs/modding/smugglers/
# file for file, so the example shipped is the tutorial's.  SHOW=1 prints what
# each command printed (to paste into the doc after a deliberate change);
# KEEP=DIR keeps the directory the tutorial was followed in.
# The last line of output is "N passed, N failed".
#
# Environment: BUILD (default build) is the directory holding `mentat`.
set -u
BUILD=${BUILD:-build}
ROOT=$(pwd)
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
DOC=docs/modding.md
if [ ! -x "$BUILD/mentat" ]; then
  echo "run-modding-doc: $BUILD/mentat not found (run make first)" >&2
  echo "0 passed, 1 failed"
  exit 1
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/mentat-modding.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
mkdir -p "$TMP/b" "$TMP/work"

# Split the doc: TMP/b/N (a file block's text, or a command) and TMP/b/N.want
# (its expected output); TMP/list holds "N kind line path" in doc order.
awk -v b="$TMP/b" -v list="$TMP/list" '
  function flush() { if (cmd) { close(b "/" n); close(b "/" n ".want") } cmd = 0 }
  /^<!-- (file|append): .* -->$/ { pending = $2; sub(/:$/, "", pending); path = $3; next }
  /^```/ && !inblock {
    inblock = 1; start = NR
    if (pending != "") { kind = pending; n++; printf "" > (b "/" n); print n " " kind " " NR " " path >> list }
    else if ($0 ~ /^```console[ \t]*$/) kind = "console"
    else kind = ""
    pending = ""
    next
  }
  /^```/ && inblock { flush(); if (kind == "file" || kind == "append") close(b "/" n); inblock = 0; kind = ""; next }
  inblock && (kind == "file" || kind == "append") { print > (b "/" n); next }
  inblock && kind == "console" && /^\$ / {
    flush(); n++; cmd = 1
    print substr($0, 3) > (b "/" n); printf "" > (b "/" n ".want")
    print n " cmd " NR " -" >> list
    next
  }
  inblock && kind == "console" && cmd { print > (b "/" n ".want"); next }
' "$DOC"

pass=0
failn=0
while read -r n kind line path; do
  case $kind in
  file | append)
    mkdir -p "$(dirname "$TMP/work/$path")"
    if [ "$kind" = file ]; then cp "$TMP/b/$n" "$TMP/work/$path"; else cat "$TMP/b/$n" >>"$TMP/work/$path"; fi
    ;;
  cmd)
    (cd "$TMP/work" && PATH="$BUILD:$PATH" sh "$TMP/b/$n") >"$TMP/b/$n.got" 2>&1
    if [ "${SHOW:-}" = 1 ]; then
      echo "== $DOC:$line: \$ $(cat "$TMP/b/$n")"
      cat "$TMP/b/$n.got"
    fi
    if cmp -s "$TMP/b/$n.want" "$TMP/b/$n.got"; then
      pass=$((pass + 1))
    else
      failn=$((failn + 1))
      echo "FAIL $DOC:$line: \$ $(cat "$TMP/b/$n")"
      diff "$TMP/b/$n.want" "$TMP/b/$n.got" | sed 's/^/    /' | head -20
    fi
    ;;
  esac
done <"$TMP/list"

if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp -r "$TMP/work/." "$KEEP"; fi
if diff -r docs/modding/smugglers "$TMP/work/smugglers" >"$TMP/tree.diff" 2>&1; then
  pass=$((pass + 1))
else
  failn=$((failn + 1))
  echo "FAIL docs/modding/smugglers/ is not the mod $DOC builds:"
  sed 's/^/    /' "$TMP/tree.diff" | head -20
fi
echo "$pass passed, $failn failed"
[ "$failn" -eq 0 ]
