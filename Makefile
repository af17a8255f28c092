# Two commands for a fresh machine with python3 (venv + pip):
#   make book   set everything up and build the HTML book into _build/html
#   make test   set everything up and run every test (unit, property,
#               reference, doctests, strict nbval, book build with -W, the
#               book in a real browser, the student edition)
#   make student  the student edition (no solutions) in _build/student/_build/html
#   make pdf      the whole book as one PDF: _build/latex/ranking-matters.pdf
#   make student-pdf  the student edition as one PDF:
#                 _build/student/_build/latex/ranking-matters.pdf
#   make launch   rebuild both editions and refresh the notebooks the Colab and
#                 Binder buttons open (launch/, launch/student/): commit them

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
JB     := $(BIN)/jupyter-book
JBFLAGS := -W -n --keep-going

.PHONY: book test setup clean distclean chromium student student-pdf pdf tex data trec_eval launch

# The pins in requirements.txt need Python 3.11 or newer (numpy 2.4, pandas 3.1).
PY_CHECK := import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)

# Re-install only when the requirements or the package metadata change.
$(STAMP): requirements.txt pyproject.toml
	@if [ -x $(BIN)/python ]; then \
	  $(BIN)/python -c '$(PY_CHECK)' || { echo "make: $(VENV) was made with Python $$($(BIN)/python -c 'import platform; print(platform.python_version())'), older than 3.11: run 'make distclean', then make again (with PYTHON=python3.11 or newer if python3 is older)"; exit 1; }; \
	else \
	  $(PYTHON) -c '$(PY_CHECK)' 2>/dev/null || { echo "make: $(PYTHON) is Python $$($(PYTHON) -c 'import platform; print(platform.python_version())' 2>/dev/null || echo '(not found)'); the book needs Python 3.11 or newer: run make PYTHON=python3.11 (or newer)"; exit 1; }; \
	fi
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@echo ">>> installing requirements.txt and the package into $(VENV) (about 1.4 GB from PyPI; several minutes on a first run)"
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

# The printed edition needs XeLaTeX, a few LaTeX packages, Debian's NanumGothic
# (Korean), DejaVu (text), Latin Modern (math) and poppler-utils (its check).
# Installed once, when missing; needs root or sudo.
TEX_PACKAGES := texlive-xetex texlive-latex-recommended texlive-latex-extra \
                texlive-fonts-recommended latexmk fonts-nanum fonts-dejavu-core \
                fonts-lmodern poppler-utils

tex:
	@if command -v xelatex >/dev/null && command -v latexmk >/dev/null \
	    && command -v pdffonts >/dev/null && kpsewhich ucharclasses.sty unicode-math.sty >/dev/null \
	    && fc-list | grep -q NanumGothic && fc-list | grep -q DejaVuSerif; then :; else \
	  echo ">>> XeLaTeX or its fonts not found: installing Debian's $(TEX_PACKAGES) (apt-get, about a minute)"; \
	  $(SUDO) apt-get update -q && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $(TEX_PACKAGES); \
	fi

pdf: $(STAMP) tex
	$(JB) build . --builder pdflatex
	$(BIN)/python tools/check_pdf.py _build/latex
	@echo "PDF built: $(CURDIR)/_build/latex/ranking-matters.pdf"

book: $(STAMP)
	$(JB) build . $(JBFLAGS)
	@echo "Book built: $(CURDIR)/_build/html/index.html"

# Student edition: every exercise, no solution (sphinx-exercise hide_solutions;
# the downloadable notebooks are stripped of their solutions too).
student: $(STAMP)
	$(BIN)/python tools/student_edition.py

# The notebooks Colab and Binder open, committed because they open a file of a
# branch: both editions' clean downloads, copied into launch/ and
# launch/student/ (tools/launch_notebooks.py). Run after changing a chapter
# and commit the result; make test fails while they differ from the build.
launch: $(STAMP)
	$(JB) build . $(JBFLAGS)
	$(BIN)/python tools/student_edition.py
	$(BIN)/python tools/launch_notebooks.py

# The student PDF: the student edition's configuration and contents, printed;
# checked as the full PDF is, then for solutions (their text, titles and the
# values only they quote), against the two HTML editions (built when missing).
STUDENT := _build/student/_build
student-pdf: $(STAMP) tex
	@test -f _build/html/search.html || $(JB) build . $(JBFLAGS)
	@test -f $(STUDENT)/html/search.html || $(BIN)/python tools/student_edition.py
	$(BIN)/python tools/student_edition.py --pdf
	$(BIN)/python tools/check_pdf.py $(STUDENT)/latex --toc _build/student/_toc.yml --student
	$(BIN)/python tools/check_student.py _build/html $(STUDENT)/html --pdf $(STUDENT)/latex/ranking-matters.pdf
	@echo "Student PDF built: $(CURDIR)/$(STUDENT)/latex/ranking-matters.pdf"

# MovieLens 100K, fetched once from PyPI (the RecBole 1.2.1 wheel, no
# dependencies) into ~/.cache/metrics_lib (or $$METRICS_LIB_DATA) and checked.
data: $(STAMP)
	$(BIN)/python -c "import metrics_lib as m; print('MovieLens 100K from', m.load_movielens_100k().source)"


# trec_eval 10.0, built from the unmodified source in third_party/ (about 10 s
# with cc), for the randomised command-line comparisons in tests/. Without a C
# compiler nothing is built and those tests skip, saying why.
TREC_EVAL_TGZ := third_party/trec_eval-10.0-f425365.tar.gz
TREC_EVAL     := _build/trec_eval/trec_eval

$(TREC_EVAL): $(TREC_EVAL_TGZ)
	@if command -v $${CC:-cc} >/dev/null 2>&1; then \
	  rm -rf _build/trec_eval && mkdir -p _build/trec_eval && \
	  tar xzf $(TREC_EVAL_TGZ) -C _build/trec_eval && \
	  $(MAKE) -s -C _build/trec_eval trec_eval >/dev/null; \
	else echo ">>> no C compiler: trec_eval not built, its comparisons will be skipped"; fi

trec_eval: $(TREC_EVAL)

# Test processes: one per core of the 2-core CI machine; each test file (and notebook) stays in one
# process, so a notebook's cells run in order in one kernel.
PYTEST_JOBS ?= 2

test: $(STAMP) data | $(CHROMIUM)
	-@$(MAKE) -s trec_eval
	$(BIN)/python -m pytest -n $(PYTEST_JOBS) --dist loadfile
	$(JB) build . $(JBFLAGS)
	@echo "Book built: $(CURDIR)/_build/html/index.html"
	$(BIN)/python tools/check_book.py _build/html
	$(BIN)/python tools/student_edition.py
	$(BIN)/python tools/check_student.py _build/html $(STUDENT)/html
	$(BIN)/python tools/check_downloads.py _build/html _build/student/_build/html
	$(BIN)/python tools/launch_notebooks.py --check
	$(BIN)/python tools/check_standalone.py
	$(MAKE) pdf
	$(BIN)/python tools/check_exercise_numbers.py _build/html _build/latex
	$(MAKE) student-pdf

clean:
	rm -rf _build

# Also removes the virtualenv, e.g. after a failed set-up or a Python upgrade.
distclean: clean
	rm -rf $(VENV)
