#!/bin/sh
# run-simulate.sh -- `mentat simulate` tells the truth (issue 9.9):
#   - a failing game does not stop the run: every failing seed is listed, with
#     a line that replays it (pack options, variants and factions included),
#     the summary counts them, and the exit status is 1;
#   - the replay line, run as printed, reproduces that game's failure;
#   - with --jobs, a worker that dies (test hook MENTAT_TEST_KILL_WORKER) makes
#     the run report the missing games and exit 70;
#   - bad --factions lists are usage errors;
#   - --ruleset basic|advanced is a pack option: it reaches the replay line,
#     and any other ruleset is a usage error;
#   - --bots takes one bot per faction; search bots play a game through;
#   - every expansion pack plays its factions with every invariant holding.
# Last line: N passed, N failed.
BUILD=${BUILD:-build}
MENTAT=$BUILD/mentat
pass=0
failn=0
ok() { pass=$((pass + 1)); }
bad() { failn=$((failn + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | tail -12 | sed 's/^/    /'; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/mentat-sim.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
RACE="--components tests/fixtures/race"
FLAKY="--variant tests/fixtures/failing/flaky-invariant.rules"

# 1. every failing game listed; the run goes on; exit 1
"$MENTAT" simulate $RACE $FLAKY --factions red,blue --games 30 --seed 1 >"$TMP/out" 2>"$TMP/err"
rc=$?
nfail=$(grep -c 'failed at decision' "$TMP/err")
summary=$(head -1 "$TMP/out")
if [ $rc -eq 1 ] && [ "$nfail" -gt 1 ] && [ "$nfail" -lt 30 ] &&
   printf '%s\n' "$summary" | grep -q "^30 games ($nfail failed)"; then ok
else bad "failing games listed ($nfail listed, exit $rc, summary: $summary)" "$(cat "$TMP/err")"; fi
# every listed seed has its own replay line with the variant and the factions
nrep=$(grep -c "reproduce: mentat simulate $RACE $FLAKY --factions red,blue --games 1 --seed " "$TMP/err")
if [ "$nrep" -eq "$nfail" ]; then ok; else bad "replay lines ($nrep for $nfail failures)" "$(cat "$TMP/err")"; fi

# 2. the replay line reproduces the failure, at the same decision
line=$(grep -m1 'failed at decision' "$TMP/err")
rep=$(grep -m1 'reproduce:' "$TMP/err" | sed 's/^  reproduce: mentat //')
# shellcheck disable=SC2086
"$MENTAT" $rep >"$TMP/out1" 2>"$TMP/err1"
rc=$?
if [ $rc -eq 1 ] && grep -qF "$line" "$TMP/err1" && head -1 "$TMP/out1" | grep -q '^1 games (1 failed)'; then ok
else bad "replaying '$rep' (exit $rc)" "$(cat "$TMP/err1")"; fi

# 3. JSON lists the failures too
"$MENTAT" simulate $RACE $FLAKY --games 30 --seed 1 --json >"$TMP/json" 2>/dev/null
n=$(grep -o '{"seed":' "$TMP/json" | wc -l) # each failure's object (the run's own "seed" follows a comma)
if grep -q '"failures":'"$n"',' "$TMP/json" && [ "$n" -gt 1 ]; then ok; else bad "JSON failures ($n seeds)" "$(cat "$TMP/json")"; fi

# 4. a worker killed by a signal: missing games reported, exit 70
MENTAT_TEST_KILL_WORKER=2 "$MENTAT" simulate $RACE --games 20 --jobs 2 --seed 1 >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ $rc -eq 70 ] && grep -q 'worker 2 was killed by signal 9: 9 of its 10 games are missing' "$TMP/err" &&
   grep -q '9 of the 20 games are missing' "$TMP/out"; then ok
else bad "killed worker (exit $rc)" "$(cat "$TMP/out" "$TMP/err")"; fi
# and without the hook the same run is complete
"$MENTAT" simulate $RACE --games 20 --jobs 2 --seed 1 >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ $rc -eq 0 ] && head -1 "$TMP/out" | grep -q '^20 games (0 failed)'; then ok; else bad "two jobs (exit $rc)" "$(cat "$TMP/out" "$TMP/err")"; fi

# 5. faction lists: empty, empty names and unknown names are usage errors
for f in "" "," "red,,blue" "red,purple"; do
  "$MENTAT" simulate $RACE --games 2 --factions "$f" >"$TMP/out" 2>"$TMP/err"
  rc=$?
  if [ $rc -eq 64 ] && grep -q -- '--factions' "$TMP/err"; then ok; else bad "simulate --factions '$f' (exit $rc)" "$(cat "$TMP/out" "$TMP/err")"; fi
  "$MENTAT" play --factions "$f" >"$TMP/out" 2>"$TMP/err"
  rc=$?
  if [ $rc -eq 64 ]; then ok; else bad "play --factions '$f' (exit $rc)" "$(head -3 "$TMP/out"; cat "$TMP/err")"; fi
done

# 6. numbers: every 64-bit seed runs (game i uses seed S+i, wrapping); a number out of range says its range
"$MENTAT" simulate $RACE --games 2 --seed 18446744073709551615 >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ $rc -eq 0 ] && head -1 "$TMP/out" | grep -q '^2 games (0 failed)'; then ok; else bad "the largest seed (exit $rc)" "$(cat "$TMP/out" "$TMP/err")"; fi
"$MENTAT" simulate $RACE --games 1000000000000 >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ $rc -eq 64 ] && grep -q 'games must be a whole number from 1 to 100000000' "$TMP/err"; then ok; else bad "--games out of range (exit $rc)" "$(cat "$TMP/err")"; fi

