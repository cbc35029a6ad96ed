#!/bin/sh
# run-lsp.sh -- `mentat lsp` tested at the protocol level, then with a real editor's client.
#
# Each session is a script of JSON-RPC messages (tests/tools/lspframe frames them) piped to
# `mentat lsp`; its answers are split back into one message a line and checked: the lifecycle,
# diagnostics of unsaved text (the same as `mentat check --json` says for that text), of a mod
# file, a variant and a house-rule file, incremental changes, hover, definition, references,
# completion, document symbols, UTF-16 positions, and bad input of every kind answered with a
# JSON-RPC error while the server goes on.  Then tests/lsp/nvim-test.lua drives Neovim's own LSP
# client (headless) on a faction file with a deliberate error.
# Last line: "lsp: N passed, N failed".
set -u
BUILD=${BUILD:-build}
M=$BUILD/mentat
F=$BUILD/tests/lspframe
ROOT=$(pwd -P)
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() {
  fail=$((fail + 1)); echo "FAIL: $1"
  if [ -n "${2:-}" ] && [ -f "$2" ]; then echo "---- $2"; cut -c1-400 "$2" | head -n 20; echo "----"; fi
}
uri() { echo "file://$1"; }
# pos FILE NEEDLE [SHIFT]: "LINE CHAR" (0-based) of NEEDLE's first occurrence, CHAR moved by SHIFT
pos() { awk -v n="$2" -v s="${3:-0}" 'i = index($0, n) { print NR - 1, i - 1 + s; exit }' "$1"; }
# at FILE NEEDLE [SHIFT]: the position as the JSON of a request
at() { set -- $(pos "$@"); echo "{\"line\":$1,\"character\":$2}"; }
INIT='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"capabilities":{}}}
{"jsonrpc":"2.0","method":"initialized","params":{}}'
BYE='{"jsonrpc":"2.0","id":999,"method":"shutdown"}
{"jsonrpc":"2.0","method":"exit"}'
# session NAME [mentat lsp options]: runs the script on standard input; NAME.lines holds the
# answers, NAME.rc the exit status (a session that hangs is killed after 60 s: a failure)
session() {
  name=$1; shift
  cat > "$T/$name.in"
  "$F" frame < "$T/$name.in" > "$T/$name.stream"
  timeout 60 "$M" lsp "$@" < "$T/$name.stream" > "$T/$name.out" 2> "$T/$name.err"
  echo $? > "$T/$name.rc"
  "$F" unframe < "$T/$name.out" > "$T/$name.lines" || bad "$name: the server's framing" "$T/$name.out"
}
# answer NAME ID PATH [FIELD...]: what `lspframe get` prints for the answer to request ID
answer() {
  n=$1 id=$2; shift 2
  grep "^{\"jsonrpc\":\"2.0\",\"id\":$id," "$T/$n.lines" | "$F" get "$@"
}
# diags NAME URI: the last diagnostics published for URI, "line|character|severity|message"
diags() {
  grep '"method":"textDocument/publishDiagnostics"' "$T/$1.lines" | grep -F "\"uri\":\"$2\"" | tail -n 1 |
    "$F" get 'params.diagnostics.*' range.start.line range.start.character severity message
}
# expect WHAT FILE PATTERN: FILE has a line matching the extended regular expression
expect() { if grep -Eq -- "$3" "$2"; then ok; else bad "$1 (no line matches: $3)" "$2"; fi; }
expect_not() { if grep -Eq -- "$3" "$2"; then bad "$1 (a line matches: $3)" "$2"; else ok; fi; }

FREMEN=$ROOT/factions/fremen.rules
FU=$(uri "$FREMEN")

