#!/bin/sh
# make-save-seeds.sh -- regenerates the real positions among the save fuzzer's
# seeds (tests/fuzz/seeds/save/[0-2]*.yaml) with the console of this build.
# A saved position's `vm` words resume only the program that saved them, so a
# change to the rules' code makes the old seeds load as refusals (no crash,
# but no depth either): run this after such a change and commit the result.
# The reproducers (9x-*.yaml) and the patch inputs (p*) do not depend on the
# build.  Usage: sh tests/fuzz/make-save-seeds.sh [BUILD]
set -eu
BUILD=${1:-build}
OUT=tests/fuzz/seeds/save
TMP=$(mktemp -d "${TMPDIR:-/tmp}/mentat-seeds.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM
rm -f "$OUT"/[0-2][0-9]-*.yaml
k=0
# a 6-faction game (seed 3) at decisions along its length: setup, prediction,
# traitors, storm dials, charity, Karama offers, battles (wheels, plans, nested
# actions), bids, revivals, shipments, and the end
for n in 0 1 3 11 31 44 57 112 116 123 125 148 226 283 431 583 586 700; do
  name=$(printf '%02d-seed3-step%d' $k "$n")
  { echo "new seed=3"; i=0; while [ $i -lt "$n" ]; do echo "run step"; i=$((i + 1)); done; echo "save $TMP/$name.yaml"; } > "$TMP/s.mentat"
  "$BUILD/mentat" repl "$TMP/s.mentat" > /dev/null 2>&1 || true
  [ -f "$TMP/$name.yaml" ] && cp "$TMP/$name.yaml" "$OUT/" && k=$((k + 1))
done
# paused before a phase; smaller games after a turn
printf 'new seed=4\nphase bidding\nsave %s/a.yaml\n' "$TMP" > "$TMP/s.mentat"
"$BUILD/mentat" repl "$TMP/s.mentat" > /dev/null 2>&1 || true
[ -f "$TMP/a.yaml" ] && cp "$TMP/a.yaml" "$OUT/$(printf '%02d' $k)-paused-before-bidding.yaml" && k=$((k + 1))
printf 'new seed=5 factions=atreides,harkonnen\nrun turn\nrun step\nsave %s/b.yaml\n' "$TMP" > "$TMP/s.mentat"
"$BUILD/mentat" repl "$TMP/s.mentat" > /dev/null 2>&1 || true
[ -f "$TMP/b.yaml" ] && cp "$TMP/b.yaml" "$OUT/$(printf '%02d' $k)-two-factions-turn-two.yaml" && k=$((k + 1))
printf 'new seed=6 factions=fremen,emperor,spacing_guild\nrun turn\nrun step\nsave %s/c.yaml\n' "$TMP" > "$TMP/s.mentat"
"$BUILD/mentat" repl "$TMP/s.mentat" > /dev/null 2>&1 || true
[ -f "$TMP/c.yaml" ] && cp "$TMP/c.yaml" "$OUT/$(printf '%02d' $k)-three-factions.yaml" && k=$((k + 1))
echo "make-save-seeds: $k positions in $OUT"
