# gen/weave.mk: the weaver's targets, included by the top Makefile.
#
#   make skill          build/skill/NAME/: the agent skill bundle
#   make book           book/: the HTML book (committed)
#   make install-skill  lit skill install $(SKILL_INSTALL) (default --claude;
#                       e.g. make install-skill SKILL_INSTALL="--global --force")
#   make check-weave    fixture cases: golden bundle and book, failing weaves (tests/weave)
#   make check-skill    the bundle against the Agent Skills rules, its link walk,
#                       and `skill install` with every flag in a temporary HOME
#   make check-book     book/ equals a fresh weave; headless Chromium loads every page and
#                       uses the book as a reader would (tests/browser/book_ui.py)
#   make bench-weave    weave speed on this repository and on a 50 MB corpus

# The weaver's modules (every gen/*.c is built into lit and, through
# tests/tests.mk, into the sanitizer and fuzz builds).
WEAVER_SRC  := $(addprefix gen/,lua_host.c json.c render.c weave.c highlight.c html_book.c skill.c tree.c install.c)
SKILL_OUT   ?= build/skill
SKILL_INSTALL ?= --claude

.PHONY: skill book install-skill check-weave check-skill check-book bench-weave

skill: $(LIT)
	$(LIT) skill --out $(SKILL_OUT)

book: $(LIT)
	$(LIT) book --out book

install-skill: skill
	$(LIT) skill install $(SKILL_INSTALL)

check-weave: $(LIT)
	tests/weave/run.sh $(LIT)

check-skill: skill
	python3 tests/weave/skill_check.py $(SKILL_OUT)/*/
	tests/weave/skill_install.sh $(LIT)
	@tmp=$$(mktemp -d) && $(LIT) skill install --dest $$tmp && python3 tests/weave/skill_check.py $$tmp/*/; \
	  status=$$?; rm -rf $$tmp; exit $$status

check-book: $(LIT)
	$(LIT) book --check
	tests/book_browser.sh book
	python3 tests/browser/book_ui.py book

bench-weave: $(LIT)
	tests/weave/bench_weave.sh $(LIT)

CHECK_TARGETS += check-weave check-skill check-book
