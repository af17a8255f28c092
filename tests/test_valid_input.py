"""Valid input is accepted (issue 22, point 9, the evaluate half).

What ``evaluate`` returns can be fed back in, on every backend and across
backends (the user ids of its results: int64, uint64, exact Python ints, Polars
Int128, Arrow decimal128(20, 0), strings); empty tables without dtypes give
empty results, also next to a Dask table; and ``relevance_level=0``, which
trec_eval accepts (``-l 0``: every judged document relevant), gives trec_eval's
values (checked against the binary).
"""

import os
import pathlib
import subprocess

import numpy as np
import pandas as pd
import pytest

from metrics_lib import evaluate

ROOT = pathlib.Path(__file__).resolve().parents[1]
TREC_EVAL = pathlib.Path(os.environ.get("TREC_EVAL", ROOT / "_build" / "trec_eval" / "trec_eval"))
pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")

# user ids of every kind a result carries: int64, uint64, negative with >= 2**63
# (Python ints in pandas, Int128 in Polars, decimal128(20, 0) in Arrow), strings
USER_SETS = {
    "int64": [3, 1, 2],
    "uint64": [2**63 + 7, 5, 2**64 - 1],
    "wide": [-4, 2**63 + 1, 9],
    "str": ["b", "a", "c"],
}


def pandas_tables(users):
    """Two users with lists, the third judged only (it comes back scored 0)."""
    series = pd.Series(users, dtype=object)
    if all(isinstance(user, int) for user in users):
        series = pd.Series(users, dtype=object).infer_objects()
        if series.dtype == object:
            series = pd.Series(users, dtype=object)
    recs = pd.DataFrame({"user": series[[0, 0, 1]].to_numpy(), "item": [1, 2, 1],
                         "score": [0.9, 0.5, 0.7]})
    truth = pd.DataFrame({"user": series[[0, 1, 2]].to_numpy(), "item": [2, 1, 1],
                          "relevance": [1, 2, 1]})
    return recs, truth


def as_backend(frame, backend):
    if backend == "polars":
        return pl.DataFrame({name: frame[name].tolist() for name in frame.columns},
                            schema_overrides=_polars_schema(frame))
    if backend == "arrow":
        return pa.Table.from_pydict({name: _arrow_array(frame[name])
                                     for name in frame.columns})
    return frame


def _polars_schema(frame):
    schema = {}
    for name in frame.columns:
        values = frame[name].tolist()
        if all(isinstance(v, int) for v in values) and values and (
                min(values) < 0 and max(values) >= 2**63):
            schema[name] = pl.Int128
        elif all(isinstance(v, int) for v in values) and values and max(values) >= 2**63:
            schema[name] = pl.UInt64
        else:
            schema[name] = None
    return {k: v for k, v in schema.items() if v is not None} or None


def _arrow_array(series):
    values = series.tolist()
    if all(isinstance(v, int) for v in values) and values and max(values) >= 2**63:
        if min(values) < 0:
            from decimal import Decimal
            return pa.array([Decimal(v) for v in values], type=pa.decimal128(20, 0))
        return pa.array(values, type=pa.uint64())
    return pa.array(values)


def result_users(result, backend):
    """The user ids of a result, as the library gives them."""
    if backend == "pandas":
        return result.index.to_series(index=range(len(result))).rename("user")
    return result["user"]


def rebuild(users, backend):
    """Tables made of a result's own user column: every user judged and listed."""
    n = len(users)
    if backend == "polars":
        return (pl.DataFrame({"user": users, "item": [1] * n, "score": [1.0] * n}),
                pl.DataFrame({"user": users, "item": [1] * n, "relevance": [1] * n}))
    if backend == "arrow":
        return (pa.table({"user": users, "item": [1] * n, "score": [1.0] * n}),
                pa.table({"user": users, "item": [1] * n, "relevance": [1] * n}))
    return (pd.DataFrame({"user": users.to_numpy(), "item": 1, "score": 1.0}),
            pd.DataFrame({"user": users.to_numpy(), "item": 1, "relevance": 1}))


def plain_ids(users):
    values = users.to_pylist() if hasattr(users, "to_pylist") else list(users)
    return sorted(int(v) if not isinstance(v, str) else v for v in values)


@pytest.mark.parametrize("backend", ["pandas", "polars", "arrow"])
@pytest.mark.parametrize("kind", sorted(USER_SETS))
def test_a_results_user_ids_can_be_fed_back(backend, kind):
    recs, truth = pandas_tables(USER_SETS[kind])
    first = evaluate(as_backend(recs, backend), as_backend(truth, backend), ["mrr"],
                     missing="zero")
    users = result_users(first, backend)
    again = evaluate(*rebuild(users, backend), ["mrr"], missing="skip")
    assert plain_ids(result_users(again, backend)) == plain_ids(users)
    assert plain_ids(users) == sorted(USER_SETS[kind], key=lambda v: v)
    assert list(np.asarray(again["mrr"])) == [1.0] * 3


