"""Popularity bias as evaluate metrics (issue 29, point 1): ``arp@k`` and ``aplt@k``.

No peer library computes them per user from a given popularity table, so the
reference is this library's per-list functions of ``metrics_lib.beyond``
(:func:`average_recommendation_popularity`, :func:`long_tail_share`, which
count the popularity from the interactions themselves, and are tested
against hand-worked examples, Elliot's and RecBole's splits in
tests/test_beyond*.py): ``evaluate(..., item_popularity=...)`` must give
each user their value, on random tables with tied scores and popularities,
lists shorter than the cut-off, users without recommendations, items never
seen in training, and every id kind and backend.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metrics_lib import average_recommendation_popularity, evaluate, long_tail_share
from _helpers import as_frame, in_library

TOL = 1e-12


def _tables(seed, ids="int64"):
    """(recommendations, truth, train): ties in scores and in popularity."""
    rng = np.random.default_rng(seed)
    n_items = 30
    weights = rng.integers(1, 6, n_items).astype(float)  # equal weights: tied popularity
    train = pd.DataFrame({"user": rng.integers(100, 140, 400),
                          "item": rng.choice(n_items, 400, p=weights / weights.sum())})
    recs, truth = [], []
    for user in range(25):
        length = int(rng.integers(0, 9))  # 0: a user only in truth
        items = rng.choice(n_items + 5, size=length, replace=False)  # 30-34: never seen
        scores = rng.integers(0, 3, length).astype(np.float32) / 2  # ties
        recs += [(user, int(i), float(s)) for i, s in zip(items, scores)]
        judged = rng.choice(n_items, size=int(rng.integers(1, 4)), replace=False)
        truth += [(user, int(i), int(rng.integers(0, 3))) for i in judged]
    recs = pd.DataFrame(recs, columns=["user", "item", "score"])
    truth = pd.DataFrame(truth, columns=["user", "item", "relevance"])
    if ids == "big":  # 64-bit ids past 2**53
        for frame in (recs, truth, train):
            frame["item"] = frame["item"].astype(np.int64) + 2**62
    elif ids == "nullable":
        for frame in (recs, truth, train):
            frame["item"] = frame["item"].astype("Int64")
    elif ids == "pyarrow":
        for frame in (recs, truth, train):
            frame["item"] = ("i" + frame["item"].astype(str)).astype("string[pyarrow]")
    return recs, truth, train


def _lists(recs):
    """Each user's list in the order of ties='numeric_asc' (ties by item id, ascending)."""
    return {user: list(frame.sort_values(["score", "item"], ascending=[False, True])["item"])
            for user, frame in recs.groupby("user")}


def _popularity(train, kind):
    if kind == "interactions":
        return train.groupby("item").size()
    return train.groupby("item")["user"].nunique()


@pytest.mark.parametrize("ids", ["int64", "big", "nullable", "pyarrow"])
@pytest.mark.parametrize("kind", ["interactions", "users"])
def test_evaluate_equals_the_per_list_functions(ids, kind):
    compared, worst = 0, 0.0
    for seed in range(2):
        recs, truth, train = _tables(seed, ids)
        names = ["arp", "arp@1", "arp@3", "arp@20", "aplt", "aplt@3", "aplt@20",
                 "aplt(head_share=0.5)@3", "aplt(head_share=1)", "aplt(head_share=0.25)"]
        got = evaluate(recs, truth, names, item_popularity=_popularity(train, kind),
                       ties="numeric_asc", missing="zero")
        pairs = list(zip(train["user"], train["item"]))
        lists = _lists(recs)
        assert set(got.index) == set(truth["user"])
        for user in got.index:
            items = lists.get(user, [])
            for name in names:
                k = int(name.split("@")[1]) if "@" in name else None
                share = float(name.split("=")[1].split(")")[0]) if "(" in name else 0.8
                if not items:  # no recommendation: missing="zero"
                    assert got.loc[user, name] == 0.0
                    continue
                want = (average_recommendation_popularity(items, pairs, k=k,
                                                          popularity=kind)
                        if name.startswith("arp") else
                        long_tail_share(items, pairs, k=k, head_share=share,
                                        popularity=kind))
                worst = max(worst, abs(got.loc[user, name] - want))
                compared += 1
    assert compared > 300 and worst <= TOL


def test_truncate_and_missing_skip():
    recs, truth, train = _tables(7)
    popularity = _popularity(train, "interactions")
    cut = evaluate(recs, truth, ["arp@5", "aplt"], item_popularity=popularity,
                   truncate=3, missing="skip", ties="numeric_asc")
    plain = evaluate(recs, truth, ["arp@3", "aplt@3"], item_popularity=popularity,
                     missing="skip", ties="numeric_asc")
    assert set(cut.index) == set(recs["user"]) & set(truth["user"])
    np.testing.assert_allclose(cut.to_numpy(), plain.to_numpy(), rtol=0, atol=TOL)


