"""Error messages say what the user knows (issue 22, point 8).

- numpy scalars reach many checks (a value taken from an array, a grade
  from a Series); numpy 2 writes them as ``np.float64(-1.0)``, and a
  message must show ``-1.0``;
- a missing column names the keyword that fixes it (``user_col=``);
- an unknown metric name gets the closest valid names;
- a dtype refused in a Polars or Arrow table is named as that library
  names it (``Polars String``, ``pyarrow large_string``), not as the pandas
  copy the checks see (``object``, ``bool``).
"""

from __future__ import annotations

import ast
import pathlib
import re

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import metrics_lib as ml
from metrics_lib import _validation

NUMPY_REPR = re.compile(r"\b(?:np|numpy)\.[A-Za-z_][\w.]*\(")
PACKAGE = pathlib.Path(ml.__file__).parent


def message_of(call) -> str:
    with pytest.raises((TypeError, ValueError)) as error:
        call()
    return str(error.value)


def _recs():
    return pd.DataFrame({"user": [1, 1, 2], "item": [10, 11, 10],
                         "score": [0.9, 0.5, 0.7]})


def _truth():
    return pd.DataFrame({"user": [1, 2], "item": [10, 10], "relevance": [1, 2]})


f64, i64 = np.float64, np.int64
# (call, text the message shows for the numpy value)
NUMPY_INPUTS = {
    "negative grade": (lambda: ml.ndcg_at_k([1, 2], {1: f64(-1.0)}), "-1.0"),
    "non-finite grade": (lambda: ml.ndcg_at_k([1, 2], {1: f64(np.inf)}), "inf"),
    "grade as a bool": (lambda: ml.dcg_at_k([1], {1: np.bool_(True)}), "True"),
    "k as a float": (lambda: ml.precision_at_k([1, 2], [1], k=f64(2.0)), "2.0"),
    "relevance_level": (lambda: ml.recall_at_k([1], [1], relevance_level=f64(-1.0)),
                        "-1.0"),
    "log_base": (lambda: ml.dcg_at_k([1], [1], log_base=f64(-2.0)), "-2.0"),
    "confidence": (lambda: ml.click_through_rate(3, 10, confidence=f64(1.5)), "1.5"),
    "seed": (lambda: ml.team_draft_interleave([1], [2], seed=f64(1.0)), "1.0"),
    "target": (lambda: ml.rank_with_ties([0.1, 0.2], f64(1.0)), "1.0"),
    "ranks below 1": (lambda: ml.mean_rank(np.array([0.5, 2.0])), "0.5"),
    "teams": (lambda: ml.interleaving_credit(np.array(["A", "C"]), [1, 0]), "'C'"),
    "novelty base": (lambda: ml.novelty([[1]], [(0, 1)], base=f64(1.0)), "1.0"),
    "recall level": (lambda: ml.interpolated_precision([1], [1], recall_levels=[1.5]),
                     "1.5"),
    "negative AP": (lambda: ml.floored_geometric_mean(np.array([-0.5, 0.2])), "-0.5"),
    "identical pairs": (lambda: ml.paired_t_test(np.array([1.0, 2.0]),
                                                 np.array([0.5, 1.5])), "0.5"),
    "ratio metric": (lambda: ml.ratio_metric(np.array([1.0, 2.0]), np.array([-1.0, 1.0])),
                     "-1.0"),
    "boundaries": (lambda: ml.group_sequential_boundaries(np.array([0.5, 1.5])), "1.5"),
    "expected ratios": (lambda: ml.sample_ratio_mismatch([10, 10], [f64(-1.0), 1.0]),
                        "-1.0"),
    "mde": (lambda: ml.power_two_proportions(f64(0.5), f64(0.0), 100), "0.0"),
    "slate clicks": (lambda: ml.slate_ips_estimate(
        np.array([[2.0]]), [[0]], np.full((1, 1), 0.5),
        np.full((1, 2, 1), 0.5)), "2.0"),
    "world seed": (lambda: ml.simulate_world(seed=f64(1.0)), "1.0"),
    "metric name": (lambda: ml.parse_metric(np.array(["ndcg@1O"])[0]), "'ndcg@1O'"),
    "metric name not a string": (lambda: ml.parse_metric(f64(3.0)), "3.0"),
    "convention metric": (lambda: ml.evaluate(_recs(), _truth(), [np.str_("xyz@3")],
                                              convention="ranx"), "'xyz@3'"),
    "grade column": (lambda: ml.evaluate(_recs(), _truth().assign(relevance=[-1, 2]),
                                         ["mrr"]), "-1"),
    "duplicate id": (lambda: ml.precision_at_k(np.array([3, 3]), [3]), "3"),
    "catalog": (lambda: ml.catalog_coverage([np.array([5])], catalog=i64(3)), "5"),
    "similarity": (lambda: ml.intra_list_diversity(
        [[0, 1]], similarity=lambda a, b: f64(np.nan)), "nan"),
}


@pytest.mark.parametrize("case", sorted(NUMPY_INPUTS))
def test_numpy_scalars_are_shown_as_python_values(case):
    call, shown = NUMPY_INPUTS[case]
    message = message_of(call)
    assert not NUMPY_REPR.search(message), message
    assert shown in message, message


def test_show():
    show = _validation.show
    assert show(np.float64(-1.0)) == "-1.0"
    assert show(np.int64(2)) == "2"
    assert show(np.str_("a")) == "'a'"
    assert show((np.int64(1), 2)) == "(1, 2)" and show((np.int64(1),)) == "(1,)"
    assert show([np.float32(0.5), "x"]) == "[0.5, 'x']"
    assert show("user") == "'user'" and show(None) == "None"


