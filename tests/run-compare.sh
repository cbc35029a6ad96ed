#!/bin/sh
# run-compare.sh -- `mentat compare` and `mentat merge` (issue 13):
#   1. identical rule sets (--against V --variant V) play identical games: every
#      difference is exactly 0, nothing is significant, the hashes are equal;
#   2. a decisive disable (tests/fixtures/compare/no_fremen_win.rules: no Fremen
#      special victory) lowers the Fremen's share significantly after Holm;
#   3. --json parses (jsoncheck) and has the fields of the issue;
#   4. --shard i/n run as separate processes (GNU parallel if installed, else
#      shell background jobs) and merged equal the single run, in JSON and text;
#      records round-trip (merge of the single run's records = its summary);
#   5. --csv has a header and one line per faction;
#   6. --plot: gnuplot draws an SVG that rsvg-convert renders to a PNG;
#   7. usage errors: no --variant, a bad --shard; merge of a shard twice fails;
#   8. simulate --json and its text give seed, ruleset, variants, bots, hash and intervals;
#      simulate --shard and --records: its shards merge to the single run;
#   9. progress shows on a terminal (script(1)), not with --quiet, not on a pipe;
#  10. --without W (an option switched on): one, several, written out, refusals.
# Last line: N passed, N failed.
BUILD=${BUILD:-build}
MENTAT=$BUILD/mentat
JSONCHECK=$BUILD/tests/jsoncheck
pass=0
failn=0
ok() { pass=$((pass + 1)); }
bad() { failn=$((failn + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | tail -15 | sed 's/^/    /'; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/mentat-compare.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
NOFREMEN=tests/fixtures/compare/no_fremen_win.rules
GUILD=variants/examples/no_guild_win.rules
GAMES=150

# 1. identical rule sets
"$MENTAT" compare --against $GUILD --variant $GUILD --games $GAMES --jobs 2 --json >"$TMP/same.json" 2>"$TMP/same.err"
rc=$?
if [ $rc -eq 0 ] && "$JSONCHECK" <"$TMP/same.json" && ! grep -q '"significant":true' "$TMP/same.json" &&
   [ "$(grep -o '"diff":{"value":0.0000,"ci":\[0.0000,0.0000\]}' "$TMP/same.json" | wc -l)" -eq 6 ]; then ok
else bad "identical rule sets: every difference exactly 0, nothing significant (exit $rc)" "$(cat "$TMP/same.json" "$TMP/same.err")"; fi
if grep -q '"hashes":{"base":"\([0-9a-f]*\)","variant":"\1"}' "$TMP/same.json"; then ok
else bad "identical rule sets have equal hashes" "$(cat "$TMP/same.json")"; fi
"$MENTAT" compare --against $GUILD --variant $GUILD --games 60 --jobs 2 >"$TMP/same.txt" 2>&1
if grep -q "no faction's win share changes significantly" "$TMP/same.txt" && grep -q "McNemar's exact test" "$TMP/same.txt" &&
   grep -q "first seed 1, ruleset basic, bots random" "$TMP/same.txt"; then ok
else bad "identical rule sets: the text verdict says nothing changed" "$(cat "$TMP/same.txt")"; fi

# 2. the decisive disable
"$MENTAT" compare --variant $NOFREMEN --games $GAMES --jobs 2 --json --records "$TMP/all.jsonl" >"$TMP/all.json" 2>"$TMP/all.err"
rc=$?
if [ $rc -eq 0 ] && grep -q '{"faction":"fremen","base":{[^}]*},"variant":{[^}]*},"diff":{"value":-[0-9.]*,"ci":\[-[0-9.]*,-[0-9.]*\]},"p":[0-9.]*,"significant":true}' "$TMP/all.json"; then ok
else bad "no_fremen_win: the Fremen's share falls, significantly (exit $rc)" "$(cat "$TMP/all.json" "$TMP/all.err")"; fi
"$MENTAT" compare --variant $NOFREMEN --games $GAMES --jobs 2 >"$TMP/all.txt" 2>&1
if grep -q "^  no_fremen_win lowers fremen's win share by [0-9.]* points \[[0-9.]*, [0-9.]*\], significant after Holm" "$TMP/all.txt"; then ok
else bad "no_fremen_win: the verdict line" "$(cat "$TMP/all.txt")"; fi

# 3. --json: one object with the issue's fields
if "$JSONCHECK" <"$TMP/all.json"; then ok; else bad "compare --json does not parse" "$(cat "$TMP/all.json")"; fi
missing=""
for k in '"games":150' '"seed":1' '"ruleset":"basic"' '"variants":\["no_fremen_win"\]' '"against":\[\]' '"bots":"random"' \
         '"hashes":{"base":"[0-9a-f]\{16\}","variant":"[0-9a-f]\{16\}"}' '"base":{"wins":[0-9]*,"share":[0-9.]*,"ci":\[[0-9.]*,[0-9.]*\]}' \
         '"victories":{' '"mean_turns":' '"mean_decisions":' '"verdict":\["no_fremen_win lowers fremen'; do
  grep -q "$k" "$TMP/all.json" || missing="$missing $k"
done
if [ -z "$missing" ]; then ok; else bad "compare --json lacks:$missing" "$(cat "$TMP/all.json")"; fi

# 4. shards as separate processes, merged = the single run; records round-trip
if [ "$(wc -l <"$TMP/all.jsonl")" -eq $((2 * GAMES + 1)) ] && head -1 "$TMP/all.jsonl" | "$JSONCHECK" &&
   head -1 "$TMP/all.jsonl" | grep -q '^{"mentat_records":2,"command":"compare","seed":1,"games":150,"shard":"1/1",' &&
   sed -n 2p "$TMP/all.jsonl" | "$JSONCHECK"; then ok
else bad "records: the run's header, then one JSON line per game of each side" "$(head -3 "$TMP/all.jsonl")"; fi
if command -v parallel >/dev/null 2>&1; then
  how="GNU parallel"
  parallel --will-cite "$MENTAT" compare --variant $NOFREMEN --games $GAMES --jobs 1 --quiet --shard {}/3 \
    --records "$TMP/shard-{}.jsonl" ">" /dev/null ::: 1 2 3
else
  how="shell background jobs"
  for i in 1 2 3; do
    "$MENTAT" compare --variant $NOFREMEN --games $GAMES --jobs 1 --quiet --shard $i/3 --records "$TMP/shard-$i.jsonl" >/dev/null &
  done
  wait
fi
"$MENTAT" merge --json "$TMP"/shard-*.jsonl >"$TMP/merged.json" 2>"$TMP/merged.err"
if cmp -s "$TMP/all.json" "$TMP/merged.json"; then ok
else bad "three shards ($how) merged differ from the single run" "$(diff "$TMP/all.json" "$TMP/merged.json"; cat "$TMP/merged.err")"; fi
"$MENTAT" merge "$TMP"/shard-*.jsonl >"$TMP/merged.txt" 2>&1
if cmp -s "$TMP/all.txt" "$TMP/merged.txt"; then ok
else bad "merged text summary differs from the single run's" "$(diff "$TMP/all.txt" "$TMP/merged.txt")"; fi
"$MENTAT" merge --json "$TMP/all.jsonl" >"$TMP/round.json" 2>&1
if cmp -s "$TMP/all.json" "$TMP/round.json"; then ok
else bad "records round-trip: merge of the run's own records differs" "$(diff "$TMP/all.json" "$TMP/round.json")"; fi
if "$MENTAT" merge "$TMP/shard-1.jsonl" "$TMP/shard-1.jsonl" >/dev/null 2>"$TMP/twice.err"; then
  bad "merge accepted the same shard twice"
elif grep -q "shard 1/3 is already in '.*shard-1.jsonl'" "$TMP/twice.err"; then ok
else bad "merge of a shard twice: the message" "$(cat "$TMP/twice.err")"; fi

# 5. --csv
"$MENTAT" compare --variant $NOFREMEN --games 40 --jobs 2 --csv >"$TMP/out.csv" 2>&1
if head -1 "$TMP/out.csv" | grep -q '^faction,games,base_wins,base_share,base_lo,base_hi,variant_wins,' &&
   [ "$(wc -l <"$TMP/out.csv")" -eq 7 ] && grep -q '^fremen,40,' "$TMP/out.csv"; then ok
else bad "--csv: a header and one line per faction" "$(cat "$TMP/out.csv")"; fi

# 6. --plot: gnuplot's SVG, rendered
"$MENTAT" merge --plot "$TMP/plot.svg" "$TMP/all.jsonl" >/dev/null 2>"$TMP/plot.err"
if [ -s "$TMP/plot.svg" ] && grep -q "<svg" "$TMP/plot.svg" && grep -q "gnuplot" "$TMP/plot.svg" && grep -q "fremen" "$TMP/plot.svg" &&
   rsvg-convert "$TMP/plot.svg" -o "$TMP/plot.png" 2>"$TMP/rsvg.err" &&
   [ "$(od -An -tx1 -N8 "$TMP/plot.png" | tr -d ' \n')" = 89504e470d0a1a0a ] && [ "$(wc -c <"$TMP/plot.png")" -gt 5000 ]; then ok
else bad "--plot: an SVG drawn by gnuplot, rendered to PNG" "$(cat "$TMP/plot.err" "$TMP/rsvg.err" 2>/dev/null)"; fi
[ -n "${PLOT_PNG:-}" ] && cp "$TMP/plot.png" "$PLOT_PNG"

# 7. usage errors
"$MENTAT" compare --games 10 >/dev/null 2>"$TMP/u1"; rc=$?
if [ $rc -eq 64 ] && grep -q -- "--variant V" "$TMP/u1"; then ok; else bad "compare without --variant: exit $rc" "$(cat "$TMP/u1")"; fi
"$MENTAT" compare --variant $NOFREMEN --games 10 --shard 4/3 >/dev/null 2>"$TMP/u2"; rc=$?
if [ $rc -eq 64 ] && grep -q -- "--shard is I/N" "$TMP/u2"; then ok; else bad "--shard 4/3: exit $rc" "$(cat "$TMP/u2")"; fi

# 8. simulate reports the same way: the run's identity and each faction's share with its interval
"$MENTAT" simulate --variant $GUILD --games 30 --jobs 2 --json >"$TMP/sim.json" 2>&1
if "$JSONCHECK" <"$TMP/sim.json" && grep -q '"win_rate":{' "$TMP/sim.json" &&
   grep -q '"seed":1,"ruleset":"basic","variants":\["no_guild_win"\],"bots":"random","hash":"[0-9a-f]\{16\}"' "$TMP/sim.json" &&
   grep -q '{"faction":"fremen","wins":[0-9]*,"share":[0-9.]*,"ci":\[[0-9.]*,[0-9.]*\]}' "$TMP/sim.json"; then ok
else bad "simulate --json: seed, ruleset, variants, bots, hash and per-faction ci" "$(cat "$TMP/sim.json")"; fi
"$MENTAT" simulate --variant $GUILD --games 10 >"$TMP/sim.txt" 2>&1
if grep -q "^seed 1 (game i plays seed 1+i), ruleset basic, variants: no_guild_win, bots random, rule-set hash " "$TMP/sim.txt" &&
   grep -q "^  fremen  *[0-9.]*% \[ *[0-9.]*, *[0-9.]*\]$" "$TMP/sim.txt"; then ok
else bad "simulate text: the run's identity and intervals" "$(cat "$TMP/sim.txt")"; fi

# simulate --records and --shard: three shards merged = the single run's records merged
"$MENTAT" simulate --games 45 --jobs 2 --no-invariants --records "$TMP/sim-all.jsonl" >/dev/null 2>&1
for i in 1 2 3; do
  "$MENTAT" simulate --games 45 --no-invariants --shard $i/3 --records "$TMP/sim-shard-$i.jsonl" >/dev/null 2>&1 &
done
wait
"$MENTAT" merge --json "$TMP/sim-all.jsonl" >"$TMP/sim-all.json" 2>&1
"$MENTAT" merge --json "$TMP"/sim-shard-*.jsonl >"$TMP/sim-merged.json" 2>&1
if [ "$(wc -l <"$TMP/sim-all.jsonl")" -eq 46 ] && "$JSONCHECK" <"$TMP/sim-all.json" && grep -q '"games":45,' "$TMP/sim-all.json" &&
   cmp -s "$TMP/sim-all.json" "$TMP/sim-merged.json"; then ok
else bad "simulate --shard: three shards merged differ from the single run" "$(cat "$TMP/sim-all.json"; diff "$TMP/sim-all.json" "$TMP/sim-merged.json")"; fi

# 9. progress: on a terminal only (script(1) gives one), never with --quiet
if command -v script >/dev/null 2>&1; then
  script -qec "$MENTAT compare --variant $NOFREMEN --games 300 --jobs 2 --seed 5 >/dev/null" /dev/null >"$TMP/tty.out" 2>&1
  script -qec "$MENTAT compare --variant $NOFREMEN --games 300 --jobs 2 --seed 5 --quiet >/dev/null" /dev/null >"$TMP/tty-quiet.out" 2>&1
  "$MENTAT" compare --variant $NOFREMEN --games 300 --jobs 2 --seed 5 >/dev/null 2>"$TMP/notty.err"
  script -qec "$MENTAT simulate --games 150 --jobs 2 --no-invariants >/dev/null" /dev/null >"$TMP/tty-sim2.out" 2>&1
  script -qec "$MENTAT simulate --games 150 --no-invariants >/dev/null" /dev/null >"$TMP/tty-sim1.out" 2>&1
  if grep -q "simulate: [0-9]*/150 games, [0-9.]* games/s" "$TMP/tty-sim2.out" &&
     grep -q "simulate: [0-9]*/150 games, [0-9.]* games/s" "$TMP/tty-sim1.out"; then ok
  else bad "simulate's progress on a terminal, with one job and with two" "$(cat "$TMP/tty-sim1.out" "$TMP/tty-sim2.out" | tr '\r' '\n' | tail -4)"; fi
  if grep -q "compare: [0-9]*/300 games, [0-9.]* games/s, [0-9]* s left" "$TMP/tty.out" &&
     ! grep -q "games/s" "$TMP/tty-quiet.out" && [ ! -s "$TMP/notty.err" ]; then ok
  else bad "progress on a terminal only, off with --quiet" "$(cat "$TMP/tty.out" "$TMP/tty-quiet.out" "$TMP/notty.err" | tr '\r' '\n' | tail -5)"; fi
fi

# 10. --without W: an option switched on (W its no_ variant), on the six base factions with an
#     expansion (docs/balance.md, docs/expansions.md).  One --without: the base side plays W, the
#     compared side not, and the verdict names it; several: one comparison each (the others off),
#     then all together, one JSON line each; the first equals the same comparison written out with
#     --against and --variant; records, shards and plots take one comparison only.
SIX=atreides,bene_gesserit,emperor,fremen,harkonnen,spacing_guild
EXP="--expansion ixians_tleilaxu --factions $SIX --games 24 --jobs 2"
"$MENTAT" compare $EXP --without no_sandtrout --json >"$TMP/w1.json" 2>"$TMP/w1.err"
rc=$?
if [ $rc -eq 0 ] && "$JSONCHECK" <"$TMP/w1.json" && grep -q '"variants":\[\],"against":\["no_sandtrout"\]' "$TMP/w1.json" &&
   grep -q '"verdict":\["without no_sandtrout' "$TMP/w1.json"; then ok
else bad "--without no_sandtrout: base plays it, the compared side not, the verdict names it (exit $rc)" "$(cat "$TMP/w1.json" "$TMP/w1.err")"; fi
"$MENTAT" compare $EXP --without no_sandtrout --without no_cheap_hero_traitor --json >"$TMP/w2.jsonl" 2>"$TMP/w2.err"
rc=$?
n=$(wc -l <"$TMP/w2.jsonl")
parsed=0
i=1
while [ $i -le "$n" ]; do sed -n "${i}p" "$TMP/w2.jsonl" | "$JSONCHECK" && parsed=$((parsed + 1)); i=$((i + 1)); done
if [ $rc -eq 0 ] && [ "$n" -eq 3 ] && [ $parsed -eq 3 ] &&
   sed -n 3p "$TMP/w2.jsonl" | grep -q '"variants":\[\],"against":\["no_sandtrout","no_cheap_hero_traitor"\]' &&
   sed -n 3p "$TMP/w2.jsonl" | grep -q '"verdict":\["without no_sandtrout, no_cheap_hero_traitor'; then ok
else bad "two --without: three comparisons, one JSON line each, the last with every option on (exit $rc)" "$(cat "$TMP/w2.jsonl" "$TMP/w2.err")"; fi
"$MENTAT" compare $EXP --against no_sandtrout --against no_cheap_hero_traitor --variant no_cheap_hero_traitor --json >"$TMP/w2a.json" 2>&1
if sed -n 1p "$TMP/w2.jsonl" | cmp -s - "$TMP/w2a.json"; then ok
else bad "the first --without comparison is --against both --variant the other, written out" "$(sed -n 1p "$TMP/w2.jsonl"; cat "$TMP/w2a.json")"; fi
"$MENTAT" compare $EXP --without no_sandtrout --without no_cheap_hero_traitor >"$TMP/w2.txt" 2>&1
if [ "$(grep -c '^== switched on: ' "$TMP/w2.txt")" -eq 3 ] && grep -q '^== switched on: every option of the --without variants ==' "$TMP/w2.txt"; then ok
else bad "two --without, as text: three headed comparisons" "$(cat "$TMP/w2.txt")"; fi
"$MENTAT" compare $EXP --without no_sandtrout --without no_cheap_hero_traitor --records "$TMP/w.jsonl" >"$TMP/w3.out" 2>&1
rc=$?
if [ $rc -eq 64 ] && grep -q 'give one --without at a time' "$TMP/w3.out" && [ ! -e "$TMP/w.jsonl" ]; then ok
else bad "--records with several --without: refused before any game (exit $rc)" "$(cat "$TMP/w3.out")"; fi
"$MENTAT" compare --games 2 >"$TMP/w4.out" 2>&1
rc=$?
if [ $rc -eq 64 ] && grep -q -- '--without W' "$TMP/w4.out"; then ok
else bad "neither --variant nor --without: the usage names both (exit $rc)" "$(cat "$TMP/w4.out")"; fi

echo "compare: $pass passed, $failn failed"
[ $failn -eq 0 ]
