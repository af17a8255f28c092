"""Check that the student edition has every exercise and no solution text.

    python tools/check_student.py FULL_HTML STUDENT_HTML

FULL_HTML is the built book (_build/html), STUDENT_HTML the student edition
(_build/student/_build/html, from tools/student_edition.py). The full edition
tells what the solutions say: for every page, the text of each rendered
solution (``div.solution``) is cut into runs of words that occur nowhere else
on that page; none of them may appear anywhere in the student page. Also:

* the full edition has at least one solution (else there is nothing to check);
* the student pages have no ``div.solution`` and the same exercises as the
  full edition (hiding solutions must not hide the questions);
* the downloadable sources (``_sources/``) of the student edition contain no
  ``{solution}`` directive and no solution text;
* the teacher pages (``student_edition.TEACHER_PAGES``) are not in it.

Answers, not only prose (:func:`answer_leaks`): from the book's own notebooks,
every glue key quoted inside ``{solution}`` blocks and nowhere else is a
solution-only value (``_ext/student_cells.py``). In the student edition's
downloadable notebooks (what the download button, and a launch button, opens)
no code cell may define such a key (a glue call or a glue record) and no code
cell that only served the solutions may be left; neither those notebooks nor
the student HTML pages may show such a key, nor its value as a solution
formats it whenever that text is found nowhere in the full edition outside
the solutions.

    python tools/check_student.py FULL_HTML STUDENT_HTML [--pdf STUDENT_PDF]

also reads the student PDF's text (poppler's ``pdftotext``): no solution
heading, no solution word run and no distinctive solution-only value.

Exits 1 with a list of failures.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "_ext"))
from plain_downloads import _format_glue, glue_values  # noqa: E402
from student_cells import (ANY_KEY, GLUE_REF, SOLUTION_BLOCK, _key_patterns,  # noqa: E402
                           _source, solution_only_keys)

WORDS_PER_PROBE = 6
NON_PAGE_DIRS = {"_static", "_sources", "_images", "_downloads"}


def _normalise(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _soup(path: Path) -> BeautifulSoup:
    soup = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
    for tag in soup(["script", "style", "noscript"]):
        tag.decompose()
    return soup


def _probes(solution_text: str, rest: str) -> list[str]:
    """Runs of words of a solution that occur nowhere else on its page."""
    words = solution_text.split()
    probes = []
    for start in range(0, max(len(words) - WORDS_PER_PROBE + 1, 1), WORDS_PER_PROBE // 2):
        probe = " ".join(words[start:start + WORDS_PER_PROBE])
        if len(probe) >= 20 and probe not in rest:
            probes.append(probe)
    return probes


TEACHER_PAGES = ("book/teaching",)  # as in tools/student_edition.py


def check(full: Path, student: Path) -> tuple[list[str], dict]:
    failures, stats = [], {"pages": 0, "solutions": 0, "probes": 0, "exercises": 0}
    for page in TEACHER_PAGES:
        for leftover in (student / f"{page}.html", student / "_sources" / f"{page}.md"):
            if leftover.exists():
                failures.append(f"{leftover.relative_to(student)}: a teacher page in the "
                                "student edition")
        index = student / "index.html"
        if index.exists() and f"{page}.html" in index.read_text(encoding="utf-8"):
            failures.append(f"{page}: linked from the student edition's index")
    for path in sorted(full.rglob("*.html")):
        rel = path.relative_to(full)
        if rel.parts[0] in NON_PAGE_DIRS:
            continue
        page = _soup(path)
        solutions = page.select("div.solution")
        exercises = len(page.select("div.exercise"))
        texts = [_normalise(s.get_text(" ")) for s in solutions]
        for solution in solutions:
            solution.extract()
        rest = _normalise(page.get_text(" "))
        target = student / rel
        if not target.is_file():
            if solutions or exercises:
                failures.append(f"{rel}: missing from the student edition")
            continue
        stats["pages"] += 1
        stats["solutions"] += len(solutions)
        stats["exercises"] += exercises
        student_page = _soup(target)
        student_text = _normalise(student_page.get_text(" "))
        if student_page.select("div.solution"):
            failures.append(f"{rel}: {len(student_page.select('div.solution'))} solution "
                            "block(s) rendered in the student edition")
        if len(student_page.select("div.exercise")) != exercises:
            failures.append(f"{rel}: {exercises} exercises in the full edition, "
                            f"{len(student_page.select('div.exercise'))} in the student edition")
        source = None
        for candidate in (student / "_sources" / rel.with_suffix(".ipynb"),
                          student / "_sources" / rel.with_suffix(".md")):
            if candidate.is_file():
                source = _normalise(candidate.read_text(encoding="utf-8").replace("\\n", " "))
                if re.search(r"[`:]{3,}\{solution", candidate.read_text(encoding="utf-8")):
                    failures.append(f"{candidate.relative_to(student)}: a {{solution}} "
                                    "directive in the downloadable source")
        for text in texts:
            probes = _probes(text, rest)
            stats["probes"] += len(probes)
            leaked = [p for p in probes if p in student_text]
            if leaked:
                failures.append(f"{rel}: solution text in the student edition: {leaked[0]!r}")
            leaked = [p for p in probes if source and p in source]
            if leaked:
                failures.append(f"{rel}: solution text in its downloadable source: {leaked[0]!r}")
    if stats["solutions"] == 0:
        failures.append(f"no solution found in the full edition {full}: nothing was checked")
    elif stats["probes"] == 0:
        failures.append("no distinctive solution text found: nothing was checked")
    return failures, stats


def solution_values(notebook: dict) -> dict[str, set[str]]:
    """Solution-only key -> the texts its value is shown as (raw and as each solution formats it)."""
    cells = notebook.get("cells", [])
    keys, values = solution_only_keys(cells), glue_values(notebook)
    shown = {key: {_format_glue(values[key], "")} for key in keys if key in values}
    markdown = "\n".join(_source(c) for c in cells if c.get("cell_type") == "markdown")
    for block in SOLUTION_BLOCK.finditer(markdown):
        for ref in GLUE_REF.findall(block.group(0)):
            key, _, spec = ref.split("<")[-1].rstrip(">").partition(":")
            if key in shown:
                shown[key].add(_format_glue(values[key], spec))
    return shown


def _found(value: str, text: str) -> bool:
    """``value`` in ``text``, not as a part of a longer number."""
    return re.search(rf"(?<![\d.]){re.escape(value)}(?!\d)", text) is not None


def _distinctive(shown: dict[str, set[str]], rest: str) -> dict[str, set[str]]:
    """The texts of each value that occur nowhere in ``rest``.

    ``rest`` is what the full edition shows outside the solutions: a page's
    text, its notebook's code and glued values that do not serve the solutions
    only. A value found there (a rate of 1.0 that the text quotes too) is not
    an answer the student edition could give away.
    """
    return {key: {v for v in texts if len(v) >= 3 and not _found(v, rest)}
            for key, texts in shown.items()}


def _page_number(value: str, pages: int) -> bool:
    """A whole number no larger than the PDF's page count: in the PDF's text it is also a
    page's footer, a line of the contents or an index entry, so finding it proves nothing."""
    return value.isdigit() and int(value) <= pages