@pytest.mark.parametrize("library", ["polars", "pyarrow", "dask"])
def test_other_backends(library):
    recs, truth, train = _tables(8)
    popularity = _popularity(train, "users")
    names = ["arp@3", "aplt(head_share=0.6)@4"]
    want = evaluate(recs, truth, names, item_popularity=popularity, missing="zero")
    recs, truth = in_library(library, recs, truth)
    got = evaluate(recs, truth, names, item_popularity=popularity, missing="zero")
    got = as_frame(got)
    pd.testing.assert_frame_equal(got.sort_index(), want.sort_index(), check_names=False,
                                  check_index_type=False, rtol=0, atol=TOL)


def test_chunks_and_threads_do_not_change_the_values():
    recs, truth, train = _tables(9)
    big = pd.concat([recs.assign(user=recs["user"] + 100 * i) for i in range(400)])
    judged = pd.concat([truth.assign(user=truth["user"] + 100 * i) for i in range(400)])
    popularity = _popularity(train, "interactions")
    one = evaluate(big, judged, ["arp@4", "aplt@4"], item_popularity=popularity,
                   missing="zero")
    two = evaluate(big, judged, ["arp@4", "aplt@4"], item_popularity=popularity,
                   missing="zero", n_jobs=2)
    pd.testing.assert_frame_equal(one, two, rtol=0, atol=0)
    small = evaluate(recs, truth, ["arp@4", "aplt@4"], item_popularity=popularity,
                     missing="zero")
    np.testing.assert_array_equal(one.loc[small.index].to_numpy(), small.to_numpy())


def test_a_dict_is_a_table():
    recs, truth, train = _tables(10)
    popularity = _popularity(train, "interactions")
    a = evaluate(recs, truth, ["arp@3"], item_popularity=popularity, missing="zero")
    b = evaluate(recs, truth, ["arp@3"], item_popularity=popularity.to_dict(),
                 missing="zero")
    pd.testing.assert_frame_equal(a, b)


@pytest.mark.parametrize("keywords, error, words", [
    ({}, ValueError, "pass item_popularity="),
    ({"item_popularity": [1, 2]}, TypeError, "pandas Series"),
    ({"item_popularity": pd.Series([1.0, -1.0], index=[0, 1])}, ValueError, ">= 0"),
    ({"item_popularity": pd.Series([1.0, np.nan], index=[0, 1])}, ValueError,
     "item 1 the popularity nan"),
    ({"item_popularity": pd.Series(["x"], index=[0])}, TypeError, "hold numbers"),
    ({"item_popularity": pd.Series([1.0, 2.0], index=[0, 0])}, ValueError, "item 0 twice"),
    ({"item_popularity": pd.Series([1.0], index=["a"])}, TypeError,
     "string ids in item_popularity"),
    ({"item_popularity": pd.Series([1.0], index=[0]), "ties": "best"}, ValueError,
     "ties='best'"),
    ({"item_popularity": pd.Series([1.0], index=[0]), "ties": "average"}, ValueError,
     "ties='average'"),
    ({"item_popularity": pd.Series([1.0], index=[0]), "judged_only": True}, ValueError,
     "judged_only"),
])
def test_refusals(keywords, error, words):
    recs, truth, _ = _tables(11)
    with pytest.raises(error) as caught:
        evaluate(recs, truth, ["arp@3", "aplt@3"], missing="zero", **keywords)
    assert words in str(caught.value), str(caught.value)


def test_refusals_of_names_and_of_an_unread_table():
    recs, truth, train = _tables(12)
    popularity = _popularity(train, "interactions")
    with pytest.raises(ValueError, match=r"head_share .*\(0, 1\]; got '0'"):
        evaluate(recs, truth, ["aplt(head_share=0)@3"], item_popularity=popularity)
    with pytest.raises(ValueError, match="arp takes no parameter head_share"):
        evaluate(recs, truth, ["arp(head_share=0.5)@3"], item_popularity=popularity)
    with pytest.raises(ValueError, match="item_popularity= is read by"):
        evaluate(recs, truth, ["ndcg@3"], item_popularity=popularity)


def test_inputs_are_not_mutated():
    recs, truth, train = _tables(13)
    popularity = _popularity(train, "interactions")
    copies = recs.copy(), truth.copy(), popularity.copy()
    evaluate(recs, truth, ["arp@3", "aplt@3"], item_popularity=popularity, missing="zero")
    pd.testing.assert_frame_equal(recs, copies[0])
    pd.testing.assert_frame_equal(truth, copies[1])
    pd.testing.assert_series_equal(popularity, copies[2])
