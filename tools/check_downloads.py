"""Check that the downloadable notebooks are plain Jupyter Markdown.

    python tools/check_downloads.py _build/html [_build/student/_build/html ...]

Every ``_sources/**/*.ipynb`` of each built book (what the download button
serves) must be readable in Jupyter or Colab: no MyST role (``{glue:text}`k```,
``{term}``, ``{doc}``, ...), no directive fence (```` ```{exercise} ````,
``:::{admonition}``), no directive option (``:label:``), no ``(label)=`` target
left in a Markdown cell. ``_ext/plain_downloads.py`` does the rewriting; this
script proves it did. Exit status 1 lists every leftover.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

MYST = [
    (re.compile(r"\{[\w:.-]+\}`[^`]*`"), "a MyST role"),
    (re.compile(r"^\s*(?:`{3,}|:{3,})\{[\w:.-]+\}", re.M), "a directive fence"),
    (re.compile(r"^\s*:(?:label|class|name|width|align):", re.M), "a directive option"),
    (re.compile(r"^\s*\([\w:.-]+\)=\s*$", re.M), "a MyST target"),
    (re.compile(r"\$\$\s*\([\w:.-]+\)"), "a labelled $$ equation"),
    (re.compile(r"%s"), "a {numref} number placeholder"),
]


_CODE = re.compile(r"``(?!`).*?``|(?P<role>\{[\w:.-]+\}`[^`\n]*`)|```(?!\{).*?```|`[^`\n]*`", re.S)


def leftovers(notebook: dict) -> list[str]:
    found = []
    for index, cell in enumerate(notebook.get("cells", [])):
        if cell.get("cell_type") != "markdown":
            continue
        text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        # code spans and fenced code may show MyST on purpose (a chapter about it); a
        # role's own `body`, right after its {name}, is kept: it is no code span
        prose = _CODE.sub(lambda m: m.group("role") or "", text)
        for pattern, what in MYST:
            match = pattern.search(prose)
            if match:
                found.append(f"cell {index}: {what}: {match.group(0)[:60]!r}")
    return found


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    problems, checked = [], 0
    for html in map(Path, argv):
        sources = sorted((html / "_sources").rglob("*.ipynb"))
        if not sources:
            problems.append(f"{html}: no downloadable notebook found under _sources/")
        for path in sources:
            checked += 1
            for problem in leftovers(json.loads(path.read_text(encoding="utf-8"))):
                problems.append(f"{path}: {problem}")
    for problem in problems:
        print("check_downloads:", problem)
    print(f"check_downloads: {checked} downloadable notebooks, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
