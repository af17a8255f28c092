"""No hand-typed number in the book's prose.

Every number a reader sees in the text of a chapter, an exercise or a solution
must come from code (myst-nb ``glue``), so that it changes when the code does.
The exceptions are quotations of what a source post printed, written with the
``{printed}`` role (``_ext/printed.py``), and the few kinds of literal that are
not results. This test scans every markdown cell of ``book/*.ipynb`` and every
``book/*.md`` page, removes what is not prose (code, roles such as glue,
printed, cite and references, links, HTML, directive options), and fails on
any numeric literal left, tables included (pipe tables, ``list-table``,
``csv-table``, HTML tables), except:

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

Math is read too (inline ``$...$`` and the ``{math}`` role, display
``$$...$$``, ``\\begin{..}`` environments and ``{math}`` blocks): a worked solution such as
``$1 - 0.354 = 0.646$`` types its result by hand just as prose would. A glue
role does not work inside math, so the number goes right after it
(``$1/\\sqrt 8 \\approx$ {glue:text}`cos:.3f```). In math a literal is
exempt only when it is

- an integer 0 to 10, as in prose (the formula's own constants such as ``1 - p``
  and ``z^2/4n^2``, but also small worked fractions such as ``1/2 + 2/3 = 7/6``,
  which this rule cannot tell apart from constants and so lets through),
  unless a dot precedes it (``.5`` is a decimal);
- part of a name: after a letter of a symbol (``x2``, not the argument of a
  command such as ``\\sqrt``), after ``_``, ``_{`` or ``@`` (``\\log_2``,
  ``z_{0.975}``, ``NDCG@10``); an exponent is an input, so ``0.95^{20}`` is
  flagged twice;
- a length (``\\hspace{0.5em}``);
- matched by an ``ALLOWED`` entry, which is how a true convention (the 5 %
  significance level) is let through, with its reason.
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
    ("disagreements.ipynb", r"[\w./-]+#\d+"):
        "an issue or pull request of another project, named by repository and number",
    ("online_testing.ipynb", r"\\alpha = 0\.05|p < 0\.05"):
        "the conventional 5 % significance level, which the prose writes as 5 %",
    ("average_precision.ipynb", r"\$0, 0\.1, \\dots, 1\$"):
        "the eleven standard recall levels of the interpolated curve (trec_eval's "
        "iprec_at_recall_0.00 to 1.00), a convention of the field",
}

# Directives whose body is prose (kept); any other fenced block is code or math.
_PROSE_DIRECTIVES = {
    "admonition", "note", "tip", "warning", "important", "caution", "attention",
    "hint", "seealso", "danger", "error", "exercise", "solution", "solution-start",
    "solution-end", "exercise-start", "exercise-end", "div", "dropdown", "epigraph",
    "margin", "sidebar", "topic", "figure", "glossary", "card", "grid-item-card",
    "tab-item", "tab-set", "grid", "grid-item", "list-table", "table", "only",
    "rubric", "container", "csv-table",
}

_FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,}|:{3,})\s*(?P<info>[^\n]*)$")
_OPTION = re.compile(r"^\s*:[\w-]+:.*$")
_LABEL = re.compile(r"^\s*\([\w:.-]+\)=\s*$")
_COMMENT = re.compile(r"<!--.*?-->", re.S)               # HTML comments
_MATH_ROLE = re.compile(r"\{math\}`([^`]*)`")          # inline math written as a role
_MATH = [
    re.compile(r"\$\$.*?\$\$", re.S),                     # display math
    re.compile(r"\\begin\{(\w+\*?)\}.*?\\end\{\1\}", re.S),  # LaTeX environments
    re.compile(r"(?<!\\)\$[^$\n]+?(?<!\\)\$"),            # inline math
]
_STRIP = [
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
    r"MathJax|llama-index-core|Sphinx|myst-nb|LensKit|Open Bandit Pipeline|MATTERS) v?$")


def _strip_blocks(text: str, math: list[str] | None = None) -> str:
    """Drop code and math blocks and directive options; keep prose blocks.

    The body of every ``{math}`` block outside code is appended to ``math``.
    """
    out, stack = [], []  # stack of (fence, keep, math lines or None)
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
                _, _, body = stack.pop()
                if body is not None and math is not None:
                    math.append("\n".join(body))
                continue
            if not stack or stack[-1][1]:
                name = re.match(r"\{([\w:-]+)\}", info)
                keep = bool(name) and name.group(1) in _PROSE_DIRECTIVES
                is_math = bool(name) and name.group(1) == "math"
                title = info[name.end():] if (name and (keep or is_math)) else ""
                stack.append((fence, keep, [title] if is_math else None))
                if keep and title.strip():
                    out.append(title)
                continue
        if stack and not stack[-1][1]:
            if stack[-1][2] is not None and not (_OPTION.match(line) or _LABEL.match(line)):
                stack[-1][2].append(line)
            continue
        if _OPTION.match(line) or _LABEL.match(line):
            continue
        out.append(line)
    return "\n".join(out)


def split_math(text: str) -> tuple[str, list[str]]:
    """(the prose of a markdown text, its math): everything else removed."""
    math: list[str] = []
    text = _COMMENT.sub(" ", _strip_blocks(text, math))
    math.extend(m.group(1) for m in _MATH_ROLE.finditer(text))
    text = _MATH_ROLE.sub(" ", text)
    for pattern in _MATH:
        math.extend(m.group() for m in pattern.finditer(text))
        text = pattern.sub(" ", text)
    for pattern in _STRIP:
        text = pattern.sub(" ", text)
    return text, math


def prose(text: str) -> str:
    """The prose of a markdown text, with everything that is not prose removed."""
    return split_math(text)[0]


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


def _small_integer(token: str) -> bool:
    return token.isdigit() and int(token) <= 10 and not (len(token) > 1 and token[0] == "0")


def _exempt_in_math(math: str, start: int, end: int, token: str) -> bool:
    """A literal of a formula that is a name, a length or a small constant."""
    before = math[:start]
    if re.search(r"(?<!\d)\.$", before):  # .5 is a decimal, not the integer 5
        return False
    if _small_integer(token):
        return True
    if re.search(r"(?:_|_\{|@)$", before):  # \log_2, z_{0.975}, NDCG@10
        return True
    word = re.search(r"(\\?)([A-Za-z]+)$", before)
    if word:
        # x2 is a name; \sqrt8 or \cdot0.5 is a command's argument, except
        # \frac12, which is two one-digit arguments.
        if not word.group(1):
            return True
        return word.group(2) in ("frac", "tfrac", "dfrac") and re.fullmatch(r"\d\d", token) is not None
    return re.match(r"\s*(?:em|ex|pt|mu|px|cm|mm|in)\b", math[end:]) is not None


def _found(body: str, allowed: tuple[str, ...], exempt) -> list[str]:
    covered = [m.span() for pattern in allowed for m in re.finditer(pattern, body)]
    found = []
    for match in _NUMBER.finditer(body):
        token = match.group().rstrip(".,")
        start, end = match.start(), match.start() + len(token)
        if any(a <= start and end <= b for a, b in covered):
            continue
        if not exempt(body, start, end, token):
            found.append(token)
    return found


def literals(text: str, allowed: tuple[str, ...] = ()) -> list[str]:
    """Numeric literals of ``text``'s prose and math that are not exempt.

    ``allowed`` holds regular expressions, matched against the prose and
    against each piece of math; a literal inside one of their matches is
    exempt. The prose's literals come first, then the math's.
    """
    body, math = split_math(text)
    found = _found(body, allowed, _exempt)
    for formula in math:
        formula = re.sub(r"\\(?:label|tag)\{[^}]*\}", " ", formula).replace("{,}", ",")
        found += _found(formula, allowed, _exempt_in_math)
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


def _pieces(text: str) -> list[str]:
    body, math = split_math(text)
    return [body, *math]


def test_allow_list_is_used():
    stale = []
    for (name, pattern), reason in ALLOWED.items():
        paths = PAGES if name == "*" else [BOOK / name]
        if not any(path.exists() and any(re.search(pattern, piece)
                                         for _, text in _markdown_of(path)
                                         for piece in _pieces(text))
                   for path in paths):
            stale.append(f"{name}: {pattern!r} ({reason})")
    assert not stale, "allow-list entries that match nothing:\n" + "\n".join(stale)


@pytest.mark.parametrize("text, expected", [
    ("NDCG is 0.43 here", ["0.43"]),
    ("the post prints {printed}`0.6372`", []),
    ("NDCG@10 of {glue:text}`x:.3f` and P_5", []),
    ("$\\log_2(i + 1)$ with $$\\frac{1}{12}$$", ["12"]),
    ("2,566 of 6,000 values", ["2,566", "6,000"]),
    ("in 2013, post 001 and the 3rd rank, k = 5", []),
    ("```python\nx = 0.25\n```\nprose 12", ["12"]),
    (":::{admonition} Note\n:class: tip\nabout 84 %\n:::", ["84"]),
    ("a [link](https://x.org/1234) and `code 99`", []),
    ("```{math}\n:label: eq-1\n0.5 + 17\n```", ["0.5", "17"]),
    ("64-bit ids and 1.5x faster", ["64", "1.5"]),
    ("torchmetrics 1.7.4 and pandas 3.1, then 3.1 alone", ["3.1"]),
    ("text:\n\n    x = f(0.25)\n\nafter 12", ["12"]),
    # math: results and inputs are flagged, names and small constants are not
    ("so $1 - 0.354 = 0.646$ and $n = 50$", ["0.354", "0.646", "50"]),
    ("$z_{0.975}$, $\\log_2 x$, $x^2/4n^2$, $\\mathrm{NDCG@10}$, $x2$", []),
    ("$1 - 0.95^{20}$", ["0.95", "20"]),
    ("$\\sqrt{50}$, $\\sqrt 50$, $a\\cdot0.5$, $\\frac12$, $10^{-8}$", ["50", "50", "0.5"]),
    ("$$\n\\begin{aligned} a &= 0.25 \\\\[4pt] b &= 1{,}000 \\end{aligned}\n$$", ["0.25", "1,000"]),
    ("\\begin{equation}\\label{eq-12} x = 12 \\hspace{0.5em} \\end{equation}", ["12"]),
    ("$\\chi^2 = 100^2/9000$", ["100", "9000"]),
    (":::{admonition} Solution\n$p = 1/8 = 0.125$\n:::", ["0.125"]),
    ("```{math}\n:label: eq-x\n\\alpha = 0.05\n```\n```python\ny = $0.5$\n```", ["0.05"]),
    ("$x$ is {glue:text}`x:.3f` and $\\approx$ {glue:text}`y:.2f`", []),
    ("the {math} role: {math}`1 - 0.354 = 0.646` and {math}`\\log_2 x`", ["0.354", "0.646"]),
    ("a leading-dot decimal: $p = .5$, $.05$", ["5", "05"]),
    # tables of every kind are prose
    ("| k | NDCG |\n|---|---:|\n| 5 | 0.43 |\n| 20 | {glue:text}`n:.3f` |", ["0.43", "20"]),
    ("```{list-table}\n:header-rows: 1\n:widths: 30 70\n\n* - k\n  - value\n* - 5\n  - 0.43\n```",
     ["0.43"]),
    ("```{csv-table} Results 2024\n:header: k, value\n:widths: 40 60\n\n5, 0.25\n12, x\n```",
     ["0.25", "12"]),
    ('<table><tr><td width="50">k</td><td>0.43</td></tr><tr><td>1,200</td></tr></table>',
     ["0.43", "1,200"]),
    (":::{table} Results\n| a | b |\n|---|---|\n| $0.5$ | 23 |\n:::", ["23", "0.5"]),
])
def test_scanner(text, expected):
    assert literals(text) == expected


def test_allowed_covers_math():
    text = "at $\\alpha = 0.05$ and $p < 0.05$, $x = 0.05$"
    assert literals(text, (r"\\alpha = 0\.05|p < 0\.05",)) == ["0.05"]


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
