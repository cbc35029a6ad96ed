#!/bin/sh
# run-variants-doc.sh -- the house-rule tutorial (docs/variants.md) is a test.
#
# Walks docs/variants.md from top to bottom, in a scratch directory where `mentat` is this build:
#   - a block fenced ```rules file=NAME (or ```text file=NAME) writes its text to NAME (a later
#     block with the same NAME replaces it: the tutorial's file grows step by step);
#   - a block fenced ```console holds commands, each on a line starting with "$ ", followed by the
#     output the command must print (stdout and stderr together, compared line by line, trailing
#     blanks ignored).  In the expected output "<...>" stands for any text within a line (timings,
#     absolute paths), and a line "..." for any number of lines (a long output shown in part).
#     Every other line must match exactly, and nothing may follow the last expected line unless
#     the block ends with "...".
# Then it checks that the tutorial's finished file is variants/examples/flat_shipping.rules, and
# that every variants/examples/*.rules file passes `mentat check --variant FILE`.
# The last line of output is "N passed, N failed".
#
# Environment: BUILD (default build) is the directory holding `mentat`.
set -u
BUILD=${BUILD:-build}
ROOT=$(pwd)
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
DOC=${DOC:-docs/variants.md}
FINAL=${FINAL:-flat_shipping.rules:variants/examples/flat_shipping.rules}
if [ ! -x "$BUILD/mentat" ]; then
  echo "run-variants-doc: $BUILD/mentat not found (run make first)" >&2
  echo "0 passed, 1 failed"
  exit 1
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/mentat-variants-doc.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT INT TERM
mkdir -p "$WORK/bin" "$WORK/.steps"
ln -s "$BUILD/mentat" "$WORK/bin/mentat"

# Split the doc into numbered steps: .steps/N.file (+ N.name) or .steps/N.cmd (+ N.exp, N.line).
awk -v dir="$WORK/.steps" '
  function next_step() { n++; return sprintf("%s/%04d", dir, n) }
  /^```(rules|text)[ \t]+file=[^ \t]+[ \t]*$/ && !mode {
    mode = "file"; s = next_step(); name = $0; sub(/^.*file=/, "", name); sub(/[ \t]+$/, "", name)
    print name > (s ".name"); close(s ".name"); out = s ".file"; printf "" > out; next
  }
  /^```console[ \t]*$/ && !mode { mode = "console"; out = ""; next }
  /^```/ && mode {
    if (out != "") close(out)
    if (mode == "console" && cmd != "") close(cmd)
    mode = ""; out = ""; cmd = ""; next
  }
  mode == "file" { print > out; next }
  mode == "console" && /^\$ / {
    if (out != "") close(out)
    s = next_step(); cmd = s ".cmd"; line = $0; sub(/^\$ /, "", line)
    print line > cmd; close(cmd)
    print NR > (s ".line"); close(s ".line")
    out = s ".exp"; printf "" > out; next
  }
  mode == "console" && out != "" { print > out; next }
' "$DOC"

# match EXP ACT: does the actual output follow the expected one?  Prints the first difference.
match() {
  awk '
    function trim(x) { sub(/[ \t\r]+$/, "", x); return x }
    function line_ok(p, a,    k, parts, i, pos, at) {
      if (index(p, "<...>") == 0) return p == a
      k = split(p, parts, /<\.\.\.>/)
      if (substr(a, 1, length(parts[1])) != parts[1]) return 0
      pos = length(parts[1]) + 1
      for (i = 2; i < k; i++) {
        at = index(substr(a, pos), parts[i]); if (at == 0) return 0
        pos += at - 1 + length(parts[i])
      }
      return length(a) - pos + 1 >= length(parts[k]) && substr(a, length(a) - length(parts[k]) + 1) == parts[k]
    }
    FNR == NR { e[++m] = trim($0); next }
    { a[++n] = trim($0) }
    END {
      while (m > 0 && e[m] == "") m--
      while (n > 0 && a[n] == "") n--
      j = 1
      for (i = 1; i <= m; i++) {
        if (e[i] == "...") {
          if (i == m) exit 0
          while (j <= n && !line_ok(e[i + 1], a[j])) j++
          if (j > n) { printf "expected line not found: %s\n", e[i + 1]; exit 1 }
          continue
        }
        if (j > n) { printf "output ends before: %s\n", e[i]; exit 1 }
        if (!line_ok(e[i], a[j])) { printf "expected: %s\n     got: %s\n", e[i], a[j]; exit 1 }
        j++
      }
      if (j <= n) { printf "unexpected output: %s\n", a[j]; exit 1 }
    }
  ' "$1" "$2"
}

pass=0
fail=0
for s in "$WORK"/.steps/*; do
  case $s in *.name) ;; *.cmd) ;; *) continue ;; esac
  base=${s%.*}
  if [ -f "$base.name" ]; then
    cp "$base.file" "$WORK/$(cat "$base.name")"
    continue
  fi
  cmd=$(cat "$base.cmd")
  ( cd "$WORK" && PATH="$WORK/bin:$PATH" sh -c "$cmd" ) > "$base.out" 2>&1 </dev/null
  if why=$(match "$base.exp" "$base.out"); then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL $DOC:$(cat "$base.line"): \$ $cmd"
    printf '%s\n' "$why" | sed 's/^/    /'
  fi
done

# the page's finished files are the examples shipped (FINAL: "DOC_FILE:REPO_FILE ...")
for pair in $FINAL; do
  f=${pair%%:*}
  r=${pair#*:}
  if cmp -s "$WORK/$f" "$r"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL $DOC: the page's last $f differs from $r"
  fi
done
# every example variant checks clean
[ "$DOC" = docs/variants.md ] && for v in variants/examples/*.rules; do
  [ -f "$v" ] || continue
  if out=$("$BUILD/mentat" check --variant "$v" 2>&1); then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL mentat check --variant $v"
    printf '%s\n' "$out" | head -10 | sed 's/^/    /'
  fi
done
echo "$DOC: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
