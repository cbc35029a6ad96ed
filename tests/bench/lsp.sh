#!/bin/sh
# lsp.sh -- make bench's figure for `mentat lsp` (issue 28): the time from a didChange on the
# largest .rules file of the standard pack to its diagnostics published, each change checking
# the whole pack with the edited text (the target: within 100 ms).  Two sessions are timed, one
# that opens the file and one that also sends N changes; the difference over N is one change.
# Usage: sh tests/bench/lsp.sh BUILD [N]
BUILD=${1:-build}
N=${2:-20}
set -e
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cc -O2 tests/tools/lspframe.c $(pkg-config --cflags --libs jansson) -o "$T/lspframe"
BIG=$(ls -S rules/*.rules factions/*.rules variants/*.rules | head -n 1)
U="file://$(pwd -P)/$BIG"
INIT='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"capabilities":{}}}'
OPEN="{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{\"textDocument\":{\"uri\":\"$U\",\"languageId\":\"mentat\",\"version\":1,\"text\":$("$T/lspframe" jstr "$BIG")}}}"
BYE='{"jsonrpc":"2.0","id":1,"method":"shutdown"}
{"jsonrpc":"2.0","method":"exit"}'
printf '%s\n%s\n%s\n' "$INIT" "$OPEN" "$BYE" | "$T/lspframe" frame > "$T/base"
{
  printf "%s\n%s\n" "$INIT" "$OPEN"
  i=0
  while [ $i -lt "$N" ]; do # typing: a space in, a space out, at the start of the first line
    if [ $((i % 2)) -eq 0 ]; then end=0 text=' '; else end=1 text=''; fi
    printf "%s\n" "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didChange\",\"params\":{\"textDocument\":{\"uri\":\"$U\",\"version\":$((i + 2))},\"contentChanges\":[{\"range\":{\"start\":{\"line\":0,\"character\":0},\"end\":{\"line\":0,\"character\":$end}},\"text\":\"$text\"}]}}"
    i=$((i + 1))
  done
  printf "%s\n" "$BYE"
} | "$T/lspframe" frame > "$T/changes"
best() { # the fastest of 3 runs of session $1, in ns
  b=
  for k in 1 2 3; do
    t0=$(date +%s%N); "$BUILD/mentat" lsp < "$1" > "$T/out"; t1=$(date +%s%N)
    d=$((t1 - t0)); if [ -z "$b" ] || [ $d -lt $b ]; then b=$d; fi
  done
  echo "$b"
}
base=$(best "$T/base")
all=$(best "$T/changes")
pub=$("$T/lspframe" unframe < "$T/out" | grep -c publishDiagnostics)
per=$(( (all - base) / N / 1000 ))
echo "   $BIG ($(wc -c < "$BIG") bytes, against the pack): open and first check $((base / 1000000)) ms; one didChange answered in $((per / 1000)).$(( (per % 1000) / 100 )) ms (mean of $N; $pub publications)"
if [ "$per" -le 100000 ]; then echo "   target 100 ms: met"; else echo "   target 100 ms: not met"; fi
