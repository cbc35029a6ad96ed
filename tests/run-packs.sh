#!/bin/sh
# run-packs.sh -- `--pack DIR` (docs/modding.md): a mod's faction exists only
# with its pack; a later pack's file replaces an earlier one of the same path
# and adds the others; a bad pack's diagnostic and exit status, on every
# command that takes pack options.  Each case runs one command (stdout and
# stderr together) and compares its exit status and output, or the line of it
# a filter picks.  The last line of output is "N passed, N failed".
#
# Environment: BUILD (default build) is the directory holding `mentat`.
set -u
BUILD=${BUILD:-build}
MENTAT=$BUILD/mentat
MOD=docs/modding/smugglers
FIX=tests/fixtures/packs
if [ ! -x "$MENTAT" ]; then
  echo "run-packs: $MENTAT not found (run make first)" >&2
  echo "0 passed, 1 failed"
  exit 1
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/mentat-packs.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
pass=0
failn=0

# expect NAME STATUS WANT CMD...: CMD exits with STATUS and its output is WANT.
expect() {
  name=$1 status=$2 want=$3
  shift 3
  got=$("$@" 2>&1)
  st=$?
  if [ "$st" = "$status" ] && [ "$got" = "$want" ]; then
    pass=$((pass + 1))
  else
    failn=$((failn + 1))
    echo "FAIL $name: $*"
    echo "    exit $st (want $status)"
    printf '%s\n' "$got" | head -8 | sed 's/^/    got:  /'
    printf '%s\n' "$want" | head -8 | sed 's/^/    want: /'
  fi
}

# lines PATTERN CMD...: the lines of CMD's output that match PATTERN (grep -e).
lines() {
  pat=$1
  shift
  "$@" 2>&1 | grep -e "$pat"
}

# ---- a mod's faction exists with its pack only ----------------------------------------
expect "no mod, no smugglers rules" 1 "" lines '^smugglers' "$MENTAT" rules --list
expect "the mod's three abilities" 0 "smugglers.1
smugglers.2
smugglers.3" sh -c "$MENTAT rules --list --pack $MOD | grep '^smugglers' | cut -d' ' -f1"
expect "no mod, no smugglers faction" 64 "mentat: error: unknown faction 'smugglers'" \
  "$MENTAT" play --factions atreides,smugglers --seed 1
expect "the mod checks" 0 "ok: the standard pack + $MOD: 266 rules (Basic), 0 errors, 0 warnings" "$MENTAT" check --pack "$MOD"
expect "the mod checks, Advanced" 0 "ok: the standard pack + $MOD: 334 rules (Advanced), 0 errors, 0 warnings" \
  "$MENTAT" check --pack "$MOD" --advanced
expect "the mod plays" 0 "1" sh -c "$MENTAT play --pack $MOD --factions atreides,harkonnen,smugglers --seed 2 | grep -c '^game over'"
expect "the mod simulates" 0 "50 games (0 failed)" \
  sh -c "$MENTAT simulate --pack $MOD --factions smugglers,fremen,emperor --games 50 --seed 7 | head -1 | cut -d' ' -f1-4"
expect "explain names the mod's file" 0 "  defined at $MOD/factions/smugglers.rules:11" \
  lines 'defined at' "$MENTAT" explain smugglers.2 --pack "$MOD"
expect "the console takes --pack" 0 "check passed" \
  sh -c "printf 'new factions=atreides,smugglers seed=1\ncheck collection_rate(smugglers) == 3\n' | $MENTAT repl --pack $MOD | grep check"

# ---- layers: a later file replaces the one of the same path, others are added ----------
expect "a later sheet replaces the earlier" 0 'smugglers "Smugglers (revised)"' \
  lines '^smugglers' "$MENTAT" dump factions --pack "$MOD" --pack "$FIX/override"
expect "in the other order, the mod's sheet wins" 0 'smugglers "Smugglers"' \
  lines '^smugglers' "$MENTAT" dump factions --pack "$FIX/override" --pack "$MOD"
expect "the replaced sheet's start" 0 "  start: spice=12 tueks_sietch@4=5" \
  lines 'start: spice=12' "$MENTAT" dump factions --pack "$MOD" --pack "$FIX/override"