def _beside_solutions(notebook: dict) -> str:
    """The code and glued values of ``notebook`` that do not serve its solutions only."""
    cells = notebook.get("cells", [])
    keys = solution_only_keys(cells)
    code = [_source(c) for c in cells if c.get("cell_type") == "code"
            and not any(o.get("metadata", {}).get("scrapbook", {}).get("name") in keys
                        for o in c.get("outputs", []))]
    values = [v for k, v in glue_values(notebook).items() if k not in keys]
    return "\n".join(code + values)


def _outputs_text(cell: dict) -> str:
    parts = []
    for out in cell.get("outputs", []):
        parts.append("".join(out.get("text", "")))
        for data in out.get("data", {}).values():
            parts.append("".join(data) if isinstance(data, list) else str(data))
    return "\n".join(parts)


def _idle_cells(source: dict, student: dict, keys: set[str]) -> list[str]:
    """Cells that glued solution-only keys and, in ``student``, neither glue nor feed anything."""
    served = {c.get("id") for c in source.get("cells", []) if c.get("cell_type") == "code"
              and (any(o.get("metadata", {}).get("scrapbook", {}).get("name") in keys
                       for o in c.get("outputs", []))
                   or any(p.match(k) for p in _key_patterns(_source(c)) for k in keys
                          if p is not ANY_KEY))} - {None}
    code = [c for c in student.get("cells", []) if c.get("cell_type") == "code"]
    idle = []
    for cell in code:
        if cell.get("id") not in served or _key_patterns(_source(cell)):
            continue
        others = " ".join(_source(c) for c in code if c is not cell)
        names = set(re.findall(r"^\s*([A-Za-z_]\w*)\s*=", _source(cell), re.M))
        if not any(re.search(rf"\b{re.escape(n)}\b", others) for n in names):
            idle.append(cell["id"])
    return idle