# ---- 1. lifecycle -----------------------------------------------------------------------------
session life <<EOF
{"jsonrpc":"2.0","id":1,"method":"textDocument/hover","params":{}}
$INIT
{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"capabilities":{}}}
$BYE
EOF
answer life 1 error.code > "$T/a"; expect "a request before initialize: ServerNotInitialized" "$T/a" '^-32002$'
answer life 0 result.capabilities hoverProvider definitionProvider referencesProvider documentSymbolProvider textDocumentSync.change > "$T/a"
expect "initialize: the capabilities (hover, definition, references, symbols, incremental sync)" "$T/a" '^true\|true\|true\|true\|2$'
answer life 0 result.capabilities.documentFormattingProvider > "$T/a"
expect "no formatting offered (the language has no canonical layout)" "$T/a" '^-$'
answer life 2 error.code > "$T/a"; expect "a second initialize is refused" "$T/a" '^-32600$'
answer life 999 result > "$T/a"; expect "shutdown answers null" "$T/a" '^null$'
expect "shutdown then exit: exit status 0" "$T/life.rc" '^0$'
session life2 <<EOF
$INIT
{"jsonrpc":"2.0","method":"exit"}
EOF
expect "exit without shutdown: exit status 1" "$T/life2.rc" '^1$'
session life3 <<EOF
$INIT
{"jsonrpc":"2.0","id":1,"method":"shutdown"}
{"jsonrpc":"2.0","id":2,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"$FU"}}}
{"jsonrpc":"2.0","method":"exit"}
EOF
answer life3 2 error.code > "$T/a"; expect "a request after shutdown: InvalidRequest" "$T/a" '^-32600$'
session life4 < /dev/null
expect "an empty input: the server ends (status 1, no shutdown)" "$T/life4.rc" '^1$'

# ---- 2. diagnostics: the unsaved text, as `mentat check` says it ----------------------------------
# A copy of the pack whose fremen.rules has a misspelt territory on disk: `check --json` says
# what is wrong; the server, given that same text unsaved, must say the same.
mkdir -p "$T/pack"
cp -R "$ROOT/rules" "$ROOT/factions" "$ROOT/variants" "$T/pack/"
sed 's/section(sietch_tabr, first/section(sietch_tab, first/' "$FREMEN" > "$T/pack/factions/fremen.rules"
cmp -s "$FREMEN" "$T/pack/factions/fremen.rules" && bad "the test's deliberate error was not made"
"$M" check --json --rules "$T/pack" > "$T/check.json" 2>&1
"$F" get 'diagnostics.*' line col severity message < "$T/check.json" |
  awk -F'|' -v OFS='|' '{ $1 -= 1; $2 -= 1; $3 = ($3 == "error") ? 1 : ($3 == "warning") ? 2 : 3; print }' > "$T/check.want"
expect "check --json finds the deliberate error" "$T/check.want" "unknown name 'sietch_tab'"
BROKEN=$("$F" jstr "$T/pack/factions/fremen.rules")
cp "$FREMEN" "$T/pack/factions/fremen.rules"        # on disk: the good text; the editor has the broken one
PU=$(uri "$T/pack/factions/fremen.rules")
session diag <<EOF
$INIT
{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"$PU","languageId":"mentat","version":1,"text":$BROKEN}}}
$BYE
EOF
diags diag "$PU" > "$T/diag.got"
if [ -s "$T/diag.got" ] && cmp -s "$T/check.want" "$T/diag.got"; then ok; else
  bad "the unsaved text's diagnostics are not check --json's (want, then got)" "$T/check.want"; cat "$T/diag.got"; fi
expect "the diagnostic suggests the right name" "$T/diag.got" "did you mean 'sietch_tabr'"
cmp -s "$FREMEN" "$T/pack/factions/fremen.rules" && ok || bad "the file on disk changed"

# incremental changes: fix the word, then break another line; a full-text change back
set -- $(pos "$T/pack/factions/fremen.rules" 'section(sietch_tabr, first' 8)
L=$1 C=$2
set -- $(pos "$T/pack/factions/fremen.rules" 'require f == fremen' 8)
L2=$1 C2=$2
GOOD=$("$F" jstr "$FREMEN")
session change <<EOF
$INIT
{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"$PU","languageId":"mentat","version":1,"text":$BROKEN}}}
{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"$PU","version":2},"contentChanges":[{"range":{"start":{"line":$L,"character":$C},"end":{"line":$L,"character":$((C + 10))}},"text":"sietch_tabr"}]}}
{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"$PU","version":3},"contentChanges":[{"range":{"start":{"line":$L2,"character":$C2},"end":{"line":$L2,"character":$((C2 + 1))}},"text":"ff"}]}}
{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"$PU","version":4},"contentChanges":[{"text":$GOOD}]}}
$BYE
EOF
grep '"method":"textDocument/publishDiagnostics"' "$T/change.lines" | "$F" get 'params.diagnostics.*' range.start.line message > "$T/a"
grep -c '"method":"textDocument/publishDiagnostics"' "$T/change.lines" > "$T/n"
expect "one publication per open and change" "$T/n" '^4$'
grep publishDiagnostics "$T/change.lines" | sed -n 2p | "$F" get params.diagnostics > "$T/a"
expect "the incremental fix clears the error" "$T/a" '^\[\]$'
grep publishDiagnostics "$T/change.lines" | sed -n 3p | "$F" get 'params.diagnostics.*' range.start.line message > "$T/a"
expect "an incremental change breaking a line is reported on that line" "$T/a" "^$L2\|unknown name 'ff'"
grep publishDiagnostics "$T/change.lines" | sed -n 4p | "$F" get params.diagnostics > "$T/a"
expect "a full-text change: clean again" "$T/a" '^\[\]$'

