"""evaluate on every id dtype pandas offers, in both tables.

Each id dtype (numpy, nullable, pyarrow, categorical, object, string) is tried
for the recommendations and for the truth table: the result must equal the
one computed from the same ids written as plain Python strings (``str(id)``:
trec_eval's view of them), or the library must refuse with its own message
(matched by text; never a pandas internals error). With a missing id the
message names the table, the column and the row.
"""

import numpy as np
import pandas as pd
import pytest

from metrics_lib import evaluate

pytest.importorskip("pyarrow")

METRICS = ["ndcg@3", "map", "mrr", "precision@2", "recall@3", "hit@1"]

# ids 0..19: every integer dtype holds them, and "9" > "19" > "10" as text
REC_ROWS = [(u, i, s) for u, items, scores in [
    (1, [3, 9, 10, 19, 2], [0.5, 0.5, 0.5, 0.25, 0.5]),
    (2, [11, 1, 0], [1.0, 1.0, 0.0]),
    (4, [7, 8], [0.5, 0.5]),
    (5, [12, 13, 14], [0.75, 0.75, 0.75]),
] for i, s in zip(items, scores)]
TRUTH_ROWS = [(1, 10, 2), (1, 2, 1), (1, 4, 3), (2, 1, 1), (2, 0, 2), (3, 5, 1),
              (4, 7, 0), (5, 14, 1), (5, 12, 3)]

INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
              "Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64",
              "int64[pyarrow]", "uint32[pyarrow]", "category-int", "object-int"]
STR_DTYPES = ["object-str", "string", "string[pyarrow]", "str", "category-str"]
NULLABLE = ["Int64", "UInt32", "Int8", "int64[pyarrow]", "string", "string[pyarrow]",
            "str", "object-str", "object-int", "category-int", "category-str"]


def column(values, dtype):
    """``values`` (ints) as a Series of ``dtype``; None stays missing."""
    if dtype in STR_DTYPES:
        texts = [None if v is None else str(v) for v in values]
        if dtype == "object-str":
            return pd.Series(texts, dtype=object)
        if dtype == "category-str":
            return pd.Series(texts, dtype="category")
        return pd.Series(texts, dtype=dtype)
    if dtype == "object-int":
        return pd.Series(values, dtype=object)
    if dtype == "category-int":
        return pd.Series(pd.Categorical(values))
    return pd.Series(values, dtype=dtype)


def tables(rec_dtype, truth_dtype, *, missing=None):
    recs = pd.DataFrame(REC_ROWS, columns=["user", "item", "score"])
    truth = pd.DataFrame(TRUTH_ROWS, columns=["user", "item", "relevance"])
    recs.index, truth.index = recs.index + 100, truth.index + 200  # labels, not positions
    out = []
    for frame, dtype, name in ((recs, rec_dtype, "recs"), (truth, truth_dtype, "truth")):
        frame = frame.copy()
        for col in ("user", "item"):
            values = frame[col].tolist()
            if missing == (name, col):
                values[3] = None
            series = column(values, dtype)
            series.index = frame.index
            frame[col] = series
        out.append(frame)
    return out


def as_text(frame):
    out = frame.copy()
    for col in ("user", "item"):
        out[col] = pd.Series([str(v) for v in frame[col].tolist()], index=frame.index,
                             dtype=object)
    return out


def family(dtype):
    return "str" if dtype in STR_DTYPES else "int"


@pytest.mark.parametrize("truth_dtype", INT_DTYPES + STR_DTYPES)
@pytest.mark.parametrize("rec_dtype", INT_DTYPES + STR_DTYPES)
def test_every_pair_of_id_dtypes(rec_dtype, truth_dtype):
    recs, truth = tables(rec_dtype, truth_dtype)
    before = recs.copy(), truth.copy()
    if family(rec_dtype) != family(truth_dtype):
        words = {"int": "integer", "str": "string"}
        with pytest.raises(TypeError, match=f"column 'user' holds "
                           f"{words[family(rec_dtype)]} ids in recommendations but "
                           f"{words[family(truth_dtype)]} ids in truth"):
            evaluate(recs, truth, METRICS)
        return
    got = evaluate(recs, truth, METRICS)
    expected = evaluate(as_text(recs), as_text(truth), METRICS)
    assert [str(u) for u in got.index] == list(expected.index)
    np.testing.assert_array_equal(got.to_numpy(), expected.to_numpy())
    pd.testing.assert_frame_equal(recs, before[0])  # inputs untouched
    pd.testing.assert_frame_equal(truth, before[1])


@pytest.mark.parametrize("where", [("recs", "user"), ("recs", "item"),
                                   ("truth", "user"), ("truth", "item")])
@pytest.mark.parametrize("dtype", NULLABLE)
def test_missing_ids_are_refused_with_table_column_and_row(dtype, where):
    recs, truth = tables(dtype, dtype, missing=where)
    table = "recommendations" if where[0] == "recs" else "truth"
    row = 103 if where[0] == "recs" else 203
    with pytest.raises(ValueError, match=f"{table} column '{where[1]}' has a missing "
                       f"id at row {row}"):
        evaluate(recs, truth, METRICS)


@pytest.mark.parametrize("dtype", ["float64", "Float64", "float32"])
def test_float_ids_are_refused(dtype):
    recs, truth = tables("int64", "int64")
    recs["item"] = recs["item"].astype(dtype)
    with pytest.raises(TypeError, match="holds floats"):
        evaluate(recs, truth, METRICS)
    recs.loc[103, "item"] = np.nan  # a float column with NaN: the missing id first
    with pytest.raises(ValueError, match="missing id at row 103"):
        evaluate(recs, truth, METRICS)


