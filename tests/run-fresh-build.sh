#!/bin/sh
# run-fresh-build.sh -- a fresh Debian machine builds with `make -j2`.
#
# Clones the repository into a temporary directory and builds it on a
# simulated fresh machine: flex, bison, pkg-config, Graphviz's dot, rsvg-convert, gnuplot and Neovim
# are hidden from PATH, and libyaml, cmocka, libedit and jansson are hidden behind a fake
# pkg-config.  A fake apt-get in front of PATH "installs" them: it links the
# real flex, bison, pkg-config, dot, rsvg-convert, gnuplot and nvim into a directory on PATH and makes the
# fake pkg-config answer for the libraries.  A fake `id -u` says root (or not).  Then it checks:
#
#   1. as root, `make -j2 test` lets the deps step install all eleven packages
#      before bison or the compiler runs, and passes; the console is built
#      with line editing (-DMT_HAVE_LIBEDIT, linked with libedit);
#   2. a second `make -j2 all` rebuilds nothing;
#   3. a build made while libedit was missing (deps step skipped) is rebuilt
#      with line editing once libedit appears;
#   4. `make install PREFIX=...` works with and without variants/; the
#      installed binary plays from /; a copied binary with no rule pack near
#      it says every place it looked and exits non-zero;
#   5. not root, `make -j2 test` stops at the deps step with the exact
#      apt-get command and runs nothing else.
#
# Usage: sh tests/run-fresh-build.sh [REV]
#   REV defaults to HEAD with the uncommitted changes to tracked files applied
#   (untracked files are not copied: a file you forgot to add fails here, as
#   it would on CI).  With REV (a commit), exactly that commit is built, e.g.
#   18179fd, whose Makefile ran bison beside the deps step (Error 127).
# Environment: KEEP=1 keeps the temporary directory.  Needs the real flex,
# bison, pkg-config, dot, rsvg-convert, gnuplot, nvim and libraries installed (`make deps`).
# Last line: "fresh build: N passed, N failed".
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
REV=${1:-}

for t in flex bison pkg-config dot rsvg-convert gnuplot nvim git make; do
  command -v $t >/dev/null || { echo "run-fresh-build: needs $t installed (make deps)"; exit 1; }
done
REAL_FLEX=$(command -v flex)
REAL_BISON=$(command -v bison)
REAL_PKG_CONFIG=$(command -v pkg-config)
REAL_DOT=$(command -v dot)
REAL_RSVG=$(command -v rsvg-convert)
REAL_GNUPLOT=$(command -v gnuplot)
REAL_NVIM=$(command -v nvim)

T=$(mktemp -d) && T=$(cd "$T" && pwd -P) || exit 1
[ "${KEEP:-0}" = 1 ] && echo "run-fresh-build: keeping $T" || trap 'rm -rf "$T"' EXIT
# Only -j2 from the caller: a MAKEFLAGS inherited from an outer make could
# carry variables (such as MT_DEPS_DONE) into the clone's builds.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES MT_DEPS_DONE BUILD CFLAGS CPPFLAGS LDFLAGS LDLIBS CC OPT || true

pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok: $1"; }
bad() {
  fail=$((fail + 1)); echo "FAIL: $1"
  if [ -n "${2:-}" ] && [ -f "$2" ]; then echo "---- last lines of $2"; tail -n 25 "$2"; echo "----"; fi
}

# ---- the simulated machine ----------------------------------------------
# $T/bin: a link to every command on PATH except the ones the deps step
# installs.  $T/installed: where the fake apt-get puts them (on PATH, empty
# at first).  $T/fake: apt-get and id.  $T/state: which -dev packages are in.
HIDDEN="flex flex++ lex bison yacc pkg-config pkgconf x86_64-linux-gnu-pkg-config dot rsvg-convert gnuplot gnuplot-nox nvim apt-get apt id"
mkdir -p "$T/bin" "$T/fake" "$T/installed" "$T/state"
IFS_SAVE=$IFS; IFS=:
for d in $PATH; do
  [ -d "$d" ] || continue
  for f in "$d"/*; do
    [ -x "$f" ] && [ ! -d "$f" ] && [ ! -e "$T/bin/${f##*/}" ] && ln -s "$f" "$T/bin/${f##*/}" 2>/dev/null
  done
done
IFS=$IFS_SAVE
for h in $HIDDEN; do rm -f "$T/bin/$h"; done

cat > "$T/fake/pkg-config.sh" <<EOF
#!/bin/sh
# fake pkg-config: a library's .pc answers only once its -dev package is "installed"
for a in "\$@"; do
  case \$a in
    yaml-0.1) p=libyaml-dev ;; cmocka) p=libcmocka-dev ;; libedit) p=libedit-dev ;; jansson) p=libjansson-dev ;; *) continue ;;
  esac
  if [ ! -e "$T/state/\$p" ]; then
    case " \$* " in *" --exists "*) ;; *) echo "Package \$a was not found in the pkg-config search path." >&2 ;; esac
    exit 1
  fi
