"""evaluate on Polars (eager and lazy) and pyarrow tables: the pandas results and errors.

The cases of tests/test_differential.py (hypothesis tables: integer, negative,
64-bit, uint64 and string ids, ties, empty users, short lists; compared with
trec_eval through pytrec_eval) and of tests/test_dtypes.py (every id dtype
in both tables, missing ids, float ids, wide integer scores) run here on
each backend: the result must hold the same users and the same values, bit
for bit, as the pandas result for the same data, and bad input must raise
the same exception with the same message (rows are positions: the pandas
twins have the default index). Each backend's own dtypes are used
(Categorical and Enum in Polars, dictionary and string_view in Arrow, ...).
"""

import importlib
import re
import subprocess
import sys
import textwrap
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")

chunks_module = importlib.import_module("metrics_lib.batch.chunks")
from metrics_lib import evaluate  # noqa: E402

from _helpers import convert  # noqa: E402
from test_differential import METRICS as TREC_METRICS  # noqa: E402
from test_differential import (assert_same, by_text, shuffled_case,  # noqa: E402
                               trec_reference)
from test_differential import tables as differential_tables  # noqa: E402
from test_dtypes import METRICS, REC_ROWS, TRUTH_ROWS  # noqa: E402

BACKENDS = ["polars", "polars-lazy", "arrow"]


def as_pandas(result, user_col="user"):
    """Users (Python values) and metric values of a result of any backend."""
    if isinstance(result, pd.DataFrame):
        return result.index.tolist(), list(result.columns), result.to_numpy()
    if isinstance(result, pl.DataFrame):
        assert result.columns[0] == user_col
        names = result.columns[1:]
        assert all(result[name].dtype == pl.Float64 for name in names)
        values = np.column_stack([result[name].to_numpy() for name in names]) \
            if len(result) else np.zeros((0, len(names)))
        return result[user_col].to_list(), names, values
    assert isinstance(result, pa.Table), type(result)
    assert result.column_names[0] == user_col
    names = result.column_names[1:]
    assert all(result.schema.field(name).type == pa.float64() for name in names)
    values = np.column_stack([result.column(name).to_numpy() for name in names]) \
        if len(result) else np.zeros((0, len(names)))
    users = [int(u) if isinstance(u, Decimal) else u
             for u in result.column(user_col).to_pylist()]
    return users, names, values


def assert_equal_results(got, expected, user_col="user"):
    got_users, got_names, got_values = as_pandas(got, user_col)
    users, names, values = as_pandas(expected, user_col)
    assert got_users == users
    assert [type(u) for u in got_users] == [type(u) for u in users]
    assert list(got_names) == list(names)
    np.testing.assert_array_equal(got_values, values)  # bit for bit, nan == nan


def result_type(backend):
    return {"pandas": pd.DataFrame, "polars": pl.DataFrame,
            "polars-lazy": pl.DataFrame, "arrow": pa.Table}[backend]


def _dtype_free(message: str) -> str:
    """A message with the dtype it names left out: each library names its own
    (pandas ``bool``, ``Polars Boolean``, ``pyarrow bool``; tests/test_messages.py)."""
    return re.sub(r"(holds floats \(|has dtype |holds \w+ ids \()[^;)]*", r"\1<dtype>",
                  message)


def same_error(call_pandas, call_native):
    """Both calls raise; the same exception type with the same message (but the dtype)."""
    with pytest.raises((TypeError, ValueError)) as expected:
        call_pandas()
    with pytest.raises(type(expected.value)) as got:
        call_native()
    assert _dtype_free(str(got.value)) == _dtype_free(str(expected.value))
    return str(got.value)


# -- the differential test (tests/test_differential.py) on every backend -------

@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(differential_tables, st.sampled_from(BACKENDS),
       st.sampled_from(["item_desc", "input", "rank", "threads"]))
