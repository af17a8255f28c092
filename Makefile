# Two commands for a fresh machine with python3 (venv + pip):
#   make book   set everything up and build the HTML book into _build/html
#   make test   set everything up and run every test (unit, property,
#               reference, doctests, strict nbval, book build with -W)

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
JB     := $(BIN)/jupyter-book
JBFLAGS := -W -n --keep-going

.PHONY: book test setup clean

# Re-install only when the requirements or the package metadata change.
$(STAMP): requirements.txt pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --disable-pip-version-check -q -r requirements.txt
	@touch $(STAMP)

setup: $(STAMP)

book: $(STAMP)
	$(JB) build . $(JBFLAGS)
	@echo "Book built: $(CURDIR)/_build/html/index.html"

test: $(STAMP)
	$(BIN)/python -m pytest
	$(JB) build . $(JBFLAGS)
	@echo "Book built: $(CURDIR)/_build/html/index.html"

clean:
	rm -rf _build