expect "the replaced sheet's abilities stay" 0 "ok: the standard pack + $MOD + $FIX/override: 266 rules (Basic), 0 errors, 0 warnings" \
  "$MENTAT" check --pack "$MOD" --pack "$FIX/override"
# a base rules file replaced: the same numbers, not a second definition of each
mkdir -p "$TMP/charity/rules"
sed 's/^\( *step 1.03.01 "\)[^"]*"/\1Charity, house version"/' rules/1.03-charity.rules >"$TMP/charity/rules/1.03-charity.rules"
expect "a base file replaced (the replacement is read)" 0 "1.03.01 Charity, house version" \
  sh -c "$MENTAT rules --list --pack $TMP/charity | grep '^1.03.01 ' | sed 's/  */ /g' | cut -d' ' -f1,6-"
expect "a base file replaced (no duplicate rules)" 0 "ok: the standard pack + $TMP/charity: 263 rules (Basic), 0 errors, 0 warnings" \
  "$MENTAT" check --pack "$TMP/charity"
# a pack over --components: the race game plus a house rule
mkdir -p "$TMP/race-house/rules"
printf 'rule house.1 "A house rule of the race" { }\n' >"$TMP/race-house/rules/house.rules"
expect "a pack over --components" 0 "house.1" \
  sh -c "$MENTAT rules --list --components tests/fixtures/race --pack $TMP/race-house | grep '^house' | cut -d' ' -f1"

# a variant in a mod's variants/: known with the pack only
expect "a mod's variant" 0 "1.08.03 (disabled)" \
  sh -c "$MENTAT rules --list --pack $FIX/house --variant quiet_harvest | grep '^1.08.03 ' | sed 's/ .*  / /'"
expect "a mod's variant, without the mod" 65 "mentat: error: unknown variant 'quiet_harvest'" \
  "$MENTAT" check --variant quiet_harvest

# ---- rules/decks.NAME.yaml: an addition to the decks, not a replacement (docs/components.md)
mkdir -p "$TMP/relics/rules" "$TMP/bad-add/rules"
cp tests/fixtures/decks-add/decks.relics.yaml "$TMP/relics/rules/"
expect "an addition appends to the base's deck" 0 '  pod_blade "Pod Blade" class=weapon type=poison charges=3' \
  lines 'pod_blade' "$MENTAT" dump decks --pack "$TMP/relics"
expect "an addition declares a deck" 0 "deck relics (1 cards, starts in relic_deck)" \
  lines '^deck relics' "$MENTAT" dump decks --pack "$TMP/relics"
expect "the base's decks stay whole" 0 "deck treachery (37 cards, starts in treachery_deck)" \
  lines '^deck treachery' "$MENTAT" dump decks --pack "$TMP/relics"
expect "a game plays with the addition" 0 "1" \
  sh -c "$MENTAT play --pack $TMP/relics --factions atreides,harkonnen --seed 3 | grep -c '^game over'"
expect "components.md's addition is the fixture, whole" 0 "" \
  sh -c "awk '/^# rules\/decks.relics.yaml/{on=1} on&&/^\\\`\\\`\\\`/{exit} on' docs/components.md | diff - tests/fixtures/decks-add/decks.relics.yaml"
printf 'decks:\n  treachery:\n    cards:\n      lasgun: { class: weapon }\n' >"$TMP/bad-add/rules/decks.bad.yaml"
expect "an addition's card already in the deck" 65 "$TMP/bad-add/rules/decks.bad.yaml:4:7: error: card 'lasgun' is already in deck 'treachery' (to add copies of it: 'lasgun: { more: N }' and nothing else)
    4 |       lasgun: { class: weapon }
      |       ^~~~~~" \
  "$MENTAT" play --pack "$TMP/bad-add" --factions atreides,harkonnen

# ---- an expansion: --expansion NAME lays the pack's expansions/NAME like --pack (docs/expansions.md)
X=expansions/ixians_tleilaxu
expect "no expansion, no ixians: the message names it" 64 \
  "mentat: error: unknown faction 'ixians' (it comes with an expansion: add --expansion ixians_tleilaxu)" \
  "$MENTAT" play --factions atreides,ixians --seed 1
expect "an unknown expansion, with a suggestion" 64 \
  "mentat: error: unknown expansion 'ixians' (did you mean 'ixians_tleilaxu'?); the pack in . has: choam_richese ixians_tleilaxu" \
  "$MENTAT" check --expansion ixians