def test_differential_on_every_backend(case, backend, mode):
    recs, truth, kwargs = shuffled_case(case, mode)   # "threads" sets no keyword
    expected = evaluate(recs, truth, TREC_METRICS, **kwargs)
    with pytest.MonkeyPatch.context() as patch:
        if mode == "threads":  # threads from 1 row per thread on
            patch.setattr(chunks_module, "_MIN_ROWS_PER_THREAD", 1)
            kwargs["n_jobs"] = 2
        got = evaluate(convert(recs, backend), convert(truth, backend), TREC_METRICS,
                       **kwargs)
    assert isinstance(got, result_type(backend))
    assert_equal_results(got, expected)
    if mode in ("item_desc", "threads"):
        users, _, values = as_pandas(got)
        ours = pd.DataFrame(values, index=users, columns=TREC_METRICS)
        assert_same(by_text(ours), trec_reference(recs, truth, kwargs["missing"]))


# -- the dtype test (tests/test_dtypes.py) on every backend ---------------------

# Each backend's id dtypes, with the pandas dtype of the same values.
POLARS_IDS = {"Int8": "int8", "Int16": "int16", "Int32": "int32", "Int64": "int64",
              "UInt8": "uint8", "UInt16": "uint16", "UInt32": "uint32",
              "UInt64": "uint64", "Int128": "object-int", "String": "str",
              "Categorical": "category", "Enum": "category"}
if not hasattr(pl, "Int128"):  # older Polars (1.0.0 has none)
    del POLARS_IDS["Int128"]
ARROW_IDS = {"int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
             "uint8": "uint8", "uint16": "uint16", "uint32": "uint32",
             "uint64": "uint64", "string": "str", "large_string": "str",
             "string_view": "str", "dictionary-string": "category",
             "dictionary-int": "category-int"}
STRING_DTYPES = {"String", "Categorical", "Enum", "string", "large_string",
                 "string_view", "dictionary-string"}


def polars_column(name, values, dtype):
    if dtype in STRING_DTYPES:
        texts = [None if v is None else str(v) for v in values]
        if dtype == "Enum":  # categories in an order unrelated to the values
            cats = sorted({t for t in texts if t is not None}, reverse=True)
            return pl.Series(name, texts, dtype=pl.Enum(cats))
        return pl.Series(name, texts, dtype=getattr(pl, dtype))
    return pl.Series(name, values, dtype=getattr(pl, dtype))


def arrow_column(values, dtype):
    if dtype == "dictionary-string":
        texts = [None if v is None else str(v) for v in values]
        return pa.array(texts).dictionary_encode()
    if dtype == "dictionary-int":
        return pa.array(values, pa.int64()).dictionary_encode()
    if dtype in STRING_DTYPES:
        return pa.array([None if v is None else str(v) for v in values],
                        type=getattr(pa, dtype)())
    return pa.array(values, type=getattr(pa, dtype)())


def pandas_column(values, dtype):
    """The pandas twin of a native id column (nullable when a value is None)."""
    if dtype == "str" or dtype == "category":
        texts = [None if v is None else str(v) for v in values]
        return pd.Series(texts, dtype=dtype)
    if dtype == "category-int":
        return pd.Series(pd.Categorical(values))
    if dtype == "object-int":
        return pd.Series(values, dtype=object)
    if None in values:  # the nullable twin: Int8, UInt64, ...
        return pd.Series(values, dtype=dtype.capitalize().replace("Uint", "UInt"))
    return pd.Series(values, dtype=dtype)


def native_tables(backend, rec_dtype, truth_dtype, *, missing=None):
    """The rows of test_dtypes in ``backend`` and their pandas twins."""
    out = []
    for rows, dtype, name in ((REC_ROWS, rec_dtype, "recs"),
                              (TRUTH_ROWS, truth_dtype, "truth")):
        value_col = "score" if name == "recs" else "relevance"
        frame = pd.DataFrame(rows, columns=["user", "item", value_col])
        native, twin = {}, {}
        for col in ("user", "item"):
            values = frame[col].tolist()
            if missing == (name, col):
                values[3] = None
            if backend == "arrow":
                native[col] = arrow_column(values, dtype)
                twin[col] = pandas_column(values, ARROW_IDS[dtype])
            else:
                native[col] = polars_column(col, values, dtype)
                twin[col] = pandas_column(values, POLARS_IDS[dtype])
        twin[value_col] = frame[value_col]
        if backend == "arrow":
            native[value_col] = pa.array(frame[value_col].to_numpy())
            table = pa.table(native)
        else:
            native[value_col] = pl.Series(value_col, frame[value_col].to_numpy())
            table = pl.DataFrame(list(native.values()))
            if backend == "polars-lazy":
                table = table.lazy()
        out += [table, pd.DataFrame(twin)]
    return out


