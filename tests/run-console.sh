#!/bin/sh
# run-console.sh -- the console's own behaviour (not a rule's): every script in
# tests/console/*.mentat must exit 0 (all its expectations met), and inputs too
# big to commit are generated here:
#   - a line longer than the console's read buffer whose tail reads like a
#     command (`# xxx...storm 5`): the tail must never run;
#   - a line longer than the console's limit: refused whole, counted as an
#     error, and the next line still runs.
# Last line: N passed, N failed.
BUILD=${BUILD:-build}
MENTAT=$BUILD/mentat
pass=0
failn=0
ok() { pass=$((pass + 1)); }
bad() { failn=$((failn + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | tail -15 | sed 's/^/    /'; }

for f in tests/console/*.mentat; do
  [ -e "$f" ] || continue
  if out=$("$MENTAT" repl "$f" 2>&1); then ok; else bad "$f" "$out"; fi
done

TMP=$(mktemp -d "${TMPDIR:-/tmp}/mentat-console.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM

# At a terminal, Ctrl-C cancels the line being typed, never the session; the history is kept in
# MENTAT_HISTORY. A pseudo-terminal from script(1) stands for the terminal.
if command -v script >/dev/null 2>&1; then
  out=$( (printf 'new seed=1 factions=atreides'; sleep 0.5; printf '\003'; sleep 0.3; printf 'storm 3\n'; sleep 0.5; printf 'quit\n'; sleep 0.3) |
    MENTAT_HISTORY="$TMP/hist" NO_COLOR=1 timeout 20 script -qfc "$MENTAT repl" /dev/null 2>&1 | tr -d '\r')
  if printf '%s' "$out" | grep -q "no game: start one with 'new'" && printf '%s' "$out" | grep -q 'mentat> quit' &&
     grep -q 'storm' "$TMP/hist"; then ok; else bad "Ctrl-C cancels the line, the session goes on, history kept" "$out"; fi
else
  bad "script(1) is needed to test the console at a terminal (package bsdutils)"
fi

# Completion by context: after `why ship atreides` come territories (not leaders, not cards)
if command -v script >/dev/null 2>&1; then
  out=$( (printf 'new seed=1\n'; sleep 1; printf 'why ship atreides ar\t\t'; sleep 0.5; printf '\003'; sleep 0.3; printf 'quit\n'; sleep 0.3) |
    MENTAT_HISTORY="$TMP/hist2" NO_COLOR=1 timeout 20 script -qfc "$MENTAT repl" /dev/null 2>&1 | tr -d '\r')
  if printf '%s' "$out" | grep -aq 'arrakeen  arsunt'; then ok; else bad "Tab after 'why ship atreides ar' offers the territories" "$out"; fi
fi

# Ctrl-C while a command runs (issue 25): it stops, the game is put back as it was before it, and
# the prompt comes back; a long verify shows its progress on the terminal's standard error
if command -v script >/dev/null 2>&1; then
  out=$( (printf 'new seed=1\n'; sleep 1; printf "verify always turn < 5 by turn 3 --max-seconds 60\n"; sleep 3; printf '\003'; sleep 1;
          printf 'check turn == 0\n'; sleep 0.5; printf 'quit\n'; sleep 0.3) |
    MENTAT_HISTORY="$TMP/hist3" NO_COLOR=1 timeout 50 script -qfc "$MENTAT repl" /dev/null 2>&1 | tr -d '\r')
  if printf '%s' "$out" | grep -q 'interrupted (Ctrl-C)' && printf '%s' "$out" | grep -q 'verify: [0-9]* positions, [0-9]* positions/s' &&
     printf '%s' "$out" | grep -q 'check passed' && printf '%s' "$out" | grep -q 'mentat> quit'; then ok
  else bad "Ctrl-C stops a running verify, progress shown, the prompt back" "$out"; fi
  out=$( (printf 'new seed=1\nbots search\nturn 2\nphase bidding\n'; sleep 1; printf 'run game\n'; sleep 2; printf '\003'; sleep 1;
          printf 'check turn == 2 and high_bidder == none\n'; sleep 0.5; printf 'quit\n'; sleep 0.3) |
    MENTAT_HISTORY="$TMP/hist4" NO_COLOR=1 timeout 50 script -qfc "$MENTAT repl" /dev/null 2>&1 | tr -d '\r')
  if printf '%s' "$out" | grep -q 'interrupted (Ctrl-C): the game is put back as it was before this command' &&
     printf '%s' "$out" | grep -q 'check passed'; then ok
  else bad "Ctrl-C stops 'run game' with search bots and puts the game back" "$out"; fi
  # ... and while it ran, its progress showed: the turn of the game's length, decisions, their rate
  if printf '%s' "$out" | grep -aq 'run: turn [0-9]* of 10, [0-9]* decisions, [0-9.]* decisions/s'; then ok
  else bad "'run game' with search bots shows its progress at a terminal" "$out"; fi
  # the command-line verify shows its progress on a terminal's standard error too
  out=$(NO_COLOR=1 timeout 30 script -qfc "$MENTAT verify --seed 1 always 'turn < 5' by turn 3 --max-seconds 2" /dev/null 2>&1 | tr '\r' '\n')
  if printf '%s' "$out" | grep -aq 'verify: [0-9]* positions, [0-9]* positions/s, at most [0-9]* s left'; then ok
  else bad "mentat verify shows its progress at a terminal" "$out"; fi
fi
# ... never in a pipe, nor with --json
out=$("$MENTAT" verify --seed 1 always 'turn < 5' by turn 3 --max-seconds 1 2>&1)
if printf '%s' "$out" | grep -q 'positions/s, at most'; then bad "mentat verify: progress written to a pipe" "$out"; else ok; fi
out=$(NO_COLOR=1 timeout 30 script -qfc "$MENTAT verify --json --seed 1 always 'turn < 5' by turn 3 --max-seconds 1" /dev/null 2>&1)
if printf '%s' "$out" | grep -q 'positions/s, at most'; then bad "mentat verify --json: progress at a terminal" "$out"; else ok; fi
out=$(printf 'new seed=1\nbots heuristic\nrun game\n' | "$MENTAT" repl - 2>&1)
if printf '%s' "$out" | grep -q 'decisions/s'; then bad "run game: progress written to a pipe" "$out"; else ok; fi
# progress never goes to a pipe nor into --json
out=$(printf 'new seed=1\nverify always turn < 5 by turn 3 --max-seconds 1\n' | "$MENTAT" repl - 2>&1)
if printf '%s' "$out" | grep -q 'positions/s, at most'; then bad "progress written to a pipe" "$out"; else ok; fi
out=$(printf 'new seed=1\nverify always turn < 5 by turn 3 --max-seconds 1\n' | "$MENTAT" repl --json - 2>&1)
if printf '%s' "$out" | grep -q 'positions/s, at most'; then bad "progress written into --json" "$out"; else ok; fi

# a parameter's domain followed by a word other than `listed` is a clear error (language.md, Actions)
printf 'variant bad "x" {\n  rule 9.01 "A bad domain" {\n    action go(f: faction, n: int in 1..3 bogus) { effect { } }\n  }\n}\n' > "$TMP/bad-listed.rules"
out=$("$MENTAT" check --variant "$TMP/bad-listed.rules" 2>&1); rc=$?
if [ $rc -eq 65 ] && printf '%s' "$out" | grep -q "bad-listed.rules:3:42: error: expected ',' or ')' after a parameter's domain (or 'listed'), not 'bogus'"; then ok
else bad "a domain followed by another word than 'listed' (exit $rc)" "$out"; fi

# Command-line conventions: --version, COMMAND --help on stdout with exit 0, standard input as a script
if out=$("$MENTAT" --version 2>&1) && printf '%s' "$out" | grep -q '^mentat [0-9]'; then ok; else bad "mentat --version" "$out"; fi
for c in check run play explain rules repl simulate diff graph dump; do
  if out=$("$MENTAT" $c --help 2>&1) && printf '%s' "$out" | head -1 | grep -q "^usage: mentat $c"; then ok; else bad "mentat $c --help" "$out"; fi
done
if out=$(printf 'new seed=1\nstorm 3\ncheck storm == 3\n' | "$MENTAT" repl - 2>&1); then ok; else bad "repl - reads standard input" "$out"; fi
if out=$(printf 'storm x\n' | "$MENTAT" repl 2>&1); then bad "piped repl: a failing line must exit non-zero" "$out"; else ok; fi
if out=$(printf 'storm x\nexpect error no game\n' | "$MENTAT" repl 2>&1); then ok; else bad "piped repl: an expected error passes" "$out"; fi

# A saved position names its rule set: loading it under another is refused at that line (issue 10)
cat > "$TMP/ruleset.mentat" <<EOS
new ruleset=advanced factions=atreides,bene_gesserit seed=1 turns=10
put bene_gesserit 2 advisor arrakeen
save $TMP/adv.yaml
new ruleset=basic factions=atreides,bene_gesserit seed=1 turns=10
load $TMP/adv.yaml
expect error adv.yaml:3:10: error: this position was saved under the advanced rules, not the basic rules loading it
check tokens(bene_gesserit, arrakeen) == 0
new ruleset=advanced factions=atreides,bene_gesserit seed=1 turns=10 variants=$TMP/none
EOS
printf 'variant calm "nothing changes" { }\n' > "$TMP/none.rules"
sed -i "s|variants=$TMP/none|variants=$TMP/none.rules|" "$TMP/ruleset.mentat"
cat >> "$TMP/ruleset.mentat" <<EOS
load $TMP/adv.yaml
expect error this position was saved with the variants [], but the rule set loading it has [calm]
new ruleset=advanced factions=atreides,bene_gesserit seed=1 turns=10 variants=
load $TMP/adv.yaml
expect ok
check tokens_of(bene_gesserit, advisor, arrakeen) == 2
EOS
if out=$("$MENTAT" repl "$TMP/ruleset.mentat" 2>&1); then ok; else bad "a position loaded under another rule set" "$out"; fi

# chance as choice: a position whose piles are undecided is saved with `undecided: N` and loads
# with the same hash, chance as choice on, the cards still undecided
cat > "$TMP/chance.mentat" <<EOS
new seed=1 factions=atreides,fremen
chance on
chance fremen
save $TMP/undecided.yaml
new seed=2 factions=atreides,fremen
load $TMP/undecided.yaml
chance
expect output chance as choice: on
expect output queued outcomes: none
expect output spice_deck 21 of 21, treachery_deck 33 of 33, storm_deck 6 of 6, traitor_deck 10 of 10
run step
expect error the rules draw by chance here: random_member: one faction of 2
chance fremen jamis chani stilgar otheym thufir_hawat lady_jessica gurney_halleck duncan_idaho
run step
expect output decides: Which leader do you keep as your traitor? (rule 0.11)
check holds(pile(traitors, fremen), jamis) and holds(pile(traitors, atreides), duncan_idaho)
EOS
out=$("$MENTAT" repl "$TMP/chance.mentat" 2>&1)
saved=$(printf '%s\n' "$out" | sed -n 's/^saved to .* (state hash \([0-9a-f]*\))$/\1/p')
loaded=$(printf '%s\n' "$out" | sed -n 's/^loaded .* (state hash \([0-9a-f]*\))$/\1/p')
if printf '%s\n' "$out" | tail -1 | grep -q ': 0 failed$' && [ -n "$saved" ] && [ "$saved" = "$loaded" ] &&
   grep -q '^  treachery_deck: { undecided: 33, cards: \[' "$TMP/undecided.yaml"; then ok
else bad "chance: undecided piles saved and loaded (hash $saved, then $loaded)" "$out"; fi

# a comment of 4094 characters, then `storm 5`: one line, one comment
{
  echo "new seed=1"
  printf '#'; head -c 4094 /dev/zero | tr '\0' x; echo "storm 5"
  echo "check storm == 0"
} > "$TMP/long-comment.mentat"
if out=$("$MENTAT" repl "$TMP/long-comment.mentat" 2>&1); then ok; else bad "long comment ran its tail as a command" "$out"; fi

# a line over the limit (65536 bytes) is refused whole; the script fails with
# exactly one error, and the commands around it run
{
  echo "new seed=1"
  printf 'storm 3 '; head -c 70000 /dev/zero | tr '\0' ' '; echo "storm 5"
  echo "storm 4"
  echo "check storm == 4"
} > "$TMP/too-long.mentat"
out=$("$MENTAT" repl "$TMP/too-long.mentat" 2>&1)
rc=$?
if [ $rc -ne 0 ] && printf '%s\n' "$out" | grep -q 'line 2 is longer than 65536 bytes: ignored' &&
   printf '%s\n' "$out" | tail -1 | grep -q ': 1 failed$'; then ok
else bad "a line over the limit is refused whole (exit $rc)" "$out"; fi

# a long line within the limit is read whole: `set` of a 5,000-character expression
{
  echo "new seed=1"
  printf 'set storm = 1'; i=0; while [ $i -lt 1000 ]; do printf ' + 0'; i=$((i + 1)); done; echo
  echo "check storm == 1"
} > "$TMP/long-set.mentat"
if out=$("$MENTAT" repl "$TMP/long-set.mentat" 2>&1); then ok; else bad "a 5,000-byte set command" "$out"; fi

echo "$pass passed, $failn failed"
[ "$failn" -eq 0 ]
