#!/bin/sh
# Determinism: the same seed gives the same game, bit for bit (narration and
# final state hash), for the standard pack and for the test game.
BUILD=${BUILD:-build}
pass=0
failn=0
for seed in 1 2 3 7; do
  for pack in "" "--components tests/fixtures/race"; do
    a=$("$BUILD/mentat" play $pack --seed $seed 2>&1)
    b=$("$BUILD/mentat" play $pack --seed $seed 2>&1)
    if [ "$a" = "$b" ] && [ -n "$a" ]; then
      pass=$((pass + 1))
    else
      failn=$((failn + 1))
      echo "FAIL: seed $seed ${pack:-(standard pack)} plays differently twice"
    fi
  done
done
echo "$pass passed, $failn failed"
[ "$failn" -eq 0 ]