def id_cases(backend):
    dtypes = list(ARROW_IDS if backend == "arrow" else POLARS_IDS)
    return [(backend, a, b) for a in dtypes for b in dtypes]


def family(dtype):
    return "str" if dtype in STRING_DTYPES else "int"


def as_text(frame):
    out = frame.copy()
    for col in ("user", "item"):
        out[col] = pd.Series([str(v) for v in frame[col].tolist()], dtype=object)
    return out


@pytest.mark.parametrize("backend, rec_dtype, truth_dtype",
                         [case for backend in BACKENDS for case in id_cases(backend)])
def test_every_pair_of_id_dtypes_on_every_backend(backend, rec_dtype, truth_dtype):
    recs, recs_pd, truth, truth_pd = native_tables(backend, rec_dtype, truth_dtype)
    if family(rec_dtype) != family(truth_dtype):
        message = same_error(lambda: evaluate(recs_pd, truth_pd, METRICS),
                             lambda: evaluate(recs, truth, METRICS))
        assert "ids in recommendations but" in message
        return
    got = evaluate(recs, truth, METRICS)
    assert isinstance(got, result_type(backend))
    assert_equal_results(got, evaluate(recs_pd, truth_pd, METRICS))
    # and the ids as trec_eval reads them, as text
    expected = evaluate(as_text(recs_pd), as_text(truth_pd), METRICS)
    users, _, values = as_pandas(got)
    assert [str(u) for u in users] == list(expected.index)
    np.testing.assert_array_equal(values, expected.to_numpy())


NULLABLE = {"polars": ["Int64", "UInt32", "Int8", "UInt64", "String", "Categorical",
                       "Enum"],
            "arrow": ["int64", "uint32", "int8", "uint64", "string", "large_string",
                      "string_view", "dictionary-string", "dictionary-int"]}
NULLABLE["polars-lazy"] = NULLABLE["polars"]


@pytest.mark.parametrize("where", [("recs", "user"), ("recs", "item"),
                                   ("truth", "user"), ("truth", "item")])
@pytest.mark.parametrize("backend, dtype", [(b, d) for b in BACKENDS
                                            for d in NULLABLE[b]])
def test_missing_ids_are_refused_with_table_column_and_row(backend, dtype, where):
    recs, recs_pd, truth, truth_pd = native_tables(backend, dtype, dtype, missing=where)
    message = same_error(lambda: evaluate(recs_pd, truth_pd, METRICS),
                         lambda: evaluate(recs, truth, METRICS))
    table = "recommendations" if where[0] == "recs" else "truth"
    assert message.startswith(f"{table} column '{where[1]}' has a missing id at row 3")


def with_column(frame, backend, name, values):
    """``frame`` (pandas) with column ``name`` replaced, in ``backend``."""
    if backend == "arrow":
        table = convert(frame.drop(columns=name), "arrow")
        return table.append_column(name, values if isinstance(values, pa.Array)
                                   else pa.array(values))
    series = values if isinstance(values, pl.Series) else pl.Series(name, values)
    native = pl.from_pandas(frame.drop(columns=name)).with_columns(series.alias(name))
    return native.lazy() if backend == "polars-lazy" else native


def base_tables():
    recs = pd.DataFrame(REC_ROWS, columns=["user", "item", "score"])
    truth = pd.DataFrame(TRUTH_ROWS, columns=["user", "item", "relevance"])
    return recs, truth


@pytest.mark.parametrize("backend", BACKENDS)
def test_float_ids_are_refused(backend):
    recs, truth = base_tables()
    floats = recs["item"].astype(np.float64)
    same_error(lambda: evaluate(recs.assign(item=floats), truth, METRICS),
               lambda: evaluate(with_column(recs, backend, "item", floats.to_numpy()),
                                convert(truth, backend), METRICS))
    floats32 = recs["item"].astype(np.float32)
    message = same_error(
        lambda: evaluate(recs.assign(item=floats32), truth, METRICS),
        lambda: evaluate(with_column(recs, backend, "item", floats32.to_numpy()),
                         convert(truth, backend), METRICS))
    assert "holds floats" in message
    # a float column with a null: the missing id is named first
    nulls = floats.tolist()
    nulls[3] = None
    same_error(lambda: evaluate(recs.assign(item=pd.array(nulls, dtype="Float64")),
                                truth, METRICS),
               lambda: evaluate(with_column(recs, backend, "item", nulls),
                                convert(truth, backend), METRICS))