@pytest.mark.parametrize("kind", sorted(USER_SETS))
def test_an_arrow_result_goes_to_pandas_and_polars(kind):
    recs, truth = pandas_tables(USER_SETS[kind])
    result = evaluate(as_backend(recs, "arrow"), as_backend(truth, "arrow"), ["mrr"],
                      missing="zero")
    expected = evaluate(recs, truth, ["mrr"], missing="zero")
    # to_pandas: decimal128(20, 0) ids become decimal.Decimal objects
    frame = result.to_pandas()
    back = evaluate(frame.assign(item=1, score=1.0), frame.assign(item=1, relevance=1),
                    ["mrr"], missing="skip")
    assert plain_ids(back.index) == plain_ids(expected.index)
    polars_frame = pl.from_arrow(result)
    back = evaluate(polars_frame.with_columns(item=pl.lit(1), score=pl.lit(1.0)),
                    polars_frame.with_columns(item=pl.lit(1), relevance=pl.lit(1)),
                    ["mrr"], missing="skip")
    assert plain_ids(back["user"]) == plain_ids(expected.index)


def test_fractional_decimal_ids_are_still_refused():
    from decimal import Decimal
    ids = pa.array([Decimal("1.5"), Decimal("2")], type=pa.decimal128(5, 1))
    recs = pa.table({"user": ids, "item": [1, 1], "score": [1.0, 1.0]})
    truth = pa.table({"user": ids, "item": [1, 1], "relevance": [1, 1]})
    with pytest.raises(TypeError, match="float ids"):
        evaluate(recs, truth, ["mrr"])
    with pytest.raises(TypeError, match="float ids"):
        evaluate(recs.to_pandas(), truth.to_pandas(), ["mrr"])


def test_the_dask_results_user_ids_can_be_fed_back():
    dd = pytest.importorskip("dask.dataframe")
    recs, truth = pandas_tables(USER_SETS["uint64"])
    first = evaluate(dd.from_pandas(recs.astype({"user": "uint64"}), npartitions=2),
                     truth.astype({"user": "uint64"}), ["mrr"], missing="zero").compute()
    users = first.index.to_numpy()
    again = evaluate(dd.from_pandas(pd.DataFrame({"user": users, "item": 1, "score": 1.0}),
                                    npartitions=2),
                     pd.DataFrame({"user": users, "item": 1, "relevance": 1}), ["mrr"],
                     missing="skip").compute()
    assert sorted(again.index.tolist()) == sorted(users.tolist())


EMPTY_RECS = ["user", "item", "score"]
EMPTY_TRUTH = ["user", "item", "relevance"]


@pytest.mark.parametrize("backend", ["pandas", "polars", "arrow"])
def test_empty_tables_without_dtypes(backend):
    recs, truth = pandas_tables(USER_SETS["int64"])
    # Polars' table without dtypes has Null columns (pl.from_pandas would make
    # the empty object columns String); Arrow's from_pandas gives null columns
    convert = {"pandas": lambda f: f,
               "polars": lambda f: (pl.from_pandas(f) if len(f) else
                                    pl.DataFrame({name: [] for name in f.columns})),
               "arrow": pa.Table.from_pandas}[backend]
    empty_recs, empty_truth = (convert(pd.DataFrame(columns=EMPTY_RECS)),
                               convert(pd.DataFrame(columns=EMPTY_TRUTH)))
    metrics = ["ndcg@3", "map", "bpref"]
    only_truth = evaluate(empty_recs, convert(truth), metrics, missing="zero")
    assert len(only_truth) == 3
    assert float(np.asarray(only_truth["map"]).sum()) == 0.0
    assert len(evaluate(convert(recs), empty_truth, metrics)) == 0
    assert len(evaluate(empty_recs, empty_truth, metrics)) == 0


def test_empty_tables_built_from_empty_lists():
    # pd.DataFrame({"user": [], ...}) gives float64 columns (pandas 3): an empty
    # float id column has no values, so no kind; it must not be refused as floats
    recs, truth = pandas_tables(USER_SETS["int64"])
    empty_recs = pd.DataFrame({name: [] for name in EMPTY_RECS})
    empty_truth = pd.DataFrame({name: [] for name in EMPTY_TRUTH})
    assert empty_recs["user"].dtype.kind == "f" or empty_recs["user"].dtype == object
    metrics = ["ndcg@3", "map", "bpref"]
    assert len(evaluate(empty_recs, empty_truth, metrics)) == 0
    only_truth = evaluate(empty_recs, truth, metrics, missing="zero")
    assert len(only_truth) == 3 and float(only_truth["map"].sum()) == 0.0
    assert len(evaluate(recs, empty_truth, metrics)) == 0
    # float ids with values are still refused
    with pytest.raises(TypeError, match="floats"):
        evaluate(recs.astype({"user": "float64"}), truth, metrics)


