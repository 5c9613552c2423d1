# Makefile: build the generator, tangle the references, weave the skill and
# the book, and run every test. `make help` lists the targets.

CC      ?= cc
PKGS    := libcmark-gfm lua5.4
CFLAGS  ?= -O2 -g
WARN    := -std=c11 -Wall -Wextra -Werror -pedantic
DEPS_CFLAGS := $(shell pkg-config --cflags $(PKGS))
DEPS_LIBS   := $(shell pkg-config --libs $(PKGS))
BUILD   := gen/build
LIT     := $(BUILD)/lit

GEN_SRC := $(filter-out gen/main.c,$(wildcard gen/*.c))
GEN_OBJ := $(patsubst gen/%.c,$(BUILD)/%.o,$(GEN_SRC))
DOCS    := index.md $(wildcard references/*.md)

.PHONY: all tangle check clean help
all: $(LIT)

$(BUILD)/%.o: gen/%.c $(wildcard gen/*.h) | $(BUILD)
	$(CC) $(WARN) $(CFLAGS) $(DEPS_CFLAGS) -MMD -c $< -o $@

$(BUILD):
	mkdir -p $@

$(BUILD)/liblit.a: $(GEN_OBJ)
	ar rcs $@ $^

$(LIT): $(BUILD)/main.o $(BUILD)/liblit.a
	$(CC) $(CFLAGS) -o $@ $^ $(DEPS_LIBS)

tangle: $(LIT)
	$(LIT) tangle

clean:
	rm -rf $(BUILD) build

help:
	@echo "make            build the generator (gen/build/lit)"
	@echo "make tangle     write kernels/ from the references"
	@echo "make check      every test: unit, golden, tangle drift, nvcc builds"
