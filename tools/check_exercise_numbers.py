"""Check that every exercise carries one number in the HTML, the PDF and the teaching page.

    python tools/check_exercise_numbers.py HTML_DIR LATEX_DIR

HTML_DIR is the built book (_build/html), LATEX_DIR the printed edition
(_build/latex, from ``make pdf``). The HTML's numbers ("Exercise 4.1", the
caption of each ``div.exercise``) are the reference. Fails (exit 1, with a
list) unless

* the LaTeX source titles each exercise with that number (``\\label{exercise:x}``
  then ``{Exercise 4.1}``) and the PDF's text (poppler's ``pdftotext``) shows
  it; no other "Exercise n" appears in the PDF;
* every link to an exercise, on the teaching page and in the chapters, shows
  the number of the exercise it links to (``1.2`` or "Exercise 1.2"), in the
  HTML and in the LaTeX source.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from bs4 import BeautifulSoup

NON_PAGE_DIRS = {"_static", "_sources", "_images", "_downloads"}
NUMBER = re.compile(r"\d+(?:\.\d+)*")


def html_exercises(html: Path) -> tuple[dict[str, str], list[tuple[str, str, str]]]:
    """(label -> number, [(page, label, text of a link to it)]) from the built HTML."""
    numbers, links = {}, []
    pages = [p for p in sorted(html.rglob("*.html"))
             if p.relative_to(html).parts[0] not in NON_PAGE_DIRS]
    for page in pages:
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        for exercise in soup.select("div.exercise[id]"):
            caption = exercise.select_one(".caption-number")
            if caption is not None:
                numbers[exercise["id"]] = caption.get_text().replace("Exercise", "").strip()
    for page in pages:
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        for link in soup.select("a[href*='#']"):
            label = link["href"].rsplit("#", 1)[1]
            if label in numbers and not link.find_parent(class_=["toctree-wrapper", "bd-toc"]):
                links.append((str(page.relative_to(html)), label, link.get_text(" ").strip()))
    return numbers, links


def _braced(text: str, start: int) -> str:
    """The text of the {...} group opening at ``text[start]``."""
    depth = 0
    for index in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[index], 0)
        if depth == 0:
            return text[start + 1:index]
    return text[start + 1:]


def latex_exercises(tex: str) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """(label -> number in the exercise's title, [(label, text of a reference to it)])."""
    numbers = {m["label"]: m["n"] for m in re.finditer(
        r"\\label\{exercise:(?P<label>[^}]+)\}[^\n]*\n\s*\\begin\{sphinxadmonition\}\{note\}"
        r"\{Exercise (?P<n>[\d.]+)", tex)}
    refs = []
    for match in re.finditer(r"\\hyperref\[(?:\\detokenize\{)?(?:[\w/.-]+:|exercise:)"
                             r"(?P<label>[^}\]]+)\}?\]", tex):
        if match["label"] in numbers:
            body = _braced(tex, match.end())
            text = re.sub(r"\\[A-Za-z]+|[{}]|std,std-\w+", " ", body)
            refs.append((match["label"], " ".join(text.split())))
    return numbers, refs


def _shown(text: str) -> str | None:
    found = NUMBER.search(text)
    return found.group(0) if found else None


def check(html: Path, latex: Path) -> list[str]:
    numbers, links = html_exercises(html)
    if not numbers:
        return [f"no exercise found in {html}"]
    problems = []
    for page, label, text in links:
        if _shown(text) not in (numbers[label], None) or (
                _shown(text) is None and page.startswith("book/teaching")):
            problems.append(f"{page}: the link to {label} shows {text!r}, the exercise is "
                            f"Exercise {numbers[label]}")
    texs = sorted(latex.glob("*.tex"))
    pdfs = sorted(latex.glob("*.pdf"))
    if not texs or not pdfs:
        return problems + [f"no LaTeX source or PDF in {latex} (run make pdf)"]
    tex_numbers, refs = latex_exercises(texs[0].read_text(encoding="utf-8"))
    for label, number in sorted(numbers.items()):
        if tex_numbers.get(label) != number:
            problems.append(f"{label}: Exercise {number} in the HTML, "
                            f"{tex_numbers.get(label, 'absent')} in the LaTeX source")
    for label, text in refs:
        if _shown(text) not in (numbers.get(label), None):
            problems.append(f"a LaTeX reference to {label} shows {text!r}, the exercise is "
                            f"Exercise {numbers.get(label)}")
    text = subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdfs[0]), "-"],
                          capture_output=True, text=True, check=True).stdout
    in_pdf = set(re.findall(r"Exercise\s+(\d+(?:\.\d+)+)", text))
    missing = sorted(set(numbers.values()) - in_pdf)
    if missing:
        problems.append(f"{len(missing)} exercise number(s) of the HTML not in the PDF: {missing[:5]}")
    extra = sorted(in_pdf - set(numbers.values()))
    if extra:
        problems.append(f"{len(extra)} exercise number(s) in the PDF and not in the HTML: "
                        f"{extra[:5]}")
    print(f"check_exercise_numbers: {len(numbers)} exercises, {len(links)} links in the HTML, "
          f"{len(refs)} references in the LaTeX source")
    return problems


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__)
        return 2
    problems = check(Path(argv[0]), Path(argv[1]))
    for problem in problems:
        print("check_exercise_numbers:", problem)
    print("check_exercise_numbers:", f"FAIL, {len(problems)} problem(s)" if problems else "PASS")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