# warnings, for a house-rule file checked against the standard pack (as check does)
W=$ROOT/tests/fixtures/house/warnings.rules
WU=$(uri "$W")
"$M" check --json "$W" | "$F" get 'diagnostics.*' line col severity message |
  awk -F'|' -v OFS='|' '{ $1 -= 1; $2 -= 1; $3 = ($3 == "error") ? 1 : ($3 == "warning") ? 2 : 3; print }' > "$T/warn.want"
session warn <<EOF
$INIT
{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"$WU","languageId":"mentat","version":1,"text":$("$F" jstr "$W")}}}
$BYE
EOF
diags warn "$WU" > "$T/warn.got"
if [ "$(wc -l < "$T/warn.got")" -eq 3 ] && cmp -s "$T/warn.want" "$T/warn.got"; then ok; else
  bad "a house-rule file's warnings are not check's three (want, then got)" "$T/warn.want"; cat "$T/warn.got"; fi

# a mod's file is checked with its mod laid over the pack; a variant against the game it extends
SM=$ROOT/docs/modding/smugglers/factions/smugglers.rules
V=$ROOT/variants/wbc-2022.rules
session packs <<EOF
$INIT
{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"$(uri "$SM")","languageId":"mentat","version":1,"text":$("$F" jstr "$SM")}}}
{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"$(uri "$V")","languageId":"mentat","version":1,"text":$("$F" jstr "$V")}}}
{"jsonrpc":"2.0","id":1,"method":"textDocument/hover","params":{"textDocument":{"uri":"$(uri "$SM")"},"position":$(at "$SM" 'faction smugglers' 8)}}
$BYE
EOF
diags packs "$(uri "$SM")" > "$T/a"
if [ -s "$T/a" ]; then bad "the smugglers mod's faction file has diagnostics (not laid as --pack?)" "$T/a"; else ok; fi
grep -F "\"uri\":\"$(uri "$SM")\"" "$T/packs.lines" > "$T/b"
expect "the mod file's diagnostics were published (empty)" "$T/b" 'publishDiagnostics'
diags packs "$(uri "$V")" > "$T/a"
if [ -s "$T/a" ]; then bad "variants/wbc-2022.rules has diagnostics against the game it extends" "$T/a"; else ok; fi
answer packs 1 result.contents.value > "$T/a"
expect "hover in a mod: its own faction, from its sheet" "$T/a" 'faction.*smugglers'

