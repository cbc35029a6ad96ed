# Mentat -- the only build system.  `make test` works on a fresh Debian machine:
# the deps step installs what is missing (as root) or prints the command.
#
# Two levels, so that the deps step is over before anything needs what it
# installs, under -j too.  The top level runs the deps step, then make again
# for the goals asked for, with MT_DEPS_DONE=1 (set it yourself to skip the
# deps step).  Only that second level asks pkg-config for flags, after the
# deps step; it records them in $(BUILD)/config, on which every object
# depends, so a build made before a library appeared (libedit: the console's
# line editing) is redone with it.
.DEFAULT_GOAL := all
BUILD    ?= build
CC       ?= cc
OPT      ?= -O2 -g
WERROR   ?= -Werror
PREFIX   ?= /usr/local

# ---- dependencies: detect, install as root, or print the exact command ----
DEB_PKGS = flex bison pkg-config libyaml-dev libcmocka-dev libedit-dev graphviz librsvg2-bin gnuplot-nox libjansson-dev neovim
DEPS_MISSING = missing=""; \
	command -v flex >/dev/null || missing="$$missing flex"; \
	command -v bison >/dev/null || missing="$$missing bison"; \
	command -v pkg-config >/dev/null || missing="$$missing pkg-config"; \
	pkg-config --exists yaml-0.1 2>/dev/null || missing="$$missing libyaml-dev"; \
	pkg-config --exists cmocka 2>/dev/null || missing="$$missing libcmocka-dev"; \
	pkg-config --exists libedit 2>/dev/null || missing="$$missing libedit-dev"; \
	command -v dot >/dev/null || missing="$$missing graphviz"; \
	command -v rsvg-convert >/dev/null || missing="$$missing librsvg2-bin"; \
	command -v gnuplot >/dev/null || missing="$$missing gnuplot-nox"; \
	pkg-config --exists jansson 2>/dev/null || missing="$$missing libjansson-dev"; \
	command -v nvim >/dev/null || missing="$$missing neovim"
.PHONY: deps deps-check
deps: deps-check
deps-check:
	@$(DEPS_MISSING); \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "deps: installing$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing \
	      || { echo "deps: apt-get failed"; exit 1; }; \
	    $(DEPS_MISSING); \
	    if [ -n "$$missing" ]; then echo "deps: still missing after apt-get:$$missing"; exit 1; fi; \
	  else echo "deps: missing$$missing; run: sudo apt-get update && sudo apt-get install -y$$missing"; exit 1; fi; \
	fi

ifndef MT_DEPS_DONE
# ---- top level: the deps step, then every goal at the second level ----
GOALS       := $(or $(MAKECMDGOALS),all)
BUILD_GOALS := $(filter-out deps deps-check,$(GOALS))
ifeq ($(filter-out clean,$(BUILD_GOALS)),)
.PHONY: clean
clean:
	rm -rf build build-asan build-fuzz
else
.PHONY: $(BUILD_GOALS) deps-then-build
$(BUILD_GOALS): deps-then-build ; @:
deps-then-build: deps-check
	+@$(MAKE) --no-print-directory MT_DEPS_DONE=1 $(BUILD_GOALS)
endif

else
# ---- second level: the build, with the flags of what is installed now ----
PKGS      = yaml-0.1
WARN      = -std=c11 -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wstrict-prototypes \
            -Wmissing-prototypes -Wold-style-definition -Wformat=2 -Wcast-qual -Wundef \
            -Wwrite-strings -Wvla -Wimplicit-fallthrough
