"""Check the printed edition built by ``make pdf``.

    python tools/check_pdf.py [_build/latex]

Fails (exit 1, with a list) unless:

* the PDF exists and LaTeX reported no error (no ``!`` line), no missing
  character, no undefined reference or citation in the last run's log;
* every chapter and appendix of ``_toc.yml`` is in it (its title, from the
  page's first heading, is in the PDF's text);
* the Korean terms are there as text and a NanumGothic font is embedded
  (``pdffonts``), so they print as glyphs, not boxes;
* the equations were typeset: a math font is embedded and no TeX source such
  as ``\\frac`` or ``$$`` is left in the text;
* every chapter with exercises ends with its "Solutions" section (the solutions
  are not in the text of the chapter).

    python tools/check_pdf.py _build/student/_build/latex --toc _build/student/_toc.yml --student

checks the student PDF (``make student-pdf``): its own table of contents, and
exercises with no Solutions section and no "Solution to" title at all
(``tools/check_student.py --pdf`` looks for the solutions' text and values).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
HANGUL = re.compile(r"[\uac00-\ud7a3]+")


def _visible_text(page: Path) -> str:
    """Markdown a reader sees: no code cells, no HTML comments (source notes)."""
    if page.suffix == ".ipynb":
        cells = json.loads(page.read_text(encoding="utf-8"))["cells"]
        text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    else:
        text = page.read_text(encoding="utf-8")
    return re.sub(r"<!--.*?-->", " ", text, flags=re.S)


def _title(page: Path) -> str:
    return re.search(r"^#\s+(.+)$", _visible_text(page), re.M).group(1).strip()


def _pages(toc: dict) -> list[Path]:
    files = [toc["root"]]
    for part in toc.get("parts", []):
        files += [c["file"] for c in part.get("chapters", [])]
    found = []
    for name in files:
        for suffix in (".ipynb", ".md"):
            if (ROOT / (name + suffix)).exists():
                found.append(ROOT / (name + suffix))
    return found


def _squash(text: str) -> str:
    text = text.replace("\u00ad", "").replace("-\n", "")
    return re.sub(r"\s+", " ", text)


def check(latex_dir: Path, toc_file: Path = ROOT / "_toc.yml", student: bool = False) -> list[str]:
    problems = []
    pdfs = sorted(latex_dir.glob("*.pdf"))
    if not pdfs:
        return [f"no PDF in {latex_dir} (run make pdf)"]
    pdf = pdfs[0]
    log = pdf.with_suffix(".log").read_text(encoding="utf-8", errors="replace")
    for line in log.splitlines():
        if line.startswith("! "):
            problems.append(f"LaTeX error: {line}")
        if "Missing character" in line:
            problems.append(f"LaTeX: {line.strip()}")
    if re.search(r"There were undefined (references|citations)", log):
        problems.append("LaTeX: there were undefined references or citations")
    text = _squash(subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), "-"],
                                  capture_output=True, text=True, check=True).stdout)
    toc = yaml.safe_load(toc_file.read_text(encoding="utf-8"))
    pages = _pages(toc)
    for page in pages[1:]:  # the root page is the title page's book, not a chapter
        title = _squash(_title(page))
        if title not in text:
            problems.append(f"chapter missing from the PDF: {title!r} ({page.name})")
    fonts = subprocess.run(["pdffonts", str(pdf)], capture_output=True, text=True,
                           check=True).stdout
    korean = sorted({word for page in pages for word in HANGUL.findall(_visible_text(page))
                     if len(word) >= 2})
    if korean:
        if not re.search(r"NanumGothic\S*\s.*\byes\b", fonts):
            problems.append("no embedded NanumGothic font: the Korean terms would not print")
        absent = [w for w in korean if w not in text]
        if len(absent) > len(korean) // 10:
            problems.append(f"{len(absent)} of {len(korean)} Korean words not in the PDF's "
                            f"text, e.g. {absent[:5]}")
    if not re.search(r"(CMMI|LatinModernMath|latinmodern-math|CMSY|MSBM)", fonts, re.I):
        problems.append("no math font embedded: were the equations typeset?")
    tex = pdf.with_suffix(".tex").read_text(encoding="utf-8")
    prose = re.sub(r"\\begin\{sphinxVerbatim\}.*?\\end\{sphinxVerbatim\}", "", tex, flags=re.S)
    prose = re.sub(r"\\sphinxcode\{.*?\}|\\sphinxupquote\{.*?\}", "", prose)
    displays = len(re.findall(r"\\begin\{(?:equation|split|align)", prose))
    if not displays:
        problems.append("no display equation in the LaTeX source")
    for leftover in ("$$", r"\$\frac", r"\$\sum"):
        if leftover in prose:
            at = prose.index(leftover)
            problems.append(f"dollar math not converted: {prose[max(at - 40, 0):at + 40]!r}")
    chapters = re.split(r"\\chapter\{", tex)[1:]
    with_exercises = [c for c in chapters if "exercise:" in c]
    ending = [c for c in with_exercises if "\\section{Solutions}" in c]
    if student:  # the student edition: exercises, and no solution anywhere
        if not with_exercises:
            problems.append("no exercise in the student PDF")
        if ending or "Solution to" in text:
            problems.append(f"the student PDF has {len(ending)} Solutions section(s) and "
                            f"{text.count('Solution to')} solution title(s)")
    elif len(ending) != len(with_exercises):
        problems.append(f"{len(with_exercises) - len(ending)} chapter(s) with exercises have no "
                        "Solutions section at their end")
    print(f"check_pdf: {pdf.name}: {len(text):,} characters of text, {len(pages) - 1} "
          f"chapters and appendices, {displays} display equations, {len(korean)} Korean "
          f"words, {len(ending)} Solutions sections")
    return problems


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("latex_dir", nargs="?", type=Path, default=ROOT / "_build" / "latex")
    parser.add_argument("--toc", type=Path, default=ROOT / "_toc.yml",
                        help="the table of contents the PDF was built with")
    parser.add_argument("--student", action="store_true",
                        help="the student edition: no Solutions section, no solution")
    args = parser.parse_args(argv)
    problems = check(args.latex_dir, args.toc, args.student)
    for problem in problems:
        print("check_pdf:", problem)
    print("check_pdf:", "FAIL" if problems else "PASS")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
