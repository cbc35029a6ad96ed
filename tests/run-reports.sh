#!/bin/sh
# run-reports.sh -- `mentat diff` and `mentat graph` (interpreter/ruleset_report.c).
#
#   1. every ```report block of docs/reports.md: its `$ mentat ...` line is run
#      from the checkout's root and the output must be the rest of the block,
#      byte for byte;
#   2. diff: the race fixture's `sprint` variant is exactly one replaced rule;
#      tests/fixtures/reports/relay.rules gives exactly its replaced, disabled,
#      added, superseded and amended rules; no --variant says there is nothing
#      to compare (exit 0); every --json output is one JSON value
#      (build/tests/jsoncheck, which must itself reject broken JSON);
#   3. graph: the standard pack's graph of --rule 1.06.03.01 has the expected
#      edges; the whole graph is the same twice; an unknown rule exits 65;
#   4. Graphviz renders: `dot -Tsvg` of that graph (and of the whole pack, and
#      of titles with quotes) succeeds and the SVG holds the rules' titles.
#      Without `dot` this FAILS with the command that installs it.
# Environment: BUILD (default build).  Last line: "reports: N passed, N failed".
set -u
BUILD=${BUILD:-build}
MENTAT=$BUILD/mentat
JSONCHECK=$BUILD/tests/jsoncheck
RACE="--components tests/fixtures/race"
RELAY="--variant tests/fixtures/reports/relay.rules"
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() {
  fail=$((fail + 1))
  echo "FAIL $1"
  if [ -n "${2:-}" ]; then printf '%s\n' "$2" | head -n 30 | sed 's/^/    /'; fi
}
for f in "$MENTAT" "$JSONCHECK"; do
  [ -x "$f" ] || { echo "run-reports: $f not found (run make)"; echo "reports: 0 passed, 1 failed"; exit 1; }