expect "an expansion is a plain name, never a path" 64 \
  "mentat: error: unknown expansion '../rules': an expansion is named by a word of a-z, 0-9, '_' and '-'; the pack in . has: choam_richese ixians_tleilaxu" \
  "$MENTAT" play --expansion ../rules --factions atreides,harkonnen
expect "--expansion needs a name" 64 "mentat: --expansion needs a name (e.g. --expansion ixians_tleilaxu)" \
  "$MENTAT" simulate --games 1 --expansion
expect "a pack without expansions says so" 64 \
  "mentat: error: unknown expansion 'ixians_tleilaxu'; the pack in $MOD has no expansions ($MOD/expansions/NAME)" \
  "$MENTAT" check --components "$MOD" --expansion ixians_tleilaxu
expect "the expansion is the same layer as --pack" 0 "$("$MENTAT" dump factions --pack $X 2>&1)" \
  "$MENTAT" dump factions --expansion ixians_tleilaxu
expect "the expansion's faction plays, 7 factions" 0 "1" sh -c \
  "$MENTAT play --expansion ixians_tleilaxu --factions atreides,bene_gesserit,emperor,fremen,harkonnen,spacing_guild,ixians --seed 3 | grep -c '^game over'"
expect "8 factions: the expansion and a mod" 0 "30 games (0 failed)" sh -c \
  "$MENTAT simulate --expansion ixians_tleilaxu --pack $MOD --games 30 --seed 1 | head -1 | cut -d' ' -f1-4"
expect "8 factions, Advanced" 0 "10 games (0 failed)" sh -c \
  "$MENTAT simulate --expansion ixians_tleilaxu --pack $MOD --advanced --bots heuristic --games 10 --seed 1 | head -1 | cut -d' ' -f1-4"
printf 'new factions=atreides,ixians seed=1\ncheck spice(ixians) == 10\n' > "$TMP/x.mentat"
expect "the console takes --expansion" 0 "check passed" lines 'check' "$MENTAT" repl --expansion ixians_tleilaxu "$TMP/x.mentat"
expect "verify takes --expansion" 0 "1" sh -c \
  "$MENTAT verify --expansion ixians_tleilaxu --factions atreides,ixians --seed 1 can 'spice(ixians) == 10' within 1 decisions | grep -c '^yes'"

# a list lays each expansion in the order given, as repeated options do; both boxes: 9 factions
expect "a list of expansions is the same as the options one by one" 0 \
  "$("$MENTAT" dump factions --expansion ixians_tleilaxu --expansion choam_richese 2>&1)" \
  "$MENTAT" dump factions --expansion ixians_tleilaxu,choam_richese
expect "an expansion listed twice" 64 "mentat: error: expansion 'choam_richese' is listed twice" \
  "$MENTAT" check --expansion choam_richese,choam_richese
expect "an unknown name in a list" 64 \
  "mentat: error: unknown expansion 'richese' (did you mean 'choam_richese'?); the pack in . has: choam_richese ixians_tleilaxu" \
  "$MENTAT" check --expansion ixians_tleilaxu,richese
expect "an empty name in a list" 64 "mentat: --expansion ixians_tleilaxu,: an empty name or too many names" \
  "$MENTAT" check --expansion ixians_tleilaxu,
expect "both boxes, 9 factions, Advanced" 0 "20 games (0 failed)" sh -c \
  "$MENTAT simulate --expansion ixians_tleilaxu,choam_richese --factions atreides,bene_gesserit,emperor,fremen,harkonnen,spacing_guild,ixians,tleilaxu,choam --advanced --games 20 --seed 1 | head -1 | cut -d' ' -f1-4"
expect "10 factions: both boxes and a mod" 0 "10 games (0 failed)" sh -c \
  "$MENTAT simulate --expansion ixians_tleilaxu,choam_richese --pack $MOD --games 10 --seed 1 | head -1 | cut -d' ' -f1-4"
printf 'new factions=ixians,choam expansion=ixians_tleilaxu,choam_richese seed=1\ncheck spice(ixians) == 10 and spice(choam) == 2\n' > "$TMP/both.mentat"
expect "the console takes a list of expansions" 0 "check passed" lines 'check' "$MENTAT" repl "$TMP/both.mentat"

