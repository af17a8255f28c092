"""The bibliography parses, and every key the book cites is in it.

A merge that leaves a brace out of ``book/references.bib`` passes every notebook
test (nbval does not read the file) and only fails the book build much later;
this test fails at once and names the key.
"""

import re
from pathlib import Path

import pytest

pybtex = pytest.importorskip("pybtex.database")

BOOK = Path(__file__).resolve().parents[1] / "book"
CITE = re.compile(r"\{cite(?::[a-z]+)?\}`([^`]+)`")


def _entries():
    return pybtex.parse_file(str(BOOK / "references.bib")).entries


def test_bibliography_parses_with_unique_keys():
    text = (BOOK / "references.bib").read_text(encoding="utf-8")
    declared = re.findall(r"^@\w+\{([^,\s]+),", text, flags=re.M)
    assert len(declared) == len(set(declared)), "a key is declared twice"
    assert sorted(_entries()) == sorted(declared)


def test_every_cited_key_is_in_the_bibliography():
    known = set(_entries())
    missing = []
    for path in sorted(BOOK.glob("*.ipynb")) + sorted(BOOK.glob("*.md")):
        for keys in CITE.findall(path.read_text(encoding="utf-8")):
            missing += [f"{path.name}: {key.strip()}" for key in keys.split(",")
                        if key.strip() not in known]
    assert not missing, "cited but not in references.bib:\n" + "\n".join(missing)