done
TMP=$(mktemp -d "${TMPDIR:-/tmp}/mentat-reports.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM

# ---- 1. the examples of docs/reports.md ---------------------------------
awk -v dir="$TMP" '
  /^```report[ \t]*$/ { n++; inblock = 1; first = 1; next }
  /^```[ \t]*$/ && inblock { inblock = 0; close(dir "/ex" n ".want"); next }
  inblock && first { first = 0; sub(/^\$ /, ""); print > (dir "/ex" n ".cmd"); close(dir "/ex" n ".cmd");
                     printf "" > (dir "/ex" n ".want"); next }
  inblock { print > (dir "/ex" n ".want") }
' docs/reports.md
nex=0
for c in "$TMP"/ex*.cmd; do
  [ -e "$c" ] || continue
  nex=$((nex + 1))
  w=${c%.cmd}.want
  cmd=$(cat "$c")
  case $cmd in mentat\ *) ;; *) bad "docs/reports.md: an example that is not a mentat command: $cmd"; continue ;; esac
  # shellcheck disable=SC2086 # the command's words, as written in the doc
  "$MENTAT" ${cmd#mentat } > "$TMP/got" 2>&1
  if cmp -s "$TMP/got" "$w"; then ok; else bad "docs/reports.md example: $cmd" "$(diff "$w" "$TMP/got")"; fi
done
[ "$nex" -ge 5 ] && ok || bad "docs/reports.md has $nex report examples, expected at least 5"

# ---- 2. diff ---------------------------------------------------------------
# JSON changes as "kind rule target" lines (the output has one change per line)
changes() { sed -n 's/^{"kind":"\([a-z]*\)","rule":"\([^"]*\)",.*"target":\(null\|"[^"]*"\),.*/\1 \2 \3/p' | tr -d '"'; }

$MENTAT diff $RACE --variant sprint --json > "$TMP/sprint.json" 2>&1
printf 'replaced 1.03 null\n' > "$TMP/want"
if changes < "$TMP/sprint.json" | cmp -s - "$TMP/want"; then ok; else bad "diff sprint: exactly 1.03 replaced" "$(cat "$TMP/sprint.json")"; fi

$MENTAT diff $RACE $RELAY --json > "$TMP/relay.json" 2>&1
cat > "$TMP/want" <<'EOF'
replaced 1.03 null
added relay.2 null
amended relay.2 1.06
added relay.1 null
superseded relay.1 1.07
added relay.3 null
superseded relay.3 relay.1
disabled 1.10.02 null
EOF
if changes < "$TMP/relay.json" | cmp -s - "$TMP/want"; then ok; else bad "diff relay: its exact changes" "$(changes < "$TMP/relay.json")"; fi
grep -q '"kind":"disabled","rule":"1.10.02".*"variant":"relay","in_force":false}' "$TMP/relay.json" && ok ||
  bad "diff relay: 1.10.02 disabled by relay, not in force" "$(cat "$TMP/relay.json")"

# a variant of the standard pack built on the Advanced game (extends advanced), named by its file:
# compared with the Advanced game, its disable of an advanced ability is listed with the declared name
$MENTAT diff --variant landsraad-4.01 --json > "$TMP/l401.json" 2>&1
grep -q '"ruleset":"advanced"' "$TMP/l401.json" && grep -q '"kind":"disabled","rule":"2.02.21".*"variant":"landsraad_401"' "$TMP/l401.json" &&
  grep -q '"kind":"superseded","rule":"landsraad.4-01.3","title":"[^"]*","target":"1.05.00"' "$TMP/l401.json" && ok ||
  bad "diff --variant landsraad-4.01: against the Advanced game, 2.02.21 disabled" "$(cat "$TMP/l401.json")"

# play --json: one JSON object per line (narration, decisions, the end), each valid
"$MENTAT" play --seed 1 --turns 1 --json > "$TMP/play.jsonl" 2>&1
badlines=0
while IFS= read -r line; do printf '%s' "$line" | "$JSONCHECK" >/dev/null 2>&1 || badlines=$((badlines + 1)); done < "$TMP/play.jsonl"
if [ "$badlines" -eq 0 ] && grep -q '^{"event":"decision","faction":' "$TMP/play.jsonl" &&
   tail -1 "$TMP/play.jsonl" | grep -q '^{"event":"end","decisions":[0-9]*,"winners":\['; then ok; else
  bad "play --json: every line one JSON object ($badlines bad)" "$(head -3 "$TMP/play.jsonl")"; fi

$MENTAT diff $RACE > "$TMP/none.txt" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q '^no variant given: nothing to compare' "$TMP/none.txt"; then ok; else bad "diff without --variant: exit $rc" "$(cat "$TMP/none.txt")"; fi
$MENTAT diff $RACE --json > "$TMP/none.json" 2>&1
grep -q '"variants":\[\],"changes":\[\]}' "$TMP/none.json" && ok || bad "diff --json without --variant: no changes" "$(cat "$TMP/none.json")"
$MENTAT diff $RACE --variant nosuch > "$TMP/unknown.txt" 2>&1
rc=$?
[ $rc -eq 65 ] && grep -q "unknown variant 'nosuch'" "$TMP/unknown.txt" && ok || bad "diff --variant nosuch: exit $rc" "$(cat "$TMP/unknown.txt")"

for j in sprint relay none; do
  if out=$("$JSONCHECK" < "$TMP/$j.json" 2>&1); then ok; else bad "diff --json ($j) is not one JSON value: $out" "$(cat "$TMP/$j.json")"; fi
done
# the checker can fail: broken JSON is refused
for broken in '{"a":[1,2,]}' '{"a":"x\q"}' '{"a":1} {}' '{"a":01}' '["unterminated]'; do
  if printf '%s' "$broken" | "$JSONCHECK" 2>/dev/null; then bad "jsoncheck accepted $broken"; else ok; fi
done
printf '{"a":[1,-2.5e3,true,false,null,"\\u00e9\\n"],"b":{}}' | "$JSONCHECK" && ok || bad "jsoncheck refused valid JSON"

# ---- 3. graph ------------------------------------------------------------
$MENTAT graph --rule 1.06.03.01 > "$TMP/cost.dot" 2>&1
for e in '"1.06.03.01" -> "value shipping_cost" [label="defines"]' \
         '"1.06.03.01" -> "action ship" [label="guards"]' \
         '"1.06.03.01" -> "action cross_ship" [label="guards"]' \
         '"2.06.06" -> "1.06.03.01" [label="supersedes"' \
         '"2.06.09" -> "1.06.03.01" [label="supersedes"' \
         '"3.01.11.03" -> "1.06.03.01" [label="supersedes"' \
         '"2.06.06" -> "value shipping_cost" [label="overrides"]'; do
  grep -qF "  $e" "$TMP/cost.dot" && ok || bad "graph --rule 1.06.03.01 lacks the edge $e" "$(cat "$TMP/cost.dot")"
done
grep -q 'peripheries=2' "$TMP/cost.dot" && ok || bad "graph: karama-cancellable 2.06.06 is not marked" "$(cat "$TMP/cost.dot")"
$MENTAT graph > "$TMP/all1.dot" 2>&1
$MENTAT graph > "$TMP/all2.dot" 2>&1
cmp -s "$TMP/all1.dot" "$TMP/all2.dot" && ok || bad "graph: two runs differ"
$MENTAT graph --rule 1.06.03.011 > "$TMP/err.txt" 2>&1
rc=$?
[ $rc -eq 65 ] && grep -q 'did you mean 1.06.03.01' "$TMP/err.txt" && ok || bad "graph --rule 1.06.03.011: exit $rc" "$(cat "$TMP/err.txt")"
for args in "graph --json" "graph --phase 1.04 --rule 1.04.01" "graph --rule" "diff --phase 1.04"; do
  # shellcheck disable=SC2086
  $MENTAT $args > "$TMP/usage.txt" 2>&1
  rc=$?
  [ $rc -eq 64 ] && ok || bad "mentat $args: exit $rc, expected 64 (usage)" "$(cat "$TMP/usage.txt")"
done
$MENTAT graph --phase bidding > "$TMP/bid.dot" 2>&1 && grep -q '^  "1.04.06.02" \[' "$TMP/bid.dot" && ok ||
  bad "graph --phase bidding lacks 1.04.06.02" "$(head -5 "$TMP/bid.dot")"

# ---- 4. Graphviz renders it -------------------------------------------------
if ! command -v dot > /dev/null; then
  bad "dot (Graphviz) is not installed: run: sudo apt-get install -y graphviz (or make deps as root)"
else
  if dot -Tsvg "$TMP/cost.dot" > "$TMP/cost.svg" 2> "$TMP/dot.err"; then
    for t in '1.06.03.01' 'HALF PRICE SHIPPING: the' 'shipping_cost' 'Cost: 1 spice per force into'; do
      grep -qF "$t" "$TMP/cost.svg" && ok || bad "the SVG of graph --rule 1.06.03.01 lacks '$t'"
    done
  else
    bad "dot -Tsvg refused graph --rule 1.06.03.01" "$(cat "$TMP/dot.err")"
  fi
  dot -Tsvg "$TMP/all1.dot" > "$TMP/all.svg" 2> "$TMP/dot.err" && [ ! -s "$TMP/dot.err" ] && ok ||
    bad "dot -Tsvg of the whole standard pack's graph" "$(cat "$TMP/dot.err")"
  $MENTAT graph $RACE $RELAY > "$TMP/relay.dot" 2>&1
  if dot -Tsvg "$TMP/relay.dot" > "$TMP/relay.svg" 2> "$TMP/dot.err"; then
    grep -qF 'every racer &quot;three&quot; fuel' "$TMP/relay.svg" && ok || bad "the SVG lacks a title with quotes"
  else
    bad "dot -Tsvg of the relay graph (titles with quotes)" "$(cat "$TMP/dot.err")"
  fi
fi

echo "reports: $pass passed, $fail failed"
[ $fail -eq 0 ]