@pytest.mark.parametrize("backend", BACKENDS)
def test_bad_scores_and_grades_give_the_pandas_errors(backend):
    recs, truth = base_tables()
    cases = []
    null_score = recs["score"].tolist()
    null_score[2] = None
    cases.append(("recs", "score", pd.array(null_score, dtype="Float64"), null_score))
    nan_score = recs["score"].to_numpy().copy()
    nan_score[4] = np.nan
    cases.append(("recs", "score", nan_score, nan_score))
    inf_score = recs["score"].to_numpy().copy()
    inf_score[1] = np.inf
    cases.append(("recs", "score", inf_score, inf_score))
    int_null = list(range(len(recs)))
    int_null[5] = None
    cases.append(("recs", "score", pd.array(int_null, dtype="Int64"), int_null))
    negative = truth["relevance"].to_numpy().copy()
    negative[6] = -1
    cases.append(("truth", "relevance", negative, negative))
    grade_null = truth["relevance"].tolist()
    grade_null[1] = None
    cases.append(("truth", "relevance", pd.array(grade_null, dtype="Int64"), grade_null))
    for table, column, twin, values in cases:
        if table == "recs":
            same_error(lambda: evaluate(recs.assign(**{column: twin}), truth, METRICS),
                       lambda: evaluate(with_column(recs, backend, column, values),
                                        convert(truth, backend), METRICS))
        else:
            same_error(lambda: evaluate(recs, truth.assign(**{column: twin}), METRICS),
                       lambda: evaluate(convert(recs, backend),
                                        with_column(truth, backend, column, values),
                                        METRICS))


@pytest.mark.parametrize("backend", BACKENDS)
def test_non_numeric_scores_and_unusable_ids_are_refused(backend):
    recs, truth = base_tables()
    native_truth = convert(truth, backend)
    text = [str(s) for s in recs["score"]]
    with pytest.raises(TypeError, match="recommendations column 'score' must be "
                       "numeric; it has dtype"):
        evaluate(with_column(recs, backend, "score", text), native_truth, METRICS)
    flags = [True, False] * (len(recs) // 2) + [True] * (len(recs) % 2)
    same_error(lambda: evaluate(recs.assign(score=flags), truth, METRICS),
               lambda: evaluate(with_column(recs, backend, "score", flags),
                                native_truth, METRICS)) if backend != "arrow" else None
    with pytest.raises(TypeError, match="recommendations column 'score' must be numeric"):
        evaluate(with_column(recs, backend, "score", flags), native_truth, METRICS)
    lists = [[int(i)] for i in recs["item"]]
    with pytest.raises(TypeError, match="recommendations column 'item' has dtype "
                       ".*; ids must be integers or strings"):
        evaluate(with_column(recs, backend, "item", lists), native_truth, METRICS)


@pytest.mark.parametrize("backend", BACKENDS)
def test_boolean_ids(backend):
    recs = pd.DataFrame({"user": [1, 1, 2], "item": [False, True, True],
                         "score": [1.0, 1.0, 1.0]})
    truth = pd.DataFrame({"user": [1, 2], "item": [False, True], "relevance": [1, 1]})
    got = evaluate(convert(recs, backend), convert(truth, backend), ["mrr"])
    assert_equal_results(got, evaluate(recs, truth, ["mrr"]))
    assert as_pandas(got)[2][0, 0] == 0.5  # "True" > "False": True ranks first
    same_error(lambda: evaluate(recs.assign(item=pd.array([True, None, False],
                                                          dtype="boolean")),
                                truth, ["mrr"]),
               lambda: evaluate(with_column(recs, backend, "item", [True, None, False]),
                                convert(truth, backend), ["mrr"]))
    same_error(lambda: evaluate(recs, truth.astype({"item": "int64"}), ["mrr"]),
               lambda: evaluate(convert(recs, backend),
                                convert(truth.astype({"item": "int64"}), backend),
                                ["mrr"]))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["Int64", "UInt64"])
