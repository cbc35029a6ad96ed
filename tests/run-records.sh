#!/bin/sh
# run-records.sh -- records, merge, the plot and the workers can be trusted (issue 22):
#   1. nothing from a records file or a path reaches gnuplot as a command: names
#      with a newline or a quote are refused (old and new format), a newline in
#      the --plot path runs nothing; gnuplot's own reason is reported (a fake
#      gnuplot that fails), a missing gnuplot is named as such, an unwritable
#      --plot path names its real cause, merge --plot /dev/full fails;
#   2. a full temporary directory changes nothing (results travel on pipes);
#      records on a full file system stop the run with ENOSPC named (a tmpfs
#      mounted here when root; skipped with a message otherwise);
#   3. merge refuses anything but one complete run: shards of different runs,
#      a lone shard, a directory, an empty file, numbers that are not whole or
#      out of range, old records without a header, a line cut short, a seed
#      outside its shard, an unknown field;
#   4. outputs are opened before the first game; records are appended game by
#      game: a run stopped by SIGTERM keeps its games, --resume finishes it and
#      the result equals the uninterrupted run; a cut-short last line is dropped;
#   5. workers die with their parent (simulate, compare, verify; kill -9 and
#      SIGTERM) and SIGTERM removes the plot's temporary file;
#   6. output errors: compare --records /dev/full, simulate/merge/play/compare
#      to a full standard output: exit 74 with the cause.
# Last line: N passed, N failed.
BUILD=${BUILD:-build}
MENTAT=$BUILD/mentat
case $MENTAT in /*) ;; *) MENTAT=$(pwd)/$MENTAT ;; esac
JSONCHECK=$BUILD/tests/jsoncheck
pass=0
failn=0
ok() { pass=$((pass + 1)); }
bad() { failn=$((failn + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | tail -12 | sed 's/^/    /'; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/mentat-records.XXXXXX") || exit 1
FULL=
cleanup() {
  [ -n "$FULL" ] && umount "$FULL" 2>/dev/null
  rm -rf "$TMP"
}
trap cleanup EXIT INT TERM
NOFREMEN=tests/fixtures/compare/no_fremen_win.rules
RACE="--components tests/fixtures/race"

# A process is gone: no such pid, or a zombie waiting for init.
gone() {
  st=$(ps -o stat= -p "$1" 2>/dev/null)
  [ -z "$st" ] || case $st in Z*) true ;; *) false ;; esac
}
# Waits (at most 10 s) until every pid given is gone.
all_gone() {
  n=0
  while [ $n -lt 100 ]; do
    left=
    for p in "$@"; do gone "$p" || left="$left $p"; done
    [ -z "$left" ] && return 0
    sleep 0.1
    n=$((n + 1))
  done
  echo "still running:$left"
  for p in $left; do kill -9 "$p" 2>/dev/null; done
  return 1
}
# Waits (at most 30 s) until FILE has at least N lines.
lines_at_least() {
  n=0
  while [ $n -lt 300 ]; do
    [ -f "$1" ] && [ "$(wc -l <"$1")" -ge "$2" ] && return 0
    sleep 0.1
    n=$((n + 1))
  done
  return 1
}

# a valid run to tamper with: 20 paired games, and its shards
"$MENTAT" compare --variant $NOFREMEN --games 20 --jobs 2 --quiet --records "$TMP/run.jsonl" --json >"$TMP/run.json" 2>"$TMP/run.err" ||
  bad "compare for the records to tamper with" "$(cat "$TMP/run.err")"
for i in 1 2; do
  "$MENTAT" compare --variant $NOFREMEN --games 20 --quiet --shard $i/2 --records "$TMP/sh$i.jsonl" >/dev/null 2>&1
done
HEADER=$(head -1 "$TMP/run.jsonl")
REC=$(sed -n 2p "$TMP/run.jsonl")

# 1. gnuplot runs nothing from data or a path
cd "$TMP" || exit 1
OLDREC='{"seed":1,"side":"base","hash":"524e8fd1c10bf6c7","ruleset":"basic","variants":[],"bots":"random","factions":["atreides","x\"\nsystem \"touch pwned-old\"\nset title \"y"],"ok":true,"winners":[],"victory":null,"turns":10,"decisions":556}'
printf '%s\n' "$OLDREC" >evil-old.jsonl
"$MENTAT" merge --plot evil-old.svg evil-old.jsonl >/dev/null 2>evil-old.err
rc=$?
if [ $rc -eq 65 ] && [ ! -e pwned-old ] && grep -q "without the header that names their run" evil-old.err; then ok
else bad "an old records file with a faction name that injects gnuplot commands (exit $rc)" "$(cat evil-old.err; ls)"; fi
printf '%s\n' "$HEADER" | sed 's/"bots":"random"/"bots":"random\\"\\nsystem \\"touch pwned-bots\\"\\n"/' >evil-bots.jsonl
sed 1d run.jsonl >>evil-bots.jsonl
"$MENTAT" merge --plot evil-bots.svg evil-bots.jsonl >/dev/null 2>evil-bots.err
rc=$?
if [ $rc -eq 65 ] && [ ! -e pwned-bots ] && grep -q "evil-bots.jsonl:1: the field 'bots' holds a name that is not" evil-bots.err; then ok
else bad "a bots string that injects gnuplot commands (exit $rc)" "$(cat evil-bots.err)"; fi
printf '%s\n' "$HEADER" | sed 's/"atreides"/"atre\\u0027ides"/' >evil-fac.jsonl
"$MENTAT" merge evil-fac.jsonl >/dev/null 2>evil-fac.err
rc=$?
if [ $rc -eq 65 ] && grep -q "the field 'factions' holds a name" evil-fac.err; then ok
else bad "a quote in a faction name (exit $rc)" "$(cat evil-fac.err)"; fi
NLPATH="x'
system 'touch pwned-path'
.svg"
"$MENTAT" merge --plot "$NLPATH" run.jsonl >/dev/null 2>nl.err
rc=$?
if [ $rc -eq 0 ] && [ ! -e pwned-path ] && grep -q "<svg" "$NLPATH"; then ok
else bad "a newline in the --plot path runs nothing (exit $rc)" "$(cat nl.err; ls)"; fi
mkdir fakebin
printf '#!/bin/sh\ncat >/dev/null\necho "fake gnuplot: line 3: no such terminal" >&2\nexit 1\n' >fakebin/gnuplot
chmod +x fakebin/gnuplot
PATH="$TMP/fakebin:$PATH" "$MENTAT" merge --plot fail.svg run.jsonl >fail.out 2>fail.err
rc=$?
if [ $rc -eq 74 ] && grep -q "^gnuplot: fake gnuplot: line 3: no such terminal" fail.err && grep -q "gnuplot failed (exit 1)" fail.err &&
   ! grep -q "fake gnuplot" fail.out && [ ! -e fail.svg ] && [ -z "$(ls fail.svg.* 2>/dev/null)" ]; then ok
else bad "gnuplot's own reason on standard error, nothing left behind (exit $rc)" "$(cat fail.err fail.out; ls)"; fi
PATH=/nonexistent "$MENTAT" merge --plot none.svg run.jsonl >/dev/null 2>none.err
rc=$?
if [ $rc -eq 74 ] && grep -q "cannot run gnuplot: No such file or directory" none.err && [ ! -e none.svg ]; then ok
else bad "no gnuplot: said so (exit $rc)" "$(cat none.err)"; fi
"$MENTAT" merge --plot /proc/x.svg run.jsonl >/dev/null 2>proc.err
rc=$?
if [ $rc -eq 74 ] && grep -q "cannot write '/proc/x.svg'" proc.err && ! grep -qi "gnuplot" proc.err; then ok
else bad "--plot /proc/x.svg: the real cause (exit $rc)" "$(cat proc.err)"; fi
"$MENTAT" merge --plot /dev/full run.jsonl >/dev/null 2>devfull.err
rc=$?
if [ $rc -eq 74 ] && grep -q "No space left on device" devfull.err; then ok
else bad "merge --plot /dev/full (exit $rc)" "$(cat devfull.err)"; fi
cd - >/dev/null || exit 1

# 2. a full file system: the temporary directory (/tmp and TMPDIR both, a tmpfs filled up and
# mounted over /tmp in a private mount namespace: glibc's tmpfile() ignores TMPDIR), and the records
# (the full tmpfs at a path of its own)
# full_run COMMAND...: COMMAND run with a full /tmp, standard output and error to $TMP/full.out, .err
# The checkout itself may lie under /tmp (CI clones anywhere): the real /tmp stays reachable,
# bound at a directory outside it before the full tmpfs covers /tmp, and a program under /tmp
# is run from there (the working directory, opened before, stays the old one).
full_run() {
  keep=
  for d in /var/tmp /dev/shm /run; do
    [ -d "$d" ] && [ -w "$d" ] && keep=$(mktemp -d "$d/mentat-keep.XXXXXX") && break
  done
  [ -n "$keep" ] || { echo "no directory outside /tmp to keep it reachable" >"$TMP/full.err"; return 125; }
  unshare -m sh -c 'keep=$1; shift
                    mount --bind /tmp "$keep" && mount -t tmpfs -o size=64k tmpfs /tmp || exit 125
                    dd if=/dev/zero of=/tmp/fill bs=4k >/dev/null 2>&1
                    prog=$1; shift
                    case $prog in /tmp/*) prog=$keep/${prog#/tmp/} ;; esac
                    TMPDIR=/tmp exec "$prog" "$@"' sh "$keep" "$@" >"$TMP/full.out" 2>"$TMP/full.err"
  rc=$?
  rmdir "$keep"
  return $rc
}
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null && mkdir "$TMP/full" && mount -t tmpfs -o size=64k tmpfs "$TMP/full" 2>/dev/null; then
  FULL="$TMP/full"
  full_run "$MENTAT" compare --variant $NOFREMEN --games 400 --jobs 2 --quiet --json
  rc=$?
  if [ $rc -eq 0 ] && grep -q '"games":400,"failed":0,' "$TMP/full.out"; then ok
  else bad "compare with a full /tmp: every game counted (exit $rc)" "$(head -c 300 "$TMP/full.out"; cat "$TMP/full.err")"; fi
  full_run "$MENTAT" simulate --games 100 --jobs 2 --quiet --no-invariants
  rc=$?
  if [ $rc -eq 0 ] && grep -q '^100 games (0 failed)' "$TMP/full.out"; then ok
  else bad "simulate with a full /tmp (exit $rc)" "$(cat "$TMP/full.out" "$TMP/full.err")"; fi
  dd if=/dev/zero of="$FULL/fill" bs=1k count=56 >/dev/null 2>&1
  "$MENTAT" compare --variant $NOFREMEN --games 400 --jobs 2 --quiet --records "$FULL/r.jsonl" >/dev/null 2>"$TMP/fullr.err"
  rc=$?
  if [ $rc -eq 74 ] && grep -q "cannot write the records to '$FULL/r.jsonl': No space left on device (the run stops" "$TMP/fullr.err"; then ok
  else bad "records on a full file system: ENOSPC named, exit 74 (exit $rc)" "$(cat "$TMP/fullr.err")"; fi
  umount "$FULL" && FULL=
else
  echo "SKIP full file system tests: they mount a small tmpfs (in a private mount namespace for /tmp), which needs root"
fi

# 3. merge refuses anything but one complete run
merge_refuses() { # NAME, the expected message (grep -E), files...
  name=$1 want=$2
  shift 2
  "$MENTAT" merge "$@" >"$TMP/m.out" 2>"$TMP/m.err"
  rc=$?
  if [ $rc -eq 65 ] && [ ! -s "$TMP/m.out" ] && grep -Eq "$want" "$TMP/m.err"; then ok
  else bad "merge refuses $name (exit $rc)" "$(cat "$TMP/m.err" "$TMP/m.out" | head -5)"; fi
}
"$MENTAT" compare --variant $NOFREMEN --games 30 --quiet --shard 2/2 --records "$TMP/other-games.jsonl" >/dev/null 2>&1
"$MENTAT" compare --variant $NOFREMEN --games 20 --seed 7 --quiet --shard 2/2 --records "$TMP/other-seed.jsonl" >/dev/null 2>&1
merge_refuses "shards with other game counts" "other-games.jsonl:1: records of another run: this file has \"games\":30, '.*sh1.jsonl' \"games\":20" \
  "$TMP/sh1.jsonl" "$TMP/other-games.jsonl"
merge_refuses "shards with other seeds" "other-seed.jsonl:1: records of another run: this file has \"seed\":7, '.*sh1.jsonl' \"seed\":1" \
  "$TMP/sh1.jsonl" "$TMP/other-seed.jsonl"
"$MENTAT" compare --variant $NOFREMEN --games 20 --quiet --shard 2/2 --factions atreides,fremen --records "$TMP/other-fac.jsonl" >/dev/null 2>&1
merge_refuses "shards with other factions" "other-fac.jsonl:1: records of another run: this file has \"factions\":\[\"atreides\",\"fremen\"\], '.*sh1.jsonl' \"factions\":\[\"atreides\",\"bene_gesserit\"," \
  "$TMP/sh1.jsonl" "$TMP/other-fac.jsonl"
merge_refuses "a lone shard" "the run has 2 shards and 1 is missing \(2/2\)" "$TMP/sh1.jsonl"
merge_refuses "a directory" "cannot read '$TMP': it is a directory" "$TMP"
: >"$TMP/empty.jsonl"
merge_refuses "an empty file" "empty.jsonl: no records header" "$TMP/empty.jsonl"
for v in 1e300 nan -5 1.5 '"7"' 99999999999999999999; do
  printf '%s\n' "$HEADER" >"$TMP/num.jsonl"
  printf '%s\n' "$REC" | sed "s/\"turns\":[0-9]*/\"turns\":$v/" >>"$TMP/num.jsonl"
  merge_refuses "turns $v" "num.jsonl:2: the field 'turns' must be a whole number from 0 to 1000000000, not '" "$TMP/num.jsonl"