# ---- docs/expansions.md: its console blocks run from the checkout, output compared exactly ----
awk -v dir="$TMP/doc" '
  /^```console/ { inb = 1; next }
  /^```/ && inb { inb = 0; if (n) close(out); next }
  inb && /^\$ / { n++; out = sprintf("%s.%03d", dir, n); print substr($0, 3) > (out ".cmd"); close(out ".cmd"); out = out ".want"; printf "" > out; next }
  inb && n { print >> out }
' docs/expansions.md
for c in "$TMP"/doc.*.cmd; do
  [ -e "$c" ] || { failn=$((failn + 1)); echo "FAIL docs/expansions.md has no console example"; break; }
  w=${c%.cmd}.want
  expect "docs/expansions.md: $(cat "$c")" 0 "$(cat "$w")" sh -c "PATH=$BUILD:\$PATH; $(cat "$c")"
done

# ---- a sheet's own moving area (docs/language.md §11, "Attached areas") ------------------
# The mod's fortress starts nowhere with the Wardens' 4 forces in it; attached to imperial_basin@9 by
# two assignments, the base movement rules (1.06.05) reach it through the built-ins, one step beyond
# the basin, and refuse a move out of it while the storm covers its section.
FORT="new factions=atreides,wardens seed=1
check tokens(wardens, fortress) == 4 and count(neighbours(fortress)) == 0 and distance(arrakeen, fortress) == -1
set fortress_at = imperial_basin
set fortress_sector = 9
check neighbours(fortress) == {imperial_basin} and borders(imperial_basin, fortress) and fortress in neighbours(imperial_basin)
check distance(arrakeen, fortress) == 2 and fortress in within(arrakeen, 2) and not (fortress in within(arrakeen, 1))
put atreides 3 imperial_basin 9
storm 1
check fortress in reachable(imperial_basin, 1, no_territories()) and not in_storm(fortress, 9)
why move atreides imperial_basin fortress 3
storm 9
check in_storm(fortress, 9) and reachable(fortress, 3, no_territories()) == {fortress}
why move wardens fortress imperial_basin 1"
expect "an attached area: the geometry follows it" 0 "8" \
  sh -c "printf '%s\n' \"\$1\" | $MENTAT repl --pack $FIX/fortress | grep -c 'check passed\\|^Yes: move_forces atreides imperial_basin fortress\\|refused by\\|1.06.05.06 (Storm'" _ "$FORT"
expect "an attached area: the storm over its section refuses the move out" 0 \
  "  1.06.05.06 (Storm: no moving into, out of or through a sector in storm): 3 of them, e.g. move_forces wardens fortress imperial_basin 8 1" \
  lines '1.06.05.06' sh -c "printf '%s\n' \"\$1\" | $MENTAT repl --pack $FIX/fortress" _ "$FORT"

# It takes its section's sector for its tokens too (occupied_sectors, tokens_at, tokens_at_of,
# occupants_at, a section variable), and for nothing while it stands nowhere or in another sector.
FORTS="new factions=atreides,wardens seed=1
check occupied_sectors(wardens, fortress) == [s in sectors where false] and tokens_at(wardens, fortress, none) == 4
set fortress_at = imperial_basin
set fortress_sector = 9
check 9 in occupied_sectors(wardens, fortress) and count(occupied_sectors(wardens, fortress)) == 1
check tokens_at(wardens, fortress, 9) == 4 and tokens_at_of(wardens, normal, fortress, 9) == 4 and occupants_at(fortress, 9) == {wardens}
check tokens_at(wardens, fortress, 8) == 0 and tokens_at(wardens, fortress, none) == 4 and board_spice(fortress, 9) == 0
set fortress_sector = 8
check tokens_at(wardens, fortress, 9) == 0 and tokens_at(wardens, fortress, 8) == 4 and 8 in occupied_sectors(wardens, fortress)"
expect "an attached area: its tokens in the sector it stands in" 0 "5" \
  sh -c "printf '%s\n' \"\$1\" | $MENTAT repl --pack $FIX/fortress | grep -c '^check passed'" _ "$FORTS"