def test_integer_scores_above_2_53_keep_their_order(backend, dtype):
    base = 2**63 + 5 if dtype == "UInt64" else 2**53
    # as float64 both scores are equal, and the tie rule would rank "c" first
    recs = pd.DataFrame({"user": 1, "item": ["b", "c"],
                         "score": pd.Series([base + 1, base], dtype=dtype.lower())})
    truth = pd.DataFrame({"user": [1], "item": ["b"], "relevance": [1]})
    got = evaluate(convert(recs, backend), convert(truth, backend), ["mrr"])
    assert as_pandas(got)[2][0, 0] == 1.0
    ranks = recs.rename(columns={"score": "rank"}).assign(
        rank=pd.Series([base, base + 1], dtype=dtype.lower()))
    got = evaluate(convert(ranks, backend), convert(truth, backend), ["mrr"],
                   rank_col="rank")
    assert as_pandas(got)[2][0, 0] == 1.0
    # with a null the score is refused, as in pandas
    recs_null = recs.assign(score=pd.array([base + 1, None], dtype=dtype))
    native_null = (pa.array([base + 1, None], type=getattr(pa, dtype.lower())())
                   if backend == "arrow" else
                   pl.Series("score", [base + 1, None], dtype=getattr(pl, dtype)))
    same_error(lambda: evaluate(recs_null, truth, ["mrr"]),
               lambda: evaluate(with_column(recs, backend, "score", native_null),
                                convert(truth, backend), ["mrr"]))


@pytest.mark.parametrize("backend", BACKENDS)
def test_int64_and_uint64_ids_compare_exactly(backend):
    big = 2**53 + 1  # float64 would make it 2**53
    recs = pd.DataFrame({"user": np.array([big, big], dtype=np.uint64),
                         "item": np.array([2**53, big], dtype=np.uint64),
                         "score": [1.0, 0.5]})
    truth = pd.DataFrame({"user": np.array([big], dtype=np.int64),
                          "item": np.array([big], dtype=np.int64), "relevance": [1]})
    got = evaluate(convert(recs, backend), convert(truth, backend), ["mrr"])
    assert as_pandas(got)[:3:2] == ([big], np.array([[0.5]]))
    assert_equal_results(got, evaluate(recs, truth, ["mrr"]))
    # users needing both int64 and uint64: negative ids and ids >= 2**63
    recs["user"] = np.array([2**64 - 1, 2**64 - 1], dtype=np.uint64)
    truth["user"] = np.array([-1], dtype=np.int64)
    expected = evaluate(recs, truth, ["mrr"])
    if backend != "arrow" and not hasattr(pl, "Int128"):
        with pytest.raises(TypeError, match="only Polars' Int128 holds"):
            evaluate(convert(recs, backend), convert(truth, backend), ["mrr"])
        return
    got = evaluate(convert(recs, backend), convert(truth, backend), ["mrr"])
    assert_equal_results(got, expected)
    assert as_pandas(got)[0] == [-1]


@pytest.mark.parametrize("backend", BACKENDS)
def test_column_errors_are_the_pandas_ones(backend):
    recs, truth = base_tables()
    same_error(lambda: evaluate(recs.drop(columns="score"), truth, METRICS),
               lambda: evaluate(convert(recs.drop(columns="score"), backend),
                                convert(truth, backend), METRICS))
    message = same_error(
        lambda: evaluate(recs, truth.drop(columns="relevance"), METRICS),
        lambda: evaluate(convert(recs, backend),
                         convert(truth.drop(columns="relevance"), backend), METRICS))
    assert "relevance_col=None" in message
    doubled = pd.concat([recs, recs.iloc[:1]], ignore_index=True)
    same_error(lambda: evaluate(doubled, truth, METRICS),
               lambda: evaluate(convert(doubled, backend), convert(truth, backend),
                                METRICS))
    judged_twice = pd.concat([truth, truth.iloc[2:3]], ignore_index=True)
    same_error(lambda: evaluate(recs, judged_twice, METRICS),
               lambda: evaluate(convert(recs, backend), convert(judged_twice, backend),
                                METRICS))
    # relevance_col=None: every judged row is relevant, on every backend
    got = evaluate(convert(recs, backend), convert(truth.drop(columns="relevance"),
                                                   backend), METRICS, relevance_col=None)
    assert_equal_results(got, evaluate(recs, truth.drop(columns="relevance"), METRICS,
                                       relevance_col=None))