# ---- 3. hover, definition, references, completion, symbols --------------------------------------
RV=$ROOT/rules/1.05-revival.rules
session query <<EOF
$INIT
{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"$FU","languageId":"mentat","version":1,"text":$("$F" jstr "$FREMEN")}}}
{"jsonrpc":"2.0","id":1,"method":"textDocument/hover","params":{"textDocument":{"uri":"$FU"},"position":$(at "$FREMEN" 'supersedes 1.05.01.01' 14)}}
{"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":{"uri":"$FU"},"position":$(at "$FREMEN" 'ability 2.04.07' 9)}}
{"jsonrpc":"2.0","id":3,"method":"textDocument/hover","params":{"textDocument":{"uri":"$FU"},"position":$(at "$FREMEN" 'sectors_of(' 2)}}
{"jsonrpc":"2.0","id":4,"method":"textDocument/hover","params":{"textDocument":{"uri":"$FU"},"position":$(at "$FREMEN" 'section(sietch_tabr' 10)}}
{"jsonrpc":"2.0","id":5,"method":"textDocument/hover","params":{"textDocument":{"uri":"$FU"},"position":$(at "$FREMEN" 'value worm_riders' 8)}}
{"jsonrpc":"2.0","id":6,"method":"textDocument/definition","params":{"textDocument":{"uri":"$FU"},"position":$(at "$FREMEN" 'supersedes 1.05.01.01' 14)}}
{"jsonrpc":"2.0","id":7,"method":"textDocument/definition","params":{"textDocument":{"uri":"$FU"},"position":$(at "$FREMEN" 'section(sietch_tabr' 10)}}
{"jsonrpc":"2.0","id":8,"method":"textDocument/definition","params":{"textDocument":{"uri":"$FU"},"position":$(at "$FREMEN" 'n: int in 1..worm_riders' 16)}}
{"jsonrpc":"2.0","id":9,"method":"textDocument/references","params":{"textDocument":{"uri":"$FU"},"position":$(at "$FREMEN" 'supersedes 1.05.01.01' 14),"context":{"includeDeclaration":false}}}
{"jsonrpc":"2.0","id":10,"method":"textDocument/references","params":{"textDocument":{"uri":"$FU"},"position":$(at "$FREMEN" 'value worm_riders' 8),"context":{"includeDeclaration":true}}}
{"jsonrpc":"2.0","id":11,"method":"textDocument/references","params":{"textDocument":{"uri":"$FU"},"position":$(at "$FREMEN" 'value worm_riders' 8),"context":{"includeDeclaration":false}}}
{"jsonrpc":"2.0","id":12,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"$FU"}}}
{"jsonrpc":"2.0","id":13,"method":"textDocument/hover","params":{"textDocument":{"uri":"$FU"},"position":$(at "$FREMEN" '  ability 2.04.02' 3)}}
{"jsonrpc":"2.0","id":14,"method":"textDocument/hover","params":{"textDocument":{"uri":"$FU"},"position":$(at "$FREMEN" 'from 0..left' 10)}}
{"jsonrpc":"2.0","id":15,"method":"textDocument/hover","params":{"textDocument":{"uri":"$FU"},"position":{"line":100000,"character":5}}}
{"jsonrpc":"2.0","id":16,"method":"textDocument/references","params":{"textDocument":{"uri":"$FU"},"position":$(at "$FREMEN" 'value worm_riders(f' 18),"context":{"includeDeclaration":true}}}
{"jsonrpc":"2.0","id":17,"method":"textDocument/completion","params":{"textDocument":{"uri":"$FU"},"position":$(at "$FREMEN" 'in 1..worm_riders' 8)}}
$BYE
EOF
answer query 1 result.contents.value > "$T/a"
expect "hover on a rule number: number and title" "$T/a" '^```text$'
expect "hover on a rule number: its title" "$T/a" '1\.05\.01\.01  Free revival'
expect "hover on a rule number: Basic/Advanced" "$T/a" 'game: Basic'
expect "hover on a rule number: the Karama window" "$T/a" 'karama: '
expect "hover on a rule number: what supersedes it" "$T/a" 'superseded by: .*2\.04\.04'
answer query 2 result.contents.value > "$T/a"
expect "hover on a Karama ability: its window" "$T/a" 'karama: after'
expect "hover on an ability: what it supersedes" "$T/a" 'supersedes: 1\.02\.05'
answer query 3 result.contents.value > "$T/a"
DOC=$(sed -n 's/^B(sectors_of, .*"\(.*\)")$/\1/p' interpreter/builtins.def)
expect "hover on a built-in: its signature" "$T/a" '^sectors_of\(territory\): set of sector$'
expect "hover on a built-in: the doc of builtins.def" "$T/a" "built-in: $DOC\$"
answer query 4 result.contents.value > "$T/a"
expect "hover on a territory" "$T/a" 'territory.*`sietch_tabr`: Sietch Tabr'
answer query 5 result.contents.value > "$T/a"
expect "hover on a value: its signature" "$T/a" '^value worm_riders\(f: faction\): int$'
expect "hover on a value: its rule" "$T/a" 'declared by rule 2\.04\.08'
answer query 6 'result.*' uri range.start.line > "$T/a"
RL=$(pos "$RV" 'rule 1.05.01.01' | cut -d' ' -f1)
expect "definition of a rule number: its rule" "$T/a" "^$(uri "$RV")\|$RL\$"
answer query 7 'result.*' uri range.start.line > "$T/a"
BL=$(pos "$ROOT/rules/board.yaml" '  sietch_tabr:' | cut -d' ' -f1)
expect "definition of a territory: its entry in board.yaml" "$T/a" "^$(uri "$ROOT/rules/board.yaml")\|$BL\$"
answer query 8 'result.*' uri range.start.line > "$T/a"
VL=$(pos "$FREMEN" 'value worm_riders' | cut -d' ' -f1)
expect "definition of a value: its declaration" "$T/a" "^$FU\|$VL\$"
answer query 9 'result.*' uri > "$T/a"
for f in atreides bene_gesserit emperor fremen harkonnen spacing_guild; do
  expect "references of 1.05.01.01: $f's free revival supersedes it" "$T/a" "^$(uri "$ROOT/factions/$f.rules")\$"
