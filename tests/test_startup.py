"""Start-up: ``import metrics_lib`` and the command line load only what they need.

Each check runs in a fresh interpreter (a subprocess), since this test
process has imported everything already. Issue 25, point 4.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("pandas", "scipy", "pyarrow", "narwhals", "polars", "dask",
         "metrics_lib.datasets", "metrics_lib.online", "metrics_lib.conventions",
         "metrics_lib.evaluate")


def _loaded_after(code: str, cwd=ROOT) -> list[str]:
    """The HEAVY modules in sys.modules after running ``code`` in a new interpreter."""
    probe = textwrap.dedent(code) + textwrap.dedent(f"""
        import json, sys
        print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))
        """)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", probe], cwd=cwd, env=env,
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_import_loads_nothing_heavy():
    assert _loaded_after("import metrics_lib") == []


def test_a_per_list_metric_does_not_load_scipy_or_the_data_sets():
    loaded = _loaded_after("""
        import metrics_lib as ml
        assert ml.ndcg_at_k([1, 2, 3], {1: 2, 3: 1}, k=3) > 0
        assert ml.parse_metric("ndcg_cut.10") == ("ndcg", 10)
        """)
    assert not {"scipy", "metrics_lib.datasets", "metrics_lib.online"} & set(loaded)


def test_names_load_on_first_use_and_stay_the_same_objects():
    loaded = _loaded_after("""
        import metrics_lib as ml
        from metrics_lib import evaluate, novelty, paired_t_test
        import metrics_lib.evaluate
        assert ml.evaluate is evaluate and callable(ml.evaluate)
        assert ml.beyond.novelty is novelty
        assert ml.online.paired_t_test is paired_t_test
        assert set(ml.__all__) <= set(dir(ml))
        for name in ml.__all__:
            assert getattr(ml, name) is not None, name
        namespace = {}
        exec("from metrics_lib import *", namespace)
        assert set(ml.__all__) <= set(namespace)
        try:
            ml.no_such_name
        except AttributeError as error:
            assert "no_such_name" in str(error)
        else:
            raise AssertionError("no AttributeError")
        """)
    assert "metrics_lib.datasets" in loaded  # every public name was read


def test_convention_keyword_works_without_an_earlier_evaluate():
    _loaded_after("""
        import metrics_lib as ml
        assert ml.precision_at_k([1, 2, 3], {1}, k=2, convention="ranx") == 0.5
        """)


def test_convention_keyword_works_after_importing_the_submodule_first():
    # the command line imports metrics_lib.evaluate (the module) before anyone
    # reads metrics_lib.evaluate (the function): the presets must be there
    _loaded_after("""
        import numpy as np
        import pandas as pd
        import metrics_lib.cli
        from metrics_lib import evaluate
        recs = pd.DataFrame({"user": [1, 1], "item": [1, 2], "score": [2.0, 1.0]})
        truth = pd.DataFrame({"user": [1], "item": [2], "relevance": [1]})
        frame = evaluate(recs, truth, ["mrr"], convention="ranx")
        assert frame["mrr"].tolist() == [0.5]
        """)


@pytest.fixture
def trec_pair(tmp_path):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n2 0 d1 2\n")
    run.write_text("1 Q0 d1 1 2.0 r\n1 Q0 d3 2 1.0 r\n2 Q0 d2 1 3.0 r\n")
    return qrels, run


def test_command_line_does_not_load_scipy_or_the_data_sets(trec_pair):
    loaded = _loaded_after(f"""
        from metrics_lib.cli import main
        assert main([{str(trec_pair[0])!r}, {str(trec_pair[1])!r}, "-q"]) == 0
        """)
    assert not {"scipy", "metrics_lib.datasets", "metrics_lib.online"} & set(loaded)


def test_command_line_does_not_load_pandas(trec_pair):
    # a plain file goes through metrics_lib.dropin, numpy only
    loaded = _loaded_after(f"""
        from metrics_lib.cli import main
        assert main([{str(trec_pair[0])!r}, {str(trec_pair[1])!r}]) == 0
        """)
    assert "pandas" not in loaded