def test_arrow_tables_with_a_column_name_twice_are_refused():
    recs, truth = base_tables()
    doubled = pd.concat([recs, recs[["item"]]], axis=1)
    table = pa.Table.from_arrays([pa.array(recs[c]) for c in doubled.columns],
                                 names=list(doubled.columns))
    same_error(lambda: evaluate(doubled, truth, METRICS),
               lambda: evaluate(table, pa.Table.from_pandas(truth), METRICS))


@pytest.mark.parametrize("backend", BACKENDS)
def test_other_keywords_and_column_names(backend):
    recs, truth = base_tables()
    recs = recs.rename(columns={"user": "qid", "item": "docno", "score": "sim"})
    truth = truth.rename(columns={"user": "qid", "item": "docno", "relevance": "rel"})
    kwargs = dict(user_col="qid", item_col="docno", score_col="sim", relevance_col="rel",
                  missing="skip", empty="nan", ties="item_asc", gain="exponential")
    got = evaluate(convert(recs, backend), convert(truth, backend), METRICS, **kwargs)
    assert_equal_results(got, evaluate(recs, truth, METRICS, **kwargs), user_col="qid")
    assert np.isnan(as_pandas(got, "qid")[2]).any()  # a user with nothing relevant


@pytest.mark.parametrize("backend", BACKENDS)
def test_empty_tables(backend):
    recs, truth = base_tables()
    for r, t in ((recs.iloc[:0], truth), (recs, truth.iloc[:0]),
                 (recs.iloc[:0], truth.iloc[:0])):
        got = evaluate(convert(r, backend), convert(t, backend), METRICS)
        assert isinstance(got, result_type(backend))
        assert_equal_results(got, evaluate(r, t, METRICS))


# -- result types, mixed inputs, reading only what is needed -----------------------

@pytest.mark.parametrize("rec_backend", ["pandas"] + BACKENDS)
@pytest.mark.parametrize("truth_backend", ["pandas"] + BACKENDS)
def test_the_result_follows_the_recommendations_library(rec_backend, truth_backend):
    recs, truth = base_tables()
    got = evaluate(convert(recs, rec_backend), convert(truth, truth_backend), METRICS)
    assert isinstance(got, result_type(rec_backend))
    assert_equal_results(got, evaluate(recs, truth, METRICS))


def test_polars_and_arrow_results_keep_the_id_types():
    recs, truth = base_tables()
    got = evaluate(pl.from_pandas(recs), pl.from_pandas(truth), ["mrr"])
    assert got.schema == pl.Schema({"user": pl.Int64, "mrr": pl.Float64})
    text = as_text(recs), as_text(truth)
    got = evaluate(pl.from_pandas(text[0]), pl.from_pandas(text[1]), ["mrr"])
    assert got.schema == pl.Schema({"user": pl.String, "mrr": pl.Float64})
    for kind in (pa.string(), pa.large_string(), pa.string_view()):
        table = pa.Table.from_pandas(text[0], preserve_index=False)
        table = table.set_column(0, "user", table.column("user").cast(kind))
        got = evaluate(table, pa.Table.from_pandas(text[1]), ["mrr"])
        assert got.schema.field("user").type == kind
    # uint64 ids: int64 when they fit (as the pandas result's index), else uint64
    for shift, kind in ((0, pa.int64()), (2**63, pa.uint64())):
        wide = [frame.assign(user=frame["user"].to_numpy().astype(np.uint64)
                             + np.uint64(shift)) for frame in (recs, truth)]
        got = evaluate(pa.Table.from_pandas(wide[0]), pa.Table.from_pandas(wide[1]),
                       ["mrr"])
        assert got.schema.field("user").type == kind
        assert evaluate(*wide, ["mrr"]).index.dtype == kind.to_pandas_dtype()


def test_mixed_with_dask():
    dd = pytest.importorskip("dask.dataframe")
    recs, truth = base_tables()
    lazy = evaluate(dd.from_pandas(recs, npartitions=2), pl.from_pandas(truth), METRICS)
    assert isinstance(lazy, dd.DataFrame)
    got = lazy.compute(scheduler="sync").sort_index()
    assert_equal_results(got, evaluate(recs, truth, METRICS))