done
expect_not "references without the declaration" "$T/a" "^$(uri "$RV")\$"
answer query 10 'result.*' uri range.start.line > "$T/a"
answer query 11 'result.*' uri range.start.line > "$T/b"
N10=$(wc -l < "$T/a") N11=$(wc -l < "$T/b")
NT=$(grep -o 'worm_riders' "$FREMEN" | wc -l)
if [ "$N10" -eq "$NT" ] && [ "$N11" -eq $((NT - 1)) ]; then ok; else
  bad "references of worm_riders: $N10 with the declaration, $N11 without; the file names it $NT times" "$T/a"; fi
answer query 12 'result.*' name > "$T/a"
expect "document symbols: the faction blocks" "$T/a" '^faction fremen$'
answer query 12 'result.*.children.*' name detail > "$T/a"
expect "document symbols: the abilities with their titles" "$T/a" '^2\.04\.07\|SHAI-HULUD'
answer query 12 'result.*.children.*.children.*' name > "$T/a"
expect "document symbols: values, actions and triggers of an ability" "$T/a" '^value worm_riders$'
expect "document symbols: actions" "$T/a" '^action ride_worm$'
answer query 13 result.contents.value > "$T/a"
expect "hover on a keyword" "$T/a" 'keyword of the rules language'
answer query 14 result.contents.value > "$T/a"
expect "hover on the n of 0..n: the name, not a rule number" "$T/a" '^-$|null'
answer query 15 result > "$T/a"
expect "hover past the end of the text: null" "$T/a" '^null$'
answer query 16 'result.*' uri > "$T/a"
expect "references of a parameter: in its own file" "$T/a" "^$FU\$"
expect_not "references of a parameter: not every f of the pack" "$T/a" "atreides"
answer query 17 'result.items.*' label > "$T/a"
expect "completion after a range's ..: names, not rule numbers" "$T/a" '^worm_riders$'