def notebook_leaks(source: dict, student: dict, rest: str, where: str) -> list[str]:
    """Solution-only keys, values and code cells of ``source`` left in ``student``."""
    shown = solution_values(source)
    keys = set(shown) | solution_only_keys(source.get("cells", []))
    failures = []
    left = _idle_cells(source, student, keys)
    if left:
        failures.append(f"{where}: {len(left)} code cell(s) that only serve the solutions")
    defined = set()
    for cell in student.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        defined |= {o["metadata"]["scrapbook"]["name"] for o in cell.get("outputs", [])
                    if o.get("metadata", {}).get("scrapbook", {}).get("name") in keys}
        patterns = [p for p in _key_patterns(_source(cell)) if p is not ANY_KEY]
        defined |= {k for k in keys if any(p.match(k) for p in patterns)}
    if defined:
        failures.append(f"{where}: {len(defined)} solution-only value(s) computed: "
                        f"{', '.join(sorted(defined))}")
    text = "\n".join(_source(c) + "\n" + _outputs_text(c) for c in student.get("cells", []))
    values = [f"{k}={v!r}" for k, texts in _distinctive(shown, rest).items()
              for v in sorted(texts) if k not in defined and _found(v, text)]
    if values:
        failures.append(f"{where}: {len(values)} solution-only value(s) shown: {', '.join(values)}")
    return failures


def answer_leaks(full: Path, student: Path, root: Path = ROOT) -> tuple[list[str], dict]:
    """Solution-only values (glue keys quoted only in solutions) left in the student edition."""
    failures, stats = [], {"keys": 0, "chapters": 0, "notebooks": 0}
    for path in sorted((root / "book").glob("*.ipynb")):
        doc = path.relative_to(root).with_suffix("")
        source = json.loads(path.read_text(encoding="utf-8"))
        keys = solution_only_keys(source.get("cells", []))
        stats["keys"] += len(keys)
        stats["chapters"] += bool(keys)
        full_page, student_page = full / f"{doc}.html", student / f"{doc}.html"
        if not keys or not full_page.is_file():
            continue
        page = _soup(full_page)
        for solution in page.select("div.solution"):
            solution.extract()
        rest = _normalise(page.get_text(" ")) + "\n" + _beside_solutions(source)
        download = student / "_sources" / f"{doc}.ipynb"
        if download.is_file():
            stats["notebooks"] += 1
            failures += notebook_leaks(source, json.loads(download.read_text(encoding="utf-8")),
                                       rest, f"_sources/{doc}.ipynb")
        if student_page.is_file():
            html = student_page.read_text(encoding="utf-8")
            named = sorted(k for k in keys if re.search(rf"\b{re.escape(k)}\b", html))
            if named:
                failures.append(f"{doc}.html: solution-only glue key(s) {', '.join(named)}")
            text = _normalise(_soup(student_page).get_text(" "))
            values = [f"{k}={v!r}" for k, texts in _distinctive(solution_values(source),
                                                                rest).items()
                      for v in sorted(texts) if _found(v, text)]
            if values:
                failures.append(f"{doc}.html: solution-only value(s) shown: {', '.join(values)}")
    if stats["keys"] == 0:
        failures.append(f"no solution-only glue key found in {root / 'book'}: nothing was checked")
    return failures, stats