def test_empty_pandas_tables_next_to_dask_tables():
    dd = pytest.importorskip("dask.dataframe")
    recs, truth = pandas_tables(USER_SETS["int64"])
    recs, truth = recs.astype({"user": "int64"}), truth.astype({"user": "int64"})
    out = evaluate(pd.DataFrame(columns=EMPTY_RECS), dd.from_pandas(truth, npartitions=2),
                   ["mrr"], missing="zero").compute()
    assert sorted(out.index.tolist()) == [1, 2, 3] and (out["mrr"] == 0).all()
    out = evaluate(dd.from_pandas(recs, npartitions=2), pd.DataFrame(columns=EMPTY_TRUTH),
                   ["mrr"]).compute()
    assert len(out) == 0


def test_a_pandas_table_of_python_int_ids_next_to_a_dask_table():
    dd = pytest.importorskip("dask.dataframe")
    recs, truth = pandas_tables(USER_SETS["int64"])
    truth = truth.astype({"user": object, "item": object})   # Python ints
    assert truth["user"].dtype == object
    expected = evaluate(recs, truth, ["mrr", "ndcg@3"], missing="zero")
    got = evaluate(dd.from_pandas(recs.astype({"user": "int64"}), npartitions=2),
                   truth, ["mrr", "ndcg@3"], missing="zero").compute().sort_index()
    pd.testing.assert_frame_equal(got, expected, check_index_type=False)


# -- relevance_level: every value trec_eval's -l accepts with a meaning -------

BINARY = {"P.5": ("P_5", "precision@5"), "recall.5": ("recall_5", "recall@5"),
          "map": ("map", "map"), "recip_rank": ("recip_rank", "mrr"),
          "Rprec": ("Rprec", "rprec"), "bpref": ("bpref", "bpref"),
          "success.5": ("success_5", "hit@5"), "num_rel_ret": ("num_rel_ret", "num_rel_ret"),
          "num_rel": ("num_rel", "num_rel"), "map_cut.5": ("map_cut_5", "map@5"),
          "iprec_at_recall.0.50": ("iprec_at_recall_0.50", "iprec_at_recall_0.50"),
          "ndcg_cut.5": ("ndcg_cut_5", "ndcg@5")}


def graded_tables(seed):
    rng = np.random.default_rng(seed)
    recs = pd.DataFrame([(u, i, float(rng.integers(0, 4)) + float(rng.random()))
                         for u in range(10)
                         for i in rng.choice(30, size=rng.integers(1, 10), replace=False)],
                        columns=["user", "item", "score"])
    truth = pd.DataFrame([(u, i, int(rng.integers(0, 3)))
                          for u in range(10)
                          for i in rng.choice(30, size=rng.integers(1, 8), replace=False)],
                         columns=["user", "item", "relevance"])
    return recs, truth


def binary_values(tmp_path, recs, truth, level):
    if not TREC_EVAL.is_file():
        pytest.skip("the trec_eval binary is not built (make trec_eval)")
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("".join(f"{u} 0 {i} {g}\n" for u, i, g in truth.itertuples(index=False)))
    run.write_text("".join(f"{u} Q0 {i} 0 {s!r} r\n" for u, i, s in recs.itertuples(index=False)))
    args = [str(TREC_EVAL), "-q", "-l", str(level)]
    for measure in BINARY:
        args += ["-m", measure]
    out = subprocess.run(args + [str(qrels), str(run)], capture_output=True, text=True,
                         check=True).stdout
    values = {}
    for line in out.splitlines():
        measure, user, value = line.split()
        if user != "all":
            values[(measure, int(user))] = float(value)
    return values


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("ties", ["item_desc", "best", "worst"])
def test_relevance_level_zero_is_trec_eval_l_0(tmp_path, seed, ties):
    recs, truth = graded_tables(seed)
    reference = binary_values(tmp_path, recs, truth, 0)
    ours = evaluate(recs, truth, [name for _, name in BINARY.values()],
                    relevance_level=0, ties=ties, missing="zero")
    for printed, name in BINARY.values():
        for user, value in ours[name].items():
            assert value == pytest.approx(reference[(printed, user)], abs=5e-5), (
                printed, user)


def test_relevance_level_zero_on_polars_and_with_scores_at_a_threshold():
    recs, truth = graded_tables(3)
    names = ["precision@5", "map", "ndcg@5", "bpref"]
    expected = evaluate(recs, truth, names, relevance_level=0, missing="zero")
    got = evaluate(pl.from_pandas(recs), pl.from_pandas(truth), names, relevance_level=0,
                   missing="zero")
    np.testing.assert_array_equal(got.select(names).to_numpy(), expected.to_numpy())
    # a row at or below score_threshold is no hit, whatever the level
    cut = evaluate(recs, truth, ["precision@5"], relevance_level=0, missing="zero",
                   score_threshold=float(recs["score"].max()) + 1)
    assert (cut["precision@5"] == 0).all()


def test_relevance_level_fractional_and_negative():
    recs, truth = graded_tables(4)
    names = ["precision@5", "map", "mrr"]
    np.testing.assert_array_equal(
        evaluate(recs, truth, names, relevance_level=1.5, missing="zero").to_numpy(),
        evaluate(recs, truth, names, relevance_level=2, missing="zero").to_numpy())
    with pytest.raises(ValueError, match=r"relevance_level must be >= 0; got -1 "):
        evaluate(recs, truth, names, relevance_level=-1)
