"""A MyST role written inside inline code is shown to the reader as raw text.

`` `{glue:text}`key`` `` (a role wrapped in a code span) renders the literal
``{glue:text}`` and the key instead of the glued value; the HTML checks do not
see it as a role. Every page's sources are scanned for a backtick that opens
straight onto a role.
"""

import json
import re
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parents[1] / "book"
ROLE_IN_CODE = re.compile(r"`\{(?:glue(?::\w+)?|term|cite(?::\w+)?|numref|ref|doc|eq|math)\}")


def _markdown(path: Path) -> str:
    if path.suffix == ".md":
        return path.read_text()
    cells = json.loads(path.read_text())["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


PAGES = sorted(p for p in BOOK.iterdir() if p.suffix in (".md", ".ipynb"))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_no_role_inside_inline_code(page):
    text = _markdown(page)
    found = [text[max(0, m.start() - 40):m.end() + 20] for m in ROLE_IN_CODE.finditer(text)]
    assert not found, f"{page.name}: a role inside a code span shows as raw text: {found}"


def test_the_pattern_finds_the_case_it_is_for():
    assert ROLE_IN_CODE.search("against `{glue:text}`ex2_den_b``, the")
    assert not ROLE_IN_CODE.search("against {glue:text}`ex2_den_b`, the")
    assert not ROLE_IN_CODE.search("see {numref}`fig-1` and `code`")
