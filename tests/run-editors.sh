#!/bin/sh
# run-editors.sh -- the editors' files (editors/): the syntax files are exactly what
# editors/generate.sh makes of the lexer's keywords and builtins.def's built-ins (so neither can
# drift from the language), every keyword is in each of them, the VS Code files are JSON, and
# Vim (Neovim headless, with editors/vim on its runtime path) detects a .rules file and
# highlights its keywords, rule numbers, built-ins, strings and comments with these groups.
# Last line: "editors: N passed, N failed".
set -u
BUILD=${BUILD:-build}
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $1"; [ -n "${2:-}" ] && [ -f "$2" ] && head -n 20 "$2"; }

sh editors/generate.sh "$T/gen"
for f in vscode/syntaxes/mentat.tmLanguage.json vim/syntax/mentat.vim emacs/mentat-mode.el; do
  if diff -u "editors/$f" "$T/gen/$f" > "$T/diff"; then ok; else
    bad "editors/$f is not what editors/generate.sh makes of the lexer and builtins.def (run: sh editors/generate.sh editors)" "$T/diff"; fi
done
sh editors/generate.sh --keywords > "$T/kw"
[ "$(wc -l < "$T/kw")" -gt 60 ] && ok || bad "editors/generate.sh --keywords finds the lexer's keywords" "$T/kw"
for k in $(cat "$T/kw"); do
  grep -Eq "[(|]$k[|)]" editors/vscode/syntaxes/mentat.tmLanguage.json || bad "keyword $k missing from the TextMate grammar"
  grep -Eq "^syn keyword mentat[A-Za-z]+ (.* )?$k( |\$)" editors/vim/syntax/mentat.vim || bad "keyword $k missing from the Vim syntax"
  grep -q "\"$k\"" editors/emacs/mentat-mode.el || bad "keyword $k missing from mentat-mode.el"
done
ok
for j in editors/vscode/package.json editors/vscode/language-configuration.json editors/vscode/syntaxes/mentat.tmLanguage.json; do
  if "$BUILD/tests/jsoncheck" < "$j" > "$T/j" 2>&1; then ok; else bad "$j is not JSON" "$T/j"; fi
done
grep -q '"path": "./syntaxes/mentat.tmLanguage.json"' editors/vscode/package.json && ok || bad "package.json names the grammar"
# where node is installed (it is not a dependency): the extension parses, the grammar's patterns compile
if command -v node > /dev/null; then
  node --check editors/vscode/extension.js > "$T/n" 2>&1 && ok || bad "extension.js does not parse" "$T/n"
  node -e 'const g = require(process.argv[1]); const all = [];
    (function walk(o) { for (const k in o) { if (k === "match" || k === "begin" || k === "end") all.push(o[k]);
      else if (o[k] && typeof o[k] === "object") walk(o[k]); } })(g);
    for (const r of all) new RegExp(r); console.log(all.length + " patterns");' \
    "$PWD/editors/vscode/syntaxes/mentat.tmLanguage.json" > "$T/n" 2>&1 && ok || bad "a TextMate pattern does not compile" "$T/n"
fi

# Vim's view of a faction file: the syntax group at each probe (line, text at the column)
if command -v nvim > /dev/null; then
  F=factions/fremen.rules
  probe() { awk -v n="$2" 'i = index($0, n) { print NR, i; exit }' "$F" | sed "s/\$/ $1/"; }
  {
    probe mentatComment '# bid'
    probe mentatKeyword 'faction fremen'
    probe mentatRuleNumber '2.04.04'
    probe mentatKeyword 'supersedes 1.05'
    probe mentatString '"Fremen"'
    probe mentatBuiltin 'sectors_of('
    probe mentatConstant 'none ?'
    probe mentatOperator 'and to !='
  } > "$T/probes"
  timeout 60 nvim --headless --clean -u NONE -i NONE -n --cmd "set rtp^=$PWD/editors/vim" \
    -c 'filetype on' -c 'syntax on' -c "edit $F" \
    -c "let out = [&filetype] | for p in readfile('$T/probes') | let [l, c, w] = split(p) | call add(out, w . ' ' . synIDattr(synID(l, c, 1), 'name')) | endfor | call writefile(out, '$T/vim.out') | qa!" \
    > "$T/vim.log" 2>&1
  if [ "$(head -n 1 "$T/vim.out" 2>/dev/null)" = mentat ]; then ok; else bad "Vim does not detect *.rules as mentat (ftdetect)" "$T/vim.log"; fi
  tail -n +2 "$T/vim.out" 2>/dev/null | while read want got; do
    [ "$want" = "$got" ] || echo "$want $got"
  done > "$T/vim.bad"
  if [ -s "$T/vim.bad" ] || [ "$(tail -n +2 "$T/vim.out" | wc -l)" -ne "$(wc -l < "$T/probes")" ]; then
    bad "Vim's syntax groups (wanted, got)" "$T/vim.bad"; cat "$T/vim.out"; else ok; fi
else
  bad "nvim is not installed (make deps installs neovim)"
fi
echo "editors: $pass passed, $fail failed"
[ $fail -eq 0 ]
