# Makefile: build the generator, tangle the references, weave the skill and
# the book, and run every test. `make help` lists the targets.
#
# Quick start on a fresh Debian 12 machine (README.md):
#   make deps && make all skill book   install the packages; build lit, tangle, skill, book
#   make check         every test CI runs

CC      ?= cc
PKGS    := libcmark-gfm lua5.4 libxxhash libmicrohttpd
CFLAGS  ?= -O2 -g
WARN    := -std=c11 -Wall -Wextra -Werror -pedantic
DEPS_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null) -pthread
DEPS_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lcmark-gfm-extensions -pthread
BUILD   := gen/build
LIT     := $(BUILD)/lit
NVCC    ?= $(shell command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)

GEN_SRC := $(filter-out gen/main.c,$(wildcard gen/*.c))
GEN_OBJ := $(patsubst gen/%.c,$(BUILD)/%.o,$(GEN_SRC)) $(BUILD)/asset_data.o
# The book's stylesheet, script and icon and the chart library, compiled into lit.
ASSETS  := $(sort $(wildcard gen/assets/*))
ASSET_C := $(BUILD)/asset_data.c
DOCS    := index.md $(wildcard references/*.md)

# Debian 12 packages the build and the tests use; `make deps` installs them
# and nothing they merely recommend (noweb's recommendations alone are TeX
# Live). fonts-dejavu-core is named because the browser tests lay the book
# out in it (fontconfig's default sans-serif, whose widths the charts'
# labels are measured with); without it a bare system may fall back to a
# monospace font.
APT_PACKAGES := build-essential pkg-config libcmark-gfm-dev libcmark-gfm-extensions-dev \
  liblua5.4-dev libxxhash-dev libmicrohttpd-dev check noweb clang libclang-rt-14-dev valgrind python3 chromium \
  fonts-dejavu-core cppcheck clang-format python3-venv pyflakes3

PREFIX  ?= /usr/local
MANPAGE := $(BUILD)/lit.1

.PHONY: all deps tangle man install check check-tangle check-kernels check-share check-line-directives check-evals clean help lint format
all: $(LIT) tangle man

deps:
	@if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	$$SUDO apt-get update -qq && \
	DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $(APT_PACKAGES) && \
	if ! command -v npm >/dev/null; then DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends nodejs npm; fi
	npm ci --prefix tests/browser --no-audit --no-fund --loglevel=error
	@# The Agent Skills reference validator, from PyPI into its own environment;
	@# without network access check-skill says it skipped it.
	python3 -m venv build/skills-ref && build/skills-ref/bin/pip install --quiet --disable-pip-version-check \
	  --retries 1 --timeout 30 'skills-ref>=0.1' || \
	  echo "make deps: skills-ref not installed; make check-skill will skip the reference validator"

$(BUILD)/%.o: gen/%.c | $(BUILD)
	$(CC) $(WARN) $(CFLAGS) $(DEPS_CFLAGS) -MMD -MP -c $< -o $@

-include $(wildcard $(BUILD)/*.d)

$(ASSET_C): $(ASSETS) gen/embed.sh | $(BUILD)
	sh gen/embed.sh $@ $(ASSETS)

$(BUILD)/asset_data.o: $(ASSET_C)
	$(CC) $(WARN) $(CFLAGS) -Igen -c $< -o $@

$(BUILD):
	mkdir -p $@

$(BUILD)/liblit.a: $(GEN_OBJ)
	rm -f $@
	ar rcs $@ $^

$(LIT): $(BUILD)/main.o $(BUILD)/liblit.a
	$(CC) $(CFLAGS) -o $@ $^ $(DEPS_LIBS)

tangle: $(LIT)
	$(LIT) tangle -q

# lit(1), rendered by lit itself from its Markdown source.
man: $(MANPAGE)
$(MANPAGE): gen/lit.1.md $(LIT)
	$(LIT) man gen/lit.1.md >$@.tmp && mv $@.tmp $@

# lit and its man page under PREFIX (default /usr/local; DESTDIR for staging).
install: $(LIT) $(MANPAGE)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(LIT) $(DESTDIR)$(PREFIX)/bin/lit
	install -m 644 $(MANPAGE) $(DESTDIR)$(PREFIX)/share/man/man1/lit.1

# The committed kernels/ must equal a fresh tangle of the references.
check-tangle: $(LIT)
	$(LIT) tangle --check

# The kernel package without a GPU: build.toml has kernel-builder's keys, the
# kernel sources include no torch header, and every tangled .cu compiles alone
# for sm_75, sm_80 and sm_90 (and sm_90a where build.toml asks) with warnings
# as errors and no spills beyond the sm_75 allowance. The compiles run on
# every core, and each one's report is kept in build/kernel-check/ under a
# hash of its inputs, so a change to one kernel recompiles only that kernel.
check-kernels:
	NVCC=$(NVCC) python3 tests/test_kernel_package.py

# The agent evaluation's runner, report and task definitions (no GPU, no torch).
check-evals:
	python3 evals/tests/test_evals.py

# nvcc errors in tangled code name the Markdown file and line (#line).
check-line-directives: $(LIT)
	LIT=$(LIT) NVCC=$(NVCC) sh tests/nvcc/run.sh

# The share of reference code lines that is tangled (issue: at least 90%).
check-share: $(LIT)
	$(LIT) stats --min-tangled 90

-include tests/tests.mk
-include gen/weave.mk

# CI also runs the unit and golden suites under ASan and UBSan (make asan).
check: all lint check-tangle check-share check-kernels check-line-directives check-evals $(CHECK_TARGETS) asan
	@echo "make check: all suites ran"

# pyflakes over the Python the project ships and runs (tangled scripts and
# benchmarks, tests): undefined names, unused imports and variables. Most of
# it runs only on a GPU, so this is its one check in CI. Debian's pyflakes3,
# not `python3 -m pyflakes`: the python3 first on PATH may not be Debian's.
PYFLAKES ?= pyflakes3
PY_SOURCES = $(shell find kernels tests evals -name '*.py' -not -path '*/node_modules/*' -not -path 'tests/golden/*')

lint:
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability --std=c11 --suppress=missingIncludeSystem -Igen gen/*.c
	clang-format --dry-run --Werror gen/*.c gen/*.h
	$(PYFLAKES) $(PY_SOURCES)

format:
	clang-format -i gen/*.c gen/*.h

clean:
	rm -rf $(BUILD) build

help:
	@echo "Build and use"
	@echo "  make deps            install the Debian 12 packages (apt-get) and the browser tests' npm package"
	@echo "  make / make all      build the generator (gen/build/lit) and tangle kernels/"
	@echo "  make tangle          write kernels/ from the documents"
	@echo "  make skill           the agent skill bundle in build/skill/cuda-kernels"
	@echo "  make install-skill   lit skill install (SKILL_INSTALL=\"--global --force\" to choose where)"
	@echo "  make book            the HTML book in book/"
	@echo "  make serve           the book on http://127.0.0.1:8000, re-woven on every save (lit serve)"
	@echo "  make man             lit(1) in gen/build/lit.1, from gen/lit.1.md"
	@echo "  make install         lit and lit(1) under PREFIX (default /usr/local)"
	@echo "  make clean           remove gen/build and build"
	@echo "Tests (make check runs all but the last group)"
	@echo "  make check           every test CI runs"
	@echo "  make check-unit      Check unit tests, one suite per module"
	@echo "  make check-integration   Check suites on the repository's own documents (GPU data)"
	@echo "  make check-golden    whole runs of lit on small projects against expected output"
	@echo "  make check-diff      the tangler against Debian's notangle"
	@echo "  make check-stitch    lit stitch on 10,000 random projects and edits (STITCH_CASES, STITCH_SEED)"
	@echo "  make fuzz-smoke      20 s of libFuzzer"
	@echo "  make check-tangle    kernels/ equals a fresh tangle"
	@echo "  make check-share     at least 90% of the documents' code is tangled"
	@echo "  make check-kernels   build.toml, includes, and nvcc builds for sm_75/80/90"
	@echo "  make check-line-directives   nvcc errors name the Markdown file and line"
	@echo "  make check-weave     the weaver's fixture project and failing projects"
	@echo "  make check-skill     the skill bundle against the Agent Skills rules, and every install flag"
	@echo "  make check-book      book/ is fresh; headless Chromium: links, search, phone, tables, axe-core"
	@echo "  make check-serve     lit serve on loopback: the path rules, a page served, a change reloaded"
	@echo "  make check-cli       the command line: help, options, exit codes, lit(1)"
	@echo "  make check-ci        .ci/run stops at its first failing step"
	@echo "  make check-device-runner   tests/gpu/run_device.sh: usage, and every phase against stub tools"
	@echo "  make check-crash     tangle and install killed or failed at every write step"
	@echo "  make asan            unit and golden suites under ASan and UBSan"
	@echo "  make lint            cppcheck, clang-format --dry-run, and pyflakes on the Python"
	@echo "  make format          clang-format the generator"
	@echo "  make valgrind | tsan | fuzz FUZZ_SECONDS=N | bench-tangle | bench-weave"