ABS_MENTAT=$(cd "$(dirname "$MENTAT")" && pwd)/mentat
# `show board` lists an attached area with the section it stands on, or off the map; the SVG draws
# its disc there (and nothing while it stands nowhere)
FORTB="new factions=atreides,wardens seed=1
show board
show board --svg before.svg
set fortress_at = imperial_basin
set fortress_sector = 9
show board
show board --svg after.svg
save fort.yaml
new factions=atreides,wardens seed=1
load fort.yaml
check fortress_at == imperial_basin and fortress_sector == 9 and distance(arrakeen, fortress) == 2"
expect "show board: an attached area off the map, then where it stands" 0 "off the map: fortress [wardens 4]
sector  9: imperial_basin@9 + fortress [wardens 4], arrakeen [atreides 10], old_gap@9" \
  sh -c "cd $TMP && printf '%s\n' \"\$1\" | $ABS_MENTAT repl --rules $PWD --pack $PWD/$FIX/fortress | grep -e '^off the map' -e '^sector  9: imperial_basin@9 +'" _ "$FORTB"
expect "an attached area's place is saved and loaded" 0 "check passed" \
  sh -c "cd $TMP && printf '%s\n' \"\$1\" | $ABS_MENTAT repl --rules $PWD --pack $PWD/$FIX/fortress | grep '^check'" _ "$FORTB"
expect "the board SVG: the attached area's disc where it stands only" 0 "0 1" \
  sh -c "cd $TMP && echo \$(grep -c '<circle cx=\"470.0\" cy=\"333.5\" r=\"13\"' before.svg) \$(grep -c '<circle cx=\"470.0\" cy=\"333.5\" r=\"13\"' after.svg)"

# ---- a bad pack ------------------------------------------------------------------------
for cmd in check run play rules simulate repl dump explain; do
  case $cmd in
  rules) args="--list" ;;
  simulate) args="--games 1" ;;
  dump) args="factions" ;;
  explain) args="1.03.01" ;;
  *) args="" ;;
  esac
  # shellcheck disable=SC2086
  expect "$cmd: a missing pack" 74 "mentat: error: cannot read pack '$TMP/nowhere': No such file or directory" \
    "$MENTAT" $cmd $args --pack "$TMP/nowhere"
done
expect "a file, not a directory" 74 \
  "mentat: error: pack 'rules/board.yaml' is not a directory (a pack is a directory holding rules/, factions/ or variants/)" \
  "$MENTAT" check --pack rules/board.yaml
mkdir -p "$TMP/empty/factions"
expect "a pack with nothing Mentat reads" 65 \
  "mentat: error: pack '$TMP/empty' holds nothing Mentat reads: it needs rules/board.yaml, rules/decks.yaml, rules/decks.NAME.yaml, rules/*.rules, factions/*.yaml, factions/*.rules or variants/*.rules" \
  "$MENTAT" check --pack "$TMP/empty"
expect "a file where Mentat never looks" 65 \
  "mentat: warning: pack '$FIX/stray': ignoring '$FIX/stray/smugglers.yaml' (a pack's files go in its rules/, factions/ or variants/)
mentat: error: pack '$FIX/stray' holds nothing Mentat reads: it needs rules/board.yaml, rules/decks.yaml, rules/decks.NAME.yaml, rules/*.rules, factions/*.yaml, factions/*.rules or variants/*.rules" \
  "$MENTAT" play --pack "$FIX/stray"
expect "a YAML error" 65 "$FIX/bad-yaml/factions/broken.yaml:4:8: error: YAML syntax error: did not find expected ',' or '}'
    4 | leaders:
      |        ^
$FIX/bad-yaml/factions/broken.yaml:3:9: note: while parsing a flow mapping
    3 | forces: { normal: 20
      |         ^" "$MENTAT" check --pack "$FIX/bad-yaml"
expect "a rules error" 65 "$FIX/bad-rules/rules/house.rules:2:24: error: unexpected '=', expected name
    2 | rule house.1 \"a\" { let = 1 }
      |                        ^" "$MENTAT" check --pack "$MOD" --pack "$FIX/bad-rules"
expect "a YAML error, in the console" 0 "$FIX/bad-yaml/factions/broken.yaml:4:8: error: YAML syntax error: did not find expected ',' or '}'" \
  lines 'broken.yaml:4:8' sh -c "printf 'new\n' | $MENTAT repl --pack $FIX/bad-yaml"
expect "--pack needs a directory" 64 "mentat: --pack needs a directory" "$MENTAT" check --pack

echo "$pass passed, $failn failed"
[ "$failn" -eq 0 ]