# completion: territories by prefix, rule numbers after supersedes, keywords
NEW=$T/pack/variants/house.rules
printf 'rule house.1 "x" supersedes 1.02.0\nrule house.2 "y" {\n  value v(f: faction): int = tokens(f, sietch\n}\nrule house.3 "z" {\n  value w(rival: faction): int = sum(s in sectors_of(sietch_tabr): tokens_at(ri\n' > "$T/house.txt"
L5=$(sed -n 6p "$T/house.txt" | awk '{ print length($0) }')
session comp <<EOF
$INIT
{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"$(uri "$NEW")","languageId":"mentat","version":1,"text":$("$F" jstr "$T/house.txt")}}}
{"jsonrpc":"2.0","id":1,"method":"textDocument/completion","params":{"textDocument":{"uri":"$(uri "$NEW")"},"position":{"line":0,"character":35}}}
{"jsonrpc":"2.0","id":2,"method":"textDocument/completion","params":{"textDocument":{"uri":"$(uri "$NEW")"},"position":{"line":2,"character":43}}}
{"jsonrpc":"2.0","id":3,"method":"textDocument/completion","params":{"textDocument":{"uri":"$(uri "$NEW")"},"position":{"line":3,"character":0}}}
{"jsonrpc":"2.0","id":4,"method":"textDocument/completion","params":{"textDocument":{"uri":"$(uri "$NEW")"},"position":{"line":5,"character":$L5}}}
{"jsonrpc":"2.0","id":5,"method":"textDocument/completion","params":{"textDocument":{"uri":"$(uri "$NEW")"},"position":{"line":5,"character":$((L5 - 2))}}}
$BYE
EOF
answer comp 1 'result.items.*' label kind detail > "$T/a"
expect "completion after supersedes: rule numbers with titles" "$T/a" '^1\.02\.05\|18\|rule: Shai-Hulud'
expect_not "completion after supersedes: no other names" "$T/a" '\|(3|20|14)\|'
answer comp 2 'result.items.*' label detail textEdit.range.start.character > "$T/a"
expect "completion of a territory name, with its detail and the prefix replaced" "$T/a" "^sietch_tabr\|territory: Sietch Tabr\|$(pos "$T/house.txt" sietch | cut -d" " -f2)\$"
expect_not "completion filters by the prefix" "$T/a" '^arrakeen'
answer comp 3 'result.items.*' label kind > "$T/a"
for k in supersedes karama value action; do expect "completion: the keyword $k" "$T/a" "^$k\|14\$"; done
expect "completion: factions" "$T/a" '^fremen\|20$'
expect "completion: values" "$T/a" '^worm_riders\|3$'
expect "completion: actions" "$T/a" '^ride_worm\|2$'
expect "completion: token kinds" "$T/a" '^fedaykin\|21$'
expect "completion: cards" "$T/a" '^lasgun\|20$'
expect "completion: events" "$T/a" '^devour\|23$'
expect "completion: kinds of action" "$T/a" '^interjection\|21$'
answer comp 4 'result.items.*' label kind detail > "$T/a"
expect "completion while typing: the value's parameter, in scope" "$T/a" '^rival\|6\|parameter$'
answer comp 5 'result.items.*' label kind detail > "$T/a"
expect "completion while typing: the aggregate's variable, in scope" "$T/a" '^s\|6\|loop variable$'
expect_not "completion: no parameter of another value" "$T/a" '^f\|6\|'
[ -e "$NEW" ] && bad "completion's unsaved file was written to disk"

# positions in UTF-16: a name after non-ASCII text on its line (é: 1 unit, 2 bytes; 𝔇: 2 units, 4 bytes)
printf 'rule house.u "é𝔇" { value u(f: faction): int = tokens(f, sietch_tabr) }\n# see 1.05.99\n' > "$T/utf.txt"
session utf <<EOF
$INIT
{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"$(uri "$NEW")","languageId":"mentat","version":1,"text":$("$F" jstr "$T/utf.txt")}}}
{"jsonrpc":"2.0","id":1,"method":"textDocument/hover","params":{"textDocument":{"uri":"$(uri "$NEW")"},"position":{"line":0,"character":58}}}
{"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":{"uri":"$(uri "$NEW")"},"position":{"line":1,"character":9}}}
$BYE
EOF
answer utf 1 result range.start.character contents.value > "$T/a"
expect "UTF-16 positions: hover finds the name after é and 𝔇, its range in UTF-16 units" "$T/a" '^58\|.*Sietch Tabr'
answer utf 2 result.contents.value > "$T/a"
expect "hover on an unknown rule number: explain's answer, with the nearest" "$T/a" '^no rule 1\.05\.99 in the loaded rules \(did you mean [0-9.]+\?\)'
# a client that offers UTF-8 positions gets them: characters count bytes
sed 's/"capabilities":{}/"capabilities":{"general":{"positionEncodings":["utf-8","utf-16"]}}/; s/"character":58/"character":61/' "$T/utf.in" > "$T/utf8.script"
session utf8 < "$T/utf8.script"
answer utf8 0 result.capabilities.positionEncoding > "$T/a"
expect "UTF-8 positions negotiated" "$T/a" '^utf-8$'
answer utf8 1 result range.start.character contents.value > "$T/a"
expect "UTF-8 positions: the hover's range in bytes" "$T/a" '^61\|.*Sietch Tabr'

