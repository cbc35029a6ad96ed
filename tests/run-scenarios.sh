#!/bin/sh
# Runs every console scenario (tests/scenarios/*.mentat) against the standard
# pack; each must exit 0 (all its expectations met).  Last line: N passed, N failed.
# A scenario of a pack laid over the standard one (an expansion: expansions/NAME) says so in a
# line '# pack: DIR' (DIR relative to the checkout), and is run with --pack DIR.
BUILD=${BUILD:-build}
pass=0
failn=0
for f in tests/scenarios/*.mentat; do
  [ -e "$f" ] || continue
  packs=$(sed -n 's/^# pack: *//p' "$f" | sed 's/^/--pack /' | tr '\n' ' ')
  # shellcheck disable=SC2086 # the pack options are words
  if out=$("$BUILD/mentat" repl $packs "$f" 2>&1); then
    pass=$((pass + 1))
  else
    failn=$((failn + 1))
    echo "FAIL $f"
    printf '%s\n' "$out" | grep -v '^  ' | tail -15 | sed 's/^/    /'
  fi
done
# the harness itself: a scenario with two failures must be reported as such
if out=$("$BUILD/mentat" repl tests/fixtures/failing/two-failures.mentat 2>&1); then
  failn=$((failn + 1))
  echo "FAIL tests/fixtures/failing/two-failures.mentat passed, but it must fail"
elif ! printf '%s\n' "$out" | tail -1 | grep -q ': 2 failed$'; then
  failn=$((failn + 1))
  echo "FAIL tests/fixtures/failing/two-failures.mentat: $(printf '%s\n' "$out" | tail -1) (expected 2 failed)"
fi
echo "$pass passed, $failn failed"
[ "$failn" -eq 0 ]