def pdf_leaks(full: Path, pdf: Path, root: Path = ROOT) -> list[str]:
    """Solution headings, word runs and distinctive solution-only values in the PDF's text."""
    raw = subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), "-"],
                         capture_output=True, text=True, check=True).stdout
    pages = raw.count("\f")
    text = _normalise(raw)
    if len(text) < 1000:
        return [f"{pdf}: no text extracted"]
    failures = [f"{pdf}: {n} solution heading(s)"
                for n in [len(re.findall(r"Solution to Exercise", text))] if n]
    rest_all, solutions = [_beside_solutions(json.loads(p.read_text(encoding="utf-8")))
                           for p in sorted((root / "book").glob("*.ipynb"))], []
    for path in sorted(full.rglob("*.html")):
        if path.relative_to(full).parts[0] in NON_PAGE_DIRS:
            continue
        page = _soup(path)
        texts = [_normalise(s.get_text(" ")) for s in page.select("div.solution")]
        for solution in page.select("div.solution"):
            solution.extract()
        rest = _normalise(page.get_text(" "))
        rest_all.append(rest)
        solutions += [(path.relative_to(full), p) for s in texts for p in _probes(s, rest)]
    # Whitespace left out on both sides: the HTML spaces out highlighted code, the PDF
    # breaks lines. A run of words found anywhere outside the solutions (a chapter's
    # code, the API page) is no answer.
    squashed_rest, squashed = (re.sub(r"\s+", "", s) for s in ("\n".join(rest_all), text))
    leaked = [(page, probe) for page, probe in solutions
              if (p := re.sub(r"\s+", "", probe)) not in squashed_rest and p in squashed]
    if leaked:
        failures.append(f"{pdf.name}: {len(leaked)} solution word run(s), from "
                        f"{len({page for page, _ in leaked})} page(s), e.g. {leaked[0][1]!r} "
                        f"({leaked[0][0]})")
    rest_all = "\n".join(rest_all)
    for path in sorted((root / "book").glob("*.ipynb")):
        shown = solution_values(json.loads(path.read_text(encoding="utf-8")))
        values = [f"{k}={v!r}" for k, texts in _distinctive(shown, rest_all).items()
                  for v in sorted(texts) if _found(v, text) and not _page_number(v, pages)]
        if values:
            failures.append(f"{pdf.name}: solution-only value(s) of {path.stem}: {', '.join(values)}")
    return failures


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("full", type=Path, help="the full edition's HTML (_build/html)")
    parser.add_argument("student", type=Path, help="the student edition's HTML")
    parser.add_argument("--pdf", type=Path, help="the student edition's PDF, checked too")
    args = parser.parse_args(argv)
    full, student = args.full.resolve(), args.student.resolve()
    for folder in (full, student):
        if not (folder / "search.html").is_file():
            print(f"check_student: no built book in {folder}")
            return 2
    failures, stats = check(full, student)
    print(f"check_student: {stats['pages']} pages, {stats['exercises']} exercises, "
          f"{stats['solutions']} solutions in the full edition "
          f"({stats['probes']} distinctive word runs looked for in the student edition)")
    leaks, answers = answer_leaks(full, student)
    failures += leaks
    print(f"check_student: {answers['keys']} solution-only glued values in {answers['chapters']} "
          f"chapters looked for in the student pages and {answers['notebooks']} downloadable notebooks")
    if args.pdf:
        failures += pdf_leaks(full, args.pdf.resolve())
        print(f"check_student: the student PDF {args.pdf} read with pdftotext")
    if failures:
        print(f"check_student: FAIL, {len(failures)} problem(s):")
        for failure in failures:
            print(f"  {failure}")
        return 1
    print("check_student: PASS (no solution text or solution-only value in the student edition)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