# ---- 4. bad input: a JSON-RPC error, and the server goes on -----------------------------------------
{
  printf 'RAW Content-Length: 8\\r\\n\\r\\n{"jsonrp\n'
  printf 'RAW Content-Length: 3\\r\\n\\r\\n[1]\n'
  printf 'RAW Content-Length: 5\\r\\n\\r\\n"str"\n'
  printf 'RAW Content-Length: x\\r\\n\\r\\n\n'
  printf 'RAW Content-Type: text/plain\\r\\n\\r\\n\n'
  printf 'RAW no colon here\\r\\n\\r\\n\n'
  printf 'RAW Content-Length: 99999999999999999999\\r\\n\\r\\n\n'
  printf 'RAW Content-Length: 4\\r\\n\\r\\n\\xff\\xfe{}\n'
  echo "$INIT"
  echo '{"jsonrpc":"2.0","id":{"a":1},"method":"shutdown"}'
  echo '{"jsonrpc":"2.0","id":3}'
  echo '{"jsonrpc":"2.0","id":4,"method":7}'
  echo '{"jsonrpc":"2.0","id":5,"method":"no/such/method"}'
  echo '{"jsonrpc":"2.0","id":6,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///nowhere.rules"},"position":{"line":0,"character":0}}}'
  echo '{"jsonrpc":"2.0","id":7,"method":"textDocument/hover","params":{"textDocument":{}}}'
  sed "s|@FU@|$FU|g" <<'EOF'
{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"@FU@","languageId":"mentat","version":1,"text":"faction {{{ é \"\\ }"}}}
{"jsonrpc":"2.0","id":13,"method":"shutdown","params":{"x":"a\u0000b"}}
{"jsonrpc":"2.0","id":8,"method":"textDocument/hover","params":{"textDocument":{"uri":"@FU@"},"position":{"line":0,"character":-3}}}
{"jsonrpc":"2.0","id":9,"method":"textDocument/hover","params":{"textDocument":{"uri":"@FU@"},"position":{"line":1.5,"character":0}}}
{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"@FU@"},"contentChanges":[{"range":{"start":{"line":90000,"character":0},"end":{"line":0,"character":0}},"text":"x"},{"range":7}]}}
{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"@FU@"},"contentChanges":[{"range":{"start":{"line":0,"character":2},"end":{"line":90000,"character":90000}},"text":"ction"}]}}
{"jsonrpc":"2.0","id":14,"method":"textDocument/hover","params":{"textDocument":{"uri":"@FU@"},"position":{"line":0,"character":3}}}
EOF
  echo '{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"untitled:1","text":"x"}}}'
  echo '{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///a%00b.rules","text":"x"}}}'
  echo '{"jsonrpc":"2.0","method":"textDocument/didOpen","params":7}'
  echo '{"jsonrpc":"2.0","id":10,"method":"textDocument/documentSymbol","params":[1,2]}'
  echo '{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}'
  echo '{"jsonrpc":"2.0","id":11,"result":null}'
  echo "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"textDocument/documentSymbol\",\"params\":{\"textDocument\":{\"uri\":\"$FU\"}}}"
  echo "$BYE"
} > "$T/bad.script"
session bad < "$T/bad.script"
expect "bad input: the server still shuts down cleanly" "$T/bad.rc" '^0$'
answer bad null error code message > "$T/a"
expect "a body that is not JSON: parse error" "$T/a" '^-32700\|parse error'
expect "a batch: invalid request" "$T/a" '^-32600\|batches are not part of LSP'
expect "a body that is not an object: invalid request" "$T/a" '^-32600\|a message must be a JSON object'
expect "a Content-Length that is not a number" "$T/a" '^-32700\|malformed message header: a Content-Length that is not a number'
expect "no Content-Length" "$T/a" '^-32700\|malformed message header: no Content-Length header'
expect "a header line without a colon" "$T/a" "^-32700\\|malformed message header: a header line without ':'"
expect "a NUL in a string: parse error" "$T/a" '^-32700\|parse error: .*u0000'
expect "a Content-Length too large" "$T/a" '^-32700\|malformed message header: a Content-Length that is not a number'
expect "bytes that are not UTF-8: parse error" "$T/a" '^-32700\|parse error: unable to decode byte 0xff'
expect "an id that is an object: invalid request" "$T/a" '^-32600\|id must be a number or a string'
answer bad 3 error.code > "$T/a"; expect "no method: invalid request" "$T/a" '^-32600$'
answer bad 4 error.code > "$T/a"; expect "a method that is not a string: invalid request" "$T/a" '^-32600$'
answer bad 5 error.code > "$T/a"; expect "an unknown method: method not found" "$T/a" '^-32601$'
answer bad 6 error code message > "$T/a"; expect "a document never opened: invalid params" "$T/a" '^-32602\|the document is not open'
answer bad 7 error.code > "$T/a"; expect "no uri: invalid params" "$T/a" '^-32602$'
answer bad 8 error.code > "$T/a"; expect "a negative character: invalid params" "$T/a" '^-32602$'
answer bad 9 error.code > "$T/a"; expect "a line that is not an integer: invalid params" "$T/a" '^-32602$'
answer bad 10 error.code > "$T/a"; expect "params as an array without a document: invalid params" "$T/a" '^-32602$'
grep -c '"id":11' "$T/bad.lines" > "$T/a"; expect "a response from the client is not answered" "$T/a" '^0$'
answer bad 12 result > "$T/a"; expect "after all that, a request on garbage text is answered" "$T/a" '^\['
answer bad 14 result.contents.value > "$T/a"; expect "a change past the end is clamped: 'faction'" "$T/a" 'keyword'
grep 'publishDiagnostics' "$T/bad.lines" | "$F" get 'params.diagnostics.*' severity message > "$T/a"
expect "garbage text was checked: its errors published" "$T/a" '^1\|'
if [ -s "$T/bad.err" ]; then bad "the server wrote to standard error" "$T/bad.err"; else ok; fi

