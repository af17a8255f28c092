"""Every figure's text is at least matplotlib's base font size, and no figure is too wide.

The browser test (tools/book_layout.py) measures a figure's legibility from the base font
(``font.size``, 10 pt, at the PNG's dpi). That measure covers every piece of text only when
no chapter sets a smaller size (a legend at ``fontsize=8`` is drawn at 0.8 of the measured
text) and no figure is so wide that the base font itself shrinks below the limit when the
figure is scaled down to the article column on a desktop screen. This file checks both in
the chapters' code cells.

The width limit, from the browser measure: at 1024 and 1366 px the widest figure is drawn
739 and 741 CSS px wide (measured in the built book; the article column less the figure's
frame), the body text is 16 px, and figure text must be at least 0.6 of it (9.6 px). Text of
10 pt on a figure W inches wide (any dpi: the PNG is W x dpi px, drawn at 739 px) is
``10 / 72 * 739 / W`` CSS px, at least 9.6 px for W <= 10.69 in. The limit applies to
``figsize``; wider figures are redesigned (fewer panels per row) instead.
"""

import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import figure_text  # noqa: E402 - tools/ is not a package

NOTEBOOKS = sorted((ROOT / "book").glob("*.ipynb"))

BASE_PT = figure_text.BASE_PT  # the browser test's base font size
DESKTOP_FIGURE_PX = 739.0  # the widest figure at 1024 px (741 px at 1366 px)
BODY_PX = 16.0
LEGIBLE_SHARE = 0.6  # tools/book_layout.py LEGIBLE_SHARE
MAX_WIDTH_IN = BASE_PT / 72 * DESKTOP_FIGURE_PX / (LEGIBLE_SHARE * BODY_PX)
FIGSIZE = re.compile(r"figsize\s*=\s*\(\s*(?P<width>[0-9.]+)\s*,")


def code(path):
    notebook = json.loads(path.read_text(encoding="utf-8"))
    for index, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] == "code":
            yield index, "".join(cell["source"])


def small_text(path):
    """(cell, line) pairs of every font size set below the base, or font rc changes."""
    return [(index, line) for index, source in code(path)
            for line in figure_text.small_text_lines(source)]


def test_the_width_limit():
    # the arithmetic of the module docstring
    assert round(MAX_WIDTH_IN, 2) == 10.69


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_text_below_the_base_font(path):
    found = small_text(path)
    assert not found, (f"{path.name}: text set below matplotlib's {BASE_PT:g} pt base, which the "
                       f"browser test measures: {found}")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_figure_wider_than_the_column_allows(path):
    wide = [(index, float(m.group("width"))) for index, source in code(path)
            for m in FIGSIZE.finditer(source) if float(m.group("width")) > MAX_WIDTH_IN]
    assert not wide, (f"{path.name}: figures wider than {MAX_WIDTH_IN:.2f} in (their {BASE_PT:g} pt "
                      f"text would be drawn below 0.6 x body on a desktop): {wide}")


@pytest.mark.parametrize("line, small", [
    ('ax.legend(fontsize=8)', True), ('ax.legend(fontsize="small")', True),
    ("ax.tick_params(labelsize=8)", True), ('plt.rcParams["font.size"] = 8', True),
    ('ax.text(0, 0, "a", size=7)', True), ('ax.legend(prop={"size": 6})', True),
    ('ax.set_title("t", fontsize=10)', False), ('fig.suptitle("t", fontsize=11)', False),
    ("rng.integers(0, 5, size=8)", False), ('ax.legend(fontsize="large")', False)])
def test_the_check_sees_small_text(tmp_path, line, small):
    path = tmp_path / "x.ipynb"
    path.write_text(json.dumps({"cells": [{"cell_type": "code", "source": [line]}]}))
    assert bool(small_text(path)) is small


@pytest.mark.parametrize("source, points", [
    ("ax.tick_params(labelsize=8)", 8.0), ('ax.legend(fontsize="small")', BASE_PT * 0.833),
    ('plt.rcParams["font.size"] = 7', 7.0), ('plt.rcParams.update({"font.size": 9})', 9.0),
    ('ax.set_title("t", fontsize=11)\nax.text(0, 0, "a", size=9.5)', 9.5),
    ('fig.suptitle("t", fontsize=12)', BASE_PT), ("rng.integers(0, 5, size=3)", BASE_PT)])
def test_smallest_text_of_a_cell(source, points):
    # what the browser test takes as the figure's smallest text
    assert figure_text.smallest_text_pt(source) == pytest.approx(points, abs=0.01)


def test_figures_are_found_by_the_name_of_their_png(tmp_path):
    # myst-nb names a notebook's image after the SHA-256 of its bytes: the browser test finds
    # the cell that drew a figure on the page by that name
    import base64
    import hashlib
    import io

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(2, 1))
    ax.plot([0, 1])
    png = io.BytesIO()
    fig.savefig(png, format="png")
    plt.close(fig)
    source = "ax.tick_params(labelsize=7)"
    notebook = {"cells": [
        {"cell_type": "markdown", "source": ["text"]},
        {"cell_type": "code", "source": [source], "outputs": [
            {"output_type": "display_data",
             "data": {"image/png": base64.b64encode(png.getvalue()).decode()}}]}]}
    path = tmp_path / "x.ipynb"
    path.write_text(json.dumps(notebook))
    cells = figure_text.figure_cells([path])
    assert cells == {hashlib.sha256(png.getvalue()).hexdigest(): source}
    assert figure_text.smallest_text_pt(cells.popitem()[1]) == 7.0