done
printf '%s\n' "$HEADER" | sed 's/"games":20/"games":1e3/' >"$TMP/hnum.jsonl"
merge_refuses "games 1e3 in the header" "hnum.jsonl:1: the field 'games' must be a whole number" "$TMP/hnum.jsonl"
printf '%s\n' "$HEADER" >"$TMP/seed.jsonl"
printf '%s\n' "$REC" | sed 's/"seed":[0-9]*,/"seed":-5,/' >>"$TMP/seed.jsonl"
merge_refuses "seed -5" "seed.jsonl:2: the field 'seed' must be a whole number from 0 to 18446744073709551615, not '-5'" "$TMP/seed.jsonl"
printf '%s\n' "$HEADER" >"$TMP/out.jsonl"
printf '%s\n' "$REC" | sed 's/"seed":[0-9]*,/"seed":21,/' >>"$TMP/out.jsonl"
merge_refuses "a seed outside the run" "out.jsonl:2: the seed 21 is not a game of shard 1/1 of this run \(seed 1, 20 games\)" "$TMP/out.jsonl"
sed 1d "$TMP/run.jsonl" >"$TMP/old.jsonl"
merge_refuses "old records without a header" "old.jsonl:1: game records without the header that names their run" "$TMP/old.jsonl"
head -c -30 "$TMP/run.jsonl" >"$TMP/cut.jsonl"
merge_refuses "a last line cut short" "cut.jsonl:41: the last line is cut short .*--resume" "$TMP/cut.jsonl"
head -30 "$TMP/run.jsonl" >"$TMP/part.jsonl"
merge_refuses "an incomplete shard" "part.jsonl: shard 1/1 holds 29 of its 40 game records: the run is incomplete" "$TMP/part.jsonl"
{ cat "$TMP/run.jsonl"; printf '%s\n' "$REC"; } >"$TMP/dup.jsonl"
merge_refuses "a game twice" "the game with seed [0-9]+ \(base\) is in the records twice" "$TMP/dup.jsonl"
{ printf '%s\n' "$HEADER"; printf '%s\n' "$REC" | sed 's/"decisions"/"cmd":"x","decisions"/'; } >"$TMP/unk.jsonl"
merge_refuses "an unknown field" "unk.jsonl:2: an unknown field 'cmd'" "$TMP/unk.jsonl"
"$MENTAT" merge --json "$TMP/sh2.jsonl" "$TMP/sh1.jsonl" >"$TMP/both.json" 2>&1
if cmp -s "$TMP/both.json" "$TMP/run.json"; then ok; else bad "both shards (any order) merge to the run" "$(cat "$TMP/both.json")"; fi

