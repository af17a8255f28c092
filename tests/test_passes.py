"""Whole-column passes in pieces (``metrics_lib._passes``) and judged-user runs.

The passes must equal the one-expression numpy forms they replace, on every
piece boundary; evaluate must give trec_eval's values when its columns span
many pieces and its judgements are coded as runs and split into many chunks.
Real columns are only cut into pieces above 131,072 rows, so the tests make
the pieces tiny.
"""

import importlib

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings

from metrics_lib import _passes, evaluate
from test_differential import METRICS, assert_same, by_text, make_tables, tables, trec_reference

chunks_module = importlib.import_module("metrics_lib.batch.chunks")
users_module = importlib.import_module("metrics_lib.batch.users")


@pytest.fixture
def tiny_pieces(monkeypatch):
    monkeypatch.setattr(_passes, "PIECE", 3)


def columns(seed):
    rng = np.random.default_rng(seed)
    for size in (1, 2, 3, 4, 5, 6, 7, 10, 31):
        yield rng.integers(-3, 4, size=size).astype(np.int64)
        yield rng.integers(0, 3, size=size).astype(np.uint64)
        values = rng.integers(-2, 3, size=size) / 2
        yield values
        for special in (np.nan, np.inf, -np.inf):
            spoiled = values.copy()
            spoiled[rng.integers(size)] = special
            yield spoiled


@pytest.mark.parametrize("seed", range(6))
def test_min_max_equals_min_and_max(seed, tiny_pieces):
    for values in columns(seed):
        low, high = _passes.min_max(values)
        np.testing.assert_equal([low, high], [values.min(), values.max()])


@pytest.mark.parametrize("seed", range(6))
def test_neighbours_where_equals_flatnonzero(seed, tiny_pieces):
    rng = np.random.default_rng(seed)
    for values in columns(seed):
        for compare in (np.not_equal, np.less_equal, np.greater_equal, np.greater,
                        np.equal):
            expected = np.flatnonzero(compare(values[:-1], values[1:]))
            np.testing.assert_array_equal(_passes.neighbours_where(values, compare),
                                          expected)
            if values.size < 2:
                continue
            skip = np.flatnonzero(rng.random(values.size - 1) < 0.4)
            np.testing.assert_array_equal(
                _passes.neighbours_where(values, compare, skip=skip),
                np.setdiff1d(expected, skip))


@pytest.mark.parametrize("seed", range(6))
def test_all_integral_equals_floor_comparison(seed, tiny_pieces):
    rng = np.random.default_rng(seed)
    for values in columns(seed):
        values = values.astype(np.float64)
        assert _passes.all_integral(values) == bool(np.all(values == np.floor(values)))
        values[rng.integers(values.size)] = 0.5
        assert not _passes.all_integral(values)


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(case=tables)
def test_tiny_pieces_and_chunks_equal_trec_eval(case, tiny_pieces, monkeypatch):
    monkeypatch.setattr(chunks_module, "_ROWS_PER_CHUNK", 4)
    seed, id_type, missing = case
    recs, truth = make_tables(seed, id_type)
    assert_same(by_text(evaluate(recs, truth, METRICS, missing=missing)),
                trec_reference(recs, truth, missing))


def judged_tables(seed, layout):
    """Lists of 8 and 6 to 12 judgements per user, so that judgements form runs."""
    rng = np.random.default_rng(seed)
    users = rng.permutation(np.arange(10, 70))
    recs, truth = [], []
    for user in users[:50]:
        items = rng.choice(40, size=8, replace=False)
        recs.append(pd.DataFrame({"user": user, "item": items,
                                  "score": rng.integers(0, 5, size=8) / 4}))
    for user in users:  # the last ten users are judged but never recommended
        judged = rng.choice(40, size=int(rng.integers(6, 13)), replace=False)
        truth.append(pd.DataFrame({"user": user, "item": judged,
                                   "relevance": rng.integers(0, 4, size=judged.size)}))
    recs = pd.concat(recs, ignore_index=True)
    truth = pd.concat(truth, ignore_index=True)
    if layout == "sorted":
        truth = truth.sort_values("user", kind="stable", ignore_index=True)
    elif layout == "two runs":  # one user's judgements split in two runs
        first = truth.index[truth["user"] == users[3]]
        truth = pd.concat([truth.drop(first[:3]), truth.loc[first[:3]]], ignore_index=True)
    elif layout == "shuffled":
        truth = truth.sample(frac=1.0, random_state=seed, ignore_index=True)
    return recs, truth


