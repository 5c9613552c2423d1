# tests/tests.mk: the tangler's test suite, included by the top Makefile.
#
#   make check-unit     Check unit tests, one suite per gen/ module
#   make check-golden   golden cases: input docs -> expected tree + diagnostics
#   make check-diff     differential test against Debian's notangle
#   make fuzz           libFuzzer over the reader and the tangler (FUZZ_SECONDS=N)
#   make fuzz-smoke     the same for 20 s (part of `make check`)
#   make asan           ASan+UBSan build of lit and the unit tests, then unit + golden
#   make valgrind       unit tests and some golden runs under valgrind
#   make tsan           ThreadSanitizer build of lit (documents are parsed in parallel), golden suite
#   make bench-tangle   50 MB synthetic corpus: lit vs notangle, time and memory

TEST_BUILD   := $(BUILD)/tests
CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   := $(shell pkg-config --libs check 2>/dev/null)
UNIT_SRC     := $(sort $(wildcard tests/check_*.c))
# Every module but main.c (the sanitizer and fuzz builds compile them afresh).
LIB_SRC      := $(filter-out gen/main.c,$(wildcard gen/*.c)) $(ASSET_C)
SAN_FLAGS    := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
ASAN_BUILD   := $(BUILD)/asan
FUZZ_BUILD   := $(BUILD)/fuzz
FUZZ_SECONDS ?= 60
FUZZ_JOBS    ?= 1
CLANG        ?= clang

.PHONY: check-unit check-golden check-diff fuzz fuzz-smoke asan tsan valgrind bench-tangle

$(TEST_BUILD) $(ASAN_BUILD) $(FUZZ_BUILD):
	mkdir -p $@

# ---- unit tests ----
$(TEST_BUILD)/check_lit: $(UNIT_SRC) tests/check_lit.h $(BUILD)/liblit.a | $(TEST_BUILD)
	$(CC) $(WARN) $(CFLAGS) $(DEPS_CFLAGS) $(CHECK_CFLAGS) -Igen -o $@ $(UNIT_SRC) $(BUILD)/liblit.a \
	  $(DEPS_LIBS) $(CHECK_LIBS)

check-unit: $(TEST_BUILD)/check_lit
	cd tests && ../$(TEST_BUILD)/check_lit

# ---- golden and differential tests ----
check-golden: $(LIT)
	tests/run_golden.sh $(LIT)

check-diff: $(LIT)
	tests/differential.sh $(LIT)

# ---- sanitizers ----
$(ASAN_BUILD)/lit: gen/main.c $(LIB_SRC) $(wildcard gen/*.h) | $(ASAN_BUILD)
	$(CC) $(WARN) -O1 -g $(SAN_FLAGS) $(DEPS_CFLAGS) -Igen -o $@ gen/main.c $(LIB_SRC) $(DEPS_LIBS)

$(ASAN_BUILD)/check_lit: $(UNIT_SRC) tests/check_lit.h $(LIB_SRC) $(wildcard gen/*.h) | $(ASAN_BUILD)
	$(CC) $(WARN) -O1 -g $(SAN_FLAGS) $(DEPS_CFLAGS) $(CHECK_CFLAGS) -Igen -o $@ $(UNIT_SRC) $(LIB_SRC) \
	  $(DEPS_LIBS) $(CHECK_LIBS)

asan: $(ASAN_BUILD)/lit $(ASAN_BUILD)/check_lit
	cd tests && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ../$(ASAN_BUILD)/check_lit
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 tests/run_golden.sh $(ASAN_BUILD)/lit

# Golden cases run under valgrind (each lit run is slower there): one of each kind.
VALGRIND_CASES ?= basic-file append-across-docs indent-at-depth line-directives dump crlf-input bom-input \
  err-cycle-chain err-undefined-suggest err-malformed-attrs err-unclosed-fence err-write-fails \
  orphan-removed hand-edit-refused check-stale err-symlink-escape

valgrind: $(TEST_BUILD)/check_lit $(LIT)
	cd tests && CK_FORK=no valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect \
	  ../$(TEST_BUILD)/check_lit
	LIT_WRAPPER="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect" \
	  tests/run_golden.sh $(LIT) $(VALGRIND_CASES)

TSAN_BUILD := $(BUILD)/tsan
$(TSAN_BUILD)/lit: gen/main.c $(LIB_SRC) $(wildcard gen/*.h)
	mkdir -p $(TSAN_BUILD)
	$(CLANG) -std=c11 -g -O1 -fsanitize=thread $(DEPS_CFLAGS) -Igen -o $@ gen/main.c $(LIB_SRC) $(DEPS_LIBS)

tsan: $(TSAN_BUILD)/lit
	TSAN_OPTIONS=halt_on_error=1 tests/run_golden.sh $(TSAN_BUILD)/lit

# ---- fuzzing ----
$(FUZZ_BUILD)/fuzz_tangle: tests/fuzz/fuzz_tangle.c $(LIB_SRC) $(wildcard gen/*.h) | $(FUZZ_BUILD)
	$(CLANG) -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all $(DEPS_CFLAGS) -Igen \
	  -o $@ tests/fuzz/fuzz_tangle.c $(LIB_SRC) $(DEPS_LIBS)

$(FUZZ_BUILD)/corpus/.seeded: tests/fuzz/make_seeds.sh $(wildcard tests/golden/*/input/index.md) | $(FUZZ_BUILD)
	tests/fuzz/make_seeds.sh tests/golden $(FUZZ_BUILD)/corpus
	touch $@

fuzz: $(FUZZ_BUILD)/fuzz_tangle $(FUZZ_BUILD)/corpus/.seeded
	$(FUZZ_BUILD)/fuzz_tangle -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
	  $(if $(filter-out 1,$(FUZZ_JOBS)),-jobs=$(FUZZ_JOBS) -workers=$(FUZZ_JOBS)) \
	  -dict=tests/fuzz/lit.dict -artifact_prefix=$(FUZZ_BUILD)/ \
	  -print_final_stats=1 $(FUZZ_BUILD)/corpus

fuzz-smoke:
	$(MAKE) fuzz FUZZ_SECONDS=20

# ---- speed ----
bench-tangle: $(LIT)
	tests/bench/bench_tangle.sh $(LIT)

# What `make check` runs from here (the top Makefile's check depends on it).
CHECK_TARGETS += check-unit check-golden check-diff fuzz-smoke