# 7. the ruleset: kept in the replay line; an unknown one is a usage error
"$MENTAT" simulate $RACE $FLAKY --ruleset advanced --factions red,blue --games 30 --seed 1 >"$TMP/out" 2>"$TMP/err"
if grep -q "reproduce: mentat simulate $RACE $FLAKY --ruleset advanced --factions red,blue --games 1 --seed " "$TMP/err"; then ok
else bad "--ruleset in the replay line" "$(cat "$TMP/err")"; fi
for r in expert ""; do
  "$MENTAT" simulate $RACE --ruleset "$r" --games 1 >"$TMP/out" 2>"$TMP/err"
  rc=$?
  if [ $rc -eq 64 ] && grep -q -- '--ruleset is basic or advanced' "$TMP/err"; then ok; else bad "simulate --ruleset '$r' (exit $rc)" "$(cat "$TMP/err")"; fi
done

# 8. bots per seat (issue 13): a list names one bot per faction, in game order, and reaches the replay
# line; a game with search bots ends with every invariant kept; a wrong count or name is a usage error
"$MENTAT" simulate --games 1 --seed 3 --bots search,heuristic,random,search,heuristic,random --search-budget 2,4,3 \
  >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ $rc -eq 0 ] && head -1 "$TMP/out" | grep -q '^1 games (0 failed)'; then ok; else bad "a game with search bots (exit $rc)" "$(cat "$TMP/out" "$TMP/err")"; fi
"$MENTAT" simulate $RACE $FLAKY --factions red,blue --bots random,heuristic --games 30 --seed 1 >"$TMP/out" 2>"$TMP/err"
if grep -q "reproduce: mentat simulate $RACE $FLAKY --factions red,blue --bots random,heuristic --games 1 --seed " "$TMP/err"; then ok
else bad "--bots list in the replay line" "$(cat "$TMP/err")"; fi
for b in search,random best random,,random; do
  "$MENTAT" simulate --bots "$b" --games 1 >"$TMP/out" 2>"$TMP/err"
  rc=$?
  if [ $rc -eq 64 ] && grep -q -- '--bots' "$TMP/err"; then ok; else bad "simulate --bots '$b' (exit $rc)" "$(cat "$TMP/err")"; fi
done

# 8. every expansion pack (expansions/*/) laid over the base game plays its factions with every
# invariant, Basic, Advanced and under the WBC variant, random and heuristic bots (its own
# conservation laws included: the Tleilaxu's Face Dancers)
for p in expansions/*/; do
  [ -d "$p" ] || continue
  facs=atreides,harkonnen,emperor,fremen
  for f in "$p"factions/*.yaml; do [ -e "$f" ] && facs="$facs,$(basename "$f" .yaml)"; done
  for opts in "--ruleset basic" "--ruleset advanced" "--variant wbc-2022"; do
    for b in random heuristic; do
      n=60; [ "$b" = heuristic ] && n=8
      # shellcheck disable=SC2086 # the options are words
      "$MENTAT" simulate --pack "$p" --factions "$facs" $opts --bots $b --games $n --seed 1 >"$TMP/out" 2>"$TMP/err"
      rc=$?
      if [ $rc -eq 0 ] && head -1 "$TMP/out" | grep -q "^$n games (0 failed)"; then ok
      else bad "simulate --pack $p --factions $facs $opts --bots $b (exit $rc)" "$(cat "$TMP/out" "$TMP/err")"; fi
    done
  done
done

echo "$pass passed, $failn failed"
[ "$failn" -eq 0 ]
