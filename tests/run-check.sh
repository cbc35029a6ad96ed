#!/bin/sh
# run-check.sh -- `mentat check` on house rules (tests/fixtures/house/):
# FILEs are checked against the pack (the standard one, or --components DIR),
# the variants they declare applied; unknown targets, conflicts between
# variants and the warnings; the summary line and --json.  Each case runs
# mentat and looks for the lines that matter (exact lines where the text is
# ours, patterns where a count moves as the pack grows).  The last line of
# output is "N passed, N failed".
#
# Environment: BUILD (default build) is the directory holding `mentat`.
set -u
BUILD=${BUILD:-build}
ROOT=$(pwd)
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
MENTAT=$BUILD/mentat
H=tests/fixtures/house
RACE=tests/fixtures/race
if [ ! -x "$MENTAT" ]; then
  echo "run-check: $MENTAT not found (run make first)" >&2
  echo "0 passed, 1 failed"
  exit 1
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/mentat-check.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
pass=0
fail=0

# run NAME WANT-STATUS ARGS...: runs mentat ARGS, stdout to TMP/out, stderr to TMP/err.
run() {
  name=$1 want=$2
  shift 2
  "$MENTAT" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
  rc=$?
  if [ "$rc" -eq "$want" ]; then ok=1; else
    ok=0
    echo "FAIL $name: exit status $rc, expected $want (mentat $*)"
    sed 's/^/    stderr: /' "$TMP/err" | head -20
    sed 's/^/    stdout: /' "$TMP/out" | head -5
  fi
}
# has FILE PATTERN (grep -E): the current case fails unless some line matches.
has() {
  if ! grep -Eq -- "$2" "$TMP/$1"; then
    [ "$ok" = 1 ] && echo "FAIL $name: no line of std$1 matches: $2" && sed 's/^/    /' "$TMP/$1" | head -20
    ok=0
  fi
}
# lacks FILE PATTERN: fails if some line matches.
lacks() {
  if grep -Eq -- "$2" "$TMP/$1"; then
    [ "$ok" = 1 ] && echo "FAIL $name: std$1 should not match: $2" && grep -E -- "$2" "$TMP/$1" | sed 's/^/    /'
    ok=0
  fi
}
done_() { if [ "$ok" = 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi; }

# 1. No FILE: the standard pack, said so; it is clean (no warnings either).
run "the standard pack" 0 check
has out '^ok: the standard pack: [0-9]+ rules \(Basic\), 0 errors, 0 warnings$'
done_
run "the standard pack, Advanced" 0 check --ruleset advanced
has out '^ok: the standard pack: [0-9]+ rules \(Advanced\), 0 errors, 0 warnings$'
done_

# 2. A house rule that supersedes 1.06.03.01 passes against the pack ...
run "house rule against the pack" 0 check $H/flat-shipping.rules
has out "^ok: $H/flat-shipping.rules against the standard pack: [0-9]+ rules \(Basic \+ $H/flat-shipping.rules: 1 rule\), 0 errors, 0 warnings\$"
lacks err .
done_
# ... and, by itself (--alone, what `check FILE` used to do), its target is unknown.
run "house rule alone" 65 check --alone $H/flat-shipping.rules
has err "^$H/flat-shipping.rules:4:86: error: rule house.flat supersedes unknown rule 1.06.03.01\$"
lacks out .
done_
# --alone: the file by itself, with the pack's components only.
run "a file alone" 0 check --alone --components $RACE tests/golden/rules/clean-small.rules
has out '^ok: tests/golden/rules/clean-small.rules alone: 3 rules \(Basic\), 0 errors, 0 warnings$'
done_
# A file of the pack itself is loaded once, not twice.
run "a file of the pack" 0 check rules/1.06-shipment-movement.rules
has out '^ok: rules/1.06-shipment-movement.rules against the standard pack: '
done_
# A variant file of the pack itself, given as FILE: its variant is applied (once).
run "a variant file of the pack" 0 check --components $RACE $RACE/variants/sprint.rules
has out "^ok: $RACE/variants/sprint.rules against the pack in $RACE: [0-9]+ rules \(Basic \+ $RACE/variants/sprint.rules: 0 rules, 1 replaced\), 0 errors, 0 warnings\$"
done_
# --components DIR: the FILEs against that pack.
run "house variant against the race pack" 0 check --components $RACE $H/race-dash.rules
has out "^ok: $H/race-dash.rules against the pack in $RACE: [0-9]+ rules \(Basic \+ $H/race-dash.rules: 0 rules, 1 replaced\), 0 errors, 0 warnings\$"
done_

# 3. Unknown targets of supersedes, replace and disable: errors with a suggestion and a caret.
run "unknown targets" 65 check $H/unknown-target.rules
has err "^$H/unknown-target.rules:2:76: error: rule house.cheap supersedes unknown rule 1.06.03.1\$"
has err "^$H/unknown-target.rules:2:76: note: did you mean '1.06.03.01'\\?\$"
has err "^$H/unknown-target.rules:5:11: error: variant 'house_typos' replaces unknown rule 1.06.03.10\$"
has err "^$H/unknown-target.rules:6:11: error: variant 'house_typos' disables unknown rule 1.06.3.02\$"
has err "^$H/unknown-target.rules:6:11: note: did you mean '1.06.03.02'\\?\$"
has err '^ +\| +\^~+$'
lacks out .
done_

# 4. Two variants that change one rule at the same level: an error naming both.
run "supersedes vs replace" 65 check $H/supersede-cost.rules $H/replace-cost.rules
has err "^$H/supersede-cost.rules:3:50: error: conflict: rule 1.06.03.01 is changed twice at the variant level: rule house.cheap.1 of variant 'house_cheap' supersedes it, and variant 'house_dear' replaces it; neither variant extends the other, so one would silently win\$"
has err "^$H/replace-cost.rules:3:11: note: variant 'house_dear' replaces it here\$"
done_
run "disable vs replace" 65 check $H/replace-cost.rules $H/disable-cost.rules
has err "^$H/disable-cost.rules:3:11: error: conflict: rule 1.06.03.01 is changed twice at the variant level: variant 'house_free' disables it, and variant 'house_dear' replaces it"
has err "^$H/replace-cost.rules:3:11: note: variant 'house_dear' replaces it here\$"
done_
run "disable vs supersedes" 65 check $H/disable-cost.rules $H/supersede-cost.rules
has err "^$H/supersede-cost.rules:3:50: error: conflict: rule 1.06.03.01 is changed twice at the variant level: rule house.cheap.1 of variant 'house_cheap' supersedes it, and variant 'house_free' disables it"
has err "^$H/disable-cost.rules:3:11: note: variant 'house_free' disables it here\$"
done_
run "replace vs replace" 65 check --components $RACE --variant sprint $H/race-rival.rules
has err "^$H/race-rival.rules:4:11: error: conflict: rule 1.03 is changed twice at the variant level: variant 'rival' replaces it, and variant 'sprint' replaces it"
has err "^$RACE/variants/sprint.rules:3:11: note: variant 'sprint' replaces it here\$"
done_
# a variant named like one of the pack: one of them would be ignored
run "a variant declared twice" 65 check --components $RACE $H/race-sprint-again.rules
has err "^$H/race-sprint-again.rules:3:9: error: variant 'sprint' is declared twice\$"
has err "^$RACE/variants/sprint.rules:2:9: note: first declared here\$"
done_
# ... but a --variant FILE of the pack itself is the pack's variant, loaded once
run "a --variant FILE of the pack" 0 check --components $RACE --variant $RACE/variants/sprint.rules
has out ", 1 replaced\), 0 errors, 0 warnings\$"
done_
# every command that builds the rule set refuses it
run "play refuses the conflict" 65 play --seed 1 --variant $H/supersede-cost.rules --variant $H/replace-cost.rules
has err "^$H/supersede-cost.rules:3:50: error: conflict: rule 1.06.03.01 is changed twice"
lacks out .
done_
run "simulate refuses the conflict" 65 simulate --games 1 --variant $H/supersede-cost.rules --variant $H/replace-cost.rules
has err "^$H/supersede-cost.rules:3:50: error: conflict: rule 1.06.03.01 is changed twice"
done_
printf 'new seed=1\n' > "$TMP/new.mentat"
run "the console refuses the conflict" 1 repl --variant $H/supersede-cost.rules --variant $H/replace-cost.rules "$TMP/new.mentat"
cat "$TMP/err" >> "$TMP/out"
has out "$H/supersede-cost.rules:3:50: error: conflict: rule 1.06.03.01 is changed twice"
has out 'the rule set does not compile'
done_

# 5. Warnings: check still exits 0, and counts them.
run "warnings" 0 check $H/warnings.rules
has err "^$H/warnings.rules:6:7: warning: the statements of rule house.count never run: it is not the game rule, no 'run' names it"
has err "^$H/warnings.rules:11:11: warning: rule house.k is karama-tagged, but nothing can be cancelled or prevented"
has err "^$H/warnings.rules:15:64: warning: rule house.storm supersedes 2.04.13, which is not in force in the Basic game \(it is tagged advanced\): here the supersedes changes nothing\$"
has out "^ok: $H/warnings.rules against the standard pack: [0-9]+ rules \(Basic \+ $H/warnings.rules: 3 rules\), 0 errors, 3 warnings\$"
done_
run "basic rule reads an advanced name" 0 check --ruleset advanced $H/basic-reads-advanced.rules
has err "^$H/basic-reads-advanced.rules:4:87: warning: rule house.flow is in the Basic game but reads 'flow_income', which only the Advanced game has \(rule 1.13.01 is tagged advanced\)"
has out ', 0 errors, 1 warning$'
done_
run "... and the Basic game rejects it" 65 check $H/basic-reads-advanced.rules
has err "^$H/basic-reads-advanced.rules:4:87: error: unknown value or function 'flow_income'"
has err "^rules/1.13-advanced.rules:[0-9]+:[0-9]+: note: 'flow_income' is declared by rule 1.13.01, which is not in force in this rule set \(it is tagged advanced: the Advanced game has it\)\$"
done_
# the supersedes of an advanced rule changes something in the Advanced game: no warning there
run "supersedes an advanced rule in the Advanced game" 0 check --ruleset advanced $H/warnings.rules
lacks err 'house.storm'
has out ', 0 errors, 2 warnings$'
done_

# 6. --json: one object on stdout, nothing on stderr.
run "json, warnings" 0 check --json $H/warnings.rules
has out '^\{"ok":true,"checked":"tests/fixtures/house/warnings.rules against the standard pack","rules":[0-9]+,"errors":0,"warnings":3,"diagnostics":\[\{"file":"tests/fixtures/house/warnings.rules","line":6,"col":7,"severity":"warning","message":"the statements of rule house.count never run: [^"]*"\},'
lacks err .
done_
run "json, errors" 65 check --json $H/unknown-target.rules
has out '^\{"ok":false,.*"errors":3,"warnings":0,"diagnostics":\[.*\{"file":"tests/fixtures/house/unknown-target.rules","line":6,"col":11,"severity":"note","message":"did you mean '"'1.06.03.02'"'\?"\}.*\]\}$'
lacks err .
done_
run "json, the standard pack" 0 check --json
has out '^\{"ok":true,"checked":"the standard pack","rules":[0-9]+,"errors":0,"warnings":0,"diagnostics":\[\]\}$'
done_

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
