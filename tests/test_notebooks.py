"""Checks on the committed notebooks that nbval itself does not make.

nbval silently skips a code cell that was never executed (it has no stored
output to compare), so a notebook committed half-run would pass. These tests
close that gap and keep the table of contents and the book folder in sync.
"""

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "book").glob("*.ipynb"))


def code_cells(path):
    notebook = json.loads(path.read_text(encoding="utf-8"))
    return [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]


def test_there_are_notebooks():
    assert NOTEBOOKS, "no notebook found under book/"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_code_cell_ran_in_order(path):
    counts = [cell.get("execution_count") for cell in code_cells(path)]
    assert None not in counts, f"{path.name}: a code cell was never executed"
    assert counts == list(range(1, len(counts) + 1)), (
        f"{path.name}: cells were not executed top to bottom in one run: {counts}")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_errors_or_stderr_in_outputs(path):
    for index, cell in enumerate(code_cells(path)):
        for output in cell.get("outputs", []):
            assert output["output_type"] != "error", f"{path.name} cell {index}: error output"
            if output["output_type"] == "stream":
                assert output["name"] != "stderr", (
                    f"{path.name} cell {index}: text on stderr: {''.join(output['text'])[:200]}")


def _toc_files():
    text = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    active = [line.split("#")[0] for line in text.splitlines()]
    return {match for line in active for match in re.findall(r"file:\s*(\S+)", line)}


def test_every_notebook_is_in_the_toc():
    listed = _toc_files()
    missing = [p.name for p in NOTEBOOKS if f"book/{p.stem}" not in listed]
    assert not missing, f"notebooks not in _toc.yml (they would not be built): {missing}"


def test_every_toc_entry_exists():
    for entry in _toc_files():
        candidates = [ROOT / f"{entry}{suffix}" for suffix in (".ipynb", ".md")]
        assert any(c.exists() for c in candidates), f"_toc.yml lists a missing file: {entry}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_execution_timestamps(path):
    """Timestamps in cell metadata change on every run (tools/clean_notebooks.py strips them)."""
    stamped = [index for index, cell in enumerate(code_cells(path))
               if "execution" in cell.get("metadata", {})]
    assert not stamped, f"{path.name}: cells {stamped} carry execution timestamps"


# Tags that hide a code cell's source from the reader of the book.
HIDDEN_SOURCE = {"remove-cell", "remove-input", "hide-input", "hide-cell"}


@pytest.mark.parametrize("path", sorted(Path(__file__).resolve().parents[1].glob("book/*.ipynb")),
                         ids=lambda p: p.stem)
def test_visible_code_is_teaching_code(path):
    """``glue(...)`` is book plumbing: it lives in cells the reader does not see."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    visible = [i for i, cell in enumerate(notebook["cells"])
               if cell["cell_type"] == "code"
               and not HIDDEN_SOURCE & set(cell["metadata"].get("tags", []))
               and "glue(" in "".join(cell["source"])]
    assert not visible, f"{path.name}: glue() in visible code cells {visible}; move it to a " \
        "cell tagged remove-cell"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_cell_has_its_own_id(path):
    """nbformat 4.5 gives each cell an id; a cell moved by hand or by a script can
    lose it (comparing_systems' Summary did), which Jupyter then invents anew on
    every save, and the launch notebooks differ from the build each time."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    if (notebook["nbformat"], notebook["nbformat_minor"]) < (4, 5):
        pytest.skip(f"{path.name}: nbformat before 4.5 has no cell ids")
    ids = [cell.get("id") for cell in notebook["cells"]]
    missing = [index for index, cell_id in enumerate(ids) if not cell_id]
    assert not missing, f"{path.name}: cells {missing} have no id"
    assert len(set(ids)) == len(ids), f"{path.name}: repeated cell ids"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_exercises_come_before_the_summary(path):
    """The chapters end alike: exercises, then the summary (comparing_systems and
    user_models had them the other way round when they were written)."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    headings = [line.strip() for cell in notebook["cells"] if cell["cell_type"] == "markdown"
                for line in "".join(cell["source"]).splitlines() if line.startswith("## ")]
    if "## Exercises" in headings and "## Summary" in headings:
        assert headings.index("## Exercises") < headings.index("## Summary"), headings