done
exec "$REAL_PKG_CONFIG" "\$@"
EOF
cat > "$T/fake/apt-get" <<EOF
#!/bin/sh
# fake apt-get: "installs" the packages of the deps step
echo "apt-get \$*" >> "$T/apt.log"
case \$1 in
  update) sleep 2; exit 0 ;;   # a real update takes seconds; make keeps going meanwhile
  install) ;;
  *) echo "fake apt-get: unexpected '\$1'" >&2; exit 100 ;;
esac
shift
for p in "\$@"; do
  case \$p in
    -*) ;;
    flex) ln -sf "$REAL_FLEX" "$T/installed/flex" ;;
    bison) ln -sf "$REAL_BISON" "$T/installed/bison" ;;
    pkg-config) cp "$T/fake/pkg-config.sh" "$T/installed/pkg-config"; chmod +x "$T/installed/pkg-config" ;;
    libyaml-dev|libcmocka-dev|libedit-dev|libjansson-dev) touch "$T/state/\$p" ;;
    graphviz) ln -sf "$REAL_DOT" "$T/installed/dot" ;;
    librsvg2-bin) ln -sf "$REAL_RSVG" "$T/installed/rsvg-convert" ;;
    gnuplot-nox) ln -sf "$REAL_GNUPLOT" "$T/installed/gnuplot" ;;
    neovim) ln -sf "$REAL_NVIM" "$T/installed/nvim" ;;
    *) echo "E: Unable to locate package \$p" >&2; exit 100 ;;
  esac
done
EOF
REAL_ID=$(command -v id)
cat > "$T/fake/id" <<EOF
#!/bin/sh
# fake id: -u answers FAKE_UID (0: the deps step may install)
if [ "\${1:-}" = -u ]; then echo "\${FAKE_UID:-0}"; else exec "$REAL_ID" "\$@"; fi
EOF
chmod +x "$T/fake/apt-get" "$T/fake/id" "$T/fake/pkg-config.sh"
FRESH_PATH="$T/fake:$T/installed:$T/bin"

# a machine with none of the eleven packages
fresh_machine() {
  rm -f "$T/installed/"* "$T/state/"* "$T/apt.log"
}
# clone REV (or HEAD plus the working tree's changes to tracked files) into $1
clone() {
  git clone -q --no-checkout "$ROOT" "$1" || return 1
  if [ -n "$REV" ]; then
    git -C "$1" checkout -q --detach "$REV" || return 1
  else
    git -C "$1" checkout -q --detach "$(git -C "$ROOT" rev-parse HEAD)" || return 1
    git -C "$ROOT" diff --binary HEAD > "$T/changes.diff"
    if [ -s "$T/changes.diff" ]; then
      git -C "$1" apply --binary "$T/changes.diff" || return 1
      echo "run-fresh-build: HEAD plus the uncommitted changes to tracked files"
    fi
  fi
}
on_fresh() { (cd "$1" && shift && PATH=$FRESH_PATH "$@"); }

# ---- 1. as root: the deps step installs, then everything builds ----------
SRC=$T/src
clone "$SRC" || { echo "run-fresh-build: cannot clone $ROOT"; exit 1; }
fresh_machine
echo "== make -j2 test in a fresh clone, without flex, bison, pkg-config, libyaml-dev, libcmocka-dev, libedit-dev, graphviz, librsvg2-bin, gnuplot-nox, libjansson-dev, neovim"
start=$(date +%s)
if on_fresh "$SRC" make -j2 test > "$T/test.log" 2>&1; then
  ok "make -j2 test on a fresh machine ($(($(date +%s) - start)) s)"
else
  bad "make -j2 test on a fresh machine" "$T/test.log"
  echo "fresh build: $pass passed, $fail failed (stopped: the rest needs this build)"
  exit 1
fi
if grep -qx "apt-get install -y -qq --no-install-recommends flex bison pkg-config libyaml-dev libcmocka-dev libedit-dev graphviz librsvg2-bin gnuplot-nox libjansson-dev neovim" "$T/apt.log"; then
  ok "the deps step installed flex bison pkg-config libyaml-dev libcmocka-dev libedit-dev graphviz librsvg2-bin gnuplot-nox libjansson-dev neovim"
else
  bad "the deps step's apt-get commands" "$T/apt.log"
fi
# judged by the compile line of repl.c and the binary's libraries
has_edit() { grep -q -- "-DMT_HAVE_LIBEDIT.* interpreter/repl.c" "$1" && readelf -d "$2" | grep -q "NEEDED.*libedit"; }
no_edit() {
  grep -q " interpreter/repl.c" "$1" && ! grep -q -- "-DMT_HAVE_LIBEDIT" "$1" && ! readelf -d "$2" | grep -q "NEEDED.*libedit"
}
if has_edit "$T/test.log" "$SRC/build/mentat"; then
  ok "the console was built with line editing (libedit installed by the deps step)"
else
  bad "the console has no line editing although the deps step installed libedit" "$T/test.log"
