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


def test_the_api_page_shows_the_metric_registry():
    # the table of metric names is built from the registry at build time
    # (_ext/metric_table.py): every registered metric is a row of it
    import sys

    from metrics_lib.ranking import registry

    assert re.search(r"^```\{metric-table\}\s*$", API_PAGE, flags=re.MULTILINE)
    config = (ROOT / "_config.yml").read_text(encoding="utf-8")
    assert re.search(r"^\s*metric_table: _ext\s*$", config, flags=re.MULTILINE)
    sys.path.insert(0, str(ROOT / "_ext"))
    try:
        import metric_table
    finally:
        sys.path.remove(str(ROOT / "_ext"))
    names = [metric_table._cells(metric)[0][0].astext() for metric in registry.metrics()]
    assert names == [metric.aliases[0] for metric in registry.metrics()]
    assert {"precision", "mrr", "map", "ndcg", "bpref", "num_rel_ret"} <= set(names)