def test_boolean_ids():
    recs = pd.DataFrame({"user": [1, 1, 2], "item": [False, True, True],
                         "score": [1.0, 1.0, 1.0]})
    truth = pd.DataFrame({"user": [1, 2], "item": [False, True], "relevance": [1, 1]})
    # as text "True" > "False": trec_eval ranks True first among the tie
    expected = evaluate(as_text(recs), as_text(truth), ["mrr"])
    for rec_dtype in ("bool", "boolean", "bool[pyarrow]", "object"):
        for truth_dtype in ("bool", "boolean"):
            got = evaluate(recs.astype({"item": rec_dtype}),
                           truth.astype({"item": truth_dtype}), ["mrr"])
            np.testing.assert_array_equal(got.to_numpy(), expected.to_numpy())
    assert evaluate(recs, truth, ["mrr"]).loc[1, "mrr"] == 0.5
    with pytest.raises(ValueError, match="recommendations column 'item' has a missing "
                       "id at row 1"):
        evaluate(recs.astype({"item": "boolean"}).assign(
            item=pd.array([True, None, False], dtype="boolean")), truth, ["mrr"])
    with pytest.raises(TypeError, match="boolean ids in recommendations but integer"):
        evaluate(recs, truth.astype({"item": "int64"}), ["mrr"])


def test_object_columns_are_judged_by_their_values():
    recs, truth = tables("int64", "int64")
    mixed = recs.assign(item=pd.Series([3, "9"] + recs["item"].tolist()[2:],
                                       index=recs.index, dtype=object))
    with pytest.raises(TypeError, match="mixes ids of different types"):
        evaluate(mixed, truth, METRICS)
    # an object column of ints is integer ids, so against string ids it is refused
    with pytest.raises(TypeError, match="integer ids in recommendations but string"):
        evaluate(recs.astype({"item": object}), as_text(truth), METRICS)


def test_categorical_ids_use_the_categories_values():
    recs, truth = tables("int64", "int64")
    # categories listed in an order unrelated to the values: ties follow the values
    cats = pd.Categorical(recs["item"], categories=sorted(set(recs["item"]), reverse=True))
    got = evaluate(recs.assign(item=cats), truth, METRICS)
    pd.testing.assert_frame_equal(got, evaluate(recs, truth, METRICS))


def test_duplicate_column_names_are_refused():
    recs, truth = tables("int64", "int64")
    doubled = pd.concat([recs, recs[["item"]]], axis=1)
    with pytest.raises(ValueError, match="recommendations has 2 columns named 'item'"):
        evaluate(doubled, truth, METRICS)


@pytest.mark.parametrize("dtype", ["int64", "Int64", "int64[pyarrow]", "uint64"])
def test_integer_scores_above_2_53_keep_their_order(dtype):
    base = 2**63 + 5 if dtype == "uint64" else 2**53
    # as float64 both scores are equal, and the tie rule would rank "c" first
    recs = pd.DataFrame({"user": 1, "item": ["b", "c"],
                         "score": pd.Series([base + 1, base], dtype=dtype)})
    truth = pd.DataFrame({"user": [1], "item": ["b"], "relevance": [1]})
    assert evaluate(recs, truth, ["mrr"]).loc[1, "mrr"] == 1.0
    # the same as ranks (smaller is better)
    ranks = recs.rename(columns={"score": "rank"}).assign(
        rank=pd.Series([base, base + 1], dtype=dtype))
    assert evaluate(ranks, truth, ["mrr"], rank_col="rank").loc[1, "mrr"] == 1.0


def test_int64_and_uint64_ids_compare_exactly():
    big = 2**53 + 1  # float64 would make it 2**53
    recs = pd.DataFrame({"user": np.array([big, big], dtype=np.uint64),
                         "item": np.array([2**53, big], dtype=np.uint64),
                         "score": [1.0, 0.5]})
    truth = pd.DataFrame({"user": np.array([big], dtype=np.int64),
                          "item": np.array([big], dtype=np.int64), "relevance": [1]})
    assert evaluate(recs, truth, ["mrr"]).loc[big, "mrr"] == 0.5
    # uint64 ids above 2**63 against negative int64 ids: nothing matches, no error
    recs["item"] = np.array([2**64 - 1, 2**63], dtype=np.uint64)
    truth["item"] = np.array([-1], dtype=np.int64)
    assert evaluate(recs, truth, ["mrr"]).loc[big, "mrr"] == 0.0


def test_few_rows_with_huge_ids_need_no_huge_keys():
    rng = np.random.default_rng(3)
    users = rng.integers(-2**63, 2**63 - 1, size=25, dtype=np.int64)
    items = rng.integers(-2**63, 2**63 - 1, size=50, dtype=np.int64)
    recs = pd.DataFrame({"user": np.repeat(users, 2), "item": items,
                         "score": np.tile([1.0, 1.0], 25)})
    truth = pd.DataFrame({"user": users, "item": items[::2], "relevance": 1})
    got = evaluate(recs, truth, ["mrr"])
    got.index = pd.Index([str(user) for user in got.index], name="user")
    expected = evaluate(as_text(recs), as_text(truth), ["mrr"])
    pd.testing.assert_frame_equal(got.sort_index(), expected, check_index_type=False)


def test_hits_at_k_is_refused_with_the_reason():
    recs, truth = tables("int64", "int64")
    with pytest.raises(ValueError, match="ranx's hits@k .* counts the relevant items"):
        evaluate(recs, truth, ["hits@10"])
    assert "hit@10" in evaluate(recs, truth, ["hit@10"]).columns
