# gen/weave.mk: the weaver's targets, included by the top Makefile.
#
#   make skill          build/skill/NAME/: the agent skill bundle
#   make book           book/: the HTML book (committed)
#   make install-skill  lit skill install $(SKILL_INSTALL) (default --claude;
#                       e.g. make install-skill SKILL_INSTALL="--global --force")
#   make check-weave    fixture cases: golden bundle and book, failing weaves (tests/weave);
#                       output folders: never delete what lit did not write, installs
#   make check-skill    the bundle against the Agent Skills rules (ours and the skills-ref
#                       reference validator), its link walk,
#                       and `skill install` with every flag in a temporary HOME
#   make check-book     book/ equals a fresh weave; headless Chromium loads every page and
#                       uses the book as a reader would (tests/browser/book_ui.py)
#   make serve          lit serve: the book on 127.0.0.1, rebuilt and reloaded on save
#   make check-serve    lit serve and lit watch on loopback: path rules, reload, diagnostics
#   make bench-weave    weave speed on this repository and on a 50 MB corpus

SKILL_OUT   ?= build/skill
SKILL_INSTALL ?= --claude

.PHONY: skill book install-skill check-weave check-skill check-book bench-weave serve check-serve

# The default folder goes unnamed, so lit checks it for links that lead out
# of the project (it does not second-guess a folder it was told).
skill: $(LIT)
	$(LIT) skill $(if $(filter build/skill,$(SKILL_OUT)),,--out $(SKILL_OUT))

book: $(LIT)
	$(LIT) book --out book

install-skill: skill
	$(LIT) skill install $(SKILL_INSTALL)

check-weave: $(LIT)
	tests/weave/run.sh $(LIT)
	tests/weave/output_folders.sh $(LIT)

check-skill: skill
	python3 tests/weave/skill_check.py $(SKILL_OUT)/*/
	python3 tests/weave/skills_ref_check.py $(SKILL_OUT)/*/
	tests/weave/skill_install.sh $(LIT)
	@tmp=$$(mktemp -d) && $(LIT) skill install --dest $$tmp && python3 tests/weave/skill_check.py $$tmp/*/; \
	  status=$$?; rm -rf $$tmp; exit $$status

check-book: $(LIT)
	$(LIT) book --check
	tests/book_browser.sh book
	python3 tests/browser/book_ui.py book $(LIT)

# The live preview: the book on http://127.0.0.1:8000, re-woven on every save.
serve: $(LIT)
	$(LIT) serve

# lit serve and lit watch on a copy of the fixture project, on loopback only.
check-serve: $(LIT)
	python3 tests/serve/serve_test.py $(LIT)

bench-weave: $(LIT)
	tests/weave/bench_weave.sh $(LIT)

CHECK_TARGETS += check-weave check-skill check-book check-serve
