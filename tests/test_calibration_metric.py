"""Steck's miscalibration as an evaluate metric (issue 29, point 1): ``miscalibration@k``.

No peer library computes it (LibRec's CalibrationEvaluator differs, see
:func:`metrics_lib.miscalibration`), so the reference is this library's
:func:`miscalibration` (tested against hand-worked values in
tests/test_beyond*.py) and :func:`miscalibration_batch`: ``evaluate(...,
item_genres=..., history=...)`` must give each user their value, on random
tables with tied scores, lists shorter than the cut-off, users without
history or without recommendations, items with several genres, items of
item_genres never listed, every rank weight, every id kind and backend.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from metrics_lib import evaluate, miscalibration, miscalibration_batch
from _helpers import as_frame, in_library

TOL = 1e-12
NAMES = ["miscalibration", "miscalibration@1", "miscalibration@3", "miscalibration@20",
         "miscalibration(alpha=0.1)@3", "miscalibration(alpha=1)",
         "miscalibration(alpha=0.5)"]


def _convert(series, ids):
    if ids == "big":  # 64-bit ids past 2**53
        return series.astype(np.int64) + 2**62
    if ids == "nullable":
        return series.astype("Int64")
    if ids == "pyarrow":
        return ("i" + series.astype(str)).astype("string[pyarrow]")
    return series.astype(np.int64)


def _tables(seed, ids="int64"):
    """(recommendations, truth, history, genres as a Series): ties, short lists,
    users without history (every fourth) or without recommendations."""
    rng = np.random.default_rng(seed)
    n_items = 30
    genre_rows = [(i, g) for i in range(n_items + 5)  # items 30-34: never listed
                  for g in rng.choice(6, size=int(rng.integers(1, 4)), replace=False)]
    recs, truth, hist = [], [], []
    for user in range(25):
        length = int(rng.integers(0, 9))  # 0: a user only in truth
        items = rng.choice(n_items, size=length, replace=False)
        scores = rng.integers(0, 3, length).astype(np.float32) / 2  # ties
        recs += [(user, int(i), float(s)) for i, s in zip(items, scores)]
        judged = rng.choice(n_items, size=int(rng.integers(1, 4)), replace=False)
        truth += [(user, int(i), int(rng.integers(0, 3))) for i in judged]
        if user % 4:  # repeated history rows count again
            hist += [(user, int(i)) for i in rng.choice(n_items + 5, int(rng.integers(1, 10)))]
    hist += [(900, 1), (901, 2)]  # users of the history that evaluate does not report
    recs = pd.DataFrame(recs, columns=["user", "item", "score"])
    truth = pd.DataFrame(truth, columns=["user", "item", "relevance"])
    hist = pd.DataFrame(hist, columns=["user", "item"])
    genres = pd.DataFrame(genre_rows, columns=["item", "genre"])
    genres["genre"] = "g" + genres["genre"].astype(str)
    for frame in (recs, truth, hist, genres):
        frame["item"] = _convert(frame["item"], ids)
    if ids in ("nullable", "pyarrow"):  # the users too: matched with the history's
        for frame in (recs, truth, hist):
            frame["user"] = _convert(frame["user"], ids)
    return recs, truth, hist, genres.set_index("item")["genre"]


def _lists(recs):
    """Each user's list in the order of ties='numeric_asc' (ties by item id, ascending)."""
    return {user: list(frame.sort_values(["score", "item"], ascending=[False, True])["item"])
            for user, frame in recs.groupby("user")}


def _split(name):
    k = int(name.split("@")[1]) if "@" in name else None
    alpha = float(name.split("=")[1].split(")")[0]) if "(" in name else 0.01
    return k, alpha


def _genre_dict(genres):
    return {item: list(group) for item, group in genres.groupby(level=0)}


@pytest.mark.parametrize("ids", ["int64", "big", "nullable", "pyarrow"])
@pytest.mark.parametrize("weights", ["equal", "reciprocal", "log"])
def test_evaluate_equals_the_per_list_function(ids, weights):
    compared, undefined, worst = 0, 0, 0.0
    for seed in range(2):
        recs, truth, hist, genres = _tables(seed, ids)
        got = evaluate(recs, truth, NAMES, item_genres=genres, history=hist,
                       rank_weights=weights, ties="numeric_asc", missing="zero")
        lists, by_genre = _lists(recs), _genre_dict(genres)
        past = {user: list(frame["item"]) for user, frame in hist.groupby("user")}
        assert set(got.index) == set(truth["user"])
        for user in got.index:
            items, history = lists.get(user, []), past.get(user, [])
            for name in NAMES:
                if not items or not history:  # a genre mix of nothing: undefined
                    assert math.isnan(got.loc[user, name]), (user, name)
                    undefined += 1
                    continue
                k, alpha = _split(name)
                want = miscalibration(items, history, by_genre, alpha=alpha,
                                      rank_weights=weights, k=k)
                worst = max(worst, abs(got.loc[user, name] - want))
                compared += 1
    assert compared > 150 and undefined > 20 and worst <= TOL


