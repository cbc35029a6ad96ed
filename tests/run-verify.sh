#!/bin/sh
# run-verify.sh -- `verify` (issue 15): can a position be reached, and how?
#   1. docs/verify.md: every command run, its output compared (tests/run-variants-doc.sh), and its
#      house rule is variants/examples/greedy_harkonnen.rules;
#   2. witnesses replay: each line found is saved and run by `mentat repl`, and its last line (the
#      check of the condition) passes -- from the setup (decisions of three or more factions and
#      random outcomes), from a console position, and under a house rule;
#   3. always: the hand limit proved in the base game (every line explored), refuted under the
#      deliberately broken house rule; with --jobs 2 the same answers;
#      --from a saved position gives the proof of the script that made it;
#   4. a budget that runs out says "unknown ... not a proof" (JSON proof false); --ints ends is
#      not a proof either;
#   5. --json parses (jsoncheck), with the witness as a list of lines;
#   6. errors: a query that does not parse (file:line:col and a caret), one that is not a boolean,
#      a misspelt faction (a suggestion), bad option values, no query; non-zero exit each;
#   7. the console: `verify` from the current position, the witness after `undo` says where it
#      starts, `help verify`.
# Last line: N passed, N failed.
BUILD=${BUILD:-build}
MENTAT=$BUILD/mentat
JSONCHECK=$BUILD/tests/jsoncheck
F=tests/fixtures/verify
GREEDY=variants/examples/greedy_harkonnen.rules
HAND='all(f in factions: hand_count(f) <= max_hand(f))'
SURVIVES='tokens(harkonnen, the_great_flat) > 0 and not battle_pending(harkonnen, the_great_flat)'
pass=0
failn=0
ok() { pass=$((pass + 1)); }
bad() { failn=$((failn + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | tail -15 | sed 's/^/    /'; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/mentat-verify.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM

# 1. the page
if out=$(DOC=docs/verify.md FINAL=greedy_harkonnen.rules:$GREEDY BUILD=$BUILD sh tests/run-variants-doc.sh 2>&1); then ok
else bad "docs/verify.md" "$out"; fi

# 2. witnesses replay.  witness NAME FILE: the lines between "Replay it in the console:" and "explored".
witness() { sed -n '/Replay it in the console:$/,/^explored /p' "$2" | sed '1d;$d' | sed 's/^  //' > "$TMP/$1.mentat"; }
replay() { # NAME [repl options]: the saved witness runs clean and ends with a passing check
  name=$1
  shift
  if [ ! -s "$TMP/$name.mentat" ]; then bad "$name: no witness" "$(cat "$TMP/$name.out")"; return; fi
  if out=$("$MENTAT" repl "$@" "$TMP/$name.mentat" 2>&1) && printf '%s\n' "$out" | grep -q ": 0 failed$" &&
     tail -1 "$TMP/$name.mentat" | grep -q "^check "; then ok
  else bad "$name: the witness does not replay" "$out"; fi
}
"$MENTAT" verify --seed 1 can 'fremen in winners and count(winners) == 1' by turn 2 --for fremen >"$TMP/fremen.out" 2>&1
witness fremen "$TMP/fremen.out"
replay fremen
# the line has decisions of at least three factions and random outcomes (seats, traitors, cards)
nf=$(grep -o '^do [a-z_]* \(atreides\|bene_gesserit\|emperor\|fremen\|harkonnen\|spacing_guild\)' "$TMP/fremen.mentat" | awk '{print $3}' | sort -u | wc -l)
if [ "$nf" -ge 3 ] && grep -q '^chance [a-z]' "$TMP/fremen.mentat" && grep -q '^chance on$' "$TMP/fremen.mentat"; then ok
else bad "the Fremen witness: three factions' decisions and a random outcome ($nf factions)" "$(cat "$TMP/fremen.mentat")"; fi
"$MENTAT" verify --from $F/bg-predicts-harkonnen.mentat can 'bene_gesserit in winners' by turn 1 --for harkonnen >"$TMP/bg.out" 2>&1
witness bg "$TMP/bg.out"
replay bg
"$MENTAT" verify --from $F/battle6.mentat can "$SURVIVES" this phase --for harkonnen >"$TMP/battle6.out" 2>&1
witness battle6 "$TMP/battle6.out"
replay battle6
"$MENTAT" verify --variant $GREEDY --from $F/harkonnen-seven.mentat always "$HAND" this phase >"$TMP/greedy.out" 2>&1
witness greedy "$TMP/greedy.out"
replay greedy --variant $GREEDY
# a witness must fail where its line does not hold: the greedy line without the house rule
if out=$("$MENTAT" repl "$TMP/greedy.mentat" 2>&1); then bad "the greedy witness replays without its house rule" "$out"; else ok; fi

# 3. always: proved, refuted; --jobs 2 agrees
"$MENTAT" verify --from $F/harkonnen-six.mentat always "$HAND" this phase >"$TMP/six.out" 2>&1
if grep -q "^yes: it holds at every position reachable in this phase (every line explored)$" "$TMP/six.out"; then ok
else bad "the hand limit is proved from six cards" "$(cat "$TMP/six.out")"; fi
"$MENTAT" verify --from $F/harkonnen-six.mentat always "$HAND" this phase --jobs 2 >"$TMP/six2.out" 2>&1
if grep -q "^yes: it holds at every position reachable in this phase (every line explored)$" "$TMP/six2.out"; then ok
else bad "the hand limit is proved with --jobs 2" "$(cat "$TMP/six2.out")"; fi
if grep -q "^no: a counterexample in this phase" "$TMP/greedy.out"; then ok
else bad "the greedy house rule breaks the hand limit" "$(cat "$TMP/greedy.out")"; fi
"$MENTAT" verify --variant $GREEDY --from $F/harkonnen-seven.mentat always "$HAND" this phase --jobs 2 >"$TMP/greedy2.out" 2>&1
witness greedy2 "$TMP/greedy2.out"
replay greedy2 --variant $GREEDY
"$MENTAT" verify --from $F/battle.mentat can "$SURVIVES" this phase --for harkonnen >"$TMP/battle.out" 2>&1
if grep -q "^no: no line reaches it in this phase (every line explored)$" "$TMP/battle.out"; then ok
else bad "the defender with 5 forces cannot survive (1.07.06.05)" "$(cat "$TMP/battle.out")"; fi

# --from a saved position: the same proof as from the script that made it
(cat $F/harkonnen-six.mentat; echo "save $TMP/six.yaml") | "$MENTAT" repl --allow-write "$TMP" - >"$TMP/save.out" 2>&1
"$MENTAT" verify --from "$TMP/six.yaml" always "$HAND" this phase >"$TMP/six-saved.out" 2>&1
if grep -q "^yes: it holds at every position reachable in this phase (every line explored)$" "$TMP/six-saved.out" &&
   [ "$(tail -1 "$TMP/six-saved.out" | sed 's/ in .*//')" = "$(tail -1 "$TMP/six.out" | sed 's/ in .*//')" ]; then ok
else bad "--from a saved position: the same proof" "$(cat "$TMP/save.out" "$TMP/six-saved.out")"; fi

# --others random: the policy is seeded by the position, so the same search twice
"$MENTAT" verify --from $F/harkonnen-six.mentat always "$HAND" this phase --for harkonnen --others random >"$TMP/r1.out" 2>&1
"$MENTAT" verify --from $F/harkonnen-six.mentat always "$HAND" this phase --for harkonnen --others random >"$TMP/r2.out" 2>&1
if grep -q "^yes: it holds at every position" "$TMP/r1.out" &&
   [ "$(tail -1 "$TMP/r1.out" | sed 's/ in .*//')" = "$(tail -1 "$TMP/r2.out" | sed 's/ in .*//')" ]; then ok
else bad "--others random: a proof, the same twice" "$(cat "$TMP/r1.out" "$TMP/r2.out")"; fi

# 4. budgets: not a proof
"$MENTAT" verify --json --from $F/harkonnen-six.mentat always "$HAND" this phase --max-positions 50 >"$TMP/budget.json" 2>&1
if grep -q '"answer":"unknown","verdict":"budget"' "$TMP/budget.json" && grep -q '"proof":false' "$TMP/budget.json" &&
   grep -q '"stop":"the budget of 50 positions ran out"' "$TMP/budget.json"; then ok
else bad "a position budget: unknown, not a proof" "$(cat "$TMP/budget.json")"; fi
"$MENTAT" verify --from $F/harkonnen-six.mentat always "$HAND" this phase --ints ends >"$TMP/ends.out" 2>&1
if grep -q "integer answers at the ends of their ranges only: not a proof" "$TMP/ends.out"; then ok
else bad "--ints ends says it is not a proof" "$(cat "$TMP/ends.out")"; fi

# 5. JSON
"$MENTAT" verify --json --from $F/battle6.mentat can "$SURVIVES" this phase --for harkonnen >"$TMP/w.json" 2>&1
if "$JSONCHECK" <"$TMP/w.json" && grep -q '"answer":"yes","verdict":"found"' "$TMP/w.json" &&
   grep -q '"witness":\["new factions=harkonnen,emperor seed=1 turns=10",' "$TMP/w.json" &&
   grep -q '"check tokens(harkonnen, the_great_flat) > 0 and not battle_pending(harkonnen, the_great_flat)"\]' "$TMP/w.json" &&
   grep -q '"positions_per_second":[0-9]' "$TMP/w.json"; then ok
else bad "--json: an object with the witness as a list" "$(cat "$TMP/w.json")"; fi

# 6. errors
err() { # DESCRIPTION PATTERN ARGS...: a non-zero exit and the pattern in the output
  d=$1
  p=$2
  shift 2
  out=$("$MENTAT" verify "$@" 2>&1)
  rc=$?
  if [ $rc -ne 0 ] && printf '%s\n' "$out" | grep -q -- "$p"; then ok; else bad "$d (exit $rc)" "$out"; fi
}
err "a query that does not parse" "<verify>:1:17: error: unexpected end of input" --from $F/battle.mentat can 'tokens(emperor) +' this phase
err "the caret under it" "^ *| *\^" --from $F/battle.mentat can 'tokens(emperor) +' this phase
err "not a boolean" "the query must be true or false" --from $F/battle.mentat can 'hand_count(emperor)' this phase
err "a misspelt faction" "unknown faction 'harknen' in --for (did you mean 'harkonnen'?)" --from $F/battle.mentat can true --for harknen
err "an unknown value" "unknown value or function 'hand_cnt'" --seed 1 can 'hand_cnt(fremen) > 0'
err "a bad budget" "--max-positions is a number" --seed 1 can true --max-positions lots
err "a bad bound" "by turn T: T is a turn from 1 to 1000" --seed 1 can true by turn 0
err "no condition" "needs a condition" --seed 1 can
err "no query" "usage: mentat verify" --seed 1
err "a missing start file" "cannot open" --from "$TMP/none.mentat" can true
err "a condition that fails to evaluate stops the search" "the condition cannot be evaluated at a position reached: <verify>:1:4: runtime error: division by zero" --seed 1 can '10 / turn > 3' within 5 decisions

# 7. the console
cat >"$TMP/console.mentat" <<EOT
new factions=atreides,harkonnen seed=1 turns=10
spice atreides 3
spice harkonnen 3
hand harkonnen lasgun crysknife maula_pistol slip_tip stunner chaumas chaumurky
phase bidding
verify always $HAND this phase --for harkonnen
expect output yes: it holds at every position reachable in this phase
spice atreides 4
undo
verify can hand_count(harkonnen) == 8 this phase --for harkonnen
expect output (the line starts at the current position
help verify
expect output verify can|always EXPR
EOT
if out=$("$MENTAT" repl "$TMP/console.mentat" 2>&1) && printf '%s\n' "$out" | grep -q ": 0 failed$"; then ok
else bad "the console's verify" "$out"; fi

echo "verify: $pass passed, $failn failed"
[ "$failn" -eq 0 ]