# 4. outputs opened before the first game; records game by game; --resume
timeout 60 "$MENTAT" compare --variant $NOFREMEN --games 100000000 --quiet --records "$TMP/no/such/dir/r.jsonl" >/dev/null 2>"$TMP/typo.err"
rc=$?
if [ $rc -eq 74 ] && grep -q "cannot write the records to '$TMP/no/such/dir/r.jsonl': No such file or directory" "$TMP/typo.err"; then ok
else bad "a --records typo fails before the first game (exit $rc)" "$(cat "$TMP/typo.err")"; fi
timeout 60 "$MENTAT" compare --variant $NOFREMEN --games 100000000 --quiet --plot "$TMP/no/such/dir/p.svg" >/dev/null 2>"$TMP/typo2.err"
rc=$?
if [ $rc -eq 74 ] && grep -q "cannot write '$TMP/no/such/dir/p.svg'" "$TMP/typo2.err"; then ok
else bad "a --plot typo fails before the first game (exit $rc)" "$(cat "$TMP/typo2.err")"; fi
timeout 60 "$MENTAT" simulate --games 100000000 --quiet --records "$TMP/no/such/dir/s.jsonl" >/dev/null 2>"$TMP/typo3.err"
rc=$?
if [ $rc -eq 74 ] && grep -q "cannot write the records to" "$TMP/typo3.err"; then ok
else bad "simulate: a --records typo fails before the first game (exit $rc)" "$(cat "$TMP/typo3.err")"; fi

