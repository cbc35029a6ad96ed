#!/bin/sh
# run-board-svg.sh -- the board drawn (`show board --svg FILE`, `mentat dump board --svg FILE`):
#
#   1. a known position drawn from the console renders: rsvg-convert (which
#      refuses a malformed document; xmllint checks it too when installed)
#      makes a 1200x960 PNG of some size; the SVG names every territory of
#      rules/board.yaml, has each faction's chip with its count where its
#      tokens are, the spice, the storm's sector shaded, the strongholds
#      outlined, and the legend's faction names;
#   2. `mentat dump board --svg` draws the start position (every sheet's
#      placements) and renders;
#   3. a modded map without the drawing attributes (`ring`, `outlined`
#      removed) still draws every territory, and renders;
#   4. bad uses: `dump decks --svg` (usage, 64), a file that cannot be
#      written (74), `show board --svg` with no file (refused).
#
# Without rsvg-convert (Debian librsvg2-bin, installed by the Makefile's deps
# step) this FAILS with the command that installs it.
# Environment: BUILD (default build); PNG=FILE also keeps the picture of case 1
# there (make board-png writes docs/board.png so).  Last line: N passed, N failed.
set -u
BUILD=${BUILD:-build}
MENTAT=$BUILD/mentat
TMP=$(mktemp -d "${TMPDIR:-/tmp}/mentat-board.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
pass=0
failn=0
ok() { pass=$((pass + 1)); }
bad() { failn=$((failn + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | tail -8 | sed 's/^/    /'; }

if ! command -v rsvg-convert >/dev/null 2>&1; then
  bad "rsvg-convert is needed to render the board: sudo apt-get install -y librsvg2-bin (or make deps)"
  echo "$pass passed, $failn failed"
  exit 1
fi

# the territory ids of the base map: the keys under `territories:`
TERRITORIES=$(sed -n '/^territories:/,$p' rules/board.yaml | sed -n 's/^  \([a-z_][a-z0-9_]*\):$/\1/p')
[ "$(printf '%s\n' "$TERRITORIES" | wc -l)" -ge 40 ] && ok || bad "could not read the territories of rules/board.yaml"

# renders FILE.svg to FILE.png and checks the PNG: its signature and its size (from IHDR)
render() {
  if command -v xmllint >/dev/null 2>&1; then
    xmllint --noout "$1.svg" 2>"$TMP/xmllint.err" && ok || bad "$1.svg is not well-formed XML" "$(cat "$TMP/xmllint.err")"
  fi
  if rsvg-convert "$1.svg" -o "$1.png" 2>"$TMP/rsvg.err"; then ok; else bad "rsvg-convert $1.svg" "$(cat "$TMP/rsvg.err")"; return; fi
  sig=$(od -An -tx1 -N8 "$1.png" | tr -d ' \n')
  dims=$(od -An -tu1 -j16 -N8 "$1.png" | awk '{print $3*256+$4 "x" $7*256+$8}')
  size=$(wc -c < "$1.png")
  if [ "$sig" = 89504e470d0a1a0a ] && [ "$dims" = 1200x960 ] && [ "$size" -gt 20000 ]; then ok
  else bad "$1.png: signature $sig, $dims, $size bytes (want a 1200x960 PNG of more than 20000 bytes)"; fi
}

# every territory is a group of the drawing, named in it
all_territories() {
  missing=""
  for t in $TERRITORIES; do grep -q "id=\"area-$t\"" "$1" || missing="$missing $t"; done
  [ -z "$missing" ] && ok || bad "$1 lacks the territories$missing"
}
# has STRING FILE WHAT
has() { grep -qF -- "$1" "$2" && ok || bad "$3: no '$1' in $2"; }

# ---- 1. a known position from the console ----------------------------------
cat > "$TMP/draw.mentat" <<EOF
new factions=atreides,harkonnen,fremen,bene_gesserit,spacing_guild,emperor seed=1
clear all
put harkonnen 10 carthag
put atreides 4 arrakeen
put fremen 7 the_great_flat
put bene_gesserit 1 polar_sink
put spacing_guild 5 tueks_sietch
put emperor 3 sardaukar sietch_tabr
spice the_great_flat 10
spice cielago_south 12 2
storm 3
show board --svg $TMP/pos.svg
expect output board drawn to
show board --svg
expect error
EOF
out=$("$MENTAT" repl "$TMP/draw.mentat" 2>&1) && ok || bad "the console script drawing the position" "$out"
if [ -f "$TMP/pos.svg" ]; then
  render "$TMP/pos"
  all_territories "$TMP/pos.svg"
  has '>HAR 10</text>' "$TMP/pos.svg" "the Harkonnen chip"
  has '<g class="contents" id="at-carthag@10">' "$TMP/pos.svg" "the tokens in Carthag"
  has '>ATR 4</text>' "$TMP/pos.svg" "the Atreides chip"
  has '>FRE 7</text>' "$TMP/pos.svg" "the Fremen chip"
  has '>BG 1</text>' "$TMP/pos.svg" "the Bene Gesserit chip"
  has '>GUI 5</text>' "$TMP/pos.svg" "the Guild chip"
  has '>EMP 3</text>' "$TMP/pos.svg" "the Emperor chip"
  has '>10</text>' "$TMP/pos.svg" "the spice in The Great Flat"
  has '>12</text>' "$TMP/pos.svg" "the spice in Cielago South"
  has 'Spacing Guild</text>' "$TMP/pos.svg" "the legend"
  has 'board_spice</text>' "$TMP/pos.svg" "the legend's spice"
  [ "$(grep -c 'class="storm"' "$TMP/pos.svg")" = 1 ] && ok || bad "one sector shaded for the storm"
  [ "$(grep -c 'stroke="#7a1010" stroke-width="3"/>' "$TMP/pos.svg")" = 6 ] && ok ||
    bad "the five strongholds outlined (and the legend's swatch)"
  has "Tuek&#39;s Sietch" "$TMP/pos.svg" "a name with an apostrophe, escaped"
  [ -n "${PNG:-}" ] && [ -f "$TMP/pos.png" ] && cp "$TMP/pos.png" "$PNG"
else
  bad "show board --svg wrote no file" "$out"
fi

# ---- 2. the start position from dump -----------------------------------------
if "$MENTAT" dump board --svg "$TMP/start.svg" > "$TMP/dump.out" 2>&1; then
  ok
  render "$TMP/start"
  all_territories "$TMP/start.svg"
  has '>HAR 10</text>' "$TMP/start.svg" "the start position: Harkonnen in Carthag"
  has '>ATR 10</text>' "$TMP/start.svg" "the start position: Atreides in Arrakeen"
else
  bad "mentat dump board --svg" "$(cat "$TMP/dump.out")"
fi

# ---- 3. a modded map without drawing attributes ------------------------------
mkdir -p "$TMP/mod/rules"
grep -Ev '^ *(ring|outlined):' rules/board.yaml > "$TMP/mod/rules/board.yaml"
if "$MENTAT" dump board --svg "$TMP/mod.svg" --pack "$TMP/mod" > "$TMP/mod.out" 2>&1; then
  ok
  render "$TMP/mod"
  all_territories "$TMP/mod.svg"
  ! grep -q '>outlined</text>' "$TMP/mod.svg" && ok || bad "a map without 'outlined' has no outline in its legend"
else
  bad "dump board --svg of a map without rings" "$(cat "$TMP/mod.out")"
fi

# ---- 4. bad uses ---------------------------------------------------------------
"$MENTAT" dump decks --svg "$TMP/x.svg" > /dev/null 2>&1
[ $? = 64 ] && ok || bad "dump decks --svg is a usage error (64)"
"$MENTAT" dump board --svg "$TMP/no/such/dir/x.svg" > "$TMP/nowrite.out" 2>&1
st=$?
[ $st = 74 ] && grep -q "cannot write" "$TMP/nowrite.out" && ok || bad "an unwritable file: exit $st (want 74)" "$(cat "$TMP/nowrite.out")"

echo "board drawing: $pass passed, $failn failed"
[ $failn = 0 ]