fi

# ---- 2. nothing is rebuilt ------------------------------------------------
on_fresh "$SRC" make -j2 all > "$T/again.log" 2>&1
if [ $? -eq 0 ] && ! grep -Eq "(^| )-o build/|^bison |^flex |ar rcs" "$T/again.log"; then
  ok "a second make -j2 all rebuilds nothing"
else
  bad "a second make -j2 all rebuilt something" "$T/again.log"
fi

# ---- 3. libedit appears after a build without it ---------------------------
rm -f "$T/state/libedit-dev"
on_fresh "$SRC" make -j2 MT_DEPS_DONE=1 BUILD=build-noedit OPT=-O0 build-noedit/mentat > "$T/noedit.log" 2>&1
if [ $? -eq 0 ] && no_edit "$T/noedit.log" "$SRC/build-noedit/mentat"; then
  ok "without libedit (deps step skipped) the console is built without line editing"
else
  bad "building without libedit" "$T/noedit.log"
fi
touch "$T/state/libedit-dev"
on_fresh "$SRC" make -j2 BUILD=build-noedit OPT=-O0 build-noedit/mentat > "$T/edit.log" 2>&1
if [ $? -eq 0 ] && has_edit "$T/edit.log" "$SRC/build-noedit/mentat"; then
  ok "once libedit is installed, the next make rebuilds the console with line editing"
else
  bad "libedit installed after a build without it: no rebuild with line editing" "$T/edit.log"
fi

# ---- 4. install ----------------------------------------------------------
P=$T/prefix
if on_fresh "$SRC" make -j2 install PREFIX="$P" > "$T/install.log" 2>&1 \
   && [ -f "$P/share/mentat/rules/board.yaml" ] && [ -d "$P/share/mentat/factions" ] && [ -x "$P/bin/mentat" ] \
   && [ -f "$P/share/man/man1/mentat.1" ]; then
  ok "make install PREFIX=... (the man page too)"
else
  bad "make install PREFIX=..." "$T/install.log"
fi
if (cd / && "$P/bin/mentat" play --turns 1) > "$T/play.log" 2>&1 && grep -q "^game over" "$T/play.log"; then
  ok "the installed binary plays from / (mentat play --turns 1)"
else
  bad "the installed binary run from /" "$T/play.log"
fi
if [ -d "$SRC/variants" ]; then mv "$SRC/variants" "$SRC/variants.away"; fi
if on_fresh "$SRC" make -j2 install PREFIX="$T/prefix2" > "$T/install2.log" 2>&1 \
   && (cd / && "$T/prefix2/bin/mentat" check) > "$T/check2.log" 2>&1; then
  ok "make install without variants/"
else
  bad "make install without variants/" "$T/install2.log"
fi
if [ -d "$SRC/variants.away" ]; then mv "$SRC/variants.away" "$SRC/variants"; fi
# a copy of the binary with no rule pack beside it, run from elsewhere
mkdir -p "$T/lonely" "$T/elsewhere"
cp "$P/bin/mentat" "$T/lonely/mentat"
for cmd in "play --turns 1" "check" "repl" "dump board"; do
  (cd "$T/elsewhere" && "$T/lonely/mentat" $cmd < /dev/null) > "$T/lonely.log" 2>&1
  rc=$?
  missing=""
  for where in "$T" "$T/share/mentat" "$T/lonely" "$T/elsewhere"; do
    grep -qF "  $where/rules/board.yaml" "$T/lonely.log" || missing="$missing $where"
  done
  if [ $rc -ne 0 ] && [ -z "$missing" ]; then
    ok "a copied binary with no pack: 'mentat $cmd' lists where it looked, exits $rc"
  else
    bad "a copied binary with no pack: 'mentat $cmd' exit $rc; not listed:$missing" "$T/lonely.log"
  fi
done

# ---- 5. not root: the deps step prints the command, nothing else runs ----
SRC2=$T/src-user
clone "$SRC2" > /dev/null || { echo "run-fresh-build: cannot clone $ROOT"; exit 1; }
fresh_machine
FAKE_UID=1000 on_fresh "$SRC2" make -j2 test > "$T/user.log" 2>&1
rc=$?
want="deps: missing flex bison pkg-config libyaml-dev libcmocka-dev libedit-dev graphviz librsvg2-bin gnuplot-nox libjansson-dev neovim; run: sudo apt-get update && sudo apt-get install -y flex bison pkg-config libyaml-dev libcmocka-dev libedit-dev graphviz librsvg2-bin gnuplot-nox libjansson-dev neovim"
if [ $rc -ne 0 ] && grep -qxF "$want" "$T/user.log" && [ ! -e "$SRC2/build" ] && [ ! -e "$T/apt.log" ]; then
  ok "not root: make -j2 test prints the apt-get command and runs nothing else"
else
  bad "not root: make -j2 test (exit $rc)" "$T/user.log"
fi

echo "fresh build: $pass passed, $fail failed"
[ $fail -eq 0 ]