# a run stopped by SIGTERM keeps what it played; --resume finishes it; the result is the whole run's
RUN="--variant $NOFREMEN --games 1000 --jobs 2 --quiet"
"$MENTAT" compare $RUN --records "$TMP/int.jsonl" --plot "$TMP/int.svg" >/dev/null 2>"$TMP/int.err" &
pid=$!
if lines_at_least "$TMP/int.jsonl" 11; then
  kids=$(pgrep -P $pid)
  kill -TERM $pid
  wait $pid
  rc=$?
  if [ $rc -eq 143 ] && all_gone $kids && grep -q "stopped by signal 15 after [0-9]* of 1000 games; the records of [0-9]* games are in" "$TMP/int.err" &&
     [ -z "$(ls "$TMP"/int.svg* 2>/dev/null)" ]; then ok
  else bad "SIGTERM: workers gone, the plot's temporary removed, the records named (exit $rc)" "$(cat "$TMP/int.err"; ls "$TMP")"; fi
  n=$(($(wc -l <"$TMP/int.jsonl") - 1))
  if [ $n -ge 10 ] && [ $n -lt 2000 ] && [ $((n % 2)) -eq 0 ] && tail -c 1 "$TMP/int.jsonl" | od -c | grep -q '\\n'; then ok
  else bad "the interrupted run's records: whole pairs of whole lines ($n records)"; fi
  merge_refuses "an interrupted run" "int.jsonl: shard 1/1 holds $n of its 2000 game records: the run is incomplete" "$TMP/int.jsonl"
  "$MENTAT" compare $RUN --json --records "$TMP/int.jsonl" --resume >"$TMP/resumed.json" 2>"$TMP/resumed.err"
  rc=$?
  "$MENTAT" compare $RUN --json >"$TMP/whole.json" 2>&1
  if [ $rc -eq 0 ] && cmp -s "$TMP/resumed.json" "$TMP/whole.json" && [ "$(wc -l <"$TMP/int.jsonl")" -eq 2001 ]; then ok
  else bad "--resume finishes the run: the same summary as the run never stopped (exit $rc)" "$(cat "$TMP/resumed.err"; diff "$TMP/resumed.json" "$TMP/whole.json")"; fi
  "$MENTAT" merge --json "$TMP/int.jsonl" >"$TMP/int-merged.json" 2>&1
  if cmp -s "$TMP/int-merged.json" "$TMP/whole.json"; then ok; else bad "the resumed records merge to the whole run" "$(cat "$TMP/int-merged.json")"; fi