@pytest.mark.parametrize("layout", ["block order", "sorted", "two runs", "shuffled"])
@pytest.mark.parametrize("seed", range(4))
def test_judgement_runs_in_chunks_equal_one_chunk(seed, layout, monkeypatch):
    recs, truth = judged_tables(seed, layout)
    whole = evaluate(recs, truth, METRICS)
    runs = []
    code_runs = users_module._code_runs
    monkeypatch.setattr(users_module, "_code_runs",
                        lambda *a: runs.append(code_runs(*a)) or runs[-1])
    monkeypatch.setattr(chunks_module, "_ROWS_PER_CHUNK", 30)
    monkeypatch.setattr(_passes, "PIECE", 7)
    chunked = evaluate(recs, truth, METRICS)
    pd.testing.assert_frame_equal(chunked, whole, check_exact=True)
    assert (runs[0][0] is None) == (layout == "shuffled")  # runs unless shuffled
    # the per-list functions agree for every user
    for user, row in whole.iterrows():
        listed = recs[recs["user"] == user].sort_values("score", ascending=False,
                                                         kind="stable")
        judged = truth[truth["user"] == user]
        grades = dict(zip(judged["item"], judged["relevance"]))
        relevant = {item for item, grade in grades.items() if grade > 0}
        assert row["precision@10"] == pytest.approx(
            sum(item in relevant for item in listed["item"][:10]) / 10)
    # a judgement given twice names its user, found from the runs: a row inside a
    # run, the first row of the table and the first row of a later run
    run_start = int(np.flatnonzero(truth["user"].to_numpy()[1:]
                                   != truth["user"].to_numpy()[:-1])[4]) + 1
    for row in (len(truth) - 2, 0, run_start):
        twice = pd.concat([truth, truth.iloc[[row]]], ignore_index=True)
        with pytest.raises(ValueError, match=f"for user {truth['user'].iloc[row]};"):
            evaluate(recs, twice, METRICS)


GRADE_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                "float32", "Int64", "UInt8", "int64[pyarrow]", "int16[pyarrow]"]


@pytest.mark.parametrize("dtype", GRADE_DTYPES)
@pytest.mark.parametrize("chunked", [False, True])
def test_grade_dtypes_give_the_float_grade_values(dtype, chunked, monkeypatch):
    """Integer grades are kept as integers until each chunk converts its part."""
    if "pyarrow" in dtype:
        pytest.importorskip("pyarrow")
    recs, truth = judged_tables(5, "block order")
    truth["relevance"] = truth["relevance"] * 20  # grades above 64: the sorting ideal
    options = [{}, {"gain": "linear", "relevance_level": 40},
               {"gain": "binary"}, {"gain": {0: 0.0, 20: 1.0, 40: 3.0, 60: 7.0}}]
    expected = [evaluate(recs, truth.astype({"relevance": "float64"}), METRICS + ["dcg@5"],
                         **keywords) for keywords in options]
    if chunked:
        monkeypatch.setattr(chunks_module, "_ROWS_PER_CHUNK", 30)
        monkeypatch.setattr(_passes, "PIECE", 7)
    typed = truth.astype({"relevance": dtype})
    for keywords, want in zip(options, expected):
        got = evaluate(recs, typed, METRICS + ["dcg@5"], **keywords)
        pd.testing.assert_frame_equal(got, want, check_exact=True)
    small = truth.assign(relevance=truth["relevance"] // 20).astype({"relevance": dtype})
    pd.testing.assert_frame_equal(  # grades 0-3: the counting ideal
        evaluate(recs, small, METRICS),
        evaluate(recs, small.astype({"relevance": "float64"}), METRICS), check_exact=True)
    if not dtype.startswith("u") and not dtype.startswith("U"):
        negative = typed.copy()
        negative.loc[7, "relevance"] = -3
        with pytest.raises(ValueError, match=r"has the value -3\.0 at row 7"):
            evaluate(recs, negative, METRICS)