@pytest.mark.parametrize("weights", ["equal", "log"])
def test_evaluate_equals_the_batch_function(weights):
    recs, truth, hist, genres = _tables(3)
    ranked = pd.concat(frame.assign(rank=np.arange(1, len(frame) + 1)) for _, frame in
                       recs.sort_values(["score", "item"], ascending=[False, True])
                       .groupby("user"))
    ranked = ranked[ranked["user"].isin(hist["user"])]
    table = genres.reset_index()
    for name in ["miscalibration@3", "miscalibration(alpha=0.2)"]:
        k, alpha = _split(name)
        want = miscalibration_batch(ranked, hist, table, alpha=alpha, k=k,
                                    rank_weights=weights, rank_col="rank")
        got = evaluate(recs, truth, [name], item_genres=genres, history=hist,
                       rank_weights=weights, ties="numeric_asc", missing="skip")
        got = got.dropna()
        assert set(got.index) == set(want.index) & set(truth["user"])
        np.testing.assert_allclose(got[name].to_numpy(),
                                   want.loc[got.index, "miscalibration"].to_numpy(),
                                   rtol=0, atol=TOL)


def test_a_hand_worked_value_and_a_dict_of_shares():
    """List [a, b], history [c, c, b]; a is drama, b comedy, c 3/4 drama 1/4 comedy.

    p = (2 * (3/4, 1/4) + (0, 1)) / 3 = (1/2, 1/2); with weights 1/r,
    q = (1 * (1, 0) + 1/2 * (0, 1)) / (3/2) = (2/3, 1/3), so with alpha
    0.01 the value is sum p ln(p / (0.99 q + 0.01 p)).
    """
    genres = {"a": {"drama": 1}, "b": {"comedy": 2}, "c": {"drama": 3, "comedy": 1}}
    recs = pd.DataFrame({"user": [7, 7], "item": ["a", "b"], "score": [2.0, 1.0]})
    truth = pd.DataFrame({"user": [7], "item": ["a"], "relevance": [1]})
    hist = pd.DataFrame({"user": [7, 7, 7], "item": ["c", "c", "b"]})
    q = np.array([2 / 3, 1 / 3])
    want = sum(0.5 * math.log(0.5 / (0.99 * q_g + 0.005)) for q_g in q)
    got = evaluate(recs, truth, ["miscalibration", "miscalibration@1"], item_genres=genres,
                   history=hist, rank_weights="reciprocal")
    assert got.loc[7, "miscalibration"] == pytest.approx(want, abs=TOL)
    # cut at 1: q = (1, 0), the comedy half of the history is missing
    assert got.loc[7, "miscalibration@1"] == pytest.approx(
        0.5 * math.log(0.5 / 0.995) + 0.5 * math.log(0.5 / 0.005), abs=TOL)


def test_truncate_and_missing_skip():
    recs, truth, hist, genres = _tables(7)
    cut = evaluate(recs, truth, ["miscalibration@5", "miscalibration"], item_genres=genres,
                   history=hist, truncate=3, missing="skip", ties="numeric_asc")
    plain = evaluate(recs, truth, ["miscalibration@3"], item_genres=genres, history=hist,
                     missing="skip", ties="numeric_asc")
    plain = pd.concat([plain, plain], axis=1)
    assert set(cut.index) == set(recs["user"]) & set(truth["user"])
    np.testing.assert_allclose(cut.to_numpy(), plain.to_numpy(), rtol=0, atol=TOL)


@pytest.mark.parametrize("library", ["polars", "pyarrow", "dask"])
def test_other_backends(library):
    recs, truth, hist, genres = _tables(8)
    names = ["miscalibration@3", "miscalibration(alpha=0.2)@4"]
    keywords = dict(item_genres=genres, missing="zero", rank_weights="log")
    want = evaluate(recs, truth, names, history=hist, **keywords)
    recs, truth, hist = in_library(library, recs, truth, hist)
    got = evaluate(recs, truth, names, history=hist, **keywords)
    got = as_frame(got)
    pd.testing.assert_frame_equal(got.sort_index(), want.sort_index(), check_names=False,
                                  check_index_type=False, rtol=0, atol=TOL)


def test_chunks_and_threads_do_not_change_the_values(monkeypatch):
    """Chunks of a few users each, in one thread and in two: each chunk must read
    its own rows and its own users' history mix."""
    import importlib

    chunks = importlib.import_module("metrics_lib.batch.chunks")
    recs, truth, hist, genres = _tables(9)
    big = pd.concat([recs.assign(user=recs["user"] + 1000 * i) for i in range(20)])
    judged = pd.concat([truth.assign(user=truth["user"] + 1000 * i) for i in range(20)])
    past = pd.concat([hist.assign(user=hist["user"] + 1000 * i) for i in range(20)])
    names = ["miscalibration@4", "miscalibration"]
    keywords = dict(item_genres=genres, history=past, missing="zero", rank_weights="log")
    whole = evaluate(big, judged, names, **keywords)
    monkeypatch.setattr(chunks, "_MIN_ROWS_PER_THREAD", 5)
    monkeypatch.setattr(chunks, "_ROWS_PER_CHUNK", 37)
    for n_jobs in (1, 2):
        pd.testing.assert_frame_equal(evaluate(big, judged, names, n_jobs=n_jobs,
                                               **keywords), whole, rtol=0, atol=0)
    small = evaluate(recs, truth, names, item_genres=genres, history=hist, missing="zero",
                     rank_weights="log")
    np.testing.assert_array_equal(whole.loc[small.index].to_numpy(), small.to_numpy())