else
  bad "compare wrote no records while it ran" "$(cat "$TMP/int.err")"
  kill $pid 2>/dev/null
fi
# --resume drops a last line cut short, refuses another run's records, and needs --records
head -c -30 "$TMP/run.jsonl" >"$TMP/cut2.jsonl"
"$MENTAT" compare --variant $NOFREMEN --games 20 --jobs 2 --quiet --json --records "$TMP/cut2.jsonl" --resume >"$TMP/cut2.json" 2>"$TMP/cut2.err"
rc=$?
if [ $rc -eq 0 ] && cmp -s "$TMP/cut2.json" "$TMP/run.json" && "$MENTAT" merge --json "$TMP/cut2.jsonl" | cmp -s - "$TMP/run.json"; then ok
else bad "--resume after a line cut short (exit $rc)" "$(cat "$TMP/cut2.err")"; fi
"$MENTAT" compare --variant $NOFREMEN --games 20 --seed 3 --quiet --records "$TMP/run.jsonl" --resume >/dev/null 2>"$TMP/res-other.err"
rc=$?
if [ $rc -eq 65 ] && grep -q "holds another run: the file has \"seed\":1, this command \"seed\":3" "$TMP/res-other.err"; then ok
else bad "--resume with another run's records (exit $rc)" "$(cat "$TMP/res-other.err")"; fi
"$MENTAT" simulate --games 2 --resume >/dev/null 2>"$TMP/res-no.err"
rc=$?
if [ $rc -eq 64 ] && grep -q -- "--resume needs --records FILE" "$TMP/res-no.err"; then ok
else bad "--resume without --records (exit $rc)" "$(cat "$TMP/res-no.err")"; fi
# simulate: a run stopped by SIGTERM, resumed
"$MENTAT" simulate --games 2000 --jobs 2 --quiet --no-invariants --records "$TMP/sint.jsonl" >/dev/null 2>&1 &
pid=$!
if lines_at_least "$TMP/sint.jsonl" 6; then
  kill -TERM $pid
  wait $pid
  "$MENTAT" simulate --games 2000 --jobs 2 --quiet --no-invariants --records "$TMP/sint.jsonl" --resume >"$TMP/sint.out" 2>&1
  rc=$?
  "$MENTAT" simulate --games 2000 --jobs 2 --quiet --no-invariants --records "$TMP/swhole.jsonl" >/dev/null 2>&1
  "$MENTAT" merge --json "$TMP/sint.jsonl" >"$TMP/sint.json" 2>&1
  "$MENTAT" merge --json "$TMP/swhole.jsonl" >"$TMP/swhole.json" 2>&1
  if [ $rc -eq 0 ] && grep -q "games were in '$TMP/sint.jsonl' already (--resume)" "$TMP/sint.out" && cmp -s "$TMP/sint.json" "$TMP/swhole.json" &&
     grep -q '"games":2000,' "$TMP/swhole.json"; then ok
  else bad "simulate --resume after SIGTERM (exit $rc)" "$(cat "$TMP/sint.out"; diff "$TMP/sint.json" "$TMP/swhole.json")"; fi