CPPFLAGS += -Iinterpreter -I$(BUILD)/gen -MMD -MP
CFLAGS   += $(WARN) $(WERROR) $(OPT)
LDLIBS_YAML   := $(shell pkg-config --libs yaml-0.1 2>/dev/null || echo -lyaml)
EDIT_LIBS     := $(shell pkg-config --libs libedit 2>/dev/null)
# jansson: the language server's JSON (mentat lsp, interpreter/lsp*.c)
JSON_CFLAGS   := $(shell pkg-config --cflags jansson 2>/dev/null)
JSON_LIBS     := $(shell pkg-config --libs jansson 2>/dev/null || echo -ljansson)
CMOCKA_CFLAGS := $(shell pkg-config --cflags cmocka 2>/dev/null)
CMOCKA_LIBS   := $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka)
ifneq ($(EDIT_LIBS),)
  CPPFLAGS += -DMT_HAVE_LIBEDIT
endif
CPPFLAGS += $(JSON_CFLAGS)
LDLIBS   += $(LDLIBS_YAML) $(EDIT_LIBS) $(JSON_LIBS) -lm

LIB_SRCS  = $(filter-out interpreter/main.c,$(wildcard interpreter/*.c))
GEN_SRCS  = $(BUILD)/gen/parser.c $(BUILD)/gen/lexer.c
LIB_OBJS  = $(LIB_SRCS:interpreter/%.c=$(BUILD)/obj/%.o) $(GEN_SRCS:$(BUILD)/gen/%.c=$(BUILD)/obj/gen_%.o)
TEST_SRCS = $(wildcard tests/unit/test_*.c)
TEST_BINS = $(TEST_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
FUZZ_TARGETS = $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))

.PHONY: all lib test unit golden fuzz-regress asan fuzz clean install docs docs-check bench play scenarios console simulate-truth coverage-rules determinism session session-update house-rules \
        checksymbols golden-update valgrind doc-examples deps-fuzz reports modding-doc packs variants-doc board-svg board-png compare records verify \
        lsp editors editors-png trust FORCE
.DELETE_ON_ERROR:

all: $(BUILD)/mentat $(BUILD)/libmentat.a

lib: $(BUILD)/libmentat.a

$(BUILD) $(BUILD)/gen $(BUILD)/obj $(BUILD)/tests:
	@mkdir -p $@

# What this build is configured with, rewritten only when that changes; then
# everything compiled is redone (new flags, OPT=..., libedit installed since).
CONFIG = CC=$(CC) CPPFLAGS=$(CPPFLAGS) CFLAGS=$(CFLAGS) LDFLAGS=$(LDFLAGS) LDLIBS=$(LDLIBS) \
         CMOCKA=$(CMOCKA_CFLAGS) $(CMOCKA_LIBS)
$(BUILD)/config: FORCE | $(BUILD)
	@printf '%s\n' '$(subst ','\'',$(CONFIG))' > $@.new; \
	if cmp -s $@.new $@; then rm -f $@.new; else mv -f $@.new $@; \
	  echo "$@: new configuration; console line editing: $(if $(EDIT_LIBS),yes (libedit),no (libedit not found))"; fi
FORCE:

$(BUILD)/gen/parser.c $(BUILD)/gen/parser.h &: grammar/parser.y | $(BUILD)/gen
	bison -Wall -Werror --header=$(BUILD)/gen/parser.h -o $(BUILD)/gen/parser.c $<

$(BUILD)/gen/lexer.c $(BUILD)/gen/lexer.h &: grammar/lexer.l | $(BUILD)/gen
	flex --header-file=$(BUILD)/gen/lexer.h -o $(BUILD)/gen/lexer.c $<

# The lexer's keywords, one KW("word") a line, for the language server's completion and hover;
# editors/generate.sh reads them from the lexer for the editors' syntax files too.
$(BUILD)/gen/keywords.h: grammar/lexer.l editors/generate.sh | $(BUILD)/gen
	sh editors/generate.sh --keywords | sed 's/.*/KW("&")/' > $@.new && mv -f $@.new $@
$(BUILD)/obj/lsp_query.o: $(BUILD)/gen/keywords.h

# opcodes.def is the only list of opcodes; the docs page is generated from it.
$(BUILD)/gen/opdoc: interpreter/opcodes.def tests/tools/opdoc.c $(BUILD)/config | $(BUILD)/gen
	$(CC) $(CPPFLAGS) $(CFLAGS) tests/tools/opdoc.c -o $@
docs/opcodes.md: $(BUILD)/gen/opdoc
	$(BUILD)/gen/opdoc > $@

$(BUILD)/obj/%.o: interpreter/%.c $(BUILD)/config | $(BUILD)/obj $(BUILD)/gen/parser.h $(BUILD)/gen/lexer.h
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@
$(BUILD)/obj/gen_%.o: $(BUILD)/gen/%.c $(BUILD)/config | $(BUILD)/obj $(BUILD)/gen/parser.h $(BUILD)/gen/lexer.h
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/libmentat.a: $(LIB_OBJS)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/mentat: $(BUILD)/obj/main.o $(BUILD)/libmentat.a
	$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libmentat.a $(BUILD)/config | $(BUILD)/tests
	$(CC) $(CPPFLAGS) $(CFLAGS) -Wno-missing-prototypes $(CMOCKA_CFLAGS) $< \
	  $(BUILD)/libmentat.a $(LDFLAGS) $(LDLIBS) $(CMOCKA_LIBS) -o $@

# Plain-C replay drivers: every fuzz target's seeds and regressions run in `make test`.
$(BUILD)/tests/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(BUILD)/libmentat.a $(BUILD)/config | $(BUILD)/tests
	$(CC) $(CPPFLAGS) $(CFLAGS) -Wno-missing-prototypes tests/fuzz/replay.c $< $(BUILD)/libmentat.a \
	  $(LDFLAGS) $(LDLIBS) -o $@

test: all unit golden fuzz-regress doc-examples docs-check scenarios console simulate-truth determinism session \
      house-rules reports modding-doc packs variants-doc board-svg compare records native verify trust lsp editors
	@echo "make test: all suites passed"

unit: $(TEST_BINS)
	@set -e; fails=0; for t in $(TEST_BINS); do echo "== $$t"; MT_SCRATCH=$(BUILD)/tests $$t || fails=$$((fails+1)); done; \
	  if [ $$fails -ne 0 ]; then echo "$$fails unit test binaries failed"; exit 1; fi

golden: $(BUILD)/mentat
	@BUILD=$(BUILD) sh tests/run-golden.sh

# the worked sessions of docs/console.md and docs/advanced.md, each compared with its recorded output
SESSIONS = console-session advanced-session
session: $(BUILD)/mentat
	@pass=0; fail=0; for s in $(SESSIONS); do \
	  $(BUILD)/mentat repl docs/$$s.mentat > $(BUILD)/$$s.out 2>&1 || true; \
	  if diff -u docs/$$s.out $(BUILD)/$$s.out; then pass=$$((pass+1)); \
	  else fail=$$((fail+1)); echo "docs/$$s.out differs: review, then make session-update"; fi; \
	done; echo "worked sessions: $$pass passed, $$fail failed"; [ $$fail -eq 0 ]
session-update: $(BUILD)/mentat
	@for s in $(SESSIONS); do $(BUILD)/mentat repl docs/$$s.mentat > docs/$$s.out 2>&1 || true; done

determinism: $(BUILD)/mentat
	@BUILD=$(BUILD) sh tests/run-determinism.sh

scenarios: $(BUILD)/mentat
	@BUILD=$(BUILD) sh tests/run-scenarios.sh

# simulate lists every failing game, replays it, and notices a dead worker
simulate-truth: $(BUILD)/mentat
	@BUILD=$(BUILD) sh tests/run-simulate.sh

# `check` on house rules: against the pack, unknown targets, conflicts between variants, warnings, --json
house-rules: $(BUILD)/mentat
	@BUILD=$(BUILD) sh tests/run-check.sh

# the console's own behaviour: failed commands, undo across rule sets, long lines, numbers
console: $(BUILD)/mentat
	@BUILD=$(BUILD) sh tests/run-console.sh

# rule numbers of the standard pack that no scenario names in its "# rules:" line
# The standard pack's rules, and those of every expansion pack laid over it (expansions/*/).
coverage-rules: $(BUILD)/mentat
	@{ $(BUILD)/mentat rules --list --json; for p in expansions/*/; do [ -d "$$p" ] && $(BUILD)/mentat rules --list --json --pack "$$p"; done; } | grep '"note":false' | sed 's/^{"id":"\([^"]*\)".*/\1/' | sort -u > $(BUILD)/rules.all
	@{ $(BUILD)/mentat rules --list --json; for p in expansions/*/; do [ -d "$$p" ] && $(BUILD)/mentat rules --list --json --pack "$$p"; done; } | grep '"note":true' | sed 's/^{"id":"\([^"]*\)".*/\1/' | sort -u > $(BUILD)/rules.notes
	@cat tests/scenarios/*.mentat 2>/dev/null | sed -n 's/^# rules://p' | tr ' ' '\n' | grep . | sort -u > $(BUILD)/rules.covered
	@comm -23 $(BUILD)/rules.all $(BUILD)/rules.covered > $(BUILD)/rules.missing
	@echo "rule coverage: $$(comm -12 $(BUILD)/rules.all $(BUILD)/rules.covered | wc -l) of $$(wc -l < $(BUILD)/rules.all) rules with behaviour have a scenario ($$(wc -l < $(BUILD)/rules.notes) notes without behaviour not counted)"
	@sed 's/^/  no scenario: /' $(BUILD)/rules.missing

golden-update: $(BUILD)/mentat
	@BUILD=$(BUILD) UPDATE=1 sh tests/run-golden.sh

fuzz-regress: $(FUZZ_TARGETS:%=$(BUILD)/tests/replay_%) $(BUILD)/mentat
	@set -e; for t in $(FUZZ_TARGETS); do \
	  $(BUILD)/tests/replay_$$t tests/fuzz/seeds/$$t tests/fuzz/regress/$$t; done
	@# the save fuzzer's real positions must load with this build, or they only test refusals
	@stale=; for f in tests/fuzz/seeds/save/[0-2][0-9]-*.yaml; do \
	  printf 'load %s\n' "$$f" | $(BUILD)/mentat repl - >/dev/null 2>&1 || stale="$$stale $$f"; done; \
	  if [ -n "$$stale" ]; then echo "stale save seeds (regenerate: sh tests/fuzz/make-save-seeds.sh):$$stale"; exit 1; fi; \
	  echo "save seeds: every real position loads"

doc-examples: $(BUILD)/mentat
	@BUILD=$(BUILD) sh tests/run-doc-examples.sh

# mentat diff and mentat graph: the changes of a variant, JSON that parses, DOT that Graphviz renders
$(BUILD)/tests/jsoncheck: tests/tools/jsoncheck.c $(BUILD)/config | $(BUILD)/tests
	$(CC) $(CFLAGS) $(LDFLAGS) tests/tools/jsoncheck.c -o $@
reports: $(BUILD)/mentat $(BUILD)/tests/jsoncheck
	@BUILD=$(BUILD) sh tests/run-reports.sh
# docs/modding.md followed step by step, each command's output compared with the doc's
modding-doc: $(BUILD)/mentat
	@BUILD=$(BUILD) sh tests/run-modding-doc.sh

# --pack: layering, overriding, and the diagnostics of a bad mod
packs: $(BUILD)/mentat
	@BUILD=$(BUILD) sh tests/run-packs.sh

# the house-rule tutorial (docs/variants.md): every command run, its output compared; the example variants checked
variants-doc: $(BUILD)/mentat
	@BUILD=$(BUILD) sh tests/run-variants-doc.sh

# compare: identical rule sets differ by 0, a decisive disable is significant, shards merge to the
# single run, records round-trip, --json parses, --csv, --plot renders (gnuplot, then rsvg-convert)
compare: $(BUILD)/mentat $(BUILD)/tests/jsoncheck
	@BUILD=$(BUILD) sh tests/run-compare.sh

# records: nothing from records or a path reaches gnuplot as a command, merge takes exactly one
# complete run, outputs opened before the first game, --resume, workers die with their parent,
# output errors named (a full tmpfs mounted when root)
records: $(BUILD)/mentat $(BUILD)/tests/jsoncheck
	@BUILD=$(BUILD) sh tests/run-records.sh

# verify: docs/verify.md run, witnesses replayed in the console, proofs and counterexamples, errors
verify: $(BUILD)/mentat $(BUILD)/tests/jsoncheck
	@BUILD=$(BUILD) sh tests/run-verify.sh

# mentat lsp: every method and bad input at the protocol level (tests/tools/lspframe), then
# Neovim's own LSP client on a faction file (tests/lsp/nvim-test.lua)
$(BUILD)/tests/lspframe: tests/tools/lspframe.c $(BUILD)/config | $(BUILD)/tests
	$(CC) $(CFLAGS) $(JSON_CFLAGS) $(LDFLAGS) tests/tools/lspframe.c $(JSON_LIBS) -o $@
lsp: $(BUILD)/mentat $(BUILD)/tests/lspframe
	@BUILD=$(BUILD) sh tests/run-lsp.sh

# the editors' syntax files are what editors/generate.sh makes of grammar/lexer.l and
# builtins.def; Vim's highlights a rules file with them
editors: $(BUILD)/tests/jsoncheck
	@BUILD=$(BUILD) sh tests/run-editors.sh
# docs/editors.png: Neovim in tmux showing a diagnostic and a hover (needs tmux)
editors-png: $(BUILD)/mentat
	@BUILD=$(BUILD) sh tests/tools/editors-screenshot.sh docs/editors.png

# --native plays the same games as the VM (the generated C built by the system compiler)
native: $(BUILD)/mentat
	@BUILD=$(BUILD) sh tests/run-native.sh

# what Mentat reads from other people's files and writes for its user (packs, loads, saves, scripts, check's scale)
trust: $(BUILD)/mentat
	@BUILD=$(BUILD) sh tests/run-trust.sh

# the board drawn (show board --svg, dump board --svg): rendered by rsvg-convert, checked
board-svg: $(BUILD)/mentat
	@BUILD=$(BUILD) sh tests/run-board-svg.sh
# docs/board.png: the picture of that test's position
board-png: $(BUILD)/mentat
	@BUILD=$(BUILD) PNG=docs/board.png sh tests/run-board-svg.sh

ASAN_ENV = ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
asan:
	$(ASAN_ENV) $(MAKE) BUILD=build-asan OPT="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	  LDFLAGS="-fsanitize=address,undefined" test

FUZZ_SECONDS ?= 60
# the targets `make fuzz` runs, one after another (FUZZ_RUN=save runs one)
FUZZ_RUN     ?= $(FUZZ_TARGETS)
# a runaway loop (a saved position may set a loop's bound) stops after 4M instructions, not 200M
FUZZ_DEFS    ?= -DVM_BUDGET=4000000ull
fuzz: deps-fuzz
	$(MAKE) CC=clang BUILD=build-fuzz OPT="-O1 -g -fsanitize=fuzzer-no-link,address,undefined $(FUZZ_DEFS)" lib
	@set -e; for t in $(FUZZ_RUN); do \
	  clang -Iinterpreter -Ibuild-fuzz/gen -g -O1 $(FUZZ_DEFS) -fsanitize=fuzzer,address,undefined tests/fuzz/fuzz_$$t.c \
	    build-fuzz/libmentat.a $(LDLIBS) -o build-fuzz/fuzz_$$t; \
	  mkdir -p build-fuzz/corpus/$$t; \
	  echo "== fuzzing $$t for $(FUZZ_SECONDS)s"; \
	  build-fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -close_fd_mask=3 -artifact_prefix=build-fuzz/crash-$$t- \
	    $$(test -f tests/fuzz/$$t.dict && echo -dict=tests/fuzz/$$t.dict) build-fuzz/corpus/$$t tests/fuzz/seeds/$$t; done

docs: docs/opcodes.md

# the generated reference must match opcodes.def
docs-check: $(BUILD)/gen/opdoc
	@$(BUILD)/gen/opdoc > $(BUILD)/gen/opcodes.md && cmp -s $(BUILD)/gen/opcodes.md docs/opcodes.md \
	  || { echo "docs/opcodes.md is stale: run make docs"; exit 1; }; echo "docs/opcodes.md is current"

# LADDER_GAMES: games of the bot ladder (search, heuristic, random in mixed seats; tests/bench/ladder.sh)
LADDER_GAMES ?= 210
bench: all
	@LADDER_GAMES=$(LADDER_GAMES) sh tests/bench/run.sh $(BUILD)

play: all
	$(BUILD)/mentat play

valgrind: all $(TEST_BINS)
	@for t in $(TEST_BINS); do valgrind -q --error-exitcode=1 --leak-check=full $$t || exit 1; done

# The library exports only mt_* and module-prefixed names.
checksymbols: $(BUILD)/libmentat.a
	@bad=$$(nm -g --defined-only $< | awk 'NF==3{print $$3}' | \
	  grep -Ev "^(mt|bot_|lex_|lsp_|chk_|proc_|ast_|sema_|cg_|vm_|board_|data_|diag_|sb_|arena_|state_|game_|explain_|repl_|sim_|dump_|pack_|rules_|reach_|op_table|level_names|mtparse|mtlex|mt_|yy)" || true); \
	  if [ -n "$$bad" ]; then echo "unexpected exported symbols:"; echo "$$bad"; exit 1; fi; echo "symbols ok"

# The rule pack goes to PREFIX/share/mentat, where bin/mentat looks for it.  Each
# pack directory is replaced, not merged: a stale .rules file would be loaded.
PACK_DIRS = rules factions variants expansions
# Every installed file is copied beside its place and renamed over it, and the rule pack is copied
# whole before it replaces the old one: an install that fails half-way (a full disk) leaves the
# previous installation as it was, never a binary or a pack cut short.
INSTALL_TO = d=$$(dirname "$(2)"); b=$$(basename "$(2)"); install -m $(3) $(1) "$$d/.$$b.new" && mv -f "$$d/.$$b.new" "$(2)"
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/share/mentat
	install -d $(DESTDIR)$(PREFIX)/share/man/man1
	$(call INSTALL_TO,$(BUILD)/mentat,$(DESTDIR)$(PREFIX)/bin/mentat,755)
	$(call INSTALL_TO,$(BUILD)/libmentat.a,$(DESTDIR)$(PREFIX)/lib/libmentat.a,644)
	$(call INSTALL_TO,interpreter/mentat.h,$(DESTDIR)$(PREFIX)/include/mentat.h,644)
	$(call INSTALL_TO,docs/mentat.1,$(DESTDIR)$(PREFIX)/share/man/man1/mentat.1,644)
	@set -e; s=$(DESTDIR)$(PREFIX)/share/mentat; rm -rf "$$s/.new" "$$s/.old"; mkdir -p "$$s/.new" "$$s/.old"; \
	  cp -R $(wildcard $(PACK_DIRS)) "$$s/.new/"; \
	  for d in $(PACK_DIRS); do if [ -e "$$s/$$d" ]; then mv "$$s/$$d" "$$s/.old/"; fi; \
	    if [ -e "$$s/.new/$$d" ]; then mv "$$s/.new/$$d" "$$s/"; fi; done; \
	  rm -rf "$$s/.new" "$$s/.old"; echo "installed the rule pack in $$s"

clean:
	rm -rf build build-asan build-fuzz

deps-fuzz:
	@if ! command -v clang >/dev/null || ! ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends clang libclang-rt-14-dev; \
	  else echo "deps: run: sudo apt-get install -y clang libclang-rt-14-dev"; exit 1; fi; fi

-include $(wildcard $(BUILD)/obj/*.d)
endif
