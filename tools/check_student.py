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

Exits 1 with a list of failures.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from bs4 import BeautifulSoup

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


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print(__doc__)
        return 2
    full, student = (Path(a).resolve() for a in argv)
    for folder in (full, student):
        if not (folder / "search.html").is_file():
            print(f"check_student: no built book in {folder}")
            return 2
    failures, stats = check(full, student)
    print(f"check_student: {stats['pages']} pages, {stats['exercises']} exercises, "
          f"{stats['solutions']} solutions in the full edition "
          f"({stats['probes']} distinctive word runs looked for in the student edition)")
    if failures:
        print(f"check_student: FAIL, {len(failures)} problem(s):")
        for failure in failures:
            print(f"  {failure}")
        return 1
    print("check_student: PASS (no solution text in the student edition)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
