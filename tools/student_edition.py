"""Build the student edition of the book: every exercise, no solution.

    python tools/student_edition.py          (or: make student)
    python tools/student_edition.py --pdf    (or: make student-pdf)

writes a configuration derived from ``_config.yml`` into ``_build/student/``
and builds the book with it into ``_build/student/_build/html`` (warnings are
errors, as for the full book). The derived configuration

* sets sphinx-exercise's ``hide_solutions: true``, so no solution is rendered;
* adds "(student edition)" to the title;
* drops the repository button (the repository holds the solutions); the
  Colab/Binder launch buttons stay and open ``launch/student/<chapter>.ipynb``
  (``_ext/launch_targets.py``), this edition's downloads committed by
  ``tools/launch_notebooks.py``;
* loads ``_ext/student_cells.py``, which leaves out the (hidden) code cells
  that only compute the numbers the solutions quote;
* leaves out the pages meant for teachers (``TEACHER_PAGES``: the page on
  using the book in a course), with a table of contents derived from
  ``_toc.yml``.

The .ipynb/.md download buttons stay. ``_ext/plain_downloads.py`` already
writes the downloadable notebooks without solutions and without the code and
glued values that only serve them (``hide_solutions`` is on), and reports what
it removed, chapter by chapter, which this script prints; after the build,
every other source file offered for download (``_sources/``) is rewritten
without its ``{solution}`` blocks, so students download the exercises and no
answers.
``tools/check_student.py`` checks the result against the full edition.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "_ext"))
from student_cells import student_notebook  # noqa: E402

# An opening fence of a solution directive (``` or ::: fences, MyST syntax).
_OPEN = re.compile(r"^ {0,3}(?P<fence>`{3,}|:{3,})\{(?P<name>solution(?:-start|-end)?)\}")


# Pages for teachers only (answers to "which exercises need code", timings).
TEACHER_PAGES = ("book/teaching",)


def student_toc(toc: dict) -> dict:
    """``_toc.yml`` without the teacher pages."""
    toc = json.loads(json.dumps(toc))
    for part in toc.get("parts", []):
        part["chapters"] = [c for c in part.get("chapters", [])
                            if c.get("file") not in TEACHER_PAGES]
    toc["parts"] = [p for p in toc.get("parts", []) if p.get("chapters")]
    return toc


def student_config(config: dict) -> dict:
    """The full edition's configuration, turned into the student edition's."""
    config = json.loads(json.dumps(config))  # deep copy
    config["title"] = f"{config.get('title', 'Book')} (student edition)"
    sphinx = config.setdefault("sphinx", {}) or {}
    config["sphinx"] = sphinx
    (sphinx.setdefault("config", {}) or {})["hide_solutions"] = True
    # Local extension paths are resolved against the config file's folder.
    local = dict(sphinx.get("local_extensions") or {})
    local["student_cells"] = "_ext"  # drops the code cells that exist for the solutions
    sphinx["local_extensions"] = {name: str((ROOT / path).resolve()) for name, path in local.items()}
    html = config.setdefault("html", {}) or {}
    config["html"] = html
    html["use_repository_button"] = False
    html["use_issues_button"] = False
    html["use_edit_page_button"] = False
    return config


def strip_solutions(text: str, where: str = "") -> tuple[str, int]:
    """Remove every ``{solution}`` block from MyST text; return (text, count)."""
    lines = text.splitlines(keepends=True)
    out, removed, i = [], 0, 0
    while i < len(lines):
        match = _OPEN.match(lines[i])
        if match and match["name"] != "solution":
            raise SystemExit(f"student_edition: {where}: gated solutions "
                             f"({match['name']}) are not supported; use ```{{solution}}")
        if match:
            fence = match["fence"]
            close = re.compile(rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}\s*$")
            j = i + 1
            while j < len(lines) and not close.match(lines[j]):
                j += 1
            if j == len(lines):
                raise SystemExit(f"student_edition: {where}: unclosed solution block")
            removed += 1
            i = j + 1
            continue
        out.append(lines[i])
        i += 1
    return "".join(out), removed


def strip_sources(html_dir: Path) -> int:
    """Rewrite the downloadable sources (_sources/) without solutions."""
    removed = 0
    for path in sorted((html_dir / "_sources").rglob("*")):
        if path.suffix == ".ipynb":
            notebook = json.loads(path.read_text(encoding="utf-8"))
            notebook, counts = student_notebook(notebook, str(path))
            removed += counts["cells"]
            for cell in notebook["cells"]:
                if cell.get("cell_type") != "markdown":
                    continue
                source = cell["source"]
                text = "".join(source) if isinstance(source, list) else source
                text, n = strip_solutions(text, str(path))
                if n:
                    cell["source"] = text.splitlines(keepends=True)
                    removed += n
            path.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n",
                            encoding="utf-8")
        elif path.suffix in {".md", ".txt", ".rst"}:
            text, n = strip_solutions(path.read_text(encoding="utf-8"), str(path))
            if n:
                path.write_text(text, encoding="utf-8")
                removed += n
    return removed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", default=str(ROOT / "_build" / "student"),
                        help="build folder (default: _build/student); the HTML "
                        "goes to OUTPUT/_build/html")
    parser.add_argument("--toc", help="table of contents (default: _toc.yml less "
                        "the teacher pages)")
    parser.add_argument("--pdf", action="store_true", help="build the student PDF instead "
                        "(OUTPUT/_build/latex/ranking-matters.pdf; make student-pdf)")
    args = parser.parse_args(argv)
    out = Path(args.output).resolve()
    html = out / "_build" / "html"

    started = time.monotonic()
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    out.mkdir(parents=True, exist_ok=True)
    config_file = out / "_config.yml"
    config_file.write_text(
        "# Generated by tools/student_edition.py from _config.yml: do not edit.\n"
        + yaml.safe_dump(student_config(config), sort_keys=False, allow_unicode=True),
        encoding="utf-8")
    jupyter_book = Path(sys.executable).parent / "jupyter-book"
    toc_file = Path(args.toc).resolve() if args.toc else out / "_toc.yml"
    if not args.toc:
        toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
        toc_file.write_text(
            "# Generated by tools/student_edition.py from _toc.yml: do not edit.\n"
            + yaml.safe_dump(student_toc(toc), sort_keys=False, allow_unicode=True),
            encoding="utf-8")
    # the PDF as make pdf builds the full one (LaTeX's overfull boxes are warnings)
    flags = ["--builder", "pdflatex"] if args.pdf else ["-W", "-n", "--keep-going"]
    command = [str(jupyter_book), "build", str(ROOT), *flags,
               "--config", str(config_file), "--toc", str(toc_file), "--path-output", str(out)]
    print("student_edition:", " ".join(command), flush=True)
    result = subprocess.run(command, cwd=ROOT)
    if result.returncode:
        print(f"student_edition: the build failed (exit {result.returncode})")
        return result.returncode
    if args.pdf:
        print(f"student_edition: built {out / '_build' / 'latex'} "
              f"({time.monotonic() - started:.0f} s)")
        return 0
    removed = strip_sources(html)  # the .md sources; the notebooks are done already
    print(f"student_edition: built {html / 'index.html'} ({time.monotonic() - started:.0f} s)")
    print(summary(out / "_build" / ".doctrees" / "student_removed.json", removed))
    return 0


def summary(report: Path, more_blocks: int = 0) -> str:
    """What ``_ext/plain_downloads.py`` removed from the downloadable notebooks, per chapter."""
    if not report.is_file():
        return f"student_edition: {report} not written: the solutions were not stripped"
    counts = json.loads(report.read_text(encoding="utf-8"))
    lines, total = [], {"solutions": more_blocks, "cells": 0, "values": 0}
    for doc, count in sorted(counts.items()):
        for key in total:
            total[key] += count[key]
        if count["solutions"] or count["values"]:
            lines.append(f"  {doc}: {count['solutions']} solution block(s), "
                         f"{count['values']} solution-only glued value(s) "
                         f"({count['cells']} whole code cell(s) dropped)")
    return "\n".join([f"student_edition: removed {total['solutions']} solution block(s), "
                      f"{total['values']} solution-only glued value(s) and their code "
                      f"({total['cells']} whole code cell(s)) from the downloadable sources:",
                      *lines])


if __name__ == "__main__":
    sys.exit(main())