def test_no_raise_formats_a_value_with_repr():
    """Every ``!r`` in a raised message goes through ``show`` (one place),
    except in modules whose values are text read from files or internal names."""
    allowed = {"trec.py", "_kernels.py", "_trec_kernels.py"}
    found = []
    for path in sorted(PACKAGE.glob("*.py")):
        if path.name in allowed:
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Raise):
                for inner in ast.walk(node):
                    if isinstance(inner, ast.FormattedValue) and inner.conversion == ord("r"):
                        found.append(f"{path.name}:{inner.lineno}")
    assert not found, found


# -- missing columns name their keyword ----------------------------------------

def _native(frame, backend):
    if backend == "polars":
        return pl.from_pandas(frame)
    if backend == "polars-lazy":
        return pl.from_pandas(frame).lazy()
    if backend == "arrow":
        return pa.Table.from_pandas(frame, preserve_index=False)
    if backend == "dask":
        dd = pytest.importorskip("dask.dataframe")
        return dd.from_pandas(frame, npartitions=1)
    return frame


BACKENDS = ["pandas", "polars", "polars-lazy", "arrow", "dask"]
MISSING = [  # (table, column renamed away, keyword, extra evaluate keywords)
    ("recs", "user", "user_col", {}),
    ("truth", "user", "user_col", {}),
    ("recs", "item", "item_col", {}),
    ("truth", "item", "item_col", {}),
    ("recs", "score", "score_col", {}),
    ("recs", "rank", "rank_col", {"rank_col": "rank"}),
    ("truth", "relevance", "relevance_col", {}),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("table, column, keyword, extra", MISSING)
def test_a_missing_column_names_its_keyword(backend, table, column, keyword, extra):
    recs, truth = _recs().assign(rank=[1, 2, 1]), _truth()
    if table == "recs":
        recs = recs.drop(columns=column)
    else:
        truth = truth.drop(columns=column)
    message = message_of(lambda: ml.evaluate(_native(recs, backend), _native(truth, backend),
                                             ["mrr"], **extra))
    assert f"no column '{column}'" in message
    assert f"{keyword}=" in message, message


# -- unknown metrics get the closest names -------------------------------------

@pytest.mark.parametrize("name, closest", [("ndcg@1O", "ndcg@10"),
                                           ("presicion@5", "precision@5"),
                                           ("mapp", "map"),
                                           ("P_1O", "p@10"),
                                           ("recal@10", "recall@10")])
def test_an_unknown_metric_gets_the_closest_names(name, closest):
    for call in (lambda: ml.parse_metric(name),
                 lambda: ml.evaluate(_recs(), _truth(), ["mrr", name])):
        message = message_of(call)
        assert f"unknown metric '{name}'" in message
        suggested = re.search(r"did you mean (.*?)\?", message)
        assert suggested and f"'{closest}'" in suggested.group(1), message


@pytest.mark.parametrize("peer, name, closest", [("ranx", "ndgc@10", "ndcg@10"),
                                                 ("recommenders", "mapp", "map"),
                                                 ("ranx", "presicion@5", "precision@5")])
def test_an_unknown_metric_of_a_convention_gets_the_closest_names(peer, name, closest):
    message = message_of(lambda: ml.evaluate(_recs(), _truth(), [name], convention=peer))
    suggested = re.search(r"did you mean (.*?)\?", message)
    assert suggested and f"'{closest}'" in suggested.group(1), message


# -- dtypes as each library names them -----------------------------------------

def _polars(column, dtype, table="recs"):
    frame = pl.from_pandas(_recs() if table == "recs" else _truth())
    return frame.with_columns(pl.col(column).cast(dtype))


def _arrow(column, kind, table="recs"):
    frame = pa.Table.from_pandas(_recs() if table == "recs" else _truth(),
                                 preserve_index=False)
    index = frame.column_names.index(column)
    values = frame.column(column)
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        values = pa.array([str(v) for v in values.to_pylist()], type=kind)
    else:
        values = values.cast(kind)
    return frame.set_column(index, column, values)


DTYPES = [  # (recommendations, truth, the dtype's name in the message)
    (lambda: _polars("score", pl.String), lambda: pl.from_pandas(_truth()), "Polars String"),
    (lambda: _polars("score", pl.Boolean), lambda: pl.from_pandas(_truth()),
     "Polars Boolean"),
    (lambda: _polars("item", pl.Float32), lambda: pl.from_pandas(_truth()), "Polars Float32"),
    (lambda: _polars("item", pl.Date), lambda: pl.from_pandas(_truth()), "Polars Date"),
    (lambda: pl.from_pandas(_recs()), lambda: _polars("relevance", pl.String, "truth"),
     "Polars String"),
    (lambda: _arrow("score", pa.large_string()), lambda: pa.Table.from_pandas(_truth()),
     "pyarrow large_string"),
    (lambda: _arrow("score", pa.bool_()), lambda: pa.Table.from_pandas(_truth()),
     "pyarrow bool"),
    (lambda: _arrow("item", pa.float64()), lambda: pa.Table.from_pandas(_truth()),
     "pyarrow double"),
    (lambda: pa.Table.from_pandas(_recs()), lambda: _arrow("relevance", pa.string(),
                                                            "truth"), "pyarrow string"),
]


@pytest.mark.parametrize("recs, truth, dtype", DTYPES,
                         ids=[f"{i}-{d}" for i, (_, _, d) in enumerate(DTYPES)])
def test_dtype_errors_name_the_tables_own_dtype(recs, truth, dtype):
    message = message_of(lambda: ml.evaluate(recs(), truth(), ["mrr"]))
    assert dtype in message, message
    assert "object" not in message
