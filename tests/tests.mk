# tests/tests.mk: the tangler's test suite, included by the top Makefile.
#
#   make check-unit     Check unit tests, one suite per gen/ module
#   make check-integration  Check suites that read the repository's own documents
#   make check-golden   golden cases: input docs -> expected tree + diagnostics
#   make check-diff     differential test against Debian's notangle
#   make check-crash    tangle and skill install killed, or failing, at each write step
#   make check-cli      help, version, lit(1), did-you-mean, values, exit status, make install
#   make check-stitch   lit stitch's property test: random projects, random edits, stitch, tangle
#   make check-device-runner  tests/gpu/run_device.sh without a GPU: usage, every phase on stubs
#   make fuzz           libFuzzer: FUZZ_TARGET=tangle|write|weave, FUZZ_SECONDS=N
#   make fuzz-smoke     10 s of each target (part of `make check`)
#   make asan           ASan+UBSan build of lit and the unit tests, then unit + golden
#   make valgrind       unit tests and some golden runs under valgrind
#   make tsan           ThreadSanitizer build of lit (documents are parsed in parallel), golden suite
#   make bench-tangle   50 MB synthetic corpus: lit vs notangle, time and memory

TEST_BUILD   := $(BUILD)/tests
CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   := $(shell pkg-config --libs check 2>/dev/null)
UNIT_SRC     := $(sort $(wildcard tests/check_*.c))
INTEG_SRC    := $(sort $(wildcard tests/integration/check_*.c))
# Every module but main.c (the sanitizer and fuzz builds compile them afresh).
LIB_SRC      := $(filter-out gen/main.c,$(wildcard gen/*.c)) $(ASSET_C)
SAN_FLAGS    := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
ASAN_BUILD   := $(BUILD)/asan
FUZZ_BUILD   := $(BUILD)/fuzz
FUZZ_SECONDS ?= 60
FUZZ_JOBS    ?= 1
CLANG        ?= clang

.PHONY: check-unit check-integration check-golden check-diff check-crash check-cli check-stitch check-ci check-device-runner fuzz fuzz-smoke asan tsan valgrind bench-tangle

$(TEST_BUILD) $(ASAN_BUILD) $(FUZZ_BUILD):
	mkdir -p $@

# ---- unit tests ----
$(TEST_BUILD)/check_lit: $(UNIT_SRC) tests/check_lit.h $(BUILD)/liblit.a | $(TEST_BUILD)
	$(CC) $(WARN) $(CFLAGS) $(DEPS_CFLAGS) $(CHECK_CFLAGS) -Igen -o $@ $(UNIT_SRC) $(BUILD)/liblit.a \
	  $(DEPS_LIBS) $(CHECK_LIBS)

check-unit: $(TEST_BUILD)/check_lit
	cd tests && ../$(TEST_BUILD)/check_lit

# ---- integration: the repository's own documents ----
$(TEST_BUILD)/check_integration: $(INTEG_SRC) tests/check_lit.h $(BUILD)/liblit.a | $(TEST_BUILD)
	$(CC) $(WARN) $(CFLAGS) $(DEPS_CFLAGS) $(CHECK_CFLAGS) -Igen -Itests -o $@ $(INTEG_SRC) $(BUILD)/liblit.a \
	  $(DEPS_LIBS) $(CHECK_LIBS)

check-integration: $(TEST_BUILD)/check_integration
	cd tests/integration && ../../$(TEST_BUILD)/check_integration

# ---- golden and differential tests ----
check-golden: $(LIT)
	tests/run_golden.sh $(LIT)

check-diff: $(LIT)
	tests/differential.sh $(LIT)

# Also on a build that swaps folders without renameat2's exchange, as on
# kernels or file systems that lack it.
$(BUILD)/noexchange/lit: gen/main.c $(LIB_SRC) $(wildcard gen/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(WARN) -O1 -DLIT_NO_RENAME_EXCHANGE $(DEPS_CFLAGS) -Igen -o $@ gen/main.c $(LIB_SRC) $(DEPS_LIBS)

check-crash: $(LIT) $(BUILD)/noexchange/lit
	tests/crash/run.sh $(LIT)
	tests/crash/run.sh $(BUILD)/noexchange/lit

check-cli: $(LIT) $(MANPAGE)
	tests/cli/run.sh $(LIT)

# lit stitch on random projects and random edits, in-process (seconds for
# thousands of cases): each either comes back exactly from a tangle, or is
# refused with a located error and no document changed.
STITCH_CASES ?= 10000
STITCH_SEED  ?= 1
$(TEST_BUILD)/stitch_prop: tests/stitch_prop.c $(BUILD)/liblit.a | $(TEST_BUILD)
	$(CC) $(WARN) $(CFLAGS) $(DEPS_CFLAGS) -Igen -o $@ tests/stitch_prop.c $(BUILD)/liblit.a $(DEPS_LIBS)

check-stitch: $(TEST_BUILD)/stitch_prop
	$(TEST_BUILD)/stitch_prop $(STITCH_CASES) $(STITCH_SEED)

# .ci/run stops at its first failing step (a stub make fails each in turn).
check-ci:
	sh tests/ci/run.sh

# The GPU runner's usage and every phase against stub tools (no GPU needed).
check-device-runner:
	sh tests/device/run.sh

# ---- sanitizers ----
$(ASAN_BUILD)/lit: gen/main.c $(LIB_SRC) $(wildcard gen/*.h) | $(ASAN_BUILD)
	$(CC) $(WARN) -O1 -g $(SAN_FLAGS) $(DEPS_CFLAGS) -Igen -o $@ gen/main.c $(LIB_SRC) $(DEPS_LIBS)

$(ASAN_BUILD)/check_lit: $(UNIT_SRC) tests/check_lit.h $(LIB_SRC) $(wildcard gen/*.h) | $(ASAN_BUILD)
	$(CC) $(WARN) -O1 -g $(SAN_FLAGS) $(DEPS_CFLAGS) $(CHECK_CFLAGS) -Igen -o $@ $(UNIT_SRC) $(LIB_SRC) \
	  $(DEPS_LIBS) $(CHECK_LIBS)

$(ASAN_BUILD)/check_integration: $(INTEG_SRC) tests/check_lit.h $(LIB_SRC) $(wildcard gen/*.h) | $(ASAN_BUILD)
	$(CC) $(WARN) -O1 -g $(SAN_FLAGS) $(DEPS_CFLAGS) $(CHECK_CFLAGS) -Igen -Itests -o $@ $(INTEG_SRC) $(LIB_SRC) \
	  $(DEPS_LIBS) $(CHECK_LIBS)

asan: $(ASAN_BUILD)/lit $(ASAN_BUILD)/check_lit $(ASAN_BUILD)/check_integration
	cd tests && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ../$(ASAN_BUILD)/check_lit
	cd tests/integration && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ../../$(ASAN_BUILD)/check_integration
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 tests/run_golden.sh $(ASAN_BUILD)/lit

# Golden cases run under valgrind (each lit run is slower there): one of each kind.
VALGRIND_CASES ?= basic-file append-across-docs indent-at-depth line-directives dump crlf-input bom-input \
  err-cycle-chain err-undefined-suggest err-malformed-attrs err-unclosed-fence err-write-fails \
  orphan-removed hand-edit-refused check-stale err-symlink-escape err-file-and-folder lookalike-temporaries-kept \
  journal-unproven-copies-kept err-record-folder-fails err-invalid-utf8-name

valgrind: $(TEST_BUILD)/check_lit $(TEST_BUILD)/check_integration $(LIT)
	cd tests && CK_FORK=no valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect \
	  ../$(TEST_BUILD)/check_lit
	cd tests/integration && CK_FORK=no valgrind -q --error-exitcode=1 --leak-check=full \
	  --errors-for-leak-kinds=definite,indirect ../../$(TEST_BUILD)/check_integration
	LIT_WRAPPER="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect" \
	  tests/run_golden.sh $(LIT) $(VALGRIND_CASES)

TSAN_BUILD := $(BUILD)/tsan
$(TSAN_BUILD)/lit: gen/main.c $(LIB_SRC) $(wildcard gen/*.h)
	mkdir -p $(TSAN_BUILD)
	$(CLANG) -std=c11 -g -O1 -fsanitize=thread $(DEPS_CFLAGS) -Igen -o $@ gen/main.c $(LIB_SRC) $(DEPS_LIBS)

tsan: $(TSAN_BUILD)/lit
	TSAN_OPTIONS=halt_on_error=1 tests/run_golden.sh $(TSAN_BUILD)/lit

# ---- fuzzing ----
# Three targets (tests/fuzz/fuzz_TARGET.c): tangle (reader, model, tangler,
# record and attribute parsers), write (the all-or-nothing commit on a
# scratch folder) and weave (lit book and lit skill in memory). The library
# is compiled once for all three. Paths are absolute: the write and weave
# targets work in a scratch folder of their own.
FUZZ_TARGETS := tangle write weave
FUZZ_TARGET  ?= tangle
FUZZ_FLAGS   := -std=c11 -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_OBJ     := $(patsubst gen/%.c,$(FUZZ_BUILD)/obj/%.o,$(LIB_SRC))

$(FUZZ_BUILD)/obj/%.o: gen/%.c $(wildcard gen/*.h) | $(FUZZ_BUILD)
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link $(DEPS_CFLAGS) -Igen -c $< -o $@

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_input.h tests/fuzz/fuzz_scratch.h $(FUZZ_OBJ)
	$(CLANG) $(FUZZ_FLAGS) -fsanitize=fuzzer $(DEPS_CFLAGS) -Igen -o $@ $< $(FUZZ_OBJ) $(DEPS_LIBS)

# Seeds: the golden inputs (the write target also gets their existing
# outputs and records), and the weaver's fixture project.
$(FUZZ_BUILD)/corpus-%/.seeded: tests/fuzz/make_seeds.sh $(wildcard tests/golden/*/input/index.md) | $(FUZZ_BUILD)
	tests/fuzz/make_seeds.sh $* $(FUZZ_BUILD)/corpus-$*
	touch $@

fuzz: $(FUZZ_BUILD)/fuzz_$(FUZZ_TARGET) $(FUZZ_BUILD)/corpus-$(FUZZ_TARGET)/.seeded
	$(FUZZ_BUILD)/fuzz_$(FUZZ_TARGET) -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
	  $(if $(filter-out 1,$(FUZZ_JOBS)),-jobs=$(FUZZ_JOBS) -workers=$(FUZZ_JOBS)) \
	  -dict=$(CURDIR)/tests/fuzz/lit.dict -artifact_prefix=$(CURDIR)/$(FUZZ_BUILD)/$(FUZZ_TARGET)- \
	  -print_final_stats=1 $(CURDIR)/$(FUZZ_BUILD)/corpus-$(FUZZ_TARGET)

# make check: ten seconds of each target. libFuzzer prints a line every few
# thousand runs; each target's output goes to a log, and the CI log gets its
# final count (or, on a crash, the log's end).
fuzz-smoke:
	@mkdir -p $(FUZZ_BUILD)
	@passed=0; for t in $(FUZZ_TARGETS); do \
	  log=$(FUZZ_BUILD)/smoke-$$t.log; \
	  if $(MAKE) --no-print-directory fuzz FUZZ_TARGET=$$t FUZZ_SECONDS=10 > $$log 2>&1; then \
	    echo "fuzz-smoke $$t: $$(grep -E '^Done [0-9]+ runs' $$log | tail -n 1)"; passed=$$((passed + 1)); \
	  else \
	    echo "fuzz-smoke $$t FAILED (whole log: $$log):"; tail -n 40 $$log; \
	    echo "fuzz-smoke: $$passed passed, 1 failed"; exit 1; \
	  fi; \
	done; echo "fuzz-smoke: $$passed passed, 0 failed"

# ---- speed ----
bench-tangle: $(LIT)
	tests/bench/bench_tangle.sh $(LIT)

# What `make check` runs from here (the top Makefile's check depends on it).
CHECK_TARGETS += check-unit check-integration check-golden check-diff check-crash check-cli check-stitch check-ci check-device-runner fuzz-smoke
