"""The smallest text a notebook figure is drawn with, read from the code cell that drew it.

Used by the browser test (tools/book_layout.py), which finds the cell of every figure on a
page through the PNG's name (myst-nb names an image after the SHA-256 of its bytes), and by
tests/test_figures.py. The browser used to assume that every figure's text is matplotlib's
base ``font.size``; a tick label set to 8 pt (``ax.tick_params(labelsize=8)``) was then
measured at 10 pt and passed, at 0.8 of its true size.

The cell's code is read, not run: the sizes are the numbers and named sizes given to
``fontsize=``, ``labelsize=``, ``title_fontsize=``, ``size=`` (in text calls) and
``{"size": ...}``, and ``rcParams``/``rc`` changes of a font size. A size held in a variable
is not seen (the chapters use none).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path

import matplotlib
from matplotlib.font_manager import font_scalings

BASE_PT = float(matplotlib.rcParams["font.size"])  # the notebooks keep the default, 10 pt

SIZE_KEYWORD = re.compile(
    r"""\b(?:fontsize|labelsize|title_fontsize|size)\s*=\s*(?P<value>[^,)\s]+)"""
    r"""|["'](?:size|fontsize)["']\s*:\s*(?P<dict_value>[^,}\s]+)""")
RC_FONT = re.compile(r"""rcParams(?:\.update)?\s*[\[(].*\b(?:font|size)"""
                     r"""|\brc\(\s*["'](?:font|axes|xtick|ytick|legend)""")
RC_VALUE = re.compile(r"""[=:,]\s*(?P<value>[0-9.]+|["'][a-z-]+["'])[\s,)}\]]*$""")
TEXT_CALL = re.compile(r"\.(text|annotate|set_title|suptitle|set_xlabel|set_ylabel|legend)\(")


def size_pt(value: str) -> float | None:
    """Points of a size as written in code (``8``, ``"small"``), or None for a variable."""
    value = value.strip("\"'")
    if value in font_scalings and font_scalings[value] is not None:
        return BASE_PT * font_scalings[value]
    try:
        return float(value)
    except ValueError:
        return None


def line_sizes(line: str) -> list[float]:
    """Every font size (pt) one line of code sets; an rc change of unknown value counts as 0."""
    if RC_FONT.search(line):
        match = RC_VALUE.search(line)
        size = size_pt(match.group("value")) if match else None
        return [0.0 if size is None else size]
    sizes = []
    for match in SIZE_KEYWORD.finditer(line):
        # size= also names array sizes (rng.integers(..., size=5)): only text calls count
        if match.group(0).startswith("size") and not TEXT_CALL.search(line):
            continue
        size = size_pt(match.group("value") or match.group("dict_value"))
        if size is not None:
            sizes.append(size)
    return sizes


def smallest_text_pt(source: str) -> float:
    """The smallest font size (pt) a cell's figure text can have: the base or a smaller one set."""
    return min([BASE_PT, *(s for line in source.splitlines() for s in line_sizes(line))])


def small_text_lines(source: str) -> list[str]:
    """The lines of a cell that set text below the base size or change the font rc."""
    return [line.strip() for line in source.splitlines()
            if RC_FONT.search(line) or any(s < BASE_PT for s in line_sizes(line))]


def figure_cells(notebooks) -> dict[str, str]:
    """SHA-256 (hex) of every PNG output of the notebooks -> the source of the cell that drew it."""
    cells = {}
    for path in notebooks:
        notebook = json.loads(Path(path).read_text(encoding="utf-8"))
        for cell in notebook.get("cells", []):
            source = "".join(cell.get("source", []))
            for output in cell.get("outputs", []):
                png = output.get("data", {}).get("image/png")
                if png:
                    data = base64.b64decode("".join(png) if isinstance(png, list) else png)
                    cells[hashlib.sha256(data).hexdigest()] = source
    return cells