else
  bad "simulate wrote no records while it ran"
  kill $pid 2>/dev/null
fi

# 5. workers die with their parent, however it dies
"$MENTAT" simulate $RACE --games 100000000 --jobs 2 --quiet >/dev/null 2>&1 &
pid=$!
sleep 1
kids=$(pgrep -P $pid)
kill -9 $pid
wait $pid 2>/dev/null
if [ "$(echo $kids | wc -w)" -eq 2 ] && all_gone $kids; then ok
else bad "simulate --jobs 2: kill -9 of the parent ends its workers ($kids)"; fi
"$MENTAT" compare --variant $NOFREMEN --games 100000000 --jobs 2 --quiet >/dev/null 2>&1 &
pid=$!
sleep 1
kids=$(pgrep -P $pid)
kill -TERM $pid
wait $pid 2>/dev/null
if [ "$(echo $kids | wc -w)" -eq 2 ] && all_gone $kids; then ok
else bad "compare --jobs 2: SIGTERM of the parent ends its workers ($kids)"; fi
"$MENTAT" verify --seed 1 always 'count(factions) > 0' by turn 5 --jobs 2 --max-seconds 120 --max-positions 100000000 >/dev/null 2>&1 &
pid=$!
sleep 1
kids=$(pgrep -P $pid)
kill -9 $pid
wait $pid 2>/dev/null
if [ "$(echo $kids | wc -w)" -eq 2 ] && all_gone $kids; then ok
else bad "verify --jobs 2: kill -9 of the parent ends its workers ($kids)"; fi

# 6. output errors name their cause
"$MENTAT" compare --variant $NOFREMEN --games 10 --quiet --records /dev/full >/dev/null 2>"$TMP/o1.err"
rc=$?
if [ $rc -eq 74 ] && grep -q "cannot write the records to '/dev/full': No space left on device" "$TMP/o1.err"; then ok
else bad "compare --records /dev/full (exit $rc)" "$(cat "$TMP/o1.err")"; fi
for cmd in "simulate $RACE --games 3" "simulate $RACE --games 6 --jobs 2" "play --turns 1" "merge $TMP/run.jsonl" \
           "compare --variant $NOFREMEN --games 4"; do
  # shellcheck disable=SC2086
  "$MENTAT" $cmd >/dev/full 2>"$TMP/o2.err"
  rc=$?
  if [ $rc -eq 74 ] && grep -q "cannot write standard output: No space left on device" "$TMP/o2.err"; then ok
  else bad "$cmd >/dev/full (exit $rc)" "$(cat "$TMP/o2.err")"; fi
done

echo "records: $pass passed, $failn failed"
[ $failn -eq 0 ]
