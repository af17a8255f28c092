"""book/api.md documents every public name of metrics_lib, and nothing else."""

import re
from pathlib import Path

import metrics_lib

ROOT = Path(__file__).resolve().parents[1]
API_PAGE = (ROOT / "book" / "api.md").read_text(encoding="utf-8")
DOCUMENTED = re.findall(r"^\.\. auto(?:function|class):: (\w+)\s*$", API_PAGE, flags=re.MULTILINE)


def test_every_public_name_is_on_the_api_page():
    missing = sorted(set(metrics_lib.__all__) - set(DOCUMENTED))
    assert not missing, f"add to book/api.md: {missing}"


def test_the_api_page_documents_only_public_names():
    extra = sorted(set(DOCUMENTED) - set(metrics_lib.__all__))
    assert not extra, f"not in metrics_lib.__all__: {extra}"


def test_each_name_once():
    repeated = sorted({name for name in DOCUMENTED if DOCUMENTED.count(name) > 1})
    assert not repeated


def test_the_api_page_is_in_the_table_of_contents():
    toc = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    assert re.search(r"^\s*- file: book/api\s*$", toc, flags=re.MULTILINE)
