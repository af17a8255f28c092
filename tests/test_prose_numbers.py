"""No hand-typed number in the book's prose.

Every number a reader sees in the text of a chapter, an exercise or a solution
must come from code (myst-nb ``glue``), so that it changes when the code does.
The exceptions are quotations of what a source post printed, written with the
``{printed}`` role (``_ext/printed.py``), and the few kinds of literal that are
not results. This test scans every markdown cell of ``book/*.ipynb`` and every
``book/*.md`` page, removes what is not prose (code, math, roles such as glue,
printed, cite and references, links, HTML, directive options), and fails on
any numeric literal left, except:

- integers 0 to 10 (counts in words' place, small cut-offs, list positions);
- years 1900 to 2039 (citations, dates);
- the post numbers 000 to 004;
- numbers that are part of a name: after a letter, ``@``, ``_``, ``.``, ``^``
  or another digit (``NDCG@10``, ``P_5``, ``log2``, ``v1.2``), and ordinals
  (``1st``, ``20th``);
- software versions: two dots or more (``1.7.4``), or a number right after the
  name of a library or tool (``trec_eval 10.0``, ``pandas 3.1``);
- the text matched by the entries of ``ALLOWED`` below (a file name and a
  regular expression), each with its reason; an entry that no longer matches
  anything is itself an error, so the list cannot go stale.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parents[1] / "book"

# (file name, regular expression over the prose) -> why what it matches is not
# a result that code should produce.
ALLOWED: dict[tuple[str, str], str] = {
    ("teaching.md", r"about \d+ words a minute|\d+ minutes for an exercise"
                    r"|\d+ (?:min|h)\b(?: \d+)?|\(\d+ min\)|\d+-minute session"):
        "the authors' time estimates for teachers, stated as estimates",
    ("glossary.md", r"\(often 100\)"):
        "the conventional number of sampled negatives in the literature",
    ("*", r"MovieLens 100K"): "the name of a data set",
}

# Directives whose body is prose (kept); any other fenced block is code or math.
_PROSE_DIRECTIVES = {
    "admonition", "note", "tip", "warning", "important", "caution", "attention",
    "hint", "seealso", "danger", "error", "exercise", "solution", "solution-start",
    "solution-end", "exercise-start", "exercise-end", "div", "dropdown", "epigraph",
    "margin", "sidebar", "topic", "figure", "glossary", "card", "grid-item-card",
    "tab-item", "tab-set", "grid", "grid-item", "list-table", "table", "only",
    "rubric", "container",
}

_FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,}|:{3,})\s*(?P<info>[^\n]*)$")
_OPTION = re.compile(r"^\s*:[\w-]+:.*$")
_LABEL = re.compile(r"^\s*\([\w:.-]+\)=\s*$")
_STRIP = [
    re.compile(r"<!--.*?-->", re.S),                      # HTML comments
    re.compile(r"\$\$.*?\$\$", re.S),                     # display math
    re.compile(r"\\begin\{(\w+\*?)\}.*?\\end\{\1\}", re.S),  # LaTeX environments
    re.compile(r"(?<!\\)\$[^$\n]+?(?<!\\)\$"),            # inline math
    re.compile(r"\{[\w:.-]+\}`[^`]*`"),                    # roles: glue, printed, cite, ...
    re.compile(r"``.+?``|`[^`\n]*`"),                      # inline code
    re.compile(r"\]\([^)]*\)"),                           # link targets
    re.compile(r"\[\^[\w-]+\]"),                          # footnote references
    re.compile(r"<https?://[^>]*>|https?://\S+"),         # bare links
    re.compile(r"</?[a-zA-Z][^>]*>"),                     # HTML tags
    re.compile(r"&#?\w+;"),                               # HTML entities
]
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_SOFTWARE = re.compile(
    r"(?:trec_eval|pytrec_eval(?:-terrier)?|ranx|torchmetrics|scikit-learn|sklearn|Recommenders|"
    r"RecBole|ir-measures|ir_measures|RecTools|pandas|numpy|NumPy|Python|scipy|SciPy|"
    r"statsmodels|Dask|dask|pyarrow|Elliot|recmetrics|obp|matplotlib|Jupyter Book|Chromium|"
    r"MathJax|llama-index-core|Sphinx|myst-nb|LensKit|Open Bandit Pipeline) v?$")


def _strip_blocks(text: str) -> str:
    """Drop code and math blocks and directive options; keep prose blocks."""
    out, stack = [], []  # stack of (fence, keep)
    in_indented = False
    for line in text.splitlines():
        # CommonMark indented code: 4+ spaces after a blank line, until a
        # line that is neither blank nor indented.
        if re.match(r"^( {4}|\t)", line) and (in_indented or not out or not out[-1].strip()):
            in_indented = True
            continue
        if line.strip():
            in_indented = False
        match = _FENCE.match(line)
        if match:
            fence, info = match.group("fence"), match.group("info").strip()
            if stack and fence[0] == stack[-1][0][0] and len(fence) >= len(stack[-1][0]) and not info:
                stack.pop()
                continue
            if not stack or stack[-1][1]:
                name = re.match(r"\{([\w:-]+)\}", info)
                keep = bool(name) and name.group(1) in _PROSE_DIRECTIVES
                title = info[name.end():] if (keep and name) else ""
                stack.append((fence, keep))
                if title.strip():
                    out.append(title)
                continue
        if stack and not stack[-1][1]:
            continue
        if _OPTION.match(line) or _LABEL.match(line):
            continue
        out.append(line)
    return "\n".join(out)


def prose(text: str) -> str:
    """The prose of a markdown text, with everything that is not prose removed."""
    text = _strip_blocks(text)
    for pattern in _STRIP:
        text = pattern.sub(" ", text)
    return text


def _exempt(text: str, start: int, end: int, token: str) -> bool:
    before = text[start - 1] if start else " "
    after = text[end:end + 2]
    if before.isalpha() or before in "@_.^" or before.isdigit():
        return True
    if re.match(r"(st|nd|rd|th)\b", after):
        return True
    if token.count(".") >= 2:  # a version such as 1.7.4
        return True
    if _SOFTWARE.search(text[max(start - 40, 0):start]):  # "trec_eval 10.0"
        return True
    if re.fullmatch(r"\d+", token):
        value = int(token)
        if value <= 10 and not (len(token) > 1 and token.startswith("0")):
            return True
        if len(token) == 4 and 1900 <= value <= 2039:
            return True
        if token in {"000", "001", "002", "003", "004"}:
            return True
    return False


def literals(text: str, allowed: tuple[str, ...] = ()) -> list[str]:
    """Numeric literals of ``text``'s prose that are not exempt.

    ``allowed`` holds regular expressions; a literal inside one of their
    matches is exempt.
    """
    body = prose(text)
    covered = [m.span() for pattern in allowed for m in re.finditer(pattern, body)]
    found = []
    for match in _NUMBER.finditer(body):
        token = match.group().rstrip(".,")
        start, end = match.start(), match.start() + len(token)
        if any(a <= start and end <= b for a, b in covered):
            continue
        if not _exempt(body, start, end, token):
            found.append(token)
    return found


def _markdown_of(path: Path) -> list[tuple[str, str]]:
    """(where, markdown text) for every markdown cell or the whole page."""
    if path.suffix == ".md":
        return [(path.name, path.read_text(encoding="utf-8"))]
    notebook = json.loads(path.read_text(encoding="utf-8"))
    return [(f"{path.name} cell {i}", "".join(cell["source"]))
            for i, cell in enumerate(notebook["cells"]) if cell["cell_type"] == "markdown"]


PAGES = sorted(p for p in BOOK.iterdir() if p.suffix in (".md", ".ipynb"))


@pytest.mark.parametrize("path", PAGES, ids=[p.stem for p in PAGES])
def test_no_hand_typed_numbers(path):
    allowed = tuple(pattern for (name, pattern) in ALLOWED if name in (path.name, "*"))
    problems = []
    for where, text in _markdown_of(path):
        for token in literals(text, allowed):
            line = next((l.strip() for l in text.splitlines() if token in l), "")
            problems.append(f"{where}: {token!r} in: {line[:120]}")
    assert not problems, (
        "numbers typed by hand in the prose (glue them from code, quote a post's "
        "printed number with {printed}`...`, or allow-list a constant with a reason "
        "in tests/test_prose_numbers.py):\n" + "\n".join(problems))


def test_allow_list_is_used():
    stale = []
    for (name, pattern), reason in ALLOWED.items():
        paths = PAGES if name == "*" else [BOOK / name]
        if not any(path.exists() and any(re.search(pattern, prose(text))
                                         for _, text in _markdown_of(path))
                   for path in paths):
            stale.append(f"{name}: {pattern!r} ({reason})")
    assert not stale, "allow-list entries that match nothing:\n" + "\n".join(stale)


@pytest.mark.parametrize("text, expected", [
    ("NDCG is 0.43 here", ["0.43"]),
    ("the post prints {printed}`0.6372`", []),
    ("NDCG@10 of {glue:text}`x:.3f` and P_5", []),
    ("$\\log_2(i + 1)$ with $$\\frac{1}{12}$$", []),
    ("2,566 of 6,000 values", ["2,566", "6,000"]),
    ("in 2013, post 001 and the 3rd rank, k = 5", []),
    ("```python\nx = 0.25\n```\nprose 12", ["12"]),
    (":::{admonition} Note\n:class: tip\nabout 84 %\n:::", ["84"]),
    ("a [link](https://x.org/1234) and `code 99`", []),
    ("```{math}\n:label: eq-1\n0.5 + 17\n```", []),
    ("64-bit ids and 1.5x faster", ["64", "1.5"]),
    ("torchmetrics 1.7.4 and pandas 3.1, then 3.1 alone", ["3.1"]),
    ("text:\n\n    x = f(0.25)\n\nafter 12", ["12"]),
])
def test_scanner(text, expected):
    assert literals(text) == expected


def _glue_values(notebook: dict) -> dict[str, str]:
    values = {}
    for cell in notebook.get("cells", []):
        for output in cell.get("outputs", []):
            meta = output.get("metadata", {}).get("scrapbook")
            if meta:
                data = output.get("data", {})
                text = data.get(meta.get("mime_prefix", "") + "text/plain")
                if text is not None:
                    values[meta["name"]] = "".join(text) if isinstance(text, list) else text
    return values


NOTEBOOKS = [p for p in PAGES if p.suffix == ".ipynb"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_no_glued_boolean_in_prose(path):
    """A sentence never reads "... is **True**": glue words, not Python booleans."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    values = _glue_values(notebook)
    found = []
    for where, text in _markdown_of(path):
        for key in re.findall(r"\{glue(?::[\w-]*)?\}`([^`:<]+)", text):
            if values.get(key.strip()) in ("True", "False", "np.True_", "np.False_",
                                           "'True'", "'False'"):
                found.append(f"{where}: {key.strip()} = {values[key.strip()]}")
    assert not found, "glued booleans shown in the prose:\n" + "\n".join(found)
