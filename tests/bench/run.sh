#!/bin/sh
# make bench: the figures ARCHITECTURE §7 names, on this machine.  Timings are
# for reading, never for pass/fail.  BUILD is the build directory.
BUILD=${1:-build}
set -e
# A simulate run's output, then whether its rate meets the target (issue 14): KIND is games or
# decisions, TARGET the rate per second, LINES how much of the output to show.
target() {
  kind=$1 goal=$2 lines=$3
  shift 3
  out=$("$@")
  echo "$out" | head -n "$lines"
  echo "$out" | head -1 | awk -v kind="$kind" -v goal="$goal" '{
    for (i = 2; i <= NF; i++) if ($i == kind "/s," || $i == kind "/s") rate = $(i - 1)
    gsub(",", "", rate)
    if (rate + 0 >= goal) printf "   target %d %s/s: met\n", goal, kind
    else printf "   target %d %s/s: not met, %.1fx away (the wall and the next lever: docs/performance.md, Where it stands)\n", goal, kind, goal / rate
  }'
}
echo "== machine: $(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
t0=$(date +%s%N)
"$BUILD/mentat" check
t1=$(date +%s%N)
echo "== load and compile the standard pack: $(( (t1 - t0) / 1000000 )) ms"
echo "== mentat lsp: a didChange on the largest .rules file of the pack, to its diagnostics published (target: 100 ms):"
sh tests/bench/lsp.sh "$BUILD"
cc -O2 -Iinterpreter tests/bench/bench_clone.c "$BUILD/libmentat.a" $(pkg-config --libs yaml-0.1) -lm -o "$BUILD/bench_clone"
echo "== $("$BUILD/bench_clone" .)"
cc -O2 -Iinterpreter tests/bench/bench_kernels.c "$BUILD/libmentat.a" $(pkg-config --libs yaml-0.1) -lm -o "$BUILD/bench_kernels"
echo "== hot kernels, per call, CPU time: hand-written C over the board API against the VM (target: 3x or less)"
"$BUILD/bench_kernels" .
echo "== the same kernels with --native (the rules' pure functions as C; the first run builds them):"
"$BUILD/bench_kernels" . --native | grep kernel
echo "== 6-faction Basic games, random bots (level by level), one core:"
target games 1000 100 "$BUILD/mentat" simulate --games 1000 --seed 1
echo "== the same games without the invariant checks (--no-invariants, for balance runs):"
target decisions 1000000 2 "$BUILD/mentat" simulate --games 1000 --seed 1 --no-invariants
echo "== 6-faction Advanced games (--ruleset advanced), random bots, one core:"
target games 1000 2 "$BUILD/mentat" simulate --ruleset advanced --games 1000 --seed 1
echo "== the same Advanced games without the invariant checks:"
target decisions 1000000 2 "$BUILD/mentat" simulate --ruleset advanced --games 1000 --seed 1 --no-invariants
echo "== 8-faction Advanced games with the Ixians & Tleilaxu expansion, random bots, one core, every invariant,"
echo "   beside the 6-faction Advanced games above (compare decisions/s: per decision the expansion must not be slower):"
"$BUILD/mentat" simulate --expansion ixians_tleilaxu --ruleset advanced --games 1000 --seed 1 | head -2
echo "== the same 8-faction games, Basic:"
"$BUILD/mentat" simulate --expansion ixians_tleilaxu --games 1000 --seed 1 | head -2
echo "== the same Advanced games, every invariant, --native:"
"$BUILD/mentat" simulate --ruleset advanced --native --games 1000 --seed 1 | head -2
echo "== uniform bots (uniform over the full list of legal answers), one core:"
"$BUILD/mentat" simulate --games 50 --seed 1 --bots uniform | head -2
echo "== heuristic bots (each decision tries up to 24 answers on copies), one core:"
"$BUILD/mentat" simulate --games 10 --seed 1 --bots heuristic | head -2
echo "== the same, two jobs:"
"$BUILD/mentat" simulate --games 2000 --seed 1 --jobs 2 | head -2
echo "== search bots in every seat (each decision: 4 rounds of playouts, 8 decisions deep, over the heuristic's 4 best answers), one core:"
"$BUILD/mentat" simulate --games 2 --seed 1 --bots search --no-invariants | head -1
echo "== verify (positions/s): the hand-limit proof over a bidding phase (every answer, every card), one core, then two jobs:"
"$BUILD/mentat" verify --from tests/fixtures/verify/harkonnen-six.mentat always 'all(f in factions: hand_count(f) <= max_hand(f))' this phase | tail -1
"$BUILD/mentat" verify --from tests/fixtures/verify/harkonnen-six.mentat always 'all(f in factions: hand_count(f) <= max_hand(f))' this phase --jobs 2 | tail -1
echo "== verify from the setup: can the Fremen win alone by turn 2 (a witness over seat, traitor and card draws):"
"$BUILD/mentat" verify --seed 1 can 'fremen in winners and count(winners) == 1' by turn 2 --for fremen | tail -1
echo "== the bot ladder: search, heuristic and random in mixed seats, ${LADDER_GAMES:-210} games (make bench LADDER_GAMES=N), two jobs:"
sh tests/bench/ladder.sh "$BUILD" "${LADDER_GAMES:-210}" 1 2
