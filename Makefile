# Two commands for a fresh machine with python3 (venv + pip):
#   make book   set everything up and build the HTML book into _build/html
#   make test   set everything up and run every test (unit, property,
#               reference, doctests, strict nbval, book build with -W, the
#               book in a real browser, the student edition)
#   make student  the student edition (no solutions) in _build/student/_build/html

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
JB     := $(BIN)/jupyter-book
JBFLAGS := -W -n --keep-going

.PHONY: book test setup clean chromium student

# Re-install only when the requirements or the package metadata change.
$(STAMP): requirements.txt pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --disable-pip-version-check -q -r requirements.txt
	@touch $(STAMP)

setup: $(STAMP)

# The browser test drives Debian's chromium (Playwright cannot download a
# browser here). Installed once, when missing; needs root or sudo.
CHROMIUM := /usr/bin/chromium
SUDO     := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

$(CHROMIUM):
	@echo ">>> $(CHROMIUM) not found: installing Debian's chromium package for the browser test (apt-get, a few minutes)"
	$(SUDO) apt-get update -q
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium
	@echo ">>> chromium installed: $$($(CHROMIUM) --version 2>/dev/null)"

chromium: | $(CHROMIUM)

book: $(STAMP)
	$(JB) build . $(JBFLAGS)
	@echo "Book built: $(CURDIR)/_build/html/index.html"

# Student edition: every exercise, no solution (sphinx-exercise hide_solutions;
# the downloadable notebooks are stripped of their solutions too).
student: $(STAMP)
	$(BIN)/python tools/student_edition.py

test: $(STAMP) | $(CHROMIUM)
	$(BIN)/python -m pytest
	$(JB) build . $(JBFLAGS)
	@echo "Book built: $(CURDIR)/_build/html/index.html"
	$(BIN)/python tools/check_book.py _build/html
	$(BIN)/python tools/student_edition.py
	$(BIN)/python tools/check_student.py _build/html _build/student/_build/html

clean:
	rm -rf _build