def test_only_the_needed_columns_are_read(monkeypatch):
    recs, truth = base_tables()
    # a lazy column that fails when computed: evaluate must never compute it
    lazy = pl.from_pandas(recs).lazy().with_columns(
        junk=pl.lit("not a number").str.to_integer(strict=True))
    with pytest.raises(pl.exceptions.ComputeError):
        lazy.collect()
    got = evaluate(lazy, pl.from_pandas(truth).lazy(), METRICS)
    assert_equal_results(got, evaluate(recs, truth, METRICS))
    # no conversion of whole tables to pandas (pyarrow's Table cannot be
    # patched: test_numeric_columns_are_not_copied covers it), and columns
    # pandas could not hold (nested lists) are never touched
    monkeypatch.setattr(pl.DataFrame, "to_pandas",
                        lambda *a, **k: pytest.fail("to_pandas called"))
    nested = [[1, 2]] * len(recs)
    got = evaluate(pl.from_pandas(recs).with_columns(extra=pl.Series(nested)),
                   pl.from_pandas(truth), METRICS)
    assert_equal_results(got, evaluate(recs, truth, METRICS))
    table = pa.Table.from_pandas(recs, preserve_index=False).append_column(
        "extra", pa.array(nested))
    got = evaluate(table, pa.Table.from_pandas(truth), METRICS)
    assert_equal_results(got, evaluate(recs, truth, METRICS))


def test_numeric_columns_are_not_copied():
    from metrics_lib._frames import read_columns

    recs, _ = base_tables()
    for native in (pl.from_pandas(recs), pa.Table.from_pandas(recs)):
        read = read_columns("recommendations", native, ids=["user", "item"],
                            values=["score"])
        assert list(read.columns) == ["user", "item", "score"]
        for column in read.columns:
            source = (native[column].to_numpy() if isinstance(native, pl.DataFrame)
                      else native.column(column).chunk(0).to_numpy())
            assert np.shares_memory(read[column].to_numpy(), source), column


def test_inputs_are_untouched():
    recs, truth = base_tables()
    native = pl.from_pandas(recs), pa.Table.from_pandas(truth)
    before = native[0].clone(), native[1]
    evaluate(*native, METRICS)
    assert native[0].equals(before[0]) and native[1].equals(before[1])


def test_pandas_users_never_import_polars_narwhals_or_need_them():
    code = textwrap.dedent("""
        import sys
        sys.modules["polars"] = None  # as if polars were not installed
        import pandas as pd
        from metrics_lib import evaluate
        recs = pd.DataFrame({"user": [1, 1], "item": [1, 2], "score": [1.0, 0.5]})
        truth = pd.DataFrame({"user": [1], "item": [2], "relevance": [1]})
        assert evaluate(recs, truth, ["mrr"]).loc[1, "mrr"] == 0.5
        assert "narwhals" not in sys.modules, "narwhals imported"
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_tables_of_several_chunks():
    recs, truth = base_tables()
    expected = evaluate(recs, truth, METRICS)
    table = pa.Table.from_pandas(recs, preserve_index=False)
    chunked = pa.concat_tables([table.slice(0, 5), table.slice(5)])
    assert chunked.column("item").num_chunks == 2
    assert_equal_results(evaluate(chunked, pa.Table.from_pandas(truth), METRICS),
                         expected)
    frame = pl.from_pandas(recs)
    pieces = pl.concat([frame.slice(0, 5), frame.slice(5)], rechunk=False)
    assert pieces["item"].n_chunks() == 2
    assert_equal_results(evaluate(pieces, pl.from_pandas(truth), METRICS), expected)


@pytest.mark.parametrize("backend", BACKENDS)
def test_decimal_scores_are_read_as_pandas_reads_arrow_decimals(backend):
    recs, truth = base_tables()
    decimals = [Decimal(str(score)) for score in recs["score"]]
    arrow_decimals = pa.array(decimals)
    twin = recs.assign(score=arrow_decimals.to_pandas(types_mapper=pd.ArrowDtype))
    native = with_column(recs, backend, "score",
                         arrow_decimals if backend == "arrow" else pl.Series(decimals))
    assert_equal_results(evaluate(native, convert(truth, backend), METRICS),
                         evaluate(twin, truth, METRICS))