def _refused(keywords, names=("miscalibration@3",)):
    recs, truth, hist, genres = _tables(11)
    keywords = {"item_genres": genres, "history": hist, "missing": "zero", **keywords}
    keywords = {key: value for key, value in keywords.items() if value is not None}
    with pytest.raises((ValueError, TypeError)) as caught:
        evaluate(recs, truth, list(names), **keywords)
    return caught


@pytest.mark.parametrize("keywords, error, words", [
    ({"item_genres": None}, ValueError, "pass item_genres="),
    ({"history": None}, ValueError, "pass history="),
    ({"item_genres": [1, 2]}, TypeError, "pandas Series"),
    ({"history": {1: 2}}, TypeError, "history must be a pandas or Polars DataFrame"),
    ({"history": pd.DataFrame({"user": [1]})}, ValueError, "item"),
    ({"item_genres": pd.Series(["x", "x"], index=[0, 0])}, ValueError,
     "an (item, genre) pair"),
    ({"item_genres": pd.Series(["x", None], index=[0, 1])}, ValueError,
     "item 1 a missing genre"),
    ({"item_genres": pd.Series(["x"], index=["a"])}, TypeError,
     "ids in item_genres"),
    ({"history": pd.DataFrame({"user": ["u"], "item": [1]})}, TypeError,
     "ids in history"),
    ({"ties": "best"}, ValueError, "ties='best'"),
    ({"ties": "average"}, ValueError, "ties='average'"),
    ({"judged_only": True}, ValueError, "judged_only"),
    ({"rank_weights": "dcg"}, ValueError, "rank_weights"),
])
def test_refusals(keywords, error, words):
    caught = _refused(keywords)
    assert caught.type is error and words in str(caught.value), str(caught.value)


@pytest.mark.parametrize("where", ["recommendations", "history"])
def test_an_item_without_genre_is_refused_as_the_batch_function_does(where):
    recs, truth, hist, genres = _tables(12)
    lost = int(recs["item"].iloc[-1]) if where == "recommendations" else \
        int(hist["item"][hist["item"] >= 30].iloc[0])  # 30-34: never recommended
    genres = genres.drop(lost)
    with pytest.raises(ValueError, match=f"item {lost} of (the )?{where} has no genre"):
        evaluate(recs, truth, ["miscalibration@1"], item_genres=genres, history=hist,
                 missing="zero")
    ranked = recs[recs["user"].isin(hist["user"])]
    with pytest.raises(ValueError, match="has no genre"):
        miscalibration_batch(ranked, hist, genres.reset_index())


def test_refusals_of_names_and_of_unread_tables():
    recs, truth, hist, genres = _tables(13)
    keywords = dict(item_genres=genres, history=hist)
    with pytest.raises(ValueError, match=r"alpha .*\(0, 1\]; got '0'"):
        evaluate(recs, truth, ["miscalibration(alpha=0)@3"], **keywords)
    with pytest.raises(ValueError, match="miscalibration takes no parameter p"):
        evaluate(recs, truth, ["miscalibration(p=0.5)@3"], **keywords)
    with pytest.raises(ValueError, match="item_genres= and history= are read by"):
        evaluate(recs, truth, ["ndcg@3"], **keywords)
    with pytest.raises(ValueError, match="item_genres= and history= are read by"):
        evaluate(recs, truth, ["ndcg@3"], history=hist)


def test_properties_bounds_and_alpha():
    """0 <= value <= ln(1/alpha); alpha = 1 gives 0; a larger alpha never more."""
    recs, truth, hist, genres = _tables(14)
    got = evaluate(recs, truth, ["miscalibration(alpha=0.01)@3", "miscalibration(alpha=0.3)@3",
                                 "miscalibration(alpha=1)@3"], item_genres=genres,
                   history=hist, missing="skip").dropna()
    assert len(got) > 5
    low, high, one = (got.iloc[:, i].to_numpy() for i in range(3))
    assert (low >= 0).all() and (low <= math.log(100) + TOL).all()
    assert (high <= low + TOL).all() and (one == 0).all()


def test_inputs_are_not_mutated():
    recs, truth, hist, genres = _tables(15, "pyarrow")
    copies = recs.copy(), truth.copy(), hist.copy(), genres.copy()
    evaluate(recs, truth, ["miscalibration@3"], item_genres=genres, history=hist,
             missing="zero")
    for before, after in zip(copies, (recs, truth, hist, genres)):
        if isinstance(before, pd.Series):
            pd.testing.assert_series_equal(before, after)
        else:
            pd.testing.assert_frame_equal(before, after)
