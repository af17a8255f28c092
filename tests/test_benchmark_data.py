"""The benchmark results ship with the package and describe the current workload.

The chapter book/at_scale.ipynb reads them with importlib.resources (so that it
runs outside the repository) and takes the workload's shape from
environment.csv instead of importing benchmarks/. If benchmarks/workload.py
changes without a re-run of benchmarks/run_benchmark.py, the committed numbers
describe another workload: this test says so.
"""

import csv
import importlib.resources
import io
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = importlib.resources.files("metrics_lib") / "data" / "benchmarks"


def _rows(name):
    return list(csv.DictReader(io.StringIO((DATA / name).read_text(encoding="utf-8"))))


def _workload_constant(name):
    text = (ROOT / "benchmarks" / "workload.py").read_text(encoding="utf-8")
    return int(re.search(rf"^{name} = ([0-9_]+)", text, re.M).group(1).replace("_", ""))


def test_results_are_package_data():
    for name in ("comparison.csv", "scaling.csv", "environment.csv"):
        assert _rows(name), name
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"data/benchmarks/*.csv"' in pyproject


def test_environment_records_the_current_workload():
    env = {row["item"]: row["value"] for row in _rows("environment.csv")}
    assert int(env["workload_list_length"]) == _workload_constant("LIST_LENGTH")
    assert int(env["workload_max_relevant"]) == _workload_constant("MAX_RELEVANT")


def test_comparison_rows_match_the_workload():
    # users x list length recommendation rows: the chapter's "million rows"
    list_length = _workload_constant("LIST_LENGTH")
    for row in _rows("comparison.csv"):
        assert int(float(row["rows"])) >= int(row["users"]) * list_length, row["tool"]
