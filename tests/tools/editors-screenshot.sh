#!/bin/sh
# editors-screenshot.sh -- docs/editors.png (make editors-png): Neovim, set up as docs/editors.md
# says, in a tmux window, on a faction file with a misspelt territory (its diagnostic shown) and
# the hover of a rule number open (K); the pane captured with its colours (tmux capture-pane -e),
# drawn as SVG by tests/tools/ansi2svg and rendered by rsvg-convert.  Needs tmux.
set -eu
BUILD=${BUILD:-build}
OUT=${1:-docs/editors.png}
ROOT=$(pwd -P)
T=$(mktemp -d)
SOCK=mentat-screenshot-$$
trap 'tmux -L "$SOCK" kill-server 2>/dev/null || true; rm -rf "$T"' EXIT
cc -O2 tests/tools/ansi2svg.c -o "$T/ansi2svg"
mkdir -p "$T/dune"
cp -R rules factions variants "$T/dune/"
F=$T/dune/factions/fremen.rules
sed 's/section(sietch_tabr, first/section(sietch_tab, first/' factions/fremen.rules > "$F"
cat > "$T/init.lua" <<EOF
vim.opt.runtimepath:prepend("$ROOT/editors/vim")
dofile("$ROOT/editors/nvim/mentat.lua").setup({ cmd = { "$ROOT/$BUILD/mentat", "lsp" } })
vim.opt.number = true
vim.opt.signcolumn = "yes"
vim.opt.shortmess:append("I")
EOF
COLS=188 ROWS=34
tmux -L "$SOCK" -f /dev/null new-session -d -x $COLS -y $ROWS -s shot \
  "cd '$T/dune' && TERM=xterm-256color nvim -u '$T/init.lua' -i NONE -n factions/fremen.rules"
sleep 2
LINE=$(awk '/supersedes 1\.05\.01\.01/ { print NR; exit }' "$F")
COL=$(awk '/supersedes 1\.05\.01\.01/ { print index($0, "1.05.01.01") + 3; exit }' "$F")
tmux -L "$SOCK" send-keys -t shot ":call cursor($LINE, $COL) | echo ''" Enter
sleep 0.5
tmux -L "$SOCK" send-keys -t shot K
sleep 1.5
tmux -L "$SOCK" capture-pane -e -p -t shot > "$T/screen.ansi"
"$T/ansi2svg" $COLS $ROWS < "$T/screen.ansi" > "$T/screen.svg"
rsvg-convert -o "$OUT" "$T/screen.svg"
echo "editors-screenshot: wrote $OUT"