# a body cut short by the end of the input, and a header cut short: the server ends, no hang
printf 'Content-Length: 100\r\n\r\n{"jsonrpc":' | timeout 20 "$M" lsp > /dev/null 2>&1
[ $? -eq 1 ] && ok || bad "a body cut short: the server must end with status 1"
printf 'Content-Length: 10' | timeout 20 "$M" lsp > /dev/null 2>&1
[ $? -eq 1 ] && ok || bad "a header cut short: the server must end with status 1"
"$M" lsp extra.rules < /dev/null > /dev/null 2> "$T/a"
[ $? -eq 64 ] && ok || bad "mentat lsp FILE: a usage error (64)"

# ---- 5. a real client: Neovim's, headless -------------------------------------------------------------
if command -v nvim > /dev/null; then
  sed 's/section(sietch_tabr, first/section(sietch_tab, first/' "$FREMEN" > "$T/pack/factions/fremen.rules"
  # init.lua: docs/editors.md's, with this checkout and this build's binary
  awk '/^```lua$/ { f = 1; next } /^```$/ { if (f) exit } f' docs/editors.md |
    sed "s|/path/to/mentat|$ROOT|g; s|{ \"mentat\", \"lsp\" }|{ \"$ROOT/$M\", \"lsp\" }|" > "$T/init.lua"
  grep -q "dofile(\"$ROOT/editors/nvim/mentat.lua\")" "$T/init.lua" && grep -q "$ROOT/$M" "$T/init.lua" && ok ||
    bad "docs/editors.md's init.lua (its first lua block) was not found as the test expects it" "$T/init.lua"
  FILE="$T/pack/factions/fremen.rules" OUT="$T/nvim.out" \
    timeout 120 nvim --headless --clean -u "$T/init.lua" -i NONE -n -c "luafile $ROOT/tests/lsp/nvim-test.lua" > "$T/nvim.log" 2>&1
  rc=$?
  if [ $rc -eq 0 ] && grep -q '^nvim: all passed' "$T/nvim.out"; then ok; else
    bad "Neovim's LSP client (exit $rc)" "$T/nvim.out"; cat "$T/nvim.log" | head -n 20; fi
  grep '^nvim: ' "$T/nvim.out" | grep -v 'all passed' | sed 's/^/  /'
else
  bad "nvim is not installed (make deps installs neovim)"
fi

echo "lsp: $pass passed, $fail failed"
[ $fail -eq 0 ]
