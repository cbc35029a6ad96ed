#!/bin/sh
# make-lsp-seeds.sh -- writes the language server fuzzer's seeds (tests/fuzz/seeds/lsp): client
# sessions framed by tests/tools/lspframe, against the race game (tests/fixtures/race), the
# fuzzer's pack.  Usage: sh tests/fuzz/make-lsp-seeds.sh (after make build/tests/lspframe).
set -eu
F=${BUILD:-build}/tests/lspframe
S=tests/fuzz/seeds/lsp
mkdir -p "$S"
RACE=tests/fixtures/race
H=file:///fuzz/house.rules
INIT='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"capabilities":{"general":{"positionEncodings":["utf-8","utf-16"]}}}}
{"jsonrpc":"2.0","method":"initialized","params":{}}'
BYE='{"jsonrpc":"2.0","id":99,"method":"shutdown"}
{"jsonrpc":"2.0","method":"exit"}'
pos() { echo "{\"textDocument\":{\"uri\":\"$H\"},\"position\":{\"line\":$1,\"character\":$2}}"; }
TEXT=$("$F" jstr "$RACE/factions/blue.rules")
"$F" frame > "$S/01-session" <<EOF
$INIT
{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"$H","languageId":"mentat","version":1,"text":$TEXT}}}
{"jsonrpc":"2.0","id":1,"method":"textDocument/hover","params":$(pos 2 12)}
{"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":$(pos 2 68)}
{"jsonrpc":"2.0","id":3,"method":"textDocument/definition","params":$(pos 2 68)}
{"jsonrpc":"2.0","id":4,"method":"textDocument/references","params":{"textDocument":{"uri":"$H"},"position":{"line":3,"character":12},"context":{"includeDeclaration":true}}}
{"jsonrpc":"2.0","id":5,"method":"textDocument/completion","params":$(pos 3 14)}
{"jsonrpc":"2.0","id":6,"method":"textDocument/completion","params":$(pos 2 70)}
{"jsonrpc":"2.0","id":7,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"$H"}}}
{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"$H","version":2},"contentChanges":[{"range":{"start":{"line":3,"character":10},"end":{"line":3,"character":16}},"text":"refuels"}]}}
{"jsonrpc":"2.0","id":8,"method":"textDocument/hover","params":$(pos 6 12)}
{"jsonrpc":"2.0","method":"textDocument/didClose","params":{"textDocument":{"uri":"$H"}}}
$BYE
EOF
"$F" frame > "$S/02-bad" <<EOF
RAW Content-Length: 8\r\n\r\n{"jsonrp
RAW Content-Length: x\r\n\r\n
RAW no colon\r\n\r\n
RAW Content-Length: 4\r\n\r\n\xff\xfe{}
[1,2]
{"jsonrpc":"2.0","id":{"a":1},"method":"shutdown"}
{"jsonrpc":"2.0","id":1,"method":"textDocument/hover","params":{}}
$INIT
{"jsonrpc":"2.0","id":3}
{"jsonrpc":"2.0","id":4,"method":7}
{"jsonrpc":"2.0","id":5,"method":"no/such"}
{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"$H","text":"faction {{{ \"\\\\ }"}}}
{"jsonrpc":"2.0","id":6,"method":"textDocument/hover","params":{"textDocument":{"uri":"$H"},"position":{"line":-1,"character":0}}}
{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"$H"},"contentChanges":[{"range":{"start":{"line":9,"character":0},"end":{"line":0,"character":0}},"text":"x"}]}}
{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"$H"},"contentChanges":[{"range":{"start":{"line":0,"character":2},"end":{"line":9,"character":9}},"text":"ction"}]}}
{"jsonrpc":"2.0","id":7,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"$H"}}}
$BYE
EOF
"$F" frame > "$S/03-pack-file" <<EOF
$INIT
{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///fuzz/rules/race.rules","text":$("$F" jstr "$RACE/rules/race.rules")}}}
{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///fuzz/variants/sprint.rules","text":$("$F" jstr "$RACE/variants/sprint.rules")}}}
{"jsonrpc":"2.0","id":1,"method":"textDocument/completion","params":{"textDocument":{"uri":"file:///fuzz/variants/sprint.rules"},"position":{"line":3,"character":3}}}
$BYE
EOF
echo "make-lsp-seeds: $(ls "$S" | wc -l) seeds in $S"
