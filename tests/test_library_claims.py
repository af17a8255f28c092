"""Every statement about another library says where that library's code says so.

A markdown cell of a chapter that names a peer library (trec_eval, ranx,
scikit-learn, Microsoft Recommenders, RecBole, torchmetrics, ...) must either
carry a source comment naming the file it was checked against, e.g.

    <!-- source: ranx 0.3.20, ranx/metrics/hits.py, hits() -->

(an HTML comment: invisible to readers, kept in the notebook), or point the
reader to the conventions appendix, whose cells carry those comments
themselves. A source comment names a version and a path with a slash.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parents[1] / "book"

PEERS = re.compile(
    r"trec_eval|pytrec_eval|\branx\b|scikit-learn|sklearn|Microsoft Recommenders|"
    r"\bRecommenders'|RecBole|torchmetrics|ir-measures|ir_measures|RecTools|"
    r"\bElliot\b|recmetrics|LensKit|\bNGCF\b|llama_index|Open Bandit|\bobp\b")
SOURCE = re.compile(r"<!--\s*source:[^>]*?\d[^>]*?\b[\w.-]+/[\w./-]+[^>]*-->", re.S)
TO_APPENDIX = re.compile(r"\{doc\}`(?:[^`<]*<)?conventions>?`|\{ref\}`conv[\w-]*`")

CHAPTERS = sorted(BOOK.glob("*.ipynb"))


def _cells(path):
    notebook = json.loads(path.read_text(encoding="utf-8"))
    for index, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] == "markdown":
            yield index, "".join(cell["source"])


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_library_claims_cite_their_source(path):
    appendix = path.stem == "conventions"
    missing = []
    for index, text in _cells(path):
        visible = re.sub(r"<!--.*?-->", " ", text, flags=re.S)
        if not PEERS.search(visible):
            continue
        if SOURCE.search(text) or (not appendix and TO_APPENDIX.search(text)):
            continue
        first = PEERS.search(visible)
        context = visible[max(first.start() - 40, 0):first.end() + 60].replace("\n", " ")
        missing.append(f"cell {index}: ...{context}...")
    assert not missing, (
        f"{path.name}: cells that name another library without a source comment "
        "(<!-- source: <library> <version>, <path/in/repo>, <function> -->) or a "
        "link to the conventions appendix:\n" + "\n".join(missing))


@pytest.mark.parametrize("text, ok", [
    ("ranx counts hits <!-- source: ranx 0.3.20, ranx/metrics/hits.py, hits() -->", True),
    ("ranx counts hits <!-- source: ranx docs -->", False),
    ("ranx counts hits, see {doc}`conventions`", True),
    ("no library named here", True),
])
def test_rule(text, ok):
    visible = re.sub(r"<!--.*?-->", " ", text, flags=re.S)
    passes = (not PEERS.search(visible) or bool(SOURCE.search(text))
              or bool(TO_APPENDIX.search(text)))
    assert passes == ok
