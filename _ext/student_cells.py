"""Student edition only: leave out the code cells that exist for the solutions.

Chapters glue the numbers their solutions quote from a hidden code cell
("# Values quoted in the solutions below"). ``hide_solutions`` removes the
solutions but not that cell, whose code shows how every answer was computed.
With ``hide_solutions`` on, this extension drops a notebook code cell when

* every glue key the cell defines is quoted inside ``{solution}`` blocks only
  (none is quoted anywhere else in the chapter), and
* all its outputs are glue records (it displays nothing).

``tools/student_edition.py`` loads it for the student build and applies the
same rule to the downloadable notebooks.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from docutils import nodes

SOLUTION_BLOCK = re.compile(r"^ {0,3}(`{3,}|:{3,})\{solution\}.*?^ {0,3}\1\s*$", re.S | re.M)
GLUE_CALL = re.compile(r"""\bglue\(\s*(f?)(["'])(.+?)\2""")
GLUE_REF = re.compile(r"\{glue(?::[\w-]*)?\}`([^`]+)`")


def _source(cell) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _quoted_keys(text: str) -> set[str]:
    keys = set()
    for ref in GLUE_REF.findall(text):
        ref = ref.split("<")[-1].rstrip(">")  # {glue:text}`title <key>`
        keys.add(ref.split("::")[-1].split(":")[0].strip())
    return keys


def _key_patterns(code: str) -> list[re.Pattern]:
    patterns = []
    for is_f, _, key in GLUE_CALL.findall(code):
        if is_f:  # f"ex3_rank_{rule}": any text in place of each {...}
            parts = re.split(r"\{[^}]*\}", key)
            patterns.append(re.compile("^" + ".+".join(map(re.escape, parts)) + "$"))
        else:
            patterns.append(re.compile("^" + re.escape(key) + "$"))
    return patterns


def _only_glue_outputs(cell) -> bool:
    return all(out.get("output_type") == "display_data"
               and "scrapbook" in out.get("metadata", {})
               for out in cell.get("outputs", []))


def solution_only_cells(cells: list[dict]) -> set[int]:
    """Indices of the code cells that only compute values quoted by solutions."""
    markdown = "\n".join(_source(c) for c in cells if c.get("cell_type") == "markdown")
    in_solutions = _quoted_keys(" ".join(m.group(0) for m in SOLUTION_BLOCK.finditer(markdown)))
    elsewhere = _quoted_keys(SOLUTION_BLOCK.sub("", markdown))
    found = set()
    for index, cell in enumerate(cells):
        if cell.get("cell_type") != "code" or not _only_glue_outputs(cell):
            continue
        patterns = _key_patterns(_source(cell))
        if not patterns:
            continue
        if any(p.match(key) for p in patterns for key in elsewhere):
            continue
        if any(p.match(key) for p in patterns for key in in_solutions):
            found.add(index)
    return found


def _drop_cells(app, doctree):
    if not app.config.hide_solutions:
        return
    path = Path(app.env.doc2path(app.env.docname))
    if path.suffix != ".ipynb":
        return
    drop = solution_only_cells(json.loads(path.read_text(encoding="utf-8")).get("cells", []))
    if not drop:
        return
    for node in list(doctree.findall(nodes.container)):
        if node.get("nb_element") == "cell_code" and node.get("cell_index") in drop:
            node.parent.remove(node)


def setup(app):
    app.connect("doctree-read", _drop_cells)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
